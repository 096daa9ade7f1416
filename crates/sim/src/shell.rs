//! A small, deterministic POSIX-like shell: what a container's `sh -c '...'` runs.
//!
//! Mirrors the subset of busybox `ash` that the Kubernetes docs' examples use: simple
//! commands, `;`, `&&`, `||`, newlines, variables and `${x}`, `$((i+1))`, `$(cmd)` and
//! backquotes, quotes and backslashes, `while`/`until`, `for`, `if`/`elif`/`else`,
//! `break`, `continue`, and the builtins and applets `echo`, `printf`, `sleep`, `exit`,
//! `true`, `false`, `:`, `date`, `printenv`, `env`, `export`, `unset`, `test`/`[`, `seq`,
//! `hostname`, `cat`, `read`, `tail -f`. Simplified: pipes, redirections, background
//! jobs, subshells and functions are not simulated; a script using them fails as a
//! syntax error (`sh: syntax error: unexpected "|"`, exit status 2), never a panic.
//!
//! The shell never runs in real time. [`run`] replays a script from its start up to a
//! horizon (simulated milliseconds since the process started): `sleep` only moves the
//! shell's clock forward. The same script and start time always give the same lines at
//! the same instants, so a container's log is computed when someone asks for it, and
//! only its exit needs a timer.

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
    /// The container's files (path → content): mounted volumes, `/etc/resolv.conf`,
    /// ... Directories exist implicitly.
    pub files: BTreeMap<String, String>,
}

/// The most log lines a replay keeps (the oldest are dropped, as a rotated log).
pub const MAX_LINES: usize = 10_000;

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

#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    Simple {
        assigns: Vec<(String, Word)>,
        words: Vec<Word>,
    },
    Seq(Vec<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
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
    let mut p = Parser {
        chars: script.chars().collect(),
        pos: 0,
        depth: 0,
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
            if c == ' ' || c == '\t' || (newlines && c == '\n') {
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
            rest.split(|c: char| c.is_whitespace() || "|&;<>()".contains(c))
                .next()
                .unwrap_or("")
                .to_string()
        };
        format!("sh: syntax error: unexpected \"{token}\"")
    }

    /// The unquoted word at the cursor, if it is a plain literal (for reserved words).
    fn peek_plain_word(&self) -> Option<String> {
        let mut i = self.pos;
        let mut s = String::new();
        while let Some(&c) = self.chars.get(i) {
            if c.is_whitespace() || "|&;<>()".contains(c) {
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
        if self.depth > 50 {
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
        let mut left = self.pipeline()?;
        loop {
            self.skip_space(false);
            let rest = &self.chars[self.pos..];
            let and = rest.starts_with(&['&', '&']);
            let or = rest.starts_with(&['|', '|']);
            if !and && !or {
                return Ok(left);
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
            let right = self.pipeline()?;
            left = if and {
                Node::And(Box::new(left), Box::new(right))
            } else {
                Node::Or(Box::new(left), Box::new(right))
            };
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
                            _ => words.push(self.word()?),
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

    fn simple(&mut self) -> Result<Node, String> {
        let mut assigns = Vec::new();
        let mut words = Vec::new();
        loop {
            self.skip_space(false);
            match self.peek() {
                None | Some(';') | Some('\n') | Some(')') => break,
                Some('&') if self.chars.get(self.pos + 1) == Some(&'&') => break,
                Some('|') => break,
                Some(c) if "&<>(".contains(c) => return Err(self.unexpected()),
                _ => {}
            }
            // `2>&1` and friends: a digit right before a redirection.
            if self.peek().is_some_and(|c| c.is_ascii_digit())
                && self
                    .chars
                    .get(self.pos + 1)
                    .is_some_and(|c| *c == '>' || *c == '<')
            {
                self.pos += 1;
                return Err(self.unexpected());
            }
            if words.is_empty() {
                if let Some((name, len)) = self.assignment_prefix() {
                    self.pos += len;
                    let value = if self
                        .peek()
                        .is_none_or(|c| c.is_whitespace() || ";&|)".contains(c))
                    {
                        Vec::new()
                    } else {
                        self.word()?
                    };
                    assigns.push((name, value));
                    continue;
                }
            }
            words.push(self.word()?);
        }
        if assigns.is_empty() && words.is_empty() {
            return Err(self.unexpected());
        }
        Ok(Node::Simple { assigns, words })
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

    fn word(&mut self) -> Result<Word, String> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let flush = |lit: &mut String, parts: &mut Vec<Part>| {
            if !lit.is_empty() {
                parts.push(Part::Lit(std::mem::take(lit)));
            }
        };
        while let Some(c) = self.peek() {
            if c.is_whitespace() || "|&;<>()".contains(c) {
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
                        Some('\n') => {}
                        Some(n) => {
                            flush(&mut lit, &mut parts);
                            parts.push(Part::Quoted(n.to_string()));
                        }
                        None => {}
                    }
                    self.pos += 1;
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
                script: parse(&inner)?,
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
}

#[path = "shell_repeat.rs"]
mod repeat;

struct Shell<'p> {
    programs: &'p dyn Programs,
    files: BTreeMap<String, String>,
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
    /// Lines written so far (the log keeps the latest `MAX_LINES`).
    pushed: u64,
    /// Reads of what the script does not control: the clock, programs outside it.
    outside_reads: u64,
    partial: String,
    /// Output of `$(...)` being captured, innermost last.
    captures: Vec<String>,
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
        vars: ctx.env.iter().cloned().collect(),
        exported: ctx.env.iter().map(|(k, _)| k.clone()).collect(),
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
        end: None,
    };
    let flow = sh.exec(node);
    let end = match flow {
        Flow::Stop => sh.end.unwrap_or(End::Horizon),
        Flow::Exit(code) => End::Exited {
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
    fn push_line(&mut self, text: String) {
        if self.lines.len() >= MAX_LINES {
            self.lines.pop_front();
        }
        self.lines.push_back((self.clock, text));
        self.pushed += 1;
    }

    fn write(&mut self, text: &str) {
        if let Some(c) = self.captures.last_mut() {
            c.push_str(text);
            return;
        }
        for ch in text.chars() {
            if ch == '\n' {
                let line = std::mem::take(&mut self.partial);
                self.push_line(line);
            } else {
                self.partial.push(ch);
            }
        }
    }

    /// Error output of the shell or a command goes to the same log.
    fn error(&mut self, text: String) {
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
                for item in items {
                    match self.exec(item) {
                        Flow::Normal => {}
                        other => return other,
                    }
                }
                Flow::Normal
            }
            Node::And(a, b) => match self.exec(a) {
                Flow::Normal if self.status == 0 => self.exec(b),
                other => other,
            },
            Node::Or(a, b) => match self.exec(a) {
                Flow::Normal if self.status != 0 => self.exec(b),
                other => other,
            },
            Node::Not(a) => {
                let flow = self.exec(a);
                if matches!(flow, Flow::Normal) {
                    self.status = i32::from(self.status == 0);
                }
                flow
            }
            Node::Loop { until, cond, body } => {
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
                    if (self.status == 0) == *until {
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
            Node::For { var, items, body } => {
                let values = match items {
                    Some(words) => {
                        let mut v = Vec::new();
                        for w in words {
                            match self.expand(w) {
                                Ok(fields) => v.extend(fields),
                                Err(flow) => return flow,
                            }
                        }
                        v
                    }
                    None => self.args.clone(),
                };
                self.status = 0;
                for value in values {
                    if !self.step() {
                        return Flow::Stop;
                    }
                    self.vars.insert(var.clone(), value);
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
            Node::Simple { assigns, words } => {
                if !self.step() {
                    return Flow::Stop;
                }
                let mut argv = Vec::new();
                for w in words {
                    match self.expand(w) {
                        Ok(fields) => argv.extend(fields),
                        Err(flow) => return flow,
                    }
                }
                let mut values = Vec::new();
                for (name, w) in assigns {
                    match self.expand_joined(w) {
                        Ok(v) => values.push((name.clone(), v)),
                        Err(flow) => return flow,
                    }
                }
                if argv.is_empty() {
                    for (name, value) in values {
                        self.vars.insert(name, value);
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
                    self.vars.insert(name, value);
                }
                let flow = self.command(&argv);
                if !saved.is_empty() {
                    for (name, old) in saved {
                        match old {
                            Some(v) => self.vars.insert(name, v),
                            None => self.vars.remove(&name),
                        };
                    }
                    self.exported.truncate(exported_before);
                }
                flow
            }
        }
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

    /// Expands a word into fields (unquoted expansions split on whitespace).
    fn expand(&mut self, word: &Word) -> Result<Vec<String>, Flow> {
        let mut fields: Vec<String> = Vec::new();
        let mut current: Option<String> = None;
        for part in word {
            let (text, split) = match part {
                Part::Lit(s) => (s.clone(), false),
                Part::Quoted(s) => {
                    current.get_or_insert_with(String::new).push_str(s);
                    continue;
                }
                Part::Var { name, quoted } => (self.var(name), !quoted),
                Part::Arith(expr) => match arith(expr, self) {
                    Ok(v) => (v.to_string(), true),
                    Err(e) => {
                        self.error(format!("sh: arithmetic syntax error: {e}"));
                        return Err(Flow::Exit(2));
                    }
                },
                Part::Subst { script, quoted } => {
                    let out = self.substitute(script)?;
                    (out, !quoted)
                }
            };
            if !split {
                current.get_or_insert_with(String::new).push_str(&text);
                continue;
            }
            let starts_blank = text.starts_with(char::is_whitespace);
            let ends_blank = text.ends_with(char::is_whitespace);
            let pieces: Vec<&str> = text.split_whitespace().collect();
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
            match part {
                Part::Lit(t) | Part::Quoted(t) => s.push_str(t),
                Part::Var { name, .. } => s.push_str(&self.var(name)),
                Part::Arith(expr) => match arith(expr, self) {
                    Ok(v) => s.push_str(&v.to_string()),
                    Err(e) => {
                        self.error(format!("sh: arithmetic syntax error: {e}"));
                        return Err(Flow::Exit(2));
                    }
                },
                Part::Subst { script, .. } => s.push_str(&self.substitute(script)?),
            }
        }
        Ok(s)
    }

    fn substitute(&mut self, script: &Node) -> Result<String, Flow> {
        let vars = self.vars.clone();
        let status = self.status;
        self.captures.push(String::new());
        let flow = self.exec(script);
        let mut out = self.captures.pop().unwrap_or_default();
        self.vars = vars;
        if let Flow::Stop = flow {
            return Err(Flow::Stop);
        }
        if let Flow::Exit(code) = flow {
            self.status = code;
        }
        let _ = status;
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

    fn command(&mut self, argv: &[String]) -> Flow {
        let name = argv[0].rsplit('/').next().unwrap_or(&argv[0]).to_string();
        let args = &argv[1..];
        self.status = 0;
        match name.as_str() {
            "true" | ":" => {}
            "false" => self.status = 1,
            "exit" => {
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
                return Flow::Exit(code);
            }
            "break" | "continue" => {
                let n = args
                    .first()
                    .and_then(|a| a.parse().ok())
                    .unwrap_or(1u32)
                    .max(1);
                return if name == "break" {
                    Flow::Break(n)
                } else {
                    Flow::Continue(n)
                };
            }
            "echo" => {
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
            }
            "printf" => {
                let Some(format) = args.first() else {
                    self.error("printf: usage: printf FORMAT [ARGUMENT...]".into());
                    self.status = 1;
                    return Flow::Normal;
                };
                let text = printf(format, &args[1..]);
                self.write(&text);
            }
            "sleep" => {
                let Some(a) = args.first() else {
                    self.error("sleep: missing operand".into());
                    self.status = 1;
                    return Flow::Normal;
                };
                if a == "infinity" || a == "inf" {
                    return self.sleep(None);
                }
                let mut total = 0u64;
                for a in args {
                    match parse_sleep(a) {
                        Some(ms) => total = total.saturating_add(ms),
                        None => {
                            self.error(format!("sleep: invalid number '{a}'"));
                            self.status = 1;
                            return Flow::Normal;
                        }
                    }
                }
                return self.sleep(Some(total));
            }
            "date" => {
                let ts = k8s_openapi::jiff::Timestamp::from_millisecond(self.now_ms())
                    .unwrap_or(k8s_openapi::jiff::Timestamp::UNIX_EPOCH);
                let dt = ts.to_zoned(k8s_openapi::jiff::tz::TimeZone::UTC);
                let format = match args.first() {
                    Some(f) if f.starts_with('+') => f[1..].to_string(),
                    Some(f) if f == "-u" || f == "-R" || f == "-I" => {
                        "%a %b %e %H:%M:%S UTC %Y".to_string()
                    }
                    Some(f) => {
                        self.error(format!("date: invalid date '{f}'"));
                        self.status = 1;
                        return Flow::Normal;
                    }
                    None => "%a %b %e %H:%M:%S UTC %Y".to_string(),
                };
                let text = format!("{}\n", dt.strftime(&format));
                self.write(&text);
            }
            "printenv" => {
                if args.is_empty() {
                    let text: String = self
                        .env_pairs()
                        .into_iter()
                        .map(|(k, v)| format!("{k}={v}\n"))
                        .collect();
                    self.write(&text);
                } else {
                    let env: BTreeMap<_, _> = self.env_pairs().into_iter().collect();
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
            }
            "env" => {
                let text: String = self
                    .env_pairs()
                    .into_iter()
                    .map(|(k, v)| format!("{k}={v}\n"))
                    .collect();
                self.write(&text);
            }
            "export" => {
                for a in args {
                    match a.split_once('=') {
                        Some((k, v)) => {
                            self.vars.insert(k.to_string(), v.to_string());
                            self.exported.push(k.to_string());
                        }
                        None => self.exported.push(a.clone()),
                    }
                }
            }
            "unset" => {
                for a in args {
                    self.vars.remove(a);
                }
            }
            "test" | "[" => {
                let mut args = args.to_vec();
                if name == "[" {
                    if args.last().map(String::as_str) != Some("]") {
                        self.error("sh: missing ]".into());
                        self.status = 2;
                        return Flow::Normal;
                    }
                    args.pop();
                }
                self.status = match test(&args) {
                    Ok(true) => 0,
                    Ok(false) => 1,
                    Err(e) => {
                        self.error(format!("sh: {e}"));
                        2
                    }
                };
            }
            "seq" => {
                let nums: Vec<i64> = args.iter().filter_map(|a| a.parse().ok()).collect();
                if nums.len() != args.len() || nums.is_empty() || nums.len() > 3 {
                    self.error("seq: invalid argument".into());
                    self.status = 1;
                    return Flow::Normal;
                }
                let (first, step, last) = match nums[..] {
                    [l] => (1, 1, l),
                    [f, l] => (f, 1, l),
                    [f, s, l] => (f, s, l),
                    _ => (1, 1, 0),
                };
                let mut text = String::new();
                let mut i = first;
                let mut count = 0;
                while step != 0 && ((step > 0 && i <= last) || (step < 0 && i >= last)) {
                    text.push_str(&format!("{i}\n"));
                    i += step;
                    count += 1;
                    if count >= 100_000 {
                        break;
                    }
                }
                self.write(&text);
            }
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
            "cat" => {
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
            }
            "touch" => {
                for a in args.iter().filter(|a| !a.starts_with('-')) {
                    self.files.entry(absolute(a)).or_default();
                }
            }
            "mkdir" => {}
            "rm" => {
                let force = args.iter().any(|a| a.starts_with('-') && a.contains('f'));
                for a in args.iter().filter(|a| !a.starts_with('-')) {
                    if self.files.remove(&absolute(a)).is_none() && !force {
                        self.error(format!("rm: can't remove '{a}': No such file or directory"));
                        self.status = 1;
                    }
                }
            }
            "ls" => {
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
                            if let Some(first) = rest.split('/').next() {
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
            }
            "read" => self.status = 1,
            "tail" if args.iter().any(|a| a == "-f" || a == "-F") => return self.sleep(None),
            "tail" => {
                self.error(format!(
                    "tail: can't open '{}': No such file or directory",
                    args.last().cloned().unwrap_or_default()
                ));
                self.status = 1;
            }
            _ => {
                let env = self.env_pairs();
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

fn test(args: &[String]) -> Result<bool, String> {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let int = |s: &str| {
        s.trim()
            .parse::<i64>()
            .map_err(|_| format!("{s}: bad number"))
    };
    match a[..] {
        [] => Ok(false),
        ["!", ref rest @ ..] => {
            test(&rest.iter().map(|s| s.to_string()).collect::<Vec<_>>()).map(|b| !b)
        }
        [s] => Ok(!s.is_empty()),
        ["-z", s] => Ok(s.is_empty()),
        ["-n", s] => Ok(!s.is_empty()),
        ["-e" | "-f" | "-d" | "-r", _] => Ok(false),
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
    }
}

/// Evaluates `$((expr))`: integers, variables, `+ - * / %`, comparisons, parentheses.
fn arith(expr: &str, sh: &Shell) -> Result<i64, String> {
    let tokens = arith_tokens(expr, sh)?;
    let mut p = Arith { tokens, pos: 0 };
    let v = p.compare()?;
    if p.pos != p.tokens.len() {
        return Err(expr.trim().to_string());
    }
    Ok(v)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(i64),
    Op(String),
}

fn arith_tokens(expr: &str, sh: &Shell) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = expr.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            out.push(Tok::Num(s.parse().map_err(|_| expr.trim().to_string())?));
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
            let v = value.trim();
            out.push(Tok::Num(if v.is_empty() {
                0
            } else {
                v.parse().map_err(|_| expr.trim().to_string())?
            }));
        } else {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            if ["<=", ">=", "==", "!="].contains(&two.as_str()) {
                out.push(Tok::Op(two));
                i += 2;
            } else if "+-*/%()<>".contains(c) {
                out.push(Tok::Op(c.to_string()));
                i += 1;
            } else {
                return Err(expr.trim().to_string());
            }
        }
    }
    Ok(out)
}

struct Arith {
    tokens: Vec<Tok>,
    pos: usize,
}

impl Arith {
    fn op(&self) -> Option<&str> {
        match self.tokens.get(self.pos) {
            Some(Tok::Op(o)) => Some(o),
            _ => None,
        }
    }
    fn compare(&mut self) -> Result<i64, String> {
        let mut v = self.sum()?;
        while let Some(op) = self
            .op()
            .filter(|o| ["<", ">", "<=", ">=", "==", "!="].contains(o))
            .map(str::to_string)
        {
            self.pos += 1;
            let r = self.sum()?;
            v = i64::from(match op.as_str() {
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
        while let Some(op) = self
            .op()
            .filter(|o| *o == "+" || *o == "-")
            .map(str::to_string)
        {
            self.pos += 1;
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
        let mut v = self.unary()?;
        while let Some(op) = self
            .op()
            .filter(|o| ["*", "/", "%"].contains(o))
            .map(str::to_string)
        {
            self.pos += 1;
            let r = self.unary()?;
            v = match op.as_str() {
                "*" => v.wrapping_mul(r),
                _ if r == 0 => return Err("divide by zero".into()),
                "/" => v.wrapping_div(r),
                _ => v.wrapping_rem(r),
            };
        }
        Ok(v)
    }
    fn unary(&mut self) -> Result<i64, String> {
        match self.tokens.get(self.pos).cloned() {
            Some(Tok::Num(n)) => {
                self.pos += 1;
                Ok(n)
            }
            Some(Tok::Op(o)) if o == "-" => {
                self.pos += 1;
                Ok(self.unary()?.wrapping_neg())
            }
            Some(Tok::Op(o)) if o == "+" => {
                self.pos += 1;
                self.unary()
            }
            Some(Tok::Op(o)) if o == "(" => {
                self.pos += 1;
                let v = self.compare()?;
                if self.op() != Some(")") {
                    return Err("missing )".into());
                }
                self.pos += 1;
                Ok(v)
            }
            _ => Err("syntax error".into()),
        }
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
    fn unsupported_syntax_is_a_syntax_error_with_status_2() {
        for script in [
            "echo a | grep a",
            "echo a > /tmp/x",
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
