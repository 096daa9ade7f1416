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

/// Each `kubectl create` generator wraps the apiserver's refusal as its own `Run` does
/// (staging/src/k8s.io/kubectl/pkg/cmd/create): most with `failed to create <what>:`,
/// secret without the colon, service with its type, and role, clusterrole and
/// namespace not at all, so those keep `Error from server (AlreadyExists)`.
#[test]
fn create_generators_wrap_refusals_as_kubectl_does() {
    let mut s = session();
    for (line, refused) in [
        ("create deployment web --image=nginx", "error: failed to create deployment: deployments.apps \"web\" already exists"),
        ("create configmap c --from-literal=a=b", "error: failed to create configmap: configmaps \"c\" already exists"),
        ("create secret generic s --from-literal=a=b", "error: failed to create secret secrets \"s\" already exists"),
        ("create service nodeport web --tcp=80", "error: failed to create NodePort service: services \"web\" already exists"),
        ("create serviceaccount robot", "error: failed to create serviceaccount: serviceaccounts \"robot\" already exists"),
        ("create rolebinding rb --role=r --user=jane", "error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io \"rb\" already exists"),
        ("create pdb p --selector=app=web --min-available=1", "error: failed to create poddisruptionbudgets: poddisruptionbudgets.policy \"p\" already exists"),
        ("create cronjob cj --image=busybox --schedule='*/5 * * * *'", "error: failed to create cronjob: cronjobs.batch \"cj\" already exists"),
        ("create job j --image=busybox", "error: failed to create job: jobs.batch \"j\" already exists"),
        ("create role r --verb=get --resource=pods", "Error from server (AlreadyExists): roles.rbac.authorization.k8s.io \"r\" already exists"),
        ("create namespace team", "Error from server (AlreadyExists): namespaces \"team\" already exists"),
    ] {
        assert!(s.run(line, None, &NoFiles).success(), "{line}");
        let again = s.run(line, None, &NoFiles);
        assert!(!again.success(), "{line}");
        assert_eq!(again.stderr.trim_end(), refused, "{line}");
    }
}
