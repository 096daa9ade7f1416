//! The `pods/eviction` subresource (pkg/registry/core/pod/storage/eviction.go): an
//! Eviction for a pod checks the PodDisruptionBudget that covers it, then marks the
//! pod with a `DisruptionTarget` condition (`EvictionByEvictionAPI`) and deletes it
//! with the eviction's grace period.
//!
//! A pod that is Pending, finished or already being deleted is deleted without a
//! look at budgets (`canIgnorePDB`). Otherwise the budgets of its namespace whose
//! (non-empty) selector matches it decide: none lets the eviction through, more than
//! one is a 500. With one (`checkAndDecrement`): a budget whose status is older
//! than its spec, or that allows no disruption, answers 429 TooManyRequests ("Cannot
//! evict pod as it would violate the pod's disruption budget."), which kubectl
//! drain retries every 5 seconds; otherwise the apiserver spends one disruption
//! (`disruptionsAllowed` minus one, the pod's name in `disruptedPods`) before it
//! deletes the pod. A pod that is not Ready is deleted without spending one when the
//! budget's `unhealthyPodEvictionPolicy` is AlwaysAllow, or, by default
//! (IfHealthyBudget), when the budget has its desired healthy pods anyway.

use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::controllers::disruption::{write_status, BudgetSpec, BudgetStatus};
use crate::controllers::{pod_is_ready, set_pod_condition};
use crate::error::{ApiError, StatusReason};
use crate::object::{Kind, Object, ObjectKey, OtherObject};
use k8s_openapi::api::core::v1::{Pod, PodCondition};
use std::sync::Arc;

/// The message of every refusal for want of a disruption (`createTooManyRequestsError`
/// and `checkAndDecrement`).
pub const BUDGET_VIOLATED: &str =
    "Cannot evict pod as it would violate the pod's disruption budget.";

impl Cluster {
    /// `POST /api/v1/namespaces/NS/pods/NAME/eviction` as `actor` (the desk already
    /// authorized it: [`crate::apiserver::request::Body::Evict`]), with the eviction's
    /// `deleteOptions.gracePeriodSeconds`. Returns the pod as it stands after.
    ///
    /// One request in the desk's log, `create pods/NAME/eviction`, answered 201 or
    /// refused (429 for a budget); the pod's condition and its deletion are the
    /// handler's own writes, not requests of their own. The budget's new status is
    /// written through the apiserver's loopback client, as `system:apiserver`.
    pub(crate) fn evict_as(
        &mut self,
        actor: Actor,
        namespace: &str,
        name: &str,
        grace_period_seconds: Option<i64>,
    ) -> Result<Arc<Object>, ApiError> {
        self.connect_as()?;
        self.reachable_from(&actor)?;
        let arrived = self.feed.next_seq();
        let user = actor.username();
        self.current_actor = user.clone();
        let key = ObjectKey::new(Kind::Pod, namespace, name);
        let result = self.evict_inner(&key, &user, grace_period_seconds);
        let code = match &result {
            Ok(_) => 201,
            Err(e) => e.code(),
        };
        let target = (
            "pods/eviction".to_string(),
            namespace.to_string(),
            name.to_string(),
        );
        let verdict = result.as_ref().map(|_| ()).map_err(Clone::clone);
        self.record_request_to(&user, "create", target, code, &verdict, arrived);
        result
    }

    fn evict_inner(
        &mut self,
        key: &ObjectKey,
        user: &str,
        grace_period_seconds: Option<i64>,
    ) -> Result<Arc<Object>, ApiError> {
        let Some(Object::Pod(pod)) = self.store.get(key).cloned() else {
            return Err(ApiError::not_found("pods", &key.name));
        };
        if pod.metadata.deletion_timestamp.is_some() {
            // Already terminating: the eviction succeeds without another delete.
            return Ok(Arc::new(Object::Pod(pod)));
        }
        if !can_ignore_budgets(&pod) {
            self.spend_disruption(&pod)?;
            // The loopback write above was the apiserver's; what follows is the
            // caller's request again.
            self.current_actor = user.to_string();
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
        self.update_inner(Object::Pod(marked))?;
        self.delete_inner(key, grace_period_seconds, None)
    }

    /// The budget check of an eviction: Ok when the pod may go (a disruption was
    /// spent if one had to be), or the refusal.
    fn spend_disruption(&mut self, pod: &Pod) -> Result<(), ApiError> {
        let namespace = pod.metadata.namespace.as_deref().unwrap_or("default");
        let none = std::collections::BTreeMap::new();
        let labels = pod.metadata.labels.as_ref().unwrap_or(&none);
        let budgets: Vec<Box<OtherObject>> = self
            .store
            .list(Kind::PodDisruptionBudget, Some(namespace))
            .filter_map(|o| match o {
                Object::Other(b) if BudgetSpec::of(b).eviction_selects(labels) => Some(b.clone()),
                _ => None,
            })
            .collect();
        let budget = match <[_; 1]>::try_from(budgets) {
            Ok([budget]) => budget,
            Err(budgets) if budgets.is_empty() => return Ok(()),
            Err(_) => {
                return Err(ApiError::new(
                    StatusReason::Unknown,
                    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
                ))
            }
        };
        let spec = BudgetSpec::of(&budget);
        let mut status = BudgetStatus::of(&budget);
        if !pod_is_ready(pod) {
            let always = spec.unhealthy_pod_eviction_policy.as_deref() == Some("AlwaysAllow");
            if always
                || (status.current_healthy >= status.desired_healthy && status.desired_healthy > 0)
            {
                // Not counted as healthy: nothing to spend.
                return Ok(());
            }
        }
        if status.observed_generation < budget.metadata.generation.unwrap_or(0) {
            return Err(ApiError::new(
                StatusReason::TooManyRequests,
                BUDGET_VIOLATED,
            ));
        }
        if status.disruptions_allowed < 0 {
            return Err(ApiError::new(
                StatusReason::Forbidden,
                format!(
                    "poddisruptionbudget.policy \"{}\" is forbidden: pdb disruptions allowed is negative",
                    budget.metadata.name.as_deref().unwrap_or("")
                ),
            ));
        }
        if status.disruptions_allowed == 0 {
            return Err(ApiError::new(
                StatusReason::TooManyRequests,
                BUDGET_VIOLATED,
            ));
        }
        status.disruptions_allowed -= 1;
        let pod_name = pod.metadata.name.clone().unwrap_or_default();
        status.disrupted_pods.insert(pod_name, self.now);
        let mut updated = budget;
        write_status(&mut updated, &status, None, self.now);
        self.update_as(Actor::System, Object::Other(updated))?;
        Ok(())
    }
}

/// `canIgnorePDB`: a pod that is Pending or finished (or being deleted) disrupts
/// nothing a budget counts.
fn can_ignore_budgets(pod: &Pod) -> bool {
    let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
    matches!(phase, Some("Succeeded" | "Failed" | "Pending"))
        || pod.metadata.deletion_timestamp.is_some()
}
