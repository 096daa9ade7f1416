//! A small, deterministic POSIX-like shell: what a container's `sh -c '...'` runs.
//!
//! Mirrors the subset of busybox `ash` that the Kubernetes docs' examples use: simple
//! commands, `;`, `&&`, `||`, newlines, variables and `${x}`, `$((i+1))`, `$(cmd)` and
//! backquotes, quotes and backslashes, `while`/`until`, `for`, `if`/`elif`/`else`,
//! `break`, `continue`, and the builtins and applets `echo`, `printf`, `sleep`, `exit`,
//! `true`, `false`, `:`, `date`, `printenv`, `env`, `export`, `unset`, `test`/`[`, `seq`,
//! `hostname`, `cat`, `read`, `tail` (`-n`, `-c`, `-f`: following stops at what the
//! file holds then); output redirections of a simple command
//! (`> FILE`, `>> FILE`, `2>/dev/null`, `>&2`, `2>&1`, applied left to right; stdout
//! and stderr both reach the container's log). Simplified: pipes, input
//! redirections, background jobs, subshells and functions are not simulated; a script
//! using them fails as a syntax error (`sh: syntax error: unexpected "|"`, exit
//! status 2), never a panic.
//!
//! Words are separated by [`is_blank`] characters (space and tab, as in bash and
//! ash); the terminal's shell in warehouse-kubectl lexes with the same definitions.
//! Every construct is bounded, and each limit is a named constant here: nesting
//! ([`MAX_NESTING`]), the size of a value, of a command's arguments and of all
//! variables ([`MAX_VALUE_BYTES`], [`MAX_ARGS_BYTES`], [`MAX_VARS_BYTES`]: past
//! them `sh: out of memory`, exit status 2, as ash says when an allocation fails),
//! the log kept ([`MAX_LINES`], [`MAX_LOG_BYTES`]), the files a script creates
//! ([`MAX_FILES`], [`PATH_MAX`]), and the work of a replay (its budget of steps,
//! with [`BYTES_PER_STEP`]). Arithmetic wraps at 64 bits as bash's does; `seq`
//! stops where the next number would not fit.
//!
//! The shell never runs in real time. [`run`] replays a script from its start up to a
//! horizon (simulated milliseconds since the process started): `sleep` only moves the
//! shell's clock forward. The same script and start time always give the same lines at
//! the same instants, so a container's log is computed when someone asks for it, and
//! only its exit needs a timer.

use crate::sort::CollectMap;
use crate::time::EPOCH_UNIX_MS;
use std::collections::BTreeMap;

/// How a replay ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The script exited with this status after this many ms.
    Exited { at_ms: u64, code: i32 },
    /// The script blocks forever (`sleep infinity`, `tail -f`, `read` from a tty).
    Blocked,
    /// The replay reached the horizon with the script still running.
    Horizon,
    /// The replay ran out of steps at this moment with the script still running (an
    /// endless loop that takes no time, or a long one: replay further to know more).
    Budget { at_ms: u64 },
}

/// One replay: the lines written (ms since start, text) and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    pub lines: Vec<(u64, String)>,
    pub end: End,
    /// The container's files as the script left them (`touch`, `rm`).
    pub files: BTreeMap<String, String>,
}

/// What a program outside the shell printed (stdout and stderr as a terminal shows
/// them) and its exit status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramOutput {
    pub text: String,
    pub status: i32,
}

/// Programs the container's image has besides the shell's applets, run by the
/// cluster (`nslookup`, `wget`, `curl`: they need the network). `None`: not here.
pub trait Programs {
    fn run(&self, argv: &[String], env: &[(String, String)]) -> Option<ProgramOutput>;
}

/// No programs besides the applets (a container's own replay: its network calls are
/// not simulated).
pub struct NoPrograms;

impl Programs for NoPrograms {
    fn run(&self, _: &[String], _: &[(String, String)]) -> Option<ProgramOutput> {
        None
    }
}

/// What a shell needs from its container.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// The container's environment, in order.
    pub env: Vec<(String, String)>,
    /// When the process started, in simulated ms since the cluster started.
    pub started_ms: u64,
    /// `$0` and the positional parameters.
    pub argv0: String,
    pub args: Vec<String>,
    /// The container's files (path → content): `/etc/resolv.conf`, `/etc/hosts`,
    /// ... Directories exist implicitly.
    pub files: BTreeMap<String, String>,
    /// Its configMap and secret volumes, as the kubelet wrote them over time.
    pub mounts: crate::kubelet::runtime::Mounted,
}

/// Blanks: what separates words on a command line. bash (its `whitespace()`) and
/// busybox ash have only space and tab; every other character is an ordinary word
/// character: a carriage return (hence bash's famous `$'\r': command not found` for a
/// script saved with Windows line ends), vertical tab, form feed, the non-breaking
/// space and the line separator (U+2028) that text copied from a web page brings.
/// Both simulated shells (this one and kubectl's terminal) lex with these three
/// definitions.
pub fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// Metacharacters: a blank, a newline, or one of `| & ; ( ) < >`. An unquoted one ends
/// a word.
pub fn is_metachar(c: char) -> bool {
    is_blank(c) || matches!(c, '\n' | '|' | '&' | ';' | '(' | ')' | '<' | '>')
}

/// The default `IFS` whitespace that splits unquoted expansions into fields: space,
/// tab and newline.
pub fn is_ifs_whitespace(c: char) -> bool {
    is_blank(c) || c == '\n'
}

/// The most log lines a replay keeps (the oldest are dropped, as a rotated log).
pub const MAX_LINES: usize = 10_000;

/// The most bytes one value may hold: a variable, a word after expansion, the
/// output of one `$(...)`, one log line.
/// Past it the shell stops as busybox ash does when an allocation fails
/// (`sh: out of memory`, exit status 2).
pub const MAX_VALUE_BYTES: usize = 1 << 20;

/// The most bytes the arguments of one command may hold together: Linux's
/// `ARG_MAX` with the default 8 MiB stack. Past it, `sh: out of memory`.
pub const MAX_ARGS_BYTES: usize = 2 << 20;

/// The most bytes all of a shell's variables (names and values) hold together; past
/// it, `sh: out of memory` as for [`MAX_VALUE_BYTES`].
pub const MAX_VARS_BYTES: usize = 16 << 20;

/// The most bytes of log a replay keeps: the kubelet's default `containerLogMaxSize`
/// (10 MiB); the oldest lines are dropped, as a rotated log.
pub const MAX_LOG_BYTES: usize = 10 << 20;

/// How deeply command lists may nest (the bodies of `if`, `while`, `for`, `$(...)`
/// and backquotes), together with the parentheses of an arithmetic expansion
/// inside them: deeper is `sh: syntax error: nested too deeply` or `sh: expression
/// recursion level exceeded`, so that neither parsing nor running can overflow
/// the browser's stack (about 1 MiB). Measured: a level of `$(...)` takes some 12
/// KiB of stack in a debug build, so 64 levels fit in 1 MiB with room to spare.
pub const MAX_NESTING: usize = 64;

/// The most files a container's shell may have (`touch`); past it, `touch: PATH: No
/// space left on device`, as a full disk answers.
pub const MAX_FILES: usize = 1_000;

/// Linux's `PATH_MAX`: a longer path is `File name too long`.
pub const PATH_MAX: usize = 4096;

/// Work is counted in steps (the `budget` of [`run`]): one per command, loop turn
/// or `for` item, and one per this many bytes a command expands, copies or writes,
/// so a loop over large values runs out of budget as soon as a loop of small ones.
pub const BYTES_PER_STEP: usize = 64;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Lit(String),
    /// A literal that came from quotes: never split.
    Quoted(String),
    Var {
        name: String,
        quoted: bool,
    },
    Arith(String),
    Subst {
        script: Node,
        quoted: bool,
    },
}

type Word = Vec<Part>;

/// An output redirection of a simple command: file descriptor 1 or 2 to a file
/// (truncated, or appended to with `>>`; `/dev/null` discards), or to where another
/// descriptor points now (`2>&1`, `>&2`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Redirect {
    File { fd: u8, append: bool, target: Word },
    Dup { fd: u8, to: u8 },
}

/// Where the shell's and the commands' error output goes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum ErrRoute {
    /// Standard error: the log, whatever `$(...)` is capturing.
    #[default]
    Stderr,
    /// Discarded (`2>/dev/null`).
    Drop,
    /// Into the output at this capture level (0: the log), as stdout there
    /// (`2>&1`, `cmd > FILE 2>&1`).
    Level(usize),
    /// Kept for a file (`2> FILE`).
    Buffer,
}

/// Where a descriptor's output goes while a command runs.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Sink {
    Stdout,
    Stderr,
    Null,
    File { path: String, append: bool },
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    Simple {
        assigns: Vec<(String, Word)>,
        words: Vec<Word>,
        redirects: Vec<Redirect>,
    },
    Seq(Vec<Node>),
    /// `a && b || c`: the first pipeline, then each next one with its operator
    /// (`true` for `&&`); a flat list, so that a long chain needs no deep stack.
    AndOr(Box<Node>, Vec<(bool, Node)>),
    Not(Box<Node>),
    Loop {
        until: bool,
        cond: Box<Node>,
        body: Box<Node>,
    },
    For {
        var: String,
        items: Option<Vec<Word>>,
        body: Box<Node>,
    },
    If {
        branches: Vec<(Node, Node)>,
        otherwise: Option<Box<Node>>,
    },
}

/// Parses `script`; the error is the line a shell prints.
fn parse(script: &str) -> Result<Node, String> {
    parse_nested(script, 0)
}

/// Parses `script` found `depth` levels deep (inside backquotes).
fn parse_nested(script: &str, depth: usize) -> Result<Node, String> {
    let mut p = Parser {
        chars: script.chars().collect(),
        pos: 0,
        depth,
    };
    let node = p.list(&[])?;
    p.skip_space(true);
    if p.pos < p.chars.len() {
        return Err(p.unexpected());
    }
    Ok(node)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

const RESERVED_ENDS: [&str; 6] = ["do", "done", "then", "fi", "elif", "else"];

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn skip_space(&mut self, newlines: bool) {
        while let Some(c) = self.peek() {
            if is_blank(c) || (newlines && c == '\n') {
                self.pos += 1;
            } else if c == '\\' && self.chars.get(self.pos + 1) == Some(&'\n') {
                self.pos += 2;
            } else if c == '#' {
                while self.peek().is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    fn unexpected(&self) -> String {
        let rest: String = self.chars[self.pos.min(self.chars.len())..]
            .iter()
            .collect();
        let token = if rest.starts_with("&&") || rest.starts_with("||") || rest.starts_with(";;") {
            rest[..2].to_string()
        } else if rest.is_empty() {
            return "sh: syntax error: unexpected end of file".into();
        } else if rest.starts_with(|c: char| "|&;<>()\n".contains(c)) {
            let c = rest.chars().next().unwrap_or(' ');
            if c == '\n' {
                "newline".into()
            } else {
                c.to_string()
            }
        } else {
            rest.split(is_metachar).next().unwrap_or("").to_string()
        };
        format!("sh: syntax error: unexpected \"{token}\"")
    }

    /// The unquoted word at the cursor, if it is a plain literal (for reserved words).
    fn peek_plain_word(&self) -> Option<String> {
        let mut i = self.pos;
        let mut s = String::new();
        while let Some(&c) = self.chars.get(i) {
            if is_metachar(c) {
                break;
            }
            if "'\"\\$`".contains(c) {
                return None;
            }
            s.push(c);
            i += 1;
        }
        (!s.is_empty()).then_some(s)
    }

    fn eat_word(&mut self, w: &str) -> bool {
        self.skip_space(true);
        if self.peek_plain_word().as_deref() == Some(w) {
            self.pos += w.chars().count();
            true
        } else {
            false
        }
    }

    fn expect_word(&mut self, w: &str) -> Result<(), String> {
        if self.eat_word(w) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    /// A list of and-or lists up to one of `ends` (a reserved word), `)` or the end.
    fn list(&mut self, ends: &[&str]) -> Result<Node, String> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err("sh: syntax error: nested too deeply".into());
        }
        let mut items = Vec::new();
        loop {
            // Separators between commands.
            loop {
                self.skip_space(true);
                match self.peek() {
                    Some('\n') => self.pos += 1,
                    Some(';')
                        if !items.is_empty() && self.chars.get(self.pos + 1) != Some(&';') =>
                    {
                        self.pos += 1
                    }
                    _ => break,
                }
            }
            match self.peek() {
                None | Some(')') => break,
                _ => {}
            }
            if let Some(w) = self.peek_plain_word() {
                if ends.contains(&w.as_str()) {
                    break;
                }
                if RESERVED_ENDS.contains(&w.as_str()) {
                    return Err(format!("sh: syntax error: unexpected \"{w}\""));
                }
            }
            items.push(self.and_or()?);
            self.skip_space(false);
            match self.peek() {
                Some(';') if self.chars.get(self.pos + 1) != Some(&';') => self.pos += 1,
                Some('\n') => self.pos += 1,
                None | Some(')') => {}
                _ => {
                    if let Some(w) = self.peek_plain_word() {
                        if ends.contains(&w.as_str()) {
                            continue;
                        }
                    }
                    return Err(self.unexpected());
                }
            }
        }
        self.depth -= 1;
        Ok(Node::Seq(items))
    }

    fn and_or(&mut self) -> Result<Node, String> {
        let first = self.pipeline()?;
        let mut rest = Vec::new();
        loop {
            self.skip_space(false);
            let ahead = (self.peek(), self.chars.get(self.pos + 1).copied());
            let and = ahead == (Some('&'), Some('&'));
            let or = ahead == (Some('|'), Some('|'));
            if !and && !or {
                if rest.is_empty() {
                    return Ok(first);
                }
                return Ok(Node::AndOr(Box::new(first), rest));
            }
            self.pos += 2;
            // A newline may follow `&&` or `||`.
            loop {
                self.skip_space(true);
                if self.peek() == Some('\n') {
                    self.pos += 1;
                } else {
                    break;
                }
            }
            rest.push((and, self.pipeline()?));
        }
    }

    fn pipeline(&mut self) -> Result<Node, String> {
        self.skip_space(false);
        if self.peek_plain_word().as_deref() == Some("!") {
            self.pos += 1;
            let inner = self.command()?;
            return Ok(Node::Not(Box::new(inner)));
        }
        let cmd = self.command()?;
        self.skip_space(false);
        if self.peek() == Some('|') && self.chars.get(self.pos + 1) != Some(&'|') {
            return Err(self.unexpected());
        }
        Ok(cmd)
    }

    fn command(&mut self) -> Result<Node, String> {
        self.skip_space(false);
        match self.peek_plain_word().as_deref() {
            Some("while") | Some("until") => {
                let until = self.peek_plain_word().as_deref() == Some("until");
                self.pos += 5;
                let cond = self.list(&["do"])?;
                self.expect_word("do")?;
                let body = self.list(&["done"])?;
                self.expect_word("done")?;
                Ok(Node::Loop {
                    until,
                    cond: Box::new(cond),
                    body: Box::new(body),
                })
            }
            Some("for") => {
                self.pos += 3;
                self.skip_space(false);
                let var = self.peek_plain_word().unwrap_or_default();
                if !is_name(&var) {
                    return Err(self.unexpected());
                }
                self.pos += var.len();
                self.skip_space(false);
                let mut items = None;
                if self.eat_word("in") {
                    let mut words = Vec::new();
                    loop {
                        self.skip_space(false);
                        match self.peek() {
                            Some(';') | Some('\n') => {
                                self.pos += 1;
                                break;
                            }
                            None => return Err(self.unexpected()),
                            _ => words.push(self.word_here()?),
                        }
                    }
                    items = Some(words);
                } else if self.peek() == Some(';') {
                    self.pos += 1;
                }
                self.expect_word("do")?;
                let body = self.list(&["done"])?;
                self.expect_word("done")?;
                Ok(Node::For {
                    var,
                    items,
                    body: Box::new(body),
                })
            }
            Some("if") => {
                self.pos += 2;
                let mut branches = Vec::new();
                let mut otherwise = None;
                loop {
                    let cond = self.list(&["then"])?;
                    self.expect_word("then")?;
                    let body = self.list(&["elif", "else", "fi"])?;
                    branches.push((cond, body));
                    if self.eat_word("elif") {
                        continue;
                    }
                    if self.eat_word("else") {
                        otherwise = Some(Box::new(self.list(&["fi"])?));
                    }
                    self.expect_word("fi")?;
                    break;
                }
                Ok(Node::If {
                    branches,
                    otherwise,
                })
            }
            _ => self.simple(),
        }
    }

    /// An output redirection at the cursor: `>`, `>>`, `1>`, `2>`, `2>>` and a
    /// target word, or `>&N`, `2>&1`. Other descriptors are a syntax error, as is
    /// a redirection without a target.
    fn redirect(&mut self) -> Result<Option<Redirect>, String> {
        let (fd, at) = match (self.peek(), self.chars.get(self.pos + 1)) {
            (Some('>'), _) => (1, self.pos),
            (Some(d @ ('1' | '2')), Some('>')) => (if d == '1' { 1 } else { 2 }, self.pos + 1),
            (Some(d), Some('>')) if d.is_ascii_digit() => {
                self.pos += 1;
                return Err(self.unexpected());
            }
            _ => return Ok(None),
        };
        self.pos = at + 1;
        let append = self.peek() == Some('>');
        if append {
            self.pos += 1;
        }
        if !append && self.peek() == Some('&') {
            self.pos += 1;
            let to = match self.peek() {
                Some('1') => 1,
                Some('2') => 2,
                _ => return Err(self.unexpected()),
            };
            self.pos += 1;
            if self.peek().is_some_and(|c| !is_metachar(c)) {
                return Err(self.unexpected());
            }
            return Ok(Some(Redirect::Dup { fd, to }));
        }
        self.skip_space(false);
        if self.peek().is_none_or(is_metachar) {
            return Err(self.unexpected());
        }
        let target = self.word_here()?;
        Ok(Some(Redirect::File { fd, append, target }))
    }

    fn simple(&mut self) -> Result<Node, String> {
        let mut assigns = Vec::new();
        let mut words = Vec::new();
        let mut redirects = Vec::new();
        loop {
            self.skip_space(false);
            match self.peek() {
                None | Some(';') | Some('\n') | Some(')') => break,
                Some('&') if self.chars.get(self.pos + 1) == Some(&'&') => break,
                Some('|') => break,
                Some(c) if "&<(".contains(c) => return Err(self.unexpected()),
                _ => {}
            }
            if let Some(r) = self.redirect()? {
                redirects.push(r);
                continue;
            }
            // An input redirection (`0<`, `3<`) is not simulated.
            if self.peek().is_some_and(|c| c.is_ascii_digit())
                && self.chars.get(self.pos + 1).is_some_and(|c| *c == '<')
            {
                self.pos += 1;
                return Err(self.unexpected());
            }
            if words.is_empty() {
                if let Some((name, len)) = self.assignment_prefix() {
                    self.pos += len;
                    let value = if self.peek().is_none_or(is_metachar) {
                        Vec::new()
                    } else {
                        self.word()?
                    };
                    assigns.push((name, value));
                    continue;
                }
            }
            words.push(self.word_here()?);
        }
        if assigns.is_empty() && words.is_empty() && redirects.is_empty() {
            return Err(self.unexpected());
        }
        Ok(Node::Simple {
            assigns,
            words,
            redirects,
        })
    }

    /// `name=` at the cursor: the name and the length up to and including `=`.
    fn assignment_prefix(&self) -> Option<(String, usize)> {
        let mut name = String::new();
        let mut i = self.pos;
        while let Some(&c) = self.chars.get(i) {
            if c == '=' {
                return is_name(&name).then(|| (name, i + 1 - self.pos));
            }
            if !(c.is_ascii_alphanumeric() || c == '_') {
                return None;
            }
            name.push(c);
            i += 1;
        }
        None
    }

    /// A word that must start at the cursor: a metacharacter there (where the
    /// grammar wants a word) is a syntax error, so every caller's loop moves on.
    fn word_here(&mut self) -> Result<Word, String> {
        let start = self.pos;
        let word = self.word()?;
        if self.pos == start {
            return Err(self.unexpected());
        }
        Ok(word)
    }

    fn word(&mut self) -> Result<Word, String> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let flush = |lit: &mut String, parts: &mut Vec<Part>| {
            if !lit.is_empty() {
                parts.push(Part::Lit(std::mem::take(lit)));
            }
        };
        while let Some(c) = self.peek() {
            if is_metachar(c) {
                break;
            }
            match c {
                '\'' => {
                    flush(&mut lit, &mut parts);
                    self.pos += 1;
                    let mut s = String::new();
                    loop {
                        match self.peek() {
                            None => {
                                return Err("sh: syntax error: unterminated quoted string".into())
                            }
                            Some('\'') => break,
                            Some(c) => s.push(c),
                        }
                        self.pos += 1;
                    }
                    self.pos += 1;
                    parts.push(Part::Quoted(s));
                }
                '"' => {
                    flush(&mut lit, &mut parts);
                    self.pos += 1;
                    // An empty "" still makes a (empty) field.
                    parts.push(Part::Quoted(String::new()));
                    let mut s = String::new();
                    loop {
                        match self.peek() {
                            None => {
                                return Err("sh: syntax error: unterminated quoted string".into())
                            }
                            Some('"') => break,
                            Some('\\') => {
                                let next = self.chars.get(self.pos + 1).copied();
                                match next {
                                    Some(n @ ('$' | '`' | '"' | '\\')) => {
                                        s.push(n);
                                        self.pos += 2;
                                    }
                                    Some('\n') => self.pos += 2,
                                    _ => {
                                        s.push('\\');
                                        self.pos += 1;
                                    }
                                }
                                continue;
                            }
                            Some('$') | Some('`') => {
                                if !s.is_empty() {
                                    parts.push(Part::Quoted(std::mem::take(&mut s)));
                                }
                                if let Some(p) = self.dollar(true)? {
                                    parts.push(p);
                                } else {
                                    s.push('$');
                                }
                                continue;
                            }
                            Some(c) => s.push(c),
                        }
                        self.pos += 1;
                    }
                    self.pos += 1;
                    if !s.is_empty() {
                        parts.push(Part::Quoted(s));
                    }
                }
                '\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some('\n') => self.pos += 1,
                        Some(n) => {
                            flush(&mut lit, &mut parts);
                            parts.push(Part::Quoted(n.to_string()));
                            self.pos += 1;
                        }
                        // A backslash ending the script stands for itself.
                        None => lit.push('\\'),
                    }
                }
                '$' | '`' => {
                    flush(&mut lit, &mut parts);
                    match self.dollar(false)? {
                        Some(p) => parts.push(p),
                        None => lit.push('$'),
                    }
                }
                c => {
                    lit.push(c);
                    self.pos += 1;
                }
            }
        }
        flush(&mut lit, &mut parts);
        Ok(parts)
    }

    /// An expansion at the cursor (`$x`, `${x}`, `$((...))`, `$(...)`, `` `...` ``).
    /// `None` (and the `$` consumed) when the `$` is literal.
    fn dollar(&mut self, quoted: bool) -> Result<Option<Part>, String> {
        if self.peek() == Some('`') {
            self.pos += 1;
            let start = self.pos;
            while self.peek().is_some_and(|c| c != '`') {
                self.pos += 1;
            }
            if self.peek().is_none() {
                return Err("sh: syntax error: unterminated quoted string".into());
            }
            let inner: String = self.chars[start..self.pos].iter().collect();
            self.pos += 1;
            return Ok(Some(Part::Subst {
                script: parse_nested(&inner, self.depth + 1)?,
                quoted,
            }));
        }
        self.pos += 1; // the '$'
        let rest = &self.chars[self.pos..];
        if rest.starts_with(&['(', '(']) {
            self.pos += 2;
            let start = self.pos;
            let mut depth = 0i32;
            loop {
                match self.peek() {
                    None => return Err("sh: syntax error: unterminated arithmetic".into()),
                    Some('(') => depth += 1,
                    Some(')') if depth == 0 => {
                        if self.chars.get(self.pos + 1) == Some(&')') {
                            break;
                        }
                        return Err("sh: syntax error: unexpected \")\"".into());
                    }
                    Some(')') => depth -= 1,
                    _ => {}
                }
                self.pos += 1;
            }
            let inner: String = self.chars[start..self.pos].iter().collect();
            self.pos += 2;
            return Ok(Some(Part::Arith(inner)));
        }
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let script = self.list(&[])?;
                self.skip_space(true);
                if self.peek() != Some(')') {
                    return Err(self.unexpected());
                }
                self.pos += 1;
                Ok(Some(Part::Subst { script, quoted }))
            }
            Some('{') => {
                self.pos += 1;
                let start = self.pos;
                while self.peek().is_some_and(|c| c != '}') {
                    self.pos += 1;
                }
                let name: String = self.chars[start..self.pos].iter().collect();
                if self.peek().is_none() || !(is_name(&name) || is_special(&name)) {
                    return Err("sh: syntax error: bad substitution".to_string());
                }
                self.pos += 1;
                Ok(Some(Part::Var { name, quoted }))
            }
            Some(c) if c.is_ascii_digit() || "?$#@*!-".contains(c) => {
                self.pos += 1;
                Ok(Some(Part::Var {
                    name: c.to_string(),
                    quoted,
                }))
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    self.pos += 1;
                }
                Ok(Some(Part::Var {
                    name: self.chars[start..self.pos].iter().collect(),
                    quoted,
                }))
            }
            _ => Ok(None),
        }
    }
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_special(s: &str) -> bool {
    s.len() == 1
        && s.chars()
            .all(|c| c.is_ascii_digit() || "?$#@*!-".contains(c))
}

/// How a command's execution changed the flow.
enum Flow {
    Normal,
    Exit(i32),
    Break(u32),
    Continue(u32),
    /// The replay stops here (horizon, budget, or a process that blocks forever).
    Stop,
    /// The shell itself dies with this status (`sh: out of memory`), a `$(...)`
    /// subshell's parent too.
    Fatal(i32),
}

#[path = "shell_repeat.rs"]
mod repeat;

struct Shell<'p> {
    programs: &'p dyn Programs,
    files: BTreeMap<String, String>,
    /// The volumes' files over time, and which version `files` holds.
    mounts: crate::kubelet::runtime::Mounted,
    mounted: Option<usize>,
    vars: BTreeMap<String, String>,
    exported: Vec<String>,
    argv0: String,
    args: Vec<String>,
    status: i32,
    clock: u64,
    started_ms: u64,
    horizon: u64,
    steps: u64,
    budget: u64,
    lines: std::collections::VecDeque<(u64, String)>,
    /// The bytes of `lines`.
    log_bytes: usize,
    /// The bytes written to stdout so far (captured or logged).
    written: usize,
    /// The bytes of the variables' names and values.
    vars_bytes: usize,
    /// Set when a write failed (a `$(...)` output past [`MAX_VALUE_BYTES`]): the
    /// command that wrote ends the shell with it.
    failed: Option<Flow>,
    /// Lines written so far (the log keeps the latest `MAX_LINES`).
    pushed: u64,
    /// Reads of what the script does not control: the clock, programs outside it.
    outside_reads: u64,
    partial: String,
    /// Output of `$(...)` being captured, innermost last.
    captures: Vec<String>,
    /// Where error output goes (a redirection of the running command).
    err_route: ErrRoute,
    /// Error output kept for `2> FILE`.
    err_buf: String,
    /// Command lists being run, one inside the other (bounded by the parser's
    /// [`MAX_NESTING`]); an arithmetic expansion's parentheses count on from here.
    depth: usize,
    end: Option<End>,
}

/// Replays `script` as `sh -c` does, up to `horizon_ms` after the start or `budget`
/// commands, whichever comes first.
pub fn run(script: &str, ctx: &Context, horizon_ms: u64, budget: u64) -> Replay {
    run_with(script, ctx, horizon_ms, budget, &NoPrograms)
}

/// [`run`] with programs outside the shell (`kubectl exec` runs `nslookup`, `wget`).
pub fn run_with(
    script: &str,
    ctx: &Context,
    horizon_ms: u64,
    budget: u64,
    programs: &dyn Programs,
) -> Replay {
    let node = match parse(script) {
        Ok(n) => n,
        Err(message) => {
            return Replay {
                lines: vec![(0, message)],
                end: End::Exited { at_ms: 0, code: 2 },
                files: ctx.files.clone(),
            }
        }
    };
    run_node(&node, ctx, horizon_ms, budget, programs)
}

/// Replays one command given as an argument vector (an exec without a shell).
pub fn run_argv(argv: &[String], ctx: &Context, horizon_ms: u64, budget: u64) -> Replay {
    run_argv_with(argv, ctx, horizon_ms, budget, &NoPrograms)
}

/// [`run_argv`] with programs outside the shell.
pub fn run_argv_with(
    argv: &[String],
    ctx: &Context,
    horizon_ms: u64,
    budget: u64,
    programs: &dyn Programs,
) -> Replay {
    let node = Node::Simple {
        assigns: Vec::new(),
        words: argv.iter().map(|a| vec![Part::Quoted(a.clone())]).collect(),
        redirects: Vec::new(),
    };
    run_node(&node, ctx, horizon_ms, budget, programs)
}

/// Whether `name` is a command this shell runs (a builtin or a busybox applet).
pub fn is_command(name: &str) -> bool {
    APPLETS.contains(&name.rsplit('/').next().unwrap_or(name))
}

/// A path as seen from the working directory `/`.
fn absolute(path: &str) -> String {
    let p = path.strip_prefix("./").unwrap_or(path);
    if p.starts_with('/') {
        p.to_string()
    } else {
        format!("/{p}")
    }
}

/// The commands that are executables in a shell image (not shell builtins such as
/// `exit` or `export`, which a container cannot exec).
const APPLETS: &[&str] = &[
    "echo", "printf", "sleep", "true", "false", "date", "printenv", "env", "test", "[", "seq",
    "hostname", "cat", "tail", "whoami", "uname", "pwd", "touch", "rm", "mkdir", "ls",
];

fn run_node(
    node: &Node,
    ctx: &Context,
    horizon_ms: u64,
    budget: u64,
    programs: &dyn Programs,
) -> Replay {
    let mut sh = Shell {
        programs,
        files: ctx.files.clone(),
        mounts: ctx.mounts.clone(),
        mounted: None,
        vars: ctx.env.iter().cloned().collect_map(),
        exported: ctx.env.iter().map(|(k, _)| k.clone()).collect(),
        log_bytes: 0,
        written: 0,
        vars_bytes: 0,
        failed: None,
        argv0: ctx.argv0.clone(),
        args: ctx.args.clone(),
        status: 0,
        clock: 0,
        started_ms: ctx.started_ms,
        horizon: horizon_ms,
        steps: 0,
        budget,
        lines: Default::default(),
        pushed: 0,
        outside_reads: 0,
        partial: String::new(),
        captures: Vec::new(),
        err_route: ErrRoute::Stderr,
        err_buf: String::new(),
        depth: 0,
        end: None,
    };
    sh.vars_bytes = sh.vars.iter().map(|(k, v)| k.len() + v.len()).sum();
    let flow = sh.exec(node);
    let end = match flow {
        Flow::Stop => sh.end.unwrap_or(End::Horizon),
        Flow::Exit(code) | Flow::Fatal(code) => End::Exited {
            at_ms: sh.clock,
            code,
        },
        _ => End::Exited {
            at_ms: sh.clock,
            code: sh.status,
        },
    };
    if !sh.partial.is_empty() {
        let text = std::mem::take(&mut sh.partial);
        sh.push_line(text);
    }
    Replay {
        lines: sh.lines.into_iter().collect(),
        end,
        files: sh.files,
    }
}

impl Shell<'_> {
    /// Appends a log line, dropping the oldest past [`MAX_LINES`] or
    /// [`MAX_LOG_BYTES`].
    fn push_line(&mut self, text: String) {
        self.log_at(self.clock, text);
        self.pushed += 1;
    }

    /// Keeps a log line written at `at`, dropping the oldest past [`MAX_LINES`] or
    /// [`MAX_LOG_BYTES`].
    fn log_at(&mut self, at: u64, text: String) {
        while !self.lines.is_empty()
            && (self.lines.len() >= MAX_LINES || self.log_bytes + text.len() > MAX_LOG_BYTES)
        {
            if let Some((_, old)) = self.lines.pop_front() {
                self.log_bytes -= old.len();
            }
        }
        self.log_bytes += text.len();
        self.lines.push_back((at, text));
    }

    /// Writes to stdout: the innermost `$(...)` capture, else the log. A capture
    /// past [`MAX_VALUE_BYTES`] fails the writing command (see `failed`); a log
    /// line longer than that is cut there (simplified: containerd splits a log line
    /// at 16 KiB and `kubectl logs` joins the pieces again, so only a line without
    /// end shows the cut).
    fn write(&mut self, text: &str) {
        if self.failed.is_some() {
            return;
        }
        self.written = self.written.saturating_add(text.len());
        if let Some(c) = self.captures.last_mut() {
            if c.len() + text.len() > MAX_VALUE_BYTES {
                self.failed = Some(self.out_of_memory());
                return;
            }
            c.push_str(text);
            return;
        }
        for piece in text.split_inclusive('\n') {
            let (body, ends) = match piece.strip_suffix('\n') {
                Some(b) => (b, true),
                None => (piece, false),
            };
            let mut body = body;
            while self.partial.len() + body.len() > MAX_VALUE_BYTES {
                let mut cut = MAX_VALUE_BYTES - self.partial.len();
                while !body.is_char_boundary(cut) {
                    cut -= 1;
                }
                self.partial.push_str(&body[..cut]);
                body = &body[cut..];
                let line = std::mem::take(&mut self.partial);
                self.push_line(line);
            }
            self.partial.push_str(body);
            if ends {
                let line = std::mem::take(&mut self.partial);
                self.push_line(line);
            }
        }
    }

    /// busybox ash's message when an allocation fails; the shell exits with 2.
    fn out_of_memory(&mut self) -> Flow {
        self.error("sh: out of memory".into());
        Flow::Fatal(2)
    }

    /// Counts the work of handling `bytes` (see [`BYTES_PER_STEP`]); `false` (and
    /// the replay's end set) when the budget is spent.
    fn charge(&mut self, bytes: usize) -> bool {
        self.steps = self.steps.saturating_add((bytes / BYTES_PER_STEP) as u64);
        if self.steps > self.budget {
            self.end = Some(End::Budget { at_ms: self.clock });
            return false;
        }
        true
    }

    /// Sets a variable within [`MAX_VALUE_BYTES`] and [`MAX_VARS_BYTES`].
    fn set_var(&mut self, name: &str, value: String) -> Result<(), Flow> {
        let old = self.vars.get(name).map_or(0, |v| name.len() + v.len());
        let total = self.vars_bytes - old + name.len() + value.len();
        if value.len() > MAX_VALUE_BYTES || total > MAX_VARS_BYTES {
            return Err(self.out_of_memory());
        }
        if !self.charge(value.len()) {
            return Err(Flow::Stop);
        }
        self.vars_bytes = total;
        self.vars.insert(name.to_string(), value);
        Ok(())
    }

    fn unset_var(&mut self, name: &str) {
        if let Some(v) = self.vars.remove(name) {
            self.vars_bytes -= name.len() + v.len();
        }
    }

    /// Error output of the shell or a command goes to the same log (or where a
    /// redirection sends it).
    fn error(&mut self, text: String) {
        match self.err_route {
            ErrRoute::Stderr => {}
            ErrRoute::Drop => return,
            ErrRoute::Buffer => {
                if self.err_buf.len() + text.len() < MAX_VALUE_BYTES {
                    self.err_buf.push_str(&text);
                    self.err_buf.push('\n');
                }
                return;
            }
            ErrRoute::Level(n) if n < self.captures.len() => {
                // Past the captures of this command's own stdout redirection.
                if n == 0 {
                    if !self.partial.is_empty() {
                        let p = std::mem::take(&mut self.partial);
                        self.push_line(p);
                    }
                    self.push_line(text);
                } else if let Some(c) = self.captures.get_mut(n - 1) {
                    if c.len() + text.len() < MAX_VALUE_BYTES {
                        c.push_str(&text);
                        c.push('\n');
                    }
                }
                return;
            }
            ErrRoute::Level(_) => {
                self.write(&format!("{text}\n"));
                return;
            }
        }
        if !self.captures.is_empty() {
            // stderr is not captured by `$(...)`: it reaches the log at once.
            if !self.partial.is_empty() {
                let p = std::mem::take(&mut self.partial);
                self.push_line(p);
            }
            self.push_line(text);
            return;
        }
        self.write(&format!("{text}\n"));
    }

    fn step(&mut self) -> bool {
        self.steps += 1;
        if self.steps > self.budget {
            self.end = Some(End::Budget { at_ms: self.clock });
            return false;
        }
        true
    }

    fn exec(&mut self, node: &Node) -> Flow {
        match node {
            Node::Seq(items) => {
                self.depth += 1;
                let mut flow = Flow::Normal;
                for item in items {
                    flow = self.exec(item);
                    if !matches!(flow, Flow::Normal) {
                        break;
                    }
                }
                self.depth -= 1;
                flow
            }
            Node::AndOr(first, rest) => {
                let mut flow = self.exec(first);
                for (and, next) in rest {
                    if !matches!(flow, Flow::Normal) {
                        return flow;
                    }
                    if (self.status == 0) == *and {
                        flow = self.exec(next);
                    }
                }
                flow
            }
            Node::Not(a) => {
                let flow = self.exec(a);
                if matches!(flow, Flow::Normal) {
                    self.status = i32::from(self.status == 0);
                }
                flow
            }
            Node::Loop { until, cond, body } => self.exec_loop(*until, cond, body),
            Node::For { var, items, body } => self.exec_for(var, items.as_deref(), body),
            Node::If {
                branches,
                otherwise,
            } => {
                for (cond, body) in branches {
                    match self.exec(cond) {
                        Flow::Normal => {}
                        other => return other,
                    }
                    if self.status == 0 {
                        return self.exec(body);
                    }
                }
                match otherwise {
                    Some(body) => self.exec(body),
                    None => {
                        self.status = 0;
                        Flow::Normal
                    }
                }
            }
            Node::Simple {
                assigns,
                words,
                redirects,
            } if !redirects.is_empty() => {
                if !self.step() {
                    return Flow::Stop;
                }
                self.redirected(assigns, words, redirects)
            }
            Node::Simple {
                assigns,
                words,
                redirects: _,
            } => self.exec_simple(assigns, words),
        }
    }

    /// `while COND; do BODY; done` (`until` when `until`): the status is the body's
    /// last, or 0 if it never ran.
    fn exec_loop(&mut self, until: bool, cond: &Node, body: &Node) -> Flow {
        let mut last = 0;
        let mut repeats = repeat::Repeats::default();
        loop {
            self.skip_repeats(&mut repeats, last);
            if !self.step() {
                return Flow::Stop;
            }
            match self.exec(cond) {
                Flow::Normal => {}
                other => return other,
            }
            if (self.status == 0) == until {
                break;
            }
            match self.exec(body) {
                Flow::Normal => {}
                Flow::Break(n) if n > 1 => return Flow::Break(n - 1),
                Flow::Break(_) => break,
                Flow::Continue(n) if n > 1 => return Flow::Continue(n - 1),
                Flow::Continue(_) => {}
                other => return other,
            }
            last = self.status;
        }
        self.status = last;
        Flow::Normal
    }

    /// `for VAR in WORDS; do BODY; done` (the positional arguments without `in`).
    fn exec_for(&mut self, var: &str, items: Option<&[Word]>, body: &Node) -> Flow {
        let values = match items {
            Some(words) => match self.expand_words(words) {
                Ok(v) => v,
                Err(flow) => return flow,
            },
            None => self.args.clone(),
        };
        self.status = 0;
        for value in values {
            if !self.step() {
                return Flow::Stop;
            }
            if let Err(flow) = self.set_var(var, value) {
                return flow;
            }
            match self.exec(body) {
                Flow::Normal => {}
                Flow::Break(n) if n > 1 => return Flow::Break(n - 1),
                Flow::Break(_) => break,
                Flow::Continue(n) if n > 1 => return Flow::Continue(n - 1),
                Flow::Continue(_) => {}
                other => return other,
            }
        }
        Flow::Normal
    }

    /// A simple command without redirections: expand, assign, run.
    fn exec_simple(&mut self, assigns: &[(String, Word)], words: &[Word]) -> Flow {
        if !self.step() {
            return Flow::Stop;
        }
        let argv = match self.expand_words(words) {
            Ok(v) => v,
            Err(flow) => return flow,
        };
        let mut values = Vec::new();
        for (name, w) in assigns {
            match self.expand_joined(w) {
                Ok(v) => values.push((name.clone(), v)),
                Err(flow) => return flow,
            }
        }
        if argv.is_empty() {
            for (name, value) in values {
                if let Err(flow) = self.set_var(&name, value) {
                    return flow;
                }
            }
            self.status = 0;
            return Flow::Normal;
        }
        // `VAR=x cmd`: the assignment holds for the command only.
        let saved: Vec<_> = values
            .iter()
            .map(|(n, _)| (n.clone(), self.vars.get(n).cloned()))
            .collect();
        let exported_before = self.exported.len();
        for (name, value) in values {
            self.exported.push(name.clone());
            if let Err(flow) = self.set_var(&name, value) {
                return flow;
            }
        }
        let written = self.written;
        let mut flow = self.command(&argv);
        if let Some(failed) = self.failed.take() {
            flow = failed;
        }
        // What the command wrote is work too (`cat` of a large file).
        if !self.charge(self.written - written) {
            flow = Flow::Stop;
        }
        if !saved.is_empty() {
            for (name, old) in saved {
                match old {
                    Some(v) => {
                        // It fitted before: putting it back cannot fail.
                        let _ = self.set_var(&name, v);
                    }
                    None => self.unset_var(&name),
                }
            }
            self.exported.truncate(exported_before);
        }
        flow
    }

    /// A simple command with output redirections: each descriptor's sink is worked
    /// out left to right, stdout is captured while the command runs and then sent to
    /// its sink, and error output follows the route of descriptor 2.
    fn redirected(
        &mut self,
        assigns: &[(String, Word)],
        words: &[Word],
        redirects: &[Redirect],
    ) -> Flow {
        let mut sinks = [Sink::Stdout, Sink::Stderr];
        for r in redirects {
            match r {
                Redirect::Dup { fd, to } => {
                    sinks[usize::from(*fd - 1)] = sinks[usize::from(*to - 1)].clone();
                }
                Redirect::File { fd, append, target } => {
                    let path = match self.expand_joined(target) {
                        Ok(p) => p,
                        Err(flow) => return flow,
                    };
                    let sink = if path == "/dev/null" {
                        Sink::Null
                    } else {
                        let path = absolute(&path);
                        // The file is created (or emptied) when the redirection is
                        // set up, before the command runs.
                        if let Err(problem) = self.put_file(&path, "", *append) {
                            return self.fail(format!("sh: can't create {path}: {problem}"));
                        }
                        Sink::File { path, append: true }
                    };
                    sinks[usize::from(*fd - 1)] = sink;
                }
            }
        }
        let [out, err] = sinks;
        let level = self.captures.len();
        let captured = out != Sink::Stdout;
        let route = match &err {
            Sink::Stderr => ErrRoute::Stderr,
            Sink::Null => ErrRoute::Drop,
            Sink::Stdout => ErrRoute::Level(level),
            e if *e == out => ErrRoute::Level(level + 1),
            Sink::File { .. } => ErrRoute::Buffer,
        };
        let saved_route = std::mem::replace(&mut self.err_route, route);
        let saved_buf = std::mem::take(&mut self.err_buf);
        if captured {
            self.captures.push(String::new());
        }
        let mut flow = if words.is_empty() && assigns.is_empty() {
            self.status = 0;
            Flow::Normal
        } else {
            self.exec(&Node::Simple {
                assigns: assigns.to_vec(),
                words: words.to_vec(),
                redirects: Vec::new(),
            })
        };
        let output = if captured {
            self.captures.pop().unwrap_or_default()
        } else {
            String::new()
        };
        let errors = std::mem::replace(&mut self.err_buf, saved_buf);
        self.err_route = saved_route;
        let deliver = |sh: &mut Self, sink: &Sink, text: &str| match sink {
            Sink::Stdout => sh.write(text),
            Sink::Stderr => {
                for line in text.lines() {
                    sh.error(line.to_string());
                }
            }
            Sink::Null => {}
            Sink::File { path, append } => {
                if let Err(problem) = sh.put_file(path, text, *append) {
                    sh.error(format!("sh: write error: {problem}"));
                    sh.status = 1;
                }
            }
        };
        if captured {
            deliver(self, &out, &output);
        }
        if let Sink::File { .. } = &err {
            if err != out {
                deliver(self, &err, &errors);
            }
        }
        if let Some(failed) = self.failed.take() {
            flow = failed;
        }
        flow
    }

    /// Writes a file of the container (`> FILE`), within [`MAX_FILES`],
    /// [`PATH_MAX`] and [`MAX_VALUE_BYTES`]; the problem as ash words it.
    fn put_file(&mut self, path: &str, text: &str, append: bool) -> Result<(), &'static str> {
        if path.len() > PATH_MAX {
            return Err("File name too long");
        }
        if !self.files.contains_key(path) && self.files.len() >= MAX_FILES {
            return Err("No space left on device");
        }
        let file = self.files.entry(path.to_string()).or_default();
        if !append {
            file.clear();
        }
        if file.len() + text.len() > MAX_VALUE_BYTES {
            return Err("No space left on device");
        }
        file.push_str(text);
        Ok(())
    }

    fn var(&self, name: &str) -> String {
        match name {
            "?" => self.status.to_string(),
            "$" => "1".into(),
            "#" => self.args.len().to_string(),
            "@" | "*" => self.args.join(" "),
            "0" => self.argv0.clone(),
            "!" | "-" => String::new(),
            n if n.chars().all(|c| c.is_ascii_digit()) => {
                let i: usize = n.parse().unwrap_or(0);
                self.args
                    .get(i.wrapping_sub(1))
                    .cloned()
                    .unwrap_or_default()
            }
            n => self.vars.get(n).cloned().unwrap_or_default(),
        }
    }

    /// Expands words into fields: together at most [`MAX_ARGS_BYTES`] (the
    /// arguments of one command), their size charged as work.
    fn expand_words(&mut self, words: &[Word]) -> Result<Vec<String>, Flow> {
        let mut fields = Vec::new();
        let mut bytes = 0usize;
        for w in words {
            for field in self.expand(w)? {
                bytes += field.len();
                if bytes > MAX_ARGS_BYTES {
                    return Err(self.out_of_memory());
                }
                fields.push(field);
            }
        }
        if !self.charge(bytes) {
            return Err(Flow::Stop);
        }
        Ok(fields)
    }

    /// The value of one expansion: a variable, `$((...))` or `$(...)`.
    fn expansion(&mut self, part: &Part) -> Result<String, Flow> {
        match part {
            Part::Lit(s) | Part::Quoted(s) => Ok(s.clone()),
            Part::Var { name, .. } => Ok(self.var(name)),
            Part::Arith(expr) => match arith(expr, self) {
                Ok(v) => Ok(v.to_string()),
                Err(e) => {
                    self.error(format!("sh: {e}"));
                    Err(Flow::Exit(2))
                }
            },
            Part::Subst { script, .. } => self.substitute(script),
        }
    }

    /// Expands a word into fields (unquoted expansions split at the default IFS).
    fn expand(&mut self, word: &Word) -> Result<Vec<String>, Flow> {
        let mut fields: Vec<String> = Vec::new();
        let mut current: Option<String> = None;
        let mut bytes = 0usize;
        for part in word {
            let split = match part {
                Part::Lit(_) | Part::Quoted(_) | Part::Arith(_) => false,
                Part::Var { quoted, .. } | Part::Subst { quoted, .. } => !quoted,
            };
            let text = self.expansion(part)?;
            // `$((...))` is split too, but its digits never hold a blank.
            bytes += text.len();
            if bytes > MAX_VALUE_BYTES {
                return Err(self.out_of_memory());
            }
            if !split {
                current.get_or_insert_with(String::new).push_str(&text);
                continue;
            }
            let starts_blank = text.starts_with(is_ifs_whitespace);
            let ends_blank = text.ends_with(is_ifs_whitespace);
            let pieces: Vec<&str> = text
                .split(is_ifs_whitespace)
                .filter(|p| !p.is_empty())
                .collect();
            if pieces.is_empty() {
                if starts_blank {
                    if let Some(c) = current.take() {
                        fields.push(c);
                    }
                }
                continue;
            }
            for (i, piece) in pieces.iter().enumerate() {
                if i > 0 || starts_blank {
                    if let Some(c) = current.take() {
                        fields.push(c);
                    }
                }
                current.get_or_insert_with(String::new).push_str(piece);
            }
            if ends_blank {
                if let Some(c) = current.take() {
                    fields.push(c);
                }
            }
        }
        if let Some(c) = current {
            fields.push(c);
        }
        Ok(fields)
    }

    fn expand_joined(&mut self, word: &Word) -> Result<String, Flow> {
        let mut s = String::new();
        for part in word {
            let text = self.expansion(part)?;
            if s.len() + text.len() > MAX_VALUE_BYTES {
                return Err(self.out_of_memory());
            }
            s.push_str(&text);
        }
        if !self.charge(s.len()) {
            return Err(Flow::Stop);
        }
        Ok(s)
    }

    /// `$(...)`: runs the script as a subshell (its variables do not survive it);
    /// its stdout without trailing newlines.
    fn substitute(&mut self, script: &Node) -> Result<String, Flow> {
        // The subshell's copy of the variables is work.
        if !self.charge(self.vars_bytes) {
            return Err(Flow::Stop);
        }
        let vars = self.vars.clone();
        let vars_bytes = self.vars_bytes;
        self.captures.push(String::new());
        let flow = self.exec(script);
        let failed = self.failed.take();
        let mut out = self.captures.pop().unwrap_or_default();
        self.vars = vars;
        self.vars_bytes = vars_bytes;
        match failed.unwrap_or(flow) {
            Flow::Stop => return Err(Flow::Stop),
            Flow::Fatal(code) => return Err(Flow::Fatal(code)),
            Flow::Exit(code) => self.status = code,
            _ => {}
        }
        while out.ends_with('\n') {
            out.pop();
        }
        Ok(out)
    }

    fn sleep(&mut self, ms: Option<u64>) -> Flow {
        match ms {
            None => {
                self.clock = self.horizon.max(self.clock);
                self.end = Some(End::Blocked);
                Flow::Stop
            }
            Some(ms) => {
                let until = self.clock.saturating_add(ms);
                if until > self.horizon {
                    self.clock = self.horizon;
                    self.end = Some(End::Horizon);
                    return Flow::Stop;
                }
                self.clock = until;
                self.status = 0;
                Flow::Normal
            }
        }
    }

    fn now_ms(&mut self) -> i64 {
        self.outside_reads += 1;
        EPOCH_UNIX_MS + (self.started_ms + self.clock) as i64
    }

    /// Brings the volumes' files to the version the kubelet had written by now: a
    /// file it no longer writes goes, the others get their new content. A volume that
    /// changes over time makes every command an outside read (its answer depends on
    /// when it runs).
    fn sync_mounts(&mut self) {
        if self.mounts.is_empty() {
            return;
        }
        if self.mounts.versions.len() > 1 {
            self.outside_reads += 1;
        }
        let now = self.started_ms + self.clock;
        let want = self.mounts.at(now);
        if want == self.mounted {
            return;
        }
        if let Some(old) = self.mounted.map(|i| self.mounts.versions[i].1.clone()) {
            for path in old.keys() {
                self.files.remove(path);
            }
        }
        if let Some(i) = want {
            let new = self.mounts.versions[i].1.clone();
            for (path, text) in new.iter() {
                self.files.insert(path.clone(), text.clone());
            }
        }
        self.mounted = want;
    }

    fn command(&mut self, argv: &[String]) -> Flow {
        let name = argv[0].rsplit('/').next().unwrap_or(&argv[0]).to_string();
        let args = &argv[1..];
        self.status = 0;
        self.sync_mounts();
        match name.as_str() {
            "true" | ":" => {}
            "false" => self.status = 1,
            "exit" => return self.builtin_exit(args),
            "break" | "continue" => return self.builtin_break_or_continue(&name, args),
            "echo" => return self.builtin_echo(args),
            "printf" => return self.builtin_printf(args),
            "sleep" => return self.builtin_sleep_for(args),
            "date" => return self.builtin_date(args),
            "printenv" => return self.builtin_printenv(args),
            "env" => {
                let text: String = self
                    .env_pairs()
                    .into_iter()
                    .map(|(k, v)| format!("{k}={v}\n"))
                    .collect();
                self.write(&text);
            }
            "export" => return self.builtin_export(args),
            "unset" => {
                for a in args {
                    self.unset_var(a);
                }
            }
            "test" | "[" => return self.builtin_test(&name, args),
            "seq" => return self.builtin_seq(args),
            "hostname" => {
                let h = format!(
                    "{}\n",
                    self.vars.get("HOSTNAME").cloned().unwrap_or_default()
                );
                self.write(&h);
            }
            "whoami" => self.write("root\n"),
            "pwd" => self.write("/\n"),
            "uname" => {
                let text = if args.iter().any(|a| a == "-a") {
                    "Linux 6.8.0-warehouse x86_64 GNU/Linux\n"
                } else {
                    "Linux\n"
                };
                self.write(text);
            }
            // Without a tty, stdin is empty: `cat` and `read` see end of file at once.
            "cat" if args.is_empty() => {}
            "cat" => return self.builtin_cat(args),
            "touch" => return self.builtin_touch(args),
            "mkdir" => {}
            "rm" => return self.builtin_rm(args),
            "ls" => return self.builtin_ls(args),
            "read" => self.status = 1,
            "tail" => return self.builtin_tail(args),
            _ => return self.builtin_program(argv),
        }
        Flow::Normal
    }

    /// A builtin's usage error: the message on stderr, status 1.
    fn fail(&mut self, message: String) -> Flow {
        self.error(message);
        self.status = 1;
        Flow::Normal
    }

    /// `exit [N]`: leave the shell with N, or the last status.
    fn builtin_exit(&mut self, args: &[String]) -> Flow {
        let code = match args.first() {
            None => self.status,
            Some(a) => match a.parse::<i64>() {
                Ok(n) => (n & 0xff) as i32,
                Err(_) => {
                    self.error(format!("sh: exit: Illegal number: {a}"));
                    2
                }
            },
        };
        Flow::Exit(code)
    }

    /// `break [N]` and `continue [N]`.
    fn builtin_break_or_continue(&mut self, name: &str, args: &[String]) -> Flow {
        let n = args
            .first()
            .and_then(|a| a.parse().ok())
            .unwrap_or(1u32)
            .max(1);
        if name == "break" {
            Flow::Break(n)
        } else {
            Flow::Continue(n)
        }
    }

    /// `echo [-n] WORDS`.
    fn builtin_echo(&mut self, args: &[String]) -> Flow {
        let mut newline = true;
        let mut rest = args;
        if rest.first().map(String::as_str) == Some("-n") {
            newline = false;
            rest = &rest[1..];
        }
        let mut text = rest.join(" ");
        if newline {
            text.push('\n');
        }
        self.write(&text);
        Flow::Normal
    }

    /// `printf FORMAT [ARGUMENT...]`.
    fn builtin_printf(&mut self, args: &[String]) -> Flow {
        let Some(format) = args.first() else {
            return self.fail("printf: usage: printf FORMAT [ARGUMENT...]".into());
        };
        let text = printf(format, &args[1..]);
        self.write(&text);
        Flow::Normal
    }

    /// `sleep N[smhd]...` and `sleep infinity`.
    fn builtin_sleep_for(&mut self, args: &[String]) -> Flow {
        let Some(a) = args.first() else {
            return self.fail("sleep: missing operand".into());
        };
        if a == "infinity" || a == "inf" {
            return self.sleep(None);
        }
        let mut total = 0u64;
        for a in args {
            match parse_sleep(a) {
                Some(ms) => total = total.saturating_add(ms),
                None => {
                    return self.fail(format!("sleep: invalid number '{a}'"));
                }
            }
        }
        self.sleep(Some(total))
    }

    /// `date [+FORMAT]` in UTC.
    fn builtin_date(&mut self, args: &[String]) -> Flow {
        let ts = k8s_openapi::jiff::Timestamp::from_millisecond(self.now_ms())
            .unwrap_or(k8s_openapi::jiff::Timestamp::UNIX_EPOCH);
        let dt = ts.to_zoned(k8s_openapi::jiff::tz::TimeZone::UTC);
        let format = match args.first() {
            Some(f) if f.starts_with('+') => f[1..].to_string(),
            Some(f) if f == "-u" || f == "-R" || f == "-I" => {
                "%a %b %e %H:%M:%S UTC %Y".to_string()
            }
            Some(f) => {
                return self.fail(format!("date: invalid date '{f}'"));
            }
            None => "%a %b %e %H:%M:%S UTC %Y".to_string(),
        };
        let text = format!("{}\n", dt.strftime(&format));
        self.write(&text);
        Flow::Normal
    }

    /// `printenv [NAME...]`.
    fn builtin_printenv(&mut self, args: &[String]) -> Flow {
        if args.is_empty() {
            let text: String = self
                .env_pairs()
                .into_iter()
                .map(|(k, v)| format!("{k}={v}\n"))
                .collect();
            self.write(&text);
        } else {
            let env: BTreeMap<_, _> = self.env_pairs().into_iter().collect_map();
            let mut missing = false;
            for a in args {
                match env.get(a) {
                    Some(v) => {
                        let v = format!("{v}\n");
                        self.write(&v);
                    }
                    None => missing = true,
                }
            }
            self.status = i32::from(missing);
        }
        Flow::Normal
    }

    /// `export NAME[=VALUE]...`.
    fn builtin_export(&mut self, args: &[String]) -> Flow {
        for a in args {
            match a.split_once('=') {
                Some((k, v)) => {
                    if let Err(flow) = self.set_var(k, v.to_string()) {
                        return flow;
                    }
                    self.exported.push(k.to_string());
                }
                None => self.exported.push(a.clone()),
            }
        }
        Flow::Normal
    }

    /// `test EXPR` and `[ EXPR ]`.
    fn builtin_test(&mut self, name: &str, args: &[String]) -> Flow {
        let mut args = args.to_vec();
        if name == "[" {
            if args.last().map(String::as_str) != Some("]") {
                self.error("sh: missing ]".into());
                self.status = 2;
                return Flow::Normal;
            }
            args.pop();
        }
        let exists = |path: &str, dir: bool| {
            let p = absolute(path);
            let p = p.trim_end_matches('/');
            (!dir && self.files.contains_key(p)) || self.is_dir(p)
        };
        self.status = match test(&args, exists) {
            Ok(true) => 0,
            Ok(false) => 1,
            Err(e) => {
                self.error(format!("sh: {e}"));
                2
            }
        };
        Flow::Normal
    }

    /// `seq [FIRST [STEP]] LAST`, checked against overflow.
    fn builtin_seq(&mut self, args: &[String]) -> Flow {
        let nums: Vec<i64> = args.iter().filter_map(|a| a.parse().ok()).collect();
        if nums.len() != args.len() || nums.is_empty() || nums.len() > 3 {
            return self.fail("seq: invalid argument".into());
        }
        let (first, step, last) = match nums[..] {
            [l] => (1, 1, l),
            [f, l] => (f, 1, l),
            [f, s, l] => (f, s, l),
            _ => (1, 1, 0),
        };
        // Checked: the sequence ends where the next number would not fit
        // in 64 bits. Written a chunk at a time, each charged, so a
        // sequence without end runs out of budget (or of memory in a
        // `$(...)`), never wraps.
        let mut text = String::new();
        let mut next = Some(first);
        while let Some(i) =
            next.filter(|&i| step != 0 && ((step > 0 && i <= last) || (step < 0 && i >= last)))
        {
            text.push_str(&i.to_string());
            text.push('\n');
            next = i.checked_add(step);
            if text.len() >= 64 * BYTES_PER_STEP {
                self.write(&text);
                if self.failed.is_some() {
                    return Flow::Normal;
                }
                if !self.charge(text.len()) {
                    return Flow::Stop;
                }
                text.clear();
            }
        }
        self.write(&text);
        Flow::Normal
    }

    /// `cat FILE...` from the container's files.
    fn builtin_cat(&mut self, args: &[String]) -> Flow {
        for a in args {
            match self.files.get(&absolute(a)).cloned() {
                Some(text) => self.write(&text),
                None if self.is_dir(a) => {
                    self.error("cat: read error: Is a directory".to_string());
                    self.status = 1;
                }
                None => {
                    self.error(format!("cat: can't open '{a}': No such file or directory"));
                    self.status = 1;
                }
            }
        }
        Flow::Normal
    }

    /// busybox `tail [-n N|-n +N|-N] [-c N] [-f|-F] [-q|-v] [FILE]...`: the last N
    /// lines (10 by default; `+N` from line N on), or bytes with `-c`, with a
    /// `==> FILE <==` header per file when there are several; `-f`/`-F` then waits
    /// for more. Simplified: what another process appends later is not followed.
    fn builtin_tail(&mut self, args: &[String]) -> Flow {
        enum Count {
            Last(usize),
            From(usize),
        }
        let number = |v: &str| -> Result<Count, String> {
            let invalid = || format!("tail: invalid number '{v}'");
            match v.strip_prefix('+') {
                Some(n) => n.parse().map(Count::From).map_err(|_| invalid()),
                None => v
                    .trim_start_matches('-')
                    .parse()
                    .map(Count::Last)
                    .map_err(|_| invalid()),
            }
        };
        let (mut count, mut bytes, mut follow, mut headers) = (Count::Last(10), false, false, None);
        let mut files = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let parsed = match a.as_str() {
                "-f" | "-F" => {
                    follow = true;
                    continue;
                }
                "-q" => {
                    headers = Some(false);
                    continue;
                }
                "-v" => {
                    headers = Some(true);
                    continue;
                }
                "-n" | "-c" => match it.next() {
                    Some(v) => {
                        bytes = a == "-c";
                        number(v)
                    }
                    None => {
                        return self.fail(format!(
                            "tail: option requires an argument -- '{}'",
                            &a[1..]
                        ))
                    }
                },
                _ if a.starts_with("-n") || a.starts_with("-c") => {
                    bytes = a.starts_with("-c");
                    number(&a[2..])
                }
                _ if a.len() > 1
                    && a.starts_with('-')
                    && a[1..].bytes().all(|b| b.is_ascii_digit()) =>
                {
                    number(a)
                }
                _ if a.len() > 1 && a.starts_with('-') => {
                    return self.fail(format!("tail: unrecognized option '{a}'"));
                }
                _ => {
                    files.push(a.clone());
                    continue;
                }
            };
            match parsed {
                Ok(c) => count = c,
                Err(e) => return self.fail(e),
            }
        }
        let show_headers = headers.unwrap_or(files.len() > 1);
        for (i, f) in files.iter().enumerate() {
            let Some(text) = self.files.get(&absolute(f)).cloned() else {
                let why = if self.is_dir(f) {
                    "tail: read error: Is a directory".to_string()
                } else {
                    format!("tail: can't open '{f}': No such file or directory")
                };
                self.error(why);
                self.status = 1;
                continue;
            };
            if show_headers {
                let gap = if i > 0 { "\n" } else { "" };
                self.write(&format!("{gap}==> {f} <==\n"));
            }
            let out = if bytes {
                let b = text.as_bytes();
                let start = match count {
                    Count::Last(n) => b.len().saturating_sub(n),
                    Count::From(n) => n.saturating_sub(1).min(b.len()),
                };
                String::from_utf8_lossy(&b[start..]).into_owned()
            } else {
                let lines: Vec<&str> = text.split_inclusive('\n').collect();
                let start = match count {
                    Count::Last(n) => lines.len().saturating_sub(n),
                    Count::From(n) => n.saturating_sub(1).min(lines.len()),
                };
                lines[start..].concat()
            };
            self.write(&out);
        }
        if follow {
            return self.sleep(None);
        }
        Flow::Normal
    }

    /// `touch FILE...`.
    fn builtin_touch(&mut self, args: &[String]) -> Flow {
        for a in args.iter().filter(|a| !a.starts_with('-')) {
            let path = absolute(a);
            if self.files.contains_key(&path) {
                continue;
            }
            let problem = if path.len() > PATH_MAX {
                "File name too long"
            } else if self.files.len() >= MAX_FILES {
                "No space left on device"
            } else {
                self.files.insert(path, String::new());
                continue;
            };
            self.error(format!("touch: {a}: {problem}"));
            self.status = 1;
        }
        Flow::Normal
    }

    /// `rm [-f] FILE...`.
    fn builtin_rm(&mut self, args: &[String]) -> Flow {
        let force = args.iter().any(|a| a.starts_with('-') && a.contains('f'));
        for a in args.iter().filter(|a| !a.starts_with('-')) {
            if self.files.remove(&absolute(a)).is_none() && !force {
                self.error(format!("rm: can't remove '{a}': No such file or directory"));
                self.status = 1;
            }
        }
        Flow::Normal
    }

    /// `ls [DIR]`.
    fn builtin_ls(&mut self, args: &[String]) -> Flow {
        let dirs: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
        let dir = dirs
            .first()
            .map(|d| absolute(d).trim_end_matches('/').to_string())
            .unwrap_or_default();
        if self.files.contains_key(&dir) {
            let text = format!("{dir}\n");
            self.write(&text);
        } else if dir.is_empty() || self.is_dir(&dir) {
            let prefix = format!("{dir}/");
            let mut names = std::collections::BTreeSet::new();
            for path in self.files.keys() {
                if let Some(rest) = path.strip_prefix(&prefix) {
                    // A path ending in `/` marks a directory (an empty mount).
                    if let Some(first) = rest.split('/').next().filter(|f| !f.is_empty()) {
                        names.insert(first.to_string());
                    }
                }
            }
            let text: String = names.into_iter().map(|n| format!("{n}\n")).collect();
            self.write(&text);
        } else {
            self.error(format!("ls: {dir}: No such file or directory"));
            self.status = 1;
        }
        Flow::Normal
    }

    /// Anything else: a program of the image, or `not found`.
    fn builtin_program(&mut self, argv: &[String]) -> Flow {
        let env = self.env_pairs();
        // The program's environment is copied: work too.
        if !self.charge(env.iter().map(|(k, v)| k.len() + v.len()).sum()) {
            return Flow::Stop;
        }
        self.outside_reads += 1;
        match self.programs.run(argv, &env) {
            Some(out) => {
                self.write(&out.text);
                self.status = out.status;
            }
            None => {
                self.error(format!("sh: {}: not found", argv[0]));
                self.status = 127;
            }
        }
        Flow::Normal
    }

    /// Whether some file lives under `path`.
    fn is_dir(&self, path: &str) -> bool {
        let path = &absolute(path);
        let prefix = format!("{}/", path.trim_end_matches('/'));
        self.files
            .range(prefix.clone()..)
            .next()
            .is_some_and(|(k, _)| k.starts_with(&prefix))
    }

    fn env_pairs(&self) -> Vec<(String, String)> {
        let mut seen = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for k in &self.exported {
            if seen.insert(k.clone()) {
                if let Some(v) = self.vars.get(k) {
                    out.push((k.clone(), v.clone()));
                }
            }
        }
        out
    }
}

fn parse_sleep(a: &str) -> Option<u64> {
    let (num, unit) = match a.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&a[..i], &a[i..]),
        None => (a, "s"),
    };
    let scale = match unit {
        "s" => 1000.0,
        "m" => 60_000.0,
        "h" => 3_600_000.0,
        "d" => 86_400_000.0,
        _ => return None,
    };
    let v: f64 = num.parse().ok()?;
    if !v.is_finite() || v < 0.0 {
        return None;
    }
    Some((v * scale).min(1e15) as u64)
}

fn printf(format: &str, args: &[String]) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    let chars: Vec<char> = format.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            match chars[i + 1] {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                '\\' => out.push('\\'),
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
            i += 2;
            continue;
        }
        if c == '%' && i + 1 < chars.len() {
            match chars[i + 1] {
                's' => out.push_str(args.next().map(String::as_str).unwrap_or("")),
                'd' | 'i' => out.push_str(
                    &args
                        .next()
                        .and_then(|a| a.parse::<i64>().ok())
                        .unwrap_or(0)
                        .to_string(),
                ),
                '%' => out.push('%'),
                other => {
                    out.push('%');
                    out.push(other);
                }
            }
            i += 2;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// `test`/`[`; `exists(path, directory)` says whether a file (or, with `directory`,
/// a directory) is there.
fn test(args: &[String], exists: impl Fn(&str, bool) -> bool) -> Result<bool, String> {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let int = |s: &str| {
        s.trim()
            .parse::<i64>()
            .map_err(|_| format!("{s}: bad number"))
    };
    // Each leading `!` negates the rest: counted, not recursed into.
    let bangs = a
        .iter()
        .take(a.len().saturating_sub(1))
        .take_while(|s| **s == "!")
        .count();
    let result = match a[bangs..] {
        [] => Ok(false),
        [s] => Ok(!s.is_empty()),
        ["-z", s] => Ok(s.is_empty()),
        ["-n", s] => Ok(!s.is_empty()),
        ["-e" | "-r", p] => Ok(exists(p, false)),
        ["-f", p] => Ok(exists(p, false) && !exists(p, true)),
        ["-d", p] => Ok(exists(p, true)),
        [x, "=" | "==", y] => Ok(x == y),
        [x, "!=", y] => Ok(x != y),
        [x, op @ ("-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge"), y] => {
            let (x, y) = (int(x)?, int(y)?);
            Ok(match op {
                "-eq" => x == y,
                "-ne" => x != y,
                "-lt" => x < y,
                "-le" => x <= y,
                "-gt" => x > y,
                _ => x >= y,
            })
        }
        _ => Err("syntax error: unexpected argument".into()),
    };
    result.map(|b| b != (bangs % 2 == 1))
}

/// Evaluates `$((expr))`: integers, variables, `+ - * / % **`, comparisons, unary
/// `+ -` and parentheses, in 64-bit arithmetic that wraps as bash's and ash's do.
/// The error is the message after `sh: ` (busybox ash's: `divide by zero`,
/// `exponent less than 0`, `arithmetic syntax error`); parentheses deeper than
/// [`MAX_NESTING`] are `expression recursion level exceeded` (bash's words).
fn arith(expr: &str, sh: &Shell) -> Result<i64, String> {
    let tokens = arith_tokens(expr, sh)?;
    let mut p = Arith {
        tokens,
        pos: 0,
        depth: sh.depth,
    };
    let v = p.compare()?;
    if p.pos != p.tokens.len() {
        return Err(ARITH_SYNTAX.into());
    }
    Ok(v)
}

const ARITH_SYNTAX: &str = "arithmetic syntax error";

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(i64),
    Op(&'static str),
}

/// A decimal constant as `strtoimax` reads it: past the 64-bit range it stays at
/// the limit (dash and ash do this).
fn arith_number(digits: &str) -> Result<i64, String> {
    if !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(ARITH_SYNTAX.into());
    }
    Ok(digits.parse().unwrap_or(i64::MAX))
}

fn arith_tokens(expr: &str, sh: &Shell) -> Result<Vec<Tok>, String> {
    const OPS: [&str; 14] = [
        "**", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "(", ")", "<", ">",
    ];
    let chars: Vec<char> = expr.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        if is_ifs_whitespace(c) {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            out.push(Tok::Num(arith_number(&s)?));
        } else if c == '$' || c.is_ascii_alphabetic() || c == '_' {
            if c == '$' {
                i += 1;
            }
            let braced = chars.get(i) == Some(&'{');
            if braced {
                i += 1;
            }
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            if braced {
                i += 1;
            }
            let value = sh.var(&name);
            let v = value.trim_matches(is_ifs_whitespace);
            let n = match v.strip_prefix('-') {
                Some(digits) => arith_number(digits)?.wrapping_neg(),
                None if v.is_empty() => 0,
                None => arith_number(v)?,
            };
            out.push(Tok::Num(n));
        } else {
            let rest: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            match OPS.iter().find(|op| rest.starts_with(**op)) {
                Some(op) => {
                    out.push(Tok::Op(op));
                    i += op.len();
                }
                None => return Err(ARITH_SYNTAX.into()),
            }
        }
    }
    Ok(out)
}

struct Arith {
    tokens: Vec<Tok>,
    pos: usize,
    /// Parentheses open at the cursor, counted on from the command lists around.
    depth: usize,
}

/// `base ** exp` by squaring, wrapping as bash's repeated multiplication does.
fn wrapping_pow(mut base: i64, mut exp: i64) -> i64 {
    let mut result: i64 = 1;
    while exp > 0 {
        if exp & 1 == 1 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exp >>= 1;
    }
    result
}

impl Arith {
    fn op(&self) -> Option<&'static str> {
        match self.tokens.get(self.pos) {
            Some(Tok::Op(o)) => Some(o),
            _ => None,
        }
    }

    /// The operator at the cursor if it is one of `ops` (and moves past it).
    fn eat(&mut self, ops: &[&str]) -> Option<&'static str> {
        let op = self.op().filter(|o| ops.contains(o))?;
        self.pos += 1;
        Some(op)
    }

    fn compare(&mut self) -> Result<i64, String> {
        let mut v = self.sum()?;
        while let Some(op) = self.eat(&["<", ">", "<=", ">=", "==", "!="]) {
            let r = self.sum()?;
            v = i64::from(match op {
                "<" => v < r,
                ">" => v > r,
                "<=" => v <= r,
                ">=" => v >= r,
                "==" => v == r,
                _ => v != r,
            });
        }
        Ok(v)
    }

    fn sum(&mut self) -> Result<i64, String> {
        let mut v = self.product()?;
        while let Some(op) = self.eat(&["+", "-"]) {
            let r = self.product()?;
            v = if op == "+" {
                v.wrapping_add(r)
            } else {
                v.wrapping_sub(r)
            };
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<i64, String> {
        let mut v = self.power()?;
        while let Some(op) = self.eat(&["*", "/", "%"]) {
            let r = self.power()?;
            v = match op {
                "*" => v.wrapping_mul(r),
                _ if r == 0 => return Err("divide by zero".into()),
                "/" => v.wrapping_div(r),
                _ => v.wrapping_rem(r),
            };
        }
        Ok(v)
    }

    /// `a ** b ** c` groups from the right: the operands are gathered in a loop
    /// and folded, so a long chain needs no deep stack.
    fn power(&mut self) -> Result<i64, String> {
        let mut operands = vec![self.unary()?];
        while self.eat(&["**"]).is_some() {
            operands.push(self.unary()?);
        }
        let mut v = operands.pop().unwrap_or(0);
        while let Some(base) = operands.pop() {
            if v < 0 {
                return Err("exponent less than 0".into());
            }
            v = wrapping_pow(base, v);
        }
        Ok(v)
    }

    /// Unary signs (counted in a loop), then a number or a parenthesised expression.
    fn unary(&mut self) -> Result<i64, String> {
        let mut negative = false;
        while let Some(op) = self.eat(&["+", "-"]) {
            negative ^= op == "-";
        }
        let v = match self.tokens.get(self.pos).cloned() {
            Some(Tok::Num(n)) => {
                self.pos += 1;
                n
            }
            Some(Tok::Op("(")) => {
                self.depth += 1;
                if self.depth > MAX_NESTING {
                    return Err("expression recursion level exceeded".into());
                }
                self.pos += 1;
                let v = self.compare()?;
                if self.eat(&[")"]).is_none() {
                    return Err(ARITH_SYNTAX.into());
                }
                self.depth -= 1;
                v
            }
            _ => return Err(ARITH_SYNTAX.into()),
        };
        Ok(if negative { v.wrapping_neg() } else { v })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Context {
        Context {
            env: vec![("HOSTNAME".into(), "counter".into())],
            started_ms: 0,
            argv0: "sh".into(),
            args: vec![],
            files: BTreeMap::new(),
            mounts: Default::default(),
        }
    }

    fn text(r: &Replay) -> Vec<String> {
        r.lines.iter().map(|(_, l)| l.clone()).collect()
    }

    #[test]
    fn the_docs_counter_prints_one_line_a_second_with_the_date() {
        let script = r#"i=0; while true; do echo "$i: $(date)"; i=$((i+1)); sleep 1; done"#;
        let r = run(script, &ctx(), 3_500, 1_000_000);
        assert_eq!(
            text(&r),
            vec![
                "0: Thu Jan  1 00:00:00 UTC 2026",
                "1: Thu Jan  1 00:00:01 UTC 2026",
                "2: Thu Jan  1 00:00:02 UTC 2026",
                "3: Thu Jan  1 00:00:03 UTC 2026",
            ]
        );
        assert_eq!(r.end, End::Horizon);
    }

    #[test]
    fn tail_prints_the_end_of_a_file_as_busybox_does() {
        let mut c = ctx();
        let log: String = (1..=12).map(|i| format!("line {i}\n")).collect();
        c.files.insert("/var/log/app.log".into(), log);
        c.files.insert("/tmp/b".into(), "x\ny\n".into());
        let out = |script: &str| text(&run(script, &c, u64::MAX, 10_000));
        assert_eq!(out("tail /var/log/app.log").len(), 10);
        assert_eq!(
            out("tail -n 2 /var/log/app.log"),
            vec!["line 11", "line 12"]
        );
        assert_eq!(out("tail -n2 /var/log/app.log"), vec!["line 11", "line 12"]);
        assert_eq!(out("tail -1 /var/log/app.log"), vec!["line 12"]);
        assert_eq!(out("tail -n +12 /var/log/app.log"), vec!["line 12"]);
        assert_eq!(out("tail -c 2 /tmp/b"), vec!["y"]);
        assert_eq!(
            out("tail -n 1 /tmp/b /var/log/app.log"),
            vec![
                "==> /tmp/b <==",
                "y",
                "",
                "==> /var/log/app.log <==",
                "line 12"
            ]
        );
        assert_eq!(
            out("tail /nope; echo $?"),
            vec!["tail: can't open '/nope': No such file or directory", "1"]
        );
        assert_eq!(
            out("tail -n x /tmp/b; echo $?"),
            vec!["tail: invalid number 'x'", "1"]
        );
        // Following prints what is there, then waits.
        let r = run("tail -n 1 -f /tmp/b", &c, 5_000, 10_000);
        assert_eq!(text(&r), vec!["y"]);
        assert_eq!(r.end, End::Blocked);
    }

    #[test]
    fn exits_sequences_and_conditionals() {
        let r = run("echo hi; sleep 5; exit 3", &ctx(), u64::MAX, 1000);
        assert_eq!(text(&r), vec!["hi"]);
        assert_eq!(
            r.end,
            End::Exited {
                at_ms: 5000,
                code: 3
            }
        );
        let r = run("false && echo no || echo yes", &ctx(), u64::MAX, 1000);
        assert_eq!(text(&r), vec!["yes"]);
        let r = run(
            "for i in 1 2 3; do if [ $i -eq 2 ]; then continue; fi; echo $i; done",
            &ctx(),
            u64::MAX,
            1000,
        );
        assert_eq!(text(&r), vec!["1", "3"]);
        assert_eq!(r.end, End::Exited { at_ms: 0, code: 0 });
    }

    #[test]
    fn output_redirections_reach_their_files_and_sinks() {
        let ctx = ctx();
        let r = run(
            "echo one > /tmp/f; echo two >> /tmp/f; cat /tmp/f; echo gone > /dev/null; echo err >&2; echo after",
            &ctx,
            u64::MAX,
            1000,
        );
        assert_eq!(text(&r), vec!["one", "two", "err", "after"]);
        assert_eq!(
            r.files.get("/tmp/f").map(String::as_str),
            Some("one\ntwo\n")
        );
        // `>` empties the file when it is set up; a bare redirection creates it.
        let r = run(
            "> /tmp/e; echo x > /tmp/e; echo y > /tmp/e; cat /tmp/e",
            &ctx,
            u64::MAX,
            1000,
        );
        assert_eq!(text(&r), vec!["y"]);
        // Error output: discarded, joined with stdout (in order, left to right), or kept.
        let r = run(
            "nope 2>/dev/null; echo $?; v=$(nope 2>&1); echo \"[$v]\"; nope > /dev/null 2>&1; nope 2> /tmp/err; cat /tmp/err",
            &ctx,
            u64::MAX,
            1000,
        );
        assert_eq!(
            text(&r),
            vec!["127", "[sh: nope: not found]", "sh: nope: not found"]
        );
        // `2>&1 >/dev/null`: stderr goes where stdout pointed before, stdout away.
        let r = run(
            "v=$(nope 2>&1 >/dev/null); echo \"[$v]\"",
            &ctx,
            u64::MAX,
            1000,
        );
        assert_eq!(text(&r), vec!["[sh: nope: not found]"]);
        // The docs' postStart-style line and an indexed Job's data file.
        let r = run(
            "echo Hello from the postStart handler > /usr/share/message; cat /usr/share/message",
            &ctx,
            u64::MAX,
            1000,
        );
        assert_eq!(text(&r), vec!["Hello from the postStart handler"]);
    }

    #[test]
    fn redirected_files_stay_within_the_file_limits() {
        let ctx = ctx();
        let long = format!("/{}", "a".repeat(PATH_MAX));
        let r = run(&format!("echo x > {long}; echo $?"), &ctx, u64::MAX, 1000);
        assert_eq!(text(&r)[1], "1");
        assert!(
            text(&r)[0].ends_with("File name too long"),
            "{:?}",
            text(&r)
        );
        let r = run(
            "i=0; while [ $i -lt 1100 ]; do echo x > /tmp/f$i; i=$((i+1)); done; echo $?",
            &ctx,
            u64::MAX,
            1_000_000,
        );
        assert!(r.files.len() <= MAX_FILES);
        assert!(
            text(&r)
                .iter()
                .any(|l| l.ends_with("No space left on device")),
            "{:?}",
            text(&r).last()
        );
    }

    #[test]
    fn unsupported_syntax_is_a_syntax_error_with_status_2() {
        for script in [
            "echo a | grep a",
            "cat < /tmp/x",
            "echo a >",
            "echo a 3> /tmp/x",
            "echo a >&3",
            "while true; do echo",
            "(echo)",
        ] {
            let r = run(script, &ctx(), u64::MAX, 1000);
            assert!(matches!(r.end, End::Exited { code: 2, .. }), "{script}");
            assert!(
                r.lines[0].1.starts_with("sh: syntax error"),
                "{script}: {:?}",
                r.lines
            );
        }
    }

    #[test]
    fn endless_loops_without_sleep_run_out_of_budget_not_forever() {
        let r = run("while true; do :; done", &ctx(), u64::MAX, 10_000);
        assert_eq!(r.end, End::Budget { at_ms: 0 });
        let r = run("sleep infinity", &ctx(), u64::MAX, 10_000);
        assert_eq!(r.end, End::Blocked);
    }

    #[test]
    fn unknown_commands_print_not_found_and_set_127() {
        let r = run("nope; echo $?", &ctx(), u64::MAX, 1000);
        assert_eq!(text(&r), vec!["sh: nope: not found", "127"]);
    }

    #[test]
    fn variables_quotes_and_printenv() {
        let r = run(
            r#"X="a  b"; echo $X; echo "$X" '$X' ${HOSTNAME}; printenv HOSTNAME"#,
            &ctx(),
            u64::MAX,
            1000,
        );
        assert_eq!(text(&r), vec!["a b", "a  b $X counter", "counter"]);
    }
}

/// Regressions: every construct bounded in steps, depth and size.
#[cfg(test)]
mod bounds {
    use super::*;

    fn ctx() -> Context {
        Context {
            env: vec![("HOSTNAME".into(), "counter".into())],
            argv0: "sh".into(),
            ..Context::default()
        }
    }

    fn text(r: &Replay) -> Vec<String> {
        r.lines.iter().map(|(_, l)| l.clone()).collect()
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
    fn a_loop_skipped_ahead_keeps_the_log_within_its_byte_limit() {
        // Long lines from a steady loop: the skipped-ahead copies count towards
        // MAX_LOG_BYTES like lines written one by one (they once did not, and the
        // byte count underflowed as the log dropped its oldest lines).
        let script = format!(
            "x={}; while true; do echo $x; sleep 1; done",
            "y".repeat(8 * 1024)
        );
        let r = run(&script, &ctx(), 30 * 24 * 3_600_000, 1_000_000);
        let bytes: usize = r.lines.iter().map(|(_, l)| l.len()).sum();
        assert!(bytes <= MAX_LOG_BYTES, "{bytes} bytes of log");
        assert!(r.lines.len() > 1_000, "{} lines", r.lines.len());
        assert!(
            r.lines.windows(2).all(|w| w[0].0 <= w[1].0),
            "log out of order"
        );
    }

    #[test]
    fn carriage_returns_and_unicode_spaces_are_word_characters_as_in_bash() {
        for c in ['\r', '\u{b}', '\u{c}', '\u{a0}', '\u{2028}'] {
            let r = run(&format!("echo a{c}b"), &ctx(), u64::MAX, 1000);
            assert_eq!(text(&r), vec![format!("a{c}b")], "{c:?}");
            let r = run(&format!("echo{c}hi"), &ctx(), u64::MAX, 1000);
            assert_eq!(text(&r), vec![format!("sh: echo{c}hi: not found")], "{c:?}");
            // Field splitting uses the default IFS: space, tab, newline only.
            let r = run(
                &format!("x='a{c}b'; for w in $x; do echo \"[$w]\"; done"),
                &ctx(),
                u64::MAX,
                1000,
            );
            assert_eq!(text(&r), vec![format!("[a{c}b]")], "{c:?}");
        }
        let r = run("echo a\r\necho b\r", &ctx(), u64::MAX, 1000);
        assert_eq!(text(&r), vec!["a\r".to_string(), "b\r".to_string()]);
    }

    #[test]
    fn words_where_an_operator_belongs_are_errors_not_endless_loops() {
        for script in [
            "for i in a ) b; do echo; done",
            "for i in a | b; do :; done",
        ] {
            let r = run(script, &ctx(), u64::MAX, 1000);
            assert!(
                matches!(r.end, End::Exited { code: 2, .. }),
                "{script}: {r:?}"
            );
        }
    }

    #[test]
    fn a_script_ending_in_a_backslash_prints_it() {
        let r = run("echo a\\", &ctx(), u64::MAX, 1000);
        assert_eq!(text(&r), vec!["a\\"]);
        let r = run("\\", &ctx(), u64::MAX, 1000);
        assert_eq!(text(&r), vec!["sh: \\: not found"]);
        let r = run("echo a &&\\", &ctx(), u64::MAX, 1000);
        assert!(matches!(r.end, End::Exited { .. }), "{r:?}");
    }

    #[test]
    fn doubling_a_variable_runs_out_of_memory_with_ashs_message() {
        let r = run(
            "x=a; while true; do x=$x$x; done",
            &ctx(),
            u64::MAX,
            1_000_000,
        );
        assert_eq!(text(&r), vec!["sh: out of memory"]);
        assert!(matches!(r.end, End::Exited { code: 2, .. }), "{:?}", r.end);
        let r = run(
            "x=a; while true; do x=\"$x$(echo $x)\"; done",
            &ctx(),
            u64::MAX,
            1_000_000,
        );
        assert_eq!(text(&r), vec!["sh: out of memory"]);
        // Many large variables: the shell's memory as a whole is bounded too.
        let r = run(
            "x=a; i=0; while [ $i -lt 20 ]; do x=$x$x; i=$((i+1)); done; while true; do eval=1; export v$i=$x; i=$((i+1)); done",
            &ctx(),
            u64::MAX,
            10_000_000,
        );
        assert_eq!(
            text(&r).last().map(String::as_str),
            Some("sh: out of memory"),
            "{:?}",
            r.end
        );
    }

    #[test]
    fn output_in_a_loop_is_bounded_by_the_step_budget_and_the_log_size() {
        // A huge line written again and again: work is charged by the byte.
        let r = run(
            "x=a; i=0; while [ $i -lt 19 ]; do x=$x$x; i=$((i+1)); done; while true; do echo $x; done",
            &ctx(),
            u64::MAX,
            EXIT_SEARCH_BUDGET_FOR_TESTS,
        );
        assert!(matches!(r.end, End::Budget { .. }), "{:?}", r.end);
        let bytes: usize = r.lines.iter().map(|(_, l)| l.len()).sum();
        assert!(bytes <= MAX_LOG_BYTES, "{bytes}");
        // A line that never ends (`echo -n` in a loop) is cut, as the log rotates.
        let r = run(
            "while true; do echo -n abcdefghijklmnopqrstuvwxyz; done",
            &ctx(),
            u64::MAX,
            EXIT_SEARCH_BUDGET_FOR_TESTS,
        );
        let bytes: usize = r.lines.iter().map(|(_, l)| l.len()).sum();
        assert!(bytes <= MAX_LOG_BYTES, "{bytes}");
        assert!(r.lines.iter().all(|(_, l)| l.len() <= MAX_VALUE_BYTES));
    }

    const EXIT_SEARCH_BUDGET_FOR_TESTS: u64 = 200_000;

    #[test]
    fn long_and_or_chains_run_on_a_small_stack() {
        let script = format!("true{}", " && true || false".repeat(20_000));
        let r = on_small_stack(move || run(&script, &ctx(), u64::MAX, 1_000_000));
        assert_eq!(r.end, End::Exited { at_ms: 0, code: 0 });
        let script = format!("echo a{}", " && echo a".repeat(100));
        let r = on_small_stack(move || run(&script, &ctx(), u64::MAX, 1_000_000));
        assert_eq!(r.lines.len(), 101);
    }

    #[test]
    fn deep_nesting_is_refused_with_a_message_on_a_small_stack() {
        let n = 5_000;
        let deep = [
            format!("echo $(({}1{}))", "(".repeat(n), ")".repeat(n)),
            format!("echo $(({}1))", "-".repeat(n)),
            format!("echo $(({}1))", "- ".repeat(n)),
            format!("echo {}x{}", "$(echo ".repeat(n), ")".repeat(n)),
            format!("{}true{}", "if true; then ".repeat(n), "; fi".repeat(n)),
            format!("{}true{}", "while false; do ".repeat(n), "; done".repeat(n)),
            format!("{}echo x`", "echo `".repeat(2)),
            format!("[ {} x ]", "! ".repeat(n * 20)),
            // Arithmetic deep inside substitutions: the levels add up.
            format!(
                "echo {}$(({}1{})){}",
                "$(echo ".repeat(MAX_NESTING - 4),
                "(".repeat(MAX_NESTING),
                ")".repeat(MAX_NESTING),
                ")".repeat(MAX_NESTING - 4)
            ),
            format!("echo $(({}1))", "2**".repeat(n)),
        ];
        for script in deep {
            let shown = script.chars().take(40).collect::<String>();
            let r = on_small_stack(move || run(&script, &ctx(), u64::MAX, 1_000_000));
            assert!(matches!(r.end, End::Exited { .. }), "{shown}: {:?}", r.end);
        }
        // At the limit, nesting still works.
        let ok = format!(
            "echo $(({}1{}))",
            "(".repeat(MAX_NESTING - 2),
            ")".repeat(MAX_NESTING - 2)
        );
        let r = on_small_stack(move || run(&ok, &ctx(), u64::MAX, 1_000_000));
        assert_eq!(text(&r), vec!["1"]);
        let ok = format!(
            "{}echo x{}",
            "if true; then ".repeat(MAX_NESTING - 2),
            "; fi".repeat(MAX_NESTING - 2)
        );
        let r = on_small_stack(move || run(&ok, &ctx(), u64::MAX, 1_000_000));
        assert_eq!(text(&r), vec!["x"]);
        let ok = format!(
            "echo {}x{}",
            "$(echo ".repeat(MAX_NESTING - 2),
            ")".repeat(MAX_NESTING - 2)
        );
        let r = on_small_stack(move || run(&ok, &ctx(), u64::MAX, 1_000_000));
        assert_eq!(text(&r), vec!["x"]);
        let too_deep = format!(
            "{}echo x{}",
            "if true; then ".repeat(MAX_NESTING + 1),
            "; fi".repeat(MAX_NESTING + 1)
        );
        let r = on_small_stack(move || run(&too_deep, &ctx(), u64::MAX, 1_000_000));
        assert_eq!(text(&r), vec!["sh: syntax error: nested too deeply"]);
    }

    #[test]
    fn seq_near_the_int64_limits_stops_instead_of_wrapping() {
        let r = run(
            "seq 9223372036854775806 9223372036854775807",
            &ctx(),
            u64::MAX,
            1000,
        );
        assert_eq!(text(&r), vec!["9223372036854775806", "9223372036854775807"]);
        let r = run(
            "seq -9223372036854775807 -1 -9223372036854775808",
            &ctx(),
            u64::MAX,
            1000,
        );
        assert_eq!(
            text(&r),
            vec!["-9223372036854775807", "-9223372036854775808"]
        );
        let r = run(
            "seq 9223372036854775807 9223372036854775807 9223372036854775807",
            &ctx(),
            u64::MAX,
            1000,
        );
        assert_eq!(text(&r), vec!["9223372036854775807"]);
        // A long sequence is charged by its size: it runs out of budget, not memory.
        let r = run("seq 1 -1 -9223372036854775808", &ctx(), u64::MAX, 10_000);
        assert!(matches!(r.end, End::Budget { .. }), "{:?}", r.end);
        let r = run(
            "x=$(seq 1 9223372036854775807)",
            &ctx(),
            u64::MAX,
            10_000_000,
        );
        assert_eq!(text(&r), vec!["sh: out of memory"]);
    }

    #[test]
    fn arithmetic_wraps_as_in_bash_and_errors_are_ashs() {
        let cases = [
            ("echo $((9223372036854775807+1))", "-9223372036854775808"),
            ("echo $((-9223372036854775807-1))", "-9223372036854775808"),
            (
                "echo $(((-9223372036854775807-1)/-1))",
                "-9223372036854775808",
            ),
            ("echo $(((-9223372036854775807-1)%-1))", "0"),
            (
                "echo $((2**10)) $((2**63)) $((-2**3)) $((2**3**2))",
                "1024 -9223372036854775808 -8 512",
            ),
            ("echo $((3**9223372036854775807))", "-6148914691236517205"),
            ("echo $((99999999999999999999))", "9223372036854775807"),
        ];
        for (script, want) in cases {
            let r = run(script, &ctx(), u64::MAX, 1000);
            assert_eq!(text(&r), vec![want.to_string()], "{script}");
        }
        for (script, want) in [
            ("echo $((1/0))", "sh: divide by zero"),
            ("echo $((1%0))", "sh: divide by zero"),
            ("echo $((2**-1))", "sh: exponent less than 0"),
            ("echo $((1+))", "sh: arithmetic syntax error"),
        ] {
            let r = run(script, &ctx(), u64::MAX, 1000);
            assert_eq!(text(&r), vec![want.to_string()], "{script}");
            assert!(matches!(r.end, End::Exited { code: 2, .. }), "{script}");
        }
    }

    #[test]
    fn files_the_shell_creates_are_bounded_as_a_full_disk() {
        let r = run(
            "i=0; while touch /tmp/f$i; do i=$((i+1)); done; echo $i",
            &ctx(),
            u64::MAX,
            1_000_000,
        );
        assert_eq!(
            text(&r),
            vec![
                format!("touch: /tmp/f{MAX_FILES}: No space left on device"),
                MAX_FILES.to_string()
            ]
        );
        assert_eq!(r.files.len(), MAX_FILES);
        let long = "x".repeat(PATH_MAX + 1);
        let r = run(&format!("touch /{long}; echo $?"), &ctx(), u64::MAX, 1000);
        assert_eq!(
            text(&r),
            vec![format!("touch: /{long}: File name too long"), "1".into()]
        );
        assert!(r.files.is_empty());
    }

    #[test]
    fn sleep_and_exit_with_huge_numbers_neither_wrap_nor_panic() {
        let r = run(
            "sleep 99999999999999999999999; echo after",
            &ctx(),
            10_000,
            1000,
        );
        assert_eq!(r.end, End::Horizon);
        let r = run(
            "sleep 9999999999999999d 9999999999999999d; echo after",
            &ctx(),
            10_000,
            1000,
        );
        assert_eq!(r.end, End::Horizon);
        let r = run("exit 99999999999999999999999", &ctx(), u64::MAX, 1000);
        assert!(matches!(r.end, End::Exited { code: 2, .. }), "{:?}", r.end);
        let r = run(
            "for i in 1 2; do for j in 1 2; do break 99999999999; done; echo $i; done",
            &ctx(),
            u64::MAX,
            1000,
        );
        assert_eq!(text(&r), vec!["1", "2"]);
    }
}
