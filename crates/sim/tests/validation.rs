//! Numbers upstream's validation refuses (ports out of range, negative timings,
//! probe fields, tolerations, quota values), with its exact messages, and nothing
//! stored.

use warehouse_sim::{decode_manifests, Cluster, Object, Topology};

/// The apiserver's answer to creating `manifest`, and that nothing was stored.
fn refused(manifest: &str) -> String {
    let mut c = Cluster::new(1, Topology::default());
    let obj = decode_manifests(manifest).unwrap().remove(0);
    let (kind, name) = (obj.kind(), obj.name().to_string());
    let revision = c.revision();
    let e = c.create(obj).unwrap_err();
    assert_eq!(c.revision(), revision, "a refused create stored something");
    assert!(c.get(kind, "default", &name).is_err());
    e.message
}

/// Asserts that each manifest is refused with its message, in order.
fn assert_refusals(cases: &[(String, &str)]) {
    for (manifest, message) in cases {
        assert_eq!(refused(manifest), *message);
    }
}

fn accepted(manifest: &str) {
    let mut c = Cluster::new(1, Topology::default());
    for obj in decode_manifests(manifest).unwrap() {
        c.create(obj).unwrap();
    }
}

fn pod(container_extra: &str, spec_extra: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
{spec_extra}  containers:
  - name: nginx
    image: nginx:1.27
{container_extra}"
    )
}

#[test]
fn container_ports_must_be_in_range() {
    assert_refusals(&[
        (
            pod("    ports:\n    - containerPort: 70000\n", ""),
            "Pod \"web\" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
        ),
        (
            pod("    ports:\n    - containerPort: 0\n", ""),
            "Pod \"web\" is invalid: spec.containers[0].ports[0].containerPort: Required value",
        ),
        (
            pod("    ports:\n    - containerPort: -1\n", ""),
            "Pod \"web\" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: -1: must be between 1 and 65535, inclusive",
        ),
        (
            pod("    ports:\n    - containerPort: 80\n      hostPort: 65536\n", ""),
            "Pod \"web\" is invalid: spec.containers[0].ports[0].hostPort: Invalid value: 65536: must be between 1 and 65535, inclusive",
        ),
        (
            pod("    ports:\n    - containerPort: 80\n      name: Web_1\n      protocol: HTTP\n", ""),
            "Pod \"web\" is invalid: [spec.containers[0].ports[0].name: Invalid value: \"Web_1\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-), spec.containers[0].ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\"]",
        ),
        (
            pod("    ports:\n    - containerPort: 80\n      name: http\n    - containerPort: 81\n      name: http\n", ""),
            "Pod \"web\" is invalid: spec.containers[0].ports[1].name: Duplicate value: \"http\"",
        ),
    ]);
    accepted(&pod(
        "    ports:\n    - containerPort: 65535\n      hostPort: 8080\n      name: web-1\n",
        "",
    ));
}

#[test]
fn templates_are_validated_like_pods() {
    let deployment = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 70000
";
    assert_eq!(
        refused(deployment),
        "Deployment.apps \"web\" is invalid: spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"
    );
    let daemonset = "apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  minReadySeconds: -1
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: busybox:1.36
        ports:
        - containerPort: 0
";
    assert_eq!(
        refused(daemonset),
        "DaemonSet.apps \"agent\" is invalid: [spec.template.spec.containers[0].ports[0].containerPort: Required value, spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0]"
    );
}

#[test]
fn pod_timings_and_probes_follow_upstream() {
    assert_eq!(
        refused(&pod("", "  activeDeadlineSeconds: 0\n")),
        "Pod \"web\" is invalid: spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"
    );
    assert_eq!(
        refused(&pod("", "  activeDeadlineSeconds: 2147483648\n")),
        "Pod \"web\" is invalid: spec.activeDeadlineSeconds: Invalid value: 2147483648: must be between 1 and 2147483647, inclusive"
    );
    assert_eq!(
        refused(&pod(
            "    livenessProbe:\n      httpGet: {path: /, port: 70000}\n      periodSeconds: -1\n      successThreshold: 2\n      terminationGracePeriodSeconds: 0\n",
            ""
        )),
        "Pod \"web\" is invalid: [spec.containers[0].livenessProbe.httpGet.port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0, spec.containers[0].livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0, spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1]"
    );
    assert_eq!(
        refused(&pod(
            "    readinessProbe:\n      tcpSocket: {port: 80}\n      terminationGracePeriodSeconds: 30\n",
            ""
        )),
        "Pod \"web\" is invalid: spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 30: must not be set for readinessProbes"
    );
    assert_eq!(
        refused(&pod("    startupProbe:\n      initialDelaySeconds: 5\n", "")),
        "Pod \"web\" is invalid: spec.containers[0].startupProbe: Required value: must specify a handler type"
    );
    // exec counts first; a second handler is refused (and not checked further).
    assert_eq!(
        refused(&pod(
            "    readinessProbe:\n      tcpSocket: {port: Http}\n      exec: {command: ['true']}\n",
            ""
        )),
        "Pod \"web\" is invalid: spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"
    );
    assert_eq!(
        refused(&pod("    readinessProbe:\n      tcpSocket: {port: Http}\n", "")),
        "Pod \"web\" is invalid: spec.containers[0].readinessProbe.tcpSocket.port: Invalid value: \"Http\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"
    );
    accepted(&pod(
        "    livenessProbe:\n      httpGet: {path: /, port: 80}\n      periodSeconds: 2147483647\n      terminationGracePeriodSeconds: 9223372036854775807\n",
        "  activeDeadlineSeconds: 2147483647\n  terminationGracePeriodSeconds: 9223372036854775807\n",
    ));
}

#[test]
fn tolerations_with_seconds_must_be_no_execute() {
    assert_eq!(
        refused(&pod(
            "",
            "  tolerations:\n  - key: dedicated\n    operator: Equal\n    value: gpu\n    effect: NoSchedule\n    tolerationSeconds: 60\n"
        )),
        "Pod \"web\" is invalid: spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"
    );
    assert_eq!(
        refused(&pod("", "  tolerations:\n  - operator: Equal\n    value: x\n")),
        "Pod \"web\" is invalid: spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\""
    );
    accepted(&pod(
        "",
        "  tolerations:\n  - key: node.kubernetes.io/unreachable\n    operator: Exists\n    effect: NoExecute\n    tolerationSeconds: -9223372036854775808\n",
    ));
}

#[test]
fn resource_quantities_must_not_be_negative() {
    assert_eq!(
        refused(&pod("    resources:\n      requests: {cpu: '-1', memory: -5Mi}\n", "")),
        "Pod \"web\" is invalid: [spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater than or equal to 0, spec.containers[0].resources.requests[memory]: Invalid value: \"-5Mi\": must be greater than or equal to 0]"
    );
    assert_eq!(
        refused(
            "apiVersion: v1
kind: ResourceQuota
metadata:
  name: q
spec:
  hard:
    pods: 1500m
    requests.cpu: '-2'
"
        ),
        "ResourceQuota \"q\" is invalid: [spec.hard[pods]: Invalid value: \"1500m\": must be an integer, spec.hard[requests.cpu]: Invalid value: \"-2\": must be greater than or equal to 0]"
    );
}

fn service(ports: &str, extra: &str) -> String {
    format!(
        "apiVersion: v1
kind: Service
metadata:
  name: web
spec:
{extra}  selector: {{app: web}}
  ports:
{ports}"
    )
}

#[test]
fn service_ports_follow_upstream() {
    assert_refusals(&[
        (
            service("  - port: 70000\n", ""),
            "Service \"web\" is invalid: [spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive]",
        ),
        (
            service("  - port: 80\n    targetPort: 70000\n", ""),
            "Service \"web\" is invalid: spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
        ),
        (
            service("  - port: 80\n    targetPort: Http\n", ""),
            "Service \"web\" is invalid: spec.ports[0].targetPort: Invalid value: \"Http\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
        ),
        (
            service("  - port: 80\n    protocol: HTTP\n", ""),
            "Service \"web\" is invalid: spec.ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
        ),
        (
            service("  - port: 80\n  - port: 81\n", ""),
            "Service \"web\" is invalid: [spec.ports[0].name: Required value, spec.ports[1].name: Required value]",
        ),
        (
            service("  - port: 80\n    name: a\n  - port: 80\n    name: b\n", ""),
            "Service \"web\" is invalid: spec.ports[1]: Duplicate value: core.ServicePort{Name:\"\", Protocol:\"TCP\", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}",
        ),
        (
            service("  - port: 80\n    name: a\n    nodePort: 30080\n  - port: 81\n    name: b\n    nodePort: 30080\n", "  type: NodePort\n"),
            "Service \"web\" is invalid: spec.ports[1].nodePort: Duplicate value: 30080",
        ),
        (
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n".to_string(),
            "Service \"web\" is invalid: spec.ports: Required value",
        ),
    ]);
    // A zero targetPort means the port itself, as upstream defaults it.
    let mut c = Cluster::new(1, Topology::default());
    let svc = decode_manifests(&service("  - port: 80\n    targetPort: 0\n", ""))
        .unwrap()
        .remove(0);
    let created = c.create(svc);
    let Ok(Object::Service(created)) = created else {
        panic!("refused: {created:?}");
    };
    let spec = created.spec.unwrap();
    assert_eq!(
        spec.ports.unwrap()[0].target_port,
        Some(k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::Int(80))
    );
    // Headless and ExternalName Services need no ports.
    accepted("apiVersion: v1\nkind: Service\nmetadata:\n  name: db\nspec:\n  clusterIP: None\n  selector: {app: db}\n");
    accepted("apiVersion: v1\nkind: Service\nmetadata:\n  name: ext\nspec:\n  type: ExternalName\n  externalName: example.com\n");
}
