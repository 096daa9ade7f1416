//! Lesson prose (`warehouse_lessons::markdown::Md`) as Yew elements, one HTML
//! element per tree element. Text is always text: nothing is injected as HTML.

use warehouse_lessons::markdown::{Element, Md};
use yew::prelude::*;

/// A line of lesson text (a quiz's question, an option, an explanation) with the
/// prose's inline Markdown: `code`, *emphasis*, **strong**, links; one paragraph
/// comes back without its `<p>`.
pub fn inline(text: &str) -> Html {
    let nodes = warehouse_lessons::markdown::render(text);
    match nodes.as_slice() {
        [Md::Element(Element::Paragraph, children)] => md(children),
        _ => md(&nodes),
    }
}

pub fn md(nodes: &[Md]) -> Html {
    html! { <>{ for nodes.iter().map(node) }</> }
}

fn node(n: &Md) -> Html {
    match n {
        Md::Text(t) => html! { { t.clone() } },
        Md::Element(element, children) => {
            let inner = md(children);
            match element {
                Element::Paragraph => html! { <p>{ inner }</p> },
                Element::Heading(level) => {
                    // `##` starts a step, so prose headings are h3 and below.
                    let tag = format!("h{}", (*level).clamp(3, 6));
                    html! { <@{tag}>{ inner }</@> }
                }
                Element::List => html! { <ul>{ inner }</ul> },
                Element::OrderedList(start) => {
                    html! { <ol start={start.to_string()}>{ inner }</ol> }
                }
                Element::Item => html! { <li>{ inner }</li> },
                Element::CodeBlock(info) => html! {
                    <pre class="code" tabindex="0" data-lang={info.clone()}><code>{ inner }</code></pre>
                },
                Element::Code => html! { <code>{ inner }</code> },
                Element::Emphasis => html! { <em>{ inner }</em> },
                Element::Strong => html! { <strong>{ inner }</strong> },
                Element::Strikethrough => html! { <del>{ inner }</del> },
                Element::Link(href) => {
                    if href.starts_with('#') {
                        html! { <a href={href.clone()}>{ inner }</a> }
                    } else {
                        html! {
                            <a href={href.clone()} target="_blank" rel="noopener noreferrer">{ inner }</a>
                        }
                    }
                }
                Element::BlockQuote => html! { <blockquote>{ inner }</blockquote> },
                Element::Rule => html! { <hr /> },
                Element::LineBreak => html! { <br /> },
                Element::Table => html! { <table>{ inner }</table> },
                Element::TableHead => html! { <thead>{ inner }</thead> },
                Element::TableRow => html! { <tr>{ inner }</tr> },
                Element::TableCell => html! { <td>{ inner }</td> },
            }
        }
    }
}
