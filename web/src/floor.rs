//! What the floor draws besides the zones: the order desks (Services) with their
//! sheets, the robots' countdowns, and what the copying machines sent to the zones'
//! conveyor routers (kube-proxy). Rebuilt with the view, only when the cluster moved
//! (a write the view shows, a request); time alone moves `now_ms`.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;
use warehouse_sim::views::board::{BudgetView, FenceView, GateView, GaugeView, ScheduleView};
use warehouse_sim::views::countdown::{Countdown, CountdownKind};
use warehouse_sim::views::desks::DeskView;
use warehouse_sim::views::feed::FeedEvent;
use warehouse_sim::{Cluster, CollectMap};

thread_local! {
    static REBUILDS: Cell<u64> = const { Cell::new(0) };
}

/// How many times the view was rebuilt since the page loaded (the test hook's
/// `floor().rebuilds`).
pub fn rebuilds() -> u64 {
    REBUILDS.with(Cell::get)
}

/// The bootstrap Services the floor leaves out (a line counts them).
pub fn is_system_desk(d: &DeskView) -> bool {
    (d.namespace == "default" && d.name == "kubernetes")
        || (d.namespace == "kube-system" && d.name == "kube-dns")
}

/// Estimated JSON size of a legacy Endpoints object of `lines` addresses: metadata,
/// then one address (IP, node name, a targetRef with the pod's name and uid) per line.
pub fn scroll_bytes(lines: usize) -> u64 {
    600 + 250 * lines as u64
}

/// One point of the copying machines' chart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrafficSample {
    pub at_ms: u64,
    /// What every kube-proxy received in total (cumulative).
    pub objects: u64,
    pub bytes: u64,
    /// What the master scroll would have cost for the same sheet changes.
    pub scroll_objects: u64,
    pub scroll_bytes: u64,
}

/// The chart's points: at most [`TRAFFIC_POINTS`], oldest dropped.
pub const TRAFFIC_POINTS: usize = 240;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Traffic {
    pub samples: Vec<TrafficSample>,
    /// The last sheet change: what it sent and what the scroll would have.
    pub last_change: Option<(TrafficSample, TrafficSample)>,
    /// When the counters were last reset (`sim stats reset`), if they were.
    pub reset_at_ms: Option<u64>,
}

impl Traffic {
    /// The totals now: what every kube-proxy received since the counters started,
    /// the same sums as `sim stats`' kube-proxy row (OBJECTS, BYTES).
    pub fn totals(&self) -> Option<TrafficSample> {
        self.samples.last().copied()
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FloorData {
    /// Simulated now; moves every tick.
    pub now_ms: u64,
    pub desks: Rc<Vec<DeskView>>,
    /// The staffing minimums (PodDisruptionBudgets) and their counts.
    pub budgets: Rc<Vec<BudgetView>>,
    /// The schedules (CronJobs): when each last ran and runs next.
    pub schedules: Rc<Vec<ScheduleView>>,
    /// The load gauges (HorizontalPodAutoscalers): what each measured and asks for.
    pub gauges: Rc<Vec<GaugeView>>,
    /// The fences (NetworkPolicies): which robots each stands around.
    pub fences: Rc<Vec<FenceView>>,
    /// The sorting gates (Gateways): address, programmed, route cards.
    pub gates: Rc<Vec<GateView>>,
    pub countdowns: Rc<Vec<Countdown>>,
    pub traffic: Rc<Traffic>,
    /// The feed's next sequence number and the store revision at the last look.
    pub feed_seq: u64,
    pub revision: u64,
    /// The scroll estimate so far (cumulative).
    scroll: (u64, u64),
    /// Sheet changes not yet received by the conveyor routers: (the sheet's lines,
    /// the whole desk's lines).
    pending: Vec<(usize, usize)>,
}

impl FloorData {
    /// Whether anything the floor shows may have changed since the last rebuild:
    /// a write other than a lease renewal or an event, a request other than a lease
    /// renewal, or a missed feed.
    pub fn moved(&self, cluster: &Cluster) -> bool {
        if cluster.revision() == self.revision
            && cluster.feed_since(self.feed_seq).next == self.feed_seq
        {
            return false;
        }
        let since = cluster.feed_since(self.feed_seq);
        since.missed > 0
            || since.next < self.feed_seq
            || since.events.clone().any(|e| match e {
                FeedEvent::Write { kind, .. } => !matches!(*kind, "Lease" | "Event"),
                // A kubelet renewing its lease (every zone every 10 s) shows
                // nothing the desks or the countdowns draw.
                FeedEvent::Request { target, .. } => !target.starts_with("leases/"),
                FeedEvent::Order { .. } => false,
            })
            || (cluster.revision() != self.revision && since.events.len() == 0)
    }

    /// Rebuilds the desks and countdowns, and takes the new sheet changes into the
    /// chart.
    pub fn rebuild(&mut self, cluster: &Cluster) {
        REBUILDS.with(|c| c.set(c.get() + 1));
        // Unchanged lists keep their `Rc`: the canvas then repaints only the zones
        // that changed instead of the whole floor.
        let desks = cluster.desks();
        if *self.desks != desks {
            self.desks = Rc::new(desks);
        }
        let budgets = cluster.budgets();
        if *self.budgets != budgets {
            self.budgets = Rc::new(budgets);
        }
        let schedules = cluster.schedules();
        if *self.schedules != schedules {
            self.schedules = Rc::new(schedules);
        }
        let gauges = cluster.gauges();
        if *self.gauges != gauges {
            self.gauges = Rc::new(gauges);
        }
        let fences = cluster.fences();
        if *self.fences != fences {
            self.fences = Rc::new(fences);
        }
        let gates = cluster.gates();
        if *self.gates != gates {
            self.gates = Rc::new(gates);
        }
        let countdowns: Vec<Countdown> = cluster
            .countdowns()
            .into_iter()
            .filter(|c| matches!(c.kind, CountdownKind::Restart | CountdownKind::PullRetry))
            .collect();
        if *self.countdowns != countdowns {
            self.countdowns = Rc::new(countdowns);
        }
        self.tick(cluster);
    }

    /// What time alone changes: the clock, and the copying machines' counters (they
    /// receive what was written a moment after the write).
    pub fn tick(&mut self, cluster: &Cluster) {
        self.now_ms = cluster.now().0;
        let since = cluster.feed_since(self.feed_seq);
        let next = since.next;
        // The first look starts the chart: sheet changes already received before it
        // are history, not changes waiting for the routers.
        let first_look = self.traffic.samples.is_empty() && self.feed_seq == 0;
        for e in since.events.filter(|_| !first_look) {
            if let FeedEvent::Write {
                kind: "EndpointSlice",
                namespace,
                name,
                notified,
                ..
            } = e
            {
                if !notified.iter().any(|n| n == "kube-proxy") {
                    continue;
                }
                let lines = self
                    .desks
                    .iter()
                    .filter(|d| &d.namespace == namespace)
                    .find_map(|d| {
                        let sheet = d.sheets.iter().find(|s| &s.name == name)?;
                        Some((sheet.lines.len(), d.scroll_lines))
                    })
                    .unwrap_or((0, 0));
                self.pending.push(lines);
            }
        }
        self.feed_seq = next;
        self.revision = cluster.revision();
        let stats = cluster.watcher_stats();
        let proxies = stats.iter().filter(|l| l.kind == "kube-proxy");
        let count = proxies.clone().count().max(1) as u64;
        let (objects, bytes) =
            proxies.fold((0, 0), |(o, b), l| (o + l.stats.objects, b + l.stats.bytes));
        let mut last = self.traffic.samples.last().copied();
        if last.is_some_and(|l| (l.objects, l.bytes) == (objects, bytes)) {
            return;
        }
        // The counters went back (`sim stats reset`): the chart starts again from
        // them, as `sim stats` does.
        if last.is_some_and(|l| objects < l.objects || bytes < l.bytes) {
            self.traffic = Rc::new(Traffic {
                reset_at_ms: Some(self.now_ms),
                ..Traffic::default()
            });
            self.scroll = (objects, bytes);
            self.pending.clear();
            last = None;
        }
        if last.is_none() && self.scroll == (0, 0) {
            // What was received before the chart started costs the same as it was
            // (no estimate to make for it).
            self.scroll = (objects, bytes);
        }
        let (d_objects, d_bytes) = match last {
            Some(l) => (
                objects.saturating_sub(l.objects),
                bytes.saturating_sub(l.bytes),
            ),
            None => (0, 0),
        };
        // What the same changes would have cost as the master scroll: a sheet of L
        // lines out of a desk's N is resent as one scroll of N lines (the object's
        // size scaled by lines, about two lines' worth of metadata); a Service costs
        // the same either way.
        let (mut scroll_objects, mut scroll_bytes) = (d_objects, d_bytes);
        if d_objects > 0 {
            // Per router: the objects each received, the first `k` of them sheet
            // changes (each resent as a whole scroll), the rest costing the same.
            let per_proxy = (d_objects as f64 / count as f64).max(1.0);
            let k = self.pending.len().min(per_proxy.ceil() as usize);
            let ratio: f64 = self
                .pending
                .drain(..k)
                .map(|(sheet, all)| (all as f64 + 2.0) / (sheet as f64 + 2.0))
                .sum::<f64>()
                + (per_proxy - k as f64).max(0.0);
            scroll_objects = d_objects;
            // A scroll is never smaller than the sheet it replaces.
            scroll_bytes = (d_bytes as f64 * (ratio / per_proxy).max(1.0)).round() as u64;
        }
        self.scroll.0 += scroll_objects;
        self.scroll.1 += scroll_bytes;
        let sample = TrafficSample {
            at_ms: self.now_ms,
            objects,
            bytes,
            scroll_objects: self.scroll.0,
            scroll_bytes: self.scroll.1,
        };
        let traffic = Rc::make_mut(&mut self.traffic);
        if d_bytes > 0 {
            traffic.last_change = Some((
                TrafficSample {
                    at_ms: self.now_ms,
                    objects: d_objects,
                    bytes: d_bytes,
                    ..TrafficSample::default()
                },
                TrafficSample {
                    at_ms: self.now_ms,
                    objects: scroll_objects,
                    bytes: scroll_bytes,
                    ..TrafficSample::default()
                },
            ));
        }
        if traffic.samples.len() == TRAFFIC_POINTS {
            traffic.samples.remove(0);
        }
        traffic.samples.push(sample);
    }

    /// The countdown of a robot (`namespace/name`), if it waits for one.
    pub fn countdown_of(&self, pod: &str) -> Option<&Countdown> {
        self.countdowns.iter().find(|c| c.subject == pod)
    }
}

/// The copying machines' figures as the chart writes them, top to bottom: the totals
/// every conveyor router (kube-proxy) received since the counters started — the sums
/// of `sim stats`' kube-proxy row — then the master scroll's estimate for the same
/// changes, then the last change.
pub fn chart_lines(tr: crate::i18n::Tr, traffic: &Traffic) -> Vec<String> {
    use crate::i18n::{Lang, F};
    use crate::numbers::{bytes, bytes_exact, int};
    let lang = tr.lang;
    let objects = |n: u64| match lang {
        Lang::En => format!("{} object{}", int(lang, n), if n == 1 { "" } else { "s" }),
        Lang::Ru => crate::numbers::ru_count(n, "объект", "объекта", "объектов"),
    };
    let mut out = Vec::new();
    match traffic.totals() {
        Some(t) => {
            out.push(format!(
                "{}: {} · {}",
                tr.f(F::CopiersSent),
                bytes_exact(lang, t.bytes),
                objects(t.objects)
            ));
            out.push(format!(
                "{}: ≈{} · {}",
                tr.f(F::CopiersScroll),
                bytes(lang, t.scroll_bytes),
                objects(t.scroll_objects)
            ));
        }
        None => out.push(tr.f(F::CopiersNone).to_string()),
    }
    match &traffic.last_change {
        Some((sent, scroll)) => out.push(format!(
            "{}: {} · {} ({} ≈{})",
            tr.f(F::CopiersLast),
            bytes(lang, sent.bytes),
            objects(sent.objects),
            tr.f(F::Scroll),
            bytes(lang, scroll.bytes)
        )),
        None => out.push(match traffic.reset_at_ms {
            Some(at) => format!("{} {}", tr.f(F::CopiersReset), crate::i18n::clock(at)),
            None => tr.f(F::CopiersNone).to_string(),
        }),
    }
    out
}

/// The countdowns by robot, for drawing many robots.
pub fn countdowns_by_pod(list: &[Countdown]) -> BTreeMap<&str, &Countdown> {
    list.iter().map(|c| (c.subject.as_str(), c)).collect_map()
}

/// The workload a robot belongs to, from its controlling owner: a ReplicaSet's
/// Deployment (`web-66b6c48dd5` → `Deployment/web`), a Job, a DaemonSet.
pub fn owner_of(owner: Option<&str>) -> Option<String> {
    let (kind, name) = owner?.split_once('/')?;
    Some(match kind {
        "ReplicaSet" => match name.rsplit_once('-') {
            Some((deploy, hash))
                if !deploy.is_empty()
                    && !hash.is_empty()
                    && hash
                        .chars()
                        .all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c)) =>
            {
                format!("Deployment/{deploy}")
            }
            _ => format!("ReplicaSet/{name}"),
        },
        _ => format!("{kind}/{name}"),
    })
}

/// A distinct colour per workload (FNV-1a over its name into a fixed palette).
pub fn owner_color(owner: &str) -> &'static str {
    const PALETTE: [&str; 8] = [
        "#7b3fb8", "#0f8c8c", "#c2185b", "#3949ab", "#8d6e00", "#00897b", "#d84315", "#5d4037",
    ];
    let mut h: u32 = 0x811c_9dc5;
    for b in owner.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    PALETTE[(h % PALETTE.len() as u32) as usize]
}

/// Bytes for people, in the language shown: `812 B`, `14.2 KB`, `3.1 MB`;
/// `14,2 КБ` (see [`crate::numbers::bytes`]).
pub fn human_bytes(lang: crate::i18n::Lang, b: u64) -> String {
    crate::numbers::bytes(lang, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_come_from_the_replicaset_name() {
        assert_eq!(
            owner_of(Some("ReplicaSet/web-66b6c48dd5")).as_deref(),
            Some("Deployment/web")
        );
        assert_eq!(owner_of(Some("Job/pi")).as_deref(), Some("Job/pi"));
        assert_eq!(owner_of(None), None);
        assert_eq!(owner_color("Deployment/web"), owner_color("Deployment/web"));
    }

    #[test]
    fn an_idle_cluster_has_not_moved_and_a_write_moves_it() {
        let mut s = warehouse_kubectl::Session::new(Cluster::settled(1, Default::default()));
        let mut f = FloorData::default();
        f.rebuild(&s.cluster);
        assert!(!f.moved(&s.cluster));
        let out = s.run(
            "create deployment web --image=nginx:1.27 --replicas=2",
            None,
            &warehouse_kubectl::NoFiles,
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(f.moved(&s.cluster));
        f.rebuild(&s.cluster);
        assert!(!f.moved(&s.cluster));
        // A rebuild that finds the same desks keeps them (the canvas compares them
        // by pointer).
        let desks = f.desks.clone();
        f.rebuild(&s.cluster);
        assert!(Rc::ptr_eq(&desks, &f.desks));
    }

    #[test]
    fn the_chart_counts_what_sim_stats_counts_and_survives_a_reset() {
        use crate::i18n::{Lang, Names, Tr};
        let mut s = warehouse_kubectl::Session::new(Cluster::settled(1, Default::default()));
        let files = warehouse_kubectl::NoFiles;
        let mut f = FloorData::default();
        f.rebuild(&s.cluster);
        for line in [
            "create deployment web --image=nginx:1.27 --replicas=2",
            "expose deployment web --port 80",
        ] {
            assert_eq!(s.run(line, None, &files).code, 0);
        }
        s.cluster
            .advance(warehouse_sim::SimDuration::millis(30_000));
        f.rebuild(&s.cluster);
        let stats = s.run_shell("sim stats", None, &files).stdout;
        let row: Vec<&str> = stats
            .lines()
            .find(|l| {
                let mut w = l.split_whitespace();
                w.next() == Some("kube-proxy") && w.next().is_some_and(|c| c.parse::<u64>().is_ok())
            })
            .unwrap()
            .split_whitespace()
            .collect();
        let t = f.traffic.totals().unwrap();
        assert_eq!(row[2], t.objects.to_string(), "{stats}");
        assert_eq!(row[3], t.bytes.to_string(), "{stats}");
        let en = chart_lines(Tr::new(Lang::En, Names::Warehouse), &f.traffic);
        assert!(
            en[0].contains(&crate::numbers::bytes_exact(Lang::En, t.bytes)),
            "{en:?}"
        );
        // `sim stats reset`: the chart starts again at zero, nothing underflows.
        s.run_shell("sim stats reset", None, &files);
        s.cluster.advance(warehouse_sim::SimDuration::millis(1_000));
        f.tick(&s.cluster);
        let t = f.traffic.totals().unwrap();
        assert_eq!((t.objects, t.bytes), (0, 0));
        let ru = chart_lines(Tr::new(Lang::Ru, Names::Warehouse), &f.traffic);
        assert!(ru[0].contains("0\u{a0}Б · 0\u{a0}объектов"), "{ru:?}");
        assert!(ru.iter().all(|l| !l.contains("18446")), "{ru:?}");
        // A change after the reset is counted from zero.
        assert_eq!(
            s.run("scale deployment web --replicas=3", None, &files)
                .code,
            0
        );
        s.cluster
            .advance(warehouse_sim::SimDuration::millis(30_000));
        f.rebuild(&s.cluster);
        let stats = s.run_shell("sim stats", None, &files).stdout;
        let t = f.traffic.totals().unwrap();
        assert!(stats.contains(&format!(" {} ", t.bytes)), "{stats} {t:?}");
        assert!(t.bytes > 0, "the scale-up reached the routers: {t:?}");
        assert!(
            t.scroll_bytes >= t.bytes,
            "the scroll never costs less: {t:?}"
        );
    }

    #[test]
    fn bytes_read_as_people_write_them() {
        use crate::i18n::Lang;
        assert_eq!(human_bytes(Lang::En, 812), "812\u{a0}B");
        assert_eq!(human_bytes(Lang::En, 14_200), "14.2\u{a0}KB");
        assert_eq!(human_bytes(Lang::Ru, 14_200), "14,2\u{a0}КБ");
    }
}
