//! What a pod's data volumes hold: the files its containers write under an emptyDir,
//! a hostPath or a PersistentVolume mount live in a directory on the node's disk
//! (`KubeletState::disk`, host path → content), not in the container, so they
//! outlive the process that wrote them.
//!
//! - An emptyDir is the directory the kubelet makes for the pod
//!   (`/var/lib/kubelet/pods/<uid>/volumes/kubernetes.io~empty-dir/<name>`, upstream
//!   pkg/volume/emptydir): it outlives a container's restart and is removed with the
//!   pod.
//! - A hostPath is the node's directory itself: every pod on the node that mounts it
//!   shares it, and it stays when the pods go.
//! - A PersistentVolume is the directory its source names (`hostPath` or `local`:
//!   kind's local-path provisioner makes hostPath volumes under
//!   `/var/local-path-provisioner`); a pod on another claim of the same volume, or
//!   a replacement pod on the same claim, finds what the last one left. The
//!   provisioner removes the directory when it deletes the volume (`local_path.rs`).
//!
//! A container's process is replayed, not run (`runtime.rs`): it starts with what
//! its volumes hold then (`Process::seed`), and what it wrote reaches the disk when
//! it ends (exit, kill, the pod's deletion, the node powering off). Until then the
//! pod's other containers see its writes by replaying it (`Cluster::volume_files`),
//! and `kubectl exec` writes to the disk at once.
//!
//! Simplified: a running process does not see what another container or pod writes
//! after it started (it reads its start-time copy); a process's writes reach other
//! pods only when it ends; volumes of other sources (nfs, csi, ...) keep nothing; a
//! volume's capacity is not enforced; a `readOnly` mount is not written back.

use crate::cluster::Cluster;
use crate::kubelet::runtime::{self, Process};
use crate::object::{Kind, Object, ObjectKey};
use k8s_openapi::api::core::v1::{Pod, Volume};
use serde_json::Value;
use std::collections::BTreeMap;

/// Where the kubelet keeps a pod's emptyDir volume (upstream `getPath` of the
/// emptyDir plugin under the kubelet's root directory).
pub(crate) fn empty_dir_path(uid: &str, volume: &str) -> String {
    format!("/var/lib/kubelet/pods/{uid}/volumes/kubernetes.io~empty-dir/{volume}")
}

/// One data volume as a container mounts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DataMount {
    /// Where the container sees it (no trailing slash).
    pub path: String,
    /// The directory on the node.
    pub dir: String,
    pub read_only: bool,
}

/// A path with no trailing slash and no `.` or empty parts.
fn clean(path: &str) -> String {
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    format!("/{}", parts.join("/"))
}

/// The directory on the node behind a PersistentVolume (its `hostPath` or `local`
/// source), if the simulation keeps its files.
pub(crate) fn volume_dir(pv: &crate::object::OtherObject) -> Option<String> {
    let spec = pv.fields.get("spec")?;
    ["hostPath", "local"]
        .iter()
        .find_map(|source| spec.get(source)?.get("path")?.as_str())
        .filter(|p| p.starts_with('/'))
        .map(clean)
}

/// The directory on the node that a pod's volume keeps its files in, if it is a
/// data volume the simulation keeps.
fn host_dir(c: &Cluster, pod: &Pod, v: &Volume) -> Option<String> {
    if v.empty_dir.is_some() {
        let uid = pod.metadata.uid.as_deref().unwrap_or("");
        return Some(empty_dir_path(uid, &v.name));
    }
    if let Some(h) = &v.host_path {
        return h.path.starts_with('/').then(|| clean(&h.path));
    }
    let claim = v.persistent_volume_claim.as_ref()?;
    let namespace = pod.metadata.namespace.as_deref().unwrap_or("default");
    let key = ObjectKey::new(Kind::PersistentVolumeClaim, namespace, &claim.claim_name);
    let Some(Object::Other(pvc)) = c.store.get(&key) else {
        return None;
    };
    let volume = pvc
        .fields
        .get("spec")
        .and_then(|s| s.get("volumeName"))
        .and_then(Value::as_str)
        .filter(|v| !v.is_empty())?;
    match c
        .store
        .get(&ObjectKey::new(Kind::PersistentVolume, "", volume))
    {
        Some(Object::Other(pv)) => volume_dir(pv),
        _ => None,
    }
}

/// The data volumes container `container` of `pod` mounts.
pub(crate) fn data_mounts(c: &Cluster, pod: &Pod, container: &str) -> Vec<DataMount> {
    let Some(spec) = pod.spec.as_ref() else {
        return Vec::new();
    };
    let Some((ctr, _)) = crate::kubelet::containers::spec_container(pod, container) else {
        return Vec::new();
    };
    let mut mounts = Vec::new();
    for m in ctr.volume_mounts.iter().flatten() {
        let Some(v) = spec.volumes.iter().flatten().find(|v| v.name == m.name) else {
            continue;
        };
        let Some(dir) = host_dir(c, pod, v) else {
            continue;
        };
        let dir = match m.sub_path.as_deref().filter(|s| !s.is_empty()) {
            Some(sub) => clean(&format!("{dir}/{sub}")),
            None => dir,
        };
        let read_only = m.read_only == Some(true)
            || v.persistent_volume_claim
                .as_ref()
                .is_some_and(|p| p.read_only == Some(true));
        mounts.push(DataMount {
            path: clean(&m.mount_path),
            dir,
            read_only,
        });
    }
    mounts
}

/// The files under `prefix/` of a map keyed by absolute paths.
fn under<'m>(
    files: &'m BTreeMap<String, String>,
    prefix: &str,
) -> impl Iterator<Item = (&'m String, &'m String)> + 'm {
    let start = format!("{prefix}/");
    files
        .range(start.clone()..)
        .take_while(move |(k, _)| k.starts_with(&start))
}

/// What changed under the writable mounts between `before` and `after` (paths in the
/// container): host path → the new content, or `None` for a removed file.
pub(crate) fn changes(
    mounts: &[DataMount],
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for m in mounts.iter().filter(|m| !m.read_only) {
        let host = |p: &str| format!("{}{}", m.dir, &p[m.path.len()..]);
        for (p, text) in under(after, &m.path).filter(|(p, _)| !p.ends_with('/')) {
            if before.get(p) != Some(text) {
                out.push((host(p), Some(text.clone())));
            }
        }
        for (p, _) in under(before, &m.path) {
            if !after.contains_key(p) {
                out.push((host(p), None));
            }
        }
    }
    out
}

impl Cluster {
    /// The files of `container`'s data volumes now, at the paths it sees them on:
    /// what the node's disk holds, with what the pod's other running containers have
    /// written since they started. `container`'s own running process is left to the
    /// caller, who replays it.
    pub(crate) fn volume_files(&self, pod: &Pod, container: &str) -> BTreeMap<String, String> {
        let mut files = BTreeMap::new();
        let mounts = data_mounts(self, pod, container);
        if mounts.is_empty() {
            return files;
        }
        let node = pod
            .spec
            .as_ref()
            .and_then(|s| s.node_name.as_deref())
            .unwrap_or("");
        let Some(k) = self.kubelets.get(node) else {
            return files;
        };
        // The host's files under the mounted directories, then the others' writes.
        let mut host: BTreeMap<String, String> = BTreeMap::new();
        for m in &mounts {
            for (p, t) in under(&k.disk, &m.dir) {
                host.insert(p.clone(), t.clone());
            }
            if let Some(t) = k.disk.get(&m.dir) {
                host.insert(m.dir.clone(), t.clone());
            }
        }
        let key = pod_key(pod);
        if let (Some(runs), Some(spec)) = (k.containers.get(&key), pod.spec.as_ref()) {
            let names = spec
                .init_containers
                .iter()
                .flatten()
                .chain(&spec.containers)
                .map(|c| c.name.as_str())
                .filter(|n| *n != container);
            for name in names {
                let Some(run) = runs
                    .containers
                    .get(name)
                    .filter(|r| r.finished_ms.is_none())
                else {
                    continue;
                };
                let shares = data_mounts(self, pod, name)
                    .iter()
                    .any(|o| mounts.iter().any(|m| overlaps(&o.dir, &m.dir)));
                if !shares {
                    continue;
                }
                for (p, t) in self.process_writes(pod, name, &run.process, self.now.0) {
                    match t {
                        Some(t) => host.insert(p, t),
                        None => host.remove(&p),
                    };
                }
            }
        }
        for m in &mounts {
            for (p, t) in under(&host, &m.dir) {
                files.insert(format!("{}{}", m.path, &p[m.dir.len()..]), t.clone());
            }
            match host.get(&m.dir) {
                // A subPath naming one file.
                Some(t) => files.insert(m.path.clone(), t.clone()),
                // The mounted directory exists, empty or not (the shell's mark of a
                // directory).
                None => files.insert(format!("{}/", m.path), String::new()),
            };
        }
        files
    }

    /// What `process` (of `container` in `pod`) wrote to its data volumes from its
    /// start until `until_ms`: host path → new content, or `None` for a removed file.
    pub(crate) fn process_writes(
        &self,
        pod: &Pod,
        container: &str,
        process: &Process,
        until_ms: u64,
    ) -> Vec<(String, Option<String>)> {
        let mounts = data_mounts(self, pod, container);
        if mounts.iter().all(|m| m.read_only) {
            return Vec::new();
        }
        let base = self.container_files(pod, container);
        let mut before = (*process.seed).clone();
        before.extend(base.iter().map(|(k, v)| (k.clone(), v.clone())));
        let after =
            runtime::files_written(process, until_ms.saturating_sub(process.started_ms), &base);
        after.map_or_else(Vec::new, |after| changes(&mounts, &before, &after))
    }

    /// Writes files to (or removes them from) a node's disk.
    pub(crate) fn write_disk(&mut self, node: &str, writes: Vec<(String, Option<String>)>) {
        let Some(k) = self.kubelets.get_mut(node) else {
            return;
        };
        for (path, text) in writes {
            match text {
                Some(t) => k.disk.insert(path, t),
                None => k.disk.remove(&path),
            };
        }
    }

    /// A container instance ended at `until_ms`: what it wrote to its data volumes
    /// is on the disk now.
    pub(crate) fn keep_container_writes(
        &mut self,
        node: &str,
        pod: &Pod,
        container: &str,
        process: &Process,
        until_ms: u64,
    ) {
        let writes = self.process_writes(pod, container, process, until_ms);
        self.write_disk(node, writes);
    }

    /// Every running container of the pod ends now (or when it was due to stop):
    /// their writes go to the disk.
    pub(crate) fn keep_pod_writes(&mut self, node: &str, key: &ObjectKey, pod: &Pod) {
        let Some(runs) = self.kubelets.get(node).and_then(|k| k.containers.get(key)) else {
            return;
        };
        let live: Vec<(String, Process, u64)> = runs
            .containers
            .iter()
            .filter(|(_, r)| r.finished_ms.is_none())
            .map(|(name, r)| {
                let until = r.stops_at_ms.unwrap_or(self.now.0).min(self.now.0);
                (name.clone(), r.process.clone(), until)
            })
            .collect();
        for (name, process, until) in live {
            self.keep_container_writes(node, pod, &name, &process, until);
        }
    }

    /// The pod is gone: the kubelet removes its emptyDir volumes.
    pub(crate) fn remove_empty_dirs(&mut self, node: &str, uid: &str) {
        if uid.is_empty() {
            return;
        }
        self.remove_host_dir(node, &format!("/var/lib/kubelet/pods/{uid}"));
    }

    /// Removes a directory and everything under it from a node's disk.
    pub(crate) fn remove_host_dir(&mut self, node: &str, dir: &str) {
        let Some(k) = self.kubelets.get_mut(node) else {
            return;
        };
        let dir = clean(dir);
        let gone: Vec<String> = under(&k.disk, &dir).map(|(p, _)| p.clone()).collect();
        for p in gone {
            k.disk.remove(&p);
        }
        k.disk.remove(&dir);
    }

    /// How many files the node keeps under a directory (the inspector's locker count).
    pub fn files_in_host_dir(&self, node: &str, dir: &str) -> usize {
        self.kubelets
            .get(node)
            .map_or(0, |k| under(&k.disk, &clean(dir)).count())
    }
}

/// Whether one directory holds the other (or they are the same).
fn overlaps(a: &str, b: &str) -> bool {
    a == b || a.starts_with(&format!("{b}/")) || b.starts_with(&format!("{a}/"))
}

fn pod_key(pod: &Pod) -> ObjectKey {
    ObjectKey::new(
        Kind::Pod,
        pod.metadata.namespace.as_deref().unwrap_or("default"),
        pod.metadata.name.as_deref().unwrap_or(""),
    )
}
