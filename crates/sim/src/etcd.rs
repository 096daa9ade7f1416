//! etcd as a cluster of members, and etcd's own snapshots (`etcdctl snapshot save`,
//! `etcdutl snapshot restore`).
//!
//! **Members and quorum** (Raft as etcd runs it, simplified):
//! - N members (1 to [`MAX_ETCD_MEMBERS`]) serve reads and writes while a majority
//!   (N/2 + 1) runs. Without a majority the leader steps down (etcd runs Raft with
//!   check-quorum), and every write and every linearizable read times out with
//!   `etcdserver: request timed out`, the error a stopped single etcd gives.
//! - Elections are instant and deterministic: when the leader stops, or a majority
//!   comes back, the running member with the lowest number becomes leader and the
//!   term goes up by one. Upstream, the member whose randomized election timeout
//!   (`--election-timeout`, 1 s) fires first campaigns and wins if its log is up to
//!   date, and requests in flight meanwhile fail with "leader changed".
//! - Replication is instant: there is one copy of the data (the [`Store`]), and a
//!   member that starts again has caught up at once (upstream the leader sends it the
//!   entries it missed, or a snapshot).
//!
//! **Where the members run.** kubeadm's stacked etcd runs one etcd static pod per
//! control-plane node; this simulation runs its control plane on one node. So with
//! several members, `etcd-0` is kubeadm's static pod (mirror pod `etcd-<node>`, the
//! process `sim stop etcd` stops) and `etcd-1`, `etcd-2`, … are separate etcd
//! processes beside it on the same node, with client ports 22379, 32379, … as etcd's
//! own Procfile runs a local three-member cluster; they have no pods. The apiserver's
//! `--etcd-servers` lists every member, so any member of a majority serves it.
//! Powering the node off stops every member.
//!
//! **Snapshots.** `sim etcd snapshot save NAME` keeps the store's objects and revision
//! under a name (`etcdctl snapshot save NAME`; the file lives with the cluster).
//! `sim etcd snapshot restore NAME` is the disaster-recovery procedure in one step:
//! every member's data directory is restored from the same snapshot with
//! `etcdutl snapshot restore --bump-revision 1000000000 --mark-compacted` (what etcd
//! recommends for Kubernetes since 3.5.x/3.6: revisions never go back, and a watch
//! from before the restore gets 410 Gone), every member starts as a new cluster, and
//! a running kube-apiserver is restarted. The other components are not restarted:
//! their watches break on the compacted revisions and they relist (the scheduler
//! rebuilds its cache, the controllers requeue what they own, each kubelet compares
//! the pods bound to its node with what its runtime runs: containers of pods that are
//! gone or, restored from before their binding, no longer bound to it are stopped,
//! restored pods that no longer run are started again, and statuses
//! it reported that the restore rolled back are posted again).

use crate::apiserver::ApiserverTimer;
use crate::cluster::{Cluster, Component, Timer};
use crate::error::SimError;
use crate::object::{Kind, Object, ObjectKey};
use crate::runtime::control_plane::ControlPlaneComponent;
use crate::sort::{CollectMap, CollectSet};
use crate::store::Store;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The most members an etcd may have here (etcd recommends at most 7).
pub const MAX_ETCD_MEMBERS: usize = 5;
/// The most etcd snapshots a cluster keeps.
pub const MAX_ETCD_SNAPSHOTS: usize = 16;
/// The most bytes etcd snapshots hold in all (each snapshot's objects, as the JSON
/// it keeps them in): a simulator limit, so that 16 snapshots of a big cluster do
/// not take gigabytes. A save past it is refused, naming the limit.
pub const MAX_ETCD_SNAPSHOT_BYTES: usize = 256 * 1024 * 1024;
/// `--bump-revision` of a restore: the value the etcd and Kubernetes examples use.
/// A second restore from the same snapshot bumps by a multiple of it, so that the
/// revision still goes up (an operator would pass a larger value).
pub const REVISION_BUMP: u64 = 1_000_000_000;
/// The longest snapshot name accepted.
const MAX_SNAPSHOT_NAME: usize = 128;

/// One etcd member process other than `etcd-0` (whose process is the etcd static
/// pod's, in `control_plane.rs`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct MemberProcess {
    /// Stopped with `sim etcd stop`; stays down until `sim etcd start`.
    stopped: bool,
    /// Up: not stopped, and the node it runs on is powered.
    running: bool,
}

/// What `etcdctl snapshot save` wrote: the keyspace at one revision. The objects
/// are kept encoded, a JSON array, as the snapshot file holds them: a snapshot costs
/// its bytes and nothing more, and is decoded only when it is restored.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct EtcdSnapshot {
    revision: u64,
    saved_at: SimTime,
    objects: Box<serde_json::value::RawValue>,
}

impl EtcdSnapshot {
    /// The bytes this snapshot holds (counted against [`MAX_ETCD_SNAPSHOT_BYTES`]).
    fn bytes(&self) -> usize {
        self.objects.get().len()
    }
}

/// etcd's members (beyond the first), its Raft leader and term, and its snapshots.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct EtcdCluster {
    /// Members `etcd-1` and up, in order.
    others: Vec<MemberProcess>,
    /// The leader's member number; none without a majority.
    leader: Option<usize>,
    term: u64,
    snapshots: BTreeMap<String, EtcdSnapshot>,
    /// The latest restore and what it took back (`sim etcd status` shows it).
    #[serde(default)]
    last_restore: Option<LastRestore>,
}

/// A restore, and the writes made after its snapshot that it undid: per resource,
/// the objects created, changed or deleted since the snapshot.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct LastRestore {
    name: String,
    revision: u64,
    undone: BTreeMap<String, u64>,
}

impl LastRestore {
    /// `undid changes to deployments.apps 1, pods 4` or `undid nothing: ...`.
    fn words(&self) -> String {
        if self.undone.is_empty() {
            return "undid nothing: no object changed after the snapshot".to_string();
        }
        let each: Vec<String> = self
            .undone
            .iter()
            .map(|(resource, n)| format!("{resource} {n}"))
            .collect();
        format!("undid changes to {}", each.join(", "))
    }
}

/// The objects a restore to `snapshot` takes back, counted by resource: in the store
/// now but not in the snapshot (created after it), in both at different resource
/// versions (changed), in the snapshot only (deleted after it).
fn undone_by_restore(store: &Store, snapshot: &[Object]) -> BTreeMap<String, u64> {
    let saved: BTreeMap<ObjectKey, Option<&str>> = snapshot
        .iter()
        .map(|o| (o.key(), o.meta().resource_version.as_deref()))
        .collect_map();
    let mut undone: BTreeMap<String, u64> = BTreeMap::new();
    let mut count = |kind: Kind| *undone.entry(kind.qualified_plural()).or_default() += 1;
    for o in store.objects() {
        if saved.get(&o.key()) != Some(&o.meta().resource_version.as_deref()) {
            count(o.kind());
        }
    }
    for o in snapshot {
        if store.get(&o.key()).is_none() {
            count(o.kind());
        }
    }
    undone
}

impl EtcdCluster {
    /// A cluster of `members` members, all up, `etcd-0` leading in term 1.
    pub(crate) fn new(members: usize) -> EtcdCluster {
        debug_assert!((1..=MAX_ETCD_MEMBERS).contains(&members));
        let up = MemberProcess {
            stopped: false,
            running: true,
        };
        EtcdCluster {
            others: vec![up; members.saturating_sub(1)],
            leader: Some(0),
            term: 1,
            snapshots: BTreeMap::new(),
            last_restore: None,
        }
    }

    pub(crate) fn members(&self) -> usize {
        self.others.len() + 1
    }

    /// The bytes every saved snapshot holds together.
    pub(crate) fn snapshot_bytes(&self) -> usize {
        self.snapshots
            .values()
            .fold(0usize, |n, s| n.saturating_add(s.bytes()))
    }

    /// What a restored snapshot must hold for this state to be usable.
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.leader.is_some_and(|l| l >= self.members()) {
            return Err("etcd's leader is not one of its members".into());
        }
        if self.members() > MAX_ETCD_MEMBERS
            || self.snapshots.len() > MAX_ETCD_SNAPSHOTS
            || self.snapshot_bytes() > MAX_ETCD_SNAPSHOT_BYTES
        {
            return Err("etcd has more members or snapshots than allowed".into());
        }
        Ok(())
    }
}

/// A member's name: `etcd-0`, `etcd-1`, …
pub fn member_name(i: usize) -> String {
    format!("etcd-{i}")
}

/// A member's client port: 2379, then 22379, 32379, … (etcd's Procfile layout).
pub fn client_port(i: usize) -> u32 {
    if i == 0 {
        2379
    } else {
        (i as u32 + 1) * 10_000 + 2379
    }
}

/// A member's peer port: the client port plus one.
pub fn peer_port(i: usize) -> u32 {
    client_port(i) + 1
}

/// One member as `sim etcd status` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EtcdMemberStatus {
    pub name: String,
    /// The process is up.
    pub started: bool,
    /// It is the Raft leader.
    pub leader: bool,
    pub client_url: String,
}

impl Cluster {
    /// How many members etcd has.
    pub fn etcd_member_count(&self) -> usize {
        self.etcd.members()
    }

    /// Whether member `i` runs.
    pub(crate) fn etcd_member_running(&self, i: usize) -> bool {
        if i == 0 {
            self.component_running(ControlPlaneComponent::Etcd)
        } else {
            self.etcd.others.get(i - 1).is_some_and(|m| m.running)
        }
    }

    fn etcd_running_members(&self) -> usize {
        (0..self.etcd.members())
            .filter(|i| self.etcd_member_running(*i))
            .count()
    }

    /// Whether a majority of etcd's members runs, so that it can commit writes and
    /// serve linearizable reads.
    pub fn etcd_has_quorum(&self) -> bool {
        2 * self.etcd_running_members() > self.etcd.members()
    }

    /// Every member, in order.
    pub fn etcd_members(&self) -> Vec<EtcdMemberStatus> {
        (0..self.etcd.members())
            .map(|i| EtcdMemberStatus {
                name: member_name(i),
                started: self.etcd_member_running(i),
                leader: self.etcd.leader == Some(i),
                client_url: format!("https://127.0.0.1:{}", client_port(i)),
            })
            .collect()
    }

    /// `sim etcd status`: one line per member (name, process, Raft role, client URL),
    /// then the term, the quorum and the revision.
    pub fn etcd_status(&self) -> String {
        let mut out = format!(
            "{:<8} {:<9} {:<10} {}\n",
            "MEMBER", "STATUS", "ROLE", "CLIENT URL"
        );
        for m in self.etcd_members() {
            let (status, role) = match (m.started, m.leader, self.etcd.leader.is_some()) {
                (false, _, _) => ("stopped", "-"),
                (true, true, _) => ("started", "leader"),
                (true, false, true) => ("started", "follower"),
                // Without a majority a member keeps campaigning and never wins.
                (true, false, false) => ("started", "candidate"),
            };
            out.push_str(&format!(
                "{:<8} {:<9} {:<10} {}\n",
                m.name, status, role, m.client_url
            ));
        }
        out.push_str(&format!(
            "raft term {}; {}; revision {}\n",
            self.etcd.term,
            self.quorum_summary(),
            self.store.revision()
        ));
        if let Some(last) = &self.etcd.last_restore {
            out.push_str(&format!(
                "last restore: snapshot \"{}\" (revision {}); it {}\n",
                last.name,
                last.revision,
                last.words()
            ));
        }
        out
    }

    /// `2 of 3 members running: quorum kept`, or why it is lost.
    fn quorum_summary(&self) -> String {
        let n = self.etcd.members();
        let running = self.etcd_running_members();
        if 2 * running > n {
            format!("{running} of {n} members running: quorum kept")
        } else {
            format!(
                "{running} of {n} members running: quorum lost ({} needed), etcd cannot read or write",
                n / 2 + 1
            )
        }
    }

    /// Raft after a member came or went: the leader stays while it runs and a majority
    /// is up; a leader that stopped, or lost its majority, is replaced by the running
    /// member with the lowest number in a new term, if a majority runs.
    pub(crate) fn etcd_elect(&mut self) {
        let quorum = self.etcd_has_quorum();
        if let Some(l) = self.etcd.leader {
            if quorum && self.etcd_member_running(l) {
                return;
            }
            self.etcd.leader = None;
        }
        if !quorum {
            return;
        }
        self.etcd.leader = (0..self.etcd.members()).find(|i| self.etcd_member_running(*i));
        self.etcd.term += 1;
    }

    /// The control-plane node lost power: the members beside the static pod die too.
    pub(crate) fn etcd_host_down(&mut self) {
        for m in &mut self.etcd.others {
            m.running = false;
        }
    }

    /// The control-plane node is back: its members not stopped on purpose start.
    pub(crate) fn etcd_host_up(&mut self) {
        for m in &mut self.etcd.others {
            m.running = !m.stopped;
        }
    }

    fn etcd_member_index(&self, name: &str) -> Result<usize, SimError> {
        (0..self.etcd.members())
            .find(|i| member_name(*i) == name)
            .ok_or_else(|| {
                let names: Vec<String> = (0..self.etcd.members()).map(member_name).collect();
                SimError(format!(
                    "etcd member \"{name}\" not found; the members are {}",
                    names.join(", ")
                ))
            })
    }

    /// Stops one member (`sim etcd stop etcd-1`). `etcd-0` is the etcd static pod:
    /// stopping it is `sim stop etcd`.
    pub fn stop_etcd_member(&mut self, name: &str) -> Result<String, SimError> {
        let i = self.etcd_member_index(name)?;
        if i == 0 {
            self.stop(ControlPlaneComponent::Etcd)
                .map_err(|_| SimError(format!("{name} is already stopped")))?;
        } else {
            if self.etcd.others[i - 1].stopped {
                return Err(SimError(format!("{name} is already stopped")));
            }
            let was_writable = self.api_writable();
            self.etcd.others[i - 1] = MemberProcess {
                stopped: true,
                running: false,
            };
            self.after_transition(was_writable);
        }
        Ok(format!("{name} stopped; {}", self.quorum_summary()))
    }

    /// Starts a stopped member again (`sim etcd start etcd-1`).
    pub fn start_etcd_member(&mut self, name: &str) -> Result<String, SimError> {
        let i = self.etcd_member_index(name)?;
        if i == 0 {
            let message = self
                .start(ControlPlaneComponent::Etcd)
                .map_err(|_| SimError(format!("{name} is already running")))?;
            if !self.component_running(ControlPlaneComponent::Etcd) {
                return Ok(message);
            }
        } else {
            if !self.etcd.others[i - 1].stopped {
                return Err(SimError(format!("{name} is already running")));
            }
            self.etcd.others[i - 1].stopped = false;
            if !self.host_powered() {
                let host = self.control_plane.host.clone().unwrap_or_default();
                return Ok(format!(
                    "{name} will start when node \"{host}\" is restarted: it is powered off"
                ));
            }
            let was_writable = self.api_writable();
            self.etcd.others[i - 1].running = true;
            self.after_transition(was_writable);
        }
        Ok(format!("{name} started; {}", self.quorum_summary()))
    }

    /// `sim config etcd-members N`: etcd's membership is fixed when `kubeadm init`
    /// creates the cluster, so this builds the cluster again, from the same seed, with
    /// `members` members, in the same boot mode. Only a cluster nothing has happened
    /// to yet ([`Cluster::is_pristine`]) may be rebuilt.
    pub fn configure_etcd_members(&mut self, members: usize) -> Result<String, SimError> {
        if !(1..=MAX_ETCD_MEMBERS).contains(&members) {
            return Err(SimError(format!(
                "etcd-members must be between 1 and {MAX_ETCD_MEMBERS} (an odd number: 1, 3 or 5 members tolerate 0, 1 or 2 failures)"
            )));
        }
        if !self.is_pristine() {
            return Err(SimError(
                "etcd's members are fixed when the cluster is created: sim config etcd-members must come before anything else happens"
                    .into(),
            ));
        }
        *self = Cluster::new(self.seed, self.topology.clone().with_etcd_members(members));
        let names: Vec<String> = (0..members).map(member_name).collect();
        let placement = match (&self.control_plane.host, members) {
            (_, 1) => String::new(),
            (Some(host), _) => format!(
                " ({} is the static pod etcd-{host}; the others run beside it on node {host})",
                names[0]
            ),
            (None, _) => " (run off the cluster)".to_string(),
        };
        Ok(format!(
            "etcd has {members} member(s): {}{placement}",
            names.join(", ")
        ))
    }

    /// `sim seed N`: the same cluster with another random seed (names, IPs, tie-breaks),
    /// in the same boot mode, before anything else happens.
    pub fn reseed(&mut self, seed: u64) -> Result<String, SimError> {
        if !self.is_pristine() {
            return Err(SimError(
                "the seed is fixed when the cluster is created: sim seed must come before anything else happens"
                    .into(),
            ));
        }
        *self = Cluster::new(seed, self.topology.clone());
        Ok(format!("the simulation's random seed is {seed}"))
    }

    /// `etcdctl snapshot save NAME`: the keyspace and its revision, from any running
    /// member (a member serves a snapshot of its own data without a quorum).
    pub fn etcd_snapshot_save(&mut self, name: &str) -> Result<String, SimError> {
        if name.is_empty()
            || name.len() > MAX_SNAPSHOT_NAME
            || name.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(SimError(format!(
                "invalid snapshot name {name:?}: up to {MAX_SNAPSHOT_NAME} characters, no spaces"
            )));
        }
        if self.etcd_running_members() == 0 {
            return Err(SimError(
                "etcdctl snapshot save: context deadline exceeded (no etcd member is running)"
                    .into(),
            ));
        }
        if self.etcd.snapshots.len() >= MAX_ETCD_SNAPSHOTS
            && !self.etcd.snapshots.contains_key(name)
        {
            return Err(SimError(format!(
                "this simulated cluster keeps at most {MAX_ETCD_SNAPSHOTS} etcd snapshots"
            )));
        }
        let objects: Vec<&Object> = self.store.objects().collect();
        let keys = objects.len();
        let encoded = serde_json::to_string(&objects).expect("objects serialise");
        let objects = serde_json::value::RawValue::from_string(encoded)
            .expect("serde_json writes valid JSON");
        let snapshot = EtcdSnapshot {
            revision: self.store.revision(),
            saved_at: self.now,
            objects,
        };
        // The others, without the one this save replaces.
        let others = self
            .etcd
            .snapshots
            .iter()
            .filter(|(n, _)| n.as_str() != name)
            .fold(0usize, |n, (_, s)| n.saturating_add(s.bytes()));
        if others.saturating_add(snapshot.bytes()) > MAX_ETCD_SNAPSHOT_BYTES {
            return Err(SimError(format!(
                "etcdctl snapshot save: this simulated cluster keeps at most {MAX_ETCD_SNAPSHOT_BYTES} bytes of etcd snapshots in all: this one is {} bytes and the others hold {others} (save over an older name to replace it)",
                snapshot.bytes()
            )));
        }
        let message = format!(
            "Snapshot saved at {name} (revision {}, {keys} keys)",
            snapshot.revision
        );
        self.etcd.snapshots.insert(name.to_string(), snapshot);
        Ok(message)
    }

    /// Restores every member from a snapshot and restarts etcd and the apiserver; see
    /// the module documentation for what follows.
    pub fn etcd_snapshot_restore(&mut self, name: &str) -> Result<String, SimError> {
        let Some(saved) = self.etcd.snapshots.get(name) else {
            return Err(SimError(format!(
                "snapshot \"{name}\" not found: save one first with sim etcd snapshot save {name}"
            )));
        };
        let snapshot_revision = saved.revision;
        if !self.host_powered() {
            let host = self.control_plane.host.clone().unwrap_or_default();
            return Err(SimError(format!(
                "cannot restore etcd: node \"{host}\" that runs it is powered off"
            )));
        }
        self.current_cause = crate::trace::Cause::Fault(format!("etcd restored from {name}"));
        let was_writable = self.api_writable();
        let previous = self.store.revision();
        // The smallest multiple of REVISION_BUMP that takes the revision past every
        // revision handed out so far.
        let bump = (previous.saturating_sub(snapshot_revision) / REVISION_BUMP + 1) * REVISION_BUMP;
        let revision = snapshot_revision + bump;
        debug_assert!(revision > previous);
        let objects: Vec<Object> = serde_json::from_slice(saved.objects.get().as_bytes())
            .map_err(|e| SimError(format!("snapshot \"{name}\" is damaged: {e}")))?;
        let undone = undone_by_restore(&self.store, &objects);
        self.reload_store(objects, revision)
            .map_err(|e| SimError(format!("snapshot \"{name}\" is damaged: {e}")))?;
        let last = LastRestore {
            name: name.to_string(),
            revision: snapshot_revision,
            undone,
        };
        let undid = last.words();
        self.etcd.last_restore = Some(last);

        // Every member starts from the restored data as a new cluster.
        let etcd0 = ControlPlaneComponent::Etcd;
        if self.component_running(etcd0) {
            self.process_exit(etcd0, 0, "Completed");
        }
        self.control_plane_set_stopped(etcd0, false);
        self.process_start(etcd0);
        for m in &mut self.etcd.others {
            *m = MemberProcess {
                stopped: false,
                running: true,
            };
        }
        self.etcd.leader = None;
        // kube-apiserver restarts; a stopped one serves the restored data once started.
        let apiserver = ControlPlaneComponent::ApiServer;
        let apiserver_note = if self.component_running(apiserver) {
            self.process_exit(apiserver, 0, "Completed");
            self.process_start(apiserver);
            "kube-apiserver restarted"
        } else {
            "kube-apiserver is stopped: start it to serve the restored data"
        };
        self.after_transition(was_writable);
        self.relist_after_restore();
        let store = &self.store;
        self.trace.objects_replaced(|k| store.get(k).is_some());
        for c in [etcd0, apiserver] {
            self.sync_static_pod(c);
        }
        Ok(format!(
            "restored snapshot \"{name}\" (revision {}) with --bump-revision {bump} --mark-compacted: revision {revision}\n\
             every etcd member restarted from the snapshot; {apiserver_note}\n\
             the restore {undid}",
            snapshot_revision
        ))
    }

    /// What every watcher does when its watch breaks on a compacted revision: list
    /// again and queue what it finds.
    fn relist_after_restore(&mut self) {
        // kube-scheduler: a new cache of nodes and assigned pods, then the pending pods.
        self.scheduler_rebuild_cache();
        self.relist(ControlPlaneComponent::Scheduler);
        // kube-controller-manager: every controller's objects.
        self.relist(ControlPlaneComponent::ControllerManager);
        // The restarted apiserver's post-start hooks.
        self.relist(ControlPlaneComponent::ApiServer);
        // Every kube-proxy, CoreDNS and the cloud service controller (`proxy.rs`, `cloud.rs`).
        self.proxy_relist_all();
        self.cloud_resync_all();
        self.ingress_relist();
        let quotas: Vec<ObjectKey> = self
            .store
            .list(Kind::ResourceQuota, None)
            .map(Object::key)
            .collect();
        if !quotas.is_empty() {
            self.arm_quota_resync();
        }
        for q in quotas {
            self.enqueue(crate::controllers::resource_quota::ID.component(), q);
        }
        let namespaces: Vec<ObjectKey> = self
            .store
            .list(Kind::Namespace, None)
            .map(Object::key)
            .collect();
        for ns in namespaces {
            self.enqueue(crate::controllers::serviceaccount::ID.component(), ns);
        }
        // Each running kubelet: the pods bound to it, and the pods its runtime runs.
        let nodes: Vec<String> = self
            .kubelets
            .iter()
            .filter(|(_, k)| k.running)
            .map(|(n, _)| n.clone())
            .collect();
        for node in nodes {
            self.kubelet_relist(&node);
        }
        // etcd's leases: Events restored from the snapshot expire again.
        self.rearm_event_expiry();
    }

    /// A kubelet's relist after a restore: every pod bound to it, every pod its
    /// runtime runs and every pod its status manager caches is synced again; a status
    /// the restore rolled back differs from the cache and is posted again
    /// (`kubelet_status.rs`).
    fn kubelet_relist(&mut self, node: &str) {
        let Some(k) = self.kubelets.get(node) else {
            return;
        };
        let mut keys: BTreeSet<ObjectKey> = k.pods.keys().cloned().collect_set();
        keys.extend(k.statuses.keys().cloned());
        keys.extend(self.store.pods_on_node(node).cloned());
        for key in keys {
            self.enqueue(Component::Kubelet(node.to_string()), key);
        }
    }

    /// Schedules the expiry of every stored Event that has none pending.
    fn rearm_event_expiry(&mut self) {
        let mut pending: BTreeSet<&ObjectKey> = BTreeSet::new();
        for (timer, _) in self.timer_payloads.values() {
            if let Timer::Apiserver(ApiserverTimer::EventExpiry(k)) = timer {
                pending.insert(k);
            }
        }
        for timer in self.control_plane_deferred() {
            if let Timer::Apiserver(ApiserverTimer::EventExpiry(k)) = timer {
                pending.insert(k);
            }
        }
        let due: Vec<(ObjectKey, SimTime)> = self
            .store
            .list(Kind::Event, None)
            .filter(|o| !pending.contains(&o.key()))
            .filter_map(|o| match o {
                Object::Event(e) => {
                    let last = e
                        .last_timestamp
                        .as_ref()
                        .or(e.first_timestamp.as_ref())
                        .map(SimTime::from_k8s)
                        .unwrap_or(self.now);
                    Some((o.key(), last + crate::apiserver::EVENT_TTL))
                }
                _ => None,
            })
            .collect();
        for (key, at) in due {
            self.schedule(at, ApiserverTimer::EventExpiry(key));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_follow_etcds_procfile() {
        assert_eq!(client_port(0), 2379);
        assert_eq!(client_port(1), 22379);
        assert_eq!(client_port(2), 32379);
        assert_eq!(peer_port(2), 32380);
    }
}
