//! The reception desk's log: the latest writes the apiserver answered, each with the
//! checks it passed through (authentication, authorization, mutating admission,
//! validation, validating admission, storage in etcd), where it was refused, its HTTP
//! status and its modelled latency. It can show only the learner's own requests
//! (the default while a lesson is open), read from the cluster's longer request log.
//! On a phone a row is one line, who and latency left out and the request cut short
//! (style.css); the whole row is its title, and a tap on it shows it whole.

use crate::i18n::{Key, Lang, Tr};
use crate::projection::FloorView;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct RequestsProps {
    pub view: Rc<FloorView>,
    pub mine_only: bool,
    pub tr: Tr,
    /// Show only the learner's requests, or everyone's.
    pub on_mine_only: Callback<bool>,
}

impl PartialEq for RequestsProps {
    fn eq(&self, other: &Self) -> bool {
        self.view.requests == other.view.requests
            && self.view.mine_requests == other.view.mine_requests
            && self.mine_only == other.mine_only
            && self.tr == other.tr
    }
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
    // The row tapped open on a phone, by its time and what it asked.
    let opened = use_state(|| None::<String>);
    let requests = if props.mine_only {
        &props.view.mine_requests
    } else {
        &props.view.requests
    };
    let empty = requests.is_empty().then(|| {
        html! { <li class="muted">{ match tr.lang {
            Lang::En => "No requests of yours yet.",
            Lang::Ru => "Ваших запросов пока нет.",
        } }</li> }
    });
    let toggle = {
        let on = props.mine_only;
        let onchange = props.on_mine_only.reform(move |_: Event| !on);
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
        let key = format!("{} {} {}", r.at_ms, r.verb, r.target);
        let open = opened.as_deref() == Some(key.as_str());
        let class = classes!("request", refused.then_some("refused"), open.then_some("open"));
        let title = format!(
            "{}: {} {} — {}, {}",
            tr.user(&r.user),
            r.verb,
            r.target,
            r.code,
            latency(r.latency_micros)
        );
        let onclick = {
            let opened = opened.clone();
            Callback::from(move |_: MouseEvent| {
                opened.set((!open).then(|| key.clone()));
            })
        };
        html! {
            <li class={class} {title} {onclick} data-learner={warehouse_sim::apiserver::user_is_learner(&r.user).to_string()} data-user={r.user.clone()} data-verb={r.verb} data-target={r.target.clone()} data-code={r.code.to_string()}>
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
