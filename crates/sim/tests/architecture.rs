//! Architecture invariants read from the source (ARCHITECTURE.md names them): what
//! the simulation and kubectl must never use. Each file's code is read up to its
//! first `#[cfg(test)]` item; files compiled only for tests are skipped.

use std::path::{Path, PathBuf};

/// Files compiled only under `cfg(test)` (included from a test module).
const TEST_ONLY: &[&str] = &["store_properties.rs"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `file:line: text` for each line of non-test code that names one of `words`.
/// Comments are skipped.
fn uses(crate_dir: &str, words: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(crate_dir);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if TEST_ONLY.contains(&name) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a source file");
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("#[cfg(test)]") {
                break;
            }
            if code.starts_with("//") {
                continue;
            }
            if let Some(word) = words.iter().find(|w| code.contains(*w)) {
                found.push(format!("{}:{}: {word}", file.display(), i + 1));
            }
        }
    }
    found
}

/// Deterministic core: no clock, no thread, and no hashed map or set whose
/// iteration order could reach output (every map is a `BTreeMap`/`BTreeSet`).
#[test]
fn the_simulation_reads_no_clock_spawns_no_thread_and_keeps_no_hashed_map() {
    let found = uses(
        "sim/src",
        &[
            "std::time",
            "Instant",
            "SystemTime",
            "std::thread",
            "HashMap",
            "HashSet",
        ],
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// `warehouse-kubectl` does no IO, so the same code runs in the browser: files
/// come through its `FileSource` trait, output through `CommandOutput`.
#[test]
fn kubectl_does_no_io() {
    let found = uses(
        "kubectl/src",
        &[
            "std::fs",
            "std::net",
            "std::process",
            "std::env",
            "std::io::stdin",
            "println!",
            "eprintln!",
        ],
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The scan finds what it looks for: a word in code is reported, one in a
/// comment or after `#[cfg(test)]` is not.
#[test]
fn the_scan_reports_code_and_skips_comments_and_tests() {
    let found = uses("sim/src", &["fn advance_within"]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("cluster.rs"));
    // Only in shell.rs's tests.
    assert!(uses("sim/src", &["fn on_small_stack"]).is_empty());
}

/// kubectl is layered: the commands (`cmd/`), the printers and what they share
/// (`args.rs`: flags and their errors, `context.rs`: output, files and the doors to
/// the cluster) never name the grammar (`cli.rs`), which dispatches to them; and the
/// printers, `args.rs` and `context.rs` name no command.
#[test]
fn kubectl_commands_and_printers_do_not_name_the_grammar() {
    let mut found = uses("kubectl/src/cmd", &["crate::cli"]);
    found.extend(uses("kubectl/src/printers", &["crate::cli", "crate::cmd"]));
    found.extend(
        uses("kubectl/src", &["crate::cli", "crate::cmd", "crate::shell"])
            .into_iter()
            .filter(|f| f.contains("/args.rs:") || f.contains("/context.rs:")),
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
    // The scan sees the grammar's own dispatch to the commands.
    assert!(!uses("kubectl/src", &["crate::cmd::"]).is_empty());
}
