//! YAML as `kubectl get -o yaml` writes it. kubectl marshals objects to JSON and
//! converts that with sigs.k8s.io/yaml, which is go-yaml v2 on top of a port of
//! libyaml's emitter. This module reproduces that output for JSON values: map keys
//! in go-yaml's order, sequences not indented under their key, strings quoted only
//! when go-yaml quotes them (`"1"`, `""`, timestamps, `'{...}'`), multi-line
//! strings as literal blocks, and long lines folded at column 80.

use serde_json::Value;
use std::cmp::Ordering;
use warehouse_sim::StableSort;

/// libyaml's preferred line width (`best_width`).
const BEST_WIDTH: usize = 80;

/// Renders a JSON value as kubectl's YAML printer does. The result ends with a
/// newline.
pub fn to_yaml(value: &Value) -> String {
    let mut e = Emitter {
        out: String::new(),
        column: 0,
    };
    match value {
        Value::Object(m) if !m.is_empty() => e.mapping(m, 0, false),
        Value::Array(a) if !a.is_empty() => e.sequence(a, 0, false),
        other => {
            e.scalar_value(other, 0);
            e.newline();
        }
    }
    e.out
}

struct Emitter {
    out: String,
    /// Characters written on the current line.
    column: usize,
}

impl Emitter {
    fn put(&mut self, s: &str) {
        for ch in s.chars() {
            if ch == '\n' {
                self.out.push('\n');
                self.column = 0;
            } else {
                self.out.push(ch);
                self.column += 1;
            }
        }
    }

    fn newline(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// Starts a new line indented by `indent`.
    fn indent(&mut self, indent: usize) {
        if self.column != 0 {
            self.newline();
        }
        while self.column < indent {
            self.out.push(' ');
            self.column += 1;
        }
    }

    /// A block mapping whose keys start at column `indent`. With `inline`, the
    /// first key continues the current line (after `- `).
    fn mapping(&mut self, map: &serde_json::Map<String, Value>, indent: usize, inline: bool) {
        let mut keys: Vec<&String> = map.keys().collect();
        keys.stable_sort_by(|a, b| key_order(a, b));
        for (i, key) in keys.into_iter().enumerate() {
            if !(inline && i == 0) {
                self.indent(indent);
            }
            self.key(key);
            self.put(":");
            let value = &map[key];
            match value {
                Value::Object(m) if !m.is_empty() => {
                    self.newline();
                    self.mapping(m, indent + 2, false);
                }
                // go-yaml writes sequences under a mapping key without indenting them.
                Value::Array(a) if !a.is_empty() => {
                    self.newline();
                    self.sequence(a, indent, false);
                }
                other => {
                    self.put(" ");
                    self.scalar_value(other, indent + 2);
                }
            }
        }
        if self.column != 0 {
            self.newline();
        }
    }

    /// A block sequence whose dashes sit at column `indent`.
    fn sequence(&mut self, items: &[Value], indent: usize, inline: bool) {
        for (i, item) in items.iter().enumerate() {
            if !(inline && i == 0) {
                self.indent(indent);
            }
            self.put("- ");
            match item {
                Value::Object(m) if !m.is_empty() => self.mapping(m, indent + 2, true),
                Value::Array(a) if !a.is_empty() => self.sequence(a, indent + 2, true),
                other => self.scalar_value(other, indent + 2),
            }
        }
        if self.column != 0 {
            self.newline();
        }
    }

    fn key(&mut self, key: &str) {
        // Keys are simple keys: never folded, never literal blocks.
        match string_style(key, true) {
            Style::Plain => self.put(key),
            Style::Single => self.single_quoted(key, 0, false),
            Style::Double | Style::Literal => self.double_quoted(key, 0, false),
        }
    }

    /// A scalar (or an empty collection) as a value; `indent` is where folded
    /// continuation lines start.
    fn scalar_value(&mut self, v: &Value, indent: usize) {
        match v {
            Value::Null => self.put("null"),
            Value::Bool(b) => self.put(if *b { "true" } else { "false" }),
            Value::Number(n) => {
                let text = format_number(n);
                self.put(&text)
            }
            Value::String(s) => match string_style(s, false) {
                Style::Plain => self.plain(s, indent),
                Style::Single => self.single_quoted(s, indent, true),
                Style::Double => self.double_quoted(s, indent, true),
                Style::Literal => self.literal(s, indent),
            },
            Value::Array(_) => self.put("[]"),
            Value::Object(_) => self.put("{}"),
        }
    }

    fn plain(&mut self, s: &str, indent: usize) {
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        for (i, &ch) in chars.iter().enumerate() {
            if ch == ' ' {
                let next_is_space = chars.get(i + 1) == Some(&' ');
                if !spaces && self.column > BEST_WIDTH && !next_is_space {
                    self.indent_for_fold(indent);
                } else {
                    self.put_char(ch);
                }
                spaces = true;
            } else {
                self.put_char(ch);
                spaces = false;
            }
        }
    }

    fn single_quoted(&mut self, s: &str, indent: usize, allow_breaks: bool) {
        self.put("'");
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        for (i, &ch) in chars.iter().enumerate() {
            if ch == ' ' {
                let next_is_space = chars.get(i + 1) == Some(&' ');
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i != 0
                    && i != chars.len() - 1
                    && !next_is_space
                {
                    self.indent_for_fold(indent);
                } else {
                    self.put_char(ch);
                }
                spaces = true;
            } else {
                if ch == '\'' {
                    self.put_char('\'');
                }
                self.put_char(ch);
                spaces = false;
            }
        }
        self.put("'");
    }

    fn double_quoted(&mut self, s: &str, indent: usize, allow_breaks: bool) {
        self.put("\"");
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        for (i, &ch) in chars.iter().enumerate() {
            if !is_printable(ch) || ch == '\u{feff}' || ch == '\n' || ch == '"' || ch == '\\' {
                let esc = match ch {
                    '\0' => "\\0".to_string(),
                    '\u{7}' => "\\a".to_string(),
                    '\u{8}' => "\\b".to_string(),
                    '\t' => "\\t".to_string(),
                    '\n' => "\\n".to_string(),
                    '\u{b}' => "\\v".to_string(),
                    '\u{c}' => "\\f".to_string(),
                    '\r' => "\\r".to_string(),
                    '\u{1b}' => "\\e".to_string(),
                    '"' => "\\\"".to_string(),
                    '\\' => "\\\\".to_string(),
                    '\u{85}' => "\\N".to_string(),
                    '\u{a0}' => "\\_".to_string(),
                    '\u{2028}' => "\\L".to_string(),
                    '\u{2029}' => "\\P".to_string(),
                    c if (c as u32) <= 0xff => format!("\\x{:02X}", c as u32),
                    c if (c as u32) <= 0xffff => format!("\\u{:04X}", c as u32),
                    c => format!("\\U{:08X}", c as u32),
                };
                self.put(&esc);
                spaces = false;
            } else if ch == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i != 0
                    && i != chars.len() - 1
                {
                    self.indent_for_fold(indent);
                    if chars.get(i + 1) == Some(&' ') {
                        self.put("\\");
                    }
                } else {
                    self.put_char(ch);
                }
                spaces = true;
            } else {
                self.put_char(ch);
                spaces = false;
            }
        }
        self.put("\"");
    }

    fn literal(&mut self, s: &str, indent: usize) {
        self.put("|");
        if s.starts_with(' ') || s.starts_with('\n') {
            self.put("2");
        }
        let trailing = s.len() - s.trim_end_matches('\n').len();
        match (trailing, s.len() == trailing) {
            (0, _) => self.put("-"),
            (1, false) => {}
            _ => self.put("+"),
        }
        self.newline();
        // libyaml's write_literal_scalar: breaks are written as they come; each line
        // of content starts at the indent.
        let mut at_line_start = true;
        for ch in s.chars() {
            if ch == '\n' {
                self.newline();
                at_line_start = true;
            } else {
                if at_line_start {
                    while self.column < indent {
                        self.put_char(' ');
                    }
                }
                self.put_char(ch);
                at_line_start = false;
            }
        }
    }

    fn indent_for_fold(&mut self, indent: usize) {
        self.newline();
        while self.column < indent {
            self.out.push(' ');
            self.column += 1;
        }
    }

    fn put_char(&mut self, ch: char) {
        self.out.push(ch);
        self.column += 1;
    }
}

fn format_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f.is_finite() && f == f.trunc() && f.abs() < 1e21 {
        // go-yaml decodes JSON `1.0` as a float and prints it with 'g': `1`.
        return format!("{}", f as i64);
    }
    let s = format!("{f}");
    s
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

/// The style go-yaml v2 asks for and libyaml's emitter settles on.
fn string_style(s: &str, simple_key: bool) -> Style {
    let requested = if s.contains('\n') {
        Style::Literal
    } else if resolves_to_string(s) && !is_base60_float(s) {
        Style::Plain
    } else {
        Style::Double
    };
    let a = analyze(s);
    match requested {
        Style::Plain => {
            if !a.block_plain_allowed || (s.is_empty() && simple_key) {
                if a.single_quoted_allowed {
                    Style::Single
                } else {
                    Style::Double
                }
            } else {
                Style::Plain
            }
        }
        Style::Literal => {
            if !a.block_allowed || simple_key {
                Style::Double
            } else {
                Style::Literal
            }
        }
        other => other,
    }
}

struct Analysis {
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn is_printable(c: char) -> bool {
    let u = c as u32;
    u == 0x0a
        || (0x20..=0x7e).contains(&u)
        || u == 0x85
        || (0xa0..=0xd7ff).contains(&u)
        || ((0xe000..=0xfffd).contains(&u) && u != 0xfeff)
        || (0x10000..=0x10ffff).contains(&u)
}

/// libyaml's `yaml_emitter_analyze_scalar`, for block context.
fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            block_plain_allowed: false,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let mut block_indicators = false;
    let mut special = false;
    let mut line_breaks = false;
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    if s.starts_with("---") || s.starts_with("...") {
        block_indicators = true;
    }
    let blankz = |i: usize| -> bool {
        match chars.get(i) {
            None => true,
            Some(c) => matches!(
                c,
                ' ' | '\t' | '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}'
            ),
        }
    };
    let is_break = |c: char| matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
    let mut preceded_by_whitespace = true;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = blankz(i + 1);
        if i == 0 {
            if matches!(
                c,
                '#' | ','
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '&'
                    | '*'
                    | '!'
                    | '|'
                    | '>'
                    | '\''
                    | '"'
                    | '%'
                    | '@'
                    | '`'
            ) {
                block_indicators = true;
            }
            if (c == '?' || c == ':') && followed_by_whitespace {
                block_indicators = true;
            }
            if c == '-' && followed_by_whitespace {
                block_indicators = true;
            }
        } else {
            if c == ':' && followed_by_whitespace {
                block_indicators = true;
            }
            if c == '#' && preceded_by_whitespace {
                block_indicators = true;
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if is_break(c) {
            line_breaks = true;
        }
        if c == ' ' {
            if i == 0 {
                leading_space = true;
            }
            if i == chars.len() - 1 {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            if i == 0 {
                leading_break = true;
            }
            if i == chars.len() - 1 {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = blankz(i);
    }
    let mut a = Analysis {
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks || block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

/// go-yaml v2's `resolve`: would this text, written plain, read back as a string?
fn resolves_to_string(s: &str) -> bool {
    if s.is_empty() {
        return false; // null
    }
    const NON_STRINGS: &[&str] = &[
        "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
        "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
        ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    if NON_STRINGS.contains(&s) {
        return false;
    }
    let first = s.as_bytes()[0];
    let hint_number = first.is_ascii_digit() || first == b'+' || first == b'-' || first == b'.';
    if !hint_number {
        return true;
    }
    let plain = s.replace('_', "");
    if parse_go_int(&plain) || parse_go_float(&plain) {
        return false;
    }
    if (first.is_ascii_digit()) && is_timestamp(s) {
        return false;
    }
    // 0b binary (with sign) is an int too.
    let unsigned = plain.trim_start_matches(['+', '-']);
    if let Some(bits) = unsigned.strip_prefix("0b") {
        if !bits.is_empty() && bits.bytes().all(|b| b == b'0' || b == b'1') {
            return false;
        }
    }
    true
}

/// `strconv.ParseInt(s, 0, 64)` / `ParseUint`: decimal, 0x hex, 0o/0 octal, 0b binary.
fn parse_go_int(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.is_empty() {
        return false;
    }
    let (digits, radix) =
        if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (h, 16)
        } else if let Some(b) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
            (b, 2)
        } else if let Some(o) = body.strip_prefix("0o").or_else(|| body.strip_prefix("0O")) {
            (o, 8)
        } else if body.len() > 1 && body.starts_with('0') {
            (&body[1..], 8)
        } else {
            (body, 10)
        };
    !digits.is_empty()
        && digits.chars().all(|c| c.is_digit(radix))
        && u64::from_str_radix(digits, radix).is_ok()
}

/// `strconv.ParseFloat(s, 64)` for decimal forms (and inf/nan words).
fn parse_go_float(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" || lower == "nan" {
        return true;
    }
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return false;
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        i += 1;
        if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    i == bytes.len()
}

/// go-yaml v2's timestamp formats: `2006-1-2T15:4:5.999999999Z07:00`,
/// `2006-1-2t15:4:5.999999999Z07:00`, `2006-1-2 15:4:5.999999999`, `2006-1-2`.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let num = |i: &mut usize, min: usize, max: usize| -> bool {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() && *i - start < max {
            *i += 1;
        }
        *i - start >= min
    };
    if !num(&mut i, 4, 4) || b.get(i) != Some(&b'-') {
        return false;
    }
    i += 1;
    if !num(&mut i, 1, 2) || b.get(i) != Some(&b'-') {
        return false;
    }
    i += 1;
    if !num(&mut i, 1, 2) {
        return false;
    }
    if i == b.len() {
        return true;
    }
    let sep = b[i];
    if sep != b'T' && sep != b't' && sep != b' ' {
        return false;
    }
    i += 1;
    if !num(&mut i, 1, 2) || b.get(i) != Some(&b':') {
        return false;
    }
    i += 1;
    if !num(&mut i, 1, 2) || b.get(i) != Some(&b':') {
        return false;
    }
    i += 1;
    if !num(&mut i, 1, 2) {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !num(&mut i, 1, 9) {
            return false;
        }
    }
    let rest = &s[i..];
    if sep == b' ' {
        return rest.is_empty();
    }
    if rest == "Z" {
        return true;
    }
    let rb = rest.as_bytes();
    rb.len() == 6
        && (rb[0] == b'+' || rb[0] == b'-')
        && rb[1].is_ascii_digit()
        && rb[2].is_ascii_digit()
        && rb[3] == b':'
        && rb[4].is_ascii_digit()
        && rb[5].is_ascii_digit()
}

/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`
fn is_base60_float(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (main, frac) = match body.split_once('.') {
        Some((m, f)) => (m, Some(f)),
        None => (body, None),
    };
    if let Some(f) = frac {
        if !f.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
            return false;
        }
    }
    let mut parts = main.split(':');
    let head = parts.next().unwrap_or("");
    if head.is_empty()
        || !head.as_bytes()[0].is_ascii_digit()
        || !head.bytes().all(|b| b.is_ascii_digit() || b == b'_')
    {
        return false;
    }
    let mut any = false;
    for p in parts {
        any = true;
        let ok = match p.len() {
            1 => p.as_bytes()[0].is_ascii_digit(),
            2 => (b'0'..=b'5').contains(&p.as_bytes()[0]) && p.as_bytes()[1].is_ascii_digit(),
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    any
}

/// go-yaml v2's map key order (`keyList.Less`): letters compare by code point,
/// a letter sorts after a non-letter, and runs of digits compare as numbers.
pub fn key_order(a: &str, b: &str) -> Ordering {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let n = ar.len().min(br.len());
    for i in 0..n {
        if ar[i] == br[i] {
            continue;
        }
        let al = ar[i].is_alphabetic();
        let bl = br[i].is_alphabetic();
        if al && bl {
            return ar[i].cmp(&br[i]);
        }
        if al || bl {
            return if bl {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && ar[j - 1].is_ascii_digit() {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && ar[ai].is_ascii_digit() {
            an = an
                .saturating_mul(10)
                .saturating_add(ar[ai] as i64 - '0' as i64);
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && br[bi].is_ascii_digit() {
            bn = bn
                .saturating_mul(10)
                .saturating_add(br[bi] as i64 - '0' as i64);
            bi += 1;
        }
        if an != bn {
            return an.cmp(&bn);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return ar[i].cmp(&br[i]);
    }
    ar.len().cmp(&br.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prints_nested_maps_and_unindented_sequences() {
        let v = json!({
            "kind": "Pod",
            "apiVersion": "v1",
            "metadata": {"name": "x", "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27", "ports": [{"containerPort": 80}]}]},
            "status": {"conditions": []}
        });
        assert_eq!(
            to_yaml(&v),
            "apiVersion: v1\nkind: Pod\nmetadata:\n  labels:\n    app: web\n  name: x\nspec:\n  containers:\n  - image: nginx:1.27\n    name: nginx\n    ports:\n    - containerPort: 80\nstatus:\n  conditions: []\n"
        );
    }

    #[test]
    fn quotes_strings_that_would_read_back_as_other_types() {
        let v = json!({
            "a": "", "b": "1", "c": "true", "d": "2026-01-01T00:00:00Z", "e": "100m",
            "f": "10.244.1.2", "g": "yes", "h": "1e3", "i": "0x1F", "j": null, "k": 5
        });
        assert_eq!(
            to_yaml(&v),
            "a: \"\"\nb: \"1\"\nc: \"true\"\nd: \"2026-01-01T00:00:00Z\"\ne: 100m\nf: 10.244.1.2\ng: \"yes\"\nh: \"1e3\"\ni: \"0x1F\"\nj: null\nk: 5\n"
        );
    }

    #[test]
    fn single_quotes_strings_with_indicators() {
        let v =
            json!({"a": "{\"x\":1}", "b": "- x", "c": "a: b", "d": "it's", "e": "*", "f": "a #b"});
        assert_eq!(
            to_yaml(&v),
            "a: '{\"x\":1}'\nb: '- x'\nc: 'a: b'\nd: it's\ne: '*'\nf: 'a #b'\n"
        );
    }

    #[test]
    fn multi_line_strings_become_literal_blocks() {
        let v =
            json!({"metadata": {"annotations": {"k": "{\"a\":1}\n"}, "name": "x"}, "z": "a\nb"});
        assert_eq!(
            to_yaml(&v),
            "metadata:\n  annotations:\n    k: |\n      {\"a\":1}\n  name: x\nz: |-\n  a\n  b\n"
        );
    }

    #[test]
    fn long_plain_and_quoted_strings_fold_after_column_80() {
        let msg = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
        let v = json!({"status": {"conditions": [{"message": msg, "type": "PodScheduled"}]}});
        assert_eq!(
            to_yaml(&v),
            "status:\n  conditions:\n  - message: '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are\n      available: 3 No preemption victims found for incoming pod.'\n    type: PodScheduled\n"
        );
        let plain = "word ".repeat(30);
        let plain = plain.trim_end();
        let out = to_yaml(&json!({ "m": plain }));
        assert!(out.lines().count() > 1, "{out}");
        assert!(out.lines().nth(1).unwrap().starts_with("  word"), "{out}");
    }

    #[test]
    fn sequences_of_sequences_and_scalars() {
        let v = json!({"a": [[1, 2], "x", {}], "b": [{"c": {"d": 1}, "e": 2}]});
        assert_eq!(
            to_yaml(&v),
            "a:\n- - 1\n  - 2\n- x\n- {}\nb:\n- c:\n    d: 1\n  e: 2\n"
        );
    }

    #[test]
    fn keys_sort_like_go_yaml() {
        let mut keys = vec!["b10", "b9", "a_b", "aB", "ab", "a.b", "a-b"];
        keys.sort_by(|a, b| key_order(a, b));
        assert_eq!(keys, vec!["a-b", "a.b", "a_b", "aB", "ab", "b9", "b10"]);
    }

    #[test]
    fn empty_list_document() {
        let v = json!({"apiVersion": "v1", "items": [], "kind": "List", "metadata": {"resourceVersion": ""}});
        assert_eq!(
            to_yaml(&v),
            "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n"
        );
    }
}
