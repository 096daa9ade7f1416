//! Node lifecycle and taint-based eviction.
//!
//! The node lifecycle controller (pkg/controller/nodelifecycle, `monitorNodeHealth`)
//! looks at every node each `--node-monitor-period`; a node whose Lease has not been
//! renewed for `--node-monitor-grace-period` gets Ready=Unknown, the
//! `node.kubernetes.io/unreachable` taints, and its pods are marked not ready.
//!
//! Its NoSchedule tainting pass keeps the `node.kubernetes.io/unschedulable` taint in
//! step with `spec.unschedulable` (a cordon).
//!
//! The taint eviction controller (pkg/controller/tainteviction) deletes pods on a
//! node with a NoExecute taint once their toleration runs out: at once if they do not
//! tolerate it, after `tolerationSeconds` (300 s from DefaultTolerationSeconds) if they
//! do, never if they tolerate it forever.

use super::set_pod_condition;
use crate::apiserver::Actor;
use crate::cluster::{Cluster, Timer};
use crate::control_plane::NodeHealth;
use crate::object::{Kind, Object, ObjectKey};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::{Node, NodeCondition, PodCondition, Taint, Toleration};

pub const MONITOR_PERIOD: SimDuration = SimDuration::secs(5);
pub const GRACE_PERIOD: SimDuration = SimDuration::secs(50);
pub const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
pub const NOT_READY: &str = "node.kubernetes.io/not-ready";

pub const UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

/// Whether a node's `node.kubernetes.io/unschedulable:NoSchedule` taint disagrees
/// with its `spec.unschedulable`.
pub fn unschedulable_taint_stale(node: &Node) -> bool {
    let spec = node.spec.as_ref();
    let cordoned = spec.and_then(|s| s.unschedulable).unwrap_or(false);
    let tainted = spec.and_then(|s| s.taints.as_ref()).is_some_and(|ts| {
        ts.iter()
            .any(|t| t.key == UNSCHEDULABLE && t.effect == "NoSchedule")
    });
    cordoned != tainted
}

const NODE_ACTOR: Actor = Actor::Controller("node-controller");
const EVICTION_ACTOR: Actor = Actor::Controller("taint-eviction-controller");

/// The node's Ready condition status: "True", "False" or "Unknown".
pub fn node_ready_status(node: &Node) -> &str {
    node.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
        .map(|c| c.status.as_str())
        .unwrap_or("Unknown")
}

/// Whether `tolerations` tolerate `taint` (upstream `ToleratesTaint`).
pub fn tolerates(toleration: &Toleration, taint: &Taint) -> bool {
    if let Some(effect) = toleration.effect.as_deref() {
        if !effect.is_empty() && effect != taint.effect {
            return false;
        }
    }
    let op = toleration.operator.as_deref().unwrap_or("Equal");
    match toleration.key.as_deref() {
        None | Some("") => op == "Exists",
        Some(k) if k != taint.key => false,
        Some(_) => match op {
            "Exists" => true,
            _ => toleration.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or(""),
        },
    }
}

impl Cluster {
    /// One pass of `monitorNodeHealth`. Staleness is judged by the controller's own
    /// clock: a node's probe timestamp moves to "now" whenever the controller sees
    /// its Lease renewed or its Ready heartbeat change (`tryUpdateNodeHealth`), and a
    /// node seen for the first time — after the controller manager (re)started —
    /// counts as freshly heard from. A Lease that stopped changing is stale only
    /// `GRACE_PERIOD` after the controller last saw it change.
    pub(crate) fn monitor_node_health(&mut self) {
        // Read every node by reference; clone only the few that need a write.
        let names: std::collections::BTreeSet<String> = self
            .store
            .list(Kind::Node, None)
            .map(|o| o.name().to_string())
            .collect();
        self.control_plane
            .node_health
            .retain(|name, _| names.contains(name));
        for name in names {
            let node_key = ObjectKey::new(Kind::Node, "", &name);
            let Some(node) = self.store.get(&node_key).and_then(|o| o.as_node()) else {
                continue;
            };
            let lease_key = ObjectKey::new(Kind::Lease, "kube-node-lease", &name);
            let renewed = self
                .store
                .get(&lease_key)
                .and_then(|o| o.as_lease())
                .and_then(|l| l.spec.as_ref())
                .and_then(|s| s.renew_time.as_ref())
                .map(|t| {
                    SimTime::from_k8s(&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(t.0))
                });
            let ready = node_ready_status(node).to_string();
            let has_taints = node
                .spec
                .as_ref()
                .and_then(|s| s.taints.as_ref())
                .is_some_and(|t| t.iter().any(|t| t.key == UNREACHABLE || t.key == NOT_READY));
            let heartbeat = node
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
                .and_then(|c| c.last_heartbeat_time.as_ref())
                .map(SimTime::from_k8s);
            let now = self.now;
            let health = self
                .control_plane
                .node_health
                .entry(name.clone())
                .or_insert(NodeHealth {
                    probe_timestamp: now,
                    observed_renew: renewed,
                    observed_heartbeat: heartbeat,
                });
            if health.observed_renew != renewed || health.observed_heartbeat != heartbeat {
                health.probe_timestamp = now;
                health.observed_renew = renewed;
                health.observed_heartbeat = heartbeat;
            }
            let stale = now.since(health.probe_timestamp) > GRACE_PERIOD;
            let node = || self.store.get(&node_key).and_then(|o| o.as_node()).cloned();
            if stale && ready != "Unknown" {
                if let Some(node) = node() {
                    self.mark_node_unknown(node);
                }
            } else if !stale && ready == "True" && has_taints {
                if let Some(node) = node() {
                    self.remove_unreachable_taints(node);
                }
            }
        }
    }

    fn mark_node_unknown(&mut self, mut node: Node) {
        let now = self.now.to_k8s();
        let name = node.metadata.name.clone().unwrap_or_default();
        if let Some(conds) = node.status.as_mut().and_then(|s| s.conditions.as_mut()) {
            for c in conds.iter_mut() {
                *c = NodeCondition {
                    type_: c.type_.clone(),
                    status: "Unknown".into(),
                    reason: Some("NodeStatusUnknown".into()),
                    message: Some("Kubelet stopped posting node status.".into()),
                    last_heartbeat_time: c.last_heartbeat_time.clone(),
                    last_transition_time: Some(now.clone()),
                };
            }
        }
        let taints = node
            .spec
            .get_or_insert_with(Default::default)
            .taints
            .get_or_insert_with(Vec::new);
        for effect in ["NoSchedule", "NoExecute"] {
            if !taints
                .iter()
                .any(|t| t.key == UNREACHABLE && t.effect == effect)
            {
                taints.push(Taint {
                    key: UNREACHABLE.into(),
                    effect: effect.into(),
                    time_added: (effect == "NoExecute").then(|| now.clone()),
                    value: None,
                });
            }
        }
        let Ok(updated) = self.update_as(NODE_ACTOR, Object::Node(node)) else {
            return;
        };
        self.record_event(
            &updated,
            "node-controller",
            None,
            "Normal",
            "NodeNotReady",
            format!("Node {name} status is now: NodeNotReady"),
        );
        // MarkPodsNotReady: the pods' Ready condition goes False so endpoints stop
        // sending them traffic.
        let pods: Vec<ObjectKey> = self.store.pods_on_node(&name).cloned().collect();
        for key in pods {
            let Some(Object::Pod(mut pod)) = self.store.get(&key).cloned() else {
                continue;
            };
            let already = super::pod_condition(&pod, "Ready").is_some_and(|c| c.status == "False");
            if already {
                continue;
            }
            set_pod_condition(
                &mut pod,
                PodCondition {
                    type_: "Ready".into(),
                    status: "False".into(),
                    last_transition_time: Some(now.clone()),
                    ..Default::default()
                },
            );
            let pod_obj = Object::Pod(pod);
            if self.update_as(NODE_ACTOR, pod_obj.clone()).is_ok() {
                self.record_event(
                    &pod_obj,
                    "node-controller",
                    None,
                    "Warning",
                    "NodeNotReady",
                    "Node is not ready".into(),
                );
            }
        }
    }

    /// `doNoScheduleTaintingPass` for cordons: a node with `spec.unschedulable` gets
    /// the `node.kubernetes.io/unschedulable:NoSchedule` taint, an uncordoned one
    /// loses it.
    pub(crate) fn sync_unschedulable_taint(&mut self, node_key: &ObjectKey) {
        let Some(Object::Node(mut node)) = self.store.get(node_key).cloned() else {
            return;
        };
        if !unschedulable_taint_stale(&node) {
            return;
        }
        let cordoned = node
            .spec
            .as_ref()
            .and_then(|s| s.unschedulable)
            .unwrap_or(false);
        let now = self.now.to_k8s();
        let spec = node.spec.get_or_insert_with(Default::default);
        let mut taints = spec.taints.take().unwrap_or_default();
        if cordoned {
            taints.push(Taint {
                key: UNSCHEDULABLE.into(),
                effect: "NoSchedule".into(),
                time_added: Some(now),
                value: None,
            });
        } else {
            taints.retain(|t| !(t.key == UNSCHEDULABLE && t.effect == "NoSchedule"));
        }
        spec.taints = (!taints.is_empty()).then_some(taints);
        let _ = self.update_as(NODE_ACTOR, Object::Node(node));
    }

    fn remove_unreachable_taints(&mut self, mut node: Node) {
        let Some(taints) = node.spec.as_mut().and_then(|s| s.taints.as_mut()) else {
            return;
        };
        let before = taints.len();
        taints.retain(|t| t.key != UNREACHABLE && t.key != NOT_READY);
        if taints.len() != before {
            if taints.is_empty() {
                node.spec.as_mut().expect("checked above").taints = None;
            }
            let _ = self.update_as(NODE_ACTOR, Object::Node(node));
        }
    }

    /// Taint eviction: (re)computes each pod's eviction deadline on a node whose
    /// NoExecute taints changed.
    pub(crate) fn sync_node_taints(&mut self, node_key: &ObjectKey) {
        let taints: Vec<Taint> = match self.store.get(node_key).and_then(|o| o.as_node()) {
            Some(n) => n
                .spec
                .as_ref()
                .and_then(|s| s.taints.clone())
                .unwrap_or_default()
                .into_iter()
                .filter(|t| t.effect == "NoExecute")
                .collect(),
            None => Vec::new(),
        };
        let pods: Vec<ObjectKey> = self.store.pods_on_node(&node_key.name).cloned().collect();
        for key in pods {
            let Some(Object::Pod(pod)) = self.store.get(&key) else {
                continue;
            };
            let uid = pod.metadata.uid.clone().unwrap_or_default();
            if pod.metadata.deletion_timestamp.is_some() {
                continue;
            }
            if taints.is_empty() {
                self.evictions.remove(&uid);
                continue;
            }
            let tolerations = pod
                .spec
                .as_ref()
                .and_then(|s| s.tolerations.clone())
                .unwrap_or_default();
            // The earliest moment any taint stops being tolerated.
            let mut deadline: Option<SimTime> = None;
            let mut forever = true;
            for taint in &taints {
                let added = taint
                    .time_added
                    .as_ref()
                    .map(SimTime::from_k8s)
                    .unwrap_or(self.now);
                let matching: Vec<&Toleration> =
                    tolerations.iter().filter(|t| tolerates(t, taint)).collect();
                let at = if matching.is_empty() {
                    Some(self.now)
                } else if matching.iter().any(|t| t.toleration_seconds.is_none()) {
                    None
                } else {
                    let secs = matching
                        .iter()
                        .filter_map(|t| t.toleration_seconds)
                        .min()
                        .unwrap_or(0);
                    // Negative counts as zero; a huge one saturates at the far future.
                    Some(added + SimDuration::from_secs_i64(secs))
                };
                if let Some(at) = at {
                    forever = false;
                    deadline = Some(deadline.map_or(at, |d: SimTime| d.min(at)));
                }
            }
            match deadline {
                Some(at) if !forever => {
                    if self.evictions.get(&uid) != Some(&at) {
                        self.evictions.insert(uid.clone(), at);
                        self.schedule(
                            at,
                            Timer::Evict {
                                pod: key.clone(),
                                uid,
                            },
                        );
                    }
                }
                _ => {
                    self.evictions.remove(&uid);
                }
            }
        }
    }

    /// An eviction deadline passed: mark the pod with a DisruptionTarget condition and
    /// delete it.
    pub(crate) fn evict_pod(&mut self, key: &ObjectKey, uid: &str) {
        match self.evictions.get(uid) {
            Some(at) if *at <= self.now => {
                self.evictions.remove(uid);
            }
            _ => return, // cancelled or rescheduled
        }
        let Some(Object::Pod(mut pod)) = self.store.get(key).cloned() else {
            return;
        };
        if pod.metadata.uid.as_deref() != Some(uid) || pod.metadata.deletion_timestamp.is_some() {
            return;
        }
        set_pod_condition(
            &mut pod,
            PodCondition {
                type_: "DisruptionTarget".into(),
                status: "True".into(),
                reason: Some("DeletionByTaintManager".into()),
                message: Some("Taint manager: deleting due to NoExecute taint".into()),
                last_transition_time: Some(self.now.to_k8s()),
                ..Default::default()
            },
        );
        let pod_obj = Object::Pod(pod);
        let _ = self.update_as(EVICTION_ACTOR, pod_obj.clone());
        self.record_event(
            &pod_obj,
            "taint-eviction-controller",
            None,
            "Normal",
            "TaintManagerEviction",
            format!("Marking for deletion Pod {}/{}", key.namespace, key.name),
        );
        let _ = self.delete_as(EVICTION_ACTOR, key, None);
    }
}
