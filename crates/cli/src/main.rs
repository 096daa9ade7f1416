//! `warehouse`: run simulation scripts from the command line.
//!
//! `warehouse run SCRIPT|- [--seed N] [--expect TRANSCRIPT]` runs a script on a
//! fresh simulated cluster, settled (up a few minutes, kube-system Running; a script
//! may start with `sim boot cold` for simulated second 0), and prints its transcript. With `--expect`, it compares
//! the transcript with a file, prints a diff and exits 1 when they differ.
//! `warehouse repl [--seed N]` opens an interactive prompt on a fresh settled cluster;
//! `warehouse repl --lesson DIR [--step N]` on a lesson's cluster at one of its steps.
//! `warehouse lessons check [PATH]` verifies lessons (see `lessons/README.md`).
//! `warehouse bench SCENARIO [--smoke]` times a benchmark scenario (README "Performance").

#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use warehouse_cli::{diff, read_bounded, DiskFiles, ReadError};
use warehouse_kubectl::shell::script;
use warehouse_kubectl::Session;

#[derive(Parser)]
#[command(
    name = "warehouse",
    version,
    about = "Kube Warehouse: a simulated Kubernetes cluster"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a script (`kubectl ...` and `sim ...` lines) and print its transcript
    Run {
        /// The script file, or `-` for stdin
        script: String,
        /// The simulation's random seed
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Compare the transcript with this file; print a diff and exit 1 if they differ
        #[arg(long, value_name = "TRANSCRIPT")]
        expect: Option<PathBuf>,
    },
    /// An interactive prompt against a simulated cluster (history, Tab completion)
    Repl {
        /// The simulation's random seed
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Open a lesson's cluster (its topology, seed and setup; its files readable)
        #[arg(long, value_name = "DIR")]
        lesson: Option<PathBuf>,
        /// With --lesson: open at this step (1 is the start; the solutions of the
        /// steps before it are replayed as `lessons check` replays them)
        #[arg(long, value_name = "N", requires = "lesson", default_value_t = 1)]
        step: usize,
    },
    /// Time a benchmark scenario: converge, steady, node-death, fanout, compare,
    /// envelope, scaling, or all; one line each
    Bench {
        /// The scenario
        scenario: String,
        /// The simulation's random seed
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Small sizes (a smoke run: every scenario runs, the numbers mean nothing)
        #[arg(long)]
        smoke: bool,
        /// Where `scaling` writes scaling.md and scaling.svg
        #[arg(long, default_value = "docs")]
        out: PathBuf,
        /// `scaling` leaves out the cells with more workload pods than this
        #[arg(long, value_name = "PODS")]
        max_pods: Option<usize>,
    },
    /// Lessons: `lessons check [PATH]` replays every lesson's solutions
    Lessons {
        #[command(subcommand)]
        command: LessonsCommand,
    },
}

#[derive(Subcommand)]
enum LessonsCommand {
    /// Verify lessons: both languages parse and agree, every command parses, each
    /// step's check fails before its solution and passes after it
    Check {
        /// The lessons folder (with index.yaml) or one lesson's folder
        #[arg(default_value = "lessons")]
        path: PathBuf,
        /// Also print the moment each walkthrough step shows (```frame blocks)
        #[arg(long)]
        frames: bool,
    },
}

fn main() -> ExitCode {
    match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Run {
            script,
            seed,
            expect,
        } => run(&script, seed, expect.as_deref()),
        Command::Repl {
            seed, lesson: None, ..
        } => {
            let session = warehouse_kubectl::Session::settled(seed);
            let base = std::env::current_dir().context("finding the current folder")?;
            warehouse_cli::repl::run(session, &DiskFiles::new(base), None)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Repl {
            lesson: Some(dir),
            step,
            ..
        } => {
            let opened = warehouse_cli::lessons::open(&dir, step).map_err(anyhow::Error::msg)?;
            let banner = opened.banner();
            let warehouse_cli::lessons::Opened {
                lesson,
                files,
                session,
                step,
            } = opened;
            let at = warehouse_cli::repl::AtStep {
                lesson: &lesson,
                step,
                banner,
            };
            warehouse_cli::repl::run(session, &files, Some(at))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            scenario,
            seed,
            smoke,
            out,
            max_pods,
        } => {
            let opts = warehouse_cli::bench::Options {
                seed,
                smoke,
                max_pods,
            };
            warehouse_cli::bench::run(&scenario, opts, &out, &mut |l| println!("{}", l.text()))
                .map_err(anyhow::Error::msg)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Lessons {
            command: LessonsCommand::Check { path, frames },
        } => {
            anyhow::ensure!(path.is_dir(), "{} is not a folder", path.display());
            let report = warehouse_cli::lessons::check_with(&path, frames);
            print!("{}", report.text);
            Ok(if report.ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}

fn run(script: &str, seed: u64, expect: Option<&Path>) -> Result<ExitCode> {
    let limit = script::MAX_SCRIPT_BYTES;
    let too_long =
        || anyhow::anyhow!("the script is longer than {limit} bytes, the most a script may be");
    let (text, base) = if script == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(limit as u64 + 1)
            .read_to_end(&mut bytes)
            .context("reading the script from stdin")?;
        if bytes.len() > limit {
            return Err(too_long());
        }
        (
            String::from_utf8(bytes).context("reading the script from stdin")?,
            std::env::current_dir().context("finding the current folder")?,
        )
    } else {
        let path = Path::new(script);
        let text = read_bounded(path, limit).map_err(|e| match e {
            ReadError::TooLarge => too_long(),
            e => anyhow::anyhow!("reading the script {}: {e}", path.display()),
        })?;
        let base = path
            .parent()
            .map(Path::to_path_buf)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| PathBuf::from("."));
        (text, base)
    };
    let files = DiskFiles::new(base);
    let mut session = Session::settled(seed);
    let mut stdout = std::io::stdout().lock();
    match expect {
        None => {
            // Each step is printed as soon as it ran: a long transcript is never
            // held whole.
            let mut failed_write = None;
            let parsed = script::run_each(&mut session, &text, &files, |r| {
                if failed_write.is_none() {
                    let written = stdout
                        .write_all(r.step.echo().as_bytes())
                        .and_then(|()| stdout.write_all(r.output.combined().as_bytes()));
                    failed_write = written.err();
                }
            });
            if let Some(e) = failed_write {
                return Err(e).context("writing the transcript");
            }
            match parsed {
                Ok(()) => Ok(ExitCode::SUCCESS),
                Err(e) => {
                    writeln!(stdout, "error: {e}")?;
                    Ok(ExitCode::from(1))
                }
            }
        }
        Some(path) => {
            let expected = read_bounded(path, MAX_EXPECTED_BYTES).map_err(|e| {
                anyhow::anyhow!("reading the expected transcript {}: {e}", path.display())
            })?;
            // The transcript is kept only as long as the expected one could match it.
            let mut actual = String::new();
            let mut longer = false;
            let parsed = script::run_each(&mut session, &text, &files, |r| {
                if !longer {
                    actual.push_str(&r.step.echo());
                    actual.push_str(&r.output.combined());
                    longer = actual.len() > expected.len();
                }
            });
            if let Err(e) = parsed {
                actual = format!("error: {e}\n");
            }
            if longer {
                writeln!(
                    stdout,
                    "the transcript differs from {}: it is longer than the expected {} bytes",
                    path.display(),
                    expected.len()
                )?;
                return Ok(ExitCode::from(1));
            }
            match diff(&expected, &actual) {
                None => Ok(ExitCode::SUCCESS),
                Some(d) => {
                    writeln!(
                        stdout,
                        "the transcript differs from {} (- expected, + actual):",
                        path.display()
                    )?;
                    stdout.write_all(d.as_bytes())?;
                    Ok(ExitCode::from(1))
                }
            }
        }
    }
}

/// The largest expected transcript `--expect` reads.
const MAX_EXPECTED_BYTES: usize = 64 << 20;
