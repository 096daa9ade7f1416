//! The kubectl box: type a command, Enter runs it, Tab completes it (commands, flags,
//! kinds, names from the cluster), ↑/↓ walk the history; output accumulates below,
//! newest at the bottom.

use crate::i18n::{Key, Tr};
use crate::kubectl::Session;
use crate::state::{Action, AppState, Terminal};
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{Element, HtmlInputElement};
use yew::prelude::*;

#[derive(Properties)]
pub struct TerminalProps {
    pub terminal: Rc<Terminal>,
    pub session: Rc<RefCell<Session>>,
    pub tr: Tr,
    pub dispatch: UseReducerDispatcher<AppState>,
}

impl PartialEq for TerminalProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.terminal, &other.terminal)
            && Rc::ptr_eq(&self.session, &other.session)
            && self.tr == other.tr
            && self.dispatch == other.dispatch
    }
}

#[function_component]
pub fn TerminalBox(props: &TerminalProps) -> Html {
    let tr = props.tr;
    let output = use_node_ref();
    // Position in the history while ↑/↓ browse it; None when editing a new line.
    let cursor = use_mut_ref(|| None::<usize>);
    // The candidates of the last Tab that had more than one.
    let choices = use_state(Vec::<String>::new);

    // Keep the newest output in sight.
    {
        let output = output.clone();
        use_effect_with(props.terminal.clone(), move |_| {
            if let Some(el) = output.cast::<Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    }

    let on_keydown = {
        let dispatch = props.dispatch.clone();
        let history = props.terminal.history.clone();
        let cursor = cursor.clone();
        let session = props.session.clone();
        let choices = choices.clone();
        Callback::from(move |e: KeyboardEvent| {
            let Some(input) = e.target_dyn_into::<HtmlInputElement>() else {
                return;
            };
            if e.key() != "Tab" && !choices.is_empty() {
                choices.set(Vec::new());
            }
            match e.key().as_str() {
                "Tab" => {
                    e.prevent_default();
                    let line = input.value();
                    let done = crate::kubectl::complete::complete(&session.borrow(), &line);
                    let head = &line[..done.start.min(line.len())];
                    match done.candidates.as_slice() {
                        [] => {}
                        [only] => {
                            let space = if only.ends_with('=') || only.ends_with('/') {
                                ""
                            } else {
                                " "
                            };
                            input.set_value(&format!("{head}{only}{space}"));
                            choices.set(Vec::new());
                        }
                        many => {
                            input.set_value(&format!("{head}{}", done.common_prefix()));
                            choices.set(many.to_vec());
                        }
                    }
                }
                "Enter" => {
                    e.prevent_default();
                    let line = input.value();
                    input.set_value("");
                    *cursor.borrow_mut() = None;
                    dispatch.dispatch(Action::RunKubectl(line));
                }
                "ArrowUp" if !history.is_empty() => {
                    e.prevent_default();
                    let mut c = cursor.borrow_mut();
                    let i = match *c {
                        None => history.len() - 1,
                        Some(i) => i.saturating_sub(1),
                    };
                    *c = Some(i);
                    input.set_value(&history[i]);
                }
                "ArrowDown" => {
                    let mut c = cursor.borrow_mut();
                    if let Some(i) = *c {
                        e.prevent_default();
                        if i + 1 < history.len() {
                            *c = Some(i + 1);
                            input.set_value(&history[i + 1]);
                        } else {
                            *c = None;
                            input.set_value("");
                        }
                    }
                }
                _ => {}
            }
        })
    };

    html! {
        <section class="terminal panel" aria-labelledby="terminal-heading">
            <h2 id="terminal-heading">{ tr.t(Key::TerminalHeading) }</h2>
            <pre id="kubectl-output" ref={output} aria-live="polite">
                { for props.terminal.entries.iter().map(|entry| html! {
                    <>
                        <span class="prompt">{ &entry.prompt }{ "\n" }</span>
                        <span class="stdout">{ &entry.stdout }</span>
                        if !entry.stderr.is_empty() {
                            <span class="stderr">{ &entry.stderr }</span>
                        }
                    </>
                }) }
            </pre>
            <div class="terminal-input">
                <span class="prompt" aria-hidden="true">{ "$ kubectl" }</span>
                <input id="kubectl-input" type="text" spellcheck="false" autocomplete="off"
                       autocapitalize="off" aria-labelledby="terminal-heading"
                       placeholder={tr.t(Key::TerminalPlaceholder)} onkeydown={on_keydown} />
            </div>
            if !choices.is_empty() {
                <p id="kubectl-completions" class="completions">{ choices.join("  ") }</p>
            }
            <p class="hint">{ tr.t(Key::TerminalHint) }</p>
        </section>
    }
}
