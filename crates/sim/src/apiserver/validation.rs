//! Field validation of pod specs (pods and the templates of workloads), Services and
//! ResourceQuotas, as pkg/apis/core/validation does it (`ValidatePodSpec`,
//! `validateContainerCommon`, `validateContainerPorts`, `validateProbe`,
//! `ValidateTolerations`, `ValidateService`, `validateServicePort`,
//! `ValidateResourceQuantityValue`), with its messages. Every numeric field the
//! simulation reads is checked here, so a number that reaches a controller is one
//! upstream would have stored.

use crate::apiserver::{is_dns1123_label, is_label_value, FieldError, DNS1123_LABEL_RULE};
use crate::object::quantity::Quantity;
use crate::sort::CollectSet;
use k8s_openapi::api::core::v1::{Container, PodSpec, Probe, Service, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::{BTreeMap, BTreeSet};

/// apimachinery's `IsNegativeErrorMsg`.
pub(crate) const NEGATIVE: &str = "must be greater than or equal to 0";
/// `validation.InclusiveRangeError(1, 65535)`.
const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";
/// The protocols a port may name (`supportedPortProtocols`, sorted as upstream lists them).
const PROTOCOLS: [&str; 3] = ["SCTP", "TCP", "UDP"];

fn push(errors: &mut Vec<FieldError>, message: String) {
    errors.push(FieldError(message));
}

/// `ValidateNonnegativeField`.
pub(crate) fn non_negative(path: &str, value: i64, errors: &mut Vec<FieldError>) {
    if value < 0 {
        push(
            errors,
            format!("{path}: Invalid value: {value}: {NEGATIVE}"),
        );
    }
}

/// `IsValidPortNum`.
fn valid_port(port: i64) -> bool {
    (1..=65535).contains(&port)
}

/// apimachinery's `IsValidPortName` (an IANA_SVC_NAME): its messages, in its order.
fn port_name_problems(name: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if name.len() > 15 {
        out.push("must be no more than 15 characters");
    }
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        out.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        out.push("must contain at least one letter (a-z)");
    }
    if name.contains("--") {
        out.push("must not contain consecutive hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') {
        out.push("must not begin or end with a hyphen");
    }
    out
}

/// `ValidatePortNumOrName`: a number in range, or a valid port name.
fn port_num_or_name(path: &str, port: &IntOrString, errors: &mut Vec<FieldError>) {
    match port {
        IntOrString::Int(n) => {
            if !valid_port(i64::from(*n)) {
                push(errors, format!("{path}: Invalid value: {n}: {PORT_RANGE}"));
            }
        }
        IntOrString::String(s) => {
            for why in port_name_problems(s) {
                push(errors, format!("{path}: Invalid value: \"{s}\": {why}"));
            }
        }
    }
}

fn protocol(path: &str, protocol: Option<&str>, errors: &mut Vec<FieldError>) {
    match protocol {
        None | Some("") => push(errors, format!("{path}: Required value")),
        Some(p) if !PROTOCOLS.contains(&p) => push(
            errors,
            format!(
                "{path}: Unsupported value: \"{p}\": supported values: {}",
                quoted(&PROTOCOLS)
            ),
        ),
        Some(_) => {}
    }
}

/// Values as `field.NotSupported` lists them: `"A", "B"`.
fn quoted(values: &[&str]) -> String {
    values
        .iter()
        .map(|v| format!("\"{v}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `ValidatePodSpec` for the fields the simulation reads: containers and init
/// containers, `activeDeadlineSeconds`, tolerations. `path` is `spec` for a pod and
/// `spec.template.spec` for a template.
pub(crate) fn pod_spec(spec: &PodSpec, path: &str, errors: &mut Vec<FieldError>) {
    if spec.containers.is_empty() {
        push(errors, format!("{path}.containers: Required value"));
    }
    let mut names = BTreeSet::new();
    for (i, c) in spec.containers.iter().enumerate() {
        let at = format!("{path}.containers[{i}]");
        container_common(c, &at, errors);
        if !names.insert(c.name.as_str()) {
            push(
                errors,
                format!("{at}.name: Duplicate value: \"{}\"", c.name),
            );
        }
        probe(c.liveness_probe.as_ref(), Kind::Liveness, &at, errors);
        probe(c.readiness_probe.as_ref(), Kind::Readiness, &at, errors);
        probe(c.startup_probe.as_ref(), Kind::Startup, &at, errors);
        if c.restart_policy.is_some() {
            push(
                errors,
                format!("{at}.restartPolicy: Forbidden: may not be set for non-init containers"),
            );
        }
    }
    for (i, c) in spec.init_containers.iter().flatten().enumerate() {
        let at = format!("{path}.initContainers[{i}]");
        container_common(c, &at, errors);
        if !c.name.is_empty() && !names.insert(c.name.as_str()) {
            push(
                errors,
                format!("{at}.name: Duplicate value: \"{}\"", c.name),
            );
        }
        // `validateInitContainerRestartPolicy`: only Always (a sidecar).
        if let Some(p) = c.restart_policy.as_deref().filter(|p| *p != "Always") {
            push(
                errors,
                format!(
                    "{at}.restartPolicy: Unsupported value: \"{p}\": supported values: {}",
                    quoted(&["Always"])
                ),
            );
        }
        if c.restart_policy.as_deref() == Some("Always") {
            probe(c.liveness_probe.as_ref(), Kind::Liveness, &at, errors);
            probe(c.readiness_probe.as_ref(), Kind::Readiness, &at, errors);
            probe(c.startup_probe.as_ref(), Kind::Startup, &at, errors);
        } else {
            for (field, set) in [
                ("livenessProbe", c.liveness_probe.is_some()),
                ("readinessProbe", c.readiness_probe.is_some()),
                ("startupProbe", c.startup_probe.is_some()),
            ] {
                if set {
                    push(
                        errors,
                        format!("{at}.{field}: Forbidden: may not be set for init containers without restartPolicy=Always"),
                    );
                }
            }
        }
    }
    ephemeral_containers(spec, path, &names, errors);
    if let Some(v) = spec.active_deadline_seconds {
        if !(1..=i64::from(i32::MAX)).contains(&v) {
            push(
                errors,
                format!(
                    "{path}.activeDeadlineSeconds: Invalid value: {v}: must be between 1 and {}, inclusive",
                    i32::MAX
                ),
            );
        }
    }
    for (i, t) in spec.tolerations.iter().flatten().enumerate() {
        toleration(t, &format!("{path}.tolerations[{i}]"), errors);
    }
}

/// `validateEphemeralContainers`: the common container checks, a name unique among
/// every container of the pod, a `targetContainerName` naming an app or init
/// container, and none of the fields an ephemeral container may not have
/// (`allowedEphemeralContainerFields`: ports, resources, resizePolicy, restartPolicy,
/// probes, lifecycle), nor volume subPaths.
fn ephemeral_containers(
    spec: &PodSpec,
    path: &str,
    others: &BTreeSet<&str>,
    errors: &mut Vec<FieldError>,
) {
    const FORBIDDEN: &str = "Forbidden: cannot be set for an Ephemeral Container";
    let mut names = others.clone();
    for (i, ec) in spec.ephemeral_containers.iter().flatten().enumerate() {
        let at = format!("{path}.ephemeralContainers[{i}]");
        let c = crate::object::ephemeral_as_container(ec);
        container_common(&c, &at, errors);
        if !names.insert(ec.name.as_str()) {
            push(
                errors,
                format!("{at}.name: Duplicate value: \"{}\"", ec.name),
            );
        }
        if let Some(t) = ec.target_container_name.as_deref() {
            if !t.is_empty() && !others.contains(t) {
                push(
                    errors,
                    format!("{at}.targetContainerName: Not found: \"{t}\""),
                );
            }
        }
        let resources = ec.resources.as_ref().is_some_and(|r| {
            r.limits.as_ref().is_some_and(|l| !l.is_empty())
                || r.requests.as_ref().is_some_and(|l| !l.is_empty())
                || r.claims.as_ref().is_some_and(|l| !l.is_empty())
        });
        for (field, set) in [
            ("ports", ec.ports.as_ref().is_some_and(|p| !p.is_empty())),
            ("resources", resources),
            (
                "resizePolicy",
                ec.resize_policy.as_ref().is_some_and(|p| !p.is_empty()),
            ),
            ("restartPolicy", ec.restart_policy.is_some()),
            ("livenessProbe", ec.liveness_probe.is_some()),
            ("readinessProbe", ec.readiness_probe.is_some()),
            ("startupProbe", ec.startup_probe.is_some()),
            ("lifecycle", ec.lifecycle.is_some()),
        ] {
            if set {
                push(errors, format!("{at}.{field}: {FORBIDDEN}"));
            }
        }
        for (j, m) in ec.volume_mounts.iter().flatten().enumerate() {
            for (field, set) in [
                (
                    "subPath",
                    m.sub_path.as_ref().is_some_and(|s| !s.is_empty()),
                ),
                (
                    "subPathExpr",
                    m.sub_path_expr.as_ref().is_some_and(|s| !s.is_empty()),
                ),
            ] {
                if set {
                    push(
                        errors,
                        format!("{at}.volumeMounts[{j}].{field}: {FORBIDDEN}"),
                    );
                }
            }
        }
    }
}

/// `validateContainerCommon`: name, image, ports, resources.
fn container_common(c: &Container, at: &str, errors: &mut Vec<FieldError>) {
    if c.name.is_empty() {
        push(errors, format!("{at}.name: Required value"));
    } else if !is_dns1123_label(&c.name) {
        push(
            errors,
            format!(
                "{at}.name: Invalid value: \"{}\": {DNS1123_LABEL_RULE}",
                c.name
            ),
        );
    }
    if c.image.as_deref().is_none_or(|s| s.trim().is_empty()) {
        push(errors, format!("{at}.image: Required value"));
    }
    container_ports(c, at, errors);
    resources(c, at, errors);
}

/// `validateContainerPorts`.
fn container_ports(c: &Container, at: &str, errors: &mut Vec<FieldError>) {
    let mut names = BTreeSet::new();
    for (i, p) in c.ports.iter().flatten().enumerate() {
        let at = format!("{at}.ports[{i}]");
        if let Some(name) = p.name.as_deref().filter(|n| !n.is_empty()) {
            let problems = port_name_problems(name);
            if !problems.is_empty() {
                for why in problems {
                    push(
                        errors,
                        format!("{at}.name: Invalid value: \"{name}\": {why}"),
                    );
                }
            } else if !names.insert(name) {
                push(errors, format!("{at}.name: Duplicate value: \"{name}\""));
            }
        }
        if p.container_port == 0 {
            push(errors, format!("{at}.containerPort: Required value"));
        } else if !valid_port(i64::from(p.container_port)) {
            push(
                errors,
                format!(
                    "{at}.containerPort: Invalid value: {}: {PORT_RANGE}",
                    p.container_port
                ),
            );
        }
        if let Some(h) = p.host_port.filter(|h| *h != 0) {
            if !valid_port(i64::from(h)) {
                push(
                    errors,
                    format!("{at}.hostPort: Invalid value: {h}: {PORT_RANGE}"),
                );
            }
        }
        protocol(&format!("{at}.protocol"), p.protocol.as_deref(), errors);
    }
}

/// Requests and limits: quantities the simulation can count (`ValidateResourceQuantityValue`
/// refuses negative ones), and no request above its limit.
fn resources(c: &Container, at: &str, errors: &mut Vec<FieldError>) {
    let Some(res) = &c.resources else {
        return;
    };
    for (field, map) in [("requests", &res.requests), ("limits", &res.limits)] {
        for (rname, q) in map.iter().flatten() {
            let ok = match rname.as_str() {
                "cpu" => crate::object::quantity::cpu_millis(&q.0).is_some(),
                _ => crate::object::quantity::bytes(&q.0).is_some(),
            };
            let why = if Quantity::parse(&q.0).is_some_and(|v| v.is_negative()) {
                NEGATIVE
            } else if !ok {
                "must be a valid quantity"
            } else {
                continue;
            };
            push(
                errors,
                format!(
                    "{at}.resources.{field}[{rname}]: Invalid value: \"{}\": {why}",
                    q.0
                ),
            );
        }
    }
    for (rname, q) in res.requests.iter().flatten() {
        let request = Quantity::parse(&q.0);
        let limit = res
            .limits
            .as_ref()
            .and_then(|l| l.get(rname))
            .and_then(|l| Quantity::parse(&l.0));
        if let (Some(request), Some(limit)) = (request, limit) {
            if request > limit {
                push(
                    errors,
                    format!(
                        "{at}.resources.requests: Invalid value: \"{request}\": must be less than or equal to {rname} limit of {limit}"
                    ),
                );
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Liveness,
    Readiness,
    Startup,
}

/// `validateLivenessProbe`, `validateReadinessProbe`, `validateStartupProbe` and the
/// `validateProbe` and `validateHandler` they share.
fn probe(probe: Option<&Probe>, kind: Kind, container: &str, errors: &mut Vec<FieldError>) {
    let Some(p) = probe else {
        return;
    };
    let field = match kind {
        Kind::Liveness => "livenessProbe",
        Kind::Readiness => "readinessProbe",
        Kind::Startup => "startupProbe",
    };
    let at = format!("{container}.{field}");
    // One handler, checked in upstream's order; a second one is refused unchecked.
    let mut handlers = 0;
    let mut handler = |name: &str, set: bool, errors: &mut Vec<FieldError>| -> bool {
        if !set {
            return false;
        }
        handlers += 1;
        if handlers > 1 {
            push(
                errors,
                format!("{at}.{name}: Forbidden: may not specify more than 1 handler type"),
            );
            return false;
        }
        true
    };
    if handler("exec", p.exec.is_some(), errors)
        && p.exec
            .as_ref()
            .is_some_and(|e| e.command.as_ref().is_none_or(|c| c.is_empty()))
    {
        push(errors, format!("{at}.exec.command: Required value"));
    }
    if handler("httpGet", p.http_get.is_some(), errors) {
        if let Some(h) = &p.http_get {
            port_num_or_name(&format!("{at}.httpGet.port"), &h.port, errors);
        }
    }
    if handler("tcpSocket", p.tcp_socket.is_some(), errors) {
        if let Some(t) = &p.tcp_socket {
            port_num_or_name(&format!("{at}.tcpSocket.port"), &t.port, errors);
        }
    }
    if handler("grpc", p.grpc.is_some(), errors) {
        if let Some(g) = &p.grpc {
            port_num_or_name(
                &format!("{at}.grpc.port"),
                &IntOrString::Int(g.port),
                errors,
            );
        }
    }
    if handlers == 0 {
        push(
            errors,
            format!("{at}: Required value: must specify a handler type"),
        );
    }
    for (name, value) in [
        ("initialDelaySeconds", p.initial_delay_seconds),
        ("timeoutSeconds", p.timeout_seconds),
        ("periodSeconds", p.period_seconds),
        ("successThreshold", p.success_threshold),
        ("failureThreshold", p.failure_threshold),
    ] {
        non_negative(
            &format!("{at}.{name}"),
            i64::from(value.unwrap_or(0)),
            errors,
        );
    }
    if let Some(g) = p.termination_grace_period_seconds.filter(|g| *g <= 0) {
        push(
            errors,
            format!(
                "{at}.terminationGracePeriodSeconds: Invalid value: {g}: must be greater than 0"
            ),
        );
    }
    match kind {
        // Defaulted to 1 when unset.
        Kind::Liveness | Kind::Startup => {
            if let Some(s) = p.success_threshold.filter(|s| *s != 1) {
                push(
                    errors,
                    format!("{at}.successThreshold: Invalid value: {s}: must be 1"),
                );
            }
        }
        Kind::Readiness => {
            if let Some(g) = p.termination_grace_period_seconds {
                push(
                    errors,
                    format!("{at}.terminationGracePeriodSeconds: Invalid value: {g}: must not be set for readinessProbes"),
                );
            }
        }
    }
}

/// `ValidateTolerations` (keys are label names, checked with the labels).
fn toleration(t: &Toleration, at: &str, errors: &mut Vec<FieldError>) {
    let key_empty = t.key.as_deref().is_none_or(str::is_empty);
    let operator = t.operator.as_deref().unwrap_or("");
    let effect = t.effect.as_deref().unwrap_or("");
    let value = t.value.as_deref().unwrap_or("");
    if key_empty && operator != "Exists" {
        push(
            errors,
            format!("{at}.operator: Invalid value: \"{operator}\": operator must be Exists when `key` is empty, which means \"match all values and all keys\""),
        );
    }
    if t.toleration_seconds.is_some() && effect != "NoExecute" {
        push(
            errors,
            format!("{at}.effect: Invalid value: \"{effect}\": effect must be 'NoExecute' when `tolerationSeconds` is set"),
        );
    }
    match operator {
        "Equal" | "" => {
            if let Some(why) = is_label_value(value).err() {
                push(
                    errors,
                    format!("{at}.operator: Invalid value: \"{value}\": {why}"),
                );
            }
        }
        "Exists" => {
            if !value.is_empty() {
                push(
                    errors,
                    format!("{at}.operator: Invalid value: \"{value}\": value must be empty when `operator` is 'Exists'"),
                );
            }
        }
        other => push(
            errors,
            format!(
                "{at}.operator: Unsupported value: \"{other}\": supported values: {}",
                quoted(&["Equal", "Exists"])
            ),
        ),
    }
    const EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];
    if !effect.is_empty() && !EFFECTS.contains(&effect) {
        push(
            errors,
            format!(
                "{at}.effect: Unsupported value: \"{effect}\": supported values: {}",
                quoted(&EFFECTS)
            ),
        );
    }
}

/// A Service's ports (`ValidateService`'s port checks and `validateServicePort`),
/// after defaulting (protocol TCP, targetPort the port).
pub(crate) fn service(svc: &Service, errors: &mut Vec<FieldError>) {
    let Some(spec) = svc.spec.as_ref() else {
        return;
    };
    let ports = spec.ports.as_deref().unwrap_or(&[]);
    let headless = spec.cluster_ip.as_deref() == Some("None")
        || spec
            .cluster_ips
            .as_ref()
            .and_then(|ips| ips.first())
            .is_some_and(|ip| ip == "None");
    if ports.is_empty() && !headless && spec.type_.as_deref() != Some("ExternalName") {
        push(errors, "spec.ports: Required value".into());
    }
    let mut names = BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        let at = format!("spec.ports[{i}]");
        match p.name.as_deref().filter(|n| !n.is_empty()) {
            None if ports.len() > 1 => push(errors, format!("{at}.name: Required value")),
            None => {}
            Some(name) => {
                if !is_dns1123_label(name) {
                    push(
                        errors,
                        format!("{at}.name: Invalid value: \"{name}\": {DNS1123_LABEL_RULE}"),
                    );
                }
                if !names.insert(name) {
                    push(errors, format!("{at}.name: Duplicate value: \"{name}\""));
                }
            }
        }
        if !valid_port(i64::from(p.port)) {
            push(
                errors,
                format!("{at}.port: Invalid value: {}: {PORT_RANGE}", p.port),
            );
        }
        protocol(&format!("{at}.protocol"), p.protocol.as_deref(), errors);
        if let Some(target) = &p.target_port {
            port_num_or_name(&format!("{at}.targetPort"), target, errors);
        }
    }
    let mut node_ports = BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        let Some(n) = p.node_port.filter(|n| *n != 0) else {
            continue;
        };
        if !node_ports.insert((p.protocol.as_deref().unwrap_or(""), n)) {
            push(
                errors,
                format!("spec.ports[{i}].nodePort: Duplicate value: {n}"),
            );
        }
    }
    let mut seen = BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        let protocol = p.protocol.as_deref().unwrap_or("");
        if !seen.insert((protocol, p.port)) {
            // The duplicate key as Go prints a core.ServicePort (`%#v`).
            push(
                errors,
                format!(
                    "spec.ports[{i}]: Duplicate value: core.ServicePort{{Name:\"\", Protocol:\"{protocol}\", AppProtocol:(*string)(nil), Port:{}, TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:\"\"}}, NodePort:0}}",
                    p.port
                ),
            );
        }
    }
}

/// Quota resources counted in whole objects (upstream `IsIntegerResourceName` for
/// the standard ones, and every `count/<resource>`).
fn integer_resource(name: &str) -> bool {
    matches!(
        name,
        "pods"
            | "resourcequotas"
            | "services"
            | "replicationcontrollers"
            | "secrets"
            | "configmaps"
            | "persistentvolumeclaims"
            | "services.nodeports"
            | "services.loadbalancers"
    ) || name.starts_with("count/")
}

/// `ValidateResourceQuantityValue` for each of a quota's `spec.hard`: not negative,
/// and whole for resources counted in objects.
pub(crate) fn quota_hard(
    hard: Option<&BTreeMap<String, K8sQuantity>>,
    errors: &mut Vec<FieldError>,
) {
    for (name, q) in hard.into_iter().flatten() {
        let Some(v) = Quantity::parse(&q.0) else {
            continue;
        };
        let at = format!("spec.hard[{name}]");
        if v.is_negative() {
            push(
                errors,
                format!("{at}: Invalid value: \"{}\": {NEGATIVE}", q.0),
            );
        }
        if integer_resource(name) && v.milli_value() % 1000 != 0 {
            push(
                errors,
                format!("{at}: Invalid value: \"{}\": must be an integer", q.0),
            );
        }
    }
}

/// core validation's `ValidateLimitRange`, the comparisons between an item's bounds:
/// per resource, min ≤ defaultRequest ≤ default ≤ max, min ≤ max, and a
/// maxLimitRequestRatio of at least 1.
pub(crate) fn limit_range(
    spec: Option<&k8s_openapi::api::core::v1::LimitRangeSpec>,
    errors: &mut Vec<FieldError>,
) {
    type Bounds<'a> = Option<&'a BTreeMap<String, K8sQuantity>>;
    fn get(bounds: Bounds<'_>, key: &str) -> Option<Quantity> {
        bounds
            .and_then(|b| b.get(key))
            .and_then(|q| Quantity::parse(&q.0))
    }
    for (i, item) in spec.iter().flat_map(|s| s.limits.iter()).enumerate() {
        let keys: BTreeSet<&String> = [
            item.max.as_ref(),
            item.min.as_ref(),
            item.default.as_ref(),
            item.default_request.as_ref(),
            item.max_limit_request_ratio.as_ref(),
        ]
        .into_iter()
        .flatten()
        .flat_map(|m| m.keys())
        .collect_set();
        let at = |field: &str, key: &str| format!("spec.limits[{i}].{field}[{key}]");
        for key in keys {
            let min = get(item.min.as_ref(), key);
            let max = get(item.max.as_ref(), key);
            let default = get(item.default.as_ref(), key);
            let request = get(item.default_request.as_ref(), key);
            let ratio = get(item.max_limit_request_ratio.as_ref(), key);
            let mut check = |field: &str, shown: &Option<Quantity>, bad: bool, why: String| {
                if let (true, Some(v)) = (bad, shown) {
                    push(
                        errors,
                        format!("{}: Invalid value: \"{v}\": {why}", at(field, key)),
                    );
                }
            };
            if let (Some(lo), Some(hi)) = (&min, &max) {
                check(
                    "min",
                    &min,
                    lo > hi,
                    format!("min value {lo} is greater than max value {hi}"),
                );
            }
            if let (Some(lo), Some(r)) = (&min, &request) {
                check(
                    "defaultRequest",
                    &request,
                    lo > r,
                    format!("min value {lo} is greater than default request value {r}"),
                );
            }
            if let (Some(r), Some(hi)) = (&request, &max) {
                check(
                    "defaultRequest",
                    &request,
                    r > hi,
                    format!("default request value {r} is greater than max value {hi}"),
                );
            }
            if let (Some(r), Some(d)) = (&request, &default) {
                check(
                    "defaultRequest",
                    &request,
                    r > d,
                    format!("default request value {r} is greater than default limit value {d}"),
                );
            }
            if let (Some(lo), Some(d)) = (&min, &default) {
                check(
                    "default",
                    &min,
                    lo > d,
                    format!("min value {lo} is greater than default value {d}"),
                );
            }
            if let (Some(d), Some(hi)) = (&default, &max) {
                check(
                    "default",
                    &max,
                    d > hi,
                    format!("default value {d} is greater than max value {hi}"),
                );
            }
            if let Some(r) = &ratio {
                let one = Quantity::parse("1").expect("1 is a quantity");
                check(
                    "maxLimitRequestRatio",
                    &ratio,
                    *r < one,
                    format!("ratio {r} is less than 1"),
                );
            }
        }
    }
}

/// apps/validation `ValidatePositiveIntOrPercent` (and, when `at_most_100`,
/// `IsNotMoreThan100Percent`) for the field at `path`: a non-negative int or a
/// `N%` string. The value as a number (an int, or a percentage's N) when it is one.
pub(crate) fn int_or_percent(
    path: &str,
    value: &IntOrString,
    at_most_100: bool,
    errors: &mut Vec<String>,
) -> Option<i64> {
    match value {
        IntOrString::Int(n) => {
            if *n < 0 {
                errors.push(format!("{path}: Invalid value: {n}: {NEGATIVE}"));
            }
            Some(i64::from(*n))
        }
        IntOrString::String(text) => {
            let digits = text
                .strip_suffix('%')
                .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
            // A number too long for i64 is still a valid percent string upstream;
            // it is over 100.
            match digits.map(|d| d.parse::<i64>().unwrap_or(i64::MAX)) {
                Some(pct) => {
                    if at_most_100 && pct > 100 {
                        errors.push(format!(
                            "{path}: Invalid value: \"{text}\": must not be greater than 100%"
                        ));
                    }
                    Some(pct)
                }
                None => {
                    errors.push(format!(
                        "{path}: Invalid value: \"{text}\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
                    ));
                    None
                }
            }
        }
    }
}

/// pkg/apis/policy/validation `ValidatePodDisruptionBudgetSpec` for the fields the
/// disruption controller and the eviction subresource read.
pub(crate) fn pod_disruption_budget(
    pdb: &crate::controllers::disruption::BudgetSpec,
    errors: &mut Vec<FieldError>,
) {
    let mut found = Vec::new();
    if pdb.min_available.is_some() && pdb.max_unavailable.is_some() {
        // field.Invalid with the internal spec struct, which Go prints with `%#v`:
        // its pointers as addresses (fixed ones here).
        let pointer = |set: bool, at: &str| {
            if set {
                at.to_string()
            } else {
                "nil".to_string()
            }
        };
        found.push(format!(
            "spec: Invalid value: policy.PodDisruptionBudgetSpec{{MinAvailable:(*intstr.IntOrString)({}), Selector:(*v1.LabelSelector)({}), MaxUnavailable:(*intstr.IntOrString)({}), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)({})}}: minAvailable and maxUnavailable cannot be both set",
            pointer(true, "0xc000a10000"),
            pointer(pdb.selector.is_some(), "0xc000a10020"),
            pointer(true, "0xc000a10040"),
            pointer(pdb.unhealthy_pod_eviction_policy.is_some(), "0xc000a10060"),
        ));
    }
    if let Some(v) = &pdb.min_available {
        int_or_percent("spec.minAvailable", v, true, &mut found);
    }
    if let Some(v) = &pdb.max_unavailable {
        int_or_percent("spec.maxUnavailable", v, true, &mut found);
    }
    if let Some(policy) = pdb.unhealthy_pod_eviction_policy.as_deref() {
        if !["AlwaysAllow", "IfHealthyBudget"].contains(&policy) {
            found.push(format!(
                "spec.unhealthyPodEvictionPolicy: Unsupported value: \"{policy}\": supported values: \"AlwaysAllow\", \"IfHealthyBudget\""
            ));
        }
    }
    errors.extend(found.into_iter().map(FieldError));
}

/// apimachinery's `ValidateLabelSelector` (metav1 validation): matchLabels as labels,
/// each matchExpression's operator and values.
pub(crate) fn label_selector(
    selector: Option<&serde_json::Value>,
    path: &str,
    errors: &mut Vec<FieldError>,
) {
    let Some(selector) = selector.filter(|s| !s.is_null()) else {
        return;
    };
    let labels: BTreeMap<String, String> = selector
        .get("matchLabels")
        .and_then(serde_json::Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default();
    crate::apiserver::check_labels(Some(&labels), &format!("{path}.matchLabels"), errors);
    let expressions = selector
        .get("matchExpressions")
        .and_then(serde_json::Value::as_array);
    for (i, e) in expressions.into_iter().flatten().enumerate() {
        let at = format!("{path}.matchExpressions[{i}]");
        let values = e
            .get("values")
            .and_then(serde_json::Value::as_array)
            .map_or(0, Vec::len);
        match e.get("operator").and_then(serde_json::Value::as_str).unwrap_or("") {
            "In" | "NotIn" if values == 0 => push(
                errors,
                format!("{at}.values: Required value: must be specified when `operator` is 'In' or 'NotIn'"),
            ),
            "Exists" | "DoesNotExist" if values > 0 => push(
                errors,
                format!("{at}.values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
            ),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            op => push(
                errors,
                format!("{at}.operator: Invalid value: \"{op}\": not a valid selector operator"),
            ),
        }
        let key = e
            .get("key")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("");
        let mut key_errors = Vec::new();
        crate::apiserver::check_labels(
            Some(&BTreeMap::from([(key.to_string(), String::new())])),
            &format!("{at}.key"),
            &mut key_errors,
        );
        errors.extend(key_errors);
    }
}

/// pkg/apis/networking/validation `ValidateNetworkPolicySpec`: the pod selector,
/// each rule's ports (`ValidateNetworkPolicyPort`) and peers
/// (`ValidateNetworkPolicyPeer`, `ValidateIPBlock` with strict CIDRs), then
/// `policyTypes`; in upstream's order, with its messages.
pub(crate) fn network_policy(o: &crate::object::OtherObject, errors: &mut Vec<FieldError>) {
    use serde_json::Value;
    let null = Value::Null;
    let spec = o.fields.get("spec").unwrap_or(&null);
    let list = |v: &'_ Value, field: &str| -> Vec<Value> {
        v.get(field)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let set = |v: &Value, field: &str| v.get(field).is_some_and(|f| !f.is_null());
    label_selector(spec.get("podSelector"), "spec.podSelector", errors);
    for (field, peers) in [("ingress", "from"), ("egress", "to")] {
        for (i, rule) in list(spec, field).iter().enumerate() {
            let at = format!("spec.{field}[{i}]");
            for (j, port) in list(rule, "ports").iter().enumerate() {
                network_policy_port(port, &format!("{at}.ports[{j}]"), errors);
            }
            for (j, peer) in list(rule, peers).iter().enumerate() {
                let path = format!("{at}.{peers}[{j}]");
                let count = ["podSelector", "namespaceSelector", "ipBlock"]
                    .iter()
                    .filter(|f| set(peer, f))
                    .count();
                label_selector(
                    peer.get("podSelector"),
                    &format!("{path}.podSelector"),
                    errors,
                );
                label_selector(
                    peer.get("namespaceSelector"),
                    &format!("{path}.namespaceSelector"),
                    errors,
                );
                if let Some(block) = peer.get("ipBlock").filter(|b| !b.is_null()) {
                    ip_block(block, &format!("{path}.ipBlock"), errors);
                }
                if count == 0 {
                    push(
                        errors,
                        format!("{path}: Required value: must specify a peer"),
                    );
                } else if count > 1 && set(peer, "ipBlock") {
                    push(
                        errors,
                        format!("{path}: Forbidden: may not specify both ipBlock and another peer"),
                    );
                }
            }
        }
    }
    let types = list(spec, "policyTypes");
    if types.len() > 2 {
        let listed: Vec<String> = types
            .iter()
            .map(|t| format!("\"{}\"", t.as_str().unwrap_or("")))
            .collect();
        push(
            errors,
            format!(
                "spec.policyTypes: Invalid value: []networking.PolicyType{{{}}}: may not specify more than two policyTypes",
                listed.join(", ")
            ),
        );
        return;
    }
    for (i, t) in types.iter().enumerate() {
        let t = t.as_str().unwrap_or("");
        if t != "Ingress" && t != "Egress" {
            push(
                errors,
                format!("spec.policyTypes[{i}]: Unsupported value: \"{t}\": supported values: \"Ingress\", \"Egress\""),
            );
        }
    }
}

/// `ValidateNetworkPolicyPort`.
fn network_policy_port(port: &serde_json::Value, path: &str, errors: &mut Vec<FieldError>) {
    use serde_json::Value;
    if let Some(p) = port.get("protocol").and_then(Value::as_str) {
        if !["TCP", "UDP", "SCTP"].contains(&p) {
            push(
                errors,
                format!("{path}.protocol: Unsupported value: \"{p}\": supported values: \"TCP\", \"UDP\", \"SCTP\""),
            );
        }
    }
    let end = port.get("endPort").and_then(Value::as_i64);
    match port.get("port") {
        Some(Value::Number(n)) => {
            let n = n.as_i64().unwrap_or(0);
            if !valid_port(n) {
                push(
                    errors,
                    format!("{path}.port: Invalid value: {n}: {PORT_RANGE}"),
                );
            }
            if let Some(e) = end {
                if e < n {
                    push(
                        errors,
                        format!("{path}.endPort: Invalid value: {e}: must be greater than or equal to `port`"),
                    );
                }
                if !valid_port(e) {
                    push(
                        errors,
                        format!("{path}.endPort: Invalid value: {e}: {PORT_RANGE}"),
                    );
                }
            }
        }
        Some(Value::String(name)) => {
            if let Some(e) = end {
                push(
                    errors,
                    format!("{path}.endPort: Invalid value: {e}: may not be specified when `port` is non-numeric"),
                );
            }
            for why in port_name_problems(name) {
                push(
                    errors,
                    format!("{path}.port: Invalid value: \"{name}\": {why}"),
                );
            }
        }
        _ => {
            if let Some(e) = end {
                push(
                    errors,
                    format!("{path}.endPort: Invalid value: {e}: may not be specified when `port` is not specified"),
                );
            }
        }
    }
}

/// `ValidateIPBlock`.
fn ip_block(block: &serde_json::Value, path: &str, errors: &mut Vec<FieldError>) {
    use crate::network::policy::{cidr_problem, strict_subset};
    let cidr = block
        .get("cidr")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    if cidr.is_empty() {
        push(errors, format!("{path}.cidr: Required value"));
        return;
    }
    let problem = cidr_problem(cidr);
    if let Some(why) = problem {
        push(
            errors,
            format!("{path}.cidr: Invalid value: \"{cidr}\": {why}"),
        );
        if why.starts_with("must be a valid") {
            return;
        }
    }
    let except = block.get("except").and_then(serde_json::Value::as_array);
    for (i, e) in except.into_iter().flatten().enumerate() {
        let e = e.as_str().unwrap_or("");
        let at = format!("{path}.except[{i}]");
        if let Some(why) = cidr_problem(e) {
            push(errors, format!("{at}: Invalid value: \"{e}\": {why}"));
            if why.starts_with("must be a valid") {
                continue;
            }
        }
        if !strict_subset(cidr, e) {
            push(
                errors,
                format!("{at}: Invalid value: \"{e}\": must be a strict subset of `cidr`"),
            );
        }
    }
}
