//! ConfigMaps and Secrets in a container's environment (upstream kubelet_pods.go
//! `makeEnvironmentVariables`): `env[].valueFrom` and `envFrom` read by the
//! container's own process, `CreateContainerConfigError` with upstream's messages
//! while a reference is missing, `optional`, and values fixed at the container's
//! start.

mod common;
use common::*;

use warehouse_sim::{Cluster, Kind, Object, SimDuration, Topology};

fn pod_of(c: &Cluster, name: &str) -> k8s_openapi::api::core::v1::Pod {
    match c.get(Kind::Pod, "default", name).unwrap() {
        Object::Pod(p) => *p,
        _ => unreachable!(),
    }
}

/// The first container's waiting (reason, message), if it waits.
fn waiting(c: &Cluster, name: &str) -> Option<(String, String)> {
    let st = pod_of(c, name).status?.container_statuses?.remove(0);
    let w = st.state?.waiting?;
    Some((w.reason.unwrap_or_default(), w.message.unwrap_or_default()))
}

/// The kubelet's `Failed` events for a pod: (message, count).
fn failed_events(c: &Cluster, pod: &str) -> Vec<(String, i32)> {
    c.list(Kind::Event, Some("default"))
        .into_iter()
        .filter_map(|o| match o {
            Object::Event(e) if e.involved_object.name.as_deref() == Some(pod) => {
                (e.reason.as_deref() == Some("Failed"))
                    .then(|| (e.message.clone().unwrap_or_default(), e.count.unwrap_or(1)))
            }
            _ => None,
        })
        .collect()
}

const CONFIG: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
data:
  LOG_LEVEL: debug
  MODE: fast
";

const SECRET: &str = "apiVersion: v1
kind: Secret
metadata:
  name: db
data:
  password: czNjcjN0
";

fn printer(name: &str, env: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'echo level=$LOG_LEVEL mode=$CFG_MODE pass=$DB_PASS url=$URL; sleep 3600']
{env}"
    )
}

const ALL_SOURCES: &str = "    envFrom:
    - configMapRef:
        name: app-config
      prefix: CFG_
    env:
    - name: LOG_LEVEL
      valueFrom:
        configMapKeyRef:
          name: app-config
          key: LOG_LEVEL
    - name: DB_PASS
      valueFrom:
        secretKeyRef:
          name: db
          key: password
    - name: URL
      value: http://x/?level=$(LOG_LEVEL)
";

#[test]
fn the_process_reads_config_map_and_secret_values() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, CONFIG);
    create(&mut c, SECRET);
    create(&mut c, &printer("reader", ALL_SOURCES));
    c.advance(SimDuration::secs(30));
    assert_eq!(
        log_lines(&c, "reader"),
        ["level=debug mode=fast pass=s3cr3t url=http://x/?level=debug"]
    );
    assert_eq!(waiting(&c, "reader"), None);
}

#[test]
fn a_missing_config_map_holds_the_container_until_it_exists() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, SECRET);
    create(&mut c, &printer("reader", ALL_SOURCES));
    c.advance(SimDuration::secs(30));
    let (reason, message) = waiting(&c, "reader").expect("waiting");
    assert_eq!(reason, "CreateContainerConfigError");
    assert_eq!(message, "configmap \"app-config\" not found");
    let pod = pod_of(&c, "reader");
    assert_eq!(pod.status.unwrap().phase.as_deref(), Some("Pending"));
    // The floor draws it as a robot in trouble, not one still being set up.
    let waiting_robots: usize = c
        .view()
        .robot_counts()
        .values()
        .map(|zone| zone.get("BackOff").copied().unwrap_or(0))
        .sum();
    assert_eq!(waiting_robots, 1);
    // The pod worker tries again every 10 s, and says so each time.
    let failed = failed_events(&c, "reader");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].0, "Error: configmap \"app-config\" not found");
    assert!(failed[0].1 >= 2, "{failed:?}");

    create(&mut c, CONFIG);
    c.advance(SimDuration::secs(11));
    assert_eq!(waiting(&c, "reader"), None);
    assert_eq!(
        log_lines(&c, "reader"),
        ["level=debug mode=fast pass=s3cr3t url=http://x/?level=debug"]
    );
}

#[test]
fn missing_keys_and_secrets_have_upstream_messages() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, CONFIG);
    let no_key = "    env:
    - name: LOG_LEVEL
      valueFrom:
        configMapKeyRef:
          name: app-config
          key: nope
";
    create(&mut c, &printer("no-key", no_key));
    let no_secret = "    envFrom:
    - secretRef:
        name: db
";
    create(&mut c, &printer("no-secret", no_secret));
    c.advance(SimDuration::secs(30));
    assert_eq!(
        waiting(&c, "no-key").unwrap().1,
        "couldn't find key nope in ConfigMap default/app-config"
    );
    assert_eq!(
        waiting(&c, "no-secret").unwrap().1,
        "secret \"db\" not found"
    );
}

#[test]
fn optional_references_that_are_missing_are_skipped() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, CONFIG);
    let optional = "    envFrom:
    - secretRef:
        name: db
        optional: true
    env:
    - name: LOG_LEVEL
      valueFrom:
        configMapKeyRef:
          name: app-config
          key: nope
          optional: true
    - name: DB_PASS
      valueFrom:
        secretKeyRef:
          name: db
          key: password
          optional: true
";
    create(&mut c, &printer("relaxed", optional));
    c.advance(SimDuration::secs(30));
    assert_eq!(waiting(&c, "relaxed"), None);
    assert_eq!(log_lines(&c, "relaxed"), ["level= mode= pass= url="]);
}

#[test]
fn env_wins_over_env_from_and_a_later_change_does_not_reach_the_process() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, CONFIG);
    let both = "    envFrom:
    - configMapRef:
        name: app-config
    env:
    - name: LOG_LEVEL
      value: warn
";
    create(&mut c, &printer("both", both));
    c.advance(SimDuration::secs(30));
    assert_eq!(log_lines(&c, "both"), ["level=warn mode= pass= url="]);
    // Upstream reads the values when the container starts; the env of a running
    // process does not follow the ConfigMap.
    let mut cm = c
        .get(Kind::ConfigMap, "default", "app-config")
        .unwrap()
        .clone();
    if let Object::ConfigMap(m) = &mut cm {
        m.data
            .as_mut()
            .unwrap()
            .insert("LOG_LEVEL".into(), "trace".into());
    }
    c.update(cm).unwrap();
    c.advance(SimDuration::secs(30));
    assert_eq!(log_lines(&c, "both"), ["level=warn mode= pass= url="]);
}
