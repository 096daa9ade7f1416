//! `kubectl version` (k8s.io/kubectl/pkg/cmd/version/version.go): the client's
//! version, the kustomize built into it and the apiserver's version (`GET /version`,
//! which every user may read). The simulated kubectl is as new as the simulated
//! cluster. Simplified: `-o json|yaml` (build dates and commits) are not printed.

use crate::args::clap_error;
use crate::context::{CommandOutput, CONNECTION_REFUSED};
use clap::{ArgAction, Parser};
use warehouse_sim::{Cluster, KUBERNETES_VERSION};

/// The kustomize version the simulated kubectl reports as built in.
pub(crate) const KUSTOMIZE_VERSION: &str = "v5.7.1";

#[derive(Parser, Debug)]
#[command(no_binary_name = true, disable_help_flag = true)]
struct VersionArgs {
    /// `version` (cobra accepts and ignores further words).
    words: Vec<String>,
    #[arg(long = "client", action = ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    client: bool,
    #[arg(short = 'o', long = "output")]
    output: Option<String>,
}

pub(crate) fn run(cluster: &Cluster, args: &[String]) -> CommandOutput {
    let parsed = match VersionArgs::try_parse_from(args) {
        Ok(p) => p,
        Err(e) => return clap_error(e, Some("version"), args),
    };
    match parsed.output.as_deref() {
        None | Some("") => {}
        Some("json" | "yaml") => {
            return CommandOutput::error(
                "error: -o json|yaml is not available for version in this simulated cluster yet",
            )
        }
        Some(_) => return CommandOutput::error("error: --output must be 'yaml' or 'json'"),
    }
    let mut out = CommandOutput::new();
    out.out_line(format!("Client Version: {KUBERNETES_VERSION}"));
    out.out_line(format!("Kustomize Version: {KUSTOMIZE_VERSION}"));
    if parsed.client {
        return out;
    }
    if cluster.connect().is_err() {
        out.fail(CONNECTION_REFUSED);
        return out;
    }
    out.out_line(format!("Server Version: {KUBERNETES_VERSION}"));
    out
}
