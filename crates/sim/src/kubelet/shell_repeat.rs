//! Steady loops, skipped ahead: a replay runs a container's script from its start, so a
//! `while true` loop that has run for days would cost days of iterations on every
//! replay (each exec probe replays the main process to read its files). When an
//! iteration starts in exactly the state the one before started in (files, variables,
//! status, pending output) and read nothing from outside (no `date`, no program
//! outside the shell), every later iteration repeats it: the replay moves the clock
//! ahead by whole iterations, writes their lines with their own timestamps, and runs
//! the last ones as usual. The result is what running every iteration gives, for
//! O(log n) comparisons. Skipped iterations run no command, so they use none of the
//! replay's budget.

use super::{Shell, MAX_LINES};
use std::collections::BTreeMap;

/// What a loop remembers to notice that its iterations repeat.
#[derive(Default)]
pub(super) struct Repeats {
    iterations: u64,
    /// The start of an earlier iteration (the 1st, 2nd, 4th, 8th, ...).
    sample: Option<Sample>,
    skipped: bool,
}

/// A loop iteration's starting state, and where the replay stood then.
struct Sample {
    files: BTreeMap<String, String>,
    vars: BTreeMap<String, String>,
    exported: Vec<String>,
    args: Vec<String>,
    status: i32,
    last: i32,
    partial: String,
    captures: Vec<String>,
    clock: u64,
    pushed: u64,
    outside_reads: u64,
}

impl Sample {
    fn of(sh: &Shell, last: i32) -> Sample {
        Sample {
            files: sh.files.clone(),
            vars: sh.vars.clone(),
            exported: sh.exported.clone(),
            args: sh.args.clone(),
            status: sh.status,
            last,
            partial: sh.partial.clone(),
            captures: sh.captures.clone(),
            clock: sh.clock,
            pushed: sh.pushed,
            outside_reads: sh.outside_reads,
        }
    }

    /// Whether the iteration since this sample read nothing from outside and left the
    /// shell as it found it.
    fn repeats(&self, sh: &Shell, last: i32) -> bool {
        self.outside_reads == sh.outside_reads
            && self.status == sh.status
            && self.last == last
            && self.partial == sh.partial
            && self.files == sh.files
            && self.vars == sh.vars
            && self.exported == sh.exported
            && self.args == sh.args
            && self.captures == sh.captures
    }
}

impl Shell<'_> {
    /// Called as each iteration of a loop starts (`last`: the loop's status so far).
    pub(super) fn skip_repeats(&mut self, r: &mut Repeats, last: i32) {
        if r.skipped {
            return;
        }
        r.iterations += 1;
        if let Some(s) = r.sample.take() {
            if self.clock > s.clock && s.repeats(self, last) {
                let period = self.clock - s.clock;
                // Whole iterations that end before the horizon, but the last one.
                let skip = (self.horizon.saturating_sub(self.clock) / period).saturating_sub(1);
                let per_iteration = self.pushed - s.pushed;
                if skip > 0 && per_iteration <= self.lines.len() as u64 {
                    self.repeat_lines(per_iteration as usize, period, skip);
                    self.clock += skip * period;
                    r.skipped = true;
                    return;
                }
            }
        }
        if r.iterations.is_power_of_two() {
            r.sample = Some(Sample::of(self, last));
        }
    }

    /// Writes the lines of the latest iteration `skip` more times, `period` apart; only
    /// as many copies as the log keeps.
    fn repeat_lines(&mut self, per_iteration: usize, period: u64, skip: u64) {
        if per_iteration == 0 {
            return;
        }
        let template: Vec<(u64, String)> = self
            .lines
            .iter()
            .skip(self.lines.len() - per_iteration)
            .cloned()
            .collect();
        let kept = (MAX_LINES.div_ceil(per_iteration) as u64).min(skip);
        for copy in (skip - kept + 1)..=skip {
            for (at, text) in &template {
                self.log_at(at + copy * period, text.clone());
            }
        }
        self.pushed += per_iteration as u64 * skip;
    }
}
