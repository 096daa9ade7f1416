//! One file per kubectl command (`apply`, `get`, `rollout`, ...); `merge` is apply's
//! three-way merge; `stateful_set` reads and changes a StatefulSet's JSON for the
//! commands that take one. Each command reads its shared flags from `crate::args` and talks
//! to the cluster only through the session's doors in `crate::context`.

pub(crate) mod api_resources;
pub(crate) mod apply;
pub mod attach;
pub(crate) mod auth;
pub(crate) mod autoscale;
pub(crate) mod cluster_info;
pub(crate) mod componentstatus;
pub mod config;
pub(crate) mod cordon;
pub(crate) mod create;
pub(crate) mod create_job;
pub(crate) mod create_more;
pub(crate) mod debug;
pub(crate) mod delete;
pub(crate) mod describe;
pub(crate) mod drain;
pub mod edit;
pub(crate) mod events;
pub(crate) mod exec;
pub(crate) mod explain;
pub(crate) mod expose;
pub(crate) mod get;
pub(crate) mod getfmt;
pub(crate) mod help;
pub(crate) mod label;
pub(crate) mod logs;
pub(crate) mod merge;
pub(crate) mod patch;
pub(crate) mod port_forward;
pub(crate) mod raw;
pub(crate) mod rollout;
pub(crate) mod run;
pub(crate) mod scale;
pub(crate) mod set;
pub(crate) mod set_env;
pub(crate) mod stateful_set;
pub(crate) mod taint;
pub(crate) mod top;
pub(crate) mod version;
pub(crate) mod wait;
