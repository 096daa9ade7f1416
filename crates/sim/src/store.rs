//! The ledger vault (etcd): objects by key, one global revision, a resourceVersion per
//! object, optimistic concurrency, indexes for the lookups controllers make, and a
//! bounded watch log. Only the apiserver writes here.

use crate::error::{ApiError, StatusReason};
use crate::object::{Kind, Object, ObjectKey};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// How many watch events the log keeps before compacting the oldest away. A watcher
/// that asks for an older revision gets 410 Gone and must relist.
pub const WATCH_LOG_CAPACITY: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One change, as a watch delivers it. For `Deleted`, `object` is the last state.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WatchEvent {
    pub revision: u64,
    pub event_type: EventType,
    pub object: Object,
}

/// How many objects the store takes in all: pods, and objects of every kind. Past
/// either, the apiserver refuses a create with 403 Forbidden
/// ([`crate::apiserver::MAX_PODS`], [`crate::apiserver::MAX_OBJECTS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectLimits {
    pub pods: usize,
    pub objects: usize,
}

impl Default for ObjectLimits {
    fn default() -> Self {
        ObjectLimits {
            pods: crate::apiserver::MAX_PODS,
            objects: crate::apiserver::MAX_OBJECTS,
        }
    }
}

#[derive(Default)]
pub struct Store {
    revision: u64,
    objects: BTreeMap<ObjectKey, Object>,
    /// Dependents by the uid of each of their owners (the garbage collector's graph).
    by_owner: BTreeMap<String, BTreeSet<ObjectKey>>,
    /// Pods by `spec.nodeName` (what a kubelet's field-selected watch sees).
    pods_by_node: BTreeMap<String, BTreeSet<ObjectKey>>,
    /// Keys by uid.
    by_uid: BTreeMap<String, ObjectKey>,
    /// Terminated pods (phase Succeeded or Failed), evicted ones first, then by
    /// creation time, oldest first (the pod garbage collector's
    /// `--terminated-pod-gc-threshold` order, `byEvictionAndCreationTimestamp`).
    terminated_pods: BTreeSet<(bool, i64, ObjectKey)>,
    log: VecDeque<WatchEvent>,
    /// Revisions up to this one are compacted: a watch from before it gets 410 Gone
    /// even when the log is empty (set by a restore with `--mark-compacted`).
    compacted: u64,
    /// Per kind object counts, for limits and stats.
    counts: BTreeMap<Kind, usize>,
    /// Objects of every kind.
    total: usize,
    /// Writes of Events (created, updated, removed).
    event_writes: u64,
    /// The most objects this store takes (checked by the apiserver before a create).
    pub(crate) limits: ObjectLimits,
}

impl Store {
    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn get(&self, key: &ObjectKey) -> Option<&Object> {
        self.objects.get(key)
    }

    /// Every object, in key order.
    pub fn objects(&self) -> impl Iterator<Item = &Object> {
        self.objects.values()
    }

    /// A store holding `objects` (each keeping its resourceVersion) at `revision`,
    /// with an empty watch log and every earlier revision compacted: what etcd serves
    /// after `etcdutl snapshot restore --bump-revision --mark-compacted`.
    pub(crate) fn restored(objects: Vec<Object>, revision: u64) -> Result<Store, String> {
        Store::from_parts(revision, revision, objects, VecDeque::new())
    }

    /// Rebuilds a store from its objects and log; the indexes are derived from the
    /// objects. Fails on duplicate keys or revisions from the future.
    fn from_parts(
        revision: u64,
        compacted: u64,
        objects: Vec<Object>,
        log: VecDeque<WatchEvent>,
    ) -> Result<Store, String> {
        let mut store = Store {
            revision,
            compacted,
            ..Store::default()
        };
        if compacted > revision {
            return Err(format!(
                "compacted revision {compacted} is after the store's revision {revision}"
            ));
        }
        for obj in objects {
            let key = obj.key();
            let rv = obj.meta().resource_version.as_deref().unwrap_or("");
            if !rv.parse::<u64>().is_ok_and(|rv| rv <= revision) {
                return Err(format!(
                    "{key} has resourceVersion {rv:?}, not a revision up to {revision}"
                ));
            }
            if store.objects.contains_key(&key) {
                return Err(format!("{key} is stored twice"));
            }
            store.index(&obj, true);
            *store.counts.entry(key.kind).or_default() += 1;
            store.total += 1;
            store.objects.insert(key, obj);
        }
        let mut previous = 0;
        for ev in &log {
            if ev.revision <= previous || ev.revision > revision {
                return Err(format!(
                    "the watch log's revisions are not increasing up to {revision}"
                ));
            }
            previous = ev.revision;
        }
        if log.len() > WATCH_LOG_CAPACITY {
            return Err(format!(
                "the watch log holds {} events, more than {WATCH_LOG_CAPACITY}",
                log.len()
            ));
        }
        store.log = log;
        Ok(store)
    }

    pub fn count(&self, kind: Kind) -> usize {
        self.counts.get(&kind).copied().unwrap_or(0)
    }

    /// Objects of every kind.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Writes of Events since the store began (part of [`Store::revision`]).
    pub fn event_writes(&self) -> u64 {
        self.event_writes
    }

    /// Objects of one kind, optionally in one namespace, in key order.
    pub fn list<'a>(
        &'a self,
        kind: Kind,
        namespace: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Object> + 'a {
        let start = ObjectKey {
            kind,
            namespace: namespace.unwrap_or("").to_string(),
            name: String::new(),
        };
        self.objects
            .range(start..)
            .take_while(move |(k, _)| {
                k.kind == kind && namespace.is_none_or(|ns| k.namespace == ns)
            })
            .map(|(_, o)| o)
    }

    pub fn by_uid(&self, uid: &str) -> Option<&Object> {
        self.by_uid.get(uid).and_then(|k| self.objects.get(k))
    }

    /// Keys of objects that name `owner_uid` among their ownerReferences.
    pub fn dependents(&self, owner_uid: &str) -> impl Iterator<Item = &ObjectKey> {
        self.by_owner.get(owner_uid).into_iter().flatten()
    }

    /// Terminated pods (phase Succeeded or Failed), evicted ones first, then oldest
    /// first.
    pub fn terminated_pods(&self) -> impl Iterator<Item = &ObjectKey> {
        self.terminated_pods.iter().map(|(_, _, k)| k)
    }

    /// How many pods are terminated (phase Succeeded or Failed).
    pub fn terminated_pod_count(&self) -> usize {
        self.terminated_pods.len()
    }

    /// Keys of the pods bound to `node`.
    pub fn pods_on_node(&self, node: &str) -> impl Iterator<Item = &ObjectKey> {
        self.pods_by_node.get(node).into_iter().flatten()
    }

    /// Watch events after `revision`, or Gone if the log no longer reaches back that
    /// far.
    pub fn events_since(
        &self,
        revision: u64,
    ) -> Result<impl Iterator<Item = &WatchEvent>, ApiError> {
        if revision < self.compacted {
            return Err(ApiError::new(
                StatusReason::Gone,
                format!(
                    "too old resource version: {} ({})",
                    revision, self.compacted
                ),
            ));
        }
        if let Some(first) = self.log.front() {
            if revision + 1 < first.revision {
                return Err(ApiError::new(
                    StatusReason::Gone,
                    format!(
                        "too old resource version: {} ({})",
                        revision,
                        first.revision - 1
                    ),
                ));
            }
        }
        let start = self.log.partition_point(|e| e.revision <= revision);
        Ok(self.log.range(start..))
    }

    /// The write at `revision` while the watch log still holds it, and the same
    /// object's write before it when the log reaches back that far (`None` for a
    /// creation, or for an object whose earlier write has left the log).
    pub fn logged(&self, revision: u64) -> Option<(Option<&WatchEvent>, &WatchEvent)> {
        let at = self.log.partition_point(|e| e.revision < revision);
        let ev = self.log.get(at).filter(|e| e.revision == revision)?;
        let key = ev.object.key();
        let before = if ev.event_type == EventType::Added {
            None
        } else {
            self.log.range(..at).rev().find(|e| e.object.key() == key)
        };
        Some((before, ev))
    }

    /// Creates `obj`, which must not exist. Sets resourceVersion; the apiserver has
    /// already set uid, timestamps and generation.
    pub fn create(&mut self, mut obj: Object) -> Result<WatchEvent, ApiError> {
        let key = obj.key();
        if self.objects.contains_key(&key) {
            return Err(ApiError::new(
                StatusReason::AlreadyExists,
                format!(
                    "{} \"{}\" already exists",
                    key.kind.qualified_plural(),
                    key.name
                ),
            ));
        }
        self.revision += 1;
        obj.meta_mut().resource_version = Some(self.revision.to_string());
        self.index(&obj, true);
        self.objects.insert(key.clone(), obj.clone());
        *self.counts.entry(key.kind).or_default() += 1;
        self.total += 1;
        Ok(self.log_event(EventType::Added, obj))
    }

    /// Replaces an existing object. If `obj` carries a resourceVersion it must match
    /// the stored one (optimistic concurrency), else 409 Conflict.
    pub fn update(&mut self, mut obj: Object) -> Result<WatchEvent, ApiError> {
        let key = obj.key();
        let Some(old) = self.objects.get(&key) else {
            return Err(ApiError::not_found(&key.kind.qualified_plural(), &key.name));
        };
        if let Some(rv) = obj.meta().resource_version.as_deref() {
            if !rv.is_empty() && Some(rv) != old.meta().resource_version.as_deref() {
                return Err(ApiError::new(
                    StatusReason::Conflict,
                    format!(
                        "Operation cannot be fulfilled on {} \"{}\": the object has been modified; please apply your changes to the latest version and try again",
                        key.kind.qualified_plural(),
                        key.name
                    ),
                ));
            }
        }
        let old = old.clone();
        self.index(&old, false);
        self.revision += 1;
        obj.meta_mut().resource_version = Some(self.revision.to_string());
        self.index(&obj, true);
        self.objects.insert(key, obj.clone());
        Ok(self.log_event(EventType::Modified, obj))
    }

    /// Removes an object for good.
    pub fn remove(&mut self, key: &ObjectKey) -> Result<WatchEvent, ApiError> {
        let Some(mut old) = self.objects.remove(key) else {
            return Err(ApiError::not_found(&key.kind.qualified_plural(), &key.name));
        };
        self.index(&old, false);
        if let Some(c) = self.counts.get_mut(&key.kind) {
            *c -= 1;
        }
        self.total -= 1;
        self.revision += 1;
        old.meta_mut().resource_version = Some(self.revision.to_string());
        Ok(self.log_event(EventType::Deleted, old))
    }

    fn log_event(&mut self, event_type: EventType, object: Object) -> WatchEvent {
        if object.kind() == Kind::Event {
            self.event_writes += 1;
        }
        let ev = WatchEvent {
            revision: self.revision,
            event_type,
            object,
        };
        if self.log.len() == WATCH_LOG_CAPACITY {
            self.log.pop_front();
        }
        self.log.push_back(ev.clone());
        ev
    }

    fn index(&mut self, obj: &Object, add: bool) {
        let key = obj.key();
        let meta = obj.meta();
        if let Some(uid) = meta.uid.as_deref() {
            if add {
                self.by_uid.insert(uid.to_string(), key.clone());
            } else {
                self.by_uid.remove(uid);
            }
        }
        for owner in meta.owner_references.iter().flatten() {
            if add {
                self.by_owner
                    .entry(owner.uid.clone())
                    .or_default()
                    .insert(key.clone());
            } else if let Some(set) = self.by_owner.get_mut(&owner.uid) {
                set.remove(&key);
                if set.is_empty() {
                    self.by_owner.remove(&owner.uid);
                }
            }
        }
        if let Object::Pod(p) = obj {
            let phase = p.status.as_ref().and_then(|s| s.phase.as_deref());
            if matches!(phase, Some("Succeeded") | Some("Failed")) {
                let created = meta
                    .creation_timestamp
                    .as_ref()
                    .map(|t| t.0.as_millisecond())
                    .unwrap_or(0);
                let evicted = phase == Some("Failed")
                    && p.status.as_ref().and_then(|s| s.reason.as_deref()) == Some("Evicted");
                let entry = (!evicted, created, key.clone());
                if add {
                    self.terminated_pods.insert(entry);
                } else {
                    self.terminated_pods.remove(&entry);
                }
            }
            if let Some(node) = p.spec.as_ref().and_then(|s| s.node_name.as_deref()) {
                if add {
                    self.pods_by_node
                        .entry(node.to_string())
                        .or_default()
                        .insert(key.clone());
                } else if let Some(set) = self.pods_by_node.get_mut(node) {
                    set.remove(&key);
                    if set.is_empty() {
                        self.pods_by_node.remove(node);
                    }
                }
            }
        }
    }
}

/// What a snapshot keeps of the store: the revision, the compaction point, the
/// objects and the watch log. The indexes and counts are derived from the objects when
/// it is read back.
#[derive(Serialize)]
struct StoreRef<'a> {
    revision: u64,
    compacted: u64,
    objects: Vec<&'a Object>,
    log: &'a VecDeque<WatchEvent>,
    limits: ObjectLimits,
}

#[derive(Deserialize)]
struct StoreOwned {
    revision: u64,
    compacted: u64,
    objects: Vec<Object>,
    log: VecDeque<WatchEvent>,
    #[serde(default)]
    limits: ObjectLimits,
}

impl Serialize for Store {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        StoreRef {
            revision: self.revision,
            compacted: self.compacted,
            objects: self.objects.values().collect(),
            log: &self.log,
            limits: self.limits,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Store {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = StoreOwned::deserialize(deserializer)?;
        let mut store = Store::from_parts(s.revision, s.compacted, s.objects, s.log)
            .map_err(serde::de::Error::custom)?;
        store.limits = s.limits;
        Ok(store)
    }
}
