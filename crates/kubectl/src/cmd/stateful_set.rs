//! A StatefulSet as kubectl's helpers read it. The kind is kept as JSON
//! (`Object::Other`, upstream apps/v1 shape), so `describe` reads its spec and
//! status here: [`defaulted`] fills what the apiserver's
//! `SetDefaults_StatefulSet` (pkg/apis/apps/v1/defaults.go, 1.37 with the
//! MaxUnavailableStatefulSet gate on by default) fills, so an object stored without
//! those defaults reads as a real cluster serves it.

use serde_json::{json, Map, Value};
use warehouse_sim::Object;

/// The object's JSON with upstream's defaults filled in.
pub(crate) fn defaulted(obj: &Object) -> Value {
    let mut v = obj.to_json();
    if let Some(spec) = v.get_mut("spec").and_then(Value::as_object_mut) {
        default_spec(spec);
    }
    v
}

/// `SetDefaults_StatefulSet` over the spec's JSON.
fn default_spec(spec: &mut Map<String, Value>) {
    if spec
        .get("podManagementPolicy")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        spec.insert("podManagementPolicy".into(), json!("OrderedReady"));
    }
    let strategy = spec.entry("updateStrategy").or_insert(Value::Null);
    if strategy.is_null() {
        *strategy = json!({});
    }
    if let Some(strategy) = strategy.as_object_mut() {
        let typed = strategy
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| !t.is_empty());
        if !typed {
            strategy.insert("type".into(), json!("RollingUpdate"));
            if strategy.get("rollingUpdate").is_none_or(Value::is_null) {
                strategy.insert("rollingUpdate".into(), json!({}));
            }
        }
        let rolling = strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate");
        if let Some(ru) = strategy
            .get_mut("rollingUpdate")
            .and_then(Value::as_object_mut)
            .filter(|_| rolling)
        {
            fill(ru, "partition", json!(0));
            fill(ru, "maxUnavailable", json!(1));
        }
    }
    let policy = spec
        .entry("persistentVolumeClaimRetentionPolicy")
        .or_insert(Value::Null);
    if policy.is_null() {
        *policy = json!({});
    }
    if let Some(policy) = policy.as_object_mut() {
        fill(policy, "whenDeleted", json!("Retain"));
        fill(policy, "whenScaled", json!("Retain"));
    }
    fill(spec, "replicas", json!(1));
    fill(spec, "revisionHistoryLimit", json!(10));
}

/// Sets `field` when it is absent or null (a nil pointer to Go's decoder).
fn fill(map: &mut Map<String, Value>, field: &str, value: Value) {
    let slot = map.entry(field).or_insert(Value::Null);
    if slot.is_null() {
        *slot = value;
    }
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
    use warehouse_sim::Kind;

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
}
