//! CustomResourceDefinitions (staging/src/k8s.io/apiextensions-apiserver): a
//! definition is named and Established by its controllers, then its kind is served;
//! custom objects are pruned, defaulted and validated with the version's schema;
//! deleting the definition deletes its objects; a snapshot restores both.

use warehouse_sim::object::crd;
use warehouse_sim::{decode_manifests, Cluster, Kind, Object, SimDuration, Topology};

pub const BACKUPS: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: backups.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: backups
    kind: Backup
    shortNames: [bk]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - name: Schedule
      type: string
      jsonPath: .spec.schedule
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [schedule]
            properties:
              schedule: {type: string}
              keep: {type: integer, minimum: 1, maximum: 30, default: 7}
              target: {type: string, enum: [database, files]}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
";

fn backup(spec: &str) -> Object {
    decode_manifests(&format!(
        "apiVersion: example.com/v1\nkind: Backup\nmetadata:\n  name: nightly\nspec:\n{spec}"
    ))
    .unwrap()
    .remove(0)
}

fn cluster_with_backups() -> Cluster {
    let mut c = Cluster::new(7, Topology::default());
    c.create(decode_manifests(BACKUPS).unwrap().remove(0))
        .unwrap();
    c.advance(SimDuration::secs(1));
    c
}

fn definition(c: &Cluster) -> serde_json::Value {
    c.get(Kind::CustomResourceDefinition, "", "backups.example.com")
        .unwrap()
        .to_json()
}

#[test]
fn a_definition_is_named_and_established_by_its_controllers() {
    let c = cluster_with_backups();
    let d = definition(&c);
    let conds = d["status"]["conditions"].as_array().unwrap();
    let summary: Vec<(&str, &str, &str, &str)> = conds
        .iter()
        .map(|c| {
            (
                c["type"].as_str().unwrap(),
                c["status"].as_str().unwrap(),
                c["reason"].as_str().unwrap(),
                c["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("NamesAccepted", "True", "NoConflicts", "no conflicts found"),
            (
                "Established",
                "True",
                "InitialNamesAccepted",
                "the initial names have been accepted"
            ),
        ]
    );
    assert_eq!(d["status"]["acceptedNames"]["singular"], "backup");
    assert_eq!(d["status"]["acceptedNames"]["listKind"], "BackupList");
    assert_eq!(d["status"]["storedVersions"], serde_json::json!(["v1"]));
    assert!(c.resolve_kind("bk").is_some_and(|k| k.is_custom()));
    assert_eq!(
        c.resolve_kind("backups.example.com"),
        c.resolve_kind("Backup")
    );
}

#[test]
fn a_bad_definition_gets_upstreams_messages() {
    let mut c = Cluster::new(7, Topology::default());
    let bad = BACKUPS
        .replace("name: backups.example.com", "name: backup.example.com")
        .replace("scope: Namespaced", "scope: Global")
        .replace("storage: true", "storage: false");
    let e = c
        .create(decode_manifests(&bad).unwrap().remove(0))
        .unwrap_err();
    assert_eq!(
        e.message,
        "CustomResourceDefinition.apiextensions.k8s.io \"backup.example.com\" is invalid: [metadata.name: Invalid value: \"backup.example.com\": must be spec.names.plural+\".\"+spec.group, spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\", spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{...}: must have exactly one version marked as storage version]"
    );
    assert!(c.list(Kind::CustomResourceDefinition, None).is_empty());
}

#[test]
fn custom_objects_are_pruned_defaulted_and_validated() {
    let mut c = cluster_with_backups();
    let created = c
        .create(backup("  schedule: \"0 1 * * *\"\n  colour: blue\n"))
        .unwrap();
    let j = created.to_json();
    assert_eq!(j["spec"]["keep"], 7, "the default is applied");
    assert!(
        j["spec"].get("colour").is_none(),
        "unknown fields are pruned"
    );
    assert_eq!(j["metadata"]["generation"], 1);

    let e = c
        .create(backup("  schedule: 1\n  keep: 40\n  target: tapes\n").clone())
        .unwrap_err();
    assert_eq!(
        e.message,
        "Backup.example.com \"nightly\" is invalid: [spec.keep: Invalid value: 40: spec.keep in body should be less than or equal to 30, spec.schedule: Invalid value: \"integer\": spec.schedule in body must be of type string: \"integer\", spec.target: Unsupported value: \"tapes\": supported values: \"database\", \"files\"]"
    );
    let mut missing = backup("  keep: 3\n");
    missing.meta_mut().name = Some("other".into());
    let e = c.create(missing).unwrap_err();
    assert_eq!(
        e.message,
        "Backup.example.com \"other\" is invalid: spec.schedule: Required value"
    );
}

#[test]
fn a_users_write_keeps_the_status_and_only_spec_changes_bump_the_generation() {
    let mut c = cluster_with_backups();
    c.create(backup("  schedule: daily\n")).unwrap();
    let kind = c.resolve_kind("backups").unwrap();
    let mut v = c.get(kind, "default", "nightly").unwrap().to_json();
    v["status"] = serde_json::json!({"phase": "Done"});
    v["metadata"]["labels"] = serde_json::json!({"a": "b"});
    let updated = c.update(Object::from_json(kind, v).unwrap()).unwrap();
    let j = updated.to_json();
    assert!(j.get("status").is_none(), "status goes through /status");
    assert_eq!(j["metadata"]["generation"], 1);
    let mut v = j.clone();
    v["spec"]["keep"] = 3.into();
    let j = c
        .update(Object::from_json(kind, v).unwrap())
        .unwrap()
        .to_json();
    assert_eq!(j["metadata"]["generation"], 2);
}

#[test]
fn deleting_a_definition_deletes_its_objects_then_itself() {
    let mut c = cluster_with_backups();
    c.create(backup("  schedule: daily\n")).unwrap();
    let kind = c.resolve_kind("backups").unwrap();
    let marked = c
        .delete(Kind::CustomResourceDefinition, "", "backups.example.com")
        .unwrap();
    let j = marked.to_json();
    assert_eq!(
        j["metadata"]["finalizers"],
        serde_json::json!([crd::CLEANUP_FINALIZER])
    );
    let terminating = j["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "Terminating")
        .unwrap()
        .clone();
    assert_eq!(terminating["reason"], "InstanceDeletionPending");
    c.advance(SimDuration::secs(2));
    assert!(c.list(kind, None).is_empty());
    assert!(c.list(Kind::CustomResourceDefinition, None).is_empty());
    assert!(c.resolve_kind("backups").is_none());
    let e = c.create(backup("  schedule: daily\n")).unwrap_err();
    assert_eq!(
        e.message,
        "the server could not find the requested resource"
    );
}

#[test]
fn a_snapshot_restores_definitions_and_their_objects_byte_for_byte() {
    let mut c = cluster_with_backups();
    c.create(backup("  schedule: daily\n")).unwrap();
    let bytes = c.snapshot();
    let restored = Cluster::restore(&bytes).unwrap();
    assert_eq!(restored.snapshot(), bytes);
    let kind = restored.resolve_kind("bk").unwrap();
    assert_eq!(restored.list(kind, Some("default")).len(), 1);
}

#[test]
fn a_namespace_deletion_takes_its_custom_objects() {
    let mut c = cluster_with_backups();
    c.create(
        decode_manifests("apiVersion: v1\nkind: Namespace\nmetadata: {name: ops}\n")
            .unwrap()
            .remove(0),
    )
    .unwrap();
    let mut b = backup("  schedule: daily\n");
    b.meta_mut().namespace = Some("ops".into());
    c.create(b).unwrap();
    c.delete(Kind::Namespace, "", "ops").unwrap();
    c.advance(SimDuration::secs(10));
    let kind = c.resolve_kind("backups").unwrap();
    assert!(c.list(kind, None).is_empty());
    assert!(c.get(Kind::Namespace, "", "ops").is_err());
}

#[test]
fn an_established_definition_keeps_its_scope_and_kind() {
    let mut c = cluster_with_backups();
    let mut v = definition(&c);
    v["spec"]["scope"] = "Cluster".into();
    v["spec"]["names"]["shortNames"] = serde_json::json!(["bk", "bks"]);
    let e = c
        .update(Object::from_json(Kind::CustomResourceDefinition, v).unwrap())
        .unwrap_err();
    assert_eq!(
        e.message,
        "CustomResourceDefinition.apiextensions.k8s.io \"backups.example.com\" is invalid: spec.scope: Invalid value: \"Cluster\": field is immutable"
    );
    // A new short name is accepted, and the kind (and its objects) stay the same.
    c.create(backup("  schedule: daily\n")).unwrap();
    let kind = c.resolve_kind("bk").unwrap();
    let mut v = definition(&c);
    v["spec"]["names"]["shortNames"] = serde_json::json!(["bk", "bks"]);
    c.update(Object::from_json(Kind::CustomResourceDefinition, v).unwrap())
        .unwrap();
    c.advance(SimDuration::secs(1));
    assert_eq!(c.resolve_kind("bks"), Some(kind));
    assert_eq!(c.list(kind, None).len(), 1);
}
