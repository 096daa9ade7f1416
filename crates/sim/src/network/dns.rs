//! CoreDNS answers and the `nslookup` a container runs.
//!
//! Mirrors CoreDNS's `kubernetes` plugin (plugin/kubernetes: `<svc>.<ns>.svc.cluster.local`
//! → the ClusterIP, a headless Service → its ready endpoints' addresses, ExternalName →
//! a CNAME, `<hostname>.<svc>.<ns>.svc.cluster.local` for endpoints with a hostname,
//! `a-b-c-d.<ns>.pod.cluster.local` with kubeadm's `pods insecure`, SRV records
//! `_<port>._<proto>.<svc>.<ns>.svc.cluster.local`) and the kubelet's `ClusterFirst`
//! resolv.conf (`search <ns>.svc.cluster.local svc.cluster.local cluster.local`,
//! `options ndots:5`).
//!
//! A query reaches CoreDNS the way a real one does: to the `kube-dns` ClusterIP
//! 10.96.0.10:53 through the pod's node's kube-proxy rules; with no CoreDNS endpoint
//! behind it (or none whose zone runs), the client times out.
//!
//! Three `nslookup`s print as their programs do: bind's (Debian images such as the docs'
//! `dnsutils`), busybox 1.28's (it applies the search list and prints reverse names), and
//! the busybox nslookup of later versions, which does not apply the search list, so a
//! short name such as `kubernetes.default` gets NXDOMAIN (the well-known reason the
//! docs pin `busybox:1.28`).
//!
//! Simplified: answers come from the apiserver's current objects (CoreDNS's watch lag
//! is not modelled); there is no Internet, so names outside `cluster.local` get
//! NXDOMAIN; AAAA queries and their empty answers are not printed.

use crate::cluster::Cluster;
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::StableSort;
use k8s_openapi::api::core::v1::{Pod, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice;

/// The cluster's DNS domain.
pub const CLUSTER_DOMAIN: &str = "cluster.local";
/// The `kube-dns` Service's ClusterIP.
pub const DNS_SERVER: &str = "10.96.0.10";

/// One record CoreDNS returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// An address, with the name its PTR record gives (for busybox 1.28's output).
    A { ip: String, reverse: Option<String> },
    /// An alias (ExternalName).
    Cname(String),
    /// `priority weight port target`.
    Srv {
        priority: u16,
        weight: u16,
        port: i32,
        target: String,
    },
}

/// What a lookup got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The name that answered (after the search list) and its records.
    Found {
        name: String,
        records: Vec<Record>,
    },
    NxDomain,
    /// No DNS server answered.
    Timeout,
}

/// The search list of a `ClusterFirst` pod in `namespace`.
pub fn search_list(namespace: &str) -> Vec<String> {
    vec![
        format!("{namespace}.svc.{CLUSTER_DOMAIN}"),
        format!("svc.{CLUSTER_DOMAIN}"),
        CLUSTER_DOMAIN.to_string(),
    ]
}

/// The kubelet's `/etc/resolv.conf` for a `ClusterFirst` pod.
pub fn resolv_conf(namespace: &str) -> String {
    format!(
        "search {}\nnameserver {DNS_SERVER}\noptions ndots:5\n",
        search_list(namespace).join(" ")
    )
}

fn dashed(ip: &str) -> String {
    ip.replace('.', "-")
}

impl Cluster {
    /// Whether a DNS query from `node` reaches a CoreDNS that answers.
    pub fn dns_reachable(&self, node: &str) -> bool {
        let backends = self.proxy_lookup(node, DNS_SERVER, 53);
        backends.iter().any(|b| self.ip_serves(&b.ip))
    }

    /// Whether NetworkPolicies let `pod` (on `node`) send a query to a CoreDNS pod
    /// on UDP 53: a pod isolated for egress needs a rule that allows it, or its
    /// queries are dropped and time out (`policy.rs`).
    fn dns_allowed(&self, pod: &Pod, node: &str) -> bool {
        if !self.has_network_policies() {
            return true;
        }
        let key = ObjectKey::new(
            Kind::Pod,
            pod.metadata.namespace.as_deref().unwrap_or("default"),
            pod.metadata.name.as_deref().unwrap_or(""),
        );
        let Some(source) = self.pod_party(&key) else {
            return true;
        };
        self.proxy_lookup(node, DNS_SERVER, 53).iter().any(|b| {
            let coredns = self
                .node_of_pod_ip(&b.ip)
                .and_then(|n| self.pod_at_ip(&n, &b.ip))
                .and_then(|(k, _)| self.pod_party(&k));
            coredns.is_some_and(|to| {
                self.policy_check(Some(&source), &source, &to, b.port, "UDP")
                    .is_ok()
            })
        })
    }

    /// Whether the zone that holds this pod IP runs.
    fn ip_serves(&self, ip: &str) -> bool {
        self.node_of_pod_ip(ip)
            .is_some_and(|n| self.kubelets.get(&n).is_some_and(|k| k.running))
    }

    /// The records of one fully qualified name (no trailing dot), as CoreDNS's
    /// `kubernetes` plugin serves them; `None` for NXDOMAIN.
    pub fn dns_records(&self, fqdn: &str, srv: bool) -> Option<Vec<Record>> {
        let name = fqdn.trim_end_matches('.').to_ascii_lowercase();
        let zone = format!(".{CLUSTER_DOMAIN}");
        let rest = name.strip_suffix(&zone)?;
        let labels: Vec<&str> = rest.split('.').collect();
        match labels.as_slice() {
            // a-b-c-d.<ns>.pod
            [ip, _ns, "pod"] => {
                let ip = ip.replace('-', ".");
                let ok =
                    ip.split('.').count() == 4 && ip.split('.').all(|o| o.parse::<u8>().is_ok());
                ok.then(|| vec![Record::A { ip, reverse: None }])
            }
            // _port._proto.<svc>.<ns>.svc
            [port, proto, svc, ns, "svc"] if srv && port.starts_with('_') => {
                self.srv_records(ns, svc, &port[1..], proto.trim_start_matches('_'))
            }
            [svc, ns, "svc"] => self.service_records(ns, svc, srv),
            [host, svc, ns, "svc"] => {
                let (_, slices) = self.service_and_slices(ns, svc)?;
                let records: Vec<Record> = slices
                    .iter()
                    .flat_map(|s| s.endpoints.iter().flatten())
                    .filter(|e| e.hostname.as_deref() == Some(*host) || dashed_match(e, host))
                    .flat_map(|e| e.addresses.first().cloned())
                    .map(|ip| Record::A { ip, reverse: None })
                    .collect();
                (!records.is_empty()).then_some(records)
            }
            _ => None,
        }
    }

    fn service_and_slices(&self, ns: &str, svc: &str) -> Option<(Service, Vec<EndpointSlice>)> {
        let Some(Object::Service(s)) = self.store.get(&ObjectKey::new(Kind::Service, ns, svc))
        else {
            return None;
        };
        let slices = self.service_slices(ns, svc).cloned().collect();
        Some(((**s).clone(), slices))
    }

    fn service_records(&self, ns: &str, svc: &str, srv: bool) -> Option<Vec<Record>> {
        let (service, slices) = self.service_and_slices(ns, svc)?;
        let spec = service.spec.clone().unwrap_or_default();
        let fqdn = format!("{svc}.{ns}.svc.{CLUSTER_DOMAIN}");
        if spec.type_.as_deref() == Some("ExternalName") {
            return Some(vec![Record::Cname(spec.external_name.unwrap_or_default())]);
        }
        if srv {
            // An SRV query for the Service name: one record per port.
            let ports: Vec<Record> = spec
                .ports
                .iter()
                .flatten()
                .map(|p| Record::Srv {
                    priority: 0,
                    weight: 100,
                    port: p.port,
                    target: fqdn.clone(),
                })
                .collect();
            return Some(ports);
        }
        match spec.cluster_ip.as_deref() {
            Some("None") => {
                let publish = spec.publish_not_ready_addresses.unwrap_or(false);
                let mut records = Vec::new();
                for e in slices.iter().flat_map(|s| s.endpoints.iter().flatten()) {
                    let ready = e.conditions.as_ref().and_then(|c| c.ready).unwrap_or(true);
                    if !ready && !publish {
                        continue;
                    }
                    for ip in &e.addresses {
                        let host = e.hostname.clone().unwrap_or_else(|| dashed(ip));
                        records.push(Record::A {
                            ip: ip.clone(),
                            reverse: Some(format!("{host}.{fqdn}")),
                        });
                    }
                }
                records.stable_sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
                // A headless Service without ready endpoints has no records (NOERROR,
                // no answer); nslookup reports that like a missing name.
                (!records.is_empty()).then_some(records)
            }
            Some(ip) if !ip.is_empty() => Some(vec![Record::A {
                ip: ip.to_string(),
                reverse: Some(fqdn),
            }]),
            _ => None,
        }
    }

    fn srv_records(&self, ns: &str, svc: &str, port: &str, proto: &str) -> Option<Vec<Record>> {
        let (service, slices) = self.service_and_slices(ns, svc)?;
        let spec = service.spec.clone().unwrap_or_default();
        let fqdn = format!("{svc}.{ns}.svc.{CLUSTER_DOMAIN}");
        let p = spec.ports.iter().flatten().find(|p| {
            p.name.as_deref() == Some(port)
                && p.protocol
                    .as_deref()
                    .unwrap_or("TCP")
                    .eq_ignore_ascii_case(proto)
        })?;
        if spec.cluster_ip.as_deref() != Some("None") {
            return Some(vec![Record::Srv {
                priority: 0,
                weight: 100,
                port: p.port,
                target: fqdn,
            }]);
        }
        let mut targets: Vec<String> = slices
            .iter()
            .flat_map(|s| s.endpoints.iter().flatten())
            .filter(|e| e.conditions.as_ref().and_then(|c| c.ready).unwrap_or(true))
            .flat_map(|e| {
                e.addresses
                    .iter()
                    .map(|ip| {
                        let host = e.hostname.clone().unwrap_or_else(|| dashed(ip));
                        format!("{host}.{fqdn}")
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        targets.stable_sort();
        let n = targets.len().max(1) as u16;
        let records: Vec<Record> = targets
            .into_iter()
            .map(|target| Record::Srv {
                priority: 0,
                weight: 100 / n,
                port: p.port,
                target,
            })
            .collect();
        (!records.is_empty()).then_some(records)
    }

    /// A lookup from a pod: through its node's kube-proxy to CoreDNS; with `search`,
    /// a name with fewer than five dots tries the pod's search list first.
    pub fn dns_lookup(&self, pod: &Pod, name: &str, search: bool, srv: bool) -> Answer {
        let node = pod
            .spec
            .as_ref()
            .and_then(|s| s.node_name.clone())
            .unwrap_or_default();
        if !self.dns_reachable(&node) || !self.dns_allowed(pod, &node) {
            return Answer::Timeout;
        }
        let namespace = pod.metadata.namespace.as_deref().unwrap_or("default");
        let absolute = name.ends_with('.');
        let bare = name.trim_end_matches('.');
        let mut candidates = Vec::new();
        if search && !absolute && bare.matches('.').count() < 5 {
            for domain in search_list(namespace) {
                candidates.push(format!("{bare}.{domain}"));
            }
        }
        candidates.push(bare.to_string());
        for c in candidates {
            if let Some(records) = self.dns_records(&c, srv) {
                return Answer::Found { name: c, records };
            }
        }
        Answer::NxDomain
    }
}

fn dashed_match(e: &k8s_openapi::api::discovery::v1::Endpoint, host: &str) -> bool {
    e.hostname.is_none() && e.addresses.iter().any(|ip| dashed(ip) == host)
}

/// Which `nslookup` an image ships.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nslookup {
    /// bind9's (dnsutils).
    Bind,
    /// busybox up to 1.28: applies the search list, prints `Address 1: IP NAME`.
    Busybox128,
    /// busybox 1.29 and later: no search list.
    Busybox,
}

impl Nslookup {
    /// The nslookup of an image.
    pub fn of(image: &str) -> Nslookup {
        let repo = crate::kubelet::images::repository(image);
        let tag = crate::kubelet::images::tag(image).unwrap_or("latest");
        match repo {
            "busybox" | "registry.k8s.io/busybox" => {
                let old = tag
                    .split('.')
                    .nth(1)
                    .and_then(|minor| minor.parse::<u32>().ok())
                    .is_some_and(|minor| tag.starts_with("1.") && minor <= 28);
                // registry.k8s.io/busybox:latest is the old 1.24 build.
                if old || (repo == "registry.k8s.io/busybox" && tag == "latest") {
                    Nslookup::Busybox128
                } else {
                    Nslookup::Busybox
                }
            }
            "registry.k8s.io/e2e-test-images/jessie-dnsutils" => Nslookup::Bind,
            _ => Nslookup::Busybox,
        }
    }
}

impl Cluster {
    /// Runs `nslookup ARGS` in `pod` as the image's nslookup prints it: the output and
    /// the exit status.
    pub fn nslookup(&self, pod: &Pod, image: &str, args: &[String]) -> (String, i32) {
        let flavour = Nslookup::of(image);
        let mut srv = false;
        let mut names = Vec::new();
        for a in args {
            let lower = a.to_ascii_lowercase();
            if lower.starts_with("-type=")
                || lower.starts_with("-query=")
                || lower.starts_with("-q=")
            {
                srv = lower.ends_with("=srv");
            } else if !a.starts_with('-') {
                names.push(a.clone());
            }
        }
        let Some(name) = names.first().cloned() else {
            return match flavour {
                Nslookup::Bind => ("> ".into(), 0),
                _ => (
                    "BusyBox multi-call binary.\n\nUsage: nslookup [-type=QUERY_TYPE] [-debug] HOST [DNS_SERVER]\n\nQuery DNS about HOST\n".into(),
                    1,
                ),
            };
        };
        let search = flavour != Nslookup::Busybox;
        let answer = self.dns_lookup(pod, &name, search, srv);
        let mut out = String::new();
        match flavour {
            // bind's nslookup and busybox's after 1.28 print alike: the server's
            // port after `#` or `:`, bind's names ending in a dot, busybox's
            // NXDOMAIN followed by its empty AAAA answer.
            Nslookup::Bind | Nslookup::Busybox => {
                let bind = flavour == Nslookup::Bind;
                if answer == Answer::Timeout {
                    return (
                        ";; connection timed out; no servers could be reached\n\n".into(),
                        1,
                    );
                }
                let (sep, dot) = if bind { ('#', ".") } else { (':', "") };
                out.push_str(&format!(
                    "Server:\t\t{DNS_SERVER}\nAddress:\t{DNS_SERVER}{sep}53\n\n"
                ));
                match answer {
                    Answer::Found {
                        name: found,
                        records,
                    } => {
                        for r in records {
                            match r {
                                Record::A { ip, .. } => {
                                    out.push_str(&format!("Name:\t{found}\nAddress: {ip}\n"))
                                }
                                Record::Cname(target) => out.push_str(&format!(
                                    "{found}\tcanonical name = {target}{dot}\n"
                                )),
                                Record::Srv {
                                    priority,
                                    weight,
                                    port,
                                    target,
                                } => out.push_str(&format!(
                                    "{found}\tservice = {priority} {weight} {port} {target}{dot}\n"
                                )),
                            }
                        }
                        out.push('\n');
                        (out, 0)
                    }
                    _ if bind => {
                        out.push_str(&format!("** server can't find {name}: NXDOMAIN\n\n"));
                        (out, 1)
                    }
                    _ => {
                        out.push_str(&format!(
                            "** server can't find {name}: NXDOMAIN\n\n*** Can't find {name}: No answer\n\n"
                        ));
                        (out, 1)
                    }
                }
            }
            Nslookup::Busybox128 => {
                if answer == Answer::Timeout {
                    return (
                        format!("Server:    {DNS_SERVER}\nAddress 1: {DNS_SERVER}\n\nnslookup: can't resolve '{name}'\n"),
                        1,
                    );
                }
                out.push_str(&format!(
                    "Server:    {DNS_SERVER}\nAddress 1: {DNS_SERVER} kube-dns.kube-system.svc.{CLUSTER_DOMAIN}\n\n"
                ));
                match answer {
                    Answer::Found { records, .. } => {
                        out.push_str(&format!("Name:      {name}\n"));
                        let mut n = 0;
                        for r in records {
                            match r {
                                Record::A { ip, reverse } => {
                                    n += 1;
                                    match reverse {
                                        Some(rev) => {
                                            out.push_str(&format!("Address {n}: {ip} {rev}\n"))
                                        }
                                        None => out.push_str(&format!("Address {n}: {ip}\n")),
                                    }
                                }
                                Record::Cname(_) | Record::Srv { .. } => {}
                            }
                        }
                        if n == 0 {
                            return (
                                format!(
                                    "{}nslookup: can't resolve '{name}'\n",
                                    out.split("Name:").next().unwrap_or("")
                                ),
                                1,
                            );
                        }
                        (out, 0)
                    }
                    _ => {
                        out.push_str(&format!("nslookup: can't resolve '{name}'\n"));
                        (out, 1)
                    }
                }
            }
        }
    }
}
