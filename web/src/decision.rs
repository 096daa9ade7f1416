//! "Why this zone?": the dispatcher's (kube-scheduler's) latest decision for one
//! robot, from the scheduler's decision record — every zone's filter verdict with the
//! plugin and reason that ruled it out, and for the zones that could take the robot
//! each score plugin's weighted score and the total; the chosen zone is marked.

use crate::i18n::{Key, Tr};
use crate::projection::FloorView;
use std::rc::Rc;
use warehouse_sim::scheduler::Decision;
use warehouse_sim::StableSort;
use yew::prelude::*;

#[derive(Properties)]
pub struct DecisionProps {
    pub view: Rc<FloorView>,
    /// `namespace/name` of the robot asked about.
    pub selected: Option<String>,
    pub decision: Option<Rc<Decision>>,
    pub tr: Tr,
    /// Ask about a robot (`namespace/name`), or about none.
    pub on_select: Callback<Option<String>>,
    pub on_inspect: Callback<crate::target::Target>,
}

impl PartialEq for DecisionProps {
    fn eq(&self, other: &Self) -> bool {
        // It lists the robots: a view whose zones and bay are the same ones keeps it.
        self.view.same_robots(&other.view)
            && self.selected == other.selected
            && self.decision == other.decision
            && self.tr == other.tr
    }
}

#[function_component]
pub fn DecisionPanel(props: &DecisionProps) -> Html {
    let tr = props.tr;
    let mut pods: Vec<String> = props
        .view
        .nodes
        .iter()
        .flat_map(|n| n.pods.iter())
        .chain(props.view.unscheduled.iter())
        .filter(|p| !p.system)
        .map(|p| format!("{}/{}", p.namespace, p.name))
        .collect();
    pods.stable_sort();
    let onchange = props.on_select.reform(|e: Event| {
        let value = e
            .target_dyn_into::<web_sys::HtmlSelectElement>()
            .map(|s| s.value())
            .unwrap_or_default();
        (!value.is_empty()).then_some(value)
    });
    // Keyed by robot: a robot added or gone inserts or removes its own option
    // instead of rewriting every option after it (10,000 of them at scale).
    let options = pods.iter().map(|p| {
        let selected = props.selected.as_deref() == Some(p.as_str());
        html! { <option key={p.clone()} value={p.clone()} {selected}>{ p.clone() }</option> }
    });
    let table = props.decision.as_ref().map(|d| decision_table(d, tr));
    let inspect_target = props.selected.as_deref().and_then(|p| {
        let (namespace, name) = p.split_once('/')?;
        Some(crate::target::Target::Robot {
            namespace: namespace.to_string(),
            name: name.to_string(),
        })
    });
    let empty = props.selected.is_some() && props.decision.is_none();
    html! {
        <section class="decision panel" aria-labelledby="decision-heading">
            <h2 id="decision-heading">{ tr.t(Key::DecisionHeading) }</h2>
            <label class="hint" for="why-pod">{ tr.t(Key::DecisionPick) }</label>
            <select id="why-pod" {onchange}>
                <option value="" selected={props.selected.is_none()}>{ "—" }</option>
                { for options }
            </select>
            if let Some(target) = inspect_target.clone() {
                <button type="button" id="why-pod-inspect" class="link"
                        onclick={props.on_inspect.reform(move |_: MouseEvent| target.clone())}>{ crate::inspector_i18n::t(tr, crate::inspector_i18n::I::Inspect) }</button>
            }
            if empty {
                <p class="hint">{ tr.t(Key::DecisionNone) }</p>
            }
            { for table }
        </section>
    }
}

/// The decision's message and its per-zone table (filter verdicts, weighted scores,
/// totals; the chosen zone marked). Also drawn by the inspector for a robot.
pub fn decision_table(d: &Decision, tr: Tr) -> Html {
    let plugins: Vec<String> = {
        let mut v: Vec<String> = Vec::new();
        for verdict in &d.verdicts {
            for s in &verdict.scores {
                if !v.contains(&s.plugin) {
                    v.push(s.plugin.clone());
                }
            }
        }
        v
    };
    let header = plugins
        .iter()
        .map(|p| html! { <th scope="col" title={p.clone()}>{ short(p) }</th> });
    let rows = d.verdicts.iter().map(|v| {
        let chosen = d.chosen.as_deref() == Some(v.node.as_str());
        let class = classes!(
            "verdict",
            chosen.then_some("chosen"),
            v.failed_plugin.is_some().then_some("filtered")
        );
        let cells: Html = match &v.failed_plugin {
            Some(plugin) => html! {
                <td class="reason" colspan={(plugins.len() + 1).to_string()}>
                    { format!("✗ {plugin}: {}", v.reasons.join(", ")) }
                </td>
            },
            None => {
                let scores = plugins.iter().map(|p| {
                    let s = v.scores.iter().find(|s| &s.plugin == p);
                    match s {
                        Some(s) => html! {
                            <td title={format!("raw {} → {} × {}", s.raw, s.normalized, s.weight)}>{ s.weighted }</td>
                        },
                        None => html! { <td>{ "–" }</td> },
                    }
                });
                html! { <>{ for scores }<td class="total">{ v.total }</td></> }
            }
        };
        html! {
            <tr {class} data-node={v.node.clone()}>
                <th scope="row">{ if chosen { format!("→ {}", v.node) } else { v.node.clone() } }</th>
                { cells }
            </tr>
        }
    });
    html! {
        <>
            <p class="decision-message">{ &d.message }</p>
            <table class="decision-table">
                <thead><tr>
                    <th scope="col">{ tr.t(Key::DecisionZone) }</th>
                    { for header }
                    <th scope="col">{ tr.t(Key::DecisionTotal) }</th>
                </tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
        </>
    }
}

/// A score plugin's column title: its name without the `NodeResources` prefix.
fn short(plugin: &str) -> String {
    plugin
        .strip_prefix("NodeResources")
        .unwrap_or(plugin)
        .to_string()
}
