//! `kubectl create -f`, `kubectl create namespace NAME` and `kubectl replace -f`:
//! plain POST and PUT, without apply's annotation. Like apply, every document is
//! decoded and checked before anything is sent.

use crate::args::{CreateArgs, ReplaceArgs};
use crate::cmd::apply::{not_simulated_warning, prepare, read_all, strip_status};
use crate::context::{CommandOutput, Context};
use crate::errors;
use warehouse_sim::apiserver::request::Body;
use warehouse_sim::{Cluster, Kind, Object};

fn name_only(output: Option<&str>, command: &str) -> Result<bool, CommandOutput> {
    match output {
        None | Some("") => Ok(false),
        Some("name") => Ok(true),
        Some(other) => Err(CommandOutput::error(format!(
            "error: -o {other} is not available for {command} in this simulated cluster; use -o name"
        ))),
    }
}

fn report(out: &mut CommandOutput, obj: &Object, verb: &str, name_only: bool) {
    if let Some(w) = not_simulated_warning(obj) {
        out.err_line(w);
    }
    let display = format!("{}/{}", obj.kind().qualified_singular(), obj.name());
    if name_only {
        out.out_line(display);
    } else {
        out.out_line(format!("{display} {verb}"));
    }
}

pub(crate) fn create(cluster: &mut Cluster, ctx: &Context, args: CreateArgs) -> CommandOutput {
    let name_only = match name_only(args.output.as_deref(), "create") {
        Ok(n) => n,
        Err(out) => return out,
    };
    match (args.args.as_slice(), args.filenames.is_empty()) {
        ([], false) => {}
        ([what, name], true) if what == "token" => {
            return create_token(cluster, ctx, name, args.namespace.as_deref())
        }
        ([what, name], true) if matches!(what.as_str(), "namespace" | "ns") => {
            return create_namespace(cluster, ctx, name, name_only)
        }
        ([what], true) if matches!(what.as_str(), "namespace" | "ns") => {
            return CommandOutput::error(
                "error: exactly one NAME is required, got 0\nSee 'kubectl create namespace -h' for help and examples",
            )
        }
        ([what, ..], true) => {
            return CommandOutput::error(format!(
                "error: \"kubectl create {what}\" is not available in this simulated cluster yet; it creates from files (-f), namespaces and tokens"
            ))
        }
        ([], true) => {
            return CommandOutput::error(
                "error: must specify one of -f and -k\n\nerror: unknown command \"\" for \"create\"",
            )
        }
        (extra, false) => {
            return CommandOutput::error(format!(
                "error: Unexpected args: [{}]\nSee 'kubectl create -h' for help and examples",
                extra.join(" ")
            ))
        }
    }
    let mut items = match read_all(ctx, &args.filenames) {
        Ok(items) => items,
        Err(e) => return CommandOutput::error(e),
    };
    if items.is_empty() {
        return CommandOutput::error("error: no objects passed to create");
    }
    if let Err(e) = prepare(ctx, &mut items, args.namespace.as_deref()) {
        return CommandOutput::error(e);
    }
    let mut out = CommandOutput::new();
    for item in items {
        let obj = strip_status(&item.object).unwrap_or(item.object);
        let result = crate::context::send(cluster, ctx, Body::Create(obj));
        match result {
            Ok(created) => report(&mut out, &created, "created", name_only),
            Err(e) => out.fail(errors::render(&e, Some(("creating", &item.source)))),
        }
    }
    out
}

/// `kubectl create token SA`: prints a bearer token for the ServiceAccount.
fn create_token(
    cluster: &mut Cluster,
    ctx: &Context,
    name: &str,
    namespace: Option<&str>,
) -> CommandOutput {
    let ns = namespace
        .map(str::to_string)
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let attrs = warehouse_sim::Attributes {
        verb: "create".into(),
        kind: Kind::ServiceAccount,
        subresource: Some("token".into()),
        namespace: ns.clone(),
        name: name.to_string(),
    };
    let result = cluster
        .authorize_read(&ctx.credentials, &attrs)
        .and_then(|_| cluster.check_storage())
        .and_then(|()| cluster.issue_service_account_token(&ns, name));
    match result {
        Ok(token) => {
            let mut out = CommandOutput::new();
            out.out_line(token);
            out
        }
        Err(e) => CommandOutput::error(errors::render(&e, None)),
    }
}

fn create_namespace(
    cluster: &mut Cluster,
    ctx: &Context,
    name: &str,
    name_only: bool,
) -> CommandOutput {
    let yaml = format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: \"{name}\"\n");
    let obj = match warehouse_sim::decode_manifests(&yaml) {
        Ok(mut o) if o.len() == 1 => o.remove(0),
        _ => {
            return CommandOutput::error(format!(
                "The Namespace \"{name}\" is invalid: metadata.name: Invalid value: \"{name}\""
            ))
        }
    };
    let mut out = CommandOutput::new();
    let result = crate::context::send(cluster, ctx, Body::Create(obj));
    match result {
        Ok(created) => report(&mut out, &created, "created", name_only),
        Err(e) => out.fail(errors::render(&e, None)),
    }
    out
}

pub(crate) fn replace(cluster: &mut Cluster, ctx: &Context, args: ReplaceArgs) -> CommandOutput {
    let name_only = match name_only(args.output.as_deref(), "replace") {
        Ok(n) => n,
        Err(out) => return out,
    };
    if !args.args.is_empty() {
        return CommandOutput::error(format!(
            "error: Unexpected args: [{}]\nSee 'kubectl replace -h' for help and examples",
            args.args.join(" ")
        ));
    }
    if args.filenames.is_empty() {
        return CommandOutput::error("error: must specify --filename to replace");
    }
    let mut items = match read_all(ctx, &args.filenames) {
        Ok(items) => items,
        Err(e) => return CommandOutput::error(e),
    };
    if items.is_empty() {
        return CommandOutput::error("error: no objects passed to replace");
    }
    if let Err(e) = prepare(ctx, &mut items, args.namespace.as_deref()) {
        return CommandOutput::error(e);
    }
    let mut out = CommandOutput::new();
    for item in items {
        let obj = item.object;
        let result = crate::context::send(cluster, ctx, Body::Update(obj));
        match result {
            Ok(replaced) => report(&mut out, &replaced, "replaced", name_only),
            Err(e) => out.fail(errors::render(&e, Some(("replacing", &item.source)))),
        }
    }
    out
}
