//! Lesson prose as a safe tree: CommonMark read by pulldown-cmark, turned into
//! elements the web app draws one by one. Raw HTML never becomes markup (it is kept
//! as visible text, and `lessons check` reports it); links go only to `http(s)` or
//! to an anchor in the app; images become their alternative text, so a lesson
//! never loads anything from elsewhere.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// An element of lesson prose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Md {
    Text(String),
    Element(Element, Vec<Md>),
}

/// The elements prose may hold; each maps to one HTML element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Element {
    Paragraph,
    /// `###` and deeper (a `##` starts a step).
    Heading(u8),
    /// A bullet list.
    List,
    /// A numbered list starting at this number.
    OrderedList(u64),
    Item,
    /// A code block that is not one of the lesson blocks, with its info word.
    CodeBlock(String),
    /// Inline `code`.
    Code,
    Emphasis,
    Strong,
    Strikethrough,
    /// A link to `http(s)://…` or to an in-app anchor `#…`.
    Link(String),
    BlockQuote,
    Rule,
    LineBreak,
    Table,
    TableHead,
    TableRow,
    TableCell,
}

/// How deeply prose may nest (quotes in lists in quotes, emphasis in links...).
/// Deeper markup is an author's error in `lessons check` (with its line), and where
/// text is rendered anyway its markup past this depth is dropped (the text is
/// kept), so the tree the app draws, clones and drops recursively stays shallow:
/// 32 levels is far past any real lesson and safe on the browser's 1 MiB stack.
pub const MAX_DEPTH: usize = 32;

/// The byte offset of the first element of `text` nested deeper than
/// [`MAX_DEPTH`], if any. One pass over the parser's events: linear in the text.
pub fn too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (event, range) in Parser::new_ext(text, options()).into_offset_iter() {
        match event {
            Event::Start(_) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(range.start);
                }
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// The markdown options lessons use (tables, strikethrough).
pub(crate) fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH
}

/// Whether a link target is allowed: http(s) or an in-app anchor.
pub fn safe_link(href: &str) -> bool {
    let lower = href.trim().to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://") || lower.starts_with('#'))
        && !href.chars().any(|c| c.is_control() || c == ' ')
}

/// Prose text to a tree.
pub fn render(text: &str) -> Vec<Md> {
    build(Parser::new_ext(text, options()))
}

/// Builds the tree from parser events (also used for the parts of a lesson file
/// between its special blocks).
pub(crate) fn build<'a>(events: impl IntoIterator<Item = Event<'a>>) -> Vec<Md> {
    // A stack of open elements; `None` marks an element whose markup is dropped but
    // whose children are kept (an image's alternative text, an unsafe link).
    let mut stack: Vec<(Option<Element>, Vec<Md>)> = vec![(None, Vec::new())];
    for event in events {
        match event {
            Event::Start(tag) => {
                let element = match tag {
                    Tag::Paragraph => Some(Element::Paragraph),
                    Tag::Heading { level, .. } => Some(Element::Heading(heading_level(level))),
                    Tag::BlockQuote(_) => Some(Element::BlockQuote),
                    Tag::CodeBlock(kind) => Some(Element::CodeBlock(match kind {
                        CodeBlockKind::Fenced(info) => {
                            info.split_whitespace().next().unwrap_or("").to_string()
                        }
                        CodeBlockKind::Indented => String::new(),
                    })),
                    Tag::List(Some(start)) => Some(Element::OrderedList(start)),
                    Tag::List(None) => Some(Element::List),
                    Tag::Item => Some(Element::Item),
                    Tag::Emphasis => Some(Element::Emphasis),
                    Tag::Strong => Some(Element::Strong),
                    Tag::Strikethrough => Some(Element::Strikethrough),
                    Tag::Link { dest_url, .. } if safe_link(&dest_url) => {
                        Some(Element::Link(dest_url.to_string()))
                    }
                    Tag::Table(_) => Some(Element::Table),
                    Tag::TableHead => Some(Element::TableHead),
                    Tag::TableRow => Some(Element::TableRow),
                    Tag::TableCell => Some(Element::TableCell),
                    _ => None,
                };
                // Past the depth limit the markup is dropped, its text kept.
                let element = element.filter(|_| stack.len() <= MAX_DEPTH);
                stack.push((element, Vec::new()));
            }
            Event::End(end) if stack.len() > 1 => {
                let (element, children) = stack.pop().unwrap_or((None, Vec::new()));
                let parent = &mut stack.last_mut().expect("the root stays").1;
                match element {
                    Some(e) => parent.push(Md::Element(e, children)),
                    None => parent.extend(children),
                }
                if matches!(end, TagEnd::TableHead) {
                    // pulldown-cmark gives a head its cells without a row.
                    if let Some(Md::Element(Element::TableHead, cells)) = parent.last_mut() {
                        let row = std::mem::take(cells);
                        cells.push(Md::Element(Element::TableRow, row));
                    }
                }
            }
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => push_text(&mut stack, &t),
            Event::Code(t) => stack
                .last_mut()
                .expect("the root stays")
                .1
                .push(Md::Element(Element::Code, vec![Md::Text(t.to_string())])),
            Event::SoftBreak => push_text(&mut stack, " "),
            Event::HardBreak => stack
                .last_mut()
                .expect("the root stays")
                .1
                .push(Md::Element(Element::LineBreak, Vec::new())),
            Event::Rule => stack
                .last_mut()
                .expect("the root stays")
                .1
                .push(Md::Element(Element::Rule, Vec::new())),
            _ => {}
        }
    }
    while stack.len() > 1 {
        let (element, children) = stack.pop().unwrap_or((None, Vec::new()));
        let parent = &mut stack.last_mut().expect("the root stays").1;
        match element {
            Some(e) => parent.push(Md::Element(e, children)),
            None => parent.extend(children),
        }
    }
    stack.pop().map(|(_, c)| c).unwrap_or_default()
}

fn push_text(stack: &mut [(Option<Element>, Vec<Md>)], text: &str) {
    let children = &mut stack.last_mut().expect("the root stays").1;
    if let Some(Md::Text(t)) = children.last_mut() {
        t.push_str(text);
    } else {
        children.push(Md::Text(text.to_string()));
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The plain text of a tree (for titles, search and tests).
pub fn plain_text(nodes: &[Md]) -> String {
    let mut s = String::new();
    for n in nodes {
        match n {
            Md::Text(t) => s.push_str(t),
            Md::Element(_, children) => s.push_str(&plain_text(children)),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_stays_text_and_unsafe_links_lose_their_target() {
        let md =
            render("Hi <script>alert(1)</script> [x](javascript:alert(1)) [y](https://k8s.io)");
        let Md::Element(Element::Paragraph, children) = &md[0] else {
            panic!("{md:?}")
        };
        assert!(plain_text(children).contains("<script>alert(1)</script>"));
        assert!(children.iter().all(
            |c| !matches!(c, Md::Element(Element::Link(h), _) if h.starts_with("javascript"))
        ));
        assert!(children
            .iter()
            .any(|c| matches!(c, Md::Element(Element::Link(h), _) if h == "https://k8s.io")));
    }

    #[test]
    fn images_become_their_alternative_text() {
        let md = render("![a robot](https://example.com/x.png)");
        assert_eq!(plain_text(&md), "a robot");
        assert!(!format!("{md:?}").contains("example.com"));
    }

    #[test]
    fn tables_lists_and_code_keep_their_shape() {
        let md = render("| a | b |\n|---|---|\n| 1 | 2 |\n\n1. one\n2. `two`\n");
        assert!(matches!(&md[0], Md::Element(Element::Table, _)));
        assert!(matches!(&md[1], Md::Element(Element::OrderedList(1), _)));
    }
}
