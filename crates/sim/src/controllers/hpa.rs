//! The HorizontalPodAutoscaler controller. Mirrors pkg/controller/podautoscaler:
//! horizontal.go (`reconcileAutoscaler`, `normalizeDesiredReplicasWithBehaviors`,
//! `stabilizeRecommendationWithBehaviors`, `convertDesiredReplicasWithBehaviorRate`,
//! the conditions and events) and replica_calculator.go (`GetResourceReplicas`,
//! `groupPods`, the 0.1 tolerance).
//!
//! Every 15 s (`--horizontal-pod-autoscaler-sync-period`) each autoscaler reads its
//! target's replicas and selector, and for each Resource metric (cpu or memory) the
//! usage of the target's pods from the metrics API (metrics-server's latest scrape:
//! `views/metrics.rs`), in milli-units as upstream's metrics client reads them. An
//! `averageUtilization` target compares usage over requests with it, an
//! `averageValue` target the average usage: outside the tolerance, the desired count
//! is the ratio times the ready pods, rounded up (pods not yet ready count as idle
//! when scaling up; cpu only has the readiness rules). The highest proposal of the
//! metrics wins; when every metric fails, or some fail and the rest would scale
//! down, the count is kept. The count is then held by the stabilization
//! windows (none up, 300 s down: the highest recommendation of the last five minutes
//! wins), limited by `behavior`'s scaling policies (Pods or Percent per period, each
//! counted from the replicas at its period's start, chosen by `selectPolicy` Max,
//! Min or Disabled; the defaults: up the larger of 100% or 4 pods per 15 s, down 100%
//! per 15 s) or, without `behavior`, by `calculateScaleUpLimit` (up to twice the
//! current count or 4), and by minReplicas and maxReplicas, and written to the
//! target's replicas. Status: the current and desired replicas, the current metric,
//! `lastScaleTime` and the AbleToScale, ScalingActive and ScalingLimited conditions.
//!
//! autoscaling/v2 and v1 (`targetCPUUtilizationPercentage`, 80 by default) are read
//! from the stored JSON through the served v2 view (`served_as_v2`). Simplified: the
//! Pods, Object, External and ContainerResource metric sources fail with a message
//! saying the cluster has no API for them, and `behavior`'s per-direction
//! `tolerance` (alpha) is not read.

use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey, OtherObject};
use crate::store::{EventType, WatchEvent};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

pub(crate) const ID: ControllerId = ControllerId::new("horizontal-pod-autoscaler");
const ACTOR: Actor = Actor::Controller(ID.name());
/// How often every autoscaler is looked at.
pub const SYNC_PERIOD: SimDuration = SimDuration::secs(15);
/// `--horizontal-pod-autoscaler-tolerance`.
pub const TOLERANCE: f64 = 0.1;
/// `--horizontal-pod-autoscaler-downscale-stabilization` (the default window).
pub const DOWNSCALE_STABILIZATION_SECS: i64 = 300;
/// `--horizontal-pod-autoscaler-cpu-initialization-period`.
const CPU_INITIALIZATION_MS: u64 = 300_000;
/// `--horizontal-pod-autoscaler-initial-readiness-delay`.
const INITIAL_READINESS_DELAY_MS: u64 = 30_000;

/// The autoscaler controller.
pub(crate) struct HorizontalPodAutoscaler;

impl Controller for HorizontalPodAutoscaler {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, _c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        if let Object::Other(o) = &*ev.object {
            if o.kind == Kind::HorizontalPodAutoscaler && ev.event_type == EventType::Added {
                keys.push(ev.object.key());
            }
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(
            c.store
                .list(Kind::HorizontalPodAutoscaler, None)
                .map(Object::key),
        );
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.sync_autoscaler(key)
    }

    fn requeue_after_reason(&self) -> &'static str {
        "sync period"
    }
}

/// What the controller remembers of one autoscaler between syncs (in memory
/// upstream too): its recent recommendations and rescales.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AutoscalerMemory {
    /// (when, recommended replicas), for the stabilization windows.
    recommendations: Vec<(SimTime, i32)>,
    /// (when, replicas added), for the scaling policies (`scaleUpEvents`).
    scale_ups: Vec<(SimTime, i32)>,
    /// (when, replicas removed), for the scaling policies (`scaleDownEvents`).
    #[serde(default)]
    scale_downs: Vec<(SimTime, i32)>,
}

/// What the controller reads of an autoscaler's spec.
#[derive(Clone, Debug, PartialEq)]
pub struct AutoscalerSpec {
    pub target_kind: String,
    pub target_name: String,
    pub min_replicas: i32,
    pub max_replicas: i32,
    /// `spec.metrics` as the served v2 view has them (a v1 object's cpu target, 80%
    /// cpu utilization when none is given).
    pub metrics: Vec<MetricSpec>,
    /// `spec.behavior` with its defaults filled in, if it is set: without it
    /// upstream keeps the highest recommendation of the default window and limits a
    /// scale-up to twice the current count or 4, whichever is more
    /// (`normalizeDesiredReplicas`, `calculateScaleUpLimit`).
    pub behavior: Option<Behavior>,
}

/// One of `spec.metrics`.
#[derive(Clone, Debug, PartialEq)]
pub enum MetricSpec {
    /// A Resource metric (cpu or memory) of the target's pods.
    Resource { name: String, target: MetricTarget },
    /// A metric source this cluster has no API for (Pods, Object, External,
    /// ContainerResource), with its type and what it names.
    Unsupported { type_: String, name: String },
}

/// A Resource metric's target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricTarget {
    /// `averageUtilization`: percent of the pods' requests.
    Utilization(i64),
    /// `averageValue`, in milli-units (millicores, millibytes) as upstream counts.
    AverageValue(i64),
    /// Neither is set.
    Missing,
}

impl MetricSpec {
    fn of(m: &Value) -> MetricSpec {
        let text = |p: &str| {
            m.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let type_ = text("/type");
        if type_ != "Resource" {
            let name = match type_.as_str() {
                "ContainerResource" => text("/containerResource/name"),
                "Pods" => text("/pods/metric/name"),
                "Object" => text("/object/metric/name"),
                "External" => text("/external/metric/name"),
                _ => String::new(),
            };
            return MetricSpec::Unsupported { type_, name };
        }
        let target = m.pointer("/resource/target");
        let value = target
            .and_then(|t| t.get("averageValue"))
            .and_then(|q| match q {
                Value::String(text) => crate::object::quantity::Quantity::parse(text),
                Value::Number(n) => crate::object::quantity::Quantity::parse(&n.to_string()),
                _ => None,
            })
            .map(|q| i64::try_from(q.milli_value()).unwrap_or(i64::MAX));
        let utilization = target
            .and_then(|t| t.get("averageUtilization"))
            .and_then(Value::as_i64);
        MetricSpec::Resource {
            name: text("/resource/name"),
            target: match (value, utilization) {
                (Some(v), _) => MetricTarget::AverageValue(v),
                (None, Some(u)) => MetricTarget::Utilization(u),
                (None, None) => MetricTarget::Missing,
            },
        }
    }
}

/// `spec.behavior`, defaulted (pkg/apis/autoscaling/v2 `GenerateHPAScaleUpRules`,
/// `GenerateHPAScaleDownRules`).
#[derive(Clone, Debug, PartialEq)]
pub struct Behavior {
    pub scale_up: ScalingRules,
    pub scale_down: ScalingRules,
}

/// `HPAScalingRules`: a stabilization window, a policy selection and the policies.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingRules {
    pub window_secs: i64,
    pub select: SelectPolicy,
    pub policies: Vec<ScalingPolicy>,
}

/// `selectPolicy`: Max (the default) takes the policy allowing the biggest change,
/// Min the smallest, Disabled turns scaling in that direction off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectPolicy {
    Max,
    Min,
    Disabled,
}

/// `HPAScalingPolicy`: at most `value` pods, or `value` percent, per `period_secs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScalingPolicy {
    pub percent: bool,
    pub value: i64,
    pub period_secs: i64,
}

impl ScalingRules {
    fn of(rules: &Value, default_window: i64) -> ScalingRules {
        ScalingRules {
            window_secs: rules
                .get("stabilizationWindowSeconds")
                .and_then(Value::as_i64)
                .unwrap_or(default_window),
            select: match rules.get("selectPolicy").and_then(Value::as_str) {
                Some("Min") => SelectPolicy::Min,
                Some("Disabled") => SelectPolicy::Disabled,
                _ => SelectPolicy::Max,
            },
            policies: rules
                .get("policies")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|p| ScalingPolicy {
                    percent: p.get("type").and_then(Value::as_str) == Some("Percent"),
                    value: p.get("value").and_then(Value::as_i64).unwrap_or(0),
                    period_secs: p.get("periodSeconds").and_then(Value::as_i64).unwrap_or(0),
                })
                .collect(),
        }
    }

    /// `getLongestPolicyPeriod`.
    fn longest_period_secs(&self) -> i64 {
        self.policies
            .iter()
            .map(|p| p.period_secs)
            .max()
            .unwrap_or(0)
    }
}

/// `getReplicasChangePerPeriod`: the replicas added (or removed) within the last
/// `period_secs`.
fn change_in_period(events: &[(SimTime, i32)], now: SimTime, period_secs: i64) -> i64 {
    let cutoff = now.0.saturating_sub(secs_to_ms(period_secs));
    events
        .iter()
        .filter(|(at, _)| at.0 > cutoff)
        .map(|(_, n)| i64::from(*n))
        .sum()
}

/// The replicas at the start of a policy's period: the current count less what was
/// added within it, plus what was removed.
fn period_start(current: i32, memory: &AutoscalerMemory, now: SimTime, period_secs: i64) -> i64 {
    i64::from(current) - change_in_period(&memory.scale_ups, now, period_secs)
        + change_in_period(&memory.scale_downs, now, period_secs)
}

/// `resource.NewMilliQuantity(milli, DecimalSI).String()`: `250m`, `1`, `10485760`.
fn milli_quantity(milli: i64) -> String {
    crate::object::quantity::Quantity::from_milli(milli).to_string()
}

fn secs_to_ms(secs: i64) -> u64 {
    u64::try_from(secs.max(0)).unwrap_or(0).saturating_mul(1000)
}

fn clamp_i32(v: i64) -> i32 {
    i32::try_from(v.clamp(i64::from(i32::MIN), i64::from(i32::MAX))).unwrap_or(0)
}

/// `calculateScaleUpLimitWithScalingRules` (`up`: the most replicas the policies
/// allow now) and `calculateScaleDownLimitWithBehaviors` (the fewest), each policy
/// counting from the replicas at the start of its period.
fn policy_limit(
    current: i32,
    memory: &AutoscalerMemory,
    rules: &ScalingRules,
    now: SimTime,
    up: bool,
) -> i32 {
    let proposals = rules.policies.iter().map(|p| {
        let start = period_start(current, memory, now, p.period_secs);
        match (up, p.percent) {
            // Rounded up, so that a small count still grows.
            (true, true) => (start.saturating_mul(100 + p.value) + 99).div_euclid(100),
            (true, false) => start.saturating_add(p.value),
            // `int32(float64(start) * (1 - value/100))`: truncated toward zero.
            (false, true) => start.saturating_mul(100 - p.value.min(100)) / 100,
            (false, false) => start.saturating_sub(p.value),
        }
    });
    // Max takes the biggest change: the highest count up, the lowest down.
    let biggest_change = match rules.select {
        SelectPolicy::Disabled => return current,
        SelectPolicy::Max => true,
        SelectPolicy::Min => false,
    };
    clamp_i32(if biggest_change == up {
        proposals.max().unwrap_or(i64::from(i32::MIN))
    } else {
        proposals.min().unwrap_or(i64::from(i32::MAX))
    })
}

/// An autoscaler as the apiserver serves it at autoscaling/v2, its preferred version:
/// an autoscaling/v1 object's cpu target becomes a Resource metric (what v1 has no
/// field for, its conversion keeps in annotations), and `SetDefaults_HorizontalPodAutoscaler`
/// shows: minReplicas 1, a cpu utilization of 80% without any metric, and the default
/// scaling rules filled in beside a behavior that is given. `kubectl describe` and the
/// controller read this.
pub fn served_as_v2(v: &Value) -> Value {
    let mut out = v.clone();
    let utilization = |target: i64| {
        json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": target}}}])
    };
    if !out.is_object() {
        return out;
    }
    if !out["spec"].is_object() {
        out["spec"] = Value::Object(Map::new());
    }
    if v.get("apiVersion").and_then(Value::as_str) == Some("autoscaling/v1") {
        let target = v
            .pointer("/spec/targetCPUUtilizationPercentage")
            .and_then(Value::as_i64)
            .unwrap_or(80);
        out["spec"]["metrics"] = utilization(target);
        if let Some(spec) = out["spec"].as_object_mut() {
            spec.remove("targetCPUUtilizationPercentage");
        }
        let annotations = out
            .pointer_mut("/metadata/annotations")
            .and_then(Value::as_object_mut);
        let kept = |key: &str| {
            annotations
                .as_ref()
                .and_then(|a| a.get(key))
                .and_then(Value::as_str)
                .and_then(|text| serde_json::from_str::<Value>(text).ok())
        };
        let conditions = kept(V1_CONDITIONS_ANNOTATION);
        let metrics = kept(V1_CURRENT_METRICS_ANNOTATION);
        if let Some(a) = out
            .pointer_mut("/metadata/annotations")
            .and_then(Value::as_object_mut)
        {
            a.remove(V1_CONDITIONS_ANNOTATION);
            a.remove(V1_CURRENT_METRICS_ANNOTATION);
        }
        if !out["status"].is_object() {
            out["status"] = Value::Object(Map::new());
        }
        if let Some(status) = out["status"].as_object_mut() {
            status.remove("currentCPUUtilizationPercentage");
        }
        if let Some(conditions) = conditions {
            out["status"]["conditions"] = conditions;
        }
        let current: Vec<Value> = metrics
            .as_ref()
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|m| {
                let mut current = Map::new();
                if let Some(u) = m
                    .pointer("/resource/currentAverageUtilization")
                    .and_then(Value::as_i64)
                {
                    current.insert("averageUtilization".into(), u.into());
                }
                current.insert(
                    "averageValue".into(),
                    m.pointer("/resource/currentAverageValue")
                        .cloned()
                        .unwrap_or(Value::Null),
                );
                json!({"type": "Resource", "resource": {
                    "name": m.pointer("/resource/name").cloned().unwrap_or(Value::Null),
                    "current": current}})
            })
            .collect();
        if !current.is_empty() {
            out["status"]["currentMetrics"] = Value::Array(current);
        }
    } else if v
        .pointer("/spec/metrics")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        out["spec"]["metrics"] = utilization(80);
    }
    if v.pointer("/spec/minReplicas").is_none_or(Value::is_null) {
        out["spec"]["minReplicas"] = Value::from(1);
    }
    if let Some(behavior) = out
        .pointer_mut("/spec/behavior")
        .and_then(Value::as_object_mut)
    {
        let defaults = [
            (
                "scaleUp",
                Some(0),
                json!([
                    {"type": "Pods", "value": 4, "periodSeconds": 15},
                    {"type": "Percent", "value": 100, "periodSeconds": 15},
                ]),
            ),
            (
                "scaleDown",
                None,
                json!([{"type": "Percent", "value": 100, "periodSeconds": 15}]),
            ),
        ];
        for (direction, window, policies) in defaults {
            let rules = behavior
                .entry(direction)
                .or_insert_with(|| Value::Object(Map::new()));
            if !rules.is_object() {
                *rules = Value::Object(Map::new());
            }
            if let Some(rules) = rules.as_object_mut() {
                rules.entry("selectPolicy").or_insert_with(|| "Max".into());
                rules.entry("policies").or_insert(policies);
                if let Some(window) = window {
                    rules
                        .entry("stabilizationWindowSeconds")
                        .or_insert_with(|| Value::from(window));
                }
            }
        }
    }
    out
}

impl AutoscalerSpec {
    /// The cpu utilization target in percent, if one of the metrics has it (what the
    /// floor's load gauge shows).
    pub fn cpu_utilization_target(&self) -> Option<i32> {
        self.metrics.iter().find_map(|m| match m {
            MetricSpec::Resource {
                name,
                target: MetricTarget::Utilization(u),
            } if name == "cpu" => i32::try_from(*u).ok(),
            _ => None,
        })
    }

    pub fn of(o: &OtherObject) -> AutoscalerSpec {
        let spec = o.fields.get("spec").cloned().unwrap_or(Value::Null);
        let text = |p: &str| {
            spec.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let int = |p: &str| spec.pointer(p).and_then(Value::as_i64);
        let clamp = |v: i64| i32::try_from(v).unwrap_or(i32::MAX);
        let served = served_as_v2(&json!({"apiVersion": o.api_version, "spec": spec}));
        let metrics = served
            .pointer("/spec/metrics")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(MetricSpec::of)
            .collect();
        AutoscalerSpec {
            target_kind: text("/scaleTargetRef/kind"),
            target_name: text("/scaleTargetRef/name"),
            min_replicas: clamp(int("/minReplicas").unwrap_or(1)),
            max_replicas: clamp(int("/maxReplicas").unwrap_or(0)),
            metrics,
            behavior: spec.get("behavior").filter(|b| b.is_object()).map(|_| {
                let served = served_as_v2(&json!({"spec": spec}));
                let rules = |direction: &str, default_window: i64| {
                    ScalingRules::of(
                        served
                            .pointer(&format!("/spec/behavior/{direction}"))
                            .unwrap_or(&Value::Null),
                        default_window,
                    )
                };
                Behavior {
                    scale_up: rules("scaleUp", 0),
                    scale_down: rules("scaleDown", DOWNSCALE_STABILIZATION_SECS),
                }
            }),
        }
    }
}

/// A scale target as the controller reads it: `spec.replicas` and the selector.
struct Scale {
    key: ObjectKey,
    replicas: i32,
    selector: LabelSelector,
}

/// What the replica calculation found.
/// What `computeReplicasForMetrics` found over every metric.
struct Computed {
    /// The highest proposal of the valid metrics; None when every metric failed, or
    /// some failed and the rest would scale down (upstream's -1).
    replicas: Option<i32>,
    /// The metric behind that proposal, as the events and conditions name it.
    metric: String,
    /// `status.currentMetrics`, one per metric (an empty one for a failed metric).
    statuses: Vec<Value>,
    /// The first failure: its reason, its error (what the ScalingActive condition
    /// says) and that error as `computeReplicasForMetric` wraps it (what the
    /// FailedComputeMetricsReplicas event says); and how many failed.
    first_error: Option<(&'static str, String, String)>,
    invalid: usize,
}

/// One metric's proposal: replicas, its `current` status and its name.
struct Proposal {
    replicas: i32,
    current: Value,
    metric: String,
}

impl Cluster {
    fn sync_autoscaler(&mut self, key: &ObjectKey) -> Action {
        let Some(Object::Other(hpa)) = self.store.get(key).cloned() else {
            self.controllers.hpa.remove(key);
            return Action::Done;
        };
        // Looked at again every sync period, whatever happens now.
        self.enqueue_after(ID, key.clone(), self.now + SYNC_PERIOD);
        if hpa.metadata.deletion_timestamp.is_some() {
            return Action::Done;
        }
        let spec = AutoscalerSpec::of(&hpa);
        let about = Object::Other(hpa.clone());
        let old_status = status_as_v2(&hpa);
        let mut status = old_status.clone();
        let mut conditions = Conditions::from(&old_status, self.now);
        let scale = match self.scale_of(&key.namespace, &spec) {
            Ok(s) => s,
            Err(message) => {
                self.record_event(
                    &about,
                    ID.name(),
                    None,
                    "Warning",
                    "FailedGetScale",
                    message.clone(),
                );
                conditions.set(
                    "AbleToScale",
                    "False",
                    "FailedGetScale",
                    &format!("the HPA controller was unable to get the target's current scale: {message}"),
                );
                return self.write_autoscaler_status(hpa, status, conditions);
            }
        };
        // Set before the metrics are read, as upstream does, so AbleToScale leads
        // the conditions.
        conditions.set(
            "AbleToScale",
            "True",
            "SucceededGetScale",
            "the HPA controller was able to get the target's current scale",
        );
        let current = scale.replicas;
        status.insert("currentReplicas".into(), json!(current));
        let mut rescale_reason = String::new();
        let desired = if current == 0 && spec.min_replicas != 0 {
            conditions.set(
                "ScalingActive",
                "False",
                "ScalingDisabled",
                "scaling is disabled since the replica count of the target is zero",
            );
            0
        } else if current > spec.max_replicas {
            rescale_reason = "Current number of replicas above Spec.MaxReplicas".into();
            spec.max_replicas
        } else if current < spec.min_replicas {
            rescale_reason = "Current number of replicas below Spec.MinReplicas".into();
            spec.min_replicas
        } else {
            let computed = self.compute_metrics(&about, &key.namespace, &spec, &scale);
            status.insert("currentMetrics".into(), Value::Array(computed.statuses));
            match computed.replicas {
                None => {
                    let (reason, message, error) = computed.first_error.unwrap_or_default();
                    self.record_event(
                        &about,
                        ID.name(),
                        None,
                        "Warning",
                        "FailedComputeMetricsReplicas",
                        format!(
                            "invalid metrics ({} invalid out of {}), first error is: {error}",
                            computed.invalid,
                            spec.metrics.len()
                        ),
                    );
                    conditions.set(
                        "ScalingActive",
                        "False",
                        reason,
                        &format!("the HPA was unable to compute the replica count: {message}"),
                    );
                    status.insert("desiredReplicas".into(), json!(current));
                    return self.write_autoscaler_status(hpa, status, conditions);
                }
                Some(replicas) => {
                    conditions.set(
                        "ScalingActive",
                        "True",
                        "ValidMetricFound",
                        &format!(
                            "the HPA was able to successfully calculate a replica count from {}",
                            computed.metric
                        ),
                    );
                    if replicas > current {
                        rescale_reason = format!("{} above target", computed.metric);
                    } else if replicas < current {
                        rescale_reason = "All metrics below target".into();
                    }
                    self.normalize_with_behaviors(key, &spec, current, replicas, &mut conditions)
                }
            }
        };
        status.insert("desiredReplicas".into(), json!(desired));
        if desired != current {
            match self.write_scale(&scale, desired) {
                Ok(()) => {
                    self.store_scale_event(key, &spec, current, desired);
                    conditions.set(
                        "AbleToScale",
                        "True",
                        "SucceededRescale",
                        &format!(
                            "the HPA controller was able to update the target scale to {desired}"
                        ),
                    );
                    self.record_event(
                        &about,
                        ID.name(),
                        None,
                        "Normal",
                        "SuccessfulRescale",
                        format!("New size: {desired}; reason: {rescale_reason}"),
                    );
                    status.insert(
                        "lastScaleTime".into(),
                        crate::object::to_json_value(&self.now.to_k8s()),
                    );
                }
                Err(e) => {
                    let message = format!(
                        "the HPA controller was unable to update the target scale: {}",
                        e.message
                    );
                    conditions.set("AbleToScale", "False", "FailedUpdateScale", &message);
                    self.record_event(
                        &about,
                        ID.name(),
                        None,
                        "Warning",
                        "FailedRescale",
                        format!(
                            "New size: {desired}; reason: {rescale_reason}; error: {}",
                            e.message
                        ),
                    );
                }
            }
        }
        self.write_autoscaler_status(hpa, status, conditions)
    }

    fn write_autoscaler_status(
        &mut self,
        hpa: Box<OtherObject>,
        mut status: Map<String, Value>,
        conditions: Conditions,
    ) -> Action {
        status.insert("conditions".into(), Value::Array(conditions.list));
        if let Some(generation) = hpa.metadata.generation {
            status.insert("observedGeneration".into(), json!(generation));
        }
        let mut updated = hpa.clone();
        if updated.api_version == "autoscaling/v1" {
            write_v1_status(&mut updated, status);
        } else {
            updated
                .fields
                .insert("status".into(), Value::Object(status));
        }
        if updated == hpa {
            return Action::Done;
        }
        Action::after_writes([self.update_as(ACTOR, Object::Other(updated)).map(drop)])
    }

    /// The scale subresource of the target: a Deployment, ReplicaSet or StatefulSet.
    fn scale_of(&self, namespace: &str, spec: &AutoscalerSpec) -> Result<Scale, String> {
        let kind = match spec.target_kind.as_str() {
            "Deployment" => Kind::Deployment,
            "ReplicaSet" => Kind::ReplicaSet,
            "StatefulSet" => Kind::StatefulSet,
            other => {
                return Err(format!(
                    "no matches for kind \"{other}\" in group \"\" that has a scale subresource"
                ))
            }
        };
        let key = ObjectKey::new(kind, namespace, &spec.target_name);
        let not_found = || {
            format!(
                "{} \"{}\" not found",
                kind.qualified_plural(),
                spec.target_name
            )
        };
        let (replicas, selector) = match self.store.get(&key).ok_or_else(not_found)? {
            Object::Deployment(d) => (d.spec.replicas, Some(d.spec.selector.clone())),
            Object::ReplicaSet(rs) => (rs.spec.replicas, Some(rs.spec.selector.clone())),
            Object::Other(o) => {
                let s = super::statefulset::SetSpec::of(o);
                (Some(s.replicas), Some(s.selector))
            }
            _ => return Err(not_found()),
        };
        Ok(Scale {
            key,
            replicas: replicas.unwrap_or(1),
            selector: selector.unwrap_or_default(),
        })
    }

    /// Writes `spec.replicas` of the target (the scale subresource).
    fn write_scale(&mut self, scale: &Scale, replicas: i32) -> Result<(), crate::error::ApiError> {
        let Some(mut obj) = self.store.get(&scale.key).cloned() else {
            return Err(crate::error::ApiError::not_found(
                &scale.key.kind.qualified_plural(),
                &scale.key.name,
            ));
        };
        match &mut obj {
            Object::Deployment(d) => d.spec.replicas = Some(replicas),
            Object::ReplicaSet(rs) => rs.spec.replicas = Some(replicas),
            Object::Other(o) => {
                if let Some(spec) = o.fields.get_mut("spec").and_then(Value::as_object_mut) {
                    spec.insert("replicas".into(), json!(replicas));
                }
            }
            _ => {}
        }
        self.update_as(ACTOR, obj).map(drop)
    }

    /// `computeReplicasForMetrics`: each metric's proposal (its failure recorded as
    /// an event, `getUnableComputeReplicaCountCondition`), the highest one winning;
    /// no proposal when every metric failed, or some failed and the rest would
    /// scale down.
    fn compute_metrics(
        &mut self,
        about: &Object,
        namespace: &str,
        spec: &AutoscalerSpec,
        scale: &Scale,
    ) -> Computed {
        let mut computed = Computed {
            replicas: None,
            metric: String::new(),
            statuses: Vec::new(),
            first_error: None,
            invalid: 0,
        };
        let mut best: Option<i32> = None;
        for metric in &spec.metrics {
            let proposal = match metric {
                MetricSpec::Resource { name, target } => self
                    .compute_resource_metric(namespace, name, *target, scale)
                    .map_err(|e| ("FailedGetResourceMetric", e))
                    .map(|(replicas, current, metric)| Proposal {
                        replicas,
                        current: json!({"type": "Resource",
                            "resource": {"name": name, "current": current}}),
                        metric,
                    }),
                MetricSpec::Unsupported { type_, name } => Err((
                    match type_.as_str() {
                        "Pods" => "FailedGetPodsMetric",
                        "Object" => "FailedGetObjectMetric",
                        "External" => "FailedGetExternalMetric",
                        "ContainerResource" => "FailedGetContainerResourceMetric",
                        _ => "InvalidMetricSourceType",
                    },
                    format!(
                        "this simulated cluster computes only cpu and memory Resource metrics, not the {type_} metric {name}"
                    ),
                )),
            };
            match proposal {
                Ok(p) => {
                    computed.statuses.push(p.current);
                    if best.is_none_or(|b| p.replicas > b) {
                        best = Some(p.replicas);
                        computed.metric = p.metric;
                    }
                }
                Err((reason, message)) => {
                    self.record_event(about, ID.name(), None, "Warning", reason, message.clone());
                    computed.statuses.push(json!({"type": ""}));
                    computed.invalid += 1;
                    if computed.first_error.is_none() {
                        // `computeReplicasForMetric` names the metric it failed on.
                        let error = match metric {
                            MetricSpec::Resource { name, .. } => {
                                format!("failed to get {name} resource metric value: {message}")
                            }
                            MetricSpec::Unsupported { type_, .. } => {
                                format!(
                                    "failed to get {} metric value: {message}",
                                    type_.to_lowercase()
                                )
                            }
                        };
                        computed.first_error = Some((reason, message, error));
                    }
                }
            }
        }
        computed.replicas = best.filter(|b| {
            computed.invalid < spec.metrics.len() && (computed.invalid == 0 || *b >= scale.replicas)
        });
        computed
    }

    /// `computeStatusForResourceMetricGeneric`: `GetRawResourceReplicas` for an
    /// `averageValue` target, `GetResourceReplicas` for `averageUtilization`. Values
    /// are in milli-units, as upstream's metrics client reads them. Returns the
    /// proposal, the metric's `current` status and the metric's name.
    fn compute_resource_metric(
        &self,
        namespace: &str,
        resource: &str,
        target: MetricTarget,
        scale: &Scale,
    ) -> Result<(i32, Value, String), String> {
        let (utilization_target, what) = match target {
            MetricTarget::AverageValue(_) => (None, "usage"),
            MetricTarget::Utilization(u) => (Some(u), "utilization"),
            MetricTarget::Missing => {
                return Err("invalid resource metric source: neither an average utilization target nor an average value (usage) target was set".into())
            }
        };
        let failed = |e: String| format!("failed to get {resource} {what}: {e}");
        let metrics = self.resource_metrics(namespace, resource).map_err(failed)?;
        let pods: Vec<&Pod> = self
            .store
            .list(Kind::Pod, Some(namespace))
            .filter_map(Object::as_pod)
            .filter(|p| {
                super::selector_matches(
                    &scale.selector,
                    p.metadata.labels.as_ref().unwrap_or(&Default::default()),
                )
            })
            .collect();
        if pods.is_empty() {
            return Err(failed(
                "no pods returned by selector while calculating replica count".into(),
            ));
        }
        // `groupPods`: only cpu has the readiness rules.
        let mut unready: Vec<&Pod> = Vec::new();
        let mut missing: Vec<&Pod> = Vec::new();
        let mut measured: Vec<(&Pod, i64)> = Vec::new();
        for pod in &pods {
            let phase = pod
                .status
                .as_ref()
                .and_then(|s| s.phase.as_deref())
                .unwrap_or("");
            if pod.metadata.deletion_timestamp.is_some() || phase == "Failed" {
                continue;
            }
            if phase == "Pending" {
                unready.push(pod);
                continue;
            }
            let name = pod.metadata.name.as_deref().unwrap_or("");
            let Some((usage, at)) = metrics.get(name) else {
                missing.push(pod);
                continue;
            };
            if resource == "cpu" && self.cpu_unready(pod, *at) {
                unready.push(pod);
                continue;
            }
            measured.push((pod, *usage));
        }
        let ready = measured.len() as i64;
        // `calculatePodRequests`, in milli-units.
        let request_of = |pod: &Pod| -> Result<i64, String> {
            let mut total = 0i64;
            for c in pod.spec.iter().flat_map(|s| s.containers.iter()) {
                let request = c
                    .resources
                    .as_ref()
                    .and_then(|r| r.requests.as_ref())
                    .and_then(|r| r.get(resource))
                    .and_then(|q| crate::object::quantity::Quantity::parse(&q.0))
                    .map(|q| i64::try_from(q.milli_value()).unwrap_or(i64::MAX));
                match request {
                    Some(r) => total = total.saturating_add(r),
                    None => {
                        return Err(format!(
                            "missing request for {resource} in container {} of Pod {}",
                            c.name,
                            pod.metadata.name.as_deref().unwrap_or("")
                        ))
                    }
                }
            }
            Ok(total)
        };
        if measured.is_empty() {
            return Err(failed(
                "did not receive metrics for targeted pods (pods might be unready)".into(),
            ));
        }
        let usage: i64 = measured
            .iter()
            .map(|(_, u)| *u)
            .fold(0, i64::saturating_add);
        let average = usage / ready;
        // The ratio of usage to the target, the metric's `current` status, the target
        // (a percentage of requests or an average value) and the measured pods'
        // requests when the target is a utilization.
        let (ratio, current, target_value, requests_if_utilization) = match utilization_target {
            None => {
                let MetricTarget::AverageValue(goal) = target else {
                    unreachable!("checked above")
                };
                let goal = goal.max(1);
                (
                    average as f64 / goal as f64,
                    json!({"averageValue": milli_quantity(average)}),
                    goal,
                    None,
                )
            }
            Some(goal) => {
                let mut requests = 0i64;
                for (pod, _) in &measured {
                    requests = requests.saturating_add(request_of(pod).map_err(failed)?);
                }
                if requests == 0 {
                    return Err(failed("no metrics returned matched known pods".into()));
                }
                let utilization = usage.saturating_mul(100) / requests;
                (
                    utilization as f64 / goal.max(1) as f64,
                    json!({"averageUtilization": utilization,
                           "averageValue": milli_quantity(average)}),
                    goal,
                    Some(requests),
                )
            }
        };
        let metric = match utilization_target {
            None => format!("{resource} resource"),
            Some(_) => format!("{resource} resource utilization (percentage of request)"),
        };
        let now = scale.replicas;
        let answer = |replicas: i32| Ok((replicas, current.clone(), metric.clone()));
        let scale_up_with_unready = !unready.is_empty() && ratio > 1.0;
        if !scale_up_with_unready && missing.is_empty() {
            if (1.0 - ratio).abs() <= TOLERANCE {
                return answer(now);
            }
            return answer((ratio * ready as f64).ceil() as i32);
        }
        // Missing pods count as at the target when scaling down and as idle when
        // scaling up; unready ones as idle when scaling up.
        let mut new_usage = usage;
        let mut counted = measured.len() + missing.len();
        let new_ratio = match requests_if_utilization {
            None => {
                if ratio < 1.0 {
                    new_usage =
                        new_usage.saturating_add(target_value.saturating_mul(missing.len() as i64));
                }
                if scale_up_with_unready {
                    counted += unready.len();
                }
                (new_usage / counted.max(1) as i64) as f64 / target_value.max(1) as f64
            }
            Some(requests) => {
                let mut new_requests = requests;
                for pod in &missing {
                    let r = request_of(pod).map_err(failed)?;
                    new_requests = new_requests.saturating_add(r);
                    if ratio < 1.0 {
                        new_usage = new_usage.saturating_add(r.saturating_mul(target_value) / 100);
                    }
                }
                if scale_up_with_unready {
                    for pod in &unready {
                        new_requests =
                            new_requests.saturating_add(request_of(pod).map_err(failed)?);
                    }
                    counted += unready.len();
                }
                (new_usage.saturating_mul(100) / new_requests.max(1)) as f64
                    / target_value.max(1) as f64
            }
        };
        if (1.0 - new_ratio).abs() <= TOLERANCE
            || (ratio < 1.0 && new_ratio > 1.0)
            || (ratio > 1.0 && new_ratio < 1.0)
        {
            return answer(now);
        }
        let new_replicas = (new_ratio * counted as f64).ceil() as i32;
        if (new_ratio < 1.0 && new_replicas > now) || (new_ratio > 1.0 && new_replicas < now) {
            return answer(now);
        }
        answer(new_replicas)
    }

    /// `groupPods` for cpu: a pod is unready while it is not Ready, or, in its first
    /// five minutes, until a whole metrics window has passed since it became Ready.
    fn cpu_unready(&self, pod: &Pod, metric_at: u64) -> bool {
        let Some(start) = pod
            .status
            .as_ref()
            .and_then(|s| s.start_time.as_ref())
            .map(SimTime::from_k8s)
        else {
            return true;
        };
        let Some(ready) = super::pod_condition(pod, "Ready") else {
            return true;
        };
        let transition = ready
            .last_transition_time
            .as_ref()
            .map_or(start, SimTime::from_k8s);
        if start.0 + CPU_INITIALIZATION_MS > self.now.0 {
            ready.status == "False"
                || metric_at < transition.0 + crate::views::metrics::METRIC_RESOLUTION_MS
        } else {
            ready.status == "False" && start.0 + INITIAL_READINESS_DELAY_MS > transition.0
        }
    }

    /// Each pod's usage of `resource` in milli-units (millicores, millibytes) and
    /// its scrape time, from the metrics API (`GetResourceMetric`).
    fn resource_metrics(
        &self,
        namespace: &str,
        resource: &str,
    ) -> Result<std::collections::BTreeMap<String, (i64, u64)>, String> {
        let unable = |e: String| {
            format!("unable to get metrics for resource {resource}: unable to fetch metrics from resource metrics API: {e}")
        };
        if !self.metrics_api_registered() {
            return Err(unable(
                "the server could not find the requested resource (get pods.metrics.k8s.io)".into(),
            ));
        }
        let pods = self
            .pod_metrics(Some(namespace))
            .map_err(|e| unable(e.message))?;
        if pods.is_empty() {
            return Err(format!(
                "unable to get metrics for resource {resource}: no metrics returned from resource metrics API"
            ));
        }
        Ok(pods
            .into_iter()
            .map(|m| {
                let milli = match resource {
                    "cpu" => m.cpu_milli(),
                    "memory" => m.memory_bytes().saturating_mul(1000),
                    _ => 0,
                };
                let milli = i64::try_from(milli).unwrap_or(i64::MAX);
                (m.name.clone(), (milli, m.timestamp_ms))
            })
            .collect())
    }

    /// `normalizeDesiredReplicas` (without `behavior`) or
    /// `normalizeDesiredReplicasWithBehaviors`: the stabilization windows, then the
    /// scaling policies and the bounds, with the conditions they explain.
    fn normalize_with_behaviors(
        &mut self,
        key: &ObjectKey,
        spec: &AutoscalerSpec,
        current: i32,
        prenormalized: i32,
        conditions: &mut Conditions,
    ) -> i32 {
        let now = self.now;
        let memory = self.controllers.hpa.entry(key.clone()).or_default();
        let cut = |secs: i64| SimTime(now.0.saturating_sub(secs_to_ms(secs)));
        let (up_window, down_window) = match &spec.behavior {
            Some(b) => (b.scale_up.window_secs, b.scale_down.window_secs),
            None => (0, DOWNSCALE_STABILIZATION_SECS),
        };
        let (up_cut, down_cut) = (cut(up_window), cut(down_window));
        let mut up = prenormalized;
        let mut down = prenormalized;
        for (at, r) in &memory.recommendations {
            if *at > up_cut {
                up = up.min(*r);
            }
            if *at > down_cut {
                down = down.max(*r);
            }
        }
        // `stabilizeRecommendationWithBehaviors` keeps the current count between the
        // lowest recommendation of the scale-up window and the highest of the
        // scale-down window; without `behavior`, `stabilizeRecommendation` takes the
        // highest recommendation of the window, even above the current count.
        let stabilized = if spec.behavior.is_some() {
            current.max(up).min(down)
        } else {
            down
        };
        let keep_from = cut(up_window.max(down_window));
        memory.recommendations.retain(|(at, _)| *at > keep_from);
        memory.recommendations.push((now, prenormalized));
        let (reason, message) = if stabilized == prenormalized {
            ("ReadyForNewScale", "recommended size matches current size")
        } else if stabilized > prenormalized {
            ("ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation")
        } else {
            ("ScaleUpStabilized", "recent recommendations were lower than current one, applying the lowest recent recommendation")
        };
        conditions.set("AbleToScale", "True", reason, message);
        const WITHIN: (&str, &str) = (
            "DesiredWithinRange",
            "the desired count is within the acceptable range",
        );
        const UP_LIMIT: (&str, &str) = (
            "ScaleUpLimit",
            "the desired replica count is increasing faster than the maximum scale rate",
        );
        const TOO_MANY: (&str, &str) = (
            "TooManyReplicas",
            "the desired replica count is more than the maximum replica count",
        );
        const TOO_FEW: (&str, &str) = (
            "TooFewReplicas",
            "the desired replica count is less than the minimum replica count",
        );
        let (desired, (reason, message)) = match &spec.behavior {
            // `convertDesiredReplicasWithRules`.
            None => {
                let up_limit = current.saturating_mul(2).max(4);
                let (max_allowed, why) = if spec.max_replicas > up_limit {
                    (up_limit, UP_LIMIT)
                } else {
                    (spec.max_replicas, TOO_MANY)
                };
                if stabilized < spec.min_replicas {
                    (spec.min_replicas, TOO_FEW)
                } else if stabilized > max_allowed {
                    (max_allowed, why)
                } else {
                    (stabilized, WITHIN)
                }
            }
            // `convertDesiredReplicasWithBehaviorRate`.
            Some(b) => {
                if stabilized > current {
                    let up_limit =
                        policy_limit(current, memory, &b.scale_up, now, true).max(current);
                    let (max_allowed, why) = if spec.max_replicas > up_limit {
                        (up_limit, UP_LIMIT)
                    } else {
                        (spec.max_replicas, TOO_MANY)
                    };
                    if stabilized > max_allowed {
                        (max_allowed, why)
                    } else {
                        (stabilized, WITHIN)
                    }
                } else if stabilized < current {
                    let down_limit =
                        policy_limit(current, memory, &b.scale_down, now, false).min(current);
                    let (min_allowed, why) = if spec.min_replicas < down_limit {
                        (
                            down_limit,
                            (
                                "ScaleDownLimit",
                                "the desired replica count is decreasing faster than the maximum scale rate",
                            ),
                        )
                    } else {
                        (spec.min_replicas, TOO_FEW)
                    };
                    if stabilized < min_allowed {
                        (min_allowed, why)
                    } else {
                        (stabilized, WITHIN)
                    }
                } else {
                    (stabilized, WITHIN)
                }
            }
        };
        let limited = if desired == stabilized {
            "False"
        } else {
            "True"
        };
        conditions.set("ScalingLimited", limited, reason, message);
        desired
    }

    /// `storeScaleEvent`: remembers a rescale for the scaling policies, for as long as
    /// the longest policy of its direction looks back (nothing without `behavior`).
    fn store_scale_event(&mut self, key: &ObjectKey, spec: &AutoscalerSpec, from: i32, to: i32) {
        let Some(b) = &spec.behavior else {
            return;
        };
        let now = self.now;
        let memory = self.controllers.hpa.entry(key.clone()).or_default();
        let (events, rules, change) = if to > from {
            (&mut memory.scale_ups, &b.scale_up, to - from)
        } else {
            (&mut memory.scale_downs, &b.scale_down, from - to)
        };
        let cutoff = now
            .0
            .saturating_sub(secs_to_ms(rules.longest_period_secs()));
        events.retain(|(at, _)| at.0 > cutoff);
        events.push((now, change));
    }
}

/// An autoscaler's conditions, each keeping its transition time while its status
/// holds (`setConditionInList`).
/// Where the autoscaling/v1 view keeps what its status has no field for
/// (pkg/apis/autoscaling: `HorizontalPodAutoscalerConditionsAnnotation`,
/// `MetricStatusesAnnotation`).
pub const V1_CONDITIONS_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/conditions";
pub const V1_CURRENT_METRICS_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/current-metrics";

/// The status as the controller works on it (autoscaling/v2's): an autoscaling/v1
/// object's from its status and the annotations its conversion keeps.
fn status_as_v2(hpa: &OtherObject) -> Map<String, Value> {
    let mut status = hpa
        .fields
        .get("status")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    if hpa.api_version == "autoscaling/v1" {
        status.remove("currentCPUUtilizationPercentage");
        let annotation = |key: &str| {
            hpa.metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(key))
                .and_then(|text| serde_json::from_str::<Value>(text).ok())
        };
        if let Some(conditions) = annotation(V1_CONDITIONS_ANNOTATION) {
            status.insert("conditions".into(), conditions);
        }
    }
    status
}

/// Writes the controller's (v2) status into an autoscaling/v1 object as the
/// apiserver's v1 conversion shows it: the cpu utilization in
/// `currentCPUUtilizationPercentage`, the conditions and current metrics as JSON in
/// annotations.
fn write_v1_status(hpa: &mut OtherObject, mut status: Map<String, Value>) {
    let conditions = status.remove("conditions");
    let metrics = status.remove("currentMetrics");
    let cpu = metrics
        .as_ref()
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|m| m.pointer("/resource/name").and_then(Value::as_str) == Some("cpu"));
    if let Some(u) = cpu.and_then(|m| m.pointer("/resource/current/averageUtilization")) {
        status.insert("currentCPUUtilizationPercentage".into(), u.clone());
    }
    let v1_metrics: Vec<Value> = metrics
        .as_ref()
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|m| {
            if m.get("type").and_then(Value::as_str) != Some("Resource") {
                // A failed metric's empty status stays as it is.
                return m.clone();
            }
            json!({"type": "Resource", "resource": {
                "name": m.pointer("/resource/name").cloned().unwrap_or(Value::Null),
                "currentAverageUtilization": m.pointer("/resource/current/averageUtilization").cloned().unwrap_or(Value::Null),
                "currentAverageValue": m.pointer("/resource/current/averageValue").cloned().unwrap_or(Value::Null),
            }})
        })
        .collect();
    let annotations = hpa
        .metadata
        .annotations
        .get_or_insert_with(Default::default);
    for (key, value) in [
        (
            V1_CONDITIONS_ANNOTATION,
            conditions.filter(|c| c.as_array().is_some_and(|a| !a.is_empty())),
        ),
        (
            V1_CURRENT_METRICS_ANNOTATION,
            (!v1_metrics.is_empty()).then_some(Value::Array(v1_metrics)),
        ),
    ] {
        match value {
            Some(v) => {
                annotations.insert(key.to_string(), v.to_string());
            }
            None => {
                annotations.remove(key);
            }
        }
    }
    if annotations.is_empty() {
        hpa.metadata.annotations = None;
    }
    hpa.fields.insert("status".into(), Value::Object(status));
}

struct Conditions {
    list: Vec<Value>,
    now: SimTime,
}

impl Conditions {
    fn from(status: &Map<String, Value>, now: SimTime) -> Conditions {
        Conditions {
            list: status
                .get("conditions")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            now,
        }
    }

    fn set(&mut self, type_: &str, status: &str, reason: &str, message: &str) {
        crate::object::set_json_condition(&mut self.list, self.now, type_, status, reason, message);
    }
}
