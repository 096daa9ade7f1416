//! The cluster: the clock, the timer queue, the store behind the apiserver, and the
//! components that watch it. Everything happens inside [`Cluster::advance`], in
//! timestamp order, one timer at a time.

use crate::apiserver::request::{Body, Credentials, Request};
use crate::apiserver::{self, Actor, DeleteOptions, RequestRecord};
use crate::error::{ApiError, SimError};
use crate::kubelet::KubeletState;
use crate::names::SimRng;
use crate::object::{Kind, Object, ObjectKey};
use crate::runtime::control_plane::{ControlPlane, ControlPlaneComponent};
use crate::scheduler::SchedulerState;
use crate::store::{Store, WatchEvent};
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};

/// How long a watch event takes to reach a component and wake it. Real watches
/// deliver in milliseconds; a small non-zero delay keeps cause before effect visible.
pub const WATCH_DELAY: SimDuration = SimDuration::millis(20);

/// The most timers one `advance` call may fire. A guard against a runaway feedback
/// loop: past it, `advance` stops early, at the instant of the last timer it fired
/// (the clock never jumps over timers still due, so it never has to go back for
/// them), and says so in its [`Advanced`]; the next call carries on from there.
pub const MAX_TIMERS_PER_ADVANCE: usize = 5_000_000;

/// What one [`Cluster::advance`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Advanced {
    /// Timers fired.
    pub fired: usize,
    /// The timer guard stopped the advance before its target: the clock stands at
    /// the last timer fired, and timers still due wait for the next call.
    pub stopped_early: bool,
}

/// One node of the starting topology.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSpec {
    pub name: String,
    pub control_plane: bool,
    pub cpu_milli: u64,
    pub memory_bytes: u64,
    pub max_pods: u32,
    pub labels: BTreeMap<String, String>,
    /// Extra taints as (key, value, effect), besides the control-plane one.
    #[serde(default)]
    pub taints: Vec<(String, String, String)>,
    /// `nvidia.com/gpu` capacity (`sim node add --gpu N`).
    #[serde(default)]
    pub gpus: u32,
}

impl NodeSpec {
    pub fn worker(name: &str) -> NodeSpec {
        NodeSpec {
            name: name.to_string(),
            control_plane: false,
            cpu_milli: 4000,
            memory_bytes: 8 * 1024 * 1024 * 1024,
            max_pods: 110,
            labels: BTreeMap::new(),
            taints: Vec::new(),
            gpus: 0,
        }
    }
    pub fn control_plane(name: &str) -> NodeSpec {
        NodeSpec {
            control_plane: true,
            ..NodeSpec::worker(name)
        }
    }
}

/// The nodes a cluster starts with, how many members its etcd has, and how it boots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Topology {
    pub nodes: Vec<NodeSpec>,
    /// etcd members, 1 to [`crate::etcd::MAX_ETCD_MEMBERS`] (see `etcd.rs`).
    pub etcd_members: usize,
    /// Cold (time 0, the default) or settled (run for [`crate::runtime::boot::SETTLE_TIME`]
    /// first); see `boot.rs`. Snapshots from before the field decode as cold.
    #[serde(default)]
    pub boot: crate::runtime::boot::Boot,
}

impl Default for Topology {
    /// One control-plane node and three worker zones.
    fn default() -> Self {
        Topology {
            nodes: vec![
                NodeSpec::control_plane("control-plane"),
                NodeSpec::worker("zone-a"),
                NodeSpec::worker("zone-b"),
                NodeSpec::worker("zone-c"),
            ],
            etcd_members: 1,
            boot: crate::runtime::boot::Boot::Cold,
        }
    }
}

impl Topology {
    /// `workers` worker nodes named `zone-1` … and one control-plane node; for
    /// benchmarks and large lessons.
    pub fn with_workers(workers: usize) -> Topology {
        let mut nodes = vec![NodeSpec::control_plane("control-plane")];
        nodes.extend((1..=workers).map(|i| NodeSpec::worker(&format!("zone-{i}"))));
        Topology {
            nodes,
            etcd_members: 1,
            boot: crate::runtime::boot::Boot::Cold,
        }
    }

    /// The same nodes with an etcd of `members` members.
    pub fn with_etcd_members(self, members: usize) -> Topology {
        Topology {
            etcd_members: members,
            ..self
        }
    }
}

/// Things that happen to the warehouse rather than requests made to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Power off a node: its kubelet stops and its containers die with it.
    KillNode(String),
    /// Power a killed node back on: its kubelet starts again and reports.
    RestartNode(String),
    /// Cut a node off from the control plane: its containers run on, unreported.
    PartitionNode(String),
    /// End a node's partition.
    HealNode(String),
    /// Stop a control-plane component (`sim stop scheduler`).
    StopComponent(ControlPlaneComponent),
    /// Start a stopped control-plane component again (`sim start scheduler`).
    StartComponent(ControlPlaneComponent),
    /// Stop one etcd member (`sim etcd stop etcd-1`).
    StopEtcdMember(String),
    /// Start a stopped etcd member again (`sim etcd start etcd-1`).
    StartEtcdMember(String),
}

pub use crate::runtime::components::Component;
pub(crate) use crate::runtime::components::Timer;

#[derive(Clone, Default, Serialize, Deserialize)]
pub(crate) struct WorkQueue {
    pub keys: BTreeSet<ObjectKey>,
    /// Why each key is queued: the latest event (or other cause) that queued it.
    #[serde(with = "crate::snapshot::pairs")]
    pub causes: BTreeMap<ObjectKey, crate::trace::Cause>,
    pub wake_scheduled: bool,
}

/// Every field is state a snapshot keeps (`snapshot.rs`): serde's derive here is what
/// [`Cluster::snapshot`] writes and [`Cluster::restore`] reads and checks, and
/// [`Cluster::copy_as_restored`] copies.
#[derive(Serialize, Deserialize)]
pub struct Cluster {
    /// The seed and topology the cluster was built from (`sim config` rebuilds it).
    pub(crate) seed: u64,
    pub(crate) topology: Topology,
    pub(crate) now: SimTime,
    pub(crate) rng: SimRng,
    pub(crate) store: Store,
    #[serde(with = "crate::snapshot::timer_heap")]
    pub(crate) timers: BinaryHeap<Reverse<(SimTime, u64)>>,
    #[serde(with = "crate::snapshot::pairs")]
    pub(crate) timer_payloads: BTreeMap<u64, (Timer, crate::trace::Cause)>,
    pub(crate) next_timer: u64,
    #[serde(with = "crate::snapshot::pairs")]
    pub(crate) queues: BTreeMap<Component, WorkQueue>,
    pub(crate) scheduler: SchedulerState,
    pub(crate) kubelets: BTreeMap<String, KubeletState>,
    pub(crate) requests: VecDeque<RequestRecord>,
    pub(crate) authenticator: crate::apiserver::auth::Authenticator,
    pub(crate) trace: crate::trace::Trace,
    /// Why the writes being made now happen (see `trace.rs`).
    pub(crate) current_cause: crate::trace::Cause,
    /// Who is writing now (the username of the request being served).
    pub(crate) current_actor: String,
    /// The field manager a user's request names (`fieldManager`) and its
    /// subresource, while the desk serves it.
    #[serde(skip)]
    pub(crate) request_manager: Option<(String, String)>,
    /// The field manager of the write being made now.
    #[serde(skip)]
    pub(crate) writer: Option<crate::apiserver::fields::Writer>,
    /// The managedFields a server-side apply computed for the write it is making.
    #[serde(skip)]
    pub(crate) applied_fields: Option<crate::apiserver::fields::ManagedFields>,
    /// The revision of the watch event being dispatched, while dispatching.
    pub(crate) dispatching: Option<u64>,
    /// The causes of the keys a waking component is working through.
    #[serde(with = "crate::snapshot::pairs")]
    pub(crate) key_causes: BTreeMap<ObjectKey, crate::trace::Cause>,
    pub(crate) event_counter: u64,
    /// The event recorders' correlator (repeats become counts).
    pub(crate) event_correlator: crate::apiserver::events::EventCorrelator,
    pub(crate) pod_ip_next: BTreeMap<String, u32>,
    pub(crate) node_cidrs: BTreeMap<String, u32>,
    /// The control-plane components' processes and the controller manager's memory.
    pub(crate) control_plane: ControlPlane,
    /// etcd's members beyond the first, its leader, and its saved snapshots.
    pub(crate) etcd: crate::etcd::EtcdCluster,
    /// What the controller manager's controllers remember between reconciles.
    pub(crate) controllers: crate::controllers::Memory,
    /// Whether the `kubernetes` Service controller's next reconcile is scheduled.
    #[serde(default)]
    pub(crate) kubernetes_service_armed: bool,
    /// What happened, for drawing (`feed.rs`). A view: snapshots leave it out.
    #[serde(skip)]
    pub(crate) feed: crate::views::feed::Feed,
    /// What the simulation has done so far (see [`Work`]).
    #[serde(default)]
    pub(crate) work: Work,
    /// Every node's kube-proxy and CoreDNS as watchers (`proxy.rs`).
    #[serde(default)]
    pub(crate) proxy: crate::network::proxy::ProxyState,
    /// The simulated cloud's load balancers (`cloud.rs`).
    #[serde(default)]
    pub(crate) cloud: crate::network::cloud::CloudState,
    /// The ingress controller's caches (`ingress.rs`).
    #[serde(default)]
    pub(crate) ingress: crate::network::ingress::IngressState,
    /// The traffic generator's sources (`traffic.rs`).
    #[serde(default)]
    pub(crate) traffic: crate::network::traffic::TrafficState,
}

/// Counts of the simulation's units of work, for tests and benchmarks that check the
/// cost follows what happens rather than how many objects exist.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Work {
    /// Timers that fired (heartbeats, monitors, back-offs, component wake-ups).
    pub timers_fired: u64,
    /// Keys put on a component's work queue (each is one reconcile).
    pub keys_enqueued: u64,
    /// Writes to the store (etcd's revision).
    pub writes: u64,
}

/// How many apiserver requests the cluster remembers for the UI.
pub const REQUEST_LOG_CAPACITY: usize = 512;

impl Cluster {
    /// A new cluster at time zero: default namespaces, one Node and Lease per
    /// topology entry, kubelets running, the control plane up. With
    /// `topology.boot` settled it then runs for [`crate::runtime::boot::SETTLE_TIME`]
    /// (see [`Cluster::settled`]).
    pub fn new(seed: u64, topology: Topology) -> Cluster {
        let members = topology
            .etcd_members
            .clamp(1, crate::etcd::MAX_ETCD_MEMBERS);
        debug_assert_eq!(members, topology.etcd_members, "etcd members out of range");
        let mut c = Cluster {
            seed,
            etcd: crate::etcd::EtcdCluster::new(members),
            controllers: Default::default(),
            work: Work::default(),
            proxy: Default::default(),
            cloud: Default::default(),
            ingress: Default::default(),
            traffic: Default::default(),
            topology: topology.clone().with_etcd_members(members),
            now: SimTime(0),
            rng: SimRng::new(seed),
            store: Store::default(),
            timers: BinaryHeap::new(),
            timer_payloads: BTreeMap::new(),
            next_timer: 0,
            queues: BTreeMap::new(),
            scheduler: SchedulerState::default(),
            kubelets: BTreeMap::new(),
            requests: VecDeque::new(),
            authenticator: crate::apiserver::auth::Authenticator::with_admin(),
            trace: crate::trace::Trace::default(),
            current_cause: crate::trace::Cause::Bootstrap,
            current_actor: String::new(),
            request_manager: None,
            writer: None,
            applied_fields: None,
            dispatching: None,
            key_causes: BTreeMap::new(),
            event_counter: 0,
            event_correlator: Default::default(),
            pod_ip_next: BTreeMap::new(),
            node_cidrs: BTreeMap::new(),
            control_plane: ControlPlane::default(),
            kubernetes_service_armed: false,
            feed: Default::default(),
        };
        for ns in ["default", "kube-node-lease", "kube-public", "kube-system"] {
            let obj = apiserver::namespace_object(ns);
            c.create_as(Actor::System, obj)
                .expect("default namespaces are valid");
        }
        for obj in crate::apiserver::auth::bootstrap_objects() {
            c.create_as(Actor::System, obj)
                .expect("bootstrap RBAC objects are valid");
        }
        c.bootstrap_priority_classes();
        for (i, spec) in topology.nodes.iter().enumerate() {
            c.node_cidrs.insert(spec.name.clone(), i as u32);
            c.register_node(spec);
        }
        c.bootstrap_addons();
        c.start_controllers();
        if c.topology.boot == crate::runtime::boot::Boot::Settled {
            c.advance(crate::runtime::boot::SETTLE_TIME);
        }
        c
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    /// `len` random characters as apimachinery's `rand.String` makes them (the names
    /// a client picks, such as `kubectl debug`'s `debugger-xxxxx`), from the
    /// cluster's seeded generator so a replay picks the same.
    pub fn random_suffix(&mut self, len: usize) -> String {
        self.rng.suffix(len)
    }

    /// The write at `revision` and the same object's write before it, while etcd's
    /// watch history still holds them (`Store::logged`): what interview walkthroughs
    /// show as a write's diff.
    pub fn logged_write(
        &self,
        revision: u64,
    ) -> Option<(Option<&crate::store::WatchEvent>, &crate::store::WatchEvent)> {
        self.store.logged(revision)
    }

    /// The store's revision (etcd's global revision).
    /// How many objects the store holds, of every kind.
    pub fn objects_stored(&self) -> usize {
        self.store.total()
    }

    pub fn revision(&self) -> u64 {
        self.store.revision()
    }

    /// Runs the simulation forward by `by`, firing every timer that falls due, in
    /// order. Equal timestamps fire in the order they were scheduled. At most
    /// [`MAX_TIMERS_PER_ADVANCE`] timers fire; past that the advance stops early (see
    /// [`Advanced`]).
    pub fn advance(&mut self, by: SimDuration) -> Advanced {
        self.advance_within(by, MAX_TIMERS_PER_ADVANCE)
    }

    /// When the next timer is due (`None`: nothing is scheduled). A cancelled timer
    /// may still be reported: firing it does nothing.
    pub fn next_timer_at(&self) -> Option<SimTime> {
        self.timers.peek().map(|Reverse((at, _))| *at)
    }

    /// [`Cluster::advance`] with a budget of at most `max_timers` timers. The clock
    /// only moves forward: to each timer as it fires, and to the target only once no
    /// timer before it is left.
    pub fn advance_within(&mut self, by: SimDuration, max_timers: usize) -> Advanced {
        let target = self.now + by;
        let mut fired = 0usize;
        while let Some(Reverse((at, seq))) = self.timers.peek().copied() {
            if at > target {
                break;
            }
            if fired >= max_timers {
                return Advanced {
                    fired,
                    stopped_early: true,
                };
            }
            self.timers.pop();
            fired += 1;
            self.work.timers_fired += 1;
            // Timers are never set in the past (`schedule`), so this only moves forward.
            self.now = self.now.max(at);
            if let Some((timer, cause)) = self.timer_payloads.remove(&seq) {
                self.current_cause = match &timer {
                    // A wake sets the cause per key from its work queue.
                    Timer::Wake(_) => cause,
                    other => cause.after_timer(other.describe()),
                };
                self.fire(timer);
            }
        }
        self.now = target;
        Advanced {
            fired,
            stopped_early: false,
        }
    }

    /// Applies a fault. Returns a one-line description of what happened.
    pub fn fault(&mut self, fault: Fault) -> Result<String, SimError> {
        let description = match &fault {
            Fault::KillNode(n) => format!("node {n} killed"),
            Fault::RestartNode(n) => format!("node {n} restarted"),
            Fault::PartitionNode(n) => format!("node {n} partitioned"),
            Fault::HealNode(n) => format!("node {n} healed"),
            Fault::StopComponent(c) => format!("{c} stopped"),
            Fault::StartComponent(c) => format!("{c} started"),
            Fault::StopEtcdMember(m) => format!("etcd member {m} stopped"),
            Fault::StartEtcdMember(m) => format!("etcd member {m} started"),
        };
        self.current_cause = crate::trace::Cause::Fault(description);
        match fault {
            Fault::KillNode(name) => self.power_off_node(&name),
            Fault::RestartNode(name) => self.power_on_node(&name),
            Fault::PartitionNode(name) => self.partition_node(&name),
            Fault::HealNode(name) => self.heal_node(&name),
            Fault::StopComponent(c) => self.stop(c),
            Fault::StartComponent(c) => self.start(c),
            Fault::StopEtcdMember(m) => self.stop_etcd_member(&m),
            Fault::StartEtcdMember(m) => self.start_etcd_member(&m),
        }
    }

    /// Creates an object as the cluster administrator (kubectl's default user).
    pub fn create(&mut self, obj: Object) -> Result<Object, ApiError> {
        self.handle(Request::new(&Credentials::admin(), Body::Create(obj)))
    }

    /// Replaces an object as the cluster administrator.
    pub fn update(&mut self, obj: Object) -> Result<Object, ApiError> {
        self.handle(Request::new(&Credentials::admin(), Body::Update(obj)))
    }

    /// Deletes an object as the cluster administrator, with background propagation.
    /// Returns the object as it stands after the request (with a deletion timestamp
    /// if the deletion is graceful and still in progress).
    pub fn delete(&mut self, kind: Kind, namespace: &str, name: &str) -> Result<Object, ApiError> {
        let key = ObjectKey::new(kind, namespace, name);
        let body = Body::Delete { key, options: None };
        self.handle(Request::new(&Credentials::admin(), body))
    }

    /// Deletes as the cluster administrator with explicit options: a grace period
    /// (`--grace-period`) and a propagation policy (`--cascade`).
    pub fn delete_with(
        &mut self,
        kind: Kind,
        namespace: &str,
        name: &str,
        options: DeleteOptions,
    ) -> Result<Object, ApiError> {
        let key = ObjectKey::new(kind, namespace, name);
        let body = Body::Delete {
            key,
            options: Some(options),
        };
        self.handle(Request::new(&Credentials::admin(), body))
    }

    /// Deletes with an explicit grace period in seconds (`--grace-period`).
    pub fn delete_with_grace(
        &mut self,
        kind: Kind,
        namespace: &str,
        name: &str,
        grace_seconds: i64,
    ) -> Result<Object, ApiError> {
        self.delete_as(
            Actor::admin(),
            &ObjectKey::new(kind, namespace, name),
            Some(grace_seconds),
        )
        .map(std::sync::Arc::unwrap_or_clone)
    }

    /// Reads one object.
    pub fn get(&self, kind: Kind, namespace: &str, name: &str) -> Result<Object, ApiError> {
        let key = ObjectKey::new(kind, namespace, name);
        self.store
            .get(&key)
            .cloned()
            .ok_or_else(|| ApiError::not_found(&kind.qualified_plural(), name))
    }

    /// The pods bound to `node` (the store's node index, as a `spec.nodeName` field
    /// selector reads it), ordered by namespace and name.
    pub fn pods_on_node(&self, node: &str) -> Vec<Object> {
        self.store
            .pods_on_node(node)
            .filter_map(|k| self.store.get(k).cloned())
            .collect()
    }

    /// Lists objects of a kind, in one namespace or (None) all, ordered by namespace
    /// and name.
    /// Objects of `kind`, as the store holds them (no copy), in key order; all
    /// namespaces when `namespace` is None.
    pub fn list_refs<'a>(
        &'a self,
        kind: Kind,
        namespace: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Object> + 'a {
        let ns = if kind.namespaced() { namespace } else { None };
        self.store.list(kind, ns)
    }

    pub fn list(&self, kind: Kind, namespace: Option<&str>) -> Vec<Object> {
        let ns = if kind.namespaced() { namespace } else { None };
        self.store.list(kind, ns).cloned().collect()
    }

    /// Watch events after `revision` (for `kubectl get -w`), or 410 Gone.
    pub fn events_since(&self, revision: u64) -> Result<Vec<WatchEvent>, ApiError> {
        Ok(self.store.events_since(revision)?.cloned().collect())
    }

    /// The work done so far: timers fired, reconciles queued, writes.
    pub fn work(&self) -> Work {
        Work {
            writes: self.store.revision(),
            ..self.work
        }
    }

    /// Recent apiserver requests, oldest first.
    pub fn requests(&self) -> impl DoubleEndedIterator<Item = &RequestRecord> {
        self.requests.iter()
    }

    // ----- internals shared by the components -----

    pub(crate) fn schedule(&mut self, at: SimTime, timer: impl Into<Timer>) {
        let timer = timer.into();
        let seq = self.next_timer;
        self.next_timer += 1;
        self.timers.push(Reverse((at.max(self.now), seq)));
        self.timer_payloads
            .insert(seq, (timer, self.current_cause.clone()));
    }

    fn fire(&mut self, timer: Timer) {
        if let Some(timer) = self.hold_until_reachable(timer) {
            timer.fire(self);
        }
    }

    /// Adds a key to a component's work queue and makes sure it will wake.
    pub(crate) fn enqueue(&mut self, component: Component, key: ObjectKey) {
        let cause = match self.dispatching {
            Some(revision) => crate::trace::Cause::Watch {
                component: component.clone(),
                revision,
            },
            None => self.current_cause.clone(),
        };
        self.work.keys_enqueued += 1;
        self.feed_notified(&component);
        let q = self.queues.entry(component.clone()).or_default();
        q.causes.insert(key.clone(), cause);
        q.keys.insert(key);
        if !q.wake_scheduled {
            q.wake_scheduled = true;
            self.schedule(self.now + WATCH_DELAY, Timer::Wake(component));
        }
    }

    pub(crate) fn wake(&mut self, component: Component) {
        if !self.can_work(&component) {
            // A stopped component, or one the apiserver does not answer, keeps its
            // queue for when it can work again.
            self.park_queue(&component);
            return;
        }
        let (keys, causes) = match self.queues.get_mut(&component) {
            Some(q) => {
                q.wake_scheduled = false;
                (std::mem::take(&mut q.keys), std::mem::take(&mut q.causes))
            }
            None => return,
        };
        self.key_causes = causes;
        component.work(self, keys);
    }

    /// Sends a write's watch event to every component whose watch it matches. This is
    /// the apiserver's watch fan-out: filtering happens here, not in each component.
    pub(crate) fn dispatch(&mut self, ev: &WatchEvent) {
        let actor = std::mem::take(&mut self.current_actor);
        self.trace.record(ev, &actor, &self.current_cause);
        self.current_actor = actor;
        let outer = self.dispatching.replace(ev.revision);
        self.feed_dispatch_begin();
        let writer = self.current_actor.clone();
        // No component watches Events (the garbage collector and the quota
        // controller ignore them upstream): kubectl, the feed and the trace see them,
        // no controller is woken by them.
        if ev.object.kind() != Kind::Event {
            self.dispatch_inner(ev);
        }
        self.feed_dispatch_end(ev, &writer);
        self.dispatching = outer;
    }

    fn dispatch_inner(&mut self, ev: &WatchEvent) {
        for watch in crate::runtime::components::WATCHERS {
            watch(self, ev);
        }
    }

    /// Sets the cause of the writes a component is about to make for `key`.
    pub(crate) fn begin_key(&mut self, key: &ObjectKey) {
        if let Some(c) = self.key_causes.get(key) {
            self.current_cause = c.clone();
        }
    }

    pub(crate) fn record(&mut self, record: RequestRecord, arrived: u64) {
        self.feed_request(&record, arrived);
        if self.requests.len() == REQUEST_LOG_CAPACITY {
            self.requests.pop_front();
        }
        self.requests.push_back(record);
    }
}

pub(crate) fn clear_status(obj: &mut Object) {
    match obj {
        Object::Pod(o) => o.status = None,
        Object::Deployment(o) => o.status = None,
        Object::ReplicaSet(o) => o.status = None,
        Object::DaemonSet(o) => o.status = None,
        Object::Namespace(o) => o.status = None,
        Object::ResourceQuota(o) => o.status = None,
        Object::Job(o) => o.status = None,
        Object::Service(o) => o.status = None,
        Object::Ingress(o) => o.status = None,
        _ => {}
    }
}

pub(crate) fn copy_status(from: &Object, to: &mut Object) {
    match (from, to) {
        (Object::Pod(a), Object::Pod(b)) => b.status = a.status.clone(),
        (Object::Deployment(a), Object::Deployment(b)) => b.status = a.status.clone(),
        (Object::ReplicaSet(a), Object::ReplicaSet(b)) => b.status = a.status.clone(),
        (Object::DaemonSet(a), Object::DaemonSet(b)) => b.status = a.status.clone(),
        (Object::Node(a), Object::Node(b)) => b.status = a.status.clone(),
        (Object::Namespace(a), Object::Namespace(b)) => b.status = a.status.clone(),
        (Object::ResourceQuota(a), Object::ResourceQuota(b)) => b.status = a.status.clone(),
        (Object::Job(a), Object::Job(b)) => b.status = a.status.clone(),
        (Object::Service(a), Object::Service(b)) => b.status = a.status.clone(),
        (Object::Ingress(a), Object::Ingress(b)) => b.status = a.status.clone(),
        // The kinds kept as JSON (PodDisruptionBudget, CronJob, ...): their status
        // belongs to their controllers, as for the typed kinds.
        (Object::Other(a), Object::Other(b)) if a.kind == b.kind => {
            match a.fields.get("status") {
                Some(status) => b.fields.insert("status".into(), status.clone()),
                None => b.fields.remove("status"),
            };
        }
        _ => {}
    }
}

/// The key of the object's controlling owner, if it is of `kind`.
pub(crate) fn controller_of(obj: &Object, kind: Kind) -> Option<ObjectKey> {
    obj.meta()
        .owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true) && r.kind == kind.as_str())
        .map(|r| ObjectKey::new(kind, obj.namespace(), &r.name))
}
