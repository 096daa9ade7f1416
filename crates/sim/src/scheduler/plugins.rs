//! The filter and score plugins of the default profile
//! (pkg/scheduler/framework/plugins): nodeunschedulable, nodename, tainttoleration,
//! nodeaffinity, nodeports, noderesources (fit with LeastAllocated, and
//! balanced_allocation), podtopologyspread and imagelocality, with upstream's weights,
//! reasons and score normalisation; interpodaffinity is in [`super::interpodaffinity`].
//! A pod without `topologySpreadConstraints` is scored by the system defaults
//! (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway) over the pods its Services
//! and controller select; `matchLabelKeys` join the selector with the pod's values.
//!
//! Simplifications: a node fails at its first failing filter, as upstream's
//! `RunFilterPlugins`; of the volume plugins only VolumeRestrictions (its
//! ReadWriteOncePod check) and VolumeBinding run (in `mod.rs`; DefaultPreemption is
//! in [`super::preemption`]); PodTopologySpread honours `nodeAffinityPolicy: Honor`
//! and `nodeTaintsPolicy: Ignore` (the defaults) only; pod overhead does not add to
//! requests, and sidecars add to the requests that filter but not to those that
//! score.

use super::spread_index::{Domains, NO_DOMAIN};
use super::NodeInfo;
use crate::controllers::node_lifecycle::tolerates;
use crate::controllers::{pod_matches_node, selector_matches};
use crate::object::quantity;
use k8s_openapi::api::core::v1::{Container, Pod, PodSpec, Taint, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};
use std::collections::BTreeMap;

pub const MAX_NODE_SCORE: i64 = 100;

/// Upstream's non-zero defaults used for scoring pods without requests
/// (`schedutil.DefaultMilliCPURequest`, `DefaultMemoryRequest`).
pub const DEFAULT_MILLI_CPU: u64 = 100;
pub const DEFAULT_MEMORY: u64 = 200 * 1024 * 1024;

/// Score plugins of the default profile, with their weights.
pub const SCORE_WEIGHTS: [(&str, i64); 7] = [
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("NodeResourcesFit", 1),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
];

pub const ERR_UNSCHEDULABLE: &str = "node(s) were unschedulable";
pub const ERR_NODE_NAME: &str = "node(s) didn't match the requested node name";
pub const ERR_AFFINITY: &str = "node(s) didn't match Pod's node affinity/selector";
pub const ERR_PORTS: &str = "node(s) didn't have free ports for the requested pod ports";
pub const ERR_SPREAD: &str = "node(s) didn't match pod topology spread constraints";
pub const ERR_SPREAD_LABEL: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

/// A pod's resource requests (sum over containers, at least the largest init
/// container's), or a node's allocatable resources.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Resources {
    /// Millicores.
    pub cpu: u64,
    pub memory: u64,
    pub ephemeral_storage: u64,
    /// Extended resources (`nvidia.com/gpu`) and hugepages, in units.
    pub scalar: BTreeMap<String, u64>,
}

impl Resources {
    /// Adds `o`, saturating: requests near the quantity limits stay at the limit
    /// (and fit no node) instead of overflowing.
    pub fn add(&mut self, o: &Resources) {
        self.cpu = self.cpu.saturating_add(o.cpu);
        self.memory = self.memory.saturating_add(o.memory);
        self.ephemeral_storage = self.ephemeral_storage.saturating_add(o.ephemeral_storage);
        for (k, v) in &o.scalar {
            let x = self.scalar.entry(k.clone()).or_default();
            *x = x.saturating_add(*v);
        }
    }
    pub fn sub(&mut self, o: &Resources) {
        self.cpu = self.cpu.saturating_sub(o.cpu);
        self.memory = self.memory.saturating_sub(o.memory);
        self.ephemeral_storage = self.ephemeral_storage.saturating_sub(o.ephemeral_storage);
        for (k, v) in &o.scalar {
            if let Some(x) = self.scalar.get_mut(k) {
                *x = x.saturating_sub(*v);
                if *x == 0 {
                    self.scalar.remove(k);
                }
            }
        }
    }
    fn max(&mut self, o: &Resources) {
        self.cpu = self.cpu.max(o.cpu);
        self.memory = self.memory.max(o.memory);
        self.ephemeral_storage = self.ephemeral_storage.max(o.ephemeral_storage);
        for (k, v) in &o.scalar {
            let x = self.scalar.entry(k.clone()).or_default();
            *x = (*x).max(*v);
        }
    }

    /// Reads a resource list (requests, limits, allocatable).
    pub fn from_list(
        list: &BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>,
    ) -> Resources {
        let mut r = Resources::default();
        for (name, q) in list {
            match name.as_str() {
                "cpu" => r.cpu = quantity::cpu_millis(&q.0).unwrap_or(0),
                "memory" => r.memory = quantity::bytes(&q.0).unwrap_or(0),
                "ephemeral-storage" => r.ephemeral_storage = quantity::bytes(&q.0).unwrap_or(0),
                "pods" => {}
                n if is_scalar_resource(n) => {
                    let v = quantity::Quantity::parse(&q.0)
                        .map(|q| q.value().clamp(0, u64::MAX as i128) as u64)
                        .unwrap_or(0);
                    if v > 0 {
                        r.scalar.insert(n.to_string(), v);
                    }
                }
                _ => {}
            }
        }
        r
    }
}

/// Extended resources (a domain outside `kubernetes.io/`) and hugepages
/// (upstream `schedutil.IsScalarResourceName`).
pub fn is_scalar_resource(name: &str) -> bool {
    name.starts_with("hugepages-") || (name.contains('/') && !name.starts_with("kubernetes.io/"))
}

fn container_requests(c: &Container) -> Resources {
    let req = c.resources.as_ref().and_then(|r| r.requests.as_ref());
    let lim = c.resources.as_ref().and_then(|r| r.limits.as_ref());
    // A limit without a request defaults the request to the limit.
    let mut list = lim.cloned().unwrap_or_default();
    if let Some(req) = req {
        list.extend(req.clone());
    }
    Resources::from_list(&list)
}

pub fn pod_requests(pod: &Pod) -> Resources {
    let Some(spec) = pod.spec.as_ref() else {
        return Resources::default();
    };
    let mut total = Resources::default();
    for c in &spec.containers {
        total.add(&container_requests(c));
    }
    // component-helpers' `PodRequests`: a sidecar's requests add to the app
    // containers' and to every init container's after it.
    let (mut sidecars, mut init) = (Resources::default(), Resources::default());
    for c in spec.init_containers.iter().flatten() {
        let mut r = container_requests(c);
        if c.restart_policy.as_deref() == Some("Always") {
            total.add(&r);
            sidecars.add(&r);
            r = sidecars.clone();
        } else {
            r.add(&sidecars);
        }
        init.max(&r);
    }
    total.max(&init);
    total
}

/// The cpu and memory requests used for scoring: 100m and 200Mi for a container that
/// requests none (upstream `schedutil.GetNonzeroRequests`).
pub fn nonzero_requests(pod: &Pod) -> (u64, u64) {
    let Some(spec) = pod.spec.as_ref() else {
        return (0, 0);
    };
    let one = |c: &Container| {
        let r = container_requests(c);
        (
            if r.cpu == 0 { DEFAULT_MILLI_CPU } else { r.cpu },
            if r.memory == 0 {
                DEFAULT_MEMORY
            } else {
                r.memory
            },
        )
    };
    let (mut cpu, mut mem) = (0u64, 0u64);
    for c in &spec.containers {
        let (a, b) = one(c);
        cpu = cpu.saturating_add(a);
        mem = mem.saturating_add(b);
    }
    for c in spec.init_containers.iter().flatten() {
        let (a, b) = one(c);
        cpu = cpu.max(a);
        mem = mem.max(b);
    }
    (cpu, mem)
}

/// A host port a pod uses: (protocol, host IP, port).
pub type HostPort = (String, String, i32);

pub fn pod_host_ports(pod: &Pod) -> Vec<HostPort> {
    let Some(spec) = pod.spec.as_ref() else {
        return vec![];
    };
    spec.containers
        .iter()
        .flat_map(|c| c.ports.iter().flatten())
        .filter(|p| p.host_port.is_some_and(|h| h > 0))
        .map(|p| {
            (
                p.protocol.clone().unwrap_or_else(|| "TCP".into()),
                p.host_ip
                    .clone()
                    .filter(|ip| !ip.is_empty())
                    .unwrap_or_else(|| "0.0.0.0".into()),
                p.host_port.unwrap_or(0),
            )
        })
        .collect()
}

/// Whether two host ports clash: same protocol and port, and the same IP or either
/// one on every address (`0.0.0.0`).
fn ports_conflict(a: &HostPort, b: &HostPort) -> bool {
    a.0 == b.0 && a.2 == b.2 && (a.1 == b.1 || a.1 == "0.0.0.0" || b.1 == "0.0.0.0")
}

/// An image reference as the runtime names it in `Node.status.images`:
/// `nginx` → `docker.io/library/nginx:latest`. (Upstream's ImageLocality adds only the
/// `:latest`; the simulation completes the registry too, so short names match.)
pub fn canonical_image(image: &str) -> String {
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    let first = name.split('/').next().unwrap_or("");
    let has_registry =
        name.contains('/') && (first.contains('.') || first.contains(':') || first == "localhost");
    let mut full = if has_registry {
        name.to_string()
    } else if name.contains('/') {
        format!("docker.io/{name}")
    } else {
        format!("docker.io/library/{name}")
    };
    match digest {
        Some(d) => {
            full.push('@');
            full.push_str(d);
        }
        None => {
            let last = full.rsplit('/').next().unwrap_or("");
            if !last.contains(':') {
                full.push_str(":latest");
            }
        }
    }
    full
}

/// One topology spread constraint, as the plugin reads it.
#[derive(Clone, Debug)]
pub struct SpreadConstraint {
    pub max_skew: i64,
    pub topology_key: String,
    pub hard: bool,
    pub selector: LabelSelector,
    pub min_domains: Option<i64>,
    /// Whether the incoming pod itself matches the selector.
    pub self_match: i64,
    /// One of the scheduler's system default constraints: nodes without its key are
    /// still scored, on the constraints whose key they carry.
    pub system_default: bool,
}

/// The default profile's `defaultConstraints` (`systemDefaultConstraints` in
/// podtopologyspread/plugin.go): (topology key, maxSkew), ScheduleAnyway, for a pod
/// with no constraints of its own, over the pods its Services and controller select.
pub const SYSTEM_DEFAULT_CONSTRAINTS: [(&str, i64); 2] = [
    ("kubernetes.io/hostname", 3),
    ("topology.kubernetes.io/zone", 5),
];

/// The system default constraints with `selector`.
pub fn system_default_constraints(selector: &LabelSelector) -> Vec<SpreadConstraint> {
    SYSTEM_DEFAULT_CONSTRAINTS
        .iter()
        .map(|(key, skew)| SpreadConstraint {
            max_skew: *skew,
            topology_key: key.to_string(),
            hard: false,
            selector: selector.clone(),
            min_domains: None,
            self_match: 0,
            system_default: true,
        })
        .collect()
}

/// What the scheduler knows of the pod it is placing.
pub struct PodFacts<'a> {
    pub pod: &'a Pod,
    pub namespace: String,
    pub spec: Option<&'a PodSpec>,
    pub tolerations: Vec<Toleration>,
    pub requests: Resources,
    pub nonzero: (u64, u64),
    pub ports: Vec<HostPort>,
    pub images: Vec<String>,
    pub spread: Vec<SpreadConstraint>,
}

impl<'a> PodFacts<'a> {
    pub fn new(pod: &'a Pod, namespace: &str) -> PodFacts<'a> {
        let spec = pod.spec.as_ref();
        let labels = pod.metadata.labels.clone().unwrap_or_default();
        let spread = spec
            .and_then(|s| s.topology_spread_constraints.as_ref())
            .into_iter()
            .flatten()
            .map(|c| {
                let mut selector = c.label_selector.clone().unwrap_or_default();
                // matchLabelKeys: the pod's values of these keys join the selector
                // (the apiserver merges them when the pod is created).
                let extra: Vec<LabelSelectorRequirement> = c
                    .match_label_keys
                    .iter()
                    .flatten()
                    .filter_map(|k| {
                        labels.get(k).map(|v| LabelSelectorRequirement {
                            key: k.clone(),
                            operator: "In".into(),
                            values: Some(vec![v.clone()]),
                        })
                    })
                    .collect();
                if c.label_selector.is_some() && !extra.is_empty() {
                    selector
                        .match_expressions
                        .get_or_insert_with(Default::default)
                        .extend(extra);
                }
                // A missing selector matches no pod (upstream treats it as nothing).
                let self_match =
                    i64::from(c.label_selector.is_some() && selector_matches(&selector, &labels));
                SpreadConstraint {
                    max_skew: i64::from(c.max_skew.max(1)),
                    topology_key: c.topology_key.clone(),
                    hard: c.when_unsatisfiable != "ScheduleAnyway",
                    selector,
                    min_domains: c.min_domains.map(i64::from),
                    self_match,
                    system_default: false,
                }
            })
            .collect();
        let images = spec
            .map(|s| {
                s.init_containers
                    .iter()
                    .flatten()
                    .chain(s.containers.iter())
                    .map(|c| canonical_image(c.image.as_deref().unwrap_or("")))
                    .collect()
            })
            .unwrap_or_default();
        PodFacts {
            pod,
            namespace: namespace.to_string(),
            spec,
            tolerations: spec.and_then(|s| s.tolerations.clone()).unwrap_or_default(),
            requests: pod_requests(pod),
            nonzero: nonzero_requests(pod),
            ports: pod_host_ports(pod),
            images,
            spread,
        }
    }

    fn tolerated(&self, taint: &Taint) -> bool {
        self.tolerations.iter().any(|t| tolerates(t, taint))
    }

    fn matches_node(&self, name: &str, n: &NodeInfo) -> bool {
        self.spec
            .is_none_or(|s| pod_matches_node(s, name, &n.labels))
    }
}

/// Why a node failed: the plugin, its reasons, and whether evicting pods could help
/// (`Unschedulable`) or not (`UnschedulableAndUnresolvable`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterFailure {
    pub plugin: &'static str,
    pub reasons: Vec<String>,
    pub resolvable: bool,
}

fn fail(plugin: &'static str, reason: impl Into<String>, resolvable: bool) -> FilterFailure {
    FilterFailure {
        plugin,
        reasons: vec![reason.into()],
        resolvable,
    }
}

/// The PreFilter state of PodTopologySpread: per constraint, the nodes' domains and
/// the matching pods in each domain of the eligible nodes.
#[derive(Default)]
pub struct SpreadState<'n> {
    /// Per constraint: each node's domain id.
    pub domains: Vec<&'n Domains>,
    /// Per constraint, by domain id: matching pods (-1: no eligible node there).
    pub counts: Vec<Vec<i64>>,
    /// Per constraint: the smallest count over the domains present (0 if none), and
    /// how many domains are present. Computed once, read for every node filtered.
    pub floor: Vec<(i64, usize)>,
}

/// The smallest count over the domains present, and how many are present.
fn min_and_present(counts: &[i64]) -> (i64, usize) {
    let (mut min, mut n) = (i64::MAX, 0);
    for c in counts.iter().copied().filter(|c| *c >= 0) {
        min = min.min(c);
        n += 1;
    }
    (if n == 0 { 0 } else { min }, n)
}

/// What spreading reads for one constraint: per node position, the pods its
/// selector counts, and the nodes' domains of its key.
pub type SpreadInput<'n> = (&'n [i64], &'n Domains);

/// Counts matching pods per domain for the given constraints over every node (in
/// name order). With `require_all`, a node counts only if it carries every
/// constraint's key (upstream's `requireAllTopologies`, false only for the system
/// defaults).
pub fn spread_counts<'n>(
    pod: &PodFacts,
    nodes: impl Iterator<Item = (&'n String, &'n NodeInfo)>,
    inputs: &[SpreadInput<'n>],
    require_all: bool,
) -> SpreadState<'n> {
    let mut counts: Vec<Vec<i64>> = inputs.iter().map(|(_, d)| vec![-1; d.count]).collect();
    // nodeAffinityPolicy Honor: only nodes the pod's node rules accept count.
    let node_rules = pod.spec.is_some_and(|s| {
        s.node_selector.as_ref().is_some_and(|m| !m.is_empty())
            || s.affinity
                .as_ref()
                .is_some_and(|a| a.node_affinity.is_some())
    });
    let domain = |d: &Domains, pos: usize| d.of_node.get(pos).copied().unwrap_or(NO_DOMAIN);
    for (pos, (name, n)) in nodes.enumerate() {
        if node_rules && !pod.matches_node(name, n) {
            continue;
        }
        if require_all && inputs.iter().any(|(_, d)| domain(d, pos) == NO_DOMAIN) {
            continue;
        }
        for (i, (per_node, d)) in inputs.iter().enumerate() {
            let id = domain(d, pos);
            if id == NO_DOMAIN {
                continue;
            }
            let c = &mut counts[i][id as usize];
            *c = (*c).max(0) + per_node.get(pos).copied().unwrap_or(0);
        }
    }
    SpreadState {
        domains: inputs.iter().map(|(_, d)| *d).collect(),
        floor: counts.iter().map(|c| min_and_present(c)).collect(),
        counts,
    }
}

/// Runs the default profile's filters up to NodeResourcesFit, in its order; `Ok` if
/// the node fits.
pub fn filter(pod: &PodFacts, name: &str, n: &NodeInfo) -> Result<(), FilterFailure> {
    // NodeUnschedulable
    if n.unschedulable {
        let cordon = Taint {
            key: "node.kubernetes.io/unschedulable".into(),
            effect: "NoSchedule".into(),
            ..Default::default()
        };
        if !pod.tolerated(&cordon) {
            return Err(fail("NodeUnschedulable", ERR_UNSCHEDULABLE, false));
        }
    }
    // NodeName
    if let Some(wanted) = pod.spec.and_then(|s| s.node_name.as_deref()) {
        if wanted != name {
            return Err(fail("NodeName", ERR_NODE_NAME, false));
        }
    }
    // TaintToleration
    if let Some(t) = n
        .taints
        .iter()
        .find(|t| (t.effect == "NoSchedule" || t.effect == "NoExecute") && !pod.tolerated(t))
    {
        return Err(fail(
            "TaintToleration",
            format!(
                "node(s) had untolerated taint {{{}: {}}}",
                t.key,
                t.value.as_deref().unwrap_or("")
            ),
            false,
        ));
    }
    // NodeAffinity
    if !pod.matches_node(name, n) {
        return Err(fail("NodeAffinity", ERR_AFFINITY, false));
    }
    // NodePorts
    if pod
        .ports
        .iter()
        .any(|want| n.ports.iter().any(|used| ports_conflict(want, used)))
    {
        return Err(fail("NodePorts", ERR_PORTS, true));
    }
    // NodeResourcesFit
    let mut reasons = Vec::new();
    if n.pod_count + 1 > n.allocatable_pods {
        reasons.push("Too many pods".to_string());
    }
    let r = &pod.requests;
    let (alloc, used) = (&n.allocatable, &n.requested);
    if r.cpu > 0 && used.cpu.saturating_add(r.cpu) > alloc.cpu {
        reasons.push("Insufficient cpu".to_string());
    }
    if r.memory > 0 && used.memory.saturating_add(r.memory) > alloc.memory {
        reasons.push("Insufficient memory".to_string());
    }
    if r.ephemeral_storage > 0
        && used.ephemeral_storage.saturating_add(r.ephemeral_storage) > alloc.ephemeral_storage
    {
        reasons.push("Insufficient ephemeral-storage".to_string());
    }
    for (name, want) in &r.scalar {
        let have = alloc.scalar.get(name).copied().unwrap_or(0);
        let taken = used.scalar.get(name).copied().unwrap_or(0);
        if *want > 0 && taken.saturating_add(*want) > have {
            reasons.push(format!("Insufficient {name}"));
        }
    }
    if !reasons.is_empty() {
        return Err(FilterFailure {
            plugin: "NodeResourcesFit",
            reasons,
            resolvable: true,
        });
    }
    Ok(())
}

/// PodTopologySpread's filter (DoNotSchedule constraints), which upstream runs after
/// the volume plugins. `pos` is the node's position in name order.
pub fn spread_filter(
    pod: &PodFacts,
    pos: usize,
    spread: &SpreadState,
) -> Result<(), FilterFailure> {
    for (i, c) in pod.spread.iter().filter(|c| c.hard).enumerate() {
        let (Some(d), Some(counts), Some(&(mut min, present))) = (
            spread.domains.get(i),
            spread.counts.get(i),
            spread.floor.get(i),
        ) else {
            continue;
        };
        let id = d.of_node.get(pos).copied().unwrap_or(NO_DOMAIN);
        if id == NO_DOMAIN {
            return Err(fail("PodTopologySpread", ERR_SPREAD_LABEL, false));
        }
        if c.min_domains.is_some_and(|m| (present as i64) < m) {
            min = 0;
        }
        let here = counts[id as usize].max(0);
        if here + c.self_match - min > c.max_skew {
            return Err(fail("PodTopologySpread", ERR_SPREAD, true));
        }
    }
    Ok(())
}

/// Upstream's `helper.DefaultNormalizeScore`.
pub fn default_normalize(raw: &[i64], reverse: bool) -> Vec<i64> {
    let max = raw.iter().copied().max().unwrap_or(0).max(0);
    raw.iter()
        .map(|&s| {
            if max == 0 {
                if reverse {
                    MAX_NODE_SCORE
                } else {
                    0
                }
            } else {
                let v = MAX_NODE_SCORE * s / max;
                if reverse {
                    MAX_NODE_SCORE - v
                } else {
                    v
                }
            }
        })
        .collect()
}

/// TaintToleration's raw score: the node's PreferNoSchedule taints the pod does not
/// tolerate (normalised in reverse).
pub fn taint_raw(pod: &PodFacts, n: &NodeInfo) -> i64 {
    n.taints
        .iter()
        .filter(|t| t.effect == "PreferNoSchedule" && !pod.tolerated(t))
        .count() as i64
}

/// The pod's preferred node affinity terms, if it has any.
pub fn preferred_terms<'a>(
    pod: &PodFacts<'a>,
) -> Option<&'a Vec<k8s_openapi::api::core::v1::PreferredSchedulingTerm>> {
    pod.spec
        .and_then(|s| s.affinity.as_ref())
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|a| {
            a.preferred_during_scheduling_ignored_during_execution
                .as_ref()
        })
}

/// NodeAffinity's raw score: the weights of the preferred terms the node matches.
pub fn affinity_raw(pod: &PodFacts, name: &str, n: &NodeInfo) -> i64 {
    let Some(terms) = preferred_terms(pod) else {
        return 0;
    };
    terms
        .iter()
        .filter(|t| t.weight != 0)
        .filter(|t| {
            let exprs = t.preference.match_expressions.clone();
            let fields = t.preference.match_fields.clone();
            if exprs.as_ref().is_none_or(|e| e.is_empty())
                && fields.as_ref().is_none_or(|f| f.is_empty())
            {
                return false;
            }
            let probe = PodSpec {
                affinity: Some(k8s_openapi::api::core::v1::Affinity {
                    node_affinity: Some(k8s_openapi::api::core::v1::NodeAffinity {
                        required_during_scheduling_ignored_during_execution: Some(
                            k8s_openapi::api::core::v1::NodeSelector {
                                node_selector_terms: vec![t.preference.clone()],
                            },
                        ),
                        ..Default::default()
                    }),
                    ..Default::default()
                }),
                ..Default::default()
            };
            pod_matches_node(&probe, name, &n.labels)
        })
        .map(|t| i64::from(t.weight))
        .sum()
}

/// NodeResourcesFit's LeastAllocated score: free share of cpu and memory after the
/// pod, weight 1 each, counting non-zero requests.
pub fn least_allocated(pod: &PodFacts, n: &NodeInfo) -> i64 {
    let one = |requested: u64, capacity: u64| -> i64 {
        if capacity == 0 || requested > capacity {
            0
        } else {
            (u128::from(capacity - requested) * MAX_NODE_SCORE as u128 / u128::from(capacity))
                as i64
        }
    };
    let cpu = one(
        n.nonzero_cpu.saturating_add(pod.nonzero.0),
        n.allocatable.cpu,
    );
    let mem = one(
        n.nonzero_memory.saturating_add(pod.nonzero.1),
        n.allocatable.memory,
    );
    (cpu + mem) / 2
}

/// NodeResourcesBalancedAllocation: 100 × (1 − the standard deviation of the cpu and
/// memory fractions requested after the pod); it counts actual requests.
pub fn balanced_allocation(pod: &PodFacts, n: &NodeInfo) -> i64 {
    let frac = |used: u64, alloc: u64| {
        if alloc == 0 {
            1.0
        } else {
            (used as f64 / alloc as f64).min(1.0)
        }
    };
    let cpu = frac(
        n.requested.cpu.saturating_add(pod.requests.cpu),
        n.allocatable.cpu,
    );
    let mem = frac(
        n.requested.memory.saturating_add(pod.requests.memory),
        n.allocatable.memory,
    );
    let std = (cpu - mem).abs() / 2.0;
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

const MB: i64 = 1024 * 1024;
const IMAGE_MIN_THRESHOLD: i64 = 23 * MB;
const IMAGE_MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

/// ImageLocality: the sizes of the pod's images already on the node, each scaled by
/// the share of nodes that have it, between 23 MB and 1000 MB per container.
pub fn image_locality(
    pod: &PodFacts,
    n: &NodeInfo,
    spread_of: &dyn Fn(&str) -> usize,
    total_nodes: usize,
) -> i64 {
    if pod.images.is_empty() || total_nodes == 0 {
        return 0;
    }
    let sum: i64 = pod
        .images
        .iter()
        .filter_map(|img| n.images.get(img).map(|size| (img, *size)))
        .map(|(img, size)| (size as f64 * spread_of(img) as f64 / total_nodes as f64) as i64)
        .sum();
    let max = IMAGE_MAX_CONTAINER_THRESHOLD * pod.images.len() as i64;
    let sum = sum.clamp(IMAGE_MIN_THRESHOLD, max);
    MAX_NODE_SCORE * (sum - IMAGE_MIN_THRESHOLD) / (max - IMAGE_MIN_THRESHOLD)
}

/// PodTopologySpread's raw scores for the ScheduleAnyway constraints over the feasible
/// nodes (by position in name order; None: the node lacks a key), counting over
/// every node.
pub fn spread_raw<'n>(
    pod: &PodFacts,
    feasible: &[usize],
    all: &'n BTreeMap<String, NodeInfo>,
    inputs: &[SpreadInput<'n>],
) -> Vec<Option<i64>> {
    let soft: Vec<&SpreadConstraint> = pod.spread.iter().filter(|c| !c.hard).collect();
    let require_all = !soft.iter().any(|c| c.system_default);
    let state = spread_counts(pod, all.iter(), inputs, require_all);
    let domain = |i: usize, pos: usize| {
        state.domains[i]
            .of_node
            .get(pos)
            .copied()
            .unwrap_or(NO_DOMAIN)
    };
    // Domains among the feasible nodes, for the normalising weight log(size + 2);
    // without `require_all`, nodes lacking the key make one more domain (value "",
    // the same as a node labelled with the empty value).
    let weights: Vec<f64> = (0..inputs.len())
        .map(|i| {
            let d = state.domains[i];
            let mut seen = vec![false; d.count + 1];
            for &pos in feasible {
                match domain(i, pos) {
                    NO_DOMAIN if require_all => {}
                    NO_DOMAIN => seen[d.empty.map_or(d.count, |e| e as usize)] = true,
                    id => seen[id as usize] = true,
                }
            }
            let size = seen.iter().filter(|s| **s).count();
            ((size + 2) as f64).ln()
        })
        .collect();
    feasible
        .iter()
        .map(|&pos| {
            let mut score = 0.0;
            for (i, c) in soft.iter().enumerate().take(inputs.len()) {
                let id = match domain(i, pos) {
                    NO_DOMAIN if require_all => return None,
                    NO_DOMAIN => continue,
                    id => id,
                };
                let cnt = state.counts[i][id as usize].max(0);
                score += cnt as f64 * weights[i] + (c.max_skew - 1) as f64;
            }
            Some(score.round() as i64)
        })
        .collect()
}

/// PodTopologySpread's NormalizeScore: fewer matching pods score higher.
pub fn spread_normalize(raw: &[Option<i64>]) -> Vec<i64> {
    let valid: Vec<i64> = raw.iter().flatten().copied().collect();
    let max = valid.iter().copied().max().unwrap_or(0);
    let min = valid.iter().copied().min().unwrap_or(0);
    raw.iter()
        .map(|s| match s {
            None => 0,
            Some(_) if max == 0 => MAX_NODE_SCORE,
            Some(s) => MAX_NODE_SCORE * (max + min - s) / max,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_named_as_the_runtime_does() {
        assert_eq!(canonical_image("nginx"), "docker.io/library/nginx:latest");
        assert_eq!(
            canonical_image("nginx:1.27"),
            "docker.io/library/nginx:1.27"
        );
        assert_eq!(
            canonical_image("registry.k8s.io/pause:3.10"),
            "registry.k8s.io/pause:3.10"
        );
        assert_eq!(
            canonical_image("bitnami/redis"),
            "docker.io/bitnami/redis:latest"
        );
        assert_eq!(
            canonical_image("localhost:5000/app"),
            "localhost:5000/app:latest"
        );
    }

    #[test]
    fn default_normalize_matches_upstream() {
        assert_eq!(default_normalize(&[0, 1, 2], true), vec![100, 50, 0]);
        assert_eq!(default_normalize(&[0, 0], true), vec![100, 100]);
        assert_eq!(default_normalize(&[0, 0], false), vec![0, 0]);
        assert_eq!(default_normalize(&[3, 1], false), vec![100, 33]);
    }
}
