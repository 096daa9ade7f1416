//! The master scroll: the legacy Endpoints controller
//! (pkg/controller/endpoint/endpoints_controller.go).
//!
//! One Endpoints object per Service with a selector, named like the Service, listing
//! every selected pod's address in `addresses` (Ready) or `notReadyAddresses`, with
//! the ports the Service's target ports resolve to, repacked into subsets by port set
//! (`endpoints.RepackSubsets`). It holds at most 1000 addresses: past that it is
//! truncated, ready addresses kept first, and annotated
//! `endpoints.kubernetes.io/over-capacity: truncated`. Terminating pods are left out
//! unless the Service publishes not-ready addresses. The whole object is rewritten on
//! every change, which is the cost EndpointSlices were made to avoid.
//!
//! Simplified: ports inside a subset are ordered by name (upstream orders them by a
//! hash); no `endpoints.kubernetes.io/last-change-trigger-time` annotation.

use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::controllers::endpointslice::{
    has_managed_endpoints, is_headless, pod_in_endpoints, resolved_ports, selects, LABEL_HEADLESS,
};
use crate::controllers::pod_is_ready;
use crate::object::{Kind, Object, ObjectKey};
use crate::store::{EventType, WatchEvent};
use k8s_openapi::api::core::v1::{
    EndpointAddress, EndpointPort, EndpointSubset, Endpoints, ObjectReference, Pod, Service,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;
use std::sync::Arc;

pub(crate) const ID: ControllerId = ControllerId::new("endpoint-controller");
const ACTOR: Actor = Actor::Controller(ID.name());

/// The Endpoints controller: Services, the pods they select, and Endpoints deleted
/// while their Service stays.
pub(crate) struct EndpointsController;

impl Controller for EndpointsController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        match &*ev.object {
            Object::Service(_) => {
                // A changed Service may want other addresses of every pod.
                c.controllers.address_memos.remove(&ev.object.key());
                keys.push(ev.object.key());
            }
            Object::Endpoints(_) if ev.event_type == EventType::Deleted => {
                let svc = ObjectKey::new(Kind::Service, ev.object.namespace(), ev.object.name());
                if c.store.get(&svc).is_some() {
                    keys.push(svc);
                }
            }
            Object::Pod(_) => {
                let services = c.services_for_pod_event(ev);
                for svc in &services {
                    if let Some(m) = c.controllers.address_memos.get_mut(svc) {
                        m.dirty.insert(ev.object.name().to_string());
                    }
                }
                keys.extend(services);
            }
            _ => {}
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        c.controllers.address_memos.clear();
        keys.extend(c.store.list(Kind::Service, None).map(Object::key));
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        let write = c.sync_endpoints(key);
        if c.namespace_terminating(&key.namespace) {
            return Action::Done;
        }
        Action::after_writes(write)
    }
}
/// `maxCapacity`: the most addresses one Endpoints object holds.
pub const MAX_CAPACITY: usize = 1000;
pub const OVER_CAPACITY: &str = "endpoints.kubernetes.io/over-capacity";

type Ports = Vec<(String, i32, String)>;

impl Cluster {
    /// Reconciles one Service's Endpoints; the write it made, if any.
    fn sync_endpoints(
        &mut self,
        svc_key: &ObjectKey,
    ) -> Option<Result<(), crate::error::ApiError>> {
        let ep_key = ObjectKey::new(Kind::Endpoints, &svc_key.namespace, &svc_key.name);
        let svc = match self.store.get(svc_key) {
            Some(Object::Service(s)) => s.clone(),
            _ => {
                // The Service is gone: so are its Endpoints.
                self.controllers.address_memos.remove(svc_key);
                if self.store.get(&ep_key).is_some() {
                    return Some(self.delete_as(ACTOR, &ep_key, None).map(drop));
                }
                return None;
            }
        };
        if !has_managed_endpoints(&svc) {
            return None;
        }
        let memo = match self.controllers.address_memos.remove(svc_key) {
            Some(memo) => self.read_changed_pods(&svc, memo),
            None => self.read_every_pod(&svc),
        };
        let (subsets, total, truncated) = memo.subsets();
        #[cfg(debug_assertions)]
        {
            let full = self.read_every_pod(&svc).subsets();
            assert!(
                full == (subsets.clone(), total, truncated),
                "the address memo of {svc_key:?} drifted from the pods"
            );
        }
        self.controllers.address_memos.insert(svc_key.clone(), memo);
        let mut labels = svc.metadata.labels.clone().unwrap_or_default();
        labels.remove(LABEL_HEADLESS);
        if is_headless(&svc) {
            labels.insert(LABEL_HEADLESS.into(), String::new());
        }
        // Read in place: copied only when it changes.
        let current = match self.store.get(&ep_key) {
            Some(Object::Endpoints(e)) => Some(e),
            _ => None,
        };
        let mut annotations = current
            .and_then(|c| c.metadata.annotations.clone())
            .unwrap_or_default();
        if truncated {
            annotations.insert(OVER_CAPACITY.into(), "truncated".into());
        } else {
            annotations.remove(OVER_CAPACITY);
        }
        let subsets = (!subsets.is_empty()).then_some(subsets);
        let labels = (!labels.is_empty()).then_some(labels);
        let annotations = (!annotations.is_empty()).then_some(annotations);
        match current {
            Some(cur)
                if cur.subsets == subsets
                    && cur.metadata.labels == labels
                    && cur.metadata.annotations == annotations
                    && (total <= MAX_CAPACITY || truncated) =>
            {
                None
            }
            Some(cur) => {
                let mut cur = cur.clone();
                cur.subsets = subsets;
                cur.metadata.labels = labels;
                cur.metadata.annotations = annotations;
                Some(self.update_as(ACTOR, Object::Endpoints(cur)).map(drop))
            }
            None => {
                let ep = Endpoints {
                    metadata: ObjectMeta {
                        name: Some(svc_key.name.clone()),
                        namespace: Some(svc_key.namespace.clone()),
                        labels,
                        annotations,
                        ..Default::default()
                    },
                    subsets,
                };
                Some(
                    self.create_as(ACTOR, Object::Endpoints(Box::new(ep)))
                        .map(drop),
                )
            }
        }
    }

    /// The addresses of every pod of the Service's namespace.
    fn read_every_pod(&self, svc: &Service) -> AddressMemo {
        let ns = svc.metadata.namespace.as_deref().unwrap_or_default();
        let mut memo = AddressMemo::default();
        for pod in self
            .store
            .list(Kind::Pod, Some(ns))
            .filter_map(Object::as_pod)
        {
            memo.set(
                pod.metadata.name.as_deref().unwrap_or_default(),
                pod_address(svc, pod),
            );
        }
        memo
    }

    /// The memo with the pods whose events came since read again.
    fn read_changed_pods(&self, svc: &Service, mut memo: AddressMemo) -> AddressMemo {
        let ns = svc.metadata.namespace.as_deref().unwrap_or_default();
        for name in std::mem::take(&mut memo.dirty) {
            let pod = self.store.get(&ObjectKey::new(Kind::Pod, ns, &name));
            let address = pod
                .and_then(Object::as_pod)
                .and_then(|p| pod_address(svc, p));
            memo.set(&name, address);
        }
        memo
    }
}

/// Where an address sorts in its list (`endpoints.SortSubsets`: by IP, then by the
/// pod's uid).
type SortKey = (String, Option<String>);

/// A pod's address in the Service: its port set, whether it is listed as ready,
/// where the address sorts and the rest of it.
type PodAddress = (Ports, bool, SortKey, AddressRest);

/// The addresses the Service's pods should have, kept between syncs: a sync reads
/// only the pods whose events came since (`dirty`), and writes the subsets out of
/// lists that are already sorted. Dropped when the Service changes or the
/// informers list again; not in a snapshot.
#[derive(Clone, Debug, Default)]
pub(crate) struct AddressMemo {
    dirty: std::collections::BTreeSet<String>,
    /// Where each listed pod's address is, by pod name. The port set is shared with
    /// its group's key: the pods of a Service mostly have one.
    by_pod: BTreeMap<String, (Arc<Ports>, bool, SortKey)>,
    /// Per port set: the ready and the not-ready addresses, sorted.
    groups: BTreeMap<Arc<Ports>, [BTreeMap<SortKey, AddressRest>; 2]>,
}

/// An address less what its sort key holds (the IP and the pod's uid) and what every
/// address has (`targetRef.kind: Pod`): the memo holds every pod of the Service.
#[derive(Clone, Debug, PartialEq, Eq)]
struct AddressRest {
    hostname: Option<String>,
    node_name: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
}

impl AddressRest {
    /// The whole address again.
    fn address(&self, (ip, uid): &SortKey) -> EndpointAddress {
        EndpointAddress {
            ip: ip.clone(),
            hostname: self.hostname.clone(),
            node_name: self.node_name.clone(),
            target_ref: Some(ObjectReference {
                kind: Some("Pod".into()),
                namespace: self.namespace.clone(),
                name: self.name.clone(),
                uid: uid.clone(),
                ..Default::default()
            }),
        }
    }
}

impl AddressMemo {
    /// Puts the pod's address (or none) in place of the one it had.
    fn set(&mut self, pod: &str, address: Option<PodAddress>) {
        if let Some((ports, ready, key)) = self.by_pod.remove(pod) {
            if let Some(lists) = self.groups.get_mut(&ports) {
                lists[usize::from(!ready)].remove(&key);
                if lists.iter().all(BTreeMap::is_empty) {
                    self.groups.remove(&ports);
                }
            }
        }
        let Some((ports, ready, key, rest)) = address else {
            return;
        };
        let ports = match self.groups.get_key_value(&ports) {
            Some((shared, _)) => Arc::clone(shared),
            None => Arc::new(ports),
        };
        self.groups.entry(Arc::clone(&ports)).or_default()[usize::from(!ready)]
            .insert(key.clone(), rest);
        self.by_pod.insert(pod.to_string(), (ports, ready, key));
    }

    /// The subsets, repacked (one per distinct port set), and truncated to
    /// [`MAX_CAPACITY`] addresses; with the number of addresses before truncation
    /// and whether it truncated.
    fn subsets(&self) -> (Vec<EndpointSubset>, usize, bool) {
        let counts: Vec<(usize, usize)> = self
            .groups
            .values()
            .map(|[ready, not_ready]| (ready.len(), not_ready.len()))
            .collect();
        let total = counts.iter().map(|(r, n)| r + n).sum();
        let (keep, truncated) = truncation(&counts);
        let subsets = self
            .groups
            .iter()
            .zip(keep.iter().zip(&counts))
            .map(
                |((ports, [ready, not_ready]), (&(r, n), &(all_r, all_n)))| {
                    let take = |list: &BTreeMap<SortKey, AddressRest>, k: usize| {
                        list.iter()
                            .take(k)
                            .map(|(key, rest)| rest.address(key))
                            .collect::<Vec<_>>()
                    };
                    EndpointSubset {
                        addresses: (all_r > 0).then(|| take(ready, r)),
                        not_ready_addresses: (all_n > 0 && n.is_some())
                            .then(|| take(not_ready, n.unwrap_or(0))),
                        ports: (!ports.is_empty()).then(|| {
                            ports
                                .iter()
                                .map(|(name, port, protocol)| EndpointPort {
                                    name: (!name.is_empty()).then(|| name.clone()),
                                    port: *port,
                                    protocol: Some(protocol.clone()),
                                    ..Default::default()
                                })
                                .collect()
                        }),
                    }
                },
            )
            .collect();
        (subsets, total, truncated)
    }
}

/// The pod's address in the Service, if the Service lists it.
fn pod_address(svc: &Service, pod: &Pod) -> Option<PodAddress> {
    let spec = svc.spec.as_ref();
    let publish = spec
        .and_then(|s| s.publish_not_ready_addresses)
        .unwrap_or(false);
    if !selects(svc, pod) || !pod_in_endpoints(pod, publish) {
        return None;
    }
    let service_ports = spec.and_then(|s| s.ports.as_ref());
    let ports = resolved_ports(svc, pod);
    // A Service with ports whose target ports this pod has none of: skipped.
    if ports.is_empty() && service_ports.is_some_and(|p| !p.is_empty()) {
        return None;
    }
    let ip = pod
        .status
        .as_ref()
        .and_then(|s| s.pod_ip.clone())
        .unwrap_or_default();
    let rest = AddressRest {
        node_name: pod.spec.as_ref().and_then(|s| s.node_name.clone()),
        hostname: pod.spec.as_ref().and_then(|s| {
            (s.subdomain.as_deref() == svc.metadata.name.as_deref())
                .then(|| s.hostname.clone())
                .flatten()
        }),
        namespace: pod.metadata.namespace.clone(),
        name: pod.metadata.name.clone(),
    };
    let key = (ip, pod.metadata.uid.clone());
    Some((ports, publish || pod_is_ready(pod), key, rest))
}

/// `truncateEndpoints`: at most [`MAX_CAPACITY`] addresses, shared out over the
/// subsets in proportion (rounded up), ready addresses kept before not-ready ones.
/// For each subset of (ready, not ready) addresses, how many of each it keeps
/// (`None`: its not-ready addresses are dropped altogether); and whether it
/// truncated.
fn truncation(counts: &[(usize, usize)]) -> (Vec<(usize, Option<usize>)>, bool) {
    let ready: usize = counts.iter().map(|(r, _)| r).sum();
    let not_ready: usize = counts.iter().map(|(_, n)| n).sum();
    if ready + not_ready <= MAX_CAPACITY {
        return (counts.iter().map(|&(r, n)| (r, Some(n))).collect(), false);
    }
    let truncate_ready = ready > MAX_CAPACITY;
    let (max, total) = if truncate_ready {
        (MAX_CAPACITY, ready)
    } else {
        (MAX_CAPACITY - ready, not_ready)
    };
    let mut can_add = max;
    let keep = counts
        .iter()
        .map(|&(r, n)| {
            let in_subset = if truncate_ready { r } else { n };
            let share = (in_subset * max).div_ceil(total).min(can_add);
            let kept = in_subset.min(share);
            can_add -= kept;
            if truncate_ready {
                (kept, None)
            } else {
                (r, Some(kept))
            }
        })
        .collect();
    (keep, true)
}
