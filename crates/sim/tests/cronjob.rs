//! CronJobs: runs missed while the controller manager was down, the starting
//! deadline, and the failed-jobs history (pkg/controller/cronjob).

mod common;

use common::create;
use warehouse_sim::{Cluster, ControlPlaneComponent, Fault, Kind, SimDuration, Topology};

fn cron_job(extra: &str, command: &str) -> String {
    format!(
        "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: tick\nspec:\n  schedule: \"*/5 * * * *\"\n{extra}  jobTemplate:\n    spec:\n      backoffLimit: 0\n      template:\n        spec:\n          restartPolicy: Never\n          containers:\n          - name: tick\n            image: busybox:1.36\n            command: [sh, -c, \"{command}\"]\n"
    )
}

fn jobs(c: &Cluster) -> Vec<String> {
    c.list(Kind::Job, Some("default"))
        .into_iter()
        .map(|j| j.name().to_string())
        .collect()
}

fn event_reasons(c: &Cluster) -> Vec<String> {
    c.list(Kind::Event, Some("default"))
        .into_iter()
        .filter(|e| e.to_json()["involvedObject"]["kind"] == "CronJob")
        .filter_map(|e| e.to_json()["reason"].as_str().map(str::to_string))
        .collect()
}

/// The controller manager is down from minute 1 to minute 21: the runs at 5, 10, 15
/// and 20 were missed. Back up, the controller starts one Job, for the most recent.
fn missed_while_down(extra: &str) -> Cluster {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &cron_job(extra, "echo tick"));
    c.advance(SimDuration::secs(60));
    c.fault(Fault::StopComponent(
        ControlPlaneComponent::ControllerManager,
    ))
    .unwrap();
    c.advance(SimDuration::secs(20 * 60));
    c.fault(Fault::StartComponent(
        ControlPlaneComponent::ControllerManager,
    ))
    .unwrap();
    c.advance(SimDuration::secs(30));
    c
}

#[test]
fn after_an_outage_one_job_runs_for_the_most_recent_missed_time() {
    let c = missed_while_down("");
    // 2026-01-01T00:20:00Z is Unix minute 29453780.
    assert_eq!(jobs(&c), vec!["tick-29453780".to_string()]);
}

#[test]
fn runs_older_than_the_starting_deadline_are_not_made_up() {
    // The deadline window (the last 30 s) holds none of the missed times, so
    // nothing runs until the next one, as upstream's mostRecentScheduleTime finds.
    let mut c = missed_while_down("  startingDeadlineSeconds: 30\n");
    assert!(jobs(&c).is_empty(), "{:?}", jobs(&c));
    c.advance(SimDuration::secs(4 * 60));
    assert_eq!(jobs(&c), vec!["tick-29453785".to_string()]);
}

#[test]
fn one_failed_job_is_kept() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &cron_job("", "exit 1"));
    c.advance(SimDuration::secs(16 * 60));
    // Runs at 5, 10 and 15 all failed; only the latest stays.
    assert_eq!(jobs(&c), vec!["tick-29453775".to_string()]);
    let reasons = event_reasons(&c);
    assert_eq!(
        reasons.iter().filter(|r| *r == "SuccessfulDelete").count(),
        2,
        "{reasons:?}"
    );
}

#[test]
fn a_deleted_cron_job_takes_its_jobs_with_it() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &cron_job("", "echo tick"));
    c.advance(SimDuration::secs(6 * 60));
    assert_eq!(jobs(&c).len(), 1);
    c.delete(Kind::CronJob, "default", "tick").unwrap();
    c.advance(SimDuration::secs(60));
    assert!(jobs(&c).is_empty(), "{:?}", jobs(&c));
}

#[test]
fn the_board_names_the_next_run_not_yet_made() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &cron_job("", "echo tick"));
    // 00:05:00 exactly: the run of 00:05 is due but its timer has not fired.
    c.advance(SimDuration::secs(5 * 60));
    let s = &c.schedules()[0];
    assert_eq!(s.next_ms, Some(5 * 60_000), "{s:?}");
    c.advance(SimDuration::secs(1));
    let s = &c.schedules()[0];
    assert_eq!(
        (s.last_ms, s.next_ms),
        (Some(5 * 60_000), Some(10 * 60_000)),
        "{s:?}"
    );
}
