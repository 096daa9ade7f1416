//! The controller manager's runtime: the controllers it runs, how a watch event
//! becomes keys on their work queues, and how a queue is worked.
//!
//! A controller is a value implementing [`Controller`]: its event handlers
//! ([`Controller::watch`], upstream's `AddFunc`/`UpdateFunc`/`DeleteFunc` deciding
//! which keys to queue), its informers' initial list ([`Controller::relist`]) and
//! its `syncHandler` ([`Controller::reconcile`]), which returns an [`Action`] for
//! the key, as kube-runtime's reconcilers do. The runtime owns the rest: one work
//! queue per controller (a set of keys, so a key queued twice is synced once), the
//! watch delay before a queue is worked, the rate-limited requeue of a failed key
//! (`AddRateLimited`/`Forget`) and delayed requeues (`AddAfter`). A controller with a
//! loop of its own (a monitor period, a resync) asks for [`Tick`]s: the runtime keeps
//! them in the cluster's timer queue and hands each back to [`Controller::tick`].
//!
//! Adding a controller is one module and one line in [`CONTROLLERS`].

use crate::cluster::{Cluster, Component, Timer};
use crate::object::ObjectKey;
use crate::store::WatchEvent;
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The per-item back-off of upstream's `workqueue.DefaultTypedControllerRateLimiter`:
/// 5 ms after the first failure, doubling, at most 1000 s.
pub fn requeue_backoff(failures: u32) -> SimDuration {
    let ms = 5u64.saturating_mul(1u64 << failures.min(40));
    SimDuration::millis(ms.min(1_000_000))
}

/// What a reconcile asks of its work queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// The key is synced: its failure count starts afresh (`Forget`).
    Done,
    /// The sync failed: the key comes back after the rate limiter's back-off, longer
    /// with each failure in a row (`AddRateLimited`).
    Requeue,
}

impl Action {
    /// What a sync that made `writes` returns: `Requeue` if one failed, as upstream's
    /// reconcilers return their writes' first error. A write whose object is already
    /// gone (404) counts as done.
    pub(crate) fn after_writes(
        writes: impl IntoIterator<Item = Result<(), crate::error::ApiError>>,
    ) -> Action {
        let failed = writes
            .into_iter()
            .any(|w| w.is_err_and(|e| e.reason != crate::error::StatusReason::NotFound));
        if failed {
            Action::Requeue
        } else {
            Action::Done
        }
    }
}

/// One controller of the controller manager.
pub(crate) trait Controller: Sync {
    /// Its name: the user it writes as, and how the trace and the office name it.
    fn id(&self) -> ControllerId;

    /// The keys a watch event puts on its queue. May update the controller's own
    /// memory (its informer's view of the object).
    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>);

    /// The keys its informers' initial list queues when the controller manager
    /// (re)starts. Nothing by default.
    fn relist(&self, _c: &mut Cluster, _keys: &mut Vec<ObjectKey>) {}

    /// Looks at one key: reads the current state and writes through the apiserver.
    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action;

    /// How the trace names a delayed requeue ([`Cluster::enqueue_after`]) of this
    /// controller.
    fn requeue_after_reason(&self) -> &'static str {
        "delayed requeue"
    }

    /// Called once when the cluster is built: where a periodic loop starts.
    fn start(&self, _c: &mut Cluster) {}

    /// The names of the ticks this controller asks for ([`Cluster::schedule_tick`]),
    /// as the trace shows them.
    fn ticks(&self) -> &'static [&'static str] {
        &[]
    }

    /// A tick this controller asked for is due.
    fn tick(&self, _c: &mut Cluster, _tick: &Tick) {}

    /// What becomes of a due tick while the control plane is (partly) down. By
    /// default it fires: a tick's handler checks what it needs itself.
    fn hold(&self, _c: &Cluster, _tick: &Tick) -> Hold {
        Hold::Fire
    }
}

/// A controller's own timer: what it is for (one of [`Controller::ticks`]), and the
/// object and uid it concerns, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tick {
    pub what: &'static str,
    pub key: Option<ObjectKey>,
    pub uid: String,
}

impl Tick {
    pub(crate) fn new(what: &'static str) -> Tick {
        Tick {
            what,
            key: None,
            uid: String::new(),
        }
    }

    pub(crate) fn about(what: &'static str, key: ObjectKey, uid: &str) -> Tick {
        Tick {
            what,
            key: Some(key),
            uid: uid.to_string(),
        }
    }
}

/// What [`Controller::hold`] decides for a due tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hold {
    /// It fires now.
    Fire,
    /// It waits until the apiserver can be written again.
    Defer,
    /// It is dropped (the controller sets it again when it relists).
    Drop,
}

/// A [`Tick`] as a snapshot holds it.
#[derive(Serialize, Deserialize)]
struct FlatTick {
    what: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    key: Option<ObjectKey>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    uid: String,
}

impl Serialize for Tick {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        FlatTick {
            what: self.what.to_string(),
            key: self.key.clone(),
            uid: self.uid.clone(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Tick {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let flat = FlatTick::deserialize(d)?;
        let what = tick_name(&flat.what)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown tick {:?}", flat.what)))?;
        Ok(Tick {
            what,
            key: flat.key,
            uid: flat.uid,
        })
    }
}

/// The static name of a controller's tick equal to `text`.
pub(crate) fn tick_name(text: &str) -> Option<&'static str> {
    CONTROLLERS
        .iter()
        .flat_map(|c| c.ticks().iter().copied())
        .find(|t| *t == text)
}

/// Every controller the controller manager runs, in the order a watch event
/// reaches them.
pub(crate) static CONTROLLERS: &[&dyn Controller] = &[
    &super::job::JobController,
    &super::endpointslice::EndpointSliceController,
    &super::endpoints::EndpointsController,
    &super::replicaset::ReplicaSetController,
    &super::deployment::DeploymentController,
    &super::daemonset::DaemonSetController,
    &super::namespace::NamespaceController,
    &super::serviceaccount::ServiceAccountController,
    &super::garbage_collector::GarbageCollector,
    &super::resource_quota::ResourceQuotaController,
    &super::podgc::PodGarbageCollector,
    &super::node_lifecycle::NodeLifecycleController,
    &super::node_lifecycle::TaintEvictionController,
    &super::ttl_after_finished::TtlAfterFinishedController,
    &super::disruption::DisruptionController,
    &super::cronjob::CronJobController,
    &super::statefulset::StatefulSetController,
    &super::volume::VolumeBinder,
    &super::local_path::LocalPathProvisioner,
    &super::protection::PvcProtection,
    &super::protection::PvProtection,
    &super::hpa::HorizontalPodAutoscaler,
    &super::crd::DefinitionController,
    &super::gateway::GatewayController,
    #[cfg(test)]
    &super::echo::EchoController,
];

/// A controller, by the name it writes with (`replicaset-controller`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ControllerId(&'static str);

impl ControllerId {
    pub(crate) const fn new(name: &'static str) -> ControllerId {
        ControllerId(name)
    }

    /// The controller's name, as its requests and the trace show it.
    pub const fn name(self) -> &'static str {
        self.0
    }

    /// The component whose queue is this controller's.
    pub(crate) const fn component(self) -> Component {
        Component::Controller(self)
    }

    /// The registered controller of this name.
    pub(crate) fn controller(self) -> &'static dyn Controller {
        CONTROLLERS
            .iter()
            .copied()
            .find(|c| c.id() == self)
            .expect("a ControllerId names a registered controller")
    }
}

impl Serialize for ControllerId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for ControllerId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        CONTROLLERS
            .iter()
            .map(|c| c.id())
            .find(|id| id.0 == name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown controller {name:?}")))
    }
}

impl Cluster {
    /// Hands a watch event to every controller, queueing the keys each asks for.
    pub(crate) fn controllers_watch(&mut self, ev: &WatchEvent) {
        let mut keys = Vec::new();
        for controller in CONTROLLERS.iter() {
            controller.watch(self, ev, &mut keys);
            for key in keys.drain(..) {
                self.enqueue(controller.id().component(), key);
            }
        }
    }

    /// The informers' initial list of a (re)started controller manager.
    pub(crate) fn controllers_relist(&mut self) {
        let mut keys = Vec::new();
        for controller in CONTROLLERS.iter() {
            controller.relist(self, &mut keys);
            for key in keys.drain(..) {
                self.enqueue(controller.id().component(), key);
            }
        }
    }

    /// Works `keys`, taken off the controller's queue, one reconcile each.
    pub(crate) fn work_controller_queue(
        &mut self,
        id: ControllerId,
        keys: impl IntoIterator<Item = ObjectKey>,
    ) {
        let controller = id.controller();
        for key in keys {
            self.begin_key(&key);
            match controller.reconcile(self, &key) {
                Action::Done => self.forget_failures(id, &key),
                Action::Requeue => self.requeue_rate_limited(id, key),
            }
        }
    }

    /// The work queue's `AddRateLimited`: a key whose reconcile failed comes back
    /// after its back-off, longer with each failure in a row.
    fn requeue_rate_limited(&mut self, id: ControllerId, key: ObjectKey) {
        let failures = self
            .controllers
            .failures
            .entry((id, key.clone()))
            .or_insert(0);
        let delay = requeue_backoff(*failures);
        *failures = failures.saturating_add(1);
        self.schedule(self.now + delay, Timer::Requeue { id, key });
    }

    /// The work queue's `Forget`: a key that synced starts its back-off afresh.
    fn forget_failures(&mut self, id: ControllerId, key: &ObjectKey) {
        if !self.controllers.failures.is_empty() {
            self.controllers.failures.remove(&(id, key.clone()));
        }
    }

    /// Every controller's [`Controller::start`], when the cluster is built.
    pub(crate) fn start_controllers(&mut self) {
        for controller in CONTROLLERS.iter() {
            controller.start(self);
        }
    }

    /// Schedules one of the controller's own ticks for `at`.
    pub(crate) fn schedule_tick(&mut self, id: ControllerId, at: SimTime, tick: Tick) {
        debug_assert!(id.controller().ticks().contains(&tick.what));
        self.schedule(at, Timer::Tick { id, tick });
    }

    /// The work queue's `AddAfter`: the controller looks at `key` again at `at`.
    pub(crate) fn enqueue_after(&mut self, id: ControllerId, key: ObjectKey, at: SimTime) {
        self.schedule(at, Timer::EnqueueAfter { id, key });
    }
}

/// The static name of a controller's delayed requeue equal to `text`.
pub(crate) fn requeue_reason_named(text: &str) -> Option<&'static str> {
    CONTROLLERS
        .iter()
        .map(|c| c.requeue_after_reason())
        .find(|t| *t == text)
}

/// How the trace names a delayed requeue of `id`.
pub(crate) fn requeue_after_reason(id: ControllerId) -> &'static str {
    id.controller().requeue_after_reason()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controller_names_are_unique_and_round_trip() {
        let mut names: Vec<&str> = CONTROLLERS.iter().map(|c| c.id().name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), CONTROLLERS.len());
        for c in CONTROLLERS.iter() {
            let json = serde_json::to_string(&c.id()).unwrap();
            let back: ControllerId = serde_json::from_str(&json).unwrap();
            assert_eq!(back, c.id());
        }
        assert!(serde_json::from_str::<ControllerId>("\"no-such-controller\"").is_err());
    }
}
