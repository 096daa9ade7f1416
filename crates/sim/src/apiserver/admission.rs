//! Admission plugins beyond defaulting: LimitRanger (mutating and validating) and
//! ResourceQuota (validating). Called by the apiserver pipeline in `apiserver/mod.rs`, in
//! upstream order: mutating plugins before validation, validating plugins after it,
//! ResourceQuota last.

use crate::apiserver::quota::{self, ResourceList};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::error::{ApiError, StatusReason};
use crate::object::quantity::Quantity;
use crate::object::{Kind, Object};
use crate::sort::StableSort;
use k8s_openapi::api::core::v1::{
    Container, LimitRange, LimitRangeItem, Pod, ResourceQuota, ResourceRequirements,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use std::collections::{BTreeMap, BTreeSet};

/// The annotation LimitRanger writes on the pods it changed.
pub const LIMIT_RANGER_ANNOTATION: &str = "kubernetes.io/limit-ranger";

/// Upstream `admission.NewForbidden`: `pods "x" is forbidden: <reason>`.
pub(crate) fn forbidden(obj: &Object, reason: String) -> ApiError {
    ApiError::new(
        StatusReason::Forbidden,
        format!(
            "{} \"{}\" is forbidden: {reason}",
            obj.kind().qualified_plural(),
            obj.name()
        ),
    )
}

/// Upstream `utilerrors.NewAggregate(errs).Error()`: one message as it is, several
/// in brackets, duplicates dropped.
fn aggregate(errors: &[String]) -> String {
    let mut seen = BTreeSet::new();
    let unique: Vec<&str> = errors
        .iter()
        .filter(|e| seen.insert(e.as_str()))
        .map(String::as_str)
        .collect();
    match unique.as_slice() {
        [one] => one.to_string(),
        many => format!("[{}]", many.join(", ")),
    }
}

impl Cluster {
    /// Mutating admission for a create: LimitRanger fills in default requests and
    /// limits from the namespace's LimitRanges.
    pub(crate) fn admission_mutate(&mut self, obj: &mut Object) -> Result<(), ApiError> {
        if let Object::Pod(pod) = obj {
            for range in self.limit_ranges(pod.metadata.namespace.as_deref().unwrap_or("")) {
                limit_ranger_mutate(&range, pod);
            }
        }
        Ok(())
    }

    /// Validating admission for a create (`old` None) or an update: LimitRanger's
    /// constraints, then ResourceQuota. Both act on creates only: pod resources
    /// cannot change afterwards, and the evaluators here count creations.
    pub(crate) fn admission_validate(
        &mut self,
        obj: &Object,
        old: Option<&Object>,
        dry_run: bool,
    ) -> Result<(), ApiError> {
        if old.is_some() {
            return Ok(());
        }
        if let Object::Pod(pod) = obj {
            for range in self.limit_ranges(obj.namespace()) {
                let errors = limit_ranger_validate(&range, pod);
                if !errors.is_empty() {
                    return Err(forbidden(obj, aggregate(&errors)));
                }
            }
        }
        self.resource_quota_admit(obj, dry_run)
    }

    fn limit_ranges(&self, namespace: &str) -> Vec<LimitRange> {
        self.store
            .list(Kind::LimitRange, Some(namespace))
            .filter_map(|o| match o {
                Object::LimitRange(l) => Some((**l).clone()),
                _ => None,
            })
            .collect()
    }

    /// The ResourceQuota plugin (plugin/pkg/admission/resourcequota `checkRequest`):
    /// every quota of the namespace that tracks the object must leave room for it;
    /// then the object's usage is charged to the quotas' `status.used` at once, so the
    /// next request sees it before the controller recounts (not for a dry run).
    fn resource_quota_admit(&mut self, obj: &Object, dry_run: bool) -> Result<(), ApiError> {
        let kind = obj.kind();
        if !kind.namespaced() {
            return Ok(());
        }
        let quotas: Vec<ResourceQuota> = self
            .store
            .list(Kind::ResourceQuota, Some(obj.namespace()))
            .filter_map(|o| match o {
                Object::ResourceQuota(q) => Some((**q).clone()),
                _ => None,
            })
            .collect();
        if quotas.is_empty() {
            return Ok(());
        }
        let mut interesting: Vec<(ResourceQuota, ResourceList)> = Vec::new();
        for q in quotas {
            let name = q.metadata.name.clone().unwrap_or_default();
            // Admission enforces what the controller has observed (status), not spec:
            // a quota the controller has not seen yet does not limit anything
            // (upstream `EvaluatorMatchesResourceList(evaluator, Status.Hard)`).
            let hard = quota::status_hard(&q);
            let restricted: Vec<String> = hard
                .keys()
                .filter(|n| quota::tracks(kind, n))
                .cloned()
                .collect();
            if restricted.is_empty() || !quota::matches_scopes(&q, obj) {
                continue;
            }
            if let Err(e) = quota::constraints(obj, &restricted) {
                return Err(forbidden(obj, format!("failed quota: {name}: {e}")));
            }
            // `hasUsageStats`: every restricted resource the quota enforces has a
            // usage figure. (A quota whose status the controller has not yet written
            // has no `status.hard` at all and, as upstream's `Matches`, limits nothing
            // until the controller's first sync, `WATCH_DELAY` after its creation.)
            let used = quota::status_used(&q);
            if restricted.iter().any(|k| !used.contains_key(k)) {
                let mut names = restricted.clone();
                names.stable_sort();
                return Err(forbidden(
                    obj,
                    format!(
                        "status unknown for quota: {name}, resources: {}",
                        names.join(",")
                    ),
                ));
            }
            interesting.push((q, hard));
        }
        if interesting.is_empty() {
            return Ok(());
        }
        let delta = quota::usage(obj, self.now);
        if delta.values().all(Quantity::is_zero) || dry_run {
            // A dry run is checked like any request but charges nothing.
            return Ok(());
        }
        let mut charged = Vec::new();
        for (q, hard) in interesting {
            let used = quota::status_used(&q);
            let requested = quota::mask(&delta, hard.keys());
            let new_usage = quota::add(&used, &requested);
            let exceeded: Vec<String> = hard
                .iter()
                .filter(|(k, limit)| {
                    requested.contains_key(*k) && new_usage.get(*k).is_some_and(|v| v > *limit)
                })
                .map(|(k, _)| k.clone())
                .collect();
            if !exceeded.is_empty() {
                return Err(forbidden(
                    obj,
                    format!(
                        "exceeded quota: {}, requested: {}, used: {}, limited: {}",
                        q.metadata.name.as_deref().unwrap_or(""),
                        quota::pretty(&quota::mask(&requested, &exceeded)),
                        quota::pretty(&quota::mask(&used, &exceeded)),
                        quota::pretty(&quota::mask(&hard, &exceeded)),
                    ),
                ));
            }
            if new_usage != used {
                charged.push((q, new_usage));
            }
        }
        for (mut q, usage) in charged {
            q.status.get_or_insert_with(Default::default).used = quota::to_k8s(&usage);
            // The plugin writes through the apiserver's loopback client; the request
            // being admitted keeps its own user.
            let actor = std::mem::take(&mut self.current_actor);
            let _ = self.update_as(Actor::System, Object::ResourceQuota(Box::new(q)));
            self.current_actor = actor;
        }
        Ok(())
    }
}

/// The defaults of a LimitRange's `Container` items (upstream
/// `defaultContainerResourceRequirements`): `defaultRequest` → requests, `default` →
/// limits.
fn container_defaults(range: &LimitRange) -> (ResourceList, ResourceList) {
    let mut requests = ResourceList::new();
    let mut limits = ResourceList::new();
    for item in range.spec.iter().flat_map(|s| &s.limits) {
        if item.type_ != "Container" {
            continue;
        }
        for (map, into) in [
            (&item.default_request, &mut requests),
            (&item.default, &mut limits),
        ] {
            for (k, v) in map.iter().flatten() {
                if let Some(q) = Quantity::parse(&v.0) {
                    into.insert(k.clone(), q);
                }
            }
        }
    }
    (requests, limits)
}

/// Upstream `mergeContainerResources`: fills in what the container does not state
/// and says what it set, for the annotation.
fn merge_container(
    c: &mut Container,
    defaults: &(ResourceList, ResourceList),
    prefix: &str,
    notes: &mut Vec<String>,
) {
    let (default_requests, default_limits) = defaults;
    let had_resources = c.resources.is_some();
    let mut set_requests = Vec::new();
    let mut set_limits = Vec::new();
    let resources = c
        .resources
        .get_or_insert_with(ResourceRequirements::default);
    for (defaults, field, set) in [
        (default_limits, &mut resources.limits, &mut set_limits),
        (default_requests, &mut resources.requests, &mut set_requests),
    ] {
        for (k, v) in defaults {
            let map = field.get_or_insert_with(BTreeMap::new);
            if !map.contains_key(k) {
                map.insert(k.clone(), v.to_k8s());
                set.push(k.clone());
            }
        }
        // Why: an empty map is omitted from the JSON, as Go's `omitempty` does.
        if set.is_empty() && field.as_ref().is_some_and(BTreeMap::is_empty) {
            *field = None;
        }
    }
    if set_requests.is_empty() && set_limits.is_empty() && !had_resources {
        c.resources = None;
    }
    // Defaults iterate in name order already; upstream sorts them.
    if !set_requests.is_empty() {
        notes.push(format!(
            "{} request for {prefix} {}",
            set_requests.join(", "),
            c.name
        ));
    }
    if !set_limits.is_empty() {
        notes.push(format!(
            "{} limit for {prefix} {}",
            set_limits.join(", "),
            c.name
        ));
    }
}

/// LimitRanger's mutation (upstream `PodMutateLimitFunc`): default requests and limits
/// for every container, and the `kubernetes.io/limit-ranger` annotation saying what
/// was set.
fn limit_ranger_mutate(range: &LimitRange, pod: &mut Pod) {
    let defaults = container_defaults(range);
    if defaults.0.is_empty() && defaults.1.is_empty() {
        return;
    }
    let Some(spec) = pod.spec.as_mut() else {
        return;
    };
    let mut notes = Vec::new();
    for c in spec.containers.iter_mut() {
        merge_container(c, &defaults, "container", &mut notes);
    }
    for c in spec.init_containers.iter_mut().flatten() {
        merge_container(c, &defaults, "init container", &mut notes);
    }
    if !notes.is_empty() {
        pod.metadata
            .annotations
            .get_or_insert_with(BTreeMap::new)
            .insert(
                LIMIT_RANGER_ANNOTATION.into(),
                format!("LimitRanger plugin set: {}", notes.join("; ")),
            );
    }
}

fn lookup(list: Option<&BTreeMap<String, K8sQuantity>>, name: &str) -> Option<Quantity> {
    list.and_then(|l| l.get(name))
        .and_then(|q| Quantity::parse(&q.0))
}

/// Upstream `minConstraint`.
fn min_constraint(
    kind: &str,
    name: &str,
    enforced: Quantity,
    request: Option<Quantity>,
    limit: Option<Quantity>,
) -> Option<String> {
    let Some(req) = request else {
        return Some(format!(
            "minimum {name} usage per {kind} is {enforced}.  No request is specified"
        ));
    };
    if req.milli_value() < enforced.milli_value() {
        return Some(format!(
            "minimum {name} usage per {kind} is {enforced}, but request is {req}"
        ));
    }
    match limit {
        Some(lim) if lim.milli_value() < enforced.milli_value() => Some(format!(
            "minimum {name} usage per {kind} is {enforced}, but limit is {lim}"
        )),
        _ => None,
    }
}

/// Upstream `maxConstraint`.
fn max_constraint(
    kind: &str,
    name: &str,
    enforced: Quantity,
    request: Option<Quantity>,
    limit: Option<Quantity>,
) -> Option<String> {
    let Some(lim) = limit else {
        return Some(format!(
            "maximum {name} usage per {kind} is {enforced}.  No limit is specified"
        ));
    };
    if lim.milli_value() > enforced.milli_value() {
        return Some(format!(
            "maximum {name} usage per {kind} is {enforced}, but limit is {lim}"
        ));
    }
    match request {
        Some(req) if req.milli_value() > enforced.milli_value() => Some(format!(
            "maximum {name} usage per {kind} is {enforced}, but request is {req}"
        )),
        _ => None,
    }
}

/// Upstream `limitRequestRatioConstraint`.
fn ratio_constraint(
    kind: &str,
    name: &str,
    enforced: Quantity,
    request: Option<Quantity>,
    limit: Option<Quantity>,
) -> Option<String> {
    let req = request.map(|q| q.milli_value()).unwrap_or(0);
    let lim = limit.map(|q| q.milli_value()).unwrap_or(0);
    if req == 0 {
        return Some(format!("{name} max limit to request ratio per {kind} is {enforced}, but no request is specified or request is 0"));
    }
    if lim == 0 {
        return Some(format!("{name} max limit to request ratio per {kind} is {enforced}, but no limit is specified or limit is 0"));
    }
    let ratio = lim as f64 / req as f64;
    if ratio * 1000.0 > enforced.milli_value() as f64 {
        return Some(format!(
            "{name} max limit to request ratio per {kind} is {enforced}, but provided ratio is {ratio:.6}"
        ));
    }
    None
}

fn check_item(
    item: &LimitRangeItem,
    requests: impl Fn(&str) -> Option<Quantity>,
    limits: impl Fn(&str) -> Option<Quantity>,
    errors: &mut Vec<String>,
) {
    let kind = item.type_.as_str();
    let parse = |q: &K8sQuantity| Quantity::parse(&q.0);
    for (name, v) in item.min.iter().flatten() {
        if let Some(e) =
            parse(v).and_then(|v| min_constraint(kind, name, v, requests(name), limits(name)))
        {
            errors.push(e);
        }
    }
    for (name, v) in item.max.iter().flatten() {
        if let Some(e) =
            parse(v).and_then(|v| max_constraint(kind, name, v, requests(name), limits(name)))
        {
            errors.push(e);
        }
    }
    for (name, v) in item.max_limit_request_ratio.iter().flatten() {
        if let Some(e) =
            parse(v).and_then(|v| ratio_constraint(kind, name, v, requests(name), limits(name)))
        {
            errors.push(e);
        }
    }
}

/// LimitRanger's validation (upstream `PodValidateLimitFunc`): each container, and
/// the pod as a whole, within the range's min, max and limit/request ratio.
fn limit_ranger_validate(range: &LimitRange, pod: &Pod) -> Vec<String> {
    let mut errors = Vec::new();
    let Some(spec) = pod.spec.as_ref() else {
        return errors;
    };
    for item in range.spec.iter().flat_map(|s| &s.limits) {
        match item.type_.as_str() {
            "Container" => {
                for c in spec
                    .containers
                    .iter()
                    .chain(spec.init_containers.iter().flatten())
                {
                    let r = c.resources.as_ref();
                    check_item(
                        item,
                        |n| lookup(r.and_then(|r| r.requests.as_ref()), n),
                        |n| lookup(r.and_then(|r| r.limits.as_ref()), n),
                        &mut errors,
                    );
                }
            }
            "Pod" => {
                let requests = quota::pod_resources(spec, false);
                let limits = quota::pod_resources(spec, true);
                check_item(
                    item,
                    |n| requests.get(n).copied(),
                    |n| limits.get(n).copied(),
                    &mut errors,
                );
            }
            _ => {}
        }
    }
    errors
}

/// Upstream `SetDefaults_LimitRangeItem`, for `Container` items: a missing default
/// limit is the max; a missing default request is the default limit, else the min.
pub(crate) fn default_limit_range(range: &mut LimitRange) {
    for item in range.spec.iter_mut().flat_map(|s| s.limits.iter_mut()) {
        for map in [
            &mut item.default,
            &mut item.default_request,
            &mut item.max,
            &mut item.min,
            &mut item.max_limit_request_ratio,
        ] {
            canonicalize(map);
        }
        if item.type_ != "Container" {
            continue;
        }
        let mut default = item.default.take().unwrap_or_default();
        for (k, v) in item.max.iter().flatten() {
            default.entry(k.clone()).or_insert_with(|| v.clone());
        }
        let mut request = item.default_request.take().unwrap_or_default();
        for (k, v) in default.iter().chain(item.min.iter().flatten()) {
            request.entry(k.clone()).or_insert_with(|| v.clone());
        }
        item.default = (!default.is_empty()).then_some(default);
        item.default_request = (!request.is_empty()).then_some(request);
    }
}

/// Rewrites every parseable quantity in canonical form, as the apiserver's decoding
/// does (`1024Mi` is stored as `1Gi`).
pub(crate) fn canonicalize(map: &mut Option<BTreeMap<String, K8sQuantity>>) {
    for q in map.iter_mut().flat_map(|m| m.values_mut()) {
        if let Some(c) = crate::object::quantity::canonical(&q.0) {
            q.0 = c;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quota_without_usage_for_a_restricted_resource_refuses() {
        use crate::cluster::{Cluster, Topology};
        let mut c = Cluster::new(1, Topology::default());
        let q: ResourceQuota = crate::object::from_manifest(
            "apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: default}
spec:
  hard: {pods: \"1\", services: \"1\"}
status:
  hard: {pods: \"1\", services: \"1\"}
  used: {services: \"0\"}
",
        )
        .unwrap();
        // Written as the controller would, without its usage for pods.
        c.put_directly(Object::ResourceQuota(Box::new(q))).unwrap();
        let pod: Pod = crate::object::from_manifest(
            "apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: nginx}]
",
        )
        .unwrap();
        let err = c
            .resource_quota_admit(&Object::Pod(Box::new(pod)), false)
            .unwrap_err();
        assert!(
            err.message
                .ends_with("forbidden: status unknown for quota: q, resources: pods"),
            "{}",
            err.message
        );
    }

    #[test]
    fn aggregates_like_utilerrors() {
        assert_eq!(aggregate(&["a".into()]), "a");
        assert_eq!(aggregate(&["a".into(), "b".into(), "a".into()]), "[a, b]");
    }

    #[test]
    fn ratio_prints_six_decimals() {
        let q = |s| Quantity::parse(s);
        assert_eq!(
            ratio_constraint("Container", "cpu", q("2").unwrap(), q("100m"), q("1")).unwrap(),
            "cpu max limit to request ratio per Container is 2, but provided ratio is 10.000000"
        );
        assert_eq!(
            ratio_constraint("Container", "cpu", q("2").unwrap(), q("500m"), q("1")),
            None
        );
    }
}
