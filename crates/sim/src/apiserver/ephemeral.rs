//! The `pods/ephemeralcontainers` subresource (pkg/registry/core/pod/storage
//! `EphemeralContainersREST`, pkg/registry/core/pod/strategy.go
//! `podEphemeralContainersStrategy` and pkg/apis/core/validation
//! `ValidatePodEphemeralContainersUpdate`): a write that may only add ephemeral
//! containers to a pod. Every other change in the body is dropped
//! (`dropNonEphemeralContainerUpdates`); an existing ephemeral container may be
//! neither removed nor changed; a static pod takes none; the new list is then
//! validated with the pod (`validateEphemeralContainers`, in `validation.rs`).

use crate::apiserver::{invalid, Actor, FieldError};
use crate::cluster::Cluster;
use crate::error::ApiError;
use crate::object::{Kind, Object, ObjectKey};
use std::sync::Arc;

impl Cluster {
    /// `PATCH pods/NAME/ephemeralcontainers` as `actor`, with the pod as the client
    /// merged it: its ephemeral containers become the stored pod's.
    pub(crate) fn ephemeral_containers_as(
        &mut self,
        actor: Actor,
        sent: Object,
        dry_run: bool,
    ) -> Result<Arc<Object>, ApiError> {
        let key = ObjectKey::new(Kind::Pod, sent.namespace(), sent.name());
        let Some(Object::Pod(stored)) = self.store.get(&key) else {
            return Err(ApiError::not_found("pods", &key.name));
        };
        let Object::Pod(sent_pod) = &sent else {
            return Err(ApiError::not_found("pods", &key.name));
        };
        let old = stored.clone();
        let mut sent_spec = sent_pod.spec.clone().unwrap_or_default();
        crate::apiserver::default_ephemeral_containers(&mut sent_spec);
        let new_list = sent_spec.ephemeral_containers.unwrap_or_default();
        let old_list = old
            .spec
            .as_ref()
            .and_then(|s| s.ephemeral_containers.clone())
            .unwrap_or_default();
        let old_obj = Object::Pod(old.clone());
        if crate::runtime::control_plane::is_mirror_pod(&old) {
            return Err(invalid(
                &old_obj,
                vec![FieldError(
                    ": Forbidden: static pods do not support ephemeral containers".into(),
                )],
            ));
        }
        let mut errors = Vec::new();
        for was in &old_list {
            match new_list.iter().find(|c| c.name == was.name) {
                None => errors.push(FieldError(format!(
                    "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"{}\" may not be removed",
                    was.name
                ))),
                Some(now) if now != was => errors.push(FieldError(format!(
                    "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"{}\" may not be changed",
                    was.name
                ))),
                Some(_) => {}
            }
        }
        if !errors.is_empty() {
            return Err(invalid(&old_obj, errors));
        }
        let mut pod = old;
        if let Some(spec) = pod.spec.as_mut() {
            spec.ephemeral_containers = (!new_list.is_empty()).then_some(new_list);
        }
        let obj = Object::Pod(pod);
        if dry_run {
            return self.update_dry_run(obj).map(Arc::new);
        }
        self.write_as(actor, "patch", obj)
    }
}
