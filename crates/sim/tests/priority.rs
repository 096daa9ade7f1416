//! PriorityClasses, the Priority admission plugin, the scheduling queue's priority
//! order and DefaultPreemption (pkg/apis/scheduling, plugin/pkg/admission/priority,
//! pkg/scheduler/framework/plugins/defaultpreemption, framework/preemption).

mod common;

use common::{create, pod_node};
use k8s_openapi::api::core::v1::Pod;
use warehouse_sim::{decode_manifests, Cluster, Kind, SimDuration, StatusReason, Topology};

fn class(name: &str, value: i64, extra: &str) -> String {
    format!(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: {name}\nvalue: {value}\n{extra}"
    )
}

/// A pod requesting `cpu` on the zones `nodes` lists, of priority class `class`
/// (none when empty).
fn pod(name: &str, cpu: &str, class: &str, nodes: &str, labels: &str) -> String {
    let class = if class.is_empty() {
        String::new()
    } else {
        format!("  priorityClassName: {class}\n")
    };
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels: {labels}
spec:
{class}  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {{key: kubernetes.io/hostname, operator: In, values: [{nodes}]}}
  containers:
  - name: c
    image: nginx
    resources:
      requests: {{cpu: {cpu}}}
"
    )
}

fn get_pod(c: &Cluster, name: &str) -> Option<Pod> {
    c.get(Kind::Pod, "default", name)
        .ok()
        .and_then(|o| o.as_pod().cloned())
}

fn priority_of(c: &Cluster, ns: &str, name: &str) -> (Option<i32>, Option<String>) {
    let p = c.get(Kind::Pod, ns, name).unwrap();
    let spec = p.as_pod().unwrap().spec.clone().unwrap();
    (spec.priority, spec.preemption_policy)
}

fn nominated(c: &Cluster, name: &str) -> Option<String> {
    get_pod(c, name)?.status?.nominated_node_name
}

fn try_create(c: &mut Cluster, manifest: &str) -> Result<(), warehouse_sim::ApiError> {
    for obj in decode_manifests(manifest).unwrap() {
        c.create(obj)?;
    }
    Ok(())
}

/// Messages of the events about `name`, in order.
fn events_of(c: &Cluster, name: &str) -> Vec<String> {
    let mut evs: Vec<(String, String)> = c
        .list(Kind::Event, Some("default"))
        .into_iter()
        .filter_map(|o| {
            let v = o.to_json();
            (v["involvedObject"]["name"] == name).then(|| {
                (
                    v["metadata"]["name"].as_str().unwrap_or("").to_string(),
                    format!(
                        "{} {}",
                        v["reason"].as_str().unwrap_or(""),
                        v["message"].as_str().unwrap_or("")
                    ),
                )
            })
        })
        .collect();
    evs.sort();
    evs.into_iter().map(|(_, m)| m).collect()
}

/// Whether the scheduler preempted pod `name` (its `Preempted` event).
fn preempted(c: &Cluster, name: &str) -> bool {
    events_of(c, name)
        .iter()
        .any(|e| e.starts_with("Preempted Preempted by pod "))
}

#[test]
fn system_classes_exist_from_boot_and_cannot_be_deleted() {
    let mut c = Cluster::new(1, Topology::default());
    let classes: Vec<(String, i64)> = c
        .list(Kind::PriorityClass, None)
        .into_iter()
        .map(|o| {
            let v = o.to_json();
            (o.name().to_string(), v["value"].as_i64().unwrap())
        })
        .collect();
    assert_eq!(
        classes,
        vec![
            ("system-cluster-critical".to_string(), 2_000_000_000),
            ("system-node-critical".to_string(), 2_000_001_000),
        ]
    );
    let err = c
        .delete(Kind::PriorityClass, "", "system-node-critical")
        .unwrap_err();
    assert_eq!(err.reason, StatusReason::Forbidden);
    assert_eq!(
        err.message,
        "priorityclasses.scheduling.k8s.io \"system-node-critical\" is forbidden: this is a system priority class and cannot be deleted"
    );
    // kube-system's add-ons carry the priorities kubeadm gives them.
    c.advance(SimDuration::secs(30));
    for p in c.list(Kind::Pod, Some("kube-system")) {
        let name = p.name().to_string();
        let (priority, policy) = priority_of(&c, "kube-system", &name);
        let want = if name.starts_with("coredns-") {
            2_000_000_000
        } else {
            2_000_001_000
        };
        assert_eq!(priority, Some(want), "{name}");
        assert_eq!(policy.as_deref(), Some("PreemptLowerPriority"), "{name}");
    }
}

#[test]
fn bad_priority_classes_get_upstreams_errors_and_change_nothing() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &class("default-one", 10, "globalDefault: true\n"));
    let before = c.list(Kind::PriorityClass, None);
    let cases = [
        (
            class("system-mine", 5, ""),
            StatusReason::Invalid,
            "PriorityClass.scheduling.k8s.io \"system-mine\" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
        ),
        (
            class("huge", 1_000_000_001, ""),
            StatusReason::Invalid,
            "PriorityClass.scheduling.k8s.io \"huge\" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000",
        ),
        (
            class("odd", 5, "preemptionPolicy: Sometimes\n"),
            StatusReason::Invalid,
            "PriorityClass.scheduling.k8s.io \"odd\" is invalid: preemptionPolicy: Unsupported value: \"Sometimes\": supported values: \"Never\", \"PreemptLowerPriority\"",
        ),
        (
            class("another-default", 20, "globalDefault: true\n"),
            StatusReason::Forbidden,
            "priorityclasses.scheduling.k8s.io \"another-default\" is forbidden: PriorityClass default-one is already marked as default. Only one default can exist",
        ),
    ];
    for (manifest, reason, message) in cases {
        let err = try_create(&mut c, &manifest).unwrap_err();
        assert_eq!((err.reason, err.message.as_str()), (reason, message));
    }
    // value is immutable.
    let mut changed = c.get(Kind::PriorityClass, "", "default-one").unwrap();
    if let warehouse_sim::Object::Other(o) = &mut changed {
        o.fields.insert("value".into(), serde_json::json!(11));
    }
    let err = c.update(changed).unwrap_err();
    assert_eq!(
        err.message,
        "PriorityClass.scheduling.k8s.io \"default-one\" is invalid: value: Forbidden: may not be changed in an update."
    );
    assert_eq!(c.list(Kind::PriorityClass, None), before);
}

#[test]
fn admission_resolves_the_class_the_default_or_zero() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &class("high", 1000, "preemptionPolicy: Never\n"));
    create(&mut c, &pod("a", "100m", "high", "zone-a", "{}"));
    assert_eq!(
        priority_of(&c, "default", "a"),
        (Some(1000), Some("Never".into()))
    );
    create(&mut c, &pod("b", "100m", "", "zone-a", "{}"));
    assert_eq!(
        priority_of(&c, "default", "b"),
        (Some(0), Some("PreemptLowerPriority".into()))
    );
    create(&mut c, &class("usual", 7, "globalDefault: true\n"));
    create(&mut c, &pod("d", "100m", "", "zone-a", "{}"));
    let d = get_pod(&c, "d").unwrap().spec.unwrap();
    assert_eq!(d.priority, Some(7));
    assert_eq!(d.priority_class_name.as_deref(), Some("usual"));
    // System classes may be used outside kube-system since 1.17.
    create(
        &mut c,
        &pod(
            "critical",
            "100m",
            "system-cluster-critical",
            "zone-a",
            "{}",
        ),
    );
    assert_eq!(
        priority_of(&c, "default", "critical").0,
        Some(2_000_000_000)
    );
}

#[test]
fn admission_refuses_unknown_classes_and_hand_set_priorities() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &class("high", 1000, ""));
    let pods = c.list(Kind::Pod, None).len();
    let err = try_create(&mut c, &pod("x", "100m", "nope", "zone-a", "{}")).unwrap_err();
    assert_eq!(err.reason, StatusReason::Forbidden);
    assert_eq!(
        err.message,
        "pods \"x\" is forbidden: no PriorityClass with name nope was found"
    );
    let hand_set = pod("y", "100m", "high", "zone-a", "{}").replace(
        "  priorityClassName: high\n",
        "  priorityClassName: high\n  priority: 5\n",
    );
    let err = try_create(&mut c, &hand_set).unwrap_err();
    assert_eq!(
        err.message,
        "pods \"y\" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name"
    );
    // The same value as the class's is accepted.
    let same = hand_set.replace("priority: 5", "priority: 1000");
    try_create(&mut c, &same).unwrap();
    assert_eq!(c.list(Kind::Pod, None).len(), pods + 1);
}

#[test]
fn the_queue_pops_higher_priority_first() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &class("high", 1000, "preemptionPolicy: Never\n"));
    create(&mut c, &pod("filler", "3", "", "zone-a", "{}"));
    c.advance(SimDuration::secs(10));
    // Both wait; the low one came first.
    create(&mut c, &pod("low", "2500m", "", "zone-a", "{}"));
    c.advance(SimDuration::secs(1));
    create(&mut c, &pod("high", "2500m", "high", "zone-a", "{}"));
    c.advance(SimDuration::secs(1));
    let msg = events_of(&c, "high").pop().unwrap();
    assert!(msg.contains("1 Insufficient cpu"), "{msg}");
    assert!(
        msg.ends_with(". preemption: not eligible due to preemptionPolicy=Never."),
        "{msg}"
    );
    assert!(!preempted(&c, "filler"), "Never preempts nothing");
    c.delete(Kind::Pod, "default", "filler").unwrap();
    c.advance(SimDuration::secs(60));
    assert_eq!(pod_node(&c, "default", "high").as_deref(), Some("zone-a"));
    assert_eq!(pod_node(&c, "default", "low"), None);
}

#[test]
fn preemption_evicts_the_fewest_least_important_pods() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &class("p10", 10, ""));
    create(&mut c, &class("p20", 20, ""));
    create(&mut c, &class("urgent", 1000, ""));
    create(&mut c, &pod("a", "1500m", "p10", "zone-a", "{}"));
    create(&mut c, &pod("b", "1500m", "p20", "zone-a", "{}"));
    c.advance(SimDuration::secs(10));
    create(&mut c, &pod("u", "2", "urgent", "zone-a", "{}"));
    c.advance(SimDuration::millis(100));
    // The victim is marked, then deleted gracefully.
    let a = get_pod(&c, "a").unwrap();
    assert!(a.metadata.deletion_timestamp.is_some());
    let cond = warehouse_sim::controllers::pod_condition(&a, "DisruptionTarget").unwrap();
    assert_eq!(cond.reason.as_deref(), Some("PreemptionByScheduler"));
    assert_eq!(
        cond.message.as_deref(),
        Some("default-scheduler: preempting to accommodate a higher priority pod")
    );
    // Removing both makes room; b (the more important) is reprieved.
    assert!(preempted(&c, "a"));
    assert!(!preempted(&c, "b"));
    assert_eq!(nominated(&c, "u").as_deref(), Some("zone-a"));
    let uid = get_pod(&c, "u").unwrap().metadata.uid.unwrap();
    assert!(
        events_of(&c, "a").contains(&format!("Preempted Preempted by pod {uid} on node zone-a"))
    );
    // The FailedScheduling of a pod that preempted says nothing of preemption.
    let failed = events_of(&c, "u").pop().unwrap();
    assert!(failed.ends_with("affinity/selector."), "{failed}");
    assert!(!failed.contains("preemption:"), "{failed}");
    // A small pod of lower priority may not take the room the nominated pod waits for.
    create(&mut c, &pod("small", "600m", "", "zone-a", "{}"));
    c.advance(SimDuration::secs(2));
    assert_eq!(pod_node(&c, "default", "small"), None);
    c.advance(SimDuration::secs(40));
    assert!(get_pod(&c, "a").is_none());
    assert_eq!(pod_node(&c, "default", "u").as_deref(), Some("zone-a"));
    assert_eq!(nominated(&c, "u"), None, "binding clears the nomination");
    assert_eq!(pod_node(&c, "default", "b").as_deref(), Some("zone-a"));
}

#[test]
fn preemption_picks_the_node_with_the_least_important_victims() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &class("p5", 5, ""));
    create(&mut c, &class("p10", 10, ""));
    create(&mut c, &class("urgent", 1000, ""));
    create(&mut c, &pod("on-a", "3", "p10", "zone-a", "{}"));
    create(&mut c, &pod("on-b", "3", "p5", "zone-b", "{}"));
    c.advance(SimDuration::secs(10));
    create(&mut c, &pod("u", "3", "urgent", "zone-a, zone-b", "{}"));
    c.advance(SimDuration::secs(1));
    assert_eq!(nominated(&c, "u").as_deref(), Some("zone-b"));
    assert!(preempted(&c, "on-b"));
    assert!(!preempted(&c, "on-a"));
}

#[test]
fn preemption_prefers_a_node_where_no_budget_is_violated() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &class("p5", 5, ""));
    create(&mut c, &class("p10", 10, ""));
    create(&mut c, &class("urgent", 1000, ""));
    create(
        &mut c,
        &pod("guarded", "3", "p5", "zone-a", "{app: guarded}"),
    );
    create(&mut c, &pod("free", "3", "p10", "zone-b", "{}"));
    create(
        &mut c,
        "apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: guarded
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: guarded}
",
    );
    c.advance(SimDuration::secs(30));
    create(&mut c, &pod("u", "3", "urgent", "zone-a, zone-b", "{}"));
    c.advance(SimDuration::secs(1));
    // zone-a's victim has the lower priority, but evicting it breaks its budget.
    assert_eq!(nominated(&c, "u").as_deref(), Some("zone-b"));
    assert!(preempted(&c, "free"));
    assert!(!preempted(&c, "guarded"));
}

#[test]
fn no_victims_among_equal_or_higher_priorities() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &class("urgent", 1000, ""));
    create(&mut c, &pod("first", "3", "urgent", "zone-a", "{}"));
    c.advance(SimDuration::secs(10));
    create(&mut c, &pod("second", "3", "urgent", "zone-a", "{}"));
    c.advance(SimDuration::secs(1));
    let msg = events_of(&c, "second").pop().unwrap();
    assert_eq!(
        msg,
        "FailedScheduling 0/4 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
    );
    assert!(!preempted(&c, "first"));
    assert_eq!(nominated(&c, "second"), None);
}

#[test]
fn a_nominated_pod_holds_its_room_while_the_victim_stops() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &class("p10", 10, ""));
    create(&mut c, &class("urgent", 1000, ""));
    // The victim takes 20 s to stop (a preStop sleep).
    let slow = pod("a", "3", "p10", "zone-a", "{}").replace(
        "    image: nginx\n",
        "    image: nginx\n    lifecycle:\n      preStop:\n        sleep: {seconds: 20}\n",
    );
    create(&mut c, &slow);
    c.advance(SimDuration::secs(10));
    create(&mut c, &pod("u", "3", "urgent", "zone-a", "{}"));
    c.advance(SimDuration::secs(2));
    assert!(get_pod(&c, "a")
        .unwrap()
        .metadata
        .deletion_timestamp
        .is_some());
    assert_eq!(nominated(&c, "u").as_deref(), Some("zone-a"));
    // A small pod of lower priority would fit beside the stopping victim, but not
    // beside the room held for u.
    create(&mut c, &pod("small", "600m", "", "zone-a", "{}"));
    c.advance(SimDuration::secs(2));
    assert_eq!(pod_node(&c, "default", "small"), None);
    let msg = events_of(&c, "small").pop().unwrap();
    assert!(msg.contains("1 Insufficient cpu"), "{msg}");
    c.advance(SimDuration::secs(40));
    assert_eq!(pod_node(&c, "default", "u").as_deref(), Some("zone-a"));
}
