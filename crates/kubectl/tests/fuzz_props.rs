//! The fuzz targets' entry points on stable (`warehouse_kubectl::fuzzing`, the same
//! functions `fuzz/fuzz_targets/` call): a manifest applied as `kubectl apply -f -`,
//! one terminal line, a whole script, on the repository's manifests and golden
//! scripts mutated by the structure-aware mutator. `cargo xtask fuzz` runs them as long as
//! it is asked; these few cases run in CI.

#[path = "../../sim/tests/fuzz_support/mod.rs"]
mod fuzz_support;

use fuzz_support::{config, manifests, mutated, scripts, seeds_under};
use proptest::prelude::*;
use warehouse_kubectl::fuzzing;

/// The golden scripts' lines, one by one, and the committed terminal lines.
fn lines() -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = scripts()
        .iter()
        .flat_map(|s| {
            String::from_utf8_lossy(s)
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(String::into_bytes)
        .collect();
    lines.extend(seeds_under("fuzz/seeds/kubectl_line", &[]));
    lines
}

proptest! {
    #![proptest_config(config(12))]

    #[test]
    fn apply_survives_mutated_manifests(manifest in mutated(manifests())) {
        fuzzing::manifest_apply(&manifest.0);
    }

    #[test]
    fn the_terminal_survives_mutated_lines(line in mutated(lines())) {
        fuzzing::kubectl_line(&line.0);
    }
}

proptest! {
    #![proptest_config(config(6))]

    #[test]
    fn the_script_runner_survives_mutated_scripts(script in mutated(scripts())) {
        fuzzing::script(&script.0);
    }
}
