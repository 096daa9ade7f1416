//! The DaemonSet controller: one pod per qualifying node, placed by the scheduler.

mod common;
use common::*;

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Pod;
use warehouse_sim::{Cluster, Fault, Kind, Object, SimDuration};

/// Agent pods for the nodes labelled `disk: ssd`.
fn agent() -> String {
    agent_daemon_set("      nodeSelector: {disk: ssd}\n")
}

/// The DaemonSet's live (not terminating) pods: (name, node).
fn agent_pods(c: &Cluster, ns: &str, prefix: &str) -> Vec<(String, String)> {
    c.list(Kind::Pod, Some(ns))
        .iter()
        .filter_map(|o| o.as_pod())
        .filter(|p| p.metadata.name.as_deref().unwrap().starts_with(prefix))
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .map(|p: &Pod| {
            (
                p.metadata.name.clone().unwrap(),
                p.spec
                    .as_ref()
                    .unwrap()
                    .node_name
                    .clone()
                    .unwrap_or_default(),
            )
        })
        .collect()
}

fn label_node(c: &mut Cluster, node: &str, key: &str, value: Option<&str>) {
    let mut n = c.get(Kind::Node, "", node).unwrap();
    let Object::Node(ref mut node) = n else {
        unreachable!()
    };
    let labels = node.metadata.labels.get_or_insert_with(Default::default);
    match value {
        Some(v) => labels.insert(key.into(), v.into()),
        None => labels.remove(key),
    };
    c.update(n).unwrap();
}

fn ds(c: &Cluster, ns: &str, name: &str) -> DaemonSet {
    match c.get(Kind::DaemonSet, ns, name).unwrap() {
        Object::DaemonSet(d) => *d,
        _ => unreachable!(),
    }
}

#[test]
fn a_node_selector_limits_the_daemon_set_to_matching_nodes() {
    let mut c = cluster_with(&agent());
    label_node(&mut c, "zone-b", "disk", "ssd".into());
    c.advance(SimDuration::secs(30));
    let pods = agent_pods(&c, "default", "agent-");
    assert_eq!(pods.len(), 1, "{pods:?}");
    assert_eq!(pods[0].1, "zone-b");
    assert_eq!(pods[0].0.len(), "agent-".len() + 5);
    let status = ds(&c, "default", "agent").status.unwrap();
    assert_eq!(status.desired_number_scheduled, 1);
    assert_eq!(status.current_number_scheduled, 1);
    assert_eq!(status.number_ready, 1);
    assert_eq!(status.number_available, Some(1));
    assert_eq!(status.updated_number_scheduled, Some(1));
    assert_eq!(status.number_misscheduled, 0);

    // A second node gets the label: it gets a pod too.
    label_node(&mut c, "zone-c", "disk", "ssd".into());
    c.advance(SimDuration::secs(30));
    let mut nodes: Vec<String> = agent_pods(&c, "default", "agent-")
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    nodes.sort();
    assert_eq!(nodes, ["zone-b", "zone-c"]);

    // The label goes: so does the pod.
    label_node(&mut c, "zone-b", "disk", None);
    c.advance(SimDuration::secs(60));
    let pods = agent_pods(&c, "default", "agent-");
    assert_eq!(pods.len(), 1, "{pods:?}");
    assert_eq!(pods[0].1, "zone-c");
    assert_eq!(
        ds(&c, "default", "agent")
            .status
            .unwrap()
            .desired_number_scheduled,
        1
    );
}

#[test]
fn a_deleted_daemon_pod_is_recreated_on_the_same_node() {
    let mut c = cluster_with(&agent());
    label_node(&mut c, "zone-a", "disk", "ssd".into());
    c.advance(SimDuration::secs(30));
    let before = agent_pods(&c, "default", "agent-");
    assert_eq!(before.len(), 1);
    c.delete(Kind::Pod, "default", &before[0].0).unwrap();
    c.advance(SimDuration::secs(60));
    let after = agent_pods(&c, "default", "agent-");
    assert_eq!(after.len(), 1, "{after:?}");
    assert_ne!(after[0].0, before[0].0);
    assert_eq!(after[0].1, "zone-a");
}

#[test]
fn a_daemon_pod_stays_on_a_dead_node_it_tolerates_forever() {
    let mut c = cluster_with(&agent());
    label_node(&mut c, "zone-a", "disk", "ssd".into());
    c.advance(SimDuration::secs(30));
    c.fault(Fault::KillNode("zone-a".into())).unwrap();
    // Past the grace period and the 300 s eviction of ordinary pods.
    c.advance(SimDuration::secs(600));
    let pods = agent_pods(&c, "default", "agent-");
    assert_eq!(pods.len(), 1, "not evicted: {pods:?}");
    assert_eq!(pods[0].1, "zone-a");
    let pod = c
        .get(Kind::Pod, "default", &pods[0].0)
        .unwrap()
        .as_pod()
        .unwrap()
        .clone();
    let tolerations = pod.spec.unwrap().tolerations.unwrap();
    let unreachable = tolerations
        .iter()
        .find(|t| t.key.as_deref() == Some("node.kubernetes.io/unreachable"))
        .unwrap();
    assert_eq!(unreachable.toleration_seconds, None);
}

#[test]
fn kube_proxy_is_a_daemon_set_with_a_pod_per_node() {
    let mut c = Cluster::new(1, warehouse_sim::Topology::default());
    c.advance(SimDuration::secs(30));
    let pods = agent_pods(&c, "kube-system", "kube-proxy-");
    let mut nodes: Vec<String> = pods.iter().map(|(_, n)| n.clone()).collect();
    nodes.sort();
    assert_eq!(nodes, ["control-plane", "zone-a", "zone-b", "zone-c"]);
    let status = ds(&c, "kube-system", "kube-proxy").status.unwrap();
    assert_eq!(status.desired_number_scheduled, 4);
    assert_eq!(status.number_ready, 4);
    let pod = c
        .get(Kind::Pod, "kube-system", &pods[0].0)
        .unwrap()
        .as_pod()
        .unwrap()
        .clone();
    let owner = &pod.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str()),
        ("DaemonSet", "kube-proxy")
    );
    let spec = pod.spec.unwrap();
    assert_eq!(spec.host_network, Some(true));
    assert_eq!(spec.priority, Some(2_000_001_000));
    let term = &spec
        .affinity
        .unwrap()
        .node_affinity
        .unwrap()
        .required_during_scheduling_ignored_during_execution
        .unwrap()
        .node_selector_terms[0];
    let field = &term.match_fields.as_ref().unwrap()[0];
    assert_eq!(field.key, "metadata.name");
    assert_eq!(
        field.values.as_deref(),
        Some(&[spec.node_name.unwrap()][..])
    );
}

#[test]
fn a_template_change_rolls_one_node_at_a_time() {
    let mut c = cluster_with(&agent());
    for n in ["zone-a", "zone-b", "zone-c"] {
        label_node(&mut c, n, "disk", "ssd".into());
    }
    c.advance(SimDuration::secs(30));
    let mut d = ds(&c, "default", "agent");
    d.spec.template.spec.as_mut().unwrap().containers[0].image = Some("nginx:1.28".into());
    c.update(Object::DaemonSet(Box::new(d))).unwrap();
    c.advance(SimDuration::secs(1));
    // maxUnavailable 1: at most one node without an available pod.
    let status = ds(&c, "default", "agent").status.unwrap();
    assert!(status.number_available.unwrap_or(0) >= 2, "{status:?}");
    c.advance(SimDuration::secs(300));
    let status = ds(&c, "default", "agent").status.unwrap();
    assert_eq!(status.updated_number_scheduled, Some(3), "{status:?}");
    assert_eq!(status.number_available, Some(3));
    for (name, _) in agent_pods(&c, "default", "agent-") {
        let p = c.get(Kind::Pod, "default", &name).unwrap();
        let image = p.as_pod().unwrap().spec.as_ref().unwrap().containers[0]
            .image
            .clone();
        assert_eq!(image.as_deref(), Some("nginx:1.28"));
    }
}

#[test]
fn the_scheduler_honours_match_fields_on_the_node_name() {
    let pin = |node: &str| {
        format!(
            "apiVersion: v1
kind: Pod
metadata:
  name: pinned-{node}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchFields:
          - key: metadata.name
            operator: In
            values: [{node}]
  containers:
  - name: app
    image: nginx:1.27
"
        )
    };
    let mut c = cluster_with(&pin("zone-b"));
    create(&mut c, &pin("zone-x"));
    c.advance(SimDuration::secs(10));
    let placed = c.get(Kind::Pod, "default", "pinned-zone-b").unwrap();
    assert_eq!(
        placed
            .as_pod()
            .unwrap()
            .spec
            .as_ref()
            .unwrap()
            .node_name
            .as_deref(),
        Some("zone-b")
    );
    let key = warehouse_sim::ObjectKey::new(Kind::Pod, "default", "pinned-zone-x");
    let decision = c.scheduling_decision(&key).unwrap();
    assert!(decision.chosen.is_none());
    assert!(
        decision
            .message
            .starts_with("0/4 nodes are available: 1 node(s) had untolerated taint"),
        "{}",
        decision.message
    );
    assert!(
        decision
            .message
            .contains("3 node(s) didn't match Pod's node affinity/selector"),
        "{}",
        decision.message
    );
}
