//! Going back in time: `sim rewind` and [`Session::rewind_to`] rebuild the session
//! from its history, byte for byte what it was at that moment; playing the clock
//! again replays what came next, and a new command forks the history.

use warehouse_kubectl::{MemoryFiles, NoFiles, Session};
use warehouse_sim::{Fault, SimDuration, SimTime};

fn sh(s: &mut Session, line: &str) -> String {
    let out = s.run_shell(line, None, &NoFiles);
    assert_eq!(out.code, 0, "{line}: {}", out.stderr);
    out.stdout
}

/// The inputs of a small story, each with the clock advanced after it in steps as
/// the browser's play button does (1.5 s a frame).
fn story(s: &mut Session, until: Option<SimTime>) {
    let steps: [(&str, u64); 4] = [
        (
            "kubectl create deployment web --image=nginx --replicas=3",
            60,
        ),
        ("kubectl scale deployment web --replicas=5", 45),
        ("sim node kill zone-a", 30),
        ("kubectl delete pod -l app=web --wait=false", 60),
    ];
    for (line, secs) in steps {
        if until.is_some_and(|t| s.cluster.now() >= t) {
            return;
        }
        if line.starts_with("sim node kill") {
            s.fault(Fault::KillNode("zone-a".into())).unwrap();
        } else {
            sh(s, line);
        }
        for _ in 0..(secs * 2 / 3) {
            if until.is_some_and(|t| s.cluster.now() >= t) {
                return;
            }
            s.advance(SimDuration::millis(1_500));
        }
    }
}

fn pods(s: &mut Session) -> String {
    s.run("get pods -o wide", None, &NoFiles).stdout
}

#[test]
fn rewinding_gives_the_cluster_as_it_was_then() {
    let mut s = Session::settled(11);
    story(&mut s, None);
    let end = s.cluster.now();
    let out = sh(&mut s, "sim rewind 90s");
    assert!(out.starts_with("rewound 90s to "), "{out}");
    assert!(
        out.contains("later inputs are replayed as the clock runs"),
        "{out}"
    );
    assert_eq!(s.cluster.now(), end - SimDuration::secs(90));
    // The same inputs up to that moment, on a fresh session.
    let mut fresh = Session::settled(11);
    story(&mut fresh, Some(s.cluster.now()));
    assert_eq!(fresh.cluster.now(), s.cluster.now());
    assert!(
        fresh.cluster.snapshot() == s.cluster.snapshot(),
        "the rewound cluster differs from the one that lived to that moment"
    );
    assert_eq!(pods(&mut fresh), pods(&mut s));
}

#[test]
fn playing_after_a_rewind_replays_what_came_next() {
    let mut s = Session::settled(11);
    story(&mut s, None);
    let end = s.cluster.now();
    let original = s.cluster.snapshot();
    s.rewind(SimDuration::secs(150)).unwrap();
    assert!(s.journal().future_len() > 0);
    // The clock runs again, in other steps than before.
    while s.cluster.now() < end {
        let left = end.since(s.cluster.now());
        s.advance(left.min(SimDuration::millis(7_000)));
    }
    assert_eq!(s.journal().future_len(), 0);
    assert_eq!(s.cluster.now(), end);
    assert!(
        s.cluster.snapshot() == original,
        "the replayed history differs"
    );
    // Back and forth again: still the same history.
    s.rewind(SimDuration::secs(30)).unwrap();
    s.advance(SimDuration::secs(30));
    assert!(s.cluster.snapshot() == original);
}

#[test]
fn a_new_command_after_a_rewind_forks_the_history() {
    let mut s = Session::settled(11);
    story(&mut s, None);
    s.rewind(SimDuration::secs(120)).unwrap();
    let ahead = s.journal().future_len();
    assert!(ahead > 0);
    sh(&mut s, "kubectl scale deployment web --replicas=1");
    assert_eq!(s.journal().future_len(), 0, "the old future is gone");
    s.advance(SimDuration::secs(60));
    let out = pods(&mut s);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("web-")).count(),
        1,
        "{out}"
    );
}

#[test]
fn a_rewind_stops_at_the_start_of_the_history() {
    let mut s = Session::settled(3);
    let out = s.run_shell("sim rewind 10s", None, &NoFiles);
    assert_ne!(out.code, 0);
    assert_eq!(
        out.stderr,
        "error: sim rewind: nothing has happened yet: there is no history to go back to\n"
    );
    let start = s.cluster.now();
    sh(&mut s, "kubectl create namespace shop");
    sh(&mut s, "sim advance 2m");
    let out = sh(&mut s, "sim rewind 1h");
    assert!(out.contains("the history reaches back to"), "{out}");
    assert_eq!(s.cluster.now(), start);
    let out = s.run("get namespace shop", None, &NoFiles);
    assert_eq!(out.code, 1, "the namespace was created after the start");
    for bad in ["sim rewind", "sim rewind soon", "sim rewind -5s"] {
        let out = s.run_shell(bad, None, &NoFiles);
        assert_eq!(out.code, 1, "{bad}");
        assert!(
            out.stderr.starts_with("error: sim rewind"),
            "{bad}: {}",
            out.stderr
        );
    }
}

#[test]
fn files_a_line_read_are_read_again_from_the_history() {
    let mut s = Session::settled(5);
    let files = MemoryFiles(
        [(
            "web.yaml".to_string(),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  colour: blue\n"
                .to_string(),
        )]
        .into_iter()
        .collect(),
    );
    let out = s.run_shell("kubectl apply -f web.yaml", None, &files);
    assert_eq!(out.code, 0, "{}", out.stderr);
    s.advance(SimDuration::secs(30));
    sh(&mut s, "kubectl delete configmap web");
    s.advance(SimDuration::secs(30));
    s.rewind(SimDuration::secs(40)).unwrap();
    // The file is no longer offered; the history kept what the line read.
    s.advance(SimDuration::secs(5));
    s.rewind(SimDuration::secs(10)).unwrap();
    let out = s.run(
        "get configmap web -o jsonpath={.data.colour}",
        None,
        &NoFiles,
    );
    assert_eq!(out.stdout, "blue");
}

#[test]
fn long_histories_keep_a_bounded_number_of_copies_and_rewind_exactly() {
    let mut s = Session::settled(9);
    sh(
        &mut s,
        "kubectl create deployment web --image=nginx --replicas=2",
    );
    for minute in 0..20 {
        if minute % 4 == 0 {
            sh(
                &mut s,
                &format!("kubectl scale deployment web --replicas={}", 2 + minute / 4),
            );
        }
        for _ in 0..6 {
            s.advance(SimDuration::secs(10));
        }
    }
    let end = s.cluster.now();
    for back in [15 * 60, 7 * 60 + 5, 61, 1] {
        s.rewind_to(end - SimDuration::secs(back)).unwrap();
        let mut fresh = Session::settled(9);
        sh(
            &mut fresh,
            "kubectl create deployment web --image=nginx --replicas=2",
        );
        'outer: for minute in 0..20 {
            if minute % 4 == 0 {
                if fresh.cluster.now() > s.cluster.now() {
                    break;
                }
                sh(
                    &mut fresh,
                    &format!("kubectl scale deployment web --replicas={}", 2 + minute / 4),
                );
            }
            for _ in 0..6 {
                let left = s.cluster.now().since(fresh.cluster.now());
                if left == SimDuration::ZERO {
                    break 'outer;
                }
                fresh.advance(left.min(SimDuration::secs(10)));
            }
        }
        assert_eq!(fresh.cluster.now(), s.cluster.now(), "{back}s back");
        assert!(
            fresh.cluster.snapshot() == s.cluster.snapshot(),
            "{back}s back"
        );
        s.rewind_to(end).unwrap_or_else(|e| panic!("{e}"));
        s.advance(end.since(s.cluster.now()));
        assert_eq!(s.cluster.now(), end);
    }
}

#[test]
fn an_exported_history_rebuilds_the_same_session_elsewhere() {
    let mut s = Session::settled(11);
    story(&mut s, None);
    let exported = s.journal().export("settled:11").unwrap();
    // Through JSON, as a link or a saved state carries it.
    let text = serde_json::to_string(&exported).unwrap();
    let back: warehouse_kubectl::journal::Exported = serde_json::from_str(&text).unwrap();
    let mut other = Session::settled(11);
    other.import(&back).unwrap();
    assert_eq!(other.cluster.now(), s.cluster.now());
    assert!(other.cluster.snapshot() == s.cluster.snapshot());
    // And it can be rewound there too.
    other.rewind(SimDuration::secs(90)).unwrap();
    s.rewind(SimDuration::secs(90)).unwrap();
    assert!(other.cluster.snapshot() == s.cluster.snapshot());
}

#[test]
fn a_history_that_does_not_fit_is_refused() {
    let mut s = Session::settled(11);
    story(&mut s, None);
    let good = s.journal().export("settled:11").unwrap();
    let refused = |h: &warehouse_kubectl::journal::Exported| {
        let mut fresh = Session::settled(11);
        fresh.import(h).unwrap_err()
    };
    let mut h = good.clone();
    h.version = 99;
    assert!(refused(&h).starts_with("it was written by another version"));
    let mut h = good.clone();
    h.entries.swap(0, 1);
    assert_eq!(refused(&h), "input 2 is out of order in time");
    let mut h = good.clone();
    h.entries[0].kind = "teleport".into();
    assert_eq!(refused(&h), "input 1 is of an unknown kind \"teleport\"");
    let mut h = good.clone();
    let last = h.entries.last().unwrap().until;
    h.entries.push(warehouse_kubectl::journal::ExportedEntry {
        at: last,
        until: last + 7 * 3600 * 1000,
        kind: "advance".into(),
        line: None,
        stdin: None,
        files: vec![],
        ms: Some(7 * 3600 * 1000),
    });
    assert!(refused(&h).starts_with("it covers "), "{}", refused(&h));
    // Another seed replays the same lines differently.
    let mut other = Session::settled(12);
    let err = other.import(&good);
    assert!(err.is_ok() || err.unwrap_err().contains("does not replay the same way"));
}

#[test]
fn a_marked_moment_sits_between_two_inputs_and_import_calls_back_there() {
    let mut s = Session::settled(11);
    sh(
        &mut s,
        "kubectl create deployment web --image=nginx --replicas=2",
    );
    s.advance(SimDuration::secs(10));
    let marked_at = s.cluster.now();
    let n = s.mark();
    // Without the mark, this advance would lengthen the one before.
    s.advance(SimDuration::secs(10));
    assert_eq!(s.journal().entries().len(), n + 1);
    sh(&mut s, "kubectl scale deployment web --replicas=3");
    s.advance(SimDuration::secs(5));
    let exported = s.journal().export("settled:11").unwrap();
    let mut other = Session::settled(11);
    let mut seen = Vec::new();
    other
        .import_with(&exported, &mut |o, k| {
            if k == n {
                seen.push(o.cluster.now());
            }
        })
        .unwrap();
    assert_eq!(seen, vec![marked_at]);
    assert!(other.cluster.snapshot() == s.cluster.snapshot());
    // A mark drops what a rewind left ahead: the history forks there.
    s.rewind(SimDuration::secs(8)).unwrap();
    assert!(s.journal().future_len() > 0);
    s.mark();
    assert_eq!(s.journal().future_len(), 0);
}
