//! The Gateway API controller of kind's cloud-provider-kind
//! (kubernetes-sigs/cloud-provider-kind, `pkg/gateway`), the add-on `sim addons
//! enable gateway` starts after installing the standard-channel definitions
//! (`network/gateway/crds.yaml`).
//!
//! Mirrors upstream:
//! - `controller.go` `Init`: the GatewayClass `cloud-provider-kind` (controllerName
//!   `kind.sigs.k8s.io/gateway-controller`, description "cloud-provider-kind gateway
//!   API") created if missing, and its `Accepted` condition (reason `Accepted`,
//!   "Managed by Cloud Provider KIND controller").
//! - `gateway.go` `syncGateway`: a Gateway of a class with that controllerName gets a
//!   status address (`IPAddress`), listener statuses (`supportedKinds` HTTPRoute,
//!   `ResolvedRefs` "All references resolved", `Programmed` "Listener is programmed",
//!   `Accepted` "Listener is valid", `attachedRoutes`; `UnsupportedProtocol` for a
//!   protocol other than HTTP and HTTPS), then `setAcceptedCondition` ("Gateway is
//!   accepted", `ListenersNotValid`, `InvalidParameters`, `UnsupportedAddress`) and
//!   `setProgrammedCondition` ("Envoy configuration updated successfully", `Invalid`
//!   "Gateway is not accepted"); `validateHTTPRoute` and `updateRouteStatuses`: each
//!   parentRef naming the Gateway gets a RouteParentStatus with `Accepted` ("Route is
//!   accepted.", `NotAllowedByListeners` "Route is not allowed by a listener's
//!   policy.", `NoMatchingListenerHostname`/`NoMatchingParent` with "The route's
//!   hostnames do not match any listener hostnames." as upstream words both) and
//!   `ResolvedRefs` (`httproute.go`: "All references resolved", `BackendNotFound`
//!   "backend not found").
//! - The reasons and condition types are those of kubernetes-sigs/gateway-api
//!   `apis/v1/gatewayclass_types.go`, `gateway_types.go` and `shared_types.go`.
//!
//! Simplified: the controller runs with the controller manager (upstream it is a
//! process outside the cluster); the Gateway's address comes from the simulated
//! cloud's load-balancer pool (`cloud.rs`, 203.0.113.0/24) where cloud-provider-kind
//! starts an Envoy container and publishes its address; listener conflicts,
//! ReferenceGrants, TLS and GRPCRoutes are not checked. A route's status is written
//! for the parentRefs of each Gateway, keeping what other Gateways wrote.

use super::manager::{Action, Controller, ControllerId};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::object::{crd, Kind, Object, ObjectKey, OtherObject};
use crate::store::{EventType, WatchEvent};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

pub(crate) const ID: ControllerId = ControllerId::new("cloud-provider-kind");
const ACTOR: Actor = Actor::Controller(ID.name());

/// The API group of the Gateway API.
pub const GROUP: &str = "gateway.networking.k8s.io";
/// The GatewayClass cloud-provider-kind creates.
pub const CLASS_NAME: &str = "cloud-provider-kind";
/// `spec.controllerName` of the classes cloud-provider-kind serves.
pub const CONTROLLER_NAME: &str = "kind.sigs.k8s.io/gateway-controller";
/// The definitions' names.
pub const CLASS_DEFINITION: &str = "gatewayclasses.gateway.networking.k8s.io";
pub const GATEWAY_DEFINITION: &str = "gateways.gateway.networking.k8s.io";
pub const ROUTE_DEFINITION: &str = "httproutes.gateway.networking.k8s.io";

/// What the controller remembers: whether the add-on runs, and its informers'
/// indexes (routes by the Gateways their parentRefs name, routes by the Services
/// their backendRefs name), so a change reaches only the Gateways it concerns.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct GatewayMemory {
    pub installed: bool,
    #[serde(with = "crate::snapshot::pairs")]
    pub routes: BTreeMap<ObjectKey, BTreeSet<ObjectKey>>,
    #[serde(with = "crate::snapshot::pairs")]
    parents: BTreeMap<ObjectKey, BTreeSet<ObjectKey>>,
    #[serde(with = "crate::snapshot::pairs")]
    backends: BTreeMap<ObjectKey, BTreeSet<ObjectKey>>,
    #[serde(with = "crate::snapshot::pairs")]
    route_backends: BTreeMap<ObjectKey, BTreeSet<ObjectKey>>,
}

/// Runs cloud-provider-kind's Gateway API controller.
pub(crate) struct GatewayController;

pub(crate) fn s<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_str()
}

pub(crate) fn spec(o: &OtherObject) -> &Value {
    o.fields.get("spec").unwrap_or(&Value::Null)
}

pub(crate) fn list<'a>(v: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    v.get(key).and_then(Value::as_array).into_iter().flatten()
}

/// The kind a Gateway API definition serves, once it is Established.
pub(crate) fn served_kind(c: &Cluster, definition: &str) -> Option<Kind> {
    match c.store.get(&ObjectKey::new(
        Kind::CustomResourceDefinition,
        "",
        definition,
    )) {
        Some(Object::Other(d)) => crd::established_kind(&d.fields),
        _ => None,
    }
}

fn is_kind(kind: Kind, name: &str) -> bool {
    kind.is_custom() && kind.group() == GROUP && kind.as_str() == name
}

/// The Gateways a route's parentRefs name (group and kind Gateway).
fn parent_keys(route: &OtherObject, gateway: Kind) -> BTreeSet<ObjectKey> {
    let ns = route.metadata.namespace.as_deref().unwrap_or("");
    list(spec(route), "parentRefs")
        .filter(|p| {
            s(p, &["group"]).unwrap_or(GROUP) == GROUP
                && s(p, &["kind"]).unwrap_or("Gateway") == "Gateway"
        })
        .filter_map(|p| {
            let name = s(p, &["name"])?;
            Some(ObjectKey::new(
                gateway,
                s(p, &["namespace"]).unwrap_or(ns),
                name,
            ))
        })
        .collect()
}

/// The Services a route's backendRefs name.
fn backend_keys(route: &OtherObject) -> BTreeSet<ObjectKey> {
    let ns = route.metadata.namespace.as_deref().unwrap_or("");
    list(spec(route), "rules")
        .flat_map(|r| list(r, "backendRefs"))
        .filter(|b| s(b, &["group"]).unwrap_or("").is_empty())
        .filter(|b| s(b, &["kind"]).unwrap_or("Service") == "Service")
        .filter_map(|b| {
            Some(ObjectKey::new(
                Kind::Service,
                s(b, &["namespace"]).unwrap_or(ns),
                s(b, &["name"])?,
            ))
        })
        .collect()
}

fn index(
    map: &mut BTreeMap<ObjectKey, BTreeSet<ObjectKey>>,
    from: &ObjectKey,
    to: &ObjectKey,
    add: bool,
) {
    if add {
        map.entry(from.clone()).or_default().insert(to.clone());
    } else if let Some(set) = map.get_mut(from) {
        set.remove(to);
        if set.is_empty() {
            map.remove(from);
        }
    }
}

impl Controller for GatewayController {
    fn id(&self) -> ControllerId {
        ID
    }

    fn watch(&self, c: &mut Cluster, ev: &WatchEvent, keys: &mut Vec<ObjectKey>) {
        if !c.controllers.gateway.installed {
            return;
        }
        let kind = ev.object.kind();
        if kind == Kind::CustomResourceDefinition {
            if ev.object.name() == CLASS_DEFINITION && ev.event_type != EventType::Deleted {
                keys.push(ev.object.key());
            }
        } else if is_kind(kind, "GatewayClass") || is_kind(kind, "Gateway") {
            keys.push(ev.object.key());
        } else if is_kind(kind, "HTTPRoute") {
            let Object::Other(route) = &*ev.object else {
                return;
            };
            let key = ev.object.key();
            let gateway = served_kind(c, GATEWAY_DEFINITION);
            let memory = &mut c.controllers.gateway;
            // The Gateways it named before and names now are both synced.
            let before = memory.parents.remove(&key).unwrap_or_default();
            for gw in &before {
                index(&mut memory.routes, gw, &key, false);
            }
            keys.extend(before);
            for svc in memory.route_backends.remove(&key).unwrap_or_default() {
                index(&mut memory.backends, &svc, &key, false);
            }
            if ev.event_type == EventType::Deleted {
                return;
            }
            let Some(gateway) = gateway else { return };
            let now = parent_keys(route, gateway);
            for gw in &now {
                index(&mut memory.routes, gw, &key, true);
            }
            let backends = backend_keys(route);
            for svc in &backends {
                index(&mut memory.backends, svc, &key, true);
            }
            keys.extend(now.iter().cloned());
            if !now.is_empty() {
                memory.parents.insert(key.clone(), now);
            }
            if !backends.is_empty() {
                memory.route_backends.insert(key, backends);
            }
        } else if kind == Kind::Service && ev.event_type != EventType::Modified {
            // A backend appears or goes: ResolvedRefs of the routes naming it.
            let memory = &c.controllers.gateway;
            for route in memory.backends.get(&ev.object.key()).into_iter().flatten() {
                keys.extend(memory.parents.get(route).into_iter().flatten().cloned());
            }
        }
    }

    fn relist(&self, c: &mut Cluster, keys: &mut Vec<ObjectKey>) {
        if !c.controllers.gateway.installed {
            return;
        }
        keys.push(ObjectKey::new(
            Kind::CustomResourceDefinition,
            "",
            CLASS_DEFINITION,
        ));
        for def in [CLASS_DEFINITION, GATEWAY_DEFINITION] {
            if let Some(kind) = served_kind(c, def) {
                keys.extend(c.store.list(kind, None).map(Object::key));
            }
        }
    }

    fn reconcile(&self, c: &mut Cluster, key: &ObjectKey) -> Action {
        if !c.controllers.gateway.installed {
            return Action::Done;
        }
        if key.kind == Kind::CustomResourceDefinition {
            return c.gateway_init();
        }
        if is_kind(key.kind, "GatewayClass") {
            return c.gateway_class_sync(key);
        }
        c.gateway_sync(key)
    }
}

/// `meta.SetStatusCondition`: a condition of a new type is appended; an existing
/// one is replaced, keeping its lastTransitionTime while its status stays.
fn set_condition(
    conditions: &mut Vec<Value>,
    now: crate::time::SimTime,
    generation: i64,
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
) {
    crate::object::set_json_condition(conditions, now, type_, status, reason, message);
    if let Some(c) = conditions
        .iter_mut()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(type_))
    {
        if let Some(m) = c.as_object_mut() {
            // metav1.Condition's field order.
            let order = [
                "lastTransitionTime",
                "message",
                "observedGeneration",
                "reason",
                "status",
                "type",
            ];
            let mut out = Map::new();
            m.insert("observedGeneration".into(), json!(generation));
            for k in order {
                if let Some(v) = m.remove(k) {
                    out.insert(k.into(), v);
                }
            }
            *m = out;
        }
    }
}

fn conditions_of(v: &Value) -> Vec<Value> {
    v.get("conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn condition_status<'a>(conditions: &'a [Value], type_: &str) -> Option<&'a str> {
    conditions
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(type_))
        .and_then(|c| c.get("status"))
        .and_then(Value::as_str)
}

/// Whether a request's or a listener's hostname matches another, wildcards
/// (`*.example.com`) covering one or more labels, as the Gateway API's hostname
/// intersection does.
pub fn hostnames_intersect(a: &str, b: &str) -> bool {
    let covers = |wild: &str, name: &str| match wild.strip_prefix('*') {
        Some(suffix) => name.len() > suffix.len() && name.ends_with(suffix),
        None => wild.eq_ignore_ascii_case(name),
    };
    covers(a, b) || covers(b, a)
}

/// `isAllowedByHostname`: a listener without a hostname takes any route; a route
/// without hostnames takes the listener's; else one pair must intersect.
fn allowed_by_hostname(listener: &Value, route: &OtherObject) -> bool {
    let Some(lh) = s(listener, &["hostname"]) else {
        return true;
    };
    let hostnames: Vec<&str> = list(spec(route), "hostnames")
        .filter_map(Value::as_str)
        .collect();
    hostnames.is_empty() || hostnames.iter().any(|h| hostnames_intersect(lh, h))
}

/// `isAllowedByListener`: the listener's allowedRoutes (kinds, and namespaces: Same,
/// All, or Selector on the route namespace's labels).
fn allowed_by_listener(c: &Cluster, gw_ns: &str, listener: &Value, route: &OtherObject) -> bool {
    let kinds: Vec<&Value> = listener
        .get("allowedRoutes")
        .map(|a| list(a, "kinds").collect())
        .unwrap_or_default();
    if !kinds.is_empty() && !kinds.iter().any(|k| s(k, &["kind"]) == Some("HTTPRoute")) {
        return false;
    }
    let route_ns = route.metadata.namespace.as_deref().unwrap_or("");
    match s(listener, &["allowedRoutes", "namespaces", "from"]).unwrap_or("Same") {
        "All" => true,
        "Selector" => {
            let selector = listener
                .get("allowedRoutes")
                .and_then(|a| a.get("namespaces"))
                .and_then(|n| n.get("selector"))
                .cloned()
                .unwrap_or(Value::Null);
            let labels = match c.store.get(&ObjectKey::new(Kind::Namespace, "", route_ns)) {
                Some(Object::Namespace(n)) => n.metadata.labels.clone().unwrap_or_default(),
                _ => return false,
            };
            list(&selector, "matchExpressions").next().is_none()
                && selector
                    .get("matchLabels")
                    .and_then(Value::as_object)
                    .is_some_and(|m| {
                        m.iter()
                            .all(|(k, v)| labels.get(k).map(String::as_str) == v.as_str())
                    })
        }
        _ => route_ns == gw_ns,
    }
}

/// The listeners a route attaches to through one parentRef, or why none.
fn attach<'a>(
    c: &Cluster,
    gw: &'a OtherObject,
    parent_ref: &Value,
    route: &OtherObject,
) -> Result<Vec<&'a Value>, (&'static str, &'static str)> {
    let gw_ns = gw.metadata.namespace.as_deref().unwrap_or("");
    let mut out = Vec::new();
    let mut reason = "NoMatchingParent";
    for l in list(spec(gw), "listeners") {
        let section = s(parent_ref, &["sectionName"]).is_none_or(|n| Some(n) == s(l, &["name"]));
        let port = parent_ref
            .get("port")
            .and_then(Value::as_i64)
            .is_none_or(|p| Some(p) == l.get("port").and_then(Value::as_i64));
        if !(section && port) {
            continue;
        }
        if !allowed_by_listener(c, gw_ns, l, route) {
            reason = "NotAllowedByListeners";
            continue;
        }
        if !allowed_by_hostname(l, route) {
            reason = "NoMatchingListenerHostname";
            continue;
        }
        out.push(l);
    }
    if !out.is_empty() {
        return Ok(out);
    }
    Err(match reason {
        "NotAllowedByListeners" => (reason, "Route is not allowed by a listener's policy."),
        "NoMatchingListenerHostname" => (
            reason,
            "The route's hostnames do not match any listener hostnames.",
        ),
        _ => (
            "NoMatchingParent",
            "The route's hostnames do not match any listener hostnames.",
        ),
    })
}

/// Whether a parentRef names the Gateway `gw`.
fn names_gateway(parent_ref: &Value, route_ns: &str, gw: &ObjectKey) -> bool {
    s(parent_ref, &["group"]).unwrap_or(GROUP) == GROUP
        && s(parent_ref, &["kind"]).unwrap_or("Gateway") == "Gateway"
        && s(parent_ref, &["name"]) == Some(gw.name.as_str())
        && s(parent_ref, &["namespace"]).unwrap_or(route_ns) == gw.namespace
}

impl Cluster {
    /// `Init`: the GatewayClass, once its definition is served.
    fn gateway_init(&mut self) -> Action {
        let Some(kind) = served_kind(self, CLASS_DEFINITION) else {
            return Action::Done;
        };
        let key = ObjectKey::new(kind, "", CLASS_NAME);
        if self.store.get(&key).is_some() {
            return self.gateway_class_sync(&key);
        }
        let mut class = OtherObject {
            kind,
            api_version: format!("{GROUP}/v1"),
            metadata: Default::default(),
            fields: Map::new(),
        };
        class.metadata.name = Some(CLASS_NAME.into());
        class.fields.insert(
            "spec".into(),
            json!({"controllerName": CONTROLLER_NAME, "description": "cloud-provider-kind gateway API"}),
        );
        let write = self.create_as(ACTOR, Object::Other(Box::new(class)));
        Action::after_writes([write.map(|_| ())])
    }

    /// A GatewayClass naming this controller is Accepted.
    fn gateway_class_sync(&mut self, key: &ObjectKey) -> Action {
        let Some(Object::Other(class)) = self.store.get(key).cloned() else {
            return Action::Done;
        };
        if s(spec(&class), &["controllerName"]) != Some(CONTROLLER_NAME) {
            return Action::Done;
        }
        let mut class = (*class).clone();
        let generation = class.metadata.generation.unwrap_or(1);
        let status = class.fields.get("status").cloned().unwrap_or(json!({}));
        let mut conditions = conditions_of(&status);
        let before = conditions.clone();
        set_condition(
            &mut conditions,
            self.now,
            generation,
            "Accepted",
            "True",
            "Accepted",
            "Managed by Cloud Provider KIND controller",
        );
        if conditions == before {
            return Action::Done;
        }
        let mut status = status.as_object().cloned().unwrap_or_default();
        status.insert("conditions".into(), Value::Array(conditions));
        class.fields.insert("status".into(), Value::Object(status));
        let write = self.update_as(ACTOR, Object::Other(Box::new(class)));
        Action::after_writes([write.map(|_| ())])
    }

    /// Whether the Gateway's class is served by this controller.
    fn gateway_is_ours(&self, gw: &OtherObject) -> bool {
        let Some(kind) = served_kind(self, CLASS_DEFINITION) else {
            return false;
        };
        let class = s(spec(gw), &["gatewayClassName"]).unwrap_or("");
        matches!(self.store.get(&ObjectKey::new(kind, "", class)),
            Some(Object::Other(c)) if s(spec(c), &["controllerName"]) == Some(CONTROLLER_NAME))
    }

    /// `syncGateway`: the Gateway's address, listeners and conditions, then the
    /// statuses of the routes naming it.
    fn gateway_sync(&mut self, key: &ObjectKey) -> Action {
        let gw = match self.store.get(key) {
            Some(Object::Other(g)) if g.metadata.deletion_timestamp.is_none() => (**g).clone(),
            _ => {
                self.cloud_free(key);
                return Action::Done;
            }
        };
        if !self.gateway_is_ours(&gw) {
            self.cloud_free(key);
            return Action::Done;
        }
        let now = self.now;
        let generation = gw.metadata.generation.unwrap_or(1);
        let route_keys: Vec<ObjectKey> = self
            .controllers
            .gateway
            .routes
            .get(key)
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        let routes: Vec<OtherObject> = route_keys
            .iter()
            .filter_map(|k| match self.store.get(k) {
                Some(Object::Other(r)) => Some((**r).clone()),
                _ => None,
            })
            .collect();
        // validateHTTPRoute for each route, and the listeners that took it.
        let mut attached: BTreeMap<String, i64> = BTreeMap::new();
        let mut route_writes = Vec::new();
        for route in &routes {
            let route_ns = route.metadata.namespace.as_deref().unwrap_or("");
            let route_gen = route.metadata.generation.unwrap_or(1);
            let backends_ok = backend_keys(route)
                .iter()
                .all(|svc| self.store.get(svc).is_some());
            let old_parents: Vec<Value> = route
                .fields
                .get("status")
                .map(|st| list(st, "parents").cloned().collect())
                .unwrap_or_default();
            let mut mine = Vec::new();
            let mut listeners_taken = BTreeSet::new();
            for parent_ref in list(spec(route), "parentRefs") {
                if !names_gateway(parent_ref, route_ns, key) {
                    continue;
                }
                let old = old_parents.iter().find(|p| {
                    p.get("parentRef") == Some(parent_ref)
                        && s(p, &["controllerName"]) == Some(CONTROLLER_NAME)
                });
                let mut conditions = old.map(conditions_of).unwrap_or_default();
                let attached_to = attach(self, &gw, parent_ref, route);
                // validateHTTPRoute's messages for a route no listener took; the
                // translation's (httproute.go) for one that is served.
                let (accepted, resolved) = match &attached_to {
                    Ok(_) => (
                        ("True", "Accepted", "Route is accepted."),
                        if backends_ok {
                            ("True", "ResolvedRefs", "All references resolved")
                        } else {
                            ("False", "BackendNotFound", "backend not found")
                        },
                    ),
                    Err((reason, message)) => (
                        ("False", *reason, *message),
                        if backends_ok {
                            (
                                "True",
                                "ResolvedRefs",
                                "All backend references have been resolved.",
                            )
                        } else {
                            (
                                "False",
                                "BackendNotFound",
                                "One or more backend references could not be found.",
                            )
                        },
                    ),
                };
                for (type_, (status, reason, message)) in
                    [("Accepted", accepted), ("ResolvedRefs", resolved)]
                {
                    set_condition(
                        &mut conditions,
                        now,
                        route_gen,
                        type_,
                        status,
                        reason,
                        message,
                    );
                }
                for l in attached_to.into_iter().flatten() {
                    listeners_taken.insert(s(l, &["name"]).unwrap_or("").to_string());
                }
                mine.push(json!({
                    "conditions": conditions,
                    "controllerName": CONTROLLER_NAME,
                    "parentRef": parent_ref,
                }));
            }
            for l in listeners_taken {
                *attached.entry(l).or_default() += 1;
            }
            // Keep what was written for other parents.
            let mut parents: Vec<Value> = old_parents
                .iter()
                .filter(|p| {
                    !(s(p, &["controllerName"]) == Some(CONTROLLER_NAME)
                        && p.get("parentRef")
                            .is_some_and(|r| names_gateway(r, route_ns, key)))
                })
                .cloned()
                .collect();
            parents.extend(mine);
            if parents != old_parents {
                let mut r = route.clone();
                let mut st = r
                    .fields
                    .get("status")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                st.insert("parents".into(), Value::Array(parents));
                r.fields.insert("status".into(), Value::Object(st));
                route_writes.push(r);
            }
        }
        // The listeners' statuses.
        let status = gw.fields.get("status").cloned().unwrap_or(json!({}));
        let old_listeners: Vec<Value> = list(&status, "listeners").cloned().collect();
        let mut listener_statuses = Vec::new();
        for l in list(spec(&gw), "listeners") {
            let name = s(l, &["name"]).unwrap_or("");
            let old = old_listeners.iter().find(|o| s(o, &["name"]) == Some(name));
            let mut conditions = old.map(conditions_of).unwrap_or_default();
            let protocol = s(l, &["protocol"]).unwrap_or("");
            let http = protocol == "HTTP" || protocol == "HTTPS";
            let kinds: Vec<&Value> = l
                .get("allowedRoutes")
                .map(|a| list(a, "kinds").collect())
                .unwrap_or_default();
            let http_route = |k: &&Value| {
                s(k, &["group"]).unwrap_or(GROUP) == GROUP && s(k, &["kind"]) == Some("HTTPRoute")
            };
            let kinds_valid = kinds.iter().all(&http_route);
            let supported: Vec<Value> = if !kinds.is_empty() {
                kinds
                    .iter()
                    .filter(|k| http_route(k))
                    .map(|_| json!({"group": GROUP, "kind": "HTTPRoute"}))
                    .collect()
            } else if http {
                vec![json!({"group": GROUP, "kind": "HTTPRoute"})]
            } else {
                Vec::new()
            };
            let mut attached_routes = 0;
            if !kinds_valid {
                set_condition(
                    &mut conditions,
                    now,
                    generation,
                    "ResolvedRefs",
                    "False",
                    "InvalidRouteKinds",
                    "Invalid route kinds specified in allowedRoutes",
                );
            } else {
                set_condition(
                    &mut conditions,
                    now,
                    generation,
                    "ResolvedRefs",
                    "True",
                    "ResolvedRefs",
                    "All references resolved",
                );
                if http {
                    set_condition(
                        &mut conditions,
                        now,
                        generation,
                        "Programmed",
                        "True",
                        "Programmed",
                        "Listener is programmed",
                    );
                    attached_routes = attached.get(name).copied().unwrap_or(0);
                    set_condition(
                        &mut conditions,
                        now,
                        generation,
                        "Accepted",
                        "True",
                        "Accepted",
                        "Listener is valid",
                    );
                } else {
                    set_condition(&mut conditions, now, generation, "Accepted", "False", "UnsupportedProtocol", &format!("Protocol {protocol:?} is not supported; supported protocols are HTTP and HTTPS."));
                }
            }
            listener_statuses.push(json!({
                "attachedRoutes": attached_routes,
                "conditions": conditions,
                "name": name,
                "supportedKinds": supported,
            }));
        }
        // setAcceptedCondition.
        let mut conditions = conditions_of(&status);
        let invalid = listener_statuses
            .iter()
            .filter(|l| condition_status(&conditions_of(l), "Accepted") == Some("False"))
            .count();
        let bad_address = list(spec(&gw), "addresses")
            .filter_map(|a| s(a, &["type"]))
            .find(|t| *t != "IPAddress" && *t != "Hostname")
            .map(str::to_string);
        let (accepted, reason, message) = if spec(&gw)
            .get("infrastructure")
            .and_then(|i| i.get("parametersRef"))
            .is_some()
        {
            (
                "False",
                "InvalidParameters",
                "infrastructure.parametersRef is not supported".to_string(),
            )
        } else if let Some(t) = bad_address {
            (
                "False",
                "UnsupportedAddress",
                format!("Address type {t} is not supported"),
            )
        } else if invalid == 0 {
            ("True", "Accepted", "Gateway is accepted".to_string())
        } else if invalid < listener_statuses.len() {
            (
                "True",
                "ListenersNotValid",
                "One or more listeners are not valid".to_string(),
            )
        } else {
            (
                "False",
                "ListenersNotValid",
                "All listeners are invalid".to_string(),
            )
        };
        set_condition(
            &mut conditions,
            now,
            generation,
            "Accepted",
            accepted,
            reason,
            &message,
        );
        let mut addresses = Vec::new();
        if accepted == "True" {
            match self.cloud_allocate(key, gw.metadata.uid.as_deref().unwrap_or("")) {
                Some(ip) => addresses.push(json!({"type": "IPAddress", "value": ip})),
                None => return Action::Requeue,
            }
        } else {
            self.cloud_free(key);
        }
        // setProgrammedCondition.
        let requested = list(spec(&gw), "addresses").count();
        let assigned = list(spec(&gw), "addresses")
            .filter(|a| addresses.iter().any(|b| b.get("value") == a.get("value")))
            .count();
        let programmed_listeners = listener_statuses
            .iter()
            .filter(|l| condition_status(&conditions_of(l), "Programmed") == Some("True"))
            .count();
        let (programmed, reason, message) = if accepted == "False" {
            ("False", "Invalid", "Gateway is not accepted".to_string())
        } else if assigned != requested {
            (
                "False",
                "AddressNotUsable",
                format!(
                    "{} out of {requested} addresses failed to be assigned",
                    requested - assigned
                ),
            )
        } else if programmed_listeners == listener_statuses.len() {
            (
                "True",
                "Programmed",
                "Envoy configuration updated successfully".to_string(),
            )
        } else {
            (
                "False",
                "ListenersNotProgrammed",
                format!(
                    "{} out of {} listeners failed to be programmed",
                    listener_statuses.len() - programmed_listeners,
                    listener_statuses.len()
                ),
            )
        };
        set_condition(
            &mut conditions,
            now,
            generation,
            "Programmed",
            programmed,
            reason,
            &message,
        );
        let mut new_status = Map::new();
        if !addresses.is_empty() {
            new_status.insert("addresses".into(), Value::Array(addresses));
        }
        new_status.insert("conditions".into(), Value::Array(conditions));
        new_status.insert("listeners".into(), Value::Array(listener_statuses));
        let mut writes = Vec::new();
        if Some(&Value::Object(new_status.clone())) != gw.fields.get("status") {
            let mut g = gw.clone();
            g.fields.insert("status".into(), Value::Object(new_status));
            writes.push(
                self.update_as(ACTOR, Object::Other(Box::new(g)))
                    .map(|_| ()),
            );
        }
        for r in route_writes {
            writes.push(
                self.update_as(ACTOR, Object::Other(Box::new(r)))
                    .map(|_| ()),
            );
        }
        Action::after_writes(writes)
    }
}
