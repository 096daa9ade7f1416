//! The UI state and its reducer. Every change the user (or the animation clock) makes
//! is one [`Action`]; [`AppState::reduce`] applies it. The reducer does no IO: it
//! drives the simulation, which is itself deterministic and sans-IO, and keeps the
//! floor's model ([`Projection`]) up to date from the change feed, so components draw
//! from plain values and a zone nothing touched stays the same `Rc`.

use crate::i18n::{Lang, Names, Tr};
use crate::kubectl::Session;
use crate::lessons::{
    CatalogueState, CatalogueTexts, LessonTexts, Loaded, OpenLesson, Origin, Progress,
};
use crate::projection::{FloorView, Projection};
use crate::test_hook::HookInfo;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use warehouse_sim::{Cluster, ControlPlaneComponent, Fault, SimDuration, Topology};
use yew::{AttrValue, Reducible};

/// The seed of the browser's cluster. Fixed, so a page load always starts the same.
pub const SEED: u64 = 1;

/// Speeds offered in the toolbar (simulated seconds per real second).
pub const SPEEDS: [u32; 4] = [1, 10, 60, 600];

/// Advance buttons, in simulated milliseconds.
pub const ADVANCE_STEPS_MS: [u64; 4] = [10_000, 30_000, 60_000, 300_000];

/// The longest real-time gap one tick may turn into simulated time. A tab that was in
/// the background for minutes resumes where it was instead of jumping ahead.
pub const MAX_TICK_MS: u64 = 1_000;

/// How many commands the terminal keeps on screen, and how many it remembers for ↑/↓.
pub const TERMINAL_MAX_ENTRIES: usize = 200;
pub const HISTORY_MAX: usize = 100;
/// The most characters of one command's output the terminal keeps.
pub const OUTPUT_MAX_CHARS: usize = 100_000;

/// The manifest the editor starts with.
pub const EXAMPLE_DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
        - name: nginx
          image: nginx:1.27
          resources:
            requests:
              cpu: 100m
              memory: 64Mi
";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// `real_ms` of wall-clock time passed while playing.
    Tick {
        real_ms: u64,
    },
    TogglePlay,
    SetSpeed(u32),
    /// Jump simulated time forward by this many milliseconds.
    Advance(u64),
    /// Run the clock to the next thing that happens, and pause.
    Step,
    /// Go to this simulated time (milliseconds) in the session's history.
    RewindTo(u64),
    /// A share link's history was read (or why it could not be).
    OpenHistory(Result<crate::kubectl::journal::Exported, String>),
    /// The share link was made (or why it could not be).
    ShareReady(Result<String, String>),
    /// Every few seconds: keep the sandbox for a reload if it changed.
    SaveTick,
    KillZone(String),
    RestartZone(String),
    /// Stop or start a control-plane component (`sim stop scheduler`).
    StopComponent(ControlPlaneComponent),
    StartComponent(ControlPlaneComponent),
    EditYaml(AttrValue),
    /// Apply this manifest text (`kubectl apply -f -`), or save it as the pending
    /// `kubectl edit`.
    Apply(String),
    /// Leave the pending `kubectl edit` without saving.
    CancelEdit,
    /// Run what the user typed in the kubectl box.
    RunKubectl(String),
    ToggleLang,
    ToggleNames,
    DismissNotice,
    /// Ask "why this zone?" about a robot (`namespace/name`), or stop asking.
    SelectPod(Option<String>),
    /// Open the inspector on something of the floor, or close it.
    Inspect(Option<crate::target::Target>),
    /// Show only the learner's own requests in the reception log, or everyone's.
    SetMineOnly(bool),
    /// What localStorage held at start.
    ProgressLoaded(Loaded),
    DismissProgressNotice,
    /// `lessons/index.yaml` and its lessons' texts, or why the index was not fetched.
    CatalogueLoaded(Result<CatalogueTexts, String>),
    ShowCatalogue,
    /// Close the lesson panel and keep the cluster as a sandbox.
    UseSandbox,
    /// A lesson is being fetched (its name, for the panel).
    LessonLoading(String),
    LessonFetched(Origin, LessonTexts),
    LessonFailed(String),
    GotoStep(usize),
    /// Run a step's ```kubectl block (or any script text) line by line in the terminal.
    RunBlock(String),
    OpenInEditor(String),
    RevealHint,
    ToggleSolution,
    RunSolution,
    QuizChoose {
        block: usize,
        option: usize,
    },
    QuizCheck(usize),
    PredictChoose {
        block: usize,
        option: usize,
    },
    PredictCommit(usize),
    /// Put the cluster back as it was when the step opened.
    ResetStep,
    /// A saved or shared lesson, its texts fetched again: rebuild it.
    RestoreLesson(Box<crate::lesson_saved::Restore>),
    /// A lesson link could not be read (why).
    LessonLinkRefused(String),
}

/// What the panel beside the floor shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Panel {
    #[default]
    Catalogue,
    Lesson,
    /// No panel: the plain sandbox.
    Sandbox,
    Loading(String),
    /// A lesson that could not be opened: `file:line:column: message` each.
    Errors(Rc<Vec<String>>),
}

/// What the last Apply printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub text: String,
    pub error: bool,
}

/// One command in the terminal: the prompt line and what it printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub prompt: String,
    pub stdout: String,
    pub stderr: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Terminal {
    /// Oldest first.
    pub entries: VecDeque<Entry>,
    /// Commands as typed (without `kubectl `), oldest first.
    pub history: Vec<String>,
    /// The container shell's prompt while a session (`kubectl exec -ti … -- sh`,
    /// `kubectl run -it …`) runs the terminal's lines in a container.
    pub inside: Option<String>,
    /// How many entries were ever pushed: marks where a run's output starts.
    pub pushed: u64,
}

/// A lesson's Run (or Run solution) button and what it printed, shown under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockRun {
    pub lesson: String,
    pub step: usize,
    /// The text the button ran.
    pub text: String,
    /// The terminal's entries it made (`Terminal::pushed` after it: a new run).
    pub entries: Vec<Entry>,
    pub serial: u64,
}

impl Terminal {
    fn push(&mut self, entry: Entry) {
        self.pushed += 1;
        if self.entries.len() == TERMINAL_MAX_ENTRIES {
            self.entries.pop_front();
        }
        self.entries.push_back(entry);
    }

    fn remember(&mut self, line: &str) {
        if self.history.last().map(String::as_str) != Some(line) {
            if self.history.len() == HISTORY_MAX {
                self.history.remove(0);
            }
            self.history.push(line.to_string());
        }
    }
}

#[derive(Clone)]
pub struct AppState {
    /// The kubectl session, which owns the cluster. The one mutable thing the UI
    /// holds; only the reducer and the read-only test hook touch it.
    pub session: Rc<RefCell<Session>>,
    /// The floor's model after the last action (`projection.view`).
    pub view: Rc<FloorView>,
    /// What keeps `view` up to date from the change feed.
    pub projection: Projection,
    pub playing: bool,
    pub speed: u32,
    pub lang: Lang,
    pub names: Names,
    pub yaml: AttrValue,
    pub apply_result: Option<Outcome>,
    /// `kubectl edit ARGS` waiting for the editor's text (the terminal opened an
    /// object in the editor; Apply saves it as the edit).
    pub editing: Option<String>,
    pub terminal: Rc<Terminal>,
    /// The last lesson block run and its output, shown under its button.
    pub block_run: Option<Rc<BlockRun>>,
    /// The result of the last zone action, shown under the zone list.
    pub notice: Option<Outcome>,
    /// The robot "why this zone?" is about (`namespace/name`) and the scheduler's
    /// latest decision for it.
    pub selected_pod: Option<String>,
    pub decision: Option<Rc<warehouse_sim::scheduler::Decision>>,
    /// The robots "why this zone?" offers.
    pub decided: crate::decision::Decided,
    pub panel: Panel,
    pub catalogue: CatalogueState,
    pub lesson: Option<Rc<OpenLesson>>,
    pub progress: Rc<Progress>,
    /// Shown once when saved progress could not be read and was reset.
    pub progress_notice: Option<String>,
    /// What `window.__warehouse` reports about lessons, refreshed after each action.
    pub hook: Rc<RefCell<HookInfo>>,
    /// What the inspector shows (a robot, zone, desk, sheet or staff member).
    pub inspected: Option<crate::target::Target>,
    /// What kubectl printed about it, and the store revision it was taken at: taken
    /// again only when the target or the revision changes.
    pub inspection: Option<(crate::target::Target, u64, Rc<crate::inspector::Report>)>,
    /// What the office (control plane and dock) shows, for the test hook.
    pub office: Rc<RefCell<crate::office::OfficeInfo>>,
    /// The reception log shows only the learner's own requests (`None`: the default,
    /// on while a lesson is open).
    pub mine_only: Option<bool>,
    /// The floor's other views, rebuilt with `view` (see [`AppState::refresh_view`]).
    pub floor: crate::floor::FloorData,
    /// Which warehouse the screen shows: bumped whenever the session's cluster is
    /// replaced (a lesson opened, a step reset, `sim seed` or `sim boot`), so the
    /// narration, the office, the charts and the frames start from the new one's
    /// own record.
    pub epoch: u64,
    /// The share link last made, or why it could not be.
    pub share: Option<Result<String, String>>,
    /// What the last single step found (cleared by the next action that moves time).
    pub stepped: Option<Rc<crate::kubectl::journal::Stepped>>,
    /// The sandbox to keep for a reload, made when it changed (the app's effect
    /// writes it), with its generation.
    pub to_save: (u64, Option<Rc<crate::saved::Saved>>),
    /// What the sandbox was when it was last handed over for saving.
    saved_fingerprint: u64,
    /// The open lesson to keep for a reload (`None`: forget the kept one), with
    /// its generation; see `lesson_saved.rs`.
    pub lesson_to_save: (u64, Option<Rc<crate::lesson_saved::SavedLesson>>),
    /// The session still holds a lesson's cluster after the lesson was closed: it
    /// is no sandbox to keep.
    pub left_lesson: bool,
}

impl Default for AppState {
    /// The learner's cluster: settled, up a few minutes with every node Ready and
    /// every kube-system pod Running (`warehouse_sim::SETTLE_TIME`).
    fn default() -> Self {
        AppState::new(Cluster::settled(SEED, Topology::default()))
    }
}

impl AppState {
    pub fn new(cluster: Cluster) -> AppState {
        AppState {
            session: Rc::new(RefCell::new(Session::new(cluster))),
            view: Rc::default(),
            projection: Projection::default(),
            playing: true,
            speed: SPEEDS[0],
            lang: Lang::default(),
            names: Names::default(),
            yaml: AttrValue::from(EXAMPLE_DEPLOYMENT),
            apply_result: None,
            editing: None,
            terminal: Rc::new(Terminal::default()),
            block_run: None,
            notice: None,
            selected_pod: None,
            decision: None,
            decided: Default::default(),
            panel: Panel::default(),
            catalogue: CatalogueState::default(),
            lesson: None,
            progress: Rc::new(Progress::default()),
            progress_notice: None,
            hook: Rc::new(RefCell::new(HookInfo::default())),
            inspected: None,
            inspection: None,
            office: Rc::new(RefCell::new(Default::default())),
            mine_only: None,
            floor: crate::floor::FloorData::default(),
            epoch: 0,
            share: None,
            stepped: None,
            to_save: (0, None),
            saved_fingerprint: 0,
            lesson_to_save: (0, None),
            left_lesson: false,
        }
        .with_floor()
    }

    fn with_floor(mut self) -> AppState {
        self.refresh_view();
        self
    }

    /// Forgets an Apply error once every control-plane component runs again (it was
    /// most likely refused because the desk or the vault was down).
    fn clear_stale_apply(&mut self) {
        let back = self.view.components.iter().all(|v| v.running);
        if back && self.apply_result.as_ref().is_some_and(|o| o.error) {
            self.apply_result = None;
        }
    }

    /// The reception log shows only the learner's requests.
    pub fn mine_only(&self) -> bool {
        self.mine_only.unwrap_or(self.lesson.is_some())
    }

    pub fn tr(&self) -> Tr {
        Tr::new(self.lang, self.names)
    }

    /// Brings the floor's model up to date (only the zones the feed says were
    /// touched are read again) and rebuilds the desks and the countdowns (counted:
    /// see [`crate::floor::rebuilds`]).
    pub(crate) fn refresh_view(&mut self) {
        if self.floor_belongs_elsewhere() {
            self.new_cluster();
        }
        let session = self.session.borrow();
        self.projection.update(&session.cluster);
        let robots_moved = !self.view.same_robots(&self.projection.view);
        self.view = self.projection.view.clone();
        self.decided
            .update(&session.cluster, &self.view, robots_moved);
        self.floor.rebuild(&session.cluster);
        let decision = self.selected_pod.as_deref().and_then(|p| {
            let (ns, name) = p.split_once('/')?;
            let key = warehouse_sim::ObjectKey::new(warehouse_sim::Kind::Pod, ns, name);
            session.cluster.scheduling_decision(&key).cloned()
        });
        if decision.as_ref() != self.decision.as_deref() {
            self.decision = decision.map(Rc::new);
        }
    }

    /// The session holds another cluster than the one the floor data was read from:
    /// its clock or its change feed went back (`sim seed`, `sim boot`, a restore).
    fn floor_belongs_elsewhere(&self) -> bool {
        let session = self.session.borrow();
        let cluster = &session.cluster;
        cluster.now().0 < self.floor.now_ms
            || cluster.feed_since(u64::MAX).next < self.floor.feed_seq
    }

    /// Starts over with what the screen keeps about a cluster: a new epoch (the
    /// office and the narration forget the old one), empty floor data and chart, no
    /// robot or object picked.
    pub(crate) fn new_cluster(&mut self) {
        self.epoch += 1;
        self.floor = crate::floor::FloorData::default();
        self.projection = Projection::default();
        self.selected_pod = None;
        self.decision = None;
        self.decided = Default::default();
        self.inspected = None;
    }

    pub(crate) fn advance(&mut self, ms: u64) {
        if ms == 0 {
            return;
        }
        self.stepped = None;
        if self.lesson.is_some() {
            // A lesson's incidents fire at their times on the way.
            self.lesson_advance(SimDuration::millis(ms));
        } else {
            self.session.borrow_mut().advance(SimDuration::millis(ms));
        }
        // Time alone moves the clock and the countdowns, not the whole view.
        let moved =
            self.floor_belongs_elsewhere() || self.floor.moved(&self.session.borrow().cluster);
        if moved {
            self.refresh_view();
        } else {
            // Still a look at the zones' headers: a lesson's incident may have
            // powered a zone off on the way, which writes nothing at once.
            let session = self.session.borrow();
            self.floor.tick(&session.cluster);
            if self.projection.update(&session.cluster) {
                self.view = self.projection.view.clone();
            }
        }
    }

    /// The simulated times the history reaches (earliest, latest), for the time
    /// slider; `None` before anything happened. In a lesson, from when the open
    /// step opened (`lesson_reducer.rs`).
    pub fn history(&self) -> Option<(u64, u64)> {
        if self.lesson.is_some() {
            return self.lesson_history();
        }
        let session = self.session.borrow();
        let journal = session.journal();
        Some((journal.earliest()?.0, journal.latest()?.0))
    }

    /// The sandbox as a reload should find it; `None` while a lesson is open or
    /// before anything happened.
    pub fn saved(&self) -> Option<crate::saved::Saved> {
        if self.lesson.is_some() || self.left_lesson {
            return None;
        }
        let history = self
            .session
            .borrow()
            .journal()
            .export(&crate::saved::origin(SEED))?;
        let skip = self
            .terminal
            .entries
            .len()
            .saturating_sub(crate::saved::SAVED_ENTRIES);
        Some(crate::saved::Saved {
            history,
            terminal: self
                .terminal
                .entries
                .iter()
                .skip(skip)
                .map(|e| (e.prompt.clone(), e.stdout.clone(), e.stderr.clone()))
                .collect(),
            typed: self.terminal.history.clone(),
            yaml: self.yaml.to_string(),
            lang: self.lang.tag().to_string(),
            names: match self.names {
                Names::Warehouse => "warehouse".into(),
                Names::Kubernetes => "kubernetes".into(),
            },
            speed: self.speed,
        })
    }

    /// Hands the sandbox over for saving when it changed since the last time.
    fn save_if_changed(&mut self) -> bool {
        let fingerprint = {
            let session = self.session.borrow();
            let j = session.journal();
            let mut h = crate::saved::Fingerprint::default();
            h.add(j.entries().len() as u64);
            h.add(j.entries().last().map_or(0, |e| e.until.0));
            h.add(self.terminal.entries.len() as u64);
            h.add(self.terminal.history.len() as u64);
            h.add_str(&self.yaml);
            h.add(u64::from(self.speed));
            h.add(self.lang as u64);
            h.add(self.names as u64);
            h.add(u64::from(self.lesson.is_some()));
            h.finish()
        };
        if fingerprint == self.saved_fingerprint {
            return false;
        }
        self.saved_fingerprint = fingerprint;
        let Some(saved) = self.saved() else {
            return false;
        };
        self.to_save = (self.to_save.0 + 1, Some(Rc::new(saved)));
        true
    }

    /// The sandbox a reload found: its history replayed on the same starting
    /// warehouse, its terminal, editor and settings back.
    pub fn restore(&mut self, saved: crate::saved::Saved) -> Result<(), String> {
        let session = rebuilt(&saved.history)?;
        *self.session.borrow_mut() = session;
        self.new_cluster();
        let terminal = Rc::make_mut(&mut self.terminal);
        terminal.entries = saved.entries().collect();
        terminal.history = saved.typed.clone();
        self.yaml = AttrValue::from(saved.yaml.clone());
        self.lang = if saved.lang == "ru" {
            Lang::Ru
        } else {
            Lang::En
        };
        self.names = if saved.names == "kubernetes" {
            Names::Kubernetes
        } else {
            Names::Warehouse
        };
        if SPEEDS.contains(&saved.speed) {
            self.speed = saved.speed;
        }
        self.playing = false;
        let now = self.session.borrow().cluster.now().0;
        self.notice = Some(Outcome {
            text: crate::i18n::sandbox_restored(self.lang, now),
            error: false,
        });
        self.refresh_view();
        Ok(())
    }

    /// A share link was opened: its warehouse replaces the sandbox, paused at the
    /// moment it was shared.
    fn open_history(&mut self, history: Result<crate::kubectl::journal::Exported, String>) {
        let result = history.and_then(|h| rebuilt(&h));
        let lang = self.lang;
        match result {
            Ok(session) => {
                *self.session.borrow_mut() = session;
                self.new_cluster();
                self.playing = false;
                Rc::make_mut(&mut self.terminal).entries.clear();
                let now = self.session.borrow().cluster.now().0;
                self.notice = Some(Outcome {
                    text: crate::i18n::link_opened(lang, now),
                    error: false,
                });
            }
            Err(e) => {
                self.notice = Some(Outcome {
                    text: crate::i18n::link_refused(lang, &e),
                    error: true,
                })
            }
        }
        self.refresh_view();
    }

    /// Goes to simulated time `ms` of the history, paused there so the learner can
    /// look; Play replays what came next.
    /// One step: the clock to the next request, write or order (at most
    /// [`STEP_WITHIN`](crate::kubectl::shell::script::STEP_WITHIN) on), paused there. In a
    /// lesson its incidents fire on the way, as for any advance.
    fn step(&mut self) {
        use crate::kubectl::journal::step_with;
        use crate::kubectl::shell::script::STEP_WITHIN;
        self.playing = false;
        let stepped = match self.shown() {
            Some((open, lesson)) => {
                let mut fired = Vec::new();
                let stepped = {
                    let mut runner = open.runner.borrow_mut();
                    step_with(&mut self.session.borrow_mut(), STEP_WITHIN, |s, by| {
                        fired.extend(runner.advance(&lesson, s, by, &*open.files));
                    })
                };
                let label = crate::i18n::incident_label(self.lang);
                for f in fired {
                    self.print(format!("{label} $ {}", f.command), &f.output);
                }
                stepped
            }
            None => self.session.borrow_mut().step(STEP_WITHIN),
        };
        self.stepped = Some(Rc::new(stepped));
        self.refresh_view();
    }

    fn rewind_to(&mut self, ms: u64) {
        let result = self
            .session
            .borrow_mut()
            .rewind_to(warehouse_sim::SimTime(ms));
        self.stepped = None;
        match result {
            Ok(_) => {
                self.playing = false;
                self.notice = None;
            }
            Err(e) => {
                self.notice = Some(Outcome {
                    text: e,
                    error: true,
                })
            }
        }
        self.refresh_view();
    }

    /// Records a line and its output in the terminal.
    pub(crate) fn print(&mut self, prompt: String, out: &crate::kubectl::CommandOutput) {
        Rc::make_mut(&mut self.terminal).push(Entry {
            prompt,
            stdout: truncate(out.stdout.clone()),
            stderr: truncate(out.stderr.clone()),
        });
    }

    fn fault(&mut self, fault: Fault, script_line: String) {
        let result = self.session.borrow_mut().fault(fault);
        let outcome = match result {
            Ok(message) => Outcome {
                text: message,
                error: false,
            },
            Err(e) => Outcome {
                text: e.to_string(),
                error: true,
            },
        };
        Rc::make_mut(&mut self.terminal).push(Entry {
            prompt: format!("$ {script_line}"),
            stdout: if outcome.error {
                String::new()
            } else {
                format!("{}\n", outcome.text)
            },
            stderr: if outcome.error {
                format!("{}\n", outcome.text)
            } else {
                String::new()
            },
        });
        self.notice = Some(outcome);
        self.refresh_view();
    }

    /// Runs one kubectl command line (without the leading `kubectl`) and records it in
    /// the terminal. Returns the command's output.
    fn kubectl(&mut self, line: &str, stdin: Option<&str>) -> Outcome {
        let files = self.lesson_files();
        let out = self.session.borrow_mut().run(line, stdin, &*files);
        let error = out.code != 0;
        let entry = Entry {
            prompt: format!("$ kubectl {line}"),
            stdout: truncate(out.stdout),
            stderr: truncate(out.stderr),
        };
        let text = format!("{}{}", entry.stdout, entry.stderr);
        Rc::make_mut(&mut self.terminal).push(entry);
        self.refresh_view();
        Outcome {
            text: text.trim_end().to_string(),
            error,
        }
    }
}

impl AppState {
    /// Takes the inspector's report (read-only kubectl commands) when what it is
    /// about or the store's revision changed; drops it when the inspector closes.
    fn inspect(&mut self) {
        let Some(target) = &self.inspected else {
            self.inspection = None;
            return;
        };
        let revision = self.view.revision;
        if self
            .inspection
            .as_ref()
            .is_some_and(|(t, r, _)| t == target && *r == revision)
        {
            return;
        }
        let report = crate::inspector::report(&mut self.session.borrow_mut(), target, &self.view);
        self.inspection = Some((target.clone(), revision, Rc::new(report)));
    }

    /// The inspector's report, when it is open.
    pub fn report(&self) -> Option<Rc<crate::inspector::Report>> {
        self.inspection.as_ref().map(|(_, _, r)| r.clone())
    }
}

/// A fresh session on the history's origin with the history replayed.
fn rebuilt(history: &crate::kubectl::journal::Exported) -> Result<Session, String> {
    let seed = crate::saved::origin_seed(&history.origin)
        .ok_or_else(|| format!("it starts from an unknown warehouse \"{}\"", history.origin))?;
    let mut session = Session::new(Cluster::settled(seed, Topology::default()));
    session.import(history)?;
    Ok(session)
}

/// `edit ARGS` or `kubectl edit ARGS` typed in the terminal (no shell syntax).
fn edit_args(input: &str) -> Option<String> {
    let line = input.trim();
    let rest = line.strip_prefix("kubectl ").unwrap_or(line).trim_start();
    let args = rest.strip_prefix("edit ")?.trim();
    (!args.is_empty() && !args.contains(['|', ';', '&', '<', '>', '$', '`', '\\', '\n']))
        .then(|| args.to_string())
}

impl AppState {
    /// `kubectl edit ARGS` in the terminal: the object opens in the YAML editor, and
    /// Apply saves it as the edit (an editor window stands in for `$EDITOR`).
    fn open_edit(&mut self, args: String, input: &str) {
        let namespace = self.session.borrow().namespace.clone();
        let words: Vec<String> = args.split_whitespace().map(String::from).collect();
        let result =
            crate::kubectl::cmd::edit::buffer(&self.session.borrow().cluster, &namespace, &words);
        let entry = match result {
            Ok(text) => {
                self.yaml = AttrValue::from(text);
                self.editing = Some(args);
                Entry {
                    prompt: format!("$ {}", input.trim()),
                    stdout: crate::i18n::edit_opened(self.lang),
                    stderr: String::new(),
                }
            }
            Err(e) => Entry {
                prompt: format!("$ {}", input.trim()),
                stdout: String::new(),
                stderr: format!("{e}\n"),
            },
        };
        Rc::make_mut(&mut self.terminal).push(entry);
        self.refresh_view();
    }

    /// Runs one terminal line in the shell around kubectl (`kubectl …`, `sim …`,
    /// `export X=$(…)`, `echo`, `curl`, …); shell variables stay in the session
    /// between lines.
    ///
    /// Input of several lines (a paste) is read as bash reads it: a line ending in
    /// a backslash goes on on the next one, a heredoc's lines are its command's
    /// stdin, and each command that results runs in turn with its own prompt.
    fn shell(&mut self, input: &str) {
        use crate::kubectl::shell::{script, terminal_line};
        let files = self.lesson_files();
        let text = input.trim_end_matches(['\n', '\r']);
        let inside = self.inside_prompt();
        if let Some(prompt) = inside {
            // In a container the line goes to its shell as typed (`top` is busybox's).
            let out = self.session.borrow_mut().run_shell(text, None, &*files);
            self.push_entry(format!("{prompt} {}", text.trim()), out);
        } else if !text.contains('\n') {
            let line = terminal_line(text);
            let out = self.session.borrow_mut().run_shell(&line, None, &*files);
            self.push_entry(format!("$ {line}"), out);
        } else {
            match script::parse(text) {
                Ok(steps) => {
                    for step in steps {
                        let line = terminal_line(&step.command);
                        let stdin = step.heredoc.as_ref().map(|h| h.body.as_str());
                        let out = self.session.borrow_mut().run_shell(&line, stdin, &*files);
                        let echo = script::Step {
                            command: line,
                            ..step
                        }
                        .echo();
                        self.push_entry(echo.trim_end_matches('\n').to_string(), out);
                    }
                }
                Err(e) => {
                    let first = text.lines().next().unwrap_or("");
                    let out = crate::kubectl::CommandOutput::error(format!("bash: {e}"));
                    self.push_entry(format!("$ {first}"), out);
                }
            }
        }
        let inside = self.inside_prompt();
        if self.terminal.inside != inside {
            Rc::make_mut(&mut self.terminal).inside = inside;
        }
        self.refresh_view();
    }

    /// The container shell's prompt while a session runs the terminal's lines.
    fn inside_prompt(&self) -> Option<String> {
        let session = self.session.borrow();
        session.shell.inside.as_ref().map(|i| i.prompt.clone())
    }

    fn push_entry(&mut self, prompt: String, out: crate::kubectl::CommandOutput) {
        let entry = Entry {
            prompt,
            stdout: truncate(out.stdout),
            stderr: truncate(out.stderr),
        };
        Rc::make_mut(&mut self.terminal).push(entry);
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Tick { real_ms } => {
                if !self.playing || real_ms == 0 {
                    return self;
                }
                let sim_ms = real_ms.min(MAX_TICK_MS) * u64::from(self.speed);
                next.advance(sim_ms);
            }
            Action::TogglePlay => next.playing = !next.playing,
            Action::SetSpeed(speed) => {
                if !SPEEDS.contains(&speed) || speed == self.speed {
                    return self;
                }
                next.speed = speed;
            }
            Action::Advance(ms) => next.advance(ms),
            Action::Step => next.step(),
            Action::RewindTo(ms) => next.rewind_to(next.rewind_floor().map_or(ms, |f| ms.max(f))),
            Action::OpenHistory(history) => next.open_history(history),
            Action::ShareReady(link) => next.share = Some(link),
            Action::SaveTick => {
                let sandbox = next.save_if_changed();
                if !next.save_lesson_if_changed() && !sandbox {
                    return self;
                }
            }
            Action::KillZone(name) => {
                let line = format!("sim node kill {name}");
                next.fault(Fault::KillNode(name), line);
            }
            Action::RestartZone(name) => {
                let line = format!("sim node restart {name}");
                next.fault(Fault::RestartNode(name), line);
            }
            Action::StopComponent(c) => {
                let line = format!("sim stop {}", c.short_name());
                next.fault(Fault::StopComponent(c), line);
            }
            Action::StartComponent(c) => {
                let line = format!("sim start {}", c.short_name());
                next.fault(Fault::StartComponent(c), line);
                // An Apply refused while the desk or the vault was down is stale once
                // they are back: the learner can simply apply again.
                next.clear_stale_apply();
            }
            Action::EditYaml(text) => {
                if text == self.yaml {
                    return self;
                }
                next.yaml = text;
            }
            Action::Apply(text) => {
                next.yaml = AttrValue::from(text.clone());
                let outcome = match next.editing.take() {
                    Some(args) => next.kubectl(&format!("edit {args}"), Some(&text)),
                    None => next.kubectl("apply -f -", Some(&text)),
                };
                next.apply_result = Some(outcome);
            }
            Action::CancelEdit => next.editing = None,
            Action::RunKubectl(input) => {
                if input.trim().is_empty() {
                    return self;
                }
                let terminal = Rc::make_mut(&mut next.terminal);
                terminal.remember(input.trim());
                if input.trim() == "clear" {
                    terminal.entries.clear();
                } else if let Some(args) = edit_args(&input) {
                    next.open_edit(args, &input);
                } else {
                    next.shell(&input);
                    if input.lines().any(|l| l.trim().starts_with("sim start")) {
                        next.clear_stale_apply();
                    }
                }
            }
            Action::SetMineOnly(on) => next.mine_only = Some(on),
            Action::ToggleLang => next.lang = next.lang.other(),
            Action::ToggleNames => next.names = next.names.other(),
            Action::DismissNotice => next.notice = None,
            Action::SelectPod(pod) => {
                next.selected_pod = pod;
                next.refresh_view();
            }
            Action::Inspect(target) => {
                if target == self.inspected {
                    return self;
                }
                next.inspected = target;
            }
            other => next.reduce_lesson(other),
        }
        next.inspect();
        next.after_action();
        Rc::new(next)
    }
}

pub(crate) fn truncate(mut text: String) -> String {
    if text.len() > OUTPUT_MAX_CHARS {
        let mut cut = OUTPUT_MAX_CHARS;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("\n… (output cut)\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_in_the_terminal_opens_the_editor_and_apply_saves_the_edit() {
        let s = Rc::new(AppState::default());
        let s = s.reduce(Action::Apply(EXAMPLE_DEPLOYMENT.to_string()));
        let s = s.reduce(Action::RunKubectl("kubectl edit deployment nginx".into()));
        assert_eq!(s.editing.as_deref(), Some("deployment nginx"));
        assert!(
            s.yaml.starts_with("# Please edit the object below."),
            "{}",
            s.yaml
        );
        let edited = s.yaml.replace("replicas: 3", "replicas: 5");
        let s = s.reduce(Action::Apply(edited));
        let outcome = s.apply_result.clone().unwrap();
        assert_eq!(outcome.text, "deployment.apps/nginx edited");
        assert_eq!(s.editing, None);
        let s = s.reduce(Action::RunKubectl("edit deployment nope".into()));
        assert_eq!(s.editing, None);
    }

    fn reduce(state: Rc<AppState>, action: Action) -> Rc<AppState> {
        state.reduce(action)
    }

    /// Where the clock of a new page starts: the settled cluster's age.
    fn start_ms() -> u64 {
        warehouse_sim::SETTLE_TIME.as_millis()
    }

    #[test]
    fn the_page_starts_at_a_settled_cluster() {
        let s = AppState::default();
        assert_eq!(s.floor.now_ms, start_ms());
        assert!(start_ms() >= 60_000, "up for minutes");
        let out = s.session.borrow_mut().run(
            "get pods -n kube-system --no-headers",
            None,
            &crate::kubectl::NoFiles,
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        let rows: Vec<&str> = out.stdout.lines().collect();
        assert_eq!(rows.len(), 10, "{}", out.stdout);
        assert!(
            rows.iter()
                .all(|r| r.contains(" 1/1 ") && r.contains(" Running ")),
            "{}",
            out.stdout
        );
    }

    #[test]
    fn ticks_advance_time_only_while_playing_and_scale_with_speed() {
        let s = Rc::new(AppState::default());
        let s = reduce(s, Action::SetSpeed(10));
        let s = reduce(s, Action::Tick { real_ms: 100 });
        assert_eq!(s.floor.now_ms, start_ms() + 1_000);
        let s = reduce(s, Action::TogglePlay);
        let paused = reduce(s.clone(), Action::Tick { real_ms: 100 });
        assert!(Rc::ptr_eq(&s, &paused), "a paused tick changes nothing");
    }

    #[test]
    fn a_step_stops_at_the_next_request_and_pauses() {
        use warehouse_sim::views::feed::FeedEvent;
        let s = reduce(
            Rc::new(AppState::default()),
            Action::Apply(EXAMPLE_DEPLOYMENT.to_string()),
        );
        let before = s.floor.now_ms;
        let s = reduce(s, Action::Step);
        assert!(!s.playing, "a step pauses the clock");
        let stepped = s.stepped.clone().expect("a step says what it found");
        let Some(FeedEvent::Request {
            user, verb, target, ..
        }) = &stepped.first
        else {
            panic!("the deployment controller's request comes first: {stepped:?}");
        };
        assert!(user.ends_with("deployment-controller"), "{user}");
        assert_eq!(
            (*verb, target.starts_with("replicasets/nginx-")),
            ("create", true)
        );
        assert_eq!(s.floor.now_ms, before + stepped.by.as_millis());
        assert!(
            stepped.by.as_millis() < 1_000,
            "the controller acts within a second"
        );
        let s = reduce(s, Action::Step);
        let Some(FeedEvent::Request { target, .. }) = &s.stepped.as_ref().unwrap().first else {
            panic!("then the replicaset controller's");
        };
        assert!(target.starts_with("pods/nginx-"), "{target}");
        // Moving the clock any other way clears the note.
        let s = reduce(s, Action::Advance(10_000));
        assert!(s.stepped.is_none());
    }

    #[test]
    fn long_gaps_are_capped() {
        let s = reduce(
            Rc::new(AppState::default()),
            Action::Tick { real_ms: 60_000 },
        );
        assert_eq!(s.floor.now_ms, start_ms() + MAX_TICK_MS);
    }

    #[test]
    fn apply_then_advance_runs_robots() {
        let s = reduce(
            Rc::new(AppState::default()),
            Action::Apply(EXAMPLE_DEPLOYMENT.to_string()),
        );
        let outcome = s.apply_result.clone().expect("apply printed something");
        assert!(!outcome.error, "{}", outcome.text);
        assert!(
            outcome.text.contains("deployment.apps/nginx created"),
            "{}",
            outcome.text
        );
        let s = reduce(s, Action::Advance(60_000));
        let running: usize = s
            .view
            .robot_counts()
            .values()
            .filter_map(|m| m.get("Running"))
            .sum();
        assert_eq!(running, 3);
    }

    #[test]
    fn malformed_yaml_is_an_error_with_a_line() {
        let s = reduce(
            Rc::new(AppState::default()),
            Action::Apply("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: [x\n".into()),
        );
        let outcome = s.apply_result.clone().unwrap();
        assert!(outcome.error);
        assert!(outcome.text.contains("line"), "{}", outcome.text);
    }

    #[test]
    fn killing_an_unknown_zone_is_a_notice_not_a_panic() {
        let s = reduce(
            Rc::new(AppState::default()),
            Action::KillZone("nope".into()),
        );
        assert!(s.notice.as_ref().unwrap().error);
    }

    #[test]
    fn a_stopped_scheduler_leaves_robots_waiting_until_it_starts() {
        let s = reduce(
            Rc::new(AppState::default()),
            Action::StopComponent(ControlPlaneComponent::Scheduler),
        );
        assert!(!s.notice.as_ref().unwrap().error);
        assert!(s
            .view
            .components
            .iter()
            .any(|c| c.name == "kube-scheduler" && !c.running));
        let s = reduce(s, Action::Apply(EXAMPLE_DEPLOYMENT.to_string()));
        let s = reduce(s, Action::Advance(30_000));
        let counts = s.view.robot_counts();
        assert_eq!(counts["unscheduled"]["Unscheduled"], 3, "{counts:?}");
        let s = reduce(s, Action::StartComponent(ControlPlaneComponent::Scheduler));
        let s = reduce(s, Action::Advance(30_000));
        let running: usize = s
            .view
            .robot_counts()
            .values()
            .filter_map(|m| m.get("Running"))
            .sum();
        assert_eq!(running, 3);
        assert_eq!(
            s.terminal.entries.back().unwrap().prompt,
            "$ sim start scheduler"
        );
    }

    #[test]
    fn terminal_remembers_history_and_clear_empties_screen() {
        let s = reduce(
            Rc::new(AppState::default()),
            Action::RunKubectl("kubectl get pods".into()),
        );
        assert_eq!(s.terminal.entries.len(), 1);
        assert_eq!(s.terminal.entries[0].prompt, "$ kubectl get pods");
        let s = reduce(s, Action::RunKubectl("sim why deployment/nope".into()));
        assert!(s
            .terminal
            .entries
            .back()
            .unwrap()
            .stdout
            .contains("no recorded write"));
        // Shell variables live between lines.
        let s = reduce(
            s,
            Action::RunKubectl("export NS=\"$(echo kube-system)\"".into()),
        );
        let s = reduce(s, Action::RunKubectl("get ns $NS -o name".into()));
        let last = s.terminal.entries.back().unwrap();
        assert_eq!(last.prompt, "$ kubectl get ns $NS -o name");
        assert_eq!(last.stdout, "namespace/kube-system\n");
        let s = reduce(s, Action::RunKubectl("clear".into()));
        assert!(s.terminal.entries.is_empty());
        assert_eq!(
            s.terminal.history,
            vec![
                "kubectl get pods",
                "sim why deployment/nope",
                "export NS=\"$(echo kube-system)\"",
                "get ns $NS -o name",
                "clear"
            ]
        );
    }
}
