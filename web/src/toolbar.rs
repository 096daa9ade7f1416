//! The clock, play/pause, speed, the advance buttons, and the language and names
//! toggles, with the note on real Kubernetes timings. On a phone (style.css's
//! `max-width: 700px`) one row stays: the clock, play/pause and Step as icons, +1m
//! and +5m, and "More", which shows the rest (marked `secondary`; +10s and +30s are
//! left out there).

use crate::i18n::{clock, Key, Tr};
use crate::state::{ADVANCE_STEPS_MS, SPEEDS};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties)]
pub struct ToolbarProps {
    pub time_ms: u64,
    pub playing: bool,
    pub speed: u32,
    pub tr: Tr,
    /// Open the lesson catalogue.
    pub on_catalogue: Callback<()>,
    pub on_toggle_play: Callback<()>,
    /// Jump this many simulated milliseconds.
    pub on_advance: Callback<u64>,
    /// Simulated seconds per real second.
    pub on_speed: Callback<u32>,
    pub on_toggle_names: Callback<()>,
    pub on_toggle_lang: Callback<()>,
    /// The simulated times the session's history reaches, earliest and latest
    /// (`None`: nothing has happened yet); in a lesson, since the step opened.
    pub history: Option<(u64, u64)>,
    /// Go to this simulated time (milliseconds) in the history.
    pub on_rewind: Callback<u64>,
    /// Make a link to this moment.
    pub on_share: Callback<()>,
    /// Run the clock to the next thing that happens.
    pub on_step: Callback<()>,
    /// What the last step found, in the page's language.
    pub stepped: Option<AttrValue>,
    /// Offer Share even without a history slider (in a lesson).
    #[prop_or_default]
    pub can_share: bool,
}

impl PartialEq for ToolbarProps {
    /// What it shows; the callbacks are made anew by every render of the app.
    fn eq(&self, other: &Self) -> bool {
        (
            self.time_ms,
            self.playing,
            self.speed,
            self.tr,
            self.history,
            &self.stepped,
            self.can_share,
        ) == (
            other.time_ms,
            other.playing,
            other.speed,
            other.tr,
            other.history,
            &other.stepped,
            other.can_share,
        )
    }
}

#[function_component]
pub fn Toolbar(props: &ToolbarProps) -> Html {
    let tr = props.tr;
    // On a phone: whether the controls past the first row are shown.
    let more = use_state(|| false);
    let click = |cb: &Callback<()>| cb.reform(|_: MouseEvent| ());
    let on_speed = {
        let on_speed = props.on_speed.clone();
        Callback::from(move |e: Event| {
            let speed = e.target_dyn_into::<HtmlSelectElement>();
            if let Some(speed) = speed.and_then(|s| s.value().parse::<u32>().ok()) {
                on_speed.emit(speed);
            }
        })
    };
    let on_rewind = {
        let on_rewind = props.on_rewind.clone();
        Callback::from(move |e: Event| {
            let input = e.target_dyn_into::<HtmlInputElement>();
            if let Some(ms) = input.and_then(|i| i.value().parse::<f64>().ok()) {
                on_rewind.emit(ms.max(0.0) as u64);
            }
        })
    };
    let history = props.history.map(|(earliest, latest)| {
        // Whole seconds, so the slider's steps land on them.
        let earliest = earliest / 1000 * 1000;
        let latest = latest.max(props.time_ms).max(earliest + 1000);
        html! { <>
            <label class="history secondary" title={tr.t(Key::HistoryTitle)}>
                <span class="history-label">{ tr.t(Key::History) }</span>
                <input id="history" type="range" step="1000"
                       min={earliest.to_string()} max={latest.to_string()}
                       value={props.time_ms.to_string()}
                       aria-valuetext={clock(props.time_ms)}
                       onchange={on_rewind} />
                <span class="history-range" aria-hidden="true">
                    { format!("{} – {}", clock(earliest), clock(latest)) }
                </span>
            </label>
        </> }
    });
    let share = (props.history.is_some() || props.can_share).then(|| {
        html! {
            <button id="share-btn" type="button" class="secondary" title={tr.t(Key::ShareTitle)}
                    onclick={click(&props.on_share)}>
                { tr.t(Key::Share) }
            </button>
        }
    });
    let play_label = if props.playing {
        tr.t(Key::Pause)
    } else {
        tr.t(Key::Play)
    };

    let more_label = match tr.lang {
        crate::i18n::Lang::En => "More",
        crate::i18n::Lang::Ru => "Ещё",
    };
    let on_more = {
        let more = more.clone();
        Callback::from(move |_: MouseEvent| more.set(!*more))
    };

    html! {
        <div class={classes!("toolbar", more.then_some("more-open"))}>
            <div class="toolbar-row">
                <h1 class="title">{ tr.t(Key::Title) }</h1>
                <button id="lessons-btn" type="button" class="secondary" onclick={click(&props.on_catalogue)}>
                    { tr.l(crate::i18n::L::LessonsButton) }
                </button>
                <div class="clock-box" title={tr.t(Key::ClockTitle)}>
                    <span class="clock-label">{ tr.t(Key::Clock) }</span>
                    <span id="clock" class="clock">{ clock(props.time_ms) }</span>
                </div>
                <button id="play-pause" type="button" class="primary"
                        aria-pressed={(!props.playing).to_string()}
                        onclick={click(&props.on_toggle_play)}>
                    <span class={if props.playing { "icon-pause" } else { "icon-play" }}
                          aria-hidden="true"></span>
                    <span class="btn-label">{ play_label }</span>
                </button>
                <button id="step-btn" type="button" title={tr.t(Key::StepTitle)}
                        onclick={click(&props.on_step)}>
                    <span class="icon-step" aria-hidden="true"></span>
                    <span class="btn-label">{ tr.t(Key::Step) }</span>
                </button>
                <label class="speed secondary">
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
                        <button type="button" class={classes!("advance", (*ms < 60_000).then_some("secondary"))}
                                data-ms={ms.to_string()}
                                onclick={props.on_advance.reform({ let ms = *ms; move |_: MouseEvent| ms })}>
                            { tr.advance(*ms) }
                        </button>
                    }) }
                </div>
                <button id="more-toggle" type="button" class="more-toggle"
                        aria-expanded={more.to_string()}
                        onclick={on_more}>
                    { more_label }
                </button>
                { for history }
                { for share }
                <div class="toggles secondary">
                    <button id="names-toggle" type="button"
                            aria-pressed={(tr.names == crate::i18n::Names::Kubernetes).to_string()}
                            onclick={click(&props.on_toggle_names)}>
                        { tr.t(Key::NamesToggle) }
                    </button>
                    <button id="lang-toggle" type="button" lang={tr.lang.other().tag()}
                            title={tr.t(Key::LangToggleTitle)}
                            onclick={click(&props.on_toggle_lang)}>
                        { tr.t(Key::LangToggle) }
                    </button>
                </div>
            </div>
            <p id="step-note" class="step-note" role="status">
                { props.stepped.clone().unwrap_or_default() }
            </p>
            <p class="timing-note secondary">{ tr.t(Key::TimingNote) }</p>
        </div>
    }
}
