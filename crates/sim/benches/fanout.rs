//! The `fanout` scenario under criterion (`warehouse_sim::scenarios::fanout`, what
//! `warehouse bench fanout` times): one pod change at 1,000 nodes and 10,000
//! endpoints of one Service, delivered to every kube-proxy watching the legacy
//! Endpoints object or EndpointSlices; the bytes each mode sends are printed side by
//! side. `KW_BENCH_SMOKE=1` runs it at the smoke size.

use criterion::{criterion_group, criterion_main, Criterion};
use warehouse_sim::scenarios::{self, Size};
use warehouse_sim::ProxyMode;

fn benches(crit: &mut Criterion) {
    let size = if std::env::var_os("KW_BENCH_SMOKE").is_some() {
        Size::SMOKE
    } else {
        Size::LARGE
    };
    let (mut c, _) = scenarios::converge(1, size).expect("converges");
    println!(
        "\none pod leaves a Service of {} endpoints, {} workers + 1 control-plane node:",
        size.pods, size.nodes
    );
    for mode in [ProxyMode::Endpoints, ProxyMode::EndpointSlices] {
        let out = scenarios::fanout(&mut c, mode).expect("fans out");
        let facts: Vec<String> = out.facts.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!("{}", facts.join(" "));
    }
    let mut g = crit.benchmark_group("fanout");
    g.sample_size(10);
    for mode in [ProxyMode::Endpoints, ProxyMode::EndpointSlices] {
        g.bench_function(
            format!("one pod change, {} mode, {} nodes", mode.name(), size.nodes),
            |b| b.iter(|| scenarios::fanout(&mut c, mode).expect("fans out")),
        );
    }
    g.finish();
}

criterion_group!(fanout, benches);
criterion_main!(fanout);
