//! The lesson-file fuzz target's entry point on stable
//! (`warehouse_lessons::fuzzing::lesson_file`, the function `fuzz/fuzz_targets/`
//! calls), on the repository's lessons (with their manifests as `%%% file`
//! sections) mutated by the structure-aware mutator.

#[path = "../../sim/tests/fuzz_support/mod.rs"]
mod fuzz_support;

use fuzz_support::{config, files_under, mutated, workspace};
use proptest::prelude::*;
use warehouse_lessons::fuzzing;

/// Each lesson text of `lessons/` and of this crate's test fixtures, followed by the
/// other files of its folder.
fn lessons() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for root in [
        "lessons",
        "crates/lessons/tests/valid",
        "crates/lessons/tests/broken",
    ] {
        let Ok(entries) = std::fs::read_dir(workspace().join(root)) else {
            continue;
        };
        let mut folders: Vec<_> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        folders.sort();
        for folder in folders {
            let files = files_under(&folder, &[]);
            let sections: Vec<u8> = files
                .iter()
                .filter(|(name, _)| !name.ends_with(".md"))
                .flat_map(|(name, body)| {
                    let mut s = format!("\n%%% file {name}\n").into_bytes();
                    s.extend_from_slice(body);
                    s
                })
                .collect();
            for (name, text) in files.iter().filter(|(name, _)| name.ends_with(".md")) {
                if name.contains('/') {
                    continue;
                }
                let mut seed = text.clone();
                seed.extend_from_slice(&sections);
                out.push(seed);
            }
        }
    }
    out
}

#[test]
fn the_lessons_pass_the_entry_point() {
    let lessons = lessons();
    assert!(lessons.len() >= 6, "{} lessons", lessons.len());
    // The two languages of the first lesson open and run.
    for lesson in &lessons[..2] {
        assert_eq!(fuzzing::lesson_file(lesson), fuzzing::Reached::Ran);
    }
}

proptest! {
    #![proptest_config(config(8))]

    #[test]
    fn lesson_files_survive_mutations(lesson in mutated(lessons())) {
        let _ = fuzzing::lesson_file(&lesson.0);
    }
}
