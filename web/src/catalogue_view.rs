//! The catalogue: each path's title and summary, each lesson with its title, level,
//! tags, minutes and progress, one "Start here" on the index's start lesson, and a
//! way to use the plain sandbox.

use crate::author::AuthorBox;
use crate::i18n::{Lang, Tr, L};
use crate::lessons::{CatalogueState, Progress};
use crate::state::{Action, AppState};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CatalogueProps {
    pub catalogue: CatalogueState,
    pub progress: Rc<Progress>,
    pub tr: Tr,
    pub dispatch: UseReducerDispatcher<AppState>,
}

#[function_component]
pub fn CatalogueView(props: &CatalogueProps) -> Html {
    let tr = props.tr;
    let russian = tr.lang == Lang::Ru;
    let open = |folder: String| {
        let dispatch = props.dispatch.clone();
        Callback::from(move |_: MouseEvent| {
            crate::fetch::open_folder(folder.clone(), dispatch.clone())
        })
    };
    let sandbox = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::UseSandbox))
    };
    let body = match &props.catalogue {
        CatalogueState::Loading => html! { <p class="muted">{ tr.l(L::CatalogueLoading) }</p> },
        CatalogueState::Failed(e) => html! {
            <div class="lesson-errors" role="alert">
                <p>{ tr.l(L::CatalogueFailed) }</p>
                <pre>{ e.clone() }</pre>
            </div>
        },
        CatalogueState::Ready { catalogue, lessons } => html! {
            <>
            { for catalogue.paths.iter().map(|path| html! {
                <section class="path" data-path={path.id.clone()}>
                    <h3>{ path.title.get(russian) }</h3>
                    <p class="path-time">{ format!("≈ {} {}", path.lessons.iter()
                        .filter_map(|f| lessons.iter().find(|l| &l.folder == f))
                        .filter_map(|e| e.summary(russian))
                        .map(|s| s.minutes)
                        .sum::<u32>(), tr.l(L::Minutes)) }</p>
                    <p class="path-summary">{ path.summary.get(russian) }</p>
                    <ol class="lesson-list">
                    { for path.lessons.iter().map(|folder| {
                        let entry = lessons.iter().find(|l| &l.folder == folder);
                        let summary = entry.and_then(|e| e.summary(russian));
                        let is_start = *folder == catalogue.start;
                        let saved = summary.and_then(|s| props.progress.lessons.get(&s.id));
                        let done = saved.map_or(0, |p| p.done.len());
                        let steps = summary.map_or(0, |s| s.steps);
                        let complete = steps > 0 && done >= steps;
                        let label = if saved.is_some() {
                            tr.l(L::Continue)
                        } else if is_start {
                            tr.l(L::StartHere)
                        } else {
                            tr.l(L::Open)
                        };
                        html! {
                            <li class={classes!("lesson-card", is_start.then_some("start"), complete.then_some("complete"))}
                                data-folder={folder.clone()}>
                                if let Some(s) = summary {
                                    <div class="lesson-card-head">
                                        <h4>{ &s.title }</h4>
                                        if complete {
                                            <span class="badge ok" role="img" aria-label={tr.t(crate::i18n::Key::Done)}>{ "✓" }</span>
                                        } else if done > 0 {
                                            <span class="badge">{ tr.steps_done(done, steps) }</span>
                                        }
                                    </div>
                                    <p class="lesson-summary">{ &s.summary }</p>
                                    <p class="lesson-meta">
                                        <span class="level">{ tr.level(s.level) }</span>
                                        <span>{ format!("{} {}", s.minutes, tr.l(L::Minutes)) }</span>
                                        <span>{ tr.steps_done(done, steps) }</span>
                                        { for s.tags.iter().map(|t| html! { <span class="tag">{ t }</span> }) }
                                    </p>
                                } else {
                                    <h4>{ folder }</h4>
                                }
                                if let Some(e) = entry.and_then(|e| e.error.clone()) {
                                    <pre class="lesson-errors">{ e }</pre>
                                }
                                if summary.is_some() {
                                    <button type="button"
                                            class={classes!("open-lesson", is_start.then_some("primary"))}
                                            onclick={open(folder.clone())}
                                            aria-label={summary.map(|s| format!("{label}: {}", s.title))}>
                                        { label }
                                    </button>
                                }
                            </li>
                        }
                    }) }
                    </ol>
                </section>
            }) }
            </>
        },
    };
    html! {
        <section id="catalogue" class="catalogue panel" aria-labelledby="catalogue-heading">
            <h2 id="catalogue-heading">{ tr.l(L::CatalogueHeading) }</h2>
            <p class="muted">{ tr.l(L::CatalogueIntro) }</p>
            { body }
            <div class="sandbox-choice">
                <button id="use-sandbox" type="button" onclick={sandbox}>{ tr.l(L::Sandbox) }</button>
                <span class="hint">{ tr.l(L::SandboxHint) }</span>
            </div>
            <AuthorBox {tr} dispatch={props.dispatch.clone()} />
        </section>
    }
}
