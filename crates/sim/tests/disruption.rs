//! PodDisruptionBudgets: the disruption controller's status and the eviction
//! subresource that spends it (pkg/controller/disruption, pkg/registry/core/pod/
//! storage/eviction.go).

mod common;

use common::{create, web_deployment};
use serde_json::Value;
use warehouse_sim::apiserver::request::{Body, Credentials, Request};
use warehouse_sim::{decode_manifests, Cluster, Kind, SimDuration, StatusReason, Topology};

fn budget(spec: &str) -> String {
    format!(
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n{spec}"
    )
}

/// Three web replicas, running and Ready, and `budget_spec` as the budget `web`.
fn web_with_budget(budget_spec: &str) -> Cluster {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web_deployment(3, "{app: web}", "", ""));
    create(&mut c, &budget(budget_spec));
    c.advance(SimDuration::secs(30));
    c
}

fn status(c: &Cluster) -> Value {
    c.get(Kind::PodDisruptionBudget, "default", "web")
        .unwrap()
        .to_json()
        .get("status")
        .cloned()
        .unwrap_or(Value::Null)
}

fn counts(c: &Cluster) -> [i64; 4] {
    let s = status(c);
    let n = |f: &str| s[f].as_i64().unwrap_or(-1);
    [
        n("currentHealthy"),
        n("desiredHealthy"),
        n("expectedPods"),
        n("disruptionsAllowed"),
    ]
}

fn web_pods(c: &Cluster) -> Vec<String> {
    c.list(Kind::Pod, Some("default"))
        .into_iter()
        .filter(|p| p.meta().deletion_timestamp.is_none())
        .map(|p| p.name().to_string())
        .filter(|n| n.starts_with("web-"))
        .collect()
}

fn evict(c: &mut Cluster, pod: &str) -> Result<(), warehouse_sim::ApiError> {
    let body = Body::Evict {
        namespace: "default".into(),
        name: pod.into(),
        grace_period_seconds: None,
    };
    c.handle(Request::new(&Credentials::admin(), body))
        .map(|_| ())
}

#[test]
fn the_controller_counts_healthy_pods_against_min_available() {
    let c = web_with_budget("  minAvailable: 2\n  selector:\n    matchLabels: {app: web}\n");
    assert_eq!(counts(&c), [3, 2, 3, 1]);
    let s = status(&c);
    assert_eq!(s["observedGeneration"], 1);
    let cond = &s["conditions"][0];
    assert_eq!(cond["type"], "DisruptionAllowed");
    assert_eq!(cond["status"], "True");
    assert_eq!(cond["reason"], "SufficientPods");
    assert_eq!(cond["message"], "");
}

#[test]
fn max_unavailable_and_percentages_count_the_deployments_replicas() {
    let c = web_with_budget("  maxUnavailable: 1\n  selector:\n    matchLabels: {app: web}\n");
    assert_eq!(counts(&c), [3, 2, 3, 1]);
    // 50% of 3 rounds up to 2.
    let c = web_with_budget("  minAvailable: 50%\n  selector:\n    matchLabels: {app: web}\n");
    assert_eq!(counts(&c), [3, 2, 3, 1]);
    let c = web_with_budget("  maxUnavailable: 0\n  selector:\n    matchLabels: {app: web}\n");
    assert_eq!(counts(&c), [3, 3, 3, 0]);
    assert_eq!(status(&c)["conditions"][0]["reason"], "InsufficientPods");
}

#[test]
fn an_eviction_spends_a_disruption_and_the_next_one_is_refused_with_429() {
    let mut c = web_with_budget("  minAvailable: 2\n  selector:\n    matchLabels: {app: web}\n");
    let pods = web_pods(&c);
    evict(&mut c, &pods[0]).unwrap();
    // The apiserver spent the disruption before the controller looked again.
    let s = status(&c);
    assert_eq!(s["disruptionsAllowed"], 0);
    assert!(s["disruptedPods"].get(&pods[0]).is_some(), "{s}");
    assert_eq!(s["conditions"][0]["reason"], "InsufficientPods");
    let refused = evict(&mut c, &pods[1]).unwrap_err();
    assert_eq!(refused.reason, StatusReason::TooManyRequests);
    assert_eq!(refused.code(), 429);
    assert_eq!(
        refused.message,
        "Cannot evict pod as it would violate the pod's disruption budget."
    );
    assert_eq!(
        refused.to_string(),
        "Error from server (TooManyRequests): Cannot evict pod as it would violate the pod's disruption budget."
    );
    // The refused pod is untouched.
    let still = c.get(Kind::Pod, "default", &pods[1]).unwrap();
    assert!(still.meta().deletion_timestamp.is_none());
    // Once the replacement is Ready the budget allows one again.
    c.advance(SimDuration::secs(60));
    assert_eq!(counts(&c), [3, 2, 3, 1]);
    assert!(status(&c).get("disruptedPods").is_none());
    evict(&mut c, &pods[1]).unwrap();
}

#[test]
fn a_pending_pod_is_evicted_whatever_the_budget() {
    let mut c = Cluster::new(1, Topology::default());
    // Requests no zone can hold: the pods stay Pending.
    create(
        &mut c,
        &web_deployment(
            2,
            "{app: web}",
            "",
            "        resources:\n          requests: {cpu: '64'}\n",
        ),
    );
    create(
        &mut c,
        &budget("  minAvailable: 2\n  selector:\n    matchLabels: {app: web}\n"),
    );
    c.advance(SimDuration::secs(10));
    assert_eq!(counts(&c), [0, 2, 2, 0]);
    let pods = web_pods(&c);
    evict(&mut c, &pods[0]).unwrap();
}

#[test]
fn an_empty_selector_counts_every_pod_but_guards_none() {
    let mut c = web_with_budget("  minAvailable: 3\n  selector: {}\n");
    // The controller counts every pod of the namespace...
    assert_eq!(counts(&c)[0], 3);
    assert_eq!(counts(&c)[3], 0);
    // ...but the eviction subresource applies no budget with an empty selector.
    let pods = web_pods(&c);
    evict(&mut c, &pods[0]).unwrap();
}

#[test]
fn two_budgets_over_one_pod_make_eviction_fail() {
    let mut c = web_with_budget("  minAvailable: 1\n  selector:\n    matchLabels: {app: web}\n");
    create(
        &mut c,
        &budget("  maxUnavailable: 1\n  selector:\n    matchLabels: {app: web}\n")
            .replace("name: web", "name: web-too"),
    );
    c.advance(SimDuration::secs(2));
    let pods = web_pods(&c);
    let e = evict(&mut c, &pods[0]).unwrap_err();
    assert_eq!(e.code(), 500);
    assert_eq!(
        e.to_string(),
        "Error from server: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
    );
}

#[test]
fn a_changed_spec_is_refused_until_the_controller_has_seen_it() {
    let mut c = web_with_budget("  minAvailable: 1\n  selector:\n    matchLabels: {app: web}\n");
    let mut obj = c
        .get(Kind::PodDisruptionBudget, "default", "web")
        .unwrap()
        .to_json();
    obj["spec"]["minAvailable"] = 2.into();
    let obj = warehouse_sim::Object::from_json(Kind::PodDisruptionBudget, obj).unwrap();
    c.update(obj).unwrap();
    let generation = c
        .get(Kind::PodDisruptionBudget, "default", "web")
        .unwrap()
        .meta()
        .generation;
    assert_eq!(generation, Some(2));
    // The user's update kept the status the controller wrote for generation 1.
    assert_eq!(status(&c)["observedGeneration"], 1);
    let pods = web_pods(&c);
    let e = evict(&mut c, &pods[0]).unwrap_err();
    assert_eq!(e.reason, StatusReason::TooManyRequests);
    c.advance(SimDuration::secs(1));
    assert_eq!(status(&c)["observedGeneration"], 2);
    assert_eq!(counts(&c), [3, 2, 3, 1]);
}

fn event_messages(c: &Cluster) -> Vec<String> {
    c.list(Kind::Event, Some("default"))
        .into_iter()
        .filter_map(|e| e.to_json()["message"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn pods_without_a_controller_leave_a_percentage_budget_nothing_to_expect() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: lone\n  labels: {app: web}\nspec:\n  containers:\n  - name: nginx\n    image: nginx:1.27\n",
    );
    create(
        &mut c,
        &budget("  maxUnavailable: 10%\n  selector:\n    matchLabels: {app: web}\n"),
    );
    c.advance(SimDuration::secs(20));
    assert_eq!(counts(&c), [1, 0, 0, 0]);
    assert_eq!(status(&c)["conditions"][0]["reason"], "InsufficientPods");
    let events = event_messages(&c);
    assert!(
        events.iter().any(|m| m.starts_with("Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{app: web,},MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged.")),
        "{events:?}"
    );
}

#[test]
fn a_controller_without_a_scale_fails_a_percentage_budget() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: batch\nspec:\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: work\n        image: busybox:1.36\n        command: [sleep, '3600']\n",
    );
    create(
        &mut c,
        &budget("  maxUnavailable: 10%\n  selector:\n    matchLabels: {app: web}\n"),
    );
    c.advance(SimDuration::secs(20));
    let pod = web_pods_named(&c, "batch-");
    let s = status(&c);
    assert_eq!(s["disruptionsAllowed"], 0);
    assert_eq!(s["conditions"][0]["reason"], "SyncFailed");
    let message = format!("found no controllers for pod \"{pod}\"");
    assert_eq!(s["conditions"][0]["message"], message.as_str());
    assert!(
        event_messages(&c).contains(&format!(
            "Failed to calculate the number of expected pods: {message}"
        )),
        "{:?}",
        event_messages(&c)
    );
}

fn web_pods_named(c: &Cluster, prefix: &str) -> String {
    c.list(Kind::Pod, Some("default"))
        .into_iter()
        .map(|p| p.name().to_string())
        .find(|n| n.starts_with(prefix))
        .unwrap()
}

/// The three web replicas, a fourth pod `lone` labelled like them that never
/// becomes Ready, and the budget `web` of `budget_spec`.
fn web_and_an_unready_pod(budget_spec: &str) -> Cluster {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web_deployment(3, "{app: web}", "", ""));
    create(
        &mut c,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: lone\n  labels: {app: web}\nspec:\n  containers:\n  - name: nginx\n    image: nginx:1.27\n    readinessProbe:\n      httpGet: {path: /, port: 8080}\n",
    );
    create(&mut c, &budget(budget_spec));
    c.advance(SimDuration::secs(30));
    c
}

#[test]
fn an_unready_pod_goes_without_spending_while_the_budget_is_met() {
    let mut c =
        web_and_an_unready_pod("  minAvailable: 3\n  selector:\n    matchLabels: {app: web}\n");
    assert_eq!(counts(&c), [3, 3, 4, 0]);
    evict(&mut c, "lone").unwrap();
    assert_eq!(status(&c)["disruptionsAllowed"], 0);
    assert!(status(&c).get("disruptedPods").is_none());
}

#[test]
fn an_unready_pod_waits_for_a_healthy_budget_unless_the_policy_is_always_allow() {
    let mut c =
        web_and_an_unready_pod("  minAvailable: 4\n  selector:\n    matchLabels: {app: web}\n");
    assert_eq!(counts(&c), [3, 4, 4, 0]);
    assert_eq!(
        evict(&mut c, "lone").unwrap_err().reason,
        StatusReason::TooManyRequests
    );
    let mut c = web_and_an_unready_pod(
        "  minAvailable: 4\n  unhealthyPodEvictionPolicy: AlwaysAllow\n  selector:\n    matchLabels: {app: web}\n",
    );
    evict(&mut c, "lone").unwrap();
    // A Ready pod is still guarded.
    let ready = web_pods(&c).into_iter().find(|p| p != "lone").unwrap();
    assert_eq!(
        evict(&mut c, &ready).unwrap_err().reason,
        StatusReason::TooManyRequests
    );
}

#[test]
fn invalid_budgets_are_refused_with_upstreams_messages() {
    let mut c = Cluster::new(1, Topology::default());
    let both = decode_manifests(&budget(
        "  minAvailable: 1\n  maxUnavailable: 1\n  selector:\n    matchLabels: {app: web}\n",
    ))
    .unwrap()
    .remove(0);
    let e = c.create(both).unwrap_err();
    assert_eq!(e.reason, StatusReason::Invalid);
    assert!(
        e.message
            .contains("minAvailable and maxUnavailable cannot be both set"),
        "{}",
        e.message
    );
    let bad = decode_manifests(&budget("  minAvailable: 150%\n  maxUnavailable: x\n"))
        .unwrap()
        .remove(0);
    let e = c.create(bad).unwrap_err();
    assert!(
        e.message
            .contains("spec.minAvailable: Invalid value: \"150%\": must not be greater than 100%"),
        "{}",
        e.message
    );
    assert!(
        e.message
            .contains("spec.maxUnavailable: Invalid value: \"x\": a valid percent string"),
        "{}",
        e.message
    );
    let neg = decode_manifests(&budget("  minAvailable: -1\n"))
        .unwrap()
        .remove(0);
    let e = c.create(neg).unwrap_err();
    assert!(
        e.message
            .contains("spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"),
        "{}",
        e.message
    );
    assert_eq!(c.kind_count(Kind::PodDisruptionBudget), 0);
}

#[test]
fn taint_based_eviction_of_a_dead_zone_ignores_the_budget() {
    let mut c = web_with_budget("  minAvailable: 3\n  selector:\n    matchLabels: {app: web}\n");
    assert_eq!(counts(&c)[3], 0, "no disruption allowed");
    let on_a: Vec<String> = c
        .list(Kind::Pod, Some("default"))
        .into_iter()
        .filter(|p| p.name().starts_with("web-"))
        .filter(|p| p.to_json()["spec"]["nodeName"] == "zone-a")
        .map(|p| p.name().to_string())
        .collect();
    assert_eq!(on_a.len(), 1, "one web pod on zone-a");
    c.fault(warehouse_sim::Fault::KillNode("zone-a".into()))
        .unwrap();
    // 50 s to NotReady, 300 s of toleration, then the taint manager deletes.
    c.advance(SimDuration::secs(400));
    let pod = c.get(Kind::Pod, "default", &on_a[0]).unwrap();
    assert!(
        pod.meta().deletion_timestamp.is_some(),
        "evicted although the budget allows no disruption"
    );
}
