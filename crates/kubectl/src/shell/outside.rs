//! The learner's laptop outside the cluster, as the shell ([`crate::shell`]) sees
//! it: `kubectl proxy`, `minikube ip`, `curl` and `wget`.
//!
//! - `kubectl proxy [--port=N] [--address=A]` prints `Starting to serve on
//!   127.0.0.1:8001` and records the proxy in the session. In the tutorials it runs
//!   in a second terminal and never returns; here the line returns at once and the
//!   proxy keeps serving for the rest of the session (until the page reloads or
//!   the script ends). A second proxy on the same port fails as the real one does
//!   (`bind: address already in use`).
//! - `minikube ip` prints a node's InternalIP. minikube clusters have one node; the
//!   simulated cluster has several, so it prints the InternalIP of the first worker
//!   node (by name) that has one, else of the first node that has one (the
//!   control plane). It reads the cluster's configuration, not the apiserver, so it
//!   works while the apiserver is down. `minikube service NAME --url` is in
//!   `minikube_service.rs`. Other `minikube` commands say that only
//!   `minikube ip` is simulated.
//! - `curl URL` and `wget -qO- URL` go through [`fetch`]: `localhost:PORT` (or
//!   127.0.0.1) with a proxy on PORT is served here, from the apiserver:
//!   `/version`, `/api`, `/healthz`, `/livez`, `/readyz`, and objects and lists
//!   under `/api/v1` and `/apis/GROUP/VERSION` (not the discovery documents
//!   `/api/v1` and `/apis`), pretty-printed as the apiserver does for curl and
//!   wget (two-space indent; object keys are sorted as `kubectl get -o json`
//!   sorts them, not in Go's field order). The pod proxy subresource
//!   (`/api/v1/namespaces/NS/pods/NAME:PORT/proxy/PATH`) and every other address
//!   (node IPs with NodePorts, LoadBalancer IPs, Ingress hosts) go to
//!   [`outside_request`], the one door to the simulated data plane.
//! - curl flags: `-s`, `-S`, `-f`, `-L`, `-k`, `-m`/`--max-time N`,
//!   `--connect-timeout N`, `-X GET`; wget flags: `-q`, `-O -` (`-qO-`), `-T N`.
//!   wget prints busybox-style one-line errors instead of GNU wget's progress
//!   report.

use crate::context::CommandOutput;
use crate::printers::json;
use crate::Session;
use warehouse_sim::kubelet::exec::HttpTools;
use warehouse_sim::kubelet::shell::ProgramOutput;
use warehouse_sim::network::http::{FailureReason, RequestSource};
use warehouse_sim::{Cluster, Kind, KUBERNETES_VERSION};

/// The port `kubectl proxy` serves on unless told otherwise.
pub const DEFAULT_PROXY_PORT: u16 = 8001;

/// Whether kubectl's arguments are `proxy ...` (global `-n NS` may come first).
pub(crate) fn is_proxy(args: &[String]) -> bool {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-n" | "--namespace" => i += 2,
            s if s.starts_with('-') => i += 1,
            s => return s == "proxy",
        }
    }
    false
}

/// `kubectl proxy`.
pub(crate) fn kubectl_proxy(session: &mut Session, args: &[String]) -> CommandOutput {
    let mut port = DEFAULT_PROXY_PORT;
    let mut address = "127.0.0.1".to_string();
    let start = args.iter().position(|a| a == "proxy").map_or(0, |p| p + 1);
    let mut it = args.iter().skip(start);
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String, CommandOutput> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| {
                    CommandOutput::error(format!(
                        "error: flag needs an argument: {name}\nSee 'kubectl proxy --help' for usage."
                    ))
                })
        };
        match flag {
            "-p" | "--port" => {
                let v = match value(if flag == "-p" { "'p' in -p" } else { "--port" }) {
                    Ok(v) => v,
                    Err(e) => return e,
                };
                port = match v.parse::<u16>() {
                    Ok(0) => {
                        return CommandOutput::error(
                            "error: --port=0 (a random port) is not simulated; give a port number",
                        )
                    }
                    Ok(p) => p,
                    Err(_) => {
                        return CommandOutput::error(format!(
                            "error: invalid argument \"{v}\" for \"-p, --port\" flag: strconv.ParseInt: parsing \"{v}\": invalid syntax\nSee 'kubectl proxy --help' for usage."
                        ))
                    }
                };
            }
            "--address" => match value("--address") {
                Ok(v) => address = v,
                Err(e) => return e,
            },
            "--accept-hosts" | "--accept-paths" | "--reject-paths" | "--reject-methods"
            | "--api-prefix" => {
                if let Err(e) = value(flag) {
                    return e;
                }
            }
            "--disable-filter" | "--keepalive" => {}
            other if other.starts_with('-') => {
                return CommandOutput::error(format!(
                    "error: unknown flag: {other}\nSee 'kubectl proxy --help' for usage."
                ))
            }
            other => {
                return CommandOutput::error(format!(
                    "error: unexpected argument \"{other}\": kubectl proxy takes only flags"
                ))
            }
        }
    }
    let forwarded = session.cluster.port_forwards().any(|(p, _)| p == port);
    if forwarded || !session.shell.proxies.insert(port) {
        return CommandOutput::error(format!(
            "error: listen tcp {address}:{port}: bind: address already in use"
        ));
    }
    let mut out = CommandOutput::new();
    out.out_line(format!("Starting to serve on {address}:{port}"));
    out
}

/// `minikube ip` (see the module docs for which node).
pub(crate) fn minikube(session: &Session, args: &[String]) -> CommandOutput {
    match args.first().map(String::as_str) {
        Some("ip") => match minikube_ip(session) {
            Some(ip) => {
                let mut out = CommandOutput::new();
                out.out_line(ip);
                out
            }
            None => CommandOutput::error("minikube: no node of the cluster has an InternalIP address"),
        },
        Some("service") => crate::shell::minikube_service::run(session, &args[1..]),
        Some(other) => CommandOutput::error(format!(
            "minikube: only `minikube ip` and `minikube service NAME --url` are simulated here (the cluster is already running); \"minikube {other}\" is not"
        )),
        None => CommandOutput::error(
            "minikube: only `minikube ip` and `minikube service NAME --url` are simulated here (the cluster is already running)",
        ),
    }
}

/// The InternalIP `minikube ip` prints.
pub fn minikube_ip(session: &Session) -> Option<String> {
    let nodes = session.cluster.list(Kind::Node, None);
    let ip_of = |o: &warehouse_sim::Object| -> Option<(bool, String)> {
        let node = o.as_node()?;
        let ip = node
            .status
            .as_ref()?
            .addresses
            .as_ref()?
            .iter()
            .find(|a| a.type_ == "InternalIP")?
            .address
            .clone();
        let control_plane = node
            .metadata
            .labels
            .as_ref()
            .is_some_and(|l| l.contains_key("node-role.kubernetes.io/control-plane"));
        Some((control_plane, ip))
    };
    let ips: Vec<(bool, String)> = nodes.iter().filter_map(ip_of).collect();
    ips.iter()
        .find(|(cp, _)| !cp)
        .or_else(|| ips.first())
        .map(|(_, ip)| ip.clone())
}

/// A URL as curl reads it (`http://` assumed when no scheme is given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    pub scheme: String,
    pub host: String,
    pub port: u16,
    /// The path and query, starting with `/`.
    pub path: String,
}

impl Url {
    /// Parses a URL, or returns curl's exit code and message.
    pub fn parse(text: &str) -> Result<Url, (i32, String)> {
        let (scheme, rest) = match text.split_once("://") {
            Some((s, r)) => (s.to_ascii_lowercase(), r),
            None => ("http".to_string(), text),
        };
        let default_port = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            other => {
                return Err((
                    1,
                    format!("Protocol \"{other}\" not supported or disabled in libcurl"),
                ))
            }
        };
        let (authority, path) = match rest.find(['/', '?']) {
            Some(i) if rest[i..].starts_with('?') => (&rest[..i], format!("/{}", &rest[i..])),
            Some(i) => (&rest[..i], rest[i..].to_string()),
            None => (rest, "/".to_string()),
        };
        let authority = authority.rsplit('@').next().unwrap_or(authority);
        let (host, port) =
            match authority.rsplit_once(':') {
                Some((h, "")) => (h, default_port),
                Some((h, p)) => match p.parse::<u16>() {
                    Ok(p) => (h, p),
                    Err(_) => return Err((
                        3,
                        "URL rejected: Port number was not a decimal number between 0 and 65535"
                            .to_string(),
                    )),
                },
                None => (authority, default_port),
            };
        if host.is_empty() {
            return Err((3, "URL rejected: No host part in the URL".to_string()));
        }
        Ok(Url {
            scheme,
            host: host.to_ascii_lowercase(),
            port,
            path,
        })
    }
}

/// What a request got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FetchResult {
    /// An HTTP response.
    Response { status: u16, body: String },
    /// No response: curl's exit code and its message (without `curl: (N) `).
    Failed { curl_code: i32, message: String },
}

impl FetchResult {
    /// curl's `(6) Could not resolve host: HOST`.
    pub fn could_not_resolve(host: &str) -> FetchResult {
        FetchResult::Failed {
            curl_code: 6,
            message: format!("Could not resolve host: {host}"),
        }
    }

    /// curl's `(7)` for a refused connection, after `after_ms` milliseconds.
    pub fn refused(host: &str, port: u16, after_ms: u64) -> FetchResult {
        FetchResult::Failed {
            curl_code: 7,
            message: format!(
                "Failed to connect to {host} port {port} after {after_ms} ms: Couldn't connect to server"
            ),
        }
    }

    /// curl's `(28)` for a connection nothing answered within `after_ms`.
    pub fn timed_out(host: &str, port: u16, after_ms: u64) -> FetchResult {
        FetchResult::Failed {
            curl_code: 28,
            message: format!(
                "Failed to connect to {host} port {port} after {after_ms} ms: Timeout was reached"
            ),
        }
    }
}

/// A request from the laptop that leaves it: to a node, a load balancer, an
/// Ingress, or through the apiserver's proxy to a pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutsideRequest {
    /// `http://HOST:PORT/PATH` straight from the laptop.
    Direct { url: Url },
    /// `/api/v1/namespaces/NS/pods/NAME:PORT/proxy/PATH` through `kubectl proxy`:
    /// the apiserver dials the pod.
    PodProxy {
        namespace: String,
        pod: String,
        pod_ip: String,
        port: u16,
        path: String,
    },
}

/// One GET from the laptop (curl and wget).
pub fn fetch(session: &mut Session, url: &Url) -> FetchResult {
    let local = matches!(
        url.host.as_str(),
        "localhost" | "127.0.0.1" | "0.0.0.0" | "[::1]"
    );
    if !local {
        return outside_request(session, &OutsideRequest::Direct { url: url.clone() });
    }
    if session.shell.proxy_on(url.port) {
        return through_proxy(session, &url.path);
    }
    // A `kubectl port-forward` may listen there; else nothing does.
    if !session.cluster.port_forwards().any(|(p, _)| p == url.port) {
        return FetchResult::refused(&url.host, url.port, 0);
    }
    outside_request(session, &OutsideRequest::Direct { url: url.clone() })
}

/// The data plane as seen from outside the cluster.
///
/// Not connected yet: every address fails to connect, as if nothing listened,
/// and the pod proxy gets the apiserver's 503 for a pod that does not answer.
/// Wiring it: a direct request is the data plane's request from outside the
/// cluster; its failures map to [`FetchResult::could_not_resolve`],
/// [`FetchResult::refused`] and [`FetchResult::timed_out`]; an answer is a
/// [`FetchResult::Response`] with its status and body.
// wired to the data plane in the merge
pub fn outside_request(session: &mut Session, request: &OutsideRequest) -> FetchResult {
    match request {
        OutsideRequest::Direct { url } => data_plane(session, &RequestSource::Outside, url),
        OutsideRequest::PodProxy {
            pod_ip, port, path, ..
        } => {
            // The apiserver dials the pod from the control plane's network.
            let url = Url {
                scheme: "http".into(),
                host: pod_ip.clone(),
                port: *port,
                path: path.clone(),
            };
            match data_plane(session, &RequestSource::Outside, &url) {
                FetchResult::Failed { .. } => FetchResult::Response {
                    status: 503,
                    body: status_json(
                        &format!(
                            "error trying to reach service: dial tcp {pod_ip}:{port}: connect: connection refused"
                        ),
                        "ServiceUnavailable",
                        503,
                        None,
                    ),
                },
                answer => answer,
            }
        }
    }
}

/// One GET through the simulated data plane (`Cluster::http_request`), as curl
/// reports it.
pub fn data_plane(session: &mut Session, from: &RequestSource, url: &Url) -> FetchResult {
    request(&mut session.cluster, from, url)
}

fn request(cluster: &mut Cluster, from: &RequestSource, url: &Url) -> FetchResult {
    let text = format!("http://{}:{}{}", url.host, url.port, url.path);
    let outcome = match cluster.http_request(from, &text, None) {
        Ok(o) => o,
        Err(_) => return FetchResult::could_not_resolve(&url.host),
    };
    let after_ms = outcome.latency_us / 1000;
    match outcome.result {
        Ok(r) => FetchResult::Response {
            status: r.status,
            body: r.body,
        },
        Err(f) => match f.reason {
            FailureReason::CouldNotResolve => FetchResult::could_not_resolve(&url.host),
            // A connection a NetworkPolicy drops is never answered.
            FailureReason::Timeout | FailureReason::PolicyDenied => {
                FetchResult::timed_out(&url.host, url.port, after_ms)
            }
            FailureReason::SourceNotRunning => FetchResult::Failed {
                curl_code: 7,
                message: f.message,
            },
            FailureReason::ConnectionRefused | FailureReason::NoEndpoints => {
                FetchResult::refused(&url.host, url.port, after_ms)
            }
        },
    }
}

/// `curl` and `wget` in a container: the same programs, their requests leaving
/// from the pod.
pub struct ContainerHttp;

impl HttpTools for ContainerHttp {
    fn run(
        &self,
        cluster: &mut Cluster,
        from: &RequestSource,
        argv: &[String],
    ) -> Option<ProgramOutput> {
        let exe = argv.first()?;
        let base = exe.rsplit('/').next().unwrap_or(exe);
        let mut fetch = |url: &Url| request(cluster, from, url);
        let out = match base {
            "curl" => curl_with(&argv[1..], &mut fetch),
            "wget" => wget_with(&argv[1..], &mut fetch),
            _ => return None,
        };
        Some(ProgramOutput {
            text: out.combined(),
            status: out.code,
        })
    }
}

/// A GET the apiserver answers through `kubectl proxy`, as the administrator the
/// kubeconfig names. With the apiserver down the proxy answers 502 with no body
/// (its error goes to the proxy's own terminal).
fn through_proxy(session: &mut Session, path_and_query: &str) -> FetchResult {
    if session.cluster.connect().is_err() {
        return FetchResult::Response {
            status: 502,
            body: String::new(),
        };
    }
    let path = path_and_query.split('?').next().unwrap_or(path_and_query);
    let trimmed = path.trim_end_matches('/');
    if trimmed == "/version" {
        return ok(version_json());
    }
    if trimmed == "/api" {
        return ok(api_versions_json(session));
    }
    if let Some(r) = session.cluster.get_raw(path_and_query) {
        return FetchResult::Response {
            status: r.code,
            body: r.body,
        };
    }
    let segments: Vec<&str> = trimmed.split('/').filter(|s| !s.is_empty()).collect();
    let (group, version, rest) = match segments.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return not_found_page(),
    };
    let (namespace, rest) = match rest {
        ["namespaces", ns, rest @ ..] if !rest.is_empty() => (Some(*ns), rest),
        _ => (None, rest),
    };
    let (plural, name, sub) = match rest {
        [plural] => (*plural, None, &[][..]),
        [plural, name, sub @ ..] => (*plural, Some(*name), sub),
        _ => return resource_not_found(),
    };
    // `pods/NAME:PORT/proxy/...`: the pod proxy subresource.
    if plural == "pods" && group.is_empty() && sub.first() == Some(&"proxy") {
        let Some(name) = name else {
            return resource_not_found();
        };
        let ns = namespace.unwrap_or("default");
        let (pod, port) = match name.split_once(':') {
            Some((p, port)) => (p, port.parse::<u16>().ok()),
            None => (name, None),
        };
        let Ok(obj) = session.cluster.get(Kind::Pod, ns, pod) else {
            return not_found(pod, "pods");
        };
        let pod_ip = obj
            .as_pod()
            .and_then(|p| p.status.as_ref()?.pod_ip.clone())
            .unwrap_or_default();
        let rest_path = format!("/{}", sub[1..].join("/"));
        return outside_request(
            session,
            &OutsideRequest::PodProxy {
                namespace: ns.to_string(),
                pod: pod.to_string(),
                pod_ip,
                port: port.unwrap_or(80),
                path: rest_path,
            },
        );
    }
    let Some(kind) = Kind::lookup(plural).filter(|k| {
        k.plural() == plural && k.group() == group && k.serves(&api_version(group, version))
    }) else {
        return resource_not_found();
    };
    if !sub.is_empty() || (namespace.is_some() && !kind.namespaced()) {
        return resource_not_found();
    }
    match name {
        Some(name) => {
            let ns = if kind.namespaced() {
                namespace.unwrap_or("default")
            } else {
                ""
            };
            match session.cluster.get(kind, ns, name) {
                Ok(obj) => ok(pretty(&obj.to_json())),
                Err(_) => not_found(name, plural),
            }
        }
        None => {
            let items: Vec<serde_json::Value> = session
                .cluster
                .list(kind, namespace)
                .iter()
                .map(|o| {
                    // A typed list's items carry no kind and apiVersion of their own.
                    let mut v = o.to_json();
                    if let Some(m) = v.as_object_mut() {
                        m.remove("kind");
                        m.remove("apiVersion");
                    }
                    v
                })
                .collect();
            let list = serde_json::json!({
                "kind": format!("{}List", kind.as_str()),
                "apiVersion": kind.api_version(),
                "metadata": {"resourceVersion": session.cluster.work().writes.to_string()},
                "items": items,
            });
            ok(pretty(&list))
        }
    }
}

fn api_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

fn ok(body: String) -> FetchResult {
    FetchResult::Response { status: 200, body }
}

/// The apiserver's JSON for curl and wget: `json.Indent` with two spaces, and the
/// encoder's final newline.
fn pretty(v: &serde_json::Value) -> String {
    use serde::Serialize;
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"  ");
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    if v.serialize(&mut ser).is_err() {
        return String::new();
    }
    let mut text = json::go_escape(&String::from_utf8_lossy(&buf));
    text.push('\n');
    text
}

/// `GET /version` (`version.Info`). The simulated build has no commit or build
/// date of its own: it reports a commit of zeros, the simulation's epoch as build
/// date, and a fixed Go version.
pub(crate) fn version_json() -> String {
    let v = KUBERNETES_VERSION.trim_start_matches('v');
    let mut parts = v.split('.');
    let major = parts.next().unwrap_or("1");
    let minor = parts.next().unwrap_or("0");
    let min_compat = minor
        .parse::<u32>()
        .map(|m| m.saturating_sub(1).to_string())
        .unwrap_or_else(|_| minor.to_string());
    format!(
        "{{
  \"major\": \"{major}\",
  \"minor\": \"{minor}\",
  \"emulationMajor\": \"{major}\",
  \"emulationMinor\": \"{minor}\",
  \"minCompatibilityMajor\": \"{major}\",
  \"minCompatibilityMinor\": \"{min_compat}\",
  \"gitVersion\": \"{KUBERNETES_VERSION}\",
  \"gitCommit\": \"0000000000000000000000000000000000000000\",
  \"gitTreeState\": \"clean\",
  \"buildDate\": \"2026-01-01T00:00:00Z\",
  \"goVersion\": \"go1.25.0\",
  \"compiler\": \"gc\",
  \"platform\": \"linux/amd64\"
}}
"
    )
}

/// `GET /api`: the core group's versions and the apiserver's advertised address
/// (the control-plane node's InternalIP, port 6443, as kubeadm sets it up).
fn api_versions_json(session: &Session) -> String {
    let address = session
        .cluster
        .list(Kind::Node, None)
        .iter()
        .filter_map(|o| o.as_node())
        .filter(|n| {
            n.metadata
                .labels
                .as_ref()
                .is_some_and(|l| l.contains_key("node-role.kubernetes.io/control-plane"))
        })
        .find_map(|n| {
            n.status
                .as_ref()?
                .addresses
                .as_ref()?
                .iter()
                .find(|a| a.type_ == "InternalIP")
                .map(|a| a.address.clone())
        })
        .unwrap_or_else(|| "127.0.0.1".to_string());
    format!(
        "{{\n  \"kind\": \"APIVersions\",\n  \"versions\": [\n    \"v1\"\n  ],\n  \"serverAddressByClientCIDRs\": [\n    {{\n      \"clientCIDR\": \"0.0.0.0/0\",\n      \"serverAddress\": \"{address}:6443\"\n    }}\n  ]\n}}\n"
    )
}

/// A `metav1.Status` failure as the apiserver writes it for curl.
fn status_json(message: &str, reason: &str, code: u16, details: Option<(&str, &str)>) -> String {
    let q = |s: &str| json::go_escape(&serde_json::to_string(s).unwrap_or_default());
    let mut s = format!(
        "{{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {{}},\n  \"status\": \"Failure\",\n  \"message\": {},\n  \"reason\": {},\n",
        q(message),
        q(reason)
    );
    if let Some((name, kind)) = details {
        s.push_str(&format!(
            "  \"details\": {{\n    \"name\": {},\n    \"kind\": {}\n  }},\n",
            q(name),
            q(kind)
        ));
    }
    s.push_str(&format!("  \"code\": {code}\n}}\n"));
    s
}

fn not_found(name: &str, plural: &str) -> FetchResult {
    FetchResult::Response {
        status: 404,
        body: status_json(
            &format!("{plural} \"{name}\" not found"),
            "NotFound",
            404,
            Some((name, plural)),
        ),
    }
}

fn resource_not_found() -> FetchResult {
    FetchResult::Response {
        status: 404,
        body: status_json(
            "the server could not find the requested resource",
            "NotFound",
            404,
            None,
        ),
    }
}

fn not_found_page() -> FetchResult {
    FetchResult::Response {
        status: 404,
        body: "404 page not found\n".to_string(),
    }
}

/// The reason phrase of an HTTP status line.
fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

const CURL_TRY: &str = "curl: try 'curl --help' or 'curl --manual' for more information";

/// `curl [OPTIONS] URL...` on the laptop.
pub(crate) fn curl(session: &mut Session, args: &[String]) -> CommandOutput {
    curl_with(args, &mut |url: &Url| fetch(session, url))
}

/// `curl [OPTIONS] URL...` with `fetch` doing the requests.
pub fn curl_with(args: &[String], fetch: &mut dyn FnMut(&Url) -> FetchResult) -> CommandOutput {
    let (mut silent, mut show_error, mut fail) = (false, false, false);
    let mut urls = Vec::new();
    let mut it = args.iter();
    let usage = |message: String| {
        let mut out = CommandOutput::error(message);
        out.err_line(CURL_TRY);
        out.code = 2;
        out
    };
    while let Some(a) = it.next() {
        if let Some(long) = a.strip_prefix("--") {
            match long {
                "silent" => silent = true,
                "show-error" => show_error = true,
                "fail" => fail = true,
                "location" | "insecure" => {}
                "max-time" | "connect-timeout" | "request" => {
                    let Some(v) = it.next() else {
                        return usage(format!("curl: option {a}: requires parameter"));
                    };
                    if long == "request" && v != "GET" {
                        return CommandOutput::error(format!(
                            "curl: only GET requests are simulated (got -X {v})"
                        ));
                    }
                }
                "" => urls.extend(it.by_ref().cloned()),
                _ => return usage(format!("curl: option {a}: is unknown")),
            }
            continue;
        }
        match a.strip_prefix('-') {
            Some(flags) if !flags.is_empty() => {
                let chars: Vec<char> = flags.chars().collect();
                for (i, c) in chars.iter().enumerate() {
                    match c {
                        's' => silent = true,
                        'S' => show_error = true,
                        'f' => fail = true,
                        'L' | 'k' => {}
                        'm' | 'X' => {
                            let inline: String = chars[i + 1..].iter().collect();
                            let v = if inline.is_empty() {
                                match it.next() {
                                    Some(v) => v.clone(),
                                    None => {
                                        return usage(format!(
                                            "curl: option -{c}: requires parameter"
                                        ))
                                    }
                                }
                            } else {
                                inline
                            };
                            if *c == 'X' && v != "GET" {
                                return CommandOutput::error(format!(
                                    "curl: only GET requests are simulated (got -X {v})"
                                ));
                            }
                            break;
                        }
                        other => return usage(format!("curl: option -{other}: is unknown")),
                    }
                }
            }
            _ => urls.push(a.clone()),
        }
    }
    if urls.is_empty() {
        return usage("curl: no URL specified!".to_string());
    }
    let mut out = CommandOutput::new();
    for u in &urls {
        let result = match Url::parse(u) {
            Ok(url) => fetch(&url),
            Err((curl_code, message)) => FetchResult::Failed { curl_code, message },
        };
        match result {
            FetchResult::Response { status, .. } if fail && status >= 400 => {
                if !silent || show_error {
                    out.err_line(format!(
                        "curl: (22) The requested URL returned error: {status}"
                    ));
                }
                out.code = 22;
            }
            FetchResult::Response { body, .. } => out.stdout.push_str(&body),
            FetchResult::Failed { curl_code, message } => {
                if !silent || show_error {
                    out.err_line(format!("curl: ({curl_code}) {message}"));
                }
                out.code = curl_code;
            }
        }
    }
    out
}

/// `wget -qO- URL` (and `-O -`, `-q -O -`) on the laptop.
pub(crate) fn wget(session: &mut Session, args: &[String]) -> CommandOutput {
    wget_with(args, &mut |url: &Url| fetch(session, url))
}

/// `wget` with `fetch` doing the requests.
pub fn wget_with(args: &[String], fetch: &mut dyn FnMut(&Url) -> FetchResult) -> CommandOutput {
    let mut quiet = false;
    let mut to_stdout = false;
    let mut urls = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-q" | "--quiet" => quiet = true,
            "-O-" | "-qO-" | "-qO" | "-O" | "--output-document" | "--output-document=-" => {
                quiet |= a.starts_with("-q");
                let target = if a.ends_with('-') {
                    "-".to_string()
                } else {
                    match it.next() {
                        Some(t) => t.clone(),
                        None => {
                            return CommandOutput::error(
                                "wget: option requires an argument -- 'O'\nUsage: wget [OPTION]... [URL]...",
                            )
                        }
                    }
                };
                if target != "-" {
                    return CommandOutput::error(
                        "wget: saving files is not simulated; print to the terminal with wget -qO- URL",
                    );
                }
                to_stdout = true;
            }
            "-T" | "--timeout" => {
                it.next();
            }
            s if s.starts_with('-') => {
                return CommandOutput::error(format!(
                    "wget: unrecognized option '{s}'\nUsage: wget [OPTION]... [URL]..."
                ))
            }
            s => urls.push(s.to_string()),
        }
    }
    if urls.is_empty() {
        return CommandOutput::error("wget: missing URL\nUsage: wget [OPTION]... [URL]...");
    }
    if !to_stdout {
        return CommandOutput::error(
            "wget: saving files is not simulated; print to the terminal with wget -qO- URL",
        );
    }
    let mut out = CommandOutput::new();
    for u in &urls {
        let (host, result) = match Url::parse(u) {
            Ok(url) => (url.host.clone(), fetch(&url)),
            Err((_, message)) => (
                String::new(),
                FetchResult::Failed {
                    curl_code: 3,
                    message,
                },
            ),
        };
        match result {
            FetchResult::Response { status, body } if status < 400 => {
                // Without -q busybox reports the download on stderr (its
                // `Connecting to` and progress lines are left out here).
                if !quiet {
                    out.err_line("writing to stdout");
                }
                out.stdout.push_str(&body);
                if !quiet {
                    out.err_line("written to stdout");
                }
            }
            // busybox wget: `-q` hides the progress, never the error; any failure
            // exits 1.
            FetchResult::Response { status, .. } => {
                out.err_line(format!(
                    "wget: server returned error: HTTP/1.1 {status} {}",
                    reason_phrase(status)
                ));
                out.code = 1;
            }
            FetchResult::Failed { curl_code, message } => {
                out.err_line(match curl_code {
                    6 => format!("wget: bad address '{host}'"),
                    7 => format!("wget: can't connect to remote host ({host}): Connection refused"),
                    28 => "wget: download timed out".to_string(),
                    _ => format!("wget: {message}"),
                });
                out.code = 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_read_like_curl() {
        let u = Url::parse("http://192.168.49.2:30080").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("192.168.49.2", 30080, "/")
        );
        let u = Url::parse("localhost:8001/version?x=1").unwrap();
        assert_eq!(
            (u.scheme.as_str(), u.port, u.path.as_str()),
            ("http", 8001, "/version?x=1")
        );
        assert_eq!(Url::parse("http://10.0.0.1:/").unwrap().port, 80);
        assert_eq!(Url::parse("http://:80/").unwrap_err().0, 3);
        assert_eq!(Url::parse("http://a:99999/").unwrap_err().0, 3);
        assert_eq!(Url::parse("ftp://a/").unwrap_err().0, 1);
    }

    fn session() -> Session {
        Session::new(warehouse_sim::Cluster::new(
            1,
            warehouse_sim::Topology::default(),
        ))
    }

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn minikube_ip_is_the_first_workers_internal_ip() {
        let s = session();
        let ip = minikube_ip(&s).unwrap();
        let zone_a = s.cluster.get(Kind::Node, "", "zone-a").unwrap();
        let addresses = zone_a
            .as_node()
            .unwrap()
            .status
            .clone()
            .unwrap()
            .addresses
            .unwrap();
        assert_eq!(ip, addresses[0].address);
    }

    #[test]
    fn kubectl_proxy_flags_and_ports() {
        let mut s = session();
        assert!(is_proxy(&words("-n default proxy --port 8002")));
        assert!(!is_proxy(&words("get pods proxy")));
        let out = kubectl_proxy(&mut s, &words("-n default proxy --port 8002"));
        assert_eq!(out.stdout, "Starting to serve on 127.0.0.1:8002\n");
        assert!(s.shell.proxy_on(8002));
        let out = kubectl_proxy(&mut s, &words("proxy -p=8002"));
        assert!(out.stderr.contains("address already in use"), "{out:?}");
        let out = kubectl_proxy(&mut s, &words("proxy --port nope"));
        assert!(out.stderr.contains("invalid argument \"nope\""), "{out:?}");
        let out = kubectl_proxy(&mut s, &words("proxy --frob"));
        assert!(
            out.stderr.starts_with("error: unknown flag: --frob"),
            "{out:?}"
        );
        let url = Url::parse("localhost:8002/api").unwrap();
        match fetch(&mut s, &url) {
            FetchResult::Response { status, body } => {
                assert_eq!(status, 200);
                assert!(
                    body.contains("\"serverAddress\": \"172.18.0.2:6443\""),
                    "{body}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn status_bodies_are_the_apiservers() {
        assert_eq!(
            status_json("pods \"x\" not found", "NotFound", 404, Some(("x", "pods"))),
            "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n  \"message\": \"pods \\\"x\\\" not found\",\n  \"reason\": \"NotFound\",\n  \"details\": {\n    \"name\": \"x\",\n    \"kind\": \"pods\"\n  },\n  \"code\": 404\n}\n"
        );
    }
}
