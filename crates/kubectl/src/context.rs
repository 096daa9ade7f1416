//! What every command needs besides the cluster: its output (`CommandOutput`), where
//! `-f` reads from (`FileSource`), the `Context` of the session it runs in, and the
//! session's only doors to the cluster: a write is one `Request` (`send`,
//! `create_generated`), a read passes `Cluster::authorize_read` first (`authorize`,
//! `get`, `list`). It names no command.

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
    cluster.handle(Request::new(&ctx.credentials, body).field_manager(ctx.field_manager.as_deref()))
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

/// A server-side apply of `obj` as `manager` (`force`: `--force-conflicts`).
pub(crate) fn send_apply(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    obj: Object,
    manager: &str,
    force: bool,
    dry_run: bool,
) -> Result<Object, ApiError> {
    cluster.handle(
        Request::new(&ctx.credentials, Body::Apply(obj))
            .dry_run(dry_run)
            .field_manager(Some(manager))
            .force(force),
    )
}

/// [`send`] as a server-side dry run when `dry_run` is set.
pub(crate) fn send_dry(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    body: Body,
    dry_run: bool,
) -> Result<Object, ApiError> {
    cluster.handle(
        Request::new(&ctx.credentials, body)
            .dry_run(dry_run)
            .field_manager(ctx.field_manager.as_deref()),
    )
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
    /// The field manager the command's writes name (`--field-manager`, or the
    /// command's default; `None`: the user agent's, `kubectl`).
    pub field_manager: Option<String>,
    /// Whether `--field-manager` was given.
    pub field_manager_flag: bool,
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
