//! ControllerRevisions, the history StatefulSets and DaemonSets keep of their pod
//! templates (pkg/controller/history and the two controllers' `getPatch`): each
//! revision's `data` is `{"spec":{"template":…,"$patch":"replace"}}`, the strategic
//! merge patch that puts that template back (what `kubectl rollout undo` sends), and
//! `revision` numbers them, the newest highest.

use crate::cluster::Cluster;
use crate::object::{Kind, Object, OtherObject};
use serde_json::{json, Value};

/// One ControllerRevision, as a controller reads it.
#[derive(Clone, Debug)]
pub(super) struct Revision {
    pub name: String,
    pub revision: i64,
    /// The template its patch puts back (with the `$patch` directive).
    pub template: Value,
    pub object: OtherObject,
}

impl Revision {
    pub fn of(o: &OtherObject) -> Revision {
        Revision {
            name: o.metadata.name.clone().unwrap_or_default(),
            revision: o
                .fields
                .get("revision")
                .and_then(Value::as_i64)
                .unwrap_or(0),
            template: o
                .fields
                .get("data")
                .and_then(|d| d.get("spec"))
                .and_then(|s| s.get("template"))
                .cloned()
                .unwrap_or(Value::Null),
            object: o.clone(),
        }
    }

    /// Whether this revision records `template` (`Match`: the owner's patch equal
    /// to the revision's data).
    pub fn records(&self, template: &Value) -> bool {
        revision_data(&self.template) == revision_data(template)
    }
}

/// A pod template as a revision keeps it (`getPatch`: the template with
/// `$patch: replace`).
pub(super) fn revision_data(template: &Value) -> Value {
    let mut template = template.clone();
    if let Some(t) = template.as_object_mut() {
        t.insert("$patch".into(), json!("replace"));
    }
    json!({ "spec": { "template": template } })
}

impl Cluster {
    /// The ControllerRevisions the object with `uid` controls, oldest revision
    /// first (then by name).
    pub(super) fn controlled_revisions(&self, uid: &str) -> Vec<Revision> {
        let mut revisions: Vec<Revision> = self
            .store
            .dependent_objects(uid)
            .filter_map(|o| match o {
                Object::Other(r)
                    if r.kind == Kind::ControllerRevision
                        && super::controlled_by(&r.metadata, uid) =>
                {
                    Some(Revision::of(r))
                }
                _ => None,
            })
            .collect();
        revisions.sort_by(|a, b| (a.revision, &a.name).cmp(&(b.revision, &b.name)));
        revisions
    }
}
