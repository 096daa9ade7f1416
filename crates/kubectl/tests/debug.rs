//! `kubectl debug`: ephemeral containers in a running pod, a pod on a node, a copy
//! of a pod; the `pods/ephemeralcontainers` subresource behind them.

use warehouse_kubectl::{CommandOutput, NoFiles, Session};

fn sh(s: &mut Session, line: &str) -> CommandOutput {
    s.run_shell(line, None, &NoFiles)
}

fn ok(s: &mut Session, line: &str) -> String {
    let out = sh(s, line);
    assert_eq!(out.code, 0, "{line}: {}{}", out.stdout, out.stderr);
    out.stdout
}

/// A Deployment `web` of one nginx pod, running; its pod's name.
fn web() -> (Session, String) {
    let mut s = Session::settled(7);
    ok(&mut s, "kubectl create deployment web --image=nginx");
    ok(&mut s, "sim advance 30s");
    let pod = ok(&mut s, "kubectl get pods -o name");
    let pod = pod.trim().trim_start_matches("pod/").to_string();
    (s, pod)
}

const NOTES: &str = "All commands and output from this session will be recorded in container logs, including credentials and sensitive information passed through the command prompt.\nIf you don't see a command prompt, try pressing enter.\n";

#[test]
fn an_ephemeral_container_joins_the_running_pod_sees_its_target_and_runs_once() {
    let (mut s, pod) = web();
    let out = sh(
        &mut s,
        &format!("kubectl debug {pod} -it --image=busybox --target=nginx"),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let name = out
        .stdout
        .lines()
        .nth(1)
        .and_then(|l| l.strip_prefix("Defaulting debug container name to "))
        .and_then(|l| l.strip_suffix('.'))
        .expect("the default name")
        .to_string();
    assert_eq!(
        out.stdout,
        format!("Targeting container \"nginx\". If you don't see processes from this container it may be because the container runtime doesn't support this feature.\nDefaulting debug container name to {name}.\n")
    );
    assert!(name.len() == "debugger-".len() + 5 && name.starts_with("debugger-"));
    assert_eq!(out.stderr, NOTES);
    // Inside: the target's processes, in its PID namespace.
    assert_eq!(
        ok(&mut s, "ps"),
        "PID   USER     TIME  COMMAND\n    1 root      0:00 /docker-entrypoint.sh nginx -g daemon off;\n    7 root      0:00 sh\n   13 root      0:00 ps\n"
    );
    assert_eq!(ok(&mut s, "hostname"), format!("{pod}\n"));
    let out = sh(&mut s, "exit");
    assert_eq!(
        out.stdout,
        format!("Session ended, resume using 'kubectl attach {pod} -c {name} -n default -i -t' command\n")
    );
    ok(&mut s, "sim advance 30s");
    // It ran once: terminated, never restarted; the pod's READY is its app's.
    let state = ok(
        &mut s,
        &format!("kubectl get pod {pod} -o jsonpath='{{.status.ephemeralContainerStatuses[0].name}} {{.status.ephemeralContainerStatuses[0].state.terminated.reason}} {{.status.ephemeralContainerStatuses[0].restartCount}} {{.status.ephemeralContainerStatuses[0].ready}} {{.spec.ephemeralContainers[0].securityContext.capabilities.add[0]}}'"),
    );
    assert_eq!(state, format!("{name} Completed 0 false SYS_PTRACE"));
    let pods = ok(&mut s, "kubectl get pods --no-headers");
    assert!(pods.contains(" 1/1 ") && pods.contains("Running"), "{pods}");
    // The kubelet's events, as for any container.
    let events = ok(
        &mut s,
        "kubectl get events --field-selector reason!=Scheduled",
    );
    for message in [
        "Pulling image \"busybox\"".to_string(),
        format!("Created container: {name}"),
        format!("Started container {name}"),
    ] {
        assert!(events.contains(&message), "{message} in {events}");
    }
    let describe = ok(&mut s, &format!("kubectl describe pod {pod}"));
    let section = describe
        .split("Ephemeral Containers:\n")
        .nth(1)
        .expect("an Ephemeral Containers section");
    assert!(
        section.starts_with(&format!("  {name}:\n    Container ID:")),
        "{section}"
    );
    assert!(
        section.contains("    Image:          busybox\n"),
        "{section}"
    );
    assert!(
        section.contains("      Reason:       Completed\n"),
        "{section}"
    );
    // Another one gets another name; the first stays in the spec.
    let out = ok(
        &mut s,
        &format!("kubectl debug {pod} --image=busybox -q -- sleep 3600"),
    );
    assert_eq!(out, "");
    ok(&mut s, "sim advance 10s");
    let names = ok(
        &mut s,
        &format!("kubectl get pod {pod} -o jsonpath='{{.spec.ephemeralContainers[*].name}}'"),
    );
    assert_eq!(names.split(' ').count(), 2, "{names}");
}

#[test]
fn without_stdin_debug_only_adds_the_container() {
    let (mut s, pod) = web();
    let out = sh(
        &mut s,
        &format!("kubectl debug {pod} --image=busybox:1.36 -c probe -- sleep 3600"),
    );
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "", "")
    );
    ok(&mut s, "sim advance 5s");
    let state = ok(
        &mut s,
        &format!("kubectl get pod {pod} -o jsonpath='{{.status.ephemeralContainerStatuses[0].state.running}}'"),
    );
    assert!(state.contains("startedAt"), "{state}");
    // kubectl exec and logs reach it by name.
    assert_eq!(
        ok(&mut s, &format!("kubectl exec {pod} -c probe -- echo hi")),
        "hi\n"
    );
    assert_eq!(ok(&mut s, &format!("kubectl logs {pod} -c probe")), "");
}

#[test]
fn bad_input_gets_kubectls_and_the_apiservers_messages_and_changes_nothing() {
    let (mut s, pod) = web();
    let before = ok(
        &mut s,
        &format!("kubectl get pod {pod} -o jsonpath='{{.metadata.resourceVersion}}'"),
    );
    let target = "Targeting container \"nope\". If you don't see processes from this container it may be because the container runtime doesn't support this feature.\n";
    let cases: Vec<(String, String)> = vec![
        (
            "kubectl debug nope -it --image=busybox".into(),
            "Error from server (NotFound): pods \"nope\" not found\n".into(),
        ),
        (
            format!("kubectl debug {pod} -it --image=busybox --target=nope -c dbg"),
            format!("{target}The Pod \"{pod}\" is invalid: spec.ephemeralContainers[0].targetContainerName: Not found: \"nope\"\n"),
        ),
        (
            format!("kubectl debug {pod} -it --image=busybox -c nginx"),
            format!("The Pod \"{pod}\" is invalid: spec.ephemeralContainers[0].name: Duplicate value: \"nginx\"\n"),
        ),
        (
            format!("kubectl debug {pod} -it --image=busybox -c Bad_Name"),
            format!("The Pod \"{pod}\" is invalid: spec.ephemeralContainers[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n"),
        ),
        (
            format!("kubectl debug {pod} -it --image=busybox --profile=nope"),
            "error: unknown profile: nope\n".into(),
        ),
        (
            format!("kubectl debug {pod} -t --image=busybox"),
            "error: -i/--stdin is required for containers with -t/--tty=true\n".into(),
        ),
        (
            format!("kubectl debug {pod} -it"),
            "error: you must specify --image when not using --copy-to.\n".into(),
        ),
        (
            format!("kubectl debug {pod} -it --image=BusyBox"),
            "error: invalid image name \"BusyBox\": invalid reference format\n".into(),
        ),
        (
            "kubectl debug -it --image=busybox".into(),
            "error: NAME or filename is required for debug\n".into(),
        ),
        (
            format!("kubectl debug {pod} --image=busybox --replace"),
            "error: --replace may only be used with --copy-to.\n".into(),
        ),
        (
            format!("kubectl debug {pod} --image=busybox --set-image=nginx=nginx:1.27"),
            "error: --set-image may only be used with --copy-to.\n".into(),
        ),
        (
            format!("kubectl debug {pod} --copy-to=x --image=busybox --target=nginx"),
            "error: --target is incompatible with --copy-to. Use --share-processes instead.\n"
                .into(),
        ),
        (
            format!("kubectl debug {pod} --copy-to=x"),
            "error: you must specify --image, --set-image or command arguments.\n".into(),
        ),
        (
            "kubectl debug deployment/web --image=busybox".into(),
            "error: \"apps/v1, Kind=Deployment\" not supported by debug\n".into(),
        ),
        (
            "kubectl debug node/zone-z --image=busybox".into(),
            "Error from server (NotFound): nodes \"zone-z\" not found\n".into(),
        ),
        (
            format!("kubectl debug {pod} --image=busybox --wat"),
            "error: unknown flag: --wat\nSee 'kubectl debug --help' for usage.\n".into(),
        ),
    ];
    for (line, want) in cases {
        let out = sh(&mut s, &line);
        assert_eq!(out.code, 1, "{line}");
        assert_eq!(out.combined(), want, "{line}");
    }
    let after = ok(
        &mut s,
        &format!("kubectl get pod {pod} -o jsonpath='{{.metadata.resourceVersion}}'"),
    );
    assert_eq!(before, after, "nothing changed");
    assert_eq!(
        ok(&mut s, "kubectl get pods -o name"),
        format!("pod/{pod}\n")
    );
}

#[test]
fn a_finished_pod_never_starts_its_debug_container() {
    let mut s = Session::settled(7);
    ok(
        &mut s,
        "kubectl run done --image=busybox --restart=Never -- true",
    );
    ok(&mut s, "sim advance 30s");
    let out = sh(&mut s, "kubectl debug done -it --image=busybox -c late");
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr, "error: timed out waiting for the condition\n");
    let status = ok(
        &mut s,
        "kubectl get pod done -o jsonpath='{.status.phase} {.spec.ephemeralContainers[0].name} {.status.ephemeralContainerStatuses}'",
    );
    assert_eq!(status, "Succeeded late ");
}

#[test]
fn a_node_debugger_runs_in_the_hosts_namespaces_with_its_root_at_host() {
    let mut s = Session::settled(7);
    let out = sh(&mut s, "kubectl debug node/zone-a -it --image=busybox");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let pod = out
        .stdout
        .strip_prefix("Creating debugging pod ")
        .and_then(|l| l.strip_suffix(" with container debugger on node zone-a.\n"))
        .expect("kubectl's note")
        .to_string();
    assert!(
        pod.starts_with("node-debugger-zone-a-") && pod.len() == "node-debugger-zone-a-".len() + 5
    );
    assert_eq!(out.stderr, NOTES);
    assert_eq!(
        sh(&mut s, "exit").stdout,
        "",
        "restartPolicy Never: no resume note"
    );
    ok(&mut s, "sim advance 5s");
    let spec = ok(
        &mut s,
        &format!("kubectl get pod {pod} -o jsonpath='{{.spec.nodeName}} {{.spec.hostPID}} {{.spec.hostNetwork}} {{.spec.hostIPC}} {{.spec.volumes[0].hostPath.path}} {{.spec.containers[0].volumeMounts[0].mountPath}} {{.spec.restartPolicy}} {{.metadata.labels}} {{.status.phase}}'"),
    );
    assert_eq!(
        spec,
        "zone-a true true true / /host Never {\"app.kubernetes.io/managed-by\":\"kubectl-debug\"} Succeeded"
    );
}

#[test]
fn a_copy_shares_processes_and_can_replace_the_original() {
    let (mut s, pod) = web();
    let out = sh(
        &mut s,
        &format!("kubectl debug {pod} -it --copy-to=web-debug --image=busybox"),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out
        .stdout
        .starts_with("Defaulting debug container name to debugger-"));
    let ps = ok(&mut s, "ps");
    assert!(
        ps.starts_with("PID   USER     TIME  COMMAND\n    1 root      0:00 /pause\n    7 root      0:00 /docker-entrypoint.sh nginx"),
        "{ps}"
    );
    sh(&mut s, "exit");
    let copy = ok(
        &mut s,
        "kubectl get pod web-debug -o jsonpath='{.spec.shareProcessNamespace} {.metadata.labels} {.spec.containers[*].name}'",
    );
    assert!(copy.starts_with("true  nginx debugger-"), "{copy}");
    // --set-image alone: the copy with other images, nothing to attach to.
    let out = ok(
        &mut s,
        &format!("kubectl debug {pod} --copy-to=web-new --set-image=*=nginx:1.27 --replace --keep-labels"),
    );
    assert_eq!(out, "");
    ok(&mut s, "sim advance 30s");
    let pods = ok(&mut s, "kubectl get pods -o name");
    assert!(!pods.contains(&pod), "the original is gone: {pods}");
    let image = ok(
        &mut s,
        "kubectl get pod web-new -o jsonpath='{.spec.containers[0].image} {.metadata.labels.app}'",
    );
    assert_eq!(image, "nginx:1.27 web");
}

#[test]
fn a_node_debugger_is_named_after_the_node_it_runs_on() {
    let mut s = Session::settled(7);
    ok(&mut s, "kubectl debug node/zone-b -it --image=busybox -q");
    assert_eq!(ok(&mut s, "hostname"), "zone-b\n");
    assert_eq!(ok(&mut s, "cat /etc/hostname"), "zone-b\n");
    ok(&mut s, "exit");
}
