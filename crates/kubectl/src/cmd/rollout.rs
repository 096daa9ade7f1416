//! `kubectl rollout status|history|undo|restart|pause|resume` for Deployments, and
//! `status`, `history`, `undo` and `restart` for StatefulSets and DaemonSets
//! (k8s.io/kubectl/pkg/cmd/rollout and pkg/polymorphichelpers: the status viewers,
//! history viewers and rollbackers of the three kinds, and the object pauser,
//! resumer and restarter). As upstream, a rollback is made by the client: it copies
//! the chosen ReplicaSet's template back into the Deployment, or sends the chosen
//! ControllerRevision's patch to the StatefulSet or DaemonSet. Pausing or resuming
//! anything but a Deployment fails with the pauser's words.
//!
//! Simplification: `rollout status` waits by advancing simulated time one second at
//! a time (at most an hour when no `--timeout` is given) and prints each distinct
//! waiting line once, where kubectl prints one per watch event.

use crate::args::clap_error;
use crate::cmd::apply::DryRun;
use crate::cmd::get::parse_resource_args;
use crate::cmd::stateful_set;
use crate::context::{CommandOutput, Context};
use crate::errors;
use clap::{ArgAction, Parser};
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::PodTemplateSpec;
use std::collections::BTreeMap;
use warehouse_sim::apiserver::request::Body;
use warehouse_sim::controllers::deployment::{
    equal_ignore_hash, revision_of, ANNOTATIONS_NOT_COPIED, REVISION,
};
use warehouse_sim::controllers::selector_matches;
use warehouse_sim::StableSort;
use warehouse_sim::{parse_duration, Cluster, Kind, Object, SimDuration};

/// The longest `rollout status` waits without `--timeout` (kubectl would wait forever).
const MAX_WAIT: SimDuration = SimDuration::secs(3600);
use stateful_set::CHANGE_CAUSE;
const RESTARTED_AT: &str = "kubectl.kubernetes.io/restartedAt";

#[derive(Parser, Debug)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct RolloutArgs {
    /// `rollout`, the subcommand, then TYPE NAME or TYPE/NAME.
    #[arg(allow_hyphen_values = false)]
    words: Vec<String>,
    #[arg(short = 'n', long = "namespace")]
    namespace: Option<String>,
    /// Pin to a specific revision (history: show its template; status: wait for it).
    #[arg(long = "revision", allow_negative_numbers = true)]
    revision: Option<i64>,
    /// The revision to roll back to. Default to 0 (last revision).
    #[arg(long = "to-revision", allow_negative_numbers = true)]
    to_revision: Option<i64>,
    /// Watch the status of the rollout until it's done.
    #[arg(short = 'w', long = "watch", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    watch: Option<bool>,
    /// The length of time to wait before ending watch, zero means never.
    #[arg(long = "timeout")]
    timeout: Option<String>,
    /// undo: "none", "server", or "client".
    #[arg(long = "dry-run", num_args = 0..=1, require_equals = true, default_missing_value = "client")]
    dry_run: Option<String>,
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let parsed = match RolloutArgs::try_parse_from(args) {
        Ok(p) => p,
        Err(e) => return clap_error(e, Some("rollout"), args),
    };
    let words: Vec<String> = parsed.words.iter().skip(1).cloned().collect();
    let Some((sub, rest)) = words.split_first() else {
        return CommandOutput::error(
            "error: kubectl rollout needs a subcommand: history, pause, restart, resume, status or undo\nSee 'kubectl rollout -h' for help and examples",
        );
    };
    let sub = sub.as_str();
    let allowed: &[&str] = match sub {
        "status" => &["revision", "watch", "timeout"],
        "history" => &["revision"],
        "undo" => &["to-revision", "dry-run"],
        "restart" | "pause" | "resume" => &[],
        other => {
            return CommandOutput::error(format!(
                "error: unknown command \"{other}\" for \"kubectl rollout\"\nRun 'kubectl rollout --help' for usage."
            ))
        }
    };
    for (flag, given) in [
        ("revision", parsed.revision.is_some()),
        ("to-revision", parsed.to_revision.is_some()),
        ("watch", parsed.watch.is_some()),
        ("timeout", parsed.timeout.is_some()),
        ("dry-run", parsed.dry_run.is_some()),
    ] {
        if given && !allowed.contains(&flag) {
            return CommandOutput::error(format!(
                "error: unknown flag: --{flag}\nSee 'kubectl rollout {sub} --help' for usage."
            ));
        }
    }
    let dry_run = match DryRun::parse(parsed.dry_run.as_deref()) {
        Ok(d) => d,
        Err(e) => return CommandOutput::error(e),
    };
    if parsed.revision.is_some_and(|r| r < 0) && sub == "history" {
        return CommandOutput::error(format!(
            "error: revision must be a positive integer: {}",
            parsed.revision.unwrap_or(0)
        ));
    }
    let namespace = parsed
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let targets = match targets(rest, sub) {
        Ok(t) => t,
        Err(e) => return CommandOutput::error(e),
    };
    let mut out = CommandOutput::new();
    for (kind, name) in targets {
        match sub {
            "status" => status(cluster, ctx, kind, &namespace, &name, &parsed, &mut out),
            _ if !handles(kind, sub) => {
                not_supported(cluster, ctx, kind, &namespace, &name, sub, &mut out)
            }
            "restart" if kind != Kind::Deployment => {
                restart_template(cluster, ctx, kind, &namespace, &name, &mut out)
            }
            "history" if kind != Kind::Deployment => revision_history(
                cluster,
                ctx,
                kind,
                &namespace,
                &name,
                parsed.revision.unwrap_or(0),
                &mut out,
            ),
            "undo" if kind != Kind::Deployment => revision_undo(
                cluster,
                ctx,
                (kind, &namespace, &name),
                parsed.to_revision.unwrap_or(0),
                dry_run,
                &mut out,
            ),
            "history" => history(
                cluster,
                ctx,
                &namespace,
                &name,
                parsed.revision.unwrap_or(0),
                &mut out,
            ),
            "undo" => undo(
                cluster,
                ctx,
                &namespace,
                &name,
                parsed.to_revision.unwrap_or(0),
                dry_run,
                &mut out,
            ),
            _ => mutate(cluster, ctx, &namespace, &name, sub, &mut out),
        }
    }
    out
}

/// A write as kubectl makes it with a PATCH: authorized for the `patch` verb (on a
/// subresource such as `scale` when given), then applied.
pub(crate) fn patch(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    object: Object,
    subresource: Option<&str>,
) -> Result<Object, warehouse_sim::ApiError> {
    let body = Body::Patch {
        object,
        subresource: subresource.map(str::to_string),
    };
    crate::context::send(cluster, ctx, body)
}

/// Whether `rollout SUB` works on `kind`: every subcommand on Deployments, all but
/// `pause` and `resume` on StatefulSets and DaemonSets.
fn handles(kind: Kind, sub: &str) -> bool {
    kind == Kind::Deployment
        || (matches!(kind, Kind::StatefulSet | Kind::DaemonSet)
            && matches!(sub, "status" | "restart" | "history" | "undo"))
}

/// The workloads named on the command line (`deployment web`, `sts/web`): every
/// subcommand takes Deployments; all but `pause` and `resume` take StatefulSets and
/// DaemonSets.
fn targets(rest: &[String], sub: &str) -> Result<Vec<(Kind, String)>, String> {
    if rest.is_empty() {
        return Err("error: required resource not specified".into());
    }
    let resources = parse_resource_args(rest)?;
    let mut names = Vec::new();
    for r in resources {
        let supported = handles(r.kind, sub);
        if !supported {
            // The polymorphic helpers' words for kinds without a rollout.
            let group_kind = if r.kind.group().is_empty() {
                r.kind.as_str().to_string()
            } else {
                format!("{}.{}", r.kind.as_str(), r.kind.group())
            };
            let refusal = match sub {
                "status" => Some(format!(
                    "error: no status viewer has been implemented for {group_kind}"
                )),
                "history" => Some(format!(
                    "error: no history viewer has been implemented for \"{group_kind}\""
                )),
                "undo" => Some(format!(
                    "error: no rollbacker has been implemented for \"{group_kind}\""
                )),
                // pause, resume and restart refuse object by object, once read.
                _ => None,
            };
            if let Some(e) = refusal {
                return Err(e);
            }
        }
        if r.names.is_empty() {
            return Err("error: required resource not specified".into());
        }
        names.extend(r.names.into_iter().map(|n| (r.kind, n)));
    }
    Ok(names)
}

fn get_deployment(
    cluster: &Cluster,
    ctx: &Context<'_>,
    namespace: &str,
    name: &str,
) -> Result<Deployment, String> {
    match crate::context::get(cluster, ctx, Kind::Deployment, namespace, name) {
        Ok(Object::Deployment(d)) => Ok(*d),
        Ok(_) => Err(format!("error: {name} is not a deployment")),
        Err(e) => Err(errors::render(&e, None)),
    }
}

/// The Deployment's ReplicaSets (those it controls), as kubectl's
/// `deploymentutil.GetAllReplicaSets` finds them.
fn replica_sets(
    cluster: &Cluster,
    ctx: &Context<'_>,
    d: &Deployment,
) -> Result<Vec<ReplicaSet>, String> {
    let ns = d.metadata.namespace.clone().unwrap_or_default();
    let uid = d.metadata.uid.clone().unwrap_or_default();
    let list = crate::context::list(cluster, ctx, Kind::ReplicaSet, Some(&ns))
        .map_err(|e| errors::render(&e, None))?;
    Ok(list
        .into_iter()
        .filter_map(|o| match o {
            Object::ReplicaSet(rs) => Some(*rs),
            _ => None,
        })
        .filter(|rs| {
            rs.metadata
                .owner_references
                .iter()
                .flatten()
                .any(|r| r.controller == Some(true) && r.uid == uid)
        })
        .collect())
}

/// `DeploymentStatusViewer.Status`: the line to print and whether the rollout is done.
fn status_line(d: &Deployment, revision: i64) -> Result<(String, bool), String> {
    let name = d.metadata.name.clone().unwrap_or_default();
    if revision > 0 {
        let current = d
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(REVISION))
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(0);
        if revision != current {
            return Err(format!(
                "error: desired revision ({revision}) is different from the running revision ({current})"
            ));
        }
    }
    let status = d.status.clone().unwrap_or_default();
    if d.metadata.generation.unwrap_or(0) > status.observed_generation.unwrap_or(0) {
        return Ok((
            "Waiting for deployment spec update to be observed...".into(),
            false,
        ));
    }
    let timed_out = status.conditions.iter().flatten().any(|c| {
        c.type_.as_deref() == Some("Progressing")
            && c.reason.as_deref() == Some("ProgressDeadlineExceeded")
    });
    if timed_out {
        return Err(format!(
            "error: deployment \"{name}\" exceeded its progress deadline"
        ));
    }
    let want = d.spec.replicas.unwrap_or(1);
    let updated = status.updated_replicas.unwrap_or(0);
    let replicas = status.replicas.unwrap_or(0);
    let available = status.available_replicas.unwrap_or(0);
    if updated < want {
        return Ok((
            format!("Waiting for deployment \"{name}\" rollout to finish: {updated} out of {want} new replicas have been updated..."),
            false,
        ));
    }
    if replicas > updated {
        return Ok((
            format!(
                "Waiting for deployment \"{name}\" rollout to finish: {} old replicas are pending termination...",
                replicas - updated
            ),
            false,
        ));
    }
    if available < updated {
        return Ok((
            format!("Waiting for deployment \"{name}\" rollout to finish: {available} of {updated} updated replicas are available..."),
            false,
        ));
    }
    Ok((
        format!("deployment \"{name}\" successfully rolled out"),
        true,
    ))
}

/// `DaemonSetStatusViewer.Status`.
fn daemon_set_status(
    cluster: &Cluster,
    ctx: &Context<'_>,
    namespace: &str,
    name: &str,
) -> Result<(String, bool), String> {
    let ds = match crate::context::get(cluster, ctx, Kind::DaemonSet, namespace, name) {
        Ok(Object::DaemonSet(ds)) => ds,
        Ok(_) => return Err(format!("error: {name} is not a daemon set")),
        Err(e) => return Err(errors::render(&e, None)),
    };
    let strategy = ds
        .spec
        .update_strategy
        .as_ref()
        .and_then(|s| s.type_.as_deref())
        .unwrap_or("RollingUpdate");
    if strategy != "RollingUpdate" {
        return Err(
            "error: rollout status is only available for RollingUpdate strategy type".into(),
        );
    }
    let status = ds.status.clone().unwrap_or_default();
    if ds.metadata.generation.unwrap_or(0) > status.observed_generation.unwrap_or(0) {
        return Ok((
            "Waiting for daemon set spec update to be observed...".into(),
            false,
        ));
    }
    let desired = status.desired_number_scheduled;
    let updated = status.updated_number_scheduled.unwrap_or(0);
    let available = status.number_available.unwrap_or(0);
    if updated < desired {
        return Ok((
            format!("Waiting for daemon set \"{name}\" rollout to finish: {updated} out of {desired} new pods have been updated..."),
            false,
        ));
    }
    if available < desired {
        return Ok((
            format!("Waiting for daemon set \"{name}\" rollout to finish: {available} of {desired} updated pods are available..."),
            false,
        ));
    }
    Ok((
        format!("daemon set \"{name}\" successfully rolled out"),
        true,
    ))
}

/// The object pauser, resumer or restarter on a kind it does not handle: the
/// object is read (a missing one is the server's NotFound), then refused with the
/// helper's words.
fn not_supported(
    cluster: &Cluster,
    ctx: &Context<'_>,
    kind: Kind,
    namespace: &str,
    name: &str,
    sub: &str,
    out: &mut CommandOutput,
) {
    if let Err(e) = crate::context::get(cluster, ctx, kind, namespace, name) {
        return out.fail(errors::render(&e, None));
    }
    let what = match sub {
        "pause" => "pausing",
        "resume" => "resuming",
        _ => "restarting",
    };
    out.fail(format!(
        "error: {} \"{name}\" {what} is not supported",
        kind.qualified_plural()
    ));
}

/// Two restarts within the same second stamp the same time: kubectl finds nothing
/// to patch and says so.
fn restart_too_soon(name: &str) -> String {
    format!("error: failed to create patch for {name}: if restart has already been triggered within the past second, please wait before attempting to trigger another")
}

/// `rollout restart` of a DaemonSet or StatefulSet (the object restarter): the
/// restartedAt stamp on its pod template.
fn restart_template(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    kind: Kind,
    namespace: &str,
    name: &str,
    out: &mut CommandOutput,
) {
    let live = match crate::context::get(cluster, ctx, kind, namespace, name) {
        Ok(o) => o,
        Err(e) => return out.fail(errors::render(&e, None)),
    };
    let now = cluster.now().to_k8s().0.to_string();
    let stamp = |t: &mut PodTemplateSpec| {
        t.metadata
            .get_or_insert_with(Default::default)
            .annotations
            .get_or_insert_with(BTreeMap::new)
            .insert(RESTARTED_AT.into(), now.clone());
    };
    let updated = match &live {
        Object::DaemonSet(ds) => {
            let mut ds = ds.clone();
            stamp(&mut ds.spec.template);
            Object::DaemonSet(ds)
        }
        Object::Other(_) if kind == Kind::StatefulSet => {
            let stamped = stateful_set::template(&live).and_then(|before| {
                let mut t = before.clone();
                stamp(&mut t);
                Ok(if t == before {
                    live.clone()
                } else {
                    stateful_set::with_template(&live, t)?
                })
            });
            match stamped {
                Ok(o) => o,
                Err(e) => return out.fail(e),
            }
        }
        _ => return,
    };
    if updated == live {
        return out.fail(restart_too_soon(name));
    }
    match patch(cluster, ctx, updated, None) {
        Ok(_) => out.out_line(format!("{}/{name} restarted", kind.qualified_singular())),
        Err(e) => out.fail(format!("error: failed to patch: {}", e.message)),
    }
}

/// `appendWarning`: the first pod of the Deployment that cannot be scheduled, or whose
/// container waits on an image or a crash loop, adds its reason to a waiting line.
fn with_warning(cluster: &Cluster, ctx: &Context<'_>, d: &Deployment, line: String) -> String {
    let ns = d.metadata.namespace.clone().unwrap_or_default();
    let Ok(pods) = crate::context::list_refs(cluster, ctx, Kind::Pod, Some(&ns)) else {
        return line;
    };
    let none = BTreeMap::new();
    for o in pods {
        let Object::Pod(p) = o else {
            continue;
        };
        if !selector_matches(
            &d.spec.selector,
            p.metadata.labels.as_ref().unwrap_or(&none),
        ) {
            continue;
        }
        let Some(status) = p.status.as_ref() else {
            continue;
        };
        for c in status.conditions.iter().flatten() {
            if c.type_ == "PodScheduled"
                && c.status == "False"
                && c.reason.as_deref() == Some("Unschedulable")
            {
                return format!(
                    "{line} (Warning: {})",
                    c.message.clone().unwrap_or_default()
                );
            }
        }
        for cs in status.container_statuses.iter().flatten() {
            let Some(w) = cs.state.as_ref().and_then(|s| s.waiting.as_ref()) else {
                continue;
            };
            let reason = w.reason.clone().unwrap_or_default();
            if [
                "ImagePullBackOff",
                "ErrImagePull",
                "CrashLoopBackOff",
                "CreateContainerConfigError",
                "CreateContainerError",
            ]
            .contains(&reason.as_str())
            {
                return format!(
                    "{line} (Warning: {reason} - {})",
                    w.message.clone().unwrap_or_default()
                );
            }
        }
    }
    line
}

#[allow(clippy::too_many_arguments)]
fn status(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    kind: Kind,
    namespace: &str,
    name: &str,
    args: &RolloutArgs,
    out: &mut CommandOutput,
) {
    let watch = args.watch.unwrap_or(true);
    let timeout = match args.timeout.as_deref() {
        None => None,
        Some(t) => match parse_duration(t) {
            Ok(d) if d == SimDuration::ZERO => None,
            Ok(d) => Some(d),
            Err(_) => {
                out.fail(format!("error: invalid argument \"{t}\" for \"--timeout\" flag: time: invalid duration \"{t}\""));
                return;
            }
        },
    };
    let limit = crate::context::bounded_wait(timeout.unwrap_or(MAX_WAIT), out);
    let start = cluster.now();
    let mut printed = std::collections::BTreeSet::new();
    // The answer changes only with a write: while the store's revision stands
    // still, a second of waiting reads nothing again.
    let mut seen: Option<u64> = None;
    loop {
        if seen == Some(cluster.revision()) {
            if cluster.now().since(start) >= limit {
                return out.fail("error: timed out waiting for the condition");
            }
            cluster.advance(SimDuration::secs(1));
            continue;
        }
        seen = Some(cluster.revision());
        let current = if kind == Kind::DaemonSet {
            daemon_set_status(cluster, ctx, namespace, name)
        } else if kind == Kind::StatefulSet {
            crate::context::get(cluster, ctx, kind, namespace, name)
                .map_err(|e| errors::render(&e, None))
                .and_then(|o| stateful_set::status_line(&stateful_set::defaulted(&o)))
        } else {
            get_deployment(cluster, ctx, namespace, name).and_then(|d| {
                let (line, done) = status_line(&d, args.revision.unwrap_or(0))?;
                let line = if done {
                    line
                } else {
                    with_warning(cluster, ctx, &d, line)
                };
                Ok((line, done))
            })
        };
        match current {
            Err(e) => return out.fail(e),
            Ok((line, done)) => {
                if !printed.contains(&line) {
                    out.out_line(&line);
                    printed.insert(line);
                }
                if done || !watch {
                    return;
                }
            }
        }
        if cluster.now().since(start) >= limit {
            return out.fail("error: timed out waiting for the condition");
        }
        cluster.advance(SimDuration::secs(1));
    }
}

fn history(
    cluster: &Cluster,
    ctx: &Context<'_>,
    namespace: &str,
    name: &str,
    revision: i64,
    out: &mut CommandOutput,
) {
    let d = match get_deployment(cluster, ctx, namespace, name) {
        Ok(d) => d,
        Err(e) => return out.fail(e),
    };
    let rss = match replica_sets(cluster, ctx, &d) {
        Ok(r) => r,
        Err(e) => return out.fail(e),
    };
    let mut by_revision: BTreeMap<i64, PodTemplateSpec> = BTreeMap::new();
    for rs in &rss {
        let Some(v) = revision_of(rs) else {
            continue;
        };
        let mut template = rs.spec.template.clone().unwrap_or_default();
        let cause = rs
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(CHANGE_CAUSE))
            .cloned();
        let meta = template.metadata.get_or_insert_with(Default::default);
        if let Some(cause) = cause.filter(|c| !c.is_empty()) {
            meta.annotations
                .get_or_insert_with(BTreeMap::new)
                .insert(CHANGE_CAUSE.into(), cause);
        }
        by_revision.insert(v, template);
    }
    let header = if revision > 0 {
        format!("deployment.apps/{name} with revision #{revision}")
    } else {
        format!("deployment.apps/{name}")
    };
    if by_revision.is_empty() {
        out.out_line(header);
        out.out_line("No rollout history found.");
        return;
    }
    if revision > 0 {
        let Some(template) = by_revision.get(&revision) else {
            return out.fail("error: unable to find the specified revision");
        };
        out.out_line(header);
        out.stdout.push_str(&describe_pod_template(template));
        out.out_line("");
        return;
    }
    out.out_line(header);
    history_table(
        out,
        by_revision.iter().map(|(r, t)| {
            let cause = t
                .metadata
                .as_ref()
                .and_then(|m| m.annotations.as_ref())
                .and_then(|a| a.get(CHANGE_CAUSE))
                .filter(|c| !c.is_empty())
                .cloned();
            (*r, cause)
        }),
    );
}

/// `DescribePodTemplate` as `kubectl rollout history --revision` prints it (tabs
/// as written by kubectl's prefix writer, which no tabwriter aligns there).
pub(crate) fn describe_pod_template(t: &PodTemplateSpec) -> String {
    let mut s = String::from("Pod Template:\n");
    let meta = t.metadata.clone().unwrap_or_default();
    multiline(&mut s, "  Labels", meta.labels.as_ref(), "=");
    if meta.annotations.as_ref().is_some_and(|a| !a.is_empty()) {
        multiline(&mut s, "  Annotations", meta.annotations.as_ref(), ": ");
    }
    let spec = t.spec.clone().unwrap_or_default();
    if let Some(sa) = spec.service_account_name.as_ref().filter(|s| !s.is_empty()) {
        s.push_str(&format!("  Service Account:\t{sa}\n"));
    }
    let init = spec.init_containers.clone().unwrap_or_default();
    if !init.is_empty() {
        containers(&mut s, "Init Containers", &init);
    }
    containers(&mut s, "Containers", &spec.containers);
    let volumes = spec.volumes.clone().unwrap_or_default();
    if volumes.is_empty() {
        s.push_str("  Volumes:\t<none>\n");
    } else {
        s.push_str("  Volumes:\n");
        for v in &volumes {
            s.push_str(&format!("   {}:\n", v.name));
        }
    }
    multiline(&mut s, "  Node-Selectors", spec.node_selector.as_ref(), "=");
    let tolerations = spec.tolerations.clone().unwrap_or_default();
    if tolerations.is_empty() {
        s.push_str("  Tolerations:\t<none>\n");
    } else {
        for (i, t) in tolerations.iter().enumerate() {
            let mut text = t.key.clone().unwrap_or_default();
            if let Some(v) = t.value.as_ref().filter(|v| !v.is_empty()) {
                text.push('=');
                text.push_str(v);
            }
            if let Some(e) = t.effect.as_ref().filter(|e| !e.is_empty()) {
                text.push(':');
                text.push_str(e);
            }
            if t.operator.as_deref() == Some("Exists")
                && t.value.as_deref().unwrap_or("").is_empty()
            {
                text = match t.key.as_deref() {
                    Some(k) if !k.is_empty() => {
                        let mut x = format!("{k} op=Exists");
                        if let Some(e) = t.effect.as_ref().filter(|e| !e.is_empty()) {
                            x = format!("{k}:{e} op=Exists");
                        }
                        x
                    }
                    _ => "op=Exists".into(),
                };
            }
            if let Some(secs) = t.toleration_seconds {
                text.push_str(&format!(" for {secs}s"));
            }
            if i == 0 {
                s.push_str(&format!("  Tolerations:\t{text}\n"));
            } else {
                s.push_str(&format!("\t{text}\n"));
            }
        }
    }
    s
}

fn multiline(s: &mut String, title: &str, map: Option<&BTreeMap<String, String>>, sep: &str) {
    s.push_str(&format!("{title}:\t"));
    match map.filter(|m| !m.is_empty()) {
        None => s.push_str("<none>\n"),
        Some(m) => {
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    s.push('\t');
                }
                s.push_str(&format!("{k}{sep}{v}\n"));
            }
        }
    }
}

fn containers(s: &mut String, section: &str, list: &[k8s_openapi::api::core::v1::Container]) {
    s.push_str(&format!("  {section}:\n"));
    for c in list {
        s.push_str(&format!("   {}:\n", c.name));
        s.push_str(&format!(
            "    Image:\t{}\n",
            c.image.clone().unwrap_or_default()
        ));
        let ports = c.ports.clone().unwrap_or_default();
        let fmt_ports = |host: bool| -> String {
            ports
                .iter()
                .map(|p| {
                    let n = if host {
                        p.host_port.unwrap_or(0)
                    } else {
                        p.container_port
                    };
                    format!("{n}/{}", p.protocol.clone().unwrap_or_else(|| "TCP".into()))
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let or_none = |x: String| {
            if x.is_empty() {
                "<none>".to_string()
            } else {
                x
            }
        };
        let (p, hp) = (fmt_ports(false), fmt_ports(true));
        if p.contains(',') {
            s.push_str(&format!("    Ports:\t{p}\n"));
        } else {
            s.push_str(&format!("    Port:\t{}\n", or_none(p)));
        }
        if hp.contains(',') {
            s.push_str(&format!("    Host Ports:\t{hp}\n"));
        } else {
            s.push_str(&format!("    Host Port:\t{}\n", or_none(hp)));
        }
        for (title, words) in [("Command", &c.command), ("Args", &c.args)] {
            if let Some(words) = words.as_ref().filter(|w| !w.is_empty()) {
                s.push_str(&format!("    {title}:\n"));
                for w in words {
                    s.push_str(&format!("      {w}\n"));
                }
            }
        }
        if let Some(r) = c.resources.as_ref() {
            for (title, m) in [("Limits", &r.limits), ("Requests", &r.requests)] {
                if let Some(m) = m.as_ref().filter(|m| !m.is_empty()) {
                    s.push_str(&format!("    {title}:\n"));
                    for (k, v) in m {
                        s.push_str(&format!("      {k}:\t{}\n", v.0));
                    }
                }
            }
        }
        let env = c.env.clone().unwrap_or_default();
        if env.is_empty() {
            s.push_str("    Environment:\t<none>\n");
        } else {
            s.push_str("    Environment:\n");
            for e in env {
                s.push_str(&format!(
                    "      {}:\t{}\n",
                    e.name,
                    e.value.unwrap_or_default()
                ));
            }
        }
        let mounts = c.volume_mounts.clone().unwrap_or_default();
        if mounts.is_empty() {
            s.push_str("    Mounts:\t<none>\n");
        } else {
            s.push_str("    Mounts:\n");
            for m in mounts {
                s.push_str(&format!("      {} from {}\n", m.mount_path, m.name));
            }
        }
    }
}

/// The history table both viewers print: `REVISION  CHANGE-CAUSE`, a row per
/// revision, `<none>` for a revision without a cause (kubectl's `tabbedString`: a
/// tabwriter with padding 2 and no minimum width), then the blank line
/// `rollout history` ends with.
fn history_table(out: &mut CommandOutput, rows: impl Iterator<Item = (i64, Option<String>)>) {
    let mut rows: Vec<(String, String)> = rows
        .map(|(r, cause)| (r.to_string(), cause.unwrap_or_else(|| "<none>".into())))
        .collect();
    rows.insert(0, ("REVISION".into(), "CHANGE-CAUSE".into()));
    let width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0) + 2;
    for (r, cause) in rows {
        out.out_line(format!("{r:<width$}{cause}"));
    }
    out.out_line("");
}

/// A StatefulSet or DaemonSet and its ControllerRevisions (`statefulSetHistory`,
/// `daemonSetHistory`).
fn object_and_history(
    cluster: &Cluster,
    ctx: &Context<'_>,
    kind: Kind,
    namespace: &str,
    name: &str,
) -> Result<(Object, Vec<stateful_set::Revision>), String> {
    let set = crate::context::get(cluster, ctx, kind, namespace, name)
        .map_err(|e| errors::render(&e, None))?;
    let revisions =
        crate::context::list_refs(cluster, ctx, Kind::ControllerRevision, Some(namespace))
            .map_err(|e| {
                format!(
                    "error: unable to find history controlled by {kind} {name}: {}",
                    e.message
                )
            })?;
    let history = stateful_set::history(&set, revisions);
    Ok((set, history))
}

/// `StatefulSetHistoryViewer.ViewHistory` and `DaemonSetHistoryViewer.ViewHistory`:
/// the revisions and their change causes, or one revision's pod template.
fn revision_history(
    cluster: &Cluster,
    ctx: &Context<'_>,
    kind: Kind,
    namespace: &str,
    name: &str,
    revision: i64,
    out: &mut CommandOutput,
) {
    let (set, history) = match object_and_history(cluster, ctx, kind, namespace, name) {
        Ok(x) => x,
        Err(e) => return out.fail(e),
    };
    let resource = format!("{}/{name}", kind.qualified_singular());
    // Revisions are assumed not to overlap: the last of a number counts.
    let by_revision: BTreeMap<i64, &stateful_set::Revision> =
        history.iter().map(|r| (r.revision, r)).collect();
    let header = if revision > 0 {
        format!("{resource} with revision #{revision}")
    } else {
        resource
    };
    if by_revision.is_empty() {
        out.out_line(header);
        out.out_line("No rollout history found.");
        return;
    }
    if revision > 0 {
        let Some(r) = by_revision.get(&revision) else {
            return out.fail("error: unable to find the specified revision");
        };
        let template = stateful_set::revision_template(&set, r);
        let Ok(template) = stateful_set::typed_template(template) else {
            return out.fail(format!("error: unable to parse history {}", r.name));
        };
        out.out_line(header);
        out.stdout.push_str(&describe_pod_template(&template));
        out.out_line("");
        return;
    }
    out.out_line(header);
    history_table(
        out,
        by_revision
            .iter()
            .map(|(n, r)| (*n, r.change_cause.clone())),
    );
}

/// `StatefulSetRollbacker.Rollback` and `DaemonSetRollbacker.Rollback`: the chosen
/// revision's template (by default the one before the latest) patched back into
/// the object.
fn revision_undo(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    (kind, namespace, name): (Kind, &str, &str),
    to_revision: i64,
    dry_run: DryRun,
    out: &mut CommandOutput,
) {
    let not_found = || format!("error: unable to find specified revision {to_revision} in history");
    if to_revision < 0 {
        // The builder reads the object before the rollbacker refuses.
        if let Err(e) = crate::context::get(cluster, ctx, kind, namespace, name) {
            return out.fail(errors::render(&e, None));
        }
        return out.fail(not_found());
    }
    let (set, history) = match object_and_history(cluster, ctx, kind, namespace, name) {
        Ok(x) => x,
        Err(e) => return out.fail(e),
    };
    if to_revision == 0 && history.len() <= 1 {
        return out.fail("error: no last revision to roll back to");
    }
    // `findHistory`: the second newest, or the one with the number asked for.
    let target = if to_revision == 0 {
        history.get(history.len() - 2)
    } else {
        history.iter().find(|r| r.revision == to_revision)
    };
    let Some(target) = target else {
        return out.fail(not_found());
    };
    let resource = format!("{}/{name}", kind.qualified_singular());
    let template = stateful_set::revision_template(&set, target);
    if dry_run == DryRun::Client {
        return match stateful_set::typed_template(template) {
            Ok(t) => out.out_line(format!(
                "{resource} will roll back to {} (dry run)",
                describe_pod_template(&t)
            )),
            Err(e) => out.fail(e),
        };
    }
    if stateful_set::matches(&set, target) {
        out.out_line(format!(
            "{resource} skipped rollback (current template already matches revision {to_revision}){}",
            dry_run.suffix()
        ));
        return;
    }
    let sent = stateful_set::with_template_json(&set, template).and_then(|object| {
        let body = Body::Patch {
            object,
            subresource: None,
        };
        crate::context::send_dry(cluster, ctx, body, dry_run == DryRun::Server)
            .map_err(|e| e.message)
    });
    match sent {
        Ok(_) => out.out_line(format!("{resource} rolled back{}", dry_run.suffix())),
        Err(e) => out.fail(format!(
            "error: failed restoring revision {to_revision}: {e}"
        )),
    }
}

/// `DeploymentRollbacker.Rollback`: copy the chosen revision's template (and its
/// annotations) back into the Deployment.
fn undo(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    namespace: &str,
    name: &str,
    to_revision: i64,
    dry_run: DryRun,
    out: &mut CommandOutput,
) {
    let d = match get_deployment(cluster, ctx, namespace, name) {
        Ok(d) => d,
        Err(e) => return out.fail(e),
    };
    if to_revision < 0 {
        return out.fail(format!(
            "error: unable to find specified revision {to_revision} in history"
        ));
    }
    let rss = match replica_sets(cluster, ctx, &d) {
        Ok(r) => r,
        Err(e) => return out.fail(e),
    };
    // deploymentRevision: the named revision, else the one before the latest.
    let target: Option<&ReplicaSet>;
    if to_revision > 0 {
        target = rss.iter().find(|rs| revision_of(rs) == Some(to_revision));
        if target.is_none() {
            return out.fail(format!(
                "error: unable to find specified revision {to_revision} in history"
            ));
        }
    } else {
        let mut revs: Vec<(i64, &ReplicaSet)> = rss
            .iter()
            .filter_map(|rs| revision_of(rs).map(|v| (v, rs)))
            .collect();
        revs.stable_sort_by_key(|(v, _)| std::cmp::Reverse(*v));
        match revs.get(1) {
            Some((_, rs)) => target = Some(rs),
            None => {
                return out.fail(format!(
                    "error: no rollout history found for deployment \"{name}\""
                ));
            }
        }
    }
    let Some(rs) = target else {
        return;
    };
    let mut template = rs.spec.template.clone().unwrap_or_default();
    let resource = format!("deployment.apps/{name}");
    if dry_run == DryRun::Client {
        let mut text = describe_pod_template(&template);
        text.push_str(" (dry run)");
        out.out_line(format!("{resource} {text}"));
        return;
    }
    if d.spec.paused == Some(true) {
        return out.fail(format!("error: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume deployment/{name}' and try again"));
    }
    if equal_ignore_hash(&template, &d.spec.template) {
        out.out_line(format!(
            "{resource} skipped rollback (current template already matches revision {to_revision}){}",
            dry_run.suffix()
        ));
        return;
    }
    if let Some(labels) = template.metadata.as_mut().and_then(|m| m.labels.as_mut()) {
        labels.remove("pod-template-hash");
    }
    let mut annotations = BTreeMap::new();
    for k in ANNOTATIONS_NOT_COPIED {
        if let Some(v) = d.metadata.annotations.as_ref().and_then(|a| a.get(k)) {
            annotations.insert(k.to_string(), v.clone());
        }
    }
    for (k, v) in rs.metadata.annotations.iter().flatten() {
        if !ANNOTATIONS_NOT_COPIED.contains(&k.as_str()) {
            annotations.insert(k.clone(), v.clone());
        }
    }
    let mut updated = d.clone();
    updated.spec.template = template;
    updated.metadata.annotations = Some(annotations);
    let body = Body::Patch {
        object: Object::Deployment(Box::new(updated)),
        subresource: None,
    };
    match crate::context::send_dry(cluster, ctx, body, dry_run == DryRun::Server) {
        Ok(_) => out.out_line(format!("{resource} rolled back{}", dry_run.suffix())),
        Err(e) => out.fail(format!(
            "error: failed restoring revision {to_revision}: {}",
            e.message
        )),
    }
}

/// pause, resume and restart: the object pauser, resumer and restarter, then a write.
fn mutate(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    namespace: &str,
    name: &str,
    sub: &str,
    out: &mut CommandOutput,
) {
    let d = match get_deployment(cluster, ctx, namespace, name) {
        Ok(d) => d,
        Err(e) => return out.fail(e),
    };
    let paused = d.spec.paused == Some(true);
    let mut updated = d.clone();
    let (problem, done) = match sub {
        "pause" => {
            updated.spec.paused = Some(true);
            (paused.then_some("is already paused"), "paused")
        }
        "resume" => {
            updated.spec.paused = None;
            ((!paused).then_some("is not paused"), "resumed")
        }
        _ => {
            let now = cluster.now().to_k8s().0.to_string();
            updated
                .spec
                .template
                .metadata
                .get_or_insert_with(Default::default)
                .annotations
                .get_or_insert_with(BTreeMap::new)
                .insert(RESTARTED_AT.into(), now);
            (
                paused.then_some("can't restart paused deployment (run rollout resume first)"),
                "restarted",
            )
        }
    };
    if let Some(p) = problem {
        return out.fail(format!("error: deployments.apps \"{name}\" {p}"));
    }
    if sub == "restart" && updated == d {
        return out.fail(restart_too_soon(name));
    }
    match patch(cluster, ctx, Object::Deployment(Box::new(updated)), None) {
        Ok(_) => out.out_line(format!("deployment.apps/{name} {done}")),
        Err(e) => out.fail(format!("error: failed to patch: {}", e.message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_follow_the_viewer() {
        let mut d = Deployment::default();
        d.metadata.name = Some("web".into());
        d.metadata.generation = Some(2);
        d.spec.replicas = Some(3);
        assert_eq!(
            status_line(&d, 0).unwrap().0,
            "Waiting for deployment spec update to be observed..."
        );
        d.status = Some(k8s_openapi::api::apps::v1::DeploymentStatus {
            observed_generation: Some(2),
            replicas: Some(4),
            updated_replicas: Some(3),
            available_replicas: Some(2),
            ..Default::default()
        });
        assert_eq!(
            status_line(&d, 0).unwrap().0,
            "Waiting for deployment \"web\" rollout to finish: 1 old replicas are pending termination..."
        );
    }

    /// Each line fails with exactly its message on stderr.
    fn refused(s: &mut crate::Session, cases: &[(&str, &str)]) {
        for (line, want) in cases {
            let out = kubectl(s, line);
            assert_eq!(
                (out.stderr.as_str(), out.success()),
                (*want, false),
                "{line}"
            );
        }
    }

    fn kubectl(s: &mut crate::Session, line: &str) -> CommandOutput {
        s.run(line, None, &crate::context::NoFiles)
    }

    #[test]
    fn stateful_set_status_waits_as_the_viewer_says() {
        use crate::cmd::stateful_set::testing;
        use serde_json::json;
        let mut s = testing::session(testing::WEB);
        // Nothing has observed the StatefulSet yet.
        let out = kubectl(&mut s, "rollout status sts/web --watch=false");
        assert_eq!(
            (out.stdout.as_str(), out.success()),
            (
                "Waiting for statefulset spec update to be observed...\n",
                true
            )
        );
        // The controller observes it; its claims are provisioned and its pods made
        // one at a time, so 3 seconds see at most the first ready.
        let out = kubectl(&mut s, "rollout status statefulset web --timeout=3s");
        assert_eq!(
            out.combined(),
            "Waiting for statefulset spec update to be observed...\nWaiting for 3 pods to be ready...\nWaiting for 2 pods to be ready...\nerror: timed out waiting for the condition\n"
        );
        assert!(!out.success());
        testing::write_status(
            &mut s,
            "web",
            1,
            json!({"observedGeneration": 1, "replicas": 3, "readyReplicas": 1}),
        );
        let out = kubectl(&mut s, "rollout status statefulsets/web --watch=false");
        assert_eq!(out.stdout, "Waiting for 2 pods to be ready...\n");
        testing::write_status(
            &mut s,
            "web",
            1,
            json!({"observedGeneration": 1, "replicas": 3, "readyReplicas": 3,
                "updatedReplicas": 1, "currentRevision": "web-7b9c", "updateRevision": "web-5d4f"}),
        );
        let out = kubectl(&mut s, "rollout status sts/web --watch=false");
        assert_eq!(
            out.stdout,
            "Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...\n"
        );
        testing::write_status(
            &mut s,
            "web",
            1,
            json!({"observedGeneration": 1, "replicas": 3, "readyReplicas": 3,
                "updatedReplicas": 2, "currentRevision": "web-7b9c", "updateRevision": "web-5d4f"}),
        );
        let out = kubectl(&mut s, "rollout status sts/web");
        assert_eq!(
            (out.stdout.as_str(), out.success()),
            (
                "partitioned roll out complete: 2 new pods have been updated...\n",
                true
            )
        );
    }

    #[test]
    fn stateful_set_status_without_a_partition_reads_the_revisions() {
        use crate::cmd::stateful_set::testing;
        use serde_json::json;
        let manifest = testing::WEB.replace(
            "  updateStrategy:\n    rollingUpdate:\n      partition: 1\n",
            "  updateStrategy:\n    type: RollingUpdate\n",
        );
        let mut s = testing::session(&manifest);
        testing::write_status(
            &mut s,
            "web",
            2,
            json!({"observedGeneration": 2, "replicas": 3, "readyReplicas": 3,
                "updatedReplicas": 1, "currentReplicas": 2,
                "currentRevision": "web-7b9c", "updateRevision": "web-5d4f"}),
        );
        let out = kubectl(&mut s, "rollout status sts/web --watch=false");
        assert_eq!(
            out.stdout,
            "waiting for statefulset rolling update to complete 1 pods at revision web-5d4f...\n"
        );
        testing::write_status(
            &mut s,
            "web",
            2,
            json!({"observedGeneration": 2, "replicas": 3, "readyReplicas": 3,
                "updatedReplicas": 3, "currentReplicas": 3,
                "currentRevision": "web-5d4f", "updateRevision": "web-5d4f"}),
        );
        let out = kubectl(&mut s, "rollout status sts/web");
        assert_eq!(
            out.stdout,
            "statefulset rolling update complete 3 pods at revision web-5d4f...\n"
        );
        // A newer generation than the status observed waits again.
        testing::write_status(
            &mut s,
            "web",
            3,
            json!({"observedGeneration": 2, "replicas": 3, "readyReplicas": 3}),
        );
        let out = kubectl(&mut s, "rollout status sts/web --watch=false");
        assert_eq!(
            out.stdout,
            "Waiting for statefulset spec update to be observed...\n"
        );
    }

    #[test]
    fn on_delete_stateful_sets_have_no_rollout_status() {
        use crate::cmd::stateful_set::testing;
        let manifest = testing::WEB.replace(
            "    rollingUpdate:\n      partition: 1\n",
            "    type: OnDelete\n",
        );
        let mut s = testing::session(&manifest);
        let out = kubectl(&mut s, "rollout status sts/web");
        assert_eq!(
            out.stderr,
            "error: rollout status is only available for RollingUpdate strategy type\n"
        );
        assert!(!out.success());
    }

    #[test]
    fn stateful_sets_restart_but_do_not_pause() {
        use crate::cmd::stateful_set::testing;
        let mut s = testing::session(testing::WEB);
        s.cluster.advance(warehouse_sim::SimDuration::secs(90));
        let out = kubectl(&mut s, "rollout restart statefulset/web");
        assert_eq!(out.stdout, "statefulset.apps/web restarted\n");
        let stored = s.cluster.get(Kind::StatefulSet, "default", "web").unwrap();
        assert_eq!(
            stored.to_json()["spec"]["template"]["metadata"]["annotations"][RESTARTED_AT],
            "2026-01-01T00:01:30Z"
        );
        let out = kubectl(&mut s, "rollout restart sts/web");
        assert!(out
            .stderr
            .contains("if restart has already been triggered within the past second"));
        refused(
            &mut s,
            &[
                (
                    "rollout pause sts/web",
                    "error: statefulsets.apps \"web\" pausing is not supported\n",
                ),
                (
                    "rollout resume statefulset web",
                    "error: statefulsets.apps \"web\" resuming is not supported\n",
                ),
                (
                    "rollout pause sts/gone",
                    "Error from server (NotFound): statefulsets.apps \"gone\" not found\n",
                ),
            ],
        );
        // A DaemonSet's history is its ControllerRevisions: kube-proxy has one.
        let out = kubectl(&mut s, "rollout history ds/kube-proxy -n kube-system");
        assert_eq!(
            out.stdout,
            "daemonset.apps/kube-proxy\nREVISION  CHANGE-CAUSE\n1         <none>\n\n"
        );
        let out = kubectl(&mut s, "rollout undo daemonset kube-proxy -n kube-system");
        assert_eq!(out.stderr, "error: no last revision to roll back to\n");
    }

    /// A StatefulSet at nginx:1.27, rolled to nginx:1.28: two revisions.
    fn rolled_stateful_set() -> crate::Session {
        use crate::cmd::stateful_set::testing;
        let manifest = "apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: nginx
  replicas: 2
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
";
        let mut s = testing::session(manifest);
        s.cluster.advance(warehouse_sim::SimDuration::secs(30));
        let out = kubectl(&mut s, "set image sts/web nginx=nginx:1.28");
        assert!(out.success(), "{}", out.combined());
        s.cluster.advance(warehouse_sim::SimDuration::secs(30));
        s
    }

    fn image(s: &crate::Session) -> String {
        let stored = s.cluster.get(Kind::StatefulSet, "default", "web").unwrap();
        stored.to_json()["spec"]["template"]["spec"]["containers"][0]["image"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    const TEMPLATE_1_27: &str = "Pod Template:
  Labels:\tapp=nginx
  Containers:
   nginx:
    Image:\tnginx:1.27
    Port:\t<none>
    Host Port:\t<none>
    Environment:\t<none>
    Mounts:\t<none>
  Volumes:\t<none>
  Node-Selectors:\t<none>
  Tolerations:\t<none>
";

    #[test]
    fn stateful_set_history_lists_its_controller_revisions() {
        let mut s = rolled_stateful_set();
        let out = kubectl(&mut s, "rollout history statefulset/web");
        assert_eq!(
            (out.stdout.as_str(), out.success()),
            (
                "statefulset.apps/web\nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n",
                true
            )
        );
        let out = kubectl(&mut s, "rollout history sts web --revision=1");
        assert_eq!(
            out.stdout,
            format!("statefulset.apps/web with revision #1\n{TEMPLATE_1_27}\n")
        );
        refused(
            &mut s,
            &[
                (
                    "rollout history sts/web --revision=3",
                    "error: unable to find the specified revision\n",
                ),
                (
                    "rollout history sts/web --revision=-1",
                    "error: revision must be a positive integer: -1\n",
                ),
                (
                    "rollout history sts/gone",
                    "Error from server (NotFound): statefulsets.apps \"gone\" not found\n",
                ),
            ],
        );
    }

    #[test]
    fn a_stateful_set_revision_keeps_the_change_cause_of_its_set() {
        let mut s = rolled_stateful_set();
        let out = kubectl(
            &mut s,
            "annotate sts/web kubernetes.io/change-cause='image 1.29'",
        );
        assert!(out.success(), "{}", out.combined());
        let out = kubectl(&mut s, "set image sts/web nginx=nginx:1.29");
        assert!(out.success(), "{}", out.combined());
        s.cluster.advance(warehouse_sim::SimDuration::secs(5));
        let out = kubectl(&mut s, "rollout history sts/web");
        assert_eq!(
            out.stdout,
            "statefulset.apps/web\nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n3         image 1.29\n\n"
        );
    }

    #[test]
    fn a_stateful_set_without_revisions_has_no_history() {
        use crate::cmd::stateful_set::testing;
        // At second 0 the controller has not made the first revision yet.
        let mut s = testing::session(testing::WEB);
        let out = kubectl(&mut s, "rollout history sts/web");
        assert_eq!(
            out.stdout,
            "statefulset.apps/web\nNo rollout history found.\n"
        );
        let out = kubectl(&mut s, "rollout undo sts/web");
        assert_eq!(out.stderr, "error: no last revision to roll back to\n");
    }

    #[test]
    fn stateful_set_undo_restores_the_previous_template() {
        let mut s = rolled_stateful_set();
        refused(
            &mut s,
            &[
            (
                "rollout undo sts/web --to-revision=5",
                "error: unable to find specified revision 5 in history\n",
            ),
            (
                "rollout undo sts/web --to-revision=-2",
                "error: unable to find specified revision -2 in history\n",
            ),
            (
                "rollout undo sts/web --dry-run=sometimes",
                "error: Invalid dry-run value (sometimes). Must be \"none\", \"server\", or \"client\".\n",
            ),
            (
                "rollout history sts/web --dry-run",
                "error: unknown flag: --dry-run\nSee 'kubectl rollout history --help' for usage.\n",
            ),
        ],
        );
        let out = kubectl(&mut s, "rollout undo sts/web --to-revision=2");
        assert_eq!(
            out.stdout,
            "statefulset.apps/web skipped rollback (current template already matches revision 2)\n"
        );
        let out = kubectl(&mut s, "rollout undo sts/web --dry-run=client");
        assert_eq!(
            out.stdout,
            format!("statefulset.apps/web will roll back to {TEMPLATE_1_27} (dry run)\n")
        );
        let out = kubectl(&mut s, "rollout undo sts/web --dry-run=server");
        assert_eq!(
            out.stdout,
            "statefulset.apps/web rolled back (server dry run)\n"
        );
        assert_eq!(image(&s), "nginx:1.28");
        let out = kubectl(&mut s, "rollout undo sts/web");
        assert_eq!(
            (out.stdout.as_str(), out.success()),
            ("statefulset.apps/web rolled back\n", true)
        );
        assert_eq!(image(&s), "nginx:1.27");
        // The controller brings revision 1 forward as revision 3.
        s.cluster.advance(warehouse_sim::SimDuration::secs(5));
        let out = kubectl(&mut s, "rollout history sts/web");
        assert_eq!(
            out.stdout,
            "statefulset.apps/web\nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n"
        );
        let out = kubectl(&mut s, "rollout undo sts/web --to-revision=3");
        assert_eq!(
            out.stdout,
            "statefulset.apps/web skipped rollback (current template already matches revision 3)\n"
        );
    }

    #[test]
    fn deployment_undo_dry_runs() {
        let mut s = crate::Session::new(warehouse_sim::Cluster::new(
            7,
            warehouse_sim::Topology::default(),
        ));
        let files = crate::context::NoFiles;
        let out = s.run("create deployment web --image=nginx:1.27", None, &files);
        assert!(out.success(), "{}", out.combined());
        s.cluster.advance(warehouse_sim::SimDuration::secs(30));
        let out = kubectl(&mut s, "set image deployment/web nginx=nginx:1.28");
        assert!(out.success(), "{}", out.combined());
        s.cluster.advance(warehouse_sim::SimDuration::secs(30));
        let out = kubectl(&mut s, "rollout undo deployment/web --dry-run=server");
        assert_eq!(
            out.stdout,
            "deployment.apps/web rolled back (server dry run)\n"
        );
        let out = kubectl(&mut s, "rollout undo deployment/web --dry-run");
        assert!(
            out.stdout
                .starts_with("deployment.apps/web Pod Template:\n  Labels:\tapp=web\n"),
            "{}",
            out.stdout
        );
        assert!(out.stdout.ends_with("  Tolerations:\t<none>\n (dry run)\n"));
        let d = s.cluster.get(Kind::Deployment, "default", "web").unwrap();
        assert_eq!(
            d.to_json()["spec"]["template"]["spec"]["containers"][0]["image"],
            "nginx:1.28"
        );
    }
}
