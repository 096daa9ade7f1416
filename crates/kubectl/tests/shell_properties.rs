//! Both shells never panic, always end, and keep within their limits on any
//! input: the terminal's shell (kubectl's) and the container shell (`sh -c`). Random
//! lines of quotes, `$`, parentheses, backquotes, backslashes, operators, words,
//! the characters text copied from a web page brings (carriage return, vertical tab,
//! form feed, non-breaking space, line separator), and constructs nested thousands
//! deep. Every case runs on a thread with the browser's stack (about 1 MiB).
//!
//! `PROPTEST_CASES=20000 cargo test -p warehouse-kubectl --test shell_properties`
//! runs a longer search.

use proptest::prelude::*;
use warehouse_kubectl::shell::{MAX_LINE_WORK_BYTES, MAX_NESTING};
use warehouse_kubectl::{NoFiles, Session};
use warehouse_sim::kubelet::shell::{self, End, MAX_LINES, MAX_LOG_BYTES, MAX_VALUE_BYTES};
use warehouse_sim::{Cluster, Topology};

/// Characters that once made a lexer loop or that bash treats unlike Rust's
/// `char::is_whitespace`.
fn nasty() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\r".to_string()),
        Just("\r\n".to_string()),
        Just("\u{b}".to_string()),
        Just("\u{c}".to_string()),
        Just("\u{a0}".to_string()),
        Just("\u{2028}".to_string()),
        Just("\u{2029}".to_string()),
        Just("\u{85}".to_string()),
        Just("\u{feff}".to_string()),
        Just("\u{3000}".to_string()),
        Just("\0".to_string()),
        Just("\n".to_string()),
        Just("\t".to_string()),
        Just("\\".to_string()),
    ]
}

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("'".to_string()),
        Just("\"".to_string()),
        Just("$".to_string()),
        Just("$(".to_string()),
        Just("$((".to_string()),
        Just("))".to_string()),
        Just("${".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("`".to_string()),
        Just("\\".to_string()),
        Just("|".to_string()),
        Just("&".to_string()),
        Just("&&".to_string()),
        Just("||".to_string()),
        Just(";".to_string()),
        Just("<".to_string()),
        Just(">".to_string()),
        Just("#".to_string()),
        Just("=".to_string()),
        Just(" ".to_string()),
        Just(":-".to_string()),
        Just("%".to_string()),
        Just("*".to_string()),
        Just("**".to_string()),
        Just("-".to_string()),
        Just("/0".to_string()),
        Just("X".to_string()),
        Just("$X".to_string()),
        Just("X=$X$X$X$X".to_string()),
        Just("9223372036854775807".to_string()),
        Just("-9223372036854775808".to_string()),
        Just("2>&1".to_string()),
        Just("/dev/null".to_string()),
        Just("echo -n".to_string()),
        Just("echo -e \\t".to_string()),
        Just("export X=".to_string()),
        Just("unset X".to_string()),
        Just("kubectl get pods".to_string()),
        Just("kubectl get ns -o name".to_string()),
        Just("kubectl proxy".to_string()),
        Just("curl localhost:8001/version".to_string()),
        Just(
            "curl -s http://localhost:8001/api/v1/namespaces/default/pods/x:8080/proxy/"
                .to_string()
        ),
        Just("wget -qO- ".to_string()),
        Just("minikube ip".to_string()),
        Just("grep a".to_string()),
        Just("head -n 1".to_string()),
        Just("wc -l".to_string()),
        Just("sort -rn".to_string()),
        Just("uniq -c".to_string()),
        Just("awk '{print $1}'".to_string()),
        Just("awk '{print $0,$0,$0,$0}'".to_string()),
        Just("awk 'NR>1 {print $2, $0}'".to_string()),
        Just("tail -n +2".to_string()),
        Just("cat <<EOF".to_string()),
        Just("<<<".to_string()),
        Just("alias k=kubectl".to_string()),
        Just("k ".to_string()),
        Just("while true; do ".to_string()),
        Just("until false; do ".to_string()),
        Just("; done".to_string()),
        Just("for i in 1 2 3; do ".to_string()),
        Just("if true; then ".to_string()),
        Just("; else ".to_string()),
        Just("; fi".to_string()),
        Just("break".to_string()),
        Just("seq 9223372036854775806 9223372036854775807".to_string()),
        Just("seq 1 -1 -9223372036854775808".to_string()),
        Just("sleep 99999999999999999999".to_string()),
        Just("printf %999999999d 1".to_string()),
        Just("[ ! ! -n x ]".to_string()),
        Just("test 1 -eq".to_string()),
        nasty(),
        "[a-z0-9.:/-]{1,6}".prop_map(|s| s),
        any::<char>().prop_map(|c| c.to_string()),
    ]
}

/// A construct opened `n` times around a core and (mostly) closed again.
fn deep() -> impl Strategy<Value = String> {
    let opens = prop_oneof![
        Just(("$(echo ", ")")),
        Just(("\"$(echo \"", "\")")),
        Just(("`echo ", "`")),
        Just(("$((", "))")),
        Just(("(", ")")),
        Just(("-", "")),
        Just(("if true; then ", "; fi")),
        Just(("while true; do ", "; break; done")),
        Just(("for i in 1; do ", "; done")),
        Just(("{ ", "; }")),
        Just(("true && ", "")),
        Just(("false || ", "")),
        Just(("echo | ", "")),
        Just(("! ", "")),
        Just(("2**", "")),
    ];
    (
        opens,
        prop_oneof![Just(0usize), 1usize..MAX_NESTING + 4, 1usize..3000],
        prop::collection::vec(piece(), 0..4),
        any::<bool>(),
    )
        .prop_map(|((open, close), n, core, closed)| {
            let closing = if closed { n } else { n / 2 };
            format!(
                "echo {}{}{}",
                open.repeat(n),
                core.concat(),
                close.repeat(closing)
            )
        })
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::collection::vec(piece(), 0..24).prop_map(|v| v.concat()),
        1 => deep(),
    ]
}

fn session() -> Session {
    Session::new(Cluster::new(1, Topology::default()))
}

/// Runs `f` on a thread with the browser's stack.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .expect("thread")
        .join()
        .expect("no panic and no stack overflow")
}

fn context() -> shell::Context {
    shell::Context {
        env: vec![("HOSTNAME".into(), "web".into()), ("X".into(), "x".into())],
        argv0: "sh".into(),
        ..shell::Context::default()
    }
}

/// A few seconds in CI; `PROPTEST_CASES` sets another count.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(32), ..ProptestConfig::default() })]

    #[test]
    fn random_lines_never_panic_and_run_the_same_twice(lines in prop::collection::vec(line(), 1..4)) {
        let outputs = on_small_stack(move || {
            let mut a = session();
            let mut b = session();
            let mut outputs = Vec::new();
            for l in &lines {
                let out_a = a.run_shell(l, None, &NoFiles);
                let out_b = b.run_shell(l, None, &NoFiles);
                outputs.push((l.clone(), out_a, out_b));
            }
            outputs
        });
        for (l, out_a, out_b) in outputs {
            prop_assert_eq!(&out_a, &out_b);
            // Every status is one bash could give.
            prop_assert!((0..=255).contains(&out_a.code), "{} gave {}", l, out_a.code);
            let bytes = out_a.stdout.len() + out_a.stderr.len();
            prop_assert!(bytes <= 2 * MAX_LINE_WORK_BYTES, "{} printed {} bytes", l, bytes);
        }
    }

    #[test]
    fn random_container_scripts_end_within_their_limits(lines in prop::collection::vec(line(), 1..4)) {
        let script = lines.join("\n");
        let shown = script.clone();
        let (a, b) = on_small_stack(move || {
            let a = shell::run(&script, &context(), 60_000, 10_000);
            let b = shell::run(&script, &context(), 60_000, 10_000);
            (a, b)
        });
        prop_assert_eq!(&a, &b);
        if let End::Exited { code, .. } = a.end {
            prop_assert!((0..=255).contains(&code), "{} gave {}", shown, code);
        }
        prop_assert!(a.lines.len() <= MAX_LINES);
        let bytes: usize = a.lines.iter().map(|(_, l)| l.len()).sum();
        prop_assert!(bytes <= MAX_LOG_BYTES, "{} logged {} bytes", shown, bytes);
        prop_assert!(a.lines.iter().all(|(_, l)| l.len() <= MAX_VALUE_BYTES));
    }
}
