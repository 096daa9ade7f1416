//! The saved progress in localStorage under one versioned key. Unreadable or
//! wrong-version data is reset (the reducer shows a notice); a browser without
//! storage simply does not save.

use crate::lessons::{decode_progress, encode_progress, Loaded, Progress, PROGRESS_KEY};

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn load() -> Loaded {
    let text = storage().and_then(|s| s.get_item(PROGRESS_KEY).ok().flatten());
    decode_progress(text.as_deref())
}

pub fn save(progress: &Progress) {
    if let Some(s) = storage() {
        let _ = s.set_item(PROGRESS_KEY, &encode_progress(progress));
    }
}
