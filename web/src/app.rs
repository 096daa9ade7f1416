//! The root component: owns the state, runs the animation clock, installs the test
//! hook, and lays out the floor, the zone list, the editor and the terminal.

use crate::author::AuthorBox;
use crate::canvas::WarehouseCanvas;
use crate::catalogue_view::CatalogueView;
use crate::control_plane::ComponentList;
use crate::decision::DecisionPanel;
use crate::editor::Editor;
use crate::fetch;
use crate::floor_text::FloorText;
use crate::i18n::{Key, Names, Tr, L};
use crate::inspector::Inspector;
use crate::legend::Legend;
use crate::lesson_panel::LessonPanel;
use crate::office::Office;
use crate::offline;
use crate::progress;
use crate::requests::RequestLog;
use crate::saved;
use crate::state::{Action, AppState, Panel};
use crate::tabs::{ShowTab, Tab, TabBar};
use crate::terminal::TerminalBox;
use crate::test_hook;
use crate::timeline::Timeline;
use crate::toolbar::Toolbar;
use crate::zones::ZoneList;
use gloo_timers::callback::Interval;
use std::cell::Cell;
use yew::prelude::*;

/// Real milliseconds between looks at whether the sandbox changed, to keep it.
const SAVE_EVERY_MS: u32 = 3_000;

/// The share link just made, ready to copy (or why there is none).
fn share_box(state: &AppState, tr: Tr) -> Html {
    match &state.share {
        None => html! {},
        Some(Ok(url)) => html! {
            <div class="share-box">
                <label>
                    { tr.t(Key::ShareLink) }{" "}
                    <input id="share-link" type="text" readonly=true value={url.clone()} />
                </label>
            </div>
        },
        Some(Err(why)) => html! {
            <div class="share-box error" role="alert">{ why.clone() }</div>
        },
    }
}

/// Real milliseconds between animation ticks (about 30 frames a second).
pub const FRAME_MS: u32 = 33;

#[function_component]
pub fn App() -> Html {
    // Saved progress is read before the first render, so saving it back (below)
    // never overwrites it with an empty one.
    let state = use_reducer(|| {
        let mut s = AppState::default();
        s.reduce_lesson(Action::ProgressLoaded(progress::load()));
        // A share link wins over the saved sandbox (its effect below opens it), and
        // so does a kept lesson (`lesson_saved.rs`).
        let lesson = crate::lesson_saved::at_start(&mut s);
        if saved::link_fragment().is_none() && !lesson {
            let restored = saved::load().map(|r| r.and_then(|saved| s.restore(saved)));
            if let Some(Err(why)) = restored {
                saved::clear();
                s.notice = Some(crate::state::Outcome {
                    text: crate::i18n::saved_refused(s.lang, &why),
                    error: true,
                });
            }
        }
        s.after_action();
        s
    });
    let dispatch = state.dispatcher();

    // The hook for browser tests, the catalogue, `?lesson=URL` and the service
    // worker, once.
    {
        let session = state.session.clone();
        let info = state.hook.clone();
        let office = state.office.clone();
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            if let Err(e) = test_hook::install(session, info, office) {
                web_sys::console::warn_2(&"window.__warehouse:".into(), &e);
            }
            fetch::load_catalogue(dispatch.clone());
            fetch::load_explain_data();
            fetch::load_help_data();
            offline::register_worker();
            let lesson = crate::lesson_saved::start(dispatch.clone());
            if let (false, Some(url)) = (lesson, fetch::lesson_param()) {
                fetch::open_url(url, dispatch.clone());
            }
            if let Some(fragment) = saved::link_fragment() {
                wasm_bindgen_futures::spawn_local(async move {
                    let history = saved::read_link(&fragment).await;
                    saved::drop_fragment();
                    dispatch.dispatch(Action::OpenHistory(history));
                });
            }
        });
    }

    // The sandbox is kept for a reload: looked at every few seconds, written when
    // it changed.
    {
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            let interval =
                Interval::new(SAVE_EVERY_MS, move || dispatch.dispatch(Action::SaveTick));
            move || drop(interval)
        });
    }
    {
        let to_save = state.to_save.1.clone();
        use_effect_with(state.to_save.0, move |_| {
            if let Some(s) = to_save {
                if let Err(why) = saved::save(&s) {
                    web_sys::console::warn_1(&why.into());
                }
            }
        });
    }
    {
        let to_save = state.lesson_to_save.1.clone();
        use_effect_with(state.lesson_to_save.0, move |generation| match to_save {
            Some(s) => {
                if let Err(why) = crate::lesson_saved::save(&s) {
                    web_sys::console::warn_1(&why.into());
                }
            }
            None if *generation > 0 => crate::lesson_saved::clear(),
            None => {}
        });
    }
    let on_share = {
        let session = state.session.clone();
        let dispatch = dispatch.clone();
        let handle = state.clone();
        Callback::from(move |()| {
            if let Some(timeline) = crate::lesson_saved::share_of(&handle) {
                crate::lesson_saved::share(timeline, dispatch.clone());
                return;
            }
            let history = session
                .borrow()
                .journal()
                .export(&saved::origin(crate::state::SEED));
            let dispatch = dispatch.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let link = match history {
                    Some(h) => saved::link(&h).await,
                    None => Err("the history is longer than a link can hold".to_string()),
                };
                if let (Ok(url), Some(w)) = (&link, web_sys::window()) {
                    // Best effort: the field below shows the link either way.
                    let _ = w.navigator().clipboard().write_text(url);
                }
                dispatch.dispatch(Action::ShareReady(link));
            });
        })
    };

    use_effect_with(state.progress.clone(), |p| progress::save(p));

    // While playing, tell the reducer how much real time passed, every frame.
    {
        let dispatch = dispatch.clone();
        use_effect_with(state.playing, move |playing| {
            let interval = playing.then(|| {
                let last = Cell::new(js_sys::Date::now());
                Interval::new(FRAME_MS, move || {
                    let now = js_sys::Date::now();
                    let real_ms = (now - last.get()).max(0.0) as u64;
                    last.set(now);
                    dispatch.dispatch(Action::Tick { real_ms });
                })
            });
            move || drop(interval)
        });
    }

    // Screen readers, hyphenation and the tab title follow the chosen language.
    use_effect_with(state.lang, |lang| {
        if let Some(document) = web_sys::window().and_then(|w| w.document()) {
            if let Some(root) = document.document_element() {
                let _ = root.set_attribute("lang", lang.tag());
            }
            document.set_title(Tr::new(*lang, Names::Warehouse).t(Key::Title));
        }
    });

    // On a narrow screen: which tab shows. It follows the side panel: a lesson or the
    // catalogue brings the lesson tab forward, the plain sandbox the floor.
    let narrow = crate::tabs::use_narrow();
    let tab = use_state(|| tab_for(&state.panel));
    {
        let tab = tab.setter();
        use_effect_with(panel_kind(&state.panel), move |kind| {
            tab.set(tab_for_kind(*kind));
            if crate::tabs::is_narrow() {
                crate::tabs::scroll_to_top();
            }
        });
    }
    // Something opened in the inspector is shown where it opens, on the floor's tab.
    {
        let tab = tab.setter();
        use_effect_with(state.inspected.clone(), move |inspected| {
            if inspected.is_some() && crate::tabs::is_narrow() {
                tab.set(Tab::Floor);
            }
        });
    }
    let show_tab = {
        let tab = tab.setter();
        use_callback((), move |t: Tab, _| {
            if crate::tabs::is_narrow() {
                tab.set(t);
                crate::tabs::scroll_to_top();
            }
        })
    };
    let on_tab = {
        let tab = tab.setter();
        let dispatch = dispatch.clone();
        let sandbox = state.panel == Panel::Sandbox;
        Callback::from(move |t: Tab| {
            // In the sandbox the lesson tab is the catalogue.
            if t == Tab::Lesson && sandbox {
                dispatch.dispatch(Action::ShowCatalogue);
            }
            tab.set(t);
            crate::tabs::scroll_to_top();
        })
    };
    let tab = *tab;
    // Parts of the page not on the tab shown are left out (only with the tabs).
    let off = |t: Tab| (narrow && tab != t).then_some("off-tab");
    let panel_role = |_: Tab| narrow.then_some("tabpanel");
    let labelled_by = |t: Tab| narrow.then_some(t.tab_id());

    let tr = state.tr();
    let on_dragover = Callback::from(|e: DragEvent| e.prevent_default());
    let on_drop = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if let Some(files) = e.data_transfer().and_then(|d| d.files()) {
                fetch::open_files(files, dispatch.clone());
            }
        })
    };
    let panel = side_panel(&state, tr, &dispatch);
    let progress_notice = state
        .progress_notice
        .clone()
        .map(|why| progress_notice_bar(why, tr, &dispatch));
    let focus = lesson_focus(&state);
    let lesson_skip = if panel.is_some() {
        skip_link(
            "lessons-side",
            tr.t(Key::SkipToLesson),
            Some(Tab::Lesson),
            &show_tab,
        )
    } else if narrow {
        // "Lessons" is under "More" on a phone; the lesson tab opens them.
        skip_link(
            Tab::Lesson.tab_id(),
            tr.t(Key::SkipToLessons),
            None,
            &show_tab,
        )
    } else {
        skip_link("lessons-btn", tr.t(Key::SkipToLessons), None, &show_tab)
    };
    let inspector = match (state.inspected.clone(), state.report()) {
        (Some(target), Some(report)) => html! {
            <Inspector {target} {report} view={state.view.clone()}
                       {tr} dispatch={dispatch.clone()} />
        },
        _ => html! {},
    };
    let terminal = html! {
        <TerminalBox terminal={state.terminal.clone()} session={state.session.clone()}
                     {tr} dispatch={dispatch.clone()} />
    };
    let office = html! { <>
        <Office session={state.session.clone()} view={state.view.clone()} {tr}
                info={state.office.clone()} focus={focus} epoch={state.epoch} />
        <Timeline session={state.session.clone()} epoch={state.epoch} now_ms={state.floor.now_ms}
                  feed={state.session.try_borrow().map_or(0, |s| s.cluster.feed_since(u64::MAX).next)} {tr}
                  on_inspect={act(&dispatch, |t| Action::Inspect(Some(t)))}
                  on_run={act(&dispatch, Action::RunKubectl)} />
    </> };
    let floor_more = html! {
        <div class="floor-more">
            <DecisionPanel robots={state.decided.robots.clone()} selected={state.selected_pod.clone()}
                           decision={state.decision.clone()} {tr}
                           on_select={act(&dispatch, Action::SelectPod)}
                           on_inspect={act(&dispatch, |t| Action::Inspect(Some(t)))} />
            <RequestLog view={state.view.clone()} mine_only={state.mine_only()} {tr}
                        on_mine_only={act(&dispatch, Action::SetMineOnly)} />
        </div>
    };
    let on_catalogue = {
        let dispatch = dispatch.clone();
        let show_tab = show_tab.clone();
        Callback::from(move |()| {
            dispatch.dispatch(Action::ShowCatalogue);
            show_tab.emit(Tab::Lesson);
        })
    };
    let tab_bar = narrow.then(|| html! {
        <TabBar selected={tab} {tr} lesson_open={matches!(state.panel, Panel::Lesson | Panel::Loading(_) | Panel::Errors(_))}
                lesson_panel={panel.is_some()} on_select={on_tab} />
    });
    html! {
        <div class="app">
            <nav class="skip-links" aria-label={tr.t(Key::SkipLinks)}>
                { skip_link("kubectl-input", tr.t(Key::SkipToTerminal), Some(Tab::Terminal), &show_tab) }
                { lesson_skip }
            </nav>
            <header class="top">
            <Toolbar time_ms={state.floor.now_ms} playing={state.playing} speed={state.speed} {tr}
                     {on_catalogue}
                     on_toggle_play={act(&dispatch, |()| Action::TogglePlay)}
                     on_advance={act(&dispatch, Action::Advance)}
                     on_speed={act(&dispatch, Action::SetSpeed)}
                     on_toggle_names={act(&dispatch, |()| Action::ToggleNames)}
                     on_toggle_lang={act(&dispatch, |()| Action::ToggleLang)}
                     history={state.history()}
                     can_share={state.lesson.is_some()}
                     on_rewind={act(&dispatch, Action::RewindTo)}
                     on_step={act(&dispatch, |()| Action::Step)}
                     stepped={state.stepped.as_deref().map(|s| AttrValue::from(tr.stepped(s)))}
                     {on_share} />
            { for tab_bar }
            { share_box(&state, tr) }
            { for progress_notice }
            </header>
            <ContextProvider<ShowTab> context={ShowTab(show_tab.clone())}>
            <main class={classes!("layout", panel.is_some().then_some("with-lessons"), narrow.then_some("tabbed"))}>
                if let Some(panel) = panel {
                    <aside id="lessons-side" class={classes!("lessons-side", off(Tab::Lesson))} tabindex="-1"
                           role={panel_role(Tab::Lesson)} aria-labelledby={labelled_by(Tab::Lesson)}
                           aria-label={(!narrow).then_some(tr.l(crate::i18n::L::LessonsButton))}
                           ondragover={on_dragover} ondrop={on_drop}>{ panel }</aside>
                }
                <div class="work">
                <div id={Tab::Floor.panel_id()} class={classes!("floor", off(Tab::Floor))}
                     role={panel_role(Tab::Floor)} aria-labelledby={labelled_by(Tab::Floor)}>
                    <div class="canvas-wrap">
                        <WarehouseCanvas view={state.view.clone()} floor={state.floor.clone()} {tr}
                                         shown={!narrow || tab == Tab::Floor}
                                         on_inspect={act(&dispatch, Action::Inspect)}
                                         on_run={act(&dispatch, Action::RunKubectl)} />
                    </div>
                    if narrow { { inspector.clone() } }
                    <FloorText view={state.view.clone()} floor={state.floor.clone()} {tr} />
                    <Legend {tr} />
                    <ZoneList view={state.view.clone()} notice={state.notice.clone()} {tr}
                              on_kill={act(&dispatch, Action::KillZone)}
                              on_restart={act(&dispatch, Action::RestartZone)}
                              on_inspect={act(&dispatch, |t| Action::Inspect(Some(t)))}
                              on_dismiss={act(&dispatch, |()| Action::DismissNotice)} />
                    <ComponentList view={state.view.clone()} {tr}
                                   on_start={act(&dispatch, Action::StartComponent)}
                                   on_stop={act(&dispatch, Action::StopComponent)}
                                   on_inspect={act(&dispatch, |t| Action::Inspect(Some(t)))} />
                </div>
                <div id={Tab::Terminal.panel_id()} class={classes!("side", off(Tab::Terminal))}
                     role={panel_role(Tab::Terminal)} aria-labelledby={labelled_by(Tab::Terminal)}>
                    if !narrow { { inspector } }
                    <Editor yaml={state.yaml.clone()} result={state.apply_result.clone()}
                            editing={state.editing.clone()} {tr}
                            dispatch={dispatch.clone()} />
                    // On the terminal's tab the terminal comes first (style.css: `.tabbed`);
                    // it keeps its place in the tree, so what is typed survives a turn
                    // of the phone.
                    { terminal }
                </div>
                // The office and the rest stay at one place in the tree whatever the
                // width (a component moved elsewhere would start anew, losing what a
                // learner picked): on a phone they follow the floor's tab.
                <div class={classes!("floor-extra", off(Tab::Floor))}>
                    { office }
                    { floor_more }
                </div>
                </div>
            </main>
            </ContextProvider<ShowTab>>
        </div>
    }
}

/// A link at the top of the page, shown when it has focus, that moves focus to the
/// element `id`. It focuses it itself rather than following the `#id` fragment:
/// the fragment is where a share link travels (`saved::link_fragment`). With the
/// tabs, it first brings forward the `tab` the element is on, and focuses it once
/// that is shown.
fn skip_link(
    id: &'static str,
    label: &'static str,
    tab: Option<Tab>,
    show_tab: &Callback<Tab>,
) -> Html {
    let show_tab = show_tab.clone();
    let onclick = Callback::from(move |e: MouseEvent| {
        e.prevent_default();
        let target = move || {
            web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id(id))
                .and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el).ok())
        };
        match target() {
            // In sight: focused at once.
            Some(el) if el.offset_width() > 0 || el.offset_height() > 0 => {
                let _ = el.focus();
            }
            // On a tab not shown: focused once its tab is.
            _ => {
                if let Some(tab) = tab {
                    show_tab.emit(tab);
                }
                gloo_timers::callback::Timeout::new(0, move || {
                    if let Some(el) = target() {
                        let _ = el.focus();
                    }
                })
                .forget();
            }
        }
    });
    html! { <a class="skip-link" href={format!("#{id}")} {onclick}>{ label }</a> }
}

/// A typed callback for a child: what it reports becomes one action.
fn act<T: 'static>(
    dispatch: &UseReducerDispatcher<AppState>,
    action: impl Fn(T) -> Action + 'static,
) -> Callback<T> {
    let dispatch = dispatch.clone();
    Callback::from(move |value| dispatch.dispatch(action(value)))
}

/// The panel beside the floor: the catalogue, the open lesson, a lesson loading, or
/// the errors of one that could not be opened; none in the sandbox.
fn side_panel(state: &AppState, tr: Tr, dispatch: &UseReducerDispatcher<AppState>) -> Option<Html> {
    match &state.panel {
        Panel::Sandbox => None,
        Panel::Catalogue => Some(html! {
            <CatalogueView catalogue={state.catalogue.clone()} progress={state.progress.clone()}
                           {tr} dispatch={dispatch.clone()} />
        }),
        Panel::Lesson => state.lesson.clone().map(|open| html! {
            <LessonPanel {open} progress={state.progress.clone()} {tr} dispatch={dispatch.clone()}
                         ran={state.block_run.clone()} />
        }),
        Panel::Loading(what) => Some(html! {
            <section class="lesson panel"><p class="muted">{ format!("{}: {what}…", tr.l(L::Loading)) }</p></section>
        }),
        Panel::Errors(errors) => Some(html! {
            <section id="lesson-errors" class="lesson panel" role="alert">
                <div class="lesson-top">
                    <button type="button" class="link" onclick={
                        let d = dispatch.clone();
                        Callback::from(move |_: MouseEvent| d.dispatch(Action::ShowCatalogue))
                    }>{ tr.l(L::BackToCatalogue) }</button>
                </div>
                <h2>{ tr.l(L::LessonErrors) }</h2>
                <ul class="lesson-errors">
                    { for errors.iter().map(|e| html! { <li><pre>{ e }</pre></li> }) }
                </ul>
                <AuthorBox {tr} dispatch={dispatch.clone()} />
            </section>
        }),
    }
}

/// The bar saying saved progress was reset (and `why`), with its dismiss button.
fn progress_notice_bar(why: String, tr: Tr, dispatch: &UseReducerDispatcher<AppState>) -> Html {
    let d = dispatch.clone();
    html! {
        <div id="progress-notice" class="notice-bar" role="status">
            { format!("{} ({why}).", tr.l(L::ProgressReset)) }
            <button type="button" onclick={Callback::from(move |_: MouseEvent| d.dispatch(Action::DismissProgressNotice))}>
                { tr.l(L::Dismiss) }
            </button>
        </div>
    }
}

/// The station the open walkthrough's moment lights in the office, if any.
fn lesson_focus(state: &AppState) -> Option<AttrValue> {
    state
        .lesson
        .as_ref()
        .and_then(|o| o.frame.as_deref())
        .and_then(|f| f.as_ref().ok())
        .map(|f| AttrValue::from(crate::frame_card::focus(f)))
}

/// The side panel's kind, which decides the tab to show when it changes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PanelKind {
    /// The catalogue, a lesson, one loading, or one that could not be opened.
    Lessons,
    Sandbox,
}

fn panel_kind(panel: &Panel) -> (PanelKind, u8) {
    match panel {
        Panel::Sandbox => (PanelKind::Sandbox, 0),
        Panel::Catalogue => (PanelKind::Lessons, 0),
        Panel::Lesson => (PanelKind::Lessons, 1),
        Panel::Loading(_) => (PanelKind::Lessons, 2),
        Panel::Errors(_) => (PanelKind::Lessons, 3),
    }
}

fn tab_for_kind(kind: (PanelKind, u8)) -> Tab {
    match kind.0 {
        PanelKind::Lessons => Tab::Lesson,
        PanelKind::Sandbox => Tab::Floor,
    }
}

fn tab_for(panel: &Panel) -> Tab {
    tab_for_kind(panel_kind(panel))
}
