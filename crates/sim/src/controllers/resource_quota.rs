//! The resource quota controller: keeps every ResourceQuota's `status.hard` (a copy
//! of `spec.hard`) and `status.used` (what the namespace's objects use) up to date.
//! Mirrors pkg/controller/resourcequota: `syncResourceQuota` recounts one quota; the
//! replenishment monitors requeue a namespace's quotas when an object that used
//! them goes away (or a pod finishes); a full resync runs every five minutes.
//!
//! Creations need no recount: the ResourceQuota admission plugin charges them to
//! `status.used` as it admits them. Recounts list only the namespace's objects of the
//! kinds the quota tracks, and only namespaces with a quota pay for them.

use super::manager::{Action, Controller, ControllerId, Tick};
use crate::apiserver::quota::{self, ResourceList};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::object::quantity::Quantity;
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::CollectMap;
use crate::store::{EventType, WatchEvent};
use crate::time::SimDuration;
use k8s_openapi::api::core::v1::{ResourceQuota, ResourceQuotaStatus};

pub(crate) const ID: ControllerId = ControllerId::new("resourcequota-controller");
const ACTOR: Actor = Actor::Controller(ID.name());

/// The resource quota controller: quotas whose status lags their spec, and the
/// quotas an object's removal (or a pod's end) replenishes.
pub(crate) struct ResourceQuotaController;

impl Controller for ResourceQuotaController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        c.resource_quota_observe(ev, keys);
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        Action::after_writes(c.sync_resource_quota(key))
    }

    fn ticks(&self) -> &'static [&'static str] {
        &[RESYNC_TICK]
    }

    fn tick(&self, c: &mut Cluster, _tick: &Tick) {
        c.resync_resource_quotas();
    }
}

const RESYNC_TICK: &str = "resource quota resync period";

impl Cluster {
    /// Arms the periodic full resync, if it is not armed yet.
    pub(crate) fn arm_quota_resync(&mut self) {
        if !self.controllers.quota_resync_scheduled {
            self.controllers.quota_resync_scheduled = true;
            self.schedule_tick(ID, self.now + RESYNC_PERIOD, Tick::new(RESYNC_TICK));
        }
    }
}
/// Upstream `--resource-quota-sync-period`.
pub const RESYNC_PERIOD: SimDuration = SimDuration::secs(300);

/// Whether the controller must (re)compute a quota: its status does not yet reflect
/// its spec (upstream `addQuota` puts such quotas on the missing-usage queue).
fn needs_sync(q: &ResourceQuota) -> bool {
    let spec_hard = quota::spec_hard(q);
    let status_hard = quota::status_hard(q);
    let used = quota::status_used(q);
    spec_hard != status_hard || spec_hard.keys().any(|k| !used.contains_key(k))
}

impl Cluster {
    /// The controller's informers, fed by the apiserver's watch fan-out.
    fn resource_quota_observe(&mut self, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        let obj: &Object = &ev.object;
        let kind = obj.kind();
        if let Object::ResourceQuota(q) = obj {
            if ev.event_type == EventType::Deleted {
                return;
            }
            self.arm_quota_resync();
            if needs_sync(q) {
                keys.push(obj.key());
            }
            return;
        }
        if !kind.namespaced() {
            return;
        }
        // Replenishment: what frees quota. Creations were charged at admission.
        let replenish = match ev.event_type {
            EventType::Added => false,
            EventType::Deleted => true,
            EventType::Modified => match obj {
                Object::Pod(p) => !quota::pod_is_charged(p, self.now),
                Object::Service(_) => true,
                _ => false,
            },
        };
        if !replenish {
            return;
        }
        let quotas = self
            .store
            .list(Kind::ResourceQuota, Some(obj.namespace()))
            .filter(|q| match q {
                Object::ResourceQuota(q) => {
                    quota::spec_hard(q).keys().any(|n| quota::tracks(kind, n))
                }
                _ => false,
            })
            .map(Object::key);
        keys.extend(quotas);
    }

    /// The periodic full resync: every quota is recounted (it catches pods that
    /// stopped counting when their grace period ran out on a lost node).
    fn resync_resource_quotas(&mut self) {
        let quotas: Vec<ObjectKey> = self
            .store
            .list(Kind::ResourceQuota, None)
            .map(Object::key)
            .collect();
        if quotas.is_empty() {
            self.controllers.quota_resync_scheduled = false;
            return;
        }
        for q in quotas {
            self.enqueue(ID.component(), q);
        }
        self.schedule_tick(ID, self.now + RESYNC_PERIOD, Tick::new(RESYNC_TICK));
    }

    /// Upstream `syncResourceQuota`: status.hard from spec.hard, status.used counted
    /// from the namespace's objects; written only when it changed (the write, if
    /// one was made).
    fn sync_resource_quota(
        &mut self,
        key: &ObjectKey,
    ) -> Option<Result<(), crate::error::ApiError>> {
        let Some(Object::ResourceQuota(q)) = self.store.get(key).cloned() else {
            return None;
        };
        let hard = quota::spec_hard(&q);
        let used = self.quota_usage(&q, &hard);
        let status = ResourceQuotaStatus {
            hard: quota::to_k8s(&hard),
            used: quota::to_k8s(&used),
        };
        let current = q.status.clone().unwrap_or_default();
        let dirty = !quota::same_values(current.hard.as_ref(), status.hard.as_ref())
            || !quota::same_values(current.used.as_ref(), status.used.as_ref());
        dirty.then(|| {
            let mut updated = q;
            updated.status = Some(status);
            self.update_as(ACTOR, Object::ResourceQuota(updated))
                .map(drop)
        })
    }

    /// Upstream `quota.CalculateUsage`: for every resource the quota limits, the sum
    /// over the namespace's objects that the quota's scopes select.
    fn quota_usage(&self, q: &ResourceQuota, hard: &ResourceList) -> ResourceList {
        let namespace = q.metadata.namespace.as_deref().unwrap_or("");
        let mut used: ResourceList = hard
            .keys()
            .map(|k| (k.clone(), Quantity::ZERO))
            .collect_map();
        for kind in Kind::ALL.into_iter().filter(|k| k.namespaced()) {
            if !hard.keys().any(|n| quota::tracks(kind, n)) {
                continue;
            }
            for obj in self.store.list(kind, Some(namespace)) {
                if !quota::matches_scopes(q, obj) {
                    continue;
                }
                for (k, v) in quota::usage(obj, self.now) {
                    if let Some(slot) = used.get_mut(&k) {
                        slot.add(v);
                    }
                }
            }
        }
        used
    }
}
