//! `kubectl delete`.

use crate::args::DeleteArgs;
use crate::cmd::apply;
use crate::cmd::get::parse_resource_args;
use crate::context::{CommandOutput, Context};
use crate::errors;
use crate::selector::Selector;
use std::collections::BTreeMap;
use warehouse_sim::apiserver::request::Body;
use warehouse_sim::time::SimDuration;
use warehouse_sim::{Cluster, DeleteOptions, Kind, ObjectKey, Propagation, StatusReason};

/// The longest a delete waits for its objects to be gone when `--timeout` is 0,
/// kubectl's default. kubectl then waits up to a week (a learner would press
/// Ctrl-C long before); the simulator stops after ten simulated minutes, far past
/// any usual grace period: an object still there by then waits for something
/// nobody will do (a pod on a zone that is switched off, a finalizer).
const MAX_WAIT: SimDuration = SimDuration::secs(600);

struct Target {
    kind: Kind,
    namespace: String,
    name: String,
    source: Option<String>,
}

/// How each target is deleted and reported.
struct Deletion {
    /// `--grace-period` after `--now` and `--force`; negative: the object's own.
    grace: i64,
    propagation: Propagation,
    /// `-o name`.
    name_only: bool,
    ignore_not_found: bool,
}

/// The grace period `--grace-period`, `--now` and `--force` make together, checked
/// as kubectl checks them; warns when the deletion is immediate.
fn grace_period(args: &DeleteArgs, out: &mut CommandOutput) -> Result<i64, String> {
    let mut grace = args.grace_period;
    if args.now {
        if grace != -1 {
            return Err("error: --now and --grace-period cannot be specified together".into());
        }
        grace = 1;
    }
    if grace == 0 && !args.force {
        grace = 1;
    }
    if args.force && grace < 0 {
        grace = 0;
    }
    if args.force && grace > 0 {
        return Err(
            "error: --force and --grace-period greater than 0 cannot be specified together".into(),
        );
    }
    if grace == 0 && args.force {
        out.err_line("Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.");
    }
    Ok(grace)
}

/// The objects of the manifests `-f` reads.
fn targets_from_files(
    ctx: &Context,
    args: &DeleteArgs,
    namespace: &str,
) -> Result<Vec<Target>, String> {
    if !args.args.is_empty() {
        return Err("error: when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well".into());
    }
    let items = apply::read_all(ctx, &args.filenames)?;
    let mut targets = Vec::new();
    for item in items {
        let kind = item.object.kind();
        let ns = match item.object.namespace() {
            "" => namespace.to_string(),
            ns => ns.to_string(),
        };
        targets.push(Target {
            kind,
            namespace: ns,
            name: item.object.name().to_string(),
            source: Some(item.source),
        });
    }
    Ok(targets)
}

/// The objects the resource arguments name, or those a selector or `--all` picks
/// from their lists.
fn targets_from_args(
    cluster: &Cluster,
    ctx: &Context,
    args: &DeleteArgs,
    namespace: &str,
    by_query: bool,
) -> Result<Vec<Target>, String> {
    if args.args.is_empty() {
        return Err("error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'".into());
    }
    let requests = parse_resource_args(&args.args)?;
    let any_names = requests.iter().any(|r| !r.names.is_empty());
    let selector = match args.selector.as_deref().map(Selector::parse) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(e)) => return Err(format!("error: {e}")),
    };
    if any_names && (by_query || args.all) {
        return Err("error: name cannot be provided when a selector is specified".into());
    }
    if !any_names && !by_query && !args.all {
        return Err("error: resource(s) were provided, but no name was specified".into());
    }
    let empty = BTreeMap::new();
    let mut targets = Vec::new();
    for req in requests {
        if req.names.is_empty() {
            // Deleting by selector or --all lists first, through etcd.
            let allowed = crate::context::authorize(cluster, ctx, "list", req.kind, namespace, "")
                .and_then(|()| cluster.check_storage());
            if let Err(e) = allowed {
                return Err(errors::render(&e, None));
            }
            // The field selector is checked by the kind's registry, as for `get`.
            let fields = crate::cmd::getfmt::check_field_selector(
                args.field_selector.as_deref(),
                args.selector.as_deref(),
                &[req.kind],
            )?;
            for o in cluster.list(req.kind, Some(namespace)) {
                let labels = o.meta().labels.as_ref().unwrap_or(&empty);
                if selector.as_ref().is_none_or(|s| s.matches(labels))
                    && fields.as_ref().is_none_or(|f| f.matches(&o))
                {
                    targets.push(Target {
                        kind: req.kind,
                        namespace: o.namespace().to_string(),
                        name: o.name().to_string(),
                        source: None,
                    });
                }
            }
        } else {
            for name in req.names {
                targets.push(Target {
                    kind: req.kind,
                    namespace: namespace.to_string(),
                    name,
                    source: None,
                });
            }
        }
    }
    Ok(targets)
}

/// Sends a delete for each target and prints kubectl's line for it; returns what
/// was deleted, by uid: a new object of the same name is not waited for.
fn delete_targets(
    cluster: &mut Cluster,
    ctx: &Context,
    targets: Vec<Target>,
    how: &Deletion,
    out: &mut CommandOutput,
) -> Vec<(Kind, String, String, String)> {
    let grace = how.grace;
    let mut deleted: Vec<(Kind, String, String, String)> = Vec::new();
    for t in targets {
        let options = DeleteOptions {
            grace_period_seconds: (grace >= 0).then_some(grace),
            propagation: how.propagation,
        };
        let body = Body::Delete {
            key: ObjectKey::new(t.kind, &t.namespace, &t.name),
            options: Some(options),
        };
        let result = crate::context::send(cluster, ctx, body);
        match result {
            Ok(object) => {
                deleted.push((
                    t.kind,
                    t.namespace.clone(),
                    t.name.clone(),
                    object.meta().uid.clone().unwrap_or_default(),
                ));
                let kind = t.kind.qualified_singular();
                if how.name_only {
                    out.out_line(format!("{kind}/{}", t.name));
                } else {
                    let operation = if grace == 0 {
                        "force deleted"
                    } else {
                        "deleted"
                    };
                    let place = if t.kind.namespaced() {
                        format!(" from {} namespace", t.namespace)
                    } else {
                        String::new()
                    };
                    out.out_line(format!("{kind} \"{}\" {operation}{place}", t.name));
                }
            }
            Err(e) if e.reason == StatusReason::NotFound && how.ignore_not_found => {}
            Err(e) => {
                let context = t.source.as_deref().map(|s| ("deleting", s));
                out.fail(errors::render(&e, context));
            }
        }
    }
    deleted
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context, args: DeleteArgs) -> CommandOutput {
    let name_only = match args.output.as_deref() {
        None | Some("") => false,
        Some("name") => true,
        Some(o) => {
            return CommandOutput::error(format!(
                "error: unexpected -o output mode: {o}. We only support '-o name'"
            ))
        }
    };
    let mut out = CommandOutput::new();
    let propagation = match parse_cascade(&args.cascade, &mut out) {
        Ok(p) => p,
        Err(e) => return CommandOutput::error(e),
    };
    if args.all && args.selector.is_some() {
        return CommandOutput::error("error: cannot set --all and --selector at the same time");
    }
    if args.all && args.field_selector.is_some() {
        return CommandOutput::error(
            "error: cannot set --all and --field-selector at the same time",
        );
    }
    let grace = match grace_period(&args, &mut out) {
        Ok(g) => g,
        Err(e) => return CommandOutput::error(e),
    };
    let namespace = args
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let by_query = args.selector.is_some() || args.field_selector.is_some();
    let ignore_not_found = args.ignore_not_found || args.all || by_query;
    let timeout = match crate::cmd::wait::parse_timeout(&args.timeout) {
        Ok(t) => t,
        Err(e) => {
            return CommandOutput::error(e.replace("kubectl wait --help", "kubectl delete --help"))
        }
    };
    let targets = if !args.filenames.is_empty() {
        targets_from_files(ctx, &args, &namespace)
    } else {
        targets_from_args(cluster, ctx, &args, &namespace, by_query)
    };
    let targets = match targets {
        Ok(t) => t,
        Err(e) => return CommandOutput::error(e),
    };
    // kubectl counts what it set out to delete, before the requests.
    let found = targets.len();
    let how = Deletion {
        grace,
        propagation,
        name_only,
        ignore_not_found,
    };
    let deleted = delete_targets(cluster, ctx, targets, &how, &mut out);
    if found == 0 {
        out.out_line("No resources found");
        return out;
    }
    if args.wait {
        wait_until_gone(cluster, ctx, &deleted, timeout, &mut out);
    }
    out
}

/// kubectl's wait after a delete (`--wait=true`, its default): simulated time runs
/// a second at a time until every deleted object is gone, or has been replaced by
/// one with another uid; a wait it may not make (forbidden) is not an error.
fn wait_until_gone(
    cluster: &mut Cluster,
    ctx: &Context,
    deleted: &[(Kind, String, String, String)],
    timeout: SimDuration,
    out: &mut CommandOutput,
) {
    let limit = if timeout == SimDuration::ZERO {
        MAX_WAIT
    } else {
        crate::context::bounded_wait(timeout, out)
    };
    let deadline = cluster.now() + limit;
    for (kind, namespace, name, uid) in deleted {
        loop {
            if crate::context::authorize(cluster, ctx, "get", *kind, namespace, name).is_err() {
                break;
            }
            let present = match cluster.get(*kind, namespace, name) {
                Ok(o) => o.meta().uid.as_deref().unwrap_or_default() == uid,
                Err(_) => false,
            };
            if !present {
                break;
            }
            if cluster.now() >= deadline {
                out.fail(format!(
                    "error: timed out waiting for the condition on {}/{name}",
                    kind.plural()
                ));
                return;
            }
            cluster.advance(SimDuration::secs(1));
        }
    }
}

/// kubectl's `parseCascadingFlag`: `background`, `foreground` or `orphan`; the old
/// boolean values still work, with a warning.
fn parse_cascade(value: &str, out: &mut CommandOutput) -> Result<Propagation, String> {
    let boolean = match value {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    };
    match boolean {
        Some(b) => {
            let replacement = if b { "background" } else { "orphan" };
            out.err_line(format!(
                "warning: --cascade={value} is deprecated (boolean value) and can be replaced with --cascade={replacement}."
            ));
            Ok(if b {
                Propagation::Background
            } else {
                Propagation::Orphan
            })
        }
        None => match value {
            "background" => Ok(Propagation::Background),
            "foreground" => Ok(Propagation::Foreground),
            "orphan" => Ok(Propagation::Orphan),
            _ => Err(format!(
                "error: invalid cascade value ({value}). Must be \"background\", \"foreground\", or \"orphan\""
            )),
        },
    }
}
