//! The floor as text, beside the canvas, for screen readers and for anyone who
//! would rather read: each zone with its robots by state, the waiting bay, and the
//! order desks with their sheets. Every sentence is the canvas tooltip's
//! ([`crate::canvas::describe`]) for the same view and data the canvas draws, so
//! the text and the picture never disagree.

use crate::canvas::{describe, workload_count};
use crate::floor::{is_system_desk, FloorData};
use crate::i18n::{Key, Tr, F};
use crate::projection::FloorView;
use crate::target::Target;
use std::collections::BTreeMap;
use std::rc::Rc;
use warehouse_sim::RobotState;
use yew::prelude::*;

#[derive(Properties)]
pub struct FloorTextProps {
    pub view: Rc<FloorView>,
    pub floor: FloorData,
    pub tr: Tr,
}

impl PartialEq for FloorTextProps {
    fn eq(&self, other: &Self) -> bool {
        // The zones, the bay and the desks: time alone changes nothing said here.
        self.view.same_robots(&other.view)
            && Rc::ptr_eq(&self.floor.desks, &other.floor.desks)
            && self.tr == other.tr
    }
}

/// "name: state" from a tooltip's two lines.
fn sentence((title, line): (String, String)) -> String {
    if line.is_empty() {
        title
    } else {
        format!("{title}: {line}")
    }
}

#[function_component]
pub fn FloorText(props: &FloorTextProps) -> Html {
    let tr = props.tr;
    let (view, data) = (&*props.view, &props.floor);
    let zones = view.nodes.iter().map(|n| {
        let text = sentence(describe(&Target::Zone(n.name.clone()), view, data, tr));
        html! { <li class="floor-text-zone" data-zone={n.name.clone()}>{ text }</li> }
    });
    let mut bay: BTreeMap<RobotState, usize> = BTreeMap::new();
    for p in view.unscheduled.iter().filter(|p| !p.system) {
        *bay.entry(p.state).or_default() += 1;
    }
    let bay_states = bay
        .iter()
        .map(|(s, c)| format!("{c} {}", tr.state(*s).to_lowercase()))
        .collect::<Vec<_>>()
        .join(", ");
    let bay_line = format!(
        "{}: {}{}",
        tr.t(Key::FloorTextBay),
        tr.robot_count(workload_count(&view.unscheduled)),
        if bay_states.is_empty() {
            String::new()
        } else {
            format!(" ({bay_states})")
        }
    );
    let desks: Vec<Html> = data
        .desks
        .iter()
        .filter(|d| !is_system_desk(d))
        .map(|d| {
            let desk = Target::Desk {
                namespace: d.namespace.clone(),
                name: d.name.clone(),
            };
            let sheets = d.sheets.iter().map(|s| {
                let sheet = Target::Sheet {
                    namespace: d.namespace.clone(),
                    name: s.name.clone(),
                };
                html! { <li>{ sentence(describe(&sheet, view, data, tr)) }</li> }
            });
            html! {
                <li class="floor-text-desk" data-desk={d.name.clone()}>
                    { sentence(describe(&desk, view, data, tr)) }
                    if !d.sheets.is_empty() {
                        <ul>{ for sheets }</ul>
                    }
                </li>
            }
        })
        .collect();
    html! {
        <details id="floor-text" class="floor-text panel">
            <summary>{ tr.t(Key::FloorText) }</summary>
            <h2 class="visually-hidden">{ tr.t(Key::ZonesHeading) }</h2>
            <ul class="floor-text-zones">{ for zones }</ul>
            <p id="floor-text-bay">{ bay_line }</p>
            <h2>{ tr.f(F::Desks) }</h2>
            if desks.is_empty() {
                <p class="muted">{ tr.t(Key::FloorTextNoDesks) }</p>
            } else {
                <ul class="floor-text-desks">{ for desks }</ul>
            }
        </details>
    }
}
