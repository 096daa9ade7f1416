//! `window.__warehouse`: a read-only window into the simulation for browser tests.
//!
//! - `robots()` returns a JSON string: zone name → { robot state → count }, with
//!   `unscheduled` as its own pseudo-zone (see `ClusterView::robot_counts`). Only
//!   workload robots count: kube-system's pods are left out.
//! - `timeMs()` returns the simulated time in milliseconds.
//!
//! Both read the live session, so they reflect every action as soon as it has been
//! reduced, without waiting for a render.

use crate::kubectl::Session;
use js_sys::{Function, Object, Reflect, JSON};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

const HOOK_NAME: &str = "__warehouse";

/// Defines `window.__warehouse`. Safe to call more than once: later calls are
/// ignored, because the property is not configurable.
pub fn install(session: Rc<RefCell<Session>>) -> Result<(), JsValue> {
    let window = web_sys::window().ok_or_else(|| JsValue::from_str("no window"))?;
    if Reflect::has(&window, &JsValue::from_str(HOOK_NAME))? {
        return Ok(());
    }
    let hook = Object::new();

    let robots_session = session.clone();
    let robots = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(move || {
        let session = robots_session
            .try_borrow()
            .map_err(|_| JsValue::from_str("the simulation is busy"))?;
        let counts = session.cluster.view().robot_counts();
        let out = Object::new();
        for (zone, states) in counts {
            let per_state = Object::new();
            for (state, n) in states {
                Reflect::set(
                    &per_state,
                    &JsValue::from_str(state),
                    &JsValue::from(n as u32),
                )?;
            }
            Reflect::set(&out, &JsValue::from_str(&zone), &per_state)?;
        }
        Ok(JSON::stringify(&out)?.into())
    });

    let time_session = session;
    let time_ms = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(move || {
        let session = time_session
            .try_borrow()
            .map_err(|_| JsValue::from_str("the simulation is busy"))?;
        Ok(JsValue::from_f64(session.cluster.now().0 as f64))
    });

    Reflect::set(
        &hook,
        &"robots".into(),
        robots.as_ref().unchecked_ref::<Function>(),
    )?;
    Reflect::set(
        &hook,
        &"timeMs".into(),
        time_ms.as_ref().unchecked_ref::<Function>(),
    )?;
    // The page lives as long as the app: the closures must too.
    robots.forget();
    time_ms.forget();
    Object::freeze(&hook);

    let descriptor = Object::new();
    Reflect::set(&descriptor, &"value".into(), &hook)?;
    Reflect::set(&descriptor, &"writable".into(), &JsValue::FALSE)?;
    Reflect::set(&descriptor, &"configurable".into(), &JsValue::FALSE)?;
    Reflect::set(&descriptor, &"enumerable".into(), &JsValue::FALSE)?;
    Reflect::define_property(&window, &JsValue::from_str(HOOK_NAME), &descriptor)?;
    Ok(())
}
