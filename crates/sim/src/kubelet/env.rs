//! A container's environment as the kubelet makes it (upstream
//! pkg/kubelet/kubelet_pods.go, `makeEnvironmentVariables`): HOSTNAME, then every
//! `envFrom` source in order (a ConfigMap's `data` or a Secret's keys, each with the
//! source's `prefix`), then every `env` entry (a literal value with its `$(VAR)`
//! references expanded, a pod field, or a key of a ConfigMap or Secret). A later
//! definition of a name replaces the earlier one, as upstream's map does; the
//! variables keep the order they were first defined in (upstream's order is a Go
//! map's).
//!
//! A reference that cannot be resolved stops the container from being created: the
//! kubelet reports `CreateContainerConfigError` with upstream's message
//! (`configmap "NAME" not found`, `couldn't find key KEY in ConfigMap NS/NAME`, and
//! the same for secrets) and tries again at the pod worker's next sync, 10 s later
//! (upstream's `backOffPeriod`; simplified: without its jitter of up to 5 s). An
//! `optional` reference that is missing is skipped. The values are read when the
//! container starts: a later change to the ConfigMap does not reach a running
//! process. Simplified: `resourceFieldRef` reads as empty.

use crate::cluster::Cluster;
use crate::kubelet::containers::{pod_is_terminal, refresh_pod_status, status_mut, PendingEvent};
use crate::kubelet::runtime::{self, Env};
use crate::kubelet::{KubeletTimer, RuntimePod};
use crate::object::{Kind, Object, ObjectKey};
use crate::time::SimDuration;
use k8s_openapi::api::core::v1::{Container, ContainerState, ContainerStateWaiting, Pod};
use std::collections::BTreeMap;

/// The waiting reason of a container that could not be created.
const CONFIG_ERROR: &str = "CreateContainerConfigError";

/// What the pod worker waits after a sync that failed before trying again
/// (upstream `backOffPeriod`).
pub const CONFIG_RETRY_MS: u64 = 10_000;

/// The keys and values of a ConfigMap (`data`) or Secret (`data`, then
/// `stringData`) in the pod's namespace; `None` when there is no such object. Also
/// what a configMap or secret volume shows (`volumes.rs`).
pub(crate) fn source(
    c: &Cluster,
    kind: Kind,
    namespace: &str,
    name: &str,
) -> Option<BTreeMap<String, String>> {
    match c.store.get(&ObjectKey::new(kind, namespace, name))? {
        Object::ConfigMap(cm) => Some(cm.data.clone().unwrap_or_default()),
        Object::Secret(s) => {
            let mut values: BTreeMap<String, String> = BTreeMap::new();
            for (k, b) in s.data.iter().flatten() {
                values.insert(k.clone(), String::from_utf8_lossy(&b.0).into_owned());
            }
            for (k, v) in s.string_data.iter().flatten() {
                values.insert(k.clone(), v.clone());
            }
            Some(values)
        }
        _ => None,
    }
}

/// The kubelet's error for a missing source (its object managers name the kind in
/// lower case) and for a missing key.
fn not_found(kind: Kind, name: &str) -> String {
    let word = if kind == Kind::Secret {
        "secret"
    } else {
        "configmap"
    };
    format!("{word} \"{name}\" not found")
}

fn no_key(kind: Kind, namespace: &str, name: &str, key: &str) -> String {
    let title = if kind == Kind::Secret {
        "Secret"
    } else {
        "ConfigMap"
    };
    format!("couldn't find key {key} in {title} {namespace}/{name}")
}

/// A container's own variables while they are defined: in the order first defined,
/// found by name (a ConfigMap of many keys costs no search over the list).
#[derive(Default)]
struct Vars {
    list: Vec<(String, String)>,
    index: BTreeMap<String, usize>,
}

impl Vars {
    /// Defines `name`: a name already there gets the new value in its place.
    fn set(&mut self, name: String, value: String) {
        match self.index.get(&name) {
            Some(&i) => self.list[i].1 = value,
            None => {
                self.index.insert(name.clone(), self.list.len());
                self.list.push((name, value));
            }
        }
    }

    /// Defines `name` with the value's `$(VAR)` references expanded against the
    /// variables defined so far and PATH.
    fn set_expanded(&mut self, name: String, value: &str) {
        let value = runtime::expand_env_refs(value, |n| {
            self.index
                .get(n)
                .map(|&i| self.list[i].1.as_str())
                .or_else(|| Env::runtime_head(n))
        });
        self.set(name, value);
    }

    /// The runtime's environment with these variables between its own.
    fn into_env(self) -> Env {
        let mut env = Env::runtime();
        for (k, v) in self.list {
            env.push_own_raw(k, v);
        }
        env.shrink_to_fit();
        env
    }
}

/// The environment the runtime gives container `ctr` of `pod`, or why it cannot be
/// made (`CreateContainerConfigError`'s message).
pub(crate) fn environment(c: &Cluster, pod: &Pod, ctr: &Container) -> Result<Env, String> {
    let namespace = pod.metadata.namespace.as_deref().unwrap_or("default");
    let mut env = Vars::default();
    // In the host's network namespace the hostname is the node's.
    let host_network = pod.spec.as_ref().and_then(|s| s.host_network) == Some(true);
    let hostname = if host_network {
        crate::kubelet::exec::pod_hostname(pod)
    } else {
        pod.metadata.name.clone().unwrap_or_default()
    };
    env.set("HOSTNAME".into(), hostname);
    // Each source is read once per container start, as upstream's local maps are.
    let mut cache: BTreeMap<(Kind, String), Option<BTreeMap<String, String>>> = BTreeMap::new();
    let mut read = |kind: Kind, name: &str| {
        cache
            .entry((kind, name.to_string()))
            .or_insert_with(|| source(c, kind, namespace, name))
            .clone()
    };
    for from in ctr.env_from.iter().flatten() {
        let (kind, name, optional) = match (&from.config_map_ref, &from.secret_ref) {
            (Some(r), _) => (Kind::ConfigMap, r.name.as_str(), r.optional == Some(true)),
            (None, Some(r)) => (Kind::Secret, r.name.as_str(), r.optional == Some(true)),
            (None, None) => continue,
        };
        let values = match read(kind, name) {
            Some(values) => values,
            None if optional => continue,
            None => return Err(not_found(kind, name)),
        };
        let prefix = from.prefix.as_deref().unwrap_or("");
        for (k, v) in values {
            env.set(format!("{prefix}{k}"), v);
        }
    }
    for e in ctr.env.iter().flatten() {
        let from = match (&e.value, &e.value_from) {
            (Some(v), _) => {
                env.set_expanded(e.name.clone(), v);
                continue;
            }
            (None, Some(from)) => from,
            (None, None) => {
                env.set(e.name.clone(), String::new());
                continue;
            }
        };
        let key_ref = match (&from.config_map_key_ref, &from.secret_key_ref) {
            (Some(r), _) => Some((Kind::ConfigMap, &r.name, &r.key, r.optional == Some(true))),
            (None, Some(r)) => Some((Kind::Secret, &r.name, &r.key, r.optional == Some(true))),
            (None, None) => None,
        };
        let value = match key_ref {
            None => field_value(pod, from.field_ref.as_ref().map(|f| f.field_path.as_str())),
            Some((kind, name, key, optional)) => {
                match read(kind, name).map(|v| v.get(key).cloned()) {
                    Some(Some(v)) => v,
                    _ if optional => continue,
                    None => return Err(not_found(kind, name)),
                    Some(None) => return Err(no_key(kind, namespace, name, key)),
                }
            }
        };
        env.set(e.name.clone(), value);
    }
    Ok(env.into_env())
}

/// A `fieldRef`'s value (the downward API's common fields); other fields, and
/// `resourceFieldRef`, read as empty.
fn field_value(pod: &Pod, path: Option<&str>) -> String {
    let spec = pod.spec.as_ref();
    let status = pod.status.as_ref();
    let value = match path {
        Some("metadata.name") => pod.metadata.name.clone(),
        Some("metadata.namespace") => pod.metadata.namespace.clone(),
        Some("metadata.uid") => pod.metadata.uid.clone(),
        Some("spec.nodeName") => spec.and_then(|s| s.node_name.clone()),
        Some("spec.serviceAccountName") => spec.and_then(|s| s.service_account_name.clone()),
        Some("status.podIP") => status.and_then(|s| s.pod_ip.clone()),
        Some("status.hostIP") => status.and_then(|s| s.host_ip.clone()),
        _ => None,
    };
    value.unwrap_or_default()
}

impl Cluster {
    /// Container `name` of `pod` could not be created: its status waits with
    /// `CreateContainerConfigError`, the kubelet says why in a `Failed` event, and its
    /// pod worker tries again after [`CONFIG_RETRY_MS`].
    pub(crate) fn container_config_error(
        &mut self,
        node: &str,
        key: &ObjectKey,
        pod: &mut Pod,
        name: &str,
        message: String,
        events: &mut Vec<PendingEvent>,
    ) {
        if let Some(cs) = status_mut(pod, name) {
            cs.ready = false;
            cs.started = Some(false);
            cs.state = Some(ContainerState {
                waiting: Some(ContainerStateWaiting {
                    reason: Some(CONFIG_ERROR.into()),
                    message: Some(message.clone()),
                }),
                ..Default::default()
            });
        }
        events.push(("Warning", "Failed", format!("Error: {message}")));
        self.schedule(
            self.now + SimDuration::millis(CONFIG_RETRY_MS),
            KubeletTimer::ConfigRetry {
                node: node.to_string(),
                pod: key.clone(),
                uid: pod.metadata.uid.clone().unwrap_or_default(),
                container: name.to_string(),
            },
        );
    }

    /// The pod worker's next sync after a container could not be created: it tries
    /// to create it again, if the pod still runs here and the container still waits.
    pub(crate) fn kubelet_config_retry(
        &mut self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
    ) {
        let here = self.kubelets.get(node).is_some_and(|k| {
            k.running && matches!(k.pods.get(key), Some(RuntimePod::Running { uid: u }) if u == uid)
        });
        if !here {
            return;
        }
        let Some(mut pod) = self.kubelet_pod(node, key) else {
            return;
        };
        if pod.metadata.uid.as_deref() != Some(uid)
            || pod.metadata.deletion_timestamp.is_some()
            || pod_is_terminal(&pod)
        {
            return;
        }
        let waiting = status_mut(&mut pod, name)
            .and_then(|cs| cs.state.as_ref()?.waiting.as_ref()?.reason.clone())
            .is_some_and(|r| r == CONFIG_ERROR);
        if !waiting {
            return;
        }
        let mut events = Vec::new();
        self.start_container_named(node, key, &mut pod, name, &mut events);
        refresh_pod_status(&mut pod, &self.now.to_k8s());
        self.write_pod_with_events(node, pod, events);
    }
}
