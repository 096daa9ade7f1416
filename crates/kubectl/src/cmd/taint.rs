//! `kubectl taint nodes NAME key=value:Effect | key:Effect- | key-`
//! (staging/src/k8s.io/kubectl/pkg/cmd/taint): adds or removes taints, with kubectl's
//! parsing and messages. Only nodes can be tainted; `--all` and `-l` are not offered.

use crate::cmd::cordon::split_args;
use crate::context::{CommandOutput, Context};
use crate::errors;
use k8s_openapi::api::core::v1::Taint;
use warehouse_sim::apiserver::request::Body;
use warehouse_sim::{Cluster, Kind, Object};

const USAGE: &str = "error: at least one taint update is required";

/// kubectl's `Taint.ToString`: `key=value:Effect`, `key:Effect` or `key`.
fn taint_string(t: &Taint) -> String {
    let mut s = t.key.clone();
    if let Some(v) = t.value.as_deref().filter(|v| !v.is_empty()) {
        s.push('=');
        s.push_str(v);
    }
    if !t.effect.is_empty() {
        s.push(':');
        s.push_str(&t.effect);
    }
    s
}

fn parse_taint(spec: &str) -> Result<Taint, String> {
    let parts: Vec<&str> = spec.split(':').collect();
    let (kv, effect) = match parts.as_slice() {
        [k] => (*k, ""),
        [kv, effect] => {
            if !matches!(*effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
                return Err(format!(
                    "invalid taint effect: {effect}, unsupported taint effect"
                ));
            }
            (*kv, *effect)
        }
        _ => return Err(format!("invalid taint spec: {spec}")),
    };
    let kvs: Vec<&str> = kv.split('=').collect();
    let (key, value) = match kvs.as_slice() {
        [k] => (*k, None),
        [k, v] => (*k, Some(v.to_string())),
        _ => return Err(format!("invalid taint spec: {spec}")),
    };
    if let Some(v) = &value {
        if !is_valid_label_value(v) {
            return Err(format!(
                "invalid taint spec: {spec}, a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            ));
        }
    }
    if !is_qualified_name(key) {
        return Err(format!(
            "invalid taint spec: {spec}, name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        ));
    }
    Ok(Taint {
        key: key.to_string(),
        value: value.filter(|v| !v.is_empty()),
        effect: effect.to_string(),
        time_added: None,
    })
}

fn is_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

fn is_valid_label_value(s: &str) -> bool {
    s.is_empty() || is_name_part(s)
}

/// apimachinery's `IsQualifiedName`: an optional DNS-subdomain prefix and `/`, then
/// a name part.
fn is_qualified_name(s: &str) -> bool {
    match s.split_once('/') {
        Some((prefix, name)) => {
            !prefix.is_empty()
                && warehouse_sim::apiserver::is_dns1123_subdomain(prefix)
                && is_name_part(name)
        }
        None => is_name_part(s),
    }
}

/// kubectl's Complete: resources first (`nodes NAME...` or `node/NAME`), then
/// taints (a word with '=' or ':' or a trailing '-').
fn resources_and_specs(words: &[String]) -> Result<(Vec<String>, Vec<String>), String> {
    let mut resources: Vec<String> = Vec::new();
    let mut specs: Vec<String> = Vec::new();
    for w in words {
        let is_taint = w.contains('=') || w.contains(':') || w.ends_with('-');
        if is_taint {
            specs.push(w.clone());
        } else if !specs.is_empty() {
            return Err(format!(
                "error: all resources must be specified before taint changes: {w}"
            ));
        } else {
            resources.push(w.clone());
        }
    }
    if resources.is_empty() {
        return Err("error: one or more resources must be specified as <resource> <name>".into());
    }
    if specs.is_empty() {
        return Err(USAGE.into());
    }
    Ok((resources, specs))
}

/// The taints to add (`key=value:Effect`) and to remove (`key[:Effect]-`).
fn parse_specs(specs: &[String]) -> Result<(Vec<Taint>, Vec<Taint>), String> {
    let usage = |e: String| format!("error: {e}\nSee 'kubectl taint -h' for help and examples");
    let mut add: Vec<Taint> = Vec::new();
    let mut remove: Vec<Taint> = Vec::new();
    for spec in specs {
        if let Some(s) = spec.strip_suffix('-') {
            match parse_taint(s) {
                Ok(t) => remove.push(t),
                Err(e) => return Err(usage(e)),
            }
        } else {
            match parse_taint(spec) {
                Ok(t) if t.effect.is_empty() => {
                    return Err(usage(format!("invalid taint spec: {spec}")))
                }
                Ok(t) => {
                    if add.iter().any(|a| a.key == t.key && a.effect == t.effect) {
                        // Go's %v of a Taint value.
                        return Err(usage(format!(
                            "duplicated taints with the same key and effect: {{{} {} {} <nil>}}",
                            t.key,
                            t.value.as_deref().unwrap_or(""),
                            t.effect
                        )));
                    }
                    add.push(t)
                }
                Err(e) => return Err(usage(e)),
            }
        }
    }
    Ok((add, remove))
}

/// The names of the nodes the resources name; only nodes can be tainted, and a
/// taint may not be both added and removed.
fn node_names(
    resources: &[String],
    add: &[Taint],
    remove: &[Taint],
) -> Result<Vec<String>, String> {
    if resources.len() < 2 && !resources[0].contains('/') {
        return Err(
            "error: at least one resource name must be specified since 'all' parameter is not set"
                .into(),
        );
    }
    let kind = resources[0].split('/').next().unwrap_or("");
    if !matches!(kind.to_ascii_lowercase().as_str(), "node" | "nodes") {
        return Err(format!(
            "error: invalid resource type {}, only [\"node\" \"nodes\"] are supported",
            resources[0]
        ));
    }
    let conflicts: Vec<String> = remove
        .iter()
        .filter(|r| {
            add.iter()
                .any(|a| a.key == r.key && (r.effect.is_empty() || r.effect == a.effect))
        })
        .map(|r| format!("{{\"{}\":\"{}\"}}", r.key, r.effect))
        .collect();
    if !conflicts.is_empty() {
        return Err(format!(
            "error: can not both modify and remove the following taint(s) in the same command: {}",
            conflicts.join(", ")
        ));
    }
    Ok(if resources[0].contains('/') {
        resources
            .iter()
            .map(|r| r.split_once('/').map_or(r.as_str(), |(_, n)| n).to_string())
            .collect()
    } else {
        resources[1..].to_vec()
    })
}

/// Adds and removes taints on one node and patches it; prints `node/NAME tainted`
/// (or untainted, modified), or the error.
fn taint_node(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    name: &str,
    add: &[Taint],
    remove: &[Taint],
    overwrite: bool,
    out: &mut CommandOutput,
) {
    let node = match crate::context::get(cluster, ctx, Kind::Node, "", name) {
        Ok(Object::Node(n)) => n,
        Ok(_) => return,
        Err(e) => {
            out.fail(errors::render(&e, None));
            return;
        }
    };
    let taints = node
        .spec
        .as_ref()
        .and_then(|s| s.taints.clone())
        .unwrap_or_default();
    if !overwrite {
        let exists: Vec<String> = add
            .iter()
            .filter(|a| {
                taints
                    .iter()
                    .any(|t| t.key == a.key && t.effect == a.effect)
            })
            .map(|a| a.key.clone())
            .collect();
        if !exists.is_empty() {
            out.fail(format!(
                "error: node {name} already has {} taint(s) with same effect(s) and --overwrite is false",
                exists.join(",")
            ));
            return;
        }
    }
    // kubectl's reorganizeTaints: the new taints first, then the old ones they do
    // not replace; then the removals. "modified" with --overwrite or when adding
    // and removing.
    let mut merged = add.to_vec();
    for old in &taints {
        if !merged
            .iter()
            .any(|t| t.key == old.key && t.effect == old.effect)
        {
            merged.push(old.clone());
        }
    }
    let added = merged.len() != taints.len();
    let mut errs = Vec::new();
    for r in remove {
        let before = merged.len();
        merged.retain(|t| !(t.key == r.key && (r.effect.is_empty() || t.effect == r.effect)));
        if merged.len() == before {
            errs.push(format!("taint \"{}\" not found", taint_string(r)));
        }
    }
    match errs.len() {
        0 => {}
        // cmdutil.CheckErr: one error gets "error: ", an aggregate one line each.
        1 => {
            out.fail(format!("error: {}", errs[0]));
            return;
        }
        _ => {
            for e in errs {
                out.fail(e);
            }
            return;
        }
    }
    let deleted = !remove.is_empty();
    let op = if (added && deleted) || overwrite {
        "modified"
    } else if added {
        "tainted"
    } else {
        "untainted"
    };
    let mut updated = node;
    updated.spec.get_or_insert_with(Default::default).taints =
        (!merged.is_empty()).then_some(merged);
    match crate::context::send(cluster, ctx, Body::patch(Object::Node(updated))) {
        Ok(_) => out.out_line(format!("node/{name} {op}")),
        Err(e) => out.fail(errors::render(&e, None)),
    }
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let (words, flags) = match split_args("taint", args, &[("--overwrite", false)]) {
        Ok(x) => x,
        Err(out) => return out,
    };
    let overwrite = flags
        .iter()
        .any(|(f, v)| f == "--overwrite" && v != "false");
    let checked = resources_and_specs(&words).and_then(|(resources, specs)| {
        let (add, remove) = parse_specs(&specs)?;
        let nodes = node_names(&resources, &add, &remove)?;
        Ok((nodes, add, remove))
    });
    let (nodes, add, remove) = match checked {
        Ok(x) => x,
        Err(e) => return CommandOutput::error(e),
    };
    let mut out = CommandOutput::new();
    for name in &nodes {
        taint_node(cluster, ctx, name, &add, &remove, overwrite, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taints_parse_like_kubectl() {
        let t = parse_taint("dedicated=gpu:NoSchedule").unwrap();
        assert_eq!(taint_string(&t), "dedicated=gpu:NoSchedule");
        assert_eq!(
            parse_taint("k:Nope").unwrap_err(),
            "invalid taint effect: Nope, unsupported taint effect"
        );
        assert_eq!(
            parse_taint("a=b=c:NoSchedule").unwrap_err(),
            "invalid taint spec: a=b=c:NoSchedule"
        );
        assert_eq!(taint_string(&parse_taint("k").unwrap()), "k");
    }
}
