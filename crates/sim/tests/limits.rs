//! The simulated cluster's own limits: how many pods and objects it holds in all,
//! each refused with a 403 the way a quota refuses, and nothing half done.

mod common;

use common::{cluster_with, create};
use warehouse_sim::apiserver::store::ObjectLimits;
use warehouse_sim::{decode_manifests, Cluster, Kind, Object, SimDuration, StatusReason, Topology};

#[test]
fn the_limits_are_kubernetes_scalability_envelope() {
    assert_eq!(warehouse_sim::apiserver::MAX_PODS, 150_000);
    assert_eq!(warehouse_sim::apiserver::MAX_OBJECTS, 250_000);
    let c = Cluster::new(1, Topology::default());
    assert_eq!(
        c.object_limits(),
        ObjectLimits {
            pods: 150_000,
            objects: 250_000
        }
    );
}

fn events(c: &Cluster, reason: &str) -> Vec<String> {
    c.list(Kind::Event, Some("default"))
        .into_iter()
        .filter_map(|o| match o {
            Object::Event(e) if e.reason.as_deref() == Some(reason) => e.message,
            _ => None,
        })
        .collect()
}

#[test]
fn the_replicaset_controller_meets_the_pod_limit_with_failed_create() {
    let mut c = Cluster::settled(1, Topology::default());
    let pods_now = c.list(Kind::Pod, None).len();
    c.set_object_limits(ObjectLimits {
        pods: pods_now + 3,
        objects: usize::MAX,
    });
    create(&mut c, common::WEB);
    c.advance(SimDuration::secs(30));
    let mine = c.list(Kind::Pod, Some("default"));
    assert_eq!(mine.len(), 3);
    let failed = events(&c, "FailedCreate");
    assert!(!failed.is_empty());
    let msg = &failed[0];
    assert!(
        msg.starts_with("Error creating: pods \"web-")
            && msg.ends_with(&format!(
                "\" is forbidden: this simulated cluster holds at most {} pods",
                pods_now + 3
            )),
        "{msg}"
    );
    // A pod created directly is refused the same way, with a 403.
    let pod = decode_manifests(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: one-more\nspec:\n  containers:\n  - name: a\n    image: nginx\n",
    )
    .unwrap()
    .remove(0);
    let e = c.create(pod).unwrap_err();
    assert_eq!(e.reason, StatusReason::Forbidden);
    assert_eq!(
        e.message,
        format!(
            "pods \"one-more\" is forbidden: this simulated cluster holds at most {} pods",
            pods_now + 3
        )
    );
    assert_eq!(c.list(Kind::Pod, Some("default")).len(), 3);
}

#[test]
fn the_object_limit_counts_every_kind() {
    let mut c = cluster_with("");
    let total: usize = c.object_count();
    c.set_object_limits(ObjectLimits {
        pods: usize::MAX,
        objects: total + 2,
    });
    let cm = |name: &str| {
        decode_manifests(&format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"
        ))
        .unwrap()
        .remove(0)
    };
    c.create(cm("a")).unwrap();
    c.create(cm("b")).unwrap();
    let revision = c.revision();
    let e = c.create(cm("c")).unwrap_err();
    assert_eq!(e.reason, StatusReason::Forbidden);
    assert_eq!(
        e.message,
        format!(
            "configmaps \"c\" is forbidden: this simulated cluster holds at most {} objects",
            total + 2
        )
    );
    assert_eq!(c.revision(), revision, "a refused create writes nothing");
    // Deleting one makes room again.
    c.delete(Kind::ConfigMap, "default", "a").unwrap();
    c.create(cm("c")).unwrap();
}

#[test]
fn events_are_kept_apart_from_the_object_limit() {
    let mut c = cluster_with(common::WEB);
    c.advance(SimDuration::secs(30));
    let events_before = c.kind_count(Kind::Event);
    assert!(events_before > 0, "the rollout recorded events");
    // Every object but the Events: the cluster is full.
    let others = c.object_count() - events_before;
    c.set_object_limits(ObjectLimits {
        pods: usize::MAX,
        objects: others,
    });
    let Ok(Object::Deployment(mut d)) = c.get(Kind::Deployment, "default", "web") else {
        panic!("web is a Deployment");
    };
    let replicas = d.spec.replicas.unwrap_or(1);
    d.spec.replicas = Some(replicas + 1);
    c.update(Object::Deployment(d)).unwrap();
    c.advance(SimDuration::secs(5));
    // The new pod is refused, and the refusal is still recorded as an Event: the
    // Events have their own bound, not the objects' one.
    let failed = events(&c, "FailedCreate");
    assert!(
        failed.iter().any(|m| m.ends_with(&format!(
            "is forbidden: this simulated cluster holds at most {others} objects"
        ))),
        "{failed:?}"
    );
    assert_eq!(c.object_count() - c.kind_count(Kind::Event), others);
}
