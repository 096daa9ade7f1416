//! The registry of everything that runs beside the apiserver: the timers each
//! component schedules, the watchers the apiserver's fan-out feeds, and the work
//! queues the runtime drains. The controller manager's controllers have their own
//! registry (`controllers/manager.rs`, `CONTROLLERS`); the rest — the scheduler,
//! kubelets, the apiserver's own loops, kube-proxy and CoreDNS, the cloud and
//! ingress controllers, the traffic generator — register here.
//!
//! A component with timers of its own defines an enum of them in its module,
//! implements [`Timers`] for it (what each is called, whether it waits for the
//! control plane, what firing it does) and adds one line to `timers!` below. A
//! component that watches the apiserver adds one entry to [`WATCHERS`].
//! `cluster.rs` knows none of them: it pops the next timer and calls
//! [`Timer::fire`].

use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::controllers::manager::{ControllerId, Tick};
use crate::error::SimError;
use crate::object::ObjectKey;
use crate::store::WatchEvent;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A component that watches the apiserver and has a work queue.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Component {
    /// One of the controller manager's controllers (`controllers/manager.rs`).
    Controller(crate::controllers::manager::ControllerId),
    Scheduler,
    Kubelet(String),
}

impl Component {
    /// The name the component writes with (its user or controller name).
    pub fn actor(&self) -> Actor {
        match self {
            Component::Controller(id) => Actor::Controller(id.name()),
            Component::Scheduler => Actor::Scheduler,
            Component::Kubelet(n) => Actor::Kubelet(n.clone()),
        }
    }
}

/// One component's timers.
pub(crate) trait Timers: Sized {
    /// Every text [`Timers::describe`] gives, for reading causes back from a
    /// snapshot (`trace.rs`).
    const DESCRIPTIONS: &'static [&'static str];

    /// A short description for the trace ("lease renewal").
    fn describe(&self) -> &'static str;

    /// Whether the timer, due now, must wait until the control plane can serve it
    /// (`control_plane.rs` keeps it and fires it when the apiserver is back).
    fn held(&self, _c: &Cluster) -> bool {
        false
    }

    /// What happens when the timer fires.
    fn fire(self, c: &mut Cluster);
}

/// Declares [`Timer`]: the runtime's own timers, then one untagged variant per
/// component. Untagged, a component's timer is written to a snapshot as its own
/// enum writes it (`{"LeaseRenew":"zone-a"}`), so snapshots read back whichever
/// enum a variant lives in.
macro_rules! timers {
    ($($family:ident($ty:ty),)+) => {
        /// Things scheduled for a moment in simulated time.
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub(crate) enum Timer {
            /// Deliver pending watch events to a component and let it work its
            /// queue.
            Wake(Component),
            /// A controller's own timer: a monitor period, a resync, a deadline
            /// (`controllers/manager.rs`).
            Tick { id: ControllerId, tick: Tick },
            /// A key whose reconcile failed goes back on its controller's queue
            /// after a back-off (the work queue's rate limiter).
            Requeue { id: ControllerId, key: ObjectKey },
            /// The work queue's `AddAfter`: a controller asked to look at a key
            /// again at a known moment (a pod reaching minReadySeconds, a progress
            /// deadline, a Job's back-off, a finished Job's time to live).
            EnqueueAfter { id: ControllerId, key: ObjectKey },
            $(
                #[serde(untagged)]
                $family($ty),
            )+
        }

        $(
            impl From<$ty> for Timer {
                fn from(timer: $ty) -> Timer {
                    Timer::$family(timer)
                }
            }
        )+

        /// Every component's [`Timers::DESCRIPTIONS`].
        const COMPONENT_DESCRIPTIONS: &[&[&str]] = &[$(<$ty as Timers>::DESCRIPTIONS,)+];

        impl Timer {
            /// A short description for the trace.
            pub(crate) fn describe(&self) -> &'static str {
                match self {
                    Timer::Wake(_) => WATCH_DELIVERY,
                    Timer::Tick { tick, .. } => tick.what,
                    Timer::Requeue { .. } => RATE_LIMITED_REQUEUE,
                    Timer::EnqueueAfter { id, .. } => {
                        crate::controllers::manager::requeue_after_reason(*id)
                    }
                    $(Timer::$family(t) => t.describe(),)+
                }
            }

            /// Whether a component's timer must wait for the control plane (the
            /// runtime's own timers are judged in `control_plane.rs`).
            pub(crate) fn held(&self, c: &Cluster) -> bool {
                match self {
                    $(Timer::$family(t) => t.held(c),)+
                    _ => false,
                }
            }

            /// Fires the timer.
            pub(crate) fn fire(self, c: &mut Cluster) {
                match self {
                    Timer::Wake(component) => c.wake(component),
                    Timer::Tick { id, tick } => id.controller().tick(c, &tick),
                    Timer::Requeue { id, key } | Timer::EnqueueAfter { id, key } => {
                        c.enqueue(id.component(), key)
                    }
                    $(Timer::$family(t) => t.fire(c),)+
                }
            }
        }
    };
}

timers! {
    Kubelet(crate::kubelet::KubeletTimer),
    Scheduler(crate::scheduler::SchedulerTimer),
    Apiserver(crate::apiserver::ApiserverTimer),
    ControlPlane(crate::runtime::control_plane::ControlPlaneTimer),
    Proxy(crate::network::proxy::ProxyTimer),
    Cloud(crate::network::cloud::CloudTimer),
    Ingress(crate::network::ingress::IngressTimer),
    Traffic(crate::network::traffic::TrafficTimer),
}

const WATCH_DELIVERY: &str = "watch delivery";
const RATE_LIMITED_REQUEUE: &str = "rate-limited requeue";
/// The generic `EnqueueAfter` description (a controller may name its own).
const DELAYED_REQUEUE: &str = "delayed requeue";

impl Timer {
    /// The static description equal to `text`, if a timer (or a controller's tick
    /// or delayed requeue) has it.
    pub(crate) fn intern_description(text: &str) -> Option<&'static str> {
        [WATCH_DELIVERY, RATE_LIMITED_REQUEUE, DELAYED_REQUEUE]
            .into_iter()
            .chain(
                COMPONENT_DESCRIPTIONS
                    .iter()
                    .flat_map(|d| d.iter().copied()),
            )
            .find(|d| *d == text)
            .or_else(|| crate::controllers::manager::tick_name(text))
            .or_else(|| crate::controllers::manager::requeue_reason_named(text))
    }

    /// How many descriptions [`Timer::intern_description`] knows besides the
    /// controllers' own.
    #[cfg(test)]
    pub(crate) fn description_count() -> usize {
        3 + COMPONENT_DESCRIPTIONS
            .iter()
            .map(|d| d.len())
            .sum::<usize>()
    }
}

/// What watches the apiserver, in the order the fan-out delivers a write's event:
/// the node agents' and the edge's caches first, then the controllers, the
/// scheduler and the kubelets, then the apiserver's own `kubernetes` Service loop.
/// Each filters what it watches itself.
pub(crate) const WATCHERS: [fn(&mut Cluster, &WatchEvent); 7] = [
    Cluster::proxy_observe,
    Cluster::ingress_observe,
    Cluster::cloud_observe_service,
    Cluster::controllers_watch,
    Cluster::scheduler_watch,
    Cluster::kubelets_watch,
    Cluster::kubernetes_service_observe,
];

impl Cluster {
    /// Powers a node off: its kubelet and its kube-proxy stop, every container on
    /// it dies.
    pub(crate) fn power_off_node(&mut self, name: &str) -> Result<String, SimError> {
        let said = self.kill_node(name);
        self.proxy_node_stopped(name);
        said
    }

    /// Powers a killed node back on: its kubelet reports again and its kube-proxy
    /// lists what it missed.
    pub(crate) fn power_on_node(&mut self, name: &str) -> Result<String, SimError> {
        let said = self.restart_node(name);
        self.proxy_relist_unsynced();
        said
    }
}

impl Component {
    /// Works through the keys a component's queue held when it woke.
    pub(crate) fn work(self, c: &mut Cluster, keys: BTreeSet<ObjectKey>) {
        match self {
            Component::Controller(id) => c.work_controller_queue(id, keys),
            Component::Scheduler => c.schedule_pending(keys),
            Component::Kubelet(node) => {
                for k in keys {
                    c.begin_key(&k);
                    c.kubelet_sync_pod(&node, &k);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubelet::KubeletTimer;
    use crate::network::proxy::ProxyTimer;

    /// A component's timer is written as its own enum writes it, the runtime's with
    /// their tag, and each reads back as what was written: snapshots made before
    /// the timers moved into their components read the same.
    #[test]
    fn timers_are_written_as_their_component_writes_them() {
        let cases: [(Timer, &str); 4] = [
            (
                KubeletTimer::LeaseRenew("zone-a".into()).into(),
                r#"{"LeaseRenew":"zone-a"}"#,
            ),
            (ProxyTimer::ProxyDelivery.into(), r#""ProxyDelivery""#),
            (
                crate::apiserver::ApiserverTimer::KubernetesService.into(),
                r#""KubernetesService""#,
            ),
            (Timer::Wake(Component::Scheduler), r#"{"Wake":"Scheduler"}"#),
        ];
        for (timer, json) in cases {
            assert_eq!(serde_json::to_string(&timer).unwrap(), json);
            assert_eq!(serde_json::from_str::<Timer>(json).unwrap(), timer);
        }
        assert!(serde_json::from_str::<Timer>(r#""NoSuchTimer""#).is_err());
    }
}
