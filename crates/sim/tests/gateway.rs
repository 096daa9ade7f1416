//! The Gateway API with kind's cloud-provider-kind (`sim addons enable gateway`):
//! the standard-channel definitions served, the GatewayClass accepted, a Gateway
//! given an address and its conditions, HTTPRoutes' parent statuses with upstream's
//! reasons, and requests routed by host, path, header and weight.

mod common;

use common::{create, web_with_service};
use warehouse_sim::network::http::RequestSource;
use warehouse_sim::{decode_manifests, Cluster, Kind, SimDuration, Topology};

const GATEWAY: &str = "apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: shop
spec:
  gatewayClassName: cloud-provider-kind
  listeners:
  - name: http
    port: 80
    protocol: HTTP
";

const CANARY: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: canary
spec:
  replicas: 1
  selector: {matchLabels: {app: canary}}
  template:
    metadata: {labels: {app: canary}}
    spec:
      containers:
      - name: hello
        image: gcr.io/google-samples/hello-app:2.0
---
apiVersion: v1
kind: Service
metadata:
  name: canary
spec:
  selector: {app: canary}
  ports:
  - {port: 80, targetPort: 8080}
";

fn route(name: &str, spec: &str) -> String {
    format!(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: {name}\nspec:\n  parentRefs:\n  - name: shop\n{spec}"
    )
}

/// A cluster with the add-on, web (nginx, 2 replicas) and canary (hello-app 2.0)
/// behind Services, and the Gateway `shop`.
fn shop() -> Cluster {
    let mut c = Cluster::new(3, Topology::default());
    c.enable_gateway_addon().unwrap();
    c.advance(SimDuration::secs(5));
    create(&mut c, &web_with_service(2, "{app: web}", ""));
    create(&mut c, CANARY);
    create(&mut c, GATEWAY);
    c.advance(SimDuration::secs(30));
    c
}

fn json(c: &Cluster, kind: &str, name: &str) -> serde_json::Value {
    let kind = c.resolve_kind(kind).unwrap();
    let ns = if kind.namespaced() { "default" } else { "" };
    c.get(kind, ns, name).unwrap().to_json()
}

fn conditions(v: &serde_json::Value) -> Vec<(String, String, String, String)> {
    v["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["type"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
                c["reason"].as_str().unwrap().to_string(),
                c["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn c4(t: &str, s: &str, r: &str, m: &str) -> (String, String, String, String) {
    (t.into(), s.into(), r.into(), m.into())
}

fn get(c: &mut Cluster, path: &str, host: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let ip = gateway_ip(c);
    let headers: Vec<(String, String)> = headers
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let out = c
        .http_request_with_headers(
            &RequestSource::Outside,
            &format!("http://{ip}{path}"),
            Some(host),
            &headers,
        )
        .unwrap();
    let r = out.result.unwrap();
    (r.status, r.body)
}

fn gateway_ip(c: &Cluster) -> String {
    json(c, "gateway", "shop")["status"]["addresses"][0]["value"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn the_addon_serves_the_definitions_and_accepts_its_class() {
    let c = shop();
    for d in [
        "gatewayclasses.gateway.networking.k8s.io",
        "gateways.gateway.networking.k8s.io",
        "httproutes.gateway.networking.k8s.io",
    ] {
        assert!(c.get(Kind::CustomResourceDefinition, "", d).is_ok(), "{d}");
    }
    let class = json(&c, "gatewayclass", "cloud-provider-kind");
    assert_eq!(
        class["spec"]["controllerName"],
        "kind.sigs.k8s.io/gateway-controller"
    );
    assert_eq!(
        conditions(&class["status"]),
        [c4(
            "Accepted",
            "True",
            "Accepted",
            "Managed by Cloud Provider KIND controller"
        )]
    );
}

#[test]
fn a_gateway_gets_an_address_from_the_load_balancer_pool_and_its_conditions() {
    let c = shop();
    let gw = json(&c, "gateway", "shop");
    assert_eq!(gw["status"]["addresses"][0]["type"], "IPAddress");
    assert!(gateway_ip(&c).starts_with("203.0.113."));
    assert_eq!(
        conditions(&gw["status"]),
        [
            c4("Accepted", "True", "Accepted", "Gateway is accepted"),
            c4(
                "Programmed",
                "True",
                "Programmed",
                "Envoy configuration updated successfully"
            ),
        ]
    );
    let l = &gw["status"]["listeners"][0];
    assert_eq!(l["attachedRoutes"], 0);
    assert_eq!(
        l["supportedKinds"],
        serde_json::json!([{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute"}])
    );
    assert_eq!(
        conditions(l),
        [
            c4(
                "ResolvedRefs",
                "True",
                "ResolvedRefs",
                "All references resolved"
            ),
            c4("Programmed", "True", "Programmed", "Listener is programmed"),
            c4("Accepted", "True", "Accepted", "Listener is valid"),
        ]
    );
}

#[test]
fn a_gateway_of_another_class_is_left_pending() {
    let mut c = shop();
    create(
        &mut c,
        &GATEWAY
            .replace("name: shop", "name: other")
            .replace("cloud-provider-kind", "istio"),
    );
    c.advance(SimDuration::secs(5));
    let gw = json(&c, "gateway", "other");
    assert_eq!(
        conditions(&gw["status"])[0],
        c4("Accepted", "Unknown", "Pending", "Waiting for controller")
    );
    assert!(gw["status"].get("addresses").is_none());
}

#[test]
fn a_listener_with_another_protocol_is_not_accepted() {
    let mut c = Cluster::new(3, Topology::default());
    c.enable_gateway_addon().unwrap();
    c.advance(SimDuration::secs(5));
    create(&mut c, &GATEWAY.replace("protocol: HTTP", "protocol: TCP"));
    c.advance(SimDuration::secs(5));
    let gw = json(&c, "gateway", "shop");
    assert_eq!(
        conditions(&gw["status"]["listeners"][0])[1],
        c4(
            "Accepted",
            "False",
            "UnsupportedProtocol",
            "Protocol \"TCP\" is not supported; supported protocols are HTTP and HTTPS."
        )
    );
    assert_eq!(
        conditions(&gw["status"]),
        [
            c4(
                "Accepted",
                "False",
                "ListenersNotValid",
                "All listeners are invalid"
            ),
            c4("Programmed", "False", "Invalid", "Gateway is not accepted"),
        ]
    );
    assert!(gw["status"].get("addresses").is_none());
}

#[test]
fn route_parents_say_accepted_backend_not_found_not_allowed_and_no_matching_parent() {
    let mut c = shop();
    create(
        &mut c,
        &route(
            "good",
            "  rules:\n  - backendRefs:\n    - {name: web, port: 80}\n",
        ),
    );
    create(
        &mut c,
        &route(
            "missing",
            "  rules:\n  - backendRefs:\n    - {name: nothere, port: 80}\n",
        ),
    );
    create(
        &mut c,
        &route(
            "wrong",
            "  rules:\n  - backendRefs:\n    - {name: web, port: 80}\n",
        )
        .replace("- name: shop", "- name: shop\n    sectionName: https"),
    );
    create(
        &mut c,
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-b\n",
    );
    let mut other = decode_manifests(
        &route(
            "elsewhere",
            "  rules:\n  - backendRefs:\n    - {name: web, port: 80}\n",
        )
        .replace("- name: shop", "- name: shop\n    namespace: default")
        .replace("name: elsewhere", "name: elsewhere\n  namespace: team-b"),
    )
    .unwrap();
    c.create(other.remove(0)).unwrap();
    c.advance(SimDuration::secs(5));
    let parent = |c: &Cluster, ns: &str, name: &str| {
        let kind = c.resolve_kind("httproute").unwrap();
        let r = c.get(kind, ns, name).unwrap().to_json();
        let p = r["status"]["parents"][0].clone();
        assert_eq!(p["controllerName"], "kind.sigs.k8s.io/gateway-controller");
        conditions(&p)
    };
    assert_eq!(
        parent(&c, "default", "good"),
        [
            c4("Accepted", "True", "Accepted", "Route is accepted."),
            c4(
                "ResolvedRefs",
                "True",
                "ResolvedRefs",
                "All references resolved"
            ),
        ]
    );
    assert_eq!(
        parent(&c, "default", "missing")[1],
        c4(
            "ResolvedRefs",
            "False",
            "BackendNotFound",
            "backend not found"
        )
    );
    assert_eq!(
        parent(&c, "default", "wrong")[0],
        c4(
            "Accepted",
            "False",
            "NoMatchingParent",
            "The route's hostnames do not match any listener hostnames."
        )
    );
    assert_eq!(
        parent(&c, "team-b", "elsewhere")[0],
        c4(
            "Accepted",
            "False",
            "NotAllowedByListeners",
            "Route is not allowed by a listener's policy."
        )
    );
    assert_eq!(
        json(&c, "gateway", "shop")["status"]["listeners"][0]["attachedRoutes"],
        2
    );
    // The missing backend appears: ResolvedRefs turns True.
    create(
        &mut c,
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: nothere\nspec:\n  selector: {app: web}\n  ports:\n  - {port: 80, targetPort: 80}\n",
    );
    c.advance(SimDuration::secs(5));
    assert_eq!(parent(&c, "default", "missing")[1].1, "True");
}

#[test]
fn requests_are_routed_by_host_path_and_header() {
    let mut c = shop();
    create(
        &mut c,
        &route(
            "shop",
            "  hostnames: [shop.example]
  rules:
  - matches:
    - path: {type: PathPrefix, value: /api}
    backendRefs:
    - {name: canary, port: 80}
  - matches:
    - path: {type: Exact, value: /v2}
      headers:
      - {name: X-Version, value: \"2\"}
    backendRefs:
    - {name: canary, port: 80}
  - backendRefs:
    - {name: web, port: 80}
",
        ),
    );
    c.advance(SimDuration::secs(5));
    let (status, body) = get(&mut c, "/", "shop.example", &[]);
    assert_eq!(status, 200);
    assert!(body.contains("Welcome to nginx!"));
    assert!(get(&mut c, "/api/orders", "shop.example", &[])
        .1
        .contains("Version: 2.0.0"));
    assert!(
        get(&mut c, "/apix", "shop.example", &[])
            .1
            .contains("nginx"),
        "path elements, not characters"
    );
    assert!(get(&mut c, "/v2", "shop.example", &[("x-version", "2")])
        .1
        .contains("Version: 2.0.0"));
    assert!(get(&mut c, "/v2", "shop.example", &[]).1.contains("nginx"));
    assert_eq!(get(&mut c, "/", "other.example", &[]), (404, String::new()));
}

#[test]
fn a_missing_backend_is_500_and_a_backend_without_endpoints_503() {
    let mut c = shop();
    create(
        &mut c,
        &route(
            "broken",
            "  rules:
  - matches:
    - path: {type: PathPrefix, value: /gone}
    backendRefs:
    - {name: nothere, port: 80}
  - matches:
    - path: {type: PathPrefix, value: /empty}
    backendRefs:
    - {name: empty, port: 80}
",
        ),
    );
    create(
        &mut c,
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: empty\nspec:\n  selector: {app: nobody}\n  ports:\n  - {port: 80}\n",
    );
    c.advance(SimDuration::secs(5));
    assert_eq!(get(&mut c, "/gone", "x", &[]), (500, String::new()));
    let (status, body) = get(&mut c, "/empty", "x", &[]);
    assert_eq!(status, 503);
    assert!(body.starts_with("upstream connect error"));
}

#[test]
fn weights_split_requests_deterministically() {
    let run = || {
        let mut c = shop();
        create(
            &mut c,
            &route(
                "split",
                "  rules:\n  - backendRefs:\n    - {name: web, port: 80, weight: 80}\n    - {name: canary, port: 80, weight: 20}\n",
            ),
        );
        c.advance(SimDuration::secs(5));
        (0..200)
            .map(|_| get(&mut c, "/", "x", &[]).1.contains("Version: 2.0.0"))
            .collect::<Vec<bool>>()
    };
    let a = run();
    let canary = a.iter().filter(|x| **x).count();
    assert!((25..=55).contains(&canary), "about 20% of 200: {canary}");
    assert_eq!(a, run(), "the same seed splits the same way");
}

#[test]
fn bad_objects_get_upstreams_messages_and_change_nothing() {
    let mut c = shop();
    let before = c.list(c.resolve_kind("httproute").unwrap(), None).len();
    let bad = route(
        "bad",
        "  rules:\n  - backendRefs:\n    - {name: web, port: 80, weight: -1}\n    matches:\n    - path: {type: Regex, value: /}\n",
    );
    let e = c
        .create(decode_manifests(&bad).unwrap().remove(0))
        .unwrap_err();
    assert!(
        e.message
            .starts_with("HTTPRoute.gateway.networking.k8s.io \"bad\" is invalid: "),
        "{}",
        e.message
    );
    assert!(
        e.message.contains("spec.rules[0].backendRefs[0].weight: Invalid value: -1: spec.rules[0].backendRefs[0].weight in body should be greater than or equal to 0"),
        "{}",
        e.message
    );
    assert!(
        e.message.contains("spec.rules[0].matches[0].path.type: Unsupported value: \"Regex\": supported values: \"Exact\", \"PathPrefix\", \"RegularExpression\""),
        "{}",
        e.message
    );
    let e = c
        .create(
            decode_manifests(
                &GATEWAY
                    .replace("port: 80", "port: 0")
                    .replace("name: shop", "name: zero"),
            )
            .unwrap()
            .remove(0),
        )
        .unwrap_err();
    assert!(e.message.contains("spec.listeners[0].port: Invalid value: 0: spec.listeners[0].port in body should be greater than or equal to 1"), "{}", e.message);
    assert_eq!(
        c.list(c.resolve_kind("httproute").unwrap(), None).len(),
        before
    );
    assert!(c
        .get(c.resolve_kind("gateway").unwrap(), "default", "zero")
        .is_err());
}

#[test]
fn a_deleted_gateway_gives_its_address_back() {
    let mut c = shop();
    let ip = gateway_ip(&c);
    let kind = c.resolve_kind("gateway").unwrap();
    c.delete(kind, "default", "shop").unwrap();
    c.advance(SimDuration::secs(5));
    assert!(c.gateways().is_empty());
    let out = c
        .http_request(&RequestSource::Outside, &format!("http://{ip}/"), None)
        .unwrap();
    assert!(out.result.is_err());
}
