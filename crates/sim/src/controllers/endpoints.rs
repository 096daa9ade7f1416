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
    find_port, has_managed_endpoints, is_headless, pod_in_endpoints, selects, LABEL_HEADLESS,
};
use crate::controllers::pod_is_ready;
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::StableSort;
use crate::store::{EventType, WatchEvent};
use k8s_openapi::api::core::v1::{
    EndpointAddress, EndpointPort, EndpointSubset, Endpoints, ObjectReference, Service,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

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
            Object::Service(_) => keys.push(ev.object.key()),
            Object::Endpoints(_) if ev.event_type == EventType::Deleted => {
                let svc = ObjectKey::new(Kind::Service, ev.object.namespace(), ev.object.name());
                if c.store.get(&svc).is_some() {
                    keys.push(svc);
                }
            }
            Object::Pod(_) => keys.extend(c.services_for_pod_event(ev)),
            _ => {}
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
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
                if self.store.get(&ep_key).is_some() {
                    return Some(self.delete_as(ACTOR, &ep_key, None).map(drop));
                }
                return None;
            }
        };
        if !has_managed_endpoints(&svc) {
            return None;
        }
        let mut subsets = self.endpoint_subsets(&svc);
        let total: usize = subsets
            .iter()
            .map(|s| {
                s.addresses.as_ref().map_or(0, Vec::len)
                    + s.not_ready_addresses.as_ref().map_or(0, Vec::len)
            })
            .sum();
        let truncated = truncate(&mut subsets);
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
                Some(self.create_as(ACTOR, Object::Endpoints(ep)).map(drop))
            }
        }
    }

    /// The Service's subsets, repacked: one per distinct port set, addresses sorted
    /// by IP as `endpoints.SortSubsets` compares them.
    fn endpoint_subsets(&self, svc: &Service) -> Vec<EndpointSubset> {
        let ns = svc.metadata.namespace.clone().unwrap_or_default();
        let spec = svc.spec.clone().unwrap_or_default();
        let publish = spec.publish_not_ready_addresses.unwrap_or(false);
        let mut groups: BTreeMap<Ports, (Vec<EndpointAddress>, Vec<EndpointAddress>)> =
            BTreeMap::new();
        for o in self.store.list(Kind::Pod, Some(&ns)) {
            let Object::Pod(pod) = o else { continue };
            if !selects(svc, pod) || !pod_in_endpoints(pod, publish) {
                continue;
            }
            let address = EndpointAddress {
                ip: pod
                    .status
                    .as_ref()
                    .and_then(|s| s.pod_ip.clone())
                    .unwrap_or_default(),
                node_name: pod.spec.as_ref().and_then(|s| s.node_name.clone()),
                hostname: pod.spec.as_ref().and_then(|s| {
                    (s.subdomain.as_deref() == svc.metadata.name.as_deref())
                        .then(|| s.hostname.clone())
                        .flatten()
                }),
                target_ref: Some(ObjectReference {
                    kind: Some("Pod".into()),
                    namespace: pod.metadata.namespace.clone(),
                    name: pod.metadata.name.clone(),
                    uid: pod.metadata.uid.clone(),
                    ..Default::default()
                }),
            };
            let ports: Ports = spec
                .ports
                .iter()
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
                .collect();
            // A Service with ports whose target ports this pod has none of: skipped.
            if ports.is_empty() && spec.ports.as_ref().is_some_and(|p| !p.is_empty()) {
                continue;
            }
            let entry = groups.entry(ports).or_default();
            if publish || pod_is_ready(pod) {
                entry.0.push(address);
            } else {
                entry.1.push(address);
            }
        }
        let by_ip = |a: &EndpointAddress, b: &EndpointAddress| {
            a.ip.as_bytes().cmp(b.ip.as_bytes()).then_with(|| {
                let uid = |x: &EndpointAddress| x.target_ref.as_ref().and_then(|r| r.uid.clone());
                uid(a).cmp(&uid(b))
            })
        };
        groups
            .into_iter()
            .map(|(ports, (mut ready, mut not_ready))| {
                ready.stable_sort_by(by_ip);
                not_ready.stable_sort_by(by_ip);
                EndpointSubset {
                    addresses: (!ready.is_empty()).then_some(ready),
                    not_ready_addresses: (!not_ready.is_empty()).then_some(not_ready),
                    ports: (!ports.is_empty()).then(|| {
                        ports
                            .into_iter()
                            .map(|(name, port, protocol)| EndpointPort {
                                name: (!name.is_empty()).then_some(name),
                                port,
                                protocol: Some(protocol),
                                ..Default::default()
                            })
                            .collect()
                    }),
                }
            })
            .collect()
    }
}

/// `truncateEndpoints`: at most [`MAX_CAPACITY`] addresses, shared out over the
/// subsets in proportion (rounded up), ready addresses kept before not-ready ones.
fn truncate(subsets: &mut [EndpointSubset]) -> bool {
    let len = |v: &Option<Vec<EndpointAddress>>| v.as_ref().map_or(0, Vec::len);
    let ready: usize = subsets.iter().map(|s| len(&s.addresses)).sum();
    let not_ready: usize = subsets.iter().map(|s| len(&s.not_ready_addresses)).sum();
    if ready + not_ready <= MAX_CAPACITY {
        return false;
    }
    let truncate_ready = ready > MAX_CAPACITY;
    let (max, total) = if truncate_ready {
        (MAX_CAPACITY, ready)
    } else {
        (MAX_CAPACITY - ready, not_ready)
    };
    let mut can_add = max;
    for s in subsets.iter_mut() {
        let in_subset = if truncate_ready {
            len(&s.addresses)
        } else {
            len(&s.not_ready_addresses)
        };
        let share = (in_subset * max).div_ceil(total).min(can_add);
        if truncate_ready {
            if let Some(a) = s.addresses.as_mut() {
                a.truncate(share);
            }
            s.not_ready_addresses = None;
            can_add -= len(&s.addresses);
        } else {
            if let Some(a) = s.not_ready_addresses.as_mut() {
                a.truncate(share);
            }
            can_add -= len(&s.not_ready_addresses);
        }
    }
    true
}
