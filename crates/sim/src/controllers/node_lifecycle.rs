//! Node lifecycle and taint-based eviction.
//!
//! The node lifecycle controller (pkg/controller/nodelifecycle, `monitorNodeHealth`)
//! looks at every node each `--node-monitor-period`; a node whose Lease has not been
//! renewed for `--node-monitor-grace-period` gets Ready=Unknown and the
//! `node.kubernetes.io/unreachable:NoSchedule` taint, and its pods are marked not
//! ready. At the next pass (processTaintBaseEviction reads the Ready condition the
//! pass found) the node joins its zone's rate-limited tainting queue, which adds the
//! `unreachable:NoExecute` taint: one node per 10 s per zone (`--node-eviction-rate`
//! 0.1), 0.01/s in a PartialDisruption zone of more than 50 nodes, none in a smaller
//! one; when every zone is FullDisruption the controller enters master disruption
//! mode, takes its NoExecute taints off every node and taints nothing until a node is
//! Ready again (`handleDisruption`). Zones come from the nodes' topology labels
//! (`topology.GetZoneKey`); nodes without them, as in the default topology, form one
//! zone.
//!
//! Its NoSchedule tainting pass keeps the `node.kubernetes.io/unschedulable` taint in
//! step with `spec.unschedulable` (a cordon).
//!
//! The taint eviction controller (pkg/controller/tainteviction) deletes pods on a
//! node with a NoExecute taint once their toleration runs out: at once if they do not
//! tolerate it, after `tolerationSeconds` (300 s from DefaultTolerationSeconds) if they
//! do, never if they tolerate it forever.

use super::manager::{Action, Controller, ControllerId, Hold, Tick};
use super::set_pod_condition;
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey};
use crate::runtime::control_plane::ControlPlaneComponent;
use crate::runtime::control_plane::NodeHealth;
use crate::sort::{CollectMap, StableSort};
use crate::store::{EventType, WatchEvent};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::{Node, NodeCondition, PodCondition, Taint, Toleration};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, Weak};

pub const MONITOR_PERIOD: SimDuration = SimDuration::secs(5);
pub const GRACE_PERIOD: SimDuration = SimDuration::secs(50);
pub const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
pub const NOT_READY: &str = "node.kubernetes.io/not-ready";

pub const UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

/// Whether a node's `node.kubernetes.io/unschedulable:NoSchedule` taint disagrees
/// with its `spec.unschedulable`.
pub fn unschedulable_taint_stale(node: &Node) -> bool {
    let spec = node.spec.as_ref();
    let cordoned = spec.and_then(|s| s.unschedulable).unwrap_or(false);
    let tainted = spec.and_then(|s| s.taints.as_ref()).is_some_and(|ts| {
        ts.iter()
            .any(|t| t.key == UNSCHEDULABLE && t.effect == "NoSchedule")
    });
    cordoned != tainted
}

const NODE_ACTOR: Actor = Actor::Controller("node-controller");
pub(crate) const ID: ControllerId = ControllerId::new("node-lifecycle-controller");
pub(crate) const TAINT_EVICTION_ID: ControllerId = ControllerId::new("taint-eviction-controller");
const EVICTION_ACTOR: Actor = Actor::Controller(TAINT_EVICTION_ID.name());

/// The node lifecycle controller's queue: cordoned or uncordoned nodes whose
/// `unschedulable` taint is out of date. Its health monitor runs on its own period.
pub(crate) struct NodeLifecycleController;

impl Controller for NodeLifecycleController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, _c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        if let Object::Node(node) = &*ev.object {
            if ev.event_type != EventType::Deleted && unschedulable_taint_stale(node) {
                keys.push(ev.object.key());
            }
        }
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.sync_unschedulable_taint(key);
        Action::Done
    }

    fn start(&self, c: &mut Cluster) {
        c.schedule_tick(ID, c.now + MONITOR_PERIOD, Tick::new(MONITOR_TICK));
    }

    fn ticks(&self) -> &'static [&'static str] {
        &[MONITOR_TICK, TAINTING_TICK]
    }

    fn tick(&self, c: &mut Cluster, tick: &Tick) {
        let active = c.controller_manager_active();
        if tick.what == MONITOR_TICK {
            if active {
                c.monitor_node_health();
            }
            c.schedule_tick(ID, c.now + MONITOR_PERIOD, Tick::new(MONITOR_TICK));
        } else if active {
            c.no_execute_tainting_pass();
        } else {
            c.control_plane.node_lifecycle.forget_tainting_timer();
        }
    }
}

/// The monitor loop (`--node-monitor-period`).
const MONITOR_TICK: &str = "node monitor period";
/// `doNoExecuteTaintingPass`, when a zone's tainting queue waits for its rate
/// limiter's next token.
const TAINTING_TICK: &str = "no-execute tainting pass";
/// A pod's eviction deadline on a NoExecute-tainted node.
const EVICT_TICK: &str = "toleration expired";

/// The taint eviction controller: nodes whose NoExecute taints may have changed.
pub(crate) struct TaintEvictionController;

impl Controller for TaintEvictionController {
    fn id(&self) -> ControllerId {
        TAINT_EVICTION_ID
    }

    fn watch(&self, _c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        if let Object::Node(_) = &*ev.object {
            keys.push(ev.object.key());
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(c.store.list(Kind::Node, None).map(Object::key));
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.sync_node_taints(key);
        Action::Done
    }

    fn ticks(&self) -> &'static [&'static str] {
        &[EVICT_TICK]
    }

    fn tick(&self, c: &mut Cluster, tick: &Tick) {
        if let Some(pod) = &tick.key {
            c.evict_pod(pod, &tick.uid);
        }
    }

    /// A stopped controller manager forgets its eviction deadlines (its relist sets
    /// them again); one cut off from the apiserver keeps them.
    fn hold(&self, c: &Cluster, _tick: &Tick) -> Hold {
        if !c.component_running(ControlPlaneComponent::ControllerManager) {
            Hold::Drop
        } else if !c.api_writable() {
            Hold::Defer
        } else {
            Hold::Fire
        }
    }
}

/// The node's Ready condition status: "True", "False" or "Unknown".
pub fn node_ready_status(node: &Node) -> &str {
    node.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
        .map(|c| c.status.as_str())
        .unwrap_or("Unknown")
}

/// Whether `tolerations` tolerate `taint` (upstream `ToleratesTaint`).
pub fn tolerates(toleration: &Toleration, taint: &Taint) -> bool {
    if let Some(effect) = toleration.effect.as_deref() {
        if !effect.is_empty() && effect != taint.effect {
            return false;
        }
    }
    let op = toleration.operator.as_deref().unwrap_or("Equal");
    match toleration.key.as_deref() {
        None | Some("") => op == "Exists",
        Some(k) if k != taint.key => false,
        Some(_) => match op {
            "Exists" => true,
            _ => toleration.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or(""),
        },
    }
}

/// `--node-eviction-rate`: NoExecute taints per second in a zone, in thousandths.
pub const NODE_EVICTION_RATE_MILLI: u32 = 100;
/// `--secondary-node-eviction-rate`, used in a PartialDisruption zone of a large cluster.
pub const SECONDARY_NODE_EVICTION_RATE_MILLI: u32 = 10;
/// `--large-cluster-size-threshold`: a zone of at most this many nodes stops
/// evicting when it is PartialDisruption.
pub const LARGE_CLUSTER_SIZE_THRESHOLD: usize = 50;
/// `--unhealthy-zone-threshold`.
pub const UNHEALTHY_ZONE_THRESHOLD: f32 = 0.55;
/// `scheduler.NodeEvictionPeriod`: how often `doNoExecuteTaintingPass` runs.
pub const NODE_EVICTION_PERIOD: SimDuration = SimDuration::millis(100);
/// A node with this label is left out of its zone's health (`isNodeExcludedFromDisruptionChecks`).
pub const EXCLUDE_DISRUPTION: &str = "node.kubernetes.io/exclude-disruption";
/// How many of the controller's log lines are kept.
const LOG_CAPACITY: usize = 200;

/// A zone's health as `ComputeZoneState` judges it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ZoneState {
    Initial,
    Normal,
    PartialDisruption,
    FullDisruption,
}

impl ZoneState {
    pub fn as_str(self) -> &'static str {
        match self {
            ZoneState::Initial => "Initial",
            ZoneState::Normal => "Normal",
            ZoneState::PartialDisruption => "PartialDisruption",
            ZoneState::FullDisruption => "FullDisruption",
        }
    }
}

/// A zone's rate limiter (client-go `flowcontrol`): a token bucket of burst 1
/// (`EvictionRateLimiterBurst`), or the never-accepting limiter a rate of 0 swaps in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Limiter {
    /// `NewFakeNeverRateLimiter`: never accepts; reports a QPS of 1.
    Never,
    /// With a burst of one token, the bucket is a single moment: the token is there
    /// from `full_at` on, and taking it refills it one period later.
    Bucket { qps_milli: u32, full_at: SimTime },
}

impl Limiter {
    fn bucket(qps_milli: u32, now: SimTime) -> Limiter {
        Limiter::Bucket {
            qps_milli,
            full_at: now,
        }
    }

    /// `QPS()`, in thousandths; the never limiter says 1.
    fn qps_milli(&self) -> u32 {
        match self {
            Limiter::Never => 1000,
            Limiter::Bucket { qps_milli, .. } => *qps_milli,
        }
    }

    fn try_accept(&mut self, now: SimTime) -> bool {
        match self {
            Limiter::Never => false,
            Limiter::Bucket { qps_milli, full_at } => {
                if now < *full_at {
                    return false;
                }
                *full_at = now + SimDuration::millis(1_000_000 / u64::from((*qps_milli).max(1)));
                true
            }
        }
    }

    /// `RateLimitedTimedQueue.SwapLimiter`: nothing if the QPS is the same; else a new
    /// limiter, drained if the old one had no token to give.
    fn swap(&mut self, qps_milli: u32, now: SimTime) {
        if self.qps_milli() == qps_milli {
            return;
        }
        if qps_milli == 0 {
            *self = Limiter::Never;
            return;
        }
        let mut new = Limiter::bucket(qps_milli, now);
        if !self.try_accept(now) {
            new.try_accept(now);
        }
        *self = new;
    }

    /// When a token will next be there, if ever.
    fn next_token(&self) -> Option<SimTime> {
        match self {
            Limiter::Never => None,
            Limiter::Bucket { full_at, .. } => Some(*full_at),
        }
    }
}

/// One zone's `zoneNoExecuteTainter`: a `RateLimitedTimedQueue` of node names. A name
/// stays in `set` after it was processed, until `Remove` (the node was Ready again, or
/// lost its taint), so a tainted node is not queued twice.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct TaintQueue {
    limiter: Limiter,
    /// (added at, insertion order, node): the heap by `ProcessAt`, ties in order.
    queue: Vec<(SimTime, u64, String)>,
    set: BTreeSet<String>,
    seq: u64,
}

impl TaintQueue {
    fn new(now: SimTime) -> Self {
        TaintQueue {
            limiter: Limiter::bucket(NODE_EVICTION_RATE_MILLI, now),
            queue: Vec::new(),
            set: BTreeSet::new(),
            seq: 0,
        }
    }

    fn add(&mut self, node: &str, now: SimTime) -> bool {
        if !self.set.insert(node.to_string()) {
            return false;
        }
        self.queue.push((now, self.seq, node.to_string()));
        self.seq += 1;
        self.queue.stable_sort();
        true
    }

    fn remove(&mut self, node: &str) -> bool {
        if !self.set.remove(node) {
            return false;
        }
        self.queue.retain(|(_, _, n)| n != node);
        true
    }
}

/// What the node lifecycle controller keeps in memory besides `nodeHealthMap`: each
/// zone's state and tainting queue (`zoneStates`, `zoneNoExecuteTainter`), and the
/// lines it has logged.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct NodeLifecycle {
    zone_states: BTreeMap<String, ZoneState>,
    tainters: BTreeMap<String, TaintQueue>,
    /// When the tainting pass tick (`TAINTING_TICK`) is due, if one is.
    tainting_at: Option<SimTime>,
    /// The controller's log lines (kube-controller-manager's container log).
    log: VecDeque<(SimTime, String)>,
    /// What the last health pass read off each node, by name: a node still the
    /// same object is not read again. Rebuilt by the next pass after a restore.
    #[serde(skip)]
    seen: Vec<(Weak<Object>, NodeFacts)>,
    /// Every zone key the pass has met, each once: the nodes of a zone share it.
    #[serde(skip)]
    zone_keys: Vec<Arc<str>>,
}

/// A zone as one health pass meets it.
struct PassZone {
    key: Arc<str>,
    /// The Ready status of each of its nodes counted for disruption.
    ready: Vec<bool>,
}

/// What the health pass reads off a Node object.
#[derive(Clone, Debug)]
struct NodeFacts {
    /// Its zone key, shared by the zone's nodes (`NodeLifecycle::zone_keys`).
    zone: Arc<str>,
    /// Its Ready condition's status (`Unknown` without one).
    observed: String,
    /// Labelled out of the zone's disruption count.
    excluded: bool,
    /// Tainted unreachable or not-ready (either effect).
    has_taints: bool,
    /// The Ready condition's heartbeat.
    heartbeat: Option<SimTime>,
}

impl NodeFacts {
    fn of(node: &Node, zone_keys: &mut Vec<Arc<str>>) -> NodeFacts {
        let key = zone_key(node);
        let zone = match zone_keys.iter().find(|k| ***k == *key) {
            Some(k) => Arc::clone(k),
            None => {
                let k: Arc<str> = key.into();
                zone_keys.push(Arc::clone(&k));
                k
            }
        };
        NodeFacts {
            zone,
            observed: node_ready_status(node).to_string(),
            excluded: node
                .metadata
                .labels
                .as_ref()
                .is_some_and(|l| l.contains_key(EXCLUDE_DISRUPTION)),
            has_taints: node
                .spec
                .as_ref()
                .and_then(|s| s.taints.as_ref())
                .is_some_and(|t| t.iter().any(|t| t.key == UNREACHABLE || t.key == NOT_READY)),
            heartbeat: node
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
                .and_then(|c| c.last_heartbeat_time.as_ref())
                .map(SimTime::from_k8s),
        }
    }
}

/// Each listed node's Lease renewTime, in the nodes' order: the `kube-node-lease`
/// Leases are listed beside the nodes (both by name) instead of looked up one by one.
fn lease_renewals(store: &crate::store::Store, nodes: &[Arc<Object>]) -> Vec<Option<SimTime>> {
    let mut leases = store
        .list_shared(Kind::Lease, Some("kube-node-lease"))
        .peekable();
    nodes
        .iter()
        .map(|node| {
            let name = node.name();
            while leases.next_if(|l| l.name() < name).is_some() {}
            leases
                .next_if(|l| l.name() == name)
                .and_then(|l| l.as_lease())
                .and_then(|l| l.spec.as_ref())
                .and_then(|s| s.renew_time.as_ref())
                .map(|t| {
                    SimTime::from_k8s(&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(t.0))
                })
        })
        .collect()
}

impl NodeLifecycle {
    /// As a snapshot restores it: without the last pass's memo of each node.
    pub(crate) fn copy_as_restored(&self) -> NodeLifecycle {
        NodeLifecycle {
            zone_states: self.zone_states.clone(),
            tainters: self.tainters.clone(),
            tainting_at: self.tainting_at,
            log: self.log.clone(),
            seen: Vec::new(),
            zone_keys: Vec::new(),
        }
    }

    /// What a restarted controller manager no longer knows; its log is the old
    /// container's.
    pub(crate) fn forget(&mut self) {
        self.zone_states.clear();
        self.tainters.clear();
        self.tainting_at = None;
    }

    /// A tainting timer fired while the controller could not work: the next monitor
    /// pass looks at the queues again.
    pub(crate) fn forget_tainting_timer(&mut self) {
        self.tainting_at = None;
    }

    /// The log lines written in `[from, to]`.
    pub(crate) fn log_between(&self, from: SimTime, to: SimTime) -> Vec<(SimTime, String)> {
        self.log
            .iter()
            .filter(|(t, _)| *t >= from && *t <= to)
            .cloned()
            .collect()
    }

    /// Each zone's state, by zone key (`""` for nodes without zone labels).
    #[allow(dead_code)]
    pub fn zone_states(&self) -> impl Iterator<Item = (&str, ZoneState)> {
        self.zone_states.iter().map(|(k, v)| (k.as_str(), *v))
    }
}

/// `topology.GetZoneKey`: the beta failure-domain labels first, then the
/// topology.kubernetes.io ones; `""` when a node has neither region nor zone.
pub fn zone_key(node: &Node) -> String {
    let Some(labels) = node.metadata.labels.as_ref() else {
        return String::new();
    };
    let pick = |beta: &str, ga: &str| {
        labels
            .get(beta)
            .or_else(|| labels.get(ga))
            .cloned()
            .unwrap_or_default()
    };
    let zone = pick(
        "failure-domain.beta.kubernetes.io/zone",
        "topology.kubernetes.io/zone",
    );
    let region = pick(
        "failure-domain.beta.kubernetes.io/region",
        "topology.kubernetes.io/region",
    );
    if region.is_empty() && zone.is_empty() {
        return String::new();
    }
    format!("{region}:\u{0}:{zone}")
}

/// `ComputeZoneState` over the zone's Ready statuses: FullDisruption when none is
/// Ready, PartialDisruption when more than 2 and at least 55% are not, else Normal.
pub fn compute_zone_state(ready: &[bool]) -> ZoneState {
    let ready_nodes = ready.iter().filter(|r| **r).count();
    let not_ready = ready.len() - ready_nodes;
    if ready_nodes == 0 && not_ready > 0 {
        ZoneState::FullDisruption
    } else if not_ready > 2
        && (not_ready as f32) / ((not_ready + ready_nodes) as f32) >= UNHEALTHY_ZONE_THRESHOLD
    {
        ZoneState::PartialDisruption
    } else {
        ZoneState::Normal
    }
}

/// The tainting rate for a zone in `state` (`setLimiterInZone`): the normal rate, or
/// in PartialDisruption `ReducedQPSFunc` (the secondary rate above the large-cluster
/// threshold, else 0); FullDisruption of one zone keeps the normal rate
/// (`HealthyQPSFunc`).
fn zone_rate_milli(state: ZoneState, zone_size: usize) -> Option<u32> {
    match state {
        ZoneState::Normal | ZoneState::FullDisruption => Some(NODE_EVICTION_RATE_MILLI),
        ZoneState::PartialDisruption if zone_size > LARGE_CLUSTER_SIZE_THRESHOLD => {
            Some(SECONDARY_NODE_EVICTION_RATE_MILLI)
        }
        ZoneState::PartialDisruption => Some(0),
        ZoneState::Initial => None,
    }
}

/// A zone key as klog quotes it (the separator is a NUL byte).
fn quote_zone(zone: &str) -> String {
    format!("\"{}\"", zone.replace('\u{0}', "\\x00"))
}

impl Cluster {
    /// One line of the node lifecycle controller's log, in klog's text format with
    /// the controller's logger name. The source line number is not modelled.
    fn node_lifecycle_log(&mut self, message: &str, pairs: &[(&str, String)]) {
        let stamp = self
            .now
            .to_k8s()
            .0
            .to_zoned(k8s_openapi::jiff::tz::TimeZone::UTC)
            .strftime("%m%d %H:%M:%S.%6f")
            .to_string();
        let mut line = format!(
            "I{stamp}       1 node_lifecycle_controller.go] \"{message}\" logger=\"node-lifecycle-controller\""
        );
        for (k, v) in pairs {
            line.push_str(&format!(" {k}={v}"));
        }
        let log = &mut self.control_plane.node_lifecycle.log;
        if log.len() == LOG_CAPACITY {
            log.pop_front();
        }
        log.push_back((self.now, line));
    }

    /// One pass of `monitorNodeHealth`. Staleness is judged by the controller's own
    /// clock: a node's probe timestamp moves to "now" whenever the controller sees
    /// its Lease renewed or its Ready heartbeat change (`tryUpdateNodeHealth`), and a
    /// node seen for the first time — after the controller manager (re)started —
    /// counts as freshly heard from. A Lease that stopped changing is stale only
    /// `GRACE_PERIOD` after the controller last saw it change.
    ///
    /// Each node's taint-based eviction (`processTaintBaseEviction`) goes by the Ready
    /// condition the pass *found*, before its own update: a node declared Unknown in
    /// this pass joins its zone's tainting queue at the next pass. Then
    /// `handleDisruption` sets each zone's rate from the zones' health, and the
    /// tainting pass (upstream every 100 ms, here at once and then when the next token
    /// is due) takes the queues' heads.
    pub(crate) fn monitor_node_health(&mut self) {
        // The nodes as the pass starts (upstream lists its informer's cache once),
        // shared: a node is copied only for a write, and then read again.
        let nodes: Vec<Arc<Object>> = self.store.list_shared(Kind::Node, None).cloned().collect();
        // Both in name order (`retain` visits keys in ascending order): one walk.
        let mut listed = nodes.iter().map(|n| n.name()).peekable();
        self.control_plane.node_health.retain(|name, _| {
            while listed.next_if(|n| *n < name.as_str()).is_some() {}
            listed.next_if(|n| *n == name.as_str()).is_some()
        });
        let renewals = lease_renewals(&self.store, &nodes);
        // What the last pass read off each node, reused for a node it saw unchanged.
        let mut last_seen = std::mem::take(&mut self.control_plane.node_lifecycle.seen)
            .into_iter()
            .peekable();
        let mut seen = Vec::with_capacity(nodes.len());
        // The zones met in this pass, with the Ready status of each of their nodes.
        let mut zones: Vec<PassZone> = Vec::new();
        // Only a node queued for tainting before the pass can leave a queue when it is
        // Ready: a node queued during the pass is not visited again.
        let queued = self
            .control_plane
            .node_lifecycle
            .tainters
            .values()
            .any(|q| !q.set.is_empty());
        for (obj, renewed) in nodes.iter().zip(renewals) {
            let Some(node) = obj.as_node() else {
                continue;
            };
            let name = obj.name();
            // A node gone since (its object freed) or named before this one is
            // passed over; the memo holds no object alive (`Weak`: the address of
            // one it saw is not reused while the memo remembers it).
            while last_seen
                .next_if(|(n, _)| n.upgrade().is_none_or(|n| n.name() < name))
                .is_some()
            {}
            let facts = match last_seen.next_if(|(n, _)| std::ptr::eq(n.as_ptr(), Arc::as_ptr(obj)))
            {
                Some((_, facts)) => facts,
                None => NodeFacts::of(node, &mut self.control_plane.node_lifecycle.zone_keys),
            };
            let zone_at = match zones.iter().position(|z| Arc::ptr_eq(&z.key, &facts.zone)) {
                Some(at) => at,
                None => {
                    self.add_zone_evictor(&facts.zone);
                    zones.push(PassZone {
                        key: Arc::clone(&facts.zone),
                        ready: Vec::new(),
                    });
                    zones.len() - 1
                }
            };
            let zone = &*facts.zone;
            let observed = facts.observed.as_str();
            let heartbeat = facts.heartbeat;
            let now = self.now;
            let health = &mut self.control_plane.node_health;
            let mut first_sight = false;
            let probed = match health.get_mut(name) {
                Some(health) => {
                    if health.observed_renew != renewed || health.observed_heartbeat != heartbeat {
                        health.probe_timestamp = now;
                        health.observed_renew = renewed;
                        health.observed_heartbeat = heartbeat;
                    }
                    health.probe_timestamp
                }
                None => {
                    first_sight = true;
                    health.insert(
                        name.to_string(),
                        NodeHealth {
                            probe_timestamp: now,
                            observed_renew: renewed,
                            observed_heartbeat: heartbeat,
                        },
                    );
                    now
                }
            };
            let stale = now.since(probed) > GRACE_PERIOD;
            if first_sight {
                self.node_lifecycle_log(
                    "Missing timestamp for Node. Assuming now as a timestamp",
                    &[("node", format!("\"{name}\""))],
                );
            }
            let current = |c: &Cluster| {
                c.store
                    .get(&ObjectKey::new(Kind::Node, "", name))
                    .and_then(|o| o.as_node())
                    .cloned()
            };
            let mut ready = observed == "True";
            if stale && observed != "Unknown" {
                if let Some(node) = current(self) {
                    if self.mark_node_unknown(node) {
                        ready = false;
                    }
                }
            } else if !stale && ready && facts.has_taints {
                // markNodeAsReachable, and the NoSchedule pass for a Ready node.
                if let Some(node) = current(self) {
                    self.remove_unreachable_taints(node);
                }
            }
            if observed == "True" {
                if queued {
                    if let Some(q) = self.control_plane.node_lifecycle.tainters.get_mut(zone) {
                        q.remove(name);
                    }
                }
            } else if let Some(node) = current(self) {
                self.mark_node_for_tainting(zone, &node, observed);
            }
            if !facts.excluded {
                zones[zone_at].ready.push(ready);
            }
            seen.push((Arc::downgrade(obj), facts));
        }
        let lifecycle = &mut self.control_plane.node_lifecycle;
        lifecycle.seen = seen;
        // Zone keys no node holds any more are let go.
        lifecycle.zone_keys.retain(|k| Arc::strong_count(k) > 1);
        // Zone key → the Ready status of each of its counted nodes (a zone whose
        // nodes are all excluded has no state).
        let zone_ready: BTreeMap<String, Vec<bool>> = zones
            .into_iter()
            .filter(|z| !z.ready.is_empty())
            .map(|z| (z.key.to_string(), z.ready))
            .collect_map();
        self.handle_disruption(&zone_ready, &nodes);
        self.no_execute_tainting_pass();
    }

    /// `addPodEvictorForNewZone`: a zone seen for the first time gets its state and
    /// its tainting queue.
    fn add_zone_evictor(&mut self, zone: &str) {
        if self
            .control_plane
            .node_lifecycle
            .tainters
            .contains_key(zone)
        {
            return;
        }
        let now = self.now;
        let lifecycle = &mut self.control_plane.node_lifecycle;
        lifecycle
            .zone_states
            .insert(zone.to_string(), ZoneState::Initial);
        lifecycle
            .tainters
            .insert(zone.to_string(), TaintQueue::new(now));
        self.node_lifecycle_log(
            "Initializing eviction metric for zone",
            &[("zone", quote_zone(zone))],
        );
    }

    /// `markNodeForTainting` (and the instant swap of an opposite taint): a node that
    /// lacks the NoExecute taint its Ready condition calls for goes back in the queue.
    fn mark_node_for_tainting(&mut self, zone: &str, node: &Node, observed: &str) {
        let (want, opposite) = if observed == "False" {
            (NOT_READY, UNREACHABLE)
        } else {
            (UNREACHABLE, NOT_READY)
        };
        let has = |key: &str| {
            node.spec
                .as_ref()
                .and_then(|s| s.taints.as_ref())
                .is_some_and(|ts| ts.iter().any(|t| t.key == key && t.effect == "NoExecute"))
        };
        let name = node.metadata.name.clone().unwrap_or_default();
        if has(opposite) {
            // The node was already tainted for the other reason: swapped at once.
            self.swap_no_execute_taint(node.clone(), want, opposite);
            return;
        }
        let now = self.now;
        let Some(q) = self.control_plane.node_lifecycle.tainters.get_mut(zone) else {
            return;
        };
        if !has(want) {
            q.remove(&name);
        }
        q.add(&name, now);
    }

    /// `SwapNodeControllerTaint` for the NoExecute taints: adds `add` (timeAdded now)
    /// and removes `remove`.
    fn swap_no_execute_taint(&mut self, mut node: Node, add: &str, remove: &str) -> bool {
        let now = self.now.to_k8s();
        let taints = node
            .spec
            .get_or_insert_with(Default::default)
            .taints
            .get_or_insert_with(Vec::new);
        let before = taints.clone();
        taints.retain(|t| !(t.key == remove && t.effect == "NoExecute"));
        if !taints
            .iter()
            .any(|t| t.key == add && t.effect == "NoExecute")
        {
            taints.push(Taint {
                key: add.into(),
                effect: "NoExecute".into(),
                time_added: Some(now),
                value: None,
            });
        }
        if *taints == before {
            return true;
        }
        self.update_as(NODE_ACTOR, Object::Node(Box::new(node)))
            .is_ok()
    }

    /// `handleDisruption`: each zone's new state from its nodes' Ready conditions, the
    /// master disruption mode when every zone is FullDisruption (the controller then
    /// suspects its own connectivity, takes every NoExecute taint it set off and
    /// stops tainting), and the zones' tainting rates.
    fn handle_disruption(
        &mut self,
        zone_ready: &BTreeMap<String, Vec<bool>>,
        nodes: &[Arc<Object>],
    ) {
        let mut new_states: BTreeMap<String, ZoneState> = BTreeMap::new();
        let mut all_are_fully_disrupted = true;
        for (zone, ready) in zone_ready {
            let state = compute_zone_state(ready);
            if state != ZoneState::FullDisruption {
                all_are_fully_disrupted = false;
            }
            new_states.insert(zone.clone(), state);
            if !self
                .control_plane
                .node_lifecycle
                .zone_states
                .contains_key(zone)
            {
                self.node_lifecycle_log(
                    "Setting initial state for unseen zone",
                    &[("zone", quote_zone(zone))],
                );
                self.control_plane
                    .node_lifecycle
                    .zone_states
                    .insert(zone.clone(), ZoneState::Initial);
            }
        }
        // Zones left without nodes are forgotten. (Upstream stops forgetting at the
        // first zone that is not FullDisruption, in Go's random map order; here every
        // empty zone goes.)
        self.control_plane
            .node_lifecycle
            .zone_states
            .retain(|zone, _| zone_ready.contains_key(zone));
        let all_was_fully_disrupted = self
            .control_plane
            .node_lifecycle
            .zone_states
            .values()
            .all(|s| *s == ZoneState::FullDisruption);
        if all_are_fully_disrupted && all_was_fully_disrupted {
            return;
        }
        let now = self.now;
        if all_are_fully_disrupted {
            self.node_lifecycle_log(
                "Controller detected that all Nodes are not-Ready. Entering master disruption mode",
                &[],
            );
            for node in nodes {
                self.mark_node_as_reachable(node.name());
            }
            let lifecycle = &mut self.control_plane.node_lifecycle;
            let zones: Vec<String> = lifecycle.zone_states.keys().cloned().collect();
            for zone in zones {
                if let Some(q) = lifecycle.tainters.get_mut(&zone) {
                    q.limiter.swap(0, now);
                }
                lifecycle
                    .zone_states
                    .insert(zone, ZoneState::FullDisruption);
            }
            return;
        }
        if all_was_fully_disrupted {
            self.node_lifecycle_log(
                "Controller detected that some Nodes are Ready. Exiting master disruption mode",
                &[],
            );
            // Every node's clock starts again.
            for health in self.control_plane.node_health.values_mut() {
                health.probe_timestamp = now;
            }
            let lifecycle = &mut self.control_plane.node_lifecycle;
            let zones: Vec<String> = lifecycle.zone_states.keys().cloned().collect();
            for zone in zones {
                let state = new_states.get(&zone).copied().unwrap_or(ZoneState::Normal);
                let size = zone_ready.get(&zone).map_or(0, Vec::len);
                if let (Some(rate), Some(q)) = (
                    zone_rate_milli(state, size),
                    lifecycle.tainters.get_mut(&zone),
                ) {
                    q.limiter.swap(rate, now);
                }
                lifecycle.zone_states.insert(zone, state);
            }
            return;
        }
        let zones: Vec<(String, ZoneState)> = self
            .control_plane
            .node_lifecycle
            .zone_states
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        for (zone, old) in zones {
            let Some(&state) = new_states.get(&zone) else {
                continue;
            };
            if state == old {
                continue;
            }
            self.node_lifecycle_log(
                "Controller detected that zone is now in new state",
                &[
                    ("zone", quote_zone(&zone)),
                    ("newState", format!("\"{}\"", state.as_str())),
                ],
            );
            let size = zone_ready.get(&zone).map_or(0, Vec::len);
            let lifecycle = &mut self.control_plane.node_lifecycle;
            if let (Some(rate), Some(q)) = (
                zone_rate_milli(state, size),
                lifecycle.tainters.get_mut(&zone),
            ) {
                q.limiter.swap(rate, now);
            }
            lifecycle.zone_states.insert(zone, state);
        }
    }

    /// `markNodeAsReachable`: the NoExecute taints the controller sets come off, and
    /// the node leaves its zone's queue.
    fn mark_node_as_reachable(&mut self, name: &str) {
        let key = ObjectKey::new(Kind::Node, "", name);
        let Some(Object::Node(mut node)) = self.store.get(&key).cloned() else {
            return;
        };
        let zone = zone_key(&node);
        if let Some(taints) = node.spec.as_mut().and_then(|s| s.taints.as_mut()) {
            let before = taints.len();
            taints.retain(|t| {
                !((t.key == UNREACHABLE || t.key == NOT_READY) && t.effect == "NoExecute")
            });
            if taints.len() != before {
                if taints.is_empty() {
                    node.spec.as_mut().expect("checked above").taints = None;
                }
                let _ = self.update_as(NODE_ACTOR, Object::Node(node));
            }
        }
        if let Some(q) = self.control_plane.node_lifecycle.tainters.get_mut(&zone) {
            q.remove(name);
        }
    }

    /// `doNoExecuteTaintingPass`: in each zone, while the limiter gives a token, the
    /// queue's head gets the NoExecute taint its Ready condition calls for. Then a
    /// `TAINTING_TICK` for the next token a waiting queue needs (upstream
    /// looks every 100 ms; the timer falls on the same 100 ms steps).
    pub(crate) fn no_execute_tainting_pass(&mut self) {
        let now = self.now;
        if self
            .control_plane
            .node_lifecycle
            .tainting_at
            .is_some_and(|t| t <= now)
        {
            self.control_plane.node_lifecycle.tainting_at = None;
        }
        let zones: Vec<String> = self
            .control_plane
            .node_lifecycle
            .tainters
            .keys()
            .cloned()
            .collect();
        for zone in zones {
            loop {
                let lifecycle = &mut self.control_plane.node_lifecycle;
                let Some(q) = lifecycle.tainters.get_mut(&zone) else {
                    break;
                };
                let Some((_, _, head)) = q.queue.first().cloned() else {
                    break;
                };
                if !q.limiter.try_accept(now) {
                    break;
                }
                let done = self.taint_queued_node(&head);
                let Some(q) = self.control_plane.node_lifecycle.tainters.get_mut(&zone) else {
                    break;
                };
                if done {
                    // RemoveFromQueue: out of the queue, still in the set.
                    q.queue.retain(|(_, _, n)| *n != head);
                } else {
                    // Retried 50 ms later (ProcessAt moves); the next pass takes it.
                    break;
                }
            }
        }
        let next = self
            .control_plane
            .node_lifecycle
            .tainters
            .values()
            .filter(|q| !q.queue.is_empty())
            .filter_map(|q| q.limiter.next_token())
            .map(|t| {
                let step = NODE_EVICTION_PERIOD.as_millis();
                SimTime(t.0.max(now.0 + 1).div_ceil(step) * step)
            })
            .min();
        if let Some(at) = next {
            let lifecycle = &mut self.control_plane.node_lifecycle;
            if lifecycle.tainting_at.is_none_or(|t| at < t) {
                lifecycle.tainting_at = Some(at);
                self.schedule_tick(ID, at, Tick::new(TAINTING_TICK));
            }
        }
    }

    /// The tainting queue's action for one node: true when it is done with it.
    fn taint_queued_node(&mut self, name: &str) -> bool {
        let key = ObjectKey::new(Kind::Node, "", name);
        let Some(Object::Node(node)) = self.store.get(&key).cloned() else {
            return true; // "Node no longer present in nodeLister"
        };
        match node_ready_status(&node) {
            "False" => self.swap_no_execute_taint(*node, NOT_READY, UNREACHABLE),
            "Unknown" => self.swap_no_execute_taint(*node, UNREACHABLE, NOT_READY),
            // Ready again: no taint needed.
            _ => true,
        }
    }

    /// The verdict on a silent node: every condition Unknown and, in the same write,
    /// the `unreachable:NoSchedule` taint (upstream's NoSchedule tainting pass sends it
    /// a moment later, reacting to the status update); its pods are marked not ready.
    /// The NoExecute taint comes from the zone's tainting queue. False if the write
    /// failed.
    fn mark_node_unknown(&mut self, mut node: Node) -> bool {
        let now = self.now.to_k8s();
        let name = node.metadata.name.clone().unwrap_or_default();
        if let Some(conds) = node.status.as_mut().and_then(|s| s.conditions.as_mut()) {
            for c in conds.iter_mut() {
                *c = NodeCondition {
                    type_: c.type_.clone(),
                    status: "Unknown".into(),
                    reason: Some("NodeStatusUnknown".into()),
                    message: Some("Kubelet stopped posting node status.".into()),
                    last_heartbeat_time: c.last_heartbeat_time.clone(),
                    last_transition_time: Some(now.clone()),
                };
            }
        }
        let taints = node
            .spec
            .get_or_insert_with(Default::default)
            .taints
            .get_or_insert_with(Vec::new);
        if !taints
            .iter()
            .any(|t| t.key == UNREACHABLE && t.effect == "NoSchedule")
        {
            taints.push(Taint {
                key: UNREACHABLE.into(),
                effect: "NoSchedule".into(),
                // SwapNodeControllerTaint stamps every taint it adds.
                time_added: Some(now.clone()),
                value: None,
            });
        }
        let Ok(updated) = self.update_as(NODE_ACTOR, Object::Node(Box::new(node))) else {
            return false;
        };
        self.record_event(
            &updated,
            "node-controller",
            None,
            "Normal",
            "NodeNotReady",
            format!("Node {name} status is now: NodeNotReady"),
        );
        // MarkPodsNotReady: the pods' Ready condition goes False so endpoints stop
        // sending them traffic.
        let pods: Vec<ObjectKey> = self.store.pods_on_node(&name).cloned().collect();
        for key in pods {
            let Some(Object::Pod(mut pod)) = self.store.get(&key).cloned() else {
                continue;
            };
            let already = super::pod_condition(&pod, "Ready").is_some_and(|c| c.status == "False");
            if already {
                continue;
            }
            set_pod_condition(
                &mut pod,
                PodCondition {
                    type_: "Ready".into(),
                    status: "False".into(),
                    last_transition_time: Some(now.clone()),
                    ..Default::default()
                },
            );
            let pod_obj = Object::Pod(pod);
            if self.update_as(NODE_ACTOR, pod_obj.clone()).is_ok() {
                self.record_event(
                    &pod_obj,
                    "node-controller",
                    None,
                    "Warning",
                    "NodeNotReady",
                    "Node is not ready".into(),
                );
            }
        }
        true
    }

    /// `doNoScheduleTaintingPass` for cordons: a node with `spec.unschedulable` gets
    /// the `node.kubernetes.io/unschedulable:NoSchedule` taint, an uncordoned one
    /// loses it.
    fn sync_unschedulable_taint(&mut self, node_key: &ObjectKey) {
        let Some(Object::Node(mut node)) = self.store.get(node_key).cloned() else {
            return;
        };
        if !unschedulable_taint_stale(&node) {
            return;
        }
        let cordoned = node
            .spec
            .as_ref()
            .and_then(|s| s.unschedulable)
            .unwrap_or(false);
        let now = self.now.to_k8s();
        let spec = node.spec.get_or_insert_with(Default::default);
        let mut taints = spec.taints.take().unwrap_or_default();
        if cordoned {
            taints.push(Taint {
                key: UNSCHEDULABLE.into(),
                effect: "NoSchedule".into(),
                time_added: Some(now),
                value: None,
            });
        } else {
            taints.retain(|t| !(t.key == UNSCHEDULABLE && t.effect == "NoSchedule"));
        }
        spec.taints = (!taints.is_empty()).then_some(taints);
        let _ = self.update_as(NODE_ACTOR, Object::Node(node));
    }

    fn remove_unreachable_taints(&mut self, mut node: Node) {
        let Some(taints) = node.spec.as_mut().and_then(|s| s.taints.as_mut()) else {
            return;
        };
        let before = taints.len();
        taints.retain(|t| t.key != UNREACHABLE && t.key != NOT_READY);
        if taints.len() != before {
            if taints.is_empty() {
                node.spec.as_mut().expect("checked above").taints = None;
            }
            let _ = self.update_as(NODE_ACTOR, Object::Node(Box::new(node)));
        }
    }

    /// Taint eviction: (re)computes each pod's eviction deadline on a node whose
    /// NoExecute taints changed.
    fn sync_node_taints(&mut self, node_key: &ObjectKey) {
        let taints: Vec<Taint> = match self.store.get(node_key).and_then(|o| o.as_node()) {
            Some(n) => n
                .spec
                .as_ref()
                .and_then(|s| s.taints.clone())
                .unwrap_or_default()
                .into_iter()
                .filter(|t| t.effect == "NoExecute")
                .collect(),
            None => Vec::new(),
        };
        let pods: Vec<ObjectKey> = self.store.pods_on_node(&node_key.name).cloned().collect();
        for key in pods {
            let Some(Object::Pod(pod)) = self.store.get(&key) else {
                continue;
            };
            let uid = pod.metadata.uid.clone().unwrap_or_default();
            if pod.metadata.deletion_timestamp.is_some() {
                continue;
            }
            if taints.is_empty() {
                self.controllers.evictions.remove(&uid);
                continue;
            }
            let tolerations = pod
                .spec
                .as_ref()
                .and_then(|s| s.tolerations.clone())
                .unwrap_or_default();
            // The earliest moment any taint stops being tolerated.
            let mut deadline: Option<SimTime> = None;
            let mut forever = true;
            for taint in &taints {
                let added = taint
                    .time_added
                    .as_ref()
                    .map(SimTime::from_k8s)
                    .unwrap_or(self.now);
                let matching: Vec<&Toleration> =
                    tolerations.iter().filter(|t| tolerates(t, taint)).collect();
                let at = if matching.is_empty() {
                    Some(self.now)
                } else if matching.iter().any(|t| t.toleration_seconds.is_none()) {
                    None
                } else {
                    let secs = matching
                        .iter()
                        .filter_map(|t| t.toleration_seconds)
                        .min()
                        .unwrap_or(0);
                    // Negative counts as zero; a huge one saturates at the far future.
                    Some(added + SimDuration::from_secs_i64(secs))
                };
                if let Some(at) = at {
                    forever = false;
                    deadline = Some(deadline.map_or(at, |d: SimTime| d.min(at)));
                }
            }
            match deadline {
                Some(at) if !forever => {
                    if self.controllers.evictions.get(&uid) != Some(&at) {
                        self.controllers.evictions.insert(uid.clone(), at);
                        let tick = Tick::about(EVICT_TICK, key.clone(), &uid);
                        self.schedule_tick(TAINT_EVICTION_ID, at, tick);
                    }
                }
                _ => {
                    self.controllers.evictions.remove(&uid);
                }
            }
        }
    }

    /// An eviction deadline passed: mark the pod with a DisruptionTarget condition and
    /// delete it.
    pub(crate) fn evict_pod(&mut self, key: &ObjectKey, uid: &str) {
        match self.controllers.evictions.get(uid) {
            Some(at) if *at <= self.now => {
                self.controllers.evictions.remove(uid);
            }
            _ => return, // cancelled or rescheduled
        }
        let Some(Object::Pod(mut pod)) = self.store.get(key).cloned() else {
            return;
        };
        if pod.metadata.uid.as_deref() != Some(uid) || pod.metadata.deletion_timestamp.is_some() {
            return;
        }
        set_pod_condition(
            &mut pod,
            PodCondition {
                type_: "DisruptionTarget".into(),
                status: "True".into(),
                reason: Some("DeletionByTaintManager".into()),
                message: Some("Taint manager: deleting due to NoExecute taint".into()),
                last_transition_time: Some(self.now.to_k8s()),
                ..Default::default()
            },
        );
        let pod_obj = Object::Pod(pod);
        let _ = self.update_as(EVICTION_ACTOR, pod_obj.clone());
        self.record_event(
            &pod_obj,
            "taint-eviction-controller",
            None,
            "Normal",
            "TaintManagerEviction",
            format!("Marking for deletion Pod {}/{}", key.namespace, key.name),
        );
        let _ = self.delete_as(EVICTION_ACTOR, key, None);
    }
}
