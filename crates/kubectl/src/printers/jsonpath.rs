//! kubectl's JSONPath dialect (k8s.io/client-go/util/jsonpath), evaluated over the
//! JSON form of objects: `{.metadata.name}`, `{.items[*].metadata.name}`, indexes and
//! slices (`[0]`, `[-1]`, `[1:3]`, `[::2]`), unions (`[0,2]`, `['a','b']`), `*`,
//! recursive descent (`..name`), filters (`[?(@.type=="Ready")]`, `[?(@.x)]`),
//! `{range ...}...{end}`, quoted literals (`{"\n"}`), `$`/`@`, and plain text
//! between actions.
//!
//! Results print as upstream prints them: strings, numbers and booleans as Go's
//! `fmt.Fprint` writes them, maps and lists as compact JSON, several results of one
//! action separated by single spaces. Missing keys give no result (kubectl's
//! `--allow-missing-template-keys=true`, the default) or `KEY is not found`.
//!
//! Simplified: the parser keeps upstream's grammar and error texts; evaluation
//! follows upstream's semantics over JSON values (there are no Go structs here).

use crate::printers::json::go_escape;
use serde_json::Value;

/// One element of a parsed action.
#[derive(Clone, Debug, PartialEq)]
enum Node {
    /// A quoted literal (or text between actions).
    Text(String),
    Field(String),
    Wildcard,
    Recursive,
    /// `[start:end:step]`: each part optional.
    Array([Param; 3]),
    Union(Vec<Vec<Node>>),
    Filter {
        left: Vec<Node>,
        right: Vec<Node>,
        op: String,
    },
    Int(i64),
    Float(f64),
    Bool(bool),
    Identifier(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Default)]
struct Param {
    value: i64,
    known: bool,
    /// The end of a single index (`[i]` is `[i:i+1]`).
    derived: bool,
}

/// A top-level piece of a template: text, or an action `{...}`.
#[derive(Clone, Debug, PartialEq)]
enum Segment {
    Text(String),
    Action(Vec<Node>),
}

/// Guards against runaway templates in the browser (simulator limits).
const MAX_RANGE_NESTING: usize = 100;
const MAX_RESULTS: usize = 1_000_000;
const LIMIT: &str = "the template does more work than this simulated kubectl allows";

/// A parsed JSONPath template.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonPath {
    segments: Vec<Segment>,
    allow_missing_keys: bool,
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
    start: usize,
}

fn is_terminator(c: Option<char>) -> bool {
    match c {
        None => true,
        Some(c) => matches!(
            c,
            ' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}'
        ),
    }
}

fn is_alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.input[self.pos..]
    }
    fn next(&mut self) -> Option<char> {
        let c = self.rest().chars().next()?;
        self.pos += c.len_utf8();
        Some(c)
    }
    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }
    fn backup(&mut self, c: Option<char>) {
        if let Some(c) = c {
            self.pos -= c.len_utf8();
        }
    }
    fn consume(&mut self) -> &'a str {
        let s = &self.input[self.start..self.pos];
        self.start = self.pos;
        s
    }

    /// Parses a whole template: text and `{...}` actions.
    fn parse_template(mut self) -> Result<Vec<Segment>, String> {
        let mut segments = Vec::new();
        loop {
            if self.rest().starts_with('{') {
                if self.pos > self.start {
                    segments.push(Segment::Text(self.consume().to_string()));
                }
                self.pos += 1;
                self.consume();
                let mut nodes = Vec::new();
                self.parse_inside_action(&mut nodes, true)?;
                segments.push(Segment::Action(nodes));
                continue;
            }
            if self.next().is_none() {
                break;
            }
        }
        if self.pos > self.start {
            segments.push(Segment::Text(self.consume().to_string()));
        }
        Ok(segments)
    }

    /// Parses the inside of an action up to its `}` (consumed). `top` is false for the
    /// sub-expressions (filter sides, union members) that are parsed on their own.
    fn parse_inside_action(&mut self, cur: &mut Vec<Node>, top: bool) -> Result<(), String> {
        loop {
            let rest = self.rest();
            if rest.starts_with('}') {
                self.pos += 1;
                self.consume();
                return Ok(());
            }
            if !top && rest.is_empty() {
                return Ok(());
            }
            if rest.starts_with("[?(") {
                self.parse_filter(cur)?;
                continue;
            }
            if rest.starts_with("..") {
                if cur.last() == Some(&Node::Recursive) {
                    return Err("invalid multiple recursive descent".into());
                }
                self.pos += 2;
                self.consume();
                cur.push(Node::Recursive);
                if self.peek().is_some_and(is_alphanumeric) {
                    self.parse_field(cur);
                }
                continue;
            }
            let c = self.next();
            match c {
                None | Some('\r') | Some('\n') => return Err("unclosed action".into()),
                Some(' ') | Some('@') | Some('$') => {
                    self.consume();
                }
                Some('[') => self.parse_array(cur)?,
                Some(q @ ('"' | '\'')) => self.parse_quote(cur, q)?,
                Some('.') => self.parse_field(cur),
                Some(c) if c == '+' || c == '-' || c.is_ascii_digit() => {
                    self.backup(Some(c));
                    self.parse_number(cur)?;
                }
                Some(c) if is_alphanumeric(c) => {
                    self.backup(Some(c));
                    self.parse_identifier(cur);
                }
                Some(c) => {
                    return Err(format!(
                        "unrecognized character in action: U+{:04X} '{c}'",
                        c as u32
                    ))
                }
            }
        }
    }

    fn parse_identifier(&mut self, cur: &mut Vec<Node>) {
        loop {
            let c = self.next();
            if is_terminator(c) {
                self.backup(c);
                break;
            }
        }
        let value = self.consume();
        cur.push(match value {
            "true" => Node::Bool(true),
            "false" => Node::Bool(false),
            v => Node::Identifier(v.to_string()),
        });
    }

    fn parse_number(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        if matches!(self.peek(), Some('+' | '-')) {
            self.next();
        }
        loop {
            let c = self.next();
            if !matches!(c, Some(c) if c == '.' || c.is_ascii_digit()) {
                self.backup(c);
                break;
            }
        }
        let value = self.consume();
        if let Ok(i) = value.parse::<i64>() {
            cur.push(Node::Int(i));
        } else if let Ok(f) = value.parse::<f64>() {
            cur.push(Node::Float(f));
        } else {
            return Err(format!("cannot parse number {value}"));
        }
        Ok(())
    }

    fn parse_field(&mut self, cur: &mut Vec<Node>) {
        self.consume();
        loop {
            let c = self.next();
            if c == Some('\\') {
                self.next();
            } else if is_terminator(c) {
                self.backup(c);
                break;
            }
        }
        let value = self.consume();
        if value == "*" {
            cur.push(Node::Wildcard);
        } else {
            cur.push(Node::Field(value.replace('\\', "")));
        }
    }

    fn parse_quote(&mut self, cur: &mut Vec<Node>, end: char) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated quoted string".into()),
                Some(c) if c == end && self.input.as_bytes()[self.pos - 2] != b'\\' => break,
                _ => {}
            }
        }
        let value = self.consume();
        let s = unquote(value).map_err(|e| format!("unquote string {value} error {e}"))?;
        cur.push(Node::Text(s));
        Ok(())
    }

    fn parse_array(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated array".into()),
                Some(']') => break,
                _ => {}
            }
        }
        let text = self.consume();
        let mut text = &text[1..text.len() - 1];
        if text == "*" {
            text = ":";
        }
        let parts: Vec<&str> = text.split(',').collect();
        if parts.len() > 1 {
            let mut union = Vec::new();
            for p in parts {
                union.push(parse_sub(&format!("[{}]", p.trim_matches(' ')))?);
            }
            cur.push(Node::Union(union));
            return Ok(());
        }
        // `['key']`: a dict key.
        if text.len() >= 2 && text.starts_with('\'') && text.ends_with('\'') {
            let key = &text[1..text.len() - 1];
            if !key.contains('\'') {
                cur.extend(parse_sub(&format!(".{key}"))?);
                return Ok(());
            }
        }
        let params = parse_slice(text).ok_or_else(|| format!("invalid array index {text}"))??;
        cur.push(Node::Array(params));
        Ok(())
    }

    fn parse_filter(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        self.pos += 3;
        self.consume();
        let mut begin = false;
        let mut end = false;
        let mut pair = ' ';
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated filter".into()),
                Some(q @ ('"' | '\'')) => {
                    if !begin {
                        begin = true;
                        pair = q;
                        continue;
                    }
                    if self.input.as_bytes()[self.pos - 2] != b'\\' && q == pair {
                        end = true;
                    }
                }
                Some(')') if begin == end => break,
                _ => {}
            }
        }
        if self.next() != Some(']') {
            return Err("unclosed array expect ]".into());
        }
        let text = self.consume();
        let text = &text[..text.len() - 2];
        // `^([^!<>=]+)([!<>=]+)(.+?)$`
        let op_start = text.find(['!', '<', '>', '=']);
        let split = op_start.filter(|&i| i > 0).and_then(|i| {
            let op_len = text[i..]
                .find(|c: char| !matches!(c, '!' | '<' | '>' | '='))
                .unwrap_or(text.len() - i);
            let right = &text[i + op_len..];
            (!right.is_empty()).then(|| (&text[..i], &text[i..i + op_len], right))
        });
        match split {
            None => {
                let left = parse_sub(text)?;
                cur.push(Node::Filter {
                    left,
                    right: Vec::new(),
                    op: "exists".into(),
                });
            }
            Some((l, op, r)) => {
                let left = parse_sub(l)?;
                let right = parse_sub(r)?;
                cur.push(Node::Filter {
                    left,
                    right,
                    op: op.to_string(),
                });
            }
        }
        Ok(())
    }
}

/// `^(-?\d*)(:-?\d*)?(:-?\d*)?$` and upstream's defaults for the missing parts.
fn parse_slice(text: &str) -> Option<Result<[Param; 3], String>> {
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() > 3 {
        return None;
    }
    let valid = |s: &str| {
        let d = s.strip_prefix('-').unwrap_or(s);
        d.chars().all(|c| c.is_ascii_digit())
    };
    if !parts.iter().all(|p| valid(p)) {
        return None;
    }
    let mut params = [Param::default(); 3];
    for i in 0..3 {
        match parts.get(i) {
            Some(p) if !p.is_empty() => match p.parse::<i64>() {
                Ok(v) => {
                    params[i] = Param {
                        value: v,
                        known: true,
                        derived: false,
                    }
                }
                Err(_) => return Some(Err(format!("array index {p} is not a number"))),
            },
            Some(_) => {
                if i == 0 {
                    params[0] = Param::default();
                }
            }
            None => {
                if i == 1 {
                    params[1] = Param {
                        value: params[0].value.saturating_add(1),
                        known: true,
                        derived: true,
                    };
                }
            }
        }
    }
    Some(Ok(params))
}

/// Parses a sub-expression (a filter side, a union member) as its own action.
fn parse_sub(text: &str) -> Result<Vec<Node>, String> {
    let mut p = Parser {
        input: text,
        pos: 0,
        start: 0,
    };
    let mut nodes = Vec::new();
    p.parse_inside_action(&mut nodes, false)?;
    Ok(nodes)
}

/// Go's `strconv.Unquote`, extended to single-quoted strings (`UnquoteExtend`).
pub(crate) fn unquote(s: &str) -> Result<String, &'static str> {
    let bytes = s.as_bytes();
    if bytes.len() < 2 || bytes[0] != bytes[bytes.len() - 1] {
        return Err("invalid syntax");
    }
    let quote = bytes[0] as char;
    let inner = &s[1..s.len() - 1];
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some('\\') => out.push('\\'),
            Some(q) if q == quote => out.push(q),
            Some(c @ ('x' | 'u' | 'U')) => {
                let n = match c {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = chars.by_ref().take(n).collect();
                let code = u32::from_str_radix(&hex, 16).map_err(|_| "invalid syntax")?;
                out.push(char::from_u32(code).ok_or("invalid syntax")?);
            }
            _ => return Err("invalid syntax"),
        }
    }
    Ok(out)
}

/// kubectl's `RelaxedJSONPathExpression`: `.a.b`, `a.b`, `{a.b}` and `{.a.b}` all
/// become `{.a.b}` (custom columns and `--sort-by` take such paths).
pub fn relaxed(expr: &str) -> Result<String, String> {
    if expr.is_empty() {
        return Ok(String::new());
    }
    let inner = match expr.strip_prefix('{').and_then(|e| e.strip_suffix('}')) {
        Some(i) => i,
        None => expr,
    };
    let inner = inner.strip_prefix('.').unwrap_or(inner);
    if inner.is_empty() || inner.contains(['{', '}']) {
        return Err("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'".into());
    }
    Ok(format!("{{.{inner}}}"))
}

impl JsonPath {
    /// Parses a template; the error is upstream's parser message.
    pub fn parse(text: &str) -> Result<JsonPath, String> {
        let segments = Parser {
            input: text,
            pos: 0,
            start: 0,
        }
        .parse_template()?;
        // A guard for the browser's stack (not an upstream limit).
        let mut depth = 0usize;
        for seg in &segments {
            if let Segment::Action(nodes) = seg {
                match nodes.first() {
                    Some(Node::Identifier(id)) if id == "range" => depth += 1,
                    Some(Node::Identifier(id)) if id == "end" => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            if depth > MAX_RANGE_NESTING {
                return Err(LIMIT.into());
            }
        }
        Ok(JsonPath {
            segments,
            allow_missing_keys: true,
        })
    }

    /// Whether a missing key gives no result (true) or an error.
    pub fn allow_missing_keys(mut self, allow: bool) -> JsonPath {
        self.allow_missing_keys = allow;
        self
    }

    /// The results of every action, in order (upstream's `FindResults`).
    pub fn find_results(&self, data: &Value) -> Result<Vec<Vec<Value>>, String> {
        let mut out = Vec::new();
        self.run(&self.segments, data, &mut out)?;
        Ok(out)
    }

    fn run(
        &self,
        segments: &[Segment],
        data: &Value,
        out: &mut Vec<Vec<Value>>,
    ) -> Result<(), String> {
        let mut i = 0;
        while i < segments.len() {
            if out.len() > MAX_RESULTS {
                return Err(LIMIT.into());
            }
            match &segments[i] {
                Segment::Text(t) => out.push(vec![Value::String(t.clone())]),
                Segment::Action(nodes) => match nodes.first() {
                    Some(Node::Identifier(id)) if id == "range" => {
                        let results = self.eval_list(vec![data.clone()], &nodes[1..])?;
                        let body_end = matching_end(segments, i + 1);
                        let body = &segments[i + 1..body_end];
                        for r in &results {
                            self.run(body, r, out)?;
                        }
                        if body_end >= segments.len() {
                            return Ok(());
                        }
                        i = body_end; // the `end`
                    }
                    Some(Node::Identifier(id)) if id == "end" => {
                        return Err("not in range, nothing to end".into());
                    }
                    _ => out.push(self.eval_list(vec![data.clone()], nodes)?),
                },
            }
            i += 1;
        }
        Ok(())
    }

    /// Executes the template and prints its results as kubectl does.
    pub fn execute(&self, data: &Value) -> Result<String, String> {
        let mut text = String::new();
        for results in self.find_results(data)? {
            for (i, r) in results.iter().enumerate() {
                text.push_str(&print_result(r));
                if i + 1 != results.len() {
                    text.push(' ');
                }
            }
        }
        Ok(text)
    }

    fn eval_list(&self, mut cur: Vec<Value>, nodes: &[Node]) -> Result<Vec<Value>, String> {
        for node in nodes {
            cur = self.walk(cur, node)?;
        }
        Ok(cur)
    }

    fn walk(&self, input: Vec<Value>, node: &Node) -> Result<Vec<Value>, String> {
        match node {
            Node::Text(t) => Ok(vec![Value::String(t.clone())]),
            Node::Int(i) => Ok(input.iter().map(|_| Value::from(*i)).collect()),
            Node::Float(f) => Ok(input.iter().map(|_| float_value(*f)).collect()),
            Node::Bool(b) => Ok(input.iter().map(|_| Value::Bool(*b)).collect()),
            Node::Identifier(id) => match id.as_str() {
                "range" => Ok(input),
                "end" => Err("not in range, nothing to end".into()),
                other => Err(format!("unrecognized identifier {other}")),
            },
            Node::Field(name) => {
                let results: Vec<Value> = input
                    .iter()
                    .filter_map(|v| match v {
                        Value::Object(m) => m.get(name).cloned(),
                        _ => None,
                    })
                    .collect();
                if results.is_empty() && !input.is_empty() && !self.allow_missing_keys {
                    return Err(format!("{name} is not found"));
                }
                Ok(results)
            }
            Node::Wildcard => Ok(input.iter().flat_map(children).collect()),
            Node::Recursive => {
                let mut out = Vec::new();
                for v in &input {
                    recursive(v, &mut out);
                }
                Ok(out)
            }
            Node::Array(params) => {
                let mut out = Vec::new();
                for v in &input {
                    if v.is_null() {
                        continue;
                    }
                    let Value::Array(items) = v else {
                        return Err(format!("{} is not array or slice", go_type(v)));
                    };
                    out.extend(slice(items, params)?);
                }
                Ok(out)
            }
            Node::Union(members) => {
                let mut out = Vec::new();
                for m in members {
                    out.extend(self.eval_list(input.clone(), m)?);
                }
                Ok(out)
            }
            Node::Filter { left, right, op } => {
                let mut out = Vec::new();
                for v in &input {
                    let Value::Array(items) = v else {
                        return Err(format!(
                            "{} is not array or slice and cannot be filtered",
                            go_print(v)
                        ));
                    };
                    for item in items {
                        let lefts = self.eval_list(vec![item.clone()], left);
                        if op == "exists" {
                            if lefts.is_ok_and(|l| !l.is_empty()) {
                                out.push(item.clone());
                            }
                            continue;
                        }
                        // Items without the field (or value) are skipped.
                        let lefts = lefts?;
                        match lefts.len() {
                            0 => continue,
                            1 => {}
                            _ => return Err("can only compare one element at a time".into()),
                        }
                        let rights = self.eval_list(vec![item.clone()], right)?;
                        match rights.len() {
                            0 => continue,
                            1 => {}
                            _ => return Err("can only compare one element at a time".into()),
                        }
                        if compare(&lefts[0], &rights[0], op)? {
                            out.push(item.clone());
                        }
                    }
                }
                Ok(out)
            }
        }
    }
}

/// The index of the `{end}` that closes a range whose body starts at `from`
/// (`segments.len()` when there is none: the body runs to the end).
fn matching_end(segments: &[Segment], from: usize) -> usize {
    let mut depth = 0;
    for (i, s) in segments.iter().enumerate().skip(from) {
        if let Segment::Action(nodes) = s {
            match nodes.first() {
                Some(Node::Identifier(id)) if id == "range" => depth += 1,
                Some(Node::Identifier(id)) if id == "end" => {
                    if depth == 0 {
                        return i;
                    }
                    depth -= 1;
                }
                _ => {}
            }
        }
    }
    segments.len()
}

fn float_value(f: f64) -> Value {
    serde_json::Number::from_f64(f)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

fn children(v: &Value) -> Vec<Value> {
    match v {
        Value::Object(m) => m.values().cloned().collect(),
        Value::Array(a) => a.clone(),
        Value::String(s) => s.bytes().map(Value::from).collect(),
        _ => Vec::new(),
    }
}

fn recursive(v: &Value, out: &mut Vec<Value>) {
    let kids = children(v);
    if kids.is_empty() {
        return;
    }
    out.push(v.clone());
    for k in &kids {
        recursive(k, out);
    }
}

fn slice(items: &[Value], params: &[Param; 3]) -> Result<Vec<Value>, String> {
    let len = items.len() as i64;
    let mut start = if params[0].known { params[0].value } else { 0 };
    if start < 0 {
        start += len;
    }
    let mut end = if params[1].known {
        params[1].value
    } else {
        len
    };
    if end < 0 || (end == 0 && params[1].derived) {
        end += len;
    }
    if end == start {
        return Ok(Vec::new());
    }
    if start >= len || start < 0 {
        return Err(format!(
            "array index out of bounds: index {start}, length {len}"
        ));
    }
    if end > len || end < 0 {
        return Err(format!(
            "array index out of bounds: index {}, length {len}",
            end.saturating_sub(1)
        ));
    }
    if start > end {
        return Err(format!(
            "starting index {start} is greater than ending index {end}"
        ));
    }
    let (s, e) = (start as usize, end as usize);
    let step = if params[2].known {
        if params[2].value <= 0 {
            return Err("step must be > 0".into());
        }
        usize::try_from(params[2].value).unwrap_or(usize::MAX)
    } else {
        1
    };
    Ok(items[s..e].iter().step_by(step).cloned().collect())
}

/// Go's name of a decoded JSON value's type.
fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "map[string]interface {}",
        Value::Array(_) => "[]interface {}",
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::Null => "interface {}",
    }
}

/// The comparisons of upstream's forked `template` package (`Equal`, `Less`, ...):
/// values of different basic kinds cannot be compared.
fn compare(left: &Value, right: &Value, op: &str) -> Result<bool, String> {
    use std::cmp::Ordering;
    let ordering: Option<Ordering> = match (left, right) {
        (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
        (Value::Bool(a), Value::Bool(b)) => {
            if !matches!(op, "==" | "!=") {
                return Err("invalid type for comparison".into());
            }
            Some(a.cmp(b))
        }
        (Value::Number(a), Value::Number(b)) if a.is_f64() == b.is_f64() => {
            if a.is_f64() {
                a.as_f64()
                    .unwrap_or(0.0)
                    .partial_cmp(&b.as_f64().unwrap_or(0.0))
            } else {
                Some(
                    a.as_i64()
                        .map(i128::from)
                        .or(a.as_u64().map(i128::from))
                        .cmp(&b.as_i64().map(i128::from).or(b.as_u64().map(i128::from))),
                )
            }
        }
        (Value::Null, _) | (_, Value::Null) => {
            return Err("invalid type for comparison".into());
        }
        _ => return Err("incompatible types for comparison".into()),
    };
    let Some(o) = ordering else {
        return Ok(false);
    };
    Ok(match op {
        "==" => o == Ordering::Equal,
        "!=" => o != Ordering::Equal,
        "<" => o == Ordering::Less,
        ">" => o == Ordering::Greater,
        "<=" => o != Ordering::Greater,
        ">=" => o != Ordering::Less,
        other => return Err(format!("unrecognized filter operator {other}")),
    })
}

/// One result as `PrintResults` writes it: maps and lists as compact JSON, the rest
/// as `fmt.Fprint` does.
pub fn print_result(v: &Value) -> String {
    match v {
        Value::Object(_) | Value::Array(_) => go_escape(&v.to_string()),
        other => go_print(other),
    }
}

/// A decoded JSON value as Go's `fmt.Print` (`%v`) writes it: `map[k:v]`, `[a b]`,
/// `<nil>`, floats in `%g` form.
pub fn go_print(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => s.clone(),
        Value::Number(n) => {
            if n.is_f64() {
                go_float(n.as_f64().unwrap_or(0.0))
            } else {
                n.to_string()
            }
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(go_print).collect();
            format!("[{}]", items.join(" "))
        }
        Value::Object(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{k}:{}", go_print(v)))
                .collect();
            format!("map[{}]", items.join(" "))
        }
    }
}

/// A decoded JSON value as Go's `%#v` writes it (the debugging dump of errors).
pub fn go_sharp_v(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".into(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => format!("{s:?}"),
        Value::Number(n) => {
            if n.is_f64() {
                go_float(n.as_f64().unwrap_or(0.0))
            } else {
                n.to_string()
            }
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(go_sharp_v).collect();
            format!("[]interface {{}}{{{}}}", items.join(", "))
        }
        Value::Object(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{k:?}:{}", go_sharp_v(v)))
                .collect();
            format!("map[string]interface {{}}{{{}}}", items.join(", "))
        }
    }
}

/// Go's `%v` of a float64: the shortest `%g`, which switches to the exponent form
/// for exponents below -4 or from 6 on (`1e+06`, `31234`, `0.5`).
pub fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // Shortest digits and the decimal exponent.
    let sci = format!("{f:e}"); // e.g. "3.1234e4", "-1e-7"
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if negative { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{esign}{:02}", exp.abs());
    }
    if exp < 0 {
        let zeros = "0".repeat((-exp - 1) as usize);
        return format!("{sign}0.{zeros}{digits}");
    }
    let int_len = exp as usize + 1;
    if digits.len() <= int_len {
        format!("{sign}{digits}{}", "0".repeat(int_len - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..int_len], &digits[int_len..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(tmpl: &str, data: &Value) -> String {
        JsonPath::parse(tmpl).unwrap().execute(data).unwrap()
    }

    fn list() -> Value {
        json!({"kind": "List", "items": [
            {"metadata": {"name": "a", "labels": {"app": "web"}}, "status": {"conditions": [
                {"type": "Ready", "status": "True"}, {"type": "Initialized", "status": "True"}]},
             "spec": {"ports": [{"port": 80}, {"port": 443}]}},
            {"metadata": {"name": "b"}, "status": {"conditions": [{"type": "Ready", "status": "False"}]},
             "spec": {"ports": [{"port": 8080}]}},
            {"metadata": {"name": "c"}}
        ]})
    }

    #[test]
    fn fields_wildcards_and_indexes_select_values() {
        let l = list();
        assert_eq!(run("{.items[*].metadata.name}", &l), "a b c");
        assert_eq!(run("{.items[0].metadata.name}", &l), "a");
        assert_eq!(run("{.items[-1].metadata.name}", &l), "c");
        assert_eq!(run("{.items[1:3].metadata.name}", &l), "b c");
        assert_eq!(run("{.items[::2].metadata.name}", &l), "a c");
        assert_eq!(run("{.items[0,2].metadata.name}", &l), "a c");
        assert_eq!(run("{$.kind}", &l), "List");
        assert_eq!(run("{.items[0].metadata['name']}", &l), "a");
        assert_eq!(run("kind={.kind}!", &l), "kind=List!");
    }

    #[test]
    fn maps_and_lists_print_as_compact_json() {
        let l = list();
        assert_eq!(run("{.items[0].metadata.labels}", &l), "{\"app\":\"web\"}");
        assert_eq!(
            run("{.items[0].spec.ports}", &l),
            "[{\"port\":80},{\"port\":443}]"
        );
    }

    #[test]
    fn filters_compare_strings_and_numbers() {
        let l = list();
        assert_eq!(
            run(
                "{.items[*].status.conditions[?(@.type==\"Ready\")].status}",
                &l
            ),
            "True False"
        );
        assert_eq!(
            run("{.items[*].spec.ports[?(@.port>100)].port}", &l),
            "443 8080"
        );
        assert_eq!(run("{.items[?(@.spec)].metadata.name}", &l), "a b");
        assert_eq!(
            run("{.items[?(@.spec.ports[0].port==8080)].metadata.name}", &l),
            "b"
        );
    }

    #[test]
    fn recursive_descent_finds_every_depth() {
        let l = list();
        assert_eq!(run("{..port}", &l), "80 443 8080");
        assert_eq!(run("{.items[2]..name}", &l), "c");
    }

    #[test]
    fn range_and_literals_print_one_line_per_item() {
        let l = list();
        assert_eq!(
            run(
                "{range .items[*]}{.metadata.name}{\"\\t\"}{.spec.ports[0].port}{\"\\n\"}{end}",
                &l
            ),
            "a\t80\nb\t8080\nc\t\n"
        );
    }

    #[test]
    fn missing_keys_are_empty_unless_disallowed() {
        let l = list();
        assert_eq!(run("{.nothing}", &l), "");
        let strict = JsonPath::parse("{.nothing}")
            .unwrap()
            .allow_missing_keys(false);
        assert_eq!(strict.execute(&l).unwrap_err(), "nothing is not found");
    }

    #[test]
    fn errors_use_upstream_wording() {
        assert_eq!(JsonPath::parse("{.a").unwrap_err(), "unclosed action");
        assert_eq!(JsonPath::parse("{.a[1}").unwrap_err(), "unterminated array");
        assert_eq!(
            JsonPath::parse("{.a[x]}").unwrap_err(),
            "invalid array index x"
        );
        assert_eq!(
            JsonPath::parse("{#}").unwrap_err(),
            "unrecognized character in action: U+0023 '#'"
        );
        let l = list();
        assert_eq!(
            JsonPath::parse("{.items[5]}")
                .unwrap()
                .execute(&l)
                .unwrap_err(),
            "array index out of bounds: index 5, length 3"
        );
        assert_eq!(
            JsonPath::parse("{.kind[0]}")
                .unwrap()
                .execute(&l)
                .unwrap_err(),
            "string is not array or slice"
        );
        assert_eq!(
            JsonPath::parse("{end}").unwrap().execute(&l).unwrap_err(),
            "not in range, nothing to end"
        );
    }

    #[test]
    fn relaxed_paths_gain_braces_and_a_leading_dot() {
        assert_eq!(relaxed("metadata.name").unwrap(), "{.metadata.name}");
        assert_eq!(relaxed(".metadata.name").unwrap(), "{.metadata.name}");
        assert_eq!(relaxed("{.metadata.name}").unwrap(), "{.metadata.name}");
        assert!(relaxed("{a}{b}").is_err());
    }

    #[test]
    fn floats_print_as_go_prints_them() {
        assert_eq!(go_float(31234.0), "31234");
        assert_eq!(go_float(0.5), "0.5");
        assert_eq!(go_float(1e21), "1e+21");
        assert_eq!(go_float(1e-5), "1e-05");
        assert_eq!(go_float(123456789.0), "1.23456789e+08");
    }
}

#[cfg(test)]
mod edge_tests {
    use super::*;

    #[test]
    fn extreme_indexes_give_errors_not_panics() {
        let v = serde_json::json!({"a": [1, 2]});
        for t in [
            "{.a[9223372036854775807]}",
            "{.a[-9223372036854775808]}",
            "{.a[-9223372036854775808:9223372036854775807]}",
            "{.a[99999999999999999999]}",
        ] {
            if let Ok(p) = JsonPath::parse(t) {
                let _ = p.execute(&v);
            }
        }
    }
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    #[test]
    fn runaway_ranges_stop_with_an_error() {
        let deep = "{range}".repeat(5000);
        assert!(JsonPath::parse(&deep).unwrap_err().contains("more work"));
    }
}
