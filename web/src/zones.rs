//! The zone list beside the floor: each zone's state and its kill/restart button.

use crate::i18n::{Key, Tr};
use crate::projection::FloorView;
use crate::state::Outcome;
use crate::target::Target;
use std::rc::Rc;
use warehouse_sim::ZoneHealth;
use yew::prelude::*;

#[derive(Properties)]
pub struct ZonesProps {
    pub view: Rc<FloorView>,
    pub notice: Option<Outcome>,
    pub tr: Tr,
    /// Power a zone off, or on again (its name).
    pub on_kill: Callback<String>,
    pub on_restart: Callback<String>,
    pub on_inspect: Callback<Target>,
    pub on_dismiss: Callback<()>,
}

impl PartialEq for ZonesProps {
    fn eq(&self, other: &Self) -> bool {
        self.view.same_robots(&other.view) && self.notice == other.notice && self.tr == other.tr
    }
}

#[function_component]
pub fn ZoneList(props: &ZonesProps) -> Html {
    let tr = props.tr;
    let rows = props.view.nodes.iter().map(|node| {
        let name = node.name.clone();
        let inspect = {
            let target = Target::Zone(node.name.clone());
            props.on_inspect.reform(move |_: MouseEvent| target.clone())
        };
        let (status, class) = if node.killed {
            (tr.t(Key::PoweredOff), "zone-status off")
        } else if node.health == ZoneHealth::NotReady {
            (tr.t(Key::NotReady), "zone-status warn")
        } else {
            (tr.t(Key::Ready), "zone-status ok")
        };
        let button = if node.killed {
            let onclick = props.on_restart.reform(move |_: MouseEvent| name.clone());
            html! {
                <button type="button" class="restart-zone" data-zone={node.name.clone()} {onclick}
                        aria-label={tr.acting_on(tr.t(Key::RestartZone), &node.name)}>
                    { tr.t(Key::RestartZone) }
                </button>
            }
        } else {
            let onclick = props.on_kill.reform(move |_: MouseEvent| name.clone());
            html! {
                <button type="button" class="kill-zone danger" data-zone={node.name.clone()} {onclick}
                        aria-label={tr.acting_on(tr.t(Key::KillZone), &node.name)}>
                    { tr.t(Key::KillZone) }
                </button>
            }
        };
        html! {
            <li class="zone-row" key={node.name.clone()} data-zone={node.name.clone()}>
                <button type="button" class="zone-name link inspect-zone" data-zone={node.name.clone()}
                        title={crate::inspector_i18n::t(tr, crate::inspector_i18n::I::Inspect)}
                        onclick={inspect}>{ &node.name }</button>
                if node.control_plane {
                    <span class="zone-tag">{ tr.t(Key::ControlPlaneZone) }</span>
                }
                <span class={class}>{ status }</span>
                if node.health == ZoneHealth::NotReady && node.killed {
                    <span class="zone-status warn">{ tr.t(Key::NotReady) }</span>
                }
                <span class="zone-count">{ tr.robot_count(crate::canvas::workload_count(&node.pods)) }</span>
                { button }
            </li>
        }
    });
    let notice = props.notice.as_ref().map(|n| {
        let dismiss = props.on_dismiss.reform(|_: MouseEvent| ());
        html! {
            <p id="zone-notice" class={classes!("notice", n.error.then_some("error"))} role="status">
                <span>{ &n.text }</span>
                <button type="button" class="link" onclick={dismiss} aria-label={tr.t(Key::Dismiss)}>{ "×" }</button>
            </p>
        }
    });
    html! {
        <section class="zones panel" aria-labelledby="zones-heading">
            <h2 id="zones-heading">{ tr.t(Key::ZonesHeading) }</h2>
            <ul class="zone-list">{ for rows }</ul>
            { for notice }
        </section>
    }
}
