//! The page on a narrow screen (a phone): three tabs, the floor, the lesson and the
//! terminal, one shown at a time under a tab bar that stays at the top with the
//! toolbar. On a wide screen everything shows at once and there is no tab bar.
//! `use_narrow` follows the window's width, with the bound style.css's
//! `max-width: 700px` rules use.

use crate::i18n::{Lang, Names, Tr};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The widest window (CSS pixels) that gets the tabs.
pub const NARROW_MAX_PX: f64 = 700.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Floor,
    Lesson,
    Terminal,
}

impl Tab {
    pub const ALL: [Tab; 3] = [Tab::Floor, Tab::Lesson, Tab::Terminal];

    /// The tab's own id.
    pub fn tab_id(self) -> &'static str {
        match self {
            Tab::Floor => "tab-floor",
            Tab::Lesson => "tab-lesson",
            Tab::Terminal => "tab-terminal",
        }
    }

    /// The id of the panel it shows.
    pub fn panel_id(self) -> &'static str {
        match self {
            Tab::Floor => "floor-panel",
            Tab::Lesson => "lessons-side",
            Tab::Terminal => "terminal-panel",
        }
    }

    /// The tab's name; the lesson's is "Lessons" while none is open (the catalogue).
    pub fn label(self, tr: Tr, lesson_open: bool) -> &'static str {
        match (self, tr.lang, tr.names, lesson_open) {
            (Tab::Floor, Lang::En, Names::Warehouse, _) => "Floor",
            (Tab::Floor, Lang::En, Names::Kubernetes, _) => "Cluster",
            (Tab::Floor, Lang::Ru, Names::Warehouse, _) => "Склад",
            (Tab::Floor, Lang::Ru, Names::Kubernetes, _) => "Кластер",
            (Tab::Lesson, Lang::En, _, true) => "Lesson",
            (Tab::Lesson, Lang::En, _, false) => "Lessons",
            (Tab::Lesson, Lang::Ru, _, true) => "Урок",
            (Tab::Lesson, Lang::Ru, _, false) => "Уроки",
            (Tab::Terminal, Lang::En, _, _) => "Terminal",
            (Tab::Terminal, Lang::Ru, _, _) => "Терминал",
        }
    }

    /// The tab after (`step` 1) or before (-1) this one, wrapping round.
    fn step(self, step: isize) -> Tab {
        let i = Tab::ALL.iter().position(|t| *t == self).unwrap_or(0) as isize;
        Tab::ALL[(i + step).rem_euclid(Tab::ALL.len() as isize) as usize]
    }
}

/// Whether the window is narrow enough for the tabs now.
pub fn is_narrow() -> bool {
    web_sys::window()
        .and_then(|w| w.inner_width().ok())
        .and_then(|w| w.as_f64())
        .is_some_and(|w| w <= NARROW_MAX_PX)
}

/// Whether the window is narrow, kept up to date as it is resized or turned.
#[hook]
pub fn use_narrow() -> bool {
    let narrow = use_state(is_narrow);
    {
        let narrow = narrow.setter();
        use_effect_with((), move |_| {
            let listener =
                wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || narrow.set(is_narrow()));
            let window = web_sys::window();
            if let Some(w) = &window {
                let _ =
                    w.add_event_listener_with_callback("resize", listener.as_ref().unchecked_ref());
            }
            move || {
                if let Some(w) = &window {
                    let _ = w.remove_event_listener_with_callback(
                        "resize",
                        listener.as_ref().unchecked_ref(),
                    );
                }
            }
        });
    }
    *narrow
}

/// What a part of the page calls to bring a tab forward (on a narrow screen; on a
/// wide one everything is in sight and it does nothing).
#[derive(Clone, PartialEq)]
pub struct ShowTab(pub Callback<Tab>);

/// Scrolls the page to its top, where a newly shown tab's panel starts.
pub fn scroll_to_top() {
    if let Some(w) = web_sys::window() {
        w.scroll_to_with_x_and_y(0.0, 0.0);
    }
}

/// Scrolls the element `id` into sight the least it takes (`block: "nearest"`).
/// Called through JavaScript: `ScrollIntoViewOptions` is not among the web-sys
/// features the app builds with.
pub fn scroll_into_sight(id: &str) {
    let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
    else {
        return;
    };
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"block".into(), &"nearest".into());
    let scroll = js_sys::Reflect::get(&el, &"scrollIntoView".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(scroll) = scroll {
        let _ = scroll.call1(&el, &options);
    }
}

#[derive(Properties, PartialEq)]
pub struct TabBarProps {
    pub selected: Tab,
    pub tr: Tr,
    /// A lesson (not the catalogue) is open.
    pub lesson_open: bool,
    /// Whether the lesson's panel is on the page (`aria-controls` names only what is).
    pub lesson_panel: bool,
    pub on_select: Callback<Tab>,
}

/// The tab bar: ARIA tabs; ←/→ (and Home/End) move between them and show the one
/// reached, as the WAI-ARIA tabs pattern with automatic activation does.
#[function_component]
pub fn TabBar(props: &TabBarProps) -> Html {
    let tr = props.tr;
    let onkeydown = {
        let on_select = props.on_select.clone();
        let selected = props.selected;
        Callback::from(move |e: KeyboardEvent| {
            let next = match e.key().as_str() {
                "ArrowRight" => selected.step(1),
                "ArrowLeft" => selected.step(-1),
                "Home" => Tab::ALL[0],
                "End" => Tab::ALL[Tab::ALL.len() - 1],
                _ => return,
            };
            e.prevent_default();
            on_select.emit(next);
            let el = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id(next.tab_id()))
                .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(el) = el {
                let _ = el.focus();
            }
        })
    };
    let label = match tr.lang {
        Lang::En => "Parts of the page",
        Lang::Ru => "Разделы страницы",
    };
    html! {
        <div class="tabbar" role="tablist" aria-label={label} {onkeydown}>
            { for Tab::ALL.iter().map(|&tab| {
                let selected = tab == props.selected;
                let controls = (tab != Tab::Lesson || props.lesson_panel).then_some(tab.panel_id());
                html! {
                    <button type="button" role="tab" id={tab.tab_id()} class="tab"
                            aria-selected={selected.to_string()} aria-controls={controls}
                            tabindex={if selected { "0" } else { "-1" }}
                            onclick={props.on_select.reform(move |_: MouseEvent| tab)}>
                        { tab.label(tr, props.lesson_open) }
                    </button>
                }
            }) }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrows_wrap_round_the_three_tabs() {
        assert_eq!(Tab::Floor.step(-1), Tab::Terminal);
        assert_eq!(Tab::Terminal.step(1), Tab::Floor);
        assert_eq!(Tab::Floor.step(1), Tab::Lesson);
    }

    #[test]
    fn every_tab_is_named_in_both_languages() {
        for lang in [Lang::En, Lang::Ru] {
            for names in [Names::Warehouse, Names::Kubernetes] {
                let tr = Tr::new(lang, names);
                let labels: Vec<_> = Tab::ALL.iter().map(|t| t.label(tr, true)).collect();
                assert_eq!(labels.len(), 3);
                assert!(labels.iter().all(|l| !l.is_empty()));
            }
        }
        let ru = Tr::new(Lang::Ru, Names::Warehouse);
        assert_eq!(Tab::Lesson.label(ru, false), "Уроки");
    }
}
