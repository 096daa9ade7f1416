//! `cargo xtask offline`: the step of Trunk's post-build hook (`cargo xtask
//! post-build`) after `csp` and before `precompress` that tells the service worker (`web/sw.js`, copied
//! into the build as `sw.js`) what this build is.
//!
//! It lists every file of the staged `dist/` (the page, the hashed wasm, loader and
//! style, `explain.data`, `help.data`, the manifest, the icon and every lesson file),
//! marks the ones whose names carry Trunk's content hash, and writes them and a
//! hash of all their contents into `sw.js` in place of its three placeholders. A
//! build whose files differ in any byte has another version, so the browser installs
//! its worker, which caches the new files and deletes the old cache.

use std::fs;
use std::path::Path;

use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};

/// The worker's name in the build.
pub const WORKER: &str = "sw.js";
const VERSION_PLACEHOLDER: &str = "const VERSION = 'build-version';";
const FILES_PLACEHOLDER: &str = "const FILES = [];";
const HASHED_PLACEHOLDER: &str = "const HASHED = [];";

/// Stamps `$TRUNK_STAGING_DIR/sw.js` (or the folder given).
pub fn run(dir: Option<&str>) -> Result<()> {
    let dir = match dir {
        Some(d) => d.to_string(),
        None => std::env::var("TRUNK_STAGING_DIR").context(
            "TRUNK_STAGING_DIR is not set: run as Trunk's post_build hook or give a folder",
        )?,
    };
    let dir = Path::new(&dir);
    let mut files = Vec::new();
    list(dir, dir, &mut files)?;
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let path = dir.join(WORKER);
    let worker =
        fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let stamped = stamp(&worker, &files)?;
    fs::write(&path, stamped).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Every file under `dir` but the worker and `.gz` copies, as (path relative to
/// `root` with `/`, contents).
fn list(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
    for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            list(root, &path, out)?;
            continue;
        }
        let relative = path
            .strip_prefix(root)?
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        if relative == WORKER || relative.ends_with(".gz") {
            continue;
        }
        let bytes = fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        out.push((relative, bytes));
    }
    Ok(())
}

/// The worker with this build's version, files and hashed files written in.
pub fn stamp(worker: &str, files: &[(String, Vec<u8>)]) -> Result<String> {
    for placeholder in [VERSION_PLACEHOLDER, FILES_PLACEHOLDER, HASHED_PLACEHOLDER] {
        if worker.matches(placeholder).count() != 1 {
            bail!("sw.js must hold `{placeholder}` once");
        }
    }
    if !files.iter().any(|(name, _)| name == "index.html") {
        bail!("the build has no index.html");
    }
    let mut digest = Sha256::new();
    for (name, bytes) in files {
        digest.update((name.len() as u64).to_le_bytes());
        digest.update(name.as_bytes());
        digest.update((bytes.len() as u64).to_le_bytes());
        digest.update(bytes);
    }
    let version: String = digest
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    let quoted = |names: &mut dyn Iterator<Item = &str>| {
        let names: Vec<String> = names.map(|n| format!("\n  {}", js_string(n))).collect();
        if names.is_empty() {
            "[]".to_string()
        } else {
            format!("[{},\n]", names.join(","))
        }
    };
    let all = quoted(&mut files.iter().map(|(n, _)| n.as_str()));
    let hashed = quoted(
        &mut files
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| is_content_hashed(n)),
    );
    Ok(worker
        .replace(
            VERSION_PLACEHOLDER,
            &format!("const VERSION = '{version}';"),
        )
        .replace(FILES_PLACEHOLDER, &format!("const FILES = {all};"))
        .replace(HASHED_PLACEHOLDER, &format!("const HASHED = {hashed};")))
}

/// A JavaScript string literal of `s`.
fn js_string(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\\' | '\'' => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// True for a file Trunk names by its content (`style-0123456789abcdef.css`,
/// `warehouse-web-0123456789abcdef_bg.wasm`): a top-level file whose stem ends in
/// `-` and 16 hex digits, before an optional `_bg`.
fn is_content_hashed(name: &str) -> bool {
    if name.contains('/') {
        return false;
    }
    let Some((stem, _ext)) = name.rsplit_once('.') else {
        return false;
    };
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    let Some((_, hash)) = stem.rsplit_once('-') else {
        return false;
    };
    hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORKER_SRC: &str = include_str!("../../web/sw.js");

    fn build(style: &str) -> Vec<(String, Vec<u8>)> {
        vec![
            ("explain.data".into(), b"e".to_vec()),
            ("index.html".into(), b"<html>".to_vec()),
            ("lessons/01-first/en.md".into(), b"# It's".to_vec()),
            (
                "style-a584afb4d9081f66.css".into(),
                style.as_bytes().to_vec(),
            ),
            ("warehouse-web-d41adcd3678624a2.js".into(), b"js".to_vec()),
            (
                "warehouse-web-d41adcd3678624a2_bg.wasm".into(),
                b"w".to_vec(),
            ),
        ]
    }

    #[test]
    fn the_worker_learns_every_file_and_which_are_named_by_content() {
        let out = stamp(WORKER_SRC, &build("a{}")).unwrap();
        for name in ["'explain.data'", "'index.html'", "'lessons/01-first/en.md'"] {
            assert!(out.contains(name), "{name} missing:\n{out}");
        }
        let hashed = out
            .split("const HASHED = ")
            .nth(1)
            .and_then(|s| s.split(';').next())
            .unwrap();
        assert!(hashed.contains("'style-a584afb4d9081f66.css'"));
        assert!(hashed.contains("'warehouse-web-d41adcd3678624a2_bg.wasm'"));
        assert!(hashed.contains("'warehouse-web-d41adcd3678624a2.js'"));
        assert!(!hashed.contains("index.html") && !hashed.contains("lessons/"));
        assert!(!out.contains(VERSION_PLACEHOLDER));
    }

    #[test]
    fn a_build_that_differs_in_one_byte_has_another_version() {
        let version = |s: &str| {
            let out = stamp(WORKER_SRC, &build(s)).unwrap();
            out.split("const VERSION = '")
                .nth(1)
                .unwrap()
                .split('\'')
                .next()
                .unwrap()
                .to_string()
        };
        assert_eq!(version("a{}"), version("a{}"));
        assert_ne!(version("a{}"), version("b{}"));
        assert_eq!(version("a{}").len(), 16);
    }

    #[test]
    fn names_are_quoted_for_javascript() {
        assert_eq!(js_string("it's\\"), r"'it\'s\\'");
        assert!(!is_content_hashed("lessons/a-0123456789abcdef.md"));
        assert!(!is_content_hashed("help.data"));
    }

    #[test]
    fn a_worker_without_its_placeholders_or_a_build_without_a_page_is_refused() {
        assert!(stamp("self.addEventListener('fetch', () => {});", &build("")).is_err());
        assert!(stamp(WORKER_SRC, &[("a.js".into(), Vec::new())]).is_err());
    }
}
