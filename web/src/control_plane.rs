//! The control-plane panel beside the floor: each component's state and its
//! stop/start button (`sim stop scheduler`, `sim start scheduler`).

use crate::i18n::{Key, Tr};
use crate::projection::FloorView;
use std::rc::Rc;
use warehouse_sim::ControlPlaneComponent;
use yew::prelude::*;

#[derive(Properties)]
pub struct ComponentsProps {
    pub view: Rc<FloorView>,
    pub tr: Tr,
    /// Start or stop a component (`sim start`, `sim stop`).
    pub on_start: Callback<ControlPlaneComponent>,
    pub on_stop: Callback<ControlPlaneComponent>,
    pub on_inspect: Callback<crate::target::Target>,
}

impl PartialEq for ComponentsProps {
    fn eq(&self, other: &Self) -> bool {
        self.view.components == other.view.components && self.tr == other.tr
    }
}

/// The label key of a component, by its Kubernetes name.
pub fn component_key(name: &str) -> Key {
    match name {
        "kube-apiserver" => Key::Apiserver,
        "etcd" => Key::Etcd,
        "kube-scheduler" => Key::Scheduler,
        _ => Key::ControllerManager,
    }
}

#[function_component]
pub fn ComponentList(props: &ComponentsProps) -> Html {
    let tr = props.tr;
    let rows = props.view.components.iter().filter_map(|view| {
        let component = ControlPlaneComponent::parse(view.name)?;
        let inspect = {
            let target = crate::target::Target::Staff(component);
            props.on_inspect.reform(move |_: MouseEvent| target.clone())
        };
        let (status, class) = if view.running {
            (tr.t(Key::ComponentRunning), "zone-status ok")
        } else {
            (tr.t(Key::ComponentStopped), "zone-status stopped")
        };
        let label = tr.t(component_key(view.name));
        let start_name = tr.acting_on(tr.t(Key::StartComponent), label);
        let button = if view.stopped {
            let onclick = props.on_start.reform(move |_: MouseEvent| component);
            html! {
                <button type="button" class="start-component" data-component={view.name} {onclick}
                        aria-label={start_name}>
                    { tr.t(Key::StartComponent) }
                </button>
            }
        } else if !view.running {
            // Down with its zone: nothing to stop, and it starts when the zone does.
            html! {
                <button type="button" class="start-component" data-component={view.name} disabled=true
                        aria-label={start_name}>
                    { tr.t(Key::StartComponent) }
                </button>
            }
        } else {
            let onclick = props.on_stop.reform(move |_: MouseEvent| component);
            html! {
                <button type="button" class="stop-component danger" data-component={view.name} {onclick}
                        aria-label={tr.acting_on(tr.t(Key::StopComponent), label)}>
                    { tr.t(Key::StopComponent) }
                </button>
            }
        };
        Some(html! {
            <li class="zone-row component-row" key={view.name} data-component={view.name}>
                <button type="button" class="zone-name link inspect-component" data-component={view.name}
                        onclick={inspect}>{ tr.t(component_key(view.name)) }</button>
                <span class={class}>{ status }</span>
                { button }
            </li>
        })
    });
    html! {
        <section class="components panel" aria-labelledby="components-heading">
            <h2 id="components-heading">{ tr.t(Key::ComponentsHeading) }</h2>
            <ul class="zone-list component-list">{ for rows }</ul>
        </section>
    }
}
