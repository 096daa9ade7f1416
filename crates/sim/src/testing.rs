//! Test hooks that stand in for parts of the simulation not built yet. Hidden from
//! the documentation: lessons and the UI never call them.
//!
//! [`Cluster::kubelet_report_container_exit`] acts as a pod's kubelet when its
//! containers exit, so the Job controller can be tested before the runtime runs
//! commands: it posts the status a kubelet would (phase, terminated container states,
//! restart counts, conditions) through the apiserver as `system:node:<node>`, and
//! forgets the pod's containers in the kubelet's runtime state so that no later sync
//! of the kubelet overwrites that status.

use crate::cluster::Cluster;
use crate::controllers::set_pod_condition;
use crate::error::SimError;
use crate::object::{Kind, Object, ObjectKey};
use k8s_openapi::api::core::v1::{
    ContainerState, ContainerStateTerminated, ContainerStateWaiting, PodCondition,
};

impl Cluster {
    /// Every container of the pod exits with `exit_code`, as its kubelet reports it:
    /// with restartPolicy Never (or OnFailure and code 0) the pod ends Succeeded
    /// (code 0) or Failed; otherwise the containers restart (restartCount + 1,
    /// `lastState.terminated`, waiting in CrashLoopBackOff).
    #[doc(hidden)]
    pub fn kubelet_report_container_exit(
        &mut self,
        namespace: &str,
        name: &str,
        exit_code: i32,
    ) -> Result<(), SimError> {
        let key = ObjectKey::new(Kind::Pod, namespace, name);
        let Some(Object::Pod(pod)) = self.store.get(&key) else {
            return Err(SimError(format!("pod \"{name}\" not found")));
        };
        let Some(node) = pod.spec.as_ref().and_then(|s| s.node_name.clone()) else {
            return Err(SimError(format!("pod \"{name}\" is not bound to a node")));
        };
        // The kubelet's own view of the pod (its status manager's).
        let mut pod = self
            .kubelet_pod(&node, &key)
            .unwrap_or_else(|| (**pod).clone());
        if !self.kubelets.get(&node).is_some_and(|k| k.running) {
            return Err(SimError(format!("node \"{node}\" is down")));
        }
        let policy = pod
            .spec
            .as_ref()
            .and_then(|s| s.restart_policy.clone())
            .unwrap_or_else(|| "Always".into());
        let terminal = policy == "Never" || (policy == "OnFailure" && exit_code == 0);
        let now = self.now.to_k8s();
        let reason = if exit_code == 0 { "Completed" } else { "Error" };
        let status = pod.status.get_or_insert_with(Default::default);
        for cs in status.container_statuses.iter_mut().flatten() {
            let started_at = cs
                .state
                .as_ref()
                .and_then(|s| s.running.as_ref())
                .and_then(|r| r.started_at.clone());
            let terminated = ContainerStateTerminated {
                exit_code,
                reason: Some(reason.into()),
                started_at,
                finished_at: Some(now.clone()),
                container_id: cs.container_id.clone(),
                ..Default::default()
            };
            cs.ready = false;
            cs.started = Some(false);
            if terminal {
                cs.state = Some(ContainerState {
                    terminated: Some(terminated),
                    ..Default::default()
                });
            } else {
                cs.restart_count += 1;
                cs.last_state = Some(ContainerState {
                    terminated: Some(terminated),
                    ..Default::default()
                });
                cs.state = Some(ContainerState {
                    waiting: Some(ContainerStateWaiting {
                        reason: Some("CrashLoopBackOff".into()),
                        message: None,
                    }),
                    ..Default::default()
                });
            }
        }
        if terminal {
            status.phase = Some(
                if exit_code == 0 {
                    "Succeeded"
                } else {
                    "Failed"
                }
                .into(),
            );
        }
        let cond_reason = if terminal {
            "PodCompleted"
        } else {
            "ContainersNotReady"
        };
        for t in ["Ready", "ContainersReady"] {
            set_pod_condition(
                &mut pod,
                PodCondition {
                    type_: t.into(),
                    status: "False".into(),
                    reason: Some(cond_reason.into()),
                    last_transition_time: Some(now.clone()),
                    ..Default::default()
                },
            );
        }
        if terminal {
            if let Some(k) = self.kubelets.get_mut(&node) {
                k.pods.remove(&key);
                k.pulled_events.remove(&key);
            }
        }
        self.current_cause = crate::trace::Cause::User;
        self.kubelet_post_pod(&node, pod)
            .map(|_| ())
            .map_err(|e| SimError(e.message))
    }
}
