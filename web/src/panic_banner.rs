//! What a learner sees when the app panics: a banner over the page saying the
//! simulator stopped because of an internal error, a Reload link, and the panic
//! message in a collapsible `<details>` to copy into a bug report; and, when a
//! sandbox or a built-in lesson was saved for a reload, a share link of that state
//! (a few seconds before the error) to send with it.
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

/// Set by the first panic: from then on nothing is saved for a reload (the app's
/// timers may still run, over a state the panic left half-updated).
static PANICKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the app has panicked.
pub fn panicked() -> bool {
    PANICKED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Installs the hook: the console's report, then the banner. Through Yew, whose
/// `Renderer` otherwise replaces any hook with its own (the console's report only).
pub fn install() {
    yew::set_custom_panic_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        PANICKED.store(true, std::sync::atomic::Ordering::Relaxed);
        // A link to the warehouse as last saved (a few seconds before the error), for
        // whoever helps: taken before the saved state goes.
        let link = crash_link();
        // The saved sandbox or lesson could replay into the same panic after Reload:
        // they go, and the warehouse starts anew (lesson progress is kept apart).
        crate::saved::clear();
        crate::lesson_saved::clear();
        show(&info.to_string(), link.as_deref());
    }));
}

/// A share link of what was last saved for a reload: the open lesson's (a lesson
/// of the built-in catalogue) or else the sandbox's history. Made without waiting:
/// its JSON is not compressed ([`crate::saved::PLAIN_MARK`]).
fn crash_link() -> Option<String> {
    use crate::lesson_saved::{Source, LESSON_LINK_PREFIX};
    if let Some(lesson) = crate::lesson_saved::load() {
        let lesson = lesson.ok()?;
        if !matches!(lesson.timeline.source, Source::Catalogue(_)) {
            return None;
        }
        let json = serde_json::to_vec(&lesson.timeline).ok()?;
        return crate::saved::plain_link_with(LESSON_LINK_PREFIX, &json).ok();
    }
    let saved = crate::saved::load()?.ok()?;
    let json = serde_json::to_vec(&saved.history).ok()?;
    crate::saved::plain_link_with(crate::saved::LINK_PREFIX, &json).ok()
}

/// Shows the banner with `message`, unless one is shown already.
fn show(message: &str, link: Option<&str>) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if document.get_element_by_id(BANNER_ID).is_some() {
        return;
    }
    // Nothing here may panic again: every failure just leaves the banner out.
    let _ = build(&document, message, link);
}

fn build(document: &Document, message: &str, link: Option<&str>) -> Option<()> {
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
    for child in [&title, &body, &reload] {
        card.append_child(child).ok()?;
    }
    if let Some(link) = link {
        // The state a few seconds before the error: a link to open or to send, and
        // the same address as text to copy.
        let share = element("p", "panic-share", Some(texts.share))?;
        let open = element("a", "panic-link", Some(texts.open_link))?;
        open.set_attribute("href", link).ok()?;
        open.set_attribute("target", "_blank").ok()?;
        open.set_attribute("rel", "noopener").ok()?;
        let field = element("input", "panic-link-text", None)?;
        field.set_attribute("type", "text").ok()?;
        field.set_attribute("readonly", "").ok()?;
        field.set_attribute("aria-label", texts.link_label).ok()?;
        field.set_attribute("value", link).ok()?;
        for child in [&share, &open, &field] {
            card.append_child(child).ok()?;
        }
    }
    card.append_child(&details).ok()?;
    banner.append_child(&card).ok()?;
    document.body()?.append_child(&banner).ok()?;
    if let Some(reload) = reload.dyn_ref::<HtmlElement>() {
        let _ = reload.focus();
    }
    Some(())
}
