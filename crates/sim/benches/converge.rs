//! Budgets from DESIGN.md §7, measured: converge a large cluster, and run a steady
//! cluster forward in simulated time.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use warehouse_sim::{decode_manifests, Cluster, RobotState, SimDuration, Topology};

fn deployment(replicas: usize) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        resources: {{requests: {{cpu: 10m, memory: 16Mi}}}}
"
    )
}

fn converged(nodes: usize, replicas: usize) -> Cluster {
    let mut c = Cluster::new(1, Topology::with_workers(nodes));
    for o in decode_manifests(&deployment(replicas)).unwrap() {
        c.create(o).unwrap();
    }
    c.advance(SimDuration::secs(60));
    c
}

/// Running workload pods (kube-system's own are left out).
fn running(c: &Cluster) -> usize {
    c.view()
        .nodes
        .iter()
        .flat_map(|n| &n.pods)
        .filter(|p| !p.system && p.state == RobotState::Running)
        .count()
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("converge");
    g.sample_size(10);
    g.bench_function(
        "1000 nodes, deployment of 10000 replicas, 60s simulated",
        |b| {
            b.iter_batched(
                || (),
                |()| {
                    let c = converged(1000, 10_000);
                    assert_eq!(running(&c), 10_000);
                    c // dropped outside the measurement
                },
                BatchSize::PerIteration,
            )
        },
    );
    g.finish();

    let mut g = c.benchmark_group("steady");
    g.sample_size(10);
    g.bench_function("100 nodes, 10000 pods, advance 60s simulated", |b| {
        b.iter_batched(
            || converged(100, 10_000),
            |mut c| {
                c.advance(SimDuration::secs(60));
                c
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(all, benches);
criterion_main!(all);
