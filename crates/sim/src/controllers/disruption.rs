//! The disruption controller: the status of every PodDisruptionBudget. Mirrors
//! pkg/controller/disruption/disruption.go (`trySync`, `getExpectedPodCount`,
//! `getExpectedScale`, `countHealthyPods`, `buildDisruptedPodMap`,
//! `updatePdbStatus`, `failSafe`) and pkg/apis/policy/helper
//! (`UpdateDisruptionAllowedCondition`).
//!
//! A budget selects pods in its namespace (an empty selector selects all of them, a
//! missing one none). With an integer `minAvailable` the pods it selects are the
//! expected count and `minAvailable` the desired healthy count; with a percentage
//! or `maxUnavailable`, the expected count is the sum of the replicas of the pods'
//! controllers (a Deployment through its ReplicaSet, a ReplicaSet, a StatefulSet),
//! and a pod without one is an error (`CalculateExpectedPodCountFailed`). Healthy
//! pods are Ready, not being deleted, and not in `status.disruptedPods` (pods an
//! eviction was granted for in the last two minutes, `DeletionTimeout`).
//! `disruptionsAllowed` is healthy minus desired, never below zero, and zero while
//! nothing is expected. The eviction subresource (`apiserver/eviction.rs`) reads
//! this status and spends it.
//!
//! The spec and status are read from and written to the stored JSON: a
//! PodDisruptionBudget is checked against the OpenAPI table like the stored-only
//! kinds, without a typed decoder of its own in the browser build.
//!
//! Simplifications: a pod matching several budgets queues all of them (upstream
//! picks one and records `MultiplePodDisruptionBudgets` on the pod); a stale
//! `DisruptionTarget` condition on a pod that was not deleted is not reset.

use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey, OtherObject};
use crate::store::{EventType, WatchEvent};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub(crate) const ID: ControllerId = ControllerId::new("disruption-controller");
const ACTOR: Actor = Actor::Controller(ID.name());
/// How long a granted eviction keeps its pod out of the healthy count while the
/// pod is not yet being deleted (`DeletionTimeout`).
pub const DELETION_TIMEOUT: SimDuration = SimDuration::secs(120);
/// The condition the controller and the eviction subresource keep.
const CONDITION: &str = "DisruptionAllowed";

/// The disruption controller.
pub(crate) struct DisruptionController;

impl Controller for DisruptionController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        match &*ev.object {
            Object::Other(o)
                if o.kind == Kind::PodDisruptionBudget && ev.event_type != EventType::Deleted =>
            {
                keys.push(ev.object.key());
            }
            Object::Pod(pod) => {
                budgets_selecting(c, pod, keys);
                if let Some(Object::Pod(old)) = ev.old.as_deref() {
                    if old.metadata.labels != pod.metadata.labels {
                        budgets_selecting(c, old, keys);
                    }
                }
            }
            _ => {}
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(
            c.store
                .list(Kind::PodDisruptionBudget, None)
                .map(Object::key),
        );
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.sync_disruption_budget(key)
    }

    fn requeue_after_reason(&self) -> &'static str {
        "disrupted pods recheck"
    }
}

/// Queues the budgets in the pod's namespace whose selector matches its labels.
fn budgets_selecting(c: &Cluster, pod: &Pod, keys: &mut Vec<ObjectKey>) {
    let ns = pod.metadata.namespace.as_deref().unwrap_or("default");
    let none = BTreeMap::new();
    let labels = pod.metadata.labels.as_ref().unwrap_or(&none);
    for budget in c.store.list(Kind::PodDisruptionBudget, Some(ns)) {
        let Object::Other(o) = budget else { continue };
        let spec = BudgetSpec::of(o);
        if spec.controller_selects(labels) {
            keys.push(budget.key());
        }
    }
}

/// What the controller and the eviction subresource read of a budget's spec.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BudgetSpec {
    pub min_available: Option<IntOrString>,
    pub max_unavailable: Option<IntOrString>,
    /// `None` when the budget has no selector (it then selects nothing).
    pub selector: Option<LabelSelector>,
    pub unhealthy_pod_eviction_policy: Option<String>,
}

impl BudgetSpec {
    /// The spec of a stored (or decoded) PodDisruptionBudget. Fields of the wrong
    /// type read as unset: the OpenAPI check refused them before they were stored.
    pub fn of(o: &OtherObject) -> BudgetSpec {
        let spec = o.fields.get("spec");
        let field = |name: &str| spec.and_then(|s| s.get(name));
        let int_or_string = |name: &str| match field(name)? {
            Value::Number(n) => n
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .map(IntOrString::Int),
            Value::String(s) => Some(IntOrString::String(s.clone())),
            _ => None,
        };
        BudgetSpec {
            min_available: int_or_string("minAvailable"),
            max_unavailable: int_or_string("maxUnavailable"),
            selector: field("selector")
                .filter(|v| !v.is_null())
                .and_then(|v| crate::object::decode::from_value(v.clone()).ok()),
            unhealthy_pod_eviction_policy: field("unhealthyPodEvictionPolicy")
                .and_then(Value::as_str)
                .map(str::to_string),
        }
    }

    /// Whether the controller counts a pod with these labels (policy/v1: an empty
    /// selector matches every pod, a missing one none).
    pub fn controller_selects(&self, labels: &BTreeMap<String, String>) -> bool {
        self.selector
            .as_ref()
            .is_some_and(|s| super::selector_matches(s, labels))
    }

    /// Whether the eviction subresource applies this budget to a pod: as the
    /// controller, except that an empty selector matches nothing there
    /// (`getPodDisruptionBudgets` in pkg/registry/core/pod/storage/eviction.go).
    pub fn eviction_selects(&self, labels: &BTreeMap<String, String>) -> bool {
        self.selector.as_ref().is_some_and(|s| {
            let empty = s.match_labels.as_ref().is_none_or(|l| l.is_empty())
                && s.match_expressions.as_ref().is_none_or(|e| e.is_empty());
            !empty && super::selector_matches(s, labels)
        })
    }
}

/// A budget's status as the controller writes it (`PodDisruptionBudgetStatus`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BudgetStatus {
    pub observed_generation: i64,
    pub disruptions_allowed: i64,
    pub current_healthy: i64,
    pub desired_healthy: i64,
    pub expected_pods: i64,
    /// Pod name → when an eviction was granted for it.
    pub disrupted_pods: BTreeMap<String, SimTime>,
}

impl BudgetStatus {
    /// The status stored on a budget (zeros where it has none yet).
    pub fn of(o: &OtherObject) -> BudgetStatus {
        let status = o.fields.get("status");
        let int = |name: &str| {
            status
                .and_then(|s| s.get(name))
                .and_then(Value::as_i64)
                .unwrap_or(0)
        };
        let disrupted_pods = status
            .and_then(|s| s.get("disruptedPods"))
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(name, at)| {
                        let at: Time = crate::object::decode::from_value(at.clone()).ok()?;
                        Some((name.clone(), SimTime::from_k8s(&at)))
                    })
                    .collect()
            })
            .unwrap_or_default();
        BudgetStatus {
            observed_generation: int("observedGeneration"),
            disruptions_allowed: int("disruptionsAllowed"),
            current_healthy: int("currentHealthy"),
            desired_healthy: int("desiredHealthy"),
            expected_pods: int("expectedPods"),
            disrupted_pods,
        }
    }
}

/// The `DisruptionAllowed` condition of a status, as `metav1.Condition` JSON.
fn condition_of(status: &Value) -> Option<&Map<String, Value>> {
    status
        .get("conditions")?
        .as_array()?
        .iter()
        .filter_map(Value::as_object)
        .find(|c| c.get("type").and_then(Value::as_str) == Some(CONDITION))
}

/// Writes `status` into the budget's JSON with its `DisruptionAllowed` condition
/// set as `UpdateDisruptionAllowedCondition` (through `meta.SetStatusCondition`)
/// sets it: True/SufficientPods when a disruption is allowed, else
/// False/InsufficientPods; the transition time moves only when the status flips.
/// `sync_failed` is the message of `failSafe`'s False/SyncFailed instead.
pub(crate) fn write_status(
    o: &mut OtherObject,
    status: &BudgetStatus,
    sync_failed: Option<&str>,
    now: SimTime,
) {
    let old = o.fields.get("status").cloned().unwrap_or(Value::Null);
    let mut conditions: Vec<Value> = old
        .get("conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let (cond_status, reason, message) = match sync_failed {
        Some(m) => ("False", "SyncFailed", m),
        None if status.disruptions_allowed > 0 => ("True", "SufficientPods", ""),
        None => ("False", "InsufficientPods", ""),
    };
    let transition = match condition_of(&old) {
        Some(c) if c.get("status").and_then(Value::as_str) == Some(cond_status) => c
            .get("lastTransitionTime")
            .cloned()
            .unwrap_or_else(|| time_value(now)),
        _ => time_value(now),
    };
    let mut cond = Map::new();
    cond.insert("type".into(), CONDITION.into());
    cond.insert("status".into(), cond_status.into());
    cond.insert(
        "observedGeneration".into(),
        status.observed_generation.into(),
    );
    cond.insert("lastTransitionTime".into(), transition);
    cond.insert("reason".into(), reason.into());
    cond.insert("message".into(), message.into());
    match conditions
        .iter_mut()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(CONDITION))
    {
        Some(existing) => *existing = Value::Object(cond),
        None => conditions.push(Value::Object(cond)),
    }
    let mut s = Map::new();
    if !status.disrupted_pods.is_empty() {
        let pods: Map<String, Value> = status
            .disrupted_pods
            .iter()
            .map(|(name, at)| (name.clone(), time_value(*at)))
            .collect();
        s.insert("disruptedPods".into(), Value::Object(pods));
    }
    s.insert(
        "observedGeneration".into(),
        status.observed_generation.into(),
    );
    s.insert(
        "disruptionsAllowed".into(),
        status.disruptions_allowed.into(),
    );
    s.insert("currentHealthy".into(), status.current_healthy.into());
    s.insert("desiredHealthy".into(), status.desired_healthy.into());
    s.insert("expectedPods".into(), status.expected_pods.into());
    s.insert("conditions".into(), Value::Array(conditions));
    o.fields.insert("status".into(), Value::Object(s));
}

/// `ConditionsAreUpToDate`: the condition exists, was written for the observed
/// generation and agrees with `disruptionsAllowed`.
fn conditions_up_to_date(o: &OtherObject, status: &BudgetStatus) -> bool {
    let Some(c) = o.fields.get("status").and_then(condition_of) else {
        return false;
    };
    let want = if status.disruptions_allowed > 0 {
        "True"
    } else {
        "False"
    };
    c.get("observedGeneration").and_then(Value::as_i64) == Some(status.observed_generation)
        && c.get("status").and_then(Value::as_str) == Some(want)
}

fn time_value(t: SimTime) -> Value {
    crate::object::to_json_value(&t.to_k8s())
}

/// Why the expected count could not be worked out (`getExpectedScale`).
struct NoController(String);

impl Cluster {
    fn sync_disruption_budget(&mut self, key: &ObjectKey) -> Action {
        let Some(Object::Other(budget)) = self.store.get(key).cloned() else {
            return Action::Done;
        };
        if budget.metadata.deletion_timestamp.is_some() {
            return Action::Done;
        }
        let spec = BudgetSpec::of(&budget);
        let pods: Vec<Pod> = self
            .store
            .list(Kind::Pod, Some(&key.namespace))
            .filter_map(|o| match o {
                Object::Pod(p) => Some(p),
                _ => None,
            })
            .filter(|p| {
                spec.controller_selects(p.metadata.labels.as_ref().unwrap_or(&BTreeMap::new()))
            })
            .map(|p| (**p).clone())
            .collect();
        let about = Object::Other(budget.clone());
        if pods.is_empty() {
            self.record_event(
                &about,
                ID.name(),
                None,
                "Normal",
                "NoPods",
                "No matching pods found".into(),
            );
        }
        let (expected, desired, unmanaged) = match self.expected_pod_count(&spec, &pods) {
            Ok(x) => x,
            Err(NoController(e)) => {
                let message = format!("found no controllers for pod \"{e}\"");
                self.record_event(
                    &about,
                    ID.name(),
                    None,
                    "Warning",
                    "CalculateExpectedPodCountFailed",
                    format!("Failed to calculate the number of expected pods: {message}"),
                );
                return self.disruption_fail_safe(budget, &message);
            }
        };
        if unmanaged {
            self.record_event(
                &about,
                ID.name(),
                None,
                "Warning",
                "UnmanagedPods",
                format!(
                    "Pods selected by this PodDisruptionBudget (selector: {}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value.",
                    go_selector(spec.selector.as_ref())
                ),
            );
        }
        let old = BudgetStatus::of(&budget);
        // buildDisruptedPodMap: granted evictions still waiting for their pod's
        // deletion, and when the earliest of them runs out.
        let mut disrupted_pods = BTreeMap::new();
        let mut recheck: Option<SimTime> = None;
        for pod in &pods {
            if pod.metadata.deletion_timestamp.is_some() {
                continue;
            }
            let name = pod.metadata.name.clone().unwrap_or_default();
            let Some(at) = old.disrupted_pods.get(&name) else {
                continue;
            };
            let expected_deletion = *at + DELETION_TIMEOUT;
            if expected_deletion < self.now {
                self.record_event(
                    &Object::Pod(Box::new(pod.clone())),
                    ID.name(),
                    None,
                    "Warning",
                    "NotDeleted",
                    // Upstream prints the budget's namespace twice.
                    format!(
                        "Pod was expected by PDB {}/{} to be deleted but it wasn't",
                        key.namespace, key.namespace
                    ),
                );
            } else {
                recheck = Some(recheck.map_or(expected_deletion, |r| r.min(expected_deletion)));
                disrupted_pods.insert(name, *at);
            }
        }
        let current_healthy = pods
            .iter()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .filter(|p| {
                let name = p.metadata.name.as_deref().unwrap_or("");
                disrupted_pods
                    .get(name)
                    .is_none_or(|at| *at + DELETION_TIMEOUT <= self.now)
            })
            .filter(|p| super::pod_is_ready(p))
            .count() as i64;
        let allowed = current_healthy - desired;
        let status = BudgetStatus {
            observed_generation: budget.metadata.generation.unwrap_or(0),
            disruptions_allowed: if expected <= 0 || allowed <= 0 {
                0
            } else {
                allowed
            },
            current_healthy,
            desired_healthy: desired,
            expected_pods: expected,
            disrupted_pods,
        };
        let result = if status == old && conditions_up_to_date(&budget, &status) {
            Ok(())
        } else {
            let mut updated = budget;
            write_status(&mut updated, &status, None, self.now);
            self.update_as(ACTOR, Object::Other(updated)).map(|_| ())
        };
        if result.is_ok() {
            if let Some(at) = recheck {
                self.enqueue_after(ID, key.clone(), at);
            }
        }
        Action::after_writes([result])
    }

    /// `failSafe`: no disruption allowed, and the condition says why.
    fn disruption_fail_safe(&mut self, budget: Box<OtherObject>, message: &str) -> Action {
        let mut status = BudgetStatus::of(&budget);
        status.disruptions_allowed = 0;
        let mut updated = budget;
        write_status(&mut updated, &status, Some(message), self.now);
        let result = self.update_as(ACTOR, Object::Other(updated)).map(|_| ());
        Action::after_writes([result])
    }

    /// `getExpectedPodCount`: (expected pods, desired healthy, whether some selected
    /// pod has no controller).
    fn expected_pod_count(
        &self,
        spec: &BudgetSpec,
        pods: &[Pod],
    ) -> Result<(i64, i64, bool), NoController> {
        if let Some(max) = &spec.max_unavailable {
            let (expected, unmanaged) = self.expected_scale(pods)?;
            let max = scaled(max, expected);
            return Ok((expected, (expected - max).max(0), unmanaged));
        }
        match &spec.min_available {
            Some(IntOrString::Int(n)) => Ok((pods.len() as i64, i64::from(*n), false)),
            Some(min) => {
                let (expected, unmanaged) = self.expected_scale(pods)?;
                Ok((expected, scaled(min, expected), unmanaged))
            }
            None => Ok((0, 0, false)),
        }
    }

    /// `getExpectedScale`: the replicas of every controller of the selected pods,
    /// each controller counted once; whether some pod has no controller.
    fn expected_scale(&self, pods: &[Pod]) -> Result<(i64, bool), NoController> {
        let mut scales: BTreeMap<String, i64> = BTreeMap::new();
        let mut unmanaged = false;
        for pod in pods {
            let Some(owner) = pod
                .metadata
                .owner_references
                .iter()
                .flatten()
                .find(|r| r.controller == Some(true))
            else {
                unmanaged = true;
                continue;
            };
            if scales.contains_key(&owner.uid) {
                continue;
            }
            let ns = pod.metadata.namespace.as_deref().unwrap_or("default");
            let (uid, scale) = self
                .controller_scale(ns, &owner.kind, &owner.name, &owner.uid)
                .ok_or_else(|| NoController(pod.metadata.name.clone().unwrap_or_default()))?;
            scales.insert(uid, scale);
        }
        Ok((scales.values().sum(), unmanaged))
    }

    /// The finders: a ReplicaSet's Deployment (or the ReplicaSet itself), a
    /// StatefulSet. The controller's uid and its `spec.replicas`.
    fn controller_scale(
        &self,
        ns: &str,
        kind: &str,
        name: &str,
        uid: &str,
    ) -> Option<(String, i64)> {
        let get = |kind: Kind, name: &str| self.store.get(&ObjectKey::new(kind, ns, name));
        match (kind, get(Kind::ReplicaSet, name)) {
            ("ReplicaSet", Some(Object::ReplicaSet(rs)))
                if rs.metadata.uid.as_deref() == Some(uid) =>
            {
                let deployment = rs
                    .metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .find(|r| r.controller == Some(true) && r.kind == "Deployment");
                match deployment {
                    Some(r) => match get(Kind::Deployment, &r.name) {
                        Some(Object::Deployment(d))
                            if d.metadata.uid.as_deref() == Some(&r.uid) =>
                        {
                            Some((r.uid.clone(), i64::from(d.spec.replicas.unwrap_or(1))))
                        }
                        _ => None,
                    },
                    None => Some((uid.to_string(), i64::from(rs.spec.replicas.unwrap_or(1)))),
                }
            }
            ("StatefulSet", _) => match get(Kind::StatefulSet, name) {
                Some(Object::Other(sts)) if sts.metadata.uid.as_deref() == Some(uid) => {
                    let replicas = sts
                        .fields
                        .get("spec")
                        .and_then(|s| s.get("replicas"))
                        .and_then(Value::as_i64)
                        .unwrap_or(1);
                    Some((uid.to_string(), replicas))
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// `GetScaledValueFromIntOrPercent(v, total, true)`.
fn scaled(v: &IntOrString, total: i64) -> i64 {
    let total = i32::try_from(total).unwrap_or(i32::MAX);
    i64::from(super::deployment::scaled_value(v, total, true))
}

/// A label selector as Go's `%v` prints a `*metav1.LabelSelector` (its generated
/// `String()`), as the UnmanagedPods event shows it.
fn go_selector(selector: Option<&LabelSelector>) -> String {
    let Some(s) = selector else {
        return "nil".into();
    };
    let labels: String = s
        .match_labels
        .iter()
        .flatten()
        .map(|(k, v)| format!("{k}: {v},"))
        .collect();
    let expressions: String = s
        .match_expressions
        .iter()
        .flatten()
        .map(|e| {
            format!(
                "LabelSelectorRequirement{{Key:{},Operator:{},Values:[{}],}},",
                e.key,
                e.operator,
                e.values.as_deref().unwrap_or(&[]).join(" ")
            )
        })
        .collect();
    format!(
        "&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{{expressions}}},}}"
    )
}
