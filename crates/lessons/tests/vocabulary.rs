//! The repository's lessons use one vocabulary: no Russian variant that
//! `lessons/glossary.yaml` rules out, and every button named by its label in the
//! lesson's own language. (`warehouse lessons check` prints the same warnings.)

use std::path::{Path, PathBuf};
use warehouse_lessons::parse_glossary;

/// The repository's lesson folders, in order.
fn lesson_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lessons");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join("en.md").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 20, "found {} lessons", dirs.len());
    dirs
}

#[test]
fn every_lesson_speaks_the_glossary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lessons");
    let text = std::fs::read_to_string(root.join("glossary.yaml")).unwrap();
    let glossary = parse_glossary("lessons/glossary.yaml", &text).unwrap();
    let dirs = lesson_dirs();
    let mut found = Vec::new();
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy();
        for (file, russian) in [("en.md", false), ("ru.md", true)] {
            let Ok(body) = std::fs::read_to_string(dir.join(file)) else {
                continue;
            };
            for w in glossary.warnings(&format!("lessons/{name}/{file}"), &body, russian) {
                found.push(w.to_string());
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} words outside the glossary:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// Every step with a check has a near-miss, or an author's note saying why none
/// is plausible.
#[test]
fn every_check_is_tried_with_a_wrong_answer_or_says_why_not() {
    let mut found = Vec::new();
    for dir in &lesson_dirs() {
        let name = dir.file_name().unwrap().to_string_lossy();
        let text = std::fs::read_to_string(dir.join("en.md")).unwrap();
        let lesson =
            warehouse_lessons::parse_lesson(&format!("lessons/{name}/en.md"), &text).unwrap();
        found.extend(
            warehouse_lessons::verify::untried_checks(&lesson)
                .iter()
                .map(|e| e.to_string()),
        );
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn a_check_without_a_near_miss_or_a_note_is_named() {
    let head = "---\nid: t\ntitle: T\nsummary: S\nlevel: beginner\nminutes: 3\n---\n";
    let step = "## Make it\n\n```check\n- run: kubectl get ns shop -o name\n  equals: namespace/shop\n```\n\n```solution\nkubectl create ns shop\n```\n";
    let bare = warehouse_lessons::parse_lesson("l.md", &format!("{head}{step}")).unwrap();
    let found = warehouse_lessons::verify::untried_checks(&bare);
    assert_eq!(found.len(), 1);
    assert!(found[0]
        .to_string()
        .starts_with("l.md:8: step 1 (Make it) has a check but no ```near-miss"));
    let noted =
        format!("{head}{step}\n```author-note\nOnly one way to get it wrong: not doing it.\n```\n");
    let noted = warehouse_lessons::parse_lesson("l.md", &noted).unwrap();
    assert!(warehouse_lessons::verify::untried_checks(&noted).is_empty());
}
