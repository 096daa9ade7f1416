//! The PersistentVolume controller (the binder): claims meet volumes. Mirrors
//! pkg/controller/volume/persistentvolume/pv_controller.go (`syncUnboundClaim`,
//! `syncBoundClaim`, `syncVolume`, `bind`, `provisionClaim` for an external
//! provisioner, `reclaimVolume`) and index.go (`findBestMatchForClaim`: the smallest
//! available volume of the claim's class with its access modes and at least its
//! size).
//!
//! An unbound claim is bound to a matching available volume: the volume gets the
//! claim's reference and turns Bound, the claim gets the volume's name, capacity and
//! access modes and turns Bound. A claim whose class binds `WaitForFirstConsumer`
//! waits (event `WaitForFirstConsumer`) until the scheduler picks a node for its
//! first pod (the `volume.kubernetes.io/selected-node` annotation); then a volume on
//! that node is matched, or the class's provisioner is asked for one (the
//! `volume.kubernetes.io/storage-provisioner` annotation, event
//! `ExternalProvisioning`). A claim without a class and without a matching volume
//! stays Pending (`FailedBinding`). When a bound claim is deleted its volume is
//! Released; `Delete` lets the provisioner remove a volume it made, `Retain` keeps
//! it Released for the administrator.
//!
//! The kinds are read from and written to their stored JSON.

use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::error::ApiError;
use crate::object::{Kind, Object, ObjectKey, OtherObject};
use crate::store::{EventType, WatchEvent};
use serde_json::{json, Map, Value};

pub(crate) const ID: ControllerId = ControllerId::new("persistentvolume-binder-controller");
const ACTOR: Actor = Actor::Controller(ID.name());
/// The component its events name (`persistentvolume-controller`).
const EVENT_SOURCE: &str = "persistentvolume-controller";
/// The node the scheduler chose for a claim's first pod.
pub const SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";
/// The provisioner asked to make a volume for a claim.
pub const STORAGE_PROVISIONER: &str = "volume.kubernetes.io/storage-provisioner";
const BETA_STORAGE_PROVISIONER: &str = "volume.beta.kubernetes.io/storage-provisioner";
const BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
const BOUND_BY_CONTROLLER: &str = "pv.kubernetes.io/bound-by-controller";
/// The annotation a volume's provisioner leaves on it.
pub const PROVISIONED_BY: &str = "pv.kubernetes.io/provisioned-by";
/// The StorageClass annotation that makes a class the default.
pub const DEFAULT_CLASS: &str = "storageclass.kubernetes.io/is-default-class";

/// The PersistentVolume controller.
pub(crate) struct VolumeBinder;

impl Controller for VolumeBinder {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        let Object::Other(o) = &*ev.object else {
            return;
        };
        match o.kind {
            Kind::PersistentVolumeClaim => {
                if ev.event_type != EventType::Deleted {
                    keys.push(ev.object.key());
                }
                // The volume it was bound to may be released now.
                if let Some(volume) = Claim::of(o).volume_name.filter(|v| !v.is_empty()) {
                    keys.push(ObjectKey::new(Kind::PersistentVolume, "", &volume));
                }
            }
            Kind::PersistentVolume => {
                if ev.event_type != EventType::Deleted {
                    keys.push(ev.object.key());
                }
                // A volume that became available may suit a waiting claim.
                if Volume::of(o).claim.is_none() || ev.event_type == EventType::Deleted {
                    keys.extend(waiting_claims(c));
                } else if let Some((ns, name, _)) = Volume::of(o).claim {
                    keys.push(ObjectKey::new(Kind::PersistentVolumeClaim, &ns, &name));
                }
            }
            Kind::StorageClass => keys.extend(waiting_claims(c)),
            _ => {}
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(c.store.list(Kind::PersistentVolume, None).map(Object::key));
        keys.extend(
            c.store
                .list(Kind::PersistentVolumeClaim, None)
                .map(Object::key),
        );
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        match key.kind {
            Kind::PersistentVolumeClaim => c.sync_claim(key),
            Kind::PersistentVolume => c.sync_volume(key),
            _ => Action::Done,
        }
    }
}

/// The unbound claims, to look at again when a volume or class appears.
fn waiting_claims(c: &Cluster) -> Vec<ObjectKey> {
    c.store
        .list(Kind::PersistentVolumeClaim, None)
        .filter(|o| match o {
            Object::Other(claim) => Claim::of(claim).volume_name.is_none_or(|v| v.is_empty()),
            _ => false,
        })
        .map(Object::key)
        .collect()
}

fn text<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_str()
}

fn strings(v: &Value, path: &[&str]) -> Vec<String> {
    path.iter()
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn annotation<'a>(o: &'a OtherObject, key: &str) -> Option<&'a str> {
    o.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(key))
        .map(String::as_str)
}

/// What the binder reads of a claim.
#[derive(Clone, Debug)]
pub struct Claim {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub class: Option<String>,
    pub volume_name: Option<String>,
    pub phase: String,
    /// `spec.resources.requests.storage` in bytes.
    pub request: u64,
    pub access_modes: Vec<String>,
    pub selected_node: Option<String>,
}

impl Claim {
    pub fn of(o: &OtherObject) -> Claim {
        let all = Value::Object(o.fields.clone());
        Claim {
            namespace: o.metadata.namespace.clone().unwrap_or_default(),
            name: o.metadata.name.clone().unwrap_or_default(),
            uid: o.metadata.uid.clone().unwrap_or_default(),
            class: text(&all, &["spec", "storageClassName"]).map(str::to_string),
            volume_name: text(&all, &["spec", "volumeName"]).map(str::to_string),
            phase: text(&all, &["status", "phase"]).unwrap_or("").to_string(),
            request: text(&all, &["spec", "resources", "requests", "storage"])
                .and_then(crate::object::quantity::bytes)
                .unwrap_or(0),
            access_modes: strings(&all, &["spec", "accessModes"]),
            selected_node: annotation(o, SELECTED_NODE).map(str::to_string),
        }
    }

    pub fn is_bound(&self) -> bool {
        self.volume_name.as_deref().is_some_and(|v| !v.is_empty()) && self.phase == "Bound"
    }
}

/// What the binder reads of a volume.
#[derive(Clone, Debug)]
pub struct Volume {
    pub name: String,
    pub class: String,
    pub capacity: u64,
    pub access_modes: Vec<String>,
    /// The claim it is bound or reserved to: namespace, name and uid (empty when
    /// reserved by name only).
    pub claim: Option<(String, String, String)>,
    pub phase: String,
    pub reclaim_policy: String,
    /// The node its required node affinity names (`kubernetes.io/hostname In [..]`).
    pub node: Option<String>,
}

impl Volume {
    pub fn of(o: &OtherObject) -> Volume {
        let all = Value::Object(o.fields.clone());
        let claim = all.get("spec").and_then(|s| s.get("claimRef")).map(|r| {
            let field = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            (field("namespace"), field("name"), field("uid"))
        });
        let node = all
            .pointer("/spec/nodeAffinity/required/nodeSelectorTerms/0/matchExpressions")
            .and_then(Value::as_array)
            .and_then(|exprs| {
                exprs.iter().find(|e| {
                    text(e, &["key"]) == Some("kubernetes.io/hostname")
                        && text(e, &["operator"]) == Some("In")
                })
            })
            .and_then(|e| e.get("values")?.get(0)?.as_str())
            .map(str::to_string);
        Volume {
            name: o.metadata.name.clone().unwrap_or_default(),
            class: text(&all, &["spec", "storageClassName"])
                .unwrap_or("")
                .to_string(),
            capacity: text(&all, &["spec", "capacity", "storage"])
                .and_then(crate::object::quantity::bytes)
                .unwrap_or(0),
            access_modes: strings(&all, &["spec", "accessModes"]),
            claim,
            phase: text(&all, &["status", "phase"]).unwrap_or("").to_string(),
            reclaim_policy: text(&all, &["spec", "persistentVolumeReclaimPolicy"])
                .unwrap_or("Retain")
                .to_string(),
            node,
        }
    }
}

/// What the binder and the scheduler read of a StorageClass.
#[derive(Clone, Debug)]
pub struct Class {
    pub provisioner: String,
    pub wait_for_first_consumer: bool,
    pub reclaim_policy: String,
}

impl Class {
    pub fn of(o: &OtherObject) -> Class {
        let field = |k: &str| o.fields.get(k).and_then(Value::as_str).unwrap_or("");
        Class {
            provisioner: field("provisioner").to_string(),
            wait_for_first_consumer: field("volumeBindingMode") == "WaitForFirstConsumer",
            reclaim_policy: match field("reclaimPolicy") {
                "" => "Delete".to_string(),
                p => p.to_string(),
            },
        }
    }
}

/// The StorageClass named `name`, if it exists.
pub fn class(c: &Cluster, name: &str) -> Option<Class> {
    match c.store.get(&ObjectKey::new(Kind::StorageClass, "", name)) {
        Some(Object::Other(o)) => Some(Class::of(o)),
        _ => None,
    }
}

/// Whether the claim's binding waits for its first pod: its class binds
/// `WaitForFirstConsumer` and no node was chosen yet (`IsDelayBindingMode`).
pub fn waits_for_consumer(c: &Cluster, claim: &Claim) -> bool {
    claim
        .class
        .as_deref()
        .and_then(|name| class(c, name))
        .is_some_and(|k| k.wait_for_first_consumer)
}

/// `findBestMatchForClaim`: the smallest available volume of the claim's class
/// with its access modes and at least its size, on `node` when one is given; a
/// volume reserved for the claim by name wins.
pub fn best_volume(c: &Cluster, claim: &Claim, node: Option<&str>) -> Option<Volume> {
    let class = claim.class.clone().unwrap_or_default();
    let volumes: Vec<Volume> = c
        .store
        .list(Kind::PersistentVolume, None)
        .filter_map(|o| match o {
            Object::Other(v) if v.metadata.deletion_timestamp.is_none() => Some(Volume::of(v)),
            _ => None,
        })
        .collect();
    if let Some(v) = volumes.iter().find(|v| {
        v.claim.as_ref().is_some_and(|(ns, name, uid)| {
            *ns == claim.namespace && *name == claim.name && (uid.is_empty() || *uid == claim.uid)
        })
    }) {
        return Some(v.clone());
    }
    volumes
        .into_iter()
        .filter(|v| v.claim.is_none() && v.phase != "Released" && v.phase != "Failed")
        .filter(|v| v.class == class)
        .filter(|v| {
            claim
                .access_modes
                .iter()
                .all(|m| v.access_modes.contains(m))
        })
        .filter(|v| v.capacity >= claim.request)
        .filter(|v| node.is_none() || v.node.is_none() || v.node.as_deref() == node)
        .min_by(|a, b| (a.capacity, &a.name).cmp(&(b.capacity, &b.name)))
}

impl Cluster {
    fn sync_claim(&mut self, key: &ObjectKey) -> Action {
        let Some(Object::Other(o)) = self.store.get(key).cloned() else {
            return Action::Done;
        };
        if o.metadata.deletion_timestamp.is_some() {
            return Action::Done;
        }
        let claim = Claim::of(&o);
        let about = Object::Other(o.clone());
        if let Some(volume) = claim.volume_name.clone().filter(|v| !v.is_empty()) {
            // `syncBoundClaim`: the volume must still be there.
            let exists = self
                .store
                .get(&ObjectKey::new(Kind::PersistentVolume, "", &volume))
                .is_some();
            if !exists && claim.phase != "Lost" {
                self.record_event(
                    &about,
                    EVENT_SOURCE,
                    None,
                    "Warning",
                    "ClaimLost",
                    "Bound claim has lost its PersistentVolume. Data on the volume is lost!".into(),
                );
                let written = self.write_claim(o, |claim| {
                    claim
                        .fields
                        .insert("status".into(), json!({"phase": "Lost"}));
                });
                return Action::after_writes([written]);
            }
            if exists && claim.phase != "Bound" {
                return self.bind_claim(&claim, &volume);
            }
            return Action::Done;
        }
        let delayed = waits_for_consumer(self, &claim) && claim.selected_node.is_none();
        match best_volume(self, &claim, claim.selected_node.as_deref()) {
            Some(v) if !delayed || v.claim.is_some() => self.bind_claim(&claim, &v.name),
            _ if delayed => {
                self.record_event(
                    &about,
                    EVENT_SOURCE,
                    None,
                    "Normal",
                    "WaitForFirstConsumer",
                    "waiting for first consumer to be created before binding".into(),
                );
                Action::Done
            }
            _ => self.provision_or_wait(o, &claim),
        }
    }

    /// No volume matches: ask the class's provisioner, or say why nothing will.
    fn provision_or_wait(&mut self, o: Box<OtherObject>, claim: &Claim) -> Action {
        let about = Object::Other(o.clone());
        let class_name = claim.class.clone().unwrap_or_default();
        if class_name.is_empty() {
            self.record_event(
                &about,
                EVENT_SOURCE,
                None,
                "Warning",
                "FailedBinding",
                "no persistent volumes available for this claim and no storage class is set".into(),
            );
            return Action::Done;
        }
        let Some(k) = class(self, &class_name) else {
            self.record_event(
                &about,
                EVENT_SOURCE,
                None,
                "Warning",
                "ProvisioningFailed",
                format!("storageclass.storage.k8s.io \"{class_name}\" not found"),
            );
            return Action::Done;
        };
        if k.provisioner == "kubernetes.io/no-provisioner" {
            self.record_event(
                &about,
                EVENT_SOURCE,
                None,
                "Normal",
                "FailedBinding",
                "no persistent volumes available for this claim and no storage class is set".into(),
            );
            return Action::Done;
        }
        self.record_event(
            &about,
            EVENT_SOURCE,
            None,
            "Normal",
            "ExternalProvisioning",
            format!(
                "Waiting for a volume to be created either by the external provisioner '{}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
                k.provisioner
            ),
        );
        if annotation(&o, STORAGE_PROVISIONER) == Some(k.provisioner.as_str()) {
            return Action::Done;
        }
        let written = self.write_claim(o, |claim| {
            let annotations = claim
                .metadata
                .annotations
                .get_or_insert_with(Default::default);
            annotations.insert(BETA_STORAGE_PROVISIONER.into(), k.provisioner.clone());
            annotations.insert(STORAGE_PROVISIONER.into(), k.provisioner.clone());
        });
        Action::after_writes([written])
    }

    /// `bind`: the volume to the claim, then the claim to the volume.
    fn bind_claim(&mut self, claim: &Claim, volume_name: &str) -> Action {
        let pv_key = ObjectKey::new(Kind::PersistentVolume, "", volume_name);
        let Some(Object::Other(pv)) = self.store.get(&pv_key).cloned() else {
            return Action::Done;
        };
        let mut writes = Vec::new();
        let volume = Volume::of(&pv);
        let reference = json!({
            "kind": "PersistentVolumeClaim",
            "namespace": claim.namespace,
            "name": claim.name,
            "uid": claim.uid,
            "apiVersion": "v1",
        });
        let needs_ref = volume
            .claim
            .as_ref()
            .is_none_or(|(_, _, uid)| uid.is_empty());
        if needs_ref || volume.phase != "Bound" {
            let mut pv = pv.clone();
            if needs_ref {
                if let Some(spec) = pv.fields.get_mut("spec").and_then(Value::as_object_mut) {
                    spec.insert("claimRef".into(), reference);
                }
                if volume.claim.is_none() {
                    pv.metadata
                        .annotations
                        .get_or_insert_with(Default::default)
                        .insert(BOUND_BY_CONTROLLER.into(), "yes".into());
                }
            }
            pv.fields.insert("status".into(), json!({"phase": "Bound"}));
            match self.update_as(ACTOR, Object::Other(pv)) {
                Ok(_) => {}
                Err(e) => return Action::after_writes([Err(e)]),
            }
        }
        let claim_key = ObjectKey::new(Kind::PersistentVolumeClaim, &claim.namespace, &claim.name);
        if let Some(Object::Other(o)) = self.store.get(&claim_key).cloned() {
            let capacity = pv
                .fields
                .get("spec")
                .and_then(|s| s.get("capacity"))
                .cloned()
                .unwrap_or(Value::Null);
            let modes = pv
                .fields
                .get("spec")
                .and_then(|s| s.get("accessModes"))
                .cloned()
                .unwrap_or(Value::Null);
            let by_controller = claim.volume_name.as_deref().is_none_or(str::is_empty);
            writes.push(self.write_claim(o, |c| {
                if let Some(spec) = c.fields.get_mut("spec").and_then(Value::as_object_mut) {
                    spec.insert("volumeName".into(), json!(volume_name));
                }
                let annotations = c.metadata.annotations.get_or_insert_with(Default::default);
                annotations.insert(BIND_COMPLETED.into(), "yes".into());
                if by_controller {
                    annotations.insert(BOUND_BY_CONTROLLER.into(), "yes".into());
                }
                let mut status = Map::new();
                status.insert("phase".into(), json!("Bound"));
                status.insert("accessModes".into(), modes.clone());
                status.insert("capacity".into(), capacity.clone());
                c.fields.insert("status".into(), Value::Object(status));
            }));
        }
        Action::after_writes(writes)
    }

    fn write_claim(
        &mut self,
        o: Box<OtherObject>,
        change: impl FnOnce(&mut OtherObject),
    ) -> Result<(), ApiError> {
        let mut updated = o;
        change(&mut updated);
        self.update_as(ACTOR, Object::Other(updated)).map(drop)
    }

    /// `syncVolume`: Available without a claim, Released when its claim is gone,
    /// and then reclaimed as its policy says.
    fn sync_volume(&mut self, key: &ObjectKey) -> Action {
        let Some(Object::Other(pv)) = self.store.get(key).cloned() else {
            return Action::Done;
        };
        if pv.metadata.deletion_timestamp.is_some() {
            return Action::Done;
        }
        let volume = Volume::of(&pv);
        let phase = match &volume.claim {
            None => "Available",
            Some((ns, name, uid)) => {
                let claim = self
                    .store
                    .get(&ObjectKey::new(Kind::PersistentVolumeClaim, ns, name));
                match claim {
                    // Reserved by name for a claim not there yet, or one to bind.
                    None if uid.is_empty() => "Available",
                    Some(c) if uid.is_empty() || c.meta().uid.as_deref() == Some(uid) => {
                        if volume.phase.is_empty() || volume.phase == "Pending" {
                            "Available"
                        } else {
                            return Action::Done;
                        }
                    }
                    _ => "Released",
                }
            }
        };
        let mut writes = Vec::new();
        if volume.phase != phase {
            let mut updated = pv.clone();
            updated
                .fields
                .insert("status".into(), json!({"phase": phase}));
            writes.push(self.update_as(ACTOR, Object::Other(updated)).map(drop));
        }
        if phase == "Released" && volume.reclaim_policy == "Delete" {
            // A volume its provisioner made is deleted by that provisioner; no
            // in-tree plugin deletes any other kind of volume here.
            if annotation(&pv, PROVISIONED_BY).is_none() && volume.phase != "Failed" {
                self.record_event(
                    &Object::Other(pv.clone()),
                    EVENT_SOURCE,
                    None,
                    "Warning",
                    "VolumeFailedDelete",
                    format!(
                        "error getting deleter volume plugin for volume \"{}\": no deletable volume plugin matched",
                        volume.name
                    ),
                );
                if let Some(Object::Other(latest)) = self.store.get(key).cloned() {
                    let mut updated = latest;
                    updated
                        .fields
                        .insert("status".into(), json!({"phase": "Failed"}));
                    writes.push(self.update_as(ACTOR, Object::Other(updated)).map(drop));
                }
            }
        }
        Action::after_writes(writes)
    }
}

impl Cluster {
    /// The DefaultStorageClass admission plugin: a claim created without
    /// `storageClassName` gets the default class (the newest one annotated
    /// `storageclass.kubernetes.io/is-default-class: "true"`), if there is one.
    pub(crate) fn admit_default_storage_class(&self, obj: &mut Object) {
        let Object::Other(claim) = obj else {
            return;
        };
        if claim.kind != Kind::PersistentVolumeClaim {
            return;
        }
        let spec = claim.fields.entry("spec").or_insert_with(|| json!({}));
        let Some(spec) = spec.as_object_mut() else {
            return;
        };
        if spec.get("storageClassName").is_some_and(|v| !v.is_null()) {
            return;
        }
        let default = self
            .store
            .list(Kind::StorageClass, None)
            .filter(|c| {
                c.meta()
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get(DEFAULT_CLASS))
                    .is_some_and(|v| v == "true")
            })
            .max_by_key(|c| {
                (
                    c.meta().creation_timestamp.as_ref().map(|t| t.0),
                    c.name().to_string(),
                )
            });
        if let Some(c) = default {
            spec.insert("storageClassName".into(), json!(c.name()));
        }
    }
}

/// `SetDefaults_PersistentVolumeClaim` and `SetDefaults_PersistentVolume`: the
/// filesystem volume mode, Retain for a volume made by hand, the unset type of a
/// hostPath source (`SetDefaults_HostPathVolumeSource`: `""`), and the Pending phase
/// a new object starts in.
pub(crate) fn default_storage_object(o: &mut OtherObject) {
    let spec = o.fields.entry("spec").or_insert_with(|| json!({}));
    if let Some(spec) = spec.as_object_mut() {
        spec.entry("volumeMode")
            .or_insert_with(|| json!("Filesystem"));
        if o.kind == Kind::PersistentVolume {
            spec.entry("persistentVolumeReclaimPolicy")
                .or_insert_with(|| json!("Retain"));
            if let Some(host_path) = spec.get_mut("hostPath").and_then(|h| h.as_object_mut()) {
                host_path.entry("type").or_insert_with(|| json!(""));
            }
        }
    }
}
