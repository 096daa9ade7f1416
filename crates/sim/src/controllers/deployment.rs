//! The Deployment controller. Mirrors pkg/controller/deployment: `syncDeployment`
//! (deployment_controller.go), `getAllReplicaSetsAndSyncRevision`, `scale`,
//! `cleanupDeployment` and `calculateStatus` (sync.go), `rolloutRolling` with
//! `reconcileNewReplicaSet` / `reconcileOldReplicaSets` (rolling.go), `rolloutRecreate`
//! (recreate.go), `syncRolloutStatus` and `requeueStuckDeployment` (progress.go) and
//! the helpers of pkg/controller/deployment/util/deployment_util.go (revisions,
//! annotations, fenceposts, proportional scaling, conditions).
//!
//! ReplicaSets are claimed as `ReplicaSetControllerRefManager` does
//! (pkg/controller/controller_ref_manager.go): matching orphans adopted, unmatched
//! ones released.
//!
//! Simplifications: the long-deprecated server-side rollback (`spec.rollbackTo`) is
//! left out (kubectl rolls back client-side, as it does upstream); a deployment stuck
//! within a second of its deadline is looked at again exactly when the deadline
//! passes rather than through the rate limiter. A hash collision (a foreign
//! ReplicaSet holding the name) bumps `status.collisionCount`, as upstream. `terminatingReplicas` is reported (the
//! DeploymentReplicaSetTerminatingReplicas gate is on by default since v1.35); the
//! alpha `podReplacementPolicy` is not simulated.

use super::manager::{Action, Controller, ControllerId};
use super::omit_zero;
use crate::apiserver::Actor;
use crate::cluster::{controller_of, Cluster};
use crate::names::pod_template_hash;
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::StableSort;
use crate::store::{EventType, WatchEvent};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::apps::v1::{
    Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet, ReplicaSetSpec,
};
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::BTreeMap;

pub(crate) const ID: ControllerId = ControllerId::new("deployment-controller");
const ACTOR: Actor = Actor::Controller(ID.name());
const COMPONENT: &str = ID.name();

/// The Deployment controller: Deployments, the ReplicaSets they own or may adopt,
/// and (for the Recreate strategy) the pods whose end lets a rollout go on.
pub(crate) struct DeploymentController;

impl Controller for DeploymentController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        let obj: &Object = &ev.object;
        match obj {
            Object::Deployment(_) => keys.push(obj.key()),
            Object::ReplicaSet(rs) => match controller_of(obj, Kind::Deployment) {
                Some(owner) => keys.push(owner),
                None if ev.event_type != EventType::Deleted => {
                    keys.extend(c.deployments_for_orphan(rs))
                }
                None => {}
            },
            Object::Pod(_) if ev.event_type == EventType::Deleted => {
                let owner = controller_of(obj, Kind::ReplicaSet);
                keys.extend(owner.and_then(|rs| c.recreate_deployment_of_pod(&rs)));
            }
            _ => {}
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        keys.extend(c.store.list(Kind::Deployment, None).map(Object::key));
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        c.sync_deployment(key)
    }
}
const HASH_LABEL: &str = "pod-template-hash";
/// `deploymentutil.RevisionAnnotation`.
pub const REVISION: &str = "deployment.kubernetes.io/revision";
/// `deploymentutil.RevisionHistoryAnnotation`: the revisions a reused ReplicaSet had.
pub const REVISION_HISTORY: &str = "deployment.kubernetes.io/revision-history";
pub const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
pub const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";
/// Upstream's default `--max-rev-history-length-in-chars` for revision-history.
const MAX_REV_HISTORY_CHARS: usize = 2000;

// Condition reasons (deploymentutil).
const NEW_RS_REASON: &str = "NewReplicaSetCreated";
const FOUND_NEW_RS_REASON: &str = "FoundNewReplicaSet";
const RS_UPDATED_REASON: &str = "ReplicaSetUpdated";
const NEW_RS_AVAILABLE_REASON: &str = "NewReplicaSetAvailable";
const TIMED_OUT_REASON: &str = "ProgressDeadlineExceeded";
const PAUSED_REASON: &str = "DeploymentPaused";
const RESUMED_REASON: &str = "DeploymentResumed";

/// Annotations of a Deployment that are never copied onto its ReplicaSets, nor back
/// by a rollback (`skipCopyAnnotation` / kubectl's `annotationsToSkip`).
pub const ANNOTATIONS_NOT_COPIED: [&str; 6] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION,
    REVISION_HISTORY,
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    "deprecated.deployment.rollback.to",
];

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

/// The Deployment-specific checks of `ValidateDeploymentSpec` and
/// `ValidateRollingUpdateDeployment` (pkg/apis/apps/validation), as field errors:
/// strategy type, maxSurge/maxUnavailable (non-negative ints or `N%`, unavailable at
/// most 100%, not both zero), and progressDeadlineSeconds above minReadySeconds.
pub fn validate_spec(spec: &k8s_openapi::api::apps::v1::DeploymentSpec) -> Vec<String> {
    let mut errors = strategy_errors(spec);
    let non_negative = |field: &str, v: i64, errors: &mut Vec<String>| {
        if v < 0 {
            errors.push(format!(
                "{field}: Invalid value: {v}: must be greater than or equal to 0"
            ));
        }
    };
    non_negative(
        "spec.minReadySeconds",
        spec.min_ready_seconds.unwrap_or(0) as i64,
        &mut errors,
    );
    non_negative(
        "spec.revisionHistoryLimit",
        spec.revision_history_limit.unwrap_or(0) as i64,
        &mut errors,
    );
    if let Some(p) = spec.progress_deadline_seconds {
        non_negative("spec.progressDeadlineSeconds", p as i64, &mut errors);
        if p <= spec.min_ready_seconds.unwrap_or(0) {
            errors.push(format!(
                "spec.progressDeadlineSeconds: Invalid value: {p}: must be greater than minReadySeconds"
            ));
        }
    }
    errors
}

fn strategy_errors(spec: &k8s_openapi::api::apps::v1::DeploymentSpec) -> Vec<String> {
    let mut errors = Vec::new();
    let Some(strategy) = spec.strategy.as_ref() else {
        return errors;
    };
    match strategy.type_.as_deref() {
        Some("Recreate") => {
            if strategy.rolling_update.is_some() {
                errors.push(
                    "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"
                        .into(),
                );
            }
        }
        Some("RollingUpdate") | None => {
            let Some(ru) = strategy.rolling_update.as_ref() else {
                return errors;
            };
            let mut values = [None, None];
            for (i, (name, v)) in [("maxUnavailable", &ru.max_unavailable), ("maxSurge", &ru.max_surge)]
                .into_iter()
                .enumerate()
            {
                let field = format!("spec.strategy.rollingUpdate.{name}");
                if let Some(v) = v {
                    values[i] = crate::apiserver::validation::int_or_percent(
                        &field,
                        v,
                        i == 0,
                        &mut errors,
                    );
                }
            }
            if values == [Some(0), Some(0)] {
                let shown = serde_json::to_string(&ru.max_unavailable).unwrap_or_default();
                errors.push(format!(
                    "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: {shown}: may not be 0 when `maxSurge` is 0"
                ));
            }
        }
        Some(other) => errors.push(format!(
            "spec.strategy.type: Unsupported value: \"{other}\": supported values: \"Recreate\", \"RollingUpdate\""
        )),
    }
    errors
}

fn is_rolling(d: &Deployment) -> bool {
    d.spec.strategy.as_ref().and_then(|s| s.type_.as_deref()) != Some("Recreate")
}

fn desired(d: &Deployment) -> i32 {
    d.spec.replicas.unwrap_or(1)
}

/// `deploymentutil.MaxSurge`: zero unless the strategy is RollingUpdate.
pub fn max_surge(d: &Deployment) -> i32 {
    if is_rolling(d) {
        resolve_fenceposts(d).0
    } else {
        0
    }
}

/// `deploymentutil.MaxUnavailable`: zero unless rolling with replicas, and never
/// more than the replicas.
pub fn max_unavailable(d: &Deployment) -> i32 {
    if !is_rolling(d) || desired(d) == 0 {
        return 0;
    }
    resolve_fenceposts(d).1.min(desired(d))
}

fn has_progress_deadline(d: &Deployment) -> bool {
    d.spec
        .progress_deadline_seconds
        .is_some_and(|s| s != i32::MAX)
}

fn rs_replicas(rs: &ReplicaSet) -> i32 {
    rs.spec.replicas.unwrap_or(0)
}

fn rs_available(rs: &ReplicaSet) -> i32 {
    rs.status
        .as_ref()
        .and_then(|s| s.available_replicas)
        .unwrap_or(0)
}

fn rs_status_replicas(rs: &ReplicaSet) -> i32 {
    rs.status.as_ref().map(|s| s.replicas).unwrap_or(0)
}

fn rs_name(rs: &ReplicaSet) -> String {
    rs.metadata.name.clone().unwrap_or_default()
}

fn annotation<'a>(meta: &'a ObjectMeta, key: &str) -> Option<&'a String> {
    meta.annotations.as_ref()?.get(key)
}

/// The revision a ReplicaSet carries (`deploymentutil.Revision`).
pub fn revision_of(rs: &ReplicaSet) -> Option<i64> {
    annotation(&rs.metadata, REVISION)?.parse().ok()
}

/// `ReplicaSetsByCreationTimestamp`: older first, then by name.
fn creation_key(rs: &ReplicaSet) -> (i64, String) {
    (crate::object::created_millis(&rs.metadata), rs_name(rs))
}

/// The template without the pod-template-hash label, for comparison
/// (upstream `EqualIgnoreHash`).
pub fn template_without_hash(t: &PodTemplateSpec) -> PodTemplateSpec {
    let mut t = t.clone();
    if let Some(m) = t.metadata.as_mut() {
        if let Some(labels) = m.labels.as_mut() {
            labels.remove(HASH_LABEL);
            if labels.is_empty() {
                m.labels = None;
            }
        }
    }
    t
}

/// Whether two pod templates are equal but for the pod-template-hash label.
pub fn equal_ignore_hash(a: &PodTemplateSpec, b: &PodTemplateSpec) -> bool {
    template_without_hash(a) == template_without_hash(b)
}

fn condition<'a>(status: &'a DeploymentStatus, type_: &str) -> Option<&'a DeploymentCondition> {
    status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_.as_deref() == Some(type_))
}

fn new_condition(
    type_: &str,
    status: &str,
    reason: &str,
    message: String,
    now: SimTime,
) -> DeploymentCondition {
    DeploymentCondition {
        type_: Some(type_.into()),
        status: Some(status.into()),
        reason: Some(reason.into()),
        message: Some(message),
        last_update_time: Some(now.to_k8s()),
        last_transition_time: Some(now.to_k8s()),
    }
}

fn remove_condition(status: &mut DeploymentStatus, type_: &str) {
    if let Some(conds) = status.conditions.as_mut() {
        conds.retain(|c| c.type_.as_deref() != Some(type_));
        if conds.is_empty() {
            status.conditions = None;
        }
    }
}

/// `SetDeploymentCondition`: nothing changes when status and reason are the same; the
/// transition time is kept while the status stays; the condition moves to the end.
fn set_condition(status: &mut DeploymentStatus, mut cond: DeploymentCondition) {
    let type_ = cond.type_.clone().unwrap_or_default();
    if let Some(current) = condition(status, &type_) {
        if current.status == cond.status && current.reason == cond.reason {
            return;
        }
        if current.status == cond.status {
            cond.last_transition_time = current.last_transition_time.clone();
        }
    }
    remove_condition(status, &type_);
    status.conditions.get_or_insert_with(Vec::new).push(cond);
}

fn status_of(d: &Deployment) -> DeploymentStatus {
    d.status.clone().unwrap_or_default()
}

fn num(v: Option<i32>) -> i32 {
    v.unwrap_or(0)
}

/// `DeploymentComplete`: every replica updated and available, and the latest
/// generation observed.
fn deployment_complete(d: &Deployment, s: &DeploymentStatus) -> bool {
    let want = desired(d);
    num(s.updated_replicas) == want
        && num(s.replicas) == want
        && num(s.available_replicas) == want
        && s.observed_generation.unwrap_or(0) >= d.metadata.generation.unwrap_or(0)
}

/// `DeploymentProgressing`: more updated, ready or available replicas, or fewer old
/// ones, than the status last recorded.
fn deployment_progressing(d: &Deployment, new: &DeploymentStatus) -> bool {
    let old = status_of(d);
    let old_old = num(old.replicas) - num(old.updated_replicas);
    let new_old = num(new.replicas) - num(new.updated_replicas);
    num(new.updated_replicas) > num(old.updated_replicas)
        || new_old < old_old
        || num(new.ready_replicas) > num(old.ready_replicas)
        || num(new.available_replicas) > num(old.available_replicas)
}

/// The moment the Progressing condition's deadline passes, if it can.
fn progress_deadline(d: &Deployment, cond: &DeploymentCondition) -> Option<SimTime> {
    let from = SimTime::from_k8s(cond.last_update_time.as_ref()?);
    let secs = d.spec.progress_deadline_seconds?.max(0) as u64;
    Some(from + SimDuration::secs(secs))
}

/// `DeploymentTimedOut`: no progress for progressDeadlineSeconds since the
/// Progressing condition was last updated.
fn deployment_timed_out(d: &Deployment, s: &DeploymentStatus, now: SimTime) -> bool {
    if !has_progress_deadline(d) {
        return false;
    }
    let Some(cond) = condition(s, "Progressing") else {
        return false;
    };
    match cond.reason.as_deref() {
        Some(NEW_RS_AVAILABLE_REASON) => false,
        Some(TIMED_OUT_REASON) => true,
        _ => progress_deadline(d, cond).is_some_and(|at| at < now),
    }
}

/// `SetNewReplicaSetAnnotations`: copy the Deployment's annotations, raise the
/// revision to `new_revision` (keeping the old one in revision-history when a
/// ReplicaSet is reused by a rollback), and for a new ReplicaSet set the replicas
/// annotations. Returns whether anything changed.
fn set_new_rs_annotations(
    d: &Deployment,
    rs: &mut ReplicaSet,
    new_revision: i64,
    exists: bool,
) -> bool {
    let mut changed = false;
    let ann = rs.metadata.annotations.get_or_insert_with(BTreeMap::new);
    for (k, v) in d.metadata.annotations.iter().flatten() {
        if ANNOTATIONS_NOT_COPIED.contains(&k.as_str()) || ann.get(k) == Some(v) {
            continue;
        }
        ann.insert(k.clone(), v.clone());
        changed = true;
    }
    let old_revision = ann.get(REVISION).cloned();
    let old_int = match &old_revision {
        Some(r) => match r.parse::<i64>() {
            Ok(v) => v,
            Err(_) => return false,
        },
        None => 0,
    };
    if old_int < new_revision {
        ann.insert(REVISION.into(), new_revision.to_string());
        changed = true;
        if let Some(old) = old_revision {
            let history = ann.get(REVISION_HISTORY).cloned().unwrap_or_default();
            if history.is_empty() {
                ann.insert(REVISION_HISTORY.into(), old);
            } else {
                let mut revisions: Vec<&str> = history.split(',').collect();
                let mut total = history.len() + old.len() + 1;
                let mut start = 0;
                while total > MAX_REV_HISTORY_CHARS && start < revisions.len() {
                    total -= revisions[start].len() + 1;
                    start += 1;
                }
                if total <= MAX_REV_HISTORY_CHARS {
                    revisions = revisions.split_off(start);
                    revisions.push(&old);
                    let joined = revisions.join(",");
                    ann.insert(REVISION_HISTORY.into(), joined);
                }
            }
        }
    }
    if !exists && set_replicas_annotations(rs, desired(d), desired(d).saturating_add(max_surge(d)))
    {
        changed = true;
    }
    changed
}

/// `SetReplicasAnnotations`: desired-replicas and max-replicas.
fn set_replicas_annotations(rs: &mut ReplicaSet, desired: i32, max: i32) -> bool {
    let ann = rs.metadata.annotations.get_or_insert_with(BTreeMap::new);
    let mut changed = false;
    for (k, v) in [(DESIRED_REPLICAS, desired), (MAX_REPLICAS, max)] {
        let v = v.to_string();
        if ann.get(k) != Some(&v) {
            ann.insert(k.into(), v);
            changed = true;
        }
    }
    changed
}

/// `getReplicaSetFraction`: how many replicas this ReplicaSet gains or loses when the
/// Deployment's size changes, in proportion to its share of the old maximum.
fn replica_set_fraction(rs: &ReplicaSet, d: &Deployment) -> i32 {
    if desired(d) == 0 {
        return -rs_replicas(rs);
    }
    let max_now = desired(d).saturating_add(max_surge(d));
    let before = annotation(&rs.metadata, MAX_REPLICAS)
        .and_then(|v| v.parse::<i32>().ok())
        .filter(|v| *v != 0)
        .unwrap_or_else(|| num(d.status.as_ref().and_then(|s| s.replicas)));
    if before == 0 {
        return 0;
    }
    let size = (rs_replicas(rs) as f64) * (max_now as f64) / (before as f64);
    // Go's math.Round: halves away from zero, as f64::round.
    size.round() as i32 - rs_replicas(rs)
}

/// `GetReplicaSetProportion`.
fn replica_set_proportion(rs: &ReplicaSet, d: &Deployment, to_add: i32, added: i32) -> i32 {
    if rs_replicas(rs) == 0 || to_add == 0 || to_add == added {
        return 0;
    }
    let fraction = replica_set_fraction(rs, d);
    let allowed = to_add - added;
    if to_add > 0 {
        fraction.min(allowed)
    } else {
        fraction.max(allowed)
    }
}

impl Cluster {
    /// `syncDeployment`.
    fn sync_deployment(&mut self, key: &ObjectKey) -> Action {
        let Some(Object::Deployment(d)) = self.store.get(key).cloned() else {
            return Action::Done;
        };
        if d.metadata.deletion_timestamp.is_some() {
            let (new_rs, olds) = self.split_replica_sets(&d);
            self.sync_deployment_status(&d, new_rs.as_ref(), &olds);
            return Action::Done;
        }
        self.claim_replica_sets(&d);
        let Some(d) = self.check_paused_conditions(*d) else {
            return Action::Requeue;
        };
        if d.spec.paused == Some(true) || self.is_scaling_event(&d) {
            self.sync_scale_only(d)
        } else if is_rolling(&d) {
            self.rollout_rolling(d)
        } else {
            self.rollout_recreate(d)
        }
    }

    fn owned_replica_sets(&self, uid: &str) -> Vec<ReplicaSet> {
        let mut rss: Vec<ReplicaSet> = self
            .store
            .dependent_objects(uid)
            .filter_map(|o| o.as_replica_set().cloned())
            .filter(|rs| super::controlled_by(&rs.metadata, uid))
            .collect();
        rss.stable_sort_by_key(creation_key);
        rss
    }

    /// `ReplicaSetControllerRefManager.ClaimReplicaSets`
    /// (pkg/controller/controller_ref_manager.go): adopt the orphan ReplicaSets of the
    /// namespace whose labels match the Deployment's selector (say, after
    /// `kubectl delete deployment --cascade=orphan` and a new apply), and release the
    /// ones it controls whose labels no longer match. ReplicaSets controlled by
    /// another owner, and any being deleted, are left alone.
    fn claim_replica_sets(&mut self, d: &Deployment) {
        let uid = d.metadata.uid.clone().unwrap_or_default();
        let ns = d.metadata.namespace.clone().unwrap_or_default();
        let selector = &d.spec.selector;
        let selects_something = selector
            .match_labels
            .as_ref()
            .is_some_and(|m| !m.is_empty())
            || selector
                .match_expressions
                .as_ref()
                .is_some_and(|e| !e.is_empty());
        let none = BTreeMap::new();
        let mut writes: Vec<ReplicaSet> = Vec::new();
        for rs in self
            .store
            .list(Kind::ReplicaSet, Some(&ns))
            .filter_map(|o| o.as_replica_set())
        {
            if rs.metadata.deletion_timestamp.is_some() {
                continue;
            }
            let matches = selects_something
                && super::selector_matches(selector, rs.metadata.labels.as_ref().unwrap_or(&none));
            let controller = rs
                .metadata
                .owner_references
                .iter()
                .flatten()
                .find(|r| r.controller == Some(true));
            match controller {
                Some(r) if r.uid == uid && !matches => {
                    let mut released = rs.clone();
                    if let Some(refs) = released.metadata.owner_references.as_mut() {
                        refs.retain(|r| r.uid != uid);
                        if refs.is_empty() {
                            released.metadata.owner_references = None;
                        }
                    }
                    writes.push(released);
                }
                None if matches => {
                    let mut adopted = rs.clone();
                    adopted
                        .metadata
                        .owner_references
                        .get_or_insert_with(Vec::new)
                        .push(OwnerReference {
                            api_version: "apps/v1".into(),
                            kind: "Deployment".into(),
                            name: d.metadata.name.clone().unwrap_or_default(),
                            uid: uid.clone(),
                            controller: Some(true),
                            block_owner_deletion: Some(true),
                        });
                    writes.push(adopted);
                }
                _ => {}
            }
        }
        for rs in writes {
            let _ = self.update_as(ACTOR, Object::ReplicaSet(Box::new(rs)));
        }
    }

    /// The Deployments that might adopt an orphan ReplicaSet: those of its namespace
    /// whose selector matches its labels (upstream `getDeploymentsForReplicaSet`).
    pub(crate) fn deployments_for_orphan(&self, rs: &ReplicaSet) -> Vec<ObjectKey> {
        let is_orphan = !rs
            .metadata
            .owner_references
            .iter()
            .flatten()
            .any(|r| r.controller == Some(true));
        let Some(labels) = rs.metadata.labels.as_ref().filter(|_| is_orphan) else {
            return Vec::new();
        };
        let ns = rs.metadata.namespace.as_deref().unwrap_or("default");
        self.store
            .list(Kind::Deployment, Some(ns))
            .filter_map(|o| o.as_deployment())
            .filter(|d| {
                let sel = &d.spec.selector;
                (sel.match_labels.as_ref().is_some_and(|m| !m.is_empty())
                    || sel
                        .match_expressions
                        .as_ref()
                        .is_some_and(|e| !e.is_empty()))
                    && super::selector_matches(sel, labels)
            })
            .map(|d| Object::Deployment(Box::new(d.clone())).key())
            .collect()
    }

    /// `FindNewReplicaSet` / `FindOldReplicaSets`: the oldest ReplicaSet whose template
    /// matches the Deployment's is the new one; every other is old.
    fn split_replica_sets(&self, d: &Deployment) -> (Option<ReplicaSet>, Vec<ReplicaSet>) {
        let uid = d.metadata.uid.clone().unwrap_or_default();
        let rss = self.owned_replica_sets(&uid);
        let pos = rss.iter().position(|rs| {
            rs.spec
                .template
                .as_ref()
                .is_some_and(|t| equal_ignore_hash(t, &d.spec.template))
        });
        let mut olds = rss;
        let new_rs = pos.map(|i| olds.remove(i));
        (new_rs, olds)
    }

    /// Writes a Deployment (status included) and returns what was stored.
    fn write_deployment(&mut self, d: Deployment) -> Option<Deployment> {
        match self
            .update_as(ACTOR, Object::Deployment(Box::new(d)))
            .map(std::sync::Arc::unwrap_or_clone)
        {
            Ok(Object::Deployment(d)) => Some(*d),
            _ => None,
        }
    }

    /// `checkPausedConditions`: Progressing=Unknown DeploymentPaused while paused,
    /// DeploymentResumed once resumed; a reported timeout is left alone.
    fn check_paused_conditions(&mut self, d: Deployment) -> Option<Deployment> {
        if !has_progress_deadline(&d) {
            return Some(d);
        }
        let mut status = status_of(&d);
        let reason = condition(&status, "Progressing").and_then(|c| c.reason.clone());
        if reason.as_deref() == Some(TIMED_OUT_REASON) {
            return Some(d);
        }
        let paused_exists = reason.as_deref() == Some(PAUSED_REASON);
        let paused = d.spec.paused == Some(true);
        let cond = if paused && !paused_exists {
            new_condition(
                "Progressing",
                "Unknown",
                PAUSED_REASON,
                "Deployment is paused".into(),
                self.now,
            )
        } else if !paused && paused_exists {
            new_condition(
                "Progressing",
                "Unknown",
                RESUMED_REASON,
                "Deployment is resumed".into(),
                self.now,
            )
        } else {
            return Some(d);
        };
        set_condition(&mut status, cond);
        let mut updated = d;
        updated.status = Some(status);
        self.write_deployment(updated)
    }

    /// `getAllReplicaSetsAndSyncRevision` with `getNewReplicaSet`: brings the new
    /// ReplicaSet's annotations and the Deployment's revision up to date, and creates
    /// the new ReplicaSet when asked to and it is missing. `None` when a write failed.
    fn sync_revision(
        &mut self,
        d: &mut Deployment,
        create: bool,
    ) -> Option<(Option<ReplicaSet>, Vec<ReplicaSet>)> {
        let (new_rs, olds) = self.split_replica_sets(d);
        let new_revision = olds.iter().filter_map(revision_of).max().unwrap_or(0) + 1;
        if let Some(rs) = new_rs {
            let mut copy = rs.clone();
            let annotations_changed = set_new_rs_annotations(d, &mut copy, new_revision, true);
            if annotations_changed || copy.spec.min_ready_seconds != d.spec.min_ready_seconds {
                copy.spec.min_ready_seconds = d.spec.min_ready_seconds;
                return match self
                    .update_as(ACTOR, Object::ReplicaSet(Box::new(copy)))
                    .map(std::sync::Arc::unwrap_or_clone)
                {
                    Ok(Object::ReplicaSet(updated)) => Some((Some(*updated), olds)),
                    _ => None,
                };
            }
            let revision = annotation(&copy.metadata, REVISION)
                .cloned()
                .unwrap_or_default();
            let mut needs_update = set_deployment_revision(d, &revision);
            let mut status = status_of(d);
            if has_progress_deadline(d) && condition(&status, "Progressing").is_none() {
                let msg = format!("Found new replica set \"{}\"", rs_name(&copy));
                set_condition(
                    &mut status,
                    new_condition("Progressing", "True", FOUND_NEW_RS_REASON, msg, self.now),
                );
                needs_update = true;
            }
            if needs_update {
                let mut updated = d.clone();
                updated.status = Some(status);
                *d = self.write_deployment(updated)?;
            }
            return Some((Some(copy), olds));
        }
        if !create {
            return Some((None, olds));
        }
        let created = self.create_new_replica_set(d, &olds, new_revision)?;
        let mut needs_update = set_deployment_revision(d, &new_revision.to_string());
        let mut status = status_of(d);
        if has_progress_deadline(d) {
            let msg = format!("Created new replica set \"{}\"", rs_name(&created));
            set_condition(
                &mut status,
                new_condition("Progressing", "True", NEW_RS_REASON, msg, self.now),
            );
            needs_update = true;
        }
        if needs_update {
            let mut updated = d.clone();
            updated.status = Some(status);
            *d = self.write_deployment(updated)?;
        }
        Some((Some(created), olds))
    }

    /// Creates the ReplicaSet for the current template, sized by `NewRSNewReplicas`.
    fn create_new_replica_set(
        &mut self,
        d: &Deployment,
        olds: &[ReplicaSet],
        revision: i64,
    ) -> Option<ReplicaSet> {
        let spec = &d.spec;
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
        let replicas_total = desired(d);
        // NewRSNewReplicas
        let new_replicas = if is_rolling(d) {
            let current: i32 = olds.iter().map(rs_replicas).sum();
            let max_total = replicas_total.saturating_add(max_surge(d));
            if current >= max_total {
                0
            } else {
                (max_total - current).min(replicas_total)
            }
        } else {
            replicas_total
        };
        let labels = template.metadata.as_ref().and_then(|m| m.labels.clone());
        let mut rs = ReplicaSet {
            metadata: ObjectMeta {
                name: Some(format!("{name}-{hash}")),
                namespace: d.metadata.namespace.clone(),
                labels,
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
        set_new_rs_annotations(d, &mut rs, revision, false);
        match self
            .create_as(ACTOR, Object::ReplicaSet(Box::new(rs)))
            .map(std::sync::Arc::unwrap_or_clone)
        {
            Ok(Object::ReplicaSet(created)) => {
                if new_replicas > 0 {
                    self.record_event(
                        &Object::Deployment(Box::new(d.clone())),
                        COMPONENT,
                        None,
                        "Normal",
                        "ScalingReplicaSet",
                        format!(
                            "Scaled up replica set {} from 0 to {new_replicas}",
                            rs_name(&created)
                        ),
                    );
                }
                Some(*created)
            }
            Ok(_) => None,
            Err(e) if e.reason == crate::error::StatusReason::AlreadyExists => {
                // A hash collision: a ReplicaSet this Deployment does not control holds
                // the name. Bump collisionCount so the next sync hashes differently.
                let rs_key = ObjectKey::new(
                    Kind::ReplicaSet,
                    d.metadata.namespace.as_deref().unwrap_or("default"),
                    &format!("{name}-{hash}"),
                );
                let ours = self
                    .store
                    .get(&rs_key)
                    .and_then(|o| o.as_replica_set())
                    .is_some_and(|rs| {
                        rs.metadata.owner_references.iter().flatten().any(|r| {
                            r.controller == Some(true) && Some(&r.uid) == d.metadata.uid.as_ref()
                        }) && rs
                            .spec
                            .template
                            .as_ref()
                            .is_some_and(|t| equal_ignore_hash(t, &d.spec.template))
                    });
                if ours {
                    return self
                        .store
                        .get(&rs_key)
                        .and_then(|o| o.as_replica_set())
                        .cloned();
                }
                let mut bumped = d.clone();
                let status = bumped.status.get_or_insert_with(Default::default);
                status.collision_count = Some(status.collision_count.unwrap_or(0) + 1);
                self.write_deployment(bumped);
                None
            }
            Err(e) => {
                let msg = format!(
                    "Failed to create new replica set \"{name}-{hash}\": {}",
                    e.message
                );
                self.record_event(
                    &Object::Deployment(Box::new(d.clone())),
                    COMPONENT,
                    None,
                    "Warning",
                    "ReplicaSetCreateError",
                    msg,
                );
                None
            }
        }
    }

    /// `scaleReplicaSetAndRecordEvent`.
    fn scale_and_record(&mut self, d: &Deployment, rs: &ReplicaSet, to: i32) -> Option<ReplicaSet> {
        if rs_replicas(rs) == to {
            return None;
        }
        let op = if rs_replicas(rs) < to { "up" } else { "down" };
        self.scale_replica_set(d, rs, to, op).filter(|_| true)
    }

    /// `scaleReplicaSet`: sets replicas and the replicas annotations; records the
    /// scaling event when the size changed. Returns the ReplicaSet as written when its
    /// size changed.
    fn scale_replica_set(
        &mut self,
        d: &Deployment,
        rs: &ReplicaSet,
        to: i32,
        op: &str,
    ) -> Option<ReplicaSet> {
        let from = rs_replicas(rs);
        let mut copy = rs.clone();
        let annotations_changed = set_replicas_annotations(
            &mut copy,
            desired(d),
            desired(d).saturating_add(max_surge(d)),
        );
        if from == to && !annotations_changed {
            return None;
        }
        copy.spec.replicas = Some(to);
        let written = match self
            .update_as(ACTOR, Object::ReplicaSet(Box::new(copy)))
            .map(std::sync::Arc::unwrap_or_clone)
        {
            Ok(Object::ReplicaSet(w)) => w,
            _ => return None,
        };
        if from == to {
            return None;
        }
        self.record_event(
            &Object::Deployment(Box::new(d.clone())),
            COMPONENT,
            None,
            "Normal",
            "ScalingReplicaSet",
            format!(
                "Scaled {op} replica set {} from {from} to {to}",
                rs_name(rs)
            ),
        );
        Some(*written)
    }

    /// `isScalingEvent`: an active ReplicaSet was sized for another replica count.
    fn is_scaling_event(&mut self, d: &Deployment) -> bool {
        let (new_rs, olds) = self.split_replica_sets(d);
        new_rs
            .iter()
            .chain(olds.iter())
            .filter(|rs| rs_replicas(rs) > 0)
            .any(|rs| {
                annotation(&rs.metadata, DESIRED_REPLICAS)
                    .and_then(|v| v.parse::<i32>().ok())
                    .is_some_and(|v| v != desired(d))
            })
    }

    /// `sync`: scaling events and paused Deployments. Scales proportionally, cleans
    /// up old ReplicaSets while paused, and writes status.
    fn sync_scale_only(&mut self, mut d: Deployment) -> Action {
        let Some((new_rs, olds)) = self.sync_revision(&mut d, false) else {
            return Action::Requeue;
        };
        self.scale(&d, new_rs.as_ref(), &olds);
        if d.spec.paused == Some(true) {
            let (_, olds) = self.split_replica_sets(&d);
            self.cleanup_deployment(&d, &olds);
        }
        let (new_rs, olds) = self.split_replica_sets(&d);
        self.sync_deployment_status(&d, new_rs.as_ref(), &olds);
        Action::Done
    }

    /// `scale`: one active ReplicaSet takes the whole size; a saturated new one sends
    /// the old ones to zero; otherwise a rolling Deployment's extra (or missing)
    /// replicas are spread over the active ReplicaSets in proportion to their size.
    fn scale(&mut self, d: &Deployment, new_rs: Option<&ReplicaSet>, olds: &[ReplicaSet]) {
        let mut all: Vec<ReplicaSet> = olds.to_vec();
        all.extend(new_rs.cloned());
        let active: Vec<ReplicaSet> = all
            .iter()
            .filter(|rs| rs_replicas(rs) > 0)
            .cloned()
            .collect();
        // FindActiveOrLatest
        let active_or_latest = match active.len() {
            0 => new_rs
                .cloned()
                .or_else(|| olds.iter().max_by_key(|rs| creation_key(rs)).cloned()),
            1 => Some(active[0].clone()),
            _ => None,
        };
        if let Some(rs) = active_or_latest {
            if rs_replicas(&rs) != desired(d) {
                self.scale_and_record(d, &rs, desired(d));
            }
            return;
        }
        // IsSaturated
        let saturated = new_rs.is_some_and(|rs| {
            annotation(&rs.metadata, DESIRED_REPLICAS).and_then(|v| v.parse::<i32>().ok())
                == Some(desired(d))
                && rs_replicas(rs) == desired(d)
                && rs_available(rs) == desired(d)
        });
        if saturated {
            for rs in olds.iter().filter(|rs| rs_replicas(rs) > 0) {
                self.scale_and_record(d, rs, 0);
            }
            return;
        }
        if !is_rolling(d) {
            return;
        }
        let mut active = active;
        let total: i32 = active.iter().map(rs_replicas).sum();
        let allowed = if desired(d) > 0 {
            desired(d).saturating_add(max_surge(d))
        } else {
            0
        };
        let to_add = allowed - total;
        let op = match to_add.cmp(&0) {
            std::cmp::Ordering::Greater => {
                // ReplicaSetsBySizeNewer: larger first, then newer first.
                active.stable_sort_by(|a, b| {
                    rs_replicas(b)
                        .cmp(&rs_replicas(a))
                        .then_with(|| creation_key(b).cmp(&creation_key(a)))
                });
                "up"
            }
            std::cmp::Ordering::Less => {
                // ReplicaSetsBySizeOlder: larger first, then older first.
                active.stable_sort_by(|a, b| {
                    rs_replicas(b)
                        .cmp(&rs_replicas(a))
                        .then_with(|| creation_key(a).cmp(&creation_key(b)))
                });
                "down"
            }
            std::cmp::Ordering::Equal => "",
        };
        let mut added = 0;
        let mut sizes: Vec<i32> = Vec::with_capacity(active.len());
        for rs in &active {
            if to_add != 0 {
                let p = replica_set_proportion(rs, d, to_add, added);
                sizes.push(rs_replicas(rs) + p);
                added += p;
            } else {
                sizes.push(rs_replicas(rs));
            }
        }
        for (i, rs) in active.iter().enumerate() {
            if i == 0 && to_add != 0 {
                sizes[0] = (sizes[0] + to_add - added).max(0);
            }
            self.scale_replica_set(d, rs, sizes[i], op);
        }
    }

    /// `cleanupDeployment`: keeps revisionHistoryLimit old ReplicaSets; deletes the
    /// lowest revisions beyond it, skipping any that still have pods.
    fn cleanup_deployment(&mut self, d: &Deployment, olds: &[ReplicaSet]) {
        let Some(limit) = d.spec.revision_history_limit else {
            return;
        };
        let mut cleanable: Vec<&ReplicaSet> = olds
            .iter()
            .filter(|rs| rs.metadata.deletion_timestamp.is_none())
            .collect();
        let diff = cleanable.len() as i64 - limit.max(0) as i64;
        if diff <= 0 {
            return;
        }
        cleanable.stable_sort_by_key(|rs| (revision_of(rs).unwrap_or(0), creation_key(rs)));
        let victims: Vec<ObjectKey> = cleanable
            .into_iter()
            .take(diff as usize)
            .filter(|rs| {
                let observed = rs
                    .status
                    .as_ref()
                    .and_then(|s| s.observed_generation)
                    .unwrap_or(0);
                rs_status_replicas(rs) == 0
                    && rs_replicas(rs) == 0
                    && rs.metadata.generation.unwrap_or(0) <= observed
            })
            .map(|rs| Object::ReplicaSet(Box::new(rs.clone())).key())
            .collect();
        for key in victims {
            if self.delete_as(ACTOR, &key, None).is_err() {
                return;
            }
        }
    }

    /// `calculateStatus`: counts from the ReplicaSets, and the Available condition.
    fn calculate_status(
        &self,
        d: &Deployment,
        new_rs: Option<&ReplicaSet>,
        all: &[ReplicaSet],
    ) -> DeploymentStatus {
        let available: i32 = all.iter().map(rs_available).sum();
        let total: i32 = all.iter().map(rs_replicas).sum();
        let ready: i32 = all
            .iter()
            .map(|rs| {
                rs.status
                    .as_ref()
                    .and_then(|s| s.ready_replicas)
                    .unwrap_or(0)
            })
            .sum();
        let old = status_of(d);
        let mut status = DeploymentStatus {
            observed_generation: d.metadata.generation,
            replicas: omit_zero(all.iter().map(rs_status_replicas).sum()),
            updated_replicas: omit_zero(new_rs.map(rs_status_replicas).unwrap_or(0)),
            ready_replicas: omit_zero(ready),
            available_replicas: omit_zero(available),
            unavailable_replicas: omit_zero((total - available).max(0)),
            // `GetTerminatingReplicaCountForReplicaSets`: unknown if any ReplicaSet
            // has not reported it.
            terminating_replicas: all
                .iter()
                .map(|rs| rs.status.as_ref().and_then(|s| s.terminating_replicas))
                .sum::<Option<i32>>(),
            collision_count: old.collision_count,
            conditions: old.conditions.clone(),
        };
        let cond = if available >= desired(d) - max_unavailable(d) {
            new_condition(
                "Available",
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability.".into(),
                self.now,
            )
        } else {
            new_condition(
                "Available",
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.".into(),
                self.now,
            )
        };
        set_condition(&mut status, cond);
        status
    }

    /// `syncDeploymentStatus`: status without progress estimation (paused, scaling).
    fn sync_deployment_status(
        &mut self,
        d: &Deployment,
        new_rs: Option<&ReplicaSet>,
        olds: &[ReplicaSet],
    ) {
        let mut all = olds.to_vec();
        all.extend(new_rs.cloned());
        let status = self.calculate_status(d, new_rs, &all);
        if d.status.as_ref() != Some(&status) {
            let mut updated = d.clone();
            updated.status = Some(status);
            self.write_deployment(updated);
        }
    }

    /// `syncRolloutStatus`: status with the Progressing condition (complete,
    /// progressing, or timed out), read from the ReplicaSets as they are now.
    fn sync_rollout_status(&mut self, d: &Deployment) {
        let Some(Object::Deployment(d)) = self
            .store
            .get(&Object::Deployment(Box::new(d.clone())).key())
            .cloned()
        else {
            return;
        };
        let (new_rs, olds) = self.split_replica_sets(&d);
        let mut all = olds.clone();
        all.extend(new_rs.clone());
        let mut status = self.calculate_status(&d, new_rs.as_ref(), &all);
        if !has_progress_deadline(&d) {
            remove_condition(&mut status, "Progressing");
        }
        let current = condition(&status_of(&d), "Progressing").cloned();
        let complete_reported = num(status.replicas) == num(status.updated_replicas)
            && current.as_ref().and_then(|c| c.reason.as_deref()) == Some(NEW_RS_AVAILABLE_REASON);
        let dname = d.metadata.name.clone().unwrap_or_default();
        let subject = |what: &str| match &new_rs {
            Some(rs) => format!("ReplicaSet \"{}\" {what}", rs_name(rs)),
            None => format!("Deployment \"{dname}\" {what}"),
        };
        if has_progress_deadline(&d) && !complete_reported {
            if deployment_complete(&d, &status) {
                let msg = subject("has successfully progressed.");
                set_condition(
                    &mut status,
                    new_condition(
                        "Progressing",
                        "True",
                        NEW_RS_AVAILABLE_REASON,
                        msg,
                        self.now,
                    ),
                );
            } else if deployment_progressing(&d, &status) {
                let msg = subject("is progressing.");
                let mut cond =
                    new_condition("Progressing", "True", RS_UPDATED_REASON, msg, self.now);
                if let Some(c) = current
                    .as_ref()
                    .filter(|c| c.status.as_deref() == Some("True"))
                {
                    cond.last_transition_time = c.last_transition_time.clone();
                }
                remove_condition(&mut status, "Progressing");
                set_condition(&mut status, cond);
            } else if deployment_timed_out(&d, &status, self.now) {
                let msg = subject("has timed out progressing.");
                set_condition(
                    &mut status,
                    new_condition("Progressing", "False", TIMED_OUT_REASON, msg, self.now),
                );
            }
        }
        // getReplicaFailures: the new ReplicaSet's ReplicaFailure first, else an old
        // one's, becomes the Deployment's.
        let failure = new_rs
            .iter()
            .chain(olds.iter())
            .flat_map(|rs| rs.status.iter().flat_map(|s| s.conditions.iter().flatten()))
            .find(|c| c.type_.as_deref() == Some("ReplicaFailure"))
            .cloned();
        match failure {
            Some(c) => set_condition(
                &mut status,
                DeploymentCondition {
                    type_: Some("ReplicaFailure".into()),
                    status: c.status,
                    reason: c.reason,
                    message: c.message,
                    last_update_time: c.last_transition_time.clone(),
                    last_transition_time: c.last_transition_time,
                },
            ),
            None => remove_condition(&mut status, "ReplicaFailure"),
        }
        if d.status.as_ref() == Some(&status) {
            self.requeue_stuck_deployment(&d, &status);
            return;
        }
        let mut updated = d;
        updated.status = Some(status);
        self.write_deployment(*updated);
    }

    /// `requeueStuckDeployment`: look again when the progress deadline passes.
    fn requeue_stuck_deployment(&mut self, d: &Deployment, new_status: &DeploymentStatus) {
        let old_status = status_of(d);
        let Some(cond) = condition(&old_status, "Progressing") else {
            return;
        };
        if !has_progress_deadline(d)
            || deployment_complete(d, new_status)
            || cond.reason.as_deref() == Some(TIMED_OUT_REASON)
        {
            return;
        }
        let Some(deadline) = progress_deadline(d, cond) else {
            return;
        };
        // Upstream adds a second against clock skew; a deadline already (nearly)
        // reached is looked at again the first millisecond after it passes.
        let at = if deadline.since(self.now) >= SimDuration::secs(1) {
            deadline + SimDuration::secs(1)
        } else {
            deadline.max(self.now) + SimDuration::millis(1)
        };
        self.enqueue_after(ID, Object::Deployment(Box::new(d.clone())).key(), at);
    }

    /// `rolloutRolling`.
    fn rollout_rolling(&mut self, mut d: Deployment) -> Action {
        let Some((Some(new_rs), olds)) = self.sync_revision(&mut d, true) else {
            return Action::Requeue;
        };
        let mut all = olds.clone();
        all.push(new_rs.clone());
        if self.reconcile_new_replica_set(&d, &new_rs, &all) {
            self.sync_rollout_status(&d);
            return Action::Done;
        }
        let active_olds: Vec<ReplicaSet> = olds
            .iter()
            .filter(|rs| rs_replicas(rs) > 0)
            .cloned()
            .collect();
        if self.reconcile_old_replica_sets(&d, &new_rs, active_olds, &all) {
            self.sync_rollout_status(&d);
            return Action::Done;
        }
        if deployment_complete(&d, &status_of(&d)) {
            self.cleanup_deployment(&d, &olds);
        }
        self.sync_rollout_status(&d);
        Action::Done
    }

    /// `reconcileNewReplicaSet`: scale the new ReplicaSet up within maxSurge (or down
    /// to the Deployment's size).
    fn reconcile_new_replica_set(
        &mut self,
        d: &Deployment,
        new_rs: &ReplicaSet,
        all: &[ReplicaSet],
    ) -> bool {
        let want = desired(d);
        let have = rs_replicas(new_rs);
        if have == want {
            return false;
        }
        if have > want {
            return self.scale_and_record(d, new_rs, want).is_some();
        }
        // NewRSNewReplicas for RollingUpdate.
        let current: i32 = all.iter().map(rs_replicas).sum();
        let max_total = want.saturating_add(max_surge(d));
        let to = if current >= max_total {
            have
        } else {
            have + (max_total - current).min(want - have)
        };
        self.scale_and_record(d, new_rs, to).is_some()
    }

    /// `reconcileOldReplicaSets`: scale old ReplicaSets down as far as maxUnavailable
    /// allows, their unhealthy replicas first (`cleanupUnhealthyReplicas`), then
    /// `scaleDownOldReplicaSetsForRollingUpdate`, oldest ReplicaSets first.
    fn reconcile_old_replica_sets(
        &mut self,
        d: &Deployment,
        new_rs: &ReplicaSet,
        mut olds: Vec<ReplicaSet>,
        all: &[ReplicaSet],
    ) -> bool {
        let old_count: i32 = olds.iter().map(rs_replicas).sum();
        if old_count == 0 {
            return false;
        }
        let all_count: i32 = all.iter().map(rs_replicas).sum();
        let min_available = desired(d) - max_unavailable(d);
        let new_unavailable = rs_replicas(new_rs) - rs_available(new_rs);
        let max_scaled_down = all_count - min_available - new_unavailable;
        if max_scaled_down <= 0 {
            return false;
        }
        olds.stable_sort_by_key(creation_key);
        // cleanupUnhealthyReplicas
        let mut cleaned = 0;
        for rs in olds.iter_mut() {
            if cleaned >= max_scaled_down {
                break;
            }
            let n = rs_replicas(rs);
            if n == 0 || n == rs_available(rs) {
                continue;
            }
            let down = (max_scaled_down - cleaned).min(n - rs_available(rs));
            if let Some(w) = self.scale_and_record(d, rs, n - down) {
                *rs = w;
            }
            cleaned += down;
        }
        // scaleDownOldReplicaSetsForRollingUpdate
        let available: i32 = olds.iter().map(rs_available).sum::<i32>() + rs_available(new_rs);
        let mut scaled = 0;
        if available > min_available {
            let total = available - min_available;
            for rs in olds.iter() {
                if scaled >= total {
                    break;
                }
                let n = rs_replicas(rs);
                if n == 0 {
                    continue;
                }
                let down = n.min(total - scaled);
                self.scale_and_record(d, rs, n - down);
                scaled += down;
            }
        }
        cleaned + scaled > 0
    }

    /// `rolloutRecreate`: old ReplicaSets to zero, wait until none of their pods is
    /// left running, then create (or scale up) the new one at full size.
    fn rollout_recreate(&mut self, mut d: Deployment) -> Action {
        let Some((new_rs, olds)) = self.sync_revision(&mut d, false) else {
            return Action::Requeue;
        };
        let mut scaled_down = false;
        for rs in olds.iter().filter(|rs| rs_replicas(rs) > 0) {
            scaled_down |= self.scale_and_record(&d, rs, 0).is_some();
        }
        if scaled_down {
            self.sync_rollout_status(&d);
            return Action::Done;
        }
        if self.old_pods_running(&olds) {
            self.sync_rollout_status(&d);
            return Action::Done;
        }
        let new_rs = match new_rs {
            Some(rs) => rs,
            None => match self.sync_revision(&mut d, true) {
                Some((Some(rs), _)) => rs,
                _ => return Action::Requeue,
            },
        };
        self.scale_and_record(&d, &new_rs, desired(&d));
        if deployment_complete(&d, &status_of(&d)) {
            self.cleanup_deployment(&d, &olds);
        }
        self.sync_rollout_status(&d);
        Action::Done
    }

    /// `oldPodsRunning`: an old ReplicaSet still counts pods, or owns a pod that has
    /// not finished (terminating pods included).
    fn old_pods_running(&self, olds: &[ReplicaSet]) -> bool {
        if olds.iter().map(rs_status_replicas).sum::<i32>() > 0 {
            return true;
        }
        olds.iter().any(|rs| {
            let uid = rs.metadata.uid.as_deref().unwrap_or("");
            self.owned_pods(uid).any(|p| {
                !matches!(
                    p.status.as_ref().and_then(|s| s.phase.as_deref()),
                    Some("Succeeded") | Some("Failed")
                )
            })
        })
    }

    /// The Deployment that controls the ReplicaSet that controlled a deleted pod, if
    /// it uses the Recreate strategy (upstream `deletePod`: Recreate waits for the
    /// last old pod to go).
    pub(crate) fn recreate_deployment_of_pod(&self, rs_key: &ObjectKey) -> Option<ObjectKey> {
        let rs = self.store.get(rs_key)?;
        let d_key = crate::cluster::controller_of(rs, Kind::Deployment)?;
        match self.store.get(&d_key)? {
            Object::Deployment(d) if !is_rolling(d) => Some(d_key),
            _ => None,
        }
    }
}

/// `SetDeploymentRevision`.
fn set_deployment_revision(d: &mut Deployment, revision: &str) -> bool {
    let ann = d.metadata.annotations.get_or_insert_with(BTreeMap::new);
    if ann.get(REVISION).map(String::as_str) == Some(revision) {
        return false;
    }
    ann.insert(REVISION.into(), revision.to_string());
    true
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

    #[test]
    fn rollback_reuse_keeps_revision_history() {
        let d = Deployment::default();
        let mut rs = ReplicaSet::default();
        rs.metadata.annotations = Some(BTreeMap::from([(REVISION.to_string(), "1".to_string())]));
        assert!(set_new_rs_annotations(&d, &mut rs, 3, true));
        let ann = rs.metadata.annotations.unwrap();
        assert_eq!(ann[REVISION], "3");
        assert_eq!(ann[REVISION_HISTORY], "1");
    }

    #[test]
    fn conditions_keep_transition_time_while_status_stays() {
        let mut s = DeploymentStatus::default();
        set_condition(
            &mut s,
            new_condition("Progressing", "True", NEW_RS_REASON, "a".into(), SimTime(0)),
        );
        set_condition(
            &mut s,
            new_condition(
                "Progressing",
                "True",
                RS_UPDATED_REASON,
                "b".into(),
                SimTime(5000),
            ),
        );
        let c = condition(&s, "Progressing").unwrap();
        assert_eq!(c.last_transition_time, Some(SimTime(0).to_k8s()));
        assert_eq!(c.last_update_time, Some(SimTime(5000).to_k8s()));
    }
}
