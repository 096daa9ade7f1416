//! Evaluating checks on the live cluster, and telling which command lines a lesson
//! may run where.
//!
//! A condition runs its command through the same shell and kubectl as the terminal,
//! and its result says what was expected and what the cluster showed, so a red check
//! always explains itself.

use crate::model::{Check, Condition, Expect};
use warehouse_kubectl::shell::script::{self, Action};
use warehouse_kubectl::{Access, FileSource, Session};

/// The most characters of a command's output a result keeps to show.
pub const ACTUAL_MAX_CHARS: usize = 600;
/// The most lines of it.
pub const ACTUAL_MAX_LINES: usize = 8;

/// The outcome of one condition.
#[derive(Clone, Debug, PartialEq)]
pub struct ConditionResult {
    pub run: String,
    pub passed: bool,
    /// Each expectation and whether it held.
    pub expectations: Vec<(Expect, bool)>,
    /// What the command printed, shortened (for the learner's check panel).
    pub actual: String,
    /// What the command printed, whole (for an author: `lessons check`).
    pub output: String,
}

/// The outcome of a whole check.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckResult {
    pub conditions: Vec<ConditionResult>,
}

impl CheckResult {
    pub fn passed(&self) -> bool {
        self.conditions.iter().all(|c| c.passed)
    }

    /// The failing conditions: the command, what was expected, and the whole of
    /// what the cluster showed (on the same line when it is one line, else
    /// indented below), so an author sees every line the check read.
    pub fn explain_failures(&self) -> String {
        let mut out = String::new();
        for c in self.conditions.iter().filter(|c| !c.passed) {
            let expected: Vec<String> = c
                .expectations
                .iter()
                .filter(|(_, ok)| !ok)
                .map(|(e, _)| e.describe(false))
                .collect();
            out.push_str(&format!(
                "  `{}`: expected {}; the cluster shows:{}\n",
                c.run,
                expected.join(" and "),
                whole(&c.output)
            ));
        }
        out
    }
}

impl Expect {
    /// The expectation in words, English or Russian.
    pub fn describe(&self, russian: bool) -> String {
        match (self, russian) {
            (Expect::Equals(v), false) => format!("exactly {v:?}"),
            (Expect::Equals(v), true) => format!("ровно {v:?}"),
            (Expect::Contains(v), false) => format!("text containing {v:?}"),
            (Expect::Contains(v), true) => format!("текст, где есть {v:?}"),
            (Expect::NotContains(v), false) => format!("no {v:?} in the text"),
            (Expect::NotContains(v), true) => format!("текст без {v:?}"),
            (Expect::Matches(v, _), false) => format!("text matching /{v}/"),
            (Expect::Matches(v, _), true) => format!("текст по шаблону /{v}/"),
            (Expect::AtLeast(n), false) => format!("a number of at least {n}"),
            (Expect::AtLeast(n), true) => format!("число не меньше {n}"),
            (Expect::AtMost(n), false) => format!("a number of at most {n}"),
            (Expect::AtMost(n), true) => format!("число не больше {n}"),
            (Expect::Lines(n), false) => format!("{n} line(s)"),
            (Expect::Lines(n), true) => {
                let word = match (n % 10, n % 100) {
                    (1, r) if r != 11 => "строка",
                    (2..=4, r) if !(12..=14).contains(&r) => "строки",
                    _ => "строк",
                };
                format!("{n} {word}")
            }
        }
    }

    /// Whether the output (trailing blank space removed) meets the expectation.
    pub fn holds(&self, output: &str) -> bool {
        let out = output.trim_end();
        match self {
            Expect::Equals(v) => out.trim() == v.trim(),
            Expect::Contains(v) => out.contains(v.as_str()),
            Expect::NotContains(v) => !out.contains(v.as_str()),
            Expect::Matches(_, re) => re.is_match(out),
            Expect::AtLeast(n) => number(out).is_some_and(|x| x >= *n),
            Expect::AtMost(n) => number(out).is_some_and(|x| x <= *n),
            Expect::Lines(n) => out.lines().filter(|l| !l.trim().is_empty()).count() == *n,
        }
    }
}

fn number(out: &str) -> Option<f64> {
    out.trim().parse::<f64>().ok().filter(|n| n.is_finite())
}

/// A command's whole output for an author's message: after a space when it is
/// one line, else each line indented below; `(nothing)` when it is empty.
pub fn whole(text: &str) -> String {
    let text = text.trim_end();
    if text.is_empty() {
        " (nothing)".to_string()
    } else if !text.contains('\n') {
        format!(" {text}")
    } else {
        text.lines().map(|l| format!("\n      {l}")).collect()
    }
}

/// Output shortened for showing: at most [`ACTUAL_MAX_LINES`] lines and
/// [`ACTUAL_MAX_CHARS`] characters.
pub fn short(text: &str) -> String {
    let text = text.trim_end();
    let mut out: String = text
        .lines()
        .take(ACTUAL_MAX_LINES)
        .collect::<Vec<_>>()
        .join("\n");
    let mut cut = out.chars().count() > ACTUAL_MAX_CHARS;
    if cut {
        out = out.chars().take(ACTUAL_MAX_CHARS).collect();
    }
    cut |= text.lines().count() > ACTUAL_MAX_LINES;
    if cut {
        out.push_str(" …");
    }
    out
}

/// Runs a read-only command line without leaving a trace in the session's shell
/// (its variables and `$?` stay as the learner left them) or its history.
pub fn run_quietly(session: &mut Session, line: &str, files: &dyn FileSource) -> String {
    let shell = session.shell.clone();
    let out = session.run_shell_unrecorded(line, None, files);
    session.shell = shell;
    answer(&out)
}

/// What a command answered: its stdout when it succeeded (so `No resources found`,
/// which kubectl writes to stderr, is not a line of the answer), and everything it
/// printed when it failed (so an error text can be expected).
pub fn answer(out: &warehouse_kubectl::CommandOutput) -> String {
    if out.code == 0 {
        out.stdout.clone()
    } else {
        out.combined()
    }
}

/// Evaluates one condition.
pub fn evaluate_condition(
    session: &mut Session,
    condition: &Condition,
    files: &dyn FileSource,
) -> ConditionResult {
    let output = run_quietly(session, &condition.run, files);
    let expectations: Vec<(Expect, bool)> = condition
        .expect
        .iter()
        .map(|e| (e.clone(), e.holds(&output)))
        .collect();
    ConditionResult {
        run: condition.run.clone(),
        passed: expectations.iter().all(|(_, ok)| *ok),
        expectations,
        actual: short(&output),
        output,
    }
}

/// Evaluates every condition of a check.
pub fn evaluate(session: &mut Session, check: &Check, files: &dyn FileSource) -> CheckResult {
    CheckResult {
        conditions: check
            .conditions
            .iter()
            .map(|c| evaluate_condition(session, c, files))
            .collect(),
    }
}

/// Where a command line stands in a lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// A line the learner or a solution runs: anything that parses.
    Run,
    /// A check's or a predict's command: it must only read.
    Read,
}

/// The `sim` commands that only read.
fn sim_reads(action: &Action) -> bool {
    use warehouse_sim::network::traffic::TrafficCommand;
    match action {
        Action::Stats
        | Action::Help
        | Action::Why { .. }
        | Action::WhyNode { .. }
        | Action::EtcdStatus
        | Action::Requests => true,
        Action::Traffic(t) => matches!(t, TrafficCommand::Stats | TrafficCommand::Request { .. }),
        _ => false,
    }
}

/// `sim request ...`: it only reads, whatever its URL turns out to be.
fn asks_a_request(words: &[Option<String>]) -> bool {
    words.get(1).and_then(|w| w.as_deref()) == Some("request")
}

/// True if every `$` of `line` opens a command substitution `$(...)`: no
/// `$VARIABLE`, whose value depends on what the learner typed before. (The
/// substitutions' own commands are linted as commands of the line.)
fn only_substitutions(line: &str) -> bool {
    let bytes = line.as_bytes();
    bytes
        .iter()
        .enumerate()
        .all(|(i, &b)| b != b'$' || bytes.get(i + 1) == Some(&b'('))
}

/// Programs a check may pipe through or call besides kubectl and sim.
const READ_PROGRAMS: &[&str] = &[
    "grep", "head", "tail", "wc", "sort", "uniq", "awk", "echo", "cat", "curl", "wget", "true",
    "false", ":", "minikube",
];

/// Checks one shell line without running it: bash syntax, programs that exist here,
/// kubectl arguments kubectl accepts, `sim` commands that exist; for [`Use::Read`],
/// that nothing in it writes, waits or changes the session. The message says what is
/// wrong.
pub fn lint_line(line: &str, usage: Use) -> Result<(), String> {
    let commands = warehouse_kubectl::shell::simple_commands(line)?;
    if commands.is_empty() {
        return Ok(());
    }
    for words in commands {
        let Some(Some(program)) = words.first() else {
            if usage == Use::Read {
                return Err(format!(
                    "`{line}`: a check's command must name its program plainly"
                ));
            }
            continue;
        };
        let literal: Option<Vec<String>> = words[1..].iter().cloned().collect();
        match program.as_str() {
            "kubectl" => {
                if let Some(args) = literal {
                    let access = warehouse_kubectl::kubectl_access(&args)?;
                    if usage == Use::Read && access != Access::Reads {
                        return Err(format!(
                            "`{line}`: a check only reads (kubectl get, describe, logs, events, top, auth can-i, ...); this command changes the cluster or waits"
                        ));
                    }
                } else if usage == Use::Read {
                    return Err(format!(
                        "`{line}`: a check's kubectl words must be written out, without $VARIABLES"
                    ));
                }
            }
            "sim" => {
                if let Some(args) = literal {
                    let action = script::parse_sim(&args.join(" "));
                    if let Action::Invalid(e) = &action {
                        return Err(e.trim_start_matches("error: ").to_string());
                    }
                    if usage == Use::Read && !sim_reads(&action) {
                        return Err(format!(
                            "`{line}`: a check only reads (sim stats, sim traffic stats, sim request, sim why, sim etcd status, sim requests); this command changes the simulation"
                        ));
                    }
                } else if usage == Use::Read
                    && !(asks_a_request(&words) && only_substitutions(line))
                {
                    return Err(format!("`{line}`: a check's sim words must be written out (a `sim request` URL may take a read's output: `http://172.18.0.4:$(kubectl get service web -o jsonpath='{{.spec.ports[0].nodePort}}')`)"));
                }
            }
            "helm" if usage == Use::Read => {
                let reads = literal
                    .as_deref()
                    .is_some_and(warehouse_kubectl::helm::reads);
                if !reads {
                    return Err(format!(
                        "`{line}`: a check only reads (helm list, history, status, get values, get manifest, template, show); this command changes the cluster"
                    ));
                }
            }
            p if usage == Use::Read && !READ_PROGRAMS.contains(&p) => {
                return Err(format!(
                    "`{line}`: a check may run kubectl, sim and {}; not {p}",
                    READ_PROGRAMS.join(", ")
                ));
            }
            p if !warehouse_kubectl::shell::PROGRAMS.contains(&p) => {
                return Err(format!(
                    "bash: {p}: command not found (the terminal runs {})",
                    warehouse_kubectl::shell::PROGRAMS.join(", ")
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {

    #[test]
    fn russian_line_counts_agree_with_their_number() {
        let ru = |n| Expect::Lines(n).describe(true);
        assert_eq!(
            [ru(1), ru(3), ru(5), ru(11), ru(21), ru(22), ru(112)],
            [
                "1 строка",
                "3 строки",
                "5 строк",
                "11 строк",
                "21 строка",
                "22 строки",
                "112 строк"
            ]
        );
    }

    #[test]
    fn a_failing_check_explains_itself_with_every_line_it_read() {
        let output: String = (1..=30).map(|i| format!("robot-{i} Running\n")).collect();
        let result = CheckResult {
            conditions: vec![ConditionResult {
                run: "kubectl get pods".into(),
                passed: false,
                expectations: vec![(Expect::Lines(3), false)],
                actual: short(&output),
                output: output.clone(),
            }],
        };
        let text = result.explain_failures();
        assert!(text.starts_with("  `kubectl get pods`: expected 3 line(s); the cluster shows:\n      robot-1 Running\n"), "{text}");
        assert!(text.contains("\n      robot-30 Running\n"), "{text}");
        assert!(result.conditions[0].actual.ends_with(" …"));
    }
    use super::*;

    #[test]
    fn reads_pass_and_writes_are_refused_in_checks() {
        assert_eq!(
            lint_line(
                "kubectl get pods -l app=web --no-headers | wc -l",
                Use::Read
            ),
            Ok(())
        );
        assert_eq!(lint_line("sim traffic stats", Use::Read), Ok(()));
        assert!(lint_line("kubectl delete pod x", Use::Read)
            .unwrap_err()
            .contains("only reads"));
        assert!(lint_line("kubectl get pods -w", Use::Read).is_err());
        assert!(lint_line("sim node kill zone-a", Use::Read).is_err());
        assert!(lint_line("export X=1", Use::Read).is_err());
        // A request's URL may take a read's output, not a variable.
        let port = "$(kubectl get service web -o jsonpath='{.spec.ports[0].nodePort}')";
        assert_eq!(
            lint_line(&format!("sim request http://172.18.0.4:{port}"), Use::Read),
            Ok(())
        );
        assert!(lint_line("sim request http://172.18.0.4:$PORT", Use::Read).is_err());
        assert!(lint_line(
            "sim request http://172.18.0.4:$(kubectl delete service web)",
            Use::Read
        )
        .is_err());
        assert!(lint_line("sim node kill $(echo zone-a)", Use::Read).is_err());
        assert_eq!(lint_line("kubectl delete pod x", Use::Run), Ok(()));
    }

    #[test]
    fn unknown_programs_and_bad_arguments_are_named() {
        assert!(lint_line("kubctl get pods", Use::Run)
            .unwrap_err()
            .contains("kubctl: command not found"));
        assert!(lint_line("kubectl get pods --bogus", Use::Run).is_err());
        assert!(lint_line("sim fly", Use::Run)
            .unwrap_err()
            .contains("unknown sim command"));
        assert!(lint_line("echo \"open", Use::Run)
            .unwrap_err()
            .contains("unexpected EOF"));
    }

    #[test]
    fn expectations_say_what_they_want() {
        assert!(Expect::Equals("5".into()).holds("5\n"));
        assert!(Expect::Lines(2).holds("a\nb\n\n"));
        assert!(Expect::AtLeast(3.0).holds(" 4 "));
        assert!(!Expect::AtLeast(3.0).holds("four"));
        assert_eq!(Expect::Lines(5).describe(false), "5 line(s)");
    }
}
