//! ServiceAccounts: the controller that gives every namespace its `default`
//! ServiceAccount (pkg/controller/serviceaccount), and the admission plugin that
//! assigns it to pods (plugin/pkg/admission/serviceaccount).
//!
//! Simplified: the plugin does not mount the projected API token volume
//! (`kube-api-access-…`), and it admits pods naming `default` even in the instant
//! before the controller has created it.

use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::error::{ApiError, StatusReason};
use crate::object::{Kind, Object, ObjectKey};
use crate::store::{EventType, WatchEvent};
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

pub(crate) const ID: ControllerId = ControllerId::new("service-account-controller");
const ACTOR: Actor = Actor::Controller(ID.name());

/// The ServiceAccount controller: new namespaces, and namespaces whose `default`
/// ServiceAccount was deleted.
pub(crate) struct ServiceAccountController;

impl Controller for ServiceAccountController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, _c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        match (&*ev.object, ev.event_type) {
            (Object::Namespace(ns), EventType::Added)
                if ns.metadata.deletion_timestamp.is_none() =>
            {
                keys.push(ev.object.key())
            }
            (Object::ServiceAccount(sa), EventType::Deleted)
                if sa.metadata.name.as_deref() == Some("default") =>
            {
                keys.push(ObjectKey::new(Kind::Namespace, "", ev.object.namespace()))
            }
            _ => {}
        }
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.sync_default_service_account(key);
        Action::Done
    }
}

impl Cluster {
    /// Creates the namespace's `default` ServiceAccount if it is missing.
    fn sync_default_service_account(&mut self, namespace: &ObjectKey) {
        let active = self
            .store
            .get(namespace)
            .is_some_and(|n| n.meta().deletion_timestamp.is_none());
        let key = ObjectKey::new(Kind::ServiceAccount, &namespace.name, "default");
        if !active || self.store.get(&key).is_some() {
            return;
        }
        let sa = ServiceAccount {
            metadata: ObjectMeta {
                name: Some("default".into()),
                namespace: Some(namespace.name.clone()),
                ..Default::default()
            },
            ..Default::default()
        };
        let _ = self.create_as(ACTOR, Object::ServiceAccount(Box::new(sa)));
    }

    /// The ServiceAccount admission plugin for pods: `serviceAccountName` defaults to
    /// `default`, and a named ServiceAccount must exist.
    pub(crate) fn admit_service_account(&mut self, obj: &mut Object) -> Result<(), ApiError> {
        let Object::Pod(pod) = obj else {
            return Ok(());
        };
        // Mirror pods keep the static pod's spec as the kubelet wrote it.
        if crate::runtime::control_plane::is_mirror_pod(pod) {
            return Ok(());
        }
        let spec = pod.spec.get_or_insert_with(Default::default);
        let name = spec
            .service_account_name
            .clone()
            .filter(|n| !n.is_empty())
            .or_else(|| spec.service_account.clone().filter(|n| !n.is_empty()))
            .unwrap_or_else(|| "default".to_string());
        spec.service_account_name = Some(name.clone());
        spec.service_account = Some(name.clone());
        let ns = pod.metadata.namespace.clone().unwrap_or_default();
        let exists = self
            .store
            .get(&ObjectKey::new(Kind::ServiceAccount, &ns, &name))
            .is_some();
        if exists || name == "default" {
            return Ok(());
        }
        Err(ApiError::new(
            StatusReason::Forbidden,
            format!(
                "pods \"{}\" is forbidden: error looking up service account {ns}/{name}: serviceaccount \"{name}\" not found",
                pod.metadata.name.as_deref().unwrap_or("")
            ),
        ))
    }
}
