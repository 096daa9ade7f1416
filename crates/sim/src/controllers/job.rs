//! The Job controller. Mirrors `syncJob`, `manageJob` and
//! `trackJobStatusAndRemoveFinalizers` in pkg/controller/job/job_controller.go (v1.31+
//! behaviour, with JobPodReplacementPolicy and JobSuccessPolicy on):
//!
//! - pods are created with the `batch.kubernetes.io/job-tracking` finalizer; a finished
//!   pod goes into `status.uncountedTerminatedPods`, loses its finalizer, then moves
//!   into the `succeeded` / `failed` counters;
//! - never more active pods than `parallelism`, never more than the remaining
//!   completions; a failed pod is replaced after the pod failure back-off
//!   (10 s doubling, at most 10 min: `DefaultJobPodFailureBackOff`,
//!   `MaxJobPodFailureBackOff`, pkg/controller/job/backoff_utils.go);
//! - more failures than `backoffLimit` (or, with restartPolicy OnFailure, as many
//!   container restarts) or `activeDeadlineSeconds` passed: the interim `FailureTarget`
//!   condition, active pods deleted, and `Failed` once no pod is terminating; enough
//!   successes: `SuccessCriteriaMet`, then `Complete` with `completionTime`;
//! - `suspend` deletes the active pods and sets the `Suspended` condition;
//! - Indexed completion mode: one pod per pending index, with the
//!   `batch.kubernetes.io/job-completion-index` annotation and label, the hostname
//!   `<job>-<index>` and the `JOB_COMPLETION_INDEX` variable; `completedIndexes`.
//!
//! Simplified: pods are found by their controller reference only (no adoption or
//! release through the selector); surplus pods are removed not-ready first, then
//! newest first (upstream ranks them as the ReplicaSet controller does); pod failure
//! policies, success policies, per-index back-off limits, `managedBy` and elastic
//! indexed Jobs are not simulated (kubectl warns when a Job sets them).

use super::manager::{Action, Controller, ControllerId};
use super::{pod_is_active, pod_is_ready};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::{CollectSet, StableSort};
use crate::store::{EventType, WatchEvent};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::batch::v1::{Job, JobCondition, UncountedTerminatedPods};
use k8s_openapi::api::core::v1::{EnvVar, EnvVarSource, ObjectFieldSelector, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference};
use std::collections::BTreeSet;

pub(crate) const ID: ControllerId = ControllerId::new("job-controller");
const ACTOR: Actor = Actor::Controller(ID.name());

/// The Job controller: Jobs, and the pods a Job owns or that still hold its
/// tracking finalizer.
pub(crate) struct JobController;

impl Controller for JobController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        match &*ev.object {
            Object::Job(_) => keys.push(ev.object.key()),
            Object::Pod(_) => keys.extend(c.job_controller_observe_pod(ev)),
            _ => {}
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(c.store.list(Kind::Job, None).map(Object::key));
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.sync_job(key)
    }

    fn requeue_after_reason(&self) -> &'static str {
        "job requeue after"
    }
}
const SOURCE: &str = "job-controller";

/// The finalizer that keeps a Job's pod until the controller has counted it.
pub const JOB_TRACKING_FINALIZER: &str = "batch.kubernetes.io/job-tracking";
/// The label the generated selector matches (`batch.ControllerUidLabel`).
pub const CONTROLLER_UID_LABEL: &str = "batch.kubernetes.io/controller-uid";
/// `batch.JobNameLabel`.
pub const JOB_NAME_LABEL: &str = "batch.kubernetes.io/job-name";
/// The pre-1.27 labels, still added (`LegacyControllerUidLabel`, `LegacyJobNameLabel`).
pub const LEGACY_CONTROLLER_UID_LABEL: &str = "controller-uid";
pub const LEGACY_JOB_NAME_LABEL: &str = "job-name";
/// An Indexed Job pod's index, as an annotation and a label.
pub const COMPLETION_INDEX_KEY: &str = "batch.kubernetes.io/job-completion-index";
/// `DefaultJobPodFailureBackOff`.
pub const POD_FAILURE_BACKOFF: SimDuration = SimDuration::secs(10);
/// `MaxJobPodFailureBackOff`.
pub const MAX_POD_FAILURE_BACKOFF: SimDuration = SimDuration::secs(600);
/// `MaxPodCreateDeletePerSync`.
pub const MAX_POD_CREATE_DELETE_PER_SYNC: usize = 500;
/// `MaxUncountedPods`: at most this many pods are counted per sync.
pub const MAX_UNCOUNTED_PODS: usize = 500;

/// The pod failure back-off of one Job (upstream `backoffRecord`): failures since the
/// last success and when the last one happened.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BackoffRecord {
    pub failures_after_last_success: u32,
    pub last_failure: Option<SimTime>,
}

impl BackoffRecord {
    /// `getRemainingTime`: how long before a replacement pod may be created.
    pub fn remaining(&self, now: SimTime) -> SimDuration {
        let Some(last) = self.last_failure else {
            return SimDuration::ZERO;
        };
        if self.failures_after_last_success == 0 {
            return SimDuration::ZERO;
        }
        let backoff = pod_failure_backoff(self.failures_after_last_success);
        let elapsed = now.since(last);
        if backoff.as_millis() <= elapsed.as_millis() {
            SimDuration::ZERO
        } else {
            SimDuration::millis(backoff.as_millis() - elapsed.as_millis())
        }
    }
}

/// The back-off after `failures` consecutive failures: 10 s, 20 s, 40 s, … at most
/// 10 min.
pub fn pod_failure_backoff(failures: u32) -> SimDuration {
    let mut ms = POD_FAILURE_BACKOFF.as_millis();
    for _ in 1..failures {
        ms = ms.saturating_mul(2);
        if ms >= MAX_POD_FAILURE_BACKOFF.as_millis() {
            return MAX_POD_FAILURE_BACKOFF;
        }
    }
    SimDuration::millis(ms.min(MAX_POD_FAILURE_BACKOFF.as_millis()))
}

/// The Job strategy's `generateSelector`: unless `manualSelector` is true, the pod
/// template gets the job-name and controller-uid labels (new and legacy keys) and the
/// selector matches `batch.kubernetes.io/controller-uid`.
pub(crate) fn generate_selector(job: &mut Job, uid: &str) {
    let name = job.metadata.name.clone().unwrap_or_default();
    let Some(spec) = job.spec.as_mut() else {
        return;
    };
    if spec.manual_selector == Some(true) {
        return;
    }
    let labels = spec
        .template
        .metadata
        .get_or_insert_with(Default::default)
        .labels
        .get_or_insert_with(Default::default);
    for key in [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL] {
        labels.entry(key.into()).or_insert_with(|| name.clone());
    }
    for key in [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL] {
        labels.entry(key.into()).or_insert_with(|| uid.to_string());
    }
    spec.selector
        .get_or_insert_with(LabelSelector::default)
        .match_labels
        .get_or_insert_with(Default::default)
        .entry(CONTROLLER_UID_LABEL.into())
        .or_insert_with(|| uid.to_string());
}

fn has_condition(job: &Job, type_: &str) -> bool {
    condition(job, type_).is_some_and(|c| c.status == "True")
}

fn condition<'a>(job: &'a Job, type_: &str) -> Option<&'a JobCondition> {
    job.status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == type_)
}

/// `IsJobFinished`: a Complete or Failed condition is True.
pub fn job_finished(job: &Job) -> bool {
    has_condition(job, "Complete") || has_condition(job, "Failed")
}

fn has_finalizer(pod: &Pod) -> bool {
    pod.metadata
        .finalizers
        .iter()
        .flatten()
        .any(|f| f == JOB_TRACKING_FINALIZER)
}

fn phase(pod: &Pod) -> Option<&str> {
    pod.status.as_ref().and_then(|s| s.phase.as_deref())
}

fn uid_of(pod: &Pod) -> String {
    pod.metadata.uid.clone().unwrap_or_default()
}

/// `isPodFailed` with podReplacementPolicy TerminatingOrFailed: Failed, or being
/// deleted without having succeeded (so orphaned pods count as failures).
fn is_pod_failed(pod: &Pod, only_failed: bool) -> bool {
    match phase(pod) {
        Some("Failed") => true,
        _ if only_failed => false,
        Some("Succeeded") => false,
        _ => pod.metadata.deletion_timestamp.is_some(),
    }
}

/// `controller.CountTerminatingPods`: being deleted and not yet terminal.
fn is_terminating(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some()
        && !matches!(phase(pod), Some("Succeeded") | Some("Failed"))
}

/// `getFinishedTime`: the latest container finish, else the time Ready went False,
/// else the deletion timestamp, else `now`.
fn finished_time(pod: &Pod, now: SimTime) -> SimTime {
    let status = pod.status.as_ref();
    let containers = status
        .and_then(|s| s.container_statuses.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|c| c.state.as_ref()?.terminated.as_ref()?.finished_at.as_ref())
        .map(SimTime::from_k8s)
        .max();
    containers
        .or_else(|| {
            super::pod_condition(pod, "Ready")
                .filter(|c| c.status == "False")
                .and_then(|c| c.last_transition_time.as_ref())
                .map(SimTime::from_k8s)
        })
        .or_else(|| {
            pod.metadata
                .deletion_timestamp
                .as_ref()
                .map(SimTime::from_k8s)
        })
        .unwrap_or(now)
}

fn completion_index(pod: &Pod) -> Option<i32> {
    pod.metadata
        .annotations
        .as_ref()?
        .get(COMPLETION_INDEX_KEY)?
        .parse()
        .ok()
        .filter(|i: &i32| *i >= 0)
}

/// Formats indexes as upstream's `completedIndexes`: ranges joined by commas
/// (`0-2,4`).
pub fn format_indexes(indexes: &BTreeSet<i32>) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut iter = indexes.iter().copied().peekable();
    while let Some(start) = iter.next() {
        let mut end = start;
        while iter.peek() == Some(&(end + 1)) {
            end += 1;
            iter.next();
        }
        out.push(if end == start {
            start.to_string()
        } else if end == start + 1 {
            format!("{start},{end}")
        } else {
            format!("{start}-{end}")
        });
    }
    out.join(",")
}

/// Parses `completedIndexes` back (bad text counts as no index).
fn parse_indexes(text: &str, completions: i32) -> BTreeSet<i32> {
    let mut out = BTreeSet::new();
    for part in text.split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.parse::<i32>(), b.parse::<i32>()) {
            for i in a.max(0)..=b.min(completions - 1) {
                out.insert(i);
            }
        }
    }
    out
}

fn new_condition(type_: &str, reason: &str, message: &str, now: SimTime) -> JobCondition {
    JobCondition {
        type_: type_.into(),
        status: "True".into(),
        reason: Some(reason.into()),
        message: Some(message.into()),
        last_probe_time: Some(now.to_k8s()),
        last_transition_time: Some(now.to_k8s()),
    }
}

/// `ensureJobConditionStatus`: sets a condition's status, reason and message, adding it
/// when missing (only when its status is True); returns whether anything changed.
fn ensure_condition(
    conditions: &mut Vec<JobCondition>,
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
    now: SimTime,
) -> bool {
    match conditions.iter_mut().find(|c| c.type_ == type_) {
        Some(c) => {
            if c.status == status
                && c.reason.as_deref() == Some(reason)
                && c.message.as_deref() == Some(message)
            {
                return false;
            }
            if c.status != status {
                c.last_transition_time = Some(now.to_k8s());
            }
            c.status = status.into();
            c.reason = Some(reason.into());
            c.message = Some(message.into());
            c.last_probe_time = Some(now.to_k8s());
            true
        }
        None if status == "True" => {
            let mut c = new_condition(type_, reason, message, now);
            c.status = status.into();
            conditions.push(c);
            true
        }
        None => false,
    }
}

/// What a sync counted, for [`Cluster::track_job_status`].
struct Tally<'a> {
    pods: &'a [Pod],
    uncounted: UncountedTerminatedPods,
    only_failed: bool,
    indexed: bool,
    completions: i32,
    succeeded_indexes: BTreeSet<i32>,
    succeeded: i32,
    active: i32,
    ready: i32,
    terminating: i32,
    new_backoff: Option<BackoffRecord>,
}

/// Pods that finished since the last sync: still holding the finalizer and not yet
/// in the uncounted lists; succeeded ones and failed ones, each by finish time.
fn newly_finished<'a>(
    pods: &'a [Pod],
    uncounted: &UncountedTerminatedPods,
    only_failed: bool,
    now: SimTime,
) -> (Vec<&'a Pod>, Vec<&'a Pod>) {
    let set =
        |l: &Option<Vec<String>>| -> BTreeSet<String> { l.iter().flatten().cloned().collect_set() };
    let (uncounted_succeeded, uncounted_failed) =
        (set(&uncounted.succeeded), set(&uncounted.failed));
    let mut succeeded: Vec<&Pod> = pods
        .iter()
        .filter(|p| {
            phase(p) == Some("Succeeded")
                && has_finalizer(p)
                && !uncounted_succeeded.contains(&uid_of(p))
        })
        .collect();
    let mut failed: Vec<&Pod> = pods
        .iter()
        .filter(|p| {
            is_pod_failed(p, only_failed)
                && has_finalizer(p)
                && !uncounted_failed.contains(&uid_of(p))
        })
        .collect();
    succeeded.stable_sort_by_key(|p| finished_time(p, now));
    failed.stable_sort_by_key(|p| finished_time(p, now));
    (succeeded, failed)
}

/// An Indexed Job's succeeded indexes: the ones its status records, plus those of
/// pods that succeeded since.
fn succeeded_indexes(recorded: &str, pods: &[Pod], completions: i32) -> BTreeSet<i32> {
    let mut indexes = parse_indexes(recorded, completions);
    for p in pods.iter().filter(|p| phase(p) == Some("Succeeded")) {
        if let Some(i) = completion_index(p).filter(|i| *i < completions) {
            indexes.insert(i);
        }
    }
    indexes
}

/// What one sync decided the Job's end to be.
struct Finished {
    /// `Complete` or `Failed` (the terminal type).
    terminal: &'static str,
    reason: String,
    message: String,
    /// The interim condition to add first (`SuccessCriteriaMet` / `FailureTarget`),
    /// when the Job does not have it yet.
    interim: Option<&'static str>,
}

impl Cluster {
    /// The Job controller's pod event handlers: a pod's change wakes the Job that
    /// controls it; a pod that still has the tracking finalizer but whose Job is gone
    /// (or that lost its owner reference) is queued itself, so the finalizer is removed
    /// (upstream `enqueueOrphanPod` / `handleOrphanPod`).
    fn job_controller_observe_pod(&self, ev: &WatchEvent) -> Option<ObjectKey> {
        let Object::Pod(pod) = &*ev.object else {
            return None;
        };
        let owner = pod
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|r| r.controller == Some(true) && r.kind == "Job");
        let job_key = owner.map(|o| ObjectKey::new(Kind::Job, ev.object.namespace(), &o.name));
        let owner_alive = match (owner, &job_key) {
            (Some(o), Some(k)) => self
                .store
                .get(k)
                .is_some_and(|j| j.meta().uid.as_deref() == Some(o.uid.as_str())),
            _ => false,
        };
        if let (true, Some(k)) = (owner_alive, job_key) {
            Some(k)
        } else if ev.event_type != EventType::Deleted && has_finalizer(pod) {
            // An orphan (its Job deleted, or orphaned by `--cascade=orphan`) still
            // holding the finalizer.
            Some(ev.object.key())
        } else {
            None
        }
    }

    /// `queue.AddAfter` for a Job: a pending requeue at the same time or earlier makes
    /// another unnecessary (the delaying queue keeps the earliest).
    fn job_requeue_after(&mut self, key: &ObjectKey, at: SimTime) {
        if self
            .controllers
            .job_requeue
            .get(key)
            .is_some_and(|t| *t <= at && *t >= self.now)
        {
            return;
        }
        self.controllers.job_requeue.insert(key.clone(), at);
        self.enqueue_after(ID, key.clone(), at);
    }

    /// Removes the tracking finalizer from a pod whose Job no longer exists.
    fn release_orphan_pod(&mut self, key: &ObjectKey) {
        let Some(Object::Pod(pod)) = self.store.get(key).cloned() else {
            return;
        };
        if !has_finalizer(&pod) {
            return;
        }
        let owner_alive = pod
            .metadata
            .owner_references
            .iter()
            .flatten()
            .filter(|r| r.controller == Some(true) && r.kind == "Job")
            .any(|r| self.store.by_uid(&r.uid).is_some());
        if !owner_alive {
            self.remove_tracking_finalizer(&pod);
        }
    }

    /// Removes the tracking finalizer from the pod as stored now. Returns whether the
    /// pod no longer holds it.
    fn remove_tracking_finalizer(&mut self, pod: &Pod) -> bool {
        let key = Object::Pod(Box::new(pod.clone())).key();
        let Some(Object::Pod(live)) = self.store.get(&key).cloned() else {
            return true;
        };
        if live.metadata.uid != pod.metadata.uid || !has_finalizer(&live) {
            return true;
        }
        let mut updated = live;
        let finalizers: Vec<String> = updated
            .metadata
            .finalizers
            .take()
            .unwrap_or_default()
            .into_iter()
            .filter(|f| f != JOB_TRACKING_FINALIZER)
            .collect();
        updated.metadata.finalizers = (!finalizers.is_empty()).then_some(finalizers);
        match self.update_as(ACTOR, Object::Pod(updated)) {
            Ok(_) => true,
            // A pod already gone has no finalizer left to remove.
            Err(e) => e.reason == crate::error::StatusReason::NotFound,
        }
    }

    fn sync_job(&mut self, key: &ObjectKey) -> Action {
        if self
            .controllers
            .job_requeue
            .get(key)
            .is_some_and(|t| *t <= self.now)
        {
            self.controllers.job_requeue.remove(key);
        }
        if key.kind == Kind::Pod {
            self.release_orphan_pod(key);
            return Action::Done;
        }
        let Some(Object::Job(mut job)) = self.store.get(key).cloned() else {
            return Action::Done;
        };
        let uid = job.metadata.uid.clone().unwrap_or_default();
        let only_failed = job
            .spec
            .as_ref()
            .and_then(|s| s.pod_replacement_policy.as_deref())
            == Some("Failed");
        if job_finished(&job) {
            self.controllers.job_backoff.remove(&uid);
            return Action::Done;
        }
        let Some(spec) = job.spec.clone() else {
            return Action::Done;
        };
        let mut action = Action::Done;
        let now = self.now;
        let job_obj = Object::Job(job.clone());
        let suspended = spec.suspend == Some(true);
        let indexed = spec.completion_mode.as_deref() == Some("Indexed");
        let completions = spec.completions;
        let pods: Vec<Pod> = self.owned_pods(&uid).cloned().collect();
        let status = job.status.get_or_insert_with(Default::default);
        let uncounted = status.uncounted_terminated_pods.clone().unwrap_or_default();
        let active_pods: Vec<&Pod> = pods.iter().filter(|p| pod_is_active(p)).collect();
        let mut terminating = pods.iter().filter(|p| is_terminating(p)).count() as i32;
        let mut active = active_pods.len() as i32;
        let mut ready = active_pods.iter().filter(|p| pod_is_ready(p)).count() as i32;
        let (new_succeeded, new_failed) = newly_finished(&pods, &uncounted, only_failed, now);
        // Distinct uids: a status written with a uid twice counts it once.
        let uncounted_len = |l: &Option<Vec<String>>| l.iter().flatten().collect_set().len() as i32;
        let mut succeeded = status.succeeded.unwrap_or(0)
            + new_succeeded.len() as i32
            + uncounted_len(&uncounted.succeeded);
        let failed =
            status.failed.unwrap_or(0) + new_failed.len() as i32 + uncounted_len(&uncounted.failed);
        if status.start_time.is_none() && !suspended {
            status.start_time = Some(now.to_k8s());
        }
        let start = status.start_time.as_ref().map(SimTime::from_k8s);
        let new_backoff = self.new_backoff_record(&uid, &new_succeeded, &new_failed, now);

        let completions_n = completions.unwrap_or(0).max(0);
        let succeeded_indexes = if indexed {
            let recorded = status.completed_indexes.as_deref().unwrap_or("");
            let indexes = succeeded_indexes(recorded, &pods, completions_n);
            succeeded = indexes.len() as i32;
            indexes
        } else {
            BTreeSet::new()
        };

        // The end, if it is decided: an interim condition already set, or a verdict now.
        let mut finished = self.job_verdict(key, &job, &pods, failed, start);
        if finished.is_some() {
            // Remove the active pods; the finalizers go below, once counted.
            let (deleted, ready_deleted) = self.delete_active_job_pods(&job_obj, &active_pods);
            active -= deleted;
            terminating += deleted;
            ready -= ready_deleted;
            if active > 0 {
                finished = None;
            }
        } else {
            if job.metadata.deletion_timestamp.is_none() {
                let (a, t, r, failed) = self.manage_job(
                    key,
                    &job_obj,
                    &active_pods,
                    succeeded,
                    &succeeded_indexes,
                    &new_backoff,
                );
                active = a;
                terminating += t;
                ready -= r;
                if failed {
                    action = Action::Requeue;
                }
            }
            let complete = match completions {
                None => succeeded > 0 && active == 0,
                Some(c) => succeeded >= c && active == 0,
            };
            if complete {
                finished = Some(Finished {
                    terminal: "Complete",
                    reason: "CompletionsReached".into(),
                    message: "Reached expected number of succeeded pods".into(),
                    interim: Some("SuccessCriteriaMet"),
                });
            } else if job.metadata.deletion_timestamp.is_none() {
                self.sync_suspended_condition(&mut job, &job_obj, suspended);
            }
        }

        let tally = Tally {
            pods: &pods,
            uncounted,
            only_failed,
            indexed,
            completions: completions_n,
            succeeded_indexes,
            succeeded,
            active,
            ready,
            terminating,
            new_backoff,
        };
        if self.track_job_status(*job, tally, finished) {
            action
        } else {
            Action::Requeue
        }
    }

    /// Deletes a finished Job's active pods; returns how many went, and how many of
    /// those were ready.
    fn delete_active_job_pods(&mut self, job_obj: &Object, active_pods: &[&Pod]) -> (i32, i32) {
        let (mut deleted, mut ready_deleted) = (0, 0);
        for p in active_pods {
            let victim = Object::Pod(Box::new((*p).clone())).key();
            if self.delete_job_pod(job_obj, &victim) {
                deleted += 1;
                if pod_is_ready(p) {
                    ready_deleted += 1;
                }
            }
        }
        (deleted, ready_deleted)
    }

    /// `trackJobStatusAndRemoveFinalizers`: finished pods go into the uncounted
    /// lists, the status is written, their finalizers are removed, then they move
    /// into the counters; the terminal condition once every pod is counted. False
    /// when a status write failed.
    fn track_job_status(
        &mut self,
        mut job: Job,
        tally: Tally<'_>,
        mut finished: Option<Finished>,
    ) -> bool {
        let Tally {
            pods,
            uncounted,
            only_failed,
            indexed,
            completions: completions_n,
            succeeded_indexes,
            succeeded,
            active,
            ready,
            terminating,
            new_backoff,
        } = tally;
        let now = self.now;
        let uid = job.metadata.uid.clone().unwrap_or_default();
        let status = job.status.get_or_insert_with(Default::default);
        status.active = super::omit_zero(active);
        status.ready = Some(ready.max(0));
        status.terminating = Some(terminating.max(0));
        let job_deleting = job.metadata.deletion_timestamp.is_some();
        let failing = finished.as_ref().is_some_and(|f| f.terminal == "Failed");
        let mut to_release: Vec<&Pod> = Vec::new();
        let mut reached_max_uncounted = false;
        let mut unc_succeeded: Vec<String> = uncounted.succeeded.clone().unwrap_or_default();
        let mut unc_failed: Vec<String> = uncounted.failed.clone().unwrap_or_default();
        for p in pods {
            if !has_finalizer(p) {
                continue;
            }
            let considered_failed = is_pod_failed(p, only_failed);
            let can_release = job_deleting
                || finished.is_some()
                || phase(p) == Some("Succeeded")
                || considered_failed;
            if !can_release {
                continue;
            }
            to_release.push(p);
            let pod_uid = uid_of(p);
            if phase(p) == Some("Succeeded") && !unc_failed.contains(&pod_uid) {
                if !indexed && !unc_succeeded.contains(&pod_uid) {
                    unc_succeeded.push(pod_uid);
                }
            } else if (considered_failed || failing) && !unc_failed.contains(&pod_uid) {
                let index_ok = !indexed || completion_index(p).is_some_and(|i| i < completions_n);
                if index_ok {
                    unc_failed.push(pod_uid);
                }
            }
            if unc_succeeded.len() + unc_failed.len() >= MAX_UNCOUNTED_PODS {
                // The rest are counted in the next sync (this status update wakes it).
                reached_max_uncounted = true;
                break;
            }
        }
        if indexed {
            let text = format_indexes(&succeeded_indexes);
            status.completed_indexes = Some(text);
            status.succeeded = super::omit_zero(succeeded);
        }
        status.uncounted_terminated_pods = Some(UncountedTerminatedPods {
            succeeded: (!unc_succeeded.is_empty()).then(|| unc_succeeded.clone()),
            failed: (!unc_failed.is_empty()).then(|| unc_failed.clone()),
        });
        if let Some(f) = finished.as_mut() {
            if let Some(interim) = f.interim.take() {
                let conditions = status.conditions.get_or_insert_with(Vec::new);
                if !conditions
                    .iter()
                    .any(|c| c.type_ == interim && c.status == "True")
                {
                    conditions.push(new_condition(interim, &f.reason, &f.message, now));
                }
            }
        }
        // Flush the uncounted pods (and the interim condition) before the finalizers go.
        let Some(mut job) = self.write_job_status(job) else {
            return false;
        };
        match new_backoff {
            Some(r) if r != BackoffRecord::default() => {
                self.controllers.job_backoff.insert(uid.clone(), r);
            }
            Some(_) => {
                self.controllers.job_backoff.remove(&uid);
            }
            None => {}
        }
        let mut released: BTreeSet<String> = BTreeSet::new();
        for p in to_release {
            if self.remove_tracking_finalizer(p) {
                released.insert(uid_of(p));
            }
        }
        // Pods without a finalizer move from the uncounted lists into the counters.
        let status = job.status.get_or_insert_with(Default::default);
        let still_held: BTreeSet<String> = pods
            .iter()
            .filter(|p| has_finalizer(p) && !released.contains(&uid_of(p)))
            .map(uid_of)
            .collect_set();
        let (keep_s, done_s): (Vec<String>, Vec<String>) = unc_succeeded
            .into_iter()
            .partition(|u| still_held.contains(u));
        let (keep_f, done_f): (Vec<String>, Vec<String>) =
            unc_failed.into_iter().partition(|u| still_held.contains(u));
        if !indexed {
            status.succeeded =
                super::omit_zero(status.succeeded.unwrap_or(0) + done_s.len() as i32);
        }
        status.failed = super::omit_zero(status.failed.unwrap_or(0) + done_f.len() as i32);
        let uncounted_left = keep_s.len() + keep_f.len();
        status.uncounted_terminated_pods = Some(UncountedTerminatedPods {
            succeeded: (!keep_s.is_empty()).then_some(keep_s),
            failed: (!keep_f.is_empty()).then_some(keep_f),
        });
        // enactJobFinished: the terminal condition once every pod is counted and none
        // is still terminating.
        let mut finished_now: Option<(String, String, &'static str)> = None;
        if let Some(f) = finished {
            if !reached_max_uncounted && uncounted_left == 0 && status.terminating.unwrap_or(0) == 0
            {
                let conditions = status.conditions.get_or_insert_with(Vec::new);
                ensure_condition(conditions, f.terminal, "True", &f.reason, &f.message, now);
                if f.terminal == "Complete" {
                    status.completion_time = Some(now.to_k8s());
                }
                finished_now = Some((f.reason, f.message, f.terminal));
            }
        }
        let Some(job) = self.write_job_status(job) else {
            return false;
        };
        if let Some((reason, message, terminal)) = finished_now {
            self.controllers.job_backoff.remove(&uid);
            self.announce_job_finished(&job, &reason, message, terminal);
        }
        true
    }

    /// The Job's end, if it is decided: an interim condition already set
    /// (`SuccessCriteriaMet`, `FailureTarget`), the back-off limit passed, or
    /// activeDeadlineSeconds run out (before then, a requeue at the deadline).
    fn job_verdict(
        &mut self,
        key: &ObjectKey,
        job: &Job,
        pods: &[Pod],
        failed: i32,
        start: Option<SimTime>,
    ) -> Option<Finished> {
        let spec = job.spec.as_ref()?;
        let suspended = spec.suspend == Some(true);
        let backoff_limit = spec.backoff_limit.unwrap_or(6);
        let mut finished: Option<Finished> = None;
        if let Some(c) = condition(job, "SuccessCriteriaMet").filter(|c| c.status == "True") {
            finished = Some(Finished {
                terminal: "Complete",
                reason: c.reason.clone().unwrap_or_default(),
                message: c.message.clone().unwrap_or_default(),
                interim: None,
            });
        } else if let Some(c) = condition(job, "FailureTarget").filter(|c| c.status == "True") {
            finished = Some(Finished {
                terminal: "Failed",
                reason: c.reason.clone().unwrap_or_default(),
                message: c.message.clone().unwrap_or_default(),
                interim: None,
            });
        } else if failed > backoff_limit || past_backoff_limit_on_failure(job, pods) {
            finished = Some(Finished {
                terminal: "Failed",
                reason: "BackoffLimitExceeded".into(),
                message: "Job has reached the specified backoff limit".into(),
                interim: Some("FailureTarget"),
            });
        } else if let (Some(ads), Some(start), false) =
            (spec.active_deadline_seconds, start, suspended)
        {
            let deadline = start + SimDuration::from_secs_i64(ads);
            if self.now >= deadline {
                finished = Some(Finished {
                    terminal: "Failed",
                    reason: "DeadlineExceeded".into(),
                    message: "Job was active longer than specified deadline".into(),
                    interim: Some("FailureTarget"),
                });
            } else {
                self.job_requeue_after(key, deadline);
            }
        }
        finished
    }

    /// The `Suspended` condition: set (and a `Suspended` Event) while the Job is
    /// suspended, `False` with a `Resumed` Event once it resumes, when its
    /// activeDeadlineSeconds starts counting again.
    fn sync_suspended_condition(&mut self, job: &mut Job, job_obj: &Object, suspended: bool) {
        let now = self.now;
        let status = job.status.get_or_insert_with(Default::default);
        let conditions = status.conditions.get_or_insert_with(Vec::new);
        if suspended {
            if ensure_condition(
                conditions,
                "Suspended",
                "True",
                "JobSuspended",
                "Job suspended",
                now,
            ) {
                self.record_event(
                    job_obj,
                    SOURCE,
                    None,
                    "Normal",
                    "Suspended",
                    "Job suspended".into(),
                );
            }
        } else if ensure_condition(
            conditions,
            "Suspended",
            "False",
            "JobResumed",
            "Job resumed",
            now,
        ) {
            self.record_event(
                job_obj,
                SOURCE,
                None,
                "Normal",
                "Resumed",
                "Job resumed".into(),
            );
            // A resumed Job's activeDeadlineSeconds counts from now.
            status.start_time = Some(now.to_k8s());
        }
        if status.conditions.as_ref().is_some_and(Vec::is_empty) {
            status.conditions = None;
        }
    }

    /// The Events of a Job that just finished.
    fn announce_job_finished(&mut self, job: &Job, reason: &str, message: String, terminal: &str) {
        let job_obj = Object::Job(Box::new(job.clone()));
        if terminal == "Complete" {
            let spec = job.spec.as_ref();
            let succeeded = job.status.as_ref().and_then(|s| s.succeeded).unwrap_or(0);
            if spec
                .and_then(|s| s.completions)
                .is_some_and(|c| succeeded > c)
            {
                self.record_event(
                    &job_obj,
                    SOURCE,
                    None,
                    "Warning",
                    "TooManySucceededPods",
                    "Too many succeeded pods running after completion count reached".into(),
                );
            }
            self.record_event(
                &job_obj,
                SOURCE,
                None,
                "Normal",
                "Completed",
                "Job completed".into(),
            );
        } else {
            self.record_event(&job_obj, SOURCE, None, "Warning", reason, message);
        }
    }

    /// Writes the Job's status if it changed; returns the Job as stored (None when the
    /// write failed: the key comes back after a back-off).
    fn write_job_status(&mut self, job: Job) -> Option<Job> {
        let key = Object::Job(Box::new(job.clone())).key();
        let live = self.store.get(&key).and_then(|o| match o {
            Object::Job(j) => Some(j.clone()),
            _ => None,
        })?;
        let mut job = job;
        normalize_status(&mut job);
        if live.status == job.status {
            return Some(*live);
        }
        job.metadata.resource_version = live.metadata.resource_version.clone();
        match self
            .update_as(ACTOR, Object::Job(Box::new(job)))
            .map(std::sync::Arc::unwrap_or_clone)
        {
            Ok(Object::Job(j)) => Some(*j),
            _ => None,
        }
    }

    /// `newBackoffRecord`: the back-off after this sync's newly finished pods. None
    /// when nothing new finished.
    fn new_backoff_record(
        &self,
        uid: &str,
        new_succeeded: &[&Pod],
        new_failed: &[&Pod],
        now: SimTime,
    ) -> Option<BackoffRecord> {
        let mut record = self
            .controllers
            .job_backoff
            .get(uid)
            .cloned()
            .unwrap_or_default();
        match (new_succeeded.last(), new_failed.is_empty()) {
            (None, true) => return None,
            (None, false) => {
                record.failures_after_last_success += new_failed.len() as u32;
                record.last_failure = new_failed.last().map(|p| finished_time(p, now));
            }
            (Some(_), true) => record = BackoffRecord::default(),
            (Some(last_success), false) => {
                let success_at = finished_time(last_success, now);
                let after: Vec<SimTime> = new_failed
                    .iter()
                    .map(|p| finished_time(p, now))
                    .filter(|t| *t > success_at)
                    .collect();
                record = BackoffRecord {
                    failures_after_last_success: after.len() as u32,
                    last_failure: after.last().copied(),
                };
            }
        }
        Some(record)
    }

    /// `manageJob`: creates or deletes pods so that the active ones match what the Job
    /// wants now. Returns (active, newly terminating, ready ones deleted, whether a
    /// creation failed).
    fn manage_job(
        &mut self,
        key: &ObjectKey,
        job_obj: &Object,
        active_pods: &[&Pod],
        succeeded: i32,
        succeeded_indexes: &BTreeSet<i32>,
        new_backoff: &Option<BackoffRecord>,
    ) -> (i32, i32, i32, bool) {
        let Object::Job(job) = job_obj else {
            return (active_pods.len() as i32, 0, 0, false);
        };
        let spec = job.spec.clone().unwrap_or_default();
        let active = active_pods.len() as i32;
        let parallelism = spec.parallelism.unwrap_or(1).max(0);
        if spec.suspend == Some(true) {
            let (a, t, r) = self.delete_pods_ranked(job_obj, active_pods, active_pods.len());
            return (a, t, r, false);
        }
        let want = match spec.completions {
            None if succeeded > 0 => active,
            None => parallelism,
            Some(c) => (c - succeeded).clamp(0, parallelism),
        };
        if active > want {
            // Indexed: pods of succeeded indexes or duplicates go first.
            let (a, t, r) = self.delete_pods_ranked(job_obj, active_pods, (active - want) as usize);
            return (a, t, r, false);
        }
        if active == want {
            return (active, 0, 0, false);
        }
        let uid = job.metadata.uid.clone().unwrap_or_default();
        let record = new_backoff
            .clone()
            .or_else(|| self.controllers.job_backoff.get(&uid).cloned())
            .unwrap_or_default();
        let remaining = record.remaining(self.now);
        if remaining.as_millis() > 0 {
            self.job_requeue_after(key, self.now + remaining);
            return (active, 0, 0, false);
        }
        let diff = ((want - active) as usize).min(MAX_POD_CREATE_DELETE_PER_SYNC);
        let indexes: Vec<Option<i32>> = if spec.completion_mode.as_deref() == Some("Indexed") {
            let taken: BTreeSet<i32> = active_pods
                .iter()
                .filter_map(|p| completion_index(p))
                .collect_set();
            (0..spec.completions.unwrap_or(0))
                .filter(|i| !succeeded_indexes.contains(i) && !taken.contains(i))
                .take(diff)
                .map(Some)
                .collect()
        } else {
            vec![None; diff]
        };
        // slowStartBatch: 1, 2, 4, … creations; a failed batch stops the rest.
        let mut created = 0;
        let mut failed = false;
        let mut batch = 1;
        let mut iter = indexes.into_iter();
        'outer: loop {
            let mut any = false;
            for _ in 0..batch {
                let Some(index) = iter.next() else {
                    break 'outer;
                };
                any = true;
                let pod = pod_from_job(job, index);
                match self.create_as(ACTOR, Object::Pod(Box::new(pod))) {
                    Ok(p) => {
                        created += 1;
                        self.record_event(
                            job_obj,
                            SOURCE,
                            None,
                            "Normal",
                            "SuccessfulCreate",
                            format!("Created pod: {}", p.name()),
                        );
                    }
                    Err(e) => {
                        self.record_event(
                            job_obj,
                            SOURCE,
                            None,
                            "Warning",
                            "FailedCreate",
                            format!("Error creating: {}", e.message),
                        );
                        failed = true;
                        break 'outer;
                    }
                }
            }
            if !any {
                break;
            }
            batch *= 2;
        }
        (active + created, 0, 0, failed)
    }

    /// Deletes `n` active pods in upstream's removal order (`activePodsForRemoval`:
    /// the ReplicaSet ranking); their finalizers go first (`deleteJobPods`). Returns
    /// (active left, deleted, ready ones deleted).
    fn delete_pods_ranked(
        &mut self,
        job_obj: &Object,
        active_pods: &[&Pod],
        n: usize,
    ) -> (i32, i32, i32) {
        let mut ranked: Vec<&Pod> = active_pods.to_vec();
        // Not ready before ready, newer before older (a simplified ranking).
        ranked.stable_sort_by_key(|p| {
            (
                pod_is_ready(p),
                std::cmp::Reverse(
                    p.metadata
                        .creation_timestamp
                        .as_ref()
                        .map(|t| t.0.as_millisecond()),
                ),
                p.metadata.name.clone(),
            )
        });
        let mut deleted = 0;
        let mut deleted_ready = 0;
        for p in ranked
            .into_iter()
            .take(n.min(MAX_POD_CREATE_DELETE_PER_SYNC))
        {
            if has_finalizer(p) && !self.remove_tracking_finalizer(p) {
                continue;
            }
            let key = Object::Pod(Box::new(p.clone())).key();
            if self.delete_job_pod(job_obj, &key) {
                deleted += 1;
                if pod_is_ready(p) {
                    deleted_ready += 1;
                }
            }
        }
        (active_pods.len() as i32 - deleted, deleted, deleted_ready)
    }

    /// `podControl.DeletePod`: a graceful delete and its `SuccessfulDelete` event.
    fn delete_job_pod(&mut self, job_obj: &Object, key: &ObjectKey) -> bool {
        match self.delete_as(ACTOR, key, None) {
            Ok(_) => {
                self.record_event(
                    job_obj,
                    SOURCE,
                    None,
                    "Normal",
                    "SuccessfulDelete",
                    format!("Deleted pod: {}", key.name),
                );
                true
            }
            Err(e) => e.reason == crate::error::StatusReason::NotFound,
        }
    }
}

/// Drops empty optional status parts so that an unchanged status compares equal and
/// the object prints as upstream's (omitempty) does.
fn normalize_status(job: &mut Job) {
    if let Some(status) = job.status.as_mut() {
        if status.conditions.as_ref().is_some_and(Vec::is_empty) {
            status.conditions = None;
        }
        if status
            .uncounted_terminated_pods
            .as_ref()
            .is_some_and(|u| u.succeeded.is_none() && u.failed.is_none())
        {
            status.uncounted_terminated_pods = Some(UncountedTerminatedPods::default());
        }
    }
}

/// `pastBackoffLimitOnFailure`: with restartPolicy OnFailure, the container restarts
/// of pending and running pods count against the back-off limit.
fn past_backoff_limit_on_failure(job: &Job, pods: &[Pod]) -> bool {
    let spec = job.spec.as_ref();
    let restart = spec
        .and_then(|s| s.template.spec.as_ref())
        .and_then(|s| s.restart_policy.as_deref());
    if restart != Some("OnFailure") {
        return false;
    }
    let limit = spec.and_then(|s| s.backoff_limit).unwrap_or(6);
    let restarts: i32 = pods
        .iter()
        .filter(|p| matches!(phase(p), Some("Running") | Some("Pending")))
        .filter_map(|p| p.status.as_ref())
        .flat_map(|s| {
            s.init_container_statuses
                .iter()
                .flatten()
                .chain(s.container_statuses.iter().flatten())
        })
        .map(|c| c.restart_count)
        .sum();
    if limit == 0 {
        restarts > 0
    } else {
        restarts >= limit
    }
}

/// A new pod from the Job's template (upstream `GetPodFromTemplate` plus
/// `addCompletionIndexEnvVariables` / `addCompletionIndexAnnotation` for Indexed Jobs),
/// with the tracking finalizer.
fn pod_from_job(job: &Job, index: Option<i32>) -> Pod {
    let spec = job.spec.clone().unwrap_or_default();
    let template = spec.template;
    let tmeta = template.metadata.unwrap_or_default();
    let name = job.metadata.name.clone().unwrap_or_default();
    let mut labels = tmeta.labels.unwrap_or_default();
    let mut annotations = tmeta.annotations.unwrap_or_default();
    let mut pod_spec = template.spec.unwrap_or_default();
    let mut generate_name = format!("{name}-");
    if let Some(i) = index {
        annotations.insert(COMPLETION_INDEX_KEY.into(), i.to_string());
        labels.insert(COMPLETION_INDEX_KEY.into(), i.to_string());
        generate_name = format!("{name}-{i}-");
        if pod_spec.hostname.is_none() {
            pod_spec.hostname = Some(format!("{name}-{i}"));
        }
        for c in pod_spec
            .containers
            .iter_mut()
            .chain(pod_spec.init_containers.iter_mut().flatten())
        {
            let env = c.env.get_or_insert_with(Vec::new);
            if !env.iter().any(|e| e.name == "JOB_COMPLETION_INDEX") {
                env.push(EnvVar {
                    name: "JOB_COMPLETION_INDEX".into(),
                    value: None,
                    value_from: Some(EnvVarSource {
                        field_ref: Some(ObjectFieldSelector {
                            api_version: Some("v1".into()),
                            field_path: format!("metadata.labels['{COMPLETION_INDEX_KEY}']"),
                        }),
                        ..Default::default()
                    }),
                });
            }
        }
    }
    Pod {
        metadata: ObjectMeta {
            generate_name: Some(generate_name),
            namespace: job.metadata.namespace.clone(),
            labels: (!labels.is_empty()).then_some(labels),
            annotations: (!annotations.is_empty()).then_some(annotations),
            finalizers: Some(vec![JOB_TRACKING_FINALIZER.into()]),
            owner_references: Some(vec![OwnerReference {
                api_version: "batch/v1".into(),
                kind: "Job".into(),
                name,
                uid: job.metadata.uid.clone().unwrap_or_default(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            }]),
            ..Default::default()
        },
        spec: Some(pod_spec),
        status: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pod_failure_backoff_doubles_from_ten_seconds_up_to_ten_minutes() {
        let secs: Vec<u64> = (1..=8).map(|n| pod_failure_backoff(n).as_secs()).collect();
        assert_eq!(secs, [10, 20, 40, 80, 160, 320, 600, 600]);
    }

    #[test]
    fn completed_indexes_are_written_as_ranges() {
        let set: BTreeSet<i32> = [0, 1, 2, 4, 6, 7].into_iter().collect();
        assert_eq!(format_indexes(&set), "0-2,4,6,7");
        assert_eq!(parse_indexes("0-2,4,6,7", 10), set);
        assert_eq!(format_indexes(&BTreeSet::new()), "");
    }
}
