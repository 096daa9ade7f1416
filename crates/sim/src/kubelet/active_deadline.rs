//! The kubelet's active deadline handler (pkg/kubelet/active_deadline.go): a pod
//! whose `spec.activeDeadlineSeconds` have passed since its `status.startTime` is
//! failed by its kubelet (phase Failed, reason `DeadlineExceeded`) and its running
//! containers are killed.
//!
//! Upstream checks the deadline on every pod sync and the kubelet's sync loop asks
//! each second whether a pod's deadline has come; here one `KubeletTimer::ActiveDeadline`
//! per pod fires at the deadline (armed again when a spec update shortens it). A huge
//! deadline saturates at `SimTime::MAX` instead of overflowing.
//!
//! Simplified: the containers are killed at once (exit code 137, reason `Error`, as
//! a SIGKILL), without the pod's termination grace period; containers that never
//! started stay waiting.

use crate::cluster::Cluster;
use crate::kubelet::containers::refresh_pod_status;
use crate::kubelet::KubeletTimer;
use crate::object::ObjectKey;
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::{ContainerState, ContainerStateTerminated, Pod};

/// The status reason upstream sets.
pub const REASON: &str = "DeadlineExceeded";
/// The status and event message upstream sets.
pub const MESSAGE: &str = "Pod was active on the node longer than the specified deadline";

/// When `pod` passes its active deadline (start time plus `activeDeadlineSeconds`),
/// if it has one; a pod not started yet counts from `now`.
pub(crate) fn deadline(pod: &Pod, now: SimTime) -> Option<SimTime> {
    let seconds = pod.spec.as_ref()?.active_deadline_seconds?;
    let start = pod
        .status
        .as_ref()
        .and_then(|s| s.start_time.as_ref())
        .map_or(now, SimTime::from_k8s);
    Some(start + SimDuration::from_secs_i64(seconds))
}

impl Cluster {
    /// Called on every sync of a live, non-terminal pod this kubelet runs: fails the
    /// pod when its deadline has passed (returns true), else arms the timer for it.
    pub(crate) fn kubelet_check_active_deadline(
        &mut self,
        node: &str,
        key: &ObjectKey,
        pod: &Pod,
    ) -> bool {
        let Some(at) = deadline(pod, self.now) else {
            return false;
        };
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        if at <= self.now {
            self.kubelet_deadline_exceeded(node, key, pod.clone());
            return true;
        }
        let Some(k) = self.kubelets.get_mut(node) else {
            return false;
        };
        if k.deadlines.get(key) == Some(&(uid.clone(), at)) {
            return false; // already armed for this moment
        }
        k.deadlines.insert(key.clone(), (uid.clone(), at));
        self.schedule(
            at,
            KubeletTimer::ActiveDeadline {
                node: node.to_string(),
                pod: key.clone(),
                uid,
            },
        );
        false
    }

    /// `KubeletTimer::ActiveDeadline`: the deadline armed for this pod has come.
    pub(crate) fn kubelet_active_deadline_fired(&mut self, node: &str, key: &ObjectKey, uid: &str) {
        let Some(k) = self.kubelets.get_mut(node) else {
            return;
        };
        if !k.running {
            return;
        }
        match k.deadlines.get(key) {
            Some((u, at)) if u == uid && *at <= self.now => {
                k.deadlines.remove(key);
            }
            _ => return, // re-armed for another moment, or forgotten
        }
        if k.pods.get(key).is_none_or(|rp| rp.uid() != uid) {
            return;
        }
        let Some(pod) = self.kubelet_pod(node, key) else {
            return;
        };
        let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
        if pod.metadata.uid.as_deref() != Some(uid)
            || pod.metadata.deletion_timestamp.is_some()
            || matches!(phase, Some("Succeeded") | Some("Failed"))
        {
            return;
        }
        self.kubelet_check_active_deadline(node, key, &pod);
    }

    /// `ShouldEvict` said yes: the pod's running containers are killed and the pod
    /// posted Failed with reason `DeadlineExceeded`.
    fn kubelet_deadline_exceeded(&mut self, node: &str, key: &ObjectKey, mut pod: Pod) {
        if let Some(k) = self.kubelets.get_mut(node) {
            k.deadlines.remove(key);
        }
        let now_ms = self.now.0;
        let now = self.now.to_k8s();
        let mut events = vec![("Normal", REASON, MESSAGE.to_string())];
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let runs = self.pod_runtime_mut(node, key).filter(|r| r.uid == uid);
        let mut killed: Vec<String> = Vec::new();
        if let Some(runs) = runs {
            for (name, run) in runs.containers.iter_mut() {
                if run.finished_ms.is_none() {
                    run.finished_ms = Some(now_ms);
                    killed.push(name.clone());
                }
            }
        }
        let status = pod.status.get_or_insert_with(Default::default);
        for cs in status
            .container_statuses
            .iter_mut()
            .flatten()
            .chain(status.init_container_statuses.iter_mut().flatten())
        {
            let Some(running) = cs.state.as_ref().and_then(|s| s.running.clone()) else {
                continue;
            };
            if !killed.contains(&cs.name) {
                continue;
            }
            events.push((
                "Normal",
                "Killing",
                format!("Stopping container {}", cs.name),
            ));
            cs.ready = false;
            cs.started = Some(false);
            cs.state = Some(ContainerState {
                terminated: Some(ContainerStateTerminated {
                    exit_code: 137,
                    reason: Some("Error".into()),
                    started_at: running.started_at,
                    finished_at: Some(now.clone()),
                    container_id: cs.container_id.clone(),
                    ..Default::default()
                }),
                ..Default::default()
            });
        }
        refresh_pod_status(&mut pod, &now);
        let status = pod.status.get_or_insert_with(Default::default);
        status.phase = Some("Failed".into());
        status.reason = Some(REASON.into());
        status.message = Some(MESSAGE.into());
        self.write_pod_with_events(node, pod, events);
    }
}
