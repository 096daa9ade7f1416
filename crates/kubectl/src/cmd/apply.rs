//! `kubectl apply -f`: client-side apply with the last-applied-configuration
//! annotation. Every document of every file is decoded and checked before anything
//! is sent: bad input never half-applies.

use crate::args::ApplyArgs;
use crate::cmd::merge;
use crate::context::{CommandOutput, Context};
use crate::errors;
use crate::printers::json::go_escape;
use warehouse_sim::apiserver::request::Body;
use warehouse_sim::{Cluster, ManifestError, ManifestErrorKind, Object, StatusReason};

pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// `--dry-run`: none (the default), client (nothing sent but reads), server (the
/// apiserver runs the whole pipeline and stores nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DryRun {
    None,
    Client,
    Server,
}

impl DryRun {
    /// The `--dry-run` flag's value (none when not given), or upstream's refusal.
    pub(crate) fn parse(value: Option<&str>) -> Result<DryRun, String> {
        match value {
            None | Some("none") => Ok(DryRun::None),
            Some("client") => Ok(DryRun::Client),
            Some("server") => Ok(DryRun::Server),
            Some(other) => Err(format!(
                "error: Invalid dry-run value ({other}). Must be \"none\", \"server\", or \"client\"."
            )),
        }
    }

    /// What `PrintFlagsWithDryRunStrategy` adds to the printed operation.
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            DryRun::None => "",
            DryRun::Client => " (dry run)",
            DryRun::Server => " (server dry run)",
        }
    }
}

/// One object to apply and the source it came from (`STDIN`, a file name).
pub(crate) struct Sourced {
    pub source: String,
    pub object: Object,
}

/// Reads and decodes every `-f` source. Any failure is returned as kubectl's message
/// and nothing is returned to apply.
pub(crate) fn read_all(ctx: &Context, filenames: &[String]) -> Result<Vec<Sourced>, String> {
    read_all_in(ctx, filenames, false)
}

/// [`read_all`], where a directory holds manifest files (its subdirectories' too with
/// `recursive`, kubectl's `-R`).
pub(crate) fn read_all_in(
    ctx: &Context,
    filenames: &[String],
    recursive: bool,
) -> Result<Vec<Sourced>, String> {
    let mut paths = Vec::new();
    for f in filenames {
        match (f != "-")
            .then(|| ctx.files.list_dir(f, recursive))
            .flatten()
        {
            Some(files) => paths.extend(files),
            None => paths.push(f.clone()),
        }
    }
    let mut out = Vec::new();
    for f in &paths {
        let (source, text) = ctx.read_source(f)?;
        let objects = warehouse_sim::decode_manifests(&text)
            .map_err(|e| manifest_error(&source, &text, &e))?;
        for (i, obj) in objects.iter().enumerate() {
            custom_problem(&source, i + 1, obj)?;
        }
        out.extend(objects.into_iter().map(|object| Sourced {
            source: source.clone(),
            object,
        }));
    }
    Ok(out)
}

/// A custom object whose kind discovery does not list gets kubectl's
/// resource-mapping error; one with fields its schema does not declare, the
/// apiserver's strict decoding error (kubectl's default `--validate=strict`).
fn custom_problem(source: &str, document: usize, obj: &Object) -> Result<(), String> {
    use crate::discovery::{check_custom, CustomProblem};
    let kind = obj.kind();
    let api_version = obj.api_version();
    let e = match check_custom(obj) {
        Ok(()) => return Ok(()),
        Err(CustomProblem::NoMatch) => ManifestError {
            document,
            line: None,
            column: None,
            kind: ManifestErrorKind::NoMatch {
                api_version: api_version.clone(),
                kind: kind.as_str().to_string(),
                name: obj.name().to_string(),
                namespace: obj.namespace().to_string(),
            },
            message: String::new(),
        },
        Err(CustomProblem::UnknownFields(fields)) => {
            let listed: Vec<String> = fields
                .iter()
                .map(|f| format!("unknown field \"{f}\""))
                .collect();
            let version = api_version.rsplit('/').next().unwrap_or("");
            return Err(format!(
                "Error from server (BadRequest): error when creating \"{source}\": {kind} in version \"{version}\" cannot be handled as a {kind}: strict decoding error: {}",
                listed.join(", ")
            ));
        }
    };
    Err(manifest_error(source, "", &e))
}

/// kubectl's wording for a manifest it cannot use.
pub(crate) fn manifest_error(source: &str, text: &str, e: &ManifestError) -> String {
    let validating = |what: &str| {
        format!(
            "error: error validating \"{source}\": error validating data: {what}; if you choose to ignore these errors, turn validation off with --validate=false"
        )
    };
    match &e.kind {
        ManifestErrorKind::Syntax => {
            let detail = e
                .message
                .strip_prefix("error converting YAML to JSON: ")
                .unwrap_or(&e.message);
            if detail.starts_with("json: ") {
                // The conversion to JSON failed, not the YAML parser.
                return format!("error: error parsing {source}: error converting YAML to JSON: {detail}");
            }
            let detail = detail.strip_prefix("yaml: ").unwrap_or(detail);
            let detail = strip_location(detail);
            let location = match (e.line, e.column) {
                (Some(l), Some(c)) => format!("line {l}, column {c}: "),
                (Some(l), None) => format!("line {l}: "),
                _ => String::new(),
            };
            format!("error: error parsing {source}: error converting YAML to JSON: yaml: {location}{detail}")
        }
        ManifestErrorKind::NoMatch {
            api_version,
            kind,
            name,
            namespace,
        } => format!(
            "error: resource mapping not found for name: \"{name}\" namespace: \"{namespace}\" from \"{source}\": no matches for kind \"{kind}\" in version \"{api_version}\"\nensure CRDs are installed first"
        ),
        ManifestErrorKind::MissingTypeMeta => validating(&type_meta_problem(text, e.document)),
        ManifestErrorKind::Decode if e.message.contains("not an object") => {
            validating("invalid object to validate")
        }
        ManifestErrorKind::Decode | ManifestErrorKind::UnknownFields(_) => {
            let rest = e.message.strip_prefix("error decoding ").unwrap_or(&e.message);
            match rest.split_once(": ") {
                Some((kind, detail)) => format!(
                    "Error from server (BadRequest): error when creating \"{source}\": {kind} in version \"v1\" cannot be handled as a {kind}: {detail}"
                ),
                None => format!("error: error validating \"{source}\": {}", e.message),
            }
        }
        ManifestErrorKind::TooLarge => format!("error: {source}: {}", e.message),
    }
}

/// What kubectl's validation says about a document without `apiVersion` or `kind`.
fn type_meta_problem(text: &str, document: usize) -> String {
    use serde::Deserialize;
    let doc = serde_yaml::Deserializer::from_str(text)
        .nth(document.saturating_sub(1))
        .and_then(|d| serde_yaml::Value::deserialize(d).ok());
    let has = |field: &str| {
        doc.as_ref()
            .and_then(|v| v.get(field))
            .and_then(|v| v.as_str())
            .is_some_and(|s| !s.is_empty())
    };
    match (has("apiVersion"), has("kind")) {
        (false, false) => "[apiVersion not set, kind not set]".into(),
        (false, true) => "apiVersion not set".into(),
        (true, false) => "kind not set".into(),
        (true, true) => "invalid object to validate".into(),
    }
}

/// Removes serde_yaml's ` at line N column M` from a message (the location is
/// printed in front, as go-yaml does).
fn strip_location(msg: &str) -> String {
    // go-yaml prints the problem only, not libyaml's context.
    let msg = msg.split(", while ").next().unwrap_or(msg);
    if let Some(idx) = msg.find(" at line ") {
        let rest = &msg[idx + " at line ".len()..];
        let after_numbers = rest
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .strip_prefix(" column ")
            .map(|r| r.trim_start_matches(|c: char| c.is_ascii_digit()));
        if let Some(tail) = after_numbers {
            return format!("{}{}", &msg[..idx], tail);
        }
    }
    msg.to_string()
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context, args: ApplyArgs) -> CommandOutput {
    if !args.args.is_empty() {
        return CommandOutput::error(format!(
            "error: Unexpected args: [{}]\nSee 'kubectl apply -h' for help and examples",
            args.args.join(" ")
        ));
    }
    if args.filenames.is_empty() {
        return CommandOutput::error("error: must specify one of -f and -k");
    }
    let dry_run = match DryRun::parse(args.dry_run.as_deref()) {
        Ok(d) => d,
        Err(e) => return CommandOutput::error(e),
    };
    // `ApplyOptions.Validate` (staging/src/k8s.io/kubectl/pkg/cmd/apply/apply.go).
    if args.force_conflicts && !args.server_side {
        return CommandOutput::error("error: --force-conflicts only works with --server-side");
    }
    if dry_run == DryRun::Client && args.server_side {
        return CommandOutput::error(
            "error: --dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)",
        );
    }
    let name_only = match args.output.as_deref() {
        None | Some("") => false,
        Some("name") => true,
        Some(other) => {
            return CommandOutput::error(format!(
            "error: -o {other} is not available for apply in this simulated cluster; use -o name"
        ))
        }
    };
    let mut items = match read_all_in(ctx, &args.filenames, args.recursive) {
        Ok(items) => items,
        Err(e) => return CommandOutput::error(e),
    };
    if items.is_empty() {
        return CommandOutput::error("error: no objects passed to apply");
    }
    if let Err(e) = prepare(ctx, &mut items, args.namespace.as_deref()) {
        return CommandOutput::error(e);
    }
    let mut out = CommandOutput::new();
    if args.server_side {
        // `GetApplyFieldManagerFlag`: a server-side apply's default manager is
        // `kubectl`.
        let manager = match (&ctx.field_manager, ctx.field_manager_flag) {
            (Some(m), true) => m.clone(),
            _ => SERVER_SIDE_FIELD_MANAGER.to_string(),
        };
        for item in items {
            let display = format!(
                "{}/{}",
                item.object.kind().qualified_singular(),
                item.object.name()
            );
            let sent = crate::context::send_apply(
                cluster,
                ctx,
                item.object,
                &manager,
                args.force_conflicts,
                dry_run == DryRun::Server,
            );
            match sent {
                Ok(applied) => {
                    if let Some(w) = not_simulated_warning(&applied) {
                        out.err_line(w);
                    }
                    if name_only {
                        out.out_line(&display);
                    } else {
                        out.out_line(format!("{display} serverside-applied{}", dry_run.suffix()));
                    }
                }
                Err(e)
                    if e.reason == StatusReason::Conflict
                        && e.message.starts_with("Apply failed") =>
                {
                    out.fail(format!("error: {}\n{SERVER_SIDE_CONFLICT_HELP}", e.message))
                }
                Err(e) => out.fail(errors::render(&e, None)),
            }
        }
        return out;
    }
    for item in items {
        apply_one(cluster, ctx, item, name_only, dry_run, &mut out);
    }
    out
}

/// `fieldManagerServerSideApply`: the manager of `apply --server-side`.
const SERVER_SIDE_FIELD_MANAGER: &str = "kubectl";

/// What kubectl adds to an apply conflict (`applyOneObject`).
const SERVER_SIDE_CONFLICT_HELP: &str =
    "Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts";

/// Checks that need no server, for every object before any is sent: a name, and a
/// namespace that agrees with `-n` (filled in when the manifest has none).
pub(crate) fn prepare(
    ctx: &Context,
    items: &mut [Sourced],
    namespace_flag: Option<&str>,
) -> Result<(), String> {
    for item in items.iter_mut() {
        let obj = &mut item.object;
        let kind = obj.kind();
        if obj.name().is_empty() {
            return Err(format!(
                "error: error when retrieving current configuration of: {} \"\" from server for: \"{}\": resource name may not be empty",
                kind.qualified_singular(),
                item.source
            ));
        }
        if kind.namespaced() {
            let own = obj.namespace().to_string();
            match (namespace_flag, own.is_empty()) {
                (Some(flag), false) if flag != own => {
                    return Err(format!(
                        "error: the namespace from the provided object \"{own}\" does not match the namespace \"{flag}\". You must pass '--namespace={own}' to perform this operation."
                    ));
                }
                (_, true) => {
                    let ns = namespace_flag
                        .map(str::to_string)
                        .unwrap_or_else(|| ctx.default_namespace.clone());
                    obj.meta_mut().namespace = Some(ns);
                }
                _ => {}
            }
        } else {
            obj.meta_mut().namespace = None;
        }
    }
    Ok(())
}

/// The manifest as the annotation records it: compact JSON, keys sorted, the
/// annotation itself left out, an `annotations` map always present, a newline at
/// the end (what kubectl's encoder writes).
fn last_applied(obj: &Object) -> (serde_json::Value, String) {
    let mut v = obj.to_json();
    if let Some(meta) = v.get_mut("metadata").and_then(|m| m.as_object_mut()) {
        let annotations = meta
            .entry("annotations")
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
        if let Some(a) = annotations.as_object_mut() {
            a.remove(LAST_APPLIED);
        }
    }
    let text = format!(
        "{}\n",
        go_escape(&serde_json::to_string(&v).expect("JSON values serialise"))
    );
    (v, text)
}

/// kubectl's "original" for the three-way patch: the live object's last-applied
/// configuration, without status (status belongs to the controllers). A live
/// object without the annotation gets kubectl's warning and no original.
fn original_of(live: &Object, out: &mut CommandOutput) -> Option<serde_json::Value> {
    let original_text = live
        .meta()
        .annotations
        .as_ref()
        .and_then(|a| a.get(LAST_APPLIED));
    if original_text.is_none() {
        out.err_line(format!(
            "Warning: resource {}/{} is missing the {LAST_APPLIED} annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically.",
            live.kind().plural(),
            live.name()
        ));
    }
    original_text
        .and_then(|t| serde_json::from_slice(t.as_bytes()).ok())
        .map(|mut v: serde_json::Value| {
            if let Some(m) = v.as_object_mut() {
                m.remove("status");
            }
            v
        })
}

/// kubectl's "modified" for the three-way patch: the manifest without status,
/// carrying its own last-applied annotation.
fn modified_of(manifest: serde_json::Value, annotation: String) -> serde_json::Value {
    let mut modified = manifest;
    if let Some(m) = modified.as_object_mut() {
        m.remove("status");
        if let Some(meta) = m.get_mut("metadata").and_then(|m| m.as_object_mut()) {
            if let Some(a) = meta.get_mut("annotations").and_then(|a| a.as_object_mut()) {
                a.insert(
                    LAST_APPLIED.to_string(),
                    serde_json::Value::String(annotation),
                );
            }
        }
    }
    modified
}

fn apply_one(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    item: Sourced,
    name_only: bool,
    dry_run: DryRun,
    out: &mut CommandOutput,
) {
    let Sourced { source, object } = item;
    let kind = object.kind();
    let display = format!("{}/{}", kind.qualified_singular(), object.name());
    let (manifest, annotation) = last_applied(&object);
    let print = |out: &mut CommandOutput, verb: &str| {
        if name_only {
            out.out_line(&display);
        } else {
            out.out_line(format!("{display} {verb}{}", dry_run.suffix()));
        }
    };
    let live = {
        let ns = if object.namespace().is_empty() {
            ctx.default_namespace.as_str()
        } else {
            object.namespace()
        };
        // Authorization before the store, which times out while etcd is down.
        crate::context::authorize(cluster, ctx, "get", kind, ns, object.name())
            .and_then(|()| cluster.check_storage())
            .and_then(|()| cluster.get(kind, object.namespace(), object.name()))
    };
    match live {
        Err(e) if e.reason == StatusReason::NotFound => {
            let mut obj = object;
            obj.meta_mut()
                .annotations
                .get_or_insert_with(Default::default)
                .insert(LAST_APPLIED.to_string(), annotation);
            if let Some(m) = strip_status(&obj) {
                obj = m;
            }
            let ns = if obj.namespace().is_empty() {
                ctx.default_namespace.clone()
            } else {
                obj.namespace().to_string()
            };
            let created = match dry_run {
                DryRun::None => crate::context::send(cluster, ctx, Body::Create(obj)),
                DryRun::Server => crate::context::send_dry(cluster, ctx, Body::Create(obj), true),
                DryRun::Client => {
                    crate::context::authorize(cluster, ctx, "create", kind, &ns, "").map(|()| obj)
                }
            };
            match created {
                Ok(created) => {
                    if let Some(w) = not_simulated_warning(&created) {
                        out.err_line(w);
                    }
                    print(out, "created")
                }
                Err(e) => out.fail(errors::render(&e, Some(("creating", &source)))),
            }
        }
        Err(e) => {
            // cmdutil.AddSourceToErr with the resource.Info as kubectl prints it.
            let (group, version) = match object.api_version().split_once('/') {
                Some((g, v)) => (g.to_string(), v.to_string()),
                None => (String::new(), object.api_version()),
            };
            let verb = format!(
                "retrieving current configuration of:\nResource: \"{group}/{version}, Resource={}\", GroupVersionKind: \"{group}/{version}, Kind={}\"\nName: \"{}\", Namespace: \"{}\"\nfrom server for:",
                kind.plural(),
                kind.as_str(),
                object.name(),
                object.namespace()
            );
            out.fail(errors::render(&e, Some((&verb, &source))))
        }
        Ok(live) => {
            let current = live.to_json();
            let original = original_of(&live, out);
            let modified = modified_of(manifest, annotation);
            let patched = merge::three_way(&current, original.as_ref(), &modified);
            if patched == current {
                print(out, "unchanged");
                return;
            }
            let updated = match Object::from_json(kind, patched) {
                Ok(o) => o,
                Err(e) => {
                    out.fail(format!(
                        "Error from server (BadRequest): error when patching \"{source}\": {e}"
                    ));
                    return;
                }
            };
            let patched = match dry_run {
                DryRun::None => crate::context::send(cluster, ctx, Body::patch(updated)),
                DryRun::Server => {
                    crate::context::send_dry(cluster, ctx, Body::patch(updated), true)
                }
                DryRun::Client => crate::context::authorize(
                    cluster,
                    ctx,
                    "patch",
                    kind,
                    live.namespace(),
                    live.name(),
                )
                .map(|()| updated),
            };
            match patched {
                Ok(updated) => {
                    if let Some(w) = not_simulated_warning(&updated) {
                        out.err_line(w);
                    }
                    print(out, "configured")
                }
                Err(e) => out.fail(errors::render(&e, Some(("patching", &source)))),
            }
        }
    }
}

/// The warning the simulated apiserver sends with a write of a kind nothing in the
/// simulation acts on (kubectl prints server warnings on stderr as they arrive,
/// before the line that reports the write).
pub(crate) fn not_simulated_warning(obj: &Object) -> Option<String> {
    let kind = obj.kind();
    if let Some(field) = unsimulated_job_field(obj) {
        return Some(format!(
            "Warning: Kube Warehouse simulates Jobs but not {field} yet: job.batch/{} runs as if it were not set",
            obj.name()
        ));
    }
    (!kind.simulated()).then(|| {
        format!(
            "Warning: Kube Warehouse stores {kind} objects but does not simulate them yet: nothing will act on {}/{}",
            kind.qualified_singular(),
            obj.name()
        )
    })
}

/// The first Job field the Job controller of this simulation does not act on.
fn unsimulated_job_field(obj: &Object) -> Option<&'static str> {
    let Object::Job(job) = obj else {
        return None;
    };
    let spec = job.spec.as_ref()?;
    [
        ("spec.podFailurePolicy", spec.pod_failure_policy.is_some()),
        ("spec.successPolicy", spec.success_policy.is_some()),
        (
            "spec.backoffLimitPerIndex",
            spec.backoff_limit_per_index.is_some(),
        ),
        ("spec.managedBy", spec.managed_by.is_some()),
    ]
    .into_iter()
    .find(|(_, set)| *set)
    .map(|(field, _)| field)
}

/// The object without `status`: the apiserver ignores status on the main resource.
pub(crate) fn strip_status(obj: &Object) -> Option<Object> {
    let mut v = obj.to_json();
    let m = v.as_object_mut()?;
    m.remove("status")?;
    Object::from_json(obj.kind(), v).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_serde_yaml_locations() {
        assert_eq!(
            strip_location(
                "did not find expected key at line 4 column 3, while parsing a block mapping"
            ),
            "did not find expected key"
        );
        assert_eq!(
            strip_location("mapping values are not allowed in this context"),
            "mapping values are not allowed in this context"
        );
    }
}
