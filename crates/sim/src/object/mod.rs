//! The object model: real Kubernetes types from `k8s-openapi`, wrapped in one enum so
//! the store can hold every kind the simulated apiserver serves.
//!
//! Kinds come in two sorts. Typed kinds ([`Object`]'s named variants) are decoded into
//! their k8s-openapi struct and read by the simulation. Stored-only kinds
//! ([`Object::Other`]) are validated against their k8s-openapi struct, then kept as
//! JSON: the apiserver serves them, nothing in the simulation acts on them.
//!
//! This file's tables are the apiserver's discovery data (`kubectl api-resources`).

use k8s_openapi::api;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::fmt;

pub mod crd;
pub(crate) mod decode;
pub mod manifest;
pub mod quantity;
mod schema;
#[rustfmt::skip]
mod schema_data;

/// Declares `Kind` with one unit variant per built-in kind, [`Kind::ALL`] and each
/// built-in kind's row in `INFO`.
macro_rules! builtin_kinds {
    ($($name:ident),* $(,)?) => {
        /// Every kind the simulated apiserver serves: the built-in kinds, in discovery
        /// order, then the kinds CustomResourceDefinitions add ([`Kind::Custom`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Kind {
            $($name,)*
            /// A kind served because a CustomResourceDefinition is Established. Its
            /// discovery data is interned for the process ([`intern_custom`]): equal
            /// data is one kind, and kinds compare by their data, never by when they
            /// were interned, so no process-local order reaches the output.
            Custom(&'static KindInfo),
        }

        #[allow(clippy::upper_case_acronyms)]
        enum BuiltinIndex {
            $($name,)*
            Count,
        }

        impl Kind {
            /// The built-in kinds, in declaration order.
            pub const ALL: [Kind; BuiltinIndex::Count as usize] = [$(Kind::$name),*];

            /// The row of a built-in kind in `INFO`.
            pub(crate) fn builtin_index(self) -> Option<usize> {
                match self {
                    $(Kind::$name => Some(BuiltinIndex::$name as usize),)*
                    Kind::Custom(_) => None,
                }
            }
        }
    };
}

builtin_kinds!(
    Namespace,
    Node,
    Pod,
    ReplicaSet,
    Deployment,
    DaemonSet,
    Job,
    Service,
    Endpoints,
    EndpointSlice,
    Ingress,
    IngressClass,
    ConfigMap,
    Secret,
    ServiceAccount,
    Role,
    ClusterRole,
    RoleBinding,
    ClusterRoleBinding,
    LimitRange,
    ResourceQuota,
    Lease,
    Event,
    StatefulSet,
    CronJob,
    HorizontalPodAutoscaler,
    PersistentVolumeClaim,
    PersistentVolume,
    NetworkPolicy,
    ReplicationController,
    PodDisruptionBudget,
    StorageClass,
    PriorityClass,
    ControllerRevision,
    CustomResourceDefinition,
);

/// Discovery data for one kind, as `kubectl api-resources` shows it.
#[derive(Debug)]
pub struct KindInfo {
    pub kind: &'static str,
    pub plural: &'static str,
    pub singular: &'static str,
    pub short_names: &'static [&'static str],
    pub group: &'static str,
    /// Served versions, preferred first.
    pub versions: &'static [&'static str],
    pub namespaced: bool,
    /// Whether the simulation acts on objects of this kind. Objects of other kinds are
    /// stored and served, and the apiserver warns that nothing runs them.
    pub simulated: bool,
}

/// A kind is its group, kind, plural and scope, what a definition may not change
/// once it is Established: a custom kind whose definition gains a short name, a
/// singular or a version is still the same kind, its objects where they were.
impl KindInfo {
    fn identity(&self) -> (&str, &str, &str, bool) {
        (self.group, self.kind, self.plural, self.namespaced)
    }
}

impl PartialEq for KindInfo {
    fn eq(&self, other: &Self) -> bool {
        self.identity() == other.identity()
    }
}

impl Eq for KindInfo {}

impl PartialOrd for KindInfo {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for KindInfo {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.identity().cmp(&other.identity())
    }
}

impl std::hash::Hash for KindInfo {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.identity().hash(state)
    }
}

impl KindInfo {
    /// A namespaced kind the simulation acts on.
    const fn new(
        kind: &'static str,
        plural: &'static str,
        singular: &'static str,
        short_names: &'static [&'static str],
        group: &'static str,
        versions: &'static [&'static str],
    ) -> KindInfo {
        KindInfo {
            kind,
            plural,
            singular,
            short_names,
            group,
            versions,
            namespaced: true,
            simulated: true,
        }
    }

    const fn cluster_scoped(self) -> KindInfo {
        KindInfo {
            namespaced: false,
            ..self
        }
    }

    /// Stored and served, but nothing in the simulation acts on it.
    const fn stored_only(self) -> KindInfo {
        KindInfo {
            simulated: false,
            ..self
        }
    }
}

/// Every kind's discovery data, in the order `Kind` declares them.
#[rustfmt::skip]
static INFO: [KindInfo; Kind::ALL.len()] = [
    KindInfo::new("Namespace", "namespaces", "namespace", &["ns"], "", &["v1"]).cluster_scoped(),
    KindInfo::new("Node", "nodes", "node", &["no"], "", &["v1"]).cluster_scoped(),
    KindInfo::new("Pod", "pods", "pod", &["po"], "", &["v1"]),
    KindInfo::new("ReplicaSet", "replicasets", "replicaset", &["rs"], "apps", &["v1"]),
    KindInfo::new("Deployment", "deployments", "deployment", &["deploy"], "apps", &["v1"]),
    KindInfo::new("DaemonSet", "daemonsets", "daemonset", &["ds"], "apps", &["v1"]),
    KindInfo::new("Job", "jobs", "job", &[], "batch", &["v1"]),
    KindInfo::new("Service", "services", "service", &["svc"], "", &["v1"]),
    KindInfo::new("Endpoints", "endpoints", "endpoints", &["ep"], "", &["v1"]),
    KindInfo::new("EndpointSlice", "endpointslices", "endpointslice", &[], "discovery.k8s.io", &["v1"]),
    KindInfo::new("Ingress", "ingresses", "ingress", &["ing"], "networking.k8s.io", &["v1"]),
    KindInfo::new("IngressClass", "ingressclasses", "ingressclass", &[], "networking.k8s.io", &["v1"]).cluster_scoped(),
    KindInfo::new("ConfigMap", "configmaps", "configmap", &["cm"], "", &["v1"]),
    KindInfo::new("Secret", "secrets", "secret", &[], "", &["v1"]),
    KindInfo::new("ServiceAccount", "serviceaccounts", "serviceaccount", &["sa"], "", &["v1"]),
    KindInfo::new("Role", "roles", "role", &[], "rbac.authorization.k8s.io", &["v1"]),
    KindInfo::new("ClusterRole", "clusterroles", "clusterrole", &[], "rbac.authorization.k8s.io", &["v1"]).cluster_scoped(),
    KindInfo::new("RoleBinding", "rolebindings", "rolebinding", &[], "rbac.authorization.k8s.io", &["v1"]),
    KindInfo::new("ClusterRoleBinding", "clusterrolebindings", "clusterrolebinding", &[], "rbac.authorization.k8s.io", &["v1"]).cluster_scoped(),
    KindInfo::new("LimitRange", "limitranges", "limitrange", &["limits"], "", &["v1"]),
    KindInfo::new("ResourceQuota", "resourcequotas", "resourcequota", &["quota"], "", &["v1"]),
    KindInfo::new("Lease", "leases", "lease", &[], "coordination.k8s.io", &["v1"]),
    KindInfo::new("Event", "events", "event", &["ev"], "", &["v1"]),
    KindInfo::new("StatefulSet", "statefulsets", "statefulset", &["sts"], "apps", &["v1"]),
    KindInfo::new("CronJob", "cronjobs", "cronjob", &["cj"], "batch", &["v1"]),
    KindInfo::new("HorizontalPodAutoscaler", "horizontalpodautoscalers", "horizontalpodautoscaler", &["hpa"], "autoscaling", &["v2", "v1"]),
    KindInfo::new("PersistentVolumeClaim", "persistentvolumeclaims", "persistentvolumeclaim", &["pvc"], "", &["v1"]),
    KindInfo::new("PersistentVolume", "persistentvolumes", "persistentvolume", &["pv"], "", &["v1"]).cluster_scoped(),
    KindInfo::new("NetworkPolicy", "networkpolicies", "networkpolicy", &["netpol"], "networking.k8s.io", &["v1"]),
    KindInfo::new("ReplicationController", "replicationcontrollers", "replicationcontroller", &["rc"], "", &["v1"]).stored_only(),
    KindInfo::new("PodDisruptionBudget", "poddisruptionbudgets", "poddisruptionbudget", &["pdb"], "policy", &["v1"]),
    KindInfo::new("StorageClass", "storageclasses", "storageclass", &["sc"], "storage.k8s.io", &["v1"]).cluster_scoped(),
    KindInfo::new("PriorityClass", "priorityclasses", "priorityclass", &["pc"], "scheduling.k8s.io", &["v1"]).cluster_scoped(),
    KindInfo::new("ControllerRevision", "controllerrevisions", "controllerrevision", &[], "apps", &["v1"]),
    KindInfo::new("CustomResourceDefinition", "customresourcedefinitions", "customresourcedefinition", &["crd", "crds"], "apiextensions.k8s.io", &["v1"]).cluster_scoped(),
];

impl Kind {
    /// Discovery data (`INFO` holds one row per kind, in declaration order).
    pub fn info(self) -> &'static KindInfo {
        match self {
            Kind::Custom(info) => info,
            builtin => &INFO[builtin.builtin_index().unwrap_or_default()],
        }
    }

    pub fn as_str(self) -> &'static str {
        self.info().kind
    }
    pub fn plural(self) -> &'static str {
        self.info().plural
    }
    pub fn group(self) -> &'static str {
        self.info().group
    }
    pub fn namespaced(self) -> bool {
        self.info().namespaced
    }
    /// Whether the simulation acts on this kind (see [`KindInfo::simulated`]).
    pub fn simulated(self) -> bool {
        self.info().simulated
    }
    /// The preferred `apiVersion`.
    pub fn api_version(self) -> String {
        let info = self.info();
        if info.group.is_empty() {
            info.versions[0].to_string()
        } else {
            format!("{}/{}", info.group, info.versions[0])
        }
    }
    /// Whether `api_version` is one this kind is served at.
    pub fn serves(self, api_version: &str) -> bool {
        let info = self.info();
        info.versions.iter().any(|v| {
            if info.group.is_empty() {
                api_version == *v
            } else {
                api_version.split_once('/') == Some((info.group, v))
            }
        })
    }
    /// `pods`, `deployments.apps`: the resource as error messages name it.
    pub fn qualified_plural(self) -> String {
        let info = self.info();
        if info.group.is_empty() {
            info.plural.to_string()
        } else {
            format!("{}.{}", info.plural, info.group)
        }
    }
    /// `pod`, `deployment.apps`: the prefix kubectl prints in `deployment.apps/web created`.
    pub fn qualified_singular(self) -> String {
        let info = self.info();
        if info.group.is_empty() {
            info.singular.to_string()
        } else {
            format!("{}.{}", info.singular, info.group)
        }
    }

    /// Resolves what a user types for a resource type, as discovery does: plural,
    /// singular, short name or kind, optionally qualified by group (`deployments.apps`)
    /// or by version and group (`deployments.v1.apps`).
    pub fn lookup(name: &str) -> Option<Kind> {
        Kind::lookup_among(name, &Kind::ALL)
    }

    /// [`Kind::lookup`] among `kinds` (the custom kinds a cluster serves).
    pub fn lookup_among(name: &str, kinds: &[Kind]) -> Option<Kind> {
        let lower = name.to_ascii_lowercase();
        let (base, rest) = match lower.split_once('.') {
            Some((b, g)) => (b.to_string(), Some(g.to_string())),
            None => (lower.clone(), None),
        };
        kinds.iter().copied().find(|k| {
            let i = k.info();
            let name_matches = base == i.plural
                || base == i.singular
                || base == i.kind.to_ascii_lowercase()
                || i.short_names.contains(&base.as_str());
            let group_matches = match &rest {
                None => true,
                Some(g) => {
                    let group = match g.split_once('.') {
                        Some((v, g)) if i.versions.contains(&v) => g,
                        _ => g.as_str(),
                    };
                    group == i.group
                        || (i.group.is_empty() && (group == "core" || i.versions.contains(&group)))
                }
            };
            name_matches && group_matches
        })
    }

    /// Resolves `apiVersion` + `kind` from a manifest.
    ///
    /// A custom kind resolves to the kind a CustomResourceDefinition established
    /// last in this process with that group, version and kind; the apiserver then
    /// checks that its own cluster serves it (`crd::served_kind`).
    pub fn from_type_meta(api_version: &str, kind: &str) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str() == kind && k.serves(api_version))
            .or_else(|| {
                let interned = CUSTOM_KINDS.lock().unwrap_or_else(|e| e.into_inner());
                interned
                    .iter()
                    .rev()
                    .find(|i| i.kind == kind && Kind::Custom(i).serves(api_version))
                    .map(|i| Kind::Custom(i))
            })
    }

    /// Whether `other` has this kind's group and kind name and is served at
    /// `api_version`: how a manifest's custom kind finds the one a cluster serves.
    pub fn answers_as(self, other: Kind, api_version: &str) -> bool {
        self.group() == other.group() && self.as_str() == other.as_str() && self.serves(api_version)
    }

    /// Whether this kind was added by a CustomResourceDefinition.
    pub fn is_custom(self) -> bool {
        matches!(self, Kind::Custom(_))
    }
}

/// A custom kind's discovery data, as a CustomResourceDefinition's names, group,
/// scope and served versions give it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomKindSpec {
    pub kind: String,
    pub plural: String,
    pub singular: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub short_names: Vec<String>,
    pub group: String,
    /// Served versions, preferred first.
    pub versions: Vec<String>,
    pub namespaced: bool,
}

impl CustomKindSpec {
    fn describes(&self, info: &KindInfo) -> bool {
        info.kind == self.kind
            && info.plural == self.plural
            && info.singular == self.singular
            && info.group == self.group
            && info.namespaced == self.namespaced
            && info.short_names.iter().eq(self.short_names.iter())
            && info.versions.iter().eq(self.versions.iter())
    }

    fn of(info: &KindInfo) -> CustomKindSpec {
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        CustomKindSpec {
            kind: info.kind.into(),
            plural: info.plural.into(),
            singular: info.singular.into(),
            short_names: strings(info.short_names),
            group: info.group.into(),
            versions: strings(info.versions),
            namespaced: info.namespaced,
        }
    }
}

/// The custom kinds' discovery data interned so far, the latest interned last.
/// Each distinct [`CustomKindSpec`] is leaked once, so a [`Kind`] stays `Copy`; a
/// process sees as many as the distinct definitions it is given.
static CUSTOM_KINDS: std::sync::Mutex<Vec<&'static KindInfo>> = std::sync::Mutex::new(Vec::new());

/// The [`Kind::Custom`] of `spec`, interned once per process.
pub fn intern_custom(spec: &CustomKindSpec) -> Kind {
    let mut interned = CUSTOM_KINDS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(at) = interned.iter().position(|i| spec.describes(i)) {
        // The latest established comes first for `Kind::from_type_meta`.
        let info = interned.remove(at);
        interned.push(info);
        return Kind::Custom(info);
    }
    fn leak(s: &str) -> &'static str {
        Box::leak(s.to_string().into_boxed_str())
    }
    fn leak_all(v: &[String]) -> &'static [&'static str] {
        Box::leak(
            v.iter()
                .map(|s| leak(s))
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        )
    }
    let info: &'static KindInfo = Box::leak(Box::new(KindInfo {
        kind: leak(&spec.kind),
        plural: leak(&spec.plural),
        singular: leak(&spec.singular),
        short_names: leak_all(&spec.short_names),
        group: leak(&spec.group),
        versions: leak_all(&spec.versions),
        namespaced: spec.namespaced,
        simulated: true,
    }));
    interned.push(info);
    Kind::Custom(info)
}

/// How a kind is written (snapshots, traces): a built-in kind by its name, a custom
/// kind by its whole discovery data, never by a process-local index.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
enum KindRepr {
    Builtin(String),
    Custom { custom: CustomKindSpec },
}

impl serde::Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Kind::Custom(info) => KindRepr::Custom {
                custom: CustomKindSpec::of(info),
            },
            builtin => KindRepr::Builtin(builtin.as_str().to_string()),
        }
        .serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for Kind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match KindRepr::deserialize(deserializer)? {
            KindRepr::Builtin(name) => Kind::ALL
                .into_iter()
                .find(|k| k.as_str() == name)
                .ok_or_else(|| serde::de::Error::custom(format!("unknown kind {name:?}"))),
            KindRepr::Custom { custom } => Ok(intern_custom(&custom)),
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where an object lives in the store.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct ObjectKey {
    pub kind: Kind,
    /// Empty for cluster-scoped kinds.
    pub namespace: String,
    pub name: String,
}

impl ObjectKey {
    pub fn new(kind: Kind, namespace: &str, name: &str) -> Self {
        ObjectKey {
            kind,
            namespace: if kind.namespaced() {
                namespace.to_string()
            } else {
                String::new()
            },
            name: name.to_string(),
        }
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace.is_empty() {
            write!(f, "{}/{}", self.kind.info().singular, self.name)
        } else {
            write!(
                f,
                "{}/{}/{}",
                self.kind.info().singular,
                self.namespace,
                self.name
            )
        }
    }
}

/// An object of a stored-only kind: its metadata typed, the rest kept as JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct OtherObject {
    pub kind: Kind,
    pub api_version: String,
    pub metadata: ObjectMeta,
    /// Every top-level field but `apiVersion`, `kind` and `metadata` (`spec`, `status`, ...).
    pub fields: serde_json::Map<String, serde_json::Value>,
}

/// One object of a served kind. Every variant is boxed: an `Object` is two words,
/// so an Event or a Lease does not take the room of the largest kind (a Job is
/// 2.8 KB before its strings) and moving an object copies no more than a pointer.
#[derive(Clone, Debug, PartialEq)]
pub enum Object {
    Namespace(Box<api::core::v1::Namespace>),
    Node(Box<api::core::v1::Node>),
    Pod(Box<api::core::v1::Pod>),
    ReplicaSet(Box<api::apps::v1::ReplicaSet>),
    Deployment(Box<api::apps::v1::Deployment>),
    DaemonSet(Box<api::apps::v1::DaemonSet>),
    Job(Box<api::batch::v1::Job>),
    Service(Box<api::core::v1::Service>),
    Endpoints(Box<api::core::v1::Endpoints>),
    EndpointSlice(Box<api::discovery::v1::EndpointSlice>),
    Ingress(Box<api::networking::v1::Ingress>),
    IngressClass(Box<api::networking::v1::IngressClass>),
    ConfigMap(Box<api::core::v1::ConfigMap>),
    Secret(Box<api::core::v1::Secret>),
    ServiceAccount(Box<api::core::v1::ServiceAccount>),
    Role(Box<api::rbac::v1::Role>),
    ClusterRole(Box<api::rbac::v1::ClusterRole>),
    RoleBinding(Box<api::rbac::v1::RoleBinding>),
    ClusterRoleBinding(Box<api::rbac::v1::ClusterRoleBinding>),
    LimitRange(Box<api::core::v1::LimitRange>),
    ResourceQuota(Box<api::core::v1::ResourceQuota>),
    Lease(Box<api::coordination::v1::Lease>),
    Event(Box<api::core::v1::Event>),
    Other(Box<OtherObject>),
}

macro_rules! each_typed {
    ($value:expr, $inner:ident => $body:expr, $other:ident => $other_body:expr) => {
        match $value {
            Object::Namespace($inner) => $body,
            Object::Node($inner) => $body,
            Object::Pod($inner) => $body,
            Object::ReplicaSet($inner) => $body,
            Object::Deployment($inner) => $body,
            Object::DaemonSet($inner) => $body,
            Object::Job($inner) => $body,
            Object::Service($inner) => $body,
            Object::Endpoints($inner) => $body,
            Object::EndpointSlice($inner) => $body,
            Object::Ingress($inner) => $body,
            Object::IngressClass($inner) => $body,
            Object::ConfigMap($inner) => $body,
            Object::Secret($inner) => $body,
            Object::ServiceAccount($inner) => $body,
            Object::Role($inner) => $body,
            Object::ClusterRole($inner) => $body,
            Object::RoleBinding($inner) => $body,
            Object::ClusterRoleBinding($inner) => $body,
            Object::LimitRange($inner) => $body,
            Object::ResourceQuota($inner) => $body,
            Object::Lease($inner) => $body,
            Object::Event($inner) => $body,
            Object::Other($other) => $other_body,
        }
    };
}

fn de<T: DeserializeOwned>(v: serde_json::Value) -> Result<T, String> {
    decode::from_value(v).map_err(located)
}

/// A decoding error with its path, as the apiserver words it (`.` is the top).
fn located((path, e): (String, serde_json::Error)) -> String {
    if path == "." {
        e.to_string()
    } else {
        format!("{path}: {e}")
    }
}

/// Decodes a built-in YAML manifest: read as JSON, then typed by [`de`], the
/// decoder every stored object goes through (the browser build then carries one
/// typed decoder for the k8s-openapi types, not a second one for YAML).
/// When the object was created, in Unix milliseconds (0 for never: not stored yet).
pub(crate) fn created_millis(meta: &ObjectMeta) -> i64 {
    meta.creation_timestamp
        .as_ref()
        .map(|t| t.0.as_millisecond())
        .unwrap_or(0)
}

///
/// The YAML is read into serde_yaml's own value and converted, the way a learner's
/// manifest is (`manifest.rs`), so the browser build carries one YAML reader rather
/// than a second one that builds JSON values directly. Built-in manifests have string
/// keys, no tags and finite numbers, where the two give the same value
/// (`manifests_decode_as_typed_yaml_does` in `control_plane.rs`).
pub(crate) fn from_manifest<T: DeserializeOwned>(yaml: &str) -> Result<T, String> {
    let value = serde_yaml::Value::deserialize(serde_yaml::Deserializer::from_str(yaml))
        .map_err(|e| e.to_string())?;
    de(serde_json::to_value(&value).map_err(|e| e.to_string())?)
}

/// Every k8s-openapi type is encoded by one serializer, serde_json's compact writer
/// into a `Vec<u8>` (the one `serde_json::to_vec` uses): each serializer type
/// compiles its own copy of every type's `Serialize` in the browser build. As a JSON
/// value: the bytes read back.
pub(crate) fn to_json_value<T: serde::Serialize + ?Sized>(t: &T) -> serde_json::Value {
    let bytes = serde_json::to_vec(t).expect("k8s-openapi types always serialise");
    serde_json::from_slice(&bytes).expect("serde_json reads what it writes")
}

/// An ephemeral container as the container it is (`(*Container)(&ec.
/// EphemeralContainerCommon)` upstream): every field but `targetContainerName`.
pub fn ephemeral_as_container(ec: &api::core::v1::EphemeralContainer) -> api::core::v1::Container {
    let mut v = to_json_value(ec);
    if let Some(m) = v.as_object_mut() {
        m.remove("targetContainerName");
    }
    serde_json::from_value(v).unwrap_or_else(|_| api::core::v1::Container {
        name: ec.name.clone(),
        image: ec.image.clone(),
        ..Default::default()
    })
}

/// Sets (or adds) a status condition kept as JSON (`meta.SetStatusCondition`):
/// its lastTransitionTime changes only when its status does.
pub(crate) fn set_json_condition(
    conditions: &mut Vec<serde_json::Value>,
    now: crate::time::SimTime,
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
) {
    use serde_json::Value;
    let now = to_json_value(&now.to_k8s());
    let existing = conditions
        .iter_mut()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(type_));
    let transition = match &existing {
        Some(c) if c.get("status").and_then(Value::as_str) == Some(status) => {
            c.get("lastTransitionTime").cloned().unwrap_or(now)
        }
        _ => now,
    };
    let cond = serde_json::json!({
        "type": type_,
        "status": status,
        "lastTransitionTime": transition,
        "reason": reason,
        "message": message,
    });
    match existing {
        Some(c) => *c = cond,
        None => conditions.push(cond),
    }
}

/// The length of `t`'s compact JSON, written by the same serializer as
/// [`to_json_value`] into a buffer kept for the next call (nothing is allocated
/// once the buffer has grown).
fn json_len<T: serde::Serialize + ?Sized>(t: &T) -> usize {
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with(|buffer| {
        let mut buffer = buffer.borrow_mut();
        buffer.clear();
        let _ = serde_json::to_writer(&mut *buffer, t);
        let written = buffer.len();
        // A rare huge object does not keep its buffer for good.
        if buffer.capacity() > 1 << 20 {
            *buffer = Vec::new();
        }
        written
    })
}

/// The JSON the typed struct of a kind stored as JSON (`Object::Other`) keeps of
/// `value`, at `api_version`: the fields it knows, checked as its typed decoder
/// checks them (`schema.rs`, from a table of the types rather than a typed decoder
/// compiled for each).
fn generic_known_fields(
    kind: Kind,
    api_version: &str,
    value: serde_json::Value,
) -> Result<serde_json::Value, String> {
    let Some(known) = schema::known_fields(api_version, kind.as_str(), value) else {
        return Err(format!(
            "no matches for kind \"{kind}\" in version \"{api_version}\""
        ));
    };
    known.map_err(located)
}

impl Object {
    pub fn kind(&self) -> Kind {
        match self {
            Object::Namespace(_) => Kind::Namespace,
            Object::Node(_) => Kind::Node,
            Object::Pod(_) => Kind::Pod,
            Object::ReplicaSet(_) => Kind::ReplicaSet,
            Object::Deployment(_) => Kind::Deployment,
            Object::DaemonSet(_) => Kind::DaemonSet,
            Object::Job(_) => Kind::Job,
            Object::Service(_) => Kind::Service,
            Object::Endpoints(_) => Kind::Endpoints,
            Object::EndpointSlice(_) => Kind::EndpointSlice,
            Object::Ingress(_) => Kind::Ingress,
            Object::IngressClass(_) => Kind::IngressClass,
            Object::ConfigMap(_) => Kind::ConfigMap,
            Object::Secret(_) => Kind::Secret,
            Object::ServiceAccount(_) => Kind::ServiceAccount,
            Object::Role(_) => Kind::Role,
            Object::ClusterRole(_) => Kind::ClusterRole,
            Object::RoleBinding(_) => Kind::RoleBinding,
            Object::ClusterRoleBinding(_) => Kind::ClusterRoleBinding,
            Object::LimitRange(_) => Kind::LimitRange,
            Object::ResourceQuota(_) => Kind::ResourceQuota,
            Object::Lease(_) => Kind::Lease,
            Object::Event(_) => Kind::Event,
            Object::Other(o) => o.kind,
        }
    }

    pub fn meta(&self) -> &ObjectMeta {
        each_typed!(self, o => &o.metadata, o => &o.metadata)
    }

    pub fn meta_mut(&mut self) -> &mut ObjectMeta {
        each_typed!(self, o => &mut o.metadata, o => &mut o.metadata)
    }

    pub fn name(&self) -> &str {
        self.meta().name.as_deref().unwrap_or("")
    }

    pub fn namespace(&self) -> &str {
        self.meta().namespace.as_deref().unwrap_or("")
    }

    pub fn key(&self) -> ObjectKey {
        ObjectKey::new(self.kind(), self.namespace(), self.name())
    }

    /// The `apiVersion` the object is served at.
    pub fn api_version(&self) -> String {
        match self {
            Object::Other(o) => o.api_version.clone(),
            _ => self.kind().api_version(),
        }
    }

    /// The object as JSON, with `apiVersion` and `kind` set.
    pub fn to_json(&self) -> serde_json::Value {
        each_typed!(
            self,
            o => to_json_value(o),
            o => {
                let mut map = serde_json::Map::new();
                map.insert("apiVersion".into(), o.api_version.clone().into());
                map.insert("kind".into(), o.kind.as_str().into());
                map.insert("metadata".into(), to_json_value(&o.metadata));
                for (k, v) in &o.fields {
                    map.insert(k.clone(), v.clone());
                }
                serde_json::Value::Object(map)
            }
        )
    }

    /// The length in bytes of [`Object::to_json`]'s compact encoding, without building
    /// the JSON value. See [`crate::store::object_size_bytes`].
    pub(crate) fn json_len(&self) -> usize {
        each_typed!(
            self,
            o => json_len(o),
            o => {
                // {"apiVersion":"…","kind":"…","metadata":…,"field":…}
                json_len(&o.metadata)
                    + json_len(&o.fields)
                    + o.api_version.len()
                    + o.kind.as_str().len()
                    + r#"{"apiVersion":"","kind":"","metadata":,}"#.len()
            }
        )
    }

    /// Builds an object of a known kind from JSON, at the kind's preferred version.
    pub fn from_json(kind: Kind, value: serde_json::Value) -> Result<Object, String> {
        let api_version = value
            .get("apiVersion")
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .unwrap_or_else(|| kind.api_version());
        Object::from_json_at(kind, &api_version, value)
    }

    /// Builds an object of a known kind from JSON written at `api_version`.
    pub fn from_json_at(
        kind: Kind,
        api_version: &str,
        value: serde_json::Value,
    ) -> Result<Object, String> {
        Ok(match kind {
            Kind::Namespace => Object::Namespace(de(value)?),
            Kind::Node => Object::Node(de(value)?),
            Kind::Pod => Object::Pod(de(value)?),
            Kind::ReplicaSet => Object::ReplicaSet(de(value)?),
            Kind::Deployment => Object::Deployment(de(value)?),
            Kind::DaemonSet => Object::DaemonSet(de(value)?),
            Kind::Job => Object::Job(de(value)?),
            Kind::Service => Object::Service(de(value)?),
            Kind::Endpoints => Object::Endpoints(de(value)?),
            Kind::EndpointSlice => Object::EndpointSlice(de(value)?),
            Kind::Ingress => Object::Ingress(de(value)?),
            Kind::IngressClass => Object::IngressClass(de(value)?),
            Kind::ConfigMap => Object::ConfigMap(de(value)?),
            Kind::Secret => Object::Secret(de(value)?),
            Kind::ServiceAccount => Object::ServiceAccount(de(value)?),
            Kind::Role => Object::Role(de(value)?),
            Kind::ClusterRole => Object::ClusterRole(de(value)?),
            Kind::RoleBinding => Object::RoleBinding(de(value)?),
            Kind::ClusterRoleBinding => Object::ClusterRoleBinding(de(value)?),
            Kind::LimitRange => Object::LimitRange(de(value)?),
            Kind::ResourceQuota => Object::ResourceQuota(de(value)?),
            Kind::Lease => Object::Lease(de(value)?),
            Kind::Event => Object::Event(de(value)?),
            _ => {
                // Validate against the typed struct of that version, keep the JSON.
                // A CustomResourceDefinition is checked by its validation
                // (`crd.rs`), a custom object against its definition's schema.
                if !kind.is_custom() && kind != Kind::CustomResourceDefinition {
                    generic_known_fields(kind, api_version, value.clone())?;
                }
                let serde_json::Value::Object(mut map) = value else {
                    return Err("the object is not a JSON object".into());
                };
                map.remove("apiVersion");
                map.remove("kind");
                let metadata: ObjectMeta = match map.remove("metadata") {
                    Some(m) => de(m).map_err(|e| format!("metadata: {e}"))?,
                    None => ObjectMeta::default(),
                };
                if kind == Kind::CustomResourceDefinition {
                    // A definition read back (a snapshot, an etcd restore) serves its
                    // kind again before its objects are read.
                    crd::established_kind(&map);
                }
                Object::Other(Box::new(OtherObject {
                    kind,
                    api_version: api_version.to_string(),
                    metadata,
                    fields: map,
                }))
            }
        })
    }

    /// The JSON the typed decoder keeps of `value`: fields it does not know are gone.
    /// Strict field validation compares this with the input.
    pub fn known_fields(
        kind: Kind,
        api_version: &str,
        value: serde_json::Value,
    ) -> Result<serde_json::Value, String> {
        match kind {
            // The typed kinds: decoded as they are stored, then written back (one
            // typed decode and encode per kind, shared with `from_json_at`).
            Kind::Namespace
            | Kind::Node
            | Kind::Pod
            | Kind::ReplicaSet
            | Kind::Deployment
            | Kind::DaemonSet
            | Kind::Job
            | Kind::Service
            | Kind::Endpoints
            | Kind::EndpointSlice
            | Kind::Ingress
            | Kind::IngressClass
            | Kind::ConfigMap
            | Kind::Secret
            | Kind::ServiceAccount
            | Kind::Role
            | Kind::ClusterRole
            | Kind::RoleBinding
            | Kind::ClusterRoleBinding
            | Kind::LimitRange
            | Kind::ResourceQuota
            | Kind::Lease
            | Kind::Event => Object::from_json_at(kind, api_version, value).map(|o| o.to_json()),
            // Every field is kept until the apiserver prunes with the schema.
            Kind::CustomResourceDefinition | Kind::Custom(_) => Ok(value),
            _ => generic_known_fields(kind, api_version, value),
        }
    }

    /// Builds an object from JSON that names its own `apiVersion` and `kind`, as the
    /// store keeps it (snapshots read objects back this way).
    pub fn from_stored_json(value: serde_json::Value) -> Result<Object, String> {
        let field = |name: &str| {
            value
                .get(name)
                .and_then(|v| v.as_str())
                .map(str::to_string)
                .ok_or_else(|| format!("the object has no {name}"))
        };
        let (api_version, kind_name) = (field("apiVersion")?, field("kind")?);
        let kind = Kind::from_type_meta(&api_version, &kind_name).ok_or_else(|| {
            format!("no matches for kind \"{kind_name}\" in version \"{api_version}\"")
        })?;
        Object::from_json_at(kind, &api_version, value)
    }

    pub fn as_pod(&self) -> Option<&api::core::v1::Pod> {
        match self {
            Object::Pod(x) => Some(x),
            _ => None,
        }
    }
    pub fn as_node(&self) -> Option<&api::core::v1::Node> {
        match self {
            Object::Node(x) => Some(x),
            _ => None,
        }
    }
    pub fn as_replica_set(&self) -> Option<&api::apps::v1::ReplicaSet> {
        match self {
            Object::ReplicaSet(x) => Some(x),
            _ => None,
        }
    }
    pub fn as_deployment(&self) -> Option<&api::apps::v1::Deployment> {
        match self {
            Object::Deployment(x) => Some(x),
            _ => None,
        }
    }
    pub fn as_lease(&self) -> Option<&api::coordination::v1::Lease> {
        match self {
            Object::Lease(x) => Some(x),
            _ => None,
        }
    }
    pub fn as_service(&self) -> Option<&api::core::v1::Service> {
        match self {
            Object::Service(x) => Some(x),
            _ => None,
        }
    }
    pub fn as_endpoints(&self) -> Option<&api::core::v1::Endpoints> {
        match self {
            Object::Endpoints(x) => Some(x),
            _ => None,
        }
    }
    pub fn as_endpoint_slice(&self) -> Option<&api::discovery::v1::EndpointSlice> {
        match self {
            Object::EndpointSlice(x) => Some(x),
            _ => None,
        }
    }
}

/// An object serialises as the JSON the apiserver serves ([`Object::to_json`]).
impl serde::Serialize for Object {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&self.to_json(), serializer)
    }
}

/// The inverse of `Serialize`: JSON with `apiVersion` and `kind`.
impl<'de> serde::Deserialize<'de> for Object {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = <serde_json::Value as serde::Deserialize>::deserialize(deserializer)?;
        Object::from_stored_json(value).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `INFO` is indexed by the enum's order: each row must be its kind's.
    #[test]
    fn every_kind_reads_its_own_discovery_row() {
        for (i, kind) in Kind::ALL.into_iter().enumerate() {
            assert_eq!(
                kind.builtin_index(),
                Some(i),
                "Kind::ALL is in declaration order"
            );
            assert_eq!(kind.info().kind, format!("{kind:?}"));
        }
    }
}
