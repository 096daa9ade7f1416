//! Container probes: startup, liveness and readiness (exec, httpGet, tcpSocket).
//!
//! Mirrors pkg/kubelet/prober (`worker.doProbe`: a worker per probe running every
//! `periodSeconds` after `initialDelaySeconds`, success and failure thresholds, the
//! startup probe holding the others off, a failed liveness or startup probe killing
//! the container) and the probe result texts of pkg/probe/http, tcp and exec.
//! Upstream defaults: periodSeconds 10, timeoutSeconds 1, successThreshold 1,
//! failureThreshold 3. Simplified: the first probe comes 1 s after the start (or at
//! initialDelaySeconds), then a timer fires on every period (no jitter); a
//! probe's answer comes from the image's behaviour (`runtime::listens`,
//! `runtime::http_status`); an exec probe runs its command in the simulated shell,
//! in the container's files as its main process left them (the docs' `touch
//! /tmp/healthy; sleep 30; rm -f /tmp/healthy` example works); a container killed for a
//! failed probe gets SIGTERM: a server stops after its stop time (exit 0), anything else
//! (a shell as PID 1 ignores SIGTERM) is killed when the grace period ends (exit 137),
//! the probe's `terminationGracePeriodSeconds` or else the pod's (30 s by default).

use crate::cluster::Cluster;
use crate::kubelet::containers::{refresh_pod_status, PendingEvent};
use crate::kubelet::runtime::{self, Process};
use crate::kubelet::shell::End;
use crate::kubelet::KubeletTimer;
use crate::object::{Object, ObjectKey};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::{Container, Probe};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ProbeKind {
    Startup,
    Liveness,
    Readiness,
}

impl ProbeKind {
    fn name(self) -> &'static str {
        match self {
            ProbeKind::Startup => "Startup",
            ProbeKind::Liveness => "Liveness",
            ProbeKind::Readiness => "Readiness",
        }
    }
    fn of(self, c: &Container) -> Option<&Probe> {
        match self {
            ProbeKind::Startup => c.startup_probe.as_ref(),
            ProbeKind::Liveness => c.liveness_probe.as_ref(),
            ProbeKind::Readiness => c.readiness_probe.as_ref(),
        }
    }
}

/// Consecutive results of one probe, and whether it has passed (startup) or the
/// container is ready (readiness).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeState {
    pub successes: i32,
    pub failures: i32,
    pub passed: bool,
}

fn period_ms(p: &Probe) -> u64 {
    crate::time::SimDuration::from_secs_i64(i64::from(
        p.period_seconds.filter(|s| *s > 0).unwrap_or(10),
    ))
    .as_millis()
}

pub(crate) fn port_of(c: &Container, port: &IntOrString) -> Option<i32> {
    match port {
        IntOrString::Int(n) => Some(*n),
        IntOrString::String(name) => c
            .ports
            .iter()
            .flatten()
            .find(|p| p.name.as_deref() == Some(name.as_str()))
            .map(|p| p.container_port),
    }
}

/// Runs one probe against the process `after_ms` after its start.
fn check(
    c: &Container,
    probe: &Probe,
    process: &Process,
    ip: &str,
    now: SimTime,
) -> Result<(), String> {
    let after = now.0.saturating_sub(process.started_ms);
    let timeout_ms = u64::from(
        probe
            .timeout_seconds
            .filter(|s| *s > 0)
            .unwrap_or(1)
            .unsigned_abs(),
    ) * 1000;
    if let Some(exec) = &probe.exec {
        let command = exec.command.clone().unwrap_or_default();
        let p = Process {
            argv: command.clone(),
            started_ms: now.0,
            ..process.clone()
        };
        if runtime::start_error(&p).is_some() {
            let exe = command.first().cloned().unwrap_or_default();
            return Err(format!(
                "OCI runtime exec failed: exec failed: unable to start container process: exec: \"{exe}\": executable file not found in $PATH: unknown"
            ));
        }
        let r = runtime::exec_in(
            process,
            &command,
            after,
            &Default::default(),
            &crate::kubelet::shell::NoPrograms,
            timeout_ms,
        );
        let output: Vec<String> = r.lines.into_iter().map(|(_, l)| l).collect();
        return match r.end {
            End::Exited { code: 0, .. } => Ok(()),
            End::Exited { .. } => Err(output.join("\n")),
            _ => Err(format!("command \"{}\" timed out", command.join(" "))),
        };
    }
    if let Some(tcp) = &probe.tcp_socket {
        let port = port_of(c, &tcp.port).unwrap_or(0);
        return if runtime::listens(process, port, after) {
            Ok(())
        } else {
            Err(format!("dial tcp {ip}:{port}: connect: connection refused"))
        };
    }
    if let Some(http) = &probe.http_get {
        let port = port_of(c, &http.port).unwrap_or(0);
        let path = http.path.clone().unwrap_or_else(|| "/".into());
        let scheme = http.scheme.as_deref().unwrap_or("HTTP").to_lowercase();
        let url = format!("{scheme}://{ip}:{port}{path}");
        if !runtime::listens(process, port, after) {
            return Err(format!(
                "Get \"{url}\": dial tcp {ip}:{port}: connect: connection refused"
            ));
        }
        return match runtime::http_status(process, port, &path, after) {
            Ok(code) if (200..400).contains(&code) => Ok(()),
            Ok(code) => Err(format!("HTTP probe failed with statuscode: {code}")),
            Err(e) => Err(format!("Get \"{url}\": {e}")),
        };
    }
    // A probe with no handler (gRPC is not simulated) succeeds.
    Ok(())
}

impl Cluster {
    /// A container the kubelet was killing has stopped (SIGTERM honoured, or SIGKILL
    /// at the end of the grace period): it exits with `code`, and the restart policy
    /// takes over.
    pub(crate) fn kubelet_container_killed(
        &mut self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
        restarts: i32,
        code: i32,
    ) {
        let alive = self
            .current_run(node, key, uid, name)
            .is_some_and(|r| r.restarts == restarts && r.finished_ms.is_none() && r.killing);
        if !alive {
            return;
        }
        let Some(mut pod) = self.kubelet_pod(node, key) else {
            return;
        };
        if pod.metadata.uid.as_deref() != Some(uid) {
            return;
        }
        let mut events = Vec::new();
        self.container_stopped_now(node, key, &mut pod, name, code, &mut events);
        self.stop_sidecars_when_done(node, key, &pod, &mut events);
        refresh_pod_status(&mut pod, &self.now.to_k8s());
        self.write_pod_with_events(node, pod, events);
    }

    /// Starts the probe workers of a container that just started.
    pub(crate) fn schedule_probes(
        &mut self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        c: &Container,
        restarts: i32,
    ) {
        for kind in [
            ProbeKind::Startup,
            ProbeKind::Liveness,
            ProbeKind::Readiness,
        ] {
            if let Some(p) = kind.of(c) {
                // The prober's worker starts about a second after the container (the
                // kubelet's next sync), and waits out initialDelaySeconds.
                let delay = (p.initial_delay_seconds.unwrap_or(0).max(0) as u64 * 1000).max(1000);
                self.schedule(
                    self.now + SimDuration::millis(delay),
                    KubeletTimer::Probe {
                        node: node.to_string(),
                        pod: key.clone(),
                        uid: uid.to_string(),
                        container: c.name.clone(),
                        restarts,
                        kind,
                    },
                );
            }
        }
    }

    pub(crate) fn kubelet_probe(
        &mut self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
        restarts: i32,
        kind: ProbeKind,
    ) {
        let Some(run) = self
            .current_run(node, key, uid, name)
            .filter(|r| r.restarts == restarts && r.finished_ms.is_none() && !r.killing)
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
        // App containers and sidecars are probed.
        let Some(c) = crate::kubelet::containers::spec_container(&pod, name).map(|(c, _)| c) else {
            return;
        };
        let Some(probe) = kind.of(&c).cloned() else {
            return;
        };
        let again = KubeletTimer::Probe {
            node: node.to_string(),
            pod: key.clone(),
            uid: uid.to_string(),
            container: name.to_string(),
            restarts,
            kind,
        };
        let next = self.now + SimDuration::millis(period_ms(&probe));
        // The startup probe holds the others off until it succeeds.
        let started = c.startup_probe.is_none()
            || run
                .probes
                .get(&ProbeKind::Startup)
                .is_some_and(|s| s.passed);
        if kind != ProbeKind::Startup && !started {
            self.schedule(next, again);
            return;
        }
        let ip = pod
            .status
            .as_ref()
            .and_then(|s| s.pod_ip.clone())
            .unwrap_or_default();
        let result = check(&c, &probe, &run.process, &ip, self.now);
        let success_threshold = probe.success_threshold.filter(|n| *n > 0).unwrap_or(1);
        let failure_threshold = probe.failure_threshold.filter(|n| *n > 0).unwrap_or(3);
        let Some(state) = self
            .pod_runtime_mut(node, key)
            .and_then(|p| p.containers.get_mut(name))
            .map(|r| r.probes.entry(kind).or_default())
        else {
            return;
        };
        let before = state.passed;
        let mut events: Vec<PendingEvent> =
            tally(state, &result, kind, success_threshold, failure_threshold)
                .into_iter()
                .collect();
        let failures = state.failures;
        let passed = state.passed;
        let kill = result.is_err()
            && failures >= failure_threshold
            && matches!(kind, ProbeKind::Liveness | ProbeKind::Startup);
        if kill {
            events.push((
                "Normal",
                "Killing",
                format!(
                    "Container {name} failed {} probe, will be restarted",
                    kind.name().to_lowercase()
                ),
            ));
            // A server stops cleanly on SIGTERM; anything else is killed when the
            // grace period (the probe's, else the pod's) ends.
            let (code, delay) = kill_outcome(&run.process, &probe, &pod);
            if let Some(r) = self
                .pod_runtime_mut(node, key)
                .and_then(|p| p.containers.get_mut(name))
            {
                r.killing = true;
            }
            let obj = Object::Pod(Box::new(pod));
            for (t, reason, message) in events {
                self.record_event(&obj, "kubelet", Some(node), t, reason, message);
            }
            if delay == 0 {
                self.kubelet_container_killed(node, key, uid, name, restarts, code);
            } else {
                self.schedule(
                    self.now + SimDuration::millis(delay),
                    KubeletTimer::ContainerKilled {
                        node: node.to_string(),
                        pod: key.clone(),
                        uid: uid.to_string(),
                        container: name.to_string(),
                        restarts,
                        code,
                    },
                );
            }
            return;
        }
        let readiness = c.readiness_probe.is_some();
        // Only startup and readiness results show in the pod's status.
        let changed = passed != before && kind != ProbeKind::Liveness;
        if changed {
            mark_probe_result(&mut pod, name, kind, passed, readiness);
            // A sidecar that has started lets the next container start.
            if kind == ProbeKind::Startup && passed {
                self.continue_after_init(node, key, &mut pod, &mut events);
            }
            refresh_pod_status(&mut pod, &self.now.to_k8s());
            self.write_pod_with_events(node, pod, events);
        } else if !events.is_empty() {
            let obj = Object::Pod(Box::new(pod));
            for (t, reason, message) in events {
                self.record_event(&obj, "kubelet", Some(node), t, reason, message);
            }
        }
        // A startup probe stops once it has passed.
        if !(kind == ProbeKind::Startup && passed) {
            self.schedule(next, again);
        }
    }
}

/// Counts one probe result into its container's state: `passed` turns true after
/// `success` successes in a row (a startup probe's first), and false for a
/// readiness probe after `failure` failures in a row. A failure is an `Unhealthy`
/// event.
fn tally(
    state: &mut ProbeState,
    result: &Result<(), String>,
    kind: ProbeKind,
    success: i32,
    failure: i32,
) -> Option<PendingEvent> {
    match result {
        Ok(()) => {
            state.successes += 1;
            state.failures = 0;
            if state.successes >= success || kind == ProbeKind::Startup {
                state.passed = true;
            }
            None
        }
        Err(message) => {
            state.failures += 1;
            state.successes = 0;
            if state.failures >= failure && kind == ProbeKind::Readiness {
                state.passed = false;
            }
            Some((
                "Warning",
                "Unhealthy",
                format!("{} probe failed: {message}", kind.name()),
            ))
        }
    }
}

/// How a container killed for a failed probe ends: a server stops cleanly on
/// SIGTERM (exit 0, after its stop time); anything else is killed (137) when the
/// grace period — the probe's, else the pod's — ends. `(code, delay in ms)`.
fn kill_outcome(
    process: &Process,
    probe: &Probe,
    pod: &k8s_openapi::api::core::v1::Pod,
) -> (i32, u64) {
    let grace_ms = crate::time::SimDuration::from_secs_i64(
        probe
            .termination_grace_period_seconds
            .or_else(|| {
                pod.spec
                    .as_ref()
                    .and_then(|s| s.termination_grace_period_seconds)
            })
            .unwrap_or(30),
    )
    .as_millis();
    crate::kubelet::containers::stop_outcome(process, grace_ms)
}

/// Shows a startup or readiness probe's new verdict in the container's status.
fn mark_probe_result(
    pod: &mut k8s_openapi::api::core::v1::Pod,
    name: &str,
    kind: ProbeKind,
    passed: bool,
    readiness: bool,
) {
    if let Some(cs) = crate::kubelet::containers::status_mut(pod, name) {
        match kind {
            ProbeKind::Startup => {
                cs.started = Some(true);
                cs.ready = !readiness;
            }
            ProbeKind::Readiness => cs.ready = passed,
            ProbeKind::Liveness => {}
        }
    }
}

/// Whether the process exits cleanly on SIGTERM (a server) rather than being killed.
pub(crate) fn stops_cleanly(p: &Process) -> bool {
    crate::kubelet::images::lookup(&p.image).is_some_and(|i| {
        matches!(i.behaviour, crate::kubelet::images::Behaviour::Server)
            && p.argv
                .first()
                .is_some_and(|exe| i.programs.iter().any(|q| q == exe || exe.ends_with(q)))
    })
}
