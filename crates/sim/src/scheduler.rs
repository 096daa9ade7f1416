//! The zone dispatcher (kube-scheduler): filter, then score, then bind through the
//! apiserver. Plugin names, weights and messages follow the upstream default profile
//! (pkg/scheduler/framework/plugins).

use crate::apiserver::Actor;
use crate::cluster::{Cluster, Component, Timer};
use crate::controllers::node_lifecycle::tolerates;
use crate::controllers::set_pod_condition;
use crate::object::{Kind, Object, ObjectKey};
use crate::quantity;
use crate::store::{EventType, WatchEvent};
use crate::time::SimDuration;
use k8s_openapi::api::core::v1::{Pod, PodCondition, Taint, Toleration};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Upstream's non-zero defaults used for scoring pods without requests
/// (`schedutil.DefaultMilliCPURequest`, `DefaultMemoryRequest`).
const DEFAULT_MILLI_CPU: u64 = 100;
const DEFAULT_MEMORY: u64 = 200 * 1024 * 1024;
/// How long an unschedulable pod waits before a cluster event sends it back to the
/// scheduling queue (upstream's initial pod backoff is 1 s).
pub const UNSCHEDULABLE_BACKOFF: SimDuration = SimDuration::secs(1);
/// The score plugins of the default profile that a [`NodeVerdict`] lists.
pub const SCORE_PLUGINS: [&str; 3] = [
    "NodeResourcesFit",
    "NodeResourcesBalancedAllocation",
    "TaintToleration",
];
/// Scheduling decisions kept for the "why this zone?" view.
pub const DECISIONS_KEPT: usize = 256;
/// Clusters up to this size keep every node's verdict in a decision; larger ones keep
/// the outcome and the message only.
pub const DETAILED_DECISION_NODES: usize = 100;

/// What the scheduler's cache knows of a node.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NodeInfo {
    pub allocatable_cpu: u64,
    pub allocatable_memory: u64,
    pub allocatable_pods: u64,
    pub requested_cpu: u64,
    pub requested_memory: u64,
    /// Non-zero requests, for scoring.
    pub nonzero_cpu: u64,
    pub nonzero_memory: u64,
    pub pod_count: u64,
    pub taints: Vec<Taint>,
    pub labels: BTreeMap<String, String>,
    pub unschedulable: bool,
}

/// A pod's resource requests (sum over containers, at least the largest init
/// container's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Requests {
    pub cpu: u64,
    pub memory: u64,
}

pub fn pod_requests(pod: &Pod) -> Requests {
    let Some(spec) = pod.spec.as_ref() else {
        return Requests::default();
    };
    let one = |c: &k8s_openapi::api::core::v1::Container| {
        let req = c.resources.as_ref().and_then(|r| r.requests.as_ref());
        let lim = c.resources.as_ref().and_then(|r| r.limits.as_ref());
        // A limit without a request defaults the request to the limit.
        let get = |name: &str| {
            req.and_then(|r| r.get(name))
                .or_else(|| lim.and_then(|l| l.get(name)))
        };
        Requests {
            cpu: get("cpu")
                .and_then(|q| quantity::cpu_millis(&q.0))
                .unwrap_or(0),
            memory: get("memory")
                .and_then(|q| quantity::bytes(&q.0))
                .unwrap_or(0),
        }
    };
    let mut total = Requests::default();
    for c in &spec.containers {
        let r = one(c);
        total.cpu += r.cpu;
        total.memory += r.memory;
    }
    for c in spec.init_containers.iter().flatten() {
        let r = one(c);
        total.cpu = total.cpu.max(r.cpu);
        total.memory = total.memory.max(r.memory);
    }
    total
}

fn nonzero(r: Requests) -> Requests {
    Requests {
        cpu: if r.cpu == 0 { DEFAULT_MILLI_CPU } else { r.cpu },
        memory: if r.memory == 0 {
            DEFAULT_MEMORY
        } else {
            r.memory
        },
    }
}

/// One node's verdict in a scheduling attempt.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NodeVerdict {
    pub node: String,
    /// Filter failure reasons; empty if the node passed every filter.
    pub reasons: Vec<String>,
    /// (plugin, raw score 0-100, weight) for feasible nodes.
    #[serde(with = "crate::snapshot::plugin_scores")]
    pub scores: Vec<(&'static str, i64, i64)>,
    pub total: i64,
}

/// The record of one scheduling attempt, for "why this zone?".
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Decision {
    pub pod: ObjectKey,
    pub chosen: Option<String>,
    pub verdicts: Vec<NodeVerdict>,
    pub message: String,
}

#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct SchedulerState {
    pub nodes: BTreeMap<String, NodeInfo>,
    /// Pods counted in the node totals: key → (node, requests).
    #[serde(with = "crate::snapshot::pairs")]
    accounted: BTreeMap<ObjectKey, (String, Requests)>,
    /// Pods that failed to schedule, waiting for a cluster change.
    unschedulable: BTreeSet<ObjectKey>,
    flush_scheduled: bool,
    pub decisions: VecDeque<Decision>,
}

impl SchedulerState {
    fn account(&mut self, key: &ObjectKey, entry: Option<(String, Requests)>) {
        if let Some((node, r)) = self.accounted.remove(key) {
            if let Some(n) = self.nodes.get_mut(&node) {
                let nz = nonzero(r);
                n.requested_cpu -= r.cpu;
                n.requested_memory -= r.memory;
                n.nonzero_cpu -= nz.cpu;
                n.nonzero_memory -= nz.memory;
                n.pod_count -= 1;
            }
        }
        if let Some((node, r)) = entry {
            let n = self.nodes.entry(node.clone()).or_default();
            let nz = nonzero(r);
            n.requested_cpu += r.cpu;
            n.requested_memory += r.memory;
            n.nonzero_cpu += nz.cpu;
            n.nonzero_memory += nz.memory;
            n.pod_count += 1;
            self.accounted.insert(key.clone(), (node, r));
        }
    }

    /// A restarted scheduler has an empty queue: the pods it had parked as
    /// unschedulable come back through its relist.
    pub(crate) fn forget_unschedulable(&mut self) {
        self.unschedulable.clear();
    }

    /// The decision recorded for a pod's latest attempt.
    pub fn decision(&self, pod: &ObjectKey) -> Option<&Decision> {
        self.decisions.iter().rev().find(|d| &d.pod == pod)
    }
}

/// Fills a node's cache entry from the Node object (its pod totals stay).
fn node_info_from(info: &mut NodeInfo, node: &k8s_openapi::api::core::v1::Node) {
    let alloc = node.status.as_ref().and_then(|s| s.allocatable.as_ref());
    let get = |k: &str| {
        alloc
            .and_then(|a| a.get(k))
            .map(|q| q.0.clone())
            .unwrap_or_default()
    };
    info.allocatable_cpu = quantity::cpu_millis(&get("cpu")).unwrap_or(0);
    info.allocatable_memory = quantity::bytes(&get("memory")).unwrap_or(0);
    info.allocatable_pods = get("pods").parse().unwrap_or(0);
    info.taints = node
        .spec
        .as_ref()
        .and_then(|s| s.taints.clone())
        .unwrap_or_default();
    info.labels = node.metadata.labels.clone().unwrap_or_default();
    info.unschedulable = node
        .spec
        .as_ref()
        .and_then(|s| s.unschedulable)
        .unwrap_or(false);
}

fn tolerated(tolerations: &[Toleration], taint: &Taint) -> bool {
    tolerations.iter().any(|t| tolerates(t, taint))
}

impl Cluster {
    /// Informer handler: keeps the node totals in step with assigned pods.
    pub(crate) fn scheduler_observe_pod(&mut self, ev: &WatchEvent) {
        let Object::Pod(pod) = &ev.object else { return };
        let key = ev.object.key();
        let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
        let terminal = matches!(phase, Some("Succeeded") | Some("Failed"));
        let node = pod.spec.as_ref().and_then(|s| s.node_name.clone());
        let entry = match (ev.event_type, node, terminal) {
            (EventType::Deleted, _, _) | (_, None, _) | (_, _, true) => None,
            (_, Some(n), false) => Some((n, pod_requests(pod))),
        };
        let freed = entry.is_none() && self.scheduler.accounted.contains_key(&key);
        self.scheduler.account(&key, entry);
        if ev.event_type == EventType::Deleted {
            self.scheduler.unschedulable.remove(&key);
        }
        if freed {
            // AssignedPodDelete: room may have opened up.
            self.requeue_unschedulable();
        }
    }

    /// Informer handler for nodes.
    /// Whether a node's labels, taints or unschedulable flag differ from what the
    /// scheduler's cache last saw (a new node counts as changed): what makes a
    /// DaemonSet look at the node again (upstream `shouldIgnoreNodeUpdate`).
    pub(crate) fn node_placement_changed(&self, node: &k8s_openapi::api::core::v1::Node) -> bool {
        let name = node.metadata.name.as_deref().unwrap_or_default();
        let Some(old) = self.scheduler.nodes.get(name) else {
            return true;
        };
        let mut new = NodeInfo::default();
        node_info_from(&mut new, node);
        old.labels != new.labels
            || old.taints != new.taints
            || old.unschedulable != new.unschedulable
    }

    pub(crate) fn scheduler_observe_node(&mut self, ev: &WatchEvent) {
        let Object::Node(node) = &ev.object else {
            return;
        };
        let name = node.metadata.name.clone().unwrap_or_default();
        if ev.event_type == EventType::Deleted {
            self.scheduler.nodes.remove(&name);
            return;
        }
        node_info_from(self.scheduler.nodes.entry(name).or_default(), node);
        // NodeAdd / NodeUpdate: unschedulable pods get another chance.
        self.requeue_unschedulable();
    }

    /// The scheduler's informers listing again (after an etcd restore): the node
    /// totals are rebuilt from the nodes and the assigned pods in the store.
    pub(crate) fn scheduler_rebuild_cache(&mut self) {
        self.scheduler.nodes.clear();
        self.scheduler.accounted.clear();
        for node in self
            .store
            .list(Kind::Node, None)
            .filter_map(Object::as_node)
        {
            let name = node.metadata.name.clone().unwrap_or_default();
            node_info_from(self.scheduler.nodes.entry(name).or_default(), node);
        }
        let assigned: Vec<(ObjectKey, String, Requests)> = self
            .store
            .list(Kind::Pod, None)
            .filter_map(|o| {
                let pod = o.as_pod()?;
                let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
                if matches!(phase, Some("Succeeded") | Some("Failed")) {
                    return None;
                }
                let node = pod.spec.as_ref()?.node_name.clone()?;
                Some((o.key(), node, pod_requests(pod)))
            })
            .collect();
        for (key, node, requests) in assigned {
            self.scheduler.account(&key, Some((node, requests)));
        }
    }

    /// A cluster event may have made room: unschedulable pods get another try after
    /// [`UNSCHEDULABLE_BACKOFF`], however many events arrive meanwhile (upstream moves
    /// them to the backoff queue, not straight back to the active one).
    fn requeue_unschedulable(&mut self) {
        if !self.scheduler.flush_scheduled && !self.scheduler.unschedulable.is_empty() {
            self.scheduler.flush_scheduled = true;
            self.schedule(self.now + UNSCHEDULABLE_BACKOFF, Timer::SchedulerFlush);
        }
    }

    pub(crate) fn flush_unschedulable(&mut self) {
        self.scheduler.flush_scheduled = false;
        let keys = std::mem::take(&mut self.scheduler.unschedulable);
        for k in keys {
            self.enqueue(Component::Scheduler, k);
        }
    }

    /// Whether a pod is parked as unschedulable (its own status updates must not
    /// wake the scheduler again).
    pub(crate) fn is_parked_unschedulable(&self, key: &ObjectKey) -> bool {
        self.scheduler.unschedulable.contains(key)
    }

    /// Schedules the queued pods one at a time, in PrioritySort order (priority, then
    /// creation time).
    pub(crate) fn schedule_pending(&mut self, keys: BTreeSet<ObjectKey>) {
        let mut pods: Vec<(i32, i64, ObjectKey)> = keys
            .into_iter()
            .filter_map(|k| {
                let pod = self.store.get(&k)?.as_pod()?;
                let bound = pod
                    .spec
                    .as_ref()
                    .and_then(|s| s.node_name.as_ref())
                    .is_some();
                if bound || pod.metadata.deletion_timestamp.is_some() {
                    return None;
                }
                let prio = pod.spec.as_ref().and_then(|s| s.priority).unwrap_or(0);
                let created = pod
                    .metadata
                    .creation_timestamp
                    .as_ref()
                    .map(|t| t.0.as_millisecond())
                    .unwrap_or(0);
                Some((-prio, created, k))
            })
            .collect();
        pods.sort();
        for (_, _, key) in pods {
            self.begin_key(&key);
            self.schedule_one(&key);
        }
    }

    fn schedule_one(&mut self, key: &ObjectKey) {
        let Some(Object::Pod(pod)) = self.store.get(key).cloned() else {
            return;
        };
        let decision = self.decide(key, &pod);
        let chosen = decision.chosen.clone();
        let message = decision.message.clone();
        if self.scheduler.decisions.len() == DECISIONS_KEPT {
            self.scheduler.decisions.pop_front();
        }
        self.scheduler.decisions.push_back(decision);
        match chosen {
            Some(node) => self.bind(pod, &node),
            None => {
                self.scheduler.unschedulable.insert(key.clone());
                let unchanged = crate::controllers::pod_condition(&pod, "PodScheduled")
                    .is_some_and(|c| {
                        c.status == "False" && c.message.as_deref() == Some(message.as_str())
                    });
                if unchanged {
                    // Same verdict as last time: upstream records the event again but
                    // the status write is a no-op.
                    let obj = Object::Pod(pod);
                    self.record_event(
                        &obj,
                        "default-scheduler",
                        None,
                        "Warning",
                        "FailedScheduling",
                        message,
                    );
                    return;
                }
                let mut updated = pod;
                set_pod_condition(
                    &mut updated,
                    PodCondition {
                        type_: "PodScheduled".into(),
                        status: "False".into(),
                        reason: Some("Unschedulable".into()),
                        message: Some(message.clone()),
                        last_transition_time: Some(self.now.to_k8s()),
                        ..Default::default()
                    },
                );
                if let Ok(obj) = self.update_as(Actor::Scheduler, Object::Pod(updated)) {
                    self.record_event(
                        &obj,
                        "default-scheduler",
                        None,
                        "Warning",
                        "FailedScheduling",
                        message,
                    );
                }
            }
        }
    }

    /// Filters every node, scores the feasible ones, and picks the best, breaking ties
    /// at random (upstream `selectHost` samples uniformly among the top scores).
    ///
    /// The common path allocates nothing per node: failure reasons become strings
    /// only for nodes that fail, and the per-node table for "why this zone?" is kept
    /// only for clusters of up to [`DETAILED_DECISION_NODES`] nodes.
    fn decide(&mut self, key: &ObjectKey, pod: &Pod) -> Decision {
        let spec = pod.spec.as_ref();
        let no_tolerations = Vec::new();
        let tolerations = spec
            .and_then(|s| s.tolerations.as_ref())
            .unwrap_or(&no_tolerations);
        let req = pod_requests(pod);
        let nz = nonzero(req);
        let unschedulable_taint = Taint {
            key: "node.kubernetes.io/unschedulable".into(),
            effect: "NoSchedule".into(),
            ..Default::default()
        };
        let detailed = self.scheduler.nodes.len() <= DETAILED_DECISION_NODES;
        let mut verdicts = Vec::new();
        let mut histogram: BTreeMap<String, usize> = BTreeMap::new();
        let mut preemption: BTreeMap<&'static str, usize> = BTreeMap::new();
        // (node, NodeResourcesFit, BalancedAllocation, untolerated PreferNoSchedule)
        let mut feasible: Vec<(&str, i64, i64, i64)> = Vec::new();
        for (name, n) in &self.scheduler.nodes {
            let mut reasons: Vec<String> = Vec::new();
            let mut resolvable = false;
            if n.unschedulable && !tolerated(tolerations, &unschedulable_taint) {
                reasons.push("node(s) were unschedulable".to_string());
            } else if let Some(t) = n.taints.iter().find(|t| {
                (t.effect == "NoSchedule" || t.effect == "NoExecute") && !tolerated(tolerations, t)
            }) {
                reasons.push(format!(
                    "node(s) had untolerated taint {{{}: {}}}",
                    t.key,
                    t.value.as_deref().unwrap_or("")
                ));
            } else if !spec.is_none_or(|s| crate::controllers::pod_matches_node(s, name, &n.labels))
            {
                reasons.push("node(s) didn't match Pod's node affinity/selector".to_string());
            } else {
                resolvable = true;
                if n.pod_count + 1 > n.allocatable_pods {
                    reasons.push("Too many pods".to_string());
                }
                if req.cpu > 0 && n.requested_cpu + req.cpu > n.allocatable_cpu {
                    reasons.push("Insufficient cpu".to_string());
                }
                if req.memory > 0 && n.requested_memory + req.memory > n.allocatable_memory {
                    reasons.push("Insufficient memory".to_string());
                }
            }
            if reasons.is_empty() {
                let frac = |used: u64, alloc: u64| {
                    if alloc == 0 {
                        1.0
                    } else {
                        (used as f64 / alloc as f64).min(1.0)
                    }
                };
                let cpu_f = frac(n.nonzero_cpu + nz.cpu, n.allocatable_cpu);
                let mem_f = frac(n.nonzero_memory + nz.memory, n.allocatable_memory);
                let least = (((1.0 - cpu_f) * 100.0 + (1.0 - mem_f) * 100.0) / 2.0) as i64;
                let balanced = ((1.0 - (cpu_f - mem_f).abs() / 2.0) * 100.0) as i64;
                let prefer_no = n
                    .taints
                    .iter()
                    .filter(|t| t.effect == "PreferNoSchedule" && !tolerated(tolerations, t))
                    .count() as i64;
                feasible.push((name.as_str(), least, balanced, prefer_no));
            } else {
                for r in &reasons {
                    *histogram.entry(r.clone()).or_default() += 1;
                }
                // Taint, affinity and cordon failures are UnschedulableAndUnresolvable:
                // evicting pods would not help. Resource failures could, but every pod
                // here has the same priority, so there is no victim to evict.
                let p = if resolvable {
                    "No preemption victims found for incoming pod"
                } else {
                    "Preemption is not helpful for scheduling"
                };
                *preemption.entry(p).or_default() += 1;
                if detailed {
                    verdicts.push(NodeVerdict {
                        node: name.clone(),
                        reasons,
                        scores: vec![],
                        total: 0,
                    });
                }
            }
        }
        // TaintToleration is normalised in reverse across the feasible nodes.
        let max_prefer = feasible.iter().map(|f| f.3).max().unwrap_or(0);
        let taint_score = |count: i64| {
            if max_prefer == 0 {
                100
            } else {
                100 - count * 100 / max_prefer
            }
        };
        let mut best: Option<(i64, &str)> = None;
        let mut ties = 0u64;
        for &(name, least, balanced, prefer) in &feasible {
            let total = least + balanced + 3 * taint_score(prefer);
            match best {
                Some((b, _)) if total < b => {}
                Some((b, _)) if total == b => {
                    // Reservoir sampling over equal scores, as upstream's selectHost.
                    ties += 1;
                    if self.rng.below(ties) == 0 {
                        best = Some((total, name));
                    }
                }
                _ => {
                    ties = 1;
                    best = Some((total, name));
                }
            }
            if detailed {
                let t = taint_score(prefer);
                verdicts.push(NodeVerdict {
                    node: name.to_string(),
                    reasons: vec![],
                    scores: vec![
                        (SCORE_PLUGINS[0], least, 1),
                        (SCORE_PLUGINS[1], balanced, 1),
                        (SCORE_PLUGINS[2], t, 3),
                    ],
                    total,
                });
            }
        }
        let chosen = best.map(|(_, n)| n.to_string());
        verdicts.sort_by(|a, b| a.node.cmp(&b.node));
        let message = match &chosen {
            Some(n) => format!(
                "Successfully assigned {}/{} to {}",
                key.namespace, key.name, n
            ),
            None => fit_error(self.scheduler.nodes.len(), &histogram, &preemption),
        };
        Decision {
            pod: key.clone(),
            chosen,
            verdicts,
            message,
        }
    }

    /// Binds through the apiserver (`pods/binding`), then records `Scheduled`.
    fn bind(&mut self, pod: Pod, node: &str) {
        let mut updated = pod;
        updated.spec.get_or_insert_with(Default::default).node_name = Some(node.to_string());
        set_pod_condition(
            &mut updated,
            PodCondition {
                type_: "PodScheduled".into(),
                status: "True".into(),
                last_transition_time: Some(self.now.to_k8s()),
                ..Default::default()
            },
        );
        let key = Object::Pod(updated.clone()).key();
        if let Ok(obj) = self.update_as(Actor::Scheduler, Object::Pod(updated)) {
            self.scheduler.unschedulable.remove(&key);
            self.record_event(
                &obj,
                "default-scheduler",
                None,
                "Normal",
                "Scheduled",
                format!(
                    "Successfully assigned {}/{} to {}",
                    key.namespace, key.name, node
                ),
            );
        }
    }

    /// The latest scheduling decision for a pod.
    pub fn scheduling_decision(&self, kind_ns_name: &ObjectKey) -> Option<&Decision> {
        debug_assert_eq!(kind_ns_name.kind, Kind::Pod);
        self.scheduler.decision(kind_ns_name)
    }
}

/// The FailedScheduling message, as upstream's `FitError.Error()` builds it: a sorted
/// histogram of filter reasons, then what preemption concluded.
fn fit_error(
    nodes: usize,
    reasons: &BTreeMap<String, usize>,
    preemption: &BTreeMap<&'static str, usize>,
) -> String {
    if nodes == 0 {
        return "no nodes available to schedule pods".to_string();
    }
    fn hist<K: AsRef<str>>(m: &BTreeMap<K, usize>) -> String {
        let mut v: Vec<String> = m
            .iter()
            .map(|(r, c)| format!("{c} {}", r.as_ref()))
            .collect();
        v.sort();
        v.join(", ")
    }
    format!(
        "0/{nodes} nodes are available: {}. preemption: 0/{nodes} nodes are available: {}.",
        hist(reasons),
        hist(preemption)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_error_sorts_reasons_like_upstream() {
        let reasons: BTreeMap<String, usize> = [
            (
                "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
                    .to_string(),
                1,
            ),
            ("Insufficient cpu".to_string(), 3),
        ]
        .into_iter()
        .collect();
        let preemption: BTreeMap<&'static str, usize> = [
            ("Preemption is not helpful for scheduling", 1),
            ("No preemption victims found for incoming pod", 3),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            fit_error(4, &reasons, &preemption),
            "0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 3 Insufficient cpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod."
        );
    }
}
