//! The YAML editor: a manifest textarea and Apply, which runs `kubectl apply -f -`
//! with the text as stdin and shows what kubectl printed. After `kubectl edit X` in
//! the terminal it holds that object, and "Save edit" runs the edit with the text.

use crate::i18n::{Key, Tr};
use crate::state::{Action, AppState, Outcome};
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    pub yaml: AttrValue,
    pub result: Option<Outcome>,
    /// The pending `kubectl edit` target, if the editor holds an object to edit.
    pub editing: Option<String>,
    pub tr: Tr,
    pub dispatch: UseReducerDispatcher<AppState>,
}

#[function_component]
pub fn Editor(props: &EditorProps) -> Html {
    let tr = props.tr;
    let textarea = use_node_ref();

    // Apply reads the textarea itself, so it applies exactly what is on screen.
    let apply = {
        let textarea = textarea.clone();
        let dispatch = props.dispatch.clone();
        move || {
            if let Some(el) = textarea.cast::<HtmlTextAreaElement>() {
                dispatch.dispatch(Action::Apply(el.value()));
            }
        }
    };
    let on_click = {
        let apply = apply.clone();
        Callback::from(move |_: MouseEvent| apply())
    };
    let on_cancel = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::CancelEdit))
    };
    let on_keydown = Callback::from(move |e: KeyboardEvent| {
        if e.key() == "Enter" && (e.ctrl_key() || e.meta_key()) {
            e.prevent_default();
            apply();
        }
    });
    let on_input = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(el) = e.target_dyn_into::<HtmlTextAreaElement>() {
                dispatch.dispatch(Action::EditYaml(AttrValue::from(el.value())));
            }
        })
    };

    let (result_text, result_class) = match &props.result {
        Some(r) => (
            r.text.clone(),
            classes!("result", r.error.then_some("error")),
        ),
        None => (String::new(), classes!("result", "empty")),
    };
    html! {
        <section class="editor panel" aria-labelledby="editor-heading">
            <h2 id="editor-heading">{ tr.t(Key::EditorHeading) }</h2>
            <textarea id="yaml-editor" ref={textarea} spellcheck="false" autocomplete="off"
                      aria-labelledby="editor-heading" rows="18"
                      value={props.yaml.clone()} oninput={on_input} onkeydown={on_keydown} />
            <div class="editor-actions">
                <button id="apply-btn" type="button" class="primary" onclick={on_click}
                        title="Ctrl+Enter">
                    { if props.editing.is_some() { tr.t(Key::SaveEdit) } else { tr.t(Key::Apply) } }
                </button>
                if props.editing.is_some() {
                    <button id="cancel-edit-btn" type="button" onclick={on_cancel}>
                        { tr.t(Key::CancelEdit) }
                    </button>
                }
            </div>
            <pre id="apply-result" class={result_class} aria-live="polite">{ result_text }</pre>
        </section>
    }
}
