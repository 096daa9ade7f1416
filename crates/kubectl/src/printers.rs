//! The columns `kubectl get` prints for each kind, computed as the upstream table
//! printers compute them (k/k pkg/printers/internalversion/printers.go).

use crate::humanize::{age, human_duration, millis_since};
use crate::selector::Selector;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Container, Event, Namespace, Node, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;
use warehouse_sim::{podstatus, Kind, Object, SimTime};

/// How a table is printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// `-o wide`: the extra columns.
    pub wide: bool,
    /// `-A`: a NAMESPACE column first (namespaced kinds only).
    pub with_namespace: bool,
    /// Several kinds in one `get`: names printed as `pod/x`.
    pub with_kind: bool,
    /// `--show-labels`: a LABELS column last.
    pub show_labels: bool,
}

/// The header row for a kind.
pub fn headers(kind: Kind, opts: PrintOptions) -> Vec<String> {
    let (base, wide): (&[&str], &[&str]) = match kind {
        Kind::Pod => (
            &["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
            &["IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
        ),
        Kind::Node => (
            &["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
            &[
                "INTERNAL-IP",
                "EXTERNAL-IP",
                "OS-IMAGE",
                "KERNEL-VERSION",
                "CONTAINER-RUNTIME",
            ],
        ),
        Kind::Deployment => (
            &["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
            &["CONTAINERS", "IMAGES", "SELECTOR"],
        ),
        Kind::ReplicaSet => (
            &["NAME", "DESIRED", "CURRENT", "READY", "AGE"],
            &["CONTAINERS", "IMAGES", "SELECTOR"],
        ),
        Kind::Namespace => (&["NAME", "STATUS", "AGE"], &[]),
        Kind::Lease => (&["NAME", "HOLDER", "AGE"], &[]),
        Kind::Event => {
            if opts.wide {
                (
                    &[
                        "LAST SEEN",
                        "TYPE",
                        "REASON",
                        "OBJECT",
                        "SUBOBJECT",
                        "SOURCE",
                        "MESSAGE",
                        "FIRST SEEN",
                        "COUNT",
                        "NAME",
                    ],
                    &[],
                )
            } else {
                (&["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], &[])
            }
        }
        _ => (&["NAME", "AGE"], &[]),
    };
    let mut row: Vec<String> = Vec::new();
    if opts.with_namespace && kind.namespaced() {
        row.push("NAMESPACE".into());
    }
    row.extend(base.iter().map(|s| s.to_string()));
    if opts.wide {
        row.extend(wide.iter().map(|s| s.to_string()));
    }
    if opts.show_labels {
        row.push("LABELS".into());
    }
    row
}

/// One object's row.
pub fn row(obj: &Object, now: SimTime, opts: PrintOptions) -> Vec<String> {
    let mut cells = match obj {
        Object::Pod(p) => pod_row(p, now, opts.wide),
        Object::Node(n) => node_row(n, now, opts.wide),
        Object::Deployment(d) => deployment_row(d, now, opts.wide),
        Object::ReplicaSet(rs) => replica_set_row(rs, now, opts.wide),
        Object::Namespace(ns) => namespace_row(ns, now),
        Object::Lease(l) => lease_row(l, now),
        Object::Event(e) => event_row(e, now, opts.wide),
        other => vec![name(other.meta()), created_age(other.meta(), now)],
    };
    if opts.with_kind && obj.kind() != Kind::Event {
        cells[0] = format!("{}/{}", obj.kind().qualified_singular(), cells[0]);
    }
    if opts.with_namespace && obj.kind().namespaced() {
        cells.insert(0, obj.namespace().to_string());
    }
    if opts.show_labels {
        cells.push(format_labels(obj.meta().labels.as_ref()));
    }
    cells
}

/// `labels.FormatLabels`: `k=v,k2=v2` sorted by key, or `<none>`.
pub fn format_labels(labels: Option<&BTreeMap<String, String>>) -> String {
    match labels {
        Some(l) if !l.is_empty() => l
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(","),
        _ => "<none>".into(),
    }
}

fn name(meta: &ObjectMeta) -> String {
    meta.name.clone().unwrap_or_default()
}

fn created_age(meta: &ObjectMeta, now: SimTime) -> String {
    age(now, meta.creation_timestamp.as_ref().map(|t| &t.0))
}

fn none_if_empty(s: Option<&str>) -> String {
    match s {
        Some(s) if !s.is_empty() => s.to_string(),
        _ => "<none>".into(),
    }
}

/// `printPod`.
fn pod_row(pod: &Pod, now: SimTime, wide: bool) -> Vec<String> {
    let mut restarts = 0i64;
    let mut last_restart: Option<&k8s_openapi::jiff::Timestamp> = None;
    if let Some(statuses) = pod
        .status
        .as_ref()
        .and_then(|s| s.container_statuses.as_ref())
    {
        for c in statuses.iter().rev() {
            restarts += c.restart_count as i64;
            if let Some(finished) = c
                .last_state
                .as_ref()
                .and_then(|s| s.terminated.as_ref())
                .and_then(|t| t.finished_at.as_ref())
            {
                if last_restart.is_none_or(|l| l < &finished.0) {
                    last_restart = Some(&finished.0);
                }
            }
        }
    }
    let restarts_cell = match last_restart {
        Some(t) if restarts != 0 => {
            format!("{restarts} ({} ago)", human_duration(millis_since(now, t)))
        }
        _ => restarts.to_string(),
    };
    let mut cells = vec![
        name(&pod.metadata),
        podstatus::ready(pod),
        podstatus::status(pod),
        restarts_cell,
        created_age(&pod.metadata, now),
    ];
    if wide {
        let status = pod.status.as_ref();
        let ip = status
            .and_then(|s| s.pod_ips.as_ref())
            .and_then(|ips| ips.first())
            .map(|ip| ip.ip.clone())
            .or_else(|| status.and_then(|s| s.pod_ip.clone()));
        let node = pod.spec.as_ref().and_then(|s| s.node_name.as_deref());
        let nominated = status.and_then(|s| s.nominated_node_name.as_deref());
        let gates = pod
            .spec
            .as_ref()
            .and_then(|s| s.readiness_gates.as_ref())
            .filter(|g| !g.is_empty());
        let gates_cell = match gates {
            None => "<none>".to_string(),
            Some(gates) => {
                let conditions = status.and_then(|s| s.conditions.as_ref());
                let ready = gates
                    .iter()
                    .filter(|g| {
                        conditions
                            .and_then(|cs| cs.iter().find(|c| c.type_ == g.condition_type))
                            .is_some_and(|c| c.status == "True")
                    })
                    .count();
                format!("{ready}/{}", gates.len())
            }
        };
        cells.extend([
            none_if_empty(ip.as_deref()),
            none_if_empty(node),
            none_if_empty(nominated),
            gates_cell,
        ]);
    }
    cells
}

/// `findNodeRoles`: `node-role.kubernetes.io/<role>` labels and `kubernetes.io/role`.
fn node_roles(node: &Node) -> String {
    let mut roles = std::collections::BTreeSet::new();
    for (k, v) in node.metadata.labels.iter().flatten() {
        if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
            if !role.is_empty() {
                roles.insert(role.to_string());
            }
        } else if k == "kubernetes.io/role" && !v.is_empty() {
            roles.insert(v.clone());
        }
    }
    if roles.is_empty() {
        "<none>".into()
    } else {
        roles.into_iter().collect::<Vec<_>>().join(",")
    }
}

/// `printNode`.
fn node_row(node: &Node, now: SimTime, wide: bool) -> Vec<String> {
    let status = node.status.as_ref();
    let ready = status
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"));
    let mut parts = vec![match ready {
        Some(c) if c.status == "True" => "Ready".to_string(),
        Some(_) => "NotReady".to_string(),
        None => "Unknown".to_string(),
    }];
    if node
        .spec
        .as_ref()
        .and_then(|s| s.unschedulable)
        .unwrap_or(false)
    {
        parts.push("SchedulingDisabled".into());
    }
    let info = status.and_then(|s| s.node_info.as_ref());
    let mut cells = vec![
        name(&node.metadata),
        parts.join(","),
        node_roles(node),
        created_age(&node.metadata, now),
        info.map(|i| i.kubelet_version.clone()).unwrap_or_default(),
    ];
    if wide {
        let address = |t: &str| {
            status
                .and_then(|s| s.addresses.as_ref())
                .and_then(|a| a.iter().find(|a| a.type_ == t))
                .map(|a| a.address.clone())
                .unwrap_or_else(|| "<none>".into())
        };
        let unknown = |s: Option<&String>| match s {
            Some(s) if !s.is_empty() => s.clone(),
            _ => "<unknown>".into(),
        };
        cells.extend([
            address("InternalIP"),
            address("ExternalIP"),
            unknown(info.map(|i| &i.os_image)),
            unknown(info.map(|i| &i.kernel_version)),
            unknown(info.map(|i| &i.container_runtime_version)),
        ]);
    }
    cells
}

/// `layoutContainerCells`: names and images joined with commas.
fn container_cells(containers: &[Container]) -> (String, String) {
    let names: Vec<&str> = containers.iter().map(|c| c.name.as_str()).collect();
    let images: Vec<&str> = containers
        .iter()
        .map(|c| c.image.as_deref().unwrap_or(""))
        .collect();
    (names.join(","), images.join(","))
}

/// `printDeployment`.
fn deployment_row(d: &Deployment, now: SimTime, wide: bool) -> Vec<String> {
    let status = d.status.as_ref();
    let desired = d.spec.replicas.unwrap_or(1);
    let ready = status.and_then(|s| s.ready_replicas).unwrap_or(0);
    let updated = status.and_then(|s| s.updated_replicas).unwrap_or(0);
    let available = status.and_then(|s| s.available_replicas).unwrap_or(0);
    let mut cells = vec![
        name(&d.metadata),
        format!("{ready}/{desired}"),
        updated.to_string(),
        available.to_string(),
        created_age(&d.metadata, now),
    ];
    if wide {
        let containers = d
            .spec
            .template
            .spec
            .as_ref()
            .map(|s| s.containers.as_slice())
            .unwrap_or(&[]);
        let (names, images) = container_cells(containers);
        let selector = Selector::from_label_selector(&d.spec.selector).to_string();
        cells.extend([names, images, selector]);
    }
    cells
}

/// `printReplicaSet`.
fn replica_set_row(rs: &ReplicaSet, now: SimTime, wide: bool) -> Vec<String> {
    let status = rs.status.as_ref();
    let desired = rs.spec.replicas.unwrap_or(1);
    let current = status.map(|s| s.replicas).unwrap_or(0);
    let ready = status.and_then(|s| s.ready_replicas).unwrap_or(0);
    let mut cells = vec![
        name(&rs.metadata),
        desired.to_string(),
        current.to_string(),
        ready.to_string(),
        created_age(&rs.metadata, now),
    ];
    if wide {
        let containers = rs
            .spec
            .template
            .as_ref()
            .and_then(|t| t.spec.as_ref())
            .map(|s| s.containers.as_slice())
            .unwrap_or(&[]);
        let (names, images) = container_cells(containers);
        let selector = Selector::from_label_selector(&rs.spec.selector).to_string();
        cells.extend([names, images, selector]);
    }
    cells
}

fn namespace_row(ns: &Namespace, now: SimTime) -> Vec<String> {
    vec![
        name(&ns.metadata),
        ns.status
            .as_ref()
            .and_then(|s| s.phase.clone())
            .unwrap_or_default(),
        created_age(&ns.metadata, now),
    ]
}

fn lease_row(l: &Lease, now: SimTime) -> Vec<String> {
    vec![
        name(&l.metadata),
        l.spec
            .as_ref()
            .and_then(|s| s.holder_identity.clone())
            .unwrap_or_default(),
        created_age(&l.metadata, now),
    ]
}

/// `printEvent`.
fn event_row(e: &Event, now: SimTime, wide: bool) -> Vec<String> {
    let first = match &e.first_timestamp {
        Some(t) => age(now, Some(&t.0)),
        None => age(now, e.event_time.as_ref().map(|t| &t.0)),
    };
    let mut last = match &e.last_timestamp {
        Some(t) => age(now, Some(&t.0)),
        None => first.clone(),
    };
    let mut count = e.count.unwrap_or(0);
    if let Some(series) = &e.series {
        last = age(now, series.last_observed_time.as_ref().map(|t| &t.0));
        count = series.count.unwrap_or(0);
    } else if count == 0 {
        count = 1;
    }
    let io = &e.involved_object;
    let kind = io.kind.clone().unwrap_or_default().to_lowercase();
    let target = match io.name.as_deref() {
        Some(n) if !n.is_empty() => format!("{kind}/{n}"),
        _ => kind,
    };
    let message = e.message.as_deref().unwrap_or("").trim().to_string();
    let type_ = e.type_.clone().unwrap_or_default();
    let reason = e.reason.clone().unwrap_or_default();
    if wide {
        let source = e.source.as_ref();
        let component = source
            .and_then(|s| s.component.clone())
            .filter(|c| !c.is_empty())
            .or_else(|| e.reporting_component.clone())
            .unwrap_or_default();
        let instance = source
            .and_then(|s| s.host.clone())
            .filter(|c| !c.is_empty())
            .or_else(|| e.reporting_instance.clone())
            .unwrap_or_default();
        let source_cell = if component.is_empty() {
            String::new()
        } else if instance.is_empty() {
            component
        } else {
            format!("{component}, {instance}")
        };
        vec![
            last,
            type_,
            reason,
            target,
            io.field_path.clone().unwrap_or_default(),
            source_cell,
            message,
            first,
            count.to_string(),
            name(&e.metadata),
        ]
    } else {
        vec![last, type_, reason, target, message]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{NodeCondition, NodeSpec, NodeStatus};

    #[test]
    fn node_status_and_roles() {
        let mut labels = BTreeMap::new();
        labels.insert(
            "node-role.kubernetes.io/control-plane".to_string(),
            String::new(),
        );
        let node = Node {
            metadata: ObjectMeta {
                name: Some("cp".into()),
                labels: Some(labels),
                ..Default::default()
            },
            spec: Some(NodeSpec {
                unschedulable: Some(true),
                ..Default::default()
            }),
            status: Some(NodeStatus {
                conditions: Some(vec![NodeCondition {
                    type_: "Ready".into(),
                    status: "Unknown".into(),
                    ..Default::default()
                }]),
                ..Default::default()
            }),
        };
        let cells = node_row(&node, SimTime(0), false);
        assert_eq!(cells[1], "NotReady,SchedulingDisabled");
        assert_eq!(cells[2], "control-plane");
        assert_eq!(cells[3], "<unknown>");
    }

    #[test]
    fn restarts_show_how_long_ago_the_last_one_was() {
        use k8s_openapi::api::core::v1::{
            ContainerState, ContainerStateTerminated, ContainerStatus, PodStatus,
        };
        let finished = SimTime(100_000).to_k8s();
        let pod = Pod {
            metadata: ObjectMeta {
                name: Some("p".into()),
                creation_timestamp: Some(SimTime(0).to_k8s()),
                ..Default::default()
            },
            spec: None,
            status: Some(PodStatus {
                container_statuses: Some(vec![ContainerStatus {
                    name: "a".into(),
                    restart_count: 3,
                    last_state: Some(ContainerState {
                        terminated: Some(ContainerStateTerminated {
                            finished_at: Some(finished),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }),
                    ..Default::default()
                }]),
                ..Default::default()
            }),
        };
        let cells = pod_row(&pod, SimTime(141_000), false);
        assert_eq!(cells[3], "3 (41s ago)");
        assert_eq!(cells[4], "2m21s");
    }
}
