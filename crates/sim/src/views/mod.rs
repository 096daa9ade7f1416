//! Read-only answers computed from the cluster for drawing and printing: `view`
//! (`ClusterView`), `desks`, `countdown`, the change `feed`, `metrics` (metrics-server)
//! and `podstatus` (kubectl's STATUS/READY). None of them writes.

pub mod countdown;
pub mod desks;
pub mod feed;
pub mod metrics;
pub mod podstatus;
pub mod view;
