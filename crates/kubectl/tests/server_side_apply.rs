//! `kubectl apply --server-side` and the managedFields the apiserver records:
//! ownership moving between managers, conflicts and `--force-conflicts`, fields an
//! applier stops listing, server dry runs, and bad flags that change nothing.

use warehouse_kubectl::{MemoryFiles, NoFiles, Session};
use warehouse_sim::{Cluster, Kind, ObjectKey, SimDuration, Topology};

const WEB: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
    team: shop
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
";

fn session() -> Session {
    Session::new(Cluster::new(1, Topology::default()))
}

fn files(extra: &[(&str, &str)]) -> MemoryFiles {
    let mut f = MemoryFiles::default();
    f.0.insert("web.yaml".into(), WEB.into());
    for (k, v) in extra {
        f.0.insert((*k).into(), (*v).into());
    }
    f
}

fn run(s: &mut Session, f: &MemoryFiles, line: &str) -> String {
    let out = s.run(line, None, f);
    out.combined()
}

/// The managers of the deployment `web`, as `(manager, operation, subresource)`.
fn managers(s: &Session) -> Vec<(String, String, String)> {
    s.cluster
        .managed_fields(&ObjectKey::new(Kind::Deployment, "default", "web"))
        .iter()
        .map(|e| {
            (
                e.manager.clone(),
                e.operation.as_str().to_string(),
                e.subresource.clone(),
            )
        })
        .collect()
}

fn owner_of(s: &Session, path: &[&str]) -> Vec<String> {
    s.cluster
        .managed_fields(&ObjectKey::new(Kind::Deployment, "default", "web"))
        .iter()
        .filter(|e| warehouse_sim::apiserver::fields::owns(&e.fields, path))
        .map(|e| e.manager.clone())
        .collect()
}

#[test]
fn server_side_apply_creates_and_owns_exactly_its_configuration() {
    let mut s = session();
    let f = files(&[]);
    assert_eq!(
        run(&mut s, &f, "apply --server-side -f web.yaml"),
        "deployment.apps/web serverside-applied\n"
    );
    assert_eq!(
        managers(&s)[0],
        ("kubectl".into(), "Apply".into(), "".into())
    );
    assert_eq!(owner_of(&s, &["spec", "replicas"]), ["kubectl"]);
    // Defaulted fields belong to nobody.
    assert!(owner_of(&s, &["spec", "revisionHistoryLimit"]).is_empty());
    // The controller's status writes go through the status subresource.
    s.cluster.advance(SimDuration::secs(10));
    assert!(managers(&s).contains(&(
        "kube-controller-manager".into(),
        "Update".into(),
        "status".into()
    )));
    // Applying the same configuration again changes nothing.
    let rv = s.cluster.get(Kind::Deployment, "default", "web").unwrap();
    assert_eq!(
        run(&mut s, &f, "apply --server-side -f web.yaml"),
        "deployment.apps/web serverside-applied\n"
    );
    let after = s.cluster.get(Kind::Deployment, "default", "web").unwrap();
    assert_eq!(rv.meta().resource_version, after.meta().resource_version);
}

#[test]
fn a_field_another_manager_changed_conflicts_until_forced() {
    let mut s = session();
    let f = files(&[]);
    run(&mut s, &f, "apply --server-side -f web.yaml");
    assert_eq!(
        run(&mut s, &f, "scale deployment web --replicas=5"),
        "deployment.apps/web scaled\n"
    );
    // kubectl scale (no --field-manager) writes as its user agent, through `scale`.
    assert_eq!(owner_of(&s, &["spec", "replicas"]), ["kubectl"]);
    assert!(managers(&s).contains(&("kubectl".into(), "Update".into(), "scale".into())));
    let out = s.run("apply --server-side -f web.yaml", None, &f);
    assert!(!out.success());
    assert!(
        out.stderr.starts_with(
            "error: Apply failed with 1 conflict: conflict with \"kubectl\" with subresource \"scale\" using apps/v1: .spec.replicas\nPlease review the fields above--they currently have other managers."
        ),
        "{}",
        out.stderr
    );
    assert!(out.stderr.ends_with(
        "See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts\n"
    ));
    let replicas = |s: &Session| {
        s.cluster
            .get(Kind::Deployment, "default", "web")
            .unwrap()
            .as_deployment()
            .unwrap()
            .spec
            .replicas
    };
    assert_eq!(replicas(&s), Some(5), "a conflict changes nothing");
    // A server dry run reports the conflict too, and forcing it in a dry run
    // stores nothing.
    assert!(!s
        .run("apply --server-side --dry-run=server -f web.yaml", None, &f)
        .success());
    assert_eq!(
        run(
            &mut s,
            &f,
            "apply --server-side --dry-run=server --force-conflicts -f web.yaml"
        ),
        "deployment.apps/web serverside-applied (server dry run)\n"
    );
    assert_eq!(replicas(&s), Some(5));
    // Forced: the applier takes the field over; the scale entry, now empty, goes.
    assert_eq!(
        run(
            &mut s,
            &f,
            "apply --server-side --force-conflicts -f web.yaml"
        ),
        "deployment.apps/web serverside-applied\n"
    );
    assert_eq!(replicas(&s), Some(2));
    assert!(!managers(&s).contains(&("kubectl".into(), "Update".into(), "scale".into())));
}

#[test]
fn conflicts_name_every_field_by_manager() {
    let mut s = session();
    let f = files(&[]);
    run(
        &mut s,
        &f,
        "apply --server-side --field-manager=ci -f web.yaml",
    );
    run(&mut s, &f, "label deployment web team=ops --overwrite");
    run(&mut s, &f, "scale deployment web --replicas=4");
    let out = s.run(
        "apply --server-side --field-manager=ci -f web.yaml",
        None,
        &f,
    );
    assert!(
        out.stderr.starts_with(
            "error: Apply failed with 2 conflicts: conflicts with \"kubectl\" with subresource \"scale\" using apps/v1:\n- .spec.replicas\nconflicts with \"kubectl-label\" using apps/v1:\n- .metadata.labels.team\n"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn fields_an_applier_stops_listing_are_removed_unless_someone_else_owns_them() {
    let mut s = session();
    let smaller = WEB.replace("    team: shop\n", "");
    let f = files(&[("smaller.yaml", &smaller)]);
    run(&mut s, &f, "apply --server-side -f web.yaml");
    run(&mut s, &f, "apply --server-side -f smaller.yaml");
    let labels = |s: &Session| {
        s.cluster
            .get(Kind::Deployment, "default", "web")
            .unwrap()
            .meta()
            .labels
            .clone()
            .unwrap_or_default()
    };
    assert!(!labels(&s).contains_key("team"));
    // A label another applier also lists (the same value: shared, no conflict)
    // stays when the first one drops it.
    run(&mut s, &f, "apply --server-side -f web.yaml");
    assert_eq!(
        run(
            &mut s,
            &f,
            "apply --server-side --field-manager=other -f web.yaml"
        ),
        "deployment.apps/web serverside-applied\n"
    );
    assert_eq!(
        owner_of(&s, &["metadata", "labels", "team"]),
        ["kubectl", "other"]
    );
    run(&mut s, &f, "apply --server-side -f smaller.yaml");
    assert_eq!(labels(&s).get("team").map(String::as_str), Some("shop"));
    assert_eq!(owner_of(&s, &["metadata", "labels", "team"]), ["other"]);
}

#[test]
fn an_update_takes_the_fields_it_changes_from_other_managers() {
    let mut s = session();
    let f = files(&[]);
    assert!(s
        .run("create deployment web --image=nginx", None, &NoFiles)
        .success());
    assert_eq!(owner_of(&s, &["spec", "replicas"]), ["kubectl-create"]);
    run(
        &mut s,
        &f,
        "patch deployment web --field-manager=hotfix -p '{\"spec\":{\"replicas\":3}}'",
    );
    assert_eq!(owner_of(&s, &["spec", "replicas"]), ["hotfix"]);
    assert_eq!(
        owner_of(&s, &["spec", "revisionHistoryLimit"]),
        ["kubectl-create"]
    );
}

#[test]
fn bad_flags_and_managers_change_nothing() {
    let mut s = session();
    let f = files(&[]);
    let long = "m".repeat(129);
    for (line, message) in [
        (
            "apply --force-conflicts -f web.yaml".to_string(),
            "error: --force-conflicts only works with --server-side\n",
        ),
        (
            "apply --server-side --dry-run=client -f web.yaml".to_string(),
            "error: --dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)\n",
        ),
        (
            "apply --server-side --field-manager= -f web.yaml".to_string(),
            "The PatchOptions \"\" is invalid: fieldManager: Required value: is required for apply patch\n",
        ),
        (
            format!("apply --server-side --field-manager={long} -f web.yaml"),
            "The PatchOptions \"\" is invalid: fieldManager: Too long: may not be more than 128 bytes\n",
        ),
        (
            "scale deployment web --replicas=2 --field-manager=x".to_string(),
            "error: unknown flag: --field-manager\nSee 'kubectl scale --help' for usage.\n",
        ),
    ] {
        let out = s.run(&line, None, &f);
        assert!(!out.success(), "{line}");
        assert_eq!(out.stderr, message, "{line}");
        assert!(s.cluster.get(Kind::Deployment, "default", "web").is_err());
    }
}

#[test]
fn managed_fields_are_hidden_unless_asked_for() {
    let mut s = session();
    let f = files(&[]);
    run(&mut s, &f, "apply --server-side -f web.yaml");
    assert!(!run(&mut s, &f, "get deployment web -o yaml").contains("managedFields"));
    let shown = run(
        &mut s,
        &f,
        "get deployment web -o yaml --show-managed-fields",
    );
    assert!(shown.contains(
        "  managedFields:
  - apiVersion: apps/v1
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:labels:
          f:app: {}
          f:team: {}
"
    ));
    assert!(shown.contains(
        "            f:containers:
              k:{\"name\":\"web\"}:
                .: {}
                f:image: {}
                f:name: {}
    manager: kubectl
    operation: Apply
"
    ));
}

#[test]
fn a_snapshot_keeps_the_managed_fields() {
    let mut s = session();
    let f = files(&[]);
    run(&mut s, &f, "apply --server-side -f web.yaml");
    run(&mut s, &f, "scale deployment web --replicas=3");
    s.cluster.advance(SimDuration::secs(5));
    let key = ObjectKey::new(Kind::Deployment, "default", "web");
    let restored = Cluster::restore(&s.cluster.snapshot()).unwrap();
    assert!(!s.cluster.managed_fields(&key).is_empty());
    assert_eq!(
        restored.managed_fields(&key),
        s.cluster.managed_fields(&key)
    );
    assert_eq!(
        s.cluster.copy_as_restored().managed_fields(&key),
        s.cluster.managed_fields(&key)
    );
}
