//! NetworkPolicy (networking.k8s.io/v1) enforced by the data plane, as a CNI that
//! implements it (Calico, Cilium, kindnet's network policy controller) enforces it.
//!
//! The semantics are upstream's API contract (staging/src/k8s.io/api/networking/v1
//! types.go and the website's "Network Policies" concept page):
//! - A pod is isolated for ingress when any policy in its namespace selects it and has
//!   `Ingress` among its `policyTypes`; for egress likewise with `Egress`. A pod no
//!   policy isolates allows everything in that direction.
//! - An isolated pod's connection is allowed when any rule of any policy that selects
//!   it allows it (policies are a union of allow lists; there is no deny rule). A
//!   connection between two pods needs the source's egress and the destination's
//!   ingress to allow it.
//! - `policyTypes` defaults (pkg/apis/networking/v1 defaults.go
//!   `SetDefaults_NetworkPolicy`) to `Ingress`, plus `Egress` when egress rules are
//!   present; a port's protocol defaults to TCP (`SetDefaults_NetworkPolicyPort`).
//! - A rule without `from`/`to` allows every peer; one without `ports` every port; a
//!   policy with an empty rule list allows nothing (default deny). A peer with both
//!   `podSelector` and `namespaceSelector` selects pods matching both; `podSelector`
//!   alone selects pods of the policy's namespace; `namespaceSelector` alone every pod
//!   of the matching namespaces; `ipBlock` an address range less its `except` ranges.
//! - A named port matches the destination pod's container port of that name and
//!   protocol; `endPort` makes a numeric port a range.
//!
//! A connection a policy refuses is dropped, so the client waits until it gives up
//! (`FailureReason::PolicyDenied`, which clients see as a timeout). Name resolution is
//! egress too: a pod isolated for egress reaches CoreDNS only if a rule allows UDP 53
//! to its pods (`Cluster::dns_lookup`).
//!
//! Simplified: only IPv4 addresses match an `ipBlock` (the cluster is single-stack);
//! an `ipBlock` also matches pod addresses (upstream leaves that to the plugin; Calico
//! matches them); traffic through a NodePort or a load balancer reaches the pod from
//! the node's address (kube-proxy masquerades it, `externalTrafficPolicy: Cluster`);
//! traffic through the Ingress comes from the ingress-nginx controller's pod; the
//! learner's laptop is [`OUTSIDE_CLIENT_IP`].
//!
//! Cost: each check reads the policies of the two namespaces involved (the store keeps
//! objects by kind and namespace) and nothing when the cluster has no policy.

use crate::cluster::Cluster;
use crate::controllers::selector_matches;
use crate::object::{Kind, Object, ObjectKey, OtherObject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;
use std::collections::BTreeMap;

/// The learner's laptop as the cluster sees it: the gateway of kind's docker network.
pub const OUTSIDE_CLIENT_IP: &str = "172.18.0.1";
/// The namespace of the ingress-nginx controller's pod.
pub const INGRESS_NAMESPACE: &str = "ingress-nginx";
/// The labels of the ingress-nginx controller's pod (kind's ingress-nginx deploy).
const INGRESS_LABELS: [(&str, &str); 3] = [
    ("app.kubernetes.io/component", "controller"),
    ("app.kubernetes.io/instance", "ingress-nginx"),
    ("app.kubernetes.io/name", "ingress-nginx"),
];

/// One end of a connection as a policy sees it: an address, and the pod behind it
/// when there is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Party {
    pub ip: String,
    /// The pod's namespace and labels.
    pub pod: Option<(String, BTreeMap<String, String>)>,
    /// The pod's key, to read its container ports (named ports) and name it.
    pub key: Option<ObjectKey>,
}

impl Party {
    /// An address with no pod behind it (a node, the laptop).
    pub fn address(ip: &str) -> Party {
        Party {
            ip: ip.to_string(),
            pod: None,
            key: None,
        }
    }

    /// The ingress-nginx controller's pod, at `ip`.
    pub fn ingress_controller(ip: &str) -> Party {
        Party {
            ip: ip.to_string(),
            pod: Some((
                INGRESS_NAMESPACE.to_string(),
                INGRESS_LABELS
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            )),
            key: None,
        }
    }

    fn describe(&self) -> String {
        match (&self.key, &self.pod) {
            (Some(k), _) => format!("pod {}/{}", k.namespace, k.name),
            (None, Some((ns, _))) => format!("{ns}/ingress-nginx-controller"),
            _ => self.ip.clone(),
        }
    }
}

/// An IPv4 range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cidr {
    net: u32,
    len: u32,
}

impl Cidr {
    fn mask(self) -> u32 {
        u32::MAX.checked_shl(32 - self.len).unwrap_or(0)
    }

    fn contains(self, ip: u32) -> bool {
        ip & self.mask() == self.net & self.mask()
    }
}

/// The IPv4 address in `text` (Go's sloppy parser: leading zeros allowed).
pub(crate) fn parse_ipv4(text: &str) -> Option<u32> {
    let mut out = 0u32;
    let mut n = 0;
    for part in text.split('.') {
        if part.is_empty() || part.len() > 3 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let octet: u32 = part.parse().ok()?;
        if octet > 255 {
            return None;
        }
        out = (out << 8) | octet;
        n += 1;
    }
    (n == 4).then_some(out)
}

/// `ADDRESS/LEN` as IPv4: the range, or `None` (IPv6 or not a CIDR).
fn parse_cidr(text: &str) -> Option<Cidr> {
    let (ip, len) = text.split_once('/')?;
    if len.is_empty() || len.len() > 3 || !len.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let len: u32 = len.parse().ok()?;
    (len <= 32).then_some(Cidr {
        net: parse_ipv4(ip)?,
        len,
    })
}

/// Why a CIDR is invalid, as `IsValidCIDRForLegacyField` with strict validation says
/// it; `None` when it is valid (an IPv6 range is accepted as written).
pub(crate) fn cidr_problem(text: &str) -> Option<&'static str> {
    const INVALID: &str = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";
    if text.contains(':') {
        let ok = text.split_once('/').is_some_and(|(ip, len)| {
            ip.parse::<std::net::Ipv6Addr>().is_ok() && len.parse::<u32>().is_ok_and(|l| l <= 128)
        });
        return (!ok).then_some(INVALID);
    }
    let Some(c) = parse_cidr(text) else {
        return Some(INVALID);
    };
    let (ip, len) = text.split_once('/').unwrap_or_default();
    let leading_zero = |s: &str| s.len() > 1 && s.starts_with('0');
    if ip.split('.').any(leading_zero) || leading_zero(len) {
        return Some("must not have leading 0s in IP or prefix length");
    }
    if c.net & !c.mask() != 0 {
        return Some("must not have bits set beyond the prefix length");
    }
    None
}

/// Whether range `inner` lies strictly inside `outer` (`ValidateIPBlock`'s except).
pub(crate) fn strict_subset(outer: &str, inner: &str) -> bool {
    match (parse_cidr(outer), parse_cidr(inner)) {
        (Some(o), Some(i)) => o.contains(i.net) && o.len < i.len,
        // IPv6 ranges are not compared.
        _ => true,
    }
}

/// One port of a rule.
#[derive(Clone, Debug)]
struct PortRule {
    protocol: String,
    port: Option<IntOrString>,
    end_port: Option<i32>,
}

/// One peer of a rule.
#[derive(Clone, Debug)]
enum PeerRule {
    Pods {
        pods: Option<LabelSelector>,
        namespaces: Option<LabelSelector>,
    },
    /// `None` for an IPv6 range, which no address here matches.
    Block {
        cidr: Option<Cidr>,
        except: Vec<Cidr>,
    },
}

/// One ingress or egress rule: empty lists allow every port or peer.
#[derive(Clone, Debug, Default)]
struct Rule {
    ports: Vec<PortRule>,
    peers: Vec<PeerRule>,
}

/// What the data plane reads of one policy.
#[derive(Clone, Debug)]
pub(crate) struct Policy {
    name: String,
    namespace: String,
    selector: LabelSelector,
    /// `None` when the policy does not affect ingress.
    ingress: Option<Vec<Rule>>,
    egress: Option<Vec<Rule>>,
}

/// `policyTypes` as stored, or as `SetDefaults_NetworkPolicy` sets them.
pub(crate) fn policy_types(spec: &Value) -> (bool, bool) {
    let listed: Vec<&str> = spec
        .get("policyTypes")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if listed.is_empty() {
        let egress = spec
            .get("egress")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty());
        return (true, egress);
    }
    (listed.contains(&"Ingress"), listed.contains(&"Egress"))
}

/// `SetDefaults_NetworkPolicy` and `SetDefaults_NetworkPolicyPort`, on a stored spec.
pub(crate) fn default_network_policy(o: &mut OtherObject) {
    let Some(spec) = o.fields.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let has_types = spec
        .get("policyTypes")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    if !has_types {
        let (_, egress) = policy_types(&Value::Object(spec.clone()));
        let mut types = vec![Value::from("Ingress")];
        if egress {
            types.push(Value::from("Egress"));
        }
        spec.insert("policyTypes".into(), Value::Array(types));
    }
    for rules in ["ingress", "egress"] {
        let Some(list) = spec.get_mut(rules).and_then(Value::as_array_mut) else {
            continue;
        };
        for rule in list {
            let ports = rule.get_mut("ports").and_then(Value::as_array_mut);
            for port in ports.into_iter().flatten() {
                if let Some(p) = port.as_object_mut() {
                    p.entry("protocol").or_insert_with(|| Value::from("TCP"));
                }
            }
        }
    }
}

fn selector(v: Option<&Value>) -> Option<LabelSelector> {
    v.filter(|v| !v.is_null())
        .and_then(|v| crate::object::decode::from_value(v.clone()).ok())
}

fn rules(spec: &Value, field: &str, peers_field: &str) -> Vec<Rule> {
    let list = spec.get(field).and_then(Value::as_array);
    list.into_iter()
        .flatten()
        .map(|rule| Rule {
            ports: rule
                .get("ports")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|p| PortRule {
                    protocol: p
                        .get("protocol")
                        .and_then(Value::as_str)
                        .unwrap_or("TCP")
                        .to_string(),
                    port: match p.get("port") {
                        Some(Value::Number(n)) => n
                            .as_i64()
                            .and_then(|n| i32::try_from(n).ok())
                            .map(IntOrString::Int),
                        Some(Value::String(s)) => Some(IntOrString::String(s.clone())),
                        _ => None,
                    },
                    end_port: p
                        .get("endPort")
                        .and_then(Value::as_i64)
                        .and_then(|n| i32::try_from(n).ok()),
                })
                .collect(),
            peers: rule
                .get(peers_field)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|peer| match peer.get("ipBlock").filter(|b| !b.is_null()) {
                    Some(block) => PeerRule::Block {
                        cidr: block
                            .get("cidr")
                            .and_then(Value::as_str)
                            .and_then(parse_cidr),
                        except: block
                            .get("except")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .filter_map(parse_cidr)
                            .collect(),
                    },
                    None => PeerRule::Pods {
                        pods: selector(peer.get("podSelector")),
                        namespaces: selector(peer.get("namespaceSelector")),
                    },
                })
                .collect(),
        })
        .collect()
}

impl Policy {
    /// A stored policy. Fields of the wrong type read as unset: validation refused
    /// them before they were stored.
    pub(crate) fn of(o: &OtherObject) -> Policy {
        let empty = Value::Null;
        let spec = o.fields.get("spec").unwrap_or(&empty);
        let (ingress, egress) = policy_types(spec);
        Policy {
            name: o.metadata.name.clone().unwrap_or_default(),
            namespace: o.metadata.namespace.clone().unwrap_or_default(),
            selector: selector(spec.get("podSelector")).unwrap_or_default(),
            ingress: ingress.then(|| rules(spec, "ingress", "from")),
            egress: egress.then(|| rules(spec, "egress", "to")),
        }
    }
}

/// Which way a rule list is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Ingress,
    Egress,
}

impl Cluster {
    /// The namespace's policies (the store lists a kind by namespace).
    fn policies_in(&self, namespace: &str) -> Vec<Policy> {
        self.store
            .list(Kind::NetworkPolicy, Some(namespace))
            .filter_map(|o| match o {
                Object::Other(o) => Some(Policy::of(o)),
                _ => None,
            })
            .collect()
    }

    /// The pod at `key` as a party of a connection.
    pub(crate) fn pod_party(&self, key: &ObjectKey) -> Option<Party> {
        let Some(Object::Pod(pod)) = self.store.get(key) else {
            return None;
        };
        Some(Party {
            ip: pod
                .status
                .as_ref()
                .and_then(|s| s.pod_ip.clone())
                .unwrap_or_default(),
            pod: Some((
                key.namespace.clone(),
                pod.metadata.labels.clone().unwrap_or_default(),
            )),
            key: Some(key.clone()),
        })
    }

    /// A namespace's labels; one not stored has the label every namespace gets.
    fn namespace_labels(&self, namespace: &str) -> BTreeMap<String, String> {
        match self
            .store
            .get(&ObjectKey::new(Kind::Namespace, "", namespace))
        {
            Some(Object::Namespace(ns)) => ns.metadata.labels.clone().unwrap_or_default(),
            _ => BTreeMap::from([(
                "kubernetes.io/metadata.name".to_string(),
                namespace.to_string(),
            )]),
        }
    }

    /// Whether any NetworkPolicy is stored (nothing is checked when none is).
    pub(crate) fn has_network_policies(&self) -> bool {
        self.store.count(Kind::NetworkPolicy) > 0
    }

    /// Whether policies let a connection reach `to` on `port`/`protocol`: the egress
    /// of the pod that sent it (`source`), then the ingress of the pod it reaches,
    /// which sees `client` (the source, or the address kube-proxy or the ingress put
    /// in its place). `Err` names the policies that isolate the side that refused.
    pub(crate) fn policy_check(
        &self,
        source: Option<&Party>,
        client: &Party,
        to: &Party,
        port: i32,
        protocol: &str,
    ) -> Result<(), String> {
        if !self.has_network_policies() {
            return Ok(());
        }
        if let Some(source) = source.filter(|s| s.key.is_some()) {
            self.side_allows(Direction::Egress, source, source, to, port, protocol)?;
        }
        if to.key.is_some() {
            self.side_allows(Direction::Ingress, to, client, to, port, protocol)?;
        }
        Ok(())
    }

    /// One side's verdict: `subject` is the pod whose policies are read, `peer` the
    /// other end, `to` the destination (whose ports name ports).
    fn side_allows(
        &self,
        dir: Direction,
        subject: &Party,
        from: &Party,
        to: &Party,
        port: i32,
        protocol: &str,
    ) -> Result<(), String> {
        let Some((namespace, labels)) = &subject.pod else {
            return Ok(());
        };
        let peer = if dir == Direction::Ingress { from } else { to };
        let mut isolating = Vec::new();
        for policy in self.policies_in(namespace) {
            let rules = match dir {
                Direction::Ingress => &policy.ingress,
                Direction::Egress => &policy.egress,
            };
            let Some(rules) = rules else { continue };
            if !selector_matches(&policy.selector, labels) {
                continue;
            }
            if rules
                .iter()
                .any(|r| self.rule_allows(&policy, r, peer, to, port, protocol))
            {
                return Ok(());
            }
            isolating.push(policy.name);
        }
        if isolating.is_empty() {
            return Ok(());
        }
        let (way, verb) = match dir {
            Direction::Ingress => ("ingress", "from"),
            Direction::Egress => ("egress", "to"),
        };
        Err(format!(
            "dropped by NetworkPolicy: {} is isolated for {way} by {} and no rule allows {protocol} port {port} {verb} {}",
            subject.describe(),
            isolating.join(", "),
            peer.describe()
        ))
    }

    fn rule_allows(
        &self,
        policy: &Policy,
        rule: &Rule,
        peer: &Party,
        to: &Party,
        port: i32,
        protocol: &str,
    ) -> bool {
        let port_ok = rule.ports.is_empty()
            || rule
                .ports
                .iter()
                .any(|p| p.protocol == protocol && self.port_matches(p, to, port, protocol));
        port_ok
            && (rule.peers.is_empty()
                || rule
                    .peers
                    .iter()
                    .any(|p| self.peer_matches(policy, p, peer)))
    }

    fn port_matches(&self, rule: &PortRule, to: &Party, port: i32, protocol: &str) -> bool {
        match &rule.port {
            None => true,
            Some(IntOrString::Int(p)) => match rule.end_port {
                Some(end) => (*p..=end).contains(&port),
                None => *p == port,
            },
            Some(IntOrString::String(name)) => {
                let Some(Object::Pod(pod)) = to.key.as_ref().and_then(|k| self.store.get(k)) else {
                    return false;
                };
                pod.spec
                    .iter()
                    .flat_map(|s| s.containers.iter())
                    .flat_map(|c| c.ports.iter().flatten())
                    .any(|p| {
                        p.name.as_deref() == Some(name.as_str())
                            && p.container_port == port
                            && p.protocol.as_deref().unwrap_or("TCP") == protocol
                    })
            }
        }
    }

    fn peer_matches(&self, policy: &Policy, rule: &PeerRule, peer: &Party) -> bool {
        match rule {
            PeerRule::Block { cidr, except } => {
                let (Some(cidr), Some(ip)) = (cidr, parse_ipv4(&peer.ip)) else {
                    return false;
                };
                cidr.contains(ip) && !except.iter().any(|e| e.contains(ip))
            }
            PeerRule::Pods { pods, namespaces } => {
                let Some((namespace, labels)) = &peer.pod else {
                    return false;
                };
                let namespace_ok = match namespaces {
                    None => *namespace == policy.namespace,
                    Some(sel) => selector_matches(sel, &self.namespace_labels(namespace)),
                };
                namespace_ok
                    && pods
                        .as_ref()
                        .is_none_or(|sel| selector_matches(sel, labels))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cidrs_match_as_ranges() {
        let c = parse_cidr("10.244.0.0/16").unwrap();
        assert!(c.contains(parse_ipv4("10.244.3.7").unwrap()));
        assert!(!c.contains(parse_ipv4("10.245.0.1").unwrap()));
        assert!(parse_cidr("0.0.0.0/0")
            .unwrap()
            .contains(parse_ipv4("8.8.8.8").unwrap()));
        assert_eq!(parse_cidr("10.0.0.0/33"), None);
    }

    #[test]
    fn cidr_problems_read_as_upstream_writes_them() {
        assert_eq!(cidr_problem("10.0.0.0/8"), None);
        assert_eq!(cidr_problem("2001:db8::/64"), None);
        assert_eq!(
            cidr_problem("10.0.0.1/8"),
            Some("must not have bits set beyond the prefix length")
        );
        assert_eq!(
            cidr_problem("010.0.0.0/8"),
            Some("must not have leading 0s in IP or prefix length")
        );
        assert!(cidr_problem("10.0.0/8")
            .unwrap()
            .starts_with("must be a valid CIDR"));
        assert!(strict_subset("10.0.0.0/8", "10.1.0.0/16"));
        assert!(!strict_subset("10.0.0.0/8", "10.0.0.0/8"));
        assert!(!strict_subset("10.0.0.0/8", "11.0.0.0/16"));
    }
}
