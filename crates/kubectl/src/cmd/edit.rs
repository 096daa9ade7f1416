//! `kubectl edit (TYPE NAME | TYPE/NAME) [-n NS]`.
//!
//! Mirrors staging/src/k8s.io/kubectl/pkg/cmd/util/editor/editoptions.go: the object
//! is written as YAML under kubectl's comment header (managedFields left out), the
//! editor's saved text has its `#` lines stripped, and then: unchanged → `Edit
//! cancelled, no changes made.`; empty → `Edit cancelled, saved file was empty.`;
//! apiVersion, kind or name changed → refused; otherwise the object is updated
//! (`deployment.apps/web edited`), and an invalid result keeps a copy of the changes.
//!
//! There is no editor process: in scripts the command's stdin (a heredoc) is what the
//! editor saves; without one nothing was changed. The web app opens the object in its
//! YAML editor and sends the edited text here ([`buffer`] gives the text to open).

use crate::context::{CommandOutput, Context};
use crate::errors;
use warehouse_sim::apiserver::request::{Body, Credentials};
use warehouse_sim::{Cluster, Kind};

const HEADER: &str = "# Please edit the object below. Lines beginning with a '#' will be ignored,\n# and an empty file will abort the edit. If an error occurs while saving this file will be\n# reopened with the relevant failures.\n#\n";

/// The target of `kubectl edit ARGS`: kind, namespace and name.
fn target(ctx: &Context<'_>, args: &[String]) -> Result<(Kind, String, String), String> {
    let mut namespace: Option<String> = None;
    let mut words = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "-n" | "--namespace" => {
                i += 1;
                namespace = args.get(i).cloned();
            }
            _ if a.starts_with("--namespace=") => namespace = Some(a[12..].to_string()),
            "-o" | "--output" => i += 1,
            _ if a.starts_with("--output=") || a.starts_with("-o") => {}
            "--save-config" | "--record" | "--windows-line-endings" => {}
            _ if a.starts_with('-') => {
                return Err(format!(
                    "error: unknown flag: {a}\nSee 'kubectl edit --help' for usage."
                ))
            }
            _ => words.push(a.to_string()),
        }
        i += 1;
    }
    if words.first().map(String::as_str) == Some("edit") {
        words.remove(0);
    }
    let (kind_word, name) = match words.as_slice() {
        [one] => match one.split_once('/') {
            Some((k, n)) => (k.to_string(), n.to_string()),
            None if crate::cmd::get::lookup_kind(one).is_ok() => {
                return Err(
                    "error: editing every object of a kind at once is not simulated; name one object (kubectl edit TYPE NAME)"
                        .into(),
                )
            }
            None => return Err(format!("error: the server doesn't have a resource type \"{one}\"")),
        },
        [k, n] => (k.clone(), n.clone()),
        [] => {
            return Err("error: you must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'".into())
        }
        _ => return Err("error: editing more than one object at a time is not simulated; name one object".into()),
    };
    let kind = crate::cmd::get::lookup_kind(&kind_word)?
        .into_iter()
        .next()
        .ok_or_else(|| format!("error: the server doesn't have a resource type \"{kind_word}\""))?;
    let ns = if kind.info().namespaced {
        namespace.unwrap_or_else(|| ctx.default_namespace.clone())
    } else {
        String::new()
    };
    Ok((kind, ns, name))
}

/// The text an editor opens for `kubectl edit ARGS`: the header and the object's YAML.
pub fn buffer(cluster: &Cluster, namespace: &str, args: &[String]) -> Result<String, String> {
    let ctx = Context {
        stdin: None,
        files: &crate::context::NoFiles,
        default_namespace: namespace.to_string(),
        credentials: Credentials::admin(),
        field_manager: None,
        field_manager_flag: false,
    };
    let (kind, ns, name) = target(&ctx, args)?;
    let obj = cluster
        .get(kind, &ns, &name)
        .map_err(|e| errors::render(&e, None))?;
    Ok(format!(
        "{HEADER}{}",
        crate::printers::yaml::to_yaml(&crate::cmd::get::printable_json(&obj))
    ))
}

fn strip_comments(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let (kind, ns, name) = match target(ctx, args) {
        Ok(t) => t,
        Err(e) => return CommandOutput::error(e),
    };
    if let Err(e) = crate::context::authorize(cluster, ctx, "get", kind, &ns, &name) {
        return CommandOutput::error(errors::render(&e, None));
    }
    let live = match cluster.get(kind, &ns, &name) {
        Ok(o) => o,
        Err(e) => return CommandOutput::error(errors::render(&e, None)),
    };
    let original = crate::printers::yaml::to_yaml(&crate::cmd::get::printable_json(&live));
    let mut out = CommandOutput::new();
    let Some(saved) = ctx.stdin else {
        // No editor ran: the file was saved as it was opened.
        out.err_line("Edit cancelled, no changes made.");
        return out;
    };
    let edited = strip_comments(saved);
    if edited.trim() == strip_comments(&original).trim() {
        out.err_line("Edit cancelled, no changes made.");
        return out;
    }
    if edited.trim().is_empty() {
        out.err_line("Edit cancelled, saved file was empty.");
        return out;
    }
    let resource = {
        let info = kind.info();
        if info.group.is_empty() {
            info.plural.to_string()
        } else {
            format!("{}.{}", info.plural, info.group)
        }
    };
    let copy = format!(
        "/tmp/kubectl-edit-{:010}.yaml",
        warehouse_sim::fnv32a(saved.as_bytes())
    );
    let preserved = |out: &mut CommandOutput, message: String| {
        out.fail(message);
        out.err_line(format!(
            "A copy of your changes has been stored to \"{copy}\""
        ));
        out.fail("error: Edit cancelled, no valid changes were saved.");
    };
    let obj = match warehouse_sim::decode_manifests(&edited) {
        Ok(mut objs) if objs.len() == 1 => objs.remove(0),
        Ok(_) => {
            preserved(
                &mut out,
                "error: the edited file must hold exactly one object".into(),
            );
            return out;
        }
        Err(e) => {
            preserved(
                &mut out,
                format!("error: The edited file had a syntax error: {e}"),
            );
            return out;
        }
    };
    if obj.kind() != kind || obj.name() != name {
        preserved(
            &mut out,
            "error: At least one of apiVersion, kind and name was changed".into(),
        );
        return out;
    }
    let result = crate::context::send(cluster, ctx, Body::patch(obj));
    match result {
        Ok(updated) => {
            let group = kind.info().group;
            let word = if group.is_empty() {
                kind.info().singular.to_string()
            } else {
                format!("{}.{group}", kind.info().singular)
            };
            out.out_line(format!("{word}/{} edited", updated.name()));
        }
        Err(e) if e.reason == warehouse_sim::StatusReason::Invalid => {
            out.err_line(errors::render(&e, None));
            preserved(&mut out, format!("error: {resource} \"{name}\" is invalid"));
        }
        Err(e) => out.fail(errors::render(&e, None)),
    }
    out
}
