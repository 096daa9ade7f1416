//! What `kubectl get pods` shows in its READY, STATUS and RESTARTS columns, computed as
//! kubectl's `printPod` (pkg/printers/internalversion/printers.go) does.

use k8s_openapi::api::core::v1::Pod;

/// The STATUS column.
pub fn status(pod: &Pod) -> String {
    let st = pod.status.as_ref();
    let mut reason = st
        .and_then(|s| s.phase.clone())
        .unwrap_or_else(|| "Pending".into());
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
    // Init containers.
    let mut initializing = false;
    let init_count = pod
        .spec
        .as_ref()
        .and_then(|s| s.init_containers.as_ref())
        .map_or(0, |v| v.len());
    for (i, c) in st
        .and_then(|s| s.init_container_statuses.as_ref())
        .into_iter()
        .flatten()
        .enumerate()
    {
        let state = c.state.as_ref();
        if let Some(t) = state.and_then(|s| s.terminated.as_ref()) {
            if t.exit_code == 0 {
                continue;
            }
            reason = match &t.reason {
                Some(r) if !r.is_empty() => format!("Init:{r}"),
                _ => match t.signal {
                    Some(sig) if sig != 0 => format!("Init:Signal:{sig}"),
                    _ => format!("Init:ExitCode:{}", t.exit_code),
                },
            };
            initializing = true;
        } else if let Some(w) = state.and_then(|s| s.waiting.as_ref()).filter(|w| {
            w.reason
                .as_deref()
                .is_some_and(|r| !r.is_empty() && r != "PodInitializing")
        }) {
            reason = format!("Init:{}", w.reason.clone().unwrap_or_default());
            initializing = true;
        } else {
            reason = format!("Init:{i}/{init_count}");
            initializing = true;
        }
        break;
    }
    if !initializing {
        let mut has_running = false;
        let statuses: Vec<_> = st
            .and_then(|s| s.container_statuses.clone())
            .unwrap_or_default();
        for c in statuses.iter().rev() {
            let state = c.state.as_ref();
            if let Some(w) = state.and_then(|s| s.waiting.as_ref()) {
                if let Some(r) = w.reason.as_ref().filter(|r| !r.is_empty()) {
                    reason = r.clone();
                }
            } else if let Some(t) = state.and_then(|s| s.terminated.as_ref()) {
                reason = match &t.reason {
                    Some(r) if !r.is_empty() => r.clone(),
                    _ => match t.signal {
                        Some(sig) if sig != 0 => format!("Signal:{sig}"),
                        _ => format!("ExitCode:{}", t.exit_code),
                    },
                };
            } else if c.ready {
                has_running = true;
            }
        }
        if reason == "Completed" && has_running {
            let ready = pod
                .status
                .as_ref()
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
        } else {
            reason = "Terminating".into();
        }
    }
    reason
}

/// The READY column: ready containers / containers.
pub fn ready(pod: &Pod) -> String {
    let total = pod.spec.as_ref().map_or(0, |s| s.containers.len());
    let ready = pod
        .status
        .as_ref()
        .and_then(|s| s.container_statuses.as_ref())
        .map_or(0, |cs| cs.iter().filter(|c| c.ready).count());
    format!("{ready}/{total}")
}

/// Total restarts over the pod's containers.
pub fn restarts(pod: &Pod) -> i32 {
    pod.status
        .as_ref()
        .and_then(|s| s.container_statuses.as_ref())
        .map_or(0, |cs| cs.iter().map(|c| c.restart_count).sum())
}
