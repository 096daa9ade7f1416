//! Storage object in-use protection: a claim a pod uses, and a volume bound to a
//! claim, are not removed while in use. Mirrors pkg/controller/volume/pvcprotection
//! (`processPVC`, `isBeingUsed`: a pod of the claim's namespace that names it and is
//! not finished) and pkg/controller/volume/pvprotection (`processPV`, `isBeingUsed`:
//! the volume is Bound). The apiserver's StorageObjectInUseProtection admission adds
//! the finalizers `kubernetes.io/pvc-protection` and `kubernetes.io/pv-protection`
//! to every new claim and volume; a deleted one waits, Terminating, until its
//! controller finds it unused and removes the finalizer.

use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey};
use crate::store::{EventType, WatchEvent};

pub(crate) const PVC_ID: ControllerId = ControllerId::new("pvc-protection-controller");
pub(crate) const PV_ID: ControllerId = ControllerId::new("pv-protection-controller");
/// The finalizer that keeps a claim while a pod uses it.
pub const PVC_FINALIZER: &str = "kubernetes.io/pvc-protection";
/// The finalizer that keeps a volume while it is bound.
pub const PV_FINALIZER: &str = "kubernetes.io/pv-protection";

/// The PVC protection controller.
pub(crate) struct PvcProtection;

/// The PV protection controller.
pub(crate) struct PvProtection;

fn being_deleted_with(o: &Object, finalizer: &str) -> bool {
    let meta = o.meta();
    meta.deletion_timestamp.is_some() && meta.finalizers.iter().flatten().any(|f| f == finalizer)
}

impl Controller for PvcProtection {
    fn id(&self) -> ControllerId {
        PVC_ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        match &*ev.object {
            Object::Other(o)
                if o.kind == Kind::PersistentVolumeClaim
                    && ev.event_type != EventType::Deleted
                    && being_deleted_with(&ev.object, PVC_FINALIZER) =>
            {
                keys.push(ev.object.key());
            }
            // A pod that goes or finishes may free the claims it names.
            Object::Pod(pod) => {
                let done = ev.event_type == EventType::Deleted
                    || crate::kubelet::containers::pod_is_terminal(pod);
                if !done {
                    return;
                }
                let namespace = ev.object.namespace().to_string();
                for v in pod.spec.iter().flat_map(|s| s.volumes.iter().flatten()) {
                    let Some(claim) = &v.persistent_volume_claim else {
                        continue;
                    };
                    let key =
                        ObjectKey::new(Kind::PersistentVolumeClaim, &namespace, &claim.claim_name);
                    if c.store
                        .get(&key)
                        .is_some_and(|o| being_deleted_with(o, PVC_FINALIZER))
                    {
                        keys.push(key);
                    }
                }
            }
            _ => {}
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(
            c.store
                .list(Kind::PersistentVolumeClaim, None)
                .filter(|o| being_deleted_with(o, PVC_FINALIZER))
                .map(Object::key),
        );
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        let Some(claim) = c.store.get(key).cloned() else {
            return Action::Done;
        };
        if !being_deleted_with(&claim, PVC_FINALIZER) {
            return Action::Done;
        }
        // `isBeingUsed`: the pods of the namespace, through the store's namespace
        // index (upstream reads its pod informer's index by claim).
        let in_use = c.store.list(Kind::Pod, Some(&key.namespace)).any(|p| {
            let Object::Pod(pod) = p else { return false };
            !crate::kubelet::containers::pod_is_terminal(pod)
                && pod
                    .spec
                    .iter()
                    .flat_map(|s| s.volumes.iter().flatten())
                    .filter_map(|v| v.persistent_volume_claim.as_ref())
                    .any(|v| v.claim_name == key.name)
        });
        if in_use {
            return Action::Done;
        }
        Action::after_writes([remove_finalizer(c, claim, PVC_FINALIZER, PVC_ID)])
    }
}

impl Controller for PvProtection {
    fn id(&self) -> ControllerId {
        PV_ID
    }

    fn watch(&self, _c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        if ev.object.kind() == Kind::PersistentVolume
            && ev.event_type != EventType::Deleted
            && being_deleted_with(&ev.object, PV_FINALIZER)
        {
            keys.push(ev.object.key());
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(
            c.store
                .list(Kind::PersistentVolume, None)
                .filter(|o| being_deleted_with(o, PV_FINALIZER))
                .map(Object::key),
        );
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        let Some(volume) = c.store.get(key).cloned() else {
            return Action::Done;
        };
        if !being_deleted_with(&volume, PV_FINALIZER) {
            return Action::Done;
        }
        let bound = match &volume {
            Object::Other(o) => super::volume::Volume::of(o).phase == "Bound",
            _ => false,
        };
        if bound {
            return Action::Done;
        }
        Action::after_writes([remove_finalizer(c, volume, PV_FINALIZER, PV_ID)])
    }
}

fn remove_finalizer(
    c: &mut Cluster,
    mut obj: Object,
    finalizer: &str,
    id: ControllerId,
) -> Result<(), crate::error::ApiError> {
    if let Some(f) = obj.meta_mut().finalizers.as_mut() {
        f.retain(|x| x != finalizer);
    }
    c.update_as(Actor::Controller(id.name()), obj).map(drop)
}

/// The StorageObjectInUseProtection admission plugin: a new claim or volume gets
/// its protection finalizer.
pub(crate) fn admit_protection(obj: &mut Object) {
    let finalizer = match obj.kind() {
        Kind::PersistentVolumeClaim => PVC_FINALIZER,
        Kind::PersistentVolume => PV_FINALIZER,
        _ => return,
    };
    let finalizers = obj.meta_mut().finalizers.get_or_insert_with(Vec::new);
    if !finalizers.iter().any(|f| f == finalizer) {
        finalizers.push(finalizer.to_string());
    }
}
