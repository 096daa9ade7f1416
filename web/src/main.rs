//! Kube Warehouse in the browser: a Yew app that drives `warehouse_sim` through
//! kubectl and draws the cluster as a warehouse.

mod app;
mod author;
mod canvas;
mod catalogue_view;
mod control_plane;
mod decision;
mod editor;
mod fetch;
mod floor;
mod floor_text;
mod frame_card;
#[cfg(test)]
mod glossary_tests;
mod i18n;
mod inspector;
mod inspector_i18n;
mod legend;
mod lesson_panel;
mod lesson_reducer;
mod lesson_saved;
mod lessons;
mod narration;
mod numbers;
mod office;
mod offline;
mod panic_banner;
mod progress;
mod projection;
mod prose;
mod requests;
mod saved;
mod state;
mod tabs;
mod target;
mod terminal;
mod test_hook;
mod timeline;
mod toolbar;
mod zones;

/// The kubectl the UI talks to: the same crate the CLI and the lessons use.
use warehouse_kubectl as kubectl;

fn main() {
    panic_banner::install();
    yew::Renderer::<app::App>::new().render();
}

#[cfg(test)]
mod style_tests {
    /// Every rule of the stylesheet is closed: an unclosed one nests every rule after
    /// it (CSS nesting), and they silently stop applying.
    #[test]
    fn every_rule_of_the_stylesheet_is_closed() {
        let css = include_str!("../style.css");
        let mut depth = 0i32;
        let mut in_comment = false;
        let bytes = css.as_bytes();
        let mut i = 0;
        let mut line = 1;
        while i < bytes.len() {
            if in_comment {
                if bytes[i..].starts_with(b"*/") {
                    in_comment = false;
                    i += 1;
                }
            } else if bytes[i..].starts_with(b"/*") {
                in_comment = true;
                i += 1;
            } else if bytes[i] == b'{' {
                depth += 1;
            } else if bytes[i] == b'}' {
                depth -= 1;
                assert!(depth >= 0, "style.css:{line}: a `}}` closes nothing");
            } else if bytes[i] == b'\n' {
                line += 1;
                // A rule that starts at the left margin is a top-level rule, unless
                // it is inside an @media block.
                let rest = &css[i + 1..];
                let starts_rule = rest
                    .chars()
                    .next()
                    .is_some_and(|c| c == '.' || c == '#' || c.is_ascii_alphabetic());
                if starts_rule && depth > 0 {
                    let inside_media = css[..i].rfind("@media").is_some_and(|m| {
                        let between = &css[m..i];
                        between.matches('{').count() > between.matches('}').count()
                    });
                    assert!(
                        inside_media,
                        "style.css:{}: a rule starts inside an unclosed one",
                        line
                    );
                }
            }
            i += 1;
        }
        assert_eq!(depth, 0, "style.css ends inside a rule");
    }
}
