//! What the `fuzz_props.rs` tests of warehouse-sim, warehouse-kubectl and
//! warehouse-lessons share (the other two include this file by path): the seed
//! files of the repository, the proptest configuration, and a strategy of seeds
//! mutated by `warehouse_sim::fuzzing::mutate`, the structure-aware mutator.
#![allow(dead_code)] // each test crate uses its own subset

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::path::{Path, PathBuf};

/// The seed proptest uses unless `PROPTEST_RNG_SEED` names another: CI runs the
/// same cases every time; set the variable (and `PROPTEST_CASES`) to explore further.
const RNG_SEED: u64 = 13;

/// `cases` cases, unless `PROPTEST_CASES` says otherwise.
pub fn config(cases: u32) -> ProptestConfig {
    let default = ProptestConfig::default();
    let cases = match std::env::var_os("PROPTEST_CASES") {
        Some(_) => default.cases,
        None => cases,
    };
    let rng_seed = match default.rng_seed {
        RngSeed::Random => RngSeed::Fixed(RNG_SEED),
        fixed => fixed,
    };
    ProptestConfig {
        cases,
        rng_seed,
        // Shrinking a slow case to its minimum takes minutes; a few hundred steps
        // leave a reproducer small enough to read.
        max_shrink_iters: 256,
        // The seed is fixed: the same cases run again without a regressions file.
        failure_persistence: None,
        ..default
    }
}

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates sit two levels below the workspace")
        .to_path_buf()
}

/// The files under `dir` (recursively, sorted by path) whose extension is one of
/// `exts` (any if empty), as (path relative to `dir`, content).
pub fn files_under(dir: &Path, exts: &[&str]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if exts.is_empty() || exts.contains(&ext) {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                out.push((rel, std::fs::read(&path).expect("a readable seed file")));
            }
        }
    }
    out.sort();
    out
}

/// The contents of the files under `dir` (relative to the workspace).
pub fn seeds_under(dir: &str, exts: &[&str]) -> Vec<Vec<u8>> {
    let path = workspace().join(dir);
    assert!(path.is_dir(), "seed folder {} is missing", path.display());
    files_under(&path, exts)
        .into_iter()
        .map(|(_, bytes)| bytes)
        .collect()
}

/// Every manifest of the repository: lessons, golden manifests, committed seeds and
/// the Kubernetes documentation examples.
pub fn manifests() -> Vec<Vec<u8>> {
    let exts = ["yaml", "yml", "json"];
    let mut seeds = seeds_under("lessons", &exts);
    seeds.extend(seeds_under("tests/golden/manifests", &exts));
    seeds.extend(seeds_under("fuzz/seeds/manifest_apply", &[]));
    seeds.extend(seeds_under("tests/k8s-examples", &exts));
    seeds
}

/// The golden scripts.
pub fn scripts() -> Vec<Vec<u8>> {
    seeds_under("tests/golden", &["script"])
}

/// A generated input; a failing case prints as an escaped string (a reproducer to
/// paste), not as a list of bytes.
#[derive(Clone)]
pub struct Input(pub Vec<u8>);

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(&self.0))
    }
}

/// One seed, unchanged or mutated: up to six operations of
/// `warehouse_sim::fuzzing::mutate`, with another seed as the donor for splices.
pub fn mutated(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Input> {
    assert!(!seeds.is_empty(), "no seeds");
    let n = seeds.len();
    (0..n, 0..n, prop::collection::vec(any::<u64>(), 0..6)).prop_map(move |(i, j, ops)| {
        Input(warehouse_sim::fuzzing::mutate(&seeds[i], &seeds[j], &ops))
    })
}
