//! Service addresses: the apiserver's ClusterIP and NodePort allocators
//! (pkg/registry/core/service/ipallocator and portallocator, called from the
//! Service REST storage's `BeginCreate`/`BeginUpdate`).
//!
//! ClusterIPs come from the service CIDR 10.96.0.0/12 (kubeadm's default): the first
//! address is the `kubernetes` Service's, a requested address must be in range and
//! free, and a dynamic one is drawn at random from the range above the low band that
//! upstream keeps for static assignments (`randomScanStrategyWithOffset`). NodePorts
//! come from 30000–32767 the same way. An update keeps the addresses already
//! allocated (`PatchAllocatedValues`); changing the type to NodePort or LoadBalancer
//! allocates node ports, changing it back releases them.
//!
//! Simplified: single-stack IPv4 only; allocations are read from the Services in the
//! store when a Service is written (upstream keeps IPAddress objects and a bitmap), so
//! an allocation costs a look over the Services, not over anything else.

use crate::apiserver::{invalid, Actor, FieldError};
use crate::cluster::Cluster;
use crate::error::ApiError;
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::CollectMap;
use crate::store::{EventType, WatchEvent};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::{Service, ServiceSpec};
use std::collections::BTreeSet;

/// The service CIDR's network address (10.96.0.0) and prefix length.
pub const SERVICE_CIDR: (u32, u32) = (0x0a60_0000, 12);
/// The service CIDR as kube-apiserver's `--service-cluster-ip-range` prints it.
pub const SERVICE_CIDR_TEXT: &str = "10.96.0.0/12";
/// `--service-node-port-range`.
pub const NODE_PORT_RANGE: (i32, i32) = (30000, 32767);
/// The `kubernetes` Service's address: the first of the range.
pub const KUBERNETES_SERVICE_IP: &str = "10.96.0.1";
/// kubeadm's cluster DNS address: the tenth of the range.
pub const DNS_SERVICE_IP: &str = "10.96.0.10";

fn ip_text(ip: u32) -> String {
    format!(
        "{}.{}.{}.{}",
        ip >> 24,
        (ip >> 16) & 0xff,
        (ip >> 8) & 0xff,
        ip & 0xff
    )
}

fn parse_ip(s: &str) -> Option<u32> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    let mut ip = 0u32;
    for p in parts {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: u32 = p.parse().ok()?;
        if n > 255 {
            return None;
        }
        ip = (ip << 8) | n;
    }
    Some(ip)
}

/// The usable addresses of the service CIDR: all but the network and broadcast ones.
fn range_size() -> u32 {
    (1u32 << (32 - SERVICE_CIDR.1)) - 2
}

/// Upstream's offset for dynamic allocation: the low band of `min(max(16, size/16),
/// limit)` addresses (or ports) is tried last, leaving it to static assignments.
fn offset(size: u32, limit: u32) -> u32 {
    (size / 16).clamp(16, limit)
}

fn in_range(ip: u32) -> bool {
    let first = SERVICE_CIDR.0 + 1;
    ip >= first && ip < first + range_size()
}

impl Cluster {
    /// The ClusterIPs and node ports the Services in the store hold, except `skip`'s.
    fn service_allocations(&self, skip: &Object) -> (BTreeSet<u32>, BTreeSet<i32>) {
        let mut ips = BTreeSet::new();
        let mut ports = BTreeSet::new();
        for o in self.store.list(Kind::Service, None) {
            if o.namespace() == skip.namespace() && o.name() == skip.name() {
                continue;
            }
            let Object::Service(s) = o else { continue };
            let Some(spec) = &s.spec else { continue };
            for ip in spec.cluster_ips.iter().flatten() {
                if let Some(ip) = parse_ip(ip) {
                    ips.insert(ip);
                }
            }
            for p in spec.ports.iter().flatten() {
                if let Some(n) = p.node_port {
                    ports.insert(n);
                }
            }
        }
        (ips, ports)
    }

    /// Fills in a Service's ClusterIP and node ports, or refuses the ones asked for.
    pub(crate) fn allocate_service_addresses(
        &mut self,
        obj: &mut Object,
        old: Option<&Object>,
    ) -> Result<(), ApiError> {
        if !matches!(obj, Object::Service(_)) {
            return Ok(());
        }
        let (taken_ips, taken_ports) = self.service_allocations(obj);
        let old = match old {
            Some(Object::Service(s)) => Some((**s).clone()),
            _ => None,
        };
        let Object::Service(svc) = obj else {
            return Ok(());
        };
        let errors = self.allocate(svc, old.as_ref(), &taken_ips, &taken_ports);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(invalid(obj, errors))
        }
    }

    fn allocate(
        &mut self,
        svc: &mut Service,
        old: Option<&Service>,
        taken_ips: &BTreeSet<u32>,
        taken_ports: &BTreeSet<i32>,
    ) -> Vec<FieldError> {
        let mut errors = Vec::new();
        let old_spec = old.and_then(|o| o.spec.as_ref());
        let spec = svc.spec.get_or_insert_with(Default::default);
        let type_ = spec.type_.clone().unwrap_or_else(|| "ClusterIP".into());

        self.allocate_cluster_ip(spec, old_spec, &type_, taken_ips, &mut errors);

        // Node ports.
        let wants_node_ports = match type_.as_str() {
            "NodePort" => true,
            "LoadBalancer" => spec.allocate_load_balancer_node_ports != Some(false),
            _ => false,
        };
        // `dropTypeDependentFields`: a change to a type without node ports drops the
        // ones allocated before, unless the user set different values.
        if !wants_node_ports {
            let old_ports = old_spec.and_then(|o| o.ports.as_deref()).unwrap_or(&[]);
            for p in spec.ports.iter_mut().flatten() {
                let allocated = old_ports
                    .iter()
                    .find(|o| o.port == p.port && o.protocol == p.protocol)
                    .and_then(|o| o.node_port);
                if p.node_port.is_some() && p.node_port == allocated {
                    p.node_port = None;
                }
            }
        }
        let mut used_here: BTreeSet<i32> = BTreeSet::new();
        let old_ports = old_spec.and_then(|o| o.ports.clone()).unwrap_or_default();
        let size = (NODE_PORT_RANGE.1 - NODE_PORT_RANGE.0 + 1) as u32;
        for (n, p) in spec.ports.iter_mut().flatten().enumerate() {
            if !wants_node_ports {
                if p.node_port.is_some() && type_ == "ClusterIP" {
                    errors.push(FieldError(format!(
                        "spec.ports[{n}].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"
                    )));
                }
                continue;
            }
            let kept = old_ports
                .iter()
                .find(|o| o.port == p.port && o.protocol == p.protocol)
                .and_then(|o| o.node_port);
            match p.node_port {
                Some(asked) if Some(asked) == kept => {}
                Some(asked) if !(NODE_PORT_RANGE.0..=NODE_PORT_RANGE.1).contains(&asked) => {
                    errors.push(FieldError(format!(
                        "spec.ports[{n}].nodePort: Invalid value: {asked}: provided port is not in the valid range. The range of valid ports is {}-{}",
                        NODE_PORT_RANGE.0, NODE_PORT_RANGE.1
                    )));
                }
                Some(asked) if taken_ports.contains(&asked) || used_here.contains(&asked) => {
                    errors.push(FieldError(format!(
                        "spec.ports[{n}].nodePort: Invalid value: {asked}: provided port is already allocated"
                    )));
                }
                Some(_) => {}
                None => {
                    p.node_port = kept.or_else(|| {
                        self.random_free(size, offset(size, 128), |i| {
                            let port = NODE_PORT_RANGE.0 + i as i32;
                            taken_ports.contains(&port) || used_here.contains(&port)
                        })
                        .map(|i| NODE_PORT_RANGE.0 + i as i32)
                    });
                    if p.node_port.is_none() {
                        errors.push(FieldError(format!(
                            "spec.ports[{n}].nodePort: Internal error: failed to allocate a nodePort: range is full"
                        )));
                    }
                }
            }
            if let Some(port) = p.node_port {
                used_here.insert(port);
            }
        }
        if type_ == "LoadBalancer" {
            spec.allocate_load_balancer_node_ports.get_or_insert(true);
        }
        errors
    }

    /// Keeps, checks or allocates the Service's ClusterIP (none for ExternalName;
    /// once set it may not change), adding what is wrong to `errors`.
    fn allocate_cluster_ip(
        &mut self,
        spec: &mut ServiceSpec,
        old_spec: Option<&ServiceSpec>,
        type_: &str,
        taken_ips: &BTreeSet<u32>,
        errors: &mut Vec<FieldError>,
    ) {
        if type_ == "ExternalName" {
            spec.cluster_ip = None;
            spec.cluster_ips = None;
        } else {
            let asked = spec
                .cluster_ip
                .clone()
                .filter(|s| !s.is_empty())
                .or_else(|| spec.cluster_ips.as_ref().and_then(|l| l.first().cloned()))
                .or_else(|| old_spec.and_then(|o| o.cluster_ip.clone()));
            let before = old_spec
                .and_then(|o| o.cluster_ip.clone())
                .filter(|ip| !ip.is_empty());
            let ip = match asked.as_deref() {
                Some(text) if before.as_deref().is_some_and(|b| b != text) => {
                    errors.push(FieldError(format!(
                    "spec.clusterIPs[0]: Invalid value: []string{{\"{text}\"}}: may not change once set"
                )));
                    None
                }
                Some("None") => Some("None".to_string()),
                Some(text) if old_spec.and_then(|o| o.cluster_ip.as_deref()) == Some(text) => {
                    Some(text.to_string())
                }
                Some(text) => match parse_ip(text) {
                    None => {
                        errors.push(FieldError(format!(
                        "spec.clusterIPs[0]: Invalid value: \"{text}\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
                    )));
                        None
                    }
                    Some(ip) if !in_range(ip) => {
                        errors.push(FieldError(format!(
                        "spec.clusterIPs: Invalid value: []string{{\"{text}\"}}: failed to allocate IP {text}: the provided IP ({text}) is not in the valid range. The range of valid IPs is {SERVICE_CIDR_TEXT}"
                    )));
                        None
                    }
                    Some(ip) if taken_ips.contains(&ip) => {
                        errors.push(FieldError(format!(
                        "spec.clusterIPs: Invalid value: []string{{\"{text}\"}}: failed to allocate IP {text}: provided IP is already allocated"
                    )));
                        None
                    }
                    Some(_) => Some(text.to_string()),
                },
                None => match self.random_free(range_size(), offset(range_size(), 256), |i| {
                    taken_ips.contains(&(SERVICE_CIDR.0 + 1 + i))
                }) {
                    Some(i) => Some(ip_text(SERVICE_CIDR.0 + 1 + i)),
                    None => {
                        errors.push(FieldError("spec.clusterIPs: Internal error: failed to allocate a serviceIP: range is full"
                        .to_string()));
                        None
                    }
                },
            };
            if let Some(ip) = ip {
                spec.cluster_ip = Some(ip.clone());
                spec.cluster_ips = Some(vec![ip]);
                spec.ip_families.get_or_insert_with(|| vec!["IPv4".into()]);
                spec.ip_family_policy
                    .get_or_insert_with(|| "SingleStack".into());
            }
        }
    }

    /// A free index in `0..size`, drawn at random above `offset` first, then below it
    /// (upstream `randomScanStrategyWithOffset`): a random start, then a scan.
    fn random_free(&mut self, size: u32, offset: u32, taken: impl Fn(u32) -> bool) -> Option<u32> {
        let upper = size - offset;
        let start = self.rng.below(upper as u64) as u32;
        (0..upper)
            .map(|k| offset + (start + k) % upper)
            .chain(0..offset)
            .find(|&i| !taken(i))
    }
}

/// The `kubernetes` Service the apiserver keeps in `default` (its bootstrap
/// controller), pointing at the apiserver's secure port.
/// The Services `kubeadm init` creates.
pub(crate) const BUILT_IN_SERVICES: [&str; 2] = [KUBERNETES_SERVICE, KUBE_DNS_SERVICE];

/// The apiserver's own Service in `default`.
const KUBERNETES: &str = "kubernetes";
/// The `kubernetes` Service controller's reconcile interval (kube-apiserver's
/// endpoint reconciler interval, `DefaultEndpointReconcilerInterval`).
pub const KUBERNETES_SERVICE_INTERVAL: SimDuration = SimDuration::secs(10);

const KUBERNETES_SERVICE: &str = "apiVersion: v1
kind: Service
metadata:
  name: kubernetes
  namespace: default
  labels:
    component: apiserver
    provider: kubernetes
spec:
  clusterIP: 10.96.0.1
  ports:
  - name: https
    port: 443
    protocol: TCP
    targetPort: 6443
";

/// kubeadm's `kube-dns` Service in front of CoreDNS.
const KUBE_DNS_SERVICE: &str = "apiVersion: v1
kind: Service
metadata:
  name: kube-dns
  namespace: kube-system
  annotations:
    prometheus.io/port: \"9153\"
    prometheus.io/scrape: \"true\"
  labels:
    k8s-app: kube-dns
    kubernetes.io/cluster-service: \"true\"
    kubernetes.io/name: CoreDNS
spec:
  clusterIP: 10.96.0.10
  selector:
    k8s-app: kube-dns
  ports:
  - name: dns
    port: 53
    protocol: UDP
    targetPort: 53
  - name: dns-tcp
    port: 53
    protocol: TCP
    targetPort: 53
  - name: metrics
    port: 9153
    protocol: TCP
    targetPort: 9153
";

impl Cluster {
    /// The Services a new cluster has: `kubernetes` with the Endpoints and
    /// EndpointSlice the apiserver maintains for itself (it has no selector), and
    /// kubeadm's `kube-dns`.
    pub(crate) fn bootstrap_services(&mut self) {
        for manifest in BUILT_IN_SERVICES {
            let svc: Service =
                crate::object::from_manifest(manifest).expect("the Service manifests parse");
            let _ = self.create_as(Actor::System, Object::Service(Box::new(svc)));
        }
        for obj in self.kubernetes_endpoints() {
            let _ = self.create_as(Actor::System, obj);
        }
    }

    /// The Endpoints and EndpointSlice `kubernetes` the apiserver keeps for itself
    /// (its lease endpoint reconciler): the control-plane node's address, port 6443.
    fn kubernetes_endpoints(&self) -> Vec<Object> {
        use k8s_openapi::api::core::v1::{
            EndpointAddress, EndpointPort, EndpointSubset, Endpoints,
        };
        use k8s_openapi::api::discovery::v1::{
            Endpoint, EndpointConditions, EndpointPort as SlicePort, EndpointSlice,
        };
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
        let apiserver_ip = self
            .store
            .list(Kind::Node, None)
            .filter_map(Object::as_node)
            .find(|n| {
                n.metadata
                    .labels
                    .as_ref()
                    .is_some_and(|l| l.contains_key("node-role.kubernetes.io/control-plane"))
            })
            .and_then(|n| {
                n.status
                    .as_ref()?
                    .addresses
                    .as_ref()?
                    .iter()
                    .find(|a| a.type_ == "InternalIP")
                    .map(|a| a.address.clone())
            });
        let Some(ip) = apiserver_ip else {
            return Vec::new();
        };
        let meta = |labels: &[(&str, &str)]| ObjectMeta {
            name: Some(KUBERNETES.into()),
            namespace: Some("default".into()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect_map(),
            ),
            ..Default::default()
        };
        let endpoints = Endpoints {
            metadata: meta(&[("endpointslice.kubernetes.io/skip-mirror", "true")]),
            subsets: Some(vec![EndpointSubset {
                addresses: Some(vec![EndpointAddress {
                    ip: ip.clone(),
                    ..Default::default()
                }]),
                ports: Some(vec![EndpointPort {
                    name: Some("https".into()),
                    port: 6443,
                    protocol: Some("TCP".into()),
                    ..Default::default()
                }]),
                ..Default::default()
            }]),
        };
        let slice = EndpointSlice {
            metadata: meta(&[("kubernetes.io/service-name", KUBERNETES)]),
            address_type: "IPv4".into(),
            endpoints: Some(vec![Endpoint {
                addresses: vec![ip],
                conditions: Some(EndpointConditions {
                    ready: Some(true),
                    ..Default::default()
                }),
                ..Default::default()
            }]),
            ports: Some(vec![SlicePort {
                name: Some("https".into()),
                port: Some(6443),
                protocol: Some("TCP".into()),
                ..Default::default()
            }]),
        };
        vec![
            Object::Endpoints(Box::new(endpoints)),
            Object::EndpointSlice(Box::new(slice)),
        ]
    }

    /// A watch event on `default/kubernetes` (the Service, its Endpoints or its
    /// EndpointSlice): a deletion or a change arms the controller's next reconcile.
    pub(crate) fn kubernetes_service_observe(&mut self, ev: &WatchEvent) {
        let key = ev.object.key();
        let watched = matches!(
            key.kind,
            Kind::Service | Kind::Endpoints | Kind::EndpointSlice
        ) && key.namespace == "default"
            && key.name == KUBERNETES;
        if !watched || ev.event_type == EventType::Added {
            return;
        }
        if ev.event_type == EventType::Modified && key.kind == Kind::Service {
            return; // an existing Service is left as it is (`reconcile` false)
        }
        let period = KUBERNETES_SERVICE_INTERVAL.as_millis();
        let next = self
            .now
            .0
            .saturating_div(period)
            .saturating_add(1)
            .saturating_mul(period);
        self.arm_kubernetes_service(SimTime(next));
    }

    pub(crate) fn arm_kubernetes_service(&mut self, at: SimTime) {
        if !self.kubernetes_service_armed {
            self.kubernetes_service_armed = true;
            self.schedule(at, crate::apiserver::ApiserverTimer::KubernetesService);
        }
    }

    /// pkg/controlplane/controller/kubernetesservice `UpdateKubernetesService`: the
    /// `kubernetes` Service created if it is missing (an existing one is left alone),
    /// and the lease reconciler's Endpoints and EndpointSlice created, or rewritten
    /// when they no longer list the apiserver.
    ///
    /// Simplified: upstream runs this every 10 s for the apiserver's life; here it
    /// runs at the apiserver's start and at the next 10 s tick after one of the
    /// three objects was deleted or changed, which writes the same objects at the
    /// same moments, without a timer while nothing happens. The `default`
    /// namespace it would also create cannot be deleted (NamespaceLifecycle).
    pub(crate) fn reconcile_kubernetes_service(&mut self) {
        self.kubernetes_service_armed = false;
        let svc_key = ObjectKey::new(Kind::Service, "default", KUBERNETES);
        if self.store.get(&svc_key).is_none() {
            let svc: Service = crate::object::from_manifest(KUBERNETES_SERVICE)
                .expect("the Service manifest parses");
            let _ = self.create_as(Actor::System, Object::Service(Box::new(svc)));
        }
        for desired in self.kubernetes_endpoints() {
            let key = desired.key();
            match self.store.get(&key).cloned() {
                None => {
                    let _ = self.create_as(Actor::System, desired);
                }
                Some(current) => {
                    let same = match (&current, &desired) {
                        (Object::Endpoints(a), Object::Endpoints(b)) => a.subsets == b.subsets,
                        (Object::EndpointSlice(a), Object::EndpointSlice(b)) => {
                            a.endpoints == b.endpoints && a.ports == b.ports
                        }
                        _ => true,
                    };
                    if !same {
                        let mut updated = desired;
                        *updated.meta_mut() = current.meta().clone();
                        let _ = self.update_as(Actor::System, updated);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_bands() {
        assert_eq!(ip_text(SERVICE_CIDR.0 + 1), KUBERNETES_SERVICE_IP);
        assert_eq!(ip_text(SERVICE_CIDR.0 + 10), DNS_SERVICE_IP);
        assert_eq!(parse_ip("10.96.0.10"), Some(SERVICE_CIDR.0 + 10));
        assert_eq!(parse_ip("10.96.0.256"), None);
        assert!(in_range(parse_ip("10.111.255.254").unwrap()));
        assert!(!in_range(parse_ip("10.112.0.1").unwrap()));
        assert_eq!(offset(range_size(), 256), 256);
        assert_eq!(offset(2768, 128), 128);
    }
}
