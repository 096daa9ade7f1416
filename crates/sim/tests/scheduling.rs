//! Scheduling breadth: inter-pod affinity and anti-affinity (upstream
//! pkg/scheduler/framework/plugins/interpodaffinity), with the messages and
//! placements upstream gives.

mod common;

use common::create;
use warehouse_sim::{Cluster, Kind, Object, ObjectKey, SimDuration, Topology};

fn node_of(c: &Cluster, ns: &str, name: &str) -> Option<String> {
    common::pod_node(c, ns, name)
}

fn pods_of(c: &Cluster, ns: &str, prefix: &str) -> Vec<(String, Option<String>)> {
    c.list(Kind::Pod, Some(ns))
        .iter()
        .filter_map(Object::as_pod)
        .filter(|p| p.metadata.name.as_deref().unwrap_or("").starts_with(prefix))
        .map(|p| {
            (
                p.metadata.name.clone().unwrap_or_default(),
                p.spec.as_ref().and_then(|s| s.node_name.clone()),
            )
        })
        .collect()
}

fn message(c: &Cluster, ns: &str, name: &str) -> String {
    c.scheduling_decision(&ObjectKey::new(Kind::Pod, ns, name))
        .map(|d| d.message.clone())
        .unwrap_or_default()
}

fn pod(name: &str, labels: &str, extra: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels: {labels}
spec:
{extra}  containers:
  - name: app
    image: nginx:1.27
"
    )
}

fn deployment(name: &str, replicas: usize, affinity: &str) -> String {
    let pod_spec =
        format!("      affinity:\n{affinity}      containers:\n      - name: app\n        image: nginx:1.27\n");
    common::deployment_of(name, replicas, "", &format!("{{app: {name}}}"), &pod_spec)
}

const ANTI_SELF_BY_HOST: &str = "        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels: {app: web}
            topologyKey: kubernetes.io/hostname
";

#[test]
fn required_anti_affinity_puts_one_replica_per_zone_and_the_rest_wait() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(5));
    create(&mut c, &deployment("web", 4, ANTI_SELF_BY_HOST));
    c.advance(SimDuration::secs(20));
    let pods = pods_of(&c, "default", "web-");
    let mut nodes: Vec<String> = pods.iter().filter_map(|(_, n)| n.clone()).collect();
    nodes.sort();
    assert_eq!(nodes, ["zone-a", "zone-b", "zone-c"], "{pods:?}");
    let (pending, _) = pods.iter().find(|(_, n)| n.is_none()).unwrap();
    // Upstream's FitError: the control plane's taint, then InterPodAffinity's
    // Unschedulable reason on the three workers (evicting pods could help, so
    // preemption looks and finds no lower-priority victims).
    assert_eq!(
        message(&c, "default", pending),
        "0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 3 node(s) didn't match pod anti-affinity rules. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod."
    );
}

const NEAR_CACHE: &str = "  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchLabels: {app: cache}
        topologyKey: kubernetes.io/hostname
";

#[test]
fn required_affinity_waits_for_its_partner_then_joins_it() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(5));
    create(&mut c, &pod("app", "{app: web}", NEAR_CACHE));
    c.advance(SimDuration::secs(5));
    assert_eq!(node_of(&c, "default", "app"), None);
    // Affinity failures are UnschedulableAndUnresolvable: preemption cannot help.
    assert_eq!(
        message(&c, "default", "app"),
        "0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 3 node(s) didn't match pod affinity rules. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    );
    // The partner arrives on zone-b (AssignedPodAdd moves the waiting pod).
    create(
        &mut c,
        &pod(
            "cache",
            "{app: cache}",
            "  nodeSelector: {kubernetes.io/hostname: zone-b}\n",
        ),
    );
    c.advance(SimDuration::secs(15));
    assert_eq!(node_of(&c, "default", "cache").as_deref(), Some("zone-b"));
    assert_eq!(node_of(&c, "default", "app").as_deref(), Some("zone-b"));
}

#[test]
fn the_first_pod_of_a_group_with_affinity_to_itself_may_schedule() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(5));
    let together = "        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels: {app: pack}
            topologyKey: kubernetes.io/hostname
";
    create(&mut c, &deployment("pack", 3, together));
    c.advance(SimDuration::secs(20));
    let nodes: Vec<Option<String>> = pods_of(&c, "default", "pack-")
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    assert_eq!(nodes.len(), 3);
    assert!(nodes[0].is_some());
    assert!(nodes.iter().all(|n| n == &nodes[0]), "{nodes:?}");
}

#[test]
fn an_existing_pods_anti_affinity_keeps_the_incoming_pod_away() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(5));
    let loner = "  nodeSelector: {kubernetes.io/hostname: zone-a}
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchLabels: {app: noisy}
        topologyKey: kubernetes.io/hostname
";
    create(&mut c, &pod("loner", "{app: quiet}", loner));
    c.advance(SimDuration::secs(5));
    assert_eq!(node_of(&c, "default", "loner").as_deref(), Some("zone-a"));
    let pinned = "  nodeSelector: {kubernetes.io/hostname: zone-a}\n";
    create(&mut c, &pod("noisy", "{app: noisy}", pinned));
    c.advance(SimDuration::secs(5));
    assert_eq!(node_of(&c, "default", "noisy"), None);
    assert_eq!(
        message(&c, "default", "noisy"),
        "0/4 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
    );
    // The control plane fails TaintToleration before NodeAffinity is asked.
    // Unpinned, it goes anywhere else.
    create(&mut c, &pod("noisy-2", "{app: noisy}", ""));
    c.advance(SimDuration::secs(5));
    let n = node_of(&c, "default", "noisy-2").unwrap();
    assert!(n == "zone-b" || n == "zone-c", "{n}");
}

#[test]
fn a_namespace_selector_picks_the_namespaces_whose_pods_count() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(5));
    create(
        &mut c,
        "apiVersion: v1
kind: Namespace
metadata:
  name: data
  labels: {team: data}
",
    );
    let db = "apiVersion: v1
kind: Pod
metadata:
  name: db
  namespace: data
  labels: {app: db}
spec:
  nodeSelector: {kubernetes.io/hostname: zone-c}
  containers:
  - name: db
    image: postgres:16
";
    create(&mut c, db);
    c.advance(SimDuration::secs(5));
    // Without a namespace, the term looks in the pod's own namespace only: no db
    // there, and the pod does not match its own term.
    let own_ns = "  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchLabels: {app: db}
        topologyKey: kubernetes.io/hostname
";
    create(&mut c, &pod("near-own", "{app: api}", own_ns));
    let by_selector = "  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchLabels: {app: db}
        namespaceSelector:
          matchLabels: {team: data}
        topologyKey: kubernetes.io/hostname
";
    create(&mut c, &pod("near-data", "{app: api}", by_selector));
    c.advance(SimDuration::secs(5));
    assert_eq!(node_of(&c, "default", "near-own"), None);
    assert_eq!(
        node_of(&c, "default", "near-data").as_deref(),
        Some("zone-c")
    );
}

#[test]
fn preferred_anti_affinity_scores_with_weights_and_normalises() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(5));
    create(
        &mut c,
        &pod(
            "first",
            "{app: spread}",
            "  nodeSelector: {kubernetes.io/hostname: zone-a}\n",
        ),
    );
    c.advance(SimDuration::secs(5));
    let away = "  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          labelSelector:
            matchLabels: {app: spread}
          topologyKey: kubernetes.io/hostname
";
    create(&mut c, &pod("second", "{app: spread}", away));
    c.advance(SimDuration::secs(5));
    let d = c
        .scheduling_decision(&ObjectKey::new(Kind::Pod, "default", "second"))
        .unwrap()
        .clone();
    let affinity = |node: &str| {
        d.verdicts
            .iter()
            .find(|v| v.node == node)
            .and_then(|v| v.scores.iter().find(|s| s.plugin == "InterPodAffinity"))
            .map(|s| (s.raw, s.normalized, s.weight))
    };
    // -100 where the matching pod runs, 0 elsewhere: normalised 0 and 100, weight 2.
    assert_eq!(affinity("zone-a"), Some((-100, 0, 2)));
    assert_eq!(affinity("zone-b"), Some((0, 100, 2)));
    assert_eq!(affinity("zone-c"), Some((0, 100, 2)));
    assert_ne!(d.chosen.as_deref(), Some("zone-a"));
}

#[test]
fn coredns_replicas_land_on_different_zones() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(60));
    let mut nodes: Vec<String> = pods_of(&c, "kube-system", "coredns-")
        .into_iter()
        .filter_map(|(_, n)| n)
        .collect();
    assert_eq!(nodes.len(), 2);
    nodes.dedup();
    assert_eq!(
        nodes.len(),
        2,
        "kubeadm's preferred anti-affinity spreads them"
    );
}

/// PodTopologySpread's system defaults (podtopologyspread/plugin.go
/// `systemDefaultConstraints`): hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway,
/// over the pods the pod's ReplicaSet and Services select.
#[test]
fn replicas_without_constraints_are_spread_by_the_system_defaults() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(5));
    let web = common::deployment_of(
        "web",
        3,
        "",
        "{app: web}",
        "      containers:\n      - name: app\n        image: nginx:1.27\n",
    );
    create(&mut c, &web);
    c.advance(SimDuration::secs(20));
    let pods = pods_of(&c, "default", "web-");
    let mut nodes: Vec<String> = pods.iter().filter_map(|(_, n)| n.clone()).collect();
    nodes.sort();
    assert_eq!(nodes, ["zone-a", "zone-b", "zone-c"]);
    // The last replica's record: each worker scored ln(3 domains + 2) per matching
    // pod plus maxSkew - 1; nodes without a zone label get nothing from the zone
    // constraint.
    let last = pods
        .iter()
        .map(|(p, _)| {
            c.scheduling_decision(&ObjectKey::new(Kind::Pod, "default", p))
                .unwrap()
        })
        .max_by_key(|d| d.at)
        .unwrap()
        .clone();
    let w = (5f64).ln();
    for v in last.verdicts.iter().filter(|v| v.failed_plugin.is_none()) {
        let spread = v
            .scores
            .iter()
            .find(|s| s.plugin == "PodTopologySpread")
            .unwrap_or_else(|| panic!("{v:?}"));
        let here = pods_of(&c, "default", "web-")
            .iter()
            .filter(|(p, n)| n.as_deref() == Some(v.node.as_str()) && last.pod.name != *p)
            .count();
        assert_eq!(spread.raw, (here as f64 * w + 2.0).round() as i64, "{v:?}");
        assert_eq!(spread.weight, 2);
    }
    // A bare pod is selected by nothing: the plugin does not score it.
    create(&mut c, &pod("bare", "{app: web-bare}", ""));
    c.advance(SimDuration::secs(5));
    let d = c
        .scheduling_decision(&ObjectKey::new(Kind::Pod, "default", "bare"))
        .unwrap();
    assert!(d
        .verdicts
        .iter()
        .flat_map(|v| &v.scores)
        .all(|s| s.plugin != "PodTopologySpread"));
}

#[test]
fn match_label_keys_narrow_a_spread_constraint_to_one_revision() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(5));
    // Two pods of revision 1 on zone-a; a revision-2 pod spreading over zone-a and
    // zone-b by hostname with maxSkew 1 counts only revision 2, so zone-a is still
    // allowed for it.
    for i in 0..2 {
        create(
            &mut c,
            &pod(
                &format!("old-{i}"),
                "{app: web, rev: '1'}",
                "  nodeSelector: {kubernetes.io/hostname: zone-a}\n",
            ),
        );
    }
    c.advance(SimDuration::secs(5));
    let spread = "  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: kubernetes.io/hostname, operator: In, values: [zone-a, zone-b]}
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: DoNotSchedule
    labelSelector:
      matchLabels: {app: web}
    matchLabelKeys: [rev]
";
    create(&mut c, &pod("new", "{app: web, rev: '2'}", spread));
    let without = spread.replace("    matchLabelKeys: [rev]\n", "");
    create(&mut c, &pod("plain", "{app: web, rev: '2'}", &without));
    c.advance(SimDuration::secs(5));
    let failed_on_a = |name: &str| {
        c.scheduling_decision(&ObjectKey::new(Kind::Pod, "default", name))
            .unwrap()
            .verdicts
            .iter()
            .find(|v| v.node == "zone-a")
            .unwrap()
            .failed_plugin
            .clone()
    };
    // Counting both revisions, zone-a has skew 2 + 1 - 0 > 1.
    assert_eq!(failed_on_a("plain").as_deref(), Some("PodTopologySpread"));
    assert_eq!(failed_on_a("new"), None);
}

/// Scheduling gates (the SchedulingGates plugin's PreEnqueue; the condition from
/// pkg/registry/core/pod/strategy.go, the messages from
/// pkg/apis/core/validation/validation.go, STATUS from kubectl's printPod).
#[test]
fn a_gated_pod_waits_without_an_attempt_until_its_gates_are_removed() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(5));
    let gated = "  schedulingGates:\n  - name: example.com/quota\n  - name: example.com/arch\n";
    create(&mut c, &pod("gated", "{app: gated}", gated));
    c.advance(SimDuration::secs(30));
    let get = |c: &Cluster| c.get(Kind::Pod, "default", "gated").unwrap();
    let obj = get(&c);
    let p = obj.as_pod().unwrap();
    assert_eq!(p.spec.as_ref().unwrap().node_name, None);
    let cond = p.status.as_ref().unwrap().conditions.as_ref().unwrap();
    let scheduled = cond.iter().find(|c| c.type_ == "PodScheduled").unwrap();
    assert_eq!(scheduled.status, "False");
    assert_eq!(scheduled.reason.as_deref(), Some("SchedulingGated"));
    assert_eq!(
        scheduled.message.as_deref(),
        Some("Scheduling is blocked due to non-empty scheduling gates")
    );
    assert_eq!(
        warehouse_sim::views::podstatus::status(p),
        "SchedulingGated"
    );
    // No scheduling attempt, so no FailedScheduling.
    assert!(c
        .scheduling_decision(&ObjectKey::new(Kind::Pod, "default", "gated"))
        .is_none());
    // A gate may not be added.
    let mut more = obj.clone();
    if let Object::Pod(p) = &mut more {
        let gates = p.spec.as_mut().unwrap().scheduling_gates.as_mut().unwrap();
        gates.push(k8s_openapi::api::core::v1::PodSchedulingGate { name: "x".into() });
    }
    let err = c.update(more).unwrap_err().to_string();
    assert!(
        err.contains("spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'x'"),
        "{err}"
    );
    // One removed: still gated.
    let mut fewer = get(&c);
    if let Object::Pod(p) = &mut fewer {
        p.spec
            .as_mut()
            .unwrap()
            .scheduling_gates
            .as_mut()
            .unwrap()
            .remove(0);
    }
    c.update(fewer).unwrap();
    c.advance(SimDuration::secs(5));
    assert_eq!(node_of(&c, "default", "gated"), None);
    // All removed: scheduled.
    let mut none = get(&c);
    if let Object::Pod(p) = &mut none {
        p.spec.as_mut().unwrap().scheduling_gates = None;
    }
    c.update(none).unwrap();
    c.advance(SimDuration::secs(5));
    assert!(node_of(&c, "default", "gated").is_some());
    // A node named while gates remain is refused.
    let pinned = "  nodeName: zone-a\n  schedulingGates:\n  - name: example.com/quota\n";
    let obj = warehouse_sim::decode_manifests(&pod("pinned", "{app: x}", pinned))
        .unwrap()
        .remove(0);
    let err = c.create(obj).unwrap_err().to_string();
    assert!(
        err.contains(
            "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"
        ),
        "{err}"
    );
}
