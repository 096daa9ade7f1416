//! `kubectl events` (k8s.io/kubectl/pkg/cmd/events/events.go and event_printer.go):
//! the namespace's Events (every namespace with `-A`), oldest first by their last
//! time seen, optionally only those about one object (`--for TYPE/NAME`) or of some
//! types (`--types=Warning`). Simplified: no `--watch` and no `-o`.

use crate::args::clap_error;
use crate::context::{CommandOutput, Context};
use crate::errors;
use crate::printers::humanize::{human_duration, millis_since};
use clap::{ArgAction, Parser};
use k8s_openapi::api::core::v1::Event;
use warehouse_sim::StableSort;
use warehouse_sim::{Cluster, Kind, Object};

#[derive(Parser, Debug)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct EventsArgs {
    /// `events`.
    words: Vec<String>,
    #[arg(short = 'n', long = "namespace")]
    namespace: Option<String>,
    #[arg(short = 'A', long = "all-namespaces", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    all_namespaces: bool,
    #[arg(long = "for")]
    for_object: Option<String>,
    #[arg(long = "types", value_delimiter = ',')]
    types: Vec<String>,
    #[arg(long = "no-headers", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    no_headers: bool,
    #[arg(short = 'w', long = "watch", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    watch: bool,
}

/// event_printer.go's getInterval: `5s`, or `5s (x3 over 2m)` for a repeated event.
fn interval(e: &Event, now: warehouse_sim::SimTime) -> String {
    let since = |t: Option<&k8s_openapi::jiff::Timestamp>| match t {
        Some(t) => human_duration(millis_since(now, t)),
        None => "<unknown>".to_string(),
    };
    let first = match &e.event_time {
        Some(t) => since(Some(&t.0)),
        None => since(e.first_timestamp.as_ref().map(|t| &t.0)),
    };
    if let Some(series) = &e.series {
        return format!(
            "{} (x{} over {first})",
            since(series.last_observed_time.as_ref().map(|t| &t.0)),
            series.count.unwrap_or_default()
        );
    }
    if e.count.unwrap_or(0) > 1 {
        return format!(
            "{} (x{} over {first})",
            since(e.last_timestamp.as_ref().map(|t| &t.0)),
            e.count.unwrap_or_default()
        );
    }
    first
}

/// events.go's eventTime: what the list is sorted by.
fn sort_time(e: &Event) -> Option<k8s_openapi::jiff::Timestamp> {
    if let Some(s) = &e.series {
        return s.last_observed_time.as_ref().map(|t| t.0);
    }
    if let Some(t) = &e.last_timestamp {
        return Some(t.0);
    }
    e.event_time.as_ref().map(|t| t.0)
}

/// escapeCell: a cell stops at the first line break.
fn cell(s: &str) -> String {
    match s.find(['\n', '\r', '\x0c']) {
        Some(i) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

pub(crate) fn run(cluster: &Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let parsed = match EventsArgs::try_parse_from(args) {
        Ok(p) => p,
        Err(e) => return clap_error(e, Some("events"), args),
    };
    for t in &parsed.types {
        if !t.eq_ignore_ascii_case("Normal") && !t.eq_ignore_ascii_case("Warning") {
            return CommandOutput::error("error: valid --types are Normal or Warning");
        }
    }
    if parsed.watch {
        return CommandOutput::error(
            "error: --watch is not available in this simulated cluster yet; advance the simulation and run events again",
        );
    }
    // `--for TYPE/NAME`: events whose involvedObject has that kind and name.
    let for_object: Option<(String, String)> = match parsed.for_object.as_deref() {
        None | Some("") => None,
        Some(f) => {
            let Some((t, name)) = f.split_once('/') else {
                return CommandOutput::error(format!(
                    "error: --for must be in resource/name form, got: {f}"
                ));
            };
            if name.contains('/') {
                return CommandOutput::error(
                    "error: arguments in resource/name form may not have more than one slash",
                );
            }
            match crate::cmd::get::lookup_kind(t) {
                Ok(kinds) if kinds.len() == 1 => {
                    Some((kinds[0].as_str().to_string(), name.to_string()))
                }
                Ok(_) => {
                    return CommandOutput::error(format!(
                        "error: the server doesn't have a resource type \"{t}\""
                    ))
                }
                Err(e) => return CommandOutput::error(e),
            }
        }
    };
    let namespace = parsed
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let scope = if parsed.all_namespaces {
        None
    } else {
        Some(namespace.as_str())
    };
    let listed = crate::context::list(cluster, ctx, Kind::Event, scope)
        .and_then(|l| cluster.check_storage().map(|()| l));
    let objects = match listed {
        Ok(l) => l,
        Err(e) => return CommandOutput::error(errors::render(&e, None)),
    };
    let mut events: Vec<(String, Event)> = objects
        .into_iter()
        .filter_map(|o| match o {
            Object::Event(e) => Some((e.metadata.namespace.clone().unwrap_or_default(), *e)),
            _ => None,
        })
        .filter(|(_, e)| {
            parsed.types.is_empty()
                || parsed.types.iter().any(|t| {
                    e.type_
                        .as_deref()
                        .is_some_and(|et| et.eq_ignore_ascii_case(t))
                })
        })
        .filter(|(_, e)| match &for_object {
            None => true,
            Some((kind, name)) => {
                e.involved_object.kind.as_deref() == Some(kind.as_str())
                    && e.involved_object.name.as_deref() == Some(name.as_str())
            }
        })
        .collect();
    let mut out = CommandOutput::new();
    if events.is_empty() {
        if parsed.all_namespaces {
            out.err_line("No events found.");
        } else {
            out.err_line(format!("No events found in {namespace} namespace."));
        }
        return out;
    }
    events.stable_sort_by_key(|(_, e)| sort_time(e));
    let now = cluster.now();
    let mut text = String::new();
    if !parsed.no_headers {
        if parsed.all_namespaces {
            text.push_str("NAMESPACE\t");
        }
        text.push_str("LAST SEEN\tTYPE\tREASON\tOBJECT\tMESSAGE\n");
    }
    for (ns, e) in &events {
        if parsed.all_namespaces {
            text.push_str(ns);
            text.push('\t');
        }
        text.push_str(&format!(
            "{}\t{}\t{}\t{}/{}\t{}\n",
            interval(e, now),
            cell(e.type_.as_deref().unwrap_or("")),
            cell(e.reason.as_deref().unwrap_or("")),
            cell(e.involved_object.kind.as_deref().unwrap_or("")),
            cell(e.involved_object.name.as_deref().unwrap_or("")),
            cell(e.message.as_deref().unwrap_or("").trim()),
        ));
    }
    // printers.GetNewTabWriter: minwidth 6, padding 3.
    out.stdout
        .push_str(&crate::printers::tabwriter::align(&text, 6, 3));
    out
}
