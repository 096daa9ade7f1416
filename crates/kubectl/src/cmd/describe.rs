//! `kubectl describe`: the describers of staging/src/k8s.io/kubectl/pkg/describe
//! (describe.go), line for line in layout, written over the objects' JSON.
//!
//! Each describer writes tab-separated text at two-space indentation levels and the
//! result goes through Go's tabwriter ([`crate::printers::tabwriter`], padding 2), flushed before
//! the Events table as upstream does, so the columns line up exactly as kubectl's.
//! Pods, nodes, deployments, replicasets, statefulsets, jobs, services, endpoints,
//! endpointslices, namespaces, configmaps, serviceaccounts, limitranges, resourcequotas,
//! persistentvolumeclaims, persistentvolumes, storageclasses, horizontalpodautoscalers and
//! (cluster)rolebindings have their upstream describers; kinds upstream describes
//! generically (leases, ...) get the generic describer; the few kinds whose dedicated
//! describer is not written here yet say so instead of printing something else.

use crate::context::{CommandOutput, Context};
use crate::errors;
use crate::printers::humanize;
use crate::printers::tabwriter;
use crate::selector::Selector;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use warehouse_sim::object::quantity::Quantity;
use warehouse_sim::{Cluster, CollectMap, Kind, Object, SimTime, StableSort, StatusReason};

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
const MAX_ANNOTATION_LEN: usize = 140;

/// `kubectl describe` with its whole command line (the word `describe` first).
pub(crate) fn run(cluster: &Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let mut namespace: Option<String> = None;
    let mut all_namespaces = false;
    let mut selector: Option<String> = None;
    let mut show_events = true;
    let mut words: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let value = |i: &mut usize| -> Option<String> {
            *i += 1;
            args.get(*i).cloned()
        };
        match a {
            "-n" | "--namespace" => namespace = value(&mut i),
            "-l" | "--selector" => selector = value(&mut i),
            "-A" | "--all-namespaces" => all_namespaces = true,
            "--show-events=false" => show_events = false,
            "--show-events" | "--show-events=true" => show_events = true,
            "-h" | "--help" => {
                return CommandOutput {
                    stdout: HELP.to_string(),
                    ..CommandOutput::default()
                }
            }
            _ if a.starts_with("--namespace=") => namespace = Some(a[12..].to_string()),
            _ if a.starts_with("--selector=") => selector = Some(a[11..].to_string()),
            _ if a.starts_with("-l") && a.len() > 2 => selector = Some(a[2..].to_string()),
            _ if a.starts_with('-') => {
                return CommandOutput::error(format!(
                    "error: unknown flag: {a}\nSee 'kubectl describe --help' for usage."
                ))
            }
            _ => words.push(a.to_string()),
        }
        i += 1;
    }
    let namespace = namespace.unwrap_or_else(|| ctx.default_namespace.clone());
    if words.first().map(String::as_str) == Some("describe") {
        words.remove(0);
    }
    if words.is_empty() {
        return CommandOutput::error(
            "You must specify the type of resource to describe. Use \"kubectl api-resources\" for a complete list of supported resources.\n\nerror: Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl describe -h' for help and examples",
        );
    }
    let requests = match crate::cmd::get::parse_resource_args(&words) {
        Ok(r) => r,
        Err(e) => return CommandOutput::error(e),
    };
    let selector = match selector.as_deref().map(Selector::parse).transpose() {
        Ok(s) => s,
        Err(e) => return CommandOutput::error(e),
    };
    let mut out = CommandOutput::new();
    let mut first = true;
    let mut emit = |out: &mut CommandOutput, text: String| {
        if !first {
            out.stdout.push_str("\n\n");
        }
        first = false;
        out.stdout.push_str(&text);
    };
    let empty = BTreeMap::new();
    for req in &requests {
        let ns_for_list = if all_namespaces || !req.kind.namespaced() {
            None
        } else {
            Some(namespace.as_str())
        };
        let mut objects: Vec<Object> = Vec::new();
        if req.names.is_empty() {
            let allowed = crate::context::authorize(
                cluster,
                ctx,
                "list",
                req.kind,
                ns_for_list.unwrap_or(""),
                "",
            )
            .and_then(|()| cluster.check_storage());
            if let Err(e) = allowed {
                out.fail(errors::render(&e, None));
                continue;
            }
            objects = cluster
                .list(req.kind, ns_for_list)
                .into_iter()
                .filter(|o| {
                    selector
                        .as_ref()
                        .is_none_or(|s| s.matches(o.meta().labels.as_ref().unwrap_or(&empty)))
                })
                .collect();
            if objects.is_empty() {
                if all_namespaces {
                    out.err_line("No resources found");
                } else {
                    out.err_line(format!("No resources found in {namespace} namespace."));
                }
            }
        } else {
            for name in &req.names {
                let got =
                    crate::context::authorize(cluster, ctx, "get", req.kind, &namespace, name)
                        .and_then(|()| cluster.check_storage())
                        .and_then(|()| cluster.get(req.kind, &namespace, name));
                match got {
                    Ok(o) => objects.push(o),
                    Err(e) if e.reason == StatusReason::NotFound => {
                        // kubectl then describes every object whose name starts with
                        // the argument, and reports the lookup error if none does.
                        let prefixed: Vec<Object> = cluster
                            .list(req.kind, ns_for_list.or(Some(namespace.as_str())))
                            .into_iter()
                            .filter(|o| o.name().starts_with(name.as_str()))
                            .collect();
                        if prefixed.is_empty() {
                            out.fail(errors::render(&e, None));
                        }
                        objects.extend(prefixed);
                    }
                    Err(e) => out.fail(errors::render(&e, None)),
                }
            }
        }
        for obj in &objects {
            match describe(cluster, obj, show_events) {
                Ok(text) => emit(&mut out, text),
                Err(e) => out.fail(e),
            }
        }
    }
    out
}

const HELP: &str = "Show details of a specific resource or group of resources.\n\n Print a detailed description of the selected resources, including related resources such as events or controllers. You may select a single object by name, all objects of that type, provide a name prefix, or label selector.\n\nExamples:\n  # Describe a node\n  kubectl describe nodes kubernetes-node-emt8.c.myproject.internal\n\n  # Describe a pod\n  kubectl describe pods/nginx\n\n  # Describe all pods managed by the 'frontend' replication controller\n  kubectl describe pods frontend\n\nOptions:\n    -A, --all-namespaces=false:\n\tIf present, list the requested object(s) across all namespaces.\n\n    -l, --selector='':\n\tSelector (label query) to filter on.\n\n    --show-events=true:\n\tIf true, display events related to the described object.\n\nUsage:\n  kubectl describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME) [options]\n";

/// One object's description, or the error kubectl prints for it.
pub fn describe(cluster: &Cluster, obj: &Object, show_events: bool) -> Result<String, String> {
    let v = obj.to_json();
    let now = cluster.now();
    let events = show_events.then(|| related_events(cluster, obj));
    let mut w = Writer::default();
    match obj.kind() {
        Kind::Pod => describe_pod(&mut w, &v, now),
        Kind::Node => describe_node(&mut w, cluster, &v, now),
        Kind::Deployment => describe_deployment(&mut w, cluster, &v),
        Kind::ReplicaSet => describe_replica_set(&mut w, cluster, &v),
        Kind::Job => describe_job(&mut w, &v),
        Kind::Service => describe_service(&mut w, cluster, &v),
        Kind::Endpoints => describe_endpoints(&mut w, &v),
        Kind::Ingress => describe_ingress(&mut w, cluster, &v),
        Kind::IngressClass => describe_ingress_class(&mut w, &v),
        Kind::PodDisruptionBudget => describe_pod_disruption_budget(&mut w, &v),
        // Upstream's describer lists no events for a policy.
        Kind::NetworkPolicy => {
            describe_network_policy(&mut w, &v);
            return Ok(w.finish());
        }
        Kind::CronJob => describe_cron_job(&mut w, &v),
        Kind::StatefulSet => describe_stateful_set(
            &mut w,
            cluster,
            &crate::cmd::stateful_set::defaulted(obj),
        ),
        Kind::EndpointSlice => describe_endpoint_slice(&mut w, &v),
        Kind::Namespace => {
            describe_namespace(&mut w, cluster, &v);
            return Ok(w.finish());
        }
        Kind::ConfigMap => describe_config_map(&mut w, &v),
        Kind::PersistentVolumeClaim => describe_persistent_volume_claim(&mut w, cluster, &v, now),
        Kind::PersistentVolume => describe_persistent_volume(&mut w, &v, now),
        Kind::StorageClass => describe_storage_class(&mut w, &v),
        Kind::PriorityClass => describe_priority_class(&mut w, &v),
        Kind::HorizontalPodAutoscaler => describe_autoscaler(
            &mut w,
            &warehouse_sim::controllers::hpa::served_as_v2(&v),
        ),
        Kind::ServiceAccount => describe_service_account(&mut w, &v),
        Kind::LimitRange => {
            describe_limit_range(&mut w, &v);
            return Ok(w.finish());
        }
        Kind::ResourceQuota => {
            describe_quota(&mut w, &v);
            return Ok(w.finish());
        }
        Kind::RoleBinding | Kind::ClusterRoleBinding => {
            describe_binding(&mut w, &v);
            return Ok(w.finish());
        }
        k if HAS_DEDICATED_DESCRIBER.contains(&k.as_str()) => {
            return Err(format!(
                "error: describing {} is not available in this simulated cluster yet; `kubectl get {} {} -o yaml` shows the whole object",
                k.plural(),
                k.plural(),
                obj.name()
            ))
        }
        _ => describe_generic(&mut w, &v),
    }
    if let Some(events) = events {
        describe_events(&mut w, &events, now);
    }
    Ok(w.finish())
}

/// Kinds upstream describes with a describer of their own that is not written here.
const HAS_DEDICATED_DESCRIBER: &[&str] = &[
    "DaemonSet",
    "Secret",
    "Role",
    "ClusterRole",
    "ReplicationController",
];

/// kubectl's prefix writer over a tabwriter: text at two-space levels, aligned when
/// flushed.
#[derive(Default)]
struct Writer {
    pending: String,
    out: String,
}

impl Writer {
    fn w(&mut self, level: usize, text: &str) {
        for _ in 0..level {
            self.pending.push_str("  ");
        }
        self.pending.push_str(text);
    }

    fn flush(&mut self) {
        self.out.push_str(&tabwriter::align(&self.pending, 0, 2));
        self.pending.clear();
    }

    fn finish(mut self) -> String {
        self.flush();
        self.out
    }
}

// --- JSON helpers -------------------------------------------------------------

fn at<'a>(v: &'a Value, path: &str) -> &'a Value {
    let mut cur = v;
    for part in path.split('.') {
        cur = cur.get(part).unwrap_or(&Value::Null);
    }
    cur
}

fn s<'a>(v: &'a Value, path: &str) -> &'a str {
    at(v, path).as_str().unwrap_or("")
}

fn i(v: &Value, path: &str) -> i64 {
    at(v, path).as_i64().unwrap_or(0)
}

fn arr<'a>(v: &'a Value, path: &str) -> &'a [Value] {
    at(v, path).as_array().map(Vec::as_slice).unwrap_or(&[])
}

fn string_map(v: &Value, path: &str) -> BTreeMap<String, String> {
    at(v, path)
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect_map()
        })
        .unwrap_or_default()
}

/// Go's `%v` of a JSON scalar.
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "<nil>".to_string(),
        other => other.to_string(),
    }
}

/// `time.RFC1123Z`: `Mon, 02 Jan 2006 15:04:05 -0700`.
fn rfc1123z(text: &str) -> String {
    match text.parse::<k8s_openapi::jiff::Timestamp>() {
        Ok(t) => t.strftime("%a, %d %b %Y %H:%M:%S %z").to_string(),
        // Go prints the zero time for a missing timestamp.
        Err(_) => "Mon, 01 Jan 0001 00:00:00 +0000".to_string(),
    }
}

fn since(now: SimTime, text: &str) -> String {
    match text.parse::<k8s_openapi::jiff::Timestamp>() {
        Ok(t) => humanize::age(now, Some(&t)),
        Err(_) => "<unknown>".to_string(),
    }
}

fn quantity(text: &str) -> String {
    Quantity::parse(text)
        .map(|q| q.to_string())
        .unwrap_or_else(|| text.to_string())
}

/// `metav1.FormatLabelSelector`-like rendering of a selector (`app=web,tier in (a,b)`).
fn format_selector(sel: &Value) -> String {
    if sel.is_null() {
        return "<none>".to_string();
    }
    let mut parts: Vec<String> = string_map(sel, "matchLabels")
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    for e in arr(sel, "matchExpressions") {
        let key = s(e, "key");
        let values: Vec<String> = arr(e, "values").iter().map(scalar).collect();
        parts.push(match s(e, "operator") {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            op => format!("{key} {op} {}", values.join(",")),
        });
    }
    if parts.is_empty() {
        return "<none>".to_string();
    }
    parts.join(",")
}

/// `labels.FormatLabels`: `k=v,k2=v2` sorted, `<none>` when empty.
fn format_labels(m: &BTreeMap<String, String>) -> String {
    if m.is_empty() {
        return "<none>".to_string();
    }
    m.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

// --- shared pieces ------------------------------------------------------------

/// `title:` then one value per line, continuation lines under the first, or `<none>`
/// (the shape of kubectl's `printLabelsMultiline` and its siblings).
fn multiline(w: &mut Writer, title: &str, lines: impl IntoIterator<Item = String>) {
    w.w(0, &format!("{title}:\t"));
    let mut empty = true;
    for line in lines {
        if !empty {
            w.w(0, "\t");
        }
        empty = false;
        w.w(0, &format!("{line}\n"));
    }
    if empty {
        w.w(0, "<none>\n");
    }
}

fn labels_multiline(w: &mut Writer, title: &str, labels: &BTreeMap<String, String>) {
    multiline(w, title, labels.iter().map(|(k, v)| format!("{k}={v}")));
}

fn annotations_multiline(w: &mut Writer, title: &str, annotations: &BTreeMap<String, String>) {
    w.w(0, &format!("{title}:\t"));
    let shown: Vec<(&String, &String)> = annotations
        .iter()
        .filter(|(k, _)| k.as_str() != LAST_APPLIED)
        .collect();
    if shown.is_empty() {
        w.w(0, "<none>\n");
        return;
    }
    for (n, (k, v)) in shown.into_iter().enumerate() {
        if n > 0 {
            w.w(0, "\t");
        }
        let value = v.strip_suffix('\n').unwrap_or(v);
        if value.len() + k.len() + 2 > MAX_ANNOTATION_LEN || value.contains('\n') {
            w.w(0, &format!("{k}:\n"));
            for line in value.split('\n') {
                let short = if line.len() > MAX_ANNOTATION_LEN - 2 {
                    let mut end = MAX_ANNOTATION_LEN - 2;
                    while !line.is_char_boundary(end) {
                        end -= 1;
                    }
                    format!("{}...", &line[..end])
                } else {
                    line.to_string()
                };
                w.w(0, &format!("\t  {short}\n"));
            }
        } else {
            w.w(0, &format!("{k}: {value}\n"));
        }
    }
}

fn tolerations_multiline(w: &mut Writer, title: &str, tolerations: &[Value]) {
    let mut sorted: Vec<&Value> = tolerations.iter().collect();
    sorted.stable_sort_by(|a, b| s(a, "key").cmp(s(b, "key")));
    multiline(w, title, sorted.into_iter().map(toleration_string));
}

fn toleration_string(t: &Value) -> String {
    let mut line = s(t, "key").to_string();
    if !s(t, "value").is_empty() {
        line.push_str(&format!("={}", s(t, "value")));
    }
    if !s(t, "effect").is_empty() {
        line.push_str(&format!(":{}", s(t, "effect")));
    }
    if s(t, "operator") == "Exists" && s(t, "value").is_empty() {
        if !s(t, "key").is_empty() || !s(t, "effect").is_empty() {
            line.push_str(" op=Exists");
        } else {
            line.push_str("op=Exists");
        }
    }
    if let Some(secs) = at(t, "tolerationSeconds").as_i64() {
        line.push_str(&format!(" for {secs}s"));
    }
    line
}

fn taints_multiline(w: &mut Writer, title: &str, taints: &[Value]) {
    let mut sorted: Vec<&Value> = taints.iter().collect();
    sorted.stable_sort_by_key(|t| format!("{},{}", s(t, "effect"), s(t, "key")));
    multiline(w, title, sorted.into_iter().map(taint_string));
}

fn taint_string(t: &Value) -> String {
    if s(t, "value").is_empty() {
        format!("{}:{}", s(t, "key"), s(t, "effect"))
    } else {
        format!("{}={}:{}", s(t, "key"), s(t, "value"), s(t, "effect"))
    }
}

fn controlled_by(v: &Value) -> Option<String> {
    arr(v, "metadata.ownerReferences")
        .iter()
        .find(|r| at(r, "controller").as_bool() == Some(true))
        .map(|r| format!("{}/{}", s(r, "kind"), s(r, "name")))
}

fn header(w: &mut Writer, v: &Value, namespaced: bool) {
    w.w(0, &format!("Name:\t{}\n", s(v, "metadata.name")));
    if namespaced {
        w.w(0, &format!("Namespace:\t{}\n", s(v, "metadata.namespace")));
    }
}

fn meta_labels(w: &mut Writer, v: &Value) {
    labels_multiline(w, "Labels", &string_map(v, "metadata.labels"));
    annotations_multiline(w, "Annotations", &string_map(v, "metadata.annotations"));
}

// --- events -------------------------------------------------------------------

/// The events about `obj` (upstream `searchEvents`: the involved object's name,
/// namespace and uid; for nodes also the events the kubelet files under the node's
/// name as uid), oldest first.
fn related_events(cluster: &Cluster, obj: &Object) -> Vec<Value> {
    let uid = obj.meta().uid.clone().unwrap_or_default();
    let ns = obj.kind().namespaced().then(|| obj.namespace());
    let mut events: Vec<Value> = cluster
        .list(Kind::Event, ns)
        .iter()
        .map(Object::to_json)
        .filter(|e| {
            s(e, "involvedObject.name") == obj.name()
                && (s(e, "involvedObject.uid") == uid
                    || (obj.kind() == Kind::Node && s(e, "involvedObject.uid") == obj.name()))
                && (ns.is_none() || s(e, "involvedObject.namespace") == obj.namespace())
        })
        .collect();
    // `SortableEvents` orders by the last time seen; a stable sort keeps events of the
    // same second in the order they were recorded.
    events.stable_sort_by(|a, b| event_time(a).cmp(event_time(b)));
    events
}

fn event_time(e: &Value) -> &str {
    let last = s(e, "lastTimestamp");
    if !last.is_empty() {
        last
    } else {
        s(e, "eventTime")
    }
}

fn describe_events(w: &mut Writer, events: &[Value], now: SimTime) {
    if events.is_empty() {
        w.w(0, "Events:\t<none>\n");
        return;
    }
    w.flush();
    w.w(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n");
    w.w(1, "----\t------\t----\t----\t-------\n");
    for e in events {
        let first_seen = if s(e, "eventTime").is_empty() {
            since(now, s(e, "firstTimestamp"))
        } else {
            since(now, s(e, "eventTime"))
        };
        let count = i(e, "count");
        let interval = if count > 1 {
            format!(
                "{} (x{count} over {first_seen})",
                since(now, s(e, "lastTimestamp"))
            )
        } else {
            first_seen
        };
        let mut source = s(e, "source.component");
        if source.is_empty() {
            source = s(e, "reportingComponent");
        }
        let mut message = s(e, "message").trim().to_string();
        let field_path = s(e, "involvedObject.fieldPath");
        if !field_path.is_empty() {
            message = format!("{field_path}: {message}");
        }
        w.w(
            1,
            &format!(
                "{}\t{}\t{interval}\t{source}\t{message}\n",
                s(e, "type"),
                s(e, "reason")
            ),
        );
    }
}

// --- pods ---------------------------------------------------------------------

fn describe_pod(w: &mut Writer, v: &Value, now: SimTime) {
    header(w, v, true);
    if let Some(p) = at(v, "spec.priority").as_i64() {
        w.w(0, &format!("Priority:\t{p}\n"));
    }
    if !s(v, "spec.priorityClassName").is_empty() {
        w.w(
            0,
            &format!("Priority Class Name:\t{}\n", s(v, "spec.priorityClassName")),
        );
    }
    if !s(v, "spec.serviceAccountName").is_empty() {
        w.w(
            0,
            &format!("Service Account:\t{}\n", s(v, "spec.serviceAccountName")),
        );
    }
    if s(v, "spec.nodeName").is_empty() {
        w.w(0, "Node:\t<none>\n");
    } else {
        w.w(
            0,
            &format!(
                "Node:\t{}/{}\n",
                s(v, "spec.nodeName"),
                s(v, "status.hostIP")
            ),
        );
    }
    if !s(v, "status.startTime").is_empty() {
        w.w(
            0,
            &format!("Start Time:\t{}\n", rfc1123z(s(v, "status.startTime"))),
        );
    }
    meta_labels(w, v);
    let phase = s(v, "status.phase");
    if !s(v, "metadata.deletionTimestamp").is_empty() && phase != "Failed" && phase != "Succeeded" {
        w.w(
            0,
            &format!(
                "Status:\tTerminating (lasts {})\n",
                since(now, s(v, "metadata.deletionTimestamp"))
            ),
        );
        w.w(
            0,
            &format!(
                "Termination Grace Period:\t{}s\n",
                i(v, "metadata.deletionGracePeriodSeconds")
            ),
        );
    } else {
        w.w(0, &format!("Status:\t{phase}\n"));
    }
    if !s(v, "status.reason").is_empty() {
        w.w(0, &format!("Reason:\t{}\n", s(v, "status.reason")));
    }
    if !s(v, "status.message").is_empty() {
        w.w(0, &format!("Message:\t{}\n", s(v, "status.message")));
    }
    w.w(0, &format!("IP:\t{}\n", s(v, "status.podIP")));
    let ips = arr(v, "status.podIPs");
    if ips.is_empty() {
        w.w(0, "IPs:\t<none>\n");
    } else {
        w.w(0, "IPs:\n");
        for ip in ips {
            w.w(1, &format!("IP:\t{}\n", s(ip, "ip")));
        }
    }
    if let Some(c) = controlled_by(v) {
        w.w(0, &format!("Controlled By:\t{c}\n"));
    }
    if !s(v, "status.nominatedNodeName").is_empty() {
        w.w(
            0,
            &format!("NominatedNodeName:\t{}\n", s(v, "status.nominatedNodeName")),
        );
    }
    if !arr(v, "spec.initContainers").is_empty() {
        describe_containers(
            w,
            "Init Containers",
            arr(v, "spec.initContainers"),
            Some(arr(v, "status.initContainerStatuses")),
            "",
        );
    }
    describe_containers(
        w,
        "Containers",
        arr(v, "spec.containers"),
        Some(arr(v, "status.containerStatuses")),
        "",
    );
    // describe.go: the ephemeral containers as the containers they are.
    if !arr(v, "spec.ephemeralContainers").is_empty() {
        describe_containers(
            w,
            "Ephemeral Containers",
            arr(v, "spec.ephemeralContainers"),
            Some(arr(v, "status.ephemeralContainerStatuses")),
            "",
        );
    }
    let conditions = arr(v, "status.conditions");
    if !conditions.is_empty() {
        w.w(0, "Conditions:\n  Type\tStatus\n");
        for c in conditions {
            w.w(1, &format!("{} \t{} \n", s(c, "type"), s(c, "status")));
        }
    }
    describe_volumes(w, arr(v, "spec.volumes"), "");
    w.w(0, &format!("QoS Class:\t{}\n", qos_class(v)));
    labels_multiline(w, "Node-Selectors", &string_map(v, "spec.nodeSelector"));
    tolerations_multiline(w, "Tolerations", arr(v, "spec.tolerations"));
}

/// `qos.GetPodQOS`: the status's class, else computed from the containers' resources.
fn qos_class(v: &Value) -> String {
    let from_status = s(v, "status.qosClass");
    if !from_status.is_empty() {
        return from_status.to_string();
    }
    let containers: Vec<&Value> = arr(v, "spec.containers")
        .iter()
        .chain(arr(v, "spec.initContainers"))
        .collect();
    let mut any = false;
    let mut guaranteed = true;
    for c in &containers {
        let requests = string_map(c, "resources.requests");
        let limits = string_map(c, "resources.limits");
        if !requests.is_empty() || !limits.is_empty() {
            any = true;
        }
        for r in ["cpu", "memory"] {
            let limit = limits.get(r).and_then(|q| Quantity::parse(q));
            let request = requests.get(r).and_then(|q| Quantity::parse(q)).or(limit);
            match (request, limit) {
                (Some(req), Some(lim)) if req == lim => {}
                _ => guaranteed = false,
            }
        }
    }
    if !any {
        "BestEffort".to_string()
    } else if guaranteed {
        "Guaranteed".to_string()
    } else {
        "Burstable".to_string()
    }
}

/// A `Containers:` (or `Init Containers:`) section: each container, with its status
/// when `statuses` has one.
fn describe_containers(
    w: &mut Writer,
    label: &str,
    containers: &[Value],
    statuses: Option<&[Value]>,
    space: &str,
) {
    let none = if containers.is_empty() { " <none>" } else { "" };
    w.w(0, &format!("{space}{label}:{none}\n"));
    let name_indent = if space.is_empty() { "" } else { " " };
    for c in containers {
        let name = s(c, "name");
        let status = statuses.and_then(|st| st.iter().find(|x| s(x, "name") == name));
        w.w(1, &format!("{name_indent}{name}:\n"));
        if let Some(st) = status {
            w.w(2, &format!("Container ID:\t{}\n", s(st, "containerID")));
        }
        w.w(2, &format!("Image:\t{}\n", s(c, "image")));
        if let Some(st) = status {
            w.w(2, &format!("Image ID:\t{}\n", s(st, "imageID")));
        }
        describe_ports(w, c);
        for (field, title) in [("command", "Command"), ("args", "Args")] {
            let items = arr(c, field);
            if !items.is_empty() {
                w.w(2, &format!("{title}:\n"));
                for item in items {
                    for line in scalar(item).split('\n') {
                        w.w(3, &format!("{line}\n"));
                    }
                }
            }
        }
        if let Some(st) = status {
            container_state(w, "State", at(st, "state"));
            if !at(st, "lastState.terminated").is_null() {
                container_state(w, "Last State", at(st, "lastState"));
            }
            let ready = if at(st, "ready").as_bool() == Some(true) {
                "True"
            } else {
                "False"
            };
            w.w(2, &format!("Ready:\t{ready}\n"));
            w.w(2, &format!("Restart Count:\t{}\n", i(st, "restartCount")));
        }
        for (field, title) in [("limits", "Limits"), ("requests", "Requests")] {
            let list = string_map(c, &format!("resources.{field}"));
            if !list.is_empty() {
                w.w(2, &format!("{title}:\n"));
                for (name, q) in list {
                    w.w(3, &format!("{name}:\t{}\n", quantity(&q)));
                }
            }
        }
        for (field, title) in [
            ("livenessProbe", "Liveness"),
            ("readinessProbe", "Readiness"),
            ("startupProbe", "Startup"),
        ] {
            let probe = at(c, field);
            if !probe.is_null() {
                w.w(2, &format!("{title}:\t{}\n", describe_probe(probe)));
            }
        }
        describe_env_from(w, c);
        describe_env(w, c);
        describe_mounts(w, c);
    }
}

/// A container's `Port(s)` and `Host Port(s)` lines.
fn describe_ports(w: &mut Writer, c: &Value) {
    let ports = arr(c, "ports");
    let port_strings = |host: bool| -> String {
        ports
            .iter()
            .map(|p| {
                let number = if host {
                    i(p, "hostPort")
                } else {
                    i(p, "containerPort")
                };
                let proto = match s(p, "protocol") {
                    "" => "TCP",
                    x => x,
                };
                let mut text = format!("{number}/{proto}");
                if !s(p, "name").is_empty() {
                    text.push_str(&format!(" ({})", s(p, "name")));
                }
                text
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (host, singular, plural) in [(false, "Port", "Ports"), (true, "Host Port", "Host Ports")] {
        let text = port_strings(host);
        if text.contains(',') {
            w.w(2, &format!("{plural}:\t{text}\n"));
        } else if text.is_empty() {
            w.w(2, &format!("{singular}:\t<none>\n"));
        } else {
            w.w(2, &format!("{singular}:\t{text}\n"));
        }
    }
}

/// A container's `Environment Variables from` (its `envFrom`), when it has any.
fn describe_env_from(w: &mut Writer, c: &Value) {
    let env_from = arr(c, "envFrom");
    if !env_from.is_empty() {
        w.w(2, "Environment Variables from:\n");
        for e in env_from {
            let (from, r) = if !at(e, "configMapRef").is_null() {
                ("ConfigMap", at(e, "configMapRef"))
            } else {
                ("Secret", at(e, "secretRef"))
            };
            let optional = at(r, "optional").as_bool() == Some(true);
            let prefix = s(e, "prefix");
            if prefix.is_empty() {
                w.w(
                    3,
                    &format!("{}\t{from}\tOptional: {optional}\n", s(r, "name")),
                );
            } else {
                w.w(
                    3,
                    &format!(
                        "{}\t{from} with prefix '{prefix}'\tOptional: {optional}\n",
                        s(r, "name")
                    ),
                );
            }
        }
    }
}

/// A container's `Environment`: values, and where the others come from.
fn describe_env(w: &mut Writer, c: &Value) {
    let env = arr(c, "env");
    if env.is_empty() {
        w.w(2, "Environment:\t<none>\n");
    } else {
        w.w(2, "Environment:\n");
    }
    for e in env {
        let name = s(e, "name");
        let from = at(e, "valueFrom");
        if from.is_null() {
            for (n, line) in s(e, "value").split('\n').enumerate() {
                if n == 0 {
                    w.w(3, &format!("{name}:\t{line}\n"));
                } else {
                    w.w(3, &format!("\t{line}\n"));
                }
            }
        } else if !at(from, "fieldRef").is_null() {
            w.w(
                3,
                &format!(
                    "{name}:\t ({}:{})\n",
                    s(from, "fieldRef.apiVersion"),
                    s(from, "fieldRef.fieldPath")
                ),
            );
        } else if !at(from, "resourceFieldRef").is_null() {
            w.w(
                3,
                &format!("{name}:\t ({})\n", s(from, "resourceFieldRef.resource")),
            );
        } else if !at(from, "secretKeyRef").is_null() {
            let optional = at(from, "secretKeyRef.optional").as_bool() == Some(true);
            w.w(
                3,
                &format!(
                    "{name}:\t<set to the key '{}' in secret '{}'>\tOptional: {optional}\n",
                    s(from, "secretKeyRef.key"),
                    s(from, "secretKeyRef.name")
                ),
            );
        } else if !at(from, "configMapKeyRef").is_null() {
            let optional = at(from, "configMapKeyRef.optional").as_bool() == Some(true);
            w.w(
                3,
                &format!(
                    "{name}:\t<set to the key '{}' of config map '{}'>\tOptional: {optional}\n",
                    s(from, "configMapKeyRef.key"),
                    s(from, "configMapKeyRef.name")
                ),
            );
        }
    }
}

/// A container's `Mounts`, sorted by path.
fn describe_mounts(w: &mut Writer, c: &Value) {
    let mut mounts: Vec<&Value> = arr(c, "volumeMounts").iter().collect();
    if mounts.is_empty() {
        w.w(2, "Mounts:\t<none>\n");
    } else {
        w.w(2, "Mounts:\n");
    }
    mounts.stable_sort_by(|a, b| s(a, "mountPath").cmp(s(b, "mountPath")));
    for m in mounts {
        let mut flags = vec![if at(m, "readOnly").as_bool() == Some(true) {
            "ro".to_string()
        } else {
            "rw".to_string()
        }];
        if !s(m, "subPath").is_empty() {
            flags.push(format!("path={:?}", s(m, "subPath")));
        }
        w.w(
            3,
            &format!(
                "{} from {} ({})\n",
                s(m, "mountPath"),
                s(m, "name"),
                flags.join(",")
            ),
        );
    }
}

fn container_state(w: &mut Writer, title: &str, state: &Value) {
    if !at(state, "running").is_null() {
        w.w(2, &format!("{title}:\tRunning\n"));
        w.w(
            3,
            &format!("Started:\t{}\n", rfc1123z(s(state, "running.startedAt"))),
        );
    } else if !at(state, "waiting").is_null() {
        w.w(2, &format!("{title}:\tWaiting\n"));
        if !s(state, "waiting.reason").is_empty() {
            w.w(3, &format!("Reason:\t{}\n", s(state, "waiting.reason")));
        }
    } else if !at(state, "terminated").is_null() {
        let t = at(state, "terminated");
        w.w(2, &format!("{title}:\tTerminated\n"));
        if !s(t, "reason").is_empty() {
            w.w(3, &format!("Reason:\t{}\n", s(t, "reason")));
        }
        if !s(t, "message").is_empty() {
            w.w(3, &format!("Message:\t{}\n", s(t, "message")));
        }
        w.w(3, &format!("Exit Code:\t{}\n", i(t, "exitCode")));
        if i(t, "signal") > 0 {
            w.w(3, &format!("Signal:\t{}\n", i(t, "signal")));
        }
        w.w(3, &format!("Started:\t{}\n", rfc1123z(s(t, "startedAt"))));
        w.w(3, &format!("Finished:\t{}\n", rfc1123z(s(t, "finishedAt"))));
    } else {
        w.w(2, &format!("{title}:\tWaiting\n"));
    }
}

/// `DescribeProbe`.
fn describe_probe(p: &Value) -> String {
    let num = |f: &str, default: i64| at(p, f).as_i64().unwrap_or(default);
    let attrs = format!(
        "delay={}s timeout={}s period={}s #success={} #failure={}",
        num("initialDelaySeconds", 0),
        num("timeoutSeconds", 1),
        num("periodSeconds", 10),
        num("successThreshold", 1),
        num("failureThreshold", 3)
    );
    if !at(p, "exec").is_null() {
        let cmd: Vec<String> = arr(p, "exec.command").iter().map(scalar).collect();
        format!("exec [{}] {attrs}", cmd.join(" "))
    } else if !at(p, "httpGet").is_null() {
        let scheme = match s(p, "httpGet.scheme") {
            "" => "http".to_string(),
            x => x.to_lowercase(),
        };
        let port = scalar(at(p, "httpGet.port"));
        format!(
            "http-get {scheme}://{}:{port}{} {attrs}",
            s(p, "httpGet.host"),
            s(p, "httpGet.path")
        )
    } else if !at(p, "tcpSocket").is_null() {
        format!(
            "tcp-socket {}:{} {attrs}",
            s(p, "tcpSocket.host"),
            scalar(at(p, "tcpSocket.port"))
        )
    } else if !at(p, "grpc").is_null() {
        format!(
            "grpc <pod>:{} {} {attrs}",
            i(p, "grpc.port"),
            s(p, "grpc.service")
        )
    } else {
        format!("unknown {attrs}")
    }
}

/// Volumes that name one source object and one boolean, as upstream prints them:
/// field, type text, the name's title and field, the flag's title and field.
const SOURCE_VOLUMES: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "configMap",
        "ConfigMap (a volume populated by a ConfigMap)",
        "Name",
        "name",
        "Optional",
        "optional",
    ),
    (
        "secret",
        "Secret (a volume populated by a Secret)",
        "SecretName",
        "secretName",
        "Optional",
        "optional",
    ),
    (
        "persistentVolumeClaim",
        "PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
        "ClaimName",
        "claimName",
        "ReadOnly",
        "readOnly",
    ),
];

fn describe_volumes(w: &mut Writer, volumes: &[Value], space: &str) {
    if volumes.is_empty() {
        w.w(0, &format!("{space}Volumes:\t<none>\n"));
        return;
    }
    w.w(0, &format!("{space}Volumes:\n"));
    let name_indent = if space.is_empty() { "" } else { " " };
    for vol in volumes {
        w.w(1, &format!("{name_indent}{}:\n", s(vol, "name")));
        if !at(vol, "emptyDir").is_null() {
            let size = match s(vol, "emptyDir.sizeLimit") {
                "" => "<unset>".to_string(),
                q => quantity(q),
            };
            w.w(
                2,
                &format!(
                    "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t{}\n    SizeLimit:\t{size}\n",
                    s(vol, "emptyDir.medium")
                ),
            );
        } else if !at(vol, "hostPath").is_null() {
            let kind = match s(vol, "hostPath.type") {
                "" => "<none>",
                x => x,
            };
            w.w(
                2,
                &format!(
                    "Type:\tHostPath (bare host directory volume)\n    Path:\t{}\n    HostPathType:\t{kind}\n",
                    s(vol, "hostPath.path")
                ),
            );
        } else if let Some((field, kind, name_title, name, flag_title, flag)) = SOURCE_VOLUMES
            .iter()
            .find(|(field, ..)| !at(vol, field).is_null())
        {
            let source = at(vol, field);
            w.w(
                2,
                &format!(
                    "Type:\t{kind}\n    {name_title}:\t{}\n    {flag_title}:\t{}\n",
                    s(source, name),
                    at(source, flag).as_bool() == Some(true)
                ),
            );
        } else if !at(vol, "projected").is_null() {
            w.w(
                2,
                "Type:\tProjected (a volume that contains injected data from multiple sources)\n",
            );
            for src in arr(vol, "projected.sources") {
                if !at(src, "secret").is_null() {
                    w.w(
                        2,
                        &format!(
                            "SecretName:\t{}\n    Optional:\t{}\n",
                            s(src, "secret.name"),
                            at(src, "secret.optional").as_bool() == Some(true)
                        ),
                    );
                } else if !at(src, "downwardAPI").is_null() {
                    w.w(2, "DownwardAPI:\ttrue\n");
                } else if !at(src, "configMap").is_null() {
                    w.w(
                        2,
                        &format!(
                            "ConfigMapName:\t{}\n    Optional:\t{}\n",
                            s(src, "configMap.name"),
                            at(src, "configMap.optional").as_bool() == Some(true)
                        ),
                    );
                } else if !at(src, "serviceAccountToken").is_null() {
                    w.w(
                        2,
                        &format!(
                            "TokenExpirationSeconds:\t{}\n",
                            i(src, "serviceAccountToken.expirationSeconds")
                        ),
                    );
                }
            }
        } else {
            w.w(1, "<unknown>\n");
        }
    }
}

fn describe_pod_template(w: &mut Writer, template: &Value) {
    w.w(0, "Pod Template:\n");
    if template.is_null() {
        w.w(1, "<unset>");
        return;
    }
    labels_multiline(w, "  Labels", &string_map(template, "metadata.labels"));
    let annotations = string_map(template, "metadata.annotations");
    if !annotations.is_empty() {
        annotations_multiline(w, "  Annotations", &annotations);
    }
    if !s(template, "spec.serviceAccountName").is_empty() {
        w.w(
            1,
            &format!(
                "Service Account:\t{}\n",
                s(template, "spec.serviceAccountName")
            ),
        );
    }
    if !arr(template, "spec.initContainers").is_empty() {
        describe_containers(
            w,
            "Init Containers",
            arr(template, "spec.initContainers"),
            None,
            "  ",
        );
    }
    describe_containers(
        w,
        "Containers",
        arr(template, "spec.containers"),
        None,
        "  ",
    );
    describe_volumes(w, arr(template, "spec.volumes"), "  ");
    if !s(template, "spec.priorityClassName").is_empty() {
        w.w(
            1,
            &format!(
                "Priority Class Name:\t{}\n",
                s(template, "spec.priorityClassName")
            ),
        );
    }
    labels_multiline(
        w,
        "  Node-Selectors",
        &string_map(template, "spec.nodeSelector"),
    );
    tolerations_multiline(w, "  Tolerations", arr(template, "spec.tolerations"));
}

/// `getPodStatusForController`: the phases of the pods `owner_uid` controls.
fn pod_phases(cluster: &Cluster, namespace: &str, owner_uid: &str) -> (u32, u32, u32, u32) {
    let (mut running, mut waiting, mut succeeded, mut failed) = (0, 0, 0, 0);
    for p in cluster.list(Kind::Pod, Some(namespace)) {
        let controlled = p.meta().owner_references.as_ref().is_some_and(|refs| {
            refs.iter()
                .any(|r| r.controller == Some(true) && r.uid == owner_uid)
        });
        if !controlled {
            continue;
        }
        let phase = p
            .as_pod()
            .and_then(|p| p.status.as_ref())
            .and_then(|s| s.phase.clone())
            .unwrap_or_default();
        match phase.as_str() {
            "Running" => running += 1,
            "Pending" => waiting += 1,
            "Succeeded" => succeeded += 1,
            "Failed" => failed += 1,
            _ => {}
        }
    }
    (running, waiting, succeeded, failed)
}

fn describe_conditions_with_reason(w: &mut Writer, v: &Value) {
    let conditions = arr(v, "status.conditions");
    if !conditions.is_empty() {
        w.w(0, "Conditions:\n  Type\tStatus\tReason\n");
        w.w(1, "----\t------\t------\n");
        for c in conditions {
            w.w(
                1,
                &format!(
                    "{} \t{}\t{}\n",
                    s(c, "type"),
                    s(c, "status"),
                    s(c, "reason")
                ),
            );
        }
    }
}

// --- workloads ----------------------------------------------------------------

fn describe_deployment(w: &mut Writer, cluster: &Cluster, v: &Value) {
    header(w, v, true);
    w.w(
        0,
        &format!(
            "CreationTimestamp:\t{}\n",
            rfc1123z(s(v, "metadata.creationTimestamp"))
        ),
    );
    meta_labels(w, v);
    w.w(
        0,
        &format!("Selector:\t{}\n", format_selector(at(v, "spec.selector"))),
    );
    w.w(
        0,
        &format!(
            "Replicas:\t{} desired | {} updated | {} total | {} available | {} unavailable\n",
            at(v, "spec.replicas").as_i64().unwrap_or(1),
            i(v, "status.updatedReplicas"),
            i(v, "status.replicas"),
            i(v, "status.availableReplicas"),
            i(v, "status.unavailableReplicas")
        ),
    );
    w.w(
        0,
        &format!("StrategyType:\t{}\n", s(v, "spec.strategy.type")),
    );
    w.w(
        0,
        &format!("MinReadySeconds:\t{}\n", i(v, "spec.minReadySeconds")),
    );
    let ru = at(v, "spec.strategy.rollingUpdate");
    if !ru.is_null() {
        w.w(
            0,
            &format!(
                "RollingUpdateStrategy:\t{} max unavailable, {} max surge\n",
                scalar(at(ru, "maxUnavailable")),
                scalar(at(ru, "maxSurge"))
            ),
        );
    }
    describe_pod_template(w, at(v, "spec.template"));
    describe_conditions_with_reason(w, v);
    // The deployment's ReplicaSets: the one whose template matches is new, the others
    // (with the same controller) old, as `deploymentutil.GetAllReplicaSets`.
    let uid = s(v, "metadata.uid");
    let template_hash_free = |t: &Value| {
        let mut t = t.clone();
        if let Some(labels) = t
            .get_mut("metadata")
            .and_then(|m| m.get_mut("labels"))
            .and_then(Value::as_object_mut)
        {
            labels.remove("pod-template-hash");
        }
        t
    };
    let want = template_hash_free(at(v, "spec.template"));
    let mut old = Vec::new();
    let mut new = Vec::new();
    for rs in cluster.list(Kind::ReplicaSet, Some(s(v, "metadata.namespace"))) {
        let rv = rs.to_json();
        let owned = arr(&rv, "metadata.ownerReferences")
            .iter()
            .any(|r| at(r, "controller").as_bool() == Some(true) && s(r, "uid") == uid);
        if !owned {
            continue;
        }
        let text = format!(
            "{} ({}/{} replicas created)",
            s(&rv, "metadata.name"),
            i(&rv, "status.replicas"),
            at(&rv, "spec.replicas").as_i64().unwrap_or(1)
        );
        if new.is_empty() && template_hash_free(at(&rv, "spec.template")) == want {
            new.push(text);
        } else {
            old.push(text);
        }
    }
    if !old.is_empty() || !new.is_empty() {
        let join = |l: &[String]| {
            if l.is_empty() {
                "<none>".to_string()
            } else {
                l.join(", ")
            }
        };
        w.w(0, &format!("OldReplicaSets:\t{}\n", join(&old)));
        w.w(0, &format!("NewReplicaSet:\t{}\n", join(&new)));
    }
}

fn describe_replica_set(w: &mut Writer, cluster: &Cluster, v: &Value) {
    header(w, v, true);
    w.w(
        0,
        &format!("Selector:\t{}\n", format_selector(at(v, "spec.selector"))),
    );
    meta_labels(w, v);
    if let Some(c) = controlled_by(v) {
        w.w(0, &format!("Controlled By:\t{c}\n"));
    }
    w.w(
        0,
        &format!(
            "Replicas:\t{} current / {} desired\n",
            i(v, "status.replicas"),
            at(v, "spec.replicas").as_i64().unwrap_or(1)
        ),
    );
    let (r, wt, sc, f) = pod_phases(cluster, s(v, "metadata.namespace"), s(v, "metadata.uid"));
    w.w(
        0,
        &format!("Pods Status:\t{r} Running / {wt} Waiting / {sc} Succeeded / {f} Failed\n"),
    );
    describe_pod_template(w, at(v, "spec.template"));
    describe_conditions_with_reason(w, v);
}

fn describe_job(w: &mut Writer, v: &Value) {
    header(w, v, true);
    w.w(
        0,
        &format!("Selector:\t{}\n", format_selector(at(v, "spec.selector"))),
    );
    meta_labels(w, v);
    if let Some(c) = controlled_by(v) {
        w.w(0, &format!("Controlled By:\t{c}\n"));
    }
    if let Some(p) = at(v, "spec.parallelism").as_i64() {
        w.w(0, &format!("Parallelism:\t{p}\n"));
    }
    match at(v, "spec.completions").as_i64() {
        Some(c) => w.w(0, &format!("Completions:\t{c}\n")),
        None => w.w(0, "Completions:\t<unset>\n"),
    }
    if !s(v, "spec.completionMode").is_empty() {
        w.w(
            0,
            &format!("Completion Mode:\t{}\n", s(v, "spec.completionMode")),
        );
    }
    if let Some(b) = at(v, "spec.suspend").as_bool() {
        w.w(0, &format!("Suspend:\t{b}\n"));
    }
    if let Some(b) = at(v, "spec.backoffLimit").as_i64() {
        w.w(0, &format!("Backoff Limit:\t{b}\n"));
    }
    if let Some(t) = at(v, "spec.ttlSecondsAfterFinished").as_i64() {
        w.w(0, &format!("TTL Seconds After Finished:\t{t}\n"));
    }
    let start = s(v, "status.startTime");
    let end = s(v, "status.completionTime");
    if !start.is_empty() {
        w.w(0, &format!("Start Time:\t{}\n", rfc1123z(start)));
    }
    if !end.is_empty() {
        w.w(0, &format!("Completed At:\t{}\n", rfc1123z(end)));
    }
    if let (Ok(a), Ok(b)) = (
        start.parse::<k8s_openapi::jiff::Timestamp>(),
        end.parse::<k8s_openapi::jiff::Timestamp>(),
    ) {
        let ms = b.as_millisecond() - a.as_millisecond();
        w.w(0, &format!("Duration:\t{}\n", humanize::human_duration(ms)));
    }
    if let Some(d) = at(v, "spec.activeDeadlineSeconds").as_i64() {
        w.w(0, &format!("Active Deadline Seconds:\t{d}s\n"));
    }
    match at(v, "status.ready").as_i64() {
        None => w.w(
            0,
            &format!(
                "Pods Statuses:\t{} Active / {} Succeeded / {} Failed\n",
                i(v, "status.active"),
                i(v, "status.succeeded"),
                i(v, "status.failed")
            ),
        ),
        Some(ready) => w.w(
            0,
            &format!(
                "Pods Statuses:\t{} Active ({ready} Ready) / {} Succeeded / {} Failed\n",
                i(v, "status.active"),
                i(v, "status.succeeded"),
                i(v, "status.failed")
            ),
        ),
    }
    if s(v, "spec.completionMode") == "Indexed" {
        let indexes = match s(v, "status.completedIndexes") {
            "" => "<none>",
            x => x,
        };
        w.w(0, &format!("Completed Indexes:\t{indexes}\n"));
    }
    describe_pod_template(w, at(v, "spec.template"));
}

// --- nodes --------------------------------------------------------------------

fn describe_node(w: &mut Writer, cluster: &Cluster, v: &Value, now: SimTime) {
    let name = s(v, "metadata.name");
    w.w(0, &format!("Name:\t{name}\n"));
    let labels = string_map(v, "metadata.labels");
    let mut roles: Vec<String> = labels
        .iter()
        .filter_map(|(k, val)| {
            k.strip_prefix("node-role.kubernetes.io/")
                .filter(|r| !r.is_empty())
                .map(str::to_string)
                .or_else(|| (k == "kubernetes.io/role" && !val.is_empty()).then(|| val.clone()))
        })
        .collect();
    roles.stable_sort();
    roles.dedup();
    if roles.is_empty() {
        w.w(0, "Roles:\t<none>\n");
    } else {
        w.w(0, &format!("Roles:\t{}\n", roles.join(",")));
    }
    meta_labels(w, v);
    w.w(
        0,
        &format!(
            "CreationTimestamp:\t{}\n",
            rfc1123z(s(v, "metadata.creationTimestamp"))
        ),
    );
    taints_multiline(w, "Taints", arr(v, "spec.taints"));
    w.w(
        0,
        &format!(
            "Unschedulable:\t{}\n",
            at(v, "spec.unschedulable").as_bool().unwrap_or(false)
        ),
    );
    match cluster.get(Kind::Lease, "kube-node-lease", name) {
        Ok(lease) => {
            let l = lease.to_json();
            let or_unset = |f: &str, time: bool| match s(&l, f) {
                "" => "<unset>".to_string(),
                x if time => rfc1123z(x),
                x => x.to_string(),
            };
            w.w(0, "Lease:\n");
            w.w(
                1,
                &format!(
                    "HolderIdentity:\t{}\n",
                    or_unset("spec.holderIdentity", false)
                ),
            );
            w.w(
                1,
                &format!("AcquireTime:\t{}\n", or_unset("spec.acquireTime", true)),
            );
            w.w(
                1,
                &format!("RenewTime:\t{}\n", or_unset("spec.renewTime", true)),
            );
        }
        Err(e) => w.w(0, &format!("Lease:\tFailed to get lease: {}\n", e.message)),
    }
    condition_table(w, v, "LastHeartbeatTime", "lastHeartbeatTime");
    w.w(0, "Addresses:\n");
    for a in arr(v, "status.addresses") {
        w.w(1, &format!("{}:\t{}\n", s(a, "type"), s(a, "address")));
    }
    for (field, title) in [("capacity", "Capacity"), ("allocatable", "Allocatable")] {
        let list = string_map(v, &format!("status.{field}"));
        if !list.is_empty() {
            w.w(0, &format!("{title}:\n"));
            for (r, q) in list {
                w.w(0, &format!("  {r}:\t{}\n", quantity(&q)));
            }
        }
    }
    w.w(0, "System Info:\n");
    for (title, field) in [
        ("Machine ID", "machineID"),
        ("System UUID", "systemUUID"),
        ("Boot ID", "bootID"),
        ("Kernel Version", "kernelVersion"),
        ("OS Image", "osImage"),
        ("Operating System", "operatingSystem"),
        ("Architecture", "architecture"),
        ("Container Runtime Version", "containerRuntimeVersion"),
        ("Kubelet Version", "kubeletVersion"),
    ] {
        w.w(
            0,
            &format!(
                "  {title}:\t{}\n",
                s(v, &format!("status.nodeInfo.{field}"))
            ),
        );
    }
    if !s(v, "spec.podCIDR").is_empty() {
        w.w(0, &format!("PodCIDR:\t{}\n", s(v, "spec.podCIDR")));
    }
    let cidrs: Vec<String> = arr(v, "spec.podCIDRs").iter().map(scalar).collect();
    if !cidrs.is_empty() {
        w.w(0, &format!("PodCIDRs:\t{}\n", cidrs.join(",")));
    }
    if !s(v, "spec.providerID").is_empty() {
        w.w(0, &format!("ProviderID:\t{}\n", s(v, "spec.providerID")));
    }
    describe_node_resource(w, cluster, v, now);
}

/// A pod's effective requests or limits (`resourcehelper.PodRequests`): the sum over
/// app containers, at least the largest init container's, plus the pod overhead.
fn pod_resources(pod: &Value, field: &str) -> BTreeMap<String, Quantity> {
    let mut sum: BTreeMap<String, Quantity> = BTreeMap::new();
    for c in arr(pod, "spec.containers") {
        for (r, q) in string_map(c, &format!("resources.{field}")) {
            if let Some(q) = Quantity::parse(&q) {
                sum.entry(r).or_insert(Quantity::ZERO).add(q);
            }
        }
    }
    for c in arr(pod, "spec.initContainers") {
        for (r, q) in string_map(c, &format!("resources.{field}")) {
            if let Some(q) = Quantity::parse(&q) {
                let e = sum.entry(r).or_insert(Quantity::ZERO);
                if q > *e {
                    *e = q;
                }
            }
        }
    }
    for (r, q) in string_map(pod, "spec.overhead") {
        if let Some(q) = Quantity::parse(&q) {
            sum.entry(r).or_insert(Quantity::ZERO).add(q);
        }
    }
    sum
}

fn describe_node_resource(w: &mut Writer, cluster: &Cluster, node: &Value, now: SimTime) {
    let name = s(node, "metadata.name");
    let pods: Vec<Value> = cluster
        .pods_on_node(name)
        .into_iter()
        .map(|p| p.to_json())
        .filter(|p| !matches!(s(p, "status.phase"), "Succeeded" | "Failed"))
        .collect();
    let mut allocatable = string_map(node, "status.allocatable");
    if allocatable.is_empty() {
        allocatable = string_map(node, "status.capacity");
    }
    let alloc = |r: &str| allocatable.get(r).and_then(|q| Quantity::parse(q));
    let alloc_cpu_milli = alloc("cpu").map(|q| q.milli_value()).unwrap_or(0);
    let alloc_mem = alloc("memory").map(|q| q.value()).unwrap_or(0);
    let pct = |n: i128, d: i128| -> i64 {
        if d == 0 {
            0
        } else {
            (n as f64 / d as f64 * 100.0) as i64
        }
    };
    w.w(
        0,
        &format!("Non-terminated Pods:\t({} in total)\n", pods.len()),
    );
    w.w(
        1,
        "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n",
    );
    w.w(
        1,
        "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n",
    );
    let zero = Quantity::ZERO;
    let mut total_req: BTreeMap<String, Quantity> = BTreeMap::new();
    let mut total_lim: BTreeMap<String, Quantity> = BTreeMap::new();
    for p in &pods {
        let req = pod_resources(p, "requests");
        let lim = pod_resources(p, "limits");
        let get = |m: &BTreeMap<String, Quantity>, r: &str| *m.get(r).unwrap_or(&zero);
        let (cr, cl, mr, ml) = (
            get(&req, "cpu"),
            get(&lim, "cpu"),
            get(&req, "memory"),
            get(&lim, "memory"),
        );
        w.w(
            1,
            &format!(
                "{}\t{}\t\t{cr} ({}%)\t{cl} ({}%)\t{mr} ({}%)\t{ml} ({}%)\t{}\n",
                s(p, "metadata.namespace"),
                s(p, "metadata.name"),
                pct(cr.milli_value(), alloc_cpu_milli),
                pct(cl.milli_value(), alloc_cpu_milli),
                pct(mr.value(), alloc_mem),
                pct(ml.value(), alloc_mem),
                since(now, s(p, "metadata.creationTimestamp"))
            ),
        );
        for (r, q) in req {
            total_req.entry(r).or_insert(Quantity::ZERO).add(q);
        }
        for (r, q) in lim {
            total_lim.entry(r).or_insert(Quantity::ZERO).add(q);
        }
    }
    w.w(
        0,
        "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n",
    );
    w.w(1, "Resource\tRequests\tLimits\n");
    w.w(1, "--------\t--------\t------\n");
    let get = |m: &BTreeMap<String, Quantity>, r: &str| *m.get(r).unwrap_or(&zero);
    for (r, milli, denominator) in [
        ("cpu", true, alloc_cpu_milli),
        ("memory", false, alloc_mem),
        (
            "ephemeral-storage",
            false,
            alloc("ephemeral-storage").map(|q| q.value()).unwrap_or(0),
        ),
    ] {
        let (rq, lm) = (get(&total_req, r), get(&total_lim, r));
        let val = |q: Quantity| if milli { q.milli_value() } else { q.value() };
        w.w(
            1,
            &format!(
                "{r}\t{rq} ({}%)\t{lm} ({}%)\n",
                pct(val(rq), denominator),
                pct(val(lm), denominator)
            ),
        );
    }
    for r in allocatable.keys() {
        let standard = matches!(
            r.as_str(),
            "cpu" | "memory" | "ephemeral-storage" | "pods" | "storage"
        ) || r.starts_with("hugepages-");
        if !standard {
            w.w(
                1,
                &format!("{r}\t{}\t{}\n", get(&total_req, r), get(&total_lim, r)),
            );
        }
    }
}

// --- networking ---------------------------------------------------------------

fn describe_service(w: &mut Writer, cluster: &Cluster, v: &Value) {
    header(w, v, true);
    meta_labels(w, v);
    w.w(
        0,
        &format!(
            "Selector:\t{}\n",
            format_labels(&string_map(v, "spec.selector"))
        ),
    );
    w.w(0, &format!("Type:\t{}\n", s(v, "spec.type")));
    if !s(v, "spec.ipFamilyPolicy").is_empty() {
        w.w(
            0,
            &format!("IP Family Policy:\t{}\n", s(v, "spec.ipFamilyPolicy")),
        );
    }
    let families: Vec<String> = arr(v, "spec.ipFamilies").iter().map(scalar).collect();
    if families.is_empty() {
        w.w(0, "IP Families:\t<none>\n");
    } else {
        w.w(0, &format!("IP Families:\t{}\n", families.join(",")));
    }
    w.w(0, &format!("IP:\t{}\n", s(v, "spec.clusterIP")));
    let ips: Vec<String> = arr(v, "spec.clusterIPs").iter().map(scalar).collect();
    if ips.is_empty() {
        w.w(0, "IPs:\t<none>\n");
    } else {
        w.w(0, &format!("IPs:\t{}\n", ips.join(",")));
    }
    let external: Vec<String> = arr(v, "spec.externalIPs").iter().map(scalar).collect();
    if !external.is_empty() {
        w.w(0, &format!("External IPs:\t{}\n", external.join(",")));
    }
    if !s(v, "spec.loadBalancerIP").is_empty() {
        w.w(
            0,
            &format!(
                "Desired LoadBalancer IP:\t{}\n",
                s(v, "spec.loadBalancerIP")
            ),
        );
    }
    if !s(v, "spec.externalName").is_empty() {
        w.w(
            0,
            &format!("External Name:\t{}\n", s(v, "spec.externalName")),
        );
    }
    let ingress: Vec<String> = arr(v, "status.loadBalancer.ingress")
        .iter()
        .map(|i| {
            if s(i, "ip").is_empty() {
                s(i, "hostname").to_string()
            } else {
                s(i, "ip").to_string()
            }
        })
        .collect();
    if !ingress.is_empty() {
        w.w(
            0,
            &format!("LoadBalancer Ingress:\t{}\n", ingress.join(", ")),
        );
    }
    let slices: Vec<Value> = cluster
        .list(Kind::EndpointSlice, Some(s(v, "metadata.namespace")))
        .iter()
        .map(Object::to_json)
        .filter(|e| {
            string_map(e, "metadata.labels")
                .get("kubernetes.io/service-name")
                .map(String::as_str)
                == Some(s(v, "metadata.name"))
        })
        .collect();
    for p in arr(v, "spec.ports") {
        let name = match s(p, "name") {
            "" => "<unset>",
            x => x,
        };
        let proto = match s(p, "protocol") {
            "" => "TCP",
            x => x,
        };
        w.w(0, &format!("Port:\t{name}\t{}/{proto}\n", i(p, "port")));
        w.w(
            0,
            &format!("TargetPort:\t{}/{proto}\n", scalar(at(p, "targetPort"))),
        );
        if !s(p, "appProtocol").is_empty() {
            w.w(0, &format!("AppProtocol:\t{}\n", s(p, "appProtocol")));
        }
        if i(p, "nodePort") != 0 {
            w.w(
                0,
                &format!("NodePort:\t{name}\t{}/{proto}\n", i(p, "nodePort")),
            );
        }
        w.w(
            0,
            &format!(
                "Endpoints:\t{}\n",
                format_endpoint_slices(&slices, s(p, "name"))
            ),
        );
    }
    w.w(
        0,
        &format!("Session Affinity:\t{}\n", s(v, "spec.sessionAffinity")),
    );
    if !s(v, "spec.externalTrafficPolicy").is_empty() {
        w.w(
            0,
            &format!(
                "External Traffic Policy:\t{}\n",
                s(v, "spec.externalTrafficPolicy")
            ),
        );
    }
    if !s(v, "spec.internalTrafficPolicy").is_empty() {
        w.w(
            0,
            &format!(
                "Internal Traffic Policy:\t{}\n",
                s(v, "spec.internalTrafficPolicy")
            ),
        );
    }
    if i(v, "spec.healthCheckNodePort") != 0 {
        w.w(
            0,
            &format!(
                "HealthCheck NodePort:\t{}\n",
                i(v, "spec.healthCheckNodePort")
            ),
        );
    }
}

/// `formatEndpointSlices` for one service port: ready `ip:port`s, three then
/// `+ N more...`.
fn format_endpoint_slices(slices: &[Value], port_name: &str) -> String {
    if slices.is_empty() {
        return "<none>".to_string();
    }
    let max = 3;
    let mut list: Vec<String> = Vec::new();
    let mut more = false;
    let mut count = 0;
    for slice in slices {
        let ports = arr(slice, "ports");
        let endpoints = arr(slice, "endpoints");
        let ready = |e: &Value| at(e, "conditions.ready").as_bool() != Some(false);
        if ports.is_empty() {
            for e in endpoints {
                if list.len() == max {
                    more = true;
                }
                if !ready(e) {
                    continue;
                }
                if !more {
                    list.push(arr(e, "addresses").first().map(scalar).unwrap_or_default());
                }
                count += 1;
            }
        } else {
            for port in ports {
                if s(port, "name") != port_name {
                    continue;
                }
                for e in endpoints {
                    if list.len() == max {
                        more = true;
                    }
                    if !ready(e) {
                        continue;
                    }
                    if !more {
                        let addr = arr(e, "addresses").first().map(scalar).unwrap_or_default();
                        list.push(format!("{addr}:{}", i(port, "port")));
                    }
                    count += 1;
                }
            }
        }
    }
    let joined = list.join(",");
    if more {
        format!("{joined} + {} more...", count - max)
    } else {
        joined
    }
}

/// `describeIngressV1`: address, class, default backend, then each rule's paths
/// with their Service backends and endpoints.
fn describe_ingress(w: &mut Writer, cluster: &Cluster, v: &Value) {
    w.w(0, &format!("Name:\t{}\n", s(v, "metadata.name")));
    labels_multiline(w, "Labels", &string_map(v, "metadata.labels"));
    let ns = s(v, "metadata.namespace");
    w.w(0, &format!("Namespace:\t{ns}\n"));
    let addresses: Vec<&str> = arr(v, "status.loadBalancer.ingress")
        .iter()
        .map(|i| match s(i, "ip") {
            "" => s(i, "hostname"),
            ip => ip,
        })
        .collect();
    w.w(0, &format!("Address:\t{}\n", addresses.join(",")));
    let class = match s(v, "spec.ingressClassName") {
        "" => "<none>",
        c => c,
    };
    w.w(0, &format!("Ingress Class:\t{class}\n"));
    let default = match at(v, "spec.defaultBackend") {
        Value::Null => "<default>".to_string(),
        b => describe_ingress_backend(cluster, ns, b),
    };
    w.w(0, &format!("Default backend:\t{default}\n"));
    let tls = arr(v, "spec.tls");
    if !tls.is_empty() {
        w.w(0, "TLS:\n");
        for t in tls {
            let hosts: Vec<String> = arr(t, "hosts").iter().map(scalar).collect();
            match s(t, "secretName") {
                "" => w.w(1, &format!("SNI routes {}\n", hosts.join(","))),
                secret => w.w(1, &format!("{secret} terminates {}\n", hosts.join(","))),
            }
        }
    }
    w.w(0, "Rules:\n  Host\tPath\tBackends\n");
    w.w(1, "----\t----\t--------\n");
    let mut count = 0;
    for rule in arr(v, "spec.rules") {
        if at(rule, "http").is_null() {
            continue;
        }
        count += 1;
        let host = match s(rule, "host") {
            "" => "*",
            h => h,
        };
        w.w(1, &format!("{host}\t\n"));
        for p in arr(rule, "http.paths") {
            let backend = describe_ingress_backend(cluster, ns, at(p, "backend"));
            w.w(2, &format!("\t{} \t{backend}\n", s(p, "path")));
        }
    }
    if count == 0 {
        w.w(1, &format!("*\t*\t{default}\n"));
    }
    annotations_multiline(w, "Annotations", &string_map(v, "metadata.annotations"));
}

/// `describeBackendV1`: `svc:port (endpoints)`.
fn describe_ingress_backend(cluster: &Cluster, ns: &str, backend: &Value) -> String {
    let svc = at(backend, "service");
    if svc.is_null() {
        let r = at(backend, "resource");
        return format!(
            "APIGroup: {}, Kind: {}, Name: {}",
            s(r, "apiGroup"),
            s(r, "kind"),
            s(r, "name")
        );
    }
    let name = s(svc, "name");
    let (port_name, port_number) = (s(svc, "port.name"), i(svc, "port.number"));
    let sb = if port_name.is_empty() {
        format!("{name}:{port_number}")
    } else {
        format!("{name}:{port_name}")
    };
    let Ok(service) = cluster.get(Kind::Service, ns, name) else {
        return format!("{sb} (<error: services \"{name}\" not found>)");
    };
    let service = service.to_json();
    let mut sp_name = "";
    for sp in arr(&service, "spec.ports") {
        if (port_number != 0 && port_number == i(sp, "port"))
            || (!port_name.is_empty() && port_name == s(sp, "name"))
        {
            sp_name = s(sp, "name");
        }
    }
    let slices: Vec<Value> = cluster
        .list(Kind::EndpointSlice, Some(ns))
        .iter()
        .map(Object::to_json)
        .filter(|e| {
            string_map(e, "metadata.labels")
                .get("kubernetes.io/service-name")
                .map(String::as_str)
                == Some(name)
        })
        .collect();
    format!("{sb} ({})", format_endpoint_slices(&slices, sp_name))
}

/// `IngressClassDescriber`.
fn describe_ingress_class(w: &mut Writer, v: &Value) {
    w.w(0, &format!("Name:\t{}\n", s(v, "metadata.name")));
    meta_labels(w, v);
    w.w(0, &format!("Controller:\t{}\n", s(v, "spec.controller")));
    let p = at(v, "spec.parameters");
    if !p.is_null() {
        w.w(0, "Parameters:\n");
        if !s(p, "apiGroup").is_empty() {
            w.w(1, &format!("APIGroup:\t{}\n", s(p, "apiGroup")));
        }
        w.w(1, &format!("Kind:\t{}\n", s(p, "kind")));
        w.w(1, &format!("Name:\t{}\n", s(p, "name")));
        if !s(p, "namespace").is_empty() {
            w.w(1, &format!("Namespace:\t{}\n", s(p, "namespace")));
        }
        if !s(p, "scope").is_empty() {
            w.w(1, &format!("Scope:\t{}\n", s(p, "scope")));
        }
    }
}

/// `describeCronJob` with `describeJobTemplate` and `printActiveJobs`.
fn describe_cron_job(w: &mut Writer, v: &Value) {
    header(w, v, true);
    meta_labels(w, v);
    w.w(0, &format!("Schedule:\t{}\n", s(v, "spec.schedule")));
    w.w(
        0,
        &format!("Concurrency Policy:\t{}\n", s(v, "spec.concurrencyPolicy")),
    );
    let suspend = match at(v, "spec.suspend").as_bool() {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    };
    w.w(0, &format!("Suspend:\t{suspend}\n"));
    let zone = at(v, "spec.timeZone").as_str().unwrap_or("<unset>");
    w.w(0, &format!("Time Zone:\t{zone}\n"));
    let number_or_unset = |path: &str, unit: &str| match at(v, path).as_i64() {
        Some(n) => format!("{n}{unit}"),
        None => "<unset>".to_string(),
    };
    w.w(
        0,
        &format!(
            "Successful Job History Limit:\t{}\n",
            number_or_unset("spec.successfulJobsHistoryLimit", "")
        ),
    );
    w.w(
        0,
        &format!(
            "Failed Job History Limit:\t{}\n",
            number_or_unset("spec.failedJobsHistoryLimit", "")
        ),
    );
    w.w(
        0,
        &format!(
            "Starting Deadline Seconds:\t{}\n",
            number_or_unset("spec.startingDeadlineSeconds", "s")
        ),
    );
    let job = at(v, "spec.jobTemplate.spec");
    let selector = at(job, "selector");
    if selector.is_null() {
        w.w(0, "Selector:\t<unset>\n");
    } else {
        w.w(0, &format!("Selector:\t{}\n", format_selector(selector)));
    }
    for (label, field) in [
        ("Parallelism", "parallelism"),
        ("Completions", "completions"),
    ] {
        match at(job, field).as_i64() {
            Some(n) => w.w(0, &format!("{label}:\t{n}\n")),
            None => w.w(0, &format!("{label}:\t<unset>\n")),
        }
    }
    if let Some(d) = at(job, "activeDeadlineSeconds").as_i64() {
        w.w(0, &format!("Active Deadline Seconds:\t{d}s\n"));
    }
    describe_pod_template(w, at(job, "template"));
    let last = s(v, "status.lastScheduleTime");
    if last.is_empty() {
        w.w(0, "Last Schedule Time:\t<unset>\n");
    } else {
        w.w(0, &format!("Last Schedule Time:\t{}\n", rfc1123z(last)));
    }
    let active: Vec<&str> = arr(v, "status.active")
        .iter()
        .map(|r| s(r, "name"))
        .collect();
    if active.is_empty() {
        w.w(0, "Active Jobs:\t<none>\n");
    } else {
        w.w(0, &format!("Active Jobs:\t{}\n", active.join(", ")));
    }
}

/// `describeStatefulSet` with `describeVolumeClaimTemplates`, over the StatefulSet
/// as the apiserver defaults it.
fn describe_stateful_set(w: &mut Writer, cluster: &Cluster, v: &Value) {
    header(w, v, true);
    w.w(
        0,
        &format!(
            "CreationTimestamp:\t{}\n",
            rfc1123z(s(v, "metadata.creationTimestamp"))
        ),
    );
    w.w(
        0,
        &format!("Selector:\t{}\n", format_selector(at(v, "spec.selector"))),
    );
    meta_labels(w, v);
    w.w(
        0,
        &format!(
            "Replicas:\t{} desired | {} total\n",
            i(v, "spec.replicas"),
            i(v, "status.replicas")
        ),
    );
    let strategy = at(v, "spec.updateStrategy");
    w.w(0, &format!("Update Strategy:\t{}\n", s(strategy, "type")));
    let partition = at(strategy, "rollingUpdate.partition");
    if !partition.is_null() {
        w.w(1, &format!("Partition:\t{}\n", scalar(partition)));
        let max_unavailable = at(strategy, "rollingUpdate.maxUnavailable");
        if !max_unavailable.is_null() {
            w.w(
                1,
                &format!("MaxUnavailable:\t{}\n", scalar(max_unavailable)),
            );
        }
    }
    let (r, wt, sc, f) = pod_phases(cluster, s(v, "metadata.namespace"), s(v, "metadata.uid"));
    w.w(
        0,
        &format!("Pods Status:\t{r} Running / {wt} Waiting / {sc} Succeeded / {f} Failed\n"),
    );
    describe_pod_template(w, at(v, "spec.template"));
    let claims = arr(v, "spec.volumeClaimTemplates");
    if claims.is_empty() {
        w.w(0, "Volume Claims:\t<none>\n");
        return;
    }
    w.w(0, "Volume Claims:\n");
    for pvc in claims {
        w.w(1, &format!("Name:\t{}\n", s(pvc, "metadata.name")));
        // `GetPersistentVolumeClaimClass`: the beta annotation wins over the field.
        let class = pvc
            .pointer("/metadata/annotations/volume.beta.kubernetes.io~1storage-class")
            .and_then(Value::as_str)
            .unwrap_or_else(|| s(pvc, "spec.storageClassName"));
        w.w(1, &format!("StorageClass:\t{class}\n"));
        labels_multiline(w, "  Labels", &string_map(pvc, "metadata.labels"));
        labels_multiline(w, "  Annotations", &string_map(pvc, "metadata.annotations"));
        let capacity = s(pvc, "spec.resources.requests.storage");
        if capacity.is_empty() {
            w.w(1, "Capacity:\t<default>\n");
        } else {
            w.w(1, &format!("Capacity:\t{}\n", quantity(capacity)));
        }
        let modes: Vec<&str> = arr(pvc, "spec.accessModes")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        w.w(1, &format!("Access Modes:\t[{}]\n", modes.join(" ")));
    }
}

/// `describePodDisruptionBudgetV1`.
fn describe_pod_disruption_budget(w: &mut Writer, v: &Value) {
    w.w(0, &format!("Name:\t{}\n", s(v, "metadata.name")));
    w.w(0, &format!("Namespace:\t{}\n", s(v, "metadata.namespace")));
    let int_or_string = |path: &str| match at(v, path) {
        Value::Number(n) => Some(n.to_string()),
        Value::String(text) => Some(text.clone()),
        _ => None,
    };
    if let Some(min) = int_or_string("spec.minAvailable") {
        w.w(0, &format!("Min available:\t{min}\n"));
    } else if let Some(max) = int_or_string("spec.maxUnavailable") {
        w.w(0, &format!("Max unavailable:\t{max}\n"));
    }
    let selector = at(v, "spec.selector");
    if selector.is_null() {
        w.w(0, "Selector:\t<unset>\n");
    } else {
        let text = crate::printers::label_selector_text(selector);
        w.w(0, &format!("Selector:\t{text}\n"));
    }
    w.w(0, "Status:\n");
    w.w(
        2,
        &format!(
            "Allowed disruptions:\t{}\n",
            i(v, "status.disruptionsAllowed")
        ),
    );
    w.w(2, &format!("Current:\t{}\n", i(v, "status.currentHealthy")));
    w.w(2, &format!("Desired:\t{}\n", i(v, "status.desiredHealthy")));
    w.w(2, &format!("Total:\t{}\n", i(v, "status.expectedPods")));
}

/// `describeNetworkPolicy` and `describeNetworkPolicySpec`.
fn describe_network_policy(w: &mut Writer, v: &Value) {
    w.w(0, &format!("Name:\t{}\n", s(v, "metadata.name")));
    w.w(0, &format!("Namespace:\t{}\n", s(v, "metadata.namespace")));
    // metav1.Time's String(): Go's time.Time layout.
    let created = s(v, "metadata.creationTimestamp")
        .trim_end_matches('Z')
        .replacen('T', " ", 1);
    w.w(0, &format!("Created on:\t{created} +0000 UTC\n"));
    meta_labels(w, v);
    w.w(0, "Spec:\n");
    w.w(1, "PodSelector: ");
    let selector = crate::printers::label_selector_text(at(v, "spec.podSelector"));
    if selector == "<none>" {
        w.w(
            2,
            "<none> (Allowing the specific traffic to all pods in this namespace)\n",
        );
    } else {
        w.w(2, &format!("{selector}\n"));
    }
    let types: Vec<&str> = arr(v, "spec.policyTypes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for (kind, field, peers) in [
        ("ingress", "spec.ingress", "From"),
        ("egress", "spec.egress", "To"),
    ] {
        let title = if kind == "ingress" {
            "Ingress"
        } else {
            "Egress"
        };
        if types.contains(&title) {
            w.w(1, &format!("Allowing {kind} traffic:\n"));
            describe_network_policy_rules(w, arr(v, field), kind, peers);
        } else {
            w.w(1, &format!("Not affecting {kind} traffic\n"));
        }
    }
    let listed = if types.is_empty() {
        "<none>".to_string()
    } else {
        types.join(", ")
    };
    w.w(1, &format!("Policy Types: {listed}\n"));
}

/// `printNetworkPolicySpecIngressFrom` and `printNetworkPolicySpecEgressTo`.
fn describe_network_policy_rules(w: &mut Writer, rules: &[Value], kind: &str, peers: &str) {
    const INDENT: &str = "    ";
    if rules.is_empty() {
        w.w(
            0,
            &format!("{INDENT}<none> (Selected pods are isolated for {kind} connectivity)\n"),
        );
        return;
    }
    let field = peers.to_ascii_lowercase();
    for (i, rule) in rules.iter().enumerate() {
        let ports = arr(rule, "ports");
        if ports.is_empty() {
            w.w(
                0,
                &format!("{INDENT}To Port: <any> (traffic allowed to all ports)\n"),
            );
        }
        for port in ports {
            let proto = match s(port, "protocol") {
                "" => "TCP",
                p => p,
            };
            // intstr's String() of a nil pointer is `<nil>`.
            let number = scalar(at(port, "port"));
            match at(port, "endPort").as_i64() {
                Some(end) => w.w(
                    0,
                    &format!("{INDENT}To Port Range: {number}-{end}/{proto}\n"),
                ),
                None => w.w(0, &format!("{INDENT}To Port: {number}/{proto}\n")),
            }
        }
        let list = arr(rule, &field);
        if list.is_empty() {
            let why = if peers == "From" {
                "source"
            } else {
                "destination"
            };
            w.w(
                0,
                &format!("{INDENT}{peers}: <any> (traffic not restricted by {why})\n"),
            );
        }
        for peer in list {
            w.w(0, &format!("{INDENT}{peers}:\n"));
            let pods = at(peer, "podSelector");
            let namespaces = at(peer, "namespaceSelector");
            let text = crate::printers::label_selector_text;
            if !namespaces.is_null() {
                w.w(
                    1,
                    &format!("{INDENT}NamespaceSelector: {}\n", text(namespaces)),
                );
            }
            if !pods.is_null() {
                w.w(1, &format!("{INDENT}PodSelector: {}\n", text(pods)));
            }
            if pods.is_null() && namespaces.is_null() && !at(peer, "ipBlock").is_null() {
                let except: Vec<&str> = arr(peer, "ipBlock.except")
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                w.w(1, &format!("{INDENT}IPBlock:\n"));
                w.w(2, &format!("{INDENT}CIDR: {}\n", s(peer, "ipBlock.cidr")));
                w.w(2, &format!("{INDENT}Except: {}\n", except.join(", ")));
            }
        }
        if i + 1 != rules.len() {
            w.w(0, &format!("{INDENT}----------\n"));
        }
    }
}

fn describe_endpoints(w: &mut Writer, v: &Value) {
    header(w, v, true);
    meta_labels(w, v);
    w.w(0, "Subsets:\n");
    for subset in arr(v, "subsets") {
        let ips = |f: &str| {
            let l: Vec<&str> = arr(subset, f).iter().map(|a| s(a, "ip")).collect();
            if l.is_empty() {
                "<none>".to_string()
            } else {
                l.join(",")
            }
        };
        w.w(1, &format!("Addresses:\t{}\n", ips("addresses")));
        w.w(
            1,
            &format!("NotReadyAddresses:\t{}\n", ips("notReadyAddresses")),
        );
        let ports = arr(subset, "ports");
        if !ports.is_empty() {
            w.w(1, "Ports:\n");
            w.w(2, "Name\tPort\tProtocol\n");
            w.w(2, "----\t----\t--------\n");
            for p in ports {
                let name = match s(p, "name") {
                    "" => "<unset>",
                    x => x,
                };
                w.w(
                    2,
                    &format!("{name}\t{}\t{}\n", i(p, "port"), s(p, "protocol")),
                );
            }
        }
        w.w(0, "\n");
    }
}

fn describe_endpoint_slice(w: &mut Writer, v: &Value) {
    header(w, v, true);
    meta_labels(w, v);
    w.w(0, &format!("AddressType:\t{}\n", s(v, "addressType")));
    let ports = arr(v, "ports");
    if ports.is_empty() {
        w.w(0, "Ports: <unset>\n");
    } else {
        w.w(0, "Ports:\n");
        w.w(1, "Name\tPort\tProtocol\n");
        w.w(1, "----\t----\t--------\n");
        for p in ports {
            let name = match s(p, "name") {
                "" => "<unset>",
                x => x,
            };
            let number = at(p, "port")
                .as_i64()
                .map(|n| n.to_string())
                .unwrap_or_else(|| "<unset>".to_string());
            w.w(1, &format!("{name}\t{number}\t{}\n", s(p, "protocol")));
        }
    }
    let endpoints = arr(v, "endpoints");
    if endpoints.is_empty() {
        w.w(0, "Endpoints: <none>\n");
    } else {
        w.w(0, "Endpoints:\n");
        for e in endpoints {
            let addrs: Vec<String> = arr(e, "addresses").iter().map(scalar).collect();
            let addrs = if addrs.is_empty() {
                "<none>".to_string()
            } else {
                addrs.join(", ")
            };
            w.w(1, &format!("- Addresses:\t{addrs}\n"));
            w.w(2, "Conditions:\n");
            let ready = at(e, "conditions.ready")
                .as_bool()
                .map(|b| b.to_string())
                .unwrap_or_else(|| "<unset>".to_string());
            w.w(3, &format!("Ready:\t{ready}\n"));
            let or_unset = |f: &str| match s(e, f) {
                "" => "<unset>".to_string(),
                x => x.to_string(),
            };
            w.w(2, &format!("Hostname:\t{}\n", or_unset("hostname")));
            if !at(e, "targetRef").is_null() {
                w.w(
                    2,
                    &format!(
                        "TargetRef:\t{}/{}\n",
                        s(e, "targetRef.kind"),
                        s(e, "targetRef.name")
                    ),
                );
            }
            w.w(2, &format!("NodeName:\t{}\n", or_unset("nodeName")));
            w.w(2, &format!("Zone:\t{}\n", or_unset("zone")));
        }
    }
}

// --- namespaces and policy ----------------------------------------------------

fn describe_namespace(w: &mut Writer, cluster: &Cluster, v: &Value) {
    let name = s(v, "metadata.name");
    w.w(0, &format!("Name:\t{name}\n"));
    meta_labels(w, v);
    w.w(0, &format!("Status:\t{}\n", s(v, "status.phase")));
    let conditions = arr(v, "status.conditions");
    if !conditions.is_empty() {
        w.w(0, "Conditions:\n");
        w.w(1, "Type\tStatus\tLastTransitionTime\tReason\tMessage\n");
        w.w(1, "----\t------\t------------------\t------\t-------\n");
        for c in conditions {
            w.w(
                1,
                &format!(
                    "{}\t{}\t{}\t{}\t{}\n",
                    s(c, "type"),
                    s(c, "status"),
                    rfc1123z(s(c, "lastTransitionTime")),
                    s(c, "reason"),
                    s(c, "message")
                ),
            );
        }
    }
    w.w(0, "\n");
    let quotas = cluster.list(Kind::ResourceQuota, Some(name));
    if quotas.is_empty() {
        w.w(0, "No resource quota.\n");
    } else {
        w.w(0, "Resource Quotas\n");
        for q in &quotas {
            let q = q.to_json();
            w.w(1, &format!("Name:\t{}\n", s(&q, "metadata.name")));
            w.w(1, "Resource\tUsed\tHard\n");
            w.w(1, "--------\t---\t---\n");
            let used = string_map(&q, "status.used");
            for (r, hard) in string_map(&q, "status.hard") {
                let u = used
                    .get(&r)
                    .map(|x| quantity(x))
                    .unwrap_or_else(|| "0".into());
                w.w(1, &format!("{r}\t{u}\t{}\n", quantity(&hard)));
            }
        }
    }
    w.w(0, "\n");
    let limits = cluster.list(Kind::LimitRange, Some(name));
    if limits.is_empty() {
        w.w(0, "No LimitRange resource.\n");
    } else {
        w.w(
            0,
            "Resource Limits\n Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n",
        );
        w.w(
            0,
            " ----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n",
        );
        for l in &limits {
            limit_range_rows(w, &l.to_json(), " ");
        }
    }
}

fn limit_range_rows(w: &mut Writer, v: &Value, prefix: &str) {
    for item in arr(v, "spec.limits") {
        let fields = [
            "min",
            "max",
            "defaultRequest",
            "default",
            "maxLimitRequestRatio",
        ];
        let maps: Vec<BTreeMap<String, String>> =
            fields.iter().map(|f| string_map(item, f)).collect();
        let mut resources: Vec<&String> = maps.iter().flat_map(|m| m.keys()).collect();
        resources.stable_sort();
        resources.dedup();
        for r in resources {
            let cell = |m: &BTreeMap<String, String>| {
                m.get(r).map(|q| quantity(q)).unwrap_or_else(|| "-".into())
            };
            w.w(
                0,
                &format!(
                    "{prefix}{}\t{r}\t{}\t{}\t{}\t{}\t{}\n",
                    s(item, "type"),
                    cell(&maps[0]),
                    cell(&maps[1]),
                    cell(&maps[2]),
                    cell(&maps[3]),
                    cell(&maps[4])
                ),
            );
        }
    }
}

fn describe_limit_range(w: &mut Writer, v: &Value) {
    header(w, v, true);
    w.w(
        0,
        "Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n",
    );
    w.w(
        0,
        "----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n",
    );
    limit_range_rows(w, v, "");
}

fn describe_quota(w: &mut Writer, v: &Value) {
    header(w, v, true);
    let mut scopes: Vec<String> = arr(v, "spec.scopes").iter().map(scalar).collect();
    scopes.stable_sort();
    if !scopes.is_empty() {
        w.w(0, &format!("Scopes:\t{}\n", scopes.join(", ")));
        for scope in &scopes {
            let help = match scope.as_str() {
                "Terminating" => "Matches all pods that have an active deadline. These pods have a limited lifespan on a node before being actively terminated by the system.",
                "NotTerminating" => "Matches all pods that do not have an active deadline. These pods usually include long running pods whose container command is not expected to terminate.",
                "BestEffort" => "Matches all pods that do not have resource requirements set. These pods have a best effort quality of service.",
                "NotBestEffort" => "Matches all pods that have at least one resource requirement set. These pods have a burstable or guaranteed quality of service.",
                _ => "",
            };
            if !help.is_empty() {
                w.w(0, &format!(" * {help}\n"));
            }
        }
    }
    w.w(0, "Resource\tUsed\tHard\n");
    w.w(0, "--------\t----\t----\n");
    let used = string_map(v, "status.used");
    for (r, hard) in string_map(v, "status.hard") {
        let u = used
            .get(&r)
            .map(|x| quantity(x))
            .unwrap_or_else(|| "0".into());
        w.w(0, &format!("{r}\t{u}\t{}\n", quantity(&hard)));
    }
}

fn describe_binding(w: &mut Writer, v: &Value) {
    w.w(0, &format!("Name:\t{}\n", s(v, "metadata.name")));
    meta_labels(w, v);
    w.w(0, "Role:\n");
    w.w(1, &format!("Kind:\t{}\n", s(v, "roleRef.kind")));
    w.w(1, &format!("Name:\t{}\n", s(v, "roleRef.name")));
    w.w(0, "Subjects:\n");
    w.w(1, "Kind\tName\tNamespace\n");
    w.w(1, "----\t----\t---------\n");
    for subject in arr(v, "subjects") {
        w.w(
            1,
            &format!(
                "{}\t{}\t{}\n",
                s(subject, "kind"),
                s(subject, "name"),
                s(subject, "namespace")
            ),
        );
    }
}

fn describe_config_map(w: &mut Writer, v: &Value) {
    header(w, v, true);
    meta_labels(w, v);
    w.w(0, "\nData\n====\n");
    for (k, val) in string_map(v, "data") {
        w.w(0, &format!("{k}:\n----\n"));
        w.w(0, &format!("{val}\n"));
        w.w(0, "\n");
    }
    w.w(0, "\nBinaryData\n====\n");
    if let Some(m) = at(v, "binaryData").as_object() {
        for (k, val) in m {
            // Stored base64: the decoded length is what kubectl counts.
            let b64 = val.as_str().unwrap_or("");
            let padding = b64.chars().rev().take_while(|c| *c == '=').count();
            let len = b64.len() / 4 * 3 - padding.min(2);
            w.w(0, &format!("{k}: {len} bytes\n"));
        }
    }
    w.w(0, "\n");
}

fn describe_service_account(w: &mut Writer, v: &Value) {
    header(w, v, true);
    meta_labels(w, v);
    let secrets: Vec<&str> = arr(v, "imagePullSecrets")
        .iter()
        .map(|x| s(x, "name"))
        .collect();
    if secrets.is_empty() {
        w.w(0, "Image pull secrets:\t<none>\n");
    } else {
        let mut title = "Image pull secrets:";
        for name in secrets {
            w.w(0, &format!("{title}\t{name}\n"));
            title = "                   ";
        }
    }
}

// --- storage ------------------------------------------------------------------

/// `storageutil.GetAccessModesAsString`: the modes upstream knows, abbreviated, in
/// its fixed order, each once.
fn access_modes(modes: &[Value]) -> String {
    let has = |m: &str| modes.iter().any(|v| v.as_str() == Some(m));
    [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(mode, _)| has(mode))
    .map(|(_, short)| *short)
    .collect::<Vec<_>>()
    .join(",")
}

/// `storageutil.GetPersistentVolumeClaimClass` and `GetPersistentVolumeClass`: the
/// beta annotation first, then `spec.storageClassName`.
fn storage_class_of(v: &Value) -> String {
    match at(v, "metadata.annotations")
        .get("volume.beta.kubernetes.io/storage-class")
        .and_then(Value::as_str)
    {
        Some(class) => class.to_string(),
        None => s(v, "spec.storageClassName").to_string(),
    }
}

/// Go's `%v` of a `[]string` (`[a b]`, `[]` when empty).
fn go_list(items: &[Value]) -> String {
    let words: Vec<String> = items.iter().map(scalar).collect();
    format!("[{}]", words.join(" "))
}

/// The `Status:` line of a claim or volume: `Terminating (lasts AGE)` once deleted.
fn storage_status(w: &mut Writer, v: &Value, now: SimTime) {
    let deleted = s(v, "metadata.deletionTimestamp");
    if deleted.is_empty() {
        w.w(0, &format!("Status:\t{}\n", s(v, "status.phase")));
    } else {
        w.w(
            0,
            &format!("Status:\tTerminating (lasts {})\n", since(now, deleted)),
        );
    }
}

/// `describePersistentVolumeClaim` with `printPersistentVolumeClaim` and the pods
/// `getPodsForPVC` finds: those with a volume naming the claim, then pods owning it.
fn describe_persistent_volume_claim(w: &mut Writer, cluster: &Cluster, v: &Value, now: SimTime) {
    header(w, v, true);
    w.w(0, &format!("StorageClass:\t{}\n", storage_class_of(v)));
    storage_status(w, v, now);
    let volume = s(v, "spec.volumeName");
    w.w(0, &format!("Volume:\t{volume}\n"));
    meta_labels(w, v);
    w.w(
        0,
        &format!("Finalizers:\t{}\n", go_list(arr(v, "metadata.finalizers"))),
    );
    let (capacity, modes) = if volume.is_empty() {
        (String::new(), String::new())
    } else {
        let capacity = match at(v, "status.capacity.storage") {
            Value::String(q) => quantity(q),
            // An empty Quantity prints as 0.
            _ => "0".to_string(),
        };
        (capacity, access_modes(arr(v, "status.accessModes")))
    };
    w.w(0, &format!("Capacity:\t{capacity}\n"));
    w.w(0, &format!("Access Modes:\t{modes}\n"));
    if let Some(mode) = at(v, "spec.volumeMode").as_str() {
        w.w(0, &format!("VolumeMode:\t{mode}\n"));
    }
    let source = at(v, "spec.dataSource");
    if source.is_object() {
        w.w(0, "DataSource:\n");
        if let Some(group) = at(source, "apiGroup").as_str() {
            w.w(1, &format!("APIGroup:\t{group}\n"));
        }
        w.w(1, &format!("Kind:\t{}\n", s(source, "kind")));
        w.w(1, &format!("Name:\t{}\n", s(source, "name")));
    }
    let name = s(v, "metadata.name");
    let namespace = s(v, "metadata.namespace");
    let pods: Vec<Value> = cluster
        .list(Kind::Pod, Some(namespace))
        .iter()
        .map(Object::to_json)
        .collect();
    let mut users: Vec<&Value> = Vec::new();
    for pod in &pods {
        // One entry per volume naming the claim, as upstream appends.
        for vol in arr(pod, "spec.volumes") {
            if s(vol, "persistentVolumeClaim.claimName") == name {
                users.push(pod);
            }
        }
    }
    for owner in arr(v, "metadata.ownerReferences") {
        if s(owner, "kind") != "Pod" {
            continue;
        }
        let Some(pod) = pods
            .iter()
            .find(|p| s(p, "metadata.uid") == s(owner, "uid"))
        else {
            continue;
        };
        if !users
            .iter()
            .any(|u| s(u, "metadata.uid") == s(pod, "metadata.uid"))
        {
            users.push(pod);
        }
    }
    users.stable_sort_by(|a, b| s(a, "metadata.name").cmp(s(b, "metadata.name")));
    multiline(
        w,
        "Used By",
        users.iter().map(|p| s(p, "metadata.name").to_string()),
    );
    condition_table(w, v, "LastProbeTime", "lastProbeTime");
}

/// The Conditions table of a node or a claim: type, status, a first time column
/// (`title`, read from `field`), the transition time, reason and message.
fn condition_table(w: &mut Writer, v: &Value, title: &str, field: &str) {
    let conditions = arr(v, "status.conditions");
    if conditions.is_empty() {
        return;
    }
    w.w(0, "Conditions:\n");
    w.w(
        1,
        &format!("Type\tStatus\t{title}\tLastTransitionTime\tReason\tMessage\n"),
    );
    w.w(
        1,
        "----\t------\t-----------------\t------------------\t------\t-------\n",
    );
    for c in conditions {
        w.w(
            1,
            &format!(
                "{} \t{} \t{} \t{} \t{} \t{}\n",
                s(c, "type"),
                s(c, "status"),
                rfc1123z(s(c, field)),
                rfc1123z(s(c, "lastTransitionTime")),
                s(c, "reason"),
                s(c, "message")
            ),
        );
    }
}

/// `describePersistentVolume` with `printVolumeNodeAffinity` and the sources a
/// volume of this cluster can have (hostPath, local; others print `<unknown>` until
/// written).
fn describe_persistent_volume(w: &mut Writer, v: &Value, now: SimTime) {
    w.w(0, &format!("Name:\t{}\n", s(v, "metadata.name")));
    meta_labels(w, v);
    w.w(
        0,
        &format!("Finalizers:\t{}\n", go_list(arr(v, "metadata.finalizers"))),
    );
    w.w(0, &format!("StorageClass:\t{}\n", storage_class_of(v)));
    storage_status(w, v, now);
    let claim = at(v, "spec.claimRef");
    if claim.is_object() {
        w.w(
            0,
            &format!("Claim:\t{}/{}\n", s(claim, "namespace"), s(claim, "name")),
        );
    } else {
        w.w(0, "Claim:\t\n");
    }
    w.w(
        0,
        &format!(
            "Reclaim Policy:\t{}\n",
            s(v, "spec.persistentVolumeReclaimPolicy")
        ),
    );
    w.w(
        0,
        &format!(
            "Access Modes:\t{}\n",
            access_modes(arr(v, "spec.accessModes"))
        ),
    );
    if let Some(mode) = at(v, "spec.volumeMode").as_str() {
        w.w(0, &format!("VolumeMode:\t{mode}\n"));
    }
    let capacity = match at(v, "spec.capacity.storage") {
        Value::String(q) => quantity(q),
        _ => "0".to_string(),
    };
    w.w(0, &format!("Capacity:\t{capacity}\n"));
    let required = at(v, "spec.nodeAffinity.required");
    if required.is_object() {
        w.w(0, "Node Affinity:\t\n");
        let terms = arr(required, "nodeSelectorTerms");
        if terms.is_empty() {
            w.w(1, "Required Terms:\t<none>\n");
        } else {
            w.w(1, "Required Terms:\t\n");
            for (n, term) in terms.iter().enumerate() {
                w.w(2, &format!("Term {n}:\t"));
                let exprs = arr(term, "matchExpressions");
                if exprs.is_empty() {
                    w.w(0, "<none>\n");
                }
                for (k, req) in exprs.iter().enumerate() {
                    if k > 0 {
                        w.w(2, "\t");
                    }
                    let mut expr =
                        format!("{} {}", s(req, "key"), s(req, "operator").to_lowercase());
                    let values: Vec<String> = arr(req, "values").iter().map(scalar).collect();
                    if !values.is_empty() {
                        expr.push_str(&format!(" [{}]", values.join(", ")));
                    }
                    w.w(0, &format!("{expr}\n"));
                }
            }
        }
    } else {
        w.w(0, "Node Affinity:\t<none>\n");
    }
    w.w(0, &format!("Message:\t{}\n", s(v, "status.message")));
    w.w(0, "Source:\n");
    let host_path = at(v, "spec.hostPath");
    let local = at(v, "spec.local");
    if host_path.is_object() {
        let kind = match at(host_path, "type") {
            Value::String(t) => t.clone(),
            _ => "<none>".to_string(),
        };
        w.w(
            2,
            &format!(
                "Type:\tHostPath (bare host directory volume)\n    Path:\t{}\n    HostPathType:\t{kind}\n",
                s(host_path, "path")
            ),
        );
    } else if local.is_object() {
        w.w(
            2,
            &format!(
                "Type:\tLocalVolume (a persistent volume backed by local storage on a node)\n    Path:\t{}\n",
                s(local, "path")
            ),
        );
    } else {
        w.w(1, "<unknown>\n");
    }
}

/// `describeStorageClass` with `printAllowedTopologies`.
/// Upstream `PriorityClassDescriber` (kubectl describe.go `describePriorityClass`).
fn describe_priority_class(w: &mut Writer, v: &Value) {
    w.w(0, &format!("Name:\t{}\n", s(v, "metadata.name")));
    w.w(
        0,
        &format!("Value:\t{}\n", at(v, "value").as_i64().unwrap_or(0)),
    );
    let default = at(v, "globalDefault").as_bool().unwrap_or(false);
    w.w(0, &format!("GlobalDefault:\t{default}\n"));
    w.w(
        0,
        &format!("PreemptionPolicy:\t{}\n", s(v, "preemptionPolicy")),
    );
    w.w(0, &format!("Description:\t{}\n", s(v, "description")));
    w.w(
        0,
        &format!(
            "Annotations:\t{}\n",
            format_labels(&string_map(v, "metadata.annotations"))
        ),
    );
}

fn describe_storage_class(w: &mut Writer, v: &Value) {
    w.w(0, &format!("Name:\t{}\n", s(v, "metadata.name")));
    let annotations = string_map(v, "metadata.annotations");
    let default = [
        "storageclass.kubernetes.io/is-default-class",
        "storageclass.beta.kubernetes.io/is-default-class",
    ]
    .iter()
    .any(|k| annotations.get(*k).map(String::as_str) == Some("true"));
    w.w(
        0,
        &format!("IsDefaultClass:\t{}\n", if default { "Yes" } else { "No" }),
    );
    w.w(
        0,
        &format!("Annotations:\t{}\n", format_labels(&annotations)),
    );
    w.w(0, &format!("Provisioner:\t{}\n", s(v, "provisioner")));
    w.w(
        0,
        &format!(
            "Parameters:\t{}\n",
            format_labels(&string_map(v, "parameters"))
        ),
    );
    let expansion = match at(v, "allowVolumeExpansion").as_bool() {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    };
    w.w(0, &format!("AllowVolumeExpansion:\t{expansion}\n"));
    let options = arr(v, "mountOptions");
    if options.is_empty() {
        w.w(0, "MountOptions:\t<none>\n");
    } else {
        w.w(0, "MountOptions:\n");
        for option in options {
            w.w(1, &format!("{}\n", scalar(option)));
        }
    }
    if let Some(policy) = at(v, "reclaimPolicy").as_str() {
        w.w(0, &format!("ReclaimPolicy:\t{policy}\n"));
    }
    if let Some(mode) = at(v, "volumeBindingMode").as_str() {
        w.w(0, &format!("VolumeBindingMode:\t{mode}\n"));
    }
    if let Some(terms) = at(v, "allowedTopologies").as_array() {
        w.w(0, "AllowedTopologies:\t");
        if terms.is_empty() {
            w.w(0, "<none>\n");
        } else {
            w.w(0, "\n");
            for (n, term) in terms.iter().enumerate() {
                w.w(1, &format!("Term {n}:\t"));
                let reqs = arr(term, "matchLabelExpressions");
                if reqs.is_empty() {
                    w.w(0, "<none>\n");
                }
                for (k, req) in reqs.iter().enumerate() {
                    if k > 0 {
                        w.w(1, "\t");
                    }
                    let mut expr = format!("{} in", s(req, "key"));
                    let values: Vec<String> = arr(req, "values").iter().map(scalar).collect();
                    if !values.is_empty() {
                        expr.push_str(&format!(" [{}]", values.join(", ")));
                    }
                    w.w(0, &format!("{expr}\n"));
                }
            }
        }
    }
}

// --- generic --------------------------------------------------------------------

/// The generic describer (`genericDescriber`): every field but the metadata ones, in
/// sorted order, with `smartLabelFor` titles.
/// `describeHorizontalPodAutoscalerV2`.
fn describe_autoscaler(w: &mut Writer, v: &Value) {
    header(w, v, true);
    meta_labels(w, v);
    w.w(
        0,
        &format!(
            "CreationTimestamp:\t{}\n",
            rfc1123z(s(v, "metadata.creationTimestamp"))
        ),
    );
    let target_kind = s(v, "spec.scaleTargetRef.kind");
    w.w(
        0,
        &format!(
            "Reference:\t{target_kind}/{}\n",
            s(v, "spec.scaleTargetRef.name")
        ),
    );
    w.w(0, "Metrics:\t( current / target )\n");
    let currents = arr(v, "status.currentMetrics");
    let q = |v: &Value| match v {
        Value::String(text) => quantity(text),
        Value::Number(n) => quantity(&n.to_string()),
        _ => "0".to_string(),
    };
    for (n, metric) in arr(v, "spec.metrics").iter().enumerate() {
        // The status entry at the same place, if it is of the same source.
        let current = |source: &str| {
            currents
                .get(n)
                .map(|c| at(c, source))
                .filter(|c| !c.is_null())
        };
        let unknown = || "<unknown>".to_string();
        match s(metric, "type") {
            "External" => {
                let name = s(metric, "external.metric.name");
                let target = at(metric, "external.target");
                if !at(target, "averageValue").is_null() {
                    let now = current("external")
                        .map(|c| at(c, "current.averageValue"))
                        .filter(|c| !c.is_null())
                        .map(q)
                        .unwrap_or_else(unknown);
                    w.w(
                        1,
                        &format!(
                            "{name:?} (target average value):\t{now} / {}\n",
                            q(at(target, "averageValue"))
                        ),
                    );
                } else {
                    let now = current("external")
                        .map(|c| q(at(c, "current.value")))
                        .unwrap_or_else(unknown);
                    w.w(
                        1,
                        &format!(
                            "{name:?} (target value):\t{now} / {}\n",
                            q(at(target, "value"))
                        ),
                    );
                }
            }
            "Pods" => {
                let now = current("pods")
                    .map(|c| q(at(c, "current.averageValue")))
                    .unwrap_or_else(unknown);
                w.w(
                    1,
                    &format!(
                        "{:?} on pods:\t{now} / {}\n",
                        s(metric, "pods.metric.name"),
                        q(at(metric, "pods.target.averageValue"))
                    ),
                );
            }
            "Object" => {
                w.w(
                    1,
                    &format!(
                        "\"{}\" on {}/{} ",
                        s(metric, "object.metric.name"),
                        s(metric, "object.describedObject.kind"),
                        s(metric, "object.describedObject.name")
                    ),
                );
                if s(metric, "object.target.type") == "AverageValue" {
                    let now = current("object")
                        .map(|c| q(at(c, "current.averageValue")))
                        .unwrap_or_else(unknown);
                    w.w(
                        0,
                        &format!(
                            "(target average value):\t{now} / {}\n",
                            q(at(metric, "object.target.averageValue"))
                        ),
                    );
                } else {
                    let now = current("object")
                        .map(|c| q(at(c, "current.value")))
                        .unwrap_or_else(unknown);
                    w.w(
                        0,
                        &format!(
                            "(target value):\t{now} / {}\n",
                            q(at(metric, "object.target.value"))
                        ),
                    );
                }
            }
            source @ ("Resource" | "ContainerResource") => {
                let key = if source == "Resource" {
                    "resource"
                } else {
                    "containerResource"
                };
                let res = at(metric, key);
                if source == "Resource" {
                    w.w(1, &format!("resource {} on pods", s(res, "name")));
                } else {
                    w.w(
                        1,
                        &format!(
                            "resource {} of container \"{}\" on pods",
                            s(res, "name"),
                            s(res, "container")
                        ),
                    );
                }
                let target = at(res, "target");
                if !at(target, "averageValue").is_null() {
                    let now = current(key)
                        .map(|c| q(at(c, "current.averageValue")))
                        .unwrap_or_else(unknown);
                    w.w(
                        0,
                        &format!(":\t{now} / {}\n", q(at(target, "averageValue"))),
                    );
                } else {
                    let now = current(key)
                        .filter(|c| !at(c, "current.averageUtilization").is_null())
                        .map(|c| {
                            format!(
                                "{}% ({})",
                                i(c, "current.averageUtilization"),
                                q(at(c, "current.averageValue"))
                            )
                        })
                        .unwrap_or_else(unknown);
                    let goal = at(target, "averageUtilization")
                        .as_i64()
                        .map(|t| format!("{t}%"))
                        .unwrap_or_else(|| "<auto>".to_string());
                    w.w(
                        1,
                        &format!("(as a percentage of request):\t{now} / {goal}\n"),
                    );
                }
            }
            other => w.w(1, &format!("<unknown metric type {other:?}>\n")),
        }
    }
    let min = at(v, "spec.minReplicas")
        .as_i64()
        .map(|m| m.to_string())
        .unwrap_or_else(|| "<unset>".to_string());
    w.w(0, &format!("Min replicas:\t{min}\n"));
    w.w(0, &format!("Max replicas:\t{}\n", i(v, "spec.maxReplicas")));
    let behavior = at(v, "spec.behavior");
    if behavior.is_object() {
        w.w(0, "Behavior:\n");
        for (title, key) in [("Scale Up", "scaleUp"), ("Scale Down", "scaleDown")] {
            let rules = at(behavior, key);
            if !rules.is_object() {
                continue;
            }
            w.w(1, &format!("{title}:\n"));
            if let Some(window) = at(rules, "stabilizationWindowSeconds").as_i64() {
                w.w(2, &format!("Stabilization Window: {window} seconds\n"));
            }
            let policies = arr(rules, "policies");
            if !policies.is_empty() {
                let select = match s(rules, "selectPolicy") {
                    "" => "Max",
                    other => other,
                };
                w.w(2, &format!("Select Policy: {select}\n"));
                w.w(2, "Policies:\n");
                for p in policies {
                    w.w(
                        3,
                        &format!(
                            "- Type: {}\tValue: {}\tPeriod: {} seconds\n",
                            s(p, "type"),
                            i(p, "value"),
                            i(p, "periodSeconds")
                        ),
                    );
                }
            }
        }
    }
    w.w(
        0,
        &format!(
            "{target_kind} pods:\t{} current / {} desired\n",
            i(v, "status.currentReplicas"),
            i(v, "status.desiredReplicas")
        ),
    );
    let conditions = arr(v, "status.conditions");
    if !conditions.is_empty() {
        w.w(0, "Conditions:\n");
        w.w(1, "Type\tStatus\tReason\tMessage\n");
        w.w(1, "----\t------\t------\t-------\n");
        for c in conditions {
            w.w(
                1,
                &format!(
                    "{}\t{}\t{}\t{}\n",
                    s(c, "type"),
                    s(c, "status"),
                    s(c, "reason"),
                    s(c, "message")
                ),
            );
        }
    }
}

fn describe_generic(w: &mut Writer, v: &Value) {
    w.w(0, &format!("Name:\t{}\n", s(v, "metadata.name")));
    w.w(0, &format!("Namespace:\t{}\n", s(v, "metadata.namespace")));
    meta_labels(w, v);
    let skip = [
        ".metadata.managedFields",
        ".metadata.name",
        ".metadata.namespace",
        ".metadata.labels",
        ".metadata.annotations",
    ];
    if let Some(m) = v.as_object() {
        unstructured(w, 0, m, "", &skip);
    }
}

fn unstructured(
    w: &mut Writer,
    level: usize,
    content: &Map<String, Value>,
    prefix: &str,
    skip: &[&str],
) {
    let mut fields: Vec<&String> = content.keys().collect();
    fields.stable_sort();
    for field in fields {
        let path = format!("{prefix}.{field}");
        if skip.contains(&path.as_str()) {
            continue;
        }
        match &content[field] {
            Value::Object(m) => {
                w.w(level, &format!("{}:\n", smart_label(field)));
                unstructured(w, level + 1, m, &path, skip);
            }
            Value::Array(items) => {
                w.w(level, &format!("{}:\n", smart_label(field)));
                for item in items {
                    match item {
                        Value::Object(m) => unstructured(w, level + 1, m, &path, skip),
                        other => w.w(level + 1, &format!("{}\n", scalar(other))),
                    }
                }
            }
            other => w.w(
                level,
                &format!("{}:\t{}\n", smart_label(field), scalar(other)),
            ),
        }
    }
}

/// `smartLabelFor`: `apiVersion` → `API Version`, `holderIdentity` → `Holder Identity`.
fn smart_label(field: &str) -> String {
    if field.chars().any(|c| !c.is_alphabetic() && c != '-') {
        return field.to_string();
    }
    let parts = camel_split(field);
    let mut merged: Vec<String> = Vec::new();
    let mut n = 0;
    while n < parts.len() {
        let part = &parts[n];
        if n + 1 < parts.len() {
            let next = &parts[n + 1];
            let all_upper = part.chars().all(|c| !c.is_alphabetic() || c.is_uppercase());
            if part.chars().count() >= 2
                && all_upper
                && next.chars().next().is_some_and(char::is_uppercase)
            {
                merged.push(format!("{part}{next}"));
                n += 2;
                continue;
            }
        }
        merged.push(part.clone());
        n += 1;
    }
    merged
        .into_iter()
        .filter(|p| p != "_")
        .map(|p| {
            let upper = p.to_uppercase();
            if ["API", "URL", "UID", "GUID"].contains(&upper.as_str()) {
                upper
            } else if p.to_lowercase() == p {
                let mut c = p.chars();
                c.next()
                    .map(|f| f.to_uppercase().chain(c).collect())
                    .unwrap_or_default()
            } else {
                p
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `github.com/fatih/camelcase.Split`: runs of one character class, with an upper-case
/// run's last letter moved to a following lower-case run (`PDFLoader` → `PDF Loader`).
fn camel_split(s: &str) -> Vec<String> {
    #[derive(PartialEq, Clone, Copy)]
    enum Class {
        Lower,
        Upper,
        Digit,
        Other,
    }
    let class = |c: char| {
        if c.is_lowercase() {
            Class::Lower
        } else if c.is_uppercase() {
            Class::Upper
        } else if c.is_numeric() {
            Class::Digit
        } else {
            Class::Other
        }
    };
    let mut runs: Vec<Vec<char>> = Vec::new();
    let mut last: Option<Class> = None;
    for c in s.chars() {
        let k = class(c);
        if Some(k) == last {
            runs.last_mut().expect("a run exists").push(c);
        } else {
            runs.push(vec![c]);
        }
        last = Some(k);
    }
    for n in 0..runs.len().saturating_sub(1) {
        if class(runs[n][0]) == Class::Upper && class(runs[n + 1][0]) == Class::Lower {
            let moved = runs[n].pop().expect("non-empty run");
            runs[n + 1].insert(0, moved);
        }
    }
    runs.into_iter()
        .filter(|r| !r.is_empty())
        .map(|r| r.into_iter().collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{camel_split, smart_label};

    #[test]
    fn smart_labels_match_upstream() {
        assert_eq!(smart_label("apiVersion"), "API Version");
        assert_eq!(smart_label("holderIdentity"), "Holder Identity");
        assert_eq!(
            smart_label("leaseDurationSeconds"),
            "Lease Duration Seconds"
        );
        assert_eq!(smart_label("kind"), "Kind");
        assert_eq!(smart_label("clusterIP"), "Cluster IP");
        assert_eq!(camel_split("PDFLoader"), vec!["PDF", "Loader"]);
    }

    #[test]
    fn a_stateful_set_is_described_as_upstream_lays_it_out() {
        use crate::cmd::stateful_set::testing;
        let mut s = testing::session(testing::WEB);
        testing::write_status(
            &mut s,
            "web",
            1,
            serde_json::json!({"replicas": 2, "readyReplicas": 2, "observedGeneration": 1}),
        );
        let out = s.run("describe sts web", None, &crate::context::NoFiles);
        assert!(out.success(), "{}", out.combined());
        assert_eq!(
            out.stdout,
            "Name:               web
Namespace:          default
CreationTimestamp:  Thu, 01 Jan 2026 00:00:00 +0000
Selector:           app=nginx
Labels:             app=nginx
Annotations:        <none>
Replicas:           3 desired | 2 total
Update Strategy:    RollingUpdate
  Partition:        1
  MaxUnavailable:   1
Pods Status:        0 Running / 0 Waiting / 0 Succeeded / 0 Failed
Pod Template:
  Labels:  app=nginx
  Containers:
   nginx:
    Image:        registry.k8s.io/nginx-slim:0.8
    Port:         80/TCP (web)
    Host Port:    0/TCP (web)
    Environment:  <none>
    Mounts:
      /usr/share/nginx/html from www (rw)
  Volumes:         <none>
  Node-Selectors:  <none>
  Tolerations:     <none>
Volume Claims:
  Name:          www
  StorageClass:  standard
  Labels:        tier=data
  Annotations:   <none>
  Capacity:      1Gi
  Access Modes:  [ReadWriteOnce ReadOnlyMany]
Events:          <none>
"
        );
        // OnDelete: no partition; no claim templates.
        let mut s = testing::session(
            "apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  selector: {matchLabels: {app: db}}
  updateStrategy: {type: OnDelete}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: redis}]}
",
        );
        let out = s.run("describe statefulset/db", None, &crate::context::NoFiles);
        assert!(out.stdout.contains("Replicas:           1 desired | 0 total\nUpdate Strategy:    OnDelete\nPods Status:"), "{}", out.stdout);
        assert!(
            out.stdout.contains("\nVolume Claims:     <none>\n"),
            "{}",
            out.stdout
        );
    }

    /// A claim made by hand bound to a volume made by hand, used by a pod.
    const STATIC: &str = "apiVersion: v1
kind: PersistentVolume
metadata:
  name: manual
  labels:
    type: local
spec:
  capacity:
    storage: 1Gi
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  persistentVolumeReclaimPolicy: Retain
  hostPath:
    path: /mnt/manual
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: static
spec:
  storageClassName: \"\"
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 512Mi
---
apiVersion: v1
kind: Pod
metadata:
  name: user
spec:
  containers:
  - name: c
    image: busybox:1.36
    command: [sleep, \"3600\"]
  volumes:
  - name: a
    persistentVolumeClaim:
      claimName: static
";

    #[test]
    fn a_bound_claim_and_its_volume_are_described_as_upstream_lays_them_out() {
        use crate::context::NoFiles;
        let mut s = crate::cmd::stateful_set::testing::session(STATIC);
        s.cluster.advance(warehouse_sim::SimDuration::secs(10));
        let out = s.run("describe pvc static", None, &NoFiles);
        assert!(out.success(), "{}", out.combined());
        assert_eq!(
            out.stdout,
            "Name:          static
Namespace:     default
StorageClass:  
Status:        Bound
Volume:        manual
Labels:        <none>
Annotations:   pv.kubernetes.io/bind-completed: yes
               pv.kubernetes.io/bound-by-controller: yes
Finalizers:    [kubernetes.io/pvc-protection]
Capacity:      1Gi
Access Modes:  RWO,ROX
VolumeMode:    Filesystem
Used By:       user
Events:        <none>
"
        );
        let out = s.run("describe pv", None, &NoFiles);
        assert!(out.success(), "{}", out.combined());
        assert_eq!(
            out.stdout,
            "Name:            manual
Labels:          type=local
Annotations:     pv.kubernetes.io/bound-by-controller: yes
Finalizers:      [kubernetes.io/pv-protection]
StorageClass:    
Status:          Bound
Claim:           default/static
Reclaim Policy:  Retain
Access Modes:    RWO,ROX
VolumeMode:      Filesystem
Capacity:        1Gi
Node Affinity:   <none>
Message:         
Source:
    Type:          HostPath (bare host directory volume)
    Path:          /mnt/manual
    HostPathType:  
Events:            <none>
"
        );
        let out = s.run("describe sc", None, &NoFiles);
        assert!(out.success(), "{}", out.combined());
        assert_eq!(out.stdout, "Name:            standard
IsDefaultClass:  Yes
Annotations:     kubectl.kubernetes.io/last-applied-configuration={\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{\"annotations\":{\"storageclass.kubernetes.io/is-default-class\":\"true\"},\"name\":\"standard\"},\"provisioner\":\"rancher.io/local-path\",\"reclaimPolicy\":\"Delete\",\"volumeBindingMode\":\"WaitForFirstConsumer\"}
,storageclass.kubernetes.io/is-default-class=true
Provisioner:           rancher.io/local-path
Parameters:            <none>
AllowVolumeExpansion:  <unset>
MountOptions:          <none>
ReclaimPolicy:         Delete
VolumeBindingMode:     WaitForFirstConsumer
Events:                <none>
");
    }

    fn described(kind: warehouse_sim::Kind, v: serde_json::Value) -> String {
        let cluster = warehouse_sim::Cluster::new(7, warehouse_sim::Topology::default());
        let obj = warehouse_sim::Object::from_json(kind, v).unwrap();
        super::describe(&cluster, &obj, true).unwrap()
    }

    #[test]
    fn every_storage_field_upstream_prints_is_printed() {
        use serde_json::json;
        use warehouse_sim::Kind;
        let pv = described(
            Kind::PersistentVolume,
            json!({
                "apiVersion": "v1", "kind": "PersistentVolume",
                "metadata": {"name": "fast", "finalizers": ["kubernetes.io/pv-protection"],
                    "deletionTimestamp": "2026-01-01T00:00:00Z",
                    "annotations": {"volume.beta.kubernetes.io/storage-class": "old"}},
                "spec": {"storageClassName": "new", "capacity": {"storage": "2048Mi"},
                    "accessModes": ["ReadWriteOncePod", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOnce"],
                    "persistentVolumeReclaimPolicy": "Delete",
                    "local": {"path": "/mnt/disks/ssd1"},
                    "nodeAffinity": {"required": {"nodeSelectorTerms": [
                        {"matchExpressions": [
                            {"key": "kubernetes.io/hostname", "operator": "In", "values": ["a", "b"]},
                            {"key": "disk", "operator": "Exists"}]},
                        {"matchExpressions": []}]}}},
                "status": {"phase": "Failed", "message": "recycle failed"}
            }),
        );
        assert_eq!(
            pv,
            "Name:              fast
Labels:            <none>
Annotations:       volume.beta.kubernetes.io/storage-class: old
Finalizers:        [kubernetes.io/pv-protection]
StorageClass:      old
Status:            Terminating (lasts 0s)
Claim:             
Reclaim Policy:    Delete
Access Modes:      RWO,RWX,RWOP
Capacity:          2Gi
Node Affinity:     
  Required Terms:  
    Term 0:        kubernetes.io/hostname in [a, b]
                   disk exists
    Term 1:        <none>
Message:           recycle failed
Source:
    Type:  LocalVolume (a persistent volume backed by local storage on a node)
    Path:  /mnt/disks/ssd1
Events:    <none>
"
        );
        let sc = described(
            Kind::StorageClass,
            json!({
                "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                "metadata": {"name": "zonal", "annotations": {"storageclass.kubernetes.io/is-default-class": "false", "team": "db"}},
                "provisioner": "example.com/disk",
                "parameters": {"type": "ssd", "fsType": "ext4"},
                "allowVolumeExpansion": true,
                "mountOptions": ["debug", "noatime"],
                "reclaimPolicy": "Retain",
                "volumeBindingMode": "Immediate",
                "allowedTopologies": [
                    {"matchLabelExpressions": [
                        {"key": "topology.kubernetes.io/zone", "values": ["a", "b"]},
                        {"key": "rack", "values": []}]},
                    {"matchLabelExpressions": []}]
            }),
        );
        assert_eq!(
            sc,
            "Name:                  zonal
IsDefaultClass:        No
Annotations:           storageclass.kubernetes.io/is-default-class=false,team=db
Provisioner:           example.com/disk
Parameters:            fsType=ext4,type=ssd
AllowVolumeExpansion:  True
MountOptions:
  debug
  noatime
ReclaimPolicy:      Retain
VolumeBindingMode:  Immediate
AllowedTopologies:  
  Term 0:           topology.kubernetes.io/zone in [a, b]
                    rack in
  Term 1:           <none>
Events:             <none>
"
        );
        let pvc = described(
            Kind::PersistentVolumeClaim,
            json!({
                "apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": "clone", "namespace": "default"},
                "spec": {"storageClassName": "zonal", "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}},
                    "dataSource": {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": "snap"}},
                "status": {"phase": "Pending", "conditions": [{"type": "Resizing", "status": "True",
                    "lastTransitionTime": "2026-01-01T00:00:05Z"}]}
            }),
        );
        assert_eq!(pvc, "Name:          clone
Namespace:     default
StorageClass:  zonal
Status:        Pending
Volume:        
Labels:        <none>
Annotations:   <none>
Finalizers:    []
Capacity:      
Access Modes:  
DataSource:
  APIGroup:  snapshot.storage.k8s.io
  Kind:      VolumeSnapshot
  Name:      snap
Used By:     <none>
Conditions:
  Type       Status  LastProbeTime                     LastTransitionTime                Reason  Message
  ----       ------  -----------------                 ------------------                ------  -------
  Resizing   True    Mon, 01 Jan 0001 00:00:00 +0000   Thu, 01 Jan 2026 00:00:05 +0000           
Events:      <none>
");
    }
}
