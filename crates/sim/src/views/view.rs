//! Read-only views of the cluster for drawing: plain structs, no references into the
//! simulation. The web app renders these and never touches simulation internals.

/// How a robot (pod) is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RobotState {
    /// Not yet placed on a zone (no node assigned).
    Unscheduled,
    /// Placed; the runtime is pulling images or starting containers.
    Creating,
    /// Running and Ready.
    Running,
    /// Running but not Ready (a failing probe, or its zone stopped reporting).
    NotReady,
    /// Has a deletion timestamp; waiting for its zone supervisor to confirm.
    Terminating,
    /// Waiting to be restarted after a crash or a failed image pull.
    BackOff,
    /// All containers exited with success.
    Completed,
    /// The pod failed.
    Failed,
}

impl RobotState {
    pub const ALL: [RobotState; 8] = [
        RobotState::Unscheduled,
        RobotState::Creating,
        RobotState::Running,
        RobotState::NotReady,
        RobotState::Terminating,
        RobotState::BackOff,
        RobotState::Completed,
        RobotState::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RobotState::Unscheduled => "Unscheduled",
            RobotState::Creating => "Creating",
            RobotState::Running => "Running",
            RobotState::NotReady => "NotReady",
            RobotState::Terminating => "Terminating",
            RobotState::BackOff => "BackOff",
            RobotState::Completed => "Completed",
            RobotState::Failed => "Failed",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodView {
    pub namespace: String,
    pub name: String,
    /// The controlling owner, as `ReplicaSet/web-66b6c48dd5`.
    pub owner: Option<String>,
    pub state: RobotState,
    /// The STATUS column `kubectl get pods` would print.
    pub status: String,
    /// A pod of the cluster itself (namespace `kube-system`: the control plane's
    /// static pods, CoreDNS, kube-proxy), drawn apart from the workload.
    pub system: bool,
    /// Container restarts, summed over its containers (the RESTARTS column).
    pub restarts: u32,
    /// Its number in a StatefulSet (`apps.kubernetes.io/pod-index`, or the name's
    /// suffix for a pod the set owns): `web-1` is 1.
    pub ordinal: Option<u32>,
    /// The PersistentVolumeClaims it mounts (`spec.volumes[].persistentVolumeClaim`),
    /// in the order its volumes list them.
    pub claims: Vec<String>,
    /// Its attachments (sidecar containers): each native sidecar (an init container
    /// with `restartPolicy: Always`) and each container after the first, in spec
    /// order; `true` for one that is running and ready.
    pub attachments: Vec<bool>,
}

/// A PersistentVolume as the floor draws it: beside the node its node affinity ties
/// it to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VolumeView {
    pub name: String,
    /// The claim it is bound or reserved to, as `namespace/name`.
    pub claim: Option<String>,
    /// `spec.capacity.storage` as written (`1Gi`).
    pub capacity: String,
    pub access_modes: Vec<String>,
    /// `spec.storageClassName`; empty for none.
    pub class: String,
    /// `Retain`, `Delete` (or `Recycle`).
    pub reclaim_policy: String,
    /// `status.phase`: `Pending`, `Available`, `Bound`, `Released`, `Failed`.
    pub phase: String,
    /// Being deleted (a deletion timestamp, held by its finalizer).
    pub terminating: bool,
    /// How many files its directory on the node holds (`kubelet/disk.rs`).
    pub files: usize,
}

/// How a zone's supervisor (kubelet) is doing, as the control plane sees it and as it
/// really is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneHealth {
    /// Node Ready=True.
    Ready,
    /// Node Ready=False or Unknown (the control plane has noticed).
    NotReady,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeView {
    pub name: String,
    pub control_plane: bool,
    /// What the Node object says.
    pub health: ZoneHealth,
    /// The zone is powered off (its kubelet and containers are gone), whether or not
    /// the control plane has noticed yet.
    pub killed: bool,
    pub unschedulable: bool,
    /// Requested / allocatable, in millicores and bytes.
    pub cpu_requested_milli: u64,
    pub cpu_allocatable_milli: u64,
    pub memory_requested: u64,
    pub memory_allocatable: u64,
    /// Robots on this zone, sorted by namespace and name.
    pub pods: Vec<PodView>,
    /// The PersistentVolumes tied to this node (a required node affinity
    /// `kubernetes.io/hostname In [node]`), sorted by name; read with the robots.
    pub volumes: Vec<VolumeView>,
}

/// A control-plane component on the strip across the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentView {
    /// Kubernetes name: `kube-apiserver`, `etcd`, `kube-scheduler`,
    /// `kube-controller-manager`.
    pub name: &'static str,
    /// The process is up. False while stopped, and while its node is powered off.
    pub running: bool,
    /// Stopped on purpose (`sim stop`); it stays down until started.
    pub stopped: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterView {
    /// Simulated milliseconds since start.
    pub time_ms: u64,
    pub components: Vec<ComponentView>,
    pub nodes: Vec<NodeView>,
    /// Robots that have no zone yet.
    pub unscheduled: Vec<PodView>,
    /// The store's current revision (etcd's global revision).
    pub revision: u64,
    /// The latest writes the apiserver answered, newest first (at most
    /// [`REQUESTS_IN_VIEW`]): the reception desk's log.
    pub requests: Vec<RequestView>,
}

/// How many recent requests a [`ClusterView`] carries.
pub const REQUESTS_IN_VIEW: usize = 8;

/// One apiserver request as the reception desk shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestView {
    pub at_ms: u64,
    pub user: String,
    pub verb: &'static str,
    /// `deployments/web`; empty when a create was refused before it had a name.
    pub target: String,
    pub namespace: String,
    /// The HTTP status code of the answer.
    pub code: u16,
    /// Each stage passed through: its name, its verdict and its modelled time in µs.
    pub stages: Vec<(&'static str, bool, u32)>,
    /// The modelled latency of the whole request, in µs.
    pub latency_micros: u32,
}

impl RequestView {
    /// The reception desk's row for a recorded request.
    pub fn of(r: &crate::apiserver::RequestRecord) -> RequestView {
        RequestView {
            at_ms: r.at.0,
            user: r.user.clone(),
            verb: r.verb,
            target: r.target(),
            namespace: r.namespace.clone(),
            code: r.code,
            stages: r
                .stages
                .iter()
                .zip(r.micros.iter().chain(std::iter::repeat(&0)))
                .map(|((stage, ok), us)| (stage.as_str(), *ok, *us))
                .collect(),
            latency_micros: r.latency_micros(),
        }
    }
}

impl ClusterView {
    /// Robot counts per zone and state; `unscheduled` is its own pseudo-zone. Only
    /// workload robots count: system pods (`PodView::system`) are left out.
    /// Used by the browser tests' read-only hook and by summaries.
    pub fn robot_counts(
        &self,
    ) -> std::collections::BTreeMap<String, std::collections::BTreeMap<&'static str, usize>> {
        robot_counts(&self.nodes, &self.unscheduled)
    }
}

/// Robot counts per zone and state of `nodes` and the waiting bay (`unscheduled`, its
/// own pseudo-zone), workload robots only: what [`ClusterView::robot_counts`] gives,
/// for any holder of the zones' views.
pub fn robot_counts<'a>(
    nodes: impl IntoIterator<Item = &'a NodeView>,
    unscheduled: &[PodView],
) -> std::collections::BTreeMap<String, std::collections::BTreeMap<&'static str, usize>> {
    let mut out = std::collections::BTreeMap::new();
    for node in nodes {
        let entry: &mut std::collections::BTreeMap<&'static str, usize> =
            out.entry(node.name.clone()).or_default();
        for p in node.pods.iter().filter(|p| !p.system) {
            *entry.entry(p.state.as_str()).or_default() += 1;
        }
    }
    if unscheduled.iter().any(|p| !p.system) {
        let entry = out.entry("unscheduled".to_string()).or_default();
        for p in unscheduled.iter().filter(|p| !p.system) {
            *entry.entry(p.state.as_str()).or_default() += 1;
        }
    }
    out
}

use crate::cluster::Cluster;
use crate::object::{Kind, Object};
use k8s_openapi::api::core::v1::Pod;

fn robot_state(pod: &Pod, status: &str) -> RobotState {
    if pod.metadata.deletion_timestamp.is_some() {
        return RobotState::Terminating;
    }
    if pod
        .spec
        .as_ref()
        .and_then(|s| s.node_name.as_ref())
        .is_none()
    {
        return RobotState::Unscheduled;
    }
    let phase = pod
        .status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or("Pending");
    // A crash-looping robot, one without its image and one whose module could not
    // be created (a missing ConfigMap or Secret) wait, whatever the phase says.
    if status.contains("BackOff")
        || status.starts_with("ErrImage")
        || status.starts_with("CreateContainer")
    {
        return RobotState::BackOff;
    }
    match phase {
        "Succeeded" => RobotState::Completed,
        "Failed" => RobotState::Failed,
        "Running" if crate::controllers::pod_is_ready(pod) => RobotState::Running,
        "Running" => RobotState::NotReady,
        _ => RobotState::Creating,
    }
}

pub(crate) fn pod_view(pod: &Pod) -> PodView {
    let status = crate::views::podstatus::status(pod);
    PodView {
        namespace: pod.metadata.namespace.clone().unwrap_or_default(),
        name: pod.metadata.name.clone().unwrap_or_default(),
        owner: pod
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|r| r.controller == Some(true))
            .map(|r| format!("{}/{}", r.kind, r.name)),
        state: robot_state(pod, &status),
        status,
        system: pod.metadata.namespace.as_deref() == Some("kube-system"),
        restarts: crate::views::podstatus::restarts(pod).max(0) as u32,
        ordinal: ordinal(pod),
        claims: pod
            .spec
            .iter()
            .flat_map(|s| s.volumes.iter().flatten())
            .filter_map(|v| Some(v.persistent_volume_claim.as_ref()?.claim_name.clone()))
            .collect(),
        attachments: attachments(pod),
    }
}

/// [`PodView::attachments`]: the native sidecars, then the containers after the
/// first, each with whether its status says ready.
fn attachments(pod: &Pod) -> Vec<bool> {
    let Some(spec) = &pod.spec else {
        return Vec::new();
    };
    let status = pod.status.as_ref();
    let ready = |statuses: Option<&Vec<k8s_openapi::api::core::v1::ContainerStatus>>,
                 name: &str| {
        statuses
            .into_iter()
            .flatten()
            .any(|c| c.name == name && c.ready)
    };
    let sidecars = spec
        .init_containers
        .iter()
        .flatten()
        .filter(|c| c.restart_policy.as_deref() == Some("Always"))
        .map(|c| {
            ready(
                status.and_then(|s| s.init_container_statuses.as_ref()),
                &c.name,
            )
        });
    let helpers = spec
        .containers
        .iter()
        .skip(1)
        .map(|c| ready(status.and_then(|s| s.container_statuses.as_ref()), &c.name));
    sidecars.chain(helpers).collect()
}

/// A StatefulSet pod's number: its `apps.kubernetes.io/pod-index` label, or, for a
/// pod a StatefulSet controls, the number after the name's last dash.
fn ordinal(pod: &Pod) -> Option<u32> {
    let labels = pod.metadata.labels.as_ref();
    if let Some(i) = labels
        .and_then(|l| l.get(crate::controllers::statefulset::POD_INDEX_LABEL))
        .and_then(|v| v.parse().ok())
    {
        return Some(i);
    }
    let owned = pod
        .metadata
        .owner_references
        .iter()
        .flatten()
        .any(|r| r.controller == Some(true) && r.kind == "StatefulSet");
    let name = pod.metadata.name.as_deref()?;
    owned
        .then(|| name.rsplit_once('-')?.1.parse().ok())
        .flatten()
}

/// A PersistentVolume's view and the node it is tied to.
pub(crate) fn volume_view(
    c: &Cluster,
    o: &crate::object::OtherObject,
) -> (Option<String>, VolumeView) {
    let v = crate::controllers::volume::Volume::of(o);
    let files = match (&v.node, crate::kubelet::disk::volume_dir(o)) {
        (Some(node), Some(dir)) => c.files_in_host_dir(node, &dir),
        _ => 0,
    };
    let capacity = o
        .fields
        .get("spec")
        .and_then(|s| s.get("capacity"))
        .and_then(|c| c.get("storage"))
        .and_then(|s| s.as_str())
        .unwrap_or("")
        .to_string();
    let view = VolumeView {
        name: v.name,
        claim: v.claim.map(|(ns, name, _)| {
            if ns.is_empty() {
                name
            } else {
                format!("{ns}/{name}")
            }
        }),
        capacity,
        access_modes: v.access_modes,
        class: v.class,
        reclaim_policy: v.reclaim_policy,
        phase: v.phase,
        terminating: o.metadata.deletion_timestamp.is_some(),
        files,
    };
    (v.node, view)
}

impl Cluster {
    /// A snapshot for drawing. Costs one pass over nodes and pods: call it once per
    /// frame, not per robot.
    pub fn view(&self) -> ClusterView {
        let nodes = self
            .store
            .list(Kind::Node, None)
            .filter_map(Object::as_node)
            .map(|n| self.node_view_of(n, true))
            .collect();
        let unscheduled = self.unscheduled_view();
        ClusterView {
            time_ms: self.now.0,
            components: self.components_view(),
            nodes,
            unscheduled,
            revision: self.store.revision(),
            requests: self.requests_view(),
        }
    }
}
