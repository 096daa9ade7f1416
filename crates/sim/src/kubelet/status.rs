//! The kubelet's status manager (pkg/kubelet/status/status_manager.go): the source of
//! truth for the status of the pods its node runs.
//!
//! Every status the kubelet computes goes into its cache (`podStatuses`) before it
//! is posted, and every status it computes starts from that cache, so what it knew
//! is never lost when a post fails (a partition, an apiserver outage) or when the
//! apiserver's copy changes under it (the node lifecycle controller's
//! `MarkPodsNotReady`, an etcd restore bringing back an older pod). A pod whose
//! apiserver status differs from the cache in the fields the kubelet owns is posted
//! again, merged as `mergePodStatus` does: the conditions others own
//! (`DisruptionTarget`, readiness gates) and `nominatedNodeName` stay the
//! apiserver's.
//!
//! Upstream compares every cached pod with the apiserver every `syncPeriod` (10 s).
//! Here the comparison is event driven, so an idle node costs nothing: a failed
//! post, or a pod update the kubelet sees that disagrees with its cache, marks the
//! pod unsynced, and the node's next status sync (with its heartbeat, every 10 s)
//! posts it; when a partition ends, the kubelet compares every pod it caches at once
//! (cost proportional to its node's pods).

use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::error::ApiError;
use crate::object::{Object, ObjectKey};
use k8s_openapi::api::core::v1::{Pod, PodStatus};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, OnceLock};

/// One pod's entry in the cache: the pod's uid (a pod deleted and created again
/// under the same name is another pod) and the status the kubelet last set.
///
/// Once the apiserver stored a post carrying exactly that status (the usual case),
/// the entry reads it from the stored pod instead of keeping a copy of its own.
/// Snapshots hold the uid and the status, as for any entry.
#[derive(Clone, Debug)]
pub struct CachedStatus {
    pub uid: String,
    status: Cached,
}

#[derive(Clone, Debug)]
enum Cached {
    /// The status of this pod object, as the apiserver stored it.
    Stored(Arc<Object>),
    Own(Box<PodStatus>),
}

impl CachedStatus {
    fn new(uid: String, status: PodStatus) -> CachedStatus {
        CachedStatus {
            uid,
            status: Cached::Own(Box::new(status)),
        }
    }

    /// The status the kubelet last set.
    pub fn status(&self) -> &PodStatus {
        static EMPTY: OnceLock<PodStatus> = OnceLock::new();
        match &self.status {
            Cached::Own(status) => status,
            Cached::Stored(pod) => pod
                .as_pod()
                .and_then(|p| p.status.as_ref())
                .unwrap_or_else(|| EMPTY.get_or_init(PodStatus::default)),
        }
    }

    /// Reads the status from `stored` from now on if it is the same pod with the
    /// same status.
    fn share_with(&mut self, stored: &Arc<Object>) {
        let Some(pod) = stored.as_pod() else {
            return;
        };
        if pod.metadata.uid.as_deref() == Some(self.uid.as_str())
            && pod.status.as_ref() == Some(self.status())
        {
            self.status = Cached::Stored(Arc::clone(stored));
        }
    }
}

impl PartialEq for CachedStatus {
    fn eq(&self, other: &CachedStatus) -> bool {
        self.uid == other.uid && self.status() == other.status()
    }
}

/// A cache entry as snapshots hold it.
#[derive(Serialize, Deserialize)]
struct CachedStatusData<U, S> {
    uid: U,
    status: S,
}

impl Serialize for CachedStatus {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        CachedStatusData {
            uid: self.uid.as_str(),
            status: self.status(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for CachedStatus {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let data = CachedStatusData::<String, PodStatus>::deserialize(deserializer)?;
        Ok(CachedStatus::new(data.uid, data.status))
    }
}

/// The conditions the kubelet owns (`kubetypes.PodConditionsByKubelet`).
pub const KUBELET_CONDITIONS: [&str; 5] = [
    "PodScheduled",
    "Ready",
    "Initialized",
    "ContainersReady",
    "PodReadyToStartContainers",
];

fn kubelet_owned(condition: &str) -> bool {
    KUBELET_CONDITIONS.contains(&condition)
}

/// `mergePodStatus`: the kubelet's status, with the conditions it does not own and
/// the fields others write taken from the apiserver's. Conditions keep the
/// apiserver's order; the kubelet's new ones follow.
pub fn merge_pod_status(api: &PodStatus, kubelet: &PodStatus) -> PodStatus {
    let mut merged = kubelet.clone();
    let ours = kubelet.conditions.as_deref().unwrap_or_default();
    let theirs = api.conditions.as_deref().unwrap_or_default();
    // Stored with the pod: room for exactly the conditions it keeps.
    let kept = theirs
        .iter()
        .filter(|c| !kubelet_owned(&c.type_) || ours.iter().any(|m| m.type_ == c.type_))
        .count()
        + ours
            .iter()
            .filter(|m| kubelet_owned(&m.type_) && !theirs.iter().any(|c| c.type_ == m.type_))
            .count();
    let mut conditions = Vec::with_capacity(kept);
    for c in theirs {
        if !kubelet_owned(&c.type_) {
            conditions.push(c.clone());
        } else if let Some(mine) = ours.iter().find(|m| m.type_ == c.type_) {
            conditions.push(mine.clone());
        }
    }
    for mine in ours {
        if kubelet_owned(&mine.type_) && !conditions.iter().any(|c| c.type_ == mine.type_) {
            conditions.push(mine.clone());
        }
    }
    merged.conditions = (!conditions.is_empty()).then_some(conditions);
    merged.nominated_node_name = api.nominated_node_name.clone();
    merged.resource_claim_statuses = api.resource_claim_statuses.clone();
    merged
}

impl Cluster {
    /// The pod as the kubelet on `node` sees it: the apiserver's object with the
    /// status merged from the status manager's cache.
    pub(crate) fn kubelet_pod(&self, node: &str, key: &ObjectKey) -> Option<Pod> {
        let mut pod = self.store.get(key)?.as_pod()?.clone();
        if let Some(merged) = self.kubelet_merged_status(node, key, &pod) {
            pod.status = Some(merged);
        }
        Some(pod)
    }

    /// The status the kubelet would post for `pod`, if it caches one for this pod.
    fn kubelet_merged_status(&self, node: &str, key: &ObjectKey, pod: &Pod) -> Option<PodStatus> {
        let cached = self.kubelets.get(node)?.statuses.get(key)?;
        if pod.metadata.uid.as_deref() != Some(cached.uid.as_str()) {
            return None;
        }
        Some(match &pod.status {
            Some(api) => merge_pod_status(api, cached.status()),
            None => merge_pod_status(&PodStatus::default(), cached.status()),
        })
    }

    /// `SetPodStatus` and the sync that follows: caches `pod`'s status and posts the
    /// pod. A post that fails leaves the pod unsynced, for the next status sync.
    pub(crate) fn kubelet_post_pod(
        &mut self,
        node: &str,
        pod: Pod,
    ) -> Result<std::sync::Arc<Object>, ApiError> {
        let key = ObjectKey::new(
            crate::object::Kind::Pod,
            pod.metadata.namespace.as_deref().unwrap_or_default(),
            pod.metadata.name.as_deref().unwrap_or_default(),
        );
        if let Some(k) = self.kubelets.get_mut(node) {
            k.statuses.insert(
                key.clone(),
                CachedStatus::new(
                    pod.metadata.uid.clone().unwrap_or_default(),
                    pod.status.clone().unwrap_or_default(),
                ),
            );
        }
        let result = self.update_as(Actor::Kubelet(node.to_string()), Object::Pod(Box::new(pod)));
        if let Some(k) = self.kubelets.get_mut(node) {
            match &result {
                Ok(stored) => {
                    k.unsynced.remove(&key);
                    if let Some(cached) = k.statuses.get_mut(&key) {
                        cached.share_with(stored);
                    }
                }
                Err(_) => {
                    k.unsynced.insert(key);
                }
            }
        }
        result
    }

    /// Forgets a pod's cached status (`deletePodStatus`): it is gone, or no longer
    /// this node's.
    pub(crate) fn kubelet_forget_status(&mut self, node: &str, key: &ObjectKey) {
        if let Some(k) = self.kubelets.get_mut(node) {
            k.statuses.remove(key);
            k.unsynced.remove(key);
        }
    }

    /// `needsReconcile` for a pod update the kubelet sees: when the apiserver's
    /// status disagrees with the cache, the pod is posted at the next status sync.
    pub(crate) fn kubelet_check_status(&mut self, node: &str, key: &ObjectKey, pod: &Pod) {
        let Some(merged) = self.kubelet_merged_status(node, key, pod) else {
            return;
        };
        if pod.status.as_ref() != Some(&merged) {
            if let Some(k) = self.kubelets.get_mut(node) {
                k.unsynced.insert(key.clone());
            }
        }
    }

    /// `syncBatch`: posts every unsynced pod (or, with `all`, every cached pod whose
    /// apiserver status differs), and forgets the pods that are gone.
    pub(crate) fn kubelet_sync_statuses(&mut self, node: &str, all: bool) {
        if !self.kubelet_reachable(node) || !self.api_writable() {
            return;
        }
        let keys: Vec<ObjectKey> = match self.kubelets.get(node) {
            Some(k) if all => k.statuses.keys().cloned().collect(),
            Some(k) => k.unsynced.iter().cloned().collect(),
            None => return,
        };
        for key in keys {
            let Some(pod) = self
                .store
                .get(&key)
                .and_then(Object::as_pod)
                .filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node))
                .cloned()
            else {
                self.kubelet_forget_status(node, &key);
                continue;
            };
            let Some(merged) = self.kubelet_merged_status(node, &key, &pod) else {
                // Deleted and created again: the cached status was another pod's.
                self.kubelet_forget_status(node, &key);
                continue;
            };
            if pod.status.as_ref() == Some(&merged) {
                if let Some(k) = self.kubelets.get_mut(node) {
                    k.unsynced.remove(&key);
                }
                continue;
            }
            let mut updated = pod;
            updated.status = Some(merged);
            let _ = self.kubelet_post_pod(node, updated);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::PodCondition;

    fn cond(t: &str, s: &str) -> PodCondition {
        PodCondition {
            type_: t.into(),
            status: s.into(),
            ..Default::default()
        }
    }

    #[test]
    fn the_kubelet_owns_ready_but_not_disruption_target() {
        let api = PodStatus {
            conditions: Some(vec![
                cond("Ready", "False"),
                cond("DisruptionTarget", "True"),
                cond("PodScheduled", "True"),
            ]),
            nominated_node_name: Some("zone-a".into()),
            phase: Some("Pending".into()),
            ..Default::default()
        };
        let kubelet = PodStatus {
            conditions: Some(vec![
                cond("PodScheduled", "True"),
                cond("Ready", "True"),
                cond("ContainersReady", "True"),
            ]),
            phase: Some("Running".into()),
            ..Default::default()
        };
        let merged = merge_pod_status(&api, &kubelet);
        let got: Vec<(&str, &str)> = merged
            .conditions
            .iter()
            .flatten()
            .map(|c| (c.type_.as_str(), c.status.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("Ready", "True"),
                ("DisruptionTarget", "True"),
                ("PodScheduled", "True"),
                ("ContainersReady", "True"),
            ]
        );
        assert_eq!(merged.phase.as_deref(), Some("Running"));
        assert_eq!(merged.nominated_node_name.as_deref(), Some("zone-a"));
        assert_eq!(merge_pod_status(&merged, &kubelet), merged, "a fixed point");
    }
}
