//! Label selectors as `-l` takes them (`app=web,tier!=db,env in (a,b),!legacy`) and
//! as kubectl prints a `LabelSelector` in wide output (`app=web`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use std::collections::BTreeMap;
use warehouse_sim::StableSort;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

impl Requirement {
    fn key(&self) -> &str {
        match self {
            Requirement::Equals(k, _)
            | Requirement::NotEquals(k, _)
            | Requirement::In(k, _)
            | Requirement::NotIn(k, _)
            | Requirement::Exists(k)
            | Requirement::DoesNotExist(k) => k,
        }
    }

    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        match self {
            Requirement::Equals(k, v) => labels.get(k) == Some(v),
            Requirement::NotEquals(k, v) => labels.get(k) != Some(v),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|v| vs.contains(v)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|v| !vs.contains(v)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
        }
    }
}

impl std::fmt::Display for Requirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Requirement::Equals(k, v) => write!(f, "{k}={v}"),
            Requirement::NotEquals(k, v) => write!(f, "{k}!={v}"),
            Requirement::In(k, vs) => write!(f, "{k} in ({})", vs.join(",")),
            Requirement::NotIn(k, vs) => write!(f, "{k} notin ({})", vs.join(",")),
            Requirement::Exists(k) => write!(f, "{k}"),
            Requirement::DoesNotExist(k) => write!(f, "!{k}"),
        }
    }
}

/// A parsed selector: all requirements must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selector(pub Vec<Requirement>);

impl Selector {
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.0.iter().all(|r| r.matches(labels))
    }

    /// Parses `-l` syntax. Errors read like apimachinery's.
    pub fn parse(text: &str) -> Result<Selector, String> {
        let mut reqs = Vec::new();
        for part in split_top_level(text) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            reqs.push(parse_requirement(part)?);
        }
        reqs.stable_sort_by(|a, b| a.key().cmp(b.key()));
        Ok(Selector(reqs))
    }

    /// `metav1.LabelSelectorAsSelector(...).String()`.
    pub fn from_label_selector(sel: &LabelSelector) -> Selector {
        let mut reqs = Vec::new();
        for (k, v) in sel.match_labels.iter().flatten() {
            reqs.push(Requirement::Equals(k.clone(), v.clone()));
        }
        for e in sel.match_expressions.iter().flatten() {
            let mut values = e.values.clone().unwrap_or_default();
            values.stable_sort();
            let k = e.key.clone();
            reqs.push(match e.operator.as_str() {
                "In" => Requirement::In(k, values),
                "NotIn" => Requirement::NotIn(k, values),
                "Exists" => Requirement::Exists(k),
                _ => Requirement::DoesNotExist(k),
            });
        }
        reqs.stable_sort_by(|a, b| a.key().cmp(b.key()));
        Selector(reqs)
    }
}

impl std::fmt::Display for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|r| r.to_string()).collect();
        f.write_str(&parts.join(","))
    }
}

/// Splits on commas that are not inside parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn valid_key(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 317
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
}

fn valid_value(v: &str) -> bool {
    v.len() <= 63
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn parse_requirement(part: &str) -> Result<Requirement, String> {
    let bad = || format!("unable to parse requirement: found '{part}', expected: identifier");
    if let Some(key) = part.strip_prefix('!') {
        let key = key.trim();
        return if valid_key(key) {
            Ok(Requirement::DoesNotExist(key.to_string()))
        } else {
            Err(bad())
        };
    }
    for (op, neg) in [(" notin ", true), (" in ", false)] {
        if let Some(idx) = part.find(op) {
            let key = part[..idx].trim();
            let rest = part[idx + op.len()..].trim();
            let inner = rest
                .strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .ok_or_else(|| {
                    format!("unable to parse requirement: found '{rest}', expected: '('")
                })?;
            let mut values: Vec<String> = inner
                .split(',')
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .collect();
            if !valid_key(key) || values.iter().any(|v| !valid_value(v)) {
                return Err(bad());
            }
            values.stable_sort();
            values.dedup();
            let key = key.to_string();
            return Ok(if neg {
                Requirement::NotIn(key, values)
            } else {
                Requirement::In(key, values)
            });
        }
    }
    let (key, value, neg) = if let Some((k, v)) = part.split_once("!=") {
        (k, v, true)
    } else if let Some((k, v)) = part.split_once("==") {
        (k, v, false)
    } else if let Some((k, v)) = part.split_once('=') {
        (k, v, false)
    } else {
        let key = part.trim();
        return if valid_key(key) {
            Ok(Requirement::Exists(key.to_string()))
        } else {
            Err(bad())
        };
    };
    let (key, value) = (key.trim(), value.trim());
    if !valid_key(key) {
        return Err(bad());
    }
    if !valid_value(value) {
        return Err(format!(
            "invalid label value: \"{value}\": at key: \"{key}\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ));
    }
    Ok(if neg {
        Requirement::NotEquals(key.to_string(), value.to_string())
    } else {
        Requirement::Equals(key.to_string(), value.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn equality_set_and_existence_requirements() {
        let s = Selector::parse("app=web,tier!=db,env in (a,b),!legacy").unwrap();
        assert!(s.matches(&labels(&[("app", "web"), ("env", "a")])));
        assert!(!s.matches(&labels(&[("app", "web"), ("env", "c")])));
        assert!(!s.matches(&labels(&[("app", "web"), ("env", "a"), ("legacy", "")])));
        assert!(!s.matches(&labels(&[("app", "web"), ("env", "a"), ("tier", "db")])));
        assert_eq!(s.to_string(), "app=web,env in (a,b),!legacy,tier!=db");
    }

    #[test]
    fn rejects_garbage() {
        assert!(Selector::parse("app=we b").is_err());
        assert!(Selector::parse("=x").is_err());
    }
}
