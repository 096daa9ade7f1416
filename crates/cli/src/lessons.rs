//! `warehouse lessons check [PATH]`: reads lesson folders from disk and verifies
//! them (`warehouse_lessons::verify`). PATH is the lessons folder (with its
//! `index.yaml`) or one lesson's folder; it defaults to `lessons`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use warehouse_lessons::catalogue::valid_folder;
use warehouse_lessons::glossary::GLOSSARY_FILE;
use warehouse_lessons::session::fmt_duration;
use warehouse_lessons::{
    parse_catalogue, parse_glossary, verify, Glossary, LessonError, LessonSource,
};

/// The report of a check: one line per lesson (and one per problem), and whether
/// everything passed.
pub struct Report {
    pub text: String,
    pub ok: bool,
    /// Words outside the glossary and buttons named in the other language.
    pub warnings: usize,
}

/// Reads a lesson folder's `en.md`, `ru.md` and other files.
pub fn read_lesson(dir: &Path) -> LessonSource {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    let mut files = BTreeMap::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != "en.md" && n != "ru.md")
            .collect();
        names.sort();
        for n in names {
            if let Some(text) = read(&n) {
                files.insert(n, text);
            }
        }
    }
    LessonSource {
        dir: dir.display().to_string().trim_end_matches('/').to_string(),
        en: read("en.md"),
        ru: read("ru.md"),
        files,
    }
}

/// Checks a lessons folder or one lesson.
pub fn check(path: &Path) -> Report {
    check_with(path, false)
}

/// [`check`], and with `frames` the moment each walkthrough step shows.
pub fn check_with(path: &Path, frames: bool) -> Report {
    let mut text = String::new();
    let mut ok = true;
    let mut fail = |text: &mut String, e: &LessonError| {
        ok = false;
        let _ = writeln!(text, "{e}");
    };
    let index = path.join("index.yaml");
    let folders: Vec<std::path::PathBuf> = if index.is_file() {
        let shown = index.display().to_string();
        let mut folders = Vec::new();
        match std::fs::read_to_string(&index) {
            Err(e) => fail(&mut text, &LessonError::new(&shown, 1, 0, e.to_string())),
            Ok(src) => {
                match parse_catalogue(&shown, &src) {
                    Err(e) => fail(&mut text, &e),
                    Ok(c) => {
                        let listed: Vec<&str> = c.folders().collect();
                        for f in &listed {
                            if !path.join(f).join("en.md").is_file() {
                                fail(
                                    &mut text,
                                    &LessonError::new(
                                        &shown,
                                        1,
                                        0,
                                        format!(
                                            "{f} is listed but {}/{f}/en.md does not exist",
                                            path.display()
                                        ),
                                    ),
                                );
                            }
                        }
                        let mut on_disk: Vec<String> = std::fs::read_dir(path)
                            .map(|d| {
                                d.filter_map(|e| e.ok())
                                    .filter(|e| {
                                        e.path().is_dir() && e.path().join("en.md").is_file()
                                    })
                                    .map(|e| e.file_name().to_string_lossy().into_owned())
                                    .collect()
                            })
                            .unwrap_or_default();
                        on_disk.sort();
                        folders.extend(listed.iter().map(|f| path.join(f)).filter(|p| p.is_dir()));
                        for f in &on_disk {
                            if !listed.contains(&f.as_str()) {
                                let message = format!(
                                    "the lesson {f} is in no path: add it to a path's lessons"
                                );
                                fail(&mut text, &LessonError::new(&shown, 1, 0, message));
                                // Still replayed, so its author sees every problem at once.
                                folders.push(path.join(f));
                            }
                        }
                    }
                }
            }
        }
        folders
    } else {
        vec![path.to_path_buf()]
    };
    // The glossary sits beside index.yaml: in PATH, or above one lesson's folder.
    let glossary_path = if index.is_file() {
        Some(path.join(GLOSSARY_FILE))
    } else {
        path.parent().map(|p| p.join(GLOSSARY_FILE))
    };
    let glossary = match glossary_path.filter(|p| p.is_file()) {
        None => None,
        Some(p) => {
            let shown = p.display().to_string();
            match std::fs::read_to_string(&p)
                .map_err(|e| LessonError::new(&shown, 1, 0, e.to_string()))
                .and_then(|text| parse_glossary(&shown, &text))
            {
                Ok(g) => Some(g),
                Err(e) => {
                    fail(&mut text, &e);
                    None
                }
            }
        }
    };
    let mut warnings = 0;
    for dir in folders {
        let source = read_lesson(&dir);
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if index.is_file() && !valid_folder(&name) {
            fail(
                &mut text,
                &LessonError::new(&source.dir, 1, 0, "a lesson folder is named NN-name"),
            );
            continue;
        }
        match verify(&source) {
            Ok(v) => {
                let _ = writeln!(
                    text,
                    "ok {}: {} ({} steps, {} conditions, {} refused, {} accepted, en and ru; solution replayed over {} of simulated time)",
                    source.dir,
                    v.id,
                    v.steps,
                    v.conditions,
                    counted(v.near_misses, "near-miss", "near-misses"),
                    counted(v.alternatives, "alternative", "alternatives"),
                    fmt_duration(v.sim_time)
                );
                if frames {
                    for (n, f) in &v.frames {
                        let _ = write!(text, "  step {n}: {}", f.describe());
                    }
                }
                warnings += warn_words(&mut text, glossary.as_ref(), &source);
            }
            Err(errors) => {
                let _ = writeln!(text, "FAILED {}:", source.dir);
                for e in &errors {
                    fail(&mut text, e);
                }
            }
        }
    }
    if warnings > 0 {
        let _ = writeln!(
            text,
            "{} (lessons/{GLOSSARY_FILE} has the words)",
            counted(warnings, "warning", "warnings")
        );
    }
    Report { text, ok, warnings }
}

/// Prints a warning for each word outside the glossary and each button named in
/// the other language; returns how many.
fn warn_words(text: &mut String, glossary: Option<&Glossary>, source: &LessonSource) -> usize {
    let Some(g) = glossary else { return 0 };
    let mut n = 0;
    for (name, body, russian) in [("en.md", &source.en, false), ("ru.md", &source.ru, true)] {
        let Some(body) = body else { continue };
        for w in g.warnings(&format!("{}/{name}", source.dir), body, russian) {
            let _ = writeln!(text, "  warning: {w}");
            n += 1;
        }
    }
    n
}

/// `1 near-miss`, `2 near-misses`.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
