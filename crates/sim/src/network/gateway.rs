//! The Gateway API's data plane as kind's cloud-provider-kind programs it: one
//! Envoy per Gateway, listening on the Gateway's address
//! (kubernetes-sigs/cloud-provider-kind `pkg/gateway`), and `sim addons enable
//! gateway`, which installs the standard-channel definitions (`gateway/crds.yaml`)
//! and starts the controller (`controllers/gateway.rs`).
//!
//! Routing follows upstream's translation to Envoy (`gateway.go`
//! `buildEnvoyResourcesForGateway`, `httproute.go`): the listeners of the request's
//! port; virtual hosts by the intersection of each listener's and route's hostnames
//! (an exact host before a wildcard, a wildcard before `*`); within one, routes in
//! `sortRoutes` order (the catch-all `/` last, Exact paths first, longer paths, more
//! header matches, then the routes' age); `PathPrefix` as Envoy's
//! `path_separated_prefix` (`/api` matches `/api` and `/api/x`, not `/apix`);
//! header matches by case-insensitive name and exact value; a rule's backendRefs as
//! Envoy's weighted clusters. Envoy answers itself with 404 and an empty body when
//! no route matches, 500 when a rule names a backend that does not exist
//! (`DirectResponse{Status: 500}`), and 503 with its `upstream connect error`
//! text when the Service has no endpoint to connect to. Only routes whose status
//! says the Gateway accepted them are served: the controller's status is what
//! programs Envoy.
//!
//! Simplified: Envoy reaches a backend Service through its ClusterIP (upstream's
//! STATIC cluster) by the kube-proxy of the control-plane node; the weighted choice
//! is a hash of the request's sequence number and the cluster's seed, so a run is
//! repeatable; RegularExpression matches, query parameters, filters and TLS are
//! accepted and not applied (a RegularExpression match never matches); a
//! NetworkPolicy sees the Gateway's address as the client.

use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::controllers::gateway::{
    hostnames_intersect, list, s, served_kind, spec, CONTROLLER_NAME, GATEWAY_DEFINITION, GROUP,
    ROUTE_DEFINITION,
};
use crate::object::{Object, ObjectKey, OtherObject};
use serde_json::Value;

/// The definitions `sim addons enable gateway` installs.
pub const CRDS: &str = include_str!("gateway/crds.yaml");

/// Envoy's answer when the connection to the upstream fails.
pub const UPSTREAM_CONNECT_ERROR: &str =
    "upstream connect error or disconnect/reset before headers. reset reason: connection failure";

/// Envoy proxying the request.
pub const ENVOY_US: u64 = 600;

/// What a matched rule does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GatewayDecision {
    /// Envoy answers itself (404 no route, 500 invalid backend).
    Respond(u16, &'static str),
    /// To a Service port (namespace, name, port).
    Backend(String, String, i32),
}

/// One (rule, match) of an accepted route, as an Envoy route.
struct Entry<'a> {
    route: usize,
    rule: &'a Value,
    path_type: &'a str,
    path: &'a str,
    headers: Vec<(&'a str, &'a str, &'a str)>,
    method: Option<&'a str>,
}

impl Entry<'_> {
    fn catch_all(&self) -> bool {
        self.path_type == "PathPrefix" && self.path == "/" && self.headers.is_empty()
    }

    fn matches(&self, path: &str, headers: &[(String, String)]) -> bool {
        let path = path.split('?').next().unwrap_or(path);
        let path_ok = match self.path_type {
            "Exact" => path == self.path,
            "PathPrefix" => {
                let p = self.path.trim_end_matches('/');
                p.is_empty() || path == p || path.starts_with(&format!("{p}/"))
            }
            _ => false,
        };
        path_ok
            && self.method.is_none_or(|m| m == "GET")
            && self.headers.iter().all(|(t, name, value)| {
                *t == "Exact"
                    && headers
                        .iter()
                        .any(|(n, v)| n.eq_ignore_ascii_case(name) && v == value)
            })
    }
}

/// How well a virtual host's domain serves `host`: exact, then the longest
/// wildcard, then `*`.
fn domain_score(domain: &str, host: &str) -> Option<(u8, usize)> {
    if domain == "*" {
        Some((0, 0))
    } else if domain.starts_with('*') {
        hostnames_intersect(domain, host).then_some((1, domain.len()))
    } else {
        domain
            .eq_ignore_ascii_case(host)
            .then_some((2, domain.len()))
    }
}

/// `getIntersectingHostnames`: the domains a route gets on a listener.
fn domains(listener: &Value, route: &OtherObject) -> Vec<String> {
    let hostnames: Vec<&str> = list(spec(route), "hostnames")
        .filter_map(Value::as_str)
        .collect();
    match (s(listener, &["hostname"]), hostnames.is_empty()) {
        (None, true) => vec!["*".into()],
        (None, false) => hostnames.iter().map(|h| h.to_string()).collect(),
        (Some(l), true) => vec![l.to_string()],
        (Some(l), false) => hostnames
            .iter()
            .filter(|h| hostnames_intersect(l, h))
            // The more specific of the two.
            .map(|h| {
                if h.starts_with('*') && !l.starts_with('*') {
                    l
                } else {
                    h
                }
            })
            .map(str::to_string)
            .collect(),
    }
}

/// Whether the route's status says `gateway` accepted it.
fn accepted_by(route: &OtherObject, gateway: &ObjectKey) -> bool {
    let ns = route.metadata.namespace.as_deref().unwrap_or("");
    route
        .fields
        .get("status")
        .map(|st| list(st, "parents"))
        .into_iter()
        .flatten()
        .any(|p| {
            s(p, &["controllerName"]) == Some(CONTROLLER_NAME)
                && p.get("parentRef").is_some_and(|r| {
                    s(r, &["name"]) == Some(gateway.name.as_str())
                        && s(r, &["namespace"]).unwrap_or(ns) == gateway.namespace
                })
                && list(p, "conditions").any(|c| {
                    s(c, &["type"]) == Some("Accepted") && s(c, &["status"]) == Some("True")
                })
        })
}

/// Picks what Envoy does for `host`, `path` and `headers` on `port` of the Gateway
/// `gw`, among `routes` (the HTTPRoutes naming it, oldest first); `exists` says
/// whether a Service exists, `pick` chooses among weighted backends.
#[allow(clippy::too_many_arguments)]
pub fn decide(
    gw: &OtherObject,
    gw_key: &ObjectKey,
    routes: &[&OtherObject],
    port: i32,
    host: &str,
    path: &str,
    headers: &[(String, String)],
    exists: &dyn Fn(&str, &str) -> bool,
    pick: u64,
) -> Option<GatewayDecision> {
    let host = host.split(':').next().unwrap_or(host);
    let listeners: Vec<&Value> = list(spec(gw), "listeners")
        .filter(|l| l.get("port").and_then(Value::as_i64) == Some(i64::from(port)))
        .filter(|l| matches!(s(l, &["protocol"]), Some("HTTP" | "HTTPS")))
        .collect();
    if listeners.is_empty() {
        return None;
    }
    // Virtual hosts: the best domain for the host, and the routes under it.
    let mut best: Option<(u8, usize)> = None;
    let mut chosen: Vec<usize> = Vec::new();
    for (i, route) in routes.iter().enumerate() {
        if !accepted_by(route, gw_key) {
            continue;
        }
        let ns = route.metadata.namespace.as_deref().unwrap_or("");
        // The listeners its parentRefs name (by sectionName or port).
        let refs: Vec<&Value> = list(spec(route), "parentRefs")
            .filter(|r| {
                s(r, &["group"]).unwrap_or(GROUP) == GROUP
                    && s(r, &["name"]) == Some(gw_key.name.as_str())
                    && s(r, &["namespace"]).unwrap_or(ns) == gw_key.namespace
            })
            .collect();
        let score = listeners
            .iter()
            .filter(|l| {
                refs.iter().any(|r| {
                    s(r, &["sectionName"]).is_none_or(|n| Some(n) == s(l, &["name"]))
                        && r.get("port")
                            .and_then(Value::as_i64)
                            .is_none_or(|p| Some(p) == l.get("port").and_then(Value::as_i64))
                })
            })
            .flat_map(|l| domains(l, route))
            .filter_map(|d| domain_score(&d, host))
            .max();
        let Some(score) = score else { continue };
        if best.is_none_or(|b| score > b) {
            best = Some(score);
            chosen.clear();
        }
        if best == Some(score) {
            chosen.push(i);
        }
    }
    let mut entries: Vec<Entry> = Vec::new();
    for &i in &chosen {
        for rule in list(spec(routes[i]), "rules") {
            let matches: Vec<&Value> = list(rule, "matches").collect();
            static NO_MATCH: Value = Value::Null;
            let matches = if matches.is_empty() {
                vec![&NO_MATCH]
            } else {
                matches
            };
            for m in matches {
                entries.push(Entry {
                    route: i,
                    rule,
                    path_type: s(m, &["path", "type"]).unwrap_or("PathPrefix"),
                    path: s(m, &["path", "value"]).unwrap_or("/"),
                    headers: list(m, "headers")
                        .map(|h| {
                            (
                                s(h, &["type"]).unwrap_or("Exact"),
                                s(h, &["name"]).unwrap_or(""),
                                s(h, &["value"]).unwrap_or(""),
                            )
                        })
                        .collect(),
                    method: s(m, &["method"]),
                });
            }
        }
    }
    // sortRoutes: a stable sort, so equal entries keep the routes' age order.
    entries.sort_by_key(|e| {
        (
            e.catch_all(),
            e.path_type != "Exact",
            std::cmp::Reverse(e.path.len()),
            std::cmp::Reverse(e.headers.len()),
            e.route,
        )
    });
    let Some(entry) = entries.iter().find(|e| e.matches(path, headers)) else {
        return Some(GatewayDecision::Respond(404, ""));
    };
    let ns = routes[entry.route]
        .metadata
        .namespace
        .as_deref()
        .unwrap_or("");
    let mut backends = Vec::new();
    for b in list(entry.rule, "backendRefs") {
        let bns = s(b, &["namespace"]).unwrap_or(ns);
        let name = s(b, &["name"]).unwrap_or("");
        if !exists(bns, name) {
            return Some(GatewayDecision::Respond(500, ""));
        }
        let weight = b.get("weight").and_then(Value::as_u64).unwrap_or(1);
        if weight > 0 {
            let port = b.get("port").and_then(Value::as_i64).unwrap_or(0) as i32;
            backends.push((weight, bns.to_string(), name.to_string(), port));
        }
    }
    let total: u64 = backends.iter().map(|b| b.0).sum();
    if total == 0 {
        return Some(GatewayDecision::Respond(500, ""));
    }
    let mut at = pick % total;
    for (w, bns, name, port) in backends {
        if at < w {
            return Some(GatewayDecision::Backend(bns, name, port));
        }
        at -= w;
    }
    None
}

impl Cluster {
    /// `sim addons enable gateway`: the Gateway API's standard-channel definitions,
    /// created as an admin would apply them, and cloud-provider-kind's controller,
    /// which creates its GatewayClass once they are served.
    pub fn enable_gateway_addon(&mut self) -> Result<String, crate::SimError> {
        if self.controllers.gateway.installed {
            return Ok("The 'gateway' addon is already enabled".into());
        }
        let objects = crate::decode_manifests(CRDS).map_err(|e| crate::SimError(e.to_string()))?;
        self.check_storage()
            .map_err(|e| crate::SimError(e.to_string()))?;
        self.current_cause = crate::trace::Cause::User;
        let mut out = Vec::new();
        for obj in objects {
            let name = obj.name().to_string();
            if self.store.get(&obj.key()).is_none() {
                self.create_as(Actor::admin(), obj)
                    .map_err(|e| crate::SimError(e.to_string()))?;
                out.push(format!(
                    "customresourcedefinition.apiextensions.k8s.io/{name} created"
                ));
            }
        }
        self.controllers.gateway.installed = true;
        let mut keys = Vec::new();
        crate::controllers::manager::Controller::relist(
            &crate::controllers::gateway::GatewayController,
            self,
            &mut keys,
        );
        for k in keys {
            self.enqueue(crate::controllers::gateway::ID.component(), k);
        }
        out.push(format!(
            "The 'gateway' addon is enabled: cloud-provider-kind's controller {CONTROLLER_NAME} creates gatewayclass/{}",
            crate::controllers::gateway::CLASS_NAME
        ));
        Ok(out.join("\n"))
    }

    /// Envoy of the Gateway `gw`, at `ip`: the route for the request, then the
    /// backend Service through kube-proxy.
    pub(crate) fn gateway_decide(
        &self,
        gw: &ObjectKey,
        port: i32,
        host: &str,
        path: &str,
        headers: &[(String, String)],
        seq: u64,
    ) -> Option<GatewayDecision> {
        let Some(Object::Other(g)) = self.store.get(gw) else {
            return None;
        };
        let routes: Vec<&OtherObject> = self
            .controllers
            .gateway
            .routes
            .get(gw)
            .into_iter()
            .flatten()
            .filter_map(|k| match self.store.get(k) {
                Some(Object::Other(r)) => Some(&**r),
                _ => None,
            })
            .collect();
        let mut routes = routes;
        // Oldest first, then by namespace and name (the Gateway API's tie-break).
        routes.sort_by(|a, b| {
            (
                a.metadata.creation_timestamp.as_ref().map(|t| t.0),
                &a.metadata.namespace,
                &a.metadata.name,
            )
                .cmp(&(
                    b.metadata.creation_timestamp.as_ref().map(|t| t.0),
                    &b.metadata.namespace,
                    &b.metadata.name,
                ))
        });
        let exists = |ns: &str, name: &str| {
            self.store
                .get(&ObjectKey::new(crate::object::Kind::Service, ns, name))
                .is_some()
        };
        let pick = crate::network::http::mix(seq ^ self.seed.rotate_left(17));
        decide(g, gw, &routes, port, host, path, headers, &exists, pick)
    }

    /// Whether `kind` is the HTTPRoute kind this cluster serves.
    pub fn is_http_route_kind(&self, kind: crate::object::Kind) -> bool {
        served_kind(self, ROUTE_DEFINITION) == Some(kind)
    }

    /// The Gateways with an address: (namespace, name, address).
    pub fn gateways(&self) -> Vec<(String, String, String)> {
        let Some(kind) = served_kind(self, GATEWAY_DEFINITION) else {
            return Vec::new();
        };
        self.load_balancers()
            .into_iter()
            .filter(|(_, k)| k.kind == kind)
            .map(|(ip, k)| (k.namespace, k.name, ip))
            .collect()
    }
}
