//! The fuzz targets' entry points on stable (`warehouse_sim::fuzzing`, the same
//! functions `fuzz/fuzz_targets/` call): the container shell and the snapshot
//! loader, on seeds of the repository mutated by the structure-aware mutator.
//! `cargo xtask fuzz` runs them as long as it is asked; these few cases run in CI.

mod common;
mod fuzz_support;

use common::*;
use fuzz_support::{config, mutated, seeds_under};
use proptest::prelude::*;
use warehouse_sim::fuzzing;
use warehouse_sim::{Cluster, Fault, SimDuration, Topology};

/// The snapshots the fuzz target starts from (also written as its seeds by
/// `write_snapshot_seeds`): a cold cluster, a settled one, and a busy one.
fn snapshots() -> Vec<(&'static str, Vec<u8>)> {
    let mut busy = Cluster::new(7, Topology::default());
    create(&mut busy, TROUBLE);
    create(&mut busy, WEB);
    busy.advance(SimDuration::secs(20));
    busy.fault(Fault::KillNode("zone-b".into())).unwrap();
    busy.etcd_snapshot_save("backup").unwrap();
    busy.add_user("jane", &["devs".to_string()]).unwrap();
    busy.advance(SimDuration::secs(7));
    vec![
        ("cold", Cluster::new(1, Topology::default()).snapshot()),
        (
            "settled",
            Cluster::settled(1, Topology::default()).snapshot(),
        ),
        ("busy", busy.snapshot()),
    ]
}

/// `cargo xtask fuzz` seeds the snapshot target with these (into the folder named by
/// `FUZZ_SNAPSHOT_SEEDS`).
#[test]
#[ignore = "writes the snapshot fuzz target's seeds; run by `cargo xtask fuzz`"]
fn write_snapshot_seeds() {
    let dir = std::env::var_os("FUZZ_SNAPSHOT_SEEDS").expect("FUZZ_SNAPSHOT_SEEDS names a folder");
    for (name, bytes) in snapshots() {
        std::fs::write(std::path::Path::new(&dir).join(name), bytes).unwrap();
    }
}

#[test]
fn the_seed_snapshots_pass_the_entry_point() {
    for (_, bytes) in snapshots() {
        fuzzing::snapshot(&bytes);
    }
}

fn container_scripts() -> Vec<Vec<u8>> {
    seeds_under("fuzz/seeds/container_shell", &[])
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn the_container_shell_survives_mutated_scripts(script in mutated(container_scripts())) {
        fuzzing::container_shell(&script.0);
    }
}

proptest! {
    #![proptest_config(config(8))]

    /// Mutations of the cold cluster's snapshot (the settled and busy ones take
    /// longer to decode in a debug build; the fuzz target has them).
    #[test]
    fn the_snapshot_loader_survives_mutated_snapshots(
        bytes in mutated(vec![Cluster::new(1, Topology::default()).snapshot()])
    ) {
        fuzzing::snapshot(&bytes.0);
    }
}
