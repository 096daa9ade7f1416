//! The container runtime's processes: what a container does, from its image, command,
//! args and environment.
//!
//! Mirrors how containerd and runc start a container (the OCI process is the image's
//! ENTRYPOINT and CMD, replaced by the pod's `command` and `args`; kubelet expands
//! `$(VAR)` references first, as `kubecontainer.ExpandContainerCommandAndArgs`
//! does). Simplified: the process is a deterministic program. A shell runs in
//! `shell.rs`; the catalogue's other behaviours (`images::Behaviour`) are written
//! here. A process never runs step by step: [`replay`] recomputes its log from its start
//! up to a moment, and [`outcome`] says when (if ever) it exits, so the kubelet needs
//! one timer per process exit and none per log line.

use crate::kubelet::images::{self, Behaviour};
use crate::kubelet::shell::{self, End, Replay};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Commands a replay may run before it gives up looking for the exit.
pub const EXIT_SEARCH_BUDGET: u64 = 200_000;

/// How far ahead [`outcome`] looks for an exit: 30 days.
const HORIZON_MS: u64 = 30 * 24 * 3600 * 1000;

/// The variable the runtime puts first in every container's environment.
const PATH: (&str, &str) = (
    "PATH",
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
);

/// The variables the runtime puts last in every container's environment: the
/// kubernetes Service's (`enableServiceLinks`; only this Service's, a simplification)
/// and HOME.
const RUNTIME_TAIL: [(&str, &str); 9] = [
    ("KUBERNETES_SERVICE_HOST", "10.96.0.1"),
    ("KUBERNETES_SERVICE_PORT", "443"),
    ("KUBERNETES_SERVICE_PORT_HTTPS", "443"),
    ("KUBERNETES_PORT", "tcp://10.96.0.1:443"),
    ("KUBERNETES_PORT_443_TCP", "tcp://10.96.0.1:443"),
    ("KUBERNETES_PORT_443_TCP_PROTO", "tcp"),
    ("KUBERNETES_PORT_443_TCP_PORT", "443"),
    ("KUBERNETES_PORT_443_TCP_ADDR", "10.96.0.1"),
    ("HOME", "/root"),
];

/// A process's environment, in order. The runtime's own variables ([`PATH`] first,
/// [`RUNTIME_TAIL`] last) are not copied into each process: only what lies between
/// them (HOSTNAME and the container's `env`) is. A snapshot holds the whole list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Env {
    own: Vec<(String, String)>,
    /// Whether the runtime's variables surround `own`.
    runtime: bool,
}

impl Env {
    /// Exactly these variables, in order.
    pub fn of(vars: Vec<(String, String)>) -> Env {
        let n = vars.len();
        let tail = RUNTIME_TAIL.len();
        let surrounded = n > tail
            && vars
                .first()
                .is_some_and(|(k, v)| (k.as_str(), v.as_str()) == PATH)
            && vars[n - tail..]
                .iter()
                .zip(RUNTIME_TAIL)
                .all(|((k, v), (rk, rv))| k == rk && v == rv);
        if !surrounded {
            return Env {
                own: vars,
                runtime: false,
            };
        }
        let mut own = vars;
        own.truncate(n - tail);
        own.remove(0);
        own.shrink_to_fit();
        Env { own, runtime: true }
    }

    /// Only the runtime's variables, for a container the kubelet starts; its own go
    /// between them ([`Env::push_own`]).
    pub fn runtime() -> Env {
        Env {
            own: Vec::new(),
            runtime: true,
        }
    }

    /// Gives back the room no variable uses (a process keeps its environment as
    /// long as it is the latest of its container).
    pub fn shrink_to_fit(&mut self) {
        self.own.shrink_to_fit();
    }

    /// Every variable, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&str, &str)> + '_ {
        let head = self.runtime.then_some(PATH);
        let tail = if self.runtime { &RUNTIME_TAIL[..] } else { &[] };
        head.into_iter()
            .chain(self.own.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .chain(tail.iter().copied())
    }

    /// A variable's value (the last definition wins).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.iter().rev().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// A variable's value among PATH and `own`: what a container's `env` entry can
    /// reference (the runtime's last variables come after it).
    fn defined_before_tail(&self, name: &str) -> Option<&str> {
        lookup(&self.own, name).or_else(|| (self.runtime && name == PATH.0).then_some(PATH.1))
    }

    /// Adds a variable between PATH and the runtime's last ones, its `$(VAR)`
    /// references expanded against the variables before it.
    pub fn push_own(&mut self, name: String, value: &str) {
        let value = expand_env_refs(value, |n| self.defined_before_tail(n));
        self.own.push((name, value));
    }

    /// Adds a variable between PATH and the runtime's last ones as it is.
    pub fn push_own_raw(&mut self, name: String, value: String) {
        self.own.push((name, value));
    }

    /// The value of a variable the runtime puts before a container's own ones
    /// (PATH), which a container's `env` entry can reference.
    pub fn runtime_head(name: &str) -> Option<&'static str> {
        (name == PATH.0).then_some(PATH.1)
    }
}

/// The value of `name` in a list of variables (the last definition wins).
pub fn lookup<'e>(vars: &'e [(String, String)], name: &str) -> Option<&'e str> {
    vars.iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

impl Serialize for Env {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Env {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Env, D::Error> {
        Vec::<(String, String)>::deserialize(deserializer).map(Env::of)
    }
}

/// The files of a container's configMap and secret volumes over time: each version
/// holds from the simulated ms the kubelet wrote it on (`kubelet/volumes.rs`). Empty
/// for a container without such volumes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mounted {
    pub versions: Vec<(u64, std::sync::Arc<BTreeMap<String, String>>)>,
}

impl Mounted {
    pub fn is_empty(&self) -> bool {
        self.versions.is_empty()
    }

    /// The version the container sees at simulated ms `t` (the latest written by
    /// then).
    pub fn at(&self, t: u64) -> Option<usize> {
        self.versions
            .partition_point(|(from, _)| *from <= t)
            .checked_sub(1)
    }

    /// Adds what the kubelet wrote at `t`, unless it is what the latest version holds.
    /// Returns whether it was added.
    pub fn write(&mut self, t: u64, files: BTreeMap<String, String>) -> bool {
        if self.versions.last().is_some_and(|(_, f)| **f == files) {
            return false;
        }
        self.versions.push((t, std::sync::Arc::new(files)));
        true
    }
}

/// One container process, as the runtime started it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Process {
    pub image: String,
    /// The argument vector after `$(VAR)` expansion.
    pub argv: Vec<String>,
    /// The environment, in order.
    pub env: Env,
    /// Simulated ms when the process started.
    pub started_ms: u64,
    /// The container's memory limit in bytes, if any.
    pub memory_limit: Option<u64>,
    /// The container's CPU limit in millicores, if any (the CFS quota throttles to it).
    #[serde(default)]
    pub cpu_limit_milli: Option<u64>,
    /// GPUs (`nvidia.com/gpu`) allocated to the container.
    pub gpus: u64,
    /// Its configMap and secret volumes' files.
    #[serde(default, skip_serializing_if = "Mounted::is_empty")]
    pub mounts: Mounted,
    /// The container's stdin, when its spec opens one (`stdin: true`, as `kubectl run
    /// -i` sets): an interactive shell waits on it instead of reading end of file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<Stdin>,
    /// What its emptyDir, hostPath and PersistentVolume mounts held when it started,
    /// at the paths it sees them on (`kubelet/disk.rs`): its replay starts with them.
    #[serde(default, skip_serializing_if = "seed_is_empty")]
    pub seed: Seed,
}

/// An open stdin, and how the session attached to it ended.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stdin {
    /// When the attached session ended (ms after the start) and the status the
    /// shell exited with (`exit 3`; end of input is `exit 0`).
    pub closed: Option<(u64, i32)>,
}

/// The files a process finds in its data volumes when it starts.
pub type Seed = std::sync::Arc<BTreeMap<String, String>>;

fn seed_is_empty(seed: &Seed) -> bool {
    seed.is_empty()
}

/// How a process ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It exits after `after_ms` with this code; `oom` when the kernel killed it.
    Exits { after_ms: u64, code: i32, oom: bool },
    /// It runs until it is stopped.
    RunsForever,
    /// Not known yet: it is still running at `after_ms` when the search budget ran out;
    /// look again then (with a larger budget).
    Unknown { after_ms: u64 },
}

/// The OCI runtime's error when the executable is missing, as containerd reports it
/// (the container's terminated message, reason `StartError`, exit code 128).
pub fn start_error(p: &Process) -> Option<String> {
    let exe = p.argv.first()?;
    let info = images::lookup(&p.image);
    let shell = info.is_none_or(|i| i.shell);
    let base = exe.rsplit('/').next().unwrap_or(exe);
    let repo = images::repository(&p.image);
    // busybox-based images have `sh` (ash) but no bash.
    let bash_missing = base == "bash"
        && matches!(
            repo,
            "busybox" | "registry.k8s.io/busybox" | "alpine" | "curlimages/curl"
        );
    let known = (shell && !bash_missing && (is_shell(base) || shell::is_command(base)))
        || info.is_none_or(|i| {
            i.programs.iter().any(|q| q == exe || *q == base) || i.tools.contains(&base)
        });
    (!known).then(|| {
        format!(
            "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: exec: \"{exe}\": executable file not found in $PATH: unknown"
        )
    })
}

fn is_shell(base: &str) -> bool {
    matches!(base, "sh" | "bash" | "ash")
}

/// The process's argument vector: `command` or the image's ENTRYPOINT, then `args`
/// or (only when `command` is not set) the image's CMD; `$(VAR)` expanded.
pub fn argv(image: &str, command: &[String], args: Option<&[String]>, env: &Env) -> Vec<String> {
    let info = images::lookup(image);
    let mut argv: Vec<String> = if command.is_empty() {
        let mut v: Vec<String> = info
            .map(|i| i.entrypoint.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default();
        match args {
            Some(a) if !a.is_empty() => v.extend(a.iter().cloned()),
            _ => v.extend(
                info.map(|i| i.cmd.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                    .unwrap_or_default(),
            ),
        }
        v
    } else {
        let mut v = command.to_vec();
        v.extend(args.unwrap_or_default().iter().cloned());
        v
    };
    for a in &mut argv {
        *a = expand_env_refs(a, |name| env.get(name));
    }
    argv
}

/// kubelet's `$(VAR)` expansion in command and args: defined names are replaced,
/// `$$` escapes a `$`, anything else stays as written. Simplified: a reference whose
/// value would take the result past [`shell::MAX_VALUE_BYTES`] also stays as
/// written (as an undefined one does), so variables that reference each other
/// twice over cannot double without end.
pub fn expand_env_refs<'e>(s: &str, lookup: impl Fn(&str) -> Option<&'e str>) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(stripped) = after.strip_prefix('$') {
            out.push('$');
            rest = stripped;
        } else if let Some(inner) = after.strip_prefix('(') {
            match inner.find(')') {
                Some(end) => {
                    let name = &inner[..end];
                    let fits =
                        |v: &&str| out.len() + v.len() + rest.len() <= shell::MAX_VALUE_BYTES;
                    match lookup(name).filter(fits) {
                        Some(v) => out.push_str(v),
                        None => {
                            out.push_str("$(");
                            out.push_str(name);
                            out.push(')');
                        }
                    }
                    rest = &inner[end + 1..];
                }
                None => {
                    out.push('$');
                    rest = after;
                }
            }
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The process's log from its start up to `upto_ms` after it (timestamps in ms since
/// the start) and how the replay ended.
pub fn replay(p: &Process, upto_ms: u64, budget: u64) -> Replay {
    replay_in(p, upto_ms, budget, &BTreeMap::new(), &shell::NoPrograms)
}

/// [`replay`] in a container with these files and these programs besides the
/// shell's applets.
pub fn replay_in(
    p: &Process,
    upto_ms: u64,
    budget: u64,
    files: &BTreeMap<String, String>,
    programs: &dyn shell::Programs,
) -> Replay {
    if let Some(message) = start_error(p) {
        // The process never ran: no log, the runtime reports the error itself.
        let _ = message;
        return Replay {
            lines: Vec::new(),
            end: End::Exited {
                at_ms: 0,
                code: 128,
            },
            files: Default::default(),
        };
    }
    let Some(exe) = p.argv.first() else {
        return Replay {
            lines: Vec::new(),
            end: End::Blocked,
            files: Default::default(),
        };
    };
    let base = exe.rsplit('/').next().unwrap_or(exe).to_string();
    let info = images::lookup(&p.image);
    let ctx = shell::Context {
        env: p
            .env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        started_ms: p.started_ms,
        argv0: base.clone(),
        args: Vec::new(),
        files: if p.seed.is_empty() {
            files.clone()
        } else {
            let mut all = (*p.seed).clone();
            all.extend(files.iter().map(|(k, v)| (k.clone(), v.clone())));
            all
        },
        mounts: p.mounts.clone(),
    };
    if let Some(b) = info.filter(|i| is_shell(&base) && i.shell && shell_execs_program(p, i)) {
        return behave(p, b.behaviour, upto_ms);
    }
    if is_shell(&base) && info.is_none_or(|i| i.shell) {
        let args = &p.argv[1..];
        return match args.iter().position(|a| a == "-c") {
            Some(i) => match args.get(i + 1) {
                Some(script) => {
                    let ctx = shell::Context {
                        argv0: args.get(i + 2).cloned().unwrap_or(base),
                        args: args.iter().skip(i + 3).cloned().collect(),
                        ..ctx
                    };
                    shell::run_with(script, &ctx, upto_ms, budget, programs)
                }
                None => Replay {
                    lines: vec![(0, format!("{base}: -c requires an argument"))],
                    end: End::Exited { at_ms: 0, code: 2 },
                    files: Default::default(),
                },
            },
            // A script file: none exists in the simulated images.
            None if args.iter().any(|a| !a.starts_with('-')) => {
                let file = args.iter().find(|a| !a.starts_with('-')).cloned();
                Replay {
                    lines: vec![(
                        0,
                        format!(
                            "{base}: can't open '{}': No such file or directory",
                            file.unwrap_or_default()
                        ),
                    )],
                    end: End::Exited { at_ms: 0, code: 2 },
                    files: Default::default(),
                }
            }
            // An interactive shell with no stdin reads end of file and exits 0; with
            // one it waits for what an attached session types, and exits when that
            // session ends (`kubectl attach`, `kubectl run -i`).
            None => Replay {
                lines: Vec::new(),
                end: match &p.stdin {
                    None => End::Exited { at_ms: 0, code: 0 },
                    Some(Stdin { closed: None }) => End::Blocked,
                    Some(Stdin {
                        closed: Some((at_ms, code)),
                    }) if *at_ms <= upto_ms => End::Exited {
                        at_ms: *at_ms,
                        code: *code,
                    },
                    Some(_) => End::Horizon,
                },
                // It has written nothing: its files are what it started with.
                files: ctx.files.clone(),
            },
        };
    }
    let program = info.is_none_or(|i| i.programs.iter().any(|q| q == exe || *q == base));
    if !program {
        return shell::run_argv_with(&p.argv, &ctx, upto_ms, budget, programs);
    }
    let behaviour = info.map_or(Behaviour::Server, |i| i.behaviour);
    behave(p, behaviour, upto_ms)
}

/// Runs `argv` inside the container whose main process is `main`, `after_ms` after
/// that process started (an exec probe, `kubectl exec`): the container's environment,
/// its files (`base` plus what the main process's shell wrote by then) and `programs`.
/// The command gets `timeout_ms` of simulated time.
pub fn exec_in(
    main: &Process,
    argv: &[String],
    after_ms: u64,
    base: &BTreeMap<String, String>,
    programs: &dyn shell::Programs,
    timeout_ms: u64,
) -> Replay {
    let files = files_at(main, after_ms, base);
    exec_over(main, argv, after_ms, &files, programs, timeout_ms)
}

/// The files inside the container whose main process is `main`, `after_ms` after it
/// started: `base` (what the kubelet and the data volumes hold now) with what the
/// process's shell changed since it started (over what it started with: its
/// `seed` and `base`).
pub fn files_at(
    main: &Process,
    after_ms: u64,
    base: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    if !in_shell(main) {
        return base.clone();
    }
    let after = replay_in(main, after_ms, EXIT_SEARCH_BUDGET, base, &shell::NoPrograms).files;
    let mut files = base.clone();
    for (path, text) in &after {
        let before = base.get(path).or_else(|| main.seed.get(path));
        if before != Some(text) {
            files.insert(path.clone(), text.clone());
        }
    }
    for path in main.seed.keys().chain(base.keys()) {
        if !after.contains_key(path) {
            files.remove(path);
        }
    }
    files
}

/// What a shell process's files are `after_ms` after it started, from its `seed` and
/// `base`; `None` for a process that does not run in the shell (it writes nothing).
pub fn files_written(
    p: &Process,
    after_ms: u64,
    base: &BTreeMap<String, String>,
) -> Option<BTreeMap<String, String>> {
    (in_shell(p) && start_error(p).is_none())
        .then(|| replay_in(p, after_ms, EXIT_SEARCH_BUDGET, base, &shell::NoPrograms).files)
}

/// [`exec_in`] over the container's files as [`files_at`] gave them.
pub fn exec_over(
    main: &Process,
    argv: &[String],
    after_ms: u64,
    files: &BTreeMap<String, String>,
    programs: &dyn shell::Programs,
    timeout_ms: u64,
) -> Replay {
    let p = Process {
        argv: argv.to_vec(),
        started_ms: main.started_ms + after_ms,
        seed: Seed::default(),
        ..main.clone()
    };
    replay_in(&p, timeout_ms, EXIT_SEARCH_BUDGET, files, programs)
}

/// Whether the process runs in the simulated shell (so its replay tracks files).
pub(crate) fn in_shell(p: &Process) -> bool {
    let Some(exe) = p.argv.first() else {
        return false;
    };
    let base = exe.rsplit('/').next().unwrap_or(exe);
    let info = images::lookup(&p.image);
    if is_shell(base) && info.is_none_or(|i| i.shell) {
        return !info.is_some_and(|i| shell_execs_program(p, i));
    }
    !info.is_none_or(|i| i.programs.iter().any(|q| q == exe || *q == base))
}

/// When the process exits, searching at most `budget` shell commands ahead.
pub fn outcome(p: &Process, budget: u64) -> Outcome {
    let r = replay(p, HORIZON_MS, budget);
    match r.end {
        End::Exited { at_ms, code } => Outcome::Exits {
            after_ms: at_ms,
            code,
            oom: code == 137,
        },
        End::Blocked | End::Horizon => Outcome::RunsForever,
        End::Budget { at_ms: 0 } => Outcome::RunsForever,
        End::Budget { at_ms } => Outcome::Unknown { after_ms: at_ms },
    }
}

/// Log lines of one process up to `upto_ms` after its start, with their instants (ms
/// since the start).
pub fn log(p: &Process, upto_ms: u64) -> Vec<(u64, String)> {
    replay(p, upto_ms, EXIT_SEARCH_BUDGET * 5).lines
}

const MIB: u64 = 1024 * 1024;

fn clock(p: &Process, after_ms: u64, format: &str) -> String {
    let ms = crate::time::EPOCH_UNIX_MS + (p.started_ms + after_ms) as i64;
    k8s_openapi::jiff::Timestamp::from_millisecond(ms)
        .unwrap_or(k8s_openapi::jiff::Timestamp::UNIX_EPOCH)
        .to_zoned(k8s_openapi::jiff::tz::TimeZone::UTC)
        .strftime(format)
        .to_string()
}

/// Lines up to the horizon, then the end (an exit only if it falls before it).
fn timeline(lines: Vec<(u64, String)>, exit: Option<(u64, i32)>, upto_ms: u64) -> Replay {
    let lines: Vec<_> = lines.into_iter().filter(|(t, _)| *t <= upto_ms).collect();
    let end = match exit {
        Some((at_ms, code)) if at_ms <= upto_ms => End::Exited { at_ms, code },
        Some(_) => End::Horizon,
        None => End::Blocked,
    };
    Replay {
        lines,
        end,
        files: Default::default(),
    }
}

fn behave(p: &Process, behaviour: Behaviour, upto_ms: u64) -> Replay {
    let args = &p.argv[1..];
    match behaviour {
        Behaviour::Shell | Behaviour::Pause => timeline(Vec::new(), None, upto_ms),
        Behaviour::Server => timeline(server_lines(p), None, upto_ms),
        Behaviour::Perl => {
            let script = args.iter().find(|a| a.contains("print")).cloned();
            match script.as_deref().and_then(bpi_digits) {
                Some(n) => {
                    // bignum's bpi takes about n²/400000 s: some 10 s for 2000 digits.
                    let ms = 1_000 + n * n / 400;
                    timeline(vec![(ms, pi(n as usize))], Some((ms, 0)), upto_ms)
                }
                // Simplified: other perl programs print nothing and exit 0.
                None => timeline(Vec::new(), Some((200, 0)), upto_ms),
            }
        }
        Behaviour::Python => timeline(Vec::new(), Some((300, 0)), upto_ms),
        Behaviour::Flaky => {
            let mut lines = vec![(
                200,
                format!(
                    "{} INFO listening on :8080",
                    clock(p, 200, "%Y/%m/%d %H:%M:%S")
                ),
            )];
            lines.push((
                45_000,
                "panic: runtime error: invalid memory address or nil pointer dereference".into(),
            ));
            lines.push((
                45_000,
                "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x6b2f1a]".into(),
            ));
            timeline(lines, Some((45_000, 2)), upto_ms)
        }
        Behaviour::Leaky => {
            // Starts at 20 MiB and leaks 8 MiB a second.
            let mut lines = vec![(
                200,
                format!(
                    "{} INFO listening on :8080",
                    clock(p, 200, "%Y/%m/%d %H:%M:%S")
                ),
            )];
            let oom_at = p
                .memory_limit
                .map(|limit| limit.saturating_sub(20 * MIB) * 1000 / (8 * MIB));
            let last = oom_at.unwrap_or(upto_ms).min(upto_ms);
            let mut t = 10_000;
            while t <= last && lines.len() < shell::MAX_LINES {
                lines.push((
                    t,
                    format!(
                        "{} INFO cache holds {} MiB",
                        clock(p, t, "%Y/%m/%d %H:%M:%S"),
                        20 + t / 1000 * 8
                    ),
                ));
                t += 10_000;
            }
            timeline(lines, oom_at.map(|t| (t, 137)), upto_ms)
        }
        Behaviour::Stress => {
            let bytes = args
                .iter()
                .position(|a| a == "--vm-bytes")
                .and_then(|i| args.get(i + 1))
                .and_then(|v| parse_size(v));
            let Some(bytes) = bytes else {
                // `stress --help` and friends print usage and exit 1.
                return timeline(
                    vec![(
                        0,
                        "`stress' imposes certain types of compute stress on your system".into(),
                    )],
                    Some((0, 1)),
                    upto_ms,
                );
            };
            let lines = vec![(
                0,
                "stress: info: [1] dispatching hogs: 0 cpu, 0 io, 1 vm, 0 hdd".into(),
            )];
            // The process itself takes some 1 MiB besides its allocation.
            let oom = p.memory_limit.is_some_and(|l| bytes + MIB > l);
            timeline(lines, oom.then_some((1_000, 137)), upto_ms)
        }
        Behaviour::LlmServer => {
            let t = |s: u64| s * 1000;
            let mut lines = vec![(t(2), "INFO:     Started server process [1]".to_string())];
            if p.gpus == 0 {
                lines.push((t(5), "RuntimeError: No CUDA GPUs are available".into()));
                return timeline(lines, Some((t(5), 1)), upto_ms);
            }
            lines.push((
                t(3),
                "INFO:     Loading model weights (4.7 GB) onto cuda:0".into(),
            ));
            lines.push((t(90), "INFO:     Model loaded in 87.0 s".into()));
            lines.push((
                t(90),
                "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)".into(),
            ));
            timeline(lines, None, upto_ms)
        }
    }
}

/// A server's start-up lines, as its image prints them.
fn server_lines(p: &Process) -> Vec<(u64, String)> {
    let repo = images::repository(&p.image);
    let tag = p
        .image
        .rsplit_once(':')
        .filter(|(_, t)| !t.contains('/'))
        .map_or("latest", |(_, t)| t);
    if repo == "nginx" || repo.ends_with("nginx-slim") {
        // A tag names a release (`1.27` is the latest 1.27.x); others run the latest.
        let version = match tag.split('-').next().unwrap_or(tag) {
            t if t.matches('.').count() == 2 => t.to_string(),
            "1.27" => "1.27.5".to_string(),
            "1.28" => "1.28.0".to_string(),
            "1.26" => "1.26.3".to_string(),
            "1.25" => "1.25.5".to_string(),
            _ => "1.29.3".to_string(),
        };
        let at = clock(p, 100, "%Y/%m/%d %H:%M:%S");
        let mut lines: Vec<String> = Vec::new();
        if repo == "nginx" {
            lines.extend(
                [
                    "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
                    "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
                    "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
                    "10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf",
                    "10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf",
                    "/docker-entrypoint.sh: Configuration complete; ready for start up",
                ]
                .map(String::from),
            );
        }
        lines.push(format!(
            "{at} [notice] 1#1: using the \"epoll\" event method"
        ));
        lines.push(format!("{at} [notice] 1#1: nginx/{version}"));
        lines.push(format!("{at} [notice] 1#1: start worker processes"));
        return lines.into_iter().map(|l| (100, l)).collect();
    }
    if repo == "httpd" {
        let at = clock(p, 100, "%a %b %d %H:%M:%S%.6f %Y");
        return vec![
            (100, "AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using 127.0.0.1. Set the 'ServerName' directive globally to suppress this message".into()),
            (100, format!("[{at}] [mpm_event:notice] [pid 1:tid 1] AH00489: Apache/2.4.65 (Unix) configured -- resuming normal operations")),
            (100, format!("[{at}] [core:notice] [pid 1:tid 1] AH00094: Command line: 'httpd -D FOREGROUND'")),
        ];
    }
    if repo == "redis" {
        return vec![
            (
                100,
                "1:C 01 Jan 2026 00:00:00.000 * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo"
                    .into(),
            ),
            (
                150,
                "1:M 01 Jan 2026 00:00:00.050 * Ready to accept connections tcp".into(),
            ),
        ]
        .into_iter()
        .map(|(t, l): (u64, String)| {
            // Keep the clock of the process in the line.
            let date = clock(p, t, "%d %b %Y %H:%M:%S%.3f");
            (
                t,
                l.replacen("01 Jan 2026 00:00:00.000", &date, 1).replacen(
                    "01 Jan 2026 00:00:00.050",
                    &date,
                    1,
                ),
            )
        })
        .collect();
    }
    if images::BOOTCAMP_REPOSITORIES.contains(&repo) {
        // console.log's last argument is "\n": the line is followed by an empty one.
        return vec![
            (
                300,
                "Kubernetes Bootcamp App Started At: ".to_string()
                    + &clock(p, 300, "%Y-%m-%dT%H:%M:%S%.3fZ")
                    + " | Running On:  "
                    + &env(p, "HOSTNAME")
                    + " ",
            ),
            (300, String::new()),
        ];
    }
    if repo == "gcr.io/google-samples/hello-app" {
        return vec![(
            100,
            format!(
                "{} Server listening on port 8080",
                clock(p, 100, "%Y/%m/%d %H:%M:%S")
            ),
        )];
    }
    Vec::new()
}

fn env(p: &Process, name: &str) -> String {
    p.env.get(name).unwrap_or_default().to_string()
}

/// `print bpi(2000)` → 2000.
fn bpi_digits(script: &str) -> Option<u64> {
    let i = script.find("bpi(")?;
    let rest = &script[i + 4..];
    let n: u64 = rest[..rest.find(')')?].trim().parse().ok()?;
    (1..=20_000).contains(&n).then_some(n)
}

/// Memory sizes as stress takes them: `150M`, `1G`, `512K`, bytes.
fn parse_size(v: &str) -> Option<u64> {
    let (num, mult) = match v.chars().last()? {
        'k' | 'K' => (&v[..v.len() - 1], 1024),
        'm' | 'M' => (&v[..v.len() - 1], MIB),
        'g' | 'G' => (&v[..v.len() - 1], 1024 * MIB),
        _ => (v, 1),
    };
    num.parse::<u64>().ok().map(|n| n.saturating_mul(mult))
}

/// Pi to `n` significant digits, as `bpi(n)` prints it (`3.14159…`), by the
/// Rabinowitz–Wagon spigot with a few guard digits, rounded half up.
pub fn pi(n: usize) -> String {
    let want = n + 5;
    let len = want * 10 / 3 + 1;
    let mut a = vec![2u64; len];
    let mut digits: Vec<u8> = Vec::with_capacity(want);
    let mut nines = 0usize;
    let mut predigit = 0u8;
    for _ in 0..want {
        let mut carry = 0u64;
        for i in (0..len).rev() {
            let x = 10 * a[i] + carry * (i as u64 + 1);
            let denom = 2 * i as u64 + 1;
            a[i] = x % denom;
            carry = x / denom;
        }
        a[0] = carry % 10;
        let q = (carry / 10) as u8;
        match q {
            9 => nines += 1,
            10 => {
                digits.push(predigit + 1);
                digits.extend(std::iter::repeat_n(0, nines));
                predigit = 0;
                nines = 0;
            }
            _ => {
                digits.push(predigit);
                predigit = q;
                digits.extend(std::iter::repeat_n(9, nines));
                nines = 0;
            }
        }
    }
    digits.push(predigit);
    // The first pushed digit is the spigot's leading zero.
    let mut d: Vec<u8> = digits.into_iter().skip(1).collect();
    // Round to n significant digits.
    let round_up = d.get(n).is_some_and(|x| *x >= 5);
    d.truncate(n);
    if round_up {
        let mut i = d.len();
        while i > 0 {
            i -= 1;
            if d[i] == 9 {
                d[i] = 0;
            } else {
                d[i] += 1;
                break;
            }
        }
    }
    let mut s = String::with_capacity(n + 1);
    for (i, x) in d.iter().enumerate() {
        s.push((b'0' + x) as char);
        if i == 0 && n > 1 {
            s.push('.');
        }
    }
    s
}

/// Whether the process is the image's own program (a server that may listen), not a
/// shell or an applet the pod's command ran instead.
fn runs_image_program(p: &Process) -> Option<Behaviour> {
    let exe = p.argv.first()?;
    let base = exe.rsplit('/').next().unwrap_or(exe);
    let info = images::lookup(&p.image)?;
    if is_shell(base) && info.shell {
        // `sh -c "node server.js"`: the shell execs the image's program.
        return shell_execs_program(p, info).then_some(info.behaviour);
    }
    info.programs
        .iter()
        .any(|q| q == exe || *q == base)
        .then_some(info.behaviour)
}

/// Whether the process is `sh -c "PROGRAM ARGS"` with one simple command that runs
/// one of the image's programs (the shell execs it, as the bootcamp image's CMD does).
fn shell_execs_program(p: &Process, info: &images::ImageInfo) -> bool {
    let Some(i) = p.argv.iter().position(|a| a == "-c") else {
        return false;
    };
    let Some(script) = p.argv.get(i + 1) else {
        return false;
    };
    let simple = !script.contains([';', '&', '|', '$', '`', '>', '<', '\n']);
    let first = script.split_whitespace().next().unwrap_or("");
    simple && info.programs.contains(&first)
}

/// The TCP ports the process listens on `after_ms` after its start.
pub fn listens(p: &Process, port: i32, after_ms: u64) -> bool {
    let Some(behaviour) = runs_image_program(p) else {
        return false;
    };
    let ports: &[i32] = match behaviour {
        Behaviour::Flaky | Behaviour::Leaky => &[8080],
        Behaviour::LlmServer if p.gpus > 0 && after_ms >= 90_000 => &[8000],
        Behaviour::Server => match images::repository(&p.image) {
            "redis" | "us-docker.pkg.dev/google-samples/containers/gke/gb-redis-follower" => {
                &[6379]
            }
            "bprashanth/nginxhttps" => &[80, 443],
            "gcr.io/google-samples/hello-app"
            | "gcr.io/google-samples/kubernetes-bootcamp"
            | "jocatalin/kubernetes-bootcamp"
            | "registry.k8s.io/goproxy" => &[8080],
            "registry.k8s.io/coredns/coredns" => &[53, 8080, 8181, 9153],
            "registry.k8s.io/e2e-test-images/agnhost" => &[],
            "registry.k8s.io/kube-proxy" => &[10249, 10256],
            "registry.k8s.io/metrics-server/metrics-server" => &[10250],
            _ => &[80],
        },
        _ => &[],
    };
    // Servers take a moment (100 ms) to open their port.
    after_ms >= 100 && ports.contains(&port)
}

/// The HTTP status the process answers `GET path` on `port` with, `after_ms` after its
/// start; `Err` with the client's error when it does not speak HTTP there.
pub fn http_status(p: &Process, port: i32, path: &str, after_ms: u64) -> Result<u16, String> {
    let repo = images::repository(&p.image);
    let path = path.split('?').next().unwrap_or(path);
    Ok(match runs_image_program(p) {
        Some(Behaviour::Flaky) => match path {
            // Healthy for 30 s, then its health check fails until it panics at 45 s.
            "/healthz" | "/health" if after_ms < 30_000 => 200,
            "/healthz" | "/health" => 500,
            "/" => 200,
            _ => 404,
        },
        Some(Behaviour::LlmServer) => match path {
            "/health" | "/healthz" | "/v1/models" | "/" => 200,
            _ => 404,
        },
        Some(Behaviour::Leaky) => 200,
        _ if port == 6379 => {
            return Err("net/http: HTTP/1.x transport connection broken: malformed HTTP response \"-ERR wrong number of arguments for 'get' command\"".into())
        }
        _ if repo.contains("nginx") || repo == "gcr.io/google-samples/hello-frontend" => {
            match path {
                "/" | "/index.html" => 200,
                _ => 404,
            }
        }
        _ if repo == "registry.k8s.io/metrics-server/metrics-server" => match path {
            "/readyz" | "/livez" | "/healthz" => 200,
            _ => 404,
        },
        _ if repo == "registry.k8s.io/coredns/coredns" => match (port, path) {
            (8080, "/health") | (8181, "/ready") | (9153, "/metrics") => 200,
            _ => 404,
        },
        _ => 200,
    })
}

/// The requests a container answered over the last [`SERVED_KEPT_SECS`] seconds,
/// counted by second: what the CPU model charges for serving.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Served {
    /// (simulated second, requests answered in it), oldest first.
    seconds: std::collections::VecDeque<(u64, u32)>,
}

/// How many seconds of served requests a container keeps (two metrics windows).
pub const SERVED_KEPT_SECS: u64 = 30;

impl Served {
    /// One more request answered at simulated ms `now`.
    pub fn record(&mut self, now_ms: u64) {
        let second = now_ms / 1000;
        match self.seconds.back_mut() {
            Some((s, n)) if *s == second => *n = n.saturating_add(1),
            _ => self.seconds.push_back((second, 1)),
        }
        while self
            .seconds
            .front()
            .is_some_and(|(s, _)| s + SERVED_KEPT_SECS <= second)
        {
            self.seconds.pop_front();
        }
    }

    /// The requests answered in the seconds of `[from_ms, to_ms)`.
    pub fn between(&self, from_ms: u64, to_ms: u64) -> u64 {
        self.seconds
            .iter()
            .filter(|(s, _)| *s * 1000 >= from_ms && *s * 1000 < to_ms)
            .map(|(_, n)| u64::from(*n))
            .sum()
    }
}

/// The CPU time one request costs the program, in microseconds. Simplified: one
/// figure per image: the HPA walkthrough's php-apache computes for about 20 ms a
/// request, nginx and the other servers take a fraction of a millisecond.
pub fn cpu_us_per_request(p: &Process) -> u64 {
    match images::repository(&p.image) {
        "registry.k8s.io/hpa-example" => 20_000,
        "nginx" | "registry.k8s.io/nginx-slim" => 100,
        _ => 500,
    }
}

/// The CPU the process uses (millicores, averaged over a metrics window) `after_ms`
/// after its start, for `kubectl top`. Simplified: a fixed rate per behaviour (idle
/// servers a few millicores, the control plane's own components more); `stress`
/// workers and perl computing pi burn a whole core each, the LLM server loads its
/// weights at about a core for 90 s. A CPU limit throttles the rate to the limit (the
/// CFS quota), it never kills the container; contention between containers on one node
/// is not modelled.
pub fn cpu_millis(p: &Process, after_ms: u64) -> u64 {
    cpu_millis_serving(p, after_ms, 0, 1)
}

/// [`cpu_millis`] with the CPU of `requests` answered over `window_ms` on top: each
/// costs [`cpu_us_per_request`]; a CPU limit throttles the sum.
pub fn cpu_millis_serving(p: &Process, after_ms: u64, requests: u64, window_ms: u64) -> u64 {
    let serving = requests
        .saturating_mul(cpu_us_per_request(p))
        .checked_div(window_ms.max(1))
        .unwrap_or(0);
    let repo = images::repository(&p.image);
    let flag_count = |names: &[&str]| -> u64 {
        p.argv
            .iter()
            .position(|a| names.contains(&a.as_str()))
            .and_then(|i| p.argv.get(i + 1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let raw = match runs_image_program(p) {
        None | Some(Behaviour::Shell) | Some(Behaviour::Pause) | Some(Behaviour::Python) => 0,
        Some(Behaviour::Perl) => 1000,
        Some(Behaviour::Flaky) => 1,
        Some(Behaviour::Leaky) => 2,
        // `stress --cpu N --vm M`: every worker spins on a core.
        Some(Behaviour::Stress) => {
            1000 * (flag_count(&["--cpu", "-c"]) + flag_count(&["--vm", "-m"]))
        }
        Some(Behaviour::LlmServer) if after_ms < 90_000 => 950,
        Some(Behaviour::LlmServer) => 20,
        Some(Behaviour::Server) => match repo {
            // vish/stress: `-cpus N` goroutines spinning.
            "vish/stress" => 1000 * flag_count(&["-cpus", "--cpus"]),
            "registry.k8s.io/kube-apiserver" => 40,
            "registry.k8s.io/etcd" => 20,
            "registry.k8s.io/kube-controller-manager" => 15,
            "registry.k8s.io/kube-scheduler" => 3,
            "registry.k8s.io/metrics-server/metrics-server" => 4,
            "registry.k8s.io/coredns/coredns" => 2,
            "nginx" | "registry.k8s.io/nginx-slim" => 0,
            _ => 1,
        },
    };
    let raw = raw.saturating_add(serving);
    p.cpu_limit_milli.map_or(raw, |l| raw.min(l))
}

/// The process's memory use (working set, bytes) `after_ms` after its start, for a
/// later `kubectl top`. Simplified: a fixed footprint per behaviour; the leaky app
/// grows 8 MiB a second, stress holds what it allocated, the LLM server loads its
/// weights over 90 s.
pub fn memory_bytes(p: &Process, after_ms: u64) -> u64 {
    let behaviour = runs_image_program(p);
    let repo = images::repository(&p.image);
    match behaviour {
        None => MIB / 2,
        Some(Behaviour::Shell) => MIB / 2,
        Some(Behaviour::Pause) => 300 * 1024,
        Some(Behaviour::Perl) => 48 * MIB,
        Some(Behaviour::Python) => 9 * MIB,
        Some(Behaviour::Flaky) => 12 * MIB,
        Some(Behaviour::Leaky) => {
            let used = 20 * MIB + after_ms / 1000 * 8 * MIB;
            p.memory_limit.map_or(used, |l| used.min(l))
        }
        Some(Behaviour::Stress) => {
            let bytes = p
                .argv
                .iter()
                .position(|a| a == "--vm-bytes")
                .and_then(|i| p.argv.get(i + 1))
                .and_then(|v| parse_size(v))
                .unwrap_or(0);
            let used = bytes + MIB;
            p.memory_limit.map_or(used, |l| used.min(l))
        }
        Some(Behaviour::LlmServer) => 300 * MIB + 5_700 * MIB * after_ms.min(90_000) / 90_000,
        Some(Behaviour::Server) => match repo {
            "nginx" | "registry.k8s.io/nginx-slim" => 3 * MIB,
            "httpd" => 8 * MIB,
            "redis" => 4 * MIB,
            "registry.k8s.io/coredns/coredns" => 15 * MIB,
            "registry.k8s.io/kube-proxy" => 22 * MIB,
            "registry.k8s.io/kube-apiserver" => 250 * MIB,
            "registry.k8s.io/etcd" => 45 * MIB,
            "registry.k8s.io/kube-controller-manager" => 55 * MIB,
            "registry.k8s.io/kube-scheduler" => 22 * MIB,
            "registry.k8s.io/metrics-server/metrics-server" => 18 * MIB,
            _ => 10 * MIB,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn process(image: &str, command: &[&str], args: &[&str]) -> Process {
        let command: Vec<String> = command.iter().map(|s| s.to_string()).collect();
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        Process {
            image: image.into(),
            argv: argv(image, &command, Some(&args), &Env::default()),
            env: Env::of(vec![("HOSTNAME".into(), "p".into())]),
            started_ms: 0,
            memory_limit: None,
            cpu_limit_milli: None,
            gpus: 0,
            mounts: Mounted::default(),
            stdin: None,
            seed: Default::default(),
        }
    }

    #[test]
    fn memory_follows_the_behaviour() {
        let mut p = process("ghcr.io/kube-warehouse/leaky-app", &[], &[]);
        assert_eq!(memory_bytes(&p, 10_000), 100 * MIB);
        p.memory_limit = Some(64 * MIB);
        assert_eq!(memory_bytes(&p, 60_000), 64 * MIB);
        assert_eq!(
            outcome(&p, 1000),
            Outcome::Exits {
                after_ms: 5_500,
                code: 137,
                oom: true
            }
        );
        assert_eq!(memory_bytes(&process("nginx", &[], &[]), 1000), 3 * MIB);
    }

    #[test]
    fn the_bootcamp_logs_its_start_and_an_empty_line_and_listens_on_8080() {
        for image in [
            "gcr.io/google-samples/kubernetes-bootcamp:v1",
            "docker.io/jocatalin/kubernetes-bootcamp:v2",
        ] {
            let p = process(image, &["/bin/sh", "-c", "node server.js"], &[]);
            let lines: Vec<String> = log(&p, 1000).into_iter().map(|(_, l)| l).collect();
            assert_eq!(lines.len(), 2, "{image}: {lines:?}");
            assert!(lines[0].starts_with("Kubernetes Bootcamp App Started At: "));
            assert!(lines[0].ends_with("| Running On:  p "), "{}", lines[0]);
            assert_eq!(lines[1], "");
            assert!(listens(&p, 8080, 1000), "{image}");
        }
    }

    #[test]
    fn pi_has_the_right_digits() {
        assert_eq!(pi(10), "3.141592654");
        assert_eq!(pi(30), "3.14159265358979323846264338328");
        assert!(pi(2000).ends_with("4780275901"), "{}", &pi(2000)[1990..]);
    }

    #[test]
    fn bare_busybox_exits_0_at_once_and_nginx_serves() {
        let p = process("busybox", &[], &[]);
        assert_eq!(
            outcome(&p, 1000),
            Outcome::Exits {
                after_ms: 0,
                code: 0,
                oom: false
            }
        );
        assert_eq!(
            outcome(&process("nginx:1.27", &[], &[]), 1000),
            Outcome::RunsForever
        );
        assert_eq!(
            outcome(
                &process("busybox", &["sh", "-c", "sleep 5; exit 1"], &[]),
                1000
            ),
            Outcome::Exits {
                after_ms: 5000,
                code: 1,
                oom: false
            }
        );
        assert_eq!(
            outcome(&process("busybox", &["sleep", "3600"], &[]), 1000),
            Outcome::Exits {
                after_ms: 3_600_000,
                code: 0,
                oom: false
            }
        );
    }

    #[test]
    fn missing_executables_are_start_errors() {
        let p = process("busybox", &["exit", "1"], &[]);
        assert!(start_error(&p)
            .unwrap()
            .contains("exec: \"exit\": executable file not found"));
        let p = process(
            "gcr.io/google-samples/hello-app:1.0",
            &["sh", "-c", "echo"],
            &[],
        );
        assert!(start_error(&p).is_some());
        assert!(start_error(&process("nginx", &["nginx"], &[])).is_none());
    }

    #[test]
    fn an_environment_keeps_its_order_and_its_list_in_a_snapshot() {
        let mut env = Env::runtime();
        env.push_own_raw("HOSTNAME".into(), "web-0".into());
        env.push_own("WHERE".into(), "$(HOSTNAME):$(PATH):$(HOME)");
        env.push_own_raw("HOME".into(), "/mine".into());
        let list: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(list.first().map(|(k, _)| k.as_str()), Some("PATH"));
        assert_eq!(
            list.last(),
            Some(&("HOME".to_string(), "/root".to_string()))
        );
        assert_eq!(list.len(), 1 + 3 + RUNTIME_TAIL.len());
        // A value references what comes before it; HOME comes after.
        assert_eq!(
            env.get("WHERE"),
            Some(&*format!("web-0:{}:$(HOME)", PATH.1))
        );
        // The last definition wins, as in the list.
        assert_eq!(env.get("HOME"), Some("/root"));
        let json = serde_json::to_string(&env).unwrap();
        assert_eq!(json, serde_json::to_string(&list).unwrap());
        let back: Env = serde_json::from_str(&json).unwrap();
        assert_eq!(back, env);
        // A list without the runtime's variables stays as it is.
        let plain = Env::of(vec![("A".into(), "1".into())]);
        assert_eq!(plain.iter().collect::<Vec<_>>(), vec![("A", "1")]);
        assert_eq!(plain.get("PATH"), None);
    }

    #[test]
    fn env_references_expand_in_command_and_args() {
        let env = Env::of(vec![("NAME".into(), "Warehouse".into())]);
        assert_eq!(
            expand_env_refs("hi $(NAME) $(NOPE) $$(NAME)", |n| env.get(n)),
            "hi Warehouse $(NOPE) $(NAME)"
        );
    }

    #[test]
    fn doubling_env_references_stay_within_the_value_limit() {
        // Each variable twice the one before: 2^60 bytes unbounded.
        let mut env: Vec<(String, String)> = vec![("V0".into(), "x".repeat(1000))];
        for i in 1..60 {
            let value = expand_env_refs(&format!("$(V{0})$(V{0})", i - 1), |n| lookup(&env, n));
            assert!(
                value.len() <= shell::MAX_VALUE_BYTES,
                "V{i}: {}",
                value.len()
            );
            env.push((format!("V{i}"), value));
        }
        // Past the limit a reference stays as written, as an undefined one does.
        let last = &env[59].1;
        assert!(last.ends_with("$(V58)"), "{}", &last[last.len() - 20..]);
        let args = argv(
            "busybox",
            &["sh".into(), "-c".into(), "echo $(V59)$(V59)$(V59)".into()],
            None,
            &Env::of(env.clone()),
        );
        assert!(args[2].len() <= shell::MAX_VALUE_BYTES);
    }

    #[test]
    fn the_pi_job_prints_pi_and_completes() {
        let p = process(
            "perl",
            &["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"],
            &[],
        );
        let Outcome::Exits {
            after_ms, code: 0, ..
        } = outcome(&p, 1000)
        else {
            panic!()
        };
        assert_eq!(after_ms, 11_000);
        let log = log(&p, after_ms);
        assert_eq!(log.len(), 1);
        assert!(log[0].1.starts_with("3.14159"));
    }
}

#[cfg(test)]
mod exec_tests {
    use super::*;

    #[test]
    fn an_exec_sees_the_files_the_main_process_wrote() {
        let main = Process {
            image: "registry.k8s.io/busybox".into(),
            argv: vec![
                "/bin/sh".into(),
                "-c".into(),
                "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600".into(),
            ],
            env: Env::default(),
            started_ms: 1_000,
            memory_limit: None,
            cpu_limit_milli: None,
            gpus: 0,
            mounts: Mounted::default(),
            stdin: None,
            seed: Default::default(),
        };
        let cat = ["cat".to_string(), "/tmp/healthy".to_string()];
        let none = BTreeMap::new();
        let at = |ms| exec_in(&main, &cat, ms, &none, &shell::NoPrograms, 1000);
        assert_eq!(at(5_000).end, End::Exited { at_ms: 0, code: 0 });
        assert_eq!(at(29_000).end, End::Exited { at_ms: 0, code: 0 });
        let late = at(35_000);
        assert_eq!(late.end, End::Exited { at_ms: 0, code: 1 });
        assert_eq!(
            late.lines[0].1,
            "cat: can't open '/tmp/healthy': No such file or directory"
        );
    }
}
