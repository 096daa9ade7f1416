//! The warehouse floor, drawn on a `<canvas>`: the control-plane strip across the top,
//! one zone per node, robots in a grid inside their zone, and the waiting bay for
//! robots without a zone. Layout is pure arithmetic (tested natively); drawing batches
//! robots by colour so thousands of them cost a handful of canvas calls.
//!
//! This module is the component (props, zoom and pan, the mouse, when to paint);
//! `layout` places things, `paint` and `desks` draw them, `hit` answers what is under
//! the pointer, `animate` moves robots and flashes sheets, `hook` reports to the test
//! hook. A paint of a view whose zones are mostly the same `Rc`s as the painted one
//! repaints only the changed zones ([`draw`]).

mod animate;
mod desks;
mod hit;
mod hook;
mod layout;
mod paint;

use animate::{draw_ghosts, Anim, ANIMATE_LIMIT};
pub use desks::*;
pub use hit::describe;
use hit::Hits;
pub use hook::hook_json;
use hook::{report_draw, report_paint, HOOK};
pub use layout::*;
pub use paint::*;

use crate::floor::{is_system_desk, FloorData};
use crate::i18n::{Key, Tr, F};
use crate::projection::FloorView;
use crate::target::Target;
use std::cell::RefCell;
use std::rc::Rc;
use warehouse_sim::views::countdown::Countdown;
use warehouse_sim::views::desks::DeskView;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

#[derive(Properties)]
pub struct CanvasProps {
    pub view: Rc<FloorView>,
    pub floor: FloorData,
    pub tr: Tr,
    /// A click on something of the floor (or on nothing): inspect it.
    pub on_inspect: Callback<Option<Target>>,
    /// A line for the terminal (the scale demo's commands).
    pub on_run: Callback<String>,
    /// Whether the floor is on screen (not on a tab that is not shown): shown
    /// again, it is drawn at its new width.
    #[prop_or(true)]
    pub shown: bool,
}

impl PartialEq for CanvasProps {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (&self.floor, &other.floor);
        // The zones, the bay and the strip: a view that only logged requests (a
        // lease renewed) draws nothing new.
        self.view.same_floor(&other.view)
            && Rc::ptr_eq(&a.desks, &b.desks)
            && Rc::ptr_eq(&a.budgets, &b.budgets)
            && Rc::ptr_eq(&a.schedules, &b.schedules)
            && Rc::ptr_eq(&a.gauges, &b.gauges)
            && Rc::ptr_eq(&a.fences, &b.fences)
            && Rc::ptr_eq(&a.gates, &b.gates)
            && Rc::ptr_eq(&a.traffic, &b.traffic)
            && Rc::ptr_eq(&a.countdowns, &b.countdowns)
            // Time alone redraws only the countdowns' texts.
            && (a.countdowns.is_empty() || a.now_ms == b.now_ms)
            && self.tr == other.tr
            && self.shown == other.shown
    }
}

/// What the floor remembers between frames: zoom and pan, what it drew where (for
/// hit-testing), the sheets' versions, and the animations under way.
#[derive(Default)]
pub struct Floor {
    pub zoom: f64,
    pub pan: (f64, f64),
    drag: Option<(f64, f64, f64, f64)>,
    dragged: bool,
    pub show_scroll: bool,
    hits: Hits,
    anim: Anim,
    last: Option<(Rc<FloorView>, FloorData, Tr)>,
    /// What the canvas shows now.
    painted: Option<Painted>,
    raf: Option<wasm_bindgen::closure::Closure<dyn FnMut()>>,
    raf_pending: bool,
}

/// A demo of scale for the "Big warehouse" button: 97 more zones, 10,000 robots.
pub fn scale_script() -> String {
    let mut s = String::new();
    for i in 1..=97 {
        s.push_str(&format!(
            "sim node add big-{i:02} --cpu 64 --memory 256Gi\n"
        ));
    }
    s.push_str("kubectl create deployment crowd --image=nginx:1.27 --replicas=10000\n");
    s
}

#[function_component]
pub fn WarehouseCanvas(props: &CanvasProps) -> Html {
    let canvas_ref = use_node_ref();
    let tip_ref = use_node_ref();
    let floor = use_mut_ref(|| Floor {
        zoom: 1.0,
        ..Floor::default()
    });
    let force = use_force_update();

    // Redraw when the window changes size, even while the clock is paused; zoom on
    // the wheel (a listener that may prevent the page from scrolling).
    {
        let floor = floor.clone();
        let canvas_ref = canvas_ref.clone();
        let force = force.clone();
        use_effect_with((), move |_| {
            listen_resize_and_wheel(floor, canvas_ref, force)
        });
    }

    {
        let canvas_ref = canvas_ref.clone();
        let floor = floor.clone();
        let input = (props.view.clone(), props.floor.clone(), props.tr);
        use_effect(move || {
            floor.borrow_mut().last = Some(input);
            redraw(&canvas_ref, &floor);
        });
    }

    let onmousedown = on_mouse_down(&floor);
    let onmousemove = on_mouse_move(&floor, &tip_ref, &force);
    let onmouseup = on_mouse_up(&floor, &props.on_inspect);
    let onmouseleave = {
        let floor = floor.clone();
        let tip_ref = tip_ref.clone();
        Callback::from(move |_: MouseEvent| {
            floor.borrow_mut().drag = None;
            show_tip(&tip_ref, None, 0.0, 0.0);
        })
    };
    let zoom_by = |k: f64| on_zoom(&floor, &force, k);
    let toggle_scroll = {
        let floor = floor.clone();
        let force = force.clone();
        Callback::from(move |_: MouseEvent| {
            let mut f = floor.borrow_mut();
            f.show_scroll = !f.show_scroll;
            drop(f);
            force.force_update();
        })
    };
    let scale_demo = {
        let on_run = props.on_run.clone();
        Callback::from(move |_: MouseEvent| {
            for line in scale_script().lines() {
                on_run.emit(line.to_string());
            }
        })
    };

    let robots: usize = props
        .view
        .nodes
        .iter()
        .map(|n| workload_count(&n.pods))
        .sum::<usize>()
        + workload_count(&props.view.unscheduled);
    let tr = props.tr;
    let label = format!("{}: {}", tr.t(Key::CanvasLabel), tr.robot_count(robots));
    let show_scroll = floor.borrow().show_scroll;
    html! {
        <>
        <div class="floor-controls" title={tr.f(F::ZoomTitle)}>
            <button type="button" id="zoom-in" onclick={zoom_by(1.25)} aria-label={tr.t(crate::i18n::Key::ZoomIn)}>{ tr.f(F::ZoomIn) }</button>
            <button type="button" id="zoom-out" onclick={zoom_by(0.8)} aria-label={tr.t(crate::i18n::Key::ZoomOut)}>{ tr.f(F::ZoomOut) }</button>
            <button type="button" id="zoom-reset" onclick={zoom_by(0.0)}>{ tr.f(F::ZoomReset) }</button>
            <label class="scroll-toggle" title={tr.f(F::ScrollToggleTitle)}>
                <input type="checkbox" id="scroll-toggle" checked={show_scroll} onclick={toggle_scroll} />
                { tr.f(F::ScrollToggle) }
            </label>
            <button type="button" id="scale-demo" title={tr.f(F::ScaleDemoTitle)} onclick={scale_demo}>{ tr.f(F::ScaleDemo) }</button>
        </div>
        <canvas id="warehouse-canvas" ref={canvas_ref} role="img" aria-label={label}
                {onmousedown} {onmousemove} {onmouseup} {onmouseleave}></canvas>
        <div id="floor-tooltip" class="floor-tooltip" ref={tip_ref} role="tooltip" hidden=true></div>
        </>
    }
}

/// Listens for the window's resizes (a redraw) and the canvas's wheel (a zoom about
/// the pointer, keeping the page from scrolling); returns what stops listening.
fn listen_resize_and_wheel(
    floor: Rc<RefCell<Floor>>,
    canvas_ref: NodeRef,
    force: UseForceUpdateHandle,
) -> impl FnOnce() {
    let f2 = force.clone();
    let listener = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || f2.force_update());
    let window = web_sys::window();
    if let Some(w) = &window {
        let _ = w.add_event_listener_with_callback("resize", listener.as_ref().unchecked_ref());
    }
    let canvas = canvas_ref.cast::<HtmlCanvasElement>();
    let wheel = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::WheelEvent)>::new(
        move |e: web_sys::WheelEvent| {
            e.prevent_default();
            {
                let mut f = floor.borrow_mut();
                let (ox, oy) = (f64::from(e.offset_x()), f64::from(e.offset_y()));
                let z = (f.zoom * (-e.delta_y() * 0.0015).exp()).clamp(0.25, 8.0);
                let k = z / f.zoom;
                f.pan = (ox - (ox - f.pan.0) * k, oy - (oy - f.pan.1) * k);
                f.zoom = z;
            }
            force.force_update();
        },
    );
    if let Some(c) = &canvas {
        let opts = web_sys::AddEventListenerOptions::new();
        opts.set_passive(false);
        let _ = c.add_event_listener_with_callback_and_add_event_listener_options(
            "wheel",
            wheel.as_ref().unchecked_ref(),
            &opts,
        );
    }
    move || {
        if let Some(w) = &window {
            let _ =
                w.remove_event_listener_with_callback("resize", listener.as_ref().unchecked_ref());
        }
        if let Some(c) = &canvas {
            let _ = c.remove_event_listener_with_callback("wheel", wheel.as_ref().unchecked_ref());
        }
    }
}

/// Where a mouse event points on the floor, before zoom and pan.
fn to_content(f: &Floor, e: &MouseEvent) -> (f64, f64) {
    (
        (f64::from(e.offset_x()) - f.pan.0) / f.zoom,
        (f64::from(e.offset_y()) - f.pan.1) / f.zoom,
    )
}

/// A press starts a drag (a click, unless the pointer moves far enough).
fn on_mouse_down(floor: &Rc<RefCell<Floor>>) -> Callback<MouseEvent> {
    let floor = floor.clone();
    Callback::from(move |e: MouseEvent| {
        let mut f = floor.borrow_mut();
        f.drag = Some((
            f64::from(e.client_x()),
            f64::from(e.client_y()),
            f.pan.0,
            f.pan.1,
        ));
        f.dragged = false;
    })
}

/// A move pans the floor while dragging, and otherwise shows the tooltip of what
/// is under the pointer.
fn on_mouse_move(
    floor: &Rc<RefCell<Floor>>,
    tip_ref: &NodeRef,
    force: &UseForceUpdateHandle,
) -> Callback<MouseEvent> {
    let floor = floor.clone();
    let tip_ref = tip_ref.clone();
    let force = force.clone();
    Callback::from(move |e: MouseEvent| {
        let mut f = floor.borrow_mut();
        if let Some((x0, y0, px, py)) = f.drag {
            let (dx, dy) = (f64::from(e.client_x()) - x0, f64::from(e.client_y()) - y0);
            if e.buttons() & 1 == 1 && (f.dragged || dx.abs() + dy.abs() > 4.0) {
                f.dragged = true;
                f.pan = (px + dx, py + dy);
                drop(f);
                force.force_update();
                return;
            }
        }
        let (x, y) = to_content(&f, &e);
        let target = f.hit(x, y);
        let text = match (&target, &f.last) {
            (Some(t), Some((view, data, tr))) => Some(describe(t, view, data, *tr)),
            _ => None,
        };
        drop(f);
        let (ox, oy) = e
            .target_dyn_into::<web_sys::HtmlElement>()
            .map_or((0.0, 0.0), |c| {
                (f64::from(c.offset_left()), f64::from(c.offset_top()))
            });
        show_tip(
            &tip_ref,
            text,
            f64::from(e.offset_x()) + ox,
            f64::from(e.offset_y()) + oy,
        );
    })
}

/// A release that ends no drag is a click: it inspects what is under the pointer.
fn on_mouse_up(
    floor: &Rc<RefCell<Floor>>,
    on_inspect: &Callback<Option<Target>>,
) -> Callback<MouseEvent> {
    let floor = floor.clone();
    let on_inspect = on_inspect.clone();
    Callback::from(move |e: MouseEvent| {
        let mut f = floor.borrow_mut();
        let dragged = f.dragged;
        f.drag = None;
        f.dragged = false;
        if !dragged {
            let (x, y) = to_content(&f, &e);
            let target = f.hit(x, y);
            drop(f);
            on_inspect.emit(target);
        }
    })
}

/// A zoom button: zooms by `k`, or back to the whole floor when `k` is 0.
fn on_zoom(
    floor: &Rc<RefCell<Floor>>,
    force: &UseForceUpdateHandle,
    k: f64,
) -> Callback<MouseEvent> {
    let floor = floor.clone();
    let force = force.clone();
    Callback::from(move |_: MouseEvent| {
        {
            let mut f = floor.borrow_mut();
            if k == 0.0 {
                f.zoom = 1.0;
                f.pan = (0.0, 0.0);
            } else {
                f.zoom = (f.zoom * k).clamp(0.25, 8.0);
            }
        }
        force.force_update();
    })
}

fn show_tip(tip: &NodeRef, text: Option<(String, String)>, x: f64, y: f64) {
    let Some(el) = tip.cast::<web_sys::HtmlElement>() else {
        return;
    };
    match text {
        None => el.set_hidden(true),
        Some((title, line)) => {
            el.set_inner_text("");
            if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
                if let (Ok(b), Ok(s)) = (doc.create_element("strong"), doc.create_element("span")) {
                    b.set_text_content(Some(&title));
                    s.set_text_content(Some(&line));
                    let _ = el.append_child(&b);
                    let _ = el.append_child(&s);
                }
            }
            // Through the CSSOM, not a style attribute: the page's CSP allows no inline styles.
            let style = el.style();
            let _ = style.set_property("left", &format!("{}px", x + 14.0));
            let _ = style.set_property("top", &format!("{}px", y + 16.0));
            el.set_hidden(false);
        }
    }
}

/// Draws the last input again, and asks for another frame while something moves.
fn redraw(canvas_ref: &NodeRef, floor: &Rc<RefCell<Floor>>) {
    let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() else {
        return;
    };
    // Not on screen (its tab is not shown): nothing to draw until it is.
    if canvas.client_width() == 0 {
        return;
    }
    let busy = {
        let mut f = floor.borrow_mut();
        let started = js_sys::Date::now();
        let result = draw(&canvas, &mut f);
        HOOK.with(|h| h.borrow_mut().draw_ms = js_sys::Date::now() - started);
        match result {
            Ok(busy) => busy,
            Err(e) => {
                web_sys::console::warn_2(&"warehouse canvas:".into(), &e);
                false
            }
        }
    };
    let mut f = floor.borrow_mut();
    if busy && !f.raf_pending {
        f.raf_pending = true;
        let (cr, fl) = (canvas_ref.clone(), Rc::downgrade(floor));
        let cb = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
            if let Some(fl) = fl.upgrade() {
                fl.borrow_mut().raf_pending = false;
                redraw(&cr, &fl);
            }
        });
        if let Some(w) = web_sys::window() {
            let _ = w.request_animation_frame(cb.as_ref().unchecked_ref());
        }
        f.raf = Some(cb);
    }
}

/// What a paint put on the canvas, to tell whether the next one may repaint only
/// the zones that changed.
struct Painted {
    view: Rc<FloorView>,
    desks: Rc<Vec<DeskView>>,
    budgets: Rc<Vec<warehouse_sim::views::board::BudgetView>>,
    schedules: Rc<Vec<warehouse_sim::views::board::ScheduleView>>,
    gauges: Rc<Vec<warehouse_sim::views::board::GaugeView>>,
    fences: Rc<Vec<warehouse_sim::views::board::FenceView>>,
    gates: Rc<Vec<warehouse_sim::views::board::GateView>>,
    traffic: Rc<crate::floor::Traffic>,
    countdowns: Rc<Vec<Countdown>>,
    now_ms: u64,
    tr: Tr,
    zoom: f64,
    pan: (f64, f64),
    width: f64,
    pixels: (u32, u32),
    show_scroll: bool,
    lay: Layout,
}

impl Painted {
    /// Everything but the zones, the bay and the strip is as painted, and the zones
    /// are the same ones in the same places.
    fn same_frame(
        &self,
        f: &Floor,
        view: &FloorView,
        data: &FloorData,
        tr: Tr,
        width: f64,
        pixels: (u32, u32),
    ) -> bool {
        Rc::ptr_eq(&self.desks, &data.desks)
            && Rc::ptr_eq(&self.budgets, &data.budgets)
            && Rc::ptr_eq(&self.schedules, &data.schedules)
            && Rc::ptr_eq(&self.gauges, &data.gauges)
            && Rc::ptr_eq(&self.fences, &data.fences)
            && Rc::ptr_eq(&self.gates, &data.gates)
            && Rc::ptr_eq(&self.traffic, &data.traffic)
            && Rc::ptr_eq(&self.countdowns, &data.countdowns)
            && (data.countdowns.is_empty() || self.now_ms == data.now_ms)
            && self.tr == tr
            && self.zoom == f.zoom
            && self.pan == f.pan
            && self.width == width
            && self.pixels == pixels
            && self.show_scroll == f.show_scroll
            && self.view.nodes.len() == view.nodes.len()
            && self
                .view
                .nodes
                .iter()
                .zip(&view.nodes)
                .all(|(a, b)| a.name == b.name)
    }
}

/// Paints the last input: only the zones (and the bay and strip) that changed when
/// nothing else did and nothing is moving, otherwise the whole floor. Returns
/// whether something is still moving (another frame is needed).
fn draw(canvas: &HtmlCanvasElement, f: &mut Floor) -> Result<bool, JsValue> {
    let Some((view, data, tr)) = f.last.clone() else {
        return Ok(false);
    };
    let ctx: CanvasRenderingContext2d = canvas
        .get_context("2d")?
        .ok_or_else(|| JsValue::from_str("no 2d context"))?
        .dyn_into()?;
    let now = js_sys::Date::now();
    let robots: usize =
        view.nodes.iter().map(|n| n.pods.len()).sum::<usize>() + view.unscheduled.len();
    // What moved since the painted view starts its walks and fades (before the hit
    // list, which says where the robots stood, is cleared).
    f.anim.follow(&view, &f.hits, robots <= ANIMATE_LIMIT, now);
    let width = f64::from(canvas.client_width());
    let pixels = (canvas.width(), canvas.height());
    let partial = f.anim.idle()
        && f.painted
            .as_ref()
            .is_some_and(|p| p.same_frame(f, &view, &data, tr, width, pixels));
    if partial {
        let painted = f.painted.take().expect("checked above");
        let result = repaint_changed(&ctx, f, &painted, &view, &data, tr, now);
        f.painted = Some(Painted {
            view: view.clone(),
            ..painted
        });
        return result;
    }
    draw_all(canvas, &ctx, f, &view, &data, tr, now)
}

/// Paints the zones, the bay and the strip that are not the ones painted, over
/// themselves; the hit list follows.
fn repaint_changed(
    ctx: &CanvasRenderingContext2d,
    f: &mut Floor,
    painted: &Painted,
    view: &Rc<FloorView>,
    data: &FloorData,
    tr: Tr,
    now: f64,
) -> Result<bool, JsValue> {
    let dpr = device_pixel_ratio();
    ctx.set_transform(
        dpr * f.zoom,
        0.0,
        0.0,
        dpr * f.zoom,
        dpr * f.pan.0,
        dpr * f.pan.1,
    )?;
    let old = &painted.view;
    let lay = &painted.lay;
    let mut p = Paint::new(ctx, tr, now, data, &mut f.anim, &mut f.hits);
    if old.components != view.components {
        draw_strip(ctx, lay.strip, lay.strip_cols, view, tr);
    }
    let mut zones = 0;
    for (i, (node, rect)) in view.nodes.iter().zip(&lay.zones).enumerate() {
        if Rc::ptr_eq(node, &old.nodes[i]) {
            continue;
        }
        zones += 1;
        p.hits.robots.retain(|h| h.node != Some(i));
        // The zone and what stands in it (its lockers).
        p.hits.items.retain(|(r, _)| !rect.contains(r));
        clipped(ctx, *rect, |_| draw_zone(&mut p, *rect, i, node))?;
    }
    if !Rc::ptr_eq(&old.unscheduled, &view.unscheduled) {
        p.hits.robots.retain(|h| h.node.is_some());
        clipped(ctx, lay.bay, |_| {
            draw_bay(&mut p, lay.bay, &view.unscheduled)
        })?;
    }
    let busy = p.busy;
    report_paint(view, &f.hits, zones, false);
    Ok(busy)
}

/// Runs `paint` with drawing clipped to `r`.
fn clipped(
    ctx: &CanvasRenderingContext2d,
    r: Rect,
    paint: impl FnOnce(&CanvasRenderingContext2d) -> Result<(), JsValue>,
) -> Result<(), JsValue> {
    ctx.save();
    ctx.begin_path();
    ctx.rect(r.x, r.y, r.w, r.h);
    ctx.clip();
    let result = paint(ctx);
    ctx.restore();
    result
}

/// Paints the whole floor.
fn draw_all(
    canvas: &HtmlCanvasElement,
    ctx: &CanvasRenderingContext2d,
    f: &mut Floor,
    view: &Rc<FloorView>,
    data: &FloorData,
    tr: Tr,
    now: f64,
) -> Result<bool, JsValue> {
    let css_width = f64::from(canvas.client_width());
    let shown: Vec<&DeskView> = data.desks.iter().filter(|d| !is_system_desk(d)).collect();
    let hidden = data.desks.len() - shown.len();

    // Sheets whose version moved since the last look flash, with the changed lines.
    let fresh_desks = f.anim.note_sheets(&data.desks, now);
    let flashing = |ns: &str, name: &str| f.anim.flashes.contains_key(&format!("{ns}/{name}"));

    let desk_top = PAD + strip_height(css_width) + GAP;
    let desks = desk_layout(
        Rect {
            x: PAD,
            y: desk_top,
            w: css_width.max(MIN_WIDTH) - 2.0 * PAD,
            h: 0.0,
        },
        &shown,
        board_lines(&[
            data.budgets.len(),
            data.schedules.len(),
            data.gauges.len(),
            data.fences.len(),
            data.gates.len(),
        ]),
        &flashing,
        f.show_scroll,
    );
    let lay = layout_with(css_width, view.nodes.len(), desks.rect.h + GAP);
    size_canvas(canvas, ctx, &lay, f.zoom, f.pan)?;

    f.hits.items.clear();
    f.hits.robots.clear();
    let mut p = Paint::new(ctx, tr, now, data, &mut f.anim, &mut f.hits);
    draw_strip(ctx, lay.strip, lay.strip_cols, view, tr);
    draw_desks(&mut p, &desks, &shown, hidden, data)?;
    // Zones drawn as counts when robots are too small to see one by one.
    for (i, (node, rect)) in view.nodes.iter().zip(&lay.zones).enumerate() {
        draw_zone(&mut p, *rect, i, node)?;
    }
    draw_bay(&mut p, lay.bay, &view.unscheduled)?;
    draw_ghosts(&mut p);
    let busy = p.busy || !p.anim.flashes.is_empty() || !p.anim.walks.is_empty();
    report_draw(f, fresh_desks, &desks, &shown);
    report_paint(view, &f.hits, view.nodes.len(), true);
    f.painted = Some(Painted {
        view: view.clone(),
        desks: data.desks.clone(),
        budgets: data.budgets.clone(),
        schedules: data.schedules.clone(),
        gauges: data.gauges.clone(),
        fences: data.fences.clone(),
        gates: data.gates.clone(),
        traffic: data.traffic.clone(),
        countdowns: data.countdowns.clone(),
        now_ms: data.now_ms,
        tr,
        zoom: f.zoom,
        pan: f.pan,
        width: css_width,
        pixels: (canvas.width(), canvas.height()),
        show_scroll: f.show_scroll,
        lay,
    });
    Ok(busy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use warehouse_sim::views::desks::SheetLine;

    #[test]
    fn four_zones_make_a_two_by_two_floor() {
        let lay = layout(900.0, 4);
        assert_eq!(lay.zones.len(), 4);
        assert_eq!(lay.zones[0].y, lay.zones[1].y);
        assert!(lay.zones[2].y > lay.zones[0].y);
        assert!(lay.bay.y > lay.zones[3].bottom());
        assert!((lay.height - (lay.bay.bottom() + PAD)).abs() < 1e-9);
    }

    #[test]
    fn a_thousand_zones_stay_under_the_height_limit() {
        let lay = layout(800.0, 1001);
        assert!(lay.height <= MAX_HEIGHT + 1.0, "{}", lay.height);
        assert!(lay.zones.iter().all(|z| z.x + z.w <= 800.0 - PAD + 1e-6));
    }

    #[test]
    fn narrow_canvases_use_one_column_and_wrap_the_strip() {
        let lay = layout(200.0, 4);
        assert!(lay.zones.iter().all(|z| z.x == PAD));
        assert_eq!(lay.strip_cols, 2);
        assert_eq!(layout(1000.0, 4).strip_cols, 4);
        assert!(lay.zones[0].y > lay.strip.bottom());
    }

    fn desk(sheets: usize, lines: usize) -> DeskView {
        DeskView {
            namespace: "default".into(),
            name: "web".into(),
            service_type: "ClusterIP".into(),
            cluster_ip: Some("10.96.0.20".into()),
            selector: vec![("app".into(), "web".into())],
            ports: vec!["80/TCP".into()],
            external_ip: None,
            sheets: (0..sheets)
                .map(|i| warehouse_sim::views::desks::SheetView {
                    name: format!("web-{i}"),
                    resource_version: "1".into(),
                    lines: (0..lines)
                        .map(|j| SheetLine {
                            ip: format!("10.244.0.{j}"),
                            pod: None,
                            zone: None,
                            ready: true,
                            serving: true,
                            terminating: false,
                        })
                        .collect(),
                })
                .collect(),
            scroll_lines: sheets * lines,
        }
    }

    #[test]
    fn few_sheets_are_drawn_line_by_line_many_are_rows_but_the_changed_one() {
        let area = Rect {
            x: 0.0,
            y: 0.0,
            w: 900.0,
            h: 0.0,
        };
        let small = desk(1, 3);
        let lay = desk_layout(area, &[&small], 0, &|_, _| false, false);
        assert!(lay.desks[0].sheets[0].expanded);
        assert_eq!(lay.desks[0].sheets[0].shown, 3);
        let big = desk(100, 100);
        let lay = desk_layout(area, &[&big], 0, &|_, n| n == "web-42", true);
        let b = &lay.desks[0];
        let expanded: Vec<_> = b.sheets.iter().filter(|s| s.expanded).collect();
        assert_eq!(expanded.len(), 1);
        assert_eq!(expanded[0].index, 42);
        assert_eq!(expanded[0].shown, MAX_LINES);
        assert_eq!(b.sheets.len(), MAX_ROWS + 1);
        assert_eq!(b.more_sheets, 100 - MAX_ROWS - 1);
        assert!(b.scroll.is_some());
        assert!(lay.rect.h < 600.0, "{}", lay.rect.h);
    }

    #[test]
    fn robot_cells_shrink_to_fit_and_never_exceed_the_maximum() {
        let area = Rect {
            x: 0.0,
            y: 0.0,
            w: 300.0,
            h: 150.0,
        };
        assert_eq!(robot_grid(area, 3).cell, MAX_CELL);
        for n in [1, 10, 100, 1000, 5000] {
            let g = robot_grid(area, n);
            assert!(g.capacity() >= n, "n={n} {g:?}");
            assert!(g.cell <= MAX_CELL);
        }
        let g = robot_grid(area, 1_000_000);
        assert_eq!(g.cell, MIN_CELL);
        assert!(g.capacity() < 1_000_000);
    }
}
