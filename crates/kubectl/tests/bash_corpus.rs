//! The script shell against real bash: each script of the corpus is run by
//! `bash` and by this crate's script runner, and both must print the same text.
//! The corpus is what learners paste: kubernetes.io's backslash-continued
//! commands, heredocs with and without quoted delimiters, quotes spanning lines,
//! comments next to backslashes. It uses only what both shells have (`echo`,
//! `cat`, variables, `$(...)`, pipes), so any difference is in how lines are read.

use std::process::Command;
use warehouse_kubectl::shell::script;
use warehouse_kubectl::{NoFiles, Session};

const CORPUS: &[(&str, &str)] = &[
    (
        "continued lines",
        "echo one \\\n  two \\\n    three\n",
    ),
    (
        "kubernetes.io's continuation style",
        "NS=shop\necho kubectl delete deployment web \\\n  -n $NS\necho next\n",
    ),
    ("single quotes over two lines", "echo 'a \\\nb'\n"),
    ("double quotes over two lines", "echo \"x\n  y\"\n"),
    ("a backslash inside double quotes", "echo \"a \\\nb\"\n"),
    (
        "a backslash in a comment does not continue",
        "echo a # note \\\necho b\n",
    ),
    ("an escaped backslash does not continue", "echo a\\\\\necho b\n"),
    ("a hash inside a word after a join", "echo a\\\n#b\n"),
    (
        "a comment after a continued line",
        "echo \"# not a comment\" \\\n  # a comment\necho done\n",
    ),
    (
        "an unquoted heredoc is expanded",
        "X=web\ncat <<EOF\nname: $X\nimage: ${X}:1.0\nwho: $(echo robot)\nold: `echo tick`\nprice: \\$5 and \\\\ and \\q\nquotes: \"$X\" '$X'\nEOF\n",
    ),
    (
        "quoted delimiters keep the body",
        "X=web\ncat <<'EOF'\nname: $X $(echo no)\nEOF\ncat <<\"EOF\"\nname: $X\nEOF\ncat <<\\EOF\nname: $X\nEOF\n",
    ),
    (
        "<<- strips leading tabs",
        "X=web\ncat <<-EOF\n\tname: $X\n\t\tdeep\n\tEOF\necho after\n",
    ),
    (
        "only the delimiter alone ends the body",
        "cat <<EOF\nhi\nEOF \n EOF\nEOF\necho after\n",
    ),
    (
        "a heredoc through a pipe",
        "X=1\ncat <<EOF | cat\nline $X\nEOF\n",
    ),
    (
        "a heredoc on a continued line",
        "export N=web\ncat \\\n  <<EOF\nhello $N\nEOF\n",
    ),
    (
        "backslash-newline inside an unquoted heredoc",
        "cat <<EOF\nbackslash at the end \\\ncontinues here\nEOF\n",
    ),
    (
        "defaults, in a line and in a heredoc",
        "echo ${UNSET:-fallback} ${UNSET-other}\ncat <<EOF\n${Y:-dflt}\nEOF\n",
    ),
    (
        "quotes and dollars that stay in a heredoc",
        "cat <<EOF\n'single' \"double\" $ end\nEOF\n",
    ),
    ("an empty heredoc", "cat <<EOF\nEOF\necho x\n"),
    (
        "blank lines inside a quote",
        "echo 'it''s' \"two\n\nblank lines\"\n",
    ),
];

fn bash(script: &str) -> String {
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", script])
        .env_clear()
        .env("LC_ALL", "C")
        .output()
        .expect("bash is on every machine this project is built on");
    assert!(
        out.stderr.is_empty(),
        "bash complained about a corpus script:\n{script}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("bash printed UTF-8")
}

fn ours(script: &str) -> String {
    let mut session = Session::new(warehouse_sim::Cluster::new(
        1,
        warehouse_sim::Topology::default(),
    ));
    let transcript = script::run(&mut session, script, &NoFiles);
    assert!(transcript.error.is_none(), "{transcript}");
    transcript
        .steps
        .iter()
        .map(|r| {
            assert!(r.output.stderr.is_empty(), "{}", r.output.stderr);
            r.output.stdout.as_str()
        })
        .collect()
}

#[test]
fn scripts_print_what_bash_prints() {
    let mut differ = Vec::new();
    for (name, script) in CORPUS {
        let expected = bash(script);
        let actual = ours(script);
        if expected != actual {
            differ.push(format!(
                "{name}:\n{script}--- bash:\n{expected}--- ours:\n{actual}"
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n\n"));
}

#[test]
fn the_terminal_waits_for_the_rest_of_an_open_command() {
    for open in [
        "kubectl delete deployment web \\",
        "kubectl apply -f - <<EOF\napiVersion: v1",
        "echo 'one",
        "echo \"one\ntwo",
    ] {
        assert!(script::needs_more(open), "{open:?}");
    }
    for whole in [
        "kubectl delete deployment web \\\n  -n shop",
        "kubectl apply -f - <<EOF\napiVersion: v1\nEOF",
        "echo 'it''s'",
        "echo a # it's",
        "cat <<EOF\nit's\nEOF",
    ] {
        assert!(!script::needs_more(whole), "{whole:?}");
    }
}
