//! The ledger vault (etcd): objects by key, one global revision, a resourceVersion per
//! object, optimistic concurrency, indexes for the lookups controllers make, and
//! bounded watch logs. Only the apiserver writes here.
//!
//! Events live in a partition of their own: their own watch log (upstream's apiserver
//! keeps a watch cache per resource, so a storm of Events never pushes a pod's
//! history out of reach), their own bound on how many are kept, and no place in the
//! owner index (the garbage collector and the quota controller ignore Events
//! upstream). Big clusters go further and keep Events in a separate etcd
//! (`--etcd-servers-overrides`); here they share the one revision counter.

use crate::apiserver::fields::{FieldSet, ManagedEntry, ManagedFields};
use crate::error::{ApiError, StatusReason};
use crate::object::{Kind, Object, ObjectKey};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

/// How many watch events each log (the Events' one, and everything else's) keeps
/// before compacting the oldest away. A watcher that asks for an older revision gets
/// 410 Gone and must relist.
pub const WATCH_LOG_CAPACITY: usize = 4096;

/// How many bytes of objects ([`object_size_bytes`]) the watch log keeps in all
/// before compacting the oldest events away, whatever their count: a simulator
/// limit (etcd keeps history until the apiserver compacts it every 5 minutes; the
/// apiserver's watch cache is bounded by count). In this process's memory an object
/// takes from about its JSON size (long strings: a ConfigMap's data) to about five
/// times it (a pod's containers, mostly empty optional fields), so the log holds
/// some 16 to 80 MB at most. A 1 MiB ConfigMap relabelled for ever keeps its latest
/// 16 versions, not 4,096; a cluster of ordinary objects reaches
/// [`WATCH_LOG_CAPACITY`] first.
pub const MAX_WATCH_LOG_BYTES: usize = 16 * 1024 * 1024;

/// The largest value etcd stores: its `--max-request-bytes`, 1.5 MiB by default
/// (`embed.DefaultMaxRequestBytes`). A bigger write is refused with `etcdserver:
/// request is too large` and nothing changes.
pub const MAX_ETCD_VALUE_BYTES: usize = 3 * 512 * 1024;

/// What etcd says of a write over [`MAX_ETCD_VALUE_BYTES`]
/// (`rpctypes.ErrRequestTooLarge`); the apiserver passes it on without a reason,
/// so kubectl prints `Error from server: etcdserver: request is too large`.
pub const ETCD_REQUEST_TOO_LARGE: &str = "etcdserver: request is too large";

/// The size of an object as the simulation counts it everywhere (etcd's value
/// limit, the watch log's bytes, etcd snapshots' bytes, the bytes sent to watchers):
/// the length of its compact JSON encoding, as the apiserver serves it, counted
/// without building the JSON value (written into a reused buffer).
/// Simplified: upstream stores built-in kinds in etcd as protobuf, which is smaller
/// than JSON (field names are numbers), so an object near the limit is refused here
/// a little earlier than upstream would refuse it. For a big object (long strings)
/// the two are within a few percent; its size in this process's memory is of the
/// same order (the strings themselves plus some tens of bytes per field).
pub fn object_size_bytes(obj: &Object) -> usize {
    obj.json_len()
}

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
/// The object is shared with the store and every watcher that holds the event: a
/// write allocates its object once, and nobody changes it afterwards.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WatchEvent {
    pub revision: u64,
    pub event_type: EventType,
    pub object: Arc<Object>,
    /// For `Modified`, the object as it stood before this write (what an informer's
    /// update handler gets as its old object). `None` for `Added` and `Deleted`, and
    /// in the watch logs, which keep only what a watch delivers.
    #[serde(skip)]
    pub old: Option<Arc<Object>>,
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

/// One partition's recent writes, oldest first, bounded by [`WATCH_LOG_CAPACITY`]
/// events and [`MAX_WATCH_LOG_BYTES`] bytes (the newest write always stays).
#[derive(Default)]
struct WatchLog {
    events: VecDeque<WatchEvent>,
    /// The size of each event's object ([`object_size_bytes`]), in order.
    sizes: VecDeque<usize>,
    /// Their sum.
    bytes: usize,
    /// The revision of the newest write compacted away: every write of this
    /// partition after it is still here.
    complete_after: u64,
}

impl WatchLog {
    fn push(&mut self, ev: WatchEvent, size: usize) {
        self.events.push_back(ev);
        self.sizes.push_back(size);
        self.bytes = self.bytes.saturating_add(size);
        while self.events.len() > 1
            && (self.events.len() > WATCH_LOG_CAPACITY || self.bytes > MAX_WATCH_LOG_BYTES)
        {
            if let Some(gone) = self.events.pop_front() {
                self.complete_after = gone.revision;
            }
            let gone = self.sizes.pop_front().unwrap_or(0);
            self.bytes = self.bytes.saturating_sub(gone);
        }
    }

    /// The writes after `revision`, or 410 Gone when this log (or a compaction of
    /// the whole store, `compacted`) no longer reaches back that far.
    fn since(
        &self,
        revision: u64,
        compacted: u64,
    ) -> Result<std::collections::vec_deque::Iter<'_, WatchEvent>, ApiError> {
        let oldest = compacted.max(self.complete_after);
        if revision < oldest {
            return Err(ApiError::new(
                StatusReason::Gone,
                format!("too old resource version: {revision} ({oldest})"),
            ));
        }
        let start = self.events.partition_point(|e| e.revision <= revision);
        Ok(self.events.range(start..))
    }

    /// The write at `revision`, and the same object's write before it while this log
    /// still holds it.
    fn logged(&self, revision: u64) -> Option<(Option<&WatchEvent>, &WatchEvent)> {
        let at = self.events.partition_point(|e| e.revision < revision);
        let ev = self.events.get(at).filter(|e| e.revision == revision)?;
        let key = ev.object.key();
        let before = if ev.event_type == EventType::Added {
            None
        } else {
            self.events
                .range(..at)
                .rev()
                .find(|e| e.object.key() == key)
        };
        Some((before, ev))
    }
}

/// Merges two revision-ordered runs of watch events into one.
struct Merged<'a, A: Iterator<Item = &'a WatchEvent>, B: Iterator<Item = &'a WatchEvent>> {
    a: std::iter::Peekable<A>,
    b: std::iter::Peekable<B>,
}

impl<'a, A: Iterator<Item = &'a WatchEvent>, B: Iterator<Item = &'a WatchEvent>> Iterator
    for Merged<'a, A, B>
{
    type Item = &'a WatchEvent;

    fn next(&mut self) -> Option<&'a WatchEvent> {
        match (self.a.peek(), self.b.peek()) {
            (Some(a), Some(b)) if b.revision < a.revision => self.b.next(),
            (Some(_), _) => self.a.next(),
            (None, _) => self.b.next(),
        }
    }
}

/// The objects and their history. Only the apiserver writes it: `create`, `update`
/// and `remove` are private to the `apiserver` module, so neither a component of
/// the simulation nor a client (kubectl, the web app, a test outside the crate) can
/// change the cluster except through a request (`cargo xtask invariants` checks the
/// first, this example the second).
///
/// ```compile_fail
/// # use warehouse_sim::{apiserver::store::Store, decode_manifests};
/// let mut store = Store::default();
/// let cm = decode_manifests("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
///     .unwrap()
///     .remove(0);
/// store.create(cm).unwrap(); // error: `create` is private
/// ```
/// Every object: per kind, by namespace, by name. A lookup walks only its own kind's
/// maps (a Lease among the Leases of its namespace, not among tens of thousands of
/// Events) and compares a namespace once; walking kinds in [`Kind`] order, then
/// namespaces and names in order, gives [`ObjectKey`] order.
#[derive(Default)]
struct Objects {
    builtin: Vec<Named>,
    /// The custom kinds' objects, in [`Kind`] order (after every built-in kind).
    custom: BTreeMap<Kind, Named>,
}

/// One kind's objects: by namespace, then by name.
type Named = BTreeMap<String, BTreeMap<String, Arc<Object>>>;

impl Objects {
    fn of_kind(&self, kind: Kind) -> Option<&Named> {
        match kind.builtin_index() {
            Some(i) => self.builtin.get(i),
            None => self.custom.get(&kind),
        }
    }

    fn of_kind_mut(&mut self, kind: Kind) -> &mut Named {
        match kind.builtin_index() {
            Some(i) => {
                if self.builtin.is_empty() {
                    self.builtin.resize_with(Kind::ALL.len(), BTreeMap::new);
                }
                &mut self.builtin[i]
            }
            None => self.custom.entry(kind).or_default(),
        }
    }

    fn get(&self, key: &ObjectKey) -> Option<&Arc<Object>> {
        self.of_kind(key.kind)?.get(&key.namespace)?.get(&key.name)
    }

    fn get_mut(&mut self, key: &ObjectKey) -> Option<&mut Arc<Object>> {
        self.of_kind_mut(key.kind)
            .get_mut(&key.namespace)?
            .get_mut(&key.name)
    }

    fn contains_key(&self, key: &ObjectKey) -> bool {
        self.get(key).is_some()
    }

    fn insert(&mut self, key: ObjectKey, obj: Arc<Object>) -> Option<Arc<Object>> {
        self.of_kind_mut(key.kind)
            .entry(key.namespace)
            .or_default()
            .insert(key.name, obj)
    }

    fn remove(&mut self, key: &ObjectKey) -> Option<Arc<Object>> {
        let namespaces = self.of_kind_mut(key.kind);
        let named = namespaces.get_mut(&key.namespace)?;
        let gone = named.remove(&key.name);
        if named.is_empty() {
            namespaces.remove(&key.namespace);
        }
        if key.kind.is_custom() && namespaces.is_empty() {
            self.custom.remove(&key.kind);
        }
        gone
    }

    /// Objects of one kind, in one namespace or all, in key order.
    fn list<'a>(
        &'a self,
        kind: Kind,
        namespace: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Arc<Object>> + 'a {
        use std::ops::Bound;
        let bounds = match namespace {
            Some(ns) => (Bound::Included(ns), Bound::Included(ns)),
            None => (Bound::Unbounded, Bound::Unbounded),
        };
        self.of_kind(kind)
            .into_iter()
            .flat_map(move |m| m.range::<str, _>(bounds))
            .flat_map(|(_, named)| named.values())
    }

    /// Every object, in key order.
    fn values(&self) -> impl Iterator<Item = &Arc<Object>> {
        self.builtin
            .iter()
            .chain(self.custom.values())
            .flat_map(|m| m.values())
            .flat_map(|named| named.values())
    }
}

#[derive(Default)]
pub struct Store {
    revision: u64,
    objects: Objects,
    /// Dependents by the uid of each of their owners (the garbage collector's graph),
    /// holding the same shared objects as `objects`: a controller reads what it owns
    /// without looking each key up.
    by_owner: BTreeMap<String, BTreeMap<ObjectKey, Arc<Object>>>,
    /// Pods by `spec.nodeName` (what a kubelet's field-selected watch sees).
    pods_by_node: BTreeMap<String, BTreeSet<ObjectKey>>,
    /// Keys by uid.
    by_uid: BTreeMap<String, ObjectKey>,
    /// Terminated pods (phase Succeeded or Failed), evicted ones first, then by
    /// creation time, oldest first (the pod garbage collector's
    /// `--terminated-pod-gc-threshold` order, `byEvictionAndCreationTimestamp`).
    terminated_pods: BTreeSet<(bool, i64, ObjectKey)>,
    /// The watch log of every kind but Events.
    log: WatchLog,
    /// The Events' watch log.
    event_log: WatchLog,
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
    pub(in crate::apiserver) limits: ObjectLimits,
    /// Each object's `metadata.managedFields`, beside it (objects of the kinds
    /// [`crate::apiserver::fields::tracked`] names), so that the objects the
    /// cluster's components read stay small.
    managed: BTreeMap<ObjectKey, ManagedFields>,
    /// One copy of each field set the managedFields hold: the objects one
    /// controller writes alike (every node's status from its kubelet, the
    /// ReplicaSets of one Deployment) share their sets.
    field_sets: BTreeSet<Arc<FieldSet>>,
    /// How many sets `field_sets` held after it was last swept of unused ones.
    field_sets_swept: usize,
}

impl Store {
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The managedFields of the object at `key` (empty when none are kept).
    pub fn managed_fields(&self, key: &ObjectKey) -> &[ManagedEntry] {
        self.managed.get(key).map_or(&[], |m| m.as_slice())
    }

    /// Records the managedFields of the stored object at `key`, each set shared
    /// with any equal set already held.
    pub(in crate::apiserver) fn set_managed_fields(
        &mut self,
        key: ObjectKey,
        mut m: ManagedFields,
    ) {
        if m.is_empty() || !self.objects.contains_key(&key) {
            self.managed.remove(&key);
            return;
        }
        for e in &mut m {
            match self.field_sets.get(&*e.fields) {
                Some(shared) => e.fields = Arc::clone(shared),
                None => {
                    self.field_sets.insert(Arc::clone(&e.fields));
                }
            }
        }
        self.managed.insert(key, m);
        // Sets nobody holds any more go once the table has doubled.
        if self.field_sets.len() > 2 * self.field_sets_swept.max(64) {
            self.field_sets.retain(|s| Arc::strong_count(s) > 1);
            self.field_sets_swept = self.field_sets.len();
        }
    }

    pub fn get(&self, key: &ObjectKey) -> Option<&Object> {
        self.objects.get(key).map(|o| &**o)
    }

    /// The stored object itself, shared (no copy).
    pub fn get_shared(&self, key: &ObjectKey) -> Option<&Arc<Object>> {
        self.objects.get(key)
    }

    /// Every object, in key order.
    pub fn objects(&self) -> impl Iterator<Item = &Object> {
        self.objects.values().map(|o| &**o)
    }

    /// A store holding `objects` (each keeping its resourceVersion) at `revision`,
    /// with an empty watch log and every earlier revision compacted: what etcd serves
    /// after `etcdutl snapshot restore --bump-revision --mark-compacted`.
    pub(in crate::apiserver) fn restored(
        objects: Vec<Object>,
        revision: u64,
    ) -> Result<Store, String> {
        let objects = objects.into_iter().map(Arc::new).collect();
        Store::from_parts(revision, revision, objects, Logs::default())
    }

    /// The store [`crate::Cluster::restore`] would read back from a snapshot of this
    /// one: the same objects (shared, not copied) and watch logs, the indexes and
    /// counts derived again by the same code.
    pub(crate) fn copy_as_restored(&self) -> Store {
        // A watch log's events never carry the old object (`WatchLog::push` callers).
        let events = |log: &WatchLog| {
            log.events
                .iter()
                .map(|e| WatchEvent {
                    old: None,
                    ..e.clone()
                })
                .collect()
        };
        let logs = Logs {
            log: events(&self.log),
            event_log: events(&self.event_log),
            log_complete_after: Some(self.log.complete_after),
            event_log_complete_after: Some(self.event_log.complete_after),
        };
        let objects = self.objects.values().cloned().collect();
        let mut store = Store::from_parts(self.revision, self.compacted, objects, logs)
            .expect("a store's own state is consistent");
        store.limits = self.limits;
        store.managed = self.managed.clone();
        store.field_sets = self.field_sets.clone();
        store.field_sets_swept = self.field_sets_swept;
        store
    }

    /// Rebuilds a store from its objects and log; the indexes are derived from the
    /// objects. Fails on duplicate keys or revisions from the future.
    fn from_parts(
        revision: u64,
        compacted: u64,
        objects: Vec<Arc<Object>>,
        logs: Logs,
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
        // A snapshot from before the Events had their own log holds them in the one
        // log: they move to theirs.
        let (events, others): (VecDeque<WatchEvent>, VecDeque<WatchEvent>) = logs
            .log
            .into_iter()
            .partition(|e| e.object.kind() == Kind::Event);
        let event_log: VecDeque<WatchEvent> = logs.event_log.into_iter().chain(events).collect();
        for (log, complete_after, events) in [
            (&mut store.log, logs.log_complete_after, others),
            (
                &mut store.event_log,
                logs.event_log_complete_after,
                event_log,
            ),
        ] {
            let mut previous = 0;
            for ev in &events {
                if ev.revision <= previous || ev.revision > revision {
                    return Err(format!(
                        "the watch log's revisions are not increasing up to {revision}"
                    ));
                }
                previous = ev.revision;
            }
            if events.len() > WATCH_LOG_CAPACITY {
                return Err(format!(
                    "the watch log holds {} events, more than {WATCH_LOG_CAPACITY}",
                    events.len()
                ));
            }
            // Without a record of it, the log is complete from just before its oldest
            // write on.
            log.complete_after = complete_after.unwrap_or_else(|| {
                events
                    .front()
                    .map_or(compacted, |e| e.revision.saturating_sub(1))
            });
            for ev in events {
                let size = object_size_bytes(&ev.object);
                log.push(ev, size);
            }
        }
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

    /// Every kind with objects to list: the built-in kinds, then each custom kind
    /// that has objects, in [`Kind`] order.
    pub fn kinds(&self) -> Vec<Kind> {
        Kind::ALL
            .into_iter()
            .chain(self.objects.custom.keys().copied())
            .collect()
    }

    /// Objects of one kind, optionally in one namespace, in key order.
    pub fn list<'a>(
        &'a self,
        kind: Kind,
        namespace: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Object> + 'a {
        self.list_shared(kind, namespace).map(|o| &**o)
    }

    /// [`Store::list`]'s objects themselves, shared (no copy).
    pub fn list_shared<'a>(
        &'a self,
        kind: Kind,
        namespace: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Arc<Object>> + 'a {
        self.objects.list(kind, namespace)
    }

    pub fn by_uid(&self, uid: &str) -> Option<&Object> {
        self.by_uid
            .get(uid)
            .and_then(|k| self.objects.get(k))
            .map(|o| &**o)
    }

    /// Keys of objects that name `owner_uid` among their ownerReferences.
    pub fn dependents(&self, owner_uid: &str) -> impl Iterator<Item = &ObjectKey> {
        self.by_owner
            .get(owner_uid)
            .into_iter()
            .flat_map(|m| m.keys())
    }

    /// The objects that name `owner_uid` among their ownerReferences, in key order.
    pub fn dependent_objects(&self, owner_uid: &str) -> impl Iterator<Item = &Object> {
        self.by_owner
            .get(owner_uid)
            .into_iter()
            .flat_map(|m| m.values().map(|o| &**o))
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

    /// The node names pods are bound to (existing nodes or not), in name order.
    pub fn nodes_with_pods(&self) -> impl Iterator<Item = &str> {
        self.pods_by_node
            .iter()
            .filter(|(_, pods)| !pods.is_empty())
            .map(|(n, _)| n.as_str())
    }

    /// Watch events of every kind after `revision`, in revision order, or Gone if
    /// either log no longer reaches back that far.
    pub fn events_since(
        &self,
        revision: u64,
    ) -> Result<impl Iterator<Item = &WatchEvent>, ApiError> {
        self.events_of(None, revision)
    }

    /// Watch events after `revision` of one kind's partition (`Some(Kind::Event)`:
    /// the Events' log; another kind: everything else's), or of both in revision
    /// order (`None`); or Gone if a log read no longer reaches back that far.
    pub fn events_of(
        &self,
        kind: Option<Kind>,
        revision: u64,
    ) -> Result<impl Iterator<Item = &WatchEvent>, ApiError> {
        let main = match kind {
            Some(Kind::Event) => None,
            _ => Some(self.log.since(revision, self.compacted)?),
        };
        let events = match kind {
            Some(k) if k != Kind::Event => None,
            _ => Some(self.event_log.since(revision, self.compacted)?),
        };
        Ok(Merged {
            a: main.into_iter().flatten().peekable(),
            b: events.into_iter().flatten().peekable(),
        })
    }

    /// The write at `revision` while a watch log still holds it, and the same
    /// object's write before it when the log reaches back that far (`None` for a
    /// creation, or for an object whose earlier write has left the log).
    pub fn logged(&self, revision: u64) -> Option<(Option<&WatchEvent>, &WatchEvent)> {
        self.log
            .logged(revision)
            .or_else(|| self.event_log.logged(revision))
    }

    /// Creates `obj`, which must not exist. Sets resourceVersion; the apiserver has
    /// already set uid, timestamps and generation.
    pub(in crate::apiserver) fn create(&mut self, mut obj: Object) -> Result<WatchEvent, ApiError> {
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
        obj.meta_mut().resource_version = Some((self.revision + 1).to_string());
        let size = Store::check_value_size(&obj)?;
        self.revision += 1;
        let obj = Arc::new(obj);
        self.index(&obj, true);
        self.objects.insert(key.clone(), Arc::clone(&obj));
        *self.counts.entry(key.kind).or_default() += 1;
        self.total += 1;
        Ok(self.log_event(EventType::Added, obj, None, size))
    }

    /// Replaces an existing object. If `obj` carries a resourceVersion it must match
    /// the stored one (optimistic concurrency), else 409 Conflict.
    pub(in crate::apiserver) fn update(&mut self, mut obj: Object) -> Result<WatchEvent, ApiError> {
        let key = obj.key();
        let Some(slot) = self.objects.get_mut(&key) else {
            return Err(ApiError::not_found(&key.kind.qualified_plural(), &key.name));
        };
        if let Some(rv) = obj.meta().resource_version.as_deref() {
            if !rv.is_empty() && Some(rv) != slot.meta().resource_version.as_deref() {
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
        obj.meta_mut().resource_version = Some((self.revision + 1).to_string());
        let size = Store::check_value_size(&obj)?;
        self.revision += 1;
        // The old object leaves the map as the new one enters it (no copy of it).
        let obj = Arc::new(obj);
        let old = std::mem::replace(slot, Arc::clone(&obj));
        self.reindex(&key, &old, &obj);
        Ok(self.log_event(EventType::Modified, obj, Some(old), size))
    }

    /// Removes an object for good.
    pub(in crate::apiserver) fn remove(&mut self, key: &ObjectKey) -> Result<WatchEvent, ApiError> {
        let Some(mut old) = self.objects.remove(key) else {
            return Err(ApiError::not_found(&key.kind.qualified_plural(), &key.name));
        };
        self.managed.remove(key);
        self.index(&old, false);
        if let Some(c) = self.counts.get_mut(&key.kind) {
            *c -= 1;
        }
        self.total -= 1;
        self.revision += 1;
        // The last state, at the deletion's revision: a copy only if a watcher still
        // holds the object as it was.
        Arc::make_mut(&mut old).meta_mut().resource_version = Some(self.revision.to_string());
        let size = object_size_bytes(&old);
        Ok(self.log_event(EventType::Deleted, old, None, size))
    }

    /// etcd's value limit: the object's size ([`object_size_bytes`]), or the
    /// refusal of a write over [`MAX_ETCD_VALUE_BYTES`].
    fn check_value_size(obj: &Object) -> Result<usize, ApiError> {
        let size = object_size_bytes(obj);
        if size > MAX_ETCD_VALUE_BYTES {
            return Err(ApiError::new(StatusReason::Unknown, ETCD_REQUEST_TOO_LARGE));
        }
        Ok(size)
    }

    /// How many bytes of objects the watch log of every kind but Events holds
    /// ([`object_size_bytes`] of each event's object): at most
    /// [`MAX_WATCH_LOG_BYTES`], or one event's when a single event is bigger.
    pub fn watch_log_bytes(&self) -> usize {
        self.log.bytes
    }

    /// How many events the watch log of every kind but Events holds: at most
    /// [`WATCH_LOG_CAPACITY`].
    pub fn watch_log_len(&self) -> usize {
        self.log.events.len()
    }

    /// How many events the Events' own watch log holds: at most
    /// [`WATCH_LOG_CAPACITY`].
    pub fn event_log_len(&self) -> usize {
        self.event_log.events.len()
    }

    fn log_event(
        &mut self,
        event_type: EventType,
        object: Arc<Object>,
        old: Option<Arc<Object>>,
        size: usize,
    ) -> WatchEvent {
        let log = if object.kind() == Kind::Event {
            self.event_writes += 1;
            &mut self.event_log
        } else {
            &mut self.log
        };
        let logged = WatchEvent {
            revision: self.revision,
            event_type,
            object,
            old: None,
        };
        log.push(logged.clone(), size);
        WatchEvent { old, ..logged }
    }

    /// An update's index changes. Most updates change no indexed field (a status, a
    /// label): then only the owner index takes the new object; otherwise the old
    /// entries go and the new ones come.
    fn reindex(&mut self, key: &ObjectKey, old: &Arc<Object>, new: &Arc<Object>) {
        let (om, nm) = (old.meta(), new.meta());
        let unchanged = om.uid == nm.uid
            && om.owner_references == nm.owner_references
            && pod_index_facts(old) == pod_index_facts(new);
        if !unchanged {
            self.index(old, false);
            self.index(new, true);
            return;
        }
        for owner in nm.owner_references.iter().flatten() {
            if let Some(slot) = self
                .by_owner
                .get_mut(&owner.uid)
                .and_then(|m| m.get_mut(key))
            {
                *slot = Arc::clone(new);
            }
        }
    }

    fn index(&mut self, obj: &Arc<Object>, add: bool) {
        let key = obj.key();
        let meta = obj.meta();
        if let Some(uid) = meta.uid.as_deref() {
            if add {
                self.by_uid.insert(uid.to_string(), key.clone());
            } else {
                self.by_uid.remove(uid);
            }
        }
        // The garbage collector ignores Events (upstream `DefaultIgnoredResources`):
        // an Event naming an owner is not its dependent.
        let owners = match obj.kind() {
            Kind::Event => None,
            _ => meta.owner_references.as_ref(),
        };
        for owner in owners.into_iter().flatten() {
            if add {
                self.by_owner
                    .entry(owner.uid.clone())
                    .or_default()
                    .insert(key.clone(), Arc::clone(obj));
            } else if let Some(set) = self.by_owner.get_mut(&owner.uid) {
                set.remove(&key);
                if set.is_empty() {
                    self.by_owner.remove(&owner.uid);
                }
            }
        }
        if let Some((node, terminated)) = pod_index_facts(obj) {
            if let Some((evicted, created)) = terminated {
                let entry = (!evicted, created, key.clone());
                if add {
                    self.terminated_pods.insert(entry);
                } else {
                    self.terminated_pods.remove(&entry);
                }
            }
            if let Some(node) = node {
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

/// What the pod indexes read of a pod: its node, and its place among terminated pods
/// (evicted, created), if it is terminated.
type PodIndexFacts<'a> = (Option<&'a str>, Option<(bool, i64)>);

/// A pod's [`PodIndexFacts`]; None for other kinds.
fn pod_index_facts(obj: &Object) -> Option<PodIndexFacts<'_>> {
    let Object::Pod(p) = obj else {
        return None;
    };
    let node = p.spec.as_ref().and_then(|s| s.node_name.as_deref());
    let phase = p.status.as_ref().and_then(|s| s.phase.as_deref());
    let terminated = matches!(phase, Some("Succeeded") | Some("Failed")).then(|| {
        let created = crate::object::created_millis(&p.metadata);
        let evicted = phase == Some("Failed")
            && p.status.as_ref().and_then(|s| s.reason.as_deref()) == Some("Evicted");
        (evicted, created)
    });
    Some((node, terminated))
}

/// What a snapshot keeps of the store: the revision, the compaction point, the
/// objects and the watch logs. The indexes and counts are derived from the objects
/// when it is read back.
#[derive(Serialize)]
struct StoreRef<'a> {
    revision: u64,
    compacted: u64,
    objects: Vec<&'a Object>,
    log: &'a VecDeque<WatchEvent>,
    event_log: &'a VecDeque<WatchEvent>,
    log_complete_after: u64,
    event_log_complete_after: u64,
    limits: ObjectLimits,
    managed: Vec<(&'a ObjectKey, Vec<serde_json::Value>)>,
}

/// The watch logs as a snapshot holds them. One written before Events had their own
/// log has them in `log` and no completeness records.
#[derive(Default, Deserialize)]
struct Logs {
    log: VecDeque<WatchEvent>,
    #[serde(default)]
    event_log: VecDeque<WatchEvent>,
    #[serde(default)]
    log_complete_after: Option<u64>,
    #[serde(default)]
    event_log_complete_after: Option<u64>,
}

#[derive(Deserialize)]
struct StoreOwned {
    revision: u64,
    compacted: u64,
    objects: Vec<Object>,
    #[serde(flatten)]
    logs: Logs,
    #[serde(default)]
    limits: ObjectLimits,
    #[serde(default)]
    managed: Vec<(ObjectKey, Vec<serde_json::Value>)>,
}

impl Serialize for Store {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        StoreRef {
            revision: self.revision,
            compacted: self.compacted,
            objects: self.objects.values().map(|o| &**o).collect(),
            log: &self.log.events,
            event_log: &self.event_log.events,
            log_complete_after: self.log.complete_after,
            event_log_complete_after: self.event_log.complete_after,
            limits: self.limits,
            managed: self
                .managed
                .iter()
                .map(|(k, m)| (k, m.iter().map(ManagedEntry::to_json).collect()))
                .collect(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Store {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = StoreOwned::deserialize(deserializer)?;
        let objects = s.objects.into_iter().map(Arc::new).collect();
        let mut store = Store::from_parts(s.revision, s.compacted, objects, s.logs)
            .map_err(serde::de::Error::custom)?;
        store.limits = s.limits;
        for (key, entries) in s.managed {
            let entries = entries
                .iter()
                .map(ManagedEntry::from_json)
                .collect::<Result<ManagedFields, String>>()
                .map_err(serde::de::Error::custom)?;
            store.set_managed_fields(key, entries);
        }
        Ok(store)
    }
}

impl crate::cluster::Cluster {
    /// The `metadata.managedFields` of the object at `key`, in the order the API
    /// serves them (none for the kinds that keep none).
    pub fn managed_fields(&self, key: &ObjectKey) -> &[ManagedEntry] {
        self.store.managed_fields(key)
    }

    /// How many bytes of objects etcd's watch log holds ([`Store::watch_log_bytes`]).
    pub fn watch_log_bytes(&self) -> usize {
        self.store.watch_log_bytes()
    }

    /// How many events etcd's watch log holds.
    pub fn watch_log_len(&self) -> usize {
        self.store.watch_log_len()
    }

    /// The bytes every saved etcd snapshot holds together (at most
    /// [`crate::etcd::MAX_ETCD_SNAPSHOT_BYTES`]).
    pub fn etcd_snapshot_bytes(&self) -> usize {
        self.etcd.snapshot_bytes()
    }
}

#[cfg(test)]
#[path = "store_properties.rs"]
mod properties;
