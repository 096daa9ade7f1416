//! The TTL-after-finished controller. Mirrors pkg/controller/ttlafterfinished
//! (`processJob`, `processTTL`, `timeLeft`): a finished Job with
//! `ttlSecondsAfterFinished` is deleted (foreground propagation, so its pods go
//! first) that many seconds after it finished. The wait is a timer, as upstream's
//! `queue.AddAfter`; nothing polls.

use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::{Actor, Propagation};
use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey};
use crate::store::{EventType, WatchEvent};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::batch::v1::Job;

pub(crate) const ID: ControllerId = ControllerId::new("ttl-after-finished-controller");
const ACTOR: Actor = Actor::Controller(ID.name());

/// The TTL-after-finished controller: finished Jobs with a time to live.
pub(crate) struct TtlAfterFinishedController;

impl Controller for TtlAfterFinishedController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, _c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        if let Object::Job(job) = &*ev.object {
            if ev.event_type != EventType::Deleted && needs_cleanup(job) {
                keys.push(ev.object.key());
            }
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(c.store.list(Kind::Job, None).map(Object::key));
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.sync_ttl_after_finished(key)
    }

    fn requeue_after_reason(&self) -> &'static str {
        "ttl after finished"
    }
}

/// `needsCleanup`: the Job has a TTL, is finished and is not being deleted.
pub fn needs_cleanup(job: &Job) -> bool {
    job.metadata.deletion_timestamp.is_none()
        && job
            .spec
            .as_ref()
            .and_then(|s| s.ttl_seconds_after_finished)
            .is_some()
        && super::job::job_finished(job)
}

/// `jobFinishTime`: when the Complete or Failed condition became True.
fn finish_time(job: &Job) -> Option<SimTime> {
    job.status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| (c.type_ == "Complete" || c.type_ == "Failed") && c.status == "True")?
        .last_transition_time
        .as_ref()
        .map(SimTime::from_k8s)
}

impl Cluster {
    fn sync_ttl_after_finished(&mut self, key: &ObjectKey) -> Action {
        let Some(Object::Job(job)) = self.store.get(key).cloned() else {
            return Action::Done;
        };
        if !needs_cleanup(&job) {
            return Action::Done;
        }
        let ttl = job
            .spec
            .as_ref()
            .and_then(|s| s.ttl_seconds_after_finished)
            .unwrap_or(0)
            .max(0) as u64;
        let Some(finished) = finish_time(&job) else {
            return Action::Done;
        };
        let expire_at = finished + SimDuration::secs(ttl);
        if self.now < expire_at {
            self.enqueue_after(ID, key.clone(), expire_at);
            return Action::Done;
        }
        // Upstream deletes with a uid precondition and foreground propagation.
        let failed = self
            .delete_with_options_as(ACTOR, key, None, Some(Propagation::Foreground))
            .is_err();
        if failed && self.store.get(key).is_some() {
            Action::Requeue
        } else {
            Action::Done
        }
    }
}
