//! `kubectl exec`: a command run inside a running container.
//!
//! Mirrors the path of pods/exec: the apiserver dials the kubelet (port 10250), which
//! asks the runtime to exec in the container (`ExecSync`-like). The command sees the
//! container's environment and files: what the kubelet mounts (`/etc/resolv.conf`,
//! `/etc/hosts`, `/etc/hostname`, the service account's namespace file, configMap and
//! secret volumes) plus what the main process's shell wrote, and what the pod's data
//! volumes hold (`disk.rs`: the node's disk, with what the pod's other running
//! containers wrote there); the image's network tools (`nslookup`, see `dns.rs`) reach
//! the simulated network. What it writes under an emptyDir, hostPath or
//! PersistentVolume mount stays on the node's disk.
//!
//! Simplified: a command runs to completion (or for [`EXEC_TIMEOUT_MS`]) at the current
//! simulated instant; time does not pass for the rest of the cluster, and what it
//! writes elsewhere in the container does not outlive it.

use crate::cluster::Cluster;
use crate::error::{ApiError, StatusReason};
use crate::kubelet::runtime;
use crate::kubelet::shell::{End, ProgramOutput, Programs};
use crate::object::{Kind, Object, ObjectKey};
use k8s_openapi::api::core::v1::Pod;
use std::collections::BTreeMap;

/// How long an exec'd command may run before its output is returned.
pub const EXEC_TIMEOUT_MS: u64 = 60_000;

/// What an exec printed and its exit status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecOutput {
    pub text: String,
    pub code: i32,
}

/// Why an exec did not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecError {
    /// An error the apiserver returned.
    Api(ApiError),
    /// The stream could not be set up (kubectl prints `error: unable to upgrade connection: ...`).
    Upgrade(String),
}

/// Runs the HTTP clients of an image (`curl`, `wget`) for a request from a pod: the
/// caller (kubectl) owns their command-line grammar and output, the cluster the
/// request path ([`Cluster::http_request`]).
pub trait HttpTools {
    fn run(
        &self,
        cluster: &mut Cluster,
        from: &crate::network::http::RequestSource,
        argv: &[String],
    ) -> Option<ProgramOutput>;
}

/// No HTTP clients: `curl` and `wget` are not found.
pub struct NoHttpTools;

impl HttpTools for NoHttpTools {
    fn run(
        &self,
        _: &mut Cluster,
        _: &crate::network::http::RequestSource,
        _: &[String],
    ) -> Option<ProgramOutput> {
        None
    }
}

/// The image's network tools, run against the cluster.
struct NetTools<'a> {
    cluster: std::cell::RefCell<&'a mut Cluster>,
    pod: Pod,
    container: String,
    image: String,
    http: &'a dyn HttpTools,
}

impl Programs for NetTools<'_> {
    fn run(&self, argv: &[String], _env: &[(String, String)]) -> Option<ProgramOutput> {
        let exe = argv.first()?;
        let base = exe.rsplit('/').next().unwrap_or(exe);
        let info = crate::kubelet::images::lookup(&self.image)?;
        if !info.tools.contains(&base) {
            return None;
        }
        match base {
            "ps" => {
                // busybox's `ps`: the processes of the container's PID namespace,
                // then `ps` itself.
                let cluster = self.cluster.borrow();
                let mut procs = cluster.processes_seen_from(
                    self.pod.metadata.namespace.as_deref().unwrap_or_default(),
                    self.pod.metadata.name.as_deref().unwrap_or_default(),
                    &self.container,
                );
                let next = procs.last().map_or(1, |(pid, _)| pid + 6);
                procs.push((next, argv.join(" ")));
                let mut text = String::from("PID   USER     TIME  COMMAND\n");
                for (pid, command) in procs {
                    text.push_str(&format!("{pid:>5} {:<8} {:>5} {command}\n", "root", "0:00"));
                }
                Some(ProgramOutput { text, status: 0 })
            }
            "nslookup" => {
                let (text, status) =
                    self.cluster
                        .borrow()
                        .nslookup(&self.pod, &self.image, &argv[1..]);
                Some(ProgramOutput { text, status })
            }
            "curl" | "wget" => {
                let from = crate::network::http::RequestSource::Pod {
                    namespace: self.pod.metadata.namespace.clone().unwrap_or_default(),
                    name: self.pod.metadata.name.clone().unwrap_or_default(),
                };
                let mut cluster = self.cluster.borrow_mut();
                self.http.run(&mut cluster, &from, argv)
            }
            _ => None,
        }
    }
}

/// The hostname a pod's containers see (pkg/kubelet `GeneratePodHostNameAndDomain`):
/// the node's in the host's network namespace, else `spec.hostname` or the pod's name.
pub(crate) fn pod_hostname(pod: &Pod) -> String {
    let spec = pod.spec.as_ref();
    if spec.and_then(|s| s.host_network) == Some(true) {
        if let Some(node) = spec.and_then(|s| s.node_name.clone()) {
            return node;
        }
    }
    spec.and_then(|s| s.hostname.clone())
        .unwrap_or_else(|| pod.metadata.name.clone().unwrap_or_default())
}

impl Cluster {
    /// The files the kubelet gives a container.
    pub(crate) fn container_files(&self, pod: &Pod, container: &str) -> BTreeMap<String, String> {
        let namespace = pod.metadata.namespace.clone().unwrap_or_default();
        let spec = pod.spec.clone().unwrap_or_default();
        let mut files = BTreeMap::new();
        let image = spec
            .containers
            .iter()
            .chain(spec.init_containers.iter().flatten())
            .find(|c| c.name == container)
            .and_then(|c| c.image.clone())
            .or_else(|| {
                spec.ephemeral_containers
                    .iter()
                    .flatten()
                    .find(|c| c.name == container)
                    .and_then(|c| c.image.clone())
            })
            .unwrap_or_default();
        if let Some(info) = crate::kubelet::images::lookup(&image) {
            for (path, text) in info.files {
                files.insert(path.to_string(), text.to_string());
            }
        }
        let hostname = pod_hostname(pod);
        let ip = pod
            .status
            .as_ref()
            .and_then(|s| s.pod_ip.clone())
            .unwrap_or_default();
        files.insert("/etc/hostname".to_string(), format!("{hostname}\n"));
        files.insert(
            "/etc/resolv.conf".to_string(),
            crate::network::dns::resolv_conf(&namespace),
        );
        let fqdn = match &spec.subdomain {
            Some(sub) => format!(
                "{ip}\t{hostname}.{sub}.{namespace}.svc.{}\t{hostname}\n",
                crate::network::dns::CLUSTER_DOMAIN
            ),
            None => format!("{ip}\t{hostname}\n"),
        };
        files.insert(
            "/etc/hosts".to_string(),
            format!(
                "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n{fqdn}"
            ),
        );
        if spec.automount_service_account_token != Some(false) {
            files.insert(
                "/var/run/secrets/kubernetes.io/serviceaccount/namespace".to_string(),
                namespace.clone(),
            );
        }
        // The configMap and secret volumes come with the main process (`Process::
        // mounts`), as the kubelet last wrote them.
        files
    }

    /// Runs `argv` in `container` of a pod; `http` runs the image's HTTP clients.
    pub fn exec(
        &mut self,
        namespace: &str,
        pod_name: &str,
        container: &str,
        argv: &[String],
        http: &dyn HttpTools,
    ) -> Result<ExecOutput, ExecError> {
        let key = ObjectKey::new(Kind::Pod, namespace, pod_name);
        let Some(Object::Pod(pod)) = self.store.get(&key) else {
            return Err(ExecError::Api(ApiError::new(
                StatusReason::NotFound,
                format!("pods \"{pod_name}\" not found"),
            )));
        };
        let node = pod
            .spec
            .as_ref()
            .and_then(|s| s.node_name.clone())
            .unwrap_or_default();
        let kubelet = self.kubelets.get(&node);
        if kubelet.is_none_or(|k| !k.running || k.partitioned) {
            let ip = pod
                .status
                .as_ref()
                .and_then(|s| s.host_ip.clone())
                .unwrap_or_default();
            return Err(ExecError::Api(ApiError::new(
                StatusReason::Unknown,
                format!("error dialing backend: dial tcp {ip}:10250: connect: no route to host"),
            )));
        }
        let run = kubelet
            .and_then(|k| k.containers.get(&key))
            .and_then(|p| p.containers.get(container))
            .filter(|r| r.finished_ms.is_none());
        let Some(run) = run else {
            return Err(ExecError::Upgrade(format!(
                "container not found (\"{container}\")"
            )));
        };
        let main = run.process.clone();
        let pod = pod.clone();
        let probe = runtime::Process {
            argv: argv.to_vec(),
            ..main.clone()
        };
        if runtime::start_error(&probe).is_some() {
            let exe = argv.first().cloned().unwrap_or_default();
            let seed = format!("exec/{pod_name}/{container}/{}", self.now.0);
            let id: String = (0..8u32)
                .map(|i| {
                    format!(
                        "{:08x}",
                        crate::names::fnv32a(format!("{seed}/{i}").as_bytes())
                    )
                })
                .collect();
            return Err(ExecError::Api(ApiError::new(
                StatusReason::InternalError,
                format!(
                    "Internal error occurred: error executing command in container: failed to exec in container: failed to start exec \"{id}\": OCI runtime exec failed: exec failed: unable to start container process: exec: \"{exe}\": executable file not found in $PATH: unknown"
                ),
            )));
        }
        let mut base = self.container_files(&pod, container);
        base.extend(self.volume_files(&pod, container));
        let after = self.now.0.saturating_sub(main.started_ms);
        let files = runtime::files_at(&main, after, &base);
        let mounts = crate::kubelet::disk::data_mounts(self, &pod, container);
        let image = main.image.clone();
        let tools = NetTools {
            cluster: std::cell::RefCell::new(self),
            pod: *pod,
            container: container.to_string(),
            image,
            http,
        };
        let replay = runtime::exec_over(&main, argv, after, &files, &tools, EXEC_TIMEOUT_MS);
        drop(tools);
        // What it wrote to the container's volumes stays there; the rest of the
        // container's files are the runtime's copy, and go with the exec.
        if runtime::in_shell(&probe) {
            let writes = crate::kubelet::disk::changes(&mounts, &files, &replay.files);
            self.write_disk(&node, writes);
        }
        let mut text = String::new();
        for (_, line) in replay.lines {
            text.push_str(&line);
            text.push('\n');
        }
        let code = match replay.end {
            End::Exited { code, .. } => code,
            _ => 0,
        };
        Ok(ExecOutput { text, code })
    }
}

impl Cluster {
    /// Whether `container` of a pod runs now with an open stdin a session can attach
    /// to (`stdin: true`, not yet closed).
    pub fn attachable(&self, namespace: &str, pod_name: &str, container: &str) -> bool {
        self.attached_run(namespace, pod_name, container)
            .is_some_and(|(_, _, p)| p.stdin.as_ref().is_some_and(|s| s.closed.is_none()))
    }

    /// The node, pod uid and process of a container that runs now.
    fn attached_run(
        &self,
        namespace: &str,
        pod_name: &str,
        container: &str,
    ) -> Option<(String, String, &runtime::Process)> {
        let key = ObjectKey::new(Kind::Pod, namespace, pod_name);
        let Some(Object::Pod(pod)) = self.store.get(&key) else {
            return None;
        };
        let node = pod.spec.as_ref()?.node_name.clone()?;
        let uid = pod.metadata.uid.clone()?;
        let run = self.current_run(&node, &key, &uid, container)?;
        run.finished_ms
            .is_none()
            .then_some((node, uid, &run.process))
    }

    /// Ends the session attached to a container's stdin (`exit 3` typed after
    /// `kubectl run -i`): its shell exits now with `code`, and the kubelet handles
    /// the exit as any other (the restart policy, events). A `stdinOnce` stdin stays
    /// closed for that container; a restarted container gets a new one. Nothing
    /// happens when the container no longer runs.
    pub fn attach_end(&mut self, namespace: &str, pod_name: &str, container: &str, code: i32) {
        let Some((node, uid, _)) = self.attached_run(namespace, pod_name, container) else {
            return;
        };
        let key = ObjectKey::new(Kind::Pod, namespace, pod_name);
        let now = self.now.0;
        let Some(run) = self
            .pod_runtime_mut(&node, &key)
            .and_then(|p| p.containers.get_mut(container))
        else {
            return;
        };
        let started = run.process.started_ms;
        let Some(stdin) = run.process.stdin.as_mut().filter(|s| s.closed.is_none()) else {
            return;
        };
        stdin.closed = Some((now.saturating_sub(started), code));
        let (restarts, process, budget) = (run.restarts, run.process.clone(), run.budget);
        self.schedule_exit(&node, &key, &uid, container, restarts, &process, budget);
    }
}
