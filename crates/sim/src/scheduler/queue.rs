//! The scheduling queue (pkg/scheduler/internal/queue/scheduling_queue.go): the
//! activeQ is the scheduler's work queue (popped in PrioritySort order by
//! `schedule_pending`); a pod that does not fit waits in `unschedulable` until a
//! cluster event that may help it (a node added, or updated in what the filters read;
//! an assigned pod deleted or finished; an assigned pod added or relabelled, for a
//! pod PodTopologySpread or InterPodAffinity rejected; the pod itself updated), or for at most
//! [`MAX_IN_UNSCHEDULABLE`]. A moved pod whose back-off (1 s after the first failed
//! attempt, doubling, at most 10 s) has not run out waits in `backoff` first.
//!
//! Simplifications: upstream's QueueingHints (each plugin judging whether an event
//! can help) are reduced to the event kinds above, and the unschedulable pods are
//! flushed by one timer each at exactly 5 minutes instead of a 30 s sweep.

use crate::cluster::{Cluster, Component};
use crate::object::ObjectKey;
use crate::time::{SimDuration, SimTime};
use std::collections::BTreeMap;

/// `podInitialBackoffDuration`.
pub const INITIAL_BACKOFF: SimDuration = SimDuration::secs(1);
/// `podMaxBackoffDuration`.
pub const MAX_BACKOFF: SimDuration = SimDuration::secs(10);
/// `podMaxInUnschedulablePodsDuration`.
pub const MAX_IN_UNSCHEDULABLE: SimDuration = SimDuration::secs(300);

/// A pod's history in the queue.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct QueuedPod {
    /// Failed attempts so far.
    pub attempts: u32,
    pub last_attempt: SimTime,
    /// Whether its latest attempt failed on a plugin an assigned pod's arrival may
    /// satisfy (PodTopologySpread, InterPodAffinity).
    #[serde(default)]
    pub waits_for_pods: bool,
}

#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct SchedulingQueue {
    /// unschedulablePods: pod → since when.
    #[serde(with = "crate::snapshot::pairs")]
    unschedulable: BTreeMap<ObjectKey, SimTime>,
    /// backoffQ: pod → when its back-off ends.
    #[serde(with = "crate::snapshot::pairs")]
    backoff: BTreeMap<ObjectKey, SimTime>,
    #[serde(with = "crate::snapshot::pairs")]
    pods: BTreeMap<ObjectKey, QueuedPod>,
    /// The nominator: pods that preempted others, with the node they wait for
    /// (`status.nominatedNodeName`).
    #[serde(default, with = "crate::snapshot::pairs")]
    nominated: BTreeMap<ObjectKey, NominatedPod>,
}

/// A pod nominated to a node, with what it will take there.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct NominatedPod {
    pub node: String,
    pub priority: i32,
    pub requests: super::plugins::Resources,
}

/// The back-off after `attempts` failed attempts.
pub fn backoff_duration(attempts: u32) -> SimDuration {
    let ms = INITIAL_BACKOFF
        .as_millis()
        .saturating_mul(1u64 << attempts.saturating_sub(1).min(20));
    SimDuration::millis(ms.min(MAX_BACKOFF.as_millis()))
}

impl SchedulingQueue {
    pub fn is_parked(&self, key: &ObjectKey) -> bool {
        self.unschedulable.contains_key(key) || self.backoff.contains_key(key)
    }
    pub fn is_unschedulable(&self, key: &ObjectKey) -> bool {
        self.unschedulable.contains_key(key)
    }
    pub fn attempts(&self, key: &ObjectKey) -> u32 {
        self.pods.get(key).map_or(0, |p| p.attempts)
    }
    /// The pod was bound or deleted: it leaves every queue, and the nominator.
    pub fn forget(&mut self, key: &ObjectKey) {
        self.unschedulable.remove(key);
        self.backoff.remove(key);
        self.pods.remove(key);
        self.nominated.remove(key);
    }
    /// Nominates a pod to a node, or (`None`) takes its nomination away.
    pub fn nominate(&mut self, key: &ObjectKey, to: Option<NominatedPod>) {
        match to {
            Some(n) => {
                self.nominated.insert(key.clone(), n);
            }
            None => {
                self.nominated.remove(key);
            }
        }
    }
    /// The pods nominated to a node.
    pub fn nominated_to<'a>(
        &'a self,
        node: &'a str,
    ) -> impl Iterator<Item = (&'a ObjectKey, &'a NominatedPod)> + 'a {
        self.nominated.iter().filter(move |(_, p)| p.node == node)
    }
    /// Pods waiting in unschedulablePods and in the backoffQ.
    pub fn parked(&self) -> (Vec<ObjectKey>, Vec<ObjectKey>) {
        (
            self.unschedulable.keys().cloned().collect(),
            self.backoff.keys().cloned().collect(),
        )
    }
    fn backoff_end(&self, key: &ObjectKey) -> SimTime {
        match self.pods.get(key) {
            Some(p) if p.attempts > 0 => p.last_attempt + backoff_duration(p.attempts),
            _ => SimTime(0),
        }
    }
}

impl Cluster {
    /// A failed attempt: the pod goes to unschedulablePods, with a timer for the
    /// 5-minute flush.
    pub(crate) fn scheduler_park(&mut self, key: &ObjectKey, waits_for_pods: bool) {
        let now = self.now;
        let q = &mut self.scheduler.queue;
        let p = q.pods.entry(key.clone()).or_default();
        p.attempts = p.attempts.saturating_add(1);
        p.last_attempt = now;
        p.waits_for_pods = waits_for_pods;
        q.backoff.remove(key);
        q.unschedulable.insert(key.clone(), now);
        self.schedule(
            now + MAX_IN_UNSCHEDULABLE,
            SchedulerTimer::SchedulerFlush {
                pod: key.clone(),
                since: now,
            },
        );
    }

    /// `movePodsToActiveOrBackoffQueue` for every unschedulable pod.
    pub(crate) fn scheduler_move_all(&mut self) {
        let keys: Vec<ObjectKey> = self.scheduler.queue.unschedulable.keys().cloned().collect();
        for k in keys {
            self.scheduler_move_one(&k);
        }
    }

    /// AssignedPodAdd and a label update of an assigned pod: the unschedulable pods
    /// that PodTopologySpread or InterPodAffinity rejected are moved.
    pub(crate) fn scheduler_move_waiting_for_pods(&mut self) {
        let q = &self.scheduler.queue;
        let keys: Vec<ObjectKey> = q
            .unschedulable
            .keys()
            .filter(|k| q.pods.get(*k).is_some_and(|p| p.waits_for_pods))
            .cloned()
            .collect();
        for k in keys {
            self.scheduler_move_one(&k);
        }
    }

    /// Moves one unschedulable pod to the activeQ, or to the backoffQ while its
    /// back-off lasts.
    pub(crate) fn scheduler_move_one(&mut self, key: &ObjectKey) {
        let q = &mut self.scheduler.queue;
        if q.unschedulable.remove(key).is_none() {
            return;
        }
        let end = q.backoff_end(key);
        if end > self.now {
            q.backoff.insert(key.clone(), end);
            self.schedule(end, SchedulerTimer::SchedulerBackoff(key.clone()));
        } else {
            self.enqueue(Component::Scheduler, key.clone());
        }
    }

    /// A back-off ended: the pod goes to the activeQ.
    pub(crate) fn scheduler_backoff_done(&mut self, key: &ObjectKey) {
        let q = &mut self.scheduler.queue;
        if q.backoff.get(key).is_some_and(|end| *end <= self.now) {
            q.backoff.remove(key);
            self.enqueue(Component::Scheduler, key.clone());
        }
    }

    /// `flushUnschedulablePodsLeftover`: a pod unschedulable for 5 minutes is moved
    /// whatever happened meanwhile.
    pub(crate) fn scheduler_flush(&mut self, key: &ObjectKey, since: SimTime) {
        if self.scheduler.queue.unschedulable.get(key) == Some(&since) {
            self.scheduler_move_one(key);
        }
    }

    /// The pods the scheduler holds back: (unschedulable, backing off).
    pub fn scheduler_parked_pods(&self) -> (Vec<ObjectKey>, Vec<ObjectKey>) {
        self.scheduler.queue.parked()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_ten_seconds() {
        let s: Vec<u64> = (1..=6).map(|a| backoff_duration(a).as_secs()).collect();
        assert_eq!(s, vec![1, 2, 4, 8, 10, 10]);
    }
}

/// The scheduling queue's timers.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum SchedulerTimer {
    /// A pod unschedulable since `since` goes back to the scheduling queue
    /// (`podMaxInUnschedulablePodsDuration`).
    SchedulerFlush { pod: ObjectKey, since: SimTime },
    /// A pod's scheduling back-off ends: from the backoffQ to the activeQ.
    SchedulerBackoff(ObjectKey),
}

impl crate::runtime::components::Timers for SchedulerTimer {
    const DESCRIPTIONS: &'static [&'static str] =
        &["unschedulable pods flush", "pod scheduling backoff"];

    fn describe(&self) -> &'static str {
        match self {
            SchedulerTimer::SchedulerFlush { .. } => Self::DESCRIPTIONS[0],
            SchedulerTimer::SchedulerBackoff(_) => Self::DESCRIPTIONS[1],
        }
    }

    fn fire(self, c: &mut Cluster) {
        match self {
            SchedulerTimer::SchedulerFlush { pod, since } => c.scheduler_flush(&pod, since),
            SchedulerTimer::SchedulerBackoff(pod) => c.scheduler_backoff_done(&pod),
        }
    }
}
