//! Fixtures shared by the integration tests.
#![allow(dead_code)] // each test crate uses its own subset

use warehouse_sim::{decode_manifests, Cluster, Topology};

/// Five nginx replicas requesting 100m CPU and 64Mi each.
pub const WEB: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 5
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        resources:
          requests: {cpu: 100m, memory: 64Mi}
";

/// A container in CrashLoopBackOff, one that counts, and one whose image cannot be
/// pulled: process state, back-offs and pull retries in the runtime.
pub const TROUBLE: &str = "apiVersion: v1
kind: Pod
metadata:
  name: trouble
spec:
  containers:
  - name: crash
    image: busybox
    command: [sh, -c, 'echo up; sleep 3; exit 1']
  - name: count
    image: busybox
    command: [sh, -c, 'i=0; while true; do echo $i; i=$((i+1)); sleep 2; done']
  - name: missing
    image: nginx:0.0.1
";

/// Creates every object of `manifest` as the administrator.
pub fn create(c: &mut Cluster, manifest: &str) {
    for obj in decode_manifests(manifest).unwrap() {
        c.create(obj).unwrap();
    }
}

/// The default cluster (seed 1) with `manifest` created in it.
pub fn cluster_with(manifest: &str) -> Cluster {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, manifest);
    c
}

/// The status of node `name`'s Ready condition ("True", "False", "Unknown").
pub fn node_ready(c: &Cluster, name: &str) -> String {
    let node = c.get(warehouse_sim::Kind::Node, "", name).unwrap();
    warehouse_sim::controllers::node_lifecycle::node_ready_status(node.as_node().unwrap())
        .to_string()
}

/// Node `name`'s taints (empty when it has none).
pub fn node_taints(c: &Cluster, name: &str) -> Vec<k8s_openapi::api::core::v1::Taint> {
    let node = c.get(warehouse_sim::Kind::Node, "", name).unwrap();
    node.as_node()
        .unwrap()
        .spec
        .as_ref()
        .and_then(|s| s.taints.clone())
        .unwrap_or_default()
}
