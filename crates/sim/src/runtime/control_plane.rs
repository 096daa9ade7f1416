//! The control plane as a kubeadm cluster runs it, and its components stopping and
//! starting.
//!
//! The kubelet of the (first) control-plane node runs four static pods —
//! kube-apiserver, etcd, kube-scheduler and kube-controller-manager — and posts a
//! mirror pod for each (`kubernetes.io/config.mirror`, owned by the Node), as
//! kubeadm's manifests in /etc/kubernetes/manifests make it do. At bootstrap kubeadm
//! also creates the CoreDNS Deployment (its pods come from the controllers like any
//! other) and kube-proxy's DaemonSet (the DaemonSet controller puts a pod on every
//! node).
//!
//! A component can be stopped (`sim stop scheduler`) and started again:
//! - kube-controller-manager stopped: its controllers' work queues keep their keys and
//!   nothing is reconciled; when it starts again it has forgotten everything it kept
//!   in memory and every controller relists.
//! - kube-scheduler stopped: pending pods stay Pending; on start it relists them.
//! - kube-apiserver stopped: every request is refused. Controllers, the scheduler
//!   and the kubelets cannot write; containers keep running; leases are not renewed,
//!   but the node lifecycle controller cannot write either.
//! - etcd stopped: the apiserver answers, but every read and write times out. With
//!   several etcd members (`etcd.rs`) that happens only when a majority is down.
//!
//! kube-controller-manager and kube-scheduler hold a leader-election lease. When they
//! cannot renew it for `--leader-elect-renew-deadline` (10 s) because the apiserver or
//! etcd is down, they exit ("leaderelection lost") and the kubelet restarts them: they
//! come back with empty memory and relist once the apiserver answers. That is why the
//! node lifecycle controller does not mark every node NotReady after an outage: its
//! per-node probe timestamps (`nodeHealthMap`) start again from the moment it sees
//! each node.

use crate::apiserver::Actor;
use crate::cluster::{Cluster, Component, Timer, WATCH_DELAY};
use crate::controllers::manager::Hold;
use crate::controllers::set_pod_condition;
use crate::error::{ApiError, SimError, StatusReason};
use crate::object::{from_manifest, Kind, Object, ObjectKey};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment};
use k8s_openapi::api::core::v1::{
    ContainerState, ContainerStateRunning, ContainerStateTerminated, ContainerStatus, HostIP, Pod,
    PodCondition, PodIP, PodStatus, ServiceAccount,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use std::collections::BTreeMap;
use std::fmt;

/// kube-controller-manager's and kube-scheduler's `--leader-elect-renew-deadline`.
pub const LEADER_ELECTION_RENEW_DEADLINE: SimDuration = SimDuration::secs(10);

/// The etcd image kubeadm pins for this Kubernetes version.
pub const ETCD_IMAGE: &str = "registry.k8s.io/etcd:3.6.9-0";
/// The CoreDNS image kubeadm pins for this Kubernetes version.
pub const COREDNS_IMAGE: &str = "registry.k8s.io/coredns/coredns:v1.13.1";
pub use crate::apiserver::priority::{SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL};

/// The message a client gets when nothing listens on the apiserver's port.
pub const CONNECTION_REFUSED: &str = "dial tcp 127.0.0.1:6443: connect: connection refused";
/// What the apiserver answers while etcd is down. Upstream's wording for an etcd
/// request that timed out (`rpctypes.ErrTimeout`); a stopped etcd can also surface as
/// a gRPC "Unavailable" error, which this simulation does not distinguish.
pub const ETCD_TIMEOUT: &str = "etcdserver: request timed out";

/// A control-plane component that can be stopped and started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ControlPlaneComponent {
    ApiServer,
    Etcd,
    Scheduler,
    ControllerManager,
}

impl ControlPlaneComponent {
    /// In the order kubeadm writes the manifests and the UI draws the strip.
    pub const ALL: [ControlPlaneComponent; 4] = [
        ControlPlaneComponent::ApiServer,
        ControlPlaneComponent::Etcd,
        ControlPlaneComponent::Scheduler,
        ControlPlaneComponent::ControllerManager,
    ];

    /// The Kubernetes name: `kube-apiserver`, `etcd`, `kube-scheduler`,
    /// `kube-controller-manager` (also the static pod's name prefix).
    pub fn name(self) -> &'static str {
        match self {
            ControlPlaneComponent::ApiServer => "kube-apiserver",
            ControlPlaneComponent::Etcd => "etcd",
            ControlPlaneComponent::Scheduler => "kube-scheduler",
            ControlPlaneComponent::ControllerManager => "kube-controller-manager",
        }
    }

    /// The short name scripts use: `apiserver`, `etcd`, `scheduler`,
    /// `controller-manager`.
    pub fn short_name(self) -> &'static str {
        match self {
            ControlPlaneComponent::ApiServer => "apiserver",
            ControlPlaneComponent::Etcd => "etcd",
            ControlPlaneComponent::Scheduler => "scheduler",
            ControlPlaneComponent::ControllerManager => "controller-manager",
        }
    }

    /// Reads a short or a full name.
    pub fn parse(s: &str) -> Option<ControlPlaneComponent> {
        Self::ALL
            .into_iter()
            .find(|c| c.short_name() == s || c.name() == s)
    }

    fn index(self) -> usize {
        self as usize
    }

    fn image(self) -> String {
        match self {
            ControlPlaneComponent::Etcd => ETCD_IMAGE.to_string(),
            c => format!("registry.k8s.io/{}:{}", c.name(), crate::KUBERNETES_VERSION),
        }
    }
}

impl fmt::Display for ControlPlaneComponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A request that never reached the apiserver: nothing listens on its port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionRefused;

impl fmt::Display for ConnectionRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(CONNECTION_REFUSED)
    }
}

impl std::error::Error for ConnectionRefused {}

/// The reasons a component's container can end with (see [`Exit`]).
pub(crate) const EXIT_REASONS: [&str; 3] = ["Completed", "Unknown", "Error"];

/// How a component's container ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Exit {
    container_id: String,
    started: SimTime,
    finished: SimTime,
    exit_code: i32,
    #[serde(with = "crate::snapshot::exit_reason")]
    reason: crate::snapshot::StaticStr,
}

/// One component's process, as the kubelet on the control-plane node sees it.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct ComponentState {
    /// Stopped with `sim stop`; stays down until `sim start`.
    stopped: bool,
    /// The process is up (not stopped, and its node is powered on).
    running: bool,
    started_at: SimTime,
    /// The current (or, while down, the last) container; empty until first reported.
    container_id: String,
    restarts: i32,
    /// The latest exit, and the one before it (`state` and `lastState` while down).
    exits: (Option<Exit>, Option<Exit>),
}

/// What the node lifecycle controller remembers of one node (upstream
/// `nodeHealthData`): when it last saw the node's Lease or Ready heartbeat change, by
/// its own clock.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct NodeHealth {
    pub probe_timestamp: SimTime,
    pub observed_renew: Option<SimTime>,
    pub observed_heartbeat: Option<SimTime>,
}

/// The control plane's processes and what kube-controller-manager keeps in memory.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct ControlPlane {
    components: [ComponentState; 4],
    /// The node whose kubelet runs the static pods. A topology without a
    /// control-plane node runs the components off the cluster (as managed
    /// Kubernetes does): no mirror pods, and no node can take them down.
    pub host: Option<String>,
    /// When the apiserver stopped accepting writes (itself or etcd down).
    outage_since: Option<SimTime>,
    /// Timers whose work needs the apiserver, held while it cannot be reached.
    deferred: Vec<Timer>,
    /// kube-controller-manager's node lifecycle controller: `nodeHealthMap`.
    pub node_health: BTreeMap<String, NodeHealth>,
    /// The same controller's zones, tainting queues and log.
    pub node_lifecycle: crate::controllers::node_lifecycle::NodeLifecycle,
}

impl Default for ControlPlane {
    fn default() -> Self {
        let up = ComponentState {
            running: true,
            ..Default::default()
        };
        ControlPlane {
            components: [up.clone(), up.clone(), up.clone(), up],
            host: None,
            outage_since: None,
            deferred: Vec::new(),
            node_health: BTreeMap::new(),
            node_lifecycle: Default::default(),
        }
    }
}

impl ControlPlane {
    /// As a snapshot restores it (the node lifecycle controller's memo left out).
    pub(crate) fn copy_as_restored(&self) -> ControlPlane {
        ControlPlane {
            components: self.components.clone(),
            host: self.host.clone(),
            outage_since: self.outage_since,
            deferred: self.deferred.clone(),
            node_health: self.node_health.clone(),
            node_lifecycle: self.node_lifecycle.copy_as_restored(),
        }
    }

    fn state(&self, c: ControlPlaneComponent) -> &ComponentState {
        &self.components[c.index()]
    }
    fn state_mut(&mut self, c: ControlPlaneComponent) -> &mut ComponentState {
        &mut self.components[c.index()]
    }
}

/// The most timers held back during one outage; one per pod and node is plenty.
const MAX_DEFERRED: usize = 1_000_000;

impl Cluster {
    // ----- what clients and components can reach -----

    /// Whether the component's process is up.
    pub fn component_running(&self, c: ControlPlaneComponent) -> bool {
        self.control_plane.state(c).running
    }

    /// Whether the component was stopped on purpose (`sim stop`).
    pub fn component_stopped(&self, c: ControlPlaneComponent) -> bool {
        self.control_plane.state(c).stopped
    }

    /// A client connecting to the apiserver: refused while kube-apiserver is down.
    pub fn connect(&self) -> Result<(), ConnectionRefused> {
        if self.component_running(ControlPlaneComponent::ApiServer) {
            Ok(())
        } else {
            Err(ConnectionRefused)
        }
    }

    /// Whether the apiserver can reach an etcd that has a quorum; writes and
    /// linearizable reads time out while it cannot.
    pub fn check_storage(&self) -> Result<(), ApiError> {
        if self.etcd_has_quorum() {
            Ok(())
        } else {
            Err(ApiError::new(StatusReason::Unknown, ETCD_TIMEOUT))
        }
    }

    /// Whether writes go through: the apiserver is up and etcd behind it.
    pub(crate) fn api_writable(&self) -> bool {
        self.connect().is_ok() && self.check_storage().is_ok()
    }

    /// The connection step of every request from inside the cluster. A refused
    /// request never reaches the apiserver, so it is not recorded.
    pub(crate) fn connect_as(&self) -> Result<(), ApiError> {
        self.connect()
            .map_err(|e| ApiError::new(StatusReason::ServiceUnavailable, e.to_string()))
    }

    /// Whether a component can do its work now: its process runs and the apiserver
    /// accepts writes. A component that cannot keeps its queue for later.
    pub(crate) fn can_work(&self, component: &Component) -> bool {
        let process = match component {
            Component::Scheduler => self.component_running(ControlPlaneComponent::Scheduler),
            Component::Kubelet(node) => self.kubelet_reachable(node),
            Component::Controller(_) => {
                self.component_running(ControlPlaneComponent::ControllerManager)
            }
        };
        process && self.api_writable()
    }

    /// Whether the controller manager runs and can write.
    pub(crate) fn controller_manager_active(&self) -> bool {
        self.can_work(&crate::controllers::node_lifecycle::ID.component())
    }

    /// Holds back a timer whose work needs the apiserver while it cannot be reached;
    /// the timer fires again when it can. Returns the timer if it may fire now.
    pub(crate) fn hold_until_reachable(&mut self, timer: Timer) -> Option<Timer> {
        let needs = match &timer {
            Timer::Tick { id, tick } => match id.controller().hold(self, tick) {
                Hold::Fire => false,
                Hold::Defer => true,
                Hold::Drop => return None,
            },
            other => other.held(self),
        };
        if !needs {
            return Some(timer);
        }
        debug_assert!(self.control_plane.deferred.len() < MAX_DEFERRED);
        if self.control_plane.deferred.len() < MAX_DEFERRED {
            self.control_plane.deferred.push(timer);
        }
        None
    }

    // ----- stopping and starting -----

    /// Stops a component (`sim stop scheduler`). Returns a one-line description.
    pub fn stop(&mut self, c: ControlPlaneComponent) -> Result<String, SimError> {
        if self.control_plane.state(c).stopped {
            return Err(SimError(format!("{c} is already stopped")));
        }
        let was_writable = self.api_writable();
        self.control_plane.state_mut(c).stopped = true;
        if self.control_plane.state(c).running {
            self.process_exit(c, 0, "Completed");
        }
        self.forget_memory(c);
        self.after_transition(was_writable);
        self.sync_static_pod(c);
        Ok(format!("{c} stopped"))
    }

    /// Starts a stopped component again (`sim start scheduler`).
    pub fn start(&mut self, c: ControlPlaneComponent) -> Result<String, SimError> {
        if !self.control_plane.state(c).stopped {
            return Err(SimError(format!("{c} is already running")));
        }
        let was_writable = self.api_writable();
        self.control_plane.state_mut(c).stopped = false;
        if !self.host_powered() {
            let host = self.control_plane.host.clone().unwrap_or_default();
            return Ok(format!(
                "{c} will start when node \"{host}\" is restarted: it is powered off"
            ));
        }
        self.process_start(c);
        self.relist(c);
        self.after_transition(was_writable);
        self.wake_waiting_queues();
        self.sync_static_pod(c);
        Ok(format!("{c} started"))
    }

    pub(crate) fn host_powered(&self) -> bool {
        match &self.control_plane.host {
            Some(h) => self.kubelets.get(h).is_some_and(|k| k.running),
            None => true,
        }
    }

    /// The control-plane node lost power: every component dies with it. The kubelet
    /// later reports such containers as exited with code 255, reason Unknown.
    pub(crate) fn control_plane_node_down(&mut self, node: &str) {
        if self.control_plane.host.as_deref() != Some(node) {
            return;
        }
        let was_writable = self.api_writable();
        for c in ControlPlaneComponent::ALL {
            if self.control_plane.state(c).running {
                self.process_exit(c, 255, "Unknown");
                self.forget_memory(c);
            }
        }
        self.etcd_host_down();
        self.after_transition(was_writable);
    }

    /// The control-plane node is back: its kubelet starts the static pods again
    /// (those not stopped on purpose).
    pub(crate) fn control_plane_node_up(&mut self, node: &str) {
        if self.control_plane.host.as_deref() != Some(node) {
            return;
        }
        let was_writable = self.api_writable();
        for c in ControlPlaneComponent::ALL {
            let st = self.control_plane.state(c);
            if !st.stopped && !st.running {
                self.process_start(c);
                self.relist(c);
            }
        }
        self.etcd_host_up();
        self.after_transition(was_writable);
        self.wake_waiting_queues();
    }

    pub(crate) fn process_exit(
        &mut self,
        c: ControlPlaneComponent,
        exit_code: i32,
        reason: &'static str,
    ) {
        debug_assert!(
            EXIT_REASONS.contains(&reason),
            "unknown exit reason {reason}"
        );
        let now = self.now;
        let st = self.control_plane.state_mut(c);
        debug_assert!(st.running);
        let exit = Exit {
            container_id: st.container_id.clone(),
            started: st.started_at,
            finished: now,
            exit_code,
            reason,
        };
        st.exits = (Some(exit), st.exits.0.take());
        st.running = false;
    }

    pub(crate) fn process_start(&mut self, c: ControlPlaneComponent) {
        let id = self.container_id();
        let now = self.now;
        let st = self.control_plane.state_mut(c);
        debug_assert!(!st.running);
        st.running = true;
        st.started_at = now;
        st.container_id = id;
        st.restarts += 1;
    }

    /// What a restarted process no longer knows: everything it kept in memory.
    fn forget_memory(&mut self, c: ControlPlaneComponent) {
        match c {
            ControlPlaneComponent::ControllerManager => {
                self.control_plane.node_health.clear();
                self.control_plane.node_lifecycle.forget();
                self.controllers.evictions.clear();
                self.controllers.job_backoff.clear();
            }
            ControlPlaneComponent::Scheduler => self.scheduler.forget_unschedulable(),
            // The apiserver's post-start hooks: bootstrap RBAC, and the `kubernetes`
            // Service controller's first reconcile.
            ControlPlaneComponent::ApiServer => {
                self.schedule(self.now, crate::apiserver::ApiserverTimer::RbacBootstrap);
                self.arm_kubernetes_service(self.now);
            }
            ControlPlaneComponent::Etcd => {}
        }
    }

    /// A (re)started controller manager or scheduler lists what it watches and
    /// queues every object, as its informers' initial list does. The queues are
    /// worked once the apiserver accepts writes.
    pub(crate) fn relist(&mut self, c: ControlPlaneComponent) {
        match c {
            ControlPlaneComponent::ControllerManager => self.controllers_relist(),
            ControlPlaneComponent::Scheduler => {
                self.scheduler.forget_unschedulable();
                let pending: Vec<ObjectKey> = self
                    .store
                    .list(Kind::Pod, None)
                    .filter_map(Object::as_pod)
                    .filter(|p| {
                        p.metadata.deletion_timestamp.is_none()
                            && p.spec.as_ref().and_then(|s| s.node_name.as_ref()).is_none()
                    })
                    .map(|p| Object::Pod(Box::new(p.clone())).key())
                    .collect();
                for k in pending {
                    self.enqueue(Component::Scheduler, k);
                }
            }
            ControlPlaneComponent::ApiServer | ControlPlaneComponent::Etcd => {}
        }
    }

    /// Marks a component stopped on purpose, or not (an etcd restore starts every
    /// member, stopped ones too).
    pub(crate) fn control_plane_set_stopped(&mut self, c: ControlPlaneComponent, stopped: bool) {
        self.control_plane.state_mut(c).stopped = stopped;
    }

    /// The timers held back until the apiserver can be reached.
    pub(crate) fn control_plane_deferred(&self) -> &[Timer] {
        &self.control_plane.deferred
    }

    /// Starts or ends an outage when the apiserver's ability to write changed, after
    /// etcd's members have elected a leader (or lost it).
    pub(crate) fn after_transition(&mut self, was_writable: bool) {
        self.etcd_elect();
        let writable = self.api_writable();
        if was_writable && !writable {
            self.control_plane.outage_since = Some(self.now);
            self.schedule(
                self.now + LEADER_ELECTION_RENEW_DEADLINE,
                ControlPlaneTimer::LeaderElection { since: self.now },
            );
        } else if !was_writable && writable {
            self.control_plane.outage_since = None;
            self.reconnected();
        }
    }

    /// The renew deadline passed during an outage: kube-controller-manager and
    /// kube-scheduler lose their leases, exit with "leaderelection lost", and the
    /// kubelet restarts them at once. The new processes wait for the apiserver.
    pub(crate) fn leader_election_deadline(&mut self, since: SimTime) {
        if self.control_plane.outage_since != Some(since) {
            return; // the outage this deadline belonged to is over
        }
        for c in [
            ControlPlaneComponent::ControllerManager,
            ControlPlaneComponent::Scheduler,
        ] {
            if self.control_plane.state(c).running {
                self.process_exit(c, 1, "Error");
                self.forget_memory(c);
                self.process_start(c);
                self.relist(c);
            }
        }
    }

    /// The apiserver accepts writes again: held timers fire, queues kept during the
    /// outage are worked, and the control-plane kubelet reports its static pods.
    fn reconnected(&mut self) {
        for timer in std::mem::take(&mut self.control_plane.deferred) {
            self.schedule(self.now, timer);
        }
        self.wake_waiting_queues();
        for c in ControlPlaneComponent::ALL {
            self.sync_static_pod(c);
        }
    }

    /// Schedules a wake for every queue that still holds keys.
    fn wake_waiting_queues(&mut self) {
        let waiting: Vec<Component> = self
            .queues
            .iter()
            .filter(|(_, q)| !q.keys.is_empty() && !q.wake_scheduled)
            .map(|(c, _)| c.clone())
            .collect();
        for c in waiting {
            if let Some(q) = self.queues.get_mut(&c) {
                q.wake_scheduled = true;
            }
            self.schedule(self.now + WATCH_DELAY, Timer::Wake(c));
        }
    }

    /// A wake that found its component unable to work: the keys stay queued, and
    /// `start` or the apiserver's return wakes the component again.
    pub(crate) fn park_queue(&mut self, component: &Component) {
        if let Some(q) = self.queues.get_mut(component) {
            q.wake_scheduled = false;
        }
    }

    // ----- static pods, kube-proxy and CoreDNS -----

    /// Makes `node` the control-plane host: its kubelet runs the static pods (their
    /// images are on its disk: `kubeadm init` pulls them first) and posts mirror pods.
    pub(crate) fn host_control_plane(&mut self, node: &str) {
        if self.control_plane.host.is_some() {
            return; // one control plane; further control-plane nodes only host pods
        }
        self.control_plane.host = Some(node.to_string());
        if let Some(k) = self.kubelets.get_mut(node) {
            for c in ControlPlaneComponent::ALL {
                k.images.insert(c.image());
            }
        }
        for c in ControlPlaneComponent::ALL {
            self.create_mirror_pod(c);
        }
    }

    fn host_ip(&self, node: &str) -> String {
        self.store
            .get(&ObjectKey::new(Kind::Node, "", node))
            .and_then(|o| o.as_node())
            .and_then(|n| {
                n.status
                    .as_ref()?
                    .addresses
                    .as_ref()?
                    .iter()
                    .find(|a| a.type_ == "InternalIP")
                    .map(|a| a.address.clone())
            })
            .unwrap_or_default()
    }

    /// The static pod of `c`, if this simulation hosts its control plane on a node.
    fn mirror_pod_key(&self, c: ControlPlaneComponent) -> Option<ObjectKey> {
        let host = self.control_plane.host.as_ref()?;
        Some(ObjectKey::new(
            Kind::Pod,
            "kube-system",
            &format!("{}-{host}", c.name()),
        ))
    }

    /// A static pod's container log: kube-controller-manager's holds the node
    /// lifecycle controller's lines written while that container ran (the other
    /// components' logs are not modelled and are empty).
    pub(crate) fn static_pod_log(
        &self,
        c: ControlPlaneComponent,
        previous: bool,
    ) -> Vec<crate::kubelet::containers::LogLine> {
        if c != ControlPlaneComponent::ControllerManager {
            return Vec::new();
        }
        let st = self.control_plane.state(c);
        let window = match (st.running, previous) {
            (true, false) => Some((st.started_at, self.now)),
            (true, true) | (false, false) => st.exits.0.as_ref().map(|e| (e.started, e.finished)),
            (false, true) => st.exits.1.as_ref().map(|e| (e.started, e.finished)),
        };
        match window {
            Some((from, to)) => self.control_plane.node_lifecycle.log_between(from, to),
            None => Vec::new(),
        }
    }

    /// The component whose static pod `key` names on `node`.
    pub(crate) fn static_pod_on(
        &self,
        node: &str,
        key: &ObjectKey,
    ) -> Option<ControlPlaneComponent> {
        if self.control_plane.host.as_deref() != Some(node) {
            return None;
        }
        ControlPlaneComponent::ALL
            .into_iter()
            .find(|c| self.mirror_pod_key(*c).as_ref() == Some(key))
    }

    /// Creates the mirror pod of a static pod, as the kubelet does when it starts the
    /// pod and whenever the mirror pod is deleted.
    pub(crate) fn create_mirror_pod(&mut self, c: ControlPlaneComponent) {
        let Some(host) = self.control_plane.host.clone() else {
            return;
        };
        let Some(node_uid) = self
            .store
            .get(&ObjectKey::new(Kind::Node, "", &host))
            .and_then(|n| n.meta().uid.clone())
        else {
            return;
        };
        let ip = self.host_ip(&host);
        let manifest = static_pod_manifest(c, &host, &ip, self.etcd_member_count());
        let mut pod: Pod = from_manifest(&manifest).expect("static pod manifests parse");
        let hash = config_hash(&manifest);
        let seen = config_seen(self.now, c.name());
        let meta = &mut pod.metadata;
        meta.name = Some(format!("{}-{host}", c.name()));
        let annotations = meta.annotations.get_or_insert_with(Default::default);
        annotations.insert("kubernetes.io/config.hash".into(), hash.clone());
        annotations.insert("kubernetes.io/config.mirror".into(), hash);
        annotations.insert("kubernetes.io/config.seen".into(), seen);
        annotations.insert("kubernetes.io/config.source".into(), "file".into());
        meta.owner_references = Some(vec![OwnerReference {
            api_version: "v1".into(),
            kind: "Node".into(),
            name: host.clone(),
            uid: node_uid,
            controller: Some(true),
            block_owner_deletion: None,
        }]);
        pod.spec.get_or_insert_with(Default::default).node_name = Some(host.clone());
        let _ = self.create_as(Actor::Kubelet(host), Object::Pod(Box::new(pod)));
    }

    /// Asks the control-plane kubelet to report a static pod's state.
    pub(crate) fn sync_static_pod(&mut self, c: ControlPlaneComponent) {
        let (Some(host), Some(key)) = (self.control_plane.host.clone(), self.mirror_pod_key(c))
        else {
            return;
        };
        if self.kubelets.get(&host).is_some_and(|k| k.running) {
            self.enqueue(Component::Kubelet(host), key);
        }
    }

    /// The kubelet's sync of a mirror pod: write the static pod's status if it
    /// changed. A deleted mirror pod is removed at once (the static pod keeps
    /// running) and posted again.
    pub(crate) fn kubelet_sync_mirror_pod(
        &mut self,
        node: &str,
        c: ControlPlaneComponent,
        key: &ObjectKey,
        pod: Pod,
    ) {
        if pod.metadata.deletion_timestamp.is_some() {
            let _ = self.delete_as(Actor::Kubelet(node.to_string()), key, Some(0));
            return;
        }
        if self.control_plane.state(c).container_id.is_empty() {
            let id = self.container_id();
            self.control_plane.state_mut(c).container_id = id;
        }
        let desired = self.mirror_pod_status(c, node, &pod);
        if pod.status.as_ref() == Some(&desired) {
            return;
        }
        let mut updated = pod;
        updated.status = Some(desired);
        let _ = self.update_as(
            Actor::Kubelet(node.to_string()),
            Object::Pod(Box::new(updated)),
        );
    }

    fn mirror_pod_status(&self, c: ControlPlaneComponent, node: &str, pod: &Pod) -> PodStatus {
        let st = self.control_plane.state(c);
        let ip = self.host_ip(node);
        let now = self.now.to_k8s();
        let mut pod = pod.clone();
        let image = c.image();
        let container_id = |id: &str| format!("containerd://{id}");
        let terminated = |e: &Exit| ContainerState {
            terminated: Some(ContainerStateTerminated {
                container_id: Some(container_id(&e.container_id)),
                exit_code: e.exit_code,
                reason: Some(e.reason.to_string()),
                started_at: Some(e.started.to_k8s()),
                finished_at: Some(e.finished.to_k8s()),
                ..Default::default()
            }),
            ..Default::default()
        };
        let (state, last) = if st.running {
            let running = ContainerState {
                running: Some(ContainerStateRunning {
                    started_at: Some(st.started_at.to_k8s()),
                }),
                ..Default::default()
            };
            (running, st.exits.0.as_ref())
        } else {
            let latest = st.exits.0.as_ref().expect("a stopped component has exited");
            (terminated(latest), st.exits.1.as_ref())
        };
        {
            let status = pod.status.get_or_insert_with(Default::default);
            status.phase = Some("Running".into());
            status.host_ip = Some(ip.clone());
            status.host_ips = Some(vec![HostIP { ip: ip.clone() }]);
            status.pod_ip = Some(ip.clone());
            status.pod_ips = Some(vec![PodIP { ip }]);
            if status.start_time.is_none() {
                status.start_time = Some(now.clone());
            }
            status.container_statuses = Some(vec![ContainerStatus {
                name: c.name().to_string(),
                image: image.clone(),
                image_id: image_id(&image),
                container_id: Some(container_id(&st.container_id)),
                ready: st.running,
                started: Some(st.running),
                restart_count: st.restarts,
                state: Some(state),
                last_state: Some(last.map(terminated).unwrap_or_default()),
                ..Default::default()
            }]);
        }
        for (type_, ok) in [
            ("PodReadyToStartContainers", true),
            ("Initialized", true),
            ("Ready", st.running),
            ("ContainersReady", st.running),
            ("PodScheduled", true),
        ] {
            let reason = (!ok).then(|| "ContainersNotReady".to_string());
            set_pod_condition(
                &mut pod,
                PodCondition {
                    type_: type_.into(),
                    status: if ok { "True" } else { "False" }.into(),
                    message: reason
                        .as_ref()
                        .map(|_| format!("containers with unready status: [{}]", c.name())),
                    reason,
                    last_transition_time: Some(now.clone()),
                    ..Default::default()
                },
            );
        }
        pod.status.unwrap_or_default()
    }

    fn container_id(&mut self) -> String {
        format!(
            "{:016x}{:016x}{:016x}{:016x}",
            self.rng.next_u64(),
            self.rng.next_u64(),
            self.rng.next_u64(),
            self.rng.next_u64()
        )
    }

    /// A ServiceAccount kubeadm creates in kube-system for an add-on.
    fn create_system_service_account(&mut self, name: &str) {
        let sa = ServiceAccount {
            metadata: ObjectMeta {
                name: Some(name.to_string()),
                namespace: Some("kube-system".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let _ = self.create_as(Actor::System, Object::ServiceAccount(Box::new(sa)));
    }

    /// The add-ons `kubeadm init` installs through the apiserver: the CoreDNS
    /// Deployment and the kube-proxy DaemonSet (their pods come from the
    /// controllers).
    pub(crate) fn bootstrap_addons(&mut self) {
        self.bootstrap_services();
        self.create_system_service_account("coredns");
        let d: Deployment = from_manifest(COREDNS_DEPLOYMENT).expect("the CoreDNS manifest parses");
        let _ = self.create_as(Actor::System, Object::Deployment(Box::new(d)));
        self.create_system_service_account("kube-proxy");
        let ds: DaemonSet =
            from_manifest(&kube_proxy_daemon_set()).expect("the kube-proxy manifest parses");
        let _ = self.create_as(Actor::System, Object::DaemonSet(Box::new(ds)));
        // kind's default StorageClass, served by the local-path provisioner.
        let mut class = crate::decode_manifests(DEFAULT_STORAGE_CLASS)
            .expect("the StorageClass manifest parses")
            .remove(0);
        class.meta_mut().uid =
            Some(crate::names::SimRng::new(u64::from(crate::names::fnv32a(b"standard"))).uid());
        let _ = self.create_as(Actor::System, class);
    }
}

/// The StorageClass kind installs as the default (`standard`): volumes made by the
/// local-path provisioner on the node of the claim's first pod. kind creates it with
/// `kubectl apply`, so it carries the last-applied configuration.
const DEFAULT_STORAGE_CLASS: &str = "apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{\"annotations\":{\"storageclass.kubernetes.io/is-default-class\":\"true\"},\"name\":\"standard\"},\"provisioner\":\"rancher.io/local-path\",\"reclaimPolicy\":\"Delete\",\"volumeBindingMode\":\"WaitForFirstConsumer\"}
    storageclass.kubernetes.io/is-default-class: \"true\"
provisioner: rancher.io/local-path
reclaimPolicy: Delete
volumeBindingMode: WaitForFirstConsumer
";

/// Whether a pod is a mirror pod (a static pod as the apiserver sees it).
pub fn is_mirror_pod(pod: &Pod) -> bool {
    pod.metadata
        .annotations
        .as_ref()
        .is_some_and(|a| a.contains_key("kubernetes.io/config.mirror"))
}

/// An image digest as containerd reports it, stable per image.
fn image_id(image: &str) -> String {
    let repo = crate::kubelet::images::repository(image);
    format!(
        "{repo}@sha256:{:064x}",
        crate::names::fnv32a(image.as_bytes()) as u128 * 0x9e37_79b9_7f4a_7c15
    )
}

/// `kubernetes.io/config.hash`: 32 hex digits from the manifest (upstream: an MD5 of
/// the pod).
fn config_hash(manifest: &str) -> String {
    (0..4u8)
        .map(|i| {
            let mut bytes = manifest.as_bytes().to_vec();
            bytes.push(i);
            format!("{:08x}", crate::names::fnv32a(&bytes))
        })
        .collect()
}

/// `kubernetes.io/config.seen`: when the kubelet read the manifest, with the
/// nanoseconds a real kubelet records.
fn config_seen(now: SimTime, name: &str) -> String {
    let secs = now.to_k8s().0.as_second();
    let whole = k8s_openapi::jiff::Timestamp::from_second(secs)
        .expect("simulated time stays in range")
        .to_string();
    let nanos =
        (now.0 % 1000) as u32 * 1_000_000 + crate::names::fnv32a(name.as_bytes()) % 1_000_000;
    format!("{}.{nanos:09}Z", whole.trim_end_matches('Z'))
}

/// The static pod manifests `kubeadm init` writes (trimmed of host-path volumes).
/// With several etcd members the apiserver lists them all and the static pod is
/// member `etcd-0` of the cluster (see `etcd.rs`).
fn static_pod_manifest(
    c: ControlPlaneComponent,
    node: &str,
    ip: &str,
    etcd_members: usize,
) -> String {
    use crate::etcd::{client_port, member_name, peer_port};
    let image = c.image();
    let (etcd_servers, etcd_name, initial_cluster) = if etcd_members <= 1 {
        (
            "https://127.0.0.1:2379".to_string(),
            node.to_string(),
            format!("{node}=https://{ip}:2380"),
        )
    } else {
        let servers: Vec<String> = (0..etcd_members)
            .map(|i| format!("https://127.0.0.1:{}", client_port(i)))
            .collect();
        let peers: Vec<String> = (0..etcd_members)
            .map(|i| format!("{}=https://{ip}:{}", member_name(i), peer_port(i)))
            .collect();
        (servers.join(","), member_name(0), peers.join(","))
    };
    let body = match c {
        ControlPlaneComponent::ApiServer => apiserver_spec(ip, &image, &etcd_servers),
        ControlPlaneComponent::Etcd => etcd_spec(ip, &image, &etcd_name, &initial_cluster),
        ControlPlaneComponent::Scheduler => scheduler_spec(&image),
        ControlPlaneComponent::ControllerManager => controller_manager_spec(&image),
    };
    static_pod(c, &body)
}

/// What every control-plane static pod has around its own `body` (annotations and
/// spec): its labels, host network, priority and tolerations.
fn static_pod(c: ControlPlaneComponent, body: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  namespace: kube-system
  labels:
    component: {name}
    tier: control-plane
{body}  hostNetwork: true
  priority: {SYSTEM_NODE_CRITICAL}
  priorityClassName: system-node-critical
  securityContext:
    seccompProfile:
      type: RuntimeDefault
  tolerations:
  - effect: NoExecute
    operator: Exists
",
        name = c.name()
    )
}

/// A probe of a control-plane container, as kubeadm writes it.
fn probe(path: &str, host: &str, scheme: &str, threshold: u32, period: u32, delay: bool) -> String {
    let delay = if delay {
        "        initialDelaySeconds: 10\n"
    } else {
        ""
    };
    format!(
        "        failureThreshold: {threshold}
        httpGet:
          host: {host}
          path: {path}
          port: probe-port
          scheme: {scheme}
{delay}        periodSeconds: {period}
        timeoutSeconds: 15
"
    )
}

/// kube-apiserver's pod: metadata annotations and spec, below `static_pod`'s header.
fn apiserver_spec(ip: &str, image: &str, etcd_servers: &str) -> String {
    format!(
        "  annotations:
    kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint: {ip}:6443
spec:
  containers:
  - name: kube-apiserver
    image: {image}
    imagePullPolicy: IfNotPresent
    command:
    - kube-apiserver
    - --advertise-address={ip}
    - --allow-privileged=true
    - --authorization-mode=Node,RBAC
    - --client-ca-file=/etc/kubernetes/pki/ca.crt
    - --enable-admission-plugins=NodeRestriction
    - --enable-bootstrap-token-auth=true
    - --etcd-cafile=/etc/kubernetes/pki/etcd/ca.crt
    - --etcd-certfile=/etc/kubernetes/pki/apiserver-etcd-client.crt
    - --etcd-keyfile=/etc/kubernetes/pki/apiserver-etcd-client.key
    - --etcd-servers={etcd_servers}
    - --kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname
    - --secure-port=6443
    - --service-account-issuer=https://kubernetes.default.svc.cluster.local
    - --service-account-key-file=/etc/kubernetes/pki/sa.pub
    - --service-account-signing-key-file=/etc/kubernetes/pki/sa.key
    - --service-cluster-ip-range=10.96.0.0/12
    - --tls-cert-file=/etc/kubernetes/pki/apiserver.crt
    - --tls-private-key-file=/etc/kubernetes/pki/apiserver.key
    ports:
    - containerPort: 6443
      name: probe-port
      protocol: TCP
    livenessProbe:
{live}    readinessProbe:
{ready}    startupProbe:
{startup}    resources:
      requests:
        cpu: 250m
",
        live = probe("/livez", ip, "HTTPS", 8, 10, true),
        ready = probe("/readyz", ip, "HTTPS", 3, 1, false),
        startup = probe("/livez", ip, "HTTPS", 24, 10, true),
    )
}

/// etcd's pod: metadata annotations and spec, below `static_pod`'s header.
fn etcd_spec(ip: &str, image: &str, etcd_name: &str, initial_cluster: &str) -> String {
    format!(
        "  annotations:
    kubeadm.kubernetes.io/etcd.advertise-client-urls: https://{ip}:2379
spec:
  containers:
  - name: etcd
    image: {image}
    imagePullPolicy: IfNotPresent
    command:
    - etcd
    - --advertise-client-urls=https://{ip}:2379
    - --cert-file=/etc/kubernetes/pki/etcd/server.crt
    - --client-cert-auth=true
    - --data-dir=/var/lib/etcd
    - --initial-advertise-peer-urls=https://{ip}:2380
    - --initial-cluster={initial_cluster}
    - --key-file=/etc/kubernetes/pki/etcd/server.key
    - --listen-client-urls=https://127.0.0.1:2379,https://{ip}:2379
    - --listen-metrics-urls=http://127.0.0.1:2381
    - --listen-peer-urls=https://{ip}:2380
    - --name={etcd_name}
    - --peer-cert-file=/etc/kubernetes/pki/etcd/peer.crt
    - --peer-client-cert-auth=true
    - --peer-key-file=/etc/kubernetes/pki/etcd/peer.key
    - --peer-trusted-ca-file=/etc/kubernetes/pki/etcd/ca.crt
    - --snapshot-count=10000
    - --trusted-ca-file=/etc/kubernetes/pki/etcd/ca.crt
    ports:
    - containerPort: 2381
      name: probe-port
      protocol: TCP
    livenessProbe:
{live}    readinessProbe:
{ready}    startupProbe:
{startup}    resources:
      requests:
        cpu: 100m
        memory: 100Mi
",
        live = probe("/livez", "127.0.0.1", "HTTP", 8, 10, true),
        ready = probe("/readyz", "127.0.0.1", "HTTP", 3, 1, false),
        startup = probe("/readyz", "127.0.0.1", "HTTP", 24, 10, true),
    )
}

/// kube-scheduler's pod spec, below `static_pod`'s header.
fn scheduler_spec(image: &str) -> String {
    format!(
        "spec:
  containers:
  - name: kube-scheduler
    image: {image}
    imagePullPolicy: IfNotPresent
    command:
    - kube-scheduler
    - --authentication-kubeconfig=/etc/kubernetes/scheduler.conf
    - --authorization-kubeconfig=/etc/kubernetes/scheduler.conf
    - --bind-address=127.0.0.1
    - --kubeconfig=/etc/kubernetes/scheduler.conf
    - --leader-elect=true
    ports:
    - containerPort: 10259
      name: probe-port
      protocol: TCP
    livenessProbe:
{live}    readinessProbe:
{ready}    startupProbe:
{startup}    resources:
      requests:
        cpu: 100m
",
        live = probe("/livez", "127.0.0.1", "HTTPS", 8, 10, true),
        ready = probe("/readyz", "127.0.0.1", "HTTPS", 3, 1, false),
        startup = probe("/livez", "127.0.0.1", "HTTPS", 24, 10, true),
    )
}

/// kube-controller-manager's pod spec, below `static_pod`'s header.
fn controller_manager_spec(image: &str) -> String {
    format!(
        "spec:
  containers:
  - name: kube-controller-manager
    image: {image}
    imagePullPolicy: IfNotPresent
    command:
    - kube-controller-manager
    - --allocate-node-cidrs=true
    - --authentication-kubeconfig=/etc/kubernetes/controller-manager.conf
    - --authorization-kubeconfig=/etc/kubernetes/controller-manager.conf
    - --bind-address=127.0.0.1
    - --client-ca-file=/etc/kubernetes/pki/ca.crt
    - --cluster-cidr=10.244.0.0/16
    - --cluster-name=kubernetes
    - --cluster-signing-cert-file=/etc/kubernetes/pki/ca.crt
    - --cluster-signing-key-file=/etc/kubernetes/pki/ca.key
    - --controllers=*,bootstrapsigner,tokencleaner
    - --kubeconfig=/etc/kubernetes/controller-manager.conf
    - --leader-elect=true
    - --root-ca-file=/etc/kubernetes/pki/ca.crt
    - --service-account-private-key-file=/etc/kubernetes/pki/sa.key
    - --service-cluster-ip-range=10.96.0.0/12
    - --use-service-account-credentials=true
    ports:
    - containerPort: 10257
      name: probe-port
      protocol: TCP
    livenessProbe:
{live}    startupProbe:
{startup}    resources:
      requests:
        cpu: 200m
",
        live = probe("/healthz", "127.0.0.1", "HTTPS", 8, 10, true),
        startup = probe("/healthz", "127.0.0.1", "HTTPS", 24, 10, true),
    )
}

/// kubeadm's kube-proxy DaemonSet (cmd/kubeadm/app/phases/addons/proxy/manifests.go):
/// host network, tolerating every taint, no requests. Its pods come from the
/// DaemonSet controller, one per node.
fn kube_proxy_daemon_set() -> String {
    let version = crate::KUBERNETES_VERSION;
    format!(
        "apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kube-proxy
  namespace: kube-system
  labels:
    k8s-app: kube-proxy
spec:
  selector:
    matchLabels:
      k8s-app: kube-proxy
  updateStrategy:
    type: RollingUpdate
  template:
    metadata:
      labels:
        k8s-app: kube-proxy
    spec:
      priorityClassName: system-node-critical
      containers:
      - name: kube-proxy
        image: registry.k8s.io/kube-proxy:{version}
        imagePullPolicy: IfNotPresent
        command:
        - /usr/local/bin/kube-proxy
        - --config=/var/lib/kube-proxy/config.conf
        - --hostname-override=$(NODE_NAME)
        securityContext:
          privileged: true
        volumeMounts:
        - mountPath: /var/lib/kube-proxy
          name: kube-proxy
        - mountPath: /run/xtables.lock
          name: xtables-lock
          readOnly: false
        - mountPath: /lib/modules
          name: lib-modules
          readOnly: true
        env:
        - name: NODE_NAME
          valueFrom:
            fieldRef:
              fieldPath: spec.nodeName
      hostNetwork: true
      serviceAccountName: kube-proxy
      volumes:
      - name: kube-proxy
        configMap:
          name: kube-proxy
      - name: xtables-lock
        hostPath:
          path: /run/xtables.lock
          type: FileOrCreate
      - name: lib-modules
        hostPath:
          path: /lib/modules
      tolerations:
      - operator: Exists
      nodeSelector:
        kubernetes.io/os: linux
"
    )
}

/// kubeadm's CoreDNS Deployment (cmd/kubeadm/app/phases/addons/dns/manifests.go),
/// with kubeadm's two replicas.
const COREDNS_DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: coredns
  namespace: kube-system
  labels:
    k8s-app: kube-dns
spec:
  replicas: 2
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 1
  selector:
    matchLabels:
      k8s-app: kube-dns
  template:
    metadata:
      labels:
        k8s-app: kube-dns
    spec:
      priorityClassName: system-cluster-critical
      serviceAccountName: coredns
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm:
              labelSelector:
                matchExpressions:
                - key: k8s-app
                  operator: In
                  values: [\"kube-dns\"]
              topologyKey: kubernetes.io/hostname
      tolerations:
      - key: CriticalAddonsOnly
        operator: Exists
      - key: node-role.kubernetes.io/control-plane
        effect: NoSchedule
      nodeSelector:
        kubernetes.io/os: linux
      containers:
      - name: coredns
        image: registry.k8s.io/coredns/coredns:v1.13.1
        imagePullPolicy: IfNotPresent
        resources:
          limits:
            memory: 170Mi
          requests:
            cpu: 100m
            memory: 70Mi
        args: [ \"-conf\", \"/etc/coredns/Corefile\" ]
        volumeMounts:
        - name: config-volume
          mountPath: /etc/coredns
          readOnly: true
        ports:
        - containerPort: 53
          name: dns
          protocol: UDP
        - containerPort: 53
          name: dns-tcp
          protocol: TCP
        - containerPort: 9153
          name: metrics
          protocol: TCP
        - containerPort: 8080
          name: liveness-probe
          protocol: TCP
        - containerPort: 8181
          name: readiness-probe
          protocol: TCP
        livenessProbe:
          httpGet:
            path: /health
            port: liveness-probe
            scheme: HTTP
          initialDelaySeconds: 60
          timeoutSeconds: 5
          successThreshold: 1
          failureThreshold: 5
        readinessProbe:
          httpGet:
            path: /ready
            port: readiness-probe
            scheme: HTTP
        securityContext:
          allowPrivilegeEscalation: false
          capabilities:
            add:
            - NET_BIND_SERVICE
            drop:
            - ALL
          readOnlyRootFilesystem: true
      dnsPolicy: Default
      volumes:
        - name: config-volume
          configMap:
            name: coredns
            items:
            - key: Corefile
              path: Corefile
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_manifest_parses() {
        for c in ControlPlaneComponent::ALL {
            for members in [1, 3] {
                let m = static_pod_manifest(c, "control-plane", "172.18.0.2", members);
                let pod: Pod = serde_yaml::from_str(&m).unwrap_or_else(|e| panic!("{c}: {e}"));
                assert_eq!(pod.spec.unwrap().containers[0].name, c.name());
            }
        }
        let _: DaemonSet = serde_yaml::from_str(&kube_proxy_daemon_set()).unwrap();
        let _: Deployment = serde_yaml::from_str(COREDNS_DEPLOYMENT).unwrap();
    }

    /// `from_manifest` (YAML read as JSON, then typed) gives the very objects the
    /// typed YAML decoder gives, for every built-in manifest.
    #[test]
    fn manifests_decode_as_typed_yaml_does() {
        fn same<T>(yaml: &str)
        where
            T: serde::de::DeserializeOwned + PartialEq + fmt::Debug,
        {
            let typed: T = serde_yaml::from_str(yaml).unwrap();
            let via_json: T = from_manifest(yaml).unwrap();
            assert_eq!(typed, via_json, "{yaml}");
            // Read into serde_yaml's value and
            // converted, the JSON is the one YAML read straight into JSON gives.
            let direct: serde_json::Value = serde_yaml::from_str(yaml).unwrap();
            let yaml_value: serde_yaml::Value = serde_yaml::from_str(yaml).unwrap();
            let converted = serde_json::to_value(&yaml_value).unwrap();
            assert_eq!(direct, converted, "{yaml}");
            assert_eq!(direct.to_string(), converted.to_string(), "{yaml}");
        }
        for c in ControlPlaneComponent::ALL {
            for members in [1, 3] {
                same::<Pod>(&static_pod_manifest(
                    c,
                    "control-plane",
                    "172.18.0.2",
                    members,
                ));
            }
        }
        same::<DaemonSet>(&kube_proxy_daemon_set());
        same::<Deployment>(COREDNS_DEPLOYMENT);
        for yaml in crate::network::services::BUILT_IN_SERVICES {
            same::<k8s_openapi::api::core::v1::Service>(yaml);
        }
        same::<Deployment>(crate::views::metrics::DEPLOYMENT);
        same::<k8s_openapi::api::core::v1::Service>(crate::views::metrics::SERVICE);
    }

    #[test]
    fn components_parse_short_and_full_names() {
        for c in ControlPlaneComponent::ALL {
            assert_eq!(ControlPlaneComponent::parse(c.short_name()), Some(c));
            assert_eq!(ControlPlaneComponent::parse(c.name()), Some(c));
        }
        assert_eq!(ControlPlaneComponent::parse("kubelet"), None);
    }

    #[test]
    fn config_seen_has_nanoseconds() {
        let s = config_seen(SimTime(1500), "etcd");
        assert!(s.starts_with("2026-01-01T00:00:01.5"), "{s}");
        assert_eq!(s.len(), "2026-01-01T00:00:01.500000000Z".len(), "{s}");
    }
}

/// The control plane's own timer.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum ControlPlaneTimer {
    /// The leader-election renew deadline of an apiserver outage that began at
    /// `since`.
    LeaderElection { since: SimTime },
}

impl crate::runtime::components::Timers for ControlPlaneTimer {
    const DESCRIPTIONS: &'static [&'static str] = &["leader election renew deadline"];

    fn describe(&self) -> &'static str {
        Self::DESCRIPTIONS[0]
    }

    fn fire(self, c: &mut Cluster) {
        let ControlPlaneTimer::LeaderElection { since } = self;
        c.leader_election_deadline(since);
    }
}
