//! What is under the pointer: the hit list the last paint left, and the tooltip's
//! text for what was hit.

use super::layout::{Grid, Rect};
use super::paint::workload_count;
use super::Floor;
use crate::control_plane::component_key;
use crate::floor::FloorData;
use crate::i18n::{Key, Tr, F};
use crate::projection::{FloorView, Place};
use crate::target::Target;
use std::collections::BTreeMap;
use warehouse_sim::views::countdown::CountdownKind;
use warehouse_sim::{RobotState, ZoneHealth};

#[derive(Default)]
pub(super) struct Hits {
    pub(super) items: Vec<(Rect, Target)>,
    pub(super) robots: Vec<RobotHit>,
}

pub(super) struct RobotHit {
    pub(super) grid: Grid,
    pub(super) node: Option<usize>,
    /// Index into the zone's (or bay's) pods, per cell.
    pub(super) idx: Vec<usize>,
}

impl Hits {
    /// The grid a place's robots were painted in (a zone by its name, or the bay).
    fn grid_of(&self, view: &FloorView, place: &Place) -> Option<&RobotHit> {
        let node = match place {
            Place::Bay => None,
            Place::Zone(name) => Some(view.nodes.iter().position(|n| &n.name == name)?),
            Place::Gone => return None,
        };
        self.robots.iter().find(|h| h.node == node)
    }

    /// Where a robot stood when `view` was painted, and its state then; `None` if it
    /// was not painted one by one (a crowded zone shows counts).
    pub(super) fn robot_at(
        &self,
        view: &FloorView,
        place: &Place,
        namespace: &str,
        name: &str,
    ) -> Option<(f64, f64, RobotState)> {
        let hit = self.grid_of(view, place)?;
        let pods = match place {
            Place::Zone(_) => &view.nodes[hit.node?].pods,
            _ => &view.unscheduled,
        };
        let i = pods
            .binary_search_by(|p| (p.namespace.as_str(), p.name.as_str()).cmp(&(namespace, name)))
            .ok()?;
        // The cells list the workload's robots in order: a search finds its cell.
        let cell = hit.idx.binary_search(&i).ok()?;
        let (x, y) = hit.grid.cell_origin(cell);
        Some((x, y, pods[i].state))
    }

    /// The size of a cell of a place's grid as painted.
    pub(super) fn cell_of(&self, view: &FloorView, place: &Place) -> Option<f64> {
        Some(self.grid_of(view, place)?.grid.cell)
    }
}

impl Floor {
    pub(super) fn hit(&self, x: f64, y: f64) -> Option<Target> {
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
pub fn describe(t: &Target, view: &FloorView, data: &FloorData, tr: Tr) -> (String, String) {
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
            for c in &pod.claims {
                line.push_str(&format!(" · {} {c}", tr.f(F::Claim)));
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
        Target::Budget { namespace, name } => {
            let line = data
                .budgets
                .iter()
                .find(|b| &b.name == name && &b.namespace == namespace)
                .map(|b| crate::i18n::budget_line(tr, b))
                .unwrap_or_default();
            (name.clone(), line)
        }
        Target::Schedule { namespace, name } => {
            let line = data
                .schedules
                .iter()
                .find(|s| &s.name == name && &s.namespace == namespace)
                .map(|s| crate::i18n::schedule_line(tr, s))
                .unwrap_or_default();
            (name.clone(), line)
        }
        Target::Gate { namespace, name } => {
            let line = data
                .gates
                .iter()
                .find(|g| &g.name == name && &g.namespace == namespace)
                .map(|g| crate::i18n::gate_line(tr, g))
                .unwrap_or_default();
            (name.clone(), line)
        }
        Target::Fence { namespace, name } => {
            let line = data
                .fences
                .iter()
                .find(|f| &f.name == name && &f.namespace == namespace)
                .map(|f| crate::i18n::fence_line(tr, f))
                .unwrap_or_default();
            (name.clone(), line)
        }
        Target::Gauge { namespace, name } => {
            let line = data
                .gauges
                .iter()
                .find(|g| &g.name == name && &g.namespace == namespace)
                .map(|g| crate::i18n::gauge_line(tr, g))
                .unwrap_or_default();
            (name.clone(), line)
        }
        Target::Locker(name) => {
            let found = view
                .nodes
                .iter()
                .find_map(|n| Some((n, n.volumes.iter().find(|v| &v.name == name)?)));
            let line = found
                .map(|(n, v)| {
                    let mut parts = vec![crate::inspector_i18n::locker_phase(tr, v).to_string()];
                    if let Some(c) = &v.claim {
                        parts.push(format!("{} {c}", tr.f(F::Claim)));
                    }
                    parts.push(v.capacity.clone());
                    parts.push(format!("{} {}", tr.f(F::Zone), n.name));
                    parts.join(" · ")
                })
                .unwrap_or_default();
            (format!("{} {name}", tr.f(F::Locker)), line)
        }
        Target::Staff(c) => (tr.t(component_key(c.name())).to_string(), String::new()),
    }
}

pub(super) fn selector_text(sel: &[(String, String)]) -> String {
    if sel.is_empty() {
        "—".into()
    } else {
        sel.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}
