//! `kubectl set image`, `kubectl set resources` and `kubectl set env`
//! (k8s.io/kubectl/pkg/cmd/set/set_image.go, set_resources.go, set_env.go; env in
//! `set_env.rs`): change container images, resource requests and limits, or
//! environment variables in the pod template of Deployments, ReplicaSets,
//! DaemonSets and StatefulSets; and `kubectl set selector` (set_selector.go): a Service's selector
//! from `key=value` requirements (`set selector svc/web 'app=web,tier=front'`).
//! `set serviceaccount` and `set subject` are not simulated yet.

use crate::args::clap_error;
use crate::cmd::get::parse_resource_args;
use crate::cmd::set_env::EnvChange;
use crate::context::{CommandOutput, Context};
use crate::errors;
use clap::Parser;
use k8s_openapi::api::core::v1::{PodSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use std::collections::BTreeMap;
use warehouse_sim::{Cluster, Kind, Object};

#[derive(Parser, Debug)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct SetArgs {
    /// `set`, the subcommand, TYPE NAME or TYPE/NAME, then CONTAINER=IMAGE pairs.
    words: Vec<String>,
    #[arg(short = 'n', long = "namespace")]
    namespace: Option<String>,
    /// `set resources`: `cpu=100m,memory=256Mi`.
    #[arg(long)]
    limits: Option<String>,
    #[arg(long)]
    requests: Option<String>,
    /// `set resources`: the containers to change, `*` wildcards allowed.
    #[arg(short = 'c', long = "containers")]
    containers: Option<String>,
    /// `set env`: a ConfigMap or Secret whose keys become variables.
    #[arg(long)]
    from: Option<String>,
    /// `set env`: the keys of `--from` to take.
    #[arg(long, value_delimiter = ',')]
    keys: Vec<String>,
    /// `set env`: a prefix for the names of the variables.
    #[arg(long)]
    prefix: Option<String>,
    /// `set env`: list the variables, change nothing.
    #[arg(long)]
    list: bool,
}

/// What a `set` subcommand changes in a pod template.
enum Change {
    Images(Vec<(String, String)>),
    Resources {
        containers: String,
        limits: Option<BTreeMap<String, Quantity>>,
        requests: Option<BTreeMap<String, Quantity>>,
    },
    Env(EnvChange),
}

impl Change {
    /// What kubectl says of a workload the change updated.
    fn verb(&self) -> &'static str {
        match self {
            Change::Images(_) => "image updated",
            Change::Resources { .. } => "resource requirements updated",
            Change::Env(_) => "env updated",
        }
    }
}

/// The subcommand: `image`, `resources` or `env` (the others are not simulated).
fn subcommand(words: &[String]) -> Result<&'static str, String> {
    match words.first().map(String::as_str) {
        Some("image") => Ok("image"),
        Some("resources") => Ok("resources"),
        Some("env") => Ok("env"),
        Some("selector") => Ok("selector"),
        Some(other @ ("serviceaccount" | "subject")) => Err(format!(
            "error: \"kubectl set {other}\" is not available in this simulated cluster yet; it runs set image, set resources, set env and set selector"
        )),
        Some(other) => Err(format!(
            "error: unknown command \"{other}\" for \"kubectl set\"\nRun 'kubectl set --help' for usage."
        )),
        None => Err(
            "error: kubectl set needs a subcommand: image, resources or env\nSee 'kubectl set -h' for help and examples"
                .into(),
        ),
    }
}

/// The flags of another `set` subcommand are unknown to this one.
fn reject_flags(sub: &str, flags: &[(&str, bool)]) -> Result<(), String> {
    match flags.iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(format!(
            "error: unknown flag: {flag}\nSee 'kubectl set {sub} --help' for usage."
        )),
        None => Ok(()),
    }
}

/// `set env`'s own flags, and whether each was given.
fn env_flags(parsed: &SetArgs) -> [(&'static str, bool); 4] {
    [
        ("--from", parsed.from.is_some()),
        ("--keys", !parsed.keys.is_empty()),
        ("--prefix", parsed.prefix.is_some()),
        ("--list", parsed.list),
    ]
}

/// `set image TYPE NAME CONTAINER=IMAGE...`: the resources and the images to set.
fn image_change(parsed: &SetArgs, words: &[String]) -> Result<(Vec<String>, Change), String> {
    reject_flags(
        "image",
        &[
            ("--limits", parsed.limits.is_some()),
            ("--requests", parsed.requests.is_some()),
            ("--containers", parsed.containers.is_some()),
        ],
    )?;
    reject_flags("image", &env_flags(parsed))?;
    // Resource arguments come first; `NAME=IMAGE` pairs after them.
    let (resources, pairs): (Vec<String>, Vec<String>) =
        words[1..].iter().cloned().partition(|w| !w.contains('='));
    if resources.is_empty() {
        return Err("error: one or more resources must be specified as <resource> <name> or <resource>/<name>".into());
    }
    if pairs.is_empty() {
        return Err("error: at least one image update is required".into());
    }
    let mut images: Vec<(String, String)> = Vec::new();
    for p in &pairs {
        let (c, i) = p.split_once('=').unwrap_or((p, ""));
        if c.is_empty() || i.is_empty() {
            return Err(format!("error: invalid image update: {p}"));
        }
        images.push((c.to_string(), i.to_string()));
    }
    Ok((resources, Change::Images(images)))
}

/// `set resources TYPE NAME --limits=... --requests=... [-c CONTAINERS]`: the
/// resources and the requirements to set.
fn resources_change(parsed: &SetArgs, words: &[String]) -> Result<(Vec<String>, Change), String> {
    reject_flags("resources", &env_flags(parsed))?;
    let resources: Vec<String> = words[1..].to_vec();
    if resources.is_empty() {
        return Err("error: one or more resources must be specified as <resource> <name> or <resource>/<name>".into());
    }
    let (limits, requests) = (
        parsed.limits.clone().filter(|l| !l.is_empty()),
        parsed.requests.clone().filter(|r| !r.is_empty()),
    );
    if limits.is_none() && requests.is_none() {
        return Err(
            "error: you must specify an update to requests or limits (in the form of --requests/--limits)"
                .into(),
        );
    }
    let parse = |list: Option<String>| list.map(|l| resource_list(&l)).transpose();
    let (limits, requests) = match (parse(limits), parse(requests)) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(e), _) | (_, Err(e)) => return Err(format!("error: {e}")),
    };
    let change = Change::Resources {
        containers: parsed.containers.clone().unwrap_or_else(|| "*".to_string()),
        limits,
        requests,
    };
    Ok((resources, change))
}

/// Applies the change to the pod template of one workload and patches it when that
/// changes it; prints `KIND/NAME image updated` (or the resources' line).
fn update_workload(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    kind: Kind,
    namespace: &str,
    name: &str,
    change: &Change,
    out: &mut CommandOutput,
) {
    let obj = match crate::context::get(cluster, ctx, kind, namespace, name) {
        Ok(o) => o,
        Err(e) => {
            out.fail(errors::render(&e, None));
            return;
        }
    };
    let mut updated = obj.clone();
    // A StatefulSet's template is JSON: changed as a typed copy, written back below.
    let mut sts_template = None;
    if kind == Kind::StatefulSet {
        match crate::cmd::stateful_set::template(&obj) {
            Ok(t) => sts_template = Some(t),
            Err(e) => return out.fail(e),
        }
    }
    let sts_before = sts_template.clone();
    let spec = match &mut updated {
        Object::Deployment(d) => d.spec.template.spec.as_mut(),
        Object::ReplicaSet(rs) => rs.spec.template.as_mut().and_then(|t| t.spec.as_mut()),
        Object::DaemonSet(ds) => ds.spec.template.spec.as_mut(),
        _ => sts_template.as_mut().and_then(|t| t.spec.as_mut()),
    };
    let Some(spec) = spec else {
        return;
    };
    let mut listing: Vec<String> = Vec::new();
    match change {
        Change::Images(images) => {
            for (c, image) in images {
                if !set_image(spec, c, image) {
                    out.fail(format!("error: unable to find container named \"{c}\""));
                }
            }
        }
        Change::Resources {
            containers,
            limits,
            requests,
        } => {
            if !set_resources(spec, containers, limits.as_ref(), requests.as_ref()) {
                out.fail(format!(
                    "error: unable to find container named {containers}"
                ));
            }
        }
        Change::Env(env) => {
            if !crate::cmd::set_env::apply(spec, env, kind, name, &mut listing) {
                out.err_line(format!(
                    "warning: {}/{name} does not have any containers matching \"{}\"",
                    kind.as_str(),
                    env.containers
                ));
            }
            if env.list {
                for line in listing {
                    out.out_line(line);
                }
                return;
            }
        }
    }
    if let Some(t) = sts_template {
        if sts_before.as_ref() != Some(&t) {
            updated = match crate::cmd::stateful_set::with_template(&obj, t) {
                Ok(o) => o,
                Err(e) => return out.fail(e),
            };
        }
    }
    if updated == obj {
        return; // no change: kubectl sends nothing and prints nothing
    }
    match crate::cmd::rollout::patch(cluster, ctx, updated, None) {
        Ok(_) => out.out_line(format!(
            "{}/{name} {}",
            kind.qualified_singular(),
            change.verb()
        )),
        Err(e) => out.fail(match change {
            Change::Images(_) => format!(
                "error: failed to patch image update to pod template: {}",
                e.message
            ),
            Change::Resources { .. } => format!(
                "error: failed to patch resources update to pod template {}",
                errors::render(&e, None).trim_start_matches("error: ")
            ),
            Change::Env(_) => format!(
                "error: failed to patch env update to pod template: {}",
                e.message
            ),
        }),
    }
}

pub(crate) fn run(cluster: &mut Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let parsed = match SetArgs::try_parse_from(args) {
        Ok(p) => p,
        Err(e) => return clap_error(e, Some("set"), args),
    };
    let words: Vec<String> = parsed.words.iter().skip(1).cloned().collect();
    let namespace = parsed
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    if words.first().map(String::as_str) == Some("selector") {
        return set_selector(cluster, ctx, &namespace, &words[1..]);
    }
    let checked = subcommand(&words).and_then(|sub| {
        let (resources, change) = match sub {
            "image" => image_change(&parsed, &words)?,
            "resources" => resources_change(&parsed, &words)?,
            _ => env_change(cluster, ctx, &namespace, &parsed, &words)?,
        };
        Ok((sub, parse_resource_args(&resources)?, change))
    });
    let (subcommand, targets, change) = match checked {
        Ok(x) => x,
        Err(e) => return CommandOutput::error(e),
    };
    let mut out = CommandOutput::new();
    for t in targets {
        if !matches!(
            t.kind,
            Kind::Deployment | Kind::ReplicaSet | Kind::DaemonSet | Kind::StatefulSet
        ) {
            out.fail(format!(
                "error: set {subcommand} on {} is not available in this simulated cluster yet",
                t.kind.qualified_plural()
            ));
            continue;
        }
        for name in &t.names {
            update_workload(cluster, ctx, t.kind, &namespace, name, &change, &mut out);
        }
    }
    out
}

/// `set selector TYPE NAME EXPRESSIONS`: the last word is the selector
/// (`ParseToLabelSelector`), the words before it the resources. Only a Service's
/// selector can be set, and only from equality requirements.
fn set_selector(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    namespace: &str,
    words: &[String],
) -> CommandOutput {
    let Some((expression, resources)) = words.split_last() else {
        return CommandOutput::error(
            "error: one or more resources must be specified as <resource> <name> or <resource>/<name>",
        );
    };
    let selector = match crate::selector::Selector::parse(expression) {
        Ok(s) => crate::cmd::create_more::label_selector_json(&s),
        Err(e) => return CommandOutput::error(format!("error: {e}")),
    };
    let targets = match parse_resource_args(resources) {
        Ok(t) if !t.is_empty() => t,
        Ok(_) => {
            return CommandOutput::error(
                "error: one or more resources must be specified as <resource> <name> or <resource>/<name>",
            )
        }
        Err(e) => return CommandOutput::error(e),
    };
    let mut out = CommandOutput::new();
    for t in targets {
        for name in &t.names {
            if t.kind != Kind::Service {
                out.fail("error: setting a selector is only supported for Services");
                continue;
            }
            if let Some(exprs) = selector.get("matchExpressions").and_then(|e| e.as_array()) {
                // Go's `%v` of the requirements: `[{tier In [a b]}]`.
                let shown: Vec<String> = exprs
                    .iter()
                    .map(|e| {
                        let values: Vec<&str> = e["values"]
                            .as_array()
                            .map(|v| v.iter().filter_map(|x| x.as_str()).collect())
                            .unwrap_or_default();
                        format!(
                            "{{{} {} [{}]}}",
                            e["key"].as_str().unwrap_or(""),
                            e["operator"].as_str().unwrap_or(""),
                            values.join(" ")
                        )
                    })
                    .collect();
                out.fail(format!(
                    "error: match expression [{}] not supported on this object",
                    shown.join(" ")
                ));
                continue;
            }
            let live = match crate::context::get(cluster, ctx, t.kind, namespace, name) {
                Ok(o) => o,
                Err(e) => {
                    out.fail(errors::render(&e, None));
                    continue;
                }
            };
            let mut v = live.to_json();
            v["spec"]["selector"] = selector
                .get("matchLabels")
                .cloned()
                .unwrap_or_else(|| serde_json::json!({}));
            let updated = match Object::from_json(t.kind, v) {
                Ok(o) => o,
                Err(e) => {
                    out.fail(format!("error: {e}"));
                    continue;
                }
            };
            let body = warehouse_sim::apiserver::request::Body::patch(updated);
            match crate::context::send(cluster, ctx, body) {
                Ok(_) => out.out_line(format!("service/{name} selector updated")),
                Err(e) => out.fail(errors::render(&e, None)),
            }
        }
    }
    out
}

/// `set env TYPE NAME... KEY=VALUE... KEY-... [--from=configmap/NAME] [--list]`:
/// the resources and the variables to set or remove.
fn env_change(
    cluster: &Cluster,
    ctx: &Context<'_>,
    namespace: &str,
    parsed: &SetArgs,
    words: &[String],
) -> Result<(Vec<String>, Change), String> {
    use crate::cmd::set_env;
    reject_flags(
        "env",
        &[
            ("--limits", parsed.limits.is_some()),
            ("--requests", parsed.requests.is_some()),
        ],
    )?;
    let (resources, vars) = set_env::split(&words[1..])?;
    if resources.is_empty() {
        return Err("error: one or more resources must be specified as <resource> <name> or <resource>/<name>".into());
    }
    if !parsed.keys.is_empty() && parsed.from.is_none() {
        return Err(
            "error: when specifying --keys, a configmap or secret must be provided with --from"
                .into(),
        );
    }
    let (mut set, remove) = set_env::parse(&vars)?;
    if let Some(from) = &parsed.from {
        set.extend(set_env::from_source(
            cluster,
            ctx,
            namespace,
            from,
            &parsed.keys,
        )?);
    }
    if let Some(prefix) = parsed.prefix.as_deref().filter(|p| !p.is_empty()) {
        for v in set.iter_mut() {
            v.name = format!("{prefix}{}", v.name);
        }
    }
    let change = set_env::EnvChange {
        containers: parsed.containers.clone().unwrap_or_else(|| "*".to_string()),
        set,
        remove,
        list: parsed.list,
    };
    Ok((resources, Change::Env(change)))
}

/// Sets the image of the named container (`*` is every container), init containers
/// included. Returns whether a container matched.
fn set_image(spec: &mut PodSpec, name: &str, image: &str) -> bool {
    let mut found = false;
    for c in spec.containers.iter_mut() {
        if c.name == name || name == "*" {
            c.image = Some(image.to_string());
            found = true;
        }
    }
    for c in spec.init_containers.iter_mut().flatten() {
        if c.name == name || name == "*" {
            c.image = Some(image.to_string());
            found = true;
        }
    }
    found
}

/// `cpu=100m,memory=256Mi` as a resource list (kubectl's
/// `HandleResourceRequirementsV1`): each value a valid quantity.
fn resource_list(text: &str) -> Result<BTreeMap<String, Quantity>, String> {
    let mut list = BTreeMap::new();
    for pair in text.split(',') {
        let Some((name, value)) = pair
            .split_once('=')
            .filter(|(n, v)| !n.is_empty() && !v.is_empty())
        else {
            return Err(format!(
                "Invalid argument syntax {pair}, expected <resource>=<value>"
            ));
        };
        if warehouse_sim::object::quantity::canonical(value).is_none() {
            return Err(
                "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
                    .to_string(),
            );
        }
        list.insert(name.to_string(), Quantity(value.to_string()));
    }
    Ok(list)
}

/// Sets the requests and limits of the containers (not init containers) whose name
/// matches `pattern` (`*` matches any run of characters), merging into what they
/// already ask for. Returns whether a container matched.
fn set_resources(
    spec: &mut PodSpec,
    pattern: &str,
    limits: Option<&BTreeMap<String, Quantity>>,
    requests: Option<&BTreeMap<String, Quantity>>,
) -> bool {
    let mut found = false;
    for c in spec
        .containers
        .iter_mut()
        .filter(|c| wildcard(pattern, &c.name))
    {
        found = true;
        let r = c
            .resources
            .get_or_insert_with(ResourceRequirements::default);
        if let Some(limits) = limits {
            r.limits
                .get_or_insert_with(BTreeMap::new)
                .extend(limits.clone());
        }
        if let Some(requests) = requests {
            r.requests
                .get_or_insert_with(BTreeMap::new)
                .extend(requests.clone());
        }
    }
    found
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters.
pub(crate) fn wildcard(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, rest)) => {
            let Some(tail) = name.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len())
                .filter(|&i| tail.is_char_boundary(i))
                .any(|i| wildcard(rest, &tail[i..]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_patterns_take_wildcards() {
        assert!(wildcard("*", "web"));
        assert!(wildcard("web", "web") && !wildcard("web", "web2"));
        assert!(wildcard("we*", "web") && wildcard("*b", "web") && wildcard("w*b", "web"));
        assert!(!wildcard("x*", "web") && !wildcard("*x", "web"));
    }

    #[test]
    fn resource_lists_are_pairs_of_valid_quantities() {
        let list = resource_list("cpu=200m,memory=512Mi").unwrap();
        assert_eq!(list["cpu"].0, "200m");
        assert_eq!(list["memory"].0, "512Mi");
        assert!(resource_list("cpu")
            .unwrap_err()
            .contains("expected <resource>=<value>"));
        assert!(resource_list("cpu=lots")
            .unwrap_err()
            .contains("regular expression"));
    }

    #[test]
    fn stateful_set_templates_are_set_like_the_others() {
        use crate::cmd::stateful_set::testing;
        use crate::context::NoFiles;
        let mut s = testing::session(testing::WEB);
        let mut run = |line: &str| s.run(line, None, &NoFiles);
        let out = run("set image statefulset/web nginx=nginx:1.27");
        assert_eq!(out.stdout, "statefulset.apps/web image updated\n");
        // The same image again changes nothing: nothing is sent or printed.
        let out = run("set image sts/web nginx=nginx:1.27");
        assert_eq!((out.combined().as_str(), out.success()), ("", true));
        let out = run("set image sts/web php=php:8");
        assert_eq!(
            out.stderr,
            "error: unable to find container named \"php\"\n"
        );
        let out = run("set resources sts web --limits=memory=256Mi");
        assert_eq!(
            out.stdout,
            "statefulset.apps/web resource requirements updated\n"
        );
        let out = run("set env statefulset/web MODE=prod");
        assert_eq!(out.stdout, "statefulset.apps/web env updated\n");
        let out = run("set env sts/web --list");
        assert_eq!(
            out.stdout,
            "# StatefulSet web, container nginx\nMODE=prod\n"
        );
        let stored = s.cluster.get(Kind::StatefulSet, "default", "web").unwrap();
        let c = &stored.to_json()["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(c["image"], "nginx:1.27");
        assert_eq!(c["resources"]["limits"]["memory"], "256Mi");
        assert_eq!(c["env"][0]["value"], "prod");
        // The rest of the template is as it was.
        assert_eq!(c["volumeMounts"][0]["mountPath"], "/usr/share/nginx/html");
        assert_eq!(
            stored.to_json()["spec"]["volumeClaimTemplates"][0]["spec"]["storageClassName"],
            "standard"
        );
    }
}
