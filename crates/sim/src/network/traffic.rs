//! The traffic generator: named sources that send N requests a second to a
//! Service, an Ingress or a node port, and count what happened to them.
//!
//! `sim traffic start NAME --to svc/web|ingress/NAME|node:PORT [--from POD|outside]
//! [--rps N] [--host H] [--path P] [-n NAMESPACE]`, `sim traffic stop NAME`,
//! `sim traffic stats`, `sim traffic reset`, and the one-off `sim request URL
//! [--from POD] [--host H] [-n NAMESPACE]`.
//!
//! Cost follows the traffic, not the cluster: a running source has one timer
//! ([`TrafficTimer`]) every [`TICK`], which sends that tick's share of the
//! requests through [`Cluster::http_request`] at the tick's moment. Each source keeps
//! its counters, failures by reason, and a latency histogram in 0.1 ms buckets
//! (the latencies are the request path's model, see `http.rs`). Sources are part of
//! the snapshot. A stopped source keeps its counters; starting it again adds to them.
//! Each tick's requests all leave at the tick's moment; the 1 s a timed-out request
//! waits holds up nothing else (every request is its own client).

use crate::cluster::Cluster;
use crate::network::http::RequestSource;
use crate::object::{Kind, Object, ObjectKey};
use crate::time::SimDuration;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How often a source sends its batch of requests.
pub const TICK: SimDuration = SimDuration::millis(100);
/// The most requests a second one source may send.
pub const MAX_RPS: u32 = 10_000;
/// The most requests a second all running sources send together: every request is
/// routed one by one (resolution, kube-proxy's rules, the container's answer), so a
/// simulated second costs in proportion to this rate, whatever the number of
/// sources. A start past it is refused, naming the limit.
pub const MAX_TOTAL_RPS: u32 = 10_000;
/// The most traffic sources kept, running or stopped (a stopped source keeps its
/// counters and starts again by its name).
pub const MAX_TRAFFIC_SOURCES: usize = 100;

/// What a source sends its requests to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TrafficTarget {
    /// `svc/NAME[:PORT]`: from a pod by its DNS name; from outside through its
    /// load balancer IP or, failing that, its NodePort on the first node.
    Service {
        namespace: String,
        name: String,
        port: Option<i32>,
    },
    /// `ingress/NAME`: the Ingress's address, with its first host as Host header.
    Ingress { namespace: String, name: String },
    /// `NODE:PORT` (a node name or IP).
    Node { node: String, port: i32 },
}

impl TrafficTarget {
    fn describe(&self) -> String {
        match self {
            TrafficTarget::Service { name, port, .. } => match port {
                Some(p) => format!("svc/{name}:{p}"),
                None => format!("svc/{name}"),
            },
            TrafficTarget::Ingress { name, .. } => format!("ingress/{name}"),
            TrafficTarget::Node { node, port } => format!("{node}:{port}"),
        }
    }
}

/// What a source has seen.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrafficStats {
    pub sent: u64,
    pub ok: u64,
    pub failed: u64,
    /// Failures by reason (`timeout`, `connection-refused`, `http-503`, ...).
    pub reasons: BTreeMap<String, u64>,
    /// Latency histogram: 0.1 ms buckets → requests.
    #[serde(with = "crate::snapshot::pairs")]
    pub latency: BTreeMap<u64, u64>,
}

impl TrafficStats {
    /// The latency (ms) below which `pct` percent of the requests fall.
    pub fn percentile_ms(&self, pct: u64) -> f64 {
        let total: u64 = self.latency.values().sum();
        if total == 0 {
            return 0.0;
        }
        let rank = (total * pct).div_ceil(100).max(1);
        let mut seen = 0;
        for (bucket, n) in &self.latency {
            seen += n;
            if seen >= rank {
                return *bucket as f64 / 10.0;
            }
        }
        0.0
    }
}

/// One named source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrafficSource {
    pub target: TrafficTarget,
    pub from: RequestSource,
    pub rps: u32,
    pub host: Option<String>,
    pub path: String,
    pub running: bool,
    /// Names this run's timers: a stop or a restart makes older ticks stale.
    generation: u64,
    /// Ticks sent in this run (for the per-tick share of `rps`).
    ticks: u64,
    pub stats: TrafficStats,
}

/// Every source, and the request counter the request path draws on.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TrafficState {
    sources: BTreeMap<String, TrafficSource>,
    next_generation: u64,
    /// Requests sent so far (each request's number picks its backend and jitter).
    pub(crate) seq: u64,
    /// `kubectl port-forward`s by local port (`port_forward.rs`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) forwards: BTreeMap<u16, crate::network::port_forward::PortForward>,
}

/// A parsed `sim traffic ...` or `sim request ...` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrafficCommand {
    Start {
        name: String,
        target: TrafficTarget,
        from: RequestSource,
        rps: u32,
        host: Option<String>,
        path: String,
    },
    Stop(String),
    Stats,
    Reset,
    Request {
        url: String,
        from: RequestSource,
        host: Option<String>,
        /// Extra request headers (name, value).
        headers: Vec<(String, String)>,
        /// How many requests to send (`--count`); more than one prints a tally.
        count: u32,
    },
}

const START_USAGE: &str = "sim traffic start NAME --to svc/NAME[:PORT]|ingress/NAME|NODE:PORT [--from POD|TYPE/NAME|outside] [--rps N] [--host HOST] [--path PATH] [-n NAMESPACE]";
const USAGE: &str =
    "sim traffic start NAME ..., sim traffic stop NAME, sim traffic stats, sim traffic reset";

/// Flags shared by `traffic start` and `request`.
#[derive(Default)]
struct Flags {
    to: Option<String>,
    from: Option<String>,
    rps: Option<String>,
    host: Option<String>,
    path: Option<String>,
    namespace: Option<String>,
    /// `--header "Name: value"`, repeatable.
    headers: Vec<String>,
    positional: Vec<String>,
}

fn parse_flags(words: &[&str], allowed: &[&str]) -> Result<Flags, String> {
    let mut f = Flags::default();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        let (flag, inline) = match w.split_once('=') {
            Some((k, v)) if k.starts_with('-') => (k, Some(v.to_string())),
            _ => (*w, None),
        };
        if !flag.starts_with('-') {
            f.positional.push(w.to_string());
            continue;
        }
        let flag = match flag {
            "--namespace" => "-n",
            "-H" => "--header",
            f => f,
        };
        if !allowed.contains(&flag) {
            return Err(format!("unknown flag {flag}"));
        }
        let value = match inline {
            Some(v) => v,
            None => it
                .next()
                .map(|v| v.to_string())
                .ok_or_else(|| format!("flag {flag} needs a value"))?,
        };
        if flag == "--header" {
            f.headers.push(value);
            continue;
        }
        let slot = match flag {
            "--to" => &mut f.to,
            "--from" => &mut f.from,
            // `sim request --count` shares the slot: no command takes both.
            "--rps" | "--count" => &mut f.rps,
            "--host" => &mut f.host,
            "--path" => &mut f.path,
            _ => &mut f.namespace,
        };
        *slot = Some(value);
    }
    Ok(f)
}

fn parse_source(from: Option<&str>, namespace: &str) -> RequestSource {
    match from {
        None | Some("outside") => RequestSource::Outside,
        Some(p) => RequestSource::Pod {
            namespace: namespace.to_string(),
            name: p.strip_prefix("pod/").unwrap_or(p).to_string(),
        },
    }
}

fn parse_target(to: &str, namespace: &str) -> Result<TrafficTarget, String> {
    let ns = namespace.to_string();
    if let Some(rest) = to
        .strip_prefix("svc/")
        .or_else(|| to.strip_prefix("service/"))
        .or_else(|| to.strip_prefix("services/"))
    {
        let (name, port) = match rest.split_once(':') {
            Some((n, p)) => (
                n,
                Some(
                    p.parse::<i32>()
                        .map_err(|_| format!("invalid port in --to {to}"))?,
                ),
            ),
            None => (rest, None),
        };
        if name.is_empty() {
            return Err(format!("--to {to} names no Service"));
        }
        return Ok(TrafficTarget::Service {
            namespace: ns,
            name: name.to_string(),
            port,
        });
    }
    if let Some(name) = to
        .strip_prefix("ingress/")
        .or_else(|| to.strip_prefix("ing/"))
    {
        if name.is_empty() {
            return Err(format!("--to {to} names no Ingress"));
        }
        return Ok(TrafficTarget::Ingress {
            namespace: ns,
            name: name.to_string(),
        });
    }
    match to.rsplit_once(':') {
        Some((node, port)) if !node.is_empty() => Ok(TrafficTarget::Node {
            node: node.to_string(),
            port: port
                .parse::<i32>()
                .ok()
                .filter(|p| (1..=65535).contains(p))
                .ok_or_else(|| format!("invalid port in --to {to}"))?,
        }),
        _ => Err(format!(
            "--to takes svc/NAME[:PORT], ingress/NAME or NODE:PORT (got \"{to}\")"
        )),
    }
}

/// Parses the words after `sim traffic`.
pub fn parse_traffic(words: &[&str]) -> Result<TrafficCommand, String> {
    match words {
        ["start", name, rest @ ..] if !name.starts_with('-') => {
            let f = parse_flags(rest, &["--to", "--from", "--rps", "--host", "--path", "-n"])
                .map_err(|e| format!("error: sim traffic start: {e}; usage: {START_USAGE}"))?;
            if !f.positional.is_empty() {
                return Err(format!(
                    "error: sim traffic start: unexpected argument \"{}\"; usage: {START_USAGE}",
                    f.positional[0]
                ));
            }
            let ns = f.namespace.as_deref().unwrap_or("default");
            let to = f.to.as_deref().ok_or_else(|| {
                format!("error: sim traffic start needs --to; usage: {START_USAGE}")
            })?;
            let target =
                parse_target(to, ns).map_err(|e| format!("error: sim traffic start: {e}"))?;
            let rps = match f.rps.as_deref() {
                None => 10,
                Some(r) => r
                    .parse::<u32>()
                    .ok()
                    .filter(|r| (1..=MAX_RPS).contains(r))
                    .ok_or_else(|| {
                        format!(
                            "error: sim traffic start: --rps takes 1 to {MAX_RPS} (got \"{r}\")"
                        )
                    })?,
            };
            let path = f.path.unwrap_or_else(|| "/".into());
            if !path.starts_with('/') {
                return Err(format!(
                    "error: sim traffic start: --path must start with / (got \"{path}\")"
                ));
            }
            Ok(TrafficCommand::Start {
                name: name.to_string(),
                from: parse_source(f.from.as_deref(), ns),
                target,
                rps,
                host: f.host,
                path,
            })
        }
        ["start", ..] => Err(format!(
            "error: sim traffic start needs a name; usage: {START_USAGE}"
        )),
        ["stop", name] => Ok(TrafficCommand::Stop(name.to_string())),
        ["stop", ..] => Err("error: sim traffic stop needs one source name".into()),
        ["stats"] => Ok(TrafficCommand::Stats),
        ["reset"] => Ok(TrafficCommand::Reset),
        _ => Err(format!("error: the sim traffic commands are {USAGE}")),
    }
}

/// Parses the words after `sim request`.
pub fn parse_request(words: &[&str]) -> Result<TrafficCommand, String> {
    let usage =
        "sim request URL [--from POD|TYPE/NAME|outside] [--host HOST] [--header 'NAME: VALUE']... [--count N] [-n NAMESPACE]";
    let f = parse_flags(words, &["--from", "--host", "--header", "--count", "-n"])
        .map_err(|e| format!("error: sim request: {e}; usage: {usage}"))?;
    let [url] = f.positional.as_slice() else {
        return Err(format!("error: sim request needs one URL; usage: {usage}"));
    };
    let ns = f.namespace.as_deref().unwrap_or("default");
    crate::network::http::parse_url(url).map_err(|e| format!("error: sim request: {e}"))?;
    let mut headers = Vec::new();
    for h in &f.headers {
        let Some((name, value)) = h.split_once(':').filter(|(n, _)| !n.trim().is_empty()) else {
            return Err(format!(
                "error: sim request: a header is NAME: VALUE, not \"{h}\"; usage: {usage}"
            ));
        };
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let count = match f.rps.as_deref() {
        None => 1,
        Some(n) => n
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_COUNT).contains(n))
            .ok_or_else(|| {
                format!("error: sim request: --count takes 1 to {MAX_COUNT} (got \"{n}\")")
            })?,
    };
    Ok(TrafficCommand::Request {
        url: url.clone(),
        from: parse_source(f.from.as_deref(), ns),
        host: f.host,
        headers,
        count,
    })
}

/// The most requests one `sim request --count` sends.
pub const MAX_COUNT: u32 = 1000;

fn format_ms(us: u64) -> String {
    format!("{:.1}ms", us as f64 / 1000.0)
}

impl Cluster {
    /// Runs a traffic command; `Ok` lines for the transcript, `Err` for an error
    /// that changed nothing.
    pub fn traffic_command(&mut self, cmd: &TrafficCommand) -> Result<String, String> {
        match cmd {
            TrafficCommand::Start {
                name,
                target,
                from,
                rps,
                host,
                path,
            } => self.traffic_start(name, target, from, *rps, host.clone(), path),
            TrafficCommand::Stop(name) => match self.traffic.sources.get_mut(name) {
                Some(s) if s.running => {
                    s.running = false;
                    Ok(format!("traffic {name} stopped"))
                }
                Some(_) => Err(format!("error: traffic {name} is already stopped")),
                None => Err(format!("error: no traffic source named \"{name}\"")),
            },
            TrafficCommand::Stats => Ok(self.traffic_stats_text()),
            TrafficCommand::Reset => {
                for s in self.traffic.sources.values_mut() {
                    s.stats = TrafficStats::default();
                }
                Ok("traffic counters reset".into())
            }
            TrafficCommand::Request {
                url,
                from,
                host,
                headers,
                count,
            } if *count > 1 => {
                self.check_source(from)?;
                // A tally of who answered: `  18 200 OK pod/web-...`.
                let mut tally: BTreeMap<String, u64> = BTreeMap::new();
                for _ in 0..*count {
                    let out = self
                        .http_request_with_headers(from, url, host.as_deref(), headers)
                        .map_err(|e| format!("error: {e}"))?;
                    let line = match out.result {
                        Ok(r) => match &r.pod {
                            Some(p) => format!("{} pod/{}", r.status_line(), p.name),
                            None => format!("{} from {}", r.status_line(), r.address),
                        },
                        Err(f) => format!("request failed: {}", f.reason.name()),
                    };
                    *tally.entry(line).or_default() += 1;
                }
                let mut out = format!("{count} requests:");
                for (line, n) in tally {
                    out.push_str(&format!("\n{n:>5} {line}"));
                }
                Ok(out)
            }
            TrafficCommand::Request {
                url,
                from,
                host,
                headers,
                ..
            } => {
                self.check_source(from)?;
                let out = self
                    .http_request_with_headers(from, url, host.as_deref(), headers)
                    .map_err(|e| format!("error: {e}"))?;
                let via = if out.via.is_empty() {
                    String::new()
                } else {
                    format!(" via {}", out.via.join(" -> "))
                };
                Ok(match out.result {
                    Ok(r) => format!(
                        "{} ({}{via}, {})\n{}",
                        r.status_line(),
                        r.address,
                        format_ms(out.latency_us),
                        r.body.trim_end_matches('\n')
                    ),
                    Err(f) => format!(
                        "request failed: {} ({}{via}, {})",
                        f.reason.name(),
                        f.message,
                        format_ms(out.latency_us)
                    ),
                })
            }
        }
    }

    fn check_source(&self, from: &RequestSource) -> Result<(), String> {
        if let RequestSource::Pod { namespace, name } = from {
            if self
                .store
                .get(&ObjectKey::new(Kind::Pod, namespace, name))
                .is_none()
            {
                return Err(format!(
                    "Error from server (NotFound): pods \"{name}\" not found"
                ));
            }
        }
        Ok(())
    }

    fn traffic_start(
        &mut self,
        name: &str,
        target: &TrafficTarget,
        from: &RequestSource,
        rps: u32,
        host: Option<String>,
        path: &str,
    ) -> Result<String, String> {
        if self.traffic.sources.get(name).is_some_and(|s| s.running) {
            return Err(format!(
                "error: traffic {name} is already running; sim traffic stop {name} first"
            ));
        }
        self.check_source(from)?;
        if !self.traffic.sources.contains_key(name)
            && self.traffic.sources.len() >= MAX_TRAFFIC_SOURCES
        {
            return Err(format!(
                "error: sim traffic start: this simulated cluster keeps at most {MAX_TRAFFIC_SOURCES} traffic sources, running or stopped; start a stopped one again by its name"
            ));
        }
        let running: u32 = self
            .traffic
            .sources
            .values()
            .filter(|s| s.running)
            .fold(0u32, |n, s| n.saturating_add(s.rps));
        if running.saturating_add(rps) > MAX_TOTAL_RPS {
            return Err(format!(
                "error: sim traffic start: this simulated cluster sends at most {MAX_TOTAL_RPS} requests/s in all; the running sources send {running}, so --rps may be at most {} (got {rps})",
                MAX_TOTAL_RPS.saturating_sub(running)
            ));
        }
        match target {
            TrafficTarget::Service {
                namespace,
                name: svc,
                ..
            } => {
                let key = ObjectKey::new(Kind::Service, namespace, svc);
                let Some(Object::Service(s)) = self.store.get(&key) else {
                    return Err(format!(
                        "Error from server (NotFound): services \"{svc}\" not found"
                    ));
                };
                let t = s
                    .spec
                    .as_ref()
                    .and_then(|s| s.type_.as_deref())
                    .unwrap_or("ClusterIP");
                if *from == RequestSource::Outside && !matches!(t, "NodePort" | "LoadBalancer") {
                    return Err(format!(
                        "error: service/{svc} is of type {t}: only pods reach it; use --from POD, or a NodePort or LoadBalancer Service"
                    ));
                }
            }
            TrafficTarget::Ingress {
                namespace,
                name: ing,
            } => {
                if self
                    .store
                    .get(&ObjectKey::new(Kind::Ingress, namespace, ing))
                    .is_none()
                {
                    return Err(format!(
                        "Error from server (NotFound): ingresses.networking.k8s.io \"{ing}\" not found"
                    ));
                }
            }
            TrafficTarget::Node { node, .. } => {
                if self.node_ip_of(node).is_none() {
                    return Err(format!(
                        "Error from server (NotFound): nodes \"{node}\" not found"
                    ));
                }
            }
        }
        self.traffic.next_generation += 1;
        let generation = self.traffic.next_generation;
        let stats = self
            .traffic
            .sources
            .remove(name)
            .map(|s| s.stats)
            .unwrap_or_default();
        self.traffic.sources.insert(
            name.to_string(),
            TrafficSource {
                target: target.clone(),
                from: from.clone(),
                rps,
                host,
                path: path.to_string(),
                running: true,
                generation,
                ticks: 0,
                stats,
            },
        );
        self.schedule(
            self.now + TICK,
            TrafficTimer::TrafficTick {
                name: name.to_string(),
                generation,
            },
        );
        Ok(format!(
            "traffic {name} started: {rps} requests/s from {} to {}",
            from.describe(),
            target.describe()
        ))
    }

    fn node_ip_of(&self, node: &str) -> Option<String> {
        if crate::network::http::parse_url(node).is_ok() && node.split('.').count() == 4 {
            let is_node = self
                .node_cidrs
                .keys()
                .any(|n| self.node_internal_ip(n).as_deref() == Some(node));
            return is_node.then(|| node.to_string());
        }
        self.node_internal_ip(node)
    }

    /// The URL and Host header a source's requests use now.
    fn traffic_url(&self, s: &TrafficSource) -> Result<(String, Option<String>), (String, String)> {
        let unresolved = |m: String| ("could-not-resolve".to_string(), m);
        match &s.target {
            TrafficTarget::Service {
                namespace,
                name,
                port,
            } => {
                let svc = match self
                    .store
                    .get(&ObjectKey::new(Kind::Service, namespace, name))
                {
                    Some(Object::Service(svc)) => svc,
                    _ => return Err(unresolved(format!("services \"{name}\" not found"))),
                };
                let spec = svc.spec.clone().unwrap_or_default();
                let sp = spec
                    .ports
                    .iter()
                    .flatten()
                    .find(|p| port.is_none_or(|n| p.port == n))
                    .cloned();
                let Some(sp) = sp else {
                    return Err(unresolved(format!("service {name} has no such port")));
                };
                match &s.from {
                    RequestSource::Pod { .. } => Ok((
                        format!("http://{name}.{namespace}:{}{}", sp.port, s.path),
                        s.host.clone(),
                    )),
                    RequestSource::Outside => {
                        let lb = svc
                            .status
                            .as_ref()
                            .and_then(|st| st.load_balancer.as_ref())
                            .and_then(|l| l.ingress.as_ref())
                            .and_then(|i| i.first())
                            .and_then(|i| i.ip.clone());
                        match (lb, sp.node_port) {
                            (Some(ip), _) => {
                                Ok((format!("http://{ip}:{}{}", sp.port, s.path), s.host.clone()))
                            }
                            (None, Some(np)) => {
                                let node = self
                                    .topology
                                    .nodes
                                    .first()
                                    .map(|n| n.name.clone())
                                    .unwrap_or_default();
                                let ip = self.node_internal_ip(&node).unwrap_or_default();
                                Ok((format!("http://{ip}:{np}{}", s.path), s.host.clone()))
                            }
                            (None, None) => Err(unresolved(format!(
                                "service {name} has no external address"
                            ))),
                        }
                    }
                }
            }
            TrafficTarget::Ingress { namespace, name } => {
                let Some(Object::Ingress(ing)) =
                    self.store
                        .get(&ObjectKey::new(Kind::Ingress, namespace, name))
                else {
                    return Err(unresolved(format!("ingresses \"{name}\" not found")));
                };
                let ip = ing
                    .status
                    .as_ref()
                    .and_then(|st| st.load_balancer.as_ref())
                    .and_then(|l| l.ingress.as_ref())
                    .and_then(|i| i.first())
                    .and_then(|i| i.ip.clone());
                let Some(ip) = ip else {
                    return Err(unresolved(format!("ingress {name} has no address yet")));
                };
                let host = s.host.clone().or_else(|| {
                    ing.spec
                        .iter()
                        .flat_map(|sp| sp.rules.iter().flatten())
                        .find_map(|r| r.host.clone())
                });
                Ok((format!("http://{ip}{}", s.path), host))
            }
            TrafficTarget::Node { node, port } => match self.node_ip_of(node) {
                Some(ip) => Ok((format!("http://{ip}:{port}{}", s.path), s.host.clone())),
                None => Err(unresolved(format!("nodes \"{node}\" not found"))),
            },
        }
    }

    /// `TrafficTimer::TrafficTick`: a source sends this tick's requests.
    pub(crate) fn traffic_tick(&mut self, name: &str, generation: u64) {
        let Some(s) = self.traffic.sources.get(name) else {
            return;
        };
        if !s.running || s.generation != generation {
            return;
        }
        let per_sec = 1_000 / TICK.as_millis();
        let k = s.ticks;
        let n = (u64::from(s.rps) * (k + 1)) / per_sec - (u64::from(s.rps) * k) / per_sec;
        let from = s.from.clone();
        // The client resolves the name once per tick (as a client with a DNS cache).
        let target = self.traffic_url(s).and_then(|(url, host)| {
            let Ok(u) = crate::network::http::parse_url(&url) else {
                return Ok((url, host));
            };
            match self.resolve_host(&from, &u.host) {
                Some(ip) if ip == u.host => Ok((url, host)),
                Some(ip) => Ok((
                    format!("http://{ip}:{}{}", u.port, u.path),
                    host.or(Some(u.host)),
                )),
                None => Err((
                    crate::network::http::FailureReason::CouldNotResolve
                        .name()
                        .to_string(),
                    format!("could not resolve host: {}", u.host),
                )),
            }
        });
        let mut results: Vec<(Option<String>, u64)> = Vec::with_capacity(n as usize);
        for _ in 0..n {
            match &target {
                Ok((url, host)) => match self.http_request(&from, url, host.as_deref()) {
                    Ok(out) => {
                        let failure = match &out.result {
                            Ok(r) if r.status < 400 => None,
                            Ok(r) => Some(format!("http-{}", r.status)),
                            Err(f) => Some(f.reason.name().to_string()),
                        };
                        self.feed_order(name, Some(&out), failure.clone());
                        results.push((failure, out.latency_us));
                    }
                    Err(_) => {
                        self.feed_order(name, None, Some("bad-url".into()));
                        results.push((Some("bad-url".into()), 0))
                    }
                },
                Err((reason, _)) => {
                    self.feed_order(name, None, Some(reason.clone()));
                    results.push((Some(reason.clone()), crate::network::http::CLIENT_US))
                }
            }
        }
        let Some(s) = self.traffic.sources.get_mut(name) else {
            return;
        };
        s.ticks += 1;
        for (failure, us) in results {
            s.stats.sent += 1;
            match failure {
                None => s.stats.ok += 1,
                Some(r) => {
                    s.stats.failed += 1;
                    *s.stats.reasons.entry(r).or_default() += 1;
                }
            }
            *s.stats.latency.entry(us / 100).or_default() += 1;
        }
        self.schedule(
            self.now + TICK,
            TrafficTimer::TrafficTick {
                name: name.to_string(),
                generation,
            },
        );
    }

    /// `sim traffic stats`: one line per source, `NAME sent=N ok=N failed=N`, then
    /// failures by reason and latency percentiles.
    pub fn traffic_stats_text(&self) -> String {
        if self.traffic.sources.is_empty() {
            return "no traffic sources".into();
        }
        let mut out = String::new();
        for (name, s) in &self.traffic.sources {
            let st = &s.stats;
            out.push_str(&format!(
                "{name} sent={} ok={} failed={}",
                st.sent, st.ok, st.failed
            ));
            for (reason, n) in &st.reasons {
                out.push_str(&format!(" {reason}={n}"));
            }
            out.push_str(&format!(
                " p50={:.1}ms p90={:.1}ms p99={:.1}ms",
                st.percentile_ms(50),
                st.percentile_ms(90),
                st.percentile_ms(99)
            ));
            if !s.running {
                out.push_str(" (stopped)");
            }
            out.push('\n');
        }
        out
    }

    /// Every source by name, running or stopped (for the UI).
    pub fn traffic_sources(&self) -> impl Iterator<Item = (&String, &TrafficSource)> {
        self.traffic.sources.iter()
    }

    /// A source's counters (for tests and the UI).
    pub fn traffic_stats(&self, name: &str) -> Option<&TrafficStats> {
        self.traffic.sources.get(name).map(|s| &s.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_parses_targets_and_sources() {
        let cmd = parse_traffic(&[
            "start",
            "web",
            "--to",
            "svc/web:8080",
            "--from",
            "client",
            "--rps",
            "50",
        ])
        .unwrap();
        assert_eq!(
            cmd,
            TrafficCommand::Start {
                name: "web".into(),
                target: TrafficTarget::Service {
                    namespace: "default".into(),
                    name: "web".into(),
                    port: Some(8080)
                },
                from: RequestSource::Pod {
                    namespace: "default".into(),
                    name: "client".into()
                },
                rps: 50,
                host: None,
                path: "/".into(),
            }
        );
        assert!(matches!(
            parse_traffic(&["start", "n", "--to", "zone-a:30080"]).unwrap(),
            TrafficCommand::Start {
                target: TrafficTarget::Node { port: 30080, .. },
                from: RequestSource::Outside,
                ..
            }
        ));
    }

    #[test]
    fn bad_traffic_commands_say_what_is_wrong() {
        assert!(parse_traffic(&["start", "w"])
            .unwrap_err()
            .contains("needs --to"));
        assert!(
            parse_traffic(&["start", "w", "--to", "svc/web", "--rps", "0"])
                .unwrap_err()
                .contains("--rps takes 1 to")
        );
        assert!(parse_traffic(&["start", "w", "--to", "nowhere"])
            .unwrap_err()
            .contains("--to takes"));
        assert!(
            parse_traffic(&["start", "w", "--to", "svc/web", "--bogus", "1"])
                .unwrap_err()
                .contains("unknown flag --bogus")
        );
        assert!(parse_request(&[]).unwrap_err().contains("needs one URL"));
    }

    #[test]
    fn percentiles_read_the_histogram() {
        let mut st = TrafficStats::default();
        st.latency.insert(20, 90);
        st.latency.insert(10_000, 10);
        assert_eq!(st.percentile_ms(50), 2.0);
        assert_eq!(st.percentile_ms(90), 2.0);
        assert_eq!(st.percentile_ms(99), 1000.0);
    }
}

/// The traffic generator's timer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum TrafficTimer {
    /// A traffic source sends one tick's requests.
    TrafficTick { name: String, generation: u64 },
}

impl crate::runtime::components::Timers for TrafficTimer {
    const DESCRIPTIONS: &'static [&'static str] = &["traffic tick"];

    fn describe(&self) -> &'static str {
        Self::DESCRIPTIONS[0]
    }

    fn fire(self, c: &mut Cluster) {
        let TrafficTimer::TrafficTick { name, generation } = self;
        c.traffic_tick(&name, generation);
    }
}
