//! The TTL-after-finished controller. Mirrors pkg/controller/ttlafterfinished
//! (`processJob`, `processTTL`, `timeLeft`): a finished Job with
//! `ttlSecondsAfterFinished` is deleted (foreground propagation, so its pods go
//! first) that many seconds after it finished. The wait is a timer, as upstream's
//! `queue.AddAfter`; nothing polls.

use crate::apiserver::{Actor, Propagation};
use crate::cluster::{Cluster, Component, Timer};
use crate::object::{Object, ObjectKey};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::batch::v1::Job;

const ACTOR: Actor = Actor::Controller("ttl-after-finished-controller");

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
    pub(crate) fn sync_ttl_after_finished(&mut self, key: &ObjectKey) {
        let Some(Object::Job(job)) = self.store.get(key).cloned() else {
            return;
        };
        if !needs_cleanup(&job) {
            return;
        }
        let ttl = job
            .spec
            .as_ref()
            .and_then(|s| s.ttl_seconds_after_finished)
            .unwrap_or(0)
            .max(0) as u64;
        let Some(finished) = finish_time(&job) else {
            return;
        };
        let expire_at = finished + SimDuration::secs(ttl);
        if self.now < expire_at {
            self.schedule(expire_at, Timer::TtlAfterFinished(key.clone()));
            return;
        }
        // Upstream deletes with a uid precondition and foreground propagation.
        if self
            .delete_with_options_as(ACTOR, key, None, Some(Propagation::Foreground))
            .is_err()
            && self.store.get(key).is_some()
        {
            self.requeue_rate_limited(Component::TtlAfterFinishedController, key.clone());
        }
    }
}
