//! `kubectl get componentstatuses` (`cs`): the deprecated v1 ComponentStatus list.
//! The apiserver probes the scheduler, the controller manager and etcd when asked;
//! nothing is stored, so it answers even while etcd is down.

use crate::args::GetArgs;
use crate::context::CommandOutput;
use crate::errors;
use crate::printers::json::to_go_json;
use crate::printers::table;
use crate::printers::yaml;
use k8s_openapi::api::core::v1::ComponentStatus;
use warehouse_sim::{ApiError, Cluster, StatusReason};

/// The warning the apiserver attaches to every ComponentStatus response.
const DEPRECATION: &str = "Warning: v1 ComponentStatus is deprecated in v1.19+";

fn is_componentstatus(resource: &str) -> bool {
    let r = resource.to_ascii_lowercase();
    let r = r
        .strip_suffix(".v1")
        .or_else(|| r.strip_suffix(".v1."))
        .unwrap_or(&r);
    matches!(r, "cs" | "componentstatus" | "componentstatuses")
}

/// Runs `get` if it asks for componentstatuses only; `None` leaves the command to
/// the general `get`.
pub(crate) fn run(cluster: &Cluster, args: &GetArgs) -> Option<CommandOutput> {
    let (first, rest) = args.args.split_first()?;
    let names: Vec<String> = match first.split_once('/') {
        Some((t, n)) if is_componentstatus(t) => {
            let mut names = vec![n.to_string()];
            for a in rest {
                match a.split_once('/') {
                    Some((t, n)) if is_componentstatus(t) => names.push(n.to_string()),
                    _ => return Some(mixed()),
                }
            }
            names
        }
        Some(_) => {
            return rest
                .iter()
                .any(|a| {
                    a.split_once('/')
                        .is_some_and(|(t, _)| is_componentstatus(t))
                })
                .then(mixed)
        }
        None => {
            let types: Vec<&str> = first.split(',').filter(|t| !t.is_empty()).collect();
            let cs = types.iter().filter(|t| is_componentstatus(t)).count();
            if cs == 0 {
                return None;
            }
            if cs != types.len() {
                return Some(mixed());
            }
            rest.to_vec()
        }
    };
    let mut out = CommandOutput::new();
    out.err_line(DEPRECATION);
    let all = cluster.component_statuses();
    let mut items: Vec<ComponentStatus> = Vec::new();
    if names.is_empty() {
        items = all;
    } else {
        for name in &names {
            match all
                .iter()
                .find(|c| c.metadata.name.as_deref() == Some(name))
            {
                Some(c) => items.push(c.clone()),
                None if args.ignore_not_found => {}
                // The REST storage returns a plain error, which the apiserver sends
                // as a Status without a reason.
                None => out.fail(errors::render(
                    &ApiError::new(
                        StatusReason::Unknown,
                        format!("Component not found: {name}"),
                    ),
                    None,
                )),
            }
        }
    }
    let single = names.len() == 1;
    match args.output.as_deref().unwrap_or("") {
        "" | "wide" => {
            let mut rows = Vec::new();
            if !args.no_headers && !items.is_empty() {
                rows.push(
                    ["NAME", "STATUS", "MESSAGE", "ERROR"]
                        .map(String::from)
                        .to_vec(),
                );
            }
            rows.extend(items.iter().map(row));
            out.stdout.push_str(&table::format(&rows));
        }
        "name" => {
            for c in &items {
                out.out_line(format!(
                    "componentstatus/{}",
                    c.metadata.name.as_deref().unwrap_or("")
                ));
            }
        }
        format @ ("yaml" | "json") => {
            // Written by serde_json's compact writer and read back, the encoder every
            // object already goes through: `to_value` and `json!` compile a second
            // one (the value serializer) for ComponentStatus.
            let as_json = |c: &ComponentStatus| -> serde_json::Value {
                let bytes = serde_json::to_vec(c).expect("ComponentStatus serialises");
                serde_json::from_slice(&bytes).expect("serde_json reads what it writes")
            };
            let value = if single && items.len() == 1 {
                as_json(&items[0])
            } else {
                serde_json::json!({
                    "apiVersion": "v1",
                    "items": items.iter().map(as_json).collect::<Vec<_>>(),
                    "kind": "List",
                    "metadata": {"resourceVersion": ""},
                })
            };
            if format == "yaml" {
                out.stdout.push_str(&yaml::to_yaml(&value));
            } else {
                out.out_line(to_go_json(&value));
            }
        }
        other => {
            return Some(CommandOutput::error(format!(
                "error: -o {other} is not available for componentstatuses in this simulated cluster; use wide, yaml, json or name"
            )))
        }
    }
    Some(out)
}

/// `printComponentStatus`: the Healthy condition's status, message and error.
fn row(c: &ComponentStatus) -> Vec<String> {
    let healthy = c
        .conditions
        .iter()
        .flatten()
        .find(|cond| cond.type_ == "Healthy");
    let (status, message, error) = match healthy {
        Some(cond) => (
            if cond.status == "True" {
                "Healthy"
            } else {
                "Unhealthy"
            },
            cond.message.clone().unwrap_or_default(),
            cond.error.clone().unwrap_or_default(),
        ),
        None => ("Unknown", String::new(), String::new()),
    };
    vec![
        c.metadata.name.clone().unwrap_or_default(),
        status.to_string(),
        message,
        error,
    ]
}

fn mixed() -> CommandOutput {
    CommandOutput::error(
        "error: componentstatuses cannot be listed together with other resource types in this simulated cluster yet",
    )
}
