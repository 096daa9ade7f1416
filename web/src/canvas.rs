//! The warehouse floor, drawn on a `<canvas>`: the control-plane strip across the top,
//! one zone per node, robots in a grid inside their zone, and the waiting bay for
//! robots without a zone. Layout is pure arithmetic (tested natively); drawing batches
//! robots by colour so thousands of them cost a handful of canvas calls.

use crate::i18n::{Key, Tr};
use std::f64::consts::TAU;
use std::rc::Rc;
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
        _ => (48.0, 36.0, 120.0),
    };
    let square = (n as f64).sqrt().ceil() as usize;
    let max_cols = (((inner + GAP) / (min_w + GAP)).floor() as usize).max(1);
    let cols = square.min(max_cols).min(n).max(1);
    let rows = n.div_ceil(cols);
    let zone_w = (inner - GAP * (cols as f64 - 1.0)) / cols as f64;
    let budget = (MAX_HEIGHT - strip.h - BAY_H - 2.0 * PAD - 2.0 * GAP) / rows as f64 - GAP;
    let zone_h = (zone_w * 0.38).clamp(min_h, max_h).min(budget.max(12.0));
    let top = strip.bottom() + GAP;
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

#[derive(Properties)]
pub struct CanvasProps {
    pub view: Rc<ClusterView>,
    pub tr: Tr,
}

impl PartialEq for CanvasProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.view, &other.view) && self.tr == other.tr
    }
}

#[function_component]
pub fn WarehouseCanvas(props: &CanvasProps) -> Html {
    let canvas_ref = use_node_ref();
    let force = use_force_update();

    // Redraw when the window changes size, even while the clock is paused.
    use_effect_with((), move |_| {
        let listener =
            wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || force.force_update());
        let window = web_sys::window();
        if let Some(w) = &window {
            let _ = w.add_event_listener_with_callback("resize", listener.as_ref().unchecked_ref());
        }
        move || {
            if let Some(w) = &window {
                let _ = w.remove_event_listener_with_callback(
                    "resize",
                    listener.as_ref().unchecked_ref(),
                );
            }
        }
    });

    {
        let canvas_ref = canvas_ref.clone();
        let view = props.view.clone();
        let tr = props.tr;
        use_effect(move || {
            if let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() {
                if let Err(e) = draw(&canvas, &view, tr) {
                    web_sys::console::warn_2(&"warehouse canvas:".into(), &e);
                }
            }
        });
    }

    let robots: usize = props
        .view
        .nodes
        .iter()
        .map(|n| workload_count(&n.pods))
        .sum::<usize>()
        + workload_count(&props.view.unscheduled);
    let label = format!(
        "{}: {}",
        props.tr.t(Key::CanvasLabel),
        props.tr.robot_count(robots)
    );
    html! {
        <canvas id="warehouse-canvas" ref={canvas_ref} role="img" aria-label={label}></canvas>
    }
}

// ----- drawing -----

fn draw(canvas: &HtmlCanvasElement, view: &ClusterView, tr: Tr) -> Result<(), JsValue> {
    let ctx: CanvasRenderingContext2d = canvas
        .get_context("2d")?
        .ok_or_else(|| JsValue::from_str("no 2d context"))?
        .dyn_into()?;
    let css_width = f64::from(canvas.client_width());
    let lay = layout(css_width, view.nodes.len());
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
        canvas.set_attribute("style", &format!("height:{}px", lay.height))?;
    }
    ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0)?;
    ctx.clear_rect(0.0, 0.0, lay.width, lay.height);

    draw_strip(&ctx, lay.strip, lay.strip_cols, view, tr);
    for (node, rect) in view.nodes.iter().zip(&lay.zones) {
        draw_zone(&ctx, *rect, node, tr)?;
    }
    draw_bay(&ctx, lay.bay, &view.unscheduled, tr)?;
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

fn draw_zone(
    ctx: &CanvasRenderingContext2d,
    r: Rect,
    node: &NodeView,
    tr: Tr,
) -> Result<(), JsValue> {
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
    draw_pods(ctx, area, &node.pods, node.killed)
}

fn draw_bay(
    ctx: &CanvasRenderingContext2d,
    r: Rect,
    pods: &[PodView],
    tr: Tr,
) -> Result<(), JsValue> {
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
    draw_pods(ctx, r.inset(8.0, 24.0, 8.0, 6.0), pods, false)
}

/// How many of the robots are the workload's (not kube-system's).
pub fn workload_count(pods: &[PodView]) -> usize {
    pods.iter().filter(|p| !p.system).count()
}

/// The workload's robots in a grid, and the cluster's own (kube-system) as a row of
/// small robots along the bottom edge, so they never pass for the user's.
fn draw_pods(
    ctx: &CanvasRenderingContext2d,
    area: Rect,
    pods: &[PodView],
    dark_floor: bool,
) -> Result<(), JsValue> {
    let (system, workload): (Vec<&PodView>, Vec<&PodView>) = pods.iter().partition(|p| p.system);
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
    draw_robots(ctx, area, &workload, dark_floor)
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

/// Draws robots in a grid, one path per colour.
fn draw_robots(
    ctx: &CanvasRenderingContext2d,
    area: Rect,
    pods: &[&PodView],
    dark_floor: bool,
) -> Result<(), JsValue> {
    if pods.is_empty() || area.w < 2.0 || area.h < 2.0 {
        return Ok(());
    }
    let grid = robot_grid(area, pods.len());
    let shown = pods.len().min(grid.capacity());
    let s = grid.cell;
    let pad = (s * 0.1).max(0.5);
    let inner = s - 2.0 * pad;
    let simple = inner < 6.0;

    for state in RobotState::ALL {
        let mut any = false;
        ctx.begin_path();
        for (i, pod) in pods[..shown].iter().enumerate() {
            if pod.state != state {
                continue;
            }
            any = true;
            let (x, y) = grid.cell_origin(i);
            if simple {
                ctx.rect(x + pad, y + pad, inner, inner);
            } else {
                // Head: a circle; body: a box under it.
                let cx = x + s / 2.0;
                let r = inner * 0.2;
                let cy = y + pad + r + inner * 0.02;
                ctx.move_to(cx + r, cy);
                ctx.arc(cx, cy, r, 0.0, TAU)?;
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

    if !simple {
        // Visors on the bodies so a robot reads as a robot, and stripes on the ones
        // shutting down.
        ctx.begin_path();
        for i in 0..shown {
            let (x, y) = grid.cell_origin(i);
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
        for (i, pod) in pods[..shown].iter().enumerate() {
            if pod.state == RobotState::Terminating {
                any = true;
                let (x, y) = grid.cell_origin(i);
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
