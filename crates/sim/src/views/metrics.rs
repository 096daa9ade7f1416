//! The resource metrics pipeline: kubelets' usage figures, the metrics-server add-on
//! and the `metrics.k8s.io` API that `kubectl top` reads.
//!
//! Mirrors metrics-server (github.com/kubernetes-sigs/metrics-server): it scrapes every
//! kubelet's resource endpoint every `--metric-resolution` (15 s), keeps the latest
//! two samples, and serves a container's CPU as the rate between them, so a pod has
//! metrics only once two scrapes have seen it; nodes report their whole cgroup. Its
//! `v1beta1.metrics.k8s.io` APIService makes the group discoverable as soon as it is
//! created; the aggregator answers `ServiceUnavailable` while no metrics-server pod is
//! ready.
//!
//! Simplified:
//! - Nothing is scraped on a timer: a query computes what the latest scrape (the last
//!   multiple of 15 s since the metrics-server container started) saw, from the
//!   runtime's deterministic usage model (`runtime::cpu_millis`, `runtime::memory_bytes`),
//!   so an idle cluster costs nothing.
//! - A node's usage is its containers' usage plus a fixed overhead for the kubelet,
//!   the container runtime and the OS ([`NODE_OVERHEAD_CPU_MILLI`],
//!   [`NODE_OVERHEAD_MEMORY`]); containers do not compete for CPU.
//! - The add-on is the Deployment, Service and ServiceAccount of metrics-server's
//!   `components.yaml`; its RBAC objects and the APIService object are not stored (the
//!   Service stands for the APIService) and access to the metrics API is not
//!   authorized separately.

use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::error::{ApiError, StatusReason};
use crate::kubelet::runtime;
use crate::object::{Kind, Object, ObjectKey};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Pod, Service, ServiceAccount};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// metrics-server's `--metric-resolution`.
pub const METRIC_RESOLUTION_MS: u64 = 15_000;
/// What a node's kubelet, container runtime and OS use besides the pods.
pub const NODE_OVERHEAD_CPU_MILLI: u64 = 50;
pub const NODE_OVERHEAD_MEMORY: u64 = 400 * 1024 * 1024;

const NAMESPACE: &str = "kube-system";
const NAME: &str = "metrics-server";
pub const METRICS_SERVER_IMAGE: &str = "registry.k8s.io/metrics-server/metrics-server:v0.7.2";

/// One container's usage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContainerUsage {
    pub name: String,
    pub cpu_milli: u64,
    pub memory_bytes: u64,
}

/// A `PodMetrics` object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodMetrics {
    pub namespace: String,
    pub name: String,
    /// The scrape the figures come from (simulated ms).
    pub timestamp_ms: u64,
    pub containers: Vec<ContainerUsage>,
}

impl PodMetrics {
    pub fn cpu_milli(&self) -> u64 {
        self.containers.iter().map(|c| c.cpu_milli).sum()
    }
    pub fn memory_bytes(&self) -> u64 {
        self.containers.iter().map(|c| c.memory_bytes).sum()
    }
}

/// A `NodeMetrics` object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeMetrics {
    pub name: String,
    pub timestamp_ms: u64,
    pub cpu_milli: u64,
    pub memory_bytes: u64,
}

/// The metrics-server add-on's manifests (from its release `components.yaml`).
pub(crate) const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: metrics-server
  namespace: kube-system
  labels:
    k8s-app: metrics-server
spec:
  selector:
    matchLabels:
      k8s-app: metrics-server
  strategy:
    rollingUpdate:
      maxUnavailable: 0
  template:
    metadata:
      labels:
        k8s-app: metrics-server
    spec:
      containers:
      - name: metrics-server
        image: registry.k8s.io/metrics-server/metrics-server:v0.7.2
        args:
        - --cert-dir=/tmp
        - --secure-port=10250
        - --kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname
        - --kubelet-use-node-status-port
        - --metric-resolution=15s
        ports:
        - containerPort: 10250
          name: https
          protocol: TCP
        livenessProbe:
          failureThreshold: 3
          httpGet:
            path: /livez
            port: https
            scheme: HTTPS
          periodSeconds: 10
        readinessProbe:
          failureThreshold: 3
          httpGet:
            path: /readyz
            port: https
            scheme: HTTPS
          initialDelaySeconds: 20
          periodSeconds: 10
        resources:
          requests:
            cpu: 100m
            memory: 200Mi
        volumeMounts:
        - mountPath: /tmp
          name: tmp-dir
      nodeSelector:
        kubernetes.io/os: linux
      priorityClassName: system-cluster-critical
      serviceAccountName: metrics-server
      volumes:
      - emptyDir: {}
        name: tmp-dir
";

pub(crate) const SERVICE: &str = "apiVersion: v1
kind: Service
metadata:
  name: metrics-server
  namespace: kube-system
  labels:
    k8s-app: metrics-server
spec:
  ports:
  - name: https
    port: 443
    protocol: TCP
    targetPort: https
  selector:
    k8s-app: metrics-server
";

fn is_ready(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_none()
        && pod
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

fn unavailable(resource: &str) -> ApiError {
    ApiError::new(
        StatusReason::ServiceUnavailable,
        format!(
            "the server is currently unable to handle the request (get {resource}.metrics.k8s.io)"
        ),
    )
}

impl Cluster {
    /// `sim addon enable metrics-server`: creates the add-on's objects as an admin
    /// would with `kubectl apply -f components.yaml`.
    pub fn enable_metrics_server(&mut self) -> Result<String, ApiError> {
        if self.metrics_api_registered() {
            return Ok("metrics-server is already enabled".into());
        }
        let sa = ServiceAccount {
            metadata: ObjectMeta {
                name: Some(NAME.into()),
                namespace: Some(NAMESPACE.into()),
                labels: Some([("k8s-app".to_string(), NAME.to_string())].into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let d: Deployment =
            crate::object::from_manifest(DEPLOYMENT).expect("the metrics-server manifest parses");
        let s: Service =
            crate::object::from_manifest(SERVICE).expect("the metrics-server Service parses");
        // Check the apiserver answers before writing anything.
        self.check_storage()?;
        let _ = self.create_as(Actor::admin(), Object::ServiceAccount(Box::new(sa)));
        self.create_as(Actor::admin(), Object::Deployment(Box::new(d)))?;
        self.create_as(Actor::admin(), Object::Service(Box::new(s)))?;
        Ok(
            "serviceaccount/metrics-server created\ndeployment.apps/metrics-server created\nservice/metrics-server created"
                .into(),
        )
    }

    /// `sim addon disable metrics-server`: deletes the add-on's objects.
    pub fn disable_metrics_server(&mut self) -> Result<String, ApiError> {
        if !self.metrics_api_registered() {
            return Ok("metrics-server is not enabled".into());
        }
        self.check_storage()?;
        let mut out = Vec::new();
        for (kind, word) in [
            (Kind::Service, "service"),
            (Kind::Deployment, "deployment.apps"),
            (Kind::ServiceAccount, "serviceaccount"),
        ] {
            let key = ObjectKey::new(kind, NAMESPACE, NAME);
            if self.delete_as(Actor::admin(), &key, None).is_ok() {
                out.push(format!("{word} \"{NAME}\" deleted"));
            }
        }
        Ok(out.join("\n"))
    }

    /// Whether the `metrics.k8s.io` group is registered (its APIService exists; the
    /// add-on's Service stands for it).
    pub fn metrics_api_registered(&self) -> bool {
        matches!(
            self.store
                .get(&ObjectKey::new(Kind::Service, NAMESPACE, NAME)),
            Some(Object::Service(_))
        )
    }

    /// The latest scrape: the last multiple of the resolution since the oldest ready
    /// metrics-server container started; `None` while no metrics-server pod is ready.
    fn latest_scrape_ms(&self) -> Option<u64> {
        let mut started: Option<u64> = None;
        for obj in self.store.list(Kind::Pod, Some(NAMESPACE)) {
            let Object::Pod(pod) = obj else { continue };
            let ours = pod
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("k8s-app"))
                .is_some_and(|v| v == NAME);
            if !ours || !is_ready(pod) {
                continue;
            }
            let Some(node) = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()) else {
                continue;
            };
            let key = ObjectKey::new(
                Kind::Pod,
                NAMESPACE,
                pod.metadata.name.as_deref().unwrap_or(""),
            );
            let run = self
                .kubelets
                .get(node)
                .filter(|k| k.running)
                .and_then(|k| k.containers.get(&key))
                .and_then(|p| p.containers.get(NAME))
                .filter(|r| r.finished_ms.is_none());
            if let Some(run) = run {
                let s = run.process.started_ms;
                started = Some(started.map_or(s, |x: u64| x.min(s)));
            }
        }
        let started = started?;
        let n = self.now.0.saturating_sub(started) / METRIC_RESOLUTION_MS;
        Some(started + n * METRIC_RESOLUTION_MS)
    }

    /// The aggregator proxies to metrics-server, which serves from memory: etcd is not
    /// involved (a stopped apiserver is the caller's connection error).
    fn metrics_scrape(&self, resource: &str) -> Result<u64, ApiError> {
        self.latest_scrape_ms().ok_or_else(|| unavailable(resource))
    }

    /// One pod's containers as the scrape at `at` saw them; `None` when two scrapes
    /// have not seen all of its running containers yet.
    fn pod_usage(&self, pod: &Pod, at: u64) -> Option<PodMetrics> {
        let namespace = pod.metadata.namespace.clone().unwrap_or_default();
        let name = pod.metadata.name.clone().unwrap_or_default();
        let node = pod.spec.as_ref()?.node_name.as_deref()?;
        let kubelet = self.kubelets.get(node).filter(|k| k.running)?;
        if crate::runtime::control_plane::is_mirror_pod(pod) {
            let containers = self.static_pod_usage(pod, at);
            return (!containers.is_empty()).then_some(PodMetrics {
                namespace,
                name,
                timestamp_ms: at,
                containers,
            });
        }
        let runtime = kubelet
            .containers
            .get(&ObjectKey::new(Kind::Pod, &namespace, &name))?;
        let mut containers = Vec::new();
        for (cname, run) in &runtime.containers {
            let started = run.process.started_ms;
            if started > at || run.finished_ms.is_some_and(|f| f <= at) {
                continue;
            }
            if at - started < METRIC_RESOLUTION_MS {
                // Seen by one scrape only: no rate yet, so the pod is left out.
                return None;
            }
            let window = at - METRIC_RESOLUTION_MS;
            let served = run.served.between(window, at);
            containers.push(ContainerUsage {
                name: cname.clone(),
                cpu_milli: runtime::cpu_millis_serving(
                    &run.process,
                    at - started,
                    served,
                    METRIC_RESOLUTION_MS,
                ),
                memory_bytes: runtime::memory_bytes(&run.process, at - started),
            });
        }
        if containers.is_empty() {
            return None;
        }
        Some(PodMetrics {
            namespace,
            name,
            timestamp_ms: at,
            containers,
        })
    }

    /// A control-plane static pod's container: what its component uses while it runs
    /// (these processes are modelled by `control_plane.rs`, not by the runtime).
    fn static_pod_usage(&self, pod: &Pod, at: u64) -> Vec<ContainerUsage> {
        let Some(spec) = pod.spec.as_ref() else {
            return Vec::new();
        };
        spec.containers
            .iter()
            .filter(|c| {
                crate::runtime::control_plane::ControlPlaneComponent::parse(&c.name)
                    .is_some_and(|comp| self.component_running(comp))
            })
            .filter_map(|c| {
                let p =
                    crate::kubelet::containers::process_for(self, pod, c, crate::time::SimTime(0))
                        .ok()?;
                Some(ContainerUsage {
                    name: c.name.clone(),
                    cpu_milli: runtime::cpu_millis(&p, at),
                    memory_bytes: runtime::memory_bytes(&p, at),
                })
            })
            .collect()
    }

    /// `GET /apis/metrics.k8s.io/v1beta1/[namespaces/NS/]pods`: pods in one namespace
    /// (or all), sorted by namespace and name.
    pub fn pod_metrics(&self, namespace: Option<&str>) -> Result<Vec<PodMetrics>, ApiError> {
        let at = self.metrics_scrape("pods")?;
        Ok(self
            .store
            .list(Kind::Pod, namespace)
            .filter_map(|o| match o {
                Object::Pod(p) => self.pod_usage(p, at),
                _ => None,
            })
            .collect())
    }

    /// `GET /apis/metrics.k8s.io/v1beta1/namespaces/NS/pods/NAME`.
    pub fn pod_metrics_one(&self, namespace: &str, name: &str) -> Result<PodMetrics, ApiError> {
        let at = self.metrics_scrape("pods")?;
        let not_found = || {
            ApiError::new(
                StatusReason::NotFound,
                format!("podmetrics.metrics.k8s.io \"{namespace}/{name}\" not found"),
            )
        };
        match self.store.get(&ObjectKey::new(Kind::Pod, namespace, name)) {
            Some(Object::Pod(p)) => self.pod_usage(p, at).ok_or_else(not_found),
            _ => Err(not_found()),
        }
    }

    /// `GET /apis/metrics.k8s.io/v1beta1/nodes`: every node whose kubelet answered the
    /// latest scrape, sorted by name.
    pub fn node_metrics(&self) -> Result<Vec<NodeMetrics>, ApiError> {
        let at = self.metrics_scrape("nodes")?;
        let mut out = Vec::new();
        for obj in self.store.list(Kind::Node, None) {
            let name = obj.name().to_string();
            let Some(kubelet) = self.kubelets.get(&name).filter(|k| k.running) else {
                continue;
            };
            let mut cpu = NODE_OVERHEAD_CPU_MILLI;
            let mut memory = NODE_OVERHEAD_MEMORY;
            for comp in crate::runtime::control_plane::ControlPlaneComponent::ALL {
                let key = ObjectKey::new(Kind::Pod, NAMESPACE, &format!("{}-{name}", comp.name()));
                if let Some(Object::Pod(p)) = self.store.get(&key) {
                    for u in self.static_pod_usage(p, at) {
                        cpu += u.cpu_milli;
                        memory += u.memory_bytes;
                    }
                }
            }
            for pod in kubelet.containers.values() {
                for run in pod.containers.values() {
                    let started = run.process.started_ms;
                    if started > at || run.finished_ms.is_some_and(|f| f <= at) {
                        continue;
                    }
                    cpu += runtime::cpu_millis(&run.process, at - started);
                    memory += runtime::memory_bytes(&run.process, at - started);
                }
            }
            out.push(NodeMetrics {
                name,
                timestamp_ms: at,
                cpu_milli: cpu,
                memory_bytes: memory,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::Topology;
    use crate::time::SimDuration;

    fn pod(yaml: &str) -> Object {
        Object::Pod(serde_yaml::from_str(yaml).unwrap())
    }

    #[test]
    fn metrics_api_is_missing_until_the_addon_is_enabled_and_ready() {
        let mut c = Cluster::new(1, Topology::default());
        c.advance(SimDuration::secs(30));
        assert!(!c.metrics_api_registered());
        c.enable_metrics_server().unwrap();
        assert!(c.metrics_api_registered());
        // Registered but no pod ready yet: the aggregator cannot reach it.
        let e = c.node_metrics().unwrap_err();
        assert_eq!(e.reason, StatusReason::ServiceUnavailable);
        assert_eq!(
            e.message,
            "the server is currently unable to handle the request (get nodes.metrics.k8s.io)"
        );
        c.advance(SimDuration::secs(90));
        let nodes = c.node_metrics().unwrap();
        assert_eq!(nodes.len(), c.store.list(Kind::Node, None).count());
        assert!(nodes.iter().all(|n| n.cpu_milli >= NODE_OVERHEAD_CPU_MILLI));
        // The control-plane node runs the apiserver, etcd, ...: the busiest.
        assert!(nodes[0].memory_bytes > nodes[1].memory_bytes, "{nodes:?}");
    }

    #[test]
    fn a_cpu_limit_throttles_and_a_new_pod_waits_for_two_scrapes() {
        let mut c = Cluster::new(1, Topology::default());
        c.enable_metrics_server().unwrap();
        c.advance(SimDuration::secs(120));
        c.create_as(
            Actor::admin(),
            pod("metadata: {name: cpu-demo, namespace: default}
spec:
  containers:
  - name: cpu-demo-ctr
    image: vish/stress
    resources: {limits: {cpu: '1'}, requests: {cpu: 500m}}
    args: [-cpus, '2']"),
        )
        .unwrap();
        c.advance(SimDuration::secs(5));
        let e = c.pod_metrics_one("default", "cpu-demo").unwrap_err();
        assert_eq!(
            e.message,
            "podmetrics.metrics.k8s.io \"default/cpu-demo\" not found"
        );
        c.advance(SimDuration::secs(60));
        let m = c.pod_metrics_one("default", "cpu-demo").unwrap();
        assert_eq!(
            m.cpu_milli(),
            1000,
            "two spinning workers throttled to the 1-CPU limit"
        );
        assert!(c.pod_metrics(Some("default")).unwrap().len() == 1);
    }
}
