//! Every manifest from the Kubernetes documentation in tests/k8s-examples applies,
//! or is refused with the message a real cluster gives, or is stored with a warning
//! that nothing simulates its kind. The outcomes are a golden file:
//! tests/golden/k8s-examples.expected (`UPDATE_EXPECT=1` rewrites it).

use std::path::{Path, PathBuf};
use warehouse_sim::{decode_manifests, Cluster, Kind, Object, Topology};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn manifests(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            manifests(&p, out);
        } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(p);
        }
    }
}

fn outcome(c: &mut Cluster, text: &str) -> String {
    let objects = match decode_manifests(text) {
        Ok(o) => o,
        Err(e) => return format!("refused: {e}"),
    };
    let mut lines = Vec::new();
    for obj in objects {
        let kind = obj.kind();
        let label = format!("{}/{}", kind.qualified_singular(), obj.name());
        match c.create(obj) {
            Ok(created) => {
                let warn = if kind.simulated() {
                    ""
                } else {
                    " (warning: not simulated)"
                };
                lines.push(format!(
                    "{label} created at {}{warn}",
                    created.api_version()
                ));
            }
            Err(e) => lines.push(format!("{label} refused: {e}")),
        }
    }
    lines.join("; ")
}

#[test]
fn every_documentation_example_has_a_known_outcome() {
    let root = workspace();
    let corpus = root.join("tests/k8s-examples");
    assert!(
        corpus.is_dir(),
        "the compatibility corpus is missing: expected {}",
        corpus.display()
    );
    let mut files = Vec::new();
    manifests(&corpus, &mut files);
    assert!(files.len() >= 70, "only {} manifests found", files.len());
    let mut report = String::new();
    for f in &files {
        // Each manifest gets a fresh cluster with the namespaces the tutorials create
        // first, so one file's objects never collide with another's.
        let mut c = Cluster::new(1, Topology::default());
        for ns in ["cpu-example", "mem-example", "dev", "prod"] {
            let o = decode_manifests(&format!(
                "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {ns}}}\n"
            ))
            .unwrap();
            c.create(o.into_iter().next().unwrap()).unwrap();
        }
        let text = std::fs::read_to_string(f).unwrap();
        let rel = f.strip_prefix(&corpus).unwrap().display().to_string();
        report.push_str(&format!("{rel}: {}\n", outcome(&mut c, &text)));
        // Whatever was created is really in the store.
        for kind in Kind::ALL {
            for o in c.list(kind, None) {
                assert!(
                    matches!(o, Object::Other(_)) || !kind.simulated() || o.meta().uid.is_some()
                );
            }
        }
    }
    let golden = root.join("tests/golden/k8s-examples.expected");
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&golden, &report).unwrap();
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_default();
    assert!(
        expected == report,
        "outcomes differ from {} (UPDATE_EXPECT=1 rewrites it):\n{report}",
        golden.display()
    );
}
