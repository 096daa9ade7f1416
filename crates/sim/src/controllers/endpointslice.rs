//! The order desks' sheets: the EndpointSlice controller (pkg/controller/endpointslice
//! with the reconciler of staging/src/k8s.io/endpointslice/reconciler.go).
//!
//! For every Service with a selector (and not of type ExternalName) it keeps
//! EndpointSlices listing the pods the selector matches: each pod with an IP and not
//! finished is an endpoint with its conditions (`serving` = the pod is Ready,
//! `terminating` = it is being deleted, `ready` = serving and not terminating, or
//! always with `publishNotReadyAddresses`). Slices are grouped by the ports the pods
//! resolve the Service's target ports to, hold at most `maxEndpointsPerSlice` (100,
//! `sim config max-endpoints-per-slice N`), are named by the apiserver from the
//! `<service>-` generateName, carry the `kubernetes.io/service-name` and
//! `endpointslice.kubernetes.io/managed-by` labels and an ownerReference to the
//! Service. The reconciler keeps churn low as upstream's does: an existing slice is
//! only rewritten when one of its endpoints changed, new endpoints go first into
//! slices already being rewritten (fullest first), then into the unchanged slice
//! they fit best, and only then into new slices; a Service without endpoints keeps
//! one empty placeholder slice. So one pod's change rewrites one slice. When a sync
//! would both create and delete slices, the new one is written as an update of the
//! one to delete, under its name (upstream's `finalize`): the placeholder becomes
//! the Service's first real slice.
//!
//! Simplified: IPv4 only; endpoints are placed in pod-name order where upstream pops
//! them from a set; no `endpoints.kubernetes.io/last-change-trigger-time` annotation;
//! no topology hints; the mirroring controller for selector-less Services with
//! hand-written Endpoints is not simulated.

use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::controllers::pod_is_ready;
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::{CollectMap, CollectSet, StableSort};
use crate::store::{EventType, WatchEvent};
use k8s_openapi::api::core::v1::{Pod, Service};
use k8s_openapi::api::discovery::v1::{Endpoint, EndpointConditions, EndpointPort, EndpointSlice};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::{BTreeMap, BTreeSet};

const ACTOR: Actor = Actor::Controller("endpointslice-controller");
/// The value of `endpointslice.kubernetes.io/managed-by` this controller writes.
pub const MANAGED_BY: &str = "endpointslice-controller.k8s.io";
pub const LABEL_MANAGED_BY: &str = "endpointslice.kubernetes.io/managed-by";
pub const LABEL_SERVICE_NAME: &str = "kubernetes.io/service-name";
pub const LABEL_HEADLESS: &str = "service.kubernetes.io/headless";
/// `--max-endpoints-per-slice`'s default.
pub const DEFAULT_MAX_ENDPOINTS_PER_SLICE: usize = 100;
/// The most a slice may hold (the API's validation limit).
pub const MAX_ENDPOINTS_PER_SLICE_LIMIT: usize = 1000;

/// A slice's ports: name, port, protocol (what groups endpoints into slices).
type PortKey = Vec<(String, i32, String)>;

/// The slices to create, to update and to delete.
type SlicePlan = (Vec<EndpointSlice>, Vec<EndpointSlice>, Vec<EndpointSlice>);

/// `endpointsliceutil.ShouldPodBeInEndpoints`: a pod with an IP that has not finished;
/// terminating pods only when `include_terminating`.
pub fn pod_in_endpoints(pod: &Pod, include_terminating: bool) -> bool {
    let status = pod.status.as_ref();
    let phase = status.and_then(|s| s.phase.as_deref());
    if matches!(phase, Some("Succeeded") | Some("Failed")) {
        return false;
    }
    let has_ip = status
        .and_then(|s| s.pod_ip.as_deref())
        .is_some_and(|ip| !ip.is_empty());
    has_ip && (include_terminating || pod.metadata.deletion_timestamp.is_none())
}

/// `podutil.FindPort`: the container port a Service port's targetPort names (by
/// number, or by a container port's name).
pub fn find_port(pod: &Pod, target: Option<&IntOrString>, port: i32) -> Option<i32> {
    match target {
        None => Some(port),
        Some(IntOrString::Int(n)) => Some(*n),
        Some(IntOrString::String(name)) => pod
            .spec
            .as_ref()?
            .containers
            .iter()
            .flat_map(|c| c.ports.iter().flatten())
            .find(|p| p.name.as_deref() == Some(name.as_str()))
            .map(|p| p.container_port),
    }
}

/// The Service's ports the pod resolves its target ports to: name, port, protocol.
pub(crate) fn resolved_ports(svc: &Service, pod: &Pod) -> PortKey {
    svc.spec
        .as_ref()
        .and_then(|s| s.ports.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|p| {
            find_port(pod, p.target_port.as_ref(), p.port).map(|n| {
                (
                    p.name.clone().unwrap_or_default(),
                    n,
                    p.protocol.clone().unwrap_or_else(|| "TCP".into()),
                )
            })
        })
        .collect()
}

/// Whether the Service selects this pod (its map selector, as `labels.Set` matches).
pub fn selects(svc: &Service, pod: &Pod) -> bool {
    let empty = BTreeMap::new();
    selects_labels(svc, pod.metadata.labels.as_ref().unwrap_or(&empty))
}

/// Whether the Service's selector matches these labels.
fn selects_labels(svc: &Service, labels: &BTreeMap<String, String>) -> bool {
    let Some(selector) = svc.spec.as_ref().and_then(|s| s.selector.as_ref()) else {
        return false;
    };
    selector.iter().all(|(k, v)| labels.get(k) == Some(v))
}

/// Whether the controllers manage this Service's endpoints: it has a selector and is
/// not ExternalName.
pub fn has_managed_endpoints(svc: &Service) -> bool {
    let spec = svc.spec.as_ref();
    spec.and_then(|s| s.selector.as_ref()).is_some()
        && spec.and_then(|s| s.type_.as_deref()) != Some("ExternalName")
}

pub(crate) const ID: ControllerId = ControllerId::new("endpointslice-controller");

/// The EndpointSlice controller: Services, the pods they select, and managed slices
/// deleted by someone else's hand.
pub(crate) struct EndpointSliceController;

impl Controller for EndpointSliceController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        match &*ev.object {
            Object::Service(_) => {
                // A changed Service may want other endpoints of every pod.
                c.controllers.endpoints.memos.remove(&ev.object.key());
                keys.push(ev.object.key());
            }
            Object::Node(_) => c.note_node_event(ev),
            Object::EndpointSlice(slice) => {
                let service = slice
                    .metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get(LABEL_SERVICE_NAME));
                if let (false, Some(service)) = (c.controllers.endpoints.writing, service) {
                    // Written by someone else: the Service's slices are read afresh.
                    let svc = ObjectKey::new(Kind::Service, ev.object.namespace(), service);
                    c.controllers.endpoints.memos.remove(&svc);
                }
                if ev.event_type == EventType::Deleted {
                    managed_slice_deleted(slice, ev, keys);
                }
            }
            _ => {}
        }
        if let Object::Pod(_) = &*ev.object {
            let services = c.services_for_pod_event(ev);
            c.note_changed_pod(&services, ev.object.name());
            keys.extend(services);
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        c.endpoint_controllers_relist();
        keys.extend(c.store.list(Kind::Service, None).map(Object::key));
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.sync_endpoint_slices(key)
    }
}

/// A managed slice was deleted (by someone else's hand, say): its Service is
/// reconciled again.
fn managed_slice_deleted(slice: &EndpointSlice, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
    let labels = slice.metadata.labels.as_ref();
    let managed = labels
        .and_then(|l| l.get(LABEL_MANAGED_BY))
        .is_some_and(|m| m == MANAGED_BY);
    if let (true, Some(service)) = (managed, labels.and_then(|l| l.get(LABEL_SERVICE_NAME))) {
        keys.push(ObjectKey::new(
            Kind::Service,
            ev.object.namespace(),
            service,
        ));
    }
}

pub fn is_headless(svc: &Service) -> bool {
    svc.spec.as_ref().and_then(|s| s.cluster_ip.as_deref()) == Some("None")
}

fn owner_ref(svc: &Service) -> OwnerReference {
    OwnerReference {
        api_version: "v1".into(),
        kind: "Service".into(),
        name: svc.metadata.name.clone().unwrap_or_default(),
        uid: svc.metadata.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

impl Cluster {
    /// The largest number of endpoints one slice holds (`--max-endpoints-per-slice`).
    pub fn max_endpoints_per_slice(&self) -> usize {
        self.controllers.endpoints.max_per_slice
    }

    /// `sim config max-endpoints-per-slice N`: the controller manager's flag; every
    /// Service is resynced with the new size.
    pub fn set_max_endpoints_per_slice(&mut self, n: usize) -> Result<String, String> {
        if n == 0 || n > MAX_ENDPOINTS_PER_SLICE_LIMIT {
            return Err(format!(
                "max-endpoints-per-slice must be between 1 and {MAX_ENDPOINTS_PER_SLICE_LIMIT}"
            ));
        }
        self.controllers.endpoints.max_per_slice = n;
        self.controllers.endpoints.memos.clear();
        let services: Vec<ObjectKey> = self
            .store
            .list(Kind::Service, None)
            .map(Object::key)
            .collect();
        for k in services {
            self.enqueue(ID.component(), k);
        }
        Ok(format!("max-endpoints-per-slice set to {n}"))
    }

    /// The Services to sync for a pod event (upstream
    /// `GetServicesToUpdateOnPodChange`, and `GetPodServiceMemberships` of the final
    /// state for a deletion): those whose selector matches the pod's labels, and for
    /// an update those matching the labels of the old pod the event carries. Both
    /// sets are taken from the Services as they are now, so a Service created after
    /// the pod's last event is not missed. An update that changes neither the labels
    /// nor what an endpoint shows (upstream `podEndpointsChanged`) syncs nothing.
    ///
    /// The EndpointSlice and Endpoints controllers share this pod informer: the
    /// answer for a watch event is worked out once and kept for the second.
    pub(crate) fn services_for_pod_event(&mut self, ev: &WatchEvent) -> Vec<ObjectKey> {
        let Object::Pod(pod) = &*ev.object else {
            return Vec::new();
        };
        if let Some((revision, services)) = &self.controllers.endpoints.last_pod_event {
            if *revision == ev.revision {
                return services.clone();
            }
        }
        let old = match ev.event_type {
            EventType::Modified => ev.old.as_deref().and_then(Object::as_pod),
            EventType::Added | EventType::Deleted => None,
        };
        let services: Vec<ObjectKey> = self
            .pod_event_services(&ev.object.key(), pod, old)
            .into_iter()
            .collect();
        self.controllers.endpoints.last_pod_event = Some((ev.revision, services.clone()));
        services
    }

    fn pod_event_services(
        &self,
        pod_key: &ObjectKey,
        pod: &Pod,
        old: Option<&Pod>,
    ) -> BTreeSet<ObjectKey> {
        let no_labels = BTreeMap::new();
        let labels = pod.metadata.labels.as_ref().unwrap_or(&no_labels);
        let before = old.map(|o| o.metadata.labels.as_ref().unwrap_or(&no_labels));
        let mut services: BTreeSet<ObjectKey> = BTreeSet::new();
        if let Some(old) = old {
            if before == Some(labels) && PodEndpointFacts::of(old) == PodEndpointFacts::of(pod) {
                return services;
            }
        }
        for o in self.store.list(Kind::Service, Some(&pod_key.namespace)) {
            let Object::Service(svc) = o else {
                continue;
            };
            if has_managed_endpoints(svc)
                && std::iter::once(labels)
                    .chain(before)
                    .any(|l| selects_labels(svc, l))
            {
                services.insert(o.key());
            }
        }
        services
    }

    /// The EndpointSlices labelled as Service `namespace/name`'s
    /// (`kubernetes.io/service-name`), whoever wrote them: what CoreDNS and a
    /// kube-proxy read for the Service.
    pub(crate) fn service_slices<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> impl Iterator<Item = &'a EndpointSlice> + 'a {
        self.store
            .list(Kind::EndpointSlice, Some(namespace))
            .filter_map(|o| match o {
                Object::EndpointSlice(s) => Some(&**s),
                _ => None,
            })
            .filter(move |s| {
                s.metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get(LABEL_SERVICE_NAME))
                    .is_some_and(|n| n == name)
            })
    }

    /// The endpoint controllers' informer lists pods again (a controller manager
    /// that starts, an etcd restore): what it worked out for the last pod event is
    /// forgotten.
    pub(crate) fn endpoint_controllers_relist(&mut self) {
        self.controllers.endpoints.last_pod_event = None;
        self.controllers.endpoints.memos.clear();
    }

    /// Reconciles one Service's EndpointSlices. A write that fails brings the
    /// Service back after the queue's back-off; in a namespace being deleted, where
    /// creates keep failing, the Service is dropped instead (upstream's reconciler
    /// does the same).
    fn sync_endpoint_slices(&mut self, svc_key: &ObjectKey) -> Action {
        // A deleted Service's slices go with it (ownerReferences, garbage collector).
        let Some(Object::Service(svc)) = self.store.get(svc_key).cloned() else {
            return Action::Done;
        };
        if !has_managed_endpoints(&svc) || svc.metadata.deletion_timestamp.is_some() {
            return Action::Done;
        }
        let max = self.controllers.endpoints.max_per_slice;
        let memo = self.controllers.endpoints.memos.remove(svc_key);
        #[cfg(test)]
        if memo.is_some() {
            self.controllers.endpoints.memo_syncs += 1;
        }
        let (to_create, to_update, to_delete) = self.plan_endpoint_slices(&svc, max, memo.as_ref());
        #[cfg(debug_assertions)]
        if memo.is_some() {
            let full = self.plan_endpoint_slices(&svc, max, None);
            assert!(
                full == (to_create.clone(), to_update.clone(), to_delete.clone()),
                "the memo of {svc_key:?} planned other slices than reading every pod"
            );
        }
        let (to_create, to_update, to_delete, replaced) =
            reuse_deleted_slices(&svc, to_create, to_update, to_delete);
        let mut writes = Vec::new();
        // The slices as written, for the memo: (deleted, written). A slice updated
        // in place of a new one lost its old endpoints as a deleted one does.
        let mut deleted = replaced;
        let mut written = Vec::new();
        self.controllers.endpoints.writing = true;
        // Upstream's order: creates, updates, then deletes.
        for s in to_create {
            let write = self.create_as(ACTOR, Object::EndpointSlice(Box::new(s)));
            writes.push(write.map(|o| written.push(o)));
        }
        for s in to_update {
            let write = self.update_as(ACTOR, Object::EndpointSlice(Box::new(s)));
            writes.push(write.map(|o| written.push(o)));
        }
        for s in to_delete {
            let key = ObjectKey::new(
                Kind::EndpointSlice,
                &svc_key.namespace,
                s.metadata.name.as_deref().unwrap_or(""),
            );
            let write = self.delete_as(ACTOR, &key, None).map(drop);
            if write.is_ok() {
                deleted.push(s);
            }
            writes.push(write);
        }
        self.controllers.endpoints.writing = false;
        if writes.iter().all(Result::is_ok) {
            let memo = match memo {
                Some(m) => m.after(&deleted, &written),
                None => SliceMemo::read(self.managed_slices(&svc)),
            };
            self.controllers
                .endpoints
                .memos
                .insert(svc_key.clone(), memo);
        }
        if self.namespace_terminating(&svc_key.namespace) {
            return Action::Done;
        }
        Action::after_writes(writes)
    }

    /// The Service's slices this controller manages.
    fn managed_slices<'a>(&'a self, svc: &Service) -> impl Iterator<Item = &'a EndpointSlice> {
        let uid = svc.metadata.uid.clone().unwrap_or_default();
        self.store
            .dependent_objects(&uid)
            .filter_map(|o| match o {
                Object::EndpointSlice(s) => Some(&**s),
                _ => None,
            })
            .filter(|s| {
                s.metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get(LABEL_MANAGED_BY))
                    .map(String::as_str)
                    == Some(MANAGED_BY)
            })
    }

    /// A pod event for `services`: each one's memo notes the pod as changed.
    fn note_changed_pod(&mut self, services: &[ObjectKey], pod: &str) {
        for svc in services {
            if let Some(m) = self.controllers.endpoints.memos.get_mut(svc) {
                m.dirty.insert(pod.to_string());
            }
        }
    }

    /// A node event: a node that comes, goes or moves zone changes the endpoints of
    /// its pods, which no pod event announces; every Service reads all its pods at
    /// its next sync.
    fn note_node_event(&mut self, ev: &WatchEvent) {
        let zone = |o: &Object| {
            o.meta()
                .labels
                .as_ref()
                .and_then(|l| l.get("topology.kubernetes.io/zone"))
                .cloned()
        };
        let moved = match (ev.event_type, ev.old.as_deref()) {
            (EventType::Modified, Some(old)) => zone(old) != zone(&ev.object),
            _ => true,
        };
        if moved {
            self.controllers.endpoints.memos.clear();
        }
    }

    /// Whether `namespace` is being deleted (its creates are refused).
    pub(crate) fn namespace_terminating(&self, namespace: &str) -> bool {
        self.store
            .get(&ObjectKey::new(Kind::Namespace, "", namespace))
            .is_some_and(|ns| ns.meta().deletion_timestamp.is_some())
    }

    /// What to create, update and delete so that the Service's managed slices hold
    /// its endpoints: read in place, and only the slices that change are copied.
    ///
    /// With a memo of the last sync ([`SliceMemo`]) only the pods whose events came
    /// since are read, and only the slices holding them are walked: the slices
    /// hold every other pod as it should be, so the plan is the same as reading
    /// every pod (debug builds check it on each sync).
    fn plan_endpoint_slices(
        &self,
        svc: &Service,
        max: usize,
        memo: Option<&SliceMemo>,
    ) -> SlicePlan {
        let ns = svc.metadata.namespace.as_deref().unwrap_or_default();
        let (desired, settled) = match memo {
            None => {
                let pods = self
                    .store
                    .list(Kind::Pod, Some(ns))
                    .filter_map(Object::as_pod);
                (self.desired_endpoints(svc, pods), None)
            }
            Some(m) => {
                let pods = m.dirty.iter().filter_map(|name| {
                    self.store
                        .get(&ObjectKey::new(Kind::Pod, ns, name))
                        .and_then(Object::as_pod)
                });
                (self.desired_endpoints(svc, pods), Some(m.settled()))
            }
        };
        let existing: Vec<&EndpointSlice> = self.managed_slices(svc).collect();

        let mut to_create: Vec<EndpointSlice> = Vec::new();
        let mut to_update: Vec<EndpointSlice> = Vec::new();
        let mut to_delete: Vec<EndpointSlice> = Vec::new();
        let mut by_ports: BTreeMap<PortKey, Vec<&EndpointSlice>> = BTreeMap::new();
        for s in existing.iter().copied() {
            by_ports.entry(slice_port_key(s)).or_default().push(s);
        }
        // The port groups some pod resolves to: the read pods', and those of the
        // slices still holding a pod that was not read.
        let mut wanted: BTreeSet<PortKey> = desired.keys().cloned().collect_set();
        if let Some(settled) = &settled {
            for (key, slices) in &by_ports {
                if slices.iter().any(|s| settled.holds_unread(s)) {
                    wanted.insert(key.clone());
                }
            }
        }
        // Slices whose ports nobody resolves to any more go.
        for (key, slices) in &by_ports {
            if !wanted.contains(key) {
                to_delete.extend(slices.iter().map(|s| (*s).clone()));
            }
        }
        for key in &wanted {
            let endpoints = desired.get(key).map_or(&[][..], Vec::as_slice);
            let slices = by_ports.remove(key).unwrap_or_default();
            let (c, u, d) =
                reconcile_port_group(svc, key, endpoints, slices, max, settled.as_ref());
            to_create.extend(c);
            to_update.extend(u);
            to_delete.extend(d);
        }
        // A Service without endpoints keeps one empty placeholder slice.
        if existing.len() == to_delete.len() && to_create.is_empty() {
            let placeholder = new_slice(svc, &Vec::new());
            let is_placeholder = |s: &EndpointSlice| {
                s.endpoints.as_ref().is_none_or(Vec::is_empty)
                    && s.ports.as_ref().is_none_or(Vec::is_empty)
            };
            if to_delete.len() == 1 && is_placeholder(&to_delete[0]) {
                to_delete.clear();
            } else {
                to_create.push(placeholder);
            }
        }
        // Labels follow the Service's (headless marker included) on every slice kept.
        let wanted = slice_labels(svc);
        for s in existing {
            let name = s.metadata.name.as_deref().unwrap_or_default();
            let deleting = to_delete
                .iter()
                .any(|d| d.metadata.name.as_deref() == Some(name));
            let updating = to_update
                .iter_mut()
                .find(|u| u.metadata.name.as_deref() == Some(name));
            match updating {
                Some(u) => u.metadata.labels = Some(wanted.clone()),
                None if !deleting && s.metadata.labels.as_ref() != Some(&wanted) => {
                    let mut u = s.clone();
                    u.metadata.labels = Some(wanted.clone());
                    to_update.push(u);
                }
                None => {}
            }
        }
        (to_create, to_update, to_delete)
    }

    /// The endpoints `pods` should have in the Service, grouped by the ports they
    /// resolve to (the pods it does not select have none).
    fn desired_endpoints<'p>(
        &self,
        svc: &Service,
        pods: impl Iterator<Item = &'p Pod>,
    ) -> BTreeMap<PortKey, Vec<Endpoint>> {
        let publish_not_ready = svc
            .spec
            .as_ref()
            .and_then(|s| s.publish_not_ready_addresses)
            .unwrap_or(false);
        let mut out: BTreeMap<PortKey, Vec<Endpoint>> = BTreeMap::new();
        let mut zones: BTreeMap<String, Option<Option<String>>> = BTreeMap::new();
        for pod in pods {
            if !selects(svc, pod) || !pod_in_endpoints(pod, true) {
                continue;
            }
            let ports = resolved_ports(svc, pod);
            let serving = pod_is_ready(pod);
            let terminating = pod.metadata.deletion_timestamp.is_some();
            let node = pod.spec.as_ref().and_then(|s| s.node_name.clone());
            // The node's zone label (`None` outside: the node does not exist), read
            // once per node per sync.
            let zone = match &node {
                None => Some(None),
                Some(n) => zones
                    .entry(n.clone())
                    .or_insert_with(|| {
                        self.store.get(&ObjectKey::new(Kind::Node, "", n)).map(|o| {
                            o.meta()
                                .labels
                                .as_ref()
                                .and_then(|l| l.get("topology.kubernetes.io/zone"))
                                .cloned()
                        })
                    })
                    .clone(),
            };
            // Upstream's reconciler skips a pod whose node does not exist ("skipping
            // Pod for Service, Node not found") unless the Service publishes not-ready
            // addresses, so a pod left on a deleted node is not served. Simplified:
            // upstream also requeues the Service; here the pod's own update (the pod
            // garbage collector marks it Failed) brings the next sync.
            let zone = match zone {
                Some(z) => z,
                None if publish_not_ready => None,
                None => continue,
            };
            let hostname = pod.spec.as_ref().and_then(|s| {
                (s.subdomain.as_deref() == svc.metadata.name.as_deref())
                    .then(|| s.hostname.clone())
                    .flatten()
            });
            let endpoint = Endpoint {
                addresses: vec![pod
                    .status
                    .as_ref()
                    .and_then(|s| s.pod_ip.clone())
                    .unwrap_or_default()],
                conditions: Some(EndpointConditions {
                    ready: Some(publish_not_ready || (serving && !terminating)),
                    serving: Some(serving),
                    terminating: Some(terminating),
                }),
                node_name: node,
                zone,
                hostname,
                target_ref: Some(super::pod_reference(pod)),
                ..Default::default()
            };
            out.entry(ports).or_default().push(endpoint);
        }
        out
    }
}

/// Upstream `finalize`: while there are slices both to create and to delete, a new
/// slice takes the name of one that would be deleted and is written as an update of
/// it (when that one has the same address type and is owned by this Service), so a
/// placeholder turning into a real slice, or a slice whose ports changed, keeps its
/// name instead of being deleted while another is created. Returns the plan and the
/// slices so replaced (as they were).
fn reuse_deleted_slices(
    svc: &Service,
    mut to_create: Vec<EndpointSlice>,
    mut to_update: Vec<EndpointSlice>,
    mut to_delete: Vec<EndpointSlice>,
) -> (
    Vec<EndpointSlice>,
    Vec<EndpointSlice>,
    Vec<EndpointSlice>,
    Vec<EndpointSlice>,
) {
    let owned = |s: &EndpointSlice| {
        s.metadata
            .owner_references
            .iter()
            .flatten()
            .any(|o| svc.metadata.uid.as_deref() == Some(o.uid.as_str()))
    };
    let mut replaced = Vec::new();
    let mut i = 0;
    while i < to_delete.len() {
        let Some(new) = to_create.last() else { break };
        if to_delete[i].address_type != new.address_type || !owned(&to_delete[i]) {
            i += 1;
            continue;
        }
        let (Some(mut new), old) = (to_create.pop(), to_delete.remove(i)) else {
            break;
        };
        let meta = &mut new.metadata;
        meta.name = old.metadata.name.clone();
        meta.uid = old.metadata.uid.clone();
        meta.resource_version = old.metadata.resource_version.clone();
        meta.creation_timestamp = old.metadata.creation_timestamp.clone();
        to_update.push(new);
        replaced.push(old);
    }
    (to_create, to_update, to_delete, replaced)
}

fn slice_port_key(s: &EndpointSlice) -> PortKey {
    s.ports
        .iter()
        .flatten()
        .map(|p| {
            (
                p.name.clone().unwrap_or_default(),
                p.port.unwrap_or(0),
                p.protocol.clone().unwrap_or_else(|| "TCP".into()),
            )
        })
        .collect()
}

fn slice_labels(svc: &Service) -> BTreeMap<String, String> {
    let mut labels: BTreeMap<String, String> = svc
        .metadata
        .labels
        .clone()
        .unwrap_or_default()
        .into_iter()
        .filter(|(k, _)| k != LABEL_SERVICE_NAME && k != LABEL_MANAGED_BY && k != LABEL_HEADLESS)
        .collect_map();
    labels.insert(
        LABEL_SERVICE_NAME.into(),
        svc.metadata.name.clone().unwrap_or_default(),
    );
    labels.insert(LABEL_MANAGED_BY.into(), MANAGED_BY.into());
    if is_headless(svc) {
        labels.insert(LABEL_HEADLESS.into(), String::new());
    }
    labels
}

/// `newEndpointSlice`: an empty slice for the Service with these ports.
fn new_slice(svc: &Service, ports: &PortKey) -> EndpointSlice {
    let name = svc.metadata.name.clone().unwrap_or_default();
    // Upstream trims the prefix so generated names stay within 63 characters.
    let prefix: String = name.chars().take(57).collect();
    EndpointSlice {
        metadata: ObjectMeta {
            generate_name: Some(format!("{prefix}-")),
            namespace: svc.metadata.namespace.clone(),
            labels: Some(slice_labels(svc)),
            owner_references: Some(vec![owner_ref(svc)]),
            ..Default::default()
        },
        address_type: "IPv4".into(),
        ports: Some(
            ports
                .iter()
                .map(|(name, port, protocol)| EndpointPort {
                    name: Some(name.clone()),
                    port: Some(*port),
                    protocol: Some(protocol.clone()),
                    ..Default::default()
                })
                .collect(),
        ),
        endpoints: None,
    }
}

fn slice_len(s: &EndpointSlice) -> usize {
    s.endpoints.as_ref().map_or(0, Vec::len)
}

fn endpoint_key(e: &Endpoint) -> &str {
    e.target_ref
        .as_ref()
        .and_then(|r| r.uid.as_deref())
        .unwrap_or_else(|| e.addresses.first().map_or("", String::as_str))
}

/// The name of the pod an endpoint stands for ("" for none).
fn endpoint_pod_name(e: &Endpoint) -> &str {
    e.target_ref
        .as_ref()
        .and_then(|r| r.name.as_deref())
        .unwrap_or("")
}

/// A copy of `slice` holding `endpoints` instead of its own.
fn with_endpoints(slice: &EndpointSlice, endpoints: Vec<Endpoint>) -> EndpointSlice {
    EndpointSlice {
        metadata: slice.metadata.clone(),
        address_type: slice.address_type.clone(),
        ports: slice.ports.clone(),
        endpoints: Some(endpoints),
    }
}

/// `reconcileByPortMapping`: what to create, update and delete among one port
/// group's slices so that they hold exactly `desired`. Only the slices that change
/// are copied.
fn reconcile_port_group(
    svc: &Service,
    ports: &PortKey,
    desired: &[Endpoint],
    existing: Vec<&EndpointSlice>,
    max: usize,
    settled: Option<&Settled<'_>>,
) -> (Vec<EndpointSlice>, Vec<EndpointSlice>, Vec<EndpointSlice>) {
    let mut want: BTreeMap<&str, &Endpoint> =
        desired.iter().map(|e| (endpoint_key(e), e)).collect_map();
    let mut updated: Vec<EndpointSlice> = Vec::new();
    let mut unchanged: Vec<&EndpointSlice> = Vec::new();
    let mut deleted: Vec<EndpointSlice> = Vec::new();
    // 1. Keep each existing slice's endpoints that are still wanted (updated if they
    // changed), drop the rest.
    for slice in existing {
        // A slice holding no pod that was read stays as it is.
        if settled.is_some_and(|s| !s.touches(slice)) {
            unchanged.push(slice);
            continue;
        }
        let mut changed = false;
        let mut kept: Vec<&Endpoint> = Vec::new();
        for e in slice.endpoints.iter().flatten() {
            if settled.is_some_and(|s| !s.read(e)) {
                // A pod that was not read: its endpoint stands.
                kept.push(e);
                continue;
            }
            match want.remove(endpoint_key(e)) {
                Some(new) => {
                    if new != e {
                        changed = true;
                    }
                    // Endpoints past the current limit move out (the limit shrank).
                    if kept.len() < max {
                        kept.push(new);
                    } else {
                        want.insert(endpoint_key(new), new);
                        changed = true;
                    }
                }
                None => changed = true,
            }
        }
        if !changed {
            unchanged.push(slice);
        } else if kept.is_empty() {
            deleted.push(slice.clone());
        } else {
            updated.push(with_endpoints(slice, kept.into_iter().cloned().collect()));
        }
    }
    let mut remaining: Vec<&Endpoint> = want.into_values().collect();
    remaining.stable_sort_by(|a, b| endpoint_pod_name(a).cmp(endpoint_pod_name(b)));
    let mut remaining = remaining.into_iter().peekable();
    // 2. Fill the slices being rewritten anyway, fullest first.
    updated.stable_sort_by_key(|s| std::cmp::Reverse(slice_len(s)));
    for s in updated.iter_mut() {
        let list = s.endpoints.get_or_insert_with(Vec::new);
        while list.len() < max {
            match remaining.next() {
                Some(e) => list.push(e.clone()),
                None => break,
            }
        }
    }
    // 3. The rest: into the unchanged slice they fit best, else into new slices.
    let mut rest: Vec<Endpoint> = remaining.cloned().collect();
    let mut created: Vec<EndpointSlice> = Vec::new();
    while !rest.is_empty() {
        let fit = if rest.len() < max {
            // `getSliceToFill`: the unchanged slice with the least room that still fits.
            unchanged
                .iter()
                .enumerate()
                .filter(|(_, s)| max - slice_len(s).min(max) >= rest.len())
                .min_by_key(|(_, s)| max - slice_len(s).min(max))
                .map(|(i, _)| i)
        } else {
            None
        };
        let mut slice = match fit {
            Some(i) => unchanged.remove(i).clone(),
            None => new_slice(svc, ports),
        };
        let room = max.saturating_sub(slice_len(&slice));
        let take = room.min(rest.len());
        slice
            .endpoints
            .get_or_insert_with(Vec::new)
            .extend(rest.drain(..take));
        if slice.metadata.name.is_some() {
            updated.push(slice);
        } else {
            created.push(slice);
        }
    }
    (created, updated, deleted)
}

/// The EndpointSlice controller's settings and memory: the slice size, and the
/// Services of the last pod event.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct EndpointsState {
    pub max_per_slice: usize,
    /// The Services of the last pod event, by its revision (see
    /// `Cluster::services_for_pod_event`).
    #[serde(skip)]
    pub(crate) last_pod_event: Option<(u64, Vec<ObjectKey>)>,
    /// What the last sync of each Service left its slices holding, for the next
    /// sync to read only what changed since. Not in a snapshot: a restored cluster
    /// reads every pod once.
    #[serde(skip)]
    pub(crate) memos: BTreeMap<ObjectKey, SliceMemo>,
    /// Whether the controller is writing slices itself (its own writes keep the
    /// memos; anyone else's drops them).
    #[serde(skip)]
    pub(crate) writing: bool,
    /// How many syncs were planned from a memo (for tests).
    #[cfg(test)]
    #[serde(skip)]
    pub(crate) memo_syncs: usize,
}

/// One Service's slices as its last sync left them, when every write it planned
/// succeeded: each pod's endpoint is in the slice the memo names, as the pod was
/// then. Pods whose events came since are `dirty`; the next sync reads those alone.
/// Dropped (so the next sync reads every pod) when the Service changes, a node
/// comes, goes or changes zone, someone else writes one of its slices, a write
/// fails, the slice size changes, or the informers list again.
#[derive(Clone, Debug, Default)]
pub(crate) struct SliceMemo {
    /// Pods with events since the sync, by name.
    dirty: BTreeSet<String>,
    /// The slice holding each pod's endpoint, by pod name.
    slice_of: BTreeMap<String, String>,
}

impl SliceMemo {
    /// The memo of slices read from the store.
    fn read<'a>(slices: impl Iterator<Item = &'a EndpointSlice>) -> SliceMemo {
        let mut memo = SliceMemo::default();
        for s in slices {
            memo.hold(s);
        }
        memo
    }

    /// Notes where each endpoint of `slice` is.
    fn hold(&mut self, slice: &EndpointSlice) {
        let name = slice.metadata.name.as_deref().unwrap_or_default();
        for e in slice.endpoints.iter().flatten() {
            let pod = endpoint_pod_name(e);
            if self.slice_of.get(pod).map(String::as_str) != Some(name) {
                self.slice_of.insert(pod.to_string(), name.to_string());
            }
        }
    }

    /// The memo after a sync planned from it wrote its slices: the dirty pods'
    /// endpoints moved, left or stayed where they were.
    fn after(mut self, deleted: &[EndpointSlice], written: &[std::sync::Arc<Object>]) -> SliceMemo {
        let written: Vec<&EndpointSlice> = written
            .iter()
            .filter_map(|o| match &**o {
                Object::EndpointSlice(s) => Some(&**s),
                _ => None,
            })
            .collect();
        for s in deleted {
            let name = s.metadata.name.as_deref();
            for e in s.endpoints.iter().flatten() {
                if self.slice_of.get(endpoint_pod_name(e)).map(String::as_str) == name {
                    self.slice_of.remove(endpoint_pod_name(e));
                }
            }
        }
        // A dirty pod is either in a slice just written, or where it was (its slice
        // unchanged), or in no slice at all.
        for pod in std::mem::take(&mut self.dirty) {
            let Some(slice) = self.slice_of.get(&pod) else {
                continue;
            };
            let still_there = written
                .iter()
                .find(|s| s.metadata.name.as_ref() == Some(slice))
                .is_none_or(|s| {
                    s.endpoints
                        .iter()
                        .flatten()
                        .any(|e| endpoint_pod_name(e) == pod)
                });
            if !still_there {
                self.slice_of.remove(&pod);
            }
        }
        for s in written {
            self.hold(s);
        }
        self
    }

    fn settled(&self) -> Settled<'_> {
        Settled {
            dirty: &self.dirty,
            touched: self
                .dirty
                .iter()
                .filter_map(|p| self.slice_of.get(p))
                .map(String::as_str)
                .collect_set(),
        }
    }
}

/// A sync planned from a memo: which pods were read, which slices hold them.
pub(crate) struct Settled<'a> {
    dirty: &'a BTreeSet<String>,
    touched: BTreeSet<&'a str>,
}

impl Settled<'_> {
    /// Whether `slice` holds a pod that was read.
    fn touches(&self, slice: &EndpointSlice) -> bool {
        self.touched
            .contains(slice.metadata.name.as_deref().unwrap_or_default())
    }

    /// Whether the endpoint stands for a pod that was read.
    fn read(&self, e: &Endpoint) -> bool {
        self.dirty.contains(endpoint_pod_name(e))
    }

    /// Whether `slice` holds the endpoint of a pod that was not read.
    fn holds_unread(&self, slice: &EndpointSlice) -> bool {
        if !self.touches(slice) {
            return slice_len(slice) > 0;
        }
        slice.endpoints.iter().flatten().any(|e| !self.read(e))
    }
}

/// What an endpoint shows of a pod besides its labels: upstream
/// `podEndpointsChanged` compares the deletion timestamp, readiness and IPs, taking
/// the node and hostname as fixed once the pod has an IP; the node, hostname,
/// subdomain and phase are compared here as well, so no change an endpoint shows is
/// missed.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PodEndpointFacts<'a> {
    deleting: bool,
    ready: bool,
    ips: Vec<&'a str>,
    node: Option<&'a str>,
    phase: Option<&'a str>,
    hostname: Option<&'a str>,
    subdomain: Option<&'a str>,
}

impl<'a> PodEndpointFacts<'a> {
    /// Read in place, without copying the pod's strings.
    fn of(pod: &'a Pod) -> Self {
        let status = pod.status.as_ref();
        let spec = pod.spec.as_ref();
        let mut ips: Vec<&str> = status
            .and_then(|s| s.pod_ips.as_ref())
            .into_iter()
            .flatten()
            .map(|i| i.ip.as_str())
            .collect();
        if let Some(ip) = status.and_then(|s| s.pod_ip.as_deref()) {
            ips.push(ip);
        }
        PodEndpointFacts {
            deleting: pod.metadata.deletion_timestamp.is_some(),
            ready: pod_is_ready(pod),
            ips,
            node: spec.and_then(|s| s.node_name.as_deref()),
            phase: status.and_then(|s| s.phase.as_deref()),
            hostname: spec.and_then(|s| s.hostname.as_deref()),
            subdomain: spec.and_then(|s| s.subdomain.as_deref()),
        }
    }
}

impl EndpointsState {
    /// As a snapshot restores it: the settings, without the memory of the last syncs.
    pub(crate) fn copy_as_restored(&self) -> EndpointsState {
        EndpointsState {
            max_per_slice: self.max_per_slice,
            ..EndpointsState::default()
        }
    }
}

impl Default for EndpointsState {
    fn default() -> Self {
        EndpointsState {
            max_per_slice: DEFAULT_MAX_ENDPOINTS_PER_SLICE,
            last_pod_event: None,
            memos: BTreeMap::new(),
            writing: false,
            #[cfg(test)]
            memo_syncs: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::cluster::{Cluster, Topology};
    use crate::object::Kind;
    use crate::time::SimDuration;

    fn create(c: &mut Cluster, yaml: &str) {
        for obj in crate::decode_manifests(yaml).unwrap() {
            c.create(obj).unwrap();
        }
    }

    /// A Service made before its pods run gets an empty placeholder slice; when the
    /// first endpoint comes, that slice is updated in place (upstream's `finalize`
    /// turns the create and the delete into an update): one name throughout, no
    /// slice deleted.
    #[test]
    fn the_placeholder_slice_becomes_the_first_real_one() {
        let mut c = Cluster::settled(7, Topology::default());
        create(
            &mut c,
            "apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports: [{port: 80}]
",
        );
        c.advance(SimDuration::secs(5));
        let slices = |c: &Cluster| -> Vec<(String, usize)> {
            c.list_refs(Kind::EndpointSlice, Some("default"))
                .filter(|o| o.name().starts_with("web-"))
                .filter_map(|o| match o {
                    crate::Object::EndpointSlice(s) => Some((
                        o.name().to_string(),
                        s.endpoints.as_ref().map_or(0, Vec::len),
                    )),
                    _ => None,
                })
                .collect()
        };
        let placeholder = slices(&c);
        assert_eq!(placeholder.len(), 1, "{placeholder:?}");
        assert_eq!(placeholder[0].1, 0, "no endpoint yet");
        let from = c.revision();
        create(
            &mut c,
            "apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  containers: [{name: web, image: nginx}]
",
        );
        c.advance(SimDuration::secs(60));
        assert_eq!(slices(&c), vec![(placeholder[0].0.clone(), 1)]);
        let deletes = c
            .feed_since(0)
            .events
            .filter(|e| {
                matches!(e, crate::views::feed::FeedEvent::Write {
                    kind: "EndpointSlice", change: crate::views::feed::Change::Deleted, revision, ..
                } if *revision > from)
            })
            .count();
        assert_eq!(deletes, 0, "no slice was deleted on the way");
    }

    /// A refused write is not forgotten: the Service comes back after the queue's
    /// back-off, and its sheets appear once the writes can succeed, with no pod
    /// changing in between.
    #[test]
    fn a_refused_slice_write_is_retried_after_a_back_off() {
        let mut c = Cluster::settled(7, Topology::default());
        create(
            &mut c,
            "apiVersion: v1
kind: ResourceQuota
metadata: {name: no-sheets, namespace: default}
spec:
  hard: {count/endpointslices.discovery.k8s.io: \"0\", count/endpoints: \"0\"}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  containers: [{name: web, image: nginx}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports: [{port: 80}]
",
        );
        c.advance(SimDuration::secs(60));
        // The Service's own (the `kubernetes` Service has its own in `default`).
        let count = |c: &Cluster, kind| {
            c.list_refs(kind, Some("default"))
                .filter(|o| o.name().starts_with("web"))
                .count()
        };
        assert_eq!(count(&c, Kind::EndpointSlice), 0, "the quota refuses them");
        assert_eq!(count(&c, Kind::Endpoints), 0);
        let revision = c.revision();
        c.delete(Kind::ResourceQuota, "default", "no-sheets")
            .unwrap();
        c.advance(SimDuration::secs(300));
        assert_eq!(count(&c, Kind::EndpointSlice), 1);
        assert_eq!(count(&c, Kind::Endpoints), 1);
        let pod_writes = c
            .events_since(revision)
            .unwrap()
            .iter()
            .filter(|e| e.object.kind() == Kind::Pod)
            .count();
        assert_eq!(pod_writes, 0, "no pod event brought the retry");
    }

    /// A Service whose last sync wrote everything keeps a memo, and its next sync
    /// reads only the pods that changed: scaled from 150 to 230 and back to 40, its
    /// slices end as reading every pod would make them (debug builds compare the two
    /// plans on every sync), and each pod is in the slice the memo names.
    #[test]
    fn a_synced_service_reads_only_the_pods_that_changed() {
        let mut c = Cluster::settled(11, Topology::default());
        create(
            &mut c,
            "apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 150
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 1m, memory: 1Mi}}}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports: [{port: 80}]
",
        );
        let svc = crate::object::ObjectKey::new(Kind::Service, "default", "web");
        for replicas in [150, 230, 40] {
            let key = crate::object::ObjectKey::new(Kind::Deployment, "default", "web");
            let Some(crate::object::Object::Deployment(mut d)) = c.store.get(&key).cloned() else {
                panic!("the Deployment");
            };
            d.spec.replicas = Some(replicas);
            c.update(crate::object::Object::Deployment(d)).unwrap();
            c.advance(SimDuration::secs(120));
            let memo = c.controllers.endpoints.memos.get(&svc).expect("a memo");
            let slices: Vec<_> = c
                .managed_slices(match c.store.get(&svc) {
                    Some(crate::object::Object::Service(s)) => s,
                    _ => panic!("the Service"),
                })
                .collect();
            let endpoints: usize = slices.iter().map(|s| super::slice_len(s)).sum();
            assert_eq!(memo.slice_of.len(), endpoints, "at {replicas} replicas");
            for s in &slices {
                for e in s.endpoints.iter().flatten() {
                    assert_eq!(
                        memo.slice_of.get(super::endpoint_pod_name(e)),
                        s.metadata.name.as_ref()
                    );
                }
            }
            let ready = slices
                .iter()
                .flat_map(|s| s.endpoints.iter().flatten())
                .filter(|e| e.conditions.as_ref().and_then(|c| c.ready) == Some(true))
                .count();
            assert_eq!(ready, usize::try_from(replicas).unwrap());
        }
        assert!(
            c.controllers.endpoints.memo_syncs > 10,
            "syncs started from a memo: {}",
            c.controllers.endpoints.memo_syncs
        );
    }
}
