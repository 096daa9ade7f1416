//! The sandbox kept across a reload and sent as a link: its history (every input,
//! see `warehouse_kubectl::journal`), the terminal, the editor and the settings.
//! Replaying the history on the same starting warehouse rebuilds the same cluster,
//! so nothing of the cluster itself is stored.
//!
//! - Saved in localStorage under one versioned key, at most [`MAX_SAVED_BYTES`];
//!   unreadable or incompatible data is dropped with a notice.
//! - A share link carries the history (not the terminal) in the URL fragment,
//!   `#history=` then the JSON compressed with the browser's `deflate-raw` and
//!   written in base64url, at most [`MAX_LINK_CHARS`] characters.

use crate::kubectl::journal::Exported;
use crate::state::Entry;
use base64::Engine;
use wasm_bindgen::{JsCast, JsValue};

/// The localStorage key; the version is part of the name.
pub const SAVED_KEY: &str = "kube-warehouse.sandbox.v1";
/// The most a saved sandbox may take in localStorage (its quota is about 5 MB).
pub const MAX_SAVED_BYTES: usize = 2 << 20;
/// The longest share link's fragment.
pub const MAX_LINK_CHARS: usize = 200_000;
/// The fragment's prefix.
pub const LINK_PREFIX: &str = "#history=";
/// How many terminal entries are kept.
pub const SAVED_ENTRIES: usize = 50;

/// What a reload brings back.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Saved {
    pub history: Exported,
    /// Terminal entries (prompt, stdout, stderr), oldest first.
    pub terminal: Vec<(String, String, String)>,
    /// Commands as typed, for the arrow keys.
    pub typed: Vec<String>,
    pub yaml: String,
    pub lang: String,
    pub names: String,
    pub speed: u32,
}

impl Saved {
    pub fn entries(&self) -> impl Iterator<Item = Entry> + '_ {
        self.terminal.iter().map(|(p, o, e)| Entry {
            prompt: p.clone(),
            stdout: o.clone(),
            stderr: e.clone(),
        })
    }
}

/// The origin of the sandbox's history: the settled warehouse of this seed.
pub fn origin(seed: u64) -> String {
    format!("settled:{seed}")
}

/// The seed an origin names, if it is one this build can rebuild.
pub fn origin_seed(origin: &str) -> Option<u64> {
    origin.strip_prefix("settled:")?.parse().ok()
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// What localStorage holds: nothing, a sandbox, or why it could not be read.
pub fn load() -> Option<Result<Saved, String>> {
    let text = storage()?.get_item(SAVED_KEY).ok().flatten()?;
    Some(serde_json::from_str(&text).map_err(|e| e.to_string()))
}

/// Saves the sandbox, or says why not (too big, storage refused).
pub fn save(saved: &Saved) -> Result<(), String> {
    if crate::panic_banner::panicked() {
        return Err("nothing is saved after an internal error".into());
    }
    let text = serde_json::to_string(saved).map_err(|e| e.to_string())?;
    if text.len() > MAX_SAVED_BYTES {
        return Err(format!(
            "the sandbox's history is {} KB, more than the {} KB kept",
            text.len() / 1024,
            MAX_SAVED_BYTES / 1024
        ));
    }
    let s = storage().ok_or("this browser keeps no local storage")?;
    s.set_item(SAVED_KEY, &text)
        .map_err(|_| "the browser refused to store the sandbox".to_string())
}

/// Forgets the saved sandbox.
pub fn clear() {
    if let Some(s) = storage() {
        let _ = s.remove_item(SAVED_KEY);
    }
}

/// The history in a share link's fragment, if the page was opened with one.
pub fn link_fragment() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    hash.strip_prefix(LINK_PREFIX).map(str::to_string)
}

/// Removes the fragment from the address bar (the link has been read).
pub fn drop_fragment() {
    if let Some(w) = web_sys::window() {
        if let (Ok(history), Ok(path)) = (w.history(), w.location().pathname()) {
            let search = w.location().search().unwrap_or_default();
            let _ = history.replace_state_with_url(
                &JsValue::NULL,
                "",
                Some(&format!("{path}{search}")),
            );
        }
    }
}

/// The page's address without a fragment, plus the history's fragment.
pub async fn link(history: &Exported) -> Result<String, String> {
    let json = serde_json::to_vec(history).map_err(|e| e.to_string())?;
    link_with(LINK_PREFIX, &json).await
}

/// The page's address without a fragment, plus `prefix` and the JSON compressed
/// and written in base64url (at most [`MAX_LINK_CHARS`] characters).
pub async fn link_with(prefix: &str, json: &[u8]) -> Result<String, String> {
    let packed = through(json, true).await?;
    let text = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(packed);
    if text.len() > MAX_LINK_CHARS {
        return Err(format!(
            "the history is too long for a link ({} characters, at most {MAX_LINK_CHARS})",
            text.len()
        ));
    }
    let location = web_sys::window().ok_or("no window")?.location();
    let here = location.href().map_err(|_| "no address")?;
    let base = here.split('#').next().unwrap_or_default().to_string();
    Ok(format!("{base}{prefix}{text}"))
}

/// Marks a fragment whose JSON is not compressed (`~` is no base64url letter): the
/// link the panic banner makes, synchronously, when no code may wait for the
/// browser's compressor.
pub const PLAIN_MARK: char = '~';

/// Like [`link_with`], without compressing: made at once, about three times as long.
pub fn plain_link_with(prefix: &str, json: &[u8]) -> Result<String, String> {
    let text = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json);
    if text.len() + 1 > MAX_LINK_CHARS {
        return Err(format!(
            "the history is too long for a link ({} characters, at most {MAX_LINK_CHARS})",
            text.len() + 1
        ));
    }
    let here = web_sys::window()
        .ok_or("no window")?
        .location()
        .href()
        .map_err(|_| "no address")?;
    let base = here.split('#').next().unwrap_or_default();
    Ok(format!("{base}{prefix}{PLAIN_MARK}{text}"))
}

/// Reads a share link's fragment back into a history.
pub async fn read_link(fragment: &str) -> Result<Exported, String> {
    let json = read_fragment(fragment).await?;
    serde_json::from_slice(&json).map_err(|e| format!("the link is damaged: {e}"))
}

/// A link fragment's JSON (after its prefix): checked for length, decoded and
/// decompressed.
pub async fn read_fragment(fragment: &str) -> Result<Vec<u8>, String> {
    if fragment.len() > MAX_LINK_CHARS {
        return Err(format!(
            "the link is too long ({} characters, at most {MAX_LINK_CHARS})",
            fragment.len()
        ));
    }
    let (text, plain) = match fragment.trim().strip_prefix(PLAIN_MARK) {
        Some(rest) => (rest, true),
        None => (fragment.trim(), false),
    };
    let packed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .map_err(|_| "the link is damaged: its history is not valid base64url".to_string())?;
    if plain {
        return Ok(packed);
    }
    through(&packed, false)
        .await
        .map_err(|_| "the link is damaged: its history does not decompress".to_string())
}

/// Compresses (`deflate-raw`) or decompresses bytes with the browser's own
/// streams, so no compressor is compiled into the app.
async fn through(bytes: &[u8], compress: bool) -> Result<Vec<u8>, String> {
    let fail = |e: JsValue| format!("{e:?}");
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&array);
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(fail)?;
    // `CompressionStream` is looked up by name: web-sys offers it only among its
    // unstable APIs. The object has `readable` and `writable`, a transform pair.
    let name = if compress {
        "CompressionStream"
    } else {
        "DecompressionStream"
    };
    let ctor = js_sys::Reflect::get(&js_sys::global(), &name.into()).map_err(fail)?;
    let ctor: js_sys::Function = ctor
        .dyn_into()
        .map_err(|_| format!("this browser has no {name}"))?;
    let pair: web_sys::ReadableWritablePair =
        js_sys::Reflect::construct(&ctor, &js_sys::Array::of1(&"deflate-raw".into()))
            .map_err(fail)?
            .unchecked_into();
    let stream = blob.stream().pipe_through(&pair);
    let response = web_sys::Response::new_with_opt_readable_stream(Some(&stream)).map_err(fail)?;
    let buffer = wasm_bindgen_futures::JsFuture::from(response.array_buffer().map_err(fail)?)
        .await
        .map_err(fail)?;
    let buffer: js_sys::ArrayBuffer = buffer.dyn_into().map_err(fail)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// FNV-1a over what a sandbox is made of, to see whether it changed.
#[derive(Clone, Copy, Debug)]
pub struct Fingerprint(u64);

impl Default for Fingerprint {
    fn default() -> Self {
        Fingerprint(0xcbf2_9ce4_8422_2325)
    }
}

impl Fingerprint {
    pub fn add(&mut self, n: u64) {
        for b in n.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    pub fn add_str(&mut self, s: &str) {
        self.add(s.len() as u64);
        for b in s.bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}
