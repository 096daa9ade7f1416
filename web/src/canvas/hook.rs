//! What the test hook tells about the floor (`window.__warehouse.floor()`).

use super::desks::{DeskBox, DeskLayout};
use super::hit::Hits;
use super::Floor;
use crate::projection::FloorView;
use crate::target::Target;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use warehouse_sim::views::desks::{DeskView, SheetLine};
use warehouse_sim::StableSort;

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
    /// The notice board's lines (staffing minimums, then schedules, then load
    /// gauges, then fences, then sorting gates), as drawn.
    pub board: Vec<String>,
    /// The load gauges' lines as last painted, with where each was drawn (CSS
    /// pixels of the floor before zoom and pan).
    pub gauges: Vec<HookGauge>,
    /// The fences' (NetworkPolicies') lines, likewise.
    pub fences: Vec<HookGauge>,
    /// The sorting gates' (Gateways') lines, likewise.
    pub gates: Vec<HookGauge>,
    pub flashing: Vec<String>,
    pub flashing_lines: Vec<String>,
    /// The copying machines' figures as the chart writes them (`floor::chart_lines`).
    pub chart: Vec<String>,
    /// What the projection computed (`projection::Counts`): zone models recomputed,
    /// whole rebuilds, views made.
    pub projection: crate::projection::Counts,
    /// Paints of the whole floor, paints of only what changed, and the zones painted
    /// in all.
    pub full_paints: u64,
    pub partial_paints: u64,
    pub zones_painted: u64,
    /// The generation of the view last painted (`FloorView::generation`).
    pub generation: u64,
    /// The robots as the floor last painted them: zone → state → count, workload
    /// only, `unscheduled` for the bay (the shape of `__warehouse.robots()`).
    pub robots: BTreeMap<String, BTreeMap<&'static str, usize>>,
    /// The numbered crews' robots as last painted: zone, name, number and claims.
    pub crew: Vec<HookCrewRobot>,
    /// The robots with attachments (sidecar containers) as last painted: zone, name
    /// and each attachment's readiness.
    pub attached: Vec<HookAttached>,
    /// The lockers (PersistentVolumes) as last painted, with where each was drawn
    /// (CSS pixels of the floor before zoom and pan).
    pub lockers: Vec<HookLocker>,
    #[serde(skip)]
    painted: Option<Rc<FloorView>>,
}

#[derive(Clone, Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookCrewRobot {
    pub zone: String,
    pub name: String,
    pub ordinal: u32,
    pub claims: Vec<String>,
}

#[derive(Clone, Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookAttached {
    pub zone: String,
    pub name: String,
    pub attachments: Vec<bool>,
}

#[derive(Clone, Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookLocker {
    pub zone: String,
    pub name: String,
    pub claim: Option<String>,
    pub phase: String,
    /// The number on its door, if its claim ends in one.
    pub number: Option<String>,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

#[derive(Clone, Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookGauge {
    pub namespace: String,
    pub name: String,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
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
    pub(super) static HOOK: RefCell<FloorHook> = RefCell::new(FloorHook::default());
}

/// The floor as last drawn, as JSON, for the test hook.
pub fn hook_json() -> String {
    HOOK.with(|h| {
        let mut h = h.borrow_mut();
        h.rebuilds = crate::floor::rebuilds();
        h.projection = crate::projection::counts();
        h.robots = h
            .painted
            .as_ref()
            .map(|v| v.robot_counts())
            .unwrap_or_default();
        serde_json::to_string(&*h).unwrap_or_default()
    })
}

pub(super) fn line_state(l: &SheetLine) -> &'static str {
    if l.terminating {
        "terminating"
    } else if l.ready {
        "ready"
    } else {
        "not-ready"
    }
}

/// What the test hook reports of a draw: the zoom, and (when the desks are new or a
/// flash ended) the flashing sheets and the desks as drawn.
pub(super) fn report_draw(f: &Floor, fresh_desks: bool, desks: &DeskLayout, shown: &[&DeskView]) {
    HOOK.with(|h| {
        let mut h = h.borrow_mut();
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
pub(super) fn hook_desk(b: &DeskBox, d: &DeskView) -> HookDesk {
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

/// Counts a paint: of the whole floor or of `zones` changed zones; the crews and
/// lockers as painted.
pub(super) fn report_paint(view: &Rc<FloorView>, hits: &Hits, zones: usize, full: bool) {
    HOOK.with(|h| {
        let mut h = h.borrow_mut();
        h.crew = view
            .nodes
            .iter()
            .flat_map(|n| n.pods.iter().map(move |p| (n, p)))
            .filter_map(|(n, p)| {
                Some(HookCrewRobot {
                    zone: n.name.clone(),
                    name: p.name.clone(),
                    ordinal: p.ordinal?,
                    claims: p.claims.clone(),
                })
            })
            .collect();
        h.attached = view
            .nodes
            .iter()
            .flat_map(|n| n.pods.iter().map(move |p| (n, p)))
            .filter(|(_, p)| !p.attachments.is_empty())
            .map(|(n, p)| HookAttached {
                zone: n.name.clone(),
                name: p.name.clone(),
                attachments: p.attachments.clone(),
            })
            .collect();
        h.lockers = hits
            .items
            .iter()
            .filter_map(|(r, t)| match t {
                Target::Locker(name) => Some((r, name)),
                _ => None,
            })
            .filter_map(|(r, name)| {
                let (n, v) = view
                    .nodes
                    .iter()
                    .find_map(|n| Some((n, n.volumes.iter().find(|v| &v.name == name)?)))?;
                Some(HookLocker {
                    zone: n.name.clone(),
                    name: name.clone(),
                    claim: v.claim.clone(),
                    phase: v.phase.clone(),
                    number: super::paint::locker_number(v).map(str::to_string),
                    x: r.x,
                    y: r.y,
                    w: r.w,
                    h: r.h,
                })
            })
            .collect();
        // The notice board's named lines (gauges, fences) where they are drawn.
        let named = |pick: fn(&Target) -> Option<(&String, &String)>| -> Vec<HookGauge> {
            hits.items
                .iter()
                .filter_map(|(r, t)| {
                    pick(t).map(|(namespace, name)| HookGauge {
                        namespace: namespace.clone(),
                        name: name.clone(),
                        x: r.x,
                        y: r.y,
                        w: r.w,
                        h: r.h,
                    })
                })
                .collect()
        };
        h.gauges = named(|t| match t {
            Target::Gauge { namespace, name } => Some((namespace, name)),
            _ => None,
        });
        h.fences = named(|t| match t {
            Target::Fence { namespace, name } => Some((namespace, name)),
            _ => None,
        });
        h.gates = named(|t| match t {
            Target::Gate { namespace, name } => Some((namespace, name)),
            _ => None,
        });
        h.draws += 1;
        if full {
            h.full_paints += 1;
        } else {
            h.partial_paints += 1;
        }
        h.zones_painted += zones as u64;
        h.generation = view.generation;
        h.painted = Some(view.clone());
    });
}
