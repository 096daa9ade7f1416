//! Golden transcripts: every `tests/**/*.script` in the workspace runs (seed 1,
//! default topology, settled as a learner gets it unless the script starts with
//! `sim boot cold`) and must print exactly its sibling `.transcript`. Each script
//! runs twice and must print the same both times (determinism).
//!
//! `UPDATE_EXPECT=1 cargo test -p warehouse-cli --test golden` rewrites the
//! transcripts; read the diff before committing it.

use std::path::{Path, PathBuf};
use warehouse_cli::{diff, run_script, DiskFiles};

const SEED: u64 = 1;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/cli sits two levels below the workspace")
        .to_path_buf()
}

fn find_scripts(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if name == "node_modules" || name.starts_with('.') {
                continue;
            }
            find_scripts(&path, out);
        } else if path.extension().is_some_and(|e| e == "script") {
            out.push(path);
        }
    }
}

#[test]
fn golden_transcripts_match_and_are_deterministic() {
    let root = workspace_root();
    let mut scripts = Vec::new();
    find_scripts(&root.join("tests"), &mut scripts);
    assert!(
        !scripts.is_empty(),
        "no .script files under {}",
        root.join("tests").display()
    );
    let update = std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    for script in &scripts {
        let rel = script
            .strip_prefix(&root)
            .unwrap_or(script)
            .display()
            .to_string();
        let text = std::fs::read_to_string(script).expect("script is readable");
        let files = DiskFiles::new(script.parent().expect("a script has a folder"));
        let first = run_script(&text, SEED, &files).text();
        let second = run_script(&text, SEED, &files).text();
        if first != second {
            failures.push(format!(
                "{rel}: two runs with the same seed printed different transcripts:\n{}",
                diff(&first, &second).unwrap_or_default()
            ));
            continue;
        }
        let expected_path = script.with_extension("transcript");
        if update {
            std::fs::write(&expected_path, &first).expect("transcript is writable");
            continue;
        }
        match std::fs::read_to_string(&expected_path) {
            Err(_) => failures.push(format!(
                "{rel}: no transcript at {}; create it with\n    UPDATE_EXPECT=1 cargo test -p warehouse-cli --test golden\nand read it before committing",
                expected_path.display()
            )),
            Ok(expected) => {
                if let Some(d) = diff(&expected, &first) {
                    failures.push(format!(
                        "{rel}: the transcript differs (- expected, + actual); if the change is right, run\n    UPDATE_EXPECT=1 cargo test -p warehouse-cli --test golden\n{d}"
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} golden scripts failed:\n\n{}",
        failures.len(),
        scripts.len(),
        failures.join("\n")
    );
}
