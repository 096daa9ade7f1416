//! The namespace controller: empties a Terminating namespace, then removes it.
//! Mirrors `namespacedResourcesDeleter` in pkg/controller/namespace/deletion.

use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::object::{Kind, ObjectKey};

const ACTOR: Actor = Actor::Controller("namespace-controller");

impl Cluster {
    pub(crate) fn sync_namespace(&mut self, key: &ObjectKey) {
        let terminating = self
            .store
            .get(key)
            .is_some_and(|n| n.meta().deletion_timestamp.is_some());
        if !terminating {
            return;
        }
        for kind in Kind::ALL.into_iter().filter(|k| k.namespaced()) {
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
                    let _ = self.delete_as(ACTOR, &k, None);
                }
            }
        }
        // Pods still terminating keep the namespace until their kubelets confirm.
        let empty = Kind::ALL
            .into_iter()
            .filter(|k| k.namespaced())
            .all(|kind| self.store.list(kind, Some(&key.name)).next().is_none());
        if empty {
            self.finalize_namespace(ACTOR, key);
        }
    }
}
