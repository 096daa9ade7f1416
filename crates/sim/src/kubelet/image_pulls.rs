//! The kubelet's image pulls that fail: ErrImagePull, ImagePullBackOff and
//! ErrImageNeverPull, with the image back-off of 10 s doubling to 300 s.
//!
//! Mirrors pkg/kubelet/images/image_manager.go (`EnsureImageExists`: the pull policy,
//! the per-pod-and-image `flowcontrol.Backoff`, the `Failed`, `BackOff` and
//! `ErrImageNeverPull` events) and the waiting reasons of pkg/kubelet/images/types.go.
//! Simplified: a failing pull fails at once (upstream spends a moment resolving the
//! reference); the ImagePullBackOff status comes 1 s after the failure (the next pod
//! sync); a changed image in the pod spec is pulled at once (a running container
//! with a changed image is restarted with it, `kubelet_definition_changed`).

use crate::cluster::Cluster;
use crate::kubelet::containers::{
    refresh_pod_status, PendingEvent, BACKOFF_INITIAL_MS, BACKOFF_MAX_MS, RELIST_MS,
};
use crate::kubelet::images;
use crate::kubelet::KubeletTimer;
use crate::object::{Object, ObjectKey};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::{ContainerState, ContainerStateWaiting, Pod};
use serde::{Deserialize, Serialize};

/// A container whose image the kubelet failed to pull.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullState {
    /// The image of the last attempt.
    pub image: String,
    /// Counts attempts; names the timers of the latest one.
    pub attempt: u32,
    /// The last failure, as containerd reported it.
    pub error: String,
    /// The back-off entry: duration and last update (ms).
    pub backoff_ms: u64,
    pub backoff_last_ms: u64,
}

fn set_waiting(pod: &mut Pod, name: &str, image: &str, reason: &str, message: String) {
    let ephemeral = crate::kubelet::containers::is_ephemeral(pod, name);
    if let Some(cs) = crate::kubelet::containers::status_mut(pod, name) {
        cs.image = image.to_string();
        cs.ready = false;
        if !ephemeral {
            cs.started = Some(false);
        }
        cs.state = Some(ContainerState {
            waiting: Some(ContainerStateWaiting {
                reason: Some(reason.into()),
                message: Some(message),
            }),
            ..Default::default()
        });
    }
}

/// The image and pull policy of an app or ephemeral container (init containers'
/// images are pulled with the pod's).
fn container_image(pod: &Pod, name: &str) -> Option<(String, String)> {
    let spec = pod.spec.as_ref()?;
    let c = match spec.containers.iter().find(|c| c.name == name) {
        Some(c) => c.clone(),
        None => spec
            .ephemeral_containers
            .iter()
            .flatten()
            .find(|c| c.name == name)
            .map(crate::object::ephemeral_as_container)?,
    };
    Some((
        c.image.clone().unwrap_or_default(),
        c.image_pull_policy
            .clone()
            .unwrap_or_else(|| "IfNotPresent".into()),
    ))
}

impl Cluster {
    /// Whether container `name` of a pod whose pulls are done may start: not when
    /// its image could not be had (then it waits: ErrImagePull or ErrImageNeverPull).
    pub(crate) fn start_or_fail_pull(
        &mut self,
        node: &str,
        key: &ObjectKey,
        pod: &mut Pod,
        name: &str,
        present_before: bool,
        events: &mut Vec<PendingEvent>,
    ) -> bool {
        let Some((c, _)) = crate::kubelet::containers::spec_container(pod, name) else {
            return false;
        };
        let image = c.image.clone().unwrap_or_default();
        let policy = c.image_pull_policy.as_deref().unwrap_or("IfNotPresent");
        if policy == "Never" && !present_before {
            let message =
                format!("Container image \"{image}\" is not present with pull policy of Never");
            events.push(("Warning", "ErrImageNeverPull", message.clone()));
            set_waiting(pod, &c.name, &image, "ErrImageNeverPull", message);
            return false;
        }
        if policy != "Never" || !present_before {
            if let Some(error) = images::pull_error(&image) {
                self.image_pull_failed_in(node, key, pod, &c.name, &image, error, events);
                return false;
            }
        }
        if let Some(rt) = self.pod_runtime_mut(node, key) {
            rt.pulls.remove(&c.name);
        }
        true
    }

    /// Records a failed pull in `pod` and arms the back-off.
    #[allow(clippy::too_many_arguments)]
    fn image_pull_failed_in(
        &mut self,
        node: &str,
        key: &ObjectKey,
        pod: &mut Pod,
        name: &str,
        image: &str,
        error: String,
        events: &mut Vec<PendingEvent>,
    ) {
        let now = self.now.0;
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let Some(k) = self.kubelets.get_mut(node) else {
            return;
        };
        let rt = k.containers.entry(key.clone()).or_default();
        rt.uid = uid.clone();
        let st = rt.pulls.entry(name.to_string()).or_default();
        // backOff.Next: a fresh or forgotten entry starts at 10 s, else it doubles.
        let expired = st.backoff_ms == 0
            || now.saturating_sub(st.backoff_last_ms) > 2 * BACKOFF_MAX_MS
            || st.image != image;
        st.backoff_ms = if expired {
            BACKOFF_INITIAL_MS
        } else {
            (st.backoff_ms * 2).min(BACKOFF_MAX_MS)
        };
        st.backoff_last_ms = now;
        st.attempt += 1;
        st.image = image.to_string();
        st.error = error.clone();
        let (attempt, backoff) = (st.attempt, st.backoff_ms);
        events.push((
            "Warning",
            "Failed",
            format!("Failed to pull image \"{image}\": {error}"),
        ));
        events.push(("Warning", "Failed", "Error: ErrImagePull".into()));
        set_waiting(pod, name, image, "ErrImagePull", error);
        self.schedule(
            self.now + SimDuration::millis(RELIST_MS),
            KubeletTimer::ImagePullBackOff {
                node: node.to_string(),
                pod: key.clone(),
                uid: uid.clone(),
                container: name.to_string(),
                attempt,
            },
        );
        self.schedule(
            self.now + SimDuration::millis(backoff),
            KubeletTimer::ImagePullRetry {
                node: node.to_string(),
                pod: key.clone(),
                uid,
                container: name.to_string(),
                attempt,
            },
        );
    }

    /// The pod and pull state for a pull timer, if it is still current.
    fn pull_context(
        &self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
        attempt: u32,
    ) -> Option<(Pod, PullState)> {
        let k = self.kubelets.get(node).filter(|k| k.running)?;
        match k.pods.get(key) {
            Some(crate::kubelet::RuntimePod::Running { uid: u }) if u == uid => {}
            _ => return None,
        }
        let st = k
            .containers
            .get(key)
            .filter(|r| r.uid == uid)?
            .pulls
            .get(name)
            .filter(|s| s.attempt == attempt)?
            .clone();
        let pod = self.kubelet_pod(node, key)?;
        if pod.metadata.uid.as_deref() != Some(uid)
            || pod.metadata.deletion_timestamp.is_some()
            || crate::kubelet::containers::pod_is_terminal(&pod)
        {
            return None;
        }
        Some((pod, st))
    }

    pub(crate) fn kubelet_image_pull_backoff(
        &mut self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
        attempt: u32,
    ) {
        let Some((mut pod, st)) = self.pull_context(node, key, uid, name, attempt) else {
            return;
        };
        let message = format!(
            "Back-off pulling image \"{}\": ErrImagePull: {}",
            st.image, st.error
        );
        set_waiting(&mut pod, name, &st.image, "ImagePullBackOff", message);
        let events = vec![
            (
                "Normal",
                "BackOff",
                format!("Back-off pulling image \"{}\"", st.image),
            ),
            ("Warning", "Failed", "Error: ImagePullBackOff".to_string()),
        ];
        self.write_pod_with_events(node, pod, events);
    }

    pub(crate) fn kubelet_image_pull_retry(
        &mut self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
        attempt: u32,
    ) {
        let Some((mut pod, _)) = self.pull_context(node, key, uid, name, attempt) else {
            return;
        };
        let Some((image, policy)) = container_image(&pod, name) else {
            return;
        };
        let present = self
            .kubelets
            .get(node)
            .is_some_and(|k| k.images.contains(&image));
        if present && policy != "Always" {
            let events = vec![(
                "Normal",
                "Pulled",
                format!("Container image \"{image}\" already present on machine and can be accessed by the pod"),
            )];
            self.finish_pull(node, key, pod, name, events);
            return;
        }
        if policy == "Never" {
            let mut events = Vec::new();
            self.start_or_fail_pull(node, key, &mut pod, name, false, &mut events);
            self.write_pod_with_events(node, pod, events);
            return;
        }
        let mut events = vec![("Normal", "Pulling", format!("Pulling image \"{image}\""))];
        if let Some(error) = images::pull_error(&image) {
            self.image_pull_failed_in(node, key, &mut pod, name, &image, error, &mut events);
            self.write_pod_with_events(node, pod, events);
            return;
        }
        let obj = Object::Pod(Box::new(pod));
        for (t, reason, message) in events {
            self.record_event(&obj, "kubelet", Some(node), t, reason, message);
        }
        let ms = images::pull_ms(&image);
        self.schedule(
            self.now + SimDuration::millis(ms),
            KubeletTimer::ImagePulled {
                node: node.to_string(),
                pod: key.clone(),
                uid: uid.to_string(),
                container: name.to_string(),
                attempt,
            },
        );
    }

    pub(crate) fn kubelet_image_pulled(
        &mut self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
        attempt: u32,
    ) {
        let Some((pod, _)) = self.pull_context(node, key, uid, name, attempt) else {
            return;
        };
        let Some((image, _)) = container_image(&pod, name) else {
            return;
        };
        let ms = images::pull_ms(&image);
        let events = vec![(
            "Normal",
            "Pulled",
            format!(
                "Successfully pulled image \"{image}\" in {} ({} including waiting). Image size: {} bytes.",
                crate::time::go_duration(SimDuration::millis(ms)),
                crate::time::go_duration(SimDuration::millis(ms)),
                images::size(&image)
            ),
        )];
        if let Some(k) = self.kubelets.get_mut(node) {
            k.images.insert(image);
        }
        self.finish_pull(node, key, pod, name, events);
    }

    fn finish_pull(
        &mut self,
        node: &str,
        key: &ObjectKey,
        mut pod: Pod,
        name: &str,
        mut events: Vec<PendingEvent>,
    ) {
        if let Some(rt) = self.pod_runtime_mut(node, key) {
            rt.pulls.remove(name);
        }
        if let Some((image, _)) = container_image(&pod, name) {
            if let Some(cs) = crate::kubelet::containers::status_mut(&mut pod, name) {
                cs.image_id = crate::kubelet::image_id(&image);
                cs.image = image;
            }
        }
        self.start_container_named(node, key, &mut pod, name, &mut events);
        refresh_pod_status(&mut pod, &self.now.to_k8s());
        self.write_pod_with_events(node, pod, events);
    }

    /// A pull of `image` for container `name` starts now, as the pull state's next
    /// attempt (`ImagePullRetry`, then `ImagePulled` and the start). False when the
    /// runtime does not run the pod.
    pub(crate) fn pull_now(
        &mut self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
        image: &str,
    ) -> bool {
        let Some(rt) = self.pod_runtime_mut(node, key) else {
            return false;
        };
        let st = rt.pulls.entry(name.to_string()).or_default();
        st.attempt += 1;
        st.image = image.to_string();
        let attempt = st.attempt;
        self.schedule(
            self.now,
            KubeletTimer::ImagePullRetry {
                node: node.to_string(),
                pod: key.clone(),
                uid: uid.to_string(),
                container: name.to_string(),
                attempt,
            },
        );
        true
    }

    /// A pod update the kubelet sees: a container waiting for an image that the spec
    /// now names differently is pulled again at once.
    pub(crate) fn kubelet_image_changed(&mut self, node: &str, key: &ObjectKey, pod: &Pod) {
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let Some(rt) = self.pod_runtime_mut(node, key) else {
            return;
        };
        let mut retry = Vec::new();
        for (name, st) in rt.pulls.iter_mut() {
            let Some((image, _)) = container_image(pod, name) else {
                continue;
            };
            if image != st.image {
                st.attempt += 1;
                retry.push((name.clone(), st.attempt));
            }
        }
        for (name, attempt) in retry {
            self.schedule(
                SimTime(self.now.0),
                KubeletTimer::ImagePullRetry {
                    node: node.to_string(),
                    pod: key.clone(),
                    uid: uid.clone(),
                    container: name,
                    attempt,
                },
            );
        }
    }
}
