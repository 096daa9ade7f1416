//! The zone supervisors (kubelets) and the robot activator (container runtime).
//!
//! A kubelet renews its node's Lease every 10 s, and syncs the pods bound to its node:
//! sandbox and IP, image pulls (serialised, sized by the image catalogue), container
//! start, status; on deletion it stops the containers and confirms the deletion.
//! A killed node's kubelet does nothing at all, so its pods' status freezes as the
//! control plane last saw it.

use crate::apiserver::Actor;
use crate::cluster::{Cluster, NodeSpec};
use crate::controllers::set_pod_condition;
use crate::error::SimError;
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::{CollectMap, CollectSet, StableSort};
use crate::time::SimDuration;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::api::core::v1::ContainerImage;
use k8s_openapi::api::core::v1::{
    ContainerState, ContainerStateWaiting, ContainerStatus, Node, NodeAddress, NodeCondition,
    NodeSpec as CoreNodeSpec, NodeStatus, NodeSystemInfo, Pod, PodCondition, PodIP, PodSpec, Taint,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta, Time};
use std::collections::{BTreeMap, BTreeSet};

pub mod active_deadline;
pub mod containers;
pub mod disk;
pub mod env;
pub mod ephemeral;
pub mod exec;
pub mod image_pulls;
pub mod images;
pub mod lifecycle;
pub mod probes;
pub mod runtime;
pub mod shell;
pub mod status;
pub mod volumes;

/// `--node-status-update-frequency` / Lease renew interval.
pub const LEASE_RENEW_INTERVAL: SimDuration = SimDuration::secs(10);
/// Lease duration the kubelet writes (`nodeLeaseDurationSeconds`).
pub const LEASE_DURATION_SECONDS: i32 = 40;
/// Time to set up a pod sandbox (network namespace, pause container).
pub const SANDBOX_MS: u64 = 400;

/// The most nodes a cluster holds: Kubernetes' scalability envelope (5,000 nodes),
/// one /24 pod range each.
pub const MAX_NODES: usize = 5000;

/// Nodes whose pod ranges lie in 10.244.0.0/14; larger clusters continue in
/// 100.64.0.0/10 (see [`pod_subnet`]).
pub const NODES_IN_FIRST_POD_RANGE: u32 = 1024;

/// The first three octets of node `index`'s /24 pod range. The first 256 nodes get
/// 10.244.0.0/16 (kubeadm's usual `--pod-network-cidr`), the next ones continue
/// into 10.245–10.247, and past 1,024 nodes the ranges come from 100.64.0.0/10 (a
/// simplification: a real cluster of that size is given one large cluster CIDR).
pub fn pod_subnet(index: u32) -> String {
    if index < NODES_IN_FIRST_POD_RANGE {
        format!("10.{}.{}", 244 + index / 256, index % 256)
    } else {
        let i = index - NODES_IN_FIRST_POD_RANGE;
        format!("100.{}.{}", 64 + i / 256, i % 256)
    }
}

/// Node `index`'s InternalIP: 172.18.0.2 for the first, counting up through
/// 172.18.0.0/16.
pub fn node_address(index: u32) -> String {
    let host = index + 2;
    format!("172.18.{}.{}", host / 256, host % 256)
}

/// The image digest containerd reports for `image` (`imageID`), stable per image.
pub(crate) fn image_id(image: &str) -> String {
    let repo = images::repository(image);
    // containerd names the image with its registry: Docker Hub's `user/app` is
    // `docker.io/user/app`, its official `nginx` is `docker.io/library/nginx`.
    let first = repo.split('/').next().unwrap_or("");
    let has_host =
        repo.contains('/') && (first.contains('.') || first.contains(':') || first == "localhost");
    let image_ref = if has_host {
        repo.to_string()
    } else if repo.contains('/') {
        format!("docker.io/{repo}")
    } else {
        format!("docker.io/library/{repo}")
    };
    format!(
        "{image_ref}@sha256:{:064x}",
        crate::names::fnv32a(image.as_bytes()) as u128 * 0x9e37_79b9_7f4a_7c15
    )
}

/// What the runtime on one node is doing with one pod.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RuntimePod {
    Starting { uid: String },
    Running { uid: String },
    Stopping { uid: String },
}

impl RuntimePod {
    pub(crate) fn uid(&self) -> &str {
        match self {
            RuntimePod::Starting { uid }
            | RuntimePod::Running { uid }
            | RuntimePod::Stopping { uid } => uid,
        }
    }
}

#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct KubeletState {
    /// False while the node is powered off.
    pub running: bool,
    /// True while the node is cut off from the control plane (`sim node partition`):
    /// its containers run on, but the kubelet can neither watch nor write.
    #[serde(default)]
    pub partitioned: bool,
    /// Images on this node's disk (they survive a reboot). Images are only added:
    /// image garbage collection is not simulated.
    pub images: BTreeSet<String>,
    #[serde(with = "crate::snapshot::pairs")]
    pub pods: BTreeMap<ObjectKey, RuntimePod>,
    pub containers_started: u64,
    /// `Pulled` event messages to record when a starting pod's pulls finish.
    #[serde(with = "crate::snapshot::pairs")]
    pub pulled_events: BTreeMap<ObjectKey, Vec<String>>,
    /// The status manager's cache (upstream `podStatuses`, `kubelet_status.rs`): the
    /// status this kubelet last set for each pod it runs.
    #[serde(default, with = "crate::snapshot::pairs")]
    pub(crate) statuses: BTreeMap<ObjectKey, crate::kubelet::status::CachedStatus>,
    /// Cached pods whose status the apiserver may not have: a post failed, or the
    /// apiserver's copy was seen to differ. The next status sync posts them.
    #[serde(default)]
    pub(crate) unsynced: BTreeSet<ObjectKey>,
    /// The runtime's containers and their processes, per pod (`kubelet_containers.rs`).
    #[serde(with = "crate::snapshot::pairs")]
    pub containers: BTreeMap<ObjectKey, crate::kubelet::containers::PodRuntime>,
    /// The active deadline armed for each pod (its uid and the moment), so a sync
    /// arms a `KubeletTimer::ActiveDeadline` only when the deadline moved
    /// (`active_deadline.rs`).
    #[serde(default, with = "crate::snapshot::pairs")]
    pub(crate) deadlines: BTreeMap<ObjectKey, (String, crate::time::SimTime)>,
    /// The files the node's data volumes hold, by host path (`disk.rs`): they
    /// survive a reboot.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) disk: BTreeMap<String, String>,
    /// The image list last worked out for the Node's status, and how many images were
    /// on disk then: images are only ever added, so the same count is the same set.
    /// Rebuilt only when an image arrives.
    #[serde(skip)]
    image_list: Option<(usize, Option<Vec<ContainerImage>>)>,
    /// The Node's resourceVersion when its `status.images` was last seen equal to
    /// `image_list`, with that list's image count: a heartbeat that finds both
    /// unchanged compares nothing.
    #[serde(skip)]
    images_posted: Option<(usize, String)>,
}

impl KubeletState {
    /// As a snapshot restores it: the node's image list is worked out again.
    pub(crate) fn copy_as_restored(&self) -> KubeletState {
        KubeletState {
            running: self.running,
            partitioned: self.partitioned,
            images: self.images.clone(),
            pods: self.pods.clone(),
            containers_started: self.containers_started,
            pulled_events: self.pulled_events.clone(),
            statuses: self.statuses.clone(),
            unsynced: self.unsynced.clone(),
            containers: self.containers.clone(),
            deadlines: self.deadlines.clone(),
            disk: self.disk.clone(),
            image_list: None,
            images_posted: None,
        }
    }
}

/// `Node.status.images` for the images on a node's disk: largest first, at most 50
/// (`--node-status-max-images`); `None` for none.
fn image_list(on_disk: &BTreeSet<String>) -> Option<Vec<ContainerImage>> {
    let mut images: Vec<ContainerImage> = on_disk
        .iter()
        .map(|i| ContainerImage {
            names: Some(vec![crate::scheduler::plugins::canonical_image(i)]),
            size_bytes: Some(images::size(i) as i64),
        })
        .collect();
    images.stable_sort_by(|a, b| b.size_bytes.cmp(&a.size_bytes).then(a.names.cmp(&b.names)));
    images.dedup_by(|a, b| a.names == b.names);
    images.truncate(50);
    (!images.is_empty()).then_some(images)
}

fn quantity(s: impl Into<String>) -> Quantity {
    Quantity(s.into())
}

fn node_conditions(
    status: &str,
    now: &k8s_openapi::apimachinery::pkg::apis::meta::v1::Time,
) -> Vec<NodeCondition> {
    let ok = status == "True";
    let mk = |t: &str, s: &str, reason: &str, message: &str| NodeCondition {
        type_: t.into(),
        status: s.into(),
        reason: Some(reason.into()),
        message: Some(message.into()),
        last_heartbeat_time: Some(now.clone()),
        last_transition_time: Some(now.clone()),
    };
    let _ = ok;
    vec![
        mk(
            "MemoryPressure",
            "False",
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
        ),
        mk(
            "DiskPressure",
            "False",
            "KubeletHasNoDiskPressure",
            "kubelet has no disk pressure",
        ),
        mk(
            "PIDPressure",
            "False",
            "KubeletHasSufficientPID",
            "kubelet has sufficient PID available",
        ),
        mk(
            "Ready",
            status,
            "KubeletReady",
            "kubelet is posting ready status",
        ),
    ]
}

impl Cluster {
    /// Each kubelet watches the pods bound to its node (a `spec.nodeName` field
    /// selector): a pod event reaches the running kubelet it names.
    pub(crate) fn kubelets_watch(&mut self, ev: &crate::store::WatchEvent) {
        // The ConfigMap and Secret managers: a changed object reaches the volumes
        // that show it at their pods' next sync.
        if matches!(&*ev.object, Object::ConfigMap(_) | Object::Secret(_)) {
            let (kind, ns, name) = (ev.object.kind(), ev.object.namespace(), ev.object.name());
            let (ns, name) = (ns.to_string(), name.to_string());
            self.kubelet_volume_source_changed(kind, &ns, &name);
            return;
        }
        let Object::Pod(pod) = &*ev.object else {
            return;
        };
        let Some(node) = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()) else {
            return;
        };
        if ev.event_type == crate::store::EventType::Deleted {
            // The pod is gone for good: so are its emptyDir volumes.
            let uid = pod.metadata.uid.clone().unwrap_or_default();
            self.remove_empty_dirs(node, &uid);
        }
        if self.kubelets.get(node).is_some_and(|k| k.running) {
            let component = crate::cluster::Component::Kubelet(node.to_string());
            self.enqueue(component, ev.object.key());
        }
    }

    /// Registers a node as its kubelet does at start-up: the Node object, its Lease,
    /// and the heartbeat timer.
    pub(crate) fn register_node(&mut self, spec: &NodeSpec) {
        let index = self.node_cidrs.get(&spec.name).copied().unwrap_or(0);
        let mut labels: BTreeMap<String, String> = [
            ("beta.kubernetes.io/arch", "amd64"),
            ("beta.kubernetes.io/os", "linux"),
            ("kubernetes.io/arch", "amd64"),
            ("kubernetes.io/os", "linux"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect_map();
        labels.insert("kubernetes.io/hostname".into(), spec.name.clone());
        let mut taints = Vec::new();
        if spec.control_plane {
            labels.insert(
                "node-role.kubernetes.io/control-plane".into(),
                String::new(),
            );
            taints.push(Taint {
                key: "node-role.kubernetes.io/control-plane".into(),
                effect: "NoSchedule".into(),
                ..Default::default()
            });
        }
        labels.extend(spec.labels.clone());
        for (key, value, effect) in &spec.taints {
            taints.push(Taint {
                key: key.clone(),
                value: (!value.is_empty()).then(|| value.clone()),
                effect: effect.clone(),
                ..Default::default()
            });
        }
        let now = self.now.to_k8s();
        let mut resources: BTreeMap<String, Quantity> = [
            ("cpu", format!("{}", spec.cpu_milli as f64 / 1000.0)),
            ("memory", format!("{}Ki", spec.memory_bytes / 1024)),
            ("pods", spec.max_pods.to_string()),
            ("ephemeral-storage", "102625208Ki".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), quantity(v)))
        .collect_map();
        if spec.gpus > 0 {
            // What the NVIDIA device plugin advertises once registered.
            resources.insert("nvidia.com/gpu".into(), quantity(spec.gpus.to_string()));
        }
        let node = Node {
            metadata: ObjectMeta {
                name: Some(spec.name.clone()),
                labels: Some(labels),
                annotations: Some(
                    [("node.alpha.kubernetes.io/ttl".to_string(), "0".to_string())]
                        .into_iter()
                        .collect_map(),
                ),
                ..Default::default()
            },
            spec: Some(CoreNodeSpec {
                pod_cidr: Some(format!("{}.0/24", pod_subnet(index))),
                pod_cidrs: Some(vec![format!("{}.0/24", pod_subnet(index))]),
                taints: (!taints.is_empty()).then_some(taints),
                ..Default::default()
            }),
            status: Some(NodeStatus {
                capacity: Some(resources.clone()),
                allocatable: Some(resources),
                conditions: Some(node_conditions("True", &now)),
                addresses: Some(vec![
                    NodeAddress {
                        type_: "InternalIP".into(),
                        address: node_address(index),
                    },
                    NodeAddress {
                        type_: "Hostname".into(),
                        address: spec.name.clone(),
                    },
                ]),
                node_info: Some(NodeSystemInfo {
                    architecture: "amd64".into(),
                    boot_id: self.rng.uid(),
                    container_runtime_version: "containerd://2.1.4".into(),
                    kernel_version: "6.8.0-warehouse".into(),
                    kube_proxy_version: String::new(),
                    kubelet_version: crate::KUBERNETES_VERSION.into(),
                    machine_id: self.rng.uid().replace('-', ""),
                    operating_system: "linux".into(),
                    os_image: "Debian GNU/Linux 12 (bookworm)".into(),
                    system_uuid: self.rng.uid(),
                    swap: None,
                    running_in_user_namespace: None,
                }),
                ..Default::default()
            }),
        };
        let actor = Actor::Kubelet(spec.name.clone());
        let _ = self.create_as(actor.clone(), Object::Node(Box::new(node)));
        let lease = Lease {
            metadata: ObjectMeta {
                name: Some(spec.name.clone()),
                namespace: Some("kube-node-lease".into()),
                ..Default::default()
            },
            spec: Some(LeaseSpec {
                holder_identity: Some(spec.name.clone()),
                lease_duration_seconds: Some(LEASE_DURATION_SECONDS),
                renew_time: Some(MicroTime(now.0)),
                ..Default::default()
            }),
        };
        let _ = self.create_as(actor, Object::Lease(Box::new(lease)));
        self.kubelets.insert(
            spec.name.clone(),
            KubeletState {
                running: true,
                ..Default::default()
            },
        );
        self.schedule(
            self.now + LEASE_RENEW_INTERVAL,
            KubeletTimer::LeaseRenew(spec.name.clone()),
        );
        // Pods the kubelet runs from the start: the control plane's static pods
        // (kubeadm's manifests). kube-proxy comes from its DaemonSet.
        if spec.control_plane {
            self.host_control_plane(&spec.name);
        }
    }

    /// The pods whose containers the runtime on `node` has (starting, running or
    /// stopping), whatever the apiserver says: empty for a powered-off node.
    pub fn runtime_pods(&self, node: &str) -> Vec<ObjectKey> {
        self.kubelets
            .get(node)
            .map(|k| k.pods.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Joins a new node to the cluster, as `kubeadm join` and its kubelet's
    /// registration do: a Node, its Lease, a pod CIDR, and a running kubelet.
    pub fn add_node(&mut self, spec: NodeSpec) -> Result<String, SimError> {
        if !crate::apiserver::is_dns1123_subdomain(&spec.name) {
            return Err(SimError(format!(
                "invalid node name \"{}\": a lowercase RFC 1123 subdomain is required",
                spec.name
            )));
        }
        crate::apiserver::check_node_registration(&spec.name, &spec.labels, &spec.taints)
            .map_err(SimError)?;
        if self.kubelets.contains_key(&spec.name) {
            return Err(SimError(format!("node \"{}\" already exists", spec.name)));
        }
        if self.node_cidrs.len() >= MAX_NODES {
            return Err(SimError(format!(
                "this simulated cluster holds at most {MAX_NODES} nodes"
            )));
        }
        for (_, _, effect) in &spec.taints {
            if !matches!(
                effect.as_str(),
                "NoSchedule" | "PreferNoSchedule" | "NoExecute"
            ) {
                return Err(SimError(format!(
                    "invalid taint effect \"{effect}\": must be NoSchedule, PreferNoSchedule or NoExecute"
                )));
            }
        }
        if self.connect().is_err() {
            return Err(SimError(
                "the node cannot register: the apiserver is not running".into(),
            ));
        }
        self.current_cause = crate::trace::Cause::User;
        let index = self.node_cidrs.values().max().map_or(0, |m| m + 1);
        self.node_cidrs.insert(spec.name.clone(), index);
        self.register_node(&spec);
        Ok(format!("node \"{}\" added", spec.name))
    }

    pub(crate) fn kubelet_renew_lease(&mut self, node: &str) {
        if !self.kubelets.get(node).is_some_and(|k| k.running) {
            return; // a dead kubelet renews nothing, and stops its heartbeat loop
        }
        self.kubelet_heartbeat(node);
        // The status manager's periodic sync (`syncPeriod`, also 10 s).
        self.kubelet_sync_statuses(node, false);
        self.schedule(
            self.now + LEASE_RENEW_INTERVAL,
            KubeletTimer::LeaseRenew(node.to_string()),
        );
    }

    /// One beat of the kubelet's heartbeat: the Lease renewed, the Node's status
    /// posted if it does not say Ready, the image list. A partitioned kubelet's
    /// requests time out.
    fn kubelet_heartbeat(&mut self, node: &str) {
        if !self.kubelet_reachable(node) {
            return;
        }
        let key = ObjectKey::new(Kind::Lease, "kube-node-lease", node);
        if let Some(Object::Lease(mut lease)) = self.store.get(&key).cloned() {
            lease.spec.get_or_insert_with(Default::default).renew_time =
                Some(MicroTime(self.now.to_k8s().0));
            let _ = self.update_as(Actor::Kubelet(node.to_string()), Object::Lease(lease));
        }
        // The node status loop (`tryUpdateNodeStatus`): a running kubelet whose Node
        // does not say Ready (an etcd restore brought back an older one) posts Ready.
        // The Node is read in place: it is copied only when there is something to post.
        let node_key = ObjectKey::new(Kind::Node, "", node);
        let Some(mut current) = self.store.get_shared(&node_key).cloned() else {
            return;
        };
        if let Object::Node(n) = &*current {
            if crate::controllers::node_lifecycle::node_ready_status(n) != "True" {
                let mut n = n.clone();
                let now = self.now.to_k8s();
                if let Some(st) = n.status.as_mut() {
                    st.conditions = Some(node_conditions("True", &now));
                }
                if let Ok(posted) =
                    self.update_as(Actor::Kubelet(node.to_string()), Object::Node(n))
                {
                    current = posted;
                }
            }
        }
        self.kubelet_report_images(node, &current);
    }

    /// The node status loop's image list (`Node.status.images`, largest first, at
    /// most 50 as `--node-status-max-images`), posted when it changed. `current` is
    /// the Node as the store holds it.
    fn kubelet_report_images(&mut self, node: &str, current: &Object) {
        let Some(k) = self.kubelets.get_mut(node) else {
            return;
        };
        let on_disk = k.images.len();
        if k.image_list
            .as_ref()
            .is_none_or(|(from, _)| *from != on_disk)
        {
            k.image_list = Some((on_disk, image_list(&k.images)));
        }
        let Object::Node(n) = current else {
            return;
        };
        let rv = n.metadata.resource_version.as_deref().unwrap_or("");
        if k.images_posted
            .as_ref()
            .is_some_and(|(count, at)| *count == on_disk && at == rv)
        {
            return;
        }
        let new = k.image_list.as_ref().and_then(|(_, list)| list.as_ref());
        if n.status.as_ref().and_then(|s| s.images.as_ref()) == new {
            k.images_posted = Some((on_disk, rv.to_string()));
            return;
        }
        let mut n = n.clone();
        n.status.get_or_insert_with(Default::default).images = new.cloned();
        if let Ok(posted) = self.update_as(Actor::Kubelet(node.to_string()), Object::Node(n)) {
            let rv = posted.meta().resource_version.clone().unwrap_or_default();
            if let Some(k) = self.kubelets.get_mut(node) {
                k.images_posted = Some((on_disk, rv));
            }
        }
    }

    /// Powers a node off: the kubelet stops, every container on it dies.
    pub(crate) fn kill_node(&mut self, name: &str) -> Result<String, SimError> {
        let Some(k) = self.kubelets.get_mut(name) else {
            return Err(SimError(format!("node \"{name}\" not found")));
        };
        if !k.running {
            return Err(SimError(format!("node \"{name}\" is already down")));
        }
        // What the containers wrote to their volumes stays on the disk.
        let keys: Vec<ObjectKey> = k.containers.keys().cloned().collect();
        for key in keys {
            if let Some(pod) = self.store.get(&key).and_then(Object::as_pod).cloned() {
                self.keep_pod_writes(name, &key, &pod);
            }
        }
        let Some(k) = self.kubelets.get_mut(name) else {
            return Err(SimError(format!("node \"{name}\" not found")));
        };
        k.running = false;
        let lost = k.pods.len();
        k.pods.clear();
        k.containers.clear();
        // The status manager's cache lives in the kubelet's memory.
        k.statuses.clear();
        k.unsynced.clear();
        if let Some(q) = self
            .queues
            .get_mut(&crate::cluster::Component::Kubelet(name.to_string()))
        {
            q.keys.clear();
        }
        self.control_plane_node_down(name);
        Ok(format!(
            "node \"{name}\" killed: its kubelet stopped and {lost} pod(s) lost their containers"
        ))
    }

    /// Cuts a node off from the control plane: its containers keep running and its
    /// kubelet keeps working locally (restarts, probes), but every request it makes
    /// times out, so no heartbeat, no status and no new pod reaches it. The node
    /// lifecycle controller sees the silence as it sees a dead node.
    ///
    /// Simplified: the network between nodes (pod to pod) is not cut.
    pub(crate) fn partition_node(&mut self, name: &str) -> Result<String, SimError> {
        let Some(k) = self.kubelets.get_mut(name) else {
            return Err(SimError(format!("node \"{name}\" not found")));
        };
        if !k.running {
            return Err(SimError(format!(
                "node \"{name}\" is down; restart it first"
            )));
        }
        if k.partitioned {
            return Err(SimError(format!("node \"{name}\" is already partitioned")));
        }
        k.partitioned = true;
        Ok(format!(
            "node \"{name}\" partitioned: its containers keep running, but its kubelet cannot reach the apiserver"
        ))
    }

    /// Ends a partition: the kubelet's next requests get through, so it renews its
    /// Lease, posts its node and pod statuses, and syncs the pods bound to it
    /// (stopping the ones deleted meanwhile).
    pub(crate) fn heal_node(&mut self, name: &str) -> Result<String, SimError> {
        let Some(k) = self.kubelets.get_mut(name) else {
            return Err(SimError(format!("node \"{name}\" not found")));
        };
        if !k.partitioned {
            return Err(SimError(format!("node \"{name}\" is not partitioned")));
        }
        k.partitioned = false;
        // Its heartbeat loop never stopped; the next beat simply gets through. The
        // kubelet retries a failed lease renewal quickly, so it is posted at once.
        self.kubelet_heartbeat(name);
        // The status manager posts what it could not, and puts back what others
        // changed meanwhile (the node controller marked every pod not ready).
        self.kubelet_sync_statuses(name, true);
        // Its pod watch relists: the pods bound to it now, and the ones it still runs
        // that were deleted meanwhile (their containers stop).
        let mut pods: BTreeSet<ObjectKey> = self.store.pods_on_node(name).cloned().collect_set();
        if let Some(k) = self.kubelets.get(name) {
            pods.extend(k.pods.keys().cloned());
            pods.extend(k.containers.keys().cloned());
        }
        for p in pods {
            self.enqueue(crate::cluster::Component::Kubelet(name.to_string()), p);
        }
        Ok(format!(
            "node \"{name}\" healed: its kubelet reaches the apiserver again"
        ))
    }

    /// Whether this node's kubelet can reach the apiserver.
    pub(crate) fn kubelet_reachable(&self, node: &str) -> bool {
        self.kubelets.get(node).is_none_or(|k| !k.partitioned)
    }

    /// Powers a killed node back on: the kubelet posts Ready, renews its Lease, and
    /// syncs every pod bound to it (deleting the ones marked for deletion, restarting
    /// the others' containers).
    pub(crate) fn restart_node(&mut self, name: &str) -> Result<String, SimError> {
        let Some(k) = self.kubelets.get_mut(name) else {
            return Err(SimError(format!("node \"{name}\" not found")));
        };
        if k.running {
            return Err(SimError(format!("node \"{name}\" is already running")));
        }
        k.running = true;
        // The kubelet starts the static pods first: on the control-plane node, the
        // apiserver it is about to report to.
        self.control_plane_node_up(name);
        let key = ObjectKey::new(Kind::Node, "", name);
        if let Some(Object::Node(mut node)) = self.store.get(&key).cloned() {
            let now = self.now.to_k8s();
            if let Some(st) = node.status.as_mut() {
                st.conditions = Some(node_conditions("True", &now));
            }
            let _ = self.update_as(Actor::Kubelet(name.to_string()), Object::Node(node));
        }
        self.kubelet_renew_lease(name);
        let pods: Vec<ObjectKey> = self.store.pods_on_node(name).cloned().collect();
        for p in pods {
            self.enqueue(crate::cluster::Component::Kubelet(name.to_string()), p);
        }
        Ok(format!(
            "node \"{name}\" restarted: its kubelet is posting status again"
        ))
    }

    pub(crate) fn kubelet_sync_pod(&mut self, node: &str, key: &ObjectKey) {
        if !self.kubelets.get(node).is_some_and(|k| k.running) {
            return;
        }
        let api_pod = match self.store.get(key) {
            Some(Object::Pod(p))
                if p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node) =>
            {
                p.clone()
            }
            _ => {
                // Gone, or no longer bound here (an etcd restore can take a pod back to
                // before its binding): its containers stop and are forgotten. Upstream
                // the pod source lists only pods with `spec.nodeName` this node's, a
                // pod missing from its set is removed and its worker kills it
                // (pkg/kubelet/config/config.go `podStorage.merge`, kubelet.go
                // `HandlePodRemoves`).
                if let Some(k) = self.kubelets.get_mut(node) {
                    k.pods.remove(key);
                    k.pulled_events.remove(key);
                    let uid = k.containers.remove(key).map(|r| r.uid).unwrap_or_default();
                    k.deadlines.remove(key);
                    self.remove_empty_dirs(node, &uid);
                }
                self.kubelet_forget_status(node, key);
                // A static pod runs on regardless: post its mirror pod again.
                if let Some(c) = self.static_pod_on(node, key) {
                    if self.store.get(key).is_none() {
                        self.create_mirror_pod(c);
                    }
                }
                return;
            }
        };
        if let Some(c) = self.static_pod_on(node, key) {
            if crate::runtime::control_plane::is_mirror_pod(&api_pod) {
                self.kubelet_sync_mirror_pod(node, c, key, *api_pod);
                return;
            }
        }
        // The status manager compares the apiserver's status with its own; the
        // kubelet works from its own.
        self.kubelet_check_status(node, key, &api_pod);
        let pod = self.kubelet_pod(node, key).unwrap_or(*api_pod);
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let known = self
            .kubelets
            .get(node)
            .and_then(|k| k.pods.get(key))
            .filter(|rp| rp.uid() == uid)
            .cloned();
        if pod.metadata.deletion_timestamp.is_some() {
            match known {
                Some(RuntimePod::Stopping { .. }) => {}
                Some(_) => self.kubelet_stop_pod(node, key, &pod, &uid),
                None => {
                    // No containers here (never started, or lost in a reboot):
                    // confirm the deletion at once.
                    if self
                        .delete_as(Actor::Kubelet(node.to_string()), key, Some(0))
                        .is_ok()
                    {
                        self.kubelet_forget_status(node, key);
                    }
                }
            }
            return;
        }
        let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
        if matches!(phase, Some("Succeeded") | Some("Failed")) {
            return;
        }
        if known.is_some() && self.kubelet_check_active_deadline(node, key, &pod) {
            return;
        }
        if known.is_some() {
            self.kubelet_image_changed(node, key, &pod);
            self.kubelet_definition_changed(node, key, &pod);
            self.kubelet_ephemeral_added(node, key, &pod);
            return;
        }
        // Admission (pkg/kubelet/lifecycle/predicate.go) for a pod this kubelet has
        // never run: the node must fit it and match its node affinity.
        let never_started = pod
            .status
            .as_ref()
            .and_then(|s| s.pod_ip.as_ref())
            .is_none();
        if never_started {
            if let Some((reason, message)) = self.kubelet_admit(node, key, &pod) {
                self.kubelet_reject_pod(node, pod, &reason, &message);
                return;
            }
        }
        self.kubelet_start_pod(node, key, pod, uid);
        if let Some(started) = self.kubelet_pod(node, key) {
            self.kubelet_check_active_deadline(node, key, &started);
        }
    }

    /// Why the kubelet would refuse a new pod, as `(reason, message)`: a resource the
    /// node's allocatable cannot cover given the pods it already runs (`OutOfcpu`,
    /// `OutOfmemory`, `OutOfpods`, extended resources), or node affinity/selector.
    /// Simplified: no taint, host-port or OS checks.
    fn kubelet_admit(&self, node: &str, key: &ObjectKey, pod: &Pod) -> Option<(String, String)> {
        let node_obj = self
            .store
            .get(&ObjectKey::new(Kind::Node, "", node))?
            .as_node()?;
        let labels = node_obj.metadata.labels.clone().unwrap_or_default();
        if let Some(spec) = pod.spec.as_ref() {
            if !crate::controllers::pod_matches_node(spec, node, &labels) {
                return Some((
                    "NodeAffinity".into(),
                    "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"
                        .into(),
                ));
            }
        }
        let allocatable = node_obj.status.as_ref()?.allocatable.clone()?;
        let running: Vec<&Pod> = self
            .kubelets
            .get(node)
            .map(|k| {
                k.pods
                    .keys()
                    .filter(|k| *k != key)
                    .filter_map(|k| self.store.get(k)?.as_pod())
                    .filter(|p| crate::controllers::pod_is_active(p))
                    .collect()
            })
            .unwrap_or_default();
        let value = |r: &str, q: &crate::object::quantity::Quantity| -> i128 {
            if r == "cpu" {
                q.milli_value()
            } else {
                q.value()
            }
        };
        let requests = |p: &Pod| -> BTreeMap<String, i128> {
            let mut sum: BTreeMap<String, i128> = BTreeMap::new();
            let Some(spec) = p.spec.as_ref() else {
                return sum;
            };
            for c in &spec.containers {
                for (r, q) in c
                    .resources
                    .as_ref()
                    .and_then(|r| r.requests.as_ref())
                    .into_iter()
                    .flatten()
                {
                    if let Some(q) = crate::object::quantity::Quantity::parse(&q.0) {
                        *sum.entry(r.clone()).or_default() += value(r, &q);
                    }
                }
            }
            for c in spec.init_containers.iter().flatten() {
                for (r, q) in c
                    .resources
                    .as_ref()
                    .and_then(|r| r.requests.as_ref())
                    .into_iter()
                    .flatten()
                {
                    if let Some(q) = crate::object::quantity::Quantity::parse(&q.0) {
                        let e = sum.entry(r.clone()).or_default();
                        *e = (*e).max(value(r, &q));
                    }
                }
            }
            sum
        };
        let wanted = requests(pod);
        let mut used: BTreeMap<String, i128> = BTreeMap::new();
        for p in &running {
            for (r, v) in requests(p) {
                *used.entry(r).or_default() += v;
            }
        }
        // Upstream checks the pod count first, then each requested resource.
        let max_pods = allocatable
            .get("pods")
            .and_then(|q| crate::object::quantity::Quantity::parse(&q.0))
            .map(|q| q.value())
            .unwrap_or(110);
        if running.len() as i128 + 1 > max_pods {
            return Some((
                "OutOfpods".into(),
                format!(
                    "Node didn't have enough resource: pods, requested: 1, used: {}, capacity: {max_pods}",
                    running.len()
                ),
            ));
        }
        for (r, want) in &wanted {
            if *want == 0 {
                continue;
            }
            let capacity = allocatable
                .get(r)
                .and_then(|q| crate::object::quantity::Quantity::parse(&q.0))
                .map(|q| value(r, &q))
                .unwrap_or(0);
            let in_use = used.get(r).copied().unwrap_or(0);
            if in_use + want > capacity {
                return Some((
                    format!("OutOf{r}"),
                    format!(
                        "Node didn't have enough resource: {r}, requested: {want}, used: {in_use}, capacity: {capacity}"
                    ),
                ));
            }
        }
        None
    }

    /// `rejectPod`: a Warning event and the pod Failed with the reason and message.
    fn kubelet_reject_pod(&mut self, node: &str, mut pod: Pod, reason: &str, message: &str) {
        let about = Object::Pod(Box::new(pod.clone()));
        self.record_event(
            &about,
            "kubelet",
            Some(node),
            "Warning",
            reason,
            message.to_string(),
        );
        let status = pod.status.get_or_insert_with(Default::default);
        status.phase = Some("Failed".into());
        status.reason = Some(reason.to_string());
        status.message = Some(format!("Pod was rejected: {message}"));
        let _ = self.kubelet_post_pod(node, pod);
    }

    fn kubelet_start_pod(&mut self, node: &str, key: &ObjectKey, mut pod: Pod, uid: String) {
        let now = self.now.to_k8s();
        let restarted = pod
            .status
            .as_ref()
            .and_then(|s| s.pod_ip.as_ref())
            .is_some();
        let host_ip = self.node_internal_ip(node).unwrap_or_default();
        // hostNetwork pods share the node's address; others get one from its CIDR.
        let host_network = pod.spec.as_ref().and_then(|s| s.host_network) == Some(true);
        let ip = match pod.status.as_ref().and_then(|s| s.pod_ip.clone()) {
            Some(ip) => ip,
            None if host_network => host_ip.clone(),
            None => self.allocate_pod_ip(node),
        };
        let spec = pod.spec.clone().unwrap_or_default();
        fill_pending_status(&mut pod, &spec, host_ip, ip, &now, restarted);
        set_starting_conditions(&mut pod, &spec, &now);
        let Ok(obj) = self.kubelet_post_pod(node, pod) else {
            return;
        };
        let (delay, pulled) = self.pull_images(node, &obj, &spec);
        if let Some(k) = self.kubelets.get_mut(node) {
            k.pods
                .insert(key.clone(), RuntimePod::Starting { uid: uid.clone() });
            k.pulled_events.insert(key.clone(), pulled);
        }
        self.schedule(
            self.now + SimDuration::millis(delay),
            KubeletTimer::ContainersStarted {
                node: node.to_string(),
                pod: key.clone(),
                uid,
            },
        );
    }

    /// Pulls each image the node lacks, one after another (serializeImagePulls),
    /// recording `Pulling` (and `Pulled` for a present image) as it goes. Returns
    /// when the containers can start, from now, and the `Pulled` messages to report
    /// then.
    fn pull_images(&mut self, node: &str, obj: &Object, spec: &PodSpec) -> (u64, Vec<String>) {
        // Pull each image the node lacks, one after another (serializeImagePulls).
        let mut delay = SANDBOX_MS;
        let k = self
            .kubelets
            .get(node)
            .map(|k| k.images.clone())
            .unwrap_or_default();
        let mut pulling: BTreeSet<String> = BTreeSet::new();
        // `Pulled` is reported when the pull ends, just before the containers start.
        let mut pulled: Vec<String> = Vec::new();
        for c in spec
            .init_containers
            .iter()
            .flatten()
            .chain(&spec.containers)
        {
            let image = c.image.clone().unwrap_or_default();
            let policy = c.image_pull_policy.as_deref().unwrap_or("IfNotPresent");
            let present = k.contains(&image) || pulling.contains(&image);
            if policy == "Never" && !present {
                // ErrImageNeverPull, reported when the containers start.
                continue;
            }
            if policy == "Always" || !present {
                if images::pull_error(&image).is_some() {
                    // The pull fails; the failure is reported when the others start.
                    self.record_event(
                        obj,
                        "kubelet",
                        Some(node),
                        "Normal",
                        "Pulling",
                        format!("Pulling image \"{image}\""),
                    );
                    continue;
                }
                let ms = images::pull_ms(&image);
                self.record_event(
                    obj,
                    "kubelet",
                    Some(node),
                    "Normal",
                    "Pulling",
                    format!("Pulling image \"{image}\""),
                );
                delay += ms;
                pulled.push(format!(
                    "Successfully pulled image \"{image}\" in {} ({} including waiting). Image size: {} bytes.",
                    crate::time::go_duration(SimDuration::millis(ms)),
                    crate::time::go_duration(SimDuration::millis(delay)),
                    images::size(&image)
                ));
                pulling.insert(image);
            } else if pulling.contains(&image) {
                // Pulled for an earlier container of this pod: present once that ends.
                pulled.push(format!(
                    "Container image \"{image}\" already present on machine and can be accessed by the pod"
                ));
            } else {
                self.record_event(
                    obj,
                    "kubelet",
                    Some(node),
                    "Normal",
                    "Pulled",
                    format!("Container image \"{image}\" already present on machine and can be accessed by the pod"),
                );
            }
        }
        (delay, pulled)
    }

    fn allocate_pod_ip(&mut self, node: &str) -> String {
        let index = self.node_cidrs.get(node).copied().unwrap_or(0);
        let next = self.pod_ip_next.entry(node.to_string()).or_insert(2);
        // Host addresses .2 to .254 of the node's /24, then wrap around.
        let host = *next;
        *next = if host >= 254 { 2 } else { host + 1 };
        format!("{}.{host}", pod_subnet(index))
    }

    pub(crate) fn kubelet_containers_started(&mut self, node: &str, key: &ObjectKey, uid: &str) {
        let Some(k) = self.kubelets.get_mut(node) else {
            return;
        };
        if !k.running
            || k.pods.get(key)
                != Some(&RuntimePod::Starting {
                    uid: uid.to_string(),
                })
        {
            return;
        }
        let Some(mut pod) = self.kubelet_pod(node, key) else {
            if let Some(k) = self.kubelets.get_mut(node) {
                k.pods.remove(key);
            }
            return;
        };
        let Some(k) = self.kubelets.get_mut(node) else {
            return;
        };
        if pod.metadata.uid.as_deref() != Some(uid)
            || pod.metadata.deletion_timestamp.is_some()
            || crate::kubelet::containers::pod_is_terminal(&pod)
        {
            return;
        }
        k.pods.insert(
            key.clone(),
            RuntimePod::Running {
                uid: uid.to_string(),
            },
        );
        let spec = pod.spec.clone().unwrap_or_default();
        let before = k.images.clone();
        for c in spec
            .init_containers
            .iter()
            .flatten()
            .chain(&spec.containers)
        {
            let image = c.image.clone().unwrap_or_default();
            if images::pull_error(&image).is_none()
                && (c.image_pull_policy.as_deref() != Some("Never") || before.contains(&image))
            {
                k.images.insert(image);
            }
        }
        k.containers_started += spec.containers.len() as u64;
        let pulled = k.pulled_events.remove(key).unwrap_or_default();
        // Each container's process starts (`kubelet_containers.rs`), unless its image
        // could not be pulled (`kubelet_images.rs`).
        let mut events = Vec::new();
        // Init containers run first, one at a time (`kubelet_containers.rs`).
        let has_init = spec.init_containers.as_ref().is_some_and(|v| !v.is_empty());
        if has_init {
            self.continue_after_init(node, key, &mut pod, &mut events);
        }
        for (i, c) in spec.containers.iter().enumerate() {
            if has_init {
                break;
            }
            let image = c.image.clone().unwrap_or_default();
            if !self.start_or_fail_pull(
                node,
                key,
                &mut pod,
                &c.name,
                before.contains(&image),
                &mut events,
            ) {
                continue;
            }
            if let Some(cs) = pod
                .status
                .as_mut()
                .and_then(|s| s.container_statuses.as_mut())
                .and_then(|v| v.iter_mut().find(|s| s.name == c.name))
            {
                cs.image_id = image_id(&cs.image);
            }
            self.start_container(node, key, &mut pod, i, &mut events);
        }
        crate::kubelet::containers::refresh_pod_status(&mut pod, &self.now.to_k8s());
        let Ok(obj) = self.kubelet_post_pod(node, pod) else {
            return;
        };
        for message in pulled {
            self.record_event(&obj, "kubelet", Some(node), "Normal", "Pulled", message);
        }
        for (t, reason, message) in events {
            self.record_event(&obj, "kubelet", Some(node), t, reason, message);
        }
    }

    fn kubelet_stop_pod(&mut self, node: &str, key: &ObjectKey, pod: &Pod, uid: &str) {
        let grace_ms =
            SimDuration::from_secs_i64(pod.metadata.deletion_grace_period_seconds.unwrap_or(30))
                .as_millis();
        // Only containers still running need stopping (`lifecycle.rs`).
        let mut events = Vec::new();
        let plan = self.termination_plan(node, key, pod, grace_ms, &mut events);
        let stop = plan
            .iter()
            .map(|s| s.stopped_ms)
            .max()
            .unwrap_or(self.now.0)
            .saturating_sub(self.now.0);
        let obj = Object::Pod(Box::new(pod.clone()));
        for (t, reason, message) in events {
            self.record_event(&obj, "kubelet", Some(node), t, reason, message);
        }
        if let Some(rt) = self.pod_runtime_mut(node, key) {
            for s in &plan {
                if let Some(run) = rt.containers.get_mut(&s.name) {
                    run.stops_at_ms = Some(s.stopped_ms);
                }
            }
        }
        if let Some(k) = self.kubelets.get_mut(node) {
            k.pods.insert(
                key.clone(),
                RuntimePod::Stopping {
                    uid: uid.to_string(),
                },
            );
        }
        self.schedule(
            self.now + SimDuration::millis(stop),
            KubeletTimer::ContainersStopped {
                node: node.to_string(),
                pod: key.clone(),
                uid: uid.to_string(),
            },
        );
    }

    pub(crate) fn kubelet_containers_stopped(&mut self, node: &str, key: &ObjectKey, uid: &str) {
        let Some(k) = self.kubelets.get_mut(node) else {
            return;
        };
        if !k.running
            || k.pods.get(key)
                != Some(&RuntimePod::Stopping {
                    uid: uid.to_string(),
                })
        {
            return;
        }
        // What the containers wrote to their volumes is on the disk; the emptyDirs go.
        let ours = |p: &Pod| p.metadata.uid.as_deref() == Some(uid);
        if let Some(pod) = self.kubelet_pod(node, key).filter(ours) {
            self.keep_pod_writes(node, key, &pod);
        }
        self.remove_empty_dirs(node, uid);
        let Some(k) = self.kubelets.get_mut(node) else {
            return;
        };
        k.pods.remove(key);
        k.containers.remove(key);
        self.kubelet_forget_status(node, key);
        let (matches, deleting) = match self.store.get(key) {
            Some(o) if o.meta().uid.as_deref() == Some(uid) => {
                (true, o.meta().deletion_timestamp.is_some())
            }
            _ => (false, false),
        };
        if matches && deleting {
            // The final delete, with grace period zero, removes the object.
            let _ = self.delete_as(Actor::Kubelet(node.to_string()), key, Some(0));
        } else if matches {
            // An etcd restore brought the pod back from before its deletion: it is to
            // run again.
            self.enqueue(
                crate::cluster::Component::Kubelet(node.to_string()),
                key.clone(),
            );
        }
    }
}

#[cfg(test)]
mod image_id_tests {
    use super::image_id;

    #[test]
    fn image_ids_name_the_registry_as_containerd_does() {
        let repo = |image: &str| image_id(image).split('@').next().unwrap().to_string();
        assert_eq!(repo("nginx:1.27"), "docker.io/library/nginx");
        assert_eq!(
            repo("docker.io/jocatalin/kubernetes-bootcamp:v2"),
            "docker.io/jocatalin/kubernetes-bootcamp"
        );
        assert_eq!(repo("polinux/stress"), "docker.io/polinux/stress");
        assert_eq!(
            repo("gcr.io/google-samples/kubernetes-bootcamp:v1"),
            "gcr.io/google-samples/kubernetes-bootcamp"
        );
        assert!(image_id("nginx").contains("@sha256:"));
    }
}

#[cfg(test)]
mod address_tests {
    use super::{node_address, pod_subnet};

    #[test]
    fn ranges_stay_valid_up_to_the_envelope() {
        assert_eq!(pod_subnet(0), "10.244.0");
        assert_eq!(pod_subnet(1023), "10.247.255");
        assert_eq!(pod_subnet(1024), "100.64.0");
        assert_eq!(pod_subnet(4999), "100.79.135");
        assert_eq!(node_address(0), "172.18.0.2");
        assert_eq!(node_address(253), "172.18.0.255");
        assert_eq!(node_address(254), "172.18.1.0");
        assert_eq!(node_address(4999), "172.18.19.137");
    }
}

/// A kubelet's timers: each names its node, and a pod's by its uid too, so a
/// timer armed for a pod that has since been replaced finds nothing to do.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum KubeletTimer {
    /// A kubelet renews its Lease.
    LeaseRenew(String),
    /// The runtime finished pulling and started a pod's containers.
    ContainersStarted {
        node: String,
        pod: ObjectKey,
        uid: String,
    },
    /// A pod's containers stopped after a deletion request.
    ContainersStopped {
        node: String,
        pod: ObjectKey,
        uid: String,
    },
    /// A pod's `activeDeadlineSeconds` since its start run out (`active_deadline.rs`).
    ActiveDeadline {
        node: String,
        pod: ObjectKey,
        uid: String,
    },
    /// A container's process exits, or is looked at again when its exit was not yet
    /// known (see `runtime.rs`). `restarts` names the container instance.
    ContainerExited {
        node: String,
        pod: ObjectKey,
        uid: String,
        container: String,
        restarts: i32,
    },
    /// A container the kubelet is killing (a failed liveness or startup probe) stops:
    /// it exited after SIGTERM, or the grace period ended and it got SIGKILL.
    ContainerKilled {
        node: String,
        pod: ObjectKey,
        uid: String,
        container: String,
        restarts: i32,
        code: i32,
    },
    /// A container's restart back-off ends (or the kubelet's next sync after a first
    /// exit): it starts again.
    ContainerRestart {
        node: String,
        pod: ObjectKey,
        uid: String,
        container: String,
        restarts: i32,
    },
    /// The kubelet's next sync after a failed pull: ErrImagePull becomes
    /// ImagePullBackOff (`attempt` names the failed pull).
    ImagePullBackOff {
        node: String,
        pod: ObjectKey,
        uid: String,
        container: String,
        attempt: u32,
    },
    /// A container's image pull back-off ends: the kubelet pulls again.
    ImagePullRetry {
        node: String,
        pod: ObjectKey,
        uid: String,
        container: String,
        attempt: u32,
    },
    /// A retried pull finished: the container starts.
    ImagePulled {
        node: String,
        pod: ObjectKey,
        uid: String,
        container: String,
        attempt: u32,
    },
    /// The pod worker's next sync after a container could not be created
    /// (`CreateContainerConfigError`, `env.rs`).
    ConfigRetry {
        node: String,
        pod: ObjectKey,
        uid: String,
        container: String,
    },
    /// The pod's periodic sync after one of its volumes' objects changed
    /// (`volumes.rs`).
    VolumeSync {
        node: String,
        pod: ObjectKey,
        uid: String,
        container: String,
        restarts: i32,
    },
    /// A container's postStart hook ends (`lifecycle.rs`): it runs, or, when the
    /// hook failed, is killed.
    PostStartDone {
        node: String,
        pod: ObjectKey,
        uid: String,
        container: String,
        restarts: i32,
        failed: bool,
    },
    /// A container probe's period comes round (`kubelet_probes.rs`).
    Probe {
        node: String,
        pod: ObjectKey,
        uid: String,
        container: String,
        restarts: i32,
        kind: crate::kubelet::probes::ProbeKind,
    },
}

impl crate::runtime::components::Timers for KubeletTimer {
    const DESCRIPTIONS: &'static [&'static str] = &[
        "lease renewal",
        "containers started",
        "containers stopped",
        "pod active deadline",
        "container exited",
        "container killed",
        "container back-off ended",
        "kubelet sync after a failed pull",
        "image pull back-off ended",
        "image pulled",
        "probe period",
        "kubelet sync after a container config error",
        "kubelet sync after a volume's object changed",
        "postStart hook ended",
    ];

    fn describe(&self) -> &'static str {
        Self::DESCRIPTIONS[match self {
            KubeletTimer::LeaseRenew(_) => 0,
            KubeletTimer::ContainersStarted { .. } => 1,
            KubeletTimer::ContainersStopped { .. } => 2,
            KubeletTimer::ActiveDeadline { .. } => 3,
            KubeletTimer::ContainerExited { .. } => 4,
            KubeletTimer::ContainerKilled { .. } => 5,
            KubeletTimer::ContainerRestart { .. } => 6,
            KubeletTimer::ImagePullBackOff { .. } => 7,
            KubeletTimer::ImagePullRetry { .. } => 8,
            KubeletTimer::ImagePulled { .. } => 9,
            KubeletTimer::Probe { .. } => 10,
            KubeletTimer::ConfigRetry { .. } => 11,
            KubeletTimer::VolumeSync { .. } => 12,
            KubeletTimer::PostStartDone { .. } => 13,
        }]
    }

    /// A pod's timers write its status, so they wait while the apiserver cannot
    /// take writes; a Lease renewal fails on its own (`kubelet_renew_lease`).
    fn held(&self, c: &Cluster) -> bool {
        !matches!(self, KubeletTimer::LeaseRenew(_)) && !c.api_writable()
    }

    fn fire(self, c: &mut Cluster) {
        match self {
            KubeletTimer::LeaseRenew(node) => c.kubelet_renew_lease(&node),
            KubeletTimer::ContainersStarted { node, pod, uid } => {
                c.kubelet_containers_started(&node, &pod, &uid)
            }
            KubeletTimer::ContainersStopped { node, pod, uid } => {
                c.kubelet_containers_stopped(&node, &pod, &uid)
            }
            KubeletTimer::ActiveDeadline { node, pod, uid } => {
                c.kubelet_active_deadline_fired(&node, &pod, &uid)
            }
            KubeletTimer::ContainerExited {
                node,
                pod,
                uid,
                container,
                restarts,
            } => c.kubelet_container_exited(&node, &pod, &uid, &container, restarts),
            KubeletTimer::ContainerKilled {
                node,
                pod,
                uid,
                container,
                restarts,
                code,
            } => c.kubelet_container_killed(&node, &pod, &uid, &container, restarts, code),
            KubeletTimer::ContainerRestart {
                node,
                pod,
                uid,
                container,
                restarts,
            } => c.kubelet_restart_container(&node, &pod, &uid, &container, restarts),
            KubeletTimer::ImagePullBackOff {
                node,
                pod,
                uid,
                container,
                attempt,
            } => c.kubelet_image_pull_backoff(&node, &pod, &uid, &container, attempt),
            KubeletTimer::ImagePullRetry {
                node,
                pod,
                uid,
                container,
                attempt,
            } => c.kubelet_image_pull_retry(&node, &pod, &uid, &container, attempt),
            KubeletTimer::ImagePulled {
                node,
                pod,
                uid,
                container,
                attempt,
            } => c.kubelet_image_pulled(&node, &pod, &uid, &container, attempt),
            KubeletTimer::Probe {
                node,
                pod,
                uid,
                container,
                restarts,
                kind,
            } => c.kubelet_probe(&node, &pod, &uid, &container, restarts, kind),
            KubeletTimer::ConfigRetry {
                node,
                pod,
                uid,
                container,
            } => c.kubelet_config_retry(&node, &pod, &uid, &container),
            KubeletTimer::VolumeSync {
                node,
                pod,
                uid,
                container,
                restarts,
            } => c.kubelet_volume_sync(&node, &pod, &uid, &container, restarts),
            KubeletTimer::PostStartDone {
                node,
                pod,
                uid,
                container,
                restarts,
                failed,
            } => c.kubelet_post_start_done(&node, &pod, &uid, &container, restarts, failed),
        }
    }
}

/// A starting pod's status: Pending, its addresses, and every container waiting
/// (on its init containers, or to be created). Restart counts carry over when the
/// kubelet starts the same pod again (`restarted`).
fn fill_pending_status(
    pod: &mut Pod,
    spec: &PodSpec,
    host_ip: String,
    ip: String,
    now: &Time,
    restarted: bool,
) {
    let previous: BTreeMap<String, i32> = pod
        .status
        .as_ref()
        .and_then(|s| s.container_statuses.as_ref())
        .map(|cs| {
            cs.iter()
                .map(|c| (c.name.clone(), c.restart_count))
                .collect_map()
        })
        .unwrap_or_default();
    let status = pod.status.get_or_insert_with(Default::default);
    status.phase = Some("Pending".into());
    status.host_ip = Some(host_ip.clone());
    status.host_ips = Some(vec![k8s_openapi::api::core::v1::HostIP { ip: host_ip }]);
    status.pod_ip = Some(ip.clone());
    status.pod_ips = Some(vec![PodIP { ip }]);
    if status.start_time.is_none() {
        status.start_time = Some(now.clone());
    }
    // With init containers, every container waits for them (PodInitializing).
    let has_init = spec.init_containers.as_ref().is_some_and(|v| !v.is_empty());
    let waiting_reason = if has_init {
        "PodInitializing"
    } else {
        "ContainerCreating"
    };
    status.init_container_statuses = has_init.then(|| {
        spec.init_containers
            .iter()
            .flatten()
            .map(|c| ContainerStatus {
                name: c.name.clone(),
                image: c.image.clone().unwrap_or_default(),
                started: Some(false),
                state: Some(ContainerState {
                    waiting: Some(ContainerStateWaiting {
                        reason: Some("PodInitializing".into()),
                        message: None,
                    }),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .collect()
    });
    status.container_statuses = Some(
        spec.containers
            .iter()
            .map(|c| ContainerStatus {
                name: c.name.clone(),
                image: c.image.clone().unwrap_or_default(),
                image_id: String::new(),
                ready: false,
                started: Some(false),
                restart_count: previous
                    .get(&c.name)
                    .map(|r| r + i32::from(restarted))
                    .unwrap_or(0),
                state: Some(ContainerState {
                    waiting: Some(ContainerStateWaiting {
                        reason: Some(waiting_reason.into()),
                        message: None,
                    }),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .collect(),
    );
}

/// A starting pod's conditions: sandbox ready, initialized once it has no init
/// containers, not ready, scheduled.
fn set_starting_conditions(pod: &mut Pod, spec: &PodSpec, now: &Time) {
    let init_names: Vec<String> = spec
        .init_containers
        .iter()
        .flatten()
        .map(|c| c.name.clone())
        .collect();
    let initialized = if init_names.is_empty() {
        "True"
    } else {
        "False"
    };
    for (t, s) in [
        ("PodReadyToStartContainers", "True"),
        ("Initialized", initialized),
        ("Ready", "False"),
        ("ContainersReady", "False"),
        // Pods created already bound (with spec.nodeName) never met the scheduler.
        ("PodScheduled", "True"),
    ] {
        let reason = (s == "False").then(|| {
            if t == "Initialized" {
                "ContainersNotInitialized".to_string()
            } else {
                "ContainersNotReady".to_string()
            }
        });
        let names: Vec<&str> = if t == "Initialized" {
            init_names.iter().map(String::as_str).collect()
        } else {
            // Sidecars first, as `GenerateContainersReadyCondition` lists them.
            let sidecars = spec
                .init_containers
                .iter()
                .flatten()
                .filter(|c| crate::kubelet::containers::is_sidecar(c));
            sidecars
                .chain(&spec.containers)
                .map(|c| c.name.as_str())
                .collect()
        };
        set_pod_condition(
            pod,
            PodCondition {
                type_: t.into(),
                status: s.into(),
                reason: reason.clone(),
                message: reason.as_ref().map(|r| {
                    let what = if r == "ContainersNotInitialized" {
                        "incomplete"
                    } else {
                        "unready"
                    };
                    format!("containers with {what} status: [{}]", names.join(" "))
                }),
                last_transition_time: Some(now.clone()),
                ..Default::default()
            },
        );
    }
}
