//! The pieces of the `warehouse` command that tests reuse: files from disk for
//! scripts, running a script on a fresh settled cluster, and a line diff for
//! transcripts.

pub mod bench;
pub mod lessons;
pub mod repl;

use std::path::{Path, PathBuf};
use warehouse_kubectl::shell::script::{self, Transcript};
use warehouse_kubectl::{FileSource, Session};

/// Reads `-f` files from disk, relative to a base folder (the script's folder).
#[derive(Clone, Debug)]
pub struct DiskFiles {
    pub base: PathBuf,
}

impl DiskFiles {
    pub fn new(base: impl Into<PathBuf>) -> Self {
        DiskFiles { base: base.into() }
    }
}

impl FileSource for DiskFiles {
    fn list_dir(&self, path: &str, recursive: bool) -> Option<Vec<String>> {
        let p = Path::new(path);
        let full = if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base.join(p)
        };
        if !full.is_dir() {
            return None;
        }
        let mut out = Vec::new();
        walk(&full, path, recursive, &mut out);
        Some(out)
    }

    fn read(&self, path: &str) -> Result<String, String> {
        let p = Path::new(path);
        let full = if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base.join(p)
        };
        if full.is_dir() {
            return Err(format!(
                "the path \"{path}\" is a directory; this simulated kubectl reads single files"
            ));
        }
        read_bounded(&full, warehouse_sim::object::manifest::MAX_MANIFEST_BYTES).map_err(
            |e| match e {
                ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    format!("the path \"{path}\" does not exist")
                }
                ReadError::Io(e) => format!("the path \"{path}\" cannot be read: {e}"),
                ReadError::TooLarge => format!(
                    "the file \"{path}\" is larger than {} bytes, the most one manifest may be",
                    warehouse_sim::object::manifest::MAX_MANIFEST_BYTES
                ),
                ReadError::NotText => format!("the file \"{path}\" is not UTF-8 text"),
            },
        )
    }
}

/// Why [`read_bounded`] read nothing.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    /// Longer than the limit.
    TooLarge,
    /// Not UTF-8.
    NotText,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::TooLarge => f.write_str("the file is larger than its limit"),
            ReadError::NotText => f.write_str("the file is not UTF-8 text"),
        }
    }
}

/// Reads at most `limit` bytes of a file: a larger file (or an endless one such as
/// `/dev/zero`) is refused after `limit + 1` bytes, never read whole.
pub fn read_bounded(path: &Path, limit: usize) -> Result<String, ReadError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() > limit {
        return Err(ReadError::TooLarge);
    }
    String::from_utf8(bytes).map_err(|_| ReadError::NotText)
}

fn walk(dir: &Path, shown: &str, recursive: bool, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let path = dir.join(&name);
        let shown = format!("{}/{name}", shown.trim_end_matches('/'));
        // As kubectl's `-R` (Go's `filepath.Walk`): a symbolic link to a folder is
        // not entered, so a link back up the tree cannot loop.
        let real_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        if real_dir {
            if recursive {
                walk(&path, &shown, recursive, out);
            }
        } else if [".json", ".yaml", ".yml"]
            .iter()
            .any(|ext| name.ends_with(ext))
        {
            out.push(shown);
        }
    }
}

/// Runs a script on a new cluster with the default topology, settled as a learner
/// gets it ([`Session::settled`]); a script that starts with `sim boot cold` runs
/// from simulated second 0 instead.
pub fn run_script(text: &str, seed: u64, files: &dyn FileSource) -> Transcript {
    let mut session = Session::settled(seed);
    script::run(&mut session, text, files)
}

/// A line diff of `expected` against `actual`, or `None` if they are equal. Lines
/// only in `expected` start with `-`, lines only in `actual` with `+`, and up to
/// three unchanged lines around each change start with a space. Each hunk starts
/// with `@@ -L +L @@` (1-based line numbers).
pub fn diff(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let ops = edit_script(&a, &b);
    const CONTEXT: usize = 3;
    let mut out = String::new();
    let changed: Vec<bool> = ops.iter().map(|op| !matches!(op, Op::Same(..))).collect();
    let mut i = 0;
    while i < ops.len() {
        if !changed[i] {
            i += 1;
            continue;
        }
        let start = i.saturating_sub(CONTEXT);
        // Extend the hunk while changes are close together.
        let mut end = i;
        let mut j = i;
        while j < ops.len() {
            if changed[j] {
                end = j;
            } else if j - end > 2 * CONTEXT {
                break;
            }
            j += 1;
        }
        let stop = (end + CONTEXT + 1).min(ops.len());
        let (la, lb) = ops[start].lines();
        out.push_str(&format!("@@ -{} +{} @@\n", la + 1, lb + 1));
        for op in &ops[start..stop] {
            match op {
                Op::Same(x, _, _) => out.push_str(&format!(" {x}\n")),
                Op::Del(x, _, _) => out.push_str(&format!("-{x}\n")),
                Op::Add(x, _, _) => out.push_str(&format!("+{x}\n")),
            }
        }
        i = stop;
    }
    if out.is_empty() {
        // Only the final newline differs.
        out.push_str("(the texts differ only in their final line break)\n");
    }
    Some(out)
}

enum Op<'a> {
    /// Line, index in a, index in b.
    Same(&'a str, usize, usize),
    Del(&'a str, usize, usize),
    Add(&'a str, usize, usize),
}

impl Op<'_> {
    fn lines(&self) -> (usize, usize) {
        match self {
            Op::Same(_, x, y) | Op::Del(_, x, y) | Op::Add(_, x, y) => (*x, *y),
        }
    }
}

/// A shortest edit script by longest common subsequence (quadratic; transcripts
/// are small). Very large inputs fall back to a line-by-line comparison.
fn edit_script<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<Op<'a>> {
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > 25_000_000 {
        let mut ops = Vec::new();
        for k in 0..n.max(m) {
            match (a.get(k), b.get(k)) {
                (Some(x), Some(y)) if x == y => ops.push(Op::Same(x, k, k)),
                (x, y) => {
                    if let Some(x) = x {
                        ops.push(Op::Del(x, k, k));
                    }
                    if let Some(y) = y {
                        ops.push(Op::Add(y, k, k));
                    }
                }
            }
        }
        return ops;
    }
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::new();
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push(Op::Same(a[i], i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(Op::Del(a[i], i, j));
            i += 1;
        } else {
            ops.push(Op::Add(b[j], i, j));
            j += 1;
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::diff;

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(diff("a\nb\n", "a\nb\n"), None);
    }

    #[test]
    fn changed_lines_show_as_minus_and_plus_with_context() {
        let d = diff("a\nb\nc\nd\n", "a\nB\nc\nd\n").unwrap();
        assert_eq!(d, "@@ -1 +1 @@\n a\n-b\n+B\n c\n d\n");
    }

    #[test]
    fn final_newline_difference_is_reported() {
        assert!(diff("a\n", "a").is_some());
    }
}
