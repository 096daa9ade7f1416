//! Offline use: registers the service worker `sw.js` (`web/sw.js`, stamped with the
//! build's files by `cargo xtask offline`), which keeps the app and its lessons so a
//! reload without a network still works. Registered after the first render, so its
//! caching does not compete with the app's own first load. Where the browser offers
//! no service workers (a plain-http address other than localhost), the app runs as
//! before, online only.

use wasm_bindgen_futures::{spawn_local, JsFuture};

pub fn register_worker() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let navigator = window.navigator();
    if !js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false) {
        return;
    }
    let registering = navigator.service_worker().register("sw.js");
    spawn_local(async move {
        if let Err(e) = JsFuture::from(registering).await {
            web_sys::console::warn_2(&"offline use is not available:".into(), &e);
        }
    });
}
