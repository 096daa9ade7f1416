//! `cargo xtask csp`: the first step of Trunk's post-build hook (`cargo xtask post-build`,
//! Trunk.toml `[[hooks]]`) that completes
//! the page's Content-Security-Policy.
//!
//! Trunk starts the app with an inline `<script type="module">` (and, under
//! `trunk serve`, an inline auto-reload script) whose text names the hashed file
//! names of this build. The policy in `index.html` allows no inline script but the
//! ones listed by hash; this hook computes the SHA-256 of every inline script in the
//! staged `index.html` and writes them where the policy says
//! [`HASHES_PLACEHOLDER`]. Nothing else can run inline. It also takes the
//! `integrity` attribute off the wasm's preload, which Chromium ignores with a
//! console warning on every load.

use std::fs;
use std::path::Path;

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use sha2::{Digest, Sha256};

/// The token in `index.html`'s policy that the hashes replace.
pub const HASHES_PLACEHOLDER: &str = "'inline-script-hashes'";

/// Stamps `$TRUNK_STAGING_DIR/index.html` (or the folder given).
pub fn run(dir: Option<&str>) -> Result<()> {
    let dir = match dir {
        Some(d) => d.to_string(),
        None => std::env::var("TRUNK_STAGING_DIR").context(
            "TRUNK_STAGING_DIR is not set: run as Trunk's post_build hook or give a folder",
        )?,
    };
    let path = Path::new(&dir).join("index.html");
    let html = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let stamped = stamp(&html)?;
    fs::write(&path, stamped).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// The page with the placeholder replaced by the hashes of its inline scripts.
pub fn stamp(html: &str) -> Result<String> {
    if !html.contains(HASHES_PLACEHOLDER) {
        bail!("index.html has no {HASHES_PLACEHOLDER} in its Content-Security-Policy");
    }
    let hashes: Vec<String> = inline_scripts(html)?
        .into_iter()
        .map(|body| {
            let digest = Sha256::digest(body.as_bytes());
            format!(
                "'sha256-{}'",
                base64::engine::general_purpose::STANDARD.encode(digest)
            )
        })
        .collect();
    let html = html.replace(HASHES_PLACEHOLDER, &hashes.join(" "));
    Ok(without_fetch_preload_integrity(&html))
}

/// The page with the `integrity` attribute taken off `<link rel="preload"
/// as="fetch">` elements (Trunk's wasm preload). Chromium ignores subresource
/// integrity on preloads of that kind and says so in the console on every load;
/// the wasm's real fetch (wasm-bindgen's loader) carries none either, so nothing is
/// checked with or without it. The module preload and the style keep theirs.
fn without_fetch_preload_integrity(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find("<link ") {
        out.push_str(&rest[..at]);
        let tag_end = rest[at..].find('>').map_or(rest.len(), |i| at + i + 1);
        let tag = &rest[at..tag_end];
        let is_fetch_preload = tag.contains(r#"rel="preload""#) && tag.contains(r#"as="fetch""#);
        match tag.find(r#" integrity=""#).filter(|_| is_fetch_preload) {
            Some(attr) => {
                let value_start = attr + r#" integrity=""#.len();
                let value_end = tag[value_start..]
                    .find('"')
                    .map_or(tag.len(), |i| value_start + i + 1);
                out.push_str(&tag[..attr]);
                out.push_str(&tag[value_end..]);
            }
            None => out.push_str(tag),
        }
        rest = &rest[tag_end..];
    }
    out.push_str(rest);
    out
}

/// The text of every `<script>` element without a `src` attribute, exactly as the
/// browser hashes it (everything between the opening tag's `>` and `</script>`).
fn inline_scripts(html: &str) -> Result<Vec<&str>> {
    let lower = html.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = lower[from..].find("<script") {
        let start = from + at;
        let Some(open_end) = lower[start..].find('>').map(|i| start + i) else {
            bail!("index.html: unterminated <script> tag at byte {start}");
        };
        let Some(close) = lower[open_end..].find("</script").map(|i| open_end + i) else {
            bail!("index.html: <script> at byte {start} is never closed");
        };
        let tag = &lower[start..open_end];
        if !tag.contains(" src=") {
            found.push(&html[open_end + 1..close]);
        }
        from = close + "</script".len();
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_inline_script_is_hashed_and_external_ones_are_not() {
        let html = "<meta content=\"script-src 'self' 'inline-script-hashes'\">\
                    <script type=\"module\">init()</script>\
                    <script src=\"/a.js\"></script>\
                    <SCRIPT>\nreload();\n</SCRIPT>";
        let out = stamp(html).unwrap();
        let init = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(b"init()"));
        let reload =
            base64::engine::general_purpose::STANDARD.encode(Sha256::digest(b"\nreload();\n"));
        assert!(out.contains(&format!("'self' 'sha256-{init}' 'sha256-{reload}'\"")));
        assert!(!out.contains(HASHES_PLACEHOLDER));
        assert_eq!(out.matches("sha256-").count(), 2);
    }

    #[test]
    fn only_the_fetch_preload_loses_its_integrity() {
        let html = "'inline-script-hashes'\
            <link rel=\"modulepreload\" href=\"/a.js\" crossorigin=\"anonymous\" integrity=\"sha384-js\">\
            <link rel=\"preload\" href=\"/a_bg.wasm\" crossorigin=\"anonymous\" integrity=\"sha384-wasm\" as=\"fetch\" type=\"application/wasm\">\
            <link rel=\"stylesheet\" href=\"/s.css\" integrity=\"sha384-css\"/>";
        let out = stamp(html).unwrap();
        assert!(out.contains(
            "<link rel=\"preload\" href=\"/a_bg.wasm\" crossorigin=\"anonymous\" as=\"fetch\" type=\"application/wasm\">"
        ), "{out}");
        assert!(
            out.contains("integrity=\"sha384-js\"") && out.contains("integrity=\"sha384-css\"")
        );
        assert!(!out.contains("sha384-wasm"));
    }

    #[test]
    fn a_page_without_the_placeholder_or_with_a_broken_script_is_refused() {
        assert!(stamp("<script>x</script>").is_err());
        assert!(stamp("'inline-script-hashes' <script>x").is_err());
    }
}
