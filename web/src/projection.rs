//! The floor's model of the cluster, kept up to date from the change feed
//! (`Cluster::feed_since`) the way the office reads it: one more consumer of the
//! stream, not a fresh snapshot of every pod whenever anything moves.
//!
//! [`FloorView`] holds one [`NodeView`] per zone behind an `Rc`: an update recomputes
//! only the zones a write touched (a pod written on it or leaving it, a
//! PersistentVolume tied to it written, its Node written, its kubelet killed or
//! restarted) and every other zone stays the same
//! allocation (`Rc::ptr_eq`), so the canvas repaints only the zones that changed. A
//! tick that only moves time (leases, Events) recomputes nothing and keeps the view.
//! The robots' moves between the waiting bay, the zones and nowhere are handed on as
//! [`RobotChange`]s, which the canvas animates.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::rc::Rc;
use warehouse_sim::views::feed::{Change, FeedEvent};
use warehouse_sim::{Cluster, ComponentView, NodeView, PodView, RequestView};

thread_local! {
    static COUNTS: Cell<Counts> = const { Cell::new(Counts::ZERO) };
}

/// What the projection has computed since the page loaded (the test hook's
/// `floor().projection`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Zone models recomputed from the cluster (one node's robots read again).
    pub zones_recomputed: u64,
    /// Zone models whose robots stayed but whose header (health, powered off,
    /// requests) changed.
    pub zone_headers: u64,
    /// Whole rebuilds: the first look, a feed that ran past the projection, another
    /// cluster.
    pub full_rebuilds: u64,
    /// Updates that produced a new view, and updates that kept the one there was.
    pub views: u64,
    pub unchanged: u64,
}

impl Counts {
    const ZERO: Counts = Counts {
        zones_recomputed: 0,
        zone_headers: 0,
        full_rebuilds: 0,
        views: 0,
        unchanged: 0,
    };
}

/// The counters so far.
pub fn counts() -> Counts {
    COUNTS.with(Cell::get)
}

fn count(f: impl FnOnce(&mut Counts)) {
    COUNTS.with(|c| {
        let mut v = c.get();
        f(&mut v);
        c.set(v);
    });
}

/// Where a robot is on the floor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// In the waiting bay (no zone yet).
    Bay,
    /// On this zone.
    Zone(String),
    /// Not in the cluster.
    Gone,
}

/// A robot that moved between the bay, the zones and nowhere, in the feed's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RobotChange {
    pub namespace: String,
    pub name: String,
    pub from: Place,
    pub to: Place,
}

/// What the floor and the panels beside it draw: the cluster's view, zone by zone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FloorView {
    /// Simulated milliseconds when the view last changed.
    pub time_ms: u64,
    /// The store's revision when the view last changed.
    pub revision: u64,
    pub components: Vec<ComponentView>,
    /// One model per zone (node), in the order `Cluster::view` lists them.
    pub nodes: Vec<Rc<NodeView>>,
    /// Robots without a zone, sorted by namespace and name.
    pub unscheduled: Rc<Vec<PodView>>,
    pub requests: Vec<RequestView>,
    /// The learner's own latest requests, newest first (the log's "only mine").
    pub mine_requests: Vec<RequestView>,
    /// Counts the views made: the one after `n` is `n + 1`.
    pub generation: u64,
    /// What moved between the previous generation and this one; empty after a whole
    /// rebuild (`rebuilt`), when there is nothing to animate from.
    pub changes: Rc<Vec<RobotChange>>,
    pub rebuilt: bool,
}

impl FloorView {
    /// The whole view, read from the cluster at once.
    pub fn of(cluster: &Cluster) -> FloorView {
        let mut unscheduled = cluster.unscheduled_view();
        sort_pods(&mut unscheduled);
        FloorView {
            time_ms: cluster.now().0,
            revision: cluster.revision(),
            components: cluster.components_view(),
            nodes: cluster
                .node_names()
                .iter()
                .filter_map(|n| cluster.node_view(n))
                .map(Rc::new)
                .collect(),
            unscheduled: Rc::new(unscheduled),
            requests: cluster.requests_view(),
            mine_requests: learner_requests(cluster),
            generation: 0,
            changes: Rc::default(),
            rebuilt: true,
        }
    }

    /// Robot counts per zone and state, as `ClusterView::robot_counts` gives them:
    /// workload robots only, `unscheduled` its own pseudo-zone.
    pub fn robot_counts(
        &self,
    ) -> std::collections::BTreeMap<String, std::collections::BTreeMap<&'static str, usize>> {
        warehouse_sim::views::view::robot_counts(self.nodes.iter().map(|n| &**n), &self.unscheduled)
    }

    /// The same robots as `other`: every zone and the bay are the same models
    /// (pointer-equal), as after an update that touched no robot.
    pub fn same_robots(&self, other: &FloorView) -> bool {
        Rc::ptr_eq(&self.unscheduled, &other.unscheduled)
            && self.nodes.len() == other.nodes.len()
            && self
                .nodes
                .iter()
                .zip(&other.nodes)
                .all(|(a, b)| Rc::ptr_eq(a, b))
    }

    /// The same floor as `other`: the same robots and the same control-plane strip
    /// (what the canvas and the office draw; the requests may differ).
    pub fn same_floor(&self, other: &FloorView) -> bool {
        self.same_robots(other) && self.components == other.components
    }

    /// Where a robot is in this view, and how it is drawn.
    pub fn find(&self, namespace: &str, name: &str) -> Option<(Place, &PodView)> {
        if let Ok(i) = search(&self.unscheduled, namespace, name) {
            return Some((Place::Bay, &self.unscheduled[i]));
        }
        self.nodes.iter().find_map(|n| {
            let i = search(&n.pods, namespace, name).ok()?;
            Some((Place::Zone(n.name.clone()), &n.pods[i]))
        })
    }
}

/// The learner's latest requests (kubectl, the UI, a script), newest first.
fn learner_requests(cluster: &Cluster) -> Vec<RequestView> {
    cluster
        .requests()
        .rev()
        .filter(|r| r.by_learner())
        .take(warehouse_sim::views::view::REQUESTS_IN_VIEW)
        .map(RequestView::of)
        .collect()
}

fn sort_pods(pods: &mut [PodView]) {
    use warehouse_sim::StableSort;
    pods.stable_sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
}

/// A pod's index in a list sorted by namespace and name (`Err`: where it would go).
fn search(pods: &[PodView], namespace: &str, name: &str) -> Result<usize, usize> {
    pods.binary_search_by(|p| (p.namespace.as_str(), p.name.as_str()).cmp(&(namespace, name)))
}

/// The view and where in the feed it was taken. Plain values: cloning it clones
/// `Rc`s.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Projection {
    pub view: Rc<FloorView>,
    /// The feed's next sequence number when the view was last brought up to date.
    seq: u64,
    revision: u64,
    /// Whether the view was ever built.
    built: bool,
}

impl Projection {
    /// Brings the view up to date with the cluster: reads what the feed says
    /// happened since the last look and recomputes the zones it touched. Returns
    /// whether the view changed (a new `Rc`).
    pub fn update(&mut self, cluster: &Cluster) -> bool {
        let since = cluster.feed_since(self.seq);
        // An etcd restore replaces the store without a write in the feed; its
        // revision goes back.
        let restored = cluster.revision() < self.revision;
        if !self.built || since.missed > 0 || since.next < self.seq || restored {
            self.rebuild(cluster);
            return true;
        }
        let mut touched: Vec<(&str, &str)> = Vec::new();
        let mut seen: BTreeSet<(&str, &str)> = BTreeSet::new();
        let mut volumes: BTreeSet<&str> = BTreeSet::new();
        let mut nodes_added_or_gone = false;
        let mut shown = false;
        for e in since.events.clone() {
            match e {
                FeedEvent::Write {
                    kind: "Pod",
                    namespace,
                    name,
                    ..
                } => {
                    shown = true;
                    if seen.insert((namespace, name)) {
                        touched.push((namespace, name));
                    }
                }
                FeedEvent::Write {
                    kind: "PersistentVolume",
                    name,
                    ..
                } => {
                    shown = true;
                    volumes.insert(name);
                }
                FeedEvent::Write {
                    kind: "Node",
                    change,
                    ..
                } => {
                    shown = true;
                    nodes_added_or_gone |= *change != Change::Modified;
                }
                FeedEvent::Write { kind, .. } => shown |= !matches!(*kind, "Lease" | "Event"),
                FeedEvent::Request { .. } => shown = true,
                FeedEvent::Order { .. } => {}
            }
        }
        // A write the feed could not name (it never happens today): read it all.
        if cluster.revision() != self.revision && since.events.len() == 0 {
            self.rebuild(cluster);
            return true;
        }
        let next = since.next;
        let old = self.view.clone();
        let mut view = FloorView {
            generation: old.generation + 1,
            rebuilt: false,
            changes: Rc::default(),
            ..(*old).clone()
        };
        if nodes_added_or_gone {
            let names = cluster.node_names();
            let mut zones = Vec::with_capacity(names.len());
            for n in names {
                match old.nodes.iter().find(|z| z.name == n) {
                    Some(z) => zones.push(z.clone()),
                    None => {
                        if let Some(z) = cluster.node_view(&n) {
                            count(|c| c.zones_recomputed += 1);
                            zones.push(Rc::new(z));
                        }
                    }
                }
            }
            view.nodes = zones;
        }
        let (changes, mut dirty, bay) = self.place_robots(cluster, &view, &touched);
        dirty.extend(place_volumes(cluster, &view, &volumes));
        if let Some(bay) = bay {
            view.unscheduled = Rc::new(bay);
        }
        let mut changed = !changes.is_empty() || nodes_added_or_gone;
        changed |= refresh_zones(cluster, &mut view.nodes, &dirty);
        changed |= !Rc::ptr_eq(&view.unscheduled, &old.unscheduled);
        let components = cluster.components_view();
        if components != view.components {
            view.components = components;
            changed = true;
        }
        if shown {
            view.requests = cluster.requests_view();
            view.mine_requests = learner_requests(cluster);
        }
        self.seq = next;
        self.revision = cluster.revision();
        if !(changed || shown) {
            count(|c| c.unchanged += 1);
            return false;
        }
        view.time_ms = cluster.now().0;
        view.revision = cluster.revision();
        view.changes = Rc::new(changes);
        count(|c| c.views += 1);
        self.view = Rc::new(view);
        true
    }

    /// Reads every zone again.
    pub fn rebuild(&mut self, cluster: &Cluster) {
        let generation = if self.built {
            self.view.generation + 1
        } else {
            0
        };
        let view = FloorView {
            generation,
            ..FloorView::of(cluster)
        };
        count(|c| {
            c.full_rebuilds += 1;
            c.zones_recomputed += view.nodes.len() as u64;
            c.views += 1;
        });
        self.view = Rc::new(view);
        self.seq = cluster.feed_since(u64::MAX).next;
        self.revision = cluster.revision();
        self.built = true;
    }

    /// Where each written robot is now: the zones to read again (the one it left,
    /// the one it is on), the bay's new list if the bay changed, and the moves.
    fn place_robots(
        &self,
        cluster: &Cluster,
        view: &FloorView,
        touched: &[(&str, &str)],
    ) -> (Vec<RobotChange>, BTreeSet<String>, Option<Vec<PodView>>) {
        let mut changes = Vec::new();
        let mut dirty = BTreeSet::new();
        let mut bay: Option<Vec<PodView>> = None;
        for &(namespace, name) in touched {
            let from = view
                .find(namespace, name)
                .map_or(Place::Gone, |(place, _)| place);
            let now = cluster.pod_placement(namespace, name);
            let to = match &now {
                None => Place::Gone,
                Some((None, _)) => Place::Bay,
                Some((Some(zone), _)) => Place::Zone(zone.clone()),
            };
            for place in [&from, &to] {
                if let Place::Zone(z) = place {
                    dirty.insert(z.clone());
                }
            }
            if from == Place::Bay || to == Place::Bay {
                let list = bay.get_or_insert_with(|| view.unscheduled.to_vec());
                let at = search(list, namespace, name);
                match (at, now) {
                    (Ok(i), Some((None, pod))) => list[i] = pod,
                    (Err(i), Some((None, pod))) => list.insert(i, pod),
                    (Ok(i), _) => {
                        list.remove(i);
                    }
                    (Err(_), _) => {}
                }
            }
            if from != to {
                changes.push(RobotChange {
                    namespace: namespace.to_string(),
                    name: name.to_string(),
                    from,
                    to,
                });
            }
        }
        if bay.as_deref() == Some(view.unscheduled.as_slice()) {
            bay = None;
        }
        (changes, dirty, bay)
    }
}

/// The zones a written PersistentVolume touched: the one that showed it and the one
/// it is tied to now.
fn place_volumes(cluster: &Cluster, view: &FloorView, names: &BTreeSet<&str>) -> BTreeSet<String> {
    let mut dirty = BTreeSet::new();
    for &name in names {
        if let Some(zone) = view.nodes.iter().find(|z| {
            z.volumes
                .binary_search_by(|v| v.name.as_str().cmp(name))
                .is_ok()
        }) {
            dirty.insert(zone.name.clone());
        }
        if let Some((Some(node), _)) = cluster.volume_placement(name) {
            dirty.insert(node);
        }
    }
    dirty
}

/// Reads the `dirty` zones again, and every zone's header (cheap: no pods), which
/// also changes without a write (a kubelet powered off). A zone whose model came out
/// equal keeps its `Rc`. Returns whether any zone changed.
fn refresh_zones(cluster: &Cluster, zones: &mut [Rc<NodeView>], dirty: &BTreeSet<String>) -> bool {
    let mut changed = false;
    for zone in zones.iter_mut() {
        if dirty.contains(&zone.name) {
            count(|c| c.zones_recomputed += 1);
            if let Some(fresh) = cluster.node_view(&zone.name) {
                if fresh != **zone {
                    *zone = Rc::new(fresh);
                    changed = true;
                }
            }
            continue;
        }
        let Some(head) = cluster.node_summary(&zone.name) else {
            continue;
        };
        if !same_header(&head, zone) {
            count(|c| c.zone_headers += 1);
            *zone = Rc::new(NodeView {
                pods: zone.pods.clone(),
                volumes: zone.volumes.clone(),
                ..head
            });
            changed = true;
        }
    }
    changed
}

/// Everything of a zone but its robots and lockers is the same.
fn same_header(a: &NodeView, b: &NodeView) -> bool {
    a.name == b.name
        && a.control_plane == b.control_plane
        && a.health == b.health
        && a.killed == b.killed
        && a.unschedulable == b.unschedulable
        && a.cpu_requested_milli == b.cpu_requested_milli
        && a.cpu_allocatable_milli == b.cpu_allocatable_milli
        && a.memory_requested == b.memory_requested
        && a.memory_allocatable == b.memory_allocatable
}

#[cfg(test)]
mod tests {
    use super::*;
    use warehouse_kubectl::{NoFiles, Session};
    use warehouse_sim::{SimDuration, Topology};

    fn run(s: &mut Session, line: &str) {
        let out = s.run_shell(line, None, &NoFiles);
        assert_eq!(out.code, 0, "{line}: {}", out.stderr);
    }

    /// The projection's view has what a whole view read at once has.
    fn assert_matches(p: &Projection, cluster: &Cluster) {
        let whole = FloorView::of(cluster);
        let names = |v: &FloorView| v.nodes.iter().map(|n| n.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&p.view), names(&whole));
        for (a, b) in p.view.nodes.iter().zip(&whole.nodes) {
            assert_eq!(**a, **b, "zone {}", a.name);
        }
        assert_eq!(p.view.unscheduled, whole.unscheduled);
        assert_eq!(p.view.components, whole.components);
        assert_eq!(p.view.robot_counts(), cluster.view().robot_counts());
    }

    /// Runs the cluster a minute in 3-second frames, updating the projection after
    /// each, then checks it against a whole rebuild.
    fn follow_a_minute(s: &mut Session, p: &mut Projection) {
        for _ in 0..20 {
            s.cluster.advance(SimDuration::millis(3_000));
            p.update(&s.cluster);
        }
        assert_matches(p, &s.cluster);
    }

    fn settled(workers: usize) -> Session {
        Session::new(Cluster::settled(1, Topology::with_workers(workers)))
    }

    fn recomputed() -> u64 {
        counts().zones_recomputed
    }

    #[test]
    fn an_idle_tick_recomputes_nothing_and_keeps_the_view() {
        let mut s = settled(3);
        run(
            &mut s,
            "kubectl create deployment web --image=nginx:1.27 --replicas=20",
        );
        s.cluster.advance(SimDuration::millis(60_000));
        let mut p = Projection::default();
        p.update(&s.cluster);
        let before = (recomputed(), p.view.clone());
        for _ in 0..30 {
            let seq = s.cluster.feed_since(u64::MAX).next;
            s.cluster.advance(SimDuration::millis(2_000));
            let what: Vec<String> = s
                .cluster
                .feed_since(seq)
                .events
                .filter(|e| {
                    !matches!(
                        e,
                        FeedEvent::Write {
                            kind: "Lease" | "Event",
                            ..
                        }
                    )
                })
                .map(|e| format!("{e:?}"))
                .collect();
            p.update(&s.cluster);
            assert!(
                p.view.same_floor(&before.1),
                "an idle tick keeps every zone: {what:#?}"
            );
        }
        assert_eq!(recomputed(), before.0, "no zone recomputed");
        assert_matches(&p, &s.cluster);
    }

    #[test]
    fn scaling_by_one_recomputes_one_zone_and_keeps_the_others() {
        let mut s = settled(4);
        run(
            &mut s,
            "kubectl create deployment web --image=nginx:1.27 --replicas=12",
        );
        s.cluster.advance(SimDuration::millis(60_000));
        let mut p = Projection::default();
        p.update(&s.cluster);
        let old = p.view.clone();
        let start = recomputed();
        run(&mut s, "kubectl scale deployment web --replicas=13");
        s.cluster.advance(SimDuration::millis(30_000));
        assert!(p.update(&s.cluster));
        assert!(recomputed() - start <= 1, "{} zones", recomputed() - start);
        let kept = old
            .nodes
            .iter()
            .zip(&p.view.nodes)
            .filter(|(a, b)| Rc::ptr_eq(a, b))
            .count();
        assert_eq!(kept, old.nodes.len() - 1, "every other zone is the same Rc");
        assert!(
            p.view
                .changes
                .iter()
                .any(|c| matches!(c.to, Place::Zone(_)) && c.from != c.to),
            "{:?}",
            p.view.changes
        );
        assert_matches(&p, &s.cluster);
    }

    #[test]
    fn the_model_follows_scale_delete_kill_and_a_new_zone() {
        let mut s = settled(3);
        let mut p = Projection::default();
        p.update(&s.cluster);
        let steps = [
            "kubectl create deployment web --image=nginx:1.27 --replicas=9",
            "kubectl scale deployment web --replicas=4",
            "kubectl delete pod -l app=web --wait=false",
            "sim node kill zone-1",
            "sim node add extra --cpu 4 --memory 8Gi",
            "kubectl scale deployment web --replicas=12",
            "sim stop scheduler",
            "kubectl scale deployment web --replicas=15",
            "sim start scheduler",
            "sim node restart zone-1",
        ];
        for line in steps {
            run(&mut s, line);
            p.update(&s.cluster);
            assert_matches(&p, &s.cluster);
            follow_a_minute(&mut s, &mut p);
        }
    }

    #[test]
    fn the_model_stays_true_across_an_etcd_restore() {
        let mut s = settled(3);
        run(&mut s, "sim etcd snapshot save backup.db");
        run(
            &mut s,
            "kubectl create deployment web --image=nginx:1.27 --replicas=4",
        );
        s.cluster.advance(SimDuration::millis(60_000));
        let mut p = Projection::default();
        p.update(&s.cluster);
        run(&mut s, "sim etcd snapshot restore backup.db");
        p.update(&s.cluster);
        assert_matches(&p, &s.cluster);
        follow_a_minute(&mut s, &mut p);
    }

    const CREW: &str = "apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  clusterIP: None
  selector:
    app: web
  ports:
  - port: 80
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: web
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        volumeMounts:
        - name: data
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
";

    #[test]
    fn the_model_follows_a_numbered_crew_and_its_lockers() {
        let mut s = settled(3);
        let mut p = Projection::default();
        p.update(&s.cluster);
        let files =
            warehouse_kubectl::MemoryFiles([("crew.yaml".to_string(), CREW.to_string())].into());
        let out = s.run_shell("kubectl apply -f crew.yaml", None, &files);
        assert_eq!(out.code, 0, "{}", out.stderr);
        follow_a_minute(&mut s, &mut p);
        let robots: Vec<(u32, Vec<String>)> = p
            .view
            .nodes
            .iter()
            .flat_map(|n| n.pods.iter())
            .filter(|p| !p.system)
            .map(|p| (p.ordinal.unwrap(), p.claims.clone()))
            .collect();
        let mut numbers: Vec<u32> = robots.iter().map(|r| r.0).collect();
        numbers.sort_unstable();
        assert_eq!(numbers, [0, 1, 2]);
        for (n, claims) in &robots {
            assert_eq!(claims, &[format!("data-web-{n}")]);
        }
        let lockers = |v: &FloorView| {
            let mut l: Vec<String> = v
                .nodes
                .iter()
                .flat_map(|n| n.volumes.iter())
                .filter_map(|v| v.claim.clone())
                .collect();
            l.sort();
            l
        };
        let all = [
            "default/data-web-0",
            "default/data-web-1",
            "default/data-web-2",
        ];
        assert_eq!(lockers(&p.view), all);
        // Each locker stands in the zone of the robot that mounts its claim.
        for zone in &p.view.nodes {
            for pod in zone.pods.iter().filter(|p| !p.system) {
                let claim = format!("default/{}", pod.claims[0]);
                assert!(
                    zone.volumes
                        .iter()
                        .any(|v| v.claim.as_ref() == Some(&claim)),
                    "{} on {}",
                    pod.name,
                    zone.name
                );
            }
        }
        // Scaled down, the crew keeps its lockers.
        run(&mut s, "kubectl scale statefulset web --replicas=1");
        follow_a_minute(&mut s, &mut p);
        let left: Vec<&str> = p
            .view
            .nodes
            .iter()
            .flat_map(|n| n.pods.iter())
            .filter(|p| !p.system)
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(left, ["web-0"]);
        assert_eq!(lockers(&p.view), all);
        assert!(p
            .view
            .nodes
            .iter()
            .flat_map(|n| n.volumes.iter())
            .all(|v| v.phase == "Bound" && v.capacity == "1Gi"));
        // An idle minute recomputes no zone.
        let before = (recomputed(), p.view.clone());
        for _ in 0..10 {
            s.cluster.advance(SimDuration::millis(3_000));
            p.update(&s.cluster);
        }
        assert_eq!(recomputed(), before.0);
        assert!(p.view.same_floor(&before.1));
    }

    #[test]
    fn a_feed_run_past_the_projection_rebuilds_it() {
        let mut s = settled(3);
        let mut p = Projection::default();
        p.update(&s.cluster);
        let full = counts().full_rebuilds;
        run(
            &mut s,
            "kubectl create deployment web --image=nginx:1.27 --replicas=300",
        );
        s.cluster.advance(SimDuration::millis(120_000));
        p.update(&s.cluster);
        assert_eq!(counts().full_rebuilds, full + 1);
        assert!(p.view.rebuilt);
        assert_matches(&p, &s.cluster);
    }
}
