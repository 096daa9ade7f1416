//! Deployments in depth: rolling-update bounds, rollback reusing the old ReplicaSet,
//! Recreate, minReadySeconds, proportional scaling, the progress deadline and
//! revision history cleanup (pkg/controller/deployment).

mod common;

use common::{create, deployment_of, REQUESTS};
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use warehouse_sim::{Cluster, Kind, Object, SimDuration, Topology};

fn web(replicas: i32, image: &str, extra_spec: &str) -> String {
    let pod_spec =
        format!("      containers:\n      - name: nginx\n        image: {image}\n{REQUESTS}");
    deployment_of("web", replicas, extra_spec, "{app: web}", &pod_spec)
}

fn deployment(c: &Cluster) -> Deployment {
    c.get(Kind::Deployment, "default", "web")
        .unwrap()
        .as_deployment()
        .unwrap()
        .clone()
}

/// Changes the Deployment's pod template as `kubectl set image` (or `rollout undo`)
/// would.
fn set_template(c: &mut Cluster, f: impl FnOnce(&mut Deployment)) {
    let mut d = deployment(c);
    f(&mut d);
    c.update(Object::Deployment(Box::new(d))).unwrap();
}

fn set_image(c: &mut Cluster, image: &str) {
    set_template(c, |d| {
        d.spec.template.spec.as_mut().unwrap().containers[0].image = Some(image.into())
    });
}

fn replica_sets(c: &Cluster) -> Vec<ReplicaSet> {
    c.list(Kind::ReplicaSet, Some("default"))
        .into_iter()
        .filter_map(|o| o.as_replica_set().cloned())
        .collect()
}

fn rs_with_image<'a>(rss: &'a [ReplicaSet], image: &str) -> &'a ReplicaSet {
    rss.iter()
        .find(|rs| {
            rs.spec
                .template
                .as_ref()
                .unwrap()
                .spec
                .as_ref()
                .unwrap()
                .containers[0]
                .image
                .as_deref()
                == Some(image)
        })
        .unwrap_or_else(|| panic!("no ReplicaSet runs {image}"))
}

fn annotation(rs: &ReplicaSet, key: &str) -> Option<String> {
    rs.metadata.annotations.as_ref()?.get(key).cloned()
}

/// (pods not terminating nor finished, ready ones among them, terminating ones)
fn pod_counts(c: &Cluster) -> (usize, usize, usize) {
    let (mut active, mut ready, mut terminating) = (0, 0, 0);
    for o in c.list(Kind::Pod, Some("default")) {
        let p = o.as_pod().unwrap();
        if p.metadata.deletion_timestamp.is_some() {
            terminating += 1;
            continue;
        }
        active += 1;
        if warehouse_sim::controllers::pod_is_ready(p) {
            ready += 1;
        }
    }
    (active, ready, terminating)
}

fn condition(d: &Deployment, type_: &str) -> (String, String, String) {
    let c = d
        .status
        .as_ref()
        .unwrap()
        .conditions
        .as_ref()
        .unwrap()
        .iter()
        .find(|c| c.type_.as_deref() == Some(type_))
        .unwrap();
    (
        c.status.clone().unwrap(),
        c.reason.clone().unwrap(),
        c.message.clone().unwrap(),
    )
}

#[test]
fn rolling_update_of_ten_replicas_stays_within_surge_and_unavailable() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web(10, "nginx:1.26", ""));
    c.advance(SimDuration::secs(30));
    assert_eq!(pod_counts(&c), (10, 10, 0));
    set_image(&mut c, "nginx:1.27");
    // 10 replicas: maxSurge 25% rounds up to 3, maxUnavailable 25% down to 2. Pods
    // being deleted no longer count (a ReplicaSet counts only active pods).
    let mut max_active = 0;
    let mut min_ready = usize::MAX;
    let mut saw_terminating = false;
    for _ in 0..120 {
        c.advance(SimDuration::secs(1));
        let (active, ready, terminating) = pod_counts(&c);
        max_active = max_active.max(active);
        min_ready = min_ready.min(ready);
        saw_terminating |= terminating > 0;
        assert!(active <= 13, "{active} pods at {:?}", c.now());
        assert!(ready >= 8, "only {ready} available at {:?}", c.now());
    }
    assert_eq!(max_active, 13, "the surge is used");
    assert!(
        min_ready <= 9,
        "old pods went before new ones were all ready"
    );
    assert!(saw_terminating);
    let d = deployment(&c);
    let s = d.status.clone().unwrap();
    assert_eq!(
        (s.replicas, s.updated_replicas, s.available_replicas),
        (Some(10), Some(10), Some(10))
    );
    assert_eq!(condition(&d, "Progressing").1, "NewReplicaSetAvailable");
    assert_eq!(
        d.metadata.annotations.as_ref().unwrap()["deployment.kubernetes.io/revision"],
        "2"
    );
}

#[test]
fn undo_returns_to_the_old_replica_set_with_the_next_revision() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web(4, "nginx:1.26", ""));
    c.advance(SimDuration::secs(30));
    let first = replica_sets(&c)[0].metadata.name.clone().unwrap();
    set_image(&mut c, "nginx:1.27");
    c.advance(SimDuration::secs(60));
    assert_eq!(replica_sets(&c).len(), 2);
    // What `kubectl rollout undo` writes: the old template back.
    set_image(&mut c, "nginx:1.26");
    c.advance(SimDuration::secs(60));
    let rss = replica_sets(&c);
    assert_eq!(rss.len(), 2, "no third ReplicaSet");
    let old = rs_with_image(&rss, "nginx:1.26");
    assert_eq!(old.metadata.name.clone().unwrap(), first);
    assert_eq!(old.spec.replicas, Some(4));
    assert_eq!(
        annotation(old, "deployment.kubernetes.io/revision").as_deref(),
        Some("3")
    );
    assert_eq!(
        annotation(old, "deployment.kubernetes.io/revision-history").as_deref(),
        Some("1")
    );
    assert_eq!(rs_with_image(&rss, "nginx:1.27").spec.replicas, Some(0));
    let d = deployment(&c);
    assert_eq!(
        d.metadata.annotations.as_ref().unwrap()["deployment.kubernetes.io/revision"],
        "3"
    );
}

#[test]
fn change_cause_is_copied_to_the_new_replica_set() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web(2, "nginx:1.26", ""));
    c.advance(SimDuration::secs(20));
    set_template(&mut c, |d| {
        d.metadata
            .annotations
            .get_or_insert_with(Default::default)
            .insert("kubernetes.io/change-cause".into(), "image 1.27".into());
        d.spec.template.spec.as_mut().unwrap().containers[0].image = Some("nginx:1.27".into());
    });
    c.advance(SimDuration::secs(30));
    let rss = replica_sets(&c);
    let new = rs_with_image(&rss, "nginx:1.27");
    assert_eq!(
        annotation(new, "kubernetes.io/change-cause").as_deref(),
        Some("image 1.27")
    );
    assert_eq!(
        annotation(new, "deployment.kubernetes.io/desired-replicas").as_deref(),
        Some("2")
    );
    assert_eq!(
        annotation(new, "deployment.kubernetes.io/max-replicas").as_deref(),
        Some("3")
    );
}

#[test]
fn recreate_removes_every_old_pod_before_creating_new_ones() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        &web(3, "nginx:1.26", "  strategy:\n    type: Recreate\n"),
    );
    c.advance(SimDuration::secs(30));
    set_image(&mut c, "nginx:1.27");
    let mut saw_gap = false;
    for _ in 0..3000 {
        c.advance(SimDuration::millis(10));
        let pods: Vec<_> = c
            .list(Kind::Pod, Some("default"))
            .into_iter()
            .map(|o| o.as_pod().unwrap().clone())
            .collect();
        let images: std::collections::BTreeSet<String> = pods
            .iter()
            .map(|p| {
                p.spec.as_ref().unwrap().containers[0]
                    .image
                    .clone()
                    .unwrap()
            })
            .collect();
        assert!(images.len() <= 1, "old and new pods together: {images:?}");
        saw_gap |= pods.is_empty();
    }
    assert!(saw_gap, "a moment without pods");
    assert_eq!(pod_counts(&c), (3, 3, 0));
}

#[test]
fn min_ready_seconds_delays_availability_without_polling() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web(2, "nginx:1.26", "  minReadySeconds: 20\n"));
    c.advance(SimDuration::secs(10));
    let s = deployment(&c).status.unwrap();
    assert_eq!(s.ready_replicas, Some(2));
    assert_eq!(s.available_replicas, None);
    assert_eq!(condition(&deployment(&c), "Available").0, "False");
    c.advance(SimDuration::secs(20));
    let d = deployment(&c);
    assert_eq!(d.status.as_ref().unwrap().available_replicas, Some(2));
    assert_eq!(condition(&d, "Available").1, "MinimumReplicasAvailable");
    assert_eq!(condition(&d, "Progressing").1, "NewReplicaSetAvailable");
}

#[test]
fn scaling_mid_rollout_is_proportional() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web(10, "nginx:1.26", ""));
    c.advance(SimDuration::secs(30));
    // The new pods can never be scheduled: the rollout stops at old 8, new 5.
    set_template(&mut c, |d| {
        let spec = d.spec.template.spec.as_mut().unwrap();
        spec.containers[0].image = Some("nginx:1.27".into());
        spec.node_selector = Some([("disktype".to_string(), "ssd".to_string())].into());
    });
    c.advance(SimDuration::secs(30));
    let rss = replica_sets(&c);
    assert_eq!(rs_with_image(&rss, "nginx:1.26").spec.replicas, Some(8));
    assert_eq!(rs_with_image(&rss, "nginx:1.27").spec.replicas, Some(5));
    set_template(&mut c, |d| d.spec.replicas = Some(20));
    c.advance(SimDuration::secs(30));
    // 25 allowed (20 + surge 5) share out as 8:5 of the 13 before: 15 and 10.
    let rss = replica_sets(&c);
    assert_eq!(rs_with_image(&rss, "nginx:1.26").spec.replicas, Some(15));
    assert_eq!(rs_with_image(&rss, "nginx:1.27").spec.replicas, Some(10));
    assert_eq!(
        annotation(
            rs_with_image(&rss, "nginx:1.26"),
            "deployment.kubernetes.io/desired-replicas"
        )
        .as_deref(),
        Some("20")
    );
}

#[test]
fn a_rollout_without_progress_exceeds_its_deadline() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        &web(2, "nginx:1.26", "  progressDeadlineSeconds: 60\n"),
    );
    c.advance(SimDuration::secs(30));
    set_template(&mut c, |d| {
        let spec = d.spec.template.spec.as_mut().unwrap();
        spec.containers[0].image = Some("nginx:1.27".into());
        spec.node_selector = Some([("disktype".to_string(), "ssd".to_string())].into());
    });
    c.advance(SimDuration::secs(50));
    assert_eq!(condition(&deployment(&c), "Progressing").0, "True");
    c.advance(SimDuration::secs(20));
    let d = deployment(&c);
    let (status, reason, message) = condition(&d, "Progressing");
    assert_eq!(
        (status.as_str(), reason.as_str()),
        ("False", "ProgressDeadlineExceeded")
    );
    let new = rs_with_image(&replica_sets(&c), "nginx:1.27")
        .metadata
        .name
        .clone()
        .unwrap();
    assert_eq!(
        message,
        format!("ReplicaSet \"{new}\" has timed out progressing.")
    );
    // The old pods keep serving.
    assert_eq!(condition(&d, "Available").0, "True");
}

#[test]
fn paused_deployments_scale_but_do_not_roll() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web(2, "nginx:1.26", ""));
    c.advance(SimDuration::secs(20));
    set_template(&mut c, |d| d.spec.paused = Some(true));
    c.advance(SimDuration::secs(1));
    assert_eq!(
        condition(&deployment(&c), "Progressing").1,
        "DeploymentPaused"
    );
    set_template(&mut c, |d| {
        d.spec.template.spec.as_mut().unwrap().containers[0].image = Some("nginx:1.27".into());
        d.spec.replicas = Some(4);
    });
    c.advance(SimDuration::secs(20));
    let rss = replica_sets(&c);
    assert_eq!(rss.len(), 1);
    assert_eq!(rss[0].spec.replicas, Some(4));
    set_template(&mut c, |d| d.spec.paused = None);
    c.advance(SimDuration::secs(60));
    let rss = replica_sets(&c);
    assert_eq!(rs_with_image(&rss, "nginx:1.27").spec.replicas, Some(4));
    assert_eq!(
        condition(&deployment(&c), "Progressing").1,
        "NewReplicaSetAvailable"
    );
}

#[test]
fn revision_history_limit_deletes_the_oldest_empty_replica_sets() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web(1, "nginx:1.20", "  revisionHistoryLimit: 2\n"));
    c.advance(SimDuration::secs(20));
    for v in 21..=25 {
        set_image(&mut c, &format!("nginx:1.{v}"));
        c.advance(SimDuration::secs(30));
    }
    let mut revisions: Vec<String> = replica_sets(&c)
        .iter()
        .map(|rs| annotation(rs, "deployment.kubernetes.io/revision").unwrap())
        .collect();
    revisions.sort();
    assert_eq!(revisions, ["4", "5", "6"]);
}

const FRONTEND_RS: &str = "apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: frontend
spec:
  replicas: 3
  selector:
    matchLabels: {tier: frontend}
  template:
    metadata:
      labels: {tier: frontend}
    spec:
      containers:
      - name: php
        image: nginx:1.27
";

const BARE_POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: stray
  labels: {tier: frontend}
spec:
  containers:
  - name: php
    image: nginx:1.27
";

fn controller_name(c: &Cluster, pod: &str) -> Option<String> {
    let p = c.get(Kind::Pod, "default", pod).unwrap();
    p.as_pod()
        .unwrap()
        .metadata
        .owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true))
        .map(|r| r.name.clone())
}

#[test]
fn a_replica_set_adopts_a_matching_orphan_pod_and_creates_fewer() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, BARE_POD);
    c.advance(SimDuration::secs(10));
    create(&mut c, FRONTEND_RS);
    c.advance(SimDuration::secs(10));
    assert_eq!(controller_name(&c, "stray").as_deref(), Some("frontend"));
    assert_eq!(pod_counts(&c).0, 3, "two created, one adopted");
    // A bare pod created later is adopted too, and the surplus pod deleted.
    create(&mut c, &BARE_POD.replace("stray", "late"));
    c.advance(SimDuration::secs(10));
    assert_eq!(pod_counts(&c).0, 3);
}

#[test]
fn a_pod_relabelled_out_of_the_selector_is_released_and_replaced() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, FRONTEND_RS);
    c.advance(SimDuration::secs(10));
    let name = c.list(Kind::Pod, Some("default"))[0].name().to_string();
    let mut pod = c.get(Kind::Pod, "default", &name).unwrap();
    if let Object::Pod(p) = &mut pod {
        p.metadata
            .labels
            .as_mut()
            .unwrap()
            .insert("tier".into(), "debug".into());
    }
    c.update(pod).unwrap();
    c.advance(SimDuration::secs(10));
    assert_eq!(controller_name(&c, &name), None, "released");
    assert_eq!(
        pod_counts(&c).0,
        4,
        "three for the ReplicaSet and the released one"
    );
}

#[test]
fn a_pod_created_with_a_controller_reference_it_does_not_match_is_released() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, FRONTEND_RS);
    c.advance(SimDuration::secs(10));
    let Ok(Object::ReplicaSet(rs)) = c.get(Kind::ReplicaSet, "default", "frontend") else {
        panic!("frontend is a ReplicaSet");
    };
    let uid = rs.metadata.uid.unwrap();
    // A pod that names the ReplicaSet as its controller but carries other labels:
    // the ReplicaSet's next claim lets it go.
    let pod = BARE_POD.replace("stray", "claimed").replace("tier: frontend", "tier: backend").replace(
        "  labels:",
        &format!("  ownerReferences:\n  - {{apiVersion: apps/v1, kind: ReplicaSet, name: frontend, uid: {uid}, controller: true}}\n  labels:"),
    );
    create(&mut c, &pod);
    assert_eq!(controller_name(&c, "claimed").as_deref(), Some("frontend"));
    c.advance(SimDuration::secs(10));
    assert_eq!(controller_name(&c, "claimed"), None, "released");
    assert_eq!(
        pod_counts(&c).0,
        4,
        "three for the ReplicaSet and the released one"
    );
}

#[test]
fn a_deployment_adopts_the_replica_set_an_orphaning_delete_left_behind() {
    let mut c = Cluster::new(1, Topology::default());
    let manifest = web(3, "nginx:1.26", "");
    create(&mut c, &manifest);
    c.advance(SimDuration::secs(30));
    let before = replica_sets(&c);
    let pods_before: Vec<String> = c
        .list(Kind::Pod, Some("default"))
        .iter()
        .map(|o| o.name().to_string())
        .collect();
    c.delete_with(
        Kind::Deployment,
        "default",
        "web",
        warehouse_sim::DeleteOptions {
            grace_period_seconds: None,
            propagation: warehouse_sim::Propagation::Orphan,
        },
    )
    .unwrap();
    c.advance(SimDuration::secs(10));
    assert!(
        replica_sets(&c)[0].metadata.owner_references.is_none(),
        "orphaned"
    );
    create(&mut c, &manifest);
    c.advance(SimDuration::secs(10));
    let after = replica_sets(&c);
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].metadata.name, before[0].metadata.name);
    let owner = &after[0].metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(owner.uid, deployment(&c).metadata.uid.unwrap());
    let pods_after: Vec<String> = c
        .list(Kind::Pod, Some("default"))
        .iter()
        .map(|o| o.name().to_string())
        .collect();
    assert_eq!(pods_after, pods_before, "the same pods keep running");
    assert_eq!(condition(&deployment(&c), "Available").0, "True");
}

#[test]
fn a_refused_pod_creation_shows_as_replica_failure_until_it_succeeds() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: v1
kind: ResourceQuota
metadata:
  name: pods
spec:
  hard:
    pods: \"2\"
",
    );
    c.advance(SimDuration::secs(1));
    create(&mut c, &web(3, "nginx:1.26", ""));
    c.advance(SimDuration::secs(20));
    let rs = replica_sets(&c)[0].clone();
    let cond = rs.status.as_ref().unwrap().conditions.as_ref().unwrap()[0].clone();
    assert_eq!(cond.type_.as_deref(), Some("ReplicaFailure"));
    assert_eq!(cond.reason.as_deref(), Some("FailedCreate"));
    assert!(
        cond.message
            .as_deref()
            .unwrap()
            .contains("exceeded quota: pods"),
        "{cond:?}"
    );
    let (status, reason, message) = condition(&deployment(&c), "ReplicaFailure");
    assert_eq!((status.as_str(), reason.as_str()), ("True", "FailedCreate"));
    assert_eq!(Some(message), cond.message);
    // With room again, the next retry succeeds and the condition goes.
    let mut quota = c.get(Kind::ResourceQuota, "default", "pods").unwrap();
    if let Object::ResourceQuota(q) = &mut quota {
        q.spec.as_mut().unwrap().hard.as_mut().unwrap().insert(
            "pods".into(),
            k8s_openapi::apimachinery::pkg::api::resource::Quantity("5".into()),
        );
    }
    c.update(quota).unwrap();
    c.advance(SimDuration::secs(120));
    let d = deployment(&c);
    assert!(d
        .status
        .as_ref()
        .unwrap()
        .conditions
        .as_ref()
        .unwrap()
        .iter()
        .all(|c| c.type_.as_deref() != Some("ReplicaFailure")));
    assert_eq!(d.status.unwrap().available_replicas, Some(3));
}

#[test]
fn a_foreign_replica_set_holding_the_name_bumps_the_collision_count() {
    let mut c = Cluster::new(1, Topology::default());
    let manifest = web(1, "nginx:1.26", "");
    create(&mut c, &manifest);
    c.advance(SimDuration::secs(10));
    let taken = replica_sets(&c)[0].metadata.name.clone().unwrap();
    c.delete(Kind::Deployment, "default", "web").unwrap();
    c.advance(SimDuration::secs(40));
    assert!(replica_sets(&c).is_empty());
    // Someone else's ReplicaSet (other labels) takes the name.
    create(
        &mut c,
        &format!(
            "apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: {taken}
spec:
  replicas: 0
  selector:
    matchLabels: {{app: other}}
  template:
    metadata:
      labels: {{app: other}}
    spec:
      containers:
      - name: c
        image: busybox:1.36
"
        ),
    );
    create(&mut c, &manifest);
    c.advance(SimDuration::secs(20));
    let d = deployment(&c);
    assert_eq!(d.status.as_ref().unwrap().collision_count, Some(1));
    let rss = replica_sets(&c);
    assert_eq!(rss.len(), 2);
    let ours = rs_with_image(&rss, "nginx:1.26");
    assert_ne!(ours.metadata.name.clone().unwrap(), taken);
    assert_eq!(d.status.unwrap().available_replicas, Some(1));
}
