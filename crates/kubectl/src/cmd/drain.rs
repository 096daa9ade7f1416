//! `kubectl drain NODE` (staging/src/k8s.io/kubectl/pkg/cmd/drain and
//! staging/src/k8s.io/kubectl/pkg/drain): cordon, then pick the node's pods through
//! kubectl's filters (DaemonSet pods, mirror pods, emptyDir data, pods without a
//! controller), evict them through `pods/eviction`, and wait, advancing simulated
//! time a second at a time as kubectl polls, until they are gone.
//!
//! Simplifications: PodDisruptionBudgets are not checked (they are stored only in
//! this simulator), `--disable-eviction`, `--pod-selector`, `--selector` and
//! `--dry-run` are not offered; without `--timeout` the wait gives up after an hour of
//! simulated time.

use crate::cmd::cordon::{cordon_one, split_args};
use crate::context::{CommandOutput, Context};
use crate::errors;
use k8s_openapi::api::core::v1::Pod;
use std::collections::BTreeMap;
use warehouse_sim::apiserver::request::Body;
use warehouse_sim::{parse_duration, Cluster, Kind, Object, SimDuration};

const DAEMONSET_FATAL: &str = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)";
const DAEMONSET_WARNING: &str = "ignoring DaemonSet-managed Pods";
const LOCAL_STORAGE_FATAL: &str =
    "Pods with local storage (use --delete-emptydir-data to override)";
const LOCAL_STORAGE_WARNING: &str = "deleting Pods with local storage";
const UNMANAGED_FATAL: &str = "Pods declare no controller (use --force to override)";
const UNMANAGED_WARNING: &str = "deleting Pods that declare no controller";
/// How long the wait lasts without `--timeout`.
const DEFAULT_WAIT_CAP: SimDuration = SimDuration::secs(3600);

const FLAGS: &[(&str, bool)] = &[
    ("--ignore-daemonsets", false),
    ("--delete-emptydir-data", false),
    ("--delete-local-data", false),
    ("--force", false),
    ("--grace-period", true),
    ("--timeout", true),
];

/// kubectl's `PodDeleteStatus`.
#[derive(Clone, Debug, PartialEq)]
enum Status {
    Okay,
    Skip,
    Warning(bool, String),
    Error(String),
}

impl Status {
    fn delete(&self) -> bool {
        matches!(self, Status::Okay | Status::Warning(true, _))
    }
}

struct Options {
    ignore_daemonsets: bool,
    delete_emptydir_data: bool,
    force: bool,
}

fn finished(pod: &Pod) -> bool {
    matches!(
        pod.status.as_ref().and_then(|s| s.phase.as_deref()),
        Some("Succeeded") | Some("Failed")
    )
}

fn controller(pod: &Pod) -> Option<(&str, &str)> {
    pod.metadata
        .owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true))
        .map(|r| (r.kind.as_str(), r.name.as_str()))
}

/// The filters of kubectl's `GetPodsForDeletion`, in order; the first that does not
/// delete decides, otherwise the last one's status stands (so a later Okay drops an
/// earlier warning, as upstream).
fn filter(cluster: &Cluster, o: &Options, pod: &Pod) -> Status {
    let ns = pod.metadata.namespace.as_deref().unwrap_or("default");
    let daemonset = || match controller(pod) {
        Some(("DaemonSet", name)) if !finished(pod) => {
            if cluster.get(Kind::DaemonSet, ns, name).is_err() {
                let msg = format!("daemonsets.apps \"{name}\" not found");
                return if o.force {
                    Status::Warning(true, msg)
                } else {
                    Status::Error(msg)
                };
            }
            if o.ignore_daemonsets {
                Status::Warning(false, DAEMONSET_WARNING.into())
            } else {
                Status::Error(DAEMONSET_FATAL.into())
            }
        }
        _ => Status::Okay,
    };
    let mirror = || {
        let is_mirror = pod
            .metadata
            .annotations
            .as_ref()
            .is_some_and(|a| a.contains_key("kubernetes.io/config.mirror"));
        if is_mirror {
            Status::Skip
        } else {
            Status::Okay
        }
    };
    let local_storage = || {
        let has = pod
            .spec
            .as_ref()
            .and_then(|s| s.volumes.as_ref())
            .is_some_and(|v| v.iter().any(|v| v.empty_dir.is_some()));
        if !has || finished(pod) {
            Status::Okay
        } else if o.delete_emptydir_data {
            Status::Warning(true, LOCAL_STORAGE_WARNING.into())
        } else {
            Status::Error(LOCAL_STORAGE_FATAL.into())
        }
    };
    let unreplicated = || {
        if finished(pod) || controller(pod).is_some() {
            Status::Okay
        } else if o.force {
            Status::Warning(true, UNMANAGED_WARNING.into())
        } else {
            Status::Error(UNMANAGED_FATAL.into())
        }
    };
    let filters: [&dyn Fn() -> Status; 4] = [&daemonset, &mirror, &local_storage, &unreplicated];
    let mut status = Status::Okay;
    for f in filters {
        status = f();
        if !status.delete() {
            break;
        }
    }
    status
}

/// Messages → pods, as `namespace/name`, in a stable order.
fn group(items: &[(String, Status)], want_error: bool) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (pod, st) in items {
        match st {
            Status::Error(msg) if want_error => m.entry(msg.clone()).or_default().push(pod.clone()),
            Status::Warning(_, msg) if !want_error => {
                m.entry(msg.clone()).or_default().push(pod.clone())
            }
            _ => {}
        }
    }
    m
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let (nodes, flags) = match split_args("drain", args, FLAGS) {
        Ok(x) => x,
        Err(out) => return out,
    };
    if nodes.is_empty() {
        return CommandOutput::error(
            "error: USAGE: drain NODE [flags]\nSee 'kubectl drain -h' for help and examples",
        );
    }
    let on = |name: &str| flags.iter().any(|(f, v)| f == name && v != "false");
    let opts = Options {
        ignore_daemonsets: on("--ignore-daemonsets"),
        delete_emptydir_data: on("--delete-emptydir-data") || on("--delete-local-data"),
        force: on("--force"),
    };
    let mut grace: Option<i64> = None;
    let mut timeout: Option<SimDuration> = None;
    for (f, v) in &flags {
        match f.as_str() {
            "--grace-period" => match v.parse::<i64>() {
                Ok(g) if g >= 0 => grace = Some(g),
                Ok(_) => grace = None,
                Err(_) => {
                    return CommandOutput::error(format!(
                        "error: invalid argument \"{v}\" for \"--grace-period\" flag: strconv.ParseInt: parsing \"{v}\": invalid syntax\nSee 'kubectl drain --help' for usage."
                    ))
                }
            },
            "--timeout" => match parse_duration(v) {
                Ok(d) if d.as_millis() > 0 => timeout = Some(d),
                Ok(_) => timeout = None,
                Err(_) => {
                    return CommandOutput::error(format!(
                        "error: invalid argument \"{v}\" for \"--timeout\" flag: time: invalid duration \"{v}\"\nSee 'kubectl drain --help' for usage."
                    ))
                }
            },
            _ => {}
        }
    }
    let mut out = CommandOutput::new();
    // RunCordonOrUncordon: every node first; a missing node stops the command.
    for name in &nodes {
        if !cordon_one(cluster, ctx, name, true, &mut out) {
            return out;
        }
    }
    let mut fatal: Vec<String> = Vec::new();
    let mut remaining: Vec<String> = Vec::new();
    for name in &nodes {
        if let Err(errs) = drain_node(cluster, ctx, name, &opts, grace, timeout, &mut out) {
            // utilerrors.NewAggregate: one error as is, several in brackets.
            let e = if errs.len() == 1 {
                errs[0].clone()
            } else {
                format!("[{}]", errs.join(", "))
            };
            out.err_line(format!(
                "error: unable to drain node \"{name}\" due to error: {e}, continuing command..."
            ));
            fatal.extend(errs);
            remaining.push(name.clone());
        } else {
            out.out_line(format!("node/{name} drained"));
        }
    }
    if !remaining.is_empty() {
        out.err_line("There are pending nodes to be drained:");
        for n in &remaining {
            out.err_line(format!(" {n}"));
        }
        // cmdutil.CheckErr prints an aggregate one cause per line, without a prefix.
        for e in fatal {
            out.err_line(e);
        }
        out.code = 1;
    }
    out
}

fn drain_node(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    node: &str,
    opts: &Options,
    grace: Option<i64>,
    timeout: Option<SimDuration>,
    out: &mut CommandOutput,
) -> Result<(), Vec<String>> {
    let pods: Vec<Pod> = crate::context::list(cluster, ctx, Kind::Pod, None)
        .map_err(|e| vec![errors::render(&e, None)])?
        .into_iter()
        .filter_map(|o| match o {
            Object::Pod(p) => Some(*p),
            _ => None,
        })
        .filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node))
        .collect();
    let items: Vec<(String, Status)> = pods
        .iter()
        .map(|p| {
            (
                format!(
                    "{}/{}",
                    p.metadata.namespace.as_deref().unwrap_or(""),
                    p.metadata.name.as_deref().unwrap_or("")
                ),
                filter(cluster, opts, p),
            )
        })
        .collect();
    let errs: Vec<String> = group(&items, true)
        .into_iter()
        .map(|(msg, pods)| format!("cannot delete {msg}: {}", pods.join(", ")))
        .collect();
    if !errs.is_empty() {
        return Err(errs);
    }
    let warnings: Vec<String> = group(&items, false)
        .into_iter()
        .map(|(msg, pods)| format!("{msg}: {}", pods.join(", ")))
        .collect();
    if !warnings.is_empty() {
        out.err_line(format!("Warning: {}", warnings.join("; ")));
    }
    // Evict every chosen pod, then wait for each to be gone (or replaced by a pod of
    // another uid under the same name).
    let mut waiting: Vec<(String, String, String)> = Vec::new();
    for (pod, (_, st)) in pods.iter().zip(&items) {
        if !st.delete() {
            continue;
        }
        let ns = pod.metadata.namespace.clone().unwrap_or_default();
        let name = pod.metadata.name.clone().unwrap_or_default();
        out.out_line(format!("evicting pod {ns}/{name}"));
        let eviction = Body::Evict {
            namespace: ns.clone(),
            name: name.clone(),
            grace_period_seconds: grace,
        };
        match crate::context::send(cluster, ctx, eviction) {
            Ok(_) => waiting.push((ns, name, pod.metadata.uid.clone().unwrap_or_default())),
            Err(e) if e.reason == warehouse_sim::StatusReason::NotFound => {}
            Err(e) => return Err(vec![errors::render(&e, None)]),
        }
    }
    let limit = crate::context::bounded_wait(timeout.unwrap_or(DEFAULT_WAIT_CAP), out);
    let mut waited = SimDuration::secs(0);
    loop {
        waiting.retain(|(ns, name, uid)| {
            let gone = match cluster.get(Kind::Pod, ns, name) {
                Ok(o) => o.meta().uid.as_deref() != Some(uid.as_str()),
                Err(_) => true,
            };
            if gone {
                out.out_line(format!("pod/{name} evicted"));
            }
            !gone
        });
        if waiting.is_empty() {
            return Ok(());
        }
        if waited.as_millis() >= limit.as_millis() {
            let e = format!(
                "drain did not complete within {}",
                warehouse_sim::time::go_duration(limit)
            );
            out.err_line(format!(
                "There are pending pods in node \"{node}\" when an error occurred: {e}"
            ));
            for (_, name, _) in &waiting {
                out.err_line(format!("pod/{name}"));
            }
            return Err(vec![e]);
        }
        cluster.advance(SimDuration::secs(1));
        waited = SimDuration::millis(waited.as_millis() + 1000);
    }
}
