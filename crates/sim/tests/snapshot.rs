//! Whole-cluster snapshots: a restored cluster continues exactly as the original.

mod common;
use common::*;

use warehouse_sim::snapshot::{fnv1a64, SNAPSHOT_FORMAT, SNAPSHOT_VERSION};
use warehouse_sim::{
    Cluster, ControlPlaneComponent, Fault, Kind, Object, ObjectKey, SimDuration, SnapshotError,
    Topology,
};

const QUOTA: &str = "apiVersion: v1
kind: ResourceQuota
metadata:
  name: pods
spec:
  hard:
    pods: \"8\"
";

/// A cluster in the middle of things: a deployment rolling out under a quota, a node
/// just killed, events counting, timers pending.
fn busy_cluster() -> Cluster {
    let mut c = Cluster::new(7, Topology::default());
    create(&mut c, QUOTA);
    create(&mut c, TROUBLE);
    create(&mut c, WEB);
    c.advance(SimDuration::secs(20));
    c.fault(Fault::KillNode("zone-b".into())).unwrap();
    c.etcd_snapshot_save("backup").unwrap();
    c.advance(SimDuration::millis(37_345));
    c.add_user("jane", &["devs".to_string()]).unwrap();
    c
}

/// The same inputs, applied to any cluster.
fn continue_with(c: &mut Cluster) {
    c.advance(SimDuration::secs(30));
    let mut web = c.get(Kind::Deployment, "default", "web").unwrap();
    if let Object::Deployment(d) = &mut web {
        d.spec.replicas = Some(9);
    }
    c.update(web).unwrap();
    c.fault(Fault::StopComponent(ControlPlaneComponent::Scheduler))
        .unwrap();
    c.advance(SimDuration::secs(20));
    c.fault(Fault::StartComponent(ControlPlaneComponent::Scheduler))
        .unwrap();
    c.advance(SimDuration::secs(400));
    c.fault(Fault::RestartNode("zone-b".into())).unwrap();
    c.delete(Kind::Deployment, "default", "web").unwrap();
    c.advance(SimDuration::secs(90));
    // An etcd restore: the deployment comes back and its pods run again.
    c.etcd_snapshot_restore("backup").unwrap();
    c.advance(SimDuration::secs(60));
    assert!(c.get(Kind::Deployment, "default", "web").is_ok());
}

/// Every object, as JSON, in key order.
fn all_objects(c: &Cluster) -> Vec<String> {
    Kind::ALL
        .into_iter()
        .flat_map(|k| c.list(k, None))
        .map(|o| o.to_json().to_string())
        .collect()
}

fn a_pod(c: &Cluster) -> ObjectKey {
    let pods = c.list(Kind::Pod, Some("default"));
    pods.first()
        .map(Object::key)
        .unwrap_or_else(|| ObjectKey::new(Kind::Pod, "kube-system", "etcd-control-plane"))
}

#[test]
fn a_restored_cluster_continues_exactly_as_the_original() {
    let mut original = busy_cluster();
    let bytes = original.snapshot();
    let mut restored = Cluster::restore(&bytes).unwrap();
    let pod = a_pod(&original);
    assert_eq!(original.why_text(&pod), restored.why_text(&pod));

    continue_with(&mut original);
    continue_with(&mut restored);

    assert_eq!(all_objects(&original), all_objects(&restored));
    assert_eq!(original.revision(), restored.revision());
    assert_eq!(original.now(), restored.now());
    assert_eq!(original.view(), restored.view());
    let pod = a_pod(&original);
    assert_eq!(original.why_text(&pod), restored.why_text(&pod));
    let logs = |c: &Cluster| c.container_log("default", "trouble", Some("count"), false);
    assert_eq!(logs(&original), logs(&restored));
    let requests =
        |c: &Cluster| -> Vec<String> { c.requests().map(|r| format!("{r:?}")).collect() };
    assert_eq!(requests(&original), requests(&restored));
    // Everything else too: the two states are the same bytes.
    assert!(original.snapshot() == restored.snapshot());
}

/// A settled cluster serving a Service: the endpoint controllers' memos, the
/// ReplicaSet's pod counts and the kubelets' image lists are all in use.
fn serving_cluster() -> Cluster {
    let mut c = Cluster::settled(5, Topology::default());
    create(&mut c, &web_with_service(4, "{app: web}", ""));
    c.advance(SimDuration::secs(45));
    c.etcd_snapshot_save("backup").unwrap();
    c.fault(Fault::PartitionNode("zone-c".into())).unwrap();
    c.fault(Fault::KillNode("zone-b".into())).unwrap();
    c.advance(SimDuration::millis(12_500));
    c
}

#[test]
fn a_copy_as_restored_is_what_a_restore_gives_and_continues_the_same() {
    for original in [busy_cluster(), serving_cluster()] {
        let mut copy = original.copy_as_restored();
        let mut restored = Cluster::restore(&original.snapshot()).unwrap();
        assert!(copy.snapshot() == restored.snapshot());
        assert!(copy.snapshot() == original.snapshot());
        // Both start a new change feed.
        assert_eq!(copy.feed_since(0).next, 0);
        assert_eq!(restored.feed_since(0).next, 0);

        continue_with(&mut copy);
        continue_with(&mut restored);

        assert_eq!(all_objects(&copy), all_objects(&restored));
        let feed = |c: &Cluster| -> Vec<String> {
            c.feed_since(0).events.map(|e| format!("{e:?}")).collect()
        };
        assert_eq!(feed(&copy), feed(&restored));
        let requests =
            |c: &Cluster| -> Vec<String> { c.requests().map(|r| format!("{r:?}")).collect() };
        assert_eq!(requests(&copy), requests(&restored));
        assert!(copy.snapshot() == restored.snapshot());
    }
}

#[test]
fn snapshot_restore_snapshot_gives_the_same_bytes() {
    let three = Cluster::new(2, Topology::default().with_etcd_members(3));
    let settled = Cluster::settled(3, Topology::default().with_etcd_members(3));
    for c in [
        Cluster::new(1, Topology::default()),
        busy_cluster(),
        three,
        settled,
    ] {
        let first = c.snapshot();
        let second = Cluster::restore(&first).unwrap().snapshot();
        assert!(first == second, "a round trip changed the snapshot");
    }
}

#[test]
fn a_restored_settled_cluster_keeps_its_boot_mode_and_is_still_pristine() {
    let c = Cluster::settled(1, Topology::default());
    let mut restored = Cluster::restore(&c.snapshot()).unwrap();
    assert_eq!(restored.boot(), warehouse_sim::Boot::Settled);
    assert!(restored.is_pristine());
    // So `sim seed` still works on it, and rebuilds it settled.
    restored.reseed(4).unwrap();
    assert_eq!(restored.boot(), warehouse_sim::Boot::Settled);
    assert_eq!(restored.now(), c.now());
}

#[test]
fn a_snapshot_from_before_boot_modes_restores_as_cold() {
    let c = Cluster::new(1, Topology::default());
    let bytes = c.snapshot();
    let text = std::str::from_utf8(&bytes).unwrap();
    let (_, body) = text.split_once('\n').unwrap();
    let old = body.replacen(",\"boot\":\"cold\"", "", 1);
    assert_ne!(old, body, "the topology writes its boot mode");
    let restored = Cluster::restore(&resealed(&old)).unwrap();
    assert_eq!(restored.boot(), warehouse_sim::Boot::Cold);
    assert!(restored.snapshot() == bytes);
}

#[test]
fn taking_a_snapshot_changes_nothing() {
    let mut a = busy_cluster();
    let mut b = busy_cluster();
    let _ = a.snapshot();
    continue_with(&mut a);
    continue_with(&mut b);
    assert!(a.snapshot() == b.snapshot());
}

#[test]
fn truncated_or_corrupted_snapshots_are_errors() {
    let bytes = busy_cluster().snapshot();
    assert!(bytes.starts_with(SNAPSHOT_FORMAT.as_bytes()));
    // Truncated anywhere.
    for len in [0, 1, 10, 40, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            Cluster::restore(&bytes[..len]).is_err(),
            "truncated to {len}"
        );
    }
    // One byte changed anywhere.
    for i in (0..bytes.len()).step_by(bytes.len() / 97 + 1) {
        let mut bad = bytes.clone();
        bad[i] ^= 0x20;
        assert!(Cluster::restore(&bad).is_err(), "byte {i} flipped");
    }
    assert!(matches!(
        Cluster::restore(b"hello\nworld"),
        Err(SnapshotError::NotASnapshot(_))
    ));
    let newer = String::from_utf8(bytes.clone()).unwrap().replacen(
        &format!(" {SNAPSHOT_VERSION} "),
        " v9 ",
        1,
    );
    assert!(matches!(
        Cluster::restore(newer.as_bytes()),
        Err(SnapshotError::Version { .. })
    ));
    let flipped = {
        let mut b = bytes.clone();
        let last = b.len() - 2;
        b[last] ^= 1;
        b
    };
    assert_eq!(
        Cluster::restore(&flipped).err(),
        Some(SnapshotError::Checksum)
    );
}

fn restore_err(bytes: &[u8]) -> SnapshotError {
    match Cluster::restore(bytes) {
        Ok(_) => panic!("bad bytes were restored"),
        Err(e) => e,
    }
}

/// Bytes with a valid checksum over an edited body.
fn resealed(body: &str) -> Vec<u8> {
    format!(
        "{SNAPSHOT_FORMAT} {SNAPSHOT_VERSION} fnv1a64={:016x}\n{body}",
        fnv1a64(body.as_bytes())
    )
    .into_bytes()
}

#[test]
fn well_sealed_but_wrong_state_is_an_error_naming_where() {
    let bytes = Cluster::new(1, Topology::default()).snapshot();
    let text = String::from_utf8(bytes).unwrap();
    let body = text.split_once('\n').unwrap().1;

    let err = restore_err(&resealed("{\"seed\": 1}"));
    assert!(matches!(err, SnapshotError::Decode(_)), "{err}");

    // An object of a kind the apiserver does not serve.
    let bad_kind = body.replacen("\"kind\":\"Namespace\"", "\"kind\":\"Gizmo\"", 1);
    let err = restore_err(&resealed(&bad_kind));
    assert!(err.to_string().contains("Gizmo"), "{err}");

    // A timer without its payload.
    let value: serde_json::Value = serde_json::from_str(body).unwrap();
    let mut edited = value.clone();
    edited["timer_payloads"].as_array_mut().unwrap().pop();
    let err = restore_err(&resealed(&edited.to_string()));
    assert!(matches!(err, SnapshotError::Inconsistent(_)), "{err}");

    // An object stored twice.
    let mut edited = value;
    let objects = edited["store"]["objects"].as_array_mut().unwrap();
    let first = objects[0].clone();
    objects.push(first);
    let err = restore_err(&resealed(&edited.to_string()));
    assert!(err.to_string().contains("stored twice"), "{err}");

    // Trailing bytes after the state.
    let err = restore_err(&resealed(&format!("{body} {{}}")));
    assert!(matches!(err, SnapshotError::Decode(_)), "{err}");
}
