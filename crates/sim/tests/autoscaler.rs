//! HorizontalPodAutoscalers (pkg/controller/podautoscaler): replicas follow the CPU
//! that served requests cost, the 300 s scale-down stabilization, the bounds, and
//! the errors when metrics or requests are missing.

mod common;

use common::create;
use warehouse_sim::{Cluster, Kind, SimDuration, Topology};

const PHP_APACHE: &str = include_str!("../../../tests/k8s-examples/application/php-apache.yaml");

fn autoscaler(min: i32, max: i32) -> String {
    format!(
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: php-apache\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: php-apache\n  minReplicas: {min}\n  maxReplicas: {max}\n  metrics:\n  - type: Resource\n    resource:\n      name: cpu\n      target:\n        type: Utilization\n        averageUtilization: 50\n"
    )
}

fn replicas(c: &Cluster) -> i64 {
    c.get(Kind::Deployment, "default", "php-apache")
        .unwrap()
        .to_json()["spec"]["replicas"]
        .as_i64()
        .unwrap()
}

fn status(c: &Cluster) -> serde_json::Value {
    c.get(Kind::HorizontalPodAutoscaler, "default", "php-apache")
        .unwrap()
        .to_json()["status"]
        .clone()
}

fn condition(c: &Cluster, type_: &str) -> serde_json::Value {
    status(c)["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["type"] == type_)
        .cloned()
        .unwrap()
}

/// php-apache with metrics-server and a load generator pod, the autoscaler applied.
fn loaded(min: i32, max: i32) -> Cluster {
    let mut c = Cluster::new(1, Topology::default());
    c.enable_metrics_server().unwrap();
    create(&mut c, PHP_APACHE);
    create(&mut c, &autoscaler(min, max));
    create(
        &mut c,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: load\nspec:\n  containers:\n  - name: c\n    image: busybox:1.28\n    command: [sleep, \"3600\"]\n",
    );
    c.advance(SimDuration::secs(60));
    c
}

fn traffic(c: &mut Cluster, line: &str) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let cmd = warehouse_sim::network::traffic::parse_traffic(&words).unwrap();
    c.traffic_command(&cmd).unwrap();
}

#[test]
fn replicas_follow_the_cpu_served_requests_cost_and_come_down_after_five_minutes() {
    let mut c = loaded(1, 10);
    assert_eq!(replicas(&c), 1);
    assert_eq!(condition(&c, "ScalingActive")["reason"], "ValidMetricFound");
    assert_eq!(
        status(&c)["currentMetrics"][0]["resource"]["current"]["averageUtilization"],
        0
    );
    // 20 requests a second at 20 ms of CPU each: 400m against a 200m request, 200%
    // of it; four replicas bring each to 50%.
    traffic(
        &mut c,
        "start load --to svc/php-apache --from load --rps 20",
    );
    c.advance(SimDuration::secs(60));
    assert_eq!(replicas(&c), 4);
    c.advance(SimDuration::secs(90));
    assert_eq!(replicas(&c), 4);
    let util = status(&c)["currentMetrics"][0]["resource"]["current"]["averageUtilization"]
        .as_i64()
        .unwrap();
    assert!((45..=55).contains(&util), "{util}");
    // The load stops: the recommendation falls to 1 at once, but the highest of the
    // last 300 s holds the count.
    traffic(&mut c, "stop load");
    c.advance(SimDuration::secs(120));
    assert_eq!(replicas(&c), 4);
    assert_eq!(
        condition(&c, "AbleToScale")["reason"],
        "ScaleDownStabilized"
    );
    c.advance(SimDuration::secs(240));
    assert_eq!(replicas(&c), 1);
    let messages: Vec<String> = c
        .list(Kind::Event, Some("default"))
        .into_iter()
        .filter(|e| e.to_json()["reason"] == "SuccessfulRescale")
        .map(|e| e.to_json()["message"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        messages,
        [
            "New size: 4; reason: cpu resource utilization (percentage of request) above target",
            "New size: 1; reason: All metrics below target"
        ]
    );
}

#[test]
fn max_replicas_limits_the_count_and_says_so() {
    let mut c = loaded(1, 2);
    traffic(
        &mut c,
        "start load --to svc/php-apache --from load --rps 20",
    );
    c.advance(SimDuration::secs(60));
    assert_eq!(replicas(&c), 2);
    let limited = condition(&c, "ScalingLimited");
    assert_eq!(limited["status"], "True");
    assert_eq!(limited["reason"], "TooManyReplicas");
}

#[test]
fn without_metrics_server_the_autoscaler_reports_why_and_keeps_the_count() {
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, PHP_APACHE);
    create(&mut c, &autoscaler(1, 10));
    c.advance(SimDuration::secs(60));
    assert_eq!(replicas(&c), 1);
    let active = condition(&c, "ScalingActive");
    assert_eq!(active["status"], "False");
    assert_eq!(active["reason"], "FailedGetResourceMetric");
    assert_eq!(
        active["message"],
        "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)"
    );
}

#[test]
fn a_pod_without_a_cpu_request_cannot_be_measured() {
    let mut c = Cluster::new(1, Topology::default());
    c.enable_metrics_server().unwrap();
    create(
        &mut c,
        &PHP_APACHE.replace(
            "        resources:\n          limits:\n            cpu: 500m\n          requests:\n            cpu: 200m\n",
            "",
        ),
    );
    create(&mut c, &autoscaler(1, 10));
    c.advance(SimDuration::secs(90));
    let active = condition(&c, "ScalingActive");
    assert_eq!(active["status"], "False");
    let message = active["message"].as_str().unwrap();
    assert!(
        message.starts_with("the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container php-apache of Pod php-apache-"),
        "{message}"
    );
}

#[test]
fn the_apiserver_checks_the_bounds_and_the_target() {
    let mut c = Cluster::new(1, Topology::default());
    let bad = autoscaler(3, 2).replace(
        "    name: php-apache\n  minReplicas",
        "    name: \"\"\n  minReplicas",
    );
    let obj = warehouse_sim::decode_manifests(&bad).unwrap().remove(0);
    let e = c.create(obj).unwrap_err().message;
    assert!(
        e.contains("spec.scaleTargetRef.name: Required value"),
        "{e}"
    );
    assert!(
        e.contains(
            "spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"
        ),
        "{e}"
    );
    let zero = autoscaler(1, 2).replace("averageUtilization: 50", "averageUtilization: 0");
    let obj = warehouse_sim::decode_manifests(&zero).unwrap().remove(0);
    let e = c.create(obj).unwrap_err().message;
    assert!(
        e.ends_with(
            "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0"
        ),
        "{e}"
    );
}

#[test]
fn able_to_scale_leads_the_conditions_and_holds_when_the_metrics_fail() {
    let c = loaded(1, 10);
    let types: Vec<String> = status(&c)["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(types, ["AbleToScale", "ScalingActive", "ScalingLimited"]);
    assert_eq!(condition(&c, "AbleToScale")["reason"], "ReadyForNewScale");

    // Without metrics-server the scale was still read: upstream says so.
    let mut c = Cluster::new(1, Topology::default());
    create(&mut c, PHP_APACHE);
    create(&mut c, &autoscaler(1, 10));
    c.advance(SimDuration::secs(60));
    let able = condition(&c, "AbleToScale");
    assert_eq!(able["status"], "True");
    assert_eq!(able["reason"], "SucceededGetScale");
    assert_eq!(
        able["message"],
        "the HPA controller was able to get the target's current scale"
    );
}

#[test]
fn an_autoscaling_v1_object_keeps_its_status_in_the_v1_shape() {
    let mut c = Cluster::new(1, Topology::default());
    c.enable_metrics_server().unwrap();
    create(&mut c, PHP_APACHE);
    create(
        &mut c,
        "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: php-apache\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: php-apache\n  maxReplicas: 4\n  targetCPUUtilizationPercentage: 60\n",
    );
    c.advance(SimDuration::secs(90));
    let hpa = c
        .get(Kind::HorizontalPodAutoscaler, "default", "php-apache")
        .unwrap()
        .to_json();
    let status = &hpa["status"];
    assert_eq!(status["currentCPUUtilizationPercentage"], 0);
    assert_eq!(status["currentReplicas"], 1);
    assert_eq!(status["desiredReplicas"], 1);
    assert!(status.get("conditions").is_none(), "{status}");
    assert!(status.get("currentMetrics").is_none(), "{status}");
    let annotations = &hpa["metadata"]["annotations"];
    let conditions: serde_json::Value = serde_json::from_str(
        annotations["autoscaling.alpha.kubernetes.io/conditions"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(conditions[0]["type"], "AbleToScale");
    assert_eq!(conditions[1]["reason"], "ValidMetricFound");
    let metrics: serde_json::Value = serde_json::from_str(
        annotations["autoscaling.alpha.kubernetes.io/current-metrics"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(metrics[0]["resource"]["currentAverageUtilization"], 0);
}

#[test]
fn without_behavior_a_scale_up_is_limited_to_twice_the_count_or_four() {
    let mut c = Cluster::new(1, Topology::default());
    c.enable_metrics_server().unwrap();
    create(&mut c, PHP_APACHE);
    create(
        &mut c,
        &autoscaler(2, 10).replace("averageUtilization: 50", "averageUtilization: 10"),
    );
    create(
        &mut c,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: load\nspec:\n  containers:\n  - name: c\n    image: busybox:1.28\n    command: [sleep, \"3600\"]\n",
    );
    c.advance(SimDuration::secs(60));
    assert_eq!(replicas(&c), 2);
    traffic(
        &mut c,
        "start load --to svc/php-apache --from load --rps 100",
    );
    let mut seen = Vec::new();
    for _ in 0..12 {
        c.advance(SimDuration::secs(5));
        let r = replicas(&c);
        if seen.last() != Some(&r) {
            seen.push(r);
        }
        if r != 2 {
            break;
        }
    }
    // Upstream's `calculateScaleUpLimit`: max(2 * 2, 4) = 4, where the default
    // policies of a set behavior would allow 2 + 4 = 6.
    assert_eq!(seen, [2, 4]);
    let limited = condition(&c, "ScalingLimited");
    assert_eq!(limited["status"], "True", "{limited}");
    assert_eq!(limited["reason"], "ScaleUpLimit");
    assert_eq!(
        limited["message"],
        "the desired replica count is increasing faster than the maximum scale rate"
    );
}

#[test]
fn without_behavior_the_highest_recent_recommendation_wins_even_above_the_count() {
    let mut c = loaded(1, 10);
    traffic(
        &mut c,
        "start load --to svc/php-apache --from load --rps 20",
    );
    c.advance(SimDuration::secs(90));
    assert_eq!(replicas(&c), 4);
    traffic(&mut c, "stop load");
    c.advance(SimDuration::secs(30));
    // Someone scales the target down by hand inside the stabilization window:
    // `stabilizeRecommendation` still holds the highest recommendation of the last
    // 300 s, so the autoscaler sets 4 again.
    let mut deployment = c.get(Kind::Deployment, "default", "php-apache").unwrap();
    if let warehouse_sim::Object::Deployment(d) = &mut deployment {
        d.spec.replicas = Some(1);
    }
    c.update(deployment).unwrap();
    assert_eq!(replicas(&c), 1);
    c.advance(SimDuration::secs(20));
    assert_eq!(replicas(&c), 4);
}

/// php-apache under the given `behavior` (YAML indented under `spec:`), target 10%,
/// with a load pod, settled at `min` replicas.
fn with_behavior(min: i32, behavior: &str) -> Cluster {
    let mut c = Cluster::new(1, Topology::default());
    c.enable_metrics_server().unwrap();
    create(&mut c, PHP_APACHE);
    create(
        &mut c,
        &format!(
            "{}  behavior:\n{behavior}",
            autoscaler(min, 20).replace("averageUtilization: 50", "averageUtilization: 10")
        ),
    );
    create(
        &mut c,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: load\nspec:\n  containers:\n  - name: c\n    image: busybox:1.28\n    command: [sleep, \"3600\"]\n",
    );
    c.advance(SimDuration::secs(60));
    c
}

/// The replica counts the target passes through, sampled every 5 s for `secs`.
fn counts_over(c: &mut Cluster, secs: u64) -> Vec<i64> {
    let mut seen = vec![replicas(c)];
    for _ in 0..secs / 5 {
        c.advance(SimDuration::secs(5));
        let r = replicas(c);
        if seen.last() != Some(&r) {
            seen.push(r);
        }
    }
    seen
}

#[test]
fn a_pods_policy_adds_at_most_its_value_per_period() {
    // `calculateScaleUpLimitWithScalingRules`: one policy of 1 pod per 60 s; each
    // period counts from the replicas at its start, so the count climbs by one a
    // minute however high the load asks.
    let mut c = with_behavior(
        1,
        "    scaleUp:\n      policies:\n      - type: Pods\n        value: 1\n        periodSeconds: 60\n",
    );
    assert_eq!(replicas(&c), 1);
    traffic(
        &mut c,
        "start load --to svc/php-apache --from load --rps 100",
    );
    let mut changes = Vec::new();
    for _ in 0..40 {
        let before = replicas(&c);
        c.advance(SimDuration::secs(5));
        if replicas(&c) != before {
            changes.push((c.now().0 / 1000, replicas(&c) - before));
        }
    }
    assert!(changes.len() >= 3, "{changes:?}");
    assert!(changes.iter().all(|(_, added)| *added == 1), "{changes:?}");
    assert!(
        changes.windows(2).all(|w| w[1].0 - w[0].0 >= 60),
        "{changes:?}"
    );
    let limited = condition(&c, "ScalingLimited");
    assert_eq!(limited["status"], "True", "{limited}");
    assert_eq!(limited["reason"], "ScaleUpLimit");
}

#[test]
fn select_policy_min_takes_the_smaller_change_and_disabled_none() {
    // Percent 100 (doubling) against Pods 1: Max would double, Min adds one.
    let policies = "      policies:\n      - type: Percent\n        value: 100\n        periodSeconds: 15\n      - type: Pods\n        value: 1\n        periodSeconds: 15\n";
    let mut c = with_behavior(
        2,
        &format!("    scaleUp:\n      selectPolicy: Min\n{policies}"),
    );
    traffic(
        &mut c,
        "start load --to svc/php-apache --from load --rps 100",
    );
    let seen = counts_over(&mut c, 40);
    assert_eq!(&seen[..3], [2, 3, 4], "{seen:?}");

    let mut c = with_behavior(
        2,
        &format!("    scaleUp:\n      selectPolicy: Max\n{policies}"),
    );
    traffic(
        &mut c,
        "start load --to svc/php-apache --from load --rps 100",
    );
    let seen = counts_over(&mut c, 40);
    assert_eq!(&seen[..3], [2, 4, 8], "{seen:?}");

    let mut c = with_behavior(2, "    scaleUp:\n      selectPolicy: Disabled\n");
    traffic(
        &mut c,
        "start load --to svc/php-apache --from load --rps 100",
    );
    assert_eq!(counts_over(&mut c, 60), [2]);
}

#[test]
fn a_scale_down_policy_and_window_pace_the_way_down() {
    // No scale-down window and at most 50% fewer per 30 s: from 8, the recommendation
    // of 1 is reached through 4 and 2 (`int32(start * (1 - 0.5))`).
    let mut c = with_behavior(
        1,
        "    scaleUp:\n      policies:\n      - type: Pods\n        value: 7\n        periodSeconds: 60\n    scaleDown:\n      stabilizationWindowSeconds: 0\n      policies:\n      - type: Percent\n        value: 50\n        periodSeconds: 30\n",
    );
    traffic(
        &mut c,
        "start load --to svc/php-apache --from load --rps 100",
    );
    c.advance(SimDuration::secs(45));
    assert_eq!(replicas(&c), 8);
    traffic(&mut c, "stop load");
    let seen = counts_over(&mut c, 150);
    assert_eq!(seen, [8, 4, 2, 1], "{seen:?}");
    let events: Vec<String> = c
        .list(Kind::Event, Some("default"))
        .into_iter()
        .filter(|e| e.to_json()["reason"] == "SuccessfulRescale")
        .map(|e| e.to_json()["message"].as_str().unwrap().to_string())
        .collect();
    assert!(
        events.contains(&"New size: 4; reason: All metrics below target".to_string()),
        "{events:?}"
    );
}

#[test]
fn the_apiserver_checks_the_scaling_rules() {
    let mut c = Cluster::new(1, Topology::default());
    let bad = format!(
        "{}  behavior:\n    scaleUp:\n      stabilizationWindowSeconds: 3601\n      selectPolicy: Most\n      policies:\n      - type: Replicas\n        value: 0\n        periodSeconds: 1801\n    scaleDown:\n      policies: []\n",
        autoscaler(1, 5)
    );
    let obj = warehouse_sim::decode_manifests(&bad).unwrap().remove(0);
    let e = c.create(obj).unwrap_err().message;
    assert_eq!(
        e,
        "HorizontalPodAutoscaler.autoscaling \"php-apache\" is invalid: [\
spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600, \
spec.behavior.scaleUp.selectPolicy: Unsupported value: \"Most\": supported values: \"Disabled\", \"Max\", \"Min\", \
spec.behavior.scaleUp.policies[0].type: Unsupported value: \"Replicas\": supported values: \"Percent\", \"Pods\", \
spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero, \
spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800, \
spec.behavior.scaleDown.policies: Required value: must specify at least one Policy]"
    );
    assert!(c.list(Kind::HorizontalPodAutoscaler, None).is_empty());
    let e = c
        .create(
            warehouse_sim::decode_manifests(&autoscaler(1, 0))
                .unwrap()
                .remove(0),
        )
        .unwrap_err()
        .message;
    assert!(
        e.ends_with("[spec.maxReplicas: Invalid value: 0: must be greater than 0, spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`]"),
        "{e}"
    );
}

const WEB_WITH_MEMORY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: nginx\n        image: nginx:1.27\n        resources:\n          requests:\n            cpu: 100m\n            memory: 4Mi\n";

fn web_autoscaler(metrics: &str) -> String {
    format!("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n  minReplicas: 1\n  maxReplicas: 6\n  metrics:\n{metrics}")
}

fn web_status(c: &Cluster) -> serde_json::Value {
    c.get(Kind::HorizontalPodAutoscaler, "default", "web")
        .unwrap()
        .to_json()["status"]
        .clone()
}

fn web_replicas(c: &Cluster) -> i64 {
    c.get(Kind::Deployment, "default", "web").unwrap().to_json()["spec"]["replicas"]
        .as_i64()
        .unwrap()
}

#[test]
fn memory_metrics_read_bytes_and_the_highest_proposal_wins() {
    // nginx holds 3Mi whatever it serves: against an average of 2Mi a pod the
    // memory metric asks for more replicas each sync, while cpu (idle) asks for
    // one; `computeReplicasForMetrics` takes the highest proposal.
    let mut c = Cluster::new(1, Topology::default());
    c.enable_metrics_server().unwrap();
    create(&mut c, WEB_WITH_MEMORY);
    c.advance(SimDuration::secs(90));
    create(
        &mut c,
        &web_autoscaler("  - type: Resource\n    resource:\n      name: cpu\n      target:\n        type: Utilization\n        averageUtilization: 50\n  - type: Resource\n    resource:\n      name: memory\n      target:\n        type: AverageValue\n        averageValue: 2Mi\n"),
    );
    c.advance(SimDuration::secs(20));
    assert_eq!(web_replicas(&c), 3);
    let status = web_status(&c);
    let metrics = status["currentMetrics"].as_array().unwrap();
    assert_eq!(metrics[0]["resource"]["current"]["averageUtilization"], 0);
    // NewMilliQuantity(bytes * 1000, DecimalSI): the bytes, as upstream prints them.
    assert_eq!(metrics[1]["resource"]["current"]["averageValue"], "3145728");
    let active = status["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["type"] == "ScalingActive")
        .cloned()
        .unwrap();
    assert_eq!(
        active["message"],
        "the HPA was able to successfully calculate a replica count from memory resource"
    );
    c.advance(SimDuration::secs(60));
    assert_eq!(web_replicas(&c), 6);
}

#[test]
fn a_failing_metric_holds_a_scale_down() {
    // Memory utilization needs a memory request: php-apache has none, so that metric
    // fails. Idle, cpu alone would scale down: upstream refuses to act on a partial
    // picture then (ScalingActive False), and keeps the count.
    let mut c = Cluster::new(1, Topology::default());
    c.enable_metrics_server().unwrap();
    create(&mut c, PHP_APACHE);
    c.advance(SimDuration::secs(60));
    let mut deployment = c.get(Kind::Deployment, "default", "php-apache").unwrap();
    if let warehouse_sim::Object::Deployment(d) = &mut deployment {
        d.spec.replicas = Some(3);
    }
    c.update(deployment).unwrap();
    c.advance(SimDuration::secs(60));
    create(
        &mut c,
        &autoscaler(1, 10).replace(
            "  metrics:\n",
            "  metrics:\n  - type: Resource\n    resource:\n      name: memory\n      target:\n        type: Utilization\n        averageUtilization: 60\n",
        ),
    );
    c.advance(SimDuration::secs(20));
    assert_eq!(replicas(&c), 3);
    let active = condition(&c, "ScalingActive");
    assert_eq!(active["status"], "False");
    assert_eq!(active["reason"], "FailedGetResourceMetric");
    assert!(
        active["message"]
            .as_str()
            .unwrap()
            .contains("failed to get memory utilization: missing request for memory in container php-apache of Pod php-apache-"),
        "{active}"
    );
    let events: Vec<String> = c
        .list(Kind::Event, Some("default"))
        .into_iter()
        .filter(|e| e.to_json()["reason"] == "FailedComputeMetricsReplicas")
        .map(|e| e.to_json()["message"].as_str().unwrap().to_string())
        .collect();
    assert!(
        events[0].starts_with("invalid metrics (1 invalid out of 2), first error is: failed to get memory resource metric value: failed to get memory utilization: missing request for memory"),
        "{events:?}"
    );
    assert_eq!(status(&c)["currentMetrics"][0]["type"], "");
}
