//! The one vocabulary (`lessons/glossary.yaml`): the warehouse words, their
//! Russian forms, the variants Russian text must not use, and the UI's button
//! labels. `warehouse lessons check` warns on a variant or a button named in the
//! other language; the web crate's tests hold its Russian strings to the same file.

use crate::error::LessonError;
use regex_lite::Regex;
use serde::Deserialize;

/// The glossary's file name, beside `index.yaml`.
pub const GLOSSARY_FILE: &str = "glossary.yaml";

/// A parsed glossary.
#[derive(Debug)]
pub struct Glossary {
    pub terms: Vec<Term>,
    pub buttons: Vec<Button>,
    avoid: Vec<Avoid>,
}

/// One entry: the Kubernetes name and its words.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Term {
    pub kubernetes: String,
    pub en: String,
    pub ru: String,
    #[serde(rename = "ru-kubernetes", default)]
    pub ru_kubernetes: Option<String>,
    #[serde(default)]
    avoid: Vec<AvoidSource>,
}

/// A UI button's label in both languages.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Button {
    pub en: String,
    pub ru: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct AvoidSource {
    pattern: String,
    say: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct GlossaryFile {
    terms: Vec<Term>,
    #[serde(default)]
    buttons: Vec<Button>,
}

#[derive(Debug)]
struct Avoid {
    regex: Regex,
    say: String,
}

/// One use of a word the glossary rules out, found in Russian text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// 1-based line and column (in characters).
    pub line: usize,
    pub column: usize,
    /// The text as written.
    pub found: String,
    /// What the glossary says instead.
    pub say: String,
}

/// The letters a whole word is made of, for the word boundaries around a pattern
/// (regex-lite's `\b` knows ASCII only).
const LETTERS: &str = "a-zа-яё0-9";

/// Parses `glossary.yaml`; `file` names it in errors.
pub fn parse_glossary(file: &str, text: &str) -> Result<Glossary, LessonError> {
    crate::error::yaml_bounds(file, 1, 0, "glossary", text)?;
    let parsed: GlossaryFile = serde_yaml::from_str(text).map_err(|e| {
        let (line, column) = e
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((1, 0));
        LessonError::new(file, line, column, e.to_string())
    })?;
    let mut avoid = Vec::new();
    for term in &parsed.terms {
        for a in &term.avoid {
            let whole = format!("(?:^|[^{LETTERS}])({})(?:[^{LETTERS}]|$)", a.pattern);
            let regex = Regex::new(&whole).map_err(|e| {
                LessonError::new(
                    file,
                    line_of(text, &a.pattern),
                    0,
                    format!("the pattern `{}` of `{}`: {e}", a.pattern, term.kubernetes),
                )
            })?;
            avoid.push(Avoid {
                regex,
                say: a.say.clone(),
            });
        }
    }
    Ok(Glossary {
        terms: parsed.terms,
        buttons: parsed.buttons,
        avoid,
    })
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map_or(1, |i| i + 1)
}

impl Glossary {
    /// Every variant the glossary rules out in a Russian text, in order.
    pub fn variants(&self, text: &str) -> Vec<Variant> {
        let mut found = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            // Lowercasing may change byte lengths; columns are counted in characters
            // of the lowercased line, which keeps one character for one.
            for avoid in &self.avoid {
                let mut at = 0;
                while let Some(c) = avoid.regex.captures_at(&lower, at) {
                    let m = c.get(1).expect("the pattern is group 1");
                    let column = lower[..m.start()].chars().count() + 1;
                    let len = lower[m.start()..m.end()].chars().count();
                    found.push(Variant {
                        line: i + 1,
                        column,
                        found: line.chars().skip(column - 1).take(len).collect(),
                        say: avoid.say.clone(),
                    });
                    at = m.end();
                }
            }
        }
        found.sort_by_key(|v| (v.line, v.column));
        found
    }

    /// Buttons named in bold (`**Apply**`) with the other language's label, as
    /// (line, column, the label written, the label of this language).
    pub fn foreign_buttons(
        &self,
        text: &str,
        russian: bool,
    ) -> Vec<(usize, usize, String, String)> {
        let mut found = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let mut rest = line;
            let mut offset = 0;
            while let Some(start) = rest.find("**") {
                let after = &rest[start + 2..];
                let Some(end) = after.find("**") else { break };
                let label = after[..end].trim();
                let hit = self.buttons.iter().find_map(|b| {
                    let (other, own) = if russian {
                        (&b.en, &b.ru)
                    } else {
                        (&b.ru, &b.en)
                    };
                    (label == other && other != own).then(|| own.clone())
                });
                if let Some(own) = hit {
                    let column = line[..offset + start].chars().count() + 1;
                    found.push((i + 1, column, label.to_string(), own));
                }
                offset += start + 2 + end + 2;
                rest = &after[end + 2..];
            }
        }
        found
    }

    /// The warnings `lessons check` prints for one lesson file.
    pub fn warnings(&self, file: &str, text: &str, russian: bool) -> Vec<LessonError> {
        let mut out = Vec::new();
        if russian {
            for v in self.variants(text) {
                out.push(LessonError::new(
                    file,
                    v.line,
                    v.column,
                    format!("«{}» is not the glossary's word: say {}", v.found, v.say),
                ));
            }
        }
        for (line, column, written, own) in self.foreign_buttons(text, russian) {
            out.push(LessonError::new(
                file,
                line,
                column,
                format!("the button is «{own}» in this language's UI, not «{written}»"),
            ));
        }
        out.sort_by_key(|e| (e.line, e.column));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: &str = "terms:\n  - kubernetes: node\n    en: zone\n    ru: зона\n    ru-kubernetes: узел\n    avoid:\n      - pattern: \"нод(а|ы|е|у|ой|ам|ами|ах)?\"\n        say: узел\n  - kubernetes: controller-manager\n    en: floor manager\n    ru: начальник смены\n    avoid:\n      - pattern: \"менеджер(а|у|ом|е)? зала\"\n        say: начальник смены\nbuttons:\n  - en: Apply\n    ru: Применить\n";

    #[test]
    fn variants_are_whole_words_in_any_case_with_their_column() {
        let g = parse_glossary("g.yaml", G).unwrap();
        let v = g.variants(
            "Две ноды.\nНодами правит Менеджер зала; а «нодовый» и «пароход» — нет.\nнода",
        );
        let got: Vec<(usize, usize, &str)> = v
            .iter()
            .map(|v| (v.line, v.column, v.found.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, 5, "ноды"),
                (2, 1, "Нодами"),
                (2, 15, "Менеджер зала"),
                (3, 1, "нода")
            ]
        );
    }

    #[test]
    fn a_button_in_the_other_language_is_named() {
        let g = parse_glossary("g.yaml", G).unwrap();
        let w = g.warnings("ru.md", "Нажмите **Apply**, потом **Применить**.", true);
        assert_eq!(w.len(), 1);
        assert_eq!(
            w[0].to_string(),
            "ru.md:1:9: the button is «Применить» in this language's UI, not «Apply»"
        );
        assert!(g.warnings("en.md", "Press **Apply**.", false).is_empty());
        assert_eq!(g.warnings("en.md", "Press **Применить**.", false).len(), 1);
    }

    #[test]
    fn a_bad_glossary_says_where() {
        let e = parse_glossary("g.yaml", "terms:\n  - kubernetes: x\n    en: y\n").unwrap_err();
        assert!(e.to_string().starts_with("g.yaml:"), "{e}");
        let e = parse_glossary(
            "g.yaml",
            "terms:\n  - kubernetes: x\n    en: y\n    ru: z\n    avoid:\n      - pattern: \"(\"\n        say: w\n",
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("g.yaml:6:"), "{e}");
    }

    #[test]
    fn the_repository_glossary_parses() {
        let g = parse_glossary(
            "glossary.yaml",
            include_str!("../../../lessons/glossary.yaml"),
        )
        .unwrap();
        assert!(g.terms.iter().any(|t| t.kubernetes == "node"));
        assert!(g
            .buttons
            .iter()
            .any(|b| b.en == "Apply" && b.ru == "Применить"));
    }
}
