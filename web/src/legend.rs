//! The colour key for robot states.

use crate::canvas::{state_color, LEGEND_STATES, LOCKER_EDGE, LOCKER_FILL, SYSTEM_COLOR};
use crate::canvas::{ATTACHMENT_EDGE, ATTACHMENT_FILL};
use crate::canvas::{CHANGED_COLOR, LINE_NOT_READY, LINE_READY, LINE_TERMINATING};
use crate::i18n::{Key, Tr, F};
use yew::prelude::*;

/// A colour swatch drawn as SVG: presentation attributes, not inline styles, so the
/// page's Content-Security-Policy (`style-src 'self'`) holds.
fn swatch(color: &'static str, striped: bool) -> Html {
    html! {
        <svg class="swatch-svg" viewBox="0 0 12 12" aria-hidden="true">
            <rect x="0.5" y="0.5" width="11" height="11" rx="3" fill={color}
                  stroke="rgba(0,0,0,0.2)" />
            if striped {
                <path d="M0 9L9 0M3 12L12 3M7 12L12 7M0 5L5 0" stroke="rgba(40,40,40,0.6)" stroke-width="1" />
            }
        </svg>
    }
}

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
                    { swatch(state_color(*s), *s == warehouse_sim::RobotState::Terminating) }
                    { tr.state(*s) }
                </span>
            }) }
            <span class="legend-item" data-state="system">
                <svg class="swatch-svg" viewBox="0 0 12 12" aria-hidden="true">
                    <rect x="2" y="2" width="8" height="8" rx="2" fill={SYSTEM_COLOR} opacity="0.9" />
                </svg>
                { tr.t(Key::SystemRobots) }
            </span>
            // A zone's locker and a robot's (`canvas::paint::locker`).
            <span class="legend-item" data-state="locker">
                <svg class="swatch-svg" viewBox="0 0 12 12" aria-hidden="true">
                    <rect x="2.5" y="0.5" width="7" height="11" fill={LOCKER_FILL} stroke={LOCKER_EDGE} />
                    <rect x="7" y="5.5" width="1" height="2.5" fill={LOCKER_EDGE} />
                </svg>
                { tr.f(F::LegendLocker) }
            </span>
            // A robot's attachment (`canvas::paint::draw_attachments`).
            <span class="legend-item" data-state="attachment">
                <svg class="swatch-svg" viewBox="0 0 12 12" aria-hidden="true">
                    <rect x="2.5" y="2.5" width="7" height="7" fill={ATTACHMENT_FILL} stroke={ATTACHMENT_EDGE} />
                </svg>
                { tr.f(F::LegendAttachment) }
            </span>
            // How a sheet's lines are drawn (`canvas::desks::draw_sheet`).
            <span class="legend-heading">{ tr.f(F::LegendLines) }{ ":" }</span>
            <span class="legend-item" data-line="ready">
                <svg class="swatch-svg" viewBox="0 0 12 12" aria-hidden="true">
                    <circle cx="6" cy="6" r="5" fill={LINE_READY} />
                </svg>
                { tr.f(F::Ready) }
            </span>
            <span class="legend-item" data-line="not-ready">
                <svg class="swatch-svg" viewBox="0 0 12 12" aria-hidden="true">
                    <circle cx="6" cy="6" r="4.5" fill="none" stroke={LINE_NOT_READY} stroke-width="2" />
                </svg>
                { tr.f(F::NotReady) }
            </span>
            <span class="legend-item" data-line="terminating">
                <svg class="swatch-svg" viewBox="0 0 12 12" aria-hidden="true">
                    <line x1="0" y1="11" x2="12" y2="11" stroke={LINE_TERMINATING} stroke-width="2" />
                </svg>
                <s>{ tr.f(F::Terminating) }</s>
            </span>
            <span class="legend-item" data-line="changed">
                <svg class="swatch-svg" viewBox="0 0 12 12" aria-hidden="true">
                    <rect x="0.5" y="0.5" width="11" height="11" rx="3" fill={CHANGED_COLOR} />
                </svg>
                { tr.f(F::LegendChanged) }
            </span>
        </div>
    }
}
