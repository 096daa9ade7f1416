//! The kubectl grammar (clap) and kubectl's wording for command-line mistakes.

use crate::args::{
    clap_error, ApplyArgs, CreateArgs, DeleteArgs, GetArgs, ReplaceArgs, KUBECTL_COMMANDS,
    SUPPORTED,
};
use crate::context::CommandOutput;
use clap::{Parser, Subcommand};

/// cobra's `SuggestFor`: words that suggest a command although they are far from it.
const SUGGEST_FOR: &[(&str, &str)] = &[("delete", "rm")];

#[derive(Parser, Debug)]
#[command(
    name = "kubectl",
    no_binary_name = true,
    disable_help_subcommand = true,
    disable_version_flag = true,
    about = "kubectl controls the Kubernetes cluster manager (simulated)."
)]
struct Root {
    /// If present, the namespace scope for this CLI request
    #[arg(
        short = 'n',
        long = "namespace",
        global = true,
        value_name = "NAMESPACE"
    )]
    namespace: Option<String>,
    /// Username to impersonate for the operation
    #[arg(long = "as", global = true, value_name = "USER")]
    as_user: Option<String>,
    /// Group to impersonate for the operation, this flag can be repeated to specify multiple groups.
    #[arg(long = "as-group", global = true, value_name = "GROUP")]
    as_group: Vec<String>,
    /// Bearer token for authentication to the API server
    #[arg(long = "token", global = true, value_name = "TOKEN")]
    token: Option<String>,
    #[command(subcommand)]
    command: Option<Sub>,
}

/// Who kubectl authenticates as, and whom it impersonates (global flags).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    pub token: Option<String>,
    pub as_user: Option<String>,
    pub as_groups: Vec<String>,
}

/// Pulls the identity flags (`--as`, `--as-group`, `--token`) out of a command line,
/// wherever they stand, so every command honours them.
pub fn take_identity(args: &[String]) -> (Identity, Vec<String>) {
    let mut id = Identity::default();
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        if matches!(flag, "--as" | "--as-group" | "--token") {
            let value = match inline {
                Some(v) => Some(v),
                None => {
                    i += 1;
                    args.get(i).cloned()
                }
            };
            if let Some(v) = value {
                match flag {
                    "--as" => id.as_user = Some(v),
                    "--as-group" => id.as_groups.push(v),
                    _ => id.token = Some(v),
                }
            } else {
                // Leave it for clap to report the missing value.
                rest.push(a.clone());
            }
        } else {
            rest.push(a.clone());
        }
        i += 1;
    }
    (id, rest)
}

/// The field manager each command names by default, for the commands that take
/// `--field-manager` (`cmdutil.AddFieldManagerFlagVar` in kubectl's pkg/cmd/*):
/// `None` for a command without the flag, whose writes name the user agent's
/// (`kubectl`). `apply` names `kubectl-client-side-apply`, or `kubectl` with
/// `--server-side` (`GetApplyFieldManagerFlag`).
pub fn default_field_manager(command: &str, sub: Option<&str>) -> Option<&'static str> {
    Some(match (command, sub) {
        ("apply", _) => "kubectl-client-side-apply",
        ("create", _) => "kubectl-create",
        ("edit", _) => "kubectl-edit",
        ("patch", _) => "kubectl-patch",
        ("label", _) => "kubectl-label",
        ("annotate", _) => "kubectl-annotate",
        ("set", _) => "kubectl-set",
        ("taint", _) => "kubectl-taint",
        ("expose", _) => "kubectl-expose",
        ("autoscale", _) => "kubectl-autoscale",
        ("replace", _) => "kubectl-replace",
        ("run", _) => "kubectl-run",
        ("rollout", Some("pause" | "resume" | "restart")) => "kubectl-rollout",
        _ => return None,
    })
}

/// Pulls `--field-manager` out of a command line whose command takes it; returns
/// the command's field manager (the flag's value, else its default), whether the
/// flag was given, and the rest. A command without the flag keeps it in the line,
/// for the grammar to refuse as an unknown flag.
pub fn take_field_manager(args: &[String]) -> (Option<String>, bool, Vec<String>) {
    // The command and its first word after it, skipping flags and their values.
    let mut words = Vec::new();
    let mut i = 0;
    while i < args.len() && words.len() < 2 {
        let a = args[i].as_str();
        if a == "-n" || a == "--namespace" {
            i += 2;
            continue;
        }
        if !a.starts_with('-') {
            words.push(a);
        }
        i += 1;
    }
    let Some(default) = words
        .first()
        .and_then(|c| default_field_manager(c, words.get(1).copied()))
    else {
        return (None, false, args.to_vec());
    };
    let mut manager = None;
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if let Some(v) = a.strip_prefix("--field-manager=") {
            manager = Some(v.to_string());
        } else if a == "--field-manager" && i + 1 < args.len() {
            i += 1;
            manager = Some(args[i].clone());
        } else {
            rest.push(a.clone());
        }
        i += 1;
    }
    let given = manager.is_some();
    (
        Some(manager.unwrap_or_else(|| default.to_string())),
        given,
        rest,
    )
}

#[derive(Subcommand, Debug)]
enum Sub {
    /// Apply a configuration to a resource by file name or stdin
    Apply(ApplyArgs),
    /// Display one or many resources
    Get(GetArgs),
    /// Delete resources by file names, stdin, resources and names, or by resources and label selector
    Delete(DeleteArgs),
    /// Create a resource from a file or from stdin
    Create(CreateArgs),
    /// Replace a resource by file name or stdin
    Replace(ReplaceArgs),
}

pub enum Command {
    Help(String),
    Apply(ApplyArgs),
    Get(GetArgs),
    Delete(DeleteArgs),
    Create(CreateArgs),
    Replace(ReplaceArgs),
    /// `kubectl api-resources`, with the whole command line (api_resources.rs parses it).
    ApiResources(Vec<String>),
    /// `kubectl auth can-i|whoami`, with the whole command line (auth.rs parses it).
    Auth(Vec<String>),
    /// `kubectl describe`, with the whole command line (describe.rs parses it).
    Describe(Vec<String>),
    /// `kubectl cordon|uncordon NODE...` (cordon.rs); true to cordon.
    Cordon(Vec<String>, bool),
    /// `kubectl drain NODE...` (drain.rs).
    Drain(Vec<String>),
    /// `kubectl taint nodes NODE TAINT...` (taint.rs).
    Taint(Vec<String>),
    Patch(Vec<String>),
    /// `kubectl create job`, with the whole command line (create_job.rs parses it).
    CreateJob(Vec<String>),
    /// `kubectl rollout ...`, with the whole command line (rollout.rs parses it).
    Rollout(Vec<String>),
    /// `kubectl scale ...`, with the whole command line (scale.rs parses it).
    Scale(Vec<String>),
    /// `kubectl set image ...`, with the whole command line (set.rs parses it).
    Set(Vec<String>),
    /// `kubectl logs`, with the whole command line (logs.rs parses it).
    Logs(Vec<String>),
    /// `kubectl label|annotate ...` (label.rs); which map it edits.
    Label(Vec<String>, crate::cmd::label::Target),
    /// `kubectl expose ...` (expose.rs).
    Expose(Vec<String>),
    /// `kubectl run ...` (run.rs).
    Run(Vec<String>),
    /// `kubectl version` (version.rs).
    Version(Vec<String>),
    /// `kubectl cluster-info` (cluster_info.rs).
    ClusterInfo(Vec<String>),
    /// `kubectl config ...` (config.rs): the session's kubeconfig.
    Config(Vec<String>),
    /// `kubectl events` (events.rs).
    Events(Vec<String>),
    /// `kubectl wait ...` (wait.rs).
    Wait(Vec<String>),
    /// `kubectl top node|pod ...` (top.rs).
    Top(Vec<String>),
    /// `kubectl exec ...` (exec.rs).
    Exec(Vec<String>),
    /// `kubectl attach ...` (attach.rs).
    Attach(Vec<String>),
    /// `kubectl debug ...` (debug.rs).
    Debug(Vec<String>),
    /// `kubectl port-forward ...` (port_forward.rs).
    PortForward(Vec<String>),
    /// `kubectl autoscale ...` (autoscale.rs).
    Autoscale(Vec<String>),
    /// `kubectl edit ...` (edit.rs).
    Edit(Vec<String>),
    /// `kubectl explain ...` (explain.rs).
    Explain(Vec<String>),
    /// `kubectl create deployment|service|configmap|secret|serviceaccount` (create_more.rs).
    CreateMore(Vec<String>),
}

/// Parses kubectl's arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Command, CommandOutput> {
    let command = first_positional(args);
    // `--help` on a command kubectl here runs: kubectl's own help for it.
    if let Some(c) = command.as_deref().filter(|c| SUPPORTED.contains(c)) {
        if crate::cmd::help::asked(args) {
            let from = args.iter().position(|a| a == c).unwrap_or(0);
            if let Some(text) = crate::cmd::help::text(&args[from..]) {
                return Ok(Command::Help(text));
            }
        }
    }
    match command.as_deref() {
        None => {
            if args.iter().any(|a| a == "-h" || a == "--help") || args.is_empty() {
                return Ok(Command::Help(root_help()));
            }
        }
        Some("api-resources") => return Ok(Command::ApiResources(args.to_vec())),
        Some("auth") => return Ok(Command::Auth(args.to_vec())),
        Some("describe") => return Ok(Command::Describe(args.to_vec())),
        Some("cordon") => return Ok(Command::Cordon(args.to_vec(), true)),
        Some("uncordon") => return Ok(Command::Cordon(args.to_vec(), false)),
        Some("drain") => return Ok(Command::Drain(args.to_vec())),
        Some("taint") => return Ok(Command::Taint(args.to_vec())),
        Some("patch") => return Ok(Command::Patch(args.to_vec())),
        Some("create") if crate::cmd::create_job::is_create_job(args) => {
            return Ok(Command::CreateJob(args.to_vec()))
        }
        Some("create") if crate::cmd::create_more::is_generator(args) => {
            return Ok(Command::CreateMore(args.to_vec()))
        }
        Some("rollout") => return Ok(Command::Rollout(args.to_vec())),
        Some("scale") => return Ok(Command::Scale(args.to_vec())),
        Some("autoscale") => return Ok(Command::Autoscale(args.to_vec())),
        Some("set") => return Ok(Command::Set(args.to_vec())),
        Some("logs") => return Ok(Command::Logs(args.to_vec())),
        Some("label") => {
            return Ok(Command::Label(
                args.to_vec(),
                crate::cmd::label::Target::Labels,
            ))
        }
        Some("expose") => return Ok(Command::Expose(args.to_vec())),
        Some("run") => return Ok(Command::Run(args.to_vec())),
        Some("version") => return Ok(Command::Version(args.to_vec())),
        Some("cluster-info") => return Ok(Command::ClusterInfo(args.to_vec())),
        Some("config") => return Ok(Command::Config(args.to_vec())),
        Some("events") => return Ok(Command::Events(args.to_vec())),
        Some("wait") => return Ok(Command::Wait(args.to_vec())),
        Some("top") => return Ok(Command::Top(args.to_vec())),
        Some("exec") => return Ok(Command::Exec(args.to_vec())),
        Some("attach") => return Ok(Command::Attach(args.to_vec())),
        Some("debug") => return Ok(Command::Debug(args.to_vec())),
        Some("port-forward") => return Ok(Command::PortForward(args.to_vec())),
        Some("edit") => return Ok(Command::Edit(args.to_vec())),
        Some("explain") => return Ok(Command::Explain(args.to_vec())),
        Some("annotate") => {
            return Ok(Command::Label(
                args.to_vec(),
                crate::cmd::label::Target::Annotations,
            ))
        }
        Some(c) if SUPPORTED.contains(&c) => {}
        Some(c) if KUBECTL_COMMANDS.contains(&c) => {
            return Err(CommandOutput::error(format!(
                "error: \"kubectl {c}\" is not available in this simulated cluster yet; it runs {}",
                SUPPORTED.join(", ")
            )));
        }
        Some(c) => return Err(CommandOutput::error(unknown_command(c))),
    }
    let root = match Root::try_parse_from(args) {
        Ok(r) => r,
        Err(e) => return Err(clap_error(e, command.as_deref(), args)),
    };
    let ns = root.namespace;
    Ok(match root.command {
        None => Command::Help(root_help()),
        Some(Sub::Apply(mut a)) => {
            a.namespace = ns;
            Command::Apply(a)
        }
        Some(Sub::Get(mut g)) => {
            g.namespace = ns;
            Command::Get(g)
        }
        Some(Sub::Delete(mut d)) => {
            d.namespace = ns;
            Command::Delete(d)
        }
        Some(Sub::Create(mut c)) => {
            c.namespace = ns;
            Command::Create(c)
        }
        Some(Sub::Replace(mut r)) => {
            r.namespace = ns;
            Command::Replace(r)
        }
    })
}

/// The first argument that is not a flag (nor the value of `-n`).
fn first_positional(args: &[String]) -> Option<String> {
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "-n" || a == "--namespace" {
            i += 2;
            continue;
        }
        if a == "--" {
            return args.get(i + 1).cloned();
        }
        if a.starts_with('-') && a.len() > 1 {
            i += 1;
            continue;
        }
        return Some(a.clone());
    }
    None
}

/// cobra's error for a command it does not know, with its suggestions
/// (Levenshtein distance at most 2, or a prefix).
pub fn unknown_command(c: &str) -> String {
    let lower = c.to_lowercase();
    let mut suggestions: Vec<&str> = Vec::new();
    // cobra adds `help` after the suggestions are computed: it is never offered.
    for cmd in KUBECTL_COMMANDS.iter().copied().filter(|c| *c != "help") {
        if levenshtein(&lower, cmd) <= 2 || cmd.starts_with(&lower) {
            suggestions.push(cmd);
        }
        if SUGGEST_FOR
            .iter()
            .any(|(c, word)| *c == cmd && *word == lower)
        {
            suggestions.push(cmd);
        }
    }
    let mut msg = format!("error: unknown command \"{c}\" for \"kubectl\"");
    if !suggestions.is_empty() {
        msg.push_str("\n\nDid you mean this?\n");
        for s in suggestions {
            msg.push('\t');
            msg.push_str(s);
            msg.push('\n');
        }
    }
    msg
}

fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn root_help() -> String {
    "kubectl controls the Kubernetes cluster manager.\n\
     \n\
     This simulated cluster understands these commands:\n\
     \x20 apply         Apply a configuration to a resource by file name or stdin\n\
     \x20 get           Display one or many resources\n\
     \x20 delete        Delete resources by file names, stdin, resources and names, or by resources and label selector\n\
     \n\
     Usage:\n\
     \x20 kubectl [flags] [options]\n\
     \n\
     Use \"kubectl <command> --help\" for more information about a given command.\n"
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        shell_words::split(line).unwrap()
    }

    fn err(line: &str) -> String {
        match parse(&args(line)) {
            Err(out) => out.stderr,
            Ok(_) => panic!("{line} parsed"),
        }
    }

    #[test]
    fn unknown_commands_read_like_cobra() {
        assert_eq!(
            err("frobnicate"),
            "error: unknown command \"frobnicate\" for \"kubectl\"\n"
        );
        // cobra suggests every command within Levenshtein distance 2.
        assert_eq!(
            err("foo"),
            "error: unknown command \"foo\" for \"kubectl\"\n\nDid you mean this?\n\ttop\n"
        );
        assert_eq!(
            err("gett pods"),
            "error: unknown command \"gett\" for \"kubectl\"\n\nDid you mean this?\n\tset\n\tget\n"
        );
    }

    #[test]
    fn suggestions_follow_kubectl_order_as_kubectl_1_33_prints_them() {
        assert_eq!(
            err("rm x"),
            "error: unknown command \"rm\" for \"kubectl\"\n\nDid you mean this?\n\trun\n\tdelete\n\tcp\n"
        );
        assert_eq!(
            err("ap"),
            "error: unknown command \"ap\" for \"kubectl\"\n\nDid you mean this?\n\ttop\n\tcp\n\tapply\n\tapi-versions\n\tapi-resources\n"
        );
        assert_eq!(
            err("hel"),
            "error: unknown command \"hel\" for \"kubectl\"\n\nDid you mean this?\n\tset\n\tget\n"
        );
        assert_eq!(
            err("opt"),
            "error: unknown command \"opt\" for \"kubectl\"\n\nDid you mean this?\n\tset\n\tget\n\ttop\n\tcp\n\toptions\n"
        );
    }

    #[test]
    fn flag_errors_read_like_pflag() {
        assert_eq!(
            err("get pods --foo"),
            "error: unknown flag: --foo\nSee 'kubectl get --help' for usage.\n"
        );
        assert_eq!(
            err("get pods -z"),
            "error: unknown shorthand flag: 'z' in -z\nSee 'kubectl get --help' for usage.\n"
        );
        assert_eq!(
            err("get pods -n"),
            "error: flag needs an argument: 'n' in -n\nSee 'kubectl get --help' for usage.\n"
        );
        assert_eq!(
            err("get pods --namespace"),
            "error: flag needs an argument: --namespace\nSee 'kubectl get --help' for usage.\n"
        );
    }

    #[test]
    fn namespace_flag_works_before_and_after_the_command() {
        for line in [
            "-n kube-system get pods",
            "get pods -n kube-system",
            "get pods --namespace=kube-system",
        ] {
            match parse(&args(line)).ok().unwrap() {
                Command::Get(g) => {
                    assert_eq!(g.namespace.as_deref(), Some("kube-system"), "{line}")
                }
                _ => panic!(),
            }
        }
    }

    #[test]
    fn real_commands_not_simulated_yet_say_so() {
        assert!(
            err("cp web:/etc/hosts ./hosts").contains("not available in this simulated cluster")
        );
    }
}

/// lessons/README.md tells authors what the simulator runs; these keep it true.
#[cfg(test)]
mod authors_list {
    use super::{KUBECTL_COMMANDS, SUPPORTED};
    use std::collections::BTreeSet;
    use warehouse_sim::Kind;

    const README: &str = include_str!("../../../lessons/README.md");

    /// The comma-separated words between `start` and `end`, one paragraph
    /// reflowed.
    fn listed(start: &str, end: &str) -> BTreeSet<String> {
        let text = README.split_whitespace().collect::<Vec<_>>().join(" ");
        let from = text
            .find(start)
            .unwrap_or_else(|| panic!("{start:?} is not in lessons/README.md"))
            + start.len();
        let to = from
            + text[from..]
                .find(end)
                .unwrap_or_else(|| panic!("{end:?} does not follow {start:?}"));
        text[from..to]
            .split(',')
            .map(|w| w.trim().trim_end_matches('.').to_string())
            .filter(|w| !w.is_empty())
            .collect()
    }

    #[test]
    fn the_kubectl_commands_an_author_reads_of_are_those_that_run() {
        let runs = listed("**kubectl commands the simulator runs**:", "`create` makes");
        let want: BTreeSet<String> = SUPPORTED.iter().map(|s| s.to_string()).collect();
        assert_eq!(runs, want);
        let not = listed("the simulator lacks them):", ". Nor");
        let want: BTreeSet<String> = KUBECTL_COMMANDS
            .iter()
            .filter(|c| !SUPPORTED.contains(c) && **c != "help")
            .map(|s| s.to_string())
            .collect();
        assert_eq!(not, want);
    }

    #[test]
    fn the_kinds_an_author_reads_of_are_those_that_run() {
        let acts = listed("**Kinds the simulation acts on**:", "- **Kinds stored");
        let stored = listed("nothing runs them):", "- **Not simulated");
        let kinds = |simulated: bool| -> BTreeSet<String> {
            Kind::ALL
                .iter()
                .filter(|k| k.info().simulated == simulated)
                .map(|k| k.info().kind.to_string())
                .collect()
        };
        assert_eq!(acts, kinds(true));
        assert_eq!(stored, kinds(false));
    }
}
