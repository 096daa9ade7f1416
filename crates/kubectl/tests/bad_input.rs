//! Hostile input through kubectl: numbers at the int64 limit and malformed YAML get
//! a clear answer (with the right location) and leave the cluster as it was.

use warehouse_kubectl::{CommandOutput, NoFiles, Session};
use warehouse_sim::{Cluster, SimDuration, Topology};

fn session() -> Session {
    Session::new(Cluster::new(1, Topology::default()))
}

fn run(s: &mut Session, line: &str) -> CommandOutput {
    s.run(line, None, &NoFiles)
}

#[test]
fn delete_with_a_grace_period_of_a_trillion_seconds() {
    let mut s = session();
    assert_eq!(run(&mut s, "run web --image=nginx:1.27").code, 0);
    s.cluster.advance(SimDuration::secs(20));
    let out = run(&mut s, "delete pod web --grace-period=1000000000000");
    assert_eq!(out.stdout, "pod \"web\" deleted from default namespace\n");
    assert_eq!(out.code, 0);
}

fn apply(s: &mut Session, manifest: &str) -> CommandOutput {
    s.run("apply -f -", Some(manifest), &NoFiles)
}

const PREFIX: &str = "error: error parsing STDIN: error converting YAML to JSON: yaml: ";

/// Applies `manifest`, expects `error` (after kubectl's prefix), and checks that
/// nothing was written.
fn refused(s: &mut Session, manifest: &str, error: &str) {
    let revision = s.cluster.revision();
    let out = apply(s, manifest);
    assert_eq!(out.stderr, format!("{PREFIX}{error}\n"), "{manifest:?}");
    assert_eq!(out.stdout, "");
    assert_eq!(out.code, 1);
    assert_eq!(
        s.cluster.revision(),
        revision,
        "{manifest:?} wrote something"
    );
}

const CONFIGMAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\ndata:\n";

#[test]
fn a_control_character_is_reported_where_it_is() {
    let mut s = session();
    refused(
        &mut s,
        &format!("{CONFIGMAP}  a: \"b\u{1}c\"\n"),
        "line 6, column 8: control characters are not allowed (found U+0001)",
    );
    // In the third document of a file, in a comment, counted across the whole file.
    refused(
        &mut s,
        &format!("{CONFIGMAP}  a: b\n---\n{CONFIGMAP}  a: b\n---\n# note\u{7f}\n{CONFIGMAP}"),
        "line 15, column 7: control characters are not allowed (found U+007F)",
    );
    // After a multi-byte character, columns count characters; CRLF is one break.
    refused(
        &mut s,
        "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: \u{e9}t\u{e9}\u{8}\r\n",
        "line 4, column 12: control characters are not allowed (found U+0008)",
    );
}

#[test]
fn an_unclosed_quote_is_reported_where_it_opened() {
    let mut s = session();
    refused(
        &mut s,
        &format!("{CONFIGMAP}  a: \"bc\n  d: e\n"),
        "line 6, column 6: found unclosed quote (opened here)",
    );
    // Before the next document: still where it opened, line counted in the file.
    refused(
        &mut s,
        &format!("{CONFIGMAP}  a: b\n---\n{CONFIGMAP}  a: 'b\n---\n{CONFIGMAP}"),
        "line 13, column 6: found unclosed quote (opened here)",
    );
    refused(
        &mut s,
        "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: \"x\r\n",
        "line 4, column 9: found unclosed quote (opened here)",
    );
}

#[test]
fn an_unclosed_bracket_is_reported_where_it_opened() {
    let mut s = session();
    refused(
        &mut s,
        &format!("{CONFIGMAP}  a: b\n---\n{CONFIGMAP}  list: [1, 2\n"),
        "line 13, column 9: found unclosed '[' (opened here)",
    );
    refused(
        &mut s,
        &format!("{CONFIGMAP}  map: {{x: 1\n"),
        "line 6, column 8: found unclosed '{' (opened here)",
    );
    // Closed too late, the problem is where libyaml found it.
    refused(
        &mut s,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  labels: [a\nspec: {}\n",
        "line 6, column 5: did not find expected ',' or ']'",
    );
}

#[test]
fn errors_in_later_documents_count_lines_in_the_whole_file() {
    let mut s = session();
    refused(
        &mut s,
        &format!("{CONFIGMAP}  a: b\n---\n{CONFIGMAP}  a: b: c\n"),
        "line 13, column 7: mapping values are not allowed in this context",
    );
    refused(
        &mut s,
        &format!("{CONFIGMAP}  a: b\n---\n{CONFIGMAP}  a: \"\\q\"\n"),
        "line 13, column 7: found unknown escape character",
    );
}

#[test]
fn a_duplicate_key_is_reported_where_it_repeats() {
    let mut s = session();
    refused(
        &mut s,
        &format!("{CONFIGMAP}  a: b\n---\n{CONFIGMAP}  a: b\n  # again\n  'a': c\n"),
        "line 15, column 3: data: duplicate entry with key \"a\"",
    );
    refused(
        &mut s,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n  - name: a\n    image: nginx\n    name: b\n",
        "line 9, column 5: spec.containers[0]: duplicate entry with key \"name\"",
    );
}

#[test]
fn an_invalid_port_is_refused_by_the_apiserver_and_nothing_of_it_is_stored() {
    let mut s = session();
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: nginx\n    image: nginx:1.27\n    ports:\n    - containerPort: 70000\n";
    // kubectl sends each object on its own: the valid first one is created, as with
    // a real cluster, and the refused one leaves nothing behind.
    let out = apply(&mut s, &format!("{CONFIGMAP}  a: b\n---\n{pod}"));
    assert_eq!(out.stdout, "configmap/one created\n");
    assert_eq!(
        out.stderr,
        "The Pod \"web\" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive\n"
    );
    assert_eq!(out.code, 1);
    assert!(s
        .cluster
        .get(warehouse_sim::Kind::Pod, "default", "web")
        .is_err());
    let out = run(&mut s, "run web --image=nginx:1.27 --port=0");
    assert_eq!(
        out.stderr,
        "The Pod \"web\" is invalid: spec.containers[0].ports[0].containerPort: Required value\n"
    );
}

#[test]
fn a_byte_order_mark_from_a_windows_editor_is_dropped_as_kubectl_drops_it() {
    let mut s = session();
    let out = apply(&mut s, &format!("\u{feff}{CONFIGMAP}  a: b\n"));
    assert_eq!(out.stdout, "configmap/one created\n", "{}", out.stderr);
    // Only at the start: inside the text it is part of the key, which the apiserver
    // refuses (`IsConfigMapKey`), and the ConfigMap stays as it was.
    let out = apply(&mut s, &format!("{CONFIGMAP}  \u{feff}a: b\n"));
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("data[\u{feff}a]: Invalid value: \"\u{feff}a\": a valid config key must consist of alphanumeric characters"),
        "{}",
        out.stderr
    );
}

#[test]
fn an_unquoted_heredoc_is_expanded_before_kubectl_reads_it() {
    let mut s = session();
    let script = "NAME=cart\nkubectl apply -f - <<EOF\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: $NAME\ndata:\n  made-by: $(echo robot)\n  price: \\$5\nEOF\nkubectl get configmap cart -o jsonpath='{.data.made-by} {.data.price}'\n";
    let t = warehouse_kubectl::shell::script::run(&mut s, script, &NoFiles);
    assert_eq!(t.failures(), 0, "{t}");
    assert_eq!(t.steps[2].output.stdout, "robot $5");
}

#[test]
fn a_huge_timeout_waits_an_hour_of_simulated_time_at_most() {
    let mut s = session();
    assert_eq!(run(&mut s, "create namespace shop").code, 0);
    let start = s.cluster.now();
    let out = run(
        &mut s,
        "wait --for=condition=Never namespace/shop --timeout=700h",
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.starts_with(
            "Warning: this simulated kubectl waits at most 1h0m0s of simulated time in one command"
        ) && out
            .stderr
            .contains("error: timed out waiting for the condition on namespaces/shop"),
        "{}",
        out.stderr
    );
    let waited = s.cluster.now().since(start);
    assert!(
        waited <= warehouse_kubectl::MAX_COMMAND_WAIT + SimDuration::secs(1),
        "{waited:?}"
    );
    // A watch ends within the hour too, as the apiserver ends it.
    let start = s.cluster.now();
    let out = run(
        &mut s,
        "get namespace shop -w --request-timeout=99999999999",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        s.cluster.now().since(start),
        warehouse_kubectl::MAX_COMMAND_WAIT
    );
}

#[test]
fn an_infinite_number_is_refused_as_go_refuses_to_write_it_as_json() {
    let mut s = session();
    for (value, shown) in [(".inf", "+Inf"), ("-.inf", "-Inf"), (".nan", "NaN")] {
        let manifest = format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {value}\n  selector:\n    matchLabels: {{app: web}}\n  template:\n    metadata:\n      labels: {{app: web}}\n    spec:\n      containers:\n      - name: web\n        image: nginx\n");
        let revision = s.cluster.revision();
        let out = apply(&mut s, &manifest);
        assert_eq!(
            out.stderr,
            format!("error: error parsing STDIN: error converting YAML to JSON: json: unsupported value: {shown}\n")
        );
        assert_eq!(s.cluster.revision(), revision);
    }
}

#[test]
fn a_limit_range_whose_min_is_above_its_max_is_refused() {
    let mut s = session();
    let lr = |min: &str, max: &str| {
        format!("apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: bounds\nspec:\n  limits:\n  - type: Container\n    min:\n      cpu: \"{min}\"\n    max:\n      cpu: \"{max}\"\n")
    };
    let revision = s.cluster.revision();
    let out = apply(&mut s, &lr("2", "1"));
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 is greater than max value 1"),
        "{}",
        out.stderr
    );
    assert_eq!(s.cluster.revision(), revision);
    let out = apply(&mut s, &lr("100m", "1"));
    assert_eq!(out.stdout, "limitrange/bounds created\n", "{}", out.stderr);
}
