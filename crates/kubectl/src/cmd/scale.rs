//! `kubectl scale` (k8s.io/kubectl/pkg/cmd/scale): sets `spec.replicas` of
//! Deployments, ReplicaSets and StatefulSets through their scale subresource, with
//! `--current-replicas` as a precondition.

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
        let custom_scale = custom_scale_path(r.kind);
        if r.kind.is_custom() && custom_scale.is_none() {
            out.fail("error: the server could not find the requested resource");
            continue;
        }
        if !r.kind.is_custom()
            && !matches!(
                r.kind,
                Kind::Deployment | Kind::ReplicaSet | Kind::StatefulSet
            )
        {
            out.fail(format!(
                "error: scaling {} is not available in this simulated cluster yet; it scales deployments, replicasets and statefulsets",
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
            let current = match &obj {
                Object::Other(_) if r.kind.is_custom() => {
                    let path = custom_scale.as_deref().unwrap_or_default();
                    let v = obj.to_json();
                    path.iter()
                        .try_fold(&v, |v, k| v.get(k))
                        .and_then(serde_json::Value::as_i64)
                        .unwrap_or(0)
                }
                Object::Deployment(d) => i64::from(d.spec.replicas.unwrap_or(1)),
                Object::ReplicaSet(rs) => i64::from(rs.spec.replicas.unwrap_or(1)),
                Object::Other(_) if r.kind == Kind::StatefulSet => {
                    crate::cmd::stateful_set::replicas(&obj)
                }
                _ => continue,
            };
            if parsed.current_replicas >= 0 && i64::from(parsed.current_replicas) != current {
                out.fail(format!(
                    "error: Expected replicas to be {}, was {current}",
                    parsed.current_replicas
                ));
                continue;
            }
            let updated = match obj {
                Object::Deployment(mut d) => {
                    d.spec.replicas = Some(replicas);
                    Object::Deployment(d)
                }
                Object::ReplicaSet(mut rs) => {
                    rs.spec.replicas = Some(replicas);
                    Object::ReplicaSet(rs)
                }
                other if r.kind.is_custom() => {
                    let path = custom_scale.as_deref().unwrap_or_default();
                    match with_value_at(other, path, replicas) {
                        Ok(o) => o,
                        Err(e) => {
                            out.fail(e);
                            continue;
                        }
                    }
                }
                other => match crate::cmd::stateful_set::with_replicas(&other, replicas) {
                    Ok(o) => o,
                    Err(e) => {
                        out.fail(e);
                        continue;
                    }
                },
            };
            match crate::cmd::rollout::patch(cluster, ctx, updated, Some("scale")) {
                Ok(_) => out.out_line(format!("{}/{name} scaled", r.kind.qualified_singular())),
                Err(e) => out.fail(errors::render(&e, None)),
            }
        }
    }
    out
}

/// The desired replicas' path of a custom kind with the scale subresource
/// (`subresources.scale.specReplicasPath`).
fn custom_scale_path(kind: Kind) -> Option<Vec<String>> {
    if !kind.is_custom() {
        return None;
    }
    let def = crate::discovery::definition(kind)?;
    let Object::Other(d) = &*def else { return None };
    warehouse_sim::object::crd::scale_paths(&d.fields, kind.info().versions[0])
        .map(|(spec, _)| spec)
}

/// `obj` with the number at `path` set to `replicas` (the scale subresource's write).
fn with_value_at(obj: Object, path: &[String], replicas: i32) -> Result<Object, String> {
    let kind = obj.kind();
    let mut v = obj.to_json();
    let Some((last, parents)) = path.split_last() else {
        return Err("error: the scale subresource has no specReplicasPath".into());
    };
    let mut at = &mut v;
    for k in parents {
        if !at.get(k).is_some_and(serde_json::Value::is_object) {
            at[k] = serde_json::json!({});
        }
        at = &mut at[k];
    }
    at[last] = replicas.into();
    Object::from_json(kind, v).map_err(|e| format!("error: {e}"))
}

#[cfg(test)]
mod tests {
    use crate::cmd::stateful_set::testing;
    use crate::context::NoFiles;
    use warehouse_sim::Kind;

    #[test]
    fn stateful_sets_scale_through_the_same_request() {
        let mut s = testing::session(testing::WEB);
        let out = s.run("scale sts web --replicas=5", None, &NoFiles);
        assert_eq!(out.stdout, "statefulset.apps/web scaled\n");
        let stored = s.cluster.get(Kind::StatefulSet, "default", "web").unwrap();
        assert_eq!(stored.to_json()["spec"]["replicas"], 5);
        let out = s.run(
            "scale statefulset/web --replicas=1 --current-replicas=3",
            None,
            &NoFiles,
        );
        assert_eq!(
            (out.stderr.as_str(), out.success()),
            ("error: Expected replicas to be 3, was 5\n", false)
        );
        let out = s.run(
            "scale statefulsets web --replicas=1 --current-replicas=5",
            None,
            &NoFiles,
        );
        assert_eq!(out.stdout, "statefulset.apps/web scaled\n");
        let out = s.run("scale sts/missing --replicas=1", None, &NoFiles);
        assert_eq!(
            out.stderr,
            "Error from server (NotFound): statefulsets.apps \"missing\" not found\n"
        );
        // The request is a patch of the scale subresource, recorded as any other.
        let last = s.cluster.requests().next_back().unwrap();
        assert_eq!(
            (
                last.verb,
                last.resource.as_str(),
                last.name.as_str(),
                last.code
            ),
            ("patch", "statefulsets", "web", 200)
        );
    }

    #[test]
    fn a_stateful_set_without_replicas_scales_from_one() {
        let manifest = testing::WEB.replace("  replicas: 3\n", "");
        let mut s = testing::session(&manifest);
        let out = s.run(
            "scale sts web --replicas=2 --current-replicas=1",
            None,
            &NoFiles,
        );
        assert_eq!(out.stdout, "statefulset.apps/web scaled\n");
    }
}
