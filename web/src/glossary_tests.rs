//! The UI's Russian words come from `lessons/glossary.yaml`: no Russian string in the
//! app's source matches a variant the glossary says to avoid, and every button the
//! glossary names carries the glossary's label in both languages.

use crate::i18n::{Key, Lang, Names, Tr, L};

const GLOSSARY: &str = include_str!("../../lessons/glossary.yaml");

/// Every source file of the app (a test below checks that none is missing).
const SOURCES: &[(&str, &str)] = &[
    ("app.rs", include_str!("app.rs")),
    ("author.rs", include_str!("author.rs")),
    ("canvas/animate.rs", include_str!("canvas/animate.rs")),
    ("canvas/desks.rs", include_str!("canvas/desks.rs")),
    ("canvas/hit.rs", include_str!("canvas/hit.rs")),
    ("canvas/hook.rs", include_str!("canvas/hook.rs")),
    ("canvas/layout.rs", include_str!("canvas/layout.rs")),
    ("canvas/mod.rs", include_str!("canvas/mod.rs")),
    ("canvas/paint.rs", include_str!("canvas/paint.rs")),
    ("catalogue_view.rs", include_str!("catalogue_view.rs")),
    ("control_plane.rs", include_str!("control_plane.rs")),
    ("decision.rs", include_str!("decision.rs")),
    ("editor.rs", include_str!("editor.rs")),
    ("fetch.rs", include_str!("fetch.rs")),
    ("floor.rs", include_str!("floor.rs")),
    ("floor_text.rs", include_str!("floor_text.rs")),
    ("frame_card.rs", include_str!("frame_card.rs")),
    ("i18n.rs", include_str!("i18n.rs")),
    ("inspector.rs", include_str!("inspector.rs")),
    ("inspector_i18n.rs", include_str!("inspector_i18n.rs")),
    ("legend.rs", include_str!("legend.rs")),
    ("lesson_panel.rs", include_str!("lesson_panel.rs")),
    ("lesson_reducer.rs", include_str!("lesson_reducer.rs")),
    ("lesson_saved.rs", include_str!("lesson_saved.rs")),
    ("lessons.rs", include_str!("lessons.rs")),
    ("main.rs", include_str!("main.rs")),
    ("narration.rs", include_str!("narration.rs")),
    ("numbers.rs", include_str!("numbers.rs")),
    ("office.rs", include_str!("office.rs")),
    ("offline.rs", include_str!("offline.rs")),
    ("panic_banner.rs", include_str!("panic_banner.rs")),
    ("progress.rs", include_str!("progress.rs")),
    ("projection.rs", include_str!("projection.rs")),
    ("prose.rs", include_str!("prose.rs")),
    ("requests.rs", include_str!("requests.rs")),
    ("saved.rs", include_str!("saved.rs")),
    ("state.rs", include_str!("state.rs")),
    ("tabs.rs", include_str!("tabs.rs")),
    ("target.rs", include_str!("target.rs")),
    ("terminal.rs", include_str!("terminal.rs")),
    ("test_hook.rs", include_str!("test_hook.rs")),
    ("timeline.rs", include_str!("timeline.rs")),
    ("toolbar.rs", include_str!("toolbar.rs")),
    ("zones.rs", include_str!("zones.rs")),
];

/// The string literals of a Rust source file, with line continuations (`\` and a
/// newline) and simple escapes resolved; comments and char literals are skipped.
fn literals(src: &str) -> Vec<String> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '/' if c.get(i + 1) == Some(&'/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '\'' => {
                if c.get(i + 1) == Some(&'\\') {
                    i += 2;
                    while i < c.len() && c[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                } else if c.get(i + 2) == Some(&'\'') {
                    i += 3;
                } else {
                    i += 1;
                }
            }
            'r' if c.get(i + 1) == Some(&'#') && c.get(i + 2) == Some(&'"') => {
                i += 3;
                let mut s = String::new();
                while i + 1 < c.len() && !(c[i] == '"' && c[i + 1] == '#') {
                    s.push(c[i]);
                    i += 1;
                }
                i += 2;
                out.push(s);
            }
            '"' => {
                i += 1;
                let mut s = String::new();
                while i < c.len() && c[i] != '"' {
                    if c[i] == '\\' {
                        i += 1;
                        match c.get(i) {
                            Some('\n') => {
                                while i + 1 < c.len() && c[i + 1].is_whitespace() {
                                    i += 1;
                                }
                            }
                            Some('n') => s.push('\n'),
                            Some(&other) => s.push(other),
                            None => {}
                        }
                    } else {
                        s.push(c[i]);
                    }
                    i += 1;
                }
                i += 1;
                out.push(s);
            }
            _ => i += 1,
        }
    }
    out
}

fn cyrillic(s: &str) -> bool {
    s.chars().any(|c| ('\u{400}'..='\u{4ff}').contains(&c))
}

/// A glossary `avoid` pattern (a stem, groups of alternatives `(а|ы)`, a group made
/// optional by `?`, spaces) as every phrase it matches.
fn expand(pattern: &str) -> Vec<String> {
    let c: Vec<char> = pattern.chars().collect();
    let mut out = vec![String::new()];
    let mut i = 0;
    while i < c.len() {
        let mut options: Vec<String> = if c[i] == '(' {
            let close = (i..c.len()).find(|&j| c[j] == ')').expect("a closed group");
            let group: String = c[i + 1..close].iter().collect();
            i = close + 1;
            group.split('|').map(str::to_string).collect()
        } else {
            let one = c[i].to_string();
            i += 1;
            vec![one]
        };
        if c.get(i) == Some(&'?') {
            options.push(String::new());
            i += 1;
        }
        out = out
            .iter()
            .flat_map(|prefix| options.iter().map(move |o| format!("{prefix}{o}")))
            .collect();
    }
    out
}

/// `phrase` occurs in `text` as whole words, ignoring case.
fn has_phrase(text: &str, phrase: &str) -> bool {
    let text = text.to_lowercase();
    let phrase = phrase.to_lowercase();
    let mut from = 0;
    while let Some(at) = text[from..].find(&phrase) {
        let start = from + at;
        let end = start + phrase.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
            return true;
        }
        from = start + phrase.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// The glossary's `avoid` patterns (with what to say instead).
fn avoid_patterns() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = GLOSSARY.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(p) = line.trim().strip_prefix("- pattern:") {
            let say = lines
                .peek()
                .and_then(|l| l.trim().strip_prefix("say:"))
                .map(unquote)
                .unwrap_or_default();
            out.push((unquote(p), say));
        }
    }
    out
}

fn unquote(s: &str) -> String {
    s.trim().trim_matches('"').to_string()
}

/// The glossary's `buttons`: (English, Russian).
fn buttons() -> Vec<(String, String)> {
    let section = GLOSSARY
        .split("\nbuttons:")
        .nth(1)
        .expect("a buttons section");
    let mut out = Vec::new();
    let mut en = None;
    for line in section.lines() {
        let t = line.trim();
        if !line.starts_with(' ') && !t.is_empty() && !t.starts_with('#') {
            break;
        }
        if let Some(e) = t.strip_prefix("- en:") {
            en = Some(unquote(e));
        } else if let Some(r) = t.strip_prefix("ru:") {
            out.push((en.take().expect("en before ru"), unquote(r)));
        }
    }
    out
}

#[test]
fn the_source_list_is_complete() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    // One level of folders (`canvas/`), named by their path under `src/`.
    let mut on_disk: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let name = entry.file_name().into_string().unwrap();
        if entry.path().is_dir() {
            for inner in std::fs::read_dir(entry.path())
                .unwrap()
                .filter_map(Result::ok)
            {
                let inner = inner.file_name().into_string().unwrap();
                if inner.ends_with(".rs") {
                    on_disk.push(format!("{name}/{inner}"));
                }
            }
        } else if name.ends_with(".rs") {
            on_disk.push(name);
        }
    }
    on_disk.sort();
    let mut listed: Vec<String> = SOURCES.iter().map(|(n, _)| n.to_string()).collect();
    listed.push("glossary_tests.rs".into());
    listed.sort();
    assert_eq!(on_disk, listed, "list every web/src file in SOURCES");
}

#[test]
fn patterns_expand_to_the_words_they_match() {
    assert_eq!(expand("дай(те)? времени"), ["дайте времени", "дай времени"]);
    assert!(expand("нод(а|ы)?").contains(&"нод".to_string()));
    assert!(has_phrase("Клерк узлов ждёт", "клерк"));
    assert!(!has_phrase("клерками", "клерк"));
    assert!(has_phrase(
        "менеджер  зала".replace("  ", " ").as_str(),
        "менеджер зала"
    ));
}

#[test]
fn no_russian_ui_string_uses_a_variant_the_glossary_avoids() {
    let patterns = avoid_patterns();
    assert!(patterns.len() >= 5, "{patterns:?}");
    let mut found = Vec::new();
    for (file, src) in SOURCES {
        for lit in literals(src).into_iter().filter(|l| cyrillic(l)) {
            for (pattern, say) in &patterns {
                if let Some(p) = expand(pattern).iter().find(|p| has_phrase(&lit, p)) {
                    found.push(format!("{file}: “{p}” in {lit:?}: say {say}"));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_glossary_buttons_are_the_ui_labels() {
    let label = |f: &dyn Fn(Tr) -> &'static str| {
        (
            f(Tr::new(Lang::En, Names::Warehouse)).to_string(),
            f(Tr::new(Lang::Ru, Names::Warehouse)).to_string(),
        )
    };
    let ui = [
        label(&|t| t.t(Key::Apply)),
        label(&|t| t.l(L::QuizCheck)),
        label(&|t| t.l(L::Hint)),
        label(&|t| t.l(L::ShowSolution)),
        label(&|t| t.l(L::RunSolution)),
        label(&|t| t.l(L::Next)),
        label(&|t| t.l(L::Reset)),
        label(&|t| t.t(Key::KillZone)),
    ];
    let glossary = buttons();
    assert!(glossary.len() >= 8, "{glossary:?}");
    for b in &glossary {
        assert!(
            ui.contains(b),
            "the glossary's button {b:?} is no UI label: {ui:?}"
        );
    }
    for b in &ui {
        assert!(
            glossary.contains(b),
            "the UI's button {b:?} is not in the glossary"
        );
    }
}
