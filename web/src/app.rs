//! The root component: owns the state, runs the animation clock, installs the test
//! hook, and lays out the floor, the zone list, the editor and the terminal.

use crate::canvas::WarehouseCanvas;
use crate::control_plane::ComponentList;
use crate::decision::DecisionPanel;
use crate::editor::Editor;
use crate::i18n::{Key, Names, Tr};
use crate::legend::Legend;
use crate::requests::RequestLog;
use crate::state::{Action, AppState};
use crate::terminal::TerminalBox;
use crate::test_hook;
use crate::toolbar::Toolbar;
use crate::zones::ZoneList;
use gloo_timers::callback::Interval;
use std::cell::Cell;
use yew::prelude::*;

/// Real milliseconds between animation ticks (about 30 frames a second).
pub const FRAME_MS: u32 = 33;

#[function_component]
pub fn App() -> Html {
    let state = use_reducer(AppState::default);
    let dispatch = state.dispatcher();

    // The read-only hook for browser tests, once.
    {
        let session = state.session.clone();
        use_effect_with((), move |_| {
            if let Err(e) = test_hook::install(session) {
                web_sys::console::warn_2(&"window.__warehouse:".into(), &e);
            }
        });
    }

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

    let tr = state.tr();
    html! {
        <div class="app">
            <Toolbar time_ms={state.view.time_ms} playing={state.playing} speed={state.speed}
                     {tr} dispatch={dispatch.clone()} />
            <main class="layout">
                <div class="floor">
                    <div class="canvas-wrap">
                        <WarehouseCanvas view={state.view.clone()} {tr} />
                    </div>
                    <Legend {tr} />
                    <ZoneList view={state.view.clone()} notice={state.notice.clone()} {tr}
                              dispatch={dispatch.clone()} />
                    <ComponentList view={state.view.clone()} {tr} dispatch={dispatch.clone()} />
                    <DecisionPanel view={state.view.clone()} selected={state.selected_pod.clone()}
                                   decision={state.decision.clone()} {tr} dispatch={dispatch.clone()} />
                    <RequestLog view={state.view.clone()} {tr} />
                </div>
                <div class="side">
                    <Editor yaml={state.yaml.clone()} result={state.apply_result.clone()}
                            editing={state.editing.clone()} {tr}
                            dispatch={dispatch.clone()} />
                    <TerminalBox terminal={state.terminal.clone()} session={state.session.clone()}
                                 {tr} dispatch={dispatch} />
                </div>
            </main>
        </div>
    }
}
