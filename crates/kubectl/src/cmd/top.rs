//! `kubectl top node|pod`: usage from the `metrics.k8s.io` API.
//!
//! Mirrors staging/src/k8s.io/kubectl/pkg/cmd/top (top_node.go, top_pod.go) and
//! pkg/metricsutil/metrics_printer.go: `Metrics API not available` when the group is
//! not registered, `metrics not available yet` when it returns nothing, pods younger
//! than two minutes waited for, a NotFound for one pod or node without metrics; CPU
//! printed as millicores, memory as whole MiB, node percentages of allocatable
//! truncated; every cell tab-terminated (so lines end in padding, as kubectl's do);
//! nodes without metrics last with `<unknown>` (sorted by name here, Go's map order is
//! random). The figures come from the simulation's usage model (`warehouse_sim::views::metrics`).

use crate::context::{CommandOutput, Context};
use crate::errors;
use crate::selector::Selector;
use std::collections::BTreeMap;
use warehouse_sim::views::metrics::PodMetrics;
use warehouse_sim::StableSort;
use warehouse_sim::{Cluster, Kind, Object};

const MIB: u64 = 1024 * 1024;
/// kubectl's `metricsCreationDelay`.
const METRICS_CREATION_DELAY_MS: i64 = 2 * 60 * 1000;

struct Flags {
    namespace: Option<String>,
    all_namespaces: bool,
    selector: Option<String>,
    field_selector: Option<String>,
    sort_by: Option<String>,
    containers: bool,
    no_headers: bool,
    sum: bool,
    words: Vec<String>,
}

fn parse_flags(args: &[String], command: &str) -> Result<Flags, CommandOutput> {
    let mut f = Flags {
        namespace: None,
        all_namespaces: false,
        selector: None,
        field_selector: None,
        sort_by: None,
        containers: false,
        no_headers: false,
        sum: false,
        words: Vec::new(),
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let (flag, inline) = match a.split_once('=') {
            Some((fl, v)) if fl.starts_with('-') => (fl, Some(v.to_string())),
            _ => (a, None),
        };
        let value = |i: &mut usize| -> Result<String, CommandOutput> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            *i += 1;
            args.get(*i).cloned().ok_or_else(|| {
                CommandOutput::error(format!(
                    "error: flag needs an argument: {flag}\nSee 'kubectl top {command} --help' for usage."
                ))
            })
        };
        let on = inline.as_deref() != Some("false");
        match flag {
            "-n" | "--namespace" => f.namespace = Some(value(&mut i)?),
            "-A" | "--all-namespaces" => f.all_namespaces = on,
            "-l" | "--selector" => f.selector = Some(value(&mut i)?),
            "--field-selector" if command == "pod" => f.field_selector = Some(value(&mut i)?),
            "--sort-by" => f.sort_by = Some(value(&mut i)?),
            "--containers" if command == "pod" => f.containers = on,
            "--sum" if command == "pod" => f.sum = on,
            "--no-headers" => f.no_headers = on,
            "--use-protocol-buffers" | "--show-capacity" => {}
            _ if a.starts_with('-') => {
                return Err(CommandOutput::error(format!(
                    "error: unknown flag: {flag}\nSee 'kubectl top {command} --help' for usage."
                )))
            }
            _ => f.words.push(a.to_string()),
        }
        i += 1;
    }
    if let Some(s) = &f.sort_by {
        if s != "cpu" && s != "memory" {
            return Err(CommandOutput::error(
                "error: --sort-by accepts only cpu or memory",
            ));
        }
    }
    Ok(f)
}

/// Entry point: `args` is the whole command line after `kubectl`.
pub(crate) fn run(cluster: &Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let mut rest: Vec<String> = args.to_vec();
    if let Some(p) = rest.iter().position(|a| a == "top") {
        rest.remove(p);
    }
    // The subcommand is the first word that is not a flag or a flag's value.
    let sub = first_word(&rest);
    let Some((idx, sub)) = sub else {
        return CommandOutput::error(
            "Display resource (CPU/memory) usage.\n\n The top command allows you to see the resource consumption for nodes or pods.\n\n This command requires Metrics Server to be correctly configured and working on the server.\n\nAvailable Commands:\n  node          Display resource (CPU/memory) usage of nodes\n  pod           Display resource (CPU/memory) usage of pods\n\nUsage:\n  kubectl top [flags] [options]",
        );
    };
    rest.remove(idx);
    match sub.as_str() {
        "node" | "nodes" | "no" => match parse_flags(&rest, "node") {
            Ok(f) => top_node(cluster, ctx, f),
            Err(e) => e,
        },
        "pod" | "pods" | "po" => match parse_flags(&rest, "pod") {
            Ok(f) => top_pod(cluster, ctx, f),
            Err(e) => e,
        },
        other => CommandOutput::error(format!(
            "error: unknown command \"{other}\" for \"kubectl top\""
        )),
    }
}

fn first_word(args: &[String]) -> Option<(usize, String)> {
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if matches!(
            a.as_str(),
            "-n" | "--namespace" | "-l" | "--selector" | "--sort-by" | "--field-selector"
        ) {
            i += 2;
            continue;
        }
        if !a.starts_with('-') {
            return Some((i, a.clone()));
        }
        i += 1;
    }
    None
}

fn cpu(m: u64) -> String {
    format!("{m}m")
}

fn mem(bytes: u64) -> String {
    format!("{}Mi", bytes / MIB)
}

/// A row of tab-terminated cells, as `printValue` writes them.
fn row(out: &mut String, cells: &[String]) {
    for c in cells {
        out.push_str(c);
        out.push('\t');
    }
    out.push('\n');
}

fn top_node(cluster: &Cluster, ctx: &Context<'_>, f: Flags) -> CommandOutput {
    let name = f.words.first().cloned();
    if f.words.len() > 1 {
        return CommandOutput::error(
            "error: node [NAME | -l label]\nSee 'kubectl top node -h' for help and examples",
        );
    }
    if name.is_some() && f.selector.is_some() {
        return CommandOutput::error("error: only one of NAME or --selector can be provided");
    }
    let selector = match f.selector.as_deref().map(Selector::parse).transpose() {
        Ok(s) => s,
        Err(e) => return CommandOutput::error(format!("error: {e}")),
    };
    if let Err(e) = crate::context::authorize(cluster, ctx, "list", Kind::Node, "", "") {
        return CommandOutput::error(errors::render(&e, None));
    }
    if !cluster.metrics_api_registered() {
        return CommandOutput::error("error: Metrics API not available");
    }
    let metrics = match cluster.node_metrics() {
        Ok(m) => m,
        Err(e) => return CommandOutput::error(errors::render(&e, None)),
    };
    // The nodes asked for, with their allocatable.
    let mut allocatable: BTreeMap<String, (i128, i128, BTreeMap<String, String>)> = BTreeMap::new();
    for obj in cluster.list(Kind::Node, None) {
        let Object::Node(n) = obj else { continue };
        let node_name = n.metadata.name.clone().unwrap_or_default();
        let labels = n.metadata.labels.clone().unwrap_or_default();
        if name.as_deref().is_some_and(|x| x != node_name) {
            continue;
        }
        if selector.as_ref().is_some_and(|s| !s.matches(&labels)) {
            continue;
        }
        let alloc = n.status.as_ref().and_then(|s| s.allocatable.as_ref());
        let q = |r: &str| {
            alloc
                .and_then(|a| a.get(r))
                .and_then(|q| warehouse_sim::object::quantity::Quantity::parse(&q.0))
                .map(|q| q.milli_value())
                .unwrap_or(0)
        };
        allocatable.insert(node_name, (q("cpu"), q("memory"), labels));
    }
    let mut metrics: Vec<_> = metrics
        .into_iter()
        .filter(|m| allocatable.contains_key(&m.name))
        .collect();
    if let Some(n) = &name {
        if !metrics.iter().any(|m| &m.name == n) {
            return CommandOutput::error(format!(
                "Error from server (NotFound): nodemetrics.metrics.k8s.io \"{n}\" not found"
            ));
        }
    }
    if metrics.is_empty() {
        return CommandOutput::error("error: metrics not available yet");
    }
    match f.sort_by.as_deref() {
        Some("cpu") => metrics.stable_sort_by_key(|m| std::cmp::Reverse(m.cpu_milli)),
        Some("memory") => metrics.stable_sort_by_key(|m| std::cmp::Reverse(m.memory_bytes)),
        _ => metrics.stable_sort_by(|a, b| a.name.cmp(&b.name)),
    }
    let mut text = String::new();
    if !f.no_headers {
        row(
            &mut text,
            &["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"].map(String::from),
        );
    }
    let pct = |used: u64, avail: i128| -> String {
        if avail == 0 {
            return "0%".into();
        }
        format!("{}%", (used as f64 / avail as f64 * 100.0) as i64)
    };
    for m in &metrics {
        let (acpu, amem, _) = allocatable.remove(&m.name).unwrap_or_default();
        row(
            &mut text,
            &[
                m.name.clone(),
                cpu(m.cpu_milli),
                pct(m.cpu_milli, acpu),
                mem(m.memory_bytes),
                pct(m.memory_bytes * 1000, amem),
            ],
        );
    }
    for missing in allocatable.keys() {
        let u = "<unknown>".to_string();
        row(
            &mut text,
            &[missing.clone(), u.clone(), u.clone(), u.clone(), u],
        );
    }
    let mut out = CommandOutput::new();
    out.stdout = crate::printers::tabwriter::align(&text, 0, 3);
    out
}

fn top_pod(cluster: &Cluster, ctx: &Context<'_>, f: Flags) -> CommandOutput {
    if f.words.len() > 1 {
        return CommandOutput::error(
            "error: pod [NAME | -l label]\nSee 'kubectl top pod -h' for help and examples",
        );
    }
    let name = f.words.first().cloned();
    if name.is_some() && (f.selector.is_some() || f.field_selector.is_some()) {
        return CommandOutput::error("error: only one of NAME or selector can be provided");
    }
    if f.field_selector.is_some() {
        return CommandOutput::error(
            "error: kubectl top pod --field-selector is not simulated; use -l or a pod name",
        );
    }
    let selector = match f.selector.as_deref().map(Selector::parse).transpose() {
        Ok(s) => s,
        Err(e) => return CommandOutput::error(format!("error: {e}")),
    };
    let namespace = f
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let scope = (!f.all_namespaces).then_some(namespace.as_str());
    if let Err(e) =
        crate::context::authorize(cluster, ctx, "list", Kind::Pod, scope.unwrap_or(""), "")
    {
        return CommandOutput::error(errors::render(&e, None));
    }
    if !cluster.metrics_api_registered() {
        return CommandOutput::error("error: Metrics API not available");
    }
    let metrics = match name {
        Some(n) => one_pod_metrics(cluster, &namespace, &n),
        None => pod_metrics(cluster, scope, selector.as_ref()),
    };
    let mut metrics = match metrics {
        Ok(m) => m,
        Err(e) => return CommandOutput::error(e),
    };
    if metrics.is_empty() {
        return no_pod_metrics(cluster, &f, scope, selector.as_ref(), &namespace);
    }
    let with_ns = f.all_namespaces;
    match f.sort_by.as_deref() {
        Some("cpu") => metrics.stable_sort_by_key(|m| std::cmp::Reverse(m.cpu_milli())),
        Some("memory") => metrics.stable_sort_by_key(|m| std::cmp::Reverse(m.memory_bytes())),
        _ => metrics.stable_sort_by(|a, b| {
            if with_ns && a.namespace != b.namespace {
                a.namespace.cmp(&b.namespace)
            } else {
                a.name.cmp(&b.name)
            }
        }),
    }
    let mut out = CommandOutput::new();
    out.stdout = crate::printers::tabwriter::align(&pod_table(&f, &mut metrics), 0, 3);
    out
}

/// The metrics of one pod. kubectl checks a pod without them itself: missing, or
/// too young to have metrics.
fn one_pod_metrics(
    cluster: &Cluster,
    namespace: &str,
    name: &str,
) -> Result<Vec<PodMetrics>, String> {
    match cluster.pod_metrics_one(namespace, name) {
        Ok(m) => Ok(vec![m]),
        Err(e) if e.reason == warehouse_sim::StatusReason::NotFound => {
            Err(match cluster.get(Kind::Pod, namespace, name) {
                Err(e) => errors::render(&e, None),
                Ok(Object::Pod(p)) => match young_or_error(cluster, &p) {
                    Some(err) => err,
                    None => "error: metrics not available yet".to_string(),
                },
                Ok(_) => "error: metrics not available yet".to_string(),
            })
        }
        Err(e) => Err(errors::render(&e, None)),
    }
}

/// The metrics of the pods in scope that the selector picks.
fn pod_metrics(
    cluster: &Cluster,
    scope: Option<&str>,
    selector: Option<&Selector>,
) -> Result<Vec<PodMetrics>, String> {
    let labels_of = |ns: &str, n: &str| -> Option<BTreeMap<String, String>> {
        match cluster.get(Kind::Pod, ns, n) {
            Ok(Object::Pod(p)) => Some(p.metadata.labels.unwrap_or_default()),
            _ => None,
        }
    };
    match cluster.pod_metrics(scope) {
        Ok(all) => Ok(all
            .into_iter()
            .filter(|m| {
                selector
                    .is_none_or(|s| labels_of(&m.namespace, &m.name).is_some_and(|l| s.matches(&l)))
            })
            .collect()),
        Err(e) => Err(errors::render(&e, None)),
    }
}

/// kubectl's verifyEmptyMetrics when no pod had metrics: any pod older than two
/// minutes means metrics are missing for it; otherwise they are not there yet, or
/// there are no pods.
fn no_pod_metrics(
    cluster: &Cluster,
    f: &Flags,
    scope: Option<&str>,
    selector: Option<&Selector>,
    namespace: &str,
) -> CommandOutput {
    let mut any = false;
    for obj in cluster.list(Kind::Pod, scope) {
        let Object::Pod(p) = obj else { continue };
        let labels = p.metadata.labels.clone().unwrap_or_default();
        if selector.is_some_and(|s| !s.matches(&labels)) {
            continue;
        }
        any = true;
        if let Some(err) = young_or_error(cluster, &p) {
            return CommandOutput::error(err);
        }
    }
    if any {
        return CommandOutput::error("error: metrics not available yet");
    }
    let mut out = CommandOutput::new();
    if f.all_namespaces {
        out.err_line("No resources found");
    } else {
        out.err_line(format!("No resources found in {namespace} namespace."));
    }
    out
}

/// The rows of `top pod` (tab-separated): a pod a row, or with `--containers` a
/// container a row; `--sum` adds the totals.
fn pod_table(f: &Flags, metrics: &mut [PodMetrics]) -> String {
    let with_ns = f.all_namespaces;
    let mut text = String::new();
    let mut columns = 3;
    if !f.no_headers {
        let mut h: Vec<String> = Vec::new();
        if with_ns {
            h.push("NAMESPACE".into());
            columns += 1;
        }
        if f.containers {
            h.push("POD".into());
            columns += 1;
        }
        h.extend(["NAME", "CPU(cores)", "MEMORY(bytes)"].map(String::from));
        row(&mut text, &h);
    }
    for m in metrics.iter_mut() {
        if f.containers {
            match f.sort_by.as_deref() {
                Some("cpu") => m
                    .containers
                    .stable_sort_by_key(|m| std::cmp::Reverse(m.cpu_milli)),
                Some("memory") => m
                    .containers
                    .stable_sort_by_key(|c| std::cmp::Reverse(c.memory_bytes)),
                _ => m.containers.stable_sort_by(|a, b| a.name.cmp(&b.name)),
            }
            for c in &m.containers {
                let mut cells = Vec::new();
                if with_ns {
                    cells.push(m.namespace.clone());
                }
                cells.push(m.name.clone());
                cells.extend([c.name.clone(), cpu(c.cpu_milli), mem(c.memory_bytes)]);
                row(&mut text, &cells);
            }
        } else {
            let mut cells = Vec::new();
            if with_ns {
                cells.push(m.namespace.clone());
            }
            cells.extend([m.name.clone(), cpu(m.cpu_milli()), mem(m.memory_bytes())]);
            row(&mut text, &cells);
        }
    }
    if f.sum {
        let total_cpu: u64 = metrics.iter().map(|m| m.cpu_milli()).sum();
        let total_mem: u64 = metrics.iter().map(|m| m.memory_bytes()).sum();
        let mut cells: Vec<String> = vec![String::new(); columns - 2];
        cells.extend(["________".to_string(), "________".to_string()]);
        row(&mut text, &cells);
        let mut cells: Vec<String> = vec![String::new(); columns - 3];
        cells.extend([String::new(), cpu(total_cpu), mem(total_mem)]);
        row(&mut text, &cells);
    }
    text
}

/// `checkPodAge`: a pod older than two minutes without metrics is an error.
fn young_or_error(cluster: &Cluster, pod: &k8s_openapi::api::core::v1::Pod) -> Option<String> {
    let created = pod.metadata.creation_timestamp.as_ref()?;
    let age = crate::printers::humanize::millis_since(cluster.now(), &created.0);
    (age > METRICS_CREATION_DELAY_MS).then(|| {
        format!(
            "error: Metrics not available for pod {}/{}, age: {}",
            pod.metadata.namespace.as_deref().unwrap_or(""),
            pod.metadata.name.as_deref().unwrap_or(""),
            warehouse_sim::time::go_duration(warehouse_sim::SimDuration::millis(age as u64))
        )
    })
}
