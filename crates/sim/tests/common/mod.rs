//! Fixtures shared by the integration tests.
#![allow(dead_code)] // each test crate uses its own subset

use std::fmt::Display;

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

/// YAML lines of an nginx container requesting 100m CPU and 64Mi, as in [`WEB`].
pub const REQUESTS: &str = "        resources:\n          requests: {cpu: 100m, memory: 64Mi}\n";

/// A Deployment `name` of `replicas` pods selected by `{app: <name>}` and labelled
/// `labels`; `spec_extra` is YAML added to its spec (indented two spaces) and
/// `pod_spec` the pod template's spec (indented six).
pub fn deployment_of(
    name: &str,
    replicas: impl Display,
    spec_extra: &str,
    labels: &str,
    pod_spec: &str,
) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: {replicas}
{spec_extra}  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {labels}
    spec:
{pod_spec}"
    )
}

/// A DaemonSet `name` of pods selected and labelled by `{app: <name>}`; `pod_spec` is
/// the pod template's spec (indented six spaces).
pub fn daemon_set_of(name: &str, pod_spec: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {name}
spec:
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
{pod_spec}"
    )
}

/// A Deployment `web` of `replicas` nginx:1.27 pods labelled `labels`; `pod_extra`
/// and `container_extra` are YAML lines added to the pod spec and to the container.
pub fn web_deployment(
    replicas: usize,
    labels: &str,
    pod_extra: &str,
    container_extra: &str,
) -> String {
    let pod_spec = format!(
        "{pod_extra}      containers:\n      - name: nginx\n        image: nginx:1.27\n{container_extra}"
    );
    deployment_of("web", replicas, "", labels, &pod_spec)
}

/// [`web_deployment`] of pods serving `http` on port 80 (30 s grace period), and a
/// Service `web` selecting `labels`, with `service_extra` YAML lines in its spec.
pub fn web_with_service(replicas: usize, labels: &str, service_extra: &str) -> String {
    let deployment = web_deployment(
        replicas,
        labels,
        "      terminationGracePeriodSeconds: 30\n",
        "        ports:\n        - {name: http, containerPort: 80}\n",
    );
    format!(
        "{deployment}---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
{service_extra}  selector: {labels}
  ports:
  - {{name: http, port: 80, targetPort: http}}
"
    )
}

/// A DaemonSet `agent` of nginx:1.27 pods, with `pod_extra` YAML lines in the pod
/// spec.
pub fn agent_daemon_set(pod_extra: &str) -> String {
    daemon_set_of(
        "agent",
        &format!("{pod_extra}      containers:\n      - name: agent\n        image: nginx:1.27\n"),
    )
}

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

/// The lines the current instance of pod `name`'s (default namespace) first
/// container has logged.
pub fn log_lines(c: &warehouse_sim::Cluster, name: &str) -> Vec<String> {
    c.container_log("default", name, None, false)
        .unwrap()
        .into_iter()
        .map(|(_, line)| line)
        .collect()
}

/// The node pod `namespace/name` is bound to, if it exists and is bound.
pub fn pod_node(c: &Cluster, namespace: &str, name: &str) -> Option<String> {
    c.get(warehouse_sim::Kind::Pod, namespace, name)
        .ok()?
        .as_pod()?
        .spec
        .as_ref()?
        .node_name
        .clone()
}
