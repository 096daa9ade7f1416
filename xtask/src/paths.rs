//! The repository stands alone: no file in it names a path outside it.
//!
//! A relative path that climbs (`..`, a slash, a name) in a source, a script, a test or a document is
//! resolved against the folder of the file that names it and each folder above it,
//! up to the workspace root (code often joins a path to `CARGO_MANIFEST_DIR` or to
//! the root). It is fine if one of those resolutions stays inside the repository
//! and names something that exists there; otherwise it points outside (a sibling
//! checkout, a folder only some machines have) and is reported with its line.
//!
//! A line that names such a path on purpose (a hostile input in a test) carries
//! the marker [`ALLOW_MARKER`].

use std::fs;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

/// Written on a line whose `../` path is meant not to exist (test data).
pub const ALLOW_MARKER: &str = "not-a-repository-path";

/// Files larger than this are data, not sources; they are not read.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// One reference to a path outside the repository.
#[derive(Debug, PartialEq, Eq)]
pub struct OutsideReference {
    pub file: String,
    pub line: usize,
    pub path: String,
}

impl std::fmt::Display for OutsideReference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: `{}` is outside the repository",
            self.file, self.line, self.path
        )
    }
}

/// The repository's files as a clone would have them: tracked files plus the
/// untracked ones git does not ignore, relative to `root`, sorted. Outside a git
/// checkout (a clean copy) every file below `root` but build output.
pub fn repository_files(root: &Path) -> Result<Vec<String>> {
    let mut files = if is_git_top_level(root) {
        git_files(root)?
    } else {
        let mut found = Vec::new();
        walk(root, Path::new(""), &mut found)?;
        found
    };
    files.sort();
    files.dedup();
    Ok(files)
}

/// Folders that hold what a build or an install wrote, never sources.
const NOT_SOURCES: &[&str] = &[".git", "target", "dist", "tools", "node_modules"];

fn is_git_top_level(root: &Path) -> bool {
    let Ok(output) = Command::new("git")
        .args(["rev-parse", "--show-toplevel"])
        .current_dir(root)
        .output()
    else {
        return false;
    };
    let top = String::from_utf8_lossy(&output.stdout);
    output.status.success() && Path::new(top.trim()).canonicalize().ok() == root.canonicalize().ok()
}

fn git_files(root: &Path) -> Result<Vec<String>> {
    let output = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root)
        .output()
        .context("cannot run `git ls-files`")?;
    anyhow::ensure!(
        output.status.success(),
        "`git ls-files` failed in {}: {}",
        root.display(),
        String::from_utf8_lossy(&output.stderr).trim()
    );
    Ok(output
        .stdout
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .map(|name| String::from_utf8_lossy(name).into_owned())
        // A tracked file deleted in the working tree is not in a clone made now.
        .filter(|name| root.join(name).is_file())
        .collect())
}

fn walk(root: &Path, relative: &Path, out: &mut Vec<String>) -> Result<()> {
    let dir = root.join(relative);
    for entry in fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let entry = entry?;
        let rel = relative.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            let name = entry.file_name();
            if !NOT_SOURCES.iter().any(|n| name == *n) {
                walk(root, &rel, out)?;
            }
        } else if kind.is_file() {
            out.push(rel.to_string_lossy().into_owned());
        }
    }
    Ok(())
}

/// Every reference to a path outside the repository in the repository's files.
pub fn outside_references(root: &Path) -> Result<Vec<OutsideReference>> {
    let mut found = Vec::new();
    for file in repository_files(root)? {
        let path = root.join(&file);
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        if meta.len() > MAX_FILE_BYTES {
            continue;
        }
        let bytes = fs::read(&path).with_context(|| format!("cannot read {file}"))?;
        if bytes.contains(&0) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        found.extend(references_in(root, &file, &text));
    }
    Ok(found)
}

/// The outside references in one file's text (`file` is relative to `root`).
pub fn references_in(root: &Path, file: &str, text: &str) -> Vec<OutsideReference> {
    let mut found = Vec::new();
    let folder = Path::new(file).parent().unwrap_or(Path::new(""));
    for (index, line) in text.lines().enumerate() {
        if line.contains(ALLOW_MARKER) {
            continue;
        }
        for token in relative_paths(line) {
            if !resolves_inside(root, folder, token) {
                found.push(OutsideReference {
                    file: file.to_string(),
                    line: index + 1,
                    path: token.to_string(),
                });
            }
        }
    }
    found
}

/// The climbing relative paths on a line: a run of `../` (not part of a longer name) and the
/// path characters after it.
fn relative_paths(line: &str) -> Vec<&str> {
    let bytes = line.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    while let Some(offset) = line[at..].find("../") {
        let start = at + offset;
        let glued = start > 0 && is_path_byte(bytes[start - 1]);
        let mut end = start;
        while end < bytes.len() && is_path_byte(bytes[end]) {
            end += 1;
        }
        if !glued {
            tokens.push(line[start..end].trim_end_matches(['.', '/']));
        }
        at = end.max(start + 3);
    }
    tokens
}

fn is_path_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'/' | b'_' | b'-')
}

/// True if `token`, taken from `folder` or any folder above it up to the root,
/// names an existing path inside `root`.
fn resolves_inside(root: &Path, folder: &Path, token: &str) -> bool {
    let mut base = Some(folder);
    while let Some(dir) = base {
        if let Some(inside) = normalize(&dir.join(token)) {
            if root.join(inside).exists() {
                return true;
            }
        }
        base = dir.parent();
    }
    false
}

/// `path` (relative to the root) with `.` and `..` folded; `None` if it climbs
/// above the root.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => parts.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .to_path_buf()
    }

    /// A path `levels` folders up, built so that this file names none (it is
    /// scanned too).
    fn up(levels: usize, rest: &str) -> String {
        format!("{}{rest}", "../".repeat(levels))
    }

    #[test]
    fn no_file_names_a_path_outside_the_repository() {
        let found = outside_references(&root()).unwrap();
        let listed: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert!(
            found.is_empty(),
            "paths outside the repository:\n{}",
            listed.join("\n")
        );
    }

    #[test]
    fn a_sibling_folder_is_reported_with_its_line() {
        let text = format!(
            "fn corpus() {{}}\nlet c = root.join(\"{}\");\n",
            up(1, "shared/k8s-examples")
        );
        let found = references_in(&root(), "crates/sim/tests/corpus.rs", &text);
        assert_eq!(
            found,
            vec![OutsideReference {
                file: "crates/sim/tests/corpus.rs".into(),
                line: 2,
                path: up(1, "shared/k8s-examples"),
            }]
        );
        // Two levels up from the root is outside too, whatever exists there.
        let text = up(2, "shared/k8s-examples");
        assert_eq!(references_in(&root(), "xtask/src/fuzz.rs", &text).len(), 1);
    }

    #[test]
    fn paths_inside_the_repository_pass_from_any_folder_above_the_file() {
        let root = root();
        // From the file's own folder.
        let css = up(1, "style.css");
        assert!(references_in(&root, "web/src/main.rs", &css).is_empty());
        // From the crate folder (`CARGO_MANIFEST_DIR`), one above the file's.
        let docs = up(2, "docs/RELIABILITY.md");
        assert!(references_in(&root, "crates/cli/tests/reliability.rs", &docs).is_empty());
        // The workspace root itself.
        let ws = format!("join(\"{}\")", up(2, ""));
        assert!(references_in(&root, "crates/sim/tests/corpus.rs", &ws).is_empty());
        // Something inside that does not exist is reported.
        let missing = up(1, "no-such-folder/x");
        assert_eq!(references_in(&root, "web/src/main.rs", &missing).len(), 1);
    }

    #[test]
    fn a_marked_line_and_longer_names_are_not_paths() {
        let marked = format!("{{\"{}\": 1}} // {ALLOW_MARKER}", up(2, "etc"));
        assert!(references_in(&root(), "tests/browser/x.mjs", &marked).is_empty());
        assert_eq!(relative_paths("a...b"), Vec::<&str>::new());
        assert_eq!(relative_paths("x/../y"), Vec::<&str>::new());
        assert_eq!(
            relative_paths(&format!("see ({}).", up(1, "a/b.md"))),
            vec![up(1, "a/b.md").as_str()]
        );
    }
}
