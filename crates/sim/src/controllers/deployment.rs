//! The Deployment controller. Mirrors pkg/controller/deployment: find or create the
//! ReplicaSet for the current template (named `<deployment>-<pod-template-hash>`),
//! then roll: `rolloutRolling` (reconcileNewReplicaSet / reconcileOldReplicaSets) or
//! `rolloutRecreate`; finally write status and conditions.

use super::omit_zero;
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::names::pod_template_hash;
use crate::object::{Kind, Object, ObjectKey};
use k8s_openapi::api::apps::v1::{
    Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet, ReplicaSetSpec,
};
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

const ACTOR: Actor = Actor::Controller("deployment-controller");
const HASH_LABEL: &str = "pod-template-hash";
const REVISION: &str = "deployment.kubernetes.io/revision";

/// Resolves an int-or-percent against `total`, rounding up or down as upstream's
/// `GetScaledValueFromIntOrPercent` is asked to.
pub fn scaled_value(v: &IntOrString, total: i32, round_up: bool) -> i32 {
    match v {
        IntOrString::Int(i) => *i,
        IntOrString::String(s) => {
            let pct: f64 = s.trim_end_matches('%').parse().unwrap_or(0.0);
            let raw = pct * total as f64 / 100.0;
            if round_up {
                raw.ceil() as i32
            } else {
                raw.floor() as i32
            }
        }
    }
}

/// maxSurge (rounded up) and maxUnavailable (rounded down); if both come to zero,
/// maxUnavailable becomes 1 (upstream `ResolveFenceposts`).
pub fn resolve_fenceposts(d: &Deployment) -> (i32, i32) {
    let spec = Some(&d.spec);
    let replicas = spec.and_then(|s| s.replicas).unwrap_or(1);
    let ru = spec
        .and_then(|s| s.strategy.as_ref())
        .and_then(|s| s.rolling_update.as_ref());
    let pct25 = IntOrString::String("25%".into());
    let surge = scaled_value(
        ru.and_then(|r| r.max_surge.as_ref()).unwrap_or(&pct25),
        replicas,
        true,
    );
    let unavailable = scaled_value(
        ru.and_then(|r| r.max_unavailable.as_ref())
            .unwrap_or(&pct25),
        replicas,
        false,
    );
    if surge == 0 && unavailable == 0 {
        (0, 1)
    } else {
        (surge, unavailable)
    }
}

fn rs_replicas(rs: &ReplicaSet) -> i32 {
    Some(&rs.spec).and_then(|s| s.replicas).unwrap_or(0)
}

fn rs_available(rs: &ReplicaSet) -> i32 {
    rs.status
        .as_ref()
        .and_then(|s| s.available_replicas)
        .unwrap_or(0)
}

/// The template without the pod-template-hash label, for comparison
/// (upstream `EqualIgnoreHash`).
fn template_without_hash(t: &PodTemplateSpec) -> PodTemplateSpec {
    let mut t = t.clone();
    if let Some(labels) = t.metadata.as_mut().and_then(|m| m.labels.as_mut()) {
        labels.remove(HASH_LABEL);
    }
    t
}

impl Cluster {
    pub(crate) fn sync_deployment(&mut self, key: &ObjectKey) {
        let Some(Object::Deployment(d)) = self.store.get(key).cloned() else {
            return;
        };
        if d.metadata.deletion_timestamp.is_some() {
            return;
        }
        let uid = d.metadata.uid.clone().unwrap_or_default();
        let mut rss = self.owned_replica_sets(&uid);
        let spec = d.spec.clone();
        let template = spec.template.clone();
        let new_rs = rss
            .iter()
            .find(|rs| {
                rs.spec
                    .template
                    .as_ref()
                    .is_some_and(|t| template_without_hash(t) == template)
            })
            .cloned();
        let new_rs = match new_rs {
            Some(rs) => rs,
            None => match self.create_new_replica_set(&d, &rss) {
                Some(rs) => {
                    rss.push(rs.clone());
                    rs
                }
                None => return,
            },
        };
        // The Deployment carries its current revision, as the new ReplicaSet does.
        let revision = new_rs
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(REVISION))
            .cloned();
        if let Some(rev) = revision {
            let current = d
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(REVISION));
            if current != Some(&rev) {
                let mut updated = d.clone();
                updated
                    .metadata
                    .annotations
                    .get_or_insert_with(Default::default)
                    .insert(REVISION.into(), rev);
                if self.update_as(ACTOR, Object::Deployment(updated)).is_err() {
                    return;
                }
            }
        }
        let Some(Object::Deployment(d)) = self.store.get(key).cloned() else {
            return;
        };
        let new_name = new_rs.metadata.name.clone();
        let mut olds: Vec<ReplicaSet> = rss
            .into_iter()
            .filter(|rs| rs.metadata.name != new_name)
            .collect();
        olds.sort_by_key(|rs| {
            (
                rs.metadata
                    .creation_timestamp
                    .as_ref()
                    .map(|t| t.0.as_millisecond()),
                rs.metadata.name.clone(),
            )
        });
        if spec.paused != Some(true) {
            let recreate =
                spec.strategy.as_ref().and_then(|s| s.type_.as_deref()) == Some("Recreate");
            if recreate {
                self.rollout_recreate(&d, &new_rs, &olds);
            } else {
                self.rollout_rolling(&d, &new_rs, &olds);
            }
        }
        self.update_deployment_status(key);
    }

    fn owned_replica_sets(&self, uid: &str) -> Vec<ReplicaSet> {
        self.store
            .dependents(uid)
            .filter(|k| k.kind == Kind::ReplicaSet)
            .filter_map(|k| self.store.get(k).and_then(|o| o.as_replica_set()).cloned())
            .filter(|rs| {
                rs.metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|r| r.controller == Some(true) && r.uid == uid)
            })
            .collect()
    }

    /// Creates the ReplicaSet for the current template, sized as
    /// `NewRSNewReplicas` allows (all replicas for a first rollout).
    fn create_new_replica_set(
        &mut self,
        d: &Deployment,
        olds: &[ReplicaSet],
    ) -> Option<ReplicaSet> {
        let spec = d.spec.clone();
        let name = d.metadata.name.clone().unwrap_or_default();
        let collision = d.status.as_ref().and_then(|s| s.collision_count);
        let template_json = serde_json::to_vec(&spec.template).unwrap_or_default();
        let hash = pod_template_hash(&template_json, collision);
        let mut template = spec.template.clone();
        template
            .metadata
            .get_or_insert_with(Default::default)
            .labels
            .get_or_insert_with(Default::default)
            .insert(HASH_LABEL.into(), hash.clone());
        let mut selector = spec.selector.clone();
        selector
            .match_labels
            .get_or_insert_with(Default::default)
            .insert(HASH_LABEL.into(), hash.clone());
        let replicas_total = spec.replicas.unwrap_or(1);
        let current: i32 = olds.iter().map(rs_replicas).sum();
        let recreate = spec.strategy.as_ref().and_then(|s| s.type_.as_deref()) == Some("Recreate");
        let new_replicas = if recreate {
            if current == 0 {
                replicas_total
            } else {
                0
            }
        } else {
            let (surge, _) = resolve_fenceposts(d);
            (replicas_total + surge - current).clamp(0, replicas_total)
        };
        let revision = olds
            .iter()
            .filter_map(|rs| {
                rs.metadata
                    .annotations
                    .as_ref()?
                    .get(REVISION)?
                    .parse::<i64>()
                    .ok()
            })
            .max()
            .unwrap_or(0)
            + 1;
        let (surge, _) = resolve_fenceposts(d);
        let mut annotations = d.metadata.annotations.clone().unwrap_or_default();
        annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
        annotations.insert(REVISION.into(), revision.to_string());
        annotations.insert(
            "deployment.kubernetes.io/desired-replicas".into(),
            replicas_total.to_string(),
        );
        annotations.insert(
            "deployment.kubernetes.io/max-replicas".into(),
            (replicas_total + surge).to_string(),
        );
        let mut labels = template
            .metadata
            .as_ref()
            .and_then(|m| m.labels.clone())
            .unwrap_or_default();
        labels.insert(HASH_LABEL.into(), hash.clone());
        let rs = ReplicaSet {
            metadata: ObjectMeta {
                name: Some(format!("{name}-{hash}")),
                namespace: d.metadata.namespace.clone(),
                labels: Some(labels),
                annotations: Some(annotations),
                owner_references: Some(vec![OwnerReference {
                    api_version: "apps/v1".into(),
                    kind: "Deployment".into(),
                    name: name.clone(),
                    uid: d.metadata.uid.clone().unwrap_or_default(),
                    controller: Some(true),
                    block_owner_deletion: Some(true),
                }]),
                ..Default::default()
            },
            spec: ReplicaSetSpec {
                replicas: Some(new_replicas),
                min_ready_seconds: spec.min_ready_seconds,
                selector,
                template: Some(template),
            },
            status: None,
        };
        match self.create_as(ACTOR, Object::ReplicaSet(rs)) {
            Ok(Object::ReplicaSet(created)) => {
                if new_replicas > 0 {
                    self.record_event(
                        &Object::Deployment(d.clone()),
                        "deployment-controller",
                        None,
                        "Normal",
                        "ScalingReplicaSet",
                        format!("Scaled up replica set {name}-{hash} from 0 to {new_replicas}"),
                    );
                }
                Some(created)
            }
            _ => None,
        }
    }

    /// Sets a ReplicaSet's replicas and records the scaling event on the Deployment.
    fn scale_replica_set(&mut self, d: &Deployment, rs: &ReplicaSet, to: i32) -> bool {
        let from = rs_replicas(rs);
        if from == to {
            return false;
        }
        let Some(Object::ReplicaSet(mut current)) = self
            .store
            .get(&Object::ReplicaSet(rs.clone()).key())
            .cloned()
        else {
            return false;
        };
        let desired = Some(&d.spec).and_then(|s| s.replicas).unwrap_or(1);
        let (surge, _) = resolve_fenceposts(d);
        current.spec.replicas = Some(to);
        let ann = current
            .metadata
            .annotations
            .get_or_insert_with(Default::default);
        ann.insert(
            "deployment.kubernetes.io/desired-replicas".into(),
            desired.to_string(),
        );
        ann.insert(
            "deployment.kubernetes.io/max-replicas".into(),
            (desired + surge).to_string(),
        );
        if self.update_as(ACTOR, Object::ReplicaSet(current)).is_err() {
            return false;
        }
        let direction = if to > from { "up" } else { "down" };
        self.record_event(
            &Object::Deployment(d.clone()),
            "deployment-controller",
            None,
            "Normal",
            "ScalingReplicaSet",
            format!(
                "Scaled {direction} replica set {} from {from} to {to}",
                rs.metadata.name.as_deref().unwrap_or("")
            ),
        );
        true
    }

    /// `rolloutRolling`: scale the new ReplicaSet up within maxSurge, then scale old
    /// ones down within maxUnavailable.
    fn rollout_rolling(&mut self, d: &Deployment, new_rs: &ReplicaSet, olds: &[ReplicaSet]) {
        let replicas = Some(&d.spec).and_then(|s| s.replicas).unwrap_or(1);
        let (surge, max_unavailable) = resolve_fenceposts(d);
        // reconcileNewReplicaSet
        let new_count = rs_replicas(new_rs);
        let all_count: i32 = olds.iter().map(rs_replicas).sum::<i32>() + new_count;
        if new_count > replicas {
            self.scale_replica_set(d, new_rs, replicas);
            return;
        }
        if new_count < replicas {
            let max_total = replicas + surge;
            if all_count < max_total {
                let up = (max_total - all_count).min(replicas - new_count);
                if self.scale_replica_set(d, new_rs, new_count + up) {
                    return;
                }
            }
        }
        // reconcileOldReplicaSets
        let old_count: i32 = olds.iter().map(rs_replicas).sum();
        if old_count == 0 {
            return;
        }
        let min_available = replicas - max_unavailable;
        let new_unavailable = rs_replicas(new_rs) - rs_available(new_rs);
        let max_scaled_down = all_count - min_available - new_unavailable;
        if max_scaled_down <= 0 {
            return;
        }
        let mut budget = max_scaled_down;
        let mut olds: Vec<ReplicaSet> = olds.to_vec();
        // cleanupUnhealthyReplicas: unavailable old pods go first.
        for rs in olds.iter_mut() {
            if budget <= 0 {
                break;
            }
            let unhealthy = rs_replicas(rs) - rs_available(rs);
            if unhealthy <= 0 {
                continue;
            }
            let down = unhealthy.min(budget);
            let to = rs_replicas(rs) - down;
            if self.scale_replica_set(d, rs, to) {
                rs.spec.replicas = Some(to);
                budget -= down;
            }
        }
        // scaleDownOldReplicaSetsForRollingUpdate
        let available: i32 = olds.iter().map(rs_available).sum::<i32>() + rs_available(new_rs);
        if available <= min_available {
            return;
        }
        let mut total = (available - min_available).min(budget);
        for rs in olds.iter() {
            if total <= 0 {
                break;
            }
            let n = rs_replicas(rs);
            if n == 0 {
                continue;
            }
            let down = n.min(total);
            if self.scale_replica_set(d, rs, n - down) {
                total -= down;
            }
        }
    }

    /// `rolloutRecreate`: old ReplicaSets to zero, wait for their pods to go, then the
    /// new one to full size.
    fn rollout_recreate(&mut self, d: &Deployment, new_rs: &ReplicaSet, olds: &[ReplicaSet]) {
        let mut scaled = false;
        for rs in olds {
            scaled |= self.scale_replica_set(d, rs, 0);
        }
        if scaled {
            return;
        }
        let old_pods_left = olds.iter().any(|rs| {
            let uid = rs.metadata.uid.as_deref().unwrap_or("");
            let any = self.owned_pods(uid).next().is_some();
            any
        });
        if old_pods_left {
            return;
        }
        let replicas = Some(&d.spec).and_then(|s| s.replicas).unwrap_or(1);
        self.scale_replica_set(d, new_rs, replicas);
    }

    fn update_deployment_status(&mut self, key: &ObjectKey) {
        let Some(Object::Deployment(d)) = self.store.get(key).cloned() else {
            return;
        };
        let uid = d.metadata.uid.clone().unwrap_or_default();
        let rss = self.owned_replica_sets(&uid);
        let template = Some(&d.spec)
            .map(|s| s.template.clone())
            .unwrap_or_default();
        let new_rs = rss.iter().find(|rs| {
            rs.spec
                .template
                .as_ref()
                .is_some_and(|t| template_without_hash(t) == template)
        });
        let sum = |f: &dyn Fn(&ReplicaSet) -> i32| rss.iter().map(f).sum::<i32>();
        let replicas = sum(&|rs| rs.status.as_ref().map(|s| s.replicas).unwrap_or(0));
        let ready = sum(&|rs| {
            rs.status
                .as_ref()
                .and_then(|s| s.ready_replicas)
                .unwrap_or(0)
        });
        let available = sum(&rs_available);
        let updated = new_rs
            .and_then(|rs| rs.status.as_ref())
            .map(|s| s.replicas)
            .unwrap_or(0);
        let desired = Some(&d.spec).and_then(|s| s.replicas).unwrap_or(1);
        let (_, max_unavailable) = resolve_fenceposts(&d);
        let now = self.now.to_k8s();
        let old = d.status.clone().unwrap_or_default();
        let prev = |t: &str| {
            old.conditions
                .iter()
                .flatten()
                .find(|c| c.type_.as_deref() == Some(t))
                .cloned()
        };
        let make = |t: &str, status: &str, reason: &str, message: String| {
            let p = prev(t);
            let same = p.as_ref().is_some_and(|c| {
                c.status.as_deref() == Some(status) && c.reason.as_deref() == Some(reason)
            });
            let transition = match &p {
                Some(c) if c.status.as_deref() == Some(status) => c.last_transition_time.clone(),
                _ => Some(now.clone()),
            };
            DeploymentCondition {
                type_: Some(t.into()),
                status: Some(status.into()),
                reason: Some(reason.into()),
                message: Some(message),
                last_update_time: if same {
                    p.and_then(|c| c.last_update_time)
                } else {
                    Some(now.clone())
                },
                last_transition_time: transition,
            }
        };
        let available_cond = if available >= desired - max_unavailable {
            make(
                "Available",
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability.".into(),
            )
        } else {
            make(
                "Available",
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.".into(),
            )
        };
        let new_name = new_rs
            .and_then(|rs| rs.metadata.name.clone())
            .unwrap_or_default();
        let complete = new_rs
            .is_some_and(|rs| rs_replicas(rs) == desired && rs_available(rs) == desired)
            && replicas == desired;
        let progressing_cond = if complete {
            make(
                "Progressing",
                "True",
                "NewReplicaSetAvailable",
                format!("ReplicaSet \"{new_name}\" has successfully progressed."),
            )
        } else if prev("Progressing").is_none() {
            make(
                "Progressing",
                "True",
                "NewReplicaSetCreated",
                format!("Created new replica set \"{new_name}\""),
            )
        } else {
            make(
                "Progressing",
                "True",
                "ReplicaSetUpdated",
                format!("ReplicaSet \"{new_name}\" is progressing."),
            )
        };
        let status = DeploymentStatus {
            observed_generation: d.metadata.generation,
            replicas: omit_zero(replicas),
            updated_replicas: omit_zero(updated),
            ready_replicas: omit_zero(ready),
            available_replicas: omit_zero(available),
            unavailable_replicas: omit_zero((desired - available).max(0)),
            terminating_replicas: None,
            collision_count: old.collision_count,
            conditions: Some(vec![available_cond, progressing_cond]),
        };
        if d.status.as_ref() != Some(&status) {
            let mut updated_d = d;
            updated_d.status = Some(status);
            let _ = self.update_as(ACTOR, Object::Deployment(updated_d));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenceposts_round_surge_up_and_unavailable_down() {
        assert_eq!(
            scaled_value(&IntOrString::String("25%".into()), 10, true),
            3
        );
        assert_eq!(
            scaled_value(&IntOrString::String("25%".into()), 10, false),
            2
        );
        assert_eq!(scaled_value(&IntOrString::Int(4), 10, false), 4);
    }
}
