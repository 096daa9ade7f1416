//! Pods with several containers: native sidecars (init containers with
//! `restartPolicy: Always`), as pkg/kubelet/kuberuntime/kuberuntime_manager.go
//! (`computePodActions`), pkg/kubelet/kubelet_pods.go (`getPhase`) and
//! pkg/kubelet/status/generate.go run them, and kubectl's `printPod` counts them.

mod common;
use common::*;

use k8s_openapi::api::core::v1::Pod;
use warehouse_sim::{Cluster, Kind, Object, SimDuration, Topology};

fn pod_of(c: &Cluster, name: &str) -> Pod {
    match c.get(Kind::Pod, "default", name).unwrap() {
        Object::Pod(p) => *p,
        _ => unreachable!(),
    }
}

fn condition(p: &Pod, t: &str) -> (String, Option<String>) {
    let c = p
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == t))
        .unwrap();
    (c.status.clone(), c.message.clone())
}

/// (reason, message) of the pod's events, oldest first.
fn events(c: &Cluster, name: &str) -> Vec<(String, String)> {
    c.list(Kind::Event, Some("default"))
        .into_iter()
        .map(|e| e.to_json())
        .filter(|e| e["involvedObject"]["name"] == name)
        .map(|e| {
            (
                e["reason"].as_str().unwrap_or("").to_string(),
                e["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

const WEB: &str = "apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  initContainers:
  - name: proxy
    image: busybox:1.36
    restartPolicy: Always
    command: [sh, -c, 'while true; do sleep 10; done']
  - name: migrate
    image: busybox:1.36
    command: [sh, -c, 'sleep 5']
  containers:
  - name: app
    image: nginx:1.27
";

#[test]
fn the_next_init_container_starts_once_the_sidecar_has_started() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, WEB);
    c.advance(SimDuration::secs(6));
    let p = pod_of(&c, "web");
    let inits = p
        .status
        .as_ref()
        .unwrap()
        .init_container_statuses
        .clone()
        .unwrap();
    // The sidecar runs and has started; the plain init container runs beside it.
    assert!(inits[0].state.as_ref().unwrap().running.is_some());
    assert_eq!(inits[0].started, Some(true));
    assert!(inits[1].state.as_ref().unwrap().running.is_some());
    assert_eq!(p.status.as_ref().unwrap().phase.as_deref(), Some("Pending"));
    assert_eq!(
        condition(&p, "Initialized"),
        (
            "False".to_string(),
            Some("containers with incomplete status: [migrate]".to_string())
        )
    );
    assert_eq!(warehouse_sim::views::podstatus::status(&p), "Init:1/2");
    assert_eq!(warehouse_sim::views::podstatus::ready(&p), "1/2");
    c.advance(SimDuration::secs(10));
    let p = pod_of(&c, "web");
    assert_eq!(p.status.as_ref().unwrap().phase.as_deref(), Some("Running"));
    assert_eq!(warehouse_sim::views::podstatus::ready(&p), "2/2");
    assert_eq!(condition(&p, "Ready").0, "True");
    let started: Vec<String> = events(&c, "web")
        .into_iter()
        .filter(|(r, _)| r == "Started")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(
        started,
        [
            "Started container proxy",
            "Started container migrate",
            "Started container app"
        ]
    );
}

#[test]
fn an_unready_sidecar_holds_the_pods_ready_condition_and_is_listed_first() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  initContainers:
  - name: side
    image: busybox:1.36
    restartPolicy: Always
    command: [sh, -c, 'sleep 3600']
    readinessProbe:
      exec: {command: [cat, /tmp/ready]}
  containers:
  - name: app
    image: nginx:1.27
",
    );
    c.advance(SimDuration::secs(20));
    let p = pod_of(&c, "p");
    assert_eq!(p.status.as_ref().unwrap().phase.as_deref(), Some("Running"));
    assert_eq!(
        condition(&p, "ContainersReady"),
        (
            "False".to_string(),
            Some("containers with unready status: [side]".to_string())
        )
    );
    assert_eq!(warehouse_sim::views::podstatus::ready(&p), "1/2");
}

#[test]
fn a_sidecar_is_restarted_under_restart_policy_never() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  restartPolicy: Never
  initContainers:
  - name: side
    image: busybox:1.36
    restartPolicy: Always
    command: [sh, -c, 'sleep 10; exit 1']
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'sleep 3600']
",
    );
    c.advance(SimDuration::secs(30));
    let p = pod_of(&c, "p");
    let side = &p
        .status
        .as_ref()
        .unwrap()
        .init_container_statuses
        .as_ref()
        .unwrap()[0];
    assert!(side.restart_count >= 1);
    assert_eq!(p.status.as_ref().unwrap().phase.as_deref(), Some("Running"));
    assert_eq!(
        warehouse_sim::views::podstatus::restarts(&p),
        side.restart_count
    );
}

#[test]
fn a_jobs_pod_succeeds_when_its_app_container_ends_and_the_sidecar_is_stopped() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  initContainers:
  - name: side
    image: busybox:1.36
    restartPolicy: Always
    command: [sh, -c, 'while true; do sleep 1; done']
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'sleep 3']
",
    );
    c.advance(SimDuration::secs(8));
    let p = pod_of(&c, "p");
    // The app has ended; the sidecar is being stopped (it ignores SIGTERM).
    assert_eq!(p.status.as_ref().unwrap().phase.as_deref(), Some("Running"));
    assert!(events(&c, "p").contains(&("Killing".into(), "Stopping container side".into())));
    c.advance(SimDuration::secs(5));
    let p = pod_of(&c, "p");
    assert_eq!(
        p.status.as_ref().unwrap().phase.as_deref(),
        Some("Succeeded")
    );
    let side = &p
        .status
        .as_ref()
        .unwrap()
        .init_container_statuses
        .as_ref()
        .unwrap()[0];
    let t = side.state.as_ref().unwrap().terminated.as_ref().unwrap();
    assert_eq!(t.exit_code, 137);
    assert_eq!(side.restart_count, 0);
}

/// component-helpers' `PodRequests`: app containers 100m; the sidecar's 200m adds to
/// them and to the init container after it (500m + 200m = 700m is the largest).
#[test]
fn a_sidecars_requests_add_to_the_pods() {
    let pod = warehouse_sim::decode_manifests(
        "apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
  - name: side
    image: busybox:1.36
    restartPolicy: Always
    resources: {requests: {cpu: 200m}}
  - name: setup
    image: busybox:1.36
    resources: {requests: {cpu: 500m}}
  containers:
  - name: app
    image: nginx:1.27
    resources: {requests: {cpu: 100m}}
",
    )
    .unwrap()
    .remove(0);
    let Object::Pod(pod) = pod else {
        unreachable!()
    };
    assert_eq!(
        warehouse_sim::scheduler::plugins::pod_requests(&pod).cpu,
        700
    );
}

const PRE_STOP: &str = "apiVersion: v1
kind: Pod
metadata:
  name: shop
spec:
  nodeName: zone-a
  initContainers:
  - name: proxy
    image: busybox:1.36
    restartPolicy: Always
    command: [sh, -c, 'sleep 3600']
  containers:
  - name: nginx
    image: nginx:1.27
    lifecycle:
      preStop:
        sleep: {seconds: 5}
---
apiVersion: v1
kind: Pod
metadata:
  name: client
spec:
  nodeName: zone-a
  containers:
  - name: c
    image: busybox:1.36
    command: [sleep, '86400']
";

/// kuberuntime_container.go `killContainer`: "Stopping container" for each running
/// container at once, the preStop hook before SIGTERM; kuberuntime_termination_order.go:
/// the sidecar gets SIGTERM only after the app container has stopped. A request that
/// reaches the pod during the preStop sleep is answered.
#[test]
fn a_terminating_pod_serves_through_its_pre_stop_sleep_and_its_sidecar_stops_last() {
    use warehouse_sim::network::http::RequestSource;
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, PRE_STOP);
    c.advance(SimDuration::secs(20));
    let ip = pod_of(&c, "shop").status.unwrap().pod_ip.unwrap();
    let from = RequestSource::Pod {
        namespace: "default".into(),
        name: "client".into(),
    };
    c.delete(Kind::Pod, "default", "shop").unwrap();
    c.advance(SimDuration::secs(4));
    let served = c
        .http_request(&from, &format!("http://{ip}"), None)
        .unwrap();
    assert!(served.result.is_ok(), "{:?}", served.result);
    let killing: Vec<String> = events(&c, "shop")
        .into_iter()
        .filter(|(r, _)| r == "Killing")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(
        killing,
        ["Stopping container nginx", "Stopping container proxy"]
    );
    // nginx stops at 5.3 s (hook, then 300 ms); the proxy gets SIGTERM then and
    // stops 100 ms later; the pod is gone right after.
    c.advance(SimDuration::millis(1_300));
    assert!(c.get(Kind::Pod, "default", "shop").is_ok());
    c.advance(SimDuration::millis(300));
    assert!(c.get(Kind::Pod, "default", "shop").is_err());
}

#[test]
fn a_post_start_hook_holds_the_container_in_container_creating() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'sleep 3600']
    lifecycle:
      postStart:
        sleep: {seconds: 10}
",
    );
    c.advance(SimDuration::secs(8));
    let p = pod_of(&c, "p");
    assert_eq!(
        warehouse_sim::views::podstatus::status(&p),
        "ContainerCreating"
    );
    assert_eq!(p.status.as_ref().unwrap().phase.as_deref(), Some("Pending"));
    c.advance(SimDuration::secs(5));
    let p = pod_of(&c, "p");
    assert_eq!(warehouse_sim::views::podstatus::status(&p), "Running");
    assert_eq!(warehouse_sim::views::podstatus::ready(&p), "1/1");
}
