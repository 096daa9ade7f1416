//! Scripts and transcripts (DESIGN.md §4).
//!
//! A script is one command a line: `kubectl ...` lines go to kubectl, `sim ...`
//! lines drive the simulation (`sim advance 90s`, `sim node kill zone-b`,
//! `sim node restart zone-b`, `sim stop scheduler`, `sim start scheduler`). `#` comments and blank lines are skipped. A kubectl
//! line may end in a heredoc (`kubectl apply -f - <<EOF`, any delimiter word, also
//! quoted) whose body, up to the line holding only the delimiter, is its stdin.
//!
//! Running a script prints a transcript: each command after `$ ` (a heredoc with
//! its body and terminator line, as a terminal shows them), then the command's
//! stdout and stderr. A failing command does not stop the script.
//!
//! Everything here is pure: files come from the [`FileSource`], paths as written in
//! the script (the caller resolves them against the script's folder).

use crate::{CommandOutput, FileSource, Session};
use std::fmt;
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
    /// kubectl with this command line (without the leading `kubectl`).
    Kubectl(String),
    /// `sim advance DURATION`.
    Advance(SimDuration),
    /// `sim node kill NAME`, `sim node restart NAME`.
    Fault(Fault),
    /// `sim user add NAME [--group GROUP]...`: a user in the simulated kubeconfig.
    AddUser { name: String, groups: Vec<String> },
    /// `sim why KIND/NAME [-n NAMESPACE]`.
    Why {
        target: String,
        namespace: Option<String>,
    },
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

/// Splits a script into steps.
pub fn parse(text: &str) -> Result<Vec<Step>, ScriptError> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() > MAX_SCRIPT_LINES {
        return Err(ScriptError {
            line: MAX_SCRIPT_LINES + 1,
            message: format!("a script may have at most {MAX_SCRIPT_LINES} lines"),
        });
    }
    let mut steps = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line_no = i + 1;
        let raw = lines[i].trim();
        i += 1;
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let (command_part, heredoc_marker) = split_heredoc(raw);
        let heredoc = match heredoc_marker {
            None => None,
            Some(marker) => {
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
                    if candidate.trim_end() == marker.delimiter {
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
            action: parse_action(command_part),
        });
    }
    Ok(steps)
}

struct HeredocMarker {
    delimiter: String,
    strip_tabs: bool,
}

/// Finds `<<WORD`, `<< WORD`, `<<'WORD'`, `<<"WORD"` or `<<-WORD` outside quotes.
fn split_heredoc(line: &str) -> (&str, Option<HeredocMarker>) {
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
            None if b == b'<'
                && bytes.get(i + 1) == Some(&b'<')
                && bytes.get(i + 2) != Some(&b'<') =>
            {
                let mut rest = &line[i + 2..];
                let strip_tabs = rest.starts_with('-');
                if strip_tabs {
                    rest = &rest[1..];
                }
                let rest = rest.trim();
                let word: String = rest
                    .chars()
                    .filter(|c| *c != '\'' && *c != '"' && *c != '\\')
                    .collect();
                if word.is_empty() || word.contains(char::is_whitespace) {
                    return (line, None);
                }
                return (
                    line[..i].trim_end(),
                    Some(HeredocMarker {
                        delimiter: word,
                        strip_tabs,
                    }),
                );
            }
            None => {}
        }
        i += 1;
    }
    (line, None)
}

const SIM_USAGE: &str =
    "sim advance DURATION, sim node kill NODE, sim node restart NODE, sim stop COMPONENT, sim start COMPONENT, sim why KIND/NAME [-n NAMESPACE], sim user add NAME [--group GROUP]...";

fn parse_action(command: &str) -> Action {
    let (program, rest) = match command.split_once(char::is_whitespace) {
        Some((p, r)) => (p, r.trim()),
        None => (command, ""),
    };
    match program {
        "kubectl" => Action::Kubectl(rest.to_string()),
        "sim" => parse_sim(rest),
        other => Action::Invalid(format!(
            "error: unknown command \"{other}\": a script line starts with kubectl or sim"
        )),
    }
}

fn parse_sim(rest: &str) -> Action {
    let words: Vec<&str> = rest.split_whitespace().collect();
    match words.as_slice() {
        ["advance", d] => match parse_duration(d) {
            Ok(d) => Action::Advance(d),
            Err(e) => Action::Invalid(format!("error: sim advance: {e}")),
        },
        ["advance"] => {
            Action::Invalid("error: sim advance needs a duration, e.g. sim advance 30s".into())
        }
        ["node", "kill", name] => Action::Fault(Fault::KillNode(name.to_string())),
        ["node", "restart", name] => Action::Fault(Fault::RestartNode(name.to_string())),
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
        ["user", "add", name, groups @ ..] => {
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
        ["why", ..] => Action::Invalid("error: sim why needs one object, e.g. sim why pod/web-1 or sim why deployment/web -n shop".into()),
        [] => Action::Invalid(format!("error: sim needs a command: {SIM_USAGE}")),
        _ => Action::Invalid(format!(
            "error: unknown sim command \"sim {rest}\"; the sim commands are {SIM_USAGE}"
        )),
    }
}

/// Shell operators scripts do not have. A kubectl line holding one as a word gets
/// an error instead of a confusing kubectl message.
const SHELL_OPERATORS: &[&str] = &["|", "||", "&&", ";", ">", ">>", "<", "2>&1", "&"];

/// Runs one step against the session.
pub fn execute(session: &mut Session, step: &Step, files: &dyn FileSource) -> CommandOutput {
    match &step.action {
        Action::Kubectl(line) => {
            if let Ok(words) = shell_words::split(line) {
                if let Some(op) = words.iter().find(|w| SHELL_OPERATORS.contains(&w.as_str())) {
                    return CommandOutput::error(format!(
                        "error: scripts have no shell: \"{op}\" (pipes, redirections and command lists) is not supported"
                    ));
                }
            }
            let stdin = step.heredoc.as_ref().map(|h| h.body.as_str());
            session.run(line, stdin, files)
        }
        Action::Advance(d) => {
            session.cluster.advance(*d);
            CommandOutput::default()
        }
        Action::Fault(f) => match session.cluster.fault(f.clone()) {
            Ok(msg) => {
                let mut out = CommandOutput::new();
                out.out_line(msg);
                out
            }
            Err(e) => CommandOutput::error(format!("error: {e}")),
        },
        Action::Why { target, namespace } => why(session, target, namespace.as_deref()),
        Action::AddUser { name, groups } => {
            let token = session.cluster.add_user(name, groups);
            let mut out = CommandOutput::new();
            out.out_line(format!(
                "user \"{name}\" added; kubectl --token={token} authenticates as it"
            ));
            out
        }
        Action::Invalid(msg) => CommandOutput::error(msg),
    }
}

/// `sim why KIND/NAME`: the chain of writes that led to the object's latest state.
fn why(session: &Session, target: &str, namespace: Option<&str>) -> CommandOutput {
    let Some((kind, name)) = target.split_once('/') else {
        return CommandOutput::error(format!(
            "error: sim why needs KIND/NAME, e.g. sim why pod/web-1 (got \"{target}\")"
        ));
    };
    let Some(kind) = warehouse_sim::Kind::lookup(kind) else {
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

/// Parses and runs a script. A script that does not parse runs no step at all.
pub fn run(session: &mut Session, text: &str, files: &dyn FileSource) -> Transcript {
    let steps = match parse(text) {
        Ok(s) => s,
        Err(e) => {
            return Transcript {
                steps: Vec::new(),
                error: Some(e),
            }
        }
    };
    let mut results = Vec::with_capacity(steps.len());
    for step in steps {
        let output = execute(session, &step, files);
        results.push(StepResult { step, output });
    }
    Transcript {
        steps: results,
        error: None,
    }
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
        assert_eq!(steps[0].action, Action::Kubectl("apply -f -".into()));
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
    fn any_delimiter_word_works() {
        let steps = parse("kubectl apply -f - << END\na: b\nEND\n").unwrap();
        assert_eq!(steps[0].heredoc.as_ref().unwrap().delimiter, "END");
        assert_eq!(steps[0].action, Action::Kubectl("apply -f -".into()));
    }

    #[test]
    fn unterminated_heredoc_is_a_parse_error() {
        let e = parse("kubectl get pods\nkubectl apply -f - <<EOF\na: b\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("wanted `EOF'"), "{e}");
    }

    #[test]
    fn unknown_programs_and_sim_commands_become_error_steps() {
        let steps = parse("foo bar\nsim fly\nsim advance soon\nsim node kill zone-a\n").unwrap();
        assert!(
            matches!(&steps[0].action, Action::Invalid(m) if m.contains("unknown command \"foo\""))
        );
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
    fn heredoc_markers_inside_quotes_are_not_heredocs() {
        let steps = parse("kubectl get pods -l 'a<<b'\n").unwrap();
        assert!(steps[0].heredoc.is_none());
    }
}
