//! `kubectl autoscale` and `kubectl describe hpa` against a simulated cluster: the
//! objects kubectl makes, upstream's refusals and the describer's exact text.

use warehouse_kubectl::{CommandOutput, NoFiles, Session};
use warehouse_sim::{Cluster, SimDuration, Topology};

const PHP_APACHE: &str = include_str!("../../../tests/k8s-examples/application/php-apache.yaml");

fn session() -> Session {
    let mut s = Session::new(Cluster::new(1, Topology::default()));
    assert_eq!(s.run("apply -f -", Some(PHP_APACHE), &NoFiles).code, 0);
    s
}

fn run(s: &mut Session, line: &str) -> CommandOutput {
    s.run(line, None, &NoFiles)
}

#[test]
fn autoscale_makes_an_autoscaling_v2_object() {
    let mut s = session();
    let out = run(
        &mut s,
        "autoscale deployment php-apache --cpu=50% --min=1 --max=10 --dry-run=client -o yaml",
    );
    assert_eq!(
        out.stdout,
        "apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: php-apache
spec:
  maxReplicas: 10
  metrics:
  - resource:
      name: cpu
      target:
        averageUtilization: 50
        type: Utilization
    type: Resource
  minReplicas: 1
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: php-apache
status:
  currentMetrics: null
  desiredReplicas: 0
"
    );
    let out = run(
        &mut s,
        "autoscale deployment/php-apache --cpu=50% --min=1 --max=10",
    );
    assert_eq!(
        out.stdout,
        "horizontalpodautoscaler.autoscaling/php-apache autoscaled\n"
    );
    assert_eq!(out.code, 0);
    let out = run(&mut s, "get hpa php-apache");
    assert_eq!(
        out.stdout,
        "NAME         REFERENCE               TARGETS              MINPODS   MAXPODS   REPLICAS   AGE
php-apache   Deployment/php-apache   cpu: <unknown>/50%   1         10        0          0s
"
    );
}

#[test]
fn autoscale_reads_cpu_and_memory_as_upstream_does() {
    let mut s = session();
    let out = run(
        &mut s,
        "autoscale deployment php-apache -n default --name=web --cpu=500 --memory=1Gi --max=3 --dry-run=client -o yaml",
    );
    assert_eq!(
        out.stdout,
        "apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: default
spec:
  maxReplicas: 3
  metrics:
  - resource:
      name: cpu
      target:
        averageValue: 500m
        type: AverageValue
    type: Resource
  - resource:
      name: memory
      target:
        averageValue: 1Gi
        type: AverageValue
    type: Resource
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: php-apache
status:
  currentMetrics: null
  desiredReplicas: 0
"
    );
    let out = run(
        &mut s,
        "autoscale deployment php-apache --cpu-percent=70 --max=3",
    );
    assert_eq!(
        out.combined(),
        "Flag --cpu-percent has been deprecated, Use --cpu with percentage or resource quantity format (e.g., '70%' for utilization or '500m' for milliCPU).
horizontalpodautoscaler.autoscaling/php-apache autoscaled
"
    );
    let out = run(&mut s, "get hpa php-apache -o jsonpath={.spec.metrics}");
    assert_eq!(
        out.stdout,
        r#"[{"resource":{"name":"cpu","target":{"averageUtilization":70,"type":"Utilization"}},"type":"Resource"}]"#
    );
}

#[test]
fn autoscale_refuses_what_upstream_refuses() {
    let mut s = session();
    for (line, want) in [
        ("autoscale deployment php-apache --cpu=50%", "error: required flag(s) \"max\" not set\n"),
        ("autoscale deployment php-apache --max=0", "error: --max=MAXPODS is required and must be at least 1, max: 0\n"),
        ("autoscale deployment php-apache --max=-4", "error: --max=MAXPODS is required and must be at least 1, max: -4\n"),
        ("autoscale deployment php-apache --min=3 --max=2", "error: --max=MAXPODS must be larger or equal to --min=MINPODS, max: 2, min: 3\n"),
        ("autoscale deployment php-apache --max=2 --cpu=50% --cpu-percent=50", "Flag --cpu-percent has been deprecated, Use --cpu with percentage or resource quantity format (e.g., '70%' for utilization or '500m' for milliCPU).\nerror: --cpu-percent and --cpu are mutually exclusive\n"),
        ("autoscale deployment php-apache --max=2 --cpu=lots", "error: invalid resource cpu value: lots\n"),
        ("autoscale deployment php-apache --max=2 --cpu=-1%", "error: invalid percentage value: -1\n"),
        ("autoscale deployment php-apache --max=2 --memory=%", "error: invalid percentage value: \n"),
        ("autoscale deployment php-apache --max=99999999999", "error: invalid argument \"99999999999\" for \"--max\" flag: strconv.ParseInt: parsing \"99999999999\": value out of range\nSee 'kubectl autoscale --help' for usage.\n"),
        ("autoscale deployment php-apache --max", "error: flag needs an argument: --max\nSee 'kubectl autoscale --help' for usage.\n"),
        ("autoscale deployment php-apache --max=2 --replicas=3", "error: unknown flag: --replicas\nSee 'kubectl autoscale --help' for usage.\n"),
        ("autoscale deployment ghost --max=2", "Error from server (NotFound): deployments.apps \"ghost\" not found\n"),
        ("autoscale service php-apache --max=2", "error: cannot autoscale a Service: could not find scale subresource for /v1, Resource=services in discovery information\n"),
        ("autoscale widgets php-apache --max=2", "error: the server doesn't have a resource type \"widgets\"\n"),
        ("autoscale deployment --max=2", "error: resource(s) were provided, but no name was specified\n"),
    ] {
        let out = run(&mut s, line);
        assert_eq!(out.combined(), want, "{line}");
        assert_eq!(out.code, 1, "{line}");
    }
    let help = run(&mut s, "autoscale -h");
    assert!(help
        .stdout
        .starts_with("Creates an autoscaler that automatically chooses"));
    assert!(help
        .stdout
        .ends_with("[--cpu=CPU] [--memory=MEMORY] [options]\n"));
    // Nothing was made.
    assert_eq!(
        run(&mut s, "get hpa").combined(),
        "No resources found in default namespace.\n"
    );
    // A second autoscaler of the same name: the v2 create fails, and without a
    // cpu target upstream cannot fall back to autoscaling/v1.
    assert_eq!(
        run(&mut s, "autoscale deployment php-apache --max=2").code,
        0
    );
    assert_eq!(
        run(&mut s, "autoscale deployment php-apache --max=2").combined(),
        "error: failed to create autoscaling/v2 HPA and the configuration is incompatible with autoscaling/v1: empty input\n"
    );
    assert_eq!(
        run(&mut s, "autoscale deployment php-apache --max=2 --cpu=50%").combined(),
        "Error from server (AlreadyExists): horizontalpodautoscalers.autoscaling \"php-apache\" already exists\n"
    );
    assert_eq!(
        run(&mut s, "autoscale deployment php-apache --max=2 --cpu=1").combined(),
        "error: failed to create autoscaling/v2 HPA and the configuration is incompatible with autoscaling/v1: %!w(<nil>)\n"
    );
    // The apiserver refuses a 0% target at v2; the autoscaling/v1 object upstream
    // falls back to has no cpu target (--cpu-percent was not given), so 80% applies.
    assert_eq!(
        run(
            &mut s,
            "autoscale deployment php-apache --max=2 --cpu=0% --name=zero"
        )
        .combined(),
        "horizontalpodautoscaler.autoscaling/zero autoscaled\n"
    );
    assert_eq!(
        run(&mut s, "get hpa zero -o jsonpath={.apiVersion}{.spec}").stdout,
        r#"autoscaling/v1{"maxReplicas":2,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"php-apache"}}"#
    );
}

#[test]
fn describe_hpa_prints_upstreams_v2_describer() {
    let mut s = session();
    s.cluster.enable_metrics_server().unwrap();
    assert_eq!(
        run(
            &mut s,
            "autoscale deployment php-apache --cpu=50% --min=1 --max=10"
        )
        .code,
        0
    );
    let fresh = run(&mut s, "describe hpa php-apache");
    assert_eq!(
        fresh.stdout,
        "Name:                                                  php-apache
Namespace:                                             default
Labels:                                                <none>
Annotations:                                           <none>
CreationTimestamp:                                     Thu, 01 Jan 2026 00:00:00 +0000
Reference:                                             Deployment/php-apache
Metrics:                                               ( current / target )
  resource cpu on pods  (as a percentage of request):  <unknown> / 50%
Min replicas:                                          1
Max replicas:                                          10
Deployment pods:                                       0 current / 0 desired
Events:                                                <none>
"
    );
    s.cluster.advance(SimDuration::secs(90));
    let out = run(
        &mut s,
        "describe horizontalpodautoscaler --show-events=false",
    );
    assert_eq!(
        out.stdout,
        "Name:                                                  php-apache
Namespace:                                             default
Labels:                                                <none>
Annotations:                                           <none>
CreationTimestamp:                                     Thu, 01 Jan 2026 00:00:00 +0000
Reference:                                             Deployment/php-apache
Metrics:                                               ( current / target )
  resource cpu on pods  (as a percentage of request):  0% (1m) / 50%
Min replicas:                                          1
Max replicas:                                          10
Deployment pods:                                       1 current / 1 desired
Conditions:
  Type            Status  Reason            Message
  ----            ------  ------            -------
  AbleToScale     True    ReadyForNewScale  recommended size matches current size
  ScalingActive   True    ValidMetricFound  the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)
  ScalingLimited  True    TooFewReplicas    the desired replica count is less than the minimum replica count
"
    );
    // metrics-server was not serving yet at the first syncs.
    let events = run(&mut s, "describe hpa php-apache").stdout;
    let events = &events[events.find("Events:").unwrap()..];
    assert_eq!(
        events.lines().nth(4).unwrap(),
        "  Warning  FailedComputeMetricsReplicas  75s (x2 over 90s)  horizontal-pod-autoscaler  invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server is currently unable to handle the request (get pods.metrics.k8s.io)"
    );
}

#[test]
fn describe_hpa_shows_behavior_with_the_defaults_filled_in_and_v1_objects_at_v2() {
    let mut s = session();
    let manifest = "apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: tuned
  labels: {team: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: php-apache}
  minReplicas: 2
  maxReplicas: 6
  metrics:
  - type: Resource
    resource: {name: memory, target: {type: AverageValue, averageValue: 100Mi}}
  - type: Pods
    pods: {metric: {name: packets-per-second}, target: {type: AverageValue, averageValue: 1k}}
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 60
---
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: legacy
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: php-apache}
  maxReplicas: 4
";
    assert_eq!(s.run("apply -f -", Some(manifest), &NoFiles).code, 0);
    let out = run(&mut s, "describe hpa tuned --show-events=false");
    assert_eq!(
        out.stdout,
        "Name:                            tuned
Namespace:                       default
Labels:                          team=web
Annotations:                     <none>
CreationTimestamp:               Thu, 01 Jan 2026 00:00:00 +0000
Reference:                       Deployment/php-apache
Metrics:                         ( current / target )
  resource memory on pods:       <unknown> / 100Mi
  \"packets-per-second\" on pods:  <unknown> / 1k
Min replicas:                    2
Max replicas:                    6
Behavior:
  Scale Up:
    Stabilization Window: 0 seconds
    Select Policy: Max
    Policies:
      - Type: Pods     Value: 4    Period: 15 seconds
      - Type: Percent  Value: 100  Period: 15 seconds
  Scale Down:
    Stabilization Window: 60 seconds
    Select Policy: Max
    Policies:
      - Type: Percent  Value: 100  Period: 15 seconds
Deployment pods:       0 current / 0 desired
"
    );
    let out = run(&mut s, "describe hpa legacy --show-events=false");
    assert_eq!(
        out.stdout,
        "Name:                                                  legacy
Namespace:                                             default
Labels:                                                <none>
Annotations:                                           <none>
CreationTimestamp:                                     Thu, 01 Jan 2026 00:00:00 +0000
Reference:                                             Deployment/php-apache
Metrics:                                               ( current / target )
  resource cpu on pods  (as a percentage of request):  <unknown> / 80%
Min replicas:                                          1
Max replicas:                                          4
Deployment pods:                                       0 current / 0 desired
"
    );
}
