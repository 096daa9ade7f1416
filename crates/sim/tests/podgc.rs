//! The pod garbage collector: orphaned pods, terminating pods on out-of-service
//! nodes, terminated pods above the threshold, unscheduled terminating pods.

mod common;
use common::*;

use k8s_openapi::api::core::v1::{Pod, Taint};
use warehouse_sim::{Cluster, Fault, Kind, Object, SimDuration};

fn bare_pod(name: &str, node: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  nodeName: {node}
  restartPolicy: Never
  containers:
  - name: c
    image: busybox:1.36
    command: [sleep, \"3600\"]
"
    )
}

fn pod(c: &Cluster, name: &str) -> Option<Pod> {
    match c.get(Kind::Pod, "default", name) {
        Ok(Object::Pod(p)) => Some(*p),
        _ => None,
    }
}

fn phase(p: &Pod) -> String {
    p.status
        .as_ref()
        .and_then(|s| s.phase.clone())
        .unwrap_or_default()
}

fn step(c: &mut Cluster, secs: u64) {
    c.advance(SimDuration::secs(secs));
}

#[test]
fn orphaned_pods_are_deleted_forty_seconds_after_their_node() {
    let mut c = cluster_with(&bare_pod("lonely", "zone-a"));
    step(&mut c, 10);
    assert_eq!(phase(&pod(&c, "lonely").unwrap()), "Running");
    c.fault(Fault::KillNode("zone-a".into())).unwrap();
    c.delete(Kind::Node, "", "zone-a").unwrap();
    step(&mut c, 39);
    assert!(
        pod(&c, "lonely").is_some(),
        "quarantine: still there after 39 s"
    );
    step(&mut c, 2);
    assert!(pod(&c, "lonely").is_none(), "orphan deleted after 40 s");
}

#[test]
fn orphan_is_marked_failed_with_disruption_target_while_a_finalizer_holds_it() {
    let yaml = bare_pod("held", "zone-a").replace(
        "  name: held\n",
        "  name: held\n  finalizers: [example.com/hold]\n",
    );
    let mut c = cluster_with(&yaml);
    step(&mut c, 10);
    c.fault(Fault::KillNode("zone-a".into())).unwrap();
    c.delete(Kind::Node, "", "zone-a").unwrap();
    step(&mut c, 41);
    let p = pod(&c, "held").expect("the finalizer keeps it");
    assert_eq!(phase(&p), "Failed");
    assert!(p.metadata.deletion_timestamp.is_some());
    let cond = p
        .status
        .unwrap()
        .conditions
        .unwrap()
        .into_iter()
        .find(|c| c.type_ == "DisruptionTarget")
        .unwrap();
    assert_eq!(cond.reason.as_deref(), Some("DeletionByPodGC"));
    assert_eq!(
        cond.message.as_deref(),
        Some("PodGC: node no longer exists")
    );
}

#[test]
fn terminating_pods_on_a_dead_node_go_only_with_the_out_of_service_taint() {
    let mut c = cluster_with(&bare_pod("stuck", "zone-b"));
    step(&mut c, 10);
    c.fault(Fault::KillNode("zone-b".into())).unwrap();
    step(&mut c, 60);
    assert_ne!(node_ready(&c, "zone-b"), "True");
    c.delete(Kind::Pod, "default", "stuck").unwrap();
    step(&mut c, 120);
    let p = pod(&c, "stuck").expect("stuck in Terminating: no kubelet confirms");
    assert!(p.metadata.deletion_timestamp.is_some());
    let mut node = c.get(Kind::Node, "", "zone-b").unwrap();
    if let Object::Node(n) = &mut node {
        n.spec
            .get_or_insert_with(Default::default)
            .taints
            .get_or_insert_with(Vec::new)
            .push(Taint {
                key: "node.kubernetes.io/out-of-service".into(),
                value: Some("nodeshutdown".into()),
                effect: "NoExecute".into(),
                ..Default::default()
            });
    }
    c.update(node).unwrap();
    step(&mut c, 1);
    assert!(pod(&c, "stuck").is_none(), "force-deleted by the pod GC");
}

#[test]
fn terminated_pods_above_the_threshold_are_deleted_oldest_first() {
    let mut c = Cluster::new(1, warehouse_sim::Topology::default());
    c.set_terminated_pod_gc_threshold(2);
    for (i, name) in ["p1", "p2", "p3", "p4"].iter().enumerate() {
        create(
            &mut c,
            &bare_pod(name, if i % 2 == 0 { "zone-a" } else { "zone-c" }),
        );
        step(&mut c, 5);
    }
    step(&mut c, 10);
    for name in ["p4", "p3", "p2", "p1"] {
        c.kubelet_report_container_exit("default", name, 0).unwrap();
    }
    // The collector checks every 20 s.
    let left = |c: &Cluster| -> Vec<String> {
        ["p1", "p2", "p3", "p4"]
            .iter()
            .filter(|n| pod(c, n).is_some())
            .map(|n| n.to_string())
            .collect()
    };
    assert_eq!(left(&c).len(), 4);
    step(&mut c, 20);
    assert_eq!(left(&c), ["p3", "p4"]);
}

#[test]
fn unscheduled_terminating_pods_are_marked_failed_and_force_deleted() {
    let yaml = "apiVersion: v1
kind: Pod
metadata:
  name: nowhere
  finalizers: [example.com/hold]
spec:
  nodeSelector: {disk: none}
  containers:
  - name: c
    image: busybox:1.36
    command: [sleep, \"3600\"]
";
    let mut c = cluster_with(yaml);
    step(&mut c, 5);
    c.delete(Kind::Pod, "default", "nowhere").unwrap();
    step(&mut c, 1);
    let p = pod(&c, "nowhere").expect("held by its finalizer");
    assert_eq!(phase(&p), "Failed");
}
