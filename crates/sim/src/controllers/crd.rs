//! The apiextensions-apiserver's controllers for CustomResourceDefinitions:
//! naming (pkg/controller/status/naming_controller.go: `acceptedNames` and the
//! NamesAccepted condition, names already used by another definition of the group
//! refused), establishing (pkg/controller/establish: Established once the names are
//! accepted) and finalizing (pkg/controller/finalizer/crd_finalizer.go: a deleted
//! definition's objects deleted, then its cleanup finalizer removed).
//!
//! Simplified: they run in the controller manager (upstream they run in the
//! apiserver), and a single apiserver establishes at once (upstream waits 5 s only
//! with several apiservers).

use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::custom::definition_key;
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::object::{crd, Kind, Object, ObjectKey, OtherObject};
use crate::store::{EventType, WatchEvent};
use serde_json::Value;

pub(crate) const ID: ControllerId = ControllerId::new("apiextensions-controller");
const ACTOR: Actor = Actor::Controller(ID.name());

/// Names, establishes and finalizes CustomResourceDefinitions.
pub(crate) struct DefinitionController;

impl Controller for DefinitionController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        let kind = ev.object.kind();
        if kind == Kind::CustomResourceDefinition {
            if ev.event_type != EventType::Deleted {
                keys.push(ev.object.key());
            }
            // Another definition of the group may now take names this one freed.
            for other in c.store.list(Kind::CustomResourceDefinition, None) {
                if other.name() != ev.object.name() && !crd_established(other) {
                    keys.push(other.key());
                }
            }
        } else if kind.is_custom() && ev.event_type == EventType::Deleted {
            let def = definition_key(kind);
            if c.store
                .get(&def)
                .is_some_and(|d| d.meta().deletion_timestamp.is_some())
            {
                keys.push(def);
            }
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(
            c.store
                .list(Kind::CustomResourceDefinition, None)
                .map(Object::key),
        );
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        let Some(Object::Other(def)) = c.store.get(key).cloned() else {
            return Action::Done;
        };
        if def.metadata.deletion_timestamp.is_some() {
            c.finalize_definition(&def)
        } else {
            c.name_and_establish(&def)
        }
    }
}

fn crd_established(o: &Object) -> bool {
    matches!(o, Object::Other(d) if crd::condition_true(&d.fields, "Established"))
}

/// The names a definition asks for, as upstream defaults them.
fn names_of(def: &OtherObject) -> Value {
    def.fields
        .get("spec")
        .and_then(|s| s.get("names"))
        .cloned()
        .unwrap_or(Value::Null)
}

fn name_list(names: &Value) -> Vec<&str> {
    let mut out = vec![
        names.get("plural").and_then(Value::as_str).unwrap_or(""),
        names.get("singular").and_then(Value::as_str).unwrap_or(""),
    ];
    out.extend(
        names
            .get("shortNames")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str),
    );
    out.retain(|n| !n.is_empty());
    out
}

impl Cluster {
    /// The naming and establishing controllers' sync: names no other definition of
    /// the group has accepted are accepted, and the definition is Established.
    fn name_and_establish(&mut self, def: &OtherObject) -> Action {
        let group = def
            .fields
            .get("spec")
            .and_then(|s| s.get("group"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let wanted = names_of(def);
        let mut conflict: Option<(&str, String)> = None;
        for other in self.store.list(Kind::CustomResourceDefinition, None) {
            let Object::Other(o) = other else { continue };
            if o.metadata.name == def.metadata.name
                || o.fields
                    .get("spec")
                    .and_then(|s| s.get("group"))
                    .and_then(Value::as_str)
                    != Some(group.as_str())
            {
                continue;
            }
            let Some(accepted) = o.fields.get("status").and_then(|s| s.get("acceptedNames")) else {
                continue;
            };
            let taken = name_list(accepted);
            if let Some(n) = name_list(&wanted).into_iter().find(|n| taken.contains(n)) {
                let reason = if wanted.get("plural").and_then(Value::as_str) == Some(n) {
                    "PluralConflict"
                } else if wanted.get("singular").and_then(Value::as_str) == Some(n) {
                    "SingularConflict"
                } else {
                    "ShortNamesConflict"
                };
                conflict = Some((reason, format!("\"{n}\" is already in use")));
                break;
            }
            let kind_of = |v: &Value| v.get("kind").and_then(Value::as_str).map(str::to_string);
            if kind_of(&wanted).is_some() && kind_of(&wanted) == kind_of(accepted) {
                let k = kind_of(&wanted).unwrap_or_default();
                conflict = Some(("KindConflict", format!("\"{k}\" is already in use")));
                break;
            }
        }
        let mut next = def.clone();
        match &conflict {
            None => {
                let status = next
                    .fields
                    .entry("status")
                    .or_insert_with(|| Value::Object(Default::default()));
                if let Some(st) = status.as_object_mut() {
                    st.insert("acceptedNames".into(), wanted.clone());
                    st.entry("storedVersions").or_insert_with(|| {
                        let stored: Vec<Value> = def
                            .fields
                            .get("spec")
                            .and_then(|s| s.get("versions"))
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .filter(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
                            .filter_map(|v| v.get("name").cloned())
                            .collect();
                        Value::Array(stored)
                    });
                }
                crd::set_condition(
                    &mut next.fields,
                    self.now,
                    "NamesAccepted",
                    "True",
                    "NoConflicts",
                    "no conflicts found",
                );
                crd::set_condition(
                    &mut next.fields,
                    self.now,
                    "Established",
                    "True",
                    "InitialNamesAccepted",
                    "the initial names have been accepted",
                );
                // From now on the kind is served: a manifest of it decodes even
                // before anything has asked the cluster which kinds it serves.
                crd::established_kind(&next.fields);
            }
            Some((reason, message)) => {
                crd::set_condition(
                    &mut next.fields,
                    self.now,
                    "NamesAccepted",
                    "False",
                    reason,
                    message,
                );
                if !crd::condition_true(&next.fields, "Established") {
                    crd::set_condition(
                        &mut next.fields,
                        self.now,
                        "Established",
                        "False",
                        "NotAccepted",
                        "not all names are accepted",
                    );
                }
            }
        }
        if next == *def {
            return Action::Done;
        }
        Action::after_writes([self
            .update_as(ACTOR, Object::Other(Box::new(next)))
            .map(drop)])
    }

    /// The finalizer's sync: every object of the definition's kind is deleted, then
    /// the cleanup finalizer removed (which removes the definition).
    fn finalize_definition(&mut self, def: &OtherObject) -> Action {
        let has_finalizer = def
            .metadata
            .finalizers
            .iter()
            .flatten()
            .any(|f| f == crd::CLEANUP_FINALIZER);
        if !has_finalizer {
            return Action::Done;
        }
        let kind = crd::kind_spec(&def.fields).map(|s| crate::object::intern_custom(&s));
        let objects: Vec<(ObjectKey, bool)> = kind
            .map(|k| {
                self.store
                    .list(k, None)
                    .map(|o| (o.key(), o.meta().deletion_timestamp.is_some()))
                    .collect()
            })
            .unwrap_or_default();
        let mut next = def.clone();
        if !objects.is_empty() {
            crd::set_condition(
                &mut next.fields,
                self.now,
                "Terminating",
                "True",
                "InstanceDeletionInProgress",
                "CustomResource deletion is in progress",
            );
            let mut writes = Vec::new();
            if next != *def {
                writes.push(
                    self.update_as(ACTOR, Object::Other(Box::new(next)))
                        .map(drop),
                );
            }
            for (key, deleting) in objects {
                if !deleting {
                    writes.push(self.delete_as(ACTOR, &key, None).map(drop));
                }
            }
            // The last object's deletion brings the definition back (`watch`).
            return Action::after_writes(writes);
        }
        crd::set_condition(
            &mut next.fields,
            self.now,
            "Terminating",
            "True",
            "InstanceDeletionCompleted",
            "removed all instances",
        );
        if let Some(f) = next.metadata.finalizers.as_mut() {
            f.retain(|f| f != crd::CLEANUP_FINALIZER);
        }
        Action::after_writes([self
            .update_as(ACTOR, Object::Other(Box::new(next)))
            .map(drop)])
    }
}
