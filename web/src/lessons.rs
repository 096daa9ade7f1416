//! Lessons in the app: the catalogue as fetched, the open lesson (both languages,
//! its files, the step runner and what the learner has revealed or answered), and
//! the saved progress. Pure data and pure logic: fetching lives in `fetch.rs`,
//! localStorage in `progress.rs`; the reducer in `state.rs` calls into here.

use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use warehouse_kubectl::MemoryFiles;
use warehouse_lessons::{
    parse_catalogue, parse_lesson, Catalogue, CheckResult, Lesson, Level, Runner,
};

/// The localStorage key of the progress (the version is part of the name and of the
/// JSON).
pub const PROGRESS_KEY: &str = "kube-warehouse.progress.v1";
pub const PROGRESS_VERSION: u32 = 1;
/// Saved progress larger than this is not read (a full catalogue takes a few KiB).
pub const MAX_PROGRESS_BYTES: usize = 64 * 1024;
/// At most this many lessons' progress is kept.
pub const MAX_SAVED_LESSONS: usize = 500;

/// How much simulated time may pass between two check evaluations while only the
/// clock moves (a changed store revision re-evaluates at once).
pub const CHECK_EVERY_MS: u64 = 500;

/// The front matter of one language of a catalogue lesson, as the list shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub id: String,
    pub title: String,
    pub summary: String,
    pub level: Level,
    pub tags: Vec<String>,
    pub minutes: u32,
    pub steps: usize,
}

impl Summary {
    fn of(lesson: &Lesson) -> Summary {
        Summary {
            id: lesson.meta.id.clone(),
            title: lesson.meta.title.clone(),
            summary: lesson.meta.summary.clone(),
            level: lesson.meta.level,
            tags: lesson.meta.tags.clone(),
            minutes: lesson.meta.minutes,
            steps: lesson.steps.len(),
        }
    }
}

/// A lesson folder of the catalogue.
#[derive(Clone, Debug, PartialEq)]
pub struct CatalogueLesson {
    pub folder: String,
    pub en: Option<Summary>,
    pub ru: Option<Summary>,
    /// Why it cannot be opened (a fetch or parse failure), shown in the list.
    pub error: Option<String>,
}

impl CatalogueLesson {
    pub fn summary(&self, russian: bool) -> Option<&Summary> {
        if russian {
            self.ru.as_ref().or(self.en.as_ref())
        } else {
            self.en.as_ref().or(self.ru.as_ref())
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub enum CatalogueState {
    #[default]
    Loading,
    Failed(String),
    Ready {
        catalogue: Rc<Catalogue>,
        lessons: Rc<Vec<CatalogueLesson>>,
    },
}

/// What was fetched for the catalogue: `index.yaml`'s text, then per folder its
/// `en.md` and `ru.md` (or why they could not be fetched).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogueTexts {
    pub index: String,
    pub lessons: Vec<FetchedLesson>,
}

/// A folder, and its `en.md` and `ru.md` (or why each could not be fetched).
pub type FetchedLesson = (String, Fetched, Fetched);
pub type Fetched = Result<String, String>;

/// Builds the catalogue from what was fetched.
pub fn build_catalogue(texts: &CatalogueTexts) -> CatalogueState {
    let catalogue = match parse_catalogue("lessons/index.yaml", &texts.index) {
        Ok(c) => c,
        Err(e) => return CatalogueState::Failed(e.to_string()),
    };
    let lessons = texts
        .lessons
        .iter()
        .map(|(folder, en, ru)| {
            let mut errors = Vec::new();
            let mut parse = |lang: &str, text: &Result<String, String>| match text {
                Ok(text) => match parse_lesson(&format!("lessons/{folder}/{lang}.md"), text) {
                    Ok(l) => Some(Summary::of(&l)),
                    Err(es) => {
                        errors.extend(es.iter().map(ToString::to_string));
                        None
                    }
                },
                Err(e) => {
                    errors.push(e.clone());
                    None
                }
            };
            let en = parse("en", en);
            let ru = parse("ru", ru);
            CatalogueLesson {
                folder: folder.clone(),
                en,
                ru,
                error: (!errors.is_empty()).then(|| errors.join("\n")),
            }
        })
        .collect();
    CatalogueState::Ready {
        catalogue: Rc::new(catalogue),
        lessons: Rc::new(lessons),
    }
}

/// Where an open lesson came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A folder of `lessons/index.yaml`.
    Catalogue(String),
    /// `?lesson=URL`.
    Url(String),
    /// Files the author picked or dropped.
    Local,
}

/// The texts of one lesson: its two languages (either may be missing) and the files
/// its front matter lists, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LessonTexts {
    /// (file name for errors, text)
    pub en: Option<(String, String)>,
    pub ru: Option<(String, String)>,
    pub files: BTreeMap<String, String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuizState {
    pub chosen: BTreeSet<usize>,
    pub checked: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PredictState {
    pub chosen: Option<usize>,
    /// After commit: what `show` printed, and whether the prediction was right.
    pub outcome: Option<(String, bool)>,
}

/// The lesson the learner has open.
#[derive(Clone)]
pub struct OpenLesson {
    pub origin: Origin,
    pub en: Option<Rc<Lesson>>,
    pub ru: Option<Rc<Lesson>>,
    pub files: Rc<MemoryFiles>,
    /// Shared so the state clones cheaply; only the reducer touches it.
    pub runner: Rc<RefCell<Runner>>,
    pub step: usize,
    pub hints: usize,
    pub solution: bool,
    /// By block index in the step.
    pub quizzes: BTreeMap<usize, QuizState>,
    pub predicts: BTreeMap<usize, PredictState>,
    pub check: Option<Rc<CheckResult>>,
    /// The (store revision, time) the check was last evaluated at.
    pub checked_at: Option<(u64, u64)>,
    /// The open step's recorded moment (a walkthrough step's ```frame).
    pub frame: Option<Rc<Result<warehouse_lessons::Frame, warehouse_lessons::Miss>>>,
    /// A note shown at the top of the panel (the replay after a reload).
    pub note: Option<String>,
    /// When each step first opened (simulated ms), as the runner's frame origins;
    /// "reset this step" moves the open step's.
    pub opened_ms: BTreeMap<usize, u64>,
    /// Each walkthrough step's moment, as simulated ms on the cluster's clock.
    pub frame_ms: BTreeMap<usize, u64>,
    /// What rebuilds this lesson's cluster after a reload or from a link: the
    /// history before each "reset this step", and where steps opened.
    pub log: crate::lesson_saved::LessonLog,
    /// A fingerprint of the lesson's texts (a changed lesson replays otherwise).
    pub texts: u64,
}

impl PartialEq for OpenLesson {
    fn eq(&self, other: &Self) -> bool {
        self.origin == other.origin
            && opt_ptr_eq(&self.en, &other.en)
            && opt_ptr_eq(&self.ru, &other.ru)
            && self.step == other.step
            && self.hints == other.hints
            && self.solution == other.solution
            && self.quizzes == other.quizzes
            && self.predicts == other.predicts
            && opt_ptr_eq(&self.check, &other.check)
            && opt_ptr_eq(&self.frame, &other.frame)
            && self.note == other.note
    }
}

fn opt_ptr_eq<T>(a: &Option<Rc<T>>, b: &Option<Rc<T>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Rc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

impl OpenLesson {
    /// The language version to show (the other one when it is missing).
    pub fn lesson(&self, russian: bool) -> &Rc<Lesson> {
        let (first, second) = if russian {
            (&self.ru, &self.en)
        } else {
            (&self.en, &self.ru)
        };
        first
            .as_ref()
            .or(second.as_ref())
            .expect("an open lesson has at least one language")
    }

    pub fn id(&self) -> &str {
        &self.lesson(false).meta.id
    }

    /// Forgets what was revealed and answered in the step (on opening a step).
    pub fn clear_step(&mut self) {
        self.hints = 0;
        self.solution = false;
        self.quizzes.clear();
        self.predicts.clear();
        self.check = None;
        self.checked_at = None;
        self.frame = None;
    }
}

/// Parses both languages of a lesson; every error comes back as `file:line:col:
/// message`.
pub fn parse_texts(texts: &LessonTexts) -> Result<(Option<Lesson>, Option<Lesson>), Vec<String>> {
    let mut errors = Vec::new();
    let mut parse = |t: &Option<(String, String)>| {
        t.as_ref()
            .and_then(|(file, text)| match parse_lesson(file, text) {
                Ok(l) => Some(l),
                Err(es) => {
                    errors.extend(es.iter().map(ToString::to_string));
                    None
                }
            })
    };
    let en = parse(&texts.en);
    let ru = parse(&texts.ru);
    if texts.en.is_none() && texts.ru.is_none() {
        errors.push("no lesson file: pick en.md and/or ru.md (and the manifests it lists)".into());
    }
    if errors.is_empty() {
        Ok((en, ru))
    } else {
        Err(errors)
    }
}

/// One lesson's saved progress.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonProgress {
    /// The step last open (0-based).
    pub step: usize,
    /// Steps whose check passed (or that have no check and were left with "next").
    pub done: BTreeSet<usize>,
}

/// Everything saved in localStorage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    pub version: u32,
    pub lessons: BTreeMap<String, LessonProgress>,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            version: PROGRESS_VERSION,
            lessons: BTreeMap::new(),
        }
    }
}

impl Progress {
    /// Why this progress cannot be used as it is, if it cannot: too many lessons, an
    /// id no lesson can have, a step number past the largest lesson.
    fn problem(&self) -> Option<String> {
        if self.lessons.len() > MAX_SAVED_LESSONS {
            return Some(format!(
                "{} lessons, more than {MAX_SAVED_LESSONS}",
                self.lessons.len()
            ));
        }
        self.lessons.iter().find_map(|(id, p)| {
            let max = warehouse_lessons::MAX_STEPS;
            if !warehouse_lessons::valid_id(id) {
                Some(format!("{id:?} is not a lesson id"))
            } else if p.step >= max || p.done.iter().any(|&d| d >= max) {
                Some(format!("lesson {id}: a step past {max}"))
            } else {
                None
            }
        })
    }
}

/// Reading the saved progress: the progress, and whether it had to be reset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Loaded {
    Fresh,
    Saved(Progress),
    /// There was something, but not readable as this version; it is replaced.
    Reset(String),
}

/// Decodes the stored text (`None`: nothing stored).
pub fn decode_progress(text: Option<&str>) -> Loaded {
    let Some(text) = text else {
        return Loaded::Fresh;
    };
    if text.len() > MAX_PROGRESS_BYTES {
        return Loaded::Reset(format!(
            "{} bytes, more than the {MAX_PROGRESS_BYTES} a saved progress may take",
            text.len()
        ));
    }
    match serde_json::from_slice::<Progress>(text.as_bytes()) {
        Ok(p) if p.version == PROGRESS_VERSION => match p.problem() {
            None => Loaded::Saved(p),
            Some(why) => Loaded::Reset(why),
        },
        Ok(p) => Loaded::Reset(format!(
            "version {} (expected {PROGRESS_VERSION})",
            p.version
        )),
        Err(e) => Loaded::Reset(e.to_string()),
    }
}

pub fn encode_progress(p: &Progress) -> String {
    serde_json::to_string(p).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_round_trips_and_bad_data_is_reset() {
        let mut p = Progress::default();
        p.lessons.insert(
            "desired-state".into(),
            LessonProgress {
                step: 2,
                done: [0, 1].into(),
            },
        );
        let text = encode_progress(&p);
        assert_eq!(decode_progress(Some(&text)), Loaded::Saved(p));
        assert_eq!(decode_progress(None), Loaded::Fresh);
        assert!(matches!(decode_progress(Some("{nope")), Loaded::Reset(_)));
        assert!(matches!(
            decode_progress(Some(r#"{"version":9,"lessons":{}}"#)),
            Loaded::Reset(_)
        ));
    }

    #[test]
    fn oversized_or_impossible_progress_is_reset_before_use() {
        let big = format!(
            r#"{{"version":1,"lessons":{{"a":{{"step":0,"done":[]}}}},"pad":"{}"}}"#,
            "x".repeat(MAX_PROGRESS_BYTES)
        );
        assert!(matches!(decode_progress(Some(&big)), Loaded::Reset(why) if why.contains("bytes")));
        for bad in [
            r#"{"version":1,"lessons":{"a":{"step":18446744073709551615,"done":[]}}}"#,
            r#"{"version":1,"lessons":{"a":{"step":0,"done":[1,2,3000000]}}}"#,
            r#"{"version":1,"lessons":{"../../x":{"step":0,"done":[]}}}"#, // not-a-repository-path
            r#"{"version":1,"lessons":{"a":{"step":-1,"done":[]}}}"#,
        ] {
            assert!(
                matches!(decode_progress(Some(bad)), Loaded::Reset(_)),
                "{bad} was accepted"
            );
        }
        let many: Vec<String> = (0..=MAX_SAVED_LESSONS)
            .map(|i| format!(r#""l{i}":{{"step":0,"done":[]}}"#))
            .collect();
        let many = format!(r#"{{"version":1,"lessons":{{{}}}}}"#, many.join(","));
        assert!(
            matches!(decode_progress(Some(&many)), Loaded::Reset(why) if why.contains("lessons"))
        );
        assert!(matches!(
            decode_progress(Some(
                r#"{"version":1,"lessons":{"desired-state":{"step":3,"done":[0,1,2]}}}"#
            )),
            Loaded::Saved(_)
        ));
    }

    #[test]
    fn a_catalogue_with_a_broken_lesson_lists_its_error() {
        let texts = CatalogueTexts {
            index: "start: 01-a\npaths:\n  - id: p\n    title: {en: P, ru: П}\n    summary: {en: S, ru: С}\n    lessons: [01-a]\n".into(),
            lessons: vec![("01-a".into(), Ok("no front matter".into()), Err("HTTP 404".into()))],
        };
        let CatalogueState::Ready { lessons, .. } = build_catalogue(&texts) else {
            panic!("the index is valid")
        };
        let error = lessons[0].error.as_deref().unwrap();
        assert!(error.contains("lessons/01-a/en.md:1"), "{error}");
        assert!(error.contains("HTTP 404"), "{error}");
    }
}
