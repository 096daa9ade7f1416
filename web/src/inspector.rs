//! The inspector: everything about one thing on the floor (a robot, zone, order desk,
//! sheet or staff member), as kubectl tells it — `kubectl describe`, the live
//! `kubectl get -o yaml` (refreshed whenever the store's revision moves), `kubectl
//! events --for`, and `sim why`'s trace chain in words — plus the scheduler's per-zone
//! table for a robot and a role card for staff. Its buttons act through the same
//! [`Action`]s as the rest of the UI, so each one also shows in the terminal.
//!
//! Opened by `Action::Inspect(Some(target))`; the close button and Escape close it.

use crate::i18n::Tr;
use crate::inspector_i18n::{self as text, I};
use crate::kubectl::{NoFiles, Session};
use crate::projection::FloorView;
use crate::state::{Action, AppState};
use crate::target::Target;
use std::rc::Rc;
use warehouse_sim::scheduler::Decision;
use warehouse_sim::StableSort;
use warehouse_sim::{ControlPlaneComponent, Kind, ObjectKey, PodView, ZoneHealth};
use yew::prelude::*;

/// The most robots a zone's card lists (a zone can hold 110).
const ROBOTS_LISTED: usize = 40;

/// What kubectl printed about the target, taken once per store revision.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub describe: String,
    pub yaml: String,
    pub events: String,
    pub why: String,
    /// The scheduler's latest decision, for a robot.
    pub decision: Option<Decision>,
    /// A desk's sheets (EndpointSlice names).
    pub sheets: Vec<String>,
}

/// kubectl's `TYPE/NAME` and namespace for the target; for staff, its static pod.
fn object_ref(target: &Target, view: &FloorView) -> Option<(String, Option<String>)> {
    match target {
        Target::Staff(c) => {
            static_pod(view, *c).map(|p| (format!("pod/{}", p.name), Some(p.namespace.clone())))
        }
        other => other.kubectl_ref(),
    }
}

/// The static pod a component runs as (`kube-scheduler-control-plane`), if the view
/// has one.
fn static_pod(view: &FloorView, c: ControlPlaneComponent) -> Option<&PodView> {
    let prefix = format!("{}-", c.name());
    view.nodes
        .iter()
        .flat_map(|n| n.pods.iter())
        .find(|p| p.system && p.name.starts_with(&prefix))
}

/// Runs the read-only commands behind the inspector.
pub fn report(session: &mut Session, target: &Target, view: &FloorView) -> Report {
    let Some((object, namespace)) = object_ref(target, view) else {
        return Report::default();
    };
    let ns = namespace
        .as_ref()
        .map(|n| format!(" -n {n}"))
        .unwrap_or_default();
    let mut run = |line: String| {
        let out = session.run_unrecorded(&line, None, &NoFiles);
        format!("{}{}", out.stdout, out.stderr)
    };
    let (kind, name) = object.split_once('/').unwrap_or((&object, ""));
    let describe = run(format!("describe {kind} {name}{ns}"));
    let yaml = run(format!("get {kind} {name}{ns} -o yaml"));
    let events = run(format!("events --for {object}{ns}"));
    let sheets = match target {
        Target::Desk { namespace, name } => run(format!(
            "get endpointslices -n {namespace} -l kubernetes.io/service-name={name} -o name"
        ))
        .lines()
        .filter_map(|l| l.split_once('/').map(|(_, n)| n.to_string()))
        .collect(),
        _ => Vec::new(),
    };
    let why = {
        let out = session.run_shell_unrecorded(&format!("sim why {object}{ns}"), None, &NoFiles);
        format!("{}{}", out.stdout, out.stderr)
    };
    let decision = match target {
        Target::Robot { namespace, name } => session
            .cluster
            .scheduling_decision(&ObjectKey::new(Kind::Pod, namespace, name))
            .cloned(),
        _ => None,
    };
    Report {
        describe,
        yaml,
        events,
        why,
        decision,
        sheets,
    }
}

/// One write of `sim why`'s chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhyStep {
    pub revision: u64,
    /// `ADDED`, `MODIFIED`, `DELETED`.
    pub event: String,
    /// `pod/default/web-1`.
    pub object: String,
    pub actor: String,
    /// `on request`, `reacting to revision 12`, `when timer "x" fired (...)`.
    pub how: String,
}

/// Parses `sim why`'s lines (`revision 258: MODIFIED pod/default/web-1 by
/// system:kube-scheduler reacting to revision 254`), oldest first. Lines that do not
/// parse are left out (the raw text is shown too).
pub fn parse_why(text: &str) -> Vec<WhyStep> {
    let mut steps: Vec<WhyStep> = text
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("revision ")?;
            let (revision, rest) = rest.split_once(": ")?;
            let (event, rest) = rest.split_once(' ')?;
            let (object, rest) = rest.split_once(" by ")?;
            let (actor, how) = rest.split_once(' ').unwrap_or((rest, ""));
            Some(WhyStep {
                revision: revision.parse().ok()?,
                event: event.to_string(),
                object: object.to_string(),
                actor: actor.to_string(),
                how: how.to_string(),
            })
        })
        .collect();
    steps.stable_sort_by_key(|s| s.revision);
    steps
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tab {
    Role,
    Describe,
    Yaml,
    Events,
    Why,
    WhyZone,
}

impl Tab {
    fn id(self) -> &'static str {
        match self {
            Tab::Role => "role",
            Tab::Describe => "describe",
            Tab::Yaml => "yaml",
            Tab::Events => "events",
            Tab::Why => "why",
            Tab::WhyZone => "why-zone",
        }
    }

    fn label(self) -> I {
        match self {
            Tab::Role => I::Role,
            Tab::Describe => I::Describe,
            Tab::Yaml => I::Yaml,
            Tab::Events => I::Events,
            Tab::Why => I::Why,
            Tab::WhyZone => I::WhyZone,
        }
    }
}

fn tabs_for(target: &Target) -> Vec<Tab> {
    match target {
        Target::Robot { .. } => vec![
            Tab::Describe,
            Tab::Yaml,
            Tab::Events,
            Tab::Why,
            Tab::WhyZone,
        ],
        Target::Staff(_) => vec![Tab::Role, Tab::Describe, Tab::Yaml, Tab::Events, Tab::Why],
        _ => vec![Tab::Describe, Tab::Yaml, Tab::Events, Tab::Why],
    }
}

#[derive(Properties)]
pub struct InspectorProps {
    pub target: Target,
    /// What kubectl printed about the target (the reducer takes it once per store
    /// revision: see `AppState::inspection`).
    pub report: Rc<Report>,
    pub view: Rc<FloorView>,
    pub tr: Tr,
    pub dispatch: UseReducerDispatcher<AppState>,
}

impl PartialEq for InspectorProps {
    fn eq(&self, other: &Self) -> bool {
        self.target == other.target
            && Rc::ptr_eq(&self.view, &other.view)
            && Rc::ptr_eq(&self.report, &other.report)
            && self.tr == other.tr
            && self.dispatch == other.dispatch
    }
}

#[function_component]
pub fn Inspector(props: &InspectorProps) -> Html {
    let tr = props.tr;
    let target = props.target.clone();
    let view = props.view.clone();
    let tabs = tabs_for(&target);
    let tab = use_state(|| tabs[0]);
    let current = if tabs.contains(&*tab) { *tab } else { tabs[0] };
    let close_ref = use_node_ref();

    let report = props.report.clone();

    // Escape closes the inspector, wherever the focus is.
    {
        let dispatch = props.dispatch.clone();
        use_effect_with((), move |_| {
            let listener = escape_listener(dispatch);
            move || drop(listener)
        });
    }
    // Focus moves to the inspector when it opens on something new.
    {
        let close_ref = close_ref.clone();
        use_effect_with(target.clone(), move |_| {
            if let Some(el) = close_ref.cast::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        });
    }

    let dispatch = props.dispatch.clone();
    let act = move |action: Action| {
        let d = dispatch.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(action.clone()))
    };
    let close = act(Action::Inspect(None));

    let (kind, title, status) = header(tr, &target, &view);
    let actions = actions(tr, &target, &view, &report.sheets, &act);
    let tab_buttons = tabs.iter().map(|t| {
        let selected = *t == current;
        let onclick = {
            let tab = tab.clone();
            let t = *t;
            Callback::from(move |_: MouseEvent| tab.set(t))
        };
        html! {
            <button type="button" role="tab" class={classes!("inspector-tab", selected.then_some("selected"))}
                    data-tab={t.id()} aria-selected={selected.to_string()} {onclick}>
                { text::t(tr, t.label()) }
            </button>
        }
    });
    let body = match current {
        Tab::Role => match &target {
            Target::Staff(c) => html! { <p class="inspector-role">{ text::role(tr, *c) }</p> },
            _ => html! {},
        },
        Tab::Describe => html! {
            <>
                if matches!(target, Target::Staff(_)) {
                    <p class="hint">{ text::t(tr, I::StaffPod) }</p>
                }
                <pre id="inspector-describe" class="inspector-text" tabindex="0">{ &report.describe }</pre>
            </>
        },
        Tab::Yaml => html! {
            <>
                <p class="hint">{ text::t(tr, I::YamlHint).replace("{rev}", &view.revision.to_string()) }</p>
                <pre id="inspector-yaml" class="inspector-text" tabindex="0">{ &report.yaml }</pre>
            </>
        },
        Tab::Events => {
            html! { <pre id="inspector-events" class="inspector-text" tabindex="0">{ &report.events }</pre> }
        }
        Tab::Why => why_view(tr, &report.why),
        Tab::WhyZone => match &report.decision {
            Some(d) => {
                html! { <div id="inspector-decision">{ crate::decision::decision_table(d, tr) }</div> }
            }
            None => {
                html! { <p id="inspector-decision" class="hint">{ tr.t(crate::i18n::Key::DecisionNone) }</p> }
            }
        },
    };
    html! {
        <section id="inspector" class="inspector panel" aria-labelledby="inspector-heading"
                 data-target={target_id(&target)}>
            <div class="inspector-top">
                <h2 id="inspector-heading">
                    <span class="inspector-kind">{ kind }</span>
                    <span class="inspector-name">{ title }</span>
                </h2>
                <button type="button" id="inspector-close" class="link" ref={close_ref}
                        onclick={close} aria-label={text::t(tr, I::Close)} title={text::t(tr, I::Close)}>{ "×" }</button>
            </div>
            { status }
            <div class="inspector-actions">{ actions }</div>
            <div class="inspector-tabs" role="tablist">{ for tab_buttons }</div>
            <div class="inspector-body" role="tabpanel" data-tab={current.id()}>{ body }</div>
        </section>
    }
}

/// `robot:default/web-1`, `zone:zone-a`, ... for tests and styles.
fn target_id(target: &Target) -> String {
    match target {
        Target::Robot { namespace, name } => format!("robot:{namespace}/{name}"),
        Target::Zone(name) => format!("zone:{name}"),
        Target::Desk { namespace, name } => format!("desk:{namespace}/{name}"),
        Target::Sheet { namespace, name } => format!("sheet:{namespace}/{name}"),
        Target::Budget { namespace, name } => format!("budget:{namespace}/{name}"),
        Target::Schedule { namespace, name } => format!("schedule:{namespace}/{name}"),
        Target::Gauge { namespace, name } => format!("gauge:{namespace}/{name}"),
        Target::Fence { namespace, name } => format!("fence:{namespace}/{name}"),
        Target::Gate { namespace, name } => format!("gate:{namespace}/{name}"),
        Target::Locker(name) => format!("locker:{name}"),
        Target::Staff(c) => format!("staff:{}", c.short_name()),
    }
}

fn find_pod<'v>(
    view: &'v FloorView,
    namespace: &str,
    name: &str,
) -> Option<(Option<&'v str>, &'v PodView)> {
    view.nodes
        .iter()
        .flat_map(|n| n.pods.iter().map(move |p| (Some(n.name.as_str()), p)))
        .chain(view.unscheduled.iter().map(|p| (None, p)))
        .find(|(_, p)| p.namespace == namespace && p.name == name)
}

/// The kind label, the name, and a status line.
fn header(tr: Tr, target: &Target, view: &FloorView) -> (&'static str, String, Html) {
    match target {
        Target::Robot { namespace, name } => {
            let status = find_pod(view, namespace, name).map(|(zone, p)| {
                let zone = zone.map(|z| format!(" · {z}")).unwrap_or_default();
                html! { <p class="inspector-status">{ format!("{}{zone}", p.status) }</p> }
            });
            (
                text::t(tr, I::KindRobot),
                format!("{namespace}/{name}"),
                html! { { for status } },
            )
        }
        Target::Zone(name) => {
            let status = view.nodes.iter().find(|n| &n.name == name).map(|n| {
                let mut parts = vec![if n.killed {
                    tr.t(crate::i18n::Key::PoweredOff)
                } else if n.health == ZoneHealth::NotReady {
                    tr.t(crate::i18n::Key::NotReady)
                } else {
                    tr.t(crate::i18n::Key::Ready)
                }];
                if n.unschedulable {
                    parts.push(text::t(tr, I::Cordoned));
                }
                let robots = tr.robot_count(crate::canvas::workload_count(&n.pods));
                html! {
                    <p class="inspector-status">
                        { format!("{} · {robots} · CPU {}m/{}m", parts.join(" · "), n.cpu_requested_milli, n.cpu_allocatable_milli) }
                    </p>
                }
            });
            (
                text::t(tr, I::KindZone),
                name.clone(),
                html! { { for status } },
            )
        }
        Target::Desk { namespace, name } => (
            text::t(tr, I::KindDesk),
            format!("{namespace}/{name}"),
            html! {},
        ),
        Target::Sheet { namespace, name } => (
            text::t(tr, I::KindSheet),
            format!("{namespace}/{name}"),
            html! {},
        ),
        Target::Budget { namespace, name } => (
            text::t(tr, I::KindBudget),
            format!("{namespace}/{name}"),
            html! {},
        ),
        Target::Schedule { namespace, name } => (
            text::t(tr, I::KindSchedule),
            format!("{namespace}/{name}"),
            html! {},
        ),
        Target::Gauge { namespace, name } => (
            text::t(tr, I::KindGauge),
            format!("{namespace}/{name}"),
            html! {},
        ),
        Target::Fence { namespace, name } => (
            text::t(tr, I::KindFence),
            format!("{namespace}/{name}"),
            html! {},
        ),
        Target::Gate { namespace, name } => (
            text::t(tr, I::KindGate),
            format!("{namespace}/{name}"),
            html! {},
        ),
        Target::Locker(name) => {
            let found = view
                .nodes
                .iter()
                .find_map(|n| Some((n.name.as_str(), n.volumes.iter().find(|v| &v.name == name)?)));
            let card = found.map(|(zone, v)| {
                let rows =
                    text::locker_lines(tr, v, Some(zone))
                        .into_iter()
                        .map(|(label, value)| {
                            html! { <><dt>{ label }</dt><dd>{ value }</dd></> }
                        });
                html! {
                    <div id="inspector-locker" class="inspector-locker">
                        <p class="hint">{ text::locker_intro(tr) }</p>
                        <dl>{ for rows }</dl>
                    </div>
                }
            });
            (
                text::t(tr, I::KindLocker),
                name.clone(),
                html! { { for card } },
            )
        }
        Target::Staff(c) => {
            let state = view
                .components
                .iter()
                .find(|v| v.name == c.name())
                .map(|v| text::staff_state(tr, v.running, v.stopped))
                .unwrap_or_default();
            let title = format!(
                "{} ({})",
                tr.t(crate::control_plane::component_key(c.name())),
                c.name()
            );
            (
                text::t(tr, I::KindStaff),
                title,
                html! { <p class="inspector-status">{ state }</p> },
            )
        }
    }
}

/// The buttons that act on the target, and links to related things.
fn actions(
    tr: Tr,
    target: &Target,
    view: &FloorView,
    sheets: &[String],
    act: &impl Fn(Action) -> Callback<MouseEvent>,
) -> Html {
    use crate::i18n::Key;
    let button = |class: &'static str, label: &str, action: Action| {
        html! { <button type="button" class={class} onclick={act(action)}>{ label.to_string() }</button> }
    };
    let link = |label: String, target: Target| {
        html! { <button type="button" class="link inspector-link" onclick={act(Action::Inspect(Some(target)))}>{ label }</button> }
    };
    match target {
        Target::Robot { namespace, name } => {
            let zone = find_pod(view, namespace, name).and_then(|(z, _)| z.map(str::to_string));
            html! {
                <>
                    { button("danger inspector-delete", text::t(tr, I::DeleteRobot),
                        Action::RunKubectl(format!("kubectl delete pod {name} -n {namespace} --wait=false"))) }
                    if let Some(zone) = zone {
                        { link(format!("{} → {zone}", text::t(tr, I::ShowZone)), Target::Zone(zone)) }
                    }
                </>
            }
        }
        Target::Zone(name) => {
            let Some(node) = view.nodes.iter().find(|n| &n.name == name) else {
                return html! {};
            };
            let power = if node.killed {
                button(
                    "inspector-restart",
                    tr.t(Key::RestartZone),
                    Action::RestartZone(name.clone()),
                )
            } else {
                button(
                    "danger inspector-kill",
                    tr.t(Key::KillZone),
                    Action::KillZone(name.clone()),
                )
            };
            let cordon = if node.unschedulable {
                button(
                    "inspector-uncordon",
                    text::t(tr, I::Uncordon),
                    Action::RunKubectl(format!("kubectl uncordon {name}")),
                )
            } else {
                button(
                    "inspector-cordon",
                    text::t(tr, I::Cordon),
                    Action::RunKubectl(format!("kubectl cordon {name}")),
                )
            };
            let robots: Vec<&PodView> = node.pods.iter().filter(|p| !p.system).collect();
            let more = robots.len().saturating_sub(ROBOTS_LISTED);
            let list = robots.iter().take(ROBOTS_LISTED).map(|p| {
                html! { <li>{ link(p.name.clone(), Target::Robot { namespace: p.namespace.clone(), name: p.name.clone() }) }</li> }
            });
            html! {
                <>
                    { power }
                    { cordon }
                    <div class="inspector-related">
                        <span class="hint">{ text::t(tr, I::RobotsHere) }{ ": " }</span>
                        if robots.is_empty() {
                            <span class="hint">{ text::t(tr, I::NoRobots) }</span>
                        } else {
                            <ul class="inspector-links">
                                { for list }
                                if more > 0 { <li class="hint">{ format!("+{more}") }</li> }
                            </ul>
                        }
                    </div>
                </>
            }
        }
        Target::Desk { namespace, name } => {
            let list = sheets.iter().map(|s| {
                html! { <li>{ link(s.clone(), Target::Sheet { namespace: namespace.clone(), name: s.clone() }) }</li> }
            });
            html! {
                <>
                    { button("danger inspector-delete", text::t(tr, I::DeleteDesk),
                        Action::RunKubectl(format!("kubectl delete service {name} -n {namespace}"))) }
                    if !sheets.is_empty() {
                        <div class="inspector-related">
                            <span class="hint">{ text::t(tr, I::Sheets) }{ ": " }</span>
                            <ul class="inspector-links">{ for list }</ul>
                        </div>
                    }
                </>
            }
        }
        Target::Locker(name) => {
            let Some((zone, volume)) = view
                .nodes
                .iter()
                .find_map(|n| Some((n.name.clone(), n.volumes.iter().find(|v| &v.name == name)?)))
            else {
                return html! {};
            };
            // The robots that mount its claim, wherever they stand.
            let users: Vec<&PodView> = volume
                .claim
                .as_deref()
                .and_then(|c| c.split_once('/'))
                .map(|(ns, claim)| {
                    view.nodes
                        .iter()
                        .flat_map(|n| n.pods.iter())
                        .chain(view.unscheduled.iter())
                        .filter(|p| p.namespace == ns && p.claims.iter().any(|c| c == claim))
                        .collect()
                })
                .unwrap_or_default();
            let list = users.iter().map(|p| {
                html! { <li>{ link(p.name.clone(), Target::Robot { namespace: p.namespace.clone(), name: p.name.clone() }) }</li> }
            });
            html! {
                <>
                    { link(format!("{} → {zone}", text::t(tr, I::ShowZone)), Target::Zone(zone.clone())) }
                    <div class="inspector-related">
                        <span class="hint">{ text::t(tr, I::LockerUsers) }{ ": " }</span>
                        if users.is_empty() {
                            <span class="hint">{ text::t(tr, I::NoRobots) }</span>
                        } else {
                            <ul class="inspector-links">{ for list }</ul>
                        }
                    </div>
                </>
            }
        }
        Target::Sheet { .. }
        | Target::Budget { .. }
        | Target::Schedule { .. }
        | Target::Gauge { .. }
        | Target::Fence { .. }
        | Target::Gate { .. } => html! {},
        Target::Staff(c) => {
            let stopped = view
                .components
                .iter()
                .any(|v| v.name == c.name() && v.stopped);
            if stopped {
                button(
                    "inspector-start",
                    tr.t(Key::StartComponent),
                    Action::StartComponent(*c),
                )
            } else {
                button(
                    "danger inspector-stop",
                    tr.t(Key::StopComponent),
                    Action::StopComponent(*c),
                )
            }
        }
    }
}

/// `sim why`'s chain as sentences (who changed what, reacting to what), with the
/// raw lines folded underneath.
fn why_view(tr: Tr, raw: &str) -> Html {
    let steps = parse_why(raw);
    let items = steps.iter().map(|s| {
        html! {
            <li class="why-step" data-revision={s.revision.to_string()}>
                <span class="why-rev">{ format!("#{}", s.revision) }</span>
                { " " }
                <strong>{ text::actor(tr, &s.actor) }</strong>
                { text::verb(tr, &s.event) }
                <code>{ &s.object }</code>
                { format!(" — {}", text::cause(tr, &s.how)) }
            </li>
        }
    });
    html! {
        <div id="inspector-why">
            if steps.is_empty() {
                <pre class="inspector-text" tabindex="0">{ raw }</pre>
            } else {
                <p class="hint">{ text::t(tr, I::WhyHint) }</p>
                <ol class="why-chain">{ for items }</ol>
                <details>
                    <summary>{ text::t(tr, I::RawTrace) }</summary>
                    <pre class="inspector-text" tabindex="0">{ raw }</pre>
                </details>
            }
        </div>
    }
}

/// A `keydown` listener on the document that closes the inspector on Escape; removed
/// when the returned guard drops.
fn escape_listener(dispatch: UseReducerDispatcher<AppState>) -> Option<EscapeGuard> {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let document = web_sys::window()?.document()?;
    let closure = Closure::<dyn Fn(KeyboardEvent)>::new(move |e: KeyboardEvent| {
        if e.key() == "Escape" {
            dispatch.dispatch(Action::Inspect(None));
        }
    });
    document
        .add_event_listener_with_callback("keydown", closure.as_ref().unchecked_ref())
        .ok()?;
    Some(EscapeGuard { document, closure })
}

struct EscapeGuard {
    document: web_sys::Document,
    closure: wasm_bindgen::closure::Closure<dyn Fn(KeyboardEvent)>,
}

impl Drop for EscapeGuard {
    fn drop(&mut self) {
        use wasm_bindgen::JsCast;
        let _ = self
            .document
            .remove_event_listener_with_callback("keydown", self.closure.as_ref().unchecked_ref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Lang, Names};

    const WHY: &str = "\
revision 266: MODIFIED pod/default/web-1 by system:node:zone-a when timer \"containers started\" fired (set when reacting to revision 258)
revision 258: MODIFIED pod/default/web-1 by system:kube-scheduler reacting to revision 254
revision 254: ADDED pod/default/web-1 by system:serviceaccount:kube-system:replicaset-controller reacting to revision 248
revision 247: ADDED deployment/default/web by kubernetes-admin on request
";

    #[test]
    fn why_lines_parse_oldest_first() {
        let steps = parse_why(WHY);
        assert_eq!(steps.len(), 4);
        assert_eq!(steps[0].revision, 247);
        assert_eq!(steps[0].actor, "kubernetes-admin");
        assert_eq!(steps[0].how, "on request");
        assert_eq!(steps[3].object, "pod/default/web-1");
        assert_eq!(steps[3].event, "MODIFIED");
        assert!(parse_why("no recorded write of pod/default/x\n").is_empty());
    }

    #[test]
    fn why_steps_read_in_warehouse_words() {
        let en = Tr::new(Lang::En, Names::Warehouse);
        let ru = Tr::new(Lang::Ru, Names::Warehouse);
        assert_eq!(
            text::actor(en, "system:node:zone-a"),
            "the zone supervisor of zone-a"
        );
        assert_eq!(
            text::actor(
                en,
                "system:serviceaccount:kube-system:replicaset-controller"
            ),
            "the floor manager's replicaset clerk"
        );
        assert_eq!(text::actor(ru, "system:kube-scheduler"), "диспетчер зон");
        assert_eq!(
            text::actor(
                Tr::new(Lang::En, Names::Kubernetes),
                "system:kube-scheduler"
            ),
            "kube-scheduler"
        );
        let steps = parse_why(WHY);
        assert_eq!(
            text::cause(en, &steps[3].how),
            "when the timer “containers started” went off (set after change 258)"
        );
        assert_eq!(text::cause(ru, &steps[2].how), "в ответ на изменение 254");
    }

    #[test]
    fn a_robot_report_has_describe_events_why_and_decision() {
        let mut session = Session::settled(crate::state::SEED);
        let out = session.run(
            "create deployment web --image=nginx --replicas=1",
            None,
            &NoFiles,
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        session
            .cluster
            .advance(warehouse_sim::SimDuration::millis(30_000));
        let view = FloorView::of(&session.cluster);
        let pod = view
            .nodes
            .iter()
            .flat_map(|n| n.pods.iter())
            .find(|p| !p.system)
            .expect("a robot")
            .clone();
        let target = Target::Robot {
            namespace: pod.namespace.clone(),
            name: pod.name.clone(),
        };
        let r = report(&mut session, &target, &view);
        assert!(
            r.describe.contains("Name:") && r.describe.contains("Node:"),
            "{}",
            r.describe
        );
        assert!(r.yaml.contains("kind: Pod"), "{}", r.yaml);
        assert!(r.events.contains("Scheduled"), "{}", r.events);
        assert!(parse_why(&r.why).len() >= 3, "{}", r.why);
        assert!(r.decision.is_some());
    }

    #[test]
    fn staff_and_desk_reports_come_from_kubectl() {
        let mut session = Session::settled(crate::state::SEED);
        let view = FloorView::of(&session.cluster);
        let r = report(
            &mut session,
            &Target::Staff(ControlPlaneComponent::Scheduler),
            &view,
        );
        assert!(r.describe.contains("kube-scheduler"), "{}", r.describe);
        for line in [
            "create deployment web --image=nginx --replicas=2",
            "expose deployment web --port=80",
        ] {
            let out = session.run(line, None, &NoFiles);
            assert_eq!(out.code, 0, "{}", out.stderr);
        }
        session
            .cluster
            .advance(warehouse_sim::SimDuration::millis(30_000));
        let view = FloorView::of(&session.cluster);
        let desk = Target::Desk {
            namespace: "default".into(),
            name: "web".into(),
        };
        let r = report(&mut session, &desk, &view);
        assert!(r.describe.contains("Selector:"), "{}", r.describe);
        assert_eq!(r.sheets.len(), 1, "{:?}", r.sheets);
        assert!(r.sheets[0].starts_with("web-"), "{:?}", r.sheets);
    }
}
