//! `kubectl drain NODE` (staging/src/k8s.io/kubectl/pkg/cmd/drain and
//! staging/src/k8s.io/kubectl/pkg/drain): cordon, then pick the node's pods through
//! kubectl's filters (DaemonSet pods, mirror pods, emptyDir data, pods without a
//! controller), evict them through `pods/eviction` (or, with `--disable-eviction`,
//! delete them, which no PodDisruptionBudget checks), and wait, advancing simulated
//! time a second at a time as kubectl polls, until they are gone. An eviction a
//! budget refuses (429) is tried again every 5 seconds (`evictPods` in
//! staging/src/k8s.io/kubectl/pkg/drain/drain.go).
//!
//! Simplifications: upstream evicts the pods concurrently, so its lines interleave
//! in any order; here each second's attempts go in the pods' order.
//! `--pod-selector`, `--selector` and `--dry-run` are not offered; without
//! `--timeout` the wait gives up after an hour of simulated time.

use crate::cmd::cordon::{cordon_one, split_args};
use crate::context::{CommandOutput, Context};
use crate::errors;
use k8s_openapi::api::core::v1::Pod;
use std::collections::BTreeMap;
use warehouse_sim::apiserver::request::Body;
use warehouse_sim::{
    parse_duration, Cluster, DeleteOptions, Kind, Object, Propagation, SimDuration, StatusReason,
};

const DAEMONSET_FATAL: &str = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)";
const DAEMONSET_WARNING: &str = "ignoring DaemonSet-managed Pods";
const LOCAL_STORAGE_FATAL: &str =
    "Pods with local storage (use --delete-emptydir-data to override)";
const LOCAL_STORAGE_WARNING: &str = "deleting Pods with local storage";
const UNMANAGED_FATAL: &str = "Pods declare no controller (use --force to override)";
const UNMANAGED_WARNING: &str = "deleting Pods that declare no controller";
/// How long the wait lasts without `--timeout`.
const DEFAULT_WAIT_CAP: SimDuration = SimDuration::secs(3600);
/// How often kubectl looks whether the pods are gone (`waitForDelete`'s interval).
const POLL: SimDuration = SimDuration::secs(1);
/// How long kubectl sleeps before it asks again for an eviction a budget refused.
const RETRY: SimDuration = SimDuration::secs(5);

const FLAGS: &[(&str, bool)] = &[
    ("--ignore-daemonsets", false),
    ("--delete-emptydir-data", false),
    ("--delete-local-data", false),
    ("--force", false),
    ("--disable-eviction", false),
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
    disable_eviction: bool,
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
        disable_eviction: on("--disable-eviction"),
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
            out.err_line(format!(
                "error: unable to drain node \"{name}\" due to error: {}, continuing command...",
                aggregate(&errs)
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
    let chosen: Vec<Chosen> = pods
        .iter()
        .zip(&items)
        .filter(|(_, (_, st))| st.delete())
        .map(|(pod, _)| Chosen {
            namespace: pod.metadata.namespace.clone().unwrap_or_default(),
            name: pod.metadata.name.clone().unwrap_or_default(),
            uid: pod.metadata.uid.clone().unwrap_or_default(),
            next_try: Some(SimDuration::secs(0)),
        })
        .collect();
    let limit = crate::context::bounded_wait(timeout.unwrap_or(DEFAULT_WAIT_CAP), out);
    let errs = if opts.disable_eviction {
        delete_pods(cluster, ctx, chosen, grace, limit, out)?
    } else {
        evict_pods(cluster, ctx, chosen, grace, limit, out)
    };
    match errs {
        Ok(()) => Ok(()),
        Err((errs, pending)) => {
            // deleteOrEvictPodsSimple: the pods still waiting, after the aggregate.
            out.err_line(format!(
                "There are pending pods in node \"{node}\" when an error occurred: {}",
                aggregate(&errs)
            ));
            for p in pending {
                out.err_line(format!("pod/{}", p.name));
            }
            Err(errs)
        }
    }
}

/// A pod drain chose to remove: its identity, and when (in time waited) its next
/// eviction is tried (`None` once the eviction was granted).
struct Chosen {
    namespace: String,
    name: String,
    uid: String,
    next_try: Option<SimDuration>,
}

impl Chosen {
    /// Whether the pod is gone, or another pod of a new uid took its name.
    fn gone(&self, cluster: &Cluster) -> bool {
        match cluster.get(Kind::Pod, &self.namespace, &self.name) {
            Ok(o) => o.meta().uid.as_deref() != Some(self.uid.as_str()),
            Err(_) => true,
        }
    }
}

/// `utilerrors.NewAggregate(errs).Error()`: one error as is, several in brackets.
fn aggregate(errs: &[String]) -> String {
    if errs.len() == 1 {
        errs[0].clone()
    } else {
        format!("[{}]", errs.join(", "))
    }
}

/// The errors of a drain that did not finish and the pods it left.
type Unfinished = (Vec<String>, Vec<Chosen>);

/// `evictPods`: each pod's eviction, tried again 5 s after a budget refuses it,
/// then the wait for the pod to go. Past `limit` (the global timeout) a pod gives
/// up where it stands: one waiting to retry when it wakes (after it printed
/// `evicting pod` once more, as upstream's loop does), one waiting to be gone at
/// its next look.
fn evict_pods(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    mut pending: Vec<Chosen>,
    grace: Option<i64>,
    limit: SimDuration,
    out: &mut CommandOutput,
) -> Result<(), Unfinished> {
    let mut errs: Vec<String> = Vec::new();
    let mut gave_up: Vec<Chosen> = Vec::new();
    let shown = warehouse_sim::time::go_duration(limit);
    let mut waited = SimDuration::secs(0);
    loop {
        let timed_out = waited >= limit;
        let mut still = Vec::new();
        for mut p in pending {
            if p.next_try.is_some_and(|at| at <= waited) {
                out.out_line(format!("evicting pod {}/{}", p.namespace, p.name));
                if timed_out {
                    errs.push(format!(
                        "error when evicting pods/\"{}\" -n \"{}\": global timeout reached: {shown}",
                        p.name, p.namespace
                    ));
                    gave_up.push(p);
                    continue;
                }
                let eviction = Body::Evict {
                    namespace: p.namespace.clone(),
                    name: p.name.clone(),
                    grace_period_seconds: grace,
                };
                match crate::context::send(cluster, ctx, eviction) {
                    Ok(_) => p.next_try = None,
                    Err(e) if e.reason == StatusReason::NotFound => continue,
                    Err(e) if e.reason == StatusReason::TooManyRequests => {
                        out.err_line(format!(
                            "error when evicting pods/\"{}\" -n \"{}\" (will retry after 5s): {}",
                            p.name, p.namespace, e.message
                        ));
                        p.next_try = Some(waited + RETRY);
                    }
                    Err(e) => {
                        errs.push(format!(
                            "error when evicting pods/\"{}\" -n \"{}\": {}",
                            p.name, p.namespace, e.message
                        ));
                        continue;
                    }
                }
            }
            if p.next_try.is_none() {
                if p.gone(cluster) {
                    out.out_line(format!("pod/{} evicted", p.name));
                    continue;
                }
                if timed_out {
                    errs.push(format!(
                        "error when waiting for pod \"{}\" in namespace \"{}\" to terminate: global timeout reached: {shown}",
                        p.name, p.namespace
                    ));
                    gave_up.push(p);
                    continue;
                }
            }
            still.push(p);
        }
        pending = still;
        if pending.is_empty() {
            return if errs.is_empty() {
                Ok(())
            } else {
                Err((errs, gave_up))
            };
        }
        cluster.advance(POLL);
        waited = waited + POLL;
    }
}

/// `deletePods` (`--disable-eviction`): a plain delete of each pod, which no budget
/// checks, then the wait for all of them.
fn delete_pods(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    mut pending: Vec<Chosen>,
    grace: Option<i64>,
    limit: SimDuration,
    out: &mut CommandOutput,
) -> Result<Result<(), Unfinished>, Vec<String>> {
    for p in &pending {
        let body = Body::Delete {
            key: warehouse_sim::ObjectKey::new(Kind::Pod, &p.namespace, &p.name),
            options: Some(DeleteOptions {
                grace_period_seconds: grace,
                propagation: Propagation::Background,
            }),
        };
        match crate::context::send(cluster, ctx, body) {
            Ok(_) => {}
            Err(e) if e.reason == StatusReason::NotFound => {}
            Err(e) => return Err(vec![errors::render(&e, None)]),
        }
    }
    let mut waited = SimDuration::secs(0);
    loop {
        pending.retain(|p| {
            let gone = p.gone(cluster);
            if gone {
                out.out_line(format!("pod/{} deleted", p.name));
            }
            !gone
        });
        if pending.is_empty() {
            return Ok(Ok(()));
        }
        if waited >= limit {
            return Ok(Err((
                vec!["timed out waiting for the condition".to_string()],
                pending,
            )));
        }
        cluster.advance(POLL);
        waited = waited + POLL;
    }
}
