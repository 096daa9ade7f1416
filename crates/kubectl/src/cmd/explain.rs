//! `kubectl explain RESOURCE[.FIELD...] [--recursive]`: field documentation.
//!
//! Mirrors staging/src/k8s.io/kubectl/pkg/explain/v2 (the `plaintext` template): a
//! GROUP/KIND/VERSION header, then for the resource or the last field of the path its
//! `FIELD: name <type>` line, the description wrapped at 76 columns (sprig `wrap`,
//! which counts across the text's own newlines) and indented by 4, and the fields in
//! name order as `name\t<type> -required-` with their wrapped descriptions.
//!
//! The descriptions are the OpenAPI descriptions k8s-openapi carries, extracted by
//! `xtask/scripts/gen_explain.py` into `explain.data` for the kinds the simulated
//! apiserver serves. Simplified: enum lists are not printed separately (they are part
//! of the descriptions), and `apiVersion`/`kind` carry the standard texts.

use crate::context::CommandOutput;
use std::collections::BTreeMap;
use warehouse_sim::Kind;
use warehouse_sim::StableSort;

// The field documentation. Native builds compile it in; the browser build fetches
// `explain.data` (copied next to the app) after the first render and hands it over
// with [`provide_data`], which keeps 400 KB of text out of the download.
crate::fetched::fetched_text!(DATA, include_str!("../explain.data"));

fn data() -> Option<&'static str> {
    DATA.get()
}

/// Hands over the text of `explain.data` (the browser build fetches it); native builds
/// carry it already and ignore this. Only the first call counts.
pub fn provide_data(text: String) {
    DATA.provide(text);
}

const API_VERSION_DOC: &str = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const KIND_DOC: &str = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

struct Field<'a> {
    name: &'a str,
    type_: &'a str,
    required: bool,
    reference: &'a str,
    description: String,
}

struct Type<'a> {
    description: String,
    fields: Vec<Field<'a>>,
}

fn unescape(s: &str) -> String {
    s.replace("\\n", "\n")
}

fn types(data: &'static str) -> BTreeMap<&'static str, Type<'static>> {
    let mut out: BTreeMap<&str, Type> = BTreeMap::new();
    let mut current: Option<&str> = None;
    for line in data.lines() {
        if let Some(rest) = line.strip_prefix('@') {
            let (path, desc) = rest.split_once('|').unwrap_or((rest, ""));
            out.insert(
                path,
                Type {
                    description: unescape(desc),
                    fields: Vec::new(),
                },
            );
            current = Some(path);
            continue;
        }
        let mut parts = line.splitn(5, '|');
        let (Some(name), Some(type_), Some(req), Some(reference), Some(desc)) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            continue;
        };
        if let Some(t) = current.and_then(|c| out.get_mut(c)) {
            t.fields.push(Field {
                name,
                type_,
                required: req == "1",
                reference,
                description: unescape(desc),
            });
        }
    }
    out
}

/// One type of a custom kind's schema, owned (the table borrows from it).
struct OwnedType {
    key: String,
    description: String,
    fields: Vec<(String, String, bool, String, String)>,
}

const METADATA_DOC: &str = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/// The types of a custom kind's schema (its preferred version's
/// `openAPIV3Schema`), keyed by their path from the root, with
/// `metadata` added as the apiserver publishes it. The root's key is `#`.
fn custom_types(kind: Kind) -> Vec<OwnedType> {
    let def = crate::discovery::definition(kind);
    let schema = match def.as_deref() {
        Some(warehouse_sim::Object::Other(d)) => {
            warehouse_sim::object::crd::schema(&d.fields, kind.info().versions[0]).cloned()
        }
        _ => None,
    };
    let mut out = Vec::new();
    let root = schema.unwrap_or(serde_json::Value::Null);
    schema_types(&root, "#".into(), &mut out);
    if let Some(top) = out.first_mut() {
        if !top.fields.iter().any(|f| f.0 == "metadata") {
            top.fields.push((
                "metadata".into(),
                "ObjectMeta".into(),
                false,
                String::new(),
                METADATA_DOC.into(),
            ));
            top.fields.sort_by(|a, b| a.0.cmp(&b.0));
        }
    }
    out
}

/// explain's type name for a schema node: `string`, `integer`, `Object`,
/// `[]string`, `map[string]string`.
fn schema_type_name(schema: &serde_json::Value) -> String {
    let t = schema.get("type").and_then(|t| t.as_str()).unwrap_or("");
    match t {
        "object" => match schema.get("additionalProperties").filter(|a| a.is_object()) {
            Some(a) => format!("map[string]{}", schema_type_name(a)),
            None => "Object".into(),
        },
        "array" => format!(
            "[]{}",
            schema_type_name(schema.get("items").unwrap_or(&serde_json::Value::Null))
        ),
        "" if schema.get("x-kubernetes-int-or-string") == Some(&serde_json::Value::Bool(true)) => {
            "IntOrString".into()
        }
        "" => "Object".into(),
        t => t.into(),
    }
}

fn schema_types(schema: &serde_json::Value, key: String, out: &mut Vec<OwnedType>) {
    let text = |v: &serde_json::Value| {
        v.get("description")
            .and_then(|d| d.as_str())
            .unwrap_or("")
            .to_string()
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(|r| r.as_array())
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_str())
        .collect();
    let mut fields = Vec::new();
    let mut nested = Vec::new();
    for (name, sub) in schema
        .get("properties")
        .and_then(|p| p.as_object())
        .into_iter()
        .flatten()
    {
        // An array of objects documents its items' fields.
        let inner = match sub.get("items") {
            Some(items) => items,
            None => sub,
        };
        let reference = if inner.get("properties").is_some() {
            let k = format!("{key}.{name}");
            nested.push((inner, k.clone()));
            k
        } else {
            String::new()
        };
        fields.push((
            name.clone(),
            schema_type_name(sub),
            required.contains(&name.as_str()),
            reference,
            text(sub),
        ));
    }
    out.push(OwnedType {
        key,
        description: text(schema),
        fields,
    });
    for (inner, k) in nested {
        schema_types(inner, k, out);
    }
}

fn borrow_types(owned: &[OwnedType]) -> BTreeMap<&str, Type<'_>> {
    owned
        .iter()
        .map(|t| {
            (
                t.key.as_str(),
                Type {
                    description: t.description.clone(),
                    fields: t
                        .fields
                        .iter()
                        .map(|(name, type_, required, reference, description)| Field {
                            name,
                            type_,
                            required: *required,
                            reference,
                            description: description.clone(),
                        })
                        .collect(),
                },
            )
        })
        .collect()
}

/// The Rust path of a kind's type in `explain.data`.
fn root_of(kind: Kind) -> String {
    let info = kind.info();
    let group = match info.group {
        "" => "core",
        "rbac.authorization.k8s.io" => "rbac",
        "networking.k8s.io" => "networking",
        "discovery.k8s.io" => "discovery",
        "storage.k8s.io" => "storage",
        "scheduling.k8s.io" => "scheduling",
        "coordination.k8s.io" => "coordination",
        "events.k8s.io" => "core",
        g => g.split('.').next().unwrap_or(g),
    };
    format!("api::{group}::{}::{}", info.versions[0], info.kind)
}

/// sprig's `wrap` (goutils `WrapCustom` without breaking long words): breaks at the
/// last space within `width`, counting the text's own newlines as ordinary characters.
fn wrap(text: &str, width: usize) -> String {
    let s = text.as_bytes();
    let len = s.len();
    let mut offset = 0;
    let mut out = String::new();
    while len - offset > width {
        if s[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = (width + offset + 1).min(len);
        match text[offset..end].rfind(' ') {
            Some(i) => {
                out.push_str(&text[offset..offset + i]);
                out.push('\n');
                offset += i + 1;
            }
            None => {
                let end = width + offset;
                match text[end..].find(' ') {
                    None => {
                        out.push_str(&text[offset..]);
                        offset = len;
                    }
                    Some(i) => {
                        out.push_str(&text[offset..end + i]);
                        out.push('\n');
                        offset = end + i + 1;
                    }
                }
            }
        }
    }
    out.push_str(&text[offset..]);
    out
}

/// sprig's `indent`: the pad before the text and after every newline.
fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    format!("{pad}{}", text.replace('\n', &format!("\n{pad}")))
}

fn field_list(
    all: &BTreeMap<&str, Type>,
    t: &Type,
    level: usize,
    recursive: bool,
    seen: &mut Vec<String>,
    out: &mut String,
) {
    let ind = level * 2;
    for f in &t.fields {
        out.push_str(&indent(f.name, ind));
        out.push('\t');
        out.push_str(&format!("<{}>", f.type_));
        if f.required {
            out.push_str(" -required-");
        }
        out.push('\n');
        if recursive {
            if !f.reference.is_empty() && !seen.iter().any(|s| s == f.reference) {
                if let Some(sub) = all.get(f.reference) {
                    seen.push(f.reference.to_string());
                    field_list(all, sub, level + 1, recursive, seen, out);
                    seen.pop();
                }
            }
        } else {
            let desc = if f.description.is_empty() {
                "<no description>".to_string()
            } else {
                f.description.clone()
            };
            out.push_str(&indent(&wrap(&desc, 78 - ind), ind + 2));
            out.push_str("\n\n");
        }
    }
}

pub(crate) fn run(args: &[String]) -> CommandOutput {
    let mut recursive = false;
    let mut words = Vec::new();
    for a in args {
        match a.as_str() {
            "explain" if words.is_empty() => {}
            "--recursive" | "--recursive=true" => recursive = true,
            "--recursive=false" => {}
            s if s.starts_with("--api-version") || s.starts_with("--output") => {}
            s if s.starts_with('-') => {
                return CommandOutput::error(format!(
                    "error: unknown flag: {s}\nSee 'kubectl explain --help' for usage."
                ))
            }
            s => words.push(s.to_string()),
        }
    }
    let Some(target) = words.first() else {
        return CommandOutput::error("You must specify the type of resource to explain. Use \"kubectl api-resources\" for a complete list of supported resources.\n\nerror: Required resource not specified.\nSee 'kubectl explain -h' for help and examples");
    };
    let mut path: Vec<&str> = target.split('.').collect();
    let resource = path.remove(0);
    let kind = match crate::cmd::get::lookup_kind(resource) {
        Ok(k) if k.len() == 1 => k[0],
        _ => {
            return CommandOutput::error(format!(
                "error: the server doesn't have a resource type \"{resource}\""
            ))
        }
    };
    // A custom kind's documentation is its definition's schema.
    let owned = match kind.is_custom() {
        true => custom_types(kind),
        false => Vec::new(),
    };
    let (all, root) = if kind.is_custom() {
        (borrow_types(&owned), "#".to_string())
    } else {
        let Some(data) = data() else {
            return CommandOutput::error(
                "error: the field documentation is still loading; try again in a moment",
            );
        };
        (types(data), root_of(kind))
    };
    let Some(mut t) = all.get(root.as_str()) else {
        return CommandOutput::error(format!(
            "error: kubectl explain has no documentation for {} in this simulated cluster",
            kind.info().kind
        ));
    };
    let info = kind.info();
    let mut out = String::new();
    if !info.group.is_empty() {
        out.push_str(&format!("GROUP:      {}\n", info.group));
    }
    out.push_str(&format!("KIND:       {}\n", info.kind));
    out.push_str(&format!("VERSION:    {}\n\n", info.versions[0]));
    // The resource's own apiVersion and kind, as the schema has them.
    let top_fields: Vec<Field> = {
        let mut f = vec![
            Field {
                name: "apiVersion",
                type_: "string",
                required: false,
                reference: "",
                description: API_VERSION_DOC.into(),
            },
            Field {
                name: "kind",
                type_: "string",
                required: false,
                reference: "",
                description: KIND_DOC.into(),
            },
        ];
        f.extend(t.fields.iter().map(|x| Field {
            name: x.name,
            type_: x.type_,
            required: x.required,
            reference: x.reference,
            description: x.description.clone(),
        }));
        f.stable_sort_by(|a, b| a.name.cmp(b.name));
        f
    };
    let top = Type {
        description: t.description.clone(),
        fields: top_fields,
    };
    t = &top;
    let mut description = t.description.clone();
    let mut fields_of: Option<&Type> = Some(t);
    for (i, step) in path.iter().enumerate() {
        let Some(f) = fields_of.and_then(|ty| ty.fields.iter().find(|f| f.name == *step)) else {
            return CommandOutput::error(format!("error: field \"{step}\" does not exist"));
        };
        if i == path.len() - 1 {
            out.push_str(&format!("FIELD: {} <{}>\n\n\n", f.name, f.type_));
        }
        description = f.description.clone();
        fields_of = all.get(f.reference);
        if let Some(sub) = fields_of {
            // A custom kind's object field is its own type: one description.
            if !sub.description.is_empty() && sub.description != f.description {
                // An object field: its description, then its type's.
                description = format!("{}\n{}", f.description, sub.description);
            }
        }
    }
    out.push_str("DESCRIPTION:\n");
    let text = if description.is_empty() {
        "<empty>".to_string()
    } else {
        format!("{description}\n")
    };
    out.push_str(&indent(&wrap(&text, 76), 4));
    out.push('\n');
    if let Some(ty) = fields_of.filter(|ty| !ty.fields.is_empty()) {
        out.push_str("FIELDS:\n");
        let mut seen = Vec::new();
        field_list(&all, ty, 1, recursive, &mut seen, &mut out);
    }
    out.push('\n');
    CommandOutput {
        stdout: out,
        ..CommandOutput::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_at_the_last_space_and_keeps_long_words() {
        assert_eq!(wrap("aaa bbb ccc", 7), "aaa bbb\nccc");
        assert_eq!(
            wrap("https://example.com/very/long x", 5),
            "https://example.com/very/long\nx"
        );
        assert_eq!(indent("a\nb\n", 4), "    a\n    b\n    ");
    }

    #[test]
    fn every_served_kind_with_a_schema_has_documentation() {
        let all = types(data().unwrap());
        for k in [
            Kind::Pod,
            Kind::Deployment,
            Kind::Service,
            Kind::Job,
            Kind::Ingress,
        ] {
            assert!(all.contains_key(root_of(k).as_str()), "{k:?}");
        }
        let out = run(&["explain".into(), "deployment.spec.replicas".into()]);
        assert!(out.stdout.starts_with("GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\nFIELD: replicas <integer>\n"), "{}", out.stdout);
    }
}
