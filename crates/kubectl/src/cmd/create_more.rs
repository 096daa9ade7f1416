//! The imperative `kubectl create` generators: `create deployment`, `create service
//! clusterip|nodeport|loadbalancer|externalname`, `create configmap`, `create secret
//! generic`, `create serviceaccount`, `create role|clusterrole` and `create
//! rolebinding|clusterrolebinding`, `create poddisruptionbudget` (`pdb`) and `create
//! cronjob` (`cj`).
//!
//! Mirrors staging/src/k8s.io/kubectl/pkg/cmd/create (create_deployment.go,
//! create_service.go, create_configmap.go, create_secret.go, create_serviceaccount.go):
//! a Deployment labelled and selected by `app=NAME` whose containers are named after
//! their images (path and tag dropped, `_` → `-`); a Service with `app=NAME` as its
//! labels and selector and one port per `--tcp=PORT[:TARGET]` named `PORT-TARGET`;
//! ConfigMap and Secret keys from `--from-literal=KEY=VALUE`; Roles with one rule per
//! API group of the `--resource`s; bindings with `--user`, `--group` and
//! `--serviceaccount` subjects. `-o yaml` with `--dry-run=client` prints the object as
//! kubectl generates it (a namespace only when `-n` is given, `status: {}` for the
//! kinds with a status struct); otherwise `-o yaml|json` prints the apiserver's
//! answer. Simplified: `--from-file` and `--from-env-file` are not available (the
//! simulated laptop has no files), and `-o json` of a client-side dry run is refused
//! (kubectl prints it in the typed fields' order).

use crate::context::{CommandOutput, Context};
use crate::errors;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use warehouse_sim::CollectMap;
use warehouse_sim::{Cluster, Kind, Object};

/// The generators this module runs, as `kubectl create KIND`.
const GENERATORS: &[&str] = &[
    "deployment",
    "deploy",
    "service",
    "svc",
    "configmap",
    "cm",
    "secret",
    "serviceaccount",
    "sa",
    "role",
    "clusterrole",
    "rolebinding",
    "clusterrolebinding",
    "poddisruptionbudget",
    "pdb",
    "cronjob",
    "cj",
];

/// Whether the command line is `kubectl create <one of ours> ...`.
pub(crate) fn is_generator(args: &[String]) -> bool {
    let words = positionals(args);
    words.first().map(String::as_str) == Some("create")
        && words
            .get(1)
            .is_some_and(|w| GENERATORS.contains(&w.as_str()))
}

/// Flags that take a value (so their value is not a positional word).
fn takes_value(flag: &str) -> bool {
    matches!(
        flag,
        "-n" | "--namespace"
            | "--image"
            | "--replicas"
            | "--port"
            | "--tcp"
            | "--clusterip"
            | "--node-port"
            | "--external-name"
            | "--from-literal"
            | "--from-file"
            | "--from-env-file"
            | "--type"
            | "--verb"
            | "--resource"
            | "--resource-name"
            | "--role"
            | "--clusterrole"
            | "--user"
            | "--group"
            | "--serviceaccount"
            | "--selector"
            | "--schedule"
            | "--restart"
            | "--min-available"
            | "--max-unavailable"
            | "-o"
            | "--output"
    )
}

fn positionals(args: &[String]) -> Vec<String> {
    positionals_with(args, takes_value)
}

/// The words of a `kubectl create ...` line that are neither flags nor the values of
/// the flags `takes_value` names, up to `--`.
pub(crate) fn positionals_with(args: &[String], takes_value: fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            break;
        }
        if takes_value(a) {
            i += 2;
            continue;
        }
        if !a.starts_with('-') || a == "-" {
            out.push(a.to_string());
        }
        i += 1;
    }
    out
}

#[derive(Default)]
struct Flags {
    words: Vec<String>,
    values: BTreeMap<String, Vec<String>>,
    dry_run: Option<String>,
    command: Vec<String>,
}

impl Flags {
    fn one(&self, flag: &str) -> Option<String> {
        self.values.get(flag).and_then(|v| v.last().cloned())
    }
    fn all(&self, flag: &str) -> Vec<String> {
        self.values.get(flag).cloned().unwrap_or_default()
    }
}

fn parse(args: &[String], hint: &str) -> Result<Flags, String> {
    let mut f = Flags::default();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            f.command = args[i + 1..].to_vec();
            break;
        }
        let (flag, inline) = match a.split_once('=') {
            Some((fl, v)) if fl.starts_with("--") => (fl.to_string(), Some(v.to_string())),
            _ => (a.to_string(), None),
        };
        if flag == "--dry-run" {
            f.dry_run = Some(inline.unwrap_or_else(|| "client".into()));
        } else if flag == "--save-config" || flag == "--validate" {
        } else if takes_value(&flag) {
            let v = match inline {
                Some(v) => v,
                None => {
                    i += 1;
                    args.get(i)
                        .cloned()
                        .ok_or_else(|| format!("error: flag needs an argument: {flag}\n{hint}"))?
                }
            };
            let key = match flag.as_str() {
                "-n" => "--namespace".to_string(),
                "-o" => "--output".to_string(),
                other => other.to_string(),
            };
            f.values.entry(key).or_default().push(v);
        } else if a.starts_with('-') {
            return Err(format!("error: unknown flag: {flag}\n{hint}"));
        } else {
            f.words.push(a.to_string());
        }
        i += 1;
    }
    Ok(f)
}

/// `sanitizeAndUniquify` after dropping the image's path, tag and digest.
fn container_name(image: &str, taken: &[String]) -> String {
    let last = image.rsplit('/').next().unwrap_or(image);
    let last = last.split('@').next().unwrap_or(last);
    let last = last.split(':').next().unwrap_or(last);
    let mut name = last.replace('_', "-");
    if taken.contains(&name) {
        // Upstream appends a random suffix; a stable one keeps transcripts stable.
        let mut n = 2;
        while taken.contains(&format!("{name}-{n}")) {
            n += 1;
        }
        name = format!("{name}-{n}");
    }
    name
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let words = positionals(args);
    let generator = words.get(1).cloned().unwrap_or_default();
    let hint = format!("See 'kubectl create {generator} -h' for help and examples");
    let f = match parse(args, &hint) {
        Ok(f) => f,
        Err(e) => return CommandOutput::error(e),
    };
    // words: create GENERATOR [SUBTYPE] NAME
    let mut rest: Vec<String> = f.words.iter().skip(2).cloned().collect();
    let subtype = match generator.as_str() {
        "service" | "svc" | "secret" => {
            if rest.is_empty() {
                return CommandOutput::error(format!(
                    "error: a subcommand is required: kubectl create {generator} {}",
                    if generator == "secret" {
                        "generic|docker-registry|tls"
                    } else {
                        "clusterip|nodeport|loadbalancer|externalname"
                    }
                ));
            }
            Some(rest.remove(0))
        }
        _ => None,
    };
    let name = match rest.as_slice() {
        [n] => n.clone(),
        [] => {
            return CommandOutput::error(format!(
                "error: exactly one NAME is required, got 0\n{hint}"
            ))
        }
        more => {
            return CommandOutput::error(format!(
                "error: exactly one NAME is required, got {}\n{hint}",
                more.len()
            ))
        }
    };
    let ns = f
        .one("--namespace")
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let built = match (generator.as_str(), subtype.as_deref()) {
        ("deployment" | "deploy", _) => deployment(&f, &name, &ns),
        ("service" | "svc", Some(t)) => service(&f, &name, &ns, t),
        ("configmap" | "cm", _) => config_map(&f, &name, &ns),
        ("secret", Some("generic")) => secret(&f, &name, &ns),
        ("secret", Some(other)) => Err(format!(
            "error: kubectl create secret {other} is not available in this simulated cluster; use generic"
        )),
        ("serviceaccount" | "sa", _) => Ok((
            Kind::ServiceAccount,
            json!({"apiVersion": "v1", "kind": "ServiceAccount",
                   "metadata": {"name": name, "namespace": ns}}),
            "serviceaccount".to_string(),
        )),
        ("role", _) => role(&f, &name, Some(&ns)),
        ("clusterrole", _) => role(&f, &name, None),
        ("rolebinding", _) => binding(&f, &name, Some(&ns)),
        ("clusterrolebinding", _) => binding(&f, &name, None),
        ("poddisruptionbudget" | "pdb", _) => pod_disruption_budget(&f, &name, &ns),
        ("cronjob" | "cj", _) => cron_job(&f, &name, &ns),
        _ => Err(format!("error: unknown command \"{generator}\" for \"kubectl create\"")),
    };
    let (kind, value, display_kind) = match built {
        Ok(b) => b,
        Err(e) => return CommandOutput::error(e),
    };
    let suffix = match crate::cmd::apply::DryRun::parse(f.dry_run.as_deref()) {
        Ok(d) => d.suffix(),
        Err(e) => return CommandOutput::error(e),
    };
    let client = f.dry_run.as_deref() == Some("client");
    let output_flag = f.one("--output");
    let output = match output_format(output_flag.as_deref(), client) {
        Ok(o) => o,
        Err(e) => return CommandOutput::error(e),
    };
    let generated = client_object(&value, kind, f.one("--namespace").is_some());
    let failure = failure_prefix(kind, &value);
    let obj = match Object::from_json(kind, value) {
        Ok(o) => o,
        Err(e) => return CommandOutput::error(format!("error: {e}")),
    };
    let result = crate::context::create_generated(cluster, ctx, obj, suffix);
    let mut out = CommandOutput::new();
    match result {
        Ok(created) => {
            let display = format!("{display_kind}/{}", created.name());
            match output {
                None => out.out_line(format!("{display} created{suffix}")),
                Some("name") => out.out_line(display),
                Some(format) => print_generated(&mut out, format, client, generated, &created),
            }
        }
        Err(e) => out.fail(match failure {
            Some(prefix) => errors::wrapped(&e, &prefix),
            None => errors::render(&e, None),
        }),
    }
    out
}

/// `-o yaml|json` of a generator: with a client-side dry run what kubectl
/// generated, otherwise the apiserver's answer.
pub(crate) fn print_generated(
    out: &mut CommandOutput,
    format: &str,
    client: bool,
    generated: Value,
    created: &Object,
) {
    let v = if client {
        generated
    } else {
        crate::cmd::get::printable_json(created)
    };
    if format == "yaml" {
        out.stdout.push_str(&crate::printers::yaml::to_yaml(&v));
    } else {
        out.out_line(crate::printers::json::to_go_json(&v));
    }
}

/// How each generator's `Run` wraps the apiserver's error (`return fmt.Errorf("failed
/// to create deployment: %v", err)` in create_deployment.go, and so on); `None` for
/// the ones that return it as it is (create_role.go and create_clusterrole.go).
fn failure_prefix(kind: Kind, value: &Value) -> Option<String> {
    Some(match kind {
        Kind::Role | Kind::ClusterRole => return None,
        // create_service.go names the type: "failed to create ClusterIP service: %v".
        Kind::Service => format!(
            "failed to create {} service:",
            value["spec"]["type"].as_str().unwrap_or("ClusterIP")
        ),
        // create_secret.go's format has no colon: "failed to create secret %v".
        Kind::Secret => "failed to create secret".to_string(),
        // create_pdb.go names the resource: "failed to create poddisruptionbudgets: %v".
        Kind::PodDisruptionBudget => "failed to create poddisruptionbudgets:".to_string(),
        other => format!("failed to create {}:", other.info().singular),
    })
}

/// `-o`: nothing (the `created` line), `name`, `yaml` or `json`; checked before
/// anything is sent.
fn output_format(output: Option<&str>, client: bool) -> Result<Option<&str>, String> {
    match output {
        None | Some("") => Ok(None),
        // kubectl prints a generated (typed) object's JSON in its fields' order, not
        // sorted; only the YAML of a client-side dry run is printed here.
        Some("json") if client => Err(
            "error: -o json with --dry-run=client is not available in this simulated cluster yet; use -o yaml".into(),
        ),
        Some(o @ ("yaml" | "json" | "name")) => Ok(Some(o)),
        Some(other) => Err(format!(
            "error: -o {other} is not available for create in this simulated cluster; use yaml, json or name"
        )),
    }
}

/// The object as kubectl generates it for a client-side dry run: no namespace unless
/// `--namespace` was given (the generators set it only then), and the empty status
/// a kind with a status struct prints.
fn client_object(value: &Value, kind: Kind, namespace_given: bool) -> Value {
    let mut v = value.clone();
    if !namespace_given {
        if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("namespace");
        }
    }
    match kind {
        Kind::Deployment => v["status"] = json!({}),
        Kind::Service => v["status"] = json!({"loadBalancer": {}}),
        Kind::CronJob => v["status"] = json!({}),
        Kind::PodDisruptionBudget => {
            v["status"] = json!({"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0})
        }
        _ => {}
    }
    v
}

type Built = Result<(Kind, Value, String), String>;

/// create_cronjob.go: `--image` and `--schedule` required, `--restart` OnFailure
/// (or Never), the command after `--`; the Job template and its container are named
/// after the CronJob.
fn cron_job(f: &Flags, name: &str, ns: &str) -> Built {
    let image = f.one("--image").unwrap_or_default();
    if image.is_empty() {
        return Err("error: --image must be specified".into());
    }
    let schedule = f.one("--schedule").unwrap_or_default();
    if schedule.is_empty() {
        return Err("error: --schedule must be specified".into());
    }
    let restart = f.one("--restart").unwrap_or_else(|| "OnFailure".into());
    if !["OnFailure", "Never"].contains(&restart.as_str()) {
        return Err(format!(
            "error: invalid restart policy: {restart}. Allowed values are OnFailure and Never"
        ));
    }
    let mut container = json!({"name": name, "image": image, "resources": {}});
    if !f.command.is_empty() {
        container["command"] = json!(f.command);
    }
    Ok((
        Kind::CronJob,
        json!({
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": {"name": name, "namespace": ns},
            "spec": {
                "jobTemplate": {
                    "metadata": {"name": name},
                    "spec": {
                        "template": {
                            "metadata": {},
                            "spec": {"containers": [container], "restartPolicy": restart},
                        },
                    },
                },
                "schedule": schedule,
            },
        }),
        "cronjob.batch".to_string(),
    ))
}

/// create_pdb.go: `--selector` (required, as `ParseToLabelSelector` reads it) and
/// exactly one of `--min-available` and `--max-unavailable`, each a number or a
/// percentage.
fn pod_disruption_budget(f: &Flags, name: &str, ns: &str) -> Built {
    let selector = f.one("--selector").unwrap_or_default();
    if selector.is_empty() {
        return Err("error: a selector must be specified".into());
    }
    let min = f.one("--min-available").unwrap_or_default();
    let max = f.one("--max-unavailable").unwrap_or_default();
    if min.is_empty() && max.is_empty() {
        return Err("error: one of min-available or max-unavailable must be specified".into());
    }
    if !min.is_empty() && !max.is_empty() {
        return Err("error: min-available and max-unavailable cannot be both specified".into());
    }
    // `^[0-9]+%?$`
    let well_formed = |v: &str| {
        let digits = v.strip_suffix('%').unwrap_or(v);
        !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
    };
    if !min.is_empty() && !well_formed(&min) {
        return Err("error: invalid format specified for min-available".into());
    }
    if !max.is_empty() && !well_formed(&max) {
        return Err("error: invalid format specified for max-unavailable".into());
    }
    let parsed = crate::selector::Selector::parse(&selector).map_err(|e| format!("error: {e}"))?;
    // intstr.Parse: a number that fits an int32 is an int, anything else a string.
    let int_or_string = |v: &str| match v.parse::<i32>() {
        Ok(n) => json!(n),
        Err(_) => json!(v),
    };
    let mut spec = json!({"selector": label_selector_json(&parsed)});
    if min.is_empty() {
        spec["maxUnavailable"] = int_or_string(&max);
    } else {
        spec["minAvailable"] = int_or_string(&min);
    }
    Ok((
        Kind::PodDisruptionBudget,
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
               "metadata": {"name": name, "namespace": ns}, "spec": spec}),
        "poddisruptionbudget.policy".to_string(),
    ))
}

/// `metav1.ParseToLabelSelector`: equality requirements as `matchLabels`, the rest
/// as `matchExpressions` (`!=` as NotIn).
pub(crate) fn label_selector_json(selector: &crate::selector::Selector) -> Value {
    use crate::selector::Requirement;
    let mut labels = serde_json::Map::new();
    let mut expressions = Vec::new();
    for r in &selector.0 {
        let (key, operator, values): (&str, &str, Option<&[String]>) = match r {
            Requirement::Equals(k, v) => {
                labels.insert(k.clone(), json!(v));
                continue;
            }
            Requirement::NotEquals(k, v) => (k, "NotIn", Some(std::slice::from_ref(v))),
            Requirement::In(k, vs) => (k, "In", Some(vs)),
            Requirement::NotIn(k, vs) => (k, "NotIn", Some(vs)),
            Requirement::Exists(k) => (k, "Exists", None),
            Requirement::DoesNotExist(k) => (k, "DoesNotExist", None),
        };
        let mut e = json!({"key": key, "operator": operator});
        if let Some(vs) = values {
            e["values"] = json!(vs);
        }
        expressions.push(e);
    }
    let mut v = json!({});
    if !labels.is_empty() {
        v["matchLabels"] = Value::Object(labels);
    }
    if !expressions.is_empty() {
        v["matchExpressions"] = Value::Array(expressions);
    }
    v
}

fn deployment(f: &Flags, name: &str, ns: &str) -> Built {
    let images = f.all("--image");
    if images.is_empty() {
        return Err("error: required flag(s) \"image\" not set".into());
    }
    let replicas: i32 = match f.one("--replicas") {
        None => 1,
        Some(r) => r.parse().map_err(|_| {
            format!("error: invalid argument \"{r}\" for \"-r, --replicas\" flag: strconv.ParseInt: parsing \"{r}\": invalid syntax")
        })?,
    };
    let port: Option<i32> = match f.one("--port") {
        None => None,
        Some(p) => Some(p.parse().map_err(|_| {
            format!("error: invalid argument \"{p}\" for \"--port\" flag: strconv.ParseInt: parsing \"{p}\": invalid syntax")
        })?),
    };
    if images.len() > 1 && !f.command.is_empty() {
        return Err("error: cannot specify multiple --image options and command".into());
    }
    let mut names: Vec<String> = Vec::new();
    let mut containers = Vec::new();
    for image in &images {
        let cname = container_name(image, &names);
        names.push(cname.clone());
        let mut c = json!({"name": cname, "image": image, "resources": {}});
        if !f.command.is_empty() {
            c["command"] = json!(f.command);
        }
        containers.push(c);
    }
    if let Some(p) = port {
        containers[0]["ports"] = json!([{"containerPort": p}]);
    }
    Ok((
        Kind::Deployment,
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {"app": name}},
                "strategy": {},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {"containers": containers},
                },
            },
        }),
        "deployment.apps".into(),
    ))
}

fn service(f: &Flags, name: &str, ns: &str, subtype: &str) -> Built {
    let type_ = match subtype {
        "clusterip" => "ClusterIP",
        "nodeport" => "NodePort",
        "loadbalancer" => "LoadBalancer",
        "externalname" => "ExternalName",
        other => {
            return Err(format!(
                "error: unknown command \"{other}\" for \"kubectl create service\""
            ))
        }
    };
    let tcp = f.all("--tcp");
    let cluster_ip = f.one("--clusterip");
    if type_ == "ExternalName" && f.one("--external-name").is_none() {
        return Err("error: required flag(s) \"external-name\" not set".into());
    }
    if tcp.is_empty() && type_ != "ExternalName" && cluster_ip.as_deref() != Some("None") {
        return Err("error: at least one tcp port specifier must be provided".into());
    }
    let node_port: Option<i32> = f.one("--node-port").and_then(|p| p.parse().ok());
    let mut ports = Vec::new();
    for spec in &tcp {
        let (port, target) = match spec.split_once(':') {
            Some((p, t)) => (p, t),
            None => (spec.as_str(), spec.as_str()),
        };
        let port: i32 = port
            .parse()
            .map_err(|_| format!("error: invalid port number: {spec}"))?;
        let target: Value = match target.parse::<i32>() {
            Ok(n) => json!(n),
            Err(_) => json!(target),
        };
        let mut p = json!({
            "name": spec.replace(':', "-"),
            "port": port,
            "targetPort": target,
            "protocol": "TCP",
        });
        if let (Some(np), "NodePort") = (node_port, type_) {
            p["nodePort"] = json!(np);
        }
        ports.push(p);
    }
    let mut spec = json!({"type": type_});
    if !ports.is_empty() {
        spec["ports"] = json!(ports);
    }
    if type_ != "ExternalName" {
        spec["selector"] = json!({"app": name});
    } else {
        spec["externalName"] = json!(f.one("--external-name"));
    }
    if let Some(ip) = cluster_ip {
        spec["clusterIP"] = json!(ip);
    }
    Ok((
        Kind::Service,
        json!({
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
            "spec": spec,
        }),
        "service".into(),
    ))
}

/// kubectl's `validResourceVerbs`.
const VERBS: &[&str] = &[
    "*",
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "use",
    "bind",
    "escalate",
    "impersonate",
];

fn split_all(f: &Flags, flag: &str) -> Vec<String> {
    f.all(flag)
        .iter()
        .flat_map(|v| v.split(','))
        .filter(|v| !v.is_empty())
        .map(String::from)
        .collect()
}

/// `create role|clusterrole NAME --verb=... --resource=... [--resource-name=...]`
/// (create_role.go): one rule per API group, resources resolved through discovery.
fn role(f: &Flags, name: &str, ns: Option<&str>) -> Built {
    let verbs = split_all(f, "--verb");
    if verbs.is_empty() {
        return Err("error: at least one verb must be specified".into());
    }
    if let Some(v) = verbs.iter().find(|v| !VERBS.contains(&v.as_str())) {
        return Err(format!("error: invalid verb: '{v}'"));
    }
    let resources = split_all(f, "--resource");
    if resources.is_empty() {
        return Err("error: at least one resource must be specified".into());
    }
    // group -> resources, in the order first seen.
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for r in &resources {
        let (word, sub) = match r.split_once('/') {
            Some((w, s)) => (w, Some(s)),
            None => (r.as_str(), None),
        };
        let (plural, group) = if word == "*" {
            ("*".to_string(), String::new())
        } else {
            let kind = crate::cmd::get::lookup_kind(word)?
                .into_iter()
                .next()
                .ok_or_else(|| {
                    format!("error: the server doesn't have a resource type \"{word}\"")
                })?;
            (
                kind.info().plural.to_string(),
                kind.info().group.to_string(),
            )
        };
        let full = match sub {
            Some(s) => format!("{plural}/{s}"),
            None => plural,
        };
        match groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, list)) => list.push(full),
            None => groups.push((group, vec![full])),
        }
    }
    let names = split_all(f, "--resource-name");
    let rules: Vec<Value> = groups
        .into_iter()
        .map(|(group, res)| {
            let mut rule = json!({"apiGroups": [group], "resources": res, "verbs": verbs});
            if !names.is_empty() {
                rule["resourceNames"] = json!(names);
            }
            rule
        })
        .collect();
    let (kind, kind_name) = match ns {
        Some(_) => (Kind::Role, "Role"),
        None => (Kind::ClusterRole, "ClusterRole"),
    };
    let mut metadata = json!({"name": name});
    if let Some(ns) = ns {
        metadata["namespace"] = json!(ns);
    }
    Ok((
        kind,
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind_name,
               "metadata": metadata, "rules": rules}),
        format!(
            "{}.rbac.authorization.k8s.io",
            kind_name.to_ascii_lowercase()
        ),
    ))
}

/// `create rolebinding|clusterrolebinding NAME --role=R|--clusterrole=CR
/// [--user=U] [--group=G] [--serviceaccount=NS:NAME]` (create_rolebinding.go).
fn binding(f: &Flags, name: &str, ns: Option<&str>) -> Built {
    let role = f.one("--role");
    let cluster_role = f.one("--clusterrole");
    let role_ref = match (role, cluster_role, ns) {
        (Some(r), None, Some(_)) => json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": r}),
        (None, Some(c), _) => json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": c}),
        (Some(_), None, None) => return Err("error: unknown flag: --role\nSee 'kubectl create clusterrolebinding --help' for usage.".into()),
        _ if ns.is_some() => return Err("error: exactly one of clusterrole or role must be specified".into()),
        _ => return Err("error: required flag(s) \"clusterrole\" not set".into()),
    };
    let mut subjects = Vec::new();
    for u in split_all(f, "--user") {
        subjects.push(json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": u}));
    }
    for g in split_all(f, "--group") {
        subjects.push(json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": g}));
    }
    for sa in f.all("--serviceaccount") {
        let Some((sa_ns, sa_name)) = sa.split_once(':') else {
            return Err("error: serviceaccount must be <namespace>:<name>".to_string());
        };
        subjects.push(json!({"kind": "ServiceAccount", "namespace": sa_ns, "name": sa_name}));
    }
    let (kind, kind_name) = match ns {
        Some(_) => (Kind::RoleBinding, "RoleBinding"),
        None => (Kind::ClusterRoleBinding, "ClusterRoleBinding"),
    };
    let mut metadata = json!({"name": name});
    if let Some(ns) = ns {
        metadata["namespace"] = json!(ns);
    }
    let mut v = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind_name,
                       "metadata": metadata, "roleRef": role_ref});
    if !subjects.is_empty() {
        v["subjects"] = json!(subjects);
    }
    Ok((
        kind,
        v,
        format!(
            "{}.rbac.authorization.k8s.io",
            kind_name.to_ascii_lowercase()
        ),
    ))
}

fn literals(f: &Flags) -> Result<BTreeMap<String, String>, String> {
    if f.one("--from-file").is_some() || f.one("--from-env-file").is_some() {
        return Err(
            "error: --from-file and --from-env-file need files, which the simulated laptop does not have; use --from-literal=KEY=VALUE"
                .into(),
        );
    }
    let mut data = BTreeMap::new();
    for lit in f.all("--from-literal") {
        let Some((k, v)) = lit.split_once('=') else {
            return Err(format!(
                "error: invalid literal source {lit}, expected key=value"
            ));
        };
        if data.insert(k.to_string(), v.to_string()).is_some() {
            return Err(format!(
                "error: cannot add key {k}, another key by that name already exists in Data for ConfigMap"
            ));
        }
    }
    Ok(data)
}

fn config_map(f: &Flags, name: &str, ns: &str) -> Built {
    let data = literals(f)?;
    let mut v = json!({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": name, "namespace": ns}});
    if !data.is_empty() {
        v["data"] = json!(data);
    }
    Ok((Kind::ConfigMap, v, "configmap".into()))
}

fn secret(f: &Flags, name: &str, ns: &str) -> Built {
    let data = literals(f)?;
    let encoded: BTreeMap<String, String> = data
        .into_iter()
        .map(|(k, v)| (k, base64(v.as_bytes())))
        .collect_map();
    let mut v = json!({"apiVersion": "v1", "kind": "Secret", "type": f.one("--type").unwrap_or_else(|| "Opaque".into()),
                       "metadata": {"name": name, "namespace": ns}});
    if !encoded.is_empty() {
        v["data"] = json!(encoded);
    }
    Ok((Kind::Secret, v, "secret".into()))
}

/// The standard base64 a Secret's `data` carries (k8s-openapi's `ByteString` encoding).
fn base64(bytes: &[u8]) -> String {
    match serde_json::to_value(k8s_openapi::ByteString(bytes.to_vec())) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_names_drop_registry_tag_and_digest() {
        assert_eq!(
            container_name("gcr.io/google-samples/kubernetes-bootcamp:v1", &[]),
            "kubernetes-bootcamp"
        );
        assert_eq!(container_name("my_app@sha256:abc", &[]), "my-app");
        assert_eq!(container_name("nginx", &["nginx".into()]), "nginx-2");
    }

    #[test]
    fn base64_pads_like_the_standard_encoding() {
        assert_eq!(base64(b"admin"), "YWRtaW4=");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"abc"), "YWJj");
    }
}
