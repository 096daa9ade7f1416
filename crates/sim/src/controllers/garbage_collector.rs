//! The garbage collector: deletes objects whose owners are all gone (background
//! propagation). Mirrors `attemptToDeleteItem` in pkg/controller/garbagecollector.

use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::object::ObjectKey;

const ACTOR: Actor = Actor::Controller("generic-garbage-collector");

impl Cluster {
    /// Looks at one dependent whose owner was deleted: if none of its owners exists
    /// any more, it is deleted; if only some are gone, the dangling references are
    /// removed.
    pub(crate) fn collect_garbage(&mut self, key: &ObjectKey) {
        let Some(obj) = self.store.get(key).cloned() else {
            return;
        };
        let refs = obj.meta().owner_references.clone().unwrap_or_default();
        if refs.is_empty() {
            return;
        }
        let alive: Vec<_> = refs
            .iter()
            .filter(|r| self.store.by_uid(&r.uid).is_some())
            .cloned()
            .collect();
        if alive.is_empty() {
            if obj.meta().deletion_timestamp.is_none() {
                let _ = self.delete_as(ACTOR, key, None);
            }
        } else if alive.len() != refs.len() {
            let mut updated = obj;
            updated.meta_mut().owner_references = Some(alive);
            let _ = self.update_as(ACTOR, updated);
        }
    }
}
