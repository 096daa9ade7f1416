//! The columns `kubectl get` prints for each kind, computed as the upstream table
//! printers compute them (k/k pkg/printers/internalversion/printers.go).

use crate::printers::humanize::{age, human_duration, millis_since};
use crate::selector::Selector;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Container, Event, Namespace, Node, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::jiff::Timestamp;
use serde_json::Value;
use std::collections::BTreeMap;
use warehouse_sim::object::crd::PrinterColumn;
use warehouse_sim::views::podstatus;
use warehouse_sim::StableSort;
use warehouse_sim::{Kind, Object, SimTime};

pub mod gotemplate;
pub mod humanize;
pub mod json;
pub mod jsonpath;
pub mod table;
pub(crate) mod tabwriter;
pub mod yaml;

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

/// The `-o wide` columns of nodes.
const NODE_WIDE_COLUMNS: &[&str] = &[
    "INTERNAL-IP",
    "EXTERNAL-IP",
    "OS-IMAGE",
    "KERNEL-VERSION",
    "CONTAINER-RUNTIME",
];

/// Columns of daemon sets.
const DAEMON_SET_COLUMNS: &[&str] = &[
    "NAME",
    "DESIRED",
    "CURRENT",
    "READY",
    "UP-TO-DATE",
    "AVAILABLE",
    "NODE SELECTOR",
    "AGE",
];

/// Columns of cron jobs.
const CRON_JOB_COLUMNS: &[&str] = &[
    "NAME",
    "SCHEDULE",
    "TIMEZONE",
    "SUSPEND",
    "ACTIVE",
    "LAST SCHEDULE",
    "AGE",
];

/// Columns of services.
const SERVICE_COLUMNS: &[&str] = &[
    "NAME",
    "TYPE",
    "CLUSTER-IP",
    "EXTERNAL-IP",
    "PORT(S)",
    "AGE",
];

/// Columns of horizontal pod autoscalers.
const HPA_COLUMNS: &[&str] = &[
    "NAME",
    "REFERENCE",
    "TARGETS",
    "MINPODS",
    "MAXPODS",
    "REPLICAS",
    "AGE",
];

/// Columns of persistent volume claims.
const PVC_COLUMNS: &[&str] = &[
    "NAME",
    "STATUS",
    "VOLUME",
    "CAPACITY",
    "ACCESS MODES",
    "STORAGECLASS",
    "VOLUMEATTRIBUTESCLASS",
    "AGE",
];

/// Columns of persistent volumes.
const PV_COLUMNS: &[&str] = &[
    "NAME",
    "CAPACITY",
    "ACCESS MODES",
    "RECLAIM POLICY",
    "STATUS",
    "CLAIM",
    "STORAGECLASS",
    "VOLUMEATTRIBUTESCLASS",
    "REASON",
    "AGE",
];

/// Columns of pod disruption budgets.
const PDB_COLUMNS: &[&str] = &[
    "NAME",
    "MIN AVAILABLE",
    "MAX UNAVAILABLE",
    "ALLOWED DISRUPTIONS",
    "AGE",
];

/// Columns of storage classes.
const STORAGE_CLASS_COLUMNS: &[&str] = &[
    "NAME",
    "PROVISIONER",
    "RECLAIMPOLICY",
    "VOLUMEBINDINGMODE",
    "ALLOWVOLUMEEXPANSION",
    "AGE",
];

/// Columns of events with `-o wide`.
const EVENT_WIDE_COLUMNS: &[&str] = &[
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
];

/// The columns of a kind's table: those always shown and those `-o wide` adds
/// (upstream's column definitions with priority 0 and 1).
fn columns(kind: Kind, wide: bool) -> (&'static [&'static str], &'static [&'static str]) {
    const CONTAINERS_IMAGES_SELECTOR: &[&str] = &["CONTAINERS", "IMAGES", "SELECTOR"];
    // Kinds without a table printer upstream get the default table convertor.
    const CREATED_AT: &[&str] = &["NAME", "CREATED AT"];
    match kind {
        Kind::Pod => (
            &["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
            &["IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
        ),
        Kind::Node => (
            &["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
            NODE_WIDE_COLUMNS,
        ),
        Kind::Deployment => (
            &["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
            CONTAINERS_IMAGES_SELECTOR,
        ),
        Kind::ReplicaSet | Kind::ReplicationController => (
            &["NAME", "DESIRED", "CURRENT", "READY", "AGE"],
            CONTAINERS_IMAGES_SELECTOR,
        ),
        Kind::DaemonSet => (DAEMON_SET_COLUMNS, CONTAINERS_IMAGES_SELECTOR),
        Kind::StatefulSet => (&["NAME", "READY", "AGE"], &["CONTAINERS", "IMAGES"]),
        Kind::Job => (
            &["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
            CONTAINERS_IMAGES_SELECTOR,
        ),
        Kind::CronJob => (CRON_JOB_COLUMNS, CONTAINERS_IMAGES_SELECTOR),
        Kind::Service => (SERVICE_COLUMNS, &["SELECTOR"]),
        Kind::Endpoints => (&["NAME", "ENDPOINTS", "AGE"], &[]),
        Kind::EndpointSlice => (&["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"], &[]),
        Kind::Ingress => (&["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"], &[]),
        Kind::IngressClass => (&["NAME", "CONTROLLER", "PARAMETERS", "AGE"], &[]),
        Kind::ConfigMap => (&["NAME", "DATA", "AGE"], &[]),
        Kind::Secret => (&["NAME", "TYPE", "DATA", "AGE"], &[]),
        Kind::ServiceAccount => (&["NAME", "SECRETS", "AGE"], &[]),
        Kind::Role | Kind::ClusterRole | Kind::LimitRange => (CREATED_AT, &[]),
        Kind::RoleBinding | Kind::ClusterRoleBinding => (
            &["NAME", "ROLE", "AGE"],
            &["USERS", "GROUPS", "SERVICEACCOUNTS"],
        ),
        Kind::ResourceQuota => (&["NAME", "AGE", "REQUEST", "LIMIT"], &[]),
        Kind::HorizontalPodAutoscaler => (HPA_COLUMNS, &[]),
        Kind::PersistentVolumeClaim => (PVC_COLUMNS, &["VOLUMEMODE"]),
        Kind::PersistentVolume => (PV_COLUMNS, &["VOLUMEMODE"]),
        Kind::NetworkPolicy => (&["NAME", "POD-SELECTOR", "AGE"], &[]),
        Kind::PodDisruptionBudget => (PDB_COLUMNS, &[]),
        Kind::StorageClass => (STORAGE_CLASS_COLUMNS, &[]),
        Kind::PriorityClass => (
            &["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"],
            &[],
        ),
        Kind::ControllerRevision => (&["NAME", "CONTROLLER", "REVISION", "AGE"], &[]),
        Kind::Namespace => (&["NAME", "STATUS", "AGE"], &[]),
        Kind::CustomResourceDefinition => (CREATED_AT, &[]),
        // Read from the definition's printer columns (`custom_headers`).
        Kind::Custom(_) => (&["NAME", "AGE"], &[]),
        Kind::Lease => (&["NAME", "HOLDER", "AGE"], &[]),
        Kind::Event => {
            if wide {
                (EVENT_WIDE_COLUMNS, &[])
            } else {
                (&["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], &[])
            }
        }
    }
}

/// The header row for a kind.
pub fn headers(kind: Kind, opts: PrintOptions) -> Vec<String> {
    let mut row: Vec<String> = Vec::new();
    if opts.with_namespace && kind.namespaced() {
        row.push("NAMESPACE".into());
    }
    if kind.is_custom() {
        row.push("NAME".into());
        row.extend(
            shown_columns(kind, opts.wide)
                .into_iter()
                .map(|c| c.name.to_uppercase()),
        );
    } else {
        let (base, wide) = columns(kind, opts.wide);
        row.extend(base.iter().map(|s| s.to_string()));
        if opts.wide {
            row.extend(wide.iter().map(|s| s.to_string()));
        }
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
        other if other.kind().is_custom() => custom_row(other, now, opts.wide),
        other => json_row(other, now, opts.wide),
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

/// `-L KEY,...`: a column per label key after the kind's columns (and before
/// `--show-labels`' LABELS), headed by the key's last `/`-separated part in upper
/// case (upstream `formatLabelHeaders`).
pub fn add_label_headers(row: &mut Vec<String>, keys: &[String], opts: PrintOptions) {
    let at = row.len() - usize::from(opts.show_labels);
    for (i, key) in keys.iter().enumerate() {
        let last = key.rsplit('/').next().unwrap_or(key);
        row.insert(at + i, last.to_uppercase());
    }
}

/// `-L KEY,...`: each label's value in its column, empty when the object lacks it.
pub fn add_label_cells(row: &mut Vec<String>, obj: &Object, keys: &[String], opts: PrintOptions) {
    let at = row.len() - usize::from(opts.show_labels);
    let labels = obj.meta().labels.as_ref();
    for (i, key) in keys.iter().enumerate() {
        let value = labels.and_then(|l| l.get(key)).cloned().unwrap_or_default();
        row.insert(at + i, value);
    }
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
    let mut last_restart: Option<&Timestamp> = None;
    // While the pod initializes, RESTARTS counts its init containers' restarts.
    let st = pod.status.as_ref();
    let initialized = st
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Initialized"))
        .is_none_or(|c| c.status == "True");
    let sidecar = |name: &str| {
        pod.spec
            .iter()
            .flat_map(|s| s.init_containers.iter().flatten())
            .any(|c| c.name == name && c.restart_policy.as_deref() == Some("Always"))
    };
    // Once it has, its sidecars' restarts and its app containers'.
    let inits = st.and_then(|s| s.init_container_statuses.as_ref());
    let apps = st.and_then(|s| s.container_statuses.as_ref());
    let counted: Vec<_> = if initialized {
        let sidecars = inits.into_iter().flatten().filter(|c| sidecar(&c.name));
        sidecars.chain(apps.into_iter().flatten().rev()).collect()
    } else {
        inits.into_iter().flatten().collect()
    };
    {
        for c in counted {
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

// ---------------------------------------------------------------------------
// Kinds printed from their JSON: the stored-only kinds (`Object::Other`) and the
// typed kinds nothing above prints. Reading the JSON lets one printer serve a kind
// whether the simulator keeps it typed or stored-only. Where the real apiserver
// fills a default before anything is printed (a Service's type, a Job's
// completions), the printer uses that default when the field is absent.
// ---------------------------------------------------------------------------

static NULL: Value = Value::Null;

/// A view of an object's JSON that reads fields by path; absent fields read as
/// null, empty or zero.
#[derive(Clone, Copy)]
struct J<'a>(&'a Value);

impl<'a> J<'a> {
    fn at(self, path: &[&str]) -> J<'a> {
        let mut v = self.0;
        for p in path {
            v = v.get(p).unwrap_or(&NULL);
        }
        J(v)
    }
    fn has(self, path: &[&str]) -> bool {
        !self.at(path).0.is_null()
    }
    fn str(self, path: &[&str]) -> Option<&'a str> {
        self.at(path).0.as_str()
    }
    fn string(self, path: &[&str]) -> String {
        self.str(path).unwrap_or_default().to_string()
    }
    /// A string field, or `default` when it is absent or empty.
    fn string_or(self, path: &[&str], default: &str) -> String {
        match self.str(path) {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => default.to_string(),
        }
    }
    fn opt_int(self, path: &[&str]) -> Option<i64> {
        self.at(path).0.as_i64()
    }
    fn int(self, path: &[&str]) -> i64 {
        self.opt_int(path).unwrap_or(0)
    }
    fn opt_bool(self, path: &[&str]) -> Option<bool> {
        self.at(path).0.as_bool()
    }
    fn arr(self, path: &[&str]) -> &'a [Value] {
        self.at(path).0.as_array().map(Vec::as_slice).unwrap_or(&[])
    }
    fn len(self, path: &[&str]) -> usize {
        match self.at(path).0 {
            Value::Object(m) => m.len(),
            Value::Array(a) => a.len(),
            _ => 0,
        }
    }
    fn time(self, path: &[&str]) -> Option<Timestamp> {
        self.str(path).and_then(|s| s.parse().ok())
    }
}

/// `labels.FormatLabels` of a JSON string map: `k=v,...` sorted by key, or `<none>`.
fn format_label_map(v: J) -> String {
    let mut pairs: Vec<String> = match v.0 {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
            .collect(),
        _ => Vec::new(),
    };
    if pairs.is_empty() {
        return "<none>".into();
    }
    pairs.stable_sort();
    pairs.join(",")
}

/// `metav1.FormatLabelSelector`: the selector's string form, or `<none>` when it is
/// absent or selects everything.
fn format_label_selector(v: J) -> String {
    if v.0.is_null() {
        return "<none>".into();
    }
    let text = serde_json::from_value::<LabelSelector>(v.0.clone())
        .map(|s| Selector::from_label_selector(&s).to_string())
        .unwrap_or_else(|_| "<error>".into());
    if text.is_empty() {
        "<none>".into()
    } else {
        text
    }
}

/// [`format_label_selector`] of a selector in JSON, for the describers.
pub(crate) fn label_selector_text(v: &Value) -> String {
    format_label_selector(J(v))
}

/// `layoutContainerCells` for a pod template in JSON.
fn json_container_cells(template: J) -> (String, String) {
    let containers = template.arr(&["spec", "containers"]);
    let names: Vec<&str> = containers
        .iter()
        .map(|c| J(c).str(&["name"]).unwrap_or_default())
        .collect();
    let images: Vec<&str> = containers
        .iter()
        .map(|c| J(c).str(&["image"]).unwrap_or_default())
        .collect();
    (names.join(","), images.join(","))
}

/// `translateTimestampSince` for a timestamp in the JSON.
fn json_age(now: SimTime, t: Option<Timestamp>) -> String {
    age(now, t.as_ref())
}

/// `printBool`.
fn title_bool(b: bool) -> String {
    if b { "True" } else { "False" }.into()
}

/// `%d` of an IntOrString (`2`, `50%`).
fn int_or_string(v: J) -> Option<String> {
    match v.0 {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// A quantity in the JSON, printed as `Quantity.String()` prints it.
fn json_quantity(v: J) -> String {
    match v.0 {
        Value::String(s) => canonical_quantity(s),
        Value::Number(n) => canonical_quantity(&n.to_string()),
        _ => "0".into(),
    }
}

/// The row of a kind printed from its JSON.
fn json_row(obj: &Object, now: SimTime, wide: bool) -> Vec<String> {
    let value = obj.to_json();
    let j = J(&value);
    let meta = obj.meta();
    let name = name(meta);
    let age = created_age(meta, now);
    let spec = j.at(&["spec"]);
    let status = j.at(&["status"]);
    let (mut cells, wide_cells): (Vec<String>, Vec<String>) = match obj.kind() {
        Kind::Service => service_cells(j, name, age),
        Kind::Endpoints => (
            vec![name, format_endpoints(j.arr(&["subsets"])), age],
            Vec::new(),
        ),
        Kind::EndpointSlice => (
            vec![
                name,
                j.string(&["addressType"]),
                format_slice_ports(j.arr(&["ports"])),
                format_slice_endpoints(j.arr(&["endpoints"])),
                age,
            ],
            Vec::new(),
        ),
        Kind::DaemonSet => daemon_set_cells(j, name, age),
        Kind::StatefulSet => stateful_set_cells(j, name, age),
        Kind::ReplicationController => replication_controller_cells(j, name, age),
        Kind::Job => {
            let cells = job_cells(j, name, age, now);
            let (names, images) = json_container_cells(spec.at(&["template"]));
            (
                cells,
                vec![names, images, format_label_selector(spec.at(&["selector"]))],
            )
        }
        Kind::CronJob => cron_job_cells(j, name, age, now),
        Kind::Ingress => (ingress_cells(j, name, age), Vec::new()),
        Kind::IngressClass => (
            vec![
                name,
                spec.string(&["controller"]),
                ingress_class_parameters(spec.at(&["parameters"])),
                age,
            ],
            Vec::new(),
        ),
        Kind::ConfigMap => (
            vec![
                name,
                (j.len(&["data"]) + j.len(&["binaryData"])).to_string(),
                age,
            ],
            Vec::new(),
        ),
        Kind::Secret => (secret_cells(j, name, age), Vec::new()),
        Kind::ServiceAccount => (vec![name, j.len(&["secrets"]).to_string(), age], Vec::new()),
        Kind::RoleBinding | Kind::ClusterRoleBinding => role_binding_cells(j, name, age),
        Kind::ResourceQuota => {
            let (request, limit) = quota_columns(status);
            (vec![name, age, request, limit], Vec::new())
        }
        Kind::HorizontalPodAutoscaler => (hpa_cells(obj, j, name, age), Vec::new()),
        Kind::PersistentVolumeClaim => pvc_cells(j, meta, name, age),
        Kind::PersistentVolume => pv_cells(j, meta, name, age),
        Kind::NetworkPolicy => (
            vec![name, format_label_selector(spec.at(&["podSelector"])), age],
            Vec::new(),
        ),
        Kind::PodDisruptionBudget => (
            vec![
                name,
                int_or_string(spec.at(&["minAvailable"])).unwrap_or_else(|| "N/A".into()),
                int_or_string(spec.at(&["maxUnavailable"])).unwrap_or_else(|| "N/A".into()),
                status.int(&["disruptionsAllowed"]).to_string(),
                age,
            ],
            Vec::new(),
        ),
        Kind::StorageClass => (storage_class_cells(j, meta, name, age), Vec::new()),
        Kind::PriorityClass => (
            vec![
                name,
                j.int(&["value"]).to_string(),
                j.opt_bool(&["globalDefault"]).unwrap_or(false).to_string(),
                age,
                j.string_or(&["preemptionPolicy"], "PreemptLowerPriority"),
            ],
            Vec::new(),
        ),
        Kind::ControllerRevision => (
            vec![
                name,
                controller_cell(j.at(&["metadata"])),
                j.int(&["revision"]).to_string(),
                age,
            ],
            Vec::new(),
        ),
        // No table printer upstream: the default table convertor.
        Kind::Role | Kind::ClusterRole | Kind::LimitRange | Kind::CustomResourceDefinition => {
            (vec![name, created_at(meta)], Vec::new())
        }
        _ => (vec![name, age], Vec::new()),
    };
    if wide {
        cells.extend(wide_cells);
    }
    cells
}

/// A custom kind's columns as a table shows them: priority 0 always, the others
/// with `-o wide`.
fn shown_columns(kind: Kind, wide: bool) -> Vec<PrinterColumn> {
    crate::discovery::printer_columns(kind)
        .into_iter()
        .filter(|c| wide || c.priority == 0)
        .collect()
}

/// A custom object's row (apiextensions-apiserver's tableconvertor): its name, then
/// each printer column's JSONPath value: `date` as an age, a missing value as
/// `<none>`.
fn custom_row(obj: &Object, now: SimTime, wide: bool) -> Vec<String> {
    let value = obj.to_json();
    let mut cells = vec![name(obj.meta())];
    for c in shown_columns(obj.kind(), wide) {
        let found = jsonpath::JsonPath::parse(&format!("{{{}}}", c.json_path))
            .map(|p| p.allow_missing_keys(true))
            .and_then(|p| p.find_results(&value))
            .ok()
            .and_then(|r| r.into_iter().next())
            .and_then(|r| r.into_iter().next());
        let cell = match found {
            None | Some(Value::Null) => "<none>".to_string(),
            Some(Value::String(s)) if c.type_ == "date" => match s.parse::<Timestamp>() {
                Ok(t) => age(now, Some(&t)),
                Err(_) => "<invalid>".to_string(),
            },
            Some(v) => jsonpath::print_result(&v),
        };
        cells.push(cell);
    }
    cells
}

/// The CONTROLLER column (`printControllerRevision`): the controller reference as
/// `kind.group/name` in lower case, `<none>` without one.
fn controller_cell(meta: J) -> String {
    meta.arr(&["ownerReferences"])
        .iter()
        .find(|r| r.get("controller").and_then(serde_json::Value::as_bool) == Some(true))
        .map(|r| {
            let field = |k: &str| r.get(k).and_then(serde_json::Value::as_str).unwrap_or("");
            let group = field("apiVersion").rsplit_once('/').map_or("", |(g, _)| g);
            let kind = if group.is_empty() {
                field("kind").to_lowercase()
            } else {
                format!("{}.{group}", field("kind").to_lowercase())
            };
            format!("{kind}/{}", field("name"))
        })
        .unwrap_or_else(|| "<none>".into())
}

/// A row's cells and the cells `-o wide` adds to them.
type RowCells = (Vec<String>, Vec<String>);

/// A Service's row (`printService`).
fn service_cells(j: J, name: String, age: String) -> RowCells {
    let spec = j.at(&["spec"]);
    let status = j.at(&["status"]);
    let cells = vec![
        name,
        spec.string_or(&["type"], "ClusterIP"),
        service_cluster_ip(spec),
        service_external_ip(spec, status),
        service_ports(spec),
        age,
    ];
    (cells, vec![format_label_map(spec.at(&["selector"]))])
}

/// A DaemonSet's row (`printDaemonSet`).
fn daemon_set_cells(j: J, name: String, age: String) -> RowCells {
    let spec = j.at(&["spec"]);
    let status = j.at(&["status"]);
    let cells = vec![
        name,
        status.int(&["desiredNumberScheduled"]).to_string(),
        status.int(&["currentNumberScheduled"]).to_string(),
        status.int(&["numberReady"]).to_string(),
        status.int(&["updatedNumberScheduled"]).to_string(),
        status.int(&["numberAvailable"]).to_string(),
        format_label_map(spec.at(&["template", "spec", "nodeSelector"])),
        age,
    ];
    let (names, images) = json_container_cells(spec.at(&["template"]));
    (
        cells,
        vec![names, images, format_label_selector(spec.at(&["selector"]))],
    )
}

/// A StatefulSet's row (`printStatefulSet`).
fn stateful_set_cells(j: J, name: String, age: String) -> RowCells {
    let spec = j.at(&["spec"]);
    let status = j.at(&["status"]);
    let cells = vec![
        name,
        format!(
            "{}/{}",
            status.int(&["readyReplicas"]),
            spec.opt_int(&["replicas"]).unwrap_or(1)
        ),
        age,
    ];
    let (names, images) = json_container_cells(spec.at(&["template"]));
    (cells, vec![names, images])
}

/// A ReplicationController's row (`printReplicationController`).
fn replication_controller_cells(j: J, name: String, age: String) -> RowCells {
    let spec = j.at(&["spec"]);
    let status = j.at(&["status"]);
    let cells = vec![
        name,
        spec.opt_int(&["replicas"]).unwrap_or(1).to_string(),
        status.int(&["replicas"]).to_string(),
        status.int(&["readyReplicas"]).to_string(),
        age,
    ];
    let template = spec.at(&["template"]);
    let (names, images) = json_container_cells(template);
    // The apiserver defaults an absent selector to the template's labels.
    let selector = if spec.len(&["selector"]) > 0 {
        spec.at(&["selector"])
    } else {
        template.at(&["metadata", "labels"])
    };
    (cells, vec![names, images, format_label_map(selector)])
}

/// A CronJob's row (`printCronJob`).
fn cron_job_cells(j: J, name: String, age: String, now: SimTime) -> RowCells {
    let spec = j.at(&["spec"]);
    let status = j.at(&["status"]);
    let last = match status.time(&["lastScheduleTime"]) {
        Some(t) => json_age(now, Some(t)),
        None => "<none>".into(),
    };
    let cells = vec![
        name,
        spec.string(&["schedule"]),
        spec.string_or(&["timeZone"], "<none>"),
        title_bool(spec.opt_bool(&["suspend"]).unwrap_or(false)),
        status.len(&["active"]).to_string(),
        last,
        age,
    ];
    let job = spec.at(&["jobTemplate", "spec"]);
    let (names, images) = json_container_cells(job.at(&["template"]));
    (
        cells,
        vec![names, images, format_label_selector(job.at(&["selector"]))],
    )
}

/// An Ingress's row (`printIngress`).
fn ingress_cells(j: J, name: String, age: String) -> Vec<String> {
    let spec = j.at(&["spec"]);
    let status = j.at(&["status"]);
    vec![
        name,
        spec.string_or(&["ingressClassName"], "<none>"),
        format_hosts(spec.arr(&["rules"])),
        load_balancer_addresses(status.at(&["loadBalancer"])).join(","),
        if spec.len(&["tls"]) > 0 {
            "80, 443".into()
        } else {
            "80".into()
        },
        age,
    ]
}

/// An IngressClass's PARAMETERS: `Kind.apiGroup/name`, or `<none>`.
fn ingress_class_parameters(params: J) -> String {
    if params.0.is_null() {
        "<none>".to_string()
    } else {
        let mut p = params.string(&["kind"]);
        if let Some(g) = params.str(&["apiGroup"]) {
            p = format!("{p}.{g}");
        }
        format!("{p}/{}", params.string(&["name"]))
    }
}

/// A Secret's row: its type and how many keys it holds.
fn secret_cells(j: J, name: String, age: String) -> Vec<String> {
    // The apiserver merges `stringData` into `data` on write.
    let mut keys: std::collections::BTreeSet<&String> = std::collections::BTreeSet::new();
    for field in ["data", "stringData"] {
        if let Value::Object(m) = j.at(&[field]).0 {
            keys.extend(m.keys());
        }
    }
    vec![
        name,
        j.string_or(&["type"], "Opaque"),
        keys.len().to_string(),
        age,
    ]
}

/// A RoleBinding's or ClusterRoleBinding's row; `-o wide` adds its subjects.
fn role_binding_cells(j: J, name: String, age: String) -> RowCells {
    let role = j.at(&["roleRef"]);
    let cells = vec![
        name,
        format!("{}/{}", role.string(&["kind"]), role.string(&["name"])),
        age,
    ];
    let (mut users, mut groups, mut sas) = (Vec::new(), Vec::new(), Vec::new());
    for s in j.arr(&["subjects"]) {
        let s = J(s);
        match s.str(&["kind"]).unwrap_or_default() {
            "ServiceAccount" => sas.push(format!(
                "{}/{}",
                s.string(&["namespace"]),
                s.string(&["name"])
            )),
            "User" => users.push(s.string(&["name"])),
            "Group" => groups.push(s.string(&["name"])),
            _ => {}
        }
    }
    (
        cells,
        vec![users.join(", "), groups.join(", "), sas.join(", ")],
    )
}

/// A PersistentVolumeClaim's row (`printPersistentVolumeClaim`).
fn pvc_cells(j: J, meta: &ObjectMeta, name: String, age: String) -> RowCells {
    let spec = j.at(&["spec"]);
    let status = j.at(&["status"]);
    let phase = if meta.deletion_timestamp.is_some() {
        "Terminating".to_string()
    } else {
        status.string_or(&["phase"], "Pending")
    };
    let volume = spec.string(&["volumeName"]);
    let (capacity, modes) = if volume.is_empty() {
        (String::new(), String::new())
    } else {
        (
            json_quantity(status.at(&["capacity", "storage"])),
            access_modes(status.arr(&["accessModes"])),
        )
    };
    let cells = vec![
        name,
        phase,
        volume,
        capacity,
        modes,
        storage_class_of(j),
        spec.string_or(&["volumeAttributesClassName"], "<unset>"),
        age,
    ];
    (cells, vec![spec.string_or(&["volumeMode"], "Filesystem")])
}

/// A PersistentVolume's row (`printPersistentVolume`).
fn pv_cells(j: J, meta: &ObjectMeta, name: String, age: String) -> RowCells {
    let spec = j.at(&["spec"]);
    let status = j.at(&["status"]);
    let claim = spec.at(&["claimRef"]);
    let claim = if claim.0.is_null() {
        String::new()
    } else {
        format!(
            "{}/{}",
            claim.string(&["namespace"]),
            claim.string(&["name"])
        )
    };
    let phase = if meta.deletion_timestamp.is_some() {
        "Terminating".to_string()
    } else {
        status.string_or(&["phase"], "Pending")
    };
    let cells = vec![
        name,
        json_quantity(spec.at(&["capacity", "storage"])),
        access_modes(spec.arr(&["accessModes"])),
        spec.string_or(&["persistentVolumeReclaimPolicy"], "Retain"),
        phase,
        claim,
        storage_class_of(j),
        spec.string_or(&["volumeAttributesClassName"], "<unset>"),
        status.string(&["reason"]),
        age,
    ];
    (cells, vec![spec.string_or(&["volumeMode"], "Filesystem")])
}

/// A StorageClass's row; the default class is marked `(default)`.
fn storage_class_cells(j: J, meta: &ObjectMeta, name: String, age: String) -> Vec<String> {
    let default = [
        "storageclass.kubernetes.io/is-default-class",
        "storageclass.beta.kubernetes.io/is-default-class",
    ]
    .iter()
    .any(|a| {
        meta.annotations
            .as_ref()
            .and_then(|m| m.get(*a))
            .is_some_and(|v| v == "true")
    });
    vec![
        if default {
            format!("{name} (default)")
        } else {
            name
        },
        j.string(&["provisioner"]),
        j.string_or(&["reclaimPolicy"], "Delete"),
        j.string_or(&["volumeBindingMode"], "Immediate"),
        j.opt_bool(&["allowVolumeExpansion"])
            .unwrap_or(false)
            .to_string(),
        age,
    ]
}

/// The default table convertor's `CREATED AT`: RFC 3339 in UTC.
fn created_at(meta: &ObjectMeta) -> String {
    match &meta.creation_timestamp {
        Some(t) => t.0.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        None => "0001-01-01T00:00:00Z".into(),
    }
}

/// The Service's first cluster IP (`None` for headless Services), or `<none>`.
fn service_cluster_ip(spec: J) -> String {
    spec.arr(&["clusterIPs"])
        .first()
        .and_then(|v| v.as_str())
        .or_else(|| spec.str(&["clusterIP"]))
        .filter(|s| !s.is_empty())
        .unwrap_or("<none>")
        .to_string()
}

/// `loadBalancerStatusStringer`: the ingress points' IPs (else hostnames), each once.
/// The apiserver prints tables wide, so the list is never clipped.
fn load_balancer_addresses(lb: J) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in lb.arr(&["ingress"]) {
        let i = J(i);
        let addr = match (i.str(&["ip"]), i.str(&["hostname"])) {
            (Some(ip), _) if !ip.is_empty() => ip,
            (_, Some(h)) if !h.is_empty() => h,
            _ => continue,
        };
        if !out.iter().any(|a| a == addr) {
            out.push(addr.to_string());
        }
    }
    out.stable_sort();
    out
}

/// `getServiceExternalIP`.
fn service_external_ip(spec: J, status: J) -> String {
    let external: Vec<&str> = spec
        .arr(&["externalIPs"])
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    match spec.str(&["type"]).unwrap_or("ClusterIP") {
        "ClusterIP" | "NodePort" => {
            if external.is_empty() {
                "<none>".into()
            } else {
                external.join(",")
            }
        }
        "LoadBalancer" => {
            let mut lb = load_balancer_addresses(status.at(&["loadBalancer"]));
            if !external.is_empty() {
                lb.extend(external.iter().map(|s| s.to_string()));
                lb.join(",")
            } else if !lb.is_empty() {
                lb.join(",")
            } else {
                "<pending>".into()
            }
        }
        "ExternalName" => spec.string(&["externalName"]),
        _ => "<unknown>".into(),
    }
}

/// `makePortString`: `80/TCP`, `80:30080/TCP`, comma-separated; `<none>`.
fn service_ports(spec: J) -> String {
    let ports: Vec<String> = spec
        .arr(&["ports"])
        .iter()
        .map(|p| {
            let p = J(p);
            let protocol = p.string_or(&["protocol"], "TCP");
            match p.opt_int(&["nodePort"]) {
                Some(n) if n > 0 => format!("{}:{n}/{protocol}", p.int(&["port"])),
                _ => format!("{}/{protocol}", p.int(&["port"])),
            }
        })
        .collect();
    if ports.is_empty() {
        "<none>".into()
    } else {
        ports.join(",")
    }
}

/// `net.JoinHostPort`.
fn join_host_port(host: &str, port: i64) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// `formatEndpoints`: up to three `ip:port`, then ` + N more...`; `<none>`.
fn format_endpoints(subsets: &[Value]) -> String {
    if subsets.is_empty() {
        return "<none>".into();
    }
    const MAX: usize = 3;
    let mut list: Vec<String> = Vec::new();
    let mut more = false;
    let mut count = 0;
    for ss in subsets {
        let ss = J(ss);
        let addresses = ss.arr(&["addresses"]);
        let ports = ss.arr(&["ports"]);
        if ports.is_empty() {
            // Headless Services may have no ports.
            count += addresses.len();
            for a in addresses {
                if list.len() == MAX {
                    more = true;
                    break;
                }
                list.push(J(a).string(&["ip"]));
            }
            continue;
        }
        for port in ports {
            let port = J(port).int(&["port"]);
            count += addresses.len();
            for a in addresses {
                if list.len() == MAX {
                    more = true;
                    break;
                }
                list.push(join_host_port(J(a).str(&["ip"]).unwrap_or_default(), port));
            }
        }
    }
    let ret = list.join(",");
    if more {
        format!("{ret} + {} more...", count - MAX)
    } else {
        ret
    }
}

/// `listWithMoreString`.
fn list_with_more(list: Vec<String>, more: bool, count: usize, max: usize) -> String {
    let ret = list.join(",");
    if more {
        format!("{ret} + {} more...", count - max)
    } else if ret.is_empty() {
        "<unset>".into()
    } else {
        ret
    }
}

/// `formatDiscoveryPorts`.
fn format_slice_ports(ports: &[Value]) -> String {
    const MAX: usize = 3;
    let mut list = Vec::new();
    let mut more = false;
    for p in ports {
        let p = J(p);
        if list.len() < MAX {
            list.push(match (p.opt_int(&["port"]), p.str(&["name"])) {
                (Some(n), _) => n.to_string(),
                (None, Some(name)) => name.to_string(),
                _ => "*".to_string(),
            });
        } else if list.len() == MAX {
            more = true;
        }
    }
    list_with_more(list, more, ports.len(), MAX)
}

/// `formatDiscoveryEndpoints`.
fn format_slice_endpoints(endpoints: &[Value]) -> String {
    const MAX: usize = 3;
    let mut list = Vec::new();
    let mut more = false;
    let mut count = 0;
    for e in endpoints {
        for a in J(e).arr(&["addresses"]) {
            if list.len() < MAX {
                list.push(a.as_str().unwrap_or_default().to_string());
            } else if list.len() == MAX {
                more = true;
            }
            count += 1;
        }
    }
    list_with_more(list, more, count, MAX)
}

/// `formatHosts`: up to three hosts of the Ingress's rules, or `*`.
fn format_hosts(rules: &[Value]) -> String {
    const MAX: usize = 3;
    let mut list: Vec<&str> = Vec::new();
    let mut more = false;
    for r in rules {
        if list.len() == MAX {
            more = true;
        }
        match J(r).str(&["host"]) {
            Some(h) if !more && !h.is_empty() => list.push(h),
            _ => {}
        }
    }
    if list.is_empty() {
        return "*".into();
    }
    let ret = list.join(",");
    if more {
        format!("{ret} + {} more...", rules.len() - MAX)
    } else {
        ret
    }
}

/// `printJob`: STATUS, COMPLETIONS and DURATION.
fn job_cells(j: J, name: String, age: String, now: SimTime) -> Vec<String> {
    let spec = j.at(&["spec"]);
    let status = j.at(&["status"]);
    let succeeded = status.int(&["succeeded"]);
    let parallelism = spec.opt_int(&["parallelism"]);
    // The apiserver sets completions (and parallelism) to 1 when both are absent.
    let completions = match (spec.opt_int(&["completions"]), parallelism) {
        (Some(c), _) => Some(c),
        (None, None) => Some(1),
        (None, Some(_)) => None,
    };
    let completions = match completions {
        Some(c) => format!("{succeeded}/{c}"),
        None => match parallelism.unwrap_or(1) {
            p if p > 1 => format!("{succeeded}/1 of {p}"),
            _ => format!("{succeeded}/1"),
        },
    };
    let duration = match (
        status.time(&["startTime"]),
        status.time(&["completionTime"]),
    ) {
        (None, _) => String::new(),
        (Some(start), None) => human_duration(millis_since(now, &start)),
        (Some(start), Some(end)) => human_duration(end.as_millisecond() - start.as_millisecond()),
    };
    let condition = |kind: &str| {
        status
            .arr(&["conditions"])
            .iter()
            .find(|c| J(c).str(&["type"]) == Some(kind))
            .is_some_and(|c| J(c).str(&["status"]) == Some("True"))
    };
    let state = if condition("Complete") {
        "Complete"
    } else if condition("Failed") {
        "Failed"
    } else if j.has(&["metadata", "deletionTimestamp"]) {
        "Terminating"
    } else if condition("Suspended") {
        "Suspended"
    } else if condition("FailureTarget") {
        "FailureTarget"
    } else if condition("SuccessCriteriaMet") {
        "SuccessCriteriaMet"
    } else {
        "Running"
    };
    vec![name, state.into(), completions, duration, age]
}

/// `printHorizontalPodAutoscaler`. Objects written at autoscaling/v1 are read as the
/// apiserver converts them: the CPU target becomes a Resource metric. Without any
/// metric the apiserver's default applies: CPU at 80% utilization.
fn hpa_cells(obj: &Object, j: J, name: String, age: String) -> Vec<String> {
    let spec = j.at(&["spec"]);
    let status = j.at(&["status"]);
    let target = spec.at(&["scaleTargetRef"]);
    let reference = format!("{}/{}", target.string(&["kind"]), target.string(&["name"]));
    let targets = if obj.api_version() == "autoscaling/v1" {
        let current = status
            .opt_int(&["currentCPUUtilizationPercentage"])
            .map(|c| format!("{c}%"))
            .unwrap_or_else(|| "<unknown>".into());
        let goal = spec
            .opt_int(&["targetCPUUtilizationPercentage"])
            .unwrap_or(80);
        format!("cpu: {current}/{goal}%")
    } else if spec.len(&["metrics"]) == 0 {
        "cpu: <unknown>/80%".to_string()
    } else {
        format_hpa_metrics(spec.arr(&["metrics"]), status.arr(&["currentMetrics"]))
    };
    vec![
        name,
        reference,
        targets,
        spec.opt_int(&["minReplicas"]).unwrap_or(1).to_string(),
        spec.int(&["maxReplicas"]).to_string(),
        status.int(&["currentReplicas"]).to_string(),
        age,
    ]
}

/// `formatHPAMetrics` (autoscaling/v2).
fn format_hpa_metrics(specs: &[Value], statuses: &[Value]) -> String {
    const MAX: usize = 2;
    let mut list: Vec<String> = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let spec = J(spec);
        let status = statuses.get(i).map(J);
        // The status entry of the same source, if the controller wrote one.
        let st = |source: &str| status.map(|s| s.at(&[source])).filter(|s| !s.0.is_null());
        let unknown = || "<unknown>".to_string();
        let entry = match spec.str(&["type"]).unwrap_or_default() {
            source @ ("External" | "Object") => {
                let key = if source == "External" {
                    "external"
                } else {
                    "object"
                };
                let target = spec.at(&[key, "target"]);
                if target.has(&["averageValue"]) {
                    let current = st(key)
                        .map(|s| s.at(&["current", "averageValue"]))
                        .filter(|v| !v.0.is_null())
                        .map(json_quantity)
                        .unwrap_or_else(unknown);
                    format!(
                        "{current}/{} (avg)",
                        json_quantity(target.at(&["averageValue"]))
                    )
                } else {
                    let current = st(key)
                        .map(|s| json_quantity(s.at(&["current", "value"])))
                        .unwrap_or_else(unknown);
                    format!("{current}/{}", json_quantity(target.at(&["value"])))
                }
            }
            "Pods" => {
                let current = st("pods")
                    .map(|s| json_quantity(s.at(&["current", "averageValue"])))
                    .unwrap_or_else(unknown);
                format!(
                    "{current}/{}",
                    json_quantity(spec.at(&["pods", "target", "averageValue"]))
                )
            }
            source @ ("Resource" | "ContainerResource") => {
                let key = if source == "Resource" {
                    "resource"
                } else {
                    "containerResource"
                };
                let res = spec.at(&[key]);
                let target = res.at(&["target"]);
                let resource = res.string(&["name"]);
                if target.has(&["averageValue"]) {
                    let current = st(key)
                        .map(|s| json_quantity(s.at(&["current", "averageValue"])))
                        .unwrap_or_else(unknown);
                    format!(
                        "{resource}: {current}/{}",
                        json_quantity(target.at(&["averageValue"]))
                    )
                } else {
                    let current = st(key)
                        .and_then(|s| s.opt_int(&["current", "averageUtilization"]))
                        .map(|c| format!("{c}%"))
                        .unwrap_or_else(unknown);
                    let goal = target
                        .opt_int(&["averageUtilization"])
                        .map(|g| format!("{g}%"))
                        .unwrap_or_else(|| "<auto>".into());
                    format!("{resource}: {current}/{goal}")
                }
            }
            _ => "<unknown type>".to_string(),
        };
        list.push(entry);
    }
    let count = list.len();
    if count > MAX {
        list.truncate(MAX);
        format!("{} + {} more...", list.join(", "), count - MAX)
    } else {
        list.join(", ")
    }
}

/// `printResourceQuota`: `resource: used/hard` sorted by resource, the `limits.*`
/// ones in the LIMIT column. Read from the status the quota controller writes.
fn quota_columns(status: J) -> (String, String) {
    let Value::Object(hard) = status.at(&["hard"]).0 else {
        return (String::new(), String::new());
    };
    let mut names: Vec<&String> = hard.keys().collect();
    names.stable_sort();
    let (mut request, mut limit) = (Vec::new(), Vec::new());
    for n in names {
        let used = json_quantity(status.at(&["used", n]));
        let cell = format!("{n}: {used}/{}", json_quantity(J(&hard[n])));
        let pieces: Vec<&str> = n.split('.').collect();
        if pieces.len() > 1 && pieces[0] == "limits" {
            limit.push(cell);
        } else {
            request.push(cell);
        }
    }
    (request.join(", "), limit.join(", "))
}

/// `GetAccessModesAsString`: RWO, ROX, RWX, RWOP in that order.
fn access_modes(modes: &[Value]) -> String {
    let has = |m: &str| modes.iter().any(|v| v.as_str() == Some(m));
    [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(m, _)| has(m))
    .map(|(_, short)| *short)
    .collect::<Vec<_>>()
    .join(",")
}

/// `GetPersistentVolume(Claim)Class`: the beta annotation, else `storageClassName`.
fn storage_class_of(j: J) -> String {
    match j.str(&[
        "metadata",
        "annotations",
        "volume.beta.kubernetes.io/storage-class",
    ]) {
        Some(c) => c.to_string(),
        None => j.string(&["spec", "storageClassName"]),
    }
}

/// A resource quantity in its canonical form, as `Quantity.String()` writes it:
/// `1Gi` for `1024Mi`, `1500m` for `1.5`, `1k` for `1000`, `512` for `0.5Ki`.
/// Text that is not a quantity comes back unchanged.
pub fn canonical_quantity(text: &str) -> String {
    canonical_quantity_opt(text).unwrap_or_else(|| text.to_string())
}

fn canonical_quantity_opt(text: &str) -> Option<String> {
    let t = text.trim();
    let (negative, t) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let number_end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, suffix) = t.split_at(number_end);
    if number.is_empty() || number == "." || number.matches('.').count() > 1 {
        return None;
    }
    let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
    let digits: i128 = format!("{int_part}{frac_part}").parse().ok()?;
    let scale = frac_part.len() as u32;
    enum Format {
        Binary,
        DecimalSi,
        DecimalExponent,
    }
    // value = digits / 10^scale * multiplier; kept in nano units.
    let (format, numerator, denominator): (Format, i128, i128) = match suffix {
        "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" => {
            let power = match suffix {
                "Ki" => 1,
                "Mi" => 2,
                "Gi" => 3,
                "Ti" => 4,
                "Pi" => 5,
                _ => 6,
            };
            (
                Format::Binary,
                1024i128.checked_pow(power)?.checked_mul(NANO)?,
                1,
            )
        }
        _ => {
            let (format, exp): (Format, i32) = match suffix {
                "n" => (Format::DecimalSi, -9),
                "u" => (Format::DecimalSi, -6),
                "m" => (Format::DecimalSi, -3),
                "" => (Format::DecimalSi, 0),
                "k" => (Format::DecimalSi, 3),
                "M" => (Format::DecimalSi, 6),
                "G" => (Format::DecimalSi, 9),
                "T" => (Format::DecimalSi, 12),
                "P" => (Format::DecimalSi, 15),
                "E" => (Format::DecimalSi, 18),
                s if s.starts_with(['e', 'E']) => (Format::DecimalExponent, s[1..].parse().ok()?),
                _ => return None,
            };
            let e = exp + 9;
            if e >= 0 {
                (format, 10i128.checked_pow(e as u32)?, 1)
            } else {
                (format, 1, 10i128.checked_pow((-e) as u32)?)
            }
        }
    };
    let numerator = digits.checked_mul(numerator)?;
    let denominator = denominator.checked_mul(10i128.checked_pow(scale)?)?;
    // Precision below a nano-unit rounds up, as the apiserver does.
    let mut nanos = numerator / denominator;
    if numerator % denominator != 0 {
        nanos += 1;
    }
    let sign = if negative && nanos != 0 { "-" } else { "" };
    let format = match format {
        Format::Binary if nanos < 1024 * NANO || nanos % NANO != 0 => Format::DecimalSi,
        f => f,
    };
    if let Format::Binary = format {
        let mut n = nanos / NANO;
        let mut power = 0;
        while n % 1024 == 0 && power < 6 {
            n /= 1024;
            power += 1;
        }
        let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][power];
        return Some(format!("{sign}{n}{suffix}"));
    }
    // Decimal: the mantissa without trailing zeros, the exponent a multiple of 3.
    let (mut n, mut exp) = (nanos, -9i32);
    if n == 0 {
        exp = 0;
    }
    while n != 0 && n % 10 == 0 {
        n /= 10;
        exp += 1;
    }
    match exp.rem_euclid(3) {
        1 => {
            n *= 10;
            exp -= 1;
        }
        2 => {
            n *= 100;
            exp -= 2;
        }
        _ => {}
    }
    let suffix = match format {
        Format::DecimalExponent => {
            if exp == 0 {
                String::new()
            } else {
                format!("e{exp}")
            }
        }
        _ => match exp {
            -9 => "n".into(),
            -6 => "u".into(),
            -3 => "m".into(),
            0 => String::new(),
            3 => "k".into(),
            6 => "M".into(),
            9 => "G".into(),
            12 => "T".into(),
            15 => "P".into(),
            18 => "E".into(),
            e => format!("e{e}"),
        },
    };
    Some(format!("{sign}{n}{suffix}"))
}

const NANO: i128 = 1_000_000_000;

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{NodeCondition, NodeSpec, NodeStatus};

    /// An object of `kind` from JSON, created at the cluster's start.
    fn obj(kind: Kind, mut v: serde_json::Value) -> Object {
        let created = serde_json::to_value(SimTime(0).to_k8s()).unwrap();
        v["metadata"]["creationTimestamp"] = created;
        if v["metadata"].get("namespace").is_none() && kind.namespaced() {
            v["metadata"]["namespace"] = "default".into();
        }
        Object::from_json(kind, v).unwrap()
    }

    /// The header and the row, as kubectl prints them (90 s after creation).
    fn table_of(o: &Object, wide: bool) -> String {
        let opts = PrintOptions {
            wide,
            ..Default::default()
        };
        crate::printers::table::format(&[headers(o.kind(), opts), row(o, SimTime(90_000), opts)])
    }

    fn assert_table(o: &Object, wide: bool, expected: &str) {
        assert_eq!(table_of(o, wide), expected, "{}", o.kind());
    }

    #[test]
    fn service_rows() {
        let svc = obj(
            Kind::Service,
            serde_json::json!({"metadata": {"name": "web"}, "spec": {
                "type": "NodePort", "clusterIP": "10.96.12.7", "clusterIPs": ["10.96.12.7"],
                "selector": {"app": "web", "tier": "front"},
                "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]}}),
        );
        assert_table(
            &svc,
            true,
            "NAME   TYPE       CLUSTER-IP   EXTERNAL-IP   PORT(S)               AGE   SELECTOR\n\
             web    NodePort   10.96.12.7   <none>        80:30080/TCP,53/UDP   90s   app=web,tier=front\n",
        );
        let lb = obj(
            Kind::Service,
            serde_json::json!({"metadata": {"name": "lb"}, "spec": {"type": "LoadBalancer", "clusterIP": "10.96.0.20", "ports": [{"port": 443}]}}),
        );
        assert_table(
            &lb,
            false,
            "NAME   TYPE           CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE\n\
             lb     LoadBalancer   10.96.0.20   <pending>     443/TCP   90s\n",
        );
        let lb_ready = obj(
            Kind::Service,
            serde_json::json!({"metadata": {"name": "lb"}, "spec": {"type": "LoadBalancer", "ports": [{"port": 443}]},
                "status": {"loadBalancer": {"ingress": [{"ip": "203.0.113.9"}, {"hostname": "lb.example.com"}]}}}),
        );
        assert_eq!(
            row(&lb_ready, SimTime(0), PrintOptions::default())[3],
            "203.0.113.9,lb.example.com"
        );
        let ext = obj(
            Kind::Service,
            serde_json::json!({"metadata": {"name": "db"}, "spec": {"type": "ExternalName", "externalName": "db.example.com"}}),
        );
        assert_table(
            &ext,
            false,
            "NAME   TYPE           CLUSTER-IP   EXTERNAL-IP      PORT(S)   AGE\n\
             db     ExternalName   <none>       db.example.com   <none>    90s\n",
        );
    }

    #[test]
    fn endpoints_and_slices_list_three_then_count_the_rest() {
        let ep = obj(
            Kind::Endpoints,
            serde_json::json!({"metadata": {"name": "web"}, "subsets": [{
                "addresses": [{"ip": "10.244.1.2"}, {"ip": "10.244.2.3"}, {"ip": "10.244.1.4"}, {"ip": "10.244.2.5"}],
                "ports": [{"port": 80}]}]}),
        );
        assert_table(
            &ep,
            false,
            "NAME   ENDPOINTS                                               AGE\n\
             web    10.244.1.2:80,10.244.2.3:80,10.244.1.4:80 + 1 more...   90s\n",
        );
        let empty = obj(
            Kind::Endpoints,
            serde_json::json!({"metadata": {"name": "x"}}),
        );
        assert_eq!(
            row(&empty, SimTime(0), PrintOptions::default())[1],
            "<none>"
        );
        let slice = obj(
            Kind::EndpointSlice,
            serde_json::json!({"metadata": {"name": "web-abcde"}, "addressType": "IPv4",
                "ports": [{"port": 80, "name": "http"}, {"name": "metrics"}],
                "endpoints": [{"addresses": ["10.244.1.2"]}, {"addresses": ["10.244.2.3"]}]}),
        );
        assert_table(
            &slice,
            false,
            "NAME        ADDRESSTYPE   PORTS        ENDPOINTS               AGE\n\
             web-abcde   IPv4          80,metrics   10.244.1.2,10.244.2.3   90s\n",
        );
        let bare = obj(
            Kind::EndpointSlice,
            serde_json::json!({"metadata": {"name": "web-x"}, "addressType": "IPv4", "endpoints": []}),
        );
        let cells = row(&bare, SimTime(0), PrintOptions::default());
        assert_eq!(
            (cells[2].as_str(), cells[3].as_str()),
            ("<unset>", "<unset>")
        );
    }

    #[test]
    fn workload_rows() {
        let template = serde_json::json!({"metadata": {"labels": {"app": "x"}},
            "spec": {"containers": [{"name": "a", "image": "nginx:1.27"}, {"name": "b", "image": "busybox"}]}});
        let ds = obj(
            Kind::DaemonSet,
            serde_json::json!({"metadata": {"name": "agent"}, "spec": {
                "selector": {"matchLabels": {"app": "x"}}, "template": template.clone()},
                "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 3, "numberReady": 2,
                    "updatedNumberScheduled": 3, "numberAvailable": 2, "numberMisscheduled": 0}}),
        );
        assert_table(
            &ds,
            true,
            "NAME    DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR   AGE   CONTAINERS   IMAGES               SELECTOR\n\
             agent   3         3         2       3            2           <none>          90s   a,b          nginx:1.27,busybox   app=x\n",
        );
        let sts = obj(
            Kind::StatefulSet,
            serde_json::json!({"metadata": {"name": "web"}, "spec": {"serviceName": "web",
                "selector": {"matchLabels": {"app": "x"}}, "template": template.clone()}}),
        );
        assert_table(
            &sts,
            true,
            "NAME   READY   AGE   CONTAINERS   IMAGES\n\
             web    0/1     90s   a,b          nginx:1.27,busybox\n",
        );
        let rc = obj(
            Kind::ReplicationController,
            serde_json::json!({"metadata": {"name": "nginx"}, "spec": {"replicas": 3, "template": template}}),
        );
        assert_table(
            &rc,
            true,
            "NAME    DESIRED   CURRENT   READY   AGE   CONTAINERS   IMAGES               SELECTOR\n\
             nginx   3         0         0       90s   a,b          nginx:1.27,busybox   app=x\n",
        );
    }

    #[test]
    fn job_and_cronjob_rows() {
        let job = obj(
            Kind::Job,
            serde_json::json!({"metadata": {"name": "pi"}, "spec": {"template": {"spec": {
                "containers": [{"name": "pi", "image": "perl"}], "restartPolicy": "Never"}}}}),
        );
        assert_table(
            &job,
            false,
            "NAME   STATUS    COMPLETIONS   DURATION   AGE\n\
             pi     Running   0/1                      90s\n",
        );
        let start = serde_json::to_value(SimTime(10_000).to_k8s()).unwrap();
        let end = serde_json::to_value(SimTime(52_000).to_k8s()).unwrap();
        let done = obj(
            Kind::Job,
            serde_json::json!({"metadata": {"name": "pi"}, "spec": {"completions": 5, "parallelism": 2,
                "template": {"spec": {"containers": [{"name": "pi", "image": "perl"}], "restartPolicy": "Never"}}},
                "status": {"succeeded": 5, "startTime": start, "completionTime": end,
                    "conditions": [{"type": "Complete", "status": "True"}]}}),
        );
        assert_eq!(
            row(&done, SimTime(90_000), PrintOptions::default())[1..4],
            ["Complete", "5/5", "42s"]
        );
        let parallel = obj(
            Kind::Job,
            serde_json::json!({"metadata": {"name": "q"}, "spec": {"parallelism": 3,
                "template": {"spec": {"containers": [{"name": "w", "image": "busybox"}], "restartPolicy": "Never"}}},
                "status": {"startTime": start}}),
        );
        assert_eq!(
            row(&parallel, SimTime(90_000), PrintOptions::default())[2..4],
            ["0/1 of 3", "80s"]
        );
        let cj = obj(
            Kind::CronJob,
            serde_json::json!({"metadata": {"name": "hello"}, "spec": {"schedule": "*/5 * * * *",
                "jobTemplate": {"spec": {"template": {"spec": {
                    "containers": [{"name": "hello", "image": "busybox"}], "restartPolicy": "OnFailure"}}}}}}),
        );
        assert_table(
            &cj,
            true,
            "NAME    SCHEDULE      TIMEZONE   SUSPEND   ACTIVE   LAST SCHEDULE   AGE   CONTAINERS   IMAGES    SELECTOR\n\
             hello   */5 * * * *   <none>     False     0        <none>          90s   hello        busybox   <none>\n",
        );
    }

    #[test]
    fn networking_rows() {
        let ing = obj(
            Kind::Ingress,
            serde_json::json!({"metadata": {"name": "shop"}, "spec": {"ingressClassName": "nginx",
                "rules": [{"host": "a.example.com"}, {"host": "b.example.com"}],
                "tls": [{"hosts": ["a.example.com"]}]},
                "status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}}}),
        );
        assert_table(
            &ing,
            false,
            "NAME   CLASS   HOSTS                         ADDRESS     PORTS     AGE\n\
             shop   nginx   a.example.com,b.example.com   192.0.2.1   80, 443   90s\n",
        );
        let bare = obj(
            Kind::Ingress,
            serde_json::json!({"metadata": {"name": "x"}, "spec": {}}),
        );
        assert_eq!(
            row(&bare, SimTime(0), PrintOptions::default())[1..5],
            ["<none>", "*", "", "80"]
        );
        let class = obj(
            Kind::IngressClass,
            serde_json::json!({"metadata": {"name": "nginx"}, "spec": {"controller": "k8s.io/ingress-nginx",
                "parameters": {"apiGroup": "k8s.example.com", "kind": "IngressParameters", "name": "external-lb"}}}),
        );
        assert_table(
            &class,
            false,
            "NAME    CONTROLLER             PARAMETERS                                      AGE\n\
             nginx   k8s.io/ingress-nginx   IngressParameters.k8s.example.com/external-lb   90s\n",
        );
        let np = obj(
            Kind::NetworkPolicy,
            serde_json::json!({"metadata": {"name": "deny"}, "spec": {"podSelector": {}}}),
        );
        assert_table(
            &np,
            false,
            "NAME   POD-SELECTOR   AGE\n\
             deny   <none>         90s\n",
        );
        let np = obj(
            Kind::NetworkPolicy,
            serde_json::json!({"metadata": {"name": "db"}, "spec": {"podSelector": {"matchLabels": {"role": "db"}}}}),
        );
        assert_eq!(row(&np, SimTime(0), PrintOptions::default())[1], "role=db");
    }

    #[test]
    fn config_and_identity_rows() {
        let cm = obj(
            Kind::ConfigMap,
            serde_json::json!({"metadata": {"name": "cfg"}, "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}}),
        );
        assert_table(&cm, false, "NAME   DATA   AGE\ncfg    3      90s\n");
        let secret = obj(
            Kind::Secret,
            serde_json::json!({"metadata": {"name": "s"}, "data": {"user": "YQ=="}, "stringData": {"password": "p"}}),
        );
        assert_table(
            &secret,
            false,
            "NAME   TYPE     DATA   AGE\ns      Opaque   2      90s\n",
        );
        let sa = obj(
            Kind::ServiceAccount,
            serde_json::json!({"metadata": {"name": "build"}, "secrets": [{"name": "build-token"}]}),
        );
        assert_table(&sa, false, "NAME    SECRETS   AGE\nbuild   1         90s\n");
        let role = obj(
            Kind::Role,
            serde_json::json!({"metadata": {"name": "pod-reader"}, "rules": []}),
        );
        assert_table(
            &role,
            false,
            "NAME         CREATED AT\npod-reader   2026-01-01T00:00:00Z\n",
        );
        let cr = obj(
            Kind::ClusterRole,
            serde_json::json!({"metadata": {"name": "r"}}),
        );
        assert_eq!(
            row(&cr, SimTime(0), PrintOptions::default())[1],
            "2026-01-01T00:00:00Z"
        );
        let rb = obj(
            Kind::RoleBinding,
            serde_json::json!({"metadata": {"name": "read-pods"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
                "subjects": [{"kind": "User", "name": "jane"}, {"kind": "User", "name": "bob"},
                    {"kind": "Group", "name": "devs"},
                    {"kind": "ServiceAccount", "name": "build", "namespace": "ci"}]}),
        );
        assert_table(
            &rb,
            true,
            "NAME        ROLE              AGE   USERS       GROUPS   SERVICEACCOUNTS\n\
             read-pods   Role/pod-reader   90s   jane, bob   devs     ci/build\n",
        );
        let crb = obj(
            Kind::ClusterRoleBinding,
            serde_json::json!({"metadata": {"name": "g"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "secret-reader"}}),
        );
        assert_eq!(
            row(
                &crb,
                SimTime(0),
                PrintOptions {
                    wide: true,
                    ..Default::default()
                }
            )[1..],
            ["ClusterRole/secret-reader", "0s", "", "", ""]
        );
    }

    #[test]
    fn policy_rows() {
        let lr = obj(
            Kind::LimitRange,
            serde_json::json!({"metadata": {"name": "mem-limit-range"},
                "spec": {"limits": [{"type": "Container", "default": {"memory": "512Mi"}}]}}),
        );
        assert_table(
            &lr,
            false,
            "NAME              CREATED AT\nmem-limit-range   2026-01-01T00:00:00Z\n",
        );
        let quota = obj(
            Kind::ResourceQuota,
            serde_json::json!({"metadata": {"name": "mem-cpu-demo"},
                "spec": {"hard": {"requests.cpu": "1", "requests.memory": "1Gi", "limits.cpu": "2", "limits.memory": "2Gi"}},
                "status": {"hard": {"requests.cpu": "1", "requests.memory": "1Gi", "limits.cpu": "2", "limits.memory": "2Gi"},
                    "used": {"requests.cpu": "500m", "requests.memory": "512Mi", "limits.cpu": "0", "limits.memory": "0"}}}),
        );
        assert_table(
            &quota,
            false,
            "NAME           AGE   REQUEST                                            LIMIT\n\
             mem-cpu-demo   90s   requests.cpu: 500m/1, requests.memory: 512Mi/1Gi   limits.cpu: 0/2, limits.memory: 0/2Gi\n",
        );
        let fresh = obj(
            Kind::ResourceQuota,
            serde_json::json!({"metadata": {"name": "q"}, "spec": {"hard": {"pods": "10"}}, "status": {"hard": {"pods": "10"}}}),
        );
        assert_eq!(
            row(&fresh, SimTime(0), PrintOptions::default())[2..],
            ["pods: 0/10", ""]
        );
        let pdb = obj(
            Kind::PodDisruptionBudget,
            serde_json::json!({"metadata": {"name": "zk"}, "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "zk"}}}}),
        );
        assert_table(
            &pdb,
            false,
            "NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE\n\
             zk     2               N/A               0                     90s\n",
        );
        let pdb = obj(
            Kind::PodDisruptionBudget,
            serde_json::json!({"metadata": {"name": "web"}, "spec": {"maxUnavailable": "50%"}}),
        );
        assert_eq!(
            row(&pdb, SimTime(0), PrintOptions::default())[1..3],
            ["N/A", "50%"]
        );
        let pc = obj(
            Kind::PriorityClass,
            serde_json::json!({"metadata": {"name": "high-priority"}, "value": 1000000, "description": "x"}),
        );
        assert_table(
            &pc,
            false,
            "NAME            VALUE     GLOBAL-DEFAULT   AGE   PREEMPTIONPOLICY\n\
             high-priority   1000000   false            90s   PreemptLowerPriority\n",
        );
    }

    #[test]
    fn hpa_rows_at_both_versions() {
        let v2 = obj(
            Kind::HorizontalPodAutoscaler,
            serde_json::json!({"apiVersion": "autoscaling/v2", "metadata": {"name": "php-apache"},
                "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "php-apache"},
                    "minReplicas": 1, "maxReplicas": 10,
                    "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]}}),
        );
        assert_table(
            &v2,
            false,
            "NAME         REFERENCE               TARGETS              MINPODS   MAXPODS   REPLICAS   AGE\n\
             php-apache   Deployment/php-apache   cpu: <unknown>/50%   1         10        0          90s\n",
        );
        let v1 = obj(
            Kind::HorizontalPodAutoscaler,
            serde_json::json!({"apiVersion": "autoscaling/v1", "metadata": {"name": "frontend-scaler"},
                "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "frontend"},
                    "maxReplicas": 10, "targetCPUUtilizationPercentage": 50},
                "status": {"currentReplicas": 3, "desiredReplicas": 3, "currentCPUUtilizationPercentage": 12}}),
        );
        assert_eq!(
            row(&v1, SimTime(0), PrintOptions::default())[1..6],
            ["ReplicaSet/frontend", "cpu: 12%/50%", "1", "10", "3"]
        );
        let many = obj(
            Kind::HorizontalPodAutoscaler,
            serde_json::json!({"apiVersion": "autoscaling/v2", "metadata": {"name": "m"},
                "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d"}, "maxReplicas": 5, "metrics": [
                    {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "500Mi"}}},
                    {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "1k"}}},
                    {"type": "External", "external": {"metric": {"name": "queue"}, "target": {"type": "Value", "value": "30"}}}]}}),
        );
        assert_eq!(
            row(&many, SimTime(0), PrintOptions::default())[2],
            "memory: <unknown>/500Mi, <unknown>/1k + 1 more..."
        );
    }

    #[test]
    fn storage_rows() {
        let pvc = obj(
            Kind::PersistentVolumeClaim,
            serde_json::json!({"metadata": {"name": "task-pv-claim"}, "spec": {"storageClassName": "manual",
                "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "3Gi"}}}}),
        );
        assert_table(
            &pvc,
            true,
            "NAME            STATUS    VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   VOLUMEATTRIBUTESCLASS   AGE   VOLUMEMODE\n\
             task-pv-claim   Pending                                      manual         <unset>                 90s   Filesystem\n",
        );
        let bound = obj(
            Kind::PersistentVolumeClaim,
            serde_json::json!({"metadata": {"name": "c"}, "spec": {"volumeName": "pv1",
                "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "3Gi"}}},
                "status": {"phase": "Bound", "accessModes": ["ReadWriteMany", "ReadWriteOnce"], "capacity": {"storage": "10240Mi"}}}),
        );
        assert_eq!(
            row(&bound, SimTime(0), PrintOptions::default())[1..5],
            ["Bound", "pv1", "10Gi", "RWO,RWX"]
        );
        let pv = obj(
            Kind::PersistentVolume,
            serde_json::json!({"metadata": {"name": "task-pv-volume"}, "spec": {"storageClassName": "manual",
                "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/mnt/data"},
                "claimRef": {"namespace": "default", "name": "task-pv-claim"}},
                "status": {"phase": "Bound"}}),
        );
        assert_table(
            &pv,
            false,
            "NAME             CAPACITY   ACCESS MODES   RECLAIM POLICY   STATUS   CLAIM                   STORAGECLASS   VOLUMEATTRIBUTESCLASS   REASON   AGE\n\
             task-pv-volume   10Gi       RWO            Retain           Bound    default/task-pv-claim   manual         <unset>                          90s\n",
        );
        let sc = obj(
            Kind::StorageClass,
            serde_json::json!({"metadata": {"name": "standard",
                "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
                "provisioner": "rancher.io/local-path", "volumeBindingMode": "WaitForFirstConsumer"}),
        );
        assert_table(
            &sc,
            false,
            "NAME                 PROVISIONER             RECLAIMPOLICY   VOLUMEBINDINGMODE      ALLOWVOLUMEEXPANSION   AGE\n\
             standard (default)   rancher.io/local-path   Delete          WaitForFirstConsumer   false                  90s\n",
        );
    }

    #[test]
    fn every_kind_has_as_many_cells_as_headers() {
        for kind in Kind::ALL {
            let o = obj(kind, serde_json::json!({"metadata": {"name": "x"}}));
            for wide in [false, true] {
                let opts = PrintOptions {
                    wide,
                    with_namespace: true,
                    with_kind: true,
                    show_labels: true,
                };
                assert_eq!(
                    headers(kind, opts).len(),
                    row(&o, SimTime(0), opts).len(),
                    "{kind} wide={wide}"
                );
            }
        }
    }

    #[test]
    fn quantities_print_in_canonical_form() {
        for (input, canonical) in [
            ("1Gi", "1Gi"),
            ("1024Mi", "1Gi"),
            ("1536Mi", "1536Mi"),
            ("0.5Gi", "512Mi"),
            ("0.5Ki", "512"),
            ("1000", "1k"),
            ("1.5", "1500m"),
            ("1000m", "1"),
            ("0.1", "100m"),
            ("100m", "100m"),
            ("0", "0"),
            ("1e3", "1e3"),
            ("2G", "2G"),
            ("128974848", "128974848"),
            ("129e6", "129e6"),
            ("123Mi", "123Mi"),
            ("-1", "-1"),
            ("abc", "abc"),
        ] {
            assert_eq!(canonical_quantity(input), canonical, "{input}");
        }
    }

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
