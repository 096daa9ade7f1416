//! Texts the browser build fetches after the first render instead of carrying them
//! in its download (`explain.data`, `help.data`); native builds compile them in.

/// One such text: compiled in, or handed over once fetched.
pub(crate) struct FetchedText {
    #[cfg(not(target_arch = "wasm32"))]
    text: &'static str,
    #[cfg(target_arch = "wasm32")]
    loaded: std::sync::OnceLock<&'static str>,
}

impl FetchedText {
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) const fn compiled(text: &'static str) -> FetchedText {
        FetchedText { text }
    }

    #[cfg(target_arch = "wasm32")]
    pub(crate) const fn fetched() -> FetchedText {
        FetchedText {
            loaded: std::sync::OnceLock::new(),
        }
    }

    /// The text, once it is here.
    pub(crate) fn get(&self) -> Option<&'static str> {
        #[cfg(not(target_arch = "wasm32"))]
        return Some(self.text);
        #[cfg(target_arch = "wasm32")]
        return self.loaded.get().copied();
    }

    /// Hands over the fetched text; native builds carry it already and ignore this.
    /// Only the first call counts.
    pub(crate) fn provide(&self, text: String) {
        #[cfg(target_arch = "wasm32")]
        {
            let _ = self.loaded.set(Box::leak(text.into_boxed_str()));
        }
        #[cfg(not(target_arch = "wasm32"))]
        drop(text);
    }
}

/// `fetched_text!(NAME, include_str!("PATH"))`: a static [`FetchedText`] that native
/// builds fill from the file and the browser build leaves to be provided.
macro_rules! fetched_text {
    ($name:ident, $text:expr) => {
        #[cfg(not(target_arch = "wasm32"))]
        static $name: $crate::fetched::FetchedText = $crate::fetched::FetchedText::compiled($text);
        #[cfg(target_arch = "wasm32")]
        static $name: $crate::fetched::FetchedText = $crate::fetched::FetchedText::fetched();
    };
}
pub(crate) use fetched_text;
