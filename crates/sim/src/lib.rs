//! `warehouse-sim`: a deterministic, sans-IO simulation of a Kubernetes cluster.
//!
//! Time and every input come from outside: [`Cluster::advance`], [`Cluster::create`]
//! and friends, [`Cluster::fault`]. The same seed and the same inputs give the same
//! results, byte for byte. Nothing here reads a clock, spawns a thread or touches the
//! web.

pub mod active_deadline;
pub mod admission;
pub mod apiserver;
pub mod auth;
pub mod boot;
pub mod cloud;
pub mod cluster;
pub(crate) mod components;
pub mod control_plane;
pub mod controllers;
pub mod countdown;
pub mod desks;
pub mod dns;
pub mod error;
pub mod etcd;
pub mod events;
pub mod eviction;
pub mod exec;
pub mod feed;
#[doc(hidden)]
pub mod fuzzing;
pub mod health;
pub mod http;
pub mod images;
pub mod ingress;
pub mod kubelet;
pub mod kubelet_containers;
pub mod kubelet_images;
pub mod kubelet_probes;
pub mod kubelet_status;
pub mod manifest;
pub mod metrics;
pub mod names;
pub mod object;
pub mod podstatus;
#[cfg(warehouse_probe)]
mod probe;
pub mod proxy;
pub mod quantity;
pub mod quota;
pub mod request;
pub mod runtime;
pub mod scenarios;
pub mod scheduler;
pub mod services;
pub mod shell;
pub mod snapshot;
pub mod sort;
#[doc(hidden)]
pub mod testing;
pub mod time;
pub mod trace;
pub mod traffic;
pub(crate) mod validation;
pub mod view;
pub mod view_parts;
pub mod watch;

pub use apiserver::store;
pub use apiserver::{DeleteOptions, Propagation};
pub use auth::{Attributes, Caller};
pub use boot::{Boot, SETTLE_TIME};
pub use cluster::{Advanced, Cluster, Fault, NodeSpec, Topology, Work};
pub use control_plane::{ConnectionRefused, ControlPlaneComponent};
pub use error::{ApiError, SimError, StatusReason};
pub use etcd::EtcdMemberStatus;
pub use health::RawResponse;
pub use http::{FailureReason, HttpOutcome, HttpResponse, RequestFailure, RequestSource};
pub use manifest::{decode_manifests, ManifestError, ManifestErrorKind};
pub use object::{Kind, Object, ObjectKey};
pub use proxy::{Backend, ProxyMode, ProxyRule, WatcherLine, WatcherStats};
pub use snapshot::SnapshotError;
pub use time::{parse_duration, SimDuration, SimTime};
pub use view::{
    ClusterView, ComponentView, NodeView, PodView, RequestView, RobotState, ZoneHealth,
};

/// The Kubernetes version the simulated cluster reports (`kubectl get nodes` VERSION).
pub const KUBERNETES_VERSION: &str = "v1.37.0";
