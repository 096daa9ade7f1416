//! The data plane's request path: one HTTP request from a pod or from outside the
//! cluster, through the kube-proxy rules, a cloud load balancer or the ingress
//! controller, to a container that answers (or does not).
//!
//! [`Cluster::http_request`] is the one function every client uses: the traffic
//! generator (`traffic.rs`), `sim request`, and `wget`/`curl` in containers.
//! Requests follow the data plane as it is programmed at that moment: kube-proxy's
//! rules and ingress-nginx's upstreams lag the pods' real state by the watch delay, so
//! a backend that died but is still in the rules fails the request, while a pod that
//! is terminating but still runs its container answers. Nothing here writes to the
//! apiserver: user traffic never passes through etcd, the scheduler or the apiserver.
//!
//! Simplified:
//! - A pod resolves names through CoreDNS (`dns.rs`: its search list, a headless
//!   Service's first ready address); a client outside resolves only Ingress hosts that
//!   have an address (as if its `/etc/hosts` named them).
//! - A connection to a pod IP whose pod is gone, or whose containers do not listen on
//!   the port, is refused; one to a pod on a powered-off node times out, and so does
//!   one between a partitioned node and any other (traffic inside it still flows).
//! - A cloud load balancer sends each connection to a running, reachable node (its
//!   health check is instant); that node's kube-proxy picks the backend.
//! - kube-proxy's random backend choice is a hash of the request's sequence number,
//!   so runs are deterministic; ingress-nginx round-robins per upstream.
//! - Latency is a model, not a measurement: [`CLIENT_US`] for the client, a hop per
//!   network crossing ([`SAME_NODE_US`], [`CROSS_NODE_US`], [`OUTSIDE_US`]),
//!   [`INGRESS_US`] through nginx, [`SERVER_US`] plus up to 1 ms of deterministic
//!   jitter in the server; a client gives up after [`CLIENT_TIMEOUT_US`].
//! - What a server answers comes from its image (`runtime::listens`,
//!   `runtime::http_status`, [`response_body`]).

use crate::cluster::Cluster;
use crate::kubelet::runtime;
use crate::kubelet::RuntimePod;
use crate::network::policy::{Party, OUTSIDE_CLIENT_IP};
use crate::object::{Kind, Object, ObjectKey};
use serde::{Deserialize, Serialize};

/// The client side of a request: its stack and connection set-up.
pub const CLIENT_US: u64 = 200;
/// A hop inside one node (veth and bridge).
pub const SAME_NODE_US: u64 = 50;
/// A hop between two nodes.
pub const CROSS_NODE_US: u64 = 400;
/// From outside the cluster to a node or a load balancer.
pub const OUTSIDE_US: u64 = 1_500;
/// ingress-nginx proxying the request.
pub const INGRESS_US: u64 = 800;
/// A server answering (plus up to 1 ms of jitter).
pub const SERVER_US: u64 = 500;
/// How long a client waits for a connection before it gives up.
pub const CLIENT_TIMEOUT_US: u64 = 1_000_000;
/// ingress-nginx's `proxy-connect-timeout` (5 s).
pub const NGINX_CONNECT_TIMEOUT_US: u64 = 5_000_000;
/// ingress-nginx's `proxy-next-upstream-tries`.
pub const NGINX_TRIES: usize = 3;

/// Who sends a request.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RequestSource {
    /// The learner's laptop, outside the cluster.
    Outside,
    /// A pod's network namespace.
    Pod { namespace: String, name: String },
}

impl RequestSource {
    /// `outside` or `pod/NAME`.
    pub fn describe(&self) -> String {
        match self {
            RequestSource::Outside => "outside".into(),
            RequestSource::Pod { name, .. } => format!("pod/{name}"),
        }
    }
}

/// Why a request got no HTTP answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum FailureReason {
    /// The source pod does not run (gone, not started, or its node is down).
    SourceNotRunning,
    /// The host name did not resolve.
    CouldNotResolve,
    /// Connection refused: nothing listens or the pod is gone.
    ConnectionRefused,
    /// kube-proxy rejects a connection to a Service without endpoints (the client
    /// sees "connection refused").
    NoEndpoints,
    /// No answer before the client gave up: a node powered off, an address nothing
    /// routes.
    Timeout,
    /// A NetworkPolicy dropped the connection (`policy.rs`): the client sees a
    /// timeout.
    PolicyDenied,
}

impl FailureReason {
    /// A short name (`sim traffic stats`).
    pub fn name(self) -> &'static str {
        match self {
            FailureReason::SourceNotRunning => "source-not-running",
            FailureReason::CouldNotResolve => "could-not-resolve",
            FailureReason::ConnectionRefused => "connection-refused",
            FailureReason::NoEndpoints => "no-endpoints",
            FailureReason::Timeout => "timeout",
            FailureReason::PolicyDenied => "network-policy",
        }
    }

    /// Whether the client waited until it gave up (no answer at all).
    pub fn times_out(self) -> bool {
        matches!(self, FailureReason::Timeout | FailureReason::PolicyDenied)
    }
}

/// An HTTP answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub body: String,
    /// The pod that answered (None when ingress-nginx answered itself).
    pub pod: Option<ObjectKey>,
    /// The address that answered (`10.244.1.3:80`).
    pub address: String,
}

impl HttpResponse {
    /// `HTTP/1.1 200 OK`.
    pub fn status_line(&self) -> String {
        format!("HTTP/1.1 {} {}", self.status, reason_phrase(self.status))
    }
}

/// No HTTP answer, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestFailure {
    pub reason: FailureReason,
    pub message: String,
}

/// What happened to one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpOutcome {
    pub result: Result<HttpResponse, RequestFailure>,
    /// Modelled latency in microseconds.
    pub latency_us: u64,
    /// What the request went through (`kube-proxy on zone-a`, `ingress-nginx`, ...).
    pub via: Vec<String>,
    /// The address the host name resolved to (None when it did not resolve or the
    /// source does not run), for messages like wget's `can't connect to remote
    /// host (10.96.0.12)`.
    pub resolved: Option<String>,
}

impl HttpOutcome {
    /// A 2xx or 3xx answer.
    pub fn ok(&self) -> bool {
        matches!(&self.result, Ok(r) if r.status < 400)
    }
}

/// nginx's reason phrases for the statuses the simulation gives.
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        403 => "Forbidden",
        404 => "Not Found",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Temporarily Unavailable",
        504 => "Gateway Time-out",
        _ => "",
    }
}

/// The parts of a URL the request path needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    pub host: String,
    pub port: i32,
    pub path: String,
}

/// Parses `[http://|https://]HOST[:PORT][/PATH]`.
pub fn parse_url(url: &str) -> Result<Url, String> {
    let bad = || format!("invalid URL \"{url}\": want http://HOST[:PORT][/PATH]");
    let (rest, default_port) = if let Some(r) = url.strip_prefix("http://") {
        (r, 80)
    } else if let Some(r) = url.strip_prefix("https://") {
        (r, 443)
    } else if url.contains("://") {
        return Err(format!(
            "unsupported protocol in URL \"{url}\": only http and https"
        ));
    } else {
        (url, 80)
    };
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) if rest[i..].starts_with('/') => (&rest[..i], rest[i..].to_string()),
        Some(i) => (&rest[..i], format!("/{}", &rest[i..])),
        None => (rest, "/".to_string()),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => (
            h,
            p.parse::<i32>()
                .ok()
                .filter(|p| (1..=65535).contains(p))
                .ok_or_else(bad)?,
        ),
        None => (authority, default_port),
    };
    if host.is_empty() || host.contains(['@', ' ', '[']) {
        return Err(bad());
    }
    Ok(Url {
        host: host.to_ascii_lowercase(),
        port,
        path,
    })
}

/// The body a container's server sends for `GET path` with `status`.
pub fn response_body(image: &str, pod: &str, status: u16, path: &str) -> String {
    let repo = crate::kubelet::images::repository(image);
    let tag = crate::kubelet::images::tag(image).unwrap_or("latest");
    match repo {
        r if crate::kubelet::images::BOOTCAMP_REPOSITORIES.contains(&r) => {
            let v = tag.trim_start_matches('v');
            format!("Hello Kubernetes bootcamp! | Running on: {pod} | v={v}\n")
        }
        "gcr.io/google-samples/hello-app" => {
            let v = if tag.starts_with('2') { "2.0.0" } else { "1.0.0" };
            format!("Hello, world!\nVersion: {v}\nHostname: {pod}\n")
        }
        "httpd" if status == 200 => "<html><body><h1>It works!</h1></body></html>\n".into(),
        "httpd" => format!("<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL {path} was not found on this server.</p>\n</body></html>\n"),
        r if r.contains("nginx") || r == "gcr.io/google-samples/hello-frontend" => {
            if status == 200 {
                NGINX_WELCOME.into()
            } else {
                "<html>\n<head><title>404 Not Found</title></head>\n<body>\n<center><h1>404 Not Found</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n".into()
            }
        }
        _ => String::new(),
    }
}

/// kube-apiserver's answer to an anonymous `GET /` (TLS is not modelled).
pub const FORBIDDEN_BODY: &str = "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n  \"message\": \"forbidden: User \\\"system:anonymous\\\" cannot get path \\\"/\\\"\",\n  \"reason\": \"Forbidden\",\n  \"details\": {},\n  \"code\": 403\n}\n";

/// The nginx image's `/usr/share/nginx/html/index.html`.
pub const NGINX_WELCOME: &str = "<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>\n<style>\nhtml { color-scheme: light dark; }\nbody { width: 35em; margin: 0 auto;\nfont-family: Tahoma, Verdana, Arial, sans-serif; }\n</style>\n</head>\n<body>\n<h1>Welcome to nginx!</h1>\n<p>If you see this page, the nginx web server is successfully installed and\nworking. Further configuration is required.</p>\n\n<p>For online documentation and support please refer to\n<a href=\"http://nginx.org/\">nginx.org</a>.<br/>\nCommercial support is available at\n<a href=\"http://nginx.com/\">nginx.com</a>.</p>\n\n<p><em>Thank you for using nginx.</em></p>\n</body>\n</html>\n";

/// A deterministic spread of a request number (splitmix64).
pub(crate) fn mix(seq: u64) -> u64 {
    let mut z = seq.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One request on its way: the time it has taken and what it went through.
struct Trip {
    seq: u64,
    latency_us: u64,
    via: Vec<String>,
    resolved: Option<String>,
    /// The pod that sent the request, whose egress policies apply.
    source: Option<Party>,
    /// Who a destination pod sees as the client (after kube-proxy's masquerade or
    /// the ingress), whose address and pod its ingress policies match.
    client: Party,
    /// The request's extra headers (name, value), for a Gateway's header matches.
    headers: Vec<(String, String)>,
}

impl Trip {
    fn hop(&mut self, from: Option<&str>, to: &str) {
        self.latency_us += match from {
            None => OUTSIDE_US,
            Some(f) if f == to => SAME_NODE_US,
            Some(_) => CROSS_NODE_US,
        };
    }
}

fn refused(message: String) -> RequestFailure {
    RequestFailure {
        reason: FailureReason::ConnectionRefused,
        message,
    }
}

fn timeout(message: String) -> RequestFailure {
    RequestFailure {
        reason: FailureReason::Timeout,
        message,
    }
}

/// `localhost`, `127.x.x.x` or `[::1]`: the client's own machine.
fn is_loopback(host: &str) -> bool {
    matches!(host, "localhost" | "[::1]" | "::1") || matches!(ipv4(host), Some([127, ..]))
}

fn ipv4(ip: &str) -> Option<[u8; 4]> {
    let parts: Vec<u8> = ip
        .split('.')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    parts.try_into().ok()
}

impl Cluster {
    /// Sends one HTTP GET for `url` from `from`, with `host` as the Host header when
    /// given, through the data plane as it is programmed now. `Err` only for a URL
    /// that does not parse.
    pub fn http_request(
        &mut self,
        from: &RequestSource,
        url: &str,
        host: Option<&str>,
    ) -> Result<HttpOutcome, String> {
        self.http_request_with_headers(from, url, host, &[])
    }

    /// [`Cluster::http_request`] with extra request headers (`curl -H`).
    pub fn http_request_with_headers(
        &mut self,
        from: &RequestSource,
        url: &str,
        host: Option<&str>,
        headers: &[(String, String)],
    ) -> Result<HttpOutcome, String> {
        let url = parse_url(url)?;
        self.traffic.seq += 1;
        let mut trip = Trip {
            seq: self.traffic.seq,
            latency_us: CLIENT_US,
            via: Vec::new(),
            resolved: None,
            source: None,
            client: Party::address(OUTSIDE_CLIENT_IP),
            headers: headers.to_vec(),
        };
        let result = self.request_inner(&mut trip, from, &url, host);
        let result = match result {
            Err(f) if f.reason.times_out() => {
                trip.latency_us = CLIENT_TIMEOUT_US;
                Err(f)
            }
            r if trip.latency_us >= CLIENT_TIMEOUT_US => {
                trip.latency_us = CLIENT_TIMEOUT_US;
                let what = match &r {
                    Ok(_) => "the answer came too late".to_string(),
                    Err(f) => f.message.clone(),
                };
                Err(timeout(format!("no answer within 1s ({what})")))
            }
            r => r,
        };
        Ok(HttpOutcome {
            result,
            latency_us: trip.latency_us,
            via: trip.via,
            resolved: trip.resolved,
        })
    }

    fn request_inner(
        &mut self,
        trip: &mut Trip,
        from: &RequestSource,
        url: &Url,
        host: Option<&str>,
    ) -> Result<HttpResponse, RequestFailure> {
        if *from == RequestSource::Outside && is_loopback(&url.host) {
            // The laptop's own ports: only a `kubectl port-forward` listens there.
            let forward = u16::try_from(url.port)
                .ok()
                .and_then(|p| self.forward_target(p));
            let Some(f) = forward else {
                return Err(refused(format!(
                    "connection refused: nothing listens on {}:{}",
                    url.host, url.port
                )));
            };
            let node = self.source_node(&f.namespace, &f.pod).unwrap_or_default();
            trip.via
                .push(format!("kubectl port-forward (kubelet on {node})"));
            let inner = Url {
                host: "127.0.0.1".into(),
                port: i32::from(f.port),
                ..url.clone()
            };
            let pod = RequestSource::Pod {
                namespace: f.namespace,
                name: f.pod,
            };
            return self.request_inner(trip, &pod, &inner, host);
        }
        let src_node = match from {
            RequestSource::Outside => None,
            RequestSource::Pod { namespace, name } => {
                let node = self
                    .source_node(namespace, name)
                    .map_err(|message| RequestFailure {
                        reason: FailureReason::SourceNotRunning,
                        message,
                    })?;
                if self.has_network_policies() {
                    trip.source = self.pod_party(&ObjectKey::new(Kind::Pod, namespace, name));
                    trip.client = trip.source.clone().unwrap_or(trip.client.clone());
                }
                Some(node)
            }
        };
        let ip = self
            .resolve_host(from, &url.host)
            .ok_or_else(|| RequestFailure {
                reason: FailureReason::CouldNotResolve,
                message: format!("could not resolve host: {}", url.host),
            })?;
        trip.resolved = Some(ip.clone());
        let host = host.unwrap_or(&url.host).to_string();
        self.net_connect(trip, src_node.as_deref(), &ip, url.port, &host, &url.path)
    }

    /// The node of a source pod that runs, or why it does not run.
    fn source_node(&self, namespace: &str, name: &str) -> Result<String, String> {
        let key = ObjectKey::new(Kind::Pod, namespace, name);
        let Some(Object::Pod(pod)) = self.store.get(&key) else {
            return Err(format!("pods \"{name}\" not found"));
        };
        let node = pod
            .spec
            .as_ref()
            .and_then(|s| s.node_name.clone())
            .ok_or_else(|| format!("pod {name} is not scheduled"))?;
        let k = self.kubelets.get(&node).filter(|k| k.running);
        let running = k.is_some_and(|k| {
            matches!(
                k.pods.get(&key),
                Some(RuntimePod::Running { .. } | RuntimePod::Stopping { .. })
            )
        });
        if !running {
            return Err(format!("pod {name} is not running"));
        }
        Ok(node)
    }

    /// Resolves a host name as a client at `from` would: IPv4 literals as they
    /// are; Service names (from a pod) to their ClusterIP; Ingress hosts (from
    /// outside) to the Ingress's address. Kept in one place so CoreDNS can take it
    /// over.
    pub fn resolve_host(&self, from: &RequestSource, host: &str) -> Option<String> {
        if let (RequestSource::Pod { namespace, name }, Some([127, ..])) = (from, ipv4(host)) {
            // Loopback inside a pod reaches the pod's own containers.
            return match self.store.get(&ObjectKey::new(Kind::Pod, namespace, name)) {
                Some(Object::Pod(p)) => p.status.as_ref().and_then(|s| s.pod_ip.clone()),
                _ => None,
            };
        }
        if ipv4(host).is_some() {
            return Some(host.to_string());
        }
        let (namespace, name) = match from {
            RequestSource::Outside => return self.ingress_host_address(host),
            RequestSource::Pod { namespace, name } => (namespace, name),
        };
        // A pod asks CoreDNS (through its node's kube-proxy to 10.96.0.10), with its
        // search list; a headless Service's first address answers.
        let Some(Object::Pod(pod)) = self.store.get(&ObjectKey::new(Kind::Pod, namespace, name))
        else {
            return None;
        };
        // The pod's own network namespace: localhost is the pod.
        if host == "localhost" {
            return pod.status.as_ref().and_then(|s| s.pod_ip.clone());
        }
        match self.dns_lookup(pod, host, true, false) {
            crate::network::dns::Answer::Found { records, .. } => {
                records.into_iter().find_map(|r| match r {
                    crate::network::dns::Record::A { ip, .. } => Some(ip),
                    _ => None,
                })
            }
            _ => None,
        }
    }

    /// The node whose InternalIP is `ip`.
    fn node_by_ip(&self, ip: &str) -> Option<String> {
        let o = ipv4(ip).filter(|o| o[..2] == [172, 18])?;
        let index = (u32::from(o[2]) * 256 + u32::from(o[3])).checked_sub(2)?;
        self.node_cidrs
            .iter()
            .find(|(_, i)| **i == index)
            .map(|(n, _)| n.clone())
            .filter(|n| self.node_internal_ip(n).as_deref() == Some(ip))
    }

    /// The node whose pod range holds `ip` (a /24 per node: 10.244.0.0/14, then
    /// 100.64.0.0/10, as `kubelet::pod_subnet` gives them).
    pub(crate) fn node_of_pod_ip(&self, ip: &str) -> Option<String> {
        let o = ipv4(ip)?;
        let index = match (o[0], o[1]) {
            (10, 244..=247) => u32::from(o[1] - 244) * 256 + u32::from(o[2]),
            (100, 64..=127) => {
                crate::kubelet::NODES_IN_FIRST_POD_RANGE
                    + u32::from(o[1] - 64) * 256
                    + u32::from(o[2])
            }
            _ => return None,
        };
        self.node_cidrs
            .iter()
            .find(|(_, i)| **i == index)
            .map(|(n, _)| n.clone())
    }

    fn net_connect(
        &mut self,
        trip: &mut Trip,
        src: Option<&str>,
        ip: &str,
        port: i32,
        host: &str,
        path: &str,
    ) -> Result<HttpResponse, RequestFailure> {
        if self.node_of_pod_ip(ip).is_some() {
            return self.pod_connect(trip, src, ip, port, path);
        }
        if let Some(node) = self.node_by_ip(ip) {
            trip.hop(src, &node);
            if !self.kubelets.get(&node).is_some_and(|k| k.running) {
                return Err(timeout(format!(
                    "node {node} ({ip}) does not answer: it is down"
                )));
            }
            self.check_partition(src, &node)?;
            if (port == 80 || port == 443)
                && self.ingress_running()
                && self.ingress_node().as_deref() == Some(node.as_str())
            {
                return self.ingress_connect(trip, &node, host, path);
            }
            self.masquerade(trip, &node);
            return match self.proxy_route(&node, ip, port) {
                Some(backends) => self.via_proxy(trip, &node, ip, port, backends, path),
                None => Err(refused(format!("nothing listens on {ip}:{port}"))),
            };
        }
        if let Some(gw) = self
            .load_balancer_owner(ip)
            .filter(|k| k.kind != Kind::Service)
            .cloned()
        {
            return self.gateway_connect(trip, src, &gw, ip, port, host, path);
        }
        if self.load_balancers().iter().any(|(lb, _)| lb == ip) {
            // The cloud load balancer picks a healthy node.
            let nodes: Vec<String> = self
                .kubelets
                .iter()
                .filter(|(_, k)| k.running && !k.partitioned)
                .map(|(n, _)| n.clone())
                .collect();
            if nodes.is_empty() {
                return Err(timeout(format!("load balancer {ip} has no healthy node")));
            }
            let node = nodes[(mix(trip.seq) % nodes.len() as u64) as usize].clone();
            trip.hop(src, &node);
            trip.via.push(format!("load balancer {ip}"));
            self.masquerade(trip, &node);
            return match self.proxy_route(&node, ip, port) {
                Some(b) => self.via_proxy(trip, &node, ip, port, b, path),
                None => Err(refused(format!(
                    "load balancer {ip} does not listen on port {port}"
                ))),
            };
        }
        let Some(src) = src else {
            let in_service_cidr =
                ipv4(ip).is_some_and(|o| o[0] == 10 && (96..=111).contains(&o[1]));
            return Err(timeout(if in_service_cidr {
                format!("no route to {ip}: a ClusterIP is reachable only from inside the cluster")
            } else {
                format!("no route to {ip}")
            }));
        };
        match self.proxy_route(src, ip, port) {
            Some(b) => self.via_proxy(trip, src, ip, port, b, path),
            None => Err(timeout(format!("no route to {ip}:{port}"))),
        }
    }

    /// kube-proxy masquerades a connection that came in on a node port or through a
    /// load balancer: the pod sees the node's address as the client.
    fn masquerade(&self, trip: &mut Trip, node: &str) {
        if self.has_network_policies() {
            trip.client = Party::address(&self.node_internal_ip(node).unwrap_or_default());
        }
    }

    /// Whether policies let this trip's connection reach `to` on TCP `port`; a drop
    /// is a [`FailureReason::PolicyDenied`].
    fn policy_gate(&self, trip: &Trip, to: &Party, port: i32) -> Result<(), RequestFailure> {
        self.policy_check(trip.source.as_ref(), &trip.client, to, port, "TCP")
            .map_err(|message| RequestFailure {
                reason: FailureReason::PolicyDenied,
                message,
            })
    }

    /// A partitioned node is cut off from the network: only traffic that stays
    /// inside it gets through.
    fn check_partition(&self, src: Option<&str>, dst: &str) -> Result<(), RequestFailure> {
        if src == Some(dst) {
            return Ok(());
        }
        let cut = |n: &str| self.kubelets.get(n).is_some_and(|k| k.partitioned);
        match src {
            _ if cut(dst) => Err(timeout(format!("node {dst} is partitioned: no route"))),
            Some(s) if cut(s) => Err(timeout(format!("node {s} is partitioned: no route"))),
            _ => Ok(()),
        }
    }

    /// kube-proxy on `node` DNATs the connection to one of `backends` (none: it
    /// rejects, as for a Service without endpoints).
    fn via_proxy(
        &mut self,
        trip: &mut Trip,
        node: &str,
        ip: &str,
        port: i32,
        backends: Vec<crate::network::proxy::Backend>,
        path: &str,
    ) -> Result<HttpResponse, RequestFailure> {
        trip.via.push(format!("kube-proxy on {node}"));
        if backends.is_empty() {
            return Err(RequestFailure {
                reason: FailureReason::NoEndpoints,
                message: format!("{ip}:{port}: connection refused (the Service has no endpoints)"),
            });
        }
        let b = &backends[(mix(trip.seq) % backends.len() as u64) as usize];
        let (bip, bport) = (b.ip.clone(), b.port);
        self.pod_connect(trip, Some(node), &bip, bport, path)
    }

    /// The pod bound to `node` that holds `ip`, and its uid.
    pub(crate) fn pod_at_ip(&self, node: &str, ip: &str) -> Option<(ObjectKey, String)> {
        self.store
            .pods_on_node(node)
            .find_map(|key| match self.store.get(key) {
                Some(Object::Pod(p))
                    if p.status.as_ref().and_then(|s| s.pod_ip.as_deref()) == Some(ip) =>
                {
                    Some((key.clone(), p.metadata.uid.clone().unwrap_or_default()))
                }
                _ => None,
            })
    }

    /// A TCP connection to a pod IP, then `GET path` if a container listens.
    fn pod_connect(
        &mut self,
        trip: &mut Trip,
        src: Option<&str>,
        ip: &str,
        port: i32,
        path: &str,
    ) -> Result<HttpResponse, RequestFailure> {
        let address = format!("{ip}:{port}");
        if let Some(node) = self.node_by_ip(ip) {
            return self.host_connect(trip, src, &node, ip, port);
        }
        let Some(node) = self.node_of_pod_ip(ip) else {
            return Err(timeout(format!("no route to {ip}")));
        };
        trip.hop(src, &node);
        let Some(k) = self.kubelets.get(&node).filter(|k| k.running) else {
            return Err(timeout(format!(
                "{address} does not answer: node {node} is down"
            )));
        };
        self.check_partition(src, &node)?;
        let pod = self.pod_at_ip(&node, ip);
        let Some((key, uid)) = pod else {
            return Err(refused(format!(
                "{address}: connection refused (no pod has this IP)"
            )));
        };
        // A pod's connection to itself stays on its loopback: no policy sees it.
        let to_itself = trip.source.as_ref().and_then(|s| s.key.as_ref()) == Some(&key);
        if self.has_network_policies() && !to_itself {
            if let Some(to) = self.pod_party(&key) {
                self.policy_gate(trip, &to, port)
                    .map_err(|f| RequestFailure {
                        message: format!("{address}: {}", f.message),
                        ..f
                    })?;
            }
        }
        let alive = matches!(k.pods.get(&key), Some(RuntimePod::Running { uid: u } | RuntimePod::Stopping { uid: u }) if *u == uid);
        let runtime = k.containers.get(&key).filter(|r| alive && r.uid == uid);
        let now = self.now.0;
        let listener = runtime
            .into_iter()
            .flat_map(|r| r.containers.iter())
            .find(|(_, c)| {
                // A terminating container answers until it has stopped (`lifecycle.rs`).
                c.finished_ms.is_none()
                    && c.stops_at_ms.is_none_or(|t| now < t)
                    && runtime::listens(&c.process, port, now.saturating_sub(c.process.started_ms))
            });
        let Some((container, c)) = listener else {
            return Err(refused(format!(
                "{address}: connection refused (pod {} does not listen on {port})",
                key.name
            )));
        };
        let after = now.saturating_sub(c.process.started_ms);
        let status = match runtime::http_status(&c.process, port, path, after) {
            Ok(s) => s,
            Err(e) => {
                return Err(RequestFailure {
                    reason: FailureReason::ConnectionRefused,
                    message: e,
                })
            }
        };
        let body = response_body(&c.process.image, &key.name, status, path);
        // The answer costs the container CPU (`runtime::cpu_millis_serving`).
        let container = container.clone();
        if let Some(run) = self
            .kubelets
            .get_mut(&node)
            .and_then(|k| k.containers.get_mut(&key))
            .and_then(|r| r.containers.get_mut(&container))
        {
            run.served.record(now);
        }
        trip.latency_us += SERVER_US + mix(trip.seq ^ 0x5eed) % 1_000;
        trip.via.push(format!("pod/{} on {node}", key.name));
        Ok(HttpResponse {
            status,
            body,
            pod: Some(key),
            address,
        })
    }

    /// An endpoint on a node's own address (a host-network pod): the apiserver on
    /// 6443 of the control-plane node answers an anonymous request with 403.
    fn host_connect(
        &mut self,
        trip: &mut Trip,
        src: Option<&str>,
        node: &str,
        ip: &str,
        port: i32,
    ) -> Result<HttpResponse, RequestFailure> {
        trip.hop(src, node);
        if !self.kubelets.get(node).is_some_and(|k| k.running) {
            return Err(timeout(format!(
                "{ip}:{port} does not answer: node {node} is down"
            )));
        }
        self.check_partition(src, node)?;
        if self.has_network_policies() {
            self.policy_gate(trip, &Party::address(ip), port)?;
        }
        let apiserver =
            port == 6443 && self.ingress_node().as_deref() == Some(node) && self.connect().is_ok();
        if !apiserver {
            return Err(refused(format!("{ip}:{port}: connection refused")));
        }
        trip.latency_us += SERVER_US;
        trip.via.push(format!("kube-apiserver on {node}"));
        Ok(HttpResponse {
            status: 403,
            body: FORBIDDEN_BODY.into(),
            pod: None,
            address: format!("{ip}:{port}"),
        })
    }

    /// The Envoy of the Gateway `gw` at `ip` serves the request (`gateway.rs`):
    /// its own 404 or 500, or the chosen backend Service's ClusterIP through the
    /// control-plane node's kube-proxy (503 when that connection fails).
    #[allow(clippy::too_many_arguments)]
    fn gateway_connect(
        &mut self,
        trip: &mut Trip,
        src: Option<&str>,
        gw: &ObjectKey,
        ip: &str,
        port: i32,
        host: &str,
        path: &str,
    ) -> Result<HttpResponse, RequestFailure> {
        use crate::network::gateway::{GatewayDecision, ENVOY_US, UPSTREAM_CONNECT_ERROR};
        let address = format!("{ip}:{port}");
        trip.latency_us += match src {
            None => OUTSIDE_US,
            Some(_) => CROSS_NODE_US,
        };
        let decision = self.gateway_decide(gw, port, host, path, &trip.headers, trip.seq);
        let Some(decision) = decision else {
            return Err(refused(format!(
                "{address}: connection refused (gateway {} has no HTTP listener on port {port})",
                gw.name
            )));
        };
        trip.via.push(format!("gateway/{} (envoy)", gw.name));
        trip.latency_us += ENVOY_US;
        let respond = |status: u16, body: &str| HttpResponse {
            status,
            body: body.to_string(),
            pod: None,
            address: address.clone(),
        };
        let (ns, name, svc_port) = match decision {
            GatewayDecision::Respond(status, body) => return Ok(respond(status, body)),
            GatewayDecision::Backend(ns, name, port) => (ns, name, port),
        };
        if self.has_network_policies() {
            trip.client = Party::address(ip);
        }
        let cluster_ip = match self.store.get(&ObjectKey::new(Kind::Service, &ns, &name)) {
            Some(Object::Service(s)) => s.spec.as_ref().and_then(|s| s.cluster_ip.clone()),
            _ => None,
        };
        let node = self.ingress_node().unwrap_or_default();
        let backends = cluster_ip
            .as_deref()
            .filter(|c| *c != "None")
            .and_then(|c| self.proxy_route(&node, c, svc_port));
        let result = match (backends, cluster_ip) {
            (Some(b), Some(c)) => {
                trip.hop(Some(&node), &node);
                self.via_proxy(trip, &node, &c, svc_port, b, path)
            }
            _ => Err(refused(format!("service {ns}/{name} port {svc_port}"))),
        };
        match result {
            Ok(r) => Ok(r),
            Err(f) if f.reason == FailureReason::PolicyDenied || f.reason.times_out() => {
                trip.latency_us += NGINX_CONNECT_TIMEOUT_US;
                Ok(respond(503, "upstream connect error or disconnect/reset before headers. reset reason: connection timeout"))
            }
            Err(_) => Ok(respond(503, UPSTREAM_CONNECT_ERROR)),
        }
    }

    /// ingress-nginx on `node` serves `host` and `path`: a location's upstream
    /// (up to [`NGINX_TRIES`] endpoints), or its own 404/502/503/504.
    fn ingress_connect(
        &mut self,
        trip: &mut Trip,
        node: &str,
        host: &str,
        path: &str,
    ) -> Result<HttpResponse, RequestFailure> {
        trip.via.push("ingress-nginx".into());
        trip.latency_us += INGRESS_US;
        let address = self.node_internal_ip(node).unwrap_or_default();
        let respond = |status: u16, body: &str| HttpResponse {
            status,
            body: body.to_string(),
            pod: None,
            address: format!("{address}:80"),
        };
        if self.has_network_policies() {
            trip.client = Party::ingress_controller(&address);
        }
        match self.ingress_decide(host, path) {
            crate::network::ingress::IngressDecision::Respond(status, body) => {
                Ok(respond(status, body))
            }
            crate::network::ingress::IngressDecision::Upstream(endpoints) => {
                let mut timed_out = false;
                for (ip, port, _) in endpoints.iter().take(NGINX_TRIES) {
                    match self.pod_connect(trip, Some(node), ip, *port, path) {
                        Ok(r) => return Ok(r),
                        Err(f) => {
                            timed_out = f.reason.times_out();
                            if timed_out {
                                trip.latency_us += NGINX_CONNECT_TIMEOUT_US;
                            }
                        }
                    }
                }
                Ok(if timed_out {
                    respond(504, crate::network::ingress::GATEWAY_TIMEOUT_BODY)
                } else {
                    respond(502, crate::network::ingress::BAD_GATEWAY_BODY)
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_with_defaults() {
        assert_eq!(
            parse_url("http://web").unwrap(),
            Url {
                host: "web".into(),
                port: 80,
                path: "/".into()
            }
        );
        assert_eq!(
            parse_url("web.shop:8080/api?x=1").unwrap(),
            Url {
                host: "web.shop".into(),
                port: 8080,
                path: "/api?x=1".into()
            }
        );
        assert_eq!(parse_url("https://10.96.0.1").unwrap().port, 443);
    }

    #[test]
    fn bad_urls_are_refused_with_a_message() {
        assert!(parse_url("ftp://x")
            .unwrap_err()
            .contains("unsupported protocol"));
        assert!(parse_url("http://:80").unwrap_err().contains("invalid URL"));
        assert!(parse_url("http://web:99999")
            .unwrap_err()
            .contains("invalid URL"));
    }

    #[test]
    fn the_bootcamp_image_names_its_pod() {
        assert_eq!(
            response_body(
                "gcr.io/google-samples/kubernetes-bootcamp:v1",
                "web-1",
                200,
                "/"
            ),
            "Hello Kubernetes bootcamp! | Running on: web-1 | v=1\n"
        );
        assert!(response_body("nginx:1.27", "x", 200, "/").contains("Welcome to nginx!"));
    }

    #[test]
    fn the_tutorials_v2_bootcamp_image_answers_v2() {
        assert_eq!(
            response_body(
                "docker.io/jocatalin/kubernetes-bootcamp:v2",
                "web-2",
                200,
                "/"
            ),
            "Hello Kubernetes bootcamp! | Running on: web-2 | v=2\n"
        );
    }
}
