//! `kubectl logs POD [-c CONTAINER] [-p] [--tail N] [--timestamps]`.
//!
//! Mirrors staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go and
//! polymorphichelpers/logsforobject.go: without `-c` the `kubectl.kubernetes.io/
//! default-container` annotation or else the first container is used, with a
//! `Defaulted container "a" out of: a, b` note when there are others. Simplified:
//! `-f` prints the log up to the simulated now and returns (a script cannot wait);
//! a workload (`deployment/web`, `job/pi`) gives its first pod, ready ones first, with
//! kubectl's `Found N pods, using pod/NAME` when it had several.

use crate::context::{CommandOutput, Context};
use crate::errors;
use warehouse_sim::{Cluster, Kind, Object};

const USAGE: &str = "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command\nSee 'kubectl logs -h' for help and examples";

pub(crate) fn run(cluster: &Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let mut namespace: Option<String> = None;
    let mut container: Option<String> = None;
    let mut previous = false;
    let mut timestamps = false;
    let mut tail: Option<i64> = None;
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
            "-f" | "--follow" => {}
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
    // kubectl picks the container itself when none is named.
    if container.is_none() {
        if let Ok(Object::Pod(pod)) = cluster.get(Kind::Pod, &namespace, &name) {
            let spec = pod.spec.clone().unwrap_or_default();
            let annotated = pod
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get("kubectl.kubernetes.io/default-container"))
                .cloned();
            let mut chosen = None;
            if let Some(d) = annotated {
                let exists = spec.containers.iter().any(|c| c.name == d)
                    || spec.init_containers.iter().flatten().any(|c| c.name == d);
                if exists {
                    chosen = Some(d);
                } else {
                    out.err_line(format!(
                        "Default container name \"{d}\" not found in pod {name}"
                    ));
                }
            }
            if chosen.is_none() {
                if let Some(first) = spec.containers.first() {
                    let init = spec.init_containers.as_deref().unwrap_or_default();
                    if spec.containers.len() > 1 || !init.is_empty() {
                        let mut all: Vec<String> =
                            spec.containers.iter().map(|c| c.name.clone()).collect();
                        all.extend(init.iter().map(|c| format!("{} (init)", c.name)));
                        out.err_line(format!(
                            "Defaulted container \"{}\" out of: {}",
                            first.name,
                            all.join(", ")
                        ));
                    }
                    chosen = Some(first.name.clone());
                }
            }
            container = chosen;
        }
    }
    let lines = match cluster.container_log(&namespace, &name, container.as_deref(), previous) {
        Ok(l) => l,
        Err(e) => {
            out.fail(errors::render(&e, None));
            return out;
        }
    };
    let skip = match tail {
        Some(n) if n >= 0 => lines.len().saturating_sub(n as usize),
        _ => 0,
    };
    for (at, text) in lines.into_iter().skip(skip) {
        if timestamps {
            let ms = at.0 % 1000;
            let t = at.to_k8s();
            let whole = t.0.strftime("%Y-%m-%dT%H:%M:%S").to_string();
            out.out_line(format!("{whole}.{ms:03}000000Z {text}"));
        } else {
            out.out_line(text);
        }
    }
    out
}
