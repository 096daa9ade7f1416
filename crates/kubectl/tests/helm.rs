//! `helm` in the terminal: Helm v3's output formats, releases stored as Helm's
//! Secrets, upgrade and rollback revisions, errors that leave the cluster as it
//! was, `-f` values files, and the chart templates' Go template subset.

use std::collections::BTreeMap;
use warehouse_kubectl::printers::gotemplate::TemplateSet;
use warehouse_kubectl::{CommandOutput, MemoryFiles, NoFiles, Session};
use warehouse_sim::{Kind, SimDuration};

fn session() -> Session {
    Session::settled(7)
}

fn sh(s: &mut Session, line: &str) -> CommandOutput {
    s.run_shell(line, None, &NoFiles)
}

fn ok(s: &mut Session, line: &str) -> String {
    let out = sh(s, line);
    assert_eq!(out.code, 0, "{line}: {}", out.combined());
    out.stdout
}

fn err(s: &mut Session, line: &str) -> String {
    let out = sh(s, line);
    assert_ne!(out.code, 0, "{line} should fail: {}", out.combined());
    out.stderr
}

#[test]
fn install_prints_the_status_and_the_notes() {
    let mut s = session();
    let out = ok(&mut s, "helm install shop warehouse/web");
    assert_eq!(
        out,
        "NAME: shop
LAST DEPLOYED: Thu Jan  1 00:05:00 2026
NAMESPACE: default
STATUS: deployed
REVISION: 1
TEST SUITE: None
NOTES:
1. The shop runs 2 pods of nginx:1.27.0. See them with:
  kubectl get pods --namespace default -l \"app.kubernetes.io/instance=shop\"
2. Inside the cluster it answers at http://shop-web.default.svc.cluster.local:80/
"
    );
    s.cluster.advance(SimDuration::secs(30));
    let deploy = ok(&mut s, "kubectl get deployment shop-web --no-headers");
    assert!(deploy.starts_with("shop-web   2/2"), "{deploy}");
    // Helm's ownership label and annotations on what it installed.
    let labels = ok(
        &mut s,
        "kubectl get service shop-web -o jsonpath='{.metadata.labels.app\\.kubernetes\\.io/managed-by} {.metadata.annotations.meta\\.helm\\.sh/release-name} {.metadata.annotations.meta\\.helm\\.sh/release-namespace}'",
    );
    assert_eq!(labels, "Helm shop default");
}

#[test]
fn list_and_history_have_helms_columns() {
    let mut s = session();
    ok(&mut s, "helm install shop warehouse/web");
    s.cluster.advance(SimDuration::secs(10));
    let up = ok(
        &mut s,
        "helm upgrade shop warehouse/web --set replicaCount=3",
    );
    assert!(up.starts_with("Release \"shop\" has been upgraded. Happy Helming!\nNAME: shop\n"));
    assert!(up.contains("REVISION: 2\n"));
    assert_eq!(
        ok(&mut s, "helm list"),
        "NAME\tNAMESPACE\tREVISION\tUPDATED                      \tSTATUS  \tCHART    \tAPP VERSION
shop\tdefault  \t2       \t2026-01-01 00:05:10 +0000 UTC\tdeployed\tweb-0.1.0\t1.27.0     
"
    );
    assert_eq!(
        ok(&mut s, "helm history shop"),
        "REVISION\tUPDATED                 \tSTATUS    \tCHART    \tAPP VERSION\tDESCRIPTION     
1       \tThu Jan  1 00:05:00 2026\tsuperseded\tweb-0.1.0\t1.27.0     \tInstall complete
2       \tThu Jan  1 00:05:10 2026\tdeployed  \tweb-0.1.0\t1.27.0     \tUpgrade complete
"
    );
    assert_eq!(
        ok(&mut s, "helm ls -n kube-system"),
        "NAME\tNAMESPACE\tREVISION\tUPDATED\tSTATUS\tCHART\tAPP VERSION\n"
    );
}

#[test]
fn each_revision_is_a_secret_as_helms_storage_driver_writes_it() {
    let mut s = session();
    ok(&mut s, "helm install shop warehouse/web");
    ok(
        &mut s,
        "helm upgrade shop warehouse/web --set replicaCount=3",
    );
    let secrets = ok(&mut s, "kubectl get secrets -l owner=helm -o custom-columns=NAME:.metadata.name,TYPE:.type,STATUS:.metadata.labels.status,VERSION:.metadata.labels.version,NAME:.metadata.labels.name");
    assert_eq!(
        secrets,
        "NAME                         TYPE                 STATUS       VERSION   NAME
sh.helm.release.v1.shop.v1   helm.sh/release.v1   superseded   1         shop
sh.helm.release.v1.shop.v2   helm.sh/release.v1   deployed     2         shop
"
    );
}

#[test]
fn upgrade_and_rollback_make_new_revisions_and_move_the_replicas() {
    let mut s = session();
    ok(&mut s, "helm install shop warehouse/web");
    ok(
        &mut s,
        "helm upgrade shop warehouse/web --set replicaCount=4",
    );
    let replicas = |s: &mut Session| {
        ok(
            s,
            "kubectl get deployment shop-web -o jsonpath='{.spec.replicas}'",
        )
    };
    assert_eq!(replicas(&mut s), "4");
    assert_eq!(
        ok(&mut s, "helm get values shop"),
        "USER-SUPPLIED VALUES:\nreplicaCount: 4\n"
    );
    assert_eq!(
        ok(&mut s, "helm rollback shop"),
        "Rollback was a success! Happy Helming!\n"
    );
    assert_eq!(replicas(&mut s), "2");
    let history = ok(&mut s, "helm history shop");
    assert!(history.contains("3       \t"), "{history}");
    assert!(history.contains("Rollback to 1"), "{history}");
    assert_eq!(
        ok(&mut s, "helm get values shop"),
        "USER-SUPPLIED VALUES:\nnull\n"
    );
    assert_eq!(
        err(&mut s, "helm rollback shop 9"),
        "Error: release has no 9 version\n"
    );
}

#[test]
fn uninstall_deletes_the_resources_and_the_history_unless_kept() {
    let mut s = session();
    ok(&mut s, "helm install shop warehouse/web");
    ok(&mut s, "helm install cafe warehouse/web");
    assert_eq!(
        ok(&mut s, "helm uninstall shop"),
        "release \"shop\" uninstalled\n"
    );
    assert!(s.cluster.get(Kind::Service, "default", "shop-web").is_err());
    assert!(s
        .cluster
        .get(Kind::Secret, "default", "sh.helm.release.v1.shop.v1")
        .is_err());
    assert_eq!(
        err(&mut s, "helm status shop"),
        "Error: release: not found\n"
    );
    ok(&mut s, "helm uninstall cafe --keep-history");
    assert!(s
        .cluster
        .get(Kind::Deployment, "default", "cafe-web")
        .is_err());
    let all = ok(&mut s, "helm list --all");
    assert!(all.contains("uninstalled"), "{all}");
    assert_eq!(
        ok(&mut s, "helm list"),
        "NAME\tNAMESPACE\tREVISION\tUPDATED\tSTATUS\tCHART\tAPP VERSION\n"
    );
    assert_eq!(
        err(&mut s, "helm uninstall ghost"),
        "Error: uninstall: Release not loaded: ghost: release: not found\n"
    );
}

#[test]
fn bad_input_gets_helms_message_and_changes_nothing() {
    let mut s = session();
    ok(&mut s, "helm install shop warehouse/web");
    ok(&mut s, "kubectl create deployment taken-web --image=nginx");
    let before = s.cluster.revision();
    for (line, want) in [
        ("helm install shop warehouse/web", "Error: INSTALLATION FAILED: cannot re-use a name that is still in use\n"),
        ("helm install x warehouse/nope", "Error: INSTALLATION FAILED: chart \"nope\" matching  not found in warehouse index. (try 'helm repo update'): no chart name found\n"),
        ("helm install x web", "Error: INSTALLATION FAILED: non-absolute URLs should be in form of repo_name/path_to_chart, got: web\n"),
        ("helm install x warehouse/web --set replicaCount", "Error: INSTALLATION FAILED: failed parsing --set data: key \"replicaCount\" has no value\n"),
        ("helm install x warehouse/web --replicas 3", "Error: unknown flag: --replicas\n"),
        ("helm install x warehouse/web -n nowhere", "Error: INSTALLATION FAILED: create: failed to create: namespaces \"nowhere\" not found\n"),
        ("helm install x warehouse/web --set replicaCount=-1", "Error: INSTALLATION FAILED: Deployment.apps \"x-web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n"),
        ("helm upgrade ghost warehouse/web", "Error: UPGRADE FAILED: \"ghost\" has no deployed releases\n"),
        ("helm upgrade shop warehouse/web --set replicaCount=-1", "Error: UPGRADE FAILED: Deployment.apps \"shop-web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n"),
        ("helm install", "Error: \"helm install\" requires at least 1 argument\n\nUsage:  helm install [NAME] [CHART] [flags]\n"),
        ("helm frobnicate", "Error: unknown command \"frobnicate\" for \"helm\"\nRun 'helm --help' for usage.\n"),
    ] {
        assert_eq!(err(&mut s, line), want, "{line}");
    }
    let taken = err(&mut s, "helm install taken warehouse/web");
    assert!(taken.starts_with("Error: INSTALLATION FAILED: rendered manifests contain a resource that already exists. Unable to continue with install: Deployment \"taken-web\" in namespace \"default\" exists and cannot be imported into the current release: invalid ownership metadata; label validation error: missing key \"app.kubernetes.io/managed-by\": must be set to \"Helm\""), "{taken}");
    assert_eq!(s.cluster.revision(), before, "a refused helm command wrote");
}

#[test]
fn values_come_from_files_then_set_and_dry_run_writes_nothing() {
    let mut s = session();
    let files = MemoryFiles(BTreeMap::from([(
        "shop-values.yaml".to_string(),
        "replicaCount: 1\ningress:\n  enabled: true\n  host: shop.example\n".to_string(),
    )]));
    let before = s.cluster.revision();
    let dry = s.run_shell(
        "helm install shop warehouse/web -f shop-values.yaml --set image.tag=1.27 --dry-run",
        None,
        &files,
    );
    assert_eq!(dry.code, 0, "{}", dry.combined());
    assert!(
        dry.stdout.contains("STATUS: pending-install\n"),
        "{}",
        dry.stdout
    );
    assert!(dry
        .stdout
        .contains("MANIFEST:\n---\n# Source: web/templates/service.yaml\n"));
    assert!(dry
        .stdout
        .contains("# Source: web/templates/ingress.yaml\n"));
    assert!(dry.stdout.contains("image: \"nginx:1.27\""));
    assert!(dry
        .stdout
        .contains("2. Customers reach it at http://shop.example/"));
    assert_eq!(s.cluster.revision(), before);
    let real = s.run_shell(
        "helm install shop warehouse/web -f shop-values.yaml",
        None,
        &files,
    );
    assert_eq!(real.code, 0, "{}", real.combined());
    assert!(s.cluster.get(Kind::Ingress, "default", "shop-web").is_ok());
    let missing = s.run_shell("helm install x warehouse/web -f nope.yaml", None, &files);
    assert_eq!(
        missing.stderr,
        "Error: INSTALLATION FAILED: open nope.yaml: no such file or directory\n"
    );
}

#[test]
fn template_sorts_by_install_order_and_reads_no_cluster() {
    let mut s = session();
    let out = ok(
        &mut s,
        "helm template db warehouse/redis --set persistence.enabled=false",
    );
    let sources: Vec<&str> = out.lines().filter(|l| l.starts_with("# Source:")).collect();
    // InstallOrder: Service before StatefulSet.
    assert_eq!(
        sources,
        [
            "# Source: redis/templates/service.yaml",
            "# Source: redis/templates/statefulset.yaml"
        ]
    );
    assert!(!out.contains("volumeClaimTemplates"));
    assert!(out.starts_with("---\n# Source: redis/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: db-redis\n"));
}

#[test]
fn create_namespace_and_wait() {
    let mut s = session();
    let t0 = s.cluster.now();
    ok(
        &mut s,
        "helm install db warehouse/redis -n data --create-namespace --wait",
    );
    assert!(s.cluster.now() > t0, "--wait lets simulated time run");
    let ready = ok(
        &mut s,
        "kubectl get statefulset db-redis -n data -o jsonpath='{.status.readyReplicas}'",
    );
    assert_eq!(ready, "1");
    let list = ok(&mut s, "helm list -A");
    assert!(list.contains("db  \tdata     \t1       \t"), "{list}");
}

#[test]
fn repo_search_and_show_list_the_bundled_charts() {
    let mut s = session();
    assert_eq!(
        ok(&mut s, "helm repo list"),
        "NAME     \tURL                           \nwarehouse\thttps://charts.warehouse.local\n"
    );
    let search = ok(&mut s, "helm search repo redis");
    assert_eq!(search, "NAME           \tCHART VERSION\tAPP VERSION\tDESCRIPTION                             \nwarehouse/redis\t0.2.0        \t7.2.4      \tA Redis key-value store as a StatefulSet\n");
    assert_eq!(
        ok(&mut s, "helm search repo nothing-like-it"),
        "No results found\n"
    );
    assert!(ok(&mut s, "helm show values warehouse/web").contains("replicaCount: 2\n"));
}

fn render(files: &[(&str, &str)], name: &str, values: serde_json::Value) -> Result<String, String> {
    let owned: Vec<(String, String)> = files
        .iter()
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect();
    let set = TemplateSet::parse(&owned)?;
    set.render(
        name,
        &serde_json::json!({"Values": values, "Release": {"Name": "r"}}),
    )
}

#[test]
fn chart_templates_run_the_subset_helm_charts_use() {
    let helpers = (
        "c/templates/_helpers.tpl",
        "{{- define \"c.name\" -}}{{ .Release.Name | trunc 3 | trimSuffix \"-\" }}{{- end }}",
    );
    let t = ("c/templates/a.yaml", "name: {{ include \"c.name\" . }}\nres:\n  {{- toYaml .Values.res | nindent 2 }}\nq: {{ .Values.missing | default \"x\" | quote }}\n{{- range $k, $v := .Values.m }}\n{{ $k }}={{ $v }}\n{{- end }}\n{{- with .Values.w }}\nw: {{ . }}{{ end }}\n{{ template \"c.name\" . }}|{{ .Values.nothing }}|");
    let out = render(&[helpers, t], "c/templates/a.yaml", serde_json::json!({"res": {"limits": {"cpu": "1"}, "b": [1, 2]}, "m": {"b": 2, "a": 1}, "w": "yes"})).unwrap();
    assert_eq!(out, "name: r\nres:\n  b:\n  - 1\n  - 2\n  limits:\n    cpu: \"1\"\nq: \"x\"\na=1\nb=2\nw: yes\nr||");
    // required and fail read as Helm's execution errors; a field of a missing map is Go's nil pointer error.
    let req = (
        "c/templates/b.yaml",
        "x: {{ required \"a port is required\" .Values.port }}",
    );
    assert_eq!(
        render(&[req], "c/templates/b.yaml", serde_json::json!({})).unwrap_err(),
        "execution error at (c/templates/b.yaml:1:6): a port is required"
    );
    let nil = ("c/templates/n.yaml", "x: {{ .Values.ingress.host }}");
    let nil_err = render(&[nil], "c/templates/n.yaml", serde_json::json!({})).unwrap_err();
    assert!(
        nil_err.starts_with("template: c/templates/n.yaml:1:")
            && nil_err.ends_with(": executing \"c/templates/n.yaml\" at <.Values.ingress.host>: nil pointer evaluating interface {}.host"),
        "{nil_err}"
    );
    let parse = ("c/templates/p.yaml", "x: {{ nope . }}");
    assert_eq!(
        render(&[parse], "c/templates/p.yaml", serde_json::json!({})).unwrap_err(),
        "parse error at (c/templates/p.yaml:1): function \"nope\" not defined"
    );
    let undefined = ("c/templates/u.yaml", "x: {{ include \"c.none\" . }}");
    assert_eq!(render(&[undefined], "c/templates/u.yaml", serde_json::json!({})).unwrap_err(), "template: c/templates/u.yaml:1:6: executing \"c/templates/u.yaml\" at <include \"c.none\" .>: template \"c.none\" not defined");
}

#[test]
fn tab_completes_helm_commands_charts_and_releases() {
    let mut s = session();
    ok(&mut s, "helm install shop warehouse/web");
    let c =
        |s: &Session, line: &str| warehouse_kubectl::shell::complete::complete(s, line).candidates;
    assert!(c(&s, "hel").contains(&"helm".to_string()));
    assert_eq!(c(&s, "helm inst"), ["install"]);
    assert_eq!(
        c(&s, "helm install shop warehouse/"),
        ["warehouse/redis", "warehouse/web"]
    );
    assert_eq!(c(&s, "helm upgrade sh"), ["shop"]);
}
