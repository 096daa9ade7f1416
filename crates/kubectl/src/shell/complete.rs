//! Tab completion for the web terminal and `warehouse repl`: commands, flags, resource
//! kinds, flag values and object names from the live cluster.
//!
//! Like kubectl's cobra `__complete` (the shell completion scripts call it): the word
//! under the cursor is completed from what precedes it; object names come from the
//! cluster as the current user sees them. A line may start with `kubectl`, or leave it
//! out as the web terminal does; `sim` lines complete the simulation's commands.

use crate::Session;
use warehouse_sim::StableSort;
use warehouse_sim::{Kind, Object};

/// What may replace the word that ends at the cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// Byte offset in the line where the completed word starts.
    pub start: usize,
    /// Candidates for the whole word, sorted, without duplicates.
    pub candidates: Vec<String>,
}

impl Completion {
    /// The longest prefix all candidates share (what a first Tab inserts).
    pub fn common_prefix(&self) -> String {
        let Some(first) = self.candidates.first() else {
            return String::new();
        };
        let mut end = first.len();
        for c in &self.candidates[1..] {
            end = end.min(
                first
                    .char_indices()
                    .zip(c.chars())
                    .take_while(|((_, a), b)| a == b)
                    .map(|((i, a), _)| i + a.len_utf8())
                    .last()
                    .unwrap_or(0),
            );
        }
        first[..end].to_string()
    }
}

/// The kubectl commands the simulation runs.
use crate::args::SUPPORTED as COMMANDS;

const GLOBAL_FLAGS: &[&str] = &["--namespace", "-n", "--as", "--as-group", "--help", "-h"];

fn command_flags(command: &str) -> &'static [&'static str] {
    match command {
        "get" => &[
            "--all-namespaces",
            "-A",
            "--output",
            "-o",
            "--selector",
            "-l",
            "--field-selector",
            "--show-labels",
            "--sort-by",
            "--watch",
            "-w",
            "--watch-only",
            "--output-watch-events",
            "--request-timeout",
            "--template",
            "--allow-missing-template-keys",
            "--no-headers",
            "--raw",
        ],
        "describe" => &["--all-namespaces", "-A", "--selector", "-l"],
        "delete" => &[
            "--filename",
            "-f",
            "--selector",
            "-l",
            "--all",
            "--cascade",
            "--grace-period",
            "--force",
            "--now",
            "--dry-run",
        ],
        "apply" | "replace" => &["--filename", "-f", "--recursive", "-R", "--dry-run"],
        "create" => &[
            "--filename",
            "-f",
            "--dry-run",
            "--image",
            "--replicas",
            "--port",
        ],
        "logs" => &[
            "--container",
            "-c",
            "--previous",
            "-p",
            "--tail",
            "--timestamps",
            "--follow",
            "-f",
        ],
        "exec" => &["--container", "-c", "--stdin", "-i", "--tty", "-t"],
        "scale" => &["--replicas"],
        "autoscale" => &[
            "--min",
            "--max",
            "--cpu",
            "--memory",
            "--name",
            "--dry-run",
            "--output",
        ],
        "run" => &[
            "--image",
            "--port",
            "--labels",
            "--env",
            "--restart",
            "--command",
            "--dry-run",
        ],
        "expose" => &["--port", "--target-port", "--type", "--name", "--protocol"],
        "top" => &[
            "--all-namespaces",
            "-A",
            "--containers",
            "--sort-by",
            "--selector",
            "-l",
            "--no-headers",
            "--sum",
        ],
        "wait" => &["--for", "--timeout", "--all", "--selector", "-l"],
        "drain" => &[
            "--ignore-daemonsets",
            "--delete-emptydir-data",
            "--force",
            "--grace-period",
            "--timeout",
        ],
        "label" | "annotate" => &["--overwrite", "--all", "--selector", "-l", "--list"],
        "events" => &[
            "--for",
            "--types",
            "--all-namespaces",
            "-A",
            "--watch",
            "-w",
        ],
        _ => &[],
    }
}

/// Subcommands of commands that have them.
fn subcommands(command: &str) -> &'static [&'static str] {
    match command {
        "rollout" => &["history", "pause", "restart", "resume", "status", "undo"],
        "top" => &["node", "pod"],
        "create" => &[
            "configmap",
            "deployment",
            "job",
            "namespace",
            "secret",
            "service",
            "serviceaccount",
            "token",
        ],
        "config" => &[
            "current-context",
            "get-contexts",
            "set-context",
            "use-context",
            "view",
        ],
        "auth" => &["can-i", "whoami"],
        "set" => &["image", "resources"],
        _ => &[],
    }
}

const SIM_COMMANDS: &[&str] = &[
    "addons",
    "advance",
    "boot",
    "config",
    "etcd",
    "node",
    "proxy-mode",
    "request",
    "requests",
    "rewind",
    "seed",
    "start",
    "stats",
    "step",
    "stop",
    "traffic",
    "user",
    "why",
    "why-node",
];

/// Every name a kind answers to: plural, singular, short names (the custom kinds
/// the cluster serves too).
fn kind_words(session: &Session) -> Vec<String> {
    let mut out = Vec::new();
    for k in Kind::ALL.into_iter().chain(session.cluster.custom_kinds()) {
        let info = k.info();
        out.push(info.plural.to_string());
        out.push(info.singular.to_string());
        out.extend(info.short_names.iter().map(|s| s.to_string()));
    }
    out.push("all".into());
    out
}

fn kind_of(session: &Session, word: &str) -> Option<Kind> {
    session.cluster.resolve_kind(word)
}

/// Words of the line before the cursor (a shell-like split that keeps quotes out of
/// the way: completion never needs their contents), and the word being typed.
fn split(line: &str) -> (Vec<String>, usize, String) {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut start = 0;
    let mut quote: Option<char> = None;
    for (i, ch) in line.char_indices() {
        match quote {
            Some(q) if ch == q => quote = None,
            Some(_) => current.push(ch),
            None if ch == '"' || ch == '\'' => quote = Some(ch),
            None if ch.is_whitespace() => {
                if !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                }
                start = i + ch.len_utf8();
            }
            None => current.push(ch),
        }
    }
    (words, start, current)
}

fn finish(start: usize, prefix: &str, pool: impl IntoIterator<Item = String>) -> Completion {
    let mut candidates: Vec<String> = pool.into_iter().filter(|c| c.starts_with(prefix)).collect();
    candidates.stable_sort();
    candidates.dedup();
    Completion { start, candidates }
}

/// Completes the word at the end of `line` (the cursor is at the end).
pub fn complete(session: &Session, line: &str) -> Completion {
    let (mut words, start, word) = split(line);
    if words.is_empty()
        && (word.is_empty() || !"kubectl".starts_with(word.as_str()) || word == "kubectl")
    {
        // The web terminal's lines leave `kubectl` out: offer its commands and `sim`.
        let mut pool: Vec<String> = COMMANDS.iter().map(|c| c.to_string()).collect();
        pool.push("sim".into());
        pool.push("kubectl".into());
        pool.push("helm".into());
        return finish(start, &word, pool);
    }
    if words.first().map(String::as_str) == Some("sim") {
        return complete_sim(session, &words[1..], start, &word);
    }
    if words.first().map(String::as_str) == Some("helm") {
        return complete_helm(session, &words[1..], start, &word);
    }
    if words.first().map(String::as_str) == Some("kubectl") {
        words.remove(0);
    }
    // The value of the flag just before the cursor.
    if let Some(prev) = words.last() {
        match prev.as_str() {
            "-n" | "--namespace" => {
                return finish(start, &word, names(session, Kind::Namespace, None))
            }
            "-o" | "--output" => {
                return finish(
                    start,
                    &word,
                    [
                        "wide",
                        "yaml",
                        "json",
                        "name",
                        "jsonpath=",
                        "jsonpath-as-json=",
                        "jsonpath-file=",
                        "custom-columns=",
                        "custom-columns-file=",
                        "go-template=",
                        "go-template-file=",
                    ]
                    .map(String::from),
                )
            }
            "--cascade" => {
                return finish(
                    start,
                    &word,
                    ["background", "foreground", "orphan"].map(String::from),
                )
            }
            "--dry-run" => {
                return finish(start, &word, ["client", "none", "server"].map(String::from))
            }
            "-c" | "--container" => {
                let pods = positionals(&words);
                let ns = namespace_of(session, &words);
                let containers = pods
                    .get(1)
                    .map(|p| containers(session, &ns, p.trim_start_matches("pod/")))
                    .unwrap_or_default();
                return finish(start, &word, containers);
            }
            _ => {}
        }
    }
    let positional = positionals(&words);
    let Some(command) = positional.first().cloned() else {
        return finish(start, &word, COMMANDS.iter().map(|c| c.to_string()));
    };
    if word.starts_with('-') {
        let pool = command_flags(&command)
            .iter()
            .chain(GLOBAL_FLAGS)
            .map(|f| f.to_string());
        return finish(start, &word, pool);
    }
    let ns = namespace_of(session, &words);
    let subs = subcommands(&command);
    let args = &positional[1..];
    match command.as_str() {
        "get" | "describe" | "delete" | "label" | "annotate" | "edit" | "explain" | "wait" => {
            complete_resource(session, &ns, args, start, &word)
        }
        "logs" | "exec" => {
            if args.is_empty() {
                finish(start, &word, names(session, Kind::Pod, Some(&ns)))
            } else {
                finish(start, &word, Vec::new())
            }
        }
        "cordon" | "uncordon" | "drain" => finish(start, &word, names(session, Kind::Node, None)),
        "taint" => match args.len() {
            0 => finish(start, &word, ["nodes".to_string(), "node".to_string()]),
            1 => finish(start, &word, names(session, Kind::Node, None)),
            _ => finish(start, &word, Vec::new()),
        },
        "scale" | "autoscale" | "expose" => complete_resource(session, &ns, args, start, &word),
        "rollout" => match args.len() {
            0 => finish(start, &word, subs.iter().map(|s| s.to_string())),
            _ => complete_resource(session, &ns, &args[1..], start, &word),
        },
        "top" => match args.len() {
            0 => finish(start, &word, subs.iter().map(|s| s.to_string())),
            1 if args[0].starts_with("po") => {
                finish(start, &word, names(session, Kind::Pod, Some(&ns)))
            }
            1 => finish(start, &word, names(session, Kind::Node, None)),
            _ => finish(start, &word, Vec::new()),
        },
        "set" => match args.len() {
            0 => finish(start, &word, subs.iter().map(|s| s.to_string())),
            _ => complete_resource(session, &ns, &args[1..], start, &word),
        },
        "config" if args.first().map(String::as_str) == Some("use-context") => finish(
            start,
            &word,
            session.kubeconfig.contexts.iter().map(|c| c.name.clone()),
        ),
        _ if args.is_empty() && !subs.is_empty() => {
            finish(start, &word, subs.iter().map(|s| s.to_string()))
        }
        _ if !COMMANDS.contains(&command.as_str()) && args.is_empty() => {
            finish(start, &word, COMMANDS.iter().map(|c| c.to_string()))
        }
        _ => finish(start, &word, Vec::new()),
    }
}

/// `KIND`, `KIND NAME`, `KIND/NAME`.
fn complete_resource(
    session: &Session,
    ns: &str,
    args: &[String],
    start: usize,
    word: &str,
) -> Completion {
    if let Some((kind_word, name)) = word.split_once('/') {
        let Some(kind) = kind_of(session, kind_word) else {
            return finish(start, word, Vec::new());
        };
        let _ = name;
        let pool = names(session, kind, Some(ns))
            .into_iter()
            .map(|n| format!("{kind_word}/{n}"));
        return finish(start, word, pool);
    }
    match args
        .first()
        .and_then(|a| kind_of(session, a.split(',').next().unwrap_or(a)))
    {
        Some(kind) if !args[0].contains('/') => finish(start, word, names(session, kind, Some(ns))),
        _ if args.is_empty() => finish(start, word, kind_words(session)),
        _ => finish(start, word, Vec::new()),
    }
}

fn complete_sim(session: &Session, args: &[String], start: usize, word: &str) -> Completion {
    let nodes = || names(session, Kind::Node, None);
    match args {
        [] => finish(start, word, SIM_COMMANDS.iter().map(|s| s.to_string())),
        [c] if c == "node" => finish(
            start,
            word,
            ["add", "heal", "kill", "partition", "restart"].map(String::from),
        ),
        [c, verb] if c == "node" && verb != "add" => finish(start, word, nodes()),
        [c] if c == "stop" || c == "start" => finish(
            start,
            word,
            ["apiserver", "controller-manager", "etcd", "scheduler"].map(String::from),
        ),
        [c] if c == "boot" => finish(
            start,
            word,
            warehouse_sim::Boot::ALL.map(|b| b.name().to_string()),
        ),
        [c] if c == "proxy-mode" => finish(
            start,
            word,
            ["endpoints", "endpointslices"].map(String::from),
        ),
        [c] if c == "addons" || c == "addon" => {
            finish(start, word, ["disable", "enable"].map(String::from))
        }
        [c, _] if c == "addons" || c == "addon" => finish(
            start,
            word,
            ["gateway", "ingress", "metrics-server"].map(String::from),
        ),
        [c] if c == "advance" || c == "rewind" => {
            finish(start, word, ["10s", "30s", "1m", "5m"].map(String::from))
        }
        [c] if c == "why" || c == "why-node" => {
            let ns = session.namespace.clone();
            complete_resource(session, &ns, &[], start, word)
        }
        _ => finish(start, word, Vec::new()),
    }
}

/// `helm` lines: its subcommands, the bundled charts where a chart goes, the
/// releases of the namespace where a release goes, namespaces after `-n`.
fn complete_helm(session: &Session, args: &[String], start: usize, word: &str) -> Completion {
    if matches!(args.last().map(String::as_str), Some("-n" | "--namespace")) {
        return finish(start, word, names(session, Kind::Namespace, None));
    }
    let charts = || crate::helm::chart_references();
    let releases = || crate::helm::release_names(session, &namespace_of(session, args));
    let words: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with('-'))
        .collect();
    match words.as_slice() {
        [] => finish(
            start,
            word,
            crate::helm::SUBCOMMANDS.iter().map(|s| s.to_string()),
        ),
        ["get"] => finish(start, word, ["manifest", "values"].map(String::from)),
        ["show"] => finish(start, word, ["chart", "values"].map(String::from)),
        ["repo"] => finish(start, word, ["list"].map(String::from)),
        ["search"] => finish(start, word, ["repo"].map(String::from)),
        ["install" | "template", _] | ["upgrade", _] | ["show", _] => finish(start, word, charts()),
        ["upgrade" | "rollback" | "uninstall" | "history" | "status"] | ["get", _] => {
            finish(start, word, releases())
        }
        _ => finish(start, word, Vec::new()),
    }
}

/// The words that are neither flags nor flag values.
fn positionals(words: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        if w == "--" {
            break;
        }
        if matches!(
            w,
            "-n" | "--namespace"
                | "-o"
                | "--output"
                | "-l"
                | "--selector"
                | "-c"
                | "--container"
                | "-f"
                | "--filename"
                | "--as"
                | "--as-group"
                | "--sort-by"
                | "--field-selector"
                | "--tail"
                | "--replicas"
                | "--image"
                | "--port"
        ) {
            i += 2;
            continue;
        }
        if !w.starts_with('-') {
            out.push(w.to_string());
        }
        i += 1;
    }
    out
}

fn namespace_of(session: &Session, words: &[String]) -> String {
    let mut ns = session.namespace.clone();
    for (i, w) in words.iter().enumerate() {
        if w == "-n" || w == "--namespace" {
            if let Some(v) = words.get(i + 1) {
                ns = v.clone();
            }
        } else if let Some(v) = w.strip_prefix("--namespace=") {
            ns = v.to_string();
        }
    }
    ns
}

/// Object names of a kind as the store holds them (no request is recorded: the
/// completion is the terminal's, like kubectl's cached discovery).
fn names(session: &Session, kind: Kind, namespace: Option<&str>) -> Vec<String> {
    let ns = if kind.info().namespaced {
        namespace
    } else {
        None
    };
    session
        .cluster
        .list(kind, ns)
        .iter()
        .map(|o| o.name().to_string())
        .collect()
}

fn containers(session: &Session, ns: &str, pod: &str) -> Vec<String> {
    match session.cluster.get(Kind::Pod, ns, pod) {
        Ok(Object::Pod(p)) => p
            .spec
            .map(|s| s.containers.into_iter().map(|c| c.name).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warehouse_sim::{Cluster, SimDuration, Topology};

    fn session() -> Session {
        let mut s = Session::new(Cluster::new(7, Topology::default()));
        s.cluster.advance(SimDuration::secs(5));
        s
    }

    fn cands(s: &Session, line: &str) -> Vec<String> {
        complete(s, line).candidates
    }

    #[test]
    fn commands_complete_with_or_without_kubectl() {
        let s = session();
        assert_eq!(cands(&s, "kubectl ro"), vec!["rollout"]);
        assert_eq!(cands(&s, "de"), vec!["debug", "delete", "describe"]);
        assert!(cands(&s, "").contains(&"sim".to_string()));
    }

    #[test]
    fn kinds_names_and_flags_complete_from_the_cluster() {
        let s = session();
        assert!(cands(&s, "get po").contains(&"pods".to_string()));
        assert_eq!(
            cands(&s, "get nodes zone-"),
            vec!["zone-a", "zone-b", "zone-c"]
        );
        let dns = cands(&s, "kubectl get deploy -n kube-system co");
        assert_eq!(dns, vec!["coredns"]);
        assert_eq!(
            cands(&s, "describe --namespace=kube-system deployment/core"),
            vec!["deployment/coredns"]
        );
        assert!(cands(&s, "get pods --sh").contains(&"--show-labels".to_string()));
        assert_eq!(cands(&s, "get pods -o ya"), vec!["yaml"]);
        assert_eq!(
            cands(&s, "get pods -n kube-"),
            vec!["kube-node-lease", "kube-public", "kube-system"]
        );
        assert_eq!(cands(&s, "sim node kill zone-b"), vec!["zone-b"]);
        assert_eq!(cands(&s, "sim bo"), vec!["boot"]);
        assert_eq!(cands(&s, "sim boot "), vec!["cold", "settled"]);
        assert_eq!(cands(&s, "rollout st"), vec!["status"]);
    }

    #[test]
    fn the_common_prefix_is_what_one_tab_inserts() {
        let c = Completion {
            start: 0,
            candidates: vec!["zone-a".into(), "zone-b".into()],
        };
        assert_eq!(c.common_prefix(), "zone-");
    }
}
