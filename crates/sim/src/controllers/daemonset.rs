//! The DaemonSet controller. Mirrors `syncDaemonSet` / `manage` / `rollingUpdate` /
//! `updateDaemonSetStatus` in pkg/controller/daemon: for each node decide whether
//! the daemon pod should run there (`NodeShouldRunDaemonPod`), create the missing
//! pods, delete those on nodes that no longer qualify, roll pods whose template is
//! stale, then write status.
//!
//! Pods are created unbound, with a required node affinity term
//! `matchFields metadata.name In [node]`, so the default scheduler places them (as
//! upstream does since 1.12). The history is kept as upstream's `constructHistory`
//! and `cleanupHistory` keep it: a ControllerRevision `NAME-<hash>` per template
//! (`controllers/history.rs`), the one recording the live template numbered newest
//! (so `kubectl rollout undo` renumbers an old one), pods labelled with its hash,
//! revisions no pod is at deleted past `revisionHistoryLimit`. Not simulated:
//! maxSurge, hash collisions (`collisionCount`), duplicate revisions of one
//! template, and `pod-template-generation` bookkeeping beyond the label.
//! RollingUpdate honours `maxUnavailable` (an int or a percentage of the desired
//! pods, at least 1 when maxSurge is 0); OnDelete replaces a pod only when it goes.

use super::history::{revision_data, Revision};
use super::manager::{Action, Controller, ControllerId};
use super::node_lifecycle::tolerates;
use super::replicaset::pod_is_available;
use super::{omit_zero, pod_is_ready, pod_matches_node};
use crate::apiserver::Actor;
use crate::cluster::{controller_of, Cluster};
use crate::error::ApiError;
use crate::object::{Kind, Object, ObjectKey, OtherObject};
use crate::sort::StableSort;
use crate::store::{EventType, WatchEvent};
use k8s_openapi::api::apps::v1::{DaemonSet, DaemonSetStatus};
use k8s_openapi::api::core::v1::{
    Affinity, Node, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod,
    PodSpec, Toleration,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

pub(crate) const ID: ControllerId = ControllerId::new("daemonset-controller");
const ACTOR: Actor = Actor::Controller(ID.name());
const SOURCE: &str = ID.name();

/// The DaemonSet controller: DaemonSets, their pods, orphan pods one may adopt, and
/// nodes whose labels or taints changed.
pub(crate) struct DaemonSetController;

impl Controller for DaemonSetController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        let obj: &Object = &ev.object;
        match obj {
            Object::DaemonSet(ds) => {
                if ev.event_type == EventType::Added {
                    keys.extend(c.orphans_matching(obj.namespace(), &ds.spec.selector));
                }
                keys.push(obj.key());
            }
            Object::Pod(_) => {
                keys.extend(controller_of(obj, Kind::DaemonSet));
                if super::adoptable_orphan(ev) {
                    keys.push(obj.key());
                }
            }
            // A revision changed or went: its DaemonSet looks again (`addHistory`,
            // `updateHistory`, `deleteHistory`).
            Object::Other(o) if o.kind == Kind::ControllerRevision => {
                keys.extend(controller_of(obj, Kind::DaemonSet));
            }
            // Node add or update: every DaemonSet looks at the node again (upstream
            // `addNode` / `updateNode` enqueue the sets whose decision may have
            // changed).
            Object::Node(node)
                if ev.event_type != EventType::Deleted && c.node_placement_changed(node) =>
            {
                keys.extend(c.store.list(Kind::DaemonSet, None).map(Object::key));
            }
            _ => {}
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(c.store.list(Kind::DaemonSet, None).map(Object::key));
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.sync_daemon_set(key)
    }
}
/// The label upstream puts on daemon pods naming their ControllerRevision.
pub const REVISION_LABEL: &str = "controller-revision-hash";

/// The tolerations upstream adds to every daemon pod
/// (`util.AddOrUpdateDaemonPodTolerations`): (key, effect).
const DAEMON_TOLERATIONS: [(&str, &str); 6] = [
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
];

impl Cluster {
    fn sync_daemon_set(&mut self, key: &ObjectKey) -> Action {
        if key.kind == Kind::Pod {
            // An orphan pod the watch saw.
            self.adopt_orphan_daemon_pod(key);
            return Action::Done;
        }
        let Some(Object::DaemonSet(ds)) = self.store.get(key).cloned() else {
            return Action::Done;
        };
        if ds.metadata.deletion_timestamp.is_some() {
            return Action::Done;
        }
        let uid = ds.metadata.uid.clone().unwrap_or_default();
        // `getDaemonPods` claims the pods: the ones whose labels no longer match go.
        self.release_unmatched(ACTOR, &uid, &ds.spec.selector);
        let hash = template_hash(&ds);
        let old_revisions = match self.construct_daemon_history(&ds, &hash) {
            Ok(old) => old,
            Err(e) => return Action::after_writes([Err(e)]),
        };
        // (node, shouldRun, shouldContinueRunning) for every node.
        let default = PodSpec::default();
        let tspec = ds.spec.template.spec.as_ref().unwrap_or(&default);
        let tolerations = daemon_tolerations(tspec);
        let verdicts: Vec<(String, bool, bool)> = self
            .store
            .list(Kind::Node, None)
            .filter_map(|o| o.as_node())
            .map(|n| {
                let (run, keep) = should_run_with(tspec, &tolerations, n);
                (n.metadata.name.clone().unwrap_or_default(), run, keep)
            })
            .collect();
        // Pods by the node they target (spec.nodeName, else the affinity term).
        let mut by_node: BTreeMap<String, Vec<&Pod>> = BTreeMap::new();
        for p in self.owned_pods(&uid) {
            if let Some(n) = target_node(p) {
                by_node.entry(n).or_default().push(p);
            }
        }
        let mut create: Vec<String> = Vec::new();
        let mut delete: Vec<ObjectKey> = Vec::new();
        let mut desired = 0;
        // Nodes that should run the pod and have no available one (for the rollout).
        let mut unavailable = 0;
        let mut old_available: Vec<ObjectKey> = Vec::new();
        let mut old_unavailable: Vec<ObjectKey> = Vec::new();
        let min_ready = ds.spec.min_ready_seconds.unwrap_or(0).max(0) as u64;
        for (name, should_run, should_continue) in &verdicts {
            let (should_run, should_continue) = (*should_run, *should_continue);
            let pods = by_node.remove(name).unwrap_or_default();
            let mut running: Vec<&Pod> = Vec::new();
            for p in pods {
                if p.metadata.deletion_timestamp.is_some() {
                    continue;
                }
                let phase = p.status.as_ref().and_then(|s| s.phase.as_deref());
                if phase == Some("Failed") {
                    // Upstream deletes a failed daemon pod so that a new one is made.
                    delete.push(pod_key(p));
                    continue;
                }
                running.push(p);
            }
            if should_run {
                desired += 1;
            }
            if should_run && running.is_empty() {
                create.push(name.clone());
                unavailable += 1;
            } else if should_continue {
                // More than one daemon pod on a node: keep the oldest.
                running.stable_sort_by_key(|p| {
                    (
                        p.metadata
                            .creation_timestamp
                            .as_ref()
                            .map(|t| t.0.as_millisecond()),
                        p.metadata.name.clone(),
                    )
                });
                for extra in running.iter().skip(1) {
                    delete.push(pod_key(extra));
                }
                if let Some(p) = running.first() {
                    let available = pod_is_available(p, min_ready, self.now);
                    if !available {
                        unavailable += 1;
                    }
                    if pod_revision(p) != Some(hash.as_str()) {
                        let k = pod_key(p);
                        if available {
                            old_available.push(k);
                        } else {
                            old_unavailable.push(k);
                        }
                    }
                }
            } else {
                for p in running {
                    delete.push(pod_key(p));
                }
            }
        }
        // Pods targeting a node that no longer exists: the bound ones are left to the
        // pod garbage collector; the unscheduled ones (`getUnscheduledPodsWithoutNode`:
        // never bound, the pod garbage collector cannot see them) go here.
        delete.extend(
            by_node
                .values()
                .flatten()
                .filter(|p| {
                    let unbound = p
                        .spec
                        .as_ref()
                        .is_none_or(|s| s.node_name.as_deref().unwrap_or("").is_empty());
                    unbound && p.metadata.deletion_timestamp.is_none()
                })
                .map(|p| pod_key(p)),
        );
        let strategy = ds.spec.update_strategy.as_ref();
        if strategy.and_then(|s| s.type_.as_deref()) != Some("OnDelete") {
            // rollingUpdate with maxSurge 0: stale pods that are not available go at
            // once; available ones only while fewer than maxUnavailable nodes lack an
            // available pod.
            let max_unavailable = strategy
                .and_then(|s| s.rolling_update.as_ref())
                .and_then(|r| r.max_unavailable.as_ref())
                .map(|m| scaled_value(m, desired))
                .unwrap_or(1)
                .max(1);
            delete.extend(old_unavailable);
            let budget = max_unavailable.saturating_sub(unavailable);
            delete.extend(old_available.into_iter().take(budget));
        }
        let failed = !self.apply_daemon_plan(&ds, &hash, create, delete);
        let mut writes = self.cleanup_daemon_history(&ds, old_revisions);
        writes.extend(self.update_daemon_set_status(key, &verdicts));
        if failed {
            Action::Requeue
        } else {
            Action::after_writes(writes)
        }
    }

    /// `constructHistory`: the revision recording the live template, made when
    /// none does and renumbered the newest when an older one does (a rollback);
    /// returns the others, oldest first.
    fn construct_daemon_history(
        &mut self,
        ds: &DaemonSet,
        hash: &str,
    ) -> Result<Vec<Revision>, ApiError> {
        let uid = ds.metadata.uid.clone().unwrap_or_default();
        let template = serde_json::to_value(&ds.spec.template).unwrap_or(Value::Null);
        let (current, old): (Vec<Revision>, Vec<Revision>) = self
            .controlled_revisions(&uid)
            .into_iter()
            .partition(|r| r.records(&template));
        let newest = old
            .iter()
            .map(|r| r.revision)
            .max()
            .unwrap_or(0)
            .saturating_add(1);
        match current.last() {
            Some(cur) if cur.revision >= newest => {}
            Some(cur) => {
                let mut object = cur.object.clone();
                object.fields.insert("revision".into(), json!(newest));
                self.update_as(ACTOR, Object::Other(Box::new(object)))?;
            }
            None => {
                // `snapshot`: the template's labels plus the hash, the DaemonSet's
                // annotations (a change-cause among them).
                let mut labels = ds
                    .spec
                    .template
                    .metadata
                    .as_ref()
                    .and_then(|m| m.labels.clone())
                    .unwrap_or_default();
                labels.insert(REVISION_LABEL.into(), hash.to_string());
                let revision = OtherObject {
                    kind: Kind::ControllerRevision,
                    api_version: "apps/v1".into(),
                    metadata: ObjectMeta {
                        name: Some(format!(
                            "{}-{hash}",
                            ds.metadata.name.as_deref().unwrap_or_default()
                        )),
                        namespace: ds.metadata.namespace.clone(),
                        labels: Some(labels),
                        annotations: ds.metadata.annotations.clone().filter(|a| !a.is_empty()),
                        owner_references: Some(vec![controller_ref(ds)]),
                        ..Default::default()
                    },
                    fields: Map::from_iter([
                        ("data".to_string(), revision_data(&template)),
                        ("revision".to_string(), json!(newest)),
                    ]),
                };
                self.create_as(ACTOR, Object::Other(Box::new(revision)))?;
            }
        }
        Ok(old)
    }

    /// `cleanupHistory`: of the old revisions (oldest first), those no daemon pod
    /// is at go, until at most `revisionHistoryLimit` are left.
    fn cleanup_daemon_history(
        &mut self,
        ds: &DaemonSet,
        old: Vec<Revision>,
    ) -> Vec<Result<(), ApiError>> {
        let limit = usize::try_from(ds.spec.revision_history_limit.unwrap_or(10)).unwrap_or(0);
        let Some(mut excess) = old.len().checked_sub(limit).filter(|n| *n > 0) else {
            return Vec::new();
        };
        let uid = ds.metadata.uid.clone().unwrap_or_default();
        let live: BTreeSet<String> = self
            .owned_pods(&uid)
            .filter_map(|p| pod_revision(p).map(str::to_string))
            .collect();
        let mut writes = Vec::new();
        for r in old {
            if excess == 0 {
                break;
            }
            let label = r
                .object
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get(REVISION_LABEL));
            if label.is_some_and(|h| live.contains(h)) {
                continue;
            }
            let key = Object::Other(Box::new(r.object)).key();
            writes.push(self.delete_as(ACTOR, &key, None).map(drop));
            excess -= 1;
        }
        writes
    }

    /// Creates a pod for each node in `create` (stopping at the first failure) and
    /// deletes the pods in `delete`, with an Event for each. False when a create
    /// failed.
    fn apply_daemon_plan(
        &mut self,
        ds: &DaemonSet,
        hash: &str,
        create: Vec<String>,
        delete: Vec<ObjectKey>,
    ) -> bool {
        let ds_obj = Object::DaemonSet(Box::new(ds.clone()));
        let mut failed = false;
        for node in create {
            let pod = new_daemon_pod(ds, &node, hash);
            match self.create_as(ACTOR, Object::Pod(Box::new(pod))) {
                Ok(created) => self.record_event(
                    &ds_obj,
                    SOURCE,
                    None,
                    "Normal",
                    "SuccessfulCreate",
                    format!("Created pod: {}", created.name()),
                ),
                Err(e) => {
                    self.record_event(
                        &ds_obj,
                        SOURCE,
                        None,
                        "Warning",
                        "FailedCreate",
                        format!("Error creating: {}", e.message),
                    );
                    failed = true;
                    break;
                }
            }
        }
        for k in delete {
            if self.delete_as(ACTOR, &k, None).is_ok() {
                self.record_event(
                    &ds_obj,
                    SOURCE,
                    None,
                    "Normal",
                    "SuccessfulDelete",
                    format!("Deleted pod: {}", k.name),
                );
            }
        }
        !failed
    }

    /// The adoption half of `ClaimPods`: an active orphan pod whose labels match a
    /// DaemonSet's selector gets that DaemonSet (the oldest, if several) as its
    /// controller; the DaemonSet's sync then keeps it or deletes it like its own.
    fn adopt_orphan_daemon_pod(&mut self, key: &ObjectKey) {
        let Some(Object::Pod(mut pod)) = self.store.get(key).cloned() else {
            return;
        };
        if !super::replicaset::is_orphan(&pod) || !super::pod_is_active(&pod) {
            return;
        }
        let Some(owner) = super::replicaset::adopter(
            &pod,
            self.store
                .list(Kind::DaemonSet, Some(&key.namespace))
                .filter_map(|o| match o {
                    Object::DaemonSet(ds) => Some((&ds.metadata, &ds.spec.selector, &**ds)),
                    _ => None,
                }),
        )
        .map(controller_ref) else {
            return;
        };
        pod.metadata
            .owner_references
            .get_or_insert_with(Vec::new)
            .push(owner);
        let _ = self.update_as(ACTOR, Object::Pod(pod));
    }

    /// Upstream `updateDaemonSetStatus`.
    /// Writes the DaemonSet's status when it changed; the write, if one was made.
    fn update_daemon_set_status(
        &mut self,
        key: &ObjectKey,
        verdicts: &[(String, bool, bool)],
    ) -> Option<Result<(), crate::error::ApiError>> {
        let Some(Object::DaemonSet(ds)) = self.store.get(key).cloned() else {
            return None;
        };
        let uid = ds.metadata.uid.clone().unwrap_or_default();
        let hash = template_hash(&ds);
        let min_ready = ds.spec.min_ready_seconds.unwrap_or(0).max(0) as u64;
        let mut by_node: BTreeMap<String, Vec<&Pod>> = BTreeMap::new();
        for p in self.owned_pods(&uid) {
            if p.metadata.deletion_timestamp.is_some() {
                continue;
            }
            if let Some(n) = target_node(p) {
                by_node.entry(n).or_default().push(p);
            }
        }
        let (mut desired, mut current, mut misscheduled) = (0, 0, 0);
        let (mut ready, mut available, mut updated) = (0, 0, 0);
        for (name, should_run, _) in verdicts {
            let pods = by_node.get(name).map(Vec::as_slice).unwrap_or(&[]);
            if *should_run {
                desired += 1;
                if let Some(p) = pods.first() {
                    current += 1;
                    if pod_is_ready(p) {
                        ready += 1;
                        if pod_is_available(p, min_ready, self.now) {
                            available += 1;
                        }
                    }
                    if pod_revision(p) == Some(hash.as_str()) {
                        updated += 1;
                    }
                }
            } else if !pods.is_empty() {
                misscheduled += 1;
            }
        }
        let status = DaemonSetStatus {
            desired_number_scheduled: desired,
            current_number_scheduled: current,
            number_misscheduled: misscheduled,
            number_ready: ready,
            number_available: omit_zero(available),
            number_unavailable: omit_zero(desired - available),
            updated_number_scheduled: omit_zero(updated),
            observed_generation: ds.metadata.generation,
            collision_count: None,
            conditions: None,
        };
        (ds.status.as_ref() != Some(&status)).then(|| {
            let mut updated = ds;
            updated.status = Some(status);
            self.update_as(ACTOR, Object::DaemonSet(updated)).map(drop)
        })
    }
}

/// `NodeShouldRunDaemonPod`: (shouldRun, shouldContinueRunning). A node that fails
/// the pod's nodeName, nodeSelector or required affinity runs nothing; an
/// untolerated NoExecute taint evicts; an untolerated NoSchedule taint keeps a
/// running pod but starts no new one.
pub fn node_should_run(ds: &DaemonSet, node: &Node) -> (bool, bool) {
    let default = PodSpec::default();
    let spec = ds.spec.template.spec.as_ref().unwrap_or(&default);
    should_run_with(spec, &daemon_tolerations(spec), node)
}

/// `node_should_run` with the daemon pod's tolerations worked out once per sync.
fn should_run_with(spec: &PodSpec, tolerations: &[Toleration], node: &Node) -> (bool, bool) {
    let name = node.metadata.name.as_deref().unwrap_or_default();
    if spec
        .node_name
        .as_deref()
        .is_some_and(|n| !n.is_empty() && n != name)
    {
        return (false, false);
    }
    let no_labels = BTreeMap::new();
    let labels = node.metadata.labels.as_ref().unwrap_or(&no_labels);
    if !pod_matches_node(spec, name, labels) {
        return (false, false);
    }
    let taints = node
        .spec
        .as_ref()
        .and_then(|s| s.taints.as_deref())
        .unwrap_or(&[]);
    let untolerated = |effect: &str| {
        taints
            .iter()
            .any(|t| t.effect == effect && !tolerations.iter().any(|tol| tolerates(tol, t)))
    };
    if untolerated("NoExecute") {
        return (false, false);
    }
    if untolerated("NoSchedule") {
        return (false, true);
    }
    (true, true)
}

/// The template's tolerations plus the daemon ones (and network-unavailable for
/// host-network pods), added only when an equal toleration is not already there.
fn daemon_tolerations(spec: &PodSpec) -> Vec<Toleration> {
    let mut tolerations = spec.tolerations.clone().unwrap_or_default();
    let mut extra: Vec<(&str, &str)> = DAEMON_TOLERATIONS.to_vec();
    if spec.host_network == Some(true) {
        extra.push(("node.kubernetes.io/network-unavailable", "NoSchedule"));
    }
    for (key, effect) in extra {
        let t = Toleration {
            key: Some(key.into()),
            operator: Some("Exists".into()),
            effect: Some(effect.into()),
            ..Default::default()
        };
        // `AddOrUpdateTolerationInPodSpec`: one with the same key, operator, value
        // and effect is replaced (losing any tolerationSeconds), else it is added.
        let same = |o: &Toleration| {
            o.key == t.key
                && o.operator.as_deref().unwrap_or("Equal") == "Exists"
                && o.value.as_deref().unwrap_or("").is_empty()
                && o.effect == t.effect
        };
        match tolerations.iter_mut().find(|o| same(o)) {
            Some(existing) => *existing = t,
            None => tolerations.push(t),
        }
    }
    tolerations
}

/// The node a daemon pod is for: its nodeName, else the `metadata.name` its
/// required affinity names (upstream `util.GetTargetNodeName`).
fn target_node(pod: &Pod) -> Option<String> {
    let spec = pod.spec.as_ref()?;
    if let Some(n) = spec.node_name.clone().filter(|n| !n.is_empty()) {
        return Some(n);
    }
    spec.affinity
        .as_ref()?
        .node_affinity
        .as_ref()?
        .required_during_scheduling_ignored_during_execution
        .as_ref()?
        .node_selector_terms
        .iter()
        .flat_map(|t| t.match_fields.iter().flatten())
        .find(|r| r.key == "metadata.name" && r.operator == "In")
        .and_then(|r| r.values.as_ref()?.first().cloned())
}

fn pod_key(pod: &Pod) -> ObjectKey {
    ObjectKey::new(
        Kind::Pod,
        pod.metadata.namespace.as_deref().unwrap_or_default(),
        pod.metadata.name.as_deref().unwrap_or_default(),
    )
}

fn pod_revision(pod: &Pod) -> Option<&str> {
    pod.metadata
        .labels
        .as_ref()?
        .get(REVISION_LABEL)
        .map(String::as_str)
}

/// The template's hash: stands in for the ControllerRevision name's suffix.
pub fn template_hash(ds: &DaemonSet) -> String {
    let json = serde_json::to_vec(&ds.spec.template).unwrap_or_default();
    crate::names::pod_template_hash(&json, ds.status.as_ref().and_then(|s| s.collision_count))
}

/// An int, or a percentage of `total` rounded up (upstream
/// `GetScaledValueFromIntOrPercent(maxUnavailable, desired, true)`).
fn scaled_value(v: &IntOrString, total: usize) -> usize {
    match v {
        IntOrString::Int(i) => (*i).max(0) as usize,
        IntOrString::String(s) => {
            let pct: usize = s.trim_end_matches('%').parse().unwrap_or(0);
            (pct * total).div_ceil(100)
        }
    }
}

/// The controller reference a DaemonSet puts on its pods.
fn controller_ref(ds: &DaemonSet) -> OwnerReference {
    OwnerReference {
        api_version: "apps/v1".into(),
        kind: "DaemonSet".into(),
        name: ds.metadata.name.clone().unwrap_or_default(),
        uid: ds.metadata.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// A daemon pod for `node` (upstream `NewPod` and `podutil` helpers): the template,
/// the daemon tolerations, and a required node affinity term naming the node that
/// replaces any `metadata.name` matchFields the template had.
fn new_daemon_pod(ds: &DaemonSet, node: &str, hash: &str) -> Pod {
    let template = ds.spec.template.clone();
    let tmeta = template.metadata.unwrap_or_default();
    let mut spec = template.spec.unwrap_or_default();
    spec.tolerations = Some(daemon_tolerations(&spec));
    let field_term = NodeSelectorRequirement {
        key: "metadata.name".into(),
        operator: "In".into(),
        values: Some(vec![node.to_string()]),
    };
    let affinity = spec.affinity.get_or_insert_with(Affinity::default);
    let node_affinity = affinity
        .node_affinity
        .get_or_insert_with(NodeAffinity::default);
    let required = node_affinity
        .required_during_scheduling_ignored_during_execution
        .get_or_insert_with(NodeSelector::default);
    if required.node_selector_terms.is_empty() {
        required
            .node_selector_terms
            .push(NodeSelectorTerm::default());
    }
    for term in &mut required.node_selector_terms {
        let fields = term.match_fields.get_or_insert_with(Vec::new);
        fields.retain(|r| r.key != "metadata.name");
        fields.push(field_term.clone());
    }
    let name = ds.metadata.name.clone().unwrap_or_default();
    let mut labels = tmeta.labels.unwrap_or_default();
    labels.insert(REVISION_LABEL.into(), hash.to_string());
    labels.insert(
        "pod-template-generation".into(),
        ds.metadata.generation.unwrap_or(1).to_string(),
    );
    Pod {
        metadata: ObjectMeta {
            generate_name: Some(format!("{name}-")),
            namespace: ds.metadata.namespace.clone(),
            labels: Some(labels),
            annotations: tmeta.annotations,
            owner_references: Some(vec![controller_ref(ds)]),
            ..Default::default()
        },
        spec: Some(spec),
        status: None,
    }
}
