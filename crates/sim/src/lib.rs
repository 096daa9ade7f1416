//! `warehouse-sim`: a deterministic, sans-IO simulation of a Kubernetes cluster.
//!
//! Time and every input come from outside: [`Cluster::advance`], [`Cluster::create`]
//! and friends, [`Cluster::fault`]. The same seed and the same inputs give the same
//! results, byte for byte. Nothing here reads a clock, spawns a thread or touches the
//! web.

pub mod apiserver;
mod cluster;
pub mod controllers;
mod error;
pub mod etcd;
#[doc(hidden)]
pub mod fuzzing;
pub mod kubelet;
mod names;
pub mod network;
pub mod object;
#[cfg(warehouse_probe)]
mod probe;
pub mod runtime;
pub mod scenarios;
pub mod scheduler;
pub mod snapshot;
mod sort;
#[doc(hidden)]
pub mod testing;
pub mod time;
pub mod trace;
pub mod views;

pub use apiserver::auth::{Attributes, Caller};
pub use apiserver::health::RawResponse;
pub(crate) use apiserver::store;
pub use apiserver::{DeleteOptions, Propagation};
pub use cluster::{Advanced, Cluster, Fault, NodeSpec, Topology, Work};
pub use error::{ApiError, SimError, StatusReason};
pub use etcd::EtcdMemberStatus;
pub use names::fnv32a;
pub use network::http::{FailureReason, HttpOutcome, HttpResponse, RequestFailure, RequestSource};
pub use network::proxy::{Backend, ProxyMode, ProxyRule, WatcherLine, WatcherStats};
pub use object::manifest::{decode_manifests, ManifestError, ManifestErrorKind};
pub use object::{Kind, Object, ObjectKey};
pub use runtime::boot::{Boot, SETTLE_TIME};
pub use runtime::control_plane::{ConnectionRefused, ControlPlaneComponent};
pub use snapshot::SnapshotError;
pub use sort::{CollectMap, CollectSet, StableSort};
pub use time::{parse_duration, SimDuration, SimTime};
pub use views::view::{
    ClusterView, ComponentView, NodeView, PodView, RequestView, RobotState, VolumeView, ZoneHealth,
};

/// The Kubernetes version the simulated cluster reports (`kubectl get nodes` VERSION).
pub const KUBERNETES_VERSION: &str = "v1.37.0";
