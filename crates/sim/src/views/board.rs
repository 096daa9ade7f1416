//! The floor's notice board: the staffing minimums (PodDisruptionBudgets), what
//! each promises and what its clerk counted last, the schedules (CronJobs), when
//! each last ran and runs next, and the load gauges (HorizontalPodAutoscalers),
//! what each measured and how many robots it asks for, and the fences
//! (NetworkPolicies) around robots, and the sorting gates (Gateways) with their
//! addresses and route cards.

use crate::cluster::Cluster;
use crate::controllers::disruption::{BudgetSpec, BudgetStatus};
use crate::object::{Kind, Object};

/// One PodDisruptionBudget: its promise and its status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetView {
    pub namespace: String,
    pub name: String,
    /// `minAvailable` (`2`, `50%`), if set.
    pub min_available: Option<String>,
    /// `maxUnavailable`, if set.
    pub max_unavailable: Option<String>,
    pub current_healthy: i64,
    pub desired_healthy: i64,
    pub expected_pods: i64,
    pub disruptions_allowed: i64,
}

impl Cluster {
    /// Every PodDisruptionBudget, ordered by namespace and name. Costs a pass over
    /// the budgets, not pods.
    pub fn budgets(&self) -> Vec<BudgetView> {
        self.store
            .list(Kind::PodDisruptionBudget, None)
            .filter_map(|o| match o {
                Object::Other(b) => Some(b),
                _ => None,
            })
            .map(|b| {
                let spec = BudgetSpec::of(b);
                let status = BudgetStatus::of(b);
                let shown = |v: Option<
                    k8s_openapi::apimachinery::pkg::util::intstr::IntOrString,
                >| {
                    v.map(|v| match v {
                        k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::Int(n) => {
                            n.to_string()
                        }
                        k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::String(s) => s,
                    })
                };
                BudgetView {
                    namespace: b.metadata.namespace.clone().unwrap_or_default(),
                    name: b.metadata.name.clone().unwrap_or_default(),
                    min_available: shown(spec.min_available),
                    max_unavailable: shown(spec.max_unavailable),
                    current_healthy: status.current_healthy,
                    desired_healthy: status.desired_healthy,
                    expected_pods: status.expected_pods,
                    disruptions_allowed: status.disruptions_allowed,
                }
            })
            .collect()
    }
}

/// One CronJob: its schedule and where it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleView {
    pub namespace: String,
    pub name: String,
    pub schedule: String,
    /// `spec.timeZone`, when it names one.
    pub time_zone: Option<String>,
    pub suspended: bool,
    /// Jobs running now (`status.active`).
    pub active: usize,
    /// When it last made a Job, in simulated milliseconds.
    pub last_ms: Option<u64>,
    /// When it makes the next one (none while suspended or for a schedule that
    /// never fires).
    pub next_ms: Option<u64>,
}

impl Cluster {
    /// Every CronJob, ordered by namespace and name. Costs a pass over the CronJobs.
    pub fn schedules(&self) -> Vec<ScheduleView> {
        use crate::controllers::cronjob::CronJobSpec;
        self.store
            .list(Kind::CronJob, None)
            .filter_map(|o| match o {
                Object::Other(c) => Some(c),
                _ => None,
            })
            .map(|c| {
                let spec = CronJobSpec::of(c);
                let status = c.fields.get("status");
                let last_ms = crate::controllers::cronjob::last_schedule(c).map(|t| t.0);
                // The first run after the latest one made (or after its creation):
                // a run due this very moment is still the next until its timer fires.
                let since = crate::controllers::cronjob::schedule_since(c);
                let next_ms = (!spec.suspend)
                    .then(|| {
                        crate::controllers::cron::parse_for(
                            &spec.schedule,
                            spec.time_zone.as_deref(),
                        )
                        .ok()
                    })
                    .flatten()
                    .and_then(|s| s.next(since))
                    .map(|t| t.0);
                ScheduleView {
                    namespace: c.metadata.namespace.clone().unwrap_or_default(),
                    name: c.metadata.name.clone().unwrap_or_default(),
                    active: status
                        .and_then(|s| s.get("active"))
                        .and_then(|a| a.as_array())
                        .map_or(0, Vec::len),
                    schedule: spec.schedule,
                    time_zone: spec.time_zone,
                    suspended: spec.suspend,
                    last_ms,
                    next_ms,
                }
            })
            .collect()
    }
}

/// One HorizontalPodAutoscaler (a load gauge): what it scales, its bounds, its aim
/// and what its clerk measured and decided last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GaugeView {
    pub namespace: String,
    pub name: String,
    /// `scaleTargetRef.kind` (`Deployment`).
    pub target_kind: String,
    /// `scaleTargetRef.name`.
    pub target_name: String,
    pub min_replicas: i32,
    pub max_replicas: i32,
    /// `status.currentReplicas` (0 before the first sync).
    pub current_replicas: i64,
    /// `status.desiredReplicas`; `None` before the controller's first look.
    pub desired_replicas: Option<i64>,
    /// The pods' average CPU utilization, percent of their requests, as last
    /// measured (`status.currentMetrics`); `None` until measured.
    pub utilization: Option<i64>,
    /// The CPU utilization it aims at, percent; `None` for another metric.
    pub target_utilization: Option<i32>,
}

impl GaugeView {
    /// Whether its last decision changes the replicas: above 0 to add, below 0 to
    /// take away, 0 at its aim (or not measured yet).
    pub fn direction(&self) -> std::cmp::Ordering {
        self.desired_replicas
            .map_or(std::cmp::Ordering::Equal, |d| d.cmp(&self.current_replicas))
    }
}

impl Cluster {
    /// Every HorizontalPodAutoscaler, ordered by namespace and name. Costs a pass
    /// over the autoscalers.
    pub fn gauges(&self) -> Vec<GaugeView> {
        use crate::controllers::hpa::AutoscalerSpec;
        self.store
            .list(Kind::HorizontalPodAutoscaler, None)
            .filter_map(|o| match o {
                Object::Other(h) => Some(h),
                _ => None,
            })
            .map(|h| {
                let spec = AutoscalerSpec::of(h);
                let status = h.fields.get("status");
                let int = |p: &str| {
                    status
                        .and_then(|s| s.pointer(p))
                        .and_then(serde_json::Value::as_i64)
                };
                let utilization = status
                    .and_then(|s| s.get("currentMetrics"))
                    .and_then(serde_json::Value::as_array)
                    .and_then(|ms| {
                        ms.iter().find_map(|m| {
                            (m.pointer("/resource/name")
                                .and_then(serde_json::Value::as_str)
                                == Some("cpu"))
                            .then(|| m.pointer("/resource/current/averageUtilization"))
                            .flatten()
                            .and_then(serde_json::Value::as_i64)
                        })
                    });
                let target_utilization = spec.cpu_utilization_target();
                GaugeView {
                    namespace: h.metadata.namespace.clone().unwrap_or_default(),
                    name: h.metadata.name.clone().unwrap_or_default(),
                    target_kind: spec.target_kind,
                    target_name: spec.target_name,
                    min_replicas: spec.min_replicas,
                    max_replicas: spec.max_replicas,
                    current_replicas: int("/currentReplicas").unwrap_or(0),
                    desired_replicas: int("/desiredReplicas"),
                    utilization,
                    target_utilization,
                }
            })
            .collect()
    }
}

/// One NetworkPolicy (a fence): which robots it stands around and how many gates
/// (rules) it has each way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenceView {
    pub namespace: String,
    pub name: String,
    /// Its pod selector as kubectl prints it (`app=web`); empty for every pod of the
    /// namespace.
    pub selector: String,
    /// Ingress rules, when the policy isolates for ingress (`Some(0)`: none get in).
    pub ingress: Option<usize>,
    /// Egress rules, when the policy isolates for egress.
    pub egress: Option<usize>,
}

impl Cluster {
    /// Every NetworkPolicy, ordered by namespace and name. Costs a pass over the
    /// policies.
    pub fn fences(&self) -> Vec<FenceView> {
        self.store
            .list(Kind::NetworkPolicy, None)
            .filter_map(|o| match o {
                Object::Other(p) => Some(p),
                _ => None,
            })
            .map(|p| {
                let null = serde_json::Value::Null;
                let spec = p.fields.get("spec").unwrap_or(&null);
                let (ingress, egress) = crate::network::policy::policy_types(spec);
                let rules = |field: &str| {
                    spec.get(field)
                        .and_then(serde_json::Value::as_array)
                        .map_or(0, Vec::len)
                };
                FenceView {
                    namespace: p.metadata.namespace.clone().unwrap_or_default(),
                    name: p.metadata.name.clone().unwrap_or_default(),
                    selector: selector_text(spec.get("podSelector")),
                    ingress: ingress.then(|| rules("ingress")),
                    egress: egress.then(|| rules("egress")),
                }
            })
            .collect()
    }
}

/// A label selector as `metav1.FormatLabelSelector` writes it (`a=b,c in (d,e)`),
/// empty when it selects everything.
fn selector_text(selector: Option<&serde_json::Value>) -> String {
    let Some(s) = selector else {
        return String::new();
    };
    let mut parts: Vec<String> = s
        .get("matchLabels")
        .and_then(serde_json::Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
        .collect();
    let expressions = s
        .get("matchExpressions")
        .and_then(serde_json::Value::as_array);
    for e in expressions.into_iter().flatten() {
        let key = e
            .get("key")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("");
        let values: Vec<&str> = e
            .get("values")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(serde_json::Value::as_str)
            .collect();
        parts.push(
            match e.get("operator").and_then(serde_json::Value::as_str) {
                Some("In") => format!("{key} in ({})", values.join(",")),
                Some("NotIn") => format!("{key} notin ({})", values.join(",")),
                Some("DoesNotExist") => format!("!{key}"),
                _ => key.to_string(),
            },
        );
    }
    parts.join(",")
}

/// One Gateway (a sorting gate): its class, its address and whether its
/// controller has programmed it, and how many route cards (HTTPRoutes) its
/// listeners took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateView {
    pub namespace: String,
    pub name: String,
    pub class: String,
    /// `status.addresses[0].value`, once given.
    pub address: Option<String>,
    /// The `Programmed` condition is True.
    pub programmed: bool,
    /// The listeners' `attachedRoutes`, summed.
    pub routes: i64,
}

impl Cluster {
    /// Every Gateway, ordered by namespace and name; none before the Gateway API is
    /// served. Costs a pass over the Gateways.
    pub fn gates(&self) -> Vec<GateView> {
        let Some(kind) = crate::controllers::gateway::served_kind(
            self,
            crate::controllers::gateway::GATEWAY_DEFINITION,
        ) else {
            return Vec::new();
        };
        self.store
            .list(kind, None)
            .filter_map(|o| match o {
                Object::Other(g) => Some(g),
                _ => None,
            })
            .map(|g| {
                let null = serde_json::Value::Null;
                let status = g.fields.get("status").unwrap_or(&null);
                let str_at = |v: &serde_json::Value, k: &str| {
                    v.get(k)
                        .and_then(serde_json::Value::as_str)
                        .map(str::to_string)
                };
                let list = |v: &serde_json::Value, k: &str| {
                    v.get(k)
                        .and_then(serde_json::Value::as_array)
                        .cloned()
                        .unwrap_or_default()
                };
                GateView {
                    namespace: g.metadata.namespace.clone().unwrap_or_default(),
                    name: g.metadata.name.clone().unwrap_or_default(),
                    class: g
                        .fields
                        .get("spec")
                        .and_then(|s| str_at(s, "gatewayClassName"))
                        .unwrap_or_default(),
                    address: list(status, "addresses")
                        .first()
                        .and_then(|a| str_at(a, "value")),
                    programmed: list(status, "conditions").iter().any(|c| {
                        str_at(c, "type").as_deref() == Some("Programmed")
                            && str_at(c, "status").as_deref() == Some("True")
                    }),
                    routes: list(status, "listeners")
                        .iter()
                        .filter_map(|l| l.get("attachedRoutes").and_then(serde_json::Value::as_i64))
                        .sum(),
                }
            })
            .collect()
    }
}
