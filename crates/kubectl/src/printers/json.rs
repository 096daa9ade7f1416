//! JSON as `kubectl get -o json` writes it (Go's `json.MarshalIndent` with four
//! spaces and HTML escaping; keys sorted, as Go sorts map keys).

/// Go's `json.MarshalIndent(v, "", "    ")` with its HTML escaping.
pub fn to_go_json(v: &serde_json::Value) -> String {
    use serde::Serialize;
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    v.serialize(&mut ser).expect("JSON values serialise");
    let text = String::from_utf8(buf).expect("serde_json writes UTF-8");
    go_escape(&text)
}

/// Go's encoding/json escapes `<`, `>`, `&`, U+2028 and U+2029 inside strings.
/// These characters only occur inside strings in JSON text, so replacing them
/// everywhere is safe.
pub fn go_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}
