//! The pod garbage collector. Mirrors pkg/controller/podgc/gc_controller.go:
//!
//! - `gcOrphaned`: pods bound to a Node that no longer exists are marked Failed (with
//!   the `DisruptionTarget` condition, reason `DeletionByPodGC`) and force-deleted, once
//!   the node has been missing for the quarantine (40 s);
//! - `gcTerminating`: terminating pods on a node that is not Ready and carries the
//!   `node.kubernetes.io/out-of-service` taint are marked Failed and force-deleted;
//! - `gcTerminated`: above `--terminated-pod-gc-threshold` (12500) terminated pods,
//!   the excess is deleted, evicted pods first, then the oldest, at the controller's
//!   20 s check period;
//! - `gcUnscheduledTerminating`: terminating pods that were never scheduled are
//!   force-deleted.
//!
//! Simplified: instead of listing every pod every 20 s, the collector reacts to the
//! watch events that can make a pod collectable (a node deleted or tainted, a pod
//! terminating or terminated) and reads the store's indexes (pods by node, terminated
//! pods by age). The orphan quarantine starts when the node's deletion is seen rather
//! than at the next 20 s pass, so orphans go 40 s after their node, not 40–80 s.

use super::manager::{Action, Controller, ControllerId, Tick};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::controllers::node_lifecycle::node_ready_status;
use crate::object::{Kind, Object, ObjectKey};
use crate::store::{EventType, WatchEvent};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::{Node, Pod, PodCondition};
use std::collections::BTreeSet;

pub(crate) const ID: ControllerId = ControllerId::new("pod-garbage-collector");
const ACTOR: Actor = Actor::Controller(ID.name());

/// The pod garbage collector: nodes deleted or put out of service, and pods that
/// became collectable.
pub(crate) struct PodGarbageCollector;

impl Controller for PodGarbageCollector {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        match &*ev.object {
            Object::Node(_) => c.pod_gc_observe_node(ev, keys),
            Object::Pod(_) => c.pod_gc_observe_pod(ev, keys),
            _ => {}
        }
    }

    /// The initial list (a restarted controller manager, or a relist after an etcd
    /// restore): pods bound to a node that does not exist start its quarantine, as
    /// upstream's next `gcOrphaned` pass over every pod would find them.
    fn relist(&self, c: &mut Cluster, _keys: &mut Vec<ObjectKey>) {
        let missing: Vec<String> = c
            .store
            .nodes_with_pods()
            .filter(|n| c.store.get(&ObjectKey::new(Kind::Node, "", n)).is_none())
            .map(str::to_string)
            .collect();
        for node in missing {
            c.quarantine_node(&node);
        }
        c.arm_terminated_check();
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.pod_gc_sync(key)
    }

    fn ticks(&self) -> &'static [&'static str] {
        &[QUARANTINE_TICK, CHECK_TICK]
    }

    fn tick(&self, c: &mut Cluster, tick: &Tick) {
        match &tick.key {
            Some(node) if tick.what == QUARANTINE_TICK => c.pod_gc_quarantine_ended(&node.name),
            _ => c.pod_gc_check(),
        }
    }
}

/// The quarantine of a node that no longer exists ends.
const QUARANTINE_TICK: &str = "pod gc quarantine";
/// The check of terminated pods (`gcCheckPeriod`).
const CHECK_TICK: &str = "pod gc check period";

fn quarantine_tick(node: &str) -> Tick {
    Tick::about(QUARANTINE_TICK, ObjectKey::new(Kind::Node, "", node), "")
}
/// `gcCheckPeriod`.
pub const GC_CHECK_PERIOD: SimDuration = SimDuration::secs(20);
/// `quarantineTime`: how long a node must be missing before its pods are orphans.
pub const QUARANTINE: SimDuration = SimDuration::secs(40);
/// kube-controller-manager's `--terminated-pod-gc-threshold` default.
pub const DEFAULT_TERMINATED_POD_GC_THRESHOLD: usize = 12_500;
/// The taint that lets the collector force-delete a dead node's terminating pods.
pub const OUT_OF_SERVICE_TAINT: &str = "node.kubernetes.io/out-of-service";

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PodGcState {
    /// Nodes whose quarantine timer is running.
    pub quarantined: BTreeSet<String>,
    /// Missing nodes whose quarantine has ended: their pods are orphans, collected
    /// all together (upstream's `gcOrphaned` deletes every pod of a node that is
    /// still missing after the quarantine in one pass). A node leaves the set when it
    /// exists again or has no pods left.
    #[serde(default)]
    pub orphaned: BTreeSet<String>,
    /// `--terminated-pod-gc-threshold` (0 turns the terminated-pod check off).
    pub terminated_threshold: usize,
    /// Whether a terminated-pod check is scheduled.
    pub check_armed: bool,
}

impl Default for PodGcState {
    fn default() -> Self {
        PodGcState {
            quarantined: BTreeSet::new(),
            orphaned: BTreeSet::new(),
            terminated_threshold: DEFAULT_TERMINATED_POD_GC_THRESHOLD,
            check_armed: false,
        }
    }
}

fn out_of_service(node: &Node) -> bool {
    node_ready_status(node) != "True"
        && node
            .spec
            .as_ref()
            .and_then(|s| s.taints.as_ref())
            .is_some_and(|t| t.iter().any(|t| t.key == OUT_OF_SERVICE_TAINT))
}

fn is_terminated(pod: &Pod) -> bool {
    matches!(
        pod.status.as_ref().and_then(|s| s.phase.as_deref()),
        Some("Succeeded") | Some("Failed")
    )
}

fn node_of(pod: &Pod) -> Option<&str> {
    pod.spec.as_ref().and_then(|s| s.node_name.as_deref())
}

impl Cluster {
    /// kube-controller-manager's `--terminated-pod-gc-threshold` (0 disables the
    /// terminated-pod collection).
    pub fn set_terminated_pod_gc_threshold(&mut self, threshold: usize) {
        self.controllers.pod_gc.terminated_threshold = threshold;
        self.arm_terminated_check();
    }

    fn pod_gc_observe_node(&mut self, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        let Object::Node(node) = &*ev.object else {
            return;
        };
        let name = node.metadata.name.clone().unwrap_or_default();
        if ev.event_type == EventType::Deleted {
            if self.store.pods_on_node(&name).next().is_some() {
                self.quarantine_node(&name);
            }
            return;
        }
        // The node exists (again): its pods are no longer orphans.
        self.controllers.pod_gc.orphaned.remove(&name);
        if out_of_service(node) {
            keys.push(ev.object.key());
        }
    }

    fn pod_gc_observe_pod(&mut self, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        let Object::Pod(pod) = &*ev.object else {
            return;
        };
        if ev.event_type == EventType::Deleted {
            return;
        }
        if is_terminated(pod) {
            self.arm_terminated_check();
        }
        match node_of(pod) {
            Some(node) => {
                let node_key = ObjectKey::new(Kind::Node, "", node);
                match self.store.get(&node_key) {
                    None if self.controllers.pod_gc.orphaned.contains(node) => {
                        keys.push(ev.object.key())
                    }
                    None => self.quarantine_node(node),
                    Some(Object::Node(n))
                        if pod.metadata.deletion_timestamp.is_some() && out_of_service(n) =>
                    {
                        keys.push(node_key)
                    }
                    _ => {}
                }
            }
            None if pod.metadata.deletion_timestamp.is_some() => keys.push(ev.object.key()),
            None => {}
        }
    }

    fn quarantine_node(&mut self, node: &str) {
        if self.controllers.pod_gc.orphaned.contains(node) {
            return;
        }
        if self.controllers.pod_gc.quarantined.insert(node.to_string()) {
            self.schedule_tick(ID, self.now + QUARANTINE, quarantine_tick(node));
        }
    }

    /// Schedules the terminated-pod check at the collector's next 20 s tick, when
    /// there are more terminated pods than the threshold.
    fn arm_terminated_check(&mut self) {
        let threshold = self.controllers.pod_gc.terminated_threshold;
        if self.controllers.pod_gc.check_armed
            || threshold == 0
            || self.store.terminated_pod_count() <= threshold
        {
            return;
        }
        self.controllers.pod_gc.check_armed = true;
        let period = GC_CHECK_PERIOD.as_millis();
        let next = (self.now.0 / period + 1) * period;
        self.schedule_tick(ID, SimTime(next), Tick::new(CHECK_TICK));
    }

    /// The quarantine of a missing node ended: if the node is still gone, its pods
    /// are orphans.
    fn pod_gc_quarantine_ended(&mut self, node: &str) {
        if !self.controller_manager_active() {
            // The collector is not running: it finds the orphans when it runs again.
            self.schedule_tick(ID, self.now + GC_CHECK_PERIOD, quarantine_tick(node));
            return;
        }
        self.controllers.pod_gc.quarantined.remove(node);
        if self
            .store
            .get(&ObjectKey::new(Kind::Node, "", node))
            .is_some()
        {
            return;
        }
        let pods: Vec<ObjectKey> = self.store.pods_on_node(node).cloned().collect();
        if pods.is_empty() {
            return;
        }
        self.controllers.pod_gc.orphaned.insert(node.to_string());
        for p in pods {
            self.enqueue(ID.component(), p);
        }
    }

    /// `gcTerminated`: deletes the oldest terminated pods above the threshold.
    fn pod_gc_check(&mut self) {
        self.controllers.pod_gc.check_armed = false;
        if !self.controller_manager_active() {
            self.controllers.pod_gc.check_armed = true;
            self.schedule_tick(ID, self.now + GC_CHECK_PERIOD, Tick::new(CHECK_TICK));
            return;
        }
        let threshold = self.controllers.pod_gc.terminated_threshold;
        let count = self.store.terminated_pod_count();
        if threshold == 0 || count <= threshold {
            return;
        }
        let victims: Vec<ObjectKey> = self
            .store
            .terminated_pods()
            .take(count - threshold)
            .cloned()
            .collect();
        for key in victims {
            let _ = self.delete_as(ACTOR, &key, Some(0));
        }
    }

    /// Collects what `key` names; a failed write brings the key back.
    fn pod_gc_sync(&mut self, key: &ObjectKey) -> Action {
        let mut failed = false;
        match key.kind {
            Kind::Node => {
                let Some(Object::Node(node)) = self.store.get(key) else {
                    return Action::Done;
                };
                if !out_of_service(node) {
                    return Action::Done;
                }
                let terminating: Vec<Pod> = self
                    .store
                    .pods_on_node(&key.name)
                    .filter_map(|k| self.store.get(k).and_then(Object::as_pod))
                    .filter(|p| p.metadata.deletion_timestamp.is_some())
                    .cloned()
                    .collect();
                for pod in terminating {
                    failed |= !self.mark_failed_and_delete(pod, None);
                }
            }
            Kind::Pod => {
                let Some(Object::Pod(pod)) = self.store.get(key).cloned() else {
                    return Action::Done;
                };
                match node_of(&pod) {
                    Some(node) => {
                        let missing = self
                            .store
                            .get(&ObjectKey::new(Kind::Node, "", node))
                            .is_none();
                        if !missing {
                            self.controllers.pod_gc.orphaned.remove(node);
                        }
                        let done = is_terminated(&pod) && pod.metadata.deletion_timestamp.is_some();
                        if missing && self.controllers.pod_gc.orphaned.contains(node) && !done {
                            let node = node.to_string();
                            let condition = PodCondition {
                                type_: "DisruptionTarget".into(),
                                status: "True".into(),
                                reason: Some("DeletionByPodGC".into()),
                                message: Some("PodGC: node no longer exists".into()),
                                last_transition_time: Some(self.now.to_k8s()),
                                ..Default::default()
                            };
                            failed |= !self.mark_failed_and_delete(*pod, Some(condition));
                            if self.store.pods_on_node(&node).next().is_none() {
                                self.controllers.pod_gc.orphaned.remove(&node);
                            }
                        }
                    }
                    None if pod.metadata.deletion_timestamp.is_some() => {
                        failed |= !self.mark_failed_and_delete(*pod, None);
                    }
                    None => {}
                }
            }
            _ => {}
        }
        if failed {
            Action::Requeue
        } else {
            Action::Done
        }
    }

    /// `markFailedAndDeletePodWithCondition`: a pod not yet terminal gets phase Failed
    /// (and the condition), then a delete with grace period 0. False when the status
    /// write failed.
    fn mark_failed_and_delete(&mut self, pod: Pod, condition: Option<PodCondition>) -> bool {
        let key = Object::Pod(Box::new(pod.clone())).key();
        if !is_terminated(&pod) {
            let mut updated = pod;
            updated.status.get_or_insert_with(Default::default).phase = Some("Failed".into());
            if let Some(c) = condition {
                super::set_pod_condition(&mut updated, c);
            }
            if self
                .update_as(ACTOR, Object::Pod(Box::new(updated)))
                .is_err()
            {
                return false;
            }
        }
        let _ = self.delete_as(ACTOR, &key, Some(0));
        true
    }
}
