//! The node lifecycle controller's eviction rate limiting and disruption modes
//! (pkg/controller/nodelifecycle/node_lifecycle_controller.go: `handleDisruption`,
//! `ComputeZoneState`, `ReducedQPSFunc`, `doNoExecuteTaintingPass`).

mod common;

use common::{create, node_ready, node_taints, WEB};
use warehouse_sim::time::{SimDuration, SimTime};
use warehouse_sim::{Cluster, Kind, Topology};
use warehouse_sim::{Fault, NodeSpec};

const UNREACHABLE: &str = "node.kubernetes.io/unreachable";

fn topology(workers: usize, zone: impl Fn(usize) -> Option<&'static str>) -> Topology {
    let mut nodes = vec![NodeSpec::control_plane("control-plane")];
    for i in 0..workers {
        let mut spec = NodeSpec::worker(&format!("w{i:02}"));
        if let Some(z) = zone(i) {
            spec.labels
                .insert("topology.kubernetes.io/zone".into(), z.into());
        }
        nodes.push(spec);
    }
    Topology {
        nodes,
        ..Topology::default()
    }
}

/// When node `name` got its `unreachable:NoExecute` taint, if it has one.
fn no_execute_since(c: &Cluster, name: &str) -> Option<SimTime> {
    node_taints(c, name)
        .into_iter()
        .find(|t| t.key == UNREACHABLE && t.effect == "NoExecute")
        .and_then(|t| t.time_added)
        .map(|t| SimTime::from_k8s(&t))
}

fn controller_log(c: &Cluster) -> Vec<String> {
    c.container_log(
        "kube-system",
        "kube-controller-manager-control-plane",
        None,
        false,
    )
    .unwrap()
    .into_iter()
    .map(|(_, line)| line)
    .collect()
}

fn log_contains(c: &Cluster, text: &str) -> bool {
    controller_log(c).iter().any(|l| l.contains(text))
}

fn fault(c: &mut Cluster, f: Fault) {
    c.fault(f).unwrap();
}

fn pods_deleted(c: &Cluster) -> usize {
    c.list(Kind::Pod, Some("default"))
        .iter()
        .filter(|p| p.meta().deletion_timestamp.is_some())
        .count()
}

#[test]
fn a_single_dead_node_is_tainted_at_the_next_pass_and_evicted_300_s_later() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, WEB);
    c.advance(SimDuration::secs(60));
    fault(&mut c, Fault::KillNode("zone-b".into()));
    c.advance(SimDuration::secs(120));
    let node = c.get(Kind::Node, "", "zone-b").unwrap();
    let ready = node
        .as_node()
        .unwrap()
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready").cloned())
        .unwrap();
    let verdict = SimTime::from_k8s(ready.last_transition_time.as_ref().unwrap());
    let no_schedule = node_taints(&c, "zone-b")
        .into_iter()
        .find(|t| t.key == UNREACHABLE && t.effect == "NoSchedule")
        .and_then(|t| t.time_added)
        .map(|t| SimTime::from_k8s(&t));
    assert_eq!(
        no_schedule,
        Some(verdict),
        "NoSchedule comes with the verdict"
    );
    // processTaintBaseEviction goes by the Ready condition the pass found: the node
    // joins the tainting queue one monitor period after the verdict.
    assert_eq!(
        no_execute_since(&c, "zone-b"),
        Some(verdict + SimDuration::secs(5))
    );
    assert_eq!(pods_deleted(&c), 0);
    let eviction = verdict + SimDuration::secs(305);
    c.advance(SimDuration::millis(eviction.0 - c.now().0 - 1));
    assert_eq!(pods_deleted(&c), 0, "nothing is evicted before 300 s");
    c.advance(SimDuration::secs(1));
    assert!(
        pods_deleted(&c) > 0,
        "evicted 300 s after the NoExecute taint"
    );
}

#[test]
fn a_large_zone_gets_one_no_execute_taint_every_10_seconds() {
    // 61 nodes without zone labels: one zone "". Six die at once: Normal, 0.1/s.
    let mut c = Cluster::new(1, topology(60, |_| None));
    c.advance(SimDuration::secs(60));
    let dead: Vec<String> = (0..6).map(|i| format!("w{i:02}")).collect();
    for n in &dead {
        fault(&mut c, Fault::KillNode(n.clone()));
    }
    c.advance(SimDuration::secs(150));
    let mut times: Vec<SimTime> = dead
        .iter()
        .map(|n| no_execute_since(&c, n).expect("every dead node is tainted"))
        .collect();
    times.sort();
    for pair in times.windows(2) {
        assert_eq!(pair[1].since(pair[0]), SimDuration::secs(10), "{times:?}");
    }
    for n in &dead {
        assert_eq!(node_ready(&c, n), "Unknown");
    }
    assert!(!log_contains(&c, "PartialDisruption"));
}

#[test]
fn a_large_partially_disrupted_zone_taints_at_the_secondary_rate() {
    // 34 of 61 not ready: 56% ≥ 55% in a zone above 50 nodes → 0.01/s.
    let mut c = Cluster::new(1, topology(60, |_| None));
    c.advance(SimDuration::secs(60));
    for i in 0..34 {
        fault(&mut c, Fault::KillNode(format!("w{i:02}")));
    }
    c.advance(SimDuration::secs(400));
    assert!(log_contains(
        &c,
        r#""Controller detected that zone is now in new state" logger="node-lifecycle-controller" zone="" newState="PartialDisruption""#
    ));
    let mut times: Vec<SimTime> = (0..34)
        .filter_map(|i| no_execute_since(&c, &format!("w{i:02}")))
        .collect();
    times.sort();
    assert!(times.len() >= 3, "{times:?}");
    for pair in times.windows(2) {
        assert_eq!(pair[1].since(pair[0]), SimDuration::secs(100), "{times:?}");
    }
}

#[test]
fn a_partially_disrupted_small_cluster_stops_evicting() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, WEB);
    c.advance(SimDuration::secs(60));
    for n in ["zone-a", "zone-b", "zone-c"] {
        fault(&mut c, Fault::KillNode(n.into()));
    }
    c.advance(SimDuration::secs(15 * 60));
    for n in ["zone-a", "zone-b", "zone-c"] {
        assert_eq!(node_ready(&c, n), "Unknown");
        assert_eq!(no_execute_since(&c, n), None, "{n} must not be tainted");
        assert!(node_taints(&c, n)
            .iter()
            .any(|t| t.key == UNREACHABLE && t.effect == "NoSchedule"));
    }
    assert_eq!(pods_deleted(&c), 0);
    assert!(log_contains(&c, r#"zone="" newState="PartialDisruption""#));

    // One zone back: 2 of 4 not ready is Normal again; the new limiter starts
    // drained (the never-limiter it replaces had no token), so 10 s, then 10 s more.
    fault(&mut c, Fault::RestartNode("zone-a".into()));
    c.advance(SimDuration::secs(60));
    assert!(log_contains(&c, r#"zone="" newState="Normal""#));
    let b = no_execute_since(&c, "zone-b").unwrap();
    let cc = no_execute_since(&c, "zone-c").unwrap();
    assert_eq!(cc.since(b), SimDuration::secs(10));
}

#[test]
fn all_zones_down_stops_every_eviction_until_a_node_is_ready() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, WEB);
    c.advance(SimDuration::secs(60));
    // zone-a dies first and is tainted.
    fault(&mut c, Fault::KillNode("zone-a".into()));
    c.advance(SimDuration::secs(90));
    assert!(no_execute_since(&c, "zone-a").is_some());
    // Then every other node loses the apiserver.
    for n in ["control-plane", "zone-b", "zone-c"] {
        fault(&mut c, Fault::PartitionNode(n.into()));
    }
    c.advance(SimDuration::secs(90));
    for n in ["control-plane", "zone-a", "zone-b", "zone-c"] {
        assert_eq!(node_ready(&c, n), "Unknown");
        assert_eq!(no_execute_since(&c, n), None, "{n}: taints taken off");
    }
    assert!(log_contains(
        &c,
        r#""Controller detected that all Nodes are not-Ready. Entering master disruption mode" logger="node-lifecycle-controller""#
    ));
    c.advance(SimDuration::secs(15 * 60));
    assert_eq!(pods_deleted(&c), 0, "no eviction at all in the mode");
    for n in ["control-plane", "zone-a", "zone-b", "zone-c"] {
        assert_eq!(no_execute_since(&c, n), None);
    }

    // One node back: the mode ends, but 3 of 4 not ready is PartialDisruption in a
    // small cluster: still no taint.
    fault(&mut c, Fault::HealNode("control-plane".into()));
    c.advance(SimDuration::secs(30));
    assert!(log_contains(
        &c,
        "Controller detected that some Nodes are Ready. Exiting master disruption mode"
    ));
    assert_eq!(no_execute_since(&c, "zone-a"), None);
    // A second one: Normal, and the queue runs again at 0.1/s.
    fault(&mut c, Fault::HealNode("zone-b".into()));
    c.advance(SimDuration::secs(60));
    let a = no_execute_since(&c, "zone-a").unwrap();
    let zc = no_execute_since(&c, "zone-c").unwrap();
    assert_eq!(zc.since(a), SimDuration::secs(10));
    c.advance(SimDuration::secs(320));
    assert!(pods_deleted(&c) > 0, "evictions resume after the mode");
}

#[test]
fn one_fully_disrupted_zone_among_healthy_ones_keeps_the_normal_rate() {
    // Workers in zones a and b; the control-plane node is in zone "".
    let mut c = Cluster::new(1, topology(4, |i| Some(if i < 2 { "a" } else { "b" })));
    c.advance(SimDuration::secs(60));
    fault(&mut c, Fault::KillNode("w00".into()));
    fault(&mut c, Fault::KillNode("w01".into()));
    c.advance(SimDuration::secs(120));
    assert!(log_contains(
        &c,
        r#"zone=":\x00:a" newState="FullDisruption""#
    ));
    let t0 = no_execute_since(&c, "w00").unwrap();
    let t1 = no_execute_since(&c, "w01").unwrap();
    assert_eq!(t1.since(t0), SimDuration::secs(10));
    assert!(!log_contains(&c, "master disruption mode"));
}

#[test]
fn zone_keys_follow_the_topology_labels() {
    use warehouse_sim::controllers::node_lifecycle::{compute_zone_state, ZoneState};
    assert_eq!(compute_zone_state(&[true, false, false]), ZoneState::Normal);
    assert_eq!(
        compute_zone_state(&[true, false, false, false]),
        ZoneState::PartialDisruption
    );
    assert_eq!(
        compute_zone_state(&[true, true, false, false, false]),
        ZoneState::PartialDisruption
    );
    assert_eq!(
        compute_zone_state(&[true, true, true, false, false, false]),
        ZoneState::Normal
    );
    assert_eq!(
        compute_zone_state(&[false, false]),
        ZoneState::FullDisruption
    );
}

#[test]
fn a_node_relabelled_into_another_zone_is_counted_there_at_the_next_pass() {
    let mut c = Cluster::new(1, topology(3, |_| Some("zone-a")));
    c.advance(SimDuration::secs(30));
    assert!(!log_contains(&c, "zone-b"));
    let mut node = c.get(Kind::Node, "", "w00").unwrap();
    node.meta_mut()
        .labels
        .get_or_insert_with(Default::default)
        .insert("topology.kubernetes.io/zone".into(), "zone-b".into());
    c.update(node).unwrap();
    c.advance(SimDuration::secs(10));
    let initialized: Vec<String> = controller_log(&c)
        .into_iter()
        .filter(|l| l.contains("Initializing eviction metric for zone"))
        .collect();
    // The control-plane node's zone (no labels), zone-a, then zone-b.
    assert_eq!(initialized.len(), 3, "{initialized:?}");
    assert!(initialized[2].contains(":\\x00:zone-b"), "{initialized:?}");
    // The node's pass reads it in its new zone: killed, it is the only node of
    // zone-b, a fully disrupted zone among healthy ones, and it is tainted at once.
    fault(&mut c, Fault::KillNode("w00".into()));
    c.advance(SimDuration::secs(120));
    assert!(no_execute_since(&c, "w00").is_some());
    assert!(no_execute_since(&c, "w01").is_none());
}
