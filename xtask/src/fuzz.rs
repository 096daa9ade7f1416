//! `cargo xtask fuzz [TARGET] [--time SECONDS]`: the cargo-fuzz targets in `fuzz/`.
//!
//! Installs what is missing (the nightly toolchain, cargo-fuzz), seeds each target's
//! corpus from the repository (golden scripts, lessons, manifests, the committed
//! `fuzz/seeds/`, the Kubernetes documentation examples beside the workspace, the
//! sim's snapshots), builds every target once, runs each (or the one named) for the
//! given time in libFuzzer's fork mode (a crash is saved to `fuzz/artifacts/TARGET/`
//! and the run goes on), and appends one line per target to `docs/fuzz-runs.md`.
//!
//! Memory exhaustion (`-rss_limit_mb`) and hangs (`-timeout`) count as crashes. Not
//! part of `cargo xtask test`: it needs nightly.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};

use crate::{capture, describe, exit_code, run_status, seconds, Prerequisite, Workspace};

/// One cargo-fuzz target and the dictionaries (`fuzz/dicts/NAME.dict`) it uses.
pub struct Target {
    pub name: &'static str,
    dicts: &'static [&'static str],
    /// libFuzzer's `-max_len`: the longest input it makes.
    max_len: usize,
}

pub const TARGETS: &[Target] = &[
    Target {
        name: "manifest_apply",
        dicts: &["yaml"],
        max_len: 64 * 1024,
    },
    Target {
        name: "kubectl_line",
        dicts: &["kubectl", "shell"],
        max_len: 4 * 1024,
    },
    Target {
        name: "script",
        dicts: &["kubectl", "shell", "yaml"],
        max_len: 64 * 1024,
    },
    Target {
        name: "container_shell",
        dicts: &["shell"],
        max_len: 8 * 1024,
    },
    Target {
        name: "lesson_file",
        dicts: &["lesson", "kubectl", "yaml"],
        max_len: 64 * 1024,
    },
    Target {
        name: "snapshot",
        dicts: &["snapshot"],
        max_len: 4 * 1024 * 1024,
    },
];

const DEFAULT_SECONDS: u64 = 600;
/// Build options, the same for `build` and `run` so that `run` does not rebuild:
/// no sanitizer (safe Rust; the speed goes to executions), 16 codegen units (the
/// dependencies build in minutes, not an hour, on a small machine). Debug
/// assertions and overflow checks are on, as cargo-fuzz makes them by default.
const BUILD_FLAGS: &[&str] = &["-s", "none", "--codegen-units", "16"];
/// A run that allocates beyond this, or an input that takes longer, is a crash.
const RSS_LIMIT_MB: u32 = 2048;
const TIMEOUT_SECONDS: u32 = 10;
const RUNS_LOG: &str = "docs/fuzz-runs.md";
/// The Kubernetes documentation examples, relative to the workspace.
const K8S_EXAMPLES: &str = "tests/k8s-examples";

/// What `cargo xtask fuzz` was asked to do.
#[derive(Debug, PartialEq, Eq)]
pub struct Request {
    pub targets: Vec<&'static str>,
    pub seconds: u64,
}

pub fn parse_args(args: &[String]) -> Result<Request> {
    let mut targets = Vec::new();
    let mut seconds = DEFAULT_SECONDS;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let value = if arg == "--time" {
            i += 1;
            Some(
                args.get(i)
                    .context("--time needs a number of seconds")?
                    .as_str(),
            )
        } else {
            arg.strip_prefix("--time=")
        };
        match value {
            Some(v) => {
                seconds = v
                    .parse()
                    .ok()
                    .filter(|s| *s > 0)
                    .with_context(|| format!("`{v}` is not a positive number of seconds"))?;
            }
            None => match TARGETS.iter().find(|t| t.name == arg) {
                Some(t) if targets.is_empty() => targets.push(t.name),
                Some(_) => bail!("name one target or none"),
                None => bail!(
                    "unknown fuzz target `{arg}`; the targets are {}",
                    target_names().join(", ")
                ),
            },
        }
        i += 1;
    }
    if targets.is_empty() {
        targets = target_names();
    }
    Ok(Request { targets, seconds })
}

fn target_names() -> Vec<&'static str> {
    TARGETS.iter().map(|t| t.name).collect()
}

fn target(name: &str) -> &'static Target {
    TARGETS
        .iter()
        .find(|t| t.name == name)
        .expect("a known target")
}

fn nightly() -> Prerequisite<'static> {
    Prerequisite::new(
        "the nightly Rust toolchain".to_string(),
        "a download, a few minutes",
        |ws| capture(&mut ws.cmd("cargo", &["+nightly", "--version"])).is_some(),
        &[&[
            "rustup",
            "toolchain",
            "install",
            "nightly",
            "--profile",
            "minimal",
        ]],
    )
}

fn cargo_fuzz(ws: &Workspace) -> Prerequisite<'static> {
    Prerequisite::new(
        "cargo-fuzz".to_string(),
        "built from source, a few minutes on two cores",
        |ws| capture(&mut ws.cmd("cargo", &["+nightly", "fuzz", "--version"])).is_some(),
        &[&["cargo", "install", "cargo-fuzz"]],
    )
    .cargo_built(ws)
}

/// One target's run.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    pub executions: u64,
    pub crashes: u64,
    pub corpus: usize,
}

pub fn run(ws: &Workspace, args: &[String]) -> Result<ExitCode> {
    let request = parse_args(args)?;
    nightly().ensure(ws)?;
    cargo_fuzz(ws).ensure(ws)?;
    for name in &request.targets {
        let count = seed(ws, target(name))?;
        println!("xtask fuzz: {name}: {count} seed inputs");
    }
    let mut build = fuzz_cmd(ws, "build", &[]);
    println!("$ {}", describe(&build));
    ensure!(run_status(&mut build)?, "`{}` failed", describe(&build));

    let commit = capture(&mut ws.cmd("git", &["rev-parse", "--short", "HEAD"]))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let date = capture(&mut ws.cmd("date", &["-u", "+%Y-%m-%d"]))
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let mut rows = Vec::new();
    let mut crashed = false;
    for name in &request.targets {
        let started = Instant::now();
        let stats = run_target(ws, target(name), request.seconds)?;
        let elapsed = started.elapsed().as_secs();
        println!(
            "xtask fuzz: {name}: {} executions, {} crashes, corpus {} ({})",
            stats.executions,
            stats.crashes,
            stats.corpus,
            seconds(started.elapsed())
        );
        crashed |= stats.crashes > 0;
        rows.push(format!(
            "| {date} | {commit} | {name} | {elapsed} | {} | {} | {} |",
            stats.executions, stats.corpus, stats.crashes
        ));
    }
    append_runs(ws, &rows)?;
    println!("\nxtask fuzz: appended to {RUNS_LOG}:");
    for row in &rows {
        println!("{row}");
    }
    if crashed {
        println!(
            "xtask fuzz: crashes are in fuzz/artifacts/TARGET/; reproduce one with \
             `cargo +nightly fuzz run {} TARGET FILE`, shrink it with `cargo +nightly fuzz tmin`",
            BUILD_FLAGS.join(" ")
        );
    }
    Ok(exit_code(!crashed))
}

/// `cargo +nightly fuzz SUBCOMMAND <BUILD_FLAGS> ARGS...` from the workspace root.
fn fuzz_cmd(ws: &Workspace, subcommand: &str, args: &[&str]) -> Command {
    let mut all = vec!["+nightly", "fuzz", subcommand];
    all.extend_from_slice(BUILD_FLAGS);
    all.extend_from_slice(args);
    ws.cmd("cargo", &all)
}

fn run_target(ws: &Workspace, t: &Target, secs: u64) -> Result<RunStats> {
    let corpus = corpus_dir(ws, t.name);
    let artifacts = ws.join(&format!("fuzz/artifacts/{}", t.name));
    fs::create_dir_all(&artifacts)?;
    let dict = write_dict(ws, t)?;
    let before = count_files(&artifacts);
    let options = [
        format!("-max_total_time={secs}"),
        format!("-rss_limit_mb={RSS_LIMIT_MB}"),
        format!("-timeout={TIMEOUT_SECONDS}"),
        format!("-max_len={}", t.max_len),
        format!("-dict={}", dict.display()),
        format!("-artifact_prefix={}/", artifacts.display()),
        // Fork mode: a crash, hang or out-of-memory is saved and the run goes on.
        "-fork=1".into(),
        "-ignore_crashes=1".into(),
        "-ignore_timeouts=1".into(),
        "-ignore_ooms=1".into(),
    ];
    let corpus_arg = corpus.display().to_string();
    let mut args = vec![t.name, corpus_arg.as_str(), "--"];
    args.extend(options.iter().map(String::as_str));
    let mut cmd = fuzz_cmd(ws, "run", &args);
    println!("\n$ {}", describe(&cmd));
    let mut child = cmd
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start `{}`", describe(&cmd)))?;
    let mut last_status = None;
    let stderr = child.stderr.take().context("no stderr")?;
    for line in BufReader::new(stderr).lines() {
        let line = line?;
        eprintln!("{line}");
        if let Some(stats) = parse_status(&line) {
            last_status = Some(stats);
        }
    }
    let status = child.wait()?;
    let mut stats = last_status
        .with_context(|| format!("{}: libFuzzer printed no status line ({status})", t.name))?;
    // What the status line misses (a crash while the run was wrapping up).
    stats.crashes = stats.crashes.max((count_files(&artifacts) - before) as u64);
    stats.corpus = count_files(&corpus);
    Ok(stats)
}

/// Reads a fork-mode status line: `#1234: cov: 5 ft: 6 corp: 7 exec/s: 8
/// oom/timeout/crash: 0/1/2 time: 9s job: 3 dft_time: 0`.
pub fn parse_status(line: &str) -> Option<RunStats> {
    let rest = line.strip_prefix('#')?;
    let (executions, rest) = rest.split_once(':')?;
    let executions = executions.parse().ok()?;
    let counts = rest.split_once("oom/timeout/crash: ")?.1;
    let counts = counts.split_whitespace().next()?;
    let crashes = counts
        .split('/')
        .map(|n| n.parse::<u64>().ok())
        .sum::<Option<u64>>()?;
    Some(RunStats {
        executions,
        crashes,
        corpus: 0,
    })
}

fn corpus_dir(ws: &Workspace, name: &str) -> PathBuf {
    ws.join(&format!("fuzz/corpus/{name}"))
}

fn count_files(dir: &Path) -> usize {
    fs::read_dir(dir).map_or(0, |entries| {
        entries.flatten().filter(|e| e.path().is_file()).count()
    })
}

/// The target's dictionaries as one file (libFuzzer takes one `-dict`).
fn write_dict(ws: &Workspace, t: &Target) -> Result<PathBuf> {
    let mut text = String::new();
    for d in t.dicts {
        let path = ws.join(&format!("fuzz/dicts/{d}.dict"));
        text.push_str(
            &fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?,
        );
        text.push('\n');
    }
    let out = ws.join(&format!("fuzz/corpus/{}.dict", t.name));
    fs::write(&out, text)?;
    Ok(out)
}

fn append_runs(ws: &Workspace, rows: &[String]) -> Result<()> {
    let path = ws.join(RUNS_LOG);
    let mut text = fs::read_to_string(&path).unwrap_or_else(|_| {
        "# Fuzzing runs\n\nOne line per target per `cargo xtask fuzz` run (newest last). \
         Crashes are inputs that panicked, aborted, ran over 10 s or over 2 GB.\n\n\
         | date | commit | target | seconds | executions | corpus | crashes |\n\
         |---|---|---|---|---|---|---|\n"
            .to_string()
    });
    for row in rows {
        let _ = writeln!(text, "{row}");
    }
    fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
}

// ---------------------------------------------------------------------------
// Seeds
// ---------------------------------------------------------------------------

/// Writes the target's seed inputs into its corpus folder; returns how many.
fn seed(ws: &Workspace, t: &Target) -> Result<usize> {
    let dir = corpus_dir(ws, t.name);
    fs::create_dir_all(&dir)?;
    let mut seeds: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (name, bytes) in files_under(&ws.join(&format!("fuzz/seeds/{}", t.name)), &[])? {
        seeds.insert(format!("committed-{name}"), bytes);
    }
    match t.name {
        "manifest_apply" => {
            for dir in ["lessons", "tests/golden/manifests"] {
                for (name, bytes) in files_under(&ws.join(dir), &["yaml", "yml", "json"])? {
                    seeds.insert(format!("{dir}/{name}"), bytes);
                }
            }
            for (name, bytes) in files_under(&ws.join(K8S_EXAMPLES), &["yaml", "yml", "json"])? {
                seeds.insert(format!("k8s-examples/{name}"), bytes);
            }
            for (name, text) in golden_scripts(ws)? {
                for (i, body) in split_script(&text).heredocs.iter().enumerate() {
                    seeds.insert(format!("{name}-heredoc-{i}"), body.clone().into_bytes());
                }
            }
        }
        "kubectl_line" => {
            for (name, text) in golden_scripts(ws)? {
                for (i, line) in split_script(&text).commands.iter().enumerate() {
                    seeds.insert(format!("{name}-{i}"), line.clone().into_bytes());
                }
            }
        }
        "script" => {
            let manifests = sections(&ws.join("tests/golden"), "manifests")?;
            for (name, text) in golden_scripts(ws)? {
                let mut bytes = text.clone().into_bytes();
                if text.contains("manifests/") {
                    bytes.extend_from_slice(manifests.as_bytes());
                }
                seeds.insert(name, bytes);
            }
        }
        "lesson_file" => {
            for root in [
                "lessons",
                "crates/lessons/tests/valid",
                "crates/lessons/tests/broken",
            ] {
                for folder in subfolders(&ws.join(root))? {
                    let files = sections(&folder, "")?;
                    for lang in ["en.md", "ru.md"] {
                        if let Ok(mut text) = fs::read_to_string(folder.join(lang)) {
                            text.push_str(&files);
                            let name = folder.file_name().unwrap_or_default().to_string_lossy();
                            seeds.insert(format!("{root}/{name}/{lang}"), text.into_bytes());
                        }
                    }
                }
            }
        }
        "snapshot" => {
            // The sim's tests make the snapshots (an ignored test in fuzz_props.rs).
            let out = ws.join("fuzz/target/snapshot-seeds");
            fs::create_dir_all(&out)?;
            let mut cmd = ws.cmd(
                "cargo",
                &[
                    "test",
                    "-q",
                    "-p",
                    "warehouse-sim",
                    "--test",
                    "fuzz_props",
                    "--",
                    "--ignored",
                    "--exact",
                    "write_snapshot_seeds",
                ],
            );
            cmd.env("FUZZ_SNAPSHOT_SEEDS", &out);
            println!("$ {}", describe(&cmd));
            ensure!(run_status(&mut cmd)?, "`{}` failed", describe(&cmd));
            for (name, bytes) in files_under(&out, &[])? {
                seeds.insert(format!("sim-tests/{name}"), bytes);
            }
        }
        _ => {}
    }
    for (name, bytes) in &seeds {
        let file = format!("seed-{}", name.replace(['/', '\\'], "_"));
        fs::write(dir.join(file), bytes)?;
    }
    Ok(seeds.len())
}

/// Every file under `dir` (recursively) whose extension is one of `exts` (any if
/// empty), by path relative to `dir`.
fn files_under(dir: &Path, exts: &[&str]) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if exts.is_empty() || exts.contains(&ext) {
                let rel = path.strip_prefix(dir).unwrap_or(&path);
                out.push((rel.display().to_string(), fs::read(&path)?));
            }
        }
    }
    out.sort();
    Ok(out)
}

fn subfolders(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    Ok(out)
}

/// The files under `base/sub` that are not lesson texts, as `%%% file NAME`
/// sections (`warehouse_kubectl::fuzzing::split_files`), NAME relative to `base`.
fn sections(base: &Path, sub: &str) -> Result<String> {
    let mut out = String::new();
    for (name, bytes) in files_under(&base.join(sub), &[])? {
        if name.ends_with(".md") {
            continue;
        }
        let name = if sub.is_empty() {
            name
        } else {
            format!("{sub}/{name}")
        };
        let mut body = String::from_utf8_lossy(&bytes).into_owned();
        if !body.ends_with('\n') {
            body.push('\n');
        }
        let _ = write!(out, "\n%%% file {name}\n{body}");
    }
    Ok(out)
}

fn golden_scripts(ws: &Workspace) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (name, bytes) in files_under(&ws.join("tests/golden"), &["script"])? {
        out.push((name, String::from_utf8_lossy(&bytes).into_owned()));
    }
    Ok(out)
}

/// A script's command lines (each with its here-document, if any) and the bodies of
/// its here-documents.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ScriptParts {
    pub commands: Vec<String>,
    pub heredocs: Vec<String>,
}

pub fn split_script(text: &str) -> ScriptParts {
    let mut parts = ScriptParts::default();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let mut command = format!("{trimmed}\n");
        if let Some(delimiter) = heredoc_delimiter(trimmed) {
            let mut body = String::new();
            for l in lines.by_ref() {
                if l == delimiter {
                    break;
                }
                body.push_str(l);
                body.push('\n');
            }
            command.push_str(&body);
            command.push_str(&delimiter);
            command.push('\n');
            parts.heredocs.push(body);
        }
        parts.commands.push(command);
    }
    parts
}

/// `EOF` in `cat <<EOF`, `<<'EOF'`, `<<-"EOF"`.
fn heredoc_delimiter(line: &str) -> Option<String> {
    let rest = line.split_once("<<")?.1;
    let rest = rest.strip_prefix('-').unwrap_or(rest).trim_start();
    let word: String = rest
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ';' | '|' | '&'))
        .filter(|c| !matches!(c, '\'' | '"'))
        .collect();
    (!word.is_empty()).then_some(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn arguments_name_a_target_and_a_time() {
        let all = parse_args(&[]).unwrap();
        assert_eq!(all.targets.len(), TARGETS.len());
        assert_eq!(all.seconds, DEFAULT_SECONDS);
        let one = parse_args(&args(&["script", "--time", "30"])).unwrap();
        assert_eq!((one.targets, one.seconds), (vec!["script"], 30));
        let one = parse_args(&args(&["--time=5", "snapshot"])).unwrap();
        assert_eq!((one.targets, one.seconds), (vec!["snapshot"], 5));
        assert!(parse_args(&args(&["nope"])).is_err());
        assert!(parse_args(&args(&["--time", "0"])).is_err());
        assert!(parse_args(&args(&["--time"])).is_err());
        assert!(parse_args(&args(&["script", "snapshot"])).is_err());
    }

    #[test]
    fn status_lines_give_executions_and_crashes() {
        let line = "#37566: cov: 10154 ft: 31036 corp: 1169 exec/s: 621 oom/timeout/crash: 1/2/3 time: 61s job: 6 dft_time: 0";
        assert_eq!(
            parse_status(line),
            Some(RunStats {
                executions: 37566,
                crashes: 6,
                corpus: 0
            })
        );
        assert_eq!(parse_status("#2 INITED exec/s: 0 rss: 40Mb"), None);
        assert_eq!(parse_status("INFO: fuzzed for 61 seconds"), None);
    }

    #[test]
    fn scripts_split_into_commands_and_heredocs() {
        let parts = split_script(
            "# comment\nkubectl get pods\n\nkubectl apply -f - <<'EOF'\nkind: Pod\nEOF\nsim advance 5s\n",
        );
        assert_eq!(
            parts.commands,
            vec![
                "kubectl get pods\n",
                "kubectl apply -f - <<'EOF'\nkind: Pod\nEOF\n",
                "sim advance 5s\n"
            ]
        );
        assert_eq!(parts.heredocs, vec!["kind: Pod\n"]);
        assert_eq!(heredoc_delimiter("cat <<-\"END\" | x"), Some("END".into()));
        assert_eq!(heredoc_delimiter("echo a"), None);
    }
}
