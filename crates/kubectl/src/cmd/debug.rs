//! `kubectl debug` (staging/src/k8s.io/kubectl/pkg/cmd/debug/debug.go and
//! profiles.go): debugging sessions for pods and nodes.
//!
//! - `kubectl debug POD --image=IMAGE [-it] [--target=C] [-c NAME] [-- CMD...]` adds
//!   an ephemeral container to the running pod through its
//!   `pods/ephemeralcontainers` subresource (named `debugger-xxxxx` unless `-c`
//!   says), then, with `-i` (or `--attach`), waits for it to run and attaches as
//!   `kubectl attach` does (`attach.rs`): a shell reading the terminal.
//! - `kubectl debug node/NAME --image=IMAGE -it` creates the pod
//!   `node-debugger-NAME-xxxxx` on that node, in the host's namespaces with the
//!   host's root at `/host` (as the general profile sets it up).
//! - `kubectl debug POD --copy-to=NEW [--image=IMAGE] [--set-image=C=IMG,...]
//!   [--share-processes] [--same-node] [--replace] [-c NAME] [-- CMD...]` creates a
//!   copy of the pod with a debug container added (or one of its containers changed).
//!
//! The profile (`--profile`, `general` by default since v1.36; `legacy` is
//! deprecated) sets the debug container's securityContext, the host namespaces and
//! what a copy keeps (`--keep-labels`, `--keep-annotations`, `--keep-liveness`,
//! `--keep-readiness`, `--keep-startup`, `--keep-init-containers`).
//! Simplified: `-f` and `--custom` are not supported; where kubectl waits for the
//! container until interrupted, the simulator stops after an hour of simulated
//! time, or at once when the pod has finished (its kubelet will never start it).

use crate::cmd::attach::{join_container, wait_for_container, Join};
use crate::context::{CommandOutput, Context};
use crate::errors;
use k8s_openapi::api::core::v1::{
    Capabilities, Container, EnvVar, EphemeralContainer, HostPathVolumeSource, Node, Pod, PodSpec,
    SeccompProfile, SecurityContext, Toleration, Volume, VolumeMount,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;
use warehouse_sim::apiserver::request::Body;
use warehouse_sim::{Kind, Object};

const PROFILES: [&str; 6] = [
    "legacy",
    "general",
    "baseline",
    "restricted",
    "netadmin",
    "sysadmin",
];

/// The flags of `kubectl debug`.
#[derive(Debug, Default)]
struct Flags {
    namespace: Option<String>,
    image: Option<String>,
    container: Option<String>,
    target: Option<String>,
    profile: Option<String>,
    copy_to: Option<String>,
    replace: bool,
    same_node: bool,
    share_processes: Option<bool>,
    set_images: BTreeMap<String, String>,
    env: BTreeMap<String, String>,
    pull_policy: Option<String>,
    stdin: bool,
    tty: bool,
    quiet: bool,
    attach: Option<bool>,
    args_only: bool,
    keep: Keep,
    /// The objects to debug (before `--`).
    names: Vec<String>,
    /// The command (after `--`).
    args: Vec<String>,
}

/// What a copy keeps (`KeepFlags`).
#[derive(Debug, Clone, Copy)]
struct Keep {
    labels: bool,
    annotations: bool,
    liveness: bool,
    readiness: bool,
    startup: bool,
    init_containers: bool,
}

impl Default for Keep {
    fn default() -> Self {
        Keep {
            labels: false,
            annotations: false,
            liveness: false,
            readiness: false,
            startup: false,
            init_containers: true,
        }
    }
}

fn usage_error(message: String) -> String {
    format!("{message}\nSee 'kubectl debug --help' for usage.")
}

fn parse_bool(flag: &str, v: &str) -> Result<bool, String> {
    match v {
        "true" | "1" | "t" | "T" | "TRUE" | "True" => Ok(true),
        "false" | "0" | "f" | "F" | "FALSE" | "False" => Ok(false),
        _ => Err(usage_error(format!(
            "error: invalid argument \"{v}\" for \"{flag}\" flag: strconv.ParseBool: parsing \"{v}\": invalid syntax"
        ))),
    }
}

/// pflag's `StringToString`: `a=b,c=d`.
fn parse_pairs(flag: &str, v: &str, into: &mut BTreeMap<String, String>) -> Result<(), String> {
    for pair in v.split(',').filter(|p| !p.is_empty()) {
        let Some((k, val)) = pair.split_once('=') else {
            return Err(usage_error(format!(
                "error: invalid argument \"{v}\" for \"{flag}\" flag: {pair} must be formatted as key=value"
            )));
        };
        into.insert(k.to_string(), val.to_string());
    }
    Ok(())
}

fn parse(args: &[String]) -> Result<Flags, String> {
    let mut f = Flags::default();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            f.args = args[i + 1..].to_vec();
            break;
        }
        let (flag, inline) = match a.split_once('=') {
            Some((fl, v)) if fl.starts_with('-') => (fl, Some(v.to_string())),
            _ => (a, None),
        };
        let value = |i: &mut usize| -> Result<String, String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            *i += 1;
            args.get(*i).cloned().ok_or_else(|| {
                usage_error(format!(
                    "error: flag needs an argument: {}",
                    if flag.starts_with("--") {
                        flag.to_string()
                    } else {
                        format!("'{}' in {flag}", flag.trim_start_matches('-'))
                    }
                ))
            })
        };
        let boolean = |flag: &str| match &inline {
            Some(v) => parse_bool(flag.trim_start_matches('-'), v),
            None => Ok(true),
        };
        match flag {
            "-n" | "--namespace" => f.namespace = Some(value(&mut i)?),
            "--image" => f.image = Some(value(&mut i)?),
            "-c" | "--container" => f.container = Some(value(&mut i)?),
            "--target" => f.target = Some(value(&mut i)?),
            "--profile" => f.profile = Some(value(&mut i)?),
            "--copy-to" => f.copy_to = Some(value(&mut i)?),
            "--image-pull-policy" => f.pull_policy = Some(value(&mut i)?),
            "--set-image" => parse_pairs("set-image", &value(&mut i)?, &mut f.set_images)?,
            "--env" => parse_pairs("env", &value(&mut i)?, &mut f.env)?,
            "--replace" => f.replace = boolean(flag)?,
            "--same-node" => f.same_node = boolean(flag)?,
            "--share-processes" => f.share_processes = Some(boolean(flag)?),
            "--attach" => f.attach = Some(boolean(flag)?),
            "--arguments-only" => f.args_only = boolean(flag)?,
            "-i" | "--stdin" => f.stdin = boolean(flag)?,
            "-t" | "--tty" => f.tty = boolean(flag)?,
            "-q" | "--quiet" => f.quiet = boolean(flag)?,
            "--keep-labels" => f.keep.labels = boolean(flag)?,
            "--keep-annotations" => f.keep.annotations = boolean(flag)?,
            "--keep-liveness" => f.keep.liveness = boolean(flag)?,
            "--keep-readiness" => f.keep.readiness = boolean(flag)?,
            "--keep-startup" => f.keep.startup = boolean(flag)?,
            "--keep-init-containers" => f.keep.init_containers = boolean(flag)?,
            "-f" | "--filename" | "--custom" => {
                return Err(format!(
                    "error: {flag} is not supported by this simulated kubectl debug: name the pod or node"
                ))
            }
            _ if flag.starts_with("--") => {
                return Err(usage_error(format!("error: unknown flag: {flag}")))
            }
            _ if flag.starts_with('-') && flag.len() > 1 => {
                // Clustered shorthands (`-it`, `-itq`), or `-nNS`, `-cNAME`.
                let letters = &flag[1..];
                if let Some(rest) = letters.strip_prefix('n') {
                    f.namespace = Some(rest.to_string());
                } else if let Some(rest) = letters.strip_prefix('c') {
                    f.container = Some(rest.to_string());
                } else {
                    for ch in letters.chars() {
                        match ch {
                            'i' => f.stdin = true,
                            't' => f.tty = true,
                            'q' => f.quiet = true,
                            other => {
                                return Err(usage_error(format!(
                                    "error: unknown shorthand flag: '{other}' in {flag}"
                                )))
                            }
                        }
                    }
                }
            }
            _ => f.names.push(a.to_string()),
        }
        i += 1;
    }
    if f.names.first().map(String::as_str) == Some("debug") {
        f.names.remove(0);
    }
    Ok(f)
}

/// The distribution reference grammar's check of `--image` and `--set-image`.
fn valid_image(image: &str) -> bool {
    crate::cmd::run::valid_image(image)
}

/// `Complete` and `Validate`: the first error, in upstream's order, or the notes
/// validation prints.
fn validate(f: &Flags, out: &mut CommandOutput) -> Result<(), String> {
    let profile = f.profile.as_deref().unwrap_or("general");
    if !PROFILES.contains(&profile) {
        return Err(format!("error: unknown profile: {profile}"));
    }
    let image = f.image.as_deref().unwrap_or("");
    let attach = f.attach.unwrap_or(f.stdin);
    if attach && f.attach.is_some() && image.is_empty() && f.container.is_none() {
        return Err("error: you must specify --container or create a new container using --image in order to attach.".into());
    }
    if f.copy_to.is_some() {
        if image.is_empty() && f.set_images.is_empty() && f.args.is_empty() {
            return Err(
                "error: you must specify --image, --set-image or command arguments.".into(),
            );
        }
        if !f.args.is_empty() && f.container.is_none() && image.is_empty() {
            return Err(
                "error: you must specify an existing container or a new image when specifying args."
                    .into(),
            );
        }
    } else if f.replace {
        return Err("error: --replace may only be used with --copy-to.".into());
    } else if f.same_node {
        return Err("error: --same-node may only be used with --copy-to.".into());
    } else if !f.set_images.is_empty() {
        return Err("error: --set-image may only be used with --copy-to.".into());
    } else if image.is_empty() {
        return Err("error: you must specify --image when not using --copy-to.".into());
    }
    if !image.is_empty() && !valid_image(image) {
        return Err(format!(
            "error: invalid image name \"{image}\": invalid reference format"
        ));
    }
    if f.names.is_empty() {
        return Err("error: NAME or filename is required for debug".into());
    }
    if let Some(p) = f.pull_policy.as_deref() {
        if !matches!(p, "Always" | "IfNotPresent" | "Never" | "") {
            return Err(format!("error: invalid image pull policy: {p}"));
        }
    }
    for (name, image) in &f.set_images {
        if !valid_image(image) {
            return Err(format!(
                "error: invalid image name \"{image}\" for container \"{name}\": invalid reference format"
            ));
        }
    }
    if let Some(t) = f.target.as_deref().filter(|t| !t.is_empty()) {
        if f.copy_to.is_some() {
            return Err(
                "error: --target is incompatible with --copy-to. Use --share-processes instead."
                    .into(),
            );
        }
        if !f.quiet {
            out.out_line(format!("Targeting container \"{t}\". If you don't see processes from this container it may be because the container runtime doesn't support this feature."));
        }
    }
    if f.tty && !f.stdin {
        return Err("error: -i/--stdin is required for containers with -t/--tty=true".into());
    }
    if profile == "legacy" {
        out.err_line("--profile=legacy is deprecated and will be removed in the future. It is recommended to explicitly specify a profile, for example \"--profile=general\".");
    }
    Ok(())
}

/// `kubectl debug`.
pub(crate) fn run(
    session: &mut crate::Session,
    ctx: &Context<'_>,
    args: &[String],
) -> CommandOutput {
    let f = match parse(args) {
        Ok(f) => f,
        Err(e) => return CommandOutput::error(e),
    };
    let mut out = CommandOutput::new();
    if let Err(e) = validate(&f, &mut out) {
        out.fail(e);
        return out;
    }
    let ns = f
        .namespace
        .clone()
        .unwrap_or_else(|| ctx.default_namespace.clone());
    for name in f.names.clone() {
        let visited = visit(session, ctx, &f, &ns, &name, &mut out);
        let (pod_ns, pod, container) = match visited {
            Ok(v) => v,
            Err(e) => {
                out.fail(e);
                return out;
            }
        };
        let attach = f.attach.unwrap_or(f.stdin);
        if !attach || container.is_empty() {
            continue;
        }
        match wait_for_container(
            &mut session.cluster,
            &pod_ns,
            &pod,
            &container,
            f.quiet,
            &mut out,
        ) {
            Err(e) => {
                out.fail(e);
                return out;
            }
            Ok(false) => {
                // Finished already: its log instead (`logOpts`).
                let args: Vec<String> = ["logs", &pod, "-c", &container, "-n", &pod_ns]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                let log = session.run_args(&args, None, &crate::NoFiles);
                out.stdout.push_str(&log.stdout);
            }
            Ok(true) => {
                let resume = session
                    .cluster
                    .get(Kind::Pod, &pod_ns, &pod)
                    .ok()
                    .and_then(|o| match o {
                        Object::Pod(p) => p.spec.and_then(|s| s.restart_policy),
                        _ => None,
                    })
                    .is_none_or(|r| r == "Always");
                let join = Join {
                    stdin: f.stdin,
                    tty: f.tty,
                    quiet: f.quiet,
                    resume,
                };
                join_container(session, &pod_ns, &pod, &container, join, &mut out);
                if session.shell.inside.is_some() {
                    return out;
                }
            }
        }
    }
    out
}

/// The object `name` names (`POD`, `pod/NAME`, `node/NAME`), debugged: the pod to
/// attach to, its namespace, and the debug container (empty when there is none).
fn visit(
    session: &mut crate::Session,
    ctx: &Context<'_>,
    f: &Flags,
    ns: &str,
    name: &str,
    out: &mut CommandOutput,
) -> Result<(String, String, String), String> {
    let (kind, object_name) = match name.split_once('/') {
        None => (Kind::Pod, name),
        Some((k, n)) => match Kind::lookup(k) {
            Some(kind) => (kind, n),
            None => {
                return Err(format!(
                    "error: the server doesn't have a resource type \"{k}\""
                ))
            }
        },
    };
    let cluster = &mut session.cluster;
    let obj_ns = if kind.namespaced() { ns } else { "" };
    let obj = crate::context::get(cluster, ctx, kind, obj_ns, object_name)
        .map_err(|e| errors::render(&e, None))?;
    match obj {
        Object::Pod(pod) if f.copy_to.is_some() => debug_by_copy(session, ctx, f, &pod, out),
        Object::Pod(pod) => debug_by_ephemeral(session, ctx, f, &pod, out),
        Object::Node(node) => debug_node(session, ctx, f, ns, &node, out),
        other => {
            let kind = other.kind();
            let api_version = kind.api_version();
            let version = api_version.rsplit('/').next().unwrap_or("v1");
            Err(format!(
                "error: \"{}/{version}, Kind={}\" not supported by debug",
                kind.group(),
                kind.as_str()
            ))
        }
    }
}

/// Every container name of the pod (`containerNameToRef`).
fn container_names(spec: &PodSpec) -> Vec<String> {
    spec.containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .map(|c| c.name.clone())
        .chain(
            spec.ephemeral_containers
                .iter()
                .flatten()
                .map(|c| c.name.clone()),
        )
        .collect()
}

/// `computeDebugContainerName`: `-c`, else `debugger-` and 5 random characters not
/// taken in the pod, announced unless `-q`.
fn debug_container_name(
    session: &mut crate::Session,
    f: &Flags,
    spec: &PodSpec,
    out: &mut CommandOutput,
) -> String {
    if let Some(c) = f.container.clone() {
        return c;
    }
    let taken = container_names(spec);
    let name = loop {
        let candidate = format!("debugger-{}", session.cluster.random_suffix(5));
        if !taken.contains(&candidate) {
            break candidate;
        }
    };
    if !f.quiet {
        out.out_line(format!("Defaulting debug container name to {name}."));
    }
    name
}

fn env_of(f: &Flags) -> Option<Vec<EnvVar>> {
    (!f.env.is_empty()).then(|| {
        f.env
            .iter()
            .map(|(k, v)| EnvVar {
                name: k.clone(),
                value: Some(v.clone()),
                ..Default::default()
            })
            .collect()
    })
}

/// The debug container `f` describes (`generateDebugContainer`'s fields).
fn debug_container(f: &Flags, name: &str) -> Container {
    let mut c = Container {
        name: name.to_string(),
        env: env_of(f),
        image: f.image.clone().filter(|i| !i.is_empty()),
        image_pull_policy: f.pull_policy.clone().filter(|p| !p.is_empty()),
        stdin: f.stdin.then_some(true),
        termination_message_policy: Some("File".into()),
        tty: f.tty.then_some(true),
        ..Default::default()
    };
    set_command(&mut c, f);
    c
}

fn set_command(c: &mut Container, f: &Flags) {
    if f.args.is_empty() {
        return;
    }
    if f.args_only {
        c.args = Some(f.args.clone());
    } else {
        c.command = Some(f.args.clone());
        c.args = None;
    }
}

fn add_capabilities(c: &mut Container, caps: &[&str]) {
    let sc = c.security_context.get_or_insert_with(Default::default);
    let cap = sc.capabilities.get_or_insert_with(Capabilities::default);
    cap.add
        .get_or_insert_with(Vec::new)
        .extend(caps.iter().map(|s| s.to_string()));
}

/// The debug container's securityContext as `profile` sets it (profiles.go).
fn apply_container_profile(c: &mut Container, profile: &str, node: bool) {
    match profile {
        "general" if node => c.security_context = None,
        "general" => add_capabilities(c, &["SYS_PTRACE"]),
        "baseline" => c.security_context = None,
        "restricted" => {
            c.security_context = Some(SecurityContext {
                run_as_non_root: Some(true),
                capabilities: Some(Capabilities {
                    drop: Some(vec!["ALL".into()]),
                    add: None,
                }),
                allow_privilege_escalation: Some(false),
                seccomp_profile: Some(SeccompProfile {
                    type_: "RuntimeDefault".into(),
                    localhost_profile: None,
                }),
                ..Default::default()
            })
        }
        "netadmin" => add_capabilities(c, &["NET_ADMIN", "NET_RAW"]),
        "sysadmin" => {
            c.security_context
                .get_or_insert_with(Default::default)
                .privileged = Some(true)
        }
        _ => {}
    }
}

fn to_ephemeral(c: Container, target: Option<String>) -> EphemeralContainer {
    let mut v = serde_json::to_value(&c).unwrap_or_default();
    if let (Some(t), Some(m)) = (target.filter(|t| !t.is_empty()), v.as_object_mut()) {
        m.insert("targetContainerName".into(), serde_json::Value::String(t));
    }
    serde_json::from_value(v).unwrap_or_else(|_| EphemeralContainer {
        name: c.name.clone(),
        image: c.image.clone(),
        ..Default::default()
    })
}

/// `debugByEphemeralContainer`: the pod with one more ephemeral container, sent to
/// its `ephemeralcontainers` subresource.
fn debug_by_ephemeral(
    session: &mut crate::Session,
    ctx: &Context<'_>,
    f: &Flags,
    pod: &Pod,
    out: &mut CommandOutput,
) -> Result<(String, String, String), String> {
    let spec = pod.spec.clone().unwrap_or_default();
    let name = debug_container_name(session, f, &spec, out);
    let mut c = debug_container(f, &name);
    apply_container_profile(&mut c, f.profile.as_deref().unwrap_or("general"), false);
    let mut debug_pod = pod.clone();
    if let Some(s) = debug_pod.spec.as_mut() {
        s.ephemeral_containers
            .get_or_insert_with(Vec::new)
            .push(to_ephemeral(c, f.target.clone()));
    }
    let body = Body::Patch {
        object: Object::Pod(Box::new(debug_pod)),
        subresource: Some("ephemeralcontainers".into()),
    };
    let result = crate::context::send(&mut session.cluster, ctx, body)
        .map_err(|e| errors::render(&e, None))?;
    Ok((
        result.namespace().to_string(),
        result.name().to_string(),
        name,
    ))
}

fn use_host_namespaces(spec: &mut PodSpec, on: bool) {
    spec.host_network = Some(on);
    spec.host_pid = Some(on);
    spec.host_ipc = Some(on);
}

/// `mountRootPartition`: the host's `/` at `/host` in the debug container.
fn mount_root(spec: &mut PodSpec, container: &str) {
    spec.volumes.get_or_insert_with(Vec::new).push(Volume {
        name: "host-root".into(),
        host_path: Some(HostPathVolumeSource {
            path: "/".into(),
            type_: None,
        }),
        ..Default::default()
    });
    if let Some(c) = spec.containers.iter_mut().find(|c| c.name == container) {
        c.volume_mounts
            .get_or_insert_with(Vec::new)
            .push(VolumeMount {
                mount_path: "/host".into(),
                name: "host-root".into(),
                ..Default::default()
            });
    }
}

/// `generateNodeDebugPod`: a pod on the node, in its namespaces as the profile says.
fn debug_node(
    session: &mut crate::Session,
    ctx: &Context<'_>,
    f: &Flags,
    ns: &str,
    node: &Node,
    out: &mut CommandOutput,
) -> Result<(String, String, String), String> {
    let cn = f.container.clone().unwrap_or_else(|| "debugger".into());
    let node_name = node.metadata.name.clone().unwrap_or_default();
    let pn = format!(
        "node-debugger-{node_name}-{}",
        session.cluster.random_suffix(5)
    );
    if !f.quiet {
        out.out_line(format!(
            "Creating debugging pod {pn} with container {cn} on node {node_name}."
        ));
    }
    let mut spec = PodSpec {
        containers: vec![debug_container(f, &cn)],
        node_name: Some(node_name),
        restart_policy: Some("Never".into()),
        tolerations: Some(vec![Toleration {
            operator: Some("Exists".into()),
            ..Default::default()
        }]),
        ..Default::default()
    };
    let profile = f.profile.as_deref().unwrap_or("general");
    if let Some(c) = spec.containers.first_mut() {
        apply_container_profile(c, profile, true);
    }
    match profile {
        "legacy" | "general" | "sysadmin" => {
            mount_root(&mut spec, &cn);
            use_host_namespaces(&mut spec, true);
        }
        "netadmin" => use_host_namespaces(&mut spec, true),
        _ => {}
    }
    let pod = Pod {
        metadata: ObjectMeta {
            name: Some(pn),
            namespace: Some(ns.to_string()),
            labels: Some(BTreeMap::from([(
                "app.kubernetes.io/managed-by".to_string(),
                "kubectl-debug".to_string(),
            )])),
            ..Default::default()
        },
        spec: Some(spec),
        status: None,
    };
    let created = crate::context::send(
        &mut session.cluster,
        ctx,
        Body::Create(Object::Pod(Box::new(pod))),
    )
    .map_err(|e| errors::render(&e, None))?;
    Ok((
        created.namespace().to_string(),
        created.name().to_string(),
        cn,
    ))
}

/// `generatePodCopyWithDebugContainer` and `debugByCopy`: the copy is created (and
/// the original deleted at once with `--replace`).
fn debug_by_copy(
    session: &mut crate::Session,
    ctx: &Context<'_>,
    f: &Flags,
    pod: &Pod,
    out: &mut CommandOutput,
) -> Result<(String, String, String), String> {
    let ns = pod.metadata.namespace.clone().unwrap_or_default();
    let mut spec = pod.spec.clone().unwrap_or_default();
    spec.ephemeral_containers = None;
    if let Some(share) = f.share_processes {
        spec.share_process_namespace = Some(share);
    }
    if !f.same_node {
        spec.node_name = None;
    }
    for c in spec.containers.iter_mut() {
        let over = f
            .set_images
            .get(&c.name)
            .or_else(|| f.set_images.get("*"))
            .filter(|i| !i.is_empty());
        if let Some(img) = over {
            c.image = Some(img.clone());
        }
    }
    let mut copy = Pod {
        metadata: ObjectMeta {
            name: f.copy_to.clone(),
            namespace: Some(ns.clone()),
            annotations: pod.metadata.annotations.clone(),
            labels: pod.metadata.labels.clone(),
            ..Default::default()
        },
        spec: None,
        status: None,
    };
    let existing = f.container.clone().filter(|n| {
        spec.containers.iter().any(|c| &c.name == n)
            || spec.init_containers.iter().flatten().any(|c| &c.name == n)
    });
    let name = match existing {
        Some(n) => n,
        None => {
            if f.image.as_deref().unwrap_or("").is_empty() {
                if !f.set_images.is_empty() {
                    copy.spec = Some(spec);
                    apply_copy_profile(&mut copy, f, "");
                    create_copy(session, ctx, f, pod, copy)?;
                    return Ok((ns, f.copy_to.clone().unwrap_or_default(), String::new()));
                }
                return Err("error: you must specify image when creating new container".into());
            }
            let name = debug_container_name(session, f, &spec, out);
            spec.containers.push(Container {
                name: name.clone(),
                termination_message_policy: Some("File".into()),
                ..Default::default()
            });
            name
        }
    };
    let c = spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut().flatten())
        .find(|c| c.name == name);
    if let Some(c) = c {
        set_command(c, f);
        if let Some(env) = env_of(f) {
            c.env = Some(env);
        }
        if let Some(img) = f.image.clone().filter(|i| !i.is_empty()) {
            c.image = Some(img);
        }
        if let Some(p) = f.pull_policy.clone().filter(|p| !p.is_empty()) {
            c.image_pull_policy = Some(p);
        }
        c.stdin = f.stdin.then_some(true);
        c.tty = f.tty.then_some(true);
    }
    copy.spec = Some(spec);
    apply_copy_profile(&mut copy, f, &name);
    create_copy(session, ctx, f, pod, copy)?;
    Ok((ns, f.copy_to.clone().unwrap_or_default(), name))
}

/// What the profile does to a copy (profiles.go's `podCopy` cases).
fn apply_copy_profile(copy: &mut Pod, f: &Flags, container: &str) {
    let profile = f.profile.as_deref().unwrap_or("general");
    let keep = f.keep;
    if profile == "legacy" {
        copy.metadata.labels = None;
        return;
    }
    if !keep.labels {
        copy.metadata.labels = None;
    }
    if !keep.annotations {
        copy.metadata.annotations = None;
    }
    let Some(spec) = copy.spec.as_mut() else {
        return;
    };
    for c in spec.containers.iter_mut() {
        if !keep.liveness {
            c.liveness_probe = None;
        }
        if !keep.readiness {
            c.readiness_probe = None;
        }
        if !keep.startup {
            c.startup_probe = None;
        }
    }
    if !keep.init_containers {
        spec.init_containers = None;
    }
    if spec.share_process_namespace.is_none() {
        spec.share_process_namespace = Some(true);
    }
    if let Some(c) = spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut().flatten())
        .find(|c| c.name == container)
    {
        apply_container_profile(c, profile, false);
    }
}

fn create_copy(
    session: &mut crate::Session,
    ctx: &Context<'_>,
    f: &Flags,
    original: &Pod,
    copy: Pod,
) -> Result<(), String> {
    crate::context::send(
        &mut session.cluster,
        ctx,
        Body::Create(Object::Pod(Box::new(copy))),
    )
    .map_err(|e| errors::render(&e, None))?;
    if f.replace {
        let key = warehouse_sim::ObjectKey::new(
            Kind::Pod,
            original.metadata.namespace.as_deref().unwrap_or_default(),
            original.metadata.name.as_deref().unwrap_or_default(),
        );
        let options = warehouse_sim::DeleteOptions {
            grace_period_seconds: Some(0),
            ..Default::default()
        };
        crate::context::send(
            &mut session.cluster,
            ctx,
            Body::Delete {
                key,
                options: Some(options),
            },
        )
        .map_err(|e| errors::render(&e, None))?;
    }
    Ok(())
}
