//! `kubectl autoscale (TYPE NAME | TYPE/NAME) [--min=MINPODS] --max=MAXPODS [--cpu=CPU]
//! [--memory=MEMORY]`: a HorizontalPodAutoscaler for a Deployment, ReplicaSet,
//! StatefulSet or ReplicationController.
//!
//! Mirrors staging/src/k8s.io/kubectl/pkg/cmd/autoscale/autoscale.go (1.37): the
//! checks of `Validate` (`--max` at least 1 and not below `--min`, `--cpu-percent`
//! and `--cpu` exclusive, `--cpu`/`--memory` as a percentage, a quantity or a bare
//! number in millicores or mebibytes), the target looked up first and refused
//! without a scale subresource, an autoscaling/v2 object named after the target
//! (or `--name`) with one Resource metric per target given, `minReplicas` only when
//! `--min` is positive, and the `autoscaled` line. `--cpu-percent` still works, with
//! pflag's deprecation warning. When the v2 create fails, upstream falls back to
//! autoscaling/v1 when the configuration allows it (a `--cpu` utilization, no
//! `--memory`) and prints that attempt's answer; otherwise it explains that the
//! configuration cannot be written at v1. Simplified: `-f` is not available (the
//! simulated laptop has no files) and `-o json` of a client-side dry run is refused,
//! as for the create generators.

use crate::context::{CommandOutput, Context};
use crate::errors;
use serde_json::{json, Value};
use warehouse_sim::object::quantity::Quantity;
use warehouse_sim::{Cluster, Kind, Object};

const USAGE: &str = "See 'kubectl autoscale --help' for usage.";

/// The flags as kubectl reads them (`-1` where upstream's default is `-1`).
#[derive(Debug)]
struct Flags {
    words: Vec<String>,
    namespace: Option<String>,
    min: i32,
    max: Option<i32>,
    cpu_percent: i32,
    cpu: String,
    memory: String,
    name: String,
    output: Option<String>,
    dry_run: Option<String>,
    /// pflag's warnings, printed as the flags are read.
    warnings: Vec<String>,
}

const CPU_PERCENT_DEPRECATED: &str = "Flag --cpu-percent has been deprecated, Use --cpu with percentage or resource quantity format (e.g., '70%' for utilization or '500m' for milliCPU).";

fn takes_value(flag: &str) -> bool {
    matches!(
        flag,
        "-n" | "--namespace"
            | "--min"
            | "--max"
            | "--cpu-percent"
            | "--cpu"
            | "--memory"
            | "--name"
            | "-o"
            | "--output"
            | "-f"
            | "--filename"
            | "--field-manager"
            | "--template"
    )
}

/// pflag's int32 parse error.
fn int32(flag: &str, value: &str) -> Result<i32, String> {
    value.parse::<i32>().map_err(|_| {
        let why = if value.parse::<i64>().is_ok() {
            "value out of range"
        } else {
            "invalid syntax"
        };
        format!(
            "error: invalid argument \"{value}\" for \"{flag}\" flag: strconv.ParseInt: parsing \"{value}\": {why}\n{USAGE}"
        )
    })
}

fn parse(args: &[String]) -> Result<Flags, String> {
    let mut f = Flags {
        words: Vec::new(),
        namespace: None,
        min: -1,
        max: None,
        cpu_percent: -1,
        cpu: String::new(),
        memory: String::new(),
        name: String::new(),
        output: None,
        dry_run: None,
        warnings: Vec::new(),
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            f.words.extend(args[i + 1..].iter().cloned());
            break;
        }
        let (flag, inline) = match a.split_once('=') {
            Some((fl, v)) if fl.starts_with("--") => (fl.to_string(), Some(v.to_string())),
            _ if a.starts_with("-o") && a.len() > 2 && !a.starts_with("--") => (
                "-o".to_string(),
                Some(a[2..].trim_start_matches('=').to_string()),
            ),
            _ if a.starts_with("-n") && a.len() > 2 && !a.starts_with("--") => (
                "-n".to_string(),
                Some(a[2..].trim_start_matches('=').to_string()),
            ),
            _ => (a.to_string(), None),
        };
        match flag.as_str() {
            "--dry-run" => f.dry_run = Some(inline.unwrap_or_else(|| "client".into())),
            "--save-config"
            | "--record"
            | "--allow-missing-template-keys"
            | "--show-managed-fields" => {}
            _ if takes_value(&flag) => {
                let value = match inline {
                    Some(v) => v,
                    None => {
                        i += 1;
                        args.get(i).cloned().ok_or_else(|| {
                            if flag.starts_with("--") {
                                format!("error: flag needs an argument: {flag}\n{USAGE}")
                            } else {
                                let letter = flag.trim_start_matches('-');
                                format!(
                                    "error: flag needs an argument: '{letter}' in {flag}\n{USAGE}"
                                )
                            }
                        })?
                    }
                };
                match flag.as_str() {
                    "-n" | "--namespace" => f.namespace = Some(value),
                    "--min" => f.min = int32("--min", &value)?,
                    "--max" => f.max = Some(int32("--max", &value)?),
                    "--cpu-percent" => {
                        f.cpu_percent = int32("--cpu-percent", &value)?;
                        if f.warnings.is_empty() {
                            f.warnings.push(CPU_PERCENT_DEPRECATED.to_string());
                        }
                    }
                    "--cpu" => f.cpu = value,
                    "--memory" => f.memory = value,
                    "--name" => f.name = value,
                    "-o" | "--output" => f.output = Some(value),
                    "-f" | "--filename" => {
                        return Err(
                            "error: -f needs a file, which the simulated laptop does not have; name the resource instead (kubectl autoscale deployment NAME ...)"
                                .into(),
                        )
                    }
                    _ => {}
                }
            }
            _ if a.starts_with("--") => {
                return Err(format!("error: unknown flag: {flag}\n{USAGE}"));
            }
            _ if a.starts_with('-') && a.len() > 1 => {
                let letter = a.chars().nth(1).unwrap_or('?');
                return Err(format!(
                    "error: unknown shorthand flag: '{letter}' in {a}\n{USAGE}"
                ));
            }
            _ => f.words.push(a.to_string()),
        }
        i += 1;
    }
    Ok(f)
}

/// A metric target as `parseResourceInput` reads it.
#[derive(Debug, PartialEq)]
enum Target {
    Utilization(i32),
    AverageValue(String),
}

/// Go's `%g` of a float (shortest representation, exponent form below 1e-4 and from
/// 1e+06 on).
fn go_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return "0".into();
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        format!("{f}")
    }
}

/// `parseResourceInput`: `70%` is a utilization, `500m` or `2Gi` an average value, a
/// bare number an average value in millicores (cpu) or mebibytes (memory).
fn parse_resource_input(input: &str, resource: &str) -> Result<Target, String> {
    let input = input.trim();
    if input.is_empty() {
        return Err("empty input".into());
    }
    if let Some(trimmed) = input.strip_suffix('%') {
        return match trimmed.parse::<i32>() {
            Ok(v) if v >= 0 => Ok(Target::Utilization(v)),
            _ => Err(format!("invalid percentage value: {trimmed}")),
        };
    }
    const FORMAT: &str = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    if let Ok(value) = input.parse::<f64>() {
        let unit = if resource == "cpu" { "m" } else { "Mi" };
        let with_unit = format!("{}{unit}", go_g(value));
        return Quantity::parse(&with_unit)
            .map(|q| Target::AverageValue(q.to_string()))
            .ok_or_else(|| FORMAT.to_string());
    }
    Quantity::parse(input)
        .map(|q| Target::AverageValue(q.to_string()))
        .ok_or_else(|| format!("invalid resource {resource} value: {input}"))
}

fn metric(resource: &str, target: &Target) -> Value {
    let target = match target {
        Target::Utilization(v) => json!({"type": "Utilization", "averageUtilization": v}),
        Target::AverageValue(q) => json!({"type": "AverageValue", "averageValue": q}),
    };
    json!({"type": "Resource", "resource": {"name": resource, "target": target}})
}

/// `Validate`.
fn validate(f: &Flags, max: i32) -> Result<(), String> {
    if max < 1 {
        return Err(format!(
            "error: --max=MAXPODS is required and must be at least 1, max: {max}"
        ));
    }
    if max < f.min {
        return Err(format!(
            "error: --max=MAXPODS must be larger or equal to --min=MINPODS, max: {max}, min: {}",
            f.min
        ));
    }
    if f.cpu_percent > 0 && !f.cpu.is_empty() {
        return Err("error: --cpu-percent and --cpu are mutually exclusive".into());
    }
    if !f.cpu.is_empty() {
        parse_resource_input(&f.cpu, "cpu").map_err(|e| format!("error: {e}"))?;
    }
    if !f.memory.is_empty() {
        parse_resource_input(&f.memory, "memory").map_err(|e| format!("error: {e}"))?;
    }
    Ok(())
}

/// `createHorizontalPodAutoscalerV2`.
fn autoscaler(f: &Flags, max: i32, target: Kind, target_name: &str, namespace: &str) -> Value {
    let mut metrics = Vec::new();
    if f.cpu_percent > 0 {
        metrics.push(metric("cpu", &Target::Utilization(f.cpu_percent)));
    }
    if let Ok(t) = parse_resource_input(&f.cpu, "cpu") {
        metrics.push(metric("cpu", &t));
    }
    if let Ok(t) = parse_resource_input(&f.memory, "memory") {
        metrics.push(metric("memory", &t));
    }
    let target_field = (!metrics.is_empty()).then_some(("metrics", Value::Array(metrics)));
    skeleton(
        "autoscaling/v2",
        f,
        max,
        (target, target_name),
        namespace,
        target_field,
    )
}

/// `createHorizontalPodAutoscalerV1`: the fallback's object, its cpu target only
/// from `--cpu-percent`.
fn autoscaler_v1(f: &Flags, max: i32, target: Kind, target_name: &str, namespace: &str) -> Value {
    let target_field =
        (f.cpu_percent >= 0).then(|| ("targetCPUUtilizationPercentage", json!(f.cpu_percent)));
    skeleton(
        "autoscaling/v1",
        f,
        max,
        (target, target_name),
        namespace,
        target_field,
    )
}

/// The object both versions share: its name (`--name`, else the target's), the
/// target reference, the replica bounds, and the version's own target field.
fn skeleton(
    api_version: &str,
    f: &Flags,
    max: i32,
    (target, target_name): (Kind, &str),
    namespace: &str,
    target_field: Option<(&str, Value)>,
) -> Value {
    let name = if f.name.is_empty() {
        target_name
    } else {
        f.name.as_str()
    };
    let mut spec = json!({
        "scaleTargetRef": {
            "apiVersion": target.api_version(),
            "kind": target.as_str(),
            "name": target_name,
        },
        "maxReplicas": max,
    });
    if f.min > 0 {
        spec["minReplicas"] = json!(f.min);
    }
    if let Some((field, value)) = target_field {
        spec[field] = value;
    }
    json!({
        "apiVersion": api_version,
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    })
}

/// `canCreateHPAV1`'s refusal, when the configuration cannot be written at v1.
fn v1_refusal(f: &Flags) -> Option<String> {
    let prefix = "error: failed to create autoscaling/v2 HPA and the configuration is incompatible with autoscaling/v1";
    match parse_resource_input(&f.cpu, "cpu") {
        Err(e) => Some(format!("{prefix}: {e}")),
        Ok(t) => {
            let ok = (f.cpu_percent >= 0 && f.memory.is_empty())
                || (f.memory.is_empty() && matches!(t, Target::Utilization(_)));
            (!ok).then(|| format!("{prefix}: %!w(<nil>)"))
        }
    }
}

const HELP: &str = "Creates an autoscaler that automatically chooses and sets the number of pods that run in a Kubernetes cluster. The command will attempt to use the autoscaling/v2 API first, in case of an error, it will fall back to autoscaling/v1 API.

 Looks up a deployment, replica set, stateful set, or replication controller by name and creates an autoscaler that uses the given resource as a reference. An autoscaler can automatically increase or decrease number of pods deployed within the system as needed.

Examples:
  # Auto scale a deployment \"foo\", with the number of pods between 2 and 10, no target CPU utilization specified so a default autoscaling policy will be used
  kubectl autoscale deployment foo --min=2 --max=10

  # Auto scale a replication controller \"foo\", with the number of pods between 1 and 5, target CPU utilization at 80%
  kubectl autoscale rc foo --max=5 --cpu=80%

  # Auto scale a deployment \"bar\", with the number of pods between 3 and 6, target average CPU of 500m and memory of 200Mi
  kubectl autoscale deployment bar --min=3 --max=6 --cpu=500m --memory=200Mi

  # Auto scale a deployment \"bar\", with the number of pods between 2 and 8, target CPU utilization 60% and memory utilization 70%
  kubectl autoscale deployment bar --min=3 --max=6 --cpu=60% --memory=70%

Options:
    --cpu='':
\tTarget CPU utilization over all the pods. When specified as a percentage (e.g.\"70%\" for 70% of requested CPU) it will target average utilization. When specified as quantity (e.g.\"500m\" for 500 milliCPU) it will target average value. Value without units is treated as a quantity with miliCPU being the unit (e.g.\"500\" is \"500m\").

    --dry-run='none':
\tMust be \"none\", \"server\", or \"client\". If client strategy, only print the object that would be sent, without sending it. If server strategy, submit server-side request without persisting the resource.

    --max=-1:
\tThe upper limit for the number of pods that can be set by the autoscaler. Required.

    --memory='':
\tTarget memory utilization over all the pods. When specified  as a percentage (e.g.\"60%\" for 60% of requested memory) it will target average utilization. When specified as quantity (e.g.\"200Mi\" for 200 MiB, \"1Gi\" for 1 GiB) it will target average value. Value without units is treated as a quantity with mebibytes being the unit (e.g.\"200\" is \"200Mi\").

    --min=-1:
\tThe lower limit for the number of pods that can be set by the autoscaler. If it's not specified or negative, the server will apply a default value.

    --name='':
\tThe name for the newly created object. If not specified, the name of the input resource will be used.

    -o, --output='':
\tOutput format. One of: (json, yaml, name).

Usage:
  kubectl autoscale (-f FILENAME | TYPE NAME | TYPE/NAME) [--min=MINPODS] --max=MAXPODS [--cpu=CPU] [--memory=MEMORY] [options]
";

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return CommandOutput {
            stdout: HELP.to_string(),
            ..CommandOutput::default()
        };
    }
    let f = match parse(args) {
        Ok(f) => f,
        Err(e) => return CommandOutput::error(e),
    };
    let mut out = CommandOutput::new();
    for w in &f.warnings {
        out.err_line(w);
    }
    let Some(max) = f.max else {
        out.fail("error: required flag(s) \"max\" not set");
        return out;
    };
    if let Err(e) = validate(&f, max) {
        out.fail(e);
        return out;
    }
    let suffix = match crate::cmd::apply::DryRun::parse(f.dry_run.as_deref()) {
        Ok(d) => d.suffix(),
        Err(e) => {
            out.fail(e);
            return out;
        }
    };
    let client = suffix == " (dry run)";
    match f.output.as_deref() {
        None | Some("") | Some("yaml") | Some("name") => {}
        Some("json") if client => {
            out.fail("error: -o json with --dry-run=client is not available in this simulated cluster yet; use -o yaml");
            return out;
        }
        Some("json") => {}
        Some(other) => {
            out.fail(format!(
                "error: -o {other} is not available for autoscale in this simulated cluster; use yaml, json or name"
            ));
            return out;
        }
    }
    // words: autoscale TYPE NAME... | autoscale TYPE/NAME...
    let rest: Vec<String> = f.words.iter().skip(1).cloned().collect();
    if rest.is_empty() {
        out.fail("error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'");
        return out;
    }
    let resources = match crate::cmd::get::parse_resource_args(&rest) {
        Ok(r) => r,
        Err(e) => {
            out.fail(e);
            return out;
        }
    };
    let namespace = f
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    for r in resources {
        if r.names.is_empty() {
            out.fail("error: resource(s) were provided, but no name was specified");
            return out;
        }
        for target_name in &r.names {
            let got =
                crate::context::authorize(cluster, ctx, "get", r.kind, &namespace, target_name)
                    .and_then(|()| cluster.check_storage())
                    .and_then(|()| cluster.get(r.kind, &namespace, target_name));
            if let Err(e) = got {
                out.fail(errors::render(&e, None));
                return out;
            }
            if !matches!(
                r.kind,
                Kind::Deployment
                    | Kind::ReplicaSet
                    | Kind::StatefulSet
                    | Kind::ReplicationController
            ) {
                let info = r.kind.info();
                out.fail(format!(
                    "error: cannot autoscale a {}: could not find scale subresource for {}/{}, Resource={} in discovery information",
                    info.kind, info.group, info.versions[0], info.plural
                ));
                return out;
            }
            let value = autoscaler(&f, max, r.kind, target_name, &namespace);
            let generated = {
                let mut v = value.clone();
                if f.namespace.is_none() {
                    if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
                        meta.remove("namespace");
                    }
                }
                v["status"] = json!({"currentMetrics": null, "desiredReplicas": 0});
                v
            };
            let obj = match Object::from_json(Kind::HorizontalPodAutoscaler, value) {
                Ok(o) => o,
                Err(e) => {
                    out.fail(format!("error: {e}"));
                    return out;
                }
            };
            let created = match crate::context::create_generated(cluster, ctx, obj, suffix) {
                Ok(c) => c,
                Err(_) => {
                    // Upstream tries autoscaling/v1 when the v2 create fails, if the
                    // configuration can be written there.
                    if let Some(refusal) = v1_refusal(&f) {
                        out.fail(refusal);
                        return out;
                    }
                    let v1 = autoscaler_v1(&f, max, r.kind, target_name, &namespace);
                    let made =
                        Object::from_json_at(Kind::HorizontalPodAutoscaler, "autoscaling/v1", v1)
                            .map_err(|e| format!("error: {e}"))
                            .and_then(|o| {
                                crate::context::create_generated(cluster, ctx, o, suffix)
                                    .map_err(|e| errors::render(&e, None))
                            });
                    match made {
                        Ok(c) => c,
                        Err(e) => {
                            out.fail(e);
                            return out;
                        }
                    }
                }
            };
            let display = format!("horizontalpodautoscaler.autoscaling/{}", created.name());
            match f.output.as_deref() {
                None | Some("") => {
                    let operation = if client { "created" } else { "autoscaled" };
                    out.out_line(format!("{display} {operation}{suffix}"));
                }
                Some("name") => out.out_line(display),
                Some(format) => crate::cmd::create_more::print_generated(
                    &mut out, format, client, generated, &created,
                ),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_inputs_read_as_upstream_parses_them() {
        assert_eq!(
            parse_resource_input("50%", "cpu"),
            Ok(Target::Utilization(50))
        );
        assert_eq!(
            parse_resource_input("500m", "cpu"),
            Ok(Target::AverageValue("500m".into()))
        );
        assert_eq!(
            parse_resource_input("500", "cpu"),
            Ok(Target::AverageValue("500m".into()))
        );
        assert_eq!(
            parse_resource_input("200", "memory"),
            Ok(Target::AverageValue("200Mi".into()))
        );
        assert_eq!(
            parse_resource_input("-5%", "cpu"),
            Err("invalid percentage value: -5".into())
        );
        assert_eq!(
            parse_resource_input("abc", "cpu"),
            Err("invalid resource cpu value: abc".into())
        );
        assert_eq!(
            parse_resource_input("x%", "memory"),
            Err("invalid percentage value: x".into())
        );
        assert_eq!(parse_resource_input(" ", "cpu"), Err("empty input".into()));
    }

    #[test]
    fn go_g_switches_to_an_exponent_as_go_does() {
        assert_eq!(go_g(500.0), "500");
        assert_eq!(go_g(0.5), "0.5");
        assert_eq!(go_g(123456.0), "123456");
        assert_eq!(go_g(1e6), "1e+06");
        assert_eq!(go_g(0.00001), "1e-05");
    }
}
