//! Author mode: open a lesson from local files (en.md, ru.md and the manifests it
//! lists) with a file picker; dropping files onto the lesson panel does the same
//! (see `app.rs`).

use crate::i18n::{Tr, L};
use crate::state::AppState;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AuthorProps {
    pub tr: Tr,
    pub dispatch: UseReducerDispatcher<AppState>,
}

#[function_component]
pub fn AuthorBox(props: &AuthorProps) -> Html {
    let tr = props.tr;
    let on_change = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: Event| {
            if let Some(input) = e.target_dyn_into::<HtmlInputElement>() {
                if let Some(files) = input.files() {
                    crate::fetch::open_files(files, dispatch.clone());
                }
                // Picking the same files again opens them again.
                input.set_value("");
            }
        })
    };
    html! {
        <details class="author">
            <summary>{ tr.l(L::AuthorHeading) }</summary>
            <label class="author-pick">
                { tr.l(L::AuthorPick) }
                <input id="lesson-files" type="file" multiple=true
                       accept=".md,.yaml,.yml,.json,.txt" onchange={on_change} />
            </label>
            <p class="hint">{ tr.l(L::AuthorDrop) }</p>
        </details>
    }
}
