//! The runner the browser and the verifier share: incidents at their times, reset
//! to the step's snapshot, checks evaluated only when something changed.

use warehouse_kubectl::NoFiles;
use warehouse_lessons::{parse_lesson, session, Runner};
use warehouse_sim::SimDuration;

const LESSON: &str = r#"---
id: t
title: T
summary: S
level: beginner
minutes: 3
setup: |
  kubectl create deployment web --image=nginx --replicas=2
  sim advance 30s
---

## Lose a zone

```incident
- at: 30s
  run: sim node kill zone-a
```

```check
within: 2m
conditions:
  - run: kubectl get node zone-a --no-headers
    contains: NotReady
```

```solution
sim advance 90s
```
"#;

#[test]
fn incidents_fire_at_their_time_and_reset_returns_to_the_step_start() {
    let lesson = parse_lesson("t.md", LESSON).unwrap();
    let mut s = session::start("t.md", &lesson.meta, &NoFiles).unwrap();
    let mut r = Runner::default();
    r.open(&s, 0);
    let opened = s.cluster.now();
    let (due, what) = r.next_incident(&lesson).unwrap();
    assert_eq!(
        (due.since(opened), what),
        (SimDuration::secs(30), "sim node kill zone-a")
    );
    let fired = r.advance(&lesson, &mut s, SimDuration::secs(29), &NoFiles);
    assert!(fired.is_empty());
    let fired = r.advance(&lesson, &mut s, SimDuration::secs(2), &NoFiles);
    assert_eq!(fired.len(), 1);
    assert!(
        fired[0].output.stdout.starts_with("node \"zone-a\" killed"),
        "{:?}",
        fired[0]
    );
    assert!(r.next_incident(&lesson).is_none());
    assert!(!r.check(&lesson, &mut s, &NoFiles).unwrap().passed());
    r.advance(&lesson, &mut s, SimDuration::secs(90), &NoFiles);
    assert!(r.check(&lesson, &mut s, &NoFiles).unwrap().passed());

    r.reset(&mut s).unwrap();
    assert_eq!(s.cluster.now(), opened);
    assert!(!r.check(&lesson, &mut s, &NoFiles).unwrap().passed());
    assert_eq!(
        r.next_incident(&lesson).unwrap().1,
        "sim node kill zone-a",
        "armed again"
    );
}

#[test]
fn a_check_is_evaluated_again_only_when_the_cluster_changed() {
    let lesson = parse_lesson("t.md", LESSON).unwrap();
    let mut s = session::start("t.md", &lesson.meta, &NoFiles).unwrap();
    let mut r = Runner::default();
    r.open(&s, 0);
    r.check(&lesson, &mut s, &NoFiles);
    r.check(&lesson, &mut s, &NoFiles);
    assert_eq!(r.evaluations(), 1, "nothing moved: served from the cache");
    r.advance(&lesson, &mut s, SimDuration::secs(1), &NoFiles);
    r.check(&lesson, &mut s, &NoFiles);
    assert_eq!(r.evaluations(), 2);
}

#[test]
fn checks_leave_the_shell_as_the_learner_left_it() {
    let lesson = parse_lesson("t.md", LESSON).unwrap();
    let mut s = session::start("t.md", &lesson.meta, &NoFiles).unwrap();
    s.run_shell("export POD=web", None, &NoFiles);
    s.run_shell("false", None, &NoFiles);
    let mut r = Runner::default();
    r.open(&s, 0);
    r.check(&lesson, &mut s, &NoFiles);
    assert_eq!(s.shell.get("POD"), Some("web"));
    assert_eq!(s.shell.last_status, 1);
}
