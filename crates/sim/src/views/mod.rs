//! Read-only answers computed from the cluster for drawing and printing: `view`
//! (`ClusterView`, and `view_parts`, its parts one at a time), `desks`, `board` (the staffing minimums and schedules), `countdown`, the change `feed`, `metrics` (metrics-server)
//! and `podstatus` (kubectl's STATUS/READY). None of them writes.

pub mod board;
pub mod countdown;
pub mod desks;
pub mod feed;
pub mod metrics;
pub mod podstatus;
pub mod view;
pub mod view_parts;
