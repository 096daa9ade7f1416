//! Project automation for Kube Warehouse.
//!
//! * `cargo xtask serve [--port N]` — install the web toolchain if needed, build
//!   the app (`trunk build --release`) and serve `dist/` on 127.0.0.1 as a static
//!   host does (`serve.rs`); "Serving" is printed once the server has answered.
//! * `cargo xtask test` — install everything the checks need, then run every
//!   check (fmt, tests, clippy, wasm builds, browser tests) and summarise,
//!   counting every test and naming every failure (`report.rs`). The native tests,
//!   lesson replays and bench smoke run in a clean copy of the repository
//!   (`clean_copy.rs`), so nothing beside it or ignored in it can be read.
//! * `cargo xtask invariants` — the architecture invariants the compiler proves
//!   (`invariants.rs`); also a step of `test`.
//! * `cargo xtask screenshots` — build the app (release), drive headless Chromium
//!   through `tests/browser/screenshots.mjs` and write `docs/screenshots/*.png`.
//! * `cargo xtask bench` — build the app (release) and run the browser benchmark
//!   `tests/browser/bench.mjs`: wasm size, first render, frame times at 1,000 and
//!   10,000 robots, simulated time per wall time, memory; writes
//!   `docs/bench-browser.md`.
//! * `cargo xtask post-build` — Trunk's one post-build hook: the three steps
//!   below, in that order (Trunk starts a stage's hooks at once).
//! * `cargo xtask csp [DIR]` — writes the hashes of the page's inline scripts into
//!   its Content-Security-Policy (`csp.rs`).
//! * `cargo xtask offline [DIR]` — writes this build's files and version into the
//!   service worker `sw.js` (`offline.rs`).
//! * `cargo xtask precompress [DIR]` — writes `NAME.gz` beside the app's files in a
//!   release build (`precompress.rs`).
//! * `cargo xtask fuzz [TARGET] [--time SECONDS]` — seed and run the cargo-fuzz
//!   targets in `fuzz/` (nightly; see `fuzz.rs`); appends to `docs/fuzz-runs.md`.
//! * `cargo xtask zones [ZONEINFO]` — regenerate the CronJob time zone table from
//!   a system's IANA time zone database (`zones.rs`).
//!
//! Pinned tools: Trunk 0.21.14 (0.22 needs a newer rustc), a wasm-bindgen CLI
//! equal to the `wasm-bindgen` crate in Cargo.lock, and wasm-opt from npm
//! `binaryen@132.0.0` (Debian's binaryen is too old for current rustc output).
//! Trunk.toml pins the same versions so Trunk never tries to download them.

use std::env;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};

mod clean_copy;
mod csp;
mod fuzz;
mod invariants;
mod offline;
mod paths;
mod precompress;
mod report;
mod serve;
mod zones;

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  serve [--port N]   build the web app (release) and serve dist/ on http://127.0.0.1:N
                     (default 8080) as a static host does: gzip copies, no live reload
  test               run every check: fmt, tests, clippy, wasm builds, browser tests
  invariants         check the architecture invariants the compiler proves (only the
                     apiserver writes the store; see xtask/src/invariants.rs)
  screenshots        build (release) and write docs/screenshots/*.png of the key views
  bench              build (release) and measure the app in Chromium; writes docs/bench-browser.md
  post-build         Trunk's post-build hook: csp, offline, precompress in that order
  csp [DIR]          post-build step: hash the inline scripts into the page's CSP
  offline [DIR]      post-build step: write the build's files into the service worker
  precompress [DIR]  post-build step: write NAME.gz beside the app files (release)
  fuzz [TARGET] [--time SECONDS]
                     run the cargo-fuzz targets (nightly), each for SECONDS (default 600);
                     appends to docs/fuzz-runs.md
  zones [ZONEINFO]   regenerate the CronJob time zone table from a zoneinfo tree
                     (default /usr/share/zoneinfo)";

const WASM_TARGET: &str = "wasm32-unknown-unknown";
const TRUNK_VERSION: &str = "0.21.14";
const BINARYEN_NPM_PACKAGE: &str = "binaryen@132.0.0";
const BINARYEN_VERSION: &str = "version_132";
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const DEFAULT_PORT: u16 = 8080;
// How long each long step usually takes on two cores (measured; README "Quick
// start" has the same figures), said before the step starts.
const TYPICAL_WASM_TARGET: &str = "a download, under a minute";
const TYPICAL_TRUNK: &str = "built from source, about 9 min on two cores";
const TYPICAL_WASM_BINDGEN: &str = "built from source, about 4 min on two cores";
const TYPICAL_NPM: &str = "a download, under a minute";
const TYPICAL_CHROMIUM: &str = "Debian's packages, about a minute";
const TYPICAL_APP_BUILD: &str =
    "about 9 min on two cores the first time (it compiles every crate for the browser), \
     about 3 min after (wasm-opt shrinks the wasm on every build)";
const TYPICAL_FMT: &str = "seconds";
const TYPICAL_CARGO_TEST: &str =
    "about 12 min on two cores the first time (7 min compiling every crate, then the \
     tests), about 3.5 min after a change";
const TYPICAL_CLIPPY: &str = "about 4.5 min on two cores the first time, seconds after";
const TYPICAL_INVARIANTS: &str = "under a minute: the sim crate checked once more";
const TYPICAL_WASM_SIM: &str = "about 2 min on two cores the first time, seconds after";
const TYPICAL_LESSONS: &str = "about 3 min on two cores: every lesson's solution, each \
     near-miss and each alternative replayed (5 min the first time: it builds the CLI)";
const TYPICAL_BENCH_SMOKE: &str = "under a minute: every benchmark scenario at a small size";
const TYPICAL_BROWSER: &str = "about 2 min: the app in headless Chromium";

/// Folder (relative to the workspace root) that holds the browser tests.
const BROWSER_TESTS: &str = "tests/browser";
/// Folder (relative to the workspace root) for npm-installed tools; gitignored.
const TOOLS_DIR: &str = "tools";

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("xtask: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<ExitCode> {
    let args: Vec<String> = env::args().skip(1).collect();
    let ws = Workspace::locate()?;
    match args.first().map(String::as_str) {
        Some("serve") => serve(&ws, parse_port(&args[1..])?),
        Some("test") if args.len() == 1 => test(&ws),
        Some("invariants") if args.len() == 1 => {
            Ok(exit_code(invariants::run(&ws.root, ws.cmd("cargo", &[]))?))
        }
        Some("screenshots") if args.len() == 1 => browser_script(&ws, "screenshots.mjs"),
        Some("bench") if args.len() == 1 => browser_script(&ws, "bench.mjs"),
        Some("csp") if args.len() <= 2 => {
            csp::run(args.get(1).map(String::as_str))?;
            Ok(ExitCode::SUCCESS)
        }
        Some("post-build") if args.len() == 1 => {
            csp::run(None)?;
            offline::run(None)?;
            precompress::run(None)?;
            Ok(ExitCode::SUCCESS)
        }
        Some("offline") if args.len() <= 2 => {
            offline::run(args.get(1).map(String::as_str))?;
            Ok(ExitCode::SUCCESS)
        }
        Some("precompress") if args.len() <= 2 => {
            precompress::run(args.get(1).map(String::as_str))?;
            Ok(ExitCode::SUCCESS)
        }
        Some("fuzz") => fuzz::run(&ws, &args[1..]),
        Some("zones") if args.len() <= 2 => {
            zones::run(&ws.root, args.get(1).map(String::as_str))?;
            Ok(ExitCode::SUCCESS)
        }
        Some("help" | "-h" | "--help") => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        Some(_) => bail!("unexpected arguments `{}`\n{USAGE}", args.join(" ")),
        None => bail!("missing command\n{USAGE}"),
    }
}

fn parse_port(args: &[String]) -> Result<u16> {
    match args {
        [] => Ok(DEFAULT_PORT),
        [flag, value] if flag == "--port" => parse_port_value(value),
        [flag] if flag.starts_with("--port=") => parse_port_value(&flag["--port=".len()..]),
        _ => bail!(
            "unexpected arguments for serve: `{}`\n{USAGE}",
            args.join(" ")
        ),
    }
}

fn parse_port_value(value: &str) -> Result<u16> {
    value
        .parse()
        .with_context(|| format!("`{value}` is not a valid port number"))
}

// ---------------------------------------------------------------------------
// Workspace and child processes
// ---------------------------------------------------------------------------

/// The workspace root plus the PATH every child process gets.
struct Workspace {
    root: PathBuf,
    path: OsString,
    /// Where cargo builds, when it is not `root/target` (the clean copy builds
    /// into the checkout's target folder).
    target_dir: Option<PathBuf>,
}

impl Workspace {
    fn locate() -> Result<Self> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .context("xtask/ has no parent folder")?
            .to_path_buf();
        let path = child_path(&root)?;
        Ok(Self {
            root,
            path,
            target_dir: None,
        })
    }

    /// The same tools, in the clean copy at `root`, building into this
    /// checkout's target folder.
    fn copy_at(&self, root: PathBuf) -> Self {
        Self {
            root,
            path: self.path.clone(),
            target_dir: Some(self.target()),
        }
    }

    /// Cargo's target folder for this workspace.
    fn target(&self) -> PathBuf {
        if let Some(dir) = &self.target_dir {
            return dir.clone();
        }
        match env::var_os("CARGO_TARGET_DIR") {
            Some(dir) => self.root.join(dir),
            None => self.root.join("target"),
        }
    }

    /// A command that runs in the workspace root with the tool PATH.
    fn cmd(&self, program: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(&self.root)
            .env("PATH", &self.path)
            // Trunk's update check would need the network.
            .env("TRUNK_SKIP_VERSION_CHECK", "true");
        if let Some(dir) = &self.target_dir {
            cmd.env("CARGO_TARGET_DIR", dir);
        }
        cmd
    }

    fn join(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }
}

/// PATH for children: npm-installed tools first, then cargo's bin folder if
/// it is missing, then the inherited PATH.
fn child_path(root: &Path) -> Result<OsString> {
    let inherited = env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = vec![root.join(TOOLS_DIR).join("node_modules/.bin")];
    let current: Vec<PathBuf> = env::split_paths(&inherited).collect();
    if let Some(cargo_bin) = cargo_bin_dir() {
        if !current.contains(&cargo_bin) {
            dirs.push(cargo_bin);
        }
    }
    dirs.extend(current);
    env::join_paths(dirs).context("cannot build PATH for child processes")
}

fn cargo_bin_dir() -> Option<PathBuf> {
    let cargo_home = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))?;
    Some(cargo_home.join("bin"))
}

/// Renders a command roughly as a shell would show it.
fn describe(cmd: &Command) -> String {
    let mut text = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    text
}

/// Runs `cmd` with inherited stdio; `Ok(true)` if it exited successfully.
fn run_status(cmd: &mut Command) -> Result<bool> {
    let status = cmd
        .status()
        .with_context(|| format!("cannot start `{}`", describe(cmd)))?;
    Ok(status.success())
}

/// Stdout + stderr of a command, or `None` if it cannot start or fails.
fn capture(cmd: &mut Command) -> Option<String> {
    let output = cmd.stdin(Stdio::null()).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    Some(text)
}

// ---------------------------------------------------------------------------
// Prerequisites
// ---------------------------------------------------------------------------

/// Something the checks need, how to tell it is there, and how to install it.
struct Prerequisite<'a> {
    name: String,
    /// How long installing it usually takes on two cores, for the message
    /// printed before a long install.
    typical: &'static str,
    is_present: Box<dyn Fn(&Workspace) -> bool + 'a>,
    /// Commands (run in order from the workspace root) that install it.
    install: Vec<Vec<String>>,
    /// Environment for the install commands.
    env: Vec<(&'static str, OsString)>,
}

impl Prerequisite<'_> {
    fn new(
        name: String,
        typical: &'static str,
        is_present: impl Fn(&Workspace) -> bool + 'static,
        install: &[&[&str]],
    ) -> Self {
        Self {
            name,
            typical,
            is_present: Box::new(is_present),
            install: argvs(install),
            env: Vec::new(),
        }
    }

    /// Builds a crate's binary with [`LIGHT_INSTALL_PROFILE`] in a target folder
    /// of this checkout (an interrupted install resumes where it stopped).
    fn cargo_built(mut self, ws: &Workspace) -> Self {
        self.env = LIGHT_INSTALL_PROFILE
            .iter()
            .map(|(var, value)| (*var, OsString::from(value)))
            .collect();
        self.env.push((
            "CARGO_TARGET_DIR",
            ws.target().join("tools").into_os_string(),
        ));
        self
    }

    fn manual_command(&self) -> String {
        let env: Vec<String> = self
            .env
            .iter()
            .map(|(var, value)| format!("{var}={}", value.to_string_lossy()))
            .collect();
        let commands: Vec<String> = self.install.iter().map(|argv| argv.join(" ")).collect();
        let commands = commands.join(" && ");
        if env.is_empty() {
            commands
        } else {
            format!("{} {commands}", env.join(" "))
        }
    }

    fn ensure(&self, ws: &Workspace) -> Result<()> {
        if (self.is_present)(ws) {
            return Ok(());
        }
        println!(
            "xtask: installing {} — {} ({})",
            self.name,
            self.typical,
            self.manual_command()
        );
        let started = Instant::now();
        for argv in &self.install {
            let args: Vec<&str> = argv[1..].iter().map(String::as_str).collect();
            let mut cmd = ws.cmd(&argv[0], &args);
            for (var, value) in &self.env {
                cmd.env(var, value);
            }
            let outcome = run_status(&mut cmd).and_then(|ok| {
                ensure!(ok, "`{}` failed", describe(&cmd));
                Ok(())
            });
            if let Err(err) = outcome {
                bail!(
                    "could not install {} ({err:#}); install it by hand from {} with:\n    {}",
                    self.name,
                    ws.root.display(),
                    self.manual_command()
                );
            }
        }
        ensure!(
            (self.is_present)(ws),
            "installed {} but its check still fails; install it by hand from {} with:\n    {}",
            self.name,
            ws.root.display(),
            self.manual_command()
        );
        println!(
            "xtask: installed {} in {}",
            self.name,
            seconds(started.elapsed())
        );
        Ok(())
    }
}

/// The profile the tools xtask builds from source are compiled with: their own
/// release profiles ask for fat LTO and one codegen unit (Trunk's takes about 17
/// minutes on two cores that way). They run for seconds per build, so compile
/// time matters more than their speed.
const LIGHT_INSTALL_PROFILE: &[(&str, &str)] = &[
    ("CARGO_PROFILE_RELEASE_LTO", "false"),
    ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"),
    ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1"),
    ("CARGO_PROFILE_RELEASE_DEBUG", "false"),
];

fn argvs(commands: &[&[&str]]) -> Vec<Vec<String>> {
    commands
        .iter()
        .map(|argv| argv.iter().map(|s| s.to_string()).collect())
        .collect()
}

/// True if `program args...` runs and its output contains `needle`.
fn output_contains(ws: &Workspace, program: &str, args: &[&str], needle: &str) -> bool {
    capture(&mut ws.cmd(program, args)).is_some_and(|out| out.contains(needle))
}

fn wasm_target() -> Prerequisite<'static> {
    Prerequisite::new(
        format!("the Rust target {WASM_TARGET}"),
        TYPICAL_WASM_TARGET,
        |ws| {
            capture(&mut ws.cmd("rustup", &["target", "list", "--installed"]))
                .is_some_and(|out| out.lines().any(|line| line.trim() == WASM_TARGET))
        },
        &[&["rustup", "target", "add", WASM_TARGET]],
    )
}

fn trunk(ws: &Workspace) -> Prerequisite<'static> {
    // Without --locked 0.21.14 does not compile; 0.22 needs a newer rustc. No
    // default features: they are TLS for `trunk serve --tls` and the update check
    // (xtask serves the app itself and works offline).
    Prerequisite::new(
        format!("trunk {TRUNK_VERSION}"),
        TYPICAL_TRUNK,
        |ws| output_contains(ws, "trunk", &["--version"], TRUNK_VERSION),
        &[&[
            "cargo",
            "install",
            "trunk",
            "--version",
            TRUNK_VERSION,
            "--locked",
            "--no-default-features",
        ]],
    )
    .cargo_built(ws)
}

fn wasm_bindgen_cli(ws: &Workspace, version: &str) -> Prerequisite<'static> {
    let wanted = format!("wasm-bindgen {version}");
    // No --locked: the locked set wants a crate version this registry lacks.
    Prerequisite::new(
        format!("wasm-bindgen-cli {version}"),
        TYPICAL_WASM_BINDGEN,
        move |ws| output_contains(ws, "wasm-bindgen", &["--version"], &wanted),
        &[&["cargo", "install", "wasm-bindgen-cli", "--version", version]],
    )
    .cargo_built(ws)
}

fn binaryen() -> Prerequisite<'static> {
    Prerequisite::new(
        format!("wasm-opt from npm {BINARYEN_NPM_PACKAGE}"),
        TYPICAL_NPM,
        |ws| {
            let wasm_opt = ws.join(TOOLS_DIR).join("node_modules/.bin/wasm-opt");
            output_contains(
                ws,
                &wasm_opt.to_string_lossy(),
                &["--version"],
                BINARYEN_VERSION,
            )
        },
        &[&[
            "npm",
            "install",
            "--prefix",
            TOOLS_DIR,
            BINARYEN_NPM_PACKAGE,
        ]],
    )
}

fn chromium() -> Prerequisite<'static> {
    Prerequisite::new(
        "Chromium and chromedriver".to_string(),
        TYPICAL_CHROMIUM,
        |_| Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists(),
        &[
            &["apt-get", "update"],
            &["apt-get", "install", "-y", "chromium", "chromium-driver"],
        ],
    )
}

fn playwright() -> Prerequisite<'static> {
    Prerequisite::new(
        format!("playwright-core and axe-core (npm ci in {BROWSER_TESTS})"),
        TYPICAL_NPM,
        |ws| browser_deps_installed(ws).unwrap_or(false),
        &[&["npm", "ci", "--prefix", BROWSER_TESTS]],
    )
}

/// The npm packages the browser tests use, each pinned in package.json.
const BROWSER_TEST_PACKAGES: &[&str] = &["playwright-core", "axe-core"];

/// True if `node_modules` holds every browser-test package at the version
/// package.json pins.
fn browser_deps_installed(ws: &Workspace) -> Result<bool> {
    let dir = ws.join(BROWSER_TESTS);
    let manifest = fs::read_to_string(dir.join("package.json"))?;
    for package in BROWSER_TEST_PACKAGES {
        let wanted = json_string_field(&manifest, package)
            .with_context(|| format!("package.json does not pin {package}"))?;
        let installed =
            fs::read_to_string(dir.join(format!("node_modules/{package}/package.json")));
        if !installed.is_ok_and(|text| json_string_field(&text, "version") == Some(wanted)) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The string value of the first `"key": "value"` pair in a JSON text. Good
/// enough for package.json files; not a general JSON parser.
fn json_string_field<'t>(json: &'t str, key: &str) -> Option<&'t str> {
    let quoted = format!("\"{key}\"");
    let after_key = &json[json.find(&quoted)? + quoted.len()..];
    let after_colon = after_key.trim_start().strip_prefix(':')?.trim_start();
    let value = after_colon.strip_prefix('"')?;
    Some(&value[..value.find('"')?])
}

/// The version of `package` recorded in Cargo.lock.
fn locked_version(ws: &Workspace, package: &str) -> Result<String> {
    let lock = fs::read_to_string(ws.join("Cargo.lock")).context("cannot read Cargo.lock")?;
    let name_line = format!("name = \"{package}\"");
    let mut lines = lock.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if line != name_line {
            continue;
        }
        if let Some(version) = lines.next().and_then(|l| l.strip_prefix("version = ")) {
            return Ok(version.trim_matches('"').to_string());
        }
    }
    bail!("Cargo.lock has no `{package}` package")
}

/// Trunk.toml must pin the same wasm-bindgen as Cargo.lock, or Trunk tries to
/// download a matching CLI (which fails offline).
fn check_trunk_toml(ws: &Workspace, wasm_bindgen: &str) -> Result<()> {
    let trunk_toml = fs::read_to_string(ws.join("Trunk.toml")).context("cannot read Trunk.toml")?;
    let pinned = trunk_toml
        .lines()
        .filter_map(|line| line.trim().strip_prefix("wasm_bindgen"))
        .find_map(|rest| rest.trim_start().strip_prefix('='))
        .map(|value| value.trim().trim_matches('"'));
    match pinned {
        Some(version) if version == wasm_bindgen => Ok(()),
        Some(version) => bail!(
            "Trunk.toml pins wasm_bindgen = \"{version}\" but Cargo.lock has wasm-bindgen \
             {wasm_bindgen}; update [tools] wasm_bindgen in Trunk.toml"
        ),
        None => bail!("Trunk.toml lacks [tools] wasm_bindgen = \"{wasm_bindgen}\""),
    }
}

/// Everything `trunk build` / `trunk serve` need.
fn ensure_web_toolchain(ws: &Workspace) -> Result<()> {
    let wasm_bindgen = locked_version(ws, "wasm-bindgen")?;
    check_trunk_toml(ws, &wasm_bindgen)?;
    wasm_target().ensure(ws)?;
    trunk(ws).ensure(ws)?;
    wasm_bindgen_cli(ws, &wasm_bindgen).ensure(ws)?;
    binaryen().ensure(ws)
}

/// Everything the browser tests need on top of the web toolchain.
fn ensure_browser_toolchain(ws: &Workspace) -> Result<()> {
    chromium().ensure(ws)?;
    playwright().ensure(ws)
}

// ---------------------------------------------------------------------------
// serve
// ---------------------------------------------------------------------------

fn serve(ws: &Workspace, port: u16) -> Result<ExitCode> {
    let started = Instant::now();
    ensure_web_toolchain(ws)?;
    let mut build = release_build(ws);
    println!("xtask: building the app — {TYPICAL_APP_BUILD}");
    println!("$ {}", describe(&build));
    ensure!(run_status(&mut build)?, "`{}` failed", describe(&build));
    let server = serve_dist(ws, port)?;
    println!(
        "xtask: ready in {}; after a change, run `cargo xtask serve` again (it rebuilds \
         only what changed). Ctrl-C stops the server.",
        seconds(started.elapsed())
    );
    println!("Serving Kube Warehouse on {}", server.url());
    server.wait();
    Ok(ExitCode::SUCCESS)
}

/// Serves the built `dist/` on 127.0.0.1:`port` once it has answered a request
/// for the page.
fn serve_dist(ws: &Workspace, port: u16) -> Result<serve::Server> {
    let server = serve::Server::start(&ws.join("dist"), port)?;
    server.check_answers()?;
    Ok(server)
}

/// `trunk build --release --offline`: the app as it is published, into `dist/`.
fn release_build(ws: &Workspace) -> Command {
    ws.cmd("trunk", &["build", "--release", "--offline"])
}

fn exit_code(success: bool) -> ExitCode {
    if success {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

// ---------------------------------------------------------------------------
// test
// ---------------------------------------------------------------------------

/// One named check made of one or more commands.
struct Step {
    name: &'static str,
    commands: Vec<Command>,
    /// Name of an earlier step whose failure makes this one pointless.
    needs: Option<&'static str>,
    /// The test runner whose output this is, to count its tests.
    runner: Option<report::Runner>,
    /// How long it usually takes on two cores, said before it starts.
    typical: &'static str,
    /// Serve `dist/` (as `cargo xtask serve` does) for the step's commands, with
    /// its address in `WAREHOUSE_URL`.
    serves_app: bool,
}

impl Step {
    fn new(name: &'static str, typical: &'static str, commands: Vec<Command>) -> Self {
        Self {
            name,
            commands,
            needs: None,
            runner: None,
            typical,
            serves_app: false,
        }
    }

    fn needs(mut self, step: &'static str) -> Self {
        self.needs = Some(step);
        self
    }

    fn counts(mut self, runner: report::Runner) -> Self {
        self.runner = Some(runner);
        self
    }
}

struct Outcome {
    name: &'static str,
    passed: bool,
    elapsed: Duration,
    /// The tests the step ran, for a step that runs a test runner.
    tests: Option<report::Tally>,
}

fn test(ws: &Workspace) -> Result<ExitCode> {
    let started = Instant::now();
    ensure_web_toolchain(ws)?;
    ensure_browser_toolchain(ws)?;
    println!(
        "xtask: prerequisites ready ({})",
        seconds(started.elapsed())
    );
    let synced = clean_copy::sync(&ws.root)?;
    println!(
        "xtask: the native tests run in a clean copy, the {} files a clone has and nothing \
         beside them: {} ({} written, {} removed)",
        synced.files,
        synced.dir.display(),
        synced.written,
        synced.removed
    );
    let copy = ws.copy_at(synced.dir);

    let steps = test_steps(ws, &copy)?;
    let total = steps.len() + 1;
    let mut outcomes: Vec<Outcome> = Vec::with_capacity(total);
    outcomes.push(stands_alone(ws, total));
    for (index, mut step) in steps.into_iter().enumerate() {
        println!(
            "\n==> [{}/{total}] {} — {}",
            index + 2,
            step.name,
            step.typical
        );
        let blocked_by = step
            .needs
            .filter(|needed| outcomes.iter().any(|o| o.name == *needed && !o.passed));
        let outcome = match blocked_by {
            Some(needed) => {
                println!("<== {}: FAILED (not run: `{needed}` failed)", step.name);
                Outcome {
                    name: step.name,
                    passed: false,
                    elapsed: Duration::ZERO,
                    tests: None,
                }
            }
            None => run_step(ws, &mut step),
        };
        outcomes.push(outcome);
    }
    Ok(exit_code(print_summary(&outcomes, started.elapsed())))
}

/// The first check: no file names a path outside the repository (`paths.rs`).
fn stands_alone(ws: &Workspace, total: usize) -> Outcome {
    let started = Instant::now();
    println!(
        "\n==> [1/{total}] stands alone — seconds: no file names a path outside the repository"
    );
    let passed = match paths::outside_references(&ws.root) {
        Ok(found) => {
            for reference in &found {
                println!("{reference}");
            }
            if !found.is_empty() {
                println!(
                    "(a line that names such a path on purpose carries `{}`)",
                    paths::ALLOW_MARKER
                );
            }
            found.is_empty()
        }
        Err(err) => {
            eprintln!("xtask: {err:#}");
            false
        }
    };
    let elapsed = started.elapsed();
    let verdict = if passed { "ok" } else { "FAILED" };
    println!("<== stands alone: {verdict} ({})", seconds(elapsed));
    Outcome {
        name: "stands alone",
        passed,
        elapsed,
        tests: None,
    }
}

/// The checks, in order. `copy` is the clean copy: what reads the repository's
/// files as tests do runs there.
fn test_steps(ws: &Workspace, copy: &Workspace) -> Result<Vec<Step>> {
    let xtask_exe = env::current_exe().context("cannot find the xtask executable")?;
    let xtask_exe = xtask_exe.to_string_lossy();
    let mut steps = vec![
        Step::new(
            "fmt",
            TYPICAL_FMT,
            vec![ws.cmd("cargo", &["fmt", "--all", "--", "--check"])],
        ),
        // `--workspace` includes warehouse-web (not a default member): Yew,
        // web-sys and friends build natively, so its native unit tests run too.
        // `--no-fail-fast`: every test binary runs even after one fails.
        Step::new(
            "test",
            TYPICAL_CARGO_TEST,
            vec![copy.cmd("cargo", &["test", "--workspace", "--no-fail-fast"])],
        )
        .counts(report::Runner::Cargo),
        // Native clippy covers every crate; the wasm pass also sees the
        // web crate's `cfg(target_arch = "wasm32")` code.
        Step::new(
            "clippy",
            TYPICAL_CLIPPY,
            vec![
                ws.cmd(
                    "cargo",
                    &[
                        "clippy",
                        "--workspace",
                        "--all-targets",
                        "--",
                        "-D",
                        "warnings",
                    ],
                ),
                ws.cmd(
                    "cargo",
                    &[
                        "clippy",
                        "--target",
                        WASM_TARGET,
                        "-p",
                        "warehouse-web",
                        "--",
                        "-D",
                        "warnings",
                    ],
                ),
            ],
        ),
        // After clippy, which has checked every dependency already.
        Step::new(
            "invariants",
            TYPICAL_INVARIANTS,
            vec![ws.cmd(&xtask_exe, &["invariants"])],
        ),
        Step::new(
            "wasm build (sim)",
            TYPICAL_WASM_SIM,
            vec![ws.cmd(
                "cargo",
                &["build", "-p", "warehouse-sim", "--target", WASM_TARGET],
            )],
        ),
    ];
    // The debug build `cargo test` already made is fast enough: a lesson replays
    // in well under a second.
    steps.push(
        warehouse_step(
            copy,
            "lessons check",
            TYPICAL_LESSONS,
            &["lessons", "check", "lessons"],
        )
        .counts(report::Runner::Lessons),
    );
    // Every `warehouse bench` scenario at small sizes, so the benchmarks cannot
    // rot: no timing is asserted, but each scenario must converge. The scaling
    // table and chart go to the copy's target folder, not docs/.
    steps.push(warehouse_step(
        copy,
        "bench smoke",
        TYPICAL_BENCH_SMOKE,
        &["bench", "all", "--smoke", "--out", "target/bench-smoke"],
    ));
    steps.push(Step::new(
        "trunk build",
        TYPICAL_APP_BUILD,
        vec![release_build(ws)],
    ));
    steps.push(browser_tests_step(ws)?.needs("trunk build"));
    Ok(steps)
}

/// A step that runs the `warehouse` CLI (debug build) with `args`.
fn warehouse_step(
    ws: &Workspace,
    name: &'static str,
    typical: &'static str,
    args: &[&str],
) -> Step {
    let mut all = vec!["run", "-q", "-p", "warehouse-cli", "--"];
    all.extend_from_slice(args);
    Step::new(name, typical, vec![ws.cmd("cargo", &all)])
}

/// `node --test tests/browser/` against `dist/` served as `cargo xtask serve`
/// serves it, with Chromium's scratch folders kept inside `target/browser-tmp`
/// (it writes outside its profile otherwise).
fn browser_tests_step(ws: &Workspace) -> Result<Step> {
    let mut cmd = ws.cmd("node", &["--test", &format!("{BROWSER_TESTS}/")]);
    browser_scratch(ws, &mut cmd)?;
    let mut step =
        Step::new("browser tests", TYPICAL_BROWSER, vec![cmd]).counts(report::Runner::Node);
    step.serves_app = true;
    Ok(step)
}

/// Points Chromium's config, cache and temp folders into `target/browser-tmp`.
fn browser_scratch(ws: &Workspace, cmd: &mut Command) -> Result<()> {
    let scratch = ws.target().join("browser-tmp");
    for (var, dir) in [
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_CACHE_HOME", "cache"),
        ("TMPDIR", "tmp"),
    ] {
        let path = scratch.join(dir);
        fs::create_dir_all(&path).with_context(|| format!("cannot create {}", path.display()))?;
        cmd.env(var, path);
    }
    Ok(())
}

/// `cargo xtask screenshots` / `bench`: install what is needed, build the app the
/// way `test` does (`trunk build --release --offline`), then run a node script from
/// `tests/browser/` against `dist/`.
fn browser_script(ws: &Workspace, script: &str) -> Result<ExitCode> {
    let started = Instant::now();
    ensure_web_toolchain(ws)?;
    ensure_browser_toolchain(ws)?;
    let mut build = release_build(ws);
    println!("xtask: building the app — {TYPICAL_APP_BUILD}");
    println!("$ {}", describe(&build));
    ensure!(run_status(&mut build)?, "`{}` failed", describe(&build));
    let mut node = ws.cmd("node", &[&format!("{BROWSER_TESTS}/{script}")]);
    browser_scratch(ws, &mut node)?;
    println!("$ {}", describe(&node));
    let ok = run_status(&mut node)?;
    println!(
        "xtask: {script} {} ({})",
        if ok { "done" } else { "FAILED" },
        seconds(started.elapsed())
    );
    Ok(exit_code(ok))
}

/// Runs every command of the step (even after one fails, so all output is
/// seen) and reports whether all succeeded, with the tests it counted.
fn run_step(ws: &Workspace, step: &mut Step) -> Outcome {
    let started = Instant::now();
    let mut passed = true;
    let mut output = String::new();
    // Kept alive for the step's commands; stops with the process.
    let server = if step.serves_app {
        serve_dist(ws, 0).map(Some)
    } else {
        Ok(None)
    };
    match server {
        Ok(server) => {
            if let Some(server) = &server {
                println!("xtask: serving dist/ on {} for the step", server.url());
                for cmd in &mut step.commands {
                    cmd.env("WAREHOUSE_URL", server.url());
                }
            }
            for cmd in &mut step.commands {
                println!("$ {}", describe(cmd));
                match run_teed(cmd) {
                    Ok((ok, text)) => {
                        passed &= ok;
                        output.push_str(&text);
                    }
                    Err(err) => {
                        eprintln!("xtask: {err:#}");
                        passed = false;
                    }
                }
            }
        }
        Err(err) => {
            eprintln!("xtask: {err:#}");
            passed = false;
        }
    }
    let elapsed = started.elapsed();
    let tests = step.runner.map(|runner| {
        let mut tally = report::parse(runner, &output);
        if !passed && tally.failed == 0 {
            // It failed, but said nothing a test failed: the runner itself did.
            tally.failed = 1;
            tally.failures.push(format!(
                "{}: the command failed (see its output above)",
                step.name
            ));
        }
        tally
    });
    let verdict = if passed { "ok" } else { "FAILED" };
    let counted = tests.as_ref().map_or(String::new(), |t| {
        format!(", {} passed, {} failed", t.passed, t.failed)
    });
    println!(
        "<== {}: {verdict} ({}{counted})",
        step.name,
        seconds(elapsed)
    );
    Outcome {
        name: step.name,
        passed,
        elapsed,
        tests,
    }
}

/// Runs `cmd` with its stdout and stderr, interleaved as written, both shown
/// and kept; `(succeeded, output)`.
fn run_teed(cmd: &mut Command) -> Result<(bool, String)> {
    use std::io::{BufRead, BufReader};
    let (reader, writer) = std::io::pipe().context("cannot make a pipe")?;
    cmd.stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer);
    let spawned = cmd.spawn();
    // The command holds the pipe's writing end: let it go, or reading never ends.
    cmd.stdout(Stdio::inherit()).stderr(Stdio::inherit());
    let mut child = spawned.with_context(|| format!("cannot start `{}`", describe(cmd)))?;
    let mut kept = String::new();
    let mut lines = BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        line.clear();
        if lines.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&line);
        print!("{text}");
        kept.push_str(&text);
    }
    let status = child.wait()?;
    Ok((status.success(), kept))
}

/// Prints per-step timings, the failed steps and tests, then the one-line
/// summary counting every test. Returns true if everything passed.
fn print_summary(outcomes: &[Outcome], total: Duration) -> bool {
    let mut timings = String::new();
    for o in outcomes {
        let verdict = if o.passed { "ok" } else { "FAILED" };
        let _ = write!(timings, "{} {verdict} {}; ", o.name, seconds(o.elapsed));
    }
    println!("\nxtask test: {timings}total {}", seconds(total));
    let mut tests = report::Tally::default();
    let mut counted = Vec::new();
    let (mut checks_passed, mut checks_failed) = (0u64, 0u64);
    for o in outcomes {
        match &o.tests {
            Some(tally) => {
                tests.add(tally);
                counted.push(format!("{} {}", o.name, tally.passed + tally.failed));
            }
            None if o.passed => checks_passed += 1,
            None => {
                checks_failed += 1;
                tests.failures.push(format!("step `{}` failed", o.name));
            }
        }
    }
    let failed_steps: Vec<&str> = outcomes
        .iter()
        .filter(|o| !o.passed)
        .map(|o| o.name)
        .collect();
    if !failed_steps.is_empty() {
        println!("xtask test: failed steps: {}", failed_steps.join(", "));
    }
    if !tests.failures.is_empty() {
        println!("xtask test: what failed:");
        for failure in &tests.failures {
            println!("    {failure}");
        }
    }
    println!(
        "xtask test: {} tests ({}), {} skipped; {} other checks (paths, fmt, clippy, \
         builds, bench smoke), {} failed",
        tests.passed + tests.failed,
        counted.join(", "),
        tests.ignored,
        checks_passed + checks_failed,
        checks_failed
    );
    let passed = tests.passed + checks_passed;
    let failed = tests.failed + checks_failed;
    println!(
        "xtask: {passed} passed, {failed} failed, {} skipped",
        tests.ignored
    );
    failed_steps.is_empty()
}

fn seconds(duration: Duration) -> String {
    format!("{:.1}s", duration.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_string_field_finds_first_value() {
        let json = r#"{ "name": "x", "dependencies": { "playwright-core" :  "1.65.1" } }"#;
        assert_eq!(json_string_field(json, "playwright-core"), Some("1.65.1"));
        assert_eq!(json_string_field(json, "name"), Some("x"));
        assert_eq!(json_string_field(json, "missing"), None);
    }

    #[test]
    fn parse_port_accepts_both_forms() {
        let args = |s: &[&str]| s.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        assert_eq!(parse_port(&[]).unwrap(), DEFAULT_PORT);
        assert_eq!(parse_port(&args(&["--port", "9000"])).unwrap(), 9000);
        assert_eq!(parse_port(&args(&["--port=9001"])).unwrap(), 9001);
        assert!(parse_port(&args(&["--port", "x"])).is_err());
        assert!(parse_port(&args(&["--bogus"])).is_err());
    }
}
