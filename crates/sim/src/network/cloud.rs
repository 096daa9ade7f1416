//! A simulated cloud-controller-manager's service controller: LoadBalancer Services
//! get an external IP.
//!
//! Mirrors `staging/src/k8s.io/cloud-provider/controllers/service/controller.go`
//! (`syncLoadBalancerIfNeeded`): the `EnsuringLoadBalancer` event, the cloud's
//! `EnsureLoadBalancer` call, `status.loadBalancer.ingress` patched, then
//! `EnsuredLoadBalancer`; `DeletingLoadBalancer` / `DeletedLoadBalancer` and an empty
//! status when the Service leaves type LoadBalancer or is deleted.
//!
//! Simplified: the cloud is a pool of documentation addresses (203.0.113.0/24, RFC
//! 5737) and every load balancer takes [`PROVISION_TIME`] to build; the process is not
//! modelled (it does not stop with kube-controller-manager), and the
//! `service.kubernetes.io/load-balancer-cleanup` finalizer is not added, so a
//! deleted Service is gone at once and its address is released after it.

use crate::apiserver::Actor;
use crate::cluster::{Cluster, WATCH_DELAY};
use crate::object::{Object, ObjectKey};
use crate::sort::CollectSet;
use crate::store::{EventType, WatchEvent};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::{LoadBalancerIngress, LoadBalancerStatus, Service, ServiceStatus};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How long the simulated cloud takes to build a load balancer.
pub const PROVISION_TIME: SimDuration = SimDuration::secs(2);

const SOURCE: &str = "service-controller";
const ACTOR: Actor = Actor::Controller("service-controller");
const RETRY: SimDuration = SimDuration::secs(5);

/// The cloud's load balancers and the ones being built.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CloudState {
    /// External IPs in use, by the last octet of 203.0.113.x.
    allocated: BTreeMap<u8, (ObjectKey, String)>,
    /// Load balancers being built: the Service's uid and when the cloud is done.
    #[serde(with = "crate::snapshot::pairs")]
    building: BTreeMap<ObjectKey, (String, SimTime)>,
    /// Services with a sync timer armed.
    #[serde(with = "crate::snapshot::pairs")]
    armed: BTreeMap<ObjectKey, SimTime>,
}

fn is_load_balancer(svc: &Service) -> bool {
    svc.spec.as_ref().and_then(|s| s.type_.as_deref()) == Some("LoadBalancer")
}

fn ingress_ips(svc: &Service) -> Vec<String> {
    svc.status
        .as_ref()
        .and_then(|s| s.load_balancer.as_ref())
        .and_then(|l| l.ingress.as_ref())
        .map(|i| i.iter().filter_map(|x| x.ip.clone()).collect())
        .unwrap_or_default()
}

impl Cluster {
    /// A Service changed: arm a sync when it needs a load balancer or has one to lose.
    pub(crate) fn cloud_observe_service(&mut self, ev: &WatchEvent) {
        let Object::Service(svc) = &*ev.object else {
            return;
        };
        let key = ev.object.key();
        let wants = ev.event_type != EventType::Deleted && is_load_balancer(svc);
        let has = self.cloud.allocated.values().any(|(k, _)| *k == key)
            || self.cloud.building.contains_key(&key);
        let needs_ip = wants && ingress_ips(svc).is_empty();
        if needs_ip || (!wants && has) {
            self.cloud_arm(key, self.now + WATCH_DELAY);
        }
    }

    fn cloud_arm(&mut self, key: ObjectKey, at: SimTime) {
        if self.cloud.armed.get(&key).is_some_and(|t| *t <= at) {
            return;
        }
        self.cloud.armed.insert(key.clone(), at);
        self.schedule(at, CloudTimer::CloudServiceSync(key));
    }

    /// `CloudTimer::CloudServiceSync`: the service controller syncs one Service.
    pub(crate) fn cloud_sync_service(&mut self, key: ObjectKey) {
        if self.cloud.armed.get(&key).is_some_and(|t| *t > self.now) {
            return; // a later timer for the same Service supersedes this one
        }
        self.cloud.armed.remove(&key);
        if !self.api_writable() {
            self.cloud_arm(key, self.now + RETRY);
            return;
        }
        let live = match self.store.get(&key) {
            Some(Object::Service(s)) => Some((**s).clone()),
            _ => None,
        };
        let uid = live
            .as_ref()
            .and_then(|s| s.metadata.uid.clone())
            .unwrap_or_default();
        let wants = live
            .as_ref()
            .is_some_and(|s| is_load_balancer(s) && s.metadata.deletion_timestamp.is_none());
        if !wants {
            self.cloud_release(&key, live);
            return;
        }
        let Some(svc) = live else { return };
        if !ingress_ips(&svc).is_empty() {
            self.cloud.building.remove(&key);
            return;
        }
        match self.cloud.building.get(&key).cloned() {
            Some((building_uid, ready)) if building_uid == uid => {
                if ready > self.now {
                    self.cloud_arm(key, ready);
                    return;
                }
                self.cloud_ensured(&key, svc);
            }
            _ => {
                let obj = Object::Service(Box::new(svc));
                self.record_event(
                    &obj,
                    SOURCE,
                    None,
                    "Normal",
                    "EnsuringLoadBalancer",
                    "Ensuring load balancer".into(),
                );
                let ready = self.now + PROVISION_TIME;
                self.cloud.building.insert(key.clone(), (uid, ready));
                self.cloud_arm(key, ready);
            }
        }
    }

    /// The cloud finished: the Service gets its address.
    fn cloud_ensured(&mut self, key: &ObjectKey, mut svc: Service) {
        let existing = self
            .cloud
            .allocated
            .iter()
            .find(|(_, (k, _))| k == key)
            .map(|(o, _)| *o);
        let uid = svc.metadata.uid.clone().unwrap_or_default();
        let octet = match existing {
            Some(o) => Some(o),
            None => (1..=254u8).find(|o| !self.cloud.allocated.contains_key(o)),
        };
        let Some(octet) = octet else {
            let obj = Object::Service(Box::new(svc));
            self.record_event(
                &obj,
                SOURCE,
                None,
                "Warning",
                "SyncLoadBalancerFailed",
                "Error syncing load balancer: failed to ensure load balancer: no free address in 203.0.113.0/24".into(),
            );
            self.cloud.building.remove(key);
            self.cloud_arm(key.clone(), self.now + RETRY);
            return;
        };
        let ip = format!("203.0.113.{octet}");
        let status = svc.status.get_or_insert_with(ServiceStatus::default);
        status.load_balancer = Some(LoadBalancerStatus {
            ingress: Some(vec![LoadBalancerIngress {
                ip: Some(ip),
                ip_mode: Some("VIP".into()),
                ..Default::default()
            }]),
        });
        match self.update_as(ACTOR, Object::Service(Box::new(svc))) {
            Ok(obj) => {
                self.cloud.allocated.insert(octet, (key.clone(), uid));
                self.cloud.building.remove(key);
                self.record_event(
                    &obj,
                    SOURCE,
                    None,
                    "Normal",
                    "EnsuredLoadBalancer",
                    "Ensured load balancer".into(),
                );
            }
            Err(_) => self.cloud_arm(key.clone(), self.now + RETRY),
        }
    }

    /// The Service is gone or no longer a LoadBalancer: the cloud deletes its load
    /// balancer and the address goes back to the pool.
    fn cloud_release(&mut self, key: &ObjectKey, live: Option<Service>) {
        let octets: Vec<u8> = self
            .cloud
            .allocated
            .iter()
            .filter(|(_, (k, _))| k == key)
            .map(|(o, _)| *o)
            .collect();
        let was_building = self.cloud.building.remove(key).is_some();
        if octets.is_empty() && !was_building {
            return;
        }
        for o in octets {
            self.cloud.allocated.remove(&o);
        }
        let about = match &live {
            Some(s) => Object::Service(Box::new(s.clone())),
            None => {
                let mut s = Service::default();
                s.metadata.name = Some(key.name.clone());
                s.metadata.namespace = Some(key.namespace.clone());
                Object::Service(Box::new(s))
            }
        };
        self.record_event(
            &about,
            SOURCE,
            None,
            "Normal",
            "DeletingLoadBalancer",
            "Deleting load balancer".into(),
        );
        if let Some(mut svc) = live {
            if !ingress_ips(&svc).is_empty() {
                if let Some(st) = svc.status.as_mut() {
                    st.load_balancer = Some(LoadBalancerStatus::default());
                }
                let _ = self.update_as(ACTOR, Object::Service(Box::new(svc)));
            }
        }
        self.record_event(
            &about,
            SOURCE,
            None,
            "Normal",
            "DeletedLoadBalancer",
            "Deleted load balancer".into(),
        );
    }

    /// The controller relists (an etcd restore): every LoadBalancer Service and every
    /// load balancer the cloud holds is synced again.
    pub(crate) fn cloud_resync_all(&mut self) {
        let mut keys: std::collections::BTreeSet<ObjectKey> = self
            .store
            .list(crate::object::Kind::Service, None)
            .filter(|o| matches!(o, Object::Service(s) if is_load_balancer(s)))
            .map(Object::key)
            .collect_set();
        // Gateways hold addresses of the pool too (`controllers/gateway.rs`): their
        // controller keeps them.
        keys.extend(
            self.cloud
                .allocated
                .values()
                .map(|(k, _)| k.clone())
                .filter(|k| k.kind == crate::object::Kind::Service),
        );
        keys.extend(self.cloud.building.keys().cloned());
        for k in keys {
            self.cloud_arm(k, self.now + WATCH_DELAY);
        }
    }

    /// An address of the pool for `key` (a Gateway), the one it holds if any; None
    /// when the pool is exhausted.
    pub(crate) fn cloud_allocate(&mut self, key: &ObjectKey, uid: &str) -> Option<String> {
        let octet = match self.cloud.allocated.iter().find(|(_, (k, _))| k == key) {
            Some((o, _)) => *o,
            None => {
                let o = (1..=254u8).find(|o| !self.cloud.allocated.contains_key(o))?;
                self.cloud
                    .allocated
                    .insert(o, (key.clone(), uid.to_string()));
                o
            }
        };
        Some(format!("203.0.113.{octet}"))
    }

    /// `key`'s addresses go back to the pool.
    pub(crate) fn cloud_free(&mut self, key: &ObjectKey) {
        self.cloud.allocated.retain(|_, (k, _)| k != key);
    }

    /// Who holds the pool's address `ip`.
    pub(crate) fn load_balancer_owner(&self, ip: &str) -> Option<&ObjectKey> {
        let octet: u8 = ip.strip_prefix("203.0.113.")?.parse().ok()?;
        self.cloud.allocated.get(&octet).map(|(k, _)| k)
    }

    /// The external IPs the simulated cloud has handed out, with their Services.
    pub fn load_balancers(&self) -> Vec<(String, ObjectKey)> {
        self.cloud
            .allocated
            .iter()
            .map(|(o, (k, _))| (format!("203.0.113.{o}"), k.clone()))
            .collect()
    }
}

/// The cloud service controller's timer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum CloudTimer {
    /// The cloud service controller syncs a Service's load balancer.
    CloudServiceSync(ObjectKey),
}

impl crate::runtime::components::Timers for CloudTimer {
    const DESCRIPTIONS: &'static [&'static str] = &["cloud service sync"];

    fn describe(&self) -> &'static str {
        Self::DESCRIPTIONS[0]
    }

    fn fire(self, c: &mut Cluster) {
        let CloudTimer::CloudServiceSync(key) = self;
        c.cloud_sync_service(key);
    }
}
