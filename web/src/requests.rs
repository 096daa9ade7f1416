//! The reception desk's log: the latest writes the apiserver answered, each with the
//! checks it passed through (authentication, authorization, mutating admission,
//! validation, validating admission, storage in etcd), where it was refused, its HTTP
//! status and its modelled latency. It can show only the learner's own requests
//! (the default while a lesson is open), read from the cluster's longer request log.

use crate::i18n::{Key, Lang, Tr};
use crate::kubectl::Session;
use crate::projection::FloorView;
use crate::state::{Action, AppState};
use std::cell::RefCell;
use std::rc::Rc;
use warehouse_sim::RequestView;
use yew::prelude::*;

#[derive(Properties)]
pub struct RequestsProps {
    pub view: Rc<FloorView>,
    pub session: Rc<RefCell<Session>>,
    pub mine_only: bool,
    pub tr: Tr,
    pub dispatch: UseReducerDispatcher<AppState>,
}

impl PartialEq for RequestsProps {
    fn eq(&self, other: &Self) -> bool {
        // The learner's rows come from the log, which changes with the revision.
        self.view.requests == other.view.requests
            && (!self.mine_only || self.view.revision == other.view.revision)
            && self.mine_only == other.mine_only
            && self.tr == other.tr
    }
}

/// The learner's latest requests, newest first.
fn learner_requests(session: &Session) -> Vec<RequestView> {
    session
        .cluster
        .requests()
        .rev()
        .filter(|r| r.by_learner())
        .take(warehouse_sim::view::REQUESTS_IN_VIEW)
        .map(RequestView::of)
        .collect()
}

/// Microseconds as `1.9 ms` or `180 µs`.
pub fn latency(us: u32) -> String {
    if us >= 1000 {
        format!("{:.1} ms", us as f64 / 1000.0)
    } else {
        format!("{us} µs")
    }
}

#[function_component]
pub fn RequestLog(props: &RequestsProps) -> Html {
    let tr = props.tr;
    let mine = if props.mine_only {
        props
            .session
            .try_borrow()
            .map(|s| learner_requests(&s))
            .ok()
    } else {
        None
    };
    let requests = mine.as_ref().unwrap_or(&props.view.requests);
    let empty = requests.is_empty().then(|| {
        html! { <li class="muted">{ match tr.lang {
            Lang::En => "No requests of yours yet.",
            Lang::Ru => "Ваших запросов пока нет.",
        } }</li> }
    });
    let toggle = {
        let dispatch = props.dispatch.clone();
        let on = props.mine_only;
        let onchange = Callback::from(move |_: Event| dispatch.dispatch(Action::SetMineOnly(!on)));
        let label = match tr.lang {
            Lang::En => "Only my requests",
            Lang::Ru => "Только мои запросы",
        };
        html! {
            <label class="mine-only">
                <input type="checkbox" id="requests-mine-only" checked={on} {onchange} />
                { " " }{ label }
            </label>
        }
    };
    let rows = requests.iter().map(|r| {
        let refused = r.stages.iter().any(|(_, ok, _)| !ok);
        let stages = r.stages.iter().map(|(stage, ok, us)| {
            let class = if *ok { "stage ok" } else { "stage refused" };
            let title = format!("{}: {}", tr.stage(stage), latency(*us));
            html! {
                <span class={class} data-stage={*stage} title={title}>
                    { if *ok { "✓" } else { "✗" } }
                </span>
            }
        });
        let class = if refused { "request refused" } else { "request" };
        html! {
            <li class={class} data-learner={warehouse_sim::apiserver::user_is_learner(&r.user).to_string()} data-user={r.user.clone()} data-verb={r.verb} data-target={r.target.clone()} data-code={r.code.to_string()}>
                <span class="request-who">{ tr.user(&r.user) }</span>
                <span class="request-what">{ format!("{} {}", r.verb, r.target) }</span>
                <span class="request-stages">{ for stages }</span>
                <span class="request-code">{ r.code }</span>
                <span class="request-latency">{ latency(r.latency_micros) }</span>
            </li>
        }
    });
    html! {
        <section class="requests panel" aria-labelledby="requests-heading">
            <h2 id="requests-heading">{ tr.t(Key::RequestsHeading) }</h2>
            <p class="hint">{ tr.t(Key::RequestsHint) }</p>
            { toggle }
            <ol class="request-log">{ for rows }{ for empty }</ol>
        </section>
    }
}
