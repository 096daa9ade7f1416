//! An interview walkthrough's moment beside its prose: who acted (lit on the office
//! above the floor), what it reacted to, and what it wrote as a diff, all read from
//! the simulation's own record (`warehouse_lessons::frames`).

use crate::i18n::{Lang, Tr};
use crate::office::station_label;
use warehouse_lessons::frames::{DiffLine, Frame, Miss, Moment, Why};
use warehouse_sim::views::feed::Change;
use yew::prelude::*;

/// The office station a moment lights: the component that acted, or the reception
/// desk for a person's request and for the desk's own writes (Events).
/// The office station of a writer: the node lifecycle controller writes as its
/// service account, `node-controller`.
fn station_of(actor: &str) -> &str {
    match actor {
        "node-controller" => "node-lifecycle-controller",
        a => a,
    }
}

pub fn focus(frame: &Frame) -> String {
    let a = station_of(&frame.actor);
    let station = crate::office::CLERKS.contains(&a)
        || a.starts_with("kubelet:")
        || matches!(
            a,
            "kube-scheduler" | "kube-proxy" | "coredns" | "ingress-nginx"
        );
    match &frame.moment {
        Moment::Write { .. } if station => a.to_string(),
        _ => "desk".into(),
    }
}

fn who(tr: Tr, actor: &str) -> String {
    let ru = tr.lang == Lang::Ru;
    match actor {
        "kubernetes-admin" => if ru {
            "вы (kubectl, kubernetes-admin)"
        } else {
            "you (kubectl, kubernetes-admin)"
        }
        .into(),
        "system:apiserver" => if ru {
            "стойка регистрации (kube-apiserver)"
        } else {
            "the reception desk (kube-apiserver)"
        }
        .into(),
        a => {
            let label = station_label(tr, station_of(a));
            if label == a {
                a.to_string()
            } else {
                format!("{label} ({a})")
            }
        }
    }
}

fn change(tr: Tr, c: Change) -> &'static str {
    let ru = tr.lang == Lang::Ru;
    match (c, ru) {
        (Change::Added, false) => "created",
        (Change::Added, true) => "создан объект",
        (Change::Modified, false) => "changed",
        (Change::Modified, true) => "изменён объект",
        (Change::Deleted, false) => "deleted",
        (Change::Deleted, true) => "удалён объект",
    }
}

fn why(tr: Tr, w: &Why) -> String {
    let ru = tr.lang == Lang::Ru;
    match w {
        Why::Request => if ru {
            "запрос человека (kubectl)"
        } else {
            "a person's request (kubectl)"
        }
        .into(),
        Why::Bootstrap => if ru {
            "запуск склада"
        } else {
            "the warehouse starting up"
        }
        .into(),
        Why::Fault(f) => {
            if ru {
                format!("сбой «{f}»")
            } else {
                format!("the fault `{f}`")
            }
        }
        Why::Watch { read, .. } => {
            let obj = format!("{} {}", read.kind, read.name);
            let by = who(tr, &read.actor);
            if ru {
                format!(
                    "по watch пришла запись {obj} (ревизия {}, автор — {by})",
                    read.revision
                )
            } else {
                format!(
                    "saw, through its watch, the write of {obj} (revision {}, made by {by})",
                    read.revision
                )
            }
        }
        Why::Timer { timers, origin } => {
            let t = timers.join(" ← ");
            if ru {
                format!("сработал таймер «{t}»; его завели {}", set_by(tr, origin))
            } else {
                format!("the timer “{t}” fired; it was set {}", set_by(tr, origin))
            }
        }
        Why::Forgotten => if ru {
            "журнал причин уже забыл её"
        } else {
            "the trace has forgotten it"
        }
        .into(),
    }
}

/// How a timer came to be set, as the end of "it was set …": a phrase, never a bare
/// verb (the old card read "set after saw, through its watch, …").
fn set_by(tr: Tr, w: &Why) -> String {
    let ru = tr.lang == Lang::Ru;
    match w {
        Why::Request => if ru {
            "по запросу человека (kubectl)"
        } else {
            "by a person's request (kubectl)"
        }
        .into(),
        Why::Bootstrap => if ru {
            "при запуске склада"
        } else {
            "while the warehouse was starting up"
        }
        .into(),
        Why::Fault(f) => {
            if ru {
                format!("из-за сбоя «{f}»")
            } else {
                format!("by the fault `{f}`")
            }
        }
        Why::Watch { component, read } => {
            let obj = format!("{} {}", read.kind, read.name);
            let by = who(tr, &read.actor);
            let whom = who(tr, component);
            if ru {
                format!(
                    "в ответ на запись {obj} (ревизия {}, автор — {by}), пришедшую по watch ({whom})",
                    read.revision
                )
            } else {
                format!(
                    "when {whom} saw, through its watch, the write of {obj} (revision {}, made by {by})",
                    read.revision
                )
            }
        }
        Why::Timer { timers, origin } => {
            let t = timers.join(" ← ");
            if ru {
                format!(
                    "когда сработал таймер «{t}», заведённый {}",
                    set_by(tr, origin)
                )
            } else {
                format!(
                    "when the timer “{t}” fired, itself set {}",
                    set_by(tr, origin)
                )
            }
        }
        Why::Forgotten => if ru {
            "в момент, который журнал причин уже забыл"
        } else {
            "at a moment the trace has forgotten"
        }
        .into(),
    }
}

fn diff_row(d: &DiffLine) -> Html {
    let class = classes!(
        "diff-line",
        d.focus.then_some("focus"),
        match (&d.old, &d.new) {
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            _ => "changed",
        }
    );
    html! {
        <li class={class}>
            <code class="path">{ &d.path }</code>
            if let Some(old) = &d.old { <code class="old">{ old }</code> }
            if d.old.is_some() && d.new.is_some() { <span class="arrow" aria-hidden="true">{ " → " }</span> }
            if let Some(new) = &d.new { <code class="new">{ new }</code> }
        </li>
    }
}

/// Where a walkthrough's moments are timed from: when the step that starts its first
/// chain of frames first opened (simulated ms), one origin for every card.
pub fn walk_start(
    lesson: &warehouse_lessons::Lesson,
    opened_ms: &std::collections::BTreeMap<usize, u64>,
) -> Option<u64> {
    let first = lesson.steps.iter().position(|s| s.frame.is_some())?;
    let anchor = (0..first)
        .rev()
        .find(|&j| lesson.steps[j].frame.is_none())
        .unwrap_or(0);
    opened_ms.get(&anchor).copied()
}

/// A moment's time against the walkthrough's start: `+300.000 s after the
/// walkthrough began` / `+300,000 с от начала разбора`.
pub fn at_text(tr: Tr, after_ms: u64) -> String {
    let seconds = crate::numbers::three_decimals(tr.lang, after_ms as f64 / 1000.0);
    match tr.lang {
        Lang::En => format!("+{seconds} s after the walkthrough began"),
        Lang::Ru => format!("+{seconds}\u{a0}с от начала разбора"),
    }
}

/// The card for the open step's moment, or why there is none yet. `at_ms`: the
/// moment's time since the walkthrough began (see [`walk_start`]).
pub fn card(frame: &Result<Frame, Miss>, tr: Tr, at_ms: Option<u64>) -> Html {
    let ru = tr.lang == Lang::Ru;
    let f = match frame {
        Ok(f) => f,
        Err(miss) => {
            let text = match (miss, ru) {
                (Miss::NotYet | Miss::Earlier, false) => "This moment has not happened in your warehouse yet: go back to the step that starts the run, run its commands (or its solution), then come back.",
                (Miss::NotYet | Miss::Earlier, true) => "В вашем складе этого момента ещё не было: вернитесь к шагу, который запускает прогон, выполните его команды (или решение) и возвращайтесь.",
                (Miss::Dropped, false) => "Too much has happened since the run started and this moment is no longer in the record: reset the step that starts the run and run it again.",
                (Miss::Dropped, true) => "С начала прогона произошло слишком много, и этого момента в записи уже нет: сбросьте шаг, который запускает прогон, и выполните его снова.",
            };
            return html! {
                <section id="step-frame" class="frame missing" aria-live="polite">
                    <p>{ text }</p>
                </section>
            };
        }
    };
    let at_ms = at_ms.unwrap_or(f.after_ms);
    let at = at_text(tr, at_ms);
    let heading = if ru {
        "Что записано"
    } else {
        "What the record shows"
    };
    let body = match &f.moment {
        Moment::Request {
            verb,
            target,
            code,
            stages,
            ..
        } => html! {
            <>
                <p class="frame-what">
                    { if ru { "Запрос: " } else { "Request: " } }
                    <code>{ format!("{verb} {target}") }</code>{ format!(" → {code}") }
                </p>
                <ol class="frame-stages">
                    { for stages.iter().map(|(s, ok, us)| html! {
                        <li class={classes!("stage", if *ok { "pass" } else { "fail" })}>
                            <span class="mark" aria-hidden="true">{ if *ok { "✓" } else { "✗" } }</span>
                            { tr.stage(s) }
                            <span class="micros">{ format!(" {us} µs") }</span>
                        </li>
                    }) }
                </ol>
            </>
        },
        Moment::Write {
            revision,
            change: c,
            notified,
            cause,
            diff,
            more,
            before_known,
            ..
        } => {
            let object = f.moment.object();
            let told: Vec<String> = notified.iter().map(|n| who(tr, n)).collect();
            html! {
                <>
                    <p class="frame-what">
                        { if ru { "Запись: " } else { "Write: " } }
                        { change(tr, *c) }{ " " }<code>{ object }</code>
                        { if ru { format!(", ревизия etcd {revision}") } else { format!(", etcd revision {revision}") } }
                    </p>
                    <p class="frame-why">
                        <span class="label">{ if ru { "Почему: " } else { "Why: " } }</span>
                        { why(tr, cause) }
                    </p>
                    if !told.is_empty() {
                        <p class="frame-told">
                            <span class="label">{ if ru { "Watch доставил запись: " } else { "Its watch went to: " } }</span>
                            { told.join(", ") }
                        </p>
                    }
                    if !before_known {
                        <p class="frame-note">{ if ru { "Прежней версии объекта в истории etcd уже нет: разница не показана." } else { "The object's previous version has left etcd's history: no diff." } }</p>
                    }
                    if !diff.is_empty() {
                        <ul class="frame-diff" aria-label={if ru { "что изменилось" } else { "what changed" }}>
                            { for diff.iter().map(diff_row) }
                        </ul>
                    }
                    if *more > 0 {
                        <p class="frame-more">{ if ru { format!("…и ещё {}", crate::numbers::ru_count(*more as u64, "поле", "поля", "полей")) } else { format!("…and {more} more fields") } }</p>
                    }
                </>
            }
        }
    };
    html! {
        <section id="step-frame" class="frame" data-actor={f.actor.clone()} data-focus={focus(f)} aria-live="polite">
            <h3>{ heading }</h3>
            <p class="frame-who">
                <span class="label">{ if ru { "Кто: " } else { "Who: " } }</span>
                { who(tr, &f.actor) }
                <span class="frame-at" data-at-ms={at_ms.to_string()}>{ format!(" · {at}") }</span>
            </p>
            { body }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warehouse_lessons::frames::Moment;

    fn frame(actor: &str, request: bool) -> Frame {
        let moment = if request {
            Moment::Request {
                verb: "create".into(),
                target: "deployments/web".into(),
                namespace: "default".into(),
                code: 201,
                stages: vec![],
            }
        } else {
            Moment::Write {
                revision: 1,
                kind: "Pod".into(),
                namespace: "default".into(),
                name: "web-1".into(),
                change: Change::Modified,
                notified: vec![],
                cause: Why::Request,
                diff: vec![],
                more: 0,
                before_known: true,
            }
        };
        Frame::new_for_tests(0, actor, moment)
    }

    #[test]
    fn a_timer_set_after_a_watch_reads_as_a_sentence() {
        use warehouse_lessons::frames::Read;
        let read = Read {
            revision: 7,
            kind: "Node".into(),
            namespace: String::new(),
            name: "zone-b".into(),
            actor: "node-controller".into(),
        };
        let w = Why::Timer {
            timers: vec!["taint eviction".into()],
            origin: Box::new(Why::Watch {
                component: "taint-eviction-controller".into(),
                read,
            }),
        };
        let en = why(Tr::new(Lang::En, crate::i18n::Names::Warehouse), &w);
        assert!(!en.contains("set after saw"), "{en}");
        assert!(en.contains("it was set when "), "{en}");
        assert!(
            en.contains(" saw, through its watch, the write of Node zone-b"),
            "{en}"
        );
        let ru = why(Tr::new(Lang::Ru, crate::i18n::Names::Warehouse), &w);
        assert!(
            ru.contains("его завели в ответ на запись Node zone-b"),
            "{ru}"
        );
        assert!(!ru.contains("(а)"), "{ru}");
    }

    #[test]
    fn moments_are_timed_from_one_origin() {
        assert_eq!(
            at_text(Tr::new(Lang::En, crate::i18n::Names::Warehouse), 352_067),
            "+352.067 s after the walkthrough began"
        );
        assert_eq!(
            at_text(Tr::new(Lang::Ru, crate::i18n::Names::Warehouse), 52_067),
            "+52,067\u{a0}с от начала разбора"
        );
    }

    #[test]
    fn the_acting_component_is_lit_and_requests_light_the_desk() {
        assert_eq!(focus(&frame("kube-scheduler", false)), "kube-scheduler");
        assert_eq!(focus(&frame("kubelet:zone-a", false)), "kubelet:zone-a");
        assert_eq!(
            focus(&frame("replicaset-controller", false)),
            "replicaset-controller"
        );
        assert_eq!(focus(&frame("kubernetes-admin", false)), "desk");
        assert_eq!(focus(&frame("jane", false)), "desk");
        assert_eq!(focus(&frame("kubernetes-admin", true)), "desk");
        assert_eq!(focus(&frame("system:apiserver", false)), "desk");
        assert_eq!(
            focus(&frame("node-controller", false)),
            "node-lifecycle-controller"
        );
    }
}
