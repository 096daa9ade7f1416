//! StatefulSets (pkg/controller/statefulset): ordered creation and removal, the
//! Parallel policy, a partitioned rolling update, claims from templates, a pod on a
//! lost zone made again at most once, and the apiserver's checks.

mod common;

use common::create;
use warehouse_sim::{decode_manifests, Cluster, Fault, Kind, SimDuration, Topology};

fn set(extra: &str, replicas: u32) -> String {
    format!(
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: web\nspec:\n  serviceName: nginx\n  replicas: {replicas}\n{extra}  selector:\n    matchLabels:\n      app: nginx\n  template:\n    metadata:\n      labels:\n        app: nginx\n    spec:\n      containers:\n      - name: nginx\n        image: nginx:1.27\n"
    )
}

/// The set's pods by name, with their phase and whether they are going.
fn pods(c: &Cluster) -> Vec<(String, String, bool)> {
    let mut v: Vec<_> = c
        .list(Kind::Pod, Some("default"))
        .into_iter()
        .filter(|p| p.name().starts_with("web-"))
        .map(|p| {
            let j = p.to_json();
            (
                p.name().to_string(),
                j["status"]["phase"].as_str().unwrap_or("").to_string(),
                p.meta().deletion_timestamp.is_some(),
            )
        })
        .collect();
    v.sort();
    v
}

fn names(c: &Cluster) -> Vec<String> {
    pods(c).into_iter().map(|(n, _, _)| n).collect()
}

fn label(c: &Cluster, pod: &str, key: &str) -> String {
    let p = c.get(Kind::Pod, "default", pod).unwrap();
    p.meta().labels.as_ref().unwrap()[key].clone()
}

fn status(c: &Cluster, field: &str) -> serde_json::Value {
    c.get(Kind::StatefulSet, "default", "web")
        .unwrap()
        .to_json()["status"][field]
        .clone()
}

fn apply_image(c: &mut Cluster, extra: &str, image: &str) {
    let manifest = set(extra, 3).replace("nginx:1.27", image);
    for obj in decode_manifests(&manifest).unwrap() {
        let mut current = c.get(Kind::StatefulSet, "default", "web").unwrap();
        let mut value = obj.to_json();
        value["metadata"] = current.to_json()["metadata"].clone();
        current = warehouse_sim::Object::from_json(Kind::StatefulSet, value).unwrap();
        c.update(current).unwrap();
    }
}

#[test]
fn pods_are_made_one_at_a_time_in_ordinal_order_with_stable_identities() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &set("", 3));
    c.advance(SimDuration::millis(500));
    // Only web-0, until it is Running and Ready.
    assert_eq!(names(&c), ["web-0"]);
    c.advance(SimDuration::secs(60));
    assert_eq!(names(&c), ["web-0", "web-1", "web-2"]);
    let p = c.get(Kind::Pod, "default", "web-1").unwrap().to_json();
    assert_eq!(p["spec"]["hostname"], "web-1");
    assert_eq!(p["spec"]["subdomain"], "nginx");
    assert_eq!(
        label(&c, "web-1", "statefulset.kubernetes.io/pod-name"),
        "web-1"
    );
    assert_eq!(label(&c, "web-1", "apps.kubernetes.io/pod-index"), "1");
    let revision = status(&c, "updateRevision");
    assert_eq!(label(&c, "web-2", "controller-revision-hash"), revision);
    assert_eq!(status(&c, "readyReplicas"), 3);
    assert_eq!(status(&c, "currentRevision"), revision);
    // The revision is a ControllerRevision the set owns.
    let revisions = c.list(Kind::ControllerRevision, Some("default"));
    assert_eq!(revisions.len(), 1);
    assert_eq!(revisions[0].name(), revision.as_str().unwrap());
    assert_eq!(revisions[0].to_json()["revision"], 1);
    // Creation order is ordinal order.
    let created: Vec<i64> = ["web-0", "web-1", "web-2"]
        .iter()
        .map(|n| {
            c.get(Kind::Pod, "default", n)
                .unwrap()
                .meta()
                .creation_timestamp
                .as_ref()
                .unwrap()
                .0
                .as_millisecond()
        })
        .collect();
    assert!(
        created[0] < created[1] && created[1] < created[2],
        "{created:?}"
    );
}

#[test]
fn a_scale_down_removes_the_highest_ordinal_first_and_waits_for_it() {
    let mut c = Cluster::new(1, Topology::default());
    // The bootcamp image's `/bin/sh -c` as the first process ignores SIGTERM: each
    // pod stays Terminating for its whole grace period.
    let extra = "";
    let manifest = set(extra, 3)
        .replace(
            "      containers:\n",
            "      terminationGracePeriodSeconds: 20\n      containers:\n",
        )
        .replace("nginx:1.27", "gcr.io/google-samples/kubernetes-bootcamp:v1");
    create(&mut c, &manifest);
    c.advance(SimDuration::secs(60));
    assert_eq!(names(&c).len(), 3);
    let mut sts = c
        .get(Kind::StatefulSet, "default", "web")
        .unwrap()
        .to_json();
    sts["spec"]["replicas"] = 1.into();
    c.update(warehouse_sim::Object::from_json(Kind::StatefulSet, sts).unwrap())
        .unwrap();
    c.advance(SimDuration::secs(5));
    let now = pods(&c);
    assert_eq!(now.len(), 3);
    assert!(now[2].2, "web-2 is going first: {now:?}");
    assert!(!now[1].2, "web-1 waits for web-2: {now:?}");
    c.advance(SimDuration::secs(60));
    assert_eq!(names(&c), ["web-0"]);
}

#[test]
fn the_parallel_policy_makes_every_pod_at_once() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &set("  podManagementPolicy: Parallel\n", 4));
    c.advance(SimDuration::millis(500));
    assert_eq!(names(&c), ["web-0", "web-1", "web-2", "web-3"]);
}

#[test]
fn a_partition_keeps_lower_ordinals_at_the_current_revision_even_when_made_again() {
    let mut c = Cluster::new(1, Topology::default());
    let partition =
        "  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate:\n      partition: 2\n";
    create(&mut c, &set(partition, 3));
    c.advance(SimDuration::secs(60));
    let old = status(&c, "currentRevision");
    apply_image(&mut c, partition, "nginx:1.28");
    c.advance(SimDuration::secs(60));
    let new = status(&c, "updateRevision");
    assert_ne!(old, new);
    assert_eq!(label(&c, "web-2", "controller-revision-hash"), new);
    assert_eq!(label(&c, "web-1", "controller-revision-hash"), old);
    assert_eq!(status(&c, "updatedReplicas"), 1);
    assert_eq!(status(&c, "currentReplicas"), 2);
    // web-0 deleted by hand comes back at the old revision, with the old image.
    c.delete(Kind::Pod, "default", "web-0").unwrap();
    c.advance(SimDuration::secs(60));
    assert_eq!(label(&c, "web-0", "controller-revision-hash"), old);
    let image = c.get(Kind::Pod, "default", "web-0").unwrap().to_json()["spec"]["containers"][0]
        ["image"]
        .clone();
    assert_eq!(image, "nginx:1.27");
    // Partition 0: the rest follow, and the update revision becomes current.
    apply_image(
        &mut c,
        "  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate:\n      partition: 0\n",
        "nginx:1.28",
    );
    c.advance(SimDuration::secs(120));
    for pod in ["web-0", "web-1", "web-2"] {
        assert_eq!(label(&c, pod, "controller-revision-hash"), new, "{pod}");
    }
    assert_eq!(status(&c, "currentRevision"), new);
    assert_eq!(status(&c, "currentReplicas"), 3);
    // Back to the first template: its revision comes forward as number 3.
    apply_image(&mut c, "", "nginx:1.27");
    c.advance(SimDuration::secs(120));
    assert_eq!(status(&c, "updateRevision"), old);
    let first = c
        .get(Kind::ControllerRevision, "default", old.as_str().unwrap())
        .unwrap();
    assert_eq!(first.to_json()["revision"], 3);
}

#[test]
fn claims_are_made_from_templates_and_a_pod_comes_back_to_its_volume() {
    let mut c = Cluster::new(1, Topology::default());
    let claims = set("", 2).replace(
        "  template:\n",
        "  volumeClaimTemplates:\n  - metadata:\n      name: www\n    spec:\n      accessModes: [ReadWriteOnce]\n      resources:\n        requests:\n          storage: 1Gi\n  template:\n",
    );
    create(&mut c, &claims);
    c.advance(SimDuration::secs(60));
    let claim_names: Vec<String> = c
        .list(Kind::PersistentVolumeClaim, Some("default"))
        .into_iter()
        .map(|p| p.name().to_string())
        .collect();
    assert_eq!(claim_names, ["www-web-0", "www-web-1"]);
    let claim = c
        .get(Kind::PersistentVolumeClaim, "default", "www-web-0")
        .unwrap();
    assert_eq!(claim.meta().labels.as_ref().unwrap()["app"], "nginx");
    let claim = claim.to_json();
    // The default class `standard` (WaitForFirstConsumer): provisioned on the node
    // of the claim's first pod.
    assert_eq!(claim["spec"]["storageClassName"], "standard");
    assert_eq!(claim["status"]["phase"], "Bound");
    let pod = c.get(Kind::Pod, "default", "web-0").unwrap().to_json();
    assert_eq!(
        pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"],
        "www-web-0"
    );
    let node = pod["spec"]["nodeName"].as_str().unwrap().to_string();
    assert_eq!(
        claim["metadata"]["annotations"]["volume.kubernetes.io/selected-node"],
        node.as_str()
    );
    let volume_name = claim["spec"]["volumeName"].as_str().unwrap().to_string();
    let volume = c
        .get(Kind::PersistentVolume, "", &volume_name)
        .unwrap()
        .to_json();
    assert_eq!(volume["status"]["phase"], "Bound");
    assert_eq!(volume["spec"]["claimRef"]["name"], "www-web-0");
    assert_eq!(
        volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]
            ["values"][0],
        node.as_str()
    );
    // Scaled to zero: the pods go, the claims and volumes stay (whenScaled: Retain).
    let scale = |c: &mut Cluster, n: i64| {
        let mut sts = c
            .get(Kind::StatefulSet, "default", "web")
            .unwrap()
            .to_json();
        sts["spec"]["replicas"] = n.into();
        c.update(warehouse_sim::Object::from_json(Kind::StatefulSet, sts).unwrap())
            .unwrap();
    };
    scale(&mut c, 0);
    c.advance(SimDuration::secs(120));
    assert!(names(&c).is_empty());
    assert_eq!(
        c.list(Kind::PersistentVolumeClaim, Some("default")).len(),
        2
    );
    // Back to one: web-0 returns to the node its volume is on.
    scale(&mut c, 1);
    c.advance(SimDuration::secs(60));
    let pod = c.get(Kind::Pod, "default", "web-0").unwrap().to_json();
    assert_eq!(pod["spec"]["nodeName"], node.as_str());
    assert_eq!(pod["status"]["phase"], "Running");
}

#[test]
fn a_claim_in_use_waits_and_its_volume_goes_with_it() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 2Gi\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: user\nspec:\n  containers:\n  - name: c\n    image: busybox:1.36\n    command: [sleep, \"3600\"]\n  volumes:\n  - name: d\n    persistentVolumeClaim:\n      claimName: data\n",
    );
    c.advance(SimDuration::secs(30));
    let claim = c
        .get(Kind::PersistentVolumeClaim, "default", "data")
        .unwrap()
        .to_json();
    assert_eq!(claim["status"]["phase"], "Bound");
    assert_eq!(claim["status"]["capacity"]["storage"], "2Gi");
    let volume = claim["spec"]["volumeName"].as_str().unwrap().to_string();
    // Deleted while the pod uses it: Terminating, held by kubernetes.io/pvc-protection.
    c.delete(Kind::PersistentVolumeClaim, "default", "data")
        .unwrap();
    c.advance(SimDuration::secs(10));
    let claim = c
        .get(Kind::PersistentVolumeClaim, "default", "data")
        .unwrap();
    assert!(claim.meta().deletion_timestamp.is_some());
    assert_eq!(
        claim.meta().finalizers.as_deref(),
        Some(&["kubernetes.io/pvc-protection".to_string()][..])
    );
    // The pod goes: the claim goes, its volume is Released and, with the class's
    // Delete policy, removed by the provisioner.
    c.delete(Kind::Pod, "default", "user").unwrap();
    c.advance(SimDuration::secs(60));
    assert!(c
        .get(Kind::PersistentVolumeClaim, "default", "data")
        .is_err());
    assert!(c.get(Kind::PersistentVolume, "", &volume).is_err());
}

#[test]
fn a_volume_made_by_hand_binds_a_claim_without_a_class_and_is_retained() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: disk\nspec:\n  capacity:\n    storage: 5Gi\n  accessModes: [ReadWriteOnce]\n  hostPath:\n    path: /mnt/disk\n---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: small\nspec:\n  storageClassName: \"\"\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n",
    );
    c.advance(SimDuration::secs(5));
    create(
        &mut c,
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: second\nspec:\n  storageClassName: \"\"\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n",
    );
    c.advance(SimDuration::secs(5));
    let small = c
        .get(Kind::PersistentVolumeClaim, "default", "small")
        .unwrap()
        .to_json();
    assert_eq!(small["status"]["phase"], "Bound");
    assert_eq!(small["spec"]["volumeName"], "disk");
    assert_eq!(small["status"]["capacity"]["storage"], "5Gi");
    // One volume, one claim: the second waits.
    let second = c
        .get(Kind::PersistentVolumeClaim, "default", "second")
        .unwrap()
        .to_json();
    assert_eq!(second["status"]["phase"], "Pending");
    let reasons: Vec<String> = c
        .list(Kind::Event, Some("default"))
        .into_iter()
        .filter(|e| e.to_json()["involvedObject"]["name"] == "second")
        .filter_map(|e| e.to_json()["message"].as_str().map(str::to_string))
        .collect();
    assert!(
        reasons.contains(
            &"no persistent volumes available for this claim and no storage class is set"
                .to_string()
        ),
        "{reasons:?}"
    );
    // The claim goes; the volume (Retain, made by hand) is Released and stays.
    c.delete(Kind::PersistentVolumeClaim, "default", "small")
        .unwrap();
    c.advance(SimDuration::secs(5));
    let disk = c.get(Kind::PersistentVolume, "", "disk").unwrap().to_json();
    assert_eq!(disk["status"]["phase"], "Released");
    assert_eq!(disk["spec"]["persistentVolumeReclaimPolicy"], "Retain");
    // SetDefaults_HostPathVolumeSource: an unset type is stored as "".
    assert_eq!(disk["spec"]["hostPath"]["type"], "");
    // A Released volume does not bind the waiting claim.
    let second = c
        .get(Kind::PersistentVolumeClaim, "default", "second")
        .unwrap()
        .to_json();
    assert_eq!(second["status"]["phase"], "Pending");
}

/// kind makes its default StorageClass with `kubectl apply`: the class carries the
/// last-applied configuration beside the default-class annotation.
#[test]
fn the_default_class_is_stored_as_kind_applied_it() {
    let c = Cluster::new(1, Topology::default());
    let class = c.get(Kind::StorageClass, "", "standard").unwrap().to_json();
    let annotations = &class["metadata"]["annotations"];
    assert_eq!(
        annotations["storageclass.kubernetes.io/is-default-class"],
        "true"
    );
    assert_eq!(
        annotations["kubectl.kubernetes.io/last-applied-configuration"],
        "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{\"annotations\":{\"storageclass.kubernetes.io/is-default-class\":\"true\"},\"name\":\"standard\"},\"provisioner\":\"rancher.io/local-path\",\"reclaimPolicy\":\"Delete\",\"volumeBindingMode\":\"WaitForFirstConsumer\"}\n"
    );
}

#[test]
fn a_pod_whose_claim_is_missing_is_not_scheduled() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: data\nspec:\n  containers:\n  - name: c\n    image: busybox:1.36\n    command: [sleep, \"3600\"]\n  volumes:\n  - name: d\n    persistentVolumeClaim:\n      claimName: nowhere\n",
    );
    c.advance(SimDuration::secs(5));
    let pod = c.get(Kind::Pod, "default", "data").unwrap().to_json();
    assert_eq!(
        pod["status"]["conditions"][0]["message"],
        "0/4 nodes are available: persistentvolumeclaim \"nowhere\" not found. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    );
}

#[test]
fn a_pod_on_a_lost_zone_is_not_made_twice() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &set("", 3));
    c.advance(SimDuration::secs(60));
    let node = c.get(Kind::Pod, "default", "web-1").unwrap().to_json()["spec"]["nodeName"]
        .as_str()
        .unwrap()
        .to_string();
    c.fault(Fault::KillNode(node)).unwrap();
    // Past the 300 s toleration: the taint manager deletes web-1, but its kubelet
    // never confirms, so it stays Terminating and no second web-1 is made.
    c.advance(SimDuration::secs(600));
    let now = pods(&c);
    assert_eq!(now.len(), 3, "{now:?}");
    assert!(now[1].2, "web-1 is Terminating: {now:?}");
    // Removing the node object lets the pod go; then web-1 is made again.
    let node = c.get(Kind::Pod, "default", "web-1").unwrap().to_json()["spec"]["nodeName"]
        .as_str()
        .unwrap()
        .to_string();
    c.delete(Kind::Node, "", &node).unwrap();
    c.advance(SimDuration::secs(120));
    let now = pods(&c);
    assert_eq!(now.len(), 3, "{now:?}");
    assert!(!now[1].2, "a new web-1: {now:?}");
    let p = c.get(Kind::Pod, "default", "web-1").unwrap().to_json();
    assert_ne!(p["spec"]["nodeName"], node.as_str());
}

#[test]
fn the_apiserver_checks_the_spec_and_what_may_change() {
    let mut c = Cluster::new(1, Topology::default());
    let refuse = |c: &mut Cluster, manifest: &str| {
        let obj = decode_manifests(manifest).unwrap().remove(0);
        c.create(obj).unwrap_err().message
    };
    let never = set("", 1).replace(
        "      containers:\n",
        "      restartPolicy: Never\n      containers:\n",
    );
    assert!(
        refuse(&mut c, &never).contains(
            "spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\""
        ),
    );
    let mismatch = set("", 1).replace(
        "      labels:\n        app: nginx\n",
        "      labels:\n        app: other\n",
    );
    assert!(refuse(&mut c, &mismatch).contains("`selector` does not match template `labels`"));
    let policy = set("  podManagementPolicy: Sometimes\n", 1);
    assert!(refuse(&mut c, &policy)
        .contains("spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'"));
    create(&mut c, &set("", 1));
    let mut sts = c
        .get(Kind::StatefulSet, "default", "web")
        .unwrap()
        .to_json();
    sts["spec"]["serviceName"] = "other".into();
    let e = c
        .update(warehouse_sim::Object::from_json(Kind::StatefulSet, sts).unwrap())
        .unwrap_err();
    assert!(
        e.message.contains(
            "spec: Forbidden: updates to statefulset spec for fields other than 'replicas'"
        ),
        "{}",
        e.message
    );
}

#[test]
fn a_set_made_again_after_an_orphaning_delete_adopts_its_pods_and_revision() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &set("", 2));
    c.advance(SimDuration::secs(60));
    let uids = |c: &Cluster| -> Vec<String> {
        ["web-0", "web-1"]
            .iter()
            .map(|n| {
                let p = c.get(Kind::Pod, "default", n).unwrap();
                p.meta().uid.clone().unwrap()
            })
            .collect()
    };
    let before = uids(&c);
    let revision = status(&c, "updateRevision");
    c.delete_with(
        Kind::StatefulSet,
        "default",
        "web",
        warehouse_sim::DeleteOptions {
            grace_period_seconds: None,
            propagation: warehouse_sim::Propagation::Orphan,
        },
    )
    .unwrap();
    c.advance(SimDuration::secs(10));
    let owners = |c: &Cluster, kind: Kind, name: &str| {
        c.get(kind, "default", name)
            .unwrap()
            .meta()
            .owner_references
            .clone()
            .unwrap_or_default()
    };
    assert!(owners(&c, Kind::Pod, "web-0").is_empty(), "orphaned");
    create(&mut c, &set("", 2));
    c.advance(SimDuration::secs(10));
    // The same pods, now the new set's, and the same revision: nothing is made again.
    assert_eq!(uids(&c), before);
    let uid = c
        .get(Kind::StatefulSet, "default", "web")
        .unwrap()
        .meta()
        .uid
        .clone()
        .unwrap();
    for name in ["web-0", "web-1"] {
        let refs = owners(&c, Kind::Pod, name);
        assert_eq!(refs.len(), 1, "{name}: {refs:?}");
        assert_eq!(refs[0].uid, uid);
        assert_eq!(refs[0].controller, Some(true));
    }
    let refs = owners(&c, Kind::ControllerRevision, revision.as_str().unwrap());
    assert_eq!(refs.len(), 1);
    assert_eq!(refs[0].uid, uid);
    assert_eq!(c.list(Kind::ControllerRevision, Some("default")).len(), 1);
    assert_eq!(status(&c, "readyReplicas"), 2);
    assert_eq!(status(&c, "currentRevision"), revision);
}
