//! The order desks (Services) with their sheets (EndpointSlices), and the copying
//! machines' chart: their layout and their painting.

use super::hit::selector_text;
use super::hook::HOOK;
use super::layout::{Rect, GAP};
use super::paint::{font, text, Paint, INK, MUTED};
use crate::floor::{human_bytes, scroll_bytes, FloorData, TrafficSample};
use crate::i18n::F;
use crate::target::Target;
use std::f64::consts::TAU;
use warehouse_sim::views::desks::DeskView;
use wasm_bindgen::JsValue;

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

/// Staffing minimums (PodDisruptionBudgets), schedules (CronJobs) and load gauges
/// (HorizontalPodAutoscalers) each listed above the desks; the rest of each are
/// counted on one more line.
pub const MAX_BOARD: usize = 4;

/// The height of one notice-board line.
pub const BOARD_LINE_H: f64 = 16.0;

/// How many lines the notice board takes for its groups (budgets, schedules,
/// gauges) of these many entries.
pub fn board_lines(groups: &[usize]) -> usize {
    groups
        .iter()
        .map(|&n| if n > MAX_BOARD { MAX_BOARD + 1 } else { n })
        .sum()
}

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
    board_lines: usize,
    flashing: &dyn Fn(&str, &str) -> bool,
    show_scroll: bool,
) -> DeskLayout {
    let side = area.w >= DESK_W + GAP + CHART_W;
    let desks_w = if side { area.w - CHART_W - GAP } else { area.w };
    let cols = (((desks_w + GAP) / (DESK_W + GAP)).floor() as usize).max(1);
    let card_w = (desks_w - GAP * (cols as f64 - 1.0)) / cols as f64;
    let top = area.y + DESK_TITLE_H + board_lines as f64 * BOARD_LINE_H;
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

pub(super) const DESK_BG: &str = "#fffaf0";

pub(super) const DESK_EDGE: &str = "#b98a3e";

pub(super) const SHEET_BG: &str = "#ffffff";

pub(super) const FLASH_BG: &str = "#fff2a8";

pub(super) const FLASH_EDGE: &str = "#e0a800";

pub const LINE_READY: &str = "#2e9e4f";

/// The highlight of a sheet line that just changed (and its legend swatch).
pub const CHANGED_COLOR: &str = "#ffd23f";

pub const LINE_NOT_READY: &str = "#f07a1a";

pub const LINE_TERMINATING: &str = "#9a9a9a";

/// The notice board under the desks' title: one line per staffing minimum
/// (PodDisruptionBudget: how many robots are ready, the promise, how many may
/// leave; a green mark while one may leave, an amber one while none may), then one
/// per schedule (CronJob: its schedule, its last and next run, its running tasks),
/// then one per load gauge (HorizontalPodAutoscaler: the CPU it measured, its aim
/// and the robots it asks for; a dial green at its aim, red while it adds robots,
/// blue while it takes them away, grey before its first reading), then one per
/// fence (NetworkPolicy: the robots it stands around and its gates each way), then
/// one per sorting gate (Gateway: its address and route cards; green once
/// programmed). Returns its height.
fn draw_board(p: &mut Paint, r: Rect, data: &FloorData) -> Result<f64, JsValue> {
    let tr = p.tr;
    let budgets: Vec<(String, Mark, Target)> = data
        .budgets
        .iter()
        .map(|b| {
            let mark = if b.disruptions_allowed > 0 {
                "#3a7d44"
            } else {
                "#c77d1a"
            };
            let target = Target::Budget {
                namespace: b.namespace.clone(),
                name: b.name.clone(),
            };
            (crate::i18n::budget_line(tr, b), Mark::Dot(mark), target)
        })
        .collect();
    let schedules: Vec<(String, Mark, Target)> = data
        .schedules
        .iter()
        .map(|s| {
            let mark = if s.suspended { MUTED } else { "#3f6fb0" };
            let target = Target::Schedule {
                namespace: s.namespace.clone(),
                name: s.name.clone(),
            };
            (crate::i18n::schedule_line(tr, s), Mark::Dot(mark), target)
        })
        .collect();
    let gauges: Vec<(String, Mark, Target)> = data
        .gauges
        .iter()
        .map(|g| {
            let target = Target::Gauge {
                namespace: g.namespace.clone(),
                name: g.name.clone(),
            };
            (crate::i18n::gauge_line(tr, g), gauge_mark(g), target)
        })
        .collect();
    // Fences (NetworkPolicies): a red mark while one lets nothing in or out.
    let fences: Vec<(String, Mark, Target)> = data
        .fences
        .iter()
        .map(|f| {
            let closed = f.ingress == Some(0) || f.egress == Some(0);
            let mark = if closed { "#b03a2e" } else { "#7a5c2e" };
            let target = Target::Fence {
                namespace: f.namespace.clone(),
                name: f.name.clone(),
            };
            (crate::i18n::fence_line(tr, f), Mark::Dot(mark), target)
        })
        .collect();
    // Sorting gates (Gateways): green once programmed, amber before.
    let gates: Vec<(String, Mark, Target)> = data
        .gates
        .iter()
        .map(|g| {
            let mark = if g.programmed { "#3a7d44" } else { "#c77d1a" };
            let target = Target::Gate {
                namespace: g.namespace.clone(),
                name: g.name.clone(),
            };
            (crate::i18n::gate_line(tr, g), Mark::Dot(mark), target)
        })
        .collect();
    let mut y = r.y + DESK_TITLE_H;
    let mut drawn = Vec::new();
    for group in [budgets, schedules, gauges, fences, gates] {
        let total = group.len();
        for (line, mark, target) in group.into_iter().take(MAX_BOARD) {
            board_line(p, r, y, &line, mark)?;
            p.hits.items.push((
                Rect {
                    x: r.x,
                    y,
                    w: r.w,
                    h: BOARD_LINE_H,
                },
                target,
            ));
            drawn.push(line);
            y += BOARD_LINE_H;
        }
        if total > MAX_BOARD {
            let more = format!("+{} {}", total - MAX_BOARD, tr.f(F::More));
            p.ctx.set_fill_style_str(MUTED);
            font(p.ctx, 11.0, false);
            text(p.ctx, &more, r.x + 22.0, y + 11.0, r.w - 30.0);
            y += BOARD_LINE_H;
        }
    }
    HOOK.with(|h| h.borrow_mut().board = drawn);
    Ok(y - (r.y + DESK_TITLE_H))
}

/// The mark before a notice-board line.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mark {
    /// A round dot of this colour.
    Dot(&'static str),
    /// A dial of this colour with its needle at `needle` (0 far left, 0.5 straight
    /// up at the aim, 1 far right).
    Gauge(&'static str, f64),
}

/// A load gauge's dial: its colour by what it does (at its aim, adding robots,
/// taking them away, not measured yet), its needle by the measured CPU against its
/// aim (twice the aim or more is far right).
fn gauge_mark(g: &warehouse_sim::views::board::GaugeView) -> Mark {
    let colour = match (g.utilization, g.direction()) {
        (None, _) => MUTED,
        (_, std::cmp::Ordering::Greater) => "#c0462b",
        (_, std::cmp::Ordering::Less) => "#3f6fb0",
        (_, std::cmp::Ordering::Equal) => "#3a7d44",
    };
    let needle = match (g.utilization, g.target_utilization) {
        (Some(u), Some(t)) if t > 0 => (u as f64 / (2.0 * f64::from(t))).clamp(0.0, 1.0),
        _ => 0.5,
    };
    Mark::Gauge(colour, needle)
}

/// One notice-board line: a mark and the text.
fn board_line(p: &Paint, r: Rect, y: f64, line: &str, mark: Mark) -> Result<(), JsValue> {
    let ctx = p.ctx;
    let (cx, cy) = (r.x + 13.0, y + 7.0);
    match mark {
        Mark::Dot(colour) => {
            ctx.set_fill_style_str(colour);
            ctx.begin_path();
            ctx.arc(cx, cy, 4.0, 0.0, TAU)?;
            ctx.fill();
        }
        Mark::Gauge(colour, needle) => {
            // A half dial standing on its flat side, and its needle from the hub.
            let (hub_y, radius) = (cy + 4.0, 7.0);
            ctx.set_fill_style_str(colour);
            ctx.begin_path();
            ctx.move_to(cx, hub_y);
            ctx.arc(cx, hub_y, radius, std::f64::consts::PI, TAU)?;
            ctx.close_path();
            ctx.fill();
            // Kept off the flat side, where it would not show.
            let angle = std::f64::consts::PI * (1.1 + 0.8 * needle);
            ctx.set_stroke_style_str(INK);
            ctx.set_line_width(1.5);
            ctx.begin_path();
            ctx.move_to(cx, hub_y);
            ctx.line_to(
                cx + (radius + 1.0) * angle.cos(),
                hub_y + (radius + 1.0) * angle.sin(),
            );
            ctx.stroke();
        }
    }
    ctx.set_fill_style_str(INK);
    font(ctx, 11.5, false);
    text(ctx, line, r.x + 22.0, y + 11.0, r.w - 30.0);
    Ok(())
}

pub(super) fn draw_desks(
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
    let board_h = draw_board(p, r, data)?;
    let (ctx, tr) = (p.ctx, p.tr);
    if lay.desks.is_empty() {
        ctx.set_fill_style_str(MUTED);
        font(ctx, 11.5, false);
        text(
            ctx,
            "kubectl expose deployment NAME --port=80",
            r.x + 8.0,
            r.y + DESK_TITLE_H + board_h + 12.0,
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

pub(super) fn draw_sheet(p: &mut Paint, s: &SheetBox, d: &DeskView) -> Result<(), JsValue> {
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
pub(super) fn draw_chart(p: &mut Paint, r: Rect, data: &FloorData) -> Result<(), JsValue> {
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
