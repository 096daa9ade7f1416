//! Commands that keep running in the learner's terminal: `kubectl port-forward`
//! (a tunnel to one pod that `curl localhost` and `sim request` reach until the
//! pod stops).

use warehouse_kubectl::{CommandOutput, NoFiles, Session};

fn sh(s: &mut Session, line: &str) -> CommandOutput {
    s.run_shell(line, None, &NoFiles)
}

fn web() -> Session {
    let mut s = Session::settled(7);
    for line in [
        "kubectl create deployment web --image=nginx --port=80",
        "kubectl expose deployment web --port=8080 --target-port=80",
        "sim advance 30s",
    ] {
        let out = sh(&mut s, line);
        assert_eq!(out.code, 0, "{line}: {}", out.stderr);
    }
    s
}

#[test]
fn a_service_forward_reaches_the_target_port_of_one_pod() {
    let mut s = web();
    let out = sh(&mut s, "kubectl port-forward svc/web 8080:8080");
    assert_eq!(
        out.stdout,
        "Forwarding from 127.0.0.1:8080 -> 80\nForwarding from [::1]:8080 -> 80\n"
    );
    let out = sh(&mut s, "curl -s localhost:8080 | grep title");
    assert_eq!(out.stdout, "<title>Welcome to nginx!</title>\n");
    let out = sh(&mut s, "sim request http://127.0.0.1:8080/");
    assert!(
        out.stdout.starts_with("HTTP/1.1 200 OK") && out.stdout.contains("kubectl port-forward"),
        "{}",
        out.stdout
    );
}

#[test]
fn the_forward_ends_with_its_pod() {
    let mut s = web();
    assert_eq!(
        sh(&mut s, "kubectl port-forward deploy/web 9000:80").code,
        0
    );
    assert_eq!(sh(&mut s, "kubectl delete pod -l app=web").code, 0);
    // The Deployment's replacement is another pod: the tunnel does not follow it.
    sh(&mut s, "sim advance 30s");
    let out = sh(&mut s, "curl localhost:9000");
    assert_eq!(out.code, 7, "{}", out.stderr);
    assert!(out
        .stderr
        .contains("Failed to connect to localhost port 9000"));
    // The port is free again.
    assert_eq!(
        sh(&mut s, "kubectl port-forward deploy/web 9000:80").code,
        0
    );
}

#[test]
fn ports_are_resolved_and_checked_as_kubectl_does() {
    let mut s = web();
    let cases = [
        (
            "kubectl port-forward svc/web 8081:81",
            "error: Service web does not have a service port 81\n",
        ),
        (
            "kubectl port-forward svc/web",
            "error: TYPE/NAME and list of ports are required for port-forward\nSee 'kubectl port-forward -h' for help and examples\n",
        ),
        (
            "kubectl port-forward deploy/web 8080:http",
            "error: Pod 'WEB' does not have a named port 'http'\n",
        ),
        (
            "kubectl port-forward deploy/web 8080:",
            "error: remote port cannot be empty\n",
        ),
        (
            "kubectl port-forward deploy/web x:80",
            "error: Error parsing local port 'x': strconv.ParseUint: parsing \"x\": invalid syntax\n",
        ),
        (
            "kubectl port-forward pod/nope 80",
            "Error from server (NotFound): pods \"nope\" not found\n",
        ),
    ];
    let pod = sh(&mut s, "kubectl get pods -o name | head -1")
        .stdout
        .trim()
        .trim_start_matches("pod/")
        .to_string();
    for (line, want) in cases {
        let out = sh(&mut s, line);
        assert_eq!(out.code, 1, "{line}");
        assert_eq!(out.stderr, want.replace("WEB", &pod), "{line}");
    }
    // Nothing listens after a refused forward.
    assert_eq!(sh(&mut s, "curl localhost:8081").code, 7);
}

#[test]
fn a_taken_port_is_refused_and_a_missing_local_port_is_chosen() {
    let mut s = web();
    assert_eq!(sh(&mut s, "kubectl proxy").code, 0);
    let out = sh(&mut s, "kubectl port-forward deploy/web 8001:80");
    assert_eq!(out.code, 1);
    assert!(out.stderr.starts_with("Unable to listen on port 8001: Listeners failed to create with the following errors: [unable to create listener: Error listen tcp4 127.0.0.1:8001: bind: address already in use"), "{}", out.stderr);
    assert!(out
        .stderr
        .ends_with("error: unable to listen on any of the requested ports: [{8001 80}]\n"));
    let out = sh(
        &mut s,
        "kubectl port-forward deploy/web :80 --address 127.0.0.1",
    );
    assert_eq!(out.stdout, "Forwarding from 127.0.0.1:40000 -> 80\n");
    let out = sh(&mut s, "kubectl proxy --port 40000");
    assert_eq!(
        out.stderr,
        "error: listen tcp 127.0.0.1:40000: bind: address already in use\n"
    );
}

#[test]
fn a_pending_pod_cannot_be_forwarded_to() {
    let mut s = Session::settled(7);
    let out = sh(&mut s, "kubectl run stuck --image=nginx");
    assert_eq!(out.code, 0);
    let out = sh(&mut s, "kubectl port-forward pod/stuck 8080:80");
    assert_eq!(
        out.stderr,
        "error: unable to forward port because pod is not running. Current status=Pending\n"
    );
}

#[test]
fn logs_follow_prints_what_the_container_writes_until_it_stops() {
    let mut s = Session::settled(7);
    sh(
        &mut s,
        "kubectl run ticker --image=busybox --restart=Never -- sh -c 'for i in 1 2 3 4 5; do echo tick $i; sleep 10; done'",
    );
    sh(&mut s, "sim advance 15s");
    let before = sh(&mut s, "kubectl logs ticker").stdout;
    assert!(
        before.starts_with("tick 1\n") && !before.contains("tick 5"),
        "{before}"
    );
    let out = sh(&mut s, "kubectl logs -f ticker");
    assert_eq!(out.stdout, "tick 1\ntick 2\ntick 3\ntick 4\ntick 5\n");
    // The follow ended when the container did, not at the follow's time bound.
    let status = sh(
        &mut s,
        "kubectl get pod ticker -o jsonpath='{.status.phase}'",
    );
    assert_eq!(status.stdout, "Succeeded");
    let ended = sh(
        &mut s,
        "kubectl get pod ticker -o jsonpath='{.status.containerStatuses[0].state.terminated.finishedAt}'",
    );
    assert!(!ended.stdout.is_empty());
}

#[test]
fn logs_follow_of_a_server_stops_at_the_bound_and_moves_time() {
    let mut s = web();
    let t0 = sh(
        &mut s,
        "kubectl get pods -l app=web -o jsonpath='{.items[0].metadata.name}'",
    )
    .stdout;
    let age = |s: &mut Session| s.cluster.now();
    let before = age(&mut s);
    let out = sh(&mut s, &format!("kubectl logs -f {t0} --prefix"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out
        .stdout
        .lines()
        .all(|l| l.starts_with(&format!("[pod/{t0}/nginx] "))));
    assert_eq!(age(&mut s).0 - before.0, 60_000);
}

#[test]
fn run_it_rm_opens_a_shell_in_the_new_pod_and_deletes_it_after() {
    let mut s = Session::settled(7);
    let out = sh(
        &mut s,
        "kubectl run -it --rm tmp --image=busybox --restart=Never -- sh",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "", "no `created` line for an attached run");
    assert_eq!(
        out.stderr,
        "All commands and output from this session will be recorded in container logs, including credentials and sensitive information passed through the command prompt.\nIf you don't see a command prompt, try pressing enter.\n"
    );
    // The lines run in the pod until `exit`.
    assert_eq!(sh(&mut s, "hostname").stdout, "tmp\n");
    assert!(sh(&mut s, "cat /etc/resolv.conf")
        .stdout
        .starts_with("search default.svc.cluster.local"));
    assert_eq!(
        sh(&mut s, "nslookup kubernetes.default.svc.cluster.local").code,
        0,
        "the pod resolves Services"
    );
    assert_eq!(
        sh(&mut s, "kubectl get pods").code,
        127,
        "kubectl is not in busybox"
    );
    let out = sh(&mut s, "exit 3");
    assert_eq!(
        out.stdout,
        "Session ended, resume using 'kubectl attach tmp -c tmp -n default -i -t' command\npod \"tmp\" deleted from default namespace\n"
    );
    // kubectl exits with the container's code, printing nothing for it.
    assert_eq!(out.code, 3);
    assert_eq!(out.stderr, "");
    assert_eq!(sh(&mut s, "echo $?").stdout, "3\n");
    // Back on the laptop, and the pod is going away.
    let pods = sh(&mut s, "kubectl get pods -o name").stdout;
    assert!(pods.is_empty() || pods == "pod/tmp\n", "{pods}");
}

#[test]
fn an_attached_pod_follows_its_restart_policy_when_the_shell_exits() {
    let mut s = Session::settled(7);
    // Without --restart, an interactive run is OnFailure: `exit` (0) completes it.
    sh(&mut s, "kubectl run -it box --image=busybox");
    let spec = sh(
        &mut s,
        "kubectl get pod box -o jsonpath='{.spec.restartPolicy} {.spec.containers[0].stdin} {.spec.containers[0].stdinOnce} {.spec.containers[0].tty}'",
    );
    // Inside the session `kubectl` is not found; leave first.
    assert_eq!(spec.code, 127);
    let out = sh(&mut s, "exit");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let spec = sh(
        &mut s,
        "kubectl get pod box -o jsonpath='{.spec.restartPolicy} {.spec.containers[0].stdin} {.spec.containers[0].stdinOnce} {.spec.containers[0].tty} {.status.phase}'",
    );
    assert_eq!(spec.stdout, "OnFailure true true true Succeeded");
    // `--restart=Always`: the shell's exit restarts the container, and kubectl
    // returns at once.
    sh(
        &mut s,
        "kubectl run -it keep --image=busybox --restart=Always -- sh",
    );
    let out = sh(&mut s, "exit 1");
    assert_eq!(out.code, 0);
    sh(&mut s, "sim advance 5s");
    let restarts = sh(
        &mut s,
        "kubectl get pod keep -o jsonpath='{.status.containerStatuses[0].restartCount}'",
    );
    assert_eq!(restarts.stdout, "1");
}

#[test]
fn run_i_with_a_program_shows_its_output_and_exit_code() {
    let mut s = Session::settled(7);
    let out = sh(
        &mut s,
        "kubectl run -i --rm once --image=busybox --restart=Never -q -- sh -c 'echo hello; exit 5'",
    );
    assert_eq!(
        out.stdout,
        "hello\npod \"once\" deleted from default namespace\n"
    );
    assert_eq!(out.code, 5);
    let out = sh(&mut s, "kubectl run -it x --image=busybox --dry-run=client");
    assert_eq!(
        out.stderr,
        "error: --dry-run=[server|client] can't be used with attached containers options (--attach, --stdin, or --tty)\n"
    );
    let out = sh(&mut s, "kubectl run --rm x --image=busybox");
    assert_eq!(
        out.stderr,
        "error: --rm should only be used for attached containers\n"
    );
    assert_eq!(
        sh(&mut s, "kubectl get pod x").code,
        1,
        "nothing was created"
    );
}

#[test]
fn exec_session_exit_status_is_kubectls() {
    let mut s = web();
    let pod = sh(
        &mut s,
        "kubectl get pods -l app=web -o jsonpath='{.items[0].metadata.name}'",
    )
    .stdout;
    assert_eq!(sh(&mut s, &format!("kubectl exec -ti {pod} -- sh")).code, 0);
    let out = sh(&mut s, "exit 2");
    assert_eq!(out.stderr, "command terminated with exit code 2\n");
    assert_eq!(out.code, 2);
}

#[test]
fn attach_joins_a_restarted_shell_and_streams_a_server_from_now_on() {
    let mut s = Session::settled(7);
    sh(
        &mut s,
        "kubectl run -it keep --image=busybox --restart=Always -- sh",
    );
    sh(&mut s, "exit");
    sh(&mut s, "sim advance 10s");
    let out = sh(&mut s, "kubectl attach -it keep");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(sh(&mut s, "hostname").stdout, "keep\n");
    let out = sh(&mut s, "exit");
    assert_eq!(
        out.stdout,
        "Session ended, resume using 'kubectl attach keep -c keep -n default -i -t' command\n"
    );
    // A server's start-up lines came before the attach: only later output shows.
    sh(&mut s, "kubectl run web --image=nginx");
    sh(&mut s, "sim advance 30s");
    let out = sh(&mut s, "kubectl attach web -t");
    assert!(out
        .stderr
        .starts_with("error: Unable to use a TTY - container web did not allocate one\n"));
    assert_eq!(out.stdout, "");
    let out = sh(&mut s, "kubectl attach web a b");
    assert_eq!(
        out.stderr,
        "error: expected POD, TYPE/NAME, or TYPE NAME, (at most 2 arguments) saw 3: [web a b]\n"
    );
}
