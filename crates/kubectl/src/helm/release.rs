//! Releases and where they live: each revision is a Secret
//! `sh.helm.release.v1.NAME.vN` of type `helm.sh/release.v1` in the release's
//! namespace, labelled `name`, `owner=helm`, `status`, `version` and `createdAt`
//! (`modifiedAt` once updated), as Helm's default storage driver writes it
//! (`pkg/storage/driver/secrets.go`, `util.go`). The payload under `data.release`
//! is this simulator's own encoding: base64 of the release as JSON (Helm's is
//! base64 of gzipped JSON of its protobuf-shaped struct).
//!
//! Rendering: the chart's templates (not `_`-prefixed partials, not `NOTES.txt`)
//! each rendered, split on `---`, empty documents dropped, and sorted by
//! `InstallOrder` (`pkg/release/util/kind_sorter.go`), each written as
//! `---\n# Source: CHART/templates/FILE\n...` (`pkg/action/action.go`).

use super::charts::Chart;
use crate::printers::gotemplate::{base64_decode, base64_encode, TemplateSet};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use warehouse_sim::{Kind, Object, SimTime};

/// One revision of a release.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct Release {
    pub name: String,
    pub namespace: String,
    pub version: i64,
    pub chart: String,
    pub chart_version: String,
    pub app_version: String,
    /// The values the user gave (`helm get values`).
    pub config: Value,
    pub manifest: String,
    pub notes: String,
    pub status: String,
    pub description: String,
    pub first_deployed: SimTime,
    pub last_deployed: SimTime,
}

impl Release {
    pub fn secret_name(&self) -> String {
        format!("sh.helm.release.v1.{}.v{}", self.name, self.version)
    }

    /// The Secret that stores it. `created` is the `createdAt` label's instant;
    /// `modified` adds `modifiedAt`.
    pub fn to_secret(&self, created: SimTime, modified: Option<SimTime>) -> Object {
        let payload = serde_json::to_string(self).unwrap_or_default();
        let encoded = base64_encode(payload.as_bytes());
        let unix = |t: SimTime| (t.to_k8s().0.as_second()).to_string();
        let mut labels = json!({
            "createdAt": unix(created),
            "name": self.name,
            "owner": "helm",
            "status": self.status,
            "version": self.version.to_string(),
        });
        if let Some(m) = modified {
            labels["modifiedAt"] = Value::String(unix(m));
        }
        let value = json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {
                "name": self.secret_name(),
                "namespace": self.namespace,
                "labels": labels,
            },
            "type": "helm.sh/release.v1",
            "data": { "release": base64_encode(encoded.as_bytes()) },
        });
        Object::from_json(Kind::Secret, value).expect("a release Secret decodes")
    }

    /// The release a storage Secret holds (`None` for any other Secret).
    pub fn from_secret(obj: &Object) -> Option<Release> {
        let value = obj.to_json();
        if value.get("type").and_then(Value::as_str) != Some("helm.sh/release.v1") {
            return None;
        }
        let outer = value.pointer("/data/release")?.as_str()?;
        let inner = base64_decode(outer)?;
        let json = base64_decode(&inner)?;
        serde_json::from_str(&json).ok()
    }
}

/// Every revision of every release in `namespace` (all namespaces when `None`),
/// sorted by namespace, name and revision.
pub(crate) fn all(cluster: &warehouse_sim::Cluster, namespace: Option<&str>) -> Vec<Release> {
    let mut out: Vec<Release> = cluster
        .list_refs(Kind::Secret, namespace)
        .filter(|o| {
            o.meta()
                .labels
                .as_ref()
                .is_some_and(|l| l.get("owner").map(String::as_str) == Some("helm"))
        })
        .filter_map(Release::from_secret)
        .collect();
    out.sort_by(|a, b| (&a.namespace, &a.name, a.version).cmp(&(&b.namespace, &b.name, b.version)));
    out
}

/// The revisions of one release, oldest first.
pub(crate) fn history(
    cluster: &warehouse_sim::Cluster,
    namespace: &str,
    name: &str,
) -> Vec<Release> {
    all(cluster, Some(namespace))
        .into_iter()
        .filter(|r| r.name == name)
        .collect()
}

/// What rendering a chart gives: the manifest and the notes.
pub(crate) struct Rendered {
    pub manifest: String,
    pub notes: String,
}

/// Helm's `InstallOrder`.
pub(crate) const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

/// A kind's place in `InstallOrder` (unknown kinds last, by name: `lessByKind`).
pub(crate) fn install_rank(kind: &str) -> (usize, String) {
    match INSTALL_ORDER.iter().position(|k| *k == kind) {
        Some(i) => (i, String::new()),
        None => (INSTALL_ORDER.len(), kind.to_string()),
    }
}

/// Renders `chart` for a release; errors read as Helm's engine's.
pub(crate) fn render(
    chart: &Chart,
    values: &Value,
    release: &str,
    namespace: &str,
    revision: i64,
    upgrade: bool,
) -> Result<Rendered, String> {
    let files: Vec<(String, String)> = chart
        .files
        .iter()
        .filter(|(p, _)| p.starts_with("templates/"))
        .map(|(p, t)| (format!("{}/{p}", chart.name), t.to_string()))
        .collect();
    let set = TemplateSet::parse(&files)?;
    let meta = chart.metadata();
    let mut chart_data = serde_json::Map::new();
    for (k, v) in meta.as_object().into_iter().flatten() {
        // Go's chart.Metadata fields are exported: `.Chart.Name`, `.Chart.AppVersion`.
        let mut key = k.clone();
        if let Some(first) = key.get(..1) {
            key = format!("{}{}", first.to_uppercase(), &key[1..]);
        }
        if key == "ApiVersion" {
            key = "APIVersion".into();
        }
        chart_data.insert(key, v.clone());
    }
    let mut docs: Vec<(String, String)> = Vec::new();
    let mut notes = String::new();
    for (name, _) in &files {
        let base = name.rsplit('/').next().unwrap_or("");
        if base.starts_with('_') {
            continue;
        }
        let data = json!({
            "Values": values,
            "Release": {
                "Name": release,
                "Namespace": namespace,
                "Revision": revision,
                "IsInstall": !upgrade,
                "IsUpgrade": upgrade,
                "Service": "Helm",
            },
            "Chart": Value::Object(chart_data.clone()),
            "Capabilities": {
                "KubeVersion": { "Version": warehouse_sim::KUBERNETES_VERSION },
            },
            "Template": { "Name": name, "BasePath": format!("{}/templates", chart.name) },
        });
        let text = set.render(name, &data)?;
        if base == "NOTES.txt" {
            notes = text;
            continue;
        }
        for doc in split_documents(&text) {
            docs.push((name.clone(), doc));
        }
    }
    let kind_of = |doc: &str| -> String {
        serde_yaml::from_str::<Value>(doc)
            .ok()
            .and_then(|v| v.get("kind").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default()
    };
    let mut ranked: Vec<((usize, String), (String, String))> = docs
        .into_iter()
        .map(|d| (install_rank(&kind_of(&d.1)), d))
        .collect();
    ranked.sort_by(|a, b| a.0.cmp(&b.0));
    let mut manifest = String::new();
    for (_, (source, content)) in ranked {
        manifest.push_str(&format!("---\n# Source: {source}\n{content}\n"));
    }
    Ok(Rendered { manifest, notes })
}

/// releaseutil.SplitManifests: documents between `---` lines, trimmed, empty ones
/// dropped.
fn split_documents(text: &str) -> Vec<String> {
    let mut docs = Vec::new();
    let mut cur = String::new();
    for line in text.lines() {
        if line.trim_end() == "---" || line.starts_with("--- ") {
            docs.push(std::mem::take(&mut cur));
            continue;
        }
        cur.push_str(line);
        cur.push('\n');
    }
    docs.push(cur);
    docs.into_iter()
        .map(|d| d.trim().to_string())
        .filter(|d| !d.is_empty() && !only_comments(d))
        .collect()
}

fn only_comments(doc: &str) -> bool {
    doc.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#')
    })
}
