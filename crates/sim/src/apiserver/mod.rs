//! The reception desk (kube-apiserver). Every read and write goes through here, in
//! upstream order: authentication → authorization → mutating admission (defaulting)
//! → validation → validating admission → the store. Each request is recorded.

use crate::cluster::Cluster;
use crate::error::{ApiError, StatusReason};
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::{CollectMap, CollectSet};
use crate::time::SimTime;
use k8s_openapi::api::apps::v1::{Deployment, DeploymentStrategy, RollingUpdateDeployment};
use k8s_openapi::api::core::v1::{
    Event, EventSource, Namespace, NamespaceSpec, NamespaceStatus, ObjectReference, Pod, PodSpec,
    PodStatus, Toleration,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::BTreeMap;
use std::sync::Arc;

pub mod admission;
pub mod auth;
pub mod custom;
pub mod ephemeral;
pub mod events;
pub mod eviction;
pub mod fields;
pub mod health;
pub mod priority;
pub mod quota;
pub mod request;
pub mod store;
pub(crate) mod validation;
pub mod watch;

/// The apiserver's own timers.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum ApiserverTimer {
    /// An Event object reaches its time to live.
    EventExpiry(ObjectKey),
    /// The `kubernetes` Service controller's reconcile (`--endpoint-reconciler`
    /// interval, 10 s): the Service, its Endpoints and EndpointSlice put back
    /// (`services.rs`).
    KubernetesService,
    /// The RBAC post-start hook (`EnsureRBACPolicy`): missing bootstrap
    /// ClusterRoles and ClusterRoleBindings created (`auth.rs`).
    RbacBootstrap,
}

impl crate::runtime::components::Timers for ApiserverTimer {
    const DESCRIPTIONS: &'static [&'static str] = &[
        "event TTL",
        "kubernetes service reconcile interval",
        "apiserver start (rbac bootstrap)",
    ];

    fn describe(&self) -> &'static str {
        Self::DESCRIPTIONS[match self {
            ApiserverTimer::EventExpiry(_) => 0,
            ApiserverTimer::KubernetesService => 1,
            ApiserverTimer::RbacBootstrap => 2,
        }]
    }

    fn held(&self, c: &Cluster) -> bool {
        match self {
            // etcd expires the Event's lease itself; only etcd must be up.
            ApiserverTimer::EventExpiry(_) => c.check_storage().is_err(),
            ApiserverTimer::KubernetesService | ApiserverTimer::RbacBootstrap => !c.api_writable(),
        }
    }

    fn fire(self, c: &mut Cluster) {
        match self {
            ApiserverTimer::EventExpiry(key) => c.expire_event(&key),
            ApiserverTimer::KubernetesService => c.reconcile_kubernetes_service(),
            ApiserverTimer::RbacBootstrap => c.ensure_rbac_policy(),
        }
    }
}

/// The calls `probe.rs` makes, which compile here: the apiserver writes its store
/// (`cargo xtask invariants`).
#[cfg(warehouse_probe)]
#[allow(dead_code)]
fn inside_the_apiserver(c: &mut Cluster, obj: Object, key: &ObjectKey) {
    let _ = c.store.create(obj.clone());
    let _ = c.store.update(obj.clone());
    let _ = c.store.remove(key);
    let _ = store::Store::restored(vec![obj], 1);
    c.store.limits = Default::default();
}

/// Controllers whose event recorders name them otherwise than their controller's
/// id (the node lifecycle controller records as `node-controller`; the cloud
/// controller's service controller is not one of the controller manager's).
const OTHER_EVENT_SOURCES: &[&str] = &["node-controller", "service-controller"];

/// Who writes an Event a component's recorder emits: the component itself (the
/// scheduler, a node's kubelet, a controller's service account), as upstream's
/// recorders write through each component's own client.
fn event_writer(component: &str, host: Option<&str>) -> Actor {
    match (component, host) {
        ("default-scheduler", _) => Actor::Scheduler,
        ("kubelet", Some(node)) => Actor::Kubelet(node.to_string()),
        // A controller writes its events as its own service account.
        (c, _) => crate::controllers::manager::CONTROLLERS
            .iter()
            .map(|k| k.id().name())
            .chain(OTHER_EVENT_SOURCES.iter().copied())
            .find(|n| *n == c)
            .map_or(Actor::System, Actor::Controller),
    }
}

/// Who is making a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Actor {
    /// The cluster's own bootstrap writes.
    System,
    /// A person: the identity the desk authenticated (and, with impersonation,
    /// the one it was asked to act as). `kubectl` without flags is
    /// `kubernetes-admin`, in `system:masters`.
    User(crate::apiserver::auth::Caller),
    Controller(&'static str),
    Scheduler,
    Kubelet(String),
}

impl Actor {
    /// The cluster administrator (kubectl's default user).
    pub fn admin() -> Actor {
        Actor::User(crate::apiserver::auth::Caller::admin())
    }

    /// The username the apiserver authenticates.
    pub fn username(&self) -> String {
        match self {
            Actor::System => "system:apiserver".into(),
            Actor::User(caller) => caller.user.clone(),
            Actor::Controller(name) => format!("system:serviceaccount:kube-system:{name}"),
            Actor::Scheduler => "system:kube-scheduler".into(),
            Actor::Kubelet(node) => format!("system:node:{node}"),
        }
    }
}

/// The verbs a [`RequestRecord`] can hold (writes are what the desk records).
pub const REQUEST_VERBS: [&str; 4] = ["create", "update", "delete", "patch"];

/// One request as the reception desk saw it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RequestRecord {
    pub at: SimTime,
    pub user: String,
    #[serde(with = "crate::snapshot::request_verb")]
    pub verb: crate::snapshot::StaticStr,
    pub resource: String,
    pub namespace: String,
    pub name: String,
    /// HTTP status code of the answer.
    pub code: u16,
    /// The stages the request went through, in upstream order, each with its verdict.
    /// A refused request ends at the stage that refused it.
    pub stages: Vec<(Stage, bool)>,
    /// Modelled time each stage took, in microseconds, parallel to `stages`
    /// ([`Stage::model_micros`]). The simulated apiserver itself answers within the
    /// same simulated instant: this is what the request would have cost, for the
    /// reception desk's animation and its latency column.
    #[serde(default)]
    pub micros: Vec<u32>,
}

/// Whether a user is a person rather than a component of the cluster (whose users
/// are all `system:...`).
pub fn user_is_learner(user: &str) -> bool {
    !user.starts_with("system:")
}

impl RequestRecord {
    /// `deployments/web`; the resource alone for a create refused before it had a name.
    pub fn target(&self) -> String {
        match (self.name.is_empty(), self.resource.split_once('/')) {
            (true, _) => self.resource.clone(),
            // A subresource, as its URL path names it: `pods/web-1/eviction`.
            (false, Some((resource, sub))) => format!("{resource}/{}/{sub}", self.name),
            (false, None) => format!("{}/{}", self.resource, self.name),
        }
    }

    /// Made by a person (kubectl, the UI, a script), not by a component of the
    /// cluster (whose users are all `system:...`).
    pub fn by_learner(&self) -> bool {
        user_is_learner(&self.user)
    }

    /// The modelled latency of the whole request, in microseconds.
    pub fn latency_micros(&self) -> u32 {
        self.micros.iter().sum()
    }
}

/// The stages of the apiserver's request pipeline, in order (the reception desk's
/// checks).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Stage {
    Authentication,
    Authorization,
    MutatingAdmission,
    Validation,
    ValidatingAdmission,
    Storage,
}

impl Stage {
    pub const ALL: [Stage; 6] = [
        Stage::Authentication,
        Stage::Authorization,
        Stage::MutatingAdmission,
        Stage::Validation,
        Stage::ValidatingAdmission,
        Stage::Storage,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Authentication => "authentication",
            Stage::Authorization => "authorization",
            Stage::MutatingAdmission => "mutating admission",
            Stage::Validation => "validation",
            Stage::ValidatingAdmission => "validating admission",
            Stage::Storage => "storage",
        }
    }

    /// The stage an error comes from, judged by its reason and text.
    pub fn of_error(e: &ApiError) -> Stage {
        match e.reason {
            StatusReason::Unauthorized => Stage::Authentication,
            StatusReason::Forbidden
                if e.message.contains(" cannot ") && e.message.contains("resource") =>
            {
                Stage::Authorization
            }
            StatusReason::Forbidden => Stage::ValidatingAdmission,
            // NamespaceLifecycle refuses objects in a namespace that does not exist.
            StatusReason::NotFound if e.message.starts_with("namespaces ") => {
                Stage::ValidatingAdmission
            }
            StatusReason::Invalid
            | StatusReason::BadRequest
            | StatusReason::RequestEntityTooLarge => Stage::Validation,
            _ => Stage::Storage,
        }
    }

    /// The verdicts of a request that passed every stage up to `failed` (or all).
    /// The latency model: how long this stage takes for one write, in microseconds.
    ///
    /// The figures are orders of magnitude from a healthy small cluster, not
    /// measurements: an authentication cache hit and an RBAC check cost tens of
    /// microseconds, admission and validation of one object under a tenth of a
    /// millisecond, and the etcd write dominates: a WAL fsync on an SSD (about 1.5 ms)
    /// plus, with more than one member, one round trip to the followers for the Raft
    /// commit (about 0.5 ms). A refused request still spends the time of the stage
    /// that refused it.
    pub fn model_micros(self, etcd_members: usize) -> u32 {
        match self {
            Stage::Authentication => 30,
            Stage::Authorization => 20,
            Stage::MutatingAdmission => 80,
            Stage::Validation => 60,
            Stage::ValidatingAdmission => 40,
            Stage::Storage if etcd_members > 1 => 2_000,
            Stage::Storage => 1_500,
        }
    }

    pub fn verdicts(failed: Option<Stage>) -> Vec<(Stage, bool)> {
        Stage::ALL
            .into_iter()
            .take_while(|s| failed.is_none_or(|f| *s <= f))
            .map(|s| (s, failed != Some(s)))
            .collect()
    }
}

/// The most objects of one kind the store accepts (pods have [`MAX_PODS`]): an
/// explicit limit so a typo such as `replicas: 1000000` fails cleanly instead of
/// exhausting a browser tab.
pub const MAX_OBJECTS_PER_KIND: usize = 50_000;
/// The most pods the cluster holds in all namespaces: Kubernetes' scalability
/// envelope (150,000 pods on 5,000 nodes). Past it a create is refused with 403, as
/// a quota refuses, and a controller records FailedCreate.
pub const MAX_PODS: usize = 150_000;
/// The most objects of every kind but Events the cluster holds together: the pods
/// and room for the rest. Events are kept apart, at most [`MAX_OBJECTS_PER_KIND`]
/// of them, so a storm of Events never keeps a pod from being created.
pub const MAX_OBJECTS: usize = 250_000;
/// The largest `replicas` a Deployment or ReplicaSet may ask for.
pub const MAX_REPLICAS: i32 = 20_000;

/// The largest request body the apiserver reads (`MaxRequestBodyBytes`,
/// k8s.io/apiserver/pkg/server/config.go: 3 MiB), measured here as the object's
/// size ([`crate::store::object_size_bytes`]) as the client sent it. Past it: 413
/// `Request entity too large: limit is 3145728`.
pub const MAX_REQUEST_BODY_BYTES: usize = 3 * 1024 * 1024;

/// The most bytes an object's annotations hold, keys and values together
/// (apimachinery `TotalAnnotationSizeLimitB`, pkg/api/validation/objectmeta.go).
pub const MAX_ANNOTATIONS_BYTES: usize = 256 * 1024;

/// The most bytes a ConfigMap's `data` and `binaryData`, or a Secret's `data`, hold
/// together (core `MaxSecretSize`, pkg/apis/core/types.go: 1 MiB).
pub const MAX_CONFIG_DATA_BYTES: usize = 1024 * 1024;

/// The apiserver's body limit ([`MAX_REQUEST_BODY_BYTES`]), checked before anything
/// else reads the request (`limitedReadBody` in the handlers).
/// The request body limit for a write `actor` sends. A component's body is built
/// from objects etcd already holds (each at most [`crate::store::MAX_ETCD_VALUE_BYTES`],
/// half this limit), so only what users send is measured here; etcd measures every
/// write again as it stores it.
fn checked_body(actor: &Actor, obj: &Object) -> Result<(), ApiError> {
    match actor {
        Actor::User(_) => check_request_body(obj),
        _ => Ok(()),
    }
}

fn check_request_body(obj: &Object) -> Result<(), ApiError> {
    if crate::store::object_size_bytes(obj) > MAX_REQUEST_BODY_BYTES {
        return Err(ApiError::new(
            StatusReason::RequestEntityTooLarge,
            format!("Request entity too large: limit is {MAX_REQUEST_BODY_BYTES}"),
        ));
    }
    Ok(())
}

/// apimachinery `field.TooLong` as 1.32 and later render it (the value is left out).
fn too_long(path: &str, limit: usize) -> FieldError {
    FieldError(format!(
        "{path}: Too long: may not be more than {limit} bytes"
    ))
}

/// `ValidateAnnotationsSize`: keys and values together.
fn check_annotations_size(
    annotations: Option<&std::collections::BTreeMap<String, String>>,
    path: &str,
    errors: &mut Vec<FieldError>,
) {
    let total = annotations.into_iter().flatten().fold(0usize, |n, (k, v)| {
        n.saturating_add(k.len()).saturating_add(v.len())
    });
    if total > MAX_ANNOTATIONS_BYTES {
        errors.push(too_long(path, MAX_ANNOTATIONS_BYTES));
    }
}

/// `ValidateConfigMap`'s and `ValidateSecret`'s total size. A ConfigMap's error names
/// the whole object (`field.NewPath("")`, printed `[]`); a Secret's names `data`.
/// The apiserver merges a Secret's `stringData` into `data` before validating, so
/// both count (a key in both counted once, as `stringData`'s value wins).
fn check_data_size(obj: &Object, errors: &mut Vec<FieldError>) {
    let (total, path) = match obj {
        Object::ConfigMap(cm) => {
            let data = cm.data.iter().flatten().map(|(_, v)| v.len());
            let binary = cm.binary_data.iter().flatten().map(|(_, v)| v.0.len());
            (data.chain(binary).fold(0usize, usize::saturating_add), "[]")
        }
        Object::Secret(secret) => {
            let strings = secret.string_data.as_ref();
            let data = secret
                .data
                .iter()
                .flatten()
                .filter(|(k, _)| !strings.is_some_and(|s| s.contains_key(*k)))
                .map(|(_, v)| v.0.len());
            let string_data = strings.into_iter().flatten().map(|(_, v)| v.len());
            (
                data.chain(string_data).fold(0usize, usize::saturating_add),
                "data",
            )
        }
        _ => return,
    };
    if total > MAX_CONFIG_DATA_BYTES {
        errors.push(too_long(path, MAX_CONFIG_DATA_BYTES));
    }
}
/// `ValidateConfigMap`'s and `ValidateSecret`'s keys: each must be a config key
/// (`IsConfigMapKey`, apimachinery validation.go), and a ConfigMap key may not be in
/// both `data` and `binaryData`.
fn check_data_keys(obj: &Object, errors: &mut Vec<FieldError>) {
    let check = |path: &str, key: &str, errors: &mut Vec<FieldError>| {
        for why in config_key_problems(key) {
            errors.push(FieldError(format!(
                "{path}[{key}]: Invalid value: \"{key}\": {why}"
            )));
        }
    };
    match obj {
        Object::ConfigMap(cm) => {
            for key in cm.data.iter().flat_map(|d| d.keys()) {
                check("data", key, errors);
                if cm.binary_data.as_ref().is_some_and(|b| b.contains_key(key)) {
                    errors.push(FieldError(format!(
                        "data[{key}]: Invalid value: \"{key}\": duplicate of key present in binaryData"
                    )));
                }
            }
            for key in cm.binary_data.iter().flat_map(|d| d.keys()) {
                check("binaryData", key, errors);
            }
        }
        Object::Secret(secret) => {
            // `stringData` is merged into `data` before validation: its keys are
            // named as `data`'s.
            let keys: std::collections::BTreeSet<&String> = secret
                .data
                .iter()
                .flat_map(|d| d.keys())
                .chain(secret.string_data.iter().flat_map(|d| d.keys()))
                .collect_set();
            for key in keys {
                check("data", key, errors);
            }
        }
        _ => {}
    }
}

/// apimachinery `IsConfigMapKey`.
fn config_key_problems(key: &str) -> Vec<&'static str> {
    let mut problems = Vec::new();
    if key.len() > 253 {
        problems.push("must be no more than 253 characters");
    }
    if key.is_empty()
        || !key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        problems.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
    }
    match key {
        "." => problems.push("must not be '.'"),
        ".." => problems.push("must not be '..'"),
        k if k.starts_with("..") => problems.push("must not start with '..'"),
        _ => {}
    }
    problems
}

/// Events live this long (`--event-ttl`).
pub const EVENT_TTL: crate::time::SimDuration = crate::time::SimDuration::secs(3600);

/// What happens to an object's dependents when it is deleted (`propagationPolicy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Propagation {
    /// The object goes at once; the garbage collector deletes its dependents after.
    #[default]
    Background,
    /// The object stays (finalizer `foregroundDeletion`) until the dependents that
    /// block it are gone.
    Foreground,
    /// The dependents stay, without their owner reference (finalizer `orphan`).
    Orphan,
}

/// A delete request's options (`metav1.DeleteOptions`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeleteOptions {
    /// Overrides the pod's `terminationGracePeriodSeconds`; 0 removes at once.
    pub grace_period_seconds: Option<i64>,
    pub propagation: Propagation,
}

/// The finalizers an object has after a delete request (upstream
/// `deletionFinalizersForGarbageCollection`): the GC finalizers replaced by the one
/// the policy asks for. Without a policy, the ones already there stay.
fn gc_finalizers(meta: &ObjectMeta, propagation: Option<Propagation>) -> Vec<String> {
    use crate::controllers::garbage_collector::{FOREGROUND_FINALIZER, ORPHAN_FINALIZER};
    let existing = meta.finalizers.clone().unwrap_or_default();
    let Some(propagation) = propagation else {
        return existing;
    };
    let mut out: Vec<String> = existing
        .into_iter()
        .filter(|f| f != ORPHAN_FINALIZER && f != FOREGROUND_FINALIZER)
        .collect();
    match propagation {
        Propagation::Orphan => out.push(ORPHAN_FINALIZER.into()),
        Propagation::Foreground => out.push(FOREGROUND_FINALIZER.into()),
        Propagation::Background => {}
    }
    out
}

/// Whether an update removes the object (upstream `ShouldDeleteDuringUpdate`): it
/// takes away the last finalizer of an object being deleted with no grace period
/// left to run.
fn should_delete_during_update(old: &Object, new: &Object) -> bool {
    let (o, n) = (old.meta(), new.meta());
    let stale = n
        .resource_version
        .as_deref()
        .is_some_and(|rv| !rv.is_empty() && Some(rv) != o.resource_version.as_deref());
    !stale
        && n.finalizers.as_ref().is_none_or(Vec::is_empty)
        && o.finalizers.as_ref().is_some_and(|f| !f.is_empty())
        && o.deletion_timestamp.is_some()
        && o.deletion_grace_period_seconds.is_none_or(|g| g == 0)
}

pub(crate) fn namespace_object(name: &str) -> Object {
    Object::Namespace(Box::new(Namespace {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            ..Default::default()
        },
        ..Default::default()
    }))
}

impl Cluster {
    /// A partitioned node's kubelet cannot reach the apiserver: its requests time out.
    fn reachable_from(&self, actor: &Actor) -> Result<(), ApiError> {
        match actor {
            Actor::Kubelet(node) if !self.kubelet_reachable(node) => Err(ApiError::new(
                StatusReason::ServiceUnavailable,
                "dial tcp 172.18.0.2:6443: i/o timeout (the node is partitioned from the control plane)",
            )),
            _ => Ok(()),
        }
    }

    pub(crate) fn create_as(
        &mut self,
        actor: Actor,
        mut obj: Object,
    ) -> Result<Arc<Object>, ApiError> {
        let attempted = obj.key();
        let body = checked_body(&actor, &obj);
        self.serve_write(actor, "create", &attempted, |c| {
            body?;
            c.admit_create(&mut obj, false)?;
            c.check_storage()?;
            let managed = c.fields_after(None, &obj);
            let ev = c.store.create(obj)?;
            if let Some(m) = managed {
                c.store.set_managed_fields(ev.object.key(), m);
            }
            c.dispatch(&ev);
            Ok(ev.object)
        })
    }

    /// A write as `actor` from arrival to the request log: the apiserver must be up
    /// and reachable from the caller; `serve` runs the pipeline; the outcome is
    /// recorded under `verb` (for a refusal, against the key `attempted`).
    fn serve_write(
        &mut self,
        actor: Actor,
        verb: &'static str,
        attempted: &ObjectKey,
        serve: impl FnOnce(&mut Self) -> Result<Arc<Object>, ApiError>,
    ) -> Result<Arc<Object>, ApiError> {
        self.connect_as()?;
        self.reachable_from(&actor)?;
        let arrived = self.feed.next_seq();
        self.current_actor = actor.username();
        self.writer = Some(self.writer_of(&actor));
        let result = serve(self);
        self.record_request(&actor, verb, &result, Some(attempted), arrived);
        result
    }

    /// `dryRun=All` for a create: the whole pipeline runs (defaulting, admission,
    /// validation, the AlreadyExists check) but nothing is stored or charged.
    pub(crate) fn create_dry_run(&mut self, mut obj: Object) -> Result<Object, ApiError> {
        check_request_body(&obj)
            .and_then(|()| self.admit_create(&mut obj, true))
            .and_then(|()| {
                if self.store.get(&obj.key()).is_some() {
                    let key = obj.key();
                    Err(ApiError::new(
                        StatusReason::AlreadyExists,
                        format!(
                            "{} \"{}\" already exists",
                            key.kind.qualified_plural(),
                            key.name
                        ),
                    ))
                } else {
                    Ok(obj)
                }
            })
    }

    /// `dryRun=All` for an update: admission and validation, nothing stored.
    pub(crate) fn update_dry_run(&mut self, mut obj: Object) -> Result<Object, ApiError> {
        check_request_body(&obj)
            .and_then(|()| self.admit_update(&mut obj, true))
            .map(|()| obj)
    }

    pub(crate) fn update_as(&mut self, actor: Actor, obj: Object) -> Result<Arc<Object>, ApiError> {
        self.write_as(actor, "update", obj)
    }

    /// An update (`PUT`, verb `update`) or a patch (verb `patch`, its result already
    /// merged by the client) as `actor`: the same pipeline, recorded under `verb`.
    pub(crate) fn write_as(
        &mut self,
        actor: Actor,
        verb: &'static str,
        obj: Object,
    ) -> Result<Arc<Object>, ApiError> {
        let attempted = obj.key();
        let body = checked_body(&actor, &obj);
        self.serve_write(actor, verb, &attempted, |c| {
            body?;
            c.update_inner(obj)
        })
    }

    /// An update's pipeline after the desk's gates, unrecorded: what a handler
    /// inside the apiserver (the eviction subresource) writes as part of the request
    /// it serves.
    pub(crate) fn update_inner(&mut self, mut obj: Object) -> Result<Arc<Object>, ApiError> {
        self.admit_update(&mut obj, false)?;
        self.check_storage()?;
        let key = obj.key();
        let finalized = self
            .store
            .get(&key)
            .is_some_and(|old| should_delete_during_update(old, &obj));
        let ev = if finalized {
            self.store.remove(&key)?
        } else {
            let old = self.store.get_shared(&key).cloned();
            let managed = self.fields_after(old.as_deref(), &obj);
            let ev = self.store.update(obj)?;
            if let Some(m) = managed {
                self.store.set_managed_fields(key, m);
            }
            ev
        };
        self.dispatch(&ev);
        Ok(ev.object)
    }

    /// The field manager of a write by `actor`: a person's request names its own
    /// (kubectl's per command, or `--field-manager`), else its user agent's
    /// (`kubectl`); the components write as their user agents name them.
    fn writer_of(&self, actor: &Actor) -> fields::Writer {
        let (manager, subresource, component) = match actor {
            Actor::User(_) => match &self.request_manager {
                Some((m, sub)) => (m.clone(), sub.clone(), false),
                None => ("kubectl".to_string(), String::new(), false),
            },
            Actor::System => ("kube-apiserver".to_string(), String::new(), true),
            // The cloud-controller-manager's service controller and the ingress
            // controller are programs of their own, with their own user agents.
            Actor::Controller("service-controller") => {
                ("cloud-controller-manager".to_string(), String::new(), true)
            }
            Actor::Controller("ingress-nginx") => {
                ("nginx-ingress-controller".to_string(), String::new(), true)
            }
            Actor::Controller(_) => ("kube-controller-manager".to_string(), String::new(), true),
            Actor::Scheduler => ("kube-scheduler".to_string(), String::new(), true),
            Actor::Kubelet(_) => ("kubelet".to_string(), String::new(), true),
        };
        fields::Writer {
            manager,
            subresource,
            component,
        }
    }

    /// The managedFields of `new` once written over `old` (`None`: created) by the
    /// current writer, or those a server-side apply computed; `None` for the kinds
    /// that keep none.
    fn fields_after(
        &mut self,
        old: Option<&Object>,
        new: &Object,
    ) -> Option<fields::ManagedFields> {
        if let Some(applied) = self.applied_fields.take() {
            return Some(applied);
        }
        if !fields::tracked(new.kind()) {
            return None;
        }
        let writer = self.writer.clone()?;
        let new_json = new.to_json();
        let old_json = match old {
            Some(o) => o.to_json(),
            None => fields::empty_like(&new_json),
        };
        let c = fields::compare(&old_json, &new_json);
        let entries = self.store.managed_fields(&new.key());
        let time = self.now_string();
        Some(fields::after_update(
            entries,
            &c,
            &writer,
            &new.api_version(),
            &time,
        ))
    }

    /// Now, as a Kubernetes timestamp prints (`2026-01-01T00:00:00Z`).
    pub(crate) fn now_string(&self) -> String {
        match crate::object::to_json_value(&self.now.to_k8s()) {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        }
    }

    /// Deletes an object. Pods bound to a node are deleted gracefully: they get a
    /// deletion timestamp and the kubelet removes them once their containers stop.
    /// `grace` overrides the pod's terminationGracePeriodSeconds; 0 removes at once.
    pub(crate) fn delete_as(
        &mut self,
        actor: Actor,
        key: &ObjectKey,
        grace: Option<i64>,
    ) -> Result<Arc<Object>, ApiError> {
        self.delete_with_options_as(actor, key, grace, None)
    }

    /// Deletes with a propagation policy (`None`: the policy the object's finalizers
    /// already ask for, else background). Foreground and orphan deletions add their
    /// finalizer; an object with finalizers gets a deletion timestamp and stays until
    /// they are removed.
    pub(crate) fn delete_with_options_as(
        &mut self,
        actor: Actor,
        key: &ObjectKey,
        grace: Option<i64>,
        propagation: Option<Propagation>,
    ) -> Result<Arc<Object>, ApiError> {
        self.connect_as()?;
        self.reachable_from(&actor)?;
        let arrived = self.feed.next_seq();
        self.current_actor = actor.username();
        let result = self.delete_inner(key, grace, propagation);
        self.record_request(&actor, "delete", &result, Some(key), arrived);
        result
    }

    pub(crate) fn delete_inner(
        &mut self,
        key: &ObjectKey,
        grace: Option<i64>,
        propagation: Option<Propagation>,
    ) -> Result<Arc<Object>, ApiError> {
        self.check_storage()?;
        let Some(current) = self.store.get_shared(key).cloned() else {
            return Err(ApiError::not_found(&key.kind.qualified_plural(), &key.name));
        };
        self.admit_priority_class_delete(key)?;
        if let Some(marked) = self.mark_definition_deleting(&current) {
            let ev = self.store.update(marked)?;
            self.dispatch(&ev);
            return Ok(ev.object);
        }
        let finalizers = gc_finalizers(current.meta(), propagation);
        if let Object::Pod(pod) = &*current {
            let bound = pod
                .spec
                .as_ref()
                .and_then(|s| s.node_name.as_ref())
                .is_some();
            let pod_grace = pod
                .spec
                .as_ref()
                .and_then(|s| s.termination_grace_period_seconds)
                .unwrap_or(30);
            // Upstream `CheckGracefulDelete`: a negative period is one second.
            let grace = match grace.unwrap_or(pod_grace) {
                g if g < 0 => 1,
                g => g,
            };
            let finished = matches!(
                pod.status.as_ref().and_then(|s| s.phase.as_deref()),
                Some("Succeeded") | Some("Failed")
            );
            if bound && grace > 0 && !finished {
                if current.meta().deletion_timestamp.is_some() {
                    // Already terminating: a second delete only shortens the grace
                    // period, which this simulation does not need (nor may it change
                    // the finalizers while the deletion is pending).
                    return Ok(current);
                }
                let mut updated = (*current).clone();
                let meta = updated.meta_mut();
                meta.deletion_timestamp =
                    Some((self.now + crate::time::SimDuration::from_secs_i64(grace)).to_k8s());
                meta.deletion_grace_period_seconds = Some(grace);
                meta.generation = Some(meta.generation.unwrap_or(1) + 1);
                meta.finalizers = (!finalizers.is_empty()).then_some(finalizers);
                let ev = self.store.update(updated)?;
                self.dispatch(&ev);
                return Ok(ev.object);
            }
        }
        if let Object::Namespace(ns) = &*current {
            // Namespaces are finalized by the namespace controller: Terminating
            // first, removed once empty.
            if ns.metadata.deletion_timestamp.is_some() {
                return Ok(current);
            }
            if matches!(
                key.name.as_str(),
                "default" | "kube-system" | "kube-public" | "kube-node-lease"
            ) {
                return Err(ApiError::new(
                    StatusReason::Forbidden,
                    format!(
                        "namespaces \"{}\" is forbidden: this namespace may not be deleted",
                        key.name
                    ),
                ));
            }
            let mut updated = (*current).clone();
            updated.meta_mut().deletion_timestamp = Some(self.now.to_k8s());
            if let Object::Namespace(n) = &mut updated {
                n.status.get_or_insert_with(Default::default).phase = Some("Terminating".into());
            }
            let ev = self.store.update(updated)?;
            self.dispatch(&ev);
            return Ok(ev.object);
        }
        if !finalizers.is_empty() {
            // Pending finalizers: mark as deleting (upstream `markAsDeleting`) and keep
            // the object until the last finalizer is removed.
            let mut updated = (*current).clone();
            let meta = updated.meta_mut();
            let now = self.now.to_k8s();
            if meta.deletion_timestamp.is_none() {
                meta.generation = meta.generation.map(|g| g + 1);
            }
            if meta.deletion_timestamp.as_ref().is_none_or(|t| t.0 > now.0) {
                meta.deletion_timestamp = Some(now);
            }
            meta.deletion_grace_period_seconds = Some(0);
            meta.finalizers = Some(finalizers);
            if updated == *current {
                return Ok(current);
            }
            let ev = self.store.update(updated)?;
            self.dispatch(&ev);
            return Ok(ev.object);
        }
        let ev = self.store.remove(key)?;
        if key.kind == Kind::Event {
            self.event_correlator.forget(key, None, self.now);
        }
        self.dispatch(&ev);
        Ok(ev.object)
    }

    /// The namespace's `finalize` subresource: removes an emptied, terminating
    /// namespace.
    pub(crate) fn finalize_namespace(&mut self, actor: Actor, key: &ObjectKey) {
        let arrived = self.feed.next_seq();
        self.current_actor = actor.username();
        let result = self
            .store
            .remove(key)
            .inspect(|ev| self.dispatch(ev))
            .map(|ev| ev.object);
        self.record_request(&actor, "update", &result, Some(key), arrived);
    }

    /// Records a request the desk answered; `arrived` is the change feed's position
    /// when it came in, so the feed lists it before the writes it made.
    fn record_request(
        &mut self,
        actor: &Actor,
        verb: &'static str,
        result: &Result<Arc<Object>, ApiError>,
        key: Option<&ObjectKey>,
        arrived: u64,
    ) {
        self.record_request_of(&actor.username(), verb, result, key, arrived);
    }

    /// [`Cluster::record_request`] for a user named by the desk: the authenticated
    /// user, or [`UNAUTHENTICATED`] when no credential was recognised.
    pub(crate) fn record_request_of(
        &mut self,
        user: &str,
        verb: &'static str,
        result: &Result<Arc<Object>, ApiError>,
        key: Option<&ObjectKey>,
        arrived: u64,
    ) {
        let (resource, namespace, name) = match (result, key) {
            (Ok(o), _) => (
                o.kind().plural().to_string(),
                o.namespace().to_string(),
                o.name().to_string(),
            ),
            (Err(_), Some(k)) => (
                k.kind.plural().to_string(),
                k.namespace.clone(),
                k.name.clone(),
            ),
            (Err(_), None) => (String::new(), String::new(), String::new()),
        };
        let code = match result {
            Ok(_) if verb == "create" => 201,
            Ok(_) => 200,
            Err(e) => e.code(),
        };
        let verdict = result.as_ref().map(|_| ()).map_err(Clone::clone);
        self.record_request_to(
            user,
            verb,
            (resource, namespace, name),
            code,
            &verdict,
            arrived,
        );
    }

    /// Records one request the desk answered: `target` is (resource, namespace,
    /// name), the resource with its subresource for one (`pods/eviction`).
    pub(crate) fn record_request_to(
        &mut self,
        user: &str,
        verb: &'static str,
        (resource, namespace, name): (String, String, String),
        code: u16,
        verdict: &Result<(), ApiError>,
        arrived: u64,
    ) {
        debug_assert!(REQUEST_VERBS.contains(&verb), "unknown verb {verb}");
        let result = verdict;
        let stages = Stage::verdicts(result.as_ref().err().map(Stage::of_error));
        let members = self.etcd.members();
        let micros = stages
            .iter()
            .map(|(stage, _)| stage.model_micros(members))
            .collect();
        let record = RequestRecord {
            at: self.now,
            user: user.to_string(),
            verb,
            resource,
            namespace,
            name,
            code,
            stages,
            micros,
        };
        self.record(record, arrived);
    }

    /// Mutating admission, validation and validating admission for a create.
    fn admit_create(&mut self, obj: &mut Object, dry_run: bool) -> Result<(), ApiError> {
        self.serve_custom_kind(obj)?;
        let kind = obj.kind();
        // Namespace: set from context or default; cluster-scoped objects have none.
        if kind.namespaced() {
            let ns = obj.namespace().to_string();
            let ns = if ns.is_empty() {
                "default".to_string()
            } else {
                ns
            };
            obj.meta_mut().namespace = Some(ns);
        } else {
            obj.meta_mut().namespace = None;
        }
        // generateName.
        if obj.name().is_empty() {
            match obj.meta().generate_name.clone() {
                Some(prefix) if !prefix.is_empty() => {
                    let name = format!("{}{}", prefix, self.rng.suffix(5));
                    obj.meta_mut().name = Some(name);
                }
                _ => {
                    return Err(ApiError::new(
                        StatusReason::Invalid,
                        format!(
                            "{} \"\" is invalid: metadata.name: Required value: name or generateName is required",
                            kind.as_str()
                        ),
                    ))
                }
            }
        }
        self.admit_namespace_lifecycle(kind, obj.namespace(), obj.name())?;
        self.check_capacity(kind, obj.name())?;
        default_object(obj);
        self.admit_definition(obj, None)?;
        self.admit_custom(obj, None)?;
        self.admit_service_account(obj)?;
        self.admit_priority(obj)?;
        self.admission_mutate(obj)?;
        self.admit_default_ingress_class(obj);
        self.admit_default_storage_class(obj);
        crate::controllers::protection::admit_protection(obj);
        // The Job strategy generates the selector and its labels from the uid the
        // apiserver is about to assign, before validation (`generateSelectorIfNeeded`).
        let early_uid = match obj {
            Object::Job(job) => {
                let uid = self.rng.uid();
                job.metadata.uid = Some(uid.clone());
                crate::controllers::job::generate_selector(job, &uid);
                // Defaulting runs again when the Job is read back from storage: a Job
                // still without labels takes the generated template labels.
                default_job(job);
                Some(uid)
            }
            _ => None,
        };
        validate(obj)?;
        self.admit_priority_class(obj, None)?;
        self.admission_validate(obj, None, dry_run)?;
        self.allocate_service_addresses(obj, None)?;
        // An object the apiserver writes for itself at boot may come with its uid
        // (kind's default StorageClass): the add-ons' names and uids, drawn from the
        // cluster's random stream, do not depend on it.
        let preset = (self.current_actor == Actor::System.username())
            .then(|| obj.meta().uid.clone())
            .flatten();
        let uid = early_uid.or(preset).unwrap_or_else(|| self.rng.uid());
        let now = self.now.to_k8s();
        let meta = obj.meta_mut();
        meta.uid = Some(uid);
        meta.creation_timestamp = Some(now);
        meta.resource_version = None;
        meta.deletion_timestamp = None;
        meta.generation = match kind {
            Kind::Deployment
            | Kind::ReplicaSet
            | Kind::DaemonSet
            | Kind::Pod
            | Kind::Job
            | Kind::CronJob
            | Kind::StatefulSet
            | Kind::HorizontalPodAutoscaler
            | Kind::PodDisruptionBudget
            | Kind::CustomResourceDefinition
            | Kind::Custom(_) => Some(1),
            _ => None,
        };
        if let Object::Pod(p) = obj {
            // A gated pod says why it waits (`applySchedulingGatedCondition`,
            // pkg/registry/core/pod/strategy.go).
            let gated = p
                .spec
                .as_ref()
                .and_then(|s| s.scheduling_gates.as_ref())
                .is_some_and(|g| !g.is_empty());
            p.status = Some(PodStatus {
                phase: Some("Pending".into()),
                qos_class: Some(qos_class(p.spec.as_ref())),
                conditions: gated.then(|| {
                    vec![k8s_openapi::api::core::v1::PodCondition {
                        type_: "PodScheduled".into(),
                        status: "False".into(),
                        reason: Some(SCHEDULING_GATED.into()),
                        message: Some(
                            "Scheduling is blocked due to non-empty scheduling gates".into(),
                        ),
                        ..Default::default()
                    }]
                }),
                ..Default::default()
            });
        }
        if let Object::Other(o) = obj {
            if matches!(o.kind, Kind::PersistentVolumeClaim | Kind::PersistentVolume) {
                o.fields
                    .insert("status".into(), serde_json::json!({"phase": "Pending"}));
            }
        }
        if let Object::Namespace(n) = obj {
            n.spec = Some(NamespaceSpec {
                finalizers: Some(vec!["kubernetes".into()]),
            });
            n.status = Some(NamespaceStatus {
                phase: Some("Active".into()),
                ..Default::default()
            });
            n.metadata
                .labels
                .get_or_insert_with(Default::default)
                .insert(
                    "kubernetes.io/metadata.name".into(),
                    n.metadata.name.clone().unwrap_or_default(),
                );
        }
        Ok(())
    }

    /// NamespaceLifecycle for a create: the namespace must exist and not be
    /// terminating.
    fn admit_namespace_lifecycle(&self, kind: Kind, ns: &str, name: &str) -> Result<(), ApiError> {
        if !kind.namespaced() {
            return Ok(());
        }
        match self.store.get(&ObjectKey::new(Kind::Namespace, "", ns)) {
            None => Err(ApiError::not_found("namespaces", ns)),
            Some(n) if n.meta().deletion_timestamp.is_some() => Err(ApiError::new(
                StatusReason::Forbidden,
                format!(
                    "{} \"{name}\" is forbidden: unable to create new content in namespace {ns} because it is being terminated",
                    kind.plural(),
                ),
            )),
            Some(_) => Ok(()),
        }
    }

    /// The cluster's own limits on what it holds, before a create: pods in all
    /// ([`MAX_PODS`]), objects of one kind ([`MAX_OBJECTS_PER_KIND`]), objects of
    /// every kind but Events ([`MAX_OBJECTS`]). Refused with 403 Forbidden, as a quota refuses.
    fn check_capacity(&self, kind: Kind, name: &str) -> Result<(), ApiError> {
        let limits = self.store.limits;
        let full = if kind == Kind::Pod {
            (self.store.count(kind) >= limits.pods).then(|| (limits.pods, kind.plural()))
        } else {
            (self.store.count(kind) >= MAX_OBJECTS_PER_KIND)
                .then(|| (MAX_OBJECTS_PER_KIND, kind.plural()))
        };
        let full = full.or_else(|| {
            let others = self.store.total() - self.store.count(Kind::Event);
            (kind != Kind::Event && others >= limits.objects).then_some((limits.objects, "objects"))
        });
        match full {
            None => Ok(()),
            Some((limit, what)) => Err(ApiError::new(
                StatusReason::Forbidden,
                format!(
                    "{} \"{name}\" is forbidden: this simulated cluster holds at most {limit} {what}",
                    kind.plural()
                ),
            )),
        }
    }

    /// Replaces the storage with `objects` at `revision`: an etcd restore
    /// (`etcd.rs`). The indexes and counts are built again from the objects; the
    /// watch logs start empty, so a watch from before the restore gets 410 Gone.
    pub(crate) fn reload_store(
        &mut self,
        objects: Vec<Object>,
        revision: u64,
    ) -> Result<(), String> {
        self.store = store::Store::restored(objects, revision)?;
        Ok(())
    }

    /// Writes `obj` into the storage without a request, as `etcdctl put` would:
    /// no admission, no validation, no watch event dispatched. For tests that need
    /// an object in a state no request makes.
    #[cfg(test)]
    pub(crate) fn put_directly(&mut self, obj: Object) -> Result<(), ApiError> {
        self.store.create(obj).map(drop)
    }

    /// The cluster's limits on the pods and objects it holds.
    pub fn object_limits(&self) -> crate::store::ObjectLimits {
        self.store.limits
    }

    /// Sets the limits on pods and objects, so that tests can reach them with a few
    /// objects. A test hook: an etcd snapshot restore brings back the defaults.
    #[doc(hidden)]
    pub fn set_object_limits(&mut self, limits: crate::store::ObjectLimits) {
        self.store.limits = limits;
    }

    /// How many objects the cluster holds, of every kind.
    pub fn object_count(&self) -> usize {
        self.store.total()
    }

    /// How many objects of one kind the cluster holds (all namespaces).
    pub fn kind_count(&self, kind: Kind) -> usize {
        self.store.count(kind)
    }

    /// Admission and validation for an update: identity fields are kept, immutable
    /// fields checked, generation bumped when the spec changes.
    fn admit_update(&mut self, obj: &mut Object, dry_run: bool) -> Result<(), ApiError> {
        self.serve_custom_kind(obj)?;
        let kind = obj.kind();
        if kind.namespaced() && obj.namespace().is_empty() {
            obj.meta_mut().namespace = Some("default".into());
        }
        let key = obj.key();
        let Some(old) = self.store.get_shared(&key).cloned() else {
            return Err(ApiError::not_found(&kind.qualified_plural(), &key.name));
        };
        default_object(obj);
        self.admit_definition(obj, Some(&old))?;
        self.admit_custom(obj, Some(&old))?;
        keep_pod_priority(&old, obj);
        validate(obj)?;
        check_immutable(&old, obj)?;
        self.admit_priority_class(obj, Some(&old))?;
        self.admission_validate(obj, Some(&old), dry_run)?;
        self.allocate_service_addresses(obj, Some(&old))?;
        let old_meta = old.meta();
        let spec_changed = !same_spec(&old, obj);
        let meta = obj.meta_mut();
        meta.uid = old_meta.uid.clone();
        meta.creation_timestamp = old_meta.creation_timestamp.clone();
        meta.deletion_timestamp = old_meta.deletion_timestamp.clone();
        meta.deletion_grace_period_seconds = old_meta.deletion_grace_period_seconds;
        meta.generation = old_meta
            .generation
            .map(|g| if spec_changed { g + 1 } else { g });
        Ok(())
    }

    /// Records a core/v1 Event about `about`, as the named component's event recorder
    /// does, with that component's credentials. Events expire after [`EVENT_TTL`].
    pub(crate) fn record_event(
        &mut self,
        about: &Object,
        component: &str,
        host: Option<&str>,
        event_type: &str,
        reason: &str,
        message: String,
    ) {
        self.event_counter += 1;
        let namespace = if about.kind().namespaced() {
            about.namespace().to_string()
        } else {
            "default".to_string()
        };
        // Upstream names events `<object>.<unix nanos in hex>`; the counter keeps two
        // events of the same millisecond apart.
        let nanos = (crate::time::EPOCH_UNIX_MS as u128 + u128::from(self.now.0)) * 1_000_000
            + u128::from(self.event_counter);
        let name = format!("{}.{:x}", about.name(), nanos);
        let now = self.now.to_k8s();
        let mut ev = Event {
            metadata: ObjectMeta {
                name: Some(name),
                namespace: Some(namespace),
                ..Default::default()
            },
            involved_object: ObjectReference {
                api_version: Some(about.kind().api_version()),
                kind: Some(about.kind().as_str().to_string()),
                name: Some(about.name().to_string()),
                namespace: about.meta().namespace.clone(),
                uid: about.meta().uid.clone(),
                resource_version: about.meta().resource_version.clone(),
                ..Default::default()
            },
            reason: Some(reason.to_string()),
            message: Some(message),
            type_: Some(event_type.to_string()),
            source: Some(EventSource {
                component: Some(component.to_string()),
                host: host.map(str::to_string),
            }),
            first_timestamp: Some(now.clone()),
            last_timestamp: Some(now),
            count: Some(1),
            reporting_component: Some(component.to_string()),
            reporting_instance: Some(host.unwrap_or("").to_string()),
            ..Default::default()
        };
        // The recorder's correlator: a repeat of an event already recorded bumps its
        // count instead of creating another (client-go EventCorrelator).
        let correlation = self.event_correlator.correlate(&ev, self.now);
        ev.message = Some(correlation.message);
        let recorded = self
            .event_correlator
            .recorded(&correlation.key)
            .and_then(|k| self.store.get(k))
            .cloned();
        let writer = event_writer(component, host);
        if let Some(Object::Event(mut existing)) = recorded {
            existing.count = Some(existing.count.unwrap_or(1) + 1);
            existing.last_timestamp = ev.last_timestamp.clone();
            existing.message = ev.message.clone();
            if self.post_event(writer.clone(), *existing, true).is_ok() {
                return;
            }
        }
        match self.post_event(writer, ev.clone(), false) {
            Ok(created) => {
                let key = created.key();
                self.event_correlator.remember(correlation.key, key.clone());
                self.schedule(self.now + EVENT_TTL, ApiserverTimer::EventExpiry(key));
            }
            Err(_) => self.event_correlator.abandon(&ev),
        }
    }

    /// An event recorder's write, on the Events' own path: a create, or (`repeat`) a
    /// patch of the count of an Event already recorded. The request passes the desk
    /// as the component and NamespaceLifecycle (no Event is created in a namespace
    /// being deleted), then the Events' own bound, and is stored in their partition;
    /// no controller is woken by it. Simplified: the other admission plugins do not
    /// run (none of the built-in ones changes or charges an Event; a webhook or
    /// policy aimed at Events would not see the recorders' ones).
    fn post_event(
        &mut self,
        actor: Actor,
        mut event: Event,
        repeat: bool,
    ) -> Result<Arc<Object>, ApiError> {
        let verb = if repeat { "patch" } else { "create" };
        let attempted = ObjectKey::new(
            Kind::Event,
            event.metadata.namespace.as_deref().unwrap_or(""),
            event.metadata.name.as_deref().unwrap_or(""),
        );
        self.serve_write(actor, verb, &attempted, |c| {
            let ev = if repeat {
                c.check_storage()?;
                c.store.update(Object::Event(Box::new(event)))?
            } else {
                let (ns, name) = (&attempted.namespace, &attempted.name);
                c.admit_namespace_lifecycle(Kind::Event, ns, name)?;
                c.check_capacity(Kind::Event, name)?;
                event.metadata.uid = Some(c.rng.uid());
                event.metadata.creation_timestamp = Some(c.now.to_k8s());
                c.check_storage()?;
                c.store.create(Object::Event(Box::new(event)))?
            };
            c.dispatch(&ev);
            Ok(ev.object)
        })
    }

    /// An Event's time to live ran out (etcd's lease). Every update renews the lease,
    /// so an event still being counted lives on for another TTL after its last
    /// occurrence.
    pub(crate) fn expire_event(&mut self, key: &ObjectKey) {
        let event = match self.store.get(key) {
            Some(Object::Event(e)) => e.clone(),
            _ => {
                self.event_correlator.forget(key, None, self.now);
                return;
            }
        };
        let last = event
            .last_timestamp
            .as_ref()
            .or(event.first_timestamp.as_ref())
            .map(crate::time::SimTime::from_k8s)
            .unwrap_or(self.now);
        if last + EVENT_TTL > self.now {
            self.schedule(last + EVENT_TTL, ApiserverTimer::EventExpiry(key.clone()));
            return;
        }
        // etcd deletes the key when its lease expires: a deletion like any other,
        // which every watcher (and the trace) sees.
        self.current_actor = Actor::System.username();
        if let Ok(ev) = self.store.remove(key) {
            self.dispatch(&ev);
        }
        self.event_correlator.forget(key, Some(&event), self.now);
    }
}

/// Whether two versions of an object have the same spec (what generation counts).
fn same_spec(a: &Object, b: &Object) -> bool {
    match (a, b) {
        (Object::Pod(x), Object::Pod(y)) => {
            // Binding sets spec.nodeName through its own subresource; it does not
            // count as a spec change.
            // Compared in place when the node names agree (every status update).
            let node = |p: &k8s_openapi::api::core::v1::Pod| {
                p.spec.as_ref().and_then(|s| s.node_name.clone())
            };
            if node(x) == node(y) {
                return x.spec == y.spec;
            }
            let strip = |p: &k8s_openapi::api::core::v1::Pod| {
                p.spec.clone().map(|mut s| {
                    s.node_name = None;
                    s
                })
            };
            strip(x) == strip(y)
        }
        (Object::Deployment(x), Object::Deployment(y)) => x.spec == y.spec,
        (Object::ReplicaSet(x), Object::ReplicaSet(y)) => x.spec == y.spec,
        (Object::DaemonSet(x), Object::DaemonSet(y)) => x.spec == y.spec,
        (Object::Node(x), Object::Node(y)) => x.spec == y.spec,
        (Object::Namespace(x), Object::Namespace(y)) => x.spec == y.spec,
        (Object::Lease(x), Object::Lease(y)) => x.spec == y.spec,
        (Object::Job(x), Object::Job(y)) => x.spec == y.spec,
        (Object::Other(x), Object::Other(y)) if x.kind.is_custom() => {
            custom::same_custom_spec(x, y)
        }
        (Object::Other(x), Object::Other(y)) => x.fields.get("spec") == y.fields.get("spec"),
        _ => true,
    }
}

/// Defaulting, as the apiserver's registered defaulters do it for the served kinds.
pub(crate) fn default_object(obj: &mut Object) {
    match obj {
        Object::Pod(p) => {
            let spec = p.spec.get_or_insert_with(Default::default);
            default_pod_spec(spec);
            default_requests_to_limits(spec);
            add_default_tolerations(spec);
        }
        Object::LimitRange(l) => crate::apiserver::admission::default_limit_range(l),
        // SetDefaults_CronJob.
        Object::Other(o) if o.kind == Kind::CronJob => {
            if let Some(spec) = o.fields.get_mut("spec").and_then(|s| s.as_object_mut()) {
                for (field, value) in [
                    ("concurrencyPolicy", serde_json::json!("Allow")),
                    ("suspend", serde_json::json!(false)),
                    ("successfulJobsHistoryLimit", serde_json::json!(3)),
                    ("failedJobsHistoryLimit", serde_json::json!(1)),
                ] {
                    spec.entry(field).or_insert(value);
                }
            }
        }
        Object::Other(o) if o.kind == Kind::StatefulSet => {
            crate::controllers::statefulset::default_stateful_set(o)
        }
        Object::Other(o) if o.kind == Kind::NetworkPolicy => {
            crate::network::policy::default_network_policy(o)
        }
        Object::Other(o) if o.kind == Kind::PriorityClass => priority::default_priority_class(o),
        Object::Other(o)
            if matches!(o.kind, Kind::PersistentVolumeClaim | Kind::PersistentVolume) =>
        {
            crate::controllers::volume::default_storage_object(o)
        }
        Object::ResourceQuota(q) => {
            if let Some(spec) = q.spec.as_mut() {
                crate::apiserver::admission::canonicalize(&mut spec.hard);
            }
        }
        Object::ReplicaSet(rs) => {
            let spec = &mut rs.spec;
            spec.replicas.get_or_insert(1);
            if let Some(ps) = spec.template.as_mut().and_then(|t| t.spec.as_mut()) {
                default_pod_spec(ps);
            }
        }
        Object::Deployment(d) => default_deployment(d),
        Object::DaemonSet(ds) => default_daemon_set(ds),
        Object::Job(j) => default_job(j),
        Object::Service(svc) => default_service(svc),
        Object::Secret(secret) => {
            secret.type_.get_or_insert_with(|| "Opaque".into());
        }
        _ => {}
    }
}

/// pkg/apis/apps/v1 `SetDefaults_DaemonSet`.
fn default_daemon_set(ds: &mut k8s_openapi::api::apps::v1::DaemonSet) {
    use k8s_openapi::api::apps::v1::{DaemonSetUpdateStrategy, RollingUpdateDaemonSet};
    let spec = &mut ds.spec;
    spec.revision_history_limit.get_or_insert(10);
    let strategy = spec
        .update_strategy
        .get_or_insert_with(DaemonSetUpdateStrategy::default);
    let type_ = strategy.type_.get_or_insert_with(|| "RollingUpdate".into());
    if type_ == "RollingUpdate" {
        let ru = strategy
            .rolling_update
            .get_or_insert_with(RollingUpdateDaemonSet::default);
        ru.max_unavailable.get_or_insert(IntOrString::Int(1));
        ru.max_surge.get_or_insert(IntOrString::Int(0));
    }
    if let Some(ps) = spec.template.spec.as_mut() {
        default_pod_spec(ps);
    }
}

/// pkg/apis/batch/v1 `SetDefaults_Job` (the selector and its `controller-uid` labels
/// are generated by the Job strategy when the Job controller lands).
fn default_job(job: &mut k8s_openapi::api::batch::v1::Job) {
    let Some(spec) = job.spec.as_mut() else {
        return;
    };
    // A Job without labels takes its pod template's.
    let template_labels = spec
        .template
        .metadata
        .as_ref()
        .and_then(|m| m.labels.clone());
    if template_labels.is_some() && job.metadata.labels.as_ref().is_none_or(|l| l.is_empty()) {
        job.metadata.labels = template_labels;
    }
    let indexed = spec.completion_mode.as_deref() == Some("Indexed");
    // completions is defaulted only when parallelism is unset too: a Job with only
    // parallelism is a work queue, complete when any pod succeeds.
    if spec.completions.is_none() && spec.parallelism.is_none() {
        spec.completions = Some(1);
    }
    spec.parallelism.get_or_insert(1);
    spec.backoff_limit
        .get_or_insert(if indexed && spec.backoff_limit_per_index.is_some() {
            i32::MAX
        } else {
            6
        });
    spec.completion_mode
        .get_or_insert_with(|| "NonIndexed".into());
    spec.suspend.get_or_insert(false);
    spec.manual_selector.get_or_insert(false);
    spec.pod_replacement_policy.get_or_insert_with(|| {
        if spec.pod_failure_policy.is_some() {
            "Failed"
        } else {
            "TerminatingOrFailed"
        }
        .into()
    });
    if let Some(ps) = spec.template.spec.as_mut() {
        default_pod_spec(ps);
    }
}

/// pkg/apis/core/v1 `SetDefaults_Service` (ClusterIP allocation is the apiserver's
/// IP allocator's job, done where Services are simulated).
fn default_service(svc: &mut k8s_openapi::api::core::v1::Service) {
    let spec = svc.spec.get_or_insert_with(Default::default);
    let type_ = spec.type_.get_or_insert_with(|| "ClusterIP".into()).clone();
    spec.session_affinity.get_or_insert_with(|| "None".into());
    if type_ != "ExternalName" {
        spec.internal_traffic_policy
            .get_or_insert_with(|| "Cluster".into());
    }
    if matches!(type_.as_str(), "NodePort" | "LoadBalancer") {
        spec.external_traffic_policy
            .get_or_insert_with(|| "Cluster".into());
    }
    for p in spec.ports.iter_mut().flatten() {
        p.protocol.get_or_insert_with(|| "TCP".into());
        // An unset, zero or empty targetPort is the port itself.
        let unset = match &p.target_port {
            None => true,
            Some(IntOrString::Int(n)) => *n == 0,
            Some(IntOrString::String(s)) => s.is_empty(),
        };
        if unset {
            p.target_port = Some(IntOrString::Int(p.port));
        }
    }
}

fn default_deployment(d: &mut Deployment) {
    let spec = &mut d.spec;
    spec.replicas.get_or_insert(1);
    spec.revision_history_limit.get_or_insert(10);
    spec.progress_deadline_seconds.get_or_insert(600);
    let strategy = spec
        .strategy
        .get_or_insert_with(DeploymentStrategy::default);
    let type_ = strategy.type_.get_or_insert_with(|| "RollingUpdate".into());
    if type_ == "RollingUpdate" {
        let ru = strategy
            .rolling_update
            .get_or_insert_with(RollingUpdateDeployment::default);
        ru.max_surge
            .get_or_insert(IntOrString::String("25%".into()));
        ru.max_unavailable
            .get_or_insert(IntOrString::String("25%".into()));
    }
    if let Some(ps) = spec.template.spec.as_mut() {
        default_pod_spec(ps);
    }
}

/// `SetDefaults_Container` on the fields containers and ephemeral containers share
/// (two types upstream converts between): pull policy, termination message path and
/// policy, port protocols.
macro_rules! default_container_fields {
    ($c:expr) => {{
        let c = $c;
        if c.image_pull_policy.is_none() {
            c.image_pull_policy = Some(default_pull_policy(c.image.as_deref()).into());
        }
        c.termination_message_path
            .get_or_insert_with(|| "/dev/termination-log".into());
        c.termination_message_policy
            .get_or_insert_with(|| "File".into());
        for p in c.ports.iter_mut().flatten() {
            p.protocol.get_or_insert_with(|| "TCP".into());
        }
    }};
}

/// Defaults for a pod spec (also applied to the templates of workloads).
pub(crate) fn default_pod_spec(spec: &mut PodSpec) {
    spec.restart_policy.get_or_insert_with(|| "Always".into());
    spec.termination_grace_period_seconds.get_or_insert(30);
    spec.dns_policy.get_or_insert_with(|| "ClusterFirst".into());
    spec.scheduler_name
        .get_or_insert_with(|| "default-scheduler".into());
    spec.security_context.get_or_insert_with(Default::default);
    for c in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut().flatten())
    {
        default_container_fields!(&mut *c);
        if let Some(r) = c.resources.as_mut() {
            crate::apiserver::admission::canonicalize(&mut r.requests);
            crate::apiserver::admission::canonicalize(&mut r.limits);
        }
    }
}

/// `SetDefaults_Container`'s pull policy: Always for `:latest` or no tag (without a
/// digest), else IfNotPresent.
fn default_pull_policy(image: Option<&str>) -> &'static str {
    let image = image.unwrap_or("");
    let tag = image
        .rsplit('/')
        .next()
        .unwrap_or("")
        .split_once(':')
        .map(|(_, t)| t);
    let latest = !image.contains('@') && matches!(tag, None | Some("latest"));
    if latest {
        "Always"
    } else {
        "IfNotPresent"
    }
}

/// The defaults of an ephemeral container, as a container's: pull policy,
/// termination message path and policy, port protocols.
pub(crate) fn default_ephemeral_containers(spec: &mut PodSpec) {
    for c in spec.ephemeral_containers.iter_mut().flatten() {
        default_container_fields!(&mut *c);
    }
}

/// Upstream `SetDefaults_Pod` (pods only, not templates): a container that states a
/// limit but no request for a resource requests its limit.
fn default_requests_to_limits(spec: &mut PodSpec) {
    for c in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut().flatten())
    {
        let Some(r) = c.resources.as_mut() else {
            continue;
        };
        let Some(limits) = r.limits.as_ref().filter(|l| !l.is_empty()) else {
            continue;
        };
        let requests = r.requests.get_or_insert_with(Default::default);
        for (k, v) in limits {
            requests.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
}

/// The DefaultTolerationSeconds admission plugin: every pod that does not already
/// tolerate the not-ready and unreachable NoExecute taints gets 300 s of each.
fn add_default_tolerations(spec: &mut PodSpec) {
    let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
    for key in [
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
    ] {
        let tolerated = tolerations.iter().any(|t| {
            (t.key.as_deref() == Some(key)
                || (t.key.is_none() && t.operator.as_deref() == Some("Exists")))
                && t.effect.as_deref().is_none_or(|e| e == "NoExecute")
        });
        if !tolerated {
            tolerations.push(Toleration {
                key: Some(key.to_string()),
                operator: Some("Exists".into()),
                effect: Some("NoExecute".into()),
                toleration_seconds: Some(300),
                value: None,
            });
        }
    }
}

fn qos_class(spec: Option<&PodSpec>) -> String {
    let Some(spec) = spec else {
        return "BestEffort".into();
    };
    let mut any = false;
    let mut guaranteed = true;
    for c in &spec.containers {
        let req = c.resources.as_ref().and_then(|r| r.requests.as_ref());
        let lim = c.resources.as_ref().and_then(|r| r.limits.as_ref());
        if req.is_some_and(|r| !r.is_empty()) || lim.is_some_and(|l| !l.is_empty()) {
            any = true;
        }
        for res in ["cpu", "memory"] {
            let l = lim.and_then(|l| l.get(res));
            let r = req.and_then(|r| r.get(res)).or(l);
            if l.is_none() || r.map(|q| &q.0) != l.map(|q| &q.0) {
                guaranteed = false;
            }
        }
    }
    if !any {
        "BestEffort".into()
    } else if guaranteed {
        "Guaranteed".into()
    } else {
        "Burstable".into()
    }
}

/// A validation failure: the field path and the message, as upstream's field.Error.
pub(crate) struct FieldError(pub(crate) String);

pub(crate) fn invalid(obj: &Object, errors: Vec<FieldError>) -> ApiError {
    let kind = obj.kind();
    let qualified = if kind.group().is_empty() {
        kind.as_str().to_string()
    } else {
        format!("{}.{}", kind.as_str(), kind.group())
    };
    let causes: Vec<String> = errors.into_iter().map(|e| e.0).collect();
    let detail = if causes.len() == 1 {
        causes[0].clone()
    } else {
        format!("[{}]", causes.join(", "))
    };
    ApiError::new(
        StatusReason::Invalid,
        format!("{} \"{}\" is invalid: {}", qualified, obj.name(), detail),
    )
}

/// DNS-1123 subdomain: lowercase alphanumerics, '-' and '.', at most 253 characters,
/// starting and ending alphanumeric.
pub fn is_dns1123_subdomain(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !part.starts_with('-')
                && !part.ends_with('-')
        })
}

/// What apimachinery says of a string that is not a DNS-1123 label.
pub(crate) const DNS1123_LABEL_RULE: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/// DNS-1123 label: like a subdomain part, at most 63 characters.
pub fn is_dns1123_label(s: &str) -> bool {
    s.len() <= 63 && !s.contains('.') && is_dns1123_subdomain(s)
}

/// A label name: alphanumerics, '-', '_' and '.', starting and ending alphanumeric,
/// at most 63 characters (apimachinery `IsQualifiedName`'s name part).
fn is_label_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// A label value (apimachinery `IsValidLabelValue`): empty, or a label name; else
/// why not.
pub(crate) fn is_label_value(v: &str) -> Result<(), &'static str> {
    if v.is_empty() || is_label_name(v) {
        Ok(())
    } else if v.len() > 63 {
        Err("must be no more than 63 characters")
    } else {
        Err("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
    }
}

/// Label keys (`[prefix/]name`) and values, as apimachinery's `ValidateLabels` checks
/// them, with its messages.
/// What the apiserver would refuse in a registering Node's labels and taints (the
/// kubelet's `--node-labels` and `--register-with-taints`), as its Invalid message
/// (`Node "NAME" is invalid: ...`); `sim node add` checks this before it changes
/// anything, so a refused node leaves the cluster as it was.
pub(crate) fn check_node_registration(
    name: &str,
    labels: &std::collections::BTreeMap<String, String>,
    taints: &[(String, String, String)],
) -> Result<(), String> {
    let mut errors = Vec::new();
    check_labels(Some(labels), "metadata.labels", &mut errors);
    for (i, (key, value, _)) in taints.iter().enumerate() {
        let only_key: std::collections::BTreeMap<String, String> =
            [(key.clone(), String::new())].into();
        check_labels(
            Some(&only_key),
            &format!("spec.taints[{i}].key"),
            &mut errors,
        );
        if let Err(why) = is_label_value(value) {
            errors.push(FieldError(format!(
                "spec.taints[{i}].value: Invalid value: \"{value}\": {why}"
            )));
        }
    }
    if errors.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = errors.into_iter().map(|e| e.0).collect();
    let joined = if list.len() == 1 {
        list[0].clone()
    } else {
        format!("[{}]", list.join(", "))
    };
    Err(format!("Node \"{name}\" is invalid: {joined}"))
}

pub(crate) fn check_labels(
    labels: Option<&std::collections::BTreeMap<String, String>>,
    path: &str,
    errors: &mut Vec<FieldError>,
) {
    for (k, v) in labels.into_iter().flatten() {
        let (prefix, name) = match k.rsplit_once('/') {
            Some((p, n)) => (Some(p), n),
            None => (None, k.as_str()),
        };
        if let Some(p) = prefix {
            if !is_dns1123_subdomain(p) {
                errors.push(FieldError(format!(
                    "{path}: Invalid value: \"{k}\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
                )));
                continue;
            }
        }
        if !is_label_name(name) {
            let why = if name.is_empty() {
                "name part must be non-empty".to_string()
            } else if name.len() > 63 {
                "name part must be no more than 63 characters".to_string()
            } else {
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')".to_string()
            };
            errors.push(FieldError(format!("{path}: Invalid value: \"{k}\": {why}")));
        }
        if let Err(why) = is_label_value(v) {
            errors.push(FieldError(format!("{path}: Invalid value: \"{v}\": {why}")));
        }
    }
}

fn validate(obj: &Object) -> Result<(), ApiError> {
    let mut errors = Vec::new();
    let name = obj.name();
    // RBAC objects take any path segment name (`system:basic-user`):
    // ValidateRBACName is path.IsValidPathSegmentName.
    let rbac = matches!(
        obj.kind(),
        Kind::Role | Kind::ClusterRole | Kind::RoleBinding | Kind::ClusterRoleBinding
    );
    if rbac {
        let why = if name == "." || name == ".." {
            Some(format!("may not be '{name}'"))
        } else if name.contains('/') {
            Some("may not contain '/'".to_string())
        } else if name.contains('%') {
            Some("may not contain '%'".to_string())
        } else {
            None
        };
        if let Some(why) = why {
            errors.push(FieldError(format!(
                "metadata.name: Invalid value: \"{name}\": {why}"
            )));
        }
    }
    let name_ok = rbac
        || match obj.kind() {
            Kind::Namespace => is_dns1123_label(name),
            _ => is_dns1123_subdomain(name),
        };
    if !name_ok {
        let rule = if obj.kind() == Kind::Namespace {
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
        } else {
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
        };
        errors.push(FieldError(format!(
            "metadata.name: Invalid value: \"{name}\": {rule}"
        )));
    }
    check_labels(obj.meta().labels.as_ref(), "metadata.labels", &mut errors);
    check_annotations_size(
        obj.meta().annotations.as_ref(),
        "metadata.annotations",
        &mut errors,
    );
    check_data_size(obj, &mut errors);
    check_data_keys(obj, &mut errors);
    let template_labels = match obj {
        Object::Deployment(d) => d
            .spec
            .template
            .metadata
            .as_ref()
            .and_then(|m| m.labels.as_ref()),
        Object::ReplicaSet(rs) => rs
            .spec
            .template
            .as_ref()
            .and_then(|t| t.metadata.as_ref())
            .and_then(|m| m.labels.as_ref()),
        Object::DaemonSet(ds) => ds
            .spec
            .template
            .metadata
            .as_ref()
            .and_then(|m| m.labels.as_ref()),
        _ => None,
    };
    check_labels(
        template_labels,
        "spec.template.metadata.labels",
        &mut errors,
    );
    match obj {
        Object::Pod(p) => validate_pod_spec(p, &mut errors),
        Object::Deployment(d) => {
            let spec = Some(&d.spec);
            let replicas = spec.and_then(|s| s.replicas).unwrap_or(1);
            check_replicas(replicas, &mut errors);
            if let Some(spec) = spec {
                check_selector(
                    "deployment",
                    &spec.selector,
                    spec.template.metadata.as_ref(),
                    &mut errors,
                );
                check_template_containers(spec.template.spec.as_ref(), &mut errors);
                errors.extend(
                    crate::controllers::deployment::validate_spec(spec)
                        .into_iter()
                        .map(FieldError),
                );
            }
        }
        Object::Job(job) => validate_job(job, &mut errors),
        Object::ReplicaSet(rs) => {
            let spec = &rs.spec;
            check_replicas(spec.replicas.unwrap_or(1), &mut errors);
            crate::apiserver::validation::non_negative(
                "spec.minReadySeconds",
                i64::from(spec.min_ready_seconds.unwrap_or(0)),
                &mut errors,
            );
            if let Some(t) = spec.template.as_ref() {
                check_selector(
                    "deployment",
                    &spec.selector,
                    t.metadata.as_ref(),
                    &mut errors,
                );
                check_template_containers(t.spec.as_ref(), &mut errors);
            }
        }
        // apps/validation `ValidateDaemonSetSpec`: the template, then the numbers.
        Object::DaemonSet(ds) => {
            let spec = &ds.spec;
            check_template_containers(spec.template.spec.as_ref(), &mut errors);
            crate::apiserver::validation::non_negative(
                "spec.minReadySeconds",
                i64::from(spec.min_ready_seconds.unwrap_or(0)),
                &mut errors,
            );
            if let Some(r) = spec.revision_history_limit {
                crate::apiserver::validation::non_negative(
                    "spec.revisionHistoryLimit",
                    i64::from(r),
                    &mut errors,
                );
            }
        }
        Object::Service(svc) => crate::apiserver::validation::service(svc, &mut errors),
        Object::ResourceQuota(q) => crate::apiserver::validation::quota_hard(
            q.spec.as_ref().and_then(|s| s.hard.as_ref()),
            &mut errors,
        ),
        Object::LimitRange(l) => {
            crate::apiserver::validation::limit_range(l.spec.as_ref(), &mut errors)
        }
        Object::Other(o) if o.kind == Kind::CustomResourceDefinition => {
            let mut found = Vec::new();
            crate::object::crd::validate(name, &o.fields, &mut found);
            errors.extend(found.into_iter().map(FieldError));
        }
        Object::Other(o) if o.kind == Kind::CronJob => validate_cron_job(o, &mut errors),
        Object::Other(o) if o.kind == Kind::StatefulSet => validate_stateful_set(o, &mut errors),
        Object::Other(o) if o.kind == Kind::HorizontalPodAutoscaler => {
            validate_autoscaler(o, &mut errors)
        }
        Object::Other(o) if o.kind == Kind::NetworkPolicy => {
            crate::apiserver::validation::network_policy(o, &mut errors)
        }
        Object::Other(o) if o.kind == Kind::PriorityClass => {
            priority::validate_priority_class(o, &mut errors)
        }
        Object::Other(o) if o.kind == Kind::PodDisruptionBudget => {
            crate::apiserver::validation::pod_disruption_budget(
                &crate::controllers::disruption::BudgetSpec::of(o),
                &mut errors,
            )
        }
        _ => {}
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(invalid(obj, errors))
    }
}

/// pkg/apis/batch/validation `ValidateJobSpec` and `ValidateGeneratedSelector`, for
/// the fields the simulation reads (pod failure policies, success policies and
/// per-index back-off limits are stored but not checked).
///
/// pkg/apis/batch/validation `ValidateCronJobCreate`/`ValidateCronJobSpec`: the name
/// (at most 52 characters, room for the Job's time suffix), the schedule as
/// `cron.ParseStandard` reads it, the policy and numbers, and the Job template as a
/// Job's spec.
fn validate_cron_job(o: &crate::object::OtherObject, errors: &mut Vec<FieldError>) {
    use crate::controllers::cronjob::CronJobSpec;
    let name = o.metadata.name.as_deref().unwrap_or("");
    if name.len() > 52 {
        errors.push(FieldError(format!(
            "metadata.name: Invalid value: \"{name}\": must be no more than 52 characters"
        )));
    }
    let spec = CronJobSpec::of(o);
    if spec.schedule.is_empty() {
        errors.push(FieldError("spec.schedule: Required value".into()));
    } else {
        if let Err(e) = crate::controllers::cron::parse(&spec.schedule) {
            errors.push(FieldError(format!(
                "spec.schedule: Invalid value: \"{}\": {e}",
                spec.schedule
            )));
        }
        if spec.schedule.contains("TZ") {
            errors.push(FieldError(format!(
                "spec.schedule: Invalid value: \"{}\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
                spec.schedule
            )));
        }
    }
    if let Some(zone) = spec.time_zone.as_deref() {
        validate_time_zone(zone, errors);
    }
    if !["Allow", "Forbid", "Replace"].contains(&spec.concurrency_policy.as_str()) {
        errors.push(FieldError(format!(
            "spec.concurrencyPolicy: Unsupported value: \"{}\": supported values: \"Allow\", \"Forbid\", \"Replace\"",
            spec.concurrency_policy
        )));
    }
    for (path, value) in [
        (
            "spec.startingDeadlineSeconds",
            spec.starting_deadline_seconds,
        ),
        (
            "spec.successfulJobsHistoryLimit",
            Some(spec.successful_jobs_history_limit),
        ),
        (
            "spec.failedJobsHistoryLimit",
            Some(spec.failed_jobs_history_limit),
        ),
    ] {
        if let Some(v) = value {
            crate::apiserver::validation::non_negative(path, v, errors);
        }
    }
    // The template as the Job it will make (its selector is generated then).
    let job = serde_json::json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "template"},
        "spec": spec.job_template.get("spec").cloned().unwrap_or_default(),
    });
    match Object::from_json(Kind::Job, job) {
        Ok(Object::Job(job)) => {
            let mut found = Vec::new();
            validate_job(&job, &mut found);
            check_template_containers(
                job.spec.as_ref().and_then(|s| s.template.spec.as_ref()),
                &mut found,
            );
            errors.extend(
                found
                    .into_iter()
                    .filter(|e| !e.0.starts_with("spec.selector"))
                    .map(|e| FieldError(e.0.replacen("spec.", "spec.jobTemplate.spec.", 1))),
            );
        }
        _ => errors.push(FieldError(
            "spec.jobTemplate.spec.template.spec.containers: Required value".into(),
        )),
    }
}

/// `validateTimeZone`: a name of the IANA time zone database, as Go's
/// `time.LoadLocation` finds it (case matters), and not `Local`.
fn validate_time_zone(zone: &str, errors: &mut Vec<FieldError>) {
    let invalid = |detail: String| {
        FieldError(format!(
            "spec.timeZone: Invalid value: \"{zone}\": {detail}"
        ))
    };
    if zone.is_empty() {
        errors.push(invalid("timeZone must be nil or non-empty string".into()));
        return;
    }
    // `validTimeZoneCharacters`: `^[A-Za-z\.\-_0-9+]{1,14}$` for each part.
    let part_ok = |p: &str| {
        p != "."
            && p != ".."
            && !p.starts_with('-')
            && (1..=14).contains(&p.len())
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
    };
    if !zone.split('/').all(part_ok) {
        errors.push(invalid(format!("unknown time zone {zone}")));
        return;
    }
    if zone.eq_ignore_ascii_case("Local") {
        errors.push(invalid(
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
                .into(),
        ));
    }
    if zone != "Local" {
        if let Err(e) = crate::controllers::cron::Zone::load(zone) {
            errors.push(invalid(e));
        }
    }
}

/// pkg/apis/apps/validation `ValidateStatefulSetSpec`: the policies, the numbers,
/// the selector against the template's labels, and the template as a pod's, whose
/// restart policy must be Always.
fn validate_stateful_set(o: &crate::object::OtherObject, errors: &mut Vec<FieldError>) {
    let spec = o.fields.get("spec");
    let at = |path: &[&str]| {
        path.iter()
            .try_fold(spec?, |v, k| v.get(k))
            .filter(|v| !v.is_null())
    };
    let string = |path: &[&str]| at(path).and_then(|v| v.as_str()).unwrap_or("");
    match string(&["podManagementPolicy"]) {
        "OrderedReady" | "Parallel" => {}
        "" => errors.push(FieldError("spec.podManagementPolicy: Required value".into())),
        other => errors.push(FieldError(format!(
            "spec.podManagementPolicy: Invalid value: \"{other}\": must be 'OrderedReady' or 'Parallel'"
        ))),
    }
    match string(&["updateStrategy", "type"]) {
        "RollingUpdate" => {
            if let Some(p) = at(&["updateStrategy", "rollingUpdate", "partition"]) {
                crate::apiserver::validation::non_negative(
                    "spec.updateStrategy.rollingUpdate.partition",
                    p.as_i64().unwrap_or(0),
                    errors,
                );
            }
        }
        "OnDelete" => {
            if at(&["updateStrategy", "rollingUpdate"]).is_some() {
                errors.push(FieldError(
                    "spec.updateStrategy.rollingUpdate: Invalid value: \"null\": only allowed for updateStrategy 'RollingUpdate'".into(),
                ));
            }
        }
        "" => errors.push(FieldError("spec.updateStrategy: Required value".into())),
        other => errors.push(FieldError(format!(
            "spec.updateStrategy: Invalid value: \"{other}\": must be 'RollingUpdate' or 'OnDelete'"
        ))),
    }
    for (path, field) in [
        ("spec.replicas", &["replicas"][..]),
        ("spec.minReadySeconds", &["minReadySeconds"][..]),
        ("spec.ordinals.start", &["ordinals", "start"][..]),
    ] {
        if let Some(v) = at(field).and_then(|v| v.as_i64()) {
            if path == "spec.replicas" {
                check_replicas(i32::try_from(v).unwrap_or(i32::MAX), errors);
            } else {
                crate::apiserver::validation::non_negative(path, v, errors);
            }
        }
    }
    let template: Option<k8s_openapi::api::core::v1::PodTemplateSpec> =
        at(&["template"]).and_then(|t| crate::object::decode::from_value(t.clone()).ok());
    match at(&["selector"]) {
        None => errors.push(FieldError("spec.selector: Required value".into())),
        Some(selector) => {
            let selector: LabelSelector =
                crate::object::decode::from_value(selector.clone()).unwrap_or_default();
            check_selector(
                "statefulset",
                &selector,
                template.as_ref().and_then(|t| t.metadata.as_ref()),
                errors,
            );
        }
    }
    let pod_spec = template.as_ref().and_then(|t| t.spec.as_ref());
    check_template_containers(pod_spec, errors);
    if let Some(policy) = pod_spec
        .and_then(|s| s.restart_policy.as_deref())
        .filter(|p| *p != "Always")
    {
        errors.push(FieldError(format!(
            "spec.template.spec.restartPolicy: Unsupported value: \"{policy}\": supported values: \"Always\""
        )));
    }
    if pod_spec.and_then(|s| s.active_deadline_seconds).is_some() {
        errors.push(FieldError(
            "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported".into(),
        ));
    }
    for (i, claim) in at(&["volumeClaimTemplates"])
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = claim
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(|n| n.as_str())
            .unwrap_or("");
        if name.is_empty() {
            errors.push(FieldError(format!(
                "spec.volumeClaimTemplates[{i}].metadata.name: Required value: name or generateName is required"
            )));
        }
        let modes = claim
            .get("spec")
            .and_then(|s| s.get("accessModes"))
            .and_then(|m| m.as_array())
            .map_or(0, Vec::len);
        if modes == 0 {
            errors.push(FieldError(format!(
                "spec.volumeClaimTemplates[{i}].spec.accessModes: Required value: at least 1 access mode is required"
            )));
        }
        let storage = claim
            .get("spec")
            .and_then(|s| s.get("resources"))
            .and_then(|r| r.get("requests"))
            .and_then(|r| r.get("storage"));
        if storage.is_none() {
            errors.push(FieldError(format!(
                "spec.volumeClaimTemplates[{i}].spec.resources[storage]: Required value"
            )));
        }
    }
}

/// pkg/apis/autoscaling/validation `validateHorizontalPodAutoscalerSpec`, in its
/// order: the replica bounds, the target's kind and name, (`validateMetricTarget`) a
/// Resource metric's utilization target of at least 1, and (`validateBehavior`) the
/// scaling rules.
fn validate_autoscaler(o: &crate::object::OtherObject, errors: &mut Vec<FieldError>) {
    let spec = o.fields.get("spec");
    let at = |p: &str| spec.and_then(|s| s.pointer(p));
    let min = at("/minReplicas").and_then(|v| v.as_i64());
    let max = at("/maxReplicas").and_then(|v| v.as_i64()).unwrap_or(0);
    if let Some(min) = min.filter(|m| *m < 1) {
        errors.push(FieldError(format!(
            "spec.minReplicas: Invalid value: {min}: must be greater than or equal to 1"
        )));
    }
    if max < 1 {
        errors.push(FieldError(format!(
            "spec.maxReplicas: Invalid value: {max}: must be greater than 0"
        )));
    }
    if min.is_some_and(|min| max < min) {
        errors.push(FieldError(format!(
            "spec.maxReplicas: Invalid value: {max}: must be greater than or equal to `minReplicas`"
        )));
    }
    for field in ["kind", "name"] {
        if at(&format!("/scaleTargetRef/{field}"))
            .and_then(|v| v.as_str())
            .is_none_or(str::is_empty)
        {
            errors.push(FieldError(format!(
                "spec.scaleTargetRef.{field}: Required value"
            )));
        }
    }
    let metrics = at("/metrics").and_then(|v| v.as_array());
    for (i, m) in metrics.into_iter().flatten().enumerate() {
        for source in ["resource", "containerResource"] {
            let utilization = m
                .pointer(&format!("/{source}/target/averageUtilization"))
                .and_then(|v| v.as_i64());
            if let Some(u) = utilization.filter(|u| *u < 1) {
                errors.push(FieldError(format!(
                    "spec.metrics[{i}].{source}.target.averageUtilization: Invalid value: {u}: must be greater than 0"
                )));
            }
        }
    }
    if let Some(behavior) = at("/behavior").filter(|b| b.is_object()) {
        for direction in ["scaleUp", "scaleDown"] {
            if let Some(rules) = behavior.get(direction).filter(|r| r.is_object()) {
                validate_scaling_rules(rules, &format!("spec.behavior.{direction}"), errors);
            }
        }
    }
}

/// `validateScalingRules` and `validateScalingPolicy` (MaxStabilizationWindowSeconds
/// 3600, MaxPeriodSeconds 1800). Policies left out are defaulted before this runs,
/// so only an empty list given is refused.
fn validate_scaling_rules(rules: &serde_json::Value, path: &str, errors: &mut Vec<FieldError>) {
    if let Some(w) = rules
        .get("stabilizationWindowSeconds")
        .and_then(|v| v.as_i64())
    {
        if w < 0 {
            errors.push(FieldError(format!(
                "{path}.stabilizationWindowSeconds: Invalid value: {w}: must be greater than or equal to zero"
            )));
        }
        if w > 3600 {
            errors.push(FieldError(format!(
                "{path}.stabilizationWindowSeconds: Invalid value: {w}: must be less than or equal to 3600"
            )));
        }
    }
    if let Some(p) = rules.get("selectPolicy").and_then(|v| v.as_str()) {
        if !matches!(p, "Max" | "Min" | "Disabled") {
            errors.push(FieldError(format!(
                "{path}.selectPolicy: Unsupported value: \"{p}\": supported values: \"Disabled\", \"Max\", \"Min\""
            )));
        }
    }
    let Some(policies) = rules.get("policies").and_then(|v| v.as_array()) else {
        return;
    };
    if policies.is_empty() {
        errors.push(FieldError(format!(
            "{path}.policies: Required value: must specify at least one Policy"
        )));
    }
    for (i, policy) in policies.iter().enumerate() {
        let at = format!("{path}.policies[{i}]");
        let type_ = policy.get("type").and_then(|v| v.as_str()).unwrap_or("");
        if !matches!(type_, "Pods" | "Percent") {
            errors.push(FieldError(format!(
                "{at}.type: Unsupported value: \"{type_}\": supported values: \"Percent\", \"Pods\""
            )));
        }
        let value = policy.get("value").and_then(|v| v.as_i64()).unwrap_or(0);
        if value <= 0 {
            errors.push(FieldError(format!(
                "{at}.value: Invalid value: {value}: must be greater than zero"
            )));
        }
        let period = policy
            .get("periodSeconds")
            .and_then(|v| v.as_i64())
            .unwrap_or(0);
        if period <= 0 {
            errors.push(FieldError(format!(
                "{at}.periodSeconds: Invalid value: {period}: must be greater than zero"
            )));
        }
        if period > 1800 {
            errors.push(FieldError(format!(
                "{at}.periodSeconds: Invalid value: {period}: must be less than or equal to 1800"
            )));
        }
    }
}

fn validate_job(job: &k8s_openapi::api::batch::v1::Job, errors: &mut Vec<FieldError>) {
    let Some(spec) = job.spec.as_ref() else {
        errors.push(FieldError(
            "spec.template.spec.containers: Required value".into(),
        ));
        return;
    };
    let template_meta = spec.template.metadata.as_ref();
    check_labels(
        template_meta.and_then(|m| m.labels.as_ref()),
        "spec.template.metadata.labels",
        errors,
    );
    for (path, value) in [
        ("spec.parallelism", spec.parallelism.map(i64::from)),
        ("spec.completions", spec.completions.map(i64::from)),
        ("spec.activeDeadlineSeconds", spec.active_deadline_seconds),
        ("spec.backoffLimit", spec.backoff_limit.map(i64::from)),
        (
            "spec.ttlSecondsAfterFinished",
            spec.ttl_seconds_after_finished.map(i64::from),
        ),
    ] {
        if let Some(v) = value.filter(|v| *v < 0) {
            errors.push(FieldError(format!(
                "{path}: Invalid value: {v}: must be greater than or equal to 0"
            )));
        }
    }
    if let Some(p) = spec.parallelism.filter(|p| *p > MAX_REPLICAS) {
        errors.push(FieldError(format!(
            "spec.parallelism: Invalid value: {p}: this simulated cluster runs at most {MAX_REPLICAS} pods per Job at once"
        )));
    }
    let mode = spec.completion_mode.as_deref().unwrap_or("NonIndexed");
    // `maxParallelismForIndexedJob`, a cap on the length of `completedIndexes`.
    const MAX_PARALLELISM_INDEXED: i32 = 100_000;
    if let Some(p) = spec
        .parallelism
        .filter(|p| mode == "Indexed" && *p > MAX_PARALLELISM_INDEXED)
    {
        errors.push(FieldError(format!(
            "spec.parallelism: Invalid value: {p}: must be less than or equal to {MAX_PARALLELISM_INDEXED} when completion mode is Indexed"
        )));
    }
    if !matches!(mode, "NonIndexed" | "Indexed") {
        errors.push(FieldError(format!(
            "spec.completionMode: Unsupported value: \"{mode}\": supported values: \"NonIndexed\", \"Indexed\""
        )));
    }
    if mode == "Indexed" && spec.completions.is_none() {
        errors.push(FieldError(
            "spec.completions: Required value: when completion mode is Indexed".into(),
        ));
    }
    let manual = spec.manual_selector == Some(true);
    match spec.selector.as_ref() {
        None => errors.push(FieldError("spec.selector: Required value".into())),
        Some(selector) => {
            let labels = template_meta
                .and_then(|m| m.labels.clone())
                .unwrap_or_default();
            if manual {
                check_selector("deployment", selector, template_meta, errors);
            } else if let Some(uid) = job.metadata.uid.as_deref() {
                let label = crate::controllers::job::CONTROLLER_UID_LABEL;
                match labels.get(label) {
                    Some(v) if v == uid => {}
                    Some(v) => errors.push(FieldError(format!(
                        "spec.template.metadata.labels[{label}]: Invalid value: \"{v}\": must be '{uid}'"
                    ))),
                    None => errors.push(FieldError(format!(
                        "spec.template.metadata.labels[{label}]: Required value: must be '{uid}'"
                    ))),
                }
                let expected: BTreeMap<String, String> = [(label.to_string(), uid.to_string())]
                    .into_iter()
                    .collect_map();
                if !crate::controllers::selector_matches(selector, &expected) {
                    let rendered = serde_json::to_string(selector).unwrap_or_default();
                    errors.push(FieldError(format!(
                        "spec.selector: Invalid value: {rendered}: `selector` not auto-generated"
                    )));
                }
            }
        }
    }
    let restart = spec
        .template
        .spec
        .as_ref()
        .and_then(|s| s.restart_policy.as_deref());
    if !matches!(restart, Some("OnFailure") | Some("Never")) {
        errors.push(FieldError(
            "spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\""
                .into(),
        ));
    }
    check_template_containers(spec.template.spec.as_ref(), errors);
    // `ValidateJob`: an Indexed Job's pods are named `<job>-<index>` as hostnames.
    if let Some(c) = spec.completions.filter(|c| mode == "Indexed" && *c > 0) {
        let name = job.metadata.name.as_deref().unwrap_or("");
        let hostname = format!("{name}-{}", c - 1);
        if !is_dns1123_label(&hostname) {
            errors.push(FieldError(format!(
                "metadata.name: Invalid value: \"{name}\": will not able to create pod with invalid DNS label: {hostname}"
            )));
        }
    }
}

fn check_replicas(replicas: i32, errors: &mut Vec<FieldError>) {
    if replicas < 0 {
        errors.push(FieldError(format!(
            "spec.replicas: Invalid value: {replicas}: must be greater than or equal to 0"
        )));
    } else if replicas > MAX_REPLICAS {
        errors.push(FieldError(format!(
            "spec.replicas: Invalid value: {replicas}: this simulated cluster runs at most {MAX_REPLICAS} replicas"
        )));
    }
}

fn check_selector(
    workload: &str,
    selector: &LabelSelector,
    template_meta: Option<&ObjectMeta>,
    errors: &mut Vec<FieldError>,
) {
    let empty = selector.match_labels.as_ref().is_none_or(|m| m.is_empty())
        && selector
            .match_expressions
            .as_ref()
            .is_none_or(|m| m.is_empty());
    if empty {
        errors.push(FieldError(format!(
            "spec.selector: Invalid value: \"null\": empty selector is invalid for {workload}"
        )));
        return;
    }
    let labels = template_meta
        .and_then(|m| m.labels.clone())
        .unwrap_or_default();
    if !crate::controllers::selector_matches(selector, &labels) {
        let rendered = serde_json::to_string(&labels).unwrap_or_default();
        errors.push(FieldError(format!(
            "spec.template.metadata.labels: Invalid value: {rendered}: `selector` does not match template `labels`"
        )));
    }
}

fn check_template_containers(spec: Option<&PodSpec>, errors: &mut Vec<FieldError>) {
    match spec {
        None => errors.push(FieldError(
            "spec.template.spec.containers: Required value".into(),
        )),
        Some(s) => {
            if check_container_count(s, "spec.template.spec", errors) {
                crate::apiserver::validation::pod_spec(s, "spec.template.spec", errors)
            }
        }
    }
}

/// The most containers and init containers one pod may list together: a simulator
/// limit. Upstream has no count (the object's size limits it, to some thousands),
/// but every status write carries the whole pod and a pod writes its status a few
/// times per container, so a pod's life costs the square of its container count.
pub const MAX_CONTAINERS_PER_POD: usize = 256;

/// [`MAX_CONTAINERS_PER_POD`], refused in the style of apimachinery's
/// `field.TooMany` (the count, then why). False when the spec is refused: its
/// containers are then not validated one by one.
fn check_container_count(spec: &PodSpec, base: &str, errors: &mut Vec<FieldError>) -> bool {
    let containers = spec.containers.len();
    let init = spec.init_containers.as_ref().map_or(0, Vec::len);
    let total = containers.saturating_add(init);
    if total <= MAX_CONTAINERS_PER_POD {
        return true;
    }
    let list = if containers > MAX_CONTAINERS_PER_POD {
        "containers"
    } else {
        "initContainers"
    };
    errors.push(FieldError(format!(
        "{base}.{list}: Too many: {total}: this simulated cluster runs at most {MAX_CONTAINERS_PER_POD} containers and initContainers in one pod"
    )));
    false
}

fn validate_pod_spec(p: &Pod, errors: &mut Vec<FieldError>) {
    match p.spec.as_ref() {
        None => errors.push(FieldError("spec.containers: Required value".into())),
        Some(s) => {
            if check_container_count(s, "spec", errors) {
                crate::apiserver::validation::pod_spec(s, "spec", errors)
            }
            // validateSchedulingGates (pkg/apis/core/validation/validation.go):
            // qualified names, no duplicates; and no node before the gates are gone.
            let gates = s.scheduling_gates.as_deref().unwrap_or_default();
            let mut seen = std::collections::BTreeSet::new();
            for (i, g) in gates.iter().enumerate() {
                let path = format!("spec.schedulingGates[{i}]");
                let name = std::collections::BTreeMap::from([(g.name.clone(), String::new())]);
                check_labels(Some(&name), &path, errors);
                if !seen.insert(g.name.as_str()) {
                    errors.push(FieldError(format!(
                        "{path}: Duplicate value: \"{}\"",
                        g.name
                    )));
                }
            }
            if !gates.is_empty() && s.node_name.as_deref().is_some_and(|n| !n.is_empty()) {
                errors.push(FieldError(
                    "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared".into(),
                ));
            }
        }
    }
}

/// The reason and STATUS of a pod held back by scheduling gates.
pub const SCHEDULING_GATED: &str = "SchedulingGated";

/// The Priority plugin on a pod's update: the priority set at creation stays when
/// the update leaves it out (the other priority fields are kept the same way).
fn keep_pod_priority(old: &Object, new: &mut Object) {
    let (Object::Pod(o), Object::Pod(n)) = (old, new) else {
        return;
    };
    let (Some(os), Some(ns)) = (o.spec.as_ref(), n.spec.as_mut()) else {
        return;
    };
    if ns.priority.is_none() {
        ns.priority = os.priority;
    }
    if ns.preemption_policy.is_none() {
        ns.preemption_policy.clone_from(&os.preemption_policy);
    }
    if ns.priority_class_name.is_none() {
        ns.priority_class_name.clone_from(&os.priority_class_name);
    }
}

fn check_immutable(old: &Object, new: &Object) -> Result<(), ApiError> {
    let mut errors = Vec::new();
    match (old, new) {
        (Object::Deployment(o), Object::Deployment(n)) => {
            let os = &o.spec.selector;
            let ns = &n.spec.selector;
            if os != ns {
                let rendered = serde_json::to_string(&ns).unwrap_or_default();
                errors.push(FieldError(format!(
                    "spec.selector: Invalid value: {rendered}: field is immutable"
                )));
            }
        }
        (Object::ReplicaSet(o), Object::ReplicaSet(n)) => {
            let os = &o.spec.selector;
            let ns = &n.spec.selector;
            if os != ns {
                let rendered = serde_json::to_string(&ns).unwrap_or_default();
                errors.push(FieldError(format!(
                    "spec.selector: Invalid value: {rendered}: field is immutable"
                )));
            }
        }
        (Object::Job(o), Object::Job(n)) => {
            let (os, ns) = (o.spec.as_ref(), n.spec.as_ref());
            // A suspended Job that never started may change where its pods go
            // (`AllowMutableSchedulingDirectives`).
            let never_started = os.and_then(|s| s.suspend) == Some(true)
                && o.status
                    .as_ref()
                    .and_then(|s| s.start_time.as_ref())
                    .is_none();
            // Typed values become JSON through the one serializer objects use:
            // `json!` would compile a second copy of the pod template's whole
            // `Serialize` (the value serializer's) into the browser build.
            let template = |s: &k8s_openapi::api::batch::v1::JobSpec| {
                let mut t = crate::object::to_json_value(&s.template);
                if never_started {
                    if let Some(m) = t.get_mut("metadata").and_then(|m| m.as_object_mut()) {
                        m.remove("labels");
                        m.remove("annotations");
                    }
                    if let Some(p) = t.get_mut("spec").and_then(|p| p.as_object_mut()) {
                        for k in ["nodeSelector", "tolerations", "affinity", "schedulingGates"] {
                            p.remove(k);
                        }
                    }
                }
                t
            };
            if os.map(template) != ns.map(template) {
                let rendered = ns.map(|s| crate::object::to_json_value(&s.template).to_string());
                errors.push(FieldError(format!(
                    "spec.template: Invalid value: {}: field is immutable",
                    rendered.unwrap_or_default()
                )));
            }
            let field = |f: fn(&k8s_openapi::api::batch::v1::JobSpec) -> serde_json::Value| {
                (os.map(f), ns.map(f))
            };
            for (path, (old, new)) in [
                (
                    "spec.selector",
                    field(|s| crate::object::to_json_value(&s.selector)),
                ),
                (
                    "spec.completions",
                    field(|s| serde_json::json!(s.completions)),
                ),
                (
                    "spec.completionMode",
                    field(|s| serde_json::json!(s.completion_mode)),
                ),
            ] {
                if old != new {
                    let rendered = new.map(|v| v.to_string()).unwrap_or_default();
                    errors.push(FieldError(format!(
                        "{path}: Invalid value: {rendered}: field is immutable"
                    )));
                }
            }
        }
        (Object::Other(o), Object::Other(n)) if n.kind == Kind::PriorityClass => {
            priority::check_priority_class_update(o, n, &mut errors)
        }
        (Object::Other(o), Object::Other(n)) if n.kind == Kind::StatefulSet => {
            // `ValidateStatefulSetUpdate`: the spec but for the fields that may change.
            const MUTABLE: [&str; 7] = [
                "replicas",
                "ordinals",
                "template",
                "updateStrategy",
                "revisionHistoryLimit",
                "persistentVolumeClaimRetentionPolicy",
                "minReadySeconds",
            ];
            let fixed = |obj: &crate::object::OtherObject| {
                let mut spec = obj
                    .fields
                    .get("spec")
                    .and_then(|s| s.as_object())
                    .cloned()
                    .unwrap_or_default();
                spec.retain(|k, _| !MUTABLE.contains(&k.as_str()));
                spec
            };
            if fixed(o) != fixed(n) {
                errors.push(FieldError(
                    "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden".into(),
                ));
            }
        }
        (Object::Pod(o), Object::Pod(n)) => {
            // Scheduling gates may only be removed (`validateOnlyDeletedSchedulingGates`).
            let gates = |p: &Pod| {
                p.spec
                    .as_ref()
                    .and_then(|s| s.scheduling_gates.clone())
                    .unwrap_or_default()
            };
            let old_gates = gates(o);
            for (i, g) in gates(n).iter().enumerate() {
                if !old_gates.iter().any(|x| x.name == g.name) {
                    errors.push(FieldError(format!(
                        "spec.schedulingGates[{i}].name: Forbidden: only deletion is allowed, but found new scheduling gate '{}'",
                        g.name
                    )));
                }
            }
            let on = o.spec.as_ref().and_then(|s| s.node_name.as_ref());
            let nn = n.spec.as_ref().and_then(|s| s.node_name.as_ref());
            if on.is_some() && on != nn {
                errors.push(FieldError(
                    "spec.nodeName: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)".into(),
                ));
            }
        }
        _ => {}
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(invalid(new, errors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_keys_and_values_follow_apimachinery() {
        let mut errors = Vec::new();
        let labels: std::collections::BTreeMap<String, String> = [
            ("app", "web"),
            ("app.kubernetes.io/name", "web_1.x"),
            ("-bad", "ok"),
            ("good", "not ok!"),
            ("Bad.Prefix/x", ""),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        check_labels(Some(&labels), "metadata.labels", &mut errors);
        let msgs: Vec<&str> = errors.iter().map(|e| e.0.as_str()).collect();
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert!(msgs
            .iter()
            .any(|m| m
                .starts_with("metadata.labels: Invalid value: \"-bad\": name part must consist")));
        assert!(msgs.iter().any(
            |m| m.starts_with("metadata.labels: Invalid value: \"not ok!\": a valid label must be")
        ));
        assert!(msgs.iter().any(
            |m| m.starts_with("metadata.labels: Invalid value: \"Bad.Prefix/x\": prefix part")
        ));
    }

    #[test]
    fn dns_names() {
        assert!(is_dns1123_subdomain("web-1.example"));
        assert!(!is_dns1123_subdomain("Web"));
        assert!(!is_dns1123_subdomain("-web"));
        assert!(!is_dns1123_subdomain(""));
        assert!(is_dns1123_label("zone-a"));
        assert!(!is_dns1123_label("a.b"));
    }
}
