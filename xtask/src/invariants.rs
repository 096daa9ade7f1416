//! `cargo xtask invariants`: architecture invariants the compiler checks.
//!
//! Only the apiserver writes the store. `crates/sim/src/probe.rs` (compiled only
//! with `--cfg warehouse_probe`) makes every store write from outside the
//! apiserver, one per line marked `// probe: …`; `apiserver/mod.rs` makes the same
//! calls under the same cfg. The check builds the sim crate with the cfg
//! (`cargo rustc --profile check`, so only that crate is compiled again) and passes
//! when the compiler refuses each marked line once and nothing else.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};

/// The probe file, relative to the workspace root.
const PROBE: &str = "crates/sim/src/probe.rs";
/// What marks a line the compiler must refuse.
const MARK: &str = "// probe: ";

/// Runs the check; `Ok(true)` when it holds. `cargo` is the command to build with.
pub fn run(root: &Path, mut cargo: Command) -> Result<bool> {
    let source = std::fs::read_to_string(root.join(PROBE))
        .with_context(|| format!("cannot read {PROBE}"))?;
    let expected = probed_lines(&source);
    let output = cargo
        .args([
            "rustc",
            "-p",
            "warehouse-sim",
            "--lib",
            "--profile",
            "check",
            "--message-format",
            "short",
            "--",
            "--cfg",
            "warehouse_probe",
        ])
        .output()
        .context("cannot start cargo")?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let problems = judge(&expected, &errors(&stderr), output.status.success());
    for (line, what) in &expected {
        let verdict = if problems.iter().any(|p| p.line == Some(*line)) {
            "NOT REFUSED AS EXPECTED"
        } else {
            "refused"
        };
        println!("{PROBE}:{line}: {what}: {verdict}");
    }
    for problem in &problems {
        println!("invariants: {}", problem.text);
    }
    if !problems.is_empty() {
        println!("{stderr}");
    }
    Ok(problems.is_empty())
}

/// The marked lines of the probe: line number (1-based) → what it probes.
fn probed_lines(source: &str) -> BTreeMap<usize, String> {
    source
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let (_, what) = line.split_once(MARK)?;
            Some((i + 1, what.trim().to_string()))
        })
        .collect()
}

/// One compiler error in short form: `path:line:column: error[CODE]: text`.
#[derive(Debug, PartialEq, Eq)]
struct CompileError {
    path: String,
    line: usize,
    text: String,
}

fn errors(stderr: &str) -> Vec<CompileError> {
    stderr
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(4, ':');
            let path = parts.next()?;
            let line = parts.next()?.parse().ok()?;
            let _column: usize = parts.next()?.parse().ok()?;
            let text = parts.next()?.trim();
            text.starts_with("error").then(|| CompileError {
                path: path.to_string(),
                line,
                text: text.to_string(),
            })
        })
        .collect()
}

struct Problem {
    line: Option<usize>,
    text: String,
}

/// What is wrong, if anything: a marked line not refused exactly once, an error
/// anywhere else, or a build that succeeded.
fn judge(expected: &BTreeMap<usize, String>, errors: &[CompileError], built: bool) -> Vec<Problem> {
    let mut problems = Vec::new();
    if expected.is_empty() {
        problems.push(Problem {
            line: None,
            text: format!("{PROBE} marks no line with `{MARK}`"),
        });
    }
    if built {
        problems.push(Problem {
            line: None,
            text: "the probe compiled: code outside the apiserver can write the store".to_string(),
        });
    }
    for (line, what) in expected {
        let refused = errors
            .iter()
            .filter(|e| e.path == PROBE && e.line == *line)
            .count();
        if refused != 1 {
            problems.push(Problem {
                line: Some(*line),
                text: format!("{what} ({PROBE}:{line}) drew {refused} errors, not 1"),
            });
        }
    }
    for e in errors {
        if e.path != PROBE || !expected.contains_key(&e.line) {
            problems.push(Problem {
                line: None,
                text: format!("unexpected error at {}:{}: {}", e.path, e.line, e.text),
            });
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "fn f() {\n    a(); // probe: a\n    b(); // probe: b\n}\n";

    fn error(path: &str, line: usize) -> CompileError {
        CompileError {
            path: path.to_string(),
            line,
            text: "error[E0624]: method is private".to_string(),
        }
    }

    #[test]
    fn reads_short_errors_and_skips_the_rest() {
        let stderr = "    Checking warehouse-sim v0.1.0\n\
                      crates/sim/src/probe.rs:2:9: error[E0624]: method `a` is private\n\
                      crates/sim/src/x.rs:7:1: warning: unused\n\
                      error: could not compile `warehouse-sim` (lib) due to 1 previous error\n";
        assert_eq!(
            errors(stderr),
            vec![CompileError {
                path: PROBE.to_string(),
                line: 2,
                text: "error[E0624]: method `a` is private".to_string(),
            }]
        );
    }

    #[test]
    fn holds_only_when_each_marked_line_and_nothing_else_is_refused() {
        let expected = probed_lines(SOURCE);
        assert_eq!(expected.keys().copied().collect::<Vec<_>>(), [2, 3]);
        let both = [error(PROBE, 2), error(PROBE, 3)];
        assert!(judge(&expected, &both, false).is_empty());
        // One write allowed: the invariant is broken.
        assert_eq!(judge(&expected, &both[..1], false).len(), 1);
        // Refused for another reason elsewhere.
        let elsewhere = [
            error(PROBE, 2),
            error(PROBE, 3),
            error("crates/sim/src/x.rs", 1),
        ];
        assert_eq!(judge(&expected, &elsewhere, false).len(), 1);
        // It built.
        assert!(!judge(&expected, &[], true).is_empty());
        // A probe with no marks proves nothing.
        assert!(!judge(&BTreeMap::new(), &[], false).is_empty());
    }
}
