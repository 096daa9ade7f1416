//! `kubectl label` and `kubectl annotate` (k8s.io/kubectl/pkg/cmd/label/label.go,
//! k8s.io/kubectl/pkg/cmd/annotate/annotate.go): add (`k=v`), overwrite
//! (`--overwrite`) and remove (`k-`) labels or annotations of named objects, of
//! every object of a type (`--all`) or of those a selector picks (`-l`), and list
//! them (`--list`). Each change is a `patch` through the apiserver (authorized as
//! the caller). Simplified: no `-f`, `--local`, `--dry-run`, `--resource-version`,
//! `--field-selector` or `-o`.

use crate::args::clap_error;
use crate::cmd::get::{parse_resource_args, ResourceArg};
use crate::context::{CommandOutput, Context};
use crate::errors;
use crate::selector::Selector;
use clap::{ArgAction, Parser};
use std::collections::BTreeMap;
use warehouse_sim::{Cluster, Object};

#[derive(Parser, Debug)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct LabelArgs {
    /// `label`/`annotate`, then TYPE NAME or TYPE/NAME, then KEY=VALUE or KEY- pairs.
    #[arg(allow_hyphen_values = false)]
    words: Vec<String>,
    #[arg(short = 'n', long = "namespace")]
    namespace: Option<String>,
    #[arg(long = "overwrite", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    overwrite: bool,
    #[arg(long = "all", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    all: bool,
    #[arg(short = 'A', long = "all-namespaces", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    all_namespaces: bool,
    #[arg(long = "list", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    list: bool,
    #[arg(short = 'l', long = "selector")]
    selector: Option<String>,
}

/// Which map of the metadata the command edits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Labels,
    Annotations,
}

impl Target {
    fn command(self) -> &'static str {
        match self {
            Target::Labels => "label",
            Target::Annotations => "annotate",
        }
    }
    fn pair_type(self) -> &'static str {
        match self {
            Target::Labels => "label",
            Target::Annotations => "annotation",
        }
    }
}

/// cmdutil.GetResourcesAndPairs: resources first, then the pairs.
fn resources_and_pairs(
    args: &[String],
    pair_type: &str,
) -> Result<(Vec<String>, Vec<String>), String> {
    let mut resources = Vec::new();
    let mut pairs = Vec::new();
    for s in args {
        let pair = (s.contains('=') && !s.starts_with('=')) || (s.ends_with('-') && s != "-");
        if pair {
            pairs.push(s.clone());
        } else if !pairs.is_empty() {
            return Err(format!(
                "error: all resources must be specified before {pair_type} changes: {s}"
            ));
        } else {
            resources.push(s.clone());
        }
    }
    Ok((resources, pairs))
}

type Changes = (BTreeMap<String, String>, Vec<String>);

/// label.go's parseLabels.
fn parse_labels(pairs: &[String]) -> Result<Changes, String> {
    let mut set = BTreeMap::new();
    let mut remove = Vec::new();
    for p in pairs {
        if p.contains('=') {
            let parts: Vec<&str> = p.split('=').collect();
            if parts.len() != 2 {
                return Err(format!("error: invalid label spec: {p}"));
            }
            let problems = label_value_problems(parts[1]);
            if !problems.is_empty() {
                return Err(format!(
                    "error: invalid label value: \"{p}\": {}",
                    problems.join(";")
                ));
            }
            set.insert(parts[0].to_string(), parts[1].to_string());
        } else if let Some(k) = p.strip_suffix('-') {
            remove.push(k.to_string());
        } else {
            return Err(format!("error: unknown label spec: {p}"));
        }
    }
    if remove.iter().any(|r| set.contains_key(r)) {
        return Err("error: can not both modify and remove a label in the same command".into());
    }
    Ok((set, remove))
}

/// cmdutil.ParsePairs for annotations, then annotate's validateAnnotations.
fn parse_annotations(pairs: &[String]) -> Result<Changes, String> {
    let mut set = BTreeMap::new();
    let mut remove = Vec::new();
    let mut invalid = Vec::new();
    for p in pairs {
        if p.contains('=') && !p.starts_with('=') {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            set.insert(k.to_string(), v.to_string());
        } else if p.ends_with('-') && p != "-" {
            remove.push(p[..p.len() - 1].to_string());
        } else {
            invalid.push(p.clone());
        }
    }
    if !invalid.is_empty() {
        return Err(format!(
            "error: invalid annotation format: {}",
            invalid.join(", ")
        ));
    }
    let both: Vec<&str> = remove
        .iter()
        .filter(|r| set.contains_key(*r))
        .map(String::as_str)
        .collect();
    if !both.is_empty() {
        return Err(format!(
            "error: can not both modify and remove the following annotation(s) in the same command: {}",
            both.join(", ")
        ));
    }
    Ok((set, remove))
}

/// apimachinery's IsValidLabelValue.
fn label_value_problems(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    if v.len() > 63 {
        out.push("must be no more than 63 characters".to_string());
    }
    let b = v.as_bytes();
    let ok = b.is_empty()
        || (b[0].is_ascii_alphanumeric()
            && b[b.len() - 1].is_ascii_alphanumeric()
            && b.iter()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.')));
    if !ok {
        out.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".to_string());
    }
    out
}

/// The objects the requests name, or every object of their kinds that the
/// selector picks; errors go to `out`.
fn fetch_objects(
    cluster: &Cluster,
    ctx: &Context<'_>,
    requests: &[ResourceArg],
    namespace: &str,
    all_namespaces: bool,
    selector: Option<&Selector>,
    out: &mut CommandOutput,
) -> Vec<Object> {
    let mut objects: Vec<Object> = Vec::new();
    for r in requests {
        let ns = if r.kind.namespaced() { namespace } else { "" };
        if r.names.is_empty() {
            let scope = if all_namespaces || !r.kind.namespaced() {
                None
            } else {
                Some(ns)
            };
            match crate::context::list(cluster, ctx, r.kind, scope) {
                Ok(list) => {
                    let empty = BTreeMap::new();
                    objects.extend(list.into_iter().filter(|o| {
                        selector
                            .is_none_or(|s| s.matches(o.meta().labels.as_ref().unwrap_or(&empty)))
                    }))
                }
                Err(e) => out.fail(errors::render(&e, None)),
            }
        } else {
            for name in &r.names {
                match crate::context::get(cluster, ctx, r.kind, ns, name) {
                    Ok(o) => objects.push(o),
                    Err(e) => out.fail(errors::render(&e, None)),
                }
            }
        }
    }
    objects
}

/// `--list`: an object's labels or annotations, under a heading unless it is the
/// only object asked for.
fn list_pairs(obj: &Object, target: Target, one: bool, out: &mut CommandOutput) {
    let kind = obj.kind();
    let name = obj.name();
    let indent = if one {
        ""
    } else {
        out.out_line(format!(
            "Listing {} for {}.{}/{name}:",
            match target {
                Target::Labels => "labels",
                Target::Annotations => "annotations",
            },
            kind.as_str(),
            kind.group()
        ));
        " "
    };
    // Go prints the map in random order; sorted here.
    for (k, v) in &current(obj, target) {
        out.out_line(format!("{indent}{k}={v}"));
    }
}

/// Sets and removes the pairs of one object and patches it when that changes it;
/// prints `KIND/NAME labeled` (or annotated, ...). An error is returned, to be
/// printed after every object's line.
fn update_object(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    obj: Object,
    target: Target,
    changes: &Changes,
    overwrite: bool,
    out: &mut CommandOutput,
) -> Result<(), String> {
    let (set, remove) = changes;
    let kind = obj.kind();
    let name = obj.name().to_string();
    let before = current(&obj, target);
    if target == Target::Labels {
        for r in remove {
            if !before.contains_key(r) {
                out.out_line(format!("label \"{r}\" not found."));
            }
        }
    }
    if !overwrite {
        check_no_overwrites(&before, set, target)?;
    }
    let mut after = before.clone();
    for (k, v) in set {
        after.insert(k.clone(), v.clone());
    }
    for r in remove {
        after.remove(r);
    }
    let mut updated = obj.clone();
    {
        let meta = updated.meta_mut();
        let map = match target {
            Target::Labels => &mut meta.labels,
            Target::Annotations => &mut meta.annotations,
        };
        *map = if after.is_empty() && map.is_none() {
            None
        } else {
            Some(after.clone())
        };
    }
    let verb = match target {
        Target::Annotations => "annotated",
        Target::Labels => {
            // label.go's updateDataChangeMsg compares the object's JSON before and after.
            let old = serde_json::to_string(&obj.to_json()).unwrap_or_default();
            let new = serde_json::to_string(&updated.to_json()).unwrap_or_default();
            if old == new {
                "not labeled"
            } else if !overwrite && new.len() < old.len() {
                "unlabeled"
            } else {
                "labeled"
            }
        }
    };
    if updated != obj {
        if let Err(e) = crate::cmd::rollout::patch(cluster, ctx, updated, None) {
            return Err(errors::render(&e, None));
        }
    }
    out.out_line(format!("{}/{name} {verb}", kind.qualified_singular()));
    Ok(())
}

/// The checks of the arguments before any request: the resources, the pairs to
/// set and remove, and the selector.
fn check_args(
    parsed: &LabelArgs,
    target: Target,
) -> Result<(Vec<String>, Changes, Option<Selector>), String> {
    let words: Vec<String> = parsed.words.iter().skip(1).cloned().collect();
    let (resources, pairs) = resources_and_pairs(&words, target.pair_type())?;
    let (set, remove) = match target {
        Target::Labels => parse_labels(&pairs),
        Target::Annotations => parse_annotations(&pairs),
    }?;
    if parsed.all && parsed.selector.is_some() {
        return Err("error: cannot set --all and --selector at the same time".into());
    }
    if resources.is_empty() {
        return Err("error: one or more resources must be specified as <resource> <name> or <resource>/<name>".into());
    }
    if set.is_empty() && remove.is_empty() && !parsed.list {
        return Err(format!(
            "error: at least one {} update is required",
            target.pair_type()
        ));
    }
    let selector = match parsed.selector.as_deref().map(Selector::parse) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(e)) => return Err(format!("error: {e}")),
    };
    Ok((resources, (set, remove), selector))
}

pub(crate) fn run(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    args: &[String],
    target: Target,
) -> CommandOutput {
    let command = target.command();
    let parsed = match LabelArgs::try_parse_from(args) {
        Ok(p) => p,
        Err(e) => return clap_error(e, Some(command), args),
    };
    let (resources, changes, selector) = match check_args(&parsed, target) {
        Ok(x) => x,
        Err(e) => return CommandOutput::error(e),
    };
    let requests = match parse_resource_args(&resources) {
        Ok(r) => r,
        Err(e) => return CommandOutput::error(e),
    };
    let namespace = parsed
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let any_names = requests.iter().any(|r| !r.names.is_empty());
    if any_names && selector.is_some() {
        return CommandOutput::error("error: name cannot be provided when a selector is specified");
    }
    if !any_names && selector.is_none() && !parsed.all {
        return CommandOutput::error("error: resource(s) were provided, but no name was specified");
    }
    let mut out = CommandOutput::new();
    // The builder's single-item test: one resource named once, not by selector.
    let one = requests.len() == 1
        && requests[0].names.len() == 1
        && !resources.iter().any(|a| a.contains(','));
    let objects = fetch_objects(
        cluster,
        ctx,
        &requests,
        &namespace,
        parsed.all_namespaces,
        selector.as_ref(),
        &mut out,
    );
    let mut failures: Vec<String> = Vec::new();
    for obj in objects {
        if parsed.list {
            list_pairs(&obj, target, one, &mut out);
            continue;
        }
        if let Err(e) = update_object(
            cluster,
            ctx,
            obj,
            target,
            &changes,
            parsed.overwrite,
            &mut out,
        ) {
            failures.push(e);
        }
    }
    for f in failures {
        out.fail(f);
    }
    out
}

fn current(obj: &Object, target: Target) -> BTreeMap<String, String> {
    let meta = obj.meta();
    match target {
        Target::Labels => meta.labels.clone(),
        Target::Annotations => meta.annotations.clone(),
    }
    .unwrap_or_default()
}

/// label.go's validateNoOverwrites and annotate.go's validateNoAnnotationOverwrites.
fn check_no_overwrites(
    before: &BTreeMap<String, String>,
    set: &BTreeMap<String, String>,
    target: Target,
) -> Result<(), String> {
    let mut found = Vec::new();
    for k in set.keys() {
        if target == Target::Annotations && k == "kubernetes.io/change-cause" {
            continue;
        }
        if let Some(v) = before.get(k) {
            found.push(format!("'{k}' already has a value ({v})"));
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    Err(match target {
        Target::Labels if found.len() == 1 => {
            format!("error: {}, and --overwrite is false", found[0])
        }
        Target::Labels => format!(
            "error: [{}]",
            found
                .iter()
                .map(|f| format!("{f}, and --overwrite is false"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Target::Annotations => format!(
            "error: --overwrite is false but found the following declared annotation(s): {}",
            found.join("; ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn resources_come_before_pairs() {
        let (r, p) = resources_and_pairs(&strings(&["pod", "x", "a=b", "c-"]), "label").unwrap();
        assert_eq!(r, strings(&["pod", "x"]));
        assert_eq!(p, strings(&["a=b", "c-"]));
        assert_eq!(
            resources_and_pairs(&strings(&["pod", "a=b", "x"]), "label").unwrap_err(),
            "error: all resources must be specified before label changes: x"
        );
    }

    #[test]
    fn label_values_are_validated() {
        assert!(parse_labels(&strings(&["a=ok-value_1.2"])).is_ok());
        assert!(parse_labels(&strings(&["a="])).is_ok());
        assert!(parse_labels(&strings(&["a=-bad"])).is_err());
        assert!(parse_labels(&strings(&["a=b=c"])).is_err());
        assert!(parse_labels(&strings(&["a=b", "a-"])).is_err());
    }

    #[test]
    fn overwrites_are_refused_without_the_flag() {
        let before = BTreeMap::from([("app".to_string(), "web".to_string())]);
        let set = BTreeMap::from([("app".to_string(), "api".to_string())]);
        assert_eq!(
            check_no_overwrites(&before, &set, Target::Labels).unwrap_err(),
            "error: 'app' already has a value (web), and --overwrite is false"
        );
        assert_eq!(
            check_no_overwrites(&before, &set, Target::Annotations).unwrap_err(),
            "error: --overwrite is false but found the following declared annotation(s): 'app' already has a value (web)"
        );
    }
}
