//! `kubectl config` (k8s.io/kubectl/pkg/cmd/config): `view`, `get-contexts`,
//! `current-context`, `use-context` and `set-context` on the session's simulated
//! kubeconfig, which starts as the `admin.conf` kubeadm writes (cluster
//! `kubernetes`, user `kubernetes-admin`, context `kubernetes-admin@kubernetes`).
//! The namespace of the current context is the session's default namespace.
//! Simplified: there is one cluster and one user, and a context naming another
//! cluster or user still reaches the simulated cluster as the administrator;
//! `view --raw`, `-o json|jsonpath` and the other subcommands are not simulated.

use crate::args::clap_error;
use crate::context::CommandOutput;
use clap::{ArgAction, Parser};
use serde_json::{json, Value};
use warehouse_sim::StableSort;

/// One kubeconfig context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KubeContext {
    pub name: String,
    pub cluster: String,
    pub user: String,
    pub namespace: Option<String>,
}

/// The session's kubeconfig: its contexts and the current one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kubeconfig {
    pub contexts: Vec<KubeContext>,
    /// The current context's name (empty: none).
    pub current: String,
}

impl Kubeconfig {
    /// The kubeconfig kubeadm writes to /etc/kubernetes/admin.conf.
    pub fn kubeadm() -> Kubeconfig {
        Kubeconfig {
            contexts: vec![KubeContext {
                name: "kubernetes-admin@kubernetes".into(),
                cluster: "kubernetes".into(),
                user: "kubernetes-admin".into(),
                namespace: None,
            }],
            current: "kubernetes-admin@kubernetes".into(),
        }
    }

    fn context(&self, name: &str) -> Option<&KubeContext> {
        self.contexts.iter().find(|c| c.name == name)
    }

    fn context_mut(&mut self, name: &str) -> Option<&mut KubeContext> {
        self.contexts.iter_mut().find(|c| c.name == name)
    }

    /// The namespace commands default to under the current context.
    pub fn namespace(&self) -> String {
        self.context(&self.current)
            .and_then(|c| c.namespace.clone())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "default".to_string())
    }

    /// `config view` as YAML: certificate data shown as `DATA+OMITTED`.
    fn view(&self, minify: bool) -> Value {
        let contexts: Vec<&KubeContext> = if minify {
            self.context(&self.current).into_iter().collect()
        } else {
            self.contexts.iter().collect()
        };
        let contexts: Vec<Value> = contexts
            .iter()
            .map(|c| {
                let mut ctx = json!({"cluster": c.cluster, "user": c.user});
                if let Some(ns) = &c.namespace {
                    ctx["namespace"] = json!(ns);
                }
                json!({"context": ctx, "name": c.name})
            })
            .collect();
        json!({
            "apiVersion": "v1",
            "clusters": [{
                "cluster": {
                    "certificate-authority-data": "DATA+OMITTED",
                    "server": crate::cmd::cluster_info::SERVER,
                },
                "name": "kubernetes",
            }],
            "contexts": contexts,
            "current-context": self.current,
            "kind": "Config",
            "preferences": {},
            "users": [{
                "name": "kubernetes-admin",
                "user": {
                    "client-certificate-data": "DATA+OMITTED",
                    "client-key-data": "DATA+OMITTED",
                },
            }],
        })
    }
}

#[derive(Parser, Debug)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct ConfigArgs {
    /// `config`, the subcommand, then its arguments.
    words: Vec<String>,
    #[arg(long = "namespace")]
    namespace: Option<String>,
    #[arg(long = "cluster")]
    cluster: Option<String>,
    #[arg(long = "user")]
    user: Option<String>,
    #[arg(long = "current", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    current: bool,
    #[arg(long = "minify", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    minify: bool,
    #[arg(long = "raw", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    raw: bool,
    #[arg(long = "no-headers", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    no_headers: bool,
    #[arg(short = 'o', long = "output")]
    output: Option<String>,
}

const SUBCOMMANDS: &[&str] = &[
    "current-context",
    "delete-cluster",
    "delete-context",
    "delete-user",
    "get-clusters",
    "get-contexts",
    "get-users",
    "rename-context",
    "set",
    "set-cluster",
    "set-context",
    "set-credentials",
    "unset",
    "use-context",
    "view",
];

/// Runs `kubectl config ...`; `namespace` is the session's default namespace,
/// kept equal to the current context's.
pub(crate) fn run(
    config: &mut Kubeconfig,
    namespace: &mut String,
    args: &[String],
) -> CommandOutput {
    let parsed = match ConfigArgs::try_parse_from(args) {
        Ok(p) => p,
        Err(e) => return clap_error(e, Some("config"), args),
    };
    let words: Vec<&str> = parsed.words.iter().skip(1).map(String::as_str).collect();
    let Some((&sub, rest)) = words.split_first() else {
        return CommandOutput::error(
            "error: kubectl config needs a subcommand: view, get-contexts, current-context, use-context, set-context\nSee 'kubectl config -h' for help and examples",
        );
    };
    let result = match sub {
        "view" => view(config, &parsed),
        "current-context" if config.current.is_empty() => {
            Err("error: current-context is not set".into())
        }
        "current-context" => {
            let mut out = CommandOutput::new();
            out.out_line(&config.current);
            Ok(out)
        }
        "get-contexts" => get_contexts(config, &parsed, rest),
        "use-context" => use_context(config, namespace, rest),
        "set-context" => set_context(config, namespace, &parsed, rest),
        other if SUBCOMMANDS.contains(&other) => Err(format!(
            "error: \"kubectl config {other}\" is not available in this simulated cluster yet; it runs view, get-contexts, current-context, use-context, set-context"
        )),
        other => Err(format!(
            "error: unknown command \"{other}\"\nSee 'kubectl config -h' for help and examples"
        )),
    };
    result.unwrap_or_else(CommandOutput::error)
}

/// `config view`: the kubeconfig as YAML (`--minify`: only what the current
/// context uses).
fn view(config: &Kubeconfig, parsed: &ConfigArgs) -> Result<CommandOutput, String> {
    if parsed.raw {
        return Err(
            "error: --raw is not available in this simulated cluster: its certificates are not real"
                .into(),
        );
    }
    match parsed.output.as_deref() {
        None | Some("") | Some("yaml") => {}
        Some(_) => {
            return Err("error: config view prints -o yaml only in this simulated cluster".into())
        }
    }
    if parsed.minify && config.context(&config.current).is_none() {
        return Err("error: current-context must exist in order to minify".into());
    }
    let mut out = CommandOutput::new();
    out.stdout
        .push_str(&crate::printers::yaml::to_yaml(&config.view(parsed.minify)));
    Ok(out)
}

/// `config get-contexts [NAME...]`: a table of the contexts (`-o name`: their
/// names), the current one marked `*`.
fn get_contexts(
    config: &Kubeconfig,
    parsed: &ConfigArgs,
    rest: &[&str],
) -> Result<CommandOutput, String> {
    let name_only = match parsed.output.as_deref() {
        None | Some("") => false,
        Some("name") => true,
        Some(o) => return Err(format!("error: output must be one of '' or 'name': {o}")),
    };
    let mut chosen: Vec<&KubeContext> = Vec::new();
    let mut missing = Vec::new();
    for name in rest {
        match config.context(name) {
            Some(c) => chosen.push(c),
            None => missing.push(format!("context {name} not found")),
        }
    }
    if rest.is_empty() {
        // kubectl sorts the context names.
        chosen = config.contexts.iter().collect();
        chosen.stable_sort_by(|a, b| a.name.cmp(&b.name));
    }
    let mut text = String::new();
    if !name_only && !parsed.no_headers {
        text.push_str("CURRENT\tNAME\tCLUSTER\tAUTHINFO\tNAMESPACE\n");
    }
    for c in chosen {
        if name_only {
            text.push_str(&c.name);
            text.push('\n');
            continue;
        }
        let mark = if c.name == config.current { "*" } else { "" };
        text.push_str(&format!(
            "{mark}\t{}\t{}\t{}\t{}\n",
            c.name,
            c.cluster,
            c.user,
            c.namespace.as_deref().unwrap_or("")
        ));
    }
    let mut out = CommandOutput::new();
    // printers.GetNewTabWriter: minwidth 6, padding 3.
    out.stdout
        .push_str(&crate::printers::tabwriter::align(&text, 6, 3));
    match missing.len() {
        0 => {}
        1 => out.fail(format!("error: {}", missing[0])),
        _ => out.fail(format!("error: [{}]", missing.join(", "))),
    }
    Ok(out)
}

/// `config use-context NAME`: switches the current context (and the session's
/// namespace with it).
fn use_context(
    config: &mut Kubeconfig,
    namespace: &mut String,
    rest: &[&str],
) -> Result<CommandOutput, String> {
    let Some(name) = rest.first() else {
        return Err("error: Unexpected args: []".into());
    };
    if config.context(name).is_none() {
        return Err(format!(
            "error: no context exists with the name: \"{name}\""
        ));
    }
    config.current = name.to_string();
    *namespace = config.namespace();
    let mut out = CommandOutput::new();
    out.out_line(format!("Switched to context \"{name}\"."));
    Ok(out)
}

/// `config set-context (NAME | --current) [--cluster] [--user] [--namespace]`:
/// creates or modifies a context.
fn set_context(
    config: &mut Kubeconfig,
    namespace: &mut String,
    parsed: &ConfigArgs,
    rest: &[&str],
) -> Result<CommandOutput, String> {
    let name = match (rest.first(), parsed.current) {
        (Some(_), true) => {
            return Err("error: you cannot specify both a context name and --current".into())
        }
        (None, false) => {
            return Err("error: you must specify a non-empty context name or --current".into())
        }
        (Some(n), false) => n.to_string(),
        (None, true) => {
            if config.current.is_empty() {
                return Err("error: no current context is set".into());
            }
            config.current.clone()
        }
    };
    let exists = config.context(&name).is_some();
    if !exists {
        config.contexts.push(KubeContext {
            name: name.clone(),
            cluster: String::new(),
            user: String::new(),
            namespace: None,
        });
    }
    if let Some(c) = config.context_mut(&name) {
        if let Some(v) = &parsed.cluster {
            c.cluster = v.clone();
        }
        if let Some(v) = &parsed.user {
            c.user = v.clone();
        }
        if let Some(v) = &parsed.namespace {
            c.namespace = Some(v.clone()).filter(|n| !n.is_empty());
        }
    }
    if name == config.current {
        *namespace = config.namespace();
    }
    let verb = if exists { "modified" } else { "created" };
    let mut out = CommandOutput::new();
    out.out_line(format!("Context \"{name}\" {verb}."));
    Ok(out)
}
