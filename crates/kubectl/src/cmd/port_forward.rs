//! `kubectl port-forward TYPE/NAME [LOCAL_PORT:]REMOTE_PORT... [--address ADDR]`.
//!
//! Mirrors staging/src/k8s.io/kubectl/pkg/cmd/portforward/portforward.go: the pod is
//! chosen once (a pod by name, or a workload's or Service's first pod, ready pods
//! first), a Service's port is translated to its target port on that pod
//! (`util.LookupContainerPortNumberByServicePort`), a named port to the container's
//! number, and a pod that is not Running is refused. client-go's
//! tools/portforward prints one `Forwarding from` line per address it listens on
//! (`localhost` is 127.0.0.1 and [::1]).
//!
//! In the tutorials it runs in a second terminal until Ctrl-C; here the line returns
//! at once and the forward keeps listening until its pod stops (the data plane's
//! `port_forward.rs`): `curl localhost:8080` and `sim request http://localhost:8080`
//! reach the pod. Simplified: `:REMOTE` takes the lowest free port from
//! [`FIRST_RANDOM_PORT`] instead of a random one.

use crate::context::{CommandOutput, Context};
use crate::errors;
use k8s_openapi::api::core::v1::{Pod, Service};
use std::collections::BTreeSet;
use warehouse_sim::network::port_forward::ForwardError;
use warehouse_sim::{Cluster, Kind, Object};

/// Where a forward with no local port (`:80`) starts looking for a free one.
pub const FIRST_RANDOM_PORT: u16 = 40000;

const USAGE: &str = "See 'kubectl port-forward -h' for help and examples";

struct Flags {
    namespace: Option<String>,
    addresses: Vec<String>,
    words: Vec<String>,
}

fn parse_flags(args: &[String]) -> Result<Flags, String> {
    let mut f = Flags {
        namespace: None,
        addresses: Vec::new(),
        words: Vec::new(),
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a, None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            i += 1;
            args.get(i).cloned().ok_or_else(|| {
                format!("error: flag needs an argument: {name}\nSee 'kubectl port-forward --help' for usage.")
            })
        };
        match flag {
            "-n" | "--namespace" => f.namespace = Some(value("'n' in -n")?),
            "--address" => {
                let v = value("--address")?;
                f.addresses
                    .extend(v.split(',').map(|s| s.trim().to_string()));
            }
            "--pod-running-timeout" => {
                value("--pod-running-timeout")?;
            }
            _ if a.starts_with("-n") && a.len() > 2 => f.namespace = Some(a[2..].to_string()),
            "--" => {}
            _ if a.starts_with("--") => {
                return Err(format!(
                    "error: unknown flag: {flag}\nSee 'kubectl port-forward --help' for usage."
                ))
            }
            // `-8080:80` is not a port: kubectl reads it as shorthand flags.
            _ if a.starts_with('-') && a.len() > 1 => {
                return Err(format!(
                    "error: unknown shorthand flag: '{}' in {a}\nSee 'kubectl port-forward --help' for usage.",
                    a[1..].chars().next().unwrap_or('-')
                ))
            }
            _ => f.words.push(a.to_string()),
        }
        i += 1;
    }
    if f.addresses.is_empty() {
        f.addresses.push("localhost".into());
    }
    Ok(f)
}

/// `LOCAL:REMOTE`, `REMOTE` (the same local port) or `:REMOTE` (any local port).
fn split_port(spec: &str) -> (&str, &str) {
    match spec.split_once(':') {
        Some((l, r)) => (l, r),
        None => (spec, spec),
    }
}

/// The addresses a listener binds, as client-go prints them.
fn listen_addresses(addresses: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for a in addresses {
        match a.as_str() {
            "localhost" => {
                out.push("127.0.0.1".to_string());
                out.push("[::1]".to_string());
            }
            "::1" => out.push("[::1]".to_string()),
            ip if is_ipv4(ip) => out.push(ip.to_string()),
            ip if ip.contains(':') && ip.chars().all(|c| c == ':' || c.is_ascii_hexdigit()) => {
                out.push(format!("[{ip}]"))
            }
            other => return Err(format!("error: {other} is not a valid IP")),
        }
    }
    Ok(out)
}

/// A dotted IPv4 address (`0.0.0.0`, `127.0.0.1`).
fn is_ipv4(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    parts.len() == 4
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 3 && p.parse::<u8>().is_ok())
}

/// A pod's container port number by name (`util.LookupContainerPortNumberByName`).
fn named_port(pod: &Pod, name: &str) -> Result<u16, String> {
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    pod.spec
        .iter()
        .flat_map(|s| s.containers.iter())
        .flat_map(|c| c.ports.iter().flatten())
        .find(|p| p.name.as_deref() == Some(name))
        .and_then(|p| u16::try_from(p.container_port).ok())
        .ok_or_else(|| format!("error: Pod '{pod_name}' does not have a named port '{name}'"))
}

/// The pod's port a Service's port reaches (`translateServicePortToTargetPort`).
fn service_target(svc: &Service, pod: &Pod, remote: &str) -> Result<u16, String> {
    let svc_name = svc.metadata.name.clone().unwrap_or_default();
    let spec = svc.spec.clone().unwrap_or_default();
    let ports = spec.ports.unwrap_or_default();
    let number: i32 = match remote.parse::<i32>() {
        Ok(n) => n,
        Err(_) => ports
            .iter()
            .find(|p| p.name.as_deref() == Some(remote))
            .map(|p| p.port)
            .ok_or_else(|| {
                format!("error: Service '{svc_name}' does not have a named port '{remote}'")
            })?,
    };
    let Some(port) = ports.iter().find(|p| p.port == number) else {
        return Err(format!(
            "error: Service {svc_name} does not have a service port {number}"
        ));
    };
    if spec.cluster_ip.as_deref() == Some("None") {
        return u16::try_from(number).map_err(|_| bad_remote(remote));
    }
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    match &port.target_port {
        None | Some(IntOrString::Int(0)) => {
            u16::try_from(port.port).map_err(|_| bad_remote(remote))
        }
        Some(IntOrString::Int(n)) => u16::try_from(*n).map_err(|_| bad_remote(remote)),
        Some(IntOrString::String(name)) => named_port(pod, name),
    }
}

/// kubectl's words for a forward the cluster refuses.
fn refusal(pod: &str, e: ForwardError) -> String {
    match e {
        ForwardError::NotFound => format!("Error from server (NotFound): pods \"{pod}\" not found"),
        ForwardError::NotRunning(phase) => format!(
            "error: unable to forward port because pod is not running. Current status={phase}"
        ),
        ForwardError::InUse => "error: unable to listen on any of the requested ports".into(),
    }
}

fn bad_remote(remote: &str) -> String {
    format!("error: Error parsing remote port '{remote}': strconv.ParseUint: parsing \"{remote}\": value out of range")
}

/// A port number as client-go's `parsePorts` reads it.
fn parse_number(what: &str, text: &str) -> Result<u16, String> {
    text.parse::<u16>().map_err(|_| {
        let why = if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            "value out of range"
        } else {
            "invalid syntax"
        };
        format!("error: Error parsing {what} port '{text}': strconv.ParseUint: parsing \"{text}\": {why}")
    })
}

pub(crate) fn run(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    args: &[String],
    proxies: &BTreeSet<u16>,
) -> CommandOutput {
    match forward(cluster, ctx, args, proxies) {
        Ok(out) => out,
        Err(e) => CommandOutput::error(e),
    }
}

fn forward(
    cluster: &mut Cluster,
    ctx: &Context<'_>,
    args: &[String],
    proxies: &BTreeSet<u16>,
) -> Result<CommandOutput, String> {
    let mut flags = parse_flags(args)?;
    if flags.words.first().map(String::as_str) == Some("port-forward") {
        flags.words.remove(0);
    }
    if flags.words.len() < 2 {
        return Err(format!(
            "error: TYPE/NAME and list of ports are required for port-forward\n{USAGE}"
        ));
    }
    let namespace = flags
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    let target = flags.words[0].clone();
    let (pod_name, _) = crate::cmd::exec::pod_for_counted(cluster, &namespace, &target)?;
    crate::context::authorize(cluster, ctx, "get", Kind::Pod, &namespace, &pod_name)
        .map_err(|e| errors::render(&e, None))?;
    let pod = match cluster.get(Kind::Pod, &namespace, &pod_name) {
        Ok(Object::Pod(p)) => p,
        Ok(_) => return Err(format!("error: pods \"{pod_name}\" not found")),
        Err(e) => return Err(errors::render(&e, None)),
    };
    let service = match target.split_once('/') {
        Some(("service" | "services" | "svc", name)) => {
            match cluster.get(Kind::Service, &namespace, name) {
                Ok(Object::Service(s)) => Some(s),
                _ => None,
            }
        }
        _ => None,
    };
    let listen = listen_addresses(&flags.addresses)?;
    // Every port is resolved before anything listens.
    let mut pairs: Vec<(Option<u16>, u16)> = Vec::new();
    for spec in &flags.words[1..] {
        let (local, remote) = split_port(spec);
        if remote.is_empty() {
            return Err("error: remote port cannot be empty".into());
        }
        let remote_port = match &service {
            Some(svc) => service_target(svc, &pod, remote)?,
            None => match remote.parse::<u16>() {
                Ok(n) => n,
                Err(_) if remote.bytes().all(|b| b.is_ascii_digit()) => {
                    return Err(bad_remote(remote))
                }
                Err(_) => named_port(&pod, remote)?,
            },
        };
        if remote_port == 0 {
            return Err("error: Remote port must be > 0".into());
        }
        // A named remote port with no local port listens on the number it names.
        let local_port = match local {
            "" => None,
            l if l == remote && remote.parse::<u16>().is_err() => Some(remote_port),
            l => Some(parse_number("local", l)?),
        };
        pairs.push((local_port, remote_port));
    }
    cluster
        .forwardable(&namespace, &pod_name)
        .map_err(|e| refusal(&pod_name, e))?;
    let mut taken: BTreeSet<u16> = proxies.clone();
    taken.extend(cluster.port_forwards().map(|(p, _)| p));
    let mut chosen = Vec::new();
    for (local, remote) in &pairs {
        let port = match local {
            Some(p) => *p,
            None => (FIRST_RANDOM_PORT..=u16::MAX)
                .find(|p| !taken.contains(p))
                .ok_or("error: no free local port")?,
        };
        if !taken.insert(port) {
            let errs: Vec<String> = listen
                .iter()
                .map(|a| {
                    let family = if a.starts_with('[') { "tcp6" } else { "tcp4" };
                    format!("unable to create listener: Error listen {family} {a}:{port}: bind: address already in use")
                })
                .collect();
            let asked: Vec<String> = pairs
                .iter()
                .map(|(l, r)| format!("{{{} {r}}}", l.unwrap_or(0)))
                .collect();
            let mut out = CommandOutput::new();
            out.err_line(format!(
                "Unable to listen on port {port}: Listeners failed to create with the following errors: [{}]",
                errs.join(" ")
            ));
            out.fail(format!(
                "error: unable to listen on any of the requested ports: [{}]",
                asked.join(" ")
            ));
            return Ok(out);
        }
        chosen.push((port, *remote));
    }
    let mut out = CommandOutput::new();
    for (local, remote) in chosen {
        cluster
            .port_forward_open(&namespace, &pod_name, local, remote)
            .map_err(|e| refusal(&pod_name, e))?;
        for a in &listen {
            out.out_line(format!("Forwarding from {a}:{local} -> {remote}"));
        }
    }
    Ok(out)
}
