//! Reads the output of the test runners `cargo xtask test` starts, so that its
//! summary counts every test and names each one that failed.
//!
//! * `cargo test` (libtest): `Running SOURCE (…)` / `Doc-tests CRATE` open a test
//!   binary, `test NAME ... FAILED` names a failure, `test result: … N passed; M
//!   failed; K ignored` counts, and with `--no-fail-fast` cargo ends with
//!   `error: N targets failed:` and one `` `-p CRATE --test NAME` `` line each —
//!   which also names a binary that crashed before it could report.
//! * `node --test` (TAP, its reporter when the output is not a terminal): a `not ok
//!   N - NAME` line per failure, indented by nesting; `# pass N`, `# fail N`,
//!   `# skipped N`, `# todo N` at the end.
//! * `warehouse lessons check`: `ok DIR: …` or `FAILED DIR:` per lesson.

/// What one runner's output says.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Tally {
    pub passed: u64,
    pub failed: u64,
    pub ignored: u64,
    /// The failed tests, each as `WHERE: NAME`.
    pub failures: Vec<String>,
}

impl Tally {
    pub fn add(&mut self, other: &Tally) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.ignored += other.ignored;
        self.failures.extend(other.failures.iter().cloned());
    }
}

/// Which runner a step's output comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    Cargo,
    Node,
    Lessons,
}

pub fn parse(runner: Runner, output: &str) -> Tally {
    match runner {
        Runner::Cargo => cargo_test(output),
        Runner::Node => node_tap(output),
        Runner::Lessons => lessons_check(output),
    }
}

fn cargo_test(output: &str) -> Tally {
    let mut tally = Tally::default();
    let mut binary = String::from("cargo test");
    // Whether the current binary printed its `test result:` line, and how many of
    // its failures it named.
    let mut reported = false;
    let mut named = 0u64;
    let mut known_targets: Vec<String> = Vec::new();
    let mut in_target_list = false;
    for line in output.lines() {
        let trimmed = line.trim();
        if in_target_list {
            if let Some(target) = backquoted(trimmed) {
                // A target that failed without any line above saying so.
                if !known_targets.iter().any(|t| t == target) {
                    tally.failed += 1;
                    tally.failures.push(format!("target `{target}` failed"));
                }
                continue;
            }
            in_target_list = false;
        }
        if let Some(rest) = trimmed.strip_prefix("Running ") {
            // `Running tests/corpus.rs (target/debug/deps/corpus-0123abcd)`
            binary = binary_label(rest);
            (reported, named) = (false, 0);
        } else if let Some(krate) = trimmed.strip_prefix("Doc-tests ") {
            binary = format!("doc-tests {krate}");
            (reported, named) = (false, 0);
        } else if let Some(name) = trimmed
            .strip_prefix("test ")
            .and_then(|rest| rest.strip_suffix(" ... FAILED"))
        {
            tally.failures.push(format!("{binary}: {name}"));
            named += 1;
        } else if let Some(counts) = trimmed.strip_prefix("test result: ") {
            let failed = count_before(counts, " failed");
            tally.passed += count_before(counts, " passed");
            tally.failed += failed;
            tally.ignored += count_before(counts, " ignored");
            for _ in named..failed {
                tally
                    .failures
                    .push(format!("{binary}: (a test it did not name)"));
            }
            reported = true;
        } else if trimmed.starts_with("error: test failed, to rerun pass") {
            let target = backquoted(trimmed).unwrap_or("?").to_string();
            if !reported {
                // It crashed (a signal, an abort) before it could count.
                tally.failed += 1;
                tally.failures.push(format!(
                    "{binary}: stopped before reporting its tests (cargo test {target})"
                ));
            }
            known_targets.push(target);
        } else if trimmed.starts_with("error:") && trimmed.ends_with("targets failed:") {
            in_target_list = true;
        } else if let Some(rest) = trimmed.strip_prefix("error: could not compile") {
            tally.failed += 1;
            tally
                .failures
                .push(format!("build: could not compile{rest}"));
        }
    }
    tally
}

/// `tests/corpus.rs (target/debug/deps/corpus-0123)` → `tests/corpus.rs`; a unit
/// test binary → `CRATE (src/lib.rs)`.
fn binary_label(rest: &str) -> String {
    let source = rest.split(" (").next().unwrap_or(rest).trim();
    let deps = rest
        .split(" (")
        .nth(1)
        .map(|p| p.trim_end_matches(')'))
        .and_then(|p| p.rsplit('/').next())
        .and_then(|file| file.rsplit_once('-').map(|(name, _)| name.to_string()));
    match (source.strip_prefix("unittests "), deps) {
        (Some(src), Some(name)) => format!("{name} ({src})"),
        (Some(src), None) => src.to_string(),
        (None, _) => source.to_string(),
    }
}

/// The number written just before `label` in `text` (`"3 passed"` → 3).
fn count_before(text: &str, label: &str) -> u64 {
    let Some(at) = text.find(label) else {
        return 0;
    };
    text[..at]
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0)
}

fn backquoted(line: &str) -> Option<&str> {
    let start = line.find('`')? + 1;
    let end = start + line[start..].find('`')?;
    Some(&line[start..end])
}

fn node_tap(output: &str) -> Tally {
    let mut tally = Tally::default();
    // The names of the open tests by nesting depth (four spaces a level).
    let mut open: Vec<(usize, String)> = Vec::new();
    let mut failing: Vec<(usize, String)> = Vec::new();
    // Whether the last failure has had its `location:` line.
    let mut located = true;
    for line in output.lines() {
        let depth = (line.len() - line.trim_start().len()) / 4;
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_prefix("# Subtest: ") {
            open.truncate(depth);
            open.push((depth, name.to_string()));
        } else if let Some(rest) = trimmed.strip_prefix("not ok ") {
            let name = rest
                .split_once(" - ")
                .map_or(rest, |(_, name)| name)
                .split(" # ")
                .next()
                .unwrap_or(rest);
            let mut path: Vec<String> = open
                .iter()
                .filter(|(d, _)| *d < depth)
                .map(|(_, n)| short_test_file(n))
                .collect();
            path.push(short_test_file(name));
            failing.push((depth, path.join(" > ")));
            located = false;
        } else if let Some(place) = trimmed.strip_prefix("location: ") {
            // `location: '/w/tests/browser/hosting.test.mjs:20:1'` under a failure
            // names its file (a file's top-level tests are not nested in it).
            if let Some((_, name)) = failing.last_mut().filter(|_| !located) {
                let place = short_test_file(place.trim_matches('\''));
                let file = place.split(':').next().unwrap_or(&place);
                if !name.starts_with(file) {
                    *name = format!("{file} > {name}");
                }
            }
            located = true;
        } else if let Some(n) = trimmed.strip_prefix("# pass ") {
            tally.passed = n.trim().parse().unwrap_or(0);
        } else if let Some(n) = trimmed.strip_prefix("# fail ") {
            tally.failed = n.trim().parse().unwrap_or(0);
        } else if let Some(n) = trimmed.strip_prefix("# skipped ") {
            tally.ignored += n.trim().parse::<u64>().unwrap_or(0);
        } else if let Some(n) = trimmed.strip_prefix("# todo ") {
            tally.ignored += n.trim().parse::<u64>().unwrap_or(0);
        }
    }
    // A parent fails because its child did: name only the innermost failures.
    for (i, (depth, name)) in failing.iter().enumerate() {
        let has_failing_child = failing.iter().enumerate().any(|(j, (d, child))| {
            j != i && *d > *depth && child.starts_with(&format!("{name} > "))
        });
        if !has_failing_child {
            tally.failures.push(name.clone());
        }
    }
    tally
}

/// `/abs/path/tests/browser/floor.test.mjs` → `floor.test.mjs`.
fn short_test_file(name: &str) -> String {
    if name.starts_with('/') || name.ends_with(".mjs") || name.ends_with(".js") {
        name.rsplit('/').next().unwrap_or(name).to_string()
    } else {
        name.to_string()
    }
}

fn lessons_check(output: &str) -> Tally {
    let mut tally = Tally::default();
    for line in output.lines() {
        if line.starts_with("ok ") {
            tally.passed += 1;
        } else if let Some(rest) = line.strip_prefix("FAILED ") {
            tally.failed += 1;
            let lesson = rest.trim_end_matches(':');
            tally.failures.push(format!("lesson {lesson}"));
        }
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;

    const CARGO: &str = "\
   Compiling warehouse-sim v0.1.0
     Running unittests src/lib.rs (target/debug/deps/warehouse_sim-0a1b2c)

running 3 tests
test a::one ... ok
test a::two ... FAILED
test a::three ... ignored

failures:

---- a::two stdout ----
thread 'a::two' panicked

failures:
    a::two

test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s

error: test failed, to rerun pass `-p warehouse-sim --lib`
     Running tests/corpus.rs (target/debug/deps/corpus-9f8e7d)

running 1 test
test every_documentation_example_has_a_known_outcome ... FAILED

test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.20s

error: test failed, to rerun pass `-p warehouse-sim --test corpus`
     Running tests/crash.rs (target/debug/deps/crash-1234)

running 2 tests
error: test failed, to rerun pass `-p warehouse-sim --test crash`

Caused by:
  process didn't exit successfully: (signal: 6, SIGABRT: process abort signal)
   Doc-tests warehouse_sim

running 2 tests
test src/lib.rs - x (line 3) ... ok
test src/lib.rs - y (line 9) ... ok

test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.5s

error: 4 targets failed:
    `-p warehouse-sim --lib`
    `-p warehouse-sim --test corpus`
    `-p warehouse-sim --test crash`
    `-p warehouse-kubectl --test gone`
";

    #[test]
    fn cargo_output_counts_every_test_and_names_every_failure() {
        let tally = parse(Runner::Cargo, CARGO);
        assert_eq!(tally.passed, 3);
        assert_eq!(tally.ignored, 1);
        // Two named failures, the binary that crashed before it reported, and a
        // target only cargo's closing list names.
        assert_eq!(tally.failed, 4, "{tally:?}");
        assert_eq!(
            tally.failures,
            vec![
                "warehouse_sim (src/lib.rs): a::two",
                "tests/corpus.rs: every_documentation_example_has_a_known_outcome",
                "tests/crash.rs: stopped before reporting its tests \
                 (cargo test -p warehouse-sim --test crash)",
                "target `-p warehouse-kubectl --test gone` failed",
            ]
        );
    }

    #[test]
    fn a_build_error_is_a_failure() {
        let tally = parse(
            Runner::Cargo,
            "error[E0425]: cannot find value `x`\nerror: could not compile `xtask` (bin \"xtask\" test) due to 1 previous error\n",
        );
        assert_eq!(tally.failed, 1);
        assert_eq!(
            tally.failures,
            vec!["build: could not compile `xtask` (bin \"xtask\" test) due to 1 previous error"]
        );
    }

    #[test]
    fn node_tap_names_the_innermost_failures() {
        let tap = "\
TAP version 13
# Subtest: /w/tests/browser/floor.test.mjs
    # Subtest: the floor
        # Subtest: shows robots
        ok 1 - shows robots
        # Subtest: kills a zone
        not ok 2 - kills a zone
          ---
          error: 'timeout'
          ...
        1..2
    not ok 1 - the floor
    1..1
not ok 1 - /w/tests/browser/floor.test.mjs
# Subtest: /w/tests/browser/safety.test.mjs
ok 2 - /w/tests/browser/safety.test.mjs
# Subtest: hosting: compressed files
not ok 3 - hosting: compressed files
  ---
  duration_ms: 2293.1
  location: '/w/tests/browser/hosting.test.mjs:20:1'
  failureType: 'testCodeFailure'
  ...
1..3
# tests 3
# suites 1
# pass 2
# fail 2
# cancelled 0
# skipped 0
# todo 0
";
        let tally = parse(Runner::Node, tap);
        assert_eq!((tally.passed, tally.failed, tally.ignored), (2, 2, 0));
        assert_eq!(
            tally.failures,
            vec![
                "floor.test.mjs > the floor > kills a zone",
                "hosting.test.mjs > hosting: compressed files",
            ]
        );
    }

    #[test]
    fn lessons_check_counts_lessons() {
        let out =
            "ok 01-desired-state: Desired state (4 steps)\nFAILED 02-reception:\n  step 2: ...\n";
        let tally = parse(Runner::Lessons, out);
        assert_eq!((tally.passed, tally.failed), (1, 1));
        assert_eq!(tally.failures, vec!["lesson 02-reception"]);
    }

    #[test]
    fn tallies_add_up() {
        let mut all = Tally::default();
        all.add(&parse(Runner::Lessons, "ok a: x\n"));
        all.add(&parse(Runner::Lessons, "FAILED b:\n"));
        assert_eq!((all.passed, all.failed, all.failures.len()), (1, 1, 1));
    }
}
