//! What the apiserver answers about health: `/healthz`, `/livez` and `/readyz`
//! (k8s.io/apiserver/pkg/server/healthz, `handleRootHealth`) and the deprecated
//! ComponentStatus list (pkg/registry/core/componentstatus).

use crate::cluster::Cluster;
use crate::runtime::control_plane::ControlPlaneComponent;
use crate::sort::StableSort;
use k8s_openapi::api::core::v1::{ComponentCondition, ComponentStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// An answer to a GET of a non-resource path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawResponse {
    /// HTTP status code.
    pub code: u16,
    /// The body (`text/plain` for the health endpoints).
    pub body: String,
}

/// The post-start hooks a kube-apiserver of this version registers, in the order its
/// health endpoints list them. They finished when the apiserver started; they pass
/// as long as it runs.
const POST_START_HOOKS: &[&str] = &[
    "poststarthook/start-apiserver-admission-initializer",
    "poststarthook/generic-apiserver-start-informers",
    "poststarthook/priority-and-fairness-config-consumer",
    "poststarthook/priority-and-fairness-filter",
    "poststarthook/storage-object-count-tracker-hook",
    "poststarthook/start-apiextensions-informers",
    "poststarthook/start-apiextensions-controllers",
    "poststarthook/crd-informer-synced",
    "poststarthook/start-system-namespaces-controller",
    "poststarthook/start-cluster-authentication-info-controller",
    "poststarthook/start-kube-apiserver-identity-lease-controller",
    "poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
    "poststarthook/start-legacy-token-tracking-controller",
    "poststarthook/start-service-ip-repair-controllers",
    "poststarthook/rbac/bootstrap-roles",
    "poststarthook/scheduling/bootstrap-system-priority-classes",
    "poststarthook/priority-and-fairness-config-producer",
    "poststarthook/bootstrap-controller",
    "poststarthook/start-kube-aggregator-informers",
    "poststarthook/apiservice-status-local-available-controller",
    "poststarthook/apiservice-status-remote-available-controller",
    "poststarthook/apiservice-registration-controller",
    "poststarthook/apiservice-discovery-controller",
    "poststarthook/kube-apiserver-autoregistration",
    "autoregister-completion",
    "poststarthook/apiservice-openapi-controller",
    "poststarthook/apiservice-openapiv3-controller",
];

/// Why the etcd checks fail while etcd is down (kept for the check's own endpoint;
/// the aggregated endpoints withhold it).
const ETCD_CHECK_ERROR: &str = "error getting data from etcd: context deadline exceeded";

impl Cluster {
    /// The named checks of one health endpoint (`healthz`, `livez` or `readyz`), in
    /// the order the apiserver runs them, each with its error if it fails.
    fn health_checks(&self, endpoint: &str) -> Vec<(&'static str, Option<&'static str>)> {
        let etcd = self.check_storage().err().map(|_| ETCD_CHECK_ERROR);
        let mut checks: Vec<(&'static str, Option<&'static str>)> =
            vec![("ping", None), ("log", None), ("etcd", etcd)];
        if endpoint == "readyz" {
            checks.push(("etcd-readiness", etcd));
            checks.push(("informer-sync", None));
        }
        checks.extend(POST_START_HOOKS.iter().map(|h| (*h, None)));
        if endpoint == "readyz" {
            checks.push(("shutdown", None));
        }
        checks
    }

    /// Serves a GET of a non-resource path, as `kubectl get --raw` sends it: the
    /// health endpoints with their `?verbose` and `?exclude=` parameters, and each
    /// check on its own (`/readyz/etcd`). Paths the simulation does not serve give
    /// `None`. The caller must have connected ([`Cluster::connect`]).
    pub fn get_raw(&self, path_and_query: &str) -> Option<RawResponse> {
        let (path, query) = path_and_query
            .split_once('?')
            .unwrap_or((path_and_query, ""));
        let path = path.trim_end_matches('/');
        let trimmed = path.strip_prefix('/')?;
        let (endpoint, check) = match trimmed.split_once('/') {
            Some((e, c)) => (e, Some(c)),
            None => (trimmed, None),
        };
        if !matches!(endpoint, "healthz" | "livez" | "readyz") {
            return None;
        }
        let checks = self.health_checks(endpoint);
        if let Some(name) = check {
            // `adaptCheckToHandler`: one check, its error not withheld.
            return Some(match checks.iter().find(|(n, _)| *n == name) {
                None => RawResponse {
                    code: 404,
                    body: "404 page not found\n".into(),
                },
                Some((_, None)) => RawResponse {
                    code: 200,
                    body: "ok".into(),
                },
                Some((_, Some(err))) => RawResponse {
                    code: 500,
                    body: format!("internal server error: {err}\n"),
                },
            });
        }
        let params: Vec<(&str, &str)> = query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| p.split_once('=').unwrap_or((p, "")))
            .collect();
        let verbose = params.iter().any(|(k, _)| *k == "verbose");
        let mut excluded: Vec<&str> = params
            .iter()
            .filter(|(k, _)| *k == "exclude")
            .map(|(_, v)| *v)
            .collect();
        // `handleRootHealth`.
        let mut body = String::new();
        let mut failed = false;
        for (name, err) in &checks {
            if let Some(i) = excluded.iter().position(|e| e == name) {
                excluded.remove(i);
                body.push_str(&format!("[+]{name} excluded: ok\n"));
                continue;
            }
            match err {
                // The reason is logged, not sent: the endpoint is public.
                Some(_) => {
                    failed = true;
                    body.push_str(&format!("[-]{name} failed: reason withheld\n"));
                }
                None => body.push_str(&format!("[+]{name} ok\n")),
            }
        }
        if !excluded.is_empty() {
            excluded.stable_sort();
            excluded.dedup();
            let quoted: Vec<String> = excluded.iter().map(|e| format!("{e:?}")).collect();
            body.push_str(&format!(
                "warn: some health checks cannot be excluded: no matches for {}\n",
                quoted.join(",")
            ));
        }
        if failed {
            // http.Error adds the newline.
            body.push_str(&format!("{endpoint} check failed\n"));
            return Some(RawResponse { code: 500, body });
        }
        if !verbose {
            return Some(RawResponse {
                code: 200,
                body: "ok".into(),
            });
        }
        body.push_str(&format!("{endpoint} check passed\n"));
        Some(RawResponse { code: 200, body })
    }

    /// `GET /api/v1/componentstatuses`: the scheduler and the controller manager
    /// probed on their secure ports, and etcd through the apiserver's storage
    /// client. Served without etcd: nothing here is stored.
    pub fn component_statuses(&self) -> Vec<ComponentStatus> {
        let probe = |c: ControlPlaneComponent, port: u16| {
            if self.component_running(c) {
                (true, "ok".to_string(), None)
            } else {
                // The HTTP prober turns a failed connection into a failure whose
                // output is the error, with no separate error.
                (
                    false,
                    format!(
                        "Get \"https://127.0.0.1:{port}/healthz\": dial tcp 127.0.0.1:{port}: connect: connection refused"
                    ),
                    None,
                )
            }
        };
        // One entry per `--etcd-servers` endpoint: healthy while the member runs and
        // etcd has a quorum (etcd's `/health` fails without a leader).
        let quorum = self.check_storage().is_ok();
        let etcd = (0..self.etcd_member_count()).map(|i| {
            let health = if quorum && self.etcd_member_running(i) {
                (true, "ok".to_string(), None)
            } else {
                (false, String::new(), Some(ETCD_CHECK_ERROR.to_string()))
            };
            (crate::etcd::member_name(i), health)
        });
        [
            (
                "scheduler".to_string(),
                probe(ControlPlaneComponent::Scheduler, 10259),
            ),
            (
                "controller-manager".to_string(),
                probe(ControlPlaneComponent::ControllerManager, 10257),
            ),
        ]
        .into_iter()
        .chain(etcd)
        .map(|(name, (healthy, message, error))| ComponentStatus {
            metadata: ObjectMeta {
                name: Some(name.to_string()),
                ..Default::default()
            },
            conditions: Some(vec![ComponentCondition {
                type_: "Healthy".into(),
                status: if healthy { "True" } else { "False" }.into(),
                message: (!message.is_empty()).then_some(message),
                error,
            }]),
        })
        .collect()
    }
}
