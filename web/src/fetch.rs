//! Fetching lessons: `lessons/index.yaml` and the lessons it lists, a lesson folder
//! by URL (`?lesson=URL`), and files the author picked or dropped. Each result
//! reaches the reducer as one action; a failure is a message, never a panic.

use crate::lessons::{CatalogueTexts, LessonTexts, Origin};
use crate::state::{Action, AppState};
use std::collections::BTreeMap;
use warehouse_lessons::{catalogue::valid_folder, parse_lesson};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{File, FileList, RequestCache, RequestInit, Response};
use yew::UseReducerDispatcher;

fn js_error(e: wasm_bindgen::JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

/// The largest file the app reads (a lesson file is at most
/// `warehouse_lessons::parse::MAX_LESSON_BYTES`, a manifest at most
/// `warehouse_sim::object::manifest::MAX_MANIFEST_BYTES`; both are checked again there).
pub const MAX_FILE_BYTES: usize = 1024 * 1024;
/// The most files one pick or drop may hold.
pub const MAX_FILES: u32 = 64;

fn too_big(name: &str, bytes: f64) -> String {
    format!(
        "{name}: {} KiB is more than the {} KiB a lesson file may take",
        (bytes / 1024.0).ceil(),
        MAX_FILE_BYTES / 1024
    )
}

/// GETs `url` as text (never from the HTTP cache, so an author sees their edit).
pub async fn text(url: &str) -> Result<String, String> {
    get(url, RequestCache::NoStore).await
}

/// GETs `url` as text under the cache policy `cache`.
async fn get(url: &str, cache: RequestCache) -> Result<String, String> {
    let window = web_sys::window().ok_or("no window")?;
    let init = RequestInit::new();
    init.set_cache(cache);
    let response = JsFuture::from(window.fetch_with_str_and_init(url, &init))
        .await
        .map_err(|e| format!("{url}: {}", js_error(e)))?;
    let response: Response = response
        .dyn_into()
        .map_err(|_| format!("{url}: not a response"))?;
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let declared = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.trim().parse::<f64>().ok());
    if let Some(n) = declared.filter(|&n| n > MAX_FILE_BYTES as f64) {
        return Err(too_big(url, n));
    }
    let body = response
        .text()
        .map_err(|e| format!("{url}: {}", js_error(e)))?;
    let body = JsFuture::from(body)
        .await
        .map_err(|e| format!("{url}: {}", js_error(e)))?;
    let body = body.as_string().ok_or_else(|| format!("{url}: not text"))?;
    if body.len() > MAX_FILE_BYTES {
        return Err(too_big(url, body.len() as f64));
    }
    Ok(body)
}

/// Fetches `kubectl explain`'s field documentation (`explain.data`, copied next to
/// the app by index.html) and hands it to kubectl. Until it arrives, or if it
/// cannot be fetched, `kubectl explain` says so; every other command works.
pub fn load_explain_data() {
    spawn_local(async move {
        match get("explain.data", RequestCache::Default).await {
            Ok(t) => warehouse_kubectl::provide_explain_data(t),
            Err(e) => web_sys::console::warn_2(&"kubectl explain:".into(), &e.into()),
        }
    });
}

/// Fetches kubectl's help texts (`help.data`, copied next to the app by index.html)
/// and hands them to kubectl. Until they arrive, `--help` prints what the command's
/// own parser knows.
pub fn load_help_data() {
    spawn_local(async move {
        match get("help.data", RequestCache::Default).await {
            Ok(t) => warehouse_kubectl::provide_help_data(t),
            Err(e) => web_sys::console::warn_2(&"kubectl --help:".into(), &e.into()),
        }
    });
}

/// Fetches the catalogue and every lesson's two languages.
pub fn load_catalogue(dispatch: UseReducerDispatcher<AppState>) {
    spawn_local(async move {
        let index = match text("lessons/index.yaml").await {
            Ok(t) => t,
            Err(e) => {
                dispatch.dispatch(Action::CatalogueLoaded(Err(e)));
                return;
            }
        };
        let folders: Vec<String> =
            match warehouse_lessons::parse_catalogue("lessons/index.yaml", &index) {
                Ok(c) => c.folders().map(String::from).collect(),
                // The reducer parses it again and shows the error.
                Err(_) => Vec::new(),
            };
        let mut lessons = Vec::new();
        for folder in folders {
            let en = text(&format!("lessons/{folder}/en.md")).await;
            let ru = text(&format!("lessons/{folder}/ru.md")).await;
            lessons.push((folder, en, ru));
        }
        dispatch.dispatch(Action::CatalogueLoaded(Ok(CatalogueTexts {
            index,
            lessons,
        })));
    });
}

/// Fetches a lesson folder (`base` ends with `/`): `en.md`, `ru.md` when
/// `with_ru`, then the files its front matter lists.
async fn fetch_folder(base: &str, with_ru: bool) -> Result<LessonTexts, String> {
    let en_url = format!("{base}en.md");
    let en = text(&en_url).await?;
    let ru = if with_ru {
        let url = format!("{base}ru.md");
        Some((url.clone(), text(&url).await?))
    } else {
        None
    };
    let mut files = BTreeMap::new();
    // The file list comes from the front matter; a broken lesson is reported by the
    // reducer with its line.
    if let Ok(lesson) = parse_lesson(&en_url, &en) {
        for name in &lesson.meta.files {
            if name.contains("..") || name.starts_with('/') || name.contains(':') {
                return Err(format!(
                    "{en_url}: file {name:?} must be a name in the lesson folder"
                ));
            }
            files.insert(name.clone(), text(&format!("{base}{name}")).await?);
        }
    }
    Ok(LessonTexts {
        en: Some((en_url, en)),
        ru,
        files,
    })
}

/// Opens a catalogue lesson.
pub fn open_folder(folder: String, dispatch: UseReducerDispatcher<AppState>) {
    if !valid_folder(&folder) {
        dispatch.dispatch(Action::LessonFailed(format!(
            "{folder}: not a lesson folder"
        )));
        return;
    }
    dispatch.dispatch(Action::LessonLoading(folder.clone()));
    spawn_local(async move {
        match fetch_folder(&format!("lessons/{folder}/"), true).await {
            Ok(texts) => dispatch.dispatch(Action::LessonFetched(Origin::Catalogue(folder), texts)),
            Err(e) => dispatch.dispatch(Action::LessonFailed(e)),
        }
    });
}

/// `?lesson=URL` of the page, if any.
pub fn lesson_param() -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    params.get("lesson").filter(|s| !s.trim().is_empty())
}

/// Opens a lesson folder by URL (relative URLs are fine). `ru.md` is fetched too
/// when `?ru=0` is not given.
pub fn open_url(url: String, dispatch: UseReducerDispatcher<AppState>) {
    let base = if url.ends_with('/') {
        url.clone()
    } else {
        format!("{url}/")
    };
    let with_ru = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get("ru"))
        .is_none_or(|v| v != "0");
    dispatch.dispatch(Action::LessonLoading(url.clone()));
    spawn_local(async move {
        match fetch_folder(&base, with_ru).await {
            Ok(texts) => dispatch.dispatch(Action::LessonFetched(Origin::Url(url), texts)),
            Err(e) => dispatch.dispatch(Action::LessonFailed(e)),
        }
    });
}

/// Reads picked or dropped files: `ru.md` is the Russian version, any other `.md`
/// the English one, everything else a file the lesson may list.
pub fn open_files(list: FileList, dispatch: UseReducerDispatcher<AppState>) {
    if list.length() > MAX_FILES {
        dispatch.dispatch(Action::LessonFailed(format!(
            "{} files: a lesson is at most {MAX_FILES} (en.md, ru.md and its manifests)",
            list.length()
        )));
        return;
    }
    let files: Vec<File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
    if files.is_empty() {
        return;
    }
    if let Some(f) = files.iter().find(|f| f.size() > MAX_FILE_BYTES as f64) {
        dispatch.dispatch(Action::LessonFailed(too_big(&f.name(), f.size())));
        return;
    }
    dispatch.dispatch(Action::LessonLoading(
        files
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", "),
    ));
    spawn_local(async move {
        let mut texts = LessonTexts::default();
        for file in files {
            let name = file.name();
            let body = match JsFuture::from(file.text()).await {
                Ok(v) => v.as_string().unwrap_or_default(),
                Err(e) => {
                    dispatch.dispatch(Action::LessonFailed(format!("{name}: {}", js_error(e))));
                    return;
                }
            };
            if name == "ru.md" || name.ends_with(".ru.md") {
                texts.ru = Some((name, body));
            } else if name.ends_with(".md") {
                texts.en = Some((name, body));
            } else {
                texts.files.insert(name, body);
            }
        }
        dispatch.dispatch(Action::LessonFetched(Origin::Local, texts));
    });
}

/// Copies text to the clipboard; a refusal (no permission) is ignored.
pub fn copy(text: String) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let promise = window.navigator().clipboard().write_text(&text);
    spawn_local(async move {
        let _ = JsFuture::from(promise).await;
    });
}

/// Fetches a kept or shared lesson's texts again and hands them, with what was
/// kept, to the reducer to rebuild. A lesson from local files cannot be fetched:
/// the reducer says so.
pub fn restore(
    saved: crate::lesson_saved::SavedLesson,
    shared: bool,
    dispatch: UseReducerDispatcher<AppState>,
) {
    use crate::lesson_saved::{Restore, Source};
    let (origin, base, with_ru) = match &saved.timeline.source {
        Source::Catalogue(folder) if valid_folder(folder) => (
            Origin::Catalogue(folder.clone()),
            format!("lessons/{folder}/"),
            true,
        ),
        Source::Url(url) => {
            let base = if url.ends_with('/') {
                url.clone()
            } else {
                format!("{url}/")
            };
            let with_ru = web_sys::window()
                .and_then(|w| w.location().search().ok())
                .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
                .and_then(|p| p.get("ru"))
                .is_none_or(|v| v != "0");
            (Origin::Url(url.clone()), base, with_ru)
        }
        _ => {
            dispatch.dispatch(Action::RestoreLesson(Box::new(Restore {
                fetched: Err(String::new()),
                saved,
                shared,
            })));
            return;
        }
    };
    let name = match &origin {
        Origin::Catalogue(f) | Origin::Url(f) => f.clone(),
        Origin::Local => String::new(),
    };
    dispatch.dispatch(Action::LessonLoading(name));
    spawn_local(async move {
        let fetched = fetch_folder(&base, with_ru).await.map(|t| (origin, t));
        dispatch.dispatch(Action::RestoreLesson(Box::new(Restore {
            fetched,
            saved,
            shared,
        })));
    });
}
