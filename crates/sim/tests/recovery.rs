//! Recovery as upstream: what the control plane puts back or cleans up after a
//! learner deletes something (a Node, the `kubernetes` Service, bootstrap RBAC).

mod common;
use common::*;

use warehouse_sim::{
    Cluster, ControlPlaneComponent, Fault, Kind, NodeSpec, Object, SimDuration, Topology,
};

/// A Deployment `name` of `replicas` pods pinned to `node`, behind a Service `name`.
fn deployment(name: &str, replicas: u32, node: &str) -> String {
    let pod_spec = format!(
        "      nodeSelector: {{kubernetes.io/hostname: {node}}}
      containers:
      - name: c
        image: nginx:1.27
        resources:
          requests: {{cpu: 10m, memory: 8Mi}}
"
    );
    let service = format!(
        "---
apiVersion: v1
kind: Service
metadata:
  name: {name}
spec:
  selector: {{app: {name}}}
  ports:
  - port: 80
"
    );
    deployment_of(name, replicas, "", &format!("{{app: {name}}}"), &pod_spec) + &service
}

fn pods_on(c: &Cluster, node: &str) -> usize {
    c.list(Kind::Pod, Some("default"))
        .iter()
        .filter_map(Object::as_pod)
        .filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node))
        .count()
}

fn endpoints_on(c: &Cluster, node: &str) -> usize {
    c.list(Kind::EndpointSlice, Some("default"))
        .iter()
        .filter_map(|o| match o {
            Object::EndpointSlice(s) => Some(s),
            _ => None,
        })
        .flat_map(|s| s.endpoints.iter().flatten())
        .filter(|e| e.node_name.as_deref() == Some(node))
        .count()
}

#[test]
fn deleting_a_node_collects_all_its_pods_together() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &deployment("web", 40, "zone-a"));
    c.advance(SimDuration::secs(120));
    assert_eq!(pods_on(&c, "zone-a"), 40);
    assert_eq!(endpoints_on(&c, "zone-a"), 40);
    c.delete(Kind::Node, "", "zone-a").unwrap();
    c.advance(SimDuration::secs(39));
    assert_eq!(pods_on(&c, "zone-a"), 40, "the quarantine: 40 s");
    c.advance(SimDuration::secs(6));
    assert_eq!(pods_on(&c, "zone-a"), 0, "all orphans gone together");
    assert_eq!(endpoints_on(&c, "zone-a"), 0, "and their endpoints");
    // Their replacements wait for a node named zone-a.
    c.advance(SimDuration::secs(600));
    assert_eq!(pods_on(&c, "zone-a"), 0);
    assert_eq!(c.list(Kind::Pod, Some("default")).len(), 40);
}

#[test]
fn a_service_synced_after_its_node_is_gone_skips_the_pods_on_it() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &deployment("web", 3, "zone-a"));
    c.advance(SimDuration::secs(60));
    assert_eq!(endpoints_on(&c, "zone-a"), 3);
    c.delete(Kind::Node, "", "zone-a").unwrap();
    create(
        &mut c,
        "apiVersion: v1
kind: Service
metadata:
  name: late
spec:
  selector: {app: web}
  ports:
  - port: 80
",
    );
    c.advance(SimDuration::secs(5));
    assert_eq!(pods_on(&c, "zone-a"), 3, "still in quarantine");
    let late: usize = c
        .list(Kind::EndpointSlice, Some("default"))
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
                .map(String::as_str)
                == Some("late")
        })
        .map(|s| s.endpoints.as_ref().map_or(0, Vec::len))
        .sum();
    assert_eq!(late, 0, "Node not found: skipped");
}

fn agent_pods(c: &Cluster) -> Vec<(String, String)> {
    c.list(Kind::Pod, Some("default"))
        .iter()
        .filter_map(Object::as_pod)
        .filter(|p| p.metadata.name.as_deref().unwrap().starts_with("agent-"))
        .map(|p| {
            let spec = p.spec.as_ref().unwrap();
            (
                p.metadata.name.clone().unwrap(),
                spec.node_name.clone().unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn a_daemon_pod_for_a_node_deleted_before_scheduling_is_deleted() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &agent_daemon_set(""));
    c.advance(SimDuration::secs(30));
    let before = agent_pods(&c).len();
    c.fault(Fault::StopComponent(ControlPlaneComponent::Scheduler))
        .unwrap();
    c.add_node(NodeSpec::worker("late")).unwrap();
    c.advance(SimDuration::secs(2));
    assert_eq!(agent_pods(&c).len(), before + 1, "a pod for late, unbound");
    c.delete(Kind::Node, "", "late").unwrap();
    c.fault(Fault::StartComponent(ControlPlaneComponent::Scheduler))
        .unwrap();
    c.advance(SimDuration::secs(120));
    let pods = agent_pods(&c);
    assert_eq!(
        pods.len(),
        before,
        "the pod for the missing node went: {pods:?}"
    );
    assert!(pods.iter().all(|(_, node)| !node.is_empty()));
}

#[test]
fn the_kubernetes_service_comes_back_within_ten_seconds() {
    let mut c = Cluster::new(1, Topology::default());
    c.advance(SimDuration::secs(3));
    let slice_before = c.get(Kind::EndpointSlice, "default", "kubernetes").unwrap();
    c.delete(Kind::Service, "default", "kubernetes").unwrap();
    c.delete(Kind::Endpoints, "default", "kubernetes").unwrap();
    c.delete(Kind::EndpointSlice, "default", "kubernetes")
        .unwrap();
    c.advance(SimDuration::secs(6));
    assert!(c.get(Kind::Service, "default", "kubernetes").is_err());
    c.advance(SimDuration::secs(1)); // the 10 s tick
    let Object::Service(svc) = c.get(Kind::Service, "default", "kubernetes").unwrap() else {
        unreachable!()
    };
    assert_eq!(
        svc.spec.as_ref().unwrap().cluster_ip.as_deref(),
        Some("10.96.0.1"),
        "the first address of the range again"
    );
    assert!(c.get(Kind::Endpoints, "default", "kubernetes").is_ok());
    let Object::EndpointSlice(slice) = c.get(Kind::EndpointSlice, "default", "kubernetes").unwrap()
    else {
        unreachable!()
    };
    let Object::EndpointSlice(before) = slice_before else {
        unreachable!()
    };
    assert_eq!(slice.endpoints, before.endpoints);
    // The Service is not written again while it stays.
    c.advance(SimDuration::secs(60));
    let Object::Service(again) = c.get(Kind::Service, "default", "kubernetes").unwrap() else {
        unreachable!()
    };
    assert_eq!(
        again.metadata.resource_version,
        svc.metadata.resource_version
    );
}

#[test]
fn the_kubernetes_endpoints_are_rewritten_when_a_learner_changes_them() {
    let mut c = Cluster::new(1, Topology::default());
    let Object::Endpoints(mut ep) = c.get(Kind::Endpoints, "default", "kubernetes").unwrap() else {
        unreachable!()
    };
    let good = ep.subsets.clone();
    ep.subsets = None;
    c.update(Object::Endpoints(ep)).unwrap();
    c.advance(SimDuration::secs(10));
    let Object::Endpoints(ep) = c.get(Kind::Endpoints, "default", "kubernetes").unwrap() else {
        unreachable!()
    };
    assert_eq!(ep.subsets, good);
}

#[test]
fn bootstrap_rbac_comes_back_when_the_apiserver_starts() {
    let mut c = Cluster::new(1, Topology::default());
    c.delete(Kind::ClusterRoleBinding, "", "cluster-admin")
        .unwrap();
    c.delete(Kind::ClusterRole, "", "view").unwrap();
    c.advance(SimDuration::secs(60));
    assert!(
        c.get(Kind::ClusterRoleBinding, "", "cluster-admin")
            .is_err(),
        "upstream reconciles bootstrap RBAC at the apiserver's start only"
    );
    c.fault(Fault::StopComponent(ControlPlaneComponent::ApiServer))
        .unwrap();
    c.fault(Fault::StartComponent(ControlPlaneComponent::ApiServer))
        .unwrap();
    c.advance(SimDuration::secs(1));
    assert!(c.get(Kind::ClusterRoleBinding, "", "cluster-admin").is_ok());
    assert!(c.get(Kind::ClusterRole, "", "view").is_ok());
}

#[test]
fn system_masters_is_authorized_without_the_cluster_admin_binding() {
    use warehouse_sim::{Attributes, Caller};
    let mut c = Cluster::new(1, Topology::default());
    c.delete(Kind::ClusterRoleBinding, "", "cluster-admin")
        .unwrap();
    let attrs = Attributes {
        verb: "delete".into(),
        kind: Kind::Node,
        subresource: None,
        namespace: String::new(),
        name: "zone-a".into(),
    };
    assert!(
        !c.rbac_allows(&Caller::admin(), &attrs),
        "RBAC alone says no"
    );
    assert!(
        c.authorize(&Caller::admin(), &attrs).is_ok(),
        "system:masters"
    );
    // A user outside the group is still refused.
    let jane = Caller::impersonated("jane", &[]);
    assert!(c.authorize(&jane, &attrs).is_err());
}

fn pod_yaml(name: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
  - name: c
    image: nginx:1.27
"
    )
}

/// Upstream's quota admission matches a quota by its `status.hard`
/// (`EvaluatorMatchesResourceList`): a quota limits from the controller's first sync
/// of it, a watch delay after its creation, not from its creation itself.
#[test]
fn a_quota_limits_from_the_controllers_first_sync() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: v1
kind: ResourceQuota
metadata:
  name: one
spec:
  hard: {pods: \"1\"}
",
    );
    c.advance(SimDuration::millis(100));
    for (i, name) in ["a", "b", "c"].into_iter().enumerate() {
        let pod = warehouse_sim::decode_manifests(&pod_yaml(name))
            .unwrap()
            .remove(0);
        let result = c.create(pod);
        if i == 0 {
            assert!(result.is_ok());
        } else {
            assert_eq!(
                result.unwrap_err().message,
                format!(
                    "pods \"{name}\" is forbidden: exceeded quota: one, requested: pods=1, used: pods=1, limited: pods=1"
                )
            );
        }
    }
}

fn deadline_pod(name: &str, seconds: &str, policy: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  activeDeadlineSeconds: {seconds}
  restartPolicy: {policy}
  containers:
  - name: c
    image: nginx:1.27
"
    )
}

fn get_pod(c: &Cluster, name: &str) -> k8s_openapi::api::core::v1::Pod {
    match c.get(Kind::Pod, "default", name).unwrap() {
        Object::Pod(p) => *p,
        _ => unreachable!(),
    }
}

#[test]
fn a_pod_past_its_active_deadline_is_failed_and_its_containers_killed() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &deadline_pod("short", "30", "Always"));
    c.advance(SimDuration::secs(10));
    let p = get_pod(&c, "short");
    assert_eq!(p.status.as_ref().unwrap().phase.as_deref(), Some("Running"));
    let start = p.status.as_ref().unwrap().start_time.clone().unwrap();
    c.advance(SimDuration::secs(25));
    let p = get_pod(&c, "short");
    let st = p.status.unwrap();
    assert_eq!(st.phase.as_deref(), Some("Failed"));
    assert_eq!(st.reason.as_deref(), Some("DeadlineExceeded"));
    assert_eq!(
        st.message.as_deref(),
        Some("Pod was active on the node longer than the specified deadline")
    );
    let cs = &st.container_statuses.unwrap()[0];
    let t = cs
        .state
        .as_ref()
        .unwrap()
        .terminated
        .as_ref()
        .expect("killed");
    assert_eq!(t.exit_code, 137);
    assert_eq!(
        warehouse_sim::SimTime::from_k8s(t.finished_at.as_ref().unwrap()),
        warehouse_sim::SimTime::from_k8s(&start) + SimDuration::secs(30)
    );
    // It stays Failed: the container is not restarted.
    c.advance(SimDuration::secs(300));
    let p = get_pod(&c, "short");
    assert_eq!(p.status.as_ref().unwrap().phase.as_deref(), Some("Failed"));
    assert_eq!(
        p.status.unwrap().container_statuses.unwrap()[0].restart_count,
        0
    );
    let events: Vec<String> = c
        .list(Kind::Event, Some("default"))
        .iter()
        .filter_map(|o| match o {
            Object::Event(e) => Some(e.reason.clone().unwrap_or_default()),
            _ => None,
        })
        .collect();
    assert!(events.iter().any(|r| r == "DeadlineExceeded"), "{events:?}");
}

#[test]
fn a_shortened_active_deadline_is_armed_again_and_a_huge_one_never_overflows() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &deadline_pod("long", "3600", "Never"));
    create(&mut c, &deadline_pod("huge", "2147483647", "Never"));
    c.advance(SimDuration::secs(10));
    let mut p = get_pod(&c, "long");
    p.spec.as_mut().unwrap().active_deadline_seconds = Some(20);
    c.update(Object::Pod(Box::new(p))).unwrap();
    c.advance(SimDuration::secs(15));
    assert_eq!(
        get_pod(&c, "long").status.unwrap().reason.as_deref(),
        Some("DeadlineExceeded")
    );
    c.advance(SimDuration::secs(86_400));
    assert_eq!(
        get_pod(&c, "huge").status.unwrap().phase.as_deref(),
        Some("Running")
    );
}

#[test]
fn a_node_with_an_invalid_label_or_taint_is_refused_and_nothing_changes() {
    let mut c = Cluster::new(1, Topology::default());
    let before = c.snapshot();
    let mut spec = NodeSpec::worker("extra");
    spec.labels.insert("bad key".into(), "v".into());
    let err = c.add_node(spec).unwrap_err();
    assert_eq!(
        err.0,
        "Node \"extra\" is invalid: metadata.labels: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
    );
    let mut spec = NodeSpec::worker("extra");
    spec.taints
        .push(("gpu".into(), "-bad-".into(), "NoSchedule".into()));
    let err = c.add_node(spec).unwrap_err();
    assert!(
        err.0.starts_with("Node \"extra\" is invalid: spec.taints[0].value: Invalid value: \"-bad-\": a valid label must be"),
        "{}",
        err.0
    );
    assert!(c.snapshot() == before, "the cluster is unchanged");
    assert!(
        c.add_node(NodeSpec::worker("extra")).is_ok(),
        "the name is still free"
    );
}

#[test]
fn a_partitioned_kubelet_stops_the_pods_deleted_meanwhile_when_it_reconnects() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &deployment("web", 3, "zone-b"));
    c.advance(SimDuration::secs(120));
    assert_eq!(pods_on(&c, "zone-b"), 3);
    c.fault(Fault::PartitionNode("zone-b".into())).unwrap();
    c.delete(Kind::Node, "", "zone-b").unwrap();
    // The pod garbage collector deletes the orphans; the kubelet cannot see it.
    c.advance(SimDuration::secs(60));
    assert_eq!(pods_on(&c, "zone-b"), 0);
    assert!(
        !c.runtime_pods("zone-b").is_empty(),
        "the containers run on, unseen"
    );
    c.fault(Fault::HealNode("zone-b".into())).unwrap();
    c.advance(SimDuration::secs(60));
    // Its watch relisted: nothing it runs is gone from the apiserver.
    for key in c.runtime_pods("zone-b") {
        assert!(
            c.get(key.kind, &key.namespace, &key.name).is_ok(),
            "{key:?} still runs"
        );
    }
}
