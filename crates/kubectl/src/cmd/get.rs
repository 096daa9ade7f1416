//! `kubectl get`.

use crate::args::GetArgs;
use crate::context::{CommandOutput, Context};
use crate::errors;
use crate::printers::json::to_go_json;
use crate::printers::table;
use crate::printers::yaml;
use crate::printers::{self, PrintOptions};
use crate::selector::Selector;
use std::collections::BTreeMap;
use warehouse_sim::StableSort;
use warehouse_sim::{Cluster, Kind, Object, StatusReason};

/// The warning the apiserver sends with every core/v1 Endpoints request (v1.33+).
pub(crate) const ENDPOINTS_DEPRECATED: &str =
    "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice";

/// What one resource argument asks for: a kind and names (none: the whole list).
pub(crate) struct ResourceArg {
    pub kind: Kind,
    pub names: Vec<String>,
}

pub(crate) fn lookup_kind(name: &str) -> Result<Vec<Kind>, String> {
    if name.eq_ignore_ascii_case("all") {
        return Ok(crate::cmd::api_resources::category("all"));
    }
    // `deployments.v1.apps`: resource, version, group.
    let without_version = match name.splitn(3, '.').collect::<Vec<_>>().as_slice() {
        [resource, version, group] if is_version(version) => Some(format!("{resource}.{group}")),
        [resource, version] if is_version(version) => Some(resource.to_string()),
        _ => None,
    };
    crate::discovery::lookup(name)
        .or_else(|| {
            without_version
                .as_deref()
                .and_then(crate::discovery::lookup)
        })
        .map(|k| vec![k])
        .ok_or_else(|| format!("error: the server doesn't have a resource type \"{name}\""))
}

/// `v1`, `v1beta1`, `v2alpha3`.
fn is_version(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else {
        return false;
    };
    let digits = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    digits.len() < rest.len()
        && (digits.is_empty()
            || ["alpha", "beta"].iter().any(|p| {
                digits
                    .strip_prefix(p)
                    .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            }))
}

/// The builder's `ResourceTypeOrNameArgs`: `TYPE[,TYPE] [NAME ...]` or `TYPE/NAME ...`.
pub(crate) fn parse_resource_args(args: &[String]) -> Result<Vec<ResourceArg>, String> {
    if args.iter().any(|a| a.contains('/')) {
        let mut out = Vec::new();
        for a in args {
            let Some((t, n)) = a.split_once('/') else {
                return Err("error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'".into());
            };
            if n.is_empty() {
                return Err(
                    "error: arguments in resource/name form must have a single resource and name"
                        .into(),
                );
            }
            for kind in lookup_kind(t)? {
                out.push(ResourceArg {
                    kind,
                    names: vec![n.to_string()],
                });
            }
        }
        return Ok(out);
    }
    let Some((types, names)) = args.split_first() else {
        return Ok(Vec::new());
    };
    let mut out: Vec<ResourceArg> = Vec::new();
    for t in types.split(',').filter(|t| !t.is_empty()) {
        for kind in lookup_kind(t)? {
            if out.iter().any(|r| r.kind == kind) {
                continue;
            }
            out.push(ResourceArg {
                kind,
                names: names.to_vec(),
            });
        }
    }
    Ok(out)
}

enum Output {
    Table {
        wide: bool,
    },
    Yaml,
    Json,
    Name,
    /// jsonpath, go-template and custom-columns (getfmt.rs).
    Template(Box<crate::cmd::getfmt::Printer>),
}

fn parse_output(args: &GetArgs, ctx: &Context<'_>) -> Result<Output, String> {
    let o = args.output.as_deref();
    // A `--template` without `-o` means go-template.
    let o = match o {
        None | Some("") if args.template.as_deref().is_some_and(|t| !t.is_empty()) => {
            Some("go-template")
        }
        other => other,
    };
    if let Some(format) = o {
        if let Some(p) = crate::cmd::getfmt::parse_printer(format, args, ctx)? {
            return Ok(Output::Template(Box::new(p)));
        }
    }
    match o {
        None | Some("") => Ok(Output::Table { wide: false }),
        Some("wide") => Ok(Output::Table { wide: true }),
        Some("yaml") => Ok(Output::Yaml),
        Some("json") => Ok(Output::Json),
        Some("name") => Ok(Output::Name),
        Some(other) => Err(format!("error: unable to match a printer suitable for the output format \"{other}\", allowed formats are: {}", crate::cmd::getfmt::ALLOWED_FORMATS)),
    }
}

/// An object as `-o yaml|json` prints it: as the server sends it, without
/// `metadata.managedFields`.
pub(crate) fn printable_json(obj: &Object) -> serde_json::Value {
    let mut v = obj.to_json();
    if let Some(meta) = v.get_mut("metadata").and_then(|m| m.as_object_mut()) {
        meta.remove("managedFields");
    }
    v
}

/// An object as `-o yaml|json --show-managed-fields` prints it: with the
/// managedFields the apiserver keeps for it (upstream's printers drop them unless
/// asked, `--show-managed-fields` in cli-runtime's print flags).
pub(crate) fn json_with_managed_fields(cluster: &Cluster, obj: &Object) -> serde_json::Value {
    let mut v = printable_json(obj);
    let entries: Vec<serde_json::Value> = cluster
        .managed_fields(&obj.key())
        .iter()
        .map(|e| e.to_json())
        .collect();
    if let (false, Some(meta)) = (
        entries.is_empty(),
        v.get_mut("metadata").and_then(|m| m.as_object_mut()),
    ) {
        meta.insert("managedFields".into(), serde_json::Value::Array(entries));
    }
    v
}

/// What the requests of a `get` found.
#[derive(Default)]
struct Found {
    objects: Vec<Object>,
    /// The errors to print after the output.
    errs: Vec<String>,
    /// Kinds whose list the apiserver refused (they print nothing, not even a header).
    failed: Vec<Kind>,
}

/// The checks of `get`'s arguments before any request; returns the requests, the
/// output format and the label selector.
fn check_args(
    args: &GetArgs,
    ctx: &Context,
) -> Result<(Vec<ResourceArg>, Output, Option<Selector>), String> {
    let requests = parse_resource_args(&args.args)?;
    let output = parse_output(args, ctx)?;
    if args.watch {
        return Err("error: --watch is not available in this simulated cluster yet; advance the simulation and run get again".into());
    }
    let any_names = requests.iter().any(|r| !r.names.is_empty());
    if args.all_namespaces && any_names {
        return Err("error: a resource cannot be retrieved by name across all namespaces".into());
    }
    let selector = match args.selector.as_deref().map(Selector::parse) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(e)) => return Err(format!("error: {e}")),
    };
    if (selector.is_some()
        || args
            .field_selector
            .as_deref()
            .is_some_and(|f| !f.is_empty()))
        && any_names
    {
        return Err("error: name cannot be provided when a selector is specified".into());
    }
    Ok((requests, output, selector))
}

/// Reads what the requests ask for, as the caller: whole lists (filtered by the
/// selectors) or named objects.
fn fetch(
    cluster: &Cluster,
    ctx: &Context,
    args: &GetArgs,
    requests: &[ResourceArg],
    selector: Option<&Selector>,
    namespace: &str,
) -> Found {
    let mut found = Found::default();
    for req in requests {
        if req.names.is_empty() {
            let ns = if args.all_namespaces {
                None
            } else {
                Some(namespace)
            };
            let empty = BTreeMap::new();
            // Authorization, then the read from etcd (which times out while it is down).
            let allowed =
                crate::context::authorize(cluster, ctx, "list", req.kind, ns.unwrap_or(""), "")
                    .and_then(|()| cluster.check_storage());
            if let Err(e) = allowed {
                found.errs.push(errors::render(&e, None));
                continue;
            }
            // The field selector is checked by each kind's registry.
            let fields = match crate::cmd::getfmt::check_field_selector(
                args.field_selector.as_deref(),
                args.selector.as_deref(),
                &[req.kind],
            ) {
                Ok(f) => f,
                Err(e) => {
                    found.errs.push(e);
                    found.failed.push(req.kind);
                    continue;
                }
            };
            found
                .objects
                .extend(cluster.list(req.kind, ns).into_iter().filter(|o| {
                    selector.is_none_or(|s| s.matches(o.meta().labels.as_ref().unwrap_or(&empty)))
                        && fields.as_ref().is_none_or(|f| f.matches(o))
                }));
        } else {
            for name in &req.names {
                let got = crate::context::authorize(cluster, ctx, "get", req.kind, namespace, name)
                    .and_then(|()| cluster.check_storage())
                    .and_then(|()| cluster.get(req.kind, namespace, name));
                match got {
                    Ok(o) => found.objects.push(o),
                    Err(e) if e.reason == StatusReason::NotFound && args.ignore_not_found => {}
                    Err(e) => found.errs.push(errors::render(&e, None)),
                }
            }
        }
    }
    found
}

/// Prints the objects as tables, one per run of objects of the same kind, or says
/// that nothing was found.
fn print_tables(
    cluster: &Cluster,
    args: &GetArgs,
    requests: &[ResourceArg],
    found: &Found,
    wide: bool,
    namespace: &str,
    out: &mut CommandOutput,
) {
    let objects = &found.objects;
    let kinds: Vec<Kind> = objects.iter().map(Object::kind).collect();
    // kubectl prefixes names with the kind when its results span several
    // kinds: every listed kind counts (even with nothing in it), named
    // objects only when found.
    let mut result_kinds: Vec<Kind> = requests
        .iter()
        .filter(|r| r.names.is_empty() && !found.failed.contains(&r.kind))
        .map(|r| r.kind)
        .chain(kinds.iter().copied())
        .collect();
    result_kinds.stable_sort();
    result_kinds.dedup();
    let with_kind = result_kinds.len() > 1;
    let now = cluster.now();
    let mut i = 0;
    while i < objects.len() {
        let kind = objects[i].kind();
        let mut j = i;
        while j < objects.len() && objects[j].kind() == kind {
            j += 1;
        }
        let opts = PrintOptions {
            wide,
            with_namespace: args.all_namespaces,
            with_kind,
            show_labels: args.show_labels,
        };
        let mut rows = Vec::new();
        if !args.no_headers {
            let mut h = printers::headers(kind, opts);
            printers::add_label_headers(&mut h, &args.label_columns, opts);
            rows.push(h);
        }
        rows.extend(objects[i..j].iter().map(|o| {
            let mut row = printers::row(o, now, opts);
            printers::add_label_cells(&mut row, o, &args.label_columns, opts);
            row
        }));
        if !out.stdout.is_empty() && !args.no_headers {
            out.stdout.push('\n');
        }
        out.stdout.push_str(&table::format(&rows));
        i = j;
    }
    if out.stdout.is_empty() && found.errs.is_empty() && !args.ignore_not_found {
        // kubectl names the namespace only when a namespaced kind was asked for.
        let namespaced = requests.iter().any(|r| r.kind.namespaced());
        if args.all_namespaces || !namespaced {
            out.err_line("No resources found");
        } else {
            out.err_line(format!("No resources found in {namespace} namespace."));
        }
    }
}

/// The `List` kubectl prints several objects in.
fn list_json(items: &[serde_json::Value]) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "v1",
        "items": items,
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    })
}

/// Prints the objects in a format other than a table (`-o name`, `yaml`, `json` or
/// a template): one object alone when one was named, else a `List`.
fn print_objects(
    printable_json: &dyn Fn(&Object) -> serde_json::Value,
    output: &Output,
    found: &Found,
    single_item_implied: bool,
    headers: bool,
    out: &mut CommandOutput,
) {
    let objects = &found.objects;
    match output {
        // Tables are printed by `print_tables`.
        Output::Table { .. } => {}
        Output::Name => {
            for o in objects {
                out.out_line(format!("{}/{}", o.kind().qualified_singular(), o.name()));
            }
        }
        Output::Template(printer) => {
            if single_item_implied && objects.len() == 1 {
                printer.print(&printable_json(&objects[0]), None, headers, out);
            } else if !single_item_implied || found.errs.is_empty() {
                let items: Vec<serde_json::Value> = objects.iter().map(printable_json).collect();
                printer.print(&list_json(&items), Some(&items), headers, out);
            }
        }
        Output::Yaml | Output::Json => {
            let value = if single_item_implied && objects.len() == 1 {
                Some(printable_json(&objects[0]))
            } else if single_item_implied && !found.errs.is_empty() {
                None
            } else {
                let items: Vec<serde_json::Value> = objects.iter().map(printable_json).collect();
                Some(list_json(&items))
            };
            if let Some(v) = value {
                match output {
                    Output::Yaml => out.stdout.push_str(&yaml::to_yaml(&v)),
                    _ => out.out_line(to_go_json(&v)),
                }
            }
        }
    }
}

pub(crate) fn run(cluster: &Cluster, ctx: &Context, args: GetArgs) -> CommandOutput {
    if let Some(uri) = args.raw.as_deref() {
        return crate::cmd::raw::run(cluster, &args, uri);
    }
    if args.args.is_empty() {
        let mut out = CommandOutput::new();
        out.stderr.push_str("You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n\n");
        out.fail("error: Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples");
        return out;
    }
    if let Some(out) = crate::cmd::componentstatus::run(cluster, &args) {
        return out;
    }
    let (requests, output, selector) = match check_args(&args, ctx) {
        Ok(x) => x,
        Err(e) => return CommandOutput::error(e),
    };
    let namespace = args
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let mut found = fetch(
        cluster,
        ctx,
        &args,
        &requests,
        selector.as_ref(),
        &namespace,
    );
    let single_item_implied = requests.len() == 1
        && requests[0].names.len() == 1
        && !args.args.iter().any(|a| a.contains(','));

    let mut out = CommandOutput::new();
    if let Some(field) = args.sort_by.as_deref().filter(|f| !f.is_empty()) {
        let scope = match output {
            Output::Table { .. } => crate::cmd::getfmt::SortScope::Tables,
            _ => crate::cmd::getfmt::SortScope::List,
        };
        if let Err(e) = crate::cmd::getfmt::sort_objects(&mut found.objects, field, scope) {
            return CommandOutput::error(e);
        }
    }
    // The apiserver's deprecation warning for core/v1 Endpoints, on every request.
    if requests.iter().any(|r| r.kind == Kind::Endpoints) {
        out.err_line(ENDPOINTS_DEPRECATED);
    }
    match output {
        Output::Table { wide } => print_tables(
            cluster, &args, &requests, &found, wide, &namespace, &mut out,
        ),
        _ => print_objects(
            &|o: &Object| {
                if args.show_managed_fields {
                    json_with_managed_fields(cluster, o)
                } else {
                    printable_json(o)
                }
            },
            &output,
            &found,
            single_item_implied,
            !args.no_headers,
            &mut out,
        ),
    }
    for e in found.errs {
        out.fail(e);
    }
    out
}
