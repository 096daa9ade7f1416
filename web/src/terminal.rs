//! The kubectl box: type a command, Enter runs it, Tab completes it (commands, flags,
//! kinds, names from the cluster), ↑/↓ walk the history; output accumulates below,
//! newest at the bottom.
//!
//! The box is no keyboard trap: Tab completes only right after a word (the cursor
//! after a non-blank character, nothing selected); on an empty line, after a space
//! or with Shift it moves focus as anywhere else. Escape leaves the box for the next
//! thing that takes focus.
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
                "Escape" => {
                    e.prevent_default();
                    focus_next_after(&input);
                }
                "Tab" if e.shift_key() || e.alt_key() || e.ctrl_key() || e.meta_key() => {}
                "Tab" if !after_word(&input) => {}
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
            <pre id="kubectl-output" ref={output} aria-live="polite" tabindex="0">
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

/// Whether the cursor stands right after a word: nothing selected, and the
/// character before it not blank. Only then does Tab complete.
fn after_word(input: &HtmlTextAreaElement) -> bool {
    let (Ok(Some(start)), Ok(Some(end))) = (input.selection_start(), input.selection_end()) else {
        return false;
    };
    if start != end || start == 0 {
        return false;
    }
    // Selection offsets count UTF-16 code units.
    let units: Vec<u16> = input.value().encode_utf16().collect();
    let before = units.get(start as usize - 1).copied();
    before.is_some_and(|u| !char::from_u32(u32::from(u)).is_some_and(char::is_whitespace))
}

/// What can take focus with Tab, in document order.
const FOCUSABLE: &str =
    "a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), \
     select:not([disabled]), textarea:not([disabled]), summary, \
     [tabindex]:not([tabindex='-1'])";

/// Moves focus to the first element after `from` in document order that takes
/// focus and is shown; the first on the page when none follows (as Tab would wrap).
fn focus_next_after(from: &HtmlTextAreaElement) {
    let Some(document) = from.owner_document() else {
        return;
    };
    // querySelectorAll through JS: its NodeList becomes an array.
    let list = js_sys::Reflect::get(&document, &"querySelectorAll".into())
        .ok()
        .and_then(|f| wasm_bindgen::JsCast::dyn_into::<js_sys::Function>(f).ok())
        .and_then(|f| f.call1(&document, &FOCUSABLE.into()).ok());
    let Some(list) = list else {
        return;
    };
    let all: Vec<web_sys::HtmlElement> = js_sys::Array::from(&list)
        .iter()
        .filter_map(|n| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(n).ok())
        // Hidden elements (display: none, inside a closed <details>) have no box.
        .filter(|el| el.offset_width() > 0 || el.offset_height() > 0)
        .collect();
    let me: &web_sys::Node = from.as_ref();
    let here = all.iter().position(|el| {
        let node: &web_sys::Node = el.as_ref();
        node.is_same_node(Some(me))
    });
    let next = here
        .and_then(|i| all.get(i + 1))
        .or_else(|| all.first())
        .filter(|el| {
            let node: &web_sys::Node = el.as_ref();
            !node.is_same_node(Some(me))
        });
    match next {
        Some(el) => {
            let _ = el.focus();
        }
        None => {
            let _ = from.blur();
        }
    }
}

/// The most lines the box grows to; a longer command scrolls inside it.
const MAX_ROWS: usize = 12;

/// How many lines the box shows for `value`.
fn rows_for(value: &str) -> usize {
    value.split('\n').count().clamp(1, MAX_ROWS)
}
