//! An nginx-like Ingress controller (ingress-nginx) and the `nginx` IngressClass.
//!
//! Mirrors kubernetes/ingress-nginx: `internal/ingress/controller/store` (its
//! informers on Ingresses, IngressClasses, Services and EndpointSlices, and the
//! `Sync` "Scheduled for sync" event on every Ingress it takes), `controller.go`
//! (`createServers`/`createUpstreams`: one server per host, a catch-all server `_`,
//! locations by path, the root location falling back to the Ingress's
//! `defaultBackend` or the controller's built-in default backend, which answers 404),
//! `endpointslices.go` (upstreams are the ready endpoints of the Service port's
//! EndpointSlices: pod IPs, so traffic bypasses kube-proxy), the Lua balancer's
//! round robin, `proxy_next_upstream error timeout` with 3 tries, and the status
//! syncer, which publishes the controller's address in `status.loadBalancer.ingress`.
//! The apiserver's DefaultIngressClass admission plugin (`plugin/pkg/admission/
//! network/defaultingressclass`) is here too: a new Ingress without a class gets the
//! default IngressClass.
//!
//! Simplified:
//! - The controller is a simulated component, not a pod: `sim addons enable ingress`
//!   installs it (the `nginx` IngressClass, marked default, as minikube's ingress
//!   addon does) and from then on it listens on ports 80 and 443 of the
//!   control-plane node, whose InternalIP it publishes (a bare-metal install without
//!   `--publish-service`). It runs while that node runs; stopping the apiserver only
//!   freezes what it knows.
//! - Like kube-proxy (`proxy.rs`) it receives watch events [`WATCH_DELAY`] after the
//!   write; its cache is what it routes by. Objects and bytes are counted as for the
//!   proxies (`sim stats`).
//! - The status is written [`STATUS_SYNC_DELAY`] after the controller sees an Ingress
//!   without its address (upstream syncs status on a 60 s period).
//! - No TLS (443 answers as 80 does), no annotations (rewrites, regex paths, canary),
//!   no ConfigMap or Secret watches. ImplementationSpecific paths are nginx prefix
//!   locations (ingress-nginx without `use-regex`).

use crate::apiserver::Actor;
use crate::cluster::{Cluster, WATCH_DELAY};
use crate::network::proxy::WatcherStats;
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::{CollectMap, StableSort};
use crate::store::{EventType, WatchEvent};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::api::networking::v1::{
    Ingress, IngressBackend, IngressClass, IngressLoadBalancerIngress, IngressLoadBalancerStatus,
    IngressStatus,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The IngressClass the addon installs.
pub const CLASS_NAME: &str = "nginx";
/// `spec.controller` of the class ingress-nginx claims.
pub const CONTROLLER_NAME: &str = "k8s.io/ingress-nginx";
/// The annotation that makes an IngressClass the cluster's default.
pub const DEFAULT_CLASS_ANNOTATION: &str = "ingressclass.kubernetes.io/is-default-class";
/// The deprecated per-Ingress class annotation ingress-nginx still honours.
pub const CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";
/// How long after the controller sees an Ingress it writes the Ingress's status.
pub const STATUS_SYNC_DELAY: SimDuration = SimDuration::secs(1);
/// The event source ingress-nginx records with.
const SOURCE: &str = "nginx-ingress-controller";
const ACTOR: Actor = Actor::Controller("ingress-nginx");
const RETRY: SimDuration = SimDuration::secs(5);

/// The built-in default backend's answer (ingress-nginx hides its version).
pub const NOT_FOUND_BODY: &str = "<html>\n<head><title>404 Not Found</title></head>\n<body>\n<center><h1>404 Not Found</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n";
/// No ready endpoint (or no Service) behind a location.
pub const UNAVAILABLE_BODY: &str = "<html>\n<head><title>503 Service Temporarily Unavailable</title></head>\n<body>\n<center><h1>503 Service Temporarily Unavailable</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n";
/// Every upstream try was refused.
pub const BAD_GATEWAY_BODY: &str = "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n";
/// The last upstream try timed out.
pub const GATEWAY_TIMEOUT_BODY: &str = "<html>\n<head><title>504 Gateway Time-out</title></head>\n<body>\n<center><h1>504 Gateway Time-out</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n";

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Delivery {
    at: SimTime,
    deleted: bool,
    object: std::sync::Arc<Object>,
}

/// The controller's informer caches and counters.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct IngressState {
    /// Set by `sim addons enable ingress`.
    pub(crate) installed: bool,
    pending: VecDeque<Delivery>,
    delivery_scheduled: bool,
    #[serde(with = "crate::snapshot::pairs")]
    ingresses: BTreeMap<ObjectKey, Ingress>,
    classes: BTreeMap<String, IngressClass>,
    #[serde(with = "crate::snapshot::pairs")]
    services: BTreeMap<ObjectKey, Service>,
    /// EndpointSlices by their Service, then by slice name.
    #[serde(with = "crate::snapshot::pairs")]
    slices: BTreeMap<ObjectKey, BTreeMap<String, EndpointSlice>>,
    pub(crate) stats: WatcherStats,
    /// Ingresses whose status the status syncer must write, and whether it is armed.
    status_pending: BTreeSet<ObjectKey>,
    status_scheduled: bool,
    /// The round-robin position of each upstream (`namespace/service:port`).
    round_robin: BTreeMap<String, u64>,
}

/// Where a location sends a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IngressRoute {
    /// A Service port, by number or by name.
    Service {
        namespace: String,
        service: String,
        port: BackendPort,
    },
    /// The controller's built-in default backend (404).
    DefaultBackend,
}

/// `spec.rules[].http.paths[].backend.service.port`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BackendPort {
    Number(i32),
    Name(String),
}

/// Whether `request` matches an Ingress path of `path_type` (the Ingress API's
/// semantics as ingress-nginx implements them): `Exact` is equality; `Prefix`
/// matches whole path elements (`/foo` matches `/foo` and `/foo/bar`, not
/// `/foobar`; a trailing `/` is ignored); `ImplementationSpecific` is nginx's string
/// prefix.
pub fn path_matches(path_type: &str, rule: &str, request: &str) -> bool {
    match path_type {
        "Exact" => request == rule,
        "Prefix" => {
            let p = rule.trim_end_matches('/');
            p.is_empty() || request == p || request.starts_with(&format!("{p}/"))
        }
        _ => request.starts_with(rule),
    }
}

/// Whether an Ingress rule's `host` serves `request_host`: equal (case-insensitive),
/// or a wildcard `*.example.com` that covers exactly one more DNS label.
pub fn host_matches(rule_host: &str, request_host: &str) -> bool {
    let rule = rule_host.to_ascii_lowercase();
    let req = request_host.to_ascii_lowercase();
    match rule.strip_prefix("*.") {
        Some(suffix) => req
            .strip_suffix(suffix)
            .and_then(|l| l.strip_suffix('.'))
            .is_some_and(|label| !label.is_empty() && !label.contains('.')),
        None => rule == req,
    }
}

fn backend_route(namespace: &str, b: &IngressBackend) -> IngressRoute {
    match b.service.as_ref() {
        Some(s) => IngressRoute::Service {
            namespace: namespace.to_string(),
            service: s.name.clone(),
            port: match s.port.as_ref() {
                Some(p) if p.name.as_deref().is_some_and(|n| !n.is_empty()) => {
                    BackendPort::Name(p.name.clone().unwrap_or_default())
                }
                Some(p) => BackendPort::Number(p.number.unwrap_or(80)),
                None => BackendPort::Number(80),
            },
        },
        // Resource backends are not served by ingress-nginx.
        None => IngressRoute::DefaultBackend,
    }
}

/// Picks the location for `host` and `path` among `ingresses` (oldest first), as
/// ingress-nginx's generated nginx.conf would: the server of the host (exact, then
/// wildcard, else the catch-all `_`), an exact location first, else the longest
/// matching prefix, else the server's root location (its Ingress's
/// `defaultBackend`, or the built-in default backend).
pub fn route<'a>(
    ingresses: impl IntoIterator<Item = &'a Ingress>,
    host: &str,
    path: &str,
) -> IngressRoute {
    let ingresses: Vec<&Ingress> = ingresses.into_iter().collect();
    let host = host.split(':').next().unwrap_or(host);
    // nginx matches locations on the URI without its query string.
    let path = path.split('?').next().unwrap_or(path);
    let rule_host =
        |r: &k8s_openapi::api::networking::v1::IngressRule| r.host.clone().unwrap_or_default();
    let rules = |pick: &dyn Fn(&str) -> bool| {
        let mut out = Vec::new();
        for ing in &ingresses {
            for r in ing.spec.iter().flat_map(|s| s.rules.iter().flatten()) {
                if pick(&rule_host(r)) {
                    out.push((*ing, r));
                }
            }
        }
        out
    };
    let mut server =
        rules(&|h: &str| !h.is_empty() && !h.starts_with("*.") && host_matches(h, host));
    if server.is_empty() {
        server = rules(&|h: &str| h.starts_with("*.") && host_matches(h, host));
    }
    let catch_all = server.is_empty();
    if catch_all {
        server = rules(&|h: &str| h.is_empty());
    }
    // (rank, length): Exact beats every prefix; then the longest path.
    let mut best: Option<((u8, usize), IngressRoute)> = None;
    for (ing, rule) in &server {
        let ns = ing.metadata.namespace.as_deref().unwrap_or("default");
        for p in rule.http.iter().flat_map(|h| h.paths.iter()) {
            let rule_path = p.path.as_deref().unwrap_or("/");
            if !path_matches(&p.path_type, rule_path, path) {
                continue;
            }
            let rank = match p.path_type.as_str() {
                "Exact" => (2, rule_path.len()),
                _ => (1, rule_path.len()),
            };
            if best.as_ref().is_none_or(|(b, _)| rank > *b) {
                best = Some((rank, backend_route(ns, &p.backend)));
            }
        }
    }
    if let Some((_, r)) = best {
        return r;
    }
    // The root location: the defaultBackend of the Ingress that made the server
    // (for `_`, only a catch-all Ingress: a defaultBackend and no rules).
    let default = if catch_all {
        ingresses.iter().find(|i| {
            i.spec.as_ref().is_some_and(|s| {
                s.default_backend.is_some() && s.rules.as_ref().is_none_or(|r| r.is_empty())
            })
        })
    } else {
        server.first().map(|(i, _)| i)
    };
    default
        .and_then(|i| {
            let ns = i.metadata.namespace.as_deref().unwrap_or("default");
            i.spec
                .as_ref()
                .and_then(|s| s.default_backend.as_ref())
                .map(|b| backend_route(ns, b))
        })
        .unwrap_or(IngressRoute::DefaultBackend)
}

/// A watch event's size on the wire: its object's compact JSON, counted without
/// encoding it.
fn json_size(obj: &Object) -> u64 {
    crate::store::object_size_bytes(obj) as u64
}

fn published_ips(ing: &Ingress) -> Vec<String> {
    ing.status
        .as_ref()
        .and_then(|s| s.load_balancer.as_ref())
        .and_then(|l| l.ingress.as_ref())
        .map(|i| i.iter().filter_map(|x| x.ip.clone()).collect())
        .unwrap_or_default()
}

/// The IngressClass the addon installs (ingress-nginx's, marked default).
pub fn nginx_ingress_class() -> IngressClass {
    let mut c = IngressClass::default();
    c.metadata.name = Some(CLASS_NAME.into());
    c.metadata.annotations = Some(
        [(DEFAULT_CLASS_ANNOTATION.to_string(), "true".to_string())]
            .into_iter()
            .collect_map(),
    );
    c.metadata.labels = Some(
        [
            ("app.kubernetes.io/component", "controller"),
            ("app.kubernetes.io/instance", "ingress-nginx"),
            ("app.kubernetes.io/name", "ingress-nginx"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect_map(),
    );
    c.spec = Some(k8s_openapi::api::networking::v1::IngressClassSpec {
        controller: Some(CONTROLLER_NAME.into()),
        parameters: None,
    });
    c
}

impl IngressState {
    pub(crate) fn watches(obj: &Object) -> bool {
        matches!(
            obj,
            Object::Ingress(_)
                | Object::IngressClass(_)
                | Object::Service(_)
                | Object::EndpointSlice(_)
        )
    }

    fn apply(&mut self, obj: &Object, deleted: bool) {
        let key = obj.key();
        match obj {
            Object::Ingress(i) => {
                if deleted {
                    self.ingresses.remove(&key);
                } else {
                    self.ingresses.insert(key, (**i).clone());
                }
            }
            Object::IngressClass(c) => {
                if deleted {
                    self.classes.remove(&key.name);
                } else {
                    self.classes.insert(key.name.clone(), (**c).clone());
                }
            }
            Object::Service(s) => {
                if deleted {
                    self.services.remove(&key);
                } else {
                    self.services.insert(key, (**s).clone());
                }
            }
            Object::EndpointSlice(slice) => {
                let Some(svc) = slice
                    .metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get(crate::controllers::endpointslice::LABEL_SERVICE_NAME))
                else {
                    return;
                };
                let svc = ObjectKey::new(Kind::Service, &key.namespace, svc);
                if deleted {
                    if let Some(m) = self.slices.get_mut(&svc) {
                        m.remove(&key.name);
                        if m.is_empty() {
                            self.slices.remove(&svc);
                        }
                    }
                } else {
                    self.slices
                        .entry(svc)
                        .or_default()
                        .insert(key.name.clone(), (**slice).clone());
                }
            }
            _ => {}
        }
    }

    /// Whether ingress-nginx takes this Ingress: its class is `nginx` (by
    /// `spec.ingressClassName` naming a class of this controller, or by the
    /// deprecated annotation).
    fn owns(&self, ing: &Ingress) -> bool {
        if let Some(a) = ing
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(CLASS_ANNOTATION))
        {
            return a == CLASS_NAME;
        }
        let Some(class) = ing
            .spec
            .as_ref()
            .and_then(|s| s.ingress_class_name.as_deref())
        else {
            return false;
        };
        self.classes
            .get(class)
            .and_then(|c| c.spec.as_ref())
            .and_then(|s| s.controller.as_deref())
            == Some(CONTROLLER_NAME)
    }

    /// The Ingresses of this controller, oldest first (upstream sorts by
    /// creationTimestamp so the oldest definition of a host and path wins).
    fn owned(&self) -> Vec<&Ingress> {
        let mut v: Vec<&Ingress> = self.ingresses.values().filter(|i| self.owns(i)).collect();
        v.stable_sort_by(|a, b| {
            let t = |i: &Ingress| i.metadata.creation_timestamp.as_ref().map(|t| t.0);
            t(a).cmp(&t(b))
                .then(a.metadata.namespace.cmp(&b.metadata.namespace))
                .then(a.metadata.name.cmp(&b.metadata.name))
        });
        v
    }

    /// The ready endpoints (pod IP, target port, pod name) behind a Service port,
    /// from the controller's cache; `None` when the Service or its port is unknown.
    fn upstream(
        &self,
        namespace: &str,
        service: &str,
        port: &BackendPort,
    ) -> Option<Vec<(String, i32, String)>> {
        let key = ObjectKey::new(Kind::Service, namespace, service);
        let svc = self.services.get(&key)?;
        let sp = svc
            .spec
            .as_ref()?
            .ports
            .iter()
            .flatten()
            .find(|p| match port {
                BackendPort::Number(n) => p.port == *n,
                BackendPort::Name(n) => p.name.as_deref() == Some(n.as_str()),
            })?;
        let port_name = sp.name.clone().unwrap_or_default();
        let mut out = BTreeSet::new();
        for slice in self.slices.get(&key).into_iter().flat_map(|m| m.values()) {
            let Some(p) = slice
                .ports
                .iter()
                .flatten()
                .find(|p| p.name.as_deref().unwrap_or("") == port_name)
                .and_then(|p| p.port)
            else {
                continue;
            };
            for ep in slice.endpoints.iter().flatten() {
                let ready = ep.conditions.as_ref().and_then(|c| c.ready).unwrap_or(true);
                if !ready {
                    continue;
                }
                if let Some(ip) = ep.addresses.first() {
                    let pod = ep
                        .target_ref
                        .as_ref()
                        .and_then(|r| r.name.clone())
                        .unwrap_or_default();
                    out.insert((ip.clone(), p, pod));
                }
            }
        }
        Some(out.into_iter().collect())
    }
}

/// What ingress-nginx decided for one request, before it connects upstream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum IngressDecision {
    /// Answer directly with this status and body.
    Respond(u16, &'static str),
    /// Try these endpoints in order (round robin from the upstream's position).
    Upstream(Vec<(String, i32, String)>),
}

impl Cluster {
    /// `sim addons enable ingress`: installs the `nginx` IngressClass (default) and
    /// starts the simulated ingress-nginx controller, which lists what it watches.
    pub fn enable_ingress_addon(&mut self) -> Result<String, crate::SimError> {
        if self.ingress.installed {
            return Ok("The 'ingress' addon is already enabled".into());
        }
        self.current_cause = crate::trace::Cause::User;
        let exists = self
            .store
            .get(&ObjectKey::new(Kind::IngressClass, "", CLASS_NAME))
            .is_some();
        if !exists {
            self.create_as(
                Actor::admin(),
                Object::IngressClass(Box::new(nginx_ingress_class())),
            )
            .map_err(|e| crate::SimError(e.to_string()))?;
        }
        self.ingress.installed = true;
        self.ingress_relist();
        Ok(format!(
            "The 'ingress' addon is enabled: ingressclass.networking.k8s.io/{CLASS_NAME} (default), ingress-nginx listening on {}:80",
            self.ingress_address().unwrap_or_default()
        ))
    }

    /// Whether the ingress controller answers now (installed, its node running).
    pub(crate) fn ingress_running(&self) -> bool {
        self.ingress.installed
            && self
                .ingress_node()
                .is_some_and(|n| self.kubelets.get(&n).is_some_and(|k| k.running))
    }

    /// The node the controller runs on: the first control-plane node.
    pub(crate) fn ingress_node(&self) -> Option<String> {
        self.topology
            .nodes
            .iter()
            .find(|n| n.control_plane)
            .or(self.topology.nodes.first())
            .map(|n| n.name.clone())
    }

    /// The address ingress-nginx publishes: its node's InternalIP.
    pub fn ingress_address(&self) -> Option<String> {
        self.node_internal_ip(&self.ingress_node()?)
    }

    /// The controller (re)lists: its caches are rebuilt and the LIST is counted.
    pub(crate) fn ingress_relist(&mut self) {
        if !self.ingress.installed {
            return;
        }
        let st = &mut self.ingress;
        st.pending.clear();
        st.ingresses.clear();
        st.classes.clear();
        st.services.clear();
        st.slices.clear();
        let mut count = 0;
        let mut bytes = 0;
        for kind in [
            Kind::IngressClass,
            Kind::Ingress,
            Kind::Service,
            Kind::EndpointSlice,
        ] {
            for obj in self.store.list(kind, None) {
                count += 1;
                bytes += json_size(obj);
                st.apply(obj, false);
            }
        }
        st.stats.objects += count;
        st.stats.bytes += bytes;
        st.stats.syncs += 1;
        let owned: Vec<Object> = st
            .owned()
            .into_iter()
            .map(|i| Object::Ingress(Box::new(i.clone())))
            .collect();
        // The informer's initial list adds every Ingress: each gets its Sync event.
        for obj in owned {
            if self.ingress_running() && self.api_writable() {
                self.record_event(
                    &obj,
                    SOURCE,
                    None,
                    "Normal",
                    "Sync",
                    "Scheduled for sync".into(),
                );
            }
            self.ingress_status_needed(obj.key());
        }
    }

    /// Called for every watch event: queues what the controller watches.
    pub(crate) fn ingress_observe(&mut self, ev: &WatchEvent) {
        if !self.ingress.installed || !IngressState::watches(&ev.object) {
            return;
        }
        self.ingress.pending.push_back(Delivery {
            at: self.now + WATCH_DELAY,
            deleted: ev.event_type == EventType::Deleted,
            object: ev.object.clone(),
        });
        if !self.ingress.delivery_scheduled {
            self.ingress.delivery_scheduled = true;
            self.schedule(self.now + WATCH_DELAY, IngressTimer::IngressDelivery);
        }
    }

    /// `IngressTimer::IngressDelivery`: the due watch events reach the controller; each
    /// Ingress it takes gets a `Sync` event, and its status is checked.
    pub(crate) fn ingress_deliver(&mut self) {
        self.ingress.delivery_scheduled = false;
        let mut synced = Vec::new();
        let mut any = false;
        while self
            .ingress
            .pending
            .front()
            .is_some_and(|d| d.at <= self.now)
        {
            let Some(d) = self.ingress.pending.pop_front() else {
                break;
            };
            any = true;
            self.ingress.stats.objects += 1;
            self.ingress.stats.bytes += json_size(&d.object);
            self.ingress.apply(&d.object, d.deleted);
            if let (Object::Ingress(ing), false) = (&*d.object, d.deleted) {
                if self.ingress.owns(ing) {
                    synced.push(d.object.clone());
                }
            }
        }
        if any {
            self.ingress.stats.syncs += 1;
        }
        for obj in synced {
            if self.ingress_running() && self.api_writable() {
                self.record_event(
                    &obj,
                    SOURCE,
                    None,
                    "Normal",
                    "Sync",
                    "Scheduled for sync".into(),
                );
            }
            self.ingress_status_needed(obj.key());
        }
        if let Some(next) = self.ingress.pending.front().map(|d| d.at) {
            self.ingress.delivery_scheduled = true;
            self.schedule(next, IngressTimer::IngressDelivery);
        }
    }

    fn ingress_status_needed(&mut self, key: ObjectKey) {
        let want = self.ingress_address();
        let has = self
            .ingress
            .ingresses
            .get(&key)
            .map(published_ips)
            .unwrap_or_default();
        if want.is_none() || has == want.into_iter().collect::<Vec<_>>() {
            return;
        }
        self.ingress.status_pending.insert(key);
        if !self.ingress.status_scheduled {
            self.ingress.status_scheduled = true;
            self.schedule(
                self.now + STATUS_SYNC_DELAY,
                IngressTimer::IngressStatusSync,
            );
        }
    }

    /// `IngressTimer::IngressStatusSync`: the status syncer writes the published address
    /// into every pending Ingress's `status.loadBalancer.ingress`.
    pub(crate) fn ingress_status_sync(&mut self) {
        self.ingress.status_scheduled = false;
        if self.ingress.status_pending.is_empty() {
            return;
        }
        if !self.ingress_running() || !self.api_writable() {
            self.ingress.status_scheduled = true;
            self.schedule(self.now + RETRY, IngressTimer::IngressStatusSync);
            return;
        }
        let Some(ip) = self.ingress_address() else {
            return;
        };
        let keys = std::mem::take(&mut self.ingress.status_pending);
        for key in keys {
            let Some(Object::Ingress(mut ing)) = self.store.get(&key).cloned() else {
                continue;
            };
            if !self.ingress.owns(&ing) || published_ips(&ing) == [ip.clone()] {
                continue;
            }
            ing.status = Some(IngressStatus {
                load_balancer: Some(IngressLoadBalancerStatus {
                    ingress: Some(vec![IngressLoadBalancerIngress {
                        ip: Some(ip.clone()),
                        ..Default::default()
                    }]),
                }),
            });
            if self.update_as(ACTOR, Object::Ingress(ing)).is_err() {
                self.ingress.status_pending.insert(key);
            }
        }
        if !self.ingress.status_pending.is_empty() {
            self.ingress.status_scheduled = true;
            self.schedule(self.now + RETRY, IngressTimer::IngressStatusSync);
        }
    }

    /// The DefaultIngressClass admission plugin: an Ingress created without
    /// `spec.ingressClassName` (and without the class annotation) gets the default
    /// IngressClass; of several defaults, the newest.
    pub(crate) fn admit_default_ingress_class(&self, obj: &mut Object) {
        let Object::Ingress(ing) = obj else {
            return;
        };
        if ing
            .spec
            .as_ref()
            .is_some_and(|s| s.ingress_class_name.is_some())
            || ing
                .metadata
                .annotations
                .as_ref()
                .is_some_and(|a| a.contains_key(CLASS_ANNOTATION))
        {
            return;
        }
        let default = self
            .store
            .list(Kind::IngressClass, None)
            .filter(|c| {
                c.meta()
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get(DEFAULT_CLASS_ANNOTATION))
                    .is_some_and(|v| v == "true")
            })
            .max_by_key(|c| c.meta().creation_timestamp.as_ref().map(|t| t.0));
        if let Some(c) = default {
            ing.spec
                .get_or_insert_with(Default::default)
                .ingress_class_name = Some(c.name().to_string());
        }
    }

    /// What ingress-nginx does with a request for `host` and `path`, from its cache.
    pub(crate) fn ingress_decide(&mut self, host: &str, path: &str) -> IngressDecision {
        let route = route(self.ingress.owned(), host, path);
        let (namespace, service, port) = match route {
            IngressRoute::DefaultBackend => return IngressDecision::Respond(404, NOT_FOUND_BODY),
            IngressRoute::Service {
                namespace,
                service,
                port,
            } => (namespace, service, port),
        };
        let eps = self
            .ingress
            .upstream(&namespace, &service, &port)
            .unwrap_or_default();
        if eps.is_empty() {
            return IngressDecision::Respond(503, UNAVAILABLE_BODY);
        }
        let name = format!("{namespace}/{service}:{port:?}");
        let pos = self.ingress.round_robin.entry(name).or_default();
        let start = (*pos % eps.len() as u64) as usize;
        *pos += 1;
        let mut order = eps[start..].to_vec();
        order.extend_from_slice(&eps[..start]);
        IngressDecision::Upstream(order)
    }

    /// The Ingresses' hosts that resolve (for a client outside, as if its
    /// `/etc/hosts` named them) to the published address.
    pub(crate) fn ingress_host_address(&self, host: &str) -> Option<String> {
        self.store.list(Kind::Ingress, None).find_map(|o| {
            let Object::Ingress(i) = o else { return None };
            let serves = i
                .spec
                .iter()
                .flat_map(|s| s.rules.iter().flatten())
                .any(|r| r.host.as_deref().is_some_and(|h| host_matches(h, host)));
            serves
                .then(|| published_ips(i).into_iter().next())
                .flatten()
        })
    }

    /// What the ingress controller has received (`sim stats`), when installed.
    pub(crate) fn ingress_watcher_stats(&self) -> Option<WatcherStats> {
        self.ingress.installed.then_some(self.ingress.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ing(v: serde_json::Value) -> Ingress {
        serde_json::from_value(v).unwrap()
    }

    fn svc(ns: &str, name: &str, port: i32) -> IngressRoute {
        IngressRoute::Service {
            namespace: ns.into(),
            service: name.into(),
            port: BackendPort::Number(port),
        }
    }

    fn path(p: &str, t: &str, service: &str) -> serde_json::Value {
        json!({"path": p, "pathType": t, "backend": {"service": {"name": service, "port": {"number": 80}}}})
    }

    #[test]
    fn prefix_matches_whole_path_elements() {
        assert!(path_matches("Prefix", "/", "/anything"));
        assert!(path_matches("Prefix", "/foo", "/foo"));
        assert!(path_matches("Prefix", "/foo", "/foo/bar"));
        assert!(path_matches("Prefix", "/foo/", "/foo"));
        assert!(!path_matches("Prefix", "/foo", "/foobar"));
    }

    #[test]
    fn exact_matches_only_the_same_path() {
        assert!(path_matches("Exact", "/foo", "/foo"));
        assert!(!path_matches("Exact", "/foo", "/foo/"));
        assert!(!path_matches("Exact", "/foo", "/foo/bar"));
    }

    #[test]
    fn implementation_specific_is_an_nginx_string_prefix() {
        assert!(path_matches("ImplementationSpecific", "/foo", "/foobar"));
        assert!(!path_matches("ImplementationSpecific", "/foo", "/fo"));
    }

    #[test]
    fn wildcard_hosts_cover_one_label() {
        assert!(host_matches("*.example.com", "shop.example.com"));
        assert!(!host_matches("*.example.com", "a.shop.example.com"));
        assert!(!host_matches("*.example.com", "example.com"));
        assert!(host_matches("Shop.Example.com", "shop.example.com"));
    }

    #[test]
    fn longest_prefix_wins_and_exact_beats_prefix() {
        let i = ing(
            json!({"metadata": {"name": "i", "namespace": "default"}, "spec": {"rules": [
            {"http": {"paths": [path("/", "Prefix", "root"), path("/api", "Prefix", "api"),
                                 path("/api/v2", "Prefix", "v2"), path("/api", "Exact", "exact")]}}]}}),
        );
        assert_eq!(route([&i], "x", "/api/v2/users"), svc("default", "v2", 80));
        assert_eq!(route([&i], "x", "/api/v1"), svc("default", "api", 80));
        assert_eq!(route([&i], "x", "/api"), svc("default", "exact", 80));
        assert_eq!(route([&i], "x", "/api?page=2"), svc("default", "exact", 80));
        assert_eq!(route([&i], "x", "/other"), svc("default", "root", 80));
    }

    #[test]
    fn a_host_server_hides_the_catch_all_rules() {
        let i = ing(
            json!({"metadata": {"name": "i", "namespace": "shop"}, "spec": {"rules": [
            {"host": "shop.example", "http": {"paths": [path("/api", "Prefix", "api")]}},
            {"http": {"paths": [path("/", "Prefix", "any")]}}]}}),
        );
        assert_eq!(
            route([&i], "shop.example:80", "/api"),
            svc("shop", "api", 80)
        );
        assert_eq!(
            route([&i], "shop.example", "/"),
            IngressRoute::DefaultBackend
        );
        assert_eq!(route([&i], "other.example", "/"), svc("shop", "any", 80));
    }

    #[test]
    fn unmatched_paths_fall_back_to_the_ingress_default_backend() {
        let with_default = ing(
            json!({"metadata": {"name": "i", "namespace": "default"}, "spec": {
            "defaultBackend": {"service": {"name": "fallback", "port": {"number": 8080}}},
            "rules": [{"host": "a.example", "http": {"paths": [path("/a", "Prefix", "a")]}}]}}),
        );
        assert_eq!(
            route([&with_default], "a.example", "/b"),
            svc("default", "fallback", 8080)
        );
        // The catch-all server uses only an Ingress with no rules.
        assert_eq!(
            route([&with_default], "b.example", "/"),
            IngressRoute::DefaultBackend
        );
        let catch_all = ing(
            json!({"metadata": {"name": "c", "namespace": "default"}, "spec": {
            "defaultBackend": {"service": {"name": "catch", "port": {"name": "http"}}}}}),
        );
        assert_eq!(
            route([&with_default, &catch_all], "b.example", "/"),
            IngressRoute::Service {
                namespace: "default".into(),
                service: "catch".into(),
                port: BackendPort::Name("http".into())
            }
        );
    }

    #[test]
    fn the_oldest_ingress_wins_a_tie() {
        let a = ing(
            json!({"metadata": {"name": "a", "namespace": "default"}, "spec": {"rules": [
            {"http": {"paths": [path("/", "Prefix", "first")]}}]}}),
        );
        let b = ing(
            json!({"metadata": {"name": "b", "namespace": "default"}, "spec": {"rules": [
            {"http": {"paths": [path("/", "Prefix", "second")]}}]}}),
        );
        assert_eq!(route([&a, &b], "x", "/"), svc("default", "first", 80));
    }
}

/// The ingress controller's timers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum IngressTimer {
    /// Watch events reach the ingress controller.
    IngressDelivery,
    /// The ingress controller's status syncer writes Ingress addresses.
    IngressStatusSync,
}

impl crate::runtime::components::Timers for IngressTimer {
    const DESCRIPTIONS: &'static [&'static str] =
        &["ingress watch delivery", "ingress status sync"];

    fn describe(&self) -> &'static str {
        match self {
            IngressTimer::IngressDelivery => Self::DESCRIPTIONS[0],
            IngressTimer::IngressStatusSync => Self::DESCRIPTIONS[1],
        }
    }

    fn fire(self, c: &mut Cluster) {
        match self {
            IngressTimer::IngressDelivery => c.ingress_deliver(),
            IngressTimer::IngressStatusSync => c.ingress_status_sync(),
        }
    }
}
