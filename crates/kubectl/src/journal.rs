//! The session's history: every input it was given, in order, with the simulated
//! time it came at, and copies of the session taken along the way. The simulation is
//! deterministic, so a copy plus the inputs after it rebuild the session at any
//! moment since the history began: that is how `sim rewind` and the browser's time
//! slider go back.
//!
//! Inputs are terminal lines (with the files they read and their stdin), faults
//! (kill a zone, stop a component) and plain clock advances. The inspector's reads
//! are not inputs: they change nothing a learner sees but the reception log.
//!
//! Going back keeps the inputs that came after as the *future*: playing the clock
//! again replays them, so scrubbing back and forth shows the same history; the next
//! new input drops the future and the history forks there.
//!
//! Limits: at most [`MAX_ENTRIES`] inputs and [`MAX_INPUT_BYTES`] of lines, stdin
//! and files; past either the oldest inputs are folded into the history's start (a
//! copy taken later), so the earliest moments can no longer be reached. At most
//! [`MAX_COPIES`] copies are kept besides the start; older ones are thinned out.

use std::cell::RefCell;
use std::collections::VecDeque;

use warehouse_sim::{Cluster, Fault, SimDuration, SimTime};

use crate::context::FileSource;
use crate::{cmd::config::Kubeconfig, shell::ShellState, Session};

/// The most inputs a history keeps.
pub const MAX_ENTRIES: usize = 20_000;
/// The most bytes of lines, stdin and files a history keeps.
pub const MAX_INPUT_BYTES: usize = 8 << 20;
/// The most copies of the session kept besides the history's start.
pub const MAX_COPIES: usize = 8;
/// How much simulated time passes between two copies, at least: once a minute
/// for a cluster of up to [`OBJECTS_PER_MINUTE`] objects, proportionally less
/// often for a bigger one, so that the copies of a big cluster do not hold many
/// times its memory (going back then replays more).
pub const COPY_EVERY: SimDuration = SimDuration::secs(60);
/// See [`COPY_EVERY`].
pub const OBJECTS_PER_MINUTE: usize = 2_000;
/// A copy is taken sooner when this many writes happened since the last one (a
/// big Deployment converging): replaying them is what makes going back slow.
pub const COPY_AFTER_WRITES: u64 = 20_000;

/// One thing done to the session.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// A terminal line (`run_shell`), with its stdin and the files it read.
    Shell {
        line: String,
        stdin: Option<String>,
        files: Vec<FileRead>,
    },
    /// A kubectl line without the leading `kubectl` (`run`).
    Kubectl {
        line: String,
        stdin: Option<String>,
        files: Vec<FileRead>,
    },
    /// Something happening to the warehouse (a zone killed, a component stopped).
    Fault(Fault),
    /// The clock moved on.
    Advance(SimDuration),
}

/// What a line read through its [`FileSource`]: a file's text (or why it could not
/// be read), or a directory's listing.
#[derive(Clone, Debug, PartialEq)]
pub enum FileRead {
    File(String, Result<String, String>),
    Dir(String, bool, Option<Vec<String>>),
}

impl Input {
    fn bytes(&self) -> usize {
        let files = |files: &[FileRead]| -> usize {
            files
                .iter()
                .map(|f| match f {
                    FileRead::File(p, Ok(t) | Err(t)) => p.len() + t.len(),
                    FileRead::Dir(p, _, list) => {
                        p.len() + list.iter().flatten().map(String::len).sum::<usize>()
                    }
                })
                .sum()
        };
        match self {
            Input::Shell {
                line,
                stdin,
                files: f,
            }
            | Input::Kubectl {
                line,
                stdin,
                files: f,
            } => line.len() + stdin.as_ref().map_or(0, String::len) + files(f),
            Input::Fault(_) | Input::Advance(_) => 16,
        }
    }
}

/// An input and the simulated time it came at and ended at.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub at: SimTime,
    pub until: SimTime,
    pub input: Input,
}

/// The parts of a session an input can change.
struct Saved {
    cluster: Cluster,
    namespace: String,
    kubeconfig: Kubeconfig,
    shell: ShellState,
}

impl Clone for Saved {
    fn clone(&self) -> Saved {
        Saved {
            cluster: self.cluster.copy_as_restored(),
            namespace: self.namespace.clone(),
            kubeconfig: self.kubeconfig.clone(),
            shell: self.shell.clone(),
        }
    }
}

impl Saved {
    fn of(s: &Session) -> Saved {
        Saved {
            cluster: s.cluster.copy_as_restored(),
            namespace: s.namespace.clone(),
            kubeconfig: s.kubeconfig.clone(),
            shell: s.shell.clone(),
        }
    }

    fn restore_into(&self, s: &mut Session) {
        s.cluster = self.cluster.copy_as_restored();
        s.namespace = self.namespace.clone();
        s.kubeconfig = self.kubeconfig.clone();
        s.shell = self.shell.clone();
    }
}

/// The most timers one [`Session::step`] fires looking for something to happen.
pub const STEP_MAX_TIMERS: usize = 10_000;

/// What [`Session::step`] did: how far the clock moved, and the first thing that
/// happened (`None`: nothing did within the time allowed).
#[derive(Clone, Debug)]
pub struct Stepped {
    pub by: SimDuration,
    pub first: Option<warehouse_sim::views::feed::FeedEvent>,
}

/// Runs the clock timer by timer, each move through `advance` (a lesson's runner
/// fires its incidents on the way), until a timer makes a request, a write or an
/// order (the change feed grows), or `within` has passed, or [`STEP_MAX_TIMERS`]
/// timers fired.
pub fn step_with(
    session: &mut Session,
    within: SimDuration,
    mut advance: impl FnMut(&mut Session, SimDuration),
) -> Stepped {
    let start = session.cluster.now();
    let deadline = start + within;
    let seen = session.cluster.feed_since(u64::MAX).next;
    for _ in 0..STEP_MAX_TIMERS {
        let now = session.cluster.now();
        let Some(at) = session.cluster.next_timer_at().filter(|at| *at <= deadline) else {
            advance(session, deadline.since(now));
            break;
        };
        advance(session, at.since(now));
        if let Some(first) = session.cluster.feed_since(seen).events.next() {
            return Stepped {
                by: session.cluster.now().since(start),
                first: Some(first.clone()),
            };
        }
    }
    Stepped {
        by: session.cluster.now().since(start),
        first: None,
    }
}

/// A copy of the session after the first `applied` inputs of the history.
#[derive(Clone)]
struct Mark {
    applied: usize,
    at: SimTime,
    /// The store's revision then.
    revision: u64,
    copy: Saved,
}

/// The session's history. Not part of what it copies.
#[derive(Clone, Default)]
pub struct Journal {
    /// The session when the history starts; `None` until the first input.
    start: Option<Mark>,
    entries: Vec<Entry>,
    /// Copies taken after the start, oldest first.
    marks: Vec<Mark>,
    /// Inputs after the moment shown, kept until a new input forks the history.
    future: VecDeque<Entry>,
    /// Set while inputs are being replayed (they are not recorded again).
    replaying: bool,
    /// Set while an input runs (what it does inside is part of it).
    recording: bool,
    /// The last advance stopped at the timer guard (the next is not merged in).
    stopped_early: bool,
    /// The start was moved later to keep the limits: the history no longer starts
    /// where the session did.
    folded: bool,
    /// Something outside the history happened at this moment ([`Session::mark`]):
    /// the next advance is an entry of its own.
    marked: bool,
    /// The fewest inputs other than clock steps ([`Journal::inputs`]) the history
    /// held when it forked (dropped its future) since [`Session::take_fork`] last
    /// looked.
    forked_at: Option<usize>,
}

/// Where a rewind landed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rewound {
    /// The simulated time now shown.
    pub now: SimTime,
    /// The earliest moment the history can still reach.
    pub earliest: SimTime,
}

impl Journal {
    /// The earliest moment the history reaches (`None`: nothing recorded yet).
    pub fn earliest(&self) -> Option<SimTime> {
        self.start.as_ref().map(|m| m.at)
    }

    /// The latest moment recorded, future included.
    pub fn latest(&self) -> Option<SimTime> {
        self.future
            .back()
            .or(self.entries.last())
            .map(|e| e.until)
            .or(self.earliest())
    }

    /// The inputs recorded so far (not the future).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// How many inputs other than clock steps were recorded so far: unlike the
    /// entries' count, a rewind does not change it (it cuts clock steps in two).
    pub fn inputs(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| !matches!(e.input, Input::Advance(_)))
            .count()
    }

    /// How many inputs wait to be replayed.
    pub fn future_len(&self) -> usize {
        self.future.len()
    }

    /// Forgets everything: the session was replaced by one with another origin.
    pub fn clear(&mut self) {
        *self = Journal::default();
    }
}

/// A [`FileSource`] that notes what it was asked and answered.
struct Recording<'a> {
    inner: &'a dyn FileSource,
    reads: RefCell<Vec<FileRead>>,
}

impl FileSource for Recording<'_> {
    fn read(&self, path: &str) -> Result<String, String> {
        let answer = self.inner.read(path);
        self.reads
            .borrow_mut()
            .push(FileRead::File(path.to_string(), answer.clone()));
        answer
    }

    fn list_dir(&self, path: &str, recursive: bool) -> Option<Vec<String>> {
        let answer = self.inner.list_dir(path, recursive);
        self.reads
            .borrow_mut()
            .push(FileRead::Dir(path.to_string(), recursive, answer.clone()));
        answer
    }
}

/// A [`FileSource`] answering with what a recorded line read.
struct Replayed<'a>(&'a [FileRead]);

impl FileSource for Replayed<'_> {
    fn read(&self, path: &str) -> Result<String, String> {
        self.0
            .iter()
            .find_map(|f| match f {
                FileRead::File(p, answer) if p == path => Some(answer.clone()),
                _ => None,
            })
            .unwrap_or_else(|| Err(format!("the path \"{path}\" does not exist")))
    }

    fn list_dir(&self, path: &str, recursive: bool) -> Option<Vec<String>> {
        self.0.iter().find_map(|f| match f {
            FileRead::Dir(p, r, answer) if p == path && *r == recursive => answer.clone(),
            _ => None,
        })
    }
}

impl Session {
    /// Runs `f` as one recorded input: the files it reads through the given source
    /// are noted, and the input is added to the history with the time it took.
    pub(crate) fn recorded<T>(
        &mut self,
        files: &dyn FileSource,
        make: impl FnOnce(Vec<FileRead>) -> Input,
        f: impl FnOnce(&mut Session, &dyn FileSource) -> T,
    ) -> T {
        if self.journal.replaying || self.journal.recording {
            return f(self, files);
        }
        self.before_input();
        let at = self.cluster.now();
        let recording = Recording {
            inner: files,
            reads: RefCell::new(Vec::new()),
        };
        self.journal.recording = true;
        let out = f(self, &recording);
        self.journal.recording = false;
        let input = make(recording.reads.into_inner());
        self.after_input(at, input);
        out
    }

    /// Advances the clock by `by`, as an input of the history. After a rewind the
    /// clock replays the inputs that came next instead, up to the new time.
    pub fn advance(&mut self, by: SimDuration) -> warehouse_sim::Advanced {
        if self.journal.replaying || self.journal.recording {
            return self.cluster.advance(by);
        }
        let target = self.cluster.now() + by;
        if !self.journal.future.is_empty() {
            self.replay_future(target);
            let rest = target.since(self.cluster.now());
            if self.journal.future.is_empty() && rest > SimDuration::ZERO {
                return self.advance(rest);
            }
            return warehouse_sim::Advanced {
                fired: 0,
                stopped_early: false,
            };
        }
        self.before_input();
        let at = self.cluster.now();
        let advanced = self.cluster.advance(by);
        let until = self.cluster.now();
        // Successive advances are one input: the simulation reaches the same state
        // by one long advance as by many short ones (unless a copy was taken
        // between them: it stands after the first).
        let applied = self.journal.entries.len();
        let copied_since = self
            .journal
            .marks
            .last()
            .is_some_and(|m| m.applied == applied);
        match self.journal.entries.last_mut() {
            Some(Entry {
                until: last_until,
                input: Input::Advance(d),
                ..
            }) if *last_until == at
                && !advanced.stopped_early
                && !self.journal.stopped_early
                && !self.journal.marked
                && !copied_since =>
            {
                *d = *d + until.since(at);
                *last_until = until;
            }
            _ => self.after_input(at, Input::Advance(until.since(at))),
        }
        self.journal.stopped_early = advanced.stopped_early;
        self.take_copy_if_due();
        advanced
    }

    /// Runs the clock to the next thing that happens (see [`step_with`]), by
    /// ordinary [`Session::advance`]s, so the history holds it like any other move.
    pub fn step(&mut self, within: SimDuration) -> Stepped {
        step_with(self, within, |s, by| {
            s.advance(by);
        })
    }

    /// Something happens to the warehouse, as an input of the history.
    pub fn fault(&mut self, fault: Fault) -> Result<String, warehouse_sim::SimError> {
        if self.journal.replaying || self.journal.recording {
            return self.cluster.fault(fault);
        }
        self.before_input();
        let at = self.cluster.now();
        let out = self.cluster.fault(fault.clone());
        self.after_input(at, Input::Fault(fault));
        out
    }

    /// Marks this moment as one where something outside the history happens (a
    /// lesson's step opens): the inputs after a rewind are dropped (the history
    /// forks here) and the next advance starts an entry of its own, so the moment
    /// sits between two entries. Returns how many entries come before it, the
    /// place [`Session::import_with`] calls back at.
    pub fn mark(&mut self) -> usize {
        self.drop_future();
        self.journal.marked = true;
        self.journal.entries.len()
    }

    /// The inputs after the moment shown are dropped: the history forks here.
    fn drop_future(&mut self) {
        if !self.journal.future.is_empty() {
            let at = self.journal.inputs();
            self.journal.forked_at = Some(self.journal.forked_at.map_or(at, |f| f.min(at)));
            self.journal.future.clear();
        }
    }

    /// Where the history forked since the last look, if it did: how many inputs
    /// other than clock steps it kept then (the fewest, if it forked more than
    /// once). What a caller noted about the inputs after that (a lesson's
    /// incidents) is gone.
    pub fn take_fork(&mut self) -> Option<usize> {
        self.journal.forked_at.take()
    }

    /// A new input comes: the history forks here, and its start is taken on the
    /// first one.
    fn before_input(&mut self) {
        self.drop_future();
        if self.journal.start.is_none() {
            self.journal.start = Some(Mark {
                applied: 0,
                at: self.cluster.now(),
                revision: self.cluster.revision(),
                copy: Saved::of(self),
            });
        }
    }

    fn after_input(&mut self, at: SimTime, input: Input) {
        self.journal.marked = false;
        let until = self.cluster.now();
        self.journal.entries.push(Entry { at, until, input });
        self.fold_oldest();
        self.take_copy_if_due();
    }

    /// Keeps the history within its limits by moving its start later.
    fn fold_oldest(&mut self) {
        let bytes = |entries: &[Entry]| entries.iter().map(|e| e.input.bytes()).sum::<usize>();
        while self.journal.entries.len() > MAX_ENTRIES
            || bytes(&self.journal.entries) > MAX_INPUT_BYTES
        {
            // The oldest copy becomes the start; without one, take one now.
            if self.journal.marks.is_empty() {
                let applied = self.journal.entries.len();
                self.journal.marks.push(Mark {
                    applied,
                    at: self.cluster.now(),
                    revision: self.cluster.revision(),
                    copy: Saved::of(self),
                });
            }
            let mark = self.journal.marks.remove(0);
            let dropped = mark.applied;
            self.journal.entries.drain(..dropped);
            for m in &mut self.journal.marks {
                m.applied -= dropped;
            }
            self.journal.start = Some(Mark { applied: 0, ..mark });
            self.journal.folded = true;
        }
    }

    /// Takes a copy when [`COPY_EVERY`] has passed since the last one, thinning
    /// the copies out (every other old one goes) past [`MAX_COPIES`].
    fn take_copy_if_due(&mut self) {
        let Some(start) = &self.journal.start else {
            return;
        };
        let last = self.journal.marks.last().map_or(start.at, |m| m.at);
        let since = self.cluster.now().since(last);
        if since < COPY_EVERY {
            return;
        }
        let minutes = (self.cluster.objects_stored() / OBJECTS_PER_MINUTE).max(1) as u64;
        let last_revision = self
            .journal
            .marks
            .last()
            .map_or(start.revision, |m| m.revision);
        let writes = self.cluster.revision().saturating_sub(last_revision);
        if since.as_millis() < COPY_EVERY.as_millis().saturating_mul(minutes)
            && writes < COPY_AFTER_WRITES
        {
            return;
        }
        self.journal.marks.push(Mark {
            applied: self.journal.entries.len(),
            at: self.cluster.now(),
            revision: self.cluster.revision(),
            copy: Saved::of(self),
        });
        if self.journal.marks.len() > MAX_COPIES {
            // Keep the newest half as it is; drop every other copy of the rest.
            let keep_from = self.journal.marks.len() / 2;
            let mut i = 0;
            self.journal.marks.retain(|_| {
                let keep = i >= keep_from || i % 2 == 1;
                i += 1;
                keep
            });
        }
    }

    /// Goes back to simulated time `to` (clamped to the history's start): the
    /// session is rebuilt from the latest copy before it and the inputs after that
    /// copy, and what came after `to` is kept as the future.
    pub fn rewind_to(&mut self, to: SimTime) -> Result<Rewound, String> {
        let mut journal = std::mem::take(&mut self.journal);
        let Some(start) = &journal.start else {
            self.journal = journal;
            return Err("nothing has happened yet: there is no history to go back to".into());
        };
        let earliest = start.at;
        let to = to.max(earliest);
        // Everything from the moment shown on is one list again.
        let mut all: Vec<Entry> = std::mem::take(&mut journal.entries);
        all.extend(journal.future.drain(..));
        // The latest copy at or before the target; copies after it are taken again
        // as the history replays.
        let kept = journal
            .marks
            .iter()
            .rposition(|m| m.at <= to && m.applied <= all.len());
        journal.marks.truncate(kept.map_or(0, |i| i + 1));
        let mark = kept.map_or(start, |i| &journal.marks[i]);
        mark.copy.restore_into(self);
        let applied = mark.applied;
        journal.future = all.split_off(applied).into();
        journal.entries = all;
        self.journal = journal;
        self.replay_future(to);
        Ok(Rewound {
            now: self.cluster.now(),
            earliest,
        })
    }

    /// Goes back `by` from now (`sim rewind 90s`).
    pub fn rewind(&mut self, by: SimDuration) -> Result<Rewound, String> {
        let now = self.cluster.now();
        let to = SimTime(now.0.saturating_sub(by.as_millis()));
        self.rewind_to(to)
    }

    /// Replays the future's inputs that came before `to` (one that came at `to`
    /// itself is still ahead: the moment shown is the one just before it); an
    /// advance that crosses `to` is cut there, and a line that ran past `to` is
    /// left for later.
    fn replay_future(&mut self, to: SimTime) {
        self.journal.replaying = true;
        while let Some(next) = self.journal.future.front().cloned() {
            if next.at >= to {
                break;
            }
            match &next.input {
                Input::Advance(_) if next.until > to => {
                    let part = to.since(self.cluster.now());
                    if part > SimDuration::ZERO {
                        self.cluster.advance(part);
                        self.journal.entries.push(Entry {
                            at: next.at,
                            until: self.cluster.now(),
                            input: Input::Advance(part),
                        });
                        if let Some(front) = self.journal.future.front_mut() {
                            front.at = self.cluster.now();
                            front.input = Input::Advance(next.until.since(self.cluster.now()));
                        }
                    }
                    break;
                }
                Input::Shell { .. } | Input::Kubectl { .. } if next.until > to => break,
                _ => {}
            }
            self.journal.future.pop_front();
            self.apply(&next.input);
            self.journal.entries.push(next);
            self.take_copy_if_due();
        }
        self.journal.replaying = false;
    }

    /// Does an input again (while replaying: nothing is recorded).
    fn apply(&mut self, input: &Input) {
        match input {
            Input::Shell { line, stdin, files } => {
                self.run_shell(line, stdin.as_deref(), &Replayed(files));
            }
            Input::Kubectl { line, stdin, files } => {
                self.run(line, stdin.as_deref(), &Replayed(files));
            }
            Input::Fault(f) => {
                let _ = self.cluster.fault(f.clone());
            }
            Input::Advance(d) => {
                self.cluster.advance(*d);
            }
        }
    }
}

/// The version of [`Exported`] this build writes and reads.
pub const EXPORT_VERSION: u32 = 1;

/// The most simulated time an imported history may cover: replaying it is work
/// the importer does at once.
pub const MAX_IMPORTED_SPAN: SimDuration = SimDuration::secs(6 * 3600);

/// A history as plain data, to send elsewhere (a share link) or keep (a reload):
/// the session it starts from is named by `origin` (the importer builds it), and
/// its inputs follow, faults written as their `sim` lines.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Exported {
    pub version: u32,
    /// What the history starts from, e.g. `settled:42` for
    /// [`Session::settled`]`(42)`; the exporter and importer agree on its meaning.
    pub origin: String,
    pub entries: Vec<ExportedEntry>,
}

/// One input of an [`Exported`] history.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExportedEntry {
    /// Simulated milliseconds when it came and when it ended.
    pub at: u64,
    pub until: u64,
    /// `shell`, `kubectl`, `fault` (a `sim` line) or `advance` (milliseconds).
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    /// Files read: (path, text) or (path, null) for a file that could not be read
    /// (the message is not kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<(String, Option<String>)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
}

impl Journal {
    /// The history up to the moment shown (not the future), as data; `origin`
    /// names the session it started from. `None` when nothing happened yet, or
    /// when the history outgrew its limits and no longer starts at the origin.
    pub fn export(&self, origin: &str) -> Option<Exported> {
        if self.folded {
            return None;
        }
        self.start.as_ref()?;
        let entries = self
            .entries
            .iter()
            .map(|e| {
                let mut out = ExportedEntry {
                    at: e.at.0,
                    until: e.until.0,
                    kind: String::new(),
                    line: None,
                    stdin: None,
                    files: Vec::new(),
                    ms: None,
                };
                let files = |f: &[FileRead]| -> Vec<(String, Option<String>)> {
                    f.iter()
                        .filter_map(|r| match r {
                            FileRead::File(p, answer) => Some((p.clone(), answer.clone().ok())),
                            FileRead::Dir(..) => None,
                        })
                        .collect()
                };
                match &e.input {
                    Input::Shell {
                        line,
                        stdin,
                        files: f,
                    }
                    | Input::Kubectl {
                        line,
                        stdin,
                        files: f,
                    } => {
                        out.kind = if matches!(e.input, Input::Shell { .. }) {
                            "shell".into()
                        } else {
                            "kubectl".into()
                        };
                        out.line = Some(line.clone());
                        out.stdin = stdin.clone();
                        out.files = files(f);
                    }
                    Input::Fault(f) => {
                        out.kind = "fault".into();
                        out.line = Some(crate::shell::script::fault_line(f));
                    }
                    Input::Advance(d) => {
                        out.kind = "advance".into();
                        out.ms = Some(d.as_millis());
                    }
                }
                out
            })
            .collect();
        Some(Exported {
            version: EXPORT_VERSION,
            origin: origin.to_string(),
            entries,
        })
    }
}

impl Session {
    /// Replays an exported history on this session, which must be the one its
    /// origin names, as it was built: afterwards the session is where the history
    /// ended, with that history to rewind through. A history that does not fit
    /// (another version, inputs out of order, past the limits) is refused before
    /// anything runs; one that replays differently (made by a simulator that
    /// behaves otherwise) is refused after, so import into a fresh session and
    /// drop it on an error.
    pub fn import(&mut self, history: &Exported) -> Result<(), String> {
        self.import_with(history, &mut |_, _| {})
    }

    /// [`Session::import`], calling `at(session, n)` when the first `n` inputs have
    /// been replayed, for every `n` from 0 to the number of inputs: what happened
    /// outside the history between two inputs (see [`Session::mark`]) is done again
    /// there.
    pub fn import_with(
        &mut self,
        history: &Exported,
        at: &mut dyn FnMut(&mut Session, usize),
    ) -> Result<(), String> {
        if history.version != EXPORT_VERSION {
            return Err(format!(
                "it was written by another version of the simulator (format {}, this one reads {EXPORT_VERSION})",
                history.version
            ));
        }
        if history.entries.len() > MAX_ENTRIES {
            return Err(format!(
                "it holds {} inputs, more than the {MAX_ENTRIES} a history keeps",
                history.entries.len()
            ));
        }
        let mut entries = Vec::with_capacity(history.entries.len());
        let mut clock = self.cluster.now();
        let start = clock;
        for (i, e) in history.entries.iter().enumerate() {
            let n = i + 1;
            if e.at != clock.0 || e.until < e.at {
                return Err(format!("input {n} is out of order in time"));
            }
            let files = e
                .files
                .iter()
                .map(|(p, t)| {
                    FileRead::File(
                        p.clone(),
                        t.clone()
                            .ok_or_else(|| format!("the path \"{p}\" does not exist")),
                    )
                })
                .collect();
            let line = || {
                e.line
                    .clone()
                    .ok_or_else(|| format!("input {n} has no line"))
            };
            let input = match e.kind.as_str() {
                "shell" => Input::Shell {
                    line: line()?,
                    stdin: e.stdin.clone(),
                    files,
                },
                "kubectl" => Input::Kubectl {
                    line: line()?,
                    stdin: e.stdin.clone(),
                    files,
                },
                "fault" => match crate::shell::script::parse_sim(
                    line()?.strip_prefix("sim ").unwrap_or_default(),
                ) {
                    crate::shell::script::Action::Fault(f) => Input::Fault(f),
                    _ => return Err(format!("input {n} is not a fault")),
                },
                "advance" => {
                    let ms = e.ms.ok_or_else(|| format!("input {n} has no duration"))?;
                    if e.until.checked_sub(e.at) != Some(ms) {
                        return Err(format!("input {n} is out of order in time"));
                    }
                    Input::Advance(SimDuration::millis(ms))
                }
                other => return Err(format!("input {n} is of an unknown kind \"{other}\"")),
            };
            clock = SimTime(e.until);
            entries.push(Entry {
                at: SimTime(e.at),
                until: SimTime(e.until),
                input,
            });
        }
        if clock.since(start) > MAX_IMPORTED_SPAN {
            return Err(format!(
                "it covers {}, more than the {} an imported history may",
                crate::printers::humanize::human_duration(clock.since(start).as_millis() as i64),
                crate::printers::humanize::human_duration(MAX_IMPORTED_SPAN.as_millis() as i64),
            ));
        }
        let bytes: usize = entries.iter().map(|e| e.input.bytes()).sum();
        if bytes > MAX_INPUT_BYTES {
            return Err(format!(
                "it holds {bytes} bytes of lines and files, more than the {MAX_INPUT_BYTES} a history keeps"
            ));
        }
        let Some(last) = entries.last().map(|e| e.until) else {
            at(self, 0);
            return Ok(());
        };
        self.journal = Journal::default();
        self.before_input();
        let count = entries.len();
        self.journal.future = entries.into();
        for n in 0..count {
            at(self, n);
            let Some(next) = self.journal.future.pop_front() else {
                break;
            };
            self.journal.replaying = true;
            self.apply(&next.input);
            let until = next.until;
            self.journal.entries.push(next);
            self.take_copy_if_due();
            self.journal.replaying = false;
            if self.cluster.now() != until {
                return Err(
                    "it does not replay the same way on this version of the simulator".into(),
                );
            }
        }
        at(self, count);
        if self.cluster.now() != last || !self.journal.future.is_empty() {
            return Err("it does not replay the same way on this version of the simulator".into());
        }
        Ok(())
    }
}
