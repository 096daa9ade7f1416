//! The garbage collector. Mirrors pkg/controller/garbagecollector:
//!
//! - `attemptToDeleteItem`: a dependent whose owners are all gone is deleted
//!   (background propagation); references to owners that are gone are removed;
//! - `processDeletingDependentsItem`: an owner deleted in the foreground (finalizer
//!   `foregroundDeletion`) keeps its deletion timestamp until every dependent that
//!   blocks it (`blockOwnerDeletion: true`) is gone, then loses the finalizer and goes;
//! - `attemptToOrphanWorker`: an owner deleted with the `orphan` finalizer first
//!   removes the owner references its dependents hold to it, then goes.
//!
//! The dependency graph is the store's dependents-by-owner-uid index; the graph
//! builder's reactions to watch events are [`Cluster::garbage_collector_observe`].

use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::{Actor, Propagation};
use crate::cluster::Cluster;
use crate::error::StatusReason;
use crate::object::{Kind, Object, ObjectKey};
use crate::store::{EventType, WatchEvent};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

pub(crate) const ID: ControllerId = ControllerId::new("garbage-collector");
const ACTOR: Actor = Actor::Controller("generic-garbage-collector");

/// The garbage collector: owners deleted with a GC finalizer, the dependents of
/// removed objects, and owners waiting for their dependents.
pub(crate) struct GarbageCollector;

impl Controller for GarbageCollector {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        c.garbage_collector_observe(ev, keys);
    }

    /// The graph rebuilt: dependents whose owners are gone are collected, and owners
    /// being deleted with a GC finalizer are processed.
    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        // Events are not in the graph (upstream `DefaultIgnoredResources`).
        for kind in c.store.kinds().into_iter().filter(|k| *k != Kind::Event) {
            for o in c.store.list(kind, None) {
                let meta = o.meta();
                let dangling = meta
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|r| owner_is_simulated(r) && c.store.by_uid(&r.uid).is_none());
                let finalizing = meta.deletion_timestamp.is_some()
                    && (has_finalizer(meta, FOREGROUND_FINALIZER)
                        || has_finalizer(meta, ORPHAN_FINALIZER));
                if dangling || finalizing {
                    keys.push(o.key());
                }
            }
        }
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        let mut writes = Vec::new();
        c.collect_garbage(key, &mut writes);
        Action::after_writes(writes)
    }
}

/// `metav1.FinalizerDeleteDependents`.
pub const FOREGROUND_FINALIZER: &str = "foregroundDeletion";
/// `metav1.FinalizerOrphanDependents`.
pub const ORPHAN_FINALIZER: &str = "orphan";

pub(crate) fn has_finalizer(meta: &ObjectMeta, finalizer: &str) -> bool {
    meta.finalizers.iter().flatten().any(|f| f == finalizer)
}

/// Being deleted, waiting for its blocking dependents (`isDeletingDependents`).
fn deleting_dependents(meta: &ObjectMeta) -> bool {
    meta.deletion_timestamp.is_some() && has_finalizer(meta, FOREGROUND_FINALIZER)
}

impl Cluster {
    /// What a write means for the garbage collector (upstream `GraphBuilder`): an
    /// owner deleted with a GC finalizer needs processing; the dependents of a removed
    /// object need a look; an owner waiting in the foreground learns that one of its
    /// dependents is gone.
    fn garbage_collector_observe(&self, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        let obj = &ev.object;
        let meta = obj.meta();
        if ev.event_type != EventType::Deleted
            && meta.deletion_timestamp.is_some()
            && (has_finalizer(meta, FOREGROUND_FINALIZER) || has_finalizer(meta, ORPHAN_FINALIZER))
        {
            keys.push(obj.key());
        }
        if ev.event_type != EventType::Deleted {
            return;
        }
        if let Some(uid) = meta.uid.as_deref() {
            keys.extend(self.store.dependents(uid).cloned());
        }
        let waiting = meta
            .owner_references
            .iter()
            .flatten()
            .filter_map(|r| self.store.by_uid(&r.uid))
            .filter(|owner| deleting_dependents(owner.meta()))
            .map(Object::key);
        keys.extend(waiting);
    }

    /// Processes one item of the garbage collector's queue, adding each write it
    /// makes to `writes` (a failed one brings the item back, as upstream's
    /// `attemptToDelete` queue does).
    fn collect_garbage(
        &mut self,
        key: &ObjectKey,
        writes: &mut Vec<Result<(), crate::error::ApiError>>,
    ) {
        let Some(obj) = self.store.get(key).cloned() else {
            return;
        };
        let meta = obj.meta();
        if meta.deletion_timestamp.is_some() {
            if has_finalizer(meta, ORPHAN_FINALIZER) {
                self.orphan_dependents(&obj, writes);
            } else if has_finalizer(meta, FOREGROUND_FINALIZER) {
                self.process_deleting_dependents(&obj, writes);
            }
            // Otherwise "being deleted is a one-way trip": wait for the removal.
            return;
        }
        self.attempt_to_delete(&obj, writes);
    }

    /// Upstream `attemptToDeleteItem`, for an object that is not being deleted. Its
    /// owners are solid (present), dangling (gone) or waiting for their dependents
    /// (being deleted in the foreground).
    fn attempt_to_delete(
        &mut self,
        obj: &Object,
        writes: &mut Vec<Result<(), crate::error::ApiError>>,
    ) {
        let refs = obj.meta().owner_references.clone().unwrap_or_default();
        if refs.is_empty() {
            return;
        }
        let (mut solid, mut dangling, mut waiting) = (Vec::new(), Vec::new(), Vec::new());
        for r in refs {
            if !owner_is_simulated(&r) {
                solid.push(r);
                continue;
            }
            match self.store.by_uid(&r.uid) {
                None => dangling.push(r),
                Some(owner) if deleting_dependents(owner.meta()) => waiting.push((r, owner.key())),
                Some(_) => solid.push(r),
            }
        }
        let key = obj.key();
        if !solid.is_empty() {
            if dangling.is_empty() && waiting.is_empty() {
                return;
            }
            // References to waiting owners go too, or those owners would wait forever.
            let mut updated = obj.clone();
            updated.meta_mut().owner_references = Some(solid);
            let written = self.update_as(ACTOR, updated).map(drop);
            if written.is_ok() {
                for (_, owner) in waiting {
                    self.enqueue(ID.component(), owner);
                }
            }
            writes.push(written);
            return;
        }
        let has_dependents = obj
            .meta()
            .uid
            .as_deref()
            .is_some_and(|uid| self.store.dependents(uid).next().is_some());
        let policy = if !waiting.is_empty() && has_dependents {
            // Its own dependents go first, so the waiting owner waits for them too.
            Propagation::Foreground
        } else if has_finalizer(obj.meta(), ORPHAN_FINALIZER) {
            Propagation::Orphan
        } else if has_finalizer(obj.meta(), FOREGROUND_FINALIZER) {
            Propagation::Foreground
        } else {
            Propagation::Background
        };
        writes.push(
            self.delete_with_options_as(ACTOR, &key, None, Some(policy))
                .map(drop),
        );
    }

    /// Upstream `processDeletingDependentsItem`: the owner goes once no dependent
    /// blocks it; until then, its blocking dependents are deleted.
    fn process_deleting_dependents(
        &mut self,
        owner: &Object,
        writes: &mut Vec<Result<(), crate::error::ApiError>>,
    ) {
        let uid = owner.meta().uid.clone().unwrap_or_default();
        let blocking: Vec<ObjectKey> = self
            .store
            .dependent_objects(&uid)
            .filter(|d| {
                d.meta()
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|r| r.uid == uid && r.block_owner_deletion == Some(true))
            })
            .map(Object::key)
            .collect();
        if blocking.is_empty() {
            writes.push(self.remove_finalizer(owner, FOREGROUND_FINALIZER));
            return;
        }
        for dep in blocking {
            let Some(d) = self.store.get(&dep).cloned() else {
                continue;
            };
            // A dependent waiting for its own dependents is already on its way; a
            // second look at it could loop through a cycle of owners.
            if deleting_dependents(d.meta()) || d.meta().deletion_timestamp.is_some() {
                continue;
            }
            self.attempt_to_delete(&d, writes);
        }
    }

    /// Upstream `orphanDependents` and `removeFinalizer`: every dependent loses its
    /// reference to the owner, then the owner loses the `orphan` finalizer (and goes).
    /// If a dependent could not be updated the finalizer stays: the owner is looked
    /// at again, so that dependent is never left pointing at a gone owner (where
    /// the collector would delete it).
    fn orphan_dependents(
        &mut self,
        owner: &Object,
        writes: &mut Vec<Result<(), crate::error::ApiError>>,
    ) {
        let uid = owner.meta().uid.clone().unwrap_or_default();
        let dependents: Vec<ObjectKey> = self.store.dependents(&uid).cloned().collect();
        let mut updates = Vec::new();
        for dep in dependents {
            let Some(mut d) = self.store.get(&dep).cloned() else {
                continue;
            };
            let refs: Vec<OwnerReference> = d
                .meta()
                .owner_references
                .iter()
                .flatten()
                .filter(|r| r.uid != uid)
                .cloned()
                .collect();
            d.meta_mut().owner_references = (!refs.is_empty()).then_some(refs);
            updates.push(self.update_as(ACTOR, d).map(drop));
        }
        if let Some(failed) = updates.into_iter().find(|w| {
            w.as_ref()
                .is_err_and(|e| e.reason != StatusReason::NotFound)
        }) {
            writes.push(failed);
            return;
        }
        writes.push(self.remove_finalizer(owner, ORPHAN_FINALIZER));
    }

    /// Removes one finalizer; the apiserver removes an object being deleted once its
    /// last finalizer goes.
    fn remove_finalizer(
        &mut self,
        obj: &Object,
        finalizer: &str,
    ) -> Result<(), crate::error::ApiError> {
        let mut updated = obj.clone();
        let meta = updated.meta_mut();
        let rest: Vec<String> = meta
            .finalizers
            .iter()
            .flatten()
            .filter(|f| *f != finalizer)
            .cloned()
            .collect();
        meta.finalizers = (!rest.is_empty()).then_some(rest);
        self.update_as(ACTOR, updated).map(drop)
    }
}

/// Whether the garbage collector can judge an owner reference. Owners of kinds no
/// controller here runs yet (a StatefulSet, say) are taken as alive, never as
/// gone: upstream's collector retries an owner it cannot resolve rather than delete
/// its dependents.
pub(crate) fn owner_is_simulated(owner: &OwnerReference) -> bool {
    Kind::from_type_meta(&owner.api_version, &owner.kind).is_some_and(|k| k.info().simulated)
}
