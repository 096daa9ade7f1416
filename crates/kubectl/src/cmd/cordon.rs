//! `kubectl cordon` and `kubectl uncordon` (staging/src/k8s.io/kubectl/pkg/cmd/drain,
//! `RunCordonOrUncordon`): set or clear `spec.unschedulable` on nodes. The node
//! lifecycle controller then adds or removes the `node.kubernetes.io/unschedulable`
//! taint.

use crate::context::{CommandOutput, Context};
use crate::errors;
use warehouse_sim::apiserver::request::Body;
use warehouse_sim::{Cluster, Kind, Object};

/// Node names and the flags cordon, uncordon and drain share.
pub(crate) struct NodeArgs {
    pub nodes: Vec<String>,
}

/// Node names and `(flag, value)` pairs.
pub(crate) type SplitArgs = (Vec<String>, Vec<(String, String)>);

/// Splits `args` (the command word first) into node names; a flag not in `known`
/// (with its value if `takes_value`) is kubectl's unknown-flag error.
pub(crate) fn split_args(
    command: &str,
    args: &[String],
    known: &[(&str, bool)],
) -> Result<SplitArgs, CommandOutput> {
    let mut names = Vec::new();
    let mut flags = Vec::new();
    let mut seen_command = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a.starts_with('-') && a.len() > 1 {
            let (flag, inline) = match a.split_once('=') {
                Some((f, v)) => (f, Some(v.to_string())),
                None => (a, None),
            };
            let Some((_, takes_value)) = known.iter().find(|(f, _)| *f == flag) else {
                return Err(CommandOutput::error(format!(
                    "error: unknown flag: {flag}\nSee 'kubectl {command} --help' for usage."
                )));
            };
            let value = match (takes_value, inline) {
                (_, Some(v)) => v,
                (true, None) => {
                    i += 1;
                    match args.get(i) {
                        Some(v) => v.clone(),
                        None => {
                            return Err(CommandOutput::error(format!(
                                "error: flag needs an argument: {flag}\nSee 'kubectl {command} --help' for usage."
                            )))
                        }
                    }
                }
                (false, None) => "true".to_string(),
            };
            flags.push((flag.to_string(), value));
        } else if !seen_command && a == command {
            seen_command = true;
        } else {
            names.push(a.to_string());
        }
        i += 1;
    }
    Ok((names, flags))
}

pub(crate) fn parse(command: &str, args: &[String]) -> Result<NodeArgs, CommandOutput> {
    let (nodes, _) = split_args(command, args, &[])?;
    if nodes.is_empty() {
        return Err(CommandOutput::error(format!(
            "error: USAGE: {command} NODE [flags]\nSee 'kubectl {command} -h' for help and examples"
        )));
    }
    Ok(NodeArgs { nodes })
}

/// Sets `spec.unschedulable` on one node; prints `node/NAME cordoned` (or `already
/// cordoned`). Returns false on an error, which is printed.
pub(crate) fn cordon_one(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    name: &str,
    desired: bool,
    out: &mut CommandOutput,
) -> bool {
    let verb = if desired { "cordoned" } else { "uncordoned" };
    let node = match crate::context::get(cluster, ctx, Kind::Node, "", name) {
        Ok(Object::Node(n)) => n,
        Ok(_) => return false,
        Err(e) => {
            out.fail(errors::render(&e, None));
            return false;
        }
    };
    let current = node
        .spec
        .as_ref()
        .and_then(|s| s.unschedulable)
        .unwrap_or(false);
    if current == desired {
        out.out_line(format!("node/{name} already {verb}"));
        return true;
    }
    let mut updated = node;
    let spec = updated.spec.get_or_insert_with(Default::default);
    spec.unschedulable = desired.then_some(true);
    match crate::context::send(cluster, ctx, Body::patch(Object::Node(updated))) {
        Ok(_) => {
            out.out_line(format!("node/{name} {verb}"));
            true
        }
        Err(e) => {
            out.fail(errors::render(&e, None));
            false
        }
    }
}

pub(crate) fn run(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    args: &[String],
    desired: bool,
) -> CommandOutput {
    let command = if desired { "cordon" } else { "uncordon" };
    let parsed = match parse(command, args) {
        Ok(p) => p,
        Err(out) => return out,
    };
    let mut out = CommandOutput::new();
    for name in &parsed.nodes {
        cordon_one(cluster, ctx, name, desired, &mut out);
    }
    out
}
