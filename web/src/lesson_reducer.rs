//! The lesson half of the reducer: opening a lesson on its own cluster, moving
//! between steps, running blocks and solutions, quizzes and predictions, resetting
//! a step, and the live check. Time moves through `Runner::advance`, so a step's
//! incidents fire at their times.

use crate::i18n::{self, Lang};
use crate::kubectl::shell::script::{self, Action as ScriptAction};
use crate::kubectl::{CommandOutput, FileSource, NoFiles, Session};
use crate::lesson_saved::{self as kept, Restore, SavedLesson, Timeline};
use crate::lessons::{build_catalogue, parse_texts, OpenLesson, Origin, CHECK_EVERY_MS};
use crate::state::{Action, AppState, Panel};
use std::cell::RefCell;
use std::rc::Rc;
use warehouse_lessons::{check, session, verify, Lesson, Runner};
use warehouse_sim::SimDuration;

/// A lesson's texts, parsed, with its files.
struct Prepared {
    en: Option<Lesson>,
    ru: Option<Lesson>,
    files: crate::kubectl::MemoryFiles,
    first_yaml: String,
    texts: u64,
}

impl AppState {
    fn russian(&self) -> bool {
        self.lang == Lang::Ru
    }

    /// The files the terminal can read: the open lesson's, or none.
    pub(crate) fn lesson_files(&self) -> Rc<dyn FileSource> {
        match &self.lesson {
            Some(open) => open.files.clone(),
            None => Rc::new(NoFiles),
        }
    }

    /// The open lesson in the language shown.
    pub(crate) fn shown(&self) -> Option<(Rc<OpenLesson>, Rc<Lesson>)> {
        let open = self.lesson.clone()?;
        let lesson = open.lesson(self.russian()).clone();
        Some((open, lesson))
    }

    pub(crate) fn lesson_advance(&mut self, by: SimDuration) {
        let Some((open, lesson)) = self.shown() else {
            return;
        };
        let fired = open.runner.borrow_mut().advance(
            &lesson,
            &mut self.session.borrow_mut(),
            by,
            &*open.files,
        );
        let label = i18n::incident_label(self.lang);
        for f in fired {
            self.print(format!("{label} $ {}", f.command), &f.output);
        }
    }

    /// Runs script text line by line as the terminal would, `sim advance` through the
    /// runner. With `print`, each line and its output go to the terminal.
    fn run_script(&mut self, text: &str, print: bool) {
        let Some((open, lesson)) = self.shown() else {
            return;
        };
        let steps = match script::parse(text) {
            Ok(steps) => steps,
            Err(e) => {
                if print {
                    self.print(
                        format!("$ {}", text.lines().next().unwrap_or("")),
                        &CommandOutput::error(format!("line {}: {}\n", e.line, e.message)),
                    );
                }
                return;
            }
        };
        for step in steps {
            if let ScriptAction::Advance(by) = step.action {
                self.lesson_advance(by);
                if print {
                    self.print(format!("$ {}", step.command), &CommandOutput::default());
                }
                continue;
            }
            let out = script::execute(&mut self.session.borrow_mut(), &step, &*open.files);
            if print {
                self.print(format!("$ {}", step.command), &out);
            }
            // Incidents due by now run after each line, as the tick would.
            let fired = open.runner.borrow_mut().fire_due(
                &lesson,
                &mut self.session.borrow_mut(),
                &*open.files,
            );
            if print {
                let label = i18n::incident_label(self.lang);
                for f in fired {
                    self.print(format!("{label} $ {}", f.command), &f.output);
                }
            }
        }
        self.refresh_view();
    }

    /// Runs a lesson button's `text` into the terminal and keeps what it printed
    /// for the lesson panel to show under the button.
    fn run_block(&mut self, text: String) {
        let from = self.terminal.pushed;
        self.run_script(&text, true);
        let Some((open, _)) = self.shown() else {
            return;
        };
        let t = &self.terminal;
        let made = usize::try_from(t.pushed - from).unwrap_or(usize::MAX);
        let entries = t.entries.iter().skip(t.entries.len().saturating_sub(made));
        self.block_run = Some(Rc::new(crate::state::BlockRun {
            lesson: open.id().to_string(),
            step: open.step,
            text,
            entries: entries.cloned().collect(),
            serial: t.pushed,
        }));
    }

    fn open_mut(&mut self) -> Option<&mut OpenLesson> {
        self.lesson.as_mut().map(Rc::make_mut)
    }

    fn save_step(&mut self, id: &str, step: usize, done: Option<usize>) {
        let progress = Rc::make_mut(&mut self.progress);
        let entry = progress.lessons.entry(id.to_string()).or_default();
        entry.step = step;
        if let Some(d) = done {
            entry.done.insert(d);
        }
    }

    /// Opens step `i` of the open lesson: the runner takes the snapshot "reset this
    /// step" returns to.
    fn open_step(&mut self, i: usize) {
        let Some((open, lesson)) = self.shown() else {
            return;
        };
        let i = i.min(lesson.steps.len().saturating_sub(1));
        // The step opens between two inputs of the history, where a rebuild
        // opens it again.
        let at = self.session.borrow_mut().mark();
        open.runner.borrow_mut().open(&self.session.borrow(), i);
        let now = self.session.borrow().cluster.now().0;
        let id = open.id().to_string();
        if let Some(o) = self.open_mut() {
            o.step = i;
            o.clear_step();
            o.opened_ms.entry(i).or_insert(now);
            // Openings a rewind went back before are no longer in the history.
            o.log.opens.retain(|&(n, _)| n <= at);
            o.log.opens.push((at, i));
        }
        self.save_step(&id, i, None);
    }

    /// Parses a lesson's texts and gathers its files, or the errors to show.
    fn prepare(texts: &crate::lessons::LessonTexts) -> Result<Prepared, Vec<String>> {
        let (en, ru) = parse_texts(texts)?;
        let first = en.as_ref().or(ru.as_ref()).expect("parse_texts gave one");
        let files = verify::lesson_files(&first.meta, &texts.files);
        let missing: Vec<String> = first
            .meta
            .files
            .iter()
            .filter(|f| !texts.files.contains_key(*f))
            .map(|f| {
                format!(
                    "{}: the front matter lists {f}, which was not given",
                    first.file
                )
            })
            .collect();
        if !missing.is_empty() {
            return Err(missing);
        }
        let first_yaml = first
            .meta
            .files
            .iter()
            .find(|f| f.ends_with(".yaml") || f.ends_with(".yml"))
            .and_then(|f| texts.files.get(f))
            .cloned()
            .unwrap_or_default();
        Ok(Prepared {
            en,
            ru,
            files,
            first_yaml,
            texts: crate::lesson_saved::texts_fingerprint(texts),
        })
    }

    /// Puts a lesson on screen with its session and runner: the panel, an editor
    /// with its first manifest, a terminal that says it started.
    fn install(&mut self, origin: Origin, p: Prepared, session: Session, runner: Runner) {
        *self.session.borrow_mut() = session;
        self.new_cluster();
        self.left_lesson = false;
        self.lesson = Some(Rc::new(OpenLesson {
            origin,
            en: p.en.map(Rc::new),
            ru: p.ru.map(Rc::new),
            files: Rc::new(p.files),
            runner: Rc::new(RefCell::new(runner)),
            step: 0,
            hints: 0,
            solution: false,
            quizzes: Default::default(),
            predicts: Default::default(),
            check: None,
            checked_at: None,
            frame: None,
            note: None,
            opened_ms: Default::default(),
            frame_ms: Default::default(),
            log: Default::default(),
            texts: p.texts,
        }));
        self.panel = Panel::Lesson;
        self.selected_pod = None;
        self.decision = None;
        self.editing = None;
        self.apply_result = None;
        self.notice = None;
        // Nothing of the warehouse before is on screen: the editor holds this
        // lesson's first manifest (or nothing) and the terminal starts empty (its
        // ↑/↓ history stays, as a shell's would).
        self.yaml = yew::AttrValue::from(p.first_yaml);
        Rc::make_mut(&mut self.terminal).entries.clear();
        let title = self
            .shown()
            .map(|(_, l)| l.meta.title.clone())
            .unwrap_or_default();
        Rc::make_mut(&mut self.terminal)
            .entries
            .push_back(crate::state::Entry {
                prompt: format!("# {}", i18n::lesson_started(self.lang, &title)),
                stdout: String::new(),
                stderr: String::new(),
            });
    }

    fn open_lesson(&mut self, origin: Origin, texts: crate::lessons::LessonTexts) {
        let p = match Self::prepare(&texts) {
            Ok(p) => p,
            Err(errors) => {
                self.panel = Panel::Errors(Rc::new(errors));
                return;
            }
        };
        let first = p.en.as_ref().or(p.ru.as_ref()).expect("prepare gave one");
        let new_session = match session::start(&first.file, &first.meta, &p.files) {
            Ok(s) => s,
            Err(e) => {
                self.panel = Panel::Errors(Rc::new(vec![e.to_string()]));
                return;
            }
        };
        let id = first.meta.id.clone();
        let steps = first.steps.len();
        self.install(origin, p, new_session, Runner::default());
        // Opened anew (from the list, or when the kept lesson could not be rebuilt):
        // a saved step is reached again by replaying the solutions of the steps
        // before it on the fresh cluster.
        let saved = self
            .progress
            .lessons
            .get(&id)
            .map(|p| p.step)
            .unwrap_or(0)
            .min(steps.saturating_sub(1));
        for i in 0..saved {
            self.open_step(i);
            let solution = self
                .shown()
                .and_then(|(_, l)| l.steps[i].solution.as_ref().map(|s| s.text.clone()));
            if let Some(text) = solution {
                self.run_script(&text, false);
            }
        }
        self.open_step(saved);
        if saved > 0 {
            let note = i18n::replayed(self.lang, saved);
            if let Some(o) = self.open_mut() {
                o.note = Some(note);
            }
        }
        self.refresh_view();
    }

    pub(crate) fn reduce_lesson(&mut self, action: Action) {
        match action {
            Action::ProgressLoaded(loaded) => match loaded {
                crate::lessons::Loaded::Fresh => {}
                crate::lessons::Loaded::Saved(p) => self.progress = Rc::new(p),
                crate::lessons::Loaded::Reset(why) => {
                    self.progress = Rc::new(Default::default());
                    self.progress_notice = Some(why);
                }
            },
            Action::DismissProgressNotice => self.progress_notice = None,
            Action::CatalogueLoaded(result) => {
                self.catalogue = match result {
                    Ok(texts) => build_catalogue(&texts),
                    Err(e) => crate::lessons::CatalogueState::Failed(e),
                };
            }
            Action::ShowCatalogue => {
                if self.lesson.take().is_some() {
                    // The lesson was left: a reload shows the list, not it.
                    self.left_lesson = true;
                    self.lesson_to_save = (self.lesson_to_save.0 + 1, None);
                }
                self.panel = Panel::Catalogue;
            }
            Action::RestoreLesson(restore) => self.restore_lesson(*restore),
            Action::LessonLinkRefused(why) => {
                self.notice = Some(crate::state::Outcome {
                    text: kept::link_refused(self.lang, &why),
                    error: true,
                });
                self.panel = Panel::Catalogue;
            }
            Action::UseSandbox => self.use_sandbox(),
            Action::LessonLoading(what) => self.panel = Panel::Loading(what),
            Action::LessonFailed(e) => self.panel = Panel::Errors(Rc::new(vec![e])),
            Action::LessonFetched(origin, texts) => self.open_lesson(origin, texts),
            Action::GotoStep(i) => self.goto_step(i),
            Action::RunBlock(text) => self.run_block(text),
            Action::OpenInEditor(text) => {
                self.yaml = yew::AttrValue::from(text);
                self.editing = None;
                self.apply_result = None;
            }
            Action::RevealHint => {
                let count = self
                    .shown()
                    .map(|(o, l)| l.steps.get(o.step).map_or(0, |s| s.hints.len()));
                if let (Some(count), Some(o)) = (count, self.open_mut()) {
                    o.hints = (o.hints + 1).min(count);
                }
            }
            Action::ToggleSolution => {
                if let Some(o) = self.open_mut() {
                    o.solution = !o.solution;
                }
            }
            Action::RunSolution => {
                let text = self.shown().and_then(|(o, l)| {
                    l.steps
                        .get(o.step)
                        .and_then(|s| s.solution.as_ref().map(|s| s.text.clone()))
                });
                if let Some(text) = text {
                    self.run_block(text);
                }
            }
            Action::QuizChoose { block, option } => self.quiz_choose(block, option),
            Action::QuizCheck(block) => {
                if let Some(o) = self.open_mut() {
                    let q = o.quizzes.entry(block).or_default();
                    q.checked = !q.chosen.is_empty();
                }
            }
            Action::PredictChoose { block, option } => {
                if let Some(o) = self.open_mut() {
                    let p = o.predicts.entry(block).or_default();
                    if p.outcome.is_none() {
                        p.chosen = Some(option);
                    }
                }
            }
            Action::PredictCommit(block) => self.predict_commit(block),
            Action::ResetStep => self.reset_step(),
            _ => {}
        }
    }

    /// Leaves the lesson (if one is open) for the sandbox.
    fn use_sandbox(&mut self) {
        if self.lesson.is_some() {
            self.lesson_to_save = (self.lesson_to_save.0 + 1, None);
        }
        // A sandbox after a lesson is a warehouse of its own, not the
        // lesson's left over.
        if self.lesson.is_some() || self.left_lesson || self.epoch > 0 {
            self.left_lesson = false;
            *self.session.borrow_mut() = crate::kubectl::Session::new(
                warehouse_sim::Cluster::settled(crate::state::SEED, Default::default()),
            );
            self.new_cluster();
            self.yaml = yew::AttrValue::from(crate::state::EXAMPLE_DEPLOYMENT);
            self.editing = None;
            self.apply_result = None;
            self.notice = None;
            Rc::make_mut(&mut self.terminal).entries.clear();
            self.refresh_view();
        }
        self.lesson = None;
        self.panel = Panel::Sandbox;
    }

    /// Moves to step `i`, marking the step left done when it had nothing to check.
    fn goto_step(&mut self, i: usize) {
        if let Some((open, lesson)) = self.shown() {
            // A step without a check is done when the learner moves on.
            let here = open.step;
            // ... but a walkthrough step only once its moment happened: its
            // card said "not happened yet", so moving past it is no ✓.
            let happened = lesson.steps.get(here).is_some_and(|s| s.frame.is_none())
                || open.frame.as_deref().is_some_and(|f| f.is_ok());
            if i > here && happened && lesson.steps.get(here).is_some_and(|s| s.check.is_none()) {
                let id = open.id().to_string();
                self.save_step(&id, here, Some(here));
            }
            self.open_step(i);
        }
    }

    /// Chooses (or, in a quiz of several answers, toggles) an option of quiz `block`.
    fn quiz_choose(&mut self, block: usize, option: usize) {
        let multiple = self.shown().and_then(|(o, l)| {
            l.steps.get(o.step).and_then(|s| match s.blocks.get(block) {
                Some(warehouse_lessons::Block::Quiz(q)) => Some(q.answers.len() > 1),
                _ => None,
            })
        });
        if let (Some(multiple), Some(o)) = (multiple, self.open_mut()) {
            let q = o.quizzes.entry(block).or_default();
            if multiple {
                if !q.chosen.remove(&option) {
                    q.chosen.insert(option);
                }
            } else {
                q.chosen = [option].into();
            }
            q.checked = false;
        }
    }

    /// Commits prediction `block`: time moves on, and what it shows is compared with
    /// the choice.
    fn predict_commit(&mut self, block: usize) {
        let Some((open, lesson)) = self.shown() else {
            return;
        };
        let Some(warehouse_lessons::Block::Predict(predict)) = lesson
            .steps
            .get(open.step)
            .and_then(|s| s.blocks.get(block))
        else {
            return;
        };
        let Some(chosen) = open.predicts.get(&block).and_then(|p| p.chosen) else {
            return;
        };
        if open
            .predicts
            .get(&block)
            .is_some_and(|p| p.outcome.is_some())
        {
            return;
        }
        self.lesson_advance(predict.advance);
        let shown = check::run_quietly(&mut self.session.borrow_mut(), &predict.show, &*open.files);
        let right = chosen == predict.answer;
        if let Some(o) = self.open_mut() {
            o.predicts.entry(block).or_default().outcome = Some((shown, right));
        }
        self.refresh_view();
    }

    /// Puts the cluster back as it was when the step opened, and starts the step again.
    fn reset_step(&mut self) {
        let Some((open, _)) = self.shown() else {
            return;
        };
        // The history so far is one part; the restored cluster starts the next.
        let part = kept::export_part(&self.session.borrow(), open.id());
        let result = open
            .runner
            .borrow_mut()
            .reset(&mut self.session.borrow_mut());
        if result.is_ok() {
            self.session.borrow_mut().forget_history();
            self.new_cluster();
            if let Some(o) = self.open_mut() {
                match part {
                    Some(history) => {
                        let opens = std::mem::take(&mut o.log.opens);
                        o.log.parts.push(kept::Part { history, opens });
                    }
                    None => o.log.broken = true,
                }
            }
        }
        let text = match result {
            Ok(()) => i18n::step_reset(self.lang).to_string(),
            Err(e) => e,
        };
        Rc::make_mut(&mut self.terminal)
            .entries
            .push_back(crate::state::Entry {
                prompt: format!("# {text}"),
                stdout: String::new(),
                stderr: String::new(),
            });
        let now = self.session.borrow().cluster.now().0;
        if let Some(o) = self.open_mut() {
            o.predicts.clear();
            o.check = None;
            o.checked_at = None;
            // As the runner: the step starts again from the restored cluster,
            // and the moments from this step on are found again.
            let step = o.step;
            o.opened_ms.insert(step, now);
            o.frame_ms.retain(|&k, _| k < step);
            o.frame = None;
        }
        self.refresh_view();
    }

    /// After every action: the open step's check (when the store changed, or every
    /// [`CHECK_EVERY_MS`] of simulated time), the done latch, and the test hook.
    pub(crate) fn after_action(&mut self) {
        self.keep_within_step();
        if let Some((open, lesson)) = self.shown() {
            let (revision, now) = {
                let s = self.session.borrow();
                (s.cluster.revision(), s.cluster.now().0)
            };
            let due = match open.checked_at {
                None => true,
                Some((r, t)) => r != revision || now < t || now - t >= CHECK_EVERY_MS,
            };
            if due {
                let result = open
                    .runner
                    .borrow_mut()
                    .check(&lesson, &mut self.session.borrow_mut(), &*open.files)
                    .cloned();
                let passed = result.as_ref().is_some_and(|r| r.passed());
                let changed = open.check.as_deref() != result.as_ref();
                // A walkthrough step's moment: found once, then kept as shown.
                let frame = match &open.frame {
                    Some(f) if f.is_ok() => None,
                    _ => open
                        .runner
                        .borrow_mut()
                        .frame(&lesson, &self.session.borrow()),
                };
                // The moment on the cluster's clock: its chain's origin plus its offset.
                let frame_ms = frame
                    .as_ref()
                    .and_then(|f| f.as_ref().ok())
                    .map(|f| open.runner.borrow().frame_search_start(&lesson).at_ms + f.after_ms);
                if let Some(o) = self.open_mut() {
                    o.checked_at = Some((revision, now));
                    if changed {
                        o.check = result.map(Rc::new);
                    }
                    if let Some(f) = frame {
                        if o.frame.as_deref() != Some(&f) {
                            o.frame = Some(Rc::new(f));
                        }
                    }
                    if let Some(ms) = frame_ms {
                        o.frame_ms.entry(o.step).or_insert(ms);
                    }
                }
                let id = open.id().to_string();
                let done = self
                    .progress
                    .lessons
                    .get(&id)
                    .is_some_and(|p| p.done.contains(&open.step));
                if passed && !done {
                    self.save_step(&id, open.step, Some(open.step));
                }
            }
        }
        self.hook.borrow_mut().update(self);
    }
}

impl AppState {
    /// A kept or shared lesson, its texts fetched again: rebuilt on its fresh
    /// cluster, opened at its step, paused. A lesson that cannot be rebuilt is
    /// set aside with a notice (a kept one then opens as from the list).
    fn restore_lesson(&mut self, restore: Restore) {
        let Restore {
            fetched,
            saved,
            shared,
        } = restore;
        let local = saved.timeline.source == kept::Source::Local;
        let (why, texts) = match fetched {
            Err(_) if local && !shared => {
                self.lesson_to_save = (self.lesson_to_save.0 + 1, None);
                self.notice = Some(crate::state::Outcome {
                    text: kept::local_not_kept(self.lang),
                    error: false,
                });
                self.panel = Panel::Catalogue;
                return;
            }
            // A fetch failure is a plain message.
            Err(why) => (why, None),
            Ok((origin, texts)) => match self.rebuild_lesson(&origin, &texts, &saved, shared) {
                Ok(()) => return,
                Err(why) => (why, Some((origin, texts))),
            },
        };
        if shared {
            self.notice = Some(crate::state::Outcome {
                text: kept::link_refused(self.lang, &why),
                error: true,
            });
            self.panel = Panel::Catalogue;
            return;
        }
        self.lesson_to_save = (self.lesson_to_save.0 + 1, None);
        match texts {
            Some((origin, texts)) => self.open_lesson(origin, texts),
            None => self.panel = Panel::Catalogue,
        }
        self.notice = Some(crate::state::Outcome {
            text: kept::restore_refused(self.lang, &why),
            error: true,
        });
    }

    /// Rebuilds a lesson from what was kept; on success it is on screen.
    fn rebuild_lesson(
        &mut self,
        origin: &Origin,
        texts: &crate::lessons::LessonTexts,
        saved: &SavedLesson,
        shared: bool,
    ) -> Result<(), String> {
        let t = &saved.timeline;
        let p = Self::prepare(texts).map_err(|errors| errors.join("; "))?;
        if p.texts != t.texts {
            return Err(match self.lang {
                i18n::Lang::En => "the lesson has changed since".into(),
                i18n::Lang::Ru => "урок с тех пор изменился".into(),
            });
        }
        let first = p.en.as_ref().or(p.ru.as_ref()).expect("prepare gave one");
        let rebuilt = kept::rebuild(first, &p.files, t)?;
        let id = first.meta.id.clone();
        let first_yaml = p.first_yaml.clone();
        self.install(origin.clone(), p, rebuilt.session, rebuilt.runner);
        let lang = self.lang;
        if let Some(o) = self.open_mut() {
            o.step = t.step;
            o.log = rebuilt.log;
            o.opened_ms = rebuilt.opened_ms;
            o.hints = saved.hints;
            o.solution = saved.solution;
            o.quizzes = saved.quizzes.clone();
            o.predicts = saved.predicts.clone();
            o.frame_ms = saved.frame_ms.clone();
        }
        if !saved.terminal.is_empty() || !saved.typed.is_empty() {
            let terminal = Rc::make_mut(&mut self.terminal);
            terminal.entries = saved.entries().collect();
            terminal.history = saved.typed.clone();
        }
        self.yaml = yew::AttrValue::from(if saved.yaml.is_empty() {
            first_yaml
        } else {
            saved.yaml.clone()
        });
        match saved.lang.as_str() {
            "ru" => self.lang = i18n::Lang::Ru,
            "en" => self.lang = i18n::Lang::En,
            _ => {}
        }
        match saved.names.as_str() {
            "kubernetes" => self.names = i18n::Names::Kubernetes,
            "warehouse" => self.names = i18n::Names::Warehouse,
            _ => {}
        }
        if crate::state::SPEEDS.contains(&saved.speed) {
            self.speed = saved.speed;
        }
        self.playing = false;
        let lang = if saved.lang.is_empty() {
            lang
        } else {
            self.lang
        };
        let note = if shared {
            kept::shared_note(lang, t.step, t.now_ms)
        } else {
            kept::restored_note(lang, t.step, t.now_ms)
        };
        if let Some(o) = self.open_mut() {
            o.note = Some(note);
        }
        self.save_step(&id, t.step, None);
        self.refresh_view();
        Ok(())
    }

    /// The earliest moment the History slider may show in a lesson: just after the
    /// open step opened (or was reset), so the step and its incidents stay as the
    /// runner has them.
    pub(crate) fn rewind_floor(&self) -> Option<u64> {
        let open = self.lesson.as_ref()?;
        let opened = open.runner.borrow().opened_at().0;
        Some(opened + 1)
    }

    /// The History slider's span in a lesson (see [`AppState::rewind_floor`]).
    pub(crate) fn lesson_history(&self) -> Option<(u64, u64)> {
        let floor = self.rewind_floor()?;
        let session = self.session.borrow();
        let journal = session.journal();
        let earliest = journal.earliest()?.0.max(floor);
        Some((earliest, journal.latest()?.0.max(earliest)))
    }

    /// `sim rewind` typed in a lesson went back before the open step opened: the
    /// history is replayed up to just after it (the step cannot go back with it).
    fn keep_within_step(&mut self) {
        let Some(open) = self.lesson.clone() else {
            return;
        };
        let Some(&(at, _)) = open.log.opens.last() else {
            return;
        };
        let behind = {
            let session = self.session.borrow();
            let journal = session.journal();
            journal.entries().len() < at && journal.future_len() > 0
        };
        if behind {
            if let Some(floor) = self.rewind_floor() {
                let _ = self
                    .session
                    .borrow_mut()
                    .rewind_to(warehouse_sim::SimTime(floor));
                self.refresh_view();
            }
        }
    }

    /// The open lesson at this moment as a link carries it, or why it cannot be.
    pub fn lesson_timeline(&self) -> Result<Timeline, String> {
        let open = self.lesson.as_ref().ok_or("no lesson is open")?;
        let too_long = || kept::too_long(self.lang);
        if open.log.broken {
            return Err(too_long());
        }
        let session = self.session.borrow();
        let current = kept::export_part(&session, open.id()).ok_or_else(too_long)?;
        let opens = open.log.opens.clone();
        if opens.iter().any(|&(n, _)| n > current.entries.len()) {
            // `sim rewind` went back before the step opened.
            return Err(too_long());
        }
        let mut parts = open.log.parts.clone();
        parts.push(kept::Part {
            history: current,
            opens,
        });
        Ok(Timeline {
            version: kept::LESSON_VERSION,
            source: kept::Source::of(&open.origin),
            id: open.id().to_string(),
            texts: open.texts,
            step: open.step,
            fired: open.runner.borrow().fired().to_vec(),
            parts,
            now_ms: session.cluster.now().0,
            revision: session.cluster.revision(),
        })
    }

    /// The open lesson as a reload should find it.
    fn saved_lesson(&self) -> Option<SavedLesson> {
        let open = self.lesson.as_ref()?;
        let timeline = self.lesson_timeline().ok()?;
        let skip = self
            .terminal
            .entries
            .len()
            .saturating_sub(crate::saved::SAVED_ENTRIES);
        let typed = self
            .terminal
            .history
            .len()
            .saturating_sub(crate::state::HISTORY_MAX);
        Some(SavedLesson {
            timeline,
            hints: open.hints,
            solution: open.solution,
            quizzes: open.quizzes.clone(),
            predicts: open.predicts.clone(),
            frame_ms: open.frame_ms.clone(),
            terminal: self
                .terminal
                .entries
                .iter()
                .skip(skip)
                .map(|e| (e.prompt.clone(), e.stdout.clone(), e.stderr.clone()))
                .collect(),
            typed: self.terminal.history[typed..].to_vec(),
            yaml: self.yaml.to_string(),
            lang: self.lang.tag().to_string(),
            names: match self.names {
                i18n::Names::Warehouse => "warehouse".into(),
                i18n::Names::Kubernetes => "kubernetes".into(),
            },
            speed: self.speed,
        })
    }

    #[cfg(test)]
    pub(crate) fn saved_lesson_for_tests(&self) -> Option<SavedLesson> {
        self.saved_lesson()
    }

    /// Hands the open lesson over for saving when it changed since the last time.
    pub(crate) fn save_lesson_if_changed(&mut self) -> bool {
        let Some(saved) = self.saved_lesson() else {
            return false;
        };
        if self.lesson_to_save.1.as_deref() == Some(&saved) {
            return false;
        }
        self.lesson_to_save = (self.lesson_to_save.0 + 1, Some(Rc::new(saved)));
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::lessons::{LessonTexts, Origin};
    use crate::state::{Action, AppState, Panel};
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

    #[test]
    fn a_run_block_keeps_what_it_printed_for_its_button() {
        let s = Rc::new(AppState::default());
        let s = s.reduce(Action::LessonFetched(Origin::Local, lesson_one()));
        let s = s.reduce(Action::RunKubectl("kubectl get ns".into()));
        let text = "kubectl apply -f packer.yaml\nkubectl get deployments";
        let s = s.reduce(Action::RunBlock(text.into()));
        let run = s.block_run.as_ref().expect("the run is kept");
        assert_eq!(
            (run.lesson.as_str(), run.step, run.text.as_str()),
            ("desired-state", 0, text)
        );
        let prompts: Vec<&str> = run.entries.iter().map(|e| e.prompt.as_str()).collect();
        assert_eq!(
            prompts,
            [
                "$ kubectl apply -f packer.yaml",
                "$ kubectl get deployments"
            ]
        );
        assert!(run.entries[0].stdout.contains("packer"), "{run:?}");
        assert_eq!(run.serial, s.terminal.pushed);
        // The terminal has them too, after the line typed before.
        let tail: Vec<_> = s
            .terminal
            .entries
            .iter()
            .rev()
            .take(3)
            .rev()
            .cloned()
            .collect();
        assert_eq!(tail[0].prompt, "$ kubectl get ns");
        assert_eq!(tail[1..], run.entries[..]);
    }

    #[test]
    fn lesson_one_passes_step_by_step_and_reset_restores_the_step() {
        let s = Rc::new(AppState::default());
        let s = s.reduce(Action::LessonFetched(Origin::Local, lesson_one()));
        assert_eq!(s.panel, Panel::Lesson);
        let check = |s: &AppState| {
            s.lesson
                .as_ref()
                .unwrap()
                .check
                .as_ref()
                .map(|c| c.passed())
        };
        assert_eq!(check(&s), Some(false));
        let s = s.reduce(Action::RunBlock("kubectl apply -f packer.yaml".into()));
        let s = s.reduce(Action::Advance(30_000));
        assert_eq!(check(&s), Some(true));
        assert!(s.progress.lessons["desired-state"].done.contains(&0));
        let s = s.reduce(Action::GotoStep(1));
        let s = s.reduce(Action::RunKubectl(
            "kubectl delete deployment packer".into(),
        ));
        let s = s.reduce(Action::Advance(30_000));
        let s = s.reduce(Action::ResetStep);
        let out = s.session.borrow_mut().run(
            "get deployment packer --no-headers",
            None,
            &crate::kubectl::NoFiles,
        );
        assert!(out.stdout.contains("5/5"), "{out:?}");
        let s = s.reduce(Action::RunSolution);
        assert_eq!(check(&s), Some(true));
    }

    #[test]
    fn reopening_replays_the_solutions_up_to_the_saved_step() {
        let s = Rc::new(AppState::default());
        let s = s.reduce(Action::LessonFetched(Origin::Local, lesson_one()));
        let s = s.reduce(Action::GotoStep(2));
        let s = s.reduce(Action::ShowCatalogue);
        let s = s.reduce(Action::LessonFetched(Origin::Local, lesson_one()));
        let open = s.lesson.as_ref().unwrap();
        assert_eq!(open.step, 2);
        assert!(open.note.is_some());
    }

    #[test]
    fn a_new_lesson_starts_a_new_warehouse_for_the_screen() {
        let s = Rc::new(AppState::default());
        let s = s.reduce(Action::Apply(crate::state::EXAMPLE_DEPLOYMENT.into()));
        let s = s.reduce(Action::Advance(60_000));
        assert!(!s.floor.traffic.samples.is_empty());
        let before = s.epoch;
        let s = s.reduce(Action::LessonFetched(Origin::Local, lesson_one()));
        assert_eq!(s.epoch, before + 1, "opening a lesson is a new warehouse");
        assert!(s.floor.traffic.samples.len() <= 1, "{:?}", s.floor.traffic);
        let s = s.reduce(Action::Advance(10_000));
        let e = s.epoch;
        let s = s.reduce(Action::ResetStep);
        assert_eq!(s.epoch, e + 1, "a reset restores another cluster");
    }

    #[test]
    fn a_lesson_opens_with_its_own_file_and_an_empty_terminal_and_the_sandbox_is_fresh() {
        let s = Rc::new(AppState::default());
        let s = s.reduce(Action::RunKubectl(
            "kubectl create deployment old --image=nginx".into(),
        ));
        let s = s.reduce(Action::EditYaml("kind: Leftover".into()));
        let s = s.reduce(Action::LessonFetched(Origin::Local, lesson_one()));
        assert!(s.yaml.contains("name: packer"), "{}", s.yaml);
        assert_eq!(s.terminal.entries.len(), 1, "{:?}", s.terminal.entries);
        assert!(s.terminal.entries[0].prompt.starts_with("# "));
        let s = s.reduce(Action::RunBlock("kubectl apply -f packer.yaml".into()));
        let s = s.reduce(Action::ShowCatalogue);
        let s = s.reduce(Action::UseSandbox);
        let out = s.session.borrow_mut().run(
            "get deployments --no-headers",
            None,
            &crate::kubectl::NoFiles,
        );
        assert_eq!(out.stdout, "", "{out:?}");
        assert!(s.terminal.entries.is_empty());
    }

    #[test]
    fn a_broken_lesson_is_an_error_with_its_line() {
        let texts = LessonTexts {
            en: Some((
                "broken.md".into(),
                "---\nid: broken\ntitle: B\nsummary: S\nlevel: beginner\nminutes: 1\n---\n\n## A step\n\n```check\nwithin: 1m\nconditions: 5\n```\n".into(),
            )),
            ..Default::default()
        };
        let s = Rc::new(AppState::default()).reduce(Action::LessonFetched(Origin::Local, texts));
        let Panel::Errors(errors) = &s.panel else {
            panic!("{:?}", s.panel)
        };
        assert!(errors[0].starts_with("broken.md:1"), "{errors:?}");
    }
}
