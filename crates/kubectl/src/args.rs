//! What the commands share with the grammar (`cli.rs`): the commands the real kubectl
//! has and those the simulator runs, the flags clap parses for `apply`, `create`,
//! `replace`, `get` and `delete`, and kubectl's wording for flag mistakes. It names no
//! command, so the commands and the grammar both build on it.

use crate::context::CommandOutput;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{ArgAction, Args};

/// Commands the simulator runs.
pub(crate) const SUPPORTED: &[&str] = &[
    "annotate",
    "api-resources",
    "apply",
    "attach",
    "auth",
    "autoscale",
    "cluster-info",
    "config",
    "cordon",
    "create",
    "debug",
    "delete",
    "describe",
    "drain",
    "edit",
    "events",
    "exec",
    "explain",
    "expose",
    "get",
    "label",
    "logs",
    "patch",
    "port-forward",
    "replace",
    "rollout",
    "run",
    "scale",
    "set",
    "taint",
    "top",
    "uncordon",
    "version",
    "wait",
];

/// Every top-level command of the real kubectl (1.33), in the order kubectl
/// registers them: cobra offers "Did you mean this?" suggestions in this order.
/// Also tells "not in the simulator yet" apart from "no such command".
pub(crate) const KUBECTL_COMMANDS: &[&str] = &[
    "create",
    "expose",
    "run",
    "set",
    "explain",
    "get",
    "edit",
    "delete",
    "rollout",
    "scale",
    "autoscale",
    "certificate",
    "cluster-info",
    "top",
    "cordon",
    "uncordon",
    "drain",
    "taint",
    "describe",
    "logs",
    "attach",
    "exec",
    "port-forward",
    "proxy",
    "cp",
    "auth",
    "debug",
    "events",
    "diff",
    "apply",
    "patch",
    "replace",
    "wait",
    "kustomize",
    "label",
    "annotate",
    "completion",
    "config",
    "plugin",
    "version",
    "api-versions",
    "api-resources",
    "options",
    "help",
];

/// Whether `word` is one of the real kubectl's top-level commands.
pub(crate) fn is_kubectl_command(word: &str) -> bool {
    KUBECTL_COMMANDS.contains(&word)
}

#[derive(Args, Debug, Default, Clone)]
pub struct ApplyArgs {
    /// The files that contain the configurations to apply ('-' for stdin)
    #[arg(short = 'f', long = "filename", value_name = "FILENAME")]
    pub filenames: Vec<String>,
    /// Output format. One of: name
    /// Process the directory used in -f, --filename recursively.
    #[arg(short = 'R', long = "recursive")]
    pub recursive: bool,
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<String>,
    /// Must be "none", "server", or "client". If client strategy, only print the object that would be sent, without sending it. If server strategy, submit server-side request without persisting the resource.
    #[arg(long = "dry-run", value_name = "STRATEGY", num_args = 0..=1, require_equals = true, default_missing_value = "client")]
    pub dry_run: Option<String>,
    /// If true, apply runs in the server instead of the client.
    #[arg(long = "server-side", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub server_side: bool,
    /// If true, server-side apply will force the changes against conflicts.
    #[arg(long = "force-conflicts", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub force_conflicts: bool,
    /// Arguments kubectl apply does not take
    #[arg(hide = true)]
    pub args: Vec<String>,
    #[arg(skip)]
    pub namespace: Option<String>,
}

#[derive(Args, Debug, Default, Clone)]
pub struct CreateArgs {
    /// Filename, directory, or URL to files to use to create the resource
    #[arg(short = 'f', long = "filename", value_name = "FILENAME")]
    pub filenames: Vec<String>,
    /// Output format. One of: name
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<String>,
    /// What to create (`namespace NAME`)
    pub args: Vec<String>,
    #[arg(skip)]
    pub namespace: Option<String>,
}

#[derive(Args, Debug, Default, Clone)]
pub struct ReplaceArgs {
    /// The files that contain the configurations to replace
    #[arg(short = 'f', long = "filename", value_name = "FILENAME")]
    pub filenames: Vec<String>,
    /// Output format. One of: name
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<String>,
    /// Arguments kubectl replace does not take
    #[arg(hide = true)]
    pub args: Vec<String>,
    #[arg(skip)]
    pub namespace: Option<String>,
}

#[derive(Args, Debug, Default, Clone)]
pub struct GetArgs {
    /// TYPE[.VERSION][.GROUP] [NAME ...], or TYPE/NAME ...
    pub args: Vec<String>,
    /// List the requested object(s) across all namespaces
    #[arg(short = 'A', long = "all-namespaces", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub all_namespaces: bool,
    /// Output format. One of: (json, yaml, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file, custom-columns, custom-columns-file, wide)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<String>,
    /// Selector (label query) to filter on, e.g. -l key1=value1,key2=value2
    #[arg(short = 'l', long = "selector", value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// When printing, show all labels as the last column
    #[arg(long = "show-labels", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub show_labels: bool,
    /// If true, keep the managedFields when printing objects in JSON or YAML format.
    #[arg(long = "show-managed-fields", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub show_managed_fields: bool,
    /// Accepts a comma separated list of labels that are going to be presented as columns. Names are case-sensitive. You can also use multiple flag options like -L label1 -L label2...
    #[arg(short = 'L', long = "label-columns", value_name = "LABELS", value_delimiter = ',', action = ArgAction::Append)]
    pub label_columns: Vec<String>,
    /// When using the default output format, don't print headers
    #[arg(long = "no-headers", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub no_headers: bool,
    /// If the requested object does not exist the command will return exit code 0
    #[arg(long = "ignore-not-found", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub ignore_not_found: bool,
    /// After listing/getting the requested object, watch for changes
    #[arg(short = 'w', long = "watch", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub watch: bool,
    /// Raw URI to request from the server (e.g. /readyz?verbose)
    #[arg(long = "raw", value_name = "URI")]
    pub raw: Option<String>,
    /// Template string or path to template file to use when -o=go-template, -o=go-template-file.
    #[arg(long = "template", value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// If true, ignore any errors in templates when a field or map key is missing in the template. Only applies to golang and jsonpath output formats.
    #[arg(long = "allow-missing-template-keys", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "true")]
    pub allow_missing_template_keys: bool,
    /// If non-empty, sort list types using this field specification (a JSONPath expression).
    #[arg(long = "sort-by", value_name = "FIELD")]
    pub sort_by: Option<String>,
    /// Selector (field query) to filter on, supports '=', '==', and '!='.
    #[arg(long = "field-selector", value_name = "SELECTOR")]
    pub field_selector: Option<String>,
    /// Watch for changes to the requested object(s), without listing/getting first.
    #[arg(long = "watch-only", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub watch_only: bool,
    /// Output watch event objects when --watch or --watch-only is used. Existing objects are output as initial ADDED events.
    #[arg(long = "output-watch-events", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub output_watch_events: bool,
    /// How long a watch runs in simulated time (default 60s; 0 also means 60s here).
    #[arg(long = "request-timeout", value_name = "DURATION")]
    pub request_timeout: Option<String>,
    #[arg(skip)]
    pub namespace: Option<String>,
}

#[derive(Args, Debug, Default, Clone)]
pub struct DeleteArgs {
    /// TYPE NAME ..., or TYPE/NAME ...
    pub args: Vec<String>,
    /// The files that contain the resources to delete ('-' for stdin)
    #[arg(short = 'f', long = "filename", value_name = "FILENAME")]
    pub filenames: Vec<String>,
    /// Selector (label query) to filter on
    #[arg(short = 'l', long = "selector", value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Selector (field query) to filter on, supports '=', '==', and '!='.(e.g. --field-selector key1=value1,key2=value2). The server only supports a limited number of field queries per type.
    #[arg(long = "field-selector", value_name = "SELECTOR")]
    pub field_selector: Option<String>,
    /// Delete all resources of the given types in the namespace
    #[arg(long = "all", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub all: bool,
    /// Period of time in seconds given to the resource to terminate gracefully
    #[arg(long = "grace-period", default_value_t = -1, allow_negative_numbers = true)]
    pub grace_period: i64,
    /// Immediately remove resources from the API and bypass graceful deletion
    #[arg(long = "force", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub force: bool,
    /// Signal the resource for immediate shutdown (same as --grace-period=1)
    #[arg(long = "now", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub now: bool,
    /// Treat "resource not found" as a successful delete
    #[arg(long = "ignore-not-found", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub ignore_not_found: bool,
    /// Must be "background", "orphan", or "foreground". Selects the deletion cascading strategy for the dependents (e.g. Pods created by a ReplicationController). Defaults to background.
    #[arg(long = "cascade", num_args = 0..=1, require_equals = true, default_missing_value = "background", default_value = "background")]
    pub cascade: String,
    /// Output mode. Use "-o name" for shorter output (resource/name)
    #[arg(short = 'o', long = "output", value_name = "FORMAT")]
    pub output: Option<String>,
    /// If true, wait for resources to be gone before returning. This waits for finalizers.
    #[arg(long = "wait", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "true")]
    pub wait: bool,
    /// The length of time to wait before giving up on a delete, zero means determine a timeout from the size of the object
    #[arg(long = "timeout", default_value = "0s")]
    pub timeout: String,
    #[arg(skip)]
    pub namespace: Option<String>,
}

/// pflag's wording for flag mistakes, plus kubectl's pointer to the help.
pub(crate) fn clap_error(e: clap::Error, command: Option<&str>, args: &[String]) -> CommandOutput {
    let path = match command {
        Some(c) => format!("kubectl {c}"),
        None => "kubectl".to_string(),
    };
    let invalid_arg = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let message = match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            return CommandOutput {
                stdout: e.render().to_string(),
                ..CommandOutput::default()
            };
        }
        ErrorKind::UnknownArgument => {
            let arg = invalid_arg.unwrap_or_default();
            let arg = arg.split('=').next().unwrap_or("").to_string();
            if arg.starts_with("--") {
                format!("error: unknown flag: {arg}")
            } else {
                let letter = arg.trim_start_matches('-').chars().next().unwrap_or('?');
                let token = args
                    .iter()
                    .find(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(letter))
                    .cloned()
                    .unwrap_or(arg.clone());
                format!("error: unknown shorthand flag: '{letter}' in {token}")
            }
        }
        ErrorKind::InvalidValue | ErrorKind::NoEquals
            if args.last().is_some_and(|a| a.starts_with('-')) =>
        {
            let last = args.last().cloned().unwrap_or_default();
            if last.starts_with("--") {
                format!("error: flag needs an argument: {last}")
            } else {
                let letter = last.trim_start_matches('-').chars().last().unwrap_or('?');
                format!("error: flag needs an argument: '{letter}' in {last}")
            }
        }
        _ => {
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or("").trim();
            let first = first.strip_prefix("error: ").unwrap_or(first);
            format!("error: {first}")
        }
    };
    CommandOutput::error(format!("{message}\nSee '{path} --help' for usage."))
}
