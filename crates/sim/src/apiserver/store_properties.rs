//! Property tests of the store (etcd) under random sequences of creates, updates and
//! deletes: resourceVersions only grow, stale updates conflict, and replaying the watch
//! log rebuilds the store exactly.

use crate::store::{EventType, Store};
use crate::{decode_manifests, Object, ObjectKey};
use proptest::prelude::*;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
enum Op {
    Create(u8),
    Update(u8, u8),
    StaleUpdate(u8),
    Delete(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..12).prop_map(Op::Create),
        (0u8..12, 0u8..5).prop_map(|(n, v)| Op::Update(n, v)),
        (0u8..12).prop_map(Op::StaleUpdate),
        (0u8..12).prop_map(Op::Delete),
    ]
}

fn config_map(n: u8, value: u8) -> Object {
    let yaml = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{n}, namespace: default}}\ndata: {{v: \"{value}\"}}\n"
    );
    decode_manifests(&yaml).unwrap().remove(0)
}

fn rv(o: &Object) -> u64 {
    o.meta()
        .resource_version
        .as_deref()
        .unwrap()
        .parse()
        .unwrap()
}

proptest! {
    #[test]
    fn resource_versions_grow_and_the_log_replays_to_the_store(ops in prop::collection::vec(op(), 1..200)) {
        let mut store = Store::default();
        let mut last_revision = 0;
        for op in ops {
            let result = match op {
                Op::Create(n) => store.create(config_map(n, 0)),
                Op::Update(n, v) => {
                    let key = config_map(n, 0).key();
                    match store.get(&key).cloned() {
                        Some(current) => {
                            let mut next = config_map(n, v);
                            next.meta_mut().resource_version = current.meta().resource_version.clone();
                            store.update(next)
                        }
                        None => store.update(config_map(n, v)),
                    }
                }
                Op::StaleUpdate(n) => {
                    let key = config_map(n, 0).key();
                    if let Some(current) = store.get(&key).cloned() {
                        let mut stale = config_map(n, 9);
                        stale.meta_mut().resource_version = Some((rv(&current) - 1).to_string());
                        let e = store.update(stale).unwrap_err();
                        prop_assert_eq!(e.code(), 409);
                    }
                    continue;
                }
                Op::Delete(n) => store.remove(&config_map(n, 0).key()),
            };
            if let Ok(ev) = result {
                prop_assert!(ev.revision > last_revision, "revision went from {} to {}", last_revision, ev.revision);
                prop_assert_eq!(ev.revision, store.revision());
                last_revision = ev.revision;
                if ev.event_type != EventType::Deleted {
                    prop_assert_eq!(rv(&ev.object), ev.revision);
                }
            }
        }
        // Replay the whole log from the beginning.
        let mut replayed: BTreeMap<ObjectKey, Object> = BTreeMap::new();
        for ev in store.events_since(0).unwrap() {
            match ev.event_type {
                EventType::Added | EventType::Modified => {
                    replayed.insert(ev.object.key(), (*ev.object).clone());
                }
                EventType::Deleted => {
                    replayed.remove(&ev.object.key());
                }
            }
        }
        let live: BTreeMap<ObjectKey, Object> = store
            .list(crate::Kind::ConfigMap, None)
            .map(|o| (o.key(), o.clone()))
            .collect();
        prop_assert_eq!(replayed, live);
    }
}

#[test]
fn a_watch_older_than_the_log_is_gone() {
    let mut store = Store::default();
    for i in 0..(crate::store::WATCH_LOG_CAPACITY + 10) {
        store.create(config_map((i % 200) as u8, 0)).ok();
        store.remove(&config_map((i % 200) as u8, 0).key()).ok();
    }
    let e = store.events_since(1).err().expect("compacted");
    assert_eq!(e.code(), 410);
    assert!(
        e.message.starts_with("too old resource version: 1 ("),
        "{}",
        e.message
    );
    assert!(store.events_since(store.revision()).is_ok());
}

fn event(n: usize) -> Object {
    let yaml = format!(
        "apiVersion: v1\nkind: Event\nmetadata: {{name: ev-{n}, namespace: default}}\ninvolvedObject: {{kind: ConfigMap, name: cm-0, namespace: default}}\nreason: Tested\nmessage: \"{n}\"\n"
    );
    decode_manifests(&yaml).unwrap().remove(0)
}

#[test]
fn a_storm_of_events_leaves_other_kinds_history_in_reach() {
    let mut store = Store::default();
    let before = store.revision();
    store.create(config_map(0, 0)).unwrap();
    for n in 0..(crate::store::WATCH_LOG_CAPACITY + 10) {
        store.create(event(n)).unwrap();
    }
    // The ConfigMap's creation is still in its log, though thousands of Events came
    // after it.
    let configmaps: Vec<_> = store
        .events_of(Some(crate::Kind::ConfigMap), before)
        .unwrap()
        .collect();
    assert_eq!(configmaps.len(), 1);
    assert_eq!(configmaps[0].object.key(), config_map(0, 0).key());
    assert_eq!(store.watch_log_len(), 1);
    // The Events' own log is bounded: their oldest are gone.
    assert_eq!(store.event_log_len(), crate::store::WATCH_LOG_CAPACITY);
    let gone = store
        .events_of(Some(crate::Kind::Event), before + 1)
        .err()
        .expect("the oldest events were compacted");
    assert_eq!(gone.code(), 410);
    assert_eq!(
        gone.message,
        format!("too old resource version: {} (11)", before + 1)
    );
    // A watch of every kind needs both logs.
    assert_eq!(
        store.events_since(before).err().map(|e| e.code()),
        Some(410)
    );
    // From a recent revision, both logs are merged in revision order.
    store.create(config_map(1, 0)).unwrap();
    store.create(event(99_999)).unwrap();
    let recent: Vec<u64> = store
        .events_since(store.revision() - 3)
        .unwrap()
        .map(|e| e.revision)
        .collect();
    let last = store.revision();
    assert_eq!(recent, vec![last - 2, last - 1, last]);
}

#[test]
fn a_snapshot_keeps_each_logs_reach() {
    let mut store = Store::default();
    for n in 0..(crate::store::WATCH_LOG_CAPACITY + 10) {
        store.create(event(n)).unwrap();
    }
    store.create(config_map(0, 0)).unwrap();
    let json = serde_json::to_string(&store).unwrap();
    let back: Store = serde_json::from_str(&json).unwrap();
    for kind in [crate::Kind::ConfigMap, crate::Kind::Event] {
        for revision in [0, 5, 11, store.revision() - 1] {
            assert_eq!(
                store
                    .events_of(Some(kind), revision)
                    .map(|e| e.count())
                    .ok(),
                back.events_of(Some(kind), revision).map(|e| e.count()).ok(),
                "{kind:?} from {revision}"
            );
        }
    }
}
