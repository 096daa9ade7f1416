//! Reading a lesson file: YAML front matter, then Markdown whose `##` headings
//! start steps and whose fenced blocks (`kubectl`, `sh`, `yaml`, `check`, `hint`,
//! `solution`, `quiz`, `predict`, `incident`) are the lesson's parts. Every error
//! names the file, line and column and says what was expected.

use crate::error::{yaml_bounds, yaml_error, LessonError};
use crate::markdown;
use crate::model::*;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Parser, Tag, TagEnd};
use serde::Deserialize;
use serde_yaml::Value;
use std::collections::BTreeMap;
use warehouse_sim::StableSort;
use warehouse_sim::{parse_duration, SimDuration};

/// The most bytes a lesson file may have.
pub const MAX_LESSON_BYTES: usize = 512 * 1024;
/// The most steps, and the most conditions of one check.
pub const MAX_STEPS: usize = 50;
pub const MAX_CONDITIONS: usize = 30;
/// The longest a check may wait after its solution, and the longest a predict or an
/// incident may look ahead.
pub const MAX_WITHIN: SimDuration = SimDuration::secs(3_600);

/// The fenced blocks that are parts of a lesson rather than code to show.
pub const BLOCK_KINDS: &[&str] = &[
    "kubectl",
    "sh",
    "bash",
    "yaml",
    "check",
    "hint",
    "solution",
    "near-miss",
    "alternative",
    "quiz",
    "predict",
    "incident",
    "frame",
    "author-note",
];

/// Parses one lesson file. `file` names it in errors.
pub fn parse_lesson(file: &str, text: &str) -> Result<Lesson, Vec<LessonError>> {
    if text.len() > MAX_LESSON_BYTES {
        return Err(vec![LessonError::new(
            file,
            1,
            0,
            format!(
                "the file has {} bytes; a lesson file may have at most {MAX_LESSON_BYTES}",
                text.len()
            ),
        )]);
    }
    let lines = LineIndex::new(text);
    let (meta, body_offset) = front_matter(file, text).map_err(|e| vec![e])?;
    let mut p = BodyParser {
        file,
        lines: &lines,
        errors: Vec::new(),
        intro: Vec::new(),
        steps: Vec::new(),
    };
    p.run(&text[body_offset..], body_offset);
    let BodyParser {
        mut errors,
        intro,
        steps,
        ..
    } = p;
    if steps.is_empty() && errors.is_empty() {
        errors.push(LessonError::new(
            file,
            lines.line_of(body_offset),
            0,
            "the lesson has no steps: start each step with a `## Title` heading",
        ));
    }
    if steps.len() > MAX_STEPS {
        errors.push(LessonError::new(
            file,
            steps[MAX_STEPS].line,
            0,
            format!("a lesson may have at most {MAX_STEPS} steps"),
        ));
    }
    if errors.is_empty() {
        Ok(Lesson {
            file: file.to_string(),
            meta,
            intro,
            steps,
        })
    } else {
        Err(errors)
    }
}

/// Byte offsets to 1-based lines and columns.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    pub(crate) fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }
}

// ---------------------------------------------------------------------------
// Front matter

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawMeta {
    id: String,
    title: String,
    summary: String,
    level: RawLevel,
    #[serde(default)]
    tags: Vec<String>,
    minutes: u32,
    #[serde(default = "default_seed")]
    seed: u64,
    #[serde(default)]
    topology: Option<RawTopology>,
    #[serde(default)]
    settings: Option<RawSettings>,
    #[serde(default)]
    setup: Option<String>,
    #[serde(default)]
    files: Vec<String>,
}

fn default_seed() -> u64 {
    1
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum RawLevel {
    Beginner,
    Intermediate,
    Advanced,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTopology {
    nodes: Vec<RawNode>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNode {
    name: String,
    #[serde(default)]
    cpu: Option<Value>,
    #[serde(default)]
    memory: Option<String>,
    #[serde(default)]
    gpu: Option<u32>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    taints: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawSettings {
    #[serde(default)]
    max_endpoints_per_slice: Option<usize>,
    #[serde(default)]
    etcd_members: Option<usize>,
    #[serde(default)]
    boot: Option<RawBoot>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum RawBoot {
    Settled,
    Cold,
}

/// The front matter and the byte offset where the body starts.
fn front_matter(file: &str, text: &str) -> Result<(Meta, usize), LessonError> {
    let (start, yaml_end, body) = front_matter_bounds(file, text)?;
    let yaml = &text[start..yaml_end];
    yaml_bounds(file, 2, 0, "front matter", yaml)?;
    let raw: RawMeta =
        serde_yaml::from_str(yaml).map_err(|e| yaml_error(file, 2, 0, "front matter", &e))?;
    let fm = FrontMatter { file, yaml };
    check_words(&raw, &fm)?;
    let topology = match raw.topology {
        None => None,
        Some(t) => Some(topology_nodes(t, &fm)?),
    };
    let settings = checked_settings(raw.settings, &fm)?;
    let setup = match &raw.setup {
        None => Vec::new(),
        Some(s) => {
            let first = fm.key_line("setup") + 1;
            s.lines()
                .enumerate()
                .map(|(i, l)| (first + i, l.to_string()))
                .collect()
        }
    };
    check_files(&raw.files, &fm)?;
    Ok((
        Meta {
            id: raw.id,
            title: raw.title.trim().to_string(),
            summary: raw.summary.trim().to_string(),
            level: match raw.level {
                RawLevel::Beginner => Level::Beginner,
                RawLevel::Intermediate => Level::Intermediate,
                RawLevel::Advanced => Level::Advanced,
            },
            tags: raw.tags,
            minutes: raw.minutes,
            seed: raw.seed,
            topology,
            settings,
            setup,
            files: raw.files,
        },
        body,
    ))
}

/// Where the front matter's YAML starts and ends (between the lines `---`) and
/// where the body starts, as byte offsets in `text`.
fn front_matter_bounds(file: &str, text: &str) -> Result<(usize, usize, usize), LessonError> {
    let text_no_bom = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = text.len() - text_no_bom.len();
    let mut it = text_no_bom.split_inclusive('\n');
    let first = it.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Err(LessonError::new(
            file,
            1,
            1,
            "a lesson file starts with front matter: a line `---`, YAML (id, title, summary, level, minutes, ...), and another `---`",
        ));
    }
    let start = bom + first.len();
    let mut offset = start;
    let mut end = None;
    for line in it {
        if line.trim_end() == "---" {
            end = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let Some((yaml_end, body)) = end else {
        return Err(LessonError::new(
            file,
            1,
            1,
            "the front matter is not closed: add a line `---` after it",
        ));
    };
    Ok((start, yaml_end, body))
}

/// The front matter's YAML, for errors at the line of one of its keys.
struct FrontMatter<'a> {
    file: &'a str,
    yaml: &'a str,
}

impl FrontMatter<'_> {
    /// The file line of the top-level `key:` (the YAML starts on line 2), or line 2.
    fn key_line(&self, key: &str) -> usize {
        self.yaml
            .lines()
            .position(|l| l.starts_with(&format!("{key}:")))
            .map(|i| i + 2)
            .unwrap_or(2)
    }

    /// An error at the line of `key`.
    fn fail(&self, key: &str, message: String) -> LessonError {
        LessonError::new(self.file, self.key_line(key), 1, message)
    }
}

/// The id is valid, the title and summary are not empty, minutes is 1 to 600.
fn check_words(raw: &RawMeta, fm: &FrontMatter) -> Result<(), LessonError> {
    if !valid_id(&raw.id) {
        return Err(fm.fail(
            "id",
            format!(
                "id {:?} must be lowercase letters, digits and '-', starting with a letter (at most 63 characters)",
                raw.id
            ),
        ));
    }
    for (key, value) in [("title", &raw.title), ("summary", &raw.summary)] {
        if value.trim().is_empty() {
            return Err(fm.fail(key, format!("{key} must not be empty")));
        }
    }
    if raw.minutes == 0 || raw.minutes > 600 {
        return Err(fm.fail(
            "minutes",
            "minutes is how long the lesson takes: 1 to 600".to_string(),
        ));
    }
    Ok(())
}

/// The worker zones of `topology`, each a valid node.
fn topology_nodes(t: RawTopology, fm: &FrontMatter) -> Result<Vec<NodeDef>, LessonError> {
    if t.nodes.is_empty() || t.nodes.len() > 100 {
        return Err(fm.fail(
            "topology",
            "topology.nodes lists 1 to 100 worker zones (the control-plane node is added for you)"
                .into(),
        ));
    }
    let mut nodes = Vec::new();
    for n in t.nodes {
        let cpu = match n.cpu {
            None => None,
            Some(v) => Some(scalar(&v).ok_or_else(|| {
                fm.fail(
                    "topology",
                    format!(
                        "zone {}: cpu must be a number of cores such as 4 or 500m",
                        n.name
                    ),
                )
            })?),
        };
        let node = NodeDef {
            name: n.name,
            cpu,
            memory: n.memory,
            gpu: n.gpu,
            labels: n.labels.into_iter().collect(),
            taints: n.taints,
        };
        crate::session::node_spec(&node).map_err(|e| fm.fail("topology", e))?;
        nodes.push(node);
    }
    Ok(nodes)
}

/// The settings (the defaults where there are none), in their ranges.
fn checked_settings(raw: Option<RawSettings>, fm: &FrontMatter) -> Result<Settings, LessonError> {
    let settings = match raw {
        None => Settings::default(),
        Some(s) => Settings {
            max_endpoints_per_slice: s.max_endpoints_per_slice,
            etcd_members: s.etcd_members,
            boot: match s.boot {
                None | Some(RawBoot::Settled) => Boot::Settled,
                Some(RawBoot::Cold) => Boot::Cold,
            },
        },
    };
    if let Some(n) = settings.etcd_members {
        if !(1..=warehouse_sim::etcd::MAX_ETCD_MEMBERS).contains(&n) {
            return Err(fm.fail(
                "settings",
                format!(
                    "settings.etcd-members must be 1 to {}",
                    warehouse_sim::etcd::MAX_ETCD_MEMBERS
                ),
            ));
        }
    }
    if let Some(n) = settings.max_endpoints_per_slice {
        if !(1..=1000).contains(&n) {
            return Err(fm.fail(
                "settings",
                "settings.max-endpoints-per-slice must be 1 to 1000 (upstream's range)".into(),
            ));
        }
    }
    Ok(settings)
}

/// `files` lists relative paths inside the lesson's folder.
fn check_files(files: &[String], fm: &FrontMatter) -> Result<(), LessonError> {
    for f in files {
        if f.is_empty()
            || f.starts_with('/')
            || f.split('/').any(|part| part == ".." || part.is_empty())
        {
            return Err(fm.fail(
                "files",
                format!(
                    "files lists paths inside the lesson's folder, such as web.yaml (got {f:?})"
                ),
            ));
        }
    }
    Ok(())
}

/// A lesson id: lowercase letters, digits and dashes, starting with a letter, at most
/// 63 characters, not ending in a dash.
pub fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some('a'..='z'))
        && id.len() <= 63
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !id.ends_with('-')
}

/// A YAML scalar as text (`5`, `"5"`, `true`).
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Body

struct BodyParser<'a> {
    file: &'a str,
    lines: &'a LineIndex,
    errors: Vec<LessonError>,
    intro: Vec<Block>,
    steps: Vec<Step>,
}

impl BodyParser<'_> {
    fn run(&mut self, body: &str, base: usize) {
        let mut events = Parser::new_ext(body, markdown::options())
            .into_offset_iter()
            .peekable();
        while let Some((event, range)) = events.next() {
            let line = self.lines.line_of(base + range.start);
            match event {
                Event::Start(Tag::Heading {
                    level: HeadingLevel::H2,
                    ..
                }) => {
                    let mut title = String::new();
                    for (e, _) in events.by_ref() {
                        match e {
                            Event::End(TagEnd::Heading(_)) => break,
                            Event::Text(t) | Event::Code(t) => title.push_str(&t),
                            _ => {}
                        }
                    }
                    self.steps.push(Step {
                        title: title.trim().to_string(),
                        line,
                        blocks: Vec::new(),
                        check: None,
                        hints: Vec::new(),
                        solution: None,
                        near_misses: Vec::new(),
                        alternatives: Vec::new(),
                        author_notes: 0,
                        incidents: Vec::new(),
                        frame: None,
                    });
                }
                Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info)))
                    if is_block_kind(&info) =>
                {
                    let mut content = String::new();
                    for (e, _) in events.by_ref() {
                        match e {
                            Event::End(TagEnd::CodeBlock) => break,
                            Event::Text(t) => content.push_str(&t),
                            _ => {}
                        }
                    }
                    let kind = info.split_whitespace().next().unwrap_or("").to_string();
                    self.block(&kind, line, content);
                }
                Event::Start(tag) => {
                    // A whole top-level element of prose.
                    let mut buffer = vec![Event::Start(tag)];
                    let mut depth = 1usize;
                    for (e, r) in events.by_ref() {
                        match &e {
                            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info)))
                                if is_block_kind(info) =>
                            {
                                self.error(
                                    self.lines.line_of(base + r.start),
                                    format!(
                                        "a ```{} block must stand on its own, not inside a list or a quote: unindent it",
                                        info.split_whitespace().next().unwrap_or("")
                                    ),
                                );
                            }
                            Event::Html(h) | Event::InlineHtml(h) => {
                                self.raw_html(self.lines.line_of(base + r.start), h)
                            }
                            _ => {}
                        }
                        match &e {
                            Event::Start(_) => {
                                depth += 1;
                                if depth == markdown::MAX_DEPTH + 1 {
                                    self.error(
                                        self.lines.line_of(base + r.start),
                                        format!(
                                            "the text here nests more than {} levels (quotes, lists or emphasis inside one another): a lesson may nest at most {} levels",
                                            markdown::MAX_DEPTH,
                                            markdown::MAX_DEPTH
                                        ),
                                    );
                                }
                            }
                            Event::End(_) => depth -= 1,
                            _ => {}
                        }
                        buffer.push(e);
                        if depth == 0 {
                            break;
                        }
                    }
                    self.prose(markdown::build(buffer));
                }
                Event::Html(h) | Event::InlineHtml(h) => self.raw_html(line, &h),
                Event::Rule => self.prose(markdown::build([Event::Rule])),
                _ => {}
            }
        }
    }

    fn error(&mut self, line: usize, message: impl Into<String>) {
        self.errors
            .push(LessonError::new(self.file, line, 0, message.into()));
    }

    fn raw_html(&mut self, line: usize, html: &str) {
        // A tag split over several events is reported once per line.
        let message = format!(
            "raw HTML ({}) is not rendered in lessons: write Markdown instead",
            html.trim().chars().take(40).collect::<String>()
        );
        if self
            .errors
            .iter()
            .any(|e| e.line == line && e.message.starts_with("raw HTML"))
        {
            return;
        }
        self.error(line, message);
    }

    fn blocks(&mut self) -> &mut Vec<Block> {
        match self.steps.last_mut() {
            Some(s) => &mut s.blocks,
            None => &mut self.intro,
        }
    }

    fn prose(&mut self, nodes: Vec<markdown::Md>) {
        let blocks = self.blocks();
        if let Some(Block::Prose(p)) = blocks.last_mut() {
            p.extend(nodes);
        } else {
            blocks.push(Block::Prose(nodes));
        }
    }

    fn block(&mut self, kind: &str, line: usize, content: String) {
        let file = self.file;
        let in_step = !self.steps.is_empty();
        if kind == "author-note" {
            // For the lesson's authors only (sources, why a step has no near-miss):
            // never shown, never compared between languages.
            if content.trim().is_empty() {
                self.error(line, "the ```author-note block is empty");
            }
            if let Some(step) = self.steps.last_mut() {
                step.author_notes += 1;
            }
            return;
        }
        if !in_step && !matches!(kind, "kubectl" | "sh" | "bash" | "yaml") {
            self.error(
                line,
                format!(
                    "a ```{kind} block belongs to a step: put it after a `## Step title` heading"
                ),
            );
            return;
        }
        match kind {
            "kubectl" | "sh" | "bash" => {
                if content.trim().is_empty() {
                    self.error(line, format!("the ```{kind} block is empty"));
                    return;
                }
                self.blocks().push(Block::Run(RunBlock {
                    line,
                    text: content,
                }))
            }
            "yaml" => self.blocks().push(Block::Yaml {
                line,
                text: content,
            }),
            "hint" => {
                if let Some(at) = markdown::too_deep(&content) {
                    let inner = content[..at].matches('\n').count();
                    self.error(
                        line + 1 + inner,
                        format!(
                            "the hint nests more than {} levels (quotes, lists or emphasis inside one another): a lesson may nest at most {} levels",
                            markdown::MAX_DEPTH,
                            markdown::MAX_DEPTH
                        ),
                    );
                }
                let body = markdown::render(&content);
                self.step().hints.push(Hint { line, body })
            }
            "solution" => {
                if self.step().solution.is_some() {
                    self.error(line, "a step has one ```solution block; this is a second");
                    return;
                }
                self.step().solution = Some(Solution {
                    line,
                    text: content,
                })
            }
            "near-miss" | "alternative" => {
                if content.trim().is_empty() {
                    self.error(line, format!("the ```{kind} block is empty"));
                    return;
                }
                let script = Solution {
                    line,
                    text: content,
                };
                if kind == "near-miss" {
                    self.step().near_misses.push(script);
                } else {
                    self.step().alternatives.push(script);
                }
            }
            "check" => {
                if self.step().check.is_some() {
                    self.error(
                        line,
                        "a step has one ```check block; put all its conditions in it",
                    );
                    return;
                }
                match parse_check(file, line, &content) {
                    Ok(c) => self.step().check = Some(c),
                    Err(e) => self.errors.push(e),
                }
            }
            "quiz" => match parse_quiz(file, line, &content) {
                Ok(q) => self.blocks().push(Block::Quiz(q)),
                Err(e) => self.errors.push(e),
            },
            "predict" => match parse_predict(file, line, &content) {
                Ok(p) => self.blocks().push(Block::Predict(p)),
                Err(e) => self.errors.push(e),
            },
            "incident" => match parse_incidents(file, line, &content) {
                Ok(mut i) => self.step().incidents.append(&mut i),
                Err(e) => self.errors.push(e),
            },
            "frame" => {
                if self.step().frame.is_some() {
                    self.error(line, "a step shows one ```frame; this is a second");
                    return;
                }
                match parse_frame(file, line, &content) {
                    Ok(f) => self.step().frame = Some(f),
                    Err(e) => self.errors.push(e),
                }
            }
            _ => unreachable!("is_block_kind lists the kinds"),
        }
    }

    fn step(&mut self) -> &mut Step {
        self.steps.last_mut().expect("checked in_step")
    }
}

fn is_block_kind(info: &str) -> bool {
    info.split_whitespace()
        .next()
        .is_some_and(|w| BLOCK_KINDS.contains(&w))
}

// ---------------------------------------------------------------------------
// The YAML blocks

/// Parses a block's YAML; `fence` is the file line of the opening fence.
fn yaml_value(file: &str, fence: usize, kind: &str, text: &str) -> Result<Value, LessonError> {
    yaml_bounds(file, fence + 1, 0, &format!("```{kind} block"), text)?;
    serde_yaml::from_str(text)
        .map_err(|e| yaml_error(file, fence + 1, 0, &format!("```{kind} block"), &e))
}

/// The file lines where a YAML sequence's items start (`- ` at the smallest indent).
fn item_lines(fence: usize, text: &str) -> Vec<usize> {
    let items: Vec<(usize, usize)> = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let trimmed = l.trim_start();
            (trimmed.starts_with("- ") || trimmed == "-").then(|| (i, l.len() - trimmed.len()))
        })
        .collect();
    let min = items.iter().map(|(_, indent)| *indent).min().unwrap_or(0);
    items
        .into_iter()
        .filter(|(_, indent)| *indent == min)
        .map(|(i, _)| fence + 1 + i)
        .collect()
}

/// The file line of `key:` in a block, or the block's first line.
fn key_line(fence: usize, text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| l.trim_start().starts_with(&format!("{key}:")))
        .map(|i| fence + 1 + i)
        .unwrap_or(fence + 1)
}

fn mapping<'v>(
    file: &str,
    line: usize,
    what: &str,
    v: &'v Value,
    allowed: &[&str],
) -> Result<&'v serde_yaml::Mapping, LessonError> {
    let Value::Mapping(m) = v else {
        return Err(LessonError::new(
            file,
            line,
            0,
            format!(
                "{what} must be a mapping with the keys {}",
                allowed.join(", ")
            ),
        ));
    };
    for k in m.keys() {
        let name = scalar(k).unwrap_or_default();
        if !allowed.contains(&name.as_str()) {
            return Err(LessonError::new(
                file,
                line,
                0,
                format!(
                    "{what}: unknown key {name:?}; the keys are {}",
                    allowed.join(", ")
                ),
            ));
        }
    }
    Ok(m)
}

fn text_field(m: &serde_yaml::Mapping, key: &str) -> Option<String> {
    m.get(key).and_then(scalar)
}

fn duration_field(
    file: &str,
    line: usize,
    m: &serde_yaml::Mapping,
    key: &str,
    max: SimDuration,
) -> Result<Option<SimDuration>, LessonError> {
    let Some(v) = m.get(key) else {
        return Ok(None);
    };
    let text = scalar(v).unwrap_or_default();
    let d = parse_duration(&text).map_err(|e| {
        LessonError::new(
            file,
            line,
            0,
            format!("{key}: {e}; write a duration such as 30s, 5m or 1h30m"),
        )
    })?;
    if d > max {
        return Err(LessonError::new(
            file,
            line,
            0,
            format!("{key} may be at most {}", crate::session::fmt_duration(max)),
        ));
    }
    Ok(Some(d))
}

const CONDITION_KEYS: &[&str] = &[
    "run",
    "equals",
    "contains",
    "not-contains",
    "matches",
    "at-least",
    "at-most",
    "lines",
];

/// A check: a list of conditions, or `within:` and `conditions:`.
pub(crate) fn parse_check(file: &str, fence: usize, text: &str) -> Result<Check, LessonError> {
    let v = yaml_value(file, fence, "check", text)?;
    let (within, list) = match &v {
        Value::Sequence(s) => (None, s.clone()),
        Value::Mapping(_) => {
            let m = mapping(file, fence + 1, "a ```check block", &v, &["within", "conditions"])?;
            let within = duration_field(file, key_line(fence, text, "within"), m, "within", MAX_WITHIN)?;
            match m.get("conditions") {
                Some(Value::Sequence(s)) => (within, s.clone()),
                _ => {
                    return Err(LessonError::new(
                        file,
                        key_line(fence, text, "conditions"),
                        0,
                        "a ```check block needs conditions: a list of `- run: COMMAND` with an expectation (equals, contains, not-contains, matches, at-least, at-most, lines)",
                    ))
                }
            }
        }
        _ => {
            return Err(LessonError::new(
                file,
                fence + 1,
                0,
                "a ```check block is a list of conditions (`- run: kubectl get ...` with `equals: ...`), or `within:` and `conditions:`",
            ))
        }
    };
    if list.is_empty() || list.len() > MAX_CONDITIONS {
        return Err(LessonError::new(
            file,
            fence + 1,
            0,
            format!("a check has 1 to {MAX_CONDITIONS} conditions"),
        ));
    }
    let lines = item_lines(fence, text);
    let mut conditions = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(fence + 1);
        let m = mapping(file, line, "a condition", item, CONDITION_KEYS)?;
        let Some(run) = text_field(m, "run").filter(|r| !r.trim().is_empty()) else {
            return Err(LessonError::new(
                file,
                line,
                0,
                "a condition needs `run:`, the command whose output is checked",
            ));
        };
        let mut expect = Vec::new();
        for key in &CONDITION_KEYS[1..] {
            let Some(v) = m.get(*key) else { continue };
            let Some(value) = scalar(v) else {
                return Err(LessonError::new(
                    file,
                    line,
                    0,
                    format!("{key} takes a single value (text or a number)"),
                ));
            };
            let number = |what: &str| {
                value
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|n| n.is_finite())
                    .ok_or_else(|| {
                        LessonError::new(
                            file,
                            line,
                            0,
                            format!("{what} takes a number (got {value:?})"),
                        )
                    })
            };
            expect.push(match *key {
                "equals" => Expect::Equals(value),
                "contains" => Expect::Contains(value),
                "not-contains" => Expect::NotContains(value),
                "matches" => match regex_lite::Regex::new(&value) {
                    Ok(re) => Expect::Matches(value, re),
                    Err(e) => {
                        return Err(LessonError::new(
                            file,
                            line,
                            0,
                            format!("matches: {value:?} is not a regular expression: {e}"),
                        ))
                    }
                },
                "at-least" => Expect::AtLeast(number("at-least")?),
                "at-most" => Expect::AtMost(number("at-most")?),
                "lines" => match value.trim().parse::<usize>() {
                    Ok(n) => Expect::Lines(n),
                    Err(_) => {
                        return Err(LessonError::new(
                            file,
                            line,
                            0,
                            format!("lines takes a whole number (got {value:?})"),
                        ))
                    }
                },
                _ => unreachable!("CONDITION_KEYS"),
            });
        }
        if expect.is_empty() {
            return Err(LessonError::new(
                file,
                line,
                0,
                "a condition needs an expectation: equals, contains, not-contains, matches, at-least, at-most or lines",
            ));
        }
        conditions.push(Condition {
            line,
            run: run.trim().to_string(),
            expect,
        });
    }
    Ok(Check {
        line: fence,
        within: within.unwrap_or(SimDuration::secs(0)),
        conditions,
    })
}

fn options_field(
    file: &str,
    line: usize,
    what: &str,
    m: &serde_yaml::Mapping,
) -> Result<Vec<String>, LessonError> {
    let options: Vec<String> = match m.get("options") {
        Some(Value::Sequence(s)) => s.iter().filter_map(scalar).collect(),
        _ => Vec::new(),
    };
    if options.len() < 2 || options.len() > 8 {
        return Err(LessonError::new(
            file,
            line,
            0,
            format!("a ```{what} block needs `options:`, a list of 2 to 8 answers"),
        ));
    }
    Ok(options)
}

/// 1-based answers in the file, 0-based here.
fn answers_field(
    file: &str,
    line: usize,
    what: &str,
    m: &serde_yaml::Mapping,
    options: usize,
) -> Result<Vec<usize>, LessonError> {
    let raw: Vec<Value> = match m.get("answer") {
        Some(Value::Sequence(s)) => s.clone(),
        Some(v) => vec![v.clone()],
        None => Vec::new(),
    };
    if raw.is_empty() {
        return Err(LessonError::new(
            file,
            line,
            0,
            format!("a ```{what} block needs `answer:`, the number of the correct option (1 is the first), or a list of them"),
        ));
    }
    let mut answers = Vec::new();
    for v in raw {
        match v.as_u64() {
            Some(n) if n >= 1 && (n as usize) <= options => answers.push(n as usize - 1),
            _ => {
                return Err(LessonError::new(
                    file,
                    line,
                    0,
                    format!(
                    "answer: {} is not an option's number; the options are numbered 1 to {options}",
                    scalar(&v).unwrap_or_else(|| "that".into())
                ),
                ))
            }
        }
    }
    answers.stable_sort();
    answers.dedup();
    Ok(answers)
}

fn required_text(
    file: &str,
    line: usize,
    what: &str,
    m: &serde_yaml::Mapping,
    key: &str,
) -> Result<String, LessonError> {
    text_field(m, key)
        .filter(|t| !t.trim().is_empty())
        .map(|t| t.trim().to_string())
        .ok_or_else(|| LessonError::new(file, line, 0, format!("a ```{what} block needs `{key}:`")))
}

/// What quizzes and predicts share: a question, 2 to 8 options, the correct ones
/// and an explanation. Returns the block's mapping for its other keys.
struct Choice {
    question: String,
    options: Vec<String>,
    answers: Vec<usize>,
    explain: String,
}

fn parse_choice(
    file: &str,
    fence: usize,
    text: &str,
    kind: &str,
    other_keys: &[&str],
) -> Result<(Value, Choice), LessonError> {
    let v = yaml_value(file, fence, kind, text)?;
    let mut keys = vec!["question", "options", "answer", "explain"];
    keys.extend_from_slice(other_keys);
    let m = mapping(file, fence + 1, &format!("a ```{kind} block"), &v, &keys)?;
    let question = required_text(file, fence + 1, kind, m, "question")?;
    let options = options_field(file, key_line(fence, text, "options"), kind, m)?;
    let answers = answers_field(
        file,
        key_line(fence, text, "answer"),
        kind,
        m,
        options.len(),
    )?;
    let explain = text_field(m, "explain")
        .unwrap_or_default()
        .trim()
        .to_string();
    Ok((
        v,
        Choice {
            question,
            options,
            answers,
            explain,
        },
    ))
}

pub(crate) fn parse_quiz(file: &str, fence: usize, text: &str) -> Result<Quiz, LessonError> {
    let (_, c) = parse_choice(file, fence, text, "quiz", &[])?;
    Ok(Quiz {
        line: fence,
        question: c.question,
        options: c.options,
        answers: c.answers,
        explain: c.explain,
    })
}

pub(crate) fn parse_predict(file: &str, fence: usize, text: &str) -> Result<Predict, LessonError> {
    let (v, c) = parse_choice(file, fence, text, "predict", &["advance", "show"])?;
    let Value::Mapping(m) = &v else {
        unreachable!("parse_choice checked the mapping")
    };
    if c.answers.len() != 1 {
        return Err(LessonError::new(
            file,
            key_line(fence, text, "answer"),
            0,
            "a ```predict block has exactly one correct answer",
        ));
    }
    let advance = duration_field(file, key_line(fence, text, "advance"), m, "advance", MAX_WITHIN)?
        .ok_or_else(|| {
            LessonError::new(
                file,
                fence + 1,
                0,
                "a ```predict block needs `advance:`, how far time moves before the answer shows (e.g. 60s)",
            )
        })?;
    let show = required_text(file, fence + 1, "predict", m, "show")?;
    Ok(Predict {
        line: fence,
        question: c.question,
        options: c.options,
        answer: c.answers[0],
        advance,
        show,
        explain: c.explain,
    })
}

/// The keys a ```` ```frame ```` block takes.
const FRAME_KEYS: &[&str] = &[
    "request", "write", "kind", "actor", "name", "field", "to", "notified",
];

/// The changes a write frame names.
const FRAME_CHANGES: &[&str] = &["added", "modified", "deleted", "any"];

/// A frame: `request: create` (or `any`), or `write: added|modified|deleted|any` with
/// `kind:`; then optional `actor`, `name`, `field`, `notified`.
pub(crate) fn parse_frame(file: &str, fence: usize, text: &str) -> Result<FrameSpec, LessonError> {
    let v = yaml_value(file, fence, "frame", text)?;
    let m = mapping(file, fence + 1, "a ```frame block", &v, FRAME_KEYS)?;
    let field = |key: &str| {
        text_field(m, key)
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
    };
    let any = |t: String| (t != "any").then_some(t);
    let what = match (field("request"), field("write")) {
        (Some(verb), None) => {
            if !matches!(verb.as_str(), "create" | "update" | "delete" | "any") {
                return Err(LessonError::new(
                    file,
                    key_line(fence, text, "request"),
                    0,
                    format!("`request: {verb}`: a frame shows a request the desk records: create, update, delete or any"),
                ));
            }
            if ["kind", "field", "to", "notified"].iter().any(|k| m.contains_key(*k)) {
                return Err(LessonError::new(
                    file,
                    fence + 1,
                    0,
                    "a request frame takes `actor` and `name` (the target, `deployments/web`); `kind`, `field`, `to` and `notified` belong to a write frame",
                ));
            }
            FrameWhat::Request { verb: any(verb) }
        }
        (None, Some(change)) => {
            if !FRAME_CHANGES.contains(&change.as_str()) {
                return Err(LessonError::new(
                    file,
                    key_line(fence, text, "write"),
                    0,
                    format!("`write: {change}`: a write is added, modified, deleted or any"),
                ));
            }
            let Some(kind) = field("kind") else {
                return Err(LessonError::new(
                    file,
                    fence + 1,
                    0,
                    "a write frame needs `kind:`, the kind of object written (ReplicaSet, Pod, EndpointSlice)",
                ));
            };
            FrameWhat::Write {
                kind,
                change: any(change),
            }
        }
        _ => {
            return Err(LessonError::new(
                file,
                fence + 1,
                0,
                "a ```frame block shows either `request: create|update|delete|any` or `write: added|modified|deleted|any` (with `kind:`)",
            ))
        }
    };
    if m.contains_key("to") && !m.contains_key("field") {
        return Err(LessonError::new(
            file,
            key_line(fence, text, "to"),
            0,
            "`to:` is the value a write gave its `field:`; name the field too",
        ));
    }
    Ok(FrameSpec {
        line: fence,
        what,
        to: field("to"),
        actor: field("actor"),
        name: field("name"),
        field: field("field"),
        notified: field("notified"),
    })
}

pub(crate) fn parse_incidents(
    file: &str,
    fence: usize,
    text: &str,
) -> Result<Vec<Incident>, LessonError> {
    let v = yaml_value(file, fence, "incident", text)?;
    let Value::Sequence(items) = v else {
        return Err(LessonError::new(
            file,
            fence + 1,
            0,
            "an ```incident block is a list of `- at: 30s` / `run: sim node kill zone-b`",
        ));
    };
    let lines = item_lines(fence, text);
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(fence + 1);
        let m = mapping(file, line, "an incident", item, &["at", "run"])?;
        let at = duration_field(file, line, m, "at", MAX_WITHIN)?.ok_or_else(|| {
            LessonError::new(
                file,
                line,
                0,
                "an incident needs `at:`, the simulated time after the step opens (e.g. 30s)",
            )
        })?;
        let run = required_text(file, line, "incident", m, "run")?;
        out.push(Incident { line, at, run });
    }
    out.stable_sort_by_key(|i| i.at);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "---\nid: t\ntitle: T\nsummary: S\nlevel: beginner\nminutes: 3\n---\n";

    fn errors(body: &str) -> Vec<String> {
        match parse_lesson("l.md", &format!("{HEAD}{body}")) {
            Ok(_) => Vec::new(),
            Err(e) => e.iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn steps_blocks_and_their_lines() {
        let text = format!(
            "{HEAD}Intro\n\n## One\n\n```kubectl\nkubectl get pods\n```\n\n```check\n- run: kubectl get ns shop -o name\n  equals: namespace/shop\n```\n\n```hint\nTry *this*.\n```\n\n```solution\nkubectl create ns shop\n```\n"
        );
        let l = parse_lesson("l.md", &text).unwrap();
        assert_eq!(l.steps.len(), 1);
        let s = &l.steps[0];
        assert_eq!((s.title.as_str(), s.line), ("One", 10));
        assert!(
            matches!(&s.blocks[0], Block::Run(r) if r.line == 12 && r.text == "kubectl get pods\n")
        );
        let c = s.check.as_ref().unwrap();
        assert_eq!((c.line, c.conditions[0].line), (16, 17));
        assert_eq!(
            c.conditions[0].expect,
            vec![Expect::Equals("namespace/shop".into())]
        );
        assert_eq!(s.hints.len(), 1);
        assert_eq!(
            s.solution.as_ref().unwrap().text,
            "kubectl create ns shop\n"
        );
    }

    #[test]
    fn author_notes_are_never_shown_and_may_stand_anywhere() {
        let text = format!(
            "{HEAD}Intro\n\n```author-note\nSource: pkg/a.go\n```\n\n## One\n\nSay it.\n\n```author-note\nNo near-miss: nothing to get wrong.\n```\n\nMore.\n"
        );
        let l = parse_lesson("l.md", &text).unwrap();
        let shown = format!("{:?}{:?}", l.intro, l.steps);
        assert!(!shown.contains("pkg/a.go") && !shown.contains("nothing to get wrong"));
        assert!(matches!(l.steps[0].blocks.as_slice(), [Block::Prose(_)]));
        assert_eq!(
            errors("## A\n\n```author-note\n\n```\n"),
            vec!["l.md:10: the ```author-note block is empty"]
        );
    }

    #[test]
    fn raw_html_is_an_error_at_its_line() {
        assert_eq!(
            errors("## A\n\n<div>x</div>\n"),
            vec!["l.md:10: raw HTML (<div>x</div>) is not rendered in lessons: write Markdown instead"]
        );
    }

    #[test]
    fn block_mistakes_say_where_and_what() {
        let e = errors("## A\n\n```check\n- run: kubectl get pods\n  equal: 3\n```\n");
        assert_eq!(e.len(), 1);
        assert!(
            e[0].starts_with("l.md:11: a condition: unknown key \"equal\""),
            "{e:?}"
        );
        let e = errors("## A\n\n```check\n- run: kubectl get pods\n  matches: \"(\"\n```\n");
        assert!(e[0].contains("is not a regular expression"), "{e:?}");
        let e = errors("## A\n\n```quiz\nquestion: Q\noptions: [a, b]\nanswer: 3\n```\n");
        assert!(
            e[0].starts_with("l.md:13: answer: 3 is not an option's number"),
            "{e:?}"
        );
        let e = errors("```check\n- run: kubectl get pods\n  lines: 1\n```\n");
        assert!(e[0].contains("belongs to a step"), "{e:?}");
        let e = errors("## A\n\n```check\n- run: [unclosed\n```\n");
        assert_eq!(
            e,
            vec!["l.md:12:1: ```check block: did not find expected ',' or ']', while parsing a flow sequence"]
        );
    }

    #[test]
    fn front_matter_errors_are_located() {
        let e = parse_lesson("l.md", "# no front matter\n").unwrap_err();
        assert_eq!(e[0].line, 1);
        let e = parse_lesson("l.md", "---\nid: t\ntitle: T\nsummary: S\nlevel: beginner\nminutes: 3\ncolour: red\n---\n## A\n").unwrap_err();
        assert!(
            e[0].to_string()
                .starts_with("l.md:7:1: front matter: unknown field `colour`"),
            "{}",
            e[0]
        );
        let e = parse_lesson(
            "l.md",
            "---\nid: T!\ntitle: T\nsummary: S\nlevel: beginner\nminutes: 3\n---\n## A\n",
        )
        .unwrap_err();
        assert_eq!(e[0].line, 2);
        let e = parse_lesson("l.md", "---\nid: t\ntitle: T\nsummary: S\nlevel: beginner\nminutes: 3\ntopology:\n  nodes:\n    - name: gpu-1\n      cpu: lots\n---\n## A\n").unwrap_err();
        assert!(e[0].message.contains("invalid --cpu"), "{}", e[0]);
    }

    #[test]
    fn a_huge_file_is_refused_without_parsing() {
        let big = "a".repeat(MAX_LESSON_BYTES + 1);
        let e = parse_lesson("l.md", &big).unwrap_err();
        assert!(e[0].message.contains("at most"));
    }
}
