//! The namespace controller: empties a Terminating namespace, then removes it.
//! Mirrors `namespacedResourcesDeleter` in pkg/controller/namespace/deletion.

use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey};
use crate::store::{EventType, WatchEvent};

pub(crate) const ID: ControllerId = ControllerId::new("namespace-controller");
const ACTOR: Actor = Actor::Controller(ID.name());

/// The namespace controller: Terminating namespaces, looked at again as their last
/// objects go.
pub(crate) struct NamespaceController;

impl Controller for NamespaceController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        let obj: &Object = &ev.object;
        let deleted = ev.event_type == EventType::Deleted;
        if let Object::Namespace(ns) = obj {
            if ns.metadata.deletion_timestamp.is_some() && !deleted {
                keys.push(obj.key());
            }
        } else if deleted && obj.kind().namespaced() {
            // A terminating namespace waits for its last objects to go.
            let ns_key = ObjectKey::new(Kind::Namespace, "", obj.namespace());
            if c.store
                .get(&ns_key)
                .is_some_and(|n| n.meta().deletion_timestamp.is_some())
            {
                keys.push(ns_key);
            }
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        let terminating = c
            .store
            .list(Kind::Namespace, None)
            .filter(|n| n.meta().deletion_timestamp.is_some());
        keys.extend(terminating.map(Object::key));
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        Action::after_writes(c.sync_namespace(key))
    }
}

impl Cluster {
    /// Deletes what a terminating namespace still holds, and finalizes it once it
    /// is empty. Returns the deletions' results: one that failed brings the
    /// namespace back after the back-off, as upstream's namespace deleter does.
    fn sync_namespace(&mut self, key: &ObjectKey) -> Vec<Result<(), crate::error::ApiError>> {
        let mut writes = Vec::new();
        let terminating = self
            .store
            .get(key)
            .is_some_and(|n| n.meta().deletion_timestamp.is_some());
        if !terminating {
            return writes;
        }
        for kind in self.store.kinds().into_iter().filter(|k| k.namespaced()) {
            let keys: Vec<ObjectKey> = self
                .store
                .list(kind, Some(&key.name))
                .map(|o| o.key())
                .collect();
            for k in keys {
                let deleting = self
                    .store
                    .get(&k)
                    .is_some_and(|o| o.meta().deletion_timestamp.is_some());
                if !deleting {
                    writes.push(self.delete_as(ACTOR, &k, None).map(drop));
                }
            }
        }
        // Pods still terminating keep the namespace until their kubelets confirm.
        let empty = self
            .store
            .kinds()
            .into_iter()
            .filter(|k| k.namespaced())
            .all(|kind| self.store.list(kind, Some(&key.name)).next().is_none());
        if empty {
            self.finalize_namespace(ACTOR, key);
        }
        writes
    }
}
