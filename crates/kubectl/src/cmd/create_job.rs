//! `kubectl create job NAME --image=IMAGE [-- COMMAND [ARG...]]` and
//! `kubectl create job NAME --from=cronjob/NAME` (kubectl's
//! staging/src/k8s.io/kubectl/pkg/cmd/create/create_job.go): a Job whose one
//! container is named after the Job, with restartPolicy Never and the words after
//! `--` as its command.

use crate::context::{CommandOutput, Context};
use crate::errors;
use serde_json::json;
use warehouse_sim::{Cluster, Kind, Object};

const USAGE_HINT: &str = "See 'kubectl create job -h' for help and examples";

/// `kubectl create job -h` (kubectl's long description, examples and usage; the
/// options list is left out).
const HELP: &str = "Create a job with the specified name.

Examples:
  # Create a job
  kubectl create job my-job --image=busybox
  
  # Create a job with a command
  kubectl create job my-job --image=busybox -- date
  
  # Create a job from a cron job named \"a-cronjob\"
  kubectl create job test-job --from=cronjob/a-cronjob

Usage:
  kubectl create job NAME --image=image [--from=cronjob/name] -- [COMMAND] [args...] [options]
";

/// Whether the command line is `kubectl create job ...`.
pub(crate) fn is_create_job(args: &[String]) -> bool {
    let words = positionals(args);
    words.first().map(String::as_str) == Some("create")
        && words.get(1).map(String::as_str) == Some("job")
}

/// The words that are not flags nor flag values, up to `--`.
fn positionals(args: &[String]) -> Vec<String> {
    crate::cmd::create_more::positionals_with(args, |a| {
        matches!(
            a,
            "-n" | "--namespace" | "--image" | "--from" | "-o" | "--output"
        )
    })
}

#[derive(Default)]
struct Options {
    name: Vec<String>,
    image: Option<String>,
    from: Option<String>,
    namespace: Option<String>,
    output: Option<String>,
    dry_run: Option<String>,
    command: Vec<String>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut words = Vec::new();
    let mut i = 0;
    let value = |i: usize, flag: &str| -> Result<String, String> {
        args.get(i + 1)
            .cloned()
            .ok_or_else(|| format!("error: flag needs an argument: {flag}\n{USAGE_HINT}"))
    };
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "--" => {
                o.command = args[i + 1..].to_vec();
                break;
            }
            "-n" | "--namespace" => {
                o.namespace = Some(value(i, a)?);
                i += 1;
            }
            "--image" => {
                o.image = Some(value(i, a)?);
                i += 1;
            }
            "--from" => {
                o.from = Some(value(i, a)?);
                i += 1;
            }
            "-o" | "--output" => {
                o.output = Some(value(i, a)?);
                i += 1;
            }
            _ if a.starts_with("--image=") => o.image = Some(a["--image=".len()..].into()),
            _ if a.starts_with("--from=") => o.from = Some(a["--from=".len()..].into()),
            _ if a.starts_with("--namespace=") => {
                o.namespace = Some(a["--namespace=".len()..].into())
            }
            _ if a.starts_with("--output=") => o.output = Some(a["--output=".len()..].into()),
            "--dry-run" => o.dry_run = Some("client".into()),
            _ if a.starts_with("--dry-run=") => o.dry_run = Some(a["--dry-run=".len()..].into()),
            _ if a.starts_with("-o") && a.len() > 2 => o.output = Some(a[2..].into()),
            _ if a.starts_with('-') && a != "-" => {
                return Err(format!("error: unknown flag: {a}\n{USAGE_HINT}"));
            }
            _ => words.push(a.to_string()),
        }
        i += 1;
    }
    // words: "create", "job", NAME...
    o.name = words.into_iter().skip(2).collect();
    Ok(o)
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let before_command = args.iter().take_while(|a| *a != "--");
    if before_command
        .into_iter()
        .any(|a| a == "-h" || a == "--help")
    {
        let mut out = CommandOutput::new();
        for line in HELP.lines() {
            out.out_line(line);
        }
        return out;
    }
    let o = match parse(args) {
        Ok(o) => o,
        Err(e) => return CommandOutput::error(e),
    };
    let name = match o.name.as_slice() {
        [name] => name.clone(),
        other => {
            return CommandOutput::error(format!(
                "error: exactly one NAME is required, got {}\n{USAGE_HINT}",
                other.len()
            ))
        }
    };
    let name_only = match o.output.as_deref() {
        None | Some("") => false,
        Some("name") => true,
        Some(other) => {
            return CommandOutput::error(format!(
                "error: -o {other} is not available for create job in this simulated cluster; use -o name"
            ))
        }
    };
    let suffix = match crate::cmd::apply::DryRun::parse(o.dry_run.as_deref()) {
        Ok(d) => d.suffix(),
        Err(e) => return CommandOutput::error(e),
    };
    if o.image.is_some() == o.from.is_some() {
        return CommandOutput::error("error: either --image or --from must be specified");
    }
    if !o.command.is_empty() && o.from.is_some() {
        return CommandOutput::error("error: cannot specify --from and command");
    }
    let ns = o
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let job = match (&o.image, &o.from) {
        (Some(image), _) => {
            let mut container = json!({"name": name, "image": image, "resources": {}});
            if !o.command.is_empty() {
                container["command"] = json!(o.command);
            }
            json!({
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {"name": name, "namespace": ns},
                "spec": {"template": {"metadata": {}, "spec": {
                    "containers": [container],
                    "restartPolicy": "Never",
                }}},
            })
        }
        (None, Some(from)) => match from_cron_job(cluster, ctx, &name, &ns, from) {
            Ok(v) => v,
            Err(out) => return out,
        },
        (None, None) => unreachable!("checked above"),
    };
    let obj = match Object::from_json(Kind::Job, job) {
        Ok(o) => o,
        Err(e) => return CommandOutput::error(format!("error: {e}")),
    };
    let result = crate::context::create_generated(cluster, ctx, obj, suffix);
    let mut out = CommandOutput::new();
    match result {
        Ok(created) => {
            let display = format!("job.batch/{}", created.name());
            out.out_line(if name_only {
                display
            } else {
                format!("{display} created{suffix}")
            });
        }
        // create_job.go: "failed to create job: %v".
        Err(e) => out.fail(errors::wrapped(&e, "failed to create job:")),
    }
    out
}

/// `createJobFromCronJob`: the CronJob's job template, owned by the CronJob and
/// annotated `cronjob.kubernetes.io/instantiate: manual`.
fn from_cron_job(
    cluster: &Cluster,
    ctx: &Context<'_>,
    name: &str,
    ns: &str,
    from: &str,
) -> Result<serde_json::Value, CommandOutput> {
    let Some((word, source)) = from.split_once('/') else {
        return Err(CommandOutput::error(
            "error: arguments in resource/name form must have a single resource and name",
        ));
    };
    let kind = match crate::cmd::get::lookup_kind(word) {
        Ok(kinds) if kinds.len() == 1 => kinds[0],
        Ok(_) => {
            return Err(CommandOutput::error(
                "error: arguments in resource/name form must have a single resource and name",
            ))
        }
        Err(e) => return Err(CommandOutput::error(e)),
    };
    if kind != Kind::CronJob {
        // The builder fetches the object first; then only a CronJob is accepted.
        let fetched = crate::context::authorize(cluster, ctx, "get", kind, ns, source)
            .and_then(|()| cluster.get(kind, ns, source));
        return Err(match fetched {
            Err(e) => CommandOutput::error(errors::render(&e, None)),
            Ok(_) => CommandOutput::error(format!(
                "error: unknown object type *{}.{}",
                kind.info().versions.first().copied().unwrap_or("v1"),
                kind.as_str()
            )),
        });
    }
    let fetched = crate::context::authorize(cluster, ctx, "get", Kind::CronJob, ns, source)
        .and_then(|()| cluster.get(Kind::CronJob, ns, source));
    let cron = match fetched {
        Ok(o) => o.to_json(),
        Err(e) => return Err(CommandOutput::error(errors::render(&e, None))),
    };
    let template = &cron["spec"]["jobTemplate"];
    let mut annotations = template["metadata"]["annotations"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    annotations.insert("cronjob.kubernetes.io/instantiate".into(), json!("manual"));
    let mut metadata = json!({
        "name": name,
        "namespace": ns,
        "annotations": annotations,
        "ownerReferences": [{
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "name": cron["metadata"]["name"],
            "uid": cron["metadata"]["uid"],
            "controller": true,
            "blockOwnerDeletion": true,
        }],
    });
    if let Some(labels) = template["metadata"]["labels"].as_object() {
        metadata["labels"] = json!(labels);
    }
    Ok(json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata,
        "spec": template["spec"].clone(),
    }))
}
