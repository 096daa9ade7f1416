//! `warehouse lessons check [PATH]`: reads lesson folders from disk and verifies
//! them (`warehouse_lessons::verify`). PATH is the lessons folder (with its
//! `index.yaml`) or one lesson's folder; it defaults to `lessons`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
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
    let mut out = Output {
        text: String::new(),
        ok: true,
    };
    let index = path.join("index.yaml");
    let folders = lesson_folders(path, &index, &mut out);
    let glossary = load_glossary(path, index.is_file(), &mut out);
    let sources: Vec<(bool, LessonSource)> = folders
        .iter()
        .map(|dir| {
            let name = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (!index.is_file() || valid_folder(&name), read_lesson(dir))
        })
        .collect();
    let warnings = report_lessons(&sources, glossary.as_ref(), frames, &mut out);
    if warnings > 0 {
        let _ = writeln!(
            out.text,
            "{} (lessons/{GLOSSARY_FILE} has the words; lessons/README.md says how to write a near-miss)",
            counted(warnings, "warning", "warnings")
        );
    }
    let Output { text, ok } = out;
    Report { text, ok, warnings }
}

/// What a check has written so far, and whether everything passed.
struct Output {
    text: String,
    ok: bool,
}

impl Output {
    /// Writes a problem; the check fails.
    fn fail(&mut self, e: &LessonError) {
        self.ok = false;
        let _ = writeln!(self.text, "{e}");
    }
}

/// The lesson folders to check: those `index` (the catalogue) lists, then those
/// on disk it does not list; without a catalogue, `path` itself.
fn lesson_folders(path: &Path, index: &Path, out: &mut Output) -> Vec<PathBuf> {
    if !index.is_file() {
        return vec![path.to_path_buf()];
    }
    let shown = index.display().to_string();
    match std::fs::read_to_string(index) {
        Err(e) => {
            out.fail(&LessonError::new(&shown, 1, 0, e.to_string()));
            Vec::new()
        }
        Ok(src) => match parse_catalogue(&shown, &src) {
            Err(e) => {
                out.fail(&e);
                Vec::new()
            }
            Ok(c) => {
                let listed: Vec<&str> = c.folders().collect();
                catalogue_folders(path, &shown, &listed, out)
            }
        },
    }
}

/// The folders of `path` that the catalogue `shown` lists (`listed`), then the
/// lesson folders it does not list, each a problem; a listed folder without an
/// `en.md` is one too.
fn catalogue_folders(path: &Path, shown: &str, listed: &[&str], out: &mut Output) -> Vec<PathBuf> {
    for f in listed {
        if !path.join(f).join("en.md").is_file() {
            out.fail(&LessonError::new(
                shown,
                1,
                0,
                format!(
                    "{f} is listed but {}/{f}/en.md does not exist",
                    path.display()
                ),
            ));
        }
    }
    let mut on_disk: Vec<String> = std::fs::read_dir(path)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir() && e.path().join("en.md").is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    on_disk.sort();
    let mut folders: Vec<PathBuf> = listed
        .iter()
        .map(|f| path.join(f))
        .filter(|p| p.is_dir())
        .collect();
    for f in &on_disk {
        if !listed.contains(&f.as_str()) {
            let message = format!("the lesson {f} is in no path: add it to a path's lessons");
            out.fail(&LessonError::new(shown, 1, 0, message));
            // Still replayed, so its author sees every problem at once.
            folders.push(path.join(f));
        }
    }
    folders
}

/// The glossary, which sits beside index.yaml: in PATH (`has_index`), or above one
/// lesson's folder; a lesson drafted elsewhere is held to the repository's
/// (`lessons/` of the folder the command runs in). `None`, with a note or a
/// problem, when there is none or it does not parse.
fn load_glossary(path: &Path, has_index: bool, out: &mut Output) -> Option<Glossary> {
    let glossary_path = if has_index {
        Some(path.join(GLOSSARY_FILE))
    } else {
        path.parent()
            .map(|p| p.join(GLOSSARY_FILE))
            .filter(|p| p.is_file())
            .or_else(|| Some(Path::new("lessons").join(GLOSSARY_FILE)))
    };
    match glossary_path.filter(|p| p.is_file()) {
        None => {
            let _ = writeln!(
                out.text,
                "note: no {GLOSSARY_FILE} beside the lessons (nor lessons/{GLOSSARY_FILE} here): their words were not checked"
            );
            None
        }
        Some(p) => {
            let shown = p.display().to_string();
            match std::fs::read_to_string(&p)
                .map_err(|e| LessonError::new(&shown, 1, 0, e.to_string()))
                .and_then(|text| parse_glossary(&shown, &text))
            {
                Ok(g) => Some(g),
                Err(e) => {
                    out.fail(&e);
                    None
                }
            }
        }
    }
}

/// Verifies the lessons and writes a line for each (with `frames`, one per
/// walkthrough step too) and its problems; the number of warnings.
fn report_lessons(
    sources: &[(bool, LessonSource)],
    glossary: Option<&Glossary>,
    frames: bool,
    out: &mut Output,
) -> usize {
    let mut warnings = 0;
    let mut results = verify_all(sources).into_iter();
    for (named_well, source) in sources {
        let result = results.next().flatten();
        if !named_well {
            out.fail(&LessonError::new(
                &source.dir,
                1,
                0,
                "a lesson folder is named NN-name",
            ));
            continue;
        }
        let Some(result) = result else { continue };
        match result {
            Ok(v) => {
                let _ = writeln!(
                    out.text,
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
                        let _ = write!(out.text, "  step {n}: {}", f.describe());
                    }
                }
                warnings += warn_words(&mut out.text, glossary, source);
            }
            Err(errors) => {
                let _ = writeln!(out.text, "FAILED {}:", source.dir);
                for e in &errors {
                    out.fail(e);
                }
            }
        }
    }
    warnings
}

/// Verifies the well-named lessons on every core (each replay is independent),
/// the results in the order given; `None` for a folder not verified.
fn verify_all(
    sources: &[(bool, LessonSource)],
) -> Vec<Option<Result<warehouse_lessons::Verified, Vec<LessonError>>>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let results = Mutex::new((0..sources.len()).map(|_| None).collect::<Vec<_>>());
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(sources.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((named_well, source)) = sources.get(i) else {
                    break;
                };
                if *named_well {
                    let result = verify(source);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
                }
            });
        }
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Prints a warning for each check no near-miss tries, each word outside the
/// glossary and each button named in the other language; returns how many.
fn warn_words(text: &mut String, glossary: Option<&Glossary>, source: &LessonSource) -> usize {
    let mut n = 0;
    if let Some(Ok(lesson)) = source
        .en
        .as_deref()
        .map(|t| warehouse_lessons::parse_lesson(&format!("{}/en.md", source.dir), t))
    {
        for w in warehouse_lessons::verify::untried_checks(&lesson) {
            let _ = writeln!(text, "  warning: {w}");
            n += 1;
        }
    }
    let Some(g) = glossary else { return n };
    for (name, body, russian) in [("en.md", &source.en, false), ("ru.md", &source.ru, true)] {
        let Some(body) = body else { continue };
        for w in g.warnings(&format!("{}/{name}", source.dir), body, russian) {
            let _ = writeln!(text, "  warning: {w}");
            n += 1;
        }
    }
    n
}

/// A lesson opened for trying from the CLI (`warehouse repl --lesson DIR`).
pub struct Opened {
    pub lesson: warehouse_lessons::Lesson,
    /// The files its commands may read: those its front matter lists.
    pub files: warehouse_kubectl::MemoryFiles,
    pub session: warehouse_kubectl::Session,
    /// The 0-based step it opened at.
    pub step: usize,
}

/// Opens a lesson's cluster at step `step` (1-based; 1 is the lesson's setup):
/// the setup run and each earlier step's solution replayed as `lessons check`
/// does. The errors say where, as `lessons check` does.
pub fn open(dir: &Path, step: usize) -> Result<Opened, String> {
    let source = read_lesson(dir);
    let file = format!("{}/en.md", source.dir);
    let Some(text) = &source.en else {
        return Err(format!("{file} does not exist"));
    };
    let lesson = warehouse_lessons::parse_lesson(&file, text).map_err(|errors| {
        errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let steps = lesson.steps.len();
    if step == 0 || step > steps {
        return Err(format!(
            "the lesson has {steps} steps: --step takes 1 to {steps}"
        ));
    }
    let files = warehouse_lessons::verify::lesson_files(&lesson.meta, &source.files);
    let (session, _) = warehouse_lessons::verify::open_step(&lesson, &files, step - 1)
        .map_err(|e| e.to_string())?;
    Ok(Opened {
        lesson,
        files,
        session,
        step: step - 1,
    })
}

impl Opened {
    /// What the prompt says first: the lesson, the step and what the author can do.
    pub fn banner(&self) -> String {
        let step = &self.lesson.steps[self.step];
        let mut files: Vec<&str> = self.lesson.meta.files.iter().map(String::as_str).collect();
        files.sort();
        format!(
            "{}: step {} of {}, \"{}\" (the setup run{}). Files: {}. Type `check` to run the step's check; its incidents do not fire here.",
            self.lesson.meta.title,
            self.step + 1,
            self.lesson.steps.len(),
            step.title,
            if self.step == 0 {
                String::new()
            } else {
                format!(", then the solutions of steps 1 to {}", self.step)
            },
            if files.is_empty() {
                "none".to_string()
            } else {
                files.join(", ")
            }
        )
    }
}

/// Step `step`'s (0-based) check on the cluster as it is now, in words.
pub fn step_check(
    lesson: &warehouse_lessons::Lesson,
    step: usize,
    session: &mut warehouse_kubectl::Session,
    files: &dyn warehouse_kubectl::FileSource,
) -> String {
    let Some(check) = lesson.steps.get(step).and_then(|s| s.check.as_ref()) else {
        return "this step has no check\n".to_string();
    };
    let result = warehouse_lessons::check::evaluate(session, check, files);
    if result.passed() {
        "the check passes\n".to_string()
    } else {
        format!("the check does not pass:\n{}", result.explain_failures())
    }
}

/// `1 near-miss`, `2 near-misses`.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../lessons/tests/valid/tiny")
    }

    #[test]
    fn a_lesson_opens_at_a_step_with_the_earlier_solutions_replayed() {
        let mut first = open(&tiny(), 1).unwrap();
        assert!(first
            .banner()
            .contains("step 1 of 2, \"Make a namespace\" (the setup run)"));
        let out = step_check(&first.lesson, first.step, &mut first.session, &first.files);
        assert!(out.starts_with("the check does not pass:\n"), "{out}");

        let mut second = open(&tiny(), 2).unwrap();
        assert!(second
            .banner()
            .contains("then the solutions of steps 1 to 1"));
        // The first step's check passes there: its solution ran.
        let out = step_check(&second.lesson, 0, &mut second.session, &second.files);
        assert_eq!(out, "the check passes\n");
        let out = step_check(&second.lesson, 1, &mut second.session, &second.files);
        assert!(out.starts_with("the check does not pass:\n"), "{out}");
    }

    #[test]
    fn a_step_out_of_range_or_a_missing_lesson_says_so() {
        let e = open(&tiny(), 3).err().unwrap();
        assert_eq!(e, "the lesson has 2 steps: --step takes 1 to 2");
        assert!(open(&tiny(), 0).is_err());
        let e = open(Path::new("no/such/lesson"), 1).err().unwrap();
        assert_eq!(e, "no/such/lesson/en.md does not exist");
    }
}
