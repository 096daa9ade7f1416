//! `kubectl scale` (k8s.io/kubectl/pkg/cmd/scale): sets `spec.replicas` of
//! Deployments and ReplicaSets, with `--current-replicas` as a precondition.

use crate::args::clap_error;
use crate::cmd::get::parse_resource_args;
use crate::context::{CommandOutput, Context};
use crate::errors;
use clap::Parser;
use warehouse_sim::{Cluster, Kind, Object};

#[derive(Parser, Debug)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct ScaleArgs {
    /// `scale`, then TYPE NAME or TYPE/NAME.
    words: Vec<String>,
    #[arg(short = 'n', long = "namespace")]
    namespace: Option<String>,
    /// The new desired number of replicas. Required.
    #[arg(long = "replicas", allow_negative_numbers = true)]
    replicas: Option<i32>,
    /// Precondition for current size.
    #[arg(long = "current-replicas", allow_negative_numbers = true, default_value_t = -1)]
    current_replicas: i32,
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let parsed = match ScaleArgs::try_parse_from(args) {
        Ok(p) => p,
        Err(e) => return clap_error(e, Some("scale"), args),
    };
    let Some(replicas) = parsed.replicas else {
        return CommandOutput::error("error: required flag(s) \"replicas\" not set");
    };
    if replicas < 0 {
        return CommandOutput::error(
            "error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0",
        );
    }
    let rest: Vec<String> = parsed.words.iter().skip(1).cloned().collect();
    if rest.is_empty() {
        return CommandOutput::error("error: required resource not specified");
    }
    let resources = match parse_resource_args(&rest) {
        Ok(r) => r,
        Err(e) => return CommandOutput::error(e),
    };
    let namespace = parsed
        .namespace
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let mut out = CommandOutput::new();
    for r in resources {
        if !matches!(r.kind, Kind::Deployment | Kind::ReplicaSet) {
            out.fail(format!(
                "error: scaling {} is not available in this simulated cluster yet; it scales deployments and replicasets",
                r.kind.qualified_plural()
            ));
            continue;
        }
        if r.names.is_empty() {
            out.fail("error: resource(s) were provided, but no name was specified");
            continue;
        }
        for name in &r.names {
            let obj = match crate::context::get(cluster, ctx, r.kind, &namespace, name) {
                Ok(o) => o,
                Err(e) => {
                    out.fail(errors::render(&e, None));
                    continue;
                }
            };
            let updated = match obj {
                Object::Deployment(mut d) => {
                    let current = d.spec.replicas.unwrap_or(1);
                    if parsed.current_replicas >= 0 && parsed.current_replicas != current {
                        out.fail(format!(
                            "error: Expected replicas to be {}, was {current}",
                            parsed.current_replicas
                        ));
                        continue;
                    }
                    d.spec.replicas = Some(replicas);
                    Object::Deployment(d)
                }
                Object::ReplicaSet(mut rs) => {
                    let current = rs.spec.replicas.unwrap_or(1);
                    if parsed.current_replicas >= 0 && parsed.current_replicas != current {
                        out.fail(format!(
                            "error: Expected replicas to be {}, was {current}",
                            parsed.current_replicas
                        ));
                        continue;
                    }
                    rs.spec.replicas = Some(replicas);
                    Object::ReplicaSet(rs)
                }
                _ => continue,
            };
            match crate::cmd::rollout::patch(cluster, ctx, updated, Some("scale")) {
                Ok(_) => out.out_line(format!("{}/{name} scaled", r.kind.qualified_singular())),
                Err(e) => out.fail(errors::render(&e, None)),
            }
        }
    }
    out
}
