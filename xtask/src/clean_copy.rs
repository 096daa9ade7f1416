//! A clean copy of the repository: the files a fresh clone would have (tracked,
//! plus untracked ones git does not ignore, as they are in the working tree), in a
//! folder of its own under the system's temporary folder with nothing beside it.
//!
//! `cargo xtask test` runs the native tests, the lesson replays and the benchmark
//! smoke there, so a test that reads something only this checkout has — a built
//! artefact, an installed tool's folder, a sibling folder — fails here as it would
//! on a stranger's machine. The copy keeps its path between runs and only files
//! whose content changed are written again, so cargo's incremental builds still
//! work; the build output goes to the checkout's own target folder.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::paths::repository_files;

/// Folders a copy's own runs write into; kept between syncs.
const OUTPUT_DIRS: &[&str] = &["target", "dist"];

/// What [`sync`] did.
pub struct Synced {
    pub dir: PathBuf,
    pub files: usize,
    pub written: usize,
    pub removed: usize,
}

/// The copy's folder for the checkout at `root`: one per checkout, stable.
pub fn copy_dir(root: &Path) -> PathBuf {
    // FNV-1a of the checkout's path: stable across runs and platforms.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in root.to_string_lossy().bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    std::env::temp_dir()
        .join(format!("kube-warehouse-clean-copy-{hash:016x}"))
        .join("kube-warehouse")
}

/// Brings the copy of `root` up to date.
pub fn sync(root: &Path) -> Result<Synced> {
    sync_into(root, &copy_dir(root))
}

fn sync_into(root: &Path, dir: &Path) -> Result<Synced> {
    let files = repository_files(root)?;
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = 0;
    for name in &files {
        let from = root.join(name);
        let to = dir.join(name);
        let content = fs::read(&from).with_context(|| format!("cannot read {name}"))?;
        if fs::read(&to).is_ok_and(|old| old == content) {
            continue;
        }
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent)?;
        }
        // A folder where a file now is (or the reverse) goes first.
        if to.is_dir() {
            fs::remove_dir_all(&to)?;
        }
        fs::write(&to, &content).with_context(|| format!("cannot write {}", to.display()))?;
        fs::set_permissions(&to, fs::metadata(&from)?.permissions())?;
        written += 1;
    }
    let wanted: BTreeSet<PathBuf> = files.iter().map(PathBuf::from).collect();
    let removed = remove_others(dir, Path::new(""), &wanted)?;
    Ok(Synced {
        dir: dir.to_path_buf(),
        files: files.len(),
        written,
        removed,
    })
}

/// Removes what is under `dir/relative` but not in `wanted` (nor an output
/// folder at the top); returns how many files went.
fn remove_others(dir: &Path, relative: &Path, wanted: &BTreeSet<PathBuf>) -> Result<usize> {
    let mut removed = 0;
    for entry in fs::read_dir(dir.join(relative))? {
        let entry = entry?;
        let rel = relative.join(entry.file_name());
        let is_dir = entry.file_type()?.is_dir();
        if relative.as_os_str().is_empty()
            && is_dir
            && OUTPUT_DIRS.iter().any(|d| rel == Path::new(d))
        {
            continue;
        }
        if is_dir {
            removed += remove_others(dir, &rel, wanted)?;
            if fs::read_dir(dir.join(&rel))?.next().is_none() {
                fs::remove_dir(dir.join(&rel))?;
            }
        } else if !wanted.contains(&rel) {
            fs::remove_file(dir.join(&rel))?;
            removed += 1;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn the_copy_has_what_a_clone_has_and_nothing_else() {
        let scratch = std::env::temp_dir().join(format!("xtask-clean-copy-{}", std::process::id()));
        let _ = fs::remove_dir_all(&scratch);
        let repo = scratch.join("repo");
        fs::create_dir_all(repo.join("src")).unwrap();
        git(&repo, &["init", "-q"]);
        fs::write(repo.join(".gitignore"), "/target\n/tools\n").unwrap();
        fs::write(repo.join("src/a.rs"), "a").unwrap();
        fs::write(repo.join("b.txt"), "b").unwrap();
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-q", "-m", "one"]);
        // Untracked but not ignored: a clone made after committing would have it.
        fs::write(repo.join("new.md"), "new").unwrap();
        // Ignored: only this checkout has them.
        fs::create_dir_all(repo.join("tools/bin")).unwrap();
        fs::write(repo.join("tools/bin/x"), "x").unwrap();
        fs::create_dir_all(repo.join("target")).unwrap();
        fs::write(repo.join("target/out"), "o").unwrap();

        let copy = scratch.join("copy/kube-warehouse");
        let first = sync_into(&repo, &copy).unwrap();
        assert_eq!((first.files, first.written, first.removed), (4, 4, 0));
        assert_eq!(fs::read_to_string(copy.join("src/a.rs")).unwrap(), "a");
        assert!(copy.join("new.md").is_file());
        assert!(!copy.join("tools").exists() && !copy.join("target").exists());

        // Unchanged files are not written again; a changed one is; a deleted one
        // leaves; the copy's own output folder stays.
        fs::create_dir_all(copy.join("target/debug")).unwrap();
        fs::write(copy.join("target/debug/x"), "built").unwrap();
        fs::write(repo.join("b.txt"), "b2").unwrap();
        fs::remove_file(repo.join("new.md")).unwrap();
        let stray = copy.join("src/stray/left.rs");
        fs::create_dir_all(stray.parent().unwrap()).unwrap();
        fs::write(&stray, "s").unwrap();
        let second = sync_into(&repo, &copy).unwrap();
        assert_eq!((second.files, second.written, second.removed), (3, 1, 2));
        assert_eq!(fs::read_to_string(copy.join("b.txt")).unwrap(), "b2");
        assert!(!copy.join("new.md").exists() && !copy.join("src/stray").exists());
        assert!(copy.join("target/debug/x").is_file());
        let _ = fs::remove_dir_all(&scratch);
    }

    #[test]
    fn each_checkout_has_its_own_stable_copy() {
        let a = copy_dir(Path::new("/somewhere/a"));
        assert_eq!(a, copy_dir(Path::new("/somewhere/a")));
        assert_ne!(a, copy_dir(Path::new("/somewhere/b")));
        assert!(a.starts_with(std::env::temp_dir()));
        assert_eq!(a.file_name().unwrap(), "kube-warehouse");
    }
}
