//! What moves on the floor: robots walking from the waiting bay to their zone and
//! fading where they were deleted (from the projection's robot changes, not from a
//! comparison of snapshots), and sheets flashing when their version moved.

use super::hit::Hits;
use super::layout::{Grid, MAX_CELL};
use super::paint::{state_color, Paint};
use crate::projection::{FloorView, Place};
use std::collections::HashMap;
use std::rc::Rc;
use warehouse_sim::views::desks::{DeskView, SheetLine};
use warehouse_sim::PodView;

/// Real milliseconds a changed sheet stays highlighted.
pub const FLASH_MS: f64 = 1_500.0;

/// Real milliseconds of a robot's walk from the waiting bay to its zone.
pub const WALK_MS: f64 = 450.0;

/// Real milliseconds of a deleted robot's fade.
pub const FADE_MS: f64 = 700.0;

/// Above this many robots they are not animated one by one.
pub const ANIMATE_LIMIT: usize = 1_500;

#[derive(Default)]
pub(super) struct Anim {
    /// Robots walking from the waiting bay: `namespace/name` → (from x, from y,
    /// since).
    pub(super) walks: HashMap<String, (f64, f64, f64)>,
    /// Deleted robots fading where they stood: (x, y, cell, colour, since).
    pub(super) ghosts: Vec<(f64, f64, f64, &'static str, f64)>,
    pub(super) sheets: HashMap<String, String>,
    pub(super) lines: HashMap<String, Vec<SheetLine>>,
    /// Sheet (`namespace/name`) → (since, IPs of the lines that changed).
    pub(super) flashes: HashMap<String, (f64, Vec<String>)>,
    /// The view the robots were last painted from (the hit list says where).
    pub(super) seen_view: Option<Rc<FloorView>>,
    pub(super) seen_desks: Option<Rc<Vec<DeskView>>>,
}

impl Anim {
    /// Nothing moves: no walk, fade or flash under way.
    pub(super) fn idle(&self) -> bool {
        self.walks.is_empty() && self.ghosts.is_empty() && self.flashes.is_empty()
    }

    /// Starts what the projection says moved since the painted view: a robot that
    /// left the bay for a zone walks there from where it stood, a robot gone fades
    /// where it stood. Only for the view right after the painted one (a skipped
    /// generation, or a whole rebuild, is drawn without animation), and only while
    /// robots are few enough to follow one by one. Call before the hit list is
    /// cleared: it says where the robots stood.
    pub(super) fn follow(&mut self, view: &Rc<FloorView>, hits: &Hits, animate: bool, now: f64) {
        let Some(seen) = self.seen_view.clone() else {
            self.seen_view = Some(view.clone());
            return;
        };
        if Rc::ptr_eq(&seen, view) {
            return;
        }
        self.seen_view = Some(view.clone());
        if !animate || view.rebuilt || view.generation != seen.generation + 1 {
            return;
        }
        for c in view.changes.iter() {
            let Some((x, y, state)) = hits.robot_at(&seen, &c.from, &c.namespace, &c.name) else {
                continue;
            };
            let key = format!("{}/{}", c.namespace, c.name);
            match (&c.from, &c.to) {
                (Place::Bay, Place::Zone(_)) => {
                    self.walks.insert(key, (x, y, now));
                }
                (_, Place::Gone) => {
                    let cell = hits.cell_of(&seen, &c.from).unwrap_or(MAX_CELL);
                    self.ghosts.push((x, y, cell, state_color(state), now));
                }
                _ => {}
            }
        }
    }

    /// Notes the sheets' versions and lines when the desks are new; a sheet whose
    /// version moved (and that was known before) flashes with its changed lines.
    /// Drops the flashes that are over; says whether the desks were new.
    pub(super) fn note_sheets(&mut self, desks: &Rc<Vec<DeskView>>, now: f64) -> bool {
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

/// Deleted robots fade where they stood; walks that are over end.
pub(super) fn draw_ghosts(p: &mut Paint) {
    let (ctx, now) = (p.ctx, p.now);
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

/// Where each robot stands: its cell, or on its walk from the waiting bay.
pub(super) fn robot_origins(
    p: &mut Paint,
    grid: &Grid,
    pods: &[(usize, &PodView)],
) -> Vec<(f64, f64)> {
    let mut origins: Vec<(f64, f64)> = (0..pods.len()).map(|i| grid.cell_origin(i)).collect();
    if p.anim.walks.is_empty() {
        return origins;
    }
    for (i, (_, pod)) in pods.iter().enumerate() {
        let key = format!("{}/{}", pod.namespace, pod.name);
        if let Some(&(ox, oy, since)) = p.anim.walks.get(&key) {
            let (x, y) = origins[i];
            let t = ((p.now - since) / WALK_MS).clamp(0.0, 1.0);
            let e = 1.0 - (1.0 - t) * (1.0 - t);
            origins[i] = (ox + (x - ox) * e, oy + (y - oy) * e);
            p.busy |= t < 1.0;
        }
    }
    origins
}
