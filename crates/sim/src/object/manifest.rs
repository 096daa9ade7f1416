//! Decoding manifests (YAML or JSON, one or many documents) into typed objects.
//! Every mistake comes back as data with its document and, where the YAML parser
//! knows it, line and column.

// Manifest errors are rare, cold and carry what a learner needs to see; their size
// does not matter next to the parse that produced them.
#![allow(clippy::result_large_err)]

use crate::object::{Kind, Object};
use serde::Deserialize;
use std::fmt;

/// The largest manifest text accepted at once (bytes). Bigger input is refused whole.
pub const MAX_MANIFEST_BYTES: usize = 1024 * 1024;
/// The most documents one manifest may hold.
pub const MAX_DOCUMENTS: usize = 500;

/// The most bytes a manifest's documents may expand to, aliases (`*name`) counted by
/// what they stand for: a few kilobytes of anchors and aliases cannot fill memory.
/// go-yaml's answer to the same attack ("document contains excessive aliasing")
/// counts nodes; bytes also catch one large anchor aliased many times. Each scalar
/// counts its bytes and every node [`NODE_BYTES`] more.
pub const MAX_DECODED_BYTES: usize = 8 * 1024 * 1024;

/// What a node costs in [`MAX_DECODED_BYTES`] besides its text.
pub const NODE_BYTES: usize = 16;

/// The deepest nesting of flow collections (`[`, `{`) a manifest may have: serde_yaml's
/// recursion limit, checked before the parser runs so that refusing a deep text
/// costs time linear in its length.
pub const MAX_NESTING: usize = 128;

/// A manifest document that could not be turned into an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestError {
    /// 1-based index of the YAML document.
    pub document: usize,
    /// 1-based line and column, when known.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub kind: ManifestErrorKind,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ManifestErrorKind {
    /// The text is not valid YAML/JSON.
    Syntax,
    /// `apiVersion`/`kind` missing.
    MissingTypeMeta,
    /// A kind this simulator's apiserver does not serve.
    NoMatch {
        api_version: String,
        kind: String,
        name: String,
        namespace: String,
    },
    /// A field has the wrong type.
    Decode,
    /// Fields the kind does not have (strict field validation); each as a path such
    /// as `spec.template.spec.containers[0].imagee`.
    UnknownFields(Vec<String>),
    /// Size or count limits.
    TooLarge,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

/// Splits `text` into YAML documents and decodes each into a typed object. Empty
/// documents (a lone `---`, comments only) are skipped, as kubectl skips them.
pub fn decode_manifests(text: &str) -> Result<Vec<Object>, ManifestError> {
    if text.len() > MAX_MANIFEST_BYTES {
        return Err(ManifestError {
            document: 0,
            line: None,
            column: None,
            kind: ManifestErrorKind::TooLarge,
            message: format!(
                "the manifest is {} bytes; the limit is {} bytes",
                text.len(),
                MAX_MANIFEST_BYTES
            ),
        });
    }
    if let Some(e) = control_character(text) {
        return Err(e);
    }
    check_bounds(text)?;
    let mut objects = Vec::new();
    for (index, doc) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let document = index + 1;
        if document > MAX_DOCUMENTS {
            return Err(ManifestError {
                document,
                line: None,
                column: None,
                kind: ManifestErrorKind::TooLarge,
                message: format!("a manifest may hold at most {MAX_DOCUMENTS} documents"),
            });
        }
        let value =
            serde_yaml::Value::deserialize(doc).map_err(|e| syntax_error(text, document, &e))?;
        if value.is_null() {
            continue;
        }
        // Go's encoding/json has no infinity or NaN: sigs.k8s.io/yaml's conversion
        // fails on `.inf` where serde_json would quietly write null.
        if let Some(bad) = non_finite(&value) {
            return Err(ManifestError {
                document,
                line: None,
                column: None,
                kind: ManifestErrorKind::Syntax,
                message: format!("error converting YAML to JSON: json: unsupported value: {bad}"),
            });
        }
        // Round-trip through JSON so numbers and keys take JSON's shape, as the
        // apiserver sees them after kubectl converts YAML to JSON.
        let json: serde_json::Value = serde_json::to_value(&value).map_err(|e| ManifestError {
            document,
            line: None,
            column: None,
            kind: ManifestErrorKind::Syntax,
            message: format!("error converting YAML to JSON: {e}"),
        })?;
        objects.push(decode_object(document, json)?);
    }
    Ok(objects)
}

/// The first infinite or NaN number in a value, as Go prints it (`+Inf`, `-Inf`, `NaN`).
fn non_finite(value: &serde_yaml::Value) -> Option<&'static str> {
    use serde_yaml::Value;
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.is_nan() => Some("NaN"),
            Some(f) if f == f64::INFINITY => Some("+Inf"),
            Some(f) if f == f64::NEG_INFINITY => Some("-Inf"),
            _ => None,
        },
        Value::Sequence(items) => items.iter().find_map(non_finite),
        Value::Mapping(m) => m
            .iter()
            .find_map(|(k, v)| non_finite(k).or_else(|| non_finite(v))),
        Value::Tagged(t) => non_finite(&t.value),
        _ => None,
    }
}

/// The bounds every YAML text is held to before it is decoded (manifests, and the
/// lesson files' front matter, blocks and index): nesting within [`MAX_NESTING`],
/// the expansion within [`MAX_DECODED_BYTES`]. Both checks take time linear in the
/// text (and in the budget), however it is built.
pub fn check_bounds(text: &str) -> Result<(), ManifestError> {
    if let Some(e) = too_deep(text) {
        return Err(e);
    }
    expansion_within_budget(text)
}

/// The first flow collection nested deeper than [`MAX_NESTING`], where it opens.
/// Quoted scalars and comments are skipped; brackets inside a block scalar (`|`)
/// count, which can only refuse text nested that deep anyway.
fn too_deep(text: &str) -> Option<ManifestError> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut comment = false;
    let mut prev = '\n';
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match (quote, c) {
            (_, '\n') if quote != Some('"') && quote != Some('\'') => comment = false,
            _ if comment => {}
            (Some('"'), '\\') => {
                chars.next();
            }
            (Some(q), c) if c == q => {
                if q == '\'' && chars.peek().is_some_and(|(_, n)| *n == '\'') {
                    chars.next();
                } else {
                    quote = None;
                }
            }
            (Some(_), _) => {}
            (None, '#') if prev.is_whitespace() => comment = true,
            // A quote opens a scalar only where a scalar starts.
            (None, '\'' | '"')
                if prev.is_whitespace() || matches!(prev, '[' | '{' | ',' | ':' | '-') =>
            {
                quote = Some(c)
            }
            (None, '[' | '{') => {
                depth += 1;
                if depth > MAX_NESTING {
                    let (line, column) = line_column(text, at);
                    return Some(ManifestError {
                        document: document_at(text, at),
                        line: Some(line),
                        column: Some(column),
                        kind: ManifestErrorKind::Syntax,
                        message: format!(
                            "error converting YAML to JSON: yaml: exceeded max depth of {MAX_NESTING}"
                        ),
                    });
                }
            }
            (None, ']' | '}') => depth = depth.saturating_sub(1),
            _ => {}
        }
        prev = c;
    }
    None
}

/// Walks every document as serde would, aliases replayed, counting bytes against
/// [`MAX_DECODED_BYTES`] and stopping as soon as the budget is spent, before
/// anything of the expansion is built.
fn expansion_within_budget(text: &str) -> Result<(), ManifestError> {
    let budget = std::cell::Cell::new(MAX_DECODED_BYTES);
    for (index, doc) in serde_yaml::Deserializer::from_str(text).enumerate() {
        if index >= MAX_DOCUMENTS {
            break;
        }
        if let Err(e) = serde::de::DeserializeSeed::deserialize(Budget(&budget), doc) {
            if !e.to_string().contains(BUDGET_SPENT) {
                // A syntax error: the decode that follows reports it in full.
                return Ok(());
            }
            let location = e.location();
            return Err(ManifestError {
                document: index + 1,
                line: location.as_ref().map(|l| l.line()),
                column: location.as_ref().map(|l| l.column()),
                kind: ManifestErrorKind::TooLarge,
                message: format!(
                    "the YAML expands to more than {MAX_DECODED_BYTES} bytes once its aliases (*name) are replaced by what they name; this is the most a YAML text may decode to"
                ),
            });
        }
    }
    Ok(())
}

const BUDGET_SPENT: &str = "decoded-size budget spent";

/// A serde visitor that builds nothing and counts what it visits.
#[derive(Clone, Copy)]
struct Budget<'a>(&'a std::cell::Cell<usize>);

impl Budget<'_> {
    fn take<E: serde::de::Error>(self, bytes: usize) -> Result<(), E> {
        let cost = bytes.saturating_add(NODE_BYTES);
        let left = self.0.get();
        if cost > left {
            return Err(E::custom(BUDGET_SPENT));
        }
        self.0.set(left - cost);
        Ok(())
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Budget<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Budget<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.take(0)
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.take(8)
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.take(8)
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.take(8)
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<(), E> {
        self.take(v.len())
    }
    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<(), E> {
        self.take(v.len())
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.take(0)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.take(0)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.take(0)?;
        serde::de::DeserializeSeed::deserialize(self, d)
    }
    fn visit_newtype_struct<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.take(0)?;
        serde::de::DeserializeSeed::deserialize(self, d)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.take(0)?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.take(0)?;
        while map.next_key_seed(self)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        use serde::de::VariantAccess;
        self.take(0)?;
        let ((), variant) = data.variant_seed(self)?;
        variant.newtype_variant_seed(self)
    }
}

/// Whether libyaml's reader takes the character (`yaml_parser_update_buffer`):
/// tab, line breaks, printable ASCII, NEL and the printable planes.
fn yaml_printable(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}'
        | '\u{e000}'..='\u{fffd}' | '\u{10000}'..='\u{10ffff}')
}

/// The 1-based line and column (in characters) of byte `at`, counting line breaks
/// as libyaml does: `\r\n`, `\r`, `\n`, NEL, LS and PS.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let (mut line, mut column) = (1, 1);
    let mut chars = text[..at].chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                line += 1;
                column = 1;
            }
            '\n' | '\u{85}' | '\u{2028}' | '\u{2029}' => {
                line += 1;
                column = 1;
            }
            _ => column += 1,
        }
    }
    (line, column)
}

/// The document (1-based) that the line holding byte `at` belongs to: one more than
/// the `---` markers before it that follow some content.
fn document_at(text: &str, at: usize) -> usize {
    let mut document = 1;
    let mut content = false;
    for line in text[..at].split_inclusive('\n') {
        if !line.ends_with('\n') {
            break; // the line holding `at` itself
        }
        let marker = line
            .strip_prefix("---")
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r', '\n']));
        if marker {
            if content {
                document += 1;
            }
            content = true;
        } else if !line.trim().is_empty() && !line.trim_start().starts_with('#') {
            content = true;
        }
    }
    document
}

/// A character libyaml refuses anywhere in the text, where it is. libyaml's reader
/// finds it before the parser has a position, so its own error always says line 1,
/// column 1; this finds the character's own line and column.
fn control_character(text: &str) -> Option<ManifestError> {
    let (at, c) = text.char_indices().find(|(_, c)| !yaml_printable(*c))?;
    let (line, column) = line_column(text, at);
    Some(ManifestError {
        document: document_at(text, at),
        line: Some(line),
        column: Some(column),
        kind: ManifestErrorKind::Syntax,
        message: format!(
            "error converting YAML to JSON: yaml: control characters are not allowed (found U+{:04X})",
            c as u32
        ),
    })
}

/// serde_yaml's message split into libyaml's problem and, when it has one, its
/// context and the context's 1-based line and column: `did not find expected ','
/// or ']' at line 4 column 1, while parsing a flow sequence at line 3 column 4`.
fn split_yaml_message(message: &str) -> (&str, Option<(&str, usize, usize)>) {
    let (problem, context) = match message.split_once(", while ") {
        Some((p, c)) => (p, Some(c)),
        None => (message, None),
    };
    let strip = |s: &'_ str| -> (usize, Option<(usize, usize)>) {
        let Some(i) = s.rfind(" at line ") else {
            return (s.len(), None);
        };
        let mark = s[i + " at line ".len()..]
            .split_once(" column ")
            .and_then(|(l, c)| Some((l.parse().ok()?, c.parse().ok()?)));
        match mark {
            Some(m) => (i, Some(m)),
            None => (s.len(), None),
        }
    };
    let (end, _) = strip(problem);
    let context = context.and_then(|c| {
        let (end, mark) = strip(c);
        mark.map(|(l, col)| (&c[..end], l, col))
    });
    (&problem[..end], context)
}

/// A YAML syntax error where it is. libyaml reports a quote or a flow collection left
/// open at the end of the text (or at the next `---`), where it noticed: here it is
/// reported where the quote or bracket opened, which is what the learner must fix.
fn syntax_error(text: &str, document: usize, e: &serde_yaml::Error) -> ManifestError {
    let full = e.to_string();
    let (problem, context) = split_yaml_message(&full);
    let location = e.location();
    let mut line = location.as_ref().map(|l| l.line());
    let mut column = location.as_ref().map(|l| l.column());
    let mut problem = problem.to_string();
    if let (Some(loc), Some((what, l, c))) = (location.as_ref(), context) {
        let rest = text.get(loc.index()..).unwrap_or("");
        let cut_off = rest.trim().is_empty()
            || (loc.column() == 1 && (rest.starts_with("---") || rest.starts_with("...")));
        let opener = match what {
            "scanning a quoted scalar" => Some("quote"),
            "parsing a flow sequence" => Some("'['"),
            "parsing a flow mapping" => Some("'{'"),
            _ => None,
        };
        if let (true, Some(opener)) = (cut_off, opener) {
            line = Some(l);
            column = Some(c);
            problem = format!("found unclosed {opener} (opened here)");
        }
    }
    // serde_yaml places a duplicate key at the start of its mapping; the learner
    // needs the second key itself.
    if let (Some(loc), Some(key)) = (location.as_ref(), duplicate_key(&problem)) {
        if let Some(at) = second_key(text, loc.index(), key) {
            let (l, c) = line_column(text, at);
            line = Some(l);
            column = Some(c);
        }
    }
    ManifestError {
        document,
        line,
        column,
        kind: ManifestErrorKind::Syntax,
        message: format!("error converting YAML to JSON: yaml: {problem}"),
    }
}

/// The key of serde_yaml's `[path: ]duplicate entry with key "name"`, when it is a
/// plain string.
fn duplicate_key(problem: &str) -> Option<&str> {
    const WHAT: &str = "duplicate entry with key \"";
    let at = problem.find(WHAT)?;
    let key = problem[at + WHAT.len()..].strip_suffix('"')?;
    (!key.contains(['\\', '"'])).then_some(key)
}

/// The byte where `key` appears for the second time as a key of the block mapping
/// whose first key is at byte `start`: a line indented to the same column that
/// starts with `key:` (or the key quoted).
fn second_key(text: &str, start: usize, key: &str) -> Option<usize> {
    let rest = text.get(start..)?;
    if rest.starts_with('{') {
        return None;
    }
    let indent = line_column(text, start).1 - 1;
    let is_key = |content: &str| {
        [key.to_string(), format!("\"{key}\""), format!("'{key}'")]
            .iter()
            .any(|k| {
                content.strip_prefix(k.as_str()).is_some_and(|after| {
                    after
                        .trim_start_matches(' ')
                        .strip_prefix(':')
                        .is_some_and(|after| {
                            after.is_empty() || after.starts_with([' ', '\t', '\r', '\n'])
                        })
                })
            })
    };
    let mut offset = start;
    let mut seen = 0;
    for (i, line) in rest.split_inclusive('\n').enumerate() {
        let body = line.trim_end_matches(['\n', '\r']);
        let content = if i == 0 {
            body
        } else {
            body.trim_start_matches(' ')
        };
        let lead = body.len() - content.len();
        let blank = content.is_empty() || content.starts_with('#');
        if i > 0 && !blank && (lead < indent || body.starts_with("---") || body.starts_with("..."))
        {
            break;
        }
        if (i == 0 || lead == indent) && is_key(content) {
            seen += 1;
            if seen == 2 {
                return Some(offset + lead);
            }
        }
        offset += line.len();
    }
    None
}

fn decode_object(document: usize, json: serde_json::Value) -> Result<Object, ManifestError> {
    let err = |kind, message: String| ManifestError {
        document,
        line: None,
        column: None,
        kind,
        message,
    };
    let Some(map) = json.as_object() else {
        return Err(err(
            ManifestErrorKind::Decode,
            "error unmarshaling JSON: the document is not an object".into(),
        ));
    };
    let api_version = map.get("apiVersion").and_then(|v| v.as_str()).unwrap_or("");
    let kind = map.get("kind").and_then(|v| v.as_str()).unwrap_or("");
    if kind.is_empty() {
        return Err(err(
            ManifestErrorKind::MissingTypeMeta,
            "error validating data: invalid object to validate: Object 'Kind' is missing".into(),
        ));
    }
    if api_version.is_empty() {
        return Err(err(
            ManifestErrorKind::MissingTypeMeta,
            "error validating data: invalid object to validate: apiVersion not set".into(),
        ));
    }
    let api_version = api_version.to_string();
    let kind = kind.to_string();
    let meta = map.get("metadata");
    let field = |f: &str| {
        meta.and_then(|m| m.get(f))
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string()
    };
    let (name, namespace) = (field("name"), field("namespace"));
    let Some(k) = Kind::from_type_meta(&api_version, &kind) else {
        return Err(err(
            ManifestErrorKind::NoMatch {
                api_version: api_version.clone(),
                kind: kind.clone(),
                name,
                namespace,
            },
            format!("no matches for kind \"{kind}\" in version \"{api_version}\""),
        ));
    };
    let known = Object::known_fields(k, &api_version, json.clone()).map_err(|m| {
        err(
            ManifestErrorKind::Decode,
            format!("error decoding {kind}: {m}"),
        )
    })?;
    let mut unknown = Vec::new();
    unknown_fields(&json, &known, &mut String::new(), &mut unknown);
    if !unknown.is_empty() {
        let listed: Vec<String> = unknown
            .iter()
            .map(|f| format!("unknown field \"{f}\""))
            .collect();
        return Err(err(
            ManifestErrorKind::UnknownFields(unknown),
            format!(
                "error decoding {kind}: strict decoding error: {}",
                listed.join(", ")
            ),
        ));
    }
    Object::from_json_at(k, &api_version, json).map_err(|m| {
        err(
            ManifestErrorKind::Decode,
            format!("error decoding {kind}: {m}"),
        )
    })
}

/// Strict field validation: every field of `input` that the typed decoder dropped
/// (so is absent from `known`) is unknown. Nulls are skipped: `field: null` means
/// "unset", not "unknown".
pub(super) fn unknown_fields(
    input: &serde_json::Value,
    known: &serde_json::Value,
    path: &mut String,
    out: &mut Vec<String>,
) {
    use serde_json::Value;
    match (input, known) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                match b.get(k) {
                    Some(kv) => unknown_fields(v, kv, path, out),
                    None if v.is_null() => {}
                    None => out.push(path.clone()),
                }
                path.truncate(len);
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (v, kv)) in a.iter().zip(b).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                unknown_fields(v, kv, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_multi_document_yaml_and_skips_empty_documents() {
        let text = "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\n# only a comment\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: nginx, image: nginx}]\n";
        let objs = decode_manifests(text).unwrap();
        assert_eq!(objs.len(), 2);
        assert_eq!(objs[0].kind(), Kind::Namespace);
        assert_eq!(objs[1].name(), "web");
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let e = decode_manifests("apiVersion: v1\nkind: Pod\nmetadata:\n  name: [x\n").unwrap_err();
        assert_eq!(e.kind, ManifestErrorKind::Syntax);
        assert!(e.line.is_some(), "{e:?}");
    }

    #[test]
    fn control_characters_name_their_document_line_and_column() {
        let e = decode_manifests("---\n# intro\na: 1\n---\n---\nb: \"x\u{1b}\"\n").unwrap_err();
        assert_eq!((e.document, e.line, e.column), (3, Some(6), Some(6)));
        assert_eq!(
            e.to_string(),
            "line 6, column 6: error converting YAML to JSON: yaml: control characters are not allowed (found U+001B)"
        );
        assert_eq!(line_column("a\u{2028}b\r\nc\rd", 9), (4, 1));
    }

    #[test]
    fn yaml_messages_split_into_problem_and_context() {
        assert_eq!(
            split_yaml_message("did not find expected ',' or ']' at line 4 column 1, while parsing a flow sequence at line 3 column 4"),
            ("did not find expected ',' or ']'", Some(("parsing a flow sequence", 3, 4)))
        );
        assert_eq!(
            split_yaml_message("mapping values are not allowed in this context at line 4 column 3"),
            ("mapping values are not allowed in this context", None)
        );
        assert_eq!(
            split_yaml_message("repetition limit exceeded"),
            ("repetition limit exceeded", None)
        );
    }

    #[test]
    fn unknown_kinds_are_no_match_errors() {
        let e = decode_manifests("apiVersion: example.com/v1\nkind: Foo\nmetadata: {name: x}\n")
            .unwrap_err();
        assert_eq!(
            e.message,
            "no matches for kind \"Foo\" in version \"example.com/v1\""
        );
    }

    #[test]
    fn strict_decoding_lists_every_unknown_field() {
        let e = decode_manifests(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replica: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: a, imagee: nginx}]\n",
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "error decoding Deployment: strict decoding error: unknown field \"spec.replica\", unknown field \"spec.template.spec.containers[0].imagee\""
        );
    }

    #[test]
    fn stored_only_kinds_decode_at_each_served_version() {
        let v2 = decode_manifests("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: a}\nspec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3}\n").unwrap();
        assert_eq!(v2[0].kind(), Kind::HorizontalPodAutoscaler);
        let v1 = decode_manifests("apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: a}\nspec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3, targetCPUUtilizationPercentage: 50}\n").unwrap();
        assert_eq!(v1[0].api_version(), "autoscaling/v1");
        assert_eq!(
            v1[0].to_json()["spec"]["targetCPUUtilizationPercentage"],
            50
        );
        let e = decode_manifests("apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: a}\n")
            .unwrap_err();
        assert_eq!(
            e.message,
            "no matches for kind \"CronJob\" in version \"batch/v1beta1\""
        );
    }

    #[test]
    fn wrong_field_types_name_the_field() {
        let e = decode_manifests(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: many}\n",
        )
        .unwrap_err();
        assert_eq!(e.kind, ManifestErrorKind::Decode);
        assert!(e.message.contains("spec.replicas"), "{}", e.message);
    }
}
