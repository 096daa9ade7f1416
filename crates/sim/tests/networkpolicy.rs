//! NetworkPolicy enforced by the data plane. The expectations are upstream's: the
//! API's contract (staging/src/k8s.io/api/networking/v1 types.go), its defaulting
//! (pkg/apis/networking/v1 defaults.go) and validation
//! (pkg/apis/networking/validation validation.go), and the examples of the website's
//! concept page (content/en/docs/concepts/services-networking/network-policies.md:
//! default deny, allow all, `namespaceSelector` and `podSelector` in one peer or two,
//! `ipBlock` with `except`, `endPort`).

mod common;

use common::{create, web_with_service};
use warehouse_sim::network::http::CLIENT_TIMEOUT_US;
use warehouse_sim::{
    decode_manifests, Cluster, FailureReason, Kind, Object, RequestSource, SimDuration, Topology,
};

/// Deployment `web` (two replicas serving port 80 named `http`) behind a NodePort
/// Service, a client pod labelled `role=frontend`, another without it, and a
/// namespace `other` (labelled `user=alice`) with a `role=frontend` pod.
fn app() -> String {
    web_with_service(2, "{app: web}", "  type: NodePort\n")
        + "---
apiVersion: v1
kind: Pod
metadata: {name: frontend, labels: {role: frontend}}
spec:
  containers:
  - {name: c, image: busybox, command: [sleep, '86400']}
---
apiVersion: v1
kind: Pod
metadata: {name: stranger}
spec:
  containers:
  - {name: c, image: busybox, command: [sleep, '86400']}
---
apiVersion: v1
kind: Namespace
metadata: {name: other, labels: {user: alice}}
---
apiVersion: v1
kind: Pod
metadata: {name: frontend, namespace: other, labels: {role: frontend}}
spec:
  containers:
  - {name: c, image: busybox, command: [sleep, '86400']}
"
}

fn ready() -> Cluster {
    let mut c = Cluster::new(5, Topology::default());
    create(&mut c, &app());
    c.advance(SimDuration::secs(30));
    c
}

fn pod(namespace: &str, name: &str) -> RequestSource {
    RequestSource::Pod {
        namespace: namespace.into(),
        name: name.into(),
    }
}

/// Whether `from` gets an answer from `url`; a refusal must be a policy's drop.
fn reaches(c: &mut Cluster, from: &RequestSource, url: &str) -> bool {
    let out = c.http_request(from, url, None).unwrap();
    match out.result {
        Ok(r) => r.status == 200,
        Err(f) => {
            assert_eq!(f.reason, FailureReason::PolicyDenied, "{}", f.message);
            assert_eq!(out.latency_us, CLIENT_TIMEOUT_US, "a drop times out");
            false
        }
    }
}

/// Creates the NetworkPolicies of `text`: each starts with a line `--- NAME`,
/// followed by its spec's lines (indented two spaces).
fn policy(c: &mut Cluster, text: &str) {
    let mut yaml = String::new();
    for line in text.lines() {
        match line.strip_prefix("--- ") {
            Some(name) => yaml.push_str(&format!(
                "---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {{name: {name}}}\nspec:\n"
            )),
            None => {
                yaml.push_str(line);
                yaml.push('\n');
            }
        }
    }
    create(c, &yaml);
}

fn web_ip(c: &Cluster) -> String {
    c.list(Kind::Pod, Some("default"))
        .into_iter()
        .find_map(|o| match o {
            Object::Pod(p) if p.metadata.name.as_deref().unwrap().starts_with("web-") => {
                p.status.unwrap().pod_ip
            }
            _ => None,
        })
        .unwrap()
}

#[test]
fn without_policies_every_pod_reaches_every_pod() {
    let mut c = ready();
    assert!(reaches(&mut c, &pod("default", "stranger"), "http://web"));
    assert!(reaches(
        &mut c,
        &pod("other", "frontend"),
        "http://web.default"
    ));
}

#[test]
fn a_default_deny_isolates_every_pod_of_its_namespace_for_ingress_only() {
    let mut c = ready();
    // The concept page's "Default deny all ingress traffic".
    policy(
        &mut c,
        "--- default-deny-ingress
  podSelector: {}
  policyTypes: [Ingress]
",
    );
    let out = c
        .http_request(&pod("default", "frontend"), "http://web", None)
        .unwrap();
    let failure = out.result.unwrap_err();
    assert_eq!(failure.reason, FailureReason::PolicyDenied);
    assert!(
        failure
            .message
            .contains("isolated for ingress by default-deny-ingress"),
        "{}",
        failure.message
    );
    assert!(!reaches(
        &mut c,
        &pod("other", "frontend"),
        "http://web.default"
    ));
    // Straight to the pod's address, the same.
    let ip = web_ip(&c);
    assert!(!reaches(
        &mut c,
        &pod("default", "stranger"),
        &format!("http://{ip}")
    ));
    // Egress is not affected: the isolated pods still resolve names.
    let out = c
        .http_request(&pod("default", "stranger"), "http://web", None)
        .unwrap();
    assert!(out.resolved.is_some());
    // A pod's own loopback is not the network: a web robot reaches itself.
    let web = c
        .list(Kind::Pod, Some("default"))
        .into_iter()
        .find(|o| o.name().starts_with("web-"))
        .unwrap();
    assert!(reaches(
        &mut c,
        &pod("default", web.name()),
        "http://localhost"
    ));
    c.delete(Kind::NetworkPolicy, "default", "default-deny-ingress")
        .unwrap();
    assert!(reaches(&mut c, &pod("default", "stranger"), "http://web"));
}

#[test]
fn policies_are_a_union_of_allow_rules_and_ports_must_match() {
    let mut c = ready();
    policy(
        &mut c,
        "--- deny
  podSelector: {}
--- allow-frontend
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from:
    - podSelector: {matchLabels: {role: frontend}}
    ports:
    - port: 80
",
    );
    // policyTypes defaulted to Ingress (defaults.go).
    let Object::Other(o) = c.get(Kind::NetworkPolicy, "default", "deny").unwrap() else {
        panic!()
    };
    assert_eq!(
        o.fields["spec"]["policyTypes"],
        serde_json::json!(["Ingress"])
    );
    let Object::Other(o) = c
        .get(Kind::NetworkPolicy, "default", "allow-frontend")
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(
        o.fields["spec"]["ingress"][0]["ports"][0]["protocol"],
        "TCP"
    );
    assert!(reaches(&mut c, &pod("default", "frontend"), "http://web"));
    assert!(!reaches(&mut c, &pod("default", "stranger"), "http://web"));
    // A podSelector alone selects pods of the policy's own namespace.
    assert!(!reaches(
        &mut c,
        &pod("other", "frontend"),
        "http://web.default"
    ));
}

#[test]
fn namespace_and_pod_selectors_in_one_peer_are_and_in_two_peers_or() {
    let mut c = ready();
    policy(
        &mut c,
        "--- and
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from:
    - namespaceSelector: {matchLabels: {user: alice}}
      podSelector: {matchLabels: {role: frontend}}
",
    );
    assert!(reaches(
        &mut c,
        &pod("other", "frontend"),
        "http://web.default"
    ));
    assert!(!reaches(&mut c, &pod("default", "frontend"), "http://web"));
    c.delete(Kind::NetworkPolicy, "default", "and").unwrap();
    policy(
        &mut c,
        "--- or
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from:
    - namespaceSelector: {matchLabels: {user: alice}}
    - podSelector: {matchLabels: {role: frontend}}
",
    );
    assert!(reaches(
        &mut c,
        &pod("other", "frontend"),
        "http://web.default"
    ));
    assert!(reaches(&mut c, &pod("default", "frontend"), "http://web"));
    assert!(!reaches(&mut c, &pod("default", "stranger"), "http://web"));
    // Every namespace carries kubernetes.io/metadata.name.
    c.delete(Kind::NetworkPolicy, "default", "or").unwrap();
    policy(
        &mut c,
        "--- by-name
  podSelector: {}
  ingress:
  - from:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: other}}
",
    );
    assert!(reaches(
        &mut c,
        &pod("other", "frontend"),
        "http://web.default"
    ));
    assert!(!reaches(&mut c, &pod("default", "frontend"), "http://web"));
}

#[test]
fn an_empty_rule_allows_all_and_an_empty_list_allows_nothing() {
    let mut c = ready();
    // The concept page's "Allow all ingress traffic" beside a default deny.
    policy(
        &mut c,
        "--- deny
  podSelector: {}
  ingress: []
--- allow-all-ingress
  podSelector: {}
  ingress:
  - {}
  policyTypes: [Ingress]
",
    );
    assert!(reaches(&mut c, &pod("default", "stranger"), "http://web"));
    assert!(reaches(
        &mut c,
        &pod("other", "frontend"),
        "http://web.default"
    ));
}

#[test]
fn named_ports_and_port_ranges_match_the_destination_port() {
    let mut c = ready();
    policy(
        &mut c,
        "--- named
  podSelector: {matchLabels: {app: web}}
  ingress:
  - ports:
    - port: http
",
    );
    assert!(reaches(&mut c, &pod("default", "stranger"), "http://web"));
    c.delete(Kind::NetworkPolicy, "default", "named").unwrap();
    policy(
        &mut c,
        "--- range
  podSelector: {matchLabels: {app: web}}
  ingress:
  - ports:
    - {port: 8000, endPort: 9000}
    - {protocol: UDP, port: 80}
",
    );
    assert!(!reaches(&mut c, &pod("default", "stranger"), "http://web"));
    // A pod port the range holds passes the policy (and then finds nothing there).
    let ip = web_ip(&c);
    let out = c
        .http_request(
            &pod("default", "stranger"),
            &format!("http://{ip}:8080"),
            None,
        )
        .unwrap();
    assert_eq!(
        out.result.unwrap_err().reason,
        FailureReason::ConnectionRefused
    );
}

#[test]
fn ip_blocks_match_client_addresses_less_their_exceptions() {
    let mut c = ready();
    policy(
        &mut c,
        "--- nodes-only
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from:
    - ipBlock:
        cidr: 172.18.0.0/16
        except: [172.18.0.1/32]
",
    );
    // Through the NodePort, kube-proxy masquerades: the pod sees a node's address.
    let Object::Service(svc) = c.get(Kind::Service, "default", "web").unwrap() else {
        panic!()
    };
    let node_port = svc.spec.unwrap().ports.unwrap()[0].node_port.unwrap();
    let outside = RequestSource::Outside;
    assert!(reaches(
        &mut c,
        &outside,
        &format!("http://172.18.0.3:{node_port}")
    ));
    // Straight to the pod, the laptop's own address is the exception.
    let ip = web_ip(&c);
    assert!(!reaches(&mut c, &outside, &format!("http://{ip}")));
    // Pod addresses are outside the block.
    assert!(!reaches(&mut c, &pod("default", "frontend"), "http://web"));
}

#[test]
fn egress_isolation_breaks_name_resolution_until_dns_is_allowed() {
    let mut c = ready();
    policy(
        &mut c,
        "--- deny-egress
  podSelector: {matchLabels: {role: frontend}}
  policyTypes: [Egress]
",
    );
    let from = pod("default", "frontend");
    let out = c.http_request(&from, "http://web", None).unwrap();
    assert_eq!(
        out.result.unwrap_err().reason,
        FailureReason::CouldNotResolve
    );
    let ip = web_ip(&c);
    assert!(!reaches(&mut c, &from, &format!("http://{ip}")));
    // Other pods resolve and connect as before.
    assert!(reaches(&mut c, &pod("default", "stranger"), "http://web"));
    policy(
        &mut c,
        "--- allow-dns
  podSelector: {}
  egress:
  - to:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}
      podSelector: {matchLabels: {k8s-app: kube-dns}}
    ports:
    - {protocol: UDP, port: 53}
",
    );
    // Egress rules present: policyTypes defaulted to Ingress and Egress, so this
    // policy also isolates every pod of the namespace for ingress.
    let Object::Other(o) = c.get(Kind::NetworkPolicy, "default", "allow-dns").unwrap() else {
        panic!()
    };
    assert_eq!(
        o.fields["spec"]["policyTypes"],
        serde_json::json!(["Ingress", "Egress"])
    );
    assert!(
        !reaches(&mut c, &from, "http://web"),
        "resolves, then dropped"
    );
    policy(
        &mut c,
        "--- frontend-to-web
  podSelector: {}
  policyTypes: [Ingress, Egress]
  ingress:
  - from:
    - podSelector: {matchLabels: {role: frontend}}
  egress:
  - to:
    - podSelector: {matchLabels: {app: web}}
",
    );
    assert!(reaches(&mut c, &from, "http://web"));
}

#[test]
fn the_ingress_controller_is_a_pod_of_the_ingress_nginx_namespace() {
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
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec:
  podSelector: {}
",
    );
    c.advance(SimDuration::secs(5));
    let out = c
        .http_request(&RequestSource::Outside, "http://shop.example/", None)
        .unwrap();
    // nginx waits on upstreams that never answer; the client gives up first.
    assert_eq!(out.result.unwrap_err().reason, FailureReason::Timeout);
    policy(
        &mut c,
        "--- from-ingress
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ingress-nginx}}
",
    );
    let out = c
        .http_request(&RequestSource::Outside, "http://shop.example/", None)
        .unwrap();
    assert_eq!(out.result.unwrap().status, 200);
}

#[test]
fn invalid_policies_are_refused_with_upstreams_messages_and_change_nothing() {
    let mut c = ready();
    let before = c.revision();
    let bad = "apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: bad}
spec:
  podSelector: {}
  policyTypes: [Ingress, Sideways]
  ingress:
  - from:
    - {}
    - ipBlock: {cidr: 10.0.0.0/8, except: [11.0.0.0/16]}
      podSelector: {}
    ports:
    - {protocol: HTTP, port: 70000}
    - {port: web, endPort: 90}
";
    let obj = decode_manifests(bad).unwrap().remove(0);
    let err = c.create(obj).unwrap_err();
    for expected in [
        "spec.ingress[0].ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"TCP\", \"UDP\", \"SCTP\"",
        "spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
        "spec.ingress[0].ports[1].endPort: Invalid value: 90: may not be specified when `port` is non-numeric",
        "spec.ingress[0].from[0]: Required value: must specify a peer",
        "spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: \"11.0.0.0/16\": must be a strict subset of `cidr`",
        "spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer",
        "spec.policyTypes[1]: Unsupported value: \"Sideways\": supported values: \"Ingress\", \"Egress\"",
    ] {
        assert!(err.message.contains(expected), "{expected}\n{}", err.message);
    }
    assert_eq!(c.revision(), before);
    assert!(c.list(Kind::NetworkPolicy, None).is_empty());
    assert!(reaches(&mut c, &pod("default", "stranger"), "http://web"));
}

#[test]
fn a_drop_counts_as_a_network_policy_failure_in_traffic_stats() {
    let mut c = ready();
    policy(
        &mut c,
        "--- deny
  podSelector: {matchLabels: {app: web}}
",
    );
    let cmd = warehouse_sim::network::traffic::parse_traffic(&[
        "start", "t", "--to", "svc/web", "--from", "stranger", "--rps", "10",
    ])
    .unwrap();
    c.traffic_command(&cmd).unwrap();
    c.advance(SimDuration::secs(2));
    let stats = c.traffic_stats_text();
    assert!(stats.contains("network-policy"), "{stats}");
}
