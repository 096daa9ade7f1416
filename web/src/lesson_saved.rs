//! An open lesson kept across a reload and sent as a link: the lesson (where it
//! came from, a fingerprint of its texts), the step open, and what rebuilds its
//! cluster: the history of the lesson's session (every input, the lesson's setup
//! and incidents included, see `warehouse_kubectl::journal`) cut into parts at each
//! "reset this step", with the places in it where steps opened. Replaying that on
//! the lesson's fresh cluster, opening the steps and resetting where the learner
//! did, gives the same cluster, clock and step; nothing of the cluster is stored.
//!
//! - Saved in localStorage under one versioned key, [`LESSON_KEY`], at most
//!   [`crate::saved::MAX_SAVED_BYTES`], with the terminal, the editor and the
//!   settings; unreadable or incompatible data is dropped with a notice.
//! - A share link carries the [`Timeline`] alone in the fragment, `#lesson=` then
//!   the JSON compressed and written as `#history=` is (`saved.rs`); only lessons of
//!   the built-in catalogue can be shared, since the link names the lesson by its
//!   folder.

use crate::i18n::{clock, Lang};
use crate::kubectl::journal::{Exported, EXPORT_VERSION};
use crate::kubectl::{MemoryFiles, Session};
use crate::lessons::{LessonTexts, Origin, PredictState, QuizState};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use warehouse_lessons::{session, Lesson, Runner};

/// The localStorage key; the version is part of the name and of the JSON.
pub const LESSON_KEY: &str = "kube-warehouse.lesson.v1";
pub const LESSON_VERSION: u32 = 1;
/// The fragment's prefix of a lesson's share link.
pub const LESSON_LINK_PREFIX: &str = "#lesson=";
/// The most "reset this step"s a saved lesson keeps (each starts a part).
pub const MAX_PARTS: usize = 200;
/// The most step openings a saved lesson keeps.
pub const MAX_OPENS: usize = 2_000;
/// The longest lesson address kept.
pub const MAX_URL_CHARS: usize = 2_000;

/// What rebuilds the open lesson's cluster, kept beside it as it runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LessonLog {
    /// The history before each "reset this step", with where steps opened in it.
    pub parts: Vec<Part>,
    /// Where steps opened in the history since the last reset: (inputs before, step).
    pub opens: Vec<(usize, usize)>,
    /// A part's history outgrew its limits: this lesson can no longer be kept.
    pub broken: bool,
}

/// One stretch of the lesson's history, from its fresh cluster or from a step's
/// reset to the next reset (or now).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    pub history: Exported,
    /// Steps opened in it: (how many of its inputs came before, step).
    pub opens: Vec<(usize, usize)>,
}

/// Where a saved lesson came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A folder of `lessons/index.yaml`.
    Catalogue(String),
    /// `?lesson=URL`.
    Url(String),
    /// Files picked or dropped: not there after a reload.
    Local,
}

impl Source {
    pub fn of(origin: &Origin) -> Source {
        match origin {
            Origin::Catalogue(f) => Source::Catalogue(f.clone()),
            Origin::Url(u) => Source::Url(u.clone()),
            Origin::Local => Source::Local,
        }
    }
}

/// The lesson, the step and the cluster at one moment: what a link carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeline {
    pub version: u32,
    pub source: Source,
    /// The lesson's `id` (its front matter).
    pub id: String,
    /// [`texts_fingerprint`] of the lesson it was made with.
    pub texts: u64,
    /// The step open (0-based).
    pub step: usize,
    /// The open step's incidents that had run: the number of inputs other than
    /// clock steps of the last part's history after each.
    pub fired: Vec<usize>,
    pub parts: Vec<Part>,
    /// The clock and the store's revision then: the rebuilt cluster must match.
    pub now_ms: u64,
    pub revision: u64,
}

/// What a reload brings back of a lesson.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedLesson {
    pub timeline: Timeline,
    pub hints: usize,
    pub solution: bool,
    pub quizzes: BTreeMap<usize, QuizState>,
    pub predicts: BTreeMap<usize, PredictState>,
    pub frame_ms: BTreeMap<usize, u64>,
    /// Terminal entries (prompt, stdout, stderr), oldest first.
    pub terminal: Vec<(String, String, String)>,
    /// Commands as typed, for the arrow keys.
    pub typed: Vec<String>,
    pub yaml: String,
    pub lang: String,
    pub names: String,
    pub speed: u32,
}

/// A saved lesson or a link's, with the lesson's texts fetched again (or why they
/// could not be), for the reducer to rebuild.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restore {
    pub fetched: Result<(Origin, LessonTexts), String>,
    pub saved: SavedLesson,
    /// From a share link (else from this browser's storage).
    pub shared: bool,
}

/// The origin named in each part's history.
pub fn history_origin(id: &str) -> String {
    format!("lesson:{id}")
}

/// FNV-1a over a lesson's texts and files.
pub fn texts_fingerprint(texts: &LessonTexts) -> u64 {
    let mut h = crate::saved::Fingerprint::default();
    for t in [&texts.en, &texts.ru] {
        match t {
            Some((_, text)) => h.add_str(text),
            None => h.add(u64::MAX),
        }
    }
    for (name, text) in &texts.files {
        h.add_str(name);
        h.add_str(text);
    }
    h.finish()
}

/// The session's history since the last reset as a part's (an empty one when
/// nothing happened yet); `None` when it outgrew its limits.
pub fn export_part(session: &Session, id: &str) -> Option<Exported> {
    let journal = session.journal();
    if journal.earliest().is_none() {
        return Some(Exported {
            version: EXPORT_VERSION,
            origin: history_origin(id),
            entries: Vec::new(),
        });
    }
    journal.export(&history_origin(id))
}

impl Timeline {
    /// Why this timeline cannot be replayed as it is, if it cannot (checked before
    /// anything runs; the replay checks the rest).
    pub fn problem(&self) -> Option<String> {
        if self.version != LESSON_VERSION {
            return Some(format!(
                "format {} (this version reads {LESSON_VERSION})",
                self.version
            ));
        }
        if !warehouse_lessons::valid_id(&self.id) {
            return Some(format!("{:?} is not a lesson id", self.id));
        }
        match &self.source {
            Source::Catalogue(f) if !warehouse_lessons::catalogue::valid_folder(f) => {
                return Some(format!("{f:?} is not a lesson folder"))
            }
            Source::Url(u) if u.trim().is_empty() || u.len() > MAX_URL_CHARS => {
                return Some("the lesson's address is empty or too long".into())
            }
            _ => {}
        }
        let max = warehouse_lessons::MAX_STEPS;
        if self.step >= max {
            return Some(format!("a step past {max}"));
        }
        if self.parts.is_empty() || self.parts.len() > MAX_PARTS {
            return Some(format!(
                "{} parts (between 1 and {MAX_PARTS})",
                self.parts.len()
            ));
        }
        let opens: usize = self.parts.iter().map(|p| p.opens.len()).sum();
        if opens > MAX_OPENS {
            return Some(format!("{opens} step openings, more than {MAX_OPENS}"));
        }
        let inputs: usize = self.parts.iter().map(|p| p.history.entries.len()).sum();
        if inputs > crate::kubectl::journal::MAX_ENTRIES {
            return Some(format!(
                "{inputs} inputs, more than {}",
                crate::kubectl::journal::MAX_ENTRIES
            ));
        }
        let origin = history_origin(&self.id);
        let mut last_step = None;
        for (i, part) in self.parts.iter().enumerate() {
            if part.history.origin != origin {
                return Some(format!("part {} is another lesson's", i + 1));
            }
            let mut at = 0;
            for &(n, step) in &part.opens {
                if n < at || n > part.history.entries.len() || step >= max {
                    return Some(format!("part {}: a step opens out of place", i + 1));
                }
                at = n;
                last_step = Some(step);
            }
            // A reset goes back to where the step open then opened.
            if last_step.is_none() {
                return Some(format!("part {}: no step was open", i + 1));
            }
        }
        if last_step != Some(self.step) {
            return Some("the step open is not the one opened last".into());
        }
        let inputs = self.parts.last().map_or(0, |p| {
            p.history
                .entries
                .iter()
                .filter(|e| e.kind != "advance")
                .count()
        });
        if self.fired.windows(2).any(|w| w[0] > w[1])
            || self.fired.last().is_some_and(|&n| n > inputs)
        {
            return Some("an incident out of place".into());
        }
        None
    }
}

impl SavedLesson {
    fn problem(&self) -> Option<String> {
        if let Some(why) = self.timeline.problem() {
            return Some(why);
        }
        if self.terminal.len() > crate::saved::SAVED_ENTRIES
            || self.typed.len() > crate::state::HISTORY_MAX
        {
            return Some("too many terminal lines".into());
        }
        None
    }

    pub fn entries(&self) -> impl Iterator<Item = crate::state::Entry> + '_ {
        self.terminal.iter().map(|(p, o, e)| crate::state::Entry {
            prompt: p.clone(),
            stdout: o.clone(),
            stderr: e.clone(),
        })
    }
}

/// Reads a saved lesson's text, checking its size, form and limits.
pub fn decode(text: &str) -> Result<SavedLesson, String> {
    if text.len() > crate::saved::MAX_SAVED_BYTES {
        return Err(format!(
            "{} KB, more than the {} KB kept",
            text.len() / 1024,
            crate::saved::MAX_SAVED_BYTES / 1024
        ));
    }
    let saved: SavedLesson = serde_json::from_str(text).map_err(|e| e.to_string())?;
    match saved.problem() {
        None => Ok(saved),
        Some(why) => Err(why),
    }
}

/// Writes a saved lesson, or says why not (too big).
pub fn encode(saved: &SavedLesson) -> Result<String, String> {
    let text = serde_json::to_string(saved).map_err(|e| e.to_string())?;
    if text.len() > crate::saved::MAX_SAVED_BYTES {
        return Err(format!(
            "the lesson's history is {} KB, more than the {} KB kept",
            text.len() / 1024,
            crate::saved::MAX_SAVED_BYTES / 1024
        ));
    }
    Ok(text)
}

/// What a rebuilt lesson is made of.
pub struct Rebuilt {
    pub session: Session,
    pub runner: Runner,
    pub log: LessonLog,
    pub opened_ms: BTreeMap<usize, u64>,
}

/// Rebuilds the lesson's cluster and runner from a timeline: each part's history
/// replayed, the steps opened where they opened, a reset between two parts; the
/// clock and the store's revision must come out as they were.
pub fn rebuild(lesson: &Lesson, files: &MemoryFiles, t: &Timeline) -> Result<Rebuilt, String> {
    if let Some(why) = t.problem() {
        return Err(why);
    }
    if t.id != lesson.meta.id {
        return Err(format!("it is lesson {:?}, not {:?}", t.id, lesson.meta.id));
    }
    let steps = lesson.steps.len();
    if let Some((_, step)) = t
        .parts
        .iter()
        .flat_map(|p| &p.opens)
        .find(|(_, s)| *s >= steps)
    {
        return Err(format!("step {} is past the lesson's {steps}", step + 1));
    }
    let incidents = lesson.steps[t.step].incidents.len();
    if t.fired.len() > incidents {
        return Err(format!(
            "{} incidents ran, but the step has {incidents}",
            t.fired.len()
        ));
    }
    let _ = files;
    let mut session = Session::new(session::cluster(&lesson.meta));
    let mut runner = Runner::default();
    let mut opened_ms = BTreeMap::new();
    for (i, part) in t.parts.iter().enumerate() {
        if i > 0 {
            runner.reset(&mut session)?;
            session.forget_history();
            opened_ms.insert(runner.step(), session.cluster.now().0);
        }
        let mut opens = part.opens.iter().peekable();
        session.import_with(&part.history, &mut |s, n| {
            while let Some(&&(k, step)) = opens.peek() {
                if k != n {
                    break;
                }
                opens.next();
                runner.open(s, step);
                opened_ms.entry(step).or_insert(s.cluster.now().0);
            }
        })?;
    }
    if session.cluster.now().0 != t.now_ms || session.cluster.revision() != t.revision {
        return Err("it does not replay the same way on this version of the simulator".into());
    }
    runner.set_fired(t.fired.clone());
    // The moment of the last step's opening stays between two inputs.
    if t.parts.last().is_some_and(|p| {
        p.opens
            .last()
            .is_some_and(|(n, _)| *n == p.history.entries.len())
    }) {
        session.mark();
    }
    let (done, current) = t.parts.split_at(t.parts.len() - 1);
    Ok(Rebuilt {
        session,
        runner,
        log: LessonLog {
            parts: done.to_vec(),
            opens: current[0].opens.clone(),
            broken: false,
        },
        opened_ms,
    })
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// What localStorage holds: nothing, a lesson, or why it could not be read.
pub fn load() -> Option<Result<SavedLesson, String>> {
    let text = storage()?.get_item(LESSON_KEY).ok().flatten()?;
    Some(decode(&text))
}

/// Saves the lesson, or says why not.
pub fn save(saved: &SavedLesson) -> Result<(), String> {
    if crate::panic_banner::panicked() {
        return Err("nothing is saved after an internal error".into());
    }
    let text = encode(saved)?;
    let s = storage().ok_or("this browser keeps no local storage")?;
    s.set_item(LESSON_KEY, &text)
        .map_err(|_| "the browser refused to store the lesson".to_string())
}

/// Forgets the saved lesson.
pub fn clear() {
    if let Some(s) = storage() {
        let _ = s.remove_item(LESSON_KEY);
    }
}

/// The lesson link's fragment, if the page was opened with one.
pub fn link_fragment() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    hash.strip_prefix(LESSON_LINK_PREFIX).map(str::to_string)
}

/// A link to this lesson at this moment (built-in lessons only).
pub async fn link(timeline: &Timeline) -> Result<String, String> {
    let json = serde_json::to_vec(timeline).map_err(|e| e.to_string())?;
    crate::saved::link_with(LESSON_LINK_PREFIX, &json).await
}

/// Reads a lesson link's fragment back.
pub async fn read_link(fragment: &str) -> Result<Timeline, String> {
    let json = crate::saved::read_fragment(fragment).await?;
    let timeline: Timeline =
        serde_json::from_slice(&json).map_err(|e| format!("the link is damaged: {e}"))?;
    if !matches!(timeline.source, Source::Catalogue(_)) {
        return Err("it does not name a lesson of the built-in catalogue".into());
    }
    match timeline.problem() {
        None => Ok(timeline),
        Some(why) => Err(format!("the link is damaged: {why}")),
    }
}

/// The saved lesson a link stands for (no terminal: a link carries the cluster).
pub fn from_link(timeline: Timeline) -> SavedLesson {
    SavedLesson {
        timeline,
        hints: 0,
        solution: false,
        quizzes: BTreeMap::new(),
        predicts: BTreeMap::new(),
        frame_ms: BTreeMap::new(),
        terminal: Vec::new(),
        typed: Vec::new(),
        yaml: String::new(),
        lang: String::new(),
        names: String::new(),
        speed: 0,
    }
}

/// The note at the top of the lesson after a reload brought it back.
pub fn restored_note(lang: Lang, step: usize, now_ms: u64) -> String {
    match lang {
        Lang::En => format!(
            "Welcome back: the lesson is as you left it, at step {}, with its warehouse paused at {}. Press Play to go on.",
            step + 1,
            clock(now_ms)
        ),
        Lang::Ru => format!(
            "С возвращением: урок такой, каким вы его оставили, — шаг {}, склад остановлен на моменте {}. Нажмите «Пуск», чтобы продолжить.",
            step + 1,
            clock(now_ms)
        ),
    }
}

/// The note at the top of a lesson opened from a link.
pub fn shared_note(lang: Lang, step: usize, now_ms: u64) -> String {
    match lang {
        Lang::En => format!(
            "Opened the shared lesson at step {}, with its warehouse as it was at {}, paused. Press Play to go on.",
            step + 1,
            clock(now_ms)
        ),
        Lang::Ru => format!(
            "Открыт присланный урок: шаг {}, склад таким, каким он был на моменте {}, время остановлено. Нажмите «Пуск», чтобы продолжить.",
            step + 1,
            clock(now_ms)
        ),
    }
}

/// The notice when the saved lesson could not be brought back.
pub fn restore_refused(lang: Lang, why: &str) -> String {
    match lang {
        Lang::En => format!(
            "The lesson saved in this browser could not be restored ({why}), so it was set aside; your progress is kept."
        ),
        Lang::Ru => format!(
            "Сохранённый в браузере урок не удалось восстановить ({why}), поэтому он сброшен; ваш прогресс сохранён."
        ),
    }
}

/// The notice when a saved lesson came from files on this computer.
pub fn local_not_kept(lang: Lang) -> String {
    match lang {
        Lang::En => "The lesson you had open came from files on this computer, which the page cannot read again by itself: open them again to go on.".into(),
        Lang::Ru => "Открытый урок был загружен из файлов на этом компьютере, а страница не может прочитать их снова сама: откройте их ещё раз, чтобы продолжить.".into(),
    }
}

/// The notice when a lesson link could not be opened.
pub fn link_refused(lang: Lang, why: &str) -> String {
    match lang {
        Lang::En => format!("This lesson link could not be opened: {why}."),
        Lang::Ru => format!("Не удалось открыть ссылку на урок: {why}."),
    }
}

/// Why a lesson cannot be shared.
pub fn not_shareable(lang: Lang) -> String {
    match lang {
        Lang::En => "Only lessons of the built-in list can be shared: this one was opened from files or another address, which a link cannot carry.".into(),
        Lang::Ru => "Поделиться можно только уроками из встроенного списка: этот урок открыт из файлов или по другому адресу, а ссылка не может их передать.".into(),
    }
}

/// Why the lesson's history cannot be kept or sent.
pub fn too_long(lang: Lang) -> String {
    match lang {
        Lang::En => "the lesson's history is longer than can be kept".into(),
        Lang::Ru => "история урока длиннее, чем можно сохранить".into(),
    }
}

/// The kept lesson to reopen at start: none when the page was opened with a link;
/// one from `?lesson=URL` only when the page is opened with that address again,
/// and no other one then.
fn to_resume() -> Option<Result<SavedLesson, String>> {
    if link_fragment().is_some() || crate::saved::link_fragment().is_some() {
        return None;
    }
    let kept = load()?;
    if let Ok(k) = &kept {
        let here = crate::fetch::lesson_param().map(Source::Url);
        let wanted = match &k.timeline.source {
            Source::Url(_) => Some(&k.timeline.source),
            _ => None,
        };
        if here.as_ref() != wanted {
            return None;
        }
    }
    Some(kept)
}

/// Before the first render: whether a kept lesson will be reopened (the sandbox
/// is then not restored); a kept lesson that cannot be read is dropped with a
/// notice.
pub fn at_start(state: &mut crate::state::AppState) -> bool {
    match to_resume() {
        None => false,
        Some(Ok(k)) => {
            let name = match &k.timeline.source {
                Source::Catalogue(f) | Source::Url(f) => f.clone(),
                Source::Local => k.timeline.id.clone(),
            };
            state.panel = crate::state::Panel::Loading(name);
            true
        }
        Some(Err(why)) => {
            clear();
            state.notice = Some(crate::state::Outcome {
                text: restore_refused(state.lang, &why),
                error: true,
            });
            false
        }
    }
}

/// Once mounted: opens a lesson link, or reopens the kept lesson. Returns whether
/// it did either (`?lesson=` is then not opened again).
pub fn start(dispatch: yew::UseReducerDispatcher<crate::state::AppState>) -> bool {
    use crate::state::Action;
    if let Some(fragment) = link_fragment() {
        wasm_bindgen_futures::spawn_local(async move {
            let timeline = read_link(&fragment).await;
            crate::saved::drop_fragment();
            match timeline {
                Ok(t) => crate::fetch::restore(from_link(t), true, dispatch),
                Err(why) => dispatch.dispatch(Action::LessonLinkRefused(why)),
            }
        });
        return true;
    }
    match to_resume() {
        Some(Ok(k)) => {
            crate::fetch::restore(k, false, dispatch);
            true
        }
        _ => false,
    }
}

/// What Share sends while a lesson is open (`None`: no lesson, share the sandbox):
/// the lesson at this moment, or why it cannot be sent.
pub fn share_of(state: &crate::state::AppState) -> Option<Result<Timeline, String>> {
    let open = state.lesson.as_ref()?;
    if !matches!(open.origin, Origin::Catalogue(_)) {
        return Some(Err(not_shareable(state.lang)));
    }
    Some(state.lesson_timeline())
}

/// Makes the lesson's link, copies it, and shows it (or why there is none).
pub fn share(
    timeline: Result<Timeline, String>,
    dispatch: yew::UseReducerDispatcher<crate::state::AppState>,
) {
    wasm_bindgen_futures::spawn_local(async move {
        let link = match timeline {
            Ok(t) => link(&t).await,
            Err(why) => Err(why),
        };
        if let (Ok(url), Some(w)) = (&link, web_sys::window()) {
            // Best effort: the field shows the link either way.
            let _ = w.navigator().clipboard().write_text(url);
        }
        dispatch.dispatch(crate::state::Action::ShareReady(link));
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::LessonTexts;
    use crate::state::{Action, AppState};
    use std::rc::Rc;
    use yew::Reducible;

    fn lesson_one() -> LessonTexts {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../lessons/01-desired-state/");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}{f}")).unwrap();
        LessonTexts {
            en: Some(("en.md".into(), read("en.md"))),
            ru: Some(("ru.md".into(), read("ru.md"))),
            files: [("packer.yaml".to_string(), read("packer.yaml"))].into(),
        }
    }

    /// A lesson of two steps whose second kills a zone 20 s after it opens.
    fn incident_lesson() -> LessonTexts {
        let text = "---\nid: incident-test\ntitle: T\nsummary: S\nlevel: beginner\nminutes: 1\nseed: 3\n---\n\n\
## One\n\n```kubectl\nkubectl create deployment web --image=nginx --replicas=3\n```\n\n\
## Two\n\n```incident\n- at: 20s\n  run: sim node kill zone-a\n```\n\nLook.\n";
        LessonTexts {
            en: Some(("en.md".into(), text.into())),
            ..Default::default()
        }
    }

    fn wide(s: &AppState) -> String {
        s.session
            .borrow_mut()
            .run("get pods -A -o wide", None, &crate::kubectl::NoFiles)
            .stdout
    }

    fn kept(s: &AppState) -> SavedLesson {
        s.saved_lesson_for_tests().expect("a lesson is open")
    }

    fn restored(texts: LessonTexts, saved: SavedLesson, shared: bool) -> Rc<AppState> {
        Rc::new(AppState::default()).reduce(Action::RestoreLesson(Box::new(Restore {
            fetched: Ok((Origin::Catalogue("01-desired-state".into()), texts)),
            saved,
            shared,
        })))
    }

    #[test]
    fn a_kept_lesson_rebuilds_the_same_cluster_step_and_clock_through_a_reset() {
        let s = Rc::new(AppState::default()).reduce(Action::LessonFetched(
            Origin::Catalogue("01-desired-state".into()),
            lesson_one(),
        ));
        let s = s.reduce(Action::RunBlock("kubectl apply -f packer.yaml".into()));
        let s = s.reduce(Action::Advance(30_000));
        let s = s.reduce(Action::GotoStep(1));
        let s = s.reduce(Action::RunKubectl(
            "kubectl delete deployment packer".into(),
        ));
        let s = s.reduce(Action::Advance(12_000));
        let s = s.reduce(Action::ResetStep);
        let s = s.reduce(Action::RunKubectl(
            "kubectl scale deployment packer --replicas=2".into(),
        ));
        let s = s.reduce(Action::Advance(7_500));
        let s = s.reduce(Action::RevealHint);
        let saved = kept(&s);
        assert_eq!(saved.timeline.parts.len(), 2, "a reset starts a part");
        // Through the text localStorage keeps.
        let saved = decode(&encode(&saved).unwrap()).unwrap();
        let r = restored(lesson_one(), saved.clone(), false);
        let open = r.lesson.as_ref().expect("the lesson is open");
        assert_eq!(open.step, 1);
        assert_eq!(open.hints, s.lesson.as_ref().unwrap().hints);
        assert!(open.note.as_deref().unwrap().contains("step 2"));
        assert!(!r.playing, "paused");
        assert_eq!(
            r.session.borrow().cluster.now(),
            s.session.borrow().cluster.now()
        );
        assert_eq!(wide(&r), wide(&s));
        assert_eq!(r.terminal.entries, s.terminal.entries);
        // Kept again at once, it is what it was.
        assert_eq!(kept(&r).timeline, saved.timeline);
        // "Reset this step" after the reload goes back to the same place.
        let a = s.reduce(Action::ResetStep);
        let b = r.reduce(Action::ResetStep);
        assert_eq!(wide(&a), wide(&b));
        assert_eq!(
            a.session.borrow().cluster.now(),
            b.session.borrow().cluster.now()
        );
    }

    #[test]
    fn an_incident_that_ran_is_not_run_again_and_one_due_runs_once() {
        let open =
            |s: Rc<AppState>| s.reduce(Action::LessonFetched(Origin::Local, incident_lesson()));
        let s = open(Rc::new(AppState::default()));
        let s = s.reduce(Action::RunBlock(
            "kubectl create deployment web --image=nginx --replicas=3".into(),
        ));
        let s = s.reduce(Action::Advance(20_000));
        let s = s.reduce(Action::GotoStep(1));
        let s = s.reduce(Action::Advance(10_000));
        let before = kept(&s);
        assert!(before.timeline.fired.is_empty());
        let s = s.reduce(Action::Advance(15_000));
        let after = kept(&s);
        assert_eq!(after.timeline.fired.len(), 1, "zone-a was killed at 20 s");
        for (saved, original) in [(before, None), (after, Some(s.clone()))] {
            let r = Rc::new(AppState::default()).reduce(Action::RestoreLesson(Box::new(Restore {
                fetched: Ok((Origin::Url("x/".into()), incident_lesson())),
                saved,
                shared: false,
            })));
            assert!(r.lesson.is_some(), "{:?}", r.notice);
            let r = r.reduce(Action::Advance(30_000));
            let kills = r
                .terminal
                .entries
                .iter()
                .filter(|e| e.prompt.contains("sim node kill zone-a"))
                .count();
            assert_eq!(kills, 1, "{:?}", r.terminal.entries);
            if let Some(o) = original {
                let o = o.reduce(Action::Advance(30_000));
                assert_eq!(wide(&o), wide(&r));
            }
        }
    }

    fn kills(s: &AppState) -> usize {
        s.terminal
            .entries
            .iter()
            .filter(|e| e.prompt.contains("sim node kill zone-a"))
            .count()
    }

    fn zone_a(s: &AppState) -> String {
        s.session
            .borrow_mut()
            .run(
                "get node zone-a --no-headers",
                None,
                &crate::kubectl::NoFiles,
            )
            .stdout
    }

    #[test]
    fn rewinding_in_a_lesson_keeps_its_incident_whether_the_history_forks_or_not() {
        let s = Rc::new(AppState::default())
            .reduce(Action::LessonFetched(Origin::Local, incident_lesson()));
        let s = s.reduce(Action::RunBlock(
            "kubectl create deployment web --image=nginx --replicas=3".into(),
        ));
        let s = s.reduce(Action::Advance(20_000));
        let s = s.reduce(Action::GotoStep(1));
        let opened = s.session.borrow().cluster.now().0;
        let s = s.reduce(Action::Advance(100_000));
        assert_eq!(kills(&s), 1);
        assert!(zone_a(&s).contains("NotReady"), "{}", zone_a(&s));
        let (earliest, latest) = s.history().expect("the slider shows in a lesson");
        assert_eq!(
            earliest,
            opened + 1,
            "back to when the step opened, no further"
        );
        assert_eq!(latest, opened + 100_000);
        // Going back before the step opened stops where it opened.
        let back = s.clone().reduce(Action::RewindTo(opened - 10_000));
        assert_eq!(back.session.borrow().cluster.now().0, opened + 1);
        // Back to before the incident, then Play: it is replayed, not run twice.
        let back = s.clone().reduce(Action::RewindTo(opened + 10_000));
        assert!(!zone_a(&back).contains("NotReady"), "{}", zone_a(&back));
        let replayed = back.clone().reduce(Action::Advance(90_000));
        assert_eq!(kills(&replayed), 1, "{:?}", replayed.terminal.entries);
        assert_eq!(zone_a(&replayed), zone_a(&s));
        assert_eq!(wide(&replayed), wide(&s));
        // Back, then a new command: the history forks, and the incident runs
        // again at its time.
        // (The states share one session: go back again.)
        let back = replayed.reduce(Action::RewindTo(opened + 10_000));
        let forked = back.reduce(Action::RunKubectl(
            "kubectl scale deployment web --replicas=4".into(),
        ));
        let forked = forked.reduce(Action::Advance(90_000));
        assert_eq!(kills(&forked), 2, "{:?}", forked.terminal.entries);
        assert!(zone_a(&forked).contains("NotReady"), "{}", zone_a(&forked));
        // And that lesson is kept and rebuilt as it now is.
        let saved = decode(&encode(&kept(&forked)).unwrap()).unwrap();
        let r = Rc::new(AppState::default()).reduce(Action::RestoreLesson(Box::new(Restore {
            fetched: Ok((Origin::Url("x/".into()), incident_lesson())),
            saved,
            shared: false,
        })));
        assert_eq!(wide(&r), wide(&forked));
        let r = r.reduce(Action::Advance(30_000));
        assert_eq!(
            kills(&r),
            kills(&forked),
            "no incident runs again after the reload"
        );
    }

    #[test]
    fn a_changed_lesson_or_a_damaged_state_is_set_aside_with_a_notice() {
        let s = Rc::new(AppState::default()).reduce(Action::LessonFetched(
            Origin::Catalogue("01-desired-state".into()),
            lesson_one(),
        ));
        let s = s.reduce(Action::RunBlock("kubectl apply -f packer.yaml".into()));
        let s = s.reduce(Action::Advance(5_000));
        let saved = kept(&s);
        let mut changed = lesson_one();
        changed
            .files
            .insert("packer.yaml".into(), "kind: Other\n".into());
        let r = restored(changed, saved.clone(), false);
        assert!(r.notice.as_ref().unwrap().error);
        assert!(
            r.notice.as_ref().unwrap().text.contains("changed"),
            "{:?}",
            r.notice
        );
        // A kept lesson that cannot be rebuilt opens as from the list.
        assert_eq!(r.lesson.as_ref().unwrap().step, 0);
        // A shared one leaves the list open.
        let mut wrong = saved.clone();
        wrong.timeline.revision += 1;
        let r = restored(lesson_one(), wrong, true);
        assert!(r.lesson.is_none());
        assert!(r
            .notice
            .as_ref()
            .unwrap()
            .text
            .contains("could not be opened"));
    }

    #[test]
    fn saved_lessons_are_checked_before_use() {
        let s = Rc::new(AppState::default()).reduce(Action::LessonFetched(
            Origin::Catalogue("01-desired-state".into()),
            lesson_one(),
        ));
        let good = kept(&s);
        assert!(decode(&encode(&good).unwrap()).is_ok());
        assert!(decode("{nope").is_err());
        let big = format!("\"{}\"", "x".repeat(crate::saved::MAX_SAVED_BYTES));
        assert!(decode(&big).unwrap_err().contains("KB"));
        let bad = |f: &dyn Fn(&mut SavedLesson)| {
            let mut s = good.clone();
            f(&mut s);
            decode(&serde_json::to_string(&s).unwrap()).unwrap_err()
        };
        assert!(bad(&|s| s.timeline.version = 9).contains("format 9"));
        // An id or folder that climbs out is refused. not-a-repository-path
        let climb = |to: &str| format!("..{}{to}", '/');
        assert!(bad(&|s| s.timeline.id = climb("x")).contains("not a lesson id"));
        assert!(
            bad(&|s| s.timeline.source = Source::Catalogue(climb("etc")))
                .contains("not a lesson folder")
        );
        assert!(bad(&|s| s.timeline.step = 100_000).contains("a step past"));
        assert!(bad(&|s| s.timeline.parts.clear()).contains("parts"));
        assert!(bad(&|s| s.timeline.parts[0].opens = vec![(1_000_000, 0)]).contains("out of place"));
        assert!(bad(&|s| s.timeline.parts[0].opens.clear()).contains("no step"));
        assert!(
            bad(&|s| s.timeline.parts[0].history.origin = "lesson:other".into())
                .contains("another lesson")
        );
        assert!(bad(&|s| s.terminal = vec![Default::default(); 51]).contains("terminal"));
        // A step the lesson does not have is refused when it is rebuilt.
        let mut past = good.clone();
        past.timeline.parts[0].opens = vec![(0, 7)];
        past.timeline.step = 7;
        let r = restored(lesson_one(), past, true);
        assert!(r.notice.as_ref().unwrap().text.contains("past the lesson"));
    }
}
