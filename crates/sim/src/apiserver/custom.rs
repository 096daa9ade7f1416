//! The apiextensions-apiserver's part of the request pipeline: CustomResourceDefinitions
//! (their status kept from users' writes, the cleanup finalizer on delete) and the
//! custom objects they serve (pruned, defaulted and validated with the served
//! version's schema, status kept apart when the version has the status subresource).
//!
//! Upstream: staging/src/k8s.io/apiextensions-apiserver pkg/registry/
//! customresourcedefinition (strategy.go, etcd.go `Delete`), pkg/registry/
//! customresource/strategy.go and pkg/apiserver/customresource_handler.go.
//!
//! Simplified: a write by a controller may set a custom object's status in the same
//! request as its spec (upstream sends it to the `/status` subresource); a user's
//! write never does.

use crate::cluster::Cluster;
use crate::error::{ApiError, StatusReason};
use crate::object::{crd, Kind, Object, ObjectKey, OtherObject};
use serde_json::Value;
use std::sync::Arc;

/// The key of the definition that serves `kind` (`<plural>.<group>`).
pub fn definition_key(kind: Kind) -> ObjectKey {
    ObjectKey::new(
        Kind::CustomResourceDefinition,
        "",
        &format!("{}.{}", kind.plural(), kind.group()),
    )
}

/// The answer for a resource no definition serves (upstream's 404 from the
/// apiextensions handler).
pub(crate) fn not_served() -> ApiError {
    ApiError::new(
        StatusReason::NotFound,
        "the server could not find the requested resource",
    )
}

impl Cluster {
    /// The Established definition serving `kind`, as it is stored now.
    pub fn definition_of(&self, kind: Kind) -> Option<Arc<Object>> {
        let def = self.store.get_shared(&definition_key(kind))?.clone();
        let Object::Other(o) = &*def else {
            return None;
        };
        (crd::established_kind(&o.fields) == Some(kind)).then_some(def)
    }

    /// The kinds Established definitions serve, in [`Kind`] order.
    pub fn custom_kinds(&self) -> Vec<Kind> {
        let mut kinds: Vec<Kind> = self
            .store
            .list(Kind::CustomResourceDefinition, None)
            .filter_map(|d| match d {
                Object::Other(o) => crd::established_kind(&o.fields),
                _ => None,
            })
            .collect();
        kinds.sort();
        kinds
    }

    /// What a user types for a resource type, resolved as discovery does: a
    /// built-in kind ([`Kind::lookup`]), else a kind an Established definition
    /// serves, by plural, singular, short name or kind, optionally qualified by
    /// group (`backups.example.com`) or version and group (`backups.v1.example.com`).
    pub fn resolve_kind(&self, name: &str) -> Option<Kind> {
        Kind::lookup(name).or_else(|| Kind::lookup_among(name, &self.custom_kinds()))
    }

    /// A custom object decoded without this cluster (its kind is the one last
    /// interned in the process with its group, version and kind) takes the kind this
    /// cluster serves under those names; a kind no definition serves is refused.
    pub(super) fn serve_custom_kind(&self, obj: &mut Object) -> Result<(), ApiError> {
        let Object::Other(o) = obj else { return Ok(()) };
        if !o.kind.is_custom() {
            return Ok(());
        }
        let served = self
            .custom_kinds()
            .into_iter()
            .find(|k| k.answers_as(o.kind, &o.api_version));
        match served {
            Some(k) => {
                o.kind = k;
                Ok(())
            }
            None => Err(not_served()),
        }
    }

    /// Whether the writer is a controller (it may write a status).
    fn controller_writes(&self) -> bool {
        self.current_actor
            .starts_with("system:serviceaccount:kube-system:")
            || self.current_actor == crate::apiserver::Actor::System.username()
    }

    /// A definition's own admission: a create starts with no status (strategy.go
    /// `PrepareForCreate`); a user's update keeps the stored status.
    /// An update also keeps what identifies the served kind (`crd::validate_update`).
    pub(super) fn admit_definition(
        &self,
        obj: &mut Object,
        old: Option<&Object>,
    ) -> Result<(), ApiError> {
        let Object::Other(o) = obj else { return Ok(()) };
        if o.kind != Kind::CustomResourceDefinition {
            return Ok(());
        }
        default_names(o);
        if !self.controller_writes() {
            keep_status(o, old);
        }
        if let Some(Object::Other(old)) = old {
            let mut errors = Vec::new();
            crd::validate_update(&old.fields, &o.fields, &mut errors);
            if !errors.is_empty() {
                return Err(super::invalid(
                    obj,
                    errors.into_iter().map(super::FieldError).collect(),
                ));
            }
        }
        Ok(())
    }

    /// A custom object's admission: its definition must serve it; then unknown
    /// fields are pruned, defaults applied and the schema checked.
    pub(super) fn admit_custom(
        &self,
        obj: &mut Object,
        old: Option<&Object>,
    ) -> Result<(), ApiError> {
        let kind = obj.kind();
        if !kind.is_custom() {
            return Ok(());
        }
        let Some(def) = self.definition_of(kind) else {
            return Err(not_served());
        };
        let Object::Other(d) = &*def else {
            return Err(not_served());
        };
        if old.is_none() && def.meta().deletion_timestamp.is_some() {
            return Err(ApiError::new(
                StatusReason::Unknown,
                "create not allowed while custom resource definition is terminating",
            ));
        }
        let api_version = obj.api_version();
        let version = api_version.rsplit('/').next().unwrap_or("");
        let Object::Other(o) = obj else {
            return Err(not_served());
        };
        if crd::has_status_subresource(&d.fields, version) && !self.controller_writes() {
            keep_status(o, old);
        }
        let mut errors = Vec::new();
        if let Some(schema) = crd::schema(&d.fields, version) {
            crd::apply_schema(schema, &mut o.fields, &mut errors);
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(super::invalid(
                obj,
                errors.into_iter().map(super::FieldError).collect(),
            ))
        }
    }

    /// The first delete of a definition (etcd.go `Delete`): stamped for deletion,
    /// the cleanup finalizer added and the condition Terminating set; the finalizing
    /// controller deletes its objects and removes the finalizer.
    pub(super) fn mark_definition_deleting(&self, def: &Object) -> Option<Object> {
        let Object::Other(o) = def else { return None };
        if o.kind != Kind::CustomResourceDefinition || o.metadata.deletion_timestamp.is_some() {
            return None;
        }
        let mut o = o.clone();
        o.metadata.deletion_timestamp = Some(self.now.to_k8s());
        o.metadata.deletion_grace_period_seconds = Some(0);
        let finalizers = o.metadata.finalizers.get_or_insert_with(Vec::new);
        if !finalizers.iter().any(|f| f == crd::CLEANUP_FINALIZER) {
            finalizers.push(crd::CLEANUP_FINALIZER.into());
        }
        crd::set_condition(
            &mut o.fields,
            self.now,
            "Terminating",
            "True",
            "InstanceDeletionPending",
            "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
        );
        Some(Object::Other(o))
    }
}

/// apiextensions/v1 defaults.go `SetDefaults_CustomResourceDefinitionSpec`: the
/// singular name is the kind in lower case, the list kind `<Kind>List`.
fn default_names(o: &mut OtherObject) {
    let Some(names) = o
        .fields
        .get_mut("spec")
        .and_then(|s| s.get_mut("names"))
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let kind = names
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if kind.is_empty() {
        return;
    }
    let empty = |v: Option<&Value>| v.and_then(Value::as_str).is_none_or(str::is_empty);
    if empty(names.get("singular")) {
        names.insert("singular".into(), kind.to_ascii_lowercase().into());
    }
    if empty(names.get("listKind")) {
        names.insert("listKind".into(), format!("{kind}List").into());
    }
}

/// The stored status stays; the written one is ignored.
fn keep_status(o: &mut OtherObject, old: Option<&Object>) {
    let stored = match old {
        Some(Object::Other(old)) => old.fields.get("status").cloned(),
        _ => None,
    };
    match stored {
        Some(s) => {
            o.fields.insert("status".into(), s);
        }
        None => {
            o.fields.remove("status");
        }
    }
}

/// Whether two versions of a custom object or definition differ in anything but
/// metadata and status (what bumps `metadata.generation`).
pub(super) fn same_custom_spec(a: &OtherObject, b: &OtherObject) -> bool {
    let rest = |o: &OtherObject| -> Vec<(String, Value)> {
        o.fields
            .iter()
            .filter(|(k, _)| k.as_str() != "status")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    rest(a) == rest(b)
}
