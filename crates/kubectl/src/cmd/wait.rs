//! `kubectl wait` (k8s.io/kubectl/pkg/cmd/wait/wait.go, condition.go,
//! jsonpath_waiter.go): waits until named objects (or those `-l`/`--all` pick when
//! the command starts) are deleted (`--for=delete`), have a status condition
//! (`--for=condition=Ready`, value `True` unless given, ignored while its
//! observedGeneration lags) or a field value (`--for=jsonpath='{.status.phase}'=Running`).
//! Time is simulated: the wait advances the cluster a second at a time until every
//! object is done or `--timeout` (default 30s) has passed. The JSONPath is kubectl's
//! dialect (jsonpath.rs), relaxed as kubectl relaxes it (`.a.b`, `{.a.b}`); it must
//! select one value that is not a map or a list. Simplified: `--for=create` is not
//! simulated.

use crate::args::clap_error;
use crate::cmd::get::parse_resource_args;
use crate::context::{CommandOutput, Context};
use crate::errors;
use crate::selector::Selector;
use clap::{ArgAction, Parser};
use serde_json::Value;
use std::collections::BTreeMap;
use warehouse_sim::{Cluster, Kind, SimDuration, StatusReason};

#[derive(Parser, Debug)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct WaitArgs {
    /// `wait`, then TYPE NAME, TYPE/NAME or TYPE with a selector.
    words: Vec<String>,
    #[arg(short = 'n', long = "namespace")]
    namespace: Option<String>,
    #[arg(long = "for")]
    for_condition: Option<String>,
    #[arg(long = "timeout")]
    timeout: Option<String>,
    #[arg(short = 'l', long = "selector")]
    selector: Option<String>,
    #[arg(long = "all", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    all: bool,
    #[arg(short = 'A', long = "all-namespaces", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    all_namespaces: bool,
}

/// What to wait for.
enum Condition {
    Delete,
    Status {
        name: String,
        value: String,
    },
    JsonPath {
        path: crate::printers::jsonpath::JsonPath,
        value: Option<String>,
    },
}

/// `--timeout` as kubectl reads it (a Go duration; negative means a week).
pub(crate) fn parse_timeout(t: &str) -> Result<SimDuration, String> {
    if let Some(rest) = t.strip_prefix('-') {
        if warehouse_sim::time::parse_duration(rest).is_ok() {
            return Ok(SimDuration::secs(168 * 3600));
        }
    }
    if t == "0" {
        return Ok(SimDuration::ZERO);
    }
    if t.chars().all(|c| c.is_ascii_digit()) {
        // A bare number is not a Go duration.
        return Err(format!(
            "error: invalid argument \"{t}\" for \"--timeout\" flag: time: missing unit in duration \"{t}\"\nSee 'kubectl wait --help' for usage."
        ));
    }
    warehouse_sim::time::parse_duration(t).map_err(|_| {
        format!("error: invalid argument \"{t}\" for \"--timeout\" flag: time: invalid duration \"{t}\"\nSee 'kubectl wait --help' for usage.")
    })
}

/// wait.go's splitJSONPathInput: split on single `=`, keeping `==`.
fn split_jsonpath_input(input: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '=' {
            if chars.peek() == Some(&'=') {
                chars.next();
                cur.push_str("==");
                continue;
            }
            out.push(std::mem::take(&mut cur));
            continue;
        }
        cur.push(c);
    }
    out.push(cur);
    out
}

/// kubectl's relaxed JSONPath (`{.status.phase}`, `.status.phase`, `status.phase`).
fn parse_path(expr: &str) -> Result<crate::printers::jsonpath::JsonPath, String> {
    let e = expr.trim().trim_matches(|c| c == '\'' || c == '"');
    if e.is_empty() {
        return Err("error: jsonpath expression cannot be empty".into());
    }
    let relaxed = crate::printers::jsonpath::relaxed(e).map_err(|err| format!("error: {err}"))?;
    crate::printers::jsonpath::JsonPath::parse(&relaxed).map_err(|err| format!("error: {err}"))
}

fn parse_condition(text: &str) -> Result<Condition, String> {
    if text.eq_ignore_ascii_case("delete") {
        return Ok(Condition::Delete);
    }
    if let Some(rest) = text.strip_prefix("condition=") {
        let (name, value) = match rest.split_once('=') {
            Some((n, v)) => (n, v),
            None => (rest, "true"),
        };
        return Ok(Condition::Status {
            name: name.to_string(),
            value: value.to_string(),
        });
    }
    if let Some(rest) = text.strip_prefix("jsonpath=") {
        let parts = split_jsonpath_input(rest);
        if parts.is_empty() || parts.len() > 2 {
            return Err("error: jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or --for=jsonpath='{.status.readyReplicas}'".into());
        }
        let path = parse_path(&parts[0])?;
        let value = match parts.get(1) {
            None => None,
            Some(v) => {
                let v = v.trim_matches(|c| c == '\'' || c == '"');
                if v.is_empty() {
                    return Err("error: jsonpath wait has to have a value after equal sign, like --for=jsonpath='{.status.readyReplicas}'=3".into());
                }
                Some(v.to_string())
            }
        };
        return Ok(Condition::JsonPath { path, value });
    }
    if text == "create" {
        return Err("error: --for=create is not available in this simulated cluster yet".into());
    }
    Err(format!("error: unrecognized condition: \"{text}\""))
}

/// Whether the object (as JSON) meets a status or field condition; `Err` for a
/// JSONPath that selects several values or a map or list (upstream's errors).
fn met(cond: &Condition, v: &Value) -> Result<bool, String> {
    Ok(match cond {
        Condition::Delete => false,
        Condition::Status { name, value } => {
            let generation = v["metadata"]["generation"].as_i64();
            for c in v["status"]["conditions"].as_array().into_iter().flatten() {
                let Some(t) = c["type"].as_str() else {
                    continue;
                };
                if !t.eq_ignore_ascii_case(name) {
                    continue;
                }
                let Some(status) = c["status"].as_str() else {
                    continue;
                };
                // Conditions observed for an older generation do not count.
                let observed = c["observedGeneration"]
                    .as_i64()
                    .or_else(|| v["status"]["observedGeneration"].as_i64());
                if let (Some(g), Some(o)) = (generation, observed) {
                    if o < g {
                        return Ok(false);
                    }
                }
                return Ok(status.eq_ignore_ascii_case(value));
            }
            false
        }
        Condition::JsonPath { path, value } => {
            let results = path.find_results(v)?;
            let Some(first) = results.first().and_then(|r| r.first()) else {
                return Ok(false);
            };
            if results.len() > 1 {
                return Err("given jsonpath expression matches more than one list".into());
            }
            if results[0].len() > 1 {
                return Err("given jsonpath expression matches more than one value".into());
            }
            match value {
                None => true,
                Some(want) => match first {
                    Value::Object(_) | Value::Array(_) => {
                        return Err(
                            "jsonpath leads to a nested object or list which is not supported"
                                .into(),
                        )
                    }
                    other => crate::printers::jsonpath::go_print(other).trim() == want.trim(),
                },
            }
        }
    })
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let parsed = match WaitArgs::try_parse_from(args) {
        Ok(p) => p,
        Err(e) => return clap_error(e, Some("wait"), args),
    };
    let timeout = match parsed.timeout.as_deref() {
        None => SimDuration::secs(30),
        Some(t) => match parse_timeout(t) {
            Ok(d) => d,
            Err(e) => return CommandOutput::error(e),
        },
    };
    let condition = match parse_condition(parsed.for_condition.as_deref().unwrap_or("")) {
        Ok(c) => c,
        Err(e) => return CommandOutput::error(e),
    };
    let rest: Vec<String> = parsed.words.iter().skip(1).cloned().collect();
    if rest.is_empty() {
        return CommandOutput::error("error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'");
    }
    let requests = match parse_resource_args(&rest) {
        Ok(r) => r,
        Err(e) => return CommandOutput::error(e),
    };
    let selector = match parsed.selector.as_deref().map(Selector::parse) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(e)) => return CommandOutput::error(format!("error: {e}")),
    };
    let any_names = requests.iter().any(|r| !r.names.is_empty());
    if !any_names && selector.is_none() && !parsed.all {
        return CommandOutput::error("error: resource(s) were provided, but no name was specified");
    }
    let namespace = parsed
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let is_delete = matches!(condition, Condition::Delete);
    let mut out = CommandOutput::new();
    // The objects to wait for, found when the command starts.
    let mut targets: Vec<(Kind, String, String)> = Vec::new();
    for r in &requests {
        let ns = if r.kind.namespaced() {
            namespace.clone()
        } else {
            String::new()
        };
        if r.names.is_empty() {
            let scope = if parsed.all_namespaces || !r.kind.namespaced() {
                None
            } else {
                Some(ns.as_str())
            };
            match crate::context::list(cluster, ctx, r.kind, scope) {
                Ok(list) => {
                    let empty = BTreeMap::new();
                    for o in list {
                        let labels = o.meta().labels.as_ref().unwrap_or(&empty);
                        if selector.as_ref().is_none_or(|s| s.matches(labels)) {
                            targets.push((r.kind, o.namespace().to_string(), o.name().to_string()));
                        }
                    }
                }
                Err(e) => return CommandOutput::error(errors::render(&e, None)),
            }
        } else {
            for name in &r.names {
                match crate::context::get(cluster, ctx, r.kind, &ns, name) {
                    Ok(_) => targets.push((r.kind, ns.clone(), name.clone())),
                    // Waiting for a deletion ignores objects that are already gone.
                    Err(e) if is_delete && e.reason == StatusReason::NotFound => {}
                    Err(e) => return CommandOutput::error(errors::render(&e, None)),
                }
            }
        }
    }
    if targets.is_empty() {
        if !is_delete {
            out.fail("error: no matching resources found");
        }
        return out;
    }
    let deadline = cluster.now() + crate::context::bounded_wait(timeout, &mut out);
    for (kind, ns, name) in targets {
        let display = format!("{}/{name}", kind.qualified_singular());
        loop {
            let current = crate::context::authorize(cluster, ctx, "get", kind, &ns, &name)
                .and_then(|()| cluster.get(kind, &ns, &name));
            let done = match &current {
                Err(e) if e.reason == StatusReason::NotFound => {
                    if is_delete {
                        true
                    } else {
                        out.fail(errors::render(e, None));
                        return out;
                    }
                }
                Err(e) => {
                    out.fail(errors::render(e, None));
                    return out;
                }
                Ok(obj) => match met(&condition, &obj.to_json()) {
                    Ok(done) => done,
                    Err(e) => {
                        out.fail(format!("error: {e}"));
                        return out;
                    }
                },
            };
            if done {
                out.out_line(format!("{display} condition met"));
                break;
            }
            if timeout == SimDuration::ZERO {
                out.fail(format!(
                    "error: condition not met for {}/{name}",
                    kind.qualified_plural()
                ));
                return out;
            }
            if cluster.now() >= deadline {
                out.fail(format!(
                    "error: timed out waiting for the condition on {}/{name}",
                    kind.plural()
                ));
                return out;
            }
            cluster.advance(SimDuration::secs(1));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn m(c: &Condition, v: &Value) -> bool {
        met(c, v).unwrap()
    }

    #[test]
    fn jsonpath_input_splits_on_single_equals_only() {
        assert_eq!(
            split_jsonpath_input("{.a}=b"),
            vec!["{.a}".to_string(), "b".to_string()]
        );
        assert_eq!(split_jsonpath_input("{.a==b}"), vec!["{.a==b}".to_string()]);
        assert_eq!(
            split_jsonpath_input("{.ä}=ö"),
            vec!["{.ä}".to_string(), "ö".to_string()]
        );
    }

    #[test]
    fn conditions_follow_kubectl() {
        let pod = json!({"metadata": {"generation": 1}, "status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}], "podIPs": [{"ip": "10.0.0.1"}]}});
        let ready = parse_condition("condition=ready").unwrap();
        assert!(
            m(&ready, &pod),
            "condition names compare case-insensitively"
        );
        let not_ready = parse_condition("condition=Ready=False").unwrap();
        assert!(!m(&not_ready, &pod));
        let phase = parse_condition("jsonpath={.status.phase}=Running").unwrap();
        assert!(m(&phase, &pod));
        let ip = parse_condition("jsonpath=.status.podIPs[0].ip").unwrap();
        assert!(m(&ip, &pod));
        let missing = parse_condition("jsonpath={.status.nothing}").unwrap();
        assert!(!m(&missing, &pod));
        assert!(parse_condition("ready").is_err());
        assert!(parse_condition("jsonpath={.a}=").is_err());
        let filtered =
            parse_condition("jsonpath={.status.conditions[?(@.type==\"Ready\")].status}=True")
                .unwrap();
        assert!(m(&filtered, &pod));
        let many = parse_condition("jsonpath={.a[*]}=1").unwrap();
        assert_eq!(
            met(&many, &json!({"a": [1, 2]})).unwrap_err(),
            "given jsonpath expression matches more than one value"
        );
        let nested = parse_condition("jsonpath={.status}=x").unwrap();
        assert!(met(&nested, &pod).is_err());
    }

    #[test]
    fn stale_conditions_are_ignored() {
        let d = json!({"metadata": {"generation": 2}, "status": {"observedGeneration": 1,
            "conditions": [{"type": "Available", "status": "True"}]}});
        assert!(!m(&parse_condition("condition=Available").unwrap(), &d));
    }
}
