//! A learner arrives at a settled cluster: every entry point (`warehouse run`, the
//! golden tests, `warehouse repl`, the web app) starts a few minutes after boot, with
//! nodes Ready and kube-system Running; `sim boot cold`, first in a script, goes back
//! to simulated second 0.

use warehouse_cli::run_script;
use warehouse_kubectl::{NoFiles, Session};
use warehouse_sim::{Kind, Object, SimTime, SETTLE_TIME};

fn pod_running_and_ready(o: &Object) -> bool {
    let Object::Pod(p) = o else { return false };
    let Some(status) = p.status.as_ref() else {
        return false;
    };
    let ready = status
        .conditions
        .iter()
        .flatten()
        .any(|c| c.type_ == "Ready" && c.status == "True");
    let containers_ready = status
        .container_statuses
        .as_ref()
        .is_some_and(|cs| !cs.is_empty() && cs.iter().all(|c| c.ready));
    status.phase.as_deref() == Some("Running") && ready && containers_ready
}

fn node_ready(o: &Object) -> bool {
    let Object::Node(n) = o else { return false };
    n.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

#[test]
fn a_fresh_settled_session_has_every_node_ready_and_kube_system_running_and_ready() {
    let session = Session::settled(1);
    assert_eq!(session.cluster.now(), SimTime(0) + SETTLE_TIME);
    assert!(SETTLE_TIME.as_secs() >= 120, "ages of minutes, not seconds");

    let nodes = session.cluster.list(Kind::Node, None);
    assert_eq!(nodes.len(), 4);
    for n in &nodes {
        assert!(node_ready(n), "node {} is not Ready", n.name());
    }

    let pods = session.cluster.list(Kind::Pod, Some("kube-system"));
    let names: Vec<&str> = pods.iter().map(|p| p.name()).collect();
    for prefix in [
        "kube-apiserver-",
        "etcd-",
        "kube-scheduler-",
        "kube-controller-manager-",
        "coredns-",
        "kube-proxy-",
    ] {
        assert!(
            names.iter().any(|n| n.starts_with(prefix)),
            "no {prefix}* pod in {names:?}"
        );
    }
    assert_eq!(
        names
            .iter()
            .filter(|n| n.starts_with("kube-proxy-"))
            .count(),
        nodes.len(),
        "one kube-proxy per node"
    );
    for p in &pods {
        assert!(
            pod_running_and_ready(p),
            "pod {} is not Running and Ready",
            p.name()
        );
    }
}

#[test]
fn every_seed_settles() {
    for seed in [2, 3, 42] {
        let session = Session::settled(seed);
        let pods = session.cluster.list(Kind::Pod, Some("kube-system"));
        assert_eq!(pods.len(), 10, "seed {seed}");
        assert!(pods.iter().all(pod_running_and_ready), "seed {seed}");
    }
}

#[test]
fn a_script_starts_settled() {
    let t = run_script("kubectl get pods -n kube-system\n", 1, &NoFiles);
    let text = t.text();
    let rows: Vec<&str> = text.lines().skip(2).collect();
    assert_eq!(rows.len(), 10, "{text}");
    for row in rows {
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(&cols[1..4], ["1/1", "Running", "0"], "{row}");
        assert_eq!(cols[4], "5m", "{row}");
    }
}

#[test]
fn sim_boot_cold_first_in_a_script_starts_at_time_zero() {
    let mut session = Session::settled(1);
    let t = warehouse_kubectl::shell::script::run(
        &mut session,
        "sim boot cold\nkubectl get pods -n kube-system\n",
        &NoFiles,
    );
    assert_eq!(t.failures(), 0, "{t}");
    assert_eq!(session.cluster.now(), SimTime(0));
    let text = t.text();
    assert!(text.contains("the cluster boots cold"), "{text}");
    // At second 0 the static pods are Pending and CoreDNS and kube-proxy not there.
    assert!(text.contains("kube-apiserver-control-plane"), "{text}");
    assert!(text.contains("Pending"), "{text}");
    assert!(!text.contains("Running"), "{text}");
    assert!(!text.contains("coredns-"), "{text}");
    let pods = session.cluster.list(Kind::Pod, Some("kube-system"));
    assert!(!pods.iter().all(pod_running_and_ready));
}

#[test]
fn sim_boot_after_another_command_is_refused_with_a_clear_message() {
    for before in [
        "sim advance 1s",
        "kubectl create deployment web --image=nginx",
        "sim node kill zone-a",
    ] {
        let script = format!("{before}\nsim boot cold\n");
        let mut session = Session::settled(1);
        let t = warehouse_kubectl::shell::script::run(&mut session, &script, &NoFiles);
        let text = t.text();
        assert!(
            text.contains("error: the boot mode is fixed when the cluster is created: sim boot must come first, before anything else happens"),
            "after {before:?}:\n{text}"
        );
        assert!(t.failures() >= 1, "{text}");
        assert!(session.cluster.now() >= SimTime(0) + SETTLE_TIME, "{text}");
        assert_eq!(session.cluster.boot(), warehouse_sim::Boot::Settled);
    }
}
