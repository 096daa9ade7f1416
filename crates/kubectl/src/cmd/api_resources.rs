//! `kubectl api-resources`: the discovery data of the kinds the simulated apiserver
//! serves (crates/sim object.rs, `Kind::ALL`, and the kinds CustomResourceDefinitions
//! add), printed as kubectl 1.33 prints it
//! (k8s.io/kubectl pkg/cmd/apiresources). Also the `all` category `kubectl get all`
//! expands to.

use crate::args::clap_error;
use crate::context::CommandOutput;
use crate::printers::table;
use clap::{ArgAction, Args, Parser, Subcommand};
use warehouse_sim::Kind;
use warehouse_sim::StableSort;

#[derive(Parser, Debug)]
#[command(
    name = "kubectl",
    no_binary_name = true,
    disable_help_subcommand = true,
    disable_version_flag = true
)]
struct Root {
    #[arg(short = 'n', long = "namespace", global = true, hide = true)]
    _namespace: Option<String>,
    #[command(subcommand)]
    command: Sub,
}

#[derive(Subcommand, Debug)]
enum Sub {
    /// Print the supported API resources on the server
    #[command(name = "api-resources")]
    ApiResources(ApiResourcesArgs),
}

#[derive(Args, Debug)]
struct ApiResourcesArgs {
    /// Limit to resources in the specified API group.
    #[arg(long = "api-group", value_name = "GROUP")]
    api_group: Option<String>,
    /// If false, non-namespaced resources will be returned, otherwise returning namespaced resources by default.
    #[arg(long = "namespaced", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    namespaced: Option<String>,
    /// When using the default or custom-column output format, don't print headers (default print headers).
    #[arg(long = "no-headers", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    no_headers: bool,
    /// Output format. One of: (wide, name).
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    output: Option<String>,
    /// If non-empty, sort list of resources using specified field. The field can be either 'name' or 'kind'.
    #[arg(long = "sort-by", value_name = "FIELD")]
    sort_by: Option<String>,
    /// Limit to resources that support the specified verbs.
    #[arg(long = "verbs", value_delimiter = ',')]
    verbs: Vec<String>,
    /// Limit to resources that belong to the specified categories.
    #[arg(long = "categories", value_delimiter = ',')]
    categories: Vec<String>,
    /// Use the cached list of resources if available.
    #[arg(long = "cached", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    _cached: bool,
    /// Arguments api-resources does not take
    #[arg(hide = true)]
    args: Vec<String>,
}

/// The verbs discovery lists for a kind.
pub(crate) fn verbs(kind: Kind) -> &'static [&'static str] {
    match kind {
        // Namespaces cannot be deleted as a collection.
        Kind::Namespace => &[
            "create", "delete", "get", "list", "patch", "update", "watch",
        ],
        _ => &[
            "create",
            "delete",
            "deletecollection",
            "get",
            "list",
            "patch",
            "update",
            "watch",
        ],
    }
}

/// The categories discovery lists for a kind (`kubectl get all` is the `all` one).
pub(crate) fn categories(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Pod
        | Kind::ReplicationController
        | Kind::Service
        | Kind::DaemonSet
        | Kind::Deployment
        | Kind::ReplicaSet
        | Kind::StatefulSet
        | Kind::HorizontalPodAutoscaler
        | Kind::CronJob
        | Kind::Job => &["all"],
        _ => &[],
    }
}

/// The order the apiserver lists its groups in discovery (kube-aggregator's group
/// priorities); groups not listed come last.
const GROUP_ORDER: &[&str] = &[
    "",
    "apps",
    "events.k8s.io",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "networking.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "scheduling.k8s.io",
    "coordination.k8s.io",
    "node.k8s.io",
    "discovery.k8s.io",
    "flowcontrol.apiserver.k8s.io",
];

/// The kinds of a category in discovery order (groups by priority, resources by
/// name): what `kubectl get all` lists, in the order it prints them.
pub(crate) fn category(name: &str) -> Vec<Kind> {
    let mut kinds: Vec<Kind> = Kind::ALL
        .into_iter()
        .filter(|k| categories(*k).contains(&name))
        .collect();
    kinds.stable_sort_by_key(|k| {
        let rank = GROUP_ORDER
            .iter()
            .position(|g| *g == k.group())
            .unwrap_or(GROUP_ORDER.len());
        (rank, k.group(), k.plural())
    });
    kinds
}

/// Go's `strconv.ParseBool`.
fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Runs `kubectl api-resources` (`args` is the whole command line).
pub(crate) fn run(args: &[String]) -> CommandOutput {
    let root = match Root::try_parse_from(args) {
        Ok(r) => r,
        Err(e) => return clap_error(e, Some("api-resources"), args),
    };
    let Sub::ApiResources(a) = root.command;
    if !a.args.is_empty() {
        return CommandOutput::error(format!(
            "error: unexpected arguments: [{}]\nSee 'kubectl api-resources -h' for help and examples",
            a.args.join(" ")
        ));
    }
    let namespaced = match a.namespaced.as_deref().map(|v| (v, parse_bool(v))) {
        None => None,
        Some((_, Some(b))) => Some(b),
        Some((v, None)) => {
            return CommandOutput::error(format!(
                "error: invalid argument \"{v}\" for \"--namespaced\" flag: strconv.ParseBool: parsing \"{v}\": invalid syntax\nSee 'kubectl api-resources --help' for usage."
            ))
        }
    };
    let output = a.output.as_deref().unwrap_or("");
    if !["", "wide", "name"].contains(&output) {
        return CommandOutput::error(format!("error: --output {output} is not available"));
    }
    let sort_by = a.sort_by.as_deref().unwrap_or("");
    if !["", "name", "kind"].contains(&sort_by) {
        return CommandOutput::error("error: --sort-by accepts only name or kind");
    }

    let mut kinds: Vec<Kind> = Kind::ALL
        .into_iter()
        .chain(crate::discovery::custom_kinds())
        .filter(|k| a.api_group.as_deref().is_none_or(|g| g == k.group()))
        .filter(|k| namespaced.is_none_or(|n| n == k.namespaced()))
        .filter(|k| a.verbs.iter().all(|v| verbs(*k).contains(&v.as_str())))
        .filter(|k| {
            a.categories
                .iter()
                .all(|c| categories(*k).contains(&c.as_str()))
        })
        .collect();
    // kubectl sorts by group (or by the --sort-by field), then by resource name.
    kinds.stable_sort_by(|x, y| {
        let key = |k: &Kind| match sort_by {
            "name" => k.plural(),
            "kind" => k.as_str(),
            _ => k.group(),
        };
        key(x).cmp(key(y)).then(x.plural().cmp(y.plural()))
    });

    let mut out = CommandOutput::new();
    if output == "name" {
        for k in kinds {
            out.out_line(k.qualified_plural());
        }
        return out;
    }
    let wide = output == "wide";
    let mut rows: Vec<Vec<String>> = Vec::new();
    if !a.no_headers {
        let mut header = vec!["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"];
        if wide {
            header.extend(["VERBS", "CATEGORIES"]);
        }
        rows.push(header.into_iter().map(String::from).collect());
    }
    for k in kinds {
        let info = k.info();
        let mut row = vec![
            info.plural.to_string(),
            info.short_names.join(","),
            k.api_version(),
            info.namespaced.to_string(),
            info.kind.to_string(),
        ];
        if wide {
            row.push(verbs(k).join(","));
            row.push(categories(k).join(","));
        }
        rows.push(row);
    }
    out.stdout = table::format(&rows);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_line(line: &str) -> CommandOutput {
        run(&shell_words::split(line).unwrap())
    }

    #[test]
    fn sorted_by_group_then_name_like_kubectl() {
        let out = run_line("api-resources");
        let lines: Vec<&str> = out.stdout.lines().collect();
        assert!(lines[0].starts_with("NAME "));
        assert!(lines[0].ends_with("NAMESPACED   KIND"));
        let names: Vec<&str> = lines[1..]
            .iter()
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        // Core group first, alphabetically; then apps, autoscaling, batch...
        assert_eq!(&names[..3], &["configmaps", "endpoints", "events"]);
        let pos = |n: &str| names.iter().position(|x| *x == n).unwrap();
        assert!(pos("services") < pos("daemonsets"));
        assert!(pos("statefulsets") < pos("horizontalpodautoscalers"));
        assert!(pos("cronjobs") < pos("jobs"));
        assert!(pos("jobs") < pos("leases"));
        assert_eq!(names.len(), Kind::ALL.len());
        let hpa = lines
            .iter()
            .find(|l| l.starts_with("horizontalpodautoscalers"))
            .unwrap();
        assert_eq!(
            hpa.split_whitespace().collect::<Vec<_>>(),
            [
                "horizontalpodautoscalers",
                "hpa",
                "autoscaling/v2",
                "true",
                "HorizontalPodAutoscaler"
            ]
        );
    }

    #[test]
    fn filters_and_name_output() {
        let out = run_line("api-resources --namespaced=false -o name");
        assert_eq!(
            out.stdout,
            "namespaces\nnodes\npersistentvolumes\n\
             customresourcedefinitions.apiextensions.k8s.io\n\
             ingressclasses.networking.k8s.io\n\
             clusterrolebindings.rbac.authorization.k8s.io\n\
             clusterroles.rbac.authorization.k8s.io\n\
             priorityclasses.scheduling.k8s.io\n\
             storageclasses.storage.k8s.io\n"
        );
        let out = run_line("api-resources --api-group=apps --no-headers -o name");
        assert_eq!(
            out.stdout,
            "controllerrevisions.apps\ndaemonsets.apps\ndeployments.apps\nreplicasets.apps\nstatefulsets.apps\n"
        );
        let out = run_line("api-resources --namespaced=true --api-group= -o name");
        assert!(out.stdout.starts_with("configmaps\nendpoints\n"));
        assert!(!out.stdout.contains("nodes"));
    }

    #[test]
    fn errors_read_like_kubectl() {
        assert_eq!(
            run_line("api-resources -o yaml").stderr,
            "error: --output yaml is not available\n"
        );
        assert_eq!(
            run_line("api-resources --sort-by=age").stderr,
            "error: --sort-by accepts only name or kind\n"
        );
        assert_eq!(
            run_line("api-resources extra").stderr,
            "error: unexpected arguments: [extra]\nSee 'kubectl api-resources -h' for help and examples\n"
        );
        assert_eq!(
            run_line("api-resources --namespaced=maybe").stderr,
            "error: invalid argument \"maybe\" for \"--namespaced\" flag: strconv.ParseBool: parsing \"maybe\": invalid syntax\nSee 'kubectl api-resources --help' for usage.\n"
        );
    }

    #[test]
    fn all_category_in_discovery_order() {
        assert_eq!(
            category("all"),
            [
                Kind::Pod,
                Kind::ReplicationController,
                Kind::Service,
                Kind::DaemonSet,
                Kind::Deployment,
                Kind::ReplicaSet,
                Kind::StatefulSet,
                Kind::HorizontalPodAutoscaler,
                Kind::CronJob,
                Kind::Job,
            ]
        );
    }
}
