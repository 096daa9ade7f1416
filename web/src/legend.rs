//! The colour key for robot states.

use crate::canvas::{state_color, LEGEND_STATES, SYSTEM_COLOR};
use crate::canvas::{LINE_NOT_READY, LINE_READY, LINE_TERMINATING};
use crate::i18n::{Key, Tr, F};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LegendProps {
    pub tr: Tr,
}

#[function_component]
pub fn Legend(props: &LegendProps) -> Html {
    let tr = props.tr;
    html! {
        <div class="legend" aria-label={tr.t(Key::LegendHeading)}>
            <span class="legend-heading">{ tr.t(Key::LegendHeading) }{ ":" }</span>
            { for LEGEND_STATES.iter().map(|s| html! {
                <span class="legend-item" data-state={s.as_str()}>
                    <span class={classes!("swatch", (*s == warehouse_sim::RobotState::Terminating).then_some("striped"))}
                          style={format!("background-color:{}", state_color(*s))}></span>
                    { tr.state(*s) }
                </span>
            }) }
            <span class="legend-item" data-state="system">
                <span class="swatch system" style={format!("background-color:{}", SYSTEM_COLOR)}></span>
                { tr.t(Key::SystemRobots) }
            </span>
            // How a sheet's lines are drawn (canvas.rs `draw_sheet`).
            <span class="legend-heading">{ tr.f(F::LegendLines) }{ ":" }</span>
            <span class="legend-item" data-line="ready">
                <span class="swatch dot" style={format!("background-color:{LINE_READY};border-radius:50%")}></span>
                { tr.f(F::Ready) }
            </span>
            <span class="legend-item" data-line="not-ready">
                <span class="swatch dot" style={format!("border:2px solid {LINE_NOT_READY};border-radius:50%;background:none")}></span>
                { tr.f(F::NotReady) }
            </span>
            <span class="legend-item" data-line="terminating">
                <span class="swatch" style={format!("background:none;border-bottom:2px solid {LINE_TERMINATING};height:0")}></span>
                <s>{ tr.f(F::Terminating) }</s>
            </span>
            <span class="legend-item" data-line="changed">
                <span class="swatch" style="background-color:#ffd23f"></span>
                { tr.f(F::LegendChanged) }
            </span>
        </div>
    }
}
