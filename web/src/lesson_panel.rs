//! The open lesson beside the floor: the step's prose and blocks (run, copy, open in
//! editor, quiz, predict), its live check with expected vs actual per condition,
//! hints one at a time, the solution, and previous / reset / next.

use crate::i18n::{Lang, Tr, L};
use crate::lessons::{OpenLesson, Progress};
use crate::prose;
use crate::state::{Action, AppState, BlockRun};
use crate::tabs::{ShowTab, Tab};
use std::collections::BTreeSet;
use std::rc::Rc;
use warehouse_lessons::{Block, Lesson, Predict, Quiz, Solution, Step};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LessonPanelProps {
    pub open: Rc<OpenLesson>,
    pub progress: Rc<Progress>,
    pub tr: Tr,
    pub dispatch: UseReducerDispatcher<AppState>,
    /// The last Run (or Run solution) and what it printed, shown under its button.
    #[prop_or_default]
    pub ran: Option<Rc<BlockRun>>,
}

#[function_component]
pub fn LessonPanel(props: &LessonPanelProps) -> Html {
    let tr = props.tr;
    let russian = tr.lang == Lang::Ru;
    let open = &props.open;
    let lesson = open.lesson(russian).clone();
    let send = |action: Action| on_click_send(&props.dispatch, action);
    let n = lesson.steps.len();
    // A new step is read from its title: "Next →" far below scrolls up to it.
    {
        let key = (lesson.meta.id.clone(), open.step);
        use_effect_with(key, |_| {
            if let Some(el) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id("step-title"))
            {
                el.scroll_into_view_with_bool(true);
            }
        });
    }
    // What a Run printed is brought into sight under its button, on a phone too.
    {
        let serial = props.ran.as_ref().map(|r| r.serial);
        use_effect_with(serial, |serial| {
            if serial.is_some() {
                crate::tabs::scroll_into_sight("run-output");
            }
        });
    }
    let show_tab = use_context::<ShowTab>();
    // The run shown: the last one, if it was of this step.
    let ran = props
        .ran
        .as_ref()
        .filter(|r| r.lesson == lesson.meta.id && r.step == open.step);
    let Some(step) = lesson.steps.get(open.step) else {
        return html! { <section class="lesson panel"><p>{ "—" }</p></section> };
    };
    let done = props
        .progress
        .lessons
        .get(&lesson.meta.id)
        .map(|p| p.done.clone())
        .unwrap_or_default();
    let step_done = done.contains(&open.step);
    // Every moment is timed from the walkthrough's start, one origin for all cards.
    let frame_at = open.frame_ms.get(&open.step).map(|&ms| {
        ms.saturating_sub(crate::frame_card::walk_start(&lesson, &open.opened_ms).unwrap_or(ms))
    });
    let last = open.step + 1 == n;

    let ctx = BlockCtx {
        ran,
        show_tab: show_tab.as_ref(),
    };
    let block = |(i, b): (usize, &Block)| block_view(i, b, open, tr, &props.dispatch, &ctx);
    let check = step.check.as_ref().map(|_| step_check(open, tr));
    let hints = (!step.hints.is_empty()).then(|| hints_section(step, open, tr, &props.dispatch));
    let solution = step
        .solution
        .as_ref()
        .map(|s| solution_section(s, open, tr, &props.dispatch, ran));

    html! {
        <section id="lesson" class="lesson panel" aria-labelledby="lesson-title"
                 data-lesson={lesson.meta.id.clone()} data-step={open.step.to_string()}>
            <div class="lesson-top">
                <button id="back-to-catalogue" type="button" class="link" onclick={send(Action::ShowCatalogue)}>
                    { tr.l(L::BackToCatalogue) }
                </button>
                <span class="step-count">{ tr.step_of(open.step + 1, n) }</span>
            </div>
            <h2 id="lesson-title" class="lesson-title">{ &lesson.meta.title }</h2>
            { step_dots(&lesson, open.step, &done, tr, &props.dispatch) }
            if let Some(note) = &open.note {
                <p class="lesson-note">{ note }</p>
            }
            if open.step == 0 && !lesson.intro.is_empty() {
                <div class="intro">{ for lesson.intro.iter().enumerate().map(block) }</div>
            }
            <h3 id="step-title" class="step-title">
                { &step.title }
                if step_done { <span class="badge ok">{ tr.l(L::StepDone) }</span> }
            </h3>
            if step.frame.is_some() {
                if let Some(frame) = &open.frame {
                    { crate::frame_card::card(frame, tr, frame_at) }
                }
            }
            <div class="step-body">{ for step.blocks.iter().enumerate().map(block) }</div>
            { check }
            { hints }
            { solution }
            { step_nav(open.step, last, step_done || step.check.is_none(), tr, &props.dispatch) }
            if last && step_done {
                <p class="lesson-done">{ tr.l(L::LessonDone) }</p>
            }
            <p class="hint">{ tr.l(L::ClusterNote) }</p>
        </section>
    }
}

/// A click that sends `action` to the reducer.
fn on_click_send(
    dispatch: &UseReducerDispatcher<AppState>,
    action: Action,
) -> Callback<MouseEvent> {
    let dispatch = dispatch.clone();
    Callback::from(move |_: MouseEvent| dispatch.dispatch(action.clone()))
}

/// A click that copies `text` to the clipboard.
fn on_click_copy(text: String) -> Callback<MouseEvent> {
    Callback::from(move |_: MouseEvent| crate::fetch::copy(text.clone()))
}

/// What the blocks need beside the lesson: the last run, and the way to the
/// terminal's tab (for "Open in editor" on a phone).
struct BlockCtx<'a> {
    ran: Option<&'a Rc<BlockRun>>,
    show_tab: Option<&'a ShowTab>,
}

/// What a Run printed, right under its button: each line run and its output, as
/// the terminal shows them (the terminal has them too).
fn run_output(ran: Option<&Rc<BlockRun>>, text: &str) -> Html {
    let Some(run) = ran.filter(|r| r.text == text) else {
        return html! {};
    };
    html! {
        <pre id="run-output" class="run-output" tabindex="0">
            { for run.entries.iter().map(|entry| html! {
                <>
                    <span class="prompt">{ &entry.prompt }{ "\n" }</span>
                    <span class="stdout">{ &entry.stdout }</span>
                    if !entry.stderr.is_empty() {
                        <span class="stderr">{ &entry.stderr }</span>
                    }
                </>
            }) }
        </pre>
    }
}

/// Block `i` of a step or of the intro: prose, a command to run or copy, YAML to open
/// in the editor, a quiz or a prediction.
fn block_view(
    i: usize,
    b: &Block,
    open: &OpenLesson,
    tr: Tr,
    dispatch: &UseReducerDispatcher<AppState>,
    ctx: &BlockCtx,
) -> Html {
    let send = |action: Action| on_click_send(dispatch, action);
    match b {
        Block::Prose(md) => html! { <div class="prose">{ prose::md(md) }</div> },
        Block::Run(run) => html! { <>
            <div class="run-block" data-line={run.line.to_string()}>
                <pre tabindex="0"><code>{ &run.text }</code></pre>
                <div class="block-actions">
                    <button type="button" class="run primary" onclick={send(Action::RunBlock(run.text.clone()))}
                            aria-label={tr.acting_on(tr.l(L::Run), first_line(&run.text))}>
                        { tr.l(L::Run) }
                    </button>
                    <button type="button" class="copy" onclick={on_click_copy(run.text.clone())}
                            aria-label={tr.acting_on(tr.l(L::Copy), first_line(&run.text))}>{ tr.l(L::Copy) }</button>
                </div>
            </div>
            { run_output(ctx.ran, &run.text) }
        </> },
        Block::Yaml { line, text } => html! {
            <div class="yaml-block" data-line={line.to_string()}>
                <pre tabindex="0"><code>{ text }</code></pre>
                <div class="block-actions">
                    <button type="button" class="open-editor primary"
                            onclick={open_in_editor(dispatch, text, ctx.show_tab)}
                            aria-label={tr.acting_on(tr.l(L::OpenInEditor), &yaml_what(text))}>
                        { tr.l(L::OpenInEditor) }
                    </button>
                    <button type="button" class="copy" onclick={on_click_copy(text.clone())}
                            aria-label={tr.acting_on(tr.l(L::Copy), &yaml_what(text))}>{ tr.l(L::Copy) }</button>
                </div>
            </div>
        },
        Block::Quiz(q) => quiz(i, q, open, tr, dispatch),
        Block::Predict(p) => predict(i, p, open, tr, dispatch),
    }
}

/// "Open in editor": the YAML goes to the editor, and on a phone the terminal's tab,
/// where the editor is, comes forward.
fn open_in_editor(
    dispatch: &UseReducerDispatcher<AppState>,
    text: &str,
    show_tab: Option<&ShowTab>,
) -> Callback<MouseEvent> {
    let dispatch = dispatch.clone();
    let text = text.to_string();
    let show_tab = show_tab.cloned();
    Callback::from(move |_: MouseEvent| {
        dispatch.dispatch(Action::OpenInEditor(text.clone()));
        if let Some(ShowTab(show)) = &show_tab {
            show.emit(Tab::Terminal);
            // Once the tab shows, its editor (under the terminal) is brought up.
            if crate::tabs::is_narrow() {
                gloo_timers::callback::Timeout::new(0, || {
                    if let Some(el) = web_sys::window()
                        .and_then(|w| w.document())
                        .and_then(|d| d.get_element_by_id("editor-heading"))
                    {
                        el.scroll_into_view_with_bool(true);
                    }
                })
                .forget();
            }
        }
    })
}

/// A command's first line, to name the buttons that run or copy it.
fn first_line(text: &str) -> &str {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
}

/// What a YAML block holds, to name its buttons: the kinds and names of its
/// objects (`Deployment web`), or its first line.
fn yaml_what(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut kind = None;
    for line in text.lines() {
        if let Some(k) = line.strip_prefix("kind:") {
            kind = Some(k.trim().to_string());
        } else if let Some(n) = line.strip_prefix("  name:") {
            if let Some(k) = kind.take() {
                out.push(format!("{k} {}", n.trim()));
            }
        }
    }
    if out.is_empty() {
        first_line(text).to_string()
    } else {
        out.join(", ")
    }
}

/// The dots of the lesson's steps: the current one marked, the done ones ticked,
/// each a way to its step.
fn step_dots(
    lesson: &Lesson,
    current: usize,
    done: &BTreeSet<usize>,
    tr: Tr,
    dispatch: &UseReducerDispatcher<AppState>,
) -> Html {
    let n = lesson.steps.len();
    html! {
        <ol class="step-dots" aria-label={tr.t(crate::i18n::Key::Steps)}>
            { for lesson.steps.iter().enumerate().map(|(i, s)| html! {
                <li>
                    <button type="button" title={s.title.clone()}
                            aria-label={format!("{}: {}", tr.step_of(i + 1, n), s.title)}
                            class={classes!("dot", (i == current).then_some("current"), done.contains(&i).then_some("done"))}
                            aria-current={(i == current).then_some("step")}
                            onclick={on_click_send(dispatch, Action::GotoStep(i))}>
                        { if done.contains(&i) { "✓".to_string() } else { (i + 1).to_string() } }
                    </button>
                </li>
            }) }
        </ol>
    }
}

/// The step's live check: passed or still waiting, and each condition's expected
/// and (when it fails) actual output.
fn step_check(open: &OpenLesson, tr: Tr) -> Html {
    let russian = tr.lang == Lang::Ru;
    let result = open.check.clone();
    let passed = result.as_ref().is_some_and(|r| r.passed());
    html! {
        <section id="step-check" class={classes!("check", passed.then_some("passed"))}
                 aria-live="polite">
            <h3>{ tr.l(L::CheckHeading) }</h3>
            <p class="check-summary">
                { if passed { tr.l(L::CheckPassed) } else { tr.l(L::CheckWaiting) } }
            </p>
            <ul class="conditions">
            { for result.iter().flat_map(|r| r.conditions.iter()).map(|c| html! {
                <li class={classes!("condition", if c.passed { "pass" } else { "fail" })}>
                    <span class="mark" aria-hidden="true">{ if c.passed { "✓" } else { "✗" } }</span>
                    <code class="run">{ &c.run }</code>
                    <div class="expected">
                        <span class="label">{ tr.l(L::Expected) }{ if russian { " " } else { ": " } }</span>
                        { c.expectations.iter().map(|(e, _)| expectation(tr, e)).collect::<Vec<_>>().join("; ") }
                    </div>
                    if !c.passed {
                        <div class="actual">
                            <span class="label">{ tr.l(L::Actual) }{ ":" }</span>
                            <pre tabindex="0">{ if c.actual.is_empty() { tr.l(L::Nothing).to_string() } else { c.actual.clone() } }</pre>
                        </div>
                    }
                </li>
            }) }
            </ul>
        </section>
    }
}

/// The hints shown so far, and the button for the next one.
fn hints_section(
    step: &Step,
    open: &OpenLesson,
    tr: Tr,
    dispatch: &UseReducerDispatcher<AppState>,
) -> Html {
    html! {
        <section class="hints">
            { for step.hints.iter().take(open.hints).enumerate().map(|(i, h)| html! {
                <div class="hint-box">
                    <strong>{ format!("{} {}", tr.l(L::Hint), i + 1) }</strong>
                    { prose::md(&h.body) }
                </div>
            }) }
            if open.hints < step.hints.len() {
                <button id="show-hint" type="button" onclick={on_click_send(dispatch, Action::RevealHint)}>
                    { format!("{} ({}/{})", tr.l(L::NextHint), open.hints + 1, step.hints.len()) }
                </button>
            }
        </section>
    }
}

/// The solution: shown or hidden, and a button that runs it.
fn solution_section(
    s: &Solution,
    open: &OpenLesson,
    tr: Tr,
    dispatch: &UseReducerDispatcher<AppState>,
    ran: Option<&Rc<BlockRun>>,
) -> Html {
    html! {
        <section class="solution">
            <div class="block-actions">
                <button id="show-solution" type="button" onclick={on_click_send(dispatch, Action::ToggleSolution)}>
                    { if open.solution { tr.l(L::HideSolution) } else { tr.l(L::ShowSolution) } }
                </button>
                <button id="run-solution" type="button" onclick={on_click_send(dispatch, Action::RunSolution)}>
                    { tr.l(L::RunSolution) }
                </button>
            </div>
            { run_output(ran, &s.text) }
            if open.solution {
                <pre class="solution-text" tabindex="0"><code>{ &s.text }</code></pre>
            }
        </section>
    }
}

/// Previous, reset, and next (finish on the last step); next is the primary button
/// once the step is done or has nothing to check.
fn step_nav(
    step: usize,
    last: bool,
    ready: bool,
    tr: Tr,
    dispatch: &UseReducerDispatcher<AppState>,
) -> Html {
    let send = |action: Action| on_click_send(dispatch, action);
    html! {
        <nav class="step-nav">
            <button id="prev-step" type="button" disabled={step == 0}
                    onclick={send(Action::GotoStep(step.saturating_sub(1)))}>
                { tr.l(L::Previous) }
            </button>
            <button id="reset-step" type="button" title={tr.l(L::ResetTitle)}
                    onclick={send(Action::ResetStep)}>
                { tr.l(L::Reset) }
            </button>
            if last {
                <button id="next-step" type="button"
                        class={classes!(ready.then_some("primary"))}
                        onclick={send(Action::ShowCatalogue)}>
                    { tr.l(L::Finish) }
                </button>
            } else {
                <button id="next-step" type="button"
                        class={classes!(ready.then_some("primary"))}
                        onclick={send(Action::GotoStep(step + 1))}>
                    { tr.l(L::Next) }
                </button>
            }
        </nav>
    }
}

/// What a check expects, in words: the lesson crate's wording, with numbers of lines
/// as each language counts them (`3 lines`; Russian `ожидается 3 строки`, not
/// `ожидается: строк: 3`).
pub fn expectation(tr: Tr, e: &warehouse_lessons::Expect) -> String {
    use warehouse_lessons::Expect;
    match (e, tr.lang) {
        (Expect::Lines(n), Lang::En) => {
            format!("{n} line{}", if *n == 1 { "" } else { "s" })
        }
        (Expect::Lines(n), Lang::Ru) => {
            crate::numbers::ru_count(*n as u64, "строка", "строки", "строк")
        }
        (e, lang) => e.describe(lang == Lang::Ru),
    }
}

fn quiz(
    i: usize,
    q: &Quiz,
    open: &OpenLesson,
    tr: Tr,
    dispatch: &UseReducerDispatcher<AppState>,
) -> Html {
    let state = open.quizzes.get(&i).cloned().unwrap_or_default();
    let multiple = q.answers.len() > 1;
    let right = state.checked && state.chosen.iter().copied().eq(q.answers.iter().copied());
    let choose = |option: usize| {
        let dispatch = dispatch.clone();
        Callback::from(move |_: Event| dispatch.dispatch(Action::QuizChoose { block: i, option }))
    };
    let check = {
        let dispatch = dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::QuizCheck(i)))
    };
    let name = format!("quiz-{}-{i}", open.step);
    html! {
        <fieldset class="quiz" data-block={i.to_string()}>
            <legend>{ crate::prose::inline(&q.question) }</legend>
            { for q.options.iter().enumerate().map(|(o, text)| html! {
                <label class={classes!("option",
                        (state.checked && q.answers.contains(&o)).then_some("right"),
                        (state.checked && state.chosen.contains(&o) && !q.answers.contains(&o)).then_some("wrong"))}>
                    <input type={if multiple { "checkbox" } else { "radio" }} name={name.clone()}
                           checked={state.chosen.contains(&o)} onchange={choose(o)} />
                    { crate::prose::inline(text) }
                </label>
            }) }
            <button type="button" class="quiz-check" disabled={state.chosen.is_empty()} onclick={check}>
                { tr.l(L::QuizCheck) }
            </button>
            if state.checked {
                <p class={classes!("verdict", if right { "right" } else { "wrong" })}>
                    <strong>{ if right { tr.l(L::Correct) } else { tr.l(L::Wrong) } }</strong>
                    { " " }{ crate::prose::inline(&q.explain) }
                </p>
            }
        </fieldset>
    }
}

fn predict(
    i: usize,
    p: &Predict,
    open: &OpenLesson,
    tr: Tr,
    dispatch: &UseReducerDispatcher<AppState>,
) -> Html {
    let state = open.predicts.get(&i).cloned().unwrap_or_default();
    let committed = state.outcome.is_some();
    let choose = |option: usize| {
        let dispatch = dispatch.clone();
        Callback::from(move |_: Event| {
            dispatch.dispatch(Action::PredictChoose { block: i, option })
        })
    };
    let commit = {
        let dispatch = dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::PredictCommit(i)))
    };
    let name = format!("predict-{}-{i}", open.step);
    html! {
        <fieldset class="predict" data-block={i.to_string()}>
            <legend>{ crate::prose::inline(&p.question) }</legend>
            { for p.options.iter().enumerate().map(|(o, text)| html! {
                <label class={classes!("option", (committed && o == p.answer).then_some("right"))}>
                    <input type="radio" name={name.clone()} disabled={committed}
                           checked={state.chosen == Some(o)} onchange={choose(o)} />
                    { crate::prose::inline(text) }
                </label>
            }) }
            <button type="button" class="predict-commit primary"
                    disabled={state.chosen.is_none() || committed} onclick={commit}>
                { format!("{} (+{})", tr.l(L::PredictCommit), warehouse_lessons::session::fmt_duration(p.advance)) }
            </button>
            if let Some((shown, right)) = &state.outcome {
                <div class="predict-outcome">
                    <code>{ format!("$ {}", p.show) }</code>
                    <pre tabindex="0">{ shown }</pre>
                    <p class={classes!("verdict", if *right { "right" } else { "wrong" })}>
                        <strong>{ if *right { tr.l(L::PredictRight) } else { tr.l(L::PredictWrong) } }</strong>
                        { " " }{ crate::prose::inline(&p.explain) }
                    </p>
                </div>
            }
        </fieldset>
    }
}
