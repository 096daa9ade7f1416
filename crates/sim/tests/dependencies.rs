//! Architecture invariant: the simulation core never depends on the web.

use std::process::Command;

#[test]
fn sim_has_no_web_dependencies_on_any_target() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "-p",
            "warehouse-sim",
            "-e",
            "normal,build",
            "--target",
            "all",
            "--prefix",
            "none",
            // Not --offline: `--target all` reads the manifests of dependencies
            // for every platform, which a fresh machine's build has not
            // downloaded. --locked: the lock file is the tree, as it stands.
            "--locked",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(tree.contains("k8s-openapi"), "unexpected tree:\n{tree}");
    for banned in ["web-sys", "js-sys", "wasm-bindgen", "gloo", "getrandom"] {
        let hits: Vec<&str> = tree
            .lines()
            .filter(|l| {
                l.split_whitespace().next() == Some(banned) || l.starts_with(&format!("{banned}-"))
            })
            .collect();
        assert!(
            hits.is_empty(),
            "warehouse-sim depends on {banned}: {hits:?}"
        );
    }
}
