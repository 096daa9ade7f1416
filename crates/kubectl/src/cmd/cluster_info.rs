//! `kubectl cluster-info` (k8s.io/kubectl/pkg/cmd/clusterinfo/clusterinfo.go): the
//! apiserver's address, then every kube-system Service labelled
//! `kubernetes.io/cluster-service=true` with its apiserver proxy URL (named after
//! its `kubernetes.io/name` label and its first port). Colours are not printed.
//! Simplified: `cluster-info dump` is not simulated.

use crate::args::clap_error;
use crate::context::{CommandOutput, Context};
use crate::errors;
use clap::Parser;
use warehouse_sim::{Cluster, Kind};

/// Where the simulated kubeconfig points kubectl.
pub(crate) const SERVER: &str = "https://127.0.0.1:6443";

#[derive(Parser, Debug)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct ClusterInfoArgs {
    /// `cluster-info`, optionally `dump`.
    words: Vec<String>,
    #[arg(short = 'n', long = "namespace")]
    namespace: Option<String>,
}

pub(crate) fn run(cluster: &Cluster, ctx: &Context<'_>, args: &[String]) -> CommandOutput {
    let parsed = match ClusterInfoArgs::try_parse_from(args) {
        Ok(p) => p,
        Err(e) => return clap_error(e, Some("cluster-info"), args),
    };
    match parsed.words.get(1).map(String::as_str) {
        None => {}
        Some("dump") => return CommandOutput::error(
            "error: \"kubectl cluster-info dump\" is not available in this simulated cluster yet",
        ),
        Some(other) => {
            return CommandOutput::error(format!(
                "error: unknown command \"{other}\" for \"kubectl cluster-info\""
            ))
        }
    }
    let ns = parsed
        .namespace
        .unwrap_or_else(|| "kube-system".to_string());
    let services = match crate::context::list(cluster, ctx, Kind::Service, Some(&ns))
        .and_then(|s| cluster.check_storage().map(|()| s))
    {
        Ok(s) => s,
        Err(e) => return CommandOutput::error(errors::render(&e, None)),
    };
    let mut out = CommandOutput::new();
    out.out_line(format!("Kubernetes control plane is running at {SERVER}"));
    for svc in services {
        let v = svc.to_json();
        if v["metadata"]["labels"]["kubernetes.io/cluster-service"].as_str() != Some("true") {
            continue;
        }
        let display = v["metadata"]["labels"]["kubernetes.io/name"]
            .as_str()
            .filter(|n| !n.is_empty())
            .unwrap_or(svc.name())
            .to_string();
        let ingress = v["status"]["loadBalancer"]["ingress"]
            .as_array()
            .and_then(|i| i.first());
        let link = match ingress {
            Some(i) => {
                let host = i["ip"]
                    .as_str()
                    .or_else(|| i["hostname"].as_str())
                    .unwrap_or_default();
                let port = v["spec"]["ports"][0]["port"].as_i64();
                match port {
                    Some(p) => format!("http://{host}:{p}"),
                    None => format!("http://{host}"),
                }
            }
            None => {
                let mut name = svc.name().to_string();
                if let Some(port) = v["spec"]["ports"][0]["name"]
                    .as_str()
                    .filter(|n| !n.is_empty())
                {
                    name = format!("{name}:{port}");
                }
                format!("{SERVER}/api/v1/namespaces/{ns}/services/{name}/proxy")
            }
        };
        out.out_line(format!("{display} is running at {link}"));
    }
    out.out_line("");
    out.out_line(
        "To further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.",
    );
    out
}
