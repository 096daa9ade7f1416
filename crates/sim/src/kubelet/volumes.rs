//! A container's configMap and secret volumes: the files the kubelet writes from the
//! objects when the container starts, and again when an object changes, at the pod's
//! next periodic sync (upstream: `syncFrequency`, one minute; the kubelet's
//! ConfigMap and Secret managers watch the objects, so the sync sees the change).
//! A volume mounted with `subPath` is written once and never again, as upstream's
//! bind mount of one file. The container's own process and `kubectl exec` read the
//! same files (`runtime::Mounted`). Environment variables read from the same objects
//! do not change (`env.rs`).
//!
//! Simplified: the periodic sync comes every minute from the container's start,
//! without upstream's jitter; `items` (key → path) and `defaultMode` are not applied
//! (every key is a file named after it).

use crate::cluster::Cluster;
use crate::kubelet::runtime::Mounted;
use crate::kubelet::KubeletTimer;
use crate::object::{Kind, Object, ObjectKey};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::Pod;
use std::collections::BTreeMap;

/// The kubelet's periodic pod sync (upstream `syncFrequency`).
pub const SYNC_PERIOD_MS: u64 = 60_000;

/// The keys and values of the ConfigMap or Secret a volume shows; `None` for other
/// volumes, or when the object is missing.
fn volume_data(
    c: &Cluster,
    namespace: &str,
    v: &k8s_openapi::api::core::v1::Volume,
) -> Option<BTreeMap<String, String>> {
    let (kind, name) = match (&v.config_map, &v.secret) {
        (Some(cm), _) => (Kind::ConfigMap, cm.name.as_str()),
        (None, Some(s)) => (Kind::Secret, s.secret_name.as_deref().unwrap_or("")),
        (None, None) => return None,
    };
    crate::kubelet::env::source(c, kind, namespace, name)
}

/// The files container `container` of `pod` sees from its configMap and secret
/// volumes now; with `updatable_only`, only those of mounts without `subPath`.
fn volume_files(
    c: &Cluster,
    pod: &Pod,
    container: &str,
    updatable_only: bool,
) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let Some(spec) = pod.spec.as_ref() else {
        return files;
    };
    let namespace = pod.metadata.namespace.as_deref().unwrap_or("default");
    let Some(ctr) = spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .find(|ctr| ctr.name == container)
    else {
        return files;
    };
    for m in ctr.volume_mounts.iter().flatten() {
        if updatable_only && m.sub_path.is_some() {
            continue;
        }
        let Some(v) = spec.volumes.iter().flatten().find(|v| v.name == m.name) else {
            continue;
        };
        let Some(data) = volume_data(c, namespace, v) else {
            continue;
        };
        let dir = m.mount_path.trim_end_matches('/');
        for (k, value) in data {
            match &m.sub_path {
                Some(sub) if sub == &k => {
                    files.insert(dir.to_string(), value);
                }
                Some(_) => {}
                None => {
                    files.insert(format!("{dir}/{k}"), value);
                }
            }
        }
    }
    files
}

/// The volumes' files of a container starting now.
pub(crate) fn mounts_at_start(c: &Cluster, pod: &Pod, container: &str, now: SimTime) -> Mounted {
    let mut mounts = Mounted::default();
    let files = volume_files(c, pod, container, false);
    if !files.is_empty() {
        mounts.write(now.0, files);
    }
    mounts
}

/// The paths where container `container` mounts one file of a volume (`subPath`).
fn sub_path_mounts(pod: &Pod, container: &str) -> Vec<String> {
    pod.spec
        .iter()
        .flat_map(|s| {
            s.containers
                .iter()
                .chain(s.init_containers.iter().flatten())
        })
        .filter(|c| c.name == container)
        .flat_map(|c| c.volume_mounts.iter().flatten())
        .filter(|m| m.sub_path.is_some())
        .map(|m| m.mount_path.trim_end_matches('/').to_string())
        .collect()
}

/// Whether the pod mounts the ConfigMap or Secret `name` as a volume.
fn mounts_source(pod: &Pod, kind: Kind, name: &str) -> bool {
    pod.spec
        .iter()
        .flat_map(|s| s.volumes.iter().flatten())
        .any(|v| match kind {
            Kind::ConfigMap => v.config_map.as_ref().is_some_and(|cm| cm.name == name),
            Kind::Secret => v
                .secret
                .as_ref()
                .is_some_and(|s| s.secret_name.as_deref() == Some(name)),
            _ => false,
        })
}

impl Cluster {
    /// A ConfigMap or Secret was written: each running container of a pod in its
    /// namespace that mounts it gets its files written again at its pod's next
    /// periodic sync. (It looks through the kubelets' pods of that namespace: these
    /// objects change when someone changes them, not on every tick.)
    pub(crate) fn kubelet_volume_source_changed(
        &mut self,
        kind: Kind,
        namespace: &str,
        name: &str,
    ) {
        let mut due: Vec<(SimTime, KubeletTimer)> = Vec::new();
        for (node, k) in self.kubelets.iter().filter(|(_, k)| k.running) {
            for (key, rt) in k
                .containers
                .iter()
                .filter(|(key, _)| key.namespace == namespace)
            {
                let Some(pod) = self.store.get(key).and_then(Object::as_pod) else {
                    continue;
                };
                if !mounts_source(pod, kind, name) {
                    continue;
                }
                for (container, run) in rt
                    .containers
                    .iter()
                    .filter(|(_, r)| r.finished_ms.is_none())
                {
                    let since = self.now.0.saturating_sub(run.process.started_ms);
                    let wait = SYNC_PERIOD_MS - since % SYNC_PERIOD_MS;
                    due.push((
                        self.now + SimDuration::millis(wait),
                        KubeletTimer::VolumeSync {
                            node: node.clone(),
                            pod: key.clone(),
                            uid: rt.uid.clone(),
                            container: container.clone(),
                            restarts: run.restarts,
                        },
                    ));
                }
            }
        }
        for (at, timer) in due {
            self.schedule(at, timer);
        }
    }

    /// The pod's periodic sync after a volume's object changed: the container's
    /// volumes are written again, and its process reads the new files from now on.
    pub(crate) fn kubelet_volume_sync(
        &mut self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
        restarts: i32,
    ) {
        let Some(run) = self.running_instance(node, key, uid, name, restarts) else {
            return;
        };
        let Some(pod) = self.store.get(key).and_then(Object::as_pod) else {
            return;
        };
        // A subPath mount keeps the file written at the start; the others show the
        // objects as they are now (a key removed, its file gone).
        let fixed: Vec<String> = sub_path_mounts(pod, name);
        let mut files = run
            .process
            .mounts
            .versions
            .first()
            .map(|(_, f)| (**f).clone())
            .unwrap_or_default();
        files.retain(|path, _| fixed.contains(path));
        let updatable = volume_files(self, pod, name, true);
        files.extend(updatable);
        let now = self.now.0;
        let Some(r) = self
            .pod_runtime_mut(node, key)
            .and_then(|p| p.containers.get_mut(name))
        else {
            return;
        };
        if !r.process.mounts.write(now, files) {
            return;
        }
        let (process, budget) = (r.process.clone(), r.budget);
        // The process may now end sooner or later than it would have.
        self.schedule_exit(node, key, uid, name, restarts, &process, budget);
    }
}
