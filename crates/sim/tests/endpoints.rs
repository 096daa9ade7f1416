//! Services' endpoints: EndpointSlices (100 per slice, one slice rewritten per pod
//! change, conditions ready/serving/terminating, a placeholder for an empty Service)
//! and the legacy Endpoints object (1000 addresses at most).

mod common;

use common::{create, web_with_service};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use std::collections::BTreeMap;
use warehouse_sim::{Cluster, Fault, Kind, Object, SimDuration, Topology};

/// Deployment `web` of `replicas` pods serving `http`, behind Service `web`.
fn web(replicas: usize) -> String {
    web_with_service(replicas, "{app: web}", "")
}

fn slices(c: &Cluster, service: &str) -> Vec<EndpointSlice> {
    c.list(Kind::EndpointSlice, Some("default"))
        .into_iter()
        .filter_map(|o| match o {
            Object::EndpointSlice(s) => Some(*s),
            _ => None,
        })
        .filter(|s| {
            s.metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("kubernetes.io/service-name"))
                .map(String::as_str)
                == Some(service)
        })
        .collect()
}

fn sizes(c: &Cluster) -> Vec<usize> {
    let mut v: Vec<usize> = slices(c, "web")
        .iter()
        .map(|s| s.endpoints.as_ref().map_or(0, Vec::len))
        .collect();
    v.sort_unstable_by(|a, b| b.cmp(a));
    v
}

fn versions(c: &Cluster) -> BTreeMap<String, String> {
    slices(c, "web")
        .into_iter()
        .map(|s| {
            (
                s.metadata.name.unwrap_or_default(),
                s.metadata.resource_version.unwrap_or_default(),
            )
        })
        .collect()
}

fn big_cluster(replicas: usize) -> Cluster {
    let mut c = Cluster::new(3, Topology::with_workers(20));
    create(&mut c, &web(replicas));
    c.advance(SimDuration::secs(120));
    c
}

#[test]
fn a_service_over_250_pods_has_slices_of_100_100_50_and_one_pod_touches_one_slice() {
    let mut c = big_cluster(250);
    assert_eq!(sizes(&c), vec![100, 100, 50]);
    let s = &slices(&c, "web")[0];
    let labels = s.metadata.labels.as_ref().unwrap();
    assert_eq!(
        labels["endpointslice.kubernetes.io/managed-by"],
        "endpointslice-controller.k8s.io"
    );
    assert!(s.metadata.name.as_ref().unwrap().starts_with("web-"));
    let owner = &s.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str()),
        ("Service", "web")
    );
    let port = &s.ports.as_ref().unwrap()[0];
    assert_eq!((port.name.as_deref(), port.port), (Some("http"), Some(80)));

    // One pod goes (the Deployment is scaled to 249): its slice is rewritten as the
    // endpoint turns terminating and then leaves; no other slice changes.
    let before = versions(&c);
    let Object::Deployment(mut d) = c.get(Kind::Deployment, "default", "web").unwrap() else {
        panic!("not a deployment")
    };
    d.spec.replicas = Some(249);
    c.update(Object::Deployment(d)).unwrap();
    c.advance(SimDuration::secs(60));
    let after = versions(&c);
    let changed: Vec<&String> = after
        .iter()
        .filter(|(name, rv)| before.get(*name) != Some(*rv))
        .collect::<Vec<_>>()
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        changed.len(),
        1,
        "exactly one slice was rewritten: {changed:?}"
    );
    assert_eq!(sizes(&c).iter().sum::<usize>(), 249);
}

#[test]
fn endpoint_conditions_follow_readiness_and_termination() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web(3));
    c.advance(SimDuration::secs(60));
    let s = slices(&c, "web").remove(0);
    let e = &s.endpoints.as_ref().unwrap()[0];
    let cond = e.conditions.as_ref().unwrap();
    assert_eq!(
        (cond.ready, cond.serving, cond.terminating),
        (Some(true), Some(true), Some(false))
    );
    assert!(e.node_name.is_some());

    // A terminating pod: still serving, not ready, terminating.
    let name = e.target_ref.as_ref().unwrap().name.clone().unwrap();
    c.delete(Kind::Pod, "default", &name).unwrap();
    c.advance(SimDuration::millis(150));
    let s = slices(&c, "web").remove(0);
    let e = s
        .endpoints
        .iter()
        .flatten()
        .find(|e| e.target_ref.as_ref().unwrap().name.as_deref() == Some(name.as_str()))
        .expect("the terminating pod stays in its slice");
    let cond = e.conditions.as_ref().unwrap();
    assert_eq!(
        (cond.ready, cond.serving, cond.terminating),
        (Some(false), Some(true), Some(true))
    );

    // A pod whose zone stopped reporting: Ready=False, so ready=false, still listed.
    let node = slices(&c, "web")[0].endpoints.as_ref().unwrap()[0]
        .node_name
        .clone()
        .unwrap();
    c.fault(Fault::KillNode(node.clone())).unwrap();
    c.advance(SimDuration::secs(60));
    let on_dead: Vec<_> = slices(&c, "web")
        .into_iter()
        .flat_map(|s| s.endpoints.unwrap_or_default())
        .filter(|e| e.node_name.as_deref() == Some(node.as_str()))
        .collect();
    assert!(!on_dead.is_empty());
    for e in on_dead {
        let cond = e.conditions.unwrap();
        assert_eq!((cond.ready, cond.serving), (Some(false), Some(false)));
    }
}

#[test]
fn endpoints_hold_1000_addresses_and_say_they_were_truncated() {
    let c = big_cluster(1200);
    let Object::Endpoints(ep) = c.get(Kind::Endpoints, "default", "web").unwrap() else {
        panic!("not endpoints")
    };
    let addresses: usize = ep
        .subsets
        .iter()
        .flatten()
        .map(|s| s.addresses.as_ref().map_or(0, Vec::len))
        .sum();
    assert_eq!(addresses, 1000);
    assert_eq!(
        ep.metadata.annotations.unwrap()["endpoints.kubernetes.io/over-capacity"],
        "truncated"
    );
    // The slices hold all 1200.
    let total: usize = sizes(&c).iter().sum();
    assert_eq!(total, 1200);
}

#[test]
fn placeholder_slices_and_services_without_endpoints() {
    let mut c = Cluster::new(1, Topology::default());
    create(
        &mut c,
        "apiVersion: v1
kind: Service
metadata: {name: empty}
spec:
  selector: {app: nothing}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: manual}
spec:
  ports: [{port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  type: ExternalName
  externalName: db.example.com
",
    );
    c.advance(SimDuration::secs(5));
    let empty = slices(&c, "empty");
    assert_eq!(empty.len(), 1, "one placeholder");
    assert!(empty[0].endpoints.as_ref().is_none_or(Vec::is_empty));
    assert!(slices(&c, "manual").is_empty(), "no selector: no slices");
    assert!(slices(&c, "db").is_empty(), "ExternalName: no slices");
    assert!(c.get(Kind::Endpoints, "default", "manual").is_err());
    let Object::Service(db) = c.get(Kind::Service, "default", "db").unwrap() else {
        panic!()
    };
    assert_eq!(db.spec.unwrap().cluster_ip, None);
    // Deleting the Service takes its slices and Endpoints with it.
    c.delete(Kind::Service, "default", "empty").unwrap();
    c.advance(SimDuration::secs(5));
    assert!(slices(&c, "empty").is_empty());
    assert!(c.get(Kind::Endpoints, "default", "empty").is_err());
}
