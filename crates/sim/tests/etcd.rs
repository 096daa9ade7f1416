//! etcd with several members (quorum, leader) and etcd snapshots (save, restore).

mod common;

use common::{create, web_deployment, REQUESTS};

use warehouse_sim::runtime::control_plane::ETCD_TIMEOUT;
use warehouse_sim::{
    decode_manifests, Cluster, ControlPlaneComponent, Fault, Kind, Object, ObjectKey, RobotState,
    SimDuration, StatusReason, Topology,
};

/// Three nginx replicas requesting 100m CPU and 64Mi each.
fn web() -> String {
    web_deployment(3, "{app: web}", "", REQUESTS)
}

const LATE: &str = "apiVersion: v1
kind: Pod
metadata:
  name: late
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sleep, \"3600\"]
";

fn three_members() -> Cluster {
    Cluster::new(1, Topology::default().with_etcd_members(3))
}

fn leader(c: &Cluster) -> Option<String> {
    c.etcd_members()
        .into_iter()
        .find(|m| m.leader)
        .map(|m| m.name)
}

/// Workload pods of `default` in a robot state.
fn web_pods(c: &Cluster, state: RobotState) -> usize {
    let v = c.view();
    v.nodes
        .iter()
        .flat_map(|n| &n.pods)
        .chain(&v.unscheduled)
        .filter(|p| p.namespace == "default" && p.state == state)
        .count()
}

fn stop(c: &mut Cluster, member: &str) -> String {
    c.fault(Fault::StopEtcdMember(member.into())).unwrap()
}

fn start(c: &mut Cluster, member: &str) -> String {
    c.fault(Fault::StartEtcdMember(member.into())).unwrap()
}

#[test]
fn three_members_keep_serving_with_one_down_and_time_out_with_two_down() {
    let mut c = three_members();
    assert_eq!(leader(&c).as_deref(), Some("etcd-0"));
    let msg = stop(&mut c, "etcd-1");
    assert_eq!(msg, "etcd-1 stopped; 2 of 3 members running: quorum kept");
    create(&mut c, &web());
    c.advance(SimDuration::secs(30));
    assert_eq!(web_pods(&c, RobotState::Running), 3);
    assert!(c.check_storage().is_ok());
    assert!(c.get_raw("/readyz").unwrap().code == 200);

    let msg = stop(&mut c, "etcd-2");
    assert!(msg.contains("quorum lost"), "{msg}");
    assert_eq!(leader(&c), None);
    let err = c.check_storage().unwrap_err();
    assert_eq!(err.reason, StatusReason::Unknown);
    assert_eq!(err.message, ETCD_TIMEOUT);
    let err = c
        .create(decode_manifests(LATE).unwrap().remove(0))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("Error from server: {ETCD_TIMEOUT}")
    );
    let readyz = c.get_raw("/readyz?verbose").unwrap();
    assert_eq!(readyz.code, 500);
    assert!(readyz.body.contains("[-]etcd failed: reason withheld"));
    let cs = c.component_statuses();
    assert_eq!(
        cs.len(),
        5,
        "scheduler, controller-manager and three etcd members"
    );

    // The static pod's member alone is a minority too; back to two, the cluster works.
    start(&mut c, "etcd-1");
    assert!(c.check_storage().is_ok());
    assert_eq!(leader(&c).as_deref(), Some("etcd-0"));
    c.create(decode_manifests(LATE).unwrap().remove(0)).unwrap();
}

#[test]
fn a_new_leader_is_elected_deterministically_in_a_new_term() {
    let mut c = three_members();
    assert!(c.etcd_status().contains("raft term 1;"));
    // etcd-0 is the static pod: stopping the component stops the member.
    c.fault(Fault::StopComponent(ControlPlaneComponent::Etcd))
        .unwrap();
    assert_eq!(leader(&c).as_deref(), Some("etcd-1"));
    assert!(
        c.check_storage().is_ok(),
        "two of three members are a majority"
    );
    let status = c.etcd_status();
    assert!(status.contains("raft term 2;"), "{status}");
    assert!(status.contains("etcd-0   stopped   -"), "{status}");
    assert!(status.contains("etcd-1   started   leader"), "{status}");
    assert!(status.contains("etcd-2   started   follower"), "{status}");
    // The old leader coming back does not take over.
    start(&mut c, "etcd-0");
    assert_eq!(leader(&c).as_deref(), Some("etcd-1"));
    stop(&mut c, "etcd-1");
    stop(&mut c, "etcd-2");
    let status = c.etcd_status();
    assert!(status.contains("etcd-0   started   candidate"), "{status}");
    assert!(status.contains("quorum lost (2 needed)"), "{status}");
}

#[test]
fn one_member_etcd_is_the_static_pod() {
    let mut c = Cluster::new(1, Topology::default());
    assert_eq!(c.etcd_member_count(), 1);
    stop(&mut c, "etcd-0");
    assert!(c.component_stopped(ControlPlaneComponent::Etcd));
    assert!(c.check_storage().is_err());
    assert_eq!(
        c.fault(Fault::StopEtcdMember("etcd-0".into()))
            .unwrap_err()
            .to_string(),
        "etcd-0 is already stopped"
    );
    assert_eq!(
        c.fault(Fault::StopEtcdMember("etcd-7".into()))
            .unwrap_err()
            .to_string(),
        "etcd member \"etcd-7\" not found; the members are etcd-0"
    );
    start(&mut c, "etcd-0");
    assert!(c.check_storage().is_ok());
}

#[test]
fn members_are_configured_only_before_anything_happens() {
    let mut c = Cluster::new(1, Topology::default());
    let msg = c.configure_etcd_members(3).unwrap();
    assert!(
        msg.starts_with("etcd has 3 member(s): etcd-0, etcd-1, etcd-2"),
        "{msg}"
    );
    // The same as building the cluster with three members.
    assert!(c.snapshot() == three_members().snapshot());
    let etcd = c
        .get(Kind::Pod, "kube-system", "etcd-control-plane")
        .unwrap();
    let command = etcd.as_pod().unwrap().spec.as_ref().unwrap().containers[0]
        .command
        .clone()
        .unwrap();
    assert!(command.contains(&"--initial-cluster=etcd-0=https://172.18.0.2:2380,etcd-1=https://172.18.0.2:22380,etcd-2=https://172.18.0.2:32380".to_string()));
    c.advance(SimDuration::secs(1));
    let err = c.configure_etcd_members(1).unwrap_err();
    assert!(err.to_string().contains("before anything else"), "{err}");
    assert!(c.configure_etcd_members(9).is_err());
}

#[test]
fn killing_the_control_plane_node_stops_every_member() {
    let mut c = three_members();
    c.fault(Fault::KillNode("control-plane".into())).unwrap();
    assert!(c.etcd_members().iter().all(|m| !m.started));
    stop(&mut c, "etcd-2");
    c.fault(Fault::RestartNode("control-plane".into())).unwrap();
    let started: Vec<bool> = c.etcd_members().iter().map(|m| m.started).collect();
    assert_eq!(started, [true, true, false]);
    assert!(c.check_storage().is_ok());
}

#[test]
fn a_restore_brings_back_what_was_deleted_and_removes_what_was_created() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web());
    c.advance(SimDuration::secs(30));
    assert_eq!(web_pods(&c, RobotState::Running), 3);
    let msg = c.etcd_snapshot_save("before").unwrap();
    let saved_at = c.revision();
    assert!(
        msg.starts_with(&format!("Snapshot saved at before (revision {saved_at}, ")),
        "{msg}"
    );

    c.delete(Kind::Deployment, "default", "web").unwrap();
    create(&mut c, LATE);
    c.advance(SimDuration::secs(60));
    assert_eq!(web_pods(&c, RobotState::Running), 1, "only the late pod");
    let late_node = c
        .get(Kind::Pod, "default", "late")
        .unwrap()
        .as_pod()
        .unwrap()
        .spec
        .as_ref()
        .unwrap()
        .node_name
        .clone()
        .unwrap();
    let late = ObjectKey::new(Kind::Pod, "default", "late");
    assert!(c.runtime_pods(&late_node).contains(&late));
    let before_restore = c.revision();
    let watched_from = c.revision();

    let msg = c.etcd_snapshot_restore("before").unwrap();
    assert!(
        msg.starts_with(&format!(
            "restored snapshot \"before\" (revision {saved_at}) with --bump-revision 1000000000 --mark-compacted: revision {}",
            saved_at + 1_000_000_000
        )),
        "{msg}"
    );
    assert_eq!(c.revision(), saved_at + 1_000_000_000);
    assert!(c.revision() > before_restore);
    // What it took back, per resource: the deleted Deployment and ReplicaSet, the
    // three deleted pods and the late one (and heartbeats and events besides).
    assert!(
        msg.contains("the restore undid changes to deployments.apps 1, "),
        "{msg}"
    );
    assert!(msg.contains(", pods 4, replicasets.apps 1"), "{msg}");
    assert!(
        c.etcd_status()
            .contains("last restore: snapshot \"before\" (revision "),
        "{}",
        c.etcd_status()
    );
    // Watches from before the restore are told to relist.
    let gone = c.events_since(watched_from).unwrap_err();
    assert_eq!(gone.reason, StatusReason::Gone);

    assert!(c.get(Kind::Deployment, "default", "web").is_ok());
    assert!(c.get(Kind::Pod, "default", "late").is_err());
    c.advance(SimDuration::secs(30));
    // The late pod's containers are stopped; the restored pods run again.
    assert!(!c.runtime_pods(&late_node).contains(&late));
    assert_eq!(web_pods(&c, RobotState::Running), 3);
    let pods = c.list(Kind::Pod, Some("default"));
    assert_eq!(pods.len(), 3);
    // kube-apiserver and etcd restarted.
    for name in ["kube-apiserver-control-plane", "etcd-control-plane"] {
        let pod = c.get(Kind::Pod, "kube-system", name).unwrap();
        let restarts = pod
            .as_pod()
            .unwrap()
            .status
            .as_ref()
            .unwrap()
            .container_statuses
            .as_ref()
            .unwrap()[0]
            .restart_count;
        assert_eq!(restarts, 1, "{name}");
    }
    // Writes after the restore continue from the bumped revision.
    create(&mut c, LATE);
    assert!(c.revision() > saved_at + 1_000_000_000);
}

#[test]
fn pods_restored_with_an_older_status_get_their_status_back() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web());
    // Saved while the pods are still being created.
    c.advance(SimDuration::millis(900));
    c.etcd_snapshot_save("early").unwrap();
    c.advance(SimDuration::secs(30));
    assert_eq!(web_pods(&c, RobotState::Running), 3);
    c.etcd_snapshot_restore("early").unwrap();
    c.advance(SimDuration::secs(30));
    assert_eq!(web_pods(&c, RobotState::Running), 3);
    for p in c.list(Kind::Pod, Some("default")) {
        let Object::Pod(p) = p else { continue };
        let cs = &p.status.unwrap().container_statuses.unwrap()[0];
        assert_eq!(cs.restart_count, 0, "the containers ran on throughout");
    }
}

#[test]
fn a_restore_recovers_a_cluster_that_lost_quorum() {
    let mut c = three_members();
    create(&mut c, &web());
    c.advance(SimDuration::secs(30));
    c.etcd_snapshot_save("backup").unwrap();
    stop(&mut c, "etcd-1");
    stop(&mut c, "etcd-2");
    assert!(c.check_storage().is_err());
    c.advance(SimDuration::secs(30));
    // A member without quorum still serves a snapshot of its data.
    c.etcd_snapshot_save("late-backup").unwrap();
    c.etcd_snapshot_restore("backup").unwrap();
    assert!(c.etcd_members().iter().all(|m| m.started));
    assert!(c.check_storage().is_ok());
    c.advance(SimDuration::secs(30));
    assert_eq!(web_pods(&c, RobotState::Running), 3);
}

#[test]
fn a_restore_with_the_apiserver_stopped_waits_for_it() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web());
    c.advance(SimDuration::secs(30));
    c.etcd_snapshot_save("backup").unwrap();
    c.delete(Kind::Deployment, "default", "web").unwrap();
    c.advance(SimDuration::secs(30));
    c.fault(Fault::StopComponent(ControlPlaneComponent::ApiServer))
        .unwrap();
    let msg = c.etcd_snapshot_restore("backup").unwrap();
    assert!(msg.contains("kube-apiserver is stopped"), "{msg}");
    c.advance(SimDuration::secs(5));
    c.fault(Fault::StartComponent(ControlPlaneComponent::ApiServer))
        .unwrap();
    c.advance(SimDuration::secs(30));
    assert_eq!(web_pods(&c, RobotState::Running), 3);
}

#[test]
fn a_second_restore_from_the_same_snapshot_still_moves_the_revision_forward() {
    let mut c = Cluster::new(1, Topology::default());
    c.etcd_snapshot_save("s").unwrap();
    let msg = c.etcd_snapshot_restore("s").unwrap();
    // Nothing happened in between: nothing to take back.
    assert!(
        msg.ends_with("the restore undid nothing: no object changed after the snapshot"),
        "{msg}"
    );
    let first = c.revision();
    create(&mut c, LATE);
    let after_write = c.revision();
    let msg = c.etcd_snapshot_restore("s").unwrap();
    assert!(msg.contains("--bump-revision 2000000000"), "{msg}");
    assert!(c.revision() > after_write && after_write > first);
}

#[test]
fn snapshot_errors_are_messages() {
    let mut c = Cluster::new(1, Topology::default());
    assert!(c
        .etcd_snapshot_restore("nope")
        .unwrap_err()
        .to_string()
        .contains("not found"));
    assert!(c.etcd_snapshot_save("a b").is_err());
    c.fault(Fault::StopComponent(ControlPlaneComponent::Etcd))
        .unwrap();
    assert!(c
        .etcd_snapshot_save("x")
        .unwrap_err()
        .to_string()
        .contains("context deadline exceeded"));
}
