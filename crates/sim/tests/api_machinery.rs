//! API machinery, end to end through the public API: LimitRanger, ResourceQuota (the
//! admission plugin and the controller), garbage collection modes, and the event
//! recorders' aggregation.

use warehouse_sim::{
    decode_manifests, Cluster, DeleteOptions, Kind, Object, Propagation, SimDuration, StatusReason,
    Topology,
};

fn apply(c: &mut Cluster, manifest: &str) -> Vec<Result<Object, warehouse_sim::ApiError>> {
    decode_manifests(manifest)
        .unwrap()
        .into_iter()
        .map(|o| c.create(o))
        .collect()
}

fn cluster() -> Cluster {
    let mut c = Cluster::new(1, Topology::default());
    for r in apply(
        &mut c,
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: quota-mem-cpu-example}\n",
    ) {
        r.unwrap();
    }
    c
}

const NS: &str = "quota-mem-cpu-example";

/// A Deployment `web` in [`NS`] of `replicas` nginx pods.
fn web(replicas: usize) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: quota-mem-cpu-example}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: nginx, image: nginx}}]
"
    )
}

/// The quota of the documentation's "Configure Memory and CPU Quotas for a
/// Namespace" task.
const QUOTA: &str = "apiVersion: v1
kind: ResourceQuota
metadata:
  name: mem-cpu-demo
  namespace: quota-mem-cpu-example
spec:
  hard:
    requests.cpu: \"1\"
    requests.memory: 1Gi
    limits.cpu: \"2\"
    limits.memory: 2Gi
";

fn pod(name: &str, requests: &str, limits: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: quota-mem-cpu-example
spec:
  containers:
  - name: {name}-ctr
    image: nginx
    resources:
      requests: {requests}
      limits: {limits}
"
    )
}

/// Resource names and quantities, as a quota's status lists them.
type Pairs = Vec<(String, String)>;

fn quota_status(c: &Cluster, name: &str) -> (Pairs, Pairs) {
    let Object::ResourceQuota(q) = c.get(Kind::ResourceQuota, NS, name).unwrap() else {
        panic!("not a quota");
    };
    let status = q.status.unwrap_or_default();
    let flat = |m: Option<std::collections::BTreeMap<String, _>>| -> Pairs {
        m.unwrap_or_default()
            .into_iter()
            .map(
                |(k, v): (
                    String,
                    k8s_openapi::apimachinery::pkg::api::resource::Quantity,
                )| { (k, v.0) },
            )
            .collect()
    };
    (flat(status.hard), flat(status.used))
}

fn pairs(list: &[(&str, &str)]) -> Pairs {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn quota_refuses_a_pod_that_would_exceed_it_with_the_upstream_message() {
    let mut c = cluster();
    apply(&mut c, QUOTA)[0].as_ref().unwrap();
    c.advance(SimDuration::secs(1));
    let first = pod(
        "quota-mem-cpu-demo",
        "{memory: 600Mi, cpu: 400m}",
        "{memory: 800Mi, cpu: 800m}",
    );
    apply(&mut c, &first)[0].as_ref().unwrap();
    let second = pod(
        "quota-mem-cpu-demo-2",
        "{memory: 700Mi, cpu: 400m}",
        "{memory: 1Gi, cpu: 800m}",
    );
    let err = apply(&mut c, &second).remove(0).unwrap_err();
    assert_eq!(err.reason, StatusReason::Forbidden);
    assert_eq!(err.code(), 403);
    assert_eq!(
        err.message,
        "pods \"quota-mem-cpu-demo-2\" is forbidden: exceeded quota: mem-cpu-demo, requested: requests.memory=700Mi, used: requests.memory=600Mi, limited: requests.memory=1Gi"
    );
}

#[test]
fn quota_on_cpu_and_memory_requires_every_container_to_state_them() {
    let mut c = cluster();
    apply(&mut c, QUOTA)[0].as_ref().unwrap();
    c.advance(SimDuration::secs(1));
    let bare = "apiVersion: v1
kind: Pod
metadata: {name: bare, namespace: quota-mem-cpu-example}
spec:
  containers:
  - {name: nginx, image: nginx}
";
    let err = apply(&mut c, bare).remove(0).unwrap_err();
    assert_eq!(
        err.message,
        "pods \"bare\" is forbidden: failed quota: mem-cpu-demo: must specify limits.cpu for: nginx; limits.memory for: nginx; requests.cpu for: nginx; requests.memory for: nginx"
    );
}

#[test]
fn quota_status_tracks_hard_and_used_as_pods_come_and_go() {
    let mut c = cluster();
    apply(&mut c, QUOTA)[0].as_ref().unwrap();
    // Before the controller has looked, the status is empty (and admission lets
    // everything through, as upstream does).
    assert_eq!(quota_status(&c, "mem-cpu-demo"), (vec![], vec![]));
    c.advance(SimDuration::secs(1));
    let hard = pairs(&[
        ("limits.cpu", "2"),
        ("limits.memory", "2Gi"),
        ("requests.cpu", "1"),
        ("requests.memory", "1Gi"),
    ]);
    let zero = pairs(&[
        ("limits.cpu", "0"),
        ("limits.memory", "0"),
        ("requests.cpu", "0"),
        ("requests.memory", "0"),
    ]);
    assert_eq!(
        quota_status(&c, "mem-cpu-demo"),
        (hard.clone(), zero.clone())
    );
    let p = pod(
        "demo",
        "{memory: 600Mi, cpu: 400m}",
        "{memory: 800Mi, cpu: 800m}",
    );
    apply(&mut c, &p)[0].as_ref().unwrap();
    let used = pairs(&[
        ("limits.cpu", "800m"),
        ("limits.memory", "800Mi"),
        ("requests.cpu", "400m"),
        ("requests.memory", "600Mi"),
    ]);
    // Admission charges the quota at once.
    assert_eq!(
        quota_status(&c, "mem-cpu-demo"),
        (hard.clone(), used.clone())
    );
    c.advance(SimDuration::secs(20));
    assert_eq!(quota_status(&c, "mem-cpu-demo"), (hard.clone(), used));
    // Deleting the pod gives the resources back once it is gone.
    c.delete(Kind::Pod, NS, "demo").unwrap();
    c.advance(SimDuration::secs(40));
    assert!(c.get(Kind::Pod, NS, "demo").is_err());
    assert_eq!(quota_status(&c, "mem-cpu-demo"), (hard, zero));
}

#[test]
fn object_count_quotas_count_every_kind() {
    let mut c = cluster();
    let quota = "apiVersion: v1
kind: ResourceQuota
metadata: {name: counts, namespace: quota-mem-cpu-example}
spec:
  hard:
    configmaps: \"1\"
    count/deployments.apps: \"1\"
    pods: \"10\"
";
    apply(&mut c, quota)[0].as_ref().unwrap();
    c.advance(SimDuration::secs(1));
    let cm = |name: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: quota-mem-cpu-example}}\n")
    };
    apply(&mut c, &cm("one"))[0].as_ref().unwrap();
    let err = apply(&mut c, &cm("two")).remove(0).unwrap_err();
    assert_eq!(
        err.message,
        "configmaps \"two\" is forbidden: exceeded quota: counts, requested: configmaps=1, used: configmaps=1, limited: configmaps=1"
    );
    let deploy = |name: &str| {
        format!(
            "apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: quota-mem-cpu-example}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers: [{{name: app, image: nginx}}]
"
        )
    };
    apply(&mut c, &deploy("web"))[0].as_ref().unwrap();
    let err = apply(&mut c, &deploy("api")).remove(0).unwrap_err();
    assert_eq!(
        err.message,
        "deployments.apps \"api\" is forbidden: exceeded quota: counts, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1"
    );
    c.advance(SimDuration::secs(20));
    let (_, used) = quota_status(&c, "counts");
    assert_eq!(
        used,
        pairs(&[
            ("configmaps", "1"),
            ("count/deployments.apps", "1"),
            ("pods", "2")
        ])
    );
}

#[test]
fn replicaset_records_the_quota_refusal_and_retries_until_the_quota_allows() {
    let mut c = cluster();
    let quota = "apiVersion: v1
kind: ResourceQuota
metadata: {name: pod-demo, namespace: quota-mem-cpu-example}
spec:
  hard: {pods: \"2\"}
";
    apply(&mut c, quota)[0].as_ref().unwrap();
    c.advance(SimDuration::secs(1));
    apply(&mut c, &web(3))[0].as_ref().unwrap();
    c.advance(SimDuration::secs(30));
    assert_eq!(c.list(Kind::Pod, Some(NS)).len(), 2);
    let failed: Vec<String> = c
        .list(Kind::Event, Some(NS))
        .into_iter()
        .filter_map(|o| match o {
            Object::Event(e) if e.reason.as_deref() == Some("FailedCreate") => e.message,
            _ => None,
        })
        .collect();
    assert!(!failed.is_empty());
    for m in &failed {
        let m = m
            .strip_prefix("(combined from similar events): ")
            .unwrap_or(m);
        assert!(m.starts_with("Error creating: pods \"web-"), "{m}");
        assert!(
            m.ends_with("is forbidden: exceeded quota: pod-demo, requested: pods=1, used: pods=2, limited: pods=2"),
            "{m}"
        );
    }
    // Raising the quota lets the next retry through.
    let Object::ResourceQuota(mut q) = c.get(Kind::ResourceQuota, NS, "pod-demo").unwrap() else {
        panic!()
    };
    q.spec.as_mut().unwrap().hard.as_mut().unwrap().insert(
        "pods".into(),
        k8s_openapi::apimachinery::pkg::api::resource::Quantity("3".into()),
    );
    c.update(Object::ResourceQuota(q)).unwrap();
    c.advance(SimDuration::secs(120));
    assert_eq!(c.list(Kind::Pod, Some(NS)).len(), 3);
}

const LIMITS: &str = "apiVersion: v1
kind: LimitRange
metadata: {name: cpu-mem-limit-range, namespace: quota-mem-cpu-example}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 512Mi}
    defaultRequest: {cpu: 250m, memory: 256Mi}
    min: {memory: 100Mi}
    max: {memory: 1Gi}
";

#[test]
fn limit_ranger_sets_defaults_and_says_so_in_an_annotation() {
    let mut c = cluster();
    apply(&mut c, LIMITS)[0].as_ref().unwrap();
    let bare = "apiVersion: v1
kind: Pod
metadata: {name: bare, namespace: quota-mem-cpu-example}
spec:
  containers:
  - {name: nginx, image: nginx}
";
    let Object::Pod(p) = apply(&mut c, bare).remove(0).unwrap() else {
        panic!()
    };
    assert_eq!(
        p.metadata.annotations.unwrap()["kubernetes.io/limit-ranger"],
        "LimitRanger plugin set: cpu, memory request for container nginx; cpu, memory limit for container nginx"
    );
    let r = p.spec.unwrap().containers[0].resources.clone().unwrap();
    let show = |m: Option<
        std::collections::BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>,
    >| {
        m.unwrap()
            .into_iter()
            .map(|(k, v)| format!("{k}={}", v.0))
            .collect::<Vec<_>>()
            .join(",")
    };
    assert_eq!(show(r.requests), "cpu=250m,memory=256Mi");
    assert_eq!(show(r.limits), "cpu=500m,memory=512Mi");
}

#[test]
fn limit_range_defaults_requests_to_the_default_limit() {
    let mut c = cluster();
    let lr = "apiVersion: v1
kind: LimitRange
metadata: {name: only-limit, namespace: quota-mem-cpu-example}
spec:
  limits:
  - type: Container
    default: {memory: 1024Mi}
";
    let Object::LimitRange(stored) = apply(&mut c, lr).remove(0).unwrap() else {
        panic!()
    };
    let item = &stored.spec.unwrap().limits[0];
    // Stored in canonical form, with the default request filled in.
    assert_eq!(item.default.as_ref().unwrap()["memory"].0, "1Gi");
    assert_eq!(item.default_request.as_ref().unwrap()["memory"].0, "1Gi");
    let bare = "apiVersion: v1
kind: Pod
metadata: {name: bare, namespace: quota-mem-cpu-example}
spec:
  containers:
  - {name: nginx, image: nginx}
";
    let Object::Pod(p) = apply(&mut c, bare).remove(0).unwrap() else {
        panic!()
    };
    let r = p.spec.unwrap().containers[0].resources.clone().unwrap();
    assert_eq!(r.requests.unwrap()["memory"].0, "1Gi");
    assert_eq!(r.limits.unwrap()["memory"].0, "1Gi");
}

#[test]
fn limit_ranger_refuses_containers_outside_min_and_max() {
    let mut c = cluster();
    apply(&mut c, LIMITS)[0].as_ref().unwrap();
    let small = pod("small", "{memory: 50Mi}", "{memory: 60Mi}");
    let err = apply(&mut c, &small).remove(0).unwrap_err();
    assert_eq!(err.reason, StatusReason::Forbidden);
    assert_eq!(
        err.message,
        "pods \"small\" is forbidden: minimum memory usage per Container is 100Mi, but request is 50Mi"
    );
    // Several violations are listed together.
    let two = "apiVersion: v1
kind: Pod
metadata: {name: two, namespace: quota-mem-cpu-example}
spec:
  containers:
  - {name: a, image: nginx, resources: {requests: {memory: 50Mi}}}
  - {name: b, image: nginx, resources: {limits: {memory: 90Mi}}}
";
    let err = apply(&mut c, two).remove(0).unwrap_err();
    assert_eq!(
        err.message,
        "pods \"two\" is forbidden: [minimum memory usage per Container is 100Mi, but request is 50Mi, minimum memory usage per Container is 100Mi, but request is 90Mi]"
    );
    let big = pod("big", "{memory: 500Mi}", "{memory: 2Gi}");
    let err = apply(&mut c, &big).remove(0).unwrap_err();
    assert_eq!(
        err.message,
        "pods \"big\" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi"
    );
}

#[test]
fn a_default_limit_below_the_request_fails_pod_validation() {
    let mut c = cluster();
    apply(&mut c, LIMITS)[0].as_ref().unwrap();
    let p = "apiVersion: v1
kind: Pod
metadata: {name: greedy, namespace: quota-mem-cpu-example}
spec:
  containers:
  - name: nginx
    image: nginx
    resources:
      requests: {memory: 700Mi}
";
    let err = apply(&mut c, p).remove(0).unwrap_err();
    assert_eq!(err.reason, StatusReason::Invalid);
    assert_eq!(
        err.message,
        "Pod \"greedy\" is invalid: spec.containers[0].resources.requests: Invalid value: \"700Mi\": must be less than or equal to memory limit of 512Mi"
    );
}

#[test]
fn limit_ranger_mutates_pods_but_not_workload_templates() {
    let mut c = cluster();
    apply(&mut c, LIMITS)[0].as_ref().unwrap();
    apply(&mut c, &web(1))[0].as_ref().unwrap();
    c.advance(SimDuration::secs(5));
    let Object::Deployment(d) = c.get(Kind::Deployment, NS, "web").unwrap() else {
        panic!()
    };
    assert_eq!(d.spec.template.spec.unwrap().containers[0].resources, None);
    let pods = c.list(Kind::Pod, Some(NS));
    assert_eq!(pods.len(), 1);
    assert!(pods[0]
        .meta()
        .annotations
        .as_ref()
        .unwrap()
        .contains_key("kubernetes.io/limit-ranger"));
}

const RS: &str = "apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: frontend, namespace: quota-mem-cpu-example}
spec:
  replicas: 2
  selector: {matchLabels: {app: frontend}}
  template:
    metadata: {labels: {app: frontend}}
    spec:
      containers: [{name: nginx, image: nginx}]
";

#[test]
fn orphan_deletion_leaves_the_pods_without_an_owner() {
    let mut c = cluster();
    apply(&mut c, RS)[0].as_ref().unwrap();
    c.advance(SimDuration::secs(20));
    assert_eq!(c.list(Kind::Pod, Some(NS)).len(), 2);
    let deleted = c
        .delete_with(
            Kind::ReplicaSet,
            NS,
            "frontend",
            DeleteOptions {
                grace_period_seconds: None,
                propagation: Propagation::Orphan,
            },
        )
        .unwrap();
    // The owner waits, with its finalizer, for the collector to orphan its pods.
    assert!(deleted.meta().deletion_timestamp.is_some());
    assert_eq!(
        deleted.meta().finalizers.as_deref(),
        Some(&["orphan".to_string()][..])
    );
    c.advance(SimDuration::secs(5));
    assert!(c.get(Kind::ReplicaSet, NS, "frontend").is_err());
    let pods = c.list(Kind::Pod, Some(NS));
    assert_eq!(pods.len(), 2);
    for p in &pods {
        assert_eq!(p.meta().owner_references, None);
        assert_eq!(p.meta().deletion_timestamp, None);
    }
}

#[test]
fn foreground_deletion_removes_the_dependents_before_the_owner() {
    let mut c = cluster();
    apply(&mut c, &web(2))[0].as_ref().unwrap();
    c.advance(SimDuration::secs(20));
    let options = DeleteOptions {
        grace_period_seconds: None,
        propagation: Propagation::Foreground,
    };
    let deleted = c.delete_with(Kind::Deployment, NS, "web", options).unwrap();
    assert_eq!(
        deleted.meta().finalizers.as_deref(),
        Some(&["foregroundDeletion".to_string()][..])
    );
    c.advance(SimDuration::millis(100));
    // The pods terminate first; the ReplicaSet and the Deployment wait for them.
    let deployment = c.get(Kind::Deployment, NS, "web").unwrap();
    assert!(deployment.meta().deletion_timestamp.is_some());
    let rs = c.list(Kind::ReplicaSet, Some(NS));
    assert_eq!(rs.len(), 1);
    assert_eq!(
        rs[0].meta().finalizers.as_deref(),
        Some(&["foregroundDeletion".to_string()][..])
    );
    let pods = c.list(Kind::Pod, Some(NS));
    assert_eq!(pods.len(), 2);
    assert!(pods.iter().all(|p| p.meta().deletion_timestamp.is_some()));
    // Once the kubelets confirm, everything goes, owners last.
    c.advance(SimDuration::secs(40));
    assert!(c.list(Kind::Pod, Some(NS)).is_empty());
    assert!(c.list(Kind::ReplicaSet, Some(NS)).is_empty());
    assert!(c.get(Kind::Deployment, NS, "web").is_err());
}

#[test]
fn background_deletion_is_still_the_default() {
    let mut c = cluster();
    apply(&mut c, RS)[0].as_ref().unwrap();
    c.advance(SimDuration::secs(20));
    c.delete(Kind::ReplicaSet, NS, "frontend").unwrap();
    assert!(c.get(Kind::ReplicaSet, NS, "frontend").is_err());
    c.advance(SimDuration::secs(1));
    assert!(c
        .list(Kind::Pod, Some(NS))
        .iter()
        .all(|p| p.meta().deletion_timestamp.is_some()));
}

#[test]
fn repeated_failed_scheduling_is_one_event_with_a_count() {
    let mut c = cluster();
    let huge = "apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: quota-mem-cpu-example}
spec:
  containers:
  - name: app
    image: nginx
    resources:
      requests: {cpu: \"64\"}
";
    apply(&mut c, huge)[0].as_ref().unwrap();
    c.advance(SimDuration::secs(5));
    // Each pod that leaves a node gives the unschedulable pod another try.
    for i in 0..3 {
        let filler = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: filler-{i}, namespace: quota-mem-cpu-example}}\nspec:\n  containers: [{{name: app, image: nginx}}]\n"
        );
        apply(&mut c, &filler)[0].as_ref().unwrap();
        c.advance(SimDuration::secs(5));
        c.delete(Kind::Pod, NS, &format!("filler-{i}")).unwrap();
        c.advance(SimDuration::secs(5));
    }
    let events: Vec<_> = c
        .list(Kind::Event, Some(NS))
        .into_iter()
        .filter_map(|o| match o {
            Object::Event(e) if e.reason.as_deref() == Some("FailedScheduling") => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(events.len(), 1, "{events:#?}");
    let e = &events[0];
    assert_eq!(e.count, Some(4));
    assert!(e
        .message
        .as_deref()
        .is_some_and(|m| m.starts_with("0/4 nodes are available:")));
    assert!(e.last_timestamp > e.first_timestamp);
}
