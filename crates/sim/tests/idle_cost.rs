//! The simulation's cost follows what happens, not how many objects exist: an idle
//! minute of a 100-node cluster costs the same work with 100 pods as with 10,000
//! (kubelet heartbeats and the node monitor; no per-pod polling).

mod common;

use common::{create, web_deployment};
use warehouse_sim::{Cluster, SimDuration, Topology, Work};

const NODES: usize = 100;

fn deployment(replicas: usize) -> String {
    // No resource requests: 10,000 pods fit on 100 nodes of 110 pods each.
    web_deployment(replicas, "{app: web}", "", "")
}

/// The work done in one idle minute after `replicas` pods have converged.
fn idle_minute(replicas: usize) -> Work {
    let mut c = Cluster::new(7, Topology::with_workers(NODES));
    create(&mut c, &deployment(replicas));
    // Converge, and let one-off timers (the rollout's progress-deadline check) pass;
    // stay well before events expire (1 h), which is work proportional to events.
    c.advance(SimDuration::secs(1500));
    let running = c
        .list(warehouse_sim::Kind::Pod, Some("default"))
        .iter()
        .filter(|p| warehouse_sim::views::podstatus::status(p.as_pod().unwrap()) == "Running")
        .count();
    assert_eq!(running, replicas, "the deployment converged first");
    let before = c.work();
    c.advance(SimDuration::secs(60));
    let after = c.work();
    Work {
        timers_fired: after.timers_fired - before.timers_fired,
        keys_enqueued: after.keys_enqueued - before.keys_enqueued,
        writes: after.writes - before.writes,
    }
}

#[test]
fn an_idle_minute_costs_the_same_with_100_and_10000_pods() {
    let small = idle_minute(100);
    let large = idle_minute(10_000);
    // Something does happen: every kubelet renews its Lease every 10 s.
    assert!(small.writes >= (NODES as u64 + 1) * 6, "{small:?}");
    assert_eq!(small, large, "idle work must not grow with the pod count");
}
