//! A StatefulSet as kubectl's helpers read and change it. The kind is kept as JSON
//! (`Object::Other`, upstream apps/v1 shape), so `describe`, `rollout`, `scale` and
//! `set` read its spec and status here, with the defaults the apiserver filled in
//! (`SetDefaults_StatefulSet`, in the simulation's `controllers/statefulset.rs`).

use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use warehouse_sim::controllers::selector_matches;
use warehouse_sim::{Kind, Object};

/// The annotation `rollout history` prints as a revision's CHANGE-CAUSE.
pub(crate) const CHANGE_CAUSE: &str = "kubernetes.io/change-cause";

/// The object's JSON with the defaults the apiserver fills in (the simulation's
/// `SetDefaults_StatefulSet`), so an object built by hand reads as one served.
pub(crate) fn defaulted(obj: &Object) -> Value {
    match obj {
        Object::Other(o) => {
            let mut o = o.clone();
            warehouse_sim::controllers::statefulset::default_stateful_set(&mut o);
            Object::Other(o).to_json()
        }
        _ => obj.to_json(),
    }
}

fn at<'a>(v: &'a Value, path: &[&str]) -> &'a Value {
    let mut cur = v;
    for part in path {
        cur = cur.get(part).unwrap_or(&Value::Null);
    }
    cur
}

/// A number as Go's typed decoder reads it: absent (or not a number) is zero.
fn int(v: &Value, path: &[&str]) -> i64 {
    at(v, path).as_i64().unwrap_or(0)
}

fn text<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    at(v, path).as_str().unwrap_or("")
}

/// `StatefulSetStatusViewer.Status` (polymorphichelpers/rollout_status.go) over a
/// [`defaulted`] StatefulSet: the line `rollout status` prints and whether the
/// rollout is done, or the error it stops with.
pub(crate) fn status_line(v: &Value) -> Result<(String, bool), String> {
    if text(v, &["spec", "updateStrategy", "type"]) != "RollingUpdate" {
        return Err(
            "error: rollout status is only available for RollingUpdate strategy type".into(),
        );
    }
    let observed = int(v, &["status", "observedGeneration"]);
    if observed == 0 || int(v, &["metadata", "generation"]) > observed {
        return Ok((
            "Waiting for statefulset spec update to be observed...".into(),
            false,
        ));
    }
    let replicas = at(v, &["spec", "replicas"]).as_i64();
    let ready = int(v, &["status", "readyReplicas"]);
    let updated = int(v, &["status", "updatedReplicas"]);
    if let Some(want) = replicas.filter(|want| ready < *want) {
        return Ok((
            format!("Waiting for {} pods to be ready...", want - ready),
            false,
        ));
    }
    let rolling = at(v, &["spec", "updateStrategy", "rollingUpdate"]);
    if rolling.is_object() {
        let partition = at(rolling, &["partition"]).as_i64();
        if let (Some(want), Some(partition)) = (replicas, partition) {
            if updated < want - partition {
                return Ok((
                    format!(
                        "Waiting for partitioned roll out to finish: {updated} out of {} new pods have been updated...",
                        want - partition
                    ),
                    false,
                ));
            }
        }
        return Ok((
            format!("partitioned roll out complete: {updated} new pods have been updated..."),
            true,
        ));
    }
    let update_revision = text(v, &["status", "updateRevision"]);
    let current_revision = text(v, &["status", "currentRevision"]);
    if update_revision != current_revision {
        return Ok((
            format!("waiting for statefulset rolling update to complete {updated} pods at revision {update_revision}..."),
            false,
        ));
    }
    Ok((
        format!(
            "statefulset rolling update complete {} pods at revision {current_revision}...",
            int(v, &["status", "currentReplicas"])
        ),
        true,
    ))
}

/// `spec.replicas` as the scale subresource reports it (1 when unset, the default).
pub(crate) fn replicas(obj: &Object) -> i64 {
    int(&defaulted(obj), &["spec", "replicas"])
}

/// The object with `spec.replicas` set, as a write through the scale subresource
/// leaves it.
pub(crate) fn with_replicas(obj: &Object, replicas: i32) -> Result<Object, String> {
    let mut v = obj.to_json();
    match v.get_mut("spec").and_then(Value::as_object_mut) {
        Some(spec) => {
            spec.insert("replicas".into(), json!(replicas));
        }
        None => v["spec"] = json!({ "replicas": replicas }),
    }
    Object::from_json(Kind::StatefulSet, v).map_err(|e| format!("error: {e}"))
}

/// The pod template, typed (read through the simulation's one typed decoder, with
/// a ReplicaSet around it: the kind has no typed form of its own).
pub(crate) fn template(obj: &Object) -> Result<PodTemplateSpec, String> {
    typed_template(obj.to_json()["spec"]["template"].clone())
}

/// A pod template's JSON, typed through a ReplicaSet carrier (see [`template`]).
pub(crate) fn typed_template(template: Value) -> Result<PodTemplateSpec, String> {
    let carrier = json!({
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {},
        "spec": { "selector": {}, "template": template },
    });
    match Object::from_json(Kind::ReplicaSet, carrier) {
        Ok(Object::ReplicaSet(rs)) => Ok(rs.spec.template.unwrap_or_default()),
        Ok(_) => Ok(PodTemplateSpec::default()),
        Err(e) => Err(format!("error: {e}")),
    }
}

/// `spec.selector`, typed the same way; `None` when it does not decode.
fn selector(obj: &Object) -> Option<LabelSelector> {
    let carrier = json!({
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {},
        "spec": { "selector": obj.to_json()["spec"]["selector"].clone() },
    });
    match Object::from_json(Kind::ReplicaSet, carrier) {
        Ok(Object::ReplicaSet(rs)) => Some(rs.spec.selector),
        _ => None,
    }
}

/// One of a StatefulSet's ControllerRevisions as kubectl's helpers read it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Revision {
    pub name: String,
    pub revision: i64,
    /// The `kubernetes.io/change-cause` annotation, when set and not empty.
    pub change_cause: Option<String>,
    /// `data`: the patch the controller recorded (`{"spec":{"template":…}}`).
    pub data: Value,
}

/// `statefulSetHistory` (`controlledHistoryV1`): of `revisions` (the
/// ControllerRevisions of the set's namespace), those its selector selects and
/// that it controls, by revision number (then name).
pub(crate) fn history<'a>(
    set: &Object,
    revisions: impl Iterator<Item = &'a Object>,
) -> Vec<Revision> {
    let uid = set.meta().uid.clone().unwrap_or_default();
    let selector = selector(set);
    let none = BTreeMap::new();
    let mut found: Vec<Revision> = revisions
        .filter_map(|o| match o {
            Object::Other(r) if r.kind == Kind::ControllerRevision => Some(r),
            _ => None,
        })
        .filter(|r| {
            let labels = r.metadata.labels.as_ref().unwrap_or(&none);
            selector
                .as_ref()
                .is_some_and(|s| selector_matches(s, labels))
        })
        .filter(|r| {
            r.metadata
                .owner_references
                .iter()
                .flatten()
                .any(|o| o.controller == Some(true) && !uid.is_empty() && o.uid == uid)
        })
        .map(|r| Revision {
            name: r.metadata.name.clone().unwrap_or_default(),
            revision: r
                .fields
                .get("revision")
                .and_then(Value::as_i64)
                .unwrap_or(0),
            change_cause: r
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(CHANGE_CAUSE))
                .filter(|c| !c.is_empty())
                .cloned(),
            data: r.fields.get("data").cloned().unwrap_or(Value::Null),
        })
        .collect();
    found.sort_by(|a, b| (a.revision, &a.name).cmp(&(b.revision, &b.name)));
    found
}

/// `applyStatefulSetHistory`: the set's pod template once the revision's patch is
/// applied. The patch replaces `spec.template` (`$patch: replace`), so that is the
/// revision's template without the directive; a patch without a template leaves
/// the set's own.
pub(crate) fn revision_template(set: &Object, revision: &Revision) -> Value {
    match revision.data.get("spec").and_then(|s| s.get("template")) {
        Some(Value::Object(t)) => {
            let mut t = t.clone();
            t.remove("$patch");
            Value::Object(t)
        }
        _ => set.to_json()["spec"]["template"].clone(),
    }
}

/// `statefulsetMatch`: whether the set's template is the one `revision` records
/// (`getStatefulSetPatch` of the set equal to the revision's data).
pub(crate) fn matches(set: &Object, revision: &Revision) -> bool {
    let mut template = set.to_json()["spec"]["template"].clone();
    if let Some(t) = template.as_object_mut() {
        t.insert("$patch".into(), json!("replace"));
    }
    json!({ "spec": { "template": template } }) == revision.data
}

/// The object with its pod template's JSON replaced by `template`, as the
/// revision's strategic merge patch leaves it.
pub(crate) fn with_template_json(obj: &Object, template: Value) -> Result<Object, String> {
    let mut v = obj.to_json();
    match v.get_mut("spec").and_then(Value::as_object_mut) {
        Some(spec) => {
            spec.insert("template".into(), template);
        }
        None => v["spec"] = json!({ "template": template }),
    }
    Object::from_json(obj.kind(), v).map_err(|e| e.to_string())
}

/// The object with its pod template replaced by `t`.
pub(crate) fn with_template(obj: &Object, t: PodTemplateSpec) -> Result<Object, String> {
    let mut rs = k8s_openapi::api::apps::v1::ReplicaSet::default();
    rs.spec.template = Some(t);
    let template = Object::ReplicaSet(Box::new(rs)).to_json()["spec"]["template"].clone();
    let mut v = obj.to_json();
    match v.get_mut("spec").and_then(Value::as_object_mut) {
        Some(spec) => {
            spec.insert("template".into(), template);
        }
        None => v["spec"] = json!({ "template": template }),
    }
    Object::from_json(Kind::StatefulSet, v).map_err(|e| format!("error: {e}"))
}

/// For tests: a session with a StatefulSet in it, and a way to give that
/// StatefulSet a status. Nothing on this side writes a StatefulSet's status (its
/// controller does, and a user's write keeps the stored one), so the status goes
/// into etcd's copy the way `etcdctl put` would: through a snapshot of the cluster,
/// edited and restored.
#[cfg(test)]
pub(crate) mod testing {
    use crate::context::NoFiles;
    use crate::Session;
    use serde_json::Value;
    use warehouse_sim::snapshot::{fnv1a64, SNAPSHOT_FORMAT, SNAPSHOT_VERSION};
    use warehouse_sim::{Cluster, Topology};

    /// A StatefulSet as the Kubernetes documentation writes one, with a partition
    /// and a claim template.
    pub(crate) const WEB: &str = "apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
  labels:
    app: nginx
spec:
  serviceName: nginx
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  updateStrategy:
    rollingUpdate:
      partition: 1
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.8
        ports:
        - containerPort: 80
          name: web
        volumeMounts:
        - name: www
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: www
      labels:
        tier: data
    spec:
      storageClassName: standard
      accessModes: [ReadWriteOnce, ReadOnlyMany]
      resources:
        requests:
          storage: 1024Mi
";

    /// A cluster at second 0 with `manifest` applied.
    pub(crate) fn session(manifest: &str) -> Session {
        let mut s = Session::new(Cluster::new(7, Topology::default()));
        let out = s.run("apply -f -", Some(manifest), &NoFiles);
        assert!(out.success(), "{}", out.combined());
        s
    }

    /// Replaces the stored status (and generation) of StatefulSet `name` in
    /// `default`.
    pub(crate) fn write_status(s: &mut Session, name: &str, generation: i64, status: Value) {
        let bytes = s.cluster.snapshot();
        let newline = bytes.iter().position(|b| *b == b'\n').unwrap();
        let mut state: Value = serde_json::from_slice(&bytes[newline + 1..]).unwrap();
        let objects = state["store"]["objects"].as_array_mut().unwrap();
        let sts = objects
            .iter_mut()
            .find(|o| {
                o["kind"] == "StatefulSet"
                    && o["metadata"]["name"] == name
                    && o["metadata"]["namespace"] == "default"
            })
            .expect("the StatefulSet is stored");
        sts["status"] = status;
        sts["metadata"]["generation"] = generation.into();
        let body = serde_json::to_vec(&state).unwrap();
        let mut edited = format!(
            "{SNAPSHOT_FORMAT} {SNAPSHOT_VERSION} fnv1a64={:016x}\n",
            fnv1a64(&body)
        )
        .into_bytes();
        edited.extend_from_slice(&body);
        s.cluster = Cluster::restore(&edited).unwrap();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sts(spec: Value, status: Value) -> Value {
        let obj = Object::from_json(
            Kind::StatefulSet,
            json!({
                "apiVersion": "apps/v1",
                "kind": "StatefulSet",
                "metadata": { "name": "web", "namespace": "default", "generation": 2 },
                "spec": spec,
                "status": status,
            }),
        )
        .unwrap();
        defaulted(&obj)
    }

    #[test]
    fn defaults_are_upstreams() {
        let v = sts(json!({}), json!({}));
        assert_eq!(v["spec"]["replicas"], 1);
        assert_eq!(v["spec"]["podManagementPolicy"], "OrderedReady");
        assert_eq!(
            v["spec"]["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 1}})
        );
        // A type given without rollingUpdate gets none.
        let v = sts(
            json!({"updateStrategy": {"type": "RollingUpdate"}}),
            json!({}),
        );
        assert_eq!(
            v["spec"]["updateStrategy"],
            json!({"type": "RollingUpdate"})
        );
        let v = sts(json!({"updateStrategy": {"type": "OnDelete"}}), json!({}));
        assert_eq!(v["spec"]["updateStrategy"], json!({"type": "OnDelete"}));
    }

    #[test]
    fn status_lines_follow_the_viewer() {
        let line = |spec: Value, status: Value| status_line(&sts(spec, status));
        assert_eq!(
            line(json!({"updateStrategy": {"type": "OnDelete"}}), json!({})).unwrap_err(),
            "error: rollout status is only available for RollingUpdate strategy type"
        );
        assert_eq!(
            line(json!({"replicas": 3}), json!({"observedGeneration": 1}))
                .unwrap()
                .0,
            "Waiting for statefulset spec update to be observed..."
        );
        assert_eq!(
            line(
                json!({"replicas": 3}),
                json!({"observedGeneration": 2, "readyReplicas": 1})
            )
            .unwrap(),
            ("Waiting for 2 pods to be ready...".to_string(), false)
        );
        let ready = json!({"observedGeneration": 2, "readyReplicas": 3, "updatedReplicas": 1,
            "currentReplicas": 2, "currentRevision": "web-a", "updateRevision": "web-b"});
        assert_eq!(
            line(
                json!({"replicas": 3, "updateStrategy": {"rollingUpdate": {"partition": 1}}}),
                ready.clone()
            )
            .unwrap(),
            (
                "Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated..."
                    .to_string(),
                false
            )
        );
        assert_eq!(
            line(
                json!({"replicas": 3, "updateStrategy": {"rollingUpdate": {"partition": 2}}}),
                ready.clone()
            )
            .unwrap(),
            (
                "partitioned roll out complete: 1 new pods have been updated...".to_string(),
                true
            )
        );
        let explicit = json!({"replicas": 3, "updateStrategy": {"type": "RollingUpdate"}});
        assert_eq!(
            line(explicit.clone(), ready).unwrap(),
            (
                "waiting for statefulset rolling update to complete 1 pods at revision web-b..."
                    .to_string(),
                false
            )
        );
        let done = json!({"observedGeneration": 2, "readyReplicas": 3, "updatedReplicas": 3,
            "currentReplicas": 3, "currentRevision": "web-b", "updateRevision": "web-b"});
        assert_eq!(
            line(explicit, done).unwrap(),
            (
                "statefulset rolling update complete 3 pods at revision web-b...".to_string(),
                true
            )
        );
    }

    #[test]
    fn a_written_status_reads_back() {
        let mut s = testing::session(testing::WEB);
        testing::write_status(
            &mut s,
            "web",
            2,
            json!({"replicas": 2, "observedGeneration": 2}),
        );
        let obj = s.cluster.get(Kind::StatefulSet, "default", "web").unwrap();
        let v = defaulted(&obj);
        assert_eq!(v["status"]["replicas"], 2);
        assert_eq!(v["metadata"]["generation"], 2);
    }

    #[test]
    fn a_template_goes_back_as_it_came() {
        let obj = Object::from_json(
            Kind::StatefulSet,
            json!({
                "apiVersion": "apps/v1",
                "kind": "StatefulSet",
                "metadata": { "name": "web", "namespace": "default" },
                "spec": {
                    "selector": {"matchLabels": {"app": "web"}},
                    "serviceName": "web",
                    "template": {
                        "metadata": {"labels": {"app": "web"}},
                        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25"}]}
                    }
                },
            }),
        )
        .unwrap();
        let t = template(&obj).unwrap();
        assert_eq!(
            t.spec.as_ref().unwrap().containers[0].image.as_deref(),
            Some("nginx:1.25")
        );
        assert_eq!(with_template(&obj, t).unwrap(), obj);
        assert_eq!(replicas(&obj), 1);
        assert_eq!(
            with_replicas(&obj, 4).unwrap().to_json()["spec"]["replicas"],
            4
        );
    }
}
