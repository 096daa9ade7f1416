//! The shell never panics and is deterministic on any line: random lines of
//! quotes, `$`, parentheses, backquotes, backslashes, operators and words.

use proptest::prelude::*;
use warehouse_kubectl::{NoFiles, Session};
use warehouse_sim::{Cluster, Topology};

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("'".to_string()),
        Just("\"".to_string()),
        Just("$".to_string()),
        Just("$(".to_string()),
        Just("${".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("`".to_string()),
        Just("\\".to_string()),
        Just("|".to_string()),
        Just("&".to_string()),
        Just(";".to_string()),
        Just("<".to_string()),
        Just(">".to_string()),
        Just("#".to_string()),
        Just("=".to_string()),
        Just(" ".to_string()),
        Just(":-".to_string()),
        Just("%".to_string()),
        Just("*".to_string()),
        Just("X".to_string()),
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
        Just("awk 'NR>1 {print $2, $0}'".to_string()),
        Just("tail -n +2".to_string()),
        Just("cat <<EOF".to_string()),
        Just("<<<".to_string()),
        Just("alias k=kubectl".to_string()),
        Just("k ".to_string()),
        "[a-z0-9.:/-]{1,6}".prop_map(|s| s),
        any::<char>().prop_map(|c| c.to_string()),
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..24).prop_map(|v| v.concat())
}

fn session() -> Session {
    Session::new(Cluster::new(1, Topology::default()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_lines_never_panic_and_run_the_same_twice(lines in prop::collection::vec(line(), 1..4)) {
        let mut a = session();
        let mut b = session();
        for l in &lines {
            let out_a = a.run_shell(l, None, &NoFiles);
            let out_b = b.run_shell(l, None, &NoFiles);
            prop_assert_eq!(&out_a, &out_b);
            // Every status is one bash could give.
            prop_assert!((0..=255).contains(&out_a.code), "{} gave {}", l, out_a.code);
        }
    }
}
