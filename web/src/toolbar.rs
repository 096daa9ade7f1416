//! The clock, play/pause, speed, the advance buttons, and the language and names
//! toggles, with the note on real Kubernetes timings.

use crate::i18n::{clock, Key, Tr};
use crate::state::{Action, AppState, ADVANCE_STEPS_MS, SPEEDS};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ToolbarProps {
    pub time_ms: u64,
    pub playing: bool,
    pub speed: u32,
    pub tr: Tr,
    pub dispatch: UseReducerDispatcher<AppState>,
}

#[function_component]
pub fn Toolbar(props: &ToolbarProps) -> Html {
    let tr = props.tr;
    let send = |action: Action| {
        let dispatch = props.dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(action.clone()))
    };
    let on_speed = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: Event| {
            if let Some(select) = e.target_dyn_into::<HtmlSelectElement>() {
                if let Ok(speed) = select.value().parse::<u32>() {
                    dispatch.dispatch(Action::SetSpeed(speed));
                }
            }
        })
    };
    let play_label = if props.playing {
        tr.t(Key::Pause)
    } else {
        tr.t(Key::Play)
    };

    html! {
        <div class="toolbar">
            <div class="toolbar-row">
                <h1 class="title">{ tr.t(Key::Title) }</h1>
                <button id="lessons-btn" type="button" onclick={send(Action::ShowCatalogue)}>
                    { tr.l(crate::i18n::L::LessonsButton) }
                </button>
                <div class="clock-box" title={tr.t(Key::ClockTitle)}>
                    <span class="clock-label">{ tr.t(Key::Clock) }</span>
                    <span id="clock" class="clock">{ clock(props.time_ms) }</span>
                </div>
                <button id="play-pause" type="button" class="primary"
                        aria-pressed={(!props.playing).to_string()}
                        onclick={send(Action::TogglePlay)}>
                    <span class={if props.playing { "icon-pause" } else { "icon-play" }}
                          aria-hidden="true"></span>
                    { play_label }
                </button>
                <label class="speed">
                    { tr.t(Key::Speed) }{" "}
                    <select id="speed" onchange={on_speed}>
                        { for SPEEDS.iter().map(|s| html! {
                            <option value={s.to_string()} selected={*s == props.speed}>
                                { format!("{s}×") }
                            </option>
                        }) }
                    </select>
                </label>
                <div class="advance-group" role="group" title={tr.t(Key::AdvanceTitle)}>
                    { for ADVANCE_STEPS_MS.iter().map(|ms| html! {
                        <button type="button" class="advance" data-ms={ms.to_string()}
                                onclick={send(Action::Advance(*ms))}>
                            { tr.advance(*ms) }
                        </button>
                    }) }
                </div>
                <div class="toggles">
                    <button id="names-toggle" type="button"
                            aria-pressed={(tr.names == crate::i18n::Names::Kubernetes).to_string()}
                            onclick={send(Action::ToggleNames)}>
                        { tr.t(Key::NamesToggle) }
                    </button>
                    <button id="lang-toggle" type="button" lang={tr.lang.other().tag()}
                            title={tr.t(Key::LangToggleTitle)}
                            onclick={send(Action::ToggleLang)}>
                        { tr.t(Key::LangToggle) }
                    </button>
                </div>
            </div>
            <p class="timing-note">{ tr.t(Key::TimingNote) }</p>
        </div>
    }
}
