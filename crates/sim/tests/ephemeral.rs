//! Ephemeral containers: the `pods/ephemeralcontainers` subresource
//! (pkg/registry/core/pod/storage, `ValidatePodEphemeralContainersUpdate`,
//! `validateEphemeralContainers`) and the kubelet that starts them once.

mod common;

use common::{create, web_deployment};
use k8s_openapi::api::core::v1::{ContainerPort, EphemeralContainer, Pod, Probe};
use warehouse_sim::apiserver::request::{Body, Credentials, Request};
use warehouse_sim::{Cluster, Kind, Object, SimDuration, Topology};

fn running_pod() -> (Cluster, Pod) {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, &web_deployment(1, "{app: web}", "", ""));
    c.advance(SimDuration::secs(30));
    let pod = c
        .list(Kind::Pod, Some("default"))
        .into_iter()
        .find_map(|o| match o {
            Object::Pod(p) => Some(*p),
            _ => None,
        })
        .expect("a pod");
    (c, pod)
}

fn debugger(name: &str, command: &[&str]) -> EphemeralContainer {
    EphemeralContainer {
        name: name.into(),
        image: Some("busybox".into()),
        command: Some(command.iter().map(|s| s.to_string()).collect()),
        ..Default::default()
    }
}

fn send(c: &mut Cluster, pod: &Pod, list: Vec<EphemeralContainer>) -> Result<Pod, String> {
    let mut p = pod.clone();
    p.spec.as_mut().unwrap().ephemeral_containers = Some(list);
    let body = Body::Patch {
        object: Object::Pod(Box::new(p)),
        subresource: Some("ephemeralcontainers".into()),
    };
    match c.handle(Request::new(&Credentials::admin(), body)) {
        Ok(Object::Pod(p)) => Ok(*p),
        Ok(_) => Err("not a pod".into()),
        Err(e) => Err(e.message),
    }
}

fn ephemeral_of(pod: &Pod) -> Vec<EphemeralContainer> {
    pod.spec
        .as_ref()
        .and_then(|s| s.ephemeral_containers.clone())
        .unwrap_or_default()
}

fn current(c: &Cluster, pod: &Pod) -> Pod {
    match c.get(Kind::Pod, "default", pod.metadata.name.as_deref().unwrap()) {
        Ok(Object::Pod(p)) => *p,
        _ => panic!("no pod"),
    }
}

#[test]
fn an_added_container_runs_once_and_the_others_may_not_change_or_go() {
    let (mut c, pod) = running_pod();
    let name = pod.metadata.name.clone().unwrap();
    let one = debugger("one", &["sh", "-c", "echo hi; exit 3"]);
    let pod = send(&mut c, &pod, vec![one.clone()]).expect("added");
    c.advance(SimDuration::secs(60));
    let now = current(&c, &pod);
    let st = &now
        .status
        .as_ref()
        .unwrap()
        .ephemeral_container_statuses
        .as_ref()
        .unwrap()[0];
    let t = st
        .state
        .as_ref()
        .unwrap()
        .terminated
        .as_ref()
        .expect("finished");
    assert_eq!((t.exit_code, st.restart_count, st.ready), (3, 0, false));
    assert_eq!(
        now.status.as_ref().unwrap().phase.as_deref(),
        Some("Running")
    );
    // Removing or changing it is refused; the apiserver's messages.
    let err = send(&mut c, &now, vec![]).unwrap_err();
    assert_eq!(err, format!("Pod \"{name}\" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers \"one\" may not be removed"));
    let mut changed = ephemeral_of(&now);
    changed[0].image = Some("busybox:1.36".into());
    let err = send(&mut c, &now, changed).unwrap_err();
    assert_eq!(err, format!("Pod \"{name}\" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers \"one\" may not be changed"));
    // Fields an ephemeral container may not have.
    let mut list = ephemeral_of(&now);
    let mut two = debugger("two", &["sleep", "60"]);
    two.ports = Some(vec![ContainerPort {
        container_port: 80,
        ..Default::default()
    }]);
    two.readiness_probe = Some(Probe::default());
    list.push(two);
    let err = send(&mut c, &now, list).unwrap_err();
    assert_eq!(err, format!("Pod \"{name}\" is invalid: [spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container, spec.ephemeralContainers[1].readinessProbe: Forbidden: cannot be set for an Ephemeral Container]"));
    assert_eq!(
        current(&c, &now).metadata.resource_version,
        now.metadata.resource_version,
        "nothing changed"
    );
}
