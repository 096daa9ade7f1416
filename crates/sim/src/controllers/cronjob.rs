//! The CronJob controller. Mirrors pkg/controller/cronjob/cronjob_controllerv2.go
//! (`syncCronJob`, `cleanupFinishedJobs`, `removeOldestJobs`) and utils.go
//! (`mostRecentScheduleTime`, `nextScheduleTime`, `getJobName`,
//! `getJobFromTemplate2`).
//!
//! At each scheduled minute (a timer, as upstream's `AddAfter` to the next schedule
//! time plus 100 ms; nothing polls) the controller creates a Job named
//! `NAME-<scheduled time in Unix minutes>` from `spec.jobTemplate`, owned by the
//! CronJob and annotated with its scheduled time, lists it in `status.active` and
//! sets `status.lastScheduleTime`. `concurrencyPolicy` Forbid skips a run while one
//! is active (`JobAlreadyActive`), Replace deletes the active ones first; a run
//! later than `startingDeadlineSeconds` is missed (`MissSchedule`); `suspend` stops
//! new runs. When a Job finishes the controller drops it from `status.active`
//! (`SawCompletedJob`), records `lastSuccessfulTime`, and deletes the oldest
//! finished Jobs past `successfulJobsHistoryLimit` (3) and `failedJobsHistoryLimit`
//! (1).
//!
//! The spec and status are read from and written to the stored JSON (no typed
//! decoder for the kind). A `timeZone` is read as `formatSchedule` reads it (a
//! `TZ=` prefix to the schedule, `cron.rs`). Simplified: the count of missed runs is
//! exact rather than upstream's estimate.

use super::cron::{self, Schedule};
use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::{Actor, Propagation};
use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey, OtherObject};
use crate::store::{EventType, WatchEvent};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::batch::v1::Job;
use serde_json::{json, Map, Value};

pub(crate) const ID: ControllerId = ControllerId::new("cronjob-controller");
const ACTOR: Actor = Actor::Controller(ID.name());
/// The annotation a Job made for a schedule carries (`batch.kubernetes.io/cronjob-scheduled-timestamp`).
pub const SCHEDULED_TIMESTAMP: &str = "batch.kubernetes.io/cronjob-scheduled-timestamp";
/// How far past the schedule time the controller wakes (upstream's `nextScheduleDelta`).
const NEXT_DELTA: SimDuration = SimDuration::millis(100);
/// Missed runs past which the controller warns (`TooManyMissedTimes`).
const TOO_MANY_MISSED: u64 = 100;
/// Runs counted before giving up on counting (a schedule of every minute after a
/// month of simulated time is 43,200).
const COUNT_CAP: u64 = 100_000;

/// The CronJob controller.
pub(crate) struct CronJobController;

impl Controller for CronJobController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, _c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        match &*ev.object {
            Object::Other(o) if o.kind == Kind::CronJob && ev.event_type != EventType::Deleted => {
                keys.push(ev.object.key());
            }
            // A Job of a CronJob changed or went: its owner looks again.
            Object::Job(_) => {
                if let Some(key) = crate::cluster::controller_of(&ev.object, Kind::CronJob) {
                    keys.push(key);
                }
            }
            _ => {}
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(c.store.list(Kind::CronJob, None).map(Object::key));
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.sync_cron_job(key)
    }

    fn requeue_after_reason(&self) -> &'static str {
        "next schedule time"
    }
}

/// What the controller reads of a CronJob's spec, defaults applied.
#[derive(Clone, Debug, PartialEq)]
pub struct CronJobSpec {
    pub schedule: String,
    pub time_zone: Option<String>,
    pub concurrency_policy: String,
    pub suspend: bool,
    pub starting_deadline_seconds: Option<i64>,
    pub successful_jobs_history_limit: i64,
    pub failed_jobs_history_limit: i64,
    pub job_template: Value,
}

impl CronJobSpec {
    pub fn of(o: &OtherObject) -> CronJobSpec {
        let spec = o.fields.get("spec");
        let field = |name: &str| spec.and_then(|s| s.get(name));
        CronJobSpec {
            schedule: field("schedule")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            time_zone: field("timeZone")
                .and_then(Value::as_str)
                .map(str::to_string),
            concurrency_policy: field("concurrencyPolicy")
                .and_then(Value::as_str)
                .unwrap_or("Allow")
                .to_string(),
            suspend: field("suspend").and_then(Value::as_bool).unwrap_or(false),
            starting_deadline_seconds: field("startingDeadlineSeconds").and_then(Value::as_i64),
            successful_jobs_history_limit: field("successfulJobsHistoryLimit")
                .and_then(Value::as_i64)
                .unwrap_or(3),
            failed_jobs_history_limit: field("failedJobsHistoryLimit")
                .and_then(Value::as_i64)
                .unwrap_or(1),
            job_template: field("jobTemplate").cloned().unwrap_or(Value::Null),
        }
    }
}

/// `getJobName`: the CronJob's name and the scheduled time in Unix minutes.
pub fn job_name(cron_job: &str, scheduled: SimTime) -> String {
    let unix_secs = (crate::time::EPOCH_UNIX_MS + scheduled.0 as i64).div_euclid(1000);
    format!("{cron_job}-{}", unix_secs.div_euclid(60))
}

fn time_value(t: SimTime) -> Value {
    crate::object::to_json_value(&t.to_k8s())
}

/// `status.lastScheduleTime`: when the latest run was scheduled, if one was.
pub(crate) fn last_schedule(o: &OtherObject) -> Option<SimTime> {
    o.fields
        .get("status")
        .and_then(|s| s.get("lastScheduleTime"))
        .and_then(time_of)
}

/// Where the search for the next run starts: the latest run made, or the CronJob's
/// creation.
pub(crate) fn schedule_since(o: &OtherObject) -> SimTime {
    last_schedule(o).unwrap_or_else(|| {
        let created = crate::object::created_millis(&o.metadata);
        SimTime(u64::try_from(created - crate::time::EPOCH_UNIX_MS).unwrap_or(0))
    })
}

fn time_of(v: &Value) -> Option<SimTime> {
    let t: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time =
        crate::object::decode::from_value(v.clone()).ok()?;
    Some(SimTime::from_k8s(&t))
}

/// The finished condition of a Job (`getFinishedStatus`): `Complete` or `Failed`.
fn finished_as(job: &Job) -> Option<&'static str> {
    let conds = job.status.as_ref()?.conditions.as_ref()?;
    ["Complete", "Failed"]
        .into_iter()
        .find(|t| conds.iter().any(|c| c.type_ == *t && c.status == "True"))
}

impl Cluster {
    fn sync_cron_job(&mut self, key: &ObjectKey) -> Action {
        let Some(Object::Other(cron_job)) = self.store.get(key).cloned() else {
            return Action::Done;
        };
        if cron_job.metadata.deletion_timestamp.is_some() {
            return Action::Done;
        }
        let uid = cron_job.metadata.uid.clone().unwrap_or_default();
        let spec = CronJobSpec::of(&cron_job);
        let about = Object::Other(cron_job.clone());
        let mut status = cron_job
            .fields
            .get("status")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let before = status.clone();
        // Its Jobs, through the store's index of dependents by owner uid.
        let jobs: Vec<Job> = self
            .store
            .dependent_objects(&uid)
            .filter_map(|o| match o {
                Object::Job(j) if super::controlled_by(&j.metadata, &uid) => Some((**j).clone()),
                _ => None,
            })
            .collect();
        let mut writes = Vec::new();
        // The active list against the Jobs as they are.
        let mut active: Vec<Value> = status
            .get("active")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let in_active = |active: &[Value], uid: &str| {
            active
                .iter()
                .any(|r| r.get("uid").and_then(Value::as_str) == Some(uid))
        };
        for job in &jobs {
            let job_uid = job.metadata.uid.clone().unwrap_or_default();
            let name = job.metadata.name.clone().unwrap_or_default();
            let listed = in_active(&active, &job_uid);
            match finished_as(job) {
                None if !listed && job.metadata.deletion_timestamp.is_none() => {
                    self.record_event(
                        &about,
                        ID.name(),
                        None,
                        "Warning",
                        "UnexpectedJob",
                        format!("Saw a job that the controller did not create or forgot: {name}"),
                    );
                    active.push(job_reference(job));
                }
                Some(condition) if listed => {
                    active.retain(|r| r.get("uid").and_then(Value::as_str) != Some(&job_uid));
                    self.record_event(
                        &about,
                        ID.name(),
                        None,
                        "Normal",
                        "SawCompletedJob",
                        format!("Saw completed job: {name}, condition: {condition}"),
                    );
                    if condition == "Complete" {
                        let done = job
                            .status
                            .as_ref()
                            .and_then(|s| s.completion_time.as_ref())
                            .map(SimTime::from_k8s);
                        let last = status.get("lastSuccessfulTime").and_then(time_of);
                        if let Some(done) = done.filter(|d| last.is_none_or(|l| *d > l)) {
                            status.insert("lastSuccessfulTime".into(), time_value(done));
                        }
                    }
                }
                _ => {}
            }
        }
        // Active Jobs that no longer exist.
        let existing: Vec<String> = jobs.iter().filter_map(|j| j.metadata.uid.clone()).collect();
        let missing: Vec<Value> = active
            .iter()
            .filter(|r| {
                r.get("uid")
                    .and_then(Value::as_str)
                    .is_none_or(|u| !existing.iter().any(|e| e == u))
            })
            .cloned()
            .collect();
        for r in &missing {
            let name = r.get("name").and_then(Value::as_str).unwrap_or("");
            self.record_event(
                &about,
                ID.name(),
                None,
                "Normal",
                "MissingJob",
                format!("Active job went missing: {name}"),
            );
        }
        active.retain(|r| !missing.contains(r));
        writes.extend(self.delete_old_cron_jobs(&about, &jobs, &spec));

        let mut next_wake: Option<SimTime> = None;
        if !spec.suspend {
            match cron::parse_for(&spec.schedule, spec.time_zone.as_deref()) {
                Err(e) => self.record_event(
                    &about,
                    ID.name(),
                    None,
                    "Warning",
                    "UnparseableSchedule",
                    format!("unparseable schedule: \"{}\" : {e}", spec.schedule),
                ),
                Ok(schedule) => {
                    let since = schedule_since(&cron_job);
                    let run = self.schedule_run(&about, &schedule, &spec, since);
                    if let Some(scheduled) = run {
                        writes.extend(self.start_cron_run(
                            &cron_job,
                            &about,
                            &spec,
                            scheduled,
                            &mut active,
                            &mut status,
                        ));
                    }
                    next_wake = schedule.next(self.now);
                }
            }
        }
        status.insert("active".into(), Value::Array(active.clone()));
        if active.is_empty() {
            status.remove("active");
        }
        if status != before {
            let mut updated = cron_job;
            updated
                .fields
                .insert("status".into(), Value::Object(status));
            writes.push(self.update_as(ACTOR, Object::Other(updated)).map(|_| ()));
        }
        if let Some(at) = next_wake {
            self.enqueue_after(ID, key.clone(), at + NEXT_DELTA);
        }
        Action::after_writes(writes)
    }

    /// `nextScheduleTime`: the most recent schedule time not yet run, if it is not
    /// past the starting deadline (`MissSchedule`) nor already run.
    fn schedule_run(
        &mut self,
        about: &Object,
        schedule: &Schedule,
        spec: &CronJobSpec,
        since: SimTime,
    ) -> Option<SimTime> {
        let mut earliest = since;
        if let Some(deadline) = spec.starting_deadline_seconds {
            let cut = SimTime(
                self.now
                    .0
                    .saturating_sub(u64::try_from(deadline).unwrap_or(0).saturating_mul(1000)),
            );
            earliest = earliest.max(cut);
        }
        let mut most_recent = None;
        let mut missed = 0u64;
        let mut t = earliest;
        while let Some(next) = schedule.next(t).filter(|n| *n <= self.now) {
            most_recent = Some(next);
            missed += 1;
            if missed >= COUNT_CAP {
                break;
            }
            t = next;
        }
        let scheduled = most_recent?;
        if missed > TOO_MANY_MISSED {
            self.record_event(
                about,
                ID.name(),
                None,
                "Warning",
                "TooManyMissedTimes",
                format!("too many missed start times: {missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew"),
            );
        }
        if let Some(deadline) = spec.starting_deadline_seconds {
            let late_by = self.now.since(scheduled);
            if late_by.as_millis() > u64::try_from(deadline).unwrap_or(0).saturating_mul(1000) {
                self.record_event(
                    about,
                    ID.name(),
                    None,
                    "Warning",
                    "MissSchedule",
                    format!(
                        "Missed scheduled time to start a job: {}",
                        rfc1123z(scheduled)
                    ),
                );
                return None;
            }
        }
        Some(scheduled)
    }

    /// One scheduled run: the concurrency policy, then the Job.
    fn start_cron_run(
        &mut self,
        cron_job: &OtherObject,
        about: &Object,
        spec: &CronJobSpec,
        scheduled: SimTime,
        active: &mut Vec<Value>,
        status: &mut Map<String, Value>,
    ) -> Vec<Result<(), crate::error::ApiError>> {
        let name = job_name(cron_job.metadata.name.as_deref().unwrap_or(""), scheduled);
        let ran = status.get("lastScheduleTime").and_then(time_of) == Some(scheduled)
            || active
                .iter()
                .any(|r| r.get("name").and_then(Value::as_str) == Some(name.as_str()));
        if ran {
            return Vec::new();
        }
        let mut writes = Vec::new();
        if spec.concurrency_policy == "Forbid" && !active.is_empty() {
            self.record_event(
                about,
                ID.name(),
                None,
                "Normal",
                "JobAlreadyActive",
                "Not starting job because prior execution is running and concurrency policy is Forbid"
                    .into(),
            );
            return writes;
        }
        if spec.concurrency_policy == "Replace" {
            for r in std::mem::take(active) {
                let job = r
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                writes.push(self.delete_cron_job_job(about, &job));
            }
        }
        // A template that does not make a Job is not retried; a refused create is.
        let created = self
            .job_for_run(cron_job, spec, &name, scheduled)
            .and_then(|job| {
                self.create_as(ACTOR, job).map_err(|e| {
                    let message = e.message.clone();
                    writes.push(Err(e));
                    message
                })
            });
        match created {
            Ok(created) => {
                if let Object::Job(j) = &*created {
                    active.push(job_reference(j));
                }
                self.record_event(
                    about,
                    ID.name(),
                    None,
                    "Normal",
                    "SuccessfulCreate",
                    format!("Created job {name}"),
                );
                status.insert("lastScheduleTime".into(), time_value(scheduled));
            }
            Err(e) => self.record_event(
                about,
                ID.name(),
                None,
                "Warning",
                "FailedCreate",
                format!("Error creating job: {e}"),
            ),
        }
        writes
    }

    /// `getJobFromTemplate2`: the template's labels, annotations and spec, the
    /// scheduled time as an annotation, the CronJob as controller.
    fn job_for_run(
        &self,
        cron_job: &OtherObject,
        spec: &CronJobSpec,
        name: &str,
        scheduled: SimTime,
    ) -> Result<Object, String> {
        let template = &spec.job_template;
        let meta = template.get("metadata").cloned().unwrap_or(json!({}));
        let mut annotations = meta
            .get("annotations")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        annotations.insert(SCHEDULED_TIMESTAMP.into(), time_value(scheduled));
        let mut metadata = json!({
            "name": name,
            "namespace": about_namespace(cron_job),
            "annotations": annotations,
            "ownerReferences": [{
                "apiVersion": "batch/v1",
                "kind": "CronJob",
                "name": cron_job.metadata.name,
                "uid": cron_job.metadata.uid,
                "controller": true,
                "blockOwnerDeletion": true,
            }],
        });
        if let Some(labels) = meta.get("labels") {
            metadata["labels"] = labels.clone();
        }
        let job = json!({
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": metadata,
            "spec": template.get("spec").cloned().unwrap_or(json!({})),
        });
        Object::from_json(Kind::Job, job)
    }

    /// `deleteJob`: one of the CronJob's Jobs, in the background, and the event.
    fn delete_cron_job_job(
        &mut self,
        about: &Object,
        job: &str,
    ) -> Result<(), crate::error::ApiError> {
        let key = ObjectKey::new(Kind::Job, about.namespace(), job);
        let deleted = self.delete_with_options_as(ACTOR, &key, None, Some(Propagation::Background));
        if deleted.is_ok() {
            self.record_event(
                about,
                ID.name(),
                None,
                "Normal",
                "SuccessfulDelete",
                format!("Deleted job {job}"),
            );
        }
        deleted.map(|_| ())
    }

    /// `cleanupFinishedJobs`: the oldest finished Jobs past each history limit go.
    fn delete_old_cron_jobs(
        &mut self,
        about: &Object,
        jobs: &[Job],
        spec: &CronJobSpec,
    ) -> Vec<Result<(), crate::error::ApiError>> {
        let mut writes = Vec::new();
        for (condition, limit) in [
            ("Complete", spec.successful_jobs_history_limit),
            ("Failed", spec.failed_jobs_history_limit),
        ] {
            let mut finished: Vec<&Job> = jobs
                .iter()
                .filter(|j| finished_as(j) == Some(condition))
                .filter(|j| j.metadata.deletion_timestamp.is_none())
                .collect();
            let keep = usize::try_from(limit.max(0)).unwrap_or(0);
            if finished.len() <= keep {
                continue;
            }
            // Oldest first, by start time (a Job that never started counts as oldest).
            finished.sort_by_key(|j| {
                (
                    j.status
                        .as_ref()
                        .and_then(|s| s.start_time.as_ref())
                        .map(SimTime::from_k8s),
                    j.metadata.name.clone(),
                )
            });
            let excess = finished.len() - keep;
            for job in finished.into_iter().take(excess) {
                let name = job.metadata.name.clone().unwrap_or_default();
                writes.push(self.delete_cron_job_job(about, &name));
            }
        }
        writes
    }
}

fn about_namespace(o: &OtherObject) -> String {
    o.metadata
        .namespace
        .clone()
        .unwrap_or_else(|| "default".into())
}

/// The `ObjectReference` `status.active` lists for a Job.
fn job_reference(job: &Job) -> Value {
    json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": job.metadata.name,
        "namespace": job.metadata.namespace,
        "resourceVersion": job.metadata.resource_version,
        "uid": job.metadata.uid,
    })
}

/// Go's `time.RFC1123Z` of a UTC instant: `Mon, 02 Jan 2006 15:04:05 +0000`.
fn rfc1123z(t: SimTime) -> String {
    let ts = t.to_k8s().0;
    ts.strftime("%a, %d %b %Y %H:%M:%S +0000").to_string()
}
