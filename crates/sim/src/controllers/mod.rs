//! The floor manager (kube-controller-manager) and its clerks: one module per
//! controller, each level-triggered. A controller is told which object to look at,
//! never why; it reads the current state and sends its writes through the apiserver.

pub mod crd;
pub mod cron;
#[rustfmt::skip]
mod cron_zones;
pub mod cronjob;
pub mod daemonset;
pub mod deployment;
pub mod disruption;
#[cfg(test)]
mod echo;
pub mod endpoints;
pub mod endpointslice;
pub mod garbage_collector;
pub mod gateway;
pub(crate) mod history;
pub mod hpa;
pub mod job;
pub mod local_path;
pub mod manager;
pub mod namespace;
pub mod node_lifecycle;
pub mod podgc;
pub mod protection;
pub mod replicaset;
pub mod resource_quota;
pub mod serviceaccount;
pub mod statefulset;
pub mod ttl_after_finished;
pub mod volume;

use crate::object::ObjectKey;
use k8s_openapi::api::core::v1::{NodeSelectorRequirement, Pod, PodCondition, PodSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use std::collections::BTreeMap;

/// What the controllers remember between reconciles (their informers' extra state,
/// back-off records, armed timers). A snapshot keeps it.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Memory {
    /// The taint eviction controller's pending deadlines by pod uid, so a node's
    /// recovery can cancel them.
    pub evictions: BTreeMap<String, crate::time::SimTime>,
    /// Whether the resource quota controller's periodic resync is armed.
    pub quota_resync_scheduled: bool,
    /// The Job controller's pod failure back-off records, by Job uid (in memory
    /// upstream too: `podBackoffStore`).
    pub job_backoff: BTreeMap<String, job::BackoffRecord>,
    /// The Job controller's pending `AddAfter` requeues, by Job.
    #[serde(with = "crate::snapshot::pairs")]
    pub job_requeue: BTreeMap<ObjectKey, crate::time::SimTime>,
    /// The pod garbage collector's state (quarantined nodes, threshold).
    pub pod_gc: podgc::PodGcState,
    /// The endpoint controllers' memory (the slice size, the last pod event's
    /// Services).
    pub endpoints: endpointslice::EndpointsState,
    /// Pods a ReplicaSet controls whose labels its selector no longer matched when
    /// their watch event came, by ReplicaSet: what its next claim releases.
    #[serde(default, with = "crate::snapshot::pairs")]
    pub unmatched_pods: BTreeMap<ObjectKey, std::collections::BTreeSet<ObjectKey>>,
    /// The ReplicaSet controller's running counts of each ReplicaSet's pods, by its
    /// uid ([`replicaset::PodTally`]). Not kept in a snapshot: counted afresh.
    #[serde(skip)]
    pub pod_tallies: BTreeMap<String, replicaset::PodTally>,
    /// The Endpoints controller's addresses of each Service's pods
    /// ([`endpoints::AddressMemo`]). Not kept in a snapshot: read afresh.
    #[serde(skip)]
    pub address_memos: BTreeMap<ObjectKey, endpoints::AddressMemo>,
    /// Failed reconciles in a row per queued key, for the rate-limited requeue.
    #[serde(with = "crate::snapshot::pairs")]
    pub failures: BTreeMap<(manager::ControllerId, ObjectKey), u32>,
    /// The autoscaler controller's recent recommendations and rescales, by
    /// HorizontalPodAutoscaler.
    #[serde(default, with = "crate::snapshot::pairs")]
    pub hpa: BTreeMap<ObjectKey, hpa::AutoscalerMemory>,
    /// The Gateway API controller's state and indexes.
    #[serde(default)]
    pub gateway: gateway::GatewayMemory,
}

impl Memory {
    /// As a snapshot restores it: the memos it does not keep start empty.
    pub(crate) fn copy_as_restored(&self) -> Memory {
        Memory {
            evictions: self.evictions.clone(),
            quota_resync_scheduled: self.quota_resync_scheduled,
            job_backoff: self.job_backoff.clone(),
            job_requeue: self.job_requeue.clone(),
            pod_gc: self.pod_gc.clone(),
            endpoints: self.endpoints.copy_as_restored(),
            unmatched_pods: self.unmatched_pods.clone(),
            pod_tallies: BTreeMap::new(),
            address_memos: BTreeMap::new(),
            failures: self.failures.clone(),
            hpa: self.hpa.clone(),
            gateway: self.gateway.clone(),
        }
    }
}

/// Whether a watch event shows an orphan pod that a ReplicaSet or DaemonSet whose
/// selector matches may adopt (upstream `addPod`/`updatePod` enqueue
/// `getPodReplicaSets`, `getDaemonSetsForPod`): active, labelled, not deleted.
pub(crate) fn adoptable_orphan(ev: &crate::store::WatchEvent) -> bool {
    let crate::object::Object::Pod(pod) = &*ev.object else {
        return false;
    };
    ev.event_type != crate::store::EventType::Deleted
        && replicaset::is_orphan(pod)
        && pod_is_active(pod)
        && pod.metadata.labels.as_ref().is_some_and(|l| !l.is_empty())
}

/// Whether the object's controller reference points at `owner_uid`.
pub(crate) fn controlled_by(
    meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    owner_uid: &str,
) -> bool {
    meta.owner_references
        .iter()
        .flatten()
        .any(|r| r.controller == Some(true) && r.uid == owner_uid)
}

/// Whether `labels` satisfy `selector` (matchLabels and matchExpressions), as
/// apimachinery's `LabelSelectorAsSelector` evaluates it. An empty selector matches
/// everything.
pub fn selector_matches(selector: &LabelSelector, labels: &BTreeMap<String, String>) -> bool {
    selector_matches_with(selector, |k| labels.get(k))
}

/// [`selector_matches`] over labels read through `label` (a name's value, if set).
pub fn selector_matches_with<'a>(
    selector: &LabelSelector,
    label: impl Fn(&str) -> Option<&'a String>,
) -> bool {
    let labels_ok = selector
        .match_labels
        .iter()
        .flatten()
        .all(|(k, v)| label(k) == Some(v));
    let exprs_ok = selector.match_expressions.iter().flatten().all(|e| {
        let values = e.values.as_deref().unwrap_or(&[]);
        let value = label(&e.key);
        match e.operator.as_str() {
            "In" => value.is_some_and(|v| values.contains(v)),
            "NotIn" => value.is_none_or(|v| !values.contains(v)),
            "Exists" => value.is_some(),
            "DoesNotExist" => value.is_none(),
            _ => false,
        }
    });
    labels_ok && exprs_ok
}

/// Whether a node passes the pod's nodeSelector and its required node affinity
/// (component-helpers `nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)`): every
/// nodeSelector label, and at least one nodeSelectorTerm whose matchExpressions (on
/// labels) and matchFields (only `metadata.name` is supported, as upstream) all hold.
pub fn pod_matches_node(
    spec: &PodSpec,
    node_name: &str,
    labels: &BTreeMap<String, String>,
) -> bool {
    let selector_ok = spec
        .node_selector
        .iter()
        .flatten()
        .all(|(k, v)| labels.get(k) == Some(v));
    let required = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|na| {
            na.required_during_scheduling_ignored_during_execution
                .as_ref()
        });
    let affinity_ok = required.is_none_or(|sel| {
        sel.node_selector_terms.iter().any(|term| {
            let exprs = term.match_expressions.as_deref().unwrap_or(&[]);
            let fields = term.match_fields.as_deref().unwrap_or(&[]);
            // An empty term matches no node.
            (!exprs.is_empty() || !fields.is_empty())
                && exprs
                    .iter()
                    .all(|r| requirement_matches(r, labels.get(&r.key).map(String::as_str)))
                && fields
                    .iter()
                    .all(|r| r.key == "metadata.name" && requirement_matches(r, Some(node_name)))
        })
    });
    selector_ok && affinity_ok
}

fn requirement_matches(r: &NodeSelectorRequirement, value: Option<&str>) -> bool {
    let values = r.values.as_deref().unwrap_or(&[]);
    let int = |s: &str| s.parse::<i64>().ok();
    match r.operator.as_str() {
        "In" => value.is_some_and(|v| values.iter().any(|x| x == v)),
        "NotIn" => value.is_none_or(|v| !values.iter().any(|x| x == v)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        "Gt" | "Lt" => match (value.and_then(int), values.first().and_then(|x| int(x))) {
            (Some(v), Some(bound)) => {
                if r.operator == "Gt" {
                    v > bound
                } else {
                    v < bound
                }
            }
            _ => false,
        },
        _ => false,
    }
}

/// A pod's condition of the given type.
pub fn pod_condition<'a>(pod: &'a Pod, type_: &str) -> Option<&'a PodCondition> {
    pod.status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == type_)
}

/// Ready condition is True.
pub fn pod_is_ready(pod: &Pod) -> bool {
    pod_condition(pod, "Ready").is_some_and(|c| c.status == "True")
}

/// Not terminating and not finished: counts toward a ReplicaSet's replicas
/// (upstream `controller.IsPodActive`).
pub fn pod_is_active(pod: &Pod) -> bool {
    let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
    pod.metadata.deletion_timestamp.is_none()
        && !matches!(phase, Some("Succeeded") | Some("Failed"))
}

/// `Some(n)` unless `n` is zero: status counters are `omitempty` upstream, so a
/// zero is left out of the object.
/// The reference an endpoint keeps to its pod (`targetRef`): kind, namespace, name
/// and uid.
pub(crate) fn pod_reference(pod: &Pod) -> k8s_openapi::api::core::v1::ObjectReference {
    k8s_openapi::api::core::v1::ObjectReference {
        kind: Some("Pod".into()),
        namespace: pod.metadata.namespace.clone(),
        name: pod.metadata.name.clone(),
        uid: pod.metadata.uid.clone(),
        ..Default::default()
    }
}

pub fn omit_zero(n: i32) -> Option<i32> {
    (n != 0).then_some(n)
}

/// Sets (or adds) a condition, changing lastTransitionTime only when the status flips.
pub fn set_pod_condition(pod: &mut Pod, cond: PodCondition) {
    let status = pod.status.get_or_insert_with(Default::default);
    let conds = status.conditions.get_or_insert_with(Vec::new);
    match conds.iter_mut().find(|c| c.type_ == cond.type_) {
        Some(existing) => {
            let transition = if existing.status == cond.status {
                existing.last_transition_time.clone()
            } else {
                cond.last_transition_time.clone()
            };
            *existing = PodCondition {
                last_transition_time: transition,
                ..cond
            };
        }
        None => conds.push(cond),
    }
}
