//! The reception desk's log: the latest writes the apiserver answered, each with the
//! checks it passed through (authentication, authorization, mutating admission,
//! validation, validating admission, storage in etcd), where it was refused, its HTTP
//! status and its modelled latency.

use crate::i18n::{Key, Tr};
use std::rc::Rc;
use warehouse_sim::ClusterView;
use yew::prelude::*;

#[derive(Properties)]
pub struct RequestsProps {
    pub view: Rc<ClusterView>,
    pub tr: Tr,
}

impl PartialEq for RequestsProps {
    fn eq(&self, other: &Self) -> bool {
        self.view.requests == other.view.requests && self.tr == other.tr
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
    let rows = props.view.requests.iter().map(|r| {
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
            <li class={class} data-user={r.user.clone()} data-verb={r.verb} data-target={r.target.clone()} data-code={r.code.to_string()}>
                <span class="request-who">{ &r.user }</span>
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
            <ol class="request-log">{ for rows }</ol>
        </section>
    }
}
