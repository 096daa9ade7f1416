//! The StatefulSet controller. Mirrors pkg/controller/statefulset:
//! stateful_set_control.go (`getStatefulSetRevisions`, `updateStatefulSet`,
//! `processReplica`, `processCondemned`, `updateStatefulSetAfterInvariantEstablished`,
//! `completeRollingUpdate`, `truncateHistory`), stateful_set_utils.go
//! (`newVersionedStatefulSetPod`, `initIdentity`, `updateStorage`,
//! `getPersistentVolumeClaims`) and stateful_pod_control.go (the claims before the
//! pod, and the events).
//!
//! Each pod has an ordinal and keeps it for life: `NAME-0`, `NAME-1`, ... (from
//! `spec.ordinals.start`), with the hostname of its name and the subdomain of the
//! governing Service (`NAME-0.SERVICE.NAMESPACE.svc.cluster.local` through CoreDNS
//! once the headless Service lists it). A claim per volume claim template and ordinal
//! (`TEMPLATE-NAME-0`) is created before its pod and outlives it unless the retention
//! policy says otherwise. With `OrderedReady` (the default) pods are created one at a
//! time in ordinal order, each after its predecessors are Running and Ready (and
//! available for `minReadySeconds`), and removed one at a time from the highest
//! ordinal; `Parallel` creates and removes them all at once. A rolling update
//! replaces pods from the highest ordinal down to `partition`, at most
//! `maxUnavailable` (1) at a time; below the partition a pod is made from the
//! current revision. Revisions are ControllerRevisions owned by the set
//! (`NAME-<hash>`, the pods' `controller-revision-hash` label; a new one carries
//! the set's annotations, as `newRevision` copies them), at most
//! `revisionHistoryLimit` of them kept beyond the live ones.
//!
//! A pod is never made twice at once: a pod on a lost zone stays (Terminating) until
//! its deletion completes, and only then is it made again (at most once).
//!
//! Orphans are adopted as upstream's `ClaimPods` and `ClaimControllerRevisions` do: a
//! pod of the set's name and selector when the set is made or the pod appears, a
//! revision matching its selector at the set's first sync.
//!
//! The spec and status are read from and written to the stored JSON. Simplified:
//! a revision's hash is FNV-32a of the template's JSON (`names::pod_template_hash`), not upstream's hash of Go's encoding.

use super::history::{revision_data, Revision};
use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::error::ApiError;
use crate::object::{Kind, Object, ObjectKey, OtherObject};
use crate::store::{EventType, WatchEvent};
use crate::time::SimTime;
use k8s_openapi::api::core::v1::{PersistentVolumeClaimVolumeSource, Pod, PodTemplateSpec, Volume};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub(crate) const ID: ControllerId = ControllerId::new("statefulset-controller");
const ACTOR: Actor = Actor::Controller(ID.name());
/// The label naming a pod's revision (`apps.ControllerRevisionHashLabelKey`).
pub const REVISION_LABEL: &str = "controller-revision-hash";
/// The label naming the pod (`apps.StatefulSetPodNameLabel`).
pub const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
/// The label holding the pod's ordinal (`apps.PodIndexLabel`).
pub const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";

/// The StatefulSet controller.
pub(crate) struct StatefulSetController;

impl Controller for StatefulSetController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        match &*ev.object {
            Object::Other(o)
                if o.kind == Kind::StatefulSet && ev.event_type != EventType::Deleted =>
            {
                if ev.event_type == EventType::Added {
                    // A new set may adopt the orphans of one deleted with
                    // `--cascade=orphan`: their keys come first, then the set's.
                    let spec = SetSpec::of(o);
                    let name = o.metadata.name.as_deref().unwrap_or("");
                    keys.extend(
                        c.orphans_matching(ev.object.namespace(), &spec.selector)
                            .into_iter()
                            .filter(|k| ordinal_of(name, &k.name).is_some()),
                    );
                }
                keys.push(ev.object.key());
            }
            // One of its pods or revisions changed or went: the set looks again.
            Object::Pod(_) => {
                if let Some(key) = crate::cluster::controller_of(&ev.object, Kind::StatefulSet) {
                    keys.push(key);
                } else if super::adoptable_orphan(ev) {
                    keys.push(ev.object.key());
                }
            }
            Object::Other(o) if o.kind == Kind::ControllerRevision => {
                if let Some(key) = crate::cluster::controller_of(&ev.object, Kind::StatefulSet) {
                    keys.push(key);
                }
            }
            _ => {}
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(c.store.list(Kind::StatefulSet, None).map(Object::key));
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.sync_stateful_set(key)
    }

    fn requeue_after_reason(&self) -> &'static str {
        "minReadySeconds"
    }
}

/// What the controller reads of a StatefulSet's spec, defaults applied.
#[derive(Clone, Debug, PartialEq)]
pub struct SetSpec {
    pub replicas: i32,
    pub selector: LabelSelector,
    pub service_name: String,
    pub template: PodTemplateSpec,
    /// `podManagementPolicy: Parallel`.
    pub parallel: bool,
    /// `updateStrategy.type: OnDelete`.
    pub on_delete: bool,
    pub partition: i32,
    pub max_unavailable: Option<IntOrString>,
    pub claim_templates: Vec<Value>,
    pub min_ready_seconds: i64,
    pub start: i32,
    pub revision_history_limit: i64,
    /// `persistentVolumeClaimRetentionPolicy.whenDeleted` is `Delete`.
    pub delete_claims_with_set: bool,
    /// `persistentVolumeClaimRetentionPolicy.whenScaled` is `Delete`.
    pub delete_claims_on_scale_down: bool,
}

fn decoded<T: serde::de::DeserializeOwned + Default>(v: Option<&Value>) -> T {
    v.and_then(|v| crate::object::decode::from_value(v.clone()).ok())
        .unwrap_or_default()
}

impl SetSpec {
    pub fn of(o: &OtherObject) -> SetSpec {
        let spec = o.fields.get("spec");
        let at = |path: &[&str]| {
            path.iter()
                .try_fold(spec?, |v, k| v.get(k))
                .filter(|v| !v.is_null())
        };
        let int = |path: &[&str], default: i64| at(path).and_then(Value::as_i64).unwrap_or(default);
        let string = |path: &[&str]| at(path).and_then(Value::as_str).unwrap_or("").to_string();
        let clamp = |v: i64| i32::try_from(v.max(0)).unwrap_or(i32::MAX);
        SetSpec {
            replicas: clamp(int(&["replicas"], 1)),
            selector: decoded(at(&["selector"])),
            service_name: string(&["serviceName"]),
            template: decoded(at(&["template"])),
            parallel: string(&["podManagementPolicy"]) == "Parallel",
            on_delete: string(&["updateStrategy", "type"]) == "OnDelete",
            partition: clamp(int(&["updateStrategy", "rollingUpdate", "partition"], 0)),
            max_unavailable: at(&["updateStrategy", "rollingUpdate", "maxUnavailable"])
                .and_then(|v| crate::object::decode::from_value(v.clone()).ok()),
            claim_templates: at(&["volumeClaimTemplates"])
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            min_ready_seconds: int(&["minReadySeconds"], 0).max(0),
            start: clamp(int(&["ordinals", "start"], 0)),
            revision_history_limit: int(&["revisionHistoryLimit"], 10),
            delete_claims_with_set: string(&[
                "persistentVolumeClaimRetentionPolicy",
                "whenDeleted",
            ]) == "Delete",
            delete_claims_on_scale_down: string(&[
                "persistentVolumeClaimRetentionPolicy",
                "whenScaled",
            ]) == "Delete",
        }
    }

    /// The highest ordinal plus one (`getEndOrdinal` + 1), saturating.
    fn end(&self) -> i32 {
        self.start.saturating_add(self.replicas)
    }
}

/// `SetDefaults_StatefulSet`: the policies, the strategy (partition 0 and, with
/// MaxUnavailableStatefulSet on by default since v1.35, maxUnavailable 1), one
/// replica, ten revisions, claims retained, and the pod template's own defaults.
pub fn default_stateful_set(o: &mut OtherObject) {
    let Some(spec) = o.fields.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    spec.entry("podManagementPolicy")
        .or_insert_with(|| json!("OrderedReady"));
    spec.entry("replicas").or_insert_with(|| json!(1));
    spec.entry("revisionHistoryLimit")
        .or_insert_with(|| json!(10));
    let strategy = spec.entry("updateStrategy").or_insert_with(|| json!({}));
    if let Some(strategy) = strategy.as_object_mut() {
        // A strategy without a type becomes RollingUpdate with a rollingUpdate
        // of defaults; a RollingUpdate given by name keeps its rollingUpdate
        // absent when it has none.
        let typed = strategy
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| !t.is_empty());
        if !typed {
            strategy.insert("type".into(), json!("RollingUpdate"));
            strategy.entry("rollingUpdate").or_insert_with(|| json!({}));
        }
        if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
            if let Some(rolling) = strategy
                .get_mut("rollingUpdate")
                .and_then(Value::as_object_mut)
            {
                rolling.entry("partition").or_insert_with(|| json!(0));
                rolling.entry("maxUnavailable").or_insert_with(|| json!(1));
            }
        }
    }
    let retention = spec
        .entry("persistentVolumeClaimRetentionPolicy")
        .or_insert_with(|| json!({}));
    if let Some(retention) = retention.as_object_mut() {
        for field in ["whenDeleted", "whenScaled"] {
            retention.entry(field).or_insert_with(|| json!("Retain"));
        }
    }
    if let Some(template) = spec.get_mut("template") {
        if let Ok(mut t) = crate::object::decode::from_value::<PodTemplateSpec>(template.clone()) {
            if let Some(pod_spec) = t.spec.as_mut() {
                crate::apiserver::default_pod_spec(pod_spec);
            }
            *template = crate::object::to_json_value(&t);
        }
    }
}

/// `getParentNameAndOrdinal`: the ordinal of a pod named `SET-N`, if it is one.
pub fn ordinal_of(set: &str, pod: &str) -> Option<i32> {
    let (parent, n) = pod.rsplit_once('-')?;
    if parent != set || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// A pod's revision label (`getPodRevision`).
fn pod_revision(pod: &Pod) -> &str {
    pod.metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(REVISION_LABEL))
        .map_or("", String::as_str)
}

fn phase(pod: &Pod) -> &str {
    pod.status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or("")
}

fn is_terminating(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some()
}

fn running_and_ready(pod: &Pod) -> bool {
    phase(pod) == "Running" && super::pod_is_ready(pod)
}

fn running_and_available(pod: &Pod, min_ready_seconds: i64, now: SimTime) -> bool {
    phase(pod) == "Running"
        && super::replicaset::pod_is_available(pod, min_ready_seconds.max(0) as u64, now)
}

/// `isUnavailable`: not made yet, going, or not (yet) available.
fn is_unavailable(pod: &Pod, min_ready_seconds: i64, now: SimTime) -> bool {
    phase(pod).is_empty()
        || is_terminating(pod)
        || !running_and_available(pod, min_ready_seconds, now)
}

/// A pod in the set's sequence: one that exists, or one to make.
enum Slot {
    Made(Box<Pod>),
    ToMake(i32),
}

impl Cluster {
    /// The adoption half of `ClaimPods` (pkg/controller/controller_ref_manager.go)
    /// as `getPodsForStatefulSet` runs it: an active orphan pod whose labels match
    /// a set's selector and whose name is one of the set's (`isMemberOf`: the name
    /// less its ordinal is the set's) gets the set as its controller.
    fn adopt_orphan_stateful_pod(&mut self, key: &ObjectKey) {
        let Some(Object::Pod(mut pod)) = self.store.get(key).cloned() else {
            return;
        };
        if !super::replicaset::is_orphan(&pod) || !super::pod_is_active(&pod) {
            return;
        }
        // The sets this pod's name belongs to, with their selectors.
        let sets: Vec<(OtherObject, LabelSelector)> = self
            .store
            .list(Kind::StatefulSet, Some(&key.namespace))
            .filter_map(|o| match o {
                Object::Other(set)
                    if ordinal_of(set.metadata.name.as_deref().unwrap_or(""), &key.name)
                        .is_some() =>
                {
                    Some(((**set).clone(), SetSpec::of(set).selector))
                }
                _ => None,
            })
            .collect();
        let owner = super::replicaset::adopter(
            &pod,
            sets.iter().map(|(set, sel)| (&set.metadata, sel, set)),
        )
        .map(owner_ref);
        let Some(owner) = owner else {
            return;
        };
        pod.metadata
            .owner_references
            .get_or_insert_with(Vec::new)
            .push(owner);
        let _ = self.update_as(ACTOR, Object::Pod(pod));
    }

    /// `ClaimControllerRevisions` at a set's first sync: orphan revisions whose
    /// labels match its selector become its own (a set deleted with
    /// `--cascade=orphan` and made again finds its history). Later syncs read only
    /// the revisions it owns.
    fn adopt_orphan_revisions(&mut self, set: &OtherObject, selector: &LabelSelector) {
        let namespace = set.metadata.namespace.clone().unwrap_or_default();
        let owner = owner_ref(set);
        let orphans: Vec<Object> = self
            .store
            .list(Kind::ControllerRevision, Some(&namespace))
            .filter(|o| {
                let meta = o.meta();
                !meta
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|r| r.controller == Some(true))
                    && meta.deletion_timestamp.is_none()
                    && meta
                        .labels
                        .as_ref()
                        .is_some_and(|l| super::selector_matches(selector, l))
            })
            .cloned()
            .collect();
        for mut o in orphans {
            o.meta_mut()
                .owner_references
                .get_or_insert_with(Vec::new)
                .push(owner.clone());
            let _ = self.update_as(ACTOR, o);
        }
    }

    fn sync_stateful_set(&mut self, key: &ObjectKey) -> Action {
        if key.kind == Kind::Pod {
            // An orphan pod the watch saw.
            self.adopt_orphan_stateful_pod(key);
            return Action::Done;
        }
        let Some(Object::Other(set)) = self.store.get(key).cloned() else {
            return Action::Done;
        };
        let uid = set.metadata.uid.clone().unwrap_or_default();
        let spec = SetSpec::of(&set);
        let set_name = set.metadata.name.clone().unwrap_or_default();
        let about = Object::Other(set.clone());
        let mut writes = Vec::new();
        let first_sync = set
            .fields
            .get("status")
            .and_then(|s| s.get("observedGeneration"))
            .is_none();
        if first_sync && set.metadata.deletion_timestamp.is_none() {
            self.adopt_orphan_revisions(&set, &spec.selector);
        }

        // The revisions: the live template's, and the one the pods were at.
        let mut revisions = self.controlled_revisions(&uid);
        let status = set
            .fields
            .get("status")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let collision_count = status
            .get("collisionCount")
            .and_then(Value::as_i64)
            .and_then(|c| i32::try_from(c).ok())
            .unwrap_or(0);
        let template = set
            .fields
            .get("spec")
            .and_then(|s| s.get("template"))
            .cloned()
            .unwrap_or(Value::Null);
        let update = match self.update_revision(&set, &revisions, &template, collision_count) {
            Ok(r) => r,
            Err(e) => return Action::after_writes([Err(e)]),
        };
        if !revisions.iter().any(|r| r.name == update.name) {
            revisions.push(update.clone());
        }
        let current_name = status
            .get("currentRevision")
            .and_then(Value::as_str)
            .unwrap_or("");
        let current = revisions
            .iter()
            .find(|r| r.name == current_name)
            .cloned()
            .unwrap_or_else(|| update.clone());

        // Its pods, by ordinal: the sequence [start, end) and the condemned beyond.
        let pods: Vec<Pod> = self
            .owned_pods(&uid)
            .filter(|p| ordinal_of(&set_name, p.metadata.name.as_deref().unwrap_or("")).is_some())
            .cloned()
            .collect();
        let mut replicas: BTreeMap<i32, Slot> = BTreeMap::new();
        let mut condemned: Vec<Pod> = Vec::new();
        for pod in &pods {
            let ordinal =
                ordinal_of(&set_name, pod.metadata.name.as_deref().unwrap_or("")).unwrap_or(-1);
            if ordinal >= spec.start && ordinal < spec.end() {
                replicas.insert(ordinal, Slot::Made(Box::new(pod.clone())));
            } else {
                condemned.push(pod.clone());
            }
        }
        for ordinal in spec.start..spec.end() {
            replicas.entry(ordinal).or_insert(Slot::ToMake(ordinal));
        }
        // Highest ordinal first.
        condemned.sort_by_key(|p| {
            std::cmp::Reverse(ordinal_of(
                &set_name,
                p.metadata.name.as_deref().unwrap_or(""),
            ))
        });
        let now = self.now;
        let mrs = spec.min_ready_seconds;
        let first_unavailable: Option<String> = replicas
            .values()
            .find_map(|s| match s {
                Slot::ToMake(o) => Some(format!("{set_name}-{o}")),
                Slot::Made(p) if is_unavailable(p, mrs, now) => p.metadata.name.clone(),
                Slot::Made(_) => None,
            })
            .or_else(|| {
                condemned
                    .iter()
                    .rev()
                    .find(|p| is_unavailable(p, mrs, now))
                    .and_then(|p| p.metadata.name.clone())
            });

        if set.metadata.deletion_timestamp.is_none() {
            let monotonic = !spec.parallel;
            let made = Made {
                set: &set,
                spec: &spec,
                about: &about,
                current: &current,
                update: &update,
            };
            let blocked = self.process_replicas(&made, &mut replicas, monotonic, &mut writes)
                || self.process_condemned(
                    &made,
                    &condemned,
                    first_unavailable.as_deref(),
                    monotonic,
                    &mut writes,
                );
            if !blocked && !spec.on_delete {
                self.roll_update(&made, &replicas, &mut writes);
            }
        }

        // The status, from the pods as they are now in the store.
        let pods_now: Vec<Pod> = self
            .owned_pods(&uid)
            .filter(|p| ordinal_of(&set_name, p.metadata.name.as_deref().unwrap_or("")).is_some())
            .cloned()
            .collect();
        let mut next = status.clone();
        let counts = count_replicas(&pods_now, mrs, now, &current.name, &update.name);
        for (field, value) in [
            ("replicas", counts.replicas),
            ("readyReplicas", counts.ready),
            ("availableReplicas", counts.available),
            ("currentReplicas", counts.current),
            ("updatedReplicas", counts.updated),
        ] {
            next.insert(field.into(), json!(value));
        }
        next.insert(
            "observedGeneration".into(),
            json!(set.metadata.generation.unwrap_or(0)),
        );
        next.insert("currentRevision".into(), json!(current.name));
        next.insert("updateRevision".into(), json!(update.name));
        next.insert("collisionCount".into(), json!(collision_count));
        // `completeRollingUpdate`.
        if !spec.on_delete && counts.updated == counts.replicas && counts.ready == counts.replicas {
            next.insert("currentReplicas".into(), json!(counts.updated));
            next.insert("currentRevision".into(), json!(update.name));
        }
        if next != status {
            if let Some(Object::Other(latest)) = self.store.get(key).cloned() {
                let mut updated = latest;
                updated
                    .fields
                    .insert("status".into(), Value::Object(next.clone()));
                writes.push(self.update_as(ACTOR, Object::Other(updated)).map(drop));
            }
        }
        // A ready pod becomes available minReadySeconds later, with no event of its own.
        if mrs > 0 {
            let soonest = pods_now
                .iter()
                .filter(|p| running_and_ready(p) && !running_and_available(p, mrs, now))
                .filter_map(|p| super::pod_condition(p, "Ready"))
                .filter_map(|c| c.last_transition_time.as_ref())
                .map(|t| SimTime::from_k8s(t) + crate::time::SimDuration::secs(mrs as u64))
                .min();
            if let Some(at) = soonest {
                self.enqueue_after(ID, key.clone(), at);
            }
        }
        let live_revisions: Vec<String> = [current.name.clone(), update.name.clone()]
            .into_iter()
            .chain(
                pods_now
                    .iter()
                    .map(|p| pod_revision(p).to_string())
                    .filter(|r| !r.is_empty()),
            )
            .collect();
        writes.extend(self.truncate_history(&revisions, &live_revisions, &spec));
        Action::after_writes(writes)
    }

    /// `getStatefulSetRevisions`: the revision of the set's template as it is now:
    /// the latest revision if it holds the same template, an older one brought
    /// forward as the newest (a rollback), or a new one.
    fn update_revision(
        &mut self,
        set: &OtherObject,
        revisions: &[Revision],
        template: &Value,
        collision_count: i32,
    ) -> Result<Revision, ApiError> {
        let data = revision_data(template);
        let next_number = revisions.last().map_or(1, |r| r.revision.saturating_add(1));
        let equal = revisions.iter().rev().find(|r| r.records(template));
        match equal {
            Some(r) if revisions.last().is_some_and(|last| last.name == r.name) => Ok(r.clone()),
            Some(r) => {
                let mut object = r.object.clone();
                object.fields.insert("revision".into(), json!(next_number));
                self.update_as(ACTOR, Object::Other(Box::new(object.clone())))?;
                Ok(Revision {
                    revision: next_number,
                    object,
                    ..r.clone()
                })
            }
            None => {
                let set_name = set.metadata.name.clone().unwrap_or_default();
                let bytes = serde_json::to_vec(&data).unwrap_or_default();
                let hash = crate::names::pod_template_hash(&bytes, Some(collision_count));
                let labels = decoded::<PodTemplateSpec>(Some(template))
                    .metadata
                    .and_then(|m| m.labels);
                let object = OtherObject {
                    kind: Kind::ControllerRevision,
                    api_version: "apps/v1".into(),
                    metadata: ObjectMeta {
                        name: Some(format!("{set_name}-{hash}")),
                        namespace: set.metadata.namespace.clone(),
                        labels,
                        // `newRevision` copies the set's annotations (a
                        // kubernetes.io/change-cause among them).
                        annotations: set.metadata.annotations.clone().filter(|a| !a.is_empty()),
                        owner_references: Some(vec![owner_ref(set)]),
                        ..Default::default()
                    },
                    fields: Map::from_iter([
                        ("data".to_string(), data),
                        ("revision".to_string(), json!(next_number)),
                    ]),
                };
                let created = self.create_as(ACTOR, Object::Other(Box::new(object)))?;
                match &*created {
                    Object::Other(o) => Ok(Revision::of(o)),
                    _ => unreachable!("a ControllerRevision is kept as JSON"),
                }
            }
        }
    }

    /// `truncateHistory`: revisions no pod and neither status names, beyond
    /// `revisionHistoryLimit`, oldest first.
    fn truncate_history(
        &mut self,
        revisions: &[Revision],
        live: &[String],
        spec: &SetSpec,
    ) -> Vec<Result<(), ApiError>> {
        let history: Vec<&Revision> = revisions
            .iter()
            .filter(|r| !live.contains(&r.name))
            .collect();
        let limit = usize::try_from(spec.revision_history_limit).unwrap_or(usize::MAX);
        if spec.revision_history_limit < 0 || history.len() <= limit {
            return Vec::new();
        }
        let excess = history.len() - limit;
        history
            .into_iter()
            .take(excess)
            .map(|r| {
                let key = Object::Other(Box::new(r.object.clone())).key();
                self.delete_as(ACTOR, &key, None).map(drop)
            })
            .collect()
    }
}

/// What a pod is made from: the set, and its current and update revisions.
struct Made<'a> {
    set: &'a OtherObject,
    spec: &'a SetSpec,
    about: &'a Object,
    current: &'a Revision,
    update: &'a Revision,
}

#[derive(Default)]
struct ReplicaCounts {
    replicas: i32,
    ready: i32,
    available: i32,
    current: i32,
    updated: i32,
}

/// `computeReplicaStatus`.
fn count_replicas(
    pods: &[Pod],
    min_ready_seconds: i64,
    now: SimTime,
    current: &str,
    update: &str,
) -> ReplicaCounts {
    let mut c = ReplicaCounts::default();
    for pod in pods {
        let created = !phase(pod).is_empty();
        if created {
            c.replicas += 1;
        }
        if running_and_ready(pod) {
            c.ready += 1;
            if running_and_available(pod, min_ready_seconds, now) {
                c.available += 1;
            }
        }
        if created && !is_terminating(pod) {
            let revision = pod_revision(pod);
            if revision == current {
                c.current += 1;
            }
            if revision == update {
                c.updated += 1;
            }
        }
    }
    c
}

fn owner_ref(set: &OtherObject) -> OwnerReference {
    OwnerReference {
        api_version: "apps/v1".into(),
        kind: "StatefulSet".into(),
        name: set.metadata.name.clone().unwrap_or_default(),
        uid: set.metadata.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// `newVersionedStatefulSetPod`: below the partition, a pod of the current revision;
/// otherwise one of the update revision.
fn versioned_pod(m: &Made, ordinal: i32) -> Pod {
    let below_partition =
        !m.spec.on_delete && ordinal < m.spec.start.saturating_add(m.spec.partition);
    let revision = if below_partition { m.current } else { m.update };
    let template: PodTemplateSpec = decoded(Some(&revision.template));
    new_pod(m.set, m.spec, &template, &revision.name, ordinal)
}

/// `newStatefulSetPod`, `initIdentity` and `updateStorage`.
fn new_pod(
    set: &OtherObject,
    spec: &SetSpec,
    template: &PodTemplateSpec,
    revision: &str,
    ordinal: i32,
) -> Pod {
    let set_name = set.metadata.name.clone().unwrap_or_default();
    let name = format!("{set_name}-{ordinal}");
    let tmeta = template.metadata.clone().unwrap_or_default();
    let mut labels = tmeta.labels.unwrap_or_default();
    labels.insert(POD_NAME_LABEL.into(), name.clone());
    labels.insert(POD_INDEX_LABEL.into(), ordinal.to_string());
    labels.insert(REVISION_LABEL.into(), revision.to_string());
    let mut pod_spec = template.spec.clone().unwrap_or_default();
    pod_spec.hostname = Some(name.clone());
    if !spec.service_name.is_empty() {
        pod_spec.subdomain = Some(spec.service_name.clone());
    }
    // A claim per template, in place of a template volume of the same name.
    let claims = claim_names(set, spec, ordinal);
    let mut volumes: Vec<Volume> = claims
        .iter()
        .map(|(template_name, claim)| Volume {
            name: template_name.clone(),
            persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                claim_name: claim.clone(),
                read_only: Some(false),
            }),
            ..Default::default()
        })
        .collect();
    volumes.extend(
        pod_spec
            .volumes
            .take()
            .unwrap_or_default()
            .into_iter()
            .filter(|v| !claims.iter().any(|(t, _)| *t == v.name)),
    );
    pod_spec.volumes = (!volumes.is_empty()).then_some(volumes);
    Pod {
        metadata: ObjectMeta {
            name: Some(name),
            namespace: set.metadata.namespace.clone(),
            labels: Some(labels),
            annotations: tmeta.annotations,
            finalizers: tmeta.finalizers,
            owner_references: Some(vec![owner_ref(set)]),
            ..Default::default()
        },
        spec: Some(pod_spec),
        status: None,
    }
}

/// Each volume claim template's name and the claim it makes for `ordinal`
/// (`getPersistentVolumeClaimName`: `TEMPLATE-SET-ORDINAL`).
fn claim_names(set: &OtherObject, spec: &SetSpec, ordinal: i32) -> Vec<(String, String)> {
    let set_name = set.metadata.name.as_deref().unwrap_or("");
    spec.claim_templates
        .iter()
        .filter_map(|t| t.get("metadata")?.get("name")?.as_str())
        .map(|t| (t.to_string(), format!("{t}-{set_name}-{ordinal}")))
        .collect()
}

impl Cluster {
    /// `processReplica` over the sequence, in ordinal order. Whether the sync
    /// stops here (a monotonic set waiting, or a write failing).
    fn process_replicas(
        &mut self,
        m: &Made,
        replicas: &mut BTreeMap<i32, Slot>,
        monotonic: bool,
        writes: &mut Vec<Result<(), ApiError>>,
    ) -> bool {
        let now = self.now;
        let mrs = m.spec.min_ready_seconds;
        for (&ordinal, slot) in replicas.iter_mut() {
            let pod = match slot {
                Slot::ToMake(_) => {
                    let pod = versioned_pod(m, ordinal);
                    match self.create_stateful_pod(m, pod) {
                        Ok(made) => *slot = Slot::Made(Box::new(made)),
                        Err(e) => {
                            writes.push(Err(e));
                            return true;
                        }
                    }
                    if monotonic {
                        return true;
                    }
                    continue;
                }
                Slot::Made(pod) => pod,
            };
            // A finished pod is removed; the next sync makes it again.
            if matches!(phase(pod), "Failed" | "Succeeded") {
                if !is_terminating(pod) {
                    writes.push(self.delete_stateful_pod(m, pod));
                }
                return true;
            }
            if phase(pod) == "Pending" {
                // `createMissingPersistentVolumeClaims`.
                if let Err(e) = self.create_claims(m, pod) {
                    writes.push(Err(e));
                    return true;
                }
            }
            if monotonic
                && (is_terminating(pod)
                    || !running_and_ready(pod)
                    || !running_and_available(pod, mrs, now))
            {
                return true;
            }
        }
        false
    }

    /// `processCondemned`, highest ordinal first: a monotonic set removes one pod,
    /// after the ones before it are healthy.
    fn process_condemned(
        &mut self,
        m: &Made,
        condemned: &[Pod],
        first_unavailable: Option<&str>,
        monotonic: bool,
        writes: &mut Vec<Result<(), ApiError>>,
    ) -> bool {
        let now = self.now;
        let mrs = m.spec.min_ready_seconds;
        for pod in condemned {
            if is_terminating(pod) {
                if monotonic {
                    return true;
                }
                continue;
            }
            let first = pod.metadata.name.as_deref() == first_unavailable;
            if monotonic && !first && !running_and_available(pod, mrs, now) {
                return true;
            }
            if m.spec.delete_claims_on_scale_down {
                if let Err(e) = self.claims_owned_by_pod(m, pod) {
                    writes.push(Err(e));
                    return true;
                }
            }
            writes.push(self.delete_stateful_pod(m, pod));
            if monotonic {
                return true;
            }
        }
        false
    }

    /// `updateStatefulSetAfterInvariantEstablished`: with every replica in place,
    /// replace pods not at the update revision from the highest ordinal down to the
    /// partition, while fewer than `maxUnavailable` are unavailable.
    fn roll_update(
        &mut self,
        m: &Made,
        replicas: &BTreeMap<i32, Slot>,
        writes: &mut Vec<Result<(), ApiError>>,
    ) {
        let now = self.now;
        let mrs = m.spec.min_ready_seconds;
        let pods: Vec<&Pod> = replicas
            .values()
            .filter_map(|s| match s {
                Slot::Made(p) => Some(&**p),
                Slot::ToMake(_) => None,
            })
            .collect();
        let unavailable = replicas.len() - pods.len()
            + pods.iter().filter(|p| is_unavailable(p, mrs, now)).count();
        let max_unavailable = max_unavailable(m.spec.max_unavailable.as_ref(), m.spec.replicas);
        if unavailable >= max_unavailable {
            return;
        }
        let mut budget = max_unavailable - unavailable;
        let update_min = m.spec.start.saturating_add(m.spec.partition);
        for (&ordinal, slot) in replicas.iter().rev() {
            if budget == 0 || ordinal < update_min {
                break;
            }
            let Slot::Made(pod) = slot else { continue };
            if pod_revision(pod) != m.update.name && !is_terminating(pod) {
                writes.push(self.delete_stateful_pod(m, pod));
                budget -= 1;
            }
        }
    }

    /// `CreateStatefulPod`: the claims, then the pod.
    fn create_stateful_pod(&mut self, m: &Made, pod: Pod) -> Result<Pod, ApiError> {
        self.create_claims(m, &pod)?;
        let name = pod.metadata.name.clone().unwrap_or_default();
        let set_name = m.set.metadata.name.as_deref().unwrap_or("");
        match self.create_as(ACTOR, Object::Pod(Box::new(pod))) {
            Ok(created) => {
                self.record_event(
                    m.about,
                    ID.name(),
                    None,
                    "Normal",
                    "SuccessfulCreate",
                    format!("create Pod {name} in StatefulSet {set_name} successful"),
                );
                match &*created {
                    Object::Pod(p) => Ok((**p).clone()),
                    _ => unreachable!("a pod is created as a pod"),
                }
            }
            Err(e) => {
                self.record_event(
                    m.about,
                    ID.name(),
                    None,
                    "Warning",
                    "FailedCreate",
                    format!(
                        "create Pod {name} in StatefulSet {set_name} failed error: {}",
                        e.message
                    ),
                );
                Err(e)
            }
        }
    }

    fn delete_stateful_pod(&mut self, m: &Made, pod: &Pod) -> Result<(), ApiError> {
        let name = pod.metadata.name.clone().unwrap_or_default();
        let set_name = m.set.metadata.name.as_deref().unwrap_or("");
        let key = ObjectKey::new(Kind::Pod, m.about.namespace(), &name);
        let deleted = self.delete_as(ACTOR, &key, None);
        let (event_type, reason, message) = match &deleted {
            Ok(_) => (
                "Normal",
                "SuccessfulDelete",
                format!("delete Pod {name} in StatefulSet {set_name} successful"),
            ),
            Err(e) => (
                "Warning",
                "FailedDelete",
                format!(
                    "delete Pod {name} in StatefulSet {set_name} failed error: {}",
                    e.message
                ),
            ),
        };
        self.record_event(m.about, ID.name(), None, event_type, reason, message);
        deleted.map(drop)
    }

    /// `createPersistentVolumeClaims`: each of the pod's claims that does not exist
    /// yet, labelled with the set's selector; one being deleted is an error.
    fn create_claims(&mut self, m: &Made, pod: &Pod) -> Result<(), ApiError> {
        let pod_name = pod.metadata.name.as_deref().unwrap_or("");
        let set_name = m.set.metadata.name.as_deref().unwrap_or("");
        let Some(ordinal) = ordinal_of(set_name, pod_name) else {
            return Ok(());
        };
        let namespace = m.about.namespace().to_string();
        for (template, claim_name) in claim_names(m.set, m.spec, ordinal) {
            let key = ObjectKey::new(Kind::PersistentVolumeClaim, &namespace, &claim_name);
            if let Some(existing) = self.store.get(&key) {
                if existing.meta().deletion_timestamp.is_some() {
                    return Err(ApiError::new(
                        crate::error::StatusReason::InternalError,
                        format!("pvc {claim_name} is being deleted"),
                    ));
                }
                continue;
            }
            let Some(source) = m.spec.claim_templates.iter().find(|t| {
                t.get("metadata")
                    .and_then(|x| x.get("name"))
                    .and_then(Value::as_str)
                    == Some(&template)
            }) else {
                continue;
            };
            let claim = claim_from_template(m, source, &claim_name, &namespace);
            let created = self.create_as(ACTOR, claim);
            let (event_type, reason, message) = match &created {
                Ok(_) => (
                    "Normal",
                    "SuccessfulCreate",
                    format!("create Claim {claim_name} Pod {pod_name} in StatefulSet {set_name} success"),
                ),
                Err(e) => (
                    "Warning",
                    "FailedCreate",
                    format!(
                        "create Claim {claim_name} for Pod {pod_name} in StatefulSet {set_name} failed error: {}",
                        e.message
                    ),
                ),
            };
            self.record_event(m.about, ID.name(), None, event_type, reason, message);
            created?;
        }
        Ok(())
    }

    /// `whenScaled: Delete`: a condemned pod's claims get the pod as an owner, so
    /// the garbage collector removes them after it.
    fn claims_owned_by_pod(&mut self, m: &Made, pod: &Pod) -> Result<(), ApiError> {
        let set_name = m.set.metadata.name.as_deref().unwrap_or("");
        let Some(ordinal) = ordinal_of(set_name, pod.metadata.name.as_deref().unwrap_or("")) else {
            return Ok(());
        };
        let namespace = m.about.namespace().to_string();
        let pod_ref = OwnerReference {
            api_version: "v1".into(),
            kind: "Pod".into(),
            name: pod.metadata.name.clone().unwrap_or_default(),
            uid: pod.metadata.uid.clone().unwrap_or_default(),
            controller: None,
            block_owner_deletion: None,
        };
        for (_, claim_name) in claim_names(m.set, m.spec, ordinal) {
            let key = ObjectKey::new(Kind::PersistentVolumeClaim, &namespace, &claim_name);
            let Some(mut claim) = self.store.get(&key).cloned() else {
                continue;
            };
            let refs = claim
                .meta_mut()
                .owner_references
                .get_or_insert_with(Vec::new);
            if refs.iter().any(|r| r.uid == pod_ref.uid) {
                continue;
            }
            refs.push(pod_ref.clone());
            self.update_as(ACTOR, claim)?;
        }
        Ok(())
    }
}

/// A claim from its template (`getPersistentVolumeClaims`): the template's labels
/// and the set's selector labels; owned by the set when `whenDeleted: Delete`.
fn claim_from_template(m: &Made, template: &Value, name: &str, namespace: &str) -> Object {
    let mut claim = template.as_object().cloned().unwrap_or_default();
    let mut metadata = claim
        .remove("metadata")
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default();
    metadata.insert("name".into(), json!(name));
    metadata.insert("namespace".into(), json!(namespace));
    let mut labels = metadata
        .get("labels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for (k, v) in m.spec.selector.match_labels.iter().flatten() {
        labels.insert(k.clone(), json!(v));
    }
    if !labels.is_empty() {
        metadata.insert("labels".into(), Value::Object(labels));
    }
    if m.spec.delete_claims_with_set {
        metadata.insert(
            "ownerReferences".into(),
            json!([crate::object::to_json_value(&OwnerReference {
                controller: None,
                ..owner_ref(m.set)
            })]),
        );
    }
    claim.remove("status");
    claim.insert("apiVersion".into(), json!("v1"));
    claim.insert("kind".into(), json!("PersistentVolumeClaim"));
    claim.insert("metadata".into(), Value::Object(metadata));
    Object::from_json(Kind::PersistentVolumeClaim, Value::Object(claim)).unwrap_or_else(|_| {
        Object::Other(Box::new(OtherObject {
            kind: Kind::PersistentVolumeClaim,
            api_version: "v1".into(),
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some(namespace.into()),
                ..Default::default()
            },
            fields: Map::new(),
        }))
    })
}

/// `getStatefulSetMaxUnavailable`: an int, or a percentage of the replicas rounded
/// down; at least 1.
fn max_unavailable(v: Option<&IntOrString>, replicas: i32) -> usize {
    let n = match v {
        None => 1,
        Some(IntOrString::Int(i)) => i64::from(*i),
        Some(IntOrString::String(s)) => s
            .strip_suffix('%')
            .and_then(|p| p.parse::<i64>().ok())
            .map_or(1, |p| p.saturating_mul(i64::from(replicas)) / 100),
    };
    usize::try_from(n.max(1)).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_come_from_the_set_name() {
        assert_eq!(ordinal_of("web", "web-0"), Some(0));
        assert_eq!(ordinal_of("web", "web-12"), Some(12));
        assert_eq!(ordinal_of("web", "web-x"), None);
        assert_eq!(ordinal_of("web", "web-"), None);
        assert_eq!(ordinal_of("web", "db-0"), None);
        assert_eq!(ordinal_of("my-web", "my-web-3"), Some(3));
    }

    #[test]
    fn max_unavailable_is_at_least_one() {
        assert_eq!(max_unavailable(None, 5), 1);
        assert_eq!(max_unavailable(Some(&IntOrString::Int(0)), 5), 1);
        assert_eq!(max_unavailable(Some(&IntOrString::Int(3)), 5), 3);
        assert_eq!(
            max_unavailable(Some(&IntOrString::String("50%".into())), 5),
            2
        );
        assert_eq!(
            max_unavailable(Some(&IntOrString::String("10%".into())), 5),
            1
        );
    }

    #[test]
    fn the_update_strategy_is_defaulted_as_upstream() {
        let strategy = |given: Value| {
            let mut o = OtherObject {
                kind: Kind::StatefulSet,
                api_version: "apps/v1".into(),
                metadata: ObjectMeta::default(),
                fields: Map::from_iter([("spec".to_string(), json!({ "updateStrategy": given }))]),
            };
            default_stateful_set(&mut o);
            o.fields["spec"]["updateStrategy"].clone()
        };
        let full = json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 1}});
        assert_eq!(strategy(json!({})), full);
        assert_eq!(strategy(json!({"type": ""})), full);
        // A RollingUpdate named without rollingUpdate keeps none.
        assert_eq!(
            strategy(json!({"type": "RollingUpdate"})),
            json!({"type": "RollingUpdate"})
        );
        assert_eq!(
            strategy(json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 2}})),
            json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 2, "maxUnavailable": 1}})
        );
        assert_eq!(
            strategy(json!({"type": "OnDelete"})),
            json!({"type": "OnDelete"})
        );
    }
}
