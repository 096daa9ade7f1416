//! Container lifecycle: processes, exits, restart policy, back-off, pod phases, logs.

mod common;
use common::*;

use warehouse_sim::{Cluster, Kind, Object, SimDuration, Topology};

fn pod_of(c: &Cluster, name: &str) -> k8s_openapi::api::core::v1::Pod {
    match c.get(Kind::Pod, "default", name).unwrap() {
        Object::Pod(p) => *p,
        _ => unreachable!(),
    }
}

fn phase(c: &Cluster, name: &str) -> String {
    pod_of(c, name).status.unwrap().phase.unwrap()
}

fn restarts(c: &Cluster, name: &str) -> i32 {
    pod_of(c, name).status.unwrap().container_statuses.unwrap()[0].restart_count
}

fn pod(name: &str, policy: &str, script: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  restartPolicy: {policy}
  containers:
  - name: main
    image: busybox
    command: [sh, -c, '{script}']
"
    )
}

#[test]
fn finished_pods_end_succeeded_or_failed_for_never_and_on_failure() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &pod("ok", "Never", "sleep 5"));
    create(&mut c, &pod("bad", "Never", "sleep 5; exit 2"));
    create(&mut c, &pod("retry-ok", "OnFailure", "sleep 5"));
    create(&mut c, &pod("retry-bad", "OnFailure", "exit 1"));
    c.advance(SimDuration::secs(3));
    assert_eq!(phase(&c, "ok"), "Running");
    c.advance(SimDuration::secs(10));
    assert_eq!(phase(&c, "ok"), "Succeeded");
    assert_eq!(phase(&c, "bad"), "Failed");
    assert_eq!(phase(&c, "retry-ok"), "Succeeded");
    assert_eq!(phase(&c, "retry-bad"), "Running");
    let bad = pod_of(&c, "bad")
        .status
        .unwrap()
        .container_statuses
        .unwrap();
    let t = bad[0].state.as_ref().unwrap().terminated.as_ref().unwrap();
    assert_eq!((t.exit_code, t.reason.as_deref()), (2, Some("Error")));
    // A finished pod is never started again.
    c.advance(SimDuration::secs(600));
    assert_eq!(restarts(&c, "ok"), 0);
    assert_eq!(restarts(&c, "bad"), 0);
}

#[test]
fn crash_loop_back_off_doubles_to_five_minutes() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &pod("crash", "Always", "exit 1"));
    // Restarts after 1 s, then back-offs of 10, 20, 40, 80, 160, 300, 300 s.
    let mut at = 0u64;
    let mut seen = Vec::new();
    for _ in 0..2000 {
        c.advance(SimDuration::secs(1));
        at += 1;
        let r = restarts(&c, "crash");
        if seen.last().map(|(n, _)| *n) != Some(r) {
            seen.push((r, at));
        }
    }
    let gaps: Vec<u64> = seen.windows(2).map(|w| w[1].1 - w[0].1).collect();
    // (The first gap runs from the first look, not from the exit.)
    assert_eq!(gaps[1..8], [10, 20, 40, 80, 160, 300, 300], "{seen:?}");
    assert_eq!(phase(&c, "crash"), "Running");
}

#[test]
fn a_running_counter_costs_no_timers_per_line_and_logs_replay() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        &pod(
            "counter",
            "Always",
            "i=0; while true; do echo $i; i=$((i+1)); sleep 1; done",
        ),
    );
    c.advance(SimDuration::secs(3600));
    let lines = c.container_log("default", "counter", None, false).unwrap();
    assert!(lines.len() >= 3598, "{}", lines.len());
    assert_eq!(lines[0].1, "0");
    assert_eq!(restarts(&c, "counter"), 0);
}

#[test]
fn bad_input_in_commands_never_panics() {
    let mut c = Cluster::new(1, Topology::default());
    for (i, script) in [
        "\"unterminated",
        "$((1/0))",
        "echo $(",
        "while; do; done",
        "for in; do done",
        "if then fi",
        "echo ${",
        "$(( 99999999999999999999 ))",
        "sleep -1; sleep abc; seq 1 0 5",
        "`",
        "break 99; continue x; exit 999999999999",
    ]
    .iter()
    .enumerate()
    {
        create(&mut c, &pod(&format!("p{i}"), "Never", script));
    }
    c.advance(SimDuration::secs(30));
    for i in 0..11 {
        let name = format!("p{i}");
        assert!(
            ["Succeeded", "Failed"].contains(&phase(&c, &name).as_str()),
            "{name}"
        );
        let _ = c.container_log("default", &name, None, false).unwrap();
    }
}

#[test]
fn a_leaking_container_is_oom_killed_at_its_limit() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: v1
kind: Pod
metadata:
  name: leaky
spec:
  containers:
  - name: app
    image: ghcr.io/kube-warehouse/leaky-app:1.0
    resources:
      limits:
        memory: 100Mi
",
    );
    c.advance(SimDuration::secs(5));
    let used = c.container_memory_bytes("default", "leaky", "app").unwrap();
    assert!(used > 20 << 20 && used < 100 << 20, "{used}");
    c.advance(SimDuration::secs(7));
    let st = pod_of(&c, "leaky")
        .status
        .unwrap()
        .container_statuses
        .unwrap();
    let last = st[0]
        .last_state
        .as_ref()
        .and_then(|s| s.terminated.as_ref());
    let now = st[0].state.as_ref().and_then(|s| s.terminated.as_ref());
    let t = last.or(now).expect("terminated once");
    assert_eq!((t.exit_code, t.reason.as_deref()), (137, Some("OOMKilled")));
}
