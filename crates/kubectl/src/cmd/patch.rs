//! `kubectl patch TYPE NAME -p PATCH [--type strategic|merge|json]`
//! (staging/src/k8s.io/kubectl/pkg/cmd/patch/patch.go): the patch (JSON or YAML,
//! from `-p` or `--patch-file`) is applied to the live object and the result sent as
//! a `patch` request; `TYPE/NAME patched`, or `patched (no change)` when nothing
//! changes (nothing is sent then).
//!
//! The three patch types: a strategic merge patch (the default) merges maps and
//! merges lists of objects by their merge key (`name`, `containerPort`, `port`,
//! `mountPath`, `ip`, keeping the live order and appending new items; `$patch:
//! delete` in an item removes it, `$patch: replace` replaces the map or list it is
//! in) and replaces other lists; a JSON merge patch (RFC 7386, `--type merge`)
//! merges maps and replaces lists; a JSON patch (RFC 6902, `--type json`) is a list
//! of `add`, `remove`, `replace`, `move`, `copy` and `test` operations on JSON
//! pointers. In both merge kinds `null` removes a field.
//!
//! Simplified: the merge keys are recognised by the fields a list's items carry,
//! not from each field's declared patch strategy (a list of primitives, such as
//! `finalizers`, is replaced rather than merged); the patch is merged on the client
//! and sent whole, as `apply` does; `-f`, `--subresource` and `--local` are not
//! offered.

use crate::context::{CommandOutput, Context};
use crate::errors;
use serde_json::{Map, Value};
use warehouse_sim::apiserver::request::Body;
use warehouse_sim::{Cluster, Object};

const HINT: &str = "See 'kubectl patch -h' for help and examples";

struct Args {
    words: Vec<String>,
    patch: Option<String>,
    patch_file: Option<String>,
    kind: String,
    namespace: Option<String>,
    dry_run: String,
    output: Option<String>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        words: Vec::new(),
        patch: None,
        patch_file: None,
        kind: "strategic".into(),
        namespace: None,
        dry_run: "none".into(),
        output: None,
    };
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg, None),
        };
        let value = |i: &mut usize| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => {
                    *i += 1;
                    args.get(*i)
                        .cloned()
                        .ok_or_else(|| format!("error: flag needs an argument: {flag}\n{HINT}"))
                }
            }
        };
        match flag {
            "-p" | "--patch" => a.patch = Some(value(&mut i)?),
            "--patch-file" => a.patch_file = Some(value(&mut i)?),
            "--type" => a.kind = value(&mut i)?,
            "-n" | "--namespace" => a.namespace = Some(value(&mut i)?),
            "-o" | "--output" => a.output = Some(value(&mut i)?),
            "--dry-run" => a.dry_run = inline.clone().unwrap_or_else(|| "client".into()),
            f if f.starts_with('-') && f.len() > 1 => {
                return Err(format!("error: unknown flag: {f}\n{HINT}"))
            }
            _ => a.words.push(arg.to_string()),
        }
        i += 1;
    }
    Ok(a)
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    match patch(cluster, ctx, args) {
        Ok(out) => out,
        Err(e) => CommandOutput::error(e),
    }
}

fn patch(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    args: &[String],
) -> Result<CommandOutput, String> {
    let a = parse(args)?;
    // words: patch TYPE NAME | patch TYPE/NAME
    let resources = crate::cmd::get::parse_resource_args(&a.words[1..])?;
    let targets: Vec<(warehouse_sim::Kind, String)> = resources
        .iter()
        .flat_map(|r| r.names.iter().map(move |n| (r.kind, n.clone())))
        .collect();
    if targets.is_empty() {
        return Err(format!(
            "error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'\n{HINT}"
        ));
    }
    if !["json", "merge", "strategic"].contains(&a.kind.as_str()) {
        return Err(format!(
            "error: --type must be one of [json merge strategic], not \"{}\"",
            a.kind
        ));
    }
    let suffix = crate::cmd::apply::DryRun::parse(Some(a.dry_run.as_str()))?.suffix();
    let text =
        match (&a.patch, &a.patch_file) {
            (Some(_), Some(_)) => {
                return Err("error: cannot specify --patch and --patch-file together".into())
            }
            (Some(p), None) => p.clone(),
            (None, Some(f)) => ctx
                .files
                .read(f)
                .map_err(|e| format!("error: unable to read patch file: {e}"))?,
            (None, None) => return Err(
                "error: must specify --patch or --patch-file containing the contents of the patch"
                    .into(),
            ),
        };
    let patch: Value = serde_yaml::from_str::<serde_yaml::Value>(&text)
        .map_err(|e| e.to_string())
        .and_then(|v| serde_json::to_value(v).map_err(|e| e.to_string()))
        .map_err(|e| format!("error: unable to parse \"{text}\": yaml: {e}"))?;
    let namespace = a
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let mut out = CommandOutput::new();
    for (kind, name) in targets {
        let live = match crate::context::get(cluster, ctx, kind, &namespace, &name) {
            Ok(o) => o,
            Err(e) => {
                out.fail(errors::render(&e, None));
                continue;
            }
        };
        let before = live.to_json();
        let after = match a.kind.as_str() {
            "json" => json_patch(&before, &patch),
            "merge" => Ok(merge_patch(&before, &patch)),
            _ => strategic(&before, &patch),
        };
        let after = match after {
            Ok(v) => v,
            Err(e) => {
                out.fail(format!("error: {e}"));
                continue;
            }
        };
        let display = format!("{}/{name}", kind.qualified_singular());
        if after == before {
            out.out_line(format!("{display} patched (no change)"));
            continue;
        }
        let object = match Object::from_json(kind, after) {
            Ok(o) => o,
            Err(e) => {
                out.fail(format!("Error from server (BadRequest): {e}"));
                continue;
            }
        };
        let sent = match a.dry_run.as_str() {
            "client" => crate::context::authorize(cluster, ctx, "patch", kind, &namespace, &name)
                .map(|()| object),
            "server" => crate::context::send_dry(cluster, ctx, Body::patch(object), true),
            _ => crate::context::send(cluster, ctx, Body::patch(object)),
        };
        match sent {
            Ok(obj) => match a.output.as_deref() {
                None | Some("") => out.out_line(format!("{display} patched{suffix}")),
                Some("name") => out.out_line(display),
                Some("yaml") => out
                    .stdout
                    .push_str(&crate::printers::yaml::to_yaml(&crate::cmd::get::printable_json(&obj))),
                Some("json") => out.out_line(crate::printers::json::to_go_json(
                    &crate::cmd::get::printable_json(&obj),
                )),
                Some(other) => out.fail(format!(
                    "error: unable to match a printer suitable for the output format \"{other}\", allowed formats are: json,name,yaml"
                )),
            },
            Err(e) => out.fail(errors::render(&e, None)),
        }
    }
    Ok(out)
}

/// A JSON merge patch (RFC 7386): maps merge, `null` removes, anything else replaces.
pub(crate) fn merge_patch(target: &Value, patch: &Value) -> Value {
    let Value::Object(p) = patch else {
        return patch.clone();
    };
    let mut out = match target {
        Value::Object(t) => t.clone(),
        _ => Map::new(),
    };
    for (k, v) in p {
        if v.is_null() {
            out.remove(k);
        } else {
            let merged = merge_patch(out.get(k).unwrap_or(&Value::Null), v);
            out.insert(k.clone(), merged);
        }
    }
    Value::Object(out)
}

/// A strategic merge patch: as a merge patch, but lists of objects with a merge key
/// merge item by item, and `$patch` directives delete or replace.
pub(crate) fn strategic(target: &Value, patch: &Value) -> Result<Value, String> {
    match (target, patch) {
        (_, Value::Object(p)) => {
            match p.get("$patch").and_then(Value::as_str) {
                Some("replace") => return Ok(without_directives(patch)),
                Some("delete") => return Ok(Value::Null),
                Some(other) => return Err(format!("Unknown patch type: {other}")),
                None => {}
            }
            let mut out = match target {
                Value::Object(t) => t.clone(),
                _ => Map::new(),
            };
            for (k, v) in p {
                if k.starts_with('$') {
                    continue;
                }
                if v.is_null() {
                    out.remove(k);
                    continue;
                }
                let merged = strategic(out.get(k).unwrap_or(&Value::Null), v)?;
                if merged.is_null() {
                    out.remove(k);
                } else {
                    out.insert(k.clone(), merged);
                }
            }
            Ok(Value::Object(out))
        }
        (Value::Array(t), Value::Array(p)) => {
            let items: Vec<&Value> = p.iter().filter(|i| !is_directive_only(i)).collect();
            let Some(key) = super::merge::merge_key_of(t.iter().chain(items.iter().copied()))
            else {
                return Ok(without_directives(patch));
            };
            if p.iter()
                .any(|i| i.get("$patch").and_then(Value::as_str) == Some("replace"))
            {
                return Ok(Value::Array(
                    items
                        .iter()
                        .filter(|i| i.get("$patch").is_none())
                        .map(|i| without_directives(i))
                        .collect(),
                ));
            }
            let mut out: Vec<Value> = t.clone();
            for item in items {
                let id = item.get(key);
                let delete = item.get("$patch").and_then(Value::as_str) == Some("delete");
                match out.iter().position(|o| o.get(key) == id) {
                    Some(at) if delete => {
                        out.remove(at);
                    }
                    Some(at) => out[at] = strategic(&out[at], item)?,
                    None if delete => {}
                    None => out.push(without_directives(item)),
                }
            }
            Ok(Value::Array(out))
        }
        _ => Ok(without_directives(patch)),
    }
}

fn is_directive_only(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|m| !m.is_empty() && m.keys().all(|k| k.starts_with('$')))
}

fn without_directives(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !k.starts_with('$'))
                .map(|(k, v)| (k.clone(), without_directives(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_directives).collect()),
        other => other.clone(),
    }
}

/// A JSON patch (RFC 6902), with evanphx/json-patch's messages.
pub(crate) fn json_patch(target: &Value, patch: &Value) -> Result<Value, String> {
    let Some(ops) = patch.as_array() else {
        return Err("json: cannot unmarshal object into Go value of type jsonpatch.Patch".into());
    };
    let mut doc = target.clone();
    for op in ops {
        let kind = op.get("op").and_then(Value::as_str).unwrap_or("");
        let path = op.get("path").and_then(Value::as_str).unwrap_or("");
        let value = || {
            op.get("value")
                .cloned()
                .ok_or_else(|| format!("{kind} operation, missing value field"))
        };
        let from = || {
            op.get("from")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("{kind} operation, missing from field"))
        };
        match kind {
            "add" => add(&mut doc, path, value()?, kind)?,
            "remove" => {
                remove(&mut doc, path, kind)?;
            }
            "replace" => {
                remove(&mut doc, path, kind)?;
                add(&mut doc, path, value()?, kind)?;
            }
            "move" => {
                let moved = remove(&mut doc, from()?, kind)?;
                add(&mut doc, path, moved, kind)?;
            }
            "copy" => {
                let copied = doc
                    .pointer(from()?)
                    .cloned()
                    .ok_or_else(|| missing(kind, from().unwrap_or("")))?;
                add(&mut doc, path, copied, kind)?;
            }
            "test" => {
                let want = value()?;
                if doc.pointer(path) != Some(&want) {
                    return Err(format!("testing value {path} failed: test failed"));
                }
            }
            other => return Err(format!("Unexpected kind: {other}")),
        }
    }
    Ok(doc)
}

fn missing(kind: &str, path: &str) -> String {
    format!("{kind} operation does not apply: doc is missing path: \"{path}\": missing value")
}

/// The parent of a JSON pointer and its last token (`~1` is `/`, `~0` is `~`).
fn split_pointer(path: &str) -> Option<(&str, String)> {
    let (parent, last) = path.rsplit_once('/')?;
    Some((parent, last.replace("~1", "/").replace("~0", "~")))
}

fn add(doc: &mut Value, path: &str, value: Value, kind: &str) -> Result<(), String> {
    if path.is_empty() {
        *doc = value;
        return Ok(());
    }
    let (parent, last) = split_pointer(path).ok_or_else(|| missing(kind, path))?;
    // serde_json reads the empty pointer as the whole document.
    match doc.pointer_mut(parent) {
        Some(Value::Object(m)) => {
            m.insert(last, value);
            Ok(())
        }
        Some(Value::Array(a)) => {
            let at = if last == "-" {
                a.len()
            } else {
                last.parse::<usize>()
                    .ok()
                    .filter(|i| *i <= a.len())
                    .ok_or_else(|| format!("{kind} operation does not apply: doc is missing path: \"{path}\": invalid index"))?
            };
            a.insert(at, value);
            Ok(())
        }
        _ => Err(missing(kind, path)),
    }
}

fn remove(doc: &mut Value, path: &str, kind: &str) -> Result<Value, String> {
    let (parent, last) = split_pointer(path).ok_or_else(|| missing(kind, path))?;
    match doc.pointer_mut(parent) {
        Some(Value::Object(m)) => m.remove(&last).ok_or_else(|| missing(kind, path)),
        Some(Value::Array(a)) => match last.parse::<usize>() {
            Ok(i) if i < a.len() => Ok(a.remove(i)),
            _ => Err(missing(kind, path)),
        },
        _ => Err(missing(kind, path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_strategic_patch_merges_containers_by_name_in_their_order() {
        let live = json!({"spec": {"containers": [
            {"name": "a", "image": "x:1"}, {"name": "b", "image": "y:1"}]}});
        let patch = json!({"spec": {"containers": [
            {"name": "b", "image": "y:2"}, {"name": "c", "image": "z:1"}]}});
        assert_eq!(
            strategic(&live, &patch).unwrap(),
            json!({"spec": {"containers": [
                {"name": "a", "image": "x:1"}, {"name": "b", "image": "y:2"},
                {"name": "c", "image": "z:1"}]}})
        );
        let delete = json!({"spec": {"containers": [{"name": "a", "$patch": "delete"}]}});
        assert_eq!(
            strategic(&live, &delete).unwrap(),
            json!({"spec": {"containers": [{"name": "b", "image": "y:1"}]}})
        );
    }

    #[test]
    fn a_merge_patch_replaces_lists_and_null_removes() {
        let live =
            json!({"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"args": ["x", "y"]}});
        let patch = json!({"metadata": {"labels": {"b": null, "c": "3"}}, "spec": {"args": ["z"]}});
        assert_eq!(
            merge_patch(&live, &patch),
            json!({"metadata": {"labels": {"a": "1", "c": "3"}}, "spec": {"args": ["z"]}})
        );
    }

    #[test]
    fn a_json_patch_runs_its_operations_in_order() {
        let live = json!({"spec": {"replicas": 1, "list": ["a"]}});
        let ops = json!([
            {"op": "test", "path": "/spec/replicas", "value": 1},
            {"op": "replace", "path": "/spec/replicas", "value": 3},
            {"op": "add", "path": "/spec/list/-", "value": "b"},
            {"op": "copy", "from": "/spec/replicas", "path": "/spec/copy"},
            {"op": "remove", "path": "/spec/list/0"}
        ]);
        assert_eq!(
            json_patch(&live, &ops).unwrap(),
            json!({"spec": {"replicas": 3, "list": ["b"], "copy": 3}})
        );
        let bad = json!([{"op": "remove", "path": "/spec/nope"}]);
        assert_eq!(
            json_patch(&live, &bad).unwrap_err(),
            "remove operation does not apply: doc is missing path: \"/spec/nope\": missing value"
        );
        let failed = json!([{"op": "test", "path": "/spec/replicas", "value": 9}]);
        assert_eq!(
            json_patch(&live, &failed).unwrap_err(),
            "testing value /spec/replicas failed: test failed"
        );
    }
}
