//! CustomResourceDefinitions (apiextensions.k8s.io/v1), kept as JSON like the other
//! stored-only kinds: what a definition says (its served kind, versions, schema,
//! printer columns, subresources), its validation, and how a custom object is
//! pruned, defaulted and validated against its version's `openAPIV3Schema`.
//!
//! Upstream: staging/src/k8s.io/apiextensions-apiserver — pkg/apis/apiextensions/
//! validation/validation.go (the definition's messages), pkg/apiserver/schema/pruning
//! (unknown fields dropped), pkg/apiserver/schema/defaulting (`default`) and
//! pkg/apiserver/validation (kube-openapi's validator, its messages as
//! `field.Error`s).
//!
//! Simplified: `pattern`, `format`, `x-kubernetes-validations` (CEL),
//! `allOf`/`anyOf`/`oneOf`/`not` and conversion webhooks are accepted and not
//! checked; every served version shares the stored object as written.

use super::{intern_custom, CustomKindSpec, Kind};
use serde_json::{Map, Value};

/// The finalizer the apiserver puts on a definition being deleted; the finalizing
/// controller removes it once every custom object is gone.
pub const CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    at(v, path).and_then(Value::as_str).unwrap_or("")
}

/// Whether the definition's condition `kind` is True.
pub fn condition_true(fields: &Map<String, Value>, kind: &str) -> bool {
    fields
        .get("status")
        .and_then(|s| s.get("conditions"))
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter().any(|c| {
                c.get("type").and_then(Value::as_str) == Some(kind)
                    && c.get("status").and_then(Value::as_str) == Some("True")
            })
        })
}

/// Sets a definition's condition (upstream `SetCRDCondition`): its
/// lastTransitionTime changes only when its status does. Conditions keep the order
/// they were first set in.
pub fn set_condition(
    fields: &mut Map<String, Value>,
    now: crate::time::SimTime,
    kind: &str,
    status: &str,
    reason: &str,
    message: &str,
) {
    let st = fields
        .entry("status")
        .or_insert_with(|| Value::Object(Map::new()));
    if !st.is_object() {
        *st = Value::Object(Map::new());
    }
    let conditions = st
        .as_object_mut()
        .expect("made an object above")
        .entry("conditions")
        .or_insert_with(|| Value::Array(Vec::new()));
    if !conditions.is_array() {
        *conditions = Value::Array(Vec::new());
    }
    let conditions = conditions.as_array_mut().expect("made an array above");
    super::set_json_condition(conditions, now, kind, status, reason, message);
}

/// The served version names, preferred first: upstream sorts a group's versions
/// with `version.CompareKubeAwareVersionStrings` (GA before beta before alpha,
/// higher numbers first, anything else last by name).
pub fn served_versions(spec: &Value) -> Vec<String> {
    let mut versions: Vec<String> = spec
        .get("versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|v| v.get("served").and_then(Value::as_bool) == Some(true))
        .filter_map(|v| v.get("name").and_then(Value::as_str).map(str::to_string))
        .collect();
    versions.sort_by_key(|v| version_priority(v));
    versions
}

/// Kube-aware version order as a sort key (smaller first).
fn version_priority(v: &str) -> (u8, std::cmp::Reverse<u64>, std::cmp::Reverse<u64>, String) {
    use std::cmp::Reverse;
    let parse = || -> Option<(u8, u64, u64)> {
        let rest = v.strip_prefix('v')?;
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let major: u64 = rest[..digits].parse().ok()?;
        let rest = &rest[digits..];
        let (rank, rest) = if rest.is_empty() {
            return Some((0, major, 0));
        } else if let Some(r) = rest.strip_prefix("beta") {
            (1, r)
        } else if let Some(r) = rest.strip_prefix("alpha") {
            (2, r)
        } else {
            return None;
        };
        let minor: u64 = rest.parse().ok()?;
        Some((rank, major, minor))
    };
    match parse() {
        Some((rank, major, minor)) => (rank, Reverse(major), Reverse(minor), String::new()),
        None => (3, Reverse(0), Reverse(0), v.to_string()),
    }
}

/// The kind a definition serves with the names it was accepted with
/// (`status.acceptedNames`, else `spec.names`).
pub fn kind_spec(fields: &Map<String, Value>) -> Option<CustomKindSpec> {
    let spec = fields.get("spec")?;
    let accepted = fields
        .get("status")
        .and_then(|s| s.get("acceptedNames"))
        .filter(|n| !str_at(n, &["plural"]).is_empty());
    let names = accepted.or_else(|| spec.get("names"))?;
    let plural = str_at(names, &["plural"]).to_string();
    let kind = str_at(names, &["kind"]).to_string();
    if plural.is_empty() || kind.is_empty() {
        return None;
    }
    let singular = match str_at(names, &["singular"]) {
        "" => kind.to_ascii_lowercase(),
        s => s.to_string(),
    };
    let short_names = names
        .get("shortNames")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect();
    let versions = served_versions(spec);
    if versions.is_empty() {
        return None;
    }
    Some(CustomKindSpec {
        kind,
        plural,
        singular,
        short_names,
        group: str_at(spec, &["group"]).to_string(),
        versions,
        namespaced: str_at(spec, &["scope"]) == "Namespaced",
    })
}

/// The kind an Established definition serves, interned; `None` before it is.
pub fn established_kind(fields: &Map<String, Value>) -> Option<Kind> {
    if !condition_true(fields, "Established") {
        return None;
    }
    kind_spec(fields).map(|s| intern_custom(&s))
}

/// The entry of `spec.versions` named `version`.
pub fn version<'a>(fields: &'a Map<String, Value>, version: &str) -> Option<&'a Value> {
    fields
        .get("spec")?
        .get("versions")?
        .as_array()?
        .iter()
        .find(|v| v.get("name").and_then(Value::as_str) == Some(version))
}

/// A version's `schema.openAPIV3Schema`.
pub fn schema<'a>(fields: &'a Map<String, Value>, v: &str) -> Option<&'a Value> {
    at(version(fields, v)?, &["schema", "openAPIV3Schema"])
}

/// Whether a version has the status subresource.
pub fn has_status_subresource(fields: &Map<String, Value>, v: &str) -> bool {
    version(fields, v)
        .and_then(|v| at(v, &["subresources", "status"]))
        .is_some()
}

/// A version's scale subresource: the paths of the desired and the observed
/// replicas (`.spec.replicas`, `.status.replicas`) as field names.
pub fn scale_paths(fields: &Map<String, Value>, v: &str) -> Option<(Vec<String>, Vec<String>)> {
    let scale = version(fields, v).and_then(|v| at(v, &["subresources", "scale"]))?;
    let path = |k: &str| -> Vec<String> {
        str_at(scale, &[k])
            .trim_start_matches('.')
            .split('.')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    Some((path("specReplicasPath"), path("statusReplicasPath")))
}

/// One of a version's `additionalPrinterColumns`.
#[derive(Clone, Debug, PartialEq)]
pub struct PrinterColumn {
    pub name: String,
    pub type_: String,
    pub json_path: String,
    pub priority: i64,
}

/// A version's `additionalPrinterColumns`.
pub fn printer_columns(fields: &Map<String, Value>, v: &str) -> Vec<PrinterColumn> {
    version(fields, v)
        .and_then(|v| v.get("additionalPrinterColumns"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| PrinterColumn {
            name: str_at(c, &["name"]).to_string(),
            type_: str_at(c, &["type"]).to_string(),
            json_path: str_at(c, &["jsonPath"]).to_string(),
            priority: c.get("priority").and_then(Value::as_i64).unwrap_or(0),
        })
        .collect()
}

fn is_dns1123_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

const DNS1123_LABEL: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_LABEL: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/// pkg/apis/apiextensions/validation `ValidateCustomResourceDefinition`: the name
/// is `<plural>.<group>`, the group a domain, the names DNS labels (the kind and
/// list kind `[A-Za-z]`-started), the scope, at least one version with exactly one
/// stored, each served version with a structural schema whose root is an object.
pub fn validate(name: &str, fields: &Map<String, Value>, errors: &mut Vec<String>) {
    let empty = Value::Null;
    let spec = fields.get("spec").unwrap_or(&empty);
    let group = str_at(spec, &["group"]);
    let plural = str_at(spec, &["names", "plural"]);
    if name != format!("{plural}.{group}") {
        errors.push(format!(
            "metadata.name: Invalid value: \"{name}\": must be spec.names.plural+\".\"+spec.group"
        ));
    }
    if group.is_empty() {
        errors.push("spec.group: Required value".into());
    } else if !group.contains('.') {
        errors.push(format!(
            "spec.group: Invalid value: \"{group}\": should be a domain with at least one dot"
        ));
    }
    match str_at(spec, &["scope"]) {
        "" => errors.push("spec.scope: Required value".into()),
        "Namespaced" | "Cluster" => {}
        other => errors.push(format!(
            "spec.scope: Unsupported value: \"{other}\": supported values: \"Cluster\", \"Namespaced\""
        )),
    }
    let label = |field: &str, value: &str, errors: &mut Vec<String>| {
        if !value.is_empty() && !is_dns1123_label(value) {
            errors.push(format!(
                "spec.names.{field}: Invalid value: \"{value}\": {DNS1123_LABEL}"
            ));
        }
    };
    if plural.is_empty() {
        errors.push("spec.names.plural: Required value".into());
    }
    label("plural", plural, errors);
    label("singular", str_at(spec, &["names", "singular"]), errors);
    for (i, short) in spec
        .get("names")
        .and_then(|n| n.get("shortNames"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let short = short.as_str().unwrap_or("");
        if !is_dns1123_label(short) {
            errors.push(format!(
                "spec.names.shortNames[{i}]: Invalid value: \"{short}\": {DNS1123_LABEL}"
            ));
        }
    }
    let kind = str_at(spec, &["names", "kind"]);
    let kind_ok = |k: &str| k.starts_with(|c: char| c.is_ascii_alphabetic()) && is_dns1035_like(k);
    if kind.is_empty() {
        errors.push("spec.names.kind: Required value".into());
    } else if !kind_ok(kind) {
        errors.push(format!(
            "spec.names.kind: Invalid value: \"{kind}\": {DNS1035_LABEL}"
        ));
    }
    let versions = spec.get("versions").and_then(Value::as_array);
    let versions = versions.map(Vec::as_slice).unwrap_or(&[]);
    if versions.is_empty() {
        errors.push("spec.versions: Invalid value: null: must have exactly one version marked as storage version".into());
        return;
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut storage = 0;
    for (i, v) in versions.iter().enumerate() {
        let path = format!("spec.versions[{i}]");
        let name = str_at(v, &["name"]);
        if name.is_empty() {
            errors.push(format!("{path}.name: Required value"));
        } else if !is_dns1035_label(name) {
            errors.push(format!(
                "{path}.name: Invalid value: \"{name}\": {DNS1035_LABEL}"
            ));
        }
        if !seen.insert(name) {
            errors.push("spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{...}: must contain unique version names".to_string());
        }
        if v.get("storage").and_then(Value::as_bool) == Some(true) {
            storage += 1;
        }
        match at(v, &["schema", "openAPIV3Schema"]) {
            None => errors.push(format!(
                "{path}.schema.openAPIV3Schema: Required value: schemas are required"
            )),
            Some(schema) => structural(
                schema,
                &format!("{path}.schema.openAPIV3Schema"),
                true,
                errors,
            ),
        }
        for (j, c) in v
            .get("additionalPrinterColumns")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let cpath = format!("{path}.additionalPrinterColumns[{j}]");
            if str_at(c, &["name"]).is_empty() {
                errors.push(format!("{cpath}.name: Required value"));
            }
            match str_at(c, &["type"]) {
                "" => errors.push(format!("{cpath}.type: Required value")),
                "integer" | "number" | "string" | "boolean" | "date" => {}
                other => errors.push(format!(
                    "{cpath}.type: Unsupported value: \"{other}\": supported values: \"boolean\", \"date\", \"integer\", \"number\", \"string\""
                )),
            }
            if str_at(c, &["jsonPath"]).is_empty() {
                errors.push(format!("{cpath}.jsonPath: Required value"));
            }
        }
    }
    if storage != 1 {
        errors.push("spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{...}: must have exactly one version marked as storage version".to_string());
    }
}

/// `ValidateCustomResourceDefinitionSpecUpdate`: the group and plural never
/// change (they are the storage's key), and once Established neither do the scope
/// and the kind.
pub fn validate_update(
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    errors: &mut Vec<String>,
) {
    let empty = Value::Null;
    let (o, n) = (
        old.get("spec").unwrap_or(&empty),
        new.get("spec").unwrap_or(&empty),
    );
    let established = condition_true(old, "Established");
    let fields: [(&[&str], bool); 4] = [
        (&["scope"], established),
        (&["names", "kind"], established),
        (&["group"], true),
        (&["names", "plural"], true),
    ];
    for (path, checked) in fields {
        let (was, is) = (str_at(o, path), str_at(n, path));
        if checked && was != is {
            errors.push(format!(
                "spec.{}: Invalid value: \"{is}\": field is immutable",
                path.join(".")
            ));
        }
    }
}

fn is_dns1035_label(s: &str) -> bool {
    is_dns1123_label(s) && s.starts_with(|c: char| c.is_ascii_lowercase())
}

/// A kind: DNS-1035 after lowercasing (`Backup`, `HTTPRoute`).
fn is_dns1035_like(s: &str) -> bool {
    is_dns1035_label(&s.to_ascii_lowercase())
}

const SCHEMA_TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];

/// The structural schema rules a learner meets first
/// (pkg/apiserver/schema/validation.go `validateStructuralInvariants` and
/// `validateStructuralCompleteness`): every node with `properties` or `items` has a
/// `type`, the root is an object, an array has `items`, and `properties` and
/// `additionalProperties` are not both set.
fn structural(schema: &Value, path: &str, root: bool, errors: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    let preserve = map.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
    let int_or_string = map.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
    match map.get("type").and_then(Value::as_str) {
        None | Some("") if root => {
            errors.push(format!("{path}.type: Required value: must not be empty at the root"))
        }
        None | Some("") if !preserve && !int_or_string => errors.push(format!(
            "{path}.type: Required value: must not be empty for specified object fields"
        )),
        Some(t) if root && t != "object" => errors.push(format!(
            "{path}.type: Invalid value: \"{t}\": must be object at the root"
        )),
        Some(t) if !t.is_empty() && !SCHEMA_TYPES.contains(&t) => errors.push(format!(
            "{path}.type: Unsupported value: \"{t}\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\""
        )),
        Some("array") if map.get("items").is_none() => errors.push(format!(
            "{path}.items: Required value: must be specified"
        )),
        _ => {}
    }
    if map.contains_key("properties")
        && map
            .get("additionalProperties")
            .is_some_and(|a| a != &Value::Bool(false))
    {
        errors.push(format!(
            "{path}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"
        ));
    }
    if let Some(props) = map.get("properties").and_then(Value::as_object) {
        for (k, p) in props {
            structural(p, &format!("{path}.properties[{k}]"), false, errors);
        }
    }
    if let Some(items) = map.get("items") {
        structural(items, &format!("{path}.items"), false, errors);
    }
    if let Some(additional) = map.get("additionalProperties").filter(|a| a.is_object()) {
        structural(
            additional,
            &format!("{path}.additionalProperties"),
            false,
            errors,
        );
    }
}

/// What the apiserver does to a custom object's fields with its version's schema:
/// unknown fields pruned (their paths returned, as the warnings of
/// `fieldValidation=Warn` name them), defaults applied, then validated. `fields`
/// is every top-level field but `apiVersion`, `kind` and `metadata`.
pub fn apply_schema(
    schema: &Value,
    fields: &mut Map<String, Value>,
    errors: &mut Vec<String>,
) -> Vec<String> {
    let mut pruned = Vec::new();
    let mut root = Value::Object(std::mem::take(fields));
    prune(schema, &mut root, "", &mut pruned);
    default(schema, &mut root);
    check(schema, &root, "", errors);
    if let Value::Object(m) = root {
        *fields = m;
    }
    pruned
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The fields of a custom object its definition's schema would prune (what strict
/// field validation refuses as `unknown field "spec.x"`).
pub fn unknown_fields(definition: &Map<String, Value>, obj: &super::Object) -> Vec<String> {
    let super::Object::Other(o) = obj else {
        return Vec::new();
    };
    let version = o.api_version.rsplit('/').next().unwrap_or("");
    let Some(schema) = schema(definition, version) else {
        return Vec::new();
    };
    let mut root = Value::Object(o.fields.clone());
    let mut pruned = Vec::new();
    prune(schema, &mut root, "", &mut pruned);
    pruned
}

/// pkg/apiserver/schema/pruning: fields of an object node the schema does not name
/// are dropped, unless it preserves unknown fields or types them by
/// `additionalProperties`.
fn prune(schema: &Value, value: &mut Value, path: &str, pruned: &mut Vec<String>) {
    let preserve = schema.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
    match value {
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties");
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                let child = join(path, &k);
                let sub = props
                    .and_then(|p| p.get(&k))
                    .or_else(|| additional.filter(|a| a.is_object()));
                match sub {
                    Some(sub) => {
                        if let Some(v) = map.get_mut(&k) {
                            prune(sub, v, &child, pruned);
                        }
                    }
                    None if preserve || additional == Some(&Value::Bool(true)) => {}
                    None => {
                        map.remove(&k);
                        pruned.push(child);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    prune(sub, item, &format!("{path}[{i}]"), pruned);
                }
            }
        }
        _ => {}
    }
}

/// pkg/apiserver/schema/defaulting: an absent property with a `default` takes it.
fn default(schema: &Value, value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, sub) in props {
                    if !map.contains_key(k) {
                        if let Some(d) = sub.get("default") {
                            map.insert(k.clone(), d.clone());
                        }
                    }
                    if let Some(v) = map.get_mut(k) {
                        default(sub, v);
                    }
                }
            }
            if let Some(sub) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                for v in map.values_mut() {
                    default(sub, v);
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                for item in items {
                    default(sub, item);
                }
            }
        }
        _ => {}
    }
}

/// The JSON type name kube-openapi reports for a value.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A value as Go's `%#v` prints it in `Invalid value: …`.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        Value::Null => "null".into(),
        Value::Object(_) => "map[string]interface {}{...}".into(),
        Value::Array(_) => "[]interface {}{...}".into(),
        other => other.to_string(),
    }
}

/// pkg/apiserver/validation `ValidateCustomResource`: kube-openapi's checks, each
/// error as its `field.Error`.
fn check(schema: &Value, value: &Value, path: &str, errors: &mut Vec<String>) {
    let shown_path = if path.is_empty() { "<nil>" } else { path };
    let nullable = schema.get("nullable") == Some(&Value::Bool(true));
    if value.is_null() && nullable {
        return;
    }
    let int_or_string = schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
    if let Some(t) = schema.get("type").and_then(Value::as_str) {
        let actual = type_name(value);
        let ok = match t {
            "number" => value.is_number(),
            "integer" => actual == "integer" || value.as_f64().is_some_and(|f| f.fract() == 0.0),
            _ => t == actual,
        } || (int_or_string && (value.is_string() || actual == "integer"));
        if !ok {
            errors.push(format!(
                "{shown_path}: Invalid value: \"{actual}\": {shown_path} in body must be of type {t}: \"{actual}\""
            ));
            return;
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if !options.contains(value) {
            let listed: Vec<String> = options.iter().map(shown).collect();
            errors.push(format!(
                "{shown_path}: Unsupported value: {}: supported values: {}",
                shown(value),
                listed.join(", ")
            ));
        }
    }
    if let Some(n) = value.as_f64() {
        let exclusive = |k: &str| schema.get(k) == Some(&Value::Bool(true));
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
            if n < min || (exclusive("exclusiveMinimum") && n == min) {
                let rel = if exclusive("exclusiveMinimum") {
                    "greater than"
                } else {
                    "greater than or equal to"
                };
                errors.push(format!(
                    "{shown_path}: Invalid value: {}: {shown_path} in body should be {rel} {}",
                    shown(value),
                    schema["minimum"]
                ));
            }
        }
        if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
            if n > max || (exclusive("exclusiveMaximum") && n == max) {
                let rel = if exclusive("exclusiveMaximum") {
                    "less than"
                } else {
                    "less than or equal to"
                };
                errors.push(format!(
                    "{shown_path}: Invalid value: {}: {shown_path} in body should be {rel} {}",
                    shown(value),
                    schema["maximum"]
                ));
            }
        }
    }
    if let Some(s) = value.as_str() {
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
            if s.chars().count() as u64 > max {
                errors.push(format!(
                    "{shown_path}: Too long: may not be more than {max} bytes"
                ));
            }
        }
        if let Some(min) = schema.get("minLength").and_then(Value::as_u64) {
            if (s.chars().count() as u64) < min {
                errors.push(format!(
                    "{shown_path}: Invalid value: {}: {shown_path} in body should be at least {min} chars long",
                    shown(value)
                ));
            }
        }
    }
    match value {
        Value::Object(map) => {
            for r in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !map.contains_key(r) {
                    errors.push(format!("{}: Required value", join(path, r)));
                }
            }
            let props = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            for (k, v) in map {
                if let Some(sub) = props.and_then(|p| p.get(k)).or(additional) {
                    check(sub, v, &join(path, k), errors);
                }
            }
        }
        Value::Array(items) => {
            if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
                if items.len() as u64 > max {
                    errors.push(format!(
                        "{shown_path}: Too many: {}: must have at most {max} items",
                        items.len()
                    ));
                }
            }
            if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
                if (items.len() as u64) < min {
                    errors.push(format!(
                        "{shown_path}: Invalid value: {}: {shown_path} in body should have at least {min} items",
                        items.len()
                    ));
                }
            }
            if let Some(sub) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check(sub, item, &format!("{path}[{i}]"), errors);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn versions_sort_as_kube_aware_versions() {
        let spec = json!({"versions": [
            {"name": "v1alpha1", "served": true},
            {"name": "v1", "served": true},
            {"name": "v2beta1", "served": true},
            {"name": "v2", "served": true},
            {"name": "v3", "served": false},
        ]});
        assert_eq!(served_versions(&spec), ["v2", "v1", "v2beta1", "v1alpha1"]);
    }

    #[test]
    fn a_wrong_type_is_named_as_upstream_names_it() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"replicas": {"type": "integer", "minimum": 1, "default": 1}}}}});
        let mut fields = json!({"spec": {"replicas": "two", "extra": 1}})
            .as_object()
            .unwrap()
            .clone();
        let mut errors = Vec::new();
        let pruned = apply_schema(&schema, &mut fields, &mut errors);
        assert_eq!(pruned, ["spec.extra"]);
        assert_eq!(
            errors,
            ["spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\""]
        );
        let mut fields = json!({"spec": {}}).as_object().unwrap().clone();
        errors.clear();
        apply_schema(&schema, &mut fields, &mut errors);
        assert!(errors.is_empty());
        assert_eq!(fields["spec"]["replicas"], 1);
    }
}
