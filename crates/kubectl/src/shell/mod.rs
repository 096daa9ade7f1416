//! A small bash around kubectl: what the terminal and scripts run, so that lines
//! copied from tutorials work as written.
//!
//! One line is parsed into command lists (`a && b || c; d`), pipelines, simple
//! commands, words and redirections, then executed against the [`Session`].
//! Expansion happens at execution time, as bash does it:
//!
//! - `NAME=value` and `export NAME=value` set shell variables, kept in the session
//!   ([`ShellState`]) so the terminal remembers them between lines; `unset NAME`;
//!   `export` (or `export -p`) lists the exported ones as `declare -x NAME="value"`.
//! - `$NAME`, `${NAME}`, `${#NAME}`, `${NAME:-word}`, `${NAME-word}`, `${NAME#pattern}`,
//!   `##`, `%`, `%%` (`*` and `?` wildcards), `$?`, `$0`, `$1`..`$9` (empty), `$#`
//!   (0); anything else in braces is a `bad substitution`.
//! - `$(...)` and backquotes run a command list; its stdout, with trailing newlines
//!   removed, is the value; its stderr goes to the terminal. As in a subshell,
//!   variables it sets do not survive it.
//! - Single quotes are literal, double quotes expand `$` and backquotes, backslash
//!   escapes one character. Unquoted expansions are split into words at spaces,
//!   tabs and newlines; an unquoted expansion that yields nothing vanishes.
//!   Arguments of `export` that look like assignments are not split (bash's rule
//!   for declaration commands).
//! - Commands: `kubectl` (its words go to [`Session::run_args`] as they are, never
//!   split again), `sim`, `echo` (`-n`, `-e`, `-E`), `export`, `unset`, `alias`
//!   (`alias k=kubectl`), `unalias`, `true`, `false`, `:`, `cat` (files from the [`FileSource`], or stdin), `sleep
//!   DURATION` (simulated time passes), the pipe readers `grep PATTERN` (`-i`,
//!   `-v`, `-c`; the pattern is a fixed string), `head`/`tail` (`-n N`, `-N`,
//!   `tail -n +N`), `wc -l`, `sort` (`-r`, `-n`, `-u`), `uniq` (`-c`) and `awk
//!   '{print $N, ...}'` (optionally `NR>1`), and the learner's laptop tools in [`crate::shell::outside`]: `kubectl
//!   proxy`, `minikube ip`, `curl`, `wget`. Any other program is `bash: NAME:
//!   command not found` (status 127).
//! - `a | b`: b reads a's stdout (`kubectl get pods | grep Running`, `cat <<EOF |
//!   kubectl apply -f -`); the status is the last command's.
//! - `<<WORD` gives the command the script's here-document body (the lines after
//!   the line), expanded unless the word is quoted (`<<'WORD'`); `<<< word` gives it the word and a newline. `>/dev/null`,
//!   `2>/dev/null`, `&>/dev/null`, `2>&1` and `>&2` redirect or drop a command's
//!   streams; other files cannot be written or read, and the command does not run.
//!
//! Words are separated as in bash, with the container shell's definitions
//! (`warehouse_sim::kubelet::shell::is_blank`, `is_metachar`): a carriage return or a
//! non-breaking space is part of a word. Every construct is bounded: `$(...)`
//! nesting ([`MAX_NESTING`]), a word or a substitution's output
//! ([`MAX_VALUE_BYTES`]), a command's words ([`MAX_ARGS_BYTES`]), all variables
//! and aliases ([`MAX_VARS_BYTES`]), a pipe reader's output ([`MAX_PIPE_BYTES`]),
//! a line's length ([`MAX_LINE`]) and the text it expands ([`MAX_LINE_WORK_BYTES`]);
//! past a limit the command fails with a bash-like `out of memory` message and
//! changes nothing.
//!
//! Lines are joined before they get here ([`crate::shell::script`]): a trailing backslash
//! or a quote left open continues a command on the next line, in scripts, the REPL
//! and the browser's terminal alike.
//!
//! Simplified, and said so where it shows: no globbing, brace or tilde
//! expansion, arithmetic `$((...))`, subshells, functions or control flow; a
//! trailing `&` runs the command at once (nothing here runs in the background);
//! assignments before a command (`X=1 cmd`) are dropped; `$$` is 1 and `$!` is
//! empty. Syntax errors use interactive bash's texts (`bash: syntax error near
//! unexpected token `&&'`) with status 2.

use crate::context::{CommandOutput, FileSource};
use crate::Session;
use std::collections::{BTreeMap, BTreeSet};
use warehouse_sim::kubelet::shell::{is_blank, is_ifs_whitespace, is_metachar};
pub use warehouse_sim::kubelet::shell::{
    MAX_ARGS_BYTES, MAX_NESTING, MAX_VALUE_BYTES, MAX_VARS_BYTES,
};
use warehouse_sim::StableSort;

pub mod complete;
pub(crate) mod minikube_service;
pub mod outside;
pub mod script;

/// The shell's state kept between lines: variables, `$?`, and the `kubectl proxy`
/// processes started from this terminal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShellState {
    vars: BTreeMap<String, Variable>,
    /// `$?`: the status of the last command.
    pub last_status: i32,
    /// Ports a `kubectl proxy` serves on (127.0.0.1).
    pub(crate) proxies: BTreeSet<u16>,
    /// `alias k=kubectl`.
    aliases: BTreeMap<String, String>,
    /// The container an interactive `kubectl exec -ti POD -- bash` opened: lines run
    /// inside it until `exit`.
    pub inside: Option<crate::cmd::exec::Inside>,
    /// The bytes of the variables' and aliases' names and values.
    pub(crate) bytes: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Variable {
    /// `None` for `export NAME` of a name without a value.
    value: Option<String>,
    exported: bool,
}

impl ShellState {
    /// A variable's value (unset and valueless variables are `None`).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).and_then(|v| v.value.as_deref())
    }

    /// Sets a variable, keeping its exported flag; refused past [`MAX_VALUE_BYTES`]
    /// or, for all variables and aliases together, [`MAX_VARS_BYTES`].
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.room_for(&[(name, value)])?;
        self.export(name, Some(value.to_string()), None);
        Ok(())
    }

    /// The bytes a variable holds (its name and value).
    fn var_bytes(&self, name: &str) -> usize {
        self.vars
            .get(name)
            .map_or(0, |v| name.len() + v.value.as_ref().map_or(0, String::len))
    }

    /// Whether these variables can be set (each value, and all variables and
    /// aliases together, within the limits), else bash-like out-of-memory message.
    fn room_for(&self, vars: &[(&str, &str)]) -> Result<(), String> {
        let mut total = self.bytes;
        for (name, value) in vars {
            if value.len() > MAX_VALUE_BYTES {
                return Err(word_too_long());
            }
            total = total - self.var_bytes(name).min(total) + name.len() + value.len();
        }
        if total > MAX_VARS_BYTES {
            return Err(vars_full());
        }
        Ok(())
    }

    /// Sets a variable's value (if given) and its exported flag (if given; a new
    /// variable is not exported unless told). The caller checked `room_for`.
    fn export(&mut self, name: &str, value: Option<String>, exported: Option<bool>) {
        let before = self.var_bytes(name);
        let v = self.vars.entry(name.to_string()).or_insert(Variable {
            value: None,
            exported: false,
        });
        if let Some(e) = exported {
            v.exported = e;
        }
        if value.is_some() {
            v.value = value;
        }
        self.bytes = self.bytes - before + self.var_bytes(name);
    }

    fn unset(&mut self, name: &str) {
        self.bytes -= self.var_bytes(name);
        self.vars.remove(name);
    }

    fn set_alias(&mut self, name: &str, value: &str) -> Result<(), String> {
        let before = self.aliases.get(name).map_or(0, |v| name.len() + v.len());
        if value.len() > MAX_VALUE_BYTES {
            return Err(word_too_long());
        }
        if self.bytes - before + name.len() + value.len() > MAX_VARS_BYTES {
            return Err(vars_full());
        }
        self.bytes = self.bytes - before + name.len() + value.len();
        self.aliases.insert(name.to_string(), value.to_string());
        Ok(())
    }

    fn unset_alias(&mut self, name: &str) -> bool {
        match self.aliases.remove(name) {
            Some(v) => {
                self.bytes -= name.len() + v.len();
                true
            }
            None => false,
        }
    }

    /// Whether a `kubectl proxy` serves on this port.
    pub fn proxy_on(&self, port: u16) -> bool {
        self.proxies.contains(&port)
    }
}

/// The web terminal's convenience: kubectl's commands typed without `kubectl`
/// (`get pods`) run as `kubectl get pods`; every other line runs as typed.
pub fn terminal_line(input: &str) -> String {
    let line = input.trim_matches(is_ifs_whitespace);
    let first = line.split(is_blank).next().unwrap_or("");
    if crate::args::is_kubectl_command(first) {
        format!("kubectl {line}")
    } else {
        line.to_string()
    }
}

/// The deepest nesting of `$(...)` and backquotes a line may have: the container
/// shell's [`MAX_NESTING`], measured to fit the browser's stack.
const MAX_DEPTH: usize = MAX_NESTING;

/// The most text a pipe reader (`awk`, `uniq -c`) may produce: past it, `awk: out
/// of memory` (status 2) instead of the text.
pub const MAX_PIPE_BYTES: usize = 16 << 20;

/// bash's words for a failed allocation, with the limit that was reached.
fn word_too_long() -> String {
    format!("bash: out of memory: a word may hold at most {MAX_VALUE_BYTES} bytes")
}

/// A pipe reader's text past [`MAX_PIPE_BYTES`].
fn pipe_full(program: &str) -> String {
    format!("{program}: out of memory: a pipe reader may write at most {MAX_PIPE_BYTES} bytes")
}

fn vars_full() -> String {
    format!(
        "bash: out of memory: the shell's variables and aliases may hold at most {MAX_VARS_BYTES} bytes together"
    )
}

/// The longest line the shell reads (a guard for pasted input).
pub const MAX_LINE: usize = 64 * 1024;

// ---------------------------------------------------------------------------
// Syntax

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    /// Unquoted text.
    Lit(String),
    /// Text from quotes or a backslash: never split.
    Quoted(String),
    Param {
        name: String,
        quoted: bool,
    },
    Length {
        name: String,
        quoted: bool,
    },
    /// `${NAME:-word}` (colon: also when empty) and `${NAME-word}`.
    Default {
        name: String,
        word: String,
        colon: bool,
        quoted: bool,
    },
    /// `${NAME#pattern}`, `##`, `%`, `%%`: the value without its shortest or
    /// longest matching prefix or suffix (`*` and `?` are the only wildcards).
    Trim {
        name: String,
        op: String,
        pattern: String,
        quoted: bool,
    },
    /// `${...}` bash cannot expand; an error when the command runs.
    Bad(String),
    Subst {
        list: List,
        quoted: bool,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Word(Vec<Part>);

impl Word {
    /// Whether any of the word was quoted or escaped (a here-document's delimiter
    /// written so keeps its body unexpanded).
    fn is_quoted(&self) -> bool {
        self.0.iter().any(|p| !matches!(p, Part::Lit(_)))
    }

    fn push_lit(&mut self, c: char) {
        if let Some(Part::Lit(s)) = self.0.last_mut() {
            s.push(c);
        } else {
            self.0.push(Part::Lit(c.to_string()));
        }
    }

    fn push_quoted(&mut self, s: &str) {
        if let Some(Part::Quoted(q)) = self.0.last_mut() {
            q.push_str(s);
        } else {
            self.0.push(Part::Quoted(s.to_string()));
        }
    }

    /// `NAME=` at the start, unquoted: the name and the value's parts.
    fn assignment(&self) -> Option<(String, Word)> {
        let Some(Part::Lit(first)) = self.0.first() else {
            return None;
        };
        let (name, rest) = first.split_once('=')?;
        if !is_name(name) {
            return None;
        }
        let mut value = Word::default();
        if !rest.is_empty() {
            value.0.push(Part::Lit(rest.to_string()));
        }
        value.0.extend(self.0[1..].iter().cloned());
        Some((name.to_string(), value))
    }

    /// The word as plain text if it has no expansions.
    fn plain(&self) -> Option<String> {
        let mut s = String::new();
        for p in &self.0 {
            match p {
                Part::Lit(t) | Part::Quoted(t) => s.push_str(t),
                _ => return None,
            }
        }
        Some(s)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum RedirectOp {
    /// `N>`, `N>>`.
    Out(u8),
    /// `&>`: both streams.
    Both,
    /// `N>&M`.
    Dup(u8),
    /// `<`.
    In,
    /// `<<WORD`: the line's here-document (a script gives its body).
    HereDoc,
    /// `<<< word`: the word and a newline.
    HereString,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Redirect {
    op: RedirectOp,
    target: Word,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Simple {
    assigns: Vec<(String, Word)>,
    words: Vec<Word>,
    redirects: Vec<Redirect>,
}

impl Simple {
    fn is_empty(&self) -> bool {
        self.assigns.is_empty() && self.words.is_empty() && self.redirects.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    And,
    Or,
    Seq,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct List {
    pipelines: Vec<(Op, Vec<Simple>)>,
}

/// A line bash refuses to run.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Syntax {
    /// `unexpected EOF while looking for matching `"'`.
    Eof(char),
    /// `syntax error near unexpected token `&&'`.
    Token(String),
    /// `syntax error: unexpected end of file` (a line ending in `&&`, `||`, `|`).
    EndOfFile,
    /// Shell syntax this simulated shell does not have.
    Unsupported(String),
}

impl Syntax {
    fn message(&self) -> String {
        match self {
            Syntax::Eof(c) => format!("bash: unexpected EOF while looking for matching `{c}'"),
            Syntax::Token(t) => format!("bash: syntax error near unexpected token `{t}'"),
            Syntax::EndOfFile => "bash: syntax error: unexpected end of file".to_string(),
            Syntax::Unsupported(what) => format!("bash: {what}"),
        }
    }
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// bash's metacharacters (the container shell's definition, shared): space, tab,
/// newline and `| & ; ( ) < >`. A carriage return, a non-breaking space and the
/// like are ordinary word characters, as in bash.
fn is_meta(c: char) -> bool {
    is_metachar(c)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn new(text: &str, depth: usize) -> Parser {
        Parser {
            chars: text.chars().collect(),
            pos: 0,
            depth,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(is_ifs_whitespace) {
            self.pos += 1;
        }
    }

    /// A command list up to the end, or up to the `)` closing a `$(`.
    fn list(&mut self, in_subst: bool) -> Result<List, Syntax> {
        let mut list = List::default();
        let mut pending = Op::Seq;
        let mut needs_command = false;
        loop {
            self.skip_blanks();
            match self.peek() {
                None => {
                    if in_subst {
                        return Err(Syntax::Eof(')'));
                    }
                    if needs_command {
                        return Err(Syntax::EndOfFile);
                    }
                    return Ok(list);
                }
                Some(')') if in_subst => {
                    if needs_command {
                        return Err(Syntax::Token(")".into()));
                    }
                    self.pos += 1;
                    return Ok(list);
                }
                Some('#') => {
                    // A comment runs to the end of the line.
                    self.pos = self.chars.len();
                    continue;
                }
                _ => {}
            }
            let pipeline = self.pipeline()?;
            list.pipelines.push((pending, pipeline));
            self.skip_blanks();
            needs_command = false;
            match (self.peek(), self.peek_at(1)) {
                (Some('&'), Some('&')) => {
                    self.pos += 2;
                    pending = Op::And;
                    needs_command = true;
                }
                (Some('|'), Some('|')) => {
                    self.pos += 2;
                    pending = Op::Or;
                    needs_command = true;
                }
                (Some(';'), Some(';')) => return Err(Syntax::Token(";;".into())),
                (Some(';'), _) => {
                    self.pos += 1;
                    pending = Op::Seq;
                }
                // No background jobs: `cmd &` runs cmd at once.
                (Some('&'), _) => {
                    self.pos += 1;
                    pending = Op::Seq;
                }
                (Some(')'), _) if in_subst => pending = Op::Seq,
                (Some('('), _) => return Err(self.paren_error(&list)),
                (Some(')'), _) => return Err(Syntax::Token(")".to_string())),
                (None, _) => pending = Op::Seq,
                (Some(c), _) => return Err(Syntax::Token(c.to_string())),
            }
        }
    }

    /// A `(` after a command. After a single word bash reads a function
    /// definition, `name ( )`, and names the token that breaks it.
    fn paren_error(&mut self, list: &List) -> Syntax {
        let one_word = list.pipelines.last().is_some_and(|(_, cmds)| {
            matches!(cmds.as_slice(), [c] if c.words.len() == 1 && c.assigns.is_empty() && c.redirects.is_empty())
        });
        if !one_word {
            return Syntax::Token("(".into());
        }
        self.pos += 1;
        self.skip_blanks();
        match self.peek() {
            None => Syntax::Token("newline".into()),
            Some(')') => {
                Syntax::Unsupported("functions are not supported in this simulated shell".into())
            }
            Some(c) if is_meta(c) => {
                Syntax::Token(self.operator_token().unwrap_or_else(|| c.to_string()))
            }
            Some(_) => match self.word() {
                Ok(w) => Syntax::Token(w.plain().unwrap_or_default()),
                Err(e) => e,
            },
        }
    }

    fn pipeline(&mut self) -> Result<Vec<Simple>, Syntax> {
        let mut cmds = Vec::new();
        loop {
            let simple = self.simple()?;
            if simple.is_empty() {
                return Err(match self.operator_token() {
                    Some(t) => Syntax::Token(t),
                    None => Syntax::EndOfFile,
                });
            }
            cmds.push(simple);
            self.skip_blanks();
            if self.peek() == Some('|') && self.peek_at(1) != Some('|') {
                self.pos += 1;
                if self.peek() == Some('&') {
                    self.pos += 1;
                }
                self.skip_blanks();
                if self.peek().is_none() {
                    return Err(Syntax::EndOfFile);
                }
                continue;
            }
            return Ok(cmds);
        }
    }

    /// The operator at the cursor, as bash names it in a syntax error.
    fn operator_token(&self) -> Option<String> {
        let c = self.peek()?;
        let next = self.peek_at(1);
        Some(match (c, next) {
            ('&', Some('&')) => "&&".into(),
            ('|', Some('|')) => "||".into(),
            (';', Some(';')) => ";;".into(),
            _ => c.to_string(),
        })
    }

    fn simple(&mut self) -> Result<Simple, Syntax> {
        let mut simple = Simple::default();
        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else {
                return Ok(simple);
            };
            if c == '#' {
                self.pos = self.chars.len();
                return Ok(simple);
            }
            if c == '<' || c == '>' || (c == '&' && self.peek_at(1) == Some('>')) {
                let r = self.redirect(None)?;
                simple.redirects.push(r);
                continue;
            }
            if is_meta(c) {
                return Ok(simple);
            }
            let word = self.word()?;
            // `2>` / `1>&2`: a number right before a redirection is its descriptor.
            if let (Some(text), Some('<' | '>')) = (word.plain(), self.peek()) {
                if matches!(word.0.as_slice(), [Part::Lit(_)])
                    && !text.is_empty()
                    && text.chars().all(|c| c.is_ascii_digit())
                {
                    let fd = text.parse::<u8>().unwrap_or(u8::MAX);
                    let r = self.redirect(Some(fd))?;
                    simple.redirects.push(r);
                    continue;
                }
            }
            if simple.words.is_empty() {
                if let Some(a) = word.assignment() {
                    simple.assigns.push(a);
                    continue;
                }
            }
            simple.words.push(word);
        }
    }

    fn redirect(&mut self, fd: Option<u8>) -> Result<Redirect, Syntax> {
        let op = match (self.peek(), self.peek_at(1), self.peek_at(2)) {
            (Some('&'), Some('>'), Some('>')) => {
                self.pos += 3;
                RedirectOp::Both
            }
            (Some('&'), Some('>'), _) => {
                self.pos += 2;
                RedirectOp::Both
            }
            (Some('<'), Some('<'), Some('<')) => {
                self.pos += 3;
                RedirectOp::HereString
            }
            (Some('<'), Some('<'), _) => {
                self.pos += 2;
                if self.peek() == Some('-') {
                    self.pos += 1;
                }
                RedirectOp::HereDoc
            }
            (Some('<'), _, _) => {
                self.pos += 1;
                RedirectOp::In
            }
            (Some('>'), Some('&'), _) => {
                self.pos += 2;
                RedirectOp::Dup(fd.unwrap_or(1))
            }
            (Some('>'), Some('>'), _) => {
                self.pos += 2;
                RedirectOp::Out(fd.unwrap_or(1))
            }
            _ => {
                self.pos += 1;
                RedirectOp::Out(fd.unwrap_or(1))
            }
        };
        self.skip_blanks();
        match self.peek() {
            None => Err(Syntax::Token("newline".into())),
            Some(c) if is_meta(c) => Err(Syntax::Token(
                self.operator_token().unwrap_or_else(|| c.to_string()),
            )),
            Some(_) => Ok(Redirect {
                op,
                target: self.word()?,
            }),
        }
    }

    fn word(&mut self) -> Result<Word, Syntax> {
        let mut word = Word::default();
        while let Some(c) = self.peek() {
            if is_meta(c) {
                break;
            }
            match c {
                '\'' => {
                    self.pos += 1;
                    let start = self.pos;
                    while self.peek().is_some_and(|c| c != '\'') {
                        self.pos += 1;
                    }
                    if self.peek().is_none() {
                        return Err(Syntax::Eof('\''));
                    }
                    let text: String = self.chars[start..self.pos].iter().collect();
                    word.push_quoted(&text);
                    self.pos += 1;
                }
                '"' => {
                    self.pos += 1;
                    self.double_quoted(&mut word)?;
                }
                '\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some(n) => {
                            self.pos += 1;
                            word.push_quoted(&n.to_string());
                        }
                        None => word.push_lit('\\'),
                    }
                }
                '$' => self.dollar(&mut word, false)?,
                '`' => {
                    let list = self.backquoted()?;
                    word.0.push(Part::Subst {
                        list,
                        quoted: false,
                    });
                }
                c => {
                    self.pos += 1;
                    word.push_lit(c);
                }
            }
        }
        Ok(word)
    }

    /// After an opening `"`, up to and including the closing one.
    fn double_quoted(&mut self, word: &mut Word) -> Result<(), Syntax> {
        // An empty "" still makes a word.
        word.push_quoted("");
        loop {
            match self.peek() {
                None => return Err(Syntax::Eof('"')),
                Some('"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    match self.peek_at(1) {
                        Some(n @ ('$' | '`' | '"' | '\\')) => word.push_quoted(&n.to_string()),
                        Some(n) => word.push_quoted(&format!("\\{n}")),
                        None => return Err(Syntax::Eof('"')),
                    }
                    self.pos += 2;
                }
                Some('$') => self.dollar(word, true)?,
                Some('`') => {
                    let list = self.backquoted()?;
                    word.0.push(Part::Subst { list, quoted: true });
                }
                Some(c) => {
                    self.pos += 1;
                    word.push_quoted(&c.to_string());
                }
            }
        }
    }

    /// The whole text as the body of an unquoted here-document: like the inside of
    /// double quotes, except that `"` is an ordinary character and the text ends
    /// at its end.
    fn heredoc_text(&mut self) -> Result<Word, Syntax> {
        let mut word = Word::default();
        word.push_quoted("");
        while let Some(c) = self.peek() {
            match c {
                '\\' => {
                    match self.peek_at(1) {
                        Some('\n') => {}
                        Some(n @ ('$' | '`' | '\\')) => word.push_quoted(&n.to_string()),
                        Some(n) => word.push_quoted(&format!("\\{n}")),
                        None => word.push_quoted("\\"),
                    }
                    self.pos += 2;
                }
                '$' => self.dollar(&mut word, true)?,
                '`' => {
                    let list = self.backquoted()?;
                    word.0.push(Part::Subst { list, quoted: true });
                }
                c => {
                    self.pos += 1;
                    word.push_quoted(&c.to_string());
                }
            }
        }
        Ok(word)
    }

    /// At a `$`.
    fn dollar(&mut self, word: &mut Word, quoted: bool) -> Result<(), Syntax> {
        let literal = |word: &mut Word| {
            if quoted {
                word.push_quoted("$");
            } else {
                word.push_lit('$');
            }
        };
        match self.peek_at(1) {
            Some('(') if self.peek_at(2) == Some('(') => Err(Syntax::Unsupported(
                "arithmetic expansion $((...)) is not supported in this simulated shell".into(),
            )),
            Some('(') => {
                if self.depth >= MAX_DEPTH {
                    return Err(Syntax::Unsupported(
                        "command substitutions are nested too deeply".into(),
                    ));
                }
                self.pos += 2;
                self.depth += 1;
                let list = self.list(true)?;
                self.depth -= 1;
                word.0.push(Part::Subst { list, quoted });
                Ok(())
            }
            Some('{') => {
                let start = self.pos + 2;
                let Some(len) = self.chars[start..].iter().position(|&c| c == '}') else {
                    return Err(Syntax::Eof('}'));
                };
                let inner: String = self.chars[start..start + len].iter().collect();
                self.pos = start + len + 1;
                word.0.push(braced(&inner, quoted));
                Ok(())
            }
            Some(c) if c == '_' || c.is_ascii_alphabetic() => {
                self.pos += 1;
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c == '_' || c.is_ascii_alphanumeric())
                {
                    self.pos += 1;
                }
                let name: String = self.chars[start..self.pos].iter().collect();
                word.0.push(Part::Param { name, quoted });
                Ok(())
            }
            Some(c) if c.is_ascii_digit() || matches!(c, '?' | '#' | '$' | '!' | '@' | '*') => {
                self.pos += 2;
                word.0.push(Part::Param {
                    name: c.to_string(),
                    quoted,
                });
                Ok(())
            }
            _ => {
                self.pos += 1;
                literal(word);
                Ok(())
            }
        }
    }

    /// At a backquote: the command up to the closing one (`\``, `\\`, `\$` unescaped).
    fn backquoted(&mut self) -> Result<List, Syntax> {
        self.pos += 1;
        let mut text = String::new();
        loop {
            match self.peek() {
                None => return Err(Syntax::Eof('`')),
                Some('`') => {
                    self.pos += 1;
                    break;
                }
                Some('\\') => {
                    match self.peek_at(1) {
                        Some(n @ ('`' | '\\' | '$')) => text.push(n),
                        Some(n) => {
                            text.push('\\');
                            text.push(n);
                        }
                        None => return Err(Syntax::Eof('`')),
                    }
                    self.pos += 2;
                }
                Some(c) => {
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
        if self.depth >= MAX_DEPTH {
            return Err(Syntax::Unsupported(
                "command substitutions are nested too deeply".into(),
            ));
        }
        Parser::new(&text, self.depth + 1).list(false)
    }
}

/// The inside of `${...}`.
fn braced(inner: &str, quoted: bool) -> Part {
    let special = |s: &str| {
        is_name(s)
            || (!s.is_empty() && s.chars().all(|c| c.is_ascii_digit()))
            || matches!(s, "?" | "#" | "$" | "!" | "@" | "*")
    };
    if special(inner) {
        return Part::Param {
            name: inner.to_string(),
            quoted,
        };
    }
    if let Some(name) = inner.strip_prefix('#') {
        if special(name) {
            return Part::Length {
                name: name.to_string(),
                quoted,
            };
        }
    }
    let name_end = inner
        .find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
        .unwrap_or(inner.len());
    let (name, rest) = inner.split_at(name_end);
    if is_name(name) {
        for op in ["##", "#", "%%", "%"] {
            if let Some(pattern) = rest.strip_prefix(op) {
                return Part::Trim {
                    name: name.to_string(),
                    op: op.to_string(),
                    pattern: unquote(pattern),
                    quoted,
                };
            }
        }
        let (colon, word) = match rest.strip_prefix(":-") {
            Some(w) => (true, Some(w)),
            None => (false, rest.strip_prefix('-')),
        };
        if let Some(word) = word {
            return Part::Default {
                name: name.to_string(),
                word: unquote(word),
                colon,
                quoted,
            };
        }
    }
    Part::Bad(format!("${{{inner}}}"))
}

/// The word of `${X:-word}`, its quotes removed (it is not expanded further).
fn unquote(s: &str) -> String {
    s.chars().filter(|c| *c != '\'' && *c != '"').collect()
}

/// Parses one line (exposed for tests and the property test).
fn parse_line(line: &str) -> Result<List, Syntax> {
    if line.len() > MAX_LINE {
        return Err(Syntax::Unsupported(format!(
            "the line is longer than {MAX_LINE} bytes"
        )));
    }
    Parser::new(line, 0).list(false)
}

/// The programs this shell runs (its builtins, the pipe readers and the simulated
/// tools); anything else is `command not found`.
pub const PROGRAMS: &[&str] = &[
    "kubectl", "sim", "minikube", "helm", "curl", "wget", "grep", "head", "tail", "wc", "sort",
    "uniq", "awk", "cat", "echo", "export", "unset", "alias", "unalias", "true", ":", "false",
    "sleep",
];

/// The simple commands of a line, in order, those inside `$(...)` included, without
/// running anything: each as its words, `None` for a word that only expansion can
/// tell (`$POD`, `"$(...)"`). A line bash would refuse gives bash's message.
pub fn simple_commands(line: &str) -> Result<Vec<Vec<Option<String>>>, String> {
    fn walk(list: &List, out: &mut Vec<Vec<Option<String>>>) {
        for (_, pipeline) in &list.pipelines {
            for simple in pipeline {
                for word in simple
                    .words
                    .iter()
                    .chain(simple.assigns.iter().map(|(_, w)| w))
                {
                    for part in &word.0 {
                        if let Part::Subst { list, .. } = part {
                            walk(list, out);
                        }
                    }
                }
                if !simple.words.is_empty() {
                    out.push(simple.words.iter().map(Word::plain).collect());
                }
            }
        }
    }
    let list = parse_line(line).map_err(|e| e.message())?;
    let mut out = Vec::new();
    walk(&list, &mut out);
    Ok(out)
}

// ---------------------------------------------------------------------------
// Execution

/// Runs one shell line against the session. `stdin` (a script's heredoc) goes to
/// the line's last command. The output's code is the line's exit status (`$?`).
pub fn run_line(
    session: &mut Session,
    line: &str,
    stdin: Option<&str>,
    files: &dyn FileSource,
) -> CommandOutput {
    if let Some(inside) = session.shell.inside.clone() {
        let out = crate::cmd::exec::run_inside(session, &inside, line);
        session.shell.last_status = out.code;
        return out;
    }
    let mut out = CommandOutput::new();
    let status = match parse_line(line) {
        Ok(list) => {
            let mut exec = Exec {
                files,
                subst_status: None,
                heredoc: stdin,
                work: 0,
            };
            // Without a `<<WORD` in the line, the given stdin goes to its last command.
            let last_stdin = if has_heredoc(&list) { None } else { stdin };
            exec.list(session, &list, last_stdin, &mut out)
        }
        Err(e) => {
            out.err_line(e.message());
            2
        }
    };
    session.shell.last_status = status;
    out.code = status;
    out
}

/// Whether a command of the list (not of its substitutions) reads a `<<WORD`.
fn has_heredoc(list: &List) -> bool {
    list.pipelines.iter().any(|(_, cmds)| {
        cmds.iter()
            .any(|c| c.redirects.iter().any(|r| r.op == RedirectOp::HereDoc))
    })
}

struct Exec<'a> {
    files: &'a dyn FileSource,
    /// The body of the line's here-document, if a script gave one.
    heredoc: Option<&'a str>,
    /// The status of the last command substitution of the current command.
    subst_status: Option<i32>,
    /// The bytes the line has expanded and piped so far (see [`MAX_LINE_WORK_BYTES`]).
    work: usize,
}

/// The most text one line may expand into words and feed to pipe readers: past
/// it the line stops with a message, so that no line of at most [`MAX_LINE`]
/// bytes can keep the terminal busy for long (`y=$x; y=$x; ...` with a large `x`).
pub const MAX_LINE_WORK_BYTES: usize = 64 << 20;

impl Exec<'_> {
    /// Counts `bytes` of work. The first time the line goes past its limit the
    /// error is the message; after that it is empty (the message was given).
    fn charge(&mut self, bytes: usize) -> Result<(), String> {
        let over = self.work > MAX_LINE_WORK_BYTES;
        self.work = self.work.saturating_add(bytes);
        if over {
            return Err(String::new());
        }
        if self.work > MAX_LINE_WORK_BYTES {
            return Err(format!(
                "bash: the line was stopped: it expanded more than {MAX_LINE_WORK_BYTES} bytes of text (this simulated shell's limit for one line)"
            ));
        }
        Ok(())
    }
}

/// Prints an error message unless it was printed already (an empty one).
fn report(out: &mut CommandOutput, message: String) {
    if !message.is_empty() {
        out.err_line(message);
    }
}

/// Sends what a piped command wrote to stderr to the terminal.
fn pass_stderr(out: &mut CommandOutput, res: &CommandOutput) {
    if !res.stderr.is_empty() {
        let start = out.stderr.len();
        out.stderr.push_str(&res.stderr);
        out.interleave
            .push((out.stdout.len(), start, out.stderr.len()));
    }
}

/// Appends what one command printed, keeping the order a terminal shows.
pub(crate) fn append(out: &mut CommandOutput, other: &CommandOutput) {
    let text = other.combined();
    if other.stderr.is_empty() {
        out.stdout.push_str(&other.stdout);
        return;
    }
    if other.stdout.is_empty() {
        let start = out.stderr.len();
        out.stderr.push_str(&other.stderr);
        out.interleave
            .push((out.stdout.len(), start, out.stderr.len()));
        return;
    }
    // Both streams: replay the combined order line by line, attributing each
    // line to the stream it came from.
    let mut out_rest = other.stdout.as_str();
    let mut err_rest = other.stderr.as_str();
    for line in text.split_inclusive('\n') {
        if out_rest.starts_with(line) {
            out.stdout.push_str(line);
            out_rest = &out_rest[line.len()..];
        } else if err_rest.starts_with(line) {
            let start = out.stderr.len();
            out.stderr.push_str(line);
            out.interleave
                .push((out.stdout.len(), start, out.stderr.len()));
            err_rest = &err_rest[line.len()..];
        } else {
            out.stdout.push_str(line);
        }
    }
}

impl Exec<'_> {
    fn list(
        &mut self,
        session: &mut Session,
        list: &List,
        stdin: Option<&str>,
        out: &mut CommandOutput,
    ) -> i32 {
        let mut status = session.shell.last_status;
        let last = list.pipelines.len().saturating_sub(1);
        for (i, (op, pipeline)) in list.pipelines.iter().enumerate() {
            match op {
                Op::And if status != 0 => continue,
                Op::Or if status == 0 => continue,
                _ => {}
            }
            if self.work > MAX_LINE_WORK_BYTES {
                return 1;
            }
            let input = if i == last { stdin } else { None };
            status = self.pipeline(session, pipeline, input, out);
            session.shell.last_status = status;
        }
        status
    }

    /// `a | b | c`: each command's stdout is the next one's stdin; stderr goes to
    /// the terminal. The status is the last command's.
    fn pipeline(
        &mut self,
        session: &mut Session,
        cmds: &[Simple],
        stdin: Option<&str>,
        out: &mut CommandOutput,
    ) -> i32 {
        let Some((first, rest)) = cmds.split_first() else {
            return 0;
        };
        if rest.is_empty() {
            return self.simple(session, first, stdin, out);
        }
        let mut res = CommandOutput::new();
        let mut status = self.simple(session, first, stdin, &mut res);
        for cmd in rest {
            let text = std::mem::take(&mut res.stdout);
            pass_stderr(out, &res);
            res = CommandOutput::new();
            status = self.simple(session, cmd, Some(&text), &mut res);
        }
        append(out, &res);
        status
    }

    fn expand_all(
        &mut self,
        session: &mut Session,
        words: &[Word],
        out: &mut CommandOutput,
    ) -> Result<Vec<String>, i32> {
        let mut fields: Vec<String> = Vec::new();
        let mut bytes = 0usize;
        let declaration = words.first().and_then(Word::plain).as_deref() == Some("export");
        for (i, w) in words.iter().enumerate() {
            let split = !(declaration && i > 0 && w.assignment().is_some());
            match self.expand(session, w, split, out) {
                Ok(f) => {
                    bytes += f.iter().map(String::len).sum::<usize>();
                    if bytes > MAX_ARGS_BYTES {
                        out.err_line(format!(
                            "bash: out of memory: the words of one command may hold at most {MAX_ARGS_BYTES} bytes together"
                        ));
                        return Err(1);
                    }
                    fields.extend(f)
                }
                Err(message) => {
                    report(out, message);
                    return Err(1);
                }
            }
        }
        Ok(fields)
    }

    fn simple(
        &mut self,
        session: &mut Session,
        cmd: &Simple,
        stdin: Option<&str>,
        out: &mut CommandOutput,
    ) -> i32 {
        self.subst_status = None;
        let mut assigns = Vec::new();
        for (name, word) in &cmd.assigns {
            match self.expand(session, word, false, out) {
                Ok(v) => assigns.push((name.clone(), v.concat())),
                Err(message) => {
                    report(out, message);
                    return 1;
                }
            }
        }
        let mut fields = match self.expand_all(session, &cmd.words, out) {
            Ok(f) => f,
            Err(status) => return status,
        };
        // An alias replaces a command name written plainly (`k get pods`).
        if let Some(Part::Lit(first)) = cmd.words.first().and_then(|w| match w.0.as_slice() {
            [p] => Some(p),
            _ => None,
        }) {
            if let Some(value) = session.shell.aliases.get(first) {
                let mut replaced: Vec<String> =
                    shell_words::split(value).unwrap_or_else(|_| vec![value.clone()]);
                replaced.extend(fields.drain(1..));
                fields = replaced;
            }
        }
        let mut redirects = Vec::new();
        for r in &cmd.redirects {
            let target = match self.expand(session, &r.target, false, out) {
                Ok(t) => t.concat(),
                Err(message) => {
                    report(out, message);
                    return 1;
                }
            };
            redirects.push((r.op.clone(), target));
        }
        let Some((program, args)) = fields.split_first() else {
            // Assignments only: they set shell variables (all of them or none).
            let pairs: Vec<(&str, &str)> = assigns
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_str()))
                .collect();
            if let Err(message) = session.shell.room_for(&pairs) {
                report(out, message);
                return 1;
            }
            for (name, value) in pairs {
                session.shell.export(name, Some(value.to_string()), None);
            }
            return self.subst_status.unwrap_or(0);
        };
        // A redirection bash could not make stops the command before it runs.
        if let Err(message) = apply_redirects(&mut CommandOutput::new(), &redirects) {
            report(out, message);
            return 1;
        }
        let mut input = stdin.map(str::to_string);
        for ((op, target), written) in redirects.iter().zip(&cmd.redirects) {
            match op {
                RedirectOp::HereDoc => match self.heredoc {
                    // `<<'EOF'`, `<<"EOF"`, `<<\EOF`: any quoting in the delimiter
                    // keeps the body as written; a plain `<<EOF` body is expanded.
                    Some(body) if written.target.is_quoted() => input = Some(body.to_string()),
                    Some(body) => match self.heredoc_body(session, body, out) {
                        Ok(text) => input = Some(text),
                        Err(message) => {
                            report(out, message);
                            return 1;
                        }
                    },
                    None => {
                        out.err_line(
                            "bash: here-documents need the lines that follow them: they work in scripts, not in the terminal",
                        );
                        return 1;
                    }
                },
                RedirectOp::HereString => input = Some(format!("{target}\n")),
                _ => {}
            }
        }
        let mut res = self.command(session, program, args, input.as_deref());
        let _ = apply_redirects(&mut res, &redirects);
        append(out, &res);
        res.code
    }

    /// The body of an unquoted here-document as bash expands it: `$NAME`, `${...}`,
    /// `$(...)` and backquotes are replaced, a backslash escapes only `$`, a
    /// backquote, a backslash or a newline, and quotes are ordinary characters.
    fn heredoc_body(
        &mut self,
        session: &mut Session,
        body: &str,
        out: &mut CommandOutput,
    ) -> Result<String, String> {
        if !body.contains(['$', '`', '\\']) {
            return Ok(body.to_string());
        }
        let word = Parser::new(body, 0)
            .heredoc_text()
            .map_err(|e| e.message())?;
        Ok(self.expand(session, &word, false, out)?.concat())
    }

    fn command(
        &mut self,
        session: &mut Session,
        program: &str,
        args: &[String],
        stdin: Option<&str>,
    ) -> CommandOutput {
        match program {
            "kubectl" => {
                if crate::shell::outside::is_proxy(args) {
                    return crate::shell::outside::kubectl_proxy(session, args);
                }
                session.run_args(args, stdin, self.files)
            }
            "sim" => {
                let action = crate::shell::script::parse_sim_args(args);
                crate::shell::script::execute_action(session, &action, stdin, self.files)
            }
            "minikube" => crate::shell::outside::minikube(session, args),
            "helm" => crate::helm::run(session, args, self.files),
            "curl" => crate::shell::outside::curl(session, args),
            "wget" => crate::shell::outside::wget(session, args),
            "grep" | "head" | "tail" | "wc" | "sort" | "uniq" | "awk" => {
                let Some(text) = stdin else {
                    return status_error(
                        format!("bash: {program}: only text piped into it is simulated (kubectl get pods | {program} ...)"),
                        2,
                    );
                };
                if let Err(message) = self.charge(text.len()) {
                    let mut out = CommandOutput::new();
                    report(&mut out, message);
                    out.code = 1;
                    return out;
                }
                let mut words = vec![program.to_string()];
                words.extend(args.iter().cloned());
                match filter(&words, text) {
                    Ok((stdout, code)) => CommandOutput {
                        stdout,
                        code,
                        ..CommandOutput::default()
                    },
                    Err(message) => status_error(message, 2),
                }
            }
            "cat" => cat(args, stdin, self.files),
            "echo" => echo(args),
            "export" => export(session, args),
            "unset" => unset(session, args),
            "alias" => alias(session, args),
            "unalias" => unalias(session, args),
            "true" | ":" => CommandOutput::new(),
            "false" => CommandOutput {
                code: 1,
                ..CommandOutput::default()
            },
            "sleep" => sleep(session, args),
            p if p.contains('/') => {
                status_error(format!("bash: {p}: No such file or directory"), 127)
            }
            p => status_error(format!("bash: {p}: command not found"), 127),
        }
    }

    /// Expands one word into fields (`split`: unquoted expansions split at blanks).
    fn expand(
        &mut self,
        session: &mut Session,
        word: &Word,
        split: bool,
        out: &mut CommandOutput,
    ) -> Result<Vec<String>, String> {
        let mut fields = Vec::new();
        let mut current = String::new();
        let mut keep = false;
        for part in &word.0 {
            let (value, quoted) = match part {
                Part::Lit(s) => {
                    current.push_str(s);
                    keep = true;
                    continue;
                }
                Part::Quoted(s) => {
                    current.push_str(s);
                    keep = true;
                    continue;
                }
                Part::Bad(text) => return Err(format!("bash: {text}: bad substitution")),
                Part::Param { name, quoted } => (param(session, name), *quoted),
                Part::Length { name, quoted } => {
                    (param(session, name).chars().count().to_string(), *quoted)
                }
                Part::Default {
                    name,
                    word,
                    colon,
                    quoted,
                } => {
                    let set = session.shell.vars.get(name).and_then(|v| v.value.clone());
                    let value = match set {
                        Some(v) if !(*colon && v.is_empty()) => v,
                        _ => word.clone(),
                    };
                    (value, *quoted)
                }
                Part::Trim {
                    name,
                    op,
                    pattern,
                    quoted,
                } => {
                    let value = param(session, name);
                    self.charge(value.len().saturating_mul(pattern.len() + 1))?;
                    (trim(&value, op, pattern), *quoted)
                }
                Part::Subst { list, quoted } => (self.substitute(session, list, out)?, *quoted),
            };
            if current.len() + value.len() > MAX_VALUE_BYTES {
                return Err(word_too_long());
            }
            self.charge(value.len())?;
            if quoted || !split {
                current.push_str(&value);
                keep = true;
                continue;
            }
            let mut pieces = value.split(is_ifs_whitespace);
            if let Some(first) = pieces.next() {
                current.push_str(first);
            }
            for piece in pieces {
                if !current.is_empty() || keep {
                    fields.push(std::mem::take(&mut current));
                }
                keep = false;
                current.push_str(piece);
            }
        }
        if !current.is_empty() || keep || !split {
            fields.push(current);
        }
        Ok(fields)
    }

    /// `$(...)`: runs the list as a subshell; its stdout without trailing newlines
    /// (at most [`MAX_VALUE_BYTES`]).
    fn substitute(
        &mut self,
        session: &mut Session,
        list: &List,
        out: &mut CommandOutput,
    ) -> Result<String, String> {
        let saved = (session.shell.vars.clone(), session.shell.bytes);
        let mut sub = CommandOutput::new();
        let status = self.list(session, list, None, &mut sub);
        (session.shell.vars, session.shell.bytes) = saved;
        self.subst_status = Some(status);
        if !sub.stderr.is_empty() {
            let start = out.stderr.len();
            out.stderr.push_str(&sub.stderr);
            out.interleave
                .push((out.stdout.len(), start, out.stderr.len()));
        }
        let mut text = sub.stdout;
        while text.ends_with('\n') {
            text.pop();
        }
        if text.len() > MAX_VALUE_BYTES {
            return Err(word_too_long());
        }
        Ok(text)
    }
}

fn param(session: &Session, name: &str) -> String {
    match name {
        "?" => session.shell.last_status.to_string(),
        "#" => "0".to_string(),
        "0" => "bash".to_string(),
        "$" => "1".to_string(),
        _ => session.shell.get(name).unwrap_or("").to_string(),
    }
}

/// `${X#p}`, `${X##p}`, `${X%p}`, `${X%%p}`: the value without its shortest or
/// longest prefix (suffix) that the pattern matches. Every prefix is matched in one
/// pass over the value (the suffixes: the reversed pattern over the reversed value),
/// so the work is the value's length times the pattern's.
fn trim(value: &str, op: &str, pattern: &str) -> String {
    let chars: Vec<char> = value.chars().collect();
    let from_end = op.starts_with('%');
    let mut text = chars.clone();
    let mut pat: Vec<char> = pattern.chars().collect();
    if from_end {
        text.reverse();
        pat.reverse();
    }
    let matches = prefix_matches(&pat, &text);
    let lengths = (0..matches.len()).filter(|&k| matches[k]);
    let found = if op.len() == 1 {
        lengths.min()
    } else {
        lengths.max()
    };
    match found {
        None => value.to_string(),
        Some(k) if from_end => chars[..chars.len() - k].iter().collect(),
        Some(k) => chars[k..].iter().collect(),
    }
}

/// For each `k` from 0 to the text's length, whether `text[..k]` matches the
/// pattern (literal characters, `*` and `?`): the set of pattern positions that
/// the text read so far can reach, advanced one character at a time.
fn prefix_matches(pattern: &[char], text: &[char]) -> Vec<bool> {
    let m = pattern.len();
    // A `*` may match nothing: reaching it reaches the position after it.
    let close = |states: &mut Vec<bool>| {
        for j in 0..m {
            if states[j] && pattern[j] == '*' {
                states[j + 1] = true;
            }
        }
    };
    let mut states = vec![false; m + 1];
    states[0] = true;
    close(&mut states);
    let mut out = Vec::with_capacity(text.len() + 1);
    out.push(states[m]);
    let mut next = vec![false; m + 1];
    for (i, &c) in text.iter().enumerate() {
        next.fill(false);
        let mut alive = false;
        for j in 0..m {
            if !states[j] {
                continue;
            }
            match pattern[j] {
                '*' => next[j] = true,
                '?' => next[j + 1] = true,
                p if p == c => next[j + 1] = true,
                _ => continue,
            }
            alive = true;
        }
        if !alive {
            // Nothing can match any longer prefix.
            out.resize(text.len() + 1, false);
            debug_assert!(out.len() == text.len() + 1 && i < text.len());
            return out;
        }
        close(&mut next);
        std::mem::swap(&mut states, &mut next);
        out.push(states[m]);
    }
    out
}

fn status_error(message: impl AsRef<str>, code: i32) -> CommandOutput {
    let mut out = CommandOutput::error(message);
    out.code = code;
    out
}

/// Applies `>/dev/null`, `2>&1` and the like to what a command printed.
fn apply_redirects(
    res: &mut CommandOutput,
    redirects: &[(RedirectOp, String)],
) -> Result<(), String> {
    for (op, target) in redirects {
        match (op, target.as_str()) {
            (RedirectOp::Out(1), "/dev/null") => res.stdout.clear(),
            (RedirectOp::Out(2), "/dev/null") => {
                res.stderr.clear();
                res.interleave.clear();
            }
            (RedirectOp::Both, "/dev/null") => {
                res.stdout.clear();
                res.stderr.clear();
                res.interleave.clear();
            }
            (RedirectOp::Dup(2), "1") => {
                // stderr joins stdout where it was written.
                res.stdout = res.combined();
                res.stderr.clear();
                res.interleave.clear();
            }
            (RedirectOp::Dup(1), "2") => {
                let text = res.combined();
                res.stdout.clear();
                res.stderr.clear();
                res.interleave.clear();
                if !text.is_empty() {
                    res.err_line(text);
                }
            }
            (RedirectOp::Dup(a), b) if b == a.to_string() => {}
            (RedirectOp::HereDoc | RedirectOp::HereString, _) => {}
            (RedirectOp::In, t) => {
                return Err(format!(
                    "bash: {t}: reading files is not supported in this simulated shell"
                ))
            }
            (_, t) => {
                return Err(format!(
                    "bash: {t}: writing files is not supported in this simulated shell; only /dev/null, 2>&1 and >&2 are"
                ))
            }
        }
    }
    Ok(())
}

/// A pipe's reader over the text: `grep`, `head`, `tail` (also `-n +N`), `wc -l`,
/// `sort` (`-r`, `-n`, `-u`), `uniq` (`-c`), and `awk '{print $N, ...}'`
/// (optionally `NR>1`).
fn filter(words: &[String], text: &str) -> Result<(String, i32), String> {
    let Some((program, args)) = words.split_first() else {
        return Ok((text.to_string(), 0));
    };
    let lines: Vec<&str> = text.lines().collect();
    match program.as_str() {
        "grep" => filter_grep(args, &lines),
        "head" => {
            let n = line_count(program, args)?;
            Ok((join_lines(&lines[..n.min(lines.len())]), 0))
        }
        // `tail -n +N`: from line N on (skips a header with +2).
        "tail"
            if args
                .iter()
                .any(|a| a.starts_with('+') || a.starts_with("-n+")) =>
        {
            let from = args
                .iter()
                .find_map(|a| a.trim_start_matches("-n").strip_prefix('+'))
                .and_then(|v| v.parse::<usize>().ok())
                .ok_or_else(|| "tail: invalid number of lines".to_string())?;
            Ok((
                join_lines(&lines[from.saturating_sub(1).min(lines.len())..]),
                0,
            ))
        }
        "tail" => {
            let n = line_count(program, args)?;
            Ok((join_lines(&lines[lines.len().saturating_sub(n)..]), 0))
        }
        "sort" => filter_sort(args, &lines),
        "uniq" => filter_uniq(args, &lines),
        "awk" => filter_awk(args, &lines),
        "wc" if args.len() == 1 && args[0] == "-l" => Ok((format!("{}\n", lines.len()), 0)),
        "wc" => Err("wc: only wc -l is simulated".to_string()),
        other => Err(format!("bash: {other}: command not found")),
    }
}

/// Lines joined back into text, each ending in a newline.
fn join_lines(ls: &[&str]) -> String {
    let mut s = String::new();
    for l in ls {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// `head`'s and `tail`'s line count: `-n N`, `-nN` or `-N` (10 when not given).
fn line_count(program: &str, args: &[String]) -> Result<usize, String> {
    let mut n = 10;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = if a == "-n" {
            it.next().cloned()
        } else if let Some(v) = a.strip_prefix("-n") {
            Some(v.to_string())
        } else if let Some(v) = a.strip_prefix('-') {
            Some(v.to_string())
        } else {
            return Err(format!(
                "bash: {program}: files are not supported in this simulated shell"
            ));
        };
        n = value
            .as_deref()
            .and_then(|v| v.parse::<usize>().ok())
            .ok_or_else(|| {
                format!(
                    "{program}: invalid number of lines: '{}'",
                    value.clone().unwrap_or_default()
                )
            })?;
    }
    Ok(n)
}

/// `grep [-v] [-i] [-c] PATTERN` over the lines: a fixed string, not a regexp.
fn filter_grep(args: &[String], lines: &[&str]) -> Result<(String, i32), String> {
    let (mut invert, mut ignore_case, mut count_only) = (false, false, false);
    // GNU grep's syntaxes: basic (the default), extended (-E), fixed strings (-F).
    let mut syntax = 'G';
    let mut pattern = None;
    for a in args {
        match a.as_str() {
            s if s.starts_with('-') && s.len() > 1 && pattern.is_none() => {
                for c in s[1..].chars() {
                    match c {
                        'v' => invert = true,
                        'i' => ignore_case = true,
                        'c' => count_only = true,
                        'F' | 'E' | 'G' => syntax = c,
                        other => return Err(format!("grep: invalid option -- '{other}'")),
                    }
                }
            }
            s if pattern.is_none() => pattern = Some(s.to_string()),
            _ => return Err("bash: grep: files are not supported in this simulated shell".into()),
        }
    }
    let Some(pattern) = pattern else {
        return Err("Usage: grep [OPTION]... PATTERNS [FILE]...".into());
    };
    let source = match syntax {
        'F' => regex_lite::escape(&pattern),
        'E' => pattern.clone(),
        _ => basic_to_extended(&pattern),
    };
    let source = if ignore_case {
        format!("(?i){source}")
    } else {
        source
    };
    let re = regex_lite::Regex::new(&source)
        .map_err(|_| format!("grep: Invalid regular expression: {pattern}"))?;
    let picked: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| re.is_match(l) != invert)
        .collect();
    let status = if picked.is_empty() { 1 } else { 0 };
    if count_only {
        return Ok((format!("{}\n", picked.len()), status));
    }
    Ok((join_lines(&picked), status))
}

/// A POSIX basic regular expression as GNU grep reads it, written as an extended
/// one: `|`, `+`, `?`, `(`, `)`, `{` and `}` are plain characters unless escaped
/// (`\|`, `\+`, ... are the operators).
fn basic_to_extended(pattern: &str) -> String {
    let mut out = String::new();
    let mut chars = pattern.chars().peekable();
    // A leading `*` repeats nothing: it is a plain star.
    if chars.peek() == Some(&'*') {
        chars.next();
        out.push_str("\\*");
    }
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(op @ ('|' | '+' | '?' | '(' | ')' | '{' | '}')) => out.push(op),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push_str("\\\\"),
            },
            '|' | '+' | '?' | '(' | ')' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod grep_tests {
    use super::{basic_to_extended, filter_grep};

    fn grep(args: &[&str], lines: &[&str]) -> String {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        filter_grep(&args, lines)
            .map(|(out, _)| out)
            .unwrap_or_else(|e| e)
    }

    #[test]
    fn grep_reads_basic_extended_and_fixed_patterns() {
        let lines = [
            "web-1 Running",
            "web-2 Pending",
            "db|x 1+1",
            "Web-3 Running",
        ];
        assert_eq!(grep(&["-E", "Running|Pending"], &lines).lines().count(), 3);
        // In a basic pattern `|` and `+` are plain characters; `\|` alternates.
        assert_eq!(grep(&["db|x"], &lines), "db|x 1+1\n");
        assert_eq!(grep(&["1+1"], &lines), "db|x 1+1\n");
        assert_eq!(grep(&["Running\\|Pending"], &lines).lines().count(), 3);
        assert_eq!(grep(&["^web-[12]"], &lines).lines().count(), 2);
        assert_eq!(grep(&["-F", "db|x"], &lines), "db|x 1+1\n");
        assert_eq!(grep(&["-ic", "web"], &lines), "3\n");
        assert_eq!(
            grep(&["-E", "("], &lines),
            "grep: Invalid regular expression: ("
        );
        assert_eq!(basic_to_extended("*a"), "\\*a");
    }
}

/// `sort [-r] [-n] [-u]` of the lines.
fn filter_sort(args: &[String], lines: &[&str]) -> Result<(String, i32), String> {
    let (mut reverse, mut numeric, mut unique) = (false, false, false);
    for a in args {
        match a.strip_prefix('-') {
            Some(flags) if !flags.is_empty() => {
                for c in flags.chars() {
                    match c {
                        'r' => reverse = true,
                        'n' => numeric = true,
                        'u' => unique = true,
                        other => return Err(format!("sort: invalid option -- '{other}'")),
                    }
                }
            }
            _ => return Err("bash: sort: files are not supported in this simulated shell".into()),
        }
    }
    let mut sorted = lines.to_vec();
    if numeric {
        let key = |l: &str| -> f64 {
            let t = l.trim_start();
            let end = t
                .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
                .unwrap_or(t.len());
            t[..end].parse::<f64>().unwrap_or(0.0)
        };
        sorted.stable_sort_by(|a, b| key(a).total_cmp(&key(b)).then_with(|| a.cmp(b)));
    } else {
        sorted.stable_sort();
    }
    if unique {
        sorted.dedup();
    }
    if reverse {
        sorted.reverse();
    }
    Ok((join_lines(&sorted), 0))
}

/// `uniq [-c]`: runs of equal lines as one (with their counts).
fn filter_uniq(args: &[String], lines: &[&str]) -> Result<(String, i32), String> {
    let counts = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => false,
        ["-c"] => true,
        _ => return Err("uniq: only uniq and uniq -c are simulated".into()),
    };
    let mut groups: Vec<(usize, &str)> = Vec::new();
    for l in lines {
        match groups.last_mut() {
            Some((n, prev)) if prev == l => *n += 1,
            _ => groups.push((1, l)),
        }
    }
    let mut text = String::new();
    for (n, l) in &groups {
        if counts {
            text.push_str(&format!("{n:>7} "));
        }
        text.push_str(l);
        text.push('\n');
        if text.len() > MAX_PIPE_BYTES {
            return Err(pipe_full("uniq"));
        }
    }
    Ok((text, 0))
}

/// `awk '{print $1}'` and `awk 'NR>1 {print $1, $3}'`: columns split at blanks.
fn filter_awk(args: &[String], lines: &[&str]) -> Result<(String, i32), String> {
    let unsupported = || "awk: only awk '{print $N, ...}' is simulated".to_string();
    let [program] = args else {
        return Err(unsupported());
    };
    let program = program.trim();
    let (skip_header, body) = match program.strip_prefix("NR>1") {
        Some(rest) => (true, rest.trim()),
        None => (false, program),
    };
    let fields: Vec<usize> = body
        .strip_prefix('{')
        .and_then(|b| b.strip_suffix('}'))
        .and_then(|b| b.trim().strip_prefix("print"))
        .and_then(|b| {
            b.split(',')
                .map(|f| f.trim().strip_prefix('$').and_then(|n| n.parse().ok()))
                .collect::<Option<Vec<usize>>>()
        })
        .ok_or_else(unsupported)?;
    let mut text = String::new();
    for l in lines.iter().skip(usize::from(skip_header)) {
        let cols: Vec<&str> = l.split_whitespace().collect();
        let picked: Vec<&str> = fields
            .iter()
            .map(|&n| match n {
                0 => *l,
                n => cols.get(n - 1).copied().unwrap_or(""),
            })
            .collect();
        for (i, p) in picked.iter().enumerate() {
            if i > 0 {
                text.push(' ');
            }
            text.push_str(p);
            if text.len() > MAX_PIPE_BYTES {
                return Err(pipe_full("awk"));
            }
        }
        text.push('\n');
    }
    Ok((text, 0))
}

/// `cat [FILE]...`: files from the [`FileSource`], or stdin (`-` or no file).
fn cat(args: &[String], stdin: Option<&str>, files: &dyn FileSource) -> CommandOutput {
    let mut out = CommandOutput::new();
    let names: Vec<&str> = if args.is_empty() {
        vec!["-"]
    } else {
        args.iter().map(String::as_str).collect()
    };
    for name in names {
        if name == "-" {
            match stdin {
                Some(text) => out.stdout.push_str(text),
                None => {
                    out.fail("cat: reading the terminal is not simulated; give a file or pipe text into cat");
                }
            }
            continue;
        }
        match files.read(name) {
            Ok(text) => out.stdout.push_str(&text),
            Err(_) => out.fail(format!("cat: {name}: No such file or directory")),
        }
    }
    out
}

/// bash's `echo`: `-n` (no newline), `-e` (backslash escapes), `-E`.
fn echo(args: &[String]) -> CommandOutput {
    let mut newline = true;
    let mut escapes = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let Some(flags) = a.strip_prefix('-') else {
            break;
        };
        if flags.is_empty() || !flags.chars().all(|c| matches!(c, 'n' | 'e' | 'E')) {
            break;
        }
        for c in flags.chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        i += 1;
    }
    let mut text = args[i..].join(" ");
    if escapes {
        let (t, stop) = unescape(&text);
        text = t;
        if stop {
            newline = false;
        }
    }
    if newline {
        text.push('\n');
    }
    CommandOutput {
        stdout: text,
        ..CommandOutput::default()
    }
}

/// `echo -e` escapes; `true` when `\c` stopped the output.
fn unescape(s: &str) -> (String, bool) {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
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
            Some('e') | Some('E') => out.push('\u{1b}'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some('\\') => out.push('\\'),
            Some('c') => return (out, true),
            Some('0') => {
                let mut v = 0u32;
                for _ in 0..3 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
            }
            Some('x') => {
                let mut v = 0u32;
                let mut digits = 0;
                while digits < 2 {
                    match chars.peek().and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            v = v * 16 + d;
                            chars.next();
                            digits += 1;
                        }
                        None => break,
                    }
                }
                if digits == 0 {
                    out.push_str("\\x");
                } else {
                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    (out, false)
}

/// bash's `export`.
fn export(session: &mut Session, args: &[String]) -> CommandOutput {
    let mut out = CommandOutput::new();
    let mut exported = true;
    let mut names = Vec::new();
    let mut options_done = false;
    for a in args {
        if !options_done && a.starts_with('-') && a.len() > 1 {
            if a == "--" {
                options_done = true;
                continue;
            }
            for c in a[1..].chars() {
                match c {
                    'n' => exported = false,
                    'p' | 'f' => {}
                    other => {
                        let mut err =
                            status_error(format!("bash: export: -{other}: invalid option"), 2);
                        err.err_line("export: usage: export [-fn] [name[=value] ...] or export -p");
                        return err;
                    }
                }
            }
            continue;
        }
        options_done = true;
        names.push(a);
    }
    if names.is_empty() {
        if exported {
            for (name, v) in &session.shell.vars {
                if !v.exported {
                    continue;
                }
                match &v.value {
                    Some(value) => {
                        out.out_line(format!("declare -x {name}=\"{}\"", declare_escape(value)))
                    }
                    None => out.out_line(format!("declare -x {name}")),
                }
            }
        }
        return out;
    }
    for a in names {
        let (name, value) = match a.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (a.as_str(), None),
        };
        if !is_name(name) {
            out.fail(format!("bash: export: `{a}': not a valid identifier"));
            continue;
        }
        if let Some(v) = &value {
            if let Err(message) = session.shell.room_for(&[(name, v)]) {
                out.fail(message);
                continue;
            }
        }
        session.shell.export(name, value, Some(exported));
    }
    out
}

/// Inside `declare -x NAME="..."`: `"`, `\`, `$` and backquotes escaped.
fn declare_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// bash's `unset` (variables; `-v` and `-f` accepted).
fn unset(session: &mut Session, args: &[String]) -> CommandOutput {
    let mut out = CommandOutput::new();
    for a in args {
        if a == "-v" || a == "-f" {
            continue;
        }
        if !is_name(a) {
            out.fail(format!("bash: unset: `{a}': not a valid identifier"));
            continue;
        }
        session.shell.unset(a);
    }
    out
}

/// bash's `alias`: `alias NAME=VALUE` defines, `alias [NAME]` prints `alias
/// NAME='VALUE'`. Simplified: the value is split into words like a command line
/// when used, and only the first word of a command is looked up.
fn alias(session: &mut Session, args: &[String]) -> CommandOutput {
    let mut out = CommandOutput::new();
    let print = |out: &mut CommandOutput, name: &str, value: &str| {
        out.out_line(format!("alias {name}='{}'", value.replace('\'', "'\\''")));
    };
    if args.is_empty() || args == ["-p"] {
        for (name, value) in &session.shell.aliases {
            print(&mut out, name, value);
        }
        return out;
    }
    for a in args {
        match a.split_once('=') {
            Some((name, value))
                if !name.is_empty() && !name.contains(['/', '$', '`', '\'', '"']) =>
            {
                if let Err(message) = session.shell.set_alias(name, value) {
                    out.fail(message);
                }
            }
            Some(_) => out.fail(format!("bash: alias: `{a}': invalid alias name")),
            None => match session.shell.aliases.get(a.as_str()) {
                Some(value) => print(&mut out, a, value),
                None => out.fail(format!("bash: alias: {a}: not found")),
            },
        }
    }
    out
}

/// bash's `unalias NAME...` (`-a`: all).
fn unalias(session: &mut Session, args: &[String]) -> CommandOutput {
    let mut out = CommandOutput::new();
    if args.is_empty() {
        out.fail("unalias: usage: unalias [-a] name [name ...]");
        out.code = 2;
        return out;
    }
    for a in args {
        if a == "-a" {
            let names: Vec<String> = session.shell.aliases.keys().cloned().collect();
            for name in names {
                session.shell.unset_alias(&name);
            }
        } else if !session.shell.unset_alias(a) {
            out.fail(format!("bash: unalias: {a}: not found"));
        }
    }
    out
}

/// `sleep DURATION`: the learner waits, so simulated time passes.
fn sleep(session: &mut Session, args: &[String]) -> CommandOutput {
    let [d] = args else {
        return status_error(
            "sleep: missing operand\nTry 'sleep --help' for more information.",
            1,
        );
    };
    let text = if d.chars().all(|c| c.is_ascii_digit()) {
        format!("{d}s")
    } else {
        d.clone()
    };
    match warehouse_sim::parse_duration(&text) {
        Ok(duration) => {
            session.cluster.advance(duration);
            CommandOutput::new()
        }
        Err(_) => status_error(
            format!("sleep: invalid time interval '{d}'\nTry 'sleep --help' for more information."),
            1,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warehouse_sim::{Cluster, Topology};

    fn session() -> Session {
        Session::new(Cluster::new(1, Topology::default()))
    }

    fn sh(s: &mut Session, line: &str) -> CommandOutput {
        run_line(s, line, None, &crate::context::NoFiles)
    }

    fn text(s: &mut Session, line: &str) -> String {
        sh(s, line).combined()
    }

    #[test]
    fn variables_expand_at_execution_and_survive_between_lines() {
        let mut s = session();
        assert_eq!(text(&mut s, "X=hello"), "");
        assert_eq!(
            text(&mut s, "echo $X ${X} \"$X\" '$X'"),
            "hello hello hello $X\n"
        );
        assert_eq!(
            text(&mut s, "export Y=\"a  b\"; echo $Y; echo \"$Y\""),
            "a b\na  b\n"
        );
        assert_eq!(text(&mut s, "unset X; echo [$X]"), "[]\n");
        assert_eq!(s.shell.get("Y"), Some("a  b"));
    }

    #[test]
    fn command_substitution_trims_newlines_and_declarations_do_not_split() {
        let mut s = session();
        assert_eq!(text(&mut s, "export A=$(echo a b; echo)"), "");
        assert_eq!(s.shell.get("A"), Some("a b"));
        assert_eq!(text(&mut s, "echo \"[$(echo x)]\" `echo y`"), "[x] y\n");
        assert_eq!(text(&mut s, "echo $(X=1; echo $X)$X"), "1\n");
        assert_eq!(text(&mut s, "export"), "declare -x A=\"a b\"\n");
    }

    #[test]
    fn word_splitting_follows_bash() {
        let mut s = session();
        sh(&mut s, "V=' a  b '");
        assert_eq!(text(&mut s, "echo x${V}y"), "x a b y\n");
        assert_eq!(text(&mut s, "echo \"x${V}y\""), "x a  b y\n");
        sh(&mut s, "E=");
        // An empty unquoted expansion vanishes, "" stays an (empty) argument.
        assert_eq!(text(&mut s, "echo a $E b \"\" c"), "a b  c\n");
        assert_eq!(
            text(&mut s, "echo ${#V} ${NOPE:-d} ${E:-e} ${E-f}"),
            "6 d e\n"
        );
    }

    #[test]
    fn lists_follow_exit_statuses() {
        let mut s = session();
        assert_eq!(text(&mut s, "true && echo a || echo b"), "a\n");
        assert_eq!(text(&mut s, "false && echo a || echo b"), "b\n");
        assert_eq!(text(&mut s, "false; echo $?; echo $?"), "1\n0\n");
        assert_eq!(sh(&mut s, "false").code, 1);
    }

    #[test]
    fn echo_options() {
        let mut s = session();
        assert_eq!(text(&mut s, "echo -n a"), "a");
        assert_eq!(text(&mut s, "echo -e 'a\\tb\\c' more"), "a\tb");
        assert_eq!(text(&mut s, "echo 'a\\tb' -n"), "a\\tb -n\n");
        assert_eq!(text(&mut s, "echo -nx"), "-nx\n");
        assert_eq!(text(&mut s, "echo -e '\\x41\\x' '\\0101'"), "A\\x A\n");
    }

    #[test]
    fn syntax_errors_read_like_interactive_bash() {
        let mut s = session();
        for (line, msg) in [
            (
                "echo \"abc",
                "bash: unexpected EOF while looking for matching `\"'\n",
            ),
            (
                "echo 'abc",
                "bash: unexpected EOF while looking for matching `''\n",
            ),
            (
                "echo $(ls",
                "bash: unexpected EOF while looking for matching `)'\n",
            ),
            (
                "echo `ls",
                "bash: unexpected EOF while looking for matching ``'\n",
            ),
            (
                "echo ${X",
                "bash: unexpected EOF while looking for matching `}'\n",
            ),
            ("&& ls", "bash: syntax error near unexpected token `&&'\n"),
            ("ls &&", "bash: syntax error: unexpected end of file\n"),
            (
                "echo a ;; b",
                "bash: syntax error near unexpected token `;;'\n",
            ),
            ("echo )", "bash: syntax error near unexpected token `)'\n"),
            (
                "echo >",
                "bash: syntax error near unexpected token `newline'\n",
            ),
            (
                "echo (",
                "bash: syntax error near unexpected token `newline'\n",
            ),
            ("echo (b)", "bash: syntax error near unexpected token `b'\n"),
            (
                "echo a (b)",
                "bash: syntax error near unexpected token `('\n",
            ),
            ("| ls", "bash: syntax error near unexpected token `|'\n"),
            ("ls ; ;", "bash: syntax error near unexpected token `;'\n"),
            (";", "bash: syntax error near unexpected token `;'\n"),
            ("&", "bash: syntax error near unexpected token `&'\n"),
            (
                "echo a &&& b",
                "bash: syntax error near unexpected token `&'\n",
            ),
            (
                "echo 2>",
                "bash: syntax error near unexpected token `newline'\n",
            ),
            (
                "echo a || || b",
                "bash: syntax error near unexpected token `||'\n",
            ),
        ] {
            let out = sh(&mut s, line);
            assert_eq!(out.combined(), msg, "{line}");
            assert_eq!(out.code, 2, "{line}");
        }
        assert_eq!(text(&mut s, "echo ${%}"), "bash: ${%}: bad substitution\n");
    }

    #[test]
    fn unknown_programs_are_not_found() {
        let mut s = session();
        let out = sh(&mut s, "foo bar");
        assert_eq!(out.combined(), "bash: foo: command not found\n");
        assert_eq!(out.code, 127);
        assert_eq!(text(&mut s, "echo $?"), "127\n");
        assert_eq!(text(&mut s, "1X=2"), "bash: 1X=2: command not found\n");
        assert_eq!(
            text(&mut s, "export 1X=2"),
            "bash: export: `1X=2': not a valid identifier\n"
        );
    }

    #[test]
    fn kubectl_receives_words_without_resplitting() {
        let mut s = session();
        sh(&mut s, "NS=\"kube-system\"");
        let out = sh(&mut s, "kubectl get ns \"$NS\" -o name");
        assert_eq!(out.combined(), "namespace/kube-system\n");
        let out = sh(&mut s, "kubectl get pods -l 'app in (a, b)' -o name");
        assert_eq!(out.code, 0, "{}", out.combined());
    }

    #[test]
    fn redirections_and_pipes() {
        let mut s = session();
        assert_eq!(text(&mut s, "foo 2>/dev/null; echo $?"), "127\n");
        assert_eq!(text(&mut s, "echo a >/dev/null"), "");
        assert_eq!(
            text(&mut s, "X=$(foo 2>&1); echo \"$X\""),
            "bash: foo: command not found\n"
        );
        assert_eq!(text(&mut s, "echo -e 'a\\nb\\nc' | grep b"), "b\n");
        assert_eq!(
            text(&mut s, "echo -e 'a\\nb\\nc' | head -n 2 | wc -l"),
            "2\n"
        );
        assert_eq!(text(&mut s, "echo -e 'a\\nb\\nc' | tail -1"), "c\n");
        assert_eq!(
            text(&mut s, "echo a | tr a b"),
            "bash: tr: command not found\n"
        );
        assert_eq!(
            text(&mut s, "echo -e 'b 2\\na 10\\nb 2' | sort -n -r | uniq -c"),
            "      2 b 2\n      1 a 10\n"
        );
        assert_eq!(
            text(
                &mut s,
                "echo -e 'NAME AGE\\nweb 1m\\ndb 2m' | awk 'NR>1 {print $2, $1}'"
            ),
            "1m web\n2m db\n"
        );
        assert_eq!(text(&mut s, "echo -e 'h\\na\\nb' | tail -n +2"), "a\nb\n");
        assert_eq!(
            text(&mut s, "echo -e '10\\n9\\n100' | sort -n"),
            "9\n10\n100\n"
        );
        // Any command reads a pipe: kubectl apply -f - gets the YAML.
        let yaml = "apiVersion: v1\\nkind: Namespace\\nmetadata:\\n  name: piped";
        assert_eq!(
            text(&mut s, &format!("echo -e '{yaml}' | kubectl apply -f -")),
            "namespace/piped created\n"
        );
        assert_eq!(
            text(
                &mut s,
                "kubectl get ns piped -o yaml | kubectl delete -f - | cat"
            ),
            "namespace \"piped\" deleted\n"
        );
        assert_eq!(text(&mut s, "grep -c a <<< 'a b'"), "1\n");
        assert!(text(&mut s, "echo a > out.txt").contains("writing files is not supported"));
        // The command does not run when its redirection cannot be made.
        assert!(!text(&mut s, "X=1 kubectl create namespace n1 > f").contains("created"));
        assert!(text(&mut s, "kubectl get namespace n1").contains("NotFound"));
    }

    #[test]
    fn here_documents_feed_the_command_that_names_them() {
        let mut s = session();
        let body = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: here\n";
        let out = run_line(
            &mut s,
            "cat <<EOF | kubectl apply -f -",
            Some(body),
            &crate::context::NoFiles,
        );
        assert_eq!(out.combined(), "namespace/here created\n");
        let out = run_line(
            &mut s,
            "cat <<'EOF'",
            Some("a $X\n"),
            &crate::context::NoFiles,
        );
        assert_eq!(out.combined(), "a $X\n");
        // In the terminal there are no following lines to read.
        assert!(text(&mut s, "cat <<EOF").contains("work in scripts"));
    }

    #[test]
    fn aliases_replace_a_plain_command_name() {
        let mut s = session();
        assert_eq!(text(&mut s, "alias k=kubectl kns='kubectl get ns'"), "");
        assert_eq!(
            text(&mut s, "k get ns kube-system -o name"),
            "namespace/kube-system\n"
        );
        assert_eq!(text(&mut s, "kns default -o name"), "namespace/default\n");
        assert_eq!(
            text(&mut s, "alias"),
            "alias k='kubectl'\nalias kns='kubectl get ns'\n"
        );
        // A quoted name is not looked up.
        assert_eq!(text(&mut s, "'k' get ns"), "bash: k: command not found\n");
        assert_eq!(text(&mut s, "alias nope"), "bash: alias: nope: not found\n");
        assert_eq!(text(&mut s, "unalias k; k"), "bash: k: command not found\n");
    }

    #[test]
    fn the_terminal_may_leave_out_kubectl() {
        assert_eq!(terminal_line(" get pods "), "kubectl get pods");
        assert_eq!(terminal_line("kubectl get pods"), "kubectl get pods");
        assert_eq!(terminal_line("echo $X"), "echo $X");
        assert_eq!(terminal_line("sim advance 1m"), "sim advance 1m");
    }

    /// Runs `f` on a thread with the browser's stack (about 1 MiB).
    fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(f)
            .expect("thread")
            .join()
            .expect("no stack overflow")
    }

    #[test]
    fn carriage_returns_and_unicode_spaces_are_word_characters_as_in_bash() {
        let mut s = session();
        for c in ['\r', '\u{b}', '\u{c}', '\u{a0}', '\u{2028}'] {
            assert_eq!(
                text(&mut s, &format!("echo a{c}b")),
                format!("a{c}b\n"),
                "{c:?}"
            );
            assert_eq!(
                text(&mut s, &format!("echo{c}hi")),
                format!("bash: echo{c}hi: command not found\n"),
                "{c:?}"
            );
            sh(&mut s, &format!("X='a{c}b'"));
            assert_eq!(text(&mut s, "echo $X"), format!("a{c}b\n"), "{c:?}");
        }
    }

    #[test]
    fn doubling_a_variable_line_after_line_stops_at_the_value_limit() {
        let mut s = session();
        sh(&mut s, "x=a");
        let mut failed = None;
        for i in 0..40 {
            let out = sh(&mut s, "x=$x$x");
            if out.code != 0 {
                failed = Some((i, out));
                break;
            }
        }
        let (i, out) = failed.expect("the doubling stops");
        assert_eq!(i, 20, "2^20 bytes fit, 2^21 do not");
        assert_eq!(out.code, 1);
        assert_eq!(
            out.combined(),
            format!("bash: out of memory: a word may hold at most {MAX_VALUE_BYTES} bytes\n")
        );
        // The variable keeps its value: the assignment did not half-apply.
        assert_eq!(s.shell.get("x").map(str::len), Some(1 << 20));
        assert_eq!(sh(&mut s, "export y=$x$x").code, 1);
        assert_eq!(s.shell.get("y"), None);
        assert_eq!(sh(&mut s, "echo $x$x >/dev/null").code, 1);
        // Many words of one command count together.
        assert_eq!(sh(&mut s, "echo $x >/dev/null").code, 0);
        let line = format!("echo{} >/dev/null", " $x".repeat(2));
        assert_eq!(sh(&mut s, &line).code, 1);
        // So does a substitution's output.
        assert_eq!(sh(&mut s, "y=\"$(echo $x; echo $x)\"").code, 1);
    }

    #[test]
    fn all_variables_and_aliases_together_are_bounded() {
        let mut s = session();
        sh(&mut s, "x=a");
        for _ in 0..19 {
            sh(&mut s, "x=$x$x");
        }
        let mut last = CommandOutput::new();
        for i in 0..40 {
            last = sh(&mut s, &format!("v{i}=$x"));
            if last.code != 0 {
                break;
            }
        }
        assert_eq!(
            last.combined(),
            format!("bash: out of memory: the shell's variables and aliases may hold at most {MAX_VARS_BYTES} bytes together\n")
        );
        assert!(s.shell.bytes <= MAX_VARS_BYTES);
        assert_eq!(sh(&mut s, "alias k=$x").code, 1);
        // Unsetting gives the room back.
        for i in 0..40 {
            sh(&mut s, &format!("unset v{i}"));
        }
        assert_eq!(sh(&mut s, "alias k=$x").code, 0);
        assert_eq!(sh(&mut s, "v1=$x").code, 0);
    }

    #[test]
    fn a_line_that_copies_large_values_over_and_over_is_stopped_once() {
        let mut s = session();
        sh(&mut s, "x=a");
        for _ in 0..20 {
            sh(&mut s, "x=$x$x");
        }
        let line = "y=$(echo $x); z=$x;".repeat(100);
        let out = sh(&mut s, &line);
        assert_eq!(out.code, 1);
        assert_eq!(
            out.combined(),
            format!("bash: the line was stopped: it expanded more than {MAX_LINE_WORK_BYTES} bytes of text (this simulated shell's limit for one line)\n")
        );
        // The next line starts afresh.
        assert_eq!(text(&mut s, "echo ${#x}"), "1048576\n");
    }

    #[test]
    fn trimming_a_pattern_from_a_large_value_takes_linear_time() {
        let mut s = session();
        sh(&mut s, "x=ab");
        for _ in 0..17 {
            sh(&mut s, "x=$x$x");
        }
        // No match: every prefix and suffix is tried, each in one pass.
        for op in ["#", "##", "%", "%%"] {
            let out = sh(&mut s, &format!("y=${{x{op}*c*}}; echo ${{#y}}"));
            assert_eq!(out.combined(), format!("{}\n", 1 << 18), "{op}");
        }
        assert_eq!(text(&mut s, "y=${x%%b*}; echo ${y}"), "a\n");
        assert_eq!(text(&mut s, "y=${x##*a}; echo ${y}"), "b\n");
        assert_eq!(
            text(&mut s, "y=${x#a*}; echo ${#y}"),
            format!("{}\n", (1 << 18) - 1)
        );
        assert_eq!(
            text(&mut s, "y=${x%?b}; echo ${#y}"),
            format!("{}\n", (1 << 18) - 2)
        );
        // A long pattern over a large value is work for the line's budget.
        let pattern = "?*".repeat(20_000);
        let out = sh(&mut s, &format!("y=${{x%%{pattern}c}}"));
        assert!(
            out.combined().contains("the line was stopped"),
            "{}",
            out.combined()
        );
    }

    #[test]
    fn pipe_readers_cannot_multiply_their_input_without_bound() {
        let mut s = session();
        sh(&mut s, "x=abcdefgh");
        for _ in 0..14 {
            sh(&mut s, "x=$x$x");
        }
        let program = format!("{{print {}}}", vec!["$0"; 1000].join(","));
        let out = sh(&mut s, &format!("echo $x | awk '{program}'"));
        assert_eq!(out.code, 2, "{}", out.combined());
        assert!(
            out.combined().contains("awk: out of memory"),
            "{}",
            out.combined()
        );
    }

    #[test]
    fn deep_substitutions_run_on_a_small_stack() {
        let ok = on_small_stack(|| {
            let mut s = session();
            let line = format!(
                "echo {}x{}",
                "$(echo ".repeat(MAX_DEPTH),
                ")".repeat(MAX_DEPTH)
            );
            text(&mut s, &line)
        });
        assert_eq!(ok, "x\n");
        let ok = on_small_stack(|| {
            let mut s = session();
            let line = format!(
                "echo \"{}x{}\"",
                "$(echo \"".repeat(MAX_DEPTH),
                "\")".repeat(MAX_DEPTH)
            );
            text(&mut s, &line)
        });
        assert_eq!(ok, "x\n");
        let refused = on_small_stack(|| {
            let mut s = session();
            let line = format!("echo {}x{}", "$(echo ".repeat(5000), ")".repeat(5000));
            sh(&mut s, &line).code
        });
        assert_eq!(refused, 2);
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let mut s = session();
        let line = format!("echo {}x{}", "$(".repeat(200), ")".repeat(200));
        let out = sh(&mut s, &line);
        assert_eq!(out.code, 2);
        assert!(out.combined().contains("nested too deeply"));
    }
}
