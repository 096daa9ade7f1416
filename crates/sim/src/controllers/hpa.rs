//! The HorizontalPodAutoscaler controller. Mirrors pkg/controller/podautoscaler:
//! horizontal.go (`reconcileAutoscaler`, `normalizeDesiredReplicasWithBehaviors`,
//! `stabilizeRecommendationWithBehaviors`, `convertDesiredReplicasWithBehaviorRate`,
//! the conditions and events) and replica_calculator.go (`GetResourceReplicas`,
//! `groupPods`, the 0.1 tolerance).
//!
//! Every 15 s (`--horizontal-pod-autoscaler-sync-period`) each autoscaler reads its
//! target's replicas and selector, the CPU of the target's pods from the metrics API
//! (metrics-server's latest scrape: `views/metrics.rs`), and compares their average
//! utilization (usage over requests) with its target: outside the tolerance, the
//! desired count is the ratio times the ready pods, rounded up (pods not yet ready
//! count as idle when scaling up). The count is then held by the stabilization
//! windows (none up, 300 s down: the highest recommendation of the last five minutes
//! wins), limited by the scaling policies (up: the larger of 100% or 4 pods per 15 s;
//! down: 100% per 15 s; without `behavior`, `calculateScaleUpLimit`: up to twice the
//! current count or 4) and by minReplicas and maxReplicas, and written to the
//! target's replicas. Status: the current and desired replicas, the current metric,
//! `lastScaleTime` and the AbleToScale, ScalingActive and ScalingLimited conditions.
//!
//! autoscaling/v2 (`metrics` of type Resource cpu with `averageUtilization`) and v1
//! (`targetCPUUtilizationPercentage`, 80 by default) are read from the stored JSON.
//! Simplified: only the cpu resource metric is computed (another metric is reported
//! as not supported here); `behavior` takes its stabilization windows from the spec
//! and its policies' defaults.

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
/// The policies' period (15 s for the default scale-up and scale-down policies).
const POLICY_PERIOD_MS: u64 = 15_000;
const METRIC_NAME: &str = "cpu resource utilization (percentage of request)";

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
    /// (when, replicas added), for the scale-up policies.
    scale_ups: Vec<(SimTime, i32)>,
}

/// What the controller reads of an autoscaler's spec.
#[derive(Clone, Debug, PartialEq)]
pub struct AutoscalerSpec {
    pub target_kind: String,
    pub target_name: String,
    pub min_replicas: i32,
    pub max_replicas: i32,
    /// The CPU utilization target in percent, if the autoscaler has one.
    pub cpu_target: Option<i32>,
    /// A metric other than cpu utilization, named for the error it gets.
    pub unsupported_metric: Option<String>,
    pub scale_up_window_secs: i64,
    pub scale_down_window_secs: i64,
    /// Whether `spec.behavior` is set: without it upstream limits a scale-up to
    /// twice the current count or 4, whichever is more (`calculateScaleUpLimit`),
    /// instead of the default policies.
    pub has_behavior: bool,
}

impl AutoscalerSpec {
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
        let (cpu_target, unsupported_metric) = if o.api_version == "autoscaling/v1" {
            (
                Some(clamp(int("/targetCPUUtilizationPercentage").unwrap_or(80))),
                None,
            )
        } else {
            let metrics = spec
                .get("metrics")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if metrics.is_empty() {
                (Some(80), None)
            } else {
                let cpu = metrics.iter().find_map(|m| {
                    (m.pointer("/type").and_then(Value::as_str) == Some("Resource")
                        && m.pointer("/resource/name").and_then(Value::as_str) == Some("cpu"))
                    .then(|| m.pointer("/resource/target/averageUtilization"))
                    .flatten()
                    .and_then(Value::as_i64)
                });
                let other = metrics
                    .iter()
                    .find(|m| {
                        !(m.pointer("/type").and_then(Value::as_str) == Some("Resource")
                            && m.pointer("/resource/name").and_then(Value::as_str) == Some("cpu")
                            && m.pointer("/resource/target/averageUtilization").is_some())
                    })
                    .map(|m| {
                        let type_ = m.pointer("/type").and_then(Value::as_str).unwrap_or("");
                        match m.pointer("/resource/name").and_then(Value::as_str) {
                            Some(name) => format!("{} {type_} metric", name),
                            None => format!("{type_} metric"),
                        }
                    });
                (cpu.map(clamp), other)
            }
        };
        AutoscalerSpec {
            target_kind: text("/scaleTargetRef/kind"),
            target_name: text("/scaleTargetRef/name"),
            min_replicas: clamp(int("/minReplicas").unwrap_or(1)),
            max_replicas: clamp(int("/maxReplicas").unwrap_or(0)),
            cpu_target,
            unsupported_metric,
            scale_up_window_secs: int("/behavior/scaleUp/stabilizationWindowSeconds").unwrap_or(0),
            scale_down_window_secs: int("/behavior/scaleDown/stabilizationWindowSeconds")
                .unwrap_or(DOWNSCALE_STABILIZATION_SECS),
            has_behavior: spec.get("behavior").is_some_and(|b| !b.is_null()),
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
struct Calculated {
    replicas: i32,
    utilization: i64,
    usage_milli: u64,
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
            match self.compute_replicas(&key.namespace, &spec, &scale) {
                Err((reason, message)) => {
                    // `computeStatusForResourceMetric`, then `computeReplicasForMetrics`.
                    self.record_event(&about, ID.name(), None, "Warning", reason, message.clone());
                    self.record_event(
                        &about,
                        ID.name(),
                        None,
                        "Warning",
                        "FailedComputeMetricsReplicas",
                        format!("invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: {message}"),
                    );
                    conditions.set(
                        "ScalingActive",
                        "False",
                        reason,
                        &format!("the HPA was unable to compute the replica count: {message}"),
                    );
                    status.remove("currentMetrics");
                    status.insert("desiredReplicas".into(), json!(current));
                    return self.write_autoscaler_status(hpa, status, conditions);
                }
                Ok(calc) => {
                    conditions.set(
                        "ScalingActive",
                        "True",
                        "ValidMetricFound",
                        &format!("the HPA was able to successfully calculate a replica count from {METRIC_NAME}"),
                    );
                    status.insert(
                        "currentMetrics".into(),
                        json!([{
                            "type": "Resource",
                            "resource": {
                                "name": "cpu",
                                "current": {
                                    "averageUtilization": calc.utilization,
                                    "averageValue": format!("{}m", calc.usage_milli),
                                },
                            },
                        }]),
                    );
                    if calc.replicas > current {
                        rescale_reason = format!("{METRIC_NAME} above target");
                    } else if calc.replicas < current {
                        rescale_reason = "All metrics below target".into();
                    }
                    self.normalize_with_behaviors(
                        key,
                        &spec,
                        current,
                        calc.replicas,
                        &mut conditions,
                    )
                }
            }
        };
        status.insert("desiredReplicas".into(), json!(desired));
        if desired != current {
            match self.write_scale(&scale, desired) {
                Ok(()) => {
                    if desired > current {
                        let memory = self.controllers.hpa.entry(key.clone()).or_default();
                        memory.scale_ups.push((self.now, desired - current));
                    }
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

    /// `computeReplicasForMetrics` for the cpu utilization metric
    /// (`GetResourceReplicas`).
    fn compute_replicas(
        &self,
        namespace: &str,
        spec: &AutoscalerSpec,
        scale: &Scale,
    ) -> Result<Calculated, (&'static str, String)> {
        if let Some(metric) = &spec.unsupported_metric {
            return Err((
                "FailedGetResourceMetric",
                format!("this simulated cluster computes only cpu utilization, not the {metric}"),
            ));
        }
        let target = i64::from(spec.cpu_target.unwrap_or(80));
        let failed = |e: String| {
            (
                "FailedGetResourceMetric",
                format!("failed to get cpu utilization: {e}"),
            )
        };
        let metrics = self.cpu_metrics(namespace).map_err(failed)?;
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
        // `groupPods`.
        let mut ready = 0i64;
        let mut unready: Vec<&Pod> = Vec::new();
        let mut missing: Vec<&Pod> = Vec::new();
        let mut measured: Vec<(&Pod, u64)> = Vec::new();
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
            if self.cpu_unready(pod, *at) {
                unready.push(pod);
                continue;
            }
            ready += 1;
            measured.push((pod, *usage));
        }
        let mut requests = 0u64;
        let mut usage = 0u64;
        let request_of = |pod: &Pod| -> Result<u64, (&'static str, String)> {
            let mut total = 0u64;
            for c in pod.spec.iter().flat_map(|s| s.containers.iter()) {
                let request = c
                    .resources
                    .as_ref()
                    .and_then(|r| r.requests.as_ref())
                    .and_then(|r| r.get("cpu"))
                    .and_then(|q| crate::object::quantity::cpu_millis(&q.0));
                match request {
                    Some(r) => total += r,
                    None => {
                        return Err(failed(format!(
                            "missing request for cpu in container {} of Pod {}",
                            c.name,
                            pod.metadata.name.as_deref().unwrap_or("")
                        )))
                    }
                }
            }
            Ok(total)
        };
        for (pod, u) in &measured {
            requests += request_of(pod)?;
            usage += u;
        }
        if measured.is_empty() || requests == 0 {
            return Err(failed(
                "did not receive metrics for targeted pods (pods might be unready)".into(),
            ));
        }
        let utilization = i64::try_from(usage * 100 / requests).unwrap_or(i64::MAX);
        let average_usage = usage / measured.len() as u64;
        let ratio = utilization as f64 / target as f64;
        let current = scale.replicas;
        let calculated = |replicas: i32| Calculated {
            replicas,
            utilization,
            usage_milli: average_usage,
        };
        let scale_up_with_unready = !unready.is_empty() && ratio > 1.0;
        if !scale_up_with_unready && missing.is_empty() {
            if (1.0 - ratio).abs() <= TOLERANCE {
                return Ok(calculated(current));
            }
            return Ok(calculated((ratio * ready as f64).ceil() as i32));
        }
        // Missing pods count as at the target when scaling down and as idle when
        // scaling up; unready ones as idle when scaling up.
        let mut new_usage = usage;
        let mut new_requests = requests;
        for pod in &missing {
            let r = request_of(pod)?;
            new_requests += r;
            if ratio < 1.0 {
                new_usage += r * u64::try_from(target).unwrap_or(0) / 100;
            }
        }
        if scale_up_with_unready {
            for pod in &unready {
                new_requests += request_of(pod)?;
            }
        }
        let new_ratio = (new_usage * 100 / new_requests.max(1)) as f64 / target as f64;
        if (1.0 - new_ratio).abs() <= TOLERANCE
            || (ratio < 1.0 && new_ratio > 1.0)
            || (ratio > 1.0 && new_ratio < 1.0)
        {
            return Ok(calculated(current));
        }
        let counted = measured.len()
            + missing.len()
            + if scale_up_with_unready {
                unready.len()
            } else {
                0
            };
        let new_replicas = (new_ratio * counted as f64).ceil() as i32;
        if (new_ratio < 1.0 && new_replicas > current)
            || (new_ratio > 1.0 && new_replicas < current)
        {
            return Ok(calculated(current));
        }
        Ok(calculated(new_replicas))
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

    /// Each pod's cpu usage (millicores) and its scrape time, from the metrics API.
    fn cpu_metrics(
        &self,
        namespace: &str,
    ) -> Result<std::collections::BTreeMap<String, (u64, u64)>, String> {
        let unable = |e: String| {
            format!("unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: {e}")
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
            return Err("unable to get metrics for resource cpu: no metrics returned from resource metrics API".into());
        }
        Ok(pods
            .into_iter()
            .map(|m| (m.name.clone(), (m.cpu_milli(), m.timestamp_ms)))
            .collect())
    }

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
        let window = |secs: i64| {
            SimTime(
                now.0
                    .saturating_sub(u64::try_from(secs.max(0)).unwrap_or(0) * 1000),
            )
        };
        let (up_cut, down_cut) = (
            window(spec.scale_up_window_secs),
            window(spec.scale_down_window_secs),
        );
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
        // Without `behavior`, upstream's `stabilizeRecommendation`: the highest
        // recommendation of the window, even above the current count.
        let mut recommendation = if spec.has_behavior {
            current.max(up).min(down)
        } else {
            down
        };
        let keep_from = window(spec.scale_up_window_secs.max(spec.scale_down_window_secs));
        memory.recommendations.retain(|(at, _)| *at > keep_from);
        memory.recommendations.push((now, prenormalized));
        let (reason, message) = if recommendation == prenormalized {
            ("ReadyForNewScale", "recommended size matches current size")
        } else if recommendation > prenormalized {
            ("ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation")
        } else {
            ("ScaleUpStabilized", "recent recommendations were lower than current one, applying the lowest recent recommendation")
        };
        conditions.set("AbleToScale", "True", reason, message);
        // `convertDesiredReplicasWithBehaviorRate`, with the default policies.
        let period_start = SimTime(now.0.saturating_sub(POLICY_PERIOD_MS));
        memory.scale_ups.retain(|(at, _)| *at > period_start);
        let added: i32 = memory.scale_ups.iter().map(|(_, n)| n).sum();
        let (limited_reason, limited_message, limited) = if recommendation > current {
            let up_limit = if spec.has_behavior {
                let start = current - added;
                (start.saturating_mul(2))
                    .max(start.saturating_add(4))
                    .max(current)
            } else {
                current.saturating_mul(2).max(4)
            };
            let allowed = spec.max_replicas.min(up_limit);
            if recommendation > allowed {
                recommendation = allowed;
                if up_limit < spec.max_replicas {
                    ("ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate", true)
                } else {
                    (
                        "TooManyReplicas",
                        "the desired replica count is more than the maximum replica count",
                        true,
                    )
                }
            } else {
                (
                    "DesiredWithinRange",
                    "the desired count is within the acceptable range",
                    false,
                )
            }
        } else if recommendation < current {
            // The default scale-down policy (100% per period) lets any count down to
            // minReplicas through.
            if recommendation < spec.min_replicas {
                recommendation = spec.min_replicas;
                (
                    "TooFewReplicas",
                    "the desired replica count is less than the minimum replica count",
                    true,
                )
            } else {
                (
                    "DesiredWithinRange",
                    "the desired count is within the acceptable range",
                    false,
                )
            }
        } else {
            (
                "DesiredWithinRange",
                "the desired count is within the acceptable range",
                false,
            )
        };
        conditions.set(
            "ScalingLimited",
            if limited { "True" } else { "False" },
            limited_reason,
            limited_message,
        );
        recommendation
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
