//! "Why this zone?": the dispatcher's (kube-scheduler's) latest decision for one
//! robot, from the scheduler's decision record — every zone's filter verdict with the
//! plugin and reason that ruled it out, and for the zones that could take the robot
//! each score plugin's weighted score and the total; the chosen zone is marked.
//!
//! The record keeps the latest
//! [`DECISIONS_KEPT`](warehouse_sim::scheduler::DECISIONS_KEPT) decisions, so the
//! panel offers the workload robots it holds that are still on the floor: every
//! choice has an answer, and a warehouse of 10,000 robots does not redraw a list of
//! 10,000 whenever one moves.

use crate::i18n::{Key, Tr};
use crate::projection::FloorView;
use std::rc::Rc;
use warehouse_sim::scheduler::Decision;
use warehouse_sim::{Cluster, ObjectKey, StableSort};
use yew::prelude::*;

/// The robots the panel offers (`namespace/name`, sorted), read again only when the
/// dispatcher's record or the robots on the floor changed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decided {
    /// The record's pods, in its order, when `robots` was made.
    record: Rc<Vec<ObjectKey>>,
    pub robots: Rc<Vec<String>>,
}

impl Decided {
    /// Brings the list up to date; `robots_moved` says the floor's robots changed
    /// since the last call (one may have gone).
    pub fn update(&mut self, cluster: &Cluster, view: &FloorView, robots_moved: bool) {
        let same_record = cluster.decided_pods().eq(self.record.iter());
        if same_record && !robots_moved {
            return;
        }
        if !same_record {
            self.record = Rc::new(cluster.decided_pods().cloned().collect());
        }
        let mut robots: Vec<String> = self
            .record
            .iter()
            .filter(|k| k.namespace != "kube-system")
            .filter(|k| view.find(&k.namespace, &k.name).is_some())
            .map(|k| format!("{}/{}", k.namespace, k.name))
            .collect();
        robots.stable_sort();
        if *robots != *self.robots {
            self.robots = Rc::new(robots);
        }
    }
}

#[derive(Properties)]
pub struct DecisionProps {
    /// The robots to offer (see [`Decided`]).
    pub robots: Rc<Vec<String>>,
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
        Rc::ptr_eq(&self.robots, &other.robots)
            && self.selected == other.selected
            && self.decision == other.decision
            && self.tr == other.tr
    }
}

#[function_component]
pub fn DecisionPanel(props: &DecisionProps) -> Html {
    let tr = props.tr;
    // The robot asked about stays chosen after its decision leaves the record.
    let kept = props
        .selected
        .as_ref()
        .filter(|s| props.robots.binary_search(s).is_err());
    let onchange = props.on_select.reform(|e: Event| {
        let value = e
            .target_dyn_into::<web_sys::HtmlSelectElement>()
            .map(|s| s.value())
            .unwrap_or_default();
        (!value.is_empty()).then_some(value)
    });
    // Keyed by robot: a robot added or gone inserts or removes its own option
    // instead of rewriting every option after it.
    let options = props.robots.iter().chain(kept).map(|p| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::Projection;
    use warehouse_kubectl::{NoFiles, Session};
    use warehouse_sim::scheduler::DECISIONS_KEPT;
    use warehouse_sim::{Kind, SimDuration, Topology};

    fn run(s: &mut Session, line: &str) {
        let out = s.run_shell(line, None, &NoFiles);
        assert_eq!(out.code, 0, "{line}: {}", out.stderr);
    }

    /// Advances a few seconds, then brings the projection and the list up to date as
    /// `AppState::refresh_view` does.
    fn tick(s: &mut Session, p: &mut Projection, d: &mut Decided) {
        s.cluster.advance(SimDuration::millis(3_000));
        let before = p.view.clone();
        p.update(&s.cluster);
        d.update(&s.cluster, &p.view, !before.same_robots(&p.view));
    }

    #[test]
    fn the_list_holds_the_robots_the_record_can_answer_for() {
        let mut s = Session::new(Cluster::settled(1, Topology::with_workers(3)));
        let (mut p, mut d) = (Projection::default(), Decided::default());
        run(
            &mut s,
            "kubectl create deployment web --image=nginx --replicas=300",
        );
        for _ in 0..40 {
            tick(&mut s, &mut p, &mut d);
        }
        let robots = d.robots.clone();
        // More robots than the record keeps: only those it has an answer for.
        assert!(
            robots.len() > 200 && robots.len() <= DECISIONS_KEPT,
            "{}",
            robots.len()
        );
        for r in robots.iter() {
            let (ns, name) = r.split_once('/').unwrap();
            assert_eq!(ns, "default");
            let key = ObjectKey::new(Kind::Pod, ns, name);
            assert!(s.cluster.scheduling_decision(&key).is_some(), "{r}");
        }
        assert!(robots.windows(2).all(|w| w[0] < w[1]), "sorted");

        // A quiet tick keeps the same list (the panel is not drawn again).
        tick(&mut s, &mut p, &mut d);
        assert!(Rc::ptr_eq(&robots, &d.robots));

        // A robot that is gone leaves the list, though the record still has it.
        // (The newest decision's robot: its replacement's decision pushes out the
        // oldest.)
        let key = s.cluster.decided_pods().last().unwrap().clone();
        let listed = format!("default/{}", key.name);
        assert!(robots.contains(&listed));
        let delete = format!("kubectl delete pod {} --grace-period=0 --force", key.name);
        run(&mut s, &delete);
        tick(&mut s, &mut p, &mut d);
        assert!(s.cluster.scheduling_decision(&key).is_some());
        assert!(!d.robots.contains(&listed), "{listed} still listed");
    }
}
