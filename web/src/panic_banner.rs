//! What a learner sees when the app panics: a banner over the page saying the
//! simulator stopped because of an internal error, a Reload link, and the panic
//! message in a collapsible `<details>` to copy into a bug report.
//!
//! The hook runs inside the panic, when Yew's state may be half-updated and nothing
//! after it will run: the banner is made with plain DOM calls, takes its language
//! from `<html lang>` (the app keeps it current), and Reload is a link to the page's
//! own address, which needs no code of the app to work. It is shown once; a later
//! panic (a consequence of the first) changes nothing. The panic is also written to
//! the console, as `console_error_panic_hook` does. The sandbox saved for a reload
//! is dropped, so Reload cannot replay its history into the same panic.

use crate::i18n::{panic_texts, Lang};
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement};

/// The banner's element id (`tests/browser/panic.test.mjs`).
const BANNER_ID: &str = "panic-banner";

/// Installs the hook: the console's report, then the banner. Through Yew, whose
/// `Renderer` otherwise replaces any hook with its own (the console's report only).
pub fn install() {
    yew::set_custom_panic_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        // The saved sandbox could replay into the same panic after Reload: it goes,
        // and the warehouse starts anew (lesson progress is kept apart).
        crate::saved::clear();
        show(&info.to_string());
    }));
}

/// Shows the banner with `message`, unless one is shown already.
fn show(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if document.get_element_by_id(BANNER_ID).is_some() {
        return;
    }
    // Nothing here may panic again: every failure just leaves the banner out.
    let _ = build(&document, message);
}

fn build(document: &Document, message: &str) -> Option<()> {
    let lang = match document
        .document_element()
        .and_then(|root| root.get_attribute("lang"))
        .as_deref()
    {
        Some("ru") => Lang::Ru,
        _ => Lang::En,
    };
    let texts = panic_texts(lang);
    let element = |tag: &str, class: &str, text: Option<&str>| -> Option<Element> {
        let e = document.create_element(tag).ok()?;
        e.set_class_name(class);
        if let Some(text) = text {
            e.set_text_content(Some(text));
        }
        Some(e)
    };

    let banner = element("div", "panic-banner", None)?;
    banner.set_id(BANNER_ID);
    banner.set_attribute("role", "alertdialog").ok()?;
    banner.set_attribute("aria-modal", "true").ok()?;
    banner
        .set_attribute("aria-labelledby", "panic-title")
        .ok()?;
    let card = element("div", "panic-card", None)?;
    let title = element("h2", "panic-title", Some(texts.title))?;
    title.set_id("panic-title");
    let body = element("p", "panic-text", Some(texts.body))?;
    // The page's own address without its fragment: following it loads the page again.
    let href = web_sys::window()?.location().href().ok()?;
    let href = href.split('#').next().unwrap_or_default();
    let reload = element("a", "panic-reload", Some(texts.reload))?;
    reload.set_attribute("href", href).ok()?;
    let details = element("details", "panic-details", None)?;
    let summary = element("summary", "", Some(texts.details))?;
    let pre = element("pre", "panic-message", Some(message))?;
    details.append_child(&summary).ok()?;
    details.append_child(&pre).ok()?;
    for child in [&title, &body, &reload, &details] {
        card.append_child(child).ok()?;
    }
    banner.append_child(&card).ok()?;
    document.body()?.append_child(&banner).ok()?;
    if let Some(reload) = reload.dyn_ref::<HtmlElement>() {
        let _ = reload.focus();
    }
    Some(())
}
