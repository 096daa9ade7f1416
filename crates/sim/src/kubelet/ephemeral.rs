//! Ephemeral containers in a running pod (pkg/kubelet/kuberuntime
//! `computePodActions`: `EphemeralContainersToStart`, and `convertToAPIContainerStatuses`
//! for `status.ephemeralContainerStatuses`).
//!
//! When the pod update that added one reaches the kubelet, the container gets a
//! status (Waiting, ContainerCreating), its image is pulled as any container's is
//! (the Pulling/Pulled, Created, Started events), and it starts once. It is never
//! restarted, whatever the pod's restart policy, never probed and never ready, and
//! its state does not count in the pod's phase, READY column or conditions. A
//! `targetContainerName` puts it in that container's process namespace, so `ps`
//! in it lists the target's processes ([`Cluster::processes_seen_from`]).
//!
//! Simplified: an ephemeral container added to a pod the kubelet has not started
//! yet starts with the pod's next change, not with its app containers.

use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey};
use k8s_openapi::api::core::v1::{ContainerState, ContainerStateWaiting, ContainerStatus, Pod};

impl Cluster {
    /// A pod update the kubelet sees: each ephemeral container it has not met yet
    /// is created and its image pulled (then [`Cluster::start_container_named`]).
    pub(crate) fn kubelet_ephemeral_added(&mut self, node: &str, key: &ObjectKey, pod: &Pod) {
        let Some(rt) = self.kubelets.get(node).and_then(|k| k.containers.get(key)) else {
            return;
        };
        let new: Vec<(String, String)> = pod
            .spec
            .iter()
            .flat_map(|s| s.ephemeral_containers.iter().flatten())
            .filter(|c| !rt.containers.contains_key(&c.name) && !rt.pulls.contains_key(&c.name))
            .map(|c| (c.name.clone(), c.image.clone().unwrap_or_default()))
            .collect();
        if new.is_empty() {
            return;
        }
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let mut pod = pod.clone();
        for (name, image) in new {
            let status = pod.status.get_or_insert_with(Default::default);
            let list = status
                .ephemeral_container_statuses
                .get_or_insert_with(Vec::new);
            if !list.iter().any(|s| s.name == name) {
                list.push(ContainerStatus {
                    name: name.clone(),
                    image: image.clone(),
                    state: Some(ContainerState {
                        waiting: Some(ContainerStateWaiting {
                            reason: Some("ContainerCreating".into()),
                            message: None,
                        }),
                        ..Default::default()
                    }),
                    ..Default::default()
                });
            }
            if !self.pull_now(node, key, &uid, &name, &image) {
                return;
            }
        }
        self.write_pod_with_events(node, pod, Vec::new());
    }

    /// The processes `container` of a pod sees (`ps`), oldest first, as `(PID,
    /// command line)`: its own; with a `targetContainerName`, the target's first
    /// (its PID 1); with `shareProcessNamespace`, the pause process and every
    /// running container's. The caller adds the command it runs.
    pub fn processes_seen_from(
        &self,
        namespace: &str,
        pod_name: &str,
        container: &str,
    ) -> Vec<(u32, String)> {
        let key = ObjectKey::new(Kind::Pod, namespace, pod_name);
        let Some(Object::Pod(pod)) = self.store.get(&key) else {
            return Vec::new();
        };
        let spec = pod.spec.clone().unwrap_or_default();
        let node = spec.node_name.clone().unwrap_or_default();
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let command = |name: &str| {
            self.current_run(&node, &key, &uid, name)
                .filter(|r| r.finished_ms.is_none())
                .map(|r| r.process.argv.join(" "))
        };
        let mut names: Vec<String> = Vec::new();
        let mut lines: Vec<String> = Vec::new();
        if spec.share_process_namespace == Some(true) {
            lines.push("/pause".into());
            names.extend(
                spec.init_containers
                    .iter()
                    .flatten()
                    .chain(spec.containers.iter())
                    .map(|c| c.name.clone()),
            );
            names.extend(
                spec.ephemeral_containers
                    .iter()
                    .flatten()
                    .map(|c| c.name.clone()),
            );
        } else {
            let target = spec
                .ephemeral_containers
                .iter()
                .flatten()
                .find(|c| c.name == container)
                .and_then(|c| c.target_container_name.clone())
                .filter(|t| !t.is_empty());
            names.extend(target);
            names.push(container.to_string());
        }
        lines.extend(names.iter().filter_map(|n| command(n)));
        // PIDs as a fresh namespace hands them out, a few apart.
        lines
            .into_iter()
            .enumerate()
            .map(|(i, l)| (if i == 0 { 1 } else { 1 + 6 * i as u32 }, l))
            .collect()
    }
}
