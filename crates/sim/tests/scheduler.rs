//! The scheduler: its decision record (raw, normalised and weighted scores), topology
//! spread, and the scheduling queue (retries on cluster events, not on a timer loop).

mod common;

use common::{cluster_with, create};
use warehouse_sim::{Cluster, Kind, NodeSpec, Object, ObjectKey, SimDuration, Topology};

/// (plugin, raw, normalised, weight).
type Score = (&'static str, i64, i64, i64);

fn pod_key(name: &str) -> ObjectKey {
    ObjectKey::new(Kind::Pod, "default", name)
}

fn node_of(c: &Cluster, name: &str) -> Option<String> {
    common::pod_node(c, "default", name)
}

fn filler(name: &str, node: &str, cpu: &str, memory: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  nodeName: {node}
  containers:
  - name: app
    image: busybox:1.36
    resources:
      requests: {{cpu: {cpu}, memory: {memory}}}
"
    )
}

fn worker(name: &str, labels: &[(&str, &str)]) -> NodeSpec {
    let mut spec = NodeSpec::worker(name);
    for (k, v) in labels {
        spec.labels.insert(k.to_string(), v.to_string());
    }
    spec
}

#[test]
fn decision_record_has_each_plugins_raw_normalised_and_weighted_scores() {
    let mut c = Cluster::new(1, Topology::default());
    c.add_node(worker("node-1", &[("pool", "test")])).unwrap();
    c.add_node(worker("node-2", &[("pool", "test"), ("disk", "ssd")]))
        .unwrap();
    let mut n3 = worker("node-3", &[("pool", "test")]);
    n3.taints
        .push(("spot".into(), "true".into(), "PreferNoSchedule".into()));
    c.add_node(n3).unwrap();
    create(&mut c, &filler("fill-1", "node-1", "2", "2Gi"));
    create(&mut c, &filler("fill-2", "node-2", "1", "1Gi"));
    c.advance(SimDuration::secs(10));
    create(
        &mut c,
        "apiVersion: v1
kind: Pod
metadata:
  name: probe
spec:
  nodeSelector: {pool: test}
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 10
        preference:
          matchExpressions:
          - {key: disk, operator: In, values: [ssd]}
  containers:
  - name: app
    image: busybox:1.36
    resources:
      requests: {cpu: '1', memory: 1Gi}
",
    );
    c.advance(SimDuration::secs(1));
    let d = c.scheduling_decision(&pod_key("probe")).unwrap().clone();
    assert_eq!(d.chosen.as_deref(), Some("node-2"));
    assert_eq!(d.attempt, 1);
    assert_eq!(d.message, "Successfully assigned default/probe to node-2");
    let verdict = |n: &str| d.verdicts.iter().find(|v| v.node == n).unwrap().clone();
    for n in ["control-plane", "zone-a", "zone-b", "zone-c"] {
        let v = verdict(n);
        assert!(v.scores.is_empty(), "{n}");
        assert!(v.failed_plugin.is_some(), "{n}");
    }
    assert_eq!(
        verdict("zone-a").failed_plugin.as_deref(),
        Some("NodeAffinity")
    );
    assert_eq!(
        verdict("control-plane").failed_plugin.as_deref(),
        Some("TaintToleration")
    );
    // (plugin, raw, normalised, weight) per node, worked out by hand: node-1 has
    // kube-proxy (counted as 100m/200Mi for scoring) and 2 CPU/2Gi, node-2 1 CPU/1Gi
    // and disk=ssd, node-3 an untolerated PreferNoSchedule taint.
    let expect: [(&str, [Score; 5], i64); 3] = [
        (
            "node-1",
            [
                ("TaintToleration", 0, 100, 3),
                ("NodeAffinity", 0, 0, 2),
                ("NodeResourcesFit", 41, 41, 1),
                ("NodeResourcesBalancedAllocation", 81, 81, 1),
                ("ImageLocality", 0, 0, 1),
            ],
            422,
        ),
        (
            "node-2",
            [
                ("TaintToleration", 0, 100, 3),
                ("NodeAffinity", 10, 100, 2),
                ("NodeResourcesFit", 59, 59, 1),
                ("NodeResourcesBalancedAllocation", 87, 87, 1),
                ("ImageLocality", 0, 0, 1),
            ],
            646,
        ),
        (
            "node-3",
            [
                ("TaintToleration", 1, 0, 3),
                ("NodeAffinity", 0, 0, 2),
                ("NodeResourcesFit", 78, 78, 1),
                ("NodeResourcesBalancedAllocation", 93, 93, 1),
                ("ImageLocality", 0, 0, 1),
            ],
            171,
        ),
    ];
    for (node, scores, total) in expect {
        let v = verdict(node);
        assert_eq!(v.failed_plugin, None, "{node}");
        let got: Vec<(String, i64, i64, i64, i64)> = v
            .scores
            .iter()
            .map(|s| (s.plugin.clone(), s.raw, s.normalized, s.weight, s.weighted))
            .collect();
        let want: Vec<(String, i64, i64, i64, i64)> = scores
            .iter()
            .map(|(p, r, n, w)| (p.to_string(), *r, *n, *w, n * w))
            .collect();
        assert_eq!(got, want, "{node}");
        assert_eq!(v.total, total, "{node}");
    }
    // The record is plain data the web UI can serialise.
    let json = serde_json::to_string(&d).unwrap();
    assert!(json.contains("\"normalized\":100"));
}

#[test]
fn topology_spread_keeps_zones_within_max_skew() {
    let mut c = Cluster::new(1, Topology::default());
    for (n, z) in [("east-1", "east"), ("east-2", "east"), ("west-1", "west")] {
        c.add_node(worker(n, &[("topology.kubernetes.io/zone", z)]))
            .unwrap();
    }
    c.advance(SimDuration::secs(5));
    create(
        &mut c,
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 6
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
        labelSelector:
          matchLabels: {app: web}
      containers:
      - name: nginx
        image: nginx:1.27
",
    );
    c.advance(SimDuration::secs(20));
    let mut per_zone = std::collections::BTreeMap::<String, usize>::new();
    for o in c.list(Kind::Pod, Some("default")) {
        let node = o.as_pod().unwrap().spec.as_ref().unwrap().node_name.clone();
        let node = node.expect("every replica is placed");
        let zone = if node.starts_with("east") {
            "east"
        } else if node.starts_with("west") {
            "west"
        } else {
            panic!("{node} has no zone label and must be filtered out")
        };
        *per_zone.entry(zone.into()).or_default() += 1;
    }
    assert_eq!(per_zone.get("east"), Some(&3));
    assert_eq!(per_zone.get("west"), Some(&3));
}

const BIG: &str = "apiVersion: v1
kind: Pod
metadata:
  name: big
spec:
  containers:
  - name: app
    image: nginx:1.27
    resources:
      requests: {cpu: '6'}
";

#[test]
fn a_pending_pod_waits_for_a_cluster_event_not_a_timer_loop() {
    let mut c = cluster_with(BIG);
    c.advance(SimDuration::secs(60));
    let d = c.scheduling_decision(&pod_key("big")).unwrap();
    assert_eq!(d.attempt, 1, "no retry without a cluster event");
    assert!(d.message.contains("3 Insufficient cpu"), "{}", d.message);
    let (unschedulable, backoff) = c.scheduler_parked_pods();
    assert_eq!(unschedulable, vec![pod_key("big")]);
    assert!(backoff.is_empty());
    // podMaxInUnschedulablePodsDuration: one more attempt after 5 minutes.
    c.advance(SimDuration::secs(250));
    assert_eq!(c.scheduling_decision(&pod_key("big")).unwrap().attempt, 2);
    // A node that fits: NodeAdd moves the pod, its back-off has run out.
    let mut spec = NodeSpec::worker("zone-big");
    spec.cpu_milli = 8000;
    c.add_node(spec).unwrap();
    c.advance(SimDuration::millis(500));
    assert_eq!(node_of(&c, "big").as_deref(), Some("zone-big"));
    assert_eq!(c.scheduling_decision(&pod_key("big")).unwrap().attempt, 3);
}

#[test]
fn a_moved_pod_waits_out_its_backoff_first() {
    let mut c = cluster_with(BIG);
    c.advance(SimDuration::millis(200));
    assert_eq!(c.scheduling_decision(&pod_key("big")).unwrap().attempt, 1);
    let mut spec = NodeSpec::worker("zone-big");
    spec.cpu_milli = 8000;
    c.add_node(spec).unwrap();
    // The first failure's back-off is 1 s: the pod waits in the backoffQ.
    c.advance(SimDuration::millis(300));
    assert_eq!(node_of(&c, "big"), None);
    let (_, backoff) = c.scheduler_parked_pods();
    assert_eq!(backoff, vec![pod_key("big")]);
    c.advance(SimDuration::secs(1));
    assert_eq!(node_of(&c, "big").as_deref(), Some("zone-big"));
}

#[test]
fn uncordoning_a_node_retries_the_pending_pods() {
    let mut c = Cluster::new(1, Topology::default());
    for n in ["zone-a", "zone-b", "zone-c"] {
        let Object::Node(mut node) = c.get(Kind::Node, "", n).unwrap() else {
            panic!()
        };
        node.spec.get_or_insert_with(Default::default).unschedulable = Some(true);
        c.update(Object::Node(node)).unwrap();
    }
    c.advance(SimDuration::secs(1));
    // The node lifecycle controller taints cordoned nodes.
    assert!(common::node_taints(&c, "zone-b")
        .iter()
        .any(|t| t.key == "node.kubernetes.io/unschedulable" && t.effect == "NoSchedule"));
    create(&mut c, &BIG.replace("cpu: '6'", "cpu: '1'"));
    c.advance(SimDuration::secs(30));
    let d = c.scheduling_decision(&pod_key("big")).unwrap();
    assert!(
        d.message.contains("3 node(s) were unschedulable"),
        "{}",
        d.message
    );
    let Object::Node(mut node) = c.get(Kind::Node, "", "zone-b").unwrap() else {
        panic!()
    };
    node.spec.get_or_insert_with(Default::default).unschedulable = None;
    c.update(Object::Node(node)).unwrap();
    // The scheduler may try once while the node still carries the unschedulable
    // taint; the taint's removal moves the pod again, after its back-off.
    c.advance(SimDuration::secs(3));
    assert_eq!(node_of(&c, "big").as_deref(), Some("zone-b"));
    c.advance(SimDuration::secs(1));
    assert!(common::node_taints(&c, "zone-b").is_empty());
}

#[test]
fn pods_asking_for_gpus_go_where_the_gpus_are() {
    let mut c = Cluster::new(1, Topology::default());
    let mut spec = NodeSpec::worker("gpu-1");
    spec.gpus = 2;
    c.add_node(spec).unwrap();
    let pod = |name: &str, gpus: u32| {
        format!(
            "apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
  - name: app
    image: nginx:1.27
    resources:
      limits: {{nvidia.com/gpu: {gpus}}}
"
        )
    };
    create(&mut c, &pod("one", 1));
    create(&mut c, &pod("two", 1));
    create(&mut c, &pod("three", 1));
    c.advance(SimDuration::secs(2));
    // Same priority and creation time: the queue takes them by name, so "two" is
    // last and finds both GPUs taken.
    assert_eq!(node_of(&c, "one").as_deref(), Some("gpu-1"));
    assert_eq!(node_of(&c, "three").as_deref(), Some("gpu-1"));
    assert_eq!(node_of(&c, "two"), None);
    let d = c.scheduling_decision(&pod_key("two")).unwrap();
    assert_eq!(
        d.message,
        "0/5 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 4 Insufficient nvidia.com/gpu. preemption: 0/5 nodes are available: 1 Preemption is not helpful for scheduling, 4 No preemption victims found for incoming pod."
    );
}

#[test]
fn the_eviction_subresource_marks_and_deletes_the_pod() {
    let mut c = cluster_with(&BIG.replace("cpu: '6'", "cpu: 100m"));
    c.advance(SimDuration::secs(10));
    use warehouse_sim::apiserver::request::{Body, Credentials, Request};
    let evict = |creds: &Credentials, name: &str, grace| {
        let body = Body::Evict {
            namespace: "default".into(),
            name: name.into(),
            grace_period_seconds: grace,
        };
        Request::new(creds, body)
    };
    let jane = Credentials::admin().impersonating("jane", &[]);
    let denied = c.handle(evict(&jane, "big", None)).unwrap_err();
    assert_eq!(denied.reason, warehouse_sim::StatusReason::Forbidden);
    assert!(
        denied
            .message
            .contains("cannot create resource \"pods/eviction\""),
        "{}",
        denied.message
    );
    let admin = Credentials::admin();
    let missing = c.handle(evict(&admin, "nope", None)).unwrap_err();
    assert_eq!(missing.message, "pods \"nope\" not found");
    c.handle(evict(&admin, "big", Some(5))).unwrap();
    let pod = c.get(Kind::Pod, "default", "big").unwrap();
    let pod = pod.as_pod().unwrap();
    assert!(pod.metadata.deletion_timestamp.is_some());
    let cond = pod
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "DisruptionTarget"))
        .cloned()
        .unwrap();
    assert_eq!(cond.reason.as_deref(), Some("EvictionByEvictionAPI"));
    assert_eq!(cond.message.as_deref(), Some("Eviction API: evicting"));
    c.advance(SimDuration::secs(6));
    assert!(c.get(Kind::Pod, "default", "big").is_err());
}

#[test]
fn updating_a_pending_pod_sends_it_back_to_the_queue() {
    let mut c = Cluster::new(1, Topology::default());
    for n in ["zone-a", "zone-b", "zone-c"] {
        let Object::Node(mut node) = c.get(Kind::Node, "", n).unwrap() else {
            panic!()
        };
        node.spec.get_or_insert_with(Default::default).taints =
            Some(vec![k8s_openapi::api::core::v1::Taint {
                key: "dedicated".into(),
                value: Some("db".into()),
                effect: "NoSchedule".into(),
                time_added: None,
            }]);
        c.update(Object::Node(node)).unwrap();
    }
    create(&mut c, &BIG.replace("cpu: '6'", "cpu: 100m"));
    c.advance(SimDuration::secs(30));
    assert_eq!(node_of(&c, "big"), None);
    let attempts = c.scheduling_decision(&pod_key("big")).unwrap().attempt;
    // Adding a toleration is an update the scheduler reacts to.
    let Object::Pod(mut pod) = c.get(Kind::Pod, "default", "big").unwrap() else {
        panic!()
    };
    pod.spec
        .as_mut()
        .unwrap()
        .tolerations
        .get_or_insert_with(Vec::new)
        .push(k8s_openapi::api::core::v1::Toleration {
            key: Some("dedicated".into()),
            operator: Some("Equal".into()),
            value: Some("db".into()),
            effect: Some("NoSchedule".into()),
            toleration_seconds: None,
        });
    c.update(Object::Pod(pod)).unwrap();
    c.advance(SimDuration::millis(100));
    assert!(node_of(&c, "big").is_some());
    assert_eq!(
        c.scheduling_decision(&pod_key("big")).unwrap().attempt,
        attempts + 1
    );
}
