//! What will happen next, and when: the timers a learner waits for, read from the
//! components' own state so the narration's countdowns are the simulation's real
//! due times — a silent zone's grace period, the eviction of its robots, a crashed
//! container's next restart, an image pull's next try.

use crate::cluster::Cluster;
use crate::controllers::node_lifecycle::{
    node_ready_status, GRACE_PERIOD, MONITOR_PERIOD, NOT_READY, UNREACHABLE,
};
use crate::object::{Kind, ObjectKey};
use crate::sort::StableSort;

/// What a countdown is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CountdownKind {
    /// A zone stopped reporting; the node controller marks it NotReady when the
    /// grace period (50 s) since it last heard from it ends (checked every 5 s).
    NodeGrace,
    /// Robots on a NotReady zone are evicted when their toleration runs out.
    Eviction,
    /// A crashed container restarts when its back-off ends (CrashLoopBackOff).
    Restart,
    /// A failed image pull is tried again when its back-off ends (ImagePullBackOff).
    PullRetry,
}

/// One thing that will happen at a known simulated time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Countdown {
    pub kind: CountdownKind,
    /// The zone (for [`CountdownKind::NodeGrace`] and [`CountdownKind::Eviction`]) or
    /// the robot, `namespace/name`.
    pub subject: String,
    /// The container, for restarts and pulls.
    pub container: Option<String>,
    /// How many robots (evictions due at the same moment on the same zone).
    pub count: usize,
    /// Since when it has been waiting (the last word from the zone, the taint, the
    /// crash or the failed pull).
    pub since_ms: u64,
    /// When it happens (for a zone's grace period, the earliest moment: the node
    /// controller notices at its next check, at most 5 s later).
    pub due_ms: u64,
}

impl Cluster {
    /// Everything a learner is waiting for, soonest first. Costs a pass over the
    /// nodes, the pods on NotReady zones and the containers in back-off.
    pub fn countdowns(&self) -> Vec<Countdown> {
        let mut out = Vec::new();
        let now = self.now.0;
        for obj in self.store.list(Kind::Node, None) {
            let Some(node) = obj.as_node() else { continue };
            let name = obj.name().to_string();
            if node_ready_status(node) == "True" {
                if let Some(h) = self.control_plane.node_health.get(&name) {
                    let silent_since = h.probe_timestamp.0;
                    // A zone heard from within a lease period is simply healthy.
                    if now.saturating_sub(silent_since)
                        > crate::kubelet::LEASE_RENEW_INTERVAL.as_millis()
                            + MONITOR_PERIOD.as_millis()
                    {
                        out.push(Countdown {
                            kind: CountdownKind::NodeGrace,
                            subject: name.clone(),
                            container: None,
                            count: 0,
                            since_ms: silent_since,
                            due_ms: silent_since + GRACE_PERIOD.as_millis(),
                        });
                    }
                }
                continue;
            }
            let taint_added = node
                .spec
                .as_ref()
                .and_then(|s| s.taints.as_ref())
                .and_then(|ts| {
                    ts.iter().find(|t| {
                        (t.key == UNREACHABLE || t.key == NOT_READY) && t.effect == "NoExecute"
                    })
                })
                .and_then(|t| t.time_added.as_ref())
                .map(|t| crate::time::SimTime::from_k8s(t).0);
            let mut due: std::collections::BTreeMap<u64, usize> = Default::default();
            for key in self.store.pods_on_node(&name) {
                let Some(pod) = self.store.get(key).and_then(|o| o.as_pod()) else {
                    continue;
                };
                if pod.metadata.deletion_timestamp.is_some() {
                    continue;
                }
                let Some(uid) = pod.metadata.uid.as_deref() else {
                    continue;
                };
                if let Some(at) = self.controllers.evictions.get(uid) {
                    *due.entry(at.0).or_default() += 1;
                }
            }
            for (at, count) in due {
                out.push(Countdown {
                    kind: CountdownKind::Eviction,
                    subject: name.clone(),
                    container: None,
                    count,
                    since_ms: taint_added.unwrap_or(now),
                    due_ms: at,
                });
            }
        }
        for kubelet in self.kubelets.values() {
            if !kubelet.running {
                continue;
            }
            for (key, runtime) in &kubelet.containers {
                let waiting = |container: &str| waiting_reason(self, key, container);
                for (cname, run) in &runtime.containers {
                    let Some(finished) = run.finished_ms else {
                        continue;
                    };
                    if waiting(cname).as_deref() == Some("CrashLoopBackOff") {
                        // The restart is due the back-off after the exit (as the
                        // kubelet scheduled it: `next_on_restart` marks a restart in
                        // back-off; otherwise it comes at the next relist).
                        let delay = if run.next_on_restart {
                            run.backoff_ms
                        } else {
                            crate::kubelet::containers::RELIST_MS
                        };
                        out.push(Countdown {
                            kind: CountdownKind::Restart,
                            subject: format!("{}/{}", key.namespace, key.name),
                            container: Some(cname.clone()),
                            count: 1,
                            since_ms: finished,
                            due_ms: finished + delay,
                        });
                    }
                }
                for (cname, pull) in &runtime.pulls {
                    if !pull.error.is_empty()
                        && pull.backoff_ms > 0
                        && waiting(cname).as_deref() == Some("ImagePullBackOff")
                    {
                        out.push(Countdown {
                            kind: CountdownKind::PullRetry,
                            subject: format!("{}/{}", key.namespace, key.name),
                            container: Some(cname.clone()),
                            count: 1,
                            since_ms: pull.backoff_last_ms,
                            due_ms: pull.backoff_last_ms + pull.backoff_ms,
                        });
                    }
                }
            }
        }
        out.retain(|c| c.due_ms >= now);
        out.stable_sort_by(|a, b| {
            (a.due_ms, a.kind, &a.subject).cmp(&(b.due_ms, b.kind, &b.subject))
        });
        out
    }
}

fn waiting_reason(c: &Cluster, key: &ObjectKey, container: &str) -> Option<String> {
    let pod = c.store.get(key)?.as_pod()?;
    pod.status
        .as_ref()?
        .container_statuses
        .as_ref()?
        .iter()
        .find(|s| s.name == container)?
        .state
        .as_ref()?
        .waiting
        .as_ref()?
        .reason
        .clone()
}
