//! The `warehouse bench` scenarios under criterion (`warehouse_sim::scenarios`, the
//! same code the CLI times): converge 1,000 nodes and a Deployment of 10,000
//! replicas with its Service, run that cluster steady, and lose 10% of its zones.
//! `KW_BENCH_SMOKE=1` runs them at the smoke size.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use warehouse_sim::scenarios::{self, Size};
use warehouse_sim::SimDuration;

fn size() -> Size {
    if std::env::var_os("KW_BENCH_SMOKE").is_some() {
        Size::SMOKE
    } else {
        Size::LARGE
    }
}

fn benches(c: &mut Criterion) {
    let size = size();
    let label = format!("{} nodes, {} pods", size.nodes, size.pods);
    let mut g = c.benchmark_group("converge");
    g.sample_size(10);
    g.bench_function(
        format!("{label}, apply until every endpoint is ready"),
        |b| {
            b.iter_batched(
                || (),
                |()| scenarios::converge(1, size).expect("converges"),
                BatchSize::PerIteration,
            )
        },
    );
    g.finish();

    let mut g = c.benchmark_group("steady");
    g.sample_size(10);
    g.bench_function(format!("{label}, 60 s simulated"), |b| {
        b.iter_batched(
            || scenarios::converge(1, size).expect("converges").0,
            |mut c| {
                scenarios::steady(&mut c, SimDuration::secs(60));
                c
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();

    let mut g = c.benchmark_group("node-death");
    g.sample_size(10);
    g.bench_function(format!("{label}, 10% of zones die"), |b| {
        b.iter_batched(
            || scenarios::converge(1, size).expect("converges").0,
            |mut c| {
                scenarios::node_death(&mut c, size.pods, 10).expect("recovers");
                c
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(all, benches);
criterion_main!(all);
