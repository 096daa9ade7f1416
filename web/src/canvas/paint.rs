//! Painting the strip, the zones, the waiting bay and the robots. Robots are batched
//! by colour, so thousands of them cost a handful of canvas calls.

use super::animate::{robot_origins, Anim};
use super::hit::{Hits, RobotHit};
use super::layout::{robot_grid, Layout, Rect, STRIP_ROW_H, STRIP_TITLE_H};
use crate::control_plane::component_key;
use crate::floor::owner_color;
use crate::i18n::{Key, Tr};
use crate::projection::FloorView;
use crate::target::Target;
use std::collections::BTreeMap;
use std::f64::consts::TAU;
use warehouse_sim::views::countdown::{Countdown, CountdownKind};
use warehouse_sim::{NodeView, PodView, RobotState, VolumeView, ZoneHealth};
use wasm_bindgen::JsValue;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

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

pub(super) const STOPPED: &str = "#d33a3a";

pub(super) const INK: &str = "#1f2933";

pub(super) const MUTED: &str = "#5b6673";

pub(super) const FLOOR: &str = "#f7f2e7";

pub(super) const FLOOR_EDGE: &str = "#a39478";

pub(super) const OFFICE_FLOOR: &str = "#ece8f6";

pub(super) const OFFICE_EDGE: &str = "#7d6cb3";

pub(super) const DARK_FLOOR: &str = "#2a2e35";

pub(super) const WARNING: &str = "#e07000";

pub(super) const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

pub(super) struct Paint<'a> {
    pub(super) ctx: &'a CanvasRenderingContext2d,
    pub(super) tr: Tr,
    pub(super) now: f64,
    pub(super) now_ms: u64,
    pub(super) countdowns: BTreeMap<&'a str, &'a Countdown>,
    pub(super) anim: &'a mut Anim,
    pub(super) hits: &'a mut Hits,
    pub(super) busy: bool,
}

impl<'a> Paint<'a> {
    /// A painter for one frame of `data`, recording animations and hit areas.
    pub(super) fn new(
        ctx: &'a CanvasRenderingContext2d,
        tr: Tr,
        now: f64,
        data: &'a crate::floor::FloorData,
        anim: &'a mut Anim,
        hits: &'a mut Hits,
    ) -> Self {
        Paint {
            ctx,
            tr,
            now,
            now_ms: data.now_ms,
            countdowns: crate::floor::countdowns_by_pod(&data.countdowns),
            anim,
            hits,
            busy: false,
        }
    }
}

/// The device's pixels per CSS pixel, within 1 to 3.
pub(super) fn device_pixel_ratio() -> f64 {
    web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .unwrap_or(1.0)
        .clamp(1.0, 3.0)
}

/// Sizes the canvas for the layout at the device's pixel ratio (when that changed),
/// clears it, and sets the zoom and pan.
pub(super) fn size_canvas(
    canvas: &HtmlCanvasElement,
    ctx: &CanvasRenderingContext2d,
    lay: &Layout,
    zoom: f64,
    pan: (f64, f64),
) -> Result<(), JsValue> {
    let dpr = device_pixel_ratio();
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

pub(super) fn font(ctx: &CanvasRenderingContext2d, px: f64, bold: bool) {
    let weight = if bold { "600 " } else { "" };
    ctx.set_font(&format!("{weight}{px}px {FONT}"));
}

pub(super) fn text(ctx: &CanvasRenderingContext2d, s: &str, x: f64, y: f64, max_w: f64) {
    if max_w > 4.0 {
        let _ = ctx.fill_text_with_max_width(s, x, y, max_w);
    }
}

pub(super) fn draw_strip(
    ctx: &CanvasRenderingContext2d,
    r: Rect,
    cols: usize,
    view: &FloorView,
    tr: Tr,
) {
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
pub(super) fn pill(
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

pub(super) fn draw_zone(
    p: &mut Paint,
    r: Rect,
    index: usize,
    node: &NodeView,
) -> Result<(), JsValue> {
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

    let mut area = r.inset(8.0, header, 8.0, 6.0);
    if !node.volumes.is_empty() {
        let system_row = if node.pods.iter().any(|p| p.system) {
            SYSTEM_CELL + 2.0
        } else {
            0.0
        };
        let rack = locker_rack(area.inset(0.0, 0.0, 0.0, system_row), node.volumes.len());
        draw_lockers(p, &rack, &node.volumes, node.killed)?;
        area = area.inset(0.0, 0.0, rack.w + 6.0, 0.0);
    }
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

/// A locker on the floor, in CSS pixels.
pub const LOCKER_W: f64 = 15.0;
pub const LOCKER_H: f64 = 24.0;
const LOCKER_GAP: f64 = 4.0;

/// A bound locker's body and edge.
pub const LOCKER_FILL: &str = "#5b7fa6";
pub const LOCKER_EDGE: &str = "#2f4a69";
/// An attachment (a sidecar container) on a robot's side: filled when it is ready.
pub const ATTACHMENT_FILL: &str = "#d69e2e";
pub const ATTACHMENT_EDGE: &str = "#7b5614";

/// The lockers' colours by the volume's phase: its body and its edge.
pub fn locker_color(v: &VolumeView) -> (&'static str, &'static str) {
    if v.terminating {
        return ("#c9ccd1", "#7a7f87");
    }
    match v.phase.as_str() {
        "Bound" => (LOCKER_FILL, LOCKER_EDGE),
        "Available" => ("#a9c8e8", "#5b7fa6"),
        "Released" => ("#b7bcc3", "#6b7480"),
        "Failed" => ("#e6a3a3", STOPPED),
        _ => ("#f2e3b3", "#b08a2e"),
    }
}

/// The number a locker shows on its door: its claim's StatefulSet ordinal (the
/// number after the last dash of `data-web-1`), if the claim ends in one.
pub fn locker_number(v: &VolumeView) -> Option<&str> {
    let claim = v.claim.as_deref()?;
    let (_, n) = claim.rsplit_once('-')?;
    (!n.is_empty() && n.len() <= 3 && n.bytes().all(|b| b.is_ascii_digit())).then_some(n)
}

/// Where a zone's lockers stand: a rack along the right edge of `area`, in
/// columns top to bottom, as many columns as it takes (at most a third of the zone).
pub(super) fn locker_rack(area: Rect, n: usize) -> Rect {
    let rows = (((area.h + LOCKER_GAP) / (LOCKER_H + LOCKER_GAP)).floor() as usize).max(1);
    let max_cols =
        (((area.w / 3.0 + LOCKER_GAP) / (LOCKER_W + LOCKER_GAP)).floor() as usize).max(1);
    let cols = n.div_ceil(rows).clamp(1, max_cols);
    let w = cols as f64 * (LOCKER_W + LOCKER_GAP) - LOCKER_GAP;
    Rect {
        x: area.x + area.w - w,
        y: area.y,
        w,
        h: area.h,
    }
}

/// The zone's lockers in their rack, each a hit target; those that do not fit are
/// counted.
fn draw_lockers(
    p: &mut Paint,
    rack: &Rect,
    volumes: &[VolumeView],
    dark_floor: bool,
) -> Result<(), JsValue> {
    let ctx = p.ctx;
    let rows = (((rack.h + LOCKER_GAP) / (LOCKER_H + LOCKER_GAP)).floor() as usize).max(1);
    let cols = (((rack.w + LOCKER_GAP) / (LOCKER_W + LOCKER_GAP)).round() as usize).max(1);
    let room = rows * cols;
    let shown = if volumes.len() > room {
        room - 1
    } else {
        volumes.len()
    };
    for (i, v) in volumes[..shown].iter().enumerate() {
        let (col, row) = (i / rows, i % rows);
        let b = Rect {
            x: rack.x + col as f64 * (LOCKER_W + LOCKER_GAP),
            y: rack.y + row as f64 * (LOCKER_H + LOCKER_GAP),
            w: LOCKER_W,
            h: LOCKER_H.min(rack.h),
        };
        let (fill, edge) = locker_color(v);
        locker(ctx, b, fill, edge, locker_number(v))?;
        p.hits.items.push((b, Target::Locker(v.name.clone())));
    }
    if shown < volumes.len() {
        let i = shown;
        let (x, y) = (
            rack.x + (i / rows) as f64 * (LOCKER_W + LOCKER_GAP),
            rack.y + (i % rows) as f64 * (LOCKER_H + LOCKER_GAP),
        );
        ctx.set_fill_style_str(if dark_floor { "#ffffff" } else { INK });
        font(ctx, 10.0, true);
        ctx.set_text_align("left");
        ctx.fill_text(&format!("+{}", volumes.len() - shown), x, y + 14.0)?;
    }
    Ok(())
}

/// One locker: a cabinet with vents and a handle, its number on the door.
pub(super) fn locker(
    ctx: &CanvasRenderingContext2d,
    b: Rect,
    fill: &str,
    edge: &str,
    number: Option<&str>,
) -> Result<(), JsValue> {
    ctx.set_fill_style_str(fill);
    ctx.fill_rect(b.x, b.y, b.w, b.h);
    ctx.set_stroke_style_str(edge);
    ctx.set_line_width(1.0);
    ctx.stroke_rect(b.x + 0.5, b.y + 0.5, b.w - 1.0, b.h - 1.0);
    // Vents across the top, a handle on the right.
    ctx.begin_path();
    for k in 0..2 {
        let y = b.y + b.h * (0.14 + 0.1 * f64::from(k)) + 0.5;
        ctx.move_to(b.x + b.w * 0.22, y);
        ctx.line_to(b.x + b.w * 0.78, y);
    }
    ctx.stroke();
    ctx.set_fill_style_str(edge);
    ctx.fill_rect(
        b.x + b.w * 0.72,
        b.y + b.h * 0.5,
        (b.w * 0.12).max(1.0),
        b.h * 0.18,
    );
    if let Some(n) = number {
        ctx.set_fill_style_str("#ffffff");
        font(ctx, (b.w * 0.6).clamp(6.0, 10.0), true);
        ctx.set_text_align("center");
        ctx.fill_text_with_max_width(n, b.x + b.w * 0.42, b.y + b.h * 0.86, b.w * 0.6)?;
        ctx.set_text_align("left");
    }
    Ok(())
}

pub(super) fn draw_bay(p: &mut Paint, r: Rect, pods: &[PodView]) -> Result<(), JsValue> {
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
pub(super) fn draw_pods(
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
pub(super) fn draw_system_robots(
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
pub(super) fn draw_robots(
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
        origins: robot_origins(p, &grid, &pods[..shown]),
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
    if s >= NUMBER_CELL {
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
pub(super) struct Robots<'a> {
    /// The robots shown (index into their zone's pods, pod).
    pub(super) pods: &'a [(usize, &'a PodView)],
    /// Each one's top-left corner.
    pub(super) origins: Vec<(f64, f64)>,
    /// The cell's size.
    pub(super) s: f64,
    /// The gap between a cell's edge and its robot.
    pub(super) pad: f64,
    /// The robot's size.
    pub(super) inner: f64,
}

/// The robots' bodies, one path per state colour: a square each when `simple`,
/// otherwise a head over a body.
pub(super) fn fill_robots(
    ctx: &CanvasRenderingContext2d,
    r: &Robots,
    simple: bool,
) -> Result<(), JsValue> {
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
pub(super) fn draw_visors_and_stripes(
    ctx: &CanvasRenderingContext2d,
    r: &Robots,
    dark_floor: bool,
) {
    let (pad, inner) = (r.pad, r.inner);
    ctx.begin_path();
    for (i, &(x, y)) in r.origins.iter().enumerate() {
        // A numbered robot wears its number where the visor goes.
        if r.s >= NUMBER_CELL && r.pods[i].1.ordinal.is_some() {
            continue;
        }
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
pub(super) fn draw_rings(ctx: &CanvasRenderingContext2d, r: &Robots) -> Result<(), JsValue> {
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

/// The smallest cell whose robots wear their StatefulSet number and a locker.
pub const NUMBER_CELL: f64 = 14.0;

/// A numbered crew's robot: its number on its body; a robot that mounts a claim: a
/// small locker in its cell's corner.
fn draw_number_and_locker(
    ctx: &CanvasRenderingContext2d,
    r: &Robots,
    x: f64,
    y: f64,
    pod: &PodView,
) -> Result<(), JsValue> {
    let (s, pad, inner) = (r.s, r.pad, r.inner);
    if let Some(n) = pod.ordinal {
        let label = n.to_string();
        let (bx, by, bw, bh) = (
            x + pad + inner * 0.16,
            y + pad + inner * 0.44,
            inner * 0.68,
            inner * 0.54,
        );
        font(ctx, (bh * 0.85).clamp(7.0, 13.0), true);
        ctx.set_text_align("center");
        ctx.set_text_baseline("middle");
        ctx.set_fill_style_str("#ffffff");
        ctx.fill_text_with_max_width(&label, bx + bw / 2.0, by + bh / 2.0 + 0.5, bw - 1.0)?;
        ctx.set_text_baseline("alphabetic");
        ctx.set_text_align("left");
    }
    if !pod.claims.is_empty() {
        let (w, h) = ((s * 0.2).max(3.0), (s * 0.3).max(4.5));
        let b = Rect {
            x: x + s - w - 0.5,
            y: y + s - h - 0.5,
            w,
            h,
        };
        ctx.set_fill_style_str(LOCKER_FILL);
        ctx.fill_rect(b.x, b.y, b.w, b.h);
        ctx.set_stroke_style_str(LOCKER_EDGE);
        ctx.set_line_width(1.0);
        ctx.stroke_rect(b.x + 0.5, b.y + 0.5, b.w - 1.0, b.h - 1.0);
        ctx.set_fill_style_str(LOCKER_EDGE);
        ctx.fill_rect(b.x + b.w * 0.62, b.y + b.h * 0.45, 1.0, b.h * 0.22);
    }
    Ok(())
}

/// A robot's attachments (sidecar containers): small modules stacked down its left
/// side, filled when ready, hollow while not; at most as many as fit.
fn draw_attachments(ctx: &CanvasRenderingContext2d, s: f64, x: f64, y: f64, ready: &[bool]) {
    let side = (s * 0.2).max(3.0);
    let fits = ((s * 0.75) / (side + 1.0)).floor().max(1.0) as usize;
    ctx.set_line_width(1.0);
    for (k, &on) in ready.iter().take(fits).enumerate() {
        let (bx, by) = (x + 0.5, y + s * 0.22 + k as f64 * (side + 1.0));
        ctx.set_fill_style_str(if on { ATTACHMENT_FILL } else { "#ffffff" });
        ctx.fill_rect(bx, by, side, side);
        ctx.set_stroke_style_str(ATTACHMENT_EDGE);
        ctx.stroke_rect(bx + 0.5, by + 0.5, side - 1.0, side - 1.0);
    }
}

/// Restarts (↻N) in a robot's corner, and the back-off or pull countdown under it;
/// a numbered robot's number, the locker of a robot with a claim and its
/// attachments.
pub(super) fn draw_badges(p: &Paint, r: &Robots) -> Result<(), JsValue> {
    let (ctx, s) = (p.ctx, r.s);
    for (i, (_, pod)) in r.pods.iter().enumerate() {
        if pod.ordinal.is_some() || !pod.claims.is_empty() {
            let (x, y) = r.origins[i];
            draw_number_and_locker(ctx, r, x, y, pod)?;
        }
        if !pod.attachments.is_empty() {
            let (x, y) = r.origins[i];
            draw_attachments(ctx, r.s, x, y, &pod.attachments);
        }
    }
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
pub(super) fn draw_counts(
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
