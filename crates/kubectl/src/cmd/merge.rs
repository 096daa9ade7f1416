//! Client-side apply's three-way merge, simplified: the new manifest (`modified`) is
//! laid over the live object (`current`); fields that the previous manifest
//! (`original`, the last-applied annotation) set and the new one dropped are
//! removed. Lists of objects that carry a merge key (`name`, `containerPort`, `port`,
//! `mountPath`, as strategic merge patch keys containers, env, container and Service
//! ports, and mounts) are
//! merged item by item; other lists are replaced.

use serde_json::{Map, Value};

/// The result of applying `modified` to `current`, given the `original` manifest.
pub fn three_way(current: &Value, original: Option<&Value>, modified: &Value) -> Value {
    match (current, modified) {
        (Value::Object(cur), Value::Object(m)) => {
            let orig = original.and_then(Value::as_object);
            Value::Object(merge_maps(cur, orig, m))
        }
        (Value::Array(cur), Value::Array(m)) => {
            let orig = original.and_then(Value::as_array);
            Value::Array(merge_lists(cur, orig, m))
        }
        _ => modified.clone(),
    }
}

fn merge_maps(
    cur: &Map<String, Value>,
    orig: Option<&Map<String, Value>>,
    m: &Map<String, Value>,
) -> Map<String, Value> {
    let mut out = cur.clone();
    if let Some(orig) = orig {
        for k in orig.keys() {
            if !m.contains_key(k) {
                out.remove(k);
            }
        }
    }
    for (k, mv) in m {
        let merged = match cur.get(k) {
            Some(cv) => three_way(cv, orig.and_then(|o| o.get(k)), mv),
            None => mv.clone(),
        };
        out.insert(k.clone(), merged);
    }
    out
}

const MERGE_KEYS: [&str; 5] = ["name", "containerPort", "port", "mountPath", "ip"];

fn merge_key(items: &[Value]) -> Option<&'static str> {
    merge_key_of(items.iter())
}

/// The merge key every item of a list of objects carries, if there are items and
/// one key they all have.
pub(crate) fn merge_key_of<'a>(
    items: impl Iterator<Item = &'a Value> + Clone,
) -> Option<&'static str> {
    let mut probe = items.clone();
    probe.next()?;
    MERGE_KEYS
        .into_iter()
        .find(|key| items.clone().all(|i| i.get(key).is_some()))
}

fn merge_lists(cur: &[Value], orig: Option<&Vec<Value>>, m: &[Value]) -> Vec<Value> {
    let Some(key) = merge_key(m) else {
        return m.to_vec();
    };
    let find = |list: &[Value], v: &Value| list.iter().find(|i| i.get(key) == v.get(key)).cloned();
    let mut out: Vec<Value> = m
        .iter()
        .map(|mi| match find(cur, mi) {
            Some(ci) => {
                let oi = orig.and_then(|o| find(o, mi));
                three_way(&ci, oi.as_ref(), mi)
            }
            None => mi.clone(),
        })
        .collect();
    // Items someone else added (not in the old manifest, not in the new) stay.
    for ci in cur {
        let in_modified = m.iter().any(|mi| mi.get(key) == ci.get(key));
        let in_original = orig.is_some_and(|o| o.iter().any(|oi| oi.get(key) == ci.get(key)));
        if !in_modified && !in_original && ci.get(key).is_some() {
            out.push(ci.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_fields_the_manifest_does_not_mention() {
        let cur = json!({"spec": {"replicas": 3, "strategy": {"type": "RollingUpdate"}}, "status": {"x": 1}});
        let m = json!({"spec": {"replicas": 1}});
        assert_eq!(
            three_way(&cur, Some(&m), &m),
            json!({"spec": {"replicas": 1, "strategy": {"type": "RollingUpdate"}}, "status": {"x": 1}})
        );
    }

    #[test]
    fn removes_fields_dropped_from_the_manifest() {
        let cur = json!({"metadata": {"labels": {"a": "1", "b": "2", "c": "3"}}});
        let orig = json!({"metadata": {"labels": {"a": "1", "b": "2"}}});
        let m = json!({"metadata": {"labels": {"a": "1"}}});
        assert_eq!(
            three_way(&cur, Some(&orig), &m),
            json!({"metadata": {"labels": {"a": "1", "c": "3"}}})
        );
    }

    #[test]
    fn merges_containers_by_name_keeping_defaults() {
        let cur = json!({"containers": [{"name": "web", "image": "nginx:1", "imagePullPolicy": "IfNotPresent"}]});
        let m = json!({"containers": [{"name": "web", "image": "nginx:2"}]});
        assert_eq!(
            three_way(&cur, Some(&m), &m),
            json!({"containers": [{"name": "web", "image": "nginx:2", "imagePullPolicy": "IfNotPresent"}]})
        );
    }

    #[test]
    fn unchanged_manifest_gives_the_live_object_back() {
        let cur = json!({"spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "a", "image": "x", "terminationMessagePath": "/dev/termination-log"}]}}}});
        let m = json!({"spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "a", "image": "x"}]}}}});
        assert_eq!(three_way(&cur, Some(&m), &m), cur);
    }
}
