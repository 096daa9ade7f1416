//! Entry points for fuzzing kubectl, shared by the cargo-fuzz targets in `fuzz/`
//! and `tests/fuzz_props.rs` so that they cannot drift apart (see
//! `warehouse_sim::fuzzing`). Hidden from the documentation.
//!
//! Inputs that need files (`kubectl apply -f deployment.yaml` in a script, a
//! lesson's manifests) carry them after the main text, each after a line
//! `%%% file NAME` ([`FILE_MARKER`]); [`split_files`] takes them apart.

use crate::context::{MemoryFiles, NoFiles};
use crate::shell::script;
use crate::{shell, Session};
use std::collections::BTreeMap;
use warehouse_sim::fuzzing::{observe, text};
use warehouse_sim::{decode_manifests, SimDuration};

/// Every input runs on a fresh settled cluster of this seed (the default topology),
/// as every entry point hands a learner. Settling one (about 20 ms in a release
/// build) is faster than restoring its snapshot.
const SEED: u64 = 1;

/// The start of a line that begins a file section of a fuzz input.
pub const FILE_MARKER: &str = "%%% file ";

/// The main text of a fuzz input and the files after it (name → content).
pub fn split_files(input: &str) -> (&str, BTreeMap<String, String>) {
    let mut files = BTreeMap::new();
    let (main, mut rest) = match input.find(&format!("\n{FILE_MARKER}")) {
        Some(at) => (&input[..=at], Some(&input[at + 1..])),
        None if input.starts_with(FILE_MARKER) => ("", Some(input)),
        None => (input, None),
    };
    while let Some(section) = rest {
        let section = &section[FILE_MARKER.len()..];
        let (name, body) = section.split_once('\n').unwrap_or((section, ""));
        let (content, next) = match body.find(&format!("\n{FILE_MARKER}")) {
            Some(at) => (&body[..=at], Some(&body[at + 1..])),
            None => (body, None),
        };
        files.insert(name.to_string(), content.to_string());
        rest = next;
    }
    (main, files)
}

/// Runs `args` and reads its output as a terminal would.
fn run(session: &mut Session, args: &[&str]) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let _ = session.run_args(&args, None, &NoFiles).combined();
}

/// A manifest applied as `kubectl apply -f -` (what the web editor's Apply does) on a
/// fresh cluster, then a little simulated time, then what a learner looks at next.
/// An apply that reports nothing applied has written nothing.
pub fn manifest_apply(data: &[u8]) {
    let text = text(data);
    let mut session = Session::settled(SEED);
    let revision = session.cluster.revision();
    let out = session.run("apply -f -", Some(&text), &NoFiles);
    let _ = out.combined();
    if out.stdout.is_empty() {
        assert_eq!(
            session.cluster.revision(),
            revision,
            "an apply that reported nothing applied wrote to the store: {}",
            out.stderr
        );
    }
    let before = session.cluster.now();
    session.cluster.advance(SimDuration::secs(30));
    assert!(session.cluster.now() >= before, "the clock went back");
    observe(&session.cluster);
    run(&mut session, &["get", "all", "-A", "-o", "wide"]);
    run(&mut session, &["get", "events", "-A"]);
    if let Ok(objects) = decode_manifests(&text) {
        for object in objects.iter().take(4) {
            let kind = object.kind().plural();
            let namespace = match object.namespace() {
                "" => "default",
                ns => ns,
            };
            let name = object.name();
            run(&mut session, &["describe", kind, name, "-n", namespace]);
            run(
                &mut session,
                &["get", kind, name, "-n", namespace, "-o", "yaml"],
            );
        }
    }
}

/// One terminal line (the web terminal's entry point: `kubectl` prepended to a bare
/// kubectl command, then the shell around kubectl) on a fresh cluster. Files after
/// the line are what `-f NAME` reads.
pub fn kubectl_line(data: &[u8]) {
    let input = text(data);
    let (input, files) = split_files(&input);
    let mut session = Session::settled(SEED);
    let line = shell::terminal_line(input);
    let _ = session
        .run_shell(&line, None, &MemoryFiles(files))
        .combined();
    observe(&session.cluster);
}

/// A whole script through the script runner (`warehouse run`, the golden tests, the
/// web app's scripts) on a fresh settled session. A script that does not parse runs
/// no step.
pub fn script(data: &[u8]) {
    let input = text(data);
    let (text, files) = split_files(&input);
    let mut session = Session::settled(SEED);
    let transcript = script::run(&mut session, text, &MemoryFiles(files));
    let _ = transcript.text();
    if transcript.error.is_some() {
        assert!(
            transcript.steps.is_empty(),
            "a script that failed to parse ran"
        );
    }
    observe(&session.cluster);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_files_takes_sections_apart() {
        let (main, files) =
            split_files("kubectl apply -f a.yaml\n%%% file a.yaml\nkind: Pod\n%%% file b\nx");
        assert_eq!(main, "kubectl apply -f a.yaml\n");
        assert_eq!(files.len(), 2);
        assert_eq!(files["a.yaml"], "kind: Pod\n");
        assert_eq!(files["b"], "x");
        let (main, files) = split_files("%%% file only\n");
        assert_eq!((main, files["only"].as_str()), ("", ""));
        let (main, files) = split_files("no files %%% file here");
        assert_eq!((main, files.len()), ("no files %%% file here", 0));
    }
}
