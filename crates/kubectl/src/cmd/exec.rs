//! `kubectl exec [-i] [-t] (POD | TYPE/NAME) [-c CONTAINER] -- COMMAND [args...]`.
//!
//! Mirrors staging/src/k8s.io/kubectl/pkg/cmd/exec/exec.go: the deprecated form
//! without `--`, the `Defaulted container` note, the completed-pod refusal, the
//! `command terminated with exit code N` line and exit status. The command runs in the
//! simulated container (`warehouse_sim::kubelet::exec`). `-ti` with a lone shell (`-- bash`,
//! `-- sh`) opens an interactive session: the next lines of the terminal or script run
//! in the container (`cat`, `env`, `curl localhost:8080`, ...) until `exit`.
//! Simplified: without a session there is no stdin; only pods and workloads' first
//! pods (`deployment/NAME`) are accepted.

use crate::context::{CommandOutput, Context};
use crate::errors;
use k8s_openapi::api::core::v1::Pod;
use warehouse_sim::kubelet::exec::ExecError;
use warehouse_sim::{Cluster, CollectMap, Kind, Object, StableSort};

const USAGE: &str = "error: expected 'exec POD_NAME COMMAND [ARG1] [ARG2] ... [ARGN]'.\nPOD or TYPE/NAME is a required argument for the exec command\nSee 'kubectl exec -h' for help and examples";

/// The container an interactive exec opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inside {
    pub namespace: String,
    pub pod: String,
    pub container: String,
    /// The shell's prompt: bash's `root@POD:/#`, or busybox sh's `/ #`.
    pub prompt: String,
    /// Set when `kubectl run -i` attached to the pod's own shell: what happens when
    /// the session ends.
    pub attached: Option<crate::cmd::attach::Attached>,
}

impl Inside {
    /// The prompt an interactive shell run as root shows: bash's `root@HOST:/#`,
    /// busybox and alpine sh's `/ #`.
    pub fn prompt_of(shell: &str, pod: &str) -> String {
        if shell.rsplit('/').next() == Some("bash") {
            format!("root@{pod}:/#")
        } else {
            "/ #".to_string()
        }
    }
}

/// Runs one line typed in an interactive exec session.
pub(crate) fn run_inside(
    session: &mut crate::Session,
    inside: &Inside,
    line: &str,
) -> CommandOutput {
    let mut out = CommandOutput::new();
    let trimmed = line.trim();
    if trimmed == "exit" || trimmed.starts_with("exit ") || trimmed == "logout" {
        session.shell.inside = None;
        // `exit N` ends the shell with N (masked to a byte, as a shell does); what
        // is not a number is status 2, as busybox's `exit: Illegal number`.
        let code = match trimmed.strip_prefix("exit").map(str::trim) {
            None | Some("") => 0,
            Some(n) => n.parse::<i64>().map_or(2, |n| (n & 0xff) as i32),
        };
        if let Some(how) = &inside.attached {
            return crate::cmd::attach::end(session, inside, how, code);
        }
        // The exec'd shell's status is kubectl exec's.
        if code != 0 {
            out.err_line(format!("command terminated with exit code {code}"));
            out.code = code;
        }
        return out;
    }
    if trimmed.is_empty() {
        return out;
    }
    let argv = vec!["sh".to_string(), "-c".to_string(), line.to_string()];
    match session.cluster.exec(
        &inside.namespace,
        &inside.pod,
        &inside.container,
        &argv,
        &crate::shell::outside::ContainerHttp,
    ) {
        Ok(r) => {
            out.stdout.push_str(&r.text);
            out.code = r.code;
        }
        Err(e) => {
            // The container is gone: the session ends as kubectl's does.
            session.shell.inside = None;
            match e {
                ExecError::Api(e) => out.fail(errors::render(&e, None)),
                ExecError::Upgrade(m) => {
                    out.fail(format!("error: unable to upgrade connection: {m}"))
                }
            }
        }
    }
    out
}

pub(crate) fn run(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    args: &[String],
) -> (CommandOutput, Option<Inside>) {
    let mut inside = None;
    let out = run_command(cluster, ctx, args, &mut inside);
    (out, inside)
}

/// `kubectl exec`'s flags and words, as its own flag parsing reads them.
#[derive(Default)]
struct ExecFlags {
    namespace: Option<String>,
    container: Option<String>,
    stdin: bool,
    /// The pod and, in the deprecated form without `--`, the command.
    words: Vec<String>,
    /// The command after `--`.
    command: Option<Vec<String>>,
}

/// Reads the flags and words of `kubectl exec`; an unknown flag is an error.
fn parse_flags(args: &[String]) -> Result<ExecFlags, String> {
    let mut f = ExecFlags::default();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            f.command = Some(args[i + 1..].to_vec());
            break;
        }
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a, None),
        };
        let value = |i: &mut usize| -> Option<String> {
            if inline.is_some() {
                return inline.clone();
            }
            *i += 1;
            args.get(*i).cloned()
        };
        match flag {
            "-n" | "--namespace" => f.namespace = value(&mut i),
            "-c" | "--container" => f.container = value(&mut i),
            "-i" | "--stdin" => f.stdin = true,
            // See below for what a TTY changes (nothing the transcript shows).
            "-t" | "--tty" => {}
            "-it" | "-ti" => f.stdin = true,
            "-q" | "--quiet" => {}
            _ if a.starts_with("-n") && a.len() > 2 => f.namespace = Some(a[2..].to_string()),
            _ if a.starts_with("-c") && a.len() > 2 => f.container = Some(a[2..].to_string()),
            _ if a.starts_with('-')
                && !f.words.is_empty()
                && f.command.is_none()
                && f.words.len() > 1 =>
            {
                f.words.push(a.to_string())
            }
            _ if a.starts_with('-') => {
                return Err(format!(
                "error: unknown shorthand flag: '{}' in {a}\nSee 'kubectl exec --help' for usage.",
                a.trim_start_matches('-').chars().next().unwrap_or('-')
            ))
            }
            _ => f.words.push(a.to_string()),
        }
        i += 1;
    }
    Ok(f)
}

/// The container to run in: the one `-c` names (which must be the pod's), else the
/// `kubectl.kubernetes.io/default-container`, else the first (with a note when
/// there are others). `None` when there is nothing to run in (an error is in `out`,
/// or the pod has no containers).
pub(crate) fn choose_container(
    pod: &Pod,
    pod_name: &str,
    asked: Option<String>,
    out: &mut CommandOutput,
) -> Option<String> {
    let spec = pod.spec.clone().unwrap_or_default();
    match asked {
        Some(c) => {
            let known = spec.containers.iter().any(|x| x.name == c)
                || spec.init_containers.iter().flatten().any(|x| x.name == c)
                || spec
                    .ephemeral_containers
                    .iter()
                    .flatten()
                    .any(|x| x.name == c);
            if !known {
                out.fail(format!(
                    "Error from server (BadRequest): container {c} is not valid for pod {pod_name}"
                ));
                return None;
            }
            Some(c)
        }
        None => {
            let annotated = pod
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get("kubectl.kubernetes.io/default-container"))
                .filter(|d| spec.containers.iter().any(|c| &&c.name == d))
                .cloned();
            match annotated {
                Some(d) => Some(d),
                None => {
                    let first = spec.containers.first()?;
                    if spec.containers.len() > 1 {
                        let all: Vec<&str> =
                            spec.containers.iter().map(|c| c.name.as_str()).collect();
                        out.err_line(format!(
                            "Defaulted container \"{}\" out of: {}",
                            first.name,
                            all.join(", ")
                        ));
                    }
                    Some(first.name.clone())
                }
            }
        }
    }
}

fn run_command(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    args: &[String],
    inside: &mut Option<Inside>,
) -> CommandOutput {
    let ExecFlags {
        namespace,
        container,
        stdin,
        mut words,
        command,
    } = match parse_flags(args) {
        Ok(f) => f,
        Err(e) => return CommandOutput::error(e),
    };
    if words.first().map(String::as_str) == Some("exec") {
        words.remove(0);
    }
    let mut out = CommandOutput::new();
    let Some(target) = words.first().cloned() else {
        return CommandOutput::error(USAGE);
    };
    let argv = match command {
        Some(c) => c,
        None => {
            if words.len() > 1 {
                out.err_line("kubectl exec [POD] [COMMAND] is DEPRECATED and will be removed in a future version. Use kubectl exec [POD] -- [COMMAND] instead.");
            }
            words[1..].to_vec()
        }
    };
    if argv.is_empty() {
        out.fail("error: you must specify at least one command for the container");
        return out;
    }
    let namespace = namespace.unwrap_or_else(|| ctx.default_namespace.clone());
    let pod_name = match pod_for(cluster, &namespace, &target) {
        Ok(n) => n,
        Err(e) => {
            out.fail(e);
            return out;
        }
    };
    if let Err(e) = crate::context::authorize(cluster, ctx, "get", Kind::Pod, &namespace, &pod_name)
    {
        out.fail(errors::render(&e, None));
        return out;
    }
    let pod = match cluster.get(Kind::Pod, &namespace, &pod_name) {
        Ok(Object::Pod(p)) => p,
        Ok(_) => return out,
        Err(e) => {
            out.fail(errors::render(&e, None));
            return out;
        }
    };
    if let Some(phase) = completed_phase(&pod) {
        out.fail(format!(
            "error: cannot exec into a container in a completed pod; current phase is {phase}"
        ));
        return out;
    }
    let Some(container) = choose_container(&pod, &pod_name, container, &mut out) else {
        return out;
    };
    let lone_shell = argv.len() == 1 && crate::cmd::run::is_shell_word(&argv[0]);
    // The terminal (or script) is the learner's terminal, so `-ti` gets a TTY and says
    // nothing, and `-t` without `-i` silently gets none (kubectl's SetupTTY). kubectl's
    // "Unable to use a TTY - input is not a terminal" needs piped input, which the
    // simulated shell does not feed to kubectl.
    match cluster.exec(
        &namespace,
        &pod_name,
        &container,
        &argv,
        &crate::shell::outside::ContainerHttp,
    ) {
        Ok(result) if stdin && lone_shell => {
            // The shell waits for input: the next lines run in it.
            out.stdout.push_str(&result.text);
            *inside = Some(Inside {
                namespace: namespace.clone(),
                pod: pod_name.clone(),
                container: container.clone(),
                prompt: Inside::prompt_of(&argv[0], &pod_name),
                attached: None,
            });
        }
        Ok(result) => {
            out.stdout.push_str(&result.text);
            if result.code != 0 {
                out.err_line(format!("command terminated with exit code {}", result.code));
                out.code = result.code;
            }
        }
        Err(ExecError::Api(e)) => {
            let text = errors::render(&e, None);
            // kubectl prints stream errors as plain errors.
            let text = match e.reason {
                warehouse_sim::StatusReason::InternalError => {
                    format!("error: {}", e.message)
                }
                _ => text,
            };
            out.fail(text);
        }
        Err(ExecError::Upgrade(m)) => out.fail(format!("error: unable to upgrade connection: {m}")),
    }
    out
}

/// `Succeeded` or `Failed` when the pod has finished: nothing runs to join.
pub(crate) fn completed_phase(pod: &Pod) -> Option<String> {
    pod.status
        .as_ref()
        .and_then(|s| s.phase.clone())
        .filter(|p| p == "Succeeded" || p == "Failed")
}

/// The pod a target names: `POD`, `pod/POD`, or a workload's first pod by name.
fn pod_for(cluster: &Cluster, namespace: &str, target: &str) -> Result<String, String> {
    pod_for_counted(cluster, namespace, target).map(|(name, _)| name)
}

/// [`pod_for`], with how many pods the workload had to choose from (`kubectl logs`
/// says `Found N pods, using pod/NAME`). Like `GetFirstPod`, ready pods come first.
pub(crate) fn pod_for_counted(
    cluster: &Cluster,
    namespace: &str,
    target: &str,
) -> Result<(String, usize), String> {
    let Some((kind, name)) = target.split_once('/') else {
        return Ok((target.to_string(), 1));
    };
    match kind {
        "pod" | "pods" | "po" => Ok((name.to_string(), 1)),
        "deployment" | "deployments" | "deploy" | "replicaset" | "replicasets" | "rs" | "job"
        | "jobs" | "daemonset" | "daemonsets" | "ds" | "statefulset" | "statefulsets" | "sts"
        | "service" | "services" | "svc" => {
            let kind_enum = match kind {
                "deployment" | "deployments" | "deploy" => Kind::Deployment,
                "replicaset" | "replicasets" | "rs" => Kind::ReplicaSet,
                "job" | "jobs" => Kind::Job,
                "daemonset" | "daemonsets" | "ds" => Kind::DaemonSet,
                "service" | "services" | "svc" => Kind::Service,
                _ => Kind::StatefulSet,
            };
            let selector = match cluster.get(kind_enum, namespace, name) {
                Ok(obj) => selector_of(&obj),
                Err(e) => return Err(errors::render(&e, None)),
            };
            let Some(sel) = selector else {
                return Err(format!(
                    "error: cannot attach to {kind}/{name}: selector is empty"
                ));
            };
            let mut pods: Vec<(bool, String)> = cluster
                .list(Kind::Pod, Some(namespace))
                .into_iter()
                .filter_map(|o| match o {
                    Object::Pod(p) => Some(p),
                    _ => None,
                })
                .filter(|p| p.metadata.deletion_timestamp.is_none())
                .filter(|p| {
                    let labels = p.metadata.labels.clone().unwrap_or_default();
                    sel.iter().all(|(k, v)| labels.get(k) == Some(v))
                })
                .map(|p| {
                    let ready = p
                        .status
                        .as_ref()
                        .and_then(|s| s.conditions.as_ref())
                        .is_some_and(|c| {
                            c.iter().any(|c| c.type_ == "Ready" && c.status == "True")
                        });
                    (!ready, p.metadata.name.clone().unwrap_or_default())
                })
                .collect();
            pods.stable_sort();
            let count = pods.len();
            pods.into_iter()
                .next()
                .map(|(_, n)| (n, count))
                .ok_or_else(|| format!("error: no pods found for {kind}/{name}"))
        }
        _ => Err(format!(
            "error: the server doesn't have a resource type \"{kind}\""
        )),
    }
}

fn selector_of(obj: &Object) -> Option<std::collections::BTreeMap<String, String>> {
    let value = serde_json::to_value(obj).ok()?;
    let labels = value
        .pointer("/spec/selector/matchLabels")
        .or_else(|| match obj {
            Object::Service(_) => value.pointer("/spec/selector"),
            _ => None,
        })?
        .as_object()?;
    let map: std::collections::BTreeMap<String, String> = labels
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect_map();
    (!map.is_empty()).then_some(map)
}
