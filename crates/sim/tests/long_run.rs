//! Long runs: a steady cluster costs the same every simulated hour, in memory (what
//! the trace keeps, how long each remembered cause is) and in work (how many shell
//! commands a container's replay needs), however long it has been running.

mod common;
use common::*;

use warehouse_sim::kubelet::shell::{self, Context, End};
use warehouse_sim::{Cluster, Kind, SimDuration};

const CRASH: &str = "apiVersion: v1
kind: Pod
metadata: {name: crash}
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'echo starting; exit 1']
";

#[test]
fn a_crash_loop_keeps_every_cause_short() {
    let mut c = cluster_with(CRASH);
    // Back-off reaches 5 minutes after a few crashes: about 70 restarts in 6 hours,
    // each two timers (the exit, the end of the back-off) after the one before.
    c.advance(SimDuration::secs(6 * 3600));
    let key = c.get(Kind::Pod, "default", "crash").unwrap().key();
    let why = c.why(&key);
    assert!(!why.is_empty());
    assert!(
        why[0].timers.len() <= 5,
        "{} timers in one cause",
        why[0].timers.len()
    );
    let text = c.why_text(&key);
    let first = text.lines().next().unwrap();
    assert!(
        first.contains("when timer \"container exited\" after \"container back-off ended\""),
        "{text}"
    );
    assert!(first.contains("earlier timers"), "{text}");
    // The chain still ends where the loop began: the pod's binding, its creation, the
    // user's request.
    assert!(
        text.contains("by system:kube-scheduler reacting to revision"),
        "{text}"
    );
    assert!(
        text.lines()
            .last()
            .unwrap()
            .contains("ADDED pod/default/crash by kubernetes-admin on request"),
        "{text}"
    );
}

#[test]
fn a_steady_cluster_keeps_the_same_number_of_writes_day_after_day() {
    let mut c = cluster_with(WEB);
    c.advance(SimDuration::secs(24 * 3600));
    let day_one = c.trace().len();
    c.advance(SimDuration::secs(24 * 3600));
    let day_two = c.trace().len();
    assert!(
        day_two <= day_one,
        "the trace grew from {day_one} to {day_two} writes"
    );
    assert!(c.trace().forgotten() > 0);
    // What led to each object's latest write stays: the Deployment, made two days and
    // tens of thousands of writes ago, still explains itself.
    let key = c.get(Kind::Deployment, "default", "web").unwrap().key();
    let text = c.why_text(&key);
    assert!(
        text.lines()
            .last()
            .unwrap()
            .contains("ADDED deployment/default/web by kubernetes-admin on request"),
        "{text}"
    );
}

/// A loop that flips a file every 5 s, the main process of a flapping pod.
const TOGGLE: &str = "while true; do touch /tmp/ready; sleep 5; rm -f /tmp/ready; sleep 5; done";

#[test]
fn a_periodic_loop_replays_a_month_within_a_small_budget() {
    let ctx = Context::default();
    let month = 30 * 24 * 3600 * 1000;
    // 259,200 iterations of five commands: far beyond 10,000 commands run one by one.
    let r = shell::run(TOGGLE, &ctx, month, 10_000);
    assert_eq!(r.end, End::Horizon);
    // 3 s into a period the file is there, 8 s into it it is not.
    let at = |ms: u64| shell::run(TOGGLE, &ctx, ms, 10_000);
    let day = 24 * 3600 * 1000;
    let on = at(20 * day + 3_000);
    assert_eq!(on.end, End::Horizon);
    assert!(on.files.contains_key("/tmp/ready"));
    let off = at(20 * day + 8_000);
    assert!(!off.files.contains_key("/tmp/ready"));
}

/// A flapping readiness probe: the file comes and goes every minute; each iteration
/// also counts to 2,000 (a lot of commands for one replay step by step).
const FLAPPING: &str = "apiVersion: v1
kind: Pod
metadata: {name: flap}
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'while true; do touch /tmp/ready; sleep 30; rm -f /tmp/ready; for i in $(seq 2000); do true; done; sleep 30; done']
    readinessProbe:
      exec: {command: [cat, /tmp/ready]}
      periodSeconds: 20
      failureThreshold: 1
";

fn ready(c: &Cluster) -> bool {
    let pod = c.get(Kind::Pod, "default", "flap").unwrap();
    let status = pod.as_pod().unwrap().status.clone().unwrap();
    status.container_statuses.unwrap()[0].ready
}

#[test]
fn a_flapping_readiness_probe_still_flaps_hours_later() {
    let mut c = cluster_with(FLAPPING);
    c.advance(SimDuration::secs(3 * 3600));
    let mut seen = Vec::new();
    for _ in 0..12 {
        c.advance(SimDuration::secs(10));
        seen.push(ready(&c));
    }
    assert!(
        seen.contains(&true) && seen.contains(&false),
        "readiness stopped flapping: {seen:?}"
    );
}

#[test]
fn a_skipped_loop_gives_what_running_every_iteration_gives() {
    // Each script, and the same with a read of the clock in its loop (which cannot be
    // skipped), must give the same lines, files and end.
    let scripts = [
        "while true; do echo tick; sleep 10; done",
        "until false; do printf 'a\\nb\\n'; sleep 1; done",
        "while true; do for i in 1 2 3; do echo $i; done; sleep 7; done",
        "n=0; while true; do if [ $n -lt 5 ]; then n=$((n+1)); echo warming $n; fi; touch /tmp/s; sleep 2; rm -f /tmp/s; echo off; sleep 3; done",
        "while true; do touch /tmp/ready; sleep 5; rm -f /tmp/ready; sleep 5; done",
        "while sleep 4; do echo no newline; done",
    ];
    let ctx = Context::default();
    for script in scripts {
        let slow = script.replacen("; do ", "; do x=$(date +%s); ", 1);
        assert_ne!(slow, script);
        for horizon in [0, 9_999, 10_000, 86_400_000, 86_400_000 + 3_000, 86_399_999] {
            let fast = shell::run(script, &ctx, horizon, 1_000_000);
            let step_by_step = shell::run(&slow, &ctx, horizon, 1_000_000);
            assert_eq!(fast.end, step_by_step.end, "{script} to {horizon}");
            assert_eq!(fast.files, step_by_step.files, "{script} to {horizon}");
            assert!(fast.lines == step_by_step.lines, "{script} to {horizon}");
            // Skipped: a few hundred commands are enough for a day.
            let cheap = shell::run(script, &ctx, horizon, 300);
            assert_eq!(cheap.end, fast.end, "{script} to {horizon}");
            assert!(cheap.lines == fast.lines, "{script} to {horizon}");
        }
    }
}

#[test]
fn an_expired_event_is_a_deletion_the_trace_sees() {
    let mut c = cluster_with(CRASH);
    c.advance(SimDuration::secs(60));
    let events: Vec<_> = c
        .list(Kind::Event, Some("default"))
        .iter()
        .map(|e| e.key())
        .collect();
    assert!(!events.is_empty());
    // Events live an hour after their last occurrence; the crash loop's own go on
    // being counted, the others expire.
    c.advance(SimDuration::secs(2 * 3600));
    let mut expired = 0;
    for key in &events {
        if c.get(Kind::Event, "default", &key.name).is_ok() {
            continue;
        }
        expired += 1;
        let last = c.trace().last_write(key);
        assert!(
            last.is_none_or(|w| w.event_type == warehouse_sim::apiserver::store::EventType::Deleted),
            "{key} expired but the trace still holds it as it was: {last:?}"
        );
    }
    assert!(expired > 0);
}
