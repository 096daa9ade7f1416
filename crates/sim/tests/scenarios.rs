//! End-to-end behaviour of the simulated cluster, driven through its public API.

mod common;
use common::*;

use warehouse_sim::{
    decode_manifests, Cluster, Fault, Kind, Object, RobotState, SimDuration, Topology,
};

/// Workload robots (not kube-system's) in `state` on one zone.
fn count(c: &Cluster, zone: &str, state: RobotState) -> usize {
    let v = c.view();
    v.nodes
        .iter()
        .filter(|n| n.name == zone)
        .flat_map(|n| &n.pods)
        .filter(|p| !p.system && p.state == state)
        .count()
}

/// Running workload robots on every zone.
fn running_total(c: &Cluster) -> usize {
    let v = c.view();
    v.nodes
        .iter()
        .flat_map(|n| &n.pods)
        .filter(|p| !p.system && p.state == RobotState::Running)
        .count()
}

#[test]
fn deployment_creates_replicaset_and_running_pods_on_workers() {
    let mut c = cluster_with(WEB);
    c.advance(SimDuration::secs(30));
    let rs = c.list(Kind::ReplicaSet, Some("default"));
    assert_eq!(rs.len(), 1);
    let rs_name = rs[0].name().to_string();
    assert!(rs_name.starts_with("web-"), "{rs_name}");
    let hash = &rs_name["web-".len()..];
    assert!(hash.chars().all(|ch| "456789bcdf".contains(ch)), "{hash}");
    let pods = c.list(Kind::Pod, Some("default"));
    assert_eq!(pods.len(), 5);
    for p in &pods {
        let pod = p.as_pod().unwrap();
        let node = pod.spec.as_ref().unwrap().node_name.clone().unwrap();
        assert_ne!(
            node, "control-plane",
            "control-plane taint must keep pods off"
        );
        assert_eq!(
            pod.status.as_ref().unwrap().phase.as_deref(),
            Some("Running")
        );
        let suffix = &p.name()[rs_name.len() + 1..];
        assert_eq!(suffix.len(), 5);
    }
    assert_eq!(running_total(&c), 5);
    let Object::Deployment(d) = c.get(Kind::Deployment, "default", "web").unwrap() else {
        panic!()
    };
    let st = d.status.unwrap();
    assert_eq!(st.ready_replicas, Some(5));
    assert_eq!(st.available_replicas, Some(5));
    assert_eq!(st.updated_replicas, Some(5));
}

#[test]
fn pods_are_not_created_before_the_controllers_react() {
    let c = cluster_with(WEB);
    // Nothing has had time to happen: controllers learn of the Deployment through a
    // watch, a few milliseconds later.
    assert!(c.list(Kind::Pod, Some("default")).is_empty());
}

#[test]
fn killed_zone_goes_not_ready_after_grace_period_and_pods_are_replaced_after_eviction() {
    let mut c = cluster_with(WEB);
    c.advance(SimDuration::secs(30));
    let victim = c
        .view()
        .nodes
        .iter()
        .filter(|n| !n.control_plane)
        .max_by_key(|n| (n.pods.iter().filter(|p| !p.system).count(), n.name.clone()))
        .unwrap()
        .name
        .clone();
    let on_victim = count(&c, &victim, RobotState::Running);
    assert!(on_victim > 0);
    c.fault(Fault::KillNode(victim.clone())).unwrap();

    // Within the 50 s grace period the control plane still believes the node is fine.
    c.advance(SimDuration::secs(30));
    assert_eq!(node_ready(&c, &victim), "True");

    // After it: Ready=Unknown, unreachable taints, pods not ready.
    c.advance(SimDuration::secs(40));
    assert_eq!(node_ready(&c, &victim), "Unknown");
    let taints = node_taints(&c, &victim);
    assert!(taints
        .iter()
        .any(|t| t.key == "node.kubernetes.io/unreachable" && t.effect == "NoExecute"));
    assert!(taints
        .iter()
        .any(|t| t.key == "node.kubernetes.io/unreachable" && t.effect == "NoSchedule"));
    assert_eq!(count(&c, &victim, RobotState::NotReady), on_victim);
    assert_eq!(
        running_total(&c),
        5 - on_victim,
        "no replacement before tolerationSeconds"
    );

    // 300 s after the taint the pods are evicted and replaced on live zones; the
    // evicted ones stay Terminating on the dead node, as in real Kubernetes.
    c.advance(SimDuration::secs(300));
    assert_eq!(count(&c, &victim, RobotState::Terminating), on_victim);
    assert_eq!(count(&c, &victim, RobotState::Running), 0);
    assert_eq!(running_total(&c), 5);

    // The node comes back: its kubelet confirms the deletions.
    c.fault(Fault::RestartNode(victim.clone())).unwrap();
    c.advance(SimDuration::secs(20));
    assert_eq!(count(&c, &victim, RobotState::Terminating), 0);
    assert_eq!(c.list(Kind::Pod, Some("default")).len(), 5);
    assert_eq!(node_ready(&c, &victim), "True");
    assert!(node_taints(&c, &victim).is_empty());
}

#[test]
fn scheduler_only_places_pods_where_cpu_fits_and_reports_failed_scheduling() {
    // Each worker has 4 CPUs: 3 workers × 3 pods of 1200m fit, the tenth does not.
    let manifest = WEB
        .replace("replicas: 5", "replicas: 10")
        .replace("cpu: 100m", "cpu: 1200m");
    let mut c = cluster_with(&manifest);
    c.advance(SimDuration::secs(30));
    let v = c.view();
    assert_eq!(v.unscheduled.len(), 1);
    for n in v.nodes.iter().filter(|n| !n.control_plane) {
        assert_eq!(n.pods.iter().filter(|p| !p.system).count(), 3, "{}", n.name);
        assert!(n.cpu_requested_milli <= n.cpu_allocatable_milli);
    }
    let events = c.list(Kind::Event, Some("default"));
    let failed = events
        .iter()
        .filter_map(|e| match e {
            Object::Event(ev) => Some(ev),
            _ => None,
        })
        .find(|e| e.reason.as_deref() == Some("FailedScheduling"))
        .expect("a FailedScheduling event");
    assert_eq!(
        failed.message.as_deref(),
        Some("0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 3 Insufficient cpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.")
    );
}

#[test]
fn scaling_down_deletes_pods_gracefully_and_the_kubelet_removes_them() {
    let mut c = cluster_with(WEB);
    c.advance(SimDuration::secs(30));
    let Object::Deployment(mut d) = c.get(Kind::Deployment, "default", "web").unwrap() else {
        panic!()
    };
    d.spec.replicas = Some(2);
    c.update(Object::Deployment(d)).unwrap();
    c.advance(SimDuration::millis(200));
    let terminating = c
        .view()
        .nodes
        .iter()
        .flat_map(|n| n.pods.clone())
        .filter(|p| p.state == RobotState::Terminating)
        .count();
    assert_eq!(terminating, 3);
    c.advance(SimDuration::secs(5));
    assert_eq!(c.list(Kind::Pod, Some("default")).len(), 2);
}

#[test]
fn deleting_a_deployment_cascades_to_replicasets_and_pods() {
    let mut c = cluster_with(WEB);
    c.advance(SimDuration::secs(30));
    c.delete(Kind::Deployment, "default", "web").unwrap();
    c.advance(SimDuration::secs(10));
    assert!(c.list(Kind::ReplicaSet, Some("default")).is_empty());
    assert!(c.list(Kind::Pod, Some("default")).is_empty());
}

#[test]
fn rolling_update_keeps_availability_within_max_unavailable() {
    let manifest = WEB.replace("replicas: 5", "replicas: 10");
    let mut c = cluster_with(&manifest);
    c.advance(SimDuration::secs(30));
    let Object::Deployment(mut d) = c.get(Kind::Deployment, "default", "web").unwrap() else {
        panic!()
    };
    d.spec.template.spec.as_mut().unwrap().containers[0].image = Some("nginx:1.28".into());
    c.update(Object::Deployment(d)).unwrap();
    // 10 replicas: maxSurge 3, maxUnavailable 2 → never fewer than 8 ready, never
    // more than 13 pods.
    for _ in 0..300 {
        c.advance(SimDuration::millis(100));
        let pods: Vec<_> = c
            .list(Kind::Pod, Some("default"))
            .into_iter()
            .filter(|p| p.meta().deletion_timestamp.is_none())
            .collect();
        assert!(pods.len() <= 13, "{} pods", pods.len());
        let ready = running_total(&c);
        assert!(ready >= 8, "only {ready} ready");
    }
    let rs = c.list(Kind::ReplicaSet, Some("default"));
    assert_eq!(rs.len(), 2);
    let pods = c.list(Kind::Pod, Some("default"));
    assert_eq!(pods.len(), 10);
    assert!(pods
        .iter()
        .all(|p| p.as_pod().unwrap().spec.as_ref().unwrap().containers[0]
            .image
            .as_deref()
            == Some("nginx:1.28")));
}

#[test]
fn same_seed_and_inputs_give_identical_state() {
    let run = || {
        let mut c = cluster_with(WEB);
        c.advance(SimDuration::secs(30));
        c.fault(Fault::KillNode("zone-a".into())).unwrap();
        c.advance(SimDuration::secs(400));
        let mut out = String::new();
        for kind in [Kind::Pod, Kind::ReplicaSet, Kind::Node, Kind::Event] {
            for o in c.list(kind, None) {
                out.push_str(&o.to_json().to_string());
                out.push('\n');
            }
        }
        (c.revision(), out)
    };
    let a = run();
    let b = run();
    assert_eq!(a.0, b.0);
    assert!(a.1 == b.1, "traces differ");
}

#[test]
fn invalid_objects_are_refused_and_change_nothing() {
    let mut c = Cluster::new(1, Topology::default());
    let before = c.revision();
    let bad = WEB.replace("labels: {app: web}", "labels: {app: two}");
    let err = c
        .create(decode_manifests(&bad).unwrap().remove(0))
        .unwrap_err();
    assert_eq!(
        err.message,
        "Deployment.apps \"web\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"two\"}: `selector` does not match template `labels`"
    );
    let bad_name = WEB.replace("name: web\n", "name: Web_1\n");
    assert!(c
        .create(decode_manifests(&bad_name).unwrap().remove(0))
        .is_err());
    let too_many = WEB.replace("replicas: 5", "replicas: 1000000");
    assert!(c
        .create(decode_manifests(&too_many).unwrap().remove(0))
        .is_err());
    let bad_ns = WEB.replace("name: web\n", "name: web\n  namespace: nope\n");
    let err = c
        .create(decode_manifests(&bad_ns).unwrap().remove(0))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Error from server (NotFound): namespaces \"nope\" not found"
    );
    assert_eq!(c.revision(), before);
}

#[test]
fn a_settled_cluster_writes_only_heartbeats() {
    let mut c = cluster_with(WEB);
    c.advance(SimDuration::secs(60));
    let before = c.revision();
    c.advance(SimDuration::secs(60));
    // 4 nodes renew their Lease every 10 s: 24 writes a minute and nothing else.
    assert_eq!(c.revision() - before, 24);
}

#[test]
fn deleting_a_namespace_terminates_its_contents_then_removes_it() {
    let mut c = Cluster::new(1, Topology::default());
    let ns = "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n";
    for o in decode_manifests(ns).unwrap() {
        c.create(o).unwrap();
    }
    for o in
        decode_manifests(&WEB.replace("name: web\n", "name: web\n  namespace: shop\n")).unwrap()
    {
        c.create(o).unwrap();
    }
    c.advance(SimDuration::secs(30));
    assert_eq!(c.list(Kind::Pod, Some("shop")).len(), 5);
    let deleted = c.delete(Kind::Namespace, "", "shop").unwrap();
    let Object::Namespace(n) = &deleted else {
        panic!()
    };
    assert_eq!(
        n.status.as_ref().unwrap().phase.as_deref(),
        Some("Terminating")
    );
    // New objects are refused while it terminates.
    let err = c
        .create(
            decode_manifests(&WEB.replace("name: web\n", "name: web2\n  namespace: shop\n"))
                .unwrap()
                .remove(0),
        )
        .unwrap_err();
    assert!(
        err.message.contains("because it is being terminated"),
        "{}",
        err.message
    );
    c.advance(SimDuration::secs(10));
    assert!(c.list(Kind::Pod, Some("shop")).is_empty());
    assert!(c.list(Kind::Deployment, Some("shop")).is_empty());
    assert!(c.get(Kind::Namespace, "", "shop").is_err());
    assert!(c.delete(Kind::Namespace, "", "default").is_err());
}

#[test]
fn unschedulable_pods_do_not_keep_the_cluster_busy() {
    let manifest = WEB
        .replace("replicas: 5", "replicas: 200")
        .replace("cpu: 100m", "cpu: 1");
    let mut c = cluster_with(&manifest);
    c.advance(SimDuration::secs(30));
    // Three workers of 4 CPUs, two of them also running a CoreDNS replica (100m):
    // 3 + 3 + 4 pods of one CPU fit.
    assert_eq!(c.view().unscheduled.len(), 200 - 10);
    let before = c.revision();
    c.advance(SimDuration::secs(60));
    // Only the kubelets' Lease renewals: nothing retries in a loop.
    assert_eq!(c.revision() - before, 24);
    // A freed slot is noticed: scale down, and the pending pods are tried again.
    let Object::Deployment(mut d) = c.get(Kind::Deployment, "default", "web").unwrap() else {
        panic!()
    };
    d.spec.replicas = Some(10);
    c.update(Object::Deployment(d)).unwrap();
    c.advance(SimDuration::secs(30));
    assert!(c.view().unscheduled.is_empty());
    assert_eq!(running_total(&c), 10);
}

#[test]
fn watches_filter_by_kind_namespace_labels_and_fields() {
    use warehouse_sim::apiserver::watch::WatchFilter;
    let mut c = cluster_with(WEB);
    let start = c.revision();
    c.advance(SimDuration::secs(30));
    let pods = WatchFilter {
        kind: Some(Kind::Pod),
        namespace: Some("default".into()),
        labels: [("app".to_string(), "web".to_string())].into(),
        ..Default::default()
    };
    let events = c.watch(&pods, start).unwrap();
    // Five pods: created, bound, started, running — at least four events each.
    assert!(events.len() >= 20, "{}", events.len());
    assert!(events.iter().all(|e| e.object.kind() == Kind::Pod));
    let on_a = WatchFilter {
        kind: Some(Kind::Pod),
        fields: [("spec.nodeName".to_string(), "zone-a".to_string())].into(),
        ..Default::default()
    };
    let a = c.watch(&on_a, start).unwrap();
    assert!(a.iter().all(|e| e
        .object
        .as_pod()
        .unwrap()
        .spec
        .as_ref()
        .unwrap()
        .node_name
        .as_deref()
        == Some("zone-a")));
    let none = WatchFilter {
        kind: Some(Kind::Pod),
        labels: [("app".to_string(), "db".to_string())].into(),
        ..Default::default()
    };
    assert!(c.watch(&none, start).unwrap().is_empty());
}

#[test]
fn why_explains_a_running_pod_back_to_the_users_request() {
    let mut c = cluster_with(WEB);
    c.advance(SimDuration::secs(30));
    let pod = c.list(Kind::Pod, Some("default")).remove(0);
    let text = c.why_text(&pod.key());
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 5, "{text}");
    assert!(lines[0].contains("by system:node:zone-"), "{text}");
    assert!(
        lines[0].contains("when timer \"containers started\" fired"),
        "{text}"
    );
    assert!(
        text.contains("by system:kube-scheduler reacting to revision"),
        "{text}"
    );
    assert!(
        text.contains("ADDED pod/default/") && text.contains("replicaset-controller"),
        "{text}"
    );
    assert!(
        text.contains("ADDED replicaset/default/web-") && text.contains("deployment-controller"),
        "{text}"
    );
    let last = lines.last().unwrap();
    assert!(
        last.contains("ADDED deployment/default/web by kubernetes-admin on request"),
        "{text}"
    );
}

#[test]
fn why_traces_an_eviction_back_to_the_fault() {
    let mut c = cluster_with(WEB);
    c.advance(SimDuration::secs(30));
    c.fault(Fault::KillNode("zone-a".into())).unwrap();
    c.advance(SimDuration::secs(400));
    let evicted = c
        .list(Kind::Pod, Some("default"))
        .into_iter()
        .find(|p| p.meta().deletion_timestamp.is_some())
        .expect("an evicted pod");
    let text = c.why_text(&evicted.key());
    assert!(text.contains("taint-eviction-controller"), "{text}");
    assert!(text.contains("toleration expired"), "{text}");
    assert!(text.contains("node-controller"), "{text}");
    assert!(text.contains("node monitor period"), "{text}");
}

#[test]
fn periodic_timers_keep_their_causes_flat() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(3600));
    let lease = c.list(Kind::Lease, Some("kube-node-lease")).remove(0);
    let why = c.why(&lease.key());
    assert_eq!(why.len(), 1);
    assert_eq!(why[0].timers, vec!["lease renewal"]);
}

#[test]
fn every_namespace_gets_a_default_service_account_that_pods_use() {
    let mut c = Cluster::new(1, Topology::default());
    for o in decode_manifests("apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n").unwrap()
    {
        c.create(o).unwrap();
    }
    c.advance(SimDuration::secs(1));
    for ns in ["default", "kube-system", "shop"] {
        assert!(c.get(Kind::ServiceAccount, ns, "default").is_ok(), "{ns}");
    }
    // Deleted, it comes back.
    c.delete(Kind::ServiceAccount, "shop", "default").unwrap();
    c.advance(SimDuration::secs(1));
    assert!(c.get(Kind::ServiceAccount, "shop", "default").is_ok());
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: nginx}]}\n";
    let created = c.create(decode_manifests(pod).unwrap().remove(0)).unwrap();
    let spec = created.as_pod().unwrap().spec.clone().unwrap();
    assert_eq!(spec.service_account_name.as_deref(), Some("default"));
    let named = pod
        .replace("name: p}", "name: q}")
        .replace("spec: {", "spec: {serviceAccountName: robot, ");
    let err = c
        .create(decode_manifests(&named).unwrap().remove(0))
        .unwrap_err();
    assert_eq!(
        err.message,
        "pods \"q\" is forbidden: error looking up service account default/robot: serviceaccount \"robot\" not found"
    );
}

#[test]
fn each_request_records_the_stages_it_passed() {
    use warehouse_sim::apiserver::Stage;
    let mut c = Cluster::new(1, Topology::default());
    c.create(decode_manifests(WEB).unwrap().remove(0)).unwrap();
    let ok = c.requests().last().unwrap().clone();
    assert_eq!(ok.code, 201);
    assert_eq!(ok.user, "kubernetes-admin");
    assert!(ok.stages.iter().all(|(_, passed)| *passed));
    assert_eq!(ok.stages.len(), Stage::ALL.len());
    let bad = WEB.replace("labels: {app: web}", "labels: {app: two}");
    c.create(decode_manifests(&bad).unwrap().remove(0))
        .unwrap_err();
    let refused = c.requests().last().unwrap().clone();
    assert_eq!(refused.code, 422);
    assert_eq!(refused.stages.last(), Some(&(Stage::Validation, false)));
    assert_eq!(refused.stages.len(), 4);
    // A refused create still names what it asked for.
    assert_eq!(
        (refused.resource.as_str(), refused.name.as_str()),
        ("deployments", "web")
    );
    // The latency model: one figure per stage passed, the etcd write dominating, and
    // a replicated etcd commit costing a round trip more than a single member.
    assert_eq!(ok.micros.len(), ok.stages.len());
    assert_eq!(refused.micros.len(), 4);
    assert!(refused.latency_micros() < ok.latency_micros());
    let single = ok.latency_micros();
    let mut three = Cluster::new(1, Topology::default().with_etcd_members(3));
    three
        .create(decode_manifests(WEB).unwrap().remove(0))
        .unwrap();
    let replicated = three.requests().last().unwrap().latency_micros();
    assert!(replicated > single, "{replicated} > {single}");
    // The view carries the newest requests first, with their stages and times.
    let view = c.view();
    assert_eq!(view.requests[0].code, 422);
    assert_eq!(view.requests[0].target, "deployments/web");
    assert_eq!(
        view.requests[0].stages.last().map(|s| (s.0, s.1)),
        Some(("validation", false))
    );
}

#[test]
fn pod_ranges_stay_valid_past_256_nodes_and_nodes_can_join() {
    let mut c = Cluster::new(1, Topology::with_workers(300));
    let cidr = |c: &Cluster, n: &str| {
        c.get(Kind::Node, "", n)
            .unwrap()
            .as_node()
            .unwrap()
            .spec
            .as_ref()
            .unwrap()
            .pod_cidr
            .clone()
            .unwrap()
    };
    assert_eq!(cidr(&c, "zone-1"), "10.244.1.0/24");
    assert_eq!(cidr(&c, "zone-300"), "10.245.44.0/24");
    let mut spec = warehouse_sim::NodeSpec::worker("late");
    spec.taints
        .push(("dedicated".into(), "gpu".into(), "NoSchedule".into()));
    c.add_node(spec.clone()).unwrap();
    assert!(c.add_node(spec).is_err(), "names are unique");
    assert_eq!(cidr(&c, "late"), "10.245.45.0/24");
    let taints = node_taints(&c, "late");
    assert_eq!(taints[0].key, "dedicated");
    assert_eq!(taints[0].effect, "NoSchedule");
}

#[test]
fn a_partitioned_node_keeps_its_containers_but_the_control_plane_sees_it_go_silent() {
    use warehouse_sim::Fault;
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, WEB);
    c.advance(SimDuration::secs(30));
    let on_b = c.runtime_pods("zone-b");
    assert!(!on_b.is_empty(), "zone-b runs pods");
    c.fault(Fault::PartitionNode("zone-b".into())).unwrap();
    c.advance(SimDuration::secs(60));
    assert_eq!(common::node_ready(&c, "zone-b"), "Unknown");
    // Unlike a killed node, the containers are still there.
    assert_eq!(c.runtime_pods("zone-b"), on_b);
    c.advance(SimDuration::secs(330));
    assert_eq!(
        c.runtime_pods("zone-b"),
        on_b,
        "evicted, but nobody told the kubelet"
    );
    c.fault(Fault::HealNode("zone-b".into())).unwrap();
    c.advance(SimDuration::secs(10));
    assert_eq!(common::node_ready(&c, "zone-b"), "True");
    let workload = |keys: Vec<warehouse_sim::ObjectKey>| -> Vec<warehouse_sim::ObjectKey> {
        keys.into_iter()
            .filter(|k| k.namespace == "default")
            .collect()
    };
    assert!(!workload(on_b).is_empty());
    assert!(
        workload(c.runtime_pods("zone-b")).is_empty(),
        "the evicted pods were stopped"
    );
    assert!(
        c.pods_on_node("zone-b")
            .iter()
            .all(|p| p.namespace() != "default"),
        "and their deletion confirmed"
    );
    assert!(c.fault(Fault::HealNode("zone-b".into())).is_err());
}
