//! What volumes keep: files on a PersistentVolume outlive the pod that wrote them and
//! reach the next pod on the claim (on the volume's node), until the provisioner
//! deletes the volume; a Retained volume keeps them. An emptyDir outlives a
//! container's restart but not its pod. A hostPath is the node's directory, shared by
//! the node's pods. A ReadWriteOncePod claim admits one pod.

mod common;
use common::*;

use warehouse_sim::kubelet::exec::NoHttpTools;
use warehouse_sim::{Cluster, Kind, ObjectKey, SimDuration, Topology};

fn sh(c: &mut Cluster, pod: &str, script: &str) -> (String, i32) {
    let argv: Vec<String> = ["sh", "-c", script].iter().map(|s| s.to_string()).collect();
    let out = c
        .exec("default", pod, "app", &argv, &NoHttpTools)
        .unwrap_or_else(|e| panic!("exec in {pod}: {e:?}"));
    (out.text, out.code)
}

fn claim(name: &str, mode: &str, class: &str) -> String {
    format!(
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: {name}\nspec:\n{class}  accessModes: [{mode}]\n  resources:\n    requests:\n      storage: 1Gi\n"
    )
}

/// A pod whose container `app` runs `script` and mounts `volume` (YAML of one
/// volume source) at /data.
fn pod(name: &str, script: &str, volume: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers:\n  - name: app\n    image: busybox:1.36\n    command: [sh, -c, '{script}']\n    volumeMounts:\n    - name: data\n      mountPath: /data\n  volumes:\n  - name: data\n{volume}"
    )
}

fn on_claim(name: &str, script: &str, claim: &str) -> String {
    pod(
        name,
        script,
        &format!("    persistentVolumeClaim:\n      claimName: {claim}\n"),
    )
}

fn phase(c: &Cluster, kind: Kind, ns: &str, name: &str) -> String {
    c.get(kind, ns, name).unwrap().to_json()["status"]["phase"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn volume_of(c: &Cluster, claim: &str) -> String {
    c.get(Kind::PersistentVolumeClaim, "default", claim)
        .unwrap()
        .to_json()["spec"]["volumeName"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn files_on_a_claim_outlive_the_pod_and_reach_its_replacement_on_the_same_node() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &claim("data", "ReadWriteOnce", ""));
    c.advance(SimDuration::secs(5));
    // WaitForFirstConsumer: no pod, no volume.
    assert_eq!(
        phase(&c, Kind::PersistentVolumeClaim, "default", "data"),
        "Pending"
    );
    // The process writes one file, an exec another.
    create(
        &mut c,
        &on_claim("writer", "echo from-process > /data/a; sleep 3600", "data"),
    );
    c.advance(SimDuration::secs(30));
    assert_eq!(
        phase(&c, Kind::PersistentVolumeClaim, "default", "data"),
        "Bound"
    );
    let node = pod_node(&c, "default", "writer").unwrap();
    assert_eq!(sh(&mut c, "writer", "echo from-exec > /data/b").1, 0);
    assert_eq!(
        sh(&mut c, "writer", "cat /data/a /data/b").0,
        "from-process\nfrom-exec\n"
    );
    c.delete(Kind::Pod, "default", "writer").unwrap();
    c.advance(SimDuration::secs(60));
    assert!(c.get(Kind::Pod, "default", "writer").is_err());
    // The replacement reads both, in its process and in an exec, on the volume's node.
    create(
        &mut c,
        &on_claim("reader", "cat /data/a; sleep 3600", "data"),
    );
    c.advance(SimDuration::secs(30));
    assert_eq!(pod_node(&c, "default", "reader").unwrap(), node);
    assert_eq!(log_lines(&c, "reader"), ["from-process"]);
    assert_eq!(sh(&mut c, "reader", "ls /data").0, "a\nb\n");
    // Removed by an exec: gone for the next pod too.
    sh(&mut c, "reader", "rm /data/a");
    assert_eq!(sh(&mut c, "reader", "ls /data").0, "b\n");
}

#[test]
fn a_second_pod_on_a_read_write_once_claim_lands_on_the_volumes_node() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &claim("data", "ReadWriteOnce", ""));
    create(&mut c, &on_claim("one", "sleep 3600", "data"));
    c.advance(SimDuration::secs(30));
    let node = pod_node(&c, "default", "one").unwrap();
    for name in ["two", "three", "four"] {
        create(&mut c, &on_claim(name, "sleep 3600", "data"));
    }
    c.advance(SimDuration::secs(30));
    for name in ["two", "three", "four"] {
        assert_eq!(pod_node(&c, "default", name).unwrap(), node, "{name}");
    }
    // They share the files.
    sh(&mut c, "one", "echo shared > /data/f");
    assert_eq!(sh(&mut c, "four", "cat /data/f").0, "shared\n");
}

#[test]
fn a_read_write_once_pod_claim_admits_one_pod_and_the_next_waits_for_it() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &claim("solo", "ReadWriteOncePod", ""));
    create(&mut c, &on_claim("first", "sleep 3600", "solo"));
    c.advance(SimDuration::secs(30));
    create(&mut c, &on_claim("second", "sleep 3600", "solo"));
    c.advance(SimDuration::secs(30));
    assert_eq!(pod_node(&c, "default", "second"), None);
    let decision = c
        .scheduling_decision(&ObjectKey::new(Kind::Pod, "default", "second"))
        .unwrap();
    assert_eq!(
        decision.message,
        "0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 3 node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod."
    );
    // The first goes: the second is scheduled.
    c.delete(Kind::Pod, "default", "first").unwrap();
    c.advance(SimDuration::secs(360));
    assert!(pod_node(&c, "default", "second").is_some());
}

#[test]
fn deleting_a_claim_of_the_delete_policy_deletes_the_volume_and_its_files() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &claim("data", "ReadWriteOnce", ""));
    create(
        &mut c,
        &on_claim("user", "echo x > /data/f; sleep 3600", "data"),
    );
    c.advance(SimDuration::secs(30));
    let node = pod_node(&c, "default", "user").unwrap();
    let volume = volume_of(&c, "data");
    let dir = format!("/var/local-path-provisioner/{volume}_default_data");
    sh(&mut c, "user", "echo y > /data/g");
    assert_eq!(c.files_in_host_dir(&node, &dir), 1);
    c.delete(Kind::Pod, "default", "user").unwrap();
    c.advance(SimDuration::secs(40));
    // The process's file reached the disk when it ended.
    assert_eq!(c.files_in_host_dir(&node, &dir), 2);
    c.delete(Kind::PersistentVolumeClaim, "default", "data")
        .unwrap();
    c.advance(SimDuration::secs(30));
    assert!(c.get(Kind::PersistentVolume, "", &volume).is_err());
    assert_eq!(c.files_in_host_dir(&node, &dir), 0);
}

#[test]
fn a_retained_volume_is_released_and_keeps_its_files() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: keep\nprovisioner: rancher.io/local-path\nreclaimPolicy: Retain\nvolumeBindingMode: WaitForFirstConsumer\n",
    );
    create(
        &mut c,
        &claim("data", "ReadWriteOnce", "  storageClassName: keep\n"),
    );
    create(&mut c, &on_claim("user", "sleep 3600", "data"));
    c.advance(SimDuration::secs(30));
    let node = pod_node(&c, "default", "user").unwrap();
    let volume = volume_of(&c, "data");
    sh(&mut c, "user", "echo kept > /data/f");
    c.delete(Kind::Pod, "default", "user").unwrap();
    c.advance(SimDuration::secs(40));
    c.delete(Kind::PersistentVolumeClaim, "default", "data")
        .unwrap();
    c.advance(SimDuration::secs(30));
    assert_eq!(phase(&c, Kind::PersistentVolume, "", &volume), "Released");
    let dir = format!("/var/local-path-provisioner/{volume}_default_data");
    assert_eq!(c.files_in_host_dir(&node, &dir), 1);
}

#[test]
fn an_empty_dir_outlives_a_container_restart_but_not_its_pod() {
    let mut c = Cluster::new(1, Topology::default());
    // Each run adds a line to a file in the emptyDir, prints the file and fails.
    create(
        &mut c,
        &pod(
            "crasher",
            "echo run >> /data/runs; cat /data/runs; sleep 5; exit 1",
            "    emptyDir: {}\n",
        ),
    );
    c.advance(SimDuration::secs(60));
    let lines = log_lines(&c, "crasher");
    assert!(
        lines.len() >= 3 && lines.iter().all(|l| l == "run"),
        "every restart appends to the same file: {lines:?}"
    );
    c.delete(Kind::Pod, "default", "crasher").unwrap();
    c.advance(SimDuration::secs(40));
    assert!(c.get(Kind::Pod, "default", "crasher").is_err());
    // A new pod of the same name is a new pod: a new, empty directory.
    create(&mut c, &pod("crasher", "sleep 3600", "    emptyDir: {}\n"));
    c.advance(SimDuration::secs(30));
    assert_eq!(sh(&mut c, "crasher", "ls /data").0, "");
}

#[test]
fn a_host_path_is_shared_by_the_nodes_pods_and_stays_when_they_go() {
    let mut c = Cluster::new(1, Topology::default());
    let host = "    hostPath:\n      path: /srv/shared\n";
    let pinned = |name: &str, script: &str| {
        pod(name, script, host).replace(
            "spec:\n  containers:",
            "spec:\n  nodeName: zone-a\n  containers:",
        )
    };
    create(&mut c, &pinned("left", "echo left > /data/l; sleep 3600"));
    c.advance(SimDuration::secs(30));
    create(&mut c, &pinned("right", "sleep 3600"));
    c.advance(SimDuration::secs(30));
    sh(&mut c, "right", "echo right > /data/r");
    // The exec's file at once; the left process's once it ends.
    assert_eq!(sh(&mut c, "left", "ls /data").0, "l\nr\n");
    c.delete(Kind::Pod, "default", "left").unwrap();
    c.advance(SimDuration::secs(40));
    assert_eq!(
        sh(&mut c, "right", "cat /data/l /data/r").0,
        "left\nright\n"
    );
    assert_eq!(c.files_in_host_dir("zone-a", "/srv/shared"), 2);
}
