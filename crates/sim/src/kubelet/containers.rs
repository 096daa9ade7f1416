//! The kubelet's container lifecycle: process exits, restart policy, CrashLoopBackOff,
//! container states and the pod phase.
//!
//! Mirrors pkg/kubelet/kuberuntime/kuberuntime_manager.go (`computePodActions`,
//! `doBackOff`: the per-container back-off of 10 s doubling to 300 s, forgotten when
//! the container last finished more than 2 × 300 s before), client-go's
//! `flowcontrol.Backoff`, and pkg/kubelet/kubelet_pods.go (`getPhase`,
//! `convertToAPIContainerStatuses`). Simplified: the kubelet notices an exit at once
//! (upstream's PLEG relists every second); the first restart of a container, which
//! upstream does at the next sync, comes 1 s after its exit; while a container waits
//! out its back-off its status says `CrashLoopBackOff` from the moment it exits, and
//! it restarts exactly when the back-off ends (upstream retries at its next pod sync,
//! a few seconds of jitter later). Exited containers are not garbage collected.
//! Init containers run one at a time before the app containers (`getPhase` keeps the
//! pod Pending meanwhile, and Failed when one fails under restartPolicy Never);
//! simplified: every image of the pod, init containers' included, is pulled before
//! the first init container starts.
//!
//! Sidecars (init containers with `restartPolicy: Always`, pkg/kubelet/kuberuntime's
//! `computePodActions` and `types.IsRestartableInitContainer`): each starts in its
//! turn among the init containers, and the next one starts once it has *started*
//! (its startup probe passed), not completed; it is restarted whenever it exits,
//! whatever the pod's restart policy; its readiness counts in the pod's Ready
//! condition. When every app container of a pod that does not restart them has
//! finished, the kubelet stops the sidecars and the pod's phase follows its app
//! containers (`getPhase`: terminated sidecars do not count).

use crate::cluster::Cluster;
use crate::controllers::set_pod_condition;
use crate::kubelet::images;
use crate::kubelet::runtime::{self, Outcome, Process};
use crate::kubelet::KubeletTimer;
use crate::object::{Object, ObjectKey};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::{
    Container, ContainerState, ContainerStateRunning, ContainerStateTerminated,
    ContainerStateWaiting, ContainerStatus, Pod, PodCondition,
};
use litemap::LiteMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The back-off after the first crash (`initialBackOff`… kubelet's `backOffPeriod`).
pub const BACKOFF_INITIAL_MS: u64 = 10_000;
/// The longest back-off (`MaxContainerBackOff`).
pub const BACKOFF_MAX_MS: u64 = 300_000;
/// The kubelet sees an exit and restarts a container without back-off this much later
/// (its PLEG relist period).
pub const RELIST_MS: u64 = 1_000;
/// The largest exit-search budget before a process is taken to run forever.
const MAX_BUDGET: u64 = runtime::EXIT_SEARCH_BUDGET * 64;

/// What the runtime knows about one container of a pod.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerRun {
    /// The current (or last) instance's process.
    pub process: Process,
    /// The current instance's container ID.
    pub id: String,
    /// The instance before it (for `kubectl logs --previous`).
    pub previous: Option<PastRun>,
    /// Which instance this is: the container's restartCount when it started.
    pub restarts: i32,
    /// When the current instance finished, if it has.
    pub finished_ms: Option<u64>,
    /// The back-off entry (client-go `flowcontrol.Backoff`): duration and last update;
    /// zero when there is none.
    pub backoff_ms: u64,
    pub backoff_last_ms: u64,
    /// Whether the pending restart advances the back-off (`backOff.Next`).
    pub next_on_restart: bool,
    /// Shell commands to replay while looking for the exit (grows when not enough).
    pub budget: u64,
    /// Probe results so far, by probe (`kubelet_probes.rs`).
    #[serde(default)]
    pub probes: BTreeMap<crate::kubelet::probes::ProbeKind, crate::kubelet::probes::ProbeState>,
    /// The kubelet is killing this instance (a failed liveness or startup probe): it
    /// probes it no more and restarts it when it has stopped.
    #[serde(default)]
    pub killing: bool,
    /// The HTTP requests this instance answered lately, by second: the CPU they
    /// cost shows in its usage (`runtime::cpu_millis`).
    #[serde(default)]
    pub served: runtime::Served,
    /// When the pod terminates: the moment this instance has stopped, after its
    /// preStop hook and SIGTERM; it answers requests until then (`lifecycle.rs`).
    #[serde(default)]
    pub stops_at_ms: Option<u64>,
}

/// A dead container instance the runtime still keeps (upstream keeps one per
/// container, `MaxPerPodContainer`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PastRun {
    pub process: Process,
    pub finished_ms: u64,
    pub id: String,
}

/// The runtime's containers of one pod.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodRuntime {
    pub uid: String,
    /// A sorted vector, not a `BTreeMap`: most pods have one container, and a tree's
    /// node holds room for eleven. Boxed, so the vector's spare room stays small.
    pub containers: LiteMap<String, Box<ContainerRun>>,
    /// Containers whose image could not be pulled (`kubelet_images.rs`).
    pub pulls: BTreeMap<String, crate::kubelet::image_pulls::PullState>,
}

/// An event to record once the pod is written: (type, reason, message).
pub(crate) type PendingEvent = (&'static str, &'static str, String);

/// `format.Pod`: `name_namespace(uid)`.
fn format_pod(pod: &Pod) -> String {
    format!(
        "{}_{}({})",
        pod.metadata.name.as_deref().unwrap_or(""),
        pod.metadata.namespace.as_deref().unwrap_or(""),
        pod.metadata.uid.as_deref().unwrap_or("")
    )
}

fn container_id(cluster: &mut Cluster) -> String {
    format!(
        "containerd://{:016x}{:016x}{:016x}{:016x}",
        cluster.rng.next_u64(),
        cluster.rng.next_u64(),
        cluster.rng.next_u64(),
        cluster.rng.next_u64()
    )
}

fn limit(c: &Container, name: &str) -> Option<String> {
    c.resources
        .as_ref()?
        .limits
        .as_ref()?
        .get(name)
        .map(|q| q.0.clone())
}

/// A container not yet running: waiting in ContainerCreating, neither started nor
/// ready.
fn set_creating(cs: &mut ContainerStatus) {
    cs.ready = false;
    cs.started = Some(false);
    cs.state = Some(ContainerState {
        waiting: Some(ContainerStateWaiting {
            reason: Some("ContainerCreating".into()),
            message: None,
        }),
        ..Default::default()
    });
}

/// The pod's `terminationGracePeriodSeconds` (30 by default), in ms.
pub(crate) fn grace_period_ms(pod: &Pod) -> u64 {
    SimDuration::from_secs_i64(
        pod.spec
            .as_ref()
            .and_then(|s| s.termination_grace_period_seconds)
            .unwrap_or(30),
    )
    .as_millis()
}

/// How a container told to stop ends: a server stops cleanly on SIGTERM (exit 0,
/// after its stop time); anything else is killed (137) when the grace period ends.
/// `(code, delay in ms)`.
pub(crate) fn stop_outcome(process: &Process, grace_ms: u64) -> (i32, u64) {
    let stop_ms = images::stop_ms(&process.image);
    if crate::kubelet::probes::stops_cleanly(process) && stop_ms <= grace_ms {
        (0, stop_ms)
    } else {
        (137, grace_ms)
    }
}

/// The process a container runs when it starts now, or why it cannot be created
/// (`CreateContainerConfigError`: a ConfigMap or Secret it reads is missing).
pub(crate) fn process_for(
    cluster: &Cluster,
    pod: &Pod,
    c: &Container,
    now: SimTime,
) -> Result<Process, String> {
    let env = crate::kubelet::env::environment(cluster, pod, c)?;
    let image = c.image.clone().unwrap_or_default();
    let argv = runtime::argv(
        &image,
        c.command.as_deref().unwrap_or_default(),
        c.args.as_deref(),
        &env,
    );
    Ok(Process {
        image,
        argv,
        env,
        started_ms: now.0,
        memory_limit: limit(c, "memory").and_then(|q| crate::object::quantity::bytes(&q)),
        cpu_limit_milli: limit(c, "cpu")
            .and_then(|q| crate::object::quantity::Quantity::parse(&q))
            .and_then(|q| u64::try_from(q.milli_value()).ok()),
        gpus: limit(c, "nvidia.com/gpu")
            .and_then(|q| q.parse().ok())
            .unwrap_or(0),
        mounts: crate::kubelet::volumes::mounts_at_start(cluster, pod, &c.name, now),
        stdin: (c.stdin == Some(true)).then(runtime::Stdin::default),
        seed: std::sync::Arc::new(cluster.volume_files(pod, &c.name)),
    })
}

/// A container of the pod by name, and whether it is an init container. An
/// ephemeral container comes as the container it is (not an init container).
pub(crate) fn spec_container(pod: &Pod, name: &str) -> Option<(Container, bool)> {
    let spec = pod.spec.as_ref()?;
    if let Some(c) = spec.containers.iter().find(|c| c.name == name) {
        return Some((c.clone(), false));
    }
    if let Some(c) = spec
        .init_containers
        .iter()
        .flatten()
        .find(|c| c.name == name)
    {
        return Some((c.clone(), true));
    }
    spec.ephemeral_containers
        .iter()
        .flatten()
        .find(|c| c.name == name)
        .map(|c| (crate::object::ephemeral_as_container(c), false))
}

/// Whether `name` is one of the pod's ephemeral containers: started once, never
/// restarted, never probed, never ready (`ephemeral.rs`).
pub(crate) fn is_ephemeral(pod: &Pod, name: &str) -> bool {
    pod.spec
        .iter()
        .flat_map(|s| s.ephemeral_containers.iter().flatten())
        .any(|c| c.name == name)
}

/// A container's status by name, among the app, the init and the ephemeral
/// containers.
pub(crate) fn status_mut<'a>(pod: &'a mut Pod, name: &str) -> Option<&'a mut ContainerStatus> {
    let st = pod.status.as_mut()?;
    [
        st.container_statuses.as_mut(),
        st.init_container_statuses.as_mut(),
        st.ephemeral_container_statuses.as_mut(),
    ]
    .into_iter()
    .flatten()
    .flat_map(|list| list.iter_mut())
    .find(|c| c.name == name)
}

/// Whether `c` is a sidecar: an init container with `restartPolicy: Always`
/// (`IsRestartableInitContainer`).
pub(crate) fn is_sidecar(c: &Container) -> bool {
    c.restart_policy.as_deref() == Some("Always")
}

fn has_started(cs: &ContainerStatus) -> bool {
    cs.state.as_ref().is_some_and(|s| s.running.is_some()) && cs.started == Some(true)
}

/// `HasAnyRegularContainerStarted`: an app container is running or has run.
pub(crate) fn any_app_started(pod: &Pod) -> bool {
    pod.status
        .as_ref()
        .and_then(|s| s.container_statuses.as_deref())
        .unwrap_or_default()
        .iter()
        .any(|cs| {
            cs.state
                .as_ref()
                .is_some_and(|s| s.running.is_some() || s.terminated.is_some())
                || cs
                    .last_state
                    .as_ref()
                    .is_some_and(|s| s.terminated.is_some())
        })
}

/// The first init container the pod still waits for, if any: a plain one until it
/// has completed, a sidecar until it has started. None once an app container has
/// started (a sidecar restarting then is just restarted).
pub(crate) fn pending_init(pod: &Pod) -> Option<String> {
    let spec = pod.spec.as_ref()?;
    if any_app_started(pod) {
        return None;
    }
    let statuses = pod
        .status
        .as_ref()
        .and_then(|s| s.init_container_statuses.as_deref())
        .unwrap_or_default();
    spec.init_containers.iter().flatten().find_map(|c| {
        let sidecar = is_sidecar(c);
        let done = statuses.iter().any(|s| {
            s.name == c.name
                && if sidecar {
                    has_started(s)
                } else {
                    s.state
                        .as_ref()
                        .and_then(|st| st.terminated.as_ref())
                        .is_some_and(|t| t.exit_code == 0)
                }
        });
        (!done).then(|| c.name.clone())
    })
}

/// Whether every app container has finished for good under a restart policy other
/// than Always: what is left running (sidecars) is to be stopped.
pub(crate) fn apps_finished(pod: &Pod) -> bool {
    let policy = pod
        .spec
        .as_ref()
        .and_then(|s| s.restart_policy.as_deref())
        .unwrap_or("Always");
    if policy == "Always" {
        return false;
    }
    let statuses = pod
        .status
        .as_ref()
        .and_then(|s| s.container_statuses.as_deref())
        .unwrap_or_default();
    let names = pod.spec.iter().flat_map(|s| s.containers.iter());
    names.into_iter().all(|c| {
        statuses.iter().any(|cs| {
            cs.name == c.name
                && cs
                    .state
                    .as_ref()
                    .and_then(|s| s.terminated.as_ref())
                    .is_some_and(|t| policy == "Never" || t.exit_code == 0)
        })
    })
}

/// Whether the pod's phase is terminal (Succeeded or Failed): its containers are
/// not started, restarted or probed again.
pub(crate) fn pod_is_terminal(pod: &Pod) -> bool {
    matches!(
        pod.status.as_ref().and_then(|s| s.phase.as_deref()),
        Some("Succeeded") | Some("Failed")
    )
}

fn terminated_of(cs: &ContainerStatus) -> Option<ContainerStateTerminated> {
    cs.state.as_ref().and_then(|s| s.terminated.clone())
}

/// The pod's phase from its containers, as upstream `getPhase`
/// (pkg/kubelet/kubelet_pods.go) for a pod that is not yet terminal: plain init
/// containers keep it Pending (Failed when one failed under restartPolicy Never);
/// a running sidecar counts as running, a terminated one not at all.
pub(crate) fn pod_phase(pod: &Pod) -> &'static str {
    let policy = pod
        .spec
        .as_ref()
        .and_then(|s| s.restart_policy.as_deref())
        .unwrap_or("Always");
    let status = |name: &str| {
        pod.status
            .as_ref()
            .into_iter()
            .flat_map(|s| {
                s.container_statuses
                    .iter()
                    .flatten()
                    .chain(s.init_container_statuses.iter().flatten())
            })
            .find(|s| s.name == name)
    };
    let last_terminated = |cs: &ContainerStatus| {
        cs.last_state
            .as_ref()
            .and_then(|s| s.terminated.as_ref())
            .map(|t| t.exit_code)
    };
    let inits = pod
        .spec
        .iter()
        .flat_map(|s| s.init_containers.iter().flatten());
    let (mut pending_init, mut failed_init) = (0, 0);
    let (mut unknown, mut running, mut waiting, mut stopped, mut succeeded) = (0, 0, 0, 0, 0);
    for c in inits {
        let Some(cs) = status(&c.name) else {
            if is_sidecar(c) {
                unknown += 1;
            } else {
                pending_init += 1;
            }
            continue;
        };
        let state = cs.state.as_ref();
        let is_running = state.is_some_and(|s| s.running.is_some());
        let terminated = state.and_then(|s| s.terminated.as_ref());
        let is_waiting = state.is_some_and(|s| s.waiting.is_some());
        if is_sidecar(c) {
            if is_running {
                if cs.started != Some(true) {
                    pending_init += 1;
                }
                running += 1;
            } else if terminated.is_some() || (is_waiting && last_terminated(cs).is_some()) {
            } else if is_waiting {
                pending_init += 1;
                waiting += 1;
            } else {
                pending_init += 1;
                unknown += 1;
            }
        } else if is_running {
            pending_init += 1;
        } else if let Some(t) = terminated {
            if t.exit_code != 0 {
                failed_init += 1;
            }
        } else if is_waiting {
            match last_terminated(cs) {
                Some(code) if code != 0 => failed_init += 1,
                Some(_) => {}
                None => pending_init += 1,
            }
        } else {
            pending_init += 1;
        }
    }
    for c in pod.spec.iter().flat_map(|s| s.containers.iter()) {
        let Some(cs) = status(&c.name) else {
            unknown += 1;
            continue;
        };
        let state = cs.state.as_ref();
        if state.is_some_and(|s| s.running.is_some()) {
            running += 1;
        } else if let Some(t) = state.and_then(|s| s.terminated.as_ref()) {
            stopped += 1;
            if t.exit_code == 0 {
                succeeded += 1;
            }
        } else if state.is_some_and(|s| s.waiting.is_some()) {
            if last_terminated(cs).is_some() {
                stopped += 1;
            } else {
                waiting += 1;
            }
        } else {
            unknown += 1;
        }
    }
    if failed_init > 0 && policy == "Never" {
        return "Failed";
    }
    if (pending_init > 0 && !any_app_started(pod)) || waiting > 0 {
        "Pending"
    } else if running > 0 && unknown == 0 {
        "Running"
    } else if running == 0 && stopped > 0 && unknown == 0 {
        match policy {
            "Always" => "Running",
            _ if stopped == succeeded => "Succeeded",
            "Never" => "Failed",
            _ => "Running",
        }
    } else {
        "Pending"
    }
}

/// Sets the phase and the Ready and ContainersReady conditions from the containers.
pub(crate) fn refresh_pod_status(
    pod: &mut Pod,
    now: &k8s_openapi::apimachinery::pkg::apis::meta::v1::Time,
) {
    let phase = pod_phase(pod);
    // `GenerateContainersReadyCondition`: sidecars first, then the app containers.
    let unready: Vec<String> = {
        let st = pod.status.as_ref();
        let ready = |name: &str, init: bool| {
            st.and_then(|s| {
                if init {
                    s.init_container_statuses.as_ref()
                } else {
                    s.container_statuses.as_ref()
                }
            })
            .into_iter()
            .flatten()
            .any(|cs| cs.name == name && cs.ready)
        };
        let spec = pod.spec.as_ref();
        let sidecars = spec
            .into_iter()
            .flat_map(|s| s.init_containers.iter().flatten())
            .filter(|c| is_sidecar(c))
            .map(|c| (c, true));
        let apps = spec
            .into_iter()
            .flat_map(|s| s.containers.iter())
            .map(|c| (c, false));
        sidecars
            .chain(apps)
            .filter(|(c, init)| !ready(&c.name, *init))
            .map(|(c, _)| c.name.clone())
            .collect()
    };
    let terminal = phase == "Succeeded" || phase == "Failed";
    let (status, reason, message) = if terminal {
        ("False", Some("PodCompleted".to_string()), None)
    } else if unready.is_empty() {
        ("True", None, None)
    } else {
        (
            "False",
            Some("ContainersNotReady".to_string()),
            Some(format!(
                "containers with unready status: [{}]",
                unready.join(" ")
            )),
        )
    };
    let incomplete: Vec<String> = {
        // `GeneratePodInitializedCondition`: a plain init container has completed,
        // a sidecar has started.
        let done = |c: &Container| {
            pod.status
                .as_ref()
                .and_then(|s| s.init_container_statuses.as_ref())
                .into_iter()
                .flatten()
                .any(|s| {
                    s.name == c.name
                        && if is_sidecar(c) {
                            s.started == Some(true)
                        } else {
                            s.state
                                .as_ref()
                                .and_then(|st| st.terminated.as_ref())
                                .is_some_and(|t| t.exit_code == 0)
                        }
                })
        };
        // Once an app container has started the pod stays initialized.
        let initialized = any_app_started(pod);
        pod.spec
            .iter()
            .flat_map(|s| s.init_containers.iter().flatten())
            .filter(|c| !initialized && !done(c))
            .map(|c| c.name.clone())
            .collect()
    };
    let has_init = pod
        .spec
        .as_ref()
        .is_some_and(|s| s.init_containers.as_ref().is_some_and(|v| !v.is_empty()));
    if has_init {
        let (status, reason, message) = if incomplete.is_empty() || phase == "Succeeded" {
            ("True", None, None)
        } else {
            (
                "False",
                Some("ContainersNotInitialized".to_string()),
                Some(format!(
                    "containers with incomplete status: [{}]",
                    incomplete.join(" ")
                )),
            )
        };
        set_pod_condition(
            pod,
            PodCondition {
                type_: "Initialized".into(),
                status: status.into(),
                reason,
                message,
                last_transition_time: Some(now.clone()),
                ..Default::default()
            },
        );
    }
    for t in ["ContainersReady", "Ready"] {
        set_pod_condition(
            pod,
            PodCondition {
                type_: t.into(),
                status: status.into(),
                reason: reason.clone(),
                message: message.clone(),
                last_transition_time: Some(now.clone()),
                ..Default::default()
            },
        );
    }
    pod.status.get_or_insert_with(Default::default).phase = Some(phase.into());
}

impl Cluster {
    pub(crate) fn pod_runtime_mut(
        &mut self,
        node: &str,
        key: &ObjectKey,
    ) -> Option<&mut PodRuntime> {
        self.kubelets.get_mut(node)?.containers.get_mut(key)
    }

    /// Starts container `index` of `pod` (its status is updated in `pod`): a new
    /// process, its exit timer, or a start error.
    pub(crate) fn start_container(
        &mut self,
        node: &str,
        key: &ObjectKey,
        pod: &mut Pod,
        index: usize,
        events: &mut Vec<PendingEvent>,
    ) {
        let Some(name) = pod
            .spec
            .as_ref()
            .and_then(|s| s.containers.get(index))
            .map(|c| c.name.clone())
        else {
            return;
        };
        self.start_container_named(node, key, pod, &name, events);
    }

    /// Starts the app or init container `name` of `pod`.
    pub(crate) fn start_container_named(
        &mut self,
        node: &str,
        key: &ObjectKey,
        pod: &mut Pod,
        name: &str,
        events: &mut Vec<PendingEvent>,
    ) {
        let Some((c, is_init)) = spec_container(pod, name) else {
            return;
        };
        let is_init_container = is_init;
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let process = match process_for(self, pod, &c, self.now) {
            Ok(p) => p,
            Err(message) => {
                self.container_config_error(node, key, pod, &c.name, message, events);
                return;
            }
        };
        let id = container_id(self);
        let Some(cs) = status_mut(pod, &c.name) else {
            return;
        };
        if let Some(t) = terminated_of(cs) {
            cs.last_state = Some(ContainerState {
                terminated: Some(t),
                ..Default::default()
            });
        }
        let restarts = cs.restart_count;
        cs.container_id = Some(id.clone());
        events.push((
            "Normal",
            "Created",
            format!("Created container: {}", c.name),
        ));
        let start_error = runtime::start_error(&process);
        let entry = self
            .kubelets
            .get_mut(node)
            .map(|k| k.containers.entry(key.clone()).or_default());
        let Some(rt) = entry else {
            return;
        };
        rt.uid = uid.clone();
        let run = rt
            .containers
            .entry(c.name.clone())
            .or_insert(Box::new(ContainerRun {
                process: process.clone(),
                id: id.clone(),
                previous: None,
                restarts,
                finished_ms: None,
                backoff_ms: 0,
                backoff_last_ms: 0,
                next_on_restart: false,
                budget: runtime::EXIT_SEARCH_BUDGET,
                probes: BTreeMap::new(),
                killing: false,
                served: runtime::Served::default(),
                stops_at_ms: None,
            }));
        if run.finished_ms.is_some() || run.id != id {
            run.served = runtime::Served::default();
            let old = std::mem::replace(&mut run.process, process.clone());
            let old_id = std::mem::replace(&mut run.id, id.clone());
            if let Some(finished_ms) = run.finished_ms {
                run.previous = Some(PastRun {
                    process: old,
                    finished_ms,
                    id: old_id,
                });
            }
        }
        run.restarts = restarts;
        run.finished_ms = None;
        run.killing = false;
        run.probes.clear();
        run.budget = runtime::EXIT_SEARCH_BUDGET;
        if let Some(message) = start_error {
            events.push(("Warning", "Failed", format!("Error: {message}")));
            self.container_exited_in(
                node,
                key,
                pod,
                &c.name,
                128,
                "StartError",
                Some(message),
                self.now.0,
                events,
            );
            return;
        }
        events.push(("Normal", "Started", format!("Started container {}", c.name)));
        self.schedule_exit(
            node,
            key,
            &uid,
            &c.name,
            restarts,
            &process,
            runtime::EXIT_SEARCH_BUDGET,
        );
        // A postStart hook holds the container in ContainerCreating until it ends
        // (`lifecycle.rs`).
        if let Some(hook) = c.lifecycle.as_ref().and_then(|l| l.post_start.as_ref()) {
            let run = self.run_hook(
                pod,
                &c,
                hook,
                &process,
                crate::kubelet::lifecycle::POST_START_LIMIT_MS,
            );
            if let Some(cs) = status_mut(pod, &c.name) {
                set_creating(cs);
            }
            self.schedule(
                self.now + SimDuration::millis(run.ms),
                KubeletTimer::PostStartDone {
                    node: node.to_string(),
                    pod: key.clone(),
                    uid,
                    container: c.name.clone(),
                    restarts,
                    failed: run.failed,
                },
            );
            return;
        }
        self.container_running(node, key, pod, &c, is_init_container, restarts, events);
    }

    /// A started container (its postStart hook done) is Running: its probes start,
    /// and a started sidecar lets the next container start.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn container_running(
        &mut self,
        node: &str,
        key: &ObjectKey,
        pod: &mut Pod,
        c: &Container,
        is_init_container: bool,
        restarts: i32,
        events: &mut Vec<PendingEvent>,
    ) {
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let Some(started_ms) = self
            .kubelets
            .get(node)
            .and_then(|k| k.containers.get(key))
            .and_then(|r| r.containers.get(&c.name))
            .map(|r| r.process.started_ms)
        else {
            return;
        };
        let ephemeral = is_ephemeral(pod, &c.name);
        let Some(cs) = status_mut(pod, &c.name) else {
            return;
        };
        cs.state = Some(ContainerState {
            running: Some(ContainerStateRunning {
                started_at: Some(SimTime(started_ms).to_k8s()),
            }),
            ..Default::default()
        });
        // A startup probe holds `started` (and readiness) back; a readiness probe
        // holds `ready` back until it succeeds (`kubelet_probes.rs`).
        let sidecar = is_init_container && is_sidecar(c);
        cs.ready = (!is_init_container || sidecar)
            && c.readiness_probe.is_none()
            && c.startup_probe.is_none();
        cs.started = Some(c.startup_probe.is_none());
        if ephemeral {
            // The prober manager keeps no state for it: never ready, no `started`.
            cs.ready = false;
            cs.started = None;
            return;
        }
        self.schedule_probes(node, key, &uid, c, restarts);
        // A started sidecar lets the next container start.
        if sidecar && c.startup_probe.is_none() {
            self.continue_after_init(node, key, pod, events);
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn schedule_exit(
        &mut self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
        restarts: i32,
        process: &Process,
        budget: u64,
    ) {
        let at = match runtime::outcome(process, budget) {
            Outcome::Exits { after_ms, .. } | Outcome::Unknown { after_ms } => {
                SimTime(process.started_ms) + SimDuration::millis(after_ms)
            }
            Outcome::RunsForever => return,
        };
        self.schedule(
            at,
            KubeletTimer::ContainerExited {
                node: node.to_string(),
                pod: key.clone(),
                uid: uid.to_string(),
                container: name.to_string(),
                restarts,
            },
        );
    }

    /// The current run of a container, if the runtime on `node` runs pod `uid`.
    pub(crate) fn current_run(
        &self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
    ) -> Option<&ContainerRun> {
        let k = self.kubelets.get(node).filter(|k| k.running)?;
        match k.pods.get(key) {
            Some(crate::kubelet::RuntimePod::Running { uid: u }) if u == uid => {}
            _ => return None,
        }
        k.containers
            .get(key)
            .filter(|r| r.uid == uid)?
            .containers
            .get(name)
            .map(|run| &**run)
    }

    /// The instance `restarts` of a container, while it runs.
    pub(crate) fn running_instance(
        &self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
        restarts: i32,
    ) -> Option<&ContainerRun> {
        self.current_run(node, key, uid, name)
            .filter(|r| r.restarts == restarts && r.finished_ms.is_none())
    }

    pub(crate) fn kubelet_container_exited(
        &mut self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
        restarts: i32,
    ) {
        let Some(run) = self
            .running_instance(node, key, uid, name, restarts)
            .cloned()
        else {
            return;
        };
        let (after_ms, code, oom) = match runtime::outcome(&run.process, run.budget) {
            Outcome::Exits {
                after_ms,
                code,
                oom,
            } => (after_ms, code, oom),
            Outcome::RunsForever => return,
            Outcome::Unknown { after_ms } => {
                // Still running where the search stopped: look further, later.
                let budget = run.budget * 4;
                if budget > MAX_BUDGET {
                    return;
                }
                if let Some(r) = self
                    .pod_runtime_mut(node, key)
                    .and_then(|p| p.containers.get_mut(name))
                {
                    r.budget = budget;
                }
                let _ = after_ms;
                self.schedule_exit(node, key, uid, name, restarts, &run.process, budget);
                return;
            }
        };
        let finished = run.process.started_ms + after_ms;
        if finished > self.now.0 {
            self.schedule_exit(node, key, uid, name, restarts, &run.process, run.budget);
            return;
        }
        let Some(mut pod) = self.kubelet_pod(node, key) else {
            return;
        };
        if pod.metadata.uid.as_deref() != Some(uid) || pod.metadata.deletion_timestamp.is_some() {
            return;
        }
        let reason = if oom {
            "OOMKilled"
        } else if code == 0 {
            "Completed"
        } else {
            "Error"
        };
        let mut events = Vec::new();
        self.container_exited_in(
            node,
            key,
            &mut pod,
            name,
            code,
            reason,
            None,
            finished,
            &mut events,
        );
        let plain_init =
            spec_container(&pod, name).is_some_and(|(c, init)| init && !is_sidecar(&c));
        if code == 0 && plain_init {
            self.continue_after_init(node, key, &mut pod, &mut events);
        }
        self.stop_sidecars_when_done(node, key, &pod, &mut events);
        refresh_pod_status(&mut pod, &self.now.to_k8s());
        self.write_pod_with_events(node, pod, events);
    }

    /// When every app container has finished for good, the kubelet stops the pod's
    /// running sidecars (SIGTERM, then SIGKILL when the grace period ends), so the
    /// pod can complete (a Job's pod with a log shipper beside it).
    pub(crate) fn stop_sidecars_when_done(
        &mut self,
        node: &str,
        key: &ObjectKey,
        pod: &Pod,
        events: &mut Vec<PendingEvent>,
    ) {
        if !apps_finished(pod) {
            return;
        }
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let grace_ms = grace_period_ms(pod);
        let sidecars: Vec<String> = pod
            .spec
            .iter()
            .flat_map(|s| s.init_containers.iter().flatten())
            .filter(|c| is_sidecar(c))
            .map(|c| c.name.clone())
            .collect();
        for name in sidecars.iter().rev() {
            let Some(run) = self
                .pod_runtime_mut(node, key)
                .and_then(|p| p.containers.get_mut(name))
                .filter(|r| r.finished_ms.is_none() && !r.killing)
            else {
                continue;
            };
            run.killing = true;
            let (restarts, process) = (run.restarts, run.process.clone());
            let (code, delay) = stop_outcome(&process, grace_ms);
            events.push(("Normal", "Killing", format!("Stopping container {name}")));
            self.schedule(
                self.now + SimDuration::millis(delay),
                KubeletTimer::ContainerKilled {
                    node: node.to_string(),
                    pod: key.clone(),
                    uid: uid.clone(),
                    container: name.clone(),
                    restarts,
                    code,
                },
            );
        }
    }

    pub(crate) fn write_pod_with_events(
        &mut self,
        node: &str,
        pod: Pod,
        events: Vec<PendingEvent>,
    ) {
        let Ok(obj) = self.kubelet_post_pod(node, pod) else {
            return;
        };
        for (t, reason, message) in events {
            self.record_event(&obj, "kubelet", Some(node), t, reason, message);
        }
    }

    /// A container the kubelet stopped exits now with `code` (Completed for 0, else
    /// Error), and its restart policy decides what follows.
    pub(crate) fn container_stopped_now(
        &mut self,
        node: &str,
        key: &ObjectKey,
        pod: &mut Pod,
        name: &str,
        code: i32,
        events: &mut Vec<PendingEvent>,
    ) {
        let reason = if code == 0 { "Completed" } else { "Error" };
        let now = self.now.0;
        self.container_exited_in(node, key, pod, name, code, reason, None, now, events);
    }

    /// Records container `name`'s exit in `pod`'s status and decides on its restart.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn container_exited_in(
        &mut self,
        node: &str,
        key: &ObjectKey,
        pod: &mut Pod,
        name: &str,
        code: i32,
        reason: &str,
        message: Option<String>,
        finished_ms: u64,
        events: &mut Vec<PendingEvent>,
    ) {
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let policy = pod
            .spec
            .as_ref()
            .and_then(|s| s.restart_policy.clone())
            .unwrap_or_else(|| "Always".into());
        let pod_name = format_pod(pod);
        let Some(run) = self
            .pod_runtime_mut(node, key)
            .and_then(|p| p.containers.get_mut(name))
        else {
            return;
        };
        run.finished_ms = Some(finished_ms);
        let ended = run.process.clone();
        // A process that never started reports the zero time, as containerd does
        // for a StartError.
        let started = if reason == "StartError" {
            k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                k8s_openapi::jiff::Timestamp::UNIX_EPOCH,
            )
        } else {
            SimTime(run.process.started_ms).to_k8s()
        };
        let (init, sidecar) = spec_container(pod, name)
            .map_or((false, false), |(c, init)| (init, init && is_sidecar(&c)));
        let restart = match policy.as_str() {
            // An ephemeral container runs once.
            _ if is_ephemeral(pod, name) => false,
            // A sidecar comes back whatever the pod's policy, until the app
            // containers are done.
            _ if sidecar => !apps_finished(pod),
            // A completed init container is done; a failed one is retried unless the
            // pod never restarts.
            _ if init && code == 0 => false,
            "Never" => false,
            "OnFailure" => code != 0,
            _ => true,
        };
        // doBackOff: in back-off while less than the entry's duration has passed since
        // the finish; an entry last updated more than 2 × max before is forgotten.
        let expired = run.backoff_ms == 0
            || finished_ms.saturating_sub(run.backoff_last_ms) > 2 * BACKOFF_MAX_MS;
        let delay = if expired {
            run.backoff_ms = BACKOFF_INITIAL_MS;
            run.backoff_last_ms = finished_ms;
            run.next_on_restart = false;
            RELIST_MS
        } else {
            run.next_on_restart = true;
            run.backoff_ms
        };
        let restarts = run.restarts;
        // What it wrote to its volumes stays there.
        self.keep_container_writes(node, pod, name, &ended, finished_ms);
        let Some(cs) = status_mut(pod, name) else {
            return;
        };
        let terminated = ContainerStateTerminated {
            exit_code: code,
            reason: Some(reason.to_string()),
            message,
            started_at: Some(started),
            finished_at: Some(SimTime(finished_ms).to_k8s()),
            container_id: cs.container_id.clone(),
            signal: None,
        };
        cs.ready = false;
        cs.started = Some(false);
        cs.state = Some(ContainerState {
            terminated: Some(terminated.clone()),
            ..Default::default()
        });
        if !restart {
            return;
        }
        if !expired {
            cs.last_state = Some(ContainerState {
                terminated: Some(terminated),
                ..Default::default()
            });
            cs.state = Some(ContainerState {
                waiting: Some(ContainerStateWaiting {
                    reason: Some("CrashLoopBackOff".into()),
                    message: Some(format!(
                        "back-off {} restarting failed container={name} pod={pod_name}",
                        crate::time::go_duration(SimDuration::millis(delay))
                    )),
                }),
                ..Default::default()
            });
            events.push((
                "Warning",
                "BackOff",
                format!("Back-off restarting failed container {name} in pod {pod_name}"),
            ));
        }
        self.schedule(
            SimTime(finished_ms) + SimDuration::millis(delay),
            KubeletTimer::ContainerRestart {
                node: node.to_string(),
                pod: key.clone(),
                uid,
                container: name.to_string(),
                restarts,
            },
        );
    }

    pub(crate) fn kubelet_restart_container(
        &mut self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
        restarts: i32,
    ) {
        let Some(run) = self
            .current_run(node, key, uid, name)
            .filter(|r| r.restarts == restarts && r.finished_ms.is_some())
            .cloned()
        else {
            return;
        };
        let Some(mut pod) = self.kubelet_pod(node, key) else {
            return;
        };
        if pod.metadata.uid.as_deref() != Some(uid)
            || pod.metadata.deletion_timestamp.is_some()
            || crate::kubelet::containers::pod_is_terminal(&pod)
        {
            return;
        }
        if run.next_on_restart {
            if let Some(r) = self
                .pod_runtime_mut(node, key)
                .and_then(|p| p.containers.get_mut(name))
            {
                r.backoff_ms = (r.backoff_ms * 2).min(BACKOFF_MAX_MS);
                r.backoff_last_ms = r.finished_ms.unwrap_or(r.backoff_last_ms);
                r.next_on_restart = false;
            }
        }
        let mut events = Vec::new();
        self.restart_in(node, key, &mut pod, name, &mut events);
        refresh_pod_status(&mut pod, &self.now.to_k8s());
        self.write_pod_with_events(node, pod, events);
    }

    /// Starts a dead container again, in `pod`: with the same image (already present),
    /// or a changed one, which is pulled first (`kubelet_images.rs`).
    pub(crate) fn restart_in(
        &mut self,
        node: &str,
        key: &ObjectKey,
        pod: &mut Pod,
        name: &str,
        events: &mut Vec<PendingEvent>,
    ) {
        let Some((c, _)) = spec_container(pod, name) else {
            return;
        };
        let image = c.image.clone().unwrap_or_default();
        let policy = c
            .image_pull_policy
            .clone()
            .unwrap_or_else(|| "IfNotPresent".into());
        let present = self
            .kubelets
            .get(node)
            .is_some_and(|k| k.images.contains(&image));
        let changed = self
            .pod_runtime_mut(node, key)
            .and_then(|p| p.containers.get(name))
            .is_some_and(|r| r.process.image != image);
        if let Some(cs) = status_mut(pod, name) {
            // The dead instance becomes lastState; the count goes up.
            if let Some(t) = terminated_of(cs) {
                cs.last_state = Some(ContainerState {
                    terminated: Some(t),
                    ..Default::default()
                });
                cs.state = None;
            }
            cs.restart_count += 1;
            // Timers of the dead instance (a pending restart) are stale from now on.
            let count = cs.restart_count;
            if let Some(r) = self
                .pod_runtime_mut(node, key)
                .and_then(|p| p.containers.get_mut(name))
            {
                r.restarts = count;
            }
        }
        if changed && (!present || policy == "Always") {
            // A new image: pull it, then start (ImagePullRetry → ImagePulled).
            let uid = pod.metadata.uid.clone().unwrap_or_default();
            if !self.pull_now(node, key, &uid, name, &image) {
                return;
            }
            if let Some(cs) = status_mut(pod, name) {
                cs.image = image.clone();
                set_creating(cs);
            }
            return;
        }
        events.push((
            "Normal",
            "Pulled",
            format!("Container image \"{image}\" already present on machine and can be accessed by the pod"),
        ));
        if let Some(cs) = status_mut(pod, name) {
            cs.image = image.clone();
            cs.image_id = crate::kubelet::image_id(&image);
        }
        self.start_container_named(node, key, pod, name, events);
    }

    /// A pod update the kubelet sees: a running app container whose image the spec
    /// now names differently is killed and started again with it, whatever the
    /// restart policy (upstream `computePodActions`: "definition changed").
    pub(crate) fn kubelet_definition_changed(&mut self, node: &str, key: &ObjectKey, pod: &Pod) {
        let changed: Vec<(String, Process)> = {
            let Some(rt) = self.kubelets.get(node).and_then(|k| k.containers.get(key)) else {
                return;
            };
            pod.spec
                .iter()
                .flat_map(|s| s.containers.iter())
                .filter_map(|c| {
                    let run = rt.containers.get(&c.name)?;
                    (run.finished_ms.is_none()
                        && Some(run.process.image.as_str()) != c.image.as_deref())
                    .then(|| (c.name.clone(), run.process.clone()))
                })
                .collect()
        };
        if changed.is_empty() {
            return;
        }
        let mut pod = pod.clone();
        let mut events = Vec::new();
        for (name, process) in changed {
            events.push((
                "Normal",
                "Killing",
                format!("Container {name} definition changed, will be restarted"),
            ));
            let clean = crate::kubelet::probes::stops_cleanly(&process);
            let (code, reason) = if clean {
                (0, "Completed")
            } else {
                (137, "Error")
            };
            let now = self.now.0;
            self.container_exited_in(
                node,
                key,
                &mut pod,
                &name,
                code,
                reason,
                None,
                now,
                &mut events,
            );
            // Drop what the exit scheduled (a back-off): this restart comes now.
            if let Some(cs) = status_mut(&mut pod, &name) {
                if let Some(t) = cs
                    .last_state
                    .as_ref()
                    .and_then(|s| s.terminated.clone())
                    .filter(|_| cs.state.as_ref().is_some_and(|s| s.waiting.is_some()))
                {
                    cs.state = Some(ContainerState {
                        terminated: Some(t),
                        ..Default::default()
                    });
                }
            }
            events.retain(|(_, reason, _)| *reason != "BackOff");
            self.restart_in(node, key, &mut pod, &name, &mut events);
        }
        refresh_pod_status(&mut pod, &self.now.to_k8s());
        self.write_pod_with_events(node, pod, events);
    }

    /// After an init container completes or a sidecar starts: the next init
    /// container starts, or, when all are done, the app containers (their images
    /// were pulled with the pod's). Nothing happens while the next one already runs
    /// or once the app containers have been started.
    pub(crate) fn continue_after_init(
        &mut self,
        node: &str,
        key: &ObjectKey,
        pod: &mut Pod,
        events: &mut Vec<PendingEvent>,
    ) {
        if any_app_started(pod) {
            return;
        }
        let known = |c: &Cluster, name: &str| {
            c.kubelets
                .get(node)
                .and_then(|k| k.containers.get(key))
                .is_some_and(|r| r.containers.contains_key(name) || r.pulls.contains_key(name))
        };
        if let Some(next) = pending_init(pod) {
            if known(self, &next) {
                return;
            }
            if let Some(cs) = status_mut(pod, &next) {
                cs.image_id = crate::kubelet::image_id(&cs.image);
            }
            self.start_container_named(node, key, pod, &next, events);
            return;
        }
        let containers = pod.spec.clone().unwrap_or_default().containers;
        for (i, c) in containers.iter().enumerate() {
            if known(self, &c.name) {
                continue;
            }
            let image = c.image.clone().unwrap_or_default();
            let present = self
                .kubelets
                .get(node)
                .is_some_and(|k| k.images.contains(&image));
            if !self.start_or_fail_pull(node, key, pod, &c.name, present, events) {
                continue;
            }
            if let Some(cs) = status_mut(pod, &c.name) {
                cs.image_id = crate::kubelet::image_id(&cs.image);
            }
            self.start_container(node, key, pod, i, events);
        }
    }
}

/// A log line: when it was written, and its text.
pub type LogLine = (SimTime, String);

impl Cluster {
    /// A container's log, as the apiserver's `pods/log` subresource serves it from the
    /// kubelet (pkg/kubelet/kubelet_pods.go `validateContainerLogStatus`, and the
    /// registry's container-name checks in pkg/registry/core/pod). `container` may be
    /// left out only for a pod with a single container.
    pub fn container_log(
        &self,
        namespace: &str,
        pod_name: &str,
        container: Option<&str>,
        previous: bool,
    ) -> Result<Vec<LogLine>, crate::error::ApiError> {
        use crate::error::{ApiError, StatusReason};
        let key = ObjectKey::new(crate::object::Kind::Pod, namespace, pod_name);
        let Some(Object::Pod(pod)) = self.store.get(&key) else {
            return Err(ApiError::not_found("pods", pod_name));
        };
        let spec = pod.spec.clone().unwrap_or_default();
        let names: Vec<String> = spec.containers.iter().map(|c| c.name.clone()).collect();
        let init: Vec<String> = spec
            .init_containers
            .iter()
            .flatten()
            .map(|c| c.name.clone())
            .collect();
        let ephemeral: Vec<String> = spec
            .ephemeral_containers
            .iter()
            .flatten()
            .map(|c| c.name.clone())
            .collect();
        let name = match container {
            Some(n) => n.to_string(),
            None if names.len() == 1 && init.is_empty() => names[0].clone(),
            None => {
                let mut message = format!(
                    "a container name must be specified for pod {pod_name}, choose one of: [{}]",
                    names.join(" ")
                );
                if !init.is_empty() {
                    message.push_str(&format!(
                        " or one of the init containers: [{}]",
                        init.join(" ")
                    ));
                }
                if !ephemeral.is_empty() {
                    message.push_str(&format!(
                        " or one of the ephemeral containers: [{}]",
                        ephemeral.join(" ")
                    ));
                }
                return Err(ApiError::new(StatusReason::BadRequest, message));
            }
        };
        if !names.contains(&name) && !init.contains(&name) && !ephemeral.contains(&name) {
            return Err(ApiError::new(
                StatusReason::BadRequest,
                format!("container {name} is not valid for pod {pod_name}"),
            ));
        }
        let waiting = |reason: &str| {
            ApiError::new(
                StatusReason::BadRequest,
                format!("container \"{name}\" in pod \"{pod_name}\" is waiting to start: {reason}"),
            )
        };
        let status = pod.status.as_ref().and_then(|s| {
            s.container_statuses
                .iter()
                .chain(s.init_container_statuses.iter())
                .chain(s.ephemeral_container_statuses.iter())
                .flatten()
                .find(|c| c.name == name)
        });
        let Some(status) = status else {
            return Err(waiting("ContainerCreating"));
        };
        let state = status.state.clone().unwrap_or_default();
        let last = status
            .last_state
            .as_ref()
            .and_then(|s| s.terminated.as_ref());
        let terminated_error = || {
            ApiError::new(
                StatusReason::BadRequest,
                format!("container \"{name}\" in pod \"{pod_name}\" is terminated"),
            )
        };
        let id = if previous {
            match last.and_then(|t| t.container_id.clone()) {
                Some(id) if !id.is_empty() => id,
                _ => {
                    return Err(ApiError::new(
                        StatusReason::BadRequest,
                        format!(
                        "previous terminated container \"{name}\" in pod \"{pod_name}\" not found"
                    ),
                    ))
                }
            }
        } else if let Some(r) = &state.running {
            let _ = r;
            status.container_id.clone().unwrap_or_default()
        } else if let Some(t) = &state.terminated {
            match t.container_id.clone().filter(|i| !i.is_empty()) {
                Some(id) => id,
                None => match last.and_then(|t| t.container_id.clone()) {
                    Some(id) if !id.is_empty() => id,
                    _ => return Err(terminated_error()),
                },
            }
        } else if let Some(t) = last {
            match t.container_id.clone().filter(|i| !i.is_empty()) {
                Some(id) => id,
                None => return Err(terminated_error()),
            }
        } else {
            let reason = state
                .waiting
                .as_ref()
                .and_then(|w| w.reason.clone())
                .unwrap_or_else(|| "ContainerCreating".into());
            return Err(waiting(match reason.as_str() {
                "ErrImagePull" => "image can't be pulled",
                "ImagePullBackOff" => "trying and failing to pull image",
                other => other,
            }));
        };
        // The apiserver asks the node's kubelet; a powered-off node does not answer.
        let node = spec.node_name.clone().unwrap_or_default();
        if !self.kubelets.get(&node).is_some_and(|k| k.running) {
            let ip = pod
                .status
                .as_ref()
                .and_then(|s| s.host_ip.clone())
                .unwrap_or_default();
            return Err(ApiError::new(
                StatusReason::Unknown,
                format!(
                    "Get \"https://{ip}:10250/containerLogs/{namespace}/{pod_name}/{name}\": dial tcp {ip}:10250: connect: no route to host"
                ),
            ));
        }
        if let Some(c) = self.static_pod_on(&node, &key) {
            return Ok(self.static_pod_log(c, previous));
        }
        let run = self
            .kubelets
            .get(&node)
            .and_then(|k| k.containers.get(&key))
            .and_then(|p| p.containers.get(&name));
        let Some(run) = run else {
            return Ok(Vec::new());
        };
        let (process, end) = if run.id == id {
            (&run.process, run.finished_ms.unwrap_or(self.now.0))
        } else {
            match &run.previous {
                Some(p) if p.id == id => (&p.process, p.finished_ms),
                _ => return Ok(Vec::new()),
            }
        };
        let upto = end.saturating_sub(process.started_ms);
        Ok(runtime::log(process, upto)
            .into_iter()
            .map(|(t, line)| (SimTime(process.started_ms + t), line))
            .collect())
    }
}

impl Cluster {
    /// The memory a running container uses now (bytes), as the kubelet's summary API
    /// would report it for `kubectl top`; `None` when it is not running here.
    pub fn container_memory_bytes(
        &self,
        namespace: &str,
        pod: &str,
        container: &str,
    ) -> Option<u64> {
        let key = ObjectKey::new(crate::object::Kind::Pod, namespace, pod);
        let Some(Object::Pod(p)) = self.store.get(&key) else {
            return None;
        };
        let node = p.spec.as_ref()?.node_name.clone()?;
        let run = self
            .kubelets
            .get(&node)
            .filter(|k| k.running)?
            .containers
            .get(&key)?
            .containers
            .get(container)
            .filter(|r| r.finished_ms.is_none())?;
        let after = self.now.0.saturating_sub(run.process.started_ms);
        Some(runtime::memory_bytes(&run.process, after))
    }
}
