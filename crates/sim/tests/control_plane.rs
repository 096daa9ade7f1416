//! The control plane as pods, and components that stop and start.

mod common;
use common::*;

use warehouse_sim::{
    decode_manifests, Cluster, ControlPlaneComponent, Fault, Kind, Object, RobotState, SimDuration,
    StatusReason, Topology,
};

/// Workload pods of the default namespace in a robot state.
fn web_pods(c: &Cluster, state: RobotState) -> usize {
    let v = c.view();
    v.nodes
        .iter()
        .flat_map(|n| &n.pods)
        .chain(&v.unscheduled)
        .filter(|p| p.namespace == "default" && p.state == state)
        .count()
}

fn pod(c: &Cluster, name: &str) -> k8s_openapi::api::core::v1::Pod {
    c.list(Kind::Pod, Some("kube-system"))
        .into_iter()
        .find(|p| p.name() == name)
        .unwrap_or_else(|| panic!("no pod {name}"))
        .as_pod()
        .unwrap()
        .clone()
}

fn ready_containers(p: &k8s_openapi::api::core::v1::Pod) -> String {
    warehouse_sim::views::podstatus::ready(p)
}

#[test]
fn kube_system_runs_the_static_pods_coredns_and_kube_proxy() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(30));
    let pods = c.list(Kind::Pod, Some("kube-system"));
    let names: Vec<&str> = pods.iter().map(|p| p.name()).collect();
    for component in ControlPlaneComponent::ALL {
        let name = format!("{}-control-plane", component.name());
        let p = pod(&c, &name);
        let annotations = p.metadata.annotations.clone().unwrap();
        assert!(
            annotations.contains_key("kubernetes.io/config.mirror"),
            "{name}"
        );
        let owner = &p.metadata.owner_references.as_ref().unwrap()[0];
        assert_eq!(
            (owner.kind.as_str(), owner.name.as_str()),
            ("Node", "control-plane")
        );
        let spec = p.spec.as_ref().unwrap();
        assert_eq!(
            spec.priority_class_name.as_deref(),
            Some("system-node-critical")
        );
        assert_eq!(spec.priority, Some(2_000_001_000));
        assert_eq!(spec.host_network, Some(true));
        let status = p.status.as_ref().unwrap();
        assert_eq!(status.phase.as_deref(), Some("Running"));
        assert_eq!(status.pod_ip.as_deref(), Some("172.18.0.2"), "{name}");
        assert_eq!(ready_containers(&p), "1/1");
    }
    assert_eq!(
        pod(&c, "etcd-control-plane").spec.unwrap().containers[0]
            .image
            .as_deref(),
        Some("registry.k8s.io/etcd:3.6.9-0")
    );
    let coredns: Vec<_> = pods
        .iter()
        .filter(|p| p.name().starts_with("coredns-"))
        .collect();
    assert_eq!(coredns.len(), 2, "{names:?}");
    for p in &coredns {
        let p = p.as_pod().unwrap();
        assert_eq!(p.status.as_ref().unwrap().phase.as_deref(), Some("Running"));
        assert_eq!(p.spec.as_ref().unwrap().priority, Some(2_000_000_000));
        assert!(p
            .status
            .as_ref()
            .unwrap()
            .pod_ip
            .as_deref()
            .unwrap()
            .starts_with("10.244."));
    }
    let proxies: Vec<_> = pods
        .iter()
        .filter_map(|p| p.as_pod())
        .filter(|p| {
            p.metadata
                .name
                .as_deref()
                .unwrap()
                .starts_with("kube-proxy-")
        })
        .collect();
    assert_eq!(proxies.len(), 4, "one per node: {names:?}");
    for p in proxies {
        let owner = &p.metadata.owner_references.as_ref().unwrap()[0];
        assert_eq!(
            (owner.kind.as_str(), owner.name.as_str()),
            ("DaemonSet", "kube-proxy")
        );
        let st = p.status.as_ref().unwrap();
        assert_eq!(st.phase.as_deref(), Some("Running"));
        // Host network: the pod's address is its node's.
        assert_eq!(st.pod_ip, st.host_ip);
    }
    // The default namespace is the user's alone.
    assert!(c.list(Kind::Pod, Some("default")).is_empty());
    // The view marks them, and robot counts leave them out.
    let v = c.view();
    assert!(v.nodes.iter().flat_map(|n| &n.pods).all(|p| p.system));
    assert!(v.robot_counts().values().all(|m| m.is_empty()));
}

#[test]
fn a_stopped_controller_manager_replaces_no_pod_until_it_starts() {
    let mut c = cluster_with(WEB);
    c.advance(SimDuration::secs(30));
    assert_eq!(web_pods(&c, RobotState::Running), 5);
    c.fault(Fault::StopComponent(
        ControlPlaneComponent::ControllerManager,
    ))
    .unwrap();
    c.advance(SimDuration::secs(1));
    let mirror = pod(&c, "kube-controller-manager-control-plane");
    assert_eq!(ready_containers(&mirror), "0/1");
    assert!(!c.view().components[3].running);

    let victim = c.list(Kind::Pod, Some("default"))[0].name().to_string();
    c.delete(Kind::Pod, "default", &victim).unwrap();
    c.advance(SimDuration::secs(60));
    assert_eq!(
        c.list(Kind::Pod, Some("default")).len(),
        4,
        "no replacement"
    );

    c.fault(Fault::StartComponent(
        ControlPlaneComponent::ControllerManager,
    ))
    .unwrap();
    c.advance(SimDuration::secs(10));
    assert_eq!(web_pods(&c, RobotState::Running), 5);
    let mirror = pod(&c, "kube-controller-manager-control-plane");
    assert_eq!(ready_containers(&mirror), "1/1");
    assert_eq!(warehouse_sim::views::podstatus::restarts(&mirror), 1);
}

#[test]
fn a_stopped_scheduler_leaves_pods_pending_until_it_starts() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(5));
    assert_eq!(
        c.stop(ControlPlaneComponent::Scheduler).unwrap(),
        "kube-scheduler stopped"
    );
    assert!(c.stop(ControlPlaneComponent::Scheduler).is_err());
    for obj in decode_manifests(WEB).unwrap() {
        c.create(obj).unwrap();
    }
    c.advance(SimDuration::secs(60));
    assert_eq!(web_pods(&c, RobotState::Unscheduled), 5);
    assert_eq!(
        c.start(ControlPlaneComponent::Scheduler).unwrap(),
        "kube-scheduler started"
    );
    c.advance(SimDuration::secs(10));
    assert_eq!(web_pods(&c, RobotState::Running), 5);
}

#[test]
fn an_apiserver_outage_refuses_requests_keeps_pods_running_and_marks_no_node_not_ready() {
    let mut c = cluster_with(WEB);
    c.advance(SimDuration::secs(30));
    c.stop(ControlPlaneComponent::ApiServer).unwrap();
    assert!(c.connect().is_err());
    let err = c.delete(Kind::Pod, "default", "anything").unwrap_err();
    assert_eq!(err.reason, StatusReason::ServiceUnavailable);
    let revision = c.revision();
    // Two minutes without an apiserver: nobody writes, pods keep running.
    for _ in 0..120 {
        c.advance(SimDuration::secs(1));
        assert_eq!(web_pods(&c, RobotState::Running), 5);
        for n in ["control-plane", "zone-a", "zone-b", "zone-c"] {
            assert_eq!(node_ready(&c, n), "True", "{n} during the outage");
        }
    }
    assert_eq!(c.revision(), revision, "nothing was written");
    // The mirror pod shows what was last reported: the apiserver running.
    assert_eq!(
        ready_containers(&pod(&c, "kube-apiserver-control-plane")),
        "1/1"
    );

    c.start(ControlPlaneComponent::ApiServer).unwrap();
    assert!(c.connect().is_ok());
    // Leases were stale for two minutes, but the node lifecycle controller measures
    // from when it last saw them change, by its own clock: no node goes NotReady.
    for _ in 0..120 {
        c.advance(SimDuration::secs(1));
        for n in ["control-plane", "zone-a", "zone-b", "zone-c"] {
            assert_eq!(node_ready(&c, n), "True", "{n} after the outage");
        }
    }
    assert_eq!(web_pods(&c, RobotState::Running), 5);
    // The apiserver's mirror pod shows its restart; the controller manager and the
    // scheduler lost their leader leases during the outage and restarted.
    for (name, restarts) in [
        ("kube-apiserver-control-plane", 1),
        ("kube-controller-manager-control-plane", 1),
        ("kube-scheduler-control-plane", 1),
        ("etcd-control-plane", 0),
    ] {
        let p = pod(&c, name);
        assert_eq!(ready_containers(&p), "1/1", "{name}");
        assert_eq!(
            warehouse_sim::views::podstatus::restarts(&p),
            restarts,
            "{name}"
        );
    }
}

#[test]
fn a_node_that_dies_during_an_outage_goes_not_ready_a_grace_period_after_the_apiserver_returns() {
    let mut c = cluster_with(WEB);
    c.advance(SimDuration::secs(30));
    c.stop(ControlPlaneComponent::ApiServer).unwrap();
    c.advance(SimDuration::secs(30));
    c.fault(Fault::KillNode("zone-a".into())).unwrap();
    c.advance(SimDuration::secs(90));
    c.start(ControlPlaneComponent::ApiServer).unwrap();
    // The restarted controller manager first sees zone-a now; its lease never
    // changes again.
    c.advance(SimDuration::secs(45));
    assert_eq!(node_ready(&c, "zone-a"), "True");
    c.advance(SimDuration::secs(15));
    assert_eq!(node_ready(&c, "zone-a"), "Unknown");
    assert_eq!(node_ready(&c, "zone-b"), "True");
}

#[test]
fn a_stopped_etcd_times_out_every_read_and_write_and_fails_readyz() {
    let mut c = cluster_with(WEB);
    c.advance(SimDuration::secs(30));
    assert_eq!(c.get_raw("/readyz").unwrap().body, "ok");
    c.stop(ControlPlaneComponent::Etcd).unwrap();
    assert!(c.connect().is_ok(), "the apiserver still answers");
    let err = c.check_storage().unwrap_err();
    assert_eq!(
        err.to_string(),
        "Error from server: etcdserver: request timed out"
    );
    assert_eq!(err.code(), 500);
    let err = c.delete(Kind::Pod, "default", "anything").unwrap_err();
    assert_eq!(err.message, "etcdserver: request timed out");

    let readyz = c.get_raw("/readyz?verbose").unwrap();
    assert_eq!(readyz.code, 500);
    assert!(readyz.body.starts_with("[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n[-]etcd-readiness failed: reason withheld\n"), "{}", readyz.body);
    assert!(readyz.body.ends_with("readyz check failed\n"));
    let livez = c.get_raw("/livez/etcd").unwrap();
    assert_eq!(livez.code, 500);
    let cs = c.component_statuses();
    let etcd = cs
        .iter()
        .find(|s| s.metadata.name.as_deref() == Some("etcd-0"))
        .unwrap();
    assert_eq!(etcd.conditions.as_ref().unwrap()[0].status, "False");

    c.advance(SimDuration::secs(60));
    assert_eq!(
        web_pods(&c, RobotState::Running),
        5,
        "containers keep running"
    );
    c.start(ControlPlaneComponent::Etcd).unwrap();
    c.advance(SimDuration::secs(30));
    let readyz = c.get_raw("/readyz?verbose").unwrap();
    assert_eq!(readyz.code, 200);
    assert!(readyz
        .body
        .ends_with("[+]shutdown ok\nreadyz check passed\n"));
    assert_eq!(
        warehouse_sim::views::podstatus::restarts(&pod(&c, "etcd-control-plane")),
        1
    );
    for n in ["zone-a", "zone-b", "zone-c"] {
        assert_eq!(node_ready(&c, n), "True");
    }
}

#[test]
fn a_deleted_mirror_pod_is_posted_again_while_the_component_keeps_running() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(10));
    let before = pod(&c, "kube-scheduler-control-plane").metadata.uid;
    c.delete(Kind::Pod, "kube-system", "kube-scheduler-control-plane")
        .unwrap();
    c.advance(SimDuration::secs(1));
    let after = pod(&c, "kube-scheduler-control-plane");
    assert_ne!(after.metadata.uid, before);
    assert_eq!(ready_containers(&after), "1/1");
    assert!(c.component_running(ControlPlaneComponent::Scheduler));
}

#[test]
fn killing_the_control_plane_node_takes_the_control_plane_down_with_it() {
    let mut c = cluster_with(WEB);
    c.advance(SimDuration::secs(30));
    c.fault(Fault::KillNode("control-plane".into())).unwrap();
    assert!(c.connect().is_err());
    assert!(c.view().components.iter().all(|v| !v.running));
    c.advance(SimDuration::secs(120));
    assert_eq!(web_pods(&c, RobotState::Running), 5);
    c.fault(Fault::RestartNode("control-plane".into())).unwrap();
    assert!(c.connect().is_ok());
    c.advance(SimDuration::secs(60));
    for n in ["control-plane", "zone-a", "zone-b", "zone-c"] {
        assert_eq!(node_ready(&c, n), "True", "{n}");
    }
    let p = pod(&c, "kube-apiserver-control-plane");
    assert_eq!(ready_containers(&p), "1/1");
    let last = p.status.unwrap().container_statuses.unwrap()[0]
        .last_state
        .clone()
        .unwrap()
        .terminated
        .unwrap();
    assert_eq!(
        (last.exit_code, last.reason.as_deref()),
        (255, Some("Unknown"))
    );
}

#[test]
fn stop_and_start_are_deterministic() {
    let run = || {
        let mut c = cluster_with(WEB);
        c.advance(SimDuration::secs(20));
        c.stop(ControlPlaneComponent::ApiServer).unwrap();
        c.advance(SimDuration::secs(40));
        c.start(ControlPlaneComponent::ApiServer).unwrap();
        c.stop(ControlPlaneComponent::Scheduler).unwrap();
        c.advance(SimDuration::secs(20));
        c.start(ControlPlaneComponent::Scheduler).unwrap();
        c.advance(SimDuration::secs(20));
        let mut out = String::new();
        for o in c.list(Kind::Pod, None) {
            out.push_str(&Object::to_json(&o).to_string());
        }
        (c.revision(), out)
    };
    assert_eq!(run(), run());
}
