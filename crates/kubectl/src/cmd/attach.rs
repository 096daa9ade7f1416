//! Attaching to the pod `kubectl run -i` creates (staging/src/k8s.io/kubectl/pkg/cmd/
//! run/run.go `handleAttachPod`, `waitForPod`, and pkg/cmd/attach/attach.go).
//!
//! kubectl waits (up to `--pod-running-timeout`, a minute) for the pod to be Running
//! and Ready; a pod that already finished shows its log instead. It prints what the
//! container wrote so far, the two notes about the session (unless `-q`), and joins
//! the container's stdin: with a lone shell (`-- sh`, busybox's default) the next
//! lines of the terminal run in it until `exit`. When the session ends, a TTY
//! session prints how to attach again; with `--restart=Never` or `OnFailure`
//! kubectl waits for the pod to finish and exits with the container's code; `--rm`
//! deletes the pod (without waiting, as run's delete flags say).
//!
//! Simplified: a program that is not a shell (`-i -- cat`) gets no input: kubectl
//! follows its output as `logs -f` does; what is typed in the session runs as
//! `kubectl exec` runs it and is not added to the container's log.

use crate::cmd::exec::Inside;
use crate::context::{CommandOutput, Context};
use k8s_openapi::api::core::v1::Container;
use warehouse_sim::{Cluster, Kind, Object, SimDuration};

/// How `kubectl run` attached, kept for the end of the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attached {
    /// The pod's restart policy, which `kubectl run` waits by (empty for `kubectl
    /// attach`, which does not wait).
    pub restart: String,
    /// `--rm`.
    pub remove: bool,
    /// `-q`.
    pub quiet: bool,
    /// `-t` (with `-i`): the session had a TTY.
    pub tty: bool,
    /// Whether a TTY session's end tells how to attach again.
    pub resume: bool,
    /// `--pod-running-timeout`.
    pub timeout: SimDuration,
}

/// What a wait for the pod found.
enum Found {
    /// Running and Ready.
    Ready,
    /// Succeeded or Failed.
    Completed,
    /// Not there.
    Gone,
    TimedOut,
}

const STEP: SimDuration = SimDuration::secs(1);

fn phase_of(cluster: &Cluster, ns: &str, name: &str) -> Option<(String, bool)> {
    let Ok(Object::Pod(p)) = cluster.get(Kind::Pod, ns, name) else {
        return None;
    };
    let status = p.status.as_ref();
    let phase = status.and_then(|s| s.phase.clone()).unwrap_or_default();
    let ready = status
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"));
    Some((phase, ready))
}

/// Lets simulated time pass until `done` says the pod is where kubectl waits for it.
fn wait_for(
    cluster: &mut Cluster,
    ns: &str,
    name: &str,
    timeout: SimDuration,
    done: impl Fn(&str, bool) -> Option<Found>,
) -> Found {
    let deadline = cluster.now() + timeout;
    loop {
        let Some((phase, ready)) = phase_of(cluster, ns, name) else {
            return Found::Gone;
        };
        if let Some(f) = done(&phase, ready) {
            return f;
        }
        if cluster.now() >= deadline {
            return Found::TimedOut;
        }
        cluster.advance(STEP);
    }
}

/// After `kubectl run -i` created the pod: waits for it and attaches. Returns the
/// session to open, if the container reads what the terminal types.
pub(crate) fn start(
    session: &mut crate::Session,
    ns: &str,
    name: &str,
    shell: Option<&str>,
    how: Attached,
    out: &mut CommandOutput,
) -> Option<Inside> {
    let found = wait_for(
        &mut session.cluster,
        ns,
        name,
        how.timeout,
        |phase, ready| match phase {
            "Succeeded" | "Failed" => Some(Found::Completed),
            "Running" if ready => Some(Found::Ready),
            _ => None,
        },
    );
    match found {
        Found::Gone => {
            out.fail("Error from server (NotFound): pods \"\" not found");
            return None;
        }
        Found::TimedOut => {
            remove(session, ns, name, &how, out);
            out.fail("error: timed out waiting for the condition");
            return None;
        }
        Found::Completed => {
            print_log(session, ns, name, false, out);
            finish(session, ns, name, &how, out);
            return None;
        }
        Found::Ready => {}
    }
    let shell_word = shell.unwrap_or("sh");
    let session_opens = shell.is_some() && session.cluster.attachable(ns, name, name);
    // What the container wrote before the attach connected; without a shell reading
    // the terminal, the output streams on until the program ends.
    print_log(session, ns, name, !session_opens, out);
    if !how.quiet {
        out.err_line("All commands and output from this session will be recorded in container logs, including credentials and sensitive information passed through the command prompt.");
        out.err_line("If you don't see a command prompt, try pressing enter.");
    }
    if session_opens {
        return Some(Inside {
            namespace: ns.to_string(),
            pod: name.to_string(),
            container: name.to_string(),
            prompt: Inside::prompt_of(shell_word, name),
            attached: Some(how),
        });
    }
    finish(session, ns, name, &how, out);
    None
}

/// The log so far (`follow`: and what comes until the container stops).
fn print_log(
    session: &mut crate::Session,
    ns: &str,
    name: &str,
    follow: bool,
    out: &mut CommandOutput,
) {
    let mut args = vec!["logs".to_string(), name.to_string(), "-n".into(), ns.into()];
    if follow {
        args.push("-f".into());
    }
    let log = session.run_args(&args, None, &crate::NoFiles);
    if log.code == 0 {
        out.stdout.push_str(&log.stdout);
    }
}

/// `exit [N]` in an attached session: the shell exits, then `kubectl run` does
/// what it does after an attach.
pub(crate) fn end(
    session: &mut crate::Session,
    inside: &Inside,
    how: &Attached,
    code: i32,
) -> CommandOutput {
    let mut out = CommandOutput::new();
    session
        .cluster
        .attach_end(&inside.namespace, &inside.pod, &inside.container, code);
    if how.tty && how.resume && !how.quiet {
        out.out_line(format!(
            "Session ended, resume using 'kubectl attach {} -c {} -n {} -i -t' command",
            inside.pod, inside.container, inside.namespace
        ));
    }
    finish(session, &inside.namespace, &inside.pod, how, &mut out);
    out
}

/// After the attach: with `Never` or `OnFailure` wait for the pod to finish and take
/// the container's exit code; `--rm` deletes the pod.
fn finish(
    session: &mut crate::Session,
    ns: &str,
    name: &str,
    how: &Attached,
    out: &mut CommandOutput,
) {
    let waits = matches!(how.restart.as_str(), "Never" | "OnFailure");
    let mut result: Result<i32, String> = Ok(0);
    if waits {
        let on_failure = how.restart == "OnFailure";
        let found = wait_for(
            &mut session.cluster,
            ns,
            name,
            how.timeout,
            |phase, _| match phase {
                "Succeeded" => Some(Found::Completed),
                "Failed" if !on_failure => Some(Found::Completed),
                _ => None,
            },
        );
        result = match found {
            Found::Completed => exit_code(&session.cluster, ns, name),
            Found::Gone => Err("Error from server (NotFound): pods \"\" not found".into()),
            Found::TimedOut | Found::Ready => {
                Err("error: timed out waiting for the condition".into())
            }
        };
    }
    remove(session, ns, name, how, out);
    match result {
        Ok(code) => out.code = code,
        Err(e) => out.fail(e),
    }
}

/// The status kubectl exits with for a finished pod: 0 when it Succeeded, the
/// container's exit code when it Failed (kubectl prints nothing for it).
fn exit_code(cluster: &Cluster, ns: &str, name: &str) -> Result<i32, String> {
    let Ok(Object::Pod(p)) = cluster.get(Kind::Pod, ns, name) else {
        return Ok(0);
    };
    let status = p.status.clone().unwrap_or_default();
    if status.phase.as_deref() == Some("Succeeded") {
        return Ok(0);
    }
    let code = status
        .container_statuses
        .iter()
        .flatten()
        .next()
        .and_then(|c| c.state.as_ref()?.terminated.as_ref())
        .map(|t| t.exit_code);
    match code {
        Some(rc) if rc != 0 => Ok(rc),
        _ => Err(format!(
            "error: pod {ns}/{name} failed with unknown exit code"
        )),
    }
}

/// `--rm`: deletes the pod as run's delete flags do (no wait).
fn remove(
    session: &mut crate::Session,
    ns: &str,
    name: &str,
    how: &Attached,
    out: &mut CommandOutput,
) {
    if !how.remove {
        return;
    }
    let args: Vec<String> = ["delete", "pod", name, "-n", ns, "--wait=false"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let deleted = session.run_args(&args, None, &crate::NoFiles);
    out.stdout.push_str(&deleted.stdout);
    out.stderr.push_str(&deleted.stderr);
}

/// `kubectl attach (POD | TYPE/NAME) [-c CONTAINER] [-i] [-t] [-q]`: joins a running
/// container. With `-i` and a shell reading an open stdin, the terminal's lines run
/// in it until `exit`; otherwise its output streams (as `logs -f`). The pod is not
/// waited for nor deleted afterwards.
pub(crate) fn attach(
    session: &mut crate::Session,
    ctx: &Context<'_>,
    args: &[String],
) -> CommandOutput {
    let mut namespace = None;
    let mut container = None;
    let (mut stdin, mut tty, mut quiet) = (false, false, false);
    let mut words = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || inline.clone().or_else(|| it.next().cloned());
        match flag {
            "-n" | "--namespace" => namespace = value(),
            "-c" | "--container" => container = value(),
            "--pod-running-timeout" => {
                value();
            }
            "-i" | "--stdin" => stdin = true,
            "-t" | "--tty" => tty = true,
            "-it" | "-ti" => (stdin, tty) = (true, true),
            "-q" | "--quiet" => quiet = true,
            f if f.starts_with('-') => {
                return CommandOutput::error(format!(
                    "error: unknown flag: {f}\nSee 'kubectl attach --help' for usage."
                ))
            }
            _ => words.push(a.clone()),
        }
    }
    if words.first().map(String::as_str) == Some("attach") {
        words.remove(0);
    }
    let target = match words.as_slice() {
        [] => {
            return CommandOutput::error(
                "error: at least 1 argument is required for attach\nSee 'kubectl attach -h' for help and examples",
            )
        }
        [one] => one.clone(),
        [kind, name] => format!("{kind}/{name}"),
        more => {
            return CommandOutput::error(format!(
                "error: expected POD, TYPE/NAME, or TYPE NAME, (at most 2 arguments) saw {}: [{}]",
                more.len(),
                more.join(" ")
            ))
        }
    };
    let ns = namespace.unwrap_or_else(|| ctx.default_namespace.clone());
    let cluster = &mut session.cluster;
    let pod_name = match crate::cmd::exec::pod_for_counted(cluster, &ns, &target) {
        Ok((p, _)) => p,
        Err(e) => return CommandOutput::error(e),
    };
    if let Err(e) = crate::context::authorize(cluster, ctx, "get", Kind::Pod, &ns, &pod_name) {
        return CommandOutput::error(crate::errors::render(&e, None));
    }
    let pod = match cluster.get(Kind::Pod, &ns, &pod_name) {
        Ok(Object::Pod(p)) => p,
        Ok(_) => return CommandOutput::new(),
        Err(e) => return CommandOutput::error(crate::errors::render(&e, None)),
    };
    if let Some(phase) = crate::cmd::exec::completed_phase(&pod) {
        return CommandOutput::error(format!(
            "error: cannot attach a container in a completed pod; current phase is {phase}"
        ));
    }
    let mut out = CommandOutput::new();
    let Some(name) = crate::cmd::exec::choose_container(&pod, &pod_name, container, &mut out)
    else {
        return out;
    };
    let join = Join {
        stdin,
        tty,
        quiet,
        resume: true,
    };
    join_container(session, &ns, &pod_name, &name, join, &mut out);
    out
}

/// How to join a running container: `-i`, `-t`, `-q`, and whether a TTY session's
/// end tells how to attach again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Join {
    pub stdin: bool,
    pub tty: bool,
    pub quiet: bool,
    pub resume: bool,
}

/// A container of the pod by name: an app, init or ephemeral one.
fn spec_of(pod: &k8s_openapi::api::core::v1::Pod, name: &str) -> Container {
    let spec = pod.spec.clone().unwrap_or_default();
    spec.containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .find(|c| c.name == name)
        .cloned()
        .or_else(|| {
            spec.ephemeral_containers
                .iter()
                .flatten()
                .find(|c| c.name == name)
                .map(warehouse_sim::object::ephemeral_as_container)
        })
        .unwrap_or_default()
}

/// `attach.go`'s Run on a running container: the notes about the session, then the
/// terminal's lines go to a shell reading its stdin, or its output streams from now
/// on (attach shows nothing written before it joined).
pub(crate) fn join_container(
    session: &mut crate::Session,
    ns: &str,
    pod_name: &str,
    name: &str,
    join: Join,
    out: &mut CommandOutput,
) {
    let Ok(Object::Pod(pod)) = session.cluster.get(Kind::Pod, ns, pod_name) else {
        return;
    };
    let Join {
        stdin,
        mut tty,
        quiet,
        resume,
    } = join;
    let spec = spec_of(&pod, name);
    let has_tty = spec.tty == Some(true);
    if tty && !has_tty {
        tty = false;
        if !quiet {
            out.err_line(format!(
                "error: Unable to use a TTY - container {name} did not allocate one"
            ));
        }
    } else if !tty && has_tty {
        tty = true;
    }
    if !quiet {
        out.err_line("All commands and output from this session will be recorded in container logs, including credentials and sensitive information passed through the command prompt.");
        out.err_line("If you don't see a command prompt, try pressing enter.");
    }
    let words: Vec<String> = spec
        .command
        .iter()
        .flatten()
        .chain(spec.args.iter().flatten())
        .cloned()
        .collect();
    let image = spec.image.clone().unwrap_or_default();
    let how = Attached {
        restart: String::new(),
        remove: false,
        quiet,
        tty,
        resume,
        timeout: SimDuration::secs(60),
    };
    if stdin
        && crate::cmd::run::lone_shell(&image, &words)
        && session.cluster.attachable(ns, pod_name, name)
    {
        session.shell.inside = Some(Inside {
            prompt: Inside::prompt_of(words.first().map_or("sh", String::as_str), pod_name),
            namespace: ns.to_string(),
            pod: pod_name.to_string(),
            container: name.to_string(),
            attached: Some(how),
        });
        return;
    }
    // The output from now on (attach shows nothing written before it joined).
    let args: Vec<String> = ["logs", pod_name, "-c", name, "-n", ns, "-f"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let before = session.run_args(&args[..6], None, &crate::NoFiles).stdout;
    let log = session.run_args(&args, None, &crate::NoFiles).stdout;
    out.stdout
        .push_str(log.strip_prefix(before.as_str()).unwrap_or(&log));
}

/// `kubectl debug`'s `waitForContainer`: lets simulated time pass until `container`
/// of the pod runs or has finished, printing each new message of its waiting state
/// as a warning. `Err` when the pod is gone (kubectl's NotFound), or when nothing
/// more can happen (a finished pod never starts it) or an hour passed: where
/// kubectl would wait until interrupted, the simulator stops with kubectl's
/// timeout error.
pub(crate) fn wait_for_container(
    cluster: &mut Cluster,
    ns: &str,
    pod_name: &str,
    container: &str,
    quiet: bool,
    out: &mut CommandOutput,
) -> Result<bool, String> {
    let deadline = cluster.now() + crate::context::MAX_COMMAND_WAIT;
    let mut said = String::new();
    loop {
        let Ok(Object::Pod(p)) = cluster.get(Kind::Pod, ns, pod_name) else {
            return Err("Error from server (NotFound): pods \"\" not found".into());
        };
        let status = p.status.clone().unwrap_or_default();
        let cs = status
            .init_container_statuses
            .iter()
            .chain(status.container_statuses.iter())
            .chain(status.ephemeral_container_statuses.iter())
            .flatten()
            .find(|c| c.name == container)
            .cloned();
        let state = cs.and_then(|c| c.state).unwrap_or_default();
        if state.running.is_some() {
            return Ok(true);
        }
        if state.terminated.is_some() {
            return Ok(false);
        }
        let message = state
            .waiting
            .and_then(|w| w.message)
            .filter(|m| !m.is_empty());
        if let Some(m) = message.filter(|m| *m != said) {
            if !quiet {
                out.err_line(format!("Warning: container {container}: {m}"));
            }
            said = m;
        }
        let finished = matches!(status.phase.as_deref(), Some("Succeeded" | "Failed"));
        if finished || cluster.now() >= deadline {
            return Err("error: timed out waiting for the condition".into());
        }
        cluster.advance(STEP);
    }
}
