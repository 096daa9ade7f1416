//! `kubectl set image` (k8s.io/kubectl/pkg/cmd/set/set_image.go): changes container
//! images in the pod template of Deployments, ReplicaSets and DaemonSets. The other
//! `set` subcommands are not simulated yet.

use crate::cli::clap_error;
use crate::get::parse_resource_args;
use crate::{errors, CommandOutput, Context};
use clap::Parser;
use k8s_openapi::api::core::v1::PodSpec;
use warehouse_sim::{Cluster, Kind, Object};

#[derive(Parser, Debug)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct SetArgs {
    /// `set`, the subcommand, TYPE NAME or TYPE/NAME, then CONTAINER=IMAGE pairs.
    words: Vec<String>,
    #[arg(short = 'n', long = "namespace")]
    namespace: Option<String>,
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let parsed = match SetArgs::try_parse_from(args) {
        Ok(p) => p,
        Err(e) => return clap_error(e, Some("set"), args),
    };
    let words: Vec<String> = parsed.words.iter().skip(1).cloned().collect();
    match words.first().map(String::as_str) {
        Some("image") => {}
        Some(other @ ("env" | "resources" | "selector" | "serviceaccount" | "subject")) => {
            return CommandOutput::error(format!(
                "error: \"kubectl set {other}\" is not available in this simulated cluster yet; it runs set image"
            ))
        }
        Some(other) => {
            return CommandOutput::error(format!(
                "error: unknown command \"{other}\" for \"kubectl set\"\nRun 'kubectl set --help' for usage."
            ))
        }
        None => {
            return CommandOutput::error(
                "error: kubectl set needs a subcommand: image\nSee 'kubectl set -h' for help and examples",
            )
        }
    }
    // Resource arguments come first; `NAME=IMAGE` pairs after them.
    let (resources, pairs): (Vec<String>, Vec<String>) =
        words[1..].iter().cloned().partition(|w| !w.contains('='));
    if resources.is_empty() {
        return CommandOutput::error("error: one or more resources must be specified as <resource> <name> or <resource>/<name>");
    }
    if pairs.is_empty() {
        return CommandOutput::error("error: at least one image update is required");
    }
    let mut images: Vec<(String, String)> = Vec::new();
    for p in &pairs {
        let (c, i) = p.split_once('=').unwrap_or((p, ""));
        if c.is_empty() || i.is_empty() {
            return CommandOutput::error(format!("error: invalid image update: {p}"));
        }
        images.push((c.to_string(), i.to_string()));
    }
    let targets = match parse_resource_args(&resources) {
        Ok(t) => t,
        Err(e) => return CommandOutput::error(e),
    };
    let namespace = parsed
        .namespace
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let mut out = CommandOutput::new();
    for t in targets {
        if !matches!(
            t.kind,
            Kind::Deployment | Kind::ReplicaSet | Kind::DaemonSet
        ) {
            out.fail(format!(
                "error: set image on {} is not available in this simulated cluster yet",
                t.kind.qualified_plural()
            ));
            continue;
        }
        for name in &t.names {
            let obj = match cluster.get_by(&ctx.caller, t.kind, &namespace, name) {
                Ok(o) => o,
                Err(e) => {
                    out.fail(errors::render(&e, None));
                    continue;
                }
            };
            let mut updated = obj.clone();
            let spec = match &mut updated {
                Object::Deployment(d) => d.spec.template.spec.as_mut(),
                Object::ReplicaSet(rs) => rs.spec.template.as_mut().and_then(|t| t.spec.as_mut()),
                Object::DaemonSet(ds) => ds.spec.template.spec.as_mut(),
                _ => None,
            };
            let Some(spec) = spec else {
                continue;
            };
            let mut missing = Vec::new();
            for (c, image) in &images {
                if !set_image(spec, c, image) {
                    missing.push(c.clone());
                }
            }
            for c in &missing {
                out.fail(format!("error: unable to find container named \"{c}\""));
            }
            if updated == obj {
                continue; // no change: kubectl sends nothing and prints nothing
            }
            match crate::rollout::patch(cluster, ctx, updated, None) {
                Ok(_) => out.out_line(format!(
                    "{}/{name} image updated",
                    t.kind.qualified_singular()
                )),
                Err(e) => out.fail(format!(
                    "error: failed to patch image update to pod template: {}",
                    e.message
                )),
            }
        }
    }
    out
}

/// Sets the image of the named container (`*` is every container), init containers
/// included. Returns whether a container matched.
fn set_image(spec: &mut PodSpec, name: &str, image: &str) -> bool {
    let mut found = false;
    for c in spec.containers.iter_mut() {
        if c.name == name || name == "*" {
            c.image = Some(image.to_string());
            found = true;
        }
    }
    for c in spec.init_containers.iter_mut().flatten() {
        if c.name == name || name == "*" {
            c.image = Some(image.to_string());
            found = true;
        }
    }
    found
}
