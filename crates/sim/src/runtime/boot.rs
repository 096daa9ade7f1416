//! How a new cluster starts: cold, at simulated second 0 right after `kubeadm init`
//! (the static pods Pending, CoreDNS and kube-proxy not created yet), or settled, the
//! way a sandbox reaches a learner: booted and then left to run for [`SETTLE_TIME`],
//! so every node is Ready and every kube-system pod Running and Ready, minutes old.
//!
//! The boot mode is part of the [`Topology`], so everything that rebuilds a cluster
//! from its seed and topology (`sim seed`, `sim config etcd-members`, `sim boot`)
//! builds it in the same mode, and "nothing has happened yet" means "the same as a
//! fresh cluster of the same mode" ([`Cluster::is_pristine`]).

use crate::cluster::{Cluster, Topology};
use crate::error::SimError;
use crate::time::SimDuration;
use serde::{Deserialize, Serialize};

/// How long a settled cluster has been up when it is handed over. The bootstrap
/// converges in a few simulated seconds (static pods Running within 1 s, CoreDNS and
/// kube-proxy pulled and Ready by about 3 s); five minutes is a wide margin over that,
/// reads as a sandbox that has "been up a few minutes" (AGE `5m`), and stays short of
/// the ten minutes after which a crash-looping container's back-off would reset, so
/// nothing a learner does next meets a periodic timer of the bootstrap's.
pub const SETTLE_TIME: SimDuration = SimDuration::secs(5 * 60);

/// How a new cluster starts (`Topology::boot`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Boot {
    /// At simulated second 0, just bootstrapped: what `Cluster::new` with the default
    /// topology gives, and what the simulation's own tests start from.
    #[default]
    Cold,
    /// Booted, then run for [`SETTLE_TIME`]: what a learner is handed.
    Settled,
}

impl Boot {
    pub const ALL: [Boot; 2] = [Boot::Cold, Boot::Settled];

    /// `cold` or `settled`, as `sim boot` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Boot::Cold => "cold",
            Boot::Settled => "settled",
        }
    }

    pub fn parse(word: &str) -> Option<Boot> {
        Boot::ALL.into_iter().find(|b| b.name() == word)
    }
}

impl Topology {
    /// The same nodes and etcd, started in `boot` mode.
    pub fn with_boot(self, boot: Boot) -> Topology {
        Topology { boot, ..self }
    }

    /// The default topology, settled: what a learner's sandbox starts as.
    pub fn settled() -> Topology {
        Topology::default().with_boot(Boot::Settled)
    }
}

impl Cluster {
    /// A cluster of `topology` booted and run for [`SETTLE_TIME`] (whatever
    /// `topology.boot` says).
    pub fn settled(seed: u64, topology: Topology) -> Cluster {
        Cluster::new(seed, topology.with_boot(Boot::Settled))
    }

    /// How this cluster was started.
    pub fn boot(&self) -> Boot {
        self.topology.boot
    }

    /// The random seed the cluster was built from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Whether nothing has happened to the cluster since it was built: its state is
    /// byte for byte that of a fresh cluster of the same seed, topology and boot mode.
    /// Reads leave a cluster pristine; writes, faults and `sim advance` do not.
    pub fn is_pristine(&self) -> bool {
        self.snapshot() == Cluster::new(self.seed, self.topology.clone()).snapshot()
    }

    /// `sim boot cold|settled`: the same cluster (seed, nodes, etcd) built again in
    /// `boot` mode, before anything else happens.
    pub fn configure_boot(&mut self, boot: Boot) -> Result<String, SimError> {
        if !self.is_pristine() {
            return Err(SimError(
                "the boot mode is fixed when the cluster is created: sim boot must come first, before anything else happens"
                    .into(),
            ));
        }
        *self = Cluster::new(self.seed, self.topology.clone().with_boot(boot));
        Ok(match boot {
            Boot::Cold => {
                "the cluster boots cold: simulated time 0, the control plane just starting".into()
            }
            Boot::Settled => format!(
                "the cluster boots settled: up for {} minutes, every kube-system pod Running",
                SETTLE_TIME.as_secs() / 60
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::{Kind, Object};
    use crate::time::SimTime;

    fn pod_ready(o: &Object) -> bool {
        let Object::Pod(p) = o else { return false };
        let status = p.status.as_ref();
        status.and_then(|s| s.phase.as_deref()) == Some("Running")
            && status
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
    }

    #[test]
    fn the_default_stays_cold_at_time_zero() {
        assert_eq!(Topology::default().boot, Boot::Cold);
        let c = Cluster::new(1, Topology::default());
        assert_eq!(c.now(), SimTime(0));
        assert_eq!(c.boot(), Boot::Cold);
    }

    #[test]
    fn a_settled_cluster_is_up_for_the_settle_time_with_kube_system_ready() {
        let c = Cluster::settled(1, Topology::default());
        assert_eq!(c.now(), SimTime(0) + SETTLE_TIME);
        assert_eq!(c.boot(), Boot::Settled);
        let pods = c.list(Kind::Pod, Some("kube-system"));
        assert_eq!(pods.len(), 10, "4 static pods, 2 CoreDNS, 4 kube-proxy");
        for p in &pods {
            assert!(pod_ready(p), "{} is not Running and Ready", p.name());
        }
    }

    #[test]
    fn the_bootstrap_converges_well_inside_the_settle_time() {
        // The margin SETTLE_TIME's doc comment claims: all Ready by 10 s.
        let mut c = Cluster::new(1, Topology::default());
        c.advance(SimDuration::secs(10));
        let pods = c.list(Kind::Pod, Some("kube-system"));
        assert_eq!(pods.len(), 10);
        assert!(pods.iter().all(pod_ready));
    }

    #[test]
    fn rebuilding_keeps_the_boot_mode_and_checks_against_the_same_mode() {
        let mut c = Cluster::settled(1, Topology::default());
        assert!(c.is_pristine());
        c.reseed(5)
            .expect("a fresh settled cluster may be reseeded");
        assert_eq!((c.seed(), c.boot()), (5, Boot::Settled));
        assert_eq!(c.now(), SimTime(0) + SETTLE_TIME);
        c.configure_etcd_members(3)
            .expect("a fresh settled cluster may get three etcd members");
        assert_eq!(c.boot(), Boot::Settled);
        assert_eq!(c.now(), SimTime(0) + SETTLE_TIME);
        assert!(c.is_pristine());

        c.configure_boot(Boot::Cold).expect("still pristine");
        assert_eq!((c.seed(), c.boot(), c.now()), (5, Boot::Cold, SimTime(0)));
        assert_eq!(c.topology.etcd_members, 3);
        c.configure_boot(Boot::Settled).expect("still pristine");
        assert_eq!(c.now(), SimTime(0) + SETTLE_TIME);

        c.advance(SimDuration::secs(1));
        assert!(!c.is_pristine());
        let err = c.configure_boot(Boot::Cold).unwrap_err();
        assert!(err.0.contains("before anything else happens"), "{err}");
        assert!(c.reseed(2).is_err());
        assert!(c.configure_etcd_members(5).is_err());
    }

    #[test]
    fn old_topologies_without_a_boot_mode_decode_as_cold() {
        let json = r#"{"nodes":[],"etcd_members":1}"#;
        let t: Topology = serde_json::from_str(json).expect("decodes");
        assert_eq!(t.boot, Boot::Cold);
    }
}
