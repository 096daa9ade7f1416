//! `window.__warehouse`: a read-only window into the simulation for browser tests
//! (and one way to make the app panic, `panic`).
//!
//! - `robots()` returns a JSON string: zone name → { robot state → count }, with
//!   `unscheduled` as its own pseudo-zone (see `ClusterView::robot_counts`). Only
//!   workload robots count: kube-system's pods are left out.
//! - `timeMs()` returns the simulated time in milliseconds.
//!
//! - `lesson()` returns a JSON string of [`HookInfo`]: `panel` ("catalogue",
//!   "lesson", "sandbox", "loading", "errors"), `catalogueLoaded`, `lessons` (folders
//!   listed), `lessonId`, `step` (0-based), `steps`, `checkPassed` (null without a
//!   check), `conditions` (pass flag per condition), `done` (steps done), `errors`.
//!
//! - `office()` returns a JSON string of `office::OfficeInfo`: `envelopes` (requests
//!   seen), `envelopesInFlight`, `writes`, `orders`, `ordersFailed`, `refused` (each
//!   `{user, what, code, gate, stage}`), `missed`, `narration` (the lines shown).
//!
//! - `floor()` returns a JSON string of `canvas::FloorHook`: the desks and sheets as
//!   drawn, `robots` (the robots as last painted, the shape of `robots()`), `crew`
//!   (numbered robots: `zone`, `name`, `ordinal`, `claims`), `attached` (robots
//!   with sidecars: `zone`, `name`, `attachments` as readiness flags), `lockers` (`zone`,
//!   `name`, `claim`, `phase`, `number`, and `x`, `y`, `w`, `h` as drawn),
//!   `projection` (`zonesRecomputed`, `zoneHeaders`, `fullRebuilds`, `views`,
//!   `unchanged`: what the floor's model computed since load), `fullPaints`,
//!   `partialPaints`, `zonesPainted`, `generation`, `rebuilds`, `draws`.
//!
//! - `panic(message)` is the one entry that is not read-only: it panics inside the
//!   app with `message` (a string; anything else gives a fixed message), as an
//!   internal error would, so a test can check what a learner sees then (the banner
//!   of `panic_banner.rs`, `tests/browser/panic.test.mjs`). It throws, as every
//!   call into the app after an internal error does, and changes no state.
//!
//! `robots` and `timeMs` read the live session, so they reflect every action as soon as it has been
//! reduced, without waiting for a render.

use crate::kubectl::Session;
use crate::lessons::CatalogueState;
use crate::state::{AppState, Panel};
use js_sys::{Function, Object, Reflect, JSON};
use serde::Serialize;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

const HOOK_NAME: &str = "__warehouse";

/// What the hook tells about lessons; the reducer refreshes it after each action.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookInfo {
    pub panel: String,
    pub catalogue_loaded: bool,
    pub lessons: Vec<String>,
    pub lesson_id: Option<String>,
    pub step: Option<usize>,
    pub steps: usize,
    pub check_passed: Option<bool>,
    pub conditions: Vec<bool>,
    pub done: Vec<usize>,
    pub errors: Vec<String>,
}

impl HookInfo {
    pub fn update(&mut self, state: &AppState) {
        self.panel = match &state.panel {
            Panel::Catalogue => "catalogue",
            Panel::Lesson => "lesson",
            Panel::Sandbox => "sandbox",
            Panel::Loading(_) => "loading",
            Panel::Errors(_) => "errors",
        }
        .to_string();
        self.errors = match &state.panel {
            Panel::Errors(e) => e.to_vec(),
            _ => Vec::new(),
        };
        match &state.catalogue {
            CatalogueState::Ready { lessons, .. } => {
                self.catalogue_loaded = true;
                self.lessons = lessons.iter().map(|l| l.folder.clone()).collect();
            }
            _ => {
                self.catalogue_loaded = false;
                self.lessons.clear();
            }
        }
        match &state.lesson {
            Some(open) => {
                let id = open.id().to_string();
                self.steps = open.lesson(false).steps.len();
                self.step = Some(open.step);
                self.check_passed = open.check.as_ref().map(|c| c.passed());
                self.conditions = open
                    .check
                    .as_ref()
                    .map(|c| c.conditions.iter().map(|c| c.passed).collect())
                    .unwrap_or_default();
                self.done = state
                    .progress
                    .lessons
                    .get(&id)
                    .map(|p| p.done.iter().copied().collect())
                    .unwrap_or_default();
                self.lesson_id = Some(id);
            }
            None => {
                self.lesson_id = None;
                self.step = None;
                self.steps = 0;
                self.check_passed = None;
                self.conditions.clear();
                self.done.clear();
            }
        }
    }
}

/// Defines `window.__warehouse`. Safe to call more than once: later calls are
/// ignored, because the property is not configurable.
pub fn install(
    session: Rc<RefCell<Session>>,
    info: Rc<RefCell<HookInfo>>,
    office: Rc<RefCell<crate::office::OfficeInfo>>,
) -> Result<(), JsValue> {
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

    let lesson = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(move || {
        let info = info
            .try_borrow()
            .map_err(|_| JsValue::from_str("the app is busy"))?;
        serde_json::to_string(&*info)
            .map(|s| JsValue::from_str(&s))
            .map_err(|e| JsValue::from_str(&e.to_string()))
    });
    let office = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(move || {
        let info = office
            .try_borrow()
            .map_err(|_| JsValue::from_str("the office is busy"))?;
        serde_json::to_string(&*info)
            .map(|s| JsValue::from_str(&s))
            .map_err(|e| JsValue::from_str(&e.to_string()))
    });
    Reflect::set(
        &hook,
        &"office".into(),
        office.as_ref().unchecked_ref::<Function>(),
    )?;
    office.forget();
    Reflect::set(
        &hook,
        &"lesson".into(),
        lesson.as_ref().unchecked_ref::<Function>(),
    )?;
    lesson.forget();
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
    // `floor()`: the floor as drawn (desks, sheets and their lines, the flashing
    // sheets, the robots painted), how many times the desks were rebuilt, what the
    // floor's model recomputed (`projection`: zones recomputed, whole rebuilds) and
    // what was painted (see `canvas::FloorHook`).
    let floor =
        Closure::<dyn Fn() -> JsValue>::new(|| JsValue::from_str(&crate::canvas::hook_json()));
    Reflect::set(
        &hook,
        &"floor".into(),
        floor.as_ref().unchecked_ref::<Function>(),
    )?;
    floor.forget();
    let panic = Closure::<dyn Fn(JsValue)>::new(|message: JsValue| {
        let message = message
            .as_string()
            .unwrap_or_else(|| "window.__warehouse.panic() was called".to_string());
        panic!("{message}");
    });
    Reflect::set(
        &hook,
        &"panic".into(),
        panic.as_ref().unchecked_ref::<Function>(),
    )?;
    panic.forget();
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
