//! Quota evaluators: what an object costs against a ResourceQuota, shared by the
//! ResourceQuota admission plugin and the resource quota controller. Mirrors
//! pkg/quota/v1/evaluator/core (pods, services, persistent volume claims, the legacy
//! object counts) and the generic `count/<resource>.<group>` evaluator of
//! staging/src/k8s.io/apiserver/pkg/quota/v1/generic.

use crate::object::quantity::{Format, Quantity};
use crate::object::{Kind, Object};
use crate::sort::{CollectMap, CollectSet};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::{Container, Pod, PodSpec, ResourceQuota};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use std::collections::{BTreeMap, BTreeSet};

/// Resource names and amounts (upstream `corev1.ResourceList`), in name order.
pub type ResourceList = BTreeMap<String, Quantity>;

/// The resources for which a quota forces every container to state a request or a
/// limit (upstream `validationSet`: "it was a mistake ... do not add more").
const VALIDATION_SET: [&str; 6] = [
    "cpu",
    "memory",
    "requests.cpu",
    "requests.memory",
    "limits.cpu",
    "limits.memory",
];

/// The object-count resource name of a kind: `count/pods`, `count/deployments.apps`.
pub fn count_name(kind: Kind) -> String {
    if kind.group().is_empty() {
        format!("count/{}", kind.plural())
    } else {
        format!("count/{}.{}", kind.plural(), kind.group())
    }
}

/// The names counted before `count/` existed (upstream `legacyObjectCountAliases` and
/// the services and claims evaluators).
fn legacy_count_name(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::ConfigMap => Some("configmaps"),
        Kind::Secret => Some("secrets"),
        Kind::ReplicationController => Some("replicationcontrollers"),
        Kind::ResourceQuota => Some("resourcequotas"),
        Kind::Service => Some("services"),
        Kind::PersistentVolumeClaim => Some("persistentvolumeclaims"),
        _ => None,
    }
}

/// Upstream `IsNativeResource`: no domain, or a `kubernetes.io/` one.
fn is_native(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// Upstream `IsExtendedResourceName` (e.g. `nvidia.com/gpu`).
fn is_extended(name: &str) -> bool {
    !is_native(name) && !name.starts_with("requests.")
}

fn is_pod_resource(name: &str) -> bool {
    matches!(
        name,
        "pods"
            | "cpu"
            | "memory"
            | "ephemeral-storage"
            | "requests.cpu"
            | "requests.memory"
            | "requests.ephemeral-storage"
            | "limits.cpu"
            | "limits.memory"
            | "limits.ephemeral-storage"
    ) || name.starts_with("hugepages-")
        || name.starts_with("requests.hugepages-")
        || name
            .strip_prefix("requests.")
            .is_some_and(|rest| !is_native(rest))
}

/// Whether objects of `kind` are charged for the quota resource `name` (the
/// evaluators' `MatchingResources`). Events are never charged: the quota system
/// ignores them (upstream `DefaultIgnoredResources`), so `count/events` limits
/// nothing.
pub fn tracks(kind: Kind, name: &str) -> bool {
    if kind == Kind::Event {
        return false;
    }
    if name == count_name(kind) || legacy_count_name(kind) == Some(name) {
        return true;
    }
    match kind {
        Kind::Pod => is_pod_resource(name),
        Kind::Service => matches!(name, "services.nodeports" | "services.loadbalancers"),
        Kind::PersistentVolumeClaim => name == "requests.storage",
        _ => false,
    }
}

/// Whether a pod is charged for compute resources (upstream `QuotaV1Pod`): not in a
/// terminal phase, and not stuck terminating past its grace period (a pod on a lost
/// node should not block its replacement).
pub fn pod_is_charged(pod: &Pod, now: SimTime) -> bool {
    let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
    if matches!(phase, Some("Succeeded") | Some("Failed")) {
        return false;
    }
    if let (Some(at), Some(grace)) = (
        pod.metadata.deletion_timestamp.as_ref(),
        pod.metadata.deletion_grace_period_seconds,
    ) {
        let deadline = SimTime::from_k8s(at) + SimDuration::from_secs_i64(grace);
        if now > deadline {
            return false;
        }
    }
    true
}

fn parse_list(list: Option<&BTreeMap<String, K8sQuantity>>) -> ResourceList {
    list.into_iter()
        .flatten()
        .filter_map(|(k, v)| Quantity::parse(&v.0).map(|q| (k.clone(), q)))
        .collect_map()
}

fn add_list(into: &mut ResourceList, from: &ResourceList) {
    for (k, v) in from {
        into.entry(k.clone()).or_insert(Quantity::ZERO).add(*v);
    }
}

fn all_containers(spec: &PodSpec) -> impl Iterator<Item = &Container> {
    spec.containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
}

fn container_list(c: &Container, limits: bool) -> ResourceList {
    let r = c.resources.as_ref();
    parse_list(if limits {
        r.and_then(|r| r.limits.as_ref())
    } else {
        r.and_then(|r| r.requests.as_ref())
    })
}

/// The pod's effective requests or limits (upstream `resourcehelper.PodRequests` /
/// `PodLimits`): the sum over its containers, at least the largest init container's,
/// plus the pod overhead.
pub fn pod_resources(spec: &PodSpec, limits: bool) -> ResourceList {
    let mut sum = ResourceList::new();
    for c in &spec.containers {
        add_list(&mut sum, &container_list(c, limits));
    }
    for c in spec.init_containers.iter().flatten() {
        for (k, v) in container_list(c, limits) {
            let slot = sum.entry(k).or_insert(Quantity::ZERO);
            if v > *slot {
                *slot = v;
            }
        }
    }
    add_list(&mut sum, &parse_list(spec.overhead.as_ref()));
    sum
}

/// Upstream `podComputeUsageHelper`: the quota resources a pod's (or one
/// container's) requests and limits use.
fn compute_usage(requests: &ResourceList, limits: &ResourceList) -> ResourceList {
    let mut r = ResourceList::new();
    r.insert("pods".into(), Quantity::from_units(1, Format::DecimalSI));
    for res in ["cpu", "memory", "ephemeral-storage"] {
        if let Some(q) = requests.get(res) {
            r.insert(res.to_string(), *q);
            r.insert(format!("requests.{res}"), *q);
        }
        if let Some(q) = limits.get(res) {
            r.insert(format!("limits.{res}"), *q);
        }
    }
    for (name, q) in requests {
        if name.starts_with("hugepages-") {
            r.insert(name.clone(), *q);
            r.insert(format!("requests.{name}"), *q);
        } else if is_extended(name) {
            r.insert(format!("requests.{name}"), *q);
        }
    }
    r
}

/// What an object costs (the evaluators' `Usage`).
pub fn usage(obj: &Object, now: SimTime) -> ResourceList {
    let kind = obj.kind();
    let one = Quantity::from_units(1, Format::DecimalSI);
    let mut r = ResourceList::new();
    // Object counts track every object in storage, even finished pods.
    r.insert(count_name(kind), one);
    if let Some(name) = legacy_count_name(kind) {
        r.insert(name.into(), one);
    }
    match obj {
        Object::Pod(p) => {
            if let Some(spec) = p.spec.as_ref().filter(|_| pod_is_charged(p, now)) {
                let usage = compute_usage(&pod_resources(spec, false), &pod_resources(spec, true));
                r.extend(usage);
            }
        }
        Object::Service(s) => {
            let spec = s.spec.as_ref();
            let ports = spec.and_then(|s| s.ports.as_ref()).map_or(0, Vec::len) as i64;
            let (mut node_ports, mut balancers) = (0, 0);
            match spec.and_then(|s| s.type_.as_deref()) {
                Some("NodePort") => node_ports = ports,
                Some("LoadBalancer") => {
                    if spec
                        .and_then(|s| s.allocate_load_balancer_node_ports)
                        .unwrap_or(true)
                    {
                        node_ports = ports;
                    }
                    balancers = 1;
                }
                _ => {}
            }
            r.insert(
                "services.nodeports".into(),
                Quantity::from_units(node_ports, Format::DecimalSI),
            );
            r.insert(
                "services.loadbalancers".into(),
                Quantity::from_units(balancers, Format::DecimalSI),
            );
        }
        Object::Other(o) if kind == Kind::PersistentVolumeClaim => {
            let storage = o
                .fields
                .get("spec")
                .and_then(|s| s.pointer("/resources/requests/storage"))
                .and_then(|v| v.as_str())
                .and_then(Quantity::parse);
            if let Some(q) = storage {
                r.insert("requests.storage".into(), q);
            }
        }
        _ => {}
    }
    r
}

/// Upstream `qos.GetPodQOS(pod) == BestEffort`: no container asks for or is limited
/// in cpu or memory.
fn is_best_effort(spec: &PodSpec) -> bool {
    all_containers(spec).all(|c| {
        [false, true].into_iter().all(|limits| {
            let list = container_list(c, limits);
            ["cpu", "memory"]
                .iter()
                .all(|r| list.get(*r).is_none_or(|q| q.is_zero()))
        })
    })
}

/// Whether an object falls in a quota's scopes (`spec.scopes` and
/// `spec.scopeSelector`). Only pods have scopes: other objects never match a scoped
/// quota (upstream `MatchesNoScopeFunc`).
pub fn matches_scopes(quota: &ResourceQuota, obj: &Object) -> bool {
    let spec = quota.spec.as_ref();
    let mut selectors: Vec<(String, String, Vec<String>)> = spec
        .and_then(|s| s.scopes.as_ref())
        .into_iter()
        .flatten()
        .map(|s| (s.clone(), "Exists".to_string(), Vec::new()))
        .collect();
    selectors.extend(
        spec.and_then(|s| s.scope_selector.as_ref())
            .and_then(|s| s.match_expressions.as_ref())
            .into_iter()
            .flatten()
            .map(|e| {
                (
                    e.scope_name.clone(),
                    e.operator.clone(),
                    e.values.clone().unwrap_or_default(),
                )
            }),
    );
    if selectors.is_empty() {
        return true;
    }
    let Object::Pod(pod) = obj else {
        return false;
    };
    let default_spec = PodSpec::default();
    let spec = pod.spec.as_ref().unwrap_or(&default_spec);
    selectors
        .iter()
        .all(|(scope, op, values)| match scope.as_str() {
            "Terminating" => spec.active_deadline_seconds.is_some_and(|s| s >= 0),
            "NotTerminating" => spec.active_deadline_seconds.is_none_or(|s| s < 0),
            "BestEffort" => is_best_effort(spec),
            "NotBestEffort" => !is_best_effort(spec),
            "PriorityClass" => {
                let class = spec
                    .priority_class_name
                    .as_deref()
                    .filter(|c| !c.is_empty());
                match op.as_str() {
                    "Exists" => class.is_some(),
                    "DoesNotExist" => class.is_none(),
                    "In" => class.is_some_and(|c| values.iter().any(|v| v == c)),
                    "NotIn" => class.is_none_or(|c| !values.iter().any(|v| v == c)),
                    _ => false,
                }
            }
            "CrossNamespacePodAffinity" => {
                let affinity = spec.affinity.as_ref();
                let cross = |t: &k8s_openapi::api::core::v1::PodAffinityTerm| {
                    t.namespaces.as_ref().is_some_and(|n| !n.is_empty())
                        || t.namespace_selector.is_some()
                };
                let pod_aff = affinity.and_then(|a| a.pod_affinity.as_ref());
                let anti = affinity.and_then(|a| a.pod_anti_affinity.as_ref());
                let required = pod_aff
                    .and_then(|a| {
                        a.required_during_scheduling_ignored_during_execution
                            .as_ref()
                    })
                    .into_iter()
                    .chain(anti.and_then(|a| {
                        a.required_during_scheduling_ignored_during_execution
                            .as_ref()
                    }))
                    .flatten()
                    .any(cross);
                let preferred = pod_aff
                    .and_then(|a| {
                        a.preferred_during_scheduling_ignored_during_execution
                            .as_ref()
                    })
                    .into_iter()
                    .chain(anti.and_then(|a| {
                        a.preferred_during_scheduling_ignored_during_execution
                            .as_ref()
                    }))
                    .flatten()
                    .any(|w| cross(&w.pod_affinity_term));
                required || preferred
            }
            _ => false,
        })
}

/// The pod evaluator's `Constraints`: when a quota limits cpu or memory, every
/// container must state the request or limit it counts. The message lists, per
/// missing resource, the containers that lack it.
pub fn constraints(obj: &Object, required: &[String]) -> Result<(), String> {
    let Object::Pod(pod) = obj else {
        return Ok(());
    };
    let Some(spec) = pod.spec.as_ref() else {
        return Ok(());
    };
    let required: BTreeSet<&str> = required
        .iter()
        .map(String::as_str)
        .filter(|r| VALIDATION_SET.contains(r))
        .collect_set();
    let mut missing: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for c in all_containers(spec) {
        let have = compute_usage(&container_list(c, false), &container_list(c, true));
        for r in &required {
            if !have.contains_key(*r) {
                missing.entry(r).or_default().insert(c.name.as_str());
            }
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let parts: Vec<String> = missing
        .iter()
        .map(|(r, names)| {
            let names: Vec<&str> = names.iter().copied().collect();
            format!("{r} for: {}", names.join(","))
        })
        .collect();
    Err(format!("must specify {}", parts.join("; ")))
}

/// The hard limits a quota's status records (what admission enforces).
pub fn status_hard(q: &ResourceQuota) -> ResourceList {
    parse_list(q.status.as_ref().and_then(|s| s.hard.as_ref()))
}

/// The usage a quota's status records.
pub fn status_used(q: &ResourceQuota) -> ResourceList {
    parse_list(q.status.as_ref().and_then(|s| s.used.as_ref()))
}

/// The hard limits a quota's spec asks for.
pub fn spec_hard(q: &ResourceQuota) -> ResourceList {
    parse_list(q.spec.as_ref().and_then(|s| s.hard.as_ref()))
}

/// Upstream `prettyPrint`: `name=value` pairs, sorted by name, joined with commas.
pub fn pretty(list: &ResourceList) -> String {
    let parts: Vec<String> = list.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parts.join(",")
}

/// The entries of `list` whose names are in `names` (upstream `quota.Mask`).
pub fn mask<'a>(list: &ResourceList, names: impl IntoIterator<Item = &'a String>) -> ResourceList {
    names
        .into_iter()
        .filter_map(|n| list.get(n).map(|q| (n.clone(), *q)))
        .collect_map()
}

/// `a + b`, key by key (upstream `quota.Add`).
pub fn add(a: &ResourceList, b: &ResourceList) -> ResourceList {
    let mut r = a.clone();
    add_list(&mut r, b);
    r
}

/// A resource list as the API writes it: canonical quantities; `None` when empty
/// (the field is `omitempty`).
pub fn to_k8s(list: &ResourceList) -> Option<BTreeMap<String, K8sQuantity>> {
    (!list.is_empty()).then(|| {
        list.iter()
            .map(|(k, v)| (k.clone(), v.to_k8s()))
            .collect_map()
    })
}

/// Whether two written resource lists hold the same values (upstream compares with
/// `apiequality.Semantic`, which compares quantities by value).
pub fn same_values(
    a: Option<&BTreeMap<String, K8sQuantity>>,
    b: Option<&BTreeMap<String, K8sQuantity>>,
) -> bool {
    let (a, b) = (a.into_iter().flatten(), b.into_iter().flatten());
    let a: Vec<_> = a.collect();
    let b: Vec<_> = b.collect();
    a.len() == b.len()
        && a.iter().zip(&b).all(|((ka, va), (kb, vb))| {
            ka == kb && Quantity::parse(&va.0) == Quantity::parse(&vb.0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(containers: serde_json::Value) -> Object {
        Object::from_json(
            Kind::Pod,
            serde_json::json!({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "x", "namespace": "default"},
                "spec": {"containers": containers},
            }),
        )
        .unwrap()
    }

    #[test]
    fn pod_usage_counts_requests_and_limits() {
        let p = pod(serde_json::json!([
            {"name": "a", "image": "nginx", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}}},
            {"name": "b", "image": "nginx", "resources": {"requests": {"cpu": "250m", "nvidia.com/gpu": "1"}}},
        ]));
        let u = usage(&p, SimTime(0));
        let get = |k: &str| u.get(k).map(|q| q.to_string());
        assert_eq!(get("pods").as_deref(), Some("1"));
        assert_eq!(get("count/pods").as_deref(), Some("1"));
        assert_eq!(get("requests.cpu").as_deref(), Some("500m"));
        assert_eq!(get("cpu").as_deref(), Some("500m"));
        assert_eq!(get("requests.memory").as_deref(), Some("64Mi"));
        assert_eq!(get("limits.memory").as_deref(), Some("128Mi"));
        assert_eq!(get("requests.nvidia.com/gpu").as_deref(), Some("1"));
        assert_eq!(get("limits.cpu"), None);
    }

    #[test]
    fn constraints_name_the_containers_missing_each_resource() {
        let p = pod(serde_json::json!([
            {"name": "nginx", "image": "nginx"},
            {"name": "sidecar", "image": "busybox", "resources": {"limits": {"cpu": "1"}}},
        ]));
        let required: Vec<String> = [
            "limits.cpu",
            "limits.memory",
            "requests.cpu",
            "requests.memory",
            "pods",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        assert_eq!(
            constraints(&p, &required).unwrap_err(),
            "must specify limits.cpu for: nginx; limits.memory for: nginx,sidecar; requests.cpu for: nginx,sidecar; requests.memory for: nginx,sidecar"
        );
    }

    #[test]
    fn resource_names_follow_the_evaluators() {
        assert_eq!(count_name(Kind::Deployment), "count/deployments.apps");
        assert!(tracks(Kind::Deployment, "count/deployments.apps"));
        assert!(tracks(Kind::ConfigMap, "configmaps"));
        assert!(tracks(Kind::Pod, "requests.nvidia.com/gpu"));
        assert!(!tracks(Kind::Pod, "configmaps"));
        assert!(!tracks(Kind::Service, "pods"));
        assert!(!tracks(Kind::Event, "count/events"));
    }
}
