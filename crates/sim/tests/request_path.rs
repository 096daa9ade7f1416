//! The data plane's request path: requests follow kube-proxy's rules and
//! ingress-nginx's upstreams as programmed now, not the control plane.

mod common;

use common::{create, web_deployment};
use warehouse_sim::network::traffic::TrafficCommand;
use warehouse_sim::{
    Cluster, ControlPlaneComponent, FailureReason, Fault, Kind, Object, RequestSource, SimDuration,
    Topology,
};

/// Deployment `web` (three replicas) behind a NodePort Service, and a client pod on
/// zone-a.
fn app() -> String {
    web_deployment(3, "{app: web}", "", "")
        + "---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: NodePort
  selector: {app: web}
  ports:
  - {port: 80}
---
apiVersion: v1
kind: Pod
metadata:
  name: client
spec:
  nodeName: zone-a
  containers:
  - name: c
    image: busybox
    command: [sleep, '86400']
"
}

fn client() -> RequestSource {
    RequestSource::Pod {
        namespace: "default".into(),
        name: "client".into(),
    }
}

fn ready() -> Cluster {
    let mut c = Cluster::new(3, Topology::default());
    create(&mut c, &app());
    c.advance(SimDuration::secs(30));
    c
}

fn web_pods(c: &Cluster) -> Vec<(String, String, String)> {
    c.list(Kind::Pod, Some("default"))
        .into_iter()
        .filter_map(|o| match o {
            Object::Pod(p) if p.metadata.name.as_deref().unwrap().starts_with("web-") => Some((
                p.metadata.name.clone().unwrap(),
                p.spec.clone().unwrap().node_name.unwrap(),
                p.status.clone().unwrap().pod_ip.unwrap(),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn a_pod_reaches_a_service_by_name_through_its_nodes_proxy() {
    let mut c = ready();
    for url in [
        "http://web",
        "http://web.default",
        "web.default.svc.cluster.local:80/",
    ] {
        let out = c.http_request(&client(), url, None).unwrap();
        let r = out.result.expect("answered");
        assert_eq!(r.status, 200);
        assert!(r.body.contains("Welcome to nginx!"));
        assert!(out.via[0] == "kube-proxy on zone-a", "{:?}", out.via);
        assert!(out.latency_us > 0 && out.latency_us < 5_000);
    }
    let missing = c.http_request(&client(), "http://nope", None).unwrap();
    assert_eq!(
        missing.result.unwrap_err().reason,
        FailureReason::CouldNotResolve
    );
}

#[test]
fn outside_reaches_a_node_port_but_not_a_cluster_ip() {
    let mut c = ready();
    let Object::Service(s) = c.get(Kind::Service, "default", "web").unwrap() else {
        panic!()
    };
    let spec = s.spec.unwrap();
    let node_port = spec.ports.unwrap()[0].node_port.unwrap();
    let via_node = c
        .http_request(
            &RequestSource::Outside,
            &format!("http://172.18.0.3:{node_port}/"),
            None,
        )
        .unwrap();
    assert_eq!(via_node.result.unwrap().status, 200);
    let cluster_ip = spec.cluster_ip.unwrap();
    let direct = c
        .http_request(
            &RequestSource::Outside,
            &format!("http://{cluster_ip}/"),
            None,
        )
        .unwrap();
    assert_eq!(direct.result.unwrap_err().reason, FailureReason::Timeout);
    // The node listens on no other port.
    let other = c
        .http_request(&RequestSource::Outside, "http://172.18.0.3:1234/", None)
        .unwrap();
    assert_eq!(
        other.result.unwrap_err().reason,
        FailureReason::ConnectionRefused
    );
}

#[test]
fn a_pod_ip_answers_on_its_port_and_refuses_others() {
    let mut c = ready();
    let (_, _, ip) = web_pods(&c)[0].clone();
    let ok = c
        .http_request(&client(), &format!("http://{ip}/"), None)
        .unwrap();
    assert_eq!(ok.result.unwrap().status, 200);
    let not_found = c
        .http_request(&client(), &format!("http://{ip}/nope"), None)
        .unwrap();
    assert_eq!(not_found.result.unwrap().status, 404);
    let refused = c
        .http_request(&client(), &format!("http://{ip}:8080/"), None)
        .unwrap();
    assert_eq!(
        refused.result.unwrap_err().reason,
        FailureReason::ConnectionRefused
    );
}

#[test]
fn the_kubernetes_service_reaches_the_apiserver() {
    let mut c = ready();
    let out = c
        .http_request(&client(), "https://kubernetes.default.svc", None)
        .unwrap();
    let r = out.result.unwrap();
    assert_eq!((r.status, r.address.as_str()), (403, "172.18.0.2:6443"));
    assert!(r.body.contains("system:anonymous"));
}

#[test]
fn traffic_keeps_flowing_while_the_control_plane_is_down() {
    let mut c = ready();
    for comp in [
        ControlPlaneComponent::ApiServer,
        ControlPlaneComponent::Scheduler,
        ControlPlaneComponent::ControllerManager,
        ControlPlaneComponent::Etcd,
    ] {
        c.fault(Fault::StopComponent(comp)).unwrap();
    }
    c.advance(SimDuration::secs(30));
    // The kubernetes Service's endpoint is the apiserver itself: it is down.
    let out = c
        .http_request(&client(), "https://kubernetes", None)
        .unwrap();
    assert_eq!(
        out.result.unwrap_err().reason,
        FailureReason::ConnectionRefused
    );
    let ip = {
        let Object::Service(s) = c.get(Kind::Service, "default", "web").unwrap() else {
            panic!()
        };
        s.spec.unwrap().cluster_ip.unwrap()
    };
    for _ in 0..20 {
        let out = c
            .http_request(&client(), &format!("http://{ip}"), None)
            .unwrap();
        assert!(out.ok(), "{:?}", out.result);
    }
}

#[test]
fn a_dead_backend_still_in_the_rules_fails_until_its_endpoint_is_not_ready() {
    let mut c = ready();
    let victim = web_pods(&c)
        .into_iter()
        .find(|(_, node, _)| node != "zone-a")
        .unwrap();
    c.fault(Fault::KillNode(victim.1.clone())).unwrap();
    c.advance(SimDuration::secs(1));
    let direct = c
        .http_request(&client(), &format!("http://{}/", victim.2), None)
        .unwrap();
    assert_eq!(direct.result.unwrap_err().reason, FailureReason::Timeout);
    let failures = (0..60)
        .filter(|_| !c.http_request(&client(), "http://web", None).unwrap().ok())
        .count();
    assert!(failures > 0, "the dead pod is still in the rules");
    // The node lifecycle controller marks the node NotReady after 50 s; the pods'
    // endpoints turn not ready and the proxies drop them.
    c.advance(SimDuration::secs(70));
    let failures = (0..60)
        .filter(|_| !c.http_request(&client(), "http://web", None).unwrap().ok())
        .count();
    assert_eq!(failures, 0);
}

#[test]
fn a_terminating_pod_that_still_runs_answers() {
    let mut c = ready();
    let (name, _, ip) = web_pods(&c)[0].clone();
    c.delete(Kind::Pod, "default", &name).unwrap();
    // The kubelet has not stopped the containers yet (nginx takes 300 ms).
    c.advance(SimDuration::millis(100));
    let out = c
        .http_request(&client(), &format!("http://{ip}/"), None)
        .unwrap();
    assert_eq!(out.result.unwrap().status, 200);
    c.advance(SimDuration::secs(2));
    let out = c
        .http_request(&client(), &format!("http://{ip}/"), None)
        .unwrap();
    assert_eq!(
        out.result.unwrap_err().reason,
        FailureReason::ConnectionRefused
    );
}

#[test]
fn graceful_deletion_under_traffic_loses_no_request() {
    let mut c = ready();
    let cmd = warehouse_sim::network::traffic::parse_traffic(&[
        "start", "t", "--to", "svc/web", "--from", "client", "--rps", "100",
    ])
    .unwrap();
    c.traffic_command(&cmd).unwrap();
    c.advance(SimDuration::secs(2));
    let (name, _, _) = web_pods(&c)[0].clone();
    c.delete(Kind::Pod, "default", &name).unwrap();
    c.advance(SimDuration::secs(5));
    let st = c.traffic_stats("t").unwrap().clone();
    assert_eq!(st.sent, 700);
    assert_eq!(st.failed, 0, "{st:?}");
    c.traffic_command(&TrafficCommand::Stop("t".into()))
        .unwrap();
    c.advance(SimDuration::secs(1));
    assert_eq!(c.traffic_stats("t").unwrap().sent, 700);
}

#[test]
fn traffic_sources_survive_a_snapshot() {
    let mut c = ready();
    let cmd = warehouse_sim::network::traffic::parse_traffic(&[
        "start", "t", "--to", "svc/web", "--from", "client", "--rps", "10",
    ])
    .unwrap();
    c.traffic_command(&cmd).unwrap();
    c.enable_ingress_addon().unwrap();
    c.advance(SimDuration::secs(1));
    let snap = c.snapshot();
    let mut restored = Cluster::restore(&snap).unwrap();
    assert_eq!(restored.snapshot(), snap);
    c.advance(SimDuration::secs(3));
    restored.advance(SimDuration::secs(3));
    assert_eq!(c.traffic_stats_text(), restored.traffic_stats_text());
    assert_eq!(c.traffic_stats("t").unwrap().sent, 40);
}

#[test]
fn ingress_routes_paths_to_services_and_answers_404_and_503() {
    let mut c = ready();
    c.enable_ingress_addon().unwrap();
    create(
        &mut c,
        "apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: shop}
spec:
  rules:
  - host: shop.example
    http:
      paths:
      - {path: /web, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
      - {path: /gone, pathType: Prefix, backend: {service: {name: gone, port: {number: 80}}}}
",
    );
    c.advance(SimDuration::secs(5));
    let Object::Ingress(ing) = c.get(Kind::Ingress, "default", "shop").unwrap() else {
        panic!()
    };
    assert_eq!(
        ing.spec.unwrap().ingress_class_name.as_deref(),
        Some("nginx")
    );
    let ip = ing.status.unwrap().load_balancer.unwrap().ingress.unwrap()[0]
        .ip
        .clone()
        .unwrap();
    assert_eq!(ip, "172.18.0.2");
    let out = RequestSource::Outside;
    // /web reaches nginx pods, which have no /web page: their own 404.
    let r = c
        .http_request(&out, "http://shop.example/web", None)
        .unwrap();
    let r = r.result.unwrap();
    assert!(r.pod.is_some());
    assert_eq!(r.status, 404);
    let r = c
        .http_request(&out, "http://shop.example/other", None)
        .unwrap();
    let r = r.result.unwrap();
    assert_eq!((r.status, r.pod), (404, None));
    let r = c
        .http_request(&out, "http://shop.example/gone", None)
        .unwrap();
    assert_eq!(r.result.unwrap().status, 503);
    // Without a Host the ingress has no server for the address: the default backend.
    let r = c
        .http_request(&out, &format!("http://{ip}/web"), None)
        .unwrap();
    assert_eq!(r.result.unwrap().status, 404);
    let r = c
        .http_request(&out, &format!("http://{ip}/web"), Some("shop.example"))
        .unwrap();
    assert!(r.result.unwrap().pod.is_some());
}

#[test]
fn a_load_balancer_ip_reaches_the_pods_from_outside() {
    let mut c = ready();
    let Object::Service(mut s) = c.get(Kind::Service, "default", "web").unwrap() else {
        panic!()
    };
    s.spec.as_mut().unwrap().type_ = Some("LoadBalancer".into());
    c.update(Object::Service(s)).unwrap();
    c.advance(SimDuration::secs(5));
    let (lb, _) = c.load_balancers()[0].clone();
    let out = c
        .http_request(&RequestSource::Outside, &format!("http://{lb}/"), None)
        .unwrap();
    assert!(
        out.via.iter().any(|v| v.starts_with("load balancer")),
        "{:?}",
        out.via
    );
    assert_eq!(out.result.unwrap().status, 200);
    // The traffic generator from outside uses the load balancer too.
    let cmd = warehouse_sim::network::traffic::parse_traffic(&[
        "start", "lb", "--to", "svc/web", "--rps", "3",
    ])
    .unwrap();
    c.traffic_command(&cmd).unwrap();
    c.advance(SimDuration::secs(10));
    let st = c.traffic_stats("lb").unwrap();
    assert_eq!((st.sent, st.ok), (30, 30));
}

#[test]
fn outside_traffic_to_a_cluster_ip_service_is_refused_at_start() {
    let mut c = Cluster::new(3, Topology::default());
    create(
        &mut c,
        "apiVersion: v1\nkind: Service\nmetadata: {name: inner}\nspec:\n  selector: {app: x}\n  ports:\n  - {port: 80}\n",
    );
    let cmd = warehouse_sim::network::traffic::parse_traffic(&["start", "t", "--to", "svc/inner"])
        .unwrap();
    let err = c.traffic_command(&cmd).unwrap_err();
    assert!(
        err.contains("is of type ClusterIP: only pods reach it"),
        "{err}"
    );
    assert_eq!(c.traffic_stats_text(), "no traffic sources");
}

#[test]
fn ingress_traffic_fails_while_a_dead_zone_stays_in_its_upstreams() {
    let mut c = ready();
    c.enable_ingress_addon().unwrap();
    create(
        &mut c,
        "apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: all}
spec:
  defaultBackend: {service: {name: web, port: {number: 80}}}
",
    );
    c.advance(SimDuration::secs(5));
    let cmd = warehouse_sim::network::traffic::parse_traffic(&[
        "start",
        "t",
        "--to",
        "ingress/all",
        "--rps",
        "30",
    ])
    .unwrap();
    c.traffic_command(&cmd).unwrap();
    c.advance(SimDuration::secs(5));
    assert_eq!(c.traffic_stats("t").unwrap().failed, 0);
    let zone = web_pods(&c)[0].1.clone();
    c.fault(Fault::KillNode(zone)).unwrap();
    c.advance(SimDuration::secs(20));
    let st = c.traffic_stats("t").unwrap();
    assert!(st.reasons.contains_key("timeout"), "{st:?}");
    c.traffic_command(&TrafficCommand::Reset).unwrap();
    c.advance(SimDuration::secs(60));
    c.traffic_command(&TrafficCommand::Reset).unwrap();
    c.advance(SimDuration::secs(10));
    let st = c.traffic_stats("t").unwrap();
    assert_eq!((st.sent, st.failed), (300, 0), "{st:?}");
}

#[test]
fn a_partitioned_node_is_unreachable_until_its_endpoints_turn_not_ready() {
    let mut c = ready();
    let victim = web_pods(&c)
        .into_iter()
        .find(|(_, node, _)| node != "zone-a")
        .unwrap();
    c.fault(Fault::PartitionNode(victim.1.clone())).unwrap();
    c.advance(SimDuration::secs(1));
    let direct = c
        .http_request(&client(), &format!("http://{}/", victim.2), None)
        .unwrap();
    let failure = direct.result.unwrap_err();
    assert_eq!(failure.reason, FailureReason::Timeout);
    assert!(
        failure.message.contains("partitioned"),
        "{}",
        failure.message
    );
    c.advance(SimDuration::secs(70));
    let failures = (0..60)
        .filter(|_| !c.http_request(&client(), "http://web", None).unwrap().ok())
        .count();
    assert_eq!(failures, 0);
}
