//! Lifecycle hooks and the order in which a pod's containers stop.
//!
//! Mirrors pkg/kubelet/kuberuntime/kuberuntime_container.go (`killContainer`: the
//! `Killing` event "Stopping container NAME", then the `preStop` hook, which counts
//! against the grace period, then SIGTERM, then SIGKILL when the grace period ends;
//! a failed hook is a `FailedPreStopHook` event "PreStopHook failed"),
//! kuberuntime_termination_order.go (a sidecar gets SIGTERM only once every app
//! container and every sidecar started after it has stopped) and
//! pkg/kubelet/lifecycle/handlers.go (the `exec`, `httpGet` and `sleep` actions; an
//! HTTP hook fails only when the request cannot be made, whatever the status).
//!
//! A terminating container answers the requests that still reach it until it has
//! stopped: through its preStop hook, and after SIGTERM for as long as its program
//! takes to stop (a server drains in a moment; a shell that ignores SIGTERM is killed
//! at the end of the grace period). The endpoint controllers mark a terminating pod
//! not ready at once, but kube-proxy's rules and the ingress follow a moment later
//! (and on a real cluster, load balancers outside it much later): a `preStop: sleep`
//! keeps the pod serving through that window.
//! Simplified: the 2 s grace extension upstream gives a hook that overruns is not
//! given; a container's status is not rewritten while the pod terminates.

use crate::cluster::Cluster;
use crate::kubelet::containers::{is_sidecar, PendingEvent};
use crate::kubelet::runtime::{self, Process};
use crate::kubelet::shell::{self, End};
use crate::object::ObjectKey;
use crate::time::SimDuration;
use k8s_openapi::api::core::v1::{Container, LifecycleHandler, Pod};

/// The longest a postStart hook is waited for (upstream waits as long as it runs).
pub(crate) const POST_START_LIMIT_MS: u64 = 3_600_000;

/// How a hook ran: how long it took, and whether it failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HookRun {
    pub ms: u64,
    pub failed: bool,
}

/// One container's part in a pod's termination: when it gets SIGTERM and when it has
/// stopped, in ms of simulated time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stop {
    pub name: String,
    pub sigterm_ms: u64,
    pub stopped_ms: u64,
}

impl Cluster {
    /// A container's postStart hook has ended: the container runs, or, when the hook
    /// failed, it is killed (`FailedPostStartHook`) and its restart policy decides.
    pub(crate) fn kubelet_post_start_done(
        &mut self,
        node: &str,
        key: &ObjectKey,
        uid: &str,
        name: &str,
        restarts: i32,
        failed: bool,
    ) {
        let Some(run) = self
            .running_instance(node, key, uid, name, restarts)
            .cloned()
        else {
            return;
        };
        let Some(mut pod) = self.kubelet_pod(node, key) else {
            return;
        };
        if pod.metadata.uid.as_deref() != Some(uid) || pod.metadata.deletion_timestamp.is_some() {
            return;
        }
        let Some((c, init)) = crate::kubelet::containers::spec_container(&pod, name) else {
            return;
        };
        let mut events = Vec::new();
        if failed {
            events.push((
                "Warning",
                "FailedPostStartHook",
                "PostStartHook failed".into(),
            ));
            events.push(("Normal", "Killing", "FailedPostStartHook".into()));
            let grace_ms = crate::kubelet::containers::grace_period_ms(&pod);
            let (code, _) = crate::kubelet::containers::stop_outcome(&run.process, grace_ms);
            self.container_stopped_now(node, key, &mut pod, name, code, &mut events);
        } else {
            self.container_running(node, key, &mut pod, &c, init, restarts, &mut events);
        }
        crate::kubelet::containers::refresh_pod_status(&mut pod, &self.now.to_k8s());
        self.write_pod_with_events(node, pod, events);
    }

    /// Runs `handler` in container `c` of `pod` (main process `process`) now, given
    /// at most `limit_ms`.
    pub(crate) fn run_hook(
        &self,
        pod: &Pod,
        c: &Container,
        handler: &LifecycleHandler,
        process: &Process,
        limit_ms: u64,
    ) -> HookRun {
        let after = self.now.0.saturating_sub(process.started_ms);
        if let Some(sleep) = &handler.sleep {
            let ms = SimDuration::from_secs_i64(sleep.seconds.max(0)).as_millis();
            return HookRun {
                ms: ms.min(limit_ms),
                failed: false,
            };
        }
        if let Some(exec) = &handler.exec {
            let argv = exec.command.clone().unwrap_or_default();
            let probe = Process {
                argv: argv.clone(),
                ..process.clone()
            };
            if argv.is_empty() || runtime::start_error(&probe).is_some() {
                return HookRun {
                    ms: 0,
                    failed: true,
                };
            }
            let mut files = self.container_files(pod, &c.name);
            files.extend(self.volume_files(pod, &c.name));
            let replay =
                runtime::exec_in(process, &argv, after, &files, &shell::NoPrograms, limit_ms);
            return match replay.end {
                End::Exited { at_ms, code } => HookRun {
                    ms: at_ms.min(limit_ms),
                    failed: code != 0,
                },
                _ => HookRun {
                    ms: limit_ms,
                    failed: false,
                },
            };
        }
        if let Some(get) = &handler.http_get {
            let port = crate::kubelet::probes::port_of(c, &get.port);
            let path = get.path.as_deref().unwrap_or("/");
            let ok = port.is_some_and(|p| runtime::http_status(process, p, path, after).is_ok());
            return HookRun { ms: 0, failed: !ok };
        }
        HookRun {
            ms: 0,
            failed: true,
        }
    }

    /// When each running container of a terminating pod gets SIGTERM and stops: app
    /// containers after their preStop hooks, sidecars in reverse order after the app
    /// containers and the sidecars after them; nothing later than the grace period.
    /// Records the `Killing` and `FailedPreStopHook` events in `events`.
    pub(crate) fn termination_plan(
        &self,
        node: &str,
        key: &ObjectKey,
        pod: &Pod,
        grace_ms: u64,
        events: &mut Vec<PendingEvent>,
    ) -> Vec<Stop> {
        let now = self.now.0;
        let deadline = now.saturating_add(grace_ms);
        let runs = self.kubelets.get(node).and_then(|k| k.containers.get(key));
        let running = |c: &Container| {
            runs.and_then(|r| r.containers.get(&c.name))
                .filter(|r| r.finished_ms.is_none())
                .map(|r| r.process.clone())
        };
        let spec = pod.spec.clone().unwrap_or_default();
        // An app container not yet created (its image still pulling) is stopped too.
        let apps: Vec<(Container, Process)> = spec
            .containers
            .iter()
            .filter_map(|c| {
                let run = runs.and_then(|r| r.containers.get(&c.name));
                let process = match run {
                    Some(r) if r.finished_ms.is_some() => return None,
                    Some(r) => r.process.clone(),
                    None => Process {
                        image: c.image.clone().unwrap_or_default(),
                        argv: Vec::new(),
                        env: runtime::Env::default(),
                        started_ms: now,
                        memory_limit: None,
                        cpu_limit_milli: None,
                        gpus: 0,
                        mounts: Default::default(),
                        stdin: None,
                        seed: Default::default(),
                    },
                };
                Some((c.clone(), process))
            })
            .collect();
        let sidecars: Vec<(Container, Process)> = spec
            .init_containers
            .iter()
            .flatten()
            .filter(|c| is_sidecar(c))
            .filter_map(|c| Some((c.clone(), running(c)?)))
            .collect();
        for (c, _) in apps.iter().chain(&sidecars) {
            events.push((
                "Normal",
                "Killing",
                format!("Stopping container {}", c.name),
            ));
        }
        let hook_end = |c: &Container, p: &Process, events: &mut Vec<PendingEvent>| {
            // No hook for a container that never started.
            let hook = c.lifecycle.as_ref().and_then(|l| l.pre_stop.as_ref());
            let Some(hook) = hook.filter(|_| !p.argv.is_empty()) else {
                return now;
            };
            let run = self.run_hook(pod, c, hook, p, grace_ms);
            if run.failed {
                events.push(("Warning", "FailedPreStopHook", "PreStopHook failed".into()));
            }
            now + run.ms
        };
        let stopped = |sigterm: u64, p: &Process| {
            sigterm
                .saturating_add(crate::kubelet::images::stop_ms(&p.image))
                .min(deadline)
        };
        let mut plan = Vec::new();
        let mut last = now;
        for (c, p) in &apps {
            let sigterm = hook_end(c, p, events).min(deadline);
            let stop = stopped(sigterm, p);
            last = last.max(stop);
            plan.push(Stop {
                name: c.name.clone(),
                sigterm_ms: sigterm,
                stopped_ms: stop,
            });
        }
        // Hooks run at once for every container; sidecars then wait their turn.
        let hooks: Vec<u64> = sidecars
            .iter()
            .map(|(c, p)| hook_end(c, p, events))
            .collect();
        for ((c, p), hook) in sidecars.iter().zip(hooks).rev() {
            let sigterm = hook.max(last).min(deadline);
            let stop = stopped(sigterm, p);
            last = last.max(stop);
            plan.push(Stop {
                name: c.name.clone(),
                sigterm_ms: sigterm,
                stopped_ms: stop,
            });
        }
        plan
    }
}
