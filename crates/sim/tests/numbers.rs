//! User numbers at their extremes: grace periods, deadlines, tolerations, probe
//! timings and quantities near the int64 limit never overflow the simulation's
//! arithmetic; they saturate at the far future or are refused as upstream refuses
//! them.

mod common;

use common::cluster_with;
use warehouse_sim::{Cluster, Fault, Kind, Object, SimDuration};

const POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: nginx
    image: nginx:1.27
";

fn deletion_timestamp(c: &Cluster, name: &str) -> String {
    let pod = c.get(Kind::Pod, "default", name).unwrap();
    serde_json::to_value(pod.meta().deletion_timestamp.as_ref().unwrap())
        .unwrap()
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_huge_grace_period_puts_the_deadline_at_the_far_future() {
    // (Up to the largest grace period the kubelet's own millisecond arithmetic holds.)
    for grace in [1_000_000_000_000, 18_000_000_000_000_000] {
        let mut c = cluster_with(POD);
        c.advance(SimDuration::secs(20));
        let deleted = c
            .delete_with_grace(Kind::Pod, "default", "web", grace)
            .unwrap();
        assert_eq!(deleted.meta().deletion_grace_period_seconds, Some(grace));
        assert_eq!(deletion_timestamp(&c, "web"), "9999-12-30T22:00:00Z");
        // The kubelet stops the containers (nginx stops on SIGTERM) and the pod goes.
        c.advance(SimDuration::secs(60));
        assert!(c.get(Kind::Pod, "default", "web").is_err(), "grace {grace}");
    }
}

#[test]
fn a_job_deadline_near_the_int64_limit_never_fires() {
    let mut c = cluster_with(
        "apiVersion: batch/v1
kind: Job
metadata:
  name: long
spec:
  activeDeadlineSeconds: 9223372036854775807
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: sleep
        image: busybox:1.36
        command: [sleep, '3600']
",
    );
    c.advance(SimDuration::secs(120));
    let Ok(Object::Job(job)) = c.get(Kind::Job, "default", "long") else {
        panic!("the Job is gone");
    };
    let status = job.status.unwrap_or_default();
    assert!(status.conditions.is_none(), "{:?}", status.conditions);
    assert_eq!(status.active, Some(1));
}

fn pod_tolerating_unreachable(seconds: i64) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  nodeName: zone-a
  tolerations:
  - key: node.kubernetes.io/unreachable
    operator: Exists
    effect: NoExecute
    tolerationSeconds: {seconds}
  containers:
  - name: nginx
    image: nginx:1.27
"
    )
}

#[test]
fn toleration_seconds_at_the_extremes_neither_overflow_nor_wrap() {
    // Near the int64 limit: tolerated for as long as the simulation can count.
    let mut c = cluster_with(&pod_tolerating_unreachable(i64::MAX));
    c.advance(SimDuration::secs(10));
    c.fault(Fault::KillNode("zone-a".into())).unwrap();
    c.advance(SimDuration::secs(600));
    let pod = c.get(Kind::Pod, "default", "web").unwrap();
    assert!(pod.meta().deletion_timestamp.is_none());
    // Negative: upstream treats it as zero, evicted as soon as the taint lands.
    let mut c = cluster_with(&pod_tolerating_unreachable(-5));
    c.advance(SimDuration::secs(10));
    c.fault(Fault::KillNode("zone-a".into())).unwrap();
    c.advance(SimDuration::secs(120));
    let pod = c.get(Kind::Pod, "default", "web").unwrap();
    assert!(pod.meta().deletion_timestamp.is_some());
}

#[test]
fn a_pod_terminating_for_ever_stays_charged_to_quota() {
    let mut c = cluster_with(
        "apiVersion: v1
kind: ResourceQuota
metadata:
  name: pods
spec:
  hard:
    pods: '5'
---
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  nodeName: zone-a
  containers:
  - name: nginx
    image: nginx:1.27
",
    );
    c.advance(SimDuration::secs(20));
    // Its node is gone, so nobody finishes the deletion: the grace period never ends.
    c.fault(Fault::KillNode("zone-a".into())).unwrap();
    c.delete_with_grace(Kind::Pod, "default", "web", i64::MAX)
        .unwrap();
    assert_eq!(deletion_timestamp(&c, "web"), "9999-12-30T22:00:00Z");
    c.advance(SimDuration::secs(30));
    let Ok(Object::ResourceQuota(q)) = c.get(Kind::ResourceQuota, "default", "pods") else {
        panic!("no quota");
    };
    let used = q.status.and_then(|s| s.used).unwrap_or_default();
    assert_eq!(used.get("pods").map(|q| q.0.as_str()), Some("1"));
}

#[test]
fn the_timer_guard_stops_early_without_moving_the_clock_back() {
    let mut c = cluster_with(common::WEB);
    let mut last = c.now();
    let target = c.now() + SimDuration::secs(30);
    let mut calls = 0;
    let mut stopped = 0;
    // Until an advance reaches the target with nothing due left (the budget may run
    // out among timers due at the target itself).
    let mut more = true;
    while more {
        let left = target.since(c.now());
        let seen = c.requests().count();
        let step = c.advance_within(left, 7);
        assert!(
            c.now() >= last,
            "the clock went back from {last:?} to {:?}",
            c.now()
        );
        // Nothing happened at an instant before the clock's reading at the start.
        for r in c.requests().skip(seen) {
            assert!(
                r.at >= last,
                "a request at {:?} after the clock read {last:?}",
                r.at
            );
        }
        assert!(step.fired <= 7);
        if step.stopped_early {
            stopped += 1;
            // Stopped at the last timer it fired, at the target at most.
            assert!(c.now() <= target);
        } else {
            assert_eq!(c.now(), target);
        }
        more = step.stopped_early;
        last = c.now();
        calls += 1;
        assert!(calls < 100_000, "no progress");
    }
    assert!(stopped > 0, "the budget never ran out");
    // The same state as one unbounded advance: nothing was skipped.
    let mut d = cluster_with(common::WEB);
    assert!(!d.advance(SimDuration::secs(30)).stopped_early);
    assert_eq!(c.snapshot(), d.snapshot());
}

fn pod_requesting(name: &str, cpu: &str, memory: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
  - name: a
    image: nginx:1.27
    resources:
      requests: {{cpu: '{cpu}', memory: '{memory}'}}
  - name: b
    image: nginx:1.27
    resources:
      requests: {{cpu: '{cpu}', memory: '{memory}'}}
"
    )
}

#[test]
fn huge_quantities_add_up_without_overflowing() {
    let mut c = cluster_with(
        "apiVersion: v1
kind: ResourceQuota
metadata:
  name: big
spec:
  hard:
    requests.cpu: 9e18
    requests.memory: 9e18
    limits.cpu: 9e18
",
    );
    for i in 0..4 {
        common::create(&mut c, &pod_requesting(&format!("p{i}"), "1e9", "15Ei"));
    }
    c.advance(SimDuration::secs(30));
    let Ok(Object::ResourceQuota(q)) = c.get(Kind::ResourceQuota, "default", "big") else {
        panic!("no quota");
    };
    let used = q.status.and_then(|s| s.used).unwrap_or_default();
    assert_eq!(used["requests.cpu"].0, "8e9");
    assert_eq!(used["requests.memory"].0, "120Ei");
    // Nothing fits a node; the scheduler says so instead of overflowing its sums.
    let pod = c.get(Kind::Pod, "default", "p0").unwrap();
    let phase = pod.as_pod().unwrap().status.as_ref().unwrap().phase.clone();
    assert_eq!(phase.as_deref(), Some("Pending"));
}

#[test]
fn a_negative_grace_period_is_one_second_as_upstream() {
    let mut c = cluster_with(POD);
    c.advance(SimDuration::secs(20));
    let deleted = c
        .delete_with_grace(Kind::Pod, "default", "web", -5)
        .unwrap();
    assert_eq!(deleted.meta().deletion_grace_period_seconds, Some(1));
    c.advance(SimDuration::secs(5));
    assert!(c.get(Kind::Pod, "default", "web").is_err());
}
