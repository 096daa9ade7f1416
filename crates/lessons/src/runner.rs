//! A lesson in progress: which step is open, the copy of the cluster "reset this
//! step" returns to, the step's incidents, and its check evaluated only when the cluster changed.
//! The browser and `lessons check` drive lessons through this same type.

use crate::check::{self, CheckResult};
use crate::frames::{self, Frame, Miss, Origin};
use crate::model::Lesson;
use std::collections::BTreeMap;
use warehouse_kubectl::shell::script::{self, Action};
use warehouse_kubectl::{CommandOutput, FileSource, Session};
use warehouse_sim::{Cluster, SimDuration, SimTime};

/// What the cluster and the shell were when a step opened. The cluster is held as a
/// restore of its snapshot would give it ([`Cluster::copy_as_restored`]), without
/// the bytes: the browser build carries no snapshot decoder.
#[derive(Clone)]
struct StepSnapshot {
    cluster: std::sync::Arc<Cluster>,
    namespace: String,
    shell: warehouse_kubectl::shell::ShellState,
    kubeconfig: warehouse_kubectl::cmd::config::Kubeconfig,
}

/// An incident's command that ran, and what it printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fired {
    pub command: String,
    pub output: CommandOutput,
}

#[derive(Clone, Default)]
pub struct Runner {
    step: usize,
    opened_at: SimTime,
    /// Incidents of the open step already run, in order: how many inputs the
    /// session's history held after each (`Journal::inputs`), so that after a
    /// rewind and a new input (the history forked) the ones it dropped run again
    /// when due.
    fired: Vec<usize>,
    snapshot: Option<StepSnapshot>,
    /// The last check result and the (revision, time) it was computed at.
    cache: Option<((u64, u64), CheckResult)>,
    /// How many times a check was evaluated (the cache's misses).
    evaluations: u64,
    /// When each step first opened (time and change-feed position): where the frames
    /// after it start looking. "Reset this step" moves it to the restored cluster.
    origins: BTreeMap<usize, Origin>,
    /// Frames found, by step: a moment once found stays as it was shown.
    frames: BTreeMap<usize, Frame>,
}

impl Runner {
    /// The open step (0-based).
    pub fn step(&self) -> usize {
        self.step
    }

    /// When the open step opened.
    pub fn opened_at(&self) -> SimTime {
        self.opened_at
    }

    /// The open step's incidents that have run: how many inputs the session's
    /// history held after each (`Journal::inputs`).
    pub fn fired(&self) -> &[usize] {
        &self.fired
    }

    /// After the cluster was rebuilt from its history (a reload, a shared link):
    /// these of the open step's incidents already ran, and are in that history.
    pub fn set_fired(&mut self, fired: Vec<usize>) {
        self.fired = fired;
    }

    /// After the session's history forked (a new input after a rewind): the
    /// incidents whose inputs it dropped are due again. Ones a rewind only moved
    /// ahead stay run: playing the clock replays them.
    pub fn after_rewind(&mut self, session: &mut Session) {
        if let Some(kept) = session.take_fork() {
            self.fired.retain(|&n| n <= kept);
        }
    }

    /// How many times a check was really evaluated (not served from the cache).
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    /// Opens a step: remembers the cluster for "reset this step" and arms its
    /// incidents.
    pub fn open(&mut self, session: &Session, step: usize) {
        self.step = step;
        self.opened_at = session.cluster.now();
        self.origins.entry(step).or_insert(Origin {
            at_ms: self.opened_at.0,
            seq: session.cluster.feed_since(u64::MAX).next,
        });
        self.fired.clear();
        self.cache = None;
        self.snapshot = Some(StepSnapshot {
            cluster: std::sync::Arc::new(session.cluster.copy_as_restored()),
            namespace: session.namespace.clone(),
            shell: session.shell.clone(),
            kubeconfig: session.kubeconfig.clone(),
        });
    }

    /// Puts the cluster and the shell back as they were when the step opened, and
    /// arms its incidents again.
    pub fn reset(&mut self, session: &mut Session) -> Result<(), String> {
        let Some(s) = self.snapshot.clone() else {
            return Err("no step is open".into());
        };
        session.cluster = s.cluster.copy_as_restored();
        session.namespace = s.namespace;
        session.shell = s.shell;
        session.kubeconfig = s.kubeconfig;
        self.fired.clear();
        self.cache = None;
        // A restored cluster starts a new change feed: what this step and the frames
        // after it show is what happens from now on.
        self.origins.insert(
            self.step,
            Origin {
                at_ms: session.cluster.now().0,
                seq: session.cluster.feed_since(u64::MAX).next,
            },
        );
        let step = self.step;
        self.frames.retain(|&k, _| k < step);
        Ok(())
    }

    /// The moment the open step's ```` ```frame ```` shows: the frames since the last
    /// step without one opened are matched in order. `None` for a step without a frame.
    pub fn frame(&mut self, lesson: &Lesson, session: &Session) -> Option<Result<Frame, Miss>> {
        let k = self.step;
        lesson.steps.get(k)?.frame.as_ref()?;
        if let Some(f) = self.frames.get(&k) {
            return Some(Ok(f.clone()));
        }
        let (anchor, origin) = self.chain_start(lesson, k);
        let chain: Vec<usize> = (anchor..=k)
            .filter(|&j| lesson.steps[j].frame.is_some())
            .collect();
        let specs: Vec<_> = chain
            .iter()
            .filter_map(|&j| lesson.steps[j].frame.as_ref())
            .collect();
        let mut found = frames::resolve(&session.cluster, origin, &specs);
        for (&j, r) in chain.iter().zip(&found) {
            if let Ok(f) = r {
                self.frames.entry(j).or_insert_with(|| f.clone());
            }
        }
        found.pop()
    }

    /// The step a frame step's chain starts from (the last step before `k` without a
    /// frame) and where its moments are looked for: when that step first opened.
    fn chain_start(&self, lesson: &Lesson, k: usize) -> (usize, Origin) {
        let anchor = (0..k)
            .rev()
            .find(|&j| lesson.steps[j].frame.is_none())
            .unwrap_or(0);
        (
            anchor,
            self.origins.get(&anchor).copied().unwrap_or_default(),
        )
    }

    /// Where the open step's frame looks from: after the last frame of its chain that
    /// matched, or the origin (for `lessons check`'s listing of what did happen).
    pub fn frame_search_start(&self, lesson: &Lesson) -> Origin {
        let k = self.step;
        let (anchor, origin) = self.chain_start(lesson, k);
        let last = (anchor..k).rev().find_map(|j| self.frames.get(&j));
        Origin {
            at_ms: origin.at_ms,
            seq: last.map_or(origin.seq, |f| f.next_seq),
        }
    }

    /// When the open step's next incident is due, and its command.
    pub fn next_incident<'l>(&self, lesson: &'l Lesson) -> Option<(SimTime, &'l str)> {
        let step = lesson.steps.get(self.step)?;
        let i = step.incidents.get(self.fired.len())?;
        Some((self.opened_at + i.at, i.run.as_str()))
    }

    /// Runs the incidents that are due by now.
    pub fn fire_due(
        &mut self,
        lesson: &Lesson,
        session: &mut Session,
        files: &dyn FileSource,
    ) -> Vec<Fired> {
        self.after_rewind(session);
        let mut fired = Vec::new();
        while let Some((due, command)) = self.next_incident(lesson) {
            if due > session.cluster.now() {
                break;
            }
            let command = command.to_string();
            let output = run_line(session, &command, files);
            self.fired.push(session.journal().inputs());
            fired.push(Fired { command, output });
        }
        fired
    }

    /// Moves simulated time forward, stopping at each incident that falls due on the
    /// way to run it at its time.
    pub fn advance(
        &mut self,
        lesson: &Lesson,
        session: &mut Session,
        by: SimDuration,
        files: &dyn FileSource,
    ) -> Vec<Fired> {
        let target = session.cluster.now() + by;
        let mut fired = self.fire_due(lesson, session, files);
        while let Some((due, _)) = self.next_incident(lesson) {
            if due > target {
                break;
            }
            let now = session.cluster.now();
            session.advance(due.since(now));
            if session.cluster.now() < due {
                // Replaying a rewound history: the clock waits for a line that
                // took longer than this step.
                return fired;
            }
            fired.extend(self.fire_due(lesson, session, files));
        }
        let now = session.cluster.now();
        if target > now {
            session.advance(target.since(now));
        }
        fired
    }

    /// The open step's check, evaluated again only when the store's revision or the
    /// clock moved since the last time. `None` for a step without a check.
    pub fn check(
        &mut self,
        lesson: &Lesson,
        session: &mut Session,
        files: &dyn FileSource,
    ) -> Option<&CheckResult> {
        let check = lesson.steps.get(self.step)?.check.as_ref()?;
        let key = (session.cluster.revision(), session.cluster.now().0);
        if self.cache.as_ref().map(|(k, _)| *k) != Some(key) {
            let result = check::evaluate(session, check, files);
            self.evaluations += 1;
            // Evaluating only reads, so the key still holds.
            self.cache = Some((key, result));
        }
        self.cache.as_ref().map(|(_, r)| r)
    }
}

/// Runs one line as the terminal would (`sim ...` lines included).
pub fn run_line(session: &mut Session, line: &str, files: &dyn FileSource) -> CommandOutput {
    match script::parse(line) {
        Ok(steps) => {
            let mut out = CommandOutput::default();
            for step in steps {
                let o = script::execute(session, &step, files);
                out.stdout.push_str(&o.combined());
                out.code = o.code;
                if let Action::Invalid(_) = step.action {
                    out.code = out.code.max(1);
                }
            }
            out
        }
        Err(e) => CommandOutput::error(e.message),
    }
}
