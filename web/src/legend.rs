//! The colour key for robot states.

use crate::canvas::{state_color, LEGEND_STATES, SYSTEM_COLOR};
use crate::i18n::{Key, Tr};
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
        </div>
    }
}
