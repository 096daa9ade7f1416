//! Recovery after faults: the kubelet reconciles its pods' statuses with the apiserver
//! once it can reach it again (pkg/kubelet/status/status_manager.go), so a partition
//! that ends before eviction leaves no trace in Deployments, DaemonSets or
//! EndpointSlices.

mod common;

use common::*;
use warehouse_sim::{Cluster, Fault, Kind, Object, SimDuration, Topology};

const SERVICE: &str = "apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
";

fn pod_ready(o: &Object) -> bool {
    o.as_pod()
        .and_then(|p| p.status.as_ref())
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

fn ready_endpoints(c: &Cluster) -> usize {
    c.list(Kind::EndpointSlice, Some("default"))
        .iter()
        .filter_map(|o| match o {
            Object::EndpointSlice(s)
                if s.metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get("kubernetes.io/service-name"))
                    == Some(&"web".to_string()) =>
            {
                Some(s)
            }
            _ => None,
        })
        .flat_map(|s| s.endpoints.iter().flatten())
        .filter(|e| e.conditions.as_ref().and_then(|c| c.ready) == Some(true))
        .count()
}

#[test]
fn a_healed_node_posts_its_pods_ready_again() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, WEB);
    create(&mut c, SERVICE);
    c.advance(SimDuration::secs(30));
    assert_eq!(ready_endpoints(&c), 5);
    let on_b: Vec<Object> = c.pods_on_node("zone-b");
    assert!(on_b.iter().any(|p| p.namespace() == "default"));
    c.fault(Fault::PartitionNode("zone-b".into())).unwrap();
    // Past the grace period: the node controller marks the node's pods not ready.
    c.advance(SimDuration::secs(70));
    assert_eq!(node_ready(&c, "zone-b"), "Unknown");
    assert!(c.pods_on_node("zone-b").iter().all(|p| !pod_ready(p)));
    assert!(ready_endpoints(&c) < 5);
    // Healed before the 300 s eviction: the same pods run on.
    c.fault(Fault::HealNode("zone-b".into())).unwrap();
    c.advance(SimDuration::secs(30));
    assert_eq!(node_ready(&c, "zone-b"), "True");
    let now_on_b = c.pods_on_node("zone-b");
    assert_eq!(
        now_on_b.iter().map(|p| p.name()).collect::<Vec<_>>(),
        on_b.iter().map(|p| p.name()).collect::<Vec<_>>()
    );
    for p in &now_on_b {
        assert!(pod_ready(p), "{} is ready again", p.name());
    }
    assert_eq!(ready_endpoints(&c), 5);
    let d = c.get(Kind::Deployment, "default", "web").unwrap();
    let status = d.as_deployment().unwrap().status.clone().unwrap();
    assert_eq!(status.ready_replicas, Some(5));
    assert_eq!(status.available_replicas, Some(5));
    let kube_proxy = c.get(Kind::DaemonSet, "kube-system", "kube-proxy").unwrap();
    let Object::DaemonSet(ds) = kube_proxy else {
        panic!("kube-proxy is a DaemonSet")
    };
    let ds = ds.status.unwrap();
    assert_eq!(ds.number_ready, ds.desired_number_scheduled);
}

/// A pod pinned to zone-b whose container crashes every five seconds.
const CRASHER: &str = "apiVersion: v1
kind: Pod
metadata:
  name: crasher
spec:
  nodeName: zone-b
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'sleep 5; exit 1']
";

fn restarts(c: &Cluster) -> (i32, String) {
    let pod = c.get(Kind::Pod, "default", "crasher").unwrap();
    let status = pod.as_pod().unwrap().status.clone().unwrap();
    let cs = &status.container_statuses.unwrap()[0];
    let state = cs.state.as_ref().unwrap();
    let what = if state.running.is_some() {
        "running"
    } else if state.waiting.is_some() {
        "waiting"
    } else {
        "terminated"
    };
    (cs.restart_count, what.to_string())
}

#[test]
fn what_the_kubelet_saw_during_a_partition_is_posted_when_it_heals() {
    let run = |partition: bool| {
        let mut c = Cluster::new(1, Topology::default());
        create(&mut c, CRASHER);
        c.advance(SimDuration::secs(20));
        if partition {
            c.fault(Fault::PartitionNode("zone-b".into())).unwrap();
        }
        c.advance(SimDuration::secs(40));
        if partition {
            // Nothing reached the apiserver meanwhile.
            assert!(restarts(&c).0 < 3);
            c.fault(Fault::HealNode("zone-b".into())).unwrap();
        }
        c.advance(SimDuration::millis(100));
        restarts(&c)
    };
    let reference = run(false);
    assert!(reference.0 >= 3, "{reference:?}");
    assert_eq!(run(true), reference);
}

// ---------------------------------------------------------------------------------
// Invariants under random faults.
// ---------------------------------------------------------------------------------

use k8s_openapi::api::core::v1::{Node, Pod, PodSpec, Toleration};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use warehouse_sim::controllers::node_lifecycle::tolerates;
use warehouse_sim::controllers::{pod_is_active, pod_is_ready};
use warehouse_sim::object::quantity::Quantity;
use warehouse_sim::{ControlPlaneComponent, NodeSpec};

/// The workloads a sequence plays with: `w0`–`w2` are Deployments (`w1` with a
/// readiness probe, `w2` asking for half a CPU), `w3` a DaemonSet on every worker and
/// `w4` one on the nodes labelled `disk=ssd`. Service `wN` selects `app: wN`.
const WORKLOADS: usize = 5;
const DEPLOYMENTS: usize = 3;
const WORKERS: [&str; 3] = ["zone-a", "zone-b", "zone-c"];
const NODES: [&str; 4] = ["control-plane", "zone-a", "zone-b", "zone-c"];
const IMAGES: [&str; 2] = ["nginx:1.27", "nginx:1.28"];

#[derive(Clone, Debug)]
enum Op {
    /// Create or update workload `w` (replicas for Deployments, an image).
    Apply {
        w: usize,
        replicas: i32,
        image: usize,
    },
    Scale {
        w: usize,
        replicas: i32,
    },
    /// Create or update Service `wN`, selecting `app: wS`.
    ApplyService {
        w: usize,
        selects: usize,
    },
    /// Relabel the `n`th pod of the namespace (by name) `app: wA`.
    LabelPod {
        n: usize,
        app: usize,
    },
    DeletePod {
        n: usize,
    },
    Cordon {
        node: String,
        on: bool,
    },
    DeleteWorkload {
        w: usize,
    },
    DeleteService {
        w: usize,
    },
    /// `kubectl delete node`: a worker's Node object goes (its kubelet runs on).
    DeleteNode(String),
    Fault(Fault),
    EtcdSave(usize),
    EtcdRestore(usize),
    Advance(SimDuration),
}

fn component() -> impl Strategy<Value = ControlPlaneComponent> {
    prop::sample::select(ControlPlaneComponent::ALL.to_vec())
}

fn node() -> impl Strategy<Value = String> {
    prop::sample::select(NODES.to_vec()).prop_map(str::to_string)
}

fn setup() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..WORKLOADS, 1..6i32, 0..IMAGES.len()).prop_map(|(w, replicas, image)| Op::Apply {
            w,
            replicas,
            image
        }),
        (0..WORKLOADS).prop_map(|w| Op::ApplyService { w, selects: w }),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..WORKLOADS, 0..6i32, 0..IMAGES.len())
            .prop_map(|(w, replicas, image)| Op::Apply { w, replicas, image }),
        1 => (0..DEPLOYMENTS, 0..6i32).prop_map(|(w, replicas)| Op::Scale { w, replicas }),
        2 => (0..WORKLOADS).prop_map(|w| Op::ApplyService { w, selects: w }),
        1 => (0..WORKLOADS, 0..WORKLOADS).prop_map(|(w, selects)| Op::ApplyService { w, selects }),
        1 => (0..20usize, 0..WORKLOADS).prop_map(|(n, app)| Op::LabelPod { n, app }),
        1 => (0..20usize).prop_map(|n| Op::DeletePod { n }),
        1 => (node(), any::<bool>()).prop_map(|(node, on)| Op::Cordon { node, on }),
        1 => (0..WORKLOADS).prop_map(|w| Op::DeleteWorkload { w }),
        1 => (0..WORKLOADS).prop_map(|w| Op::DeleteService { w }),
        1 => prop::sample::select(WORKERS.to_vec()).prop_map(|n| Op::DeleteNode(n.to_string())),
        1 => node().prop_map(|n| Op::Fault(Fault::KillNode(n))),
        1 => node().prop_map(|n| Op::Fault(Fault::RestartNode(n))),
        2 => node().prop_map(|n| Op::Fault(Fault::PartitionNode(n))),
        2 => node().prop_map(|n| Op::Fault(Fault::HealNode(n))),
        1 => component().prop_map(|c| Op::Fault(Fault::StopComponent(c))),
        1 => component().prop_map(|c| Op::Fault(Fault::StartComponent(c))),
        1 => (1..3usize).prop_map(|i| Op::Fault(Fault::StopEtcdMember(format!("etcd-{i}")))),
        1 => (1..3usize).prop_map(|i| Op::Fault(Fault::StartEtcdMember(format!("etcd-{i}")))),
        1 => (0..2usize).prop_map(Op::EtcdSave),
        1 => (0..2usize).prop_map(Op::EtcdRestore),
        6 => prop_oneof![
            (1..10_000u64).prop_map(SimDuration::millis),
            (10..90u64).prop_map(SimDuration::secs),
            (90..400u64).prop_map(SimDuration::secs),
        ]
        .prop_map(Op::Advance),
    ]
}

/// One random case: the cluster's seed and shape, and what happens to it.
#[derive(Clone, Debug)]
struct Case {
    seed: u64,
    etcd_members: usize,
    max_endpoints_per_slice: usize,
    ops: Vec<Op>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<u64>(),
        prop::sample::select(vec![1usize, 3]),
        prop::sample::select(vec![2usize, 3, 100]),
        prop::collection::vec(setup(), 0..6),
        prop::collection::vec(op(), 1..50),
    )
        .prop_map(
            |(seed, etcd_members, max_endpoints_per_slice, mut ops, more)| {
                // Workloads first, so that the faults find something to break.
                ops.push(Op::Advance(SimDuration::secs(30)));
                ops.extend(more);
                Case {
                    seed,
                    etcd_members,
                    max_endpoints_per_slice,
                    ops,
                }
            },
        )
}

fn topology(etcd_members: usize) -> Topology {
    let mut nodes = vec![NodeSpec::control_plane("control-plane")];
    for name in WORKERS {
        let mut n = NodeSpec::worker(name);
        n.cpu_milli = 3000;
        n.memory_bytes = 4 << 30;
        n.max_pods = 12;
        if name == "zone-a" {
            n.labels.insert("disk".into(), "ssd".into());
        }
        nodes.push(n);
    }
    Topology {
        nodes,
        ..Topology::default()
    }
    .with_etcd_members(etcd_members)
}

fn workload(w: usize, replicas: i32, image: usize) -> Object {
    let image = IMAGES[image];
    let name = format!("w{w}");
    let cpu = if w == 2 { "500m" } else { "100m" };
    let probe = if w == 1 {
        "
        readinessProbe:
          httpGet: {path: /, port: 80}
          periodSeconds: 5"
    } else {
        ""
    };
    let pod_spec = format!(
        "      containers:
      - name: app
        image: {image}
        ports:
        - containerPort: 80
        resources:
          requests: {{cpu: {cpu}, memory: 64Mi}}{probe}
"
    );
    let yaml = if w < DEPLOYMENTS {
        deployment_of(&name, replicas, "", &format!("{{app: {name}}}"), &pod_spec)
    } else {
        let selector = if w == 4 {
            "      nodeSelector: {disk: ssd}\n"
        } else {
            ""
        };
        daemon_set_of(&name, &format!("{selector}{pod_spec}"))
    };
    warehouse_sim::decode_manifests(&yaml).unwrap().remove(0)
}

fn service(w: usize, selects: usize) -> Object {
    let yaml = format!(
        "apiVersion: v1
kind: Service
metadata:
  name: w{w}
spec:
  selector: {{app: w{selects}}}
  ports:
  - port: 80
"
    );
    warehouse_sim::decode_manifests(&yaml).unwrap().remove(0)
}

fn workload_kind(w: usize) -> Kind {
    if w < DEPLOYMENTS {
        Kind::Deployment
    } else {
        Kind::DaemonSet
    }
}

/// `kubectl apply`: create, or update the live object's spec.
fn apply(c: &mut Cluster, obj: Object) -> String {
    let key = obj.key();
    let namespace = if key.namespace.is_empty() {
        "default"
    } else {
        key.namespace.as_str()
    };
    let result = match c.get(key.kind, namespace, &key.name) {
        Err(_) => c.create(obj).map(|_| "created"),
        Ok(mut live) => {
            match (&mut live, obj) {
                (Object::Deployment(l), Object::Deployment(o)) => l.spec = o.spec,
                (Object::DaemonSet(l), Object::DaemonSet(o)) => l.spec = o.spec,
                (Object::Service(l), Object::Service(o)) => {
                    let spec = l.spec.get_or_insert_with(Default::default);
                    let new = o.spec.unwrap_or_default();
                    spec.selector = new.selector;
                    spec.ports = new.ports;
                }
                _ => unreachable!("same kinds"),
            }
            c.update(live).map(|_| "configured")
        }
    };
    match result {
        Ok(what) => what.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

fn result(r: Result<impl std::fmt::Display, impl std::fmt::Display>) -> String {
    match r {
        Ok(m) => m.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

/// The `n`th pod of the default namespace, by name (wrapping around).
fn nth_pod(c: &Cluster, n: usize) -> Option<Object> {
    let pods = c.list(Kind::Pod, Some("default"));
    (!pods.is_empty()).then(|| pods[n % pods.len()].clone())
}

/// `kubectl cordon` / `uncordon`.
fn cordon(c: &mut Cluster, node: &str, on: bool) -> String {
    match c.get(Kind::Node, "", node) {
        Ok(Object::Node(mut n)) => {
            n.spec.get_or_insert_with(Default::default).unschedulable = on.then_some(true);
            result(
                c.update(Object::Node(n))
                    .map(|_| if on { "cordoned" } else { "uncordoned" }),
            )
        }
        _ => "no node".into(),
    }
}

fn step(c: &mut Cluster, op: &Op) -> String {
    match op {
        Op::Apply { w, replicas, image } => apply(c, workload(*w, *replicas, *image)),
        Op::Scale { w, replicas } => match c.get(Kind::Deployment, "default", &format!("w{w}")) {
            Ok(Object::Deployment(mut d)) => {
                d.spec.replicas = Some(*replicas);
                result(c.update(Object::Deployment(d)).map(|_| "scaled"))
            }
            _ => "not found".into(),
        },
        Op::ApplyService { w, selects } => apply(c, service(*w, *selects)),
        Op::LabelPod { n, app } => match nth_pod(c, *n) {
            Some(Object::Pod(mut p)) => {
                p.metadata
                    .labels
                    .get_or_insert_with(Default::default)
                    .insert("app".into(), format!("w{app}"));
                result(
                    c.update(Object::Pod(p))
                        .map(|o| format!("{} labeled", o.name())),
                )
            }
            _ => "no pod".into(),
        },
        Op::DeletePod { n } => match nth_pod(c, *n) {
            Some(p) => result(
                c.delete(Kind::Pod, "default", p.name())
                    .map(|o| format!("{} deleted", o.name())),
            ),
            None => "no pod".into(),
        },
        Op::Cordon { node, on } => cordon(c, node, *on),
        Op::DeleteWorkload { w } => result(
            c.delete(workload_kind(*w), "default", &format!("w{w}"))
                .map(|_| "deleted"),
        ),
        Op::DeleteService { w } => result(
            c.delete(Kind::Service, "default", &format!("w{w}"))
                .map(|_| "deleted"),
        ),
        Op::DeleteNode(n) => result(c.delete(Kind::Node, "", n).map(|_| "deleted")),
        Op::Fault(f) => result(c.fault(f.clone())),
        Op::EtcdSave(s) => result(c.etcd_snapshot_save(&format!("s{s}"))),
        Op::EtcdRestore(s) => result(c.etcd_snapshot_restore(&format!("s{s}"))),
        Op::Advance(d) => {
            c.advance(*d);
            "advanced".into()
        }
    }
}

/// What the checks remember from one step to the next.
#[derive(Default)]
struct History {
    now: u64,
    revision: u64,
    /// Every object's uid and resourceVersion after the last step.
    versions: BTreeMap<String, (String, u64)>,
    /// The same, as each etcd snapshot slot holds it.
    saved: BTreeMap<usize, BTreeMap<String, (String, u64)>>,
    /// The node each pod (by uid) was bound to.
    bound: BTreeMap<String, String>,
    /// Pods (by uid) a restore took back to before their binding, with the node
    /// that still runs them until its kubelet relists.
    unbound_by_restore: BTreeMap<String, String>,
}

fn rv(o: &Object) -> u64 {
    o.meta()
        .resource_version
        .as_deref()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn all_objects(c: &Cluster) -> Vec<Object> {
    let mut out = Vec::new();
    for kind in [
        Kind::Pod,
        Kind::Node,
        Kind::Deployment,
        Kind::ReplicaSet,
        Kind::DaemonSet,
        Kind::Service,
        Kind::EndpointSlice,
        Kind::Endpoints,
        Kind::Lease,
    ] {
        out.extend(c.list(kind, None));
    }
    out
}

fn versions(c: &Cluster) -> BTreeMap<String, (String, u64)> {
    all_objects(c)
        .iter()
        .map(|o| {
            (
                format!("{}", o.key()),
                (o.meta().uid.clone().unwrap_or_default(), rv(o)),
            )
        })
        .collect()
}

/// A resource total: milli-CPU for cpu, else the value.
fn amount(resource: &str, q: &str) -> i128 {
    let q = Quantity::parse(q).unwrap_or_else(|| panic!("quantity {q}"));
    if resource == "cpu" {
        q.milli_value()
    } else {
        q.value()
    }
}

fn requests(pod: &Pod) -> BTreeMap<String, i128> {
    let mut sum = BTreeMap::new();
    let Some(spec) = pod.spec.as_ref() else {
        return sum;
    };
    for c in &spec.containers {
        for (r, q) in c
            .resources
            .as_ref()
            .and_then(|r| r.requests.as_ref())
            .into_iter()
            .flatten()
        {
            *sum.entry(r.clone()).or_default() += amount(r, &q.0);
        }
    }
    sum
}

fn check_fits(c: &Cluster, node: &str, pods: &[&Pod], what: &str) -> Result<(), String> {
    let Ok(n) = c.get(Kind::Node, "", node) else {
        // A deleted node: no capacity to compare with (its pods are the pod
        // garbage collector's).
        return Ok(());
    };
    let allocatable = n
        .as_node()
        .and_then(|n| n.status.as_ref())
        .and_then(|s| s.allocatable.clone())
        .unwrap_or_default();
    let max_pods = allocatable
        .get("pods")
        .map_or(110, |q| amount("pods", &q.0));
    if pods.len() as i128 > max_pods {
        return Err(format!(
            "{node} {what} {} pods, more than its {max_pods}",
            pods.len()
        ));
    }
    let mut used: BTreeMap<String, i128> = BTreeMap::new();
    for p in pods {
        for (r, v) in requests(p) {
            *used.entry(r).or_default() += v;
        }
    }
    for (r, v) in used {
        let cap = allocatable.get(&r).map_or(0, |q| amount(&r, &q.0));
        if v > cap {
            return Err(format!("{node} {what} {v} of {r}, more than its {cap}"));
        }
    }
    Ok(())
}

fn pod_name(o: &Object) -> String {
    format!("{}/{}", o.namespace(), o.name())
}

/// Invariants that hold after every step, whatever the faults.
fn check_always(c: &Cluster, h: &mut History, op: &Op, answer: &str) -> Result<(), String> {
    check_clock(c, h, op)?;
    check_versions(c, h, op, answer)?;
    let restored = matches!(op, Op::EtcdRestore(_)) && !answer.starts_with("error:");
    check_placement(c, h, restored)?;
    let pods: BTreeMap<String, Pod> = c
        .list(Kind::Pod, None)
        .iter()
        .filter_map(|o| Some((pod_name(o), o.as_pod()?.clone())))
        .collect();
    check_endpoint_slices(c, &pods)?;
    check_legacy_endpoints(c, &pods)
}

/// The clock never goes back; an advance moves it exactly.
fn check_clock(c: &Cluster, h: &mut History, op: &Op) -> Result<(), String> {
    let now = c.now().0;
    if now < h.now {
        return Err(format!("the clock went back from {} to {now}", h.now));
    }
    if let Op::Advance(d) = op {
        if now != h.now + d.0 {
            return Err(format!(
                "advance {d:?} moved the clock from {} to {now}",
                h.now
            ));
        }
    }
    h.now = now;
    Ok(())
}

/// The store's revision never goes back, not even across a restore; an object's
/// resourceVersion only grows, and a new one is past every earlier revision; a
/// restore brings back exactly what its snapshot held.
fn check_versions(c: &Cluster, h: &mut History, op: &Op, answer: &str) -> Result<(), String> {
    let revision = c.revision();
    if revision < h.revision {
        return Err(format!(
            "the revision went back from {} to {revision}",
            h.revision
        ));
    }
    let current = versions(c);
    let restored = match op {
        Op::EtcdRestore(s) => h.saved.get(s).filter(|_| revision > h.revision),
        _ => None,
    };
    for (key, (uid, v)) in &current {
        if *v > revision {
            return Err(format!(
                "{key} has resourceVersion {v} past the revision {revision}"
            ));
        }
        if let Some(saved) = restored {
            if let Some((suid, sv)) = saved.get(key) {
                if (suid, sv) == (uid, v) {
                    continue;
                }
            }
            if *v <= h.revision {
                return Err(format!(
                    "{key} at resourceVersion {v} after the restore is not the snapshot's {:?}",
                    saved.get(key)
                ));
            }
            continue;
        }
        match h.versions.get(key) {
            Some((old_uid, old)) if old_uid == uid => {
                if v < old {
                    return Err(format!(
                        "{key}'s resourceVersion went back from {old} to {v}"
                    ));
                }
                if v > old && *v <= h.revision {
                    return Err(format!(
                        "{key} changed to resourceVersion {v}, not past the revision {}",
                        h.revision
                    ));
                }
            }
            _ if *v <= h.revision => {
                return Err(format!(
                    "{key} is new at resourceVersion {v}, not past the revision {}",
                    h.revision
                ))
            }
            _ => {}
        }
    }
    if let Op::EtcdSave(s) = op {
        if !answer.starts_with("error:") {
            h.saved.insert(*s, current.clone());
        }
    }
    h.revision = revision;
    h.versions = current;
    Ok(())
}

/// A pod runs on at most one node, the one it is bound to; no node runs or is given
/// more than it can hold.
///
/// Except after a restore (`restored`: this step's) from a snapshot saved while a
/// running pod was still Pending: the pod is unbound again, and the scheduler may
/// bind it anywhere. Its node's kubelet learns of it only when its pod watch, broken
/// by the restore, lists again: the list (pods with `spec.nodeName` its own) no
/// longer holds the pod, the kubelet's config source sends that set and the pods it
/// lacks are removed and killed (pkg/kubelet/config/apiserver.go
/// `newSourceApiserverFromLW`, config.go `podStorage.merge` on `SET`,
/// kubelet.go `HandlePodRemoves`). Until then it runs on that node, and the checks
/// at the end see that it stopped.
fn check_placement(c: &Cluster, h: &mut History, restored: bool) -> Result<(), String> {
    for o in c.list(Kind::Pod, None) {
        let p = o.as_pod().unwrap();
        let Some(uid) = p.metadata.uid.clone() else {
            continue;
        };
        let Some(node) = p.spec.as_ref().and_then(|s| s.node_name.clone()) else {
            if restored {
                if let Some(before) = h.bound.remove(&uid) {
                    h.unbound_by_restore.insert(uid, before);
                }
            }
            continue;
        };
        if let Some(before) = h.bound.insert(uid, node.clone()) {
            if before != node {
                return Err(format!("{} moved from {before} to {node}", pod_name(&o)));
            }
        }
    }
    let mut running: BTreeMap<String, String> = BTreeMap::new();
    let mut awaiting_relist = BTreeMap::new();
    for node in NODES {
        let bound: Vec<Object> = c.pods_on_node(node);
        let active: Vec<&Pod> = bound
            .iter()
            .filter_map(|o| o.as_pod())
            .filter(|p| {
                !matches!(
                    p.status.as_ref().and_then(|s| s.phase.as_deref()),
                    Some("Succeeded") | Some("Failed")
                )
            })
            .collect();
        check_fits(c, node, &active, "is given")?;
        let mut runs = Vec::new();
        for key in c.runtime_pods(node) {
            let pod = match c.get(Kind::Pod, &key.namespace, &key.name) {
                Ok(Object::Pod(p)) => Some(p),
                _ => None,
            };
            let uid = pod.as_ref().and_then(|p| p.metadata.uid.clone());
            let on = pod
                .as_ref()
                .and_then(|p| p.spec.as_ref()?.node_name.clone());
            if let Some(uid) = uid.filter(|u| {
                on.as_deref() != Some(node)
                    && h.unbound_by_restore.get(u).map(String::as_str) == Some(node)
            }) {
                awaiting_relist.insert(uid, node.to_string());
                continue;
            }
            if let Some(other) = running.insert(format!("{key}"), node.to_string()) {
                return Err(format!("{key} runs on both {other} and {node}"));
            }
            if let Some(p) = pod {
                if on.as_deref() != Some(node) {
                    return Err(format!("{key} runs on {node} but is bound to {on:?}"));
                }
                if pod_is_active(&p) {
                    runs.push(*p);
                }
            }
        }
        check_fits(c, node, &runs.iter().collect::<Vec<_>>(), "runs")?;
    }
    h.unbound_by_restore = awaiting_relist;
    Ok(())
}

/// EndpointSlices: only pods their Service selects, at most the maximum each, no pod
/// twice; an endpoint is ready only for a ready pod that is not terminating (or one
/// that changed after the slice was written, which the controller has yet to see).
/// `pods` are all pods by `namespace/name`.
fn check_endpoint_slices(c: &Cluster, pods: &BTreeMap<String, Pod>) -> Result<(), String> {
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    for o in c.list(Kind::EndpointSlice, None) {
        let Object::EndpointSlice(slice) = &o else {
            continue;
        };
        check_slice(c, &o, slice, pods, &mut seen)?;
    }
    Ok(())
}

/// [`check_endpoint_slices`] for one slice `o`; `seen` holds the (Service, pod) pairs
/// of the slices checked before.
fn check_slice(
    c: &Cluster,
    o: &Object,
    slice: &EndpointSlice,
    pods: &BTreeMap<String, Pod>,
    seen: &mut BTreeSet<(String, String)>,
) -> Result<(), String> {
    let max = c.max_endpoints_per_slice();
    let labels = slice.metadata.labels.clone().unwrap_or_default();
    if labels
        .get("endpointslice.kubernetes.io/managed-by")
        .map(String::as_str)
        != Some("endpointslice-controller.k8s.io")
    {
        return Ok(());
    }
    let endpoints = slice.endpoints.as_deref().unwrap_or_default();
    if endpoints.len() > max {
        return Err(format!(
            "slice {} holds {} endpoints, more than {max}",
            o.name(),
            endpoints.len()
        ));
    }
    let service_name = labels
        .get("kubernetes.io/service-name")
        .cloned()
        .unwrap_or_default();
    let Ok(Object::Service(svc)) = c.get(Kind::Service, o.namespace(), &service_name) else {
        return Ok(()); // the garbage collector removes it
    };
    let owned = slice
        .metadata
        .owner_references
        .iter()
        .flatten()
        .any(|r| Some(&r.uid) == svc.metadata.uid.as_ref());
    if !owned {
        return Ok(()); // a slice of an earlier Service of that name
    }
    let selector = svc
        .spec
        .as_ref()
        .and_then(|s| s.selector.clone())
        .unwrap_or_default();
    for e in endpoints {
        let Some(target) = e.target_ref.as_ref() else {
            return Err(format!("slice {} has an endpoint without a pod", o.name()));
        };
        let name = format!(
            "{}/{}",
            target.namespace.as_deref().unwrap_or_default(),
            target.name.as_deref().unwrap_or_default()
        );
        if !seen.insert((service_name.clone(), name.clone())) {
            return Err(format!(
                "{name} is twice in the slices of Service {service_name}"
            ));
        }
        let Some(pod) = pods.get(&name).filter(|p| p.metadata.uid == target.uid) else {
            continue; // deleted since: the controller has yet to see it
        };
        // What the slice says of a pod that has not changed since it was written
        // must be true of it.
        let pod_rv = pod
            .metadata
            .resource_version
            .as_deref()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        let fresh = pod_rv < rv(o);
        let labels = pod.metadata.labels.clone().unwrap_or_default();
        let service_fresh = rv(&Object::Service(svc.clone())) < rv(o);
        if fresh && service_fresh && !selector.iter().all(|(k, v)| labels.get(k) == Some(v)) {
            return Err(format!(
                "slice {} lists {name}, which {service_name} does not select",
                o.name()
            ));
        }
        let pod_ip = pod.status.as_ref().and_then(|s| s.pod_ip.clone());
        if fresh
            && (e.addresses.first() != pod_ip.as_ref()
                || e.node_name != pod.spec.as_ref().and_then(|s| s.node_name.clone()))
        {
            return Err(format!(
                "slice {} gives {name} address {:?} on {:?}; it has {pod_ip:?}",
                o.name(),
                e.addresses,
                e.node_name
            ));
        }
        let ready = e.conditions.as_ref().and_then(|c| c.ready) == Some(true);
        if ready && fresh && !(pod_is_ready(pod) && pod.metadata.deletion_timestamp.is_none()) {
            return Err(format!(
                "slice {} (resourceVersion {}) says {name} (resourceVersion {pod_rv}) is ready; it is not",
                o.name(),
                rv(o)
            ));
        }
    }
    Ok(())
}

/// The legacy Endpoints: ready addresses only for ready pods, at most 1000.
fn check_legacy_endpoints(c: &Cluster, pods: &BTreeMap<String, Pod>) -> Result<(), String> {
    for o in c.list(Kind::Endpoints, None) {
        let Object::Endpoints(ep) = &o else { continue };
        let mut total = 0;
        for subset in ep.subsets.iter().flatten() {
            total += subset.addresses.as_ref().map_or(0, Vec::len)
                + subset.not_ready_addresses.as_ref().map_or(0, Vec::len);
            for a in subset.addresses.iter().flatten() {
                let Some(target) = a.target_ref.as_ref() else {
                    continue;
                };
                let name = format!(
                    "{}/{}",
                    target.namespace.as_deref().unwrap_or_default(),
                    target.name.as_deref().unwrap_or_default()
                );
                let Some(pod) = pods.get(&name).filter(|p| p.metadata.uid == target.uid) else {
                    continue;
                };
                let fresh = rv(&Object::Pod(Box::new(pod.clone()))) < rv(&o);
                if fresh && !(pod_is_ready(pod) && pod.metadata.deletion_timestamp.is_none()) {
                    return Err(format!(
                        "Endpoints {} lists {name} as ready; it is not",
                        pod_name(&o)
                    ));
                }
            }
        }
        if total > 1000 {
            return Err(format!(
                "Endpoints {} holds {total} addresses",
                pod_name(&o)
            ));
        }
    }
    Ok(())
}

/// Ends every fault: every node up and reachable, every component and member started.
fn end_faults(c: &mut Cluster) {
    for n in NODES {
        let _ = c.fault(Fault::RestartNode(n.into()));
        let _ = c.fault(Fault::HealNode(n.into()));
    }
    // Every apiserver and member up first, so that the uncordons get through.
    for comp in ControlPlaneComponent::ALL {
        let _ = c.fault(Fault::StartComponent(comp));
    }
    for i in 0..3 {
        let _ = c.fault(Fault::StartEtcdMember(format!("etcd-{i}")));
    }
    for n in NODES {
        let _ = cordon(c, n, false);
    }
    for comp in ControlPlaneComponent::ALL {
        let _ = c.fault(Fault::StartComponent(comp));
    }
    for i in 0..3 {
        let _ = c.fault(Fault::StartEtcdMember(format!("etcd-{i}")));
    }
}

fn condition_true(p: &Pod) -> bool {
    pod_is_ready(p) && p.metadata.deletion_timestamp.is_none()
}

fn active_on(c: &Cluster, node: &str) -> Vec<Pod> {
    c.pods_on_node(node)
        .iter()
        .filter_map(|o| o.as_pod())
        .filter(|p| {
            !matches!(
                p.status.as_ref().and_then(|s| s.phase.as_deref()),
                Some("Succeeded") | Some("Failed")
            )
        })
        .cloned()
        .collect()
}

/// The nodes an unbound pod may go to: the one a daemon pod's `matchFields` names,
/// else those whose labels its nodeSelector matches and whose taints it tolerates.
fn candidate_nodes(c: &Cluster, pod: &Pod) -> Vec<String> {
    let spec = pod.spec.clone().unwrap_or_default();
    let pinned: Vec<String> = spec
        .affinity
        .iter()
        .flat_map(|a| a.node_affinity.iter())
        .flat_map(|a| a.required_during_scheduling_ignored_during_execution.iter())
        .flat_map(|r| r.node_selector_terms.iter())
        .flat_map(|t| t.match_fields.iter().flatten())
        .filter(|f| f.key == "metadata.name")
        .flat_map(|f| f.values.iter().flatten().cloned())
        .collect();
    let selector = spec.node_selector.clone().unwrap_or_default();
    let tolerations = spec.tolerations.clone().unwrap_or_default();
    c.list(Kind::Node, None)
        .iter()
        .filter_map(|o| o.as_node())
        .filter(|n| {
            let name = n.metadata.name.clone().unwrap_or_default();
            (pinned.is_empty() || pinned.contains(&name)) && node_admits(n, &selector, &tolerations)
        })
        .filter_map(|n| n.metadata.name.clone())
        .collect()
}

/// Whether node `n` has the labels of `selector` and `tolerations` tolerate its
/// taints (but the PreferNoSchedule ones).
fn node_admits(n: &Node, selector: &BTreeMap<String, String>, tolerations: &[Toleration]) -> bool {
    let labels = n.metadata.labels.clone().unwrap_or_default();
    let taints = n
        .spec
        .as_ref()
        .and_then(|s| s.taints.clone())
        .unwrap_or_default();
    selector.iter().all(|(k, v)| labels.get(k) == Some(v))
        && taints
            .iter()
            .filter(|t| t.effect != "PreferNoSchedule")
            .all(|t| tolerations.iter().any(|tol| tolerates(tol, t)))
}

/// An unbound pod that fits on none of the nodes it may go to: the scheduler neither
/// preempts (equal priorities) nor rebalances, so it rightly waits.
fn fits_nowhere(c: &Cluster, pod: &Pod) -> bool {
    candidate_nodes(c, pod).iter().all(|node| {
        let mut pods = active_on(c, node);
        pods.push(pod.clone());
        check_fits(c, node, &pods.iter().collect::<Vec<_>>(), "").is_err()
    })
}

/// What holds once faults have ended and time has passed: every Deployment has its
/// replicas ready, every DaemonSet a ready pod on each node it should run on, every
/// Service's slices exactly its ready pods.
fn check_converged(c: &Cluster) -> Result<(), String> {
    let pods: Vec<Pod> = c
        .list(Kind::Pod, None)
        .iter()
        .filter_map(|o| o.as_pod().cloned())
        .collect();
    check_deleted_nodes_forgotten(c, &pods)?;
    let waiting = waiting_pods(c, &pods)?;
    check_deployments(c, &pods, &waiting)?;
    check_replica_sets(c, &pods, &waiting)?;
    check_runtimes(c)?;
    check_daemon_sets(c, &pods, &waiting)?;
    check_services(c, &pods)
}

/// Deleted nodes leave nothing behind: no pod bound to one (the pod garbage
/// collector), no daemon pod meant for one (the DaemonSet controller), no endpoint on
/// one (the EndpointSlice controller).
fn check_deleted_nodes_forgotten(c: &Cluster, pods: &[Pod]) -> Result<(), String> {
    let existing: BTreeSet<String> = c
        .list(Kind::Node, None)
        .iter()
        .map(|o| o.name().to_string())
        .collect();
    for p in pods {
        let bound = p.spec.as_ref().and_then(|s| s.node_name.clone());
        if let Some(node) = bound.filter(|n| !existing.contains(n)) {
            return Err(format!(
                "pod {} is bound to {node}, which no longer exists",
                p.metadata.name.as_deref().unwrap_or_default()
            ));
        }
        let is_daemon = p
            .metadata
            .owner_references
            .iter()
            .flatten()
            .any(|r| r.kind == "DaemonSet" && r.controller == Some(true));
        if is_daemon && has_target_node(p) && pod_is_active(p) && candidate_nodes(c, p).is_empty() {
            return Err(format!(
                "daemon pod {} is meant for a node that no longer exists",
                p.metadata.name.as_deref().unwrap_or_default()
            ));
        }
    }
    for o in c.list(Kind::EndpointSlice, None) {
        let Object::EndpointSlice(s) = &o else {
            continue;
        };
        for e in s.endpoints.iter().flatten() {
            if let Some(node) = e.node_name.as_ref().filter(|n| !existing.contains(*n)) {
                return Err(format!(
                    "EndpointSlice {} has an endpoint on {node}, which no longer exists",
                    o.name()
                ));
            }
        }
    }
    Ok(())
}

/// Every pod left is running and ready (a relabeled orphan included), or waits for
/// room that no node it may go to has: the uids of those that wait.
fn waiting_pods(c: &Cluster, pods: &[Pod]) -> Result<BTreeSet<String>, String> {
    let mut waiting: BTreeSet<String> = BTreeSet::new();
    for p in pods.iter().filter(|p| pod_is_active(p)) {
        let bound = p.spec.as_ref().and_then(|s| s.node_name.clone());
        if bound.is_none() && fits_nowhere(c, p) {
            waiting.insert(p.metadata.uid.clone().unwrap_or_default());
        } else if !condition_true(p) {
            return Err(format!(
                "pod {} on {bound:?} is not ready: {:?} (it may go to {:?})",
                p.metadata.name.as_deref().unwrap_or_default(),
                p.status.as_ref().and_then(|s| s.phase.clone()),
                candidate_nodes(c, p)
            ));
        }
    }
    Ok(waiting)
}

/// Whether `p` is one of the `waiting` pods (by uid).
fn is_waiting(waiting: &BTreeSet<String>, p: &Pod) -> bool {
    waiting.contains(p.metadata.uid.as_deref().unwrap_or_default())
}

/// Every Deployment none of whose pods waits has its replicas ready and its
/// generation observed.
fn check_deployments(c: &Cluster, pods: &[Pod], waiting: &BTreeSet<String>) -> Result<(), String> {
    for o in c.list(Kind::Deployment, None) {
        let d = o.as_deployment().unwrap();
        let want = d.spec.replicas.unwrap_or(1);
        let selects = |p: &&Pod| {
            p.metadata.namespace.as_deref() == Some(o.namespace())
                && warehouse_sim::controllers::selector_matches(
                    &d.spec.selector,
                    &p.metadata.labels.clone().unwrap_or_default(),
                )
        };
        if pods.iter().filter(selects).any(|p| is_waiting(waiting, p)) {
            continue; // short of room: it cannot finish
        }
        let st = d.status.clone().unwrap_or_default();
        let got = (
            st.replicas.unwrap_or(0),
            st.updated_replicas.unwrap_or(0),
            st.ready_replicas.unwrap_or(0),
            st.available_replicas.unwrap_or(0),
        );
        if got != (want, want, want, want) || st.observed_generation != d.metadata.generation {
            return Err(format!(
                "Deployment {} wants {want} replicas; (replicas, updated, ready, available) = {got:?}, observed generation {:?} of {:?}",
                pod_name(&o),
                st.observed_generation,
                d.metadata.generation
            ));
        }
    }
    Ok(())
}

/// Every ReplicaSet controls only pods its selector matches and, unless one of them
/// waits, has its replicas ready.
fn check_replica_sets(c: &Cluster, pods: &[Pod], waiting: &BTreeSet<String>) -> Result<(), String> {
    let owned_by = |uid: &Option<String>| {
        pods.iter()
            .filter(|p| {
                p.metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|r| Some(&r.uid) == uid.as_ref() && r.controller == Some(true))
            })
            .filter(|p| pod_is_active(p))
            .collect::<Vec<_>>()
    };
    for o in c.list(Kind::ReplicaSet, None) {
        let rs = o.as_replica_set().unwrap();
        let want = rs.spec.replicas.unwrap_or(1);
        let active = owned_by(&rs.metadata.uid);
        for p in &active {
            let labels = p.metadata.labels.clone().unwrap_or_default();
            if !warehouse_sim::controllers::selector_matches(&rs.spec.selector, &labels) {
                return Err(format!(
                    "ReplicaSet {} controls {}, which its selector does not match",
                    pod_name(&o),
                    p.metadata.name.as_deref().unwrap_or_default()
                ));
            }
        }
        if active.iter().any(|p| is_waiting(waiting, p)) {
            continue;
        }
        let ready = active.iter().filter(|p| condition_true(p)).count() as i32;
        let st = rs.status.clone().unwrap_or_default();
        let got = (
            active.len() as i32,
            ready,
            st.replicas,
            st.ready_replicas.unwrap_or(0),
        );
        if got != (want, want, want, want) {
            return Err(format!(
                "ReplicaSet {} wants {want}: (pods, ready pods, status replicas, status ready) = {got:?}",
                pod_name(&o)
            ));
        }
    }
    Ok(())
}

/// The runtimes run exactly the pods bound to their nodes, all of them running.
fn check_runtimes(c: &Cluster) -> Result<(), String> {
    for node in NODES {
        let runs: BTreeSet<String> = c
            .runtime_pods(node)
            .iter()
            .map(|k| format!("{k}"))
            .collect();
        let bound: BTreeSet<String> = c
            .pods_on_node(node)
            .iter()
            .filter(|o| o.as_pod().is_some_and(pod_is_active))
            // Static pods are the control plane's (`control_plane.rs`).
            .filter(|o| {
                !o.as_pod()
                    .is_some_and(warehouse_sim::runtime::control_plane::is_mirror_pod)
            })
            .map(|o| format!("{}", o.key()))
            .collect();
        if runs != bound {
            return Err(format!("{node} runs {runs:?}; bound to it are {bound:?}"));
        }
    }
    Ok(())
}

/// Whether a pod names the node it is for: bound to one, or pinned by `matchFields`
/// as a DaemonSet makes its pods. An orphan a DaemonSet adopted while it was Pending
/// (relabelled from a Deployment) names none, and upstream's controller skips it
/// (`GetTargetNodeName` fails) until the scheduler binds it.
fn has_target_node(p: &Pod) -> bool {
    let spec = p.spec.as_ref();
    spec.and_then(|s| s.node_name.as_ref()).is_some()
        || spec
            .and_then(|s| s.affinity.as_ref())
            .and_then(|a| a.node_affinity.as_ref())
            .is_some()
}

/// Every DaemonSet runs one ready pod on each node it should run on (a waiting pod
/// counts for the nodes it may go to), all matching its selector, and says so.
fn check_daemon_sets(c: &Cluster, pods: &[Pod], waiting: &BTreeSet<String>) -> Result<(), String> {
    let nodes: Vec<Object> = c.list(Kind::Node, None);
    for o in c.list(Kind::DaemonSet, None) {
        let Object::DaemonSet(ds) = &o else { continue };
        let spec = ds.spec.clone();
        let template = spec.template.spec.clone().unwrap_or_default();
        let eligible = daemon_nodes(&nodes, &template);
        let uid = ds.metadata.uid.clone();
        let mut on: BTreeMap<String, usize> = BTreeMap::new();
        let mut short = 0;
        for p in pods {
            let owned = p
                .metadata
                .owner_references
                .iter()
                .flatten()
                .any(|r| Some(&r.uid) == uid.as_ref());
            if owned && pod_is_active(p) && has_target_node(p) {
                let node = match p.spec.as_ref().and_then(|s| s.node_name.clone()) {
                    Some(n) => n,
                    None if is_waiting(waiting, p) => {
                        short += 1;
                        candidate_nodes(c, p).join(",")
                    }
                    None => String::new(),
                };
                let labels = p.metadata.labels.clone().unwrap_or_default();
                if !warehouse_sim::controllers::selector_matches(&spec.selector, &labels) {
                    return Err(format!(
                        "DaemonSet {} controls a pod on {node} its selector does not match",
                        pod_name(&o)
                    ));
                }
                *on.entry(node).or_default() += 1;
            }
        }
        let expected: BTreeMap<String, usize> = eligible.iter().map(|n| (n.clone(), 1)).collect();
        let st = ds.status.clone().unwrap_or_default();
        let n = eligible.len() as i32;
        let counts = (
            st.desired_number_scheduled,
            st.current_number_scheduled,
            st.number_ready,
            st.updated_number_scheduled.unwrap_or(0),
        );
        if on != expected || counts != (n, n, n - short, n) {
            return Err(format!(
                "DaemonSet {} should run one ready pod on each of {eligible:?}: it runs {on:?}; status (desired, current, ready, updated) = {counts:?}",
                pod_name(&o)
            ));
        }
    }
    Ok(())
}

/// The names of the `nodes` a daemon pod of `template` should run on: those whose
/// labels its nodeSelector matches and whose taints it tolerates.
fn daemon_nodes(nodes: &[Object], template: &PodSpec) -> BTreeSet<String> {
    let selector = template.node_selector.clone().unwrap_or_default();
    // The template's tolerations and the ones every daemon pod gets
    // (`AddOrUpdateDaemonPodTolerations`).
    let mut tolerations = template.tolerations.clone().unwrap_or_default();
    for (key, effect) in [
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ] {
        tolerations.push(Toleration {
            key: Some(key.into()),
            operator: Some("Exists".into()),
            effect: Some(effect.into()),
            ..Default::default()
        });
    }
    nodes
        .iter()
        .filter_map(|n| n.as_node())
        .filter(|n| node_admits(n, &selector, &tolerations))
        .filter_map(|n| n.metadata.name.clone())
        .collect()
}

/// Every Service's slices list exactly its ready pods, all of them ready.
fn check_services(c: &Cluster, pods: &[Pod]) -> Result<(), String> {
    for o in c.list(Kind::Service, None) {
        let Object::Service(svc) = &o else { continue };
        let Some(selector) = svc.spec.as_ref().and_then(|s| s.selector.clone()) else {
            continue;
        };
        let expected: BTreeSet<String> = pods
            .iter()
            .filter(|p| p.metadata.namespace.as_deref() == Some(o.namespace()))
            .filter(|p| {
                let labels = p.metadata.labels.clone().unwrap_or_default();
                selector.iter().all(|(k, v)| labels.get(k) == Some(v))
            })
            .filter(|p| condition_true(p) && pod_is_active(p))
            .filter_map(|p| p.metadata.name.clone())
            .collect();
        let mut listed = BTreeSet::new();
        let mut ready = BTreeSet::new();
        for s in c.list(Kind::EndpointSlice, Some(o.namespace())) {
            let Object::EndpointSlice(slice) = &s else {
                continue;
            };
            let labels = slice.metadata.labels.clone().unwrap_or_default();
            if labels.get("kubernetes.io/service-name").map(String::as_str) != Some(o.name()) {
                continue;
            }
            for e in slice.endpoints.iter().flatten() {
                let name = e
                    .target_ref
                    .as_ref()
                    .and_then(|t| t.name.clone())
                    .unwrap_or_default();
                if e.conditions.as_ref().and_then(|c| c.ready) == Some(true) {
                    ready.insert(name.clone());
                }
                listed.insert(name);
            }
        }
        if o.namespace() == "default" && o.name() == "kubernetes" {
            continue; // the apiserver's own endpoints, not pods
        }
        if listed != expected || ready != expected {
            return Err(format!(
                "Service {}'s slices list {listed:?} (ready {ready:?}); its ready pods are {expected:?}",
                pod_name(&o)
            ));
        }
    }
    Ok(())
}

/// Runs `case`, checking the invariants after every step when `check` is set, and
/// returns the transcript: every step's answer, the clock and the revision, and a
/// digest of the whole cluster at the end.
fn run(case: &Case, check: bool) -> Result<String, String> {
    let mut c = Cluster::new(case.seed, topology(case.etcd_members));
    c.set_max_endpoints_per_slice(case.max_endpoints_per_slice)?;
    let mut h = History::default();
    let mut transcript = String::new();
    for (i, op) in case.ops.iter().enumerate() {
        let answer = step(&mut c, op);
        transcript.push_str(&format!(
            "{i} {op:?}: {answer} @{} r{}\n",
            c.now().0,
            c.revision()
        ));
        if check {
            check_always(&c, &mut h, op, &answer)
                .map_err(|e| format!("after step {i} {op:?}: {e}"))?;
        }
    }
    end_faults(&mut c);
    let settle = Op::Advance(SimDuration::secs(30));
    let mut converged = Err(String::new());
    for _ in 0..20 {
        let answer = step(&mut c, &settle);
        if check {
            check_always(&c, &mut h, &settle, &answer)
                .map_err(|e| format!("while settling: {e}"))?;
        }
        converged = check_converged(&c);
    }
    if check {
        converged.map_err(|e| format!("after the faults ended: {e}"))?;
    }
    if check && std::env::var("FAULTS_DEBUG").is_ok() {
        eprintln!("{transcript}");
        let count = |k: Kind| c.list(k, Some("default")).len();
        eprintln!(
            "pods {} deploy {} ds {} svc {} slices {}",
            count(Kind::Pod),
            count(Kind::Deployment),
            count(Kind::DaemonSet),
            count(Kind::Service),
            count(Kind::EndpointSlice)
        );
    }
    let digest = warehouse_sim::snapshot::fnv1a64(&c.snapshot());
    transcript.push_str(&format!(
        "end @{} r{} digest {digest:016x}\n",
        c.now().0,
        c.revision()
    ));
    Ok(transcript)
}

/// Runs a fixed sequence (a case the property test found) with every check.
fn replay(etcd_members: usize, max_endpoints_per_slice: usize, ops: Vec<Op>) {
    let case = Case {
        seed: 0,
        etcd_members,
        max_endpoints_per_slice,
        ops,
    };
    if let Err(e) = run(&case, true) {
        panic!("{e}");
    }
}

const fn secs(n: u64) -> Op {
    Op::Advance(SimDuration::secs(n))
}

/// Pod names the EndpointSlices of Service `name` list.
fn slice_pods(c: &Cluster, name: &str) -> Vec<String> {
    c.list(Kind::EndpointSlice, Some("default"))
        .iter()
        .filter_map(|o| match o {
            Object::EndpointSlice(s) => Some(s),
            _ => None,
        })
        .filter(|s| {
            s.metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("kubernetes.io/service-name"))
                == Some(&name.to_string())
        })
        .flat_map(|s| s.endpoints.iter().flatten())
        .filter_map(|e| e.target_ref.as_ref()?.name.clone())
        .collect()
}

const SOLO: &str = "apiVersion: v1
kind: Pod
metadata:
  name: solo
  labels: {app: solo}
spec:
  containers:
  - name: app
    image: nginx:1.27
";

const SOLO_SERVICE: &str = "apiVersion: v1
kind: Service
metadata:
  name: solo
spec:
  selector: {app: solo}
  ports:
  - port: 80
";

/// The EndpointSlice controller remembered which Services selected a pod at the
/// pod's last event, so a Service created since was not synced when the pod's
/// labels changed or it was deleted: its slice kept a pod it no longer selects, or
/// one that is gone.
#[test]
fn a_service_created_after_its_pod_forgets_it_when_it_is_relabeled_or_deleted() {
    for relabel in [true, false] {
        let mut c = Cluster::new(1, Topology::default());
        create(&mut c, SOLO);
        c.advance(SimDuration::secs(30));
        create(&mut c, SOLO_SERVICE);
        c.advance(SimDuration::secs(1));
        assert_eq!(slice_pods(&c, "solo"), ["solo"]);
        if relabel {
            let Ok(Object::Pod(mut pod)) = c.get(Kind::Pod, "default", "solo") else {
                panic!("the pod is there")
            };
            pod.metadata
                .labels
                .get_or_insert_with(Default::default)
                .insert("app".into(), "other".into());
            c.update(Object::Pod(pod)).unwrap();
        } else {
            c.delete_with_grace(Kind::Pod, "default", "solo", 0)
                .unwrap();
        }
        c.advance(SimDuration::secs(1));
        assert!(
            slice_pods(&c, "solo").is_empty(),
            "relabel {relabel}: {:?}",
            slice_pods(&c, "solo")
        );
    }
}

const STRAY: &str = "apiVersion: v1
kind: Pod
metadata:
  name: stray
  labels: {app: agent}
spec:
  nodeName: zone-a
  containers:
  - name: agent
    image: nginx:1.27
";

/// The active pods a DaemonSet controls, by node.
fn daemon_pods(c: &Cluster, name: &str) -> BTreeMap<String, Vec<String>> {
    let uid = c
        .get(Kind::DaemonSet, "default", name)
        .unwrap()
        .meta()
        .uid
        .clone();
    let mut by_node: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for o in c.list(Kind::Pod, Some("default")) {
        let p = o.as_pod().unwrap();
        let controlled = p
            .metadata
            .owner_references
            .iter()
            .flatten()
            .any(|r| r.controller == Some(true) && Some(&r.uid) == uid.as_ref());
        if controlled && pod_is_active(p) {
            let node = p
                .spec
                .as_ref()
                .and_then(|s| s.node_name.clone())
                .unwrap_or_default();
            by_node.entry(node).or_default().push(o.name().to_string());
        }
    }
    by_node
}

/// The DaemonSet controller did not claim pods (`ClaimPods`): an orphan pod its
/// selector matches was never adopted.
#[test]
fn a_daemon_set_adopts_an_orphan_pod_that_matches() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, STRAY);
    c.advance(SimDuration::secs(10));
    create(&mut c, &agent_daemon_set(""));
    c.advance(SimDuration::secs(30));
    // Adopted, then replaced: it lacks the template's hash (`IsPodUpdated`).
    assert!(
        c.get(Kind::Pod, "default", "stray").is_err(),
        "the stray pod was adopted and rolled"
    );
    let pods = daemon_pods(&c, "agent");
    assert!(
        pods.len() == 3 && pods.values().all(|p| p.len() == 1),
        "{pods:?}"
    );
}

/// The DaemonSet controller did not claim pods: a pod relabeled out of its selector
/// stayed its pod, so it made no replacement.
#[test]
fn a_daemon_set_releases_a_pod_it_no_longer_selects() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &agent_daemon_set(""));
    c.advance(SimDuration::secs(30));
    let on_b = daemon_pods(&c, "agent")["zone-b"][0].clone();
    let Ok(Object::Pod(mut pod)) = c.get(Kind::Pod, "default", &on_b) else {
        panic!("the pod is there")
    };
    pod.metadata
        .labels
        .get_or_insert_with(Default::default)
        .insert("app".into(), "debug".into());
    c.update(Object::Pod(pod)).unwrap();
    c.advance(SimDuration::secs(30));
    let pods = daemon_pods(&c, "agent");
    assert!(
        pods.len() == 3 && pods.values().all(|p| p.len() == 1),
        "{pods:?}"
    );
    assert!(!pods["zone-b"].contains(&on_b), "released: {pods:?}");
    let released = c.get(Kind::Pod, "default", &on_b).unwrap();
    assert!(released.meta().owner_references.is_none(), "an orphan now");
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn invariants_hold_under_random_faults_and_the_cluster_recovers(case in case()) {
        let first = run(&case, true);
        prop_assert!(first.is_ok(), "{}", first.unwrap_err());
        let again = run(&case, false).unwrap();
        prop_assert_eq!(first.unwrap(), again, "the same seed and steps give the same transcript");
    }
}

/// Found by the property test: with two nodes down, every Deployment pod went to
/// the third, which then had no room left for a DaemonSet's pod once the others came
/// back. That pod rightly waits (no preemption among equal priorities, no
/// rebalancing); the checks accept a pod only when no node it may go to has room.
#[test]
fn regression_a_daemon_pod_waits_when_its_node_is_full() {
    replay(
        1,
        2,
        vec![
            Op::Apply {
                w: 1,
                replicas: 3,
                image: 0,
            },
            secs(30),
            Op::Apply {
                w: 0,
                replicas: 3,
                image: 0,
            },
            Op::Fault(Fault::KillNode("zone-b".into())),
            Op::Fault(Fault::PartitionNode("zone-a".into())),
            secs(36),
            Op::Apply {
                w: 2,
                replicas: 3,
                image: 0,
            },
            Op::Fault(Fault::PartitionNode("control-plane".into())),
            secs(319),
            Op::Apply {
                w: 3,
                replicas: 0,
                image: 0,
            },
        ],
    );
}

/// Found by the property test, a mistake of the checks: a snapshot save refused
/// while etcd is stopped leaves the slot's earlier snapshot, which a restore brings
/// back.
#[test]
fn regression_a_refused_snapshot_save_keeps_the_earlier_snapshot() {
    replay(
        1,
        2,
        vec![
            secs(30),
            Op::EtcdSave(1),
            secs(10),
            Op::Fault(Fault::StopComponent(ControlPlaneComponent::Etcd)),
            Op::EtcdSave(1),
            Op::EtcdRestore(1),
        ],
    );
}

/// Found by the property test: a pod deleted just after an etcd snapshot came back
/// with the restore, terminating, and its kubelet confirmed the deletion; the
/// EndpointSlice controller had forgotten the pod's labels at the first deletion, so
/// the second found no Service to sync and kube-dns's slice kept the gone pod.
#[test]
fn regression_a_pod_deleted_again_after_a_restore_leaves_its_slice() {
    replay(
        1,
        2,
        vec![
            secs(30),
            Op::Fault(Fault::KillNode("zone-a".into())),
            secs(358),
            Op::Fault(Fault::RestartNode("zone-a".into())),
            Op::EtcdSave(1),
            Op::Advance(SimDuration::millis(20)),
            Op::EtcdRestore(1),
        ],
    );
}

/// After a restore the controller manager lists again: a pod the restore brought
/// back to its old labels is known with them, so relabeling it once more syncs the
/// Service it leaves.
#[test]
fn a_pod_back_from_a_restore_leaves_its_service_when_relabeled() {
    let relabel = |c: &mut Cluster, app: &str| {
        let Ok(Object::Pod(mut pod)) = c.get(Kind::Pod, "default", "solo") else {
            panic!("the pod is there")
        };
        pod.metadata
            .labels
            .get_or_insert_with(Default::default)
            .insert("app".into(), app.into());
        c.update(Object::Pod(pod)).unwrap();
        c.advance(SimDuration::secs(1));
    };
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, SOLO);
    create(&mut c, SOLO_SERVICE);
    c.advance(SimDuration::secs(30));
    c.etcd_snapshot_save("s").unwrap();
    relabel(&mut c, "b");
    assert!(slice_pods(&c, "solo").is_empty());
    c.etcd_snapshot_restore("s").unwrap();
    c.advance(SimDuration::secs(30));
    assert_eq!(slice_pods(&c, "solo"), ["solo"]);
    relabel(&mut c, "c");
    assert!(
        slice_pods(&c, "solo").is_empty(),
        "{:?}",
        slice_pods(&c, "solo")
    );
}

/// Node deletion under load: a worker with Deployment and DaemonSet pods goes; after
/// the quarantine its pods are collected together, their replacements land on the
/// other workers, the DaemonSets keep exactly one pod per remaining node, and no
/// endpoint names the deleted node.
#[test]
fn regression_a_deleted_worker_leaves_nothing_behind() {
    replay(
        1,
        100,
        vec![
            Op::Apply {
                w: 0,
                replicas: 5,
                image: 0,
            },
            Op::Apply {
                w: 3,
                replicas: 1,
                image: 0,
            },
            Op::ApplyService { w: 0, selects: 0 },
            Op::ApplyService { w: 3, selects: 3 },
            secs(60),
            Op::DeleteNode("zone-b".into()),
            secs(5),
            Op::Fault(Fault::StopComponent(ControlPlaneComponent::Scheduler)),
            Op::DeleteNode("zone-c".into()),
            secs(30),
            Op::Fault(Fault::StartComponent(ControlPlaneComponent::Scheduler)),
            secs(120),
        ],
    );
}

/// Found by the property test: a Deployment's pod relabelled into a DaemonSet's
/// selector is adopted while Pending and unpinned; once every worker is deleted it
/// has no node at all, and (as upstream) nothing deletes it.
#[test]
fn regression_an_adopted_pending_pod_outlives_every_worker() {
    let case = Case {
        seed: 56107,
        etcd_members: 3,
        max_endpoints_per_slice: 2,
        ops: vec![
            Op::Apply {
                w: 1,
                replicas: 1,
                image: 1,
            },
            Op::Apply {
                w: 1,
                replicas: 4,
                image: 0,
            },
            Op::ApplyService { w: 1, selects: 1 },
            Op::Apply {
                w: 4,
                replicas: 4,
                image: 1,
            },
            Op::Advance(SimDuration::millis(30000)),
            Op::ApplyService { w: 1, selects: 1 },
            Op::Fault(Fault::RestartNode("zone-a".into())),
            Op::Fault(Fault::StartEtcdMember("etcd-1".into())),
            Op::DeleteNode("zone-b".into()),
            Op::Advance(SimDuration::millis(165000)),
            Op::Advance(SimDuration::millis(43000)),
            Op::Fault(Fault::StartComponent(
                warehouse_sim::ControlPlaneComponent::Etcd,
            )),
            Op::DeleteNode("zone-c".into()),
            Op::Advance(SimDuration::millis(171000)),
            Op::DeleteNode("zone-a".into()),
            Op::Fault(Fault::HealNode("zone-b".into())),
            Op::ApplyService { w: 2, selects: 2 },
            Op::DeleteWorkload { w: 4 },
            Op::Advance(SimDuration::millis(174000)),
            Op::Fault(Fault::StopEtcdMember("etcd-1".into())),
            Op::Fault(Fault::KillNode("zone-c".into())),
            Op::Fault(Fault::RestartNode("zone-c".into())),
            Op::Apply {
                w: 4,
                replicas: 1,
                image: 0,
            },
            Op::Fault(Fault::PartitionNode("zone-c".into())),
            Op::LabelPod { n: 11, app: 4 },
            Op::Cordon {
                node: "zone-c".into(),
                on: true,
            },
            Op::Fault(Fault::RestartNode("zone-b".into())),
            Op::Scale { w: 2, replicas: 4 },
            Op::Apply {
                w: 2,
                replicas: 1,
                image: 1,
            },
        ],
    };
    run(&case, true).unwrap();
}

/// Found by the property test, a mistake of the checks: step 44 restores a snapshot
/// saved while a pod now running on zone-a was Pending. Right after the restore
/// zone-a still runs the pod, unbound; its kubelet's relist stops it.
#[test]
fn regression_a_pod_the_restore_unbinds_stops_at_the_kubelets_relist() {
    let case = restore_unbinds_a_running_pod();
    run(&case, true).unwrap();
    let mut c = Cluster::new(case.seed, topology(case.etcd_members));
    c.set_max_endpoints_per_slice(case.max_endpoints_per_slice)
        .unwrap();
    for op in &case.ops[..=44] {
        step(&mut c, op);
    }
    assert!(matches!(case.ops[44], Op::EtcdRestore(0)));
    // What a node runs that is not bound to it: pods the snapshot does not hold, and
    // one it holds unbound.
    let strays = |c: &Cluster| -> Vec<String> {
        let mut out = Vec::new();
        for node in WORKERS {
            for key in c.runtime_pods(node) {
                let on = match c.get(Kind::Pod, &key.namespace, &key.name) {
                    Ok(o) => format!(
                        "{:?}",
                        o.as_pod().and_then(|p| p.spec.as_ref()?.node_name.clone())
                    ),
                    Err(_) => "gone".into(),
                };
                if on != format!("{:?}", Some(node)) {
                    out.push(format!("{} on {node}: {on}", key.name));
                }
            }
        }
        out
    };
    // (Which pods these are depends on every placement before, so only their kind
    // is asserted: at least one the restore left unbound.)
    let before = strays(&c);
    assert!(before.iter().any(|s| s.ends_with(": None")), "{before:?}");
    c.advance(SimDuration::secs(1));
    assert_eq!(strays(&c), Vec::<String>::new());
}

/// The case [`regression_a_pod_the_restore_unbinds_stops_at_the_kubelets_relist`] plays.
fn restore_unbinds_a_running_pod() -> Case {
    let part = |n: &str| Op::Fault(Fault::PartitionNode(n.into()));
    let heal = |n: &str| Op::Fault(Fault::HealNode(n.into()));
    let kill = |n: &str| Op::Fault(Fault::KillNode(n.into()));
    let millis = |n: u64| Op::Advance(SimDuration::millis(n));
    Case {
        seed: 14412731214716407759,
        etcd_members: 3,
        max_endpoints_per_slice: 100,
        ops: vec![
            Op::ApplyService { w: 3, selects: 3 },
            Op::Apply {
                w: 3,
                replicas: 2,
                image: 1,
            },
            Op::Apply {
                w: 0,
                replicas: 5,
                image: 1,
            },
            Op::ApplyService { w: 1, selects: 1 },
            Op::Apply {
                w: 1,
                replicas: 4,
                image: 1,
            },
            millis(30000),
            part("zone-c"),
            Op::ApplyService { w: 4, selects: 4 },
            millis(5150),
            part("zone-c"),
            Op::LabelPod { n: 14, app: 4 },
            Op::Fault(Fault::StartComponent(ControlPlaneComponent::Scheduler)),
            heal("zone-b"),
            heal("zone-c"),
            kill("zone-c"),
            part("zone-c"),
            kill("zone-a"),
            part("zone-a"),
            Op::DeletePod { n: 16 },
            Op::Fault(Fault::StopComponent(ControlPlaneComponent::ApiServer)),
            Op::ApplyService { w: 1, selects: 1 },
            Op::DeleteService { w: 0 },
            Op::Fault(Fault::StartComponent(ControlPlaneComponent::ApiServer)),
            Op::ApplyService { w: 1, selects: 1 },
            millis(336000),
            Op::DeleteWorkload { w: 4 },
            heal("zone-c"),
            Op::Fault(Fault::StartEtcdMember("etcd-1".into())),
            millis(156000),
            Op::DeleteService { w: 1 },
            Op::EtcdSave(0),
            Op::DeletePod { n: 8 },
            Op::Cordon {
                node: "zone-b".into(),
                on: true,
            },
            Op::ApplyService { w: 4, selects: 0 },
            heal("zone-a"),
            Op::EtcdRestore(1),
            millis(170000),
            Op::EtcdRestore(1),
            Op::Apply {
                w: 4,
                replicas: 4,
                image: 1,
            },
            Op::Fault(Fault::StartEtcdMember("etcd-1".into())),
            Op::EtcdSave(1),
            Op::Fault(Fault::RestartNode("zone-a".into())),
            heal("zone-b"),
            millis(333000),
            Op::EtcdRestore(0),
            kill("zone-c"),
            heal("zone-a"),
            part("control-plane"),
            Op::ApplyService { w: 1, selects: 1 },
            Op::DeleteNode("zone-a".into()),
            Op::Apply {
                w: 1,
                replicas: 0,
                image: 1,
            },
            millis(146000),
            Op::Fault(Fault::StartEtcdMember("etcd-1".into())),
            millis(156),
            Op::Fault(Fault::StopEtcdMember("etcd-2".into())),
        ],
    }
}

/// Found by the property test: a snapshot taken after zone-a was deleted still holds
/// its kube-proxy pod; restored after the collector removed that pod, it brings the
/// orphan back with no node event to notice it. The collector's relist finds it (as
/// upstream's periodic pass over every pod does) and collects it after the
/// quarantine.
#[test]
fn regression_a_daemon_pod_of_a_deleted_node_is_collected() {
    let case = Case {
        seed: 17583,
        etcd_members: 1,
        max_endpoints_per_slice: 3,
        ops: vec![
            Op::ApplyService { w: 1, selects: 1 },
            Op::Advance(SimDuration::millis(30000)),
            Op::Fault(Fault::StartEtcdMember("etcd-2".into())),
            Op::Cordon {
                node: "zone-a".into(),
                on: true,
            },
            Op::Fault(Fault::RestartNode("zone-b".into())),
            Op::Fault(Fault::StopComponent(
                warehouse_sim::ControlPlaneComponent::ApiServer,
            )),
            Op::Fault(Fault::PartitionNode("zone-a".into())),
            Op::EtcdSave(1),
            Op::DeleteService { w: 3 },
            Op::Advance(SimDuration::millis(7808)),
            Op::Fault(Fault::StartComponent(
                warehouse_sim::ControlPlaneComponent::Scheduler,
            )),
            Op::Advance(SimDuration::millis(67000)),
            Op::Apply {
                w: 4,
                replicas: 2,
                image: 1,
            },
            Op::Fault(Fault::StartComponent(
                warehouse_sim::ControlPlaneComponent::ApiServer,
            )),
            Op::DeleteNode("zone-a".into()),
            Op::Fault(Fault::StartComponent(
                warehouse_sim::ControlPlaneComponent::ApiServer,
            )),
            Op::Fault(Fault::HealNode("zone-b".into())),
            Op::EtcdSave(1),
            Op::DeleteNode("zone-a".into()),
            Op::LabelPod { n: 13, app: 0 },
            Op::Fault(Fault::PartitionNode("zone-c".into())),
            Op::Fault(Fault::PartitionNode("zone-b".into())),
            Op::Apply {
                w: 0,
                replicas: 2,
                image: 0,
            },
            Op::ApplyService { w: 2, selects: 2 },
            Op::Fault(Fault::StartEtcdMember("etcd-1".into())),
            Op::DeletePod { n: 0 },
            Op::Advance(SimDuration::millis(46000)),
            Op::ApplyService { w: 1, selects: 1 },
            Op::Fault(Fault::StartComponent(
                warehouse_sim::ControlPlaneComponent::Etcd,
            )),
            Op::Apply {
                w: 3,
                replicas: 4,
                image: 1,
            },
            Op::LabelPod { n: 12, app: 3 },
            Op::Advance(SimDuration::millis(222000)),
            Op::Fault(Fault::PartitionNode("zone-a".into())),
            Op::EtcdRestore(1),
            Op::Fault(Fault::StopEtcdMember("etcd-1".into())),
            Op::Fault(Fault::RestartNode("zone-a".into())),
            Op::ApplyService { w: 4, selects: 0 },
            Op::Fault(Fault::PartitionNode("control-plane".into())),
            Op::Advance(SimDuration::millis(242000)),
            Op::Fault(Fault::StopComponent(
                warehouse_sim::ControlPlaneComponent::Scheduler,
            )),
            Op::Apply {
                w: 2,
                replicas: 2,
                image: 0,
            },
            Op::Fault(Fault::StopComponent(
                warehouse_sim::ControlPlaneComponent::Scheduler,
            )),
            Op::Apply {
                w: 1,
                replicas: 2,
                image: 1,
            },
            Op::Advance(SimDuration::millis(244000)),
        ],
    };
    if let Err(e) = run(&case, true) {
        panic!("{e}");
    }
}
