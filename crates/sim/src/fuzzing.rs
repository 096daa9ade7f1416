//! Entry points for fuzzing, shared by the cargo-fuzz targets in `fuzz/` (nightly)
//! and the property tests that run the same functions on stable
//! (`tests/fuzz_props.rs` in this crate, in warehouse-kubectl and in
//! warehouse-lessons). Hidden from the documentation: nothing else calls them.
//!
//! Each entry point takes arbitrary bytes, runs them through the code a learner's
//! input reaches, and asserts invariants that are cheap to check. A panic (an
//! assertion or a bug) is a finding; an error message is not.
//!
//! [`mutate`] is the structure-aware mutator the property tests use on seed files:
//! byte flips, truncations, splices, nasty characters, huge numbers and deep nesting,
//! each operation decoded from one `u64` so that proptest shrinks a failing case to
//! fewer and simpler operations.

use crate::cluster::Cluster;
use crate::kubelet::runtime::{self, Process};
use crate::snapshot::{fnv1a64, SNAPSHOT_FORMAT, SNAPSHOT_VERSION};
use crate::time::SimDuration;

/// Text copied from web pages, terminals and editors that lexers tend to get wrong,
/// plus quoting and expansion starters.
pub const NASTY: &[&str] = &[
    "\r",
    "\r\n",
    "\x0b",
    "\x0c",
    "\u{a0}",
    "\u{2028}",
    "\u{2029}",
    "\u{feff}",
    "\u{200b}",
    "\0",
    "\t",
    "\\",
    "\\\n",
    "\"",
    "'",
    "`",
    "$",
    "$(",
    "${",
    "$((",
    "&&",
    "||",
    ";",
    "|",
    "<<",
    "#",
    "\n---\n",
    ": ",
    "- ",
    "{",
    "[",
    "&a",
    "*a",
    "!!binary ",
    "~",
    "é",
    "\u{1F600}",
];

/// Numbers at and beyond the edges of the integer types user input is parsed into.
pub const HUGE_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "65536",
    "2147483648",
    "4294967296",
    "1000000000000",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551616",
    "99999999999999999999999999",
    "1e308",
    "1e400",
    "0x7fffffffffffffff",
    "9999999999999Ei",
];

/// Opening and closing halves that nest.
const NESTING: &[(&str, &str)] = &[
    ("(", ")"),
    ("[", "]"),
    ("{", "}"),
    ("$(echo ", ")"),
    ("$((1+", "))"),
    ("true && ", "true"),
    ("false || ", "true"),
    ("- ", "x"),
    ("a:\n  ", "b: 1"),
    ("if true; then ", "; fi"),
    ("\"", "\""),
];

/// The most times one operation repeats a nesting pattern.
const MAX_NESTING: usize = 5_000;

/// Applies `ops` to `seed`, in order. Each `u64` is one operation: its low byte picks
/// the kind, the next bytes a position and an argument. `donor` is another seed that
/// splices take text from.
pub fn mutate(seed: &[u8], donor: &[u8], ops: &[u64]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for &op in ops {
        let kind = op & 0xff;
        let pos = ((op >> 8) & 0xff_ffff) as usize % (data.len() + 1);
        let arg = (op >> 32) as usize;
        match kind % 8 {
            // Flip one bit.
            0 => {
                if let Some(b) = data.get_mut(pos) {
                    *b ^= 1 << (arg % 8);
                }
            }
            // Truncate.
            1 => data.truncate(pos),
            // Insert a nasty character.
            2 => insert(&mut data, pos, NASTY[arg % NASTY.len()].as_bytes()),
            // Delete a short range.
            3 => {
                let end = (pos + 1 + arg % 64).min(data.len());
                data.drain(pos..end);
            }
            // Copy a range of the text to another place in it.
            4 => {
                let len = 1 + arg % 256;
                let from = (arg >> 8) % (data.len() + 1);
                let piece = data[from..(from + len).min(data.len())].to_vec();
                insert(&mut data, pos, &piece);
            }
            // Replace the number at or after the position with a huge one.
            5 => {
                let number = HUGE_NUMBERS[arg % HUGE_NUMBERS.len()].as_bytes();
                match data[pos..].iter().position(u8::is_ascii_digit) {
                    Some(offset) => {
                        let start = pos + offset;
                        let len = data[start..]
                            .iter()
                            .take_while(|b| b.is_ascii_digit())
                            .count();
                        data.splice(start..start + len, number.iter().copied());
                    }
                    None => insert(&mut data, pos, number),
                }
            }
            // Deep nesting.
            6 => {
                let (open, close) = NESTING[arg % NESTING.len()];
                let depth = 1 + (arg >> 8) % MAX_NESTING;
                let mut piece = open.repeat(depth).into_bytes();
                piece.extend(close.repeat(depth).bytes());
                insert(&mut data, pos, &piece);
            }
            // Splice: the donor's text from some offset replaces the tail.
            _ => {
                let from = arg % (donor.len() + 1);
                data.truncate(pos);
                data.extend_from_slice(&donor[from..]);
            }
        }
    }
    data
}

fn insert(data: &mut Vec<u8>, pos: usize, piece: &[u8]) {
    data.splice(pos..pos, piece.iter().copied());
}

/// Bytes as text the way the entry points receive it (a browser hands over UTF-8;
/// invalid sequences become U+FFFD, as `TextDecoder` does).
pub fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// What the web app reads from a cluster after every action: the view, the desks,
/// the countdowns and the change feed.
pub fn observe(cluster: &Cluster) {
    let view = cluster.view();
    let _ = cluster.desks();
    let _ = cluster.countdowns();
    let _ = cluster.feed_since(0);
    assert_eq!(view.revision, cluster.revision());
}

/// How long the container-shell entry point replays a script (the log a learner
/// asks for after ten simulated minutes).
const SHELL_HORIZON_MS: u64 = 10 * 60 * 1000;

/// `sh -c SCRIPT` as a container runs it: the kubelet's `$(VAR)` expansion of the
/// command, the exit search the kubelet makes, and the log `kubectl logs` replays.
pub fn container_shell(data: &[u8]) {
    let script = text(data);
    let env: Vec<(String, String)> = [
        ("HOSTNAME", "web-0"),
        ("GREETING", "hello"),
        ("KUBERNETES_SERVICE_HOST", "10.96.0.1"),
        ("KUBERNETES_SERVICE_PORT", "443"),
    ]
    .iter()
    .map(|&(k, v)| (k.into(), v.into()))
    .collect();
    let env = runtime::Env::of(env);
    let command = ["sh".to_string(), "-c".to_string(), script.into_owned()];
    let process = Process {
        image: "busybox".into(),
        argv: runtime::argv("busybox", &command, None, &env),
        env,
        started_ms: 123_456,
        memory_limit: Some(64 * 1024 * 1024),
        cpu_limit_milli: Some(500),
        gpus: 0,
        mounts: Default::default(),
        stdin: None,
        seed: Default::default(),
    };
    let _ = runtime::outcome(&process, runtime::EXIT_SEARCH_BUDGET);
    let lines = runtime::log(&process, SHELL_HORIZON_MS);
    assert!(
        lines.len() <= crate::kubelet::shell::MAX_LINES,
        "{} lines",
        lines.len()
    );
    assert!(
        lines.windows(2).all(|w| w[0].0 <= w[1].0),
        "log lines out of order"
    );
    assert!(
        lines.iter().all(|(at, _)| *at <= SHELL_HORIZON_MS),
        "a log line after the horizon"
    );
}

/// `bytes` behind a header whose checksum matches them: what a snapshot edited by
/// hand and sealed again looks like.
pub fn sealed(body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "{SNAPSHOT_FORMAT} {SNAPSHOT_VERSION} fnv1a64={:016x}\n",
        fnv1a64(body)
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

/// The snapshot loader: the bytes as they are, then their body (after the first
/// line) sealed again so that edits reach the decoder. A snapshot that restores
/// must give the same bytes again and keep running.
pub fn snapshot(data: &[u8]) {
    let resealed = data
        .iter()
        .position(|b| *b == b'\n')
        .map(|newline| sealed(&data[newline + 1..]));
    for bytes in std::iter::once(data).chain(resealed.as_deref()) {
        let Ok(mut cluster) = Cluster::restore(bytes) else {
            continue;
        };
        let again = cluster.snapshot();
        let restored = Cluster::restore(&again).expect("a snapshot it wrote restores");
        assert!(
            restored.snapshot() == again,
            "snapshot, restore, snapshot changed the bytes"
        );
        let before = cluster.now();
        cluster.advance(SimDuration::secs(10));
        assert!(cluster.now() >= before, "the clock went back");
        observe(&cluster);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_do_what_they_say() {
        let seed = b"replicas: 3\nname: web\n";
        // Kind 1 (truncate) at position 4.
        assert_eq!(mutate(seed, b"", &[1 | (4 << 8)]), b"repl");
        // Kind 5 (huge number) from position 0: the 3 becomes HUGE_NUMBERS[7].
        let huge = mutate(seed, b"", &[5 | (7 << 32)]);
        assert_eq!(huge, b"replicas: 9223372036854775808\nname: web\n");
        // Kind 2 (nasty) at position 0 inserts NASTY[0], a carriage return.
        assert_eq!(mutate(seed, b"", &[2])[0], b'\r');
        // Kind 7 splices the donor from offset 2 after position 3.
        assert_eq!(mutate(seed, b"xxyy", &[7 | (3 << 8) | (2 << 32)]), b"repyy");
        // Kind 6 nests NESTING[arg % 11] 1 + (arg >> 8) deep: 517 = 11 * 47 = 2 << 8 | 5.
        assert_eq!(mutate(b"", b"", &[6 | (517 << 32)]), b"((()))");
        // Every operation on an empty seed is safe.
        for kind in 0..8u64 {
            let _ = mutate(b"", b"", &[kind | (u64::MAX << 8)]);
        }
    }

    #[test]
    fn sealed_bytes_pass_the_checksum() {
        let bytes = sealed(b"{}");
        let err = Cluster::restore(&bytes).err().expect("{} is no cluster");
        assert!(
            matches!(err, crate::SnapshotError::Decode(_)),
            "the checksum passed and the decoder spoke: {err}"
        );
    }
}
