//! Scripts and transcripts (DESIGN.md §4).
//!
//! A script is one command a line, run by the small bash of [`crate::shell`]:
//! `kubectl ...` lines go to kubectl, `sim ...` lines drive the simulation (`sim
//! advance 90s`, `sim node kill zone-b`, `sim node restart zone-b`, `sim addons
//! enable metrics-server`, `sim addons enable ingress`, `sim traffic start web --to
//! svc/web --from client --rps 50`, `sim traffic stats`, `sim request http://web --from
//! client`, `sim stop scheduler`, `sim start scheduler`, `sim etcd
//! stop etcd-1`, `sim etcd snapshot save NAME`, …), and lines copied from tutorials work as written: shell variables
//! (`export POD_NAME="$(kubectl get pods -o name)"`, `echo "Pod: $POD_NAME"`),
//! quoting, `$(...)`, `cmd1 && cmd2`, `curl`, `wget`, `kubectl proxy`, `minikube ip`
//! (see [`crate::shell`] and [`crate::shell::outside`] for what is simulated). Expansion
//! happens when the line runs, so a variable set on one line is seen by the next.
//! A `sim` line without shell syntax is parsed when the script is read; other lines
//! are parsed when they run, and a line bash would refuse prints bash's message.
//! `#` comments and blank lines are skipped. `sim config etcd-members 3`, first in
//! a script, gives etcd three members; `sim boot cold`, first in a script, starts
//! from simulated second 0 instead of the settled cluster a learner is handed
//! (`sim boot settled`, see `warehouse_sim::runtime::boot`).
//!
//! A line may hold a heredoc (`kubectl apply -f - <<EOF`, `cat <<EOF | kubectl
//! apply -f -`, any delimiter word, also quoted) whose body, up to the line holding
//! only the delimiter, is the stdin of the command that names it. As in bash, a
//! plain delimiter (`<<EOF`) has the body expanded when the command runs (`$NAME`,
//! `${...}`, `$(...)`, backquotes; `\$` keeps a dollar), a quoted one (`<<'EOF'`,
//! `<<"EOF"`, `<<\EOF`) keeps it as written, and `<<-EOF` strips leading tabs.
//!
//! Running a script prints a transcript: each command after `$ ` (a heredoc with
//! its body and terminator line, as a terminal shows them), then the command's
//! stdout and stderr. A failing command does not stop the script.
//!
//! Everything here is pure: files come from the [`FileSource`], paths as written in
//! the script (the caller resolves them against the script's folder).

use crate::context::{CommandOutput, FileSource};
use crate::Session;
use std::fmt;
use warehouse_sim::kubelet::shell::{is_blank, is_metachar};
use warehouse_sim::{parse_duration, ControlPlaneComponent, Fault, SimDuration};

/// A script that cannot be run at all (nothing of it runs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    /// 1-based line.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ScriptError {}

/// A heredoc's body and its terminator line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heredoc {
    /// The body lines, joined with newlines, with a final newline (what stdin gets).
    pub body: String,
    /// The delimiter word (`EOF`).
    pub delimiter: String,
}

/// What a step does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// A line for the shell (kubectl, echo, export, curl, ...), expanded and run
    /// when the step executes.
    Shell(String),
    /// `sim advance DURATION`.
    Advance(SimDuration),
    /// `sim rewind DURATION`: back in the session's history.
    Rewind(SimDuration),
    /// `sim step`: the clock to the next thing that happens.
    Step,
    /// `sim node kill NAME`, `sim node restart NAME`.
    Fault(Fault),
    /// `sim node add NAME [--cpu N] [--memory Q] [--labels k=v,...] [--taint k=v:Effect]...`.
    AddNode(warehouse_sim::NodeSpec),
    /// `sim user add NAME [--group GROUP]...`: a user in the simulated kubeconfig.
    AddUser { name: String, groups: Vec<String> },
    /// `sim why KIND/NAME [-n NAMESPACE]`.
    Why {
        target: String,
        namespace: Option<String>,
    },
    /// `sim why-node pod/NAME [-n NAMESPACE]`: the scheduler's latest decision.
    WhyNode {
        target: String,
        namespace: Option<String>,
    },
    /// `sim config etcd-members N`: etcd with N members (before anything else).
    ConfigureEtcdMembers(usize),
    /// `sim seed N`: a fresh cluster with this random seed (first in a script).
    Seed(u64),
    /// `sim boot cold|settled`: a fresh cluster booted this way (first in a script).
    Boot(warehouse_sim::Boot),
    /// `sim config max-endpoints-per-slice N`: the controller manager's
    /// `--max-endpoints-per-slice`.
    ConfigureMaxEndpointsPerSlice(usize),
    /// `sim etcd status`: the members, the leader and the quorum.
    EtcdStatus,
    /// `sim requests`: the reception desk's log of your latest writes and how
    /// each one ended (stored, or the check that refused it).
    Requests,
    /// `sim etcd snapshot save NAME` (`etcdctl snapshot save`).
    EtcdSnapshotSave(String),
    /// `sim etcd snapshot restore NAME` (`etcdutl snapshot restore` on every member,
    /// then etcd and the apiserver restarted).
    EtcdSnapshotRestore(String),
    /// `sim proxy-mode endpoints|endpointslices`: what every kube-proxy watches.
    ProxyMode(warehouse_sim::ProxyMode),
    /// `sim addon enable|disable metrics-server`: installs or removes the add-on
    /// `kubectl top` needs.
    Addon { name: String, enable: bool },
    /// `sim stats`: what each watcher (kube-proxy, CoreDNS) has received.
    Stats,
    /// `sim help`: the simulation's own commands, one a line.
    Help,
    /// `sim stats reset`: zero the watchers' counters.
    StatsReset,
    /// `sim traffic start|stop|stats|reset ...` and `sim request URL ...`: the
    /// traffic generator and one-off requests through the data plane.
    Traffic(warehouse_sim::network::traffic::TrafficCommand),
    /// `sim addons enable ingress`: the `nginx` IngressClass and ingress-nginx.
    EnableIngress,
    /// `sim addons enable gateway`: the Gateway API and cloud-provider-kind's controller.
    EnableGateway,
    /// A line that cannot run; its message is printed in the transcript.
    Invalid(String),
}

/// One command of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// 1-based line of the command.
    pub line: usize,
    /// The command as written (heredoc marker included).
    pub command: String,
    pub heredoc: Option<Heredoc>,
    pub action: Action,
}

impl Step {
    /// What the transcript shows for the command: `$ ` and the line, then a
    /// heredoc's body and terminator.
    pub fn echo(&self) -> String {
        let mut s = format!("$ {}\n", self.command);
        if let Some(h) = &self.heredoc {
            s.push_str(&h.body);
            s.push_str(&h.delimiter);
            s.push('\n');
        }
        s
    }
}

/// A step and what it printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepResult {
    pub step: Step,
    pub output: CommandOutput,
}

/// The result of running a script.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transcript {
    pub steps: Vec<StepResult>,
    /// Set when the script could not be parsed; then no step ran.
    pub error: Option<ScriptError>,
}

impl Transcript {
    /// The transcript text: every step's echo, stdout and stderr.
    pub fn text(&self) -> String {
        let mut s = String::new();
        if let Some(e) = &self.error {
            s.push_str(&format!("error: {e}\n"));
        }
        for r in &self.steps {
            s.push_str(&r.step.echo());
            s.push_str(&r.output.combined());
        }
        s
    }

    /// How many steps failed (non-zero exit code).
    pub fn failures(&self) -> usize {
        self.steps.iter().filter(|r| r.output.code != 0).count()
    }
}

impl fmt::Display for Transcript {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

/// The most lines a script may have; a guard for pasted input in the browser.
pub const MAX_SCRIPT_LINES: usize = 100_000;

/// The most bytes a script may have.
pub const MAX_SCRIPT_BYTES: usize = 16 << 20;

/// Splits a script into steps.
pub fn parse(text: &str) -> Result<Vec<Step>, ScriptError> {
    read(text).map(|r| r.steps)
}

/// A script read into steps, and whether its last command was still open at the end
/// of the text (a trailing backslash, or a quote not yet closed).
struct Read {
    steps: Vec<Step>,
    open: bool,
}

fn read(text: &str) -> Result<Read, ScriptError> {
    if text.len() > MAX_SCRIPT_BYTES {
        return Err(ScriptError {
            line: 1,
            message: format!(
                "the script is {} bytes; a script may have at most {MAX_SCRIPT_BYTES} bytes",
                text.len()
            ),
        });
    }
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() > MAX_SCRIPT_LINES {
        return Err(ScriptError {
            line: MAX_SCRIPT_LINES + 1,
            message: format!("a script may have at most {MAX_SCRIPT_LINES} lines"),
        });
    }
    let mut steps = Vec::new();
    let mut open = false;
    let mut i = 0;
    while i < lines.len() {
        let line_no = i + 1;
        // Blanks as bash has them (space and tab): a NBSP or a lone carriage
        // return stays part of the command, as bash would run it.
        let first = lines[i].trim_start_matches(is_blank);
        i += 1;
        if first.trim_end_matches(is_blank).is_empty() || first.starts_with('#') {
            continue;
        }
        // A backslash at the very end of a line, outside single quotes, joins the
        // next line to it (bash removes both the backslash and the newline), so
        // kubernetes.io's multi-line examples run as one command; a quote still
        // open at the end of a line goes on, newline included, on the next one.
        let mut joined = first.to_string();
        let mut reader = LineReader::default();
        let mut end = reader.line(first);
        while end != LineEnd::Complete && i < lines.len() {
            if end == LineEnd::Backslash {
                joined.pop();
            } else {
                joined.push('\n');
            }
            joined.push_str(lines[i]);
            end = reader.line(lines[i]);
            i += 1;
        }
        open = end != LineEnd::Complete;
        if end == LineEnd::Backslash {
            // At the end of the input bash drops the lone backslash.
            joined.pop();
        }
        let raw = joined.trim_matches(is_blank);
        if raw.is_empty() {
            continue;
        }
        let heredoc_marker = split_heredoc(raw);
        let heredoc = match heredoc_marker {
            None => None,
            Some(marker) => {
                open = false;
                let mut body = String::new();
                let mut terminated = false;
                while i < lines.len() {
                    let l = lines[i];
                    i += 1;
                    let candidate = if marker.strip_tabs {
                        l.trim_start_matches('\t')
                    } else {
                        l
                    };
                    // Only the delimiter alone ends the body: `EOF ` does not.
                    if candidate == marker.delimiter {
                        terminated = true;
                        break;
                    }
                    body.push_str(candidate);
                    body.push('\n');
                }
                if !terminated {
                    return Err(ScriptError {
                        line: line_no,
                        message: format!(
                            "here-document delimited by end-of-file (wanted `{}')",
                            marker.delimiter
                        ),
                    });
                }
                Some(Heredoc {
                    body,
                    delimiter: marker.delimiter,
                })
            }
        };
        steps.push(Step {
            line: line_no,
            command: raw.to_string(),
            heredoc,
            // The shell reads `<<WORD` itself and feeds the body to that command.
            action: parse_action(raw),
        });
    }
    Ok(Read { steps, open })
}

/// Whether `text` (what was typed or pasted so far) still waits for more lines
/// before bash would run it: its last command ends in a continuing backslash or
/// inside a quote, or a here-document has not reached its delimiter. The terminal
/// and the REPL show bash's continuation prompt then instead of running it.
pub fn needs_more(text: &str) -> bool {
    match read(text) {
        Ok(r) => r.open,
        Err(e) => e
            .message
            .starts_with("here-document delimited by end-of-file"),
    }
}

/// Whether a line ends in a backslash that continues it on the next line, as
/// bash reads it: the last character is a backslash that is not itself escaped
/// and not inside single quotes (inside double quotes it continues too).
pub fn ends_in_continuation(line: &str) -> bool {
    LineReader::default().line(line) == LineEnd::Backslash
}

/// How a line of a command leaves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineEnd {
    /// The command is whole.
    Complete,
    /// A backslash ends the line: the next line continues the command.
    Backslash,
    /// A quote is open: the next line is part of the quoted text.
    Quote,
}

/// Reads a command's lines one after another as bash's tokenizer sees quotes,
/// backslashes and comments, in time linear in the text.
#[derive(Default)]
struct LineReader {
    quote: Option<char>,
    /// The character before the current one (a `#` after a blank starts a comment).
    prev: Option<char>,
}

impl LineReader {
    fn line(&mut self, line: &str) -> LineEnd {
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match (self.quote, c) {
                (Some('\''), '\'') => self.quote = None,
                (Some('\''), _) => {}
                (_, '\\') => match chars.next() {
                    None => return LineEnd::Backslash,
                    Some(n) => {
                        self.prev = Some(n);
                        continue;
                    }
                },
                (Some('"'), '"') => self.quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => self.quote = Some(c),
                // bash starts a comment only at the beginning of a word.
                (None, '#')
                    if self
                        .prev
                        .is_none_or(|p| matches!(p, ' ' | '\t' | '\n' | ';' | '|' | '&')) =>
                {
                    return LineEnd::Complete;
                }
                (None, _) => {}
            }
            self.prev = Some(c);
        }
        if self.quote.is_some() {
            self.prev = Some('\n');
            LineEnd::Quote
        } else {
            LineEnd::Complete
        }
    }
}

struct HeredocMarker {
    delimiter: String,
    strip_tabs: bool,
}

/// Finds `<<WORD`, `<< WORD`, `<<'WORD'`, `<<"WORD"` or `<<-WORD` outside quotes
/// (not `<<<`); the line may go on after the word (`cat <<EOF | kubectl apply -f -`).
fn split_heredoc(line: &str) -> Option<HeredocMarker> {
    let bytes = line.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if b == b'\\' => i += 1,
            None if b == b'<' && bytes.get(i + 1) == Some(&b'<') => {
                if bytes.get(i + 2) == Some(&b'<') {
                    i += 3;
                    continue;
                }
                let mut rest = &line[i + 2..];
                let strip_tabs = rest.starts_with('-');
                if strip_tabs {
                    rest = &rest[1..];
                }
                let rest = rest.trim_start_matches(is_blank);
                let end = rest.find(is_metachar).unwrap_or(rest.len());
                let word: String = rest[..end]
                    .chars()
                    .filter(|c| *c != '\'' && *c != '"' && *c != '\\')
                    .collect();
                if word.is_empty() {
                    return None;
                }
                return Some(HeredocMarker {
                    delimiter: word,
                    strip_tabs,
                });
            }
            None => {}
        }
        i += 1;
    }
    None
}

const SIM_USAGE: &str =
    "sim advance DURATION, sim rewind DURATION, sim step, sim node kill NODE, sim node restart NODE, sim node partition NODE, sim node heal NODE, sim node add NODE [OPTIONS], sim stop COMPONENT, sim start COMPONENT, sim why KIND/NAME [-n NAMESPACE], sim why-node pod/NAME [-n NAMESPACE], sim user add NAME [--group GROUP]..., sim etcd status, sim requests, sim etcd stop|start MEMBER, sim etcd snapshot save|restore NAME, sim seed N, sim boot cold|settled, sim config etcd-members N, sim config max-endpoints-per-slice N, sim proxy-mode endpoints|endpointslices, sim stats [reset], sim addons enable|disable metrics-server|ingress|gateway, sim traffic start NAME --to svc/NAME|ingress/NAME|NODE:PORT [--from POD|outside] [--rps N] [--host H] [--path P], sim traffic stop NAME, sim traffic stats|reset, sim request URL [--from POD|TYPE/NAME] [--host H] [--header 'NAME: VALUE'] [--count N]";

const ETCD_USAGE: &str =
    "sim etcd status, sim etcd stop MEMBER, sim etcd start MEMBER, sim etcd snapshot save NAME, sim etcd snapshot restore NAME";

/// What `sim advance` says when the timer guard stopped it before its target.
fn advance_note(
    advanced: warehouse_sim::Advanced,
    reached: SimDuration,
    asked: SimDuration,
) -> Option<String> {
    advanced.stopped_early.then(|| {
        format!(
            "warning: sim advance stopped after {} timers (the most one advance fires), {}s of the {}s asked; run it again to go on",
            advanced.fired,
            reached.as_millis() / 1000,
            asked.as_millis() / 1000
        )
    })
}

/// A `sim` line without shell syntax is parsed now; every other line is the
/// shell's, when it runs.
fn parse_action(command: &str) -> Action {
    let plain = !command.contains(|c: char| "$`'\"\\;&|<>(){}#*?~".contains(c));
    match command.split_once(is_blank) {
        Some(("sim", rest)) if plain => parse_sim(rest.trim_matches(is_blank)),
        None if command == "sim" => parse_sim(""),
        _ => Action::Shell(command.to_string()),
    }
}

/// `sim ...` (without the leading `sim`).
pub fn parse_sim(rest: &str) -> Action {
    let words: Vec<&str> = rest.split(is_blank).filter(|w| !w.is_empty()).collect();
    parse_sim_words(&words, rest)
}

/// The words after `sim` as the shell split them (a quoted `--header 'A: b'` is one
/// word).
pub fn parse_sim_args(args: &[String]) -> Action {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    parse_sim_words(&words, &args.join(" "))
}

fn parse_sim_words(words: &[&str], rest: &str) -> Action {
    if words.is_empty() {
        return Action::Invalid(format!("error: sim needs a command: {SIM_USAGE}"));
    }
    sim_fault(words, rest)
        .or_else(|| sim_setting(words))
        .or_else(|| sim_inspection(words))
        .unwrap_or_else(|| {
            Action::Invalid(format!(
                "error: unknown sim command \"sim {rest}\"; the sim commands are {SIM_USAGE}"
            ))
        })
}

/// `sim advance`, and the faults: `sim node ...`, `sim stop|start COMPONENT`, `sim
/// etcd ...`; `None` for another command.
fn sim_fault(words: &[&str], rest: &str) -> Option<Action> {
    Some(match words {
        ["advance", d] => match parse_duration(d) {
            Ok(d) => Action::Advance(d),
            Err(e) => Action::Invalid(format!("error: sim advance: {e}")),
        },
        ["advance"] => {
            Action::Invalid("error: sim advance needs a duration, e.g. sim advance 30s".into())
        }
        ["rewind", d] => match parse_duration(d) {
            Ok(d) => Action::Rewind(d),
            Err(e) => Action::Invalid(format!("error: sim rewind: {e}")),
        },
        ["rewind"] => {
            Action::Invalid("error: sim rewind needs a duration, e.g. sim rewind 90s".into())
        }
        ["step"] => Action::Step,
        ["node", "kill", name] => Action::Fault(Fault::KillNode(name.to_string())),
        ["node", "restart", name] => Action::Fault(Fault::RestartNode(name.to_string())),
        ["node", "partition", name] => Action::Fault(Fault::PartitionNode(name.to_string())),
        ["node", "heal", name] => Action::Fault(Fault::HealNode(name.to_string())),
        ["node", "add", name, options @ ..] => parse_node_add(name, options),
        [verb @ ("stop" | "start"), component] => match ControlPlaneComponent::parse(component) {
            Some(c) if *verb == "stop" => Action::Fault(Fault::StopComponent(c)),
            Some(c) => Action::Fault(Fault::StartComponent(c)),
            None => Action::Invalid(format!(
                "error: sim {verb}: unknown control-plane component \"{component}\"; the components are {}",
                ControlPlaneComponent::ALL.map(|c| c.short_name()).join(", ")
            )),
        },
        [verb @ ("stop" | "start")] => Action::Invalid(format!(
            "error: sim {verb} needs a component: apiserver, etcd, scheduler or controller-manager"
        )),
        ["etcd", "status"] => Action::EtcdStatus,
        ["etcd", "stop", member] => Action::Fault(Fault::StopEtcdMember(member.to_string())),
        ["etcd", "start", member] => Action::Fault(Fault::StartEtcdMember(member.to_string())),
        ["etcd", "snapshot", "save", name] => Action::EtcdSnapshotSave(name.to_string()),
        ["etcd", "snapshot", "restore", name] => Action::EtcdSnapshotRestore(name.to_string()),
        ["etcd", ..] => Action::Invalid(format!(
            "error: unknown sim etcd command \"sim {rest}\"; the etcd commands are {ETCD_USAGE}"
        )),
        _ => return None,
    })
}

/// The settings of the simulation: `sim user add`, `sim config`, `sim seed`, `sim
/// boot`, `sim proxy-mode`, `sim addons`; `None` for another command.
fn sim_setting(words: &[&str]) -> Option<Action> {
    Some(match words {
        ["user", "add", name, groups @ ..] => parse_user_add(name, groups),
        ["config", "etcd-members", n] => match n.parse::<usize>() {
            Ok(n) => Action::ConfigureEtcdMembers(n),
            Err(_) => Action::Invalid(format!(
                "error: sim config etcd-members needs a number of members, e.g. 3 (got \"{n}\")"
            )),
        },
        ["seed", n] => match n.parse::<u64>() {
            Ok(n) => Action::Seed(n),
            Err(_) => Action::Invalid(format!(
                "error: sim seed needs a number, e.g. sim seed 42 (got \"{n}\")"
            )),
        },
        ["boot", mode] => match warehouse_sim::Boot::parse(mode) {
            Some(b) => Action::Boot(b),
            None => Action::Invalid(format!(
                "error: sim boot takes cold or settled, e.g. sim boot cold (got \"{mode}\")"
            )),
        },
        ["boot", ..] => Action::Invalid(
            "error: sim boot takes cold or settled: sim boot cold starts at simulated second 0, sim boot settled (the default) a few minutes after"
                .into(),
        ),
        ["config", "max-endpoints-per-slice", n] => match n.parse::<usize>() {
            Ok(n) => Action::ConfigureMaxEndpointsPerSlice(n),
            Err(_) => Action::Invalid(format!(
                "error: sim config max-endpoints-per-slice needs a number, e.g. 5 (got \"{n}\")"
            )),
        },
        ["config", ..] => Action::Invalid(
            "error: the sim config settings are etcd-members N and max-endpoints-per-slice N, e.g. sim config etcd-members 3"
                .into(),
        ),
        ["proxy-mode", mode] => match warehouse_sim::ProxyMode::parse(mode) {
            Some(m) => Action::ProxyMode(m),
            None => Action::Invalid(format!(
                "error: sim proxy-mode takes endpoints or endpointslices (got \"{mode}\")"
            )),
        },
        ["proxy-mode", ..] => Action::Invalid(
            "error: sim proxy-mode takes endpoints or endpointslices, e.g. sim proxy-mode endpoints"
                .into(),
        ),
        // `minikube addons enable NAME`; `addon` is accepted too.
        ["addons" | "addon", "enable", "ingress"] => Action::EnableIngress,
        ["addons" | "addon", "enable", "gateway"] => Action::EnableGateway,
        ["addons" | "addon", "disable", "gateway"] => Action::Invalid(
            "error: sim addons: the gateway add-on stays once enabled in this simulation (start a new warehouse to be without it)"
                .into(),
        ),
        ["addons" | "addon", verb @ ("enable" | "disable"), "metrics-server"] => Action::Addon {
            name: "metrics-server".to_string(),
            enable: *verb == "enable",
        },
        ["addons" | "addon", "disable", "ingress"] => Action::Invalid(
            "error: sim addons: the ingress add-on stays once enabled in this simulation (start a new warehouse to be without it)"
                .into(),
        ),
        ["addons" | "addon", "enable" | "disable", name] => Action::Invalid(format!(
            "error: sim addons: unknown add-on \"{name}\" (the simulation has metrics-server, ingress and gateway)"
        )),
        ["addons" | "addon", ..] => Action::Invalid(
            "error: sim addons takes enable or disable and an add-on: sim addons enable metrics-server|ingress|gateway"
                .into(),
        ),
        _ => return None,
    })
}

/// The commands that explain or measure: `sim why`, `sim why-node`, `sim requests`,
/// `sim stats`, `sim help`, `sim traffic`, `sim request`; `None` for another command.
fn sim_inspection(words: &[&str]) -> Option<Action> {
    Some(match words {
        ["why", target] => Action::Why {
            target: target.to_string(),
            namespace: None,
        },
        ["why", target, "-n" | "--namespace", ns] | ["why", "-n" | "--namespace", ns, target] => {
            Action::Why {
                target: target.to_string(),
                namespace: Some(ns.to_string()),
            }
        }
        ["why-node", target] => Action::WhyNode {
            target: target.to_string(),
            namespace: None,
        },
        ["why-node", target, "-n" | "--namespace", ns]
        | ["why-node", "-n" | "--namespace", ns, target] => Action::WhyNode {
            target: target.to_string(),
            namespace: Some(ns.to_string()),
        },
        ["why-node", ..] => Action::Invalid(
            "error: sim why-node needs one pod, e.g. sim why-node pod/web-1 [-n NAMESPACE]".into(),
        ),
        ["why", ..] => Action::Invalid("error: sim why needs one object, e.g. sim why pod/web-1 or sim why deployment/web -n shop".into()),
        ["requests"] => Action::Requests,
        ["requests", ..] => Action::Invalid("error: sim requests takes no arguments".into()),
        ["help"] | ["--help"] => Action::Help,
        ["stats"] => Action::Stats,
        ["stats", "reset"] => Action::StatsReset,
        ["stats", ..] => {
            Action::Invalid("error: sim stats takes nothing or reset: sim stats [reset]".into())
        }
        ["traffic", rest @ ..] => match warehouse_sim::network::traffic::parse_traffic(rest) {
            Ok(cmd) => Action::Traffic(cmd),
            Err(e) => Action::Invalid(e),
        },
        ["request", rest @ ..] => match warehouse_sim::network::traffic::parse_request(rest) {
            Ok(cmd) => Action::Traffic(cmd),
            Err(e) => Action::Invalid(e),
        },
        _ => return None,
    })
}

/// `--from TYPE/NAME` (`deploy/web`, `svc/web`): the workload's first pod, ready ones
/// first, as `kubectl exec` picks one; a plain pod name is left as it is.
fn workload_source(
    cluster: &warehouse_sim::Cluster,
    mut cmd: warehouse_sim::network::traffic::TrafficCommand,
) -> Result<warehouse_sim::network::traffic::TrafficCommand, String> {
    use warehouse_sim::network::traffic::TrafficCommand;
    if let TrafficCommand::Start { from, .. } | TrafficCommand::Request { from, .. } = &mut cmd {
        if let warehouse_sim::network::http::RequestSource::Pod { namespace, name } = from {
            if name.contains('/') {
                *name = crate::cmd::exec::pod_for_counted(cluster, namespace, name)?.0;
            }
        }
    }
    Ok(cmd)
}

/// `sim user add NAME [--group GROUP]...`.
fn parse_user_add(name: &str, groups: &[&str]) -> Action {
    let mut gs = Vec::new();
    let mut it = groups.iter();
    while let Some(flag) = it.next() {
        match (*flag, it.next()) {
            ("--group", Some(g)) => gs.push(g.to_string()),
            _ => {
                return Action::Invalid(
                    "error: sim user add NAME takes only --group GROUP options".into(),
                )
            }
        }
    }
    Action::AddUser {
        name: name.to_string(),
        groups: gs,
    }
}

const NODE_ADD_USAGE: &str = "error: sim node add NAME [--cpu CORES] [--memory QUANTITY] [--gpu N] [--labels k=v,...] [--taint key=value:Effect]...";

/// `sim node add`: a worker with 4 CPUs, 8Gi and no GPU unless told otherwise.
fn parse_node_add(name: &str, options: &[&str]) -> Action {
    let mut spec = warehouse_sim::NodeSpec::worker(name);
    let mut it = options.iter();
    while let Some(flag) = it.next() {
        let Some(value) = it.next() else {
            return Action::Invalid(NODE_ADD_USAGE.into());
        };
        match *flag {
            "--cpu" => match warehouse_sim::object::quantity::cpu_millis(value) {
                Some(m) if m > 0 && m <= 1_024_000 => spec.cpu_milli = m,
                _ => return Action::Invalid(format!("error: invalid --cpu \"{value}\"")),
            },
            "--memory" => match warehouse_sim::object::quantity::bytes(value) {
                Some(b) if b > 0 && b <= 64 << 40 => spec.memory_bytes = b,
                _ => return Action::Invalid(format!("error: invalid --memory \"{value}\"")),
            },
            "--gpu" => match value.parse::<u32>() {
                Ok(n) if n <= 64 => spec.gpus = n,
                _ => return Action::Invalid(format!("error: invalid --gpu \"{value}\"")),
            },
            "--labels" => {
                for pair in value.split(',') {
                    match pair.split_once('=') {
                        Some((k, v)) if !k.is_empty() => {
                            spec.labels.insert(k.to_string(), v.to_string());
                        }
                        _ => {
                            return Action::Invalid(format!(
                                "error: invalid label \"{pair}\"; use key=value"
                            ))
                        }
                    }
                }
            }
            "--taint" => {
                let parsed = value
                    .rsplit_once(':')
                    .map(|(kv, effect)| match kv.split_once('=') {
                        Some((k, v)) => (k.to_string(), v.to_string(), effect.to_string()),
                        None => (kv.to_string(), String::new(), effect.to_string()),
                    });
                match parsed {
                    Some(t) if !t.0.is_empty() => spec.taints.push(t),
                    _ => {
                        return Action::Invalid(format!(
                            "error: invalid taint \"{value}\"; use key=value:Effect"
                        ))
                    }
                }
            }
            _ => return Action::Invalid(NODE_ADD_USAGE.into()),
        }
    }
    Action::AddNode(spec)
}

/// Runs one step against the session, as an input of its history.
pub fn execute(session: &mut Session, step: &Step, files: &dyn FileSource) -> CommandOutput {
    let stdin = step.heredoc.as_ref().map(|h| h.body.as_str());
    if records_itself(&step.action) || (stdin.is_none() && reads_only(&step.command)) {
        return execute_action(session, &step.action, stdin, files);
    }
    let input = |files| crate::journal::Input::Shell {
        line: step.command.clone(),
        stdin: stdin.map(str::to_string),
        files,
    };
    session.recorded(files, input, |s, files| {
        execute_action(s, &step.action, stdin, files)
    })
}

/// Whether an action is its own entry of the session's history (an advance or a
/// fault, which a rewind can land inside of or replay alone) or none (a rewind).
pub(crate) fn records_itself(action: &Action) -> bool {
    matches!(
        action,
        Action::Advance(_) | Action::Fault(_) | Action::Rewind(_) | Action::Step
    )
}

/// Whether a terminal line only looks: a plain `kubectl` command that changes
/// nothing and takes no simulated time (`get`, `describe`, `logs`, ...), a `sim`
/// inspection (`sim why`, `sim requests`, ...), or a `sim` line that is refused.
/// Such a line is not an input of the session's history: it neither is replayed
/// nor forks the history after a rewind. (It still passes the reception desk,
/// whose log keeps it only until a rewind goes back before it.)
pub(crate) fn reads_only(line: &str) -> bool {
    let line = line.trim_matches(is_blank);
    if line.contains(|c: char| "$`'\"\\;&|<>(){}#*?~".contains(c)) {
        return false;
    }
    match plain_sim(line) {
        Some(
            Action::Why { .. }
            | Action::WhyNode { .. }
            | Action::Requests
            | Action::Help
            | Action::Stats
            | Action::EtcdStatus
            | Action::Invalid(_),
        ) => return true,
        Some(_) => return false,
        None => {}
    }
    let words: Vec<String> = line
        .split(is_blank)
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    words.first().is_some_and(|w| w == "kubectl")
        && crate::kubectl_access(&words[1..]) == Ok(crate::Access::Reads)
}

/// The `sim` line of a fault (what [`parse_sim`] reads back).
pub fn fault_line(fault: &Fault) -> String {
    match fault {
        Fault::KillNode(n) => format!("sim node kill {n}"),
        Fault::RestartNode(n) => format!("sim node restart {n}"),
        Fault::PartitionNode(n) => format!("sim node partition {n}"),
        Fault::HealNode(n) => format!("sim node heal {n}"),
        Fault::StopComponent(c) => format!("sim stop {}", c.short_name()),
        Fault::StartComponent(c) => format!("sim start {}", c.short_name()),
        Fault::StopEtcdMember(m) => format!("sim etcd stop {m}"),
        Fault::StartEtcdMember(m) => format!("sim etcd start {m}"),
    }
}

/// A terminal line that is a plain `sim` command (no shell syntax), parsed.
pub(crate) fn plain_sim(line: &str) -> Option<Action> {
    match parse_action(line.trim_matches(is_blank)) {
        Action::Shell(_) => None,
        action => Some(action),
    }
}

/// How far `sim step` looks for something to happen.
pub const STEP_WITHIN: SimDuration = SimDuration::from_secs_i64(300);

/// What `sim step` says: how far the clock went and what happened there.
pub fn step_line(stepped: &crate::journal::Stepped, now: warehouse_sim::SimTime) -> String {
    use warehouse_sim::views::feed::{Change, FeedEvent};
    let at = crate::printers::humanize::human_duration(now.0 as i64);
    let went = match stepped.by.as_millis() {
        0 => format!("at {at} after the start, the same moment"),
        ms @ 1..=999 => format!("{ms}ms on, at {at} after the start"),
        ms => format!(
            "{} on, at {at} after the start",
            crate::printers::humanize::human_duration(ms as i64)
        ),
    };
    let what = match &stepped.first {
        None => {
            return format!(
                "{went}: nothing happened within {}",
                crate::printers::humanize::human_duration(STEP_WITHIN.as_millis() as i64)
            )
        }
        Some(FeedEvent::Request {
            user,
            verb,
            target,
            code,
            ..
        }) => format!("{user} sent {verb} {target} to the apiserver ({code})"),
        Some(FeedEvent::Write {
            actor,
            kind,
            namespace,
            name,
            change,
            ..
        }) => {
            let change = match change {
                Change::Added => "created",
                Change::Modified => "updated",
                Change::Deleted => "deleted",
            };
            let at = if namespace.is_empty() {
                String::new()
            } else {
                format!(" in {namespace}")
            };
            format!("{actor}'s write: {kind} {name}{at} {change}")
        }
        Some(FeedEvent::Order {
            source,
            pod,
            failure,
            ..
        }) => match (pod, failure) {
            (_, Some(f)) => format!("traffic {source}: a request failed ({f})"),
            (Some(p), None) => format!("traffic {source}: a request answered by {p}"),
            (None, None) => format!("traffic {source}: a request"),
        },
    };
    format!("{went}: {what}")
}

/// `sim rewind`: back in the session's history.
fn rewind(session: &mut Session, by: SimDuration) -> CommandOutput {
    let from = session.cluster.now();
    match session.rewind(by) {
        Ok(r) => {
            let mut out = CommandOutput::new();
            let at =
                |t: warehouse_sim::SimTime| crate::printers::humanize::human_duration(t.0 as i64);
            out.out_line(format!(
                "rewound {} to {} after the start; the history reaches back to {}",
                crate::printers::humanize::human_duration(from.since(r.now).as_millis() as i64),
                at(r.now),
                at(r.earliest)
            ));
            let ahead = session.journal().future_len();
            if ahead > 0 {
                let (inputs, are) = if ahead == 1 {
                    ("input", "is")
                } else {
                    ("inputs", "are")
                };
                out.out_line(format!(
                    "{ahead} later {inputs} {are} replayed as the clock runs; a new command starts a new history from here"
                ));
            }
            out
        }
        Err(e) => CommandOutput::error(format!("error: sim rewind: {e}")),
    }
}

/// Runs one action; `stdin` is a heredoc's body.
pub(crate) fn execute_action(
    session: &mut Session,
    action: &Action,
    stdin: Option<&str>,
    files: &dyn FileSource,
) -> CommandOutput {
    match action {
        Action::Shell(line) => crate::shell::run_line(session, line, stdin, files),
        Action::Rewind(by) => rewind(session, *by),
        Action::Step => {
            let stepped = session.step(STEP_WITHIN);
            let mut out = CommandOutput::new();
            out.out_line(step_line(&stepped, session.cluster.now()));
            out
        }
        Action::Advance(d) => {
            let before = session.cluster.now();
            let advanced = session.advance(*d);
            let mut out = CommandOutput::default();
            if let Some(note) = advance_note(advanced, session.cluster.now().since(before), *d) {
                out.err_line(note);
            }
            out
        }
        Action::Fault(f) => match session.fault(f.clone()) {
            Ok(msg) => {
                let mut out = CommandOutput::new();
                out.out_line(msg);
                out
            }
            Err(e) => CommandOutput::error(format!("error: {e}")),
        },
        Action::Why { target, namespace } => why(session, target, namespace.as_deref()),
        Action::WhyNode { target, namespace } => why_node(session, target, namespace.as_deref()),
        Action::ConfigureEtcdMembers(n) => sim_result(session.cluster.configure_etcd_members(*n)),
        Action::Seed(n) => sim_result(session.cluster.reseed(*n)),
        Action::Boot(b) => sim_result(session.cluster.configure_boot(*b)),
        Action::ConfigureMaxEndpointsPerSlice(n) => {
            match session.cluster.set_max_endpoints_per_slice(*n) {
                Ok(msg) => {
                    let mut out = CommandOutput::new();
                    out.out_line(msg);
                    out
                }
                Err(e) => CommandOutput::error(format!("error: {e}")),
            }
        }
        Action::EtcdStatus => {
            let mut out = CommandOutput::new();
            for line in session.cluster.etcd_status().lines() {
                out.out_line(line);
            }
            out
        }
        Action::Requests => {
            let mut out = CommandOutput::new();
            out.stdout = desk_log(&session.cluster);
            out
        }
        Action::EtcdSnapshotSave(name) => sim_result(session.cluster.etcd_snapshot_save(name)),
        Action::EtcdSnapshotRestore(name) => {
            sim_result(session.cluster.etcd_snapshot_restore(name))
        }
        Action::AddNode(spec) => match session.cluster.add_node(spec.clone()) {
            Ok(msg) => {
                let mut out = CommandOutput::new();
                out.out_line(msg);
                out
            }
            Err(e) => CommandOutput::error(format!("error: {e}")),
        },
        Action::AddUser { name, groups } => {
            let token = match session.cluster.add_user(name, groups) {
                Ok(t) => t,
                Err(e) => return CommandOutput::error(format!("error: sim user add: {e}")),
            };
            let mut out = CommandOutput::new();
            out.out_line(format!(
                "user \"{name}\" added; kubectl --token={token} authenticates as it"
            ));
            out
        }
        Action::ProxyMode(mode) => {
            let mut out = CommandOutput::new();
            out.out_line(session.cluster.set_proxy_mode(*mode));
            out
        }
        Action::Addon { enable, .. } => {
            let result = if *enable {
                session.cluster.enable_metrics_server()
            } else {
                session.cluster.disable_metrics_server()
            };
            match result {
                Ok(text) => {
                    let mut out = CommandOutput::new();
                    for line in text.lines() {
                        out.out_line(line);
                    }
                    out
                }
                Err(e) => CommandOutput::error(crate::errors::render(&e, None)),
            }
        }
        Action::Help => {
            let mut out = CommandOutput::new();
            out.out_line("The simulation's own commands (kubectl works as usual):");
            for usage in SIM_USAGE.split(", sim ") {
                out.out_line(format!("  sim {}", usage.trim_start_matches("sim ")));
            }
            out
        }
        Action::Stats => {
            let mut out = CommandOutput::new();
            for line in session.cluster.watcher_stats_table().lines() {
                out.out_line(line);
            }
            out
        }
        Action::StatsReset => {
            session.cluster.reset_watcher_stats();
            let mut out = CommandOutput::new();
            out.out_line("watcher counters reset");
            out
        }
        Action::Traffic(cmd) => match workload_source(&session.cluster, cmd.clone())
            .and_then(|cmd| session.cluster.traffic_command(&cmd))
        {
            Ok(text) => {
                let mut out = CommandOutput::new();
                for line in text.lines() {
                    out.out_line(line);
                }
                out
            }
            Err(e) => CommandOutput::error(e),
        },
        Action::EnableIngress => sim_result(session.cluster.enable_ingress_addon()),
        Action::EnableGateway => sim_result(session.cluster.enable_gateway_addon()),
        Action::Invalid(msg) => CommandOutput::error(msg),
    }
}

/// The lines of a `sim` command's result, or its error.
fn sim_result(result: Result<String, warehouse_sim::SimError>) -> CommandOutput {
    match result {
        Ok(text) => {
            let mut out = CommandOutput::new();
            for line in text.lines() {
                out.out_line(line);
            }
            out
        }
        Err(e) => CommandOutput::error(format!("error: {e}")),
    }
}

/// `sim why KIND/NAME`: the chain of writes that led to the object's latest state.
fn why(session: &Session, target: &str, namespace: Option<&str>) -> CommandOutput {
    let Some((kind, name)) = target.split_once('/') else {
        return CommandOutput::error(format!(
            "error: sim why needs KIND/NAME, e.g. sim why pod/web-1 (got \"{target}\")"
        ));
    };
    let Some(kind) = session.cluster.resolve_kind(kind) else {
        return CommandOutput::error(format!(
            "error: the server doesn't have a resource type \"{kind}\""
        ));
    };
    let ns = namespace.unwrap_or(&session.namespace);
    let key = warehouse_sim::ObjectKey::new(kind, ns, name);
    let mut out = CommandOutput::new();
    for line in session.cluster.why_text(&key).lines() {
        out.out_line(line);
    }
    out
}

/// `sim why-node pod/NAME`: the scheduler's latest attempt for the pod, one row per
/// node: the filter that rejected it, or each score plugin's raw score, normalised
/// score and weighted score, and the total.
fn why_node(session: &Session, target: &str, namespace: Option<&str>) -> CommandOutput {
    let name = match target.split_once('/') {
        Some(("pod" | "pods" | "po", name)) if !name.is_empty() => name,
        _ => {
            return CommandOutput::error(format!(
                "error: sim why-node needs pod/NAME, e.g. sim why-node pod/web-1 (got \"{target}\")"
            ))
        }
    };
    let ns = namespace.unwrap_or(&session.namespace);
    let key = warehouse_sim::ObjectKey::new(warehouse_sim::Kind::Pod, ns, name);
    let Some(d) = session.cluster.scheduling_decision(&key) else {
        return CommandOutput::error(format!(
            "error: the scheduler has no decision for pod \"{name}\" in namespace \"{ns}\" (bound at creation, or not seen yet)"
        ));
    };
    let mut out = CommandOutput::new();
    out.out_line(format!(
        "pod {ns}/{name}: attempt {} at {}: {}",
        d.attempt,
        warehouse_sim::time::go_duration(SimDuration::millis(d.at.0)),
        d.message
    ));
    if d.verdicts.is_empty() {
        return out;
    }
    let mut plugins: Vec<String> = Vec::new();
    for v in &d.verdicts {
        for s in &v.scores {
            if !plugins.contains(&s.plugin) {
                plugins.push(s.plugin.clone());
            }
        }
    }
    let mut header = vec!["NODE".to_string(), "FILTER".to_string()];
    header.extend(plugins.iter().cloned());
    header.push("TOTAL".to_string());
    let mut rows = vec![header];
    for v in &d.verdicts {
        let mut row = vec![
            if d.chosen.as_deref() == Some(v.node.as_str()) {
                format!("{} *", v.node)
            } else {
                v.node.clone()
            },
            match &v.failed_plugin {
                Some(p) => format!("{p}: {}", v.reasons.join(", ")),
                None => "passed".to_string(),
            },
        ];
        for p in &plugins {
            row.push(match v.scores.iter().find(|s| &s.plugin == p) {
                Some(s) => format!("{}->{} x{}={}", s.raw, s.normalized, s.weight, s.weighted),
                None => String::new(),
            });
        }
        row.push(if v.failed_plugin.is_some() {
            String::new()
        } else {
            v.total.to_string()
        });
        rows.push(row);
    }
    for line in crate::printers::table::format(&rows).lines() {
        out.out_line(line.trim_end());
    }
    out.out_line("(score cells: raw->normalised xweight=weighted; * the chosen node)");
    out
}

/// Parses and runs a script. A script that does not parse runs no step at all.
pub fn run(session: &mut Session, text: &str, files: &dyn FileSource) -> Transcript {
    let mut steps = Vec::new();
    let error = run_each(session, text, files, |r| steps.push(r)).err();
    Transcript { steps, error }
}

/// Parses a script and runs it step by step, handing each step and its output to
/// `each` as soon as it ran, so a caller can print a long transcript without
/// holding it. A script that does not parse runs no step and is the error.
pub fn run_each(
    session: &mut Session,
    text: &str,
    files: &dyn FileSource,
    mut each: impl FnMut(StepResult),
) -> Result<(), ScriptError> {
    for step in parse(text)? {
        let output = execute(session, &step, files);
        each(StepResult { step, output });
    }
    Ok(())
}

/// How many of your latest writes `sim requests` lists.
pub const DESK_LOG_LINES: usize = 20;

/// `sim requests`: your latest writes at the reception desk, oldest first, and how
/// each ended: `201 stored`, or the code and the check that refused it. Requests the
/// cluster's own components make (users `system:...`) are left out.
fn desk_log(cluster: &warehouse_sim::Cluster) -> String {
    let mine: Vec<_> = cluster
        .requests()
        .rev()
        .filter(|r| r.by_learner())
        .take(DESK_LOG_LINES)
        .collect();
    if mine.is_empty() {
        return "No requests from you yet: the desk logs the writes you send (create, update, delete).\n".to_string();
    }
    let now = cluster.now();
    let mut text = String::from("AGE\tUSER\tVERB\tNAMESPACE\tTARGET\tRESULT\n");
    for r in mine.into_iter().rev() {
        let result = match r.stages.iter().find(|(_, passed)| !passed) {
            Some((stage, _)) => format!("{} refused by {}", r.code, stage.as_str()),
            None => format!("{} stored", r.code),
        };
        let age = crate::printers::humanize::human_duration(now.since(r.at).as_millis() as i64);
        let namespace = if r.namespace.is_empty() {
            "-"
        } else {
            &r.namespace
        };
        text.push_str(&format!(
            "{age}\t{}\t{}\t{namespace}\t{}\t{result}\n",
            r.user,
            r.verb,
            r.target()
        ));
    }
    crate::printers::tabwriter::align(&text, 0, 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_comments_and_blank_lines_and_reads_heredocs() {
        let steps = parse(
            "# setup\n\nkubectl apply -f - <<'EOF'\napiVersion: v1\nkind: Namespace\nEOF\nsim advance 30s\n",
        )
        .unwrap();
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0].line, 3);
        assert_eq!(
            steps[0].action,
            Action::Shell("kubectl apply -f - <<'EOF'".into())
        );
        let h = steps[0].heredoc.as_ref().unwrap();
        assert_eq!(h.body, "apiVersion: v1\nkind: Namespace\n");
        assert_eq!(h.delimiter, "EOF");
        assert_eq!(
            steps[0].echo(),
            "$ kubectl apply -f - <<'EOF'\napiVersion: v1\nkind: Namespace\nEOF\n"
        );
        assert_eq!(steps[1].action, Action::Advance(SimDuration::secs(30)));
    }

    #[test]
    fn a_backslash_at_the_end_of_a_line_continues_the_command() {
        let steps =
            parse("kubectl delete deployment web \\\n  -n shop\nkubectl get pods\n").unwrap();
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0].line, 1);
        assert_eq!(
            steps[0].action,
            Action::Shell("kubectl delete deployment web   -n shop".into())
        );
        assert_eq!(steps[1].line, 3);
        // Several lines, and a heredoc after the continued line.
        let steps = parse("kubectl create deployment web \\\n  --image=nginx \\\n  --replicas=2\nkubectl apply -f - \\\n<<EOF\na: b\nEOF\n").unwrap();
        assert_eq!(
            steps[0].action,
            Action::Shell("kubectl create deployment web   --image=nginx   --replicas=2".into())
        );
        assert_eq!(steps[1].heredoc.as_ref().unwrap().body, "a: b\n");
        // Not continued: inside single quotes, an escaped backslash, a comment,
        // a backslash followed by a space.
        for line in [
            "echo 'a \\",
            "echo a \\\\",
            "echo a # note \\",
            "echo a \\ ",
        ] {
            assert!(!ends_in_continuation(line), "{line}");
        }
        assert!(ends_in_continuation("echo \"a \\"));
        assert!(ends_in_continuation("kubectl get pods#x \\"));
        // A lone backslash at the end of the input is dropped, as bash does.
        let steps = parse("kubectl get pods \\").unwrap();
        assert_eq!(steps[0].action, Action::Shell("kubectl get pods".into()));
    }

    #[test]
    fn any_delimiter_word_works() {
        let steps = parse("kubectl apply -f - << END\na: b\nEND\n").unwrap();
        assert_eq!(steps[0].heredoc.as_ref().unwrap().delimiter, "END");
        assert_eq!(
            steps[0].action,
            Action::Shell("kubectl apply -f - << END".into())
        );
        let steps = parse("cat <<EOF | kubectl apply -f -\na: b\nEOF\n").unwrap();
        assert_eq!(steps[0].heredoc.as_ref().unwrap().body, "a: b\n");
    }

    #[test]
    fn unterminated_heredoc_is_a_parse_error() {
        let e = parse("kubectl get pods\nkubectl apply -f - <<EOF\na: b\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("wanted `EOF'"), "{e}");
    }

    #[test]
    fn other_programs_go_to_the_shell_and_bad_sim_commands_become_error_steps() {
        let steps = parse("foo bar\nsim fly\nsim advance soon\nsim node kill zone-a\n").unwrap();
        assert_eq!(steps[0].action, Action::Shell("foo bar".into()));
        assert!(
            matches!(&steps[1].action, Action::Invalid(m) if m.contains("unknown sim command"))
        );
        assert!(
            matches!(&steps[2].action, Action::Invalid(m) if m.starts_with("error: sim advance"))
        );
        assert_eq!(
            steps[3].action,
            Action::Fault(Fault::KillNode("zone-a".into()))
        );
    }

    #[test]
    fn only_spaces_and_tabs_are_blanks_as_in_bash() {
        // A non-breaking space copied from a web page is part of the word.
        let steps =
            parse("\u{a0}sim advance 30s\nsim advance\u{a0}30s\n\tsim advance 30s \n").unwrap();
        assert_eq!(
            steps[0].action,
            Action::Shell("\u{a0}sim advance 30s".into())
        );
        assert!(
            matches!(&steps[1].action, Action::Invalid(m) if m.contains("unknown sim command")),
            "{:?}",
            steps[1].action
        );
        assert_eq!(steps[2].action, Action::Advance(SimDuration::secs(30)));
        let mut session = Session::new(warehouse_sim::Cluster::new(
            1,
            warehouse_sim::Topology::default(),
        ));
        let t = run(
            &mut session,
            "\u{a0}echo hi\r\necho a\u{2028}b\u{b}\n",
            &crate::context::NoFiles,
        );
        assert_eq!(
            t.text(),
            "$ \u{a0}echo hi\nbash: \u{a0}echo: command not found\n$ echo a\u{2028}b\u{b}\na\u{2028}b\u{b}\n"
        );
        // A here-document's delimiter ends at a blank or an operator, not at a NBSP.
        let steps = parse("cat <<E\u{a0}F\nbody\nE\u{a0}F\n").unwrap();
        assert_eq!(steps[0].heredoc.as_ref().unwrap().delimiter, "E\u{a0}F");
    }

    #[test]
    fn heredoc_markers_inside_quotes_are_not_heredocs() {
        let steps = parse("kubectl get pods -l 'a<<b'\n").unwrap();
        assert!(steps[0].heredoc.is_none());
    }

    const RUN: &str = "sim config etcd-members 3
kubectl create deployment web --image=nginx:1.27 --replicas=4
sim advance 30s
sim etcd snapshot save backup
sim node kill zone-a
sim etcd stop etcd-2
sim advance 2m
kubectl delete deployment web
sim advance 30s
sim etcd snapshot restore backup
sim advance 1m
";

    /// Runs `RUN` on a new cluster; returns the state's hash and the web pods' names.
    fn final_state(seed: u64) -> (u64, Vec<String>) {
        let mut session = Session::new(warehouse_sim::Cluster::new(
            seed,
            warehouse_sim::Topology::default(),
        ));
        let transcript = run(&mut session, RUN, &crate::context::NoFiles);
        assert_eq!(transcript.failures(), 0, "{transcript}");
        let hash = warehouse_sim::snapshot::fnv1a64(&session.cluster.snapshot());
        let names = session
            .cluster
            .list(warehouse_sim::Kind::Pod, Some("default"))
            .iter()
            .map(|p| p.name().to_string())
            .collect();
        (hash, names)
    }

    #[test]
    fn the_same_script_and_seed_give_the_same_state_and_another_seed_other_names() {
        let (a, names_a) = final_state(1);
        let (b, names_b) = final_state(1);
        assert_eq!(a, b, "seed 1 twice");
        assert_eq!(names_a, names_b);
        assert_eq!(names_a.len(), 4, "{names_a:?}");
        let (c, names_c) = final_state(2);
        assert_ne!(a, c);
        assert_ne!(names_a, names_c, "seed 2 names pods differently");
    }

    #[test]
    fn etcd_commands_parse() {
        let steps = parse(
            "sim etcd status\nsim etcd stop etcd-1\nsim etcd snapshot save b\nsim etcd snapshot restore b\nsim config etcd-members 3\nsim etcd fly\n",
        )
        .unwrap();
        assert_eq!(steps[0].action, Action::EtcdStatus);
        assert_eq!(
            steps[1].action,
            Action::Fault(Fault::StopEtcdMember("etcd-1".into()))
        );
        assert_eq!(steps[2].action, Action::EtcdSnapshotSave("b".into()));
        assert_eq!(steps[3].action, Action::EtcdSnapshotRestore("b".into()));
        assert_eq!(steps[4].action, Action::ConfigureEtcdMembers(3));
        assert!(
            matches!(&steps[5].action, Action::Invalid(m) if m.contains("unknown sim etcd command"))
        );
    }

    #[test]
    fn sim_boot_parses_cold_and_settled_and_explains_anything_else() {
        let steps = parse("sim boot cold\nsim boot settled\nsim boot warm\nsim boot\n").unwrap();
        assert_eq!(steps[0].action, Action::Boot(warehouse_sim::Boot::Cold));
        assert_eq!(steps[1].action, Action::Boot(warehouse_sim::Boot::Settled));
        assert!(
            matches!(&steps[2].action, Action::Invalid(m) if m.contains("cold or settled") && m.contains("\"warm\""))
        );
        assert!(matches!(&steps[3].action, Action::Invalid(m) if m.contains("cold or settled")));
        assert!(SIM_USAGE.contains("sim boot cold|settled"));
    }

    #[test]
    fn sim_boot_rebuilds_first_in_a_script_and_is_refused_later() {
        let mut session = Session::settled(1);
        let t = run(
            &mut session,
            "sim seed 3\nsim boot cold\nsim config etcd-members 3\n",
            &crate::context::NoFiles,
        );
        assert_eq!(t.failures(), 0, "{t}");
        assert_eq!(session.cluster.now(), warehouse_sim::SimTime(0));
        assert_eq!(session.cluster.seed(), 3);
        assert_eq!(session.cluster.boot(), warehouse_sim::Boot::Cold);

        let t = run(
            &mut session,
            "sim boot settled\nsim advance 1s\nsim boot cold\n",
            &crate::context::NoFiles,
        );
        assert_eq!(t.failures(), 1, "{t}");
        assert!(
            t.text().contains("error: the boot mode is fixed when the cluster is created: sim boot must come first, before anything else happens"),
            "{t}"
        );
        assert_eq!(session.cluster.boot(), warehouse_sim::Boot::Settled);
        assert_eq!(
            session.cluster.now(),
            warehouse_sim::SimTime(0) + warehouse_sim::SETTLE_TIME + SimDuration::secs(1)
        );
    }

    #[test]
    fn sim_help_lists_every_sim_command_one_a_line() {
        let mut session = Session::settled(1);
        let t = run(&mut session, "sim help\n", &crate::context::NoFiles);
        assert_eq!(t.failures(), 0, "{t}");
        let text = t.to_string();
        for cmd in [
            "sim advance DURATION",
            "sim node kill NODE",
            "sim why-node pod/NAME",
            "sim request URL",
        ] {
            assert!(
                text.lines().any(|l| l.trim_start().starts_with(cmd)),
                "{cmd} in {text}"
            );
        }
        assert!(!text.contains(", sim "), "one command a line: {text}");
    }

    #[test]
    fn an_advance_stopped_by_the_timer_guard_says_so() {
        use warehouse_sim::Advanced;
        let done = Advanced {
            fired: 12,
            stopped_early: false,
        };
        assert_eq!(
            advance_note(done, SimDuration::secs(30), SimDuration::secs(30)),
            None
        );
        let stopped = Advanced {
            fired: 5_000_000,
            stopped_early: true,
        };
        let note = advance_note(stopped, SimDuration::secs(7), SimDuration::secs(3600)).unwrap();
        assert!(
            note.contains("5000000 timers") && note.contains("7s of the 3600s"),
            "{note}"
        );
    }
}
