//! `minikube service NAME --url [-n NAMESPACE]`: the URLs a learner's laptop reaches a
//! NodePort or LoadBalancer Service at, one `http://NODE-IP:NODE-PORT` line per port,
//! as minikube prints them with a driver the laptop can reach directly (not Docker
//! Desktop, where minikube opens a tunnel on 127.0.0.1 instead). The node IP is
//! `minikube ip`'s.
//!
//! Simplified: only `--url` is simulated (without it minikube opens a browser), and
//! the messages are minikube's without their emoji.

use crate::context::CommandOutput;
use crate::Session;
use warehouse_sim::{Kind, Object};

const USAGE: &str = "minikube service: only `minikube service NAME --url [-n NAMESPACE]` is simulated here (it prints the Service's URLs; without --url minikube opens a browser)";

/// Runs `minikube service ARGS...` (the words after `service`).
pub(crate) fn run(session: &Session, args: &[String]) -> CommandOutput {
    let mut url = false;
    let mut namespace = "default".to_string();
    let mut names = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "--url" | "--url=true" => url = true,
            "-n" | "--namespace" => match args.get(i + 1) {
                Some(ns) => {
                    namespace = ns.clone();
                    i += 1;
                }
                None => return CommandOutput::error(format!("Error: flag needs an argument: {a}")),
            },
            _ if a.starts_with("--namespace=") => namespace = a["--namespace=".len()..].into(),
            _ if a.starts_with('-') => {
                return CommandOutput::error(format!("Error: unknown flag: {a}"))
            }
            _ => names.push(a.to_string()),
        }
        i += 1;
    }
    let [name] = names.as_slice() else {
        return CommandOutput::error(USAGE);
    };
    if !url {
        return CommandOutput::error(USAGE);
    }
    let service = match session.cluster.get(Kind::Service, &namespace, name) {
        Ok(Object::Service(s)) => s,
        _ => {
            return CommandOutput::error(format!(
                "Exiting due to SVC_NOT_FOUND: Service '{name}' was not found in '{namespace}' namespace.\nYou may select another namespace by using 'minikube service {name} -n <namespace>'. Or list out all the services using 'minikube service list'"
            ))
        }
    };
    let node_ports: Vec<i32> = service
        .spec
        .as_ref()
        .and_then(|s| s.ports.as_ref())
        .map(|ports| ports.iter().filter_map(|p| p.node_port).collect())
        .unwrap_or_default();
    if node_ports.is_empty() {
        return CommandOutput::error(format!("service {namespace}/{name} has no node port"));
    }
    let Some(ip) = crate::shell::outside::minikube_ip(session) else {
        return CommandOutput::error("minikube: no node of the cluster has an InternalIP address");
    };
    let mut out = CommandOutput::new();
    for port in node_ports {
        out.out_line(format!("http://{ip}:{port}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use warehouse_sim::{Cluster, Topology};

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    fn session_with_nodeport() -> Session {
        let mut s = Session::new(Cluster::new(1, Topology::default()));
        for line in [
            "create deployment web --image=nginx:1.27",
            "expose deployment/web --type=NodePort --port 80",
            "create service clusterip inner --tcp=80:80",
        ] {
            assert_eq!(
                s.run(line, None, &crate::context::NoFiles).code,
                0,
                "{line}"
            );
        }
        s
    }

    #[test]
    fn service_url_prints_the_node_ip_and_node_port() {
        let s = session_with_nodeport();
        let out = run(&s, &words("web --url"));
        assert_eq!(out.code, 0, "{}", out.stderr);
        let ip = crate::shell::outside::minikube_ip(&s).unwrap();
        assert!(
            out.stdout.starts_with(&format!("http://{ip}:")),
            "{}",
            out.stdout
        );
        assert_eq!(out.stdout.lines().count(), 1);
    }

    #[test]
    fn service_url_refuses_missing_services_and_cluster_ips() {
        let s = session_with_nodeport();
        let missing = run(&s, &words("nothing --url"));
        assert_ne!(missing.code, 0);
        assert!(missing
            .stderr
            .contains("SVC_NOT_FOUND: Service 'nothing' was not found in 'default' namespace."));
        let inner = run(&s, &words("inner --url"));
        assert!(inner
            .stderr
            .contains("service default/inner has no node port"));
        assert_ne!(run(&s, &words("web")).code, 0);
        assert_ne!(run(&s, &words("--url")).code, 0);
    }
}
