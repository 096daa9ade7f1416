//! Recovery after faults: the kubelet reconciles its pods' statuses with the apiserver
//! once it can reach it again (pkg/kubelet/status/status_manager.go), so a partition
//! that ends before eviction leaves no trace in Deployments, DaemonSets or
//! EndpointSlices.

mod common;

use common::*;
use warehouse_sim::{Cluster, Fault, Kind, Object, SimDuration, Topology};

const SERVICE: &str = "apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
";

fn pod_ready(o: &Object) -> bool {
    o.as_pod()
        .and_then(|p| p.status.as_ref())
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

fn ready_endpoints(c: &Cluster) -> usize {
    c.list(Kind::EndpointSlice, Some("default"))
        .iter()
        .filter_map(|o| match o {
            Object::EndpointSlice(s)
                if s.metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get("kubernetes.io/service-name"))
                    == Some(&"web".to_string()) =>
            {
                Some(s)
            }
            _ => None,
        })
        .flat_map(|s| s.endpoints.iter().flatten())
        .filter(|e| e.conditions.as_ref().and_then(|c| c.ready) == Some(true))
        .count()
}

#[test]
fn a_healed_node_posts_its_pods_ready_again() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, WEB);
    create(&mut c, SERVICE);
    c.advance(SimDuration::secs(30));
    assert_eq!(ready_endpoints(&c), 5);
    let on_b: Vec<Object> = c.pods_on_node("zone-b");
    assert!(on_b.iter().any(|p| p.namespace() == "default"));
    c.fault(Fault::PartitionNode("zone-b".into())).unwrap();
    // Past the grace period: the node controller marks the node's pods not ready.
    c.advance(SimDuration::secs(70));
    assert_eq!(node_ready(&c, "zone-b"), "Unknown");
    assert!(c.pods_on_node("zone-b").iter().all(|p| !pod_ready(p)));
    assert!(ready_endpoints(&c) < 5);
    // Healed before the 300 s eviction: the same pods run on.
    c.fault(Fault::HealNode("zone-b".into())).unwrap();
    c.advance(SimDuration::secs(30));
    assert_eq!(node_ready(&c, "zone-b"), "True");
    let now_on_b = c.pods_on_node("zone-b");
    assert_eq!(
        now_on_b.iter().map(|p| p.name()).collect::<Vec<_>>(),
        on_b.iter().map(|p| p.name()).collect::<Vec<_>>()
    );
    for p in &now_on_b {
        assert!(pod_ready(p), "{} is ready again", p.name());
    }
    assert_eq!(ready_endpoints(&c), 5);
    let d = c.get(Kind::Deployment, "default", "web").unwrap();
    let status = d.as_deployment().unwrap().status.clone().unwrap();
    assert_eq!(status.ready_replicas, Some(5));
    assert_eq!(status.available_replicas, Some(5));
    let kube_proxy = c.get(Kind::DaemonSet, "kube-system", "kube-proxy").unwrap();
    let Object::DaemonSet(ds) = kube_proxy else {
        panic!("kube-proxy is a DaemonSet")
    };
    let ds = ds.status.unwrap();
    assert_eq!(ds.number_ready, ds.desired_number_scheduled);
}

/// A pod pinned to zone-b whose container crashes every five seconds.
const CRASHER: &str = "apiVersion: v1
kind: Pod
metadata:
  name: crasher
spec:
  nodeName: zone-b
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'sleep 5; exit 1']
";

fn restarts(c: &Cluster) -> (i32, String) {
    let pod = c.get(Kind::Pod, "default", "crasher").unwrap();
    let status = pod.as_pod().unwrap().status.clone().unwrap();
    let cs = &status.container_statuses.unwrap()[0];
    let state = cs.state.as_ref().unwrap();
    let what = if state.running.is_some() {
        "running"
    } else if state.waiting.is_some() {
        "waiting"
    } else {
        "terminated"
    };
    (cs.restart_count, what.to_string())
}

#[test]
fn what_the_kubelet_saw_during_a_partition_is_posted_when_it_heals() {
    let run = |partition: bool| {
        let mut c = Cluster::new(1, Topology::default());
        create(&mut c, CRASHER);
        c.advance(SimDuration::secs(20));
        if partition {
            c.fault(Fault::PartitionNode("zone-b".into())).unwrap();
        }
        c.advance(SimDuration::secs(40));
        if partition {
            // Nothing reached the apiserver meanwhile.
            assert!(restarts(&c).0 < 3);
            c.fault(Fault::HealNode("zone-b".into())).unwrap();
        }
        c.advance(SimDuration::millis(100));
        restarts(&c)
    };
    let reference = run(false);
    assert!(reference.0 >= 3, "{reference:?}");
    assert_eq!(run(true), reference);
}
