//! Services as the floor draws them: order desks with a fixed address and a badge
//! rule, each with its sheets (EndpointSlices) line by line, and the size of the
//! legacy master scroll (Endpoints) beside them.

use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey};

/// One Service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeskView {
    pub namespace: String,
    pub name: String,
    /// `ClusterIP`, `NodePort`, `LoadBalancer`, `ExternalName`.
    pub service_type: String,
    /// The fixed address (`None` for headless and ExternalName Services).
    pub cluster_ip: Option<String>,
    /// The badge rule: the selector's `key=value` pairs; empty for a Service
    /// without a selector (its sheets are written by hand, or none).
    pub selector: Vec<(String, String)>,
    /// `80/TCP`, `80:30080/TCP`.
    pub ports: Vec<String>,
    /// The load balancer's address, when the cloud has given one.
    pub external_ip: Option<String>,
    /// Its EndpointSlices, by name.
    pub sheets: Vec<SheetView>,
    /// Addresses on the legacy Endpoints object (ready and not ready).
    pub scroll_lines: usize,
}

/// One EndpointSlice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SheetView {
    pub name: String,
    /// Changes on every write: the sheet that changed is the one whose version moved.
    pub resource_version: String,
    pub lines: Vec<SheetLine>,
}

/// One endpoint of a sheet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SheetLine {
    pub ip: String,
    /// The robot, `namespace/name`.
    pub pod: Option<String>,
    pub zone: Option<String>,
    pub ready: bool,
    pub serving: bool,
    pub terminating: bool,
}

impl Cluster {
    /// Every Service with its sheets, ordered by namespace and name. Costs a pass over
    /// Services and EndpointSlices, not pods.
    pub fn desks(&self) -> Vec<DeskView> {
        let mut desks: Vec<DeskView> = self
            .store
            .list(Kind::Service, None)
            .filter_map(|o| match o {
                Object::Service(s) => Some(s),
                _ => None,
            })
            .map(|s| {
                let spec = s.spec.clone().unwrap_or_default();
                let namespace = s.metadata.namespace.clone().unwrap_or_default();
                let name = s.metadata.name.clone().unwrap_or_default();
                let scroll_lines = self
                    .store
                    .get(&ObjectKey::new(Kind::Endpoints, &namespace, &name))
                    .and_then(|o| match o {
                        Object::Endpoints(e) => Some(e),
                        _ => None,
                    })
                    .map(|e| {
                        e.subsets
                            .iter()
                            .flatten()
                            .map(|ss| {
                                ss.addresses.as_ref().map_or(0, Vec::len)
                                    + ss.not_ready_addresses.as_ref().map_or(0, Vec::len)
                            })
                            .sum()
                    })
                    .unwrap_or(0);
                DeskView {
                    service_type: spec.type_.clone().unwrap_or_else(|| "ClusterIP".into()),
                    cluster_ip: spec
                        .cluster_ip
                        .clone()
                        .filter(|ip| ip != "None" && !ip.is_empty()),
                    selector: spec
                        .selector
                        .clone()
                        .unwrap_or_default()
                        .into_iter()
                        .collect(),
                    ports: spec
                        .ports
                        .iter()
                        .flatten()
                        .map(|p| {
                            let proto = p.protocol.clone().unwrap_or_else(|| "TCP".into());
                            match p.node_port {
                                Some(np) => format!("{}:{np}/{proto}", p.port),
                                None => format!("{}/{proto}", p.port),
                            }
                        })
                        .collect(),
                    external_ip: s
                        .status
                        .as_ref()
                        .and_then(|st| st.load_balancer.as_ref())
                        .and_then(|lb| lb.ingress.as_ref())
                        .and_then(|i| i.first())
                        .and_then(|i| i.ip.clone()),
                    sheets: Vec::new(),
                    scroll_lines,
                    namespace,
                    name,
                }
            })
            .collect();
        for obj in self.store.list(Kind::EndpointSlice, None) {
            let Object::EndpointSlice(slice) = obj else {
                continue;
            };
            let Some(service) = slice
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("kubernetes.io/service-name"))
            else {
                continue;
            };
            let namespace = slice.metadata.namespace.clone().unwrap_or_default();
            let Some(desk) = desks
                .iter_mut()
                .find(|d| d.namespace == namespace && &d.name == service)
            else {
                continue;
            };
            desk.sheets.push(SheetView {
                name: slice.metadata.name.clone().unwrap_or_default(),
                resource_version: slice.metadata.resource_version.clone().unwrap_or_default(),
                lines: slice
                    .endpoints
                    .iter()
                    .flatten()
                    .map(|e| {
                        let c = e.conditions.clone().unwrap_or_default();
                        SheetLine {
                            ip: e.addresses.first().cloned().unwrap_or_default(),
                            pod: e.target_ref.as_ref().map(|r| {
                                format!(
                                    "{}/{}",
                                    r.namespace.clone().unwrap_or_default(),
                                    r.name.clone().unwrap_or_default()
                                )
                            }),
                            zone: e.node_name.clone(),
                            ready: c.ready.unwrap_or(false),
                            serving: c.serving.unwrap_or(false),
                            terminating: c.terminating.unwrap_or(false),
                        }
                    })
                    .collect(),
            });
        }
        desks
    }
}
