//! The repository's lessons use one vocabulary: no Russian variant that
//! `lessons/glossary.yaml` rules out, and every button named by its label in the
//! lesson's own language. (`warehouse lessons check` prints the same warnings.)

use std::path::Path;
use warehouse_lessons::parse_glossary;

#[test]
fn every_lesson_speaks_the_glossary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lessons");
    let text = std::fs::read_to_string(root.join("glossary.yaml")).unwrap();
    let glossary = parse_glossary("lessons/glossary.yaml", &text).unwrap();
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join("en.md").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 20, "found {} lessons", dirs.len());
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
