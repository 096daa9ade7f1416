//! `kubectl expose` (k8s.io/kubectl/pkg/cmd/expose/expose.go, with the
//! polymorphichelpers it asks for the selector, ports and protocols): makes a
//! Service in front of a Deployment, ReplicaSet, Pod or Service. The selector comes
//! from the workload (`--selector` overrides it), the ports from `--port` or the
//! containers' ports (several become `port-1`, `port-2`, ...), the target port is the
//! port unless `--target-port` says otherwise, the labels are the workload's.
//! `--dry-run=client -o yaml` prints the generated manifest.
//! Simplified: no `-f`, `--cluster-ip`, `--external-ip` or `--overrides`; `-o` is
//! yaml, json or name.

use crate::args::clap_error;
use crate::cmd::get::parse_resource_args;
use crate::context::{CommandOutput, Context};
use crate::errors;
use clap::Parser;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use warehouse_sim::CollectMap;
use warehouse_sim::{ApiError, Cluster, Kind, Object, StatusReason};

#[derive(Parser, Debug)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct ExposeArgs {
    /// `expose`, then TYPE NAME or TYPE/NAME.
    words: Vec<String>,
    #[arg(short = 'n', long = "namespace")]
    namespace: Option<String>,
    #[arg(long = "port")]
    port: Option<String>,
    #[arg(long = "target-port", alias = "container-port")]
    target_port: Option<String>,
    #[arg(long = "type")]
    service_type: Option<String>,
    #[arg(long = "name")]
    name: Option<String>,
    #[arg(long = "protocol")]
    protocol: Option<String>,
    #[arg(long = "selector")]
    selector: Option<String>,
    #[arg(short = 'l', long = "labels")]
    labels: Option<String>,
    #[arg(long = "dry-run", num_args = 0..=1, require_equals = true, default_missing_value = "client")]
    dry_run: Option<String>,
    #[arg(short = 'o', long = "output")]
    output: Option<String>,
}

const SERVICE_TYPES: &[&str] = &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];

fn usage_error(message: impl AsRef<str>) -> CommandOutput {
    CommandOutput::error(format!(
        "error: {}\nSee 'kubectl expose -h' for help and examples",
        message.as_ref()
    ))
}

/// What a Service is generated from (kubectl's generator parameters).
pub(crate) struct ServiceSpec {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub selector: BTreeMap<String, String>,
    /// Port numbers, each with its protocol.
    pub ports: Vec<(i32, String)>,
    pub target_port: Option<String>,
    pub service_type: Option<String>,
}

impl ServiceSpec {
    pub(crate) fn to_json(&self) -> Value {
        let several = self.ports.len() > 1;
        let ports: Vec<Value> = self
            .ports
            .iter()
            .enumerate()
            .map(|(i, (port, protocol))| {
                let target = match &self.target_port {
                    Some(t) => match t.parse::<i64>() {
                        Ok(n) => json!(n),
                        Err(_) => json!(t),
                    },
                    None => json!(port),
                };
                let mut p = json!({"port": port, "protocol": protocol, "targetPort": target});
                if several {
                    p["name"] = json!(format!("port-{}", i + 1));
                }
                p
            })
            .collect();
        let mut metadata = json!({"name": self.name, "namespace": self.namespace});
        if !self.labels.is_empty() {
            metadata["labels"] = json!(self.labels);
        }
        let mut spec = json!({"ports": ports, "selector": self.selector});
        if let Some(t) = &self.service_type {
            spec["type"] = json!(t);
        }
        json!({"apiVersion": "v1", "kind": "Service", "metadata": metadata, "spec": spec})
    }
}

/// Creates the Service (authorized as the caller) and returns kubectl's line for it.
pub(crate) fn create_service(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    spec: &ServiceSpec,
    dry_run: Option<&str>,
    verb: &str,
    output: Option<&str>,
    explicit_namespace: bool,
) -> Result<String, String> {
    let client_dry_run = dry_run == Some("client");
    if let Some(t) = spec.service_type.as_ref().filter(|_| !client_dry_run) {
        if !SERVICE_TYPES.contains(&t.as_str()) {
            let err = ApiError::new(
                StatusReason::Invalid,
                format!(
                    "Service \"{}\" is invalid: spec.type: Unsupported value: \"{t}\": supported values: \"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\"",
                    spec.name
                ),
            );
            return Err(errors::render(&err, None));
        }
    }
    // The apiserver's port validation (the simulated apiserver does not check Services'
    // ports itself).
    if !client_dry_run {
        for (i, (port, _)) in spec.ports.iter().enumerate() {
            if !(1..=65535).contains(port) {
                let err = ApiError::new(
                    StatusReason::Invalid,
                    format!(
                        "Service \"{}\" is invalid: spec.ports[{i}].port: Invalid value: {port}: must be between 1 and 65535, inclusive",
                        spec.name
                    ),
                );
                return Err(errors::render(&err, None));
            }
        }
    }
    let obj =
        Object::from_json(Kind::Service, spec.to_json()).map_err(|e| format!("error: {e}"))?;
    let suffix = crate::cmd::apply::DryRun::parse(dry_run)?.suffix();
    let result = crate::context::create_generated(cluster, ctx, obj, suffix);
    let created = result.map_err(|e| errors::render(&e, None))?;
    Ok(match output {
        None => format!("service/{} {verb}{suffix}", created.name()),
        Some("name") => format!("service/{}", created.name()),
        Some(format) => {
            let v = if client_dry_run {
                // The generated object: a namespace only when one was given.
                let mut v = spec.to_json();
                if !explicit_namespace {
                    if let Some(m) = v["metadata"].as_object_mut() {
                        m.remove("namespace");
                    }
                }
                v["status"] = json!({"loadBalancer": {}});
                v
            } else {
                crate::cmd::get::printable_json(&created)
            };
            if format == "yaml" {
                crate::printers::yaml::to_yaml(&v)
            } else {
                crate::printers::json::to_go_json(&v)
            }
        }
    })
}

/// A `--port` flag as Go's `strconv.Atoi` reads it: absent or empty is no port; a
/// value that is not a number (or too large) is an error with Atoi's message.
pub(crate) fn parse_port_flag(port: Option<&str>) -> Result<Option<i32>, String> {
    match port {
        None | Some("") => Ok(None),
        Some(p) => match p.parse::<i32>() {
            Ok(n) => Ok(Some(n)),
            Err(_) => {
                let digits = p.strip_prefix('-').unwrap_or(p);
                let why = if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
                    "value out of range"
                } else {
                    "invalid syntax"
                };
                Err(format!("error: strconv.Atoi: parsing \"{p}\": {why}"))
            }
        },
    }
}

/// `k=v,k2=v2` (kubectl's generate.ParseLabels).
pub(crate) fn parse_label_list(text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for part in text.split(',') {
        match part.split_once('=') {
            Some((k, v)) if !k.is_empty() && !v.contains('=') => {
                out.insert(k.to_string(), v.to_string());
            }
            _ => return Err(format!("error: invalid label spec: {part}")),
        }
    }
    Ok(out)
}

fn string_map(v: &Value) -> BTreeMap<String, String> {
    v.as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect_map()
        })
        .unwrap_or_default()
}

/// polymorphichelpers' MapBasedSelectorForObject.
fn selector_for(kind: Kind, v: &Value) -> Result<BTreeMap<String, String>, String> {
    match kind {
        Kind::Pod => {
            let labels = string_map(&v["metadata"]["labels"]);
            if labels.is_empty() {
                return Err("the pod has no labels and cannot be exposed".into());
            }
            Ok(labels)
        }
        Kind::Service => {
            if v["spec"]["selector"].is_null() {
                return Err("the service has no pod selector set".into());
            }
            Ok(string_map(&v["spec"]["selector"]))
        }
        _ => {
            let sel = &v["spec"]["selector"];
            if sel.is_null() {
                return Ok(string_map(&v["spec"]["template"]["metadata"]["labels"]));
            }
            if sel["matchExpressions"]
                .as_array()
                .is_some_and(|e| !e.is_empty())
            {
                return Err(format!(
                    "couldn't convert expressions - \"{}\" to map-based selector format",
                    sel
                ));
            }
            Ok(string_map(&sel["matchLabels"]))
        }
    }
}

/// polymorphichelpers' PortsForObject and ProtocolsForObject: the ports with their
/// protocols, in order.
fn ports_for(kind: Kind, v: &Value) -> Vec<(i32, String)> {
    let mut out: Vec<(i32, String)> = Vec::new();
    let mut push = |port: &Value, protocol: &Value| {
        if let Some(p) = port.as_i64() {
            let proto = protocol.as_str().unwrap_or("TCP").to_string();
            out.push((p as i32, proto));
        }
    };
    if kind == Kind::Service {
        for p in v["spec"]["ports"].as_array().into_iter().flatten() {
            push(&p["port"], &p["protocol"]);
        }
        return out;
    }
    let spec = if kind == Kind::Pod {
        &v["spec"]
    } else {
        &v["spec"]["template"]["spec"]
    };
    for c in spec["containers"].as_array().into_iter().flatten() {
        for p in c["ports"].as_array().into_iter().flatten() {
            push(&p["containerPort"], &p["protocol"]);
        }
    }
    out
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let parsed = match ExposeArgs::try_parse_from(args) {
        Ok(p) => p,
        Err(e) => return clap_error(e, Some("expose"), args),
    };
    let rest: Vec<String> = parsed.words.iter().skip(1).cloned().collect();
    if rest.is_empty() {
        return usage_error("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'");
    }
    let resources = match parse_resource_args(&rest) {
        Ok(r) => r,
        Err(e) => return usage_error(e.trim_start_matches("error: ")),
    };
    if resources.iter().any(|r| r.names.is_empty()) {
        return usage_error("resource(s) were provided, but no name was specified");
    }
    let namespace = parsed
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let selector_flag = match parsed.selector.as_deref().map(parse_label_list) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(e)) => return CommandOutput::error(e),
    };
    let labels_flag = match parsed.labels.as_deref().map(parse_label_list) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(e)) => return CommandOutput::error(e),
    };
    let port_flag = match parse_port_flag(parsed.port.as_deref()) {
        Ok(p) => p,
        Err(e) => return CommandOutput::error(e),
    };
    let output = match parsed.output.as_deref() {
        None | Some("") => None,
        Some("json") if parsed.dry_run.as_deref() == Some("client") => {
            // kubectl prints a generated object's JSON in field order, not sorted.
            return CommandOutput::error(
                "error: -o json with --dry-run=client is not available in this simulated cluster yet; use -o yaml",
            );
        }
        Some(o @ ("yaml" | "json" | "name")) => Some(o),
        Some(other) => {
            return CommandOutput::error(format!(
                "error: -o {other} is not available for expose in this simulated cluster; use yaml, json or name"
            ))
        }
    };
    let mut out = CommandOutput::new();
    for r in resources {
        for name in &r.names {
            let obj = match crate::context::get(cluster, ctx, r.kind, &namespace, name) {
                Ok(o) => o,
                Err(e) => {
                    out.fail(errors::render(&e, None));
                    continue;
                }
            };
            // polymorphichelpers' CanBeExposed.
            if !matches!(
                r.kind,
                Kind::Pod | Kind::Service | Kind::Deployment | Kind::ReplicaSet
            ) {
                let group_kind = if r.kind.group().is_empty() {
                    r.kind.as_str().to_string()
                } else {
                    format!("{}.{}", r.kind.as_str(), r.kind.group())
                };
                out.fail(format!("error: cannot expose a {group_kind}"));
                continue;
            }
            let v = obj.to_json();
            let selector = match &selector_flag {
                Some(s) => s.clone(),
                None => match selector_for(r.kind, &v) {
                    Ok(s) => s,
                    Err(e) => {
                        return usage_error(format!(
                            "couldn't retrieve selectors via --selector flag or introspection: {e}"
                        ))
                    }
                },
            };
            let introspected = ports_for(r.kind, &v);
            let ports: Vec<(i32, String)> = match port_flag {
                Some(p) => {
                    let proto = introspected
                        .iter()
                        .find(|(n, _)| *n == p)
                        .map(|(_, proto)| proto.clone())
                        .unwrap_or_else(|| "TCP".to_string());
                    vec![(p, proto)]
                }
                None if introspected.is_empty() => {
                    return usage_error("couldn't find port via --port flag or introspection")
                }
                None => introspected,
            };
            let ports = match &parsed.protocol {
                Some(proto) => ports.into_iter().map(|(p, _)| (p, proto.clone())).collect(),
                None => ports,
            };
            let mut service_name = parsed.name.clone().unwrap_or_else(|| name.clone());
            service_name.truncate(63);
            let spec = ServiceSpec {
                name: service_name,
                namespace: namespace.clone(),
                labels: labels_flag
                    .clone()
                    .unwrap_or_else(|| string_map(&v["metadata"]["labels"])),
                selector,
                ports,
                target_port: parsed.target_port.clone(),
                service_type: parsed.service_type.clone(),
            };
            let explicit_namespace = parsed.namespace.is_some();
            match create_service(
                cluster,
                ctx,
                &spec,
                parsed.dry_run.as_deref(),
                "exposed",
                output,
                explicit_namespace,
            ) {
                Ok(text) => out.out_line(text),
                Err(e) => out.fail(e),
            }
        }
    }
    out
}
