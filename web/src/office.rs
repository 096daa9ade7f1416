//! The office above the floor: the control plane and the data plane, drawn live from
//! the simulation's change feed (`Cluster::feed_since`).
//!
//! - Envelopes (API requests) cross the reception desk's three gates (badge =
//!   authentication, permission = authorization, policy = admission and validation)
//!   into the ledger vault (etcd); a refused one stops red at its gate.
//! - Each write reaching the vault sends notifications to the components that watch it
//!   (the floor manager's clerks, the dispatcher, zone supervisors, conveyor routers),
//!   and each lights up as it is told.
//! - Boxes (orders of the traffic generator) travel from the loading-dock gate through
//!   a zone's conveyor router to the robot that answers; a failed one drops red.
//!
//! [`OfficeModel`] is the pure animation state (real-time milliseconds, no browser);
//! [`Office`] reads the feed on its own animation clock, so envelopes keep moving while
//! the simulation is paused, and re-renders only while something moves.

use crate::i18n::{Lang, Names, Tr};
use crate::kubectl::Session;
use crate::narration::{self, Notable};
use crate::projection::FloorView;
use gloo_timers::callback::Interval;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use warehouse_sim::views::feed::FeedEvent;
use warehouse_sim::CollectMap;
use yew::prelude::*;

/// Real milliseconds an envelope takes from the door to the vault.
pub const ENVELOPE_MS: f64 = 1_400.0;
/// How long a refused envelope stays red at its gate.
pub const REFUSED_HOLD_MS: f64 = 3_000.0;
/// Real milliseconds a notification takes from the vault to its component.
pub const NOTIFY_MS: f64 = 700.0;
/// How long a component stays lit after a notification reaches it.
pub const LIT_MS: f64 = 900.0;
/// Real milliseconds a box takes from the gate to the robot.
pub const BOX_MS: f64 = 1_600.0;
/// How long a failed box stays visible as it drops.
pub const DROP_MS: f64 = 1_200.0;
/// At most this many of each shape in flight; the rest are counted as "+K".
pub const MAX_ENVELOPES: usize = 12;
pub const MAX_WRITES: usize = 8;
pub const MAX_BOXES: usize = 16;
/// The "+K" counters count what was left out over this window.
pub const OVERFLOW_WINDOW_MS: f64 = 3_000.0;

/// A gate of the reception desk (or the vault) where an envelope can stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Gate {
    Badge,
    Permission,
    Policy,
    Vault,
}

impl Gate {
    pub const ALL: [Gate; 4] = [Gate::Badge, Gate::Permission, Gate::Policy, Gate::Vault];

    /// The gate of a pipeline stage (`Stage::as_str`).
    pub fn of_stage(stage: &str) -> Gate {
        match stage {
            "authentication" => Gate::Badge,
            "authorization" => Gate::Permission,
            "storage" => Gate::Vault,
            _ => Gate::Policy,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Gate::Badge => "badge",
            Gate::Permission => "permission",
            Gate::Policy => "policy",
            Gate::Vault => "vault",
        }
    }

    /// Where the gate stands on the envelope's path (0 = door, 1 = vault).
    fn progress(self) -> f64 {
        match self {
            Gate::Badge => 0.28,
            Gate::Permission => 0.50,
            Gate::Policy => 0.72,
            Gate::Vault => 1.0,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    pub born: f64,
    pub user: String,
    pub what: String,
    pub code: u16,
    pub refused_at: Option<(Gate, &'static str)>,
    pub by_learner: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Notification {
    pub born: f64,
    pub what: String,
    pub to: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OrderBox {
    pub born: f64,
    /// The zone whose conveyor router it went through, if any.
    pub zone: Option<String>,
    pub pod: Option<String>,
    pub failure: Option<String>,
}

/// What the test hook reads about the office.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OfficeInfo {
    /// Requests seen in the feed since the page opened.
    pub envelopes: u64,
    pub envelopes_in_flight: usize,
    pub writes: u64,
    pub orders: u64,
    pub orders_failed: u64,
    /// Orders a fence (NetworkPolicy) dropped.
    pub orders_fenced: u64,
    /// The refused requests, newest last: `user verb target code gate`.
    pub refused: Vec<RefusedInfo>,
    pub missed: u64,
    /// The narration lines now shown.
    pub narration: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RefusedInfo {
    pub user: String,
    pub what: String,
    pub code: u16,
    pub gate: String,
    pub stage: String,
}

/// The animation state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OfficeModel {
    /// Real milliseconds since the office started.
    pub now: f64,
    pub seq: u64,
    pub envelopes: VecDeque<Envelope>,
    pub notifications: VecDeque<Notification>,
    pub boxes: VecDeque<OrderBox>,
    /// Component (feed name) → when it was last told something.
    pub lit: BTreeMap<String, f64>,
    /// Left-out envelopes, writes and boxes: (when, how many).
    pub skipped: [VecDeque<(f64, u64)>; 3],
    pub info: OfficeInfo,
    /// Notable events for the narration, newest last.
    pub notable: VecDeque<Notable>,
    /// Evicted robots not replaced yet, by their ReplicaSet (`namespace/name`): a
    /// robot the ReplicaSet clerk creates counts as a replacement only while its
    /// ReplicaSet has one here.
    pub awaiting: BTreeMap<String, std::collections::BTreeSet<String>>,
}

/// At most this many evicted robots wait for their replacement to be told.
const MAX_AWAITING: usize = 10_000;

/// The ReplicaSet of a ReplicaSet's robot (`default/web-6d4f-x7k2p` → `default/web-6d4f`):
/// the ReplicaSet controller names a pod by its `generateName`, the ReplicaSet's name
/// and a dash, plus five random characters (upstream `pkg/controller/controller_utils.go`,
/// `getPodsPrefix`).
fn replicaset_of(key: &str) -> Option<&str> {
    key.rsplit_once('-').map(|(rs, _)| rs)
}

const SKIP_ENVELOPE: usize = 0;
const SKIP_WRITE: usize = 1;
const SKIP_BOX: usize = 2;

/// A write's actor is this controller (`system:serviceaccount:kube-system:NAME`).
fn actor_is(actor: &str, controller: &str) -> bool {
    actor == controller
        || actor
            .strip_prefix("system:serviceaccount:kube-system:")
            .is_some_and(|a| a == controller)
}

/// The zone of an order's `via` (`kube-proxy on zone-a`).
fn via_zone(via: &[String]) -> Option<String> {
    via.iter()
        .find_map(|v| v.strip_prefix("kube-proxy on "))
        .map(str::to_string)
}

impl OfficeModel {
    fn skip(&mut self, which: usize, n: u64) {
        if n > 0 {
            self.skipped[which].push_back((self.now, n));
        }
    }

    /// Left out in the last [`OVERFLOW_WINDOW_MS`].
    pub fn skipped(&self, which: usize) -> u64 {
        self.skipped[which].iter().map(|(_, n)| n).sum()
    }

    /// Moves the clock to `now` and drops what has finished.
    pub fn step(&mut self, now: f64) {
        self.now = now.max(self.now);
        let now = self.now;
        self.envelopes.retain(|e| {
            let life = if e.refused_at.is_some() {
                ENVELOPE_MS * e.refused_at.map_or(1.0, |(g, _)| g.progress()) + REFUSED_HOLD_MS
            } else {
                ENVELOPE_MS
            };
            now - e.born < life
        });
        self.notifications.retain(|n| now - n.born < NOTIFY_MS);
        self.boxes.retain(|b| {
            now - b.born
                < if b.failure.is_some() {
                    BOX_MS * 0.5 + DROP_MS
                } else {
                    BOX_MS
                }
        });
        self.lit.retain(|_, at| now - *at < NOTIFY_MS + LIT_MS);
        for q in &mut self.skipped {
            while q
                .front()
                .is_some_and(|(at, _)| now - at > OVERFLOW_WINDOW_MS)
            {
                q.pop_front();
            }
        }
        self.info.envelopes_in_flight = self.envelopes.len();
    }

    /// Something is still moving (the office must be redrawn next frame).
    pub fn busy(&self) -> bool {
        !self.envelopes.is_empty()
            || !self.notifications.is_empty()
            || !self.boxes.is_empty()
            || !self.lit.is_empty()
            || self.skipped.iter().any(|q| !q.is_empty())
    }

    /// Takes in what the feed says happened. `pod_zone` finds a robot's zone.
    pub fn ingest<'a>(
        &mut self,
        missed: u64,
        next: u64,
        events: impl Iterator<Item = &'a FeedEvent>,
        pod_zone: &dyn Fn(&str) -> Option<String>,
    ) {
        self.seq = next;
        self.info.missed += missed;
        self.skip(SKIP_ENVELOPE, missed);
        let now = self.now;
        let mut evictions = Evictions::default();
        for event in events {
            match event {
                FeedEvent::Request {
                    at_ms,
                    user,
                    verb,
                    target,
                    namespace,
                    code,
                    refused_at,
                    by_learner,
                    ..
                } => {
                    // The dispatcher deletes a robot only to preempt it.
                    if user == "system:kube-scheduler" && *verb == "delete" && refused_at.is_none()
                    {
                        if let Some(name) = target.strip_prefix("pods/") {
                            let key = format!("{namespace}/{name}");
                            evictions
                                .preempted
                                .entry(pod_zone(&key))
                                .or_default()
                                .insert(key);
                        }
                    }
                    self.request_arrived(
                        *at_ms,
                        user,
                        format!("{verb} {target}"),
                        *code,
                        *refused_at,
                        *by_learner,
                    )
                }
                FeedEvent::Write {
                    actor,
                    kind,
                    name,
                    namespace,
                    change,
                    notified,
                    ..
                } => {
                    self.info.writes += 1;
                    for to in notified {
                        self.lit.insert(to.clone(), now);
                    }
                    if *kind == "Pod" {
                        let key = format!("{namespace}/{name}");
                        self.pod_written(actor, key, *change, pod_zone, &mut evictions);
                    }
                    if *kind == "Gateway" && actor.ends_with("cloud-provider-kind") {
                        self.gate_written(name);
                    }
                    if self.notifications.len() >= MAX_WRITES {
                        self.skip(SKIP_WRITE, 1);
                        continue;
                    }
                    self.notifications.push_back(Notification {
                        born: now,
                        what: format!("{kind} {name}"),
                        to: notified.clone(),
                    });
                }
                FeedEvent::Order {
                    source,
                    via,
                    pod,
                    failure,
                    ..
                } => {
                    if failure.as_deref() == Some(FENCED) {
                        self.order_fenced(source);
                    }
                    self.order_sent(via, pod, failure, pod_zone)
                }
            }
        }
        self.tell_evictions(evictions);
    }

    /// An API request: an envelope (unless too many are in flight), and a notable
    /// event when it was refused.
    fn request_arrived(
        &mut self,
        at_ms: u64,
        user: &str,
        what: String,
        code: u16,
        refused_at: Option<&'static str>,
        by_learner: bool,
    ) {
        self.info.envelopes += 1;
        let refused = refused_at.map(|s| (Gate::of_stage(s), s));
        if let Some((gate, stage)) = refused {
            self.info.refused.push(RefusedInfo {
                user: user.to_string(),
                what: what.clone(),
                code,
                gate: gate.id().to_string(),
                stage: stage.to_string(),
            });
            if self.info.refused.len() > 20 {
                self.info.refused.remove(0);
            }
            self.notable.push_back(Notable::Refused {
                at_ms,
                what: what.clone(),
                code,
                gate,
            });
        }
        // Learners' and refused envelopes always get a place.
        let keep = refused.is_some() || by_learner;
        if self.envelopes.len() >= MAX_ENVELOPES {
            if !keep {
                self.skip(SKIP_ENVELOPE, 1);
                return;
            }
            if let Some(i) = self
                .envelopes
                .iter()
                .position(|e| !e.by_learner && e.refused_at.is_none())
            {
                self.envelopes.remove(i);
                self.skip(SKIP_ENVELOPE, 1);
            }
        }
        self.envelopes.push_back(Envelope {
            born: self.now,
            user: user.to_string(),
            what,
            code,
            refused_at: refused,
            by_learner,
        });
    }

    /// A robot (`namespace/name`) written by `actor`: evicted by the taint eviction
    /// controller, or a replacement the ReplicaSet controller made for an evicted one.
    fn pod_written(
        &mut self,
        actor: &str,
        key: String,
        change: warehouse_sim::views::feed::Change,
        pod_zone: &dyn Fn(&str) -> Option<String>,
        evictions: &mut Evictions,
    ) {
        if actor_is(actor, "taint-eviction-controller")
            && change == warehouse_sim::views::feed::Change::Modified
        {
            let waiting: usize = self.awaiting.values().map(|s| s.len()).sum();
            if let Some(rs) = replicaset_of(&key) {
                if waiting < MAX_AWAITING {
                    self.awaiting
                        .entry(rs.to_string())
                        .or_default()
                        .insert(key.clone());
                }
            }
            evictions
                .by_zone
                .entry(pod_zone(&key))
                .or_default()
                .insert(key);
        } else if actor_is(actor, "replicaset-controller")
            && change == warehouse_sim::views::feed::Change::Added
        {
            // A new robot replaces an evicted one of its own ReplicaSet;
            // any other (a new Deployment, a scale-up) is no replacement.
            if let Some(rs) = replicaset_of(&key) {
                if let Some(gone) = self.awaiting.get_mut(rs) {
                    if gone.pop_first().is_some() {
                        evictions.replaced += 1;
                    }
                    if gone.is_empty() {
                        self.awaiting.remove(rs);
                    }
                }
            }
        }
    }

    /// An order of the traffic generator: a box (unless too many are in flight) on
    /// its way to the zone it went through, or to the zone of the robot that answered.
    fn order_sent(
        &mut self,
        via: &[String],
        pod: &Option<String>,
        failure: &Option<String>,
        pod_zone: &dyn Fn(&str) -> Option<String>,
    ) {
        self.info.orders += 1;
        if failure.is_some() {
            self.info.orders_failed += 1;
        }
        if self.boxes.len() >= MAX_BOXES {
            self.skip(SKIP_BOX, 1);
            return;
        }
        let zone = via_zone(via).or_else(|| pod.as_deref().and_then(pod_zone));
        self.boxes.push_back(OrderBox {
            born: self.now,
            zone,
            pod: pod.clone(),
            failure: failure.clone(),
        });
    }

    /// The Gateway controller wrote a gate's status: told once per gate (the newest
    /// write keeps the line fresh).
    fn gate_written(&mut self, name: &str) {
        self.notable
            .retain(|n| !matches!(n, Notable::Gate { name: g, .. } if g == name));
        self.notable.push_back(Notable::Gate {
            at_ms: 0,
            name: name.to_string(),
        });
        while self.notable.len() > 12 {
            self.notable.pop_front();
        }
    }

    /// An order a fence dropped: counted, and told once per traffic source (the
    /// newest drop keeps the line fresh).
    fn order_fenced(&mut self, source: &str) {
        self.info.orders_fenced += 1;
        self.notable
            .retain(|n| !matches!(n, Notable::Fenced { source: s, .. } if s == source));
        self.notable.push_back(Notable::Fenced {
            at_ms: 0,
            source: source.to_string(),
        });
        while self.notable.len() > 12 {
            self.notable.pop_front();
        }
    }

    /// Tells the evictions (one event per zone) and the replacements of one ingest,
    /// and keeps the last 12 notable events.
    fn tell_evictions(&mut self, evictions: Evictions) {
        let at_ms = 0;
        for (zone, pods) in evictions.by_zone {
            let count = pods.len();
            self.notable
                .push_back(Notable::Evicted { at_ms, zone, count });
        }
        for (zone, pods) in evictions.preempted {
            let count = pods.len();
            self.notable
                .push_back(Notable::Preempted { at_ms, zone, count });
        }
        if evictions.replaced > 0 {
            self.notable.push_back(Notable::Replaced {
                at_ms,
                count: evictions.replaced,
            });
        }
        while self.notable.len() > 12 {
            self.notable.pop_front();
        }
    }
}

/// The robots evicted (by zone) and replaced within one [`OfficeModel::ingest`].
#[derive(Default)]
struct Evictions {
    by_zone: BTreeMap<Option<String>, std::collections::BTreeSet<String>>,
    /// Robots the dispatcher preempted for a more important one, by zone.
    preempted: BTreeMap<Option<String>, std::collections::BTreeSet<String>>,
    replaced: usize,
}

/// A station that notifications fly to: its feed name and its label.
struct Station {
    id: String,
    x: f64,
    y: f64,
}

const W: f64 = 1000.0;
const H: f64 = 330.0;
const PATH_Y: f64 = 92.0;
const DOOR_X: f64 = 30.0;
const VAULT_X: f64 = 400.0;
const STATION_X0: f64 = 470.0;
const STATION_W: f64 = 102.0;
const STATION_H: f64 = 24.0;
const DOCK_Y: f64 = 210.0;

/// The clerks of the floor manager, by their controller's name.
pub const CLERKS: [&str; 20] = [
    "deployment-controller",
    "replicaset-controller",
    "daemonset-controller",
    "job-controller",
    "node-lifecycle-controller",
    "taint-eviction-controller",
    "endpointslice-controller",
    "endpoint-controller",
    "garbage-collector",
    "pod-garbage-collector",
    "namespace-controller",
    "service-account-controller",
    "resourcequota-controller",
    "ttl-after-finished-controller",
    "disruption-controller",
    "cronjob-controller",
    "statefulset-controller",
    "persistentvolume-binder-controller",
    "local-path-provisioner",
    "horizontal-pod-autoscaler",
];

fn stations(view: &FloorView) -> Vec<Station> {
    let mut ids: Vec<String> = CLERKS.iter().map(|s| s.to_string()).collect();
    ids.push("kube-scheduler".into());
    for n in &view.nodes {
        ids.push(format!("kubelet:{}", n.name));
    }
    ids.push("kube-proxy".into());
    ids.push("coredns".into());
    ids.push("ingress-nginx".into());
    let cols = 5;
    ids.into_iter()
        .enumerate()
        .map(|(i, id)| Station {
            id,
            x: STATION_X0 + (i % cols) as f64 * (STATION_W + 4.0),
            y: 22.0 + (i / cols) as f64 * (STATION_H + 6.0),
        })
        .collect()
}

/// A station's label.
pub fn station_label(tr: Tr, id: &str) -> String {
    let warehouse = tr.names == Names::Warehouse;
    let ru = tr.lang == Lang::Ru;
    if let Some(node) = id.strip_prefix("kubelet:") {
        if node == "control-plane" {
            return match (warehouse, ru) {
                (true, false) => "supervisor office".into(),
                (true, true) => "супервайзер конторы".into(),
                (false, _) => "kubelet cp".into(),
            };
        }
        return match (warehouse, ru) {
            (true, false) => format!("supervisor {node}"),
            (true, true) => format!("супервайзер {node}"),
            (false, _) => format!("kubelet {node}"),
        };
    }
    if !warehouse {
        return id.to_string();
    }
    let (en, ruw) = match id {
        "kube-scheduler" => ("dispatcher", "диспетчер"),
        "kube-proxy" => ("conveyor routers", "маршрутизаторы"),
        "coredns" => ("directory board", "справочная"),
        "ingress-nginx" => ("dock gate", "ворота дока"),
        other => {
            return crate::i18n::clerk(tr.lang, other).map_or_else(|| other.to_string(), capitalize)
        }
    };
    if ru { ruw } else { en }.to_string()
}

/// `учётчик зон` → `Учётчик зон` (a station's label starts with a capital).
fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

fn gate_label(tr: Tr, gate: Gate) -> &'static str {
    let texts = match gate {
        Gate::Badge => ["badge", "authn", "пропуск", "authn"],
        Gate::Permission => ["permission", "authz", "разрешение", "authz"],
        Gate::Policy => ["policy", "admission", "правила", "admission"],
        Gate::Vault => ["ledger vault", "etcd", "хранилище журнала", "etcd"],
    };
    match (tr.lang, tr.names) {
        (Lang::En, Names::Warehouse) => texts[0],
        (Lang::En, Names::Kubernetes) => texts[1],
        (Lang::Ru, Names::Warehouse) => texts[2],
        (Lang::Ru, Names::Kubernetes) => texts[3],
    }
}

fn ease(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn envelope_shape(x: f64, y: f64, fill: &str, stroke: &str) -> Html {
    let flap = format!(
        "M{:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1}",
        x - 12.0,
        y - 8.0,
        x,
        y + 1.0,
        x + 12.0,
        y - 8.0
    );
    html! {
        <>
            <rect x={format!("{:.1}", x - 12.0)} y={format!("{:.1}", y - 8.0)} width="24" height="16"
                  rx="1" fill={fill.to_string()} stroke={stroke.to_string()} stroke-width="1.2" />
            <path d={flap} fill="none" stroke={stroke.to_string()} stroke-width="1" />
        </>
    }
}

fn box_shape(x: f64, y: f64, fill: &str) -> Html {
    html! {
        <>
            <rect x={format!("{:.1}", x - 7.0)} y={format!("{:.1}", y - 7.0)} width="14" height="14"
                  fill={fill.to_string()} stroke="#5b3a1a" stroke-width="1" />
            <line x1={format!("{:.1}", x)} y1={format!("{:.1}", y - 7.0)} x2={format!("{:.1}", x)}
                  y2={format!("{:.1}", y + 7.0)} stroke="#e8d3a8" stroke-width="2" />
        </>
    }
}

/// Where the conveyor routers stand, and the robots under them.
const ROUTER_Y: f64 = DOCK_Y + 30.0;
const ROBOT_Y: f64 = DOCK_Y + 90.0;

/// The component `name` is running (or not on the strip at all).
fn component_up(view: &FloorView, name: &str) -> bool {
    view.components
        .iter()
        .find(|c| c.name == name)
        .is_none_or(|c| c.running)
}

/// Where a gate stands on the envelopes' path.
fn gate_x(gate: Gate) -> f64 {
    DOOR_X + (VAULT_X - DOOR_X) * gate.progress()
}

/// A gate of the reception desk (or the vault), greyed while its component is down.
fn gate_node(g: Gate, tr: Tr, focus: Option<&str>, apiserver_up: bool, etcd_up: bool) -> Html {
    let x = gate_x(g);
    let up = if g == Gate::Vault {
        etcd_up
    } else {
        apiserver_up
    };
    let class = classes!(
        "office-gate",
        (!up).then_some("down"),
        (focus == Some("desk") && g != Gate::Vault).then_some("focus")
    );
    let (w, h) = if g == Gate::Vault {
        (70.0, 70.0)
    } else {
        (44.0, 56.0)
    };
    html! {
        <g class={class} data-gate={g.id()}>
            <rect x={format!("{:.1}", x - w / 2.0)} y={format!("{:.1}", PATH_Y - h / 2.0)}
                  width={w.to_string()} height={h.to_string()} rx="4" />
            <text x={format!("{x:.1}")} y={format!("{:.1}", PATH_Y - h / 2.0 - 5.0)}
                  text-anchor="middle" class="office-label">{ gate_label(tr, g) }</text>
        </g>
    }
}

/// An envelope on its way to the vault at the real time `now`, or stopped red at the
/// gate that refused it.
fn envelope_node(e: &Envelope, now: f64, tr: Tr) -> Html {
    let age = now - e.born;
    let (x, fill, stroke, class) = match e.refused_at {
        Some((gate, _)) => {
            let stop = gate.progress();
            let t = ease(age / (ENVELOPE_MS * stop)) * stop;
            let at_gate = t >= stop - 1e-6;
            let x = DOOR_X + (VAULT_X - DOOR_X) * t;
            if at_gate {
                (x - 36.0, "#fde2e2", "#c0392b", "envelope refused")
            } else {
                (x, "#fffaf0", "#8a6d3b", "envelope")
            }
        }
        None => {
            let x = DOOR_X + (VAULT_X - DOOR_X) * ease(age / ENVELOPE_MS);
            (
                x,
                "#fffaf0",
                if e.by_learner { "#1f5fa8" } else { "#8a6d3b" },
                "envelope",
            )
        }
    };
    let y = PATH_Y + if e.by_learner { -14.0 } else { 14.0 };
    let title = match e.refused_at {
        Some((_, stage)) => format!(
            "{} — {} {} ({})",
            tr.user(&e.user),
            e.what,
            e.code,
            tr.stage(stage)
        ),
        None => format!("{} — {} {}", tr.user(&e.user), e.what, e.code),
    };
    let label = e.refused_at.map(|_| {
        html! {
            <text x={format!("{x:.1}")} y={format!("{:.1}", y + 22.0)} text-anchor="middle"
                  class="office-refused-label">{ e.code }</text>
        }
    });
    html! {
        <g class={class} data-code={e.code.to_string()}
           data-gate={e.refused_at.map(|(g, _)| g.id())}
           data-learner={e.by_learner.to_string()}>
            <title>{ title }</title>
            { envelope_shape(x, y, fill, stroke) }
            { for label }
        </g>
    }
}

/// A station of the office staff, lit while a notification has just reached it.
fn station_node(s: &Station, model: &OfficeModel, tr: Tr, focus: Option<&str>) -> Html {
    let lit = model
        .lit
        .get(&s.id)
        .is_some_and(|at| model.now - at >= NOTIFY_MS * 0.8);
    let class = classes!(
        "office-station",
        lit.then_some("lit"),
        (focus == Some(s.id.as_str())).then_some("focus")
    );
    html! {
        <g class={class} data-station={s.id.clone()}>
            <title>{ s.id.clone() }</title>
            <rect x={format!("{:.1}", s.x)} y={format!("{:.1}", s.y)} width={STATION_W.to_string()}
                  height={STATION_H.to_string()} rx="3" />
            <text x={format!("{:.1}", s.x + STATION_W / 2.0)} y={format!("{:.1}", s.y + 16.0)}
                  text-anchor="middle" class="office-station-label">{ station_label(tr, &s.id) }</text>
        </g>
    }
}

/// The notifications in flight from the vault to the stations that watch.
fn sparks<'a>(model: &'a OfficeModel, stations: &'a [Station]) -> impl Iterator<Item = Html> + 'a {
    let vault = (VAULT_X, PATH_Y);
    model.notifications.iter().flat_map(move |n| {
        let t = ease((model.now - n.born) / NOTIFY_MS);
        n.to
            .iter()
            .filter_map(|to| stations.iter().find(|s| &s.id == to))
            .map(move |s| {
                let (tx, ty) = (s.x + 8.0, s.y + STATION_H / 2.0);
                let x = vault.0 + (tx - vault.0) * t;
                let y = vault.1 + (ty - vault.1) * t;
                html! { <circle class="notify" cx={format!("{x:.1}")} cy={format!("{y:.1}")} r="4" /> }
            })
            .collect::<Vec<_>>()
    })
}

/// Where a worker zone's conveyor router stands, among `zones`.
fn zone_x(zones: &[&str], z: &str) -> f64 {
    let i = zones.iter().position(|n| *n == z).unwrap_or(0) as f64;
    let span = (W - 260.0) / zones.len().max(1) as f64;
    230.0 + span * (i + 0.5)
}

/// A zone's conveyor router, its conveyors and its robots.
fn router_node(z: &str, x: f64, tr: Tr) -> Html {
    let ru = tr.lang == Lang::Ru;
    let label = if tr.names == Names::Warehouse {
        if ru {
            format!("маршрутизатор {z}")
        } else {
            format!("router {z}")
        }
    } else {
        format!("kube-proxy {z}")
    };
    let robots = if tr.names == Names::Warehouse {
        if ru {
            format!("роботы {z}")
        } else {
            format!("robots {z}")
        }
    } else {
        format!("pods {z}")
    };
    let (router_y, robot_y) = (ROUTER_Y, ROBOT_Y);
    html! {
        <g class="office-router" data-zone={z.to_string()}>
            <line x1="130" y1={format!("{router_y:.1}")} x2={format!("{x:.1}")} y2={format!("{router_y:.1}")} class="conveyor" />
            <line x1={format!("{x:.1}")} y1={format!("{router_y:.1}")} x2={format!("{x:.1}")} y2={format!("{robot_y:.1}")} class="conveyor" />
            <circle cx={format!("{x:.1}")} cy={format!("{router_y:.1}")} r="12" class="router" />
            <text x={format!("{x:.1}")} y={format!("{:.1}", router_y - 16.0)} text-anchor="middle" class="office-label">{ label }</text>
            <rect x={format!("{:.1}", x - 45.0)} y={format!("{:.1}", robot_y - 2.0)} width="90" height="18" rx="3" class="office-robots" />
            <text x={format!("{x:.1}")} y={format!("{:.1}", robot_y + 11.0)} text-anchor="middle" class="office-station-label">{ robots }</text>
        </g>
    }
}

/// The failure name of an order a NetworkPolicy dropped (`FailureReason::PolicyDenied`).
const FENCED: &str = "network-policy";

/// A box on its way from the dock gate to the router at `tx` and down to the robots,
/// or dropping red when it failed.
fn box_node(b: &OrderBox, now: f64, tx: f64, tr: Tr) -> Html {
    let age = now - b.born;
    let (router_y, robot_y) = (ROUTER_Y, ROBOT_Y);
    let (x, y, fill, class) = match &b.failure {
        Some(_) => {
            let t = ease(age / (BOX_MS * 0.5));
            let x = 140.0 + (tx - 140.0) * t * 0.5;
            let drop = ((age - BOX_MS * 0.5) / DROP_MS).clamp(0.0, 1.0);
            (x, router_y + drop * 55.0, "#e74c3c", "order failed")
        }
        None => {
            let t = (age / BOX_MS).clamp(0.0, 1.0);
            if t < 0.65 {
                let u = t / 0.65;
                (140.0 + (tx - 140.0) * u, router_y, "#c8924f", "order")
            } else {
                let u = (t - 0.65) / 0.35;
                (tx, router_y + (robot_y - router_y) * u, "#c8924f", "order")
            }
        }
    };
    let title = match (&b.failure, &b.pod) {
        (Some(f), _) => f.clone(),
        (None, Some(p)) => p.clone(),
        _ => String::new(),
    };
    // A fence's drop, said in the floor's words.
    let fenced = b.failure.as_deref() == Some(FENCED);
    let label = b.failure.as_ref().map(|f| {
        let f = match (fenced, tr.names, tr.lang) {
            (true, Names::Warehouse, Lang::En) => "stopped at a fence",
            (true, Names::Warehouse, Lang::Ru) => "остановлен ограждением",
            _ => f.as_str(),
        };
        html! {
            <text x={format!("{x:.1}")} y={format!("{:.1}", y + 20.0)} text-anchor="middle" class="office-refused-label">{ f }</text>
        }
    });
    let class = if fenced { "order failed fenced" } else { class };
    html! {
        <g class={class}><title>{ title }</title>{ box_shape(x, y, fill) }{ for label }</g>
    }
}

/// A "+K" counter of what was left out, when anything was.
fn plus(n: u64, x: f64, y: f64, id: &'static str) -> Option<Html> {
    (n > 0).then(|| html! {
        <text class="office-plus" data-plus={id} x={format!("{x:.1}")} y={format!("{y:.1}")}>{ format!("+{n}") }</text>
    })
}

/// The loading-dock gate's label.
fn dock_label(tr: Tr) -> &'static str {
    if tr.names == Names::Warehouse {
        if tr.lang == Lang::Ru {
            "ворота дока"
        } else {
            "loading-dock gate"
        }
    } else {
        "Ingress / LB / NodePort"
    }
}

/// The titles of the control plane and of the data plane.
fn plane_titles(tr: Tr) -> (&'static str, &'static str) {
    if tr.lang == Lang::Ru {
        (
            "Плоскость управления: конверты-запросы",
            "Плоскость данных: коробки-заказы",
        )
    } else {
        (
            "Control plane: envelopes (API requests)",
            "Data plane: boxes (orders)",
        )
    }
}

/// Draws the office from the model and the view.
pub fn render(model: &OfficeModel, view: &FloorView, tr: Tr, focus: Option<&str>) -> Html {
    let apiserver_up = component_up(view, "kube-apiserver");
    let etcd_up = component_up(view, "etcd");
    let gates = Gate::ALL
        .iter()
        .map(|&g| gate_node(g, tr, focus, apiserver_up, etcd_up));
    let desk_label = crate::i18n::Tr::t(tr, crate::i18n::Key::Apiserver);
    let down_label = if tr.lang == Lang::Ru {
        "остановлена"
    } else {
        "stopped"
    };
    let envelopes = model
        .envelopes
        .iter()
        .map(|e| envelope_node(e, model.now, tr));
    let stations = stations(view);
    let station_nodes = stations.iter().map(|s| station_node(s, model, tr, focus));
    let sparks = sparks(model, &stations);
    // The data plane: the dock gate, one conveyor router per worker zone, its robots.
    let zones: Vec<&str> = view
        .nodes
        .iter()
        .filter(|n| !n.control_plane)
        .map(|n| n.name.as_str())
        .collect();
    let routers = zones.iter().map(|z| router_node(z, zone_x(&zones, z), tr));
    let boxes = model.boxes.iter().map(|b| {
        let tx = b
            .zone
            .as_deref()
            .map(|z| zone_x(&zones, z))
            .unwrap_or(180.0);
        box_node(b, model.now, tx, tr)
    });
    let router_y = ROUTER_Y;
    let dock = dock_label(tr);
    let (cp_title, dp_title) = plane_titles(tr);
    html! {
        <svg class="office-svg" viewBox={format!("0 0 {W} {H}")} role="img"
             aria-label={format!("{cp_title}. {dp_title}.")}>
            <text x="8" y="14" class="office-title">{ cp_title }</text>
            <text x="8" y={format!("{:.1}", DOCK_Y - 14.0)} class="office-title">{ dp_title }</text>
            <line x1={DOOR_X.to_string()} y1={PATH_Y.to_string()} x2={VAULT_X.to_string()} y2={PATH_Y.to_string()} class="office-path" />
            <text x={DOOR_X.to_string()} y={format!("{:.1}", PATH_Y + 46.0)} class="office-label">{ desk_label }</text>
            if !apiserver_up {
                <text x="150" y={format!("{:.1}", PATH_Y + 46.0)} class="office-down">{ down_label }</text>
            }
            { for gates }
            { for station_nodes }
            { for sparks }
            { for envelopes }
            { for plus(model.skipped(SKIP_ENVELOPE), 8.0, PATH_Y - 30.0, "envelopes") }
            { for plus(model.skipped(SKIP_WRITE), VAULT_X + 40.0, PATH_Y + 40.0, "writes") }
            <line x1="0" y1={format!("{:.1}", DOCK_Y - 30.0)} x2={W.to_string()} y2={format!("{:.1}", DOCK_Y - 30.0)} class="office-divider" />
            <g class="office-dock">
                <rect x="20" y={format!("{:.1}", router_y - 25.0)} width="110" height="50" rx="4" />
                <text x="75" y={format!("{:.1}", router_y + 4.0)} text-anchor="middle" class="office-label">{ dock }</text>
            </g>
            { for routers }
            { for boxes }
            { for plus(model.skipped(SKIP_BOX), 20.0, router_y + 45.0, "boxes") }
        </svg>
    }
}

#[derive(Properties)]
pub struct OfficeProps {
    pub session: Rc<RefCell<Session>>,
    pub view: Rc<FloorView>,
    pub tr: Tr,
    pub info: Rc<RefCell<OfficeInfo>>,
    /// The station an interview walkthrough's moment lights (`kube-scheduler`,
    /// `kubelet:zone-a`; `desk` for the reception desk's gates).
    #[prop_or_default]
    pub focus: Option<AttrValue>,
    /// The warehouse shown (`AppState::epoch`): a new one starts the office and the
    /// narration over, so nothing of another cluster's record is told as news.
    #[prop_or_default]
    pub epoch: u64,
}

impl PartialEq for OfficeProps {
    fn eq(&self, other: &Self) -> bool {
        // The stations and their lights: the zones and the strip, not the log.
        self.view.same_floor(&other.view)
            && self.tr == other.tr
            && self.focus == other.focus
            && self.epoch == other.epoch
    }
}

/// How often the narration is rebuilt and the live region may speak (real ms).
const NARRATION_EVERY_MS: f64 = 500.0;
const LIVE_EVERY_MS: f64 = 8_000.0;

struct Live {
    model: OfficeModel,
    start: f64,
    lines: Vec<String>,
    narrated_at: f64,
    spoken: String,
    spoken_at: f64,
    zones: BTreeMap<String, bool>,
    started: bool,
    /// The warehouse this was read from (`OfficeProps::epoch`).
    epoch: u64,
    /// The language and names the lines were written in.
    narrated_tr: Option<Tr>,
}

impl Live {
    fn new(start: f64, epoch: u64) -> Live {
        Live {
            model: OfficeModel::default(),
            start,
            lines: Vec::new(),
            narrated_at: f64::NEG_INFINITY,
            spoken: String::new(),
            spoken_at: f64::NEG_INFINITY,
            zones: BTreeMap::new(),
            started: false,
            epoch,
            narrated_tr: None,
        }
    }

    /// Forgets everything read from another warehouse: its feed position, its
    /// envelopes and notable events, what its zones were.
    fn start_over(&mut self, epoch: u64) {
        let start = self.start;
        *self = Live::new(start, epoch);
    }
}

/// Reads the feed into the model (and the narration) at the real time `now`.
fn pump(live: &mut Live, session: &Session, view: &FloorView, tr: Tr, now: f64) {
    let cluster = &session.cluster;
    let feed = cluster.feed_since(live.model.seq);
    // Robot → zone, built once per pump and only when an order needs it (not a scan
    // of every pod per order).
    let zones_by_pod: std::cell::OnceCell<BTreeMap<String, String>> = Default::default();
    let pod_zone = |key: &str| -> Option<String> {
        zones_by_pod
            .get_or_init(|| {
                view.nodes
                    .iter()
                    .flat_map(|n| {
                        n.pods
                            .iter()
                            .map(|p| (format!("{}/{}", p.namespace, p.name), n.name.clone()))
                    })
                    .collect_map()
            })
            .get(key)
            .cloned()
    };
    live.model.step(now);
    if !live.started {
        // What happened before the page opened (the settling) is history, not news.
        live.started = true;
        live.model.seq = feed.next;
    } else {
        live.model
            .ingest(feed.missed, feed.next, feed.events, &pod_zone);
    }
    for n in &view.nodes {
        let ready = n.health == warehouse_sim::ZoneHealth::Ready;
        let before = live.zones.insert(n.name.clone(), ready);
        if before == Some(true) && !ready {
            live.model.notable.push_back(Notable::NotReady {
                at_ms: view.time_ms,
                zone: n.name.clone(),
            });
        }
    }
    // Stamp the notable events of this pump with the simulated time.
    for n in live.model.notable.iter_mut() {
        n.stamp(view.time_ms);
    }
    // A language switch is said again at once, not half a second later.
    if now - live.narrated_at >= NARRATION_EVERY_MS
        || live.lines.is_empty()
        || live.narrated_tr != Some(tr)
    {
        live.narrated_at = now;
        live.narrated_tr = Some(tr);
        let countdowns = cluster.countdowns();
        let down: Vec<(String, bool)> = view
            .nodes
            .iter()
            .filter(|n| n.killed || n.health != warehouse_sim::ZoneHealth::Ready)
            .map(|n| (n.name.clone(), n.health != warehouse_sim::ZoneHealth::Ready))
            .collect();
        live.lines = narration::lines(tr, view.time_ms, &countdowns, &live.model.notable, &down);
        live.model.info.narration = live.lines.clone();
    }
}

#[function_component]
pub fn Office(props: &OfficeProps) -> Html {
    let live = use_mut_ref(|| Live::new(js_sys::Date::now(), props.epoch));
    let redraw = use_force_update();
    // Keep the latest props for the animation clock.
    let latest = use_mut_ref(|| (props.view.clone(), props.tr, props.epoch));
    *latest.borrow_mut() = (props.view.clone(), props.tr, props.epoch);
    if live.borrow().epoch != props.epoch {
        live.borrow_mut().start_over(props.epoch);
    }
    {
        let live = live.clone();
        let session = props.session.clone();
        let info = props.info.clone();
        let latest = latest.clone();
        use_effect_with((), move |_| {
            let interval = Interval::new(crate::app::FRAME_MS, move || {
                let Ok(session) = session.try_borrow() else {
                    return;
                };
                let (view, tr, epoch) = latest.borrow().clone();
                let mut l = live.borrow_mut();
                if l.epoch != epoch {
                    l.start_over(epoch);
                }
                let now = js_sys::Date::now() - l.start;
                let before = (l.model.seq, l.lines.clone());
                pump(&mut l, &session, &view, tr, now);
                if let Ok(mut i) = info.try_borrow_mut() {
                    *i = l.model.info.clone();
                }
                let changed = before != (l.model.seq, l.lines.clone());
                if changed || l.model.busy() {
                    drop(l);
                    redraw.force_update();
                }
            });
            move || drop(interval)
        });
    }
    let mut l = live.borrow_mut();
    let tr = props.tr;
    // The live region speaks the first line at most every few seconds.
    let now = js_sys::Date::now() - l.start;
    if let Some(first) = l.lines.first().cloned() {
        if first != l.spoken && now - l.spoken_at >= LIVE_EVERY_MS {
            l.spoken = first;
            l.spoken_at = now;
        }
    }
    let svg = render(&l.model, &props.view, tr, props.focus.as_deref());
    let heading = narration::heading(tr);
    html! {
        <section class="office panel" aria-labelledby="office-heading">
            <h2 id="office-heading">{ heading }</h2>
            <div class="office-wrap">{ svg }</div>
            <ul id="narration" class="narration">
                { for l.lines.iter().map(|line| html! { <li>{ line }</li> }) }
            </ul>
            <div id="narration-live" class="visually-hidden" aria-live="polite" role="status">{ l.spoken.clone() }</div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warehouse_sim::views::feed::Change;

    fn request(user: &str, refused: Option<&'static str>) -> FeedEvent {
        FeedEvent::Request {
            at_ms: 0,
            user: user.into(),
            verb: "create",
            target: "deployments/x".into(),
            namespace: "default".into(),
            code: if refused.is_some() { 403 } else { 201 },
            refused_at: refused,
            stages: Vec::new(),
            by_learner: warehouse_sim::apiserver::user_is_learner(user),
        }
    }

    #[test]
    fn envelopes_are_capped_but_learners_and_refused_always_show() {
        let mut m = OfficeModel::default();
        let many: Vec<FeedEvent> = (0..40)
            .map(|_| request("system:node:zone-a", None))
            .collect();
        m.ingest(0, 40, many.iter(), &|_| None);
        assert_eq!(m.envelopes.len(), MAX_ENVELOPES);
        assert_eq!(m.skipped(SKIP_ENVELOPE), 40 - MAX_ENVELOPES as u64);
        let mine = [request("jane", Some("authorization"))];
        m.ingest(0, 41, mine.iter(), &|_| None);
        assert_eq!(m.envelopes.len(), MAX_ENVELOPES);
        let last = m.envelopes.back().unwrap();
        assert_eq!(last.refused_at, Some((Gate::Permission, "authorization")));
        assert_eq!(m.info.refused[0].gate, "permission");
        // Done envelopes leave; the refused one waits at its gate a while.
        m.step(ENVELOPE_MS + 1.0);
        assert_eq!(m.envelopes.len(), 1);
        m.step(ENVELOPE_MS + REFUSED_HOLD_MS + 1.0);
        assert!(m.envelopes.is_empty());
        m.step(ENVELOPE_MS + REFUSED_HOLD_MS + OVERFLOW_WINDOW_MS + 2.0);
        assert!(!m.busy());
    }

    #[test]
    fn writes_light_their_watchers_and_orders_find_their_zone() {
        let mut m = OfficeModel::default();
        let events = [
            FeedEvent::Write {
                at_ms: 0,
                revision: 5,
                actor: "system:serviceaccount:kube-system:taint-eviction-controller".into(),
                kind: "Pod",
                namespace: "default".into(),
                name: "web-1".into(),
                change: Change::Modified,
                notified: vec!["replicaset-controller".into(), "kubelet:zone-b".into()],
                detail: None,
            },
            FeedEvent::Order {
                at_ms: 0,
                source: "shop".into(),
                via: vec!["kube-proxy on zone-a".into()],
                pod: Some("default/web-2".into()),
                failure: None,
            },
            FeedEvent::Order {
                at_ms: 0,
                source: "shop".into(),
                via: vec![],
                pod: None,
                failure: Some("timeout".into()),
            },
        ];
        m.ingest(0, 3, events.iter(), &|_| Some("zone-b".into()));
        assert!(m.lit.contains_key("kubelet:zone-b"));
        assert_eq!(m.boxes[0].zone.as_deref(), Some("zone-a"));
        assert_eq!(m.info.orders_failed, 1);
        assert!(matches!(
            m.notable.back(),
            Some(Notable::Evicted { count: 1, .. })
        ));
    }
    fn pod_write(actor: &str, name: &str, change: Change) -> FeedEvent {
        FeedEvent::Write {
            at_ms: 0,
            revision: 5,
            actor: actor.into(),
            kind: "Pod",
            namespace: "default".into(),
            name: name.into(),
            change,
            notified: vec![],
            detail: None,
        }
    }

    #[test]
    fn only_robots_made_for_evicted_ones_are_told_as_replacements() {
        let mut m = OfficeModel::default();
        // A brand-new Deployment's robots replace nothing.
        let new: Vec<FeedEvent> = (0..10)
            .map(|i| {
                pod_write(
                    "replicaset-controller",
                    &format!("web-6d4f-a{i}"),
                    Change::Added,
                )
            })
            .collect();
        m.ingest(0, 10, new.iter(), &|_| Some("zone-a".into()));
        assert!(
            !m.notable
                .iter()
                .any(|n| matches!(n, Notable::Replaced { .. })),
            "{:?}",
            m.notable
        );
        // Two evicted from zone-b, then three new robots of their ReplicaSet and one
        // of another: two replacements.
        let evict = "system:serviceaccount:kube-system:taint-eviction-controller";
        let events = [
            pod_write(evict, "web-6d4f-a1", Change::Modified),
            pod_write(evict, "web-6d4f-a2", Change::Modified),
            pod_write(evict, "web-6d4f-a2", Change::Modified),
            pod_write("replicaset-controller", "web-6d4f-b1", Change::Added),
            pod_write("replicaset-controller", "web-6d4f-b2", Change::Added),
            pod_write("replicaset-controller", "web-6d4f-b3", Change::Added),
            pod_write("replicaset-controller", "api-77c9-c1", Change::Added),
        ];
        m.ingest(0, 17, events.iter(), &|_| Some("zone-b".into()));
        let told: Vec<_> = m.notable.iter().cloned().collect();
        assert!(told.contains(&Notable::Evicted {
            at_ms: 0,
            zone: Some("zone-b".into()),
            count: 2
        }));
        assert!(
            told.contains(&Notable::Replaced { at_ms: 0, count: 2 }),
            "{told:?}"
        );
        assert!(m.awaiting.is_empty());
    }
}

#[cfg(test)]
mod feed_tests {
    use crate::state::{Action, AppState};
    use std::rc::Rc;
    use warehouse_sim::views::feed::FeedEvent;

    fn run(s: Rc<AppState>, line: &str) -> Rc<AppState> {
        yew::Reducible::reduce(s, Action::RunKubectl(line.into()))
    }

    #[test]
    fn refused_requests_and_orders_without_the_desk() {
        let s = Rc::new(AppState::default());
        let s = yew::Reducible::reduce(s, Action::Apply(crate::state::EXAMPLE_DEPLOYMENT.into()));
        let s = run(s, "sim user add jane");
        let seq = s.session.borrow().cluster.feed_since(0).next;
        let s = yew::Reducible::reduce(
            s,
            Action::Apply(
                crate::state::EXAMPLE_DEPLOYMENT.replace("name: nginx\n", "name: Bad_Name\n"),
            ),
        );
        let s = run(s, "kubectl --as=jane create deployment x --image=nginx");
        let refused: Vec<_> = s
            .session
            .borrow()
            .cluster
            .feed_since(seq)
            .events
            .filter_map(|e| match e {
                FeedEvent::Request {
                    refused_at, code, ..
                } => Some((*refused_at, *code)),
                _ => None,
            })
            .collect();
        assert!(refused.contains(&(Some("validation"), 422)), "{refused:?}");
        let s = run(
            s,
            "kubectl expose deployment nginx --port 80 --type NodePort",
        );
        let s = yew::Reducible::reduce(s, Action::Advance(30_000));
        let s = run(s, "sim traffic start shop --to svc/nginx --rps 20");
        let s = run(s, "sim stop apiserver");
        let seq = s.session.borrow().cluster.feed_since(0).next;
        let s = yew::Reducible::reduce(s, Action::Advance(5_000));
        let (mut ok, mut failed, mut requests) = (0, 0, 0);
        for e in s.session.borrow().cluster.feed_since(seq).events {
            match e {
                FeedEvent::Order { failure: None, .. } => ok += 1,
                FeedEvent::Order { .. } => failed += 1,
                FeedEvent::Request { .. } => requests += 1,
                _ => {}
            }
        }
        assert!(
            ok > 50 && failed == 0 && requests == 0,
            "{ok} {failed} {requests}"
        );
    }
}

#[cfg(test)]
mod fixes_tests {
    use crate::state::{Action, AppState, EXAMPLE_DEPLOYMENT};
    use std::rc::Rc;
    use warehouse_sim::ControlPlaneComponent;
    use yew::Reducible;

    #[test]
    fn an_apply_refused_while_the_desk_was_down_is_forgotten_when_it_starts() {
        let s = Rc::new(AppState::default());
        let s = s.reduce(Action::StopComponent(ControlPlaneComponent::ApiServer));
        let s = s.reduce(Action::Apply(EXAMPLE_DEPLOYMENT.into()));
        assert!(s.apply_result.as_ref().unwrap().error);
        let s = s.reduce(Action::StartComponent(ControlPlaneComponent::ApiServer));
        assert_eq!(s.apply_result, None);
        // A real error stays until the next apply.
        let s = s.reduce(Action::Apply("kind: [".into()));
        let s = s.reduce(Action::RunKubectl("sim stop scheduler".into()));
        let s = s.reduce(Action::RunKubectl("get pods".into()));
        assert!(s.apply_result.as_ref().unwrap().error);
    }

    #[test]
    fn only_my_requests_is_the_default_in_a_lesson_and_can_be_toggled() {
        let s = Rc::new(AppState::default());
        assert!(!s.mine_only());
        let s = s.reduce(Action::SetMineOnly(true));
        assert!(s.mine_only());
    }
}
