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
mod frame_card;
mod i18n;
mod inspector;
mod inspector_i18n;
mod legend;
mod lesson_panel;
mod lesson_reducer;
mod lessons;
mod narration;
mod office;
mod progress;
mod prose;
mod requests;
mod state;
mod target;
mod terminal;
mod test_hook;
mod toolbar;
mod zones;

/// The kubectl the UI talks to: the same crate the CLI and the lessons use.
use warehouse_kubectl as kubectl;

fn main() {
    console_error_panic_hook::set_once();
    yew::Renderer::<app::App>::new().render();
}
