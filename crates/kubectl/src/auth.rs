//! `kubectl auth can-i` and `kubectl auth whoami`.

use crate::{CommandOutput, Context};
use warehouse_sim::{Attributes, Cluster, Kind};

const CAN_I_USAGE: &str = "error: you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'kubectl auth can-i -h' for help and examples";

pub(crate) fn run(cluster: &Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let mut words = Vec::new();
    let mut namespace: Option<String> = None;
    let mut all_namespaces = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "-n" | "--namespace" => {
                namespace = args.get(i + 1).cloned();
                i += 1;
            }
            "-A" | "--all-namespaces" => all_namespaces = true,
            "--list" => {
                return CommandOutput::error(
                    "error: \"kubectl auth can-i --list\" is not available in this simulated cluster yet",
                )
            }
            _ if a.starts_with("--namespace=") => namespace = Some(a["--namespace=".len()..].to_string()),
            _ if a.starts_with('-') => {
                return CommandOutput::error(format!(
                    "error: unknown flag: {a}\nSee 'kubectl auth --help' for usage."
                ))
            }
            _ => words.push(a.to_string()),
        }
        i += 1;
    }
    match words.get(1).map(String::as_str) {
        Some("whoami") if words.len() == 2 => whoami(ctx),
        Some("can-i") => can_i(cluster, ctx, &words[2..], namespace, all_namespaces),
        Some(other) => CommandOutput::error(format!(
            "error: unknown command \"{other}\" for \"kubectl auth\"\nRun 'kubectl auth --help' for usage."
        )),
        None => CommandOutput::error(
            "error: kubectl auth needs a subcommand: can-i or whoami",
        ),
    }
}

fn whoami(ctx: &Context<'_>) -> CommandOutput {
    let rows = vec![
        vec!["ATTRIBUTE".to_string(), "VALUE".to_string()],
        vec!["Username".to_string(), ctx.caller.user.clone()],
        vec![
            "Groups".to_string(),
            format!("[{}]", ctx.caller.groups.join(" ")),
        ],
    ];
    CommandOutput {
        stdout: crate::table::format(&rows),
        ..CommandOutput::default()
    }
}

fn can_i(
    cluster: &Cluster,
    ctx: &Context<'_>,
    words: &[String],
    namespace: Option<String>,
    all_namespaces: bool,
) -> CommandOutput {
    let (verb, resource, name) = match words {
        [verb, resource] => match resource.split_once('/') {
            Some((r, n)) => (verb, r.to_string(), n.to_string()),
            None => (verb, resource.clone(), String::new()),
        },
        [verb, resource, name] => (verb, resource.clone(), name.clone()),
        _ => return CommandOutput::error(CAN_I_USAGE),
    };
    let (resource, subresource) = match resource.split_once('/') {
        Some((r, s)) => (r.to_string(), Some(s.to_string())),
        None => (resource, None),
    };
    let Some(kind) = Kind::lookup(&resource) else {
        // kubectl warns and still asks the server, which knows nothing of it.
        return CommandOutput {
            stdout: "no\n".into(),
            stderr: format!("Warning: the server doesn't have a resource type '{resource}'\n\n"),
            code: 1,
            ..CommandOutput::default()
        };
    };
    let ns = if all_namespaces {
        String::new()
    } else {
        namespace.unwrap_or_else(|| ctx.default_namespace.clone())
    };
    let attrs = Attributes {
        verb: verb.clone(),
        kind,
        subresource,
        namespace: if kind.namespaced() { ns } else { String::new() },
        name,
    };
    if cluster.rbac_allows(&ctx.caller, &attrs) {
        CommandOutput {
            stdout: "yes\n".into(),
            ..CommandOutput::default()
        }
    } else {
        CommandOutput {
            stdout: "no\n".into(),
            code: 1,
            ..CommandOutput::default()
        }
    }
}
