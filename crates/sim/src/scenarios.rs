//! The benchmark scenarios, shared by `warehouse bench` (wall time, peak memory) and
//! the criterion benches in `benches/`: each builds a cluster, drives it, and reports
//! what it did in simulated time and writes. Nothing here measures wall time; the
//! caller does.
//!
//! Every scenario is deterministic: the same seed and size give the same writes and
//! the same simulated time.

use crate::{
    decode_manifests, Cluster, Fault, Kind, Object, ObjectKey, ProxyMode, SimDuration, Topology,
};

/// How many workload pods one Deployment holds at most in a scenario (the
/// apiserver's `MAX_REPLICAS` is higher; several smaller Deployments keep each
/// ReplicaSet's work realistic at the envelope).
pub const PODS_PER_DEPLOYMENT: usize = 10_000;

/// A cluster size: worker nodes and workload pods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub nodes: usize,
    pub pods: usize,
}

impl Size {
    /// `converge` and `steady`: 1,000 nodes and a Deployment of 10,000 replicas.
    pub const LARGE: Size = Size {
        nodes: 1000,
        pods: 10_000,
    };
    /// Kubernetes' published scalability envelope: 5,000 nodes, 150,000 pods in
    /// all. 144,000 workload pods, with the 5,001 kube-proxies and kube-system's
    /// pods, stay within the 150,000 (`apiserver::MAX_PODS`).
    pub const ENVELOPE: Size = Size {
        nodes: 5000,
        pods: 144_000,
    };
    /// A size small enough for CI's smoke run.
    pub const SMOKE: Size = Size {
        nodes: 10,
        pods: 100,
    };

    /// Whether the pods fit on the nodes: at most 100 a node (the kubelet takes 110,
    /// with room left for kube-proxy and kube-system).
    pub fn fits(self) -> bool {
        self.pods <= self.nodes.saturating_mul(100)
    }
}

/// What a scenario did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Simulated time the scenario covered.
    pub sim: SimDuration,
    /// Writes to the store (etcd revisions) during the scenario.
    pub writes: u64,
    /// Of those, Events.
    pub event_writes: u64,
    /// Timers fired.
    pub timers: u64,
    /// Extra `key=value` facts for the report line (fan-out bytes and the like).
    pub facts: Vec<(String, String)>,
}

/// The Deployment `name` of `replicas` nginx pods labelled `app: web` with a
/// readiness probe-free container requesting a little CPU and memory.
fn deployment(name: &str, replicas: usize) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web, part: {name}}}}}
  template:
    metadata: {{labels: {{app: web, part: {name}, tier: web}}}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports: [{{name: http, containerPort: 80}}]
        resources: {{requests: {{cpu: 10m, memory: 16Mi}}}}
"
    )
}

/// The Service `web` in front of every Deployment of the scenario.
const SERVICE: &str = "apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web, tier: web}
  ports: [{name: http, port: 80, targetPort: http}]
";

/// The Deployments' names and sizes for `pods` pods.
fn parts(pods: usize) -> Vec<(String, usize)> {
    let mut left = pods;
    let mut out = Vec::new();
    while left > 0 {
        let n = left.min(PODS_PER_DEPLOYMENT);
        let name = if out.is_empty() {
            "web".to_string()
        } else {
            format!("web-{}", out.len() + 1)
        };
        out.push((name, n));
        left -= n;
    }
    out
}

/// A fresh cluster of `nodes` workers and a control-plane node, settled (run for
/// [`crate::SETTLE_TIME`], kube-system's pods and every node's kube-proxy Running,
/// as a learner's sandbox starts), nothing applied.
pub fn cluster(seed: u64, nodes: usize) -> Cluster {
    Cluster::settled(seed, Topology::with_workers(nodes))
}

fn counters(c: &Cluster) -> (u64, u64, u64) {
    let w = c.work();
    (c.revision(), c.store.event_writes(), w.timers_fired)
}

fn outcome(c: &Cluster, start: crate::SimTime, before: (u64, u64, u64)) -> Outcome {
    let after = counters(c);
    Outcome {
        sim: c.now().since(start),
        writes: after.0 - before.0,
        event_writes: after.1 - before.1,
        timers: after.2 - before.2,
        facts: Vec::new(),
    }
}

/// Whether every workload pod is Ready and the Service's EndpointSlices list every
/// one of them as ready.
pub fn converged(c: &Cluster, pods: usize) -> bool {
    let ready: usize = parts(pods)
        .iter()
        .map(|(name, _)| {
            c.store
                .get(&ObjectKey::new(Kind::Deployment, "default", name))
                .and_then(|o| o.as_deployment())
                .and_then(|d| d.status.as_ref())
                .and_then(|s| s.ready_replicas)
                .unwrap_or(0) as usize
        })
        .sum();
    ready == pods && ready_endpoints(c, "default", "web") == pods
}

/// Endpoints the EndpointSlices of Service `namespace/name` list as ready.
pub fn ready_endpoints(c: &Cluster, namespace: &str, name: &str) -> usize {
    c.service_slices(namespace, name)
        .flat_map(|s| s.endpoints.iter().flatten())
        .filter(|e| e.conditions.as_ref().and_then(|c| c.ready) == Some(true))
        .count()
}

/// The first pod the legacy Endpoints object of Service `namespace/name` lists.
fn endpoints_first_pod(c: &Cluster, namespace: &str, name: &str) -> Option<String> {
    let o = c
        .store
        .get(&ObjectKey::new(Kind::Endpoints, namespace, name))?;
    let Object::Endpoints(ep) = o else {
        return None;
    };
    ep.subsets
        .as_ref()?
        .first()?
        .addresses
        .as_ref()?
        .first()?
        .target_ref
        .as_ref()?
        .name
        .clone()
}

/// Advances in steps of one simulated second until `done` holds or `limit` passes.
/// Returns whether it held.
fn run_until(c: &mut Cluster, limit: SimDuration, done: impl Fn(&Cluster) -> bool) -> bool {
    let end = c.now() + limit;
    while c.now() < end {
        c.advance(SimDuration::secs(1));
        if done(c) {
            return true;
        }
    }
    false
}

/// The longest a converge may take in simulated time before the scenario gives up.
pub const CONVERGE_LIMIT: SimDuration = SimDuration::secs(1800);

/// `converge`: apply the Deployments and the Service to a fresh cluster of
/// `size.nodes` and run until every pod is Ready and the slices are complete.
/// Returns the cluster (for `steady`) and what it took; `Err` if it did not
/// converge within [`CONVERGE_LIMIT`].
pub fn converge(seed: u64, size: Size) -> Result<(Cluster, Outcome), String> {
    let mut c = cluster(seed, size.nodes);
    let out = apply_and_converge(&mut c, size.pods)?;
    Ok((c, out))
}

/// Applies the scenario's workload to `c` and runs until it converged.
pub fn apply_and_converge(c: &mut Cluster, pods: usize) -> Result<Outcome, String> {
    let (start, before) = (c.now(), counters(c));
    apply(c, pods)?;
    if !run_until(c, CONVERGE_LIMIT, |c| converged(c, pods)) {
        return Err(format!(
            "not converged after {} simulated seconds: {} of {pods} endpoints ready",
            CONVERGE_LIMIT.as_secs(),
            ready_endpoints(c, "default", "web")
        ));
    }
    Ok(outcome(c, start, before))
}

/// How long `compare` waits for a Deployment that cannot all fit.
pub const COMPARE_LIMIT: SimDuration = SimDuration::secs(300);

/// `compare`: the peer comparison's job — 3 worker nodes, a Deployment of
/// `replicas` and a ClusterIP Service, until every pod is Ready and the slices list
/// them all, or [`COMPARE_LIMIT`] passes (3 nodes hold 110 pods each, less their
/// kube-proxies: a larger Deployment leaves the rest Pending). The facts say
/// whether it converged and how many endpoints were ready.
/// `c` is a fresh cluster of 3 workers ([`cluster`]`(seed, 3)`).
pub fn compare(c: &mut Cluster, replicas: usize) -> Result<Outcome, String> {
    let (start, before) = (c.now(), counters(c));
    apply(c, replicas)?;
    let done = run_until(c, COMPARE_LIMIT, |c| converged(c, replicas));
    let mut out = outcome(c, start, before);
    out.facts = vec![
        ("converged".into(), done.to_string()),
        (
            "ready".into(),
            ready_endpoints(c, "default", "web").to_string(),
        ),
    ];
    Ok(out)
}

/// Creates the Service and the Deployments of `pods` pods, as `kubectl apply` would.
fn apply(c: &mut Cluster, pods: usize) -> Result<(), String> {
    let mut text = String::from(SERVICE);
    for (name, n) in parts(pods) {
        text.push_str("---\n");
        text.push_str(&deployment(&name, n));
    }
    for o in decode_manifests(&text).map_err(|e| e.to_string())? {
        c.create(o).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `steady`: run a cluster forward by `by` with nothing changing.
pub fn steady(c: &mut Cluster, by: SimDuration) -> Outcome {
    let (start, before) = (c.now(), counters(c));
    c.advance(by);
    outcome(c, start, before)
}

/// `node-death`: kill `percent`% of the worker nodes of a converged cluster and run
/// until every pod they held has a Ready replacement and the slices list them.
pub fn node_death(c: &mut Cluster, pods: usize, percent: usize) -> Result<Outcome, String> {
    let (start, before) = (c.now(), counters(c));
    let workers: Vec<String> = c
        .kubelets
        .keys()
        .filter(|n| n.starts_with("zone-"))
        .cloned()
        .collect();
    let count = (workers.len() * percent).div_ceil(100);
    // Every tenth zone (or evenly spread): zone-10, zone-20, ...
    let step = (workers.len() / count.max(1)).max(1);
    let killed: Vec<String> = workers
        .iter()
        .skip(step - 1)
        .step_by(step)
        .take(count)
        .cloned()
        .collect();
    for name in &killed {
        c.fault(Fault::KillNode(name.clone()))
            .map_err(|e| e.to_string())?;
    }
    // The node monitor waits 40 s, eviction 300 s more: the limit covers both. Done
    // when every workload pod of the dead nodes is being deleted (their DaemonSet
    // pods tolerate the taints and stay) and the Deployment and the slices count a
    // full set of Ready replacements.
    let replaced = |c: &Cluster| {
        converged(c, pods)
            && killed.iter().all(|n| {
                c.store
                    .pods_on_node(n)
                    .filter(|k| k.namespace == "default")
                    .all(|k| {
                        c.store
                            .get(k)
                            .is_none_or(|p| p.meta().deletion_timestamp.is_some())
                    })
            })
    };
    if !run_until(c, CONVERGE_LIMIT, replaced) {
        return Err(format!(
            "replacements not ready after {} simulated seconds: {} of {pods} endpoints ready",
            CONVERGE_LIMIT.as_secs(),
            ready_endpoints(c, "default", "web")
        ));
    }
    let mut out = outcome(c, start, before);
    out.facts
        .push(("nodes_killed".into(), killed.len().to_string()));
    Ok(out)
}

/// `fanout`: at a converged cluster, move one pod out of the Service (by its
/// `tier` label) and deliver the change for one simulated second; the bytes every
/// kube-proxy received, with kube-proxy watching `mode`.
pub fn fanout(c: &mut Cluster, mode: ProxyMode) -> Result<Outcome, String> {
    c.set_proxy_mode(mode);
    c.advance(SimDuration::secs(1));
    // A pod both the Endpoints object (1,000 addresses at most) and a slice list.
    let Some(pod) = endpoints_first_pod(c, "default", "web") else {
        return Err("the Service's Endpoints lists no pod".into());
    };
    c.reset_watcher_stats();
    let (start, before) = (c.now(), counters(c));
    let Ok(Object::Pod(mut p)) = c.get(Kind::Pod, "default", &pod) else {
        return Err(format!("no pod {pod}"));
    };
    let labels = p.metadata.labels.get_or_insert_with(Default::default);
    let next = if labels.get("tier").map(String::as_str) == Some("web") {
        "debug"
    } else {
        "web"
    };
    labels.insert("tier".into(), next.into());
    c.update(Object::Pod(p)).map_err(|e| e.to_string())?;
    c.advance(SimDuration::secs(1));
    let (objects, bytes, proxies) = c
        .watcher_stats()
        .iter()
        .filter(|l| l.kind == "kube-proxy")
        .fold((0, 0, 0u64), |(o, b, n), l| {
            (o + l.stats.objects, b + l.stats.bytes, n + 1)
        });
    let mut out = outcome(c, start, before);
    out.facts = vec![
        ("mode".into(), mode.name().into()),
        ("proxies".into(), proxies.to_string()),
        ("objects_sent".into(), objects.to_string()),
        ("bytes_sent".into(), bytes.to_string()),
        (
            "bytes_per_proxy".into(),
            (bytes / proxies.max(1)).to_string(),
        ),
    ];
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every scenario runs at the smoke size, and converging twice with one seed
    /// gives the same writes.
    #[test]
    fn smoke_scenarios_run_and_repeat() {
        let (mut c, first) = converge(1, Size::SMOKE).unwrap();
        assert!(first.writes > 0 && first.sim > SimDuration::ZERO);
        assert_eq!(converge(1, Size::SMOKE).unwrap().1, first);
        let st = steady(&mut c, SimDuration::secs(60));
        assert_eq!(st.sim, SimDuration::secs(60));
        assert_eq!(st.event_writes, 0, "a steady cluster records no Events");
        let death = node_death(&mut c, Size::SMOKE.pods, 10).unwrap();
        // Eviction waits 40 s for the node monitor and 300 s of tolerations.
        assert!(death.sim >= SimDuration::secs(340), "{death:?}");
        let slices = fanout(&mut c, ProxyMode::EndpointSlices).unwrap();
        assert!(slices
            .facts
            .iter()
            .any(|(k, v)| k == "bytes_sent" && v != "0"));
    }

    /// Three nodes hold 30 replicas; 400 do not fit (110 pods a node, kube-proxy
    /// included), and the scenario says so instead of failing.
    #[test]
    fn compare_reports_whether_the_deployment_fits() {
        let fact = |o: &Outcome, k: &str| {
            o.facts
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
        };
        let small = compare(&mut cluster(1, 3), 30).unwrap();
        assert_eq!(fact(&small, "converged").as_deref(), Some("true"));
        assert_eq!(fact(&small, "ready").as_deref(), Some("30"));
        let big = compare(&mut cluster(1, 3), 400).unwrap();
        assert_eq!(fact(&big, "converged").as_deref(), Some("false"));
        // 3 × 110 less the 3 kube-proxies and the 2 CoreDNS pods.
        assert_eq!(fact(&big, "ready").as_deref(), Some("325"));
        assert_eq!(big.sim, COMPARE_LIMIT);
    }
}
