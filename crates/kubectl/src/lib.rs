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

mod args;
mod cli;
pub mod cmd;
mod context;
mod discovery;
mod errors;
mod fetched;
#[doc(hidden)]
pub mod fuzzing;
pub mod helm;
pub mod journal;
pub mod printers;
pub mod selector;
pub mod shell;

pub use cmd::explain::provide_data as provide_explain_data;
pub use cmd::help::provide_data as provide_help_data;
use cmd::{
    api_resources, apply, auth, cluster_info, config, cordon, create, create_job, create_more,
    delete, describe, drain, edit, events, exec, explain, expose, get, label, logs, rollout, run,
    scale, set, taint, top, version, wait,
};
use context::Context;
pub use context::{
    CommandOutput, FileSource, MemoryFiles, NoFiles, CONNECTION_REFUSED, MAX_COMMAND_WAIT,
};

use warehouse_sim::apiserver::request::Credentials;
use warehouse_sim::Cluster;

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
    /// Every input since the session began, to go back in time with.
    journal: journal::Journal,
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
            journal: journal::Journal::default(),
        }
    }

    /// The session's history ([`Session::rewind`]).
    pub fn journal(&self) -> &journal::Journal {
        &self.journal
    }

    /// Starts the history again from now: the session's cluster was replaced (a
    /// lesson opened, a step reset).
    pub fn forget_history(&mut self) {
        self.journal.clear();
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
        let reads = shell_words::split(line)
            .ok()
            .is_some_and(|args| kubectl_access(&args) == Ok(Access::Reads));
        if reads {
            return self.run_unrecorded(line, stdin, files);
        }
        let owned = |s: Option<&str>| s.map(str::to_string);
        let input = |files| journal::Input::Kubectl {
            line: line.to_string(),
            stdin: owned(stdin),
            files,
        };
        self.recorded(files, input, |s, files| {
            s.run_unrecorded(line, stdin, files)
        })
    }

    /// [`Session::run`] without adding the line to the session's history: for
    /// reads made on the learner's behalf (the inspector's), which change nothing.
    pub fn run_unrecorded(
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
        // An advance or a fault is its own entry of the history; a rewind or a line
        // that only looks is none.
        if self.shell.inside.is_none() {
            if shell::script::reads_only(line) {
                return shell::run_line(self, line, stdin, files);
            }
            if let Some(action) = shell::script::plain_sim(line) {
                if shell::script::records_itself(&action) {
                    let out = shell::script::execute_action(self, &action, stdin, files);
                    self.shell.last_status = out.code;
                    return out;
                }
            }
        }
        let owned = |s: Option<&str>| s.map(str::to_string);
        let input = |files| journal::Input::Shell {
            line: line.to_string(),
            stdin: owned(stdin),
            files,
        };
        self.recorded(files, input, |s, files| {
            shell::run_line(s, line, stdin, files)
        })
    }

    /// [`Session::run_shell`] without adding the line to the session's history.
    pub fn run_shell_unrecorded(
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
        let (field_manager, field_manager_flag, args) = cli::take_field_manager(&args);
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
        discovery::refresh(&self.cluster);
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
            field_manager,
            field_manager_flag,
        };
        match command {
            cli::Command::Help(text) => CommandOutput {
                stdout: text,
                ..CommandOutput::default()
            },
            cli::Command::Apply(a) => apply::run(&mut self.cluster, &ctx, a),
            cli::Command::Get(g) if (g.watch || g.watch_only) && g.raw.is_none() => {
                cmd::getfmt::watch(&mut self.cluster, &ctx, &g)
            }
            cli::Command::Get(g) => get::run(&self.cluster, &ctx, g),
            cli::Command::Delete(d) => delete::run(&mut self.cluster, &ctx, d),
            cli::Command::ApiResources(a) => api_resources::run(&a),
            cli::Command::Auth(a) => auth::run(&self.cluster, &ctx, &a),
            cli::Command::Describe(a) => describe::run(&self.cluster, &ctx, &a),
            cli::Command::Cordon(a, on) => cordon::run(&mut self.cluster, &ctx, &a, on),
            cli::Command::Drain(a) => drain::run(&mut self.cluster, &ctx, &a),
            cli::Command::Taint(a) => taint::run(&mut self.cluster, &ctx, &a),
            cli::Command::Patch(a) => cmd::patch::run(&mut self.cluster, &ctx, &a),
            cli::Command::Rollout(a) => rollout::run(&mut self.cluster, &ctx, &a),
            cli::Command::Scale(a) => scale::run(&mut self.cluster, &ctx, &a),
            cli::Command::Autoscale(a) => cmd::autoscale::run(&mut self.cluster, &ctx, &a),
            cli::Command::Set(a) => set::run(&mut self.cluster, &ctx, &a),
            cli::Command::Logs(a) => logs::run(&mut self.cluster, &ctx, &a),
            cli::Command::Label(a, t) => label::run(&mut self.cluster, &ctx, &a, t),
            cli::Command::Expose(a) => expose::run(&mut self.cluster, &ctx, &a),
            cli::Command::Run(a) => {
                let (mut out, plan) = run::run(&mut self.cluster, &ctx, &a);
                if let Some(plan) = plan.filter(|_| out.code == 0) {
                    let attached = cmd::attach::start(
                        self,
                        &plan.namespace,
                        &plan.name,
                        plan.shell.as_deref(),
                        plan.how,
                        &mut out,
                    );
                    if attached.is_some() {
                        self.shell.inside = attached;
                    }
                }
                out
            }
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
            cli::Command::Attach(a) => cmd::attach::attach(self, &ctx, &a),
            cli::Command::Debug(a) => cmd::debug::run(self, &ctx, &a),
            cli::Command::PortForward(a) => {
                cmd::port_forward::run(&mut self.cluster, &ctx, &a, &self.shell.proxies)
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
