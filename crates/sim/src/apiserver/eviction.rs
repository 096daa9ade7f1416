//! The `pods/eviction` subresource (pkg/registry/core/pod/storage/eviction.go): an
//! Eviction for a pod marks it with a `DisruptionTarget` condition
//! (`EvictionByEvictionAPI`) and deletes it with the eviction's grace period.
//!
//! Simplification: PodDisruptionBudgets are stored only in this simulator, so an
//! eviction never checks one (upstream answers 429 TooManyRequests when a budget has
//! no disruption left).

use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::controllers::set_pod_condition;
use crate::error::ApiError;
use crate::object::{Kind, Object, ObjectKey};
use k8s_openapi::api::core::v1::PodCondition;

impl Cluster {
    /// `POST /api/v1/namespaces/NS/pods/NAME/eviction` as `actor` (the desk already
    /// authorized it: [`crate::apiserver::request::Body::Evict`]), with the eviction's
    /// `deleteOptions.gracePeriodSeconds`. Returns the pod as it stands after.
    pub(crate) fn evict_as(
        &mut self,
        actor: Actor,
        namespace: &str,
        name: &str,
        grace_period_seconds: Option<i64>,
    ) -> Result<std::sync::Arc<Object>, ApiError> {
        let key = ObjectKey::new(Kind::Pod, namespace, name);
        let Some(Object::Pod(pod)) = self.store.get(&key).cloned() else {
            return Err(ApiError::not_found("pods", name));
        };
        if pod.metadata.deletion_timestamp.is_some() {
            // Already terminating: the eviction succeeds without another delete.
            return Ok(std::sync::Arc::new(Object::Pod(pod)));
        }
        let mut marked = pod;
        set_pod_condition(
            &mut marked,
            PodCondition {
                type_: "DisruptionTarget".into(),
                status: "True".into(),
                reason: Some("EvictionByEvictionAPI".into()),
                message: Some("Eviction API: evicting".into()),
                last_transition_time: Some(self.now.to_k8s()),
                ..Default::default()
            },
        );
        self.update_as(actor.clone(), Object::Pod(marked))?;
        self.delete_with_options_as(actor, &key, grace_period_seconds, None)
    }
}
