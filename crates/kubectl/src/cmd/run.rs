//! `kubectl run` (k8s.io/kubectl/pkg/cmd/run/run.go and the pod generator in
//! k8s.io/kubectl/pkg/generate/versioned/run.go): creates one Pod with one container
//! named after it, labelled `run=NAME` unless `--labels` says otherwise; the words
//! after the name (or after `--`) are the container's args, or its command with
//! `--command`. `--expose` also creates a ClusterIP Service selecting the pod.
//! `--dry-run=client -o yaml` prints the generated manifest. `-i`/`-t`/`--attach`
//! (with `--rm`, `-q`, `--pod-running-timeout`, `--leave-stdin-open`) create the
//! pod with an open stdin and attach to it (`attach.rs`): `kubectl run -it --rm
//! tmp --image=busybox -- sh` opens a shell session in the terminal.
//! Simplified: `--overrides` is not supported.

use crate::args::clap_error;
use crate::cmd::expose::{create_service, parse_label_list, parse_port_flag, ServiceSpec};
use crate::context::{CommandOutput, Context};
use crate::errors;
use clap::{ArgAction, Parser};
use serde_json::json;
use std::collections::BTreeMap;
use warehouse_sim::{Cluster, Kind, Object, SimDuration};

#[derive(Parser, Debug)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct RunArgs {
    /// `run`, NAME, then the container's args.
    words: Vec<String>,
    #[arg(short = 'n', long = "namespace")]
    namespace: Option<String>,
    #[arg(long = "image")]
    image: Option<String>,
    #[arg(long = "port")]
    port: Option<String>,
    #[arg(short = 'l', long = "labels")]
    labels: Option<String>,
    #[arg(long = "env")]
    env: Vec<String>,
    #[arg(long = "restart")]
    restart: Option<String>,
    #[arg(long = "image-pull-policy")]
    image_pull_policy: Option<String>,
    #[arg(long = "command", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    command: bool,
    #[arg(long = "expose", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    expose: bool,
    #[arg(long = "dry-run", num_args = 0..=1, require_equals = true, default_missing_value = "client")]
    dry_run: Option<String>,
    #[arg(short = 'o', long = "output")]
    output: Option<String>,
    #[arg(short = 'i', long = "stdin", action = ArgAction::SetTrue)]
    stdin: bool,
    #[arg(short = 't', long = "tty", action = ArgAction::SetTrue)]
    tty: bool,
    #[arg(long = "attach", action = ArgAction::SetTrue)]
    attach: bool,
    #[arg(long = "rm", action = ArgAction::SetTrue)]
    rm: bool,
    #[arg(short = 'q', long = "quiet", action = ArgAction::SetTrue)]
    quiet: bool,
    #[arg(long = "leave-stdin-open", action = ArgAction::SetTrue)]
    leave_stdin_open: bool,
    #[arg(long = "pod-running-timeout")]
    pod_running_timeout: Option<String>,
}

/// A pod `kubectl run` attaches to once it is created.
pub(crate) struct AttachPlan {
    pub namespace: String,
    pub name: String,
    /// The lone interactive shell the container runs (`sh`, busybox's default), if
    /// it does: the terminal's lines go to it.
    pub shell: Option<String>,
    pub how: crate::cmd::attach::Attached,
}

/// An approximation of the distribution reference grammar kubectl checks images
/// against: lowercase path components, an optional registry host, tag and digest.
pub(crate) fn valid_image(image: &str) -> bool {
    let (rest, digest) = match image.split_once('@') {
        Some((r, d)) => (r, Some(d)),
        None => (image, None),
    };
    if digest.is_some_and(|d| !d.contains(':') || d.ends_with(':')) {
        return false;
    }
    let (name, tag) = match rest.rfind(':') {
        Some(i) if !rest[i..].contains('/') => (&rest[..i], Some(&rest[i + 1..])),
        _ => (rest, None),
    };
    if let Some(t) = tag {
        let ok = !t.is_empty()
            && t.len() <= 128
            && !t.starts_with(['.', '-'])
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
        if !ok {
            return false;
        }
    }
    let parts: Vec<&str> = name.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        let is_host = i == 0
            && parts.len() > 1
            && (part.contains('.') || part.contains(':') || *part == "localhost");
        let ok = if is_host {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'))
        } else {
            !part.is_empty()
                && part.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
                && part.ends_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
                && part.chars().all(|c| {
                    c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-')
                })
        };
        if !ok {
            return false;
        }
    }
    true
}

/// A valid environment variable name (apimachinery's IsEnvVarName).
pub(crate) fn env_name_ok(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The checks kubectl makes of the flags before it generates anything, in its
/// order; returns the pod's restart policy.
fn check_flags<'a>(parsed: &'a RunArgs, image: &str) -> Result<&'a str, String> {
    if image.is_empty() {
        return Err("error: --image is required".into());
    }
    if !valid_image(image) {
        return Err(format!(
            "error: Invalid image name \"{image}\": invalid reference format"
        ));
    }
    if parsed.tty && !parsed.stdin {
        return Err("error: -i/--stdin is required for containers with -t/--tty=true".into());
    }
    if parsed.expose && parsed.port.as_deref().unwrap_or("").is_empty() {
        return Err("error: --port must be set when exposing a service".into());
    }
    let restart = match parsed.restart.as_deref() {
        None | Some("") if parsed.stdin => "OnFailure",
        None | Some("") => "Always",
        Some(r @ ("Always" | "OnFailure" | "Never")) => r,
        Some(other) => return Err(format!("error: invalid restart policy: {other}")),
    };
    if parsed.rm && !parsed.attach && !parsed.stdin {
        return Err("error: --rm should only be used for attached containers".into());
    }
    if (parsed.stdin || parsed.attach) && parsed.dry_run.is_some() {
        return Err("error: --dry-run=[server|client] can't be used with attached containers options (--attach, --stdin, or --tty)".into());
    }
    if let Some(p) = &parsed.image_pull_policy {
        if !matches!(p.as_str(), "Always" | "IfNotPresent" | "Never" | "") {
            return Err(format!("error: invalid image pull policy: {p}"));
        }
    }
    Ok(restart)
}

/// The pod's labels (`run=NAME` unless `--labels` gives them) and its container's
/// environment from `--env`.
fn labels_and_env(
    parsed: &RunArgs,
    name: &str,
) -> Result<(BTreeMap<String, String>, Vec<serde_json::Value>), String> {
    let labels: BTreeMap<String, String> = match parsed.labels.as_deref() {
        None | Some("") => BTreeMap::from([("run".to_string(), name.to_string())]),
        Some(text) => parse_label_list(text)?,
    };
    let mut env = Vec::new();
    for e in &parsed.env {
        match e.split_once('=') {
            Some((k, v)) if env_name_ok(k) => env.push(json!({"name": k, "value": v})),
            _ => return Err(format!("error: invalid env: {e}")),
        }
    }
    Ok((labels, env))
}

/// `--dry-run` and `-o`: the suffix of the `created` line and the output format.
fn output_mode(parsed: &RunArgs) -> Result<(&'static str, Option<&str>), String> {
    let suffix = crate::cmd::apply::DryRun::parse(parsed.dry_run.as_deref())?.suffix();
    let output = match parsed.output.as_deref() {
        None | Some("") => None,
        Some(o @ ("yaml" | "json" | "name")) => Some(o),
        Some(other) => {
            return Err(format!(
                "error: -o {other} is not available for run in this simulated cluster; use yaml, json or name"
            ))
        }
    };
    // kubectl prints a generated (typed) object's JSON in field order, not sorted;
    // only the YAML of a client-side dry run is printed here.
    if output == Some("json") && parsed.dry_run.as_deref() == Some("client") {
        return Err("error: -o json with --dry-run=client is not available in this simulated cluster yet; use -o yaml".into());
    }
    if output.is_some() && parsed.expose {
        return Err(
            "error: -o with --expose is not available in this simulated cluster yet".into(),
        );
    }
    Ok((suffix, output))
}

/// The pod's one container, named after the pod.
fn container_json(
    parsed: &RunArgs,
    name: &str,
    image: &str,
    container_args: &[String],
    port: Option<i32>,
    env: Vec<serde_json::Value>,
) -> serde_json::Value {
    let mut container = json!({"name": name, "image": image, "resources": {}});
    if !container_args.is_empty() {
        let field = if parsed.command { "command" } else { "args" };
        container[field] = json!(container_args);
    }
    if let Some(p) = port {
        container["ports"] = json!([{"containerPort": p}]);
    }
    if !env.is_empty() {
        container["env"] = json!(env);
    }
    if parsed.stdin {
        container["stdin"] = json!(true);
        if !parsed.leave_stdin_open {
            container["stdinOnce"] = json!(true);
        }
    }
    if parsed.tty {
        container["tty"] = json!(true);
    }
    if let Some(p) = parsed
        .image_pull_policy
        .as_deref()
        .filter(|p| !p.is_empty())
    {
        container["imagePullPolicy"] = json!(p);
    }
    container
}

/// `--expose`: run.go's generateService, selected by the pod's labels; returns
/// kubectl's line for it.
fn expose_pod(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    parsed: &RunArgs,
    name: &str,
    ns: &str,
    labels: &BTreeMap<String, String>,
    port: Option<i32>,
) -> Result<String, String> {
    let spec = ServiceSpec {
        name: name.to_string(),
        namespace: ns.to_string(),
        labels: match parsed.labels.as_deref() {
            None | Some("") => BTreeMap::new(),
            Some(_) => labels.clone(),
        },
        selector: labels.clone(),
        ports: vec![(port.unwrap_or_default(), "TCP".to_string())],
        target_port: None,
        service_type: None,
    };
    create_service(
        cluster,
        ctx,
        &spec,
        parsed.dry_run.as_deref(),
        "created",
        None,
        false,
    )
}

/// Prints the pod as `-o` asks: the `created` line, its name, or the object (the
/// generated one for a client-side dry run).
fn print_pod(
    out: &mut CommandOutput,
    output: Option<&str>,
    suffix: &str,
    generated: serde_json::Value,
    created: &Object,
) {
    match output {
        None => out.out_line(format!("pod/{} created{suffix}", created.name())),
        Some("name") => out.out_line(format!("pod/{}", created.name())),
        Some(format) => {
            let v = if suffix == " (dry run)" {
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
    }
}

pub(crate) fn run(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    args: &[String],
) -> (CommandOutput, Option<AttachPlan>) {
    let mut plan = None;
    let out = create(cluster, ctx, args, &mut plan);
    (out, plan)
}

/// Whether the container's program is an interactive shell: `sh`, `bash` or `ash`
/// alone, or no command at all for a shell image (busybox, alpine, ...).
pub(crate) fn lone_shell(image: &str, words: &[String]) -> bool {
    match words {
        [] => warehouse_sim::kubelet::images::lookup(image)
            .is_some_and(|i| i.shell && i.cmd.len() == 1 && is_shell_word(i.cmd[0])),
        [one] => is_shell_word(one),
        _ => false,
    }
}

pub(crate) fn is_shell_word(word: &str) -> bool {
    matches!(word.rsplit('/').next().unwrap_or(""), "sh" | "bash" | "ash")
}

fn create(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    args: &[String],
    plan: &mut Option<AttachPlan>,
) -> CommandOutput {
    // Everything after `--` belongs to the container.
    let dash = args.iter().position(|a| a == "--");
    let (flags, after): (&[String], &[String]) = match dash {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[]),
    };
    let parsed = match RunArgs::try_parse_from(flags) {
        Ok(p) => p,
        Err(e) => return clap_error(e, Some("run"), args),
    };
    let Some(image) = parsed.image.clone() else {
        return CommandOutput::error("error: required flag(s) \"image\" not set");
    };
    let positional: Vec<String> = parsed.words.iter().skip(1).cloned().collect();
    let Some(name) = positional.first().cloned() else {
        return CommandOutput::error("error: NAME is required for run");
    };
    let container_args: Vec<String> = positional[1..]
        .iter()
        .chain(after.iter())
        .cloned()
        .collect();
    let restart = match check_flags(&parsed, &image) {
        Ok(r) => r,
        Err(e) => return CommandOutput::error(e),
    };
    let (labels, env) = match labels_and_env(&parsed, &name) {
        Ok(x) => x,
        Err(e) => return CommandOutput::error(e),
    };
    let port = match parse_port_flag(parsed.port.as_deref()) {
        Ok(p) => p,
        Err(e) => return CommandOutput::error(e),
    };
    let (suffix, output) = match output_mode(&parsed) {
        Ok(x) => x,
        Err(e) => return CommandOutput::error(e),
    };
    let ns = parsed
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let container = container_json(&parsed, &name, &image, &container_args, port, env);
    let pod = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": labels},
        "spec": {
            "containers": [container],
            "dnsPolicy": "ClusterFirst",
            "restartPolicy": restart,
        },
    });
    // What a client-side dry run prints: the generated object, with a namespace only
    // when one was given on the command line.
    let mut generated = pod.clone();
    if parsed.namespace.is_none() {
        if let Some(m) = generated["metadata"].as_object_mut() {
            m.remove("namespace");
        }
    }
    generated["status"] = json!({});
    let obj = match Object::from_json(Kind::Pod, pod) {
        Ok(o) => o,
        Err(e) => return CommandOutput::error(format!("error: {e}")),
    };
    let mut out = CommandOutput::new();
    let result = crate::context::create_generated(cluster, ctx, obj, suffix);
    let created = match result {
        Ok(c) => c,
        Err(e) => return CommandOutput::error(errors::render(&e, None)),
    };
    let attach = parsed.attach || parsed.stdin;
    if attach {
        let timeout = match parsed.pod_running_timeout.as_deref() {
            None => SimDuration::secs(60),
            Some(t) => match crate::cmd::wait::parse_timeout(t) {
                Ok(d) if d > SimDuration::ZERO => d,
                Ok(_) => {
                    return CommandOutput::error(
                        "error: --pod-running-timeout must be higher than zero",
                    )
                }
                Err(e) => return CommandOutput::error(e),
            },
        };
        *plan = Some(AttachPlan {
            namespace: ns.clone(),
            name: name.clone(),
            shell: (parsed.stdin && lone_shell(&image, &container_args)).then(|| {
                container_args
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "sh".to_string())
            }),
            how: crate::cmd::attach::Attached {
                restart: restart.to_string(),
                remove: parsed.rm,
                quiet: parsed.quiet,
                tty: parsed.tty,
                resume: true,
                timeout,
            },
        });
    }
    let mut service_error = None;
    if parsed.expose {
        // The service is printed first.
        match expose_pod(cluster, ctx, &parsed, &name, &ns, &labels, port) {
            Ok(line) => out.out_line(line),
            Err(e) => service_error = Some(e),
        }
    }
    // An attached run prints no `created` line: the session is its output.
    if !attach {
        print_pod(&mut out, output, suffix, generated, &created);
    }
    if let Some(e) = service_error {
        out.fail(e);
    }
    out
}
