//! The Job controller and the TTL-after-finished controller. The tests' containers
//! sleep, and the tests decide how each one ends by acting as the kubelet
//! (`Cluster::kubelet_report_container_exit`); the controller reads only what a real
//! one reads: pod phase, container statuses, deletion timestamps, finalizers.

mod common;
use common::*;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Event, Pod};
use warehouse_sim::{Cluster, Kind, Object, SimDuration, SimTime};

fn job_yaml(name: &str, extra_spec: &str, restart: &str) -> String {
    format!(
        "apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
spec:
{extra_spec}  template:
    spec:
      restartPolicy: {restart}
      containers:
      - name: work
        image: busybox:1.36
        command: [sh, -c, 'sleep 3600']
"
    )
}

fn job(c: &Cluster, name: &str) -> Job {
    match c.get(Kind::Job, "default", name).unwrap() {
        Object::Job(j) => *j,
        _ => unreachable!(),
    }
}

fn job_pods(c: &Cluster, name: &str) -> Vec<Pod> {
    c.list(Kind::Pod, Some("default"))
        .into_iter()
        .filter_map(|o| match o {
            Object::Pod(p) => Some(*p),
            _ => None,
        })
        .filter(|p| {
            p.metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("batch.kubernetes.io/job-name"))
                .map(String::as_str)
                == Some(name)
        })
        .collect()
}

fn phase(p: &Pod) -> &str {
    p.status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or("")
}

fn is_active(p: &Pod) -> bool {
    p.metadata.deletion_timestamp.is_none() && !matches!(phase(p), "Succeeded" | "Failed")
}

fn running(c: &Cluster, name: &str) -> Vec<String> {
    job_pods(c, name)
        .into_iter()
        .filter(|p| is_active(p) && phase(p) == "Running")
        .map(|p| p.metadata.name.unwrap())
        .collect()
}

/// (type, status, reason, message) of every condition, in order.
fn conditions(j: &Job) -> Vec<(String, String, String, String)> {
    j.status
        .as_ref()
        .and_then(|s| s.conditions.clone())
        .unwrap_or_default()
        .into_iter()
        .map(|c| {
            (
                c.type_,
                c.status,
                c.reason.unwrap_or_default(),
                c.message.unwrap_or_default(),
            )
        })
        .collect()
}

fn events_about(c: &Cluster, name: &str) -> Vec<(String, String, String)> {
    let mut evs: Vec<Event> = c
        .list(Kind::Event, Some("default"))
        .into_iter()
        .filter_map(|o| match o {
            Object::Event(e) => Some(*e),
            _ => None,
        })
        .filter(|e| e.involved_object.name.as_deref() == Some(name))
        .filter(|e| e.involved_object.kind.as_deref() == Some("Job"))
        .collect();
    evs.sort_by_key(|e| e.metadata.name.clone());
    evs.into_iter()
        .map(|e| {
            (
                e.type_.unwrap_or_default(),
                e.reason.unwrap_or_default(),
                e.message.unwrap_or_default(),
            )
        })
        .collect()
}

fn step(c: &mut Cluster, secs: u64) {
    c.advance(SimDuration::secs(secs));
}

/// Advances a second at a time until `f` holds (at most `limit` seconds).
fn until(c: &mut Cluster, limit: u64, mut f: impl FnMut(&Cluster) -> bool) {
    for _ in 0..limit {
        if f(c) {
            return;
        }
        step(c, 1);
    }
    assert!(f(c), "condition not reached in {limit}s");
}

#[test]
fn job_is_defaulted_with_a_generated_selector_and_labels() {
    let mut c = cluster_with(&job_yaml("pi", "", "Never"));
    let j = job(&c, "pi");
    let uid = j.metadata.uid.clone().unwrap();
    let spec = j.spec.as_ref().unwrap();
    assert_eq!(spec.completions, Some(1));
    assert_eq!(spec.parallelism, Some(1));
    assert_eq!(spec.backoff_limit, Some(6));
    assert_eq!(spec.completion_mode.as_deref(), Some("NonIndexed"));
    assert_eq!(spec.manual_selector, None.or(Some(false)));
    let sel = spec
        .selector
        .as_ref()
        .unwrap()
        .match_labels
        .clone()
        .unwrap();
    assert_eq!(sel.len(), 1);
    assert_eq!(sel["batch.kubernetes.io/controller-uid"], uid);
    let labels = spec
        .template
        .metadata
        .as_ref()
        .unwrap()
        .labels
        .clone()
        .unwrap();
    assert_eq!(labels["batch.kubernetes.io/controller-uid"], uid);
    assert_eq!(labels["controller-uid"], uid);
    assert_eq!(labels["batch.kubernetes.io/job-name"], "pi");
    assert_eq!(labels["job-name"], "pi");
    step(&mut c, 1);
    let pods = job_pods(&c, "pi");
    assert_eq!(pods.len(), 1);
    let p = &pods[0];
    let name = p.metadata.name.clone().unwrap();
    assert!(
        name.starts_with("pi-") && name.len() == "pi-".len() + 5,
        "{name}"
    );
    assert_eq!(
        p.metadata.finalizers.clone().unwrap(),
        vec!["batch.kubernetes.io/job-tracking".to_string()]
    );
    let owner = &p.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!((owner.kind.as_str(), owner.controller), ("Job", Some(true)));
    assert_eq!(
        events_about(&c, "pi"),
        vec![(
            "Normal".into(),
            "SuccessfulCreate".into(),
            format!("Created pod: {name}")
        )]
    );
}

#[test]
fn job_without_restart_policy_is_refused_like_upstream() {
    let mut c = Cluster::new(1, warehouse_sim::Topology::default());
    let yaml = job_yaml("bad", "", "Always");
    let obj = warehouse_sim::decode_manifests(&yaml).unwrap().remove(0);
    let err = c.create(obj).unwrap_err();
    assert_eq!(
        err.message,
        "Job.batch \"bad\" is invalid: spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\""
    );
}

#[test]
fn completions_five_parallelism_two_never_runs_more_than_two_and_completes() {
    let mut c = cluster_with(&job_yaml(
        "batch",
        "  completions: 5\n  parallelism: 2\n",
        "Never",
    ));
    let mut finished = 0;
    let mut max_active = 0;
    for _ in 0..600 {
        let active = job_pods(&c, "batch")
            .iter()
            .filter(|p| is_active(p))
            .count();
        max_active = max_active.max(active);
        assert!(active <= 2, "{active} active pods");
        let j = job(&c, "batch");
        if conditions(&j).iter().any(|c| c.0 == "Complete") {
            break;
        }
        // One running pod finishes each second.
        if let Some(p) = running(&c, "batch").first() {
            c.kubelet_report_container_exit("default", p, 0).unwrap();
            finished += 1;
        }
        step(&mut c, 1);
    }
    assert_eq!(finished, 5);
    assert_eq!(max_active, 2);
    let j = job(&c, "batch");
    let st = j.status.clone().unwrap();
    assert_eq!(st.succeeded, Some(5));
    assert_eq!(st.failed, None);
    assert_eq!(st.active, None);
    assert_eq!(st.ready, Some(0));
    assert_eq!(st.terminating, Some(0));
    let unc = st.uncounted_terminated_pods.clone().unwrap();
    assert!(unc.succeeded.is_none() && unc.failed.is_none());
    let cond = conditions(&j);
    let msg = "Reached expected number of succeeded pods".to_string();
    assert_eq!(
        cond,
        vec![
            (
                "SuccessCriteriaMet".into(),
                "True".into(),
                "CompletionsReached".into(),
                msg.clone()
            ),
            (
                "Complete".into(),
                "True".into(),
                "CompletionsReached".into(),
                msg
            ),
        ]
    );
    assert!(st.completion_time.is_some() && st.start_time.is_some());
    // The finished pods stay, without the finalizer.
    let pods = job_pods(&c, "batch");
    assert_eq!(pods.len(), 5);
    assert!(pods
        .iter()
        .all(|p| phase(p) == "Succeeded" && p.metadata.finalizers.is_none()));
    let evs = events_about(&c, "batch");
    assert_eq!(evs.iter().filter(|e| e.1 == "SuccessfulCreate").count(), 5);
    assert_eq!(
        evs.last().unwrap(),
        &("Normal".into(), "Completed".into(), "Job completed".into())
    );
    // A finished Job does nothing more.
    let rv = j.metadata.resource_version.clone();
    step(&mut c, 60);
    assert_eq!(job(&c, "batch").metadata.resource_version, rv);
}

#[test]
fn backoff_limit_two_fails_after_three_failures_with_growing_delays() {
    let mut c = cluster_with(&job_yaml("flaky", "  backoffLimit: 2\n", "Never"));
    let mut created_at: Vec<SimTime> = Vec::new();
    let mut failed_at: Vec<SimTime> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..400 {
        for p in job_pods(&c, "flaky") {
            let name = p.metadata.name.clone().unwrap();
            if seen.insert(name) {
                created_at.push(SimTime::from_k8s(
                    p.metadata.creation_timestamp.as_ref().unwrap(),
                ));
            }
        }
        if conditions(&job(&c, "flaky"))
            .iter()
            .any(|c| c.0 == "Failed")
        {
            break;
        }
        if let Some(p) = running(&c, "flaky").first() {
            c.kubelet_report_container_exit("default", p, 1).unwrap();
            failed_at.push(c.now());
        }
        step(&mut c, 1);
    }
    assert_eq!(created_at.len(), 3, "three pods, no fourth");
    assert_eq!(failed_at.len(), 3);
    // The replacement waits 10 s after the first failure, 20 s after the second
    // (plus the controller's watch delay).
    let gap = |i: usize| created_at[i + 1].since(failed_at[i]).as_millis();
    assert!(
        (10_000..11_000).contains(&gap(0)),
        "first back-off {}",
        gap(0)
    );
    assert!(
        (20_000..21_000).contains(&gap(1)),
        "second back-off {}",
        gap(1)
    );
    let j = job(&c, "flaky");
    let msg = "Job has reached the specified backoff limit".to_string();
    assert_eq!(
        conditions(&j),
        vec![
            (
                "FailureTarget".into(),
                "True".into(),
                "BackoffLimitExceeded".into(),
                msg.clone()
            ),
            (
                "Failed".into(),
                "True".into(),
                "BackoffLimitExceeded".into(),
                msg.clone()
            ),
        ]
    );
    let st = j.status.unwrap();
    assert_eq!((st.failed, st.succeeded, st.active), (Some(3), None, None));
    assert!(st.completion_time.is_none());
    assert_eq!(
        events_about(&c, "flaky").last().unwrap(),
        &("Warning".into(), "BackoffLimitExceeded".into(), msg)
    );
    // The failed pods stay listed, without finalizers.
    let pods = job_pods(&c, "flaky");
    assert!(pods
        .iter()
        .all(|p| phase(p) == "Failed" && p.metadata.finalizers.is_none()));
}

#[test]
fn on_failure_container_restarts_count_against_the_backoff_limit() {
    let mut c = cluster_with(&job_yaml("crashy", "  backoffLimit: 2\n", "OnFailure"));
    until(&mut c, 60, |c| running(c, "crashy").len() == 1);
    let pod = running(&c, "crashy")[0].clone();
    c.kubelet_report_container_exit("default", &pod, 1).unwrap();
    step(&mut c, 1);
    assert!(conditions(&job(&c, "crashy")).is_empty());
    c.kubelet_report_container_exit("default", &pod, 1).unwrap();
    step(&mut c, 1);
    let j = job(&c, "crashy");
    assert_eq!(conditions(&j)[0].0, "FailureTarget");
    assert_eq!(conditions(&j)[0].2, "BackoffLimitExceeded");
    // The pod is deleted; the Job is Failed once it is gone.
    until(&mut c, 60, |c| {
        conditions(&job(c, "crashy"))
            .iter()
            .any(|x| x.0 == "Failed")
    });
    assert!(job_pods(&c, "crashy").is_empty());
    let st = job(&c, "crashy").status.unwrap();
    assert_eq!((st.failed, st.terminating), (Some(1), Some(0)));
}

#[test]
fn active_deadline_fails_the_job_and_deletes_its_pods() {
    let mut c = cluster_with(&job_yaml(
        "slow",
        "  activeDeadlineSeconds: 30\n  parallelism: 2\n  completions: 4\n",
        "Never",
    ));
    until(&mut c, 60, |c| running(c, "slow").len() == 2);
    let start = SimTime::from_k8s(job(&c, "slow").status.unwrap().start_time.as_ref().unwrap());
    until(&mut c, 60, |c| !conditions(&job(c, "slow")).is_empty());
    let j = job(&c, "slow");
    let msg = "Job was active longer than specified deadline".to_string();
    assert_eq!(
        conditions(&j)[0],
        (
            "FailureTarget".into(),
            "True".into(),
            "DeadlineExceeded".into(),
            msg.clone()
        )
    );
    let elapsed = c.now().since(start).as_millis();
    assert!(
        (30_000..31_100).contains(&elapsed),
        "deadline after {elapsed} ms"
    );
    // Pods terminate (graceful, finalizer already gone); then Failed.
    until(&mut c, 60, |c| {
        conditions(&job(c, "slow")).iter().any(|x| x.0 == "Failed")
    });
    let j = job(&c, "slow");
    assert_eq!(conditions(&j)[1].2, "DeadlineExceeded");
    assert_eq!(j.status.as_ref().unwrap().failed, Some(2));
    assert!(job_pods(&c, "slow").is_empty());
    let evs = events_about(&c, "slow");
    assert_eq!(evs.iter().filter(|e| e.1 == "SuccessfulDelete").count(), 2);
    assert_eq!(
        evs.last().unwrap(),
        &("Warning".into(), "DeadlineExceeded".into(), msg)
    );
}

#[test]
fn ttl_after_finished_deletes_the_job_and_its_pods_on_time() {
    let mut c = cluster_with(&job_yaml(
        "once",
        "  ttlSecondsAfterFinished: 100\n",
        "Never",
    ));
    until(&mut c, 60, |c| running(c, "once").len() == 1);
    let p = running(&c, "once")[0].clone();
    c.kubelet_report_container_exit("default", &p, 0).unwrap();
    until(&mut c, 5, |c| {
        conditions(&job(c, "once"))
            .iter()
            .any(|x| x.0 == "Complete")
    });
    let done = c.now();
    step(&mut c, 95);
    assert!(c.get(Kind::Job, "default", "once").is_ok());
    assert_eq!(job_pods(&c, "once").len(), 1);
    step(&mut c, 10);
    assert!(
        c.get(Kind::Job, "default", "once").is_err(),
        "deleted {}s after finishing",
        c.now().since(done).as_secs()
    );
    assert!(job_pods(&c, "once").is_empty());
}

#[test]
fn deleting_a_running_job_deletes_its_pods() {
    let mut c = cluster_with(&job_yaml(
        "work",
        "  parallelism: 3\n  completions: 3\n",
        "Never",
    ));
    until(&mut c, 60, |c| running(c, "work").len() == 3);
    c.delete(Kind::Job, "default", "work").unwrap();
    step(&mut c, 60);
    assert!(c.get(Kind::Job, "default", "work").is_err());
    assert!(
        job_pods(&c, "work").is_empty(),
        "finalizers released, pods gone"
    );
}

#[test]
fn indexed_job_gives_each_pod_its_index_and_records_completed_indexes() {
    let mut c = cluster_with(&job_yaml(
        "idx",
        "  completions: 3\n  parallelism: 3\n  completionMode: Indexed\n",
        "Never",
    ));
    until(&mut c, 60, |c| running(c, "idx").len() == 3);
    let mut indexes: Vec<String> = job_pods(&c, "idx")
        .iter()
        .map(|p| {
            let ix = p.metadata.annotations.as_ref().unwrap()
                ["batch.kubernetes.io/job-completion-index"]
                .clone();
            let name = p.metadata.name.clone().unwrap();
            assert!(name.starts_with(&format!("idx-{ix}-")), "{name}");
            assert_eq!(
                p.spec.as_ref().unwrap().hostname.as_deref(),
                Some(format!("idx-{ix}").as_str())
            );
            ix
        })
        .collect();
    indexes.sort();
    assert_eq!(indexes, ["0", "1", "2"]);
    let by_index = |c: &Cluster, i: &str| {
        job_pods(c, "idx")
            .into_iter()
            .find(|p| {
                p.metadata.annotations.as_ref().unwrap()["batch.kubernetes.io/job-completion-index"]
                    == i
                    && is_active(p)
            })
            .map(|p| p.metadata.name.unwrap())
    };
    let p0 = by_index(&c, "0").unwrap();
    let p2 = by_index(&c, "2").unwrap();
    c.kubelet_report_container_exit("default", &p0, 0).unwrap();
    c.kubelet_report_container_exit("default", &p2, 0).unwrap();
    step(&mut c, 1);
    let st = job(&c, "idx").status.unwrap();
    assert_eq!(st.completed_indexes.as_deref(), Some("0,2"));
    assert_eq!(st.succeeded, Some(2));
    let p1 = by_index(&c, "1").unwrap();
    c.kubelet_report_container_exit("default", &p1, 1).unwrap();
    // Index 1 is retried after the back-off with a new pod of the same index.
    step(&mut c, 12);
    let retry = by_index(&c, "1").expect("index 1 recreated");
    assert_ne!(retry, p1);
    until(&mut c, 60, |c| running(c, "idx").len() == 1);
    c.kubelet_report_container_exit("default", &retry, 0)
        .unwrap();
    step(&mut c, 1);
    let j = job(&c, "idx");
    let st = j.status.clone().unwrap();
    assert_eq!(st.completed_indexes.as_deref(), Some("0-2"));
    assert_eq!((st.succeeded, st.failed), (Some(3), Some(1)));
    assert!(conditions(&j).iter().any(|x| x.0 == "Complete"));
}

#[test]
fn suspended_job_deletes_its_pods_and_resumes() {
    let mut c = cluster_with(&job_yaml(
        "paused",
        "  parallelism: 2\n  completions: 2\n",
        "Never",
    ));
    until(&mut c, 60, |c| running(c, "paused").len() == 2);
    let mut j = job(&c, "paused");
    j.spec.as_mut().unwrap().suspend = Some(true);
    c.update(Object::Job(Box::new(j))).unwrap();
    step(&mut c, 1);
    let j = job(&c, "paused");
    assert_eq!(
        conditions(&j),
        vec![(
            "Suspended".into(),
            "True".into(),
            "JobSuspended".into(),
            "Job suspended".into()
        )]
    );
    step(&mut c, 60);
    assert!(job_pods(&c, "paused").is_empty());
    let st = job(&c, "paused").status.unwrap();
    assert_eq!(
        (st.active, st.failed),
        (None, None),
        "suspension is not a failure"
    );
    let mut j = job(&c, "paused");
    j.spec.as_mut().unwrap().suspend = Some(false);
    c.update(Object::Job(Box::new(j))).unwrap();
    step(&mut c, 1);
    let j = job(&c, "paused");
    assert_eq!(conditions(&j)[0].1, "False");
    assert_eq!(conditions(&j)[0].2, "JobResumed");
    assert_eq!(job_pods(&c, "paused").len(), 2);
    let evs = events_about(&c, "paused");
    assert!(evs.contains(&("Normal".into(), "Suspended".into(), "Job suspended".into())));
    assert!(evs.contains(&("Normal".into(), "Resumed".into(), "Job resumed".into())));
}

#[test]
fn job_controller_is_deterministic_and_snapshots_round_trip() {
    let run = || {
        let mut c = cluster_with(&job_yaml(
            "d",
            "  completions: 3\n  parallelism: 2\n  backoffLimit: 1\n",
            "Never",
        ));
        for i in 0..40i32 {
            if let Some(p) = running(&c, "d").first() {
                c.kubelet_report_container_exit("default", p, i % 2)
                    .unwrap();
            }
            step(&mut c, 1);
        }
        c
    };
    let a = run();
    let b = run();
    assert_eq!(a.snapshot(), b.snapshot());
    let restored = Cluster::restore(&a.snapshot()).unwrap();
    assert_eq!(restored.snapshot(), a.snapshot());
}

#[test]
fn orphaned_job_pods_lose_the_tracking_finalizer_and_stay() {
    let mut c = cluster_with(&job_yaml(
        "left",
        "  parallelism: 2\n  completions: 2\n",
        "Never",
    ));
    until(&mut c, 60, |c| running(c, "left").len() == 2);
    let options = warehouse_sim::DeleteOptions {
        grace_period_seconds: None,
        propagation: warehouse_sim::Propagation::Orphan,
    };
    c.delete_with(Kind::Job, "default", "left", options)
        .unwrap();
    step(&mut c, 5);
    assert!(c.get(Kind::Job, "default", "left").is_err());
    let pods = job_pods(&c, "left");
    assert_eq!(pods.len(), 2);
    assert!(pods
        .iter()
        .all(|p| p.metadata.finalizers.is_none() && p.metadata.owner_references.is_none()));
}

#[test]
fn job_controller_restart_relists_and_finishes_the_job() {
    let mut c = cluster_with(&job_yaml("resume", "", "Never"));
    until(&mut c, 60, |c| running(c, "resume").len() == 1);
    c.stop(warehouse_sim::ControlPlaneComponent::ControllerManager)
        .unwrap();
    let p = running(&c, "resume")[0].clone();
    c.kubelet_report_container_exit("default", &p, 0).unwrap();
    step(&mut c, 30);
    assert!(
        conditions(&job(&c, "resume")).is_empty(),
        "nobody counts it"
    );
    c.start(warehouse_sim::ControlPlaneComponent::ControllerManager)
        .unwrap();
    step(&mut c, 5);
    let j = job(&c, "resume");
    assert!(conditions(&j).iter().any(|x| x.0 == "Complete"));
    assert_eq!(j.status.unwrap().succeeded, Some(1));
}

#[test]
fn a_large_job_counts_at_most_500_pods_per_sync_and_completes_with_all_of_them() {
    let mut c = Cluster::new(1, warehouse_sim::Topology::with_workers(8));
    create(
        &mut c,
        &job_yaml("big", "  completions: 600\n  parallelism: 600\n", "Never"),
    );
    until(&mut c, 120, |c| running(c, "big").len() == 600);
    for p in running(&c, "big") {
        c.kubelet_report_container_exit("default", &p, 0).unwrap();
    }
    step(&mut c, 2);
    let j = job(&c, "big");
    assert!(conditions(&j).iter().any(|x| x.0 == "Complete"));
    assert_eq!(j.status.unwrap().succeeded, Some(600));
}

fn create_err(yaml: &str) -> String {
    let mut c = Cluster::new(1, warehouse_sim::Topology::default());
    let obj = warehouse_sim::decode_manifests(yaml).unwrap().remove(0);
    c.create(obj).unwrap_err().message
}

#[test]
fn job_validation_errors_read_like_upstream() {
    assert_eq!(
        create_err(&job_yaml("neg", "  parallelism: -1\n", "Never")),
        "Job.batch \"neg\" is invalid: spec.parallelism: Invalid value: -1: must be greater than or equal to 0"
    );
    let own = job_yaml(
        "own",
        "  selector:\n    matchLabels: {app: mine}\n",
        "Never",
    );
    assert!(
        create_err(&own).contains("`selector` not auto-generated"),
        "{}",
        create_err(&own)
    );
    let manual = job_yaml(
        "manual",
        "  manualSelector: true\n  selector:\n    matchLabels: {app: mine}\n",
        "Never",
    );
    assert!(create_err(&manual).contains("`selector` does not match template `labels`"));
    let indexed = job_yaml(
        "ix",
        "  completionMode: Indexed\n  parallelism: 2\n",
        "Never",
    );
    assert!(create_err(&indexed).contains("spec.completions: Required value"));
}

#[test]
fn work_queue_job_without_completions_completes_when_one_pod_succeeds_and_the_rest_end() {
    let mut c = cluster_with(&job_yaml("queue", "  parallelism: 3\n", "Never"));
    assert_eq!(job(&c, "queue").spec.unwrap().completions, None);
    until(&mut c, 60, |c| running(c, "queue").len() == 3);
    let pods = running(&c, "queue");
    c.kubelet_report_container_exit("default", &pods[0], 0)
        .unwrap();
    step(&mut c, 1);
    // One success: no new pods, the others keep running until they end.
    assert_eq!(running(&c, "queue").len(), 2);
    assert!(conditions(&job(&c, "queue")).is_empty());
    for p in &pods[1..] {
        c.kubelet_report_container_exit("default", p, 0).unwrap();
    }
    step(&mut c, 1);
    let j = job(&c, "queue");
    assert!(conditions(&j).iter().any(|x| x.0 == "Complete"));
    assert_eq!(j.status.unwrap().succeeded, Some(3));
}

#[test]
fn deleting_a_namespace_with_a_running_job_empties_and_removes_it() {
    let mut c = Cluster::new(1, warehouse_sim::Topology::default());
    create(
        &mut c,
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: batch\n",
    );
    let yaml = job_yaml("inns", "  parallelism: 2\n  completions: 2\n", "Never")
        .replace("  name: inns\n", "  name: inns\n  namespace: batch\n");
    create(&mut c, &yaml);
    step(&mut c, 30);
    assert_eq!(c.list(Kind::Pod, Some("batch")).len(), 2);
    c.delete(Kind::Namespace, "", "batch").unwrap();
    step(&mut c, 120);
    assert!(c.list(Kind::Pod, Some("batch")).is_empty());
    assert!(
        c.get(Kind::Namespace, "", "batch").is_err(),
        "namespace removed"
    );
}

#[test]
fn a_suspended_job_that_never_started_may_change_where_its_pods_go() {
    let mut c = cluster_with(&job_yaml("later", "  suspend: true\n", "Never"));
    step(&mut c, 1);
    assert!(job_pods(&c, "later").is_empty());
    let mut j = job(&c, "later");
    let ps = j.spec.as_mut().unwrap().template.spec.as_mut().unwrap();
    ps.node_selector = Some([("kubernetes.io/hostname".to_string(), "zone-c".to_string())].into());
    c.update(Object::Job(Box::new(j.clone()))).unwrap();
    // The image is not a scheduling directive.
    let ps = j.spec.as_mut().unwrap().template.spec.as_mut().unwrap();
    ps.containers[0].image = Some("busybox:1.37".into());
    let err = c.update(Object::Job(Box::new(j))).unwrap_err();
    assert!(
        err.message.contains("spec.template: Invalid value"),
        "{}",
        err.message
    );
    let mut j = job(&c, "later");
    j.spec.as_mut().unwrap().suspend = Some(false);
    c.update(Object::Job(Box::new(j))).unwrap();
    until(&mut c, 60, |c| running(c, "later").len() == 1);
    let p = &job_pods(&c, "later")[0];
    assert_eq!(
        p.spec.as_ref().unwrap().node_name.as_deref(),
        Some("zone-c")
    );
}
