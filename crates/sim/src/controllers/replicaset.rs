//! The ReplicaSet controller. Mirrors `syncReplicaSet` / `manageReplicas` in
//! pkg/controller/replicaset: claim pods (`PodControllerRefManager.ClaimPods` in
//! pkg/controller/controller_ref_manager.go: adopt matching orphans, release pods
//! whose labels no longer match), count the active pods it owns, create or delete
//! the difference, then write status; a ready pod that will reach minReadySeconds
//! brings the ReplicaSet back then (`AddAfter`).
//!
//! A failed creation sets the ReplicaFailure condition (FailedCreate).
//!
//! Simplification: an orphan pod is adopted by the oldest matching ReplicaSet when
//! its watch event arrives (upstream every matching ReplicaSet races for it).

use super::manager::{Action, Controller, ControllerId};
use super::{
    controlled_by, omit_zero, pod_condition, pod_is_active, pod_is_ready, selector_matches,
};
use crate::apiserver::Actor;
use crate::cluster::{controller_of, Cluster};
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::StableSort;
use crate::store::{EventType, WatchEvent};
use crate::time::SimTime;
use k8s_openapi::api::apps::v1::{ReplicaSet, ReplicaSetStatus};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference};
use std::collections::BTreeMap;

pub(crate) const ID: ControllerId = ControllerId::new("replicaset-controller");
const ACTOR: Actor = Actor::Controller(ID.name());

/// The ReplicaSet controller: ReplicaSets, their pods, and orphan pods one of them
/// may adopt (queued by the pod's own key).
pub(crate) struct ReplicaSetController;

impl Controller for ReplicaSetController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        let obj: &Object = &ev.object;
        match obj {
            Object::ReplicaSet(rs) => {
                if ev.event_type == EventType::Added {
                    keys.extend(c.orphans_for(rs));
                }
                if ev.event_type == EventType::Deleted {
                    let uid = rs.metadata.uid.as_deref().unwrap_or_default();
                    c.controllers.pod_tallies.remove(uid);
                }
                keys.push(obj.key());
            }
            Object::Pod(pod) => {
                c.tally_pod_event(ev);
                let owner = controller_of(obj, Kind::ReplicaSet);
                if let (Some(rs), true) = (&owner, ev.event_type != EventType::Deleted) {
                    c.note_unmatched_pod(rs, pod);
                }
                keys.extend(owner);
                if super::adoptable_orphan(ev) {
                    keys.push(obj.key());
                }
            }
            _ => {}
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        c.controllers.pod_tallies.clear();
        let sets: Vec<ObjectKey> = c
            .store
            .list(Kind::ReplicaSet, None)
            .map(Object::key)
            .collect();
        // The informers start from a full list: every pod is looked at once.
        for rs in &sets {
            let uid = c
                .store
                .get(rs)
                .and_then(|o| o.meta().uid.clone())
                .unwrap_or_default();
            let pods: Vec<ObjectKey> = c.owned_pods(&uid).map(pod_key).collect();
            for key in pods {
                if let Some(Object::Pod(pod)) = c.store.get_shared(&key).cloned().as_deref() {
                    c.note_unmatched_pod(rs, pod);
                }
            }
        }
        keys.extend(sets);
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.sync_replica_set(key)
    }
}
/// A pod's key.
fn pod_key(pod: &Pod) -> ObjectKey {
    ObjectKey::new(
        Kind::Pod,
        pod.metadata.namespace.as_deref().unwrap_or_default(),
        pod.metadata.name.as_deref().unwrap_or_default(),
    )
}

/// A ReplicaSet's key.
fn rs_key(rs: &ReplicaSet) -> ObjectKey {
    ObjectKey::new(
        Kind::ReplicaSet,
        rs.metadata.namespace.as_deref().unwrap_or_default(),
        rs.metadata.name.as_deref().unwrap_or_default(),
    )
}

/// Upstream `burstReplicas`: at most this many creations or deletions per sync.
pub const BURST_REPLICAS: usize = 500;

impl Cluster {
    fn sync_replica_set(&mut self, key: &ObjectKey) -> Action {
        if key.kind == Kind::Pod {
            // An orphan pod the watch saw.
            self.adopt_orphan_pod(key);
            return Action::Done;
        }
        let Some(Object::ReplicaSet(rs)) = self.store.get(key).cloned() else {
            self.controllers.unmatched_pods.remove(key);
            return Action::Done;
        };
        let mut action = Action::Done;
        let uid = rs.metadata.uid.clone().unwrap_or_default();
        let want = rs.spec.replicas.unwrap_or(1).max(0) as usize;
        self.release_unmatched_pods(&rs);
        // Decide with borrowed pods; write afterwards.
        let template_labels = template_labels(&rs);
        let active = usize::try_from(self.tallied_counts(&uid, template_labels).replicas)
            .unwrap_or_default();
        // The pods themselves are read only when some must go.
        let victims = if active > want {
            let pods: Vec<&Pod> = self.owned_pods(&uid).filter(|p| pod_is_active(p)).collect();
            debug_assert_eq!(pods.len(), active, "the running count of {key:?} drifted");
            let n = (pods.len() - want).min(BURST_REPLICAS);
            pods_to_delete(&pods, n, &pods_per_node(&pods))
        } else {
            Vec::new()
        };
        let mut manage_error = None;
        if rs.metadata.deletion_timestamp.is_none() {
            if active < want {
                let n = (want - active).min(BURST_REPLICAS);
                // A refused creation (a quota, say) is an error of this sync: the key
                // comes back after a back-off, as upstream's rate-limited queue does.
                if let Err(message) = self.create_pods_slow_start(&rs, n) {
                    manage_error = Some(("FailedCreate", message));
                    action = Action::Requeue;
                }
            }
            for v in victims {
                if self.delete_as(ACTOR, &v, None).is_ok() {
                    let rs_obj = Object::ReplicaSet(rs.clone());
                    self.record_event(
                        &rs_obj,
                        "replicaset-controller",
                        None,
                        "Normal",
                        "SuccessfulDelete",
                        format!("Deleted pod: {}", v.name),
                    );
                }
            }
        }
        let status = self.update_replica_set_status(key, manage_error);
        match action {
            Action::Requeue => Action::Requeue,
            Action::Done => Action::after_writes(status),
        }
    }

    /// Release half of `PodControllerRefManager.ClaimPods`
    /// (pkg/controller/controller_ref_manager.go): a pod this ReplicaSet controls
    /// whose labels no longer match its selector loses its controller reference and
    /// becomes an orphan (the ReplicaSet then makes a replacement). A ReplicaSet
    /// being deleted releases nothing.
    ///
    /// Upstream looks at every pod on each sync. A pod's labels stop matching only
    /// through a write of that pod (a ReplicaSet's selector is immutable), so the
    /// watch notes such pods as their events come ([`Cluster::note_unmatched_pod`])
    /// and a sync looks at those alone: the same pods are released, in the same
    /// order, without reading the ReplicaSet's thousands of others.
    fn release_unmatched_pods(&mut self, rs: &ReplicaSet) {
        if rs.metadata.deletion_timestamp.is_some() {
            return;
        }
        let Some(noted) = self.controllers.unmatched_pods.remove(&rs_key(rs)) else {
            return;
        };
        let uid = rs.metadata.uid.clone().unwrap_or_default();
        let no_labels = BTreeMap::new();
        let unmatched: Vec<Pod> = noted
            .iter()
            .filter_map(|k| self.store.get(k).and_then(Object::as_pod))
            .filter(|p| controlled_by(&p.metadata, &uid))
            .filter(|p| {
                !selector_matches(
                    &rs.spec.selector,
                    p.metadata.labels.as_ref().unwrap_or(&no_labels),
                )
            })
            .cloned()
            .collect();
        for pod in unmatched {
            let key = pod_key(&pod);
            if self.release_pod(ACTOR, &uid, pod).is_err() {
                // Looked at again next time, as upstream's next full claim would.
                let noted = self
                    .controllers
                    .unmatched_pods
                    .entry(rs_key(rs))
                    .or_default();
                noted.insert(key);
            }
        }
    }

    /// Notes a pod the ReplicaSet `rs` controls if its selector does not match the
    /// pod's labels (or the ReplicaSet is not known), for its next claim.
    fn note_unmatched_pod(&mut self, rs: &ObjectKey, pod: &Pod) {
        let matches = match self.store.get(rs) {
            Some(Object::ReplicaSet(set)) => {
                let no_labels = BTreeMap::new();
                selector_matches(
                    &set.spec.selector,
                    pod.metadata.labels.as_ref().unwrap_or(&no_labels),
                )
            }
            _ => false,
        };
        if !matches {
            self.controllers
                .unmatched_pods
                .entry(rs.clone())
                .or_default()
                .insert(pod_key(pod));
        }
    }

    /// Removes `owner_uid` from the pod's owner references (the release of a claim).
    fn release_pod(
        &mut self,
        actor: Actor,
        owner_uid: &str,
        mut pod: Pod,
    ) -> Result<(), crate::error::ApiError> {
        if let Some(refs) = pod.metadata.owner_references.as_mut() {
            refs.retain(|r| r.uid != owner_uid);
            if refs.is_empty() {
                pod.metadata.owner_references = None;
            }
        }
        self.update_as(actor, Object::Pod(Box::new(pod)))
            .map(|_| ())
    }

    /// The release half of `ClaimPods` for any controller: the pods `owner_uid`
    /// controls whose labels `selector` no longer matches lose their controller
    /// reference.
    pub(crate) fn release_unmatched(
        &mut self,
        actor: Actor,
        owner_uid: &str,
        selector: &LabelSelector,
    ) {
        let no_labels = BTreeMap::new();
        let unmatched: Vec<Pod> = self
            .owned_pods(owner_uid)
            .filter(|p| {
                !selector_matches(selector, p.metadata.labels.as_ref().unwrap_or(&no_labels))
            })
            .cloned()
            .collect();
        for pod in unmatched {
            // A failed release is tried again at the next sync's claim.
            let _ = self.release_pod(actor.clone(), owner_uid, pod);
        }
    }

    /// Adoption half of `ClaimPods`: an active pod without a controller whose labels
    /// match a ReplicaSet's selector gets that ReplicaSet as its controller. Upstream
    /// every matching ReplicaSet races to adopt it; here the oldest one (then by name)
    /// does, so the outcome is deterministic. A ReplicaSet being deleted adopts
    /// nothing; a pod being deleted or finished is not adopted.
    fn adopt_orphan_pod(&mut self, key: &ObjectKey) {
        let Some(Object::Pod(mut pod)) = self.store.get(key).cloned() else {
            return;
        };
        if !is_orphan(&pod) || !pod_is_active(&pod) {
            return;
        }
        let Some(rs) = self.adopter_of(&pod) else {
            return;
        };
        pod.metadata
            .owner_references
            .get_or_insert_with(Vec::new)
            .push(controller_ref(&rs));
        let _ = self.update_as(ACTOR, Object::Pod(pod));
    }

    /// The ReplicaSet that adopts an orphan pod: the oldest live one in its namespace
    /// whose selector matches its labels.
    fn adopter_of(&self, pod: &Pod) -> Option<ReplicaSet> {
        let ns = pod.metadata.namespace.as_deref().unwrap_or("default");
        adopter(
            pod,
            self.store
                .list(Kind::ReplicaSet, Some(ns))
                .filter_map(|o| o.as_replica_set())
                .map(|rs| (&rs.metadata, &rs.spec.selector, rs)),
        )
        .cloned()
    }

    /// Orphan pods in `rs`'s namespace that it may adopt, for a ReplicaSet just
    /// created (its first sync claims them upstream).
    pub(crate) fn orphans_for(&self, rs: &ReplicaSet) -> Vec<ObjectKey> {
        let ns = rs.metadata.namespace.as_deref().unwrap_or("default");
        self.orphans_matching(ns, &rs.spec.selector)
    }

    /// The active orphan pods of namespace `ns` that `selector` matches. Scans the
    /// namespace's pods: done once per controller creation.
    pub(crate) fn orphans_matching(&self, ns: &str, selector: &LabelSelector) -> Vec<ObjectKey> {
        self.store
            .list(Kind::Pod, Some(ns))
            .filter_map(|o| o.as_pod())
            .filter(|p| is_orphan(p) && pod_is_active(p))
            .filter(|p| {
                p.metadata
                    .labels
                    .as_ref()
                    .is_some_and(|l| selector_matches(selector, l))
            })
            .map(|p| Object::Pod(Box::new(p.clone())).key())
            .collect()
    }

    /// The pods whose controller reference points at `owner_uid`.
    pub(crate) fn owned_pods<'a>(
        &'a self,
        owner_uid: &'a str,
    ) -> impl Iterator<Item = &'a Pod> + 'a {
        self.store
            .dependent_objects(owner_uid)
            .filter_map(Object::as_pod)
            .filter(move |p| controlled_by(&p.metadata, owner_uid))
    }

    /// Creates `n` pods in batches of 1, 2, 4, …, as upstream's `slowStartBatch` does;
    /// a failed batch stops the rest (for example, a quota refusing pods). Returns
    /// whether every creation succeeded.
    fn create_pods_slow_start(&mut self, rs: &ReplicaSet, n: usize) -> Result<(), String> {
        let mut remaining = n;
        let mut batch = 1;
        let rs_obj = Object::ReplicaSet(Box::new(rs.clone()));
        while remaining > 0 {
            let size = batch.min(remaining);
            for _ in 0..size {
                let pod = pod_from_template(rs);
                match self.create_as(ACTOR, Object::Pod(Box::new(pod))) {
                    Ok(created) => {
                        self.record_event(
                            &rs_obj,
                            "replicaset-controller",
                            None,
                            "Normal",
                            "SuccessfulCreate",
                            format!("Created pod: {}", created.name()),
                        );
                    }
                    Err(e) => {
                        self.record_event(
                            &rs_obj,
                            "replicaset-controller",
                            None,
                            "Warning",
                            "FailedCreate",
                            format!("Error creating: {}", e.message),
                        );
                        return Err(e.message);
                    }
                }
            }
            remaining -= size;
            batch *= 2;
        }
        Ok(())
    }

    /// `calculateStatus`; `manage_error` is the failure of this sync's creations, which
    /// sets the ReplicaFailure condition (removed by the first sync that succeeds).
    /// Writes the ReplicaSet's status when it changed; the write, if one was made.
    fn update_replica_set_status(
        &mut self,
        key: &ObjectKey,
        manage_error: Option<(&str, String)>,
    ) -> Option<Result<(), crate::error::ApiError>> {
        let Some(Object::ReplicaSet(rs)) = self.store.get(key).cloned() else {
            return None;
        };
        let uid = rs.metadata.uid.clone().unwrap_or_default();
        let spec = &rs.spec;
        let min_ready = spec.min_ready_seconds.unwrap_or(0).max(0) as u64;
        let template_labels = template_labels(&rs);
        let (counts, available, next_available) = if min_ready == 0 {
            // Available is Ready when nothing waits for minReadySeconds: the running
            // counts kept from the pod watch say it all.
            let counts = self.tallied_counts(&uid, template_labels);
            debug_assert_eq!(
                counts,
                self.count_owned_pods(&uid, template_labels, 0).0,
                "the running counts of {key:?} drifted from its pods"
            );
            (counts, counts.ready, None)
        } else {
            self.count_owned_pods(&uid, template_labels, min_ready)
        };
        let PodCounts {
            replicas,
            ready,
            fully_labeled,
            terminating,
        } = counts;
        let status = ReplicaSetStatus {
            replicas,
            fully_labeled_replicas: omit_zero(fully_labeled),
            ready_replicas: omit_zero(ready),
            available_replicas: omit_zero(available),
            // DeploymentReplicaSetTerminatingReplicas: beta and on by default since
            // v1.35, so the count is always written, zero included.
            terminating_replicas: Some(terminating),
            observed_generation: rs.metadata.generation,
            conditions: replica_failure_conditions(&rs, manage_error, self.now),
        };
        if rs.status.as_ref() == Some(&status) {
            return None;
        }
        let mut updated = rs;
        updated.status = Some(status);
        let written = self.update_as(ACTOR, Object::ReplicaSet(updated)).map(drop);
        // Upstream re-queues the ReplicaSet after minReadySeconds (`AddAfter`):
        // a pod becomes available with no event of its own. Armed when the status
        // changes, so each ready pod gets one look rather than one per sync.
        if let Some(at) = next_available {
            self.enqueue_after(ID, key.clone(), at);
        }
        Some(written)
    }
}

/// The labels of the ReplicaSet's pod template (none: an empty map).
fn template_labels(rs: &ReplicaSet) -> &BTreeMap<String, String> {
    static NONE: BTreeMap<String, String> = BTreeMap::new();
    rs.spec
        .template
        .as_ref()
        .and_then(|t| t.metadata.as_ref())
        .and_then(|m| m.labels.as_ref())
        .unwrap_or(&NONE)
}

/// What a ReplicaSet's status counts of its pods (`calculateStatus`), but for the
/// available ones, which depend on time when minReadySeconds is set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PodCounts {
    replicas: i32,
    ready: i32,
    fully_labeled: i32,
    terminating: i32,
}

impl PodCounts {
    /// What one pod adds: active pods count as replicas (ready, labelled as the
    /// template), a pod being deleted and not finished as terminating
    /// (`controller.IsPodTerminating`).
    fn of(p: &Pod, template_labels: &BTreeMap<String, String>) -> PodCounts {
        if !pod_is_active(p) {
            let phase = p.status.as_ref().and_then(|s| s.phase.as_deref());
            let terminating = p.metadata.deletion_timestamp.is_some()
                && !matches!(phase, Some("Succeeded") | Some("Failed"));
            return PodCounts {
                terminating: i32::from(terminating),
                ..PodCounts::default()
            };
        }
        let labels = p.metadata.labels.as_ref();
        let fully_labeled = template_labels
            .iter()
            .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v));
        PodCounts {
            replicas: 1,
            ready: i32::from(pod_is_ready(p)),
            fully_labeled: i32::from(fully_labeled),
            terminating: 0,
        }
    }

    fn add(&mut self, other: PodCounts, sign: i32) {
        self.replicas += sign * other.replicas;
        self.ready += sign * other.ready;
        self.fully_labeled += sign * other.fully_labeled;
        self.terminating += sign * other.terminating;
    }
}

/// A ReplicaSet's [`PodCounts`] kept current from the pod watch, so a sync does not
/// read its thousands of pods again: built by the first sync that needs it, then
/// moved by each event of a pod it controls (the old pod taken out, the new one
/// put in). Counted against the template's labels it was built with; a ReplicaSet
/// whose template labels changed is counted afresh.
#[derive(Clone, Debug, Default)]
pub(crate) struct PodTally {
    template_labels: BTreeMap<String, String>,
    counts: PodCounts,
}

impl Cluster {
    /// Reads every pod `uid` controls: the counts, how many are available
    /// (`podutil.IsPodAvailable` at `min_ready` seconds) and when the next one will
    /// be.
    fn count_owned_pods(
        &self,
        uid: &str,
        template_labels: &BTreeMap<String, String>,
        min_ready: u64,
    ) -> (PodCounts, i32, Option<SimTime>) {
        let mut counts = PodCounts::default();
        let mut available = 0;
        let mut next_available: Option<SimTime> = None;
        for p in self.owned_pods(uid) {
            counts.add(PodCounts::of(p, template_labels), 1);
            if !pod_is_active(p) {
                continue;
            }
            if pod_is_available(p, min_ready, self.now) {
                available += 1;
            } else if let Some(at) = available_at(p, min_ready) {
                next_available = Some(next_available.map_or(at, |n| n.min(at)));
            }
        }
        (counts, available, next_available)
    }

    /// The running counts of the pods `uid` controls, built when missing.
    fn tallied_counts(
        &mut self,
        uid: &str,
        template_labels: &BTreeMap<String, String>,
    ) -> PodCounts {
        if let Some(t) = self.controllers.pod_tallies.get(uid) {
            if &t.template_labels == template_labels {
                return t.counts;
            }
        }
        let counts = self.count_owned_pods(uid, template_labels, 0).0;
        let tally = PodTally {
            template_labels: template_labels.clone(),
            counts,
        };
        self.controllers.pod_tallies.insert(uid.to_string(), tally);
        counts
    }

    /// Moves the running counts by one pod event: the pod as it was leaves its
    /// controller's counts, the pod as it is joins its controller's.
    fn tally_pod_event(&mut self, ev: &WatchEvent) {
        if self.controllers.pod_tallies.is_empty() {
            return;
        }
        let (old, new) = match ev.event_type {
            EventType::Added => (None, ev.object.as_pod()),
            EventType::Deleted => (ev.object.as_pod(), None),
            EventType::Modified => match ev.old.as_deref() {
                Some(old) => (old.as_pod(), ev.object.as_pod()),
                None => {
                    // Without the old pod the counts cannot be moved: count afresh.
                    self.controllers.pod_tallies.clear();
                    return;
                }
            },
        };
        for (pod, sign) in [(old, -1), (new, 1)] {
            let Some(pod) = pod else { continue };
            for r in pod.metadata.owner_references.iter().flatten() {
                if r.controller != Some(true) {
                    continue;
                }
                if let Some(t) = self.controllers.pod_tallies.get_mut(&r.uid) {
                    t.counts.add(PodCounts::of(pod, &t.template_labels), sign);
                }
            }
        }
    }
}

fn pods_per_node(pods: &[&Pod]) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for p in pods {
        if let Some(n) = p.spec.as_ref().and_then(|s| s.node_name.clone()) {
            *m.entry(n).or_default() += 1;
        }
    }
    m
}

/// Ready for at least `min_ready_seconds` (upstream `podutil.IsPodAvailable`).
pub fn pod_is_available(pod: &Pod, min_ready_seconds: u64, now: SimTime) -> bool {
    match pod_condition(pod, "Ready") {
        Some(c) if c.status == "True" => {
            if min_ready_seconds == 0 {
                return true;
            }
            c.last_transition_time
                .as_ref()
                .is_some_and(|t| now.since(SimTime::from_k8s(t)).as_secs() >= min_ready_seconds)
        }
        _ => false,
    }
}

/// The ReplicaSet's conditions after a sync: ReplicaFailure (reason FailedCreate,
/// the creation error as message) added on a failed sync if not already there, and
/// removed after a successful one.
fn replica_failure_conditions(
    rs: &ReplicaSet,
    manage_error: Option<(&str, String)>,
    now: SimTime,
) -> Option<Vec<k8s_openapi::api::apps::v1::ReplicaSetCondition>> {
    let mut conds = rs
        .status
        .as_ref()
        .and_then(|s| s.conditions.clone())
        .unwrap_or_default();
    let failure = |c: &k8s_openapi::api::apps::v1::ReplicaSetCondition| {
        c.type_.as_deref() == Some("ReplicaFailure")
    };
    let existing = conds.iter().any(failure);
    match manage_error {
        Some((reason, message)) if !existing => {
            conds.push(k8s_openapi::api::apps::v1::ReplicaSetCondition {
                type_: Some("ReplicaFailure".into()),
                status: Some("True".into()),
                reason: Some(reason.into()),
                message: Some(message),
                last_transition_time: Some(now.to_k8s()),
            })
        }
        None if existing => conds.retain(|c| !failure(c)),
        _ => {}
    }
    (!conds.is_empty()).then_some(conds)
}

/// When a ready pod becomes available: minReadySeconds after its Ready transition.
fn available_at(pod: &Pod, min_ready_seconds: u64) -> Option<SimTime> {
    let c = pod_condition(pod, "Ready").filter(|c| c.status == "True")?;
    let since = SimTime::from_k8s(c.last_transition_time.as_ref()?);
    Some(since + crate::time::SimDuration::secs(min_ready_seconds))
}

/// The controller that adopts an orphan `pod` among `owners` (metadata, selector,
/// owner): the oldest (then first by name) live one whose selector matches its
/// labels. An empty selector selects nothing here (apps/v1 refuses it anyway).
pub(crate) fn adopter<'a, T>(
    pod: &Pod,
    owners: impl Iterator<Item = (&'a ObjectMeta, &'a LabelSelector, &'a T)>,
) -> Option<&'a T> {
    let labels = pod.metadata.labels.as_ref()?;
    owners
        .filter(|(meta, _, _)| meta.deletion_timestamp.is_none())
        .filter(|(_, sel, _)| {
            (sel.match_labels.as_ref().is_some_and(|m| !m.is_empty())
                || sel
                    .match_expressions
                    .as_ref()
                    .is_some_and(|e| !e.is_empty()))
                && selector_matches(sel, labels)
        })
        .min_by_key(|(meta, _, _)| {
            (
                meta.creation_timestamp
                    .as_ref()
                    .map(|t| t.0.as_millisecond()),
                meta.name.clone(),
            )
        })
        .map(|(_, _, owner)| owner)
}

/// No controller reference and not being deleted: a pod a controller may adopt.
pub(crate) fn is_orphan(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_none()
        && !pod
            .metadata
            .owner_references
            .iter()
            .flatten()
            .any(|r| r.controller == Some(true))
}

/// The controller reference a ReplicaSet puts on its pods.
fn controller_ref(rs: &ReplicaSet) -> OwnerReference {
    OwnerReference {
        api_version: "apps/v1".into(),
        kind: "ReplicaSet".into(),
        name: rs.metadata.name.clone().unwrap_or_default(),
        uid: rs.metadata.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// A new pod from the ReplicaSet's template (upstream `GetPodFromTemplate`).
fn pod_from_template(rs: &ReplicaSet) -> Pod {
    let template = rs.spec.template.clone().unwrap_or_default();
    let tmeta = template.metadata.unwrap_or_default();
    let name = rs.metadata.name.clone().unwrap_or_default();
    Pod {
        metadata: ObjectMeta {
            generate_name: Some(format!("{name}-")),
            namespace: rs.metadata.namespace.clone(),
            labels: tmeta.labels,
            annotations: tmeta.annotations,
            owner_references: Some(vec![OwnerReference {
                api_version: "apps/v1".into(),
                kind: "ReplicaSet".into(),
                name,
                uid: rs.metadata.uid.clone().unwrap_or_default(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            }]),
            ..Default::default()
        },
        spec: template.spec,
        status: None,
    }
}

/// Chooses which `n` pods to delete when scaling down, in upstream's order
/// (`ActivePodsWithRanks` in pkg/controller/controller_utils.go): unassigned before
/// assigned; Pending, then Unknown, then Running; not ready before ready; lower
/// pod-deletion-cost first; more siblings on the same node first; ready for less time
/// first; more restarts first; newer first.
fn pods_to_delete(active: &[&Pod], n: usize, per_node: &BTreeMap<String, usize>) -> Vec<ObjectKey> {
    let mut ranked: Vec<(RankKey, ObjectKey)> = active
        .iter()
        .map(|p| {
            (
                rank_key(p, per_node),
                Object::Pod(Box::new((*p).clone())).key(),
            )
        })
        .collect();
    ranked.stable_sort();
    ranked.into_iter().take(n).map(|(_, k)| k).collect()
}

/// Smaller sorts first (deleted first).
type RankKey = (
    bool,
    u8,
    bool,
    i64,
    std::cmp::Reverse<usize>,
    std::cmp::Reverse<i64>,
    std::cmp::Reverse<i32>,
    std::cmp::Reverse<i64>,
    String,
);

fn rank_key(p: &Pod, per_node: &BTreeMap<String, usize>) -> RankKey {
    let node = p.spec.as_ref().and_then(|s| s.node_name.clone());
    let assigned = node.is_some();
    let phase_rank = match p.status.as_ref().and_then(|s| s.phase.as_deref()) {
        Some("Pending") => 0,
        Some("Unknown") => 1,
        Some("Running") => 2,
        _ => 0,
    };
    let ready = pod_is_ready(p);
    let cost = p
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get("controller.kubernetes.io/pod-deletion-cost"))
        .and_then(|v| v.parse::<i64>().ok())
        .unwrap_or(0);
    let siblings = node
        .as_ref()
        .and_then(|n| per_node.get(n))
        .copied()
        .unwrap_or(0);
    let ready_since = pod_condition(p, "Ready")
        .filter(|c| c.status == "True")
        .and_then(|c| c.last_transition_time.as_ref())
        .map(|t| t.0.as_millisecond())
        .unwrap_or(0);
    let restarts: i32 = p
        .status
        .as_ref()
        .and_then(|s| s.container_statuses.as_ref())
        .map(|cs| cs.iter().map(|c| c.restart_count).sum())
        .unwrap_or(0);
    let created = crate::object::created_millis(&p.metadata);
    (
        assigned,
        phase_rank,
        ready,
        cost,
        std::cmp::Reverse(siblings),
        std::cmp::Reverse(ready_since),
        std::cmp::Reverse(restarts),
        std::cmp::Reverse(created),
        p.metadata.name.clone().unwrap_or_default(),
    )
}
