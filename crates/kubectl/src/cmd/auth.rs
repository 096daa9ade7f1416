//! `kubectl auth can-i` and `kubectl auth whoami`.

use crate::context::{CommandOutput, Context};
use warehouse_sim::StableSort;
use warehouse_sim::{Attributes, Caller, Cluster};

const CAN_I_USAGE: &str = "error: you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'kubectl auth can-i -h' for help and examples";

pub(crate) fn run(cluster: &Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let mut words = Vec::new();
    let mut namespace: Option<String> = None;
    let mut all_namespaces = false;
    let mut list = false;
    let mut no_headers = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "-n" | "--namespace" => {
                namespace = args.get(i + 1).cloned();
                i += 1;
            }
            "-A" | "--all-namespaces" => all_namespaces = true,
            "--list" => list = true,
            "--no-headers" => no_headers = true,
            _ if a.starts_with("--namespace=") => {
                namespace = Some(a["--namespace=".len()..].to_string())
            }
            _ if a.starts_with('-') => {
                return CommandOutput::error(format!(
                    "error: unknown flag: {a}\nSee 'kubectl auth --help' for usage."
                ))
            }
            _ => words.push(a.to_string()),
        }
        i += 1;
    }
    // Each subcommand is a review the desk answers for whoever the credentials
    // name: it authenticates them first.
    let caller = || {
        cluster
            .authenticate_request(&ctx.credentials)
            .map_err(|e| CommandOutput::error(crate::errors::render(&e, None)))
    };
    match words.get(1).map(String::as_str) {
        Some("whoami") if words.len() == 2 => match caller() {
            Ok(c) => whoami(&c),
            Err(out) => out,
        },
        Some("can-i") if list => {
            if words.len() > 2 {
                return CommandOutput::error(
                    "error: list option must be specified only",
                );
            }
            let ns = namespace.unwrap_or_else(|| ctx.default_namespace.clone());
            match caller() {
                Ok(c) => can_i_list(cluster, &c, &ns, no_headers),
                Err(out) => out,
            }
        }
        Some("can-i") => match caller() {
            Ok(c) => can_i(cluster, ctx, &c, &words[2..], namespace, all_namespaces),
            Err(out) => out,
        },
        Some(other) => CommandOutput::error(format!(
            "error: unknown command \"{other}\" for \"kubectl auth\"\nRun 'kubectl auth --help' for usage."
        )),
        None => CommandOutput::error(
            "error: kubectl auth needs a subcommand: can-i or whoami",
        ),
    }
}

/// One broken-down rule: a single group/resource/name, or a single URL.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Rule {
    verbs: Vec<String>,
    groups: Vec<String>,
    resources: Vec<String>,
    names: Vec<String>,
    urls: Vec<String>,
}

impl Rule {
    /// The generated `PolicyRule.String()` the rules are sorted by.
    fn sort_key(&self) -> String {
        format!(
            "&PolicyRule{{Verbs:[{}],APIGroups:[{}],Resources:[{}],ResourceNames:[{}],NonResourceURLs:[{}],}}",
            self.verbs.join(" "),
            self.groups.join(" "),
            self.resources.join(" "),
            self.names.join(" "),
            self.urls.join(" ")
        )
    }
}

/// `kubectl auth can-i --list` (cani.go `printStatus`): the caller's rules from a
/// SelfSubjectRulesReview, broken down per group, resource and name
/// (`BreakdownRule`), those differing only in verbs merged (`CompactRules`), sorted
/// by their string form, in a tabwriter table.
fn can_i_list(
    cluster: &Cluster,
    caller: &Caller,
    namespace: &str,
    no_headers: bool,
) -> CommandOutput {
    let mut broken: Vec<Rule> = Vec::new();
    for r in cluster.rules_for(caller, namespace) {
        let verbs = r.verbs.clone();
        for url in r.non_resource_urls.iter().flatten() {
            broken.push(Rule {
                verbs: verbs.clone(),
                groups: vec![],
                resources: vec![],
                names: vec![],
                urls: vec![url.clone()],
            });
        }
        for g in r.api_groups.iter().flatten() {
            for res in r.resources.iter().flatten() {
                let names = r.resource_names.clone().unwrap_or_default();
                if names.is_empty() {
                    broken.push(Rule {
                        verbs: verbs.clone(),
                        groups: vec![g.clone()],
                        resources: vec![res.clone()],
                        names: vec![],
                        urls: vec![],
                    });
                }
                for n in names {
                    broken.push(Rule {
                        verbs: verbs.clone(),
                        groups: vec![g.clone()],
                        resources: vec![res.clone()],
                        names: vec![n],
                        urls: vec![],
                    });
                }
            }
        }
    }
    // CompactRules: resource rules that differ only in verbs become one.
    let mut compact: Vec<Rule> = Vec::new();
    for r in broken {
        let same = compact.iter_mut().find(|c| {
            c.urls.is_empty()
                && r.urls.is_empty()
                && c.groups == r.groups
                && c.resources == r.resources
                && c.names == r.names
        });
        match same {
            Some(c) => {
                for v in r.verbs {
                    if !c.verbs.contains(&v) {
                        c.verbs.push(v);
                    }
                }
            }
            None => compact.push(r),
        }
    }
    compact.stable_sort_by_key(Rule::sort_key);
    let mut text = String::new();
    if !no_headers {
        text.push_str("Resources\tNon-Resource URLs\tResource Names\tVerbs\n");
    }
    for r in &compact {
        let resource = match (r.resources.first(), r.groups.first()) {
            (Some(res), Some(g)) if g.is_empty() => res.clone(),
            (Some(res), Some(g)) => format!("{res}.{g}"),
            _ => String::new(),
        };
        text.push_str(&format!(
            "{resource}\t[{}]\t[{}]\t[{}]\n",
            r.urls.join(" "),
            r.names.join(" "),
            r.verbs.join(" ")
        ));
    }
    CommandOutput {
        stdout: crate::printers::tabwriter::align(&text, 0, 3),
        ..CommandOutput::default()
    }
}

fn whoami(caller: &Caller) -> CommandOutput {
    let rows = vec![
        vec!["ATTRIBUTE".to_string(), "VALUE".to_string()],
        vec!["Username".to_string(), caller.user.clone()],
        vec![
            "Groups".to_string(),
            format!("[{}]", caller.groups.join(" ")),
        ],
    ];
    CommandOutput {
        stdout: crate::printers::table::format(&rows),
        ..CommandOutput::default()
    }
}

fn can_i(
    cluster: &Cluster,
    ctx: &Context<'_>,
    caller: &Caller,
    words: &[String],
    namespace: Option<String>,
    all_namespaces: bool,
) -> CommandOutput {
    let (verb, resource, name) = match words {
        [verb, resource] => match resource.split_once('/') {
            Some((r, n)) => (verb, r.to_string(), n.to_string()),
            None => (verb, resource.clone(), String::new()),
        },
        [verb, resource, name] => (verb, resource.clone(), name.clone()),
        _ => return CommandOutput::error(CAN_I_USAGE),
    };
    let (resource, subresource) = match resource.split_once('/') {
        Some((r, s)) => (r.to_string(), Some(s.to_string())),
        None => (resource, None),
    };
    let Some(kind) = crate::discovery::lookup(&resource) else {
        // kubectl warns and still asks the server, which knows nothing of it.
        return CommandOutput {
            stdout: "no\n".into(),
            stderr: format!("Warning: the server doesn't have a resource type '{resource}'\n\n"),
            code: 1,
            ..CommandOutput::default()
        };
    };
    let ns = if all_namespaces {
        String::new()
    } else {
        namespace.unwrap_or_else(|| ctx.default_namespace.clone())
    };
    let attrs = Attributes {
        verb: verb.clone(),
        kind,
        subresource,
        namespace: if kind.namespaced() { ns } else { String::new() },
        name,
    };
    if cluster.authorizer_allows(caller, &attrs) {
        CommandOutput {
            stdout: "yes\n".into(),
            ..CommandOutput::default()
        }
    } else {
        CommandOutput {
            stdout: "no\n".into(),
            code: 1,
            ..CommandOutput::default()
        }
    }
}
