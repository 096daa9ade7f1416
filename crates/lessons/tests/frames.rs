//! Walkthrough frames: a step's ```frame shows the moment the simulation recorded,
//! found in order after the step before it opened, kept once shown, and found again
//! after "reset this step" replays the run.

use warehouse_kubectl::NoFiles;
use warehouse_lessons::frames::{Moment, Why};
use warehouse_lessons::runner::run_line;
use warehouse_lessons::{parse_lesson, session, Miss, Runner};
use warehouse_sim::views::feed::Change;
use warehouse_sim::SimDuration;

const LESSON: &str = r#"---
id: t
title: T
summary: S
level: intermediate
tags: [interview]
minutes: 3
---

## Make a robot

```check
- run: kubectl get pods --no-headers
  lines: 1
```

```solution
kubectl run web --image=nginx:1.27
sim advance 10s
```

## The request

```frame
request: create
name: pods/web
```

## The bind

```frame
write: modified
kind: Pod
actor: kube-scheduler
name: same
field: spec.nodeName
```

## Ready

```frame
write: modified
kind: Pod
actor: kubelet:*
name: web
field: status.conditions[Ready].status
to: "True"
```
"#;

#[test]
fn frames_show_what_was_recorded_in_order() {
    let lesson = parse_lesson("t.md", LESSON).unwrap();
    let mut s = session::start("t.md", &lesson.meta, &NoFiles).unwrap();
    let mut r = Runner::default();
    r.open(&s, 0);
    // Before the run, a frame has nothing to show.
    r.open(&s, 1);
    assert_eq!(r.frame(&lesson, &s), Some(Err(Miss::NotYet)));
    r.open(&s, 0);
    run_line(&mut s, "kubectl run web --image=nginx:1.27", &NoFiles);
    s.cluster.advance(SimDuration::secs(10));
    assert_eq!(
        r.frame(&lesson, &s),
        None,
        "a step without a frame shows none"
    );

    r.open(&s, 1);
    let request = r.frame(&lesson, &s).unwrap().unwrap();
    assert_eq!(request.actor, "kubernetes-admin");
    let Moment::Request { code, stages, .. } = &request.moment else {
        panic!("{request:?}")
    };
    assert_eq!(*code, 201);
    assert_eq!(stages.first().map(|s| s.0.as_str()), Some("authentication"));
    assert!(stages.iter().all(|s| s.1));

    r.open(&s, 2);
    let bind = r.frame(&lesson, &s).unwrap().unwrap();
    assert_eq!(bind.actor, "kube-scheduler");
    let Moment::Write {
        kind,
        name,
        change,
        cause,
        diff,
        notified,
        ..
    } = &bind.moment
    else {
        panic!("{bind:?}")
    };
    assert_eq!(
        (kind.as_str(), name.as_str(), *change),
        ("Pod", "web", Change::Modified)
    );
    // The scheduler reacted to the pod kubectl created.
    match cause {
        Why::Watch { component, read } => {
            assert_eq!(component, "kube-scheduler");
            assert_eq!((read.kind.as_str(), read.name.as_str()), ("Pod", "web"));
            assert_eq!(read.actor, "kubernetes-admin");
        }
        other => panic!("{other:?}"),
    }
    // The frame's field comes first; list entries are named, not numbered.
    assert_eq!(diff[0].path, "spec.nodeName");
    assert!(diff[0].focus && diff[0].old.is_none());
    assert!(
        diff.iter()
            .any(|d| d.path == "status.conditions[PodScheduled].status"),
        "{diff:?}"
    );
    assert!(
        notified.iter().any(|n| n.starts_with("kubelet:")),
        "{notified:?}"
    );

    r.open(&s, 3);
    let ready = r.frame(&lesson, &s).unwrap().unwrap();
    assert!(ready.after_ms > bind.after_ms);
    let Moment::Write { diff, .. } = &ready.moment else {
        panic!()
    };
    let line = diff.iter().find(|d| d.focus).unwrap();
    assert_eq!(line.path, "status.conditions[Ready].status");
    assert_eq!(line.new.as_deref(), Some("\"True\""));

    // Shown once, a moment stays as it was, however much happens afterwards.
    s.cluster.advance(SimDuration::secs(600));
    assert_eq!(r.frame(&lesson, &s), Some(Ok(ready)));
}

#[test]
fn reset_of_the_run_step_finds_the_moments_of_the_new_run() {
    let lesson = parse_lesson("t.md", LESSON).unwrap();
    let mut s = session::start("t.md", &lesson.meta, &NoFiles).unwrap();
    let mut r = Runner::default();
    r.open(&s, 0);
    run_line(&mut s, "kubectl run web --image=nginx:1.27", &NoFiles);
    s.cluster.advance(SimDuration::secs(10));
    // "Reset this step": the restored cluster has a new change feed; until the run is
    // made again, the frames after the step have nothing to show.
    r.reset(&mut s).unwrap();
    r.open(&s, 2);
    assert_eq!(r.frame(&lesson, &s), Some(Err(Miss::Earlier)));
    r.open(&s, 1);
    assert_eq!(r.frame(&lesson, &s), Some(Err(Miss::NotYet)));
    run_line(&mut s, "kubectl run web --image=nginx:1.27", &NoFiles);
    s.cluster.advance(SimDuration::secs(10));
    r.open(&s, 2);
    let bind = r.frame(&lesson, &s).unwrap().unwrap();
    assert_eq!(bind.actor, "kube-scheduler");
}
