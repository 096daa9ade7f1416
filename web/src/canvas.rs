//! The warehouse floor, drawn on a `<canvas>`: the control-plane strip across the top,
//! one zone per node, robots in a grid inside their zone, and the waiting bay for
//! robots without a zone. Layout is pure arithmetic (tested natively); drawing batches
//! robots by colour so thousands of them cost a handful of canvas calls.

use crate::floor::{
    human_bytes, is_system_desk, owner_color, scroll_bytes, FloorData, TrafficSample,
};
use crate::i18n::{Key, Tr, F};
use crate::state::{Action, AppState};
use crate::target::Target;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::f64::consts::TAU;
use std::rc::Rc;
use warehouse_sim::views::countdown::{Countdown, CountdownKind};
use warehouse_sim::views::desks::{DeskView, SheetLine};
use warehouse_sim::StableSort;
use warehouse_sim::{ClusterView, NodeView, PodView, RobotState, ZoneHealth};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

// ----- colours (the legend uses the same table) -----

/// The colour a robot is drawn in.
pub fn state_color(state: RobotState) -> &'static str {
    match state {
        RobotState::Running => "#2e9e4f",
        RobotState::Creating => "#e3a91b",
        RobotState::NotReady => "#f07a1a",
        RobotState::Terminating => "#9a9a9a",
        RobotState::Unscheduled => "#6f8199",
        RobotState::Completed => "#3b72d9",
        RobotState::BackOff | RobotState::Failed => "#d33a3a",
    }
}

/// The states the legend lists, one per colour.
pub const LEGEND_STATES: [RobotState; 7] = [
    RobotState::Running,
    RobotState::Creating,
    RobotState::NotReady,
    RobotState::Terminating,
    RobotState::Unscheduled,
    RobotState::Completed,
    RobotState::Failed,
];

/// System robots (kube-system pods) that are working are drawn in this grey; the
/// others keep their state's colour, small.
pub const SYSTEM_COLOR: &str = "#8a94a3";
/// The cell of a system robot: a row of small robots along a zone's bottom edge.
pub const SYSTEM_CELL: f64 = 11.0;
const STOPPED: &str = "#d33a3a";

const INK: &str = "#1f2933";
const MUTED: &str = "#5b6673";
const FLOOR: &str = "#f7f2e7";
const FLOOR_EDGE: &str = "#a39478";
const OFFICE_FLOOR: &str = "#ece8f6";
const OFFICE_EDGE: &str = "#7d6cb3";
const DARK_FLOOR: &str = "#2a2e35";
const WARNING: &str = "#e07000";
const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

// ----- layout -----

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
    fn inset(&self, left: f64, top: f64, right: f64, bottom: f64) -> Rect {
        Rect {
            x: self.x + left,
            y: self.y + top,
            w: (self.w - left - right).max(0.0),
            h: (self.h - top - bottom).max(0.0),
        }
    }
}

pub const PAD: f64 = 12.0;
pub const GAP: f64 = 10.0;
/// The strip's title row, and the height of one row of component boxes.
pub const STRIP_TITLE_H: f64 = 26.0;
pub const STRIP_ROW_H: f64 = 46.0;
/// Component boxes narrower than this wrap onto a second row.
pub const MIN_COMPONENT_W: f64 = 170.0;
/// The control-plane components on the strip.
pub const COMPONENTS: usize = 4;
pub const BAY_H: f64 = 72.0;
pub const MIN_WIDTH: f64 = 320.0;
/// Canvases taller than this fail to allocate in some browsers; zones shrink instead.
pub const MAX_HEIGHT: f64 = 12_000.0;

/// Where everything goes on a canvas `width` CSS pixels wide.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    pub strip: Rect,
    /// Component boxes per row on the strip.
    pub strip_cols: usize,
    pub zones: Vec<Rect>,
    pub bay: Rect,
}

pub fn layout(width: f64, zone_count: usize) -> Layout {
    layout_with(width, zone_count, 0.0)
}

/// The layout with room for the order desks (`desks_h` high) under the strip.
pub fn layout_with(width: f64, zone_count: usize, desks_h: f64) -> Layout {
    let width = width.max(MIN_WIDTH);
    let inner = width - 2.0 * PAD;
    let strip_cols = if inner / COMPONENTS as f64 >= MIN_COMPONENT_W {
        COMPONENTS
    } else {
        COMPONENTS / 2
    };
    let strip_rows = COMPONENTS.div_ceil(strip_cols);
    let strip = Rect {
        x: PAD,
        y: PAD,
        w: inner,
        h: STRIP_TITLE_H + strip_rows as f64 * STRIP_ROW_H + 8.0,
    };
    let n = zone_count.max(1);
    // Crowded floors get smaller zones so the canvas stays a sensible size.
    let (min_w, min_h, max_h) = match n {
        0..=16 => (160.0, 100.0, 170.0),
        17..=64 => (100.0, 64.0, 160.0),
        _ => (60.0, 46.0, 120.0),
    };
    let square = (n as f64).sqrt().ceil() as usize;
    let max_cols = (((inner + GAP) / (min_w + GAP)).floor() as usize).max(1);
    let cols = square.min(max_cols).min(n).max(1);
    let rows = n.div_ceil(cols);
    let zone_w = (inner - GAP * (cols as f64 - 1.0)) / cols as f64;
    let budget =
        (MAX_HEIGHT - strip.h - desks_h - BAY_H - 2.0 * PAD - 2.0 * GAP) / rows as f64 - GAP;
    let zone_h = (zone_w * 0.38).clamp(min_h, max_h).min(budget.max(12.0));
    let top = strip.bottom() + GAP + desks_h;
    let zones = (0..zone_count)
        .map(|i| Rect {
            x: PAD + (i % cols) as f64 * (zone_w + GAP),
            y: top + (i / cols) as f64 * (zone_h + GAP),
            w: zone_w,
            h: zone_h,
        })
        .collect();
    let zones_bottom = top + rows as f64 * (zone_h + GAP) - GAP;
    let bay = Rect {
        x: PAD,
        y: zones_bottom + GAP,
        w: inner,
        h: BAY_H,
    };
    Layout {
        width,
        height: bay.bottom() + PAD,
        strip,
        strip_cols,
        zones,
        bay,
    }
}

/// Largest robot cell, in CSS pixels.
pub const MAX_CELL: f64 = 32.0;
/// Smallest robot cell; below this robots no longer fit and are counted instead.
pub const MIN_CELL: f64 = 2.0;

/// A square grid of robot cells filling an area.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    pub origin_x: f64,
    pub origin_y: f64,
    pub cell: f64,
    pub cols: usize,
    pub rows: usize,
}

impl Grid {
    pub fn capacity(&self) -> usize {
        self.cols * self.rows
    }
    pub fn cell_origin(&self, i: usize) -> (f64, f64) {
        (
            self.origin_x + (i % self.cols) as f64 * self.cell,
            self.origin_y + (i / self.cols) as f64 * self.cell,
        )
    }
}

/// The biggest cells (up to [`MAX_CELL`]) that fit `n` robots into `area`; at
/// [`MIN_CELL`] it gives up and the caller draws as many as fit.
pub fn robot_grid(area: Rect, n: usize) -> Grid {
    let fits = |cell: f64| {
        let cols = (area.w / cell).floor() as usize;
        let rows = (area.h / cell).floor() as usize;
        (cols, rows)
    };
    let mut cell = if n == 0 {
        MAX_CELL
    } else {
        (area.w * area.h / n as f64)
            .sqrt()
            .clamp(MIN_CELL, MAX_CELL)
    };
    // Each step shrinks by 5 %, so at most ~55 steps from MAX_CELL to MIN_CELL.
    loop {
        let (cols, rows) = fits(cell);
        if cols * rows >= n || cell <= MIN_CELL {
            return Grid {
                origin_x: area.x,
                origin_y: area.y,
                cell,
                cols: cols.max(1),
                rows,
            };
        }
        cell = (cell * 0.95).max(MIN_CELL);
    }
}

// ----- the component -----

/// Real milliseconds a changed sheet stays highlighted.
pub const FLASH_MS: f64 = 1_500.0;
/// Real milliseconds of a robot's walk from the waiting bay to its zone.
pub const WALK_MS: f64 = 450.0;
/// Real milliseconds of a deleted robot's fade.
pub const FADE_MS: f64 = 700.0;
/// Above this many robots they are not animated one by one.
pub const ANIMATE_LIMIT: usize = 1_500;

#[derive(Properties)]
pub struct CanvasProps {
    pub view: Rc<ClusterView>,
    pub floor: FloorData,
    pub tr: Tr,
    pub dispatch: UseReducerDispatcher<AppState>,
}

impl PartialEq for CanvasProps {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (&self.floor, &other.floor);
        Rc::ptr_eq(&self.view, &other.view)
            && Rc::ptr_eq(&a.desks, &b.desks)
            && Rc::ptr_eq(&a.traffic, &b.traffic)
            && Rc::ptr_eq(&a.countdowns, &b.countdowns)
            // Time alone redraws only the countdowns' texts.
            && (a.countdowns.is_empty() || a.now_ms == b.now_ms)
            && self.tr == other.tr
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
    last: Option<(Rc<ClusterView>, FloorData, Tr)>,
    raf: Option<wasm_bindgen::closure::Closure<dyn FnMut()>>,
    raf_pending: bool,
}

#[derive(Default)]
struct Hits {
    items: Vec<(Rect, Target)>,
    robots: Vec<RobotHit>,
}

struct RobotHit {
    grid: Grid,
    node: Option<usize>,
    /// Index into the zone's (or bay's) pods, per cell.
    idx: Vec<usize>,
}

#[derive(Default)]
struct Anim {
    /// Where each robot was drawn: `namespace/name` → (x, y, in the bay).
    pos: HashMap<String, (f64, f64, bool, &'static str)>,
    next_pos: HashMap<String, (f64, f64, bool, &'static str)>,
    walks: HashMap<String, (f64, f64, f64)>,
    ghosts: Vec<(f64, f64, f64, &'static str, f64)>,
    sheets: HashMap<String, String>,
    lines: HashMap<String, Vec<SheetLine>>,
    /// Sheet (`namespace/name`) → (since, IPs of the lines that changed).
    flashes: HashMap<String, (f64, Vec<String>)>,
    seen_view: Option<Rc<ClusterView>>,
    seen_desks: Option<Rc<Vec<DeskView>>>,
    cell: f64,
}

/// What the test hook tells about the floor (`window.__warehouse.floor()`).
#[derive(Clone, Debug, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FloorHook {
    pub rebuilds: u64,
    pub draws: u64,
    /// Real milliseconds the last draw took.
    pub draw_ms: f64,
    pub zoom: f64,
    pub desks: Vec<HookDesk>,
    pub flashing: Vec<String>,
    pub flashing_lines: Vec<String>,
    /// The copying machines' figures as the chart writes them (`floor::chart_lines`).
    pub chart: Vec<String>,
}

#[derive(Clone, Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookDesk {
    pub namespace: String,
    pub name: String,
    pub cluster_ip: Option<String>,
    pub selector: Vec<String>,
    pub scroll_lines: usize,
    pub sheets: Vec<HookSheet>,
}

#[derive(Clone, Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookSheet {
    pub name: String,
    pub resource_version: String,
    pub expanded: bool,
    /// `ip pod state` per line, as drawn (`10.244.1.5 default/web-x ready`).
    pub lines: Vec<String>,
}

thread_local! {
    static HOOK: RefCell<FloorHook> = RefCell::new(FloorHook::default());
}

/// The floor as last drawn, as JSON, for the test hook.
pub fn hook_json() -> String {
    HOOK.with(|h| {
        let mut h = h.borrow_mut();
        h.rebuilds = crate::floor::rebuilds();
        serde_json::to_string(&*h).unwrap_or_default()
    })
}

fn line_state(l: &SheetLine) -> &'static str {
    if l.terminating {
        "terminating"
    } else if l.ready {
        "ready"
    } else {
        "not-ready"
    }
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
    let onmouseup = on_mouse_up(&floor, &props.dispatch);
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
        let dispatch = props.dispatch.clone();
        Callback::from(move |_: MouseEvent| {
            for line in scale_script().lines() {
                dispatch.dispatch(Action::RunKubectl(line.to_string()));
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
            <button type="button" id="zoom-in" onclick={zoom_by(1.25)} aria-label="zoom in">{ tr.f(F::ZoomIn) }</button>
            <button type="button" id="zoom-out" onclick={zoom_by(0.8)} aria-label="zoom out">{ tr.f(F::ZoomOut) }</button>
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
    dispatch: &UseReducerDispatcher<AppState>,
) -> Callback<MouseEvent> {
    let floor = floor.clone();
    let dispatch = dispatch.clone();
    Callback::from(move |e: MouseEvent| {
        let mut f = floor.borrow_mut();
        let dragged = f.dragged;
        f.drag = None;
        f.dragged = false;
        if !dragged {
            let (x, y) = to_content(&f, &e);
            let target = f.hit(x, y);
            drop(f);
            dispatch.dispatch(Action::Inspect(target));
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

impl Floor {
    fn hit(&self, x: f64, y: f64) -> Option<Target> {
        let inside = |r: &Rect| x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
        let (view, _, _) = self.last.as_ref()?;
        for h in &self.hits.robots {
            let g = &h.grid;
            if x < g.origin_x || y < g.origin_y {
                continue;
            }
            let (c, r) = (
                ((x - g.origin_x) / g.cell) as usize,
                ((y - g.origin_y) / g.cell) as usize,
            );
            if c >= g.cols || r >= g.rows {
                continue;
            }
            let Some(&i) = h.idx.get(r * g.cols + c) else {
                continue;
            };
            let pods = match h.node {
                Some(n) => &view.nodes.get(n)?.pods,
                None => &view.unscheduled,
            };
            let pod = pods.get(i)?;
            return Some(Target::Robot {
                namespace: pod.namespace.clone(),
                name: pod.name.clone(),
            });
        }
        // Smallest first: a sheet before its desk, a desk before the floor.
        self.hits
            .items
            .iter()
            .filter(|(r, _)| inside(r))
            .min_by(|a, b| (a.0.w * a.0.h).total_cmp(&(b.0.w * b.0.h)))
            .map(|(_, t)| t.clone())
    }
}

/// The tooltip's two lines: the object's name and its state.
pub fn describe(t: &Target, view: &ClusterView, data: &FloorData, tr: Tr) -> (String, String) {
    match t {
        Target::Robot { namespace, name } => {
            let place = view
                .nodes
                .iter()
                .find_map(|n| {
                    n.pods
                        .iter()
                        .find(|p| &p.name == name && &p.namespace == namespace)
                        .map(|p| (p, Some(n.name.as_str())))
                })
                .or_else(|| {
                    view.unscheduled
                        .iter()
                        .find(|p| &p.name == name && &p.namespace == namespace)
                        .map(|p| (p, None))
                });
            let Some((pod, zone)) = place else {
                return (name.clone(), String::new());
            };
            let mut line = format!("{} ({})", tr.state(pod.state), pod.status);
            if let Some(z) = zone {
                line.push_str(&format!(" · {} {z}", tr.f(F::Zone)));
            }
            if let Some(o) = crate::floor::owner_of(pod.owner.as_deref()) {
                line.push_str(&format!(" · {o}"));
            }
            if pod.restarts > 0 {
                line.push_str(&format!(" · {} {}", tr.f(F::Restarts), pod.restarts));
            }
            if let Some(c) = data.countdown_of(&format!("{namespace}/{name}")) {
                let key = if c.kind == CountdownKind::PullRetry {
                    F::PullIn
                } else {
                    F::RestartIn
                };
                line.push_str(&format!(
                    " · {} {}s",
                    tr.f(key),
                    c.due_ms.saturating_sub(data.now_ms).div_ceil(1000)
                ));
            }
            (format!("{} {name}", tr.f(F::Robot)), line)
        }
        Target::Zone(name) => {
            let line = view
                .nodes
                .iter()
                .find(|n| &n.name == name)
                .map(|n| {
                    let health = if n.killed {
                        tr.t(Key::PoweredOff)
                    } else if n.health == ZoneHealth::Ready {
                        tr.t(Key::Ready)
                    } else {
                        tr.t(Key::NotReady)
                    };
                    let mut counts: BTreeMap<RobotState, usize> = BTreeMap::new();
                    for p in n.pods.iter().filter(|p| !p.system) {
                        *counts.entry(p.state).or_default() += 1;
                    }
                    let states = counts
                        .iter()
                        .map(|(s, c)| format!("{c} {}", tr.state(*s).to_lowercase()))
                        .collect::<Vec<_>>()
                        .join(", ");
                    format!(
                        "{health} · {}{}",
                        tr.robot_count(workload_count(&n.pods)),
                        if states.is_empty() {
                            String::new()
                        } else {
                            format!(": {states}")
                        }
                    )
                })
                .unwrap_or_default();
            (format!("{} {name}", tr.f(F::Zone)), line)
        }
        Target::Desk { namespace, name } => {
            let line = data
                .desks
                .iter()
                .find(|d| &d.name == name && &d.namespace == namespace)
                .map(|d| {
                    let lines: usize = d.sheets.iter().map(|s| s.lines.len()).sum();
                    format!(
                        "{} · {}: {} · {} {} · {lines} {}",
                        d.cluster_ip.as_deref().unwrap_or("None"),
                        tr.f(F::BadgeRule),
                        selector_text(&d.selector),
                        d.sheets.len(),
                        tr.f(F::Sheets),
                        tr.f(F::Lines)
                    )
                })
                .unwrap_or_default();
            (format!("{} {name}", tr.f(F::Desk)), line)
        }
        Target::Sheet { namespace, name } => {
            let line = data
                .desks
                .iter()
                .filter(|d| &d.namespace == namespace)
                .flat_map(|d| d.sheets.iter())
                .find(|s| &s.name == name)
                .map(|s| {
                    let ready = s.lines.iter().filter(|l| l.ready).count();
                    let term = s.lines.iter().filter(|l| l.terminating).count();
                    format!(
                        "{}: {}, {}, {} · resourceVersion {}",
                        tr.count(s.lines.len(), F::Lines),
                        tr.count(ready, F::ReadyMany),
                        tr.count(s.lines.len() - ready - term, F::NotReadyMany),
                        tr.count(term, F::Terminating),
                        s.resource_version
                    )
                })
                .unwrap_or_default();
            (format!("{} {name}", tr.f(F::Sheet)), line)
        }
        Target::Staff(c) => (tr.t(component_key(c.name())).to_string(), String::new()),
    }
}

fn selector_text(sel: &[(String, String)]) -> String {
    if sel.is_empty() {
        "—".into()
    } else {
        sel.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Draws the last input again, and asks for another frame while something moves.
fn redraw(canvas_ref: &NodeRef, floor: &Rc<RefCell<Floor>>) {
    let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() else {
        return;
    };
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

// ----- drawing -----

struct Paint<'a> {
    ctx: &'a CanvasRenderingContext2d,
    tr: Tr,
    now: f64,
    now_ms: u64,
    countdowns: BTreeMap<&'a str, &'a Countdown>,
    anim: &'a mut Anim,
    hits: &'a mut Hits,
    animate: bool,
    fresh_view: bool,
    busy: bool,
}

fn draw(canvas: &HtmlCanvasElement, f: &mut Floor) -> Result<bool, JsValue> {
    let Some((view, data, tr)) = f.last.clone() else {
        return Ok(false);
    };
    let ctx: CanvasRenderingContext2d = canvas
        .get_context("2d")?
        .ok_or_else(|| JsValue::from_str("no 2d context"))?
        .dyn_into()?;
    let now = js_sys::Date::now();
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
        &flashing,
        f.show_scroll,
    );
    let lay = layout_with(css_width, view.nodes.len(), desks.rect.h + GAP);
    size_canvas(canvas, &ctx, &lay, f.zoom, f.pan)?;

    let robots: usize =
        view.nodes.iter().map(|n| n.pods.len()).sum::<usize>() + view.unscheduled.len();
    let fresh_view = !f
        .anim
        .seen_view
        .as_ref()
        .is_some_and(|v| Rc::ptr_eq(v, &view));
    f.hits.items.clear();
    f.hits.robots.clear();
    let mut p = Paint {
        ctx: &ctx,
        tr,
        now,
        now_ms: data.now_ms,
        countdowns: crate::floor::countdowns_by_pod(&data.countdowns),
        anim: &mut f.anim,
        hits: &mut f.hits,
        animate: robots <= ANIMATE_LIMIT,
        fresh_view,
        busy: false,
    };
    if fresh_view {
        p.anim.next_pos.clear();
    }
    draw_strip(&ctx, lay.strip, lay.strip_cols, &view, tr);
    draw_desks(&mut p, &desks, &shown, hidden, &data)?;
    // Zones drawn as counts when robots are too small to see one by one.
    for (i, (node, rect)) in view.nodes.iter().zip(&lay.zones).enumerate() {
        draw_zone(&mut p, *rect, i, node)?;
    }
    draw_bay(&mut p, lay.bay, &view.unscheduled)?;
    draw_ghosts(&mut p, &view);
    let busy = p.busy || !p.anim.flashes.is_empty() || !p.anim.walks.is_empty();
    report_draw(f, fresh_desks, &desks, &shown);
    Ok(busy)
}

impl Anim {
    /// Notes the sheets' versions and lines when the desks are new; a sheet whose
    /// version moved (and that was known before) flashes with its changed lines.
    /// Drops the flashes that are over; says whether the desks were new.
    fn note_sheets(&mut self, desks: &Rc<Vec<DeskView>>, now: f64) -> bool {
        let fresh_desks = !self
            .seen_desks
            .as_ref()
            .is_some_and(|d| Rc::ptr_eq(d, desks));
        if fresh_desks {
            let first = self.seen_desks.is_none();
            for d in desks.iter() {
                let known = d.sheets.iter().any(|s| {
                    self.sheets
                        .contains_key(&format!("{}/{}", d.namespace, s.name))
                }) || self.sheets.keys().any(|k| {
                    k.strip_prefix(&format!("{}/{}-", d.namespace, d.name))
                        .is_some_and(|rest| !rest.contains('-'))
                });
                for s in &d.sheets {
                    let key = format!("{}/{}", d.namespace, s.name);
                    let old = self.sheets.insert(key.clone(), s.resource_version.clone());
                    let moved = old.as_ref() != Some(&s.resource_version);
                    if moved && !first && (old.is_some() || known) {
                        let before = self.lines.get(&key).cloned().unwrap_or_default();
                        let changed = s
                            .lines
                            .iter()
                            .filter(|l| !before.contains(l))
                            .map(|l| l.ip.clone())
                            .collect();
                        self.flashes.insert(key.clone(), (now, changed));
                    }
                    self.lines.insert(key, s.lines.clone());
                }
            }
            self.seen_desks = Some(desks.clone());
        }
        self.flashes.retain(|_, (since, _)| now - *since < FLASH_MS);
        fresh_desks
    }
}

/// Sizes the canvas for the layout at the device's pixel ratio (when that changed),
/// clears it, and sets the zoom and pan.
fn size_canvas(
    canvas: &HtmlCanvasElement,
    ctx: &CanvasRenderingContext2d,
    lay: &Layout,
    zoom: f64,
    pan: (f64, f64),
) -> Result<(), JsValue> {
    let dpr = web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .unwrap_or(1.0)
        .clamp(1.0, 3.0);
    let (px_w, px_h) = (
        (lay.width * dpr).round() as u32,
        (lay.height * dpr).round() as u32,
    );
    if canvas.width() != px_w || canvas.height() != px_h {
        canvas.set_width(px_w);
        canvas.set_height(px_h);
        canvas
            .style()
            .set_property("height", &format!("{}px", lay.height))?;
    }
    ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0)?;
    ctx.clear_rect(0.0, 0.0, f64::from(px_w), f64::from(px_h));
    ctx.set_transform(dpr * zoom, 0.0, 0.0, dpr * zoom, dpr * pan.0, dpr * pan.1)?;
    Ok(())
}

/// Robots gone since the last view fade where they stood; walks that are over end.
fn draw_ghosts(p: &mut Paint, view: &Rc<ClusterView>) {
    let (ctx, now) = (p.ctx, p.now);
    if p.fresh_view {
        if p.animate {
            let gone: Vec<_> = p
                .anim
                .pos
                .iter()
                .filter(|(k, _)| !p.anim.next_pos.contains_key(*k))
                .map(|(_, &(x, y, _, c))| (x, y, p.anim.cell, c, now))
                .collect();
            if p.anim.seen_view.is_some() {
                p.anim.ghosts.extend(gone);
            }
        }
        p.anim.pos = std::mem::take(&mut p.anim.next_pos);
        p.anim.seen_view = Some(view.clone());
    }
    p.anim.ghosts.retain(|g| now - g.4 < FADE_MS);
    for &(x, y, s, color, since) in &p.anim.ghosts {
        ctx.set_global_alpha((1.0 - (now - since) / FADE_MS).clamp(0.0, 1.0) * 0.8);
        ctx.set_fill_style_str(color);
        ctx.fill_rect(x + s * 0.16, y + s * 0.2, s * 0.68, s * 0.75);
        p.busy = true;
    }
    ctx.set_global_alpha(1.0);
    p.anim.walks.retain(|_, w| now - w.2 < WALK_MS);
}

/// What the test hook reports of a draw: the zoom, and (when the desks are new or a
/// flash ended) the flashing sheets and the desks as drawn.
fn report_draw(f: &Floor, fresh_desks: bool, desks: &DeskLayout, shown: &[&DeskView]) {
    HOOK.with(|h| {
        let mut h = h.borrow_mut();
        h.draws += 1;
        h.zoom = f.zoom;
        if fresh_desks || h.flashing.len() != f.anim.flashes.len() {
            h.flashing = f.anim.flashes.keys().cloned().collect();
            h.flashing.stable_sort();
            h.flashing_lines = f.anim.flashes.values().flat_map(|v| v.1.clone()).collect();
            h.desks = desks
                .desks
                .iter()
                .map(|b| hook_desk(b, shown[b.index]))
                .collect();
        }
    });
}

/// A desk as the test hook tells it: its sheets with their lines, and which are
/// drawn expanded.
fn hook_desk(b: &DeskBox, d: &DeskView) -> HookDesk {
    HookDesk {
        namespace: d.namespace.clone(),
        name: d.name.clone(),
        cluster_ip: d.cluster_ip.clone(),
        selector: d.selector.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        scroll_lines: d.scroll_lines,
        sheets: d
            .sheets
            .iter()
            .map(|s| HookSheet {
                name: s.name.clone(),
                resource_version: s.resource_version.clone(),
                expanded: b
                    .sheets
                    .iter()
                    .any(|x| x.expanded && d.sheets[x.index].name == s.name),
                lines: s
                    .lines
                    .iter()
                    .map(|l| {
                        format!(
                            "{} {} {}",
                            l.ip,
                            l.pod.as_deref().unwrap_or("-"),
                            line_state(l)
                        )
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// The strip's height on a canvas this wide.
fn strip_height(width: f64) -> f64 {
    layout(width, 1).strip.h
}

// ----- desks -----

pub const DESK_W: f64 = 280.0;
pub const CHART_W: f64 = 270.0;
pub const CHART_H: f64 = 150.0;
pub const DESK_TITLE_H: f64 = 22.0;
pub const DESK_HEAD_H: f64 = 54.0;
pub const SHEET_HEAD_H: f64 = 18.0;
pub const LINE_H: f64 = 14.0;
pub const ROW_H: f64 = 17.0;
pub const SCROLL_H: f64 = 24.0;
/// Lines shown on an expanded sheet; the rest are counted.
pub const MAX_LINES: usize = 10;
/// Collapsed sheets listed per desk; the rest are counted.
pub const MAX_ROWS: usize = 5;
/// Desks drawn; the rest are counted.
pub const MAX_DESKS: usize = 12;

#[derive(Clone, Debug, PartialEq)]
pub struct SheetBox {
    pub rect: Rect,
    pub index: usize,
    pub expanded: bool,
    pub shown: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeskBox {
    pub rect: Rect,
    pub index: usize,
    pub sheets: Vec<SheetBox>,
    /// Sheets neither drawn nor listed.
    pub more_sheets: usize,
    pub scroll: Option<Rect>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeskLayout {
    pub rect: Rect,
    pub desks: Vec<DeskBox>,
    pub chart: Rect,
    pub more: usize,
}

/// Where the desks, their sheets and the copying machines' chart go. A sheet is
/// drawn line by line when its desk has few, or when it just changed; the others are
/// one row each.
pub fn desk_layout(
    area: Rect,
    desks: &[&DeskView],
    flashing: &dyn Fn(&str, &str) -> bool,
    show_scroll: bool,
) -> DeskLayout {
    let side = area.w >= DESK_W + GAP + CHART_W;
    let desks_w = if side { area.w - CHART_W - GAP } else { area.w };
    let cols = (((desks_w + GAP) / (DESK_W + GAP)).floor() as usize).max(1);
    let card_w = (desks_w - GAP * (cols as f64 - 1.0)) / cols as f64;
    let top = area.y + DESK_TITLE_H;
    let mut out = Vec::new();
    let (mut row_y, mut row_h) = (top, 0.0f64);
    for (i, d) in desks.iter().take(MAX_DESKS).enumerate() {
        let col = i % cols;
        if col == 0 && i > 0 {
            row_y += row_h + GAP;
            row_h = 0.0;
        }
        let x = area.x + col as f64 * (card_w + GAP);
        let mut y = row_y + DESK_HEAD_H;
        let lines: usize = d.sheets.iter().map(|s| s.lines.len()).sum();
        let roomy = d.sheets.len() <= 3 && lines <= 2 * MAX_LINES;
        let mut sheets = Vec::new();
        let mut rows = 0;
        let mut more_sheets = 0;
        for (j, s) in d.sheets.iter().enumerate() {
            let expanded = roomy || flashing(&d.namespace, &s.name);
            if !expanded && rows >= MAX_ROWS {
                more_sheets += 1;
                continue;
            }
            let shown = if expanded {
                s.lines.len().min(MAX_LINES)
            } else {
                0
            };
            let h = if expanded {
                SHEET_HEAD_H
                    + shown as f64 * LINE_H
                    + if s.lines.len() > shown { LINE_H } else { 0.0 }
                    + 4.0
            } else {
                rows += 1;
                ROW_H
            };
            sheets.push(SheetBox {
                rect: Rect {
                    x: x + 8.0,
                    y,
                    w: card_w - 16.0,
                    h,
                },
                index: j,
                expanded,
                shown,
            });
            y += h + 4.0;
        }
        if more_sheets > 0 {
            y += ROW_H;
        }
        let scroll = show_scroll.then(|| {
            let r = Rect {
                x: x + 8.0,
                y,
                w: card_w - 16.0,
                h: SCROLL_H,
            };
            y += SCROLL_H + 4.0;
            r
        });
        let h = (y - row_y + 4.0).max(DESK_HEAD_H + ROW_H);
        row_h = row_h.max(h);
        out.push(DeskBox {
            rect: Rect {
                x,
                y: row_y,
                w: card_w,
                h,
            },
            index: i,
            sheets,
            more_sheets,
            scroll,
        });
    }
    let desks_h = if out.is_empty() {
        ROW_H + 4.0
    } else {
        row_y + row_h - top
    };
    let chart = if side {
        Rect {
            x: area.x + area.w - CHART_W,
            y: top,
            w: CHART_W,
            h: CHART_H,
        }
    } else {
        Rect {
            x: area.x,
            y: top + desks_h + GAP,
            w: area.w,
            h: CHART_H,
        }
    };
    let bottom = if side {
        top + desks_h.max(CHART_H)
    } else {
        chart.bottom()
    };
    DeskLayout {
        rect: Rect {
            x: area.x,
            y: area.y,
            w: area.w,
            h: bottom - area.y + 6.0,
        },
        desks: out,
        chart,
        more: desks.len().saturating_sub(MAX_DESKS),
    }
}

const DESK_BG: &str = "#fffaf0";
const DESK_EDGE: &str = "#b98a3e";
const SHEET_BG: &str = "#ffffff";
const FLASH_BG: &str = "#fff2a8";
const FLASH_EDGE: &str = "#e0a800";
pub const LINE_READY: &str = "#2e9e4f";
/// The highlight of a sheet line that just changed (and its legend swatch).
pub const CHANGED_COLOR: &str = "#ffd23f";
pub const LINE_NOT_READY: &str = "#f07a1a";
pub const LINE_TERMINATING: &str = "#9a9a9a";

fn draw_desks(
    p: &mut Paint,
    lay: &DeskLayout,
    desks: &[&DeskView],
    hidden: usize,
    data: &FloorData,
) -> Result<(), JsValue> {
    let (ctx, tr) = (p.ctx, p.tr);
    let r = lay.rect;
    ctx.set_fill_style_str("#f4efe4");
    ctx.fill_rect(r.x, r.y, r.w, r.h);
    ctx.set_text_align("left");
    ctx.set_text_baseline("alphabetic");
    ctx.set_fill_style_str(INK);
    font(ctx, 13.0, true);
    text(ctx, tr.f(F::Desks), r.x + 8.0, r.y + 16.0, 220.0);
    let tw = ctx.measure_text(tr.f(F::Desks))?.width();
    if hidden > 0 {
        ctx.set_fill_style_str(MUTED);
        font(ctx, 11.0, false);
        let note = if lay.more > 0 {
            format!("{} · +{} {}", tr.f(F::SystemDesks), lay.more, tr.f(F::More))
        } else {
            tr.f(F::SystemDesks).to_string()
        };
        text(
            ctx,
            &note,
            r.x + 18.0 + tw,
            r.y + 16.0,
            lay.chart.x - r.x - tw - 30.0,
        );
    }
    if lay.desks.is_empty() {
        ctx.set_fill_style_str(MUTED);
        font(ctx, 11.5, false);
        text(
            ctx,
            "kubectl expose deployment NAME --port=80",
            r.x + 8.0,
            r.y + DESK_TITLE_H + 12.0,
            lay.chart.x - r.x - 16.0,
        );
    }
    for b in &lay.desks {
        let d = desks[b.index];
        let c = b.rect;
        p.hits.items.push((
            c,
            Target::Desk {
                namespace: d.namespace.clone(),
                name: d.name.clone(),
            },
        ));
        ctx.set_fill_style_str(DESK_BG);
        ctx.fill_rect(c.x, c.y, c.w, c.h);
        ctx.set_stroke_style_str(DESK_EDGE);
        ctx.set_line_width(1.5);
        ctx.stroke_rect(c.x + 0.5, c.y + 0.5, c.w - 1.0, c.h - 1.0);
        ctx.set_line_width(1.0);
        // The desk's top: name and type, the fixed address, the badge rule.
        ctx.set_fill_style_str(INK);
        font(ctx, 12.5, true);
        let name = if d.namespace == "default" {
            d.name.clone()
        } else {
            format!("{}/{}", d.namespace, d.name)
        };
        text(ctx, &name, c.x + 8.0, c.y + 16.0, c.w - 90.0);
        ctx.set_text_align("right");
        font(ctx, 10.5, false);
        ctx.set_fill_style_str(MUTED);
        text(ctx, &d.service_type, c.x + c.w - 8.0, c.y + 16.0, 80.0);
        ctx.set_text_align("left");
        font(ctx, 11.5, true);
        ctx.set_fill_style_str("#6b4a12");
        let addr = format!(
            "{}  {}",
            d.cluster_ip.as_deref().unwrap_or("None"),
            d.ports.join(" ")
        );
        let addr = match &d.external_ip {
            Some(ip) => format!("{addr}  ↗ {ip}"),
            None => addr,
        };
        text(ctx, &addr, c.x + 8.0, c.y + 31.0, c.w - 16.0);
        font(ctx, 10.5, false);
        ctx.set_fill_style_str(MUTED);
        let rule = if d.selector.is_empty() {
            tr.f(F::NoBadgeRule).to_string()
        } else {
            format!("{}: {}", tr.f(F::BadgeRule), selector_text(&d.selector))
        };
        text(ctx, &rule, c.x + 8.0, c.y + 45.0, c.w - 16.0);

        for s in &b.sheets {
            draw_sheet(p, s, d)?;
        }
        if b.more_sheets > 0 {
            let y = b
                .sheets
                .last()
                .map_or(c.y + DESK_HEAD_H, |s| s.rect.bottom() + 4.0);
            ctx.set_fill_style_str(MUTED);
            font(ctx, 10.5, false);
            text(
                ctx,
                &format!("+{} {} {}", b.more_sheets, tr.f(F::More), tr.f(F::Sheets)),
                c.x + 12.0,
                y + 12.0,
                c.w - 24.0,
            );
        }
        if let Some(sr) = b.scroll {
            // The master scroll: one object with every line, rewritten on any change.
            ctx.set_fill_style_str("#efe3c8");
            ctx.fill_rect(sr.x, sr.y, sr.w, sr.h);
            ctx.set_fill_style_str("#c9b48a");
            ctx.fill_rect(sr.x, sr.y, 6.0, sr.h);
            ctx.fill_rect(sr.x + sr.w - 6.0, sr.y, 6.0, sr.h);
            ctx.set_fill_style_str("#5a4210");
            font(ctx, 11.0, true);
            text(
                ctx,
                &format!(
                    "{}: {} · ≈{} ({})",
                    tr.f(F::Scroll),
                    tr.count(d.scroll_lines, F::Lines),
                    human_bytes(tr.lang, scroll_bytes(d.scroll_lines)),
                    tr.f(F::Estimate)
                ),
                sr.x + 12.0,
                sr.y + 16.0,
                sr.w - 24.0,
            );
        }
    }
    draw_chart(p, lay.chart, data)
}

fn draw_sheet(p: &mut Paint, s: &SheetBox, d: &DeskView) -> Result<(), JsValue> {
    let (ctx, tr) = (p.ctx, p.tr);
    let sheet = &d.sheets[s.index];
    let key = format!("{}/{}", d.namespace, sheet.name);
    let flash = p.anim.flashes.get(&key).cloned();
    let r = s.rect;
    p.hits.items.push((
        r,
        Target::Sheet {
            namespace: d.namespace.clone(),
            name: sheet.name.clone(),
        },
    ));
    ctx.set_fill_style_str(if flash.is_some() { FLASH_BG } else { SHEET_BG });
    ctx.fill_rect(r.x, r.y, r.w, r.h);
    ctx.set_stroke_style_str(if flash.is_some() {
        FLASH_EDGE
    } else {
        "#cdbf9f"
    });
    ctx.set_line_width(if flash.is_some() { 2.0 } else { 1.0 });
    ctx.stroke_rect(r.x + 0.5, r.y + 0.5, r.w - 1.0, r.h - 1.0);
    ctx.set_line_width(1.0);
    // Folded corner: it is a sheet of paper.
    ctx.set_fill_style_str("#e6dcc5");
    ctx.begin_path();
    ctx.move_to(r.x + r.w - 8.0, r.y);
    ctx.line_to(r.x + r.w, r.y + 8.0);
    ctx.line_to(r.x + r.w - 8.0, r.y + 8.0);
    ctx.fill();

    let ready = sheet.lines.iter().filter(|l| l.ready).count();
    ctx.set_fill_style_str(INK);
    font(ctx, 10.5, true);
    let head = format!(
        "{} · {} ({})",
        sheet.name,
        tr.count(sheet.lines.len(), F::Lines),
        tr.count(ready, F::ReadyMany)
    );
    text(ctx, &head, r.x + 6.0, r.y + 13.0, r.w - 18.0);
    if !s.expanded {
        return Ok(());
    }
    let wide = r.w > 200.0;
    for (i, l) in sheet.lines.iter().take(s.shown).enumerate() {
        let y = r.y + SHEET_HEAD_H + i as f64 * LINE_H;
        let changed = flash.as_ref().is_some_and(|(_, ips)| ips.contains(&l.ip));
        if changed {
            // The changed line blinks while the sheet is highlighted.
            let phase =
                (((p.now - flash.as_ref().map_or(0.0, |f| f.0)) / 250.0) as u64).is_multiple_of(2);
            ctx.set_fill_style_str(if phase { CHANGED_COLOR } else { "#ffe98a" });
            ctx.fill_rect(r.x + 2.0, y, r.w - 4.0, LINE_H);
        }
        let color = if l.terminating {
            LINE_TERMINATING
        } else if l.ready {
            LINE_READY
        } else {
            LINE_NOT_READY
        };
        ctx.begin_path();
        ctx.arc(r.x + 10.0, y + LINE_H / 2.0, 3.5, 0.0, TAU)?;
        if l.ready {
            ctx.set_fill_style_str(color);
            ctx.fill();
        } else {
            ctx.set_stroke_style_str(color);
            ctx.set_line_width(1.5);
            ctx.stroke();
            ctx.set_line_width(1.0);
        }
        ctx.set_fill_style_str(if l.ready { INK } else { color });
        font(ctx, 10.5, false);
        let pod = l
            .pod
            .as_deref()
            .map(|p| p.split_once('/').map_or(p, |x| x.1))
            .unwrap_or("");
        let s_text = if wide {
            format!("{:<15} {pod}", l.ip)
        } else {
            l.ip.clone()
        };
        text(ctx, &s_text, r.x + 18.0, y + LINE_H - 3.0, r.w - 24.0);
        if l.terminating {
            let w = ctx.measure_text(&s_text)?.width().min(r.w - 24.0);
            ctx.set_stroke_style_str(LINE_TERMINATING);
            ctx.begin_path();
            ctx.move_to(r.x + 18.0, y + LINE_H / 2.0);
            ctx.line_to(r.x + 18.0 + w, y + LINE_H / 2.0);
            ctx.stroke();
        }
    }
    if sheet.lines.len() > s.shown {
        ctx.set_fill_style_str(MUTED);
        font(ctx, 10.0, false);
        text(
            ctx,
            &format!("+{} {}", sheet.lines.len() - s.shown, tr.f(F::More)),
            r.x + 18.0,
            r.y + SHEET_HEAD_H + s.shown as f64 * LINE_H + LINE_H - 3.0,
            r.w - 24.0,
        );
    }
    Ok(())
}

/// What the copying machines sent to the conveyor routers: the last change's cost
/// against the master scroll's, and both totals over simulated time.
fn draw_chart(p: &mut Paint, r: Rect, data: &FloorData) -> Result<(), JsValue> {
    let (ctx, tr) = (p.ctx, p.tr);
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(r.x, r.y, r.w, r.h);
    ctx.set_stroke_style_str("#9fb0c3");
    ctx.stroke_rect(r.x + 0.5, r.y + 0.5, r.w - 1.0, r.h - 1.0);
    ctx.set_text_align("left");
    ctx.set_fill_style_str(INK);
    font(ctx, 11.5, true);
    text(ctx, tr.f(F::Copiers), r.x + 8.0, r.y + 15.0, r.w - 16.0);
    font(ctx, 10.5, false);
    let lines = crate::floor::chart_lines(tr, &data.traffic);
    let colors = [LINE_READY, "#a0522d", MUTED];
    for (i, line) in lines.iter().enumerate() {
        ctx.set_fill_style_str(colors[i.min(2)]);
        let mark = if i < 2 && data.traffic.totals().is_some() {
            "■ "
        } else {
            ""
        };
        text(
            ctx,
            &format!("{mark}{line}"),
            r.x + 8.0,
            r.y + 30.0 + 14.0 * i as f64,
            r.w - 16.0,
        );
    }
    HOOK.with(|h| h.borrow_mut().chart = lines);
    // Cumulative bytes since the chart started (the page, the lesson or the last
    // `sim stats reset`): sheets (what was sent) vs the scroll.
    let samples = &data.traffic.samples;
    let plot = r.inset(8.0, 66.0, 8.0, 16.0);
    ctx.set_stroke_style_str("#e3e7ec");
    ctx.stroke_rect(plot.x, plot.y, plot.w, plot.h);
    if samples.len() >= 2 {
        let (t0, t1) = (
            samples[0].at_ms,
            samples[samples.len() - 1].at_ms.max(samples[0].at_ms + 1),
        );
        let base = samples[0];
        let max = samples
            .iter()
            .map(|s| {
                s.bytes
                    .saturating_sub(base.bytes)
                    .max(s.scroll_bytes.saturating_sub(base.scroll_bytes))
            })
            .max()
            .unwrap_or(1)
            .max(1) as f64;
        let x_of = |t: u64| plot.x + t.saturating_sub(t0) as f64 / (t1 - t0) as f64 * plot.w;
        let y_of = |b: u64| plot.bottom() - b as f64 / max * plot.h;
        for (color, pick) in [
            (
                "#a0522d",
                (|s: &TrafficSample, b: &TrafficSample| {
                    s.scroll_bytes.saturating_sub(b.scroll_bytes)
                }) as fn(&TrafficSample, &TrafficSample) -> u64,
            ),
            (LINE_READY, |s: &TrafficSample, b: &TrafficSample| {
                s.bytes.saturating_sub(b.bytes)
            }),
        ] {
            ctx.begin_path();
            for (i, s) in samples.iter().enumerate() {
                let (x, y) = (x_of(s.at_ms), y_of(pick(s, &base)));
                if i == 0 {
                    ctx.move_to(x, y);
                } else {
                    ctx.line_to(x, y);
                }
            }
            ctx.set_stroke_style_str(color);
            ctx.set_line_width(2.0);
            ctx.stroke();
        }
        ctx.set_line_width(1.0);
        ctx.set_fill_style_str(MUTED);
        font(ctx, 9.5, false);
        text(
            ctx,
            &human_bytes(tr.lang, max as u64),
            plot.x + 3.0,
            plot.y + 10.0,
            plot.w,
        );
        text(
            ctx,
            &format!("{} → {}", crate::i18n::clock(t0), crate::i18n::clock(t1)),
            plot.x,
            r.bottom() - 4.0,
            plot.w,
        );
    }
    Ok(())
}

fn font(ctx: &CanvasRenderingContext2d, px: f64, bold: bool) {
    let weight = if bold { "600 " } else { "" };
    ctx.set_font(&format!("{weight}{px}px {FONT}"));
}

fn text(ctx: &CanvasRenderingContext2d, s: &str, x: f64, y: f64, max_w: f64) {
    if max_w > 4.0 {
        let _ = ctx.fill_text_with_max_width(s, x, y, max_w);
    }
}

use crate::control_plane::component_key;

fn draw_strip(ctx: &CanvasRenderingContext2d, r: Rect, cols: usize, view: &ClusterView, tr: Tr) {
    ctx.set_fill_style_str("#e6ecf3");
    ctx.fill_rect(r.x, r.y, r.w, r.h);
    ctx.set_stroke_style_str("#8796a8");
    ctx.set_line_width(1.0);
    ctx.stroke_rect(r.x + 0.5, r.y + 0.5, r.w - 1.0, r.h - 1.0);

    ctx.set_text_baseline("alphabetic");
    ctx.set_text_align("left");
    ctx.set_fill_style_str(INK);
    font(ctx, 13.0, true);
    text(
        ctx,
        tr.t(Key::ControlPlaneStrip),
        r.x + 10.0,
        r.y + 18.0,
        r.w - 20.0,
    );

    let cols = cols.max(1);
    let boxes = r.inset(8.0, STRIP_TITLE_H, 8.0, 8.0);
    let bw = (boxes.w - 8.0 * (cols as f64 - 1.0)) / cols as f64;
    let other = Tr::new(tr.lang, tr.names.other());
    for (i, c) in view.components.iter().enumerate() {
        let b = Rect {
            x: boxes.x + (i % cols) as f64 * (bw + 8.0),
            y: boxes.y + (i / cols) as f64 * STRIP_ROW_H,
            w: bw,
            h: STRIP_ROW_H - 6.0,
        };
        ctx.set_fill_style_str(if c.running { "#ffffff" } else { "#fdecea" });
        ctx.fill_rect(b.x, b.y, b.w, b.h);
        ctx.set_stroke_style_str(if c.running { "#9fb0c3" } else { STOPPED });
        ctx.set_line_width(if c.running { 1.0 } else { 2.0 });
        ctx.stroke_rect(b.x + 0.5, b.y + 0.5, b.w - 1.0, b.h - 1.0);
        ctx.set_line_width(1.0);
        // Status lamp: green when the component runs, red when it is down.
        ctx.set_fill_style_str(if c.running { "#2e9e4f" } else { STOPPED });
        ctx.begin_path();
        let _ = ctx.arc(b.x + 12.0, b.y + b.h / 2.0, 5.0, 0.0, TAU);
        ctx.fill();
        let key = component_key(c.name);
        ctx.set_fill_style_str(if c.running { INK } else { STOPPED });
        font(ctx, 12.5, true);
        text(
            ctx,
            tr.t(key),
            b.x + 24.0,
            b.y + b.h / 2.0 - 2.0,
            b.w - 30.0,
        );
        // Under the name: its other name, or that it is stopped.
        if c.running {
            ctx.set_fill_style_str(MUTED);
            font(ctx, 11.0, false);
            text(
                ctx,
                other.t(key),
                b.x + 24.0,
                b.y + b.h / 2.0 + 12.0,
                b.w - 30.0,
            );
        } else {
            ctx.set_fill_style_str(STOPPED);
            font(ctx, 11.0, true);
            text(
                ctx,
                &tr.t(Key::ComponentStopped).to_uppercase(),
                b.x + 24.0,
                b.y + b.h / 2.0 + 12.0,
                b.w - 30.0,
            );
        }
    }
}

/// A coloured label with a filled background; returns its width, or 0 when it would
/// reach past `limit` and is left out (the zone list says the same in words).
fn pill(
    ctx: &CanvasRenderingContext2d,
    s: &str,
    (x, y, limit): (f64, f64, f64),
    bg: &str,
    fg: &str,
) -> f64 {
    font(ctx, 10.5, true);
    let w = ctx.measure_text(s).map(|m| m.width()).unwrap_or(40.0) + 10.0;
    if x + w > limit {
        return 0.0;
    }
    ctx.set_fill_style_str(bg);
    ctx.fill_rect(x, y - 11.0, w, 15.0);
    ctx.set_fill_style_str(fg);
    ctx.fill_text(s, x + 5.0, y).ok();
    w
}

fn draw_zone(p: &mut Paint, r: Rect, index: usize, node: &NodeView) -> Result<(), JsValue> {
    let (ctx, tr) = (p.ctx, p.tr);
    p.hits.items.push((r, Target::Zone(node.name.clone())));
    let (floor, edge) = if node.killed {
        (DARK_FLOOR, "#111418")
    } else if node.control_plane {
        (OFFICE_FLOOR, OFFICE_EDGE)
    } else {
        (FLOOR, FLOOR_EDGE)
    };
    ctx.set_fill_style_str(floor);
    ctx.fill_rect(r.x, r.y, r.w, r.h);

    let not_ready = node.health == ZoneHealth::NotReady;
    if not_ready {
        ctx.set_stroke_style_str(WARNING);
        ctx.set_line_width(3.0);
        ctx.set_line_dash(&js_sys::Array::of2(&8.0.into(), &5.0.into()))?;
        ctx.stroke_rect(r.x + 1.5, r.y + 1.5, r.w - 3.0, r.h - 3.0);
        ctx.set_line_dash(&js_sys::Array::new())?;
    } else {
        ctx.set_stroke_style_str(edge);
        ctx.set_line_width(1.0);
        ctx.stroke_rect(r.x + 0.5, r.y + 0.5, r.w - 1.0, r.h - 1.0);
    }
    ctx.set_line_width(1.0);

    let compact = r.h < 80.0;
    let header = if compact { 16.0 } else { 26.0 };
    let ink = if node.killed { "#e8ecf1" } else { INK };
    let muted = if node.killed { "#aab3be" } else { MUTED };
    ctx.set_text_align("left");
    ctx.set_text_baseline("alphabetic");

    // Name, then status pills, then (right-aligned) the robot count and CPU use.
    font(ctx, if compact { 10.5 } else { 13.0 }, true);
    ctx.set_fill_style_str(ink);
    let base = r.y + if compact { 12.0 } else { 18.0 };
    text(ctx, &node.name, r.x + 8.0, base, r.w - 16.0);
    let mut x = r.x + 8.0 + ctx.measure_text(&node.name)?.width() + 8.0;
    if !compact {
        // Most important first: a pill that does not fit is left out.
        let limit = r.x + r.w - 8.0;
        let mut pills: Vec<(&str, &str, &str)> = Vec::new();
        if node.killed {
            pills.push((tr.t(Key::PoweredOff), "#000000", "#ffd54a"));
        }
        if not_ready {
            pills.push((tr.t(Key::NotReady), WARNING, "#ffffff"));
        }
        if node.control_plane {
            pills.push((tr.t(Key::ControlPlaneZone), OFFICE_EDGE, "#ffffff"));
        }
        for (label, bg, fg) in pills {
            let w = pill(ctx, label, (x, base, limit), bg, fg);
            if w > 0.0 {
                x += w + 6.0;
            }
        }
        let stats = format!(
            "{} · CPU {}m/{}m",
            tr.robot_count(workload_count(&node.pods)),
            node.cpu_requested_milli,
            node.cpu_allocatable_milli
        );
        font(ctx, 11.0, false);
        let sw = ctx.measure_text(&stats)?.width();
        if x + sw + 8.0 < r.x + r.w {
            ctx.set_fill_style_str(muted);
            ctx.set_text_align("right");
            ctx.fill_text(&stats, r.x + r.w - 8.0, base)?;
            ctx.set_text_align("left");
        }
    }

    let area = r.inset(8.0, header, 8.0, 6.0);
    if node.killed && workload_count(&node.pods) == 0 && !compact {
        ctx.set_fill_style_str("#6b7480");
        font(ctx, 22.0, true);
        ctx.set_text_align("center");
        text(
            ctx,
            &tr.t(Key::PoweredOff).to_uppercase(),
            r.x + r.w / 2.0,
            area.y + area.h / 2.0 + 6.0,
            r.w - 20.0,
        );
        ctx.set_text_align("left");
    }
    draw_pods(p, area, &node.pods, node.killed, Some(index))
}

fn draw_bay(p: &mut Paint, r: Rect, pods: &[PodView]) -> Result<(), JsValue> {
    let (ctx, tr) = (p.ctx, p.tr);
    ctx.set_fill_style_str("#f0f2f5");
    ctx.fill_rect(r.x, r.y, r.w, r.h);
    ctx.set_stroke_style_str("#8796a8");
    ctx.set_line_dash(&js_sys::Array::of2(&6.0.into(), &4.0.into()))?;
    ctx.stroke_rect(r.x + 0.5, r.y + 0.5, r.w - 1.0, r.h - 1.0);
    ctx.set_line_dash(&js_sys::Array::new())?;
    ctx.set_text_align("left");
    ctx.set_fill_style_str(INK);
    font(ctx, 12.0, true);
    let label = format!(
        "{} — {}",
        tr.t(Key::WaitingBay),
        tr.robot_count(workload_count(pods))
    );
    text(ctx, &label, r.x + 8.0, r.y + 17.0, r.w - 16.0);
    draw_pods(p, r.inset(8.0, 24.0, 8.0, 6.0), pods, false, None)
}

/// How many of the robots are the workload's (not kube-system's).
pub fn workload_count(pods: &[PodView]) -> usize {
    pods.iter().filter(|p| !p.system).count()
}

/// The workload's robots in a grid, and the cluster's own (kube-system) as a row of
/// small robots along the bottom edge, so they never pass for the user's.
fn draw_pods(
    p: &mut Paint,
    area: Rect,
    pods: &[PodView],
    dark_floor: bool,
    node: Option<usize>,
) -> Result<(), JsValue> {
    let ctx = p.ctx;
    let mut system = Vec::new();
    let mut workload = Vec::new();
    for (i, pod) in pods.iter().enumerate() {
        if pod.system {
            system.push(pod);
        } else {
            workload.push((i, pod));
        }
    }
    let area = if system.is_empty() || area.h < 3.0 * SYSTEM_CELL {
        // Too small a zone: the system robots are left out (the zone list counts
        // only the workload too).
        area
    } else {
        let row = Rect {
            x: area.x,
            y: area.bottom() - SYSTEM_CELL,
            w: area.w,
            h: SYSTEM_CELL,
        };
        draw_system_robots(ctx, row, &system, dark_floor)?;
        area.inset(0.0, 0.0, 0.0, SYSTEM_CELL + 2.0)
    };
    draw_robots(p, area, &workload, dark_floor, node)
}

/// Small robots in one row, grey while they work, in their state's colour when not.
fn draw_system_robots(
    ctx: &CanvasRenderingContext2d,
    row: Rect,
    pods: &[&PodView],
    dark_floor: bool,
) -> Result<(), JsValue> {
    let s = SYSTEM_CELL;
    let fits = ((row.w / s).floor() as usize).saturating_sub(2);
    let shown = pods.len().min(fits);
    for state in RobotState::ALL {
        let mut any = false;
        ctx.begin_path();
        for (i, pod) in pods[..shown].iter().enumerate() {
            if pod.state != state {
                continue;
            }
            any = true;
            let x = row.x + i as f64 * s;
            let (cx, cy, r) = (x + s / 2.0, row.y + s * 0.22, s * 0.18);
            ctx.move_to(cx + r, cy);
            ctx.arc(cx, cy, r, 0.0, TAU)?;
            ctx.rect(x + s * 0.22, row.y + s * 0.42, s * 0.56, s * 0.5);
        }
        if any {
            let color = if state == RobotState::Running {
                SYSTEM_COLOR
            } else {
                state_color(state)
            };
            ctx.set_fill_style_str(color);
            ctx.fill();
        }
    }
    if shown < pods.len() {
        ctx.set_fill_style_str(if dark_floor { "#d8dde3" } else { MUTED });
        font(ctx, 9.5, false);
        ctx.set_text_align("left");
        ctx.fill_text(
            &format!("+{}", pods.len() - shown),
            row.x + shown as f64 * s + 2.0,
            row.y + s - 1.0,
        )?;
    }
    Ok(())
}

/// Draws robots in a grid, one path per colour; a ring in their workload's colour, a
/// restart counter and a countdown when there is room. Too small to see one by
/// one, a zone shows its robots as a bar of counts by state.
fn draw_robots(
    p: &mut Paint,
    area: Rect,
    pods: &[(usize, &PodView)],
    dark_floor: bool,
    node: Option<usize>,
) -> Result<(), JsValue> {
    let ctx = p.ctx;
    if pods.is_empty() || area.w < 2.0 || area.h < 2.0 {
        return Ok(());
    }
    let grid = robot_grid(area, pods.len());
    if grid.cell < 5.0 {
        return draw_counts(p, area, pods, dark_floor);
    }
    let shown = pods.len().min(grid.capacity());
    p.hits.robots.push(RobotHit {
        grid,
        node,
        idx: pods[..shown].iter().map(|(i, _)| *i).collect(),
    });
    let s = grid.cell;
    let pad = (s * 0.1).max(0.5);
    let robots = Robots {
        pods: &pods[..shown],
        origins: robot_origins(p, &grid, &pods[..shown], node),
        s,
        pad,
        inner: s - 2.0 * pad,
    };
    let simple = robots.inner < 6.0;
    fill_robots(ctx, &robots, simple)?;
    if !simple {
        draw_visors_and_stripes(ctx, &robots, dark_floor);
    }
    if s >= 10.0 {
        draw_rings(ctx, &robots)?;
    }
    if s >= 14.0 {
        draw_badges(p, &robots)?;
    }

    if shown < pods.len() {
        ctx.set_fill_style_str(if dark_floor { "#ffffff" } else { INK });
        font(ctx, 11.0, true);
        ctx.set_text_align("right");
        ctx.fill_text(
            &format!("+{}", pods.len() - shown),
            area.x + area.w,
            area.y + area.h - 2.0,
        )?;
        ctx.set_text_align("left");
    }
    Ok(())
}

/// The robots of a grid as they are drawn: where each stands, and the measures of a
/// cell.
struct Robots<'a> {
    /// The robots shown (index into their zone's pods, pod).
    pods: &'a [(usize, &'a PodView)],
    /// Each one's top-left corner.
    origins: Vec<(f64, f64)>,
    /// The cell's size.
    s: f64,
    /// The gap between a cell's edge and its robot.
    pad: f64,
    /// The robot's size.
    inner: f64,
}

/// Where each robot stands: its cell, or on its walk from the waiting bay. On a new
/// view, notes where each is drawn, for the walks and ghosts of the next one.
fn robot_origins(
    p: &mut Paint,
    grid: &Grid,
    pods: &[(usize, &PodView)],
    node: Option<usize>,
) -> Vec<(f64, f64)> {
    let mut origins: Vec<(f64, f64)> = (0..pods.len()).map(|i| grid.cell_origin(i)).collect();
    if p.animate {
        p.anim.cell = grid.cell;
        for (i, (_, pod)) in pods.iter().enumerate() {
            let key = format!("{}/{}", pod.namespace, pod.name);
            let (x, y) = origins[i];
            if p.fresh_view {
                if let Some(&(ox, oy, in_bay, _)) = p.anim.pos.get(&key) {
                    if in_bay && node.is_some() {
                        p.anim.walks.insert(key.clone(), (ox, oy, p.now));
                    }
                }
                p.anim
                    .next_pos
                    .insert(key.clone(), (x, y, node.is_none(), state_color(pod.state)));
            }
            if let Some(&(ox, oy, since)) = p.anim.walks.get(&key) {
                let t = ((p.now - since) / WALK_MS).clamp(0.0, 1.0);
                let e = 1.0 - (1.0 - t) * (1.0 - t);
                origins[i] = (ox + (x - ox) * e, oy + (y - oy) * e);
                p.busy |= t < 1.0;
            }
        }
    }
    origins
}

/// The robots' bodies, one path per state colour: a square each when `simple`,
/// otherwise a head over a body.
fn fill_robots(ctx: &CanvasRenderingContext2d, r: &Robots, simple: bool) -> Result<(), JsValue> {
    let (s, pad, inner) = (r.s, r.pad, r.inner);
    for state in RobotState::ALL {
        let mut any = false;
        ctx.begin_path();
        for (i, (_, pod)) in r.pods.iter().enumerate() {
            if pod.state != state {
                continue;
            }
            any = true;
            let (x, y) = r.origins[i];
            if simple {
                ctx.rect(x + pad, y + pad, inner, inner);
            } else {
                // Head: a circle; body: a box under it.
                let cx = x + s / 2.0;
                let rad = inner * 0.2;
                let cy = y + pad + rad + inner * 0.02;
                ctx.move_to(cx + rad, cy);
                ctx.arc(cx, cy, rad, 0.0, TAU)?;
                ctx.rect(
                    x + pad + inner * 0.16,
                    y + pad + inner * 0.44,
                    inner * 0.68,
                    inner * 0.54,
                );
            }
        }
        if any {
            ctx.set_fill_style_str(state_color(state));
            ctx.fill();
        }
    }
    Ok(())
}

/// Visors on the bodies so a robot reads as a robot, and stripes on the ones
/// shutting down.
fn draw_visors_and_stripes(ctx: &CanvasRenderingContext2d, r: &Robots, dark_floor: bool) {
    let (pad, inner) = (r.pad, r.inner);
    ctx.begin_path();
    for &(x, y) in &r.origins {
        ctx.rect(
            x + pad + inner * 0.28,
            y + pad + inner * 0.54,
            inner * 0.44,
            inner * 0.12,
        );
    }
    ctx.set_fill_style_str(if dark_floor { "#d8dde3" } else { "#ffffff" });
    ctx.fill();

    ctx.begin_path();
    let mut any = false;
    for (i, (_, pod)) in r.pods.iter().enumerate() {
        if pod.state == RobotState::Terminating {
            any = true;
            let (x, y) = r.origins[i];
            let (bx, by) = (x + pad + inner * 0.16, y + pad + inner * 0.44);
            let (bw, bh) = (inner * 0.68, inner * 0.54);
            ctx.move_to(bx, by + bh);
            ctx.line_to(bx + bw * 0.5, by);
            ctx.move_to(bx + bw * 0.5, by + bh);
            ctx.line_to(bx + bw, by);
        }
    }
    if any {
        ctx.set_stroke_style_str("#555b63");
        ctx.set_line_width((inner * 0.08).max(1.0));
        ctx.stroke();
        ctx.set_line_width(1.0);
    }
}

/// A ring around each robot in its workload's colour (the Deployment, Job or
/// DaemonSet), one path per colour.
fn draw_rings(ctx: &CanvasRenderingContext2d, r: &Robots) -> Result<(), JsValue> {
    let (s, pad) = (r.s, r.pad);
    let mut rings: BTreeMap<&'static str, Vec<usize>> = BTreeMap::new();
    for (i, (_, pod)) in r.pods.iter().enumerate() {
        if let Some(owner) = crate::floor::owner_of(pod.owner.as_deref()) {
            rings.entry(owner_color(&owner)).or_default().push(i);
        }
    }
    ctx.set_line_width((s * 0.07).max(1.2));
    for (color, cells) in rings {
        ctx.begin_path();
        for i in cells {
            let (x, y) = r.origins[i];
            ctx.move_to(x + s - pad * 0.5, y + s * 0.5);
            ctx.arc(x + s * 0.5, y + s * 0.5, s * 0.5 - pad * 0.5, 0.0, TAU)?;
        }
        ctx.set_stroke_style_str(color);
        ctx.stroke();
    }
    ctx.set_line_width(1.0);
    Ok(())
}

/// Restarts (↻N) in a robot's corner, and the back-off or pull countdown under it.
fn draw_badges(p: &Paint, r: &Robots) -> Result<(), JsValue> {
    let (ctx, s) = (p.ctx, r.s);
    font(ctx, (s * 0.3).clamp(8.0, 11.0), true);
    for (i, (_, pod)) in r.pods.iter().enumerate() {
        let (x, y) = r.origins[i];
        if pod.restarts > 0 {
            let label = format!("↻{}", pod.restarts);
            ctx.set_text_align("right");
            ctx.set_fill_style_str("#ffffff");
            let w = ctx.measure_text(&label)?.width();
            ctx.fill_rect(x + s - w - 3.0, y, w + 3.0, s * 0.3 + 2.0);
            ctx.set_fill_style_str("#b00020");
            ctx.fill_text(&label, x + s - 1.0, y + s * 0.3)?;
            ctx.set_text_align("left");
        }
        if !p.countdowns.is_empty() {
            let key = format!("{}/{}", pod.namespace, pod.name);
            if let Some(c) = p.countdowns.get(key.as_str()) {
                let left = c.due_ms.saturating_sub(p.now_ms).div_ceil(1000);
                let label = format!("{left}s");
                ctx.set_text_align("center");
                ctx.set_fill_style_str("#1f2933");
                let w = ctx.measure_text(&label)?.width();
                ctx.fill_rect(
                    x + s / 2.0 - w / 2.0 - 2.0,
                    y + s - s * 0.3 - 2.0,
                    w + 4.0,
                    s * 0.3 + 2.0,
                );
                ctx.set_fill_style_str(if c.kind == CountdownKind::PullRetry {
                    "#ffd54a"
                } else {
                    "#ff8a80"
                });
                ctx.fill_text(&label, x + s / 2.0, y + s - 2.0)?;
                ctx.set_text_align("left");
            }
        }
    }
    Ok(())
}

/// A crowded zone: one bar split by state, and the counts.
fn draw_counts(
    p: &mut Paint,
    area: Rect,
    pods: &[(usize, &PodView)],
    dark_floor: bool,
) -> Result<(), JsValue> {
    let ctx = p.ctx;
    let mut counts: BTreeMap<RobotState, usize> = BTreeMap::new();
    for (_, pod) in pods {
        *counts.entry(pod.state).or_default() += 1;
    }
    let total = pods.len() as f64;
    let bar_h = (area.h * 0.4).clamp(4.0, 16.0);
    let mut x = area.x;
    for (state, n) in &counts {
        let w = area.w * *n as f64 / total;
        ctx.set_fill_style_str(state_color(*state));
        ctx.fill_rect(x, area.y, w, bar_h);
        x += w;
    }
    if area.h >= bar_h + 10.0 {
        ctx.set_fill_style_str(if dark_floor { "#ffffff" } else { INK });
        font(ctx, 9.5, false);
        ctx.set_text_align("left");
        let text_s = if area.w < 140.0 {
            // A narrow tile: the total, and how many are not working.
            let working = counts.get(&RobotState::Running).copied().unwrap_or(0);
            if working == pods.len() {
                pods.len().to_string()
            } else {
                format!("{working}/{}", pods.len())
            }
        } else {
            counts
                .iter()
                .map(|(s, n)| format!("{n} {}", p.tr.state(*s).to_lowercase()))
                .collect::<Vec<_>>()
                .join(" · ")
        };
        text(ctx, &text_s, area.x, area.y + bar_h + 10.0, area.w);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let lay = desk_layout(area, &[&small], &|_, _| false, false);
        assert!(lay.desks[0].sheets[0].expanded);
        assert_eq!(lay.desks[0].sheets[0].shown, 3);
        let big = desk(100, 100);
        let lay = desk_layout(area, &[&big], &|_, n| n == "web-42", true);
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
