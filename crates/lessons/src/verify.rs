//! `warehouse lessons check`: a lesson is a test. Both languages must parse and
//! agree on everything but their words; every command must parse; setup must run;
//! then, step by step, the check must fail before the solution runs (a check that
//! already passes teaches nothing) and pass after it within its time.

use crate::check::{self, lint_line, Use};
use crate::error::LessonError;
use crate::model::*;
use crate::parse::parse_lesson;
use crate::runner::Runner;
use crate::session::{self, fmt_duration};
use std::collections::BTreeMap;
use warehouse_kubectl::shell::script::{self, Action};
use warehouse_kubectl::{FileSource, MemoryFiles};
use warehouse_sim::SimDuration;
use warehouse_sim::StableSort;

/// How often `lessons check` looks at a check while it waits for it to pass.
pub const POLL: SimDuration = SimDuration::secs(1);

/// A lesson folder's files, read by the caller.
#[derive(Clone, Debug, Default)]
pub struct LessonSource {
    /// The folder as shown in messages (`lessons/01-desired-state`).
    pub dir: String,
    pub en: Option<String>,
    pub ru: Option<String>,
    /// Other files of the folder by name (the manifests `files:` lists).
    pub files: BTreeMap<String, String>,
}

/// What a verified lesson holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    pub id: String,
    pub steps: usize,
    pub conditions: usize,
    /// Near-misses the checks refused, alternatives they accepted.
    pub near_misses: usize,
    pub alternatives: usize,
    /// Simulated time the replay took, setup included.
    pub sim_time: SimDuration,
    /// Each walkthrough step's moment (its 1-based number and the frame).
    pub frames: Vec<(usize, crate::Frame)>,
}

/// The files a lesson's commands can read: those its front matter lists.
pub fn lesson_files(meta: &Meta, source: &BTreeMap<String, String>) -> MemoryFiles {
    let mut files = BTreeMap::new();
    for name in &meta.files {
        if let Some(text) = source.get(name) {
            files.insert(name.clone(), text.clone());
        }
    }
    MemoryFiles(files)
}

/// Verifies one lesson folder.
pub fn verify(source: &LessonSource) -> Result<Verified, Vec<LessonError>> {
    let en_file = format!("{}/en.md", source.dir);
    let ru_file = format!("{}/ru.md", source.dir);
    let mut errors = Vec::new();
    let mut parsed = |file: &str, text: &Option<String>| match text {
        None => {
            errors.push(LessonError::new(
                file,
                1,
                0,
                "the file is missing: every lesson has en.md and ru.md",
            ));
            None
        }
        Some(t) => match parse_lesson(file, t) {
            Ok(l) => Some(l),
            Err(mut e) => {
                errors.append(&mut e);
                None
            }
        },
    };
    let en = parsed(&en_file, &source.en);
    let ru = parsed(&ru_file, &source.ru);
    let (Some(en), Some(ru)) = (en, ru) else {
        return Err(errors);
    };
    compare(&en, &ru, &mut errors);
    for name in &en.meta.files {
        if !source.files.contains_key(name) {
            errors.push(LessonError::new(
                &en_file,
                2,
                0,
                format!(
                    "files lists {name}, but {}/{name} does not exist",
                    source.dir
                ),
            ));
        }
    }
    lint(&en, &mut errors);
    yaml_blocks_match_files(&en, &source.files, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let files = lesson_files(&en.meta, &source.files);
    replay(&en, &files).map_err(|e| vec![e])
}

/// The cluster as a learner finds it when step `step` (0-based) opens: the
/// lesson's setup run, then each earlier step replayed as `lessons check` replays
/// it (its incidents, its solution, its predicts' time, its check given its
/// `within`). For an author trying a lesson from the CLI (`warehouse repl
/// --lesson DIR --step N`). A replay that fails is an error at its line.
pub fn open_step(
    lesson: &Lesson,
    files: &dyn FileSource,
    step: usize,
) -> Result<(warehouse_kubectl::Session, Runner), LessonError> {
    let file = &lesson.file;
    let mut session = session::start(file, &lesson.meta, files)?;
    let mut runner = Runner::default();
    for (i, s) in lesson.steps.iter().enumerate().take(step) {
        runner.open(&session, i);
        runner.fire_due(lesson, &mut session, files);
        if let Some(solution) = &s.solution {
            run_answer(
                lesson,
                &mut session,
                &mut runner,
                files,
                i + 1,
                "solution",
                solution,
                true,
            )?;
        }
        for p in s.predicts() {
            let fired = runner.advance(lesson, &mut session, p.advance, files);
            fired_failure(file, p.line, &fired)?;
        }
        if let Some(check) = &s.check {
            if let Some(result) = wait_for_check(lesson, &mut session, &mut runner, files, check)? {
                return Err(LessonError::new(
                    file,
                    check.line,
                    0,
                    format!(
                        "step {} ({}): the check does not pass {} after the solution:\n{}",
                        i + 1,
                        s.title,
                        within_words(check),
                        result.explain_failures().trim_end()
                    ),
                ));
            }
        }
    }
    if step < lesson.steps.len() {
        runner.open(&session, step);
        runner.fire_due(lesson, &mut session, files);
    }
    Ok((session, runner))
}

/// A YAML block that shows the same objects as one of the lesson's files must show
/// the file as it is: "open in editor" applies the block, `-f FILE` the file.
fn yaml_blocks_match_files(
    lesson: &Lesson,
    files: &BTreeMap<String, String>,
    errors: &mut Vec<LessonError>,
) {
    let keys = |text: &str| -> Option<Vec<String>> {
        let objects = warehouse_sim::decode_manifests(text).ok()?;
        let mut k: Vec<String> = objects
            .iter()
            .map(|o| {
                let key = o.key();
                format!("{:?}/{}/{}", key.kind, key.namespace, key.name)
            })
            .collect();
        k.stable_sort();
        Some(k)
    };
    let blocks = lesson
        .intro
        .iter()
        .chain(lesson.steps.iter().flat_map(|s| s.blocks.iter()));
    for block in blocks {
        let Block::Yaml { line, text } = block else {
            continue;
        };
        let Some(block_keys) = keys(text) else {
            continue;
        };
        // The files showing the same objects: the block must be one of them (two
        // files may hold two versions of one object).
        let same: Vec<(&String, &String)> = lesson
            .meta
            .files
            .iter()
            .filter_map(|name| Some((name, files.get(name)?)))
            .filter(|(_, file_text)| keys(file_text).as_ref() == Some(&block_keys))
            .collect();
        let any_equal = same
            .iter()
            .any(|(_, file_text)| file_text.trim_end() == text.trim_end());
        if let (Some((name, _)), false) = (same.first(), any_equal) {
            errors.push(LessonError::new(
                &lesson.file,
                *line,
                0,
                format!("this YAML block shows the objects of {name} but differs from it; keep them the same (the editor applies the block, `-f {name}` the file)"),
            ));
        }
    }
}

/// Where two blocks' texts first differ, for an author: the line here (Russian)
/// and the line in English, each with its file line. `ru_fence`/`en_fence` are
/// the lines of the opening fences (the text starts on the line after).
fn first_difference(ru_fence: usize, ru: &str, en_fence: usize, en: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (ru.lines().collect(), en.lines().collect());
    let k = (0..a.len().max(b.len()))
        .find(|&k| a.get(k) != b.get(k))
        .unwrap_or(0);
    let show = |lines: &[&str], fence: usize| match lines.get(k) {
        Some(l) => format!("line {}: {l:?}", fence + 1 + k),
        None => format!("line {}: the block has ended", fence + 1 + k),
    };
    format!(
        "here {}; in English {}",
        show(&a, ru_fence),
        show(&b, en_fence)
    )
}

/// Both languages agree on everything that is not words.
fn compare(en: &Lesson, ru: &Lesson, errors: &mut Vec<LessonError>) {
    let mut differ = |line: usize, what: String| {
        errors.push(LessonError::new(
            &ru.file,
            line,
            0,
            format!("{what}: it must be the same as in {}", en.file),
        ))
    };
    compare_front_matter(&en.meta, &ru.meta, &mut differ);
    if en.steps.len() != ru.steps.len() {
        let line = ru
            .steps
            .get(en.steps.len())
            .map(|s| s.line)
            .unwrap_or_else(|| ru.steps.last().map(|s| s.line).unwrap_or(1));
        differ(
            line,
            format!(
                "the number of steps ({} here, {} in English; a step missing from one of them?)",
                ru.steps.len(),
                en.steps.len()
            ),
        );
        return;
    }
    for (i, (s, t)) in en.steps.iter().zip(&ru.steps).enumerate() {
        compare_step(i + 1, s, t, &mut differ);
    }
}

/// The front matter agrees field by field: `a` in English, `b` here.
fn compare_front_matter(a: &Meta, b: &Meta, differ: &mut impl FnMut(usize, String)) {
    let fields: [(&str, bool, String, String); 9] = [
        ("id", a.id == b.id, a.id.clone(), b.id.clone()),
        (
            "level",
            a.level == b.level,
            a.level.name().into(),
            b.level.name().into(),
        ),
        (
            "tags",
            a.tags == b.tags,
            a.tags.join(", "),
            b.tags.join(", "),
        ),
        (
            "minutes",
            a.minutes == b.minutes,
            a.minutes.to_string(),
            b.minutes.to_string(),
        ),
        (
            "seed",
            a.seed == b.seed,
            a.seed.to_string(),
            b.seed.to_string(),
        ),
        (
            "topology",
            a.topology == b.topology,
            String::new(),
            String::new(),
        ),
        (
            "settings",
            a.settings == b.settings,
            String::new(),
            String::new(),
        ),
        (
            "setup",
            a.setup
                .iter()
                .map(|(_, l)| l)
                .eq(b.setup.iter().map(|(_, l)| l)),
            String::new(),
            String::new(),
        ),
        (
            "files",
            a.files == b.files,
            a.files.join(", "),
            b.files.join(", "),
        ),
    ];
    for (name, same, en_value, ru_value) in fields {
        if !same {
            let values = if en_value.is_empty() && ru_value.is_empty() {
                String::new()
            } else {
                format!(" ({ru_value:?} here, {en_value:?} in English)")
            };
            differ(1, format!("the front matter's {name}{values}"));
        }
    }
}

/// Step `n` agrees, but for its words: `s` in English, `t` here.
fn compare_step(n: usize, s: &Step, t: &Step, differ: &mut impl FnMut(usize, String)) {
    let check = |st: &Step| {
        st.check.as_ref().map(|c| {
            let conditions: Vec<(String, Vec<Expect>)> = c
                .conditions
                .iter()
                .map(|x| (x.run.clone(), x.expect.clone()))
                .collect();
            (c.within, conditions)
        })
    };
    if check(s) != check(t) {
        differ(
            t.check.as_ref().map(|c| c.line).unwrap_or(t.line),
            format!("step {n}'s check"),
        );
    }
    compare_solution(n, s, t, differ);
    compare_other_solutions(n, s, t, differ);
    if s.frame
        .as_ref()
        .map(|f| (&f.what, &f.actor, &f.name, &f.field, &f.to, &f.notified))
        != t.frame
            .as_ref()
            .map(|f| (&f.what, &f.actor, &f.name, &f.field, &f.to, &f.notified))
    {
        differ(
            t.frame.as_ref().map(|f| f.line).unwrap_or(t.line),
            format!("step {n}'s frame"),
        );
    }
    let incidents = |st: &Step| -> Vec<(SimDuration, String)> {
        st.incidents.iter().map(|i| (i.at, i.run.clone())).collect()
    };
    if incidents(s) != incidents(t) {
        differ(t.line, format!("step {n}'s incidents"));
    }
    if s.hints.len() != t.hints.len() {
        differ(t.line, format!("step {n}'s number of hints"));
    }
    compare_runs(n, s, t, differ);
    let quizzes = |st: &Step| -> Vec<(usize, Vec<usize>)> {
        st.quizzes()
            .map(|q| (q.options.len(), q.answers.clone()))
            .collect()
    };
    if quizzes(s) != quizzes(t) {
        differ(
            t.quizzes().next().map(|q| q.line).unwrap_or(t.line),
            format!("step {n}'s quiz answers"),
        );
    }
    let predicts = |st: &Step| -> Vec<(usize, usize, SimDuration, String)> {
        st.predicts()
            .map(|p| (p.options.len(), p.answer, p.advance, p.show.clone()))
            .collect()
    };
    if predicts(s) != predicts(t) {
        differ(
            t.predicts().next().map(|q| q.line).unwrap_or(t.line),
            format!("step {n}'s predict block"),
        );
    }
}

/// Step `n`'s solution, and where it first differs.
fn compare_solution(n: usize, s: &Step, t: &Step, differ: &mut impl FnMut(usize, String)) {
    if s.solution.as_ref().map(|x| &x.text) != t.solution.as_ref().map(|x| &x.text) {
        let detail = match (&t.solution, &s.solution) {
            (Some(r), Some(e)) => {
                format!(" ({})", first_difference(r.line, &r.text, e.line, &e.text))
            }
            (None, Some(_)) => " (there is none here)".to_string(),
            (Some(_), None) => " (there is none in English)".to_string(),
            (None, None) => String::new(),
        };
        differ(
            t.solution.as_ref().map(|c| c.line).unwrap_or(t.line),
            format!("step {n}'s solution{detail}"),
        );
    }
}

/// Step `n`'s near-misses and alternatives, and where they first differ.
fn compare_other_solutions(n: usize, s: &Step, t: &Step, differ: &mut impl FnMut(usize, String)) {
    for (what, theirs, ours) in [
        ("near-misses", &t.near_misses, &s.near_misses),
        ("alternatives", &t.alternatives, &s.alternatives),
    ] {
        let texts = |v: &Vec<Solution>| v.iter().map(|x| x.text.clone()).collect::<Vec<_>>();
        if texts(theirs) != texts(ours) {
            let k = (0..theirs.len().max(ours.len()))
                .find(|&k| theirs.get(k).map(|x| &x.text) != ours.get(k).map(|x| &x.text))
                .unwrap_or(0);
            let (line, detail) = match (theirs.get(k), ours.get(k)) {
                (Some(r), Some(e)) => (
                    r.line,
                    format!(
                        ", block {} ({})",
                        k + 1,
                        first_difference(r.line, &r.text, e.line, &e.text)
                    ),
                ),
                (Some(r), None) => (
                    r.line,
                    format!(": {} here, {} in English", theirs.len(), ours.len()),
                ),
                (None, _) => (
                    t.line,
                    format!(": {} here, {} in English", theirs.len(), ours.len()),
                ),
            };
            differ(line, format!("step {n}'s {what}{detail}"));
        }
    }
}

/// Step `n`'s commands and YAML blocks, and where they first differ.
fn compare_runs(n: usize, s: &Step, t: &Step, differ: &mut impl FnMut(usize, String)) {
    let runs = |st: &Step| -> Vec<(usize, String)> {
        st.blocks
            .iter()
            .filter_map(|b| match b {
                Block::Run(r) => Some((r.line, r.text.clone())),
                Block::Yaml { line, text } => Some((*line, text.clone())),
                _ => None,
            })
            .collect()
    };
    let (en_runs, ru_runs) = (runs(s), runs(t));
    let first_diff = (0..en_runs.len().max(ru_runs.len()))
        .find(|&k| en_runs.get(k).map(|x| &x.1) != ru_runs.get(k).map(|x| &x.1));
    if let Some(k) = first_diff {
        let detail = match (ru_runs.get(k), en_runs.get(k)) {
            (Some((rl, rt)), Some((el, et))) => first_difference(*rl, rt, *el, et),
            (Some((rl, _)), None) => {
                format!("here line {rl}; in English there is no such block")
            }
            (None, Some((el, _))) => {
                format!("here there is no such block; in English line {el}")
            }
            (None, None) => String::new(),
        };
        differ(
            ru_runs.get(k).map(|r| r.0).unwrap_or(t.line),
            format!("step {n}'s command or YAML block {} ({detail})", k + 1),
        );
    }
}

/// Every command parses; checks and predicts only read; a step with a check has a
/// solution and the other way round.
/// The steps with a check but neither a ```` ```near-miss ```` nor an
/// ```` ```author-note ```` saying why none is plausible: `lessons check` warns on
/// each, since a check nobody tried a wrong answer on may pass for the wrong reason.
pub fn untried_checks(lesson: &Lesson) -> Vec<LessonError> {
    lesson
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.check.is_some() && s.near_misses.is_empty() && s.author_notes == 0)
        .map(|(i, s)| {
            LessonError::new(
                &lesson.file,
                s.line,
                0,
                format!(
                    "step {} ({}) has a check but no ```near-miss: add a plausible wrong answer the check must refuse, or an ```author-note saying why there is none",
                    i + 1,
                    s.title
                ),
            )
        })
        .collect()
}

/// The line that installs the Gateway API's definitions.
const GATEWAY_ADDON: &str = "sim addons enable gateway";

fn lint(lesson: &Lesson, errors: &mut Vec<LessonError>) {
    let file = &lesson.file;
    let mut push = |line: usize, e: String| errors.push(LessonError::new(file, line, 0, e));
    for (line, l) in &lesson.meta.setup {
        if let Err(e) = lint_script_line(l) {
            push(*line, format!("setup: {e}"));
        }
    }
    let run_blocks = lesson
        .intro
        .iter()
        .chain(lesson.steps.iter().flat_map(|s| s.blocks.iter()));
    // The kinds the lesson's own CustomResourceDefinitions add are known to its
    // blocks, as they are once the definition is applied; so are the Gateway API's
    // when the lesson enables its add-on.
    let enables_gateway = lesson
        .meta
        .setup
        .iter()
        .any(|(_, l)| l.contains(GATEWAY_ADDON))
        || run_blocks
            .clone()
            .any(|b| matches!(b, Block::Run(r) if r.text.contains(GATEWAY_ADDON)))
        || lesson
            .steps
            .iter()
            .filter_map(|s| s.solution.as_ref())
            .any(|s| s.text.contains(GATEWAY_ADDON));
    let gateway_definitions = if enables_gateway {
        warehouse_sim::network::gateway::CRDS
    } else {
        ""
    };
    let yaml_texts = run_blocks
        .clone()
        .filter_map(|b| match b {
            Block::Yaml { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .chain([gateway_definitions]);
    for text in yaml_texts {
        {
            for obj in warehouse_sim::decode_manifests(text).unwrap_or_default() {
                if let warehouse_sim::Object::Other(d) = &obj {
                    if d.kind == warehouse_sim::Kind::CustomResourceDefinition {
                        if let Some(spec) = warehouse_sim::object::crd::kind_spec(&d.fields) {
                            warehouse_sim::object::intern_custom(&spec);
                        }
                    }
                }
            }
        }
    }
    for block in run_blocks {
        match block {
            Block::Run(r) => lint_script(r.line, &r.text, &mut push),
            Block::Yaml { line, text } => {
                if let Err(e) = warehouse_sim::decode_manifests(text) {
                    let at = line + e.line.unwrap_or(1);
                    push(at, format!("this YAML would not apply: {}", e.message));
                }
            }
            _ => {}
        }
    }
    for (i, step) in lesson.steps.iter().enumerate() {
        let n = i + 1;
        if let Some(s) = &step.solution {
            lint_script(s.line, &s.text, &mut push);
        }
        for v in step.near_misses.iter().chain(&step.alternatives) {
            lint_script(v.line, &v.text, &mut push);
            if step.check.is_none() {
                push(
                    v.line,
                    format!("step {n} has no ```check to try this answer against"),
                );
            }
        }
        if let Some(c) = &step.check {
            for cond in &c.conditions {
                if let Err(e) = lint_line(&cond.run, Use::Read) {
                    push(cond.line, e);
                }
            }
        }
        for p in step.predicts() {
            if let Err(e) = lint_line(&p.show, Use::Read) {
                push(p.line, format!("predict show: {e}"));
            }
        }
        for inc in &step.incidents {
            if let Err(e) = lint_script_line(&inc.run) {
                push(inc.line, format!("incident: {e}"));
            }
        }
        match (&step.check, &step.solution) {
            (Some(c), None) => push(
                c.line,
                format!("step {n} has a check but no ```solution block; add a script that makes the check pass"),
            ),
            (None, Some(s)) => push(
                s.line,
                format!("step {n} has a solution but no ```check block; add the conditions it reaches"),
            ),
            _ => {}
        }
    }
}

fn lint_script(fence: usize, text: &str, push: &mut impl FnMut(usize, String)) {
    match script::parse(text) {
        Err(e) => push(fence + e.line, e.message),
        Ok(steps) => {
            for step in steps {
                let line = fence + step.line;
                match &step.action {
                    Action::Invalid(e) => push(line, e.trim_start_matches("error: ").to_string()),
                    Action::Shell(l) => {
                        if let Err(e) = lint_line(l, Use::Run) {
                            push(line, e);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

fn lint_script_line(line: &str) -> Result<(), String> {
    let mut err = None;
    lint_script(0, line, &mut |_, e| err = Some(e));
    err.map_or(Ok(()), Err)
}

/// Replays the lesson: setup, then for each step the check fails, the solution runs,
/// the predicts show what they claim, and the check passes within its time.
fn replay(lesson: &Lesson, files: &dyn FileSource) -> Result<Verified, LessonError> {
    let file = &lesson.file;
    let mut session = session::start(file, &lesson.meta, files)?;
    let started = session.cluster.now();
    let mut runner = Runner::default();
    let mut conditions = 0;
    let mut frames = Vec::new();
    for (i, step) in lesson.steps.iter().enumerate() {
        let n = i + 1;
        runner.open(&session, i);
        runner.fire_due(lesson, &mut session, files);
        let shown = runner.frame(lesson, &session);
        if let Some(Ok(f)) = &shown {
            frames.push((n, f.clone()));
        }
        if let (Some(spec), Some(Err(miss))) = (&step.frame, shown) {
            let why = match miss {
                crate::Miss::NotYet => "nothing that matches it has happened since the step before it opened (or since the previous frame's moment); the keys must match one of the moments below, in order",
                crate::Miss::Dropped => "the change feed dropped events before it could be matched: the run before it writes too much",
                crate::Miss::Earlier => "an earlier frame of the walkthrough did not match",
            };
            return Err(LessonError::new(
                file,
                spec.line,
                0,
                format!(
                    "step {n} ({}): the ```frame matches no recorded moment: {why}; what was recorded from there:\n  {}",
                    step.title,
                    crate::frames::listing(&session.cluster, runner.frame_search_start(lesson), 40).join("\n  ")
                ),
            ));
        }
        if let Some(check) = &step.check {
            conditions += check.conditions.len();
            let before = check::evaluate(&mut session, check, files);
            if before.passed() {
                return Err(LessonError::new(
                    file,
                    check.line,
                    0,
                    format!(
                        "step {n} ({}): the check already passes before its solution runs, so it cannot tell whether the learner did the step",
                        step.title
                    ),
                ));
            }
        }
        if let Some(check) = &step.check {
            try_answers(lesson, &mut session, &mut runner, files, n, step, check)?;
        }
        if let Some(solution) = &step.solution {
            run_answer(
                lesson,
                &mut session,
                &mut runner,
                files,
                n,
                "solution",
                solution,
                true,
            )?;
        }
        for p in step.predicts() {
            let fired = runner.advance(lesson, &mut session, p.advance, files);
            fired_failure(file, p.line, &fired)?;
            let shown = check::run_quietly(&mut session, &p.show, files);
            let answer = &p.options[p.answer];
            if !contains_token(&shown, answer) {
                return Err(LessonError::new(
                    file,
                    p.line,
                    0,
                    format!(
                        "step {n}'s predict: the correct answer {answer:?} does not appear (as a whole word) in what `{}` shows after {}:{}",
                        p.show,
                        fmt_duration(p.advance),
                        check::whole(&shown)
                    ),
                ));
            }
        }
        if let Some(check) = &step.check {
            if let Some(result) = wait_for_check(lesson, &mut session, &mut runner, files, check)? {
                return Err(LessonError::new(
                    file,
                    check.line,
                    0,
                    format!(
                        "step {n} ({}): the check does not pass {} after the solution{}:\n{}",
                        step.title,
                        within_words(check),
                        if check.within.as_millis() == 0 {
                            " (give it time with `within: 2m` if it needs some)"
                        } else {
                            ""
                        },
                        result.explain_failures().trim_end()
                    ),
                ));
            }
        }
    }
    Ok(Verified {
        id: lesson.meta.id.clone(),
        steps: lesson.steps.len(),
        conditions,
        near_misses: lesson.steps.iter().map(|s| s.near_misses.len()).sum(),
        alternatives: lesson.steps.iter().map(|s| s.alternatives.len()).sum(),
        sim_time: session.cluster.now().since(started),
        frames,
    })
}

/// Tries the step's near-misses and alternatives, each from the cluster as the
/// step opened (the learner's "reset this step"): a near-miss must not pass the
/// check at any moment within its `within`, an alternative must pass it.
fn try_answers(
    lesson: &Lesson,
    session: &mut warehouse_kubectl::Session,
    runner: &mut Runner,
    files: &dyn FileSource,
    n: usize,
    step: &Step,
    check: &Check,
) -> Result<(), LessonError> {
    let file = &lesson.file;
    let tries = step
        .near_misses
        .iter()
        .map(|a| (a, false))
        .chain(step.alternatives.iter().map(|a| (a, true)));
    for (answer, right) in tries {
        let what = if right { "alternative" } else { "near-miss" };
        run_answer(lesson, session, runner, files, n, what, answer, right)?;
        let failed = wait_for_check(lesson, session, runner, files, check)?;
        match (right, failed) {
            (false, None) => {
                return Err(LessonError::new(
                    file,
                    answer.line,
                    0,
                    format!(
                        "step {n} ({}): this near-miss passes the check, so a learner who makes this mistake is told they are right; make the check judge what the step teaches",
                        step.title
                    ),
                ))
            }
            (true, Some(result)) => {
                return Err(LessonError::new(
                    file,
                    answer.line,
                    0,
                    format!(
                        "step {n} ({}): this alternative does not pass the check {}, so a learner who does the step this way is told they are wrong:\n{}",
                        step.title,
                        within_words(check),
                        result.explain_failures().trim_end()
                    ),
                ))
            }
            _ => {}
        }
        runner
            .reset(session)
            .map_err(|e| LessonError::new(file, answer.line, 0, e))?;
        let fired = runner.fire_due(lesson, session, files);
        fired_failure(file, answer.line, &fired)?;
    }
    Ok(())
}

/// Runs a solution, an alternative or a near-miss. With `strict` every line must
/// succeed; a near-miss's lines may fail, as a learner's wrong attempt may.
#[allow(clippy::too_many_arguments)]
fn run_answer(
    lesson: &Lesson,
    session: &mut warehouse_kubectl::Session,
    runner: &mut Runner,
    files: &dyn FileSource,
    n: usize,
    what: &str,
    answer: &Solution,
    strict: bool,
) -> Result<(), LessonError> {
    let file = &lesson.file;
    let steps = script::parse(&answer.text)
        .map_err(|e| LessonError::new(file, answer.line + e.line, 0, e.message))?;
    let whose = format!("step {n}'s {what}");
    if let Some(line) = session::time_past_limit(&steps) {
        return Err(LessonError::new(
            file,
            answer.line + line,
            0,
            session::too_long(&whose),
        ));
    }
    let started = session.cluster.now();
    for s in steps {
        let out = match &s.action {
            Action::Advance(d) => {
                let fired = runner.advance(lesson, session, *d, files);
                fired_failure(file, answer.line + s.line, &fired)?;
                None
            }
            _ => Some(script::execute(session, &s, files)),
        };
        if let Some(out) = out.filter(|o| strict && o.code != 0) {
            let printed = out.combined();
            let advice = if printed.contains("does not exist") && printed.contains("the path") {
                " (a file the lesson's commands read must be in its folder and listed under `files:` in the front matter)"
            } else {
                " (write `COMMAND || true` for a line that may fail)"
            };
            return Err(LessonError::new(
                file,
                answer.line + s.line,
                0,
                format!(
                    "step {n}'s {what}: `{}` failed (exit {}){advice}:{}",
                    s.command,
                    out.code,
                    check::whole(&printed)
                ),
            ));
        }
        if !matches!(s.action, Action::Advance(_)) {
            let fired = runner.fire_due(lesson, session, files);
            fired_failure(file, answer.line + s.line, &fired)?;
        }
        let line = answer.line + s.line;
        if session.cluster.now().since(started) > session::MAX_BLOCK_TIME {
            return Err(LessonError::new(file, line, 0, session::too_long(&whose)));
        }
        if let Err(e) = session::within_budget(&session.cluster) {
            return Err(LessonError::new(
                file,
                line,
                0,
                format!("{whose}: after `{}`, {e}", s.command),
            ));
        }
    }
    Ok(())
}

/// Lets simulated time run, up to the check's `within`, until it passes: `None`
/// once it does, or the last result if it never did.
fn wait_for_check(
    lesson: &Lesson,
    session: &mut warehouse_kubectl::Session,
    runner: &mut Runner,
    files: &dyn FileSource,
    check: &Check,
) -> Result<Option<check::CheckResult>, LessonError> {
    let deadline = session.cluster.now() + check.within;
    loop {
        let result = check::evaluate(session, check, files);
        if result.passed() {
            return Ok(None);
        }
        let now = session.cluster.now();
        if now >= deadline {
            return Ok(Some(result));
        }
        let step_by = SimDuration::millis(POLL.as_millis().min(deadline.since(now).as_millis()));
        let fired = runner.advance(lesson, session, step_by, files);
        fired_failure(&lesson.file, check.line, &fired)?;
    }
}

fn within_words(check: &Check) -> String {
    if check.within.as_millis() == 0 {
        "right".to_string()
    } else {
        format!("within {}", fmt_duration(check.within))
    }
}

fn fired_failure(
    file: &str,
    line: usize,
    fired: &[crate::runner::Fired],
) -> Result<(), LessonError> {
    match fired.iter().find(|f| f.output.code != 0) {
        None => Ok(()),
        Some(f) => Err(LessonError::new(
            file,
            line,
            0,
            format!(
                "the incident `{}` failed:{}",
                f.command,
                check::whole(&f.output.combined())
            ),
        )),
    }
}

/// Whether `needle` appears in `text` as a whole: not glued to letters or digits on
/// either side (so the option `2` is not found in `25s`).
pub fn contains_token(text: &str, needle: &str) -> bool {
    let needle = needle.trim();
    if needle.is_empty() {
        return false;
    }
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric());
    text.match_indices(needle).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + needle.len()..].chars().next();
        let glued_before = word(before) && word(needle.chars().next());
        let glued_after = word(after) && word(needle.chars().next_back());
        !glued_before && !glued_after
    })
}

#[cfg(test)]
mod tests {
    use super::contains_token;

    #[test]
    fn a_predicted_answer_must_stand_as_a_whole_word() {
        assert!(contains_token("packer   5/5     5", "5/5"));
        assert!(!contains_token("age 25s", "2"));
        assert!(contains_token("2\n", "2"));
        assert!(contains_token("STATUS Terminating", "Terminating"));
        assert!(!contains_token("NotReady", "Ready"));
        assert!(contains_token("Ready,SchedulingDisabled", "Ready"));
    }
}
