//! The kubectl box: type a command, Enter runs it, ↑/↓ walk the history; output
//! accumulates below, newest at the bottom.

use crate::i18n::{Key, Tr};
use crate::state::{Action, AppState, Terminal};
use std::rc::Rc;
use web_sys::{Element, HtmlInputElement};
use yew::prelude::*;

#[derive(Properties)]
pub struct TerminalProps {
    pub terminal: Rc<Terminal>,
    pub tr: Tr,
    pub dispatch: UseReducerDispatcher<AppState>,
}

impl PartialEq for TerminalProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.terminal, &other.terminal)
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
        Callback::from(move |e: KeyboardEvent| {
            let Some(input) = e.target_dyn_into::<HtmlInputElement>() else {
                return;
            };
            match e.key().as_str() {
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
            <p class="hint">{ tr.t(Key::TerminalHint) }</p>
        </section>
    }
}
