//! One request as a client sends it to the reception desk, handled end to end.
//!
//! A client (kubectl, the UI's buttons, a script) builds a [`Request`]: the
//! credentials it presents, what it asks for, and whether it is a dry run. The desk
//! decides who is asking ([`Cluster::authenticate_request`]: the bearer token, then
//! impersonation), whether they may ([`Cluster::authorize`]), and then runs admission,
//! validation and storage. A write refused at any stage is recorded at that stage, as
//! the user the desk recognised, so `sim requests`, the office and `sim why` name the
//! person who asked: `kubectl --as=jane create …` is jane's request, and a forged
//! token stops at authentication. Reads go through [`Cluster::authorize_read`], the
//! same two gates without a record (the desk logs writes).
//!
//! Simplified: a patch is merged by the client, which sends the merged object with
//! the verb `patch` (upstream's apiserver merges it itself).

use crate::apiserver::auth::{Attributes, Caller, ADMIN_TOKEN, SYSTEM_PRIVILEGED_GROUP};
use crate::apiserver::{fields, Actor, DeleteOptions};
use crate::cluster::Cluster;
use crate::error::{ApiError, StatusReason};
use crate::object::{Kind, Object, ObjectKey};
use std::sync::Arc;

/// What the request log names as the user of a request whose credentials the desk
/// did not recognise (the audit log has no user for it either).
pub const UNAUTHENTICATED: &str = "(unauthenticated)";

/// The identity a client presents: its bearer token and, with kubectl's `--as` and
/// `--as-group`, the user it asks to act as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credentials {
    pub token: String,
    pub impersonate: Option<Impersonation>,
}

/// `Impersonate-User` and `Impersonate-Group`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Impersonation {
    pub user: String,
    pub groups: Vec<String>,
}

impl Credentials {
    /// The simulated kubeconfig's own credential: the administrator's token.
    pub fn admin() -> Credentials {
        Credentials::token(ADMIN_TOKEN)
    }

    /// A bearer token (`--token`).
    pub fn token(token: &str) -> Credentials {
        Credentials {
            token: token.to_string(),
            impersonate: None,
        }
    }

    /// The same token, asking to act as `user` in `groups` (`--as`, `--as-group`).
    pub fn impersonating(mut self, user: &str, groups: &[String]) -> Credentials {
        self.impersonate = Some(Impersonation {
            user: user.to_string(),
            groups: groups.to_vec(),
        });
        self
    }
}

/// What a write asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// `POST`: a new object (its status is dropped, as the main resource ignores it).
    Create(Object),
    /// `PUT`: the whole object (its status is kept as stored).
    Update(Object),
    /// `PATCH`, as the object the client merged (its status is kept as stored), of
    /// the object or of a subresource such as `scale`.
    Patch {
        object: Object,
        subresource: Option<String>,
    },
    /// `DELETE`, with its options (none: the object's own grace period and the
    /// propagation its finalizers ask for).
    Delete {
        key: ObjectKey,
        options: Option<DeleteOptions>,
    },
    /// `PATCH` with the apply patch type (server-side apply): the configuration
    /// the applier sends, merged into the live object by the apiserver.
    Apply(Object),
    /// `POST pods/NAME/eviction` with the eviction's grace period.
    Evict {
        namespace: String,
        name: String,
        grace_period_seconds: Option<i64>,
    },
}

impl Body {
    /// A patch of the object itself.
    pub fn patch(object: Object) -> Body {
        Body::Patch {
            object,
            subresource: None,
        }
    }

    /// The authorizer's view of this body (verb, resource, namespace, name).
    fn attributes(&self) -> Attributes {
        // A namespaced object sent without a namespace lands in `default`.
        let of = |verb: &str, kind: Kind, ns: &str, name: &str| {
            Attributes::on(verb, kind, if ns.is_empty() { "default" } else { ns }, name)
        };
        match self {
            Body::Create(o) => of("create", o.kind(), o.namespace(), ""),
            Body::Update(o) => of("update", o.kind(), o.namespace(), o.name()),
            Body::Apply(o) => of("patch", o.kind(), o.namespace(), o.name()),
            Body::Patch {
                object: o,
                subresource,
            } => Attributes {
                subresource: subresource.clone(),
                ..of("patch", o.kind(), o.namespace(), o.name())
            },
            Body::Delete { key, .. } => of("delete", key.kind, &key.namespace, &key.name),
            Body::Evict {
                namespace, name, ..
            } => Attributes {
                subresource: Some("eviction".into()),
                ..of("create", Kind::Pod, namespace, name)
            },
        }
    }

    /// The verb the request log records, and the object the request names.
    fn record_as(&self) -> (&'static str, ObjectKey) {
        match self {
            Body::Create(o) => ("create", o.key()),
            Body::Update(o) => ("update", o.key()),
            Body::Patch { object, .. } | Body::Apply(object) => ("patch", object.key()),
            Body::Delete { key, .. } => ("delete", key.clone()),
            Body::Evict {
                namespace, name, ..
            } => ("create", ObjectKey::new(Kind::Pod, namespace, name)),
        }
    }
}

/// One write request: who sends it, what it asks for, and whether it is a dry run
/// (`dryRun=All`: every stage runs, nothing is stored, and nothing is recorded).
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub credentials: Credentials,
    pub body: Body,
    pub dry_run: bool,
    /// `fieldManager`: who the written fields belong to (`None`: the client's
    /// user agent, `kubectl`). Required for an apply.
    pub field_manager: Option<String>,
    /// `force`: an apply takes over the fields other managers own.
    pub force: bool,
}

impl Request {
    pub fn new(credentials: &Credentials, body: Body) -> Request {
        Request {
            credentials: credentials.clone(),
            body,
            dry_run: false,
            field_manager: None,
            force: false,
        }
    }

    /// The same request naming its field manager.
    pub fn field_manager(mut self, manager: Option<&str>) -> Request {
        self.field_manager = manager.map(str::to_string);
        self
    }

    /// The same apply, forced (`--force-conflicts`).
    pub fn force(mut self, force: bool) -> Request {
        self.force = force;
        self
    }

    /// The same request as a server-side dry run.
    pub fn dry_run(mut self, dry_run: bool) -> Request {
        self.dry_run = dry_run;
        self
    }
}

impl Cluster {
    /// The desk's first gate and the impersonation filter after it: the caller a
    /// request's credentials name. An unknown token is 401 `Unauthorized`; acting as
    /// someone else needs permission to `impersonate` users (the administrator's
    /// `system:masters`), else 403 with upstream's message.
    pub fn authenticate_request(&self, credentials: &Credentials) -> Result<Caller, ApiError> {
        let authenticated = self.authenticate(&credentials.token)?;
        impersonate(authenticated, credentials).map_err(|(_, e)| e)
    }

    /// A read's two gates: who is asking, and whether RBAC lets them do `a`. Reads
    /// are not recorded.
    pub fn authorize_read(
        &self,
        credentials: &Credentials,
        a: &Attributes,
    ) -> Result<Caller, ApiError> {
        let caller = self.authenticate_request(credentials)?;
        self.authorize(&caller, a)?;
        Ok(caller)
    }

    /// Handles one write end to end: authentication, authorization, then admission,
    /// validation and storage as the caller. A refusal at any stage is recorded at
    /// that stage (a dry run is not recorded). Returns the object as stored (for a
    /// delete, as it stands after the request; for an eviction, the evicted pod).
    pub fn handle(&mut self, req: Request) -> Result<Object, ApiError> {
        self.connect_as()?;
        let (verb, key) = req.body.record_as();
        let gates = self
            .authenticate(&req.credentials.token)
            .map_err(|e| (UNAUTHENTICATED.to_string(), e))
            .and_then(|authenticated| impersonate(authenticated, &req.credentials))
            .and_then(|caller| {
                self.authorize(&caller, &req.body.attributes())
                    .map(|()| caller.clone())
                    .map_err(|e| (caller.user, e))
            });
        let caller = match gates {
            Ok(caller) => caller,
            Err((user, e)) => {
                if !req.dry_run {
                    let arrived = self.feed.next_seq();
                    self.record_request_of(&user, verb, &Err(e.clone()), Some(&key), arrived);
                }
                return Err(e);
            }
        };
        // The request's options are checked before anything else runs.
        let options = match &req.body {
            Body::Create(_) => "CreateOptions",
            Body::Update(_) => "UpdateOptions",
            _ => "PatchOptions",
        };
        let apply = matches!(req.body, Body::Apply(_));
        let manager = req.field_manager.clone().unwrap_or_default();
        fields::validate_field_manager(&manager, apply, options)?;
        if req.force && !apply {
            return Err(ApiError::new(
                StatusReason::Invalid,
                "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch",
            ));
        }
        // Past the gates, a write needs etcd: without a quorum it times out before
        // admission runs (not recorded: the desk never finished it).
        self.check_storage()?;
        self.current_cause = crate::trace::Cause::User;
        let actor = Actor::User(caller);
        let subresource = match &req.body {
            Body::Patch {
                subresource: Some(s),
                ..
            } => s.clone(),
            _ => String::new(),
        };
        // Without a fieldManager, the manager is the user agent's first word.
        let named = if manager.is_empty() {
            "kubectl"
        } else {
            &manager
        };
        self.request_manager = Some((named.to_string(), subresource));
        let stored = self.serve_body(actor, req.body, req.dry_run, &manager, req.force);
        self.request_manager = None;
        self.applied_fields = None;
        stored.map(Arc::unwrap_or_clone)
    }

    /// The stages after the desk's gates, for one body.
    fn serve_body(
        &mut self,
        actor: Actor,
        body: Body,
        dry_run: bool,
        manager: &str,
        force: bool,
    ) -> Result<Arc<Object>, ApiError> {
        match (body, dry_run) {
            (Body::Apply(obj), dry_run) => self.serve_apply(actor, obj, manager, force, dry_run),
            (
                Body::Patch {
                    object,
                    subresource: Some(sub),
                },
                dry_run,
            ) if sub == "ephemeralcontainers" && object.kind() == Kind::Pod => {
                self.ephemeral_containers_as(actor, object, dry_run)
            }
            (Body::Create(obj), false) => self.create_as(actor, without_status(obj)),
            (Body::Create(obj), true) => self.create_dry_run(without_status(obj)).map(Arc::new),
            (Body::Update(obj) | Body::Patch { object: obj, .. }, true) => {
                let obj = self.with_stored_status(obj);
                self.update_dry_run(obj).map(Arc::new)
            }
            (Body::Update(obj), false) => {
                let obj = self.with_stored_status(obj);
                self.write_as(actor, "update", obj)
            }
            (Body::Patch { object: obj, .. }, false) => {
                let obj = self.with_stored_status(obj);
                self.write_as(actor, "patch", obj)
            }
            (Body::Delete { key, options }, dry_run) => {
                if dry_run {
                    return self.get(key.kind, &key.namespace, &key.name).map(Arc::new);
                }
                match options {
                    Some(o) => self.delete_with_options_as(
                        actor,
                        &key,
                        o.grace_period_seconds,
                        Some(o.propagation),
                    ),
                    None => self.delete_as(actor, &key, None),
                }
            }
            (
                Body::Evict {
                    namespace,
                    name,
                    grace_period_seconds,
                },
                _,
            ) => self.evict_as(actor, &namespace, &name, grace_period_seconds),
        }
    }

    /// A server-side apply: the configuration merged into the live object (or
    /// creating it), with the applier's field ownership and conflicts.
    fn serve_apply(
        &mut self,
        actor: Actor,
        mut obj: Object,
        manager: &str,
        force: bool,
        dry_run: bool,
    ) -> Result<Arc<Object>, ApiError> {
        if obj
            .meta()
            .managed_fields
            .as_ref()
            .is_some_and(|m| !m.is_empty())
        {
            return Err(ApiError::new(
                StatusReason::BadRequest,
                "metadata.managedFields must be nil",
            ));
        }
        obj.meta_mut().managed_fields = None;
        // The main resource's apply ignores status (its strategy resets it).
        let mut obj = without_status(obj);
        if obj.kind().namespaced() && obj.namespace().is_empty() {
            obj.meta_mut().namespace = Some("default".into());
        }
        let key = obj.key();
        let config = obj.to_json();
        let time = self.now_string();
        let api_version = obj.api_version();
        let Some(live) = self.store.get(&key) else {
            let entry = fields::ManagedEntry {
                manager: manager.to_string(),
                operation: fields::Operation::Apply,
                api_version,
                time,
                subresource: String::new(),
                fields: Arc::new(fields::config_set(&config)),
            };
            self.applied_fields = Some(vec![entry]);
            return if dry_run {
                self.create_dry_run(obj).map(Arc::new)
            } else {
                self.create_as(actor, obj)
            };
        };
        let live_json = live.to_json();
        let applied = fields::apply(
            &live_json,
            self.store.managed_fields(&key),
            &config,
            manager,
            force,
            &api_version,
            &time,
        )?;
        // Nothing to change (the object nor its managedFields): no write, as the
        // storage layer skips a write of the same bytes.
        if applied.object == live_json && applied.managed == self.store.managed_fields(&key) {
            return Ok(Arc::new(live.clone()));
        }
        let merged = Object::from_json(key.kind, applied.object)
            .map_err(|e| ApiError::new(StatusReason::BadRequest, e))?;
        self.applied_fields = Some(applied.managed);
        if dry_run {
            self.update_dry_run(merged).map(Arc::new)
        } else {
            self.write_as(actor, "patch", merged)
        }
    }

    /// `obj` with the status the store holds for it: a user's update of the main
    /// resource leaves status as it is.
    fn with_stored_status(&self, mut obj: Object) -> Object {
        if let Some(live) = self.store.get(&obj.key()) {
            crate::cluster::copy_status(live, &mut obj);
        }
        obj
    }
}

/// The impersonation filter: the caller `authenticated` asks to act as, or the 403
/// (with the authenticated user, for the record).
fn impersonate(
    authenticated: Caller,
    credentials: &Credentials,
) -> Result<Caller, (String, ApiError)> {
    let Some(imp) = &credentials.impersonate else {
        return Ok(authenticated);
    };
    if !authenticated
        .groups
        .iter()
        .any(|g| g == SYSTEM_PRIVILEGED_GROUP)
    {
        let message = format!(
            "users \"{}\" is forbidden: User \"{}\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope",
            imp.user, authenticated.user
        );
        return Err((
            authenticated.user,
            ApiError::new(StatusReason::Forbidden, message),
        ));
    }
    Ok(Caller::impersonated(&imp.user, &imp.groups))
}

/// `obj` without status: status is written only through the status subresource, by
/// controllers.
fn without_status(mut obj: Object) -> Object {
    crate::cluster::clear_status(&mut obj);
    obj
}
