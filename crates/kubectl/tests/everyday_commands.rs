//! label, annotate, expose, run, version, cluster-info, config, events and wait:
//! odd input never panics, and the session's namespace follows the kubeconfig.

use warehouse_kubectl::{NoFiles, Session};
use warehouse_sim::{Cluster, Topology};

fn session() -> Session {
    Session::new(Cluster::new(1, Topology::default()))
}

#[test]
fn odd_command_lines_fail_cleanly() {
    let mut s = session();
    assert!(s.run("run p --image=nginx:1.26", None, &NoFiles).success());
    for line in [
        "label",
        "label pod",
        "label pod p",
        "label pod p ä=ö",
        "label pod p a=b=c",
        "label pod p -",
        "label pod/ a=b",
        "label pod/p/q a=b",
        "annotate pod p -",
        "annotate pod p =",
        "annotate pods --all -l a=b x=y",
        "expose",
        "expose pod p --port=x",
        "expose pod p --port=-1",
        "expose pod p --target-port=",
        "run",
        "run x --image=",
        "run x --image=Ä",
        "run x --image=nginx --port=99999999999",
        "run x --image=nginx --env==v",
        "run x --image=nginx --labels=,",
        "config",
        "config use-context",
        "config set-context --current --namespace=",
        "config view -o json",
        "events --for pod",
        "events --for /",
        "events --types=",
        "wait",
        "wait pod/p",
        "wait pod/p --for=jsonpath=",
        "wait pod/p --for=jsonpath={.a[}=1",
        "wait pod/p --for=jsonpath={.a[x]}=1",
        "wait pod/p --for=condition=",
        "wait pod/p --for=condition=Ready --timeout=-1x",
        "cluster-info foo",
        "version --output=foo",
    ] {
        let out = s.run(line, None, &NoFiles);
        assert!(
            !out.success() || line.starts_with("config set-context"),
            "{line}: {out:?}"
        );
    }
}

#[test]
fn set_context_namespace_is_the_default_namespace() {
    let mut s = session();
    assert!(s.run("create namespace dev", None, &NoFiles).success());
    let out = s.run(
        "config set-context --current --namespace=dev",
        None,
        &NoFiles,
    );
    assert_eq!(
        out.stdout,
        "Context \"kubernetes-admin@kubernetes\" modified.\n"
    );
    assert_eq!(s.namespace, "dev");
    let out = s.run("run p --image=nginx:1.26", None, &NoFiles);
    assert!(out.success(), "{out:?}");
    assert!(s.run("get pod p -n dev", None, &NoFiles).success());
    assert!(!s.run("get pod p -n default", None, &NoFiles).success());
    s.run("config set-context --current --namespace=", None, &NoFiles);
    assert_eq!(s.namespace, "default");
}
