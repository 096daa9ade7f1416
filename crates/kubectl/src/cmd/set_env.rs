//! `kubectl set env` (k8s.io/kubectl/pkg/cmd/set/set_env.go and set/env): add,
//! change or remove environment variables in a workload's pod template.
//!
//! `KEY=VALUE` sets a variable, `KEY-` removes one; resources come first, then the
//! variables. `--from=configmap/NAME` (or `secret/NAME`) adds one variable per key,
//! named after the key in upper case with every character other than a letter, digit
//! or `_` made `_`, and reading the key through `configMapKeyRef` (`secretKeyRef`);
//! `--keys` picks some keys, `--prefix` goes before every name. A variable already
//! there keeps its place and gets the new definition; new ones go last. `--list`
//! prints the variables (references as `# NAME from configmap CM, key K`) and changes
//! nothing. `-c` picks containers (`*` wildcards), init containers included.
//! Simplified: the keys of `--from` are taken in name order (upstream: a Go map's).

use k8s_openapi::api::core::v1::{
    ConfigMapKeySelector, Container, EnvVar, EnvVarSource, PodSpec, SecretKeySelector,
};
use warehouse_sim::{Cluster, Kind, Object};

/// What `set env` changes in each selected container.
pub(crate) struct EnvChange {
    pub containers: String,
    pub set: Vec<EnvVar>,
    pub remove: Vec<String>,
    pub list: bool,
}

/// Splits the words after `env` into resources and variables (resources first, as
/// upstream's `SplitEnvironmentFromResources` requires).
pub(crate) fn split(words: &[String]) -> Result<(Vec<String>, Vec<String>), String> {
    let mut resources = Vec::new();
    let mut vars: Vec<String> = Vec::new();
    for w in words {
        let is_var = w.contains('=') || w.ends_with('-');
        match (is_var, vars.is_empty()) {
            (true, _) => vars.push(w.clone()),
            (false, true) => resources.push(w.clone()),
            (false, false) => {
                return Err(format!(
                    "error: all resources must be specified before environment changes: {}",
                    words.join(" ")
                ))
            }
        }
    }
    Ok((resources, vars))
}

/// The variables to set and the names to remove (upstream `ParseEnv`).
pub(crate) fn parse(vars: &[String]) -> Result<(Vec<EnvVar>, Vec<String>), String> {
    let mut set: Vec<EnvVar> = Vec::new();
    let mut remove: Vec<String> = Vec::new();
    for v in vars {
        if let Some((name, value)) = v.split_once('=') {
            if !crate::cmd::run::env_name_ok(name) {
                return Err(format!(
                    "error: \"{name}\" is not a valid key name: a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"
                ));
            }
            set.push(EnvVar {
                name: name.to_string(),
                value: Some(value.to_string()),
                ..Default::default()
            });
        } else if let Some(name) = v.strip_suffix('-') {
            remove.push(name.to_string());
        }
    }
    if remove.iter().any(|r| set.iter().any(|s| &s.name == r)) {
        return Err(
            "error: can not both modify and remove the same environment variable in the same command"
                .into(),
        );
    }
    Ok((set, remove))
}

/// `--from=configmap/NAME|secret/NAME`: one variable per key (those `--keys` names,
/// or all), read through a key reference.
pub(crate) fn from_source(
    cluster: &Cluster,
    ctx: &crate::context::Context<'_>,
    namespace: &str,
    from: &str,
    keys: &[String],
) -> Result<Vec<EnvVar>, String> {
    let (kind, name) = match from.split_once('/') {
        Some(("configmap" | "configmaps" | "cm", n)) => (Kind::ConfigMap, n),
        Some(("secret" | "secrets", n)) => (Kind::Secret, n),
        _ => return Err("error: unsupported resource specified in --from".into()),
    };
    let obj = crate::context::get(cluster, ctx, kind, namespace, name)
        .map_err(|e| crate::errors::render(&e, None))?;
    let found: Vec<String> = match &obj {
        Object::ConfigMap(cm) => cm.data.iter().flatten().map(|(k, _)| k.clone()).collect(),
        Object::Secret(s) => s.data.iter().flatten().map(|(k, _)| k.clone()).collect(),
        _ => Vec::new(),
    };
    let wanted = |k: &String| keys.is_empty() || keys.contains(k);
    Ok(found
        .into_iter()
        .filter(wanted)
        .map(|key| {
            let source = match kind {
                Kind::Secret => EnvVarSource {
                    secret_key_ref: Some(SecretKeySelector {
                        name: name.to_string(),
                        key: key.clone(),
                        optional: None,
                    }),
                    ..Default::default()
                },
                _ => EnvVarSource {
                    config_map_key_ref: Some(ConfigMapKeySelector {
                        name: name.to_string(),
                        key: key.clone(),
                        optional: None,
                    }),
                    ..Default::default()
                },
            };
            EnvVar {
                name: env_name(&key),
                value_from: Some(source),
                ..Default::default()
            }
        })
        .collect())
}

/// upstream `keyToEnvName`.
fn env_name(key: &str) -> String {
    key.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// upstream `updateEnv`: removed names go, a redefined one keeps its place, new ones
/// go last.
fn update(existing: &[EnvVar], set: &[EnvVar], remove: &[String]) -> Vec<EnvVar> {
    let mut covered: Vec<&str> = remove.iter().map(String::as_str).collect();
    let mut out: Vec<EnvVar> = Vec::new();
    for e in existing {
        if covered.contains(&e.name.as_str()) {
            continue;
        }
        match set.iter().find(|s| s.name == e.name) {
            Some(newer) => {
                covered.push(&e.name);
                out.push(newer.clone());
            }
            None => out.push(e.clone()),
        }
    }
    for s in set {
        if !covered.contains(&s.name.as_str()) {
            covered.push(&s.name);
            out.push(s.clone());
        }
    }
    out
}

/// Applies the change to every selected container of `spec`, app and init; with
/// `--list` prints each one's variables instead. Returns whether a container matched.
pub(crate) fn apply(
    spec: &mut PodSpec,
    change: &EnvChange,
    kind: Kind,
    name: &str,
    listing: &mut Vec<String>,
) -> bool {
    let matches = |c: &Container| crate::cmd::set::wildcard(&change.containers, &c.name);
    let containers = spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut().flatten())
        .filter(|c| matches(c));
    let mut found = false;
    for c in containers {
        found = true;
        let env = update(
            c.env.as_deref().unwrap_or_default(),
            &change.set,
            &change.remove,
        );
        if change.list {
            listing.push(format!("# {} {name}, container {}", kind.as_str(), c.name));
            listing.extend(env.iter().map(list_line));
            continue;
        }
        c.env = (!env.is_empty()).then_some(env);
    }
    found
}

/// One variable as `--list` prints it.
fn list_line(e: &EnvVar) -> String {
    let Some(from) = &e.value_from else {
        return format!("{}={}", e.name, e.value.as_deref().unwrap_or(""));
    };
    let what = if let Some(r) = &from.config_map_key_ref {
        format!("configmap {}, key {}", r.name, r.key)
    } else if let Some(r) = &from.secret_key_ref {
        format!("secret {}, key {}", r.name, r.key)
    } else if let Some(r) = &from.field_ref {
        format!("field path {}", r.field_path)
    } else if let Some(r) = &from.resource_field_ref {
        let container = r
            .container_name
            .as_deref()
            .map(|c| format!("{c}/"))
            .unwrap_or_default();
        format!("resource field {container}{}", r.resource)
    } else {
        "invalid valueFrom".to_string()
    };
    format!("# {} from {what}", e.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str, value: &str) -> EnvVar {
        EnvVar {
            name: name.into(),
            value: Some(value.into()),
            ..Default::default()
        }
    }

    #[test]
    fn keys_become_upper_case_names() {
        assert_eq!(env_name("log.level-x"), "LOG_LEVEL_X");
        assert_eq!(env_name("MODE"), "MODE");
    }

    #[test]
    fn a_redefined_variable_keeps_its_place_and_removed_ones_go() {
        let existing = vec![var("A", "1"), var("B", "2"), var("C", "3")];
        let out = update(&existing, &[var("B", "20"), var("D", "4")], &["C".into()]);
        let names: Vec<(&str, &str)> = out
            .iter()
            .map(|e| (e.name.as_str(), e.value.as_deref().unwrap()))
            .collect();
        assert_eq!(names, [("A", "1"), ("B", "20"), ("D", "4")]);
    }

    #[test]
    fn resources_come_before_variables() {
        let w = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let (r, v) = split(&w(&["deploy/web", "A=1", "B-"])).unwrap();
        assert_eq!((r, v), (w(&["deploy/web"]), w(&["A=1", "B-"])));
        assert!(split(&w(&["A=1", "deploy/web"])).is_err());
        assert!(parse(&w(&["1A=x"]))
            .unwrap_err()
            .contains("not a valid key name"));
        assert!(parse(&w(&["A=1", "A-"]))
            .unwrap_err()
            .contains("both modify and remove"));
    }
}
