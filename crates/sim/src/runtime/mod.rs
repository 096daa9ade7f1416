//! The component runtime: what runs beside the apiserver and how it is woken
//! (`components`), the control plane's components as pods and their outages
//! (`control_plane`), and how a cluster starts (`boot`). The controller manager's own
//! runtime is `controllers::manager`.

pub mod boot;
pub(crate) mod components;
pub mod control_plane;
