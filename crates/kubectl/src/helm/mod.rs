//! `helm`, the package manager, as a learner meets Helm v3 in the terminal:
//! `install`, `upgrade` (`--install`), `rollback`, `uninstall`, `list`, `history`,
//! `status`, `get values|manifest`, `template`, `show values|chart`, `repo list`
//! and `search repo`, over the charts bundled as the repository `warehouse`
//! ([`charts`]). Output and errors follow Helm's `pkg/cmd/*.go` and
//! `pkg/action/*.go`; releases are stored in the cluster as Helm stores them
//! ([`release`]), and every resource goes through the apiserver like `kubectl
//! apply`, so the floor shows it being created.
//!
//! Bad input (an unknown chart or flag, a bad `--set`, a template error, a
//! resource the apiserver refuses) gets Helm's message and leaves the cluster as
//! it was: everything is rendered and checked (a server-side dry run of each
//! object) before the first write.

pub(crate) mod charts;
pub(crate) mod release;
pub(crate) mod values;

use crate::context::{CommandOutput, Context, FileSource};
use crate::Session;
use release::Release;
use serde_json::Value;
use warehouse_sim::apiserver::request::{Body, Credentials};
use warehouse_sim::{Kind, Object, ObjectKey, SimDuration, SimTime};

/// The label and annotations Helm puts on everything it installs
/// (`pkg/action/validate.go`).
pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
pub const RELEASE_NAME: &str = "meta.helm.sh/release-name";
pub const RELEASE_NAMESPACE: &str = "meta.helm.sh/release-namespace";

/// The subcommands, for Tab completion.
pub const SUBCOMMANDS: &[&str] = &[
    "get",
    "history",
    "install",
    "list",
    "repo",
    "rollback",
    "search",
    "show",
    "status",
    "template",
    "uninstall",
    "upgrade",
];

const USAGE: &str = "The Kubernetes package manager

Usage:
  helm [command]

Available Commands (simulated):
  get         download extended information of a named release (values, manifest)
  history     fetch release history
  install     install a chart
  list        list releases
  repo        list chart repositories (the bundled repository \"warehouse\")
  rollback    roll back a release to a previous revision
  search      search for a keyword in charts (search repo)
  show        show information of a chart (values, chart)
  status      display the status of the named release
  template    locally render templates
  uninstall   uninstall a release
  upgrade     upgrade a release

Flags:
  -n, --namespace string   namespace scope for this request
";

/// `warehouse/NAME` for each bundled chart (Tab completion).
pub fn chart_references() -> Vec<String> {
    charts::CHARTS
        .iter()
        .map(|c| format!("{}/{}", charts::REPOSITORY, c.name))
        .collect()
}

/// The releases stored in `namespace` (Tab completion).
pub fn release_names(session: &Session, namespace: &str) -> Vec<String> {
    let mut names: Vec<String> = release::all(&session.cluster, Some(namespace))
        .into_iter()
        .map(|r| r.name)
        .collect();
    names.dedup();
    names
}

/// Whether a `helm` command line (the words after `helm`) only reads: `list`,
/// `history`, `status`, `get`, `template`, `show`, `search`, `repo list` (what
/// a lesson's check may run).
pub fn reads(args: &[String]) -> bool {
    let first = args
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(String::as_str);
    matches!(
        first,
        Some(
            "list"
                | "ls"
                | "history"
                | "hist"
                | "status"
                | "get"
                | "template"
                | "show"
                | "search"
                | "repo"
        )
    ) && !args
        .iter()
        .any(|a| a == "add" || a == "remove" || a == "update")
}

/// The flags one command line gave.
#[derive(Default)]
struct Flags {
    namespace: Option<String>,
    /// `--set` and `--set-string` in order (true: string).
    sets: Vec<(String, bool)>,
    values_files: Vec<String>,
    create_namespace: bool,
    dry_run: bool,
    wait: bool,
    timeout: Option<String>,
    install: bool,
    keep_history: bool,
    all: bool,
    all_namespaces: bool,
    reuse_values: bool,
    revision: Option<String>,
    version: Option<String>,
    positional: Vec<String>,
}

/// Which flags a command takes, by long name (a short form is listed after `:`).
fn allowed(command: &str) -> &'static [&'static str] {
    match command {
        "install" => &[
            "namespace:n",
            "set",
            "set-string",
            "values:f",
            "create-namespace",
            "dry-run",
            "wait",
            "timeout",
            "version",
        ],
        // and every flag of install (see `flags_of`).
        "upgrade" => &["install:i", "reuse-values"],
        "template" => &["namespace:n", "set", "set-string", "values:f", "version"],
        "rollback" => &["namespace:n", "dry-run", "wait", "timeout"],
        "uninstall" => &["namespace:n", "keep-history", "dry-run"],
        "list" => &["namespace:n", "all:a", "all-namespaces:A"],
        "history" | "get manifest" => &["namespace:n", "revision"],
        "status" => &["namespace:n", "revision"],
        "get values" => &["namespace:n", "revision", "all:a"],
        "show" => &["version"],
        _ => &["namespace:n"],
    }
}

const BOOL_FLAGS: &[&str] = &[
    "create-namespace",
    "dry-run",
    "wait",
    "install",
    "keep-history",
    "all",
    "all-namespaces",
    "reuse-values",
];

/// The flags of a command: `upgrade` takes install's and its own.
fn flags_of(command: &str) -> Vec<&'static str> {
    let mut flags = allowed(command).to_vec();
    if command == "upgrade" {
        flags.extend(allowed("install"));
    }
    flags
}

fn parse_flags(command: &str, args: &[String]) -> Result<Flags, String> {
    let allow = flags_of(command);
    let long_of = |short: char| -> Option<&'static str> {
        allow.iter().find_map(|a| {
            let (long, s) = a.split_once(':')?;
            (s.len() == 1 && s.starts_with(short)).then_some(long)
        })
    };
    let takes = |long: &str| allow.iter().any(|a| a.split(':').next() == Some(long));
    let mut f = Flags::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let (long, inline) = if let Some(rest) = arg.strip_prefix("--") {
            if rest.is_empty() {
                f.positional.extend(args[i..].iter().cloned());
                break;
            }
            match rest.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (rest.to_string(), None),
            }
        } else if let Some(rest) = arg.strip_prefix('-').filter(|r| !r.is_empty()) {
            let c = rest.chars().next().unwrap_or('-');
            let Some(long) = long_of(c) else {
                return Err(format!("unknown shorthand flag: '{c}' in {arg}"));
            };
            let tail = &rest[c.len_utf8()..];
            let inline = (!tail.is_empty()).then(|| tail.trim_start_matches('=').to_string());
            (long.to_string(), inline)
        } else {
            f.positional.push(arg.clone());
            continue;
        };
        if !takes(&long) {
            return Err(format!("unknown flag: --{long}"));
        }
        if BOOL_FLAGS.contains(&long.as_str()) {
            let on = match inline.as_deref() {
                None | Some("true") => true,
                Some("false") => false,
                // Helm 3.13+ takes `--dry-run=client|server` too.
                Some("client" | "server") if long == "dry-run" => true,
                Some(other) => {
                    return Err(format!(
                        "invalid argument \"{other}\" for \"--{long}\" flag: strconv.ParseBool: parsing \"{other}\": invalid syntax"
                    ))
                }
            };
            match long.as_str() {
                "create-namespace" => f.create_namespace = on,
                "dry-run" => f.dry_run = on,
                "wait" => f.wait = on,
                "install" => f.install = on,
                "keep-history" => f.keep_history = on,
                "all" => f.all = on,
                "all-namespaces" => f.all_namespaces = on,
                _ => f.reuse_values = on,
            }
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => match args.get(i) {
                Some(v) => {
                    i += 1;
                    v.clone()
                }
                None => return Err(format!("flag needs an argument: --{long}")),
            },
        };
        match long.as_str() {
            "namespace" => f.namespace = Some(value),
            "set" => f.sets.push((value, false)),
            "set-string" => f.sets.push((value, true)),
            "values" => f.values_files.push(value),
            "timeout" => f.timeout = Some(value),
            "revision" => f.revision = Some(value),
            _ => f.version = Some(value),
        }
    }
    Ok(f)
}

/// Runs one `helm` command line (the words after `helm`).
pub(crate) fn run(session: &mut Session, args: &[String], files: &dyn FileSource) -> CommandOutput {
    let mut out = CommandOutput::new();
    match dispatch(session, args, files, &mut out) {
        Ok(()) => out,
        Err(e) => {
            out.err_line(format!("Error: {e}"));
            out.code = 1;
            out
        }
    }
}

/// Helm's argument checks (`pkg/cmd/require/args.go`): `min == max` is
/// `ExactArgs`, `max == usize::MAX` is `MinimumNArgs`.
fn need_args(command: &str, usage: &str, f: &Flags, min: usize, max: usize) -> Result<(), String> {
    let n = f.positional.len();
    let plural = |k: usize| if k == 1 { "argument" } else { "arguments" };
    let problem = if min == max && n != min {
        format!("requires {min} {}", plural(min))
    } else if n < min {
        format!("requires at least {min} {}", plural(min))
    } else if n > max {
        format!("accepts at most {max} {}", plural(max))
    } else {
        return Ok(());
    };
    Err(format!(
        "\"helm {command}\" {problem}\n\nUsage:  helm {usage}"
    ))
}

/// `helm install` and `helm template` with a third argument (`pkg/cmd/install.go`).
fn at_most_two(f: &Flags) -> Result<(), String> {
    if f.positional.len() > 2 {
        return Err(format!(
            "expected at most two arguments, unexpected arguments: {}",
            f.positional[2..].join(", ")
        ));
    }
    Ok(())
}

fn dispatch(
    session: &mut Session,
    args: &[String],
    files: &dyn FileSource,
    out: &mut CommandOutput,
) -> Result<(), String> {
    let Some(first) = args.first() else {
        out.out_line(USAGE.trim_end());
        return Ok(());
    };
    let mut command = match first.as_str() {
        "ls" => "list".to_string(),
        "un" | "delete" | "del" => "uninstall".to_string(),
        "hist" => "history".to_string(),
        "help" | "-h" | "--help" => {
            out.out_line(USAGE.trim_end());
            return Ok(());
        }
        other => other.to_string(),
    };
    let mut rest = &args[1..];
    if matches!(command.as_str(), "get" | "repo" | "search" | "show") {
        let sub = rest.first().map(String::as_str).unwrap_or("");
        command = match (command.as_str(), sub) {
            ("get", "values" | "manifest") => format!("get {sub}"),
            ("repo", "list" | "ls") => "repo list".into(),
            ("search", "repo") => "search repo".into(),
            ("show" | "inspect", "values" | "chart") => format!("show {sub}"),
            (c, "") => return Err(format!("\"helm {c}\" requires a subcommand")),
            (c, s) => {
                return Err(format!(
                    "unknown command \"{s}\" for \"helm {c}\" (this simulated helm has {})",
                    match c {
                        "get" => "get values and get manifest",
                        "repo" => "repo list: the bundled repository \"warehouse\" is the only one",
                        "search" => "search repo",
                        _ => "show values and show chart",
                    }
                ))
            }
        };
        rest = &rest[1..];
    }
    if !SUBCOMMANDS.contains(&command.split(' ').next().unwrap_or("")) {
        return Err(format!(
            "unknown command \"{first}\" for \"helm\"\nRun 'helm --help' for usage."
        ));
    }
    let flag_set = if command.starts_with("show") {
        "show"
    } else {
        command.as_str()
    };
    let f = parse_flags(flag_set, rest)?;
    // Commands that only read the bundled repository need no cluster.
    match command.as_str() {
        "repo list" => return repo_list(&f, out),
        "search repo" => return search_repo(&f, out),
        "show values" | "show chart" => return show(&command, &f, out),
        "template" => return template(session, &f, files, out),
        _ => {}
    }
    if session.cluster.connect().is_err() {
        return Err("Kubernetes cluster unreachable: Get \"https://127.0.0.1:6443/version\": dial tcp 127.0.0.1:6443: connect: connection refused".into());
    }
    let namespace = f
        .namespace
        .clone()
        .unwrap_or_else(|| session.namespace.clone());
    let ctx = Context {
        stdin: None,
        files,
        default_namespace: namespace.clone(),
        credentials: Credentials::admin(),
        field_manager: Some("helm".to_string()),
        field_manager_flag: false,
    };
    let mut h = Helm {
        session,
        ctx,
        namespace,
        out,
    };
    match command.as_str() {
        "install" => h.install(&f),
        "upgrade" => h.upgrade(&f),
        "rollback" => h.rollback(&f),
        "uninstall" => h.uninstall(&f),
        "list" => h.list(&f),
        "history" => h.history(&f),
        "status" => h.status(&f),
        "get values" => h.get_values(&f),
        _ => h.get_manifest(&f),
    }
}

// ----- tables -----

/// gosuri/uitable as Helm uses it: every cell padded to its column's width (the
/// last one too), cells joined by a tab, cells longer than `max_width` cut with
/// `...`.
fn uitable(rows: &[Vec<String>], max_width: usize) -> String {
    let cut = |s: &str| -> String {
        if s.chars().count() <= max_width {
            s.to_string()
        } else {
            let keep: String = s.chars().take(max_width.saturating_sub(3)).collect();
            format!("{keep}...")
        }
    };
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|c| cut(c)).collect())
        .collect();
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let lines: Vec<String> = rows
        .iter()
        .map(|r| {
            r.iter()
                .enumerate()
                .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
                .collect::<Vec<_>>()
                .join("\t")
        })
        .collect();
    lines.join("\n")
}

/// Go's `time.ANSIC` (`Mon Jan  2 15:04:05 2006`), in UTC.
fn ansic(t: SimTime) -> String {
    t.to_k8s().0.strftime("%a %b %e %H:%M:%S %Y").to_string()
}

/// Go's `time.Time.String()` in UTC: `2006-01-02 15:04:05.999999999 +0000 UTC`
/// (trailing zeros of the fraction dropped).
fn go_time_string(t: SimTime) -> String {
    let base = t.to_k8s().0.strftime("%Y-%m-%d %H:%M:%S").to_string();
    let ms = t.0 % 1000;
    let frac = if ms == 0 {
        String::new()
    } else {
        format!(".{:03}", ms).trim_end_matches('0').to_string()
    };
    format!("{base}{frac} +0000 UTC")
}

fn repo_list(f: &Flags, out: &mut CommandOutput) -> Result<(), String> {
    if !f.positional.is_empty() {
        return Err(format!(
            "unknown command \"{}\" for \"helm repo list\"",
            f.positional[0]
        ));
    }
    let rows = vec![
        vec!["NAME".to_string(), "URL".to_string()],
        vec![
            charts::REPOSITORY.to_string(),
            charts::REPOSITORY_URL.to_string(),
        ],
    ];
    out.out_line(uitable(&rows, usize::MAX));
    Ok(())
}

fn search_repo(f: &Flags, out: &mut CommandOutput) -> Result<(), String> {
    let keyword = f.positional.join(" ").to_lowercase();
    let mut rows = vec![vec![
        "NAME".to_string(),
        "CHART VERSION".into(),
        "APP VERSION".into(),
        "DESCRIPTION".into(),
    ]];
    for c in charts::CHARTS {
        let full = format!("{}/{}", charts::REPOSITORY, c.name);
        if keyword.is_empty()
            || full.to_lowercase().contains(&keyword)
            || c.description().to_lowercase().contains(&keyword)
        {
            rows.push(vec![full, c.version(), c.app_version(), c.description()]);
        }
    }
    if rows.len() == 1 {
        out.out_line("No results found");
        return Ok(());
    }
    out.out_line(uitable(&rows, 50));
    Ok(())
}

fn show(command: &str, f: &Flags, out: &mut CommandOutput) -> Result<(), String> {
    let usage = format!("{command} [CHART] [flags]");
    need_args(command, &usage, f, 1, 1)?;
    let chart = charts::find(&f.positional[0], f.version.as_deref())?;
    let text = if command == "show values" {
        chart.file("values.yaml")
    } else {
        chart.file("Chart.yaml")
    };
    out.stdout.push_str(text);
    if !text.ends_with('\n') {
        out.stdout.push('\n');
    }
    Ok(())
}

/// The user's values: `-f` files in order, then each `--set`.
fn user_values(f: &Flags, files: &dyn FileSource) -> Result<Value, String> {
    let mut user = Value::Object(Default::default());
    for name in &f.values_files {
        let text = files
            .read(name)
            .map_err(|_| format!("open {name}: no such file or directory"))?;
        let v = values::parse_file(name, &text)?;
        values::merge(&mut user, &v);
    }
    for (set, strings) in &f.sets {
        values::parse_set(set, *strings, &mut user)?;
    }
    Ok(user)
}

/// Helm's release name check (`pkg/chartutil/validate_name.go`).
fn check_name(name: &str) -> Result<(), String> {
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if name.is_empty() || name.len() > 53 || !name.split('.').all(label_ok) {
        return Err(format!(
            "release name \"{name}\": invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53"
        ));
    }
    Ok(())
}

fn template(
    session: &Session,
    f: &Flags,
    files: &dyn FileSource,
    out: &mut CommandOutput,
) -> Result<(), String> {
    need_args(
        "template",
        "template [NAME] [CHART] [flags]",
        f,
        1,
        usize::MAX,
    )?;
    at_most_two(f)?;
    let (name, chart_ref) = match f.positional.as_slice() {
        [chart] => ("release-name".to_string(), chart.clone()),
        [name, chart, ..] => (name.clone(), chart.clone()),
        _ => unreachable!("need_args checked the count"),
    };
    let namespace = f
        .namespace
        .clone()
        .unwrap_or_else(|| session.namespace.clone());
    let chart = charts::find(&chart_ref, f.version.as_deref())?;
    let user = user_values(f, files)?;
    let merged = values::coalesce(&chart.values(), &user);
    let rendered = release::render(chart, &merged, &name, &namespace, 1, false)?;
    decode(&rendered.manifest, &namespace)?;
    out.stdout.push_str(&rendered.manifest);
    Ok(())
}

/// The objects of a manifest, namespaced ones without a namespace put in
/// `namespace` (as Helm's kube client does), or Helm's error for one it cannot
/// build.
fn decode(manifest: &str, namespace: &str) -> Result<Vec<Object>, String> {
    let mut objects = warehouse_sim::decode_manifests(manifest).map_err(|e| {
        format!(
            "unable to build kubernetes objects from release manifest: error validating \"\": {}",
            e.message
        )
    })?;
    for o in &mut objects {
        if o.kind().namespaced() && o.namespace().is_empty() {
            o.meta_mut().namespace = Some(namespace.to_string());
        }
    }
    Ok(objects)
}

/// The status printer (`pkg/cmd/status.go`): what install, upgrade and status
/// print.
fn print_status(out: &mut CommandOutput, r: &Release, dry_run: bool) {
    out.out_line(format!("NAME: {}", r.name));
    out.out_line(format!("LAST DEPLOYED: {}", ansic(r.last_deployed)));
    out.out_line(format!("NAMESPACE: {}", r.namespace));
    out.out_line(format!("STATUS: {}", r.status));
    out.out_line(format!("REVISION: {}", r.version));
    out.out_line("TEST SUITE: None");
    if dry_run {
        out.out_line("HOOKS:");
        out.out_line(format!("MANIFEST:\n{}", r.manifest));
    }
    if !r.notes.trim().is_empty() {
        out.out_line(format!("NOTES:\n{}", r.notes.trim()));
    }
}

/// One helm command against the cluster.
struct Helm<'a, 'b> {
    session: &'a mut Session,
    ctx: Context<'b>,
    namespace: String,
    out: &'a mut CommandOutput,
}

/// What an install or upgrade is about to write.
struct Plan {
    chart: &'static charts::Chart,
    user: Value,
    objects: Vec<Object>,
    rendered: release::Rendered,
}

impl Helm<'_, '_> {
    fn now(&self) -> SimTime {
        self.session.cluster.now()
    }

    fn history_of(&self, name: &str) -> Vec<Release> {
        release::history(&self.session.cluster, &self.namespace, name)
    }

    /// Renders the chart for the release `name` at `revision`.
    fn plan(
        &self,
        f: &Flags,
        chart_ref: &str,
        name: &str,
        revision: i64,
        previous_config: Option<&Value>,
    ) -> Result<Plan, String> {
        let chart = charts::find(chart_ref, f.version.as_deref())?;
        let mut user = user_values(f, self.ctx.files)?;
        if let (true, Some(prev)) = (f.reuse_values, previous_config) {
            let mut base = prev.clone();
            values::merge(&mut base, &user);
            user = base;
        }
        let merged = values::coalesce(&chart.values(), &user);
        let rendered = release::render(
            chart,
            &merged,
            name,
            &self.namespace,
            revision,
            revision > 1,
        )?;
        let objects = decode(&rendered.manifest, &self.namespace)?;
        Ok(Plan {
            chart,
            user,
            objects,
            rendered,
        })
    }

    fn namespace_exists(&self) -> bool {
        self.session
            .cluster
            .get(Kind::Namespace, "", &self.namespace)
            .is_ok()
    }

    /// Helm's ownership check (`pkg/action/validate.go`): an object that exists
    /// must carry this release's label and annotations.
    fn check_ownership(&self, name: &str, objects: &[Object], action: &str) -> Result<(), String> {
        for o in objects {
            let Ok(live) = self.session.cluster.get(o.kind(), o.namespace(), o.name()) else {
                continue;
            };
            let meta = live.meta();
            let label = meta.labels.as_ref().and_then(|l| l.get(MANAGED_BY));
            let ann = |k: &str| meta.annotations.as_ref().and_then(|a| a.get(k)).cloned();
            let mut problems = Vec::new();
            let mut check = |what: &str, key: &str, have: Option<String>, want: &str| {
                match have {
                None => problems.push(format!("{what} validation error: missing key \"{key}\": must be set to \"{want}\"")),
                Some(h) if h != want => problems.push(format!(
                    "{what} validation error: key \"{key}\" must equal \"{want}\": current value is \"{h}\""
                )),
                _ => {}
            }
            };
            check("label", MANAGED_BY, label.cloned(), "Helm");
            check("annotation", RELEASE_NAME, ann(RELEASE_NAME), name);
            check(
                "annotation",
                RELEASE_NAMESPACE,
                ann(RELEASE_NAMESPACE),
                &self.namespace,
            );
            if !problems.is_empty() {
                let ns = if o.namespace().is_empty() {
                    String::new()
                } else {
                    format!(" in namespace \"{}\"", o.namespace())
                };
                return Err(format!(
                    "rendered manifests contain a resource that already exists. Unable to continue with {action}: {} \"{}\"{ns} exists and cannot be imported into the current release: invalid ownership metadata; {}",
                    o.kind().as_str(),
                    o.name(),
                    problems.join("; ")
                ));
            }
        }
        Ok(())
    }

    /// A server-side dry run of every write, before the first real one.
    fn dry_run_all(&mut self, name: &str, objects: &[Object]) -> Result<(), String> {
        for o in objects {
            let body = match self.session.cluster.get(o.kind(), o.namespace(), o.name()) {
                Ok(live) => match self.patched(name, &live, None, o) {
                    Some(p) => Body::patch(p),
                    None => continue,
                },
                Err(_) => Body::Create(owned(o, name, &self.namespace)),
            };
            crate::context::send_dry(&mut self.session.cluster, &self.ctx, body, true)
                .map_err(|e| api_error(o, &e))?;
        }
        Ok(())
    }

    /// The live object patched towards `target` (three-way, with `original` the
    /// object as the previous revision rendered it), or None when nothing changes.
    fn patched(
        &self,
        name: &str,
        live: &Object,
        original: Option<&Object>,
        target: &Object,
    ) -> Option<Object> {
        let current = live.to_json();
        let modified = owned(target, name, &self.namespace).to_json();
        let original = original.map(|o| owned(o, name, &self.namespace).to_json());
        let merged = crate::cmd::merge::three_way(&current, original.as_ref(), &modified);
        if merged == current {
            return None;
        }
        Object::from_json(live.kind(), merged).ok()
    }

    fn store(&mut self, r: &Release, created: SimTime, modified: bool) -> Result<(), String> {
        let secret = r.to_secret(created, modified.then(|| self.now()));
        let exists = self
            .session
            .cluster
            .get(Kind::Secret, &r.namespace, &r.secret_name())
            .is_ok();
        let body = if exists {
            Body::Update(secret)
        } else {
            Body::Create(secret)
        };
        crate::context::send(&mut self.session.cluster, &self.ctx, body)
            .map(|_| ())
            .map_err(|e| {
                let verb = if exists { "update" } else { "create" };
                format!("{verb}: failed to {verb}: {}", e.message)
            })
    }

    /// Writes the release's objects: creates the new, patches the existing and,
    /// on an upgrade, deletes what the new revision no longer has.
    fn apply(&mut self, name: &str, objects: &[Object], previous: &[Object]) -> Result<(), String> {
        for o in objects {
            let original = previous.iter().find(|p| same(p, o));
            let body = match self.session.cluster.get(o.kind(), o.namespace(), o.name()) {
                Ok(live) => match self.patched(name, &live, original, o) {
                    Some(p) => Body::patch(p),
                    None => continue,
                },
                Err(_) => Body::Create(owned(o, name, &self.namespace)),
            };
            crate::context::send(&mut self.session.cluster, &self.ctx, body)
                .map_err(|e| api_error(o, &e))?;
        }
        let mut gone: Vec<&Object> = previous
            .iter()
            .filter(|p| !objects.iter().any(|o| same(o, p)))
            .collect();
        gone.sort_by_key(|o| std::cmp::Reverse(release::install_rank(o.kind().as_str())));
        for o in gone {
            self.delete(o);
        }
        Ok(())
    }

    fn delete(&mut self, o: &Object) {
        let body = Body::Delete {
            key: ObjectKey::new(o.kind(), o.namespace(), o.name()),
            options: None,
        };
        // A resource already gone is skipped, as Helm's delete does.
        let _ = crate::context::send(&mut self.session.cluster, &self.ctx, body);
    }

    /// `--wait`: simulated time runs, a second at a time, until every Deployment
    /// and StatefulSet of the release has its replicas ready, or `--timeout`.
    fn wait(&mut self, f: &Flags, objects: &[Object]) -> Result<(), String> {
        if !f.wait {
            return Ok(());
        }
        let timeout = match f.timeout.as_deref() {
            None => SimDuration::secs(300),
            Some(t) => warehouse_sim::parse_duration(t)
                .map_err(|_| format!("invalid argument \"{t}\" for \"--timeout\" flag: time: invalid duration \"{t}\""))?,
        };
        let timeout = crate::context::bounded_wait(timeout, self.out);
        let deadline = self.now() + timeout;
        loop {
            if objects.iter().all(|o| self.ready(o)) {
                return Ok(());
            }
            if self.now() >= deadline {
                return Err("context deadline exceeded".into());
            }
            self.session.cluster.advance(SimDuration::secs(1));
        }
    }

    fn ready(&self, o: &Object) -> bool {
        if !matches!(o.kind(), Kind::Deployment | Kind::StatefulSet) {
            return true;
        }
        let Ok(live) = self.session.cluster.get(o.kind(), o.namespace(), o.name()) else {
            return false;
        };
        let v = live.to_json();
        let want = v
            .pointer("/spec/replicas")
            .and_then(Value::as_i64)
            .unwrap_or(1);
        let ready = v
            .pointer("/status/readyReplicas")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let updated = v
            .pointer("/status/updatedReplicas")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        ready >= want && updated >= want
    }

    /// A new revision of the release `name` from a rendered chart.
    fn revision(
        &self,
        name: &str,
        version: i64,
        plan: &Plan,
        status: &str,
        first_deployed: SimTime,
    ) -> Release {
        Release {
            name: name.to_string(),
            namespace: self.namespace.clone(),
            version,
            chart: plan.chart.name.to_string(),
            chart_version: plan.chart.version(),
            app_version: plan.chart.app_version(),
            config: plan.user.clone(),
            manifest: plan.rendered.manifest.clone(),
            notes: plan.rendered.notes.clone(),
            status: status.to_string(),
            description: String::new(),
            first_deployed,
            last_deployed: self.now(),
        }
    }

    /// Records how a revision ended: `deployed` with the description `done`, or
    /// `failed` with `failed(error)`, returning the error.
    fn settle(
        &mut self,
        r: &mut Release,
        created: SimTime,
        waited: Result<(), String>,
        done: &str,
        failed: impl FnOnce(&str) -> String,
    ) -> Result<(), String> {
        r.last_deployed = self.now();
        let result = match waited {
            Ok(()) => {
                r.status = "deployed".into();
                r.description = done.to_string();
                Ok(())
            }
            Err(e) => {
                r.status = "failed".into();
                r.description = failed(&e);
                Err(e)
            }
        };
        self.store(r, created, true)?;
        result
    }

    fn install(&mut self, f: &Flags) -> Result<(), String> {
        self.install_as(f, "INSTALLATION FAILED")
    }

    /// An install; `failed` prefixes its errors (`helm install` wraps them in
    /// `INSTALLATION FAILED`, `helm upgrade --install` does not).
    fn install_as(&mut self, f: &Flags, failed: &str) -> Result<(), String> {
        let wrap = |e: String| {
            if failed.is_empty() {
                e
            } else {
                format!("{failed}: {e}")
            }
        };
        need_args(
            "install",
            "install [NAME] [CHART] [flags]",
            f,
            1,
            usize::MAX,
        )?;
        at_most_two(f).map_err(wrap)?;
        if f.positional.len() == 1 {
            return Err(wrap(
                "must either provide a name or specify --generate-name".into(),
            ));
        }
        let name = f.positional[0].clone();
        check_name(&name).map_err(wrap)?;
        let plan = self
            .plan(f, &f.positional[1], &name, 1, None)
            .map_err(wrap)?;
        if !self.history_of(&name).is_empty() {
            return Err(wrap("cannot re-use a name that is still in use".into()));
        }
        let now = self.now();
        let mut r = self.revision(&name, 1, &plan, "pending-install", now);
        r.description = "Initial install underway".into();
        if f.dry_run {
            r.description = "Dry run complete".into();
            print_status(self.out, &r, true);
            return Ok(());
        }
        let create_ns = !self.namespace_exists();
        if create_ns && !f.create_namespace {
            return Err(wrap(format!(
                "create: failed to create: namespaces \"{}\" not found",
                self.namespace
            )));
        }
        if !create_ns {
            self.check_ownership(&name, &plan.objects, "install")
                .map_err(wrap)?;
            self.dry_run_all(&name, &plan.objects).map_err(wrap)?;
        } else {
            let ns = Object::from_json(
                Kind::Namespace,
                serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.namespace}}),
            )
            .map_err(wrap)?;
            crate::context::send(&mut self.session.cluster, &self.ctx, Body::Create(ns))
                .map_err(|e| wrap(e.message))?;
            if let Err(e) = self.dry_run_all(&name, &plan.objects) {
                return Err(wrap(e));
            }
        }
        self.store(&r, now, false).map_err(wrap)?;
        self.apply(&name, &plan.objects, &[]).map_err(wrap)?;
        let waited = self.wait(f, &plan.objects);
        self.settle(&mut r, now, waited, "Install complete", |e| {
            format!("Release \"{name}\" failed: {e}")
        })
        .map_err(wrap)?;
        print_status(self.out, &r, false);
        Ok(())
    }

    fn upgrade(&mut self, f: &Flags) -> Result<(), String> {
        let wrap = |e: String| format!("UPGRADE FAILED: {e}");
        need_args("upgrade", "upgrade [RELEASE] [CHART] [flags]", f, 2, 2)?;
        let name = f.positional[0].clone();
        let history = self.history_of(&name);
        let Some(last) = history
            .iter()
            .rev()
            .find(|r| r.status == "deployed")
            .cloned()
        else {
            if f.install && history.is_empty() {
                self.out.out_line(format!(
                    "Release \"{name}\" does not exist. Installing it now."
                ));
                return self.install_as(f, "");
            }
            return Err(wrap(format!("\"{name}\" has no deployed releases")));
        };
        check_name(&name).map_err(wrap)?;
        let top = history.iter().map(|r| r.version).max().unwrap_or(0);
        let plan = self
            .plan(f, &f.positional[1], &name, top + 1, Some(&last.config))
            .map_err(wrap)?;
        let previous = decode(&last.manifest, &self.namespace).unwrap_or_default();
        let now = self.now();
        let mut r = self.revision(
            &name,
            top + 1,
            &plan,
            "pending-upgrade",
            last.first_deployed,
        );
        r.description = "Preparing upgrade".into();
        if f.dry_run {
            r.description = "Dry run complete".into();
            self.out.out_line(format!(
                "Release \"{name}\" has been upgraded. Happy Helming!"
            ));
            print_status(self.out, &r, true);
            return Ok(());
        }
        let new_objects: Vec<Object> = plan
            .objects
            .iter()
            .filter(|o| !previous.iter().any(|p| same(p, o)))
            .cloned()
            .collect();
        self.check_ownership(&name, &new_objects, "update")
            .map_err(wrap)?;
        self.dry_run_all(&name, &plan.objects).map_err(wrap)?;
        self.store(&r, now, false).map_err(wrap)?;
        self.apply(&name, &plan.objects, &previous).map_err(wrap)?;
        let mut old = last.clone();
        old.status = "superseded".into();
        self.store(&old, last.last_deployed, true).map_err(wrap)?;
        let waited = self.wait(f, &plan.objects);
        self.settle(&mut r, now, waited, "Upgrade complete", |e| {
            format!("Upgrade \"{name}\" failed: {e}")
        })
        .map_err(wrap)?;
        self.out.out_line(format!(
            "Release \"{name}\" has been upgraded. Happy Helming!"
        ));
        print_status(self.out, &r, false);
        Ok(())
    }

    fn rollback(&mut self, f: &Flags) -> Result<(), String> {
        need_args(
            "rollback",
            "rollback <RELEASE> [REVISION] [flags]",
            f,
            1,
            usize::MAX,
        )?;
        let name = f.positional[0].clone();
        let history = self.history_of(&name);
        let Some(current) = history.last().cloned() else {
            return Err("release: not found".into());
        };
        let target_version = match f.positional.get(1) {
            Some(v) => v
                .parse::<i64>()
                .map_err(|_| format!("invalid argument \"{v}\" for \"REVISION\": strconv.Atoi: parsing \"{v}\": invalid syntax"))?,
            None => 0,
        };
        let target_version = if target_version > 0 {
            target_version
        } else {
            current.version - 1
        };
        let Some(target) = history
            .iter()
            .find(|r| r.version == target_version)
            .cloned()
        else {
            return Err(format!("release has no {target_version} version"));
        };
        let now = self.now();
        let mut r = Release {
            version: current.version + 1,
            status: "pending-rollback".into(),
            description: format!("Rollback to {target_version}"),
            last_deployed: now,
            ..target.clone()
        };
        r.first_deployed = current.first_deployed;
        if f.dry_run {
            self.out.out_line("Rollback was a success! Happy Helming!");
            return Ok(());
        }
        let objects = decode(&target.manifest, &self.namespace)?;
        let deployed = history
            .iter()
            .rev()
            .find(|r| r.status == "deployed")
            .cloned();
        let previous = deployed
            .as_ref()
            .map(|d| decode(&d.manifest, &self.namespace).unwrap_or_default())
            .unwrap_or_default();
        self.dry_run_all(&name, &objects)?;
        self.store(&r, now, false)?;
        self.apply(&name, &objects, &previous)?;
        if let Some(mut d) = deployed {
            let at = d.last_deployed;
            d.status = "superseded".into();
            self.store(&d, at, true)?;
        }
        let waited = self.wait(f, &objects);
        let done = r.description.clone();
        self.settle(&mut r, now, waited, &done, |e| {
            format!("Rollback \"{name}\" failed: {e}")
        })
        .map_err(|e| format!("release {name} failed: {e}"))?;
        self.out.out_line("Rollback was a success! Happy Helming!");
        Ok(())
    }

    fn uninstall(&mut self, f: &Flags) -> Result<(), String> {
        need_args(
            "uninstall",
            "uninstall RELEASE_NAME [...] [flags]",
            f,
            1,
            usize::MAX,
        )?;
        for name in f.positional.clone() {
            let history = self.history_of(&name);
            let Some(last) = history.last().cloned() else {
                return Err(format!(
                    "uninstall: Release not loaded: {name}: release: not found"
                ));
            };
            if last.status == "uninstalled" {
                if !f.keep_history {
                    for r in &history {
                        self.delete_record(r);
                    }
                    continue;
                }
                return Err(format!("the release named \"{name}\" is already deleted"));
            }
            if f.dry_run {
                self.out.out_line(format!("release \"{name}\" uninstalled"));
                continue;
            }
            let mut objects = decode(&last.manifest, &self.namespace).unwrap_or_default();
            // UninstallOrder: InstallOrder reversed.
            objects.sort_by_key(|o| std::cmp::Reverse(release::install_rank(o.kind().as_str())));
            for o in &objects {
                self.delete(o);
            }
            if f.keep_history {
                let mut r = last.clone();
                r.status = "uninstalled".into();
                r.description = "Uninstallation complete".into();
                self.store(&r, last.last_deployed, true)?;
            } else {
                for r in &history {
                    self.delete_record(r);
                }
            }
            self.out.out_line(format!("release \"{name}\" uninstalled"));
        }
        Ok(())
    }

    fn delete_record(&mut self, r: &Release) {
        let body = Body::Delete {
            key: ObjectKey::new(Kind::Secret, &r.namespace, &r.secret_name()),
            options: None,
        };
        let _ = crate::context::send(&mut self.session.cluster, &self.ctx, body);
    }

    fn list(&mut self, f: &Flags) -> Result<(), String> {
        if !f.positional.is_empty() {
            return Err("\"helm list\" accepts no arguments\n\nUsage:  helm list [flags]".into());
        }
        let ns = (!f.all_namespaces).then_some(self.namespace.as_str());
        let all = release::all(&self.session.cluster, ns);
        let mut latest: Vec<&Release> = Vec::new();
        for r in &all {
            match latest.last_mut() {
                Some(l) if l.name == r.name && l.namespace == r.namespace => *l = r,
                _ => latest.push(r),
            }
        }
        let mut rows = vec![[
            "NAME",
            "NAMESPACE",
            "REVISION",
            "UPDATED",
            "STATUS",
            "CHART",
            "APP VERSION",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()];
        let mut shown: Vec<&Release> = latest
            .into_iter()
            .filter(|r| f.all || matches!(r.status.as_str(), "deployed" | "failed"))
            .collect();
        // action.List sorts by name.
        shown.sort_by(|a, b| a.name.cmp(&b.name));
        for r in shown {
            rows.push(vec![
                r.name.clone(),
                r.namespace.clone(),
                r.version.to_string(),
                go_time_string(r.last_deployed),
                r.status.clone(),
                format!("{}-{}", r.chart, r.chart_version),
                r.app_version.clone(),
            ]);
        }
        self.out.out_line(uitable(&rows, 60));
        Ok(())
    }

    fn one(&self, name: &str, revision: Option<&str>) -> Result<Release, String> {
        let history = self.history_of(name);
        let found = match revision {
            None => history.last().cloned(),
            Some(v) => {
                let n: i64 = v.parse().map_err(|_| {
                    format!("invalid argument \"{v}\" for \"--revision\" flag: strconv.ParseInt: parsing \"{v}\": invalid syntax")
                })?;
                history.into_iter().find(|r| r.version == n)
            }
        };
        found.ok_or_else(|| "release: not found".to_string())
    }

    fn history(&mut self, f: &Flags) -> Result<(), String> {
        need_args("history", "history RELEASE_NAME [flags]", f, 1, 1)?;
        let history = self.history_of(&f.positional[0]);
        if history.is_empty() {
            return Err("release: not found".into());
        }
        let mut rows = vec![[
            "REVISION",
            "UPDATED",
            "STATUS",
            "CHART",
            "APP VERSION",
            "DESCRIPTION",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()];
        for r in &history {
            rows.push(vec![
                r.version.to_string(),
                ansic(r.last_deployed),
                r.status.clone(),
                format!("{}-{}", r.chart, r.chart_version),
                r.app_version.clone(),
                r.description.clone(),
            ]);
        }
        self.out.out_line(uitable(&rows, 60));
        Ok(())
    }

    fn status(&mut self, f: &Flags) -> Result<(), String> {
        need_args("status", "status RELEASE_NAME [flags]", f, 1, 1)?;
        let r = self.one(&f.positional[0], f.revision.as_deref())?;
        print_status(self.out, &r, false);
        Ok(())
    }

    fn get_values(&mut self, f: &Flags) -> Result<(), String> {
        need_args("get values", "get values RELEASE_NAME [flags]", f, 1, 1)?;
        let r = self.one(&f.positional[0], f.revision.as_deref())?;
        let (title, v) = if f.all {
            let defaults = charts::by_name(&r.chart)
                .map(|c| c.values())
                .unwrap_or(Value::Null);
            ("COMPUTED VALUES:", values::coalesce(&defaults, &r.config))
        } else {
            ("USER-SUPPLIED VALUES:", r.config.clone())
        };
        self.out.out_line(title);
        let empty = v.as_object().is_some_and(|m| m.is_empty());
        if empty && !f.all {
            self.out.out_line("null");
        } else {
            self.out
                .stdout
                .push_str(&crate::printers::yaml::to_yaml(&v));
        }
        Ok(())
    }

    fn get_manifest(&mut self, f: &Flags) -> Result<(), String> {
        need_args("get manifest", "get manifest RELEASE_NAME [flags]", f, 1, 1)?;
        let r = self.one(&f.positional[0], f.revision.as_deref())?;
        self.out.out_line(&r.manifest);
        Ok(())
    }
}

/// Whether two objects are the same resource (kind, namespace, name).
fn same(a: &Object, b: &Object) -> bool {
    a.kind() == b.kind() && a.namespace() == b.namespace() && a.name() == b.name()
}

/// The object with Helm's ownership label and annotations.
fn owned(o: &Object, release: &str, namespace: &str) -> Object {
    let mut o = o.clone();
    let meta = o.meta_mut();
    meta.labels
        .get_or_insert_with(Default::default)
        .insert(MANAGED_BY.to_string(), "Helm".to_string());
    let annotations = meta.annotations.get_or_insert_with(Default::default);
    annotations.insert(RELEASE_NAME.to_string(), release.to_string());
    annotations.insert(RELEASE_NAMESPACE.to_string(), namespace.to_string());
    o
}

/// The apiserver's refusal of one object: Helm prints the API status's message as
/// Go's error text (`Deployment.apps "web" is invalid: ...`).
fn api_error(_o: &Object, e: &warehouse_sim::ApiError) -> String {
    e.message.clone()
}
