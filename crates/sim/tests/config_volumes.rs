//! ConfigMap and Secret volumes as the container's own process sees them: the files
//! written when it starts, written again at the pod's next periodic sync after the
//! object changes (environment variables stay as they were), a `subPath` file that
//! never changes, and `kubectl exec` seeing what the process sees.

mod common;
use common::*;

use warehouse_sim::{Cluster, Kind, Object, SimDuration, Topology};

fn restarts(c: &Cluster, name: &str) -> i32 {
    match c.get(Kind::Pod, "default", name).unwrap() {
        Object::Pod(p) => p.status.unwrap().container_statuses.unwrap()[0].restart_count,
        _ => unreachable!(),
    }
}

fn set_mode(c: &mut Cluster, mode: &str) {
    let mut cm = c
        .get(Kind::ConfigMap, "default", "app-config")
        .unwrap()
        .clone();
    if let Object::ConfigMap(m) = &mut cm {
        m.data.as_mut().unwrap().insert("MODE".into(), mode.into());
    }
    c.update(cm).unwrap();
}

const CONFIG: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
data:
  MODE: fast
";

fn pod(name: &str, script: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
  - name: main
    image: busybox
    command: [sh, -c, '{script}']
    env:
    - name: MODE
      valueFrom:
        configMapKeyRef:
          name: app-config
          key: MODE
    volumeMounts:
    - name: config
      mountPath: /etc/config
    - name: config
      mountPath: /etc/mode-at-start
      subPath: MODE
  volumes:
  - name: config
    configMap:
      name: app-config
"
    )
}

const WATCHER: &str = "while true; do echo \"file=$(cat /etc/config/MODE) env=$MODE fixed=$(cat /etc/mode-at-start)\"; sleep 10; done";

#[test]
fn the_process_reads_its_volume_and_sees_a_change_at_the_next_sync() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, CONFIG);
    create(&mut c, &pod("watcher", WATCHER));
    c.advance(SimDuration::secs(25));
    assert_eq!(
        log_lines(&c, "watcher").last().unwrap(),
        "file=fast env=fast fixed=fast"
    );

    set_mode(&mut c, "slow");
    // Not at once: the kubelet writes the volume at the pod's next sync (every
    // minute since the container started).
    c.advance(SimDuration::secs(5));
    let exec = |c: &mut Cluster| {
        let argv = ["cat".to_string(), "/etc/config/MODE".to_string()];
        let out = c
            .exec(
                "default",
                "watcher",
                "main",
                &argv,
                &warehouse_sim::kubelet::exec::NoHttpTools,
            )
            .unwrap();
        out.text.trim_end().to_string()
    };
    assert_eq!(exec(&mut c), "fast", "exec sees what the process sees");
    c.advance(SimDuration::secs(60));
    let lines = log_lines(&c, "watcher");
    assert_eq!(
        lines.last().unwrap(),
        "file=slow env=fast fixed=fast",
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l == "file=fast env=fast fixed=fast"));
    assert_eq!(exec(&mut c), "slow");
    assert_eq!(restarts(&c, "watcher"), 0);
}

#[test]
fn a_process_that_waits_for_a_change_exits_when_it_comes() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, CONFIG);
    let script =
        "while [ \"$(cat /etc/config/MODE)\" = fast ]; do sleep 5; done; echo changed; exit 3";
    create(&mut c, &pod("waiter", script));
    c.advance(SimDuration::secs(120));
    assert_eq!(restarts(&c, "waiter"), 0);
    assert!(log_lines(&c, "waiter").is_empty());
    set_mode(&mut c, "slow");
    // It exits at the sync that writes the new file (within a minute); each restart
    // then finds the new file at once and exits again (CrashLoopBackOff).
    c.advance(SimDuration::secs(61));
    assert!(restarts(&c, "waiter") >= 1, "it exited with the new file");
    assert_eq!(
        c.container_log("default", "waiter", None, true)
            .unwrap()
            .into_iter()
            .map(|(_, l)| l)
            .collect::<Vec<_>>(),
        ["changed"]
    );
}
