//! Limits in bytes: object sizes (annotations, ConfigMap and Secret data, the
//! request body, etcd's value limit), the watch log's bytes, etcd snapshots' bytes,
//! the traffic generator's total rate, per-pod lists, and the byte-budget property.

use serde_json::json;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;
use warehouse_sim::apiserver::store::{
    object_size_bytes, MAX_ETCD_VALUE_BYTES, MAX_WATCH_LOG_BYTES,
};
use warehouse_sim::apiserver::{
    MAX_ANNOTATIONS_BYTES, MAX_CONFIG_DATA_BYTES, MAX_CONTAINERS_PER_POD, MAX_REQUEST_BODY_BYTES,
};
use warehouse_sim::etcd::MAX_ETCD_SNAPSHOT_BYTES;
use warehouse_sim::object::manifest::{MAX_DECODED_BYTES, MAX_NESTING};
use warehouse_sim::{decode_manifests, Cluster, Kind, Object, SimDuration, StatusReason, Topology};

/// Counts the bytes held.
struct Counting;

static HELD: AtomicI64 = AtomicI64::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the counter is
// only a statistic.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        HELD.fetch_add(layout.size() as i64, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        HELD.fetch_add(layout.size() as i64, Ordering::Relaxed);
        System.alloc_zeroed(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size() as i64, Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        HELD.fetch_add(new_size as i64 - layout.size() as i64, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Tests that measure memory run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn held() -> i64 {
    HELD.load(Ordering::Relaxed)
}

fn one(manifest: &str) -> Object {
    decode_manifests(manifest).unwrap().remove(0)
}

fn config_map(name: &str, bytes: usize) -> Object {
    one(&format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\ndata:\n  big: {}\n",
        "x".repeat(bytes)
    ))
}

fn relabel(c: &mut Cluster, name: &str, i: usize) {
    let mut cm = c.get(Kind::ConfigMap, "default", name).unwrap();
    cm.meta_mut()
        .labels
        .get_or_insert_with(Default::default)
        .insert("round".into(), i.to_string());
    c.update(cm).unwrap();
}

const MIB: usize = 1024 * 1024;

fn cm_json(name: &str, data: serde_json::Value, annotations: serde_json::Value) -> Object {
    Object::from_json(
        Kind::ConfigMap,
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": name, "namespace": "default", "annotations": annotations},
               "data": data}),
    )
    .unwrap()
}

/// A pod whose one container carries `bytes` of environment.
fn pod_with_env(name: &str, bytes: usize) -> Object {
    let env: Vec<_> = (0..bytes.div_ceil(64 * 1024))
        .map(|i| json!({"name": format!("V{i}"), "value": "x".repeat(64 * 1024)}))
        .collect();
    Object::from_json(
        Kind::Pod,
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default"},
               "spec": {"containers": [{"name": "app", "image": "nginx", "env": env}]}}),
    )
    .unwrap()
}

/// A big anchor aliased many times: a small text that would expand to gigabytes.
fn alias_bomb(anchor_bytes: usize, aliases: usize) -> String {
    let mut text = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n  annotations:\n    a: &big \"{}\"\ndata:\n",
        "x".repeat(anchor_bytes)
    );
    for i in 0..aliases {
        text.push_str(&format!("  k{i}: *big\n"));
    }
    text
}

#[test]
fn aliases_count_by_what_they_expand_to() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // 512 KiB aliased 3,000 times: 1.5 GB once expanded, from a text of 560 KB.
    let text = alias_bomb(512 * 1024, 3_000);
    let before = held();
    let e = decode_manifests(&text).unwrap_err();
    let grew = held() - before;
    assert_eq!(e.kind, warehouse_sim::ManifestErrorKind::TooLarge, "{e:?}");
    assert!(
        e.message.contains(&MAX_DECODED_BYTES.to_string()) && e.message.contains("aliases"),
        "{}",
        e.message
    );
    // Refused with a place in the text (the anchor the budget ran out on).
    assert_eq!(e.line, Some(6), "{e:?}");
    assert!(
        grew < 64 << 20,
        "refusing the expansion held {grew} bytes more"
    );
    // Nested aliases (a billion laughs) are refused the same way.
    let mut laughs = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\n  labels:\n    l0: &l0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n");
    for i in 1..10 {
        let p = i - 1;
        laughs.push_str(&format!(
            "    l{i}: &l{i} [*l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}, *l{p}]\n"
        ));
    }
    let e = decode_manifests(&laughs).unwrap_err();
    assert!(
        matches!(
            e.kind,
            warehouse_sim::ManifestErrorKind::TooLarge | warehouse_sim::ManifestErrorKind::Syntax
        ),
        "{e:?}"
    );
    // Aliases that stay small are YAML like any other.
    let fine = alias_bomb(16, 50);
    assert_eq!(decode_manifests(&fine).unwrap().len(), 1);
}

#[test]
fn deep_nesting_is_refused_in_time_linear_in_the_text() {
    for n in [129usize, 131_072, 1 << 19] {
        let text = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  a: {}",
            "[".repeat(n)
        );
        let e = decode_manifests(&text).unwrap_err();
        assert!(
            e.message
                .contains(&format!("exceeded max depth of {MAX_NESTING}")),
            "{n}: {e:?}"
        );
        // Where the 129th bracket opens.
        assert_eq!((e.line, e.column), (Some(6), Some(6 + MAX_NESTING)), "{n}");
    }
    // Brackets inside quotes and comments are text.
    let quoted = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: text # {}\ndata:\n  a: '{}'\n  b: \"{}\"\n",
        "[".repeat(500),
        "[".repeat(500),
        "{".repeat(500)
    );
    assert_eq!(decode_manifests(&quoted).unwrap().len(), 1);
    // JSON nested within the limit decodes.
    let json = format!("{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"j\", \"annotations\": {{\"a\": \"{}\"}}}}}}", "]".repeat(10));
    assert_eq!(decode_manifests(&json).unwrap().len(), 1);
}

#[test]
fn annotations_hold_at_most_256_kib() {
    let mut c = Cluster::new(1, Topology::default());
    // Keys and values count together: "a" + value.
    let at_limit = cm_json(
        "ok",
        json!({}),
        json!({"a": "x".repeat(MAX_ANNOTATIONS_BYTES - 1)}),
    );
    c.create(at_limit).unwrap();
    let rev = c.revision();
    let over = cm_json(
        "big",
        json!({}),
        json!({"a": "x".repeat(MAX_ANNOTATIONS_BYTES)}),
    );
    let err = c.create(over).unwrap_err();
    assert_eq!(err.reason, StatusReason::Invalid);
    assert_eq!(
        err.message,
        "ConfigMap \"big\" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes"
    );
    assert_eq!(c.revision(), rev, "a refused create writes nothing");
    // An update past the limit is refused too, and the object stays as it was.
    let mut ok = c.get(Kind::ConfigMap, "default", "ok").unwrap();
    ok.meta_mut()
        .annotations
        .as_mut()
        .unwrap()
        .insert("b".into(), "y".into());
    assert_eq!(c.update(ok).unwrap_err().reason, StatusReason::Invalid);
    assert_eq!(c.revision(), rev);
}

#[test]
fn config_map_and_secret_data_hold_at_most_1_mib() {
    let mut c = Cluster::new(1, Topology::default());
    let half = "x".repeat(MAX_CONFIG_DATA_BYTES / 2);
    c.create(cm_json("ok", json!({"a": half, "b": half}), json!({})))
        .unwrap();
    let rev = c.revision();
    let err = c
        .create(cm_json(
            "big",
            json!({"a": half, "b": format!("{half}x")}),
            json!({}),
        ))
        .unwrap_err();
    assert_eq!(
        err.message,
        "ConfigMap \"big\" is invalid: []: Too long: may not be more than 1048576 bytes"
    );
    // A Secret counts its decoded data and its stringData.
    let secret = Object::from_json(
        Kind::Secret,
        json!({"apiVersion": "v1", "kind": "Secret",
               "metadata": {"name": "s", "namespace": "default"},
               "stringData": {"a": half, "b": format!("{half}x")}}),
    )
    .unwrap();
    let err = c.create(secret).unwrap_err();
    assert_eq!(
        err.message,
        "Secret \"s\" is invalid: data: Too long: may not be more than 1048576 bytes"
    );
    assert_eq!(c.revision(), rev);
}

#[test]
fn etcd_refuses_a_value_over_1_5_mib_and_the_apiserver_a_body_over_3_mib() {
    let mut c = Cluster::new(1, Topology::default());
    let rev = c.revision();
    let pod = pod_with_env("big", MAX_ETCD_VALUE_BYTES);
    assert!(object_size_bytes(&pod) > MAX_ETCD_VALUE_BYTES);
    assert!(object_size_bytes(&pod) < MAX_REQUEST_BODY_BYTES);
    let err = c.create(pod).unwrap_err();
    assert_eq!(err.reason, StatusReason::Unknown);
    assert_eq!(
        err.to_string(),
        "Error from server: etcdserver: request is too large"
    );
    assert_eq!(c.revision(), rev, "nothing written");
    assert!(c.get(Kind::Pod, "default", "big").is_err());
    // A dry run never reaches etcd: it passes.
    let dry = warehouse_sim::apiserver::request::Request::new(
        &warehouse_sim::apiserver::request::Credentials::admin(),
        warehouse_sim::apiserver::request::Body::Create(pod_with_env("big", MAX_ETCD_VALUE_BYTES)),
    )
    .dry_run(true);
    assert!(c.handle(dry).is_ok());
    let err = c
        .create(pod_with_env("huge", MAX_REQUEST_BODY_BYTES))
        .unwrap_err();
    assert_eq!(err.reason, StatusReason::RequestEntityTooLarge);
    assert_eq!(
        err.to_string(),
        "Error from server (RequestEntityTooLarge): Request entity too large: limit is 3145728"
    );
    assert_eq!(c.revision(), rev);
    // A pod just under the limit is stored.
    c.create(pod_with_env("fits", MAX_ETCD_VALUE_BYTES - 128 * 1024))
        .unwrap();
}

#[test]
fn object_size_is_the_length_of_the_served_json() {
    let cm = config_map("x", 1000);
    assert_eq!(
        object_size_bytes(&cm),
        serde_json::to_vec(&cm.to_json()).unwrap().len()
    );
    let pod = init_pod(3);
    assert_eq!(
        object_size_bytes(&pod),
        serde_json::to_vec(&pod.to_json()).unwrap().len()
    );
}

/// The reproducer: a 512 KiB ConfigMap relabelled 4,000 times held 4.9 GB, every
/// version in the watch log. Now the log keeps at most 16 MiB of objects; what the
/// process holds grows by about that much.
#[test]
fn relabelling_a_big_config_map_holds_a_bounded_watch_log() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut c = Cluster::new(1, Topology::default());
    c.create(config_map("big", 512 * 1024)).unwrap();
    let start = c.revision();
    let before = held();
    for i in 0..400 {
        relabel(&mut c, "big", i);
    }
    let grew = held() - before;
    eprintln!("400 relabels of a 512 KiB ConfigMap: held grew by {grew} bytes");
    assert!(c.watch_log_bytes() <= MAX_WATCH_LOG_BYTES);
    assert!(c.watch_log_bytes() > MAX_WATCH_LOG_BYTES - MIB);
    assert!(
        grew < (MAX_WATCH_LOG_BYTES + 8 * MIB) as i64,
        "held grew by {grew} bytes"
    );
    // A watcher from before the compacted versions must relist: 410 Gone.
    let err = c.events_since(start).unwrap_err();
    assert_eq!(err.reason, StatusReason::Gone);
    // A recent one still reads the latest versions.
    assert!(!c.events_since(c.revision() - 10).unwrap().is_empty());
}

/// The reproducer: 16 snapshots of 20,000 pods held 4.2 GB. A snapshot keeps its
/// objects encoded, so it costs its bytes; the bytes of all snapshots are bounded.
#[test]
fn etcd_snapshots_cost_their_bytes_and_are_bounded_in_all() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut c = Cluster::new(1, Topology::default());
    // About 20 MiB a snapshot: twelve fit under the limit, fewer than the 16 allowed.
    for i in 0..40 {
        c.create(config_map(&format!("cm{i}"), 512 * 1024)).unwrap();
    }
    let objects: usize = c
        .list(Kind::ConfigMap, None)
        .iter()
        .chain(c.list(Kind::Pod, None).iter())
        .map(object_size_bytes)
        .sum();
    let before = held();
    c.etcd_snapshot_save("one").unwrap();
    let grew = (held() - before) as usize;
    let bytes = c.etcd_snapshot_bytes();
    eprintln!("a snapshot of {bytes} bytes: held grew by {grew}");
    assert!(bytes >= objects, "{bytes} < {objects}");
    assert!(grew <= bytes + MIB, "held grew by {grew} for {bytes} bytes");
    // Saving over the same name replaces it.
    c.etcd_snapshot_save("one").unwrap();
    assert_eq!(c.etcd_snapshot_bytes(), bytes);
    // Saves until the bytes in all would pass the limit: refused, naming it.
    let fits = MAX_ETCD_SNAPSHOT_BYTES / bytes;
    for i in 1..fits {
        c.etcd_snapshot_save(&format!("s{i}")).unwrap();
    }
    let err = c.etcd_snapshot_save("past").unwrap_err();
    assert!(
        err.0
            .contains("at most 268435456 bytes of etcd snapshots in all"),
        "{err}"
    );
    assert!(c.etcd_snapshot_bytes() <= MAX_ETCD_SNAPSHOT_BYTES);
    // A restore still brings the objects back.
    c.delete(Kind::ConfigMap, "default", "cm0").unwrap();
    c.etcd_snapshot_restore("one").unwrap();
    assert!(c.get(Kind::ConfigMap, "default", "cm0").is_ok());
}

fn init_pod(n: usize) -> Object {
    let init: Vec<_> = (0..n)
        .map(|i| json!({"name": format!("i{i}"), "image": "busybox", "command": ["sh", "-c", "true"]}))
        .collect();
    Object::from_json(
        Kind::Pod,
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "many", "namespace": "default"},
               "spec": {"restartPolicy": "Never", "initContainers": init,
                        "containers": [{"name": "main", "image": "busybox", "command": ["sh", "-c", "true"]}]}}),
    )
    .unwrap()
}

/// Runs a pod with `n` init containers to completion: the writes it took and the
/// bytes held afterwards.
fn run_init_pod(n: usize) -> (u64, i64) {
    let mut c = Cluster::new(1, Topology::default());
    let before = held();
    let rev = c.revision();
    c.create(init_pod(n)).unwrap();
    c.advance(SimDuration::secs(1200));
    let pod = c.get(Kind::Pod, "default", "many").unwrap();
    let phase = pod.as_pod().unwrap().status.as_ref().unwrap().phase.clone();
    assert_eq!(phase.as_deref(), Some("Succeeded"));
    let writes = c.revision() - rev;
    let grew = held() - before;
    let h = held();
    let copy = pod.clone();
    eprintln!(
        "n={n}: log {} events {} bytes; one pod: json {} bytes, in memory {} bytes",
        c.watch_log_len(),
        c.watch_log_bytes(),
        object_size_bytes(&pod),
        held() - h
    );
    drop(copy);
    drop(c);
    (writes, grew)
}

/// A pod with 1,000 init containers took 3.5 GB. Per-pod lists are capped
/// ([`MAX_CONTAINERS_PER_POD`]); under the cap the writes grow linearly with the
/// count (each costs the pod's size: the pod's life costs the count squared in
/// bytes copied, bounded by the cap), and what the cluster holds stays bounded.
#[test]
fn per_pod_lists_are_capped_and_their_writes_linear() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut c = Cluster::new(1, Topology::default());
    let rev = c.revision();
    let err = c.create(init_pod(1000)).unwrap_err();
    assert_eq!(
        err.message,
        "Pod \"many\" is invalid: spec.initContainers: Too many: 1001: this simulated cluster runs at most 256 containers and initContainers in one pod"
    );
    assert_eq!(c.revision(), rev);
    let n = (MAX_CONTAINERS_PER_POD - 1) / 4;
    let (w1, _) = run_init_pod(n);
    let (w2, _) = run_init_pod(2 * n);
    eprintln!("writes: {n} init containers {w1}, {} {w2}", 2 * n);
    assert!(
        w2 * 10 <= w1 * 22,
        "{w1} writes for {n}, {w2} for {}",
        2 * n
    );
    let (_, held_at_cap) = run_init_pod(MAX_CONTAINERS_PER_POD - 1);
    eprintln!(
        "{} init containers: held grew by {held_at_cap}",
        MAX_CONTAINERS_PER_POD - 1
    );
    assert!(
        held_at_cap < (6 * MAX_WATCH_LOG_BYTES + 32 * MIB) as i64,
        "held grew by {held_at_cap}"
    );
}

/// The traffic generator's total rate is bounded over all sources, and so is the
/// number of sources.
#[test]
fn traffic_is_capped_in_total_rate_and_sources() {
    use warehouse_sim::network::traffic::{parse_traffic, MAX_TOTAL_RPS};
    let mut c = Cluster::new(1, Topology::default());
    let node = c.list(Kind::Node, None)[0].name().to_string();
    let target = format!("{node}:30080");
    let start = |c: &mut Cluster, name: &str, rps: u32| {
        let rps = rps.to_string();
        let cmd = parse_traffic(&[
            "start", name, "--to", &target, "--from", "outside", "--rps", &rps,
        ])
        .unwrap();
        c.traffic_command(&cmd)
    };
    start(&mut c, "a", 6_000).unwrap();
    let err = start(&mut c, "b", 5_000).unwrap_err();
    assert_eq!(
        err,
        "error: sim traffic start: this simulated cluster sends at most 10000 requests/s in all; the running sources send 6000, so --rps may be at most 4000 (got 5000)"
    );
    start(&mut c, "b", MAX_TOTAL_RPS - 6_000).unwrap();
    // Stopping one frees its share.
    c.traffic_command(&parse_traffic(&["stop", "a"]).unwrap())
        .unwrap();
    for i in 0..98 {
        start(&mut c, &format!("s{i}"), 1).unwrap();
    }
    let err = start(&mut c, "one-too-many", 1).unwrap_err();
    assert!(err.contains("at most 100 traffic sources"), "{err}");
    // A stopped source starts again by its name.
    start(&mut c, "a", 1).unwrap();
}

mod budget {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        /// Create (or replace) ConfigMap `cm{i}` with this much data and annotation.
        Put {
            i: u8,
            data: usize,
            annotation: usize,
        },
        /// Relabel ConfigMap `cm{i}` (when it exists).
        Relabel { i: u8 },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u8..4, 0usize..300_000, 0usize..20_000).prop_map(|(i, data, annotation)| Op::Put {
                i,
                data,
                annotation
            }),
            (0u8..4).prop_map(|i| Op::Relabel { i }),
        ]
    }

    /// What the store holds for the ConfigMaps: the watch log's bytes plus the
    /// stored objects' bytes ([`object_size_bytes`]).
    fn store_bytes(c: &Cluster) -> usize {
        c.watch_log_bytes()
            + c.list(Kind::ConfigMap, None)
                .iter()
                .map(object_size_bytes)
                .sum::<usize>()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// The byte budget: whatever ConfigMaps are written, with whatever data,
        /// annotations and relabellings, the store's held bytes (watch log plus
        /// objects) stay within **2 × the input bytes + what the cluster held before**
        /// (every accepted write's object enters the log once, and the latest version
        /// of each is stored once), and never above the log's limit plus the objects.
        /// The process's memory grows by at most **4 × the input bytes + 8 MiB**
        /// (the log's copies, the store's, and allocator slack).
        /// Input bytes: the [`object_size_bytes`] of every object the user sent that
        /// was accepted.
        #[test]
        fn held_bytes_stay_within_a_multiple_of_the_input(ops in proptest::collection::vec(op(), 1..16)) {
            let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
            let mut c = Cluster::new(1, Topology::default());
            let base = store_bytes(&c);
            let held_before = held();
            let mut input = 0usize;
            for (n, op) in ops.iter().enumerate() {
                let sent = match op {
                    Op::Put { i, data, annotation } => {
                        let name = format!("cm{i}");
                        let obj = cm_json(
                            &name,
                            json!({"d": "x".repeat(*data)}),
                            json!({"a": "y".repeat(*annotation)}),
                        );
                        let size = object_size_bytes(&obj);
                        let ok = if c.get(Kind::ConfigMap, "default", &name).is_ok() {
                            c.update(obj).is_ok()
                        } else {
                            c.create(obj).is_ok()
                        };
                        ok.then_some(size)
                    }
                    Op::Relabel { i } => {
                        let name = format!("cm{i}");
                        c.get(Kind::ConfigMap, "default", &name).ok().map(|mut cm| {
                            cm.meta_mut()
                                .labels
                                .get_or_insert_with(Default::default)
                                .insert("round".into(), n.to_string());
                            let size = object_size_bytes(&cm);
                            c.update(cm).unwrap();
                            size
                        })
                    }
                };
                // The stored object also carries a resourceVersion, uid and
                // timestamps: a few hundred bytes more than what was sent.
                input += sent.map_or(0, |s| s + 512);
                let now = store_bytes(&c);
                prop_assert!(now <= 2 * input + base, "{now} > 2 × {input} + {base}");
                prop_assert!(c.watch_log_bytes() <= MAX_WATCH_LOG_BYTES.max(MAX_ETCD_VALUE_BYTES));
            }
            let grew = held() - held_before;
            prop_assert!(
                grew <= (4 * input + 8 * MIB) as i64,
                "memory grew by {grew} for {input} input bytes"
            );
        }
    }
}
