//! `warehouse-kubectl`: the kubectl command line for the simulated cluster.
//!
//! [`Session::run`] takes one kubectl command line (without the leading `kubectl`),
//! runs it against the [`Cluster`] and returns what kubectl would print, split into
//! stdout and stderr, with kubectl's exit code. Everything here is pure: files come
//! through a [`FileSource`], time only moves when the caller advances the cluster.
//!
//! The [`shell::script`] module runs whole scripts (`kubectl ...` and `sim ...` lines)
//! and produces transcripts; each line runs in the small bash of the [`shell`] module
//! (variables, `$(...)`, quoting, `echo`, `curl` and the other laptop tools of
//! [`shell::outside`]), which the web terminal uses too ([`Session::run_shell`]).
//!
//! Folders: [`cmd`] holds one file per kubectl command, [`printers`] how objects are
//! printed (tables, `-o json|yaml|jsonpath|go-template`, ages), [`shell`] the bash,
//! the script runner, the laptop's tools and Tab completion.

mod cli;
pub mod cmd;
mod errors;
#[doc(hidden)]
pub mod fuzzing;
pub mod printers;
pub mod selector;
pub mod shell;

pub use cmd::explain::provide_data as provide_explain_data;
use cmd::{
    api_resources, apply, auth, cluster_info, config, cordon, create, create_job, create_more,
    delete, describe, drain, edit, events, exec, explain, expose, get, label, logs, rollout, run,
    scale, set, taint, top, version, wait,
};

use warehouse_sim::apiserver::request::{Body, Credentials, Request};
use warehouse_sim::{ApiError, Attributes, Cluster, Kind, Object, SimDuration};

/// Where `-f FILE` reads from. The CLI reads the disk (relative to the script's
/// folder); the web app has no files and only `-f -` works there.
pub trait FileSource {
    /// The text of the file at `path`, or a message saying why it cannot be read.
    fn read(&self, path: &str) -> Result<String, String>;

    /// When `path` is a directory: the manifest files in it (`.json`, `.yaml`, `.yml`,
    /// in lexical order, as kubectl's visitor walks them), with subdirectories when
    /// `recursive` (`-R`). `None` when `path` is not a directory.
    fn list_dir(&self, _path: &str, _recursive: bool) -> Option<Vec<String>> {
        None
    }
}

/// A [`FileSource`] without files: every path is missing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFiles;

impl FileSource for NoFiles {
    fn read(&self, path: &str) -> Result<String, String> {
        Err(format!("the path \"{path}\" does not exist"))
    }
}

/// A [`FileSource`] backed by an in-memory map of path to text; handy for tests and
/// for lessons that ship their manifests.
#[derive(Clone, Debug, Default)]
pub struct MemoryFiles(pub std::collections::BTreeMap<String, String>);

impl FileSource for MemoryFiles {
    fn read(&self, path: &str) -> Result<String, String> {
        let key = path.strip_prefix("./").unwrap_or(path);
        self.0
            .get(key)
            .cloned()
            .ok_or_else(|| format!("the path \"{path}\" does not exist"))
    }
}

/// What one command printed, and its exit code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommandOutput {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
    /// Where each stderr line was written relative to stdout: the stdout length at
    /// that moment and the line's span in stderr. Lets [`CommandOutput::combined`]
    /// show both streams in the order a terminal would.
    pub(crate) interleave: Vec<(usize, usize, usize)>,
}

impl CommandOutput {
    pub(crate) fn new() -> Self {
        CommandOutput::default()
    }

    /// Only an error message (a line that ends with a newline is added as is).
    pub fn error(message: impl AsRef<str>) -> Self {
        let mut out = CommandOutput::new();
        out.err_line(message);
        out.code = 1;
        out
    }

    pub(crate) fn out_line(&mut self, line: impl AsRef<str>) {
        push_line(&mut self.stdout, line.as_ref());
    }

    pub(crate) fn err_line(&mut self, line: impl AsRef<str>) {
        let (at_out, start) = (self.stdout.len(), self.stderr.len());
        push_line(&mut self.stderr, line.as_ref());
        self.interleave.push((at_out, start, self.stderr.len()));
    }

    /// Both streams as a terminal shows them: stderr lines where they were written
    /// (a server warning before the line reporting the write), any other stderr text
    /// after stdout.
    pub fn combined(&self) -> String {
        let mut out = String::with_capacity(self.stdout.len() + self.stderr.len());
        let mut out_pos = 0;
        let mut err_pos = 0;
        for &(at_out, start, end) in &self.interleave {
            if at_out < out_pos
                || start < err_pos
                || at_out > self.stdout.len()
                || end > self.stderr.len()
            {
                continue; // the streams were rewritten directly: fall back to the tail
            }
            out.push_str(&self.stdout[out_pos..at_out]);
            out_pos = at_out;
            // Text pushed to stderr directly before this line goes with it.
            out.push_str(&self.stderr[err_pos..end]);
            err_pos = end;
        }
        out.push_str(&self.stdout[out_pos..]);
        out.push_str(&self.stderr[err_pos..]);
        out
    }

    /// Records a failure: the message goes to stderr and the exit code becomes 1.
    pub(crate) fn fail(&mut self, message: impl AsRef<str>) {
        self.err_line(message);
        self.code = 1;
    }

    pub fn success(&self) -> bool {
        self.code == 0
    }
}

fn push_line(buf: &mut String, line: &str) {
    buf.push_str(line);
    if !line.ends_with('\n') {
        buf.push('\n');
    }
}

/// What kubectl prints when nothing answers on the apiserver's address (the server
/// in the kubeconfig this simulated kubectl uses).
pub const CONNECTION_REFUSED: &str =
    "The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?";

/// A kubectl "session": the cluster it talks to and the current namespace (what the
/// kubeconfig context would hold).
pub struct Session {
    pub cluster: Cluster,
    pub namespace: String,
    /// The simulated kubeconfig (`kubectl config`); its current context's namespace
    /// is `namespace`.
    pub kubeconfig: config::Kubeconfig,
    /// The shell around kubectl: variables, `$?`, running `kubectl proxy`es.
    pub shell: shell::ShellState,
}

/// What a kubectl command line would do, told without running it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// It only reads, and takes no simulated time: `get`, `describe`, `logs`, ...
    Reads,
    /// It writes, waits (moves simulated time) or changes the session.
    Changes,
}

/// Parses kubectl's arguments (without the program name) as the command would,
/// without running them: kubectl's own error text for a line it refuses, else
/// whether the command only reads.
pub fn kubectl_access(args: &[String]) -> Result<Access, String> {
    let (_, args) = cli::take_identity(args);
    let command = cli::parse(&args).map_err(|out| out.combined().trim_end().to_string())?;
    let word = |i: usize| {
        args.iter()
            .filter(|a| !a.starts_with('-'))
            .nth(i)
            .map(String::as_str)
    };
    let reads = match &command {
        cli::Command::Get(g) => !g.watch && !g.watch_only,
        cli::Command::Describe(_)
        | cli::Command::ApiResources(_)
        | cli::Command::Version(_)
        | cli::Command::ClusterInfo(_)
        | cli::Command::Top(_)
        | cli::Command::Explain(_)
        | cli::Command::Help(_) => true,
        cli::Command::Logs(a) | cli::Command::Events(a) => !a
            .iter()
            .any(|w| matches!(w.as_str(), "-f" | "--follow" | "-w" | "--watch")),
        cli::Command::Auth(_) => matches!(word(1), Some("can-i" | "whoami")),
        cli::Command::Config(_) => {
            matches!(word(1), Some("view" | "get-contexts" | "current-context"))
        }
        _ => false,
    };
    Ok(if reads {
        Access::Reads
    } else {
        Access::Changes
    })
}

impl Session {
    /// A session on `cluster` in the `default` namespace.
    pub fn new(cluster: Cluster) -> Session {
        Session {
            cluster,
            namespace: "default".to_string(),
            kubeconfig: config::Kubeconfig::kubeadm(),
            shell: shell::ShellState::default(),
        }
    }

    /// A session on a settled cluster of the default topology: nodes Ready and every
    /// kube-system pod Running, minutes old ([`warehouse_sim::SETTLE_TIME`]). What
    /// every entry point hands a learner (`warehouse run`, `warehouse repl`, the web
    /// app); a script's `sim boot cold` goes back to simulated second 0.
    pub fn settled(seed: u64) -> Session {
        Session::new(Cluster::settled(seed, warehouse_sim::Topology::default()))
    }

    /// Runs one kubectl command line, written without the leading `kubectl`
    /// (`get pods -o wide`). `stdin` is what `-f -` reads.
    pub fn run(
        &mut self,
        line: &str,
        stdin: Option<&str>,
        files: &dyn FileSource,
    ) -> CommandOutput {
        let args = match shell_words::split(line) {
            Ok(a) => a,
            Err(_) => {
                return CommandOutput::error("error: the command line has an unterminated quote")
            }
        };
        self.run_args(&args, stdin, files)
    }

    /// Runs one line of the shell around kubectl (`export POD=$(kubectl get pods
    /// -o name)`, `kubectl get pods`, `curl localhost:8001/version`, ...): what the
    /// terminal runs. Variables persist in the session between lines.
    pub fn run_shell(
        &mut self,
        line: &str,
        stdin: Option<&str>,
        files: &dyn FileSource,
    ) -> CommandOutput {
        shell::run_line(self, line, stdin, files)
    }

    /// Runs kubectl with already split arguments (without the program name).
    pub fn run_args(
        &mut self,
        args: &[String],
        stdin: Option<&str>,
        files: &dyn FileSource,
    ) -> CommandOutput {
        let (identity, args) = cli::take_identity(args);
        let command = match cli::parse(&args) {
            Ok(c) => c,
            Err(out) => return out,
        };
        // Everything but help talks to the apiserver, and nothing does when it is down.
        // `version` prints the client's version before it asks the server.
        // `config` only reads and writes the local kubeconfig.
        if let cli::Command::Config(a) = &command {
            return config::run(&mut self.kubeconfig, &mut self.namespace, a);
        }
        if !matches!(command, cli::Command::Help(_) | cli::Command::Version(_))
            && self.cluster.connect().is_err()
        {
            return CommandOutput::error(CONNECTION_REFUSED);
        }
        let credentials = match credentials(&identity) {
            Ok(c) => c,
            Err(out) => return out,
        };
        // Commands whose only request in this simulation is discovery (or the
        // server's version) meet the desk's authentication there; every other
        // command meets it with its first request, which the desk answers (and,
        // for a write, records at the gate that refused it).
        if matches!(
            command,
            cli::Command::ApiResources(_) | cli::Command::Explain(_) | cli::Command::Version(_)
        ) {
            if let Err(e) = self.cluster.authenticate_request(&credentials) {
                return CommandOutput::error(errors::render(&e, None));
            }
        }
        let ctx = Context {
            stdin,
            files,
            default_namespace: self.namespace.clone(),
            credentials,
        };
        match command {
            cli::Command::Help(text) => CommandOutput {
                stdout: text,
                ..CommandOutput::default()
            },
            cli::Command::Apply(a) => apply::run(&mut self.cluster, &ctx, a),
            cli::Command::Get(g) if (g.watch || g.watch_only) && g.raw.is_none() => {
                printers::getfmt::watch(&mut self.cluster, &ctx, &g)
            }
            cli::Command::Get(g) => get::run(&self.cluster, &ctx, g),
            cli::Command::Delete(d) => delete::run(&mut self.cluster, &ctx, d),
            cli::Command::ApiResources(a) => api_resources::run(&a),
            cli::Command::Auth(a) => auth::run(&self.cluster, &ctx, &a),
            cli::Command::Describe(a) => describe::run(&self.cluster, &ctx, &a),
            cli::Command::Cordon(a, on) => cordon::run(&mut self.cluster, &ctx, &a, on),
            cli::Command::Drain(a) => drain::run(&mut self.cluster, &ctx, &a),
            cli::Command::Taint(a) => taint::run(&mut self.cluster, &ctx, &a),
            cli::Command::Rollout(a) => rollout::run(&mut self.cluster, &ctx, &a),
            cli::Command::Scale(a) => scale::run(&mut self.cluster, &ctx, &a),
            cli::Command::Set(a) => set::run(&mut self.cluster, &ctx, &a),
            cli::Command::Logs(a) => logs::run(&self.cluster, &ctx, &a),
            cli::Command::Label(a, t) => label::run(&mut self.cluster, &ctx, &a, t),
            cli::Command::Expose(a) => expose::run(&mut self.cluster, &ctx, &a),
            cli::Command::Run(a) => run::run(&mut self.cluster, &ctx, &a),
            cli::Command::Version(a) => version::run(&self.cluster, &a),
            cli::Command::ClusterInfo(a) => cluster_info::run(&self.cluster, &ctx, &a),
            cli::Command::Events(a) => events::run(&self.cluster, &ctx, &a),
            cli::Command::Wait(a) => wait::run(&mut self.cluster, &ctx, &a),
            cli::Command::Top(a) => top::run(&self.cluster, &ctx, &a),
            cli::Command::Exec(a) => {
                let (out, inside) = exec::run(&mut self.cluster, &ctx, &a);
                if inside.is_some() {
                    self.shell.inside = inside;
                }
                out
            }
            cli::Command::CreateMore(a) => create_more::run(&mut self.cluster, &ctx, &a),
            cli::Command::Edit(a) => edit::run(&mut self.cluster, &ctx, &a),
            cli::Command::Explain(a) => explain::run(&a),
            cli::Command::Config(a) => config::run(&mut self.kubeconfig, &mut self.namespace, &a),
            cli::Command::Create(c) => create::create(&mut self.cluster, &ctx, c),
            cli::Command::Replace(r) => create::replace(&mut self.cluster, &ctx, r),
            cli::Command::CreateJob(a) => create_job::run(&mut self.cluster, &ctx, &a),
        }
    }
}

/// The credentials kubectl sends: `--token` (else the kubeconfig's own token) and
/// the impersonation headers of `--as` and `--as-group`. Who they name is for the
/// desk to decide ([`Cluster::authenticate_request`]).
fn credentials(id: &cli::Identity) -> Result<Credentials, CommandOutput> {
    let base = match &id.token {
        Some(t) => Credentials::token(t),
        None => Credentials::admin(),
    };
    match &id.as_user {
        None if id.as_groups.is_empty() => Ok(base),
        // client-go refuses impersonation headers without a user before sending.
        None => Err(CommandOutput::error(
            "error: requesting uid, groups or user-extra for  without impersonating a user",
        )),
        Some(user) => Ok(base.impersonating(user, &id.as_groups)),
    }
}

/// Authorizes one request of the session's caller: `Err` carries the apiserver's 403.
pub(crate) fn authorize(
    cluster: &Cluster,
    ctx: &Context<'_>,
    verb: &str,
    kind: Kind,
    namespace: &str,
    name: &str,
) -> Result<(), ApiError> {
    let a = Attributes::on(verb, kind, namespace, name);
    cluster.authorize_read(&ctx.credentials, &a).map(|_| ())
}

/// `get` of one object as the session's caller.
pub(crate) fn get(
    cluster: &Cluster,
    ctx: &Context<'_>,
    kind: Kind,
    namespace: &str,
    name: &str,
) -> Result<Object, ApiError> {
    authorize(cluster, ctx, "get", kind, namespace, name)?;
    cluster.get(kind, namespace, name)
}

/// `list` as the session's caller (all namespaces when `namespace` is None).
pub(crate) fn list(
    cluster: &Cluster,
    ctx: &Context<'_>,
    kind: Kind,
    namespace: Option<&str>,
) -> Result<Vec<Object>, ApiError> {
    Ok(list_refs(cluster, ctx, kind, namespace)?.cloned().collect())
}

/// [`list`] without copying: the objects as the store holds them, for commands that
/// read many objects while they wait (`rollout status`).
pub(crate) fn list_refs<'a>(
    cluster: &'a Cluster,
    ctx: &Context<'_>,
    kind: Kind,
    namespace: Option<&'a str>,
) -> Result<impl Iterator<Item = &'a Object> + 'a, ApiError> {
    authorize(cluster, ctx, "list", kind, namespace.unwrap_or(""), "")?;
    Ok(cluster.list_refs(kind, namespace))
}

/// A write as the session's caller, handled by the desk end to end.
pub(crate) fn send(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    body: Body,
) -> Result<Object, ApiError> {
    cluster.handle(Request::new(&ctx.credentials, body))
}

/// Sends an object a generator made (`run`, `expose`, `create deployment`, …) with
/// the suffix its dry-run flag chose: `""` creates it, `" (server dry run)"` sends a
/// server-side dry run, and `" (dry run)"` (client side) sends nothing: the object is
/// returned after the desk says the caller could create it.
pub(crate) fn create_generated(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    obj: Object,
    suffix: &str,
) -> Result<Object, ApiError> {
    if suffix == " (dry run)" {
        authorize(cluster, ctx, "create", obj.kind(), obj.namespace(), "")?;
        cluster.check_storage()?;
        return Ok(obj);
    }
    send_dry(cluster, ctx, Body::Create(obj), !suffix.is_empty())
}

/// [`send`] as a server-side dry run when `dry_run` is set.
pub(crate) fn send_dry(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    body: Body,
    dry_run: bool,
) -> Result<Object, ApiError> {
    cluster.handle(Request::new(&ctx.credentials, body).dry_run(dry_run))
}

/// The most simulated time one kubectl command lets pass while it waits (`wait`,
/// `rollout status`, `drain`, `delete`'s wait for the objects to go, `get -w`): an
/// hour, the longest the apiserver keeps a watch open (it closes each one within
/// twice `--min-request-timeout`, 1800 s). A longer `--timeout` is cut to it, with
/// a warning, so that no line typed in the terminal runs for simulated years.
pub const MAX_COMMAND_WAIT: SimDuration = SimDuration::secs(3600);

/// `asked`, cut to [`MAX_COMMAND_WAIT`]; a warning on `out` when it was cut.
pub(crate) fn bounded_wait(asked: SimDuration, out: &mut CommandOutput) -> SimDuration {
    if asked <= MAX_COMMAND_WAIT {
        return asked;
    }
    out.err_line(format!(
        "Warning: this simulated kubectl waits at most {} of simulated time in one command; the timeout of {} is cut to it",
        warehouse_sim::time::go_duration(MAX_COMMAND_WAIT),
        warehouse_sim::time::go_duration(asked)
    ));
    MAX_COMMAND_WAIT
}

/// What every command needs besides the cluster.
pub(crate) struct Context<'a> {
    pub stdin: Option<&'a str>,
    pub files: &'a dyn FileSource,
    pub default_namespace: String,
    /// What the requests present to the desk, which decides who they come from.
    pub credentials: Credentials,
}

impl Context<'_> {
    /// Reads `-f` sources: `-` is stdin, shown as `STDIN` in messages.
    ///
    /// A UTF-8 byte order mark at the start is dropped, as kubectl's file reader
    /// does (cli-runtime's `FileVisitor` decodes through `unicode.BOMOverride`):
    /// a manifest saved by a Windows editor applies like any other.
    pub fn read_source(&self, name: &str) -> Result<(String, String), String> {
        let (source, text) = if name == "-" {
            ("STDIN".to_string(), self.stdin.unwrap_or("").to_string())
        } else {
            self.files
                .read(name)
                .map(|text| (name.to_string(), text))
                .map_err(|e| format!("error: {e}"))?
        };
        match text.strip_prefix('\u{feff}') {
            Some(rest) => Ok((source, rest.to_string())),
            None => Ok((source, text)),
        }
    }
}

#[cfg(test)]
mod output_tests {
    use super::CommandOutput;

    #[test]
    fn combined_output_keeps_warnings_where_they_were_written() {
        let mut out = CommandOutput::new();
        out.out_line("a created");
        out.err_line("Warning: b");
        out.out_line("b created");
        out.stderr.push_str("trailing\n");
        assert_eq!(
            out.combined(),
            "a created\nWarning: b\nb created\ntrailing\n"
        );
        let plain = CommandOutput {
            stdout: "x\n".into(),
            stderr: "y\n".into(),
            ..CommandOutput::default()
        };
        assert_eq!(plain.combined(), "x\ny\n");
    }
}
