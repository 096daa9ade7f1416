//! The staffing minimums (PodDisruptionBudgets) as the floor draws them: what each
//! promises and what its clerk counted last.

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
