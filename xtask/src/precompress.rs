//! `cargo xtask precompress`: the last step of Trunk's post-build hook (`cargo xtask post-build`).
//! In a release build it writes `NAME.gz` (gzip, level 9) beside every `.wasm`, `.js`,
//! `.css` and `.data` file of the staged `dist/`, for a static host that serves
//! precompressed files (nginx `gzip_static on;`, Caddy `file_server { precompressed gzip }`).
//! `trunk serve` sends the plain files; a debug build writes nothing.

use std::fs;
use std::io::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use flate2::write::GzEncoder;
use flate2::Compression;

/// The extensions compressed: the app, its loader, its style and kubectl's field
/// documentation (lessons are small and fetched one by one).
const EXTENSIONS: [&str; 4] = ["wasm", "js", "css", "data"];

/// Compresses the files of `$TRUNK_STAGING_DIR` (or the folder given) when
/// `$TRUNK_PROFILE` is `release` or a folder is given.
pub fn run(dir: Option<&str>) -> Result<()> {
    let dir = match dir {
        Some(d) => d.to_string(),
        None => {
            if std::env::var("TRUNK_PROFILE").as_deref() != Ok("release") {
                return Ok(());
            }
            std::env::var("TRUNK_STAGING_DIR").context(
                "TRUNK_STAGING_DIR is not set: run as Trunk's post_build hook or give a folder",
            )?
        }
    };
    for entry in fs::read_dir(&dir).with_context(|| format!("reading {dir}"))? {
        let path = entry?.path();
        let wanted = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e));
        if wanted && path.is_file() {
            compress(&path)?;
        }
    }
    Ok(())
}

/// Writes `path.gz`.
fn compress(path: &Path) -> Result<()> {
    let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = GzEncoder::new(Vec::new(), Compression::best());
    out.write_all(&bytes)?;
    let gz = out.finish()?;
    let mut name = path.as_os_str().to_owned();
    name.push(".gz");
    fs::write(&name, gz).with_context(|| format!("writing {}", Path::new(&name).display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    #[test]
    fn writes_gzip_beside_the_app_files_only() {
        let dir = std::env::temp_dir().join(format!("xtask-precompress-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("app_bg.wasm"), b"\0asm wasm bytes wasm bytes").unwrap();
        fs::write(dir.join("index.html"), b"<html>").unwrap();
        run(Some(dir.to_str().unwrap())).unwrap();
        let gz = fs::read(dir.join("app_bg.wasm.gz")).unwrap();
        let mut plain = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut plain)
            .unwrap();
        assert_eq!(plain, b"\0asm wasm bytes wasm bytes");
        assert!(!dir.join("index.html.gz").exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
