//! `kubectl get`'s template printers (`-o jsonpath=`, `-o jsonpath-file=`,
//! `-o jsonpath-as-json=`, `-o go-template=`, `-o go-template-file=`, `-o template=`,
//! `--template`, `-o custom-columns=`, `-o custom-columns-file=`), `--sort-by`,
//! `--field-selector` and `-w`/`--watch`/`--watch-only`.
//!
//! Watching in a simulated cluster: a script has no background jobs and no Ctrl-C,
//! so `kubectl get -w` prints what kubectl prints first (the table, or nothing with
//! `--watch-only`) and then lets simulated time run, a tenth of a second at a time, printing
//! one row per watch event as kubectl does (no header again; columns keep the widths
//! they had, as kubectl's tabwriter remembers them). It stops when
//! `--request-timeout` has passed, or after 60 simulated seconds when no (or a zero)
//! timeout is given, where the real command would run until interrupted.
//! With `--output-watch-events` tables gain an EVENT column and other formats print
//! `{"type": ..., "object": ...}` watch events.

use crate::args::GetArgs;
use crate::cmd::get::{parse_resource_args, printable_json, ResourceArg};
use crate::context::{CommandOutput, Context};
use crate::errors;
use crate::printers::gotemplate::Template;
use crate::printers::json::{go_escape, to_go_json};
use crate::printers::jsonpath::{go_print, go_sharp_v, relaxed, JsonPath};
use crate::printers::yaml;
use crate::printers::{self, PrintOptions};
use crate::selector::Selector;
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use warehouse_sim::apiserver::watch::WatchFilter;
use warehouse_sim::object::quantity::Quantity;
use warehouse_sim::{Cluster, Kind, Object, SimDuration, SimTime, StableSort};

/// Every output format `kubectl get` accepts, in kubectl's order.
pub(crate) const ALLOWED_FORMATS: &str = "custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml";

/// A template printer.
pub(crate) enum Printer {
    JsonPath {
        path: JsonPath,
        raw: String,
        as_json: bool,
    },
    GoTemplate {
        template: Template,
        raw: String,
    },
    CustomColumns {
        columns: Vec<(String, JsonPath)>,
    },
}

const TEMPLATE_FORMATS: &[&str] = &[
    "go-template",
    "go-template-file",
    "template",
    "templatefile",
];
const JSONPATH_FORMATS: &[&str] = &["jsonpath", "jsonpath-file", "jsonpath-as-json"];
const COLUMNS_FORMATS: &[&str] = &["custom-columns", "custom-columns-file"];

fn no_printer(format: &str) -> String {
    format!("error: unable to match a printer suitable for the output format \"{format}\", allowed formats are: {ALLOWED_FORMATS}")
}

/// The printer an `-o` value (and `--template`) asks for; `None` when the format is
/// not a template format.
pub(crate) fn parse_printer(
    format: &str,
    args: &GetArgs,
    ctx: &Context<'_>,
) -> Result<Option<Printer>, String> {
    let template_arg = args.template.as_deref().filter(|t| !t.is_empty());
    let all = [TEMPLATE_FORMATS, JSONPATH_FORMATS, COLUMNS_FORMATS].concat();
    let (name, mut value) = match template_arg {
        Some(t) => (format.to_string(), t.to_string()),
        None => match all.iter().find(|f| format.starts_with(&format!("{f}="))) {
            Some(f) => (f.to_string(), format[f.len() + 1..].to_string()),
            None => (format.to_string(), String::new()),
        },
    };
    if !all.contains(&name.as_str()) {
        return if template_arg.is_some() && format.contains('=') {
            Err(no_printer(format))
        } else {
            Ok(None)
        };
    }
    let read = |path: &str| -> Result<String, String> {
        ctx.files
            .read(path)
            .map_err(|e| format!("error: error reading --template {path}, {e}\n"))
    };
    if COLUMNS_FORMATS.contains(&name.as_str()) {
        if value.is_empty() {
            return Err(
                "error: custom-columns format specified but no custom columns given".into(),
            );
        }
        let columns = if name == "custom-columns-file" {
            let text = ctx
                .files
                .read(&value)
                .map_err(|e| format!("error: error reading template {value}, {e}\n"))?;
            columns_from_file(&text)?
        } else {
            columns_from_spec(&value)?
        };
        return Ok(Some(Printer::CustomColumns { columns }));
    }
    if value.is_empty() {
        return Err("error: template format specified but no template given".into());
    }
    let allow_missing = args.allow_missing_template_keys;
    if JSONPATH_FORMATS.contains(&name.as_str()) {
        if name == "jsonpath-file" {
            value = read(&value)?;
        }
        let path = JsonPath::parse(&value)
            .map_err(|e| format!("error: error parsing jsonpath {value}, {e}\n"))?
            .allow_missing_keys(allow_missing);
        return Ok(Some(Printer::JsonPath {
            path,
            raw: value,
            as_json: name == "jsonpath-as-json",
        }));
    }
    if name == "go-template-file" || name == "templatefile" {
        value = read(&value)?;
    }
    let template = Template::parse(&value)
        .map_err(|e| format!("error: error parsing template {value}, {e}\n"))?
        .allow_missing_keys(allow_missing);
    Ok(Some(Printer::GoTemplate {
        template,
        raw: value,
    }))
}

/// `NAME:.metadata.name,STATUS:.status.phase`.
fn columns_from_spec(spec: &str) -> Result<Vec<(String, JsonPath)>, String> {
    let mut columns = Vec::new();
    for part in spec.split(',') {
        let Some((header, path)) = part.split_once(':') else {
            return Err(format!(
                "error: unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>"
            ));
        };
        columns.push((header.to_string(), column_path(path)?));
    }
    Ok(columns)
}

/// A custom-columns file: a line of headers, then a line of paths.
fn columns_from_file(text: &str) -> Result<Vec<(String, JsonPath)>, String> {
    const FORMAT: &str = "Expected format is one line of space separated headers, one line of space separated column specs.";
    let mut lines = text.lines();
    let headers: Vec<&str> = lines
        .next()
        .ok_or_else(|| format!("error: invalid template, missing header line. {FORMAT}"))?
        .split_whitespace()
        .collect();
    let specs: Vec<&str> = lines
        .next()
        .ok_or_else(|| format!("error: invalid template, missing spec line. {FORMAT}"))?
        .split_whitespace()
        .collect();
    if headers.len() != specs.len() {
        return Err(format!(
            "error: number of headers ({}) and field specifications ({}) don't match",
            headers.len(),
            specs.len()
        ));
    }
    headers
        .iter()
        .zip(specs)
        .map(|(h, s)| Ok((h.to_string(), column_path(s)?)))
        .collect()
}

fn column_path(path: &str) -> Result<JsonPath, String> {
    let expr = relaxed(path).map_err(|e| format!("error: {e}"))?;
    JsonPath::parse(&expr).map_err(|e| format!("error: {e}"))
}

impl Printer {
    /// Prints `value` (an object, or a `List` when `items` is given) to `out`.
    /// `headers` is false when a header was printed already (or `--no-headers`).
    pub(crate) fn print(
        &self,
        value: &Value,
        items: Option<&[Value]>,
        headers: bool,
        out: &mut CommandOutput,
    ) {
        match self {
            Printer::JsonPath { path, raw, as_json } => {
                if *as_json {
                    match path.find_results(value) {
                        Ok(results) => {
                            // Each action's results print as one JSON array.
                            for group in results {
                                out.stdout.push_str(&to_go_json(&Value::Array(group)));
                                out.stdout.push('\n');
                            }
                        }
                        Err(e) => out.fail(jsonpath_error(raw, &e, value)),
                    }
                    return;
                }
                match path.execute(value) {
                    Ok(text) => out.stdout.push_str(&text),
                    Err(e) => out.fail(jsonpath_error(raw, &e, value)),
                }
            }
            Printer::GoTemplate { template, raw } => match template.execute(value) {
                Ok(text) => out.stdout.push_str(&text),
                Err((partial, e)) => {
                    out.stdout.push_str(&partial);
                    out.stdout.push_str(&format!(
                        "Error executing template: {e}. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{raw}\n\traw data was:\n\t\t{}\n\tobject given to template engine was:\n\t\t{}\n\n",
                        go_escape(&value.to_string()),
                        go_print(value)
                    ));
                    out.fail(format!(
                        "error: error executing template \"{}\": {e}",
                        go_escape_quote(raw)
                    ));
                }
            },
            Printer::CustomColumns { columns } => {
                let mut rows = Vec::new();
                if headers {
                    rows.push(columns.iter().map(|(h, _)| h.clone()).collect());
                }
                let single = [value.clone()];
                for item in items.unwrap_or(&single) {
                    let mut row = Vec::new();
                    for (_, path) in columns {
                        match path.find_results(item) {
                            Ok(results) => {
                                let values: Vec<String> =
                                    results.iter().flatten().map(go_print).collect();
                                if results.first().is_none_or(|r| r.is_empty()) {
                                    row.push("<none>".to_string());
                                } else {
                                    row.push(values.join(","));
                                }
                            }
                            Err(e) => {
                                out.fail(format!("error: {e}"));
                                return;
                            }
                        }
                    }
                    rows.push(row);
                }
                out.stdout.push_str(&crate::printers::table::format(&rows));
            }
        }
    }
}

/// Go's `%q` of a template (for the error line).
fn go_escape_quote(raw: &str) -> String {
    let q = format!("{raw:?}");
    q[1..q.len() - 1].to_string()
}

fn jsonpath_error(raw: &str, e: &str, value: &Value) -> String {
    format!(
        "error: error executing jsonpath \"{}\": Error executing template: {e}. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{raw}\n\tobject given to jsonpath engine was:\n\t\t{}\n\n\n",
        go_escape_quote(raw),
        go_sharp_v(value)
    )
}

// ----- field selectors -----

/// One `field=value` / `field!=value` requirement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FieldRequirement {
    field: String,
    equal: bool,
    value: String,
}

/// A parsed `--field-selector`; every requirement must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FieldSelector(Vec<FieldRequirement>);

impl FieldSelector {
    /// Parses apimachinery's field selector syntax (`a=b,c==d,e!=f`).
    pub(crate) fn parse(text: &str) -> Result<FieldSelector, String> {
        let mut reqs = Vec::new();
        for part in text.split(',').filter(|p| !p.is_empty()) {
            let (field, equal, value) = if let Some((f, v)) = part.split_once("!=") {
                (f, false, v)
            } else if let Some((f, v)) = part.split_once("==") {
                (f, true, v)
            } else if let Some((f, v)) = part.split_once('=') {
                (f, true, v)
            } else {
                return Err(format!(
                    "invalid selector: '{text}'; can't understand '{part}'"
                ));
            };
            reqs.push(FieldRequirement {
                field: field.trim().to_string(),
                equal,
                value: value.trim().to_string(),
            });
        }
        Ok(FieldSelector(reqs))
    }

    /// The first field the kind's registry does not index, if any.
    pub(crate) fn unsupported(&self, kind: Kind) -> Option<&str> {
        self.0
            .iter()
            .find(|r| !supported_fields(kind).contains(&r.field.as_str()))
            .map(|r| r.field.as_str())
    }

    pub(crate) fn matches(&self, obj: &Object) -> bool {
        if self.0.is_empty() {
            return true;
        }
        let json = obj.to_json();
        self.0.iter().all(|r| {
            let have = field_value(obj, &json, &r.field);
            (have == r.value) == r.equal
        })
    }
}

/// The fields each kind's apiserver registry supports in field selectors
/// (`GetAttrs`/`SelectableFields` upstream). Every kind has `metadata.name`, and
/// namespaced kinds `metadata.namespace`.
fn supported_fields(kind: Kind) -> Vec<&'static str> {
    let mut fields = vec!["metadata.name"];
    if kind.namespaced() {
        fields.push("metadata.namespace");
    }
    fields.extend_from_slice(match kind {
        Kind::Pod => &[
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        ],
        Kind::Node => &["spec.unschedulable"],
        Kind::Namespace => &["status.phase"],
        Kind::Secret => &["type"],
        Kind::ReplicaSet | Kind::ReplicationController => &["status.replicas"],
        Kind::Job => &["status.successful"],
        Kind::Event => &[
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ],
        _ => &[],
    });
    fields
}

/// A field's value as the registry's field set holds it (missing: empty; booleans
/// and numbers as text).
fn field_value(obj: &Object, json: &Value, field: &str) -> String {
    match field {
        "metadata.name" => return obj.name().to_string(),
        "metadata.namespace" => return obj.namespace().to_string(),
        "source" => {
            return json["source"]["component"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        }
        _ => {}
    }
    let mut cur = json;
    for part in field.split('.') {
        cur = &cur[part];
    }
    match cur {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Null => match field {
            "spec.hostNetwork" | "spec.unschedulable" => "false".into(),
            "status.replicas" | "status.successful" => "0".into(),
            _ => String::new(),
        },
        _ => String::new(),
    }
}

/// The apiserver's answer to a field selector it cannot serve, as kubectl shows it.
pub(crate) fn field_selector_error(kind: Kind, labels: &str, fields: &str, msg: &str) -> String {
    let gv = kind.api_version();
    let gv = if gv.contains('/') {
        gv
    } else {
        format!("/{gv}")
    };
    format!(
        "Error from server (BadRequest): Unable to find \"{gv}, Resource={}\" that match label selector \"{labels}\", field selector \"{fields}\": {msg}",
        kind.plural()
    )
}

/// Checks a `--field-selector` against the kinds asked for.
pub(crate) fn check_field_selector(
    text: Option<&str>,
    labels: Option<&str>,
    kinds: &[Kind],
) -> Result<Option<FieldSelector>, String> {
    let Some(text) = text.filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let labels = labels.unwrap_or("");
    let Some(first) = kinds.first() else {
        return Ok(None);
    };
    let sel =
        FieldSelector::parse(text).map_err(|e| field_selector_error(*first, labels, text, &e))?;
    for k in kinds {
        if let Some(f) = sel.unsupported(*k) {
            return Err(field_selector_error(
                *k,
                labels,
                text,
                &format!("field label not supported: {f}"),
            ));
        }
    }
    Ok(Some(sel))
}

// ----- sorting -----

/// How `--sort-by` sorts: kubectl sorts each kind's server-side table on its own
/// (tables), or the whole list it prints (every other output).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortScope {
    Tables,
    List,
}

/// kubectl's `--sort-by`: objects ordered by the first value the JSONPath finds in
/// each (objects without one first); integers and floats numerically, strings that
/// are both quantities by quantity, other strings in natural order (`pod-2` before
/// `pod-10`). Booleans, maps and lists cannot be sorted, as upstream. Simplified:
/// the sort is stable, where kubectl's is not guaranteed to be for equal keys, and
/// an unsortable field is an ordinary error (kubectl exits through klog).
pub(crate) fn sort_objects(
    objects: &mut Vec<Object>,
    field: &str,
    scope: SortScope,
) -> Result<(), String> {
    let expr = match (relaxed(field), scope) {
        (Ok(e), _) => e,
        // The table sorter falls back to the text as given.
        (Err(_), SortScope::Tables) => field.to_string(),
        (Err(e), SortScope::List) => return Err(format!("error: {e}")),
    };
    let path = JsonPath::parse(&expr).map_err(|e| match scope {
        SortScope::Tables => format!("error: sorting error: {e}"),
        SortScope::List => format!("error: {e}"),
    })?;
    let groups: Vec<Vec<Object>> = match scope {
        SortScope::List => vec![std::mem::take(objects)],
        SortScope::Tables => {
            let mut groups: Vec<Vec<Object>> = Vec::new();
            for o in objects.drain(..) {
                match groups.last_mut() {
                    Some(g) if g[0].kind() == o.kind() => g.push(o),
                    _ => groups.push(vec![o]),
                }
            }
            groups
        }
    };
    let mut result = Ok(());
    for group in groups {
        let mut keyed: Vec<(Option<Value>, Object)> = group
            .into_iter()
            .map(|o| {
                let key = path
                    .find_results(&printable_json(&o))
                    .ok()
                    .and_then(|r| r.into_iter().next())
                    .and_then(|r| r.into_iter().next());
                (key, o)
            })
            .collect();
        if result.is_ok() && !keyed.is_empty() && keyed.iter().all(|(k, _)| k.is_none()) {
            result = Err(format!(
                "error: couldn't find any field with path \"{expr}\" in the list of objects"
            ));
        }
        let mut unsortable = None;
        if result.is_ok() {
            keyed.stable_sort_by(|(a, _), (b, _)| match (a, b) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (Some(a), Some(b)) => compare_values(a, b).unwrap_or_else(|t| {
                    unsortable.get_or_insert(t);
                    Ordering::Equal
                }),
            });
        }
        if let (Some(t), Ok(())) = (unsortable, &result) {
            let holder = match scope {
                SortScope::Tables => "[][][]reflect.Value",
                SortScope::List => "*unstructured.Unstructured",
            };
            result = Err(format!(
                "error: Field {expr} in {holder} is an unsortable type: interface, err: unsortable type: {t}"
            ));
        }
        objects.extend(keyed.into_iter().map(|(_, o)| o));
    }
    result
}

/// `isLess` on two decoded JSON values; `Err` names a type kubectl cannot sort.
fn compare_values(a: &Value, b: &Value) -> Result<Ordering, &'static str> {
    Ok(match (a, b) {
        (Value::String(x), Value::String(y)) => match (Quantity::parse(x), Quantity::parse(y)) {
            (Some(qx), Some(qy)) => qx.milli_value().cmp(&qy.milli_value()),
            _ => natural_cmp(x, y),
        },
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i.cmp(&j),
            _ => x
                .as_f64()
                .unwrap_or(0.0)
                .partial_cmp(&y.as_f64().unwrap_or(0.0))
                .unwrap_or(Ordering::Equal),
        },
        (Value::Bool(_), _) => return Err("bool"),
        (Value::Object(_), _) => return Err("map[string]interface {}"),
        (Value::Array(_), _) => return Err("[]interface {}"),
        _ => Ordering::Equal,
    })
}

/// `sortorder.NaturalLess` as an ordering: digit runs compare by value, digits sort
/// before other characters.
pub(crate) fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        let (dx, dy) = (x[i].is_ascii_digit(), y[j].is_ascii_digit());
        if dx != dy {
            return if dx {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        if !dx {
            if x[i] != y[j] {
                return x[i].cmp(&y[j]);
            }
            i += 1;
            j += 1;
            continue;
        }
        while i < x.len() && x[i] == b'0' {
            i += 1;
        }
        while j < y.len() && y[j] == b'0' {
            j += 1;
        }
        let (nz_i, nz_j) = (i, j);
        while i < x.len() && x[i].is_ascii_digit() {
            i += 1;
        }
        while j < y.len() && y[j].is_ascii_digit() {
            j += 1;
        }
        let (li, lj) = (i - nz_i, j - nz_j);
        if li != lj {
            return li.cmp(&lj);
        }
        let (nx, ny) = (&x[nz_i..i], &y[nz_j..j]);
        if nx != ny {
            return nx.cmp(ny);
        }
        if nz_i != nz_j {
            return nz_i.cmp(&nz_j);
        }
    }
    x.len().cmp(&y.len())
}

// ----- watch -----

/// How a watch prints objects.
enum WatchOutput {
    Table { wide: bool },
    Name,
    Json,
    Yaml,
    Template(Printer),
}

/// `--request-timeout` as client-go's `ParseTimeout` reads it: a number of seconds
/// or a Go duration; zero means none.
fn parse_request_timeout(t: &str) -> Result<Option<SimDuration>, String> {
    if let Ok(n) = t.parse::<u64>() {
        return Ok((n > 0).then(|| SimDuration::secs(n)));
    }
    match warehouse_sim::time::parse_duration(t) {
        Ok(d) if d == SimDuration::ZERO => Ok(None),
        Ok(d) => Ok(Some(d)),
        Err(_) => Err("error: Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)".into()),
    }
}

/// How far simulated time moves between two looks at the watch: rows show the
/// state (and AGE) of an object within a tenth of a second of its change.
const WATCH_STEP: SimDuration = SimDuration::millis(100);

/// How long a watch runs when nothing bounds it.
pub(crate) const DEFAULT_WATCH: SimDuration = SimDuration::secs(60);

/// `-o` (or `--template`) of a watch.
fn watch_output(args: &GetArgs, ctx: &Context<'_>) -> Result<WatchOutput, String> {
    Ok(match args.output.as_deref() {
        None | Some("") if args.template.as_deref().is_none_or(str::is_empty) => {
            WatchOutput::Table { wide: false }
        }
        Some("wide") => WatchOutput::Table { wide: true },
        Some("name") => WatchOutput::Name,
        Some("json") => WatchOutput::Json,
        Some("yaml") => WatchOutput::Yaml,
        other => {
            let format = other.unwrap_or("go-template");
            match parse_printer(format, args, ctx)? {
                Some(p) => WatchOutput::Template(p),
                None => return Err(no_printer(format)),
            }
        }
    })
}

/// The one resource a watch may follow: a kind, and at most one name.
fn watch_request(args: &GetArgs) -> Result<ResourceArg, String> {
    let mut requests = parse_resource_args(&args.args)?;
    if requests.len() > 1 {
        return Err("error: you may only specify a single resource type".into());
    }
    if requests.is_empty() {
        return Err("error: Required resource not specified.".into());
    }
    let req = requests.remove(0);
    if req.names.len() > 1 {
        return Err("error: watch is only supported on individual resources and resource collections - more than 1 resource was found".into());
    }
    Ok(req)
}

/// Follows the watch until `deadline`, a step of simulated time at a time,
/// printing the events of the objects `selected` picks.
fn follow(
    cluster: &mut Cluster,
    filter: &WatchFilter,
    deadline: SimTime,
    selected: &dyn Fn(&Object) -> bool,
    printer: &mut WatchPrinter,
    out: &mut CommandOutput,
) {
    let mut revision = cluster.revision();
    while cluster.now() < deadline {
        cluster.advance(WATCH_STEP);
        let events = match cluster.watch(filter, revision) {
            Ok(e) => e,
            Err(e) => {
                out.fail(errors::render(&e, None));
                return;
            }
        };
        revision = cluster.revision();
        let objects: Vec<(&str, std::sync::Arc<Object>)> = events
            .into_iter()
            .filter(|e| selected(&e.object))
            .map(|e| (e.event_type.as_str(), e.object))
            .collect();
        printer.print(&objects, cluster, out);
    }
}

/// `kubectl get -w` / `--watch-only`.
pub(crate) fn watch(cluster: &mut Cluster, ctx: &Context<'_>, args: &GetArgs) -> CommandOutput {
    let req = match watch_request(args) {
        Ok(r) => r,
        Err(e) => return CommandOutput::error(e),
    };
    let kind = req.kind;
    let duration = match args.request_timeout.as_deref().map(parse_request_timeout) {
        None => DEFAULT_WATCH,
        Some(Ok(d)) => d.unwrap_or(DEFAULT_WATCH),
        Some(Err(e)) => return CommandOutput::error(e),
    };
    let output = match watch_output(args, ctx) {
        Ok(o) => o,
        Err(e) => return CommandOutput::error(e),
    };
    let selector = match args.selector.as_deref().map(Selector::parse) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(e)) => return CommandOutput::error(format!("error: {e}")),
    };
    let fields = match check_field_selector(
        args.field_selector.as_deref(),
        args.selector.as_deref(),
        &[kind],
    ) {
        Ok(f) => f,
        Err(e) => return CommandOutput::error(e),
    };
    if (selector.is_some() || fields.is_some()) && !req.names.is_empty() {
        return CommandOutput::error("error: name cannot be provided when a selector is specified");
    }
    let namespace = args
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let ns = (kind.namespaced() && !args.all_namespaces).then(|| namespace.clone());
    let name = req.names.first().cloned();
    let verb = if name.is_some() { "get" } else { "list" };
    let allowed = crate::context::authorize(
        cluster,
        ctx,
        verb,
        kind,
        ns.as_deref().unwrap_or(""),
        name.as_deref().unwrap_or(""),
    )
    .and_then(|()| cluster.check_storage());
    if let Err(e) = allowed {
        return CommandOutput::error(errors::render(&e, None));
    }
    let empty = BTreeMap::new();
    let selected = |o: &Object| {
        name.as_deref().is_none_or(|n| o.name() == n)
            && selector
                .as_ref()
                .is_none_or(|s| s.matches(o.meta().labels.as_ref().unwrap_or(&empty)))
            && fields.as_ref().is_none_or(|f| f.matches(o))
    };
    let initial: Vec<Object> = match &name {
        Some(n) => match cluster.get(kind, ns.as_deref().unwrap_or(""), n) {
            Ok(o) => vec![o],
            Err(e) => return CommandOutput::error(errors::render(&e, None)),
        },
        None => cluster
            .list(kind, ns.as_deref())
            .into_iter()
            .filter(|o| selected(o))
            .collect(),
    };
    let mut out = CommandOutput::new();
    let mut printer = WatchPrinter::new(output, args, kind);
    if !args.watch_only {
        let added: Vec<(&str, std::sync::Arc<Object>)> = initial
            .into_iter()
            .map(|o| ("ADDED", std::sync::Arc::new(o)))
            .collect();
        printer.print(&added, cluster, &mut out);
    }
    // The watch itself is a request of its own, authorized for the `watch` verb.
    let watch_allowed = crate::context::authorize(
        cluster,
        ctx,
        "watch",
        kind,
        ns.as_deref().unwrap_or(""),
        name.as_deref().unwrap_or(""),
    );
    if let Err(e) = watch_allowed {
        out.fail(errors::render(&e, None));
        return out;
    }
    let filter = WatchFilter {
        kind: Some(kind),
        namespace: ns.clone(),
        ..WatchFilter::default()
    };
    // The apiserver ends every watch within an hour: so does this one, however
    // long `--request-timeout` asks for.
    let deadline = cluster.now() + duration.min(crate::context::MAX_COMMAND_WAIT);
    follow(
        cluster,
        &filter,
        deadline,
        &selected,
        &mut printer,
        &mut out,
    );
    out
}

struct WatchPrinter {
    output: WatchOutput,
    opts: PrintOptions,
    /// `-L`: the label keys shown as columns.
    label_columns: Vec<String>,
    headers: bool,
    /// `--output-watch-events`: print each event's type.
    events: bool,
    /// The column widths so far (kubectl's tabwriter remembers them).
    widths: Vec<usize>,
    printed: usize,
}

impl WatchPrinter {
    /// A printer of a watch of `kind` that has printed nothing yet.
    fn new(output: WatchOutput, args: &GetArgs, kind: Kind) -> WatchPrinter {
        let wide = matches!(output, WatchOutput::Table { wide: true });
        WatchPrinter {
            output,
            opts: PrintOptions {
                wide,
                with_namespace: args.all_namespaces && kind.namespaced(),
                with_kind: false,
                show_labels: args.show_labels,
            },
            label_columns: args.label_columns.clone(),
            headers: !args.no_headers,
            events: args.output_watch_events,
            widths: Vec::new(),
            printed: 0,
        }
    }

    /// The object, or with `--output-watch-events` the `WatchEvent` carrying it.
    fn event_json(&self, event_type: &str, o: &Object) -> Value {
        if self.events {
            serde_json::json!({"type": event_type, "object": printable_json(o)})
        } else {
            printable_json(o)
        }
    }

    /// Prints watch events (type and object); the type shows with
    /// `--output-watch-events`.
    fn print(
        &mut self,
        events: &[(&str, std::sync::Arc<Object>)],
        cluster: &Cluster,
        out: &mut CommandOutput,
    ) {
        if events.is_empty() {
            return;
        }
        match &self.output {
            WatchOutput::Table { .. } => {
                let mut rows = Vec::new();
                if self.printed == 0 && self.headers {
                    let mut h = printers::headers(events[0].1.kind(), self.opts);
                    printers::add_label_headers(&mut h, &self.label_columns, self.opts);
                    if self.events {
                        h.insert(0, "EVENT".to_string());
                    }
                    rows.push(h);
                }
                let now = cluster.now();
                rows.extend(events.iter().map(|(t, o)| {
                    let mut row = printers::row(o, now, self.opts);
                    printers::add_label_cells(&mut row, o, &self.label_columns, self.opts);
                    if self.events {
                        row.insert(0, t.to_string());
                    }
                    row
                }));
                out.stdout
                    .push_str(&remembered_table(&rows, &mut self.widths));
            }
            WatchOutput::Name => {
                for (_, o) in events {
                    out.out_line(format!("{}/{}", o.kind().qualified_singular(), o.name()));
                }
            }
            WatchOutput::Json => {
                for (t, o) in events {
                    out.out_line(to_go_json(&self.event_json(t, o)));
                }
            }
            WatchOutput::Yaml => {
                for (i, (t, o)) in events.iter().enumerate() {
                    if self.printed + i > 0 {
                        out.stdout.push_str("---\n");
                    }
                    out.stdout.push_str(&yaml::to_yaml(&self.event_json(t, o)));
                }
            }
            WatchOutput::Template(p) => {
                for (i, (t, o)) in events.iter().enumerate() {
                    let value = self.event_json(t, o);
                    let headers = self.headers && self.printed + i == 0;
                    p.print(&value, None, headers, out);
                }
            }
        }
        self.printed += events.len();
    }
}

/// A table laid out with widths that never shrink across calls (the widths of
/// earlier output are remembered, as kubectl's tabwriter does while watching).
fn remembered_table(rows: &[Vec<String>], widths: &mut Vec<usize>) -> String {
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(row.len().saturating_sub(1)) {
            if widths.len() <= i {
                widths.resize(i + 1, crate::printers::table::MIN_WIDTH);
            }
            widths[i] = widths[i].max(cell.chars().count() + crate::printers::table::PADDING);
        }
    }
    crate::printers::table::render(rows, widths)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order_compares_digit_runs_by_value() {
        let mut v = vec!["pod-10", "pod-2", "pod-1", "a", "pod-02"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, vec!["a", "pod-1", "pod-2", "pod-02", "pod-10"]);
    }

    #[test]
    fn custom_columns_specs_need_a_header_and_a_path() {
        let cols = columns_from_spec("NAME:.metadata.name,NODE:spec.nodeName").unwrap();
        assert_eq!(cols.len(), 2);
        assert_eq!(cols[1].0, "NODE");
        assert_eq!(
            columns_from_spec("NAME").err().unwrap(),
            "error: unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"
        );
        let file = columns_from_file("NAME  NODE\n.metadata.name .spec.nodeName\n").unwrap();
        assert_eq!(file[0].0, "NAME");
        assert!(columns_from_file("NAME\n")
            .err()
            .unwrap()
            .starts_with("error: invalid template, missing spec line."));
        assert_eq!(
            columns_from_file("A B\n.a\n").err().unwrap(),
            "error: number of headers (2) and field specifications (1) don't match"
        );
    }

    #[test]
    fn field_selectors_parse_equality_and_inequality() {
        let s = FieldSelector::parse("status.phase=Running,spec.nodeName!=n1").unwrap();
        assert_eq!(s.0.len(), 2);
        assert!(!s.0[1].equal);
        assert!(FieldSelector::parse("status.phase").is_err());
        assert_eq!(s.unsupported(Kind::Pod), None);
        assert_eq!(s.unsupported(Kind::Service), Some("status.phase"));
        assert_eq!(
            field_selector_error(Kind::Pod, "", "foo=bar", "field label not supported: foo"),
            "Error from server (BadRequest): Unable to find \"/v1, Resource=pods\" that match label selector \"\", field selector \"foo=bar\": field label not supported: foo"
        );
        assert!(field_selector_error(Kind::Deployment, "", "x=y", "m")
            .contains("\"apps/v1, Resource=deployments\""));
    }

    #[test]
    fn watch_tables_keep_the_widths_they_had() {
        let mut widths = Vec::new();
        let first = remembered_table(
            &[
                vec!["NAME".into(), "STATUS".into()],
                vec!["a-long-name".into(), "Running".into()],
            ],
            &mut widths,
        );
        assert_eq!(first, "NAME          STATUS\na-long-name   Running\n");
        let next = remembered_table(&[vec!["b".into(), "Pending".into()]], &mut widths);
        assert_eq!(next, "b             Pending\n");
    }

    #[test]
    fn request_timeouts_are_durations_or_seconds() {
        assert_eq!(
            parse_request_timeout("5").unwrap(),
            Some(SimDuration::secs(5))
        );
        assert_eq!(
            parse_request_timeout("2m").unwrap(),
            Some(SimDuration::secs(120))
        );
        assert_eq!(parse_request_timeout("0").unwrap(), None);
        assert!(parse_request_timeout("x").is_err());
    }
}

#[cfg(test)]
mod fuzz {
    use crate::printers::gotemplate::Template;
    use crate::printers::jsonpath::JsonPath;
    use serde_json::json;

    /// Deterministic random templates built from the characters that matter to the
    /// parsers: neither parser nor executor may panic on any of them.
    #[test]
    fn random_templates_never_panic() {
        const PIECES: &[&str] = &[
            "{", "}", "{{", "}}", "{{-", "-}}", ".", "..", "[", "]", "[?(", ")]", "(", ")", "@",
            "$", "*", ":", ",", "\"", "'", "\\", "`", "-1", "0", "3", "1.5", "==", "!=", "<", "|",
            " ", "\n", "range", "end", "if", "else", "with", "index", "len", "printf", "eq", "lt",
            "and", "not", "items", "metadata", "name", "é", "%d", "%-5s", "/*", "*/", ":=", "$x",
            "=", "slice", "break", "nil", "true",
        ];
        let data = json!({"kind": "List", "items": [
            {"metadata": {"name": "a", "labels": {"x": "1"}}, "n": 3, "s": [1, "b", null]},
            {"metadata": {"name": "b"}, "n": 1.5}
        ], "metadata": {"name": "l"}});
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            let mut text = String::new();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = (seed >> 59) as usize + 1;
            for _ in 0..len {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(PIECES[(seed >> 33) as usize % PIECES.len()]);
            }
            if let Ok(p) = JsonPath::parse(&text) {
                let _ = p.execute(&data);
            }
            if let Ok(t) = Template::parse(&text) {
                let _ = t.execute(&data);
            }
        }
    }
}

#[cfg(test)]
mod session_tests {
    use crate::context::MemoryFiles;
    use crate::Session;
    use std::collections::BTreeMap;
    use warehouse_sim::{Cluster, Topology};

    fn session() -> Session {
        let mut s = Session::new(Cluster::new(7, Topology::default()));
        let out = s.run("create namespace shop", None, &crate::context::NoFiles);
        assert!(out.success(), "{}", out.combined());
        s
    }

    #[test]
    fn template_and_column_files_are_read_through_the_file_source() {
        let mut s = session();
        let files = MemoryFiles(BTreeMap::from([
            (
                "cols.txt".to_string(),
                "NAME   PHASE\n.metadata.name .status.phase\n".to_string(),
            ),
            (
                "names.jsonpath".to_string(),
                "{.items[*].metadata.name}".to_string(),
            ),
            (
                "names.tmpl".to_string(),
                "{{range .items}}{{.metadata.name}};{{end}}".to_string(),
            ),
        ]));
        let out = s.run("get ns -o custom-columns-file=cols.txt", None, &files);
        assert!(
            out.stdout.starts_with("NAME              PHASE\n"),
            "{}",
            out.stdout
        );
        assert!(
            out.stdout.contains("shop              Active\n"),
            "{}",
            out.stdout
        );
        let out = s.run("get ns -o jsonpath-file=names.jsonpath", None, &files);
        assert_eq!(
            out.stdout,
            "default kube-node-lease kube-public kube-system shop"
        );
        let out = s.run("get ns -o go-template-file=names.tmpl", None, &files);
        assert_eq!(
            out.stdout,
            "default;kube-node-lease;kube-public;kube-system;shop;"
        );
        let out = s.run("get ns -o templatefile=missing.tmpl", None, &files);
        assert_eq!(
            out.stderr,
            "error: error reading --template missing.tmpl, the path \"missing.tmpl\" does not exist\n"
        );
    }

    #[test]
    fn watch_without_changes_prints_the_table_once_and_moves_time() {
        let mut s = session();
        let before = s.cluster.now();
        let out = s.run(
            "get ns shop -w --request-timeout=5s",
            None,
            &crate::context::NoFiles,
        );
        assert_eq!(out.stdout, "NAME   STATUS   AGE\nshop   Active   0s\n");
        assert_eq!(s.cluster.now().since(before).as_secs(), 5);
        let out = s.run(
            "get ns -w --watch-only --request-timeout=1",
            None,
            &crate::context::NoFiles,
        );
        assert_eq!(out.stdout, "");
        assert!(out.success());
    }

    #[test]
    fn bad_input_changes_nothing() {
        let mut s = session();
        let before = s.cluster.now();
        for line in [
            "get ns -w --request-timeout=never",
            "get ns -w -o jsonpath='{.a'",
            "get ns,pods -w",
            "get ns --field-selector=nope=1",
            "get ns --sort-by=.nope",
        ] {
            let out = s.run(line, None, &crate::context::NoFiles);
            assert!(!out.success(), "{line}: {}", out.combined());
        }
        assert_eq!(s.cluster.now(), before);
    }
}
