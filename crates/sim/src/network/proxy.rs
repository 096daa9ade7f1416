//! kube-proxy on every node, CoreDNS as a watcher, and the fan-out accounting that
//! shows what each watch event costs.
//!
//! Mirrors `pkg/proxy` (the iptables/nftables proxiers' change tracking:
//! `ServiceChangeTracker`, `EndpointsChangeTracker`, `syncProxyRules`) and the
//! endpoint selection of `pkg/proxy/topology.go` (`CategorizeEndpoints`): ready
//! endpoints; only when a Service has none, the ones that are serving and terminating.
//!
//! Simplified:
//! - Every running kube-proxy receives the same watch events at the same moment
//!   ([`WATCH_DELAY`] after the write), so the simulation keeps ONE cache of what the
//!   proxies have seen and one rule table, shared by all running proxies; what each
//!   proxy received (objects, bytes, rule syncs) is counted per node. A proxy whose
//!   node is down has no rules; when its node runs again it relists (its counters grow
//!   by the LIST) at the next delivery.
//! - A change touches only the rules of the one Service it belongs to (no rescan of
//!   all Services). One delivery batch is one `syncProxyRules` per running proxy
//!   (upstream batches changes by `minSyncPeriod` too).
//! - No externalTrafficPolicy/internalTrafficPolicy `Local`, no topology hints, no
//!   session affinity, IPv4 only.
//! - `sim proxy-mode endpoints` makes the proxies watch the legacy v1 Endpoints
//!   instead of EndpointSlices, as kube-proxy did before v1.19 (the `EndpointSliceProxying`
//!   gate); in that mode only `subsets[].addresses` (ready) become backends.
//! - CoreDNS is modelled as one watcher of Services and EndpointSlices (its
//!   `kubernetes` plugin), always running; it answers nothing yet.
//! - The bytes of a delivery are the JSON size of the object (a watch event carries
//!   the whole object); the `{"type":…}` envelope is not counted.

use crate::cluster::{Cluster, WATCH_DELAY};
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::{CollectSet, StableSort};
use crate::store::{EventType, WatchEvent};
use crate::time::SimTime;
use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::discovery::v1::EndpointSlice;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

/// What the kube-proxies watch for endpoints (`sim proxy-mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProxyMode {
    /// discovery.k8s.io/v1 EndpointSlices (kube-proxy since v1.19).
    #[default]
    EndpointSlices,
    /// The legacy v1 Endpoints object (one per Service).
    Endpoints,
}

impl ProxyMode {
    /// Parses `endpoints` or `endpointslices` (as `sim proxy-mode` takes them).
    pub fn parse(s: &str) -> Option<ProxyMode> {
        match s {
            "endpoints" => Some(ProxyMode::Endpoints),
            "endpointslices" => Some(ProxyMode::EndpointSlices),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ProxyMode::EndpointSlices => "endpointslices",
            ProxyMode::Endpoints => "endpoints",
        }
    }
}

/// One backend a rule sends traffic to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Backend {
    pub ip: String,
    pub port: i32,
    /// Set when the backend is used only because no ready endpoint exists.
    pub terminating: bool,
}

/// One Service port as a kube-proxy programs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProxyRule {
    pub namespace: String,
    pub service: String,
    /// The Service port's name ("" when unnamed).
    pub port_name: String,
    pub protocol: String,
    pub cluster_ip: String,
    pub port: i32,
    pub node_port: Option<i32>,
    /// `status.loadBalancer.ingress[].ip`.
    pub load_balancer_ips: Vec<String>,
    pub backends: Vec<Backend>,
}

/// What one watcher has received.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatcherStats {
    pub objects: u64,
    pub bytes: u64,
    /// Rule syncs (kube-proxy's `syncProxyRules` runs).
    pub syncs: u64,
}

/// One line of `sim stats`: a watcher and what it received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatcherLine {
    /// `kube-proxy`, `coredns`, `ingress-nginx`.
    pub kind: &'static str,
    /// The node for a kube-proxy, the Deployment for CoreDNS.
    pub name: String,
    pub stats: WatcherStats,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Delivery {
    at: SimTime,
    deleted: bool,
    object: std::sync::Arc<Object>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct NodeProxy {
    stats: WatcherStats,
    /// Listed since its node last started.
    synced: bool,
}

/// The proxies' and CoreDNS's state: what they have been sent and what they made of it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ProxyState {
    pub(crate) mode: ProxyMode,
    pending: VecDeque<Delivery>,
    delivery_scheduled: bool,
    /// The informers' cache: the objects the store holds, shared, not copied (a
    /// Service, its slices or its Endpoints).
    #[serde(with = "crate::snapshot::pairs")]
    services: BTreeMap<ObjectKey, Arc<Object>>,
    /// EndpointSlices by their Service, then by slice name.
    #[serde(with = "crate::snapshot::pairs")]
    slices: BTreeMap<ObjectKey, BTreeMap<String, Arc<Object>>>,
    #[serde(with = "crate::snapshot::pairs")]
    endpoints: BTreeMap<ObjectKey, Arc<Object>>,
    #[serde(with = "crate::snapshot::pairs")]
    rules: BTreeMap<ObjectKey, Vec<ProxyRule>>,
    nodes: BTreeMap<String, NodeProxy>,
    coredns: WatcherStats,
}

/// A watch event's size on the wire: its object's compact JSON, counted without
/// encoding it.
fn json_size(obj: &Object) -> u64 {
    crate::store::object_size_bytes(obj) as u64
}

fn slice_service(slice: &EndpointSlice) -> Option<&String> {
    slice
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(crate::controllers::endpointslice::LABEL_SERVICE_NAME))
}

impl ProxyState {
    fn watches(&self, obj: &Object) -> bool {
        match obj {
            Object::Service(_) => true,
            Object::EndpointSlice(_) => self.mode == ProxyMode::EndpointSlices,
            Object::Endpoints(_) => self.mode == ProxyMode::Endpoints,
            _ => false,
        }
    }

    /// Applies one object to the cache; returns the Service whose rules may change.
    fn apply(&mut self, obj: &Arc<Object>, deleted: bool) -> Option<ObjectKey> {
        let key = obj.key();
        match &**obj {
            Object::Service(_) => {
                if deleted {
                    self.services.remove(&key);
                } else {
                    self.services.insert(key.clone(), Arc::clone(obj));
                }
                Some(key)
            }
            Object::EndpointSlice(slice) => {
                let svc = ObjectKey::new(Kind::Service, &key.namespace, slice_service(slice)?);
                let name = key.name.clone();
                if deleted {
                    if let Some(m) = self.slices.get_mut(&svc) {
                        m.remove(&name);
                        if m.is_empty() {
                            self.slices.remove(&svc);
                        }
                    }
                } else {
                    self.slices
                        .entry(svc.clone())
                        .or_default()
                        .insert(name, Arc::clone(obj));
                }
                Some(svc)
            }
            Object::Endpoints(_) => {
                let svc = ObjectKey::new(Kind::Service, &key.namespace, &key.name);
                if deleted {
                    self.endpoints.remove(&svc);
                } else {
                    self.endpoints.insert(svc.clone(), Arc::clone(obj));
                }
                Some(svc)
            }
            _ => None,
        }
    }

    /// Recomputes the rules of one Service from the cache.
    fn rebuild(&mut self, svc_key: &ObjectKey) {
        let rules = self
            .services
            .get(svc_key)
            .and_then(|o| o.as_service())
            .map(|svc| self.rules_for(svc_key, svc))
            .unwrap_or_default();
        if rules.is_empty() {
            self.rules.remove(svc_key);
        } else {
            self.rules.insert(svc_key.clone(), rules);
        }
    }

    fn rules_for(&self, key: &ObjectKey, svc: &Service) -> Vec<ProxyRule> {
        let Some(spec) = svc.spec.as_ref() else {
            return Vec::new();
        };
        if spec.type_.as_deref() == Some("ExternalName") {
            return Vec::new();
        }
        let cluster_ip = match spec.cluster_ip.as_deref() {
            Some(ip) if !ip.is_empty() && ip != "None" => ip.to_string(),
            _ => return Vec::new(),
        };
        let lb_ips: Vec<String> = svc
            .status
            .as_ref()
            .and_then(|s| s.load_balancer.as_ref())
            .and_then(|lb| lb.ingress.as_ref())
            .map(|ing| ing.iter().filter_map(|i| i.ip.clone()).collect())
            .unwrap_or_default();
        let mut out = Vec::new();
        for p in spec.ports.iter().flatten() {
            let port_name = p.name.clone().unwrap_or_default();
            let protocol = p.protocol.clone().unwrap_or_else(|| "TCP".into());
            out.push(ProxyRule {
                namespace: key.namespace.clone(),
                service: key.name.clone(),
                backends: self.backends(key, &port_name, &protocol),
                port_name,
                protocol,
                cluster_ip: cluster_ip.clone(),
                port: p.port,
                node_port: p.node_port,
                load_balancer_ips: lb_ips.clone(),
            });
        }
        out
    }

    /// The backends of one Service port: ready endpoints, else serving and
    /// terminating ones (`CategorizeEndpoints`).
    fn backends(&self, key: &ObjectKey, port_name: &str, protocol: &str) -> Vec<Backend> {
        let mut ready = BTreeSet::new();
        let mut fallback = BTreeSet::new();
        match self.mode {
            ProxyMode::EndpointSlices => {
                let slices = self.slices.get(key).into_iter().flat_map(|m| m.values());
                for slice in slices.filter_map(|o| o.as_endpoint_slice()) {
                    if slice.address_type != "IPv4" {
                        continue;
                    }
                    let port = slice.ports.iter().flatten().find(|p| {
                        p.name.as_deref().unwrap_or("") == port_name
                            && p.protocol.as_deref().unwrap_or("TCP") == protocol
                    });
                    let Some(port) = port.and_then(|p| p.port) else {
                        continue;
                    };
                    for ep in slice.endpoints.iter().flatten() {
                        let Some(ip) = ep.addresses.first() else {
                            continue;
                        };
                        let c = ep.conditions.as_ref();
                        let is_ready = c.and_then(|c| c.ready).unwrap_or(true);
                        let serving = c.and_then(|c| c.serving).unwrap_or(is_ready);
                        let terminating = c.and_then(|c| c.terminating).unwrap_or(false);
                        if is_ready {
                            ready.insert(Backend {
                                ip: ip.clone(),
                                port,
                                terminating: false,
                            });
                        } else if serving && terminating {
                            fallback.insert(Backend {
                                ip: ip.clone(),
                                port,
                                terminating: true,
                            });
                        }
                    }
                }
            }
            ProxyMode::Endpoints => {
                let subsets = self
                    .endpoints
                    .get(key)
                    .and_then(|o| o.as_endpoints())
                    .and_then(|e| e.subsets.as_ref());
                for subset in subsets.into_iter().flatten() {
                    let port = subset.ports.iter().flatten().find(|p| {
                        p.name.as_deref().unwrap_or("") == port_name
                            && p.protocol.as_deref().unwrap_or("TCP") == protocol
                    });
                    let Some(port) = port.map(|p| p.port) else {
                        continue;
                    };
                    for a in subset.addresses.iter().flatten() {
                        ready.insert(Backend {
                            ip: a.ip.clone(),
                            port,
                            terminating: false,
                        });
                    }
                }
            }
        }
        if ready.is_empty() {
            fallback.into_iter().collect()
        } else {
            ready.into_iter().collect()
        }
    }

    /// Rebuilds the cache of `mode`'s endpoint kind (and the Services) from a list.
    fn relist<'a>(&mut self, objects: impl Iterator<Item = &'a Arc<Object>>) {
        self.services.clear();
        self.slices.clear();
        self.endpoints.clear();
        self.rules.clear();
        for obj in objects {
            self.apply(obj, false);
        }
        let keys: Vec<ObjectKey> = self.services.keys().cloned().collect();
        for k in keys {
            self.rebuild(&k);
        }
    }
}

impl Cluster {
    /// Called for every watch event: queues it for the watchers that see it.
    pub(crate) fn proxy_observe(&mut self, ev: &WatchEvent) {
        if !matches!(
            *ev.object,
            Object::Service(_) | Object::EndpointSlice(_) | Object::Endpoints(_)
        ) {
            return;
        }
        self.proxy.pending.push_back(Delivery {
            at: self.now + WATCH_DELAY,
            deleted: ev.event_type == EventType::Deleted,
            object: ev.object.clone(),
        });
        if !self.proxy.delivery_scheduled {
            self.proxy.delivery_scheduled = true;
            self.schedule(self.now + WATCH_DELAY, ProxyTimer::ProxyDelivery);
        }
    }

    /// The objects a kube-proxy lists when it (re)starts, in the current mode.
    fn proxy_list(&self) -> Vec<Arc<Object>> {
        let endpoint_kind = match self.proxy.mode {
            ProxyMode::EndpointSlices => Kind::EndpointSlice,
            ProxyMode::Endpoints => Kind::Endpoints,
        };
        self.store
            .list_shared(Kind::Service, None)
            .chain(self.store.list_shared(endpoint_kind, None))
            .cloned()
            .collect()
    }

    /// A node powered off: its kube-proxy stops and must list again when it starts.
    pub(crate) fn proxy_node_stopped(&mut self, node: &str) {
        if let Some(p) = self.proxy.nodes.get_mut(node) {
            p.synced = false;
        }
    }

    /// Counts a LIST for every running proxy not yet synced; returns them.
    pub(crate) fn proxy_relist_unsynced(&mut self) -> BTreeSet<String> {
        let running: Vec<String> = self
            .kubelets
            .iter()
            .filter(|(_, k)| k.running)
            .map(|(n, _)| n.clone())
            .collect();
        for (node, p) in self.proxy.nodes.iter_mut() {
            if !self.kubelets.get(node).is_some_and(|k| k.running) {
                p.synced = false;
            }
        }
        let unsynced: BTreeSet<String> = running
            .into_iter()
            .filter(|n| !self.proxy.nodes.get(n).is_some_and(|p| p.synced))
            .collect_set();
        if unsynced.is_empty() {
            return unsynced;
        }
        let (count, bytes) = self
            .proxy_list()
            .into_iter()
            .fold((0u64, 0u64), |(c, b), o| (c + 1, b + json_size(&o)));
        for n in &unsynced {
            let p = self.proxy.nodes.entry(n.clone()).or_default();
            p.stats.objects += count;
            p.stats.bytes += bytes;
            p.stats.syncs += 1;
            p.synced = true;
        }
        unsynced
    }

    /// `ProxyTimer::ProxyDelivery`: the watch events due now reach every kube-proxy and
    /// CoreDNS; each proxy's rules follow and count one sync.
    pub(crate) fn proxy_deliver(&mut self) {
        self.proxy.delivery_scheduled = false;
        let just_listed = self.proxy_relist_unsynced();
        let mut touched = BTreeSet::new();
        let mut to_proxies = (0u64, 0u64);
        let mut to_coredns = false;
        while self.proxy.pending.front().is_some_and(|d| d.at <= self.now) {
            let Some(d) = self.proxy.pending.pop_front() else {
                break;
            };
            let size = json_size(&d.object);
            if matches!(*d.object, Object::Service(_) | Object::EndpointSlice(_)) {
                self.proxy.coredns.objects += 1;
                self.proxy.coredns.bytes += size;
                to_coredns = true;
            }
            if self.proxy.watches(&d.object) {
                to_proxies.0 += 1;
                to_proxies.1 += size;
                if let Some(svc) = self.proxy.apply(&d.object, d.deleted) {
                    touched.insert(svc);
                }
            }
        }
        for svc in &touched {
            self.proxy.rebuild(svc);
        }
        if to_coredns {
            self.proxy.coredns.syncs += 1;
        }
        if to_proxies.0 > 0 {
            for (node, p) in self.proxy.nodes.iter_mut() {
                if p.synced && !just_listed.contains(node) {
                    p.stats.objects += to_proxies.0;
                    p.stats.bytes += to_proxies.1;
                    p.stats.syncs += 1;
                }
            }
        }
        if let Some(next) = self.proxy.pending.front().map(|d| d.at) {
            self.proxy.delivery_scheduled = true;
            self.schedule(next, ProxyTimer::ProxyDelivery);
        }
    }

    /// Switches what every kube-proxy watches (`sim proxy-mode`). Each running proxy
    /// restarts its informers: it relists Services and the new endpoint kind.
    pub fn set_proxy_mode(&mut self, mode: ProxyMode) -> String {
        if self.proxy.mode == mode {
            return format!("kube-proxy already watches {}", mode_kind(mode));
        }
        self.proxy.mode = mode;
        // Events in flight of the old kind are dropped with the old informer.
        let list = self.proxy_list();
        self.proxy.relist(list.iter());
        let pending = std::mem::take(&mut self.proxy.pending);
        self.proxy.pending = pending
            .into_iter()
            .filter(|d| !matches!(*d.object, Object::EndpointSlice(_) | Object::Endpoints(_)))
            .collect();
        for p in self.proxy.nodes.values_mut() {
            p.synced = false;
        }
        self.proxy_relist_unsynced();
        format!("kube-proxy now watches {}", mode_kind(mode))
    }

    /// Every watcher's watch broke (an etcd restore): the events in flight are lost,
    /// the shared cache is rebuilt from a LIST and every running proxy counts it.
    pub(crate) fn proxy_relist_all(&mut self) {
        self.proxy.pending.clear();
        let list = self.proxy_list();
        self.proxy.relist(list.iter());
        let (count, bytes) = self
            .store
            .list(Kind::Service, None)
            .chain(self.store.list(Kind::EndpointSlice, None))
            .fold((0u64, 0u64), |(c, b), o| (c + 1, b + json_size(o)));
        self.proxy.coredns.objects += count;
        self.proxy.coredns.bytes += bytes;
        self.proxy.coredns.syncs += 1;
        for p in self.proxy.nodes.values_mut() {
            p.synced = false;
        }
        self.proxy_relist_unsynced();
    }

    /// What the kube-proxies watch now.
    pub fn proxy_mode(&self) -> ProxyMode {
        self.proxy.mode
    }

    /// The rules `node`'s kube-proxy has programmed (empty when its node is down or
    /// it has not synced yet). Ordered by namespace, Service, port.
    pub fn proxy_rules(&self, node: &str) -> Vec<ProxyRule> {
        if !self.proxy_running(node) {
            return Vec::new();
        }
        self.proxy.rules.values().flatten().cloned().collect()
    }

    /// Where `node`'s kube-proxy sends a connection to `ip:port`: a ClusterIP, a
    /// load balancer IP, or the node's own InternalIP with a NodePort. Empty when no
    /// rule matches or the Service has no endpoint (upstream rejects those).
    pub fn proxy_lookup(&self, node: &str, ip: &str, port: i32) -> Vec<Backend> {
        self.proxy_route(node, ip, port).unwrap_or_default()
    }

    /// Like [`Cluster::proxy_lookup`], but tells "no rule matches" (`None`: the
    /// packet goes on unchanged) from "a rule without endpoints" (`Some` of nothing:
    /// kube-proxy rejects the connection).
    pub fn proxy_route(&self, node: &str, ip: &str, port: i32) -> Option<Vec<Backend>> {
        if !self.proxy_running(node) {
            return None;
        }
        let node_ip = self.node_internal_ip(node);
        self.proxy
            .rules
            .values()
            .flatten()
            .find(|r| {
                (r.port == port
                    && (r.cluster_ip == ip || r.load_balancer_ips.iter().any(|l| l == ip)))
                    || (r.node_port == Some(port) && node_ip.as_deref() == Some(ip))
            })
            .map(|r| r.backends.clone())
    }

    fn proxy_running(&self, node: &str) -> bool {
        self.kubelets.get(node).is_some_and(|k| k.running)
            && self.proxy.nodes.get(node).is_some_and(|p| p.synced)
    }

    pub(crate) fn node_internal_ip(&self, node: &str) -> Option<String> {
        let Some(Object::Node(n)) = self.store.get(&ObjectKey::new(Kind::Node, "", node)) else {
            return None;
        };
        n.status
            .as_ref()?
            .addresses
            .as_ref()?
            .iter()
            .find(|a| a.type_ == "InternalIP")
            .map(|a| a.address.clone())
    }

    /// What every watcher has received since the start or the last reset: each
    /// node's kube-proxy, then CoreDNS.
    pub fn watcher_stats(&self) -> Vec<WatcherLine> {
        let mut out: Vec<WatcherLine> = self
            .proxy
            .nodes
            .iter()
            .map(|(n, p)| WatcherLine {
                kind: "kube-proxy",
                name: n.clone(),
                stats: p.stats,
            })
            .collect();
        out.push(WatcherLine {
            kind: "coredns",
            name: "kube-system/coredns".into(),
            stats: self.proxy.coredns,
        });
        if let Some(stats) = self.ingress_watcher_stats() {
            out.push(WatcherLine {
                kind: "ingress-nginx",
                name: "ingress-nginx/ingress-nginx-controller".into(),
                stats,
            });
        }
        out
    }

    /// Zeroes every watcher's counters (`sim stats reset`).
    pub fn reset_watcher_stats(&mut self) {
        for p in self.proxy.nodes.values_mut() {
            p.stats = WatcherStats::default();
        }
        self.proxy.coredns = WatcherStats::default();
        self.ingress.stats = WatcherStats::default();
    }

    /// `sim stats`: totals per watcher kind, then the five watchers that received
    /// the most bytes.
    pub fn watcher_stats_table(&self) -> String {
        let lines = self.watcher_stats();
        let mut totals: BTreeMap<&str, (u64, WatcherStats)> = BTreeMap::new();
        for l in &lines {
            let t = totals.entry(l.kind).or_default();
            t.0 += 1;
            t.1.objects += l.stats.objects;
            t.1.bytes += l.stats.bytes;
            t.1.syncs += l.stats.syncs;
        }
        let mut s = format!(
            "kube-proxy mode: {} (watching Services and {})\n",
            self.proxy.mode.name(),
            mode_kind(self.proxy.mode)
        );
        let mut rows = vec![[
            "WATCHER".to_string(),
            "COUNT".into(),
            "OBJECTS".into(),
            "BYTES".into(),
            "SYNCS".into(),
        ]];
        for (kind, (n, st)) in &totals {
            rows.push([
                kind.to_string(),
                n.to_string(),
                st.objects.to_string(),
                st.bytes.to_string(),
                st.syncs.to_string(),
            ]);
        }
        s.push_str(&table(&rows));
        let mut top: Vec<&WatcherLine> = lines.iter().collect();
        top.stable_sort_by(|a, b| b.stats.bytes.cmp(&a.stats.bytes).then(a.name.cmp(&b.name)));
        s.push('\n');
        let mut rows = vec![[
            "WATCHER".to_string(),
            "NAME".into(),
            "OBJECTS".into(),
            "BYTES".into(),
            "SYNCS".into(),
        ]];
        for l in top.into_iter().take(5) {
            rows.push([
                l.kind.to_string(),
                l.name.clone(),
                l.stats.objects.to_string(),
                l.stats.bytes.to_string(),
                l.stats.syncs.to_string(),
            ]);
        }
        s.push_str(&table(&rows));
        s
    }
}

fn mode_kind(mode: ProxyMode) -> &'static str {
    match mode {
        ProxyMode::EndpointSlices => "EndpointSlices",
        ProxyMode::Endpoints => "Endpoints",
    }
}

/// Left-aligned columns three spaces apart, as kubectl prints tables.
fn table(rows: &[[String; 5]]) -> String {
    let mut widths = [0usize; 5];
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let mut s = String::new();
    for r in rows {
        let mut line = String::new();
        for (i, c) in r.iter().enumerate() {
            if i + 1 == r.len() {
                line.push_str(c);
            } else {
                line.push_str(&format!("{c:<w$}   ", w = widths[i]));
            }
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

/// kube-proxy's and CoreDNS's timer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum ProxyTimer {
    /// Watch events reach every kube-proxy and CoreDNS.
    ProxyDelivery,
}

impl crate::runtime::components::Timers for ProxyTimer {
    const DESCRIPTIONS: &'static [&'static str] = &["proxy watch delivery"];

    fn describe(&self) -> &'static str {
        Self::DESCRIPTIONS[0]
    }

    fn fire(self, c: &mut Cluster) {
        c.proxy_deliver();
    }
}
