//! The object model: real Kubernetes types from `k8s-openapi`, wrapped in one enum so
//! the store can hold every kind the simulator serves.

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Event, Namespace, Node, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::DeserializeOwned;
use std::fmt;

/// Every kind the simulated apiserver serves. The order is the order `kubectl get all`
/// style listings and the trace use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Namespace,
    Node,
    Pod,
    ReplicaSet,
    Deployment,
    Lease,
    Event,
}

/// Discovery data for one kind, as `kubectl api-resources` shows it.
pub struct KindInfo {
    pub kind: &'static str,
    pub plural: &'static str,
    pub singular: &'static str,
    pub short_names: &'static [&'static str],
    pub group: &'static str,
    pub version: &'static str,
    pub namespaced: bool,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::Namespace,
        Kind::Node,
        Kind::Pod,
        Kind::ReplicaSet,
        Kind::Deployment,
        Kind::Lease,
        Kind::Event,
    ];

    pub fn info(self) -> &'static KindInfo {
        const fn info(
            kind: &'static str,
            plural: &'static str,
            singular: &'static str,
            short_names: &'static [&'static str],
            group: &'static str,
            namespaced: bool,
        ) -> KindInfo {
            KindInfo {
                kind,
                plural,
                singular,
                short_names,
                group,
                version: "v1",
                namespaced,
            }
        }
        static NAMESPACE: KindInfo =
            info("Namespace", "namespaces", "namespace", &["ns"], "", false);
        static NODE: KindInfo = info("Node", "nodes", "node", &["no"], "", false);
        static POD: KindInfo = info("Pod", "pods", "pod", &["po"], "", true);
        static REPLICASET: KindInfo = info(
            "ReplicaSet",
            "replicasets",
            "replicaset",
            &["rs"],
            "apps",
            true,
        );
        static DEPLOYMENT: KindInfo = info(
            "Deployment",
            "deployments",
            "deployment",
            &["deploy"],
            "apps",
            true,
        );
        static LEASE: KindInfo = info("Lease", "leases", "lease", &[], "coordination.k8s.io", true);
        static EVENT: KindInfo = info("Event", "events", "event", &["ev"], "", true);
        match self {
            Kind::Namespace => &NAMESPACE,
            Kind::Node => &NODE,
            Kind::Pod => &POD,
            Kind::ReplicaSet => &REPLICASET,
            Kind::Deployment => &DEPLOYMENT,
            Kind::Lease => &LEASE,
            Kind::Event => &EVENT,
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
    pub fn api_version(self) -> String {
        let info = self.info();
        if info.group.is_empty() {
            info.version.to_string()
        } else {
            format!("{}/{}", info.group, info.version)
        }
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
    /// singular, short name or kind, optionally qualified by group (`deployments.apps`).
    pub fn lookup(name: &str) -> Option<Kind> {
        let lower = name.to_ascii_lowercase();
        let (base, group) = match lower.split_once('.') {
            Some((b, g)) => (b.to_string(), Some(g.to_string())),
            None => (lower.clone(), None),
        };
        Kind::ALL.into_iter().find(|k| {
            let i = k.info();
            let name_matches = base == i.plural
                || base == i.singular
                || base == i.kind.to_ascii_lowercase()
                || i.short_names.contains(&base.as_str());
            let group_matches = match &group {
                None => true,
                Some(g) => g == i.group || (i.group.is_empty() && g == "core"),
            };
            name_matches && group_matches
        })
    }

    /// Resolves `apiVersion` + `kind` from a manifest.
    pub fn from_type_meta(api_version: &str, kind: &str) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str() == kind && k.api_version() == api_version)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where an object lives in the store.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

/// One object of a served kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Object {
    Namespace(Namespace),
    Node(Node),
    Pod(Pod),
    ReplicaSet(ReplicaSet),
    Deployment(Deployment),
    Lease(Lease),
    Event(Event),
}

macro_rules! each_object {
    ($value:expr, $inner:ident => $body:expr) => {
        match $value {
            Object::Namespace($inner) => $body,
            Object::Node($inner) => $body,
            Object::Pod($inner) => $body,
            Object::ReplicaSet($inner) => $body,
            Object::Deployment($inner) => $body,
            Object::Lease($inner) => $body,
            Object::Event($inner) => $body,
        }
    };
}

impl Object {
    pub fn kind(&self) -> Kind {
        match self {
            Object::Namespace(_) => Kind::Namespace,
            Object::Node(_) => Kind::Node,
            Object::Pod(_) => Kind::Pod,
            Object::ReplicaSet(_) => Kind::ReplicaSet,
            Object::Deployment(_) => Kind::Deployment,
            Object::Lease(_) => Kind::Lease,
            Object::Event(_) => Kind::Event,
        }
    }

    pub fn meta(&self) -> &ObjectMeta {
        each_object!(self, o => &o.metadata)
    }

    pub fn meta_mut(&mut self) -> &mut ObjectMeta {
        each_object!(self, o => &mut o.metadata)
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

    /// The object as JSON, with `apiVersion` and `kind` set (k8s-openapi adds them).
    pub fn to_json(&self) -> serde_json::Value {
        let v = each_object!(self, o => serde_json::to_value(o));
        v.expect("k8s-openapi types always serialise")
    }

    /// Builds a typed object from JSON of a known kind.
    pub fn from_json(kind: Kind, value: serde_json::Value) -> Result<Object, String> {
        fn de<T: DeserializeOwned>(v: serde_json::Value) -> Result<T, String> {
            serde_path_to_error::deserialize(v).map_err(|e| {
                let path = e.path().to_string();
                if path == "." {
                    e.inner().to_string()
                } else {
                    format!("{}: {}", path, e.inner())
                }
            })
        }
        Ok(match kind {
            Kind::Namespace => Object::Namespace(de(value)?),
            Kind::Node => Object::Node(de(value)?),
            Kind::Pod => Object::Pod(de(value)?),
            Kind::ReplicaSet => Object::ReplicaSet(de(value)?),
            Kind::Deployment => Object::Deployment(de(value)?),
            Kind::Lease => Object::Lease(de(value)?),
            Kind::Event => Object::Event(de(value)?),
        })
    }

    pub fn as_pod(&self) -> Option<&Pod> {
        match self {
            Object::Pod(p) => Some(p),
            _ => None,
        }
    }
    pub fn as_node(&self) -> Option<&Node> {
        match self {
            Object::Node(n) => Some(n),
            _ => None,
        }
    }
    pub fn as_replica_set(&self) -> Option<&ReplicaSet> {
        match self {
            Object::ReplicaSet(r) => Some(r),
            _ => None,
        }
    }
    pub fn as_deployment(&self) -> Option<&Deployment> {
        match self {
            Object::Deployment(d) => Some(d),
            _ => None,
        }
    }
    pub fn as_lease(&self) -> Option<&Lease> {
        match self {
            Object::Lease(l) => Some(l),
            _ => None,
        }
    }
}
