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
