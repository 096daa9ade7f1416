//! What the learner can point at on the floor: the thing a tooltip describes and the
//! inspector opens. The floor (canvas) hit-tests to a `Target`; the inspector and
//! the tooltip read it; `Action::Inspect` selects one.

use warehouse_sim::ControlPlaneComponent;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A pod.
    Robot { namespace: String, name: String },
    /// A node.
    Zone(String),
    /// A Service.
    Desk { namespace: String, name: String },
    /// An EndpointSlice.
    Sheet { namespace: String, name: String },
    /// A PodDisruptionBudget (a staffing minimum).
    Budget { namespace: String, name: String },
    /// A CronJob (a schedule).
    Schedule { namespace: String, name: String },
    /// A HorizontalPodAutoscaler (a load gauge).
    Gauge { namespace: String, name: String },
    /// A NetworkPolicy (a fence).
    Fence { namespace: String, name: String },
    /// A Gateway (a sorting gate).
    Gate { namespace: String, name: String },
    /// A PersistentVolume (a locker).
    Locker(String),
    /// A control-plane component (the reception desk, the ledger vault, the floor
    /// manager, the dispatcher).
    Staff(ControlPlaneComponent),
}

impl Target {
    /// The object as kubectl names it (`pod/web-abc -n default`), for describe, YAML,
    /// events and `sim why`; `None` for staff, which are not API objects here.
    pub fn kubectl_ref(&self) -> Option<(String, Option<String>)> {
        match self {
            Target::Robot { namespace, name } => {
                Some((format!("pod/{name}"), Some(namespace.clone())))
            }
            Target::Zone(name) => Some((format!("node/{name}"), None)),
            Target::Desk { namespace, name } => {
                Some((format!("service/{name}"), Some(namespace.clone())))
            }
            Target::Sheet { namespace, name } => {
                Some((format!("endpointslice/{name}"), Some(namespace.clone())))
            }
            Target::Budget { namespace, name } => Some((
                format!("poddisruptionbudget/{name}"),
                Some(namespace.clone()),
            )),
            Target::Schedule { namespace, name } => {
                Some((format!("cronjob/{name}"), Some(namespace.clone())))
            }
            Target::Gauge { namespace, name } => Some((
                format!("horizontalpodautoscaler/{name}"),
                Some(namespace.clone()),
            )),
            Target::Fence { namespace, name } => {
                Some((format!("networkpolicy/{name}"), Some(namespace.clone())))
            }
            Target::Gate { namespace, name } => Some((
                format!("gateways.gateway.networking.k8s.io/{name}"),
                Some(namespace.clone()),
            )),
            Target::Locker(name) => Some((format!("persistentvolume/{name}"), None)),
            Target::Staff(_) => None,
        }
    }
}
