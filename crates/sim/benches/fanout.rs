//! The watch fan-out of one pod change at 1,000 nodes and 10,000 endpoints of one
//! Service: the bytes every kube-proxy receives when it watches the legacy Endpoints
//! object vs EndpointSlices, printed side by side, and the time the simulation takes
//! to deliver the change.

use criterion::{criterion_group, criterion_main, Criterion};
use warehouse_sim::{decode_manifests, Cluster, Kind, Object, ProxyMode, SimDuration, Topology};

const NODES: usize = 1000;
const ENDPOINTS: usize = 10_000;

fn manifest(replicas: usize) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web, tier: web}}}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports: [{{name: http, containerPort: 80}}]
        resources: {{requests: {{cpu: 10m, memory: 16Mi}}}}
---
apiVersion: v1
kind: Service
metadata: {{name: web}}
spec:
  selector: {{app: web, tier: web}}
  ports: [{{name: http, port: 80, targetPort: http}}]
"
    )
}

fn converged(mode: ProxyMode) -> (Cluster, String) {
    let mut c = Cluster::new(1, Topology::with_workers(NODES));
    for o in decode_manifests(&manifest(ENDPOINTS)).unwrap() {
        c.create(o).unwrap();
    }
    c.advance(SimDuration::secs(120));
    c.set_proxy_mode(mode);
    c.advance(SimDuration::secs(1));
    // A pod the Endpoints object lists (it holds 1000 addresses at most).
    let Ok(Object::Endpoints(ep)) = c.get(Kind::Endpoints, "default", "web") else {
        panic!("no Endpoints for web")
    };
    let subsets = ep.subsets.unwrap_or_default();
    let pod = subsets[0].addresses.as_ref().unwrap()[0]
        .target_ref
        .as_ref()
        .and_then(|r| r.name.clone())
        .unwrap();
    (c, pod)
}

/// Moves the pod out of the Service (or back in) by its `tier` label: it stays in
/// its ReplicaSet, so nothing else changes.
fn toggle(c: &mut Cluster, pod: &str) {
    let Ok(Object::Pod(mut p)) = c.get(Kind::Pod, "default", pod) else {
        panic!("no pod {pod}")
    };
    let labels = p.metadata.labels.get_or_insert_with(Default::default);
    let next = if labels.get("tier").map(String::as_str) == Some("web") {
        "debug"
    } else {
        "web"
    };
    labels.insert("tier".into(), next.into());
    c.update(Object::Pod(p)).unwrap();
    c.advance(SimDuration::secs(1));
}

fn proxy_totals(c: &Cluster) -> (u64, u64) {
    c.watcher_stats()
        .iter()
        .filter(|l| l.kind == "kube-proxy")
        .fold((0, 0), |(o, b), l| (o + l.stats.objects, b + l.stats.bytes))
}

fn benches(crit: &mut Criterion) {
    let mut rows = Vec::new();
    let mut clusters = Vec::new();
    for mode in [ProxyMode::Endpoints, ProxyMode::EndpointSlices] {
        let (mut c, pod) = converged(mode);
        c.reset_watcher_stats();
        toggle(&mut c, &pod);
        rows.push((mode, proxy_totals(&c)));
        clusters.push((mode, c, pod));
    }
    println!("\none pod leaves a Service of {ENDPOINTS} endpoints, {NODES} workers + 1 control-plane node:");
    println!(
        "{:<16} {:>14} {:>16} {:>14}",
        "kube-proxy mode", "objects sent", "bytes sent", "bytes/proxy"
    );
    for (mode, (objects, bytes)) in &rows {
        println!(
            "{:<16} {:>14} {:>16} {:>14}",
            mode.name(),
            objects,
            bytes,
            bytes / (NODES as u64 + 1)
        );
    }
    let (e, s) = (rows[0].1 .1, rows[1].1 .1);
    println!(
        "Endpoints / EndpointSlices: {:.1}x\n",
        e as f64 / s.max(1) as f64
    );

    let mut g = crit.benchmark_group("fanout");
    g.sample_size(10);
    for (mode, c, pod) in clusters.iter_mut() {
        g.bench_function(
            format!("one pod change, {} mode, 1000 nodes", mode.name()),
            |b| b.iter(|| toggle(c, pod)),
        );
    }
    g.finish();
}

criterion_group!(fanout, benches);
criterion_main!(fanout);
