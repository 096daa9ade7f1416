//! kubectl commands against a real simulated cluster.

use warehouse_kubectl::{CommandOutput, MemoryFiles, NoFiles, Session};
use warehouse_sim::{Cluster, Kind, Object, SimDuration, Topology};

fn session() -> Session {
    Session::new(Cluster::new(1, Topology::default()))
}

fn run(s: &mut Session, line: &str) -> CommandOutput {
    s.run(line, None, &NoFiles)
}

fn apply(s: &mut Session, manifest: &str) -> CommandOutput {
    s.run("apply -f -", Some(manifest), &NoFiles)
}

fn deployment(replicas: u32, labels: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {labels}
spec:
  replicas: {replicas}
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
"
    )
}

const NAMESPACE_SHOP: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n";

#[test]
fn apply_creates_then_leaves_unchanged_then_configures() {
    let mut s = session();
    let out = apply(&mut s, &deployment(3, "{app: web}"));
    assert_eq!(out.stdout, "deployment.apps/web created\n");
    assert_eq!(out.code, 0);
    s.cluster.advance(SimDuration::secs(10));

    let out = apply(&mut s, &deployment(3, "{app: web}"));
    assert_eq!(out.stdout, "deployment.apps/web unchanged\n");

    let out = apply(&mut s, &deployment(1, "{app: web}"));
    assert_eq!(out.stdout, "deployment.apps/web configured\n");
    let live = s.cluster.get(Kind::Deployment, "default", "web").unwrap();
    assert_eq!(live.as_deployment().unwrap().spec.replicas, Some(1));
}

#[test]
fn apply_records_the_manifest_in_the_last_applied_annotation() {
    let mut s = session();
    apply(&mut s, &deployment(2, "{app: web}"));
    let live = s.cluster.get(Kind::Deployment, "default", "web").unwrap();
    let annotation = &live.meta().annotations.as_ref().unwrap()
        ["kubectl.kubernetes.io/last-applied-configuration"];
    assert_eq!(
        annotation,
        "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"annotations\":{},\"labels\":{\"app\":\"web\"},\"name\":\"web\",\"namespace\":\"default\"},\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"image\":\"nginx:1.27\",\"name\":\"nginx\"}]}}}}\n"
    );
}

#[test]
fn reapplying_without_a_label_removes_it_but_keeps_labels_others_added() {
    let mut s = session();
    apply(&mut s, &deployment(1, "{app: web, tier: front}"));
    // Someone else labels the object.
    let mut live = s.cluster.get(Kind::Deployment, "default", "web").unwrap();
    live.meta_mut()
        .labels
        .as_mut()
        .unwrap()
        .insert("owner".into(), "ops".into());
    s.cluster.update(live).unwrap();

    let out = apply(&mut s, &deployment(1, "{app: web}"));
    assert_eq!(out.stdout, "deployment.apps/web configured\n");
    let live = s.cluster.get(Kind::Deployment, "default", "web").unwrap();
    let labels = live.meta().labels.clone().unwrap();
    assert_eq!(labels.get("tier"), None);
    assert_eq!(labels.get("owner").map(String::as_str), Some("ops"));
    assert_eq!(labels.get("app").map(String::as_str), Some("web"));
}

#[test]
fn reapplying_after_someone_scaled_restores_the_manifest() {
    let mut s = session();
    apply(&mut s, &deployment(2, "{app: web}"));
    let mut live = s.cluster.get(Kind::Deployment, "default", "web").unwrap();
    if let Object::Deployment(d) = &mut live {
        d.spec.replicas = Some(5);
    }
    s.cluster.update(live).unwrap();
    let out = apply(&mut s, &deployment(2, "{app: web}"));
    assert_eq!(out.stdout, "deployment.apps/web configured\n");
}

#[test]
fn a_bad_second_document_applies_nothing() {
    for bad in [
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  labels: [a\n",
        "apiVersion: example.com/v1\nkind: Foo\nmetadata:\n  name: x\n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: many\n",
        "apiVersion: v1\nmetadata:\n  name: x\n",
    ] {
        let mut s = session();
        let out = apply(&mut s, &format!("{NAMESPACE_SHOP}---\n{bad}"));
        assert_eq!(out.code, 1, "{bad}");
        assert_eq!(out.stdout, "", "{bad}");
        assert!(
            s.cluster.get(Kind::Namespace, "", "shop").is_err(),
            "the namespace was created although document 2 is bad:\n{bad}"
        );
    }
}

#[test]
fn apply_error_texts() {
    let mut s = session();
    let out = apply(
        &mut s,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  labels: [a\nspec: {}\n",
    );
    assert_eq!(
        out.stderr,
        "error: error parsing STDIN: error converting YAML to JSON: yaml: line 6, column 5: did not find expected ',' or ']'\n"
    );
    let out = apply(
        &mut s,
        "apiVersion: example.com/v1\nkind: Foo\nmetadata:\n  name: x\n",
    );
    assert_eq!(
        out.stderr,
        "error: resource mapping not found for name: \"x\" namespace: \"\" from \"STDIN\": no matches for kind \"Foo\" in version \"example.com/v1\"\nensure CRDs are installed first\n"
    );
    let out = apply(&mut s, "kind: Pod\nmetadata:\n  name: x\n");
    assert_eq!(
        out.stderr,
        "error: error validating \"STDIN\": error validating data: apiVersion not set; if you choose to ignore these errors, turn validation off with --validate=false\n"
    );
    let out = apply(&mut s, "");
    assert_eq!(out.stderr, "error: no objects passed to apply\n");
    let out = run(&mut s, "apply");
    assert_eq!(out.stderr, "error: must specify one of -f and -k\n");
    let out = run(&mut s, "apply -f web.yaml");
    assert_eq!(out.stderr, "error: the path \"web.yaml\" does not exist\n");

    let bad_selector = deployment(1, "{app: web}")
        .replace("        app: web\n    spec", "        app: two\n    spec");
    let out = apply(&mut s, &bad_selector);
    assert_eq!(
        out.stderr,
        "The Deployment \"web\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"two\"}: `selector` does not match template `labels`\n"
    );
    assert_eq!(out.code, 1);
}

#[test]
fn apply_refuses_a_namespace_that_contradicts_the_flag() {
    let mut s = session();
    let manifest = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  namespace: shop\nspec:\n  containers: [{name: a, image: nginx}]\n";
    let out = s.run("apply -n default -f -", Some(manifest), &NoFiles);
    assert_eq!(
        out.stderr,
        "error: the namespace from the provided object \"shop\" does not match the namespace \"default\". You must pass '--namespace=shop' to perform this operation.\n"
    );
}

#[test]
fn apply_reads_files_from_the_file_source() {
    let mut s = session();
    let mut files = MemoryFiles::default();
    files.0.insert("ns.yaml".into(), NAMESPACE_SHOP.into());
    let out = s.run("apply -f ns.yaml", None, &files);
    assert_eq!(out.stdout, "namespace/shop created\n");
}

#[test]
fn get_prints_kubectl_tables_and_messages() {
    let mut s = session();
    let out = run(&mut s, "get pods");
    assert_eq!(out.stdout, "");
    assert_eq!(out.stderr, "No resources found in default namespace.\n");
    assert_eq!(out.code, 0);

    let out = run(&mut s, "get pod x");
    assert_eq!(
        out.stderr,
        "Error from server (NotFound): pods \"x\" not found\n"
    );
    assert_eq!(out.code, 1);

    let out = run(&mut s, "get podz");
    assert_eq!(
        out.stderr,
        "error: the server doesn't have a resource type \"podz\"\n"
    );

    let out = run(&mut s, "get ns");
    assert_eq!(
        out.stdout,
        "NAME              STATUS   AGE\n\
         default           Active   0s\n\
         kube-node-lease   Active   0s\n\
         kube-public       Active   0s\n\
         kube-system       Active   0s\n"
    );

    s.cluster.advance(SimDuration::secs(200));
    let out = run(&mut s, "get nodes");
    assert_eq!(
        out.stdout,
        "NAME            STATUS   ROLES           AGE     VERSION\n\
         control-plane   Ready    control-plane   3m20s   v1.37.0\n\
         zone-a          Ready    <none>          3m20s   v1.37.0\n\
         zone-b          Ready    <none>          3m20s   v1.37.0\n\
         zone-c          Ready    <none>          3m20s   v1.37.0\n"
    );
}

#[test]
fn get_yaml_of_an_empty_list_and_names() {
    let mut s = session();
    let out = run(&mut s, "get pods -o yaml");
    assert_eq!(
        out.stdout,
        "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n"
    );
    let out = run(&mut s, "get ns default -o name");
    assert_eq!(out.stdout, "namespace/default\n");
}

#[test]
fn delete_reports_the_namespace_and_not_found() {
    let mut s = session();
    apply(&mut s, &deployment(1, "{app: web}"));
    let out = run(&mut s, "delete deployment web");
    assert_eq!(
        out.stdout,
        "deployment.apps \"web\" deleted from default namespace\n"
    );
    let out = run(&mut s, "delete pod nginx");
    assert_eq!(
        out.stderr,
        "Error from server (NotFound): pods \"nginx\" not found\n"
    );
    assert_eq!(out.code, 1);
    apply(&mut s, NAMESPACE_SHOP);
    let out = run(&mut s, "delete namespace shop");
    assert_eq!(out.stdout, "namespace \"shop\" deleted\n");
}

#[test]
fn unknown_commands_and_flags() {
    let mut s = session();
    assert_eq!(
        run(&mut s, "frobnicate").stderr,
        "error: unknown command \"frobnicate\" for \"kubectl\"\n"
    );
    assert_eq!(
        run(&mut s, "get pods --nope").stderr,
        "error: unknown flag: --nope\nSee 'kubectl get --help' for usage.\n"
    );
}

#[test]
fn resource_names_flags_and_bool_values() {
    let mut s = session();
    for line in [
        "get namespaces.v1 default",
        "get ns/default",
        "get namespace default --no-headers=false",
        "get -A=true ns",
    ] {
        let out = run(&mut s, line);
        assert_eq!(out.code, 0, "{line}: {}", out.stderr);
        assert!(out.stdout.contains("default"), "{line}: {out:?}");
    }
    let out = run(&mut s, "get deployments.v1.apps");
    assert_eq!(out.stderr, "No resources found in default namespace.\n");
    let out = run(&mut s, "get -A ns default");
    assert_eq!(
        out.stderr,
        "error: a resource cannot be retrieved by name across all namespaces\n"
    );
    // kube-system always holds CoreDNS: select nothing to list nothing.
    let out = run(&mut s, "get pods,deploy -A -l app=nothing");
    assert_eq!(out.stderr, "No resources found\n");
}

#[test]
fn a_stopped_apiserver_refuses_every_command_and_a_stopped_etcd_times_out() {
    use warehouse_sim::ControlPlaneComponent;
    let mut s = session();
    s.cluster.stop(ControlPlaneComponent::ApiServer).unwrap();
    for line in ["get pods", "get --raw /readyz", "delete pod x", "get cs"] {
        let out = run(&mut s, line);
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (
                1,
                "",
                "The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?\n"
            ),
            "{line}"
        );
    }
    s.cluster.start(ControlPlaneComponent::ApiServer).unwrap();
    s.cluster.stop(ControlPlaneComponent::Etcd).unwrap();
    let out = run(&mut s, "get pods");
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "Error from server: etcdserver: request timed out\n"
    );
    let out = apply(&mut s, &deployment(1, "{app: web}"));
    assert_eq!(
        out.stderr,
        "Error from server: error when retrieving current configuration of:\nResource: \"apps/v1, Resource=deployments\", GroupVersionKind: \"apps/v1, Kind=Deployment\"\nName: \"web\", Namespace: \"default\"\nfrom server for: \"STDIN\": etcdserver: request timed out\n"
    );
    // Health is served from the apiserver's memory: it answers, and says why.
    let out = run(&mut s, "get --raw /livez/etcd");
    assert_eq!(
        out.stderr,
        "Error from server (InternalError): an error on the server (\"internal server error: error getting data from etcd: context deadline exceeded\") has prevented the request from succeeding\n"
    );
    let out = run(&mut s, "get componentstatuses");
    assert_eq!(out.code, 0);
    assert!(
        out.stdout.contains("etcd-0               Unhealthy"),
        "{}",
        out.stdout
    );
    assert_eq!(
        out.stderr,
        "Warning: v1 ComponentStatus is deprecated in v1.19+\n"
    );
}
