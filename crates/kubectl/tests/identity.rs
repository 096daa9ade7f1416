//! Identity is decided at the reception desk: kubectl sends credentials (a token,
//! `--as`), the apiserver authenticates and authorizes them, and the request log,
//! the change feed and the trace name the user the desk recognised.

use warehouse_kubectl::{NoFiles, Session};
use warehouse_sim::apiserver::request::UNAUTHENTICATED;
use warehouse_sim::apiserver::Stage;
use warehouse_sim::views::feed::FeedEvent;
use warehouse_sim::{Cluster, Kind, ObjectKey, Topology};

fn session() -> Session {
    Session::new(Cluster::new(1, Topology::default()))
}

/// One script line (`kubectl …` or `sim …`), as the terminal runs it.
fn run(s: &mut Session, line: &str) -> String {
    let t = warehouse_kubectl::shell::script::run(s, line, &NoFiles);
    t.steps
        .iter()
        .map(|r| r.output.combined())
        .collect::<String>()
}

/// The newest record of the request log.
fn last_request(s: &Session) -> warehouse_sim::apiserver::RequestRecord {
    s.cluster
        .requests()
        .next_back()
        .cloned()
        .expect("a request")
}

#[test]
fn a_forged_token_stops_at_authentication_and_is_recorded_there() {
    let mut s = session();
    let out = run(
        &mut s,
        "kubectl run forged --image=nginx:1.27 --token=forged-pass",
    );
    assert_eq!(
        out,
        "error: You must be logged in to the server (Unauthorized)\n"
    );
    let r = last_request(&s);
    assert_eq!(r.user, UNAUTHENTICATED);
    assert_eq!(r.verb, "create");
    assert_eq!(r.target(), "pods/forged");
    assert_eq!(r.code, 401);
    assert_eq!(r.stages, vec![(Stage::Authentication, false)]);
    assert!(s.cluster.get(Kind::Pod, "default", "forged").is_err());
    // The office's envelope stops at the same gate.
    let refused = s
        .cluster
        .feed_since(0)
        .events
        .rev()
        .find_map(|e| match e {
            FeedEvent::Request {
                user, refused_at, ..
            } => Some((user.clone(), *refused_at)),
            _ => None,
        })
        .expect("the request is in the feed");
    assert_eq!(
        refused,
        (UNAUTHENTICATED.to_string(), Some("authentication"))
    );
}

#[test]
fn an_rbac_refusal_is_recorded_at_authorization_as_the_user() {
    let mut s = session();
    run(&mut s, "sim user add jane");
    let out = run(
        &mut s,
        "kubectl create deployment web --image=nginx:1.27 --token=jane-token",
    );
    assert!(
        out.contains("User \"jane\" cannot create resource \"deployments\""),
        "{out}"
    );
    let r = last_request(&s);
    assert_eq!(r.user, "jane");
    assert_eq!(r.code, 403);
    assert_eq!(
        r.stages,
        vec![(Stage::Authentication, true), (Stage::Authorization, false)]
    );
    let log = run(&mut s, "sim requests");
    assert!(
        log.lines()
            .any(|l| l.contains("jane") && l.contains("403 refused by authorization")),
        "{log}"
    );
}

#[test]
fn a_write_made_as_jane_is_recorded_and_traced_as_jane() {
    let mut s = session();
    run(
        &mut s,
        "kubectl create rolebinding jane-edit --clusterrole=edit --user=jane",
    );
    let out = run(&mut s, "kubectl run packer --image=nginx:1.27 --as=jane");
    assert_eq!(out, "pod/packer created\n");
    let r = last_request(&s);
    assert_eq!((r.user.as_str(), r.code), ("jane", 201));
    let why = s
        .cluster
        .why_text(&ObjectKey::new(Kind::Pod, "default", "packer"));
    assert!(why.contains("jane"), "{why}");
    assert!(!why.contains("kubernetes-admin"), "{why}");
    // A token of her own works the same way.
    run(&mut s, "sim user add jane");
    run(
        &mut s,
        "kubectl delete pod packer --wait=false --token=jane-token",
    );
    let r = last_request(&s);
    assert_eq!((r.user.as_str(), r.verb, r.code), ("jane", "delete", 200));
}

#[test]
fn impersonation_needs_permission_to_impersonate() {
    let mut s = session();
    run(&mut s, "sim user add jane");
    let out = run(
        &mut s,
        "kubectl run p --image=nginx:1.27 --token=jane-token --as=root",
    );
    assert_eq!(
        out,
        "Error from server (Forbidden): users \"root\" is forbidden: User \"jane\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope\n"
    );
    let r = last_request(&s);
    assert_eq!((r.user.as_str(), r.code), ("jane", 403));
    // Reads meet the same gates and are not recorded.
    let before = s.cluster.requests().count();
    let out = run(&mut s, "kubectl get pods --token=forged-pass");
    assert_eq!(
        out,
        "error: You must be logged in to the server (Unauthorized)\n"
    );
    assert_eq!(s.cluster.requests().count(), before);
    let out = run(&mut s, "kubectl auth whoami --as=jane --as-group=devs");
    assert!(out.contains("jane") && out.contains("devs"), "{out}");
}

#[test]
fn the_administrators_token_cannot_be_taken_by_a_new_user() {
    let mut s = session();
    let out = run(&mut s, "sim user add admin");
    assert!(out.starts_with("error: sim user add:"), "{out}");
    let out = run(&mut s, "kubectl auth whoami");
    assert!(out.contains("kubernetes-admin"), "{out}");
}

#[test]
fn a_restored_cluster_keeps_the_desks_passes() {
    let mut s = session();
    run(&mut s, "sim user add jane");
    let snap = s.cluster.snapshot();
    s.cluster = Cluster::restore(&snap).unwrap();
    assert_eq!(
        run(&mut s, "kubectl run a --image=nginx:1.27"),
        "pod/a created\n"
    );
    let out = run(&mut s, "kubectl auth whoami --token=jane-token");
    assert!(out.contains("jane"), "{out}");
    run(&mut s, "kubectl run b --image=nginx:1.27 --as=jane");
    let r = last_request(&s);
    assert_eq!((r.user.as_str(), r.code), ("jane", 403));
}
