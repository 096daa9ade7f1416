//! The local-path provisioner (rancher.io/local-path), the dynamic provisioner
//! kind ships behind its default StorageClass `standard`. Mirrors
//! local-path-provisioner's `Provision`/`Delete` through sig-storage-lib-external-
//! provisioner's controller: a claim annotated for this provisioner
//! (`volume.kubernetes.io/storage-provisioner: rancher.io/local-path`) with the
//! node its first pod was scheduled to (`volume.kubernetes.io/selected-node`) gets
//! a PersistentVolume `pvc-<claim uid>`: a directory on that node
//! (`/var/local-path-provisioner/pvc-<uid>_<namespace>_<name>`), the claim's size
//! and access modes, the class's reclaim policy, a node affinity to the node, and a
//! reference to the claim; the binder then binds the two. A Released volume it made
//! whose policy is `Delete` is deleted.
//!
//! Simplified: it runs with the controller manager rather than as a pod in the
//! `local-path-storage` namespace, and makes each volume at once (the real one
//! starts a helper pod to create the directory).

use super::manager::{Action, Controller, ControllerId};
use super::volume::{Claim, Volume, PROVISIONED_BY, SELECTED_NODE, STORAGE_PROVISIONER};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey, OtherObject};
use crate::store::{EventType, WatchEvent};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::{json, Map};

pub(crate) const ID: ControllerId = ControllerId::new("local-path-provisioner");
const ACTOR: Actor = Actor::Controller(ID.name());
/// The provisioner's name, as StorageClasses name it.
pub const PROVISIONER: &str = "rancher.io/local-path";
/// Where its volumes live on the node.
pub const BASE_PATH: &str = "/var/local-path-provisioner";
/// The component its events name: the provisioner's name, its pod and identity.
const EVENT_SOURCE: &str =
    "rancher.io/local-path_local-path-provisioner-7dc846544d-v5b7d_3a4c5f1e-8b2d-4f6a-9c1e-2d7b8a6f4e3c";

/// The local-path provisioner.
pub(crate) struct LocalPathProvisioner;

impl Controller for LocalPathProvisioner {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, _c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        let Object::Other(o) = &*ev.object else {
            return;
        };
        let ours = |o: &OtherObject, key: &str| {
            o.metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(key))
                .is_some_and(|p| p == PROVISIONER)
        };
        let wanted = match o.kind {
            Kind::PersistentVolumeClaim => ours(o, STORAGE_PROVISIONER),
            Kind::PersistentVolume => ours(o, PROVISIONED_BY),
            _ => false,
        };
        if wanted && ev.event_type != EventType::Deleted {
            keys.push(ev.object.key());
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(
            c.store
                .list(Kind::PersistentVolumeClaim, None)
                .map(Object::key),
        );
        keys.extend(c.store.list(Kind::PersistentVolume, None).map(Object::key));
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        match key.kind {
            Kind::PersistentVolumeClaim => c.provision_local_path(key),
            Kind::PersistentVolume => c.delete_local_path(key),
            _ => Action::Done,
        }
    }
}

impl Cluster {
    /// `Provision`: a volume on the selected node for an unbound claim of ours.
    fn provision_local_path(&mut self, key: &ObjectKey) -> Action {
        let Some(Object::Other(o)) = self.store.get(key).cloned() else {
            return Action::Done;
        };
        let annotations = o.metadata.annotations.clone().unwrap_or_default();
        if annotations.get(STORAGE_PROVISIONER).map(String::as_str) != Some(PROVISIONER)
            || o.metadata.deletion_timestamp.is_some()
        {
            return Action::Done;
        }
        let claim = Claim::of(&o);
        if claim.volume_name.as_deref().is_some_and(|v| !v.is_empty()) {
            return Action::Done;
        }
        let volume_name = format!("pvc-{}", claim.uid);
        let about = Object::Other(o.clone());
        if self
            .store
            .get(&ObjectKey::new(Kind::PersistentVolume, "", &volume_name))
            .is_some()
        {
            return Action::Done;
        }
        let class_name = claim.class.clone().unwrap_or_default();
        let Some(node) = annotations.get(SELECTED_NODE).cloned() else {
            self.record_event(
                &about,
                EVENT_SOURCE,
                None,
                "Warning",
                "ProvisioningFailed",
                format!("failed to provision volume with StorageClass \"{class_name}\": configuration error, no node was specified"),
            );
            return Action::Done;
        };
        let reclaim = super::volume::class(self, &class_name)
            .map_or("Delete".to_string(), |k| k.reclaim_policy);
        self.record_event(
            &about,
            EVENT_SOURCE,
            None,
            "Normal",
            "Provisioning",
            format!(
                "External provisioner is provisioning volume for claim \"{}/{}\"",
                claim.namespace, claim.name
            ),
        );
        let request = o
            .fields
            .get("spec")
            .and_then(|s| s.get("resources"))
            .and_then(|r| r.get("requests"))
            .and_then(|r| r.get("storage"))
            .cloned()
            .unwrap_or(json!("0"));
        let mut fields = Map::new();
        fields.insert(
            "spec".into(),
            json!({
                "capacity": {"storage": request},
                "accessModes": claim.access_modes,
                "persistentVolumeReclaimPolicy": reclaim,
                "storageClassName": class_name,
                "volumeMode": "Filesystem",
                "claimRef": {
                    "apiVersion": "v1",
                    "kind": "PersistentVolumeClaim",
                    "namespace": claim.namespace,
                    "name": claim.name,
                    "uid": claim.uid,
                },
                "hostPath": {
                    "path": format!("{BASE_PATH}/{volume_name}_{}_{}", claim.namespace, claim.name),
                    "type": "DirectoryOrCreate",
                },
                "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [{
                    "key": "kubernetes.io/hostname",
                    "operator": "In",
                    "values": [node],
                }]}]}},
            }),
        );
        let volume = OtherObject {
            kind: Kind::PersistentVolume,
            api_version: "v1".into(),
            metadata: ObjectMeta {
                name: Some(volume_name.clone()),
                annotations: Some(
                    [
                        (PROVISIONED_BY.to_string(), PROVISIONER.to_string()),
                        ("local.path.provisioner/selected-node".to_string(), node),
                    ]
                    .into(),
                ),
                ..Default::default()
            },
            fields,
        };
        match self.create_as(ACTOR, Object::Other(Box::new(volume))) {
            Ok(_) => {
                self.record_event(
                    &about,
                    EVENT_SOURCE,
                    None,
                    "Normal",
                    "ProvisioningSucceeded",
                    format!("Successfully provisioned volume {volume_name}"),
                );
                Action::Done
            }
            Err(e) => {
                self.record_event(
                    &about,
                    EVENT_SOURCE,
                    None,
                    "Warning",
                    "ProvisioningFailed",
                    format!(
                        "failed to provision volume with StorageClass \"{class_name}\": {}",
                        e.message
                    ),
                );
                Action::Requeue
            }
        }
    }

    /// `Delete`: a Released volume of ours whose policy is Delete goes.
    fn delete_local_path(&mut self, key: &ObjectKey) -> Action {
        let Some(Object::Other(o)) = self.store.get(key) else {
            return Action::Done;
        };
        let volume = Volume::of(o);
        if volume.phase != "Released"
            || volume.reclaim_policy != "Delete"
            || o.metadata.deletion_timestamp.is_some()
        {
            return Action::Done;
        }
        // The helper pod's `rm -rf` of the directory, then the volume.
        if let (Some(node), Some(dir)) = (volume.node.clone(), crate::kubelet::disk::volume_dir(o))
        {
            self.remove_host_dir(&node, &dir);
        }
        Action::after_writes([self.delete_as(ACTOR, key, None).map(drop)])
    }
}
