//! Whole-cluster snapshots: [`Cluster::snapshot`] writes every piece of state — the
//! clock, the timers and their causes, the random generator's position, the store
//! (objects, revision, watch log), every component's memory and work queue, the
//! trace, the authenticator, the event correlator, the control plane and etcd — and
//! [`Cluster::restore`] reads it back. A restored cluster given the same inputs as the
//! original does the same things, byte for byte.
//!
//! The bytes are a header line, `warehouse-cluster-snapshot v3 fnv1a64=<16 hex
//! digits>`, then the state as JSON (serde's derive on the internal types; objects
//! as the JSON the apiserver serves). The checksum covers the JSON, so a truncated or
//! corrupted snapshot is refused with an error instead of being half read. Derived
//! data is not written: the store's indexes are rebuilt from its objects.
//!
//! This is the simulation's own save and load (a bug report, the tests, fuzzing);
//! [`Cluster::copy_as_restored`] gives the cluster a restore would, in memory (a
//! lesson step's reset), so the browser build carries no decoder of this state.
//! etcd's snapshots, which hold only the store, are in `etcd.rs`.

use crate::cluster::Cluster;
use crate::sort::StableSort;
use crate::time::SimTime;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// The first word of a snapshot's header line.
pub const SNAPSHOT_FORMAT: &str = "warehouse-cluster-snapshot";
/// The version of the layout this build writes and reads.
pub const SNAPSHOT_VERSION: &str = "v3";

/// Why bytes could not be restored as a cluster.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    #[error("not a cluster snapshot: {0}")]
    NotASnapshot(String),
    #[error(
        "cluster snapshot version {found:?} is not supported: this build reads {SNAPSHOT_VERSION}"
    )]
    Version { found: String },
    #[error("the cluster snapshot is corrupted or truncated: its checksum does not match")]
    Checksum,
    #[error("the cluster snapshot cannot be decoded: {0}")]
    Decode(String),
    #[error("the cluster snapshot is inconsistent: {0}")]
    Inconsistent(String),
}

/// FNV-1a, 64 bits: a checksum against truncation and stray edits (not an attacker).
pub fn fnv1a64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in data {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl Cluster {
    /// Everything the cluster is, as bytes. Taking a snapshot changes nothing, and the
    /// same state always gives the same bytes.
    pub fn snapshot(&self) -> Vec<u8> {
        let body = serde_json::to_vec(self).expect("the cluster's state serialises");
        let mut out = format!(
            "{SNAPSHOT_FORMAT} {SNAPSHOT_VERSION} fnv1a64={:016x}\n",
            fnv1a64(&body)
        )
        .into_bytes();
        out.extend_from_slice(&body);
        out
    }

    /// A cluster from [`Cluster::snapshot`]'s bytes. Anything else — other bytes, a
    /// truncated or edited snapshot, another version — is an error, never a panic.
    pub fn restore(bytes: &[u8]) -> Result<Cluster, SnapshotError> {
        let Some(newline) = bytes.iter().position(|b| *b == b'\n') else {
            return Err(SnapshotError::NotASnapshot("no header line".into()));
        };
        let header = std::str::from_utf8(&bytes[..newline])
            .map_err(|_| SnapshotError::NotASnapshot("the header is not text".into()))?;
        let words: Vec<&str> = header.split(' ').collect();
        let [format, version, checksum] = words.as_slice() else {
            return Err(SnapshotError::NotASnapshot(format!(
                "unexpected header {:?}",
                truncate(header)
            )));
        };
        if *format != SNAPSHOT_FORMAT {
            return Err(SnapshotError::NotASnapshot(format!(
                "the header starts with {:?}, not {SNAPSHOT_FORMAT:?}",
                truncate(format)
            )));
        }
        if *version != SNAPSHOT_VERSION {
            return Err(SnapshotError::Version {
                found: truncate(version),
            });
        }
        let expected = checksum
            .strip_prefix("fnv1a64=")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .ok_or_else(|| {
                SnapshotError::NotASnapshot(format!("unreadable checksum {:?}", truncate(checksum)))
            })?;
        let body = &bytes[newline + 1..];
        if fnv1a64(body) != expected {
            return Err(SnapshotError::Checksum);
        }
        // Read as JSON, then typed by the decoder objects go through (one decoder of
        // each k8s-openapi type in the browser build, not a second one for snapshots).
        let mut de = serde_json::Deserializer::from_slice(body);
        let value = <serde_json::Value as serde::Deserialize>::deserialize(&mut de)
            .map_err(|e| SnapshotError::Decode(e.to_string()))?;
        de.end()
            .map_err(|e| SnapshotError::Decode(format!("after the state: {e}")))?;
        let cluster: Cluster = crate::object::decode::from_value(value).map_err(|(path, e)| {
            SnapshotError::Decode(if path == "." {
                e.to_string()
            } else {
                format!("{path}: {e}")
            })
        })?;
        cluster
            .check_restored()
            .map_err(SnapshotError::Inconsistent)?;
        Ok(cluster)
    }

    /// The cluster [`Cluster::restore`] would give from this one's
    /// [`Cluster::snapshot`], without writing or reading the bytes: every piece of
    /// state a snapshot keeps is copied (objects shared, not copied), what it leaves
    /// out starts empty as after a restore (the change feed, the memos marked
    /// `#[serde(skip)]`: each type holding one has a `copy_as_restored` of its own),
    /// and the store's indexes are derived again. What a lesson step's reset returns
    /// to; the browser build has no snapshot decoder.
    pub fn copy_as_restored(&self) -> Cluster {
        // Inserted one by one: `collect` into a map compiles a sort.
        let mut kubelets = BTreeMap::new();
        for (name, k) in &self.kubelets {
            kubelets.insert(name.clone(), k.copy_as_restored());
        }
        Cluster {
            seed: self.seed,
            topology: self.topology.clone(),
            now: self.now,
            rng: self.rng.clone(),
            store: self.store.copy_as_restored(),
            timers: self.timers.clone(),
            timer_payloads: self.timer_payloads.clone(),
            next_timer: self.next_timer,
            queues: self.queues.clone(),
            scheduler: self.scheduler.clone(),
            kubelets,
            requests: self.requests.clone(),
            authenticator: self.authenticator.clone(),
            trace: self.trace.copy_as_restored(),
            current_cause: self.current_cause.clone(),
            current_actor: self.current_actor.clone(),
            request_manager: None,
            writer: None,
            applied_fields: None,
            dispatching: self.dispatching,
            key_causes: self.key_causes.clone(),
            event_counter: self.event_counter,
            event_correlator: self.event_correlator.clone(),
            pod_ip_next: self.pod_ip_next.clone(),
            node_cidrs: self.node_cidrs.clone(),
            control_plane: self.control_plane.copy_as_restored(),
            etcd: self.etcd.clone(),
            controllers: self.controllers.copy_as_restored(),
            kubernetes_service_armed: self.kubernetes_service_armed,
            feed: Default::default(),
            work: self.work,
            proxy: self.proxy.clone(),
            cloud: self.cloud.clone(),
            ingress: self.ingress.clone(),
            traffic: self.traffic.clone(),
        }
    }

    /// The invariants a snapshot cannot express by its shape alone.
    fn check_restored(&self) -> Result<(), String> {
        if self.timers.len() != self.timer_payloads.len() {
            return Err(format!(
                "{} timers are queued but {} have a payload",
                self.timers.len(),
                self.timer_payloads.len()
            ));
        }
        for Reverse((_, seq)) in &self.timers {
            if !self.timer_payloads.contains_key(seq) {
                return Err(format!("timer {seq} has no payload"));
            }
            if *seq >= self.next_timer {
                return Err(format!("timer {seq} is numbered after the next timer"));
            }
        }
        if self.etcd.members() != self.topology.etcd_members {
            return Err(format!(
                "etcd has {} members but the topology asks for {}",
                self.etcd.members(),
                self.topology.etcd_members
            ));
        }
        if let Some(host) = &self.control_plane.host {
            if !self.kubelets.contains_key(host) {
                return Err(format!("the control-plane host {host} has no kubelet"));
            }
        }
        self.etcd.check()
    }
}

/// At most 64 characters of an unexpected header word, for an error message.
fn truncate(s: &str) -> String {
    s.chars().take(64).collect()
}

/// `&'static str`, named so that serde's derive does not borrow such a field from
/// its input (it borrows fields written `&str`); the `with` modules below read them
/// from fixed tables instead.
pub type StaticStr = &'static str;

/// The `&'static str` in `table` equal to `text`.
fn intern(text: &str, table: &[&'static str]) -> Option<&'static str> {
    table.iter().copied().find(|t| *t == text)
}

/// `#[serde(with = "pairs")]`: a map as a list of `[key, value]` pairs, for maps whose
/// keys are not strings (JSON object keys must be).
pub(crate) mod pairs {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;

    pub fn serialize<K: Serialize, V: Serialize, S: Serializer>(
        map: &BTreeMap<K, V>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(map.iter())
    }

    pub fn deserialize<'de, K, V, D>(deserializer: D) -> Result<BTreeMap<K, V>, D::Error>
    where
        K: Deserialize<'de> + Ord,
        V: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        let pairs = Vec::<(K, V)>::deserialize(deserializer)?;
        // Inserted one by one rather than collected: `collect` sorts the pairs first,
        // and that sort is compiled once for every map type read here.
        let mut map = BTreeMap::new();
        let mut twice = false;
        for (k, v) in pairs {
            twice |= map.insert(k, v).is_some();
        }
        if twice {
            return Err(D::Error::custom("a key appears twice"));
        }
        Ok(map)
    }
}

/// `#[serde(with = "timer_heap")]`: the timer queue as its `(time, sequence)` entries in
/// firing order, so equal queues give equal bytes whatever their heap layout.
pub(crate) mod timer_heap {
    use super::*;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(
        heap: &BinaryHeap<Reverse<(SimTime, u64)>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut entries: Vec<(SimTime, u64)> = heap.iter().map(|r| r.0).collect();
        entries.stable_sort();
        entries.serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BinaryHeap<Reverse<(SimTime, u64)>>, D::Error> {
        let entries = Vec::<(SimTime, u64)>::deserialize(deserializer)?;
        Ok(entries.into_iter().map(Reverse).collect())
    }
}

/// A `#[serde(with = ...)]` module for a `&'static str` field that holds one of a
/// fixed table of texts.
macro_rules! interned_str {
    ($(#[$doc:meta])* $module:ident, $table:expr) => {
        $(#[$doc])*
        pub(crate) mod $module {
            pub fn serialize<S: serde::Serializer>(
                value: &&'static str,
                serializer: S,
            ) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(value)
            }

            pub fn deserialize<'de, D: serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<&'static str, D::Error> {
                let text = <String as serde::Deserialize>::deserialize(deserializer)?;
                super::intern(&text, &$table).ok_or_else(|| {
                    serde::de::Error::custom(format!("unknown value {text:?}"))
                })
            }
        }
    };
}

interned_str!(
    /// `RequestRecord::verb`.
    request_verb,
    crate::apiserver::REQUEST_VERBS
);
interned_str!(
    /// A control-plane process's exit reason.
    exit_reason,
    crate::runtime::control_plane::EXIT_REASONS
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::Timer;

    #[test]
    fn fnv1a64_matches_reference_values() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn every_timer_description_can_be_read_back() {
        let key = crate::object::ObjectKey::new(crate::object::Kind::Pod, "default", "p");
        let component = crate::cluster::Component::Scheduler;
        let timers: [Timer; 30] = [
            Timer::Wake(component.clone()),
            crate::kubelet::KubeletTimer::LeaseRenew("n".into()).into(),
            crate::kubelet::KubeletTimer::ContainersStarted {
                node: "n".into(),
                pod: key.clone(),
                uid: "u".into(),
            }
            .into(),
            crate::kubelet::KubeletTimer::ContainersStopped {
                node: "n".into(),
                pod: key.clone(),
                uid: "u".into(),
            }
            .into(),
            crate::scheduler::SchedulerTimer::SchedulerFlush {
                pod: key.clone(),
                since: SimTime(0),
            }
            .into(),
            crate::scheduler::SchedulerTimer::SchedulerBackoff(key.clone()).into(),
            crate::apiserver::ApiserverTimer::EventExpiry(key.clone()).into(),
            Timer::EnqueueAfter {
                id: crate::controllers::job::ID,
                key: key.clone(),
            },
            Timer::EnqueueAfter {
                id: crate::controllers::ttl_after_finished::ID,
                key: key.clone(),
            },
            crate::apiserver::ApiserverTimer::KubernetesService.into(),
            crate::kubelet::KubeletTimer::ActiveDeadline {
                node: "n".into(),
                pod: key.clone(),
                uid: "u".into(),
            }
            .into(),
            crate::apiserver::ApiserverTimer::RbacBootstrap.into(),
            Timer::Requeue {
                id: crate::controllers::job::ID,
                key: key.clone(),
            },
            crate::runtime::control_plane::ControlPlaneTimer::LeaderElection { since: SimTime(0) }
                .into(),
            crate::kubelet::KubeletTimer::ContainerExited {
                node: "n".into(),
                pod: key.clone(),
                uid: "u".into(),
                container: "c".into(),
                restarts: 0,
            }
            .into(),
            crate::kubelet::KubeletTimer::ContainerRestart {
                node: "n".into(),
                pod: key.clone(),
                uid: "u".into(),
                container: "c".into(),
                restarts: 0,
            }
            .into(),
            crate::kubelet::KubeletTimer::ContainerKilled {
                node: "n".into(),
                pod: key.clone(),
                uid: "u".into(),
                container: "c".into(),
                restarts: 0,
                code: 137,
            }
            .into(),
            crate::kubelet::KubeletTimer::ImagePullBackOff {
                node: "n".into(),
                pod: key.clone(),
                uid: "u".into(),
                container: "c".into(),
                attempt: 0,
            }
            .into(),
            crate::kubelet::KubeletTimer::ImagePullRetry {
                node: "n".into(),
                pod: key.clone(),
                uid: "u".into(),
                container: "c".into(),
                attempt: 0,
            }
            .into(),
            crate::kubelet::KubeletTimer::ImagePulled {
                node: "n".into(),
                pod: key.clone(),
                uid: "u".into(),
                container: "c".into(),
                attempt: 0,
            }
            .into(),
            crate::kubelet::KubeletTimer::Probe {
                node: "n".into(),
                pod: key.clone(),
                uid: "u".into(),
                container: "c".into(),
                restarts: 0,
                kind: crate::kubelet::probes::ProbeKind::Liveness,
            }
            .into(),
            crate::kubelet::KubeletTimer::ConfigRetry {
                node: "n".into(),
                pod: key.clone(),
                uid: "u".into(),
                container: "c".into(),
            }
            .into(),
            crate::kubelet::KubeletTimer::VolumeSync {
                node: "n".into(),
                pod: key.clone(),
                uid: "u".into(),
                container: "c".into(),
                restarts: 0,
            }
            .into(),
            crate::kubelet::KubeletTimer::PostStartDone {
                node: "n".into(),
                pod: key.clone(),
                uid: "u".into(),
                container: "c".into(),
                restarts: 0,
                failed: false,
            }
            .into(),
            crate::network::cloud::CloudTimer::CloudServiceSync(key.clone()).into(),
            Timer::EnqueueAfter {
                id: crate::controllers::replicaset::ID,
                key,
            },
            crate::network::proxy::ProxyTimer::ProxyDelivery.into(),
            crate::network::ingress::IngressTimer::IngressDelivery.into(),
            crate::network::ingress::IngressTimer::IngressStatusSync.into(),
            crate::network::traffic::TrafficTimer::TrafficTick {
                name: "t".into(),
                generation: 1,
            }
            .into(),
        ];
        for t in &timers {
            assert_eq!(Timer::intern_description(t.describe()), Some(t.describe()));
        }
        // The two delayed requeues with names of their own stand beside the generic
        // one in the list above.
        assert_eq!(timers.len(), Timer::description_count() + 2);
        // Every controller's ticks and requeue reasons are read back too.
        for c in crate::controllers::manager::CONTROLLERS.iter() {
            for tick in c.ticks() {
                let t = Timer::Tick {
                    id: c.id(),
                    tick: crate::controllers::manager::Tick::new(tick),
                };
                assert_eq!(Timer::intern_description(t.describe()), Some(*tick));
            }
            let reason = c.requeue_after_reason();
            assert_eq!(Timer::intern_description(reason), Some(reason));
        }
    }

    #[test]
    fn deep_timer_chains_are_written_flat() {
        use crate::trace::Cause;
        let mut cause = Cause::User;
        for _ in 0..1000 {
            cause = cause
                .after_timer("rate-limited requeue")
                .after_timer("delayed requeue");
        }
        let json = serde_json::to_string(&cause).unwrap();
        let back: Cause = serde_json::from_str(&json).unwrap();
        assert_eq!(back, cause);
    }
}
