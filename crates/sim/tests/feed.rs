//! The change feed, the countdowns and the desks: what the floor animates, read from
//! the simulation's own state.

mod common;

use common::{create, WEB};
use warehouse_sim::views::countdown::CountdownKind;
use warehouse_sim::views::feed::{Change, FeedEvent};
use warehouse_sim::{decode_manifests, Cluster, Fault, SimDuration, Topology};

const SVC: &str = "apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: NodePort
  selector: {app: web}
  ports:
  - port: 80
";

fn settled() -> Cluster {
    Cluster::settled(1, Topology::default())
}

#[test]
fn an_apply_shows_as_a_learner_request_then_writes_that_wake_the_controllers() {
    let mut c = settled();
    let start = c.feed_since(0).next;
    create(&mut c, WEB);
    c.advance(SimDuration::secs(5));
    let events: Vec<FeedEvent> = c.feed_since(start).events.cloned().collect();
    let first = events
        .iter()
        .find(|e| matches!(e, FeedEvent::Request { .. }))
        .unwrap();
    // The request is listed where it arrived: before the write it made.
    assert!(
        matches!(&events[0], FeedEvent::Request { .. })
            && matches!(
                &events[1],
                FeedEvent::Write {
                    kind: "Deployment",
                    change: Change::Added,
                    ..
                }
            ),
        "{:?}",
        &events[..2]
    );
    assert!(
        matches!(first, FeedEvent::Request { verb: "create", target, by_learner: true, refused_at: None, code: 201, .. } if target == "deployments/web"),
        "{first:?}"
    );
    let notified = |kind: &str, change: Change| {
        events.iter().find_map(|e| match e {
            FeedEvent::Write {
                kind: k,
                change: c,
                notified,
                ..
            } if *k == kind && *c == change => Some(notified.clone()),
            _ => None,
        })
    };
    assert!(notified("Deployment", Change::Added)
        .unwrap()
        .contains(&"deployment-controller".to_string()));
    assert!(notified("ReplicaSet", Change::Added)
        .unwrap()
        .contains(&"replicaset-controller".to_string()));
    assert!(notified("Pod", Change::Added)
        .unwrap()
        .contains(&"kube-scheduler".to_string()));
    // A bound pod is news for its zone's supervisor.
    assert!(events.iter().any(|e| matches!(e,
        FeedEvent::Write { kind: "Pod", actor, notified, .. }
            if actor == "system:kube-scheduler" && notified.iter().any(|n| n.starts_with("kubelet:")))));
    // The scheduler's writes are the component's, not the learner's.
    assert!(events.iter().any(|e| matches!(e,
        FeedEvent::Request { user, by_learner: false, .. } if user == "system:kube-scheduler")));
}

#[test]
fn a_refused_request_names_the_check_that_refused_it() {
    let mut c = settled();
    let start = c.feed_since(0).next;
    let bad = decode_manifests(&WEB.replace("name: web\nspec", "name: Web_1\nspec")).unwrap();
    assert!(c.create(bad.into_iter().next().unwrap()).is_err());
    let e: Vec<FeedEvent> = c.feed_since(start).events.cloned().collect();
    assert!(
        matches!(
            &e[..],
            [FeedEvent::Request {
                refused_at: Some("validation"),
                code: 422,
                ..
            }]
        ),
        "{e:?}"
    );
}

#[test]
fn orders_travel_the_data_plane_and_a_dead_zone_drops_them() {
    let mut c = settled();
    create(&mut c, WEB);
    create(&mut c, SVC);
    c.advance(SimDuration::secs(20));
    let cmd = warehouse_sim::network::traffic::parse_traffic(&[
        "start", "shop", "--to", "svc/web", "--rps", "20",
    ])
    .unwrap();
    c.traffic_command(&cmd).unwrap();
    let start = c.feed_since(0).next;
    c.advance(SimDuration::secs(2));
    let orders: Vec<FeedEvent> = c
        .feed_since(start)
        .events
        .filter(|e| matches!(e, FeedEvent::Order { .. }))
        .cloned()
        .collect();
    assert_eq!(orders.len(), 40);
    assert!(orders.iter().all(|o| matches!(o,
        FeedEvent::Order { failure: None, pod: Some(p), via, .. } if p.starts_with("default/web-") && !via.is_empty())));
}

#[test]
fn a_killed_zone_counts_down_to_not_ready_then_to_eviction() {
    let mut c = settled();
    create(&mut c, WEB);
    c.advance(SimDuration::secs(20));
    c.fault(Fault::KillNode("zone-a".into())).unwrap();
    let killed = c.now().0;
    assert!(
        c.countdowns().is_empty(),
        "a zone just heard from is not counted down"
    );
    c.advance(SimDuration::secs(20));
    let cd = c.countdowns();
    let grace = cd
        .iter()
        .find(|x| x.kind == CountdownKind::NodeGrace)
        .expect("grace countdown");
    assert_eq!(grace.subject, "zone-a");
    assert!(
        grace.since_ms <= killed && killed - grace.since_ms <= 10_000,
        "{grace:?}"
    );
    assert_eq!(grace.due_ms, grace.since_ms + 50_000);
    c.advance(SimDuration::secs(60));
    let cd = c.countdowns();
    assert!(cd.iter().all(|x| x.kind != CountdownKind::NodeGrace));
    let ev: Vec<_> = cd
        .iter()
        .filter(|x| x.kind == CountdownKind::Eviction)
        .collect();
    assert!(!ev.is_empty(), "{cd:?}");
    let robots: usize = ev.iter().map(|x| x.count).sum();
    assert!(robots >= 1);
    for e in &ev {
        assert_eq!(e.due_ms, e.since_ms + 300_000, "{e:?}");
    }
    c.advance(SimDuration::secs(300));
    assert!(c
        .countdowns()
        .iter()
        .all(|x| x.kind != CountdownKind::Eviction));
}

#[test]
fn a_crash_loop_counts_down_to_the_next_restart() {
    let mut c = settled();
    create(
        &mut c,
        &WEB.replace("replicas: 5", "replicas: 1").replace(
            "image: nginx:1.27",
            "image: busybox\n        command: [\"sh\", \"-c\", \"exit 1\"]",
        ),
    );
    c.advance(SimDuration::secs(60));
    let cd = c.countdowns();
    let pods = c.list(warehouse_sim::Kind::Pod, Some("default"));
    let r = cd
        .iter()
        .find(|x| x.kind == CountdownKind::Restart)
        .unwrap_or_else(|| {
            panic!(
                "restart countdown: {cd:?} {:?}",
                pods.iter()
                    .map(|p| p.as_pod().unwrap().status.clone())
                    .collect::<Vec<_>>()
            )
        });
    assert!(r.subject.starts_with("default/web-"));
    assert!(
        r.due_ms > c.now().0 && r.due_ms - c.now().0 <= 80_000,
        "{r:?}"
    );
}

#[test]
fn desks_list_their_sheets_and_one_robot_changes_one_sheet() {
    let mut c = settled();
    c.set_max_endpoints_per_slice(2).unwrap();
    create(&mut c, WEB);
    create(&mut c, SVC);
    c.advance(SimDuration::secs(30));
    let desk = c.desks().into_iter().find(|d| d.name == "web").unwrap();
    assert_eq!(desk.selector, vec![("app".to_string(), "web".to_string())]);
    assert!(desk.cluster_ip.as_deref().unwrap().starts_with("10."));
    assert_eq!(desk.sheets.len(), 3);
    assert_eq!(desk.sheets.iter().map(|s| s.lines.len()).sum::<usize>(), 5);
    assert!(desk
        .sheets
        .iter()
        .flat_map(|s| &s.lines)
        .all(|l| l.ready && l.serving && !l.terminating));
    assert_eq!(desk.scroll_lines, 5);
    // One robot fewer: the ReplicaSet deletes one, and no replacement comes.
    let mut d = c
        .get(warehouse_sim::Kind::Deployment, "default", "web")
        .unwrap()
        .as_deployment()
        .unwrap()
        .clone();
    d.spec.replicas = Some(4);
    c.update(warehouse_sim::Object::Deployment(Box::new(d)))
        .unwrap();
    c.advance(SimDuration::millis(150));
    let after = c.desks().into_iter().find(|d| d.name == "web").unwrap();
    let changed: Vec<&str> = desk
        .sheets
        .iter()
        .zip(&after.sheets)
        .filter(|(a, b)| a.resource_version != b.resource_version)
        .map(|(a, _)| a.name.as_str())
        .collect();
    assert_eq!(changed.len(), 1, "{:#?}\n{:#?}", desk.sheets, after.sheets);
    let line = after
        .sheets
        .iter()
        .flat_map(|s| &s.lines)
        .find(|l| l.terminating)
        .expect("the leaving robot's line");
    assert!(!line.ready && line.serving, "{line:?}");
    c.advance(SimDuration::secs(5));
    let gone = c.desks().into_iter().find(|d| d.name == "web").unwrap();
    assert_eq!(gone.sheets.iter().map(|s| s.lines.len()).sum::<usize>(), 4);
}

#[test]
fn a_viewer_that_falls_behind_is_told_how_much_it_missed() {
    let mut c = settled();
    let next = c.feed_since(0).next;
    assert!(next > 0, "the bootstrap is in the feed");
    create(
        &mut c,
        &WEB.replace("replicas: 5", "replicas: 320")
            .replace("cpu: 100m", "cpu: 10m"),
    );
    c.advance(SimDuration::secs(60));
    let s = c.feed_since(next);
    assert!(s.missed > 0);
    assert_eq!(s.events.len(), warehouse_sim::views::feed::FEED_CAPACITY);
    let again = c.feed_since(s.next);
    assert_eq!((again.missed, again.events.len()), (0, 0));
}

#[test]
fn an_endpointslice_write_carries_its_endpoints_before_and_after_and_an_event_its_reason() {
    use warehouse_sim::views::feed::WriteDetail;
    let mut c = settled();
    create(&mut c, SVC);
    let start = c.feed_since(0).next;
    create(&mut c, WEB);
    c.advance(SimDuration::secs(60));
    let events: Vec<FeedEvent> = c.feed_since(start).events.cloned().collect();
    let slices: Vec<(&Vec<_>, &Vec<_>)> = events
        .iter()
        .filter_map(|e| match e {
            FeedEvent::Write {
                kind: "EndpointSlice",
                name,
                detail: Some(d),
                ..
            } if name.starts_with("web-") => match &**d {
                WriteDetail::Endpoints { before, after } => Some((before, after)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert!(!slices.is_empty(), "no EndpointSlice write: {events:#?}");
    // Some write made an endpoint ready that was not ready (or not there) before.
    assert!(
        slices
            .iter()
            .any(|(before, after)| after.iter().any(|a| a.ready
                && a.pod.as_deref().is_some_and(|p| p.starts_with("web-"))
                && !before.iter().any(|b| b.address == a.address && b.ready))),
        "{slices:#?}"
    );
    // A write carries only what it changed: played forward from an empty slice,
    // the changes end where the stored slice is.
    let mut played = std::collections::BTreeMap::new();
    for (before, after) in &slices {
        assert!(
            before.iter().all(|b| !after.contains(b)),
            "{before:?} {after:?}"
        );
        for b in before.iter() {
            assert_eq!(played.remove(&b.address).as_ref(), Some(b));
        }
        for a in after.iter() {
            played.insert(a.address.clone(), a.clone());
        }
    }
    let stored = c
        .list(warehouse_sim::Kind::EndpointSlice, Some("default"))
        .into_iter()
        .filter(|o| o.name().starts_with("web-"))
        .flat_map(|o| warehouse_sim::views::feed::endpoint_lines(&o))
        .map(|e| (e.address.clone(), e))
        .collect::<std::collections::BTreeMap<_, _>>();
    assert_eq!(played, stored);
    // Events say why, about which object.
    assert!(events.iter().any(|e| matches!(e,
        FeedEvent::Write { kind: "Event", detail: Some(d), .. }
            if matches!(&**d, WriteDetail::Event { reason, regarding, .. }
                if reason == "Scheduled" && regarding.0 == "Pod"))));
}
