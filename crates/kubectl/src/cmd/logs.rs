//! `kubectl logs POD [-c CONTAINER] [-p] [--tail N] [--timestamps] [--prefix]` and
//! `kubectl logs -l SELECTOR`.
//!
//! Mirrors staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go and
//! polymorphichelpers/logsforobject.go: without `-c` the `kubectl.kubernetes.io/
//! default-container` annotation or else the first container is used, with a
//! `Defaulted container "a" out of: a, b` note when there are others. `-f` prints
//! the log so far, then follows it while simulated time passes, one second at a
//! time, until the container stops (a restart ends the stream, as upstream's
//! follow ends with the container it was opened to) or the pod is gone.
//! Simplified: a follow also ends after [`crate::cmd::getfmt::DEFAULT_WATCH`] of
//! simulated time, as `get -w` does, since the terminal has no Ctrl-C to give.
//! A workload (`deployment/web`, `job/pi`) gives its first pod, ready ones first, with
//! kubectl's `Found N pods, using pod/NAME` when it had several. With `-l` every
//! matching pod's log is printed, one pod after another in name order, its last 10
//! lines unless `--tail` says otherwise (upstream's default with a selector);
//! `--prefix` starts each line with `[pod/NAME/CONTAINER] `.

use crate::context::{CommandOutput, Context};
use crate::errors;
use warehouse_sim::{Cluster, Kind, Object, SimDuration, SimTime};

/// How much simulated time passes between two reads of a followed log.
const FOLLOW_STEP: SimDuration = SimDuration::secs(1);

const USAGE: &str = "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command\nSee 'kubectl logs -h' for help and examples";

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let mut namespace: Option<String> = None;
    let mut container: Option<String> = None;
    let mut previous = false;
    let mut timestamps = false;
    let mut tail: Option<i64> = None;
    let mut selector: Option<String> = None;
    let mut prefix = false;
    let mut follow = false;
    let mut words: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let value = |i: &mut usize| -> Option<String> {
            *i += 1;
            args.get(*i).cloned()
        };
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_string())),
            _ => (a, None),
        };
        match flag {
            "-n" | "--namespace" => namespace = inline.or_else(|| value(&mut i)),
            "-c" | "--container" => container = inline.or_else(|| value(&mut i)),
            "-p" | "--previous" => previous = inline.as_deref() != Some("false"),
            "--timestamps" => timestamps = inline.as_deref() != Some("false"),
            "--prefix" => prefix = inline.as_deref() != Some("false"),
            "-l" | "--selector" => selector = inline.or_else(|| value(&mut i)),
            "-f" | "--follow" => follow = inline.as_deref() != Some("false"),
            "--tail" => {
                let v = inline.or_else(|| value(&mut i)).unwrap_or_default();
                match v.parse::<i64>() {
                    Ok(n) => tail = Some(n),
                    Err(_) => {
                        return CommandOutput::error(format!(
                            "error: invalid argument \"{v}\" for \"--tail\" flag: strconv.ParseInt: parsing \"{v}\": invalid syntax\nSee 'kubectl logs --help' for usage."
                        ))
                    }
                }
            }
            _ if a.starts_with('-') => {
                return CommandOutput::error(format!(
                    "error: unknown flag: {flag}\nSee 'kubectl logs --help' for usage."
                ))
            }
            _ => words.push(a.to_string()),
        }
        i += 1;
    }
    if words.first().map(String::as_str) == Some("logs") {
        words.remove(0);
    }
    let namespace = namespace.unwrap_or_else(|| ctx.default_namespace.clone());
    let shown = Shown {
        container,
        previous,
        timestamps,
        prefix,
        tail,
        follow: follow && !previous,
    };
    if let Some(selector) = selector {
        if !words.is_empty() {
            return CommandOutput::error(
                "error: only a selector (-l) or a POD name is allowed\nSee 'kubectl logs -h' for help and examples",
            );
        }
        return by_selector(cluster, ctx, &namespace, &selector, shown);
    }
    let Shown {
        mut container,
        previous,
        ..
    } = shown.clone();
    let mut chosen_note: Option<String> = None;
    let name = match words.as_slice() {
        [target] => match target.split_once('/') {
            None => target.clone(),
            Some(("pod" | "pods" | "po", n)) => n.to_string(),
            Some(_) => match crate::cmd::exec::pod_for_counted(cluster, &namespace, target) {
                Ok((pod, count)) => {
                    if count > 1 {
                        chosen_note = Some(format!("Found {count} pods, using pod/{pod}"));
                    }
                    pod
                }
                Err(e) => return CommandOutput::error(e),
            },
        },
        [pod, c] if container.is_none() => {
            container = Some(c.clone());
            pod.clone()
        }
        [] => return CommandOutput::error(USAGE),
        _ => {
            return CommandOutput::error(
                "error: only one of -c or an inline [CONTAINER] arg is allowed\nSee 'kubectl logs -h' for help and examples",
            )
        }
    };
    if let Err(e) = crate::context::authorize(cluster, ctx, "get", Kind::Pod, &namespace, &name) {
        return CommandOutput::error(errors::render(&e, None));
    }
    let mut out = CommandOutput::new();
    if let Some(note) = chosen_note {
        out.err_line(note);
    }
    let shown = Shown {
        container,
        previous,
        ..shown
    };
    let streams = print_pod_log(cluster, &namespace, &name, &shown, &mut out);
    follow_streams(
        cluster,
        &namespace,
        streams.into_iter().collect(),
        &shown,
        &mut out,
    );
    out
}

/// What is printed of a log, and how.
#[derive(Clone)]
struct Shown {
    container: Option<String>,
    previous: bool,
    timestamps: bool,
    prefix: bool,
    tail: Option<i64>,
    /// `-f`: keep reading as the container writes.
    follow: bool,
}

/// A log `-f` keeps reading: one instance of one container.
struct Stream {
    pod: String,
    container: String,
    /// The instance followed (its restart count).
    restarts: i32,
    /// Lines of that instance printed so far.
    printed: usize,
}

/// `-l`: the log of every pod the selector matches, in name order.
fn by_selector(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    namespace: &str,
    selector: &str,
    shown: Shown,
) -> CommandOutput {
    let selector = match crate::selector::Selector::parse(selector) {
        Ok(s) => s,
        Err(e) => return CommandOutput::error(format!("error: {e}")),
    };
    if let Err(e) = crate::context::authorize(cluster, ctx, "list", Kind::Pod, namespace, "") {
        return CommandOutput::error(errors::render(&e, None));
    }
    let empty = std::collections::BTreeMap::new();
    let pods: Vec<String> = cluster
        .list(Kind::Pod, Some(namespace))
        .into_iter()
        .filter(|o| selector.matches(o.meta().labels.as_ref().unwrap_or(&empty)))
        .map(|o| o.name().to_string())
        .collect();
    let mut out = CommandOutput::new();
    if pods.is_empty() {
        out.err_line(format!("No resources found in {namespace} namespace."));
        return out;
    }
    // With a selector kubectl shows the last 10 lines of each unless told.
    let shown = Shown {
        tail: shown.tail.or(Some(10)),
        ..shown
    };
    let mut streams = Vec::new();
    for pod in pods {
        streams.extend(print_pod_log(cluster, namespace, &pod, &shown, &mut out));
        if out.code != 0 {
            return out;
        }
    }
    follow_streams(cluster, namespace, streams, &shown, &mut out);
    out
}

/// One pod's log: the container named, or the one kubectl picks (with its note);
/// with `-f`, the stream to follow while its container runs.
fn print_pod_log(
    cluster: &Cluster,
    namespace: &str,
    name: &str,
    shown: &Shown,
    out: &mut CommandOutput,
) -> Option<Stream> {
    let container = match &shown.container {
        Some(c) => Some(c.clone()),
        None => default_container(cluster, namespace, name, out),
    };
    let lines = match cluster.container_log(namespace, name, container.as_deref(), shown.previous) {
        Ok(l) => l,
        Err(e) => {
            out.fail(errors::render(&e, None));
            return None;
        }
    };
    let printed = lines.len();
    let skip = match shown.tail {
        Some(n) if n >= 0 => lines.len().saturating_sub(n as usize),
        _ => 0,
    };
    let source = match (&container, shown.prefix) {
        (Some(c), true) => format!("[pod/{name}/{c}] "),
        _ => String::new(),
    };
    for (at, text) in lines.into_iter().skip(skip) {
        print_line(&source, shown.timestamps, at, &text, out);
    }
    if !shown.follow {
        return None;
    }
    let container = container?;
    let (restarts, true) = instance(cluster, namespace, name, &container)? else {
        return None;
    };
    Some(Stream {
        pod: name.to_string(),
        container,
        restarts,
        printed,
    })
}

fn print_line(source: &str, timestamps: bool, at: SimTime, text: &str, out: &mut CommandOutput) {
    if timestamps {
        let ms = at.0 % 1000;
        let t = at.to_k8s();
        let whole = t.0.strftime("%Y-%m-%dT%H:%M:%S").to_string();
        out.out_line(format!("{source}{whole}.{ms:03}000000Z {text}"));
    } else {
        out.out_line(format!("{source}{text}"));
    }
}

/// A container's restart count and whether it runs now (`None` when the pod or
/// the container is gone).
fn instance(cluster: &Cluster, namespace: &str, pod: &str, container: &str) -> Option<(i32, bool)> {
    let Ok(Object::Pod(p)) = cluster.get(Kind::Pod, namespace, pod) else {
        return None;
    };
    let status = p.status.as_ref()?;
    status
        .container_statuses
        .iter()
        .flatten()
        .chain(status.init_container_statuses.iter().flatten())
        .find(|c| c.name == container)
        .map(|c| {
            let running = c.state.as_ref().is_some_and(|s| s.running.is_some());
            (c.restart_count, running)
        })
}

/// `-f`: lets simulated time pass, printing what each followed container writes,
/// until every one has stopped or the follow's time is up.
fn follow_streams(
    cluster: &mut Cluster,
    namespace: &str,
    mut streams: Vec<Stream>,
    shown: &Shown,
    out: &mut CommandOutput,
) {
    let deadline = cluster.now() + crate::cmd::getfmt::DEFAULT_WATCH;
    while !streams.is_empty() && cluster.now() < deadline {
        cluster.advance(FOLLOW_STEP);
        let mut fresh: Vec<(SimTime, String, String)> = Vec::new();
        streams.retain_mut(|s| {
            let now = instance(cluster, namespace, &s.pod, &s.container);
            // After a restart the instance followed is the previous log.
            let previous = now.is_some_and(|(r, _)| r != s.restarts);
            let lines = cluster
                .container_log(namespace, &s.pod, Some(&s.container), previous)
                .unwrap_or_default();
            let source = if shown.prefix {
                format!("[pod/{}/{}] ", s.pod, s.container)
            } else {
                String::new()
            };
            for (at, text) in lines.iter().skip(s.printed) {
                fresh.push((*at, source.clone(), text.clone()));
            }
            s.printed = s.printed.max(lines.len());
            now == Some((s.restarts, true))
        });
        // Several pods' lines interleave in the order they were written.
        fresh.sort_by_key(|(at, _, _)| *at);
        for (at, source, text) in fresh {
            print_line(&source, shown.timestamps, at, &text, out);
        }
    }
}

/// The container kubectl picks when none is named: the
/// `kubectl.kubernetes.io/default-container` annotation's, or the first, with a
/// note when the pod has others.
fn default_container(
    cluster: &Cluster,
    namespace: &str,
    name: &str,
    out: &mut CommandOutput,
) -> Option<String> {
    let Ok(Object::Pod(pod)) = cluster.get(Kind::Pod, namespace, name) else {
        return None;
    };
    let spec = pod.spec.clone().unwrap_or_default();
    let annotated = pod
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get("kubectl.kubernetes.io/default-container"))
        .cloned();
    if let Some(d) = annotated {
        let exists = spec.containers.iter().any(|c| c.name == d)
            || spec.init_containers.iter().flatten().any(|c| c.name == d);
        if exists {
            return Some(d);
        }
        out.err_line(format!(
            "Default container name \"{d}\" not found in pod {name}"
        ));
    }
    let first = spec.containers.first()?;
    let init = spec.init_containers.as_deref().unwrap_or_default();
    if spec.containers.len() > 1 || !init.is_empty() {
        let mut all: Vec<String> = spec.containers.iter().map(|c| c.name.clone()).collect();
        all.extend(init.iter().map(|c| format!("{} (init)", c.name)));
        out.err_line(format!(
            "Defaulted container \"{}\" out of: {}",
            first.name,
            all.join(", ")
        ));
    }
    Some(first.name.clone())
}
