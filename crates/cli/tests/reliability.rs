//! The bad-input table of docs/RELIABILITY.md, kept true by running it: every row's
//! input goes to a fresh settled session exactly as a learner would send it (a
//! terminal line, a manifest to `kubectl apply -f -`, or a script a container runs),
//! its answer is printed into the table, and the cluster is checked: a refused input
//! leaves the store's revision where it was.
//!
//! The table in the document must equal what this test renders; after an intended
//! change, `RELIABILITY_UPDATE=1 cargo test -p warehouse-cli --test reliability`
//! rewrites it (then read the diff).

use std::fmt::Write as _;
use std::path::PathBuf;
use warehouse_kubectl::{NoFiles, Session};
use warehouse_sim::SimDuration;

const BEGIN: &str = "<!-- bad-input table: begin (crates/cli/tests/reliability.rs) -->";
const END: &str = "<!-- bad-input table: end -->";
/// A cell shows at most this many characters of an answer.
const CELL: usize = 160;

enum Input {
    /// A line typed into the terminal.
    Line(String),
    /// A manifest given to `kubectl apply -f -`.
    Apply(String),
    /// A busybox pod running `sh -c SCRIPT`; the answer is its log and status after
    /// a simulated minute.
    Container(String),
}

struct Row {
    /// How the table shows the input (Markdown).
    shown: &'static str,
    input: Input,
    /// Lines run first (their output is not shown).
    setup: &'static [&'static str],
}

fn line(shown: &'static str, l: impl Into<String>) -> Row {
    Row {
        shown,
        input: Input::Line(l.into()),
        setup: &[],
    }
}

fn apply(shown: &'static str, yaml: impl Into<String>) -> Row {
    Row {
        shown,
        input: Input::Apply(yaml.into()),
        setup: &[],
    }
}

fn container(shown: &'static str, script: impl Into<String>) -> Row {
    Row {
        shown,
        input: Input::Container(script.into()),
        setup: &[],
    }
}

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx\n";

fn rows() -> Vec<Row> {
    let nested = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
    let chain = |n: usize| vec!["true"; n].join(" && ");
    let billion_laughs = {
        let mut y = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        for (i, c) in "bcdefghi".chars().enumerate() {
            let prev = (b'a' + i as u8) as char;
            let _ = writeln!(y, "{c}: &{c} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]");
        }
        y
    };
    vec![
        // The terminal.
        line("`frobnicate pods`", "frobnicate pods"),
        line("`kubectl get pods -o yamll`", "kubectl get pods -o yamll"),
        line("`kubectl run Bad_Name --image=nginx`", "kubectl run Bad_Name --image=nginx"),
        line(
            "`kubectl create deployment big --image=nginx --replicas=20001`",
            "kubectl create deployment big --image=nginx --replicas=20001",
        ),
        line(
            "`kubectl scale deployment coredns -n kube-system --replicas=99999999999999999999`",
            "kubectl scale deployment coredns -n kube-system --replicas=99999999999999999999",
        ),
        line(
            "`kubectl scale deployment coredns -n kube-system --replicas=-1`",
            "kubectl scale deployment coredns -n kube-system --replicas=-1",
        ),
        Row {
            shown: "`kubectl delete pod p --grace-period=1000000000000` (then a simulated minute)",
            input: Input::Line(
                "kubectl delete pod p --grace-period=1000000000000".into(),
            ),
            setup: &["kubectl run p --image=nginx", "sim advance 30s"],
        },
        Row {
            shown: "`kubectl delete pod p --grace-period=9223372036854775807` on a running pod (then a simulated minute)",
            input: Input::Line("kubectl delete pod p --grace-period=9223372036854775807".into()),
            setup: &["kubectl run p --image=nginx", "sim advance 30s"],
        },
        line("`sim advance 100000000000h`", "sim advance 100000000000h"),
        line("`echo trailing\\` (a backslash at the end)", "echo trailing\\"),
        line("`echo a<CR>b<VT>c<FF>d<NBSP>e<U+2028>f`", "echo a\rb\u{b}c\u{c}d\u{a0}e\u{2028}f"),
        line(
            "`x=a; x=$x$x; x=$x$x; …` (doubling 30 times on one line)",
            format!("x=a{}", "; x=$x$x".repeat(30)),
        ),
        line("`true && true && …` (5,000 commands)", chain(5_000)),
        line(
            "`echo $(echo $(echo …))` (5,000 substitutions deep)",
            format!("echo {}x{}", "$(echo ".repeat(5_000), ")".repeat(5_000)),
        ),
        // Manifests.
        apply("a YAML syntax error (`metadata: {name: [x`)", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: [x\n"),
        apply("an unknown kind (`kind: Potato`)", "apiVersion: v1\nkind: Potato\nmetadata:\n  name: p\n"),
        apply(
            "an unknown field (`spec.replicaz`)",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicaz: 3\n",
        ),
        apply("a 2 MiB manifest", format!("{POD}# {}\n", "x".repeat(2 << 20))),
        apply("an alias bomb (nine levels of nine aliases)", billion_laughs),
        apply(
            "a 256 KiB anchor aliased 100 times",
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    a: &big \"{}\"\ndata:\n{}",
                "x".repeat(256 << 10),
                (0..100).map(|i| format!("  k{i}: *big\n")).collect::<String>()
            ),
        ),
        apply("131,072 nested `[`", format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: {}", "[".repeat(131_072))),
        apply("`replicas: .inf`", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: .inf\n"),
        apply(
            "a LimitRange with `min` above `max`",
            "apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: l\nspec:\n  limits:\n  - type: Container\n    min: {cpu: \"2\"}\n    max: {cpu: \"1\"}\n",
        ),
        apply("a control character (BEL) in a name", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\u{7}\n"),
        apply(
            "an unclosed quote on line 4",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"p\nspec:\n  containers: []\n",
        ),
        apply("`containerPort: 70000`", format!("{POD}    ports:\n    - containerPort: 70000\n")),
        apply("`containerPort: 0`", format!("{POD}    ports:\n    - containerPort: 0\n")),
        apply(
            "`cpu: 1e400` in a request",
            format!("{POD}    resources:\n      requests:\n        cpu: 1e400\n"),
        ),
        apply(
            "a valid Service, then a broken Deployment, in one file",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n  - port: 80\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: many\n",
        ),
        apply(
            "a Job with `activeDeadlineSeconds: 9223372036854775807`",
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  activeDeadlineSeconds: 9223372036854775807\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n        image: busybox\n        command: [sleep, \"3600\"]\n",
        ),
        // Scripts a container runs.
        container("`sh -c 'echo trailing\\'`", "echo trailing\\"),
        container("`sh -c` with CR, VT, FF, NBSP and U+2028", "echo a\rb\u{b}c\u{c}d\u{a0}e\u{2028}f"),
        container("`sh -c 'x=a; while true; do x=$x$x; done'`", "x=a; while true; do x=$x$x; done"),
        container("`sh -c 'true && … '` (5,000 commands)", chain(5_000)),
        container("`sh -c 'echo $((((…1…))))'` (5,000 deep)", format!("echo $(({}))", nested(5_000))),
        container("`sh -c 'seq 9223372036854775806 9223372036854775807'`", "seq 9223372036854775806 9223372036854775807"),
    ]
}

/// A table cell: one line, pipes escaped, at most [`CELL`] characters.
fn cell(text: &str) -> String {
    let mut one_line = String::new();
    for c in text.trim().chars() {
        match c {
            '\n' => one_line.push_str(" ⏎ "),
            '|' => one_line.push_str("\\|"),
            '`' => one_line.push('\''),
            '\r' => one_line.push_str("<CR>"),
            '\u{b}' => one_line.push_str("<VT>"),
            '\u{c}' => one_line.push_str("<FF>"),
            '\u{a0}' => one_line.push_str("<NBSP>"),
            c if c.is_control() || c == '\u{2028}' => {
                let _ = write!(one_line, "<U+{:04X}>", c as u32);
            }
            c => one_line.push(c),
        }
    }
    let mut out: String = one_line.chars().take(CELL).collect();
    if one_line.chars().count() > CELL {
        out.push('…');
    }
    if out.is_empty() {
        "(no output)".into()
    } else {
        out
    }
}

fn run_row(row: &Row) -> (String, String) {
    let mut s = Session::settled(1);
    for l in row.setup {
        let out = s.run_shell(l, None, &NoFiles);
        assert!(out.success(), "setup {l}: {}", out.combined());
    }
    let before = s.cluster.revision();
    match &row.input {
        Input::Line(l) => {
            let out = s.run_shell(l, None, &NoFiles);
            let after = s.cluster.revision();
            let answer = cell(&out.combined());
            let cluster = if out.success() {
                "answered".to_string()
            } else if after == before {
                "unchanged".to_string()
            } else {
                // A refusal that changed the store would be a half-applied input.
                panic!(
                    "{}: refused, yet the store moved from {before} to {after}",
                    row.shown
                )
            };
            let _ = s.cluster.advance(SimDuration::secs(60));
            (answer, cluster)
        }
        Input::Apply(yaml) => {
            let out = s.run_shell("kubectl apply -f -", Some(yaml), &NoFiles);
            let after = s.cluster.revision();
            let cluster = if out.success() {
                let _ = s.cluster.advance(SimDuration::secs(60));
                "applied".to_string()
            } else if after == before {
                "unchanged".to_string()
            } else {
                "partly applied".to_string()
            };
            (cell(&out.combined()), cluster)
        }
        Input::Container(script) => {
            let yaml = format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: sh\nspec:\n  restartPolicy: Never\n  containers:\n  - name: c\n    image: busybox\n    command: [sh, -c, {}]\n",
                serde_json_string(script)
            );
            let out = s.run_shell("kubectl apply -f -", Some(&yaml), &NoFiles);
            assert!(out.success(), "{}: {}", row.shown, out.combined());
            let _ = s.cluster.advance(SimDuration::secs(60));
            let logs = s.run_shell("kubectl logs sh", None, &NoFiles);
            let code = s.run_shell(
                "kubectl get pod sh -o jsonpath={.status.containerStatuses[0].state.terminated.exitCode}",
                None,
                &NoFiles,
            );
            let last = logs.combined();
            let last = last.lines().last().unwrap_or("").to_string();
            (
                cell(&last),
                format!("the container exited {}", cell(&code.stdout)),
            )
        }
    }
}

/// A JSON string literal is also a YAML flow scalar.
fn serde_json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{a0}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn render() -> String {
    let mut t = String::new();
    t.push_str(BEGIN);
    t.push_str("\n| input | the answer | the cluster |\n|---|---|---|\n");
    for row in rows() {
        let (answer, cluster) = run_row(&row);
        let _ = writeln!(t, "| {} | `{}` | {} |", row.shown, answer, cluster);
    }
    t.push_str(END);
    t
}

#[test]
fn the_bad_input_table_in_reliability_md_is_what_the_simulation_answers() {
    let doc_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/RELIABILITY.md");
    let doc = std::fs::read_to_string(&doc_path).expect("docs/RELIABILITY.md");
    let (Some(b), Some(e)) = (doc.find(BEGIN), doc.find(END)) else {
        panic!("docs/RELIABILITY.md has no bad-input table markers");
    };
    let table = render();
    let current = &doc[b..e + END.len()];
    if current == table {
        return;
    }
    if std::env::var_os("RELIABILITY_UPDATE").is_some() {
        let updated = format!("{}{}{}", &doc[..b], table, &doc[e + END.len()..]);
        std::fs::write(&doc_path, updated).expect("write docs/RELIABILITY.md");
        return;
    }
    panic!(
        "docs/RELIABILITY.md's bad-input table is not what the simulation answers; \
         rerun with RELIABILITY_UPDATE=1 and read the diff. It answers:\n{table}"
    );
}
