//! What `kubectl get pods` shows in its READY, STATUS and RESTARTS columns, computed as
//! kubectl's `printPod` (pkg/printers/internalversion/printers.go) does.

use k8s_openapi::api::core::v1::Pod;

/// The STATUS column.
pub fn status(pod: &Pod) -> String {
    print_pod(pod).2
}

/// The READY column: ready containers / containers, sidecars (init containers with
/// `restartPolicy: Always`) counted among them.
pub fn ready(pod: &Pod) -> String {
    let (ready, total, _) = print_pod(pod);
    format!("{ready}/{total}")
}

/// Whether an init container is a sidecar (`IsRestartableInitContainer`).
fn restartable(pod: &Pod, name: &str) -> bool {
    pod.spec
        .iter()
        .flat_map(|s| s.init_containers.iter().flatten())
        .any(|c| c.name == name && c.restart_policy.as_deref() == Some("Always"))
}

/// `printPod`'s ready count, total and reason.
fn print_pod(pod: &Pod) -> (usize, usize, String) {
    let st = pod.status.as_ref();
    let phase = st
        .and_then(|s| s.phase.clone())
        .unwrap_or_else(|| "Pending".into());
    let mut reason = phase.clone();
    if let Some(r) = st.and_then(|s| s.reason.clone()) {
        reason = r;
    }
    let gated = st
        .and_then(|s| s.conditions.as_ref())
        .into_iter()
        .flatten()
        .any(|c| c.type_ == "PodScheduled" && c.reason.as_deref() == Some("SchedulingGated"));
    if gated {
        reason = "SchedulingGated".into();
    }
    let spec = pod.spec.as_ref();
    let init_count = spec
        .and_then(|s| s.init_containers.as_ref())
        .map_or(0, |v| v.len());
    let sidecars = spec
        .into_iter()
        .flat_map(|s| s.init_containers.iter().flatten())
        .filter(|c| c.restart_policy.as_deref() == Some("Always"))
        .count();
    let total = spec.map_or(0, |s| s.containers.len()) + sidecars;
    let mut ready = 0;
    // Init containers.
    let mut initializing = false;
    for (i, c) in st
        .and_then(|s| s.init_container_statuses.as_ref())
        .into_iter()
        .flatten()
        .enumerate()
    {
        let state = c.state.as_ref();
        let terminated = state.and_then(|s| s.terminated.as_ref());
        if terminated.is_some_and(|t| t.exit_code == 0) {
            continue;
        }
        if c.started == Some(true) && restartable(pod, &c.name) {
            if c.ready {
                ready += 1;
            }
            continue;
        }
        if let Some(t) = terminated {
            reason = match &t.reason {
                Some(r) if !r.is_empty() => format!("Init:{r}"),
                _ => match t.signal {
                    Some(sig) if sig != 0 => format!("Init:Signal:{sig}"),
                    _ => format!("Init:ExitCode:{}", t.exit_code),
                },
            };
        } else if let Some(w) = state.and_then(|s| s.waiting.as_ref()).filter(|w| {
            w.reason
                .as_deref()
                .is_some_and(|r| !r.is_empty() && r != "PodInitializing")
        }) {
            reason = format!("Init:{}", w.reason.clone().unwrap_or_default());
        } else {
            reason = format!("Init:{i}/{init_count}");
        }
        initializing = true;
        break;
    }
    let initialized = st
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Initialized"))
        .is_some_and(|c| c.status == "True");
    if !initializing || initialized {
        let mut has_running = false;
        for c in st
            .and_then(|s| s.container_statuses.as_ref())
            .into_iter()
            .flatten()
            .rev()
        {
            let state = c.state.as_ref();
            let waiting = state
                .and_then(|s| s.waiting.as_ref())
                .and_then(|w| w.reason.as_ref())
                .filter(|r| !r.is_empty());
            if let Some(r) = waiting {
                reason = r.clone();
            } else if let Some(t) = state.and_then(|s| s.terminated.as_ref()) {
                reason = match &t.reason {
                    Some(r) if !r.is_empty() => r.clone(),
                    _ => match t.signal {
                        Some(sig) if sig != 0 => format!("Signal:{sig}"),
                        _ => format!("ExitCode:{}", t.exit_code),
                    },
                };
            } else if c.ready && state.is_some_and(|s| s.running.is_some()) {
                has_running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && has_running {
            let ready = st
                .and_then(|s| s.conditions.as_ref())
                .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
                .is_some_and(|c| c.status == "True");
            reason = if ready {
                "Running".into()
            } else {
                "NotReady".into()
            };
        }
    }
    if pod.metadata.deletion_timestamp.is_some() {
        if st.and_then(|s| s.reason.as_deref()) == Some("NodeLost") {
            reason = "Unknown".into();
        } else if phase != "Succeeded" && phase != "Failed" {
            reason = "Terminating".into();
        }
    }
    (ready, total, reason)
}

/// Total restarts over the pod's app containers and sidecars.
pub fn restarts(pod: &Pod) -> i32 {
    let st = pod.status.as_ref();
    let apps = st.and_then(|s| s.container_statuses.as_ref());
    let inits = st.and_then(|s| s.init_container_statuses.as_ref());
    apps.into_iter()
        .flatten()
        .chain(
            inits
                .into_iter()
                .flatten()
                .filter(|c| restartable(pod, &c.name)),
        )
        .map(|c| c.restart_count)
        .sum()
}
