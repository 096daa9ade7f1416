//! Values: a chart's defaults, `-f` files and `--set`/`--set-string` merged as
//! Helm merges them (`pkg/cli/values/options.go`: files in order, then each `--set`
//! over them; `pkg/strvals/parser.go` for the `--set` syntax; `pkg/chartutil/
//! coalesce.go`: the user's maps merge into the chart's, a `null` deletes a key).
//!
//! Simplified: `--set` knows `a.b=c`, commas between assignments, `\,` and `\.`
//! escapes and `{a,b}` lists; list indexes (`a[0]=x`), `--set-file` and
//! `--set-json` are not simulated.

use serde_json::{Map, Value};

/// The deepest `--set` key (a guard for the browser's stack; real values stay far
/// below it).
const MAX_DEPTH: usize = 64;

/// Deep-merges `over` into `base` (maps merge key by key, anything else replaces).
pub(crate) fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(k) {
                    Some(slot) if slot.is_object() && v.is_object() => merge(slot, v),
                    _ => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// The chart's defaults with the user's values over them; a user's `null` removes
/// the key (coalesce.go).
pub(crate) fn coalesce(defaults: &Value, user: &Value) -> Value {
    let mut out = defaults.clone();
    merge(&mut out, user);
    drop_nulls(&mut out);
    out
}

fn drop_nulls(v: &mut Value) {
    if let Value::Object(m) = v {
        m.retain(|_, x| !x.is_null());
        for x in m.values_mut() {
            drop_nulls(x);
        }
    }
}

/// Splits on commas outside `{...}` and not escaped.
fn split_top(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '{' => {
                depth += 1;
                cur.push(c);
            }
            '}' => {
                depth = depth.saturating_sub(1);
                cur.push(c);
            }
            ',' if depth == 0 => parts.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    parts.push(cur);
    parts
}

/// strvals' typedVal: `true`/`false`, `null`, integers (not with a leading zero),
/// else a string; `--set-string` keeps every value a string.
fn typed(v: &str, strings: bool) -> Value {
    if strings {
        return Value::String(v.to_string());
    }
    match v {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        "null" => return Value::Null,
        "0" => return Value::from(0),
        _ => {}
    }
    if !v.starts_with('0') {
        if let Ok(i) = v.parse::<i64>() {
            return Value::from(i);
        }
    }
    Value::String(v.to_string())
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Splits a key on unescaped dots.
fn key_path(key: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut chars = key.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '.' => parts.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    parts.push(cur);
    parts
}

/// Parses one `--set` (or `--set-string`) argument into `into`; errors read as
/// Helm's (`failed parsing --set data: key "x" has no value`).
pub(crate) fn parse_set(arg: &str, strings: bool, into: &mut Value) -> Result<(), String> {
    let flag = if strings { "--set-string" } else { "--set" };
    let fail = |e: String| format!("failed parsing {flag} data: {e}");
    for part in split_top(arg) {
        let Some((key, raw)) = split_assignment(&part) else {
            let key = unescape(&part);
            return Err(fail(if part.is_empty() {
                "key \"\" has no value".to_string()
            } else {
                format!("key \"{key}\" has no value")
            }));
        };
        if key.contains('[') {
            return Err(fail(format!(
                "key \"{key}\": list indexes in --set are not simulated here"
            )));
        }
        let path = key_path(key);
        if path.len() > MAX_DEPTH {
            return Err(fail(format!(
                "key \"{key}\" nests deeper than this simulated helm allows ({MAX_DEPTH} levels)"
            )));
        }
        if path.iter().any(String::is_empty) {
            return Err(fail(format!("key \"{key}\" has no value")));
        }
        let value = match raw.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            Some(inner) if !strings => Value::Array(
                split_top(inner)
                    .iter()
                    .filter(|s| !s.is_empty())
                    .map(|s| typed(&unescape(s), false))
                    .collect(),
            ),
            _ => typed(&unescape(raw), strings),
        };
        set_path(into, &path, value);
    }
    Ok(())
}

fn split_assignment(part: &str) -> Option<(&str, &str)> {
    let mut escaped = false;
    for (i, c) in part.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '=' if !escaped => return Some((&part[..i], &part[i + 1..])),
            _ => escaped = false,
        }
    }
    None
}

fn set_path(into: &mut Value, path: &[String], value: Value) {
    if !into.is_object() {
        *into = Value::Object(Map::new());
    }
    let Value::Object(m) = into else { return };
    if path.len() == 1 {
        m.insert(path[0].clone(), value);
        return;
    }
    let slot = m
        .entry(path[0].clone())
        .or_insert_with(|| Value::Object(Map::new()));
    set_path(slot, &path[1..], value);
}

/// A `-f` file's values (a YAML map), or Helm's error for it.
pub(crate) fn parse_file(name: &str, text: &str) -> Result<Value, String> {
    match serde_yaml::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(Value::Object(m)),
        Ok(Value::Null) => Ok(Value::Object(Map::new())),
        Ok(_) => Err(format!(
            "failed to parse {name}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {{}}"
        )),
        Err(e) => Err(format!("failed to parse {name}: error converting YAML to JSON: yaml: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn set_types_values_as_strvals_does() {
        let mut v = json!({});
        parse_set("a.b=3,c=true,d=007,e=x\\,y,f={1,two}", false, &mut v).unwrap();
        assert_eq!(
            v,
            json!({"a": {"b": 3}, "c": true, "d": "007", "e": "x,y", "f": [1, "two"]})
        );
        let mut s = json!({});
        parse_set("a=3", true, &mut s).unwrap();
        assert_eq!(s, json!({"a": "3"}));
    }

    #[test]
    fn set_without_a_value_is_helms_error() {
        let mut v = json!({});
        assert_eq!(
            parse_set("replicaCount", false, &mut v).unwrap_err(),
            "failed parsing --set data: key \"replicaCount\" has no value"
        );
    }

    #[test]
    fn a_key_nested_too_deep_is_refused() {
        let mut v = json!({});
        let key = vec!["a"; 100].join(".");
        let e = parse_set(&format!("{key}=1"), false, &mut v).unwrap_err();
        assert!(e.contains("nests deeper"), "{e}");
        assert_eq!(v, json!({}));
    }

    #[test]
    fn null_removes_a_default() {
        let out = coalesce(
            &json!({"a": 1, "b": {"c": 2, "d": 3}}),
            &json!({"b": {"c": null}}),
        );
        assert_eq!(out, json!({"a": 1, "b": {"d": 3}}));
    }
}
