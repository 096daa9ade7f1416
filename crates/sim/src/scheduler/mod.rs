//! The zone dispatcher (kube-scheduler, pkg/scheduler): a scheduling queue
//! ([`queue`], internal/queue/scheduling_queue.go), the default profile's filter and
//! score plugins ([`plugins`] and [`interpodaffinity`], framework/plugins),
//! `selectHost`, and binding through the apiserver. A per-pod [`Decision`] records
//! the latest attempt for "why this zone?" (`sim why-node`). When no node fits,
//! DefaultPreemption ([`preemption`]) looks for lower-priority victims.

pub mod interpodaffinity;
pub mod plugins;
pub mod preemption;
pub mod queue;
mod spread_index;

use crate::apiserver::Actor;
use crate::cluster::{Cluster, Component};
use crate::controllers::set_pod_condition;
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::{CollectMap, StableSort};
use crate::store::{EventType, WatchEvent};
use crate::time::SimTime;
use k8s_openapi::api::core::v1::{Pod, PodCondition, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};
use litemap::LiteMap;
use plugins::{HostPort, PodFacts, Resources, SCORE_WEIGHTS};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

pub use plugins::pod_requests;
pub(crate) use queue::SchedulerTimer;
pub use queue::{INITIAL_BACKOFF, MAX_BACKOFF, MAX_IN_UNSCHEDULABLE};

/// Scheduling decisions kept for the "why this zone?" view (the latest per pod).
pub const DECISIONS_KEPT: usize = 256;
/// Clusters up to this size keep every node's verdict in a decision; larger ones keep
/// the outcome and the message only.
pub const DETAILED_DECISION_NODES: usize = 100;

/// What the scheduler's cache knows of a pod on a node.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PodEntry {
    pub namespace: String,
    /// A sorted vector, not a `BTreeMap`: a pod has a few labels, and a tree's node
    /// keeps room for eleven.
    pub labels: LiteMap<String, String>,
    pub terminating: bool,
    /// `spec.priority` (0 when unset).
    #[serde(default)]
    pub priority: i32,
    /// Its inter-pod (anti-)affinity terms, if it has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Box<interpodaffinity::AffinityTerms>>,
}

/// What the scheduler's cache knows of a node (upstream `framework.NodeInfo`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NodeInfo {
    pub allocatable: Resources,
    pub allocatable_pods: u64,
    /// The sum of the requests of the pods on the node.
    pub requested: Resources,
    /// Non-zero requests, for scoring.
    pub nonzero_cpu: u64,
    pub nonzero_memory: u64,
    pub pod_count: u64,
    pub taints: Vec<Taint>,
    pub labels: BTreeMap<String, String>,
    pub unschedulable: bool,
    /// Host ports in use.
    pub ports: Vec<HostPort>,
    #[serde(with = "crate::snapshot::pairs")]
    pub pods: BTreeMap<ObjectKey, PodEntry>,
    /// `status.images`: canonical name → size in bytes.
    pub images: BTreeMap<String, u64>,
}

impl NodeInfo {
    /// Takes a pod's requests, ports and entry off the node (upstream
    /// `NodeInfo.RemovePod`).
    fn take(&mut self, key: &ObjectKey, a: &Accounted) -> Option<PodEntry> {
        self.requested.sub(&a.requests);
        self.nonzero_cpu = self.nonzero_cpu.saturating_sub(a.nonzero.0);
        self.nonzero_memory = self.nonzero_memory.saturating_sub(a.nonzero.1);
        self.pod_count = self.pod_count.saturating_sub(1);
        for p in &a.ports {
            if let Some(i) = self.ports.iter().position(|x| x == p) {
                self.ports.remove(i);
            }
        }
        self.pods.remove(key)
    }

    /// Puts a pod on the node (upstream `NodeInfo.AddPod`).
    fn put(&mut self, key: &ObjectKey, a: &Accounted, entry: PodEntry) {
        self.requested.add(&a.requests);
        self.nonzero_cpu = self.nonzero_cpu.saturating_add(a.nonzero.0);
        self.nonzero_memory = self.nonzero_memory.saturating_add(a.nonzero.1);
        self.pod_count += 1;
        self.ports.extend(a.ports.iter().cloned());
        self.pods.insert(key.clone(), entry);
    }

    /// The fields a filter reads from the Node object (a change may let a pending pod
    /// fit).
    fn placement(
        &self,
    ) -> (
        &Resources,
        u64,
        &Vec<Taint>,
        &BTreeMap<String, String>,
        bool,
    ) {
        (
            &self.allocatable,
            self.allocatable_pods,
            &self.taints,
            &self.labels,
            self.unschedulable,
        )
    }
}

/// A pod counted in a node's totals. What the filters read of it (its [`PodEntry`])
/// is kept once, in its node's `pods`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct Accounted {
    node: String,
    requests: Resources,
    nonzero: (u64, u64),
    ports: Vec<HostPort>,
}

/// One score plugin's result for a node.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PluginScore {
    pub plugin: String,
    /// The plugin's `Score`.
    pub raw: i64,
    /// After its `NormalizeScore` (0-100).
    pub normalized: i64,
    pub weight: i64,
    /// `normalized × weight`.
    pub weighted: i64,
}

/// One node's verdict in a scheduling attempt.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NodeVerdict {
    pub node: String,
    /// The filter plugin that rejected the node; `None` if it passed every filter.
    pub failed_plugin: Option<String>,
    /// That plugin's reasons (`Insufficient cpu`, ...).
    pub reasons: Vec<String>,
    /// Each score plugin that ran, for feasible nodes.
    pub scores: Vec<PluginScore>,
    /// The sum of the weighted scores.
    pub total: i64,
}

/// The record of a pod's latest scheduling attempt, for "why this zone?".
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Decision {
    pub pod: ObjectKey,
    /// When the attempt ran, and how many attempts the pod has had.
    pub at: SimTime,
    pub attempt: u32,
    pub chosen: Option<String>,
    /// Every node, sorted by name (empty above [`DETAILED_DECISION_NODES`] nodes).
    pub verdicts: Vec<NodeVerdict>,
    /// `Successfully assigned ...` or the FailedScheduling message.
    pub message: String,
    /// What a failed attempt's preemption did to the pod's nominated node.
    #[serde(default)]
    pub nomination: preemption::Nomination,
    /// The pods preempted for it.
    #[serde(default)]
    pub victims: Vec<ObjectKey>,
}

#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct SchedulerState {
    pub nodes: BTreeMap<String, NodeInfo>,
    #[serde(with = "crate::snapshot::pairs")]
    accounted: BTreeMap<ObjectKey, Accounted>,
    /// The scheduling queue's unschedulablePods and backoffQ (the activeQ is the
    /// scheduler's work queue).
    pub(crate) queue: queue::SchedulingQueue,
    pub decisions: VecDeque<Decision>,
    /// Where the next scheduling cycle starts filtering (upstream
    /// `nextStartNodeIndex`), in name order.
    #[serde(default)]
    pub(crate) next_start_node_index: usize,
    /// Pods whose node is chosen and whose claims wait to be bound before the pod
    /// is (the VolumeBinding plugin's PreBind), with that node.
    #[serde(default, with = "crate::snapshot::pairs")]
    pub(crate) waiting_on_volumes: BTreeMap<ObjectKey, String>,
    /// How many nodes list each image, kept with the node cache.
    #[serde(skip)]
    image_nodes: ImageNodes,
    /// The assigned pods with inter-pod affinity terms, kept with the node cache.
    #[serde(skip)]
    affinity_pods: AffinityIndex,
    /// Node positions, topology domains and spreading selectors' counts as
    /// integers.
    #[serde(skip)]
    spread_index: spread_index::SpreadIndex,
}

/// The assigned pods with inter-pod affinity terms (upstream's `PodsWithAffinity` and
/// `PodsWithRequiredAntiAffinity` of each NodeInfo), so that scheduling a pod
/// without terms of its own reads only these. Not written in a snapshot; listed
/// again from the nodes on first use.
#[derive(Clone, Default)]
struct AffinityIndex {
    counted: bool,
    any: BTreeSet<ObjectKey>,
    required_anti: BTreeSet<ObjectKey>,
}

impl AffinityIndex {
    fn of(nodes: &BTreeMap<String, NodeInfo>) -> AffinityIndex {
        let mut index = AffinityIndex {
            counted: true,
            ..Default::default()
        };
        for n in nodes.values() {
            for (key, p) in &n.pods {
                index.set(key, p);
            }
        }
        index
    }

    fn set(&mut self, key: &ObjectKey, p: &PodEntry) {
        if let Some(a) = &p.affinity {
            self.any.insert(key.clone());
            if !a.required_anti.is_empty() {
                self.required_anti.insert(key.clone());
            }
        }
    }

    fn remove(&mut self, key: &ObjectKey) {
        self.any.remove(key);
        self.required_anti.remove(key);
    }
}

/// How many nodes list each image in `status.images` (upstream's `imageStates` in
/// the scheduler's snapshot): counted once and kept as nodes change, instead of
/// over every node for each pod. Not written in a snapshot; counted again from the
/// nodes on first use.
#[derive(Clone, Default)]
struct ImageNodes {
    counted: bool,
    counts: BTreeMap<String, usize>,
}

impl ImageNodes {
    fn of(nodes: &BTreeMap<String, NodeInfo>) -> ImageNodes {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for n in nodes.values() {
            for img in n.images.keys() {
                *counts.entry(img.clone()).or_default() += 1;
            }
        }
        ImageNodes {
            counted: true,
            counts,
        }
    }

    /// A node's images changed from `old` to `new` (an empty map: the node is new,
    /// or gone).
    fn replace(&mut self, old: &BTreeMap<String, u64>, new: &BTreeMap<String, u64>) {
        if !self.counted || old == new {
            return;
        }
        for img in old.keys().filter(|i| !new.contains_key(*i)) {
            if let Some(c) = self.counts.get_mut(img) {
                *c = c.saturating_sub(1);
                if *c == 0 {
                    self.counts.remove(img);
                }
            }
        }
        for img in new.keys().filter(|i| !old.contains_key(*i)) {
            *self.counts.entry(img.clone()).or_default() += 1;
        }
    }

    fn count(&self, image: &str) -> usize {
        self.counts.get(image).copied().unwrap_or(0)
    }
}

/// Clusters smaller than this filter every node (upstream `minFeasibleNodesToFind`).
pub const MIN_FEASIBLE_NODES_TO_FIND: usize = 100;

/// How many feasible nodes a scheduling cycle looks for before it stops filtering
/// (upstream `numFeasibleNodesToFind` with the default adaptive
/// `percentageOfNodesToScore`: 50% less 1% per 125 nodes, at least 5%, at least 100
/// nodes).
pub fn num_feasible_nodes_to_find(all: usize) -> usize {
    if all < MIN_FEASIBLE_NODES_TO_FIND {
        return all;
    }
    let percentage = 50usize.saturating_sub(all / 125).max(5);
    (all * percentage / 100).max(MIN_FEASIBLE_NODES_TO_FIND)
}

impl SchedulerState {
    fn account(&mut self, key: &ObjectKey, entry: Option<(Accounted, PodEntry)>) {
        if let Some(old) = self.accounted.remove(key) {
            if let Some(n) = self.nodes.get_mut(&old.node) {
                if let Some(p) = n.take(key, &old) {
                    self.spread_index.adjust(&old.node, &p, -1);
                }
            }
            self.affinity_pods.remove(key);
        }
        if let Some((a, pod)) = entry {
            if self.affinity_pods.counted {
                self.affinity_pods.set(key, &pod);
            }
            if !self.nodes.contains_key(&a.node) {
                self.spread_index.nodes_changed();
            }
            self.spread_index.adjust(&a.node, &pod, 1);
            self.nodes
                .entry(a.node.clone())
                .or_default()
                .put(key, &a, pod);
            self.accounted.insert(key.clone(), a);
        }
    }

    /// A restarted scheduler has an empty queue: the pods it had parked come back
    /// through its relist.
    pub(crate) fn forget_unschedulable(&mut self) {
        self.queue = queue::SchedulingQueue::default();
    }

    /// The decision recorded for a pod's latest attempt.
    pub fn decision(&self, pod: &ObjectKey) -> Option<&Decision> {
        self.decisions.iter().rev().find(|d| &d.pod == pod)
    }

    fn record_decision(&mut self, d: Decision) {
        if let Some(i) = self.decisions.iter().position(|x| x.pod == d.pod) {
            self.decisions.remove(i);
        }
        if self.decisions.len() >= DECISIONS_KEPT {
            self.decisions.pop_front();
        }
        self.decisions.push_back(d);
    }
}

/// Whether two versions of a pod count the same in the scheduler's cache: the same
/// node, requests, host ports, labels and namespace, and the same deleting and
/// finished state ([`accounted_for`] reads nothing else).
fn same_accounting(a: &Pod, b: &Pod) -> bool {
    let containers = |x: &[k8s_openapi::api::core::v1::Container],
                      y: &[k8s_openapi::api::core::v1::Container]| {
        x.len() == y.len()
            && x.iter()
                .zip(y)
                .all(|(c, d)| c.resources == d.resources && c.ports == d.ports)
    };
    let specs = match (a.spec.as_ref(), b.spec.as_ref()) {
        (Some(x), Some(y)) => {
            x.node_name == y.node_name
                && x.affinity == y.affinity
                && containers(&x.containers, &y.containers)
                && containers(
                    x.init_containers.as_deref().unwrap_or_default(),
                    y.init_containers.as_deref().unwrap_or_default(),
                )
        }
        (None, None) => true,
        _ => false,
    };
    specs
        && a.metadata.labels == b.metadata.labels
        && a.metadata.namespace == b.metadata.namespace
        && a.metadata.deletion_timestamp.is_some() == b.metadata.deletion_timestamp.is_some()
        && crate::kubelet::containers::pod_is_terminal(a)
            == crate::kubelet::containers::pod_is_terminal(b)
}

/// The pod's labels as the cache keeps them, with room for exactly these.
fn pod_labels(pod: &Pod) -> LiteMap<String, String> {
    let labels = pod.metadata.labels.as_ref();
    let mut kept = LiteMap::with_capacity(labels.map_or(0, BTreeMap::len));
    for (k, v) in labels.into_iter().flatten() {
        kept.insert(k.clone(), v.clone());
    }
    kept
}

fn accounted_for(pod: &Pod, node: String) -> (Accounted, PodEntry) {
    let accounted = Accounted {
        node,
        requests: plugins::pod_requests(pod),
        nonzero: plugins::nonzero_requests(pod),
        ports: plugins::pod_host_ports(pod),
    };
    let entry = PodEntry {
        namespace: pod.metadata.namespace.clone().unwrap_or_default(),
        labels: pod_labels(pod),
        terminating: pod.metadata.deletion_timestamp.is_some(),
        priority: pod.spec.as_ref().and_then(|s| s.priority).unwrap_or(0),
        affinity: interpodaffinity::AffinityTerms::of(
            pod,
            pod.metadata.namespace.as_deref().unwrap_or_default(),
        )
        .map(Box::new),
    };
    (accounted, entry)
}

/// Fills a node's cache entry from the Node object (its pod totals stay).
fn node_info_from(info: &mut NodeInfo, node: &k8s_openapi::api::core::v1::Node) {
    let alloc = node
        .status
        .as_ref()
        .and_then(|s| s.allocatable.clone())
        .unwrap_or_default();
    info.allocatable = Resources::from_list(&alloc);
    info.allocatable_pods = alloc
        .get("pods")
        .and_then(|q| q.0.parse().ok())
        .unwrap_or(0);
    info.taints = node
        .spec
        .as_ref()
        .and_then(|s| s.taints.clone())
        .unwrap_or_default();
    info.labels = node.metadata.labels.clone().unwrap_or_default();
    info.unschedulable = node
        .spec
        .as_ref()
        .and_then(|s| s.unschedulable)
        .unwrap_or(false);
    info.images = node
        .status
        .as_ref()
        .and_then(|s| s.images.as_ref())
        .into_iter()
        .flatten()
        .flat_map(|img| {
            let size = img.size_bytes.unwrap_or(0).max(0) as u64;
            img.names.iter().flatten().map(move |n| (n.clone(), size))
        })
        .collect_map();
}

impl Cluster {
    /// The scheduler's informers: pod and node events keep its cache in step, and a
    /// pod not yet bound (and not parked as unschedulable) joins its queue.
    pub(crate) fn scheduler_watch(&mut self, ev: &WatchEvent) {
        self.scheduler_observe_pod(ev);
        self.scheduler_observe_node(ev);
        // PvcAdd, PvcUpdate: a claim a parked pod waits for may be there now, or
        // bound for a pod waiting in PreBind.
        if ev.object.kind() == Kind::PersistentVolumeClaim {
            if ev.event_type != EventType::Deleted {
                self.scheduler_move_all();
            }
            if !self.scheduler.waiting_on_volumes.is_empty() {
                let namespace = ev.object.namespace().to_string();
                self.bind_pods_waiting_on(&namespace);
            }
        }
        let Object::Pod(pod) = &*ev.object else {
            return;
        };
        let unbound = pod.spec.as_ref().is_none_or(|s| s.node_name.is_none());
        if unbound && ev.event_type != EventType::Deleted {
            let key = ev.object.key();
            if !self.is_parked_unschedulable(&key)
                && !self.scheduler.waiting_on_volumes.contains_key(&key)
            {
                self.enqueue(Component::Scheduler, key);
            }
        }
    }

    /// Informer handler: keeps the node totals in step with assigned pods, and moves
    /// parked pods on the events that may help them (AssignedPodDelete, a pod turning
    /// terminal, an update to the parked pod itself).
    pub(crate) fn scheduler_observe_pod(&mut self, ev: &WatchEvent) {
        let Object::Pod(pod) = &*ev.object else {
            return;
        };
        let key = ev.object.key();
        // Most updates are a kubelet's status write: nothing the cache counts moved.
        let unchanged = ev.event_type == EventType::Modified
            && ev
                .old
                .as_deref()
                .and_then(Object::as_pod)
                .is_some_and(|old| same_accounting(old, pod));
        let mut freed = false;
        let mut arrived = false;
        if !unchanged {
            let node = pod.spec.as_ref().and_then(|s| s.node_name.clone());
            let entry = match (
                ev.event_type,
                node,
                crate::kubelet::containers::pod_is_terminal(pod),
            ) {
                (EventType::Deleted, _, _) | (_, None, _) | (_, _, true) => None,
                (_, Some(n), false) => Some(accounted_for(pod, n)),
            };
            freed = entry.is_none() && self.scheduler.accounted.contains_key(&key);
            // AssignedPodAdd, or an assigned pod's labels changed.
            arrived = entry.is_some();
            self.scheduler.account(&key, entry);
        }
        if ev.event_type == EventType::Deleted {
            self.scheduler.queue.forget(&key);
        } else if ev.event_type == EventType::Modified
            && self.current_actor != Actor::Scheduler.username()
            && self.scheduler.queue.is_unschedulable(&key)
        {
            // UnschedulablePodUpdate: the pod changed; it may fit now.
            self.scheduler_move_one(&key);
        }
        if freed {
            // AssignedPodDelete: room may have opened up.
            self.scheduler_move_all();
        } else if arrived {
            self.scheduler_move_waiting_for_pods();
        }
    }

    /// Whether a node's labels, taints or unschedulable flag differ from what the
    /// scheduler's cache last saw (a new node counts as changed): what makes a
    /// DaemonSet look at the node again (upstream `shouldIgnoreNodeUpdate`).
    pub(crate) fn node_placement_changed(&self, node: &k8s_openapi::api::core::v1::Node) -> bool {
        let name = node.metadata.name.as_deref().unwrap_or_default();
        let Some(old) = self.scheduler.nodes.get(name) else {
            return true;
        };
        // What `node_info_from` would read, compared in place.
        let spec = node.spec.as_ref();
        let taints = spec.and_then(|s| s.taints.as_deref()).unwrap_or(&[]);
        let unschedulable = spec.and_then(|s| s.unschedulable).unwrap_or(false);
        let labels_changed = match &node.metadata.labels {
            Some(labels) => *labels != old.labels,
            None => !old.labels.is_empty(),
        };
        labels_changed || old.taints.as_slice() != taints || old.unschedulable != unschedulable
    }

    /// Informer handler for nodes: NodeAdd, and a NodeUpdate that changes what the
    /// filters read, move the parked pods.
    pub(crate) fn scheduler_observe_node(&mut self, ev: &WatchEvent) {
        let Object::Node(node) = &*ev.object else {
            return;
        };
        let name = node.metadata.name.clone().unwrap_or_default();
        if ev.event_type == EventType::Deleted {
            self.scheduler.spread_index.nodes_changed();
            if let Some(old) = self.scheduler.nodes.remove(&name) {
                self.scheduler
                    .image_nodes
                    .replace(&old.images, &BTreeMap::new());
            }
            return;
        }
        let existed = self.scheduler.nodes.contains_key(&name);
        let info = self.scheduler.nodes.entry(name).or_default();
        // The node's fields read apart from its pods, which stay as they are.
        let mut fresh = NodeInfo::default();
        node_info_from(&mut fresh, node);
        let moved = !existed || fresh.placement() != info.placement();
        if !existed {
            self.scheduler.spread_index.nodes_changed();
        } else if fresh.labels != info.labels {
            self.scheduler.spread_index.labels_changed();
        }
        info.allocatable = fresh.allocatable;
        info.allocatable_pods = fresh.allocatable_pods;
        info.taints = fresh.taints;
        info.labels = fresh.labels;
        info.unschedulable = fresh.unschedulable;
        self.scheduler
            .image_nodes
            .replace(&info.images, &fresh.images);
        info.images = fresh.images;
        if moved {
            self.scheduler_move_all();
        }
    }

    /// The scheduler's informers listing again (after an etcd restore): the node
    /// totals are rebuilt from the nodes and the assigned pods in the store.
    pub(crate) fn scheduler_rebuild_cache(&mut self) {
        self.scheduler.nodes.clear();
        self.scheduler.accounted.clear();
        self.scheduler.image_nodes = ImageNodes::default();
        self.scheduler.affinity_pods = AffinityIndex::default();
        self.scheduler.spread_index.nodes_changed();
        for node in self
            .store
            .list(Kind::Node, None)
            .filter_map(Object::as_node)
        {
            let name = node.metadata.name.clone().unwrap_or_default();
            node_info_from(self.scheduler.nodes.entry(name).or_default(), node);
        }
        let assigned: Vec<(ObjectKey, (Accounted, PodEntry))> = self
            .store
            .list(Kind::Pod, None)
            .filter_map(|o| {
                let pod = o.as_pod()?;
                let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
                if matches!(phase, Some("Succeeded") | Some("Failed")) {
                    return None;
                }
                let node = pod.spec.as_ref()?.node_name.clone()?;
                Some((o.key(), accounted_for(pod, node)))
            })
            .collect();
        for (key, a) in assigned {
            self.scheduler.account(&key, Some(a));
        }
    }

    /// Whether a pod waits in the unschedulable pods or the backoff queue (its own
    /// status updates must not send it to the active queue).
    pub(crate) fn is_parked_unschedulable(&self, key: &ObjectKey) -> bool {
        self.scheduler.queue.is_parked(key)
    }

    /// Pops the active queue: the queued pods one at a time, in PrioritySort order
    /// (`spec.priority`, higher first, then arrival; the simulation takes a pod's
    /// creation time as its arrival, upstream the moment it entered the queue). Pods
    /// for another `schedulerName` are left alone, as upstream's profile filter does.
    pub(crate) fn schedule_pending(&mut self, keys: BTreeSet<ObjectKey>) {
        let mut pods: Vec<(i32, i64, ObjectKey)> = keys
            .into_iter()
            .filter_map(|k| {
                let pod = self.store.get(&k)?.as_pod()?;
                let bound = pod
                    .spec
                    .as_ref()
                    .and_then(|s| s.node_name.as_ref())
                    .is_some();
                let ours = pod
                    .spec
                    .as_ref()
                    .and_then(|s| s.scheduler_name.as_deref())
                    .is_none_or(|n| n == "default-scheduler");
                // The SchedulingGates plugin's PreEnqueue: a gated pod waits, with no
                // event, until its gates are removed (an update the watch brings back).
                let gated = pod
                    .spec
                    .as_ref()
                    .and_then(|s| s.scheduling_gates.as_ref())
                    .is_some_and(|g| !g.is_empty());
                if bound || !ours || gated || pod.metadata.deletion_timestamp.is_some() {
                    return None;
                }
                let prio = pod.spec.as_ref().and_then(|s| s.priority).unwrap_or(0);
                let arrived = crate::object::created_millis(&pod.metadata);
                Some((-prio, arrived, k))
            })
            .collect();
        pods.stable_sort();
        for (_, _, key) in pods {
            self.begin_key(&key);
            self.schedule_one(&key);
        }
    }

    fn schedule_one(&mut self, key: &ObjectKey) {
        let Some(Object::Pod(pod)) = self.store.get(key).cloned() else {
            return;
        };
        let attempt = self.scheduler.queue.attempts(key) + 1;
        let (mut decision, waits_for_pods) = self.decide(key, &pod);
        decision.attempt = attempt;
        let chosen = decision.chosen.clone();
        let message = decision.message.clone();
        let nomination = decision.nomination.clone();
        let victims = decision.victims.clone();
        self.scheduler.record_decision(decision);
        match chosen {
            Some(node) => {
                if self.volumes_ready_for(&pod, &key.namespace, &node) {
                    self.bind(*pod, &node);
                } else {
                    self.scheduler.waiting_on_volumes.insert(key.clone(), node);
                }
            }
            None => {
                let nominated_before = pod
                    .status
                    .as_ref()
                    .and_then(|s| s.nominated_node_name.clone());
                let nominated = match nomination {
                    preemption::Nomination::Keep => nominated_before.clone(),
                    preemption::Nomination::Clear => None,
                    preemption::Nomination::Set(node) => {
                        self.preempt(&pod, &node, &victims);
                        self.scheduler.queue.nominate(
                            key,
                            Some(queue::NominatedPod {
                                node: node.clone(),
                                priority: pod.spec.as_ref().and_then(|s| s.priority).unwrap_or(0),
                                requests: plugins::pod_requests(&pod),
                            }),
                        );
                        Some(node)
                    }
                };
                if nominated.is_none() {
                    self.scheduler.queue.nominate(key, None);
                }
                self.scheduler_park(key, waits_for_pods);
                let unchanged = nominated == nominated_before
                    && crate::controllers::pod_condition(&pod, "PodScheduled").is_some_and(|c| {
                        c.status == "False" && c.message.as_deref() == Some(message.as_str())
                    });
                if unchanged {
                    // Same verdict as last time: upstream records the event again but
                    // the status write is a no-op.
                    let obj = Object::Pod(pod);
                    self.record_event(
                        &obj,
                        "default-scheduler",
                        None,
                        "Warning",
                        "FailedScheduling",
                        message,
                    );
                    return;
                }
                let mut updated = pod;
                updated
                    .status
                    .get_or_insert_with(Default::default)
                    .nominated_node_name = nominated;
                set_pod_condition(
                    &mut updated,
                    PodCondition {
                        type_: "PodScheduled".into(),
                        status: "False".into(),
                        reason: Some("Unschedulable".into()),
                        message: Some(message.clone()),
                        last_transition_time: Some(self.now.to_k8s()),
                        ..Default::default()
                    },
                );
                if let Ok(obj) = self.update_as(Actor::Scheduler, Object::Pod(updated)) {
                    self.record_event(
                        &obj,
                        "default-scheduler",
                        None,
                        "Warning",
                        "FailedScheduling",
                        message,
                    );
                }
            }
        }
    }

    /// Filters every node, scores the feasible ones, and picks the best, breaking ties
    /// at random with the cluster's seeded rng (upstream `selectHost` samples
    /// uniformly among the top scores).
    /// Also says whether a plugin that an assigned pod's arrival may satisfy
    /// (PodTopologySpread, InterPodAffinity) rejected a node.
    fn decide(&mut self, key: &ObjectKey, pod: &Pod) -> (Decision, bool) {
        let volumes = match self.volume_binding_prefilter(pod, &key.namespace) {
            Ok(v) => v,
            Err(reason) => return (self.prefilter_rejection(key, &reason), false),
        };
        let claim_in_use = self.read_write_once_pod_conflict(pod, &key.namespace);
        let mut waits_for_pods = false;
        let mut facts = PodFacts::new(pod, &key.namespace);
        let own_constraints = pod
            .spec
            .as_ref()
            .and_then(|s| s.topology_spread_constraints.as_ref())
            .is_some_and(|c| !c.is_empty());
        if !own_constraints {
            if let Some(selector) = self.default_spread_selector(pod, &key.namespace) {
                facts.spread = plugins::system_default_constraints(&selector);
            }
        }
        if !self.scheduler.image_nodes.counted {
            self.scheduler.image_nodes = ImageNodes::of(&self.scheduler.nodes);
        }
        if !self.scheduler.affinity_pods.counted {
            self.scheduler.affinity_pods = AffinityIndex::of(&self.scheduler.nodes);
        }
        let own_terms = interpodaffinity::AffinityTerms::of(pod, &key.namespace).map(|mut t| {
            if t.selects_namespaces() {
                t.resolve(&self.all_namespace_labels());
            }
            t
        });
        let ns_labels = self
            .store
            .get(&ObjectKey::new(Kind::Namespace, "", &key.namespace))
            .and_then(|o| o.meta().labels.clone())
            .unwrap_or_default();
        let empty_labels = BTreeMap::new();
        let incoming = interpodaffinity::Incoming {
            namespace: &key.namespace,
            labels: pod.metadata.labels.as_ref().unwrap_or(&empty_labels),
            ns_labels: &ns_labels,
            terms: own_terms.as_ref(),
        };
        let cycle = self.scheduler.spread_index.begin();
        for c in &facts.spread {
            let nodes = &self.scheduler.nodes;
            let index = &mut self.scheduler.spread_index;
            index.ensure_selector(cycle, &key.namespace, &c.selector, nodes);
            index.ensure_key(&c.topology_key, nodes);
        }
        let nodes = &self.scheduler.nodes;
        let spread_index = &self.scheduler.spread_index;
        let inputs = |hard: bool| -> Vec<plugins::SpreadInput<'_>> {
            facts
                .spread
                .iter()
                .filter(|c| c.hard == hard)
                .filter_map(|c| {
                    Some((
                        spread_index.counts(&key.namespace, &c.selector)?,
                        spread_index.domains(&c.topology_key)?,
                    ))
                })
                .collect()
        };
        let index = &self.scheduler.affinity_pods;
        let accounted = &self.scheduler.accounted;
        let indexed = |keys: &'_ BTreeSet<ObjectKey>| -> Vec<interpodaffinity::Existing<'_>> {
            keys.iter()
                .filter_map(|k| {
                    let n = nodes.get(&accounted.get(k)?.node)?;
                    Some(interpodaffinity::Existing {
                        node: n,
                        entry: n.pods.get(k)?,
                    })
                })
                .collect()
        };
        let every_pod = || {
            nodes.values().flat_map(|n| {
                n.pods
                    .values()
                    .map(move |p| interpodaffinity::Existing { node: n, entry: p })
            })
        };
        let affinity = interpodaffinity::prefilter(
            &incoming,
            every_pod(),
            indexed(&index.required_anti).into_iter(),
        );
        let detailed = nodes.len() <= DETAILED_DECISION_NODES;
        let hard = inputs(true);
        let spread = if hard.is_empty() {
            plugins::SpreadState::default()
        } else {
            plugins::spread_counts(&facts, nodes.iter(), &hard, true)
        };
        let mut verdicts = Vec::new();
        let mut histogram: BTreeMap<String, usize> = BTreeMap::new();
        let mut rejected: Vec<preemption::Rejected> = Vec::new();
        let priority = pod.spec.as_ref().and_then(|s| s.priority).unwrap_or(0);
        let mut feasible: Vec<(&String, &NodeInfo)> = Vec::new();
        // Their positions in name order.
        let mut feasible_at: Vec<usize> = Vec::new();
        // Upstream `findNodesThatPassFilters`: from where the last cycle stopped,
        // filter until enough feasible nodes are found.
        let to_find = num_feasible_nodes_to_find(nodes.len());
        let start = self.scheduler.next_start_node_index % nodes.len().max(1);
        let mut processed = 0usize;
        let numbered = || nodes.iter().enumerate();
        for (pos, (name, n)) in numbered().skip(start).chain(numbered().take(start)) {
            if feasible.len() >= to_find {
                break;
            }
            processed += 1;
            // Pods nominated here with at least this pod's priority hold their room.
            let with_nominated =
                preemption::with_nominated(&self.scheduler.queue, key, priority, name, n);
            let verdict = plugins::filter(&facts, name, with_nominated.as_ref().unwrap_or(n))
                .and_then(|()| match claim_in_use {
                    false => Ok(()),
                    true => Err(plugins::FilterFailure {
                        plugin: "VolumeRestrictions",
                        reasons: vec![READ_WRITE_ONCE_POD_CONFLICT.to_string()],
                        resolvable: true,
                    }),
                })
                .and_then(|()| match self.volume_binding_filter(&volumes, name) {
                    None => Ok(()),
                    Some(reason) => Err(plugins::FilterFailure {
                        plugin: "VolumeBinding",
                        reasons: vec![reason.to_string()],
                        resolvable: false,
                    }),
                })
                .and_then(|()| plugins::spread_filter(&facts, pos, &spread))
                .and_then(|()| {
                    interpodaffinity::filter(&incoming, &affinity, n).map_err(
                        |(reason, resolvable)| plugins::FilterFailure {
                            plugin: "InterPodAffinity",
                            reasons: vec![reason.to_string()],
                            resolvable,
                        },
                    )
                });
            match verdict {
                Ok(()) => {
                    feasible.push((name, n));
                    feasible_at.push(pos);
                }
                Err(f) => {
                    waits_for_pods |= matches!(f.plugin, "PodTopologySpread" | "InterPodAffinity");
                    for r in &f.reasons {
                        *histogram.entry(r.clone()).or_default() += 1;
                    }
                    rejected.push(preemption::Rejected {
                        node: name.clone(),
                        plugin: f.plugin,
                        resolvable: f.resolvable,
                    });
                    if detailed {
                        verdicts.push(NodeVerdict {
                            node: name.clone(),
                            failed_plugin: Some(f.plugin.to_string()),
                            reasons: f.reasons,
                            scores: vec![],
                            total: 0,
                        });
                    }
                }
            }
        }
        // Score: (plugin, raw, normalised) per feasible node, for the plugins that run.
        let table = if feasible.len() > 1 || detailed {
            // InterPodAffinity's PreScore reads every pod if the incoming pod has
            // preferred terms, else only the pods with terms.
            let scored = if own_terms.as_ref().is_some_and(|t| t.has_preferred()) {
                every_pod().collect()
            } else {
                indexed(&index.any)
            };
            let topology = interpodaffinity::prescore(&incoming, scored.into_iter());
            score_table(
                &facts,
                (&feasible, &feasible_at),
                nodes,
                &self.scheduler.image_nodes,
                topology.as_ref(),
                &inputs(false),
            )
        } else {
            Vec::new()
        };
        let weight = |plugin: &str| {
            SCORE_WEIGHTS
                .iter()
                .find(|(p, _)| *p == plugin)
                .map_or(1, |(_, w)| *w)
        };
        let mut best: Option<(i64, &str)> = None;
        let mut ties = 0u64;
        for (i, (name, _)) in feasible.iter().enumerate() {
            let total: i64 = table.iter().map(|(p, _, norm)| norm[i] * weight(p)).sum();
            match best {
                Some((b, _)) if total < b => {}
                Some((b, _)) if total == b => {
                    // Reservoir sampling over equal scores, as upstream's selectHost.
                    ties += 1;
                    if self.rng.below(ties) == 0 {
                        best = Some((total, name));
                    }
                }
                _ => {
                    ties = 1;
                    best = Some((total, name));
                }
            }
            if detailed {
                verdicts.push(NodeVerdict {
                    node: name.to_string(),
                    failed_plugin: None,
                    reasons: vec![],
                    scores: table
                        .iter()
                        .map(|(p, raw, norm)| PluginScore {
                            plugin: p.to_string(),
                            raw: raw[i],
                            normalized: norm[i],
                            weight: weight(p),
                            weighted: norm[i] * weight(p),
                        })
                        .collect(),
                    total,
                });
            }
        }
        let chosen = best.map(|(_, n)| n.to_string());
        verdicts.stable_sort_by(|a, b| a.node.cmp(&b.node));
        let all = nodes.len();
        let next_start = (start + processed) % all.max(1);
        self.scheduler.next_start_node_index = next_start;
        let post = match chosen {
            Some(_) => None,
            None if all == 0 => None,
            None => Some(self.post_filter(key, pod, &facts, &rejected)),
        };
        let message = match (&chosen, &post) {
            (Some(n), _) => format!(
                "Successfully assigned {}/{} to {}",
                key.namespace, key.name, n
            ),
            (None, post) => fit_error(
                all,
                &histogram,
                post.as_ref().and_then(|p| p.message.as_deref()),
            ),
        };
        let (nomination, victims) = post.map(|p| (p.nomination, p.victims)).unwrap_or_default();
        let decision = Decision {
            pod: key.clone(),
            at: self.now,
            attempt: 0,
            chosen,
            verdicts,
            message,
            nomination,
            victims,
        };
        (decision, waits_for_pods)
    }

    /// The VolumeBinding plugin's PreFilter: each claim the pod uses must exist and
    /// not be going; a bound one limits the pod to its volume's node, an unbound one
    /// is bound later if its class waits for the first consumer, and refused
    /// otherwise (`Immediate` binding is the PersistentVolume controller's job).
    fn volume_binding_prefilter(&self, pod: &Pod, namespace: &str) -> Result<PodVolumes, String> {
        let mut volumes = PodVolumes::default();
        let mut unbound_immediate = false;
        let claims = pod
            .spec
            .iter()
            .flat_map(|s| s.volumes.iter().flatten())
            .filter_map(|v| v.persistent_volume_claim.as_ref());
        for claim in claims {
            let name = &claim.claim_name;
            let key = ObjectKey::new(Kind::PersistentVolumeClaim, namespace, name);
            let Some(Object::Other(found)) = self.store.get(&key) else {
                return Err(format!("persistentvolumeclaim \"{name}\" not found"));
            };
            if found.metadata.deletion_timestamp.is_some() {
                return Err(format!("persistentvolumeclaim \"{name}\" is being deleted"));
            }
            let claim = crate::controllers::volume::Claim::of(found);
            if let Some(volume) = claim.volume_name.clone().filter(|v| !v.is_empty()) {
                let pv = self
                    .store
                    .get(&ObjectKey::new(Kind::PersistentVolume, "", &volume));
                match pv {
                    Some(Object::Other(pv)) => {
                        if let Some(node) = crate::controllers::volume::Volume::of(pv).node {
                            volumes.nodes.push(node);
                        }
                    }
                    _ => return Err(format!("pvc {name} bound to non-existent pv {volume}")),
                }
            } else if crate::controllers::volume::waits_for_consumer(self, &claim) {
                volumes.delayed.push(claim);
            } else {
                unbound_immediate = true;
            }
        }
        if unbound_immediate {
            return Err("pod has unbound immediate PersistentVolumeClaims".into());
        }
        Ok(volumes)
    }

    /// The VolumeRestrictions plugin's PreFilter (upstream
    /// pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go):
    /// whether a claim the pod mounts with the ReadWriteOncePod access mode is
    /// already used by another pod assigned to a node. Its Filter then refuses every
    /// node (`Unschedulable`: preemption could evict that pod). Reads the namespace's
    /// pods only for a pod with such a claim.
    fn read_write_once_pod_conflict(&self, pod: &Pod, namespace: &str) -> bool {
        let claims: Vec<&str> = pod
            .spec
            .iter()
            .flat_map(|s| s.volumes.iter().flatten())
            .filter_map(|v| v.persistent_volume_claim.as_ref())
            .map(|c| c.claim_name.as_str())
            .filter(|name| {
                let key = ObjectKey::new(Kind::PersistentVolumeClaim, namespace, name);
                matches!(self.store.get(&key), Some(Object::Other(o))
                    if crate::controllers::volume::Claim::of(o)
                        .access_modes
                        .iter()
                        .any(|m| m == "ReadWriteOncePod"))
            })
            .collect();
        if claims.is_empty() {
            return false;
        }
        let uid = pod.metadata.uid.as_deref();
        self.store.list(Kind::Pod, Some(namespace)).any(|o| {
            let Some(other) = o.as_pod() else {
                return false;
            };
            let spec = other.spec.as_ref();
            other.metadata.uid.as_deref() != uid
                && spec.is_some_and(|s| s.node_name.as_deref().is_some_and(|n| !n.is_empty()))
                && !crate::kubelet::containers::pod_is_terminal(other)
                && spec
                    .iter()
                    .flat_map(|s| s.volumes.iter().flatten())
                    .filter_map(|v| v.persistent_volume_claim.as_ref())
                    .any(|c| claims.contains(&c.claim_name.as_str()))
        })
    }

    /// A PreFilter refusal: no node is looked at, and preemption cannot help
    /// (`FitError` with a PreFilter message).
    fn prefilter_rejection(&self, key: &ObjectKey, reason: &str) -> Decision {
        let nodes = self.scheduler.nodes.len();
        let message = if nodes == 0 {
            "no nodes available to schedule pods".to_string()
        } else {
            format!("0/{nodes} nodes are available: {reason}. preemption: 0/{nodes} nodes are available: {nodes} Preemption is not helpful for scheduling.")
        };
        Decision {
            pod: key.clone(),
            at: self.now,
            attempt: 0,
            chosen: None,
            verdicts: Vec::new(),
            message,
            nomination: preemption::Nomination::Keep,
            victims: Vec::new(),
        }
    }

    /// The VolumeBinding plugin's Filter on one node: bound volumes on this node,
    /// and for each claim waiting for its first pod, a volume here or a class that
    /// can provision one.
    fn volume_binding_filter(&self, volumes: &PodVolumes, node: &str) -> Option<&'static str> {
        if volumes.nodes.iter().any(|n| n != node) {
            return Some("node(s) had volume node affinity conflict");
        }
        let unmet = volumes.delayed.iter().any(|claim| {
            let provisions = claim
                .class
                .as_deref()
                .and_then(|c| crate::controllers::volume::class(self, c))
                .is_some_and(|k| k.provisioner != "kubernetes.io/no-provisioner");
            !provisions
                && crate::controllers::volume::best_volume(self, claim, Some(node)).is_none()
        });
        unmet.then_some("node(s) didn't find available persistent volumes to bind")
    }

    /// The VolumeBinding plugin's PreBind: each claim waiting for its first pod is
    /// told the chosen node (`volume.kubernetes.io/selected-node`); the pod is bound
    /// once all its claims are. Whether it may be bound now.
    fn volumes_ready_for(&mut self, pod: &Pod, namespace: &str, node: &str) -> bool {
        let Ok(volumes) = self.volume_binding_prefilter(pod, namespace) else {
            return false;
        };
        for claim in &volumes.delayed {
            if claim.selected_node.as_deref() == Some(node) {
                continue;
            }
            let key = ObjectKey::new(Kind::PersistentVolumeClaim, namespace, &claim.name);
            if let Some(mut o) = self.store.get(&key).cloned() {
                o.meta_mut()
                    .annotations
                    .get_or_insert_with(Default::default)
                    .insert(
                        crate::controllers::volume::SELECTED_NODE.into(),
                        node.to_string(),
                    );
                let _ = self.update_as(Actor::Scheduler, o);
            }
        }
        volumes.delayed.is_empty()
    }

    /// A claim changed: pods waiting in PreBind whose claims are all bound now are
    /// bound to their node.
    fn bind_pods_waiting_on(&mut self, namespace: &str) {
        let waiting: Vec<(ObjectKey, String)> = self
            .scheduler
            .waiting_on_volumes
            .iter()
            .filter(|(k, _)| k.namespace == namespace)
            .map(|(k, n)| (k.clone(), n.clone()))
            .collect();
        for (key, node) in waiting {
            let Some(Object::Pod(pod)) = self.store.get(&key).cloned() else {
                self.scheduler.waiting_on_volumes.remove(&key);
                continue;
            };
            match self.volume_binding_prefilter(&pod, namespace) {
                Ok(v) if v.delayed.is_empty() => {
                    self.scheduler.waiting_on_volumes.remove(&key);
                    self.bind(*pod, &node);
                }
                Ok(_) => {}
                // A claim went: the pod is scheduled again.
                Err(_) => {
                    self.scheduler.waiting_on_volumes.remove(&key);
                    self.enqueue(Component::Scheduler, key);
                }
            }
        }
    }

    /// Binds through the apiserver (`pods/binding`), then records `Scheduled`.
    fn bind(&mut self, pod: Pod, node: &str) {
        let mut updated = pod;
        updated.spec.get_or_insert_with(Default::default).node_name = Some(node.to_string());
        // The binding clears a nomination (ClearingNominatedNodeNameAfterBinding,
        // on by default since 1.35).
        if let Some(status) = updated.status.as_mut() {
            status.nominated_node_name = None;
        }
        set_pod_condition(
            &mut updated,
            PodCondition {
                type_: "PodScheduled".into(),
                status: "True".into(),
                last_transition_time: Some(self.now.to_k8s()),
                ..Default::default()
            },
        );
        let key = Object::Pod(Box::new(updated.clone())).key();
        if let Ok(obj) = self.update_as(Actor::Scheduler, Object::Pod(Box::new(updated))) {
            self.scheduler.queue.forget(&key);
            self.record_event(
                &obj,
                "default-scheduler",
                None,
                "Normal",
                "Scheduled",
                format!(
                    "Successfully assigned {}/{} to {}",
                    key.namespace, key.name, node
                ),
            );
        }
    }

    /// The selector of the system default spreading constraints (upstream
    /// `helper.DefaultSelector`): the selectors of the pod's namespace's Services
    /// that select it, merged, with the selector of its controlling ReplicaSet,
    /// StatefulSet or ReplicationController. `None` when nothing selects the pod.
    fn default_spread_selector(&self, pod: &Pod, namespace: &str) -> Option<LabelSelector> {
        let empty = BTreeMap::new();
        let labels = pod.metadata.labels.as_ref().unwrap_or(&empty);
        let mut set: BTreeMap<String, String> = BTreeMap::new();
        for svc in self
            .store
            .list(Kind::Service, Some(namespace))
            .filter_map(Object::as_service)
        {
            let Some(sel) = svc.spec.as_ref().and_then(|s| s.selector.as_ref()) else {
                continue;
            };
            if sel.iter().all(|(k, v)| labels.get(k) == Some(v)) {
                set.extend(sel.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        let mut expressions = Vec::new();
        let owner = pod
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|r| r.controller == Some(true));
        if let Some(owner) = owner {
            let group = owner.api_version.split('/').next().unwrap_or("");
            let kind = match (group, owner.kind.as_str()) {
                ("v1", "ReplicationController") => Some(Kind::ReplicationController),
                ("apps", "ReplicaSet") => Some(Kind::ReplicaSet),
                ("apps", "StatefulSet") => Some(Kind::StatefulSet),
                _ => None,
            };
            let found =
                kind.and_then(|k| self.store.get(&ObjectKey::new(k, namespace, &owner.name)));
            match found {
                Some(Object::ReplicaSet(rs)) => {
                    expressions.extend(requirements_of(&rs.spec.selector));
                }
                Some(Object::Other(o)) => {
                    let sel = o.fields.get("spec").and_then(|s| s.get("selector"));
                    if o.kind == Kind::ReplicationController {
                        if let Some(map) = sel.and_then(|s| {
                            serde_json::from_value::<BTreeMap<String, String>>(s.clone()).ok()
                        }) {
                            set.extend(map);
                        }
                    } else if let Some(sel) =
                        sel.and_then(|s| serde_json::from_value::<LabelSelector>(s.clone()).ok())
                    {
                        expressions.extend(requirements_of(&sel));
                    }
                }
                _ => {}
            }
        }
        if set.is_empty() && expressions.is_empty() {
            return None;
        }
        Some(LabelSelector {
            match_labels: (!set.is_empty()).then_some(set),
            match_expressions: (!expressions.is_empty()).then_some(expressions),
        })
    }

    /// Every namespace with its labels, for the namespace selectors of a pod's
    /// affinity terms.
    fn all_namespace_labels(&self) -> Vec<(String, BTreeMap<String, String>)> {
        self.store
            .list(Kind::Namespace, None)
            .map(|o| {
                let m = o.meta();
                (
                    m.name.clone().unwrap_or_default(),
                    m.labels.clone().unwrap_or_default(),
                )
            })
            .collect()
    }

    /// The latest scheduling decision for a pod.
    pub fn scheduling_decision(&self, kind_ns_name: &ObjectKey) -> Option<&Decision> {
        debug_assert_eq!(kind_ns_name.kind, Kind::Pod);
        self.scheduler.decision(kind_ns_name)
    }

    /// The pods with a recorded scheduling decision (at most [`DECISIONS_KEPT`]),
    /// oldest decision first.
    pub fn decided_pods(&self) -> impl Iterator<Item = &ObjectKey> {
        self.scheduler.decisions.iter().map(|d| &d.pod)
    }
}

/// A label selector's requirements, its matchLabels as `In` expressions.
fn requirements_of(sel: &LabelSelector) -> Vec<LabelSelectorRequirement> {
    let mut out: Vec<LabelSelectorRequirement> = sel
        .match_labels
        .iter()
        .flatten()
        .map(|(k, v)| LabelSelectorRequirement {
            key: k.clone(),
            operator: "In".into(),
            values: Some(vec![v.clone()]),
        })
        .collect();
    out.extend(sel.match_expressions.iter().flatten().cloned());
    out
}

/// What the VolumeBinding plugin's PreFilter found of a pod's claims.
/// The VolumeRestrictions plugin's `ErrReasonReadWriteOncePodConflict`.
pub const READ_WRITE_ONCE_POD_CONFLICT: &str =
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";

#[derive(Default)]
struct PodVolumes {
    /// The nodes its bound volumes are tied to.
    nodes: Vec<String>,
    /// Its unbound claims whose class waits for the first consumer.
    delayed: Vec<crate::controllers::volume::Claim>,
}

/// The FailedScheduling message, as upstream's `FitError.Error()` builds it: a sorted
/// histogram of filter reasons, then what preemption concluded.
fn fit_error(nodes: usize, reasons: &BTreeMap<String, usize>, preemption: Option<&str>) -> String {
    if nodes == 0 {
        return "no nodes available to schedule pods".to_string();
    }
    let mut v: Vec<String> = reasons.iter().map(|(r, c)| format!("{c} {r}")).collect();
    v.stable_sort();
    let mut message = format!("0/{nodes} nodes are available: {}.", v.join(", "));
    if let Some(p) = preemption {
        message.push_str(" preemption: ");
        message.push_str(p);
    }
    message
}

/// The score plugins' table for the feasible nodes: (plugin, raw, normalised) per
/// node, for the plugins that run on this pod, in upstream's order.
fn score_table(
    facts: &PodFacts,
    (feasible, feasible_at): (&[(&String, &NodeInfo)], &[usize]),
    nodes: &BTreeMap<String, NodeInfo>,
    image_nodes: &ImageNodes,
    topology: Option<&interpodaffinity::TopologyScore>,
    spread: &[plugins::SpreadInput],
) -> Vec<(&'static str, Vec<i64>, Vec<i64>)> {
    let mut table: Vec<(&'static str, Vec<i64>, Vec<i64>)> = Vec::new();
    let raw: Vec<i64> = feasible
        .iter()
        .map(|(_, n)| plugins::taint_raw(facts, n))
        .collect();
    let norm = plugins::default_normalize(&raw, true);
    table.push(("TaintToleration", raw, norm));
    let has_preferred = plugins::preferred_terms(facts).is_some_and(|p| !p.is_empty());
    if has_preferred {
        let raw: Vec<i64> = feasible
            .iter()
            .map(|(name, n)| plugins::affinity_raw(facts, name, n))
            .collect();
        let norm = plugins::default_normalize(&raw, false);
        table.push(("NodeAffinity", raw, norm));
    }
    if facts.spread.iter().any(|c| !c.hard) {
        let raw = plugins::spread_raw(facts, feasible_at, nodes, spread);
        let norm = plugins::spread_normalize(&raw);
        let raw = raw.into_iter().map(|r| r.unwrap_or(0)).collect();
        table.push(("PodTopologySpread", raw, norm));
    }
    if let Some(topology) = topology {
        let raw: Vec<i64> = feasible
            .iter()
            .map(|(_, n)| interpodaffinity::score(topology, n))
            .collect();
        let norm = interpodaffinity::normalize(&raw);
        table.push(("InterPodAffinity", raw, norm));
    }
    let raw: Vec<i64> = feasible
        .iter()
        .map(|(_, n)| plugins::least_allocated(facts, n))
        .collect();
    table.push(("NodeResourcesFit", raw.clone(), raw));
    let best_effort = facts.requests.cpu == 0 && facts.requests.memory == 0;
    if !best_effort {
        let raw: Vec<i64> = feasible
            .iter()
            .map(|(_, n)| plugins::balanced_allocation(facts, n))
            .collect();
        table.push(("NodeResourcesBalancedAllocation", raw.clone(), raw));
    }
    let spread_of = |img: &str| image_nodes.count(img);
    let raw: Vec<i64> = feasible
        .iter()
        .map(|(_, n)| plugins::image_locality(facts, n, &spread_of, nodes.len()))
        .collect();
    table.push(("ImageLocality", raw.clone(), raw));
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The image counts kept as nodes change are what counting every node gives.
    #[test]
    fn image_counts_follow_the_nodes() {
        let same = |c: &Cluster| {
            assert!(c.scheduler.image_nodes.counted);
            assert_eq!(
                c.scheduler.image_nodes.counts,
                ImageNodes::of(&c.scheduler.nodes).counts
            );
        };
        let size = crate::scenarios::Size { nodes: 4, pods: 12 };
        let (mut c, _) = crate::scenarios::converge(1, size).unwrap();
        same(&c);
        // Every zone runs kube-proxy: four workers and the control plane.
        let proxy = format!("registry.k8s.io/kube-proxy:{}", crate::KUBERNETES_VERSION);
        assert_eq!(c.scheduler.image_nodes.count(&proxy), 5);
        // A zone joins with no images, then pulls kube-proxy's.
        let mut spec = crate::cluster::NodeSpec::worker("zone-late");
        spec.max_pods = 110;
        c.add_node(spec).unwrap();
        c.advance(crate::SimDuration::secs(60));
        same(&c);
        assert_eq!(c.scheduler.image_nodes.count(&proxy), 6);
        c.delete(Kind::Node, "", "zone-late").unwrap();
        c.advance(crate::SimDuration::secs(5));
        same(&c);
        assert_eq!(c.scheduler.image_nodes.count(&proxy), 5);
    }

    /// The spreading selectors' kept counts are what counting every pod gives, and
    /// the affinity index lists the pods with terms.
    #[test]
    fn kept_counts_follow_the_pods() {
        let size = crate::scenarios::Size { nodes: 4, pods: 12 };
        let (mut c, _) = crate::scenarios::converge(1, size).unwrap();
        let check = |c: &Cluster| {
            let s = &c.scheduler;
            let kept: Vec<_> = s.spread_index.kept().collect();
            assert!(!kept.is_empty());
            for (ns, sel, counts) in kept {
                let mut fresh = spread_index::SpreadIndex::default();
                let cycle = fresh.begin();
                fresh.ensure_selector(cycle, ns, sel, &s.nodes);
                assert_eq!(fresh.counts(ns, sel), Some(counts));
            }
            assert_eq!(
                s.affinity_pods.any,
                AffinityIndex::of(&s.nodes).any,
                "{:?}",
                s.affinity_pods.any
            );
        };
        check(&c);
        // Pods go and their replacements come: the counts follow.
        let pods: Vec<String> = c
            .store
            .list(Kind::Pod, Some("default"))
            .take(3)
            .map(|o| o.meta().name.clone().unwrap_or_default())
            .collect();
        for p in pods {
            c.delete(Kind::Pod, "default", &p).unwrap();
        }
        c.advance(crate::SimDuration::secs(60));
        check(&c);
    }

    #[test]
    fn fit_error_sorts_reasons_like_upstream() {
        let reasons: BTreeMap<String, usize> = [
            (
                "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
                    .to_string(),
                1,
            ),
            ("Insufficient cpu".to_string(), 3),
        ]
        .into_iter()
        .collect();
        let preemption = "0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.";
        assert_eq!(
            fit_error(4, &reasons, Some(preemption)),
            "0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 3 Insufficient cpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod."
        );
    }
}

#[cfg(test)]
mod sampling_tests {
    use super::num_feasible_nodes_to_find as find;

    #[test]
    fn feasible_nodes_to_find_follows_the_adaptive_percentage() {
        assert_eq!(find(0), 0);
        assert_eq!(find(99), 99, "small clusters filter every node");
        assert_eq!(find(100), 100);
        assert_eq!(find(250), 120, "48% of 250");
        assert_eq!(find(1000), 420, "42% of 1,000");
        assert_eq!(find(5000), 500, "10% of 5,000");
        assert_eq!(find(6000), 300, "at least 5%");
    }
}
