//! The Go `text/template` subset kubectl's `-o go-template` runs, over objects
//! decoded from JSON as kubectl decodes them (apimachinery's `json.Unmarshal` into
//! `map[string]interface{}`: integers stay int64, so `{{.spec.replicas}}` prints `3`
//! and `{{printf "%d" .spec.replicas}}` works; other numbers are float64).
//!
//! Supported: text and actions with `{{- -}}` trimming and `{{/* comments */}}`;
//! fields (`.a.b`), `.`, `$`, variables (`$x := ...`, `$x = ...`), parenthesised
//! pipelines with fields (`(index .spec.ports 0).nodePort`), pipes, string, raw
//! string, number, bool and nil literals; `if`/`else if`/`else`, `range` (with
//! `$i, $e :=`, `else`, `break`, `continue`), `with`/`else`; the functions `and`,
//! `or`, `not`, `eq`, `ne`, `lt`, `le`, `gt`, `ge`, `index`, `len`, `print`,
//! `printf`, `println`, `slice`, kubectl's `base64decode` and `exists`, and the
//! deterministic part of the sprig functions kubectl adds (`upper`, `default`,
//! `join`, `add`, `toJson`, ... see [`SPRIG`]).
//! Missing map keys print `<no value>` (kubectl's `missingkey=default`).
//!
//! `define` and `template`; for Helm's charts ([`TemplateSet`]) also `include`,
//! `toYaml`, `required` and `fail`.
//!
//! Simplified: `block`, `call`, `html`, `js` and
//! `urlquery` are not available, nor sprig's random, date, regex, crypto and semver
//! functions; printf knows the common verbs and flags.

use crate::printers::jsonpath::{go_float, go_print, unquote};
use serde_json::Value;
use std::fmt::Write as _;
use warehouse_sim::StableSort;

/// A value during execution.
#[derive(Clone, Debug, PartialEq)]
enum V {
    /// Go's invalid `reflect.Value`: a missing map key; prints `<no value>`.
    Invalid,
    /// A JSON null (a nil interface).
    Nil,
    Bool(bool),
    /// An integer constant of the template (`{{3}}`), an index, a length.
    Int(i64),
    /// A JSON number or a float constant.
    Float(f64),
    Str(String),
    /// A JSON object or array.
    Json(Value),
}

impl V {
    fn from_json(v: &Value) -> V {
        match v {
            Value::Null => V::Nil,
            Value::Bool(b) => V::Bool(*b),
            // apimachinery's json.Unmarshal keeps integers as int64.
            Value::Number(n) => match n.as_i64() {
                Some(i) => V::Int(i),
                None => V::Float(n.as_f64().unwrap_or(0.0)),
            },
            Value::String(s) => V::Str(s.clone()),
            other => V::Json(other.clone()),
        }
    }

    fn type_name(&self) -> &'static str {
        match self {
            V::Invalid | V::Nil => "<nil>",
            V::Bool(_) => "bool",
            V::Int(_) => "int64",
            V::Float(_) => "float64",
            V::Str(_) => "string",
            V::Json(Value::Array(_)) => "[]interface {}",
            V::Json(_) => "map[string]interface {}",
        }
    }

    fn truth(&self) -> bool {
        match self {
            V::Invalid | V::Nil => false,
            V::Bool(b) => *b,
            V::Int(i) => *i != 0,
            V::Float(f) => *f != 0.0,
            V::Str(s) => !s.is_empty(),
            V::Json(Value::Array(a)) => !a.is_empty(),
            V::Json(Value::Object(m)) => !m.is_empty(),
            V::Json(_) => true,
        }
    }

    /// `fmt.Print` of the value.
    fn print(&self) -> String {
        match self {
            V::Invalid => "<no value>".into(),
            V::Nil => "<nil>".into(),
            V::Bool(b) => b.to_string(),
            V::Int(i) => i.to_string(),
            V::Float(f) => go_float(*f),
            V::Str(s) => s.clone(),
            V::Json(v) => go_print(v),
        }
    }
}

// ----- lexing -----

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Dot,
    Field(String),
    Var(String),
    Ident(String),
    Str(String),
    Number(String),
    Pipe,
    LParen,
    RParen,
    Comma,
    Declare,
    Assign,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    /// Byte offset in the template.
    pos: usize,
    /// Whether whitespace came right before it.
    spaced: bool,
}

/// A template piece: text or the tokens of one action.
enum Piece {
    Text(String),
    Action(Vec<Token>, usize),
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn line_of(src: &str, pos: usize) -> usize {
    1 + src[..pos.min(src.len())].matches('\n').count()
}

fn lex(src: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut i = 0;
    let mut trim_next = false;
    while i <= src.len() {
        let Some(open) = src[i..].find("{{").map(|o| o + i) else {
            let mut text = &src[i..];
            if trim_next {
                text = text.trim_start_matches(is_space);
            }
            if !text.is_empty() {
                pieces.push(Piece::Text(text.to_string()));
            }
            break;
        };
        let mut text = &src[i..open];
        if trim_next {
            text = text.trim_start_matches(is_space);
        }
        let mut j = open + 2;
        let after = &src[j..];
        if after.starts_with('-') && after[1..].starts_with(is_space) {
            text = text.trim_end_matches(is_space);
            j += 1;
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text.to_string()));
        }
        // Comments.
        let inner_start = j + src[j..].len() - src[j..].trim_start_matches(is_space).len();
        if src[inner_start..].starts_with("/*") {
            let Some(close) = src[inner_start..].find("*/") else {
                return Err(format!(
                    "template: output:{}: unclosed comment",
                    line_of(src, open)
                ));
            };
            let mut k = inner_start + close + 2;
            let rest = &src[k..];
            let trimmed = rest.trim_start_matches(is_space);
            k += rest.len() - trimmed.len();
            if let Some(r) = src[k..].strip_prefix("-}}") {
                let _ = r;
                trim_next = true;
                i = k + 3;
            } else if src[k..].starts_with("}}") {
                trim_next = false;
                i = k + 2;
            } else {
                return Err(format!(
                    "template: output:{}: comment ends before closing delimiter",
                    line_of(src, open)
                ));
            }
            continue;
        }
        let (tokens, end, trim) = lex_action(src, j)?;
        pieces.push(Piece::Action(tokens, open));
        trim_next = trim;
        i = end;
    }
    Ok(pieces)
}

/// Lexes one action from `start` (after `{{` and any `-`); returns its tokens, the
/// offset after `}}` and whether it ends with a trim marker.
fn lex_action(src: &str, start: usize) -> Result<(Vec<Token>, usize, bool), String> {
    let mut tokens = Vec::new();
    let mut i = start;
    let mut spaced = true;
    let mut parens = 0usize;
    let unclosed = || format!("template: output:{}: unclosed action", line_of(src, start));
    loop {
        let rest = &src[i..];
        if rest.is_empty() {
            return Err(unclosed());
        }
        if rest.starts_with("}}") {
            return Ok((tokens, i + 2, false));
        }
        if rest.starts_with(" -}}") || rest.starts_with("\t-}}") || rest.starts_with("\n-}}") {
            return Ok((tokens, i + 4, true));
        }
        let c = rest.chars().next().unwrap_or(' ');
        if is_space(c) {
            i += c.len_utf8();
            spaced = true;
            continue;
        }
        let pos = i;
        let tok = match c {
            '|' => {
                i += 1;
                Tok::Pipe
            }
            '(' => {
                i += 1;
                parens += 1;
                if parens > MAX_NESTING {
                    return Err(format!(
                        "template: output:{}: {TOO_DEEP}",
                        line_of(src, pos)
                    ));
                }
                Tok::LParen
            }
            ')' => {
                i += 1;
                parens = parens.saturating_sub(1);
                Tok::RParen
            }
            ',' => {
                i += 1;
                Tok::Comma
            }
            '=' => {
                i += 1;
                Tok::Assign
            }
            ':' => {
                if rest.starts_with(":=") {
                    i += 2;
                    Tok::Declare
                } else {
                    return Err(format!(
                        "template: output:{}: expected :=",
                        line_of(src, pos)
                    ));
                }
            }
            '"' => {
                let (tok, k) = lex_quoted(src, i)?;
                i = k;
                tok
            }
            '`' => {
                let (tok, k) = lex_raw_string(src, i)?;
                i = k;
                tok
            }
            '.' | '$' => {
                let (tok, k) = lex_dot_or_var(src, i, c);
                i = k;
                tok
            }
            c if c.is_ascii_digit()
                || ((c == '-' || c == '+')
                    && rest[1..].starts_with(|d: char| d.is_ascii_digit() || d == '.')) =>
            {
                let k = i + 1 + number_len(&src[i + 1..]);
                let n = src[i..k].to_string();
                i = k;
                Tok::Number(n)
            }
            c if c == '_' || c.is_alphabetic() => {
                let k = i + word_len(rest);
                let w = src[i..k].to_string();
                i = k;
                Tok::Ident(w)
            }
            '\'' => {
                let Some((tok, k)) = lex_char(src, i) else {
                    return Err(unclosed());
                };
                i = k;
                tok
            }
            other => {
                return Err(format!(
                    "template: output:{}: unexpected {other:?} in command",
                    line_of(src, pos)
                ))
            }
        };
        tokens.push(Token { tok, pos, spaced });
        spaced = false;
    }
}

/// A quoted string at `i`: its token and the offset after its closing quote.
fn lex_quoted(src: &str, i: usize) -> Result<(Tok, usize), String> {
    let bytes = src.as_bytes();
    let mut k = i + 1;
    loop {
        match bytes.get(k) {
            None | Some(b'\n') => {
                return Err(format!(
                    "template: output:{}: unterminated quoted string",
                    line_of(src, i)
                ))
            }
            Some(b'\\') => k += 2,
            Some(b'"') => break,
            _ => k += 1,
        }
    }
    let lit = &src[i..=k];
    let tok =
        Tok::Str(unquote(lit).map_err(|e| format!("template: output:{}: {e}", line_of(src, i)))?);
    Ok((tok, k + 1))
}

/// A raw (backquoted) string at `i`: its token and the offset after it.
fn lex_raw_string(src: &str, i: usize) -> Result<(Tok, usize), String> {
    let Some(end) = src[i + 1..].find('`') else {
        return Err(format!(
            "template: output:{}: unterminated raw quoted string",
            line_of(src, i)
        ));
    };
    let s = src[i + 1..i + 1 + end].to_string();
    Ok((Tok::Str(s), i + end + 2))
}

/// `.`, `.Field`, `.5` or `$var` at `i` (`c` is `.` or `$`): the token and the
/// offset after it.
fn lex_dot_or_var(src: &str, i: usize, c: char) -> (Tok, usize) {
    let k = i + 1 + word_len(&src[i + 1..]);
    let name = &src[i + 1..k];
    let i = k;
    if c == '$' {
        (Tok::Var(format!("${name}")), i)
    } else if name.is_empty() {
        if src[i..].starts_with(|d: char| d.is_ascii_digit()) {
            let k = i + number_len(&src[i..]);
            let n = format!(".{}", &src[i..k]);
            (Tok::Number(n), k)
        } else {
            (Tok::Dot, i)
        }
    } else {
        (Tok::Field(name.to_string()), i)
    }
}

/// A character constant (`'a'`) at `i`, a number as in Go; `None` when it is not
/// closed.
fn lex_char(src: &str, i: usize) -> Option<(Tok, usize)> {
    let end = src[i + 1..].find('\'')?;
    let ch = &src[i + 1..i + 1 + end];
    let v = unquote(&format!("\"{ch}\""))
        .ok()
        .and_then(|s| s.chars().next())
        .map(|c| c as i64)
        .unwrap_or(0);
    Some((Tok::Number(v.to_string()), i + end + 2))
}

fn word_len(s: &str) -> usize {
    s.find(|c: char| !(c == '_' || c.is_alphanumeric()))
        .unwrap_or(s.len())
}

fn number_len(s: &str) -> usize {
    let mut prev = ' ';
    for (i, c) in s.char_indices() {
        let ok = c.is_ascii_alphanumeric()
            || c == '.'
            || c == '_'
            || ((c == '+' || c == '-') && matches!(prev, 'e' | 'E' | 'p' | 'P'));
        if !ok {
            return i;
        }
        prev = c;
    }
    s.len()
}

// ----- parsing -----

#[derive(Clone, Debug)]
enum Operand {
    Dot,
    /// `.a.b` (on dot) or `$x.a.b` (on a variable), or `(pipe).a`.
    Chain(Box<Term>, Vec<String>),
    Ident(String),
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Nil,
}

#[derive(Clone, Debug)]
enum Term {
    Dot,
    Var(String),
    Pipe(Pipeline),
}

#[derive(Clone, Debug)]
struct Command {
    args: Vec<Operand>,
    pos: usize,
    text: String,
}

#[derive(Clone, Debug, Default)]
struct Pipeline {
    decl: Vec<String>,
    assign: bool,
    cmds: Vec<Command>,
}

#[derive(Clone, Debug)]
enum Node {
    Text(String),
    Action(Pipeline),
    If(Pipeline, Vec<Node>, Vec<Node>),
    Range(Pipeline, Vec<Node>, Vec<Node>),
    With(Pipeline, Vec<Node>, Vec<Node>),
    Break,
    Continue,
    /// `{{template "name" pipeline}}`: runs a `define`d template with the
    /// pipeline's value as dot (nil without one).
    Template(String, Option<Pipeline>, usize),
}

/// A parsed template.
#[derive(Clone, Debug)]
pub struct Template {
    root: Vec<Node>,
    src: String,
    /// Its name in errors: `output` for kubectl, the file's path in a chart.
    name: String,
    /// The templates its `{{define "name"}}` blocks declare.
    defines: std::collections::BTreeMap<String, Vec<Node>>,
    /// `missingkey=error` (kubectl's `--allow-missing-template-keys=false`).
    missing_key_error: bool,
    /// `missingkey=zero`, as Helm runs templates: a missing key is a nil
    /// interface, so a field of it is a "nil pointer evaluating" error.
    missing_key_zero: bool,
}

struct TreeParser<'a> {
    src: &'a str,
    pieces: Vec<Piece>,
    i: usize,
    /// How deep `if`/`range`/`with` nest here (bounded: see [`MAX_NESTING`]).
    depth: usize,
    /// Whether Helm's functions ([`HELM`]) are defined.
    helm: bool,
    defines: std::collections::BTreeMap<String, Vec<Node>>,
}

/// The deepest nesting of controls or parentheses this simulated kubectl parses
/// (a guard for the browser's stack; real templates stay far below it).
const MAX_NESTING: usize = 100;
const TOO_DEEP: &str = "the template nests deeper than this simulated kubectl allows";

/// What ended a list of nodes.
enum Ending {
    Eof,
    End,
    Else(Vec<Token>, usize),
}

impl TreeParser<'_> {
    fn err(&self, pos: usize, msg: impl AsRef<str>) -> String {
        format!(
            "template: output:{}: {}",
            line_of(self.src, pos),
            msg.as_ref()
        )
    }

    fn list(&mut self, in_range: bool) -> Result<(Vec<Node>, Ending), String> {
        let mut nodes = Vec::new();
        while self.i < self.pieces.len() {
            let i = self.i;
            self.i += 1;
            let (tokens, pos) = match &self.pieces[i] {
                Piece::Text(t) => {
                    nodes.push(Node::Text(t.clone()));
                    continue;
                }
                Piece::Action(t, p) => (t.clone(), *p),
            };
            let Some(first) = tokens.first() else {
                return Err(self.err(pos, "missing value for command"));
            };
            let keyword = match &first.tok {
                Tok::Ident(w) => w.as_str(),
                _ => "",
            };
            match keyword {
                "end" => {
                    if tokens.len() > 1 {
                        return Err(self.err(pos, "unexpected token in end"));
                    }
                    return Ok((nodes, Ending::End));
                }
                "else" => return Ok((nodes, Ending::Else(tokens[1..].to_vec(), pos))),
                "if" | "range" | "with" => {
                    let node = self.control(keyword, &tokens[1..], pos, in_range)?;
                    nodes.push(node);
                }
                "break" | "continue" => {
                    if !in_range {
                        return Err(
                            self.err(pos, format!("{{{{{keyword}}}}} outside {{{{range}}}}"))
                        );
                    }
                    nodes.push(if keyword == "break" {
                        Node::Break
                    } else {
                        Node::Continue
                    });
                }
                "define" => {
                    let name = match tokens.get(1).map(|t| &t.tok) {
                        Some(Tok::Str(n)) if tokens.len() == 2 => n.clone(),
                        _ => return Err(self.err(pos, "unexpected token in define clause")),
                    };
                    if self.depth > 0 {
                        return Err(self.err(pos, "unexpected <define> in command"));
                    }
                    self.depth += 1;
                    let body = self.list(false);
                    self.depth -= 1;
                    match body? {
                        (body, Ending::End) => {
                            self.defines.insert(name, body);
                        }
                        (_, Ending::Eof) => return Err(self.err(self.src.len(), "unexpected EOF")),
                        (_, Ending::Else(_, p)) => return Err(self.err(p, "unexpected {{else}}")),
                    }
                }
                "template" => {
                    let name = match tokens.get(1).map(|t| &t.tok) {
                        Some(Tok::Str(n)) => n.clone(),
                        _ => return Err(self.err(pos, "unexpected token in template clause")),
                    };
                    let pipe = if tokens.len() > 2 {
                        Some(self.pipeline(&tokens[2..], pos, false)?)
                    } else {
                        None
                    };
                    nodes.push(Node::Template(name, pipe, pos));
                }
                "block" => {
                    return Err(self.err(
                        pos,
                        format!("{{{{{keyword}}}}} is not available in this simulated kubectl"),
                    ))
                }
                _ => nodes.push(Node::Action(self.pipeline(&tokens, pos, false)?)),
            }
        }
        Ok((nodes, Ending::Eof))
    }

    fn control(
        &mut self,
        keyword: &str,
        tokens: &[Token],
        pos: usize,
        in_range: bool,
    ) -> Result<Node, String> {
        if self.depth >= MAX_NESTING {
            return Err(self.err(pos, TOO_DEEP));
        }
        self.depth += 1;
        let node = self.control_body(keyword, tokens, pos, in_range);
        self.depth -= 1;
        node
    }

    fn control_body(
        &mut self,
        keyword: &str,
        tokens: &[Token],
        pos: usize,
        in_range: bool,
    ) -> Result<Node, String> {
        let pipe = self.pipeline(tokens, pos, keyword == "range")?;
        let body_in_range = in_range || keyword == "range";
        let (body, ending) = self.list(body_in_range)?;
        let else_list = match ending {
            Ending::Eof => return Err(self.err(self.src.len(), "unexpected EOF")),
            Ending::End => Vec::new(),
            Ending::Else(rest, epos) => {
                if rest.is_empty() {
                    let (else_body, ending) = self.list(in_range)?;
                    match ending {
                        Ending::End => else_body,
                        Ending::Eof => return Err(self.err(self.src.len(), "unexpected EOF")),
                        Ending::Else(_, p) => {
                            return Err(self.err(p, "expected end; found {{else}}"))
                        }
                    }
                } else {
                    // `{{else if ...}}` / `{{else with ...}}`: a nested control whose
                    // `end` closes both.
                    let kw = match &rest[0].tok {
                        Tok::Ident(w) if w == "if" || w == "with" => w.clone(),
                        _ => return Err(self.err(epos, "unexpected token in else")),
                    };
                    vec![self.control(&kw, &rest[1..], epos, in_range)?]
                }
            }
        };
        Ok(match keyword {
            "if" => Node::If(pipe, body, else_list),
            "range" => Node::Range(pipe, body, else_list),
            _ => Node::With(pipe, body, else_list),
        })
    }

    fn pipeline(&self, tokens: &[Token], pos: usize, range: bool) -> Result<Pipeline, String> {
        let mut p = Pipeline::default();
        let mut t = tokens;
        // Declarations: `$x :=`, `$x =`, `$i, $e :=` (range only).
        if let Some(Token {
            tok: Tok::Var(v), ..
        }) = t.first()
        {
            match t.get(1).map(|x| &x.tok) {
                Some(Tok::Declare) | Some(Tok::Assign) => {
                    p.assign = t[1].tok == Tok::Assign;
                    p.decl.push(v.clone());
                    t = &t[2..];
                }
                Some(Tok::Comma) if range => {
                    if let (
                        Some(Token {
                            tok: Tok::Var(v2), ..
                        }),
                        Some(d),
                    ) = (t.get(2), t.get(3))
                    {
                        if d.tok == Tok::Declare || d.tok == Tok::Assign {
                            p.assign = d.tok == Tok::Assign;
                            p.decl.push(v.clone());
                            p.decl.push(v2.clone());
                            t = &t[4..];
                        }
                    }
                }
                _ => {}
            }
        }
        let mut start = 0;
        let mut depth = 0;
        let mut cmds: Vec<&[Token]> = Vec::new();
        for (i, tok) in t.iter().enumerate() {
            match tok.tok {
                Tok::LParen => depth += 1,
                Tok::RParen => depth -= 1,
                Tok::Pipe if depth == 0 => {
                    cmds.push(&t[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        cmds.push(&t[start..]);
        for c in cmds {
            if c.is_empty() {
                return Err(self.err(pos, "missing value for command"));
            }
            p.cmds.push(self.command(c)?);
        }
        Ok(p)
    }

    fn command(&self, tokens: &[Token]) -> Result<Command, String> {
        let pos = tokens[0].pos;
        let mut args = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            let tk = &tokens[i];
            let mut operand = match &tk.tok {
                Tok::Dot => Operand::Dot,
                Tok::Field(f) => Operand::Chain(Box::new(Term::Dot), vec![f.clone()]),
                Tok::Var(v) => Operand::Chain(Box::new(Term::Var(v.clone())), Vec::new()),
                Tok::Str(s) => Operand::Str(s.clone()),
                Tok::Number(n) => parse_number(n)
                    .ok_or_else(|| self.err(tk.pos, format!("illegal number syntax: {n:?}")))?,
                Tok::Ident(w) => match w.as_str() {
                    "true" => Operand::Bool(true),
                    "false" => Operand::Bool(false),
                    "nil" => Operand::Nil,
                    f if FUNCS.contains(&f)
                        || SPRIG.contains(&f)
                        || (self.helm && HELM.contains(&f)) =>
                    {
                        Operand::Ident(f.to_string())
                    }
                    f => return Err(self.err(tk.pos, format!("function {f:?} not defined"))),
                },
                Tok::LParen => {
                    let mut depth = 0;
                    let mut j = i;
                    loop {
                        match tokens.get(j).map(|t| &t.tok) {
                            None => return Err(self.err(tk.pos, "unclosed left paren")),
                            Some(Tok::LParen) => depth += 1,
                            Some(Tok::RParen) => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    let inner = self.pipeline(&tokens[i + 1..j], tk.pos, false)?;
                    i = j;
                    Operand::Chain(Box::new(Term::Pipe(inner)), Vec::new())
                }
                Tok::RParen => return Err(self.err(tk.pos, "unexpected right paren")),
                other => {
                    return Err(
                        self.err(tk.pos, format!("unexpected {} in operand", tok_text(other)))
                    )
                }
            };
            // Fields written right after a term chain onto it.
            while let Some(Token {
                tok: Tok::Field(f),
                spaced: false,
                ..
            }) = tokens.get(i + 1)
            {
                operand = match operand {
                    Operand::Chain(t, mut fs) => {
                        fs.push(f.clone());
                        Operand::Chain(t, fs)
                    }
                    Operand::Dot => Operand::Chain(Box::new(Term::Dot), vec![f.clone()]),
                    _ => return Err(self.err(tokens[i + 1].pos, "unexpected . after term")),
                };
                i += 1;
            }
            args.push(operand);
            i += 1;
        }
        let end = tokens.last().map(|t| t.pos).unwrap_or(pos);
        let end = end + self.src[end..].find(['}', ' ', '|']).unwrap_or(0).max(1);
        let text = self.src[pos..end.min(self.src.len())]
            .trim_end()
            .to_string();
        Ok(Command { args, pos, text })
    }
}

fn tok_text(t: &Tok) -> String {
    match t {
        Tok::Pipe => "\"|\"".into(),
        Tok::Comma => "\",\"".into(),
        Tok::Declare => "\":=\"".into(),
        Tok::Assign => "\"=\"".into(),
        other => format!("{other:?}"),
    }
}

fn parse_number(n: &str) -> Option<Operand> {
    let clean = n.replace('_', "");
    let (neg, body) = match clean.strip_prefix('-') {
        Some(b) => (true, b.to_string()),
        None => (false, clean.trim_start_matches('+').to_string()),
    };
    let int = if let Some(h) = body.strip_prefix("0x").or(body.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(o) = body.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()
    } else if let Some(b) = body.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()
    } else {
        body.parse::<i64>().ok()
    };
    if let Some(i) = int {
        return Some(Operand::Int(if neg { -i } else { i }));
    }
    body.parse::<f64>()
        .ok()
        .map(|f| Operand::Float(if neg { -f } else { f }))
}

const FUNCS: &[&str] = &[
    "and",
    "or",
    "not",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "index",
    "len",
    "print",
    "printf",
    "println",
    "slice",
    "base64decode",
    "exists",
];

/// The deterministic part of sprig's `TxtFuncMap` that kubectl adds.
const SPRIG: &[&str] = &[
    "trim",
    "trimAll",
    "trimPrefix",
    "trimSuffix",
    "upper",
    "lower",
    "title",
    "repeat",
    "substr",
    "trunc",
    "contains",
    "hasPrefix",
    "hasSuffix",
    "quote",
    "squote",
    "cat",
    "indent",
    "nindent",
    "replace",
    "nospace",
    "toString",
    "atoi",
    "int",
    "int64",
    "float64",
    "default",
    "empty",
    "coalesce",
    "ternary",
    "toJson",
    "toPrettyJson",
    "splitList",
    "join",
    "sortAlpha",
    "list",
    "first",
    "last",
    "rest",
    "initial",
    "has",
    "uniq",
    "reverse",
    "dict",
    "get",
    "hasKey",
    "keys",
    "values",
    "add",
    "add1",
    "sub",
    "mul",
    "div",
    "mod",
    "max",
    "min",
    "b64enc",
    "b64dec",
    "plural",
];

/// The functions Helm adds to sprig's for chart templates (the part this
/// simulator has: `include`, `toYaml`, `required`, `fail`; see
/// [`TemplateSet`]).
const HELM: &[&str] = &["include", "toYaml", "required", "fail"];

impl Template {
    /// Parses a template; errors read as Go's (`template: output:1: ...`).
    pub fn parse(src: &str) -> Result<Template, String> {
        Template::parse_with(src, false)
    }

    fn parse_with(src: &str, helm: bool) -> Result<Template, String> {
        let pieces = lex(src)?;
        let mut p = TreeParser {
            src,
            pieces,
            i: 0,
            depth: 0,
            helm,
            defines: Default::default(),
        };
        let (root, ending) = p.list(false)?;
        match ending {
            Ending::Eof => Ok(Template {
                root,
                src: src.to_string(),
                name: "output".to_string(),
                defines: p.defines,
                missing_key_error: false,
                missing_key_zero: helm,
            }),
            Ending::End => Err(format!(
                "template: output:{}: unexpected {{{{end}}}}",
                line_of(src, src.len())
            )),
            Ending::Else(_, pos) => Err(format!(
                "template: output:{}: unexpected {{{{else}}}}",
                line_of(src, pos)
            )),
        }
    }

    /// Whether a missing map key prints `<no value>` (true, kubectl's default) or
    /// stops the template with an error.
    pub fn allow_missing_keys(mut self, allow: bool) -> Template {
        self.missing_key_error = !allow;
        self
    }

    /// Executes the template on `data`. On failure, returns what was written so far
    /// and Go's error text.
    pub fn execute(&self, data: &Value) -> Result<String, (String, String)> {
        execute_in(std::slice::from_ref(self), 0, data)
    }
}

/// Runs `templates[index]` on `data`; the others lend their `define`s.
fn execute_in(
    templates: &[Template],
    index: usize,
    data: &Value,
) -> Result<String, (String, String)> {
    let this = &templates[index];
    let root = V::from_json(data);
    let mut st = State {
        missing_key_error: this.missing_key_error,
        missing_key_zero: this.missing_key_zero,
        steps: 0,
        out: String::new(),
        vars: vec![("$".to_string(), root.clone())],
        templates,
        current: index,
        executing: this.name.clone(),
        depth: 0,
    };
    match st.walk_list(&root, &this.root) {
        Ok(_) => Ok(st.out),
        Err(e) => Err((st.out, e)),
    }
}

/// A chart's templates as Helm's engine runs them: parsed together under their
/// file names (`web/templates/deployment.yaml`), so every file sees every
/// `{{define}}` (the helpers in `_helpers.tpl`), with Helm's functions `include`,
/// `toYaml`, `required` and `fail`, `missingkey=zero`, and `<no value>` printed as
/// nothing (Helm's `engine.go` removes it from the output).
#[derive(Clone, Debug)]
pub struct TemplateSet {
    templates: Vec<Template>,
}

impl TemplateSet {
    /// Parses `(name, text)` files; an error reads as Helm's `parse error at
    /// (NAME:LINE): ...`.
    pub fn parse(files: &[(String, String)]) -> Result<TemplateSet, String> {
        let mut templates = Vec::new();
        for (name, src) in files {
            let mut t = Template::parse_with(src, true).map_err(|e| {
                // engine.go's cleanupParseError.
                let rest = e.strip_prefix("template: output:").unwrap_or(&e);
                match rest.split_once(": ") {
                    Some((line, msg)) => format!("parse error at ({name}:{line}): {msg}"),
                    None => format!("parse error at ({name}): {rest}"),
                }
            })?;
            t.name = name.clone();
            templates.push(t);
        }
        Ok(TemplateSet { templates })
    }

    /// Renders the file `name` with `data` (`.Values`, `.Release`, `.Chart`); a
    /// failure reads as Helm's: Go's execution error, or `execution error at
    /// (NAME:LINE:COL): MESSAGE` for `required` and `fail`.
    pub fn render(&self, name: &str, data: &Value) -> Result<String, String> {
        let Some(index) = self.templates.iter().position(|t| t.name == name) else {
            return Err(format!(
                "template: no template {name:?} associated with template \"gotpl\""
            ));
        };
        match execute_in(&self.templates, index, data) {
            Ok(out) => Ok(out.replace("<no value>", "")),
            Err((_, e)) => Err(cleanup_exec_error(&e)),
        }
    }
}

/// engine.go's cleanupExecError: the message of `required` and `fail` at its place.
fn cleanup_exec_error(e: &str) -> String {
    let mut tokens = e.splitn(3, ": ");
    let (_, Some(location), Some(rest)) = (tokens.next(), tokens.next(), tokens.next()) else {
        return e.to_string();
    };
    for marker in ["error calling required: ", "error calling fail: "] {
        if let Some(at) = rest.find(marker) {
            return format!(
                "execution error at ({location}): {}",
                &rest[at + marker.len()..]
            );
        }
    }
    e.to_string()
}

enum Flow {
    Normal,
    Break,
    Continue,
}

/// Guards for the browser: a template may not run away (simulator limits, not Go's).
const MAX_STEPS: usize = 1_000_000;
const MAX_OUTPUT: usize = 16 << 20;
const MAX_WIDTH: usize = 4096;
const LIMIT: &str = "the template does more work than this simulated kubectl allows";

struct State<'a> {
    missing_key_error: bool,
    missing_key_zero: bool,
    steps: usize,
    out: String,
    vars: Vec<(String, V)>,
    /// The templates whose `define`s this run sees, and the one whose text runs now.
    templates: &'a [Template],
    current: usize,
    /// The name Go's errors say is executing (the file, or the `define`d name).
    executing: String,
    /// How deep `template` and `include` nest now.
    depth: usize,
}

/// How deep `{{template}}` and `include` may nest (Go stops at 100000, Helm's
/// `include` at 1000; a guard for the browser's stack here).
const MAX_TEMPLATE_DEPTH: usize = 50;

impl State<'_> {
    fn err_at(&self, pos: usize, context: &str, msg: impl AsRef<str>) -> String {
        let src = &self.templates[self.current].src;
        let file = &self.templates[self.current].name;
        let executing = &self.executing;
        let before = &src[..pos.min(src.len())];
        let line = 1 + before.matches('\n').count();
        let col = match before.rfind('\n') {
            Some(nl) => pos - nl - 1,
            None => pos,
        };
        format!(
            "template: {file}:{line}:{col}: executing \"{executing}\" at <{context}>: {}",
            msg.as_ref()
        )
    }

    fn walk_list(&mut self, dot: &V, nodes: &[Node]) -> Result<Flow, String> {
        for n in nodes {
            match self.walk(dot, n)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn walk(&mut self, dot: &V, node: &Node) -> Result<Flow, String> {
        self.steps += 1;
        if self.steps > MAX_STEPS || self.out.len() > MAX_OUTPUT {
            return Err(format!("template: output: {LIMIT}"));
        }
        match node {
            Node::Text(t) => self.out.push_str(t),
            Node::Action(p) => {
                let v = self.pipeline(dot, p)?;
                if p.decl.is_empty() {
                    self.out.push_str(&v.print());
                }
            }
            Node::Break => return Ok(Flow::Break),
            Node::Continue => return Ok(Flow::Continue),
            Node::Template(name, pipe, pos) => {
                let arg = match pipe {
                    Some(p) => self.pipeline(dot, p)?,
                    None => V::Nil,
                };
                let text = self.run_define(name, &arg, *pos, &format!("template {name:?}"))?;
                self.out.push_str(&text);
            }
            Node::If(p, body, else_list) | Node::With(p, body, else_list) => {
                let mark = self.vars.len();
                let v = self.pipeline(dot, p)?;
                let truth = v.truth();
                let flow = if truth {
                    let new_dot = if matches!(node, Node::With(..)) {
                        v
                    } else {
                        dot.clone()
                    };
                    self.walk_list(&new_dot, body)?
                } else {
                    self.walk_list(dot, else_list)?
                };
                self.vars.truncate(mark);
                return Ok(flow);
            }
            Node::Range(p, body, else_list) => {
                let mark = self.vars.len();
                let mut inner = p.clone();
                let decl = std::mem::take(&mut inner.decl);
                let v = self.pipeline(dot, &inner)?;
                let items: Vec<(V, V)> = match &v {
                    V::Json(Value::Array(a)) => a
                        .iter()
                        .enumerate()
                        .map(|(i, e)| (V::Int(i as i64), V::from_json(e)))
                        .collect(),
                    V::Json(Value::Object(m)) => m
                        .iter()
                        .map(|(k, e)| (V::Str(k.clone()), V::from_json(e)))
                        .collect(),
                    V::Int(n) if *n > MAX_STEPS as i64 => {
                        let cmd = &p.cmds[0];
                        return Err(self.err_at(cmd.pos, &cmd.text, LIMIT));
                    }
                    V::Int(n) => (0..*n).map(|i| (V::Int(i), V::Int(i))).collect(),
                    V::Invalid | V::Nil => Vec::new(),
                    other => {
                        let cmd = &p.cmds[0];
                        return Err(self.err_at(
                            cmd.pos,
                            &cmd.text,
                            format!("range can't iterate over {}", other.print()),
                        ));
                    }
                };
                if items.is_empty() {
                    let flow = self.walk_list(dot, else_list)?;
                    self.vars.truncate(mark);
                    return Ok(flow);
                }
                for (k, e) in items {
                    let inner_mark = self.vars.len();
                    match decl.len() {
                        1 => self.vars.push((decl[0].clone(), e.clone())),
                        2 => {
                            self.vars.push((decl[0].clone(), k));
                            self.vars.push((decl[1].clone(), e.clone()));
                        }
                        _ => {}
                    }
                    let flow = self.walk_list(&e, body)?;
                    self.vars.truncate(inner_mark);
                    if matches!(flow, Flow::Break) {
                        break;
                    }
                }
                self.vars.truncate(mark);
            }
        }
        Ok(Flow::Normal)
    }

    /// Runs the `define`d template `name` with `dot`, returning what it wrote.
    fn run_define(
        &mut self,
        name: &str,
        dot: &V,
        pos: usize,
        context: &str,
    ) -> Result<String, String> {
        let templates = self.templates;
        let Some((index, body)) = templates
            .iter()
            .enumerate()
            .find_map(|(i, t)| t.defines.get(name).map(|b| (i, b)))
        else {
            return Err(self.err_at(pos, context, format!("template {name:?} not defined")));
        };
        if self.depth >= MAX_TEMPLATE_DEPTH {
            return Err(self.err_at(
                pos,
                context,
                format!("rendering template has a nested reference name: {name}: unable to execute template"),
            ));
        }
        let saved_out = std::mem::take(&mut self.out);
        let saved = (
            self.current,
            std::mem::replace(&mut self.executing, name.to_string()),
        );
        let saved_vars = std::mem::replace(&mut self.vars, vec![("$".to_string(), dot.clone())]);
        self.current = index;
        self.depth += 1;
        let result = self.walk_list(dot, body);
        self.depth -= 1;
        self.current = saved.0;
        self.executing = saved.1;
        self.vars = saved_vars;
        let text = std::mem::replace(&mut self.out, saved_out);
        result.map(|_| text)
    }

    fn pipeline(&mut self, dot: &V, p: &Pipeline) -> Result<V, String> {
        let mut value: Option<V> = None;
        for cmd in &p.cmds {
            let v = self.command(dot, cmd, value.take())?;
            // A nil interface becomes an invalid value ("<no value>").
            value = Some(if v == V::Nil { V::Invalid } else { v });
        }
        let v = value.unwrap_or(V::Invalid);
        for name in &p.decl {
            if p.assign {
                match self.vars.iter_mut().rev().find(|(n, _)| n == name) {
                    Some(slot) => slot.1 = v.clone(),
                    None => {
                        let cmd = &p.cmds[0];
                        return Err(self.err_at(
                            cmd.pos,
                            &cmd.text,
                            format!("undefined variable: {name}"),
                        ));
                    }
                }
            } else {
                self.vars.push((name.clone(), v.clone()));
            }
        }
        Ok(v)
    }

    fn command(&mut self, dot: &V, cmd: &Command, fin: Option<V>) -> Result<V, String> {
        let first = &cmd.args[0];
        if let Operand::Ident(f) = first {
            let mut args = Vec::new();
            if f == "and" || f == "or" {
                // Short-circuit: evaluate arguments one at a time.
                let mut last = V::Invalid;
                let n = cmd.args.len() - 1 + usize::from(fin.is_some());
                if n == 0 {
                    return Err(self.err_at(
                        cmd.pos,
                        &cmd.text,
                        format!("wrong number of args for {f}: want at least 1 got 0"),
                    ));
                }
                for a in &cmd.args[1..] {
                    last = self.operand(dot, a, cmd)?;
                    if (f == "and") != last.truth() {
                        return Ok(last);
                    }
                }
                if let Some(v) = fin {
                    last = v;
                }
                return Ok(last);
            }
            for a in &cmd.args[1..] {
                args.push(self.operand(dot, a, cmd)?);
            }
            if let Some(v) = fin {
                args.push(v);
            }
            if f == "include" {
                let (Some(V::Str(name)), Some(arg), 2) = (args.first(), args.get(1), args.len())
                else {
                    return Err(self.err_at(
                        cmd.pos,
                        &cmd.text,
                        format!(
                            "wrong number of args for include: want 2 got {}",
                            args.len()
                        ),
                    ));
                };
                let name = name.clone();
                let arg = arg.clone();
                return self.run_define(&name, &arg, cmd.pos, &cmd.text).map(V::Str);
            }
            let v = call(f, &args).map_err(|e| self.err_at(cmd.pos, &cmd.text, e))?;
            if let V::Str(text) = &v {
                guard(text.len()).map_err(|e| self.err_at(cmd.pos, &cmd.text, e))?;
            }
            return Ok(v);
        }
        if cmd.args.len() > 1 || fin.is_some() {
            return Err(self.err_at(
                cmd.pos,
                &cmd.text,
                format!(
                    "can't give argument to non-function {}",
                    operand_text(first)
                ),
            ));
        }
        self.operand(dot, first, cmd)
    }

    fn operand(&mut self, dot: &V, op: &Operand, cmd: &Command) -> Result<V, String> {
        Ok(match op {
            Operand::Dot => dot.clone(),
            Operand::Str(s) => V::Str(s.clone()),
            Operand::Int(i) => V::Int(*i),
            Operand::Float(f) => V::Float(*f),
            Operand::Bool(b) => V::Bool(*b),
            Operand::Nil => {
                return Err(self.err_at(cmd.pos, &cmd.text, "nil is not a command"));
            }
            Operand::Ident(f) => call(f, &[]).map_err(|e| self.err_at(cmd.pos, &cmd.text, e))?,
            Operand::Chain(term, fields) => {
                let mut v = match term.as_ref() {
                    Term::Dot => dot.clone(),
                    Term::Var(name) => match self.vars.iter().rev().find(|(n, _)| n == name) {
                        Some((_, v)) => v.clone(),
                        None => {
                            return Err(self.err_at(
                                cmd.pos,
                                &cmd.text,
                                format!("undefined variable: {name}"),
                            ))
                        }
                    },
                    Term::Pipe(p) => self.pipeline(dot, p)?,
                };
                let context = operand_text(op);
                for f in fields {
                    v = match v {
                        V::Json(Value::Object(m)) => match m.get(f) {
                            Some(x) => V::from_json(x),
                            None if self.missing_key_zero => V::Nil,
                            None if self.missing_key_error => {
                                return Err(self.err_at(
                                    cmd.pos,
                                    &context,
                                    format!("map has no entry for key {f:?}"),
                                ))
                            }
                            None => V::Invalid,
                        },
                        V::Invalid if self.missing_key_error => {
                            return Err(self.err_at(
                                cmd.pos,
                                &context,
                                format!("nil data; no entry for key {f:?}"),
                            ))
                        }
                        V::Invalid => V::Invalid,
                        V::Nil => {
                            return Err(self.err_at(
                                cmd.pos,
                                &context,
                                format!("nil pointer evaluating interface {{}}.{f}"),
                            ))
                        }
                        other => {
                            return Err(self.err_at(
                                cmd.pos,
                                &context,
                                format!("can't evaluate field {f} in type {}", other.type_name()),
                            ))
                        }
                    };
                }
                v
            }
        })
    }
}

fn operand_text(op: &Operand) -> String {
    match op {
        Operand::Dot => ".".into(),
        Operand::Chain(t, fields) => {
            let base = match t.as_ref() {
                Term::Dot => String::new(),
                Term::Var(v) => v.clone(),
                Term::Pipe(_) => "(...)".into(),
            };
            let mut s = base;
            for f in fields {
                s.push('.');
                s.push_str(f);
            }
            s
        }
        Operand::Ident(f) => f.clone(),
        Operand::Str(s) => format!("{s:?}"),
        Operand::Int(i) => i.to_string(),
        Operand::Float(f) => go_float(*f),
        Operand::Bool(b) => b.to_string(),
        Operand::Nil => "nil".into(),
    }
}

// ----- functions -----

#[derive(PartialEq, Clone, Copy)]
enum BasicKind {
    Bool,
    Int,
    Float,
    Str,
    Other,
}

fn basic_kind(v: &V) -> BasicKind {
    match v {
        V::Bool(_) => BasicKind::Bool,
        V::Int(_) => BasicKind::Int,
        V::Float(_) => BasicKind::Float,
        V::Str(_) => BasicKind::Str,
        _ => BasicKind::Other,
    }
}

fn is_valid(v: &V) -> bool {
    !matches!(v, V::Invalid | V::Nil)
}

fn equal(a: &V, b: &V) -> Result<bool, String> {
    let (ka, kb) = (basic_kind(a), basic_kind(b));
    if ka != kb {
        if is_valid(a) && is_valid(b) {
            return Err("incompatible types for comparison".into());
        }
        return Ok(false);
    }
    Ok(match (a, b) {
        (V::Json(_), V::Json(_)) => {
            return Err(format!(
                "non-comparable type {}: {}",
                a.print(),
                a.type_name()
            ))
        }
        (x, y) if !is_valid(x) || !is_valid(y) => !is_valid(x) && !is_valid(y),
        (x, y) => x == y,
    })
}

fn less(a: &V, b: &V) -> Result<bool, String> {
    let (ka, kb) = (basic_kind(a), basic_kind(b));
    if ka == BasicKind::Other || kb == BasicKind::Other || ka == BasicKind::Bool {
        return Err("invalid type for comparison".into());
    }
    if ka != kb {
        return Err("incompatible types for comparison".into());
    }
    Ok(match (a, b) {
        (V::Int(x), V::Int(y)) => x < y,
        (V::Float(x), V::Float(y)) => x < y,
        (V::Str(x), V::Str(y)) => x < y,
        _ => false,
    })
}

/// Calls a template function: Go's builtins, else a sprig function.
fn call(f: &str, args: &[V]) -> Result<V, String> {
    let need = |n: usize| want_args(f, args, n);
    let calling = |e: String| format!("error calling {f}: {e}");
    match f {
        "not" => {
            need(1)?;
            Ok(V::Bool(!args[0].truth()))
        }
        "eq" | "ne" => {
            if args.len() < 2 {
                return Err(calling("missing argument for comparison".into()));
            }
            if f == "ne" {
                need(2)?;
                return equal(&args[0], &args[1])
                    .map(|b| V::Bool(!b))
                    .map_err(calling);
            }
            for b in &args[1..] {
                if equal(&args[0], b).map_err(calling)? {
                    return Ok(V::Bool(true));
                }
            }
            Ok(V::Bool(false))
        }
        "lt" | "le" | "gt" | "ge" => {
            need(2)?;
            let (a, b) = (&args[0], &args[1]);
            let r = match f {
                "lt" => less(a, b),
                "le" => less(a, b).and_then(|l| Ok(l || equal(a, b)?)),
                "gt" => less(a, b).and_then(|l| Ok(!l && !equal(a, b)?)),
                _ => less(a, b).map(|l| !l),
            };
            r.map(V::Bool).map_err(calling)
        }
        "len" => {
            need(1)?;
            match &args[0] {
                V::Str(s) => Ok(V::Int(s.len() as i64)),
                V::Json(Value::Array(a)) => Ok(V::Int(a.len() as i64)),
                V::Json(Value::Object(m)) => Ok(V::Int(m.len() as i64)),
                V::Invalid | V::Nil => Err(calling("len of nil pointer".into())),
                other => Err(calling(format!("len of type {}", other.type_name()))),
            }
        }
        "index" => builtin_index(args),
        "slice" => builtin_slice(args),
        "print" => Ok(V::Str(sprint(args))),
        "println" => {
            let parts: Vec<String> = args.iter().map(fmt_arg).collect();
            Ok(V::Str(format!("{}\n", parts.join(" "))))
        }
        "printf" => {
            let Some(V::Str(format)) = args.first() else {
                return Err(match args.first() {
                    None => "wrong number of args for printf: want at least 1 got 0".into(),
                    Some(other) => format!(
                        "wrong type for value; expected string; got {}",
                        other.type_name()
                    ),
                });
            };
            Ok(V::Str(sprintf(format, &args[1..])))
        }
        "base64decode" => {
            need(1)?;
            match &args[0] {
                V::Str(s) => base64_decode(s)
                    .map(V::Str)
                    .ok_or_else(|| calling("illegal base64 data at input byte 0".to_string())),
                other => Err(format!(
                    "wrong type for value; expected string; got {}",
                    other.type_name()
                )),
            }
        }
        "exists" => {
            if args.is_empty() {
                return Err(calling("exists requires an argument".into()));
            }
            let mut cur = args[0].clone();
            for k in &args[1..] {
                cur = match (&cur, k) {
                    (V::Json(Value::Object(m)), V::Str(k)) => match m.get(k) {
                        Some(v) => V::from_json(v),
                        None => return Ok(V::Bool(false)),
                    },
                    (V::Json(Value::Array(a)), V::Int(i)) => match a.get(*i as usize) {
                        Some(v) => V::from_json(v),
                        None => return Ok(V::Bool(false)),
                    },
                    _ => return Ok(V::Bool(false)),
                };
            }
            Ok(V::Bool(true))
        }
        "toYaml" => {
            need(1)?;
            let text = crate::printers::yaml::to_yaml(&to_json_value(&args[0]));
            Ok(V::Str(text.trim_end_matches('\n').to_string()))
        }
        "required" => {
            need(2)?;
            let missing = match &args[1] {
                V::Invalid | V::Nil => true,
                V::Str(s) => s.is_empty(),
                _ => false,
            };
            if missing {
                Err(calling(arg_str(args, 0)))
            } else {
                Ok(args[1].clone())
            }
        }
        "fail" => {
            need(1)?;
            Err(calling(arg_str(args, 0)))
        }
        _ => sprig(f, args),
    }
}

/// The builtin `index`: the item of an array, string or map each further argument
/// names in turn.
fn builtin_index(args: &[V]) -> Result<V, String> {
    let calling = |e: String| format!("error calling index: {e}");
    if args.is_empty() {
        return Err("wrong number of args for index: want at least 1 got 0".to_string());
    }
    let mut cur = args[0].clone();
    for idx in &args[1..] {
        cur = match (&cur, idx) {
            (V::Json(Value::Array(a)), V::Int(i)) => {
                if *i < 0 || *i as usize >= a.len() {
                    return Err(calling(format!("index out of range: {i}")));
                }
                V::from_json(&a[*i as usize])
            }
            (V::Str(s), V::Int(i)) => {
                if *i < 0 || *i as usize >= s.len() {
                    return Err(calling(format!("index out of range: {i}")));
                }
                V::Int(i64::from(s.as_bytes()[*i as usize]))
            }
            (V::Json(Value::Array(_)) | V::Str(_), other) => {
                return Err(calling(format!(
                    "cannot index slice/array with type {}",
                    other.type_name()
                )))
            }
            (V::Json(Value::Object(m)), V::Str(k)) => match m.get(k) {
                Some(v) => V::from_json(v),
                None => V::Nil,
            },
            (V::Json(Value::Object(_)), other) => {
                return Err(calling(format!(
                    "value has type {}; should be string",
                    other.type_name()
                )))
            }
            (V::Invalid | V::Nil, _) => return Err(calling("index of untyped nil".into())),
            (other, _) => {
                return Err(calling(format!(
                    "can't index item of type {}",
                    other.type_name()
                )))
            }
        };
    }
    Ok(cur)
}

/// The builtin `slice`: `slice x lo hi` of a string or array.
fn builtin_slice(args: &[V]) -> Result<V, String> {
    let calling = |e: String| format!("error calling slice: {e}");
    if args.is_empty() {
        return Err("wrong number of args for slice: want at least 1 got 0".into());
    }
    let idx: Vec<i64> = args[1..]
        .iter()
        .map(|a| match a {
            V::Int(i) => Ok(*i),
            other => Err(calling(format!(
                "cannot index slice/array with type {}",
                other.type_name()
            ))),
        })
        .collect::<Result<_, _>>()?;
    let len = match &args[0] {
        V::Str(s) => s.len(),
        V::Json(Value::Array(a)) => a.len(),
        other => {
            return Err(calling(format!(
                "can't slice item of type {}",
                other.type_name()
            )))
        }
    } as i64;
    let lo = idx.first().copied().unwrap_or(0);
    let hi = idx.get(1).copied().unwrap_or(len);
    if lo < 0 || hi < lo || hi > len {
        return Err(calling(format!(
            "index out of range: {}",
            if lo < 0 || lo > len { lo } else { hi }
        )));
    }
    Ok(match &args[0] {
        V::Str(s) => V::Str(s.get(lo as usize..hi as usize).unwrap_or("").to_string()),
        V::Json(Value::Array(a)) => V::Json(Value::Array(a[lo as usize..hi as usize].to_vec())),
        _ => V::Invalid,
    })
}

/// `%v` of an argument (a nil interface prints `<nil>`).
fn fmt_arg(v: &V) -> String {
    match v {
        V::Invalid => "<nil>".into(),
        other => other.print(),
    }
}

/// `fmt.Sprint`: spaces between operands when neither is a string.
fn sprint(args: &[V]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 && !matches!(a, V::Str(_)) && !matches!(args[i - 1], V::Str(_)) {
            out.push(' ');
        }
        out.push_str(&fmt_arg(a));
    }
    out
}

/// A subset of Go's `fmt.Sprintf`: flags `-+# 0`, width, precision and the verbs
/// `v s q d f F e E g G t x X c %`, with Go's `%!verb(type=value)` for mismatches.
fn sprintf(format: &str, args: &[V]) -> String {
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    let mut argi = 0;
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut minus = false;
        let mut plus = false;
        let mut zero = false;
        let mut space = false;
        let mut sharp = false;
        while let Some(&f) = chars.peek() {
            match f {
                '-' => minus = true,
                '+' => plus = true,
                '0' => zero = true,
                ' ' => space = true,
                '#' => sharp = true,
                _ => break,
            }
            chars.next();
        }
        let mut width: Option<usize> = None;
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            width = Some((width.unwrap_or(0) * 10 + (d as usize - '0' as usize)).min(MAX_WIDTH));
            chars.next();
        }
        let mut prec: Option<usize> = None;
        if chars.peek() == Some(&'.') {
            chars.next();
            prec = Some(0);
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                prec = Some((prec.unwrap_or(0) * 10 + (d as usize - '0' as usize)).min(MAX_WIDTH));
                chars.next();
            }
        }
        let Some(verb) = chars.next() else {
            out.push_str("%!(NOVERB)");
            break;
        };
        if verb == '%' {
            out.push('%');
            continue;
        }
        let Some(arg) = args.get(argi) else {
            let _ = write!(out, "%!{verb}(MISSING)");
            continue;
        };
        argi += 1;
        let bad = |a: &V| format!("%!{verb}({}={})", a.type_name(), fmt_arg(a));
        let body: String = match (verb, arg) {
            ('v', a) => fmt_arg(a),
            ('s', V::Str(s)) => match prec {
                Some(p) => s.chars().take(p).collect(),
                None => s.clone(),
            },
            ('s', V::Json(_)) => fmt_arg(arg),
            ('q', V::Str(s)) => go_quote(s),
            ('t', V::Bool(b)) => b.to_string(),
            ('d', V::Int(i)) => {
                if plus && *i >= 0 {
                    format!("+{i}")
                } else if space && *i >= 0 {
                    format!(" {i}")
                } else {
                    i.to_string()
                }
            }
            ('x', V::Int(i)) => format!("{}{i:x}", if sharp { "0x" } else { "" }),
            ('X', V::Int(i)) => format!("{}{i:X}", if sharp { "0X" } else { "" }),
            ('x', V::Str(s)) => s.bytes().map(|b| format!("{b:02x}")).collect(),
            ('c', V::Int(i)) => char::from_u32(*i as u32)
                .map(String::from)
                .unwrap_or_default(),
            ('f' | 'F', V::Float(f)) => {
                let s = format!("{:.*}", prec.unwrap_or(6), f);
                if plus && *f >= 0.0 {
                    format!("+{s}")
                } else {
                    s
                }
            }
            ('e' | 'E', V::Float(f)) => {
                let s = go_exp(*f, prec.unwrap_or(6));
                if verb == 'E' {
                    s.to_uppercase()
                } else {
                    s
                }
            }
            ('g' | 'G', V::Float(f)) => go_float(*f),
            (_, a) => bad(a),
        };
        let len = body.chars().count();
        match width {
            Some(w) if w > len => {
                let pad = w - len;
                if minus {
                    out.push_str(&body);
                    out.extend(std::iter::repeat_n(' ', pad));
                } else if zero && matches!(arg, V::Int(_) | V::Float(_)) {
                    let (sign, digits) = match body.strip_prefix('-') {
                        Some(d) => ("-", d.to_string()),
                        None => ("", body.clone()),
                    };
                    out.push_str(sign);
                    out.extend(std::iter::repeat_n('0', pad));
                    out.push_str(&digits);
                } else {
                    out.extend(std::iter::repeat_n(' ', pad));
                    out.push_str(&body);
                }
            }
            _ => out.push_str(&body),
        }
    }
    if argi < args.len() {
        let extra: Vec<String> = args[argi..]
            .iter()
            .map(|a| format!("{}={}", a.type_name(), fmt_arg(a)))
            .collect();
        let _ = write!(out, "%!(EXTRA {})", extra.join(", "));
    }
    out
}

/// Go's `%e` with a precision: `3.123400e+04`.
fn go_exp(f: f64, prec: usize) -> String {
    let s = format!("{:.*e}", prec, f);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// Go's `strconv.Quote`.
fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Standard base64 (with padding), as kubectl's `base64decode` reads Secret data.
pub(crate) fn base64_decode(s: &str) -> Option<String> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut nbits = 0;
    let mut out = Vec::new();
    let trimmed = s.trim_end_matches('=');
    if !s.len().is_multiple_of(4) {
        return None;
    }
    for b in trimmed.bytes() {
        let v = ALPHABET.iter().position(|&a| a == b)? as u32;
        bits = (bits << 6) | v;
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((bits >> nbits) as u8);
            bits &= (1 << nbits) - 1;
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(tmpl: &str, data: &Value) -> String {
        Template::parse(tmpl)
            .unwrap_or_else(|e| panic!("{e}"))
            .execute(data)
            .unwrap_or_else(|(_, e)| panic!("{e}"))
    }

    fn pods() -> Value {
        json!({"apiVersion": "v1", "kind": "List", "items": [
            {"metadata": {"name": "web-1", "labels": {"app": "web"}}, "spec": {"replicas": 3}},
            {"metadata": {"name": "db-0"}, "spec": {"replicas": 1000000}}
        ]})
    }

    #[test]
    fn tutorial_range_prints_one_name_per_line() {
        assert_eq!(
            run(
                "{{range .items}}{{.metadata.name}}{{\"\\n\"}}{{end}}",
                &pods()
            ),
            "web-1\ndb-0\n"
        );
    }

    #[test]
    fn parenthesised_index_then_field_reads_node_port() {
        let svc = json!({"spec": {"ports": [{"nodePort": 31234, "port": 8080}]}});
        assert_eq!(run("{{(index .spec.ports 0).nodePort}}", &svc), "31234");
    }

    #[test]
    fn json_integers_are_int64_and_fractions_float64_as_in_kubectl() {
        let p = json!({"items": [{"n": 3}, {"n": 1000000}, {"n": 2.5}, {"n": 1e21}]});
        assert_eq!(
            run("{{range .items}}{{.n}} {{end}}", &p),
            "3 1000000 2.5 1e+21 "
        );
        assert_eq!(
            run(
                "{{printf \"%d %d\" (index .items 0).n (index .items 2).n}}",
                &p
            ),
            "3 %!d(float64=2.5)"
        );
        assert_eq!(
            run("{{printf \"%.0f|%5s|%-4s|\" 2.0 \"ab\" \"c\"}}", &p),
            "2|   ab|c   |"
        );
    }

    #[test]
    fn missing_keys_print_no_value() {
        assert_eq!(
            run("{{.nothing}}|{{.nothing.deeper}}", &pods()),
            "<no value>|<no value>"
        );
        assert_eq!(
            run("{{index (index .items 1).metadata \"labels\"}}", &pods()),
            "<no value>"
        );
    }

    #[test]
    fn conditionals_variables_and_functions() {
        let p = pods();
        let t = "{{range $i, $p := .items}}{{if eq $p.metadata.name \"web-1\"}}{{$i}}:web{{else if $p.metadata.labels}}x{{else}}{{$i}}:other{{end}};{{end}}";
        assert_eq!(run(t, &p), "0:web;1:other;");
        assert_eq!(run("{{len .items}}", &p), "2");
        assert_eq!(
            run("{{$n := len .items}}{{if gt $n 1}}many{{end}}", &p),
            "many"
        );
        assert_eq!(
            run("{{and 1 0}} {{or 0 \"x\"}} {{not true}}", &p),
            "0 x false"
        );
        assert_eq!(run("{{.kind | printf \"%q\"}}", &p), "\"List\"");
        assert_eq!(
            run(
                "{{with (index .items 0).metadata.labels}}{{.app}}{{end}}",
                &p
            ),
            "web"
        );
        assert_eq!(run("{{index .items 0 | len}}", &p), "2");
    }

    #[test]
    fn trim_markers_and_comments_drop_whitespace() {
        let p = pods();
        assert_eq!(
            run(
                "{{range .items -}}\n  {{ .metadata.name }}\n{{- end}}{{/* c */}}",
                &p
            ),
            "web-1db-0"
        );
    }

    #[test]
    fn errors_read_as_go_template_errors() {
        assert_eq!(
            Template::parse("{{.a").unwrap_err(),
            "template: output:1: unclosed action"
        );
        assert_eq!(
            Template::parse("{{foo .a}}").unwrap_err(),
            "template: output:1: function \"foo\" not defined"
        );
        assert_eq!(
            Template::parse("{{if .a}}x").unwrap_err(),
            "template: output:1: unexpected EOF"
        );
        let err = Template::parse("{{index .items 5}}")
            .unwrap()
            .execute(&pods())
            .unwrap_err();
        assert_eq!(
            err.1,
            "template: output:1:2: executing \"output\" at <index .items 5>: error calling index: index out of range: 5"
        );
        let err = Template::parse("{{if eq (index .items 0).spec.replicas 3.0}}y{{end}}")
            .unwrap()
            .execute(&pods())
            .unwrap_err();
        assert!(
            err.1
                .ends_with("error calling eq: incompatible types for comparison"),
            "{}",
            err.1
        );
        let err = Template::parse("x{{.kind.name}}")
            .unwrap()
            .execute(&pods())
            .unwrap_err();
        assert_eq!(err.0, "x");
        assert_eq!(
            err.1,
            "template: output:1:3: executing \"output\" at <.kind.name>: can't evaluate field name in type string"
        );
    }

    #[test]
    fn base64decode_reads_secret_data() {
        let s = json!({"data": {"password": "czNjcjN0"}});
        assert_eq!(run("{{.data.password | base64decode}}", &s), "s3cr3t");
    }
}

#[cfg(test)]
mod limits {
    use super::*;

    #[test]
    fn runaway_templates_stop_with_an_error() {
        let deep = "{{if 1}}".repeat(5000);
        assert!(Template::parse(&deep).unwrap_err().contains("nests deeper"));
        let parens = format!("{{{{{}1{}}}}}", "(".repeat(5000), ")".repeat(5000));
        assert!(Template::parse(&parens)
            .unwrap_err()
            .contains("nests deeper"));
        let big = Template::parse("{{range 100000000000}}x{{end}}").unwrap();
        assert!(big
            .execute(&serde_json::json!({}))
            .unwrap_err()
            .1
            .contains("more work"));
        let bomb = Template::parse(
            "{{repeat 4096 (repeat 4096 (repeat 4096 \"x\"))}}{{replace \"\" \"yy\" (repeat 4096 (repeat 4096 \"x\"))}}",
        )
        .unwrap();
        assert!(bomb
            .execute(&serde_json::json!({}))
            .unwrap_err()
            .1
            .contains("more work"));
        let wide = Template::parse("{{printf \"%99999999999d\" 1}}").unwrap();
        assert_eq!(
            wide.execute(&serde_json::json!({})).unwrap().len(),
            MAX_WIDTH
        );
    }
}

// ----- sprig -----

fn to_json_value(v: &V) -> Value {
    match v {
        V::Invalid | V::Nil => Value::Null,
        V::Bool(b) => Value::Bool(*b),
        V::Int(i) => Value::from(*i),
        V::Float(f) => serde_json::Number::from_f64(*f)
            .map(Value::Number)
            .unwrap_or(Value::Null),
        V::Str(s) => Value::String(s.clone()),
        V::Json(j) => j.clone(),
    }
}

/// sprig's `strval`.
fn strval(v: &V) -> String {
    fmt_arg(v)
}

/// `cast.ToInt64` as sprig uses it.
fn to_i64(v: &V) -> i64 {
    match v {
        V::Int(i) => *i,
        V::Float(f) => *f as i64,
        V::Bool(b) => i64::from(*b),
        V::Str(s) => s.trim().parse().unwrap_or(0),
        _ => 0,
    }
}

/// sprig's `empty`: nil and zero values.
fn is_empty(v: &V) -> bool {
    !v.truth()
}

fn list_of(v: &V) -> Vec<V> {
    match v {
        V::Json(Value::Array(a)) => a.iter().map(V::from_json).collect(),
        _ => Vec::new(),
    }
}

fn make_list(items: Vec<V>) -> V {
    V::Json(Value::Array(items.iter().map(to_json_value).collect()))
}

/// Go's error for a template function called with the wrong number of arguments.
fn want_args(f: &str, args: &[V], n: usize) -> Result<(), String> {
    if args.len() != n {
        Err(format!(
            "wrong number of args for {f}: want {n} got {}",
            args.len()
        ))
    } else {
        Ok(())
    }
}

/// The `i`th argument as a string (empty when there is none).
fn arg_str(args: &[V], i: usize) -> String {
    args.get(i).map(strval).unwrap_or_default()
}

/// A group of sprig functions: the result of `f`, or `None` when `f` is not in it.
type SprigGroup = fn(&str, &[V]) -> Result<Option<V>, String>;

/// The sprig functions kubectl's templates have.
fn sprig(f: &str, args: &[V]) -> Result<V, String> {
    let groups: [SprigGroup; 5] = [
        sprig_text,
        sprig_search_format,
        sprig_convert,
        sprig_lists,
        sprig_dicts_math,
    ];
    for group in groups {
        if let Some(v) = group(f, args)? {
            return Ok(v);
        }
    }
    Err(format!("function {f:?} not defined"))
}

/// sprig's string functions that trim, cut, repeat or change case; `None` when
/// `f` is not one of them.
fn sprig_text(f: &str, args: &[V]) -> Result<Option<V>, String> {
    let want = |n: usize| want_args(f, args, n);
    let s = |i: usize| arg_str(args, i);
    Ok(Some(match f {
        "trim" => {
            want(1)?;
            V::Str(s(0).trim().to_string())
        }
        "trimAll" => {
            want(2)?;
            let cut: Vec<char> = s(0).chars().collect();
            V::Str(s(1).trim_matches(|c| cut.contains(&c)).to_string())
        }
        "trimPrefix" => {
            want(2)?;
            let src = s(1);
            V::Str(src.strip_prefix(&s(0)).unwrap_or(&src).to_string())
        }
        "trimSuffix" => {
            want(2)?;
            let src = s(1);
            V::Str(src.strip_suffix(&s(0)).unwrap_or(&src).to_string())
        }
        "upper" => {
            want(1)?;
            V::Str(s(0).to_uppercase())
        }
        "lower" => {
            want(1)?;
            V::Str(s(0).to_lowercase())
        }
        "title" => {
            want(1)?;
            let mut out = String::new();
            let mut start = true;
            for c in s(0).chars() {
                if start && c.is_alphabetic() {
                    out.extend(c.to_uppercase());
                } else {
                    out.push(c);
                }
                start = !c.is_alphanumeric();
            }
            V::Str(out)
        }
        "repeat" => {
            want(2)?;
            let n = to_i64(&args[0]).clamp(0, MAX_WIDTH as i64) as usize;
            let text = s(1);
            guard(text.len().saturating_mul(n))?;
            V::Str(text.repeat(n))
        }
        "substr" | "trunc" => {
            let src = s(args.len().saturating_sub(1));
            let len = src.len() as i64;
            let (a, b) = if f == "substr" {
                want(3)?;
                let (a, b) = (to_i64(&args[0]), to_i64(&args[1]));
                (
                    if a < 0 { 0 } else { a },
                    if b < 0 || b > len { len } else { b },
                )
            } else {
                want(2)?;
                let n = to_i64(&args[0]);
                if n < 0 {
                    ((len + n).max(0), len)
                } else {
                    (0, n.min(len))
                }
            };
            V::Str(
                src.get(a as usize..b.max(a) as usize)
                    .unwrap_or("")
                    .to_string(),
            )
        }
        "nospace" => {
            want(1)?;
            V::Str(s(0).chars().filter(|c| !c.is_whitespace()).collect())
        }
        _ => return Ok(None),
    }))
}

/// sprig's string tests and formatting (`contains`, `quote`, `indent`, `replace`,
/// `plural`, ...); `None` when `f` is not one of them.
fn sprig_search_format(f: &str, args: &[V]) -> Result<Option<V>, String> {
    let want = |n: usize| want_args(f, args, n);
    let s = |i: usize| arg_str(args, i);
    Ok(Some(match f {
        "contains" => {
            want(2)?;
            V::Bool(s(1).contains(&s(0)))
        }
        "hasPrefix" => {
            want(2)?;
            V::Bool(s(1).starts_with(&s(0)))
        }
        "hasSuffix" => {
            want(2)?;
            V::Bool(s(1).ends_with(&s(0)))
        }
        "quote" | "squote" => {
            let parts: Vec<String> = args
                .iter()
                .filter(|a| is_valid(a))
                .map(|a| {
                    if f == "quote" {
                        go_quote(&strval(a))
                    } else {
                        format!("'{}'", strval(a))
                    }
                })
                .collect();
            V::Str(parts.join(" "))
        }
        "cat" => {
            let parts: Vec<String> = args.iter().filter(|a| is_valid(a)).map(strval).collect();
            V::Str(parts.join(" "))
        }
        "indent" | "nindent" => {
            want(2)?;
            let pad = " ".repeat(to_i64(&args[0]).clamp(0, MAX_WIDTH as i64) as usize);
            let lines = s(1).matches('\n').count() + 1;
            guard(s(1).len().saturating_add(lines.saturating_mul(pad.len())))?;
            let body = format!("{pad}{}", s(1).replace('\n', &format!("\n{pad}")));
            V::Str(if f == "nindent" {
                format!("\n{body}")
            } else {
                body
            })
        }
        "replace" => {
            want(3)?;
            let (old, new, src) = (s(0), s(1), s(2));
            let hits = if old.is_empty() {
                src.chars().count() + 1
            } else {
                src.matches(old.as_str()).count()
            };
            guard(src.len().saturating_add(hits.saturating_mul(new.len())))?;
            V::Str(src.replace(&old, &new))
        }
        "plural" => {
            want(3)?;
            V::Str(if to_i64(&args[2]) == 1 { s(0) } else { s(1) })
        }
        _ => return Ok(None),
    }))
}

/// sprig's conversions, defaults and encodings (`atoi`, `default`, `toJson`,
/// `b64enc`, ...); `None` when `f` is not one of them.
fn sprig_convert(f: &str, args: &[V]) -> Result<Option<V>, String> {
    let want = |n: usize| want_args(f, args, n);
    let s = |i: usize| arg_str(args, i);
    Ok(Some(match f {
        "toString" => {
            want(1)?;
            V::Str(s(0))
        }
        "atoi" => {
            want(1)?;
            V::Int(s(0).trim().parse().unwrap_or(0))
        }
        "int" | "int64" => {
            want(1)?;
            V::Int(to_i64(&args[0]))
        }
        "float64" => {
            want(1)?;
            V::Float(match &args[0] {
                V::Int(i) => *i as f64,
                V::Float(x) => *x,
                V::Str(t) => t.trim().parse().unwrap_or(0.0),
                V::Bool(b) => f64::from(u8::from(*b)),
                _ => 0.0,
            })
        }
        "default" => {
            if args.is_empty() {
                return Err("wrong number of args for default: want at least 1 got 0".into());
            }
            match args.get(1) {
                Some(given) if !is_empty(given) => given.clone(),
                _ => args[0].clone(),
            }
        }
        "empty" => {
            want(1)?;
            V::Bool(is_empty(&args[0]))
        }
        "coalesce" => args
            .iter()
            .find(|a| !is_empty(a))
            .cloned()
            .unwrap_or(V::Nil),
        "ternary" => {
            want(3)?;
            if args[2].truth() {
                args[0].clone()
            } else {
                args[1].clone()
            }
        }
        "toJson" | "toPrettyJson" => {
            want(1)?;
            let j = to_json_value(&args[0]);
            V::Str(if f == "toJson" {
                crate::printers::json::go_escape(&j.to_string())
            } else {
                let text = crate::printers::json::to_go_json(&j);
                // toPrettyJson indents with two spaces.
                text.lines()
                    .map(|l| {
                        let indent = l.len() - l.trim_start().len();
                        format!("{}{}", " ".repeat(indent / 2), l.trim_start())
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        "b64enc" => {
            want(1)?;
            V::Str(base64_encode(s(0).as_bytes()))
        }
        "b64dec" => {
            want(1)?;
            V::Str(
                base64_decode(&s(0))
                    .unwrap_or_else(|| "illegal base64 data at input byte 0".into()),
            )
        }
        _ => return Ok(None),
    }))
}

/// sprig's list functions; `None` when `f` is not one of them.
fn sprig_lists(f: &str, args: &[V]) -> Result<Option<V>, String> {
    let want = |n: usize| want_args(f, args, n);
    let s = |i: usize| arg_str(args, i);
    Ok(Some(match f {
        "splitList" => {
            want(2)?;
            let sep = s(0);
            let src = s(1);
            if sep.is_empty() {
                make_list(src.chars().map(|c| V::Str(c.to_string())).collect())
            } else {
                make_list(
                    src.split(sep.as_str())
                        .map(|p| V::Str(p.to_string()))
                        .collect(),
                )
            }
        }
        "join" => {
            want(2)?;
            let items: Vec<String> = match &args[1] {
                V::Json(Value::Array(a)) => a.iter().map(|x| strval(&V::from_json(x))).collect(),
                other => vec![strval(other)],
            };
            V::Str(items.join(&s(0)))
        }
        "sortAlpha" => {
            want(1)?;
            let mut items: Vec<String> = list_of(&args[0]).iter().map(strval).collect();
            items.stable_sort();
            make_list(items.into_iter().map(V::Str).collect())
        }
        "list" => make_list(args.to_vec()),
        "first" | "last" | "rest" | "initial" | "uniq" | "reverse" => {
            want(1)?;
            let items = list_of(&args[0]);
            match f {
                "first" => items.first().cloned().unwrap_or(V::Nil),
                "last" => items.last().cloned().unwrap_or(V::Nil),
                "rest" => make_list(items.into_iter().skip(1).collect()),
                "initial" => {
                    let n = items.len().saturating_sub(1);
                    make_list(items.into_iter().take(n).collect())
                }
                "uniq" => {
                    let mut out: Vec<V> = Vec::new();
                    for i in items {
                        if !out.contains(&i) {
                            out.push(i);
                        }
                    }
                    make_list(out)
                }
                _ => make_list(items.into_iter().rev().collect()),
            }
        }
        "has" => {
            want(2)?;
            V::Bool(list_of(&args[1]).contains(&args[0]))
        }
        _ => return Ok(None),
    }))
}

/// sprig's dictionary and integer math functions; `None` when `f` is not one of
/// them.
fn sprig_dicts_math(f: &str, args: &[V]) -> Result<Option<V>, String> {
    let want = |n: usize| want_args(f, args, n);
    let s = |i: usize| arg_str(args, i);
    Ok(Some(match f {
        "dict" => {
            let mut m = serde_json::Map::new();
            for pair in args.chunks(2) {
                let v = pair
                    .get(1)
                    .map(to_json_value)
                    .unwrap_or(Value::String(String::new()));
                m.insert(strval(&pair[0]), v);
            }
            V::Json(Value::Object(m))
        }
        "get" | "hasKey" => {
            want(2)?;
            let found = match &args[0] {
                V::Json(Value::Object(m)) => m.get(&s(1)).map(V::from_json),
                _ => None,
            };
            if f == "hasKey" {
                V::Bool(found.is_some())
            } else {
                found.unwrap_or(V::Str(String::new()))
            }
        }
        "keys" | "values" => {
            let mut out = Vec::new();
            for a in args {
                if let V::Json(Value::Object(m)) = a {
                    for (k, v) in m {
                        out.push(if f == "keys" {
                            V::Str(k.clone())
                        } else {
                            V::from_json(v)
                        });
                    }
                }
            }
            make_list(out)
        }
        "add" | "mul" | "max" | "min" => {
            if args.is_empty() && f != "add" && f != "mul" {
                return Err(format!(
                    "wrong number of args for {f}: want at least 1 got 0"
                ));
            }
            let nums = args.iter().map(to_i64);
            V::Int(match f {
                "add" => nums.fold(0i64, |a, b| a.wrapping_add(b)),
                "mul" => nums.fold(1i64, |a, b| a.wrapping_mul(b)),
                "max" => nums.max().unwrap_or(0),
                _ => nums.min().unwrap_or(0),
            })
        }
        "add1" => {
            want(1)?;
            V::Int(to_i64(&args[0]).wrapping_add(1))
        }
        "sub" | "div" | "mod" => {
            want(2)?;
            let (a, b) = (to_i64(&args[0]), to_i64(&args[1]));
            if f != "sub" && b == 0 {
                return Err(format!(
                    "error calling {f}: runtime error: integer divide by zero"
                ));
            }
            V::Int(match f {
                "sub" => a.wrapping_sub(b),
                "div" => a.wrapping_div(b),
                _ => a.wrapping_rem(b),
            })
        }
        _ => return Ok(None),
    }))
}

/// Refuses a result larger than the output a template may write at all.
fn guard(len: usize) -> Result<(), String> {
    if len > MAX_OUTPUT {
        Err(LIMIT.to_string())
    } else {
        Ok(())
    }
}

pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod sprig_tests {
    use super::*;
    use serde_json::json;

    fn run(tmpl: &str) -> String {
        let data = json!({"metadata": {"name": "web", "labels": {"b": "2", "a": "1"}}, "n": 3});
        Template::parse(tmpl).unwrap().execute(&data).unwrap()
    }

    #[test]
    fn sprig_string_list_and_number_functions() {
        assert_eq!(run("{{.metadata.name | upper}}"), "WEB");
        assert_eq!(run("{{.missing | default \"none\"}}"), "none");
        assert_eq!(
            run("{{keys .metadata.labels | sortAlpha | join \",\"}}"),
            "a,b"
        );
        assert_eq!(run("{{add .n 2}} {{sub .n 1}} {{mul .n .n}}"), "5 2 9");
        assert_eq!(run("{{\"a-b\" | replace \"-\" \"_\" | quote}}"), "\"a_b\"");
        assert_eq!(run("{{\"hi\" | b64enc}} {{\"aGk=\" | b64dec}}"), "aGk= hi");
        assert_eq!(
            run("{{.metadata.labels | toJson}}"),
            "{\"a\":\"1\",\"b\":\"2\"}"
        );
        assert_eq!(
            run("{{trunc 2 \"abcdef\"}}{{substr 1 3 \"abcdef\"}}"),
            "abbc"
        );
        assert_eq!(
            run("{{if hasPrefix \"we\" .metadata.name}}yes{{end}}"),
            "yes"
        );
    }

    #[test]
    fn json_integers_stay_int64() {
        assert_eq!(
            run("{{printf \"%d\" .n}} {{if eq .n 3}}three{{end}}"),
            "3 three"
        );
    }
}
