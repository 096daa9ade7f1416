//! The kubectl box: type a command, Enter runs it, Tab completes it (commands, flags,
//! kinds, names from the cluster), ↑/↓ walk the history; output accumulates below,
//! newest at the bottom.
//!
//! The box takes several lines, as a terminal with bracketed paste does: a pasted
//! multi-line command (`kubectl delete deployment web \` and `  -n shop` below it, or
//! a heredoc) stays in the box whole and Enter runs it as bash would, lines joined
//! at a trailing backslash. Enter on a line that ends in `\`, or inside a heredoc
//! that has not reached its delimiter, starts a new line instead (bash's `>`
//! prompt); Shift+Enter always does.

use crate::i18n::{Key, Tr};
use crate::kubectl::Session;
use crate::state::{Action, AppState, Terminal};
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{Element, HtmlTextAreaElement};
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
    // The box's height in lines: as many as the command has, up to MAX_ROWS.
    let rows = use_state(|| 1usize);

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
        let rows = rows.clone();
        Callback::from(move |e: KeyboardEvent| {
            let Some(input) = e.target_dyn_into::<HtmlTextAreaElement>() else {
                return;
            };
            let set_value = |value: &str| {
                input.set_value(value);
                rows.set(rows_for(value));
            };
            // ↑/↓ move between the lines of a multi-line command; they walk the
            // history only on a one-line one.
            let one_line = !input.value().contains('\n');
            if e.key() != "Tab" && !choices.is_empty() {
                choices.set(Vec::new());
            }
            match e.key().as_str() {
                "Tab" => {
                    e.prevent_default();
                    let line = input.value();
                    let done = crate::kubectl::shell::complete::complete(&session.borrow(), &line);
                    let head = &line[..done.start.min(line.len())];
                    match done.candidates.as_slice() {
                        [] => {}
                        [only] => {
                            let space = if only.ends_with('=') || only.ends_with('/') {
                                ""
                            } else {
                                " "
                            };
                            set_value(&format!("{head}{only}{space}"));
                            choices.set(Vec::new());
                        }
                        many => {
                            set_value(&format!("{head}{}", done.common_prefix()));
                            choices.set(many.to_vec());
                        }
                    }
                }
                "Enter" => {
                    let line = input.value();
                    if e.shift_key() || crate::kubectl::shell::script::needs_more(&line) {
                        // The browser starts a new line (the box grows on input).
                        return;
                    }
                    e.prevent_default();
                    set_value("");
                    *cursor.borrow_mut() = None;
                    dispatch.dispatch(Action::RunKubectl(line));
                }
                "ArrowUp" if one_line && !history.is_empty() => {
                    e.prevent_default();
                    let mut c = cursor.borrow_mut();
                    let i = match *c {
                        None => history.len() - 1,
                        Some(i) => i.saturating_sub(1),
                    };
                    *c = Some(i);
                    set_value(&history[i]);
                }
                "ArrowDown" if one_line => {
                    let mut c = cursor.borrow_mut();
                    if let Some(i) = *c {
                        e.prevent_default();
                        if i + 1 < history.len() {
                            *c = Some(i + 1);
                            set_value(&history[i + 1]);
                        } else {
                            *c = None;
                            set_value("");
                        }
                    }
                }
                _ => {}
            }
        })
    };

    // A paste (or any edit) that adds or removes lines resizes the box.
    let on_input = {
        let rows = rows.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(input) = e.target_dyn_into::<HtmlTextAreaElement>() {
                rows.set(rows_for(&input.value()));
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
                <span class="prompt" aria-hidden="true">
                    { props.terminal.inside.as_deref().unwrap_or("$ kubectl") }
                </span>
                <textarea id="kubectl-input" rows={rows.to_string()} spellcheck="false"
                       autocomplete="off" autocapitalize="off" aria-labelledby="terminal-heading"
                       placeholder={if props.terminal.inside.is_some() { "" } else { tr.t(Key::TerminalPlaceholder) }} onkeydown={on_keydown}
                       oninput={on_input} />
            </div>
            if !choices.is_empty() {
                <p id="kubectl-completions" class="completions">{ choices.join("  ") }</p>
            }
            <p class="hint">{ tr.t(Key::TerminalHint) }</p>
        </section>
    }
}

/// The most lines the box grows to; a longer command scrolls inside it.
const MAX_ROWS: usize = 12;

/// How many lines the box shows for `value`.
fn rows_for(value: &str) -> usize {
    value.split('\n').count().clamp(1, MAX_ROWS)
}
