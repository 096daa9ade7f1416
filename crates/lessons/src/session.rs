//! The cluster a lesson starts on: its seed, zones, settings and setup lines.

use crate::error::LessonError;
use crate::model::{Boot, Meta, NodeDef};
use warehouse_kubectl::shell::script::{self, Action};
use warehouse_kubectl::{FileSource, Session};
use warehouse_sim::apiserver::store::ObjectLimits;
use warehouse_sim::{Cluster, Kind, NodeSpec, SimDuration, Topology};

/// The most pods a lesson's cluster holds: a lesson runs in a browser tab, and the
/// largest of ours needs a few dozen. Past it the apiserver refuses new pods with
/// 403 (as at the whole simulation's `MAX_PODS`), and a setup or an answer that
/// reaches it is an author's error.
pub const MAX_LESSON_PODS: usize = 2_000;
/// The most objects of every kind (events included) a lesson's cluster holds.
pub const MAX_LESSON_OBJECTS: usize = 20_000;
/// The most simulated time a lesson's setup, or one answer block (a solution, a
/// near-miss, an alternative), may let pass: each simulated hour costs real work,
/// and a check waits at most an hour too.
pub const MAX_BLOCK_TIME: SimDuration = SimDuration::secs(3_600);

/// A zone of the front matter as the simulation's node spec; its checks are those of
/// `sim node add`.
pub(crate) fn node_spec(node: &NodeDef) -> Result<NodeSpec, String> {
    let mut line = format!("node add {}", node.name);
    if let Some(cpu) = &node.cpu {
        line.push_str(&format!(" --cpu {cpu}"));
    }
    if let Some(memory) = &node.memory {
        line.push_str(&format!(" --memory {memory}"));
    }
    if let Some(gpu) = node.gpu {
        line.push_str(&format!(" --gpu {gpu}"));
    }
    if !node.labels.is_empty() {
        let labels: Vec<String> = node
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        line.push_str(&format!(" --labels {}", labels.join(",")));
    }
    for t in &node.taints {
        line.push_str(&format!(" --taint {t}"));
    }
    if node.name.is_empty() || node.name.contains(char::is_whitespace) {
        return Err(format!("zone name {:?} is not valid", node.name));
    }
    match script::parse_sim(&line) {
        Action::AddNode(spec) => Ok(spec),
        Action::Invalid(e) => Err(format!(
            "zone {}: {}",
            node.name,
            e.trim_start_matches("error: ")
        )),
        _ => Err(format!("zone {:?} is not valid", node.name)),
    }
}

/// The topology of a lesson: the control-plane node, then its zones (or the default
/// three).
pub fn topology(meta: &Meta) -> Topology {
    let mut topology = Topology::default();
    if let Some(nodes) = &meta.topology {
        topology.nodes.retain(|n| n.control_plane);
        topology
            .nodes
            .extend(nodes.iter().filter_map(|n| node_spec(n).ok()));
    }
    if let Some(n) = meta.settings.etcd_members {
        topology = topology.with_etcd_members(n);
    }
    topology
}

/// A new cluster for the lesson, settled (up for a few minutes) unless it asks for a
/// cold boot.
pub fn cluster(meta: &Meta) -> Cluster {
    let boot = match meta.settings.boot {
        Boot::Settled => warehouse_sim::Boot::Settled,
        Boot::Cold => warehouse_sim::Boot::Cold,
    };
    let mut cluster = Cluster::new(meta.seed, topology(meta).with_boot(boot));
    if let Some(n) = meta.settings.max_endpoints_per_slice {
        // The range was checked when the front matter was read.
        let _ = cluster.set_max_endpoints_per_slice(n);
    }
    cluster.set_object_limits(ObjectLimits {
        pods: MAX_LESSON_PODS,
        objects: MAX_LESSON_OBJECTS,
    });
    cluster
}

/// Whether the cluster is still within what a lesson may make it hold; the error
/// says which limit it reached.
pub fn within_budget(cluster: &Cluster) -> Result<(), String> {
    let pods = cluster.kind_count(Kind::Pod);
    if pods >= MAX_LESSON_PODS {
        return Err(format!(
            "the cluster holds {pods} pods, the most a lesson's cluster may hold ({MAX_LESSON_PODS}): a lesson runs in a browser tab, keep it to tens of robots"
        ));
    }
    let objects = cluster.object_count();
    if objects >= MAX_LESSON_OBJECTS {
        return Err(format!(
            "the cluster holds {objects} objects, the most a lesson's cluster may hold ({MAX_LESSON_OBJECTS}): a lesson runs in a browser tab"
        ));
    }
    Ok(())
}

/// The simulated time a block's `sim advance` lines add up to, or the line of the
/// first that takes it past [`MAX_BLOCK_TIME`]: refused before anything runs.
pub(crate) fn time_past_limit(steps: &[script::Step]) -> Option<usize> {
    let mut total = SimDuration::ZERO;
    for s in steps {
        if let Action::Advance(d) = &s.action {
            total = total + *d;
            if total > MAX_BLOCK_TIME {
                return Some(s.line);
            }
        }
    }
    None
}

/// The error for a block that lets more than [`MAX_BLOCK_TIME`] pass.
pub(crate) fn too_long(what: &str) -> String {
    format!(
        "{what} lets more than {} of simulated time pass; a lesson's setup, or one of its answers, may let at most {} pass (a check can wait with `within:` instead)",
        fmt_duration(MAX_BLOCK_TIME),
        fmt_duration(MAX_BLOCK_TIME)
    )
}

/// A session on the lesson's cluster with its setup lines run. A setup line that
/// fails is an error at its line: the learner would arrive at a broken cluster.
pub fn start(file: &str, meta: &Meta, files: &dyn FileSource) -> Result<Session, LessonError> {
    let mut session = Session::new(cluster(meta));
    let text: String = meta.setup.iter().map(|(_, l)| format!("{l}\n")).collect();
    let first = meta.setup.first().map(|(l, _)| *l).unwrap_or(1);
    let steps = script::parse(&text).map_err(|e| {
        LessonError::new(file, first + e.line - 1, 0, format!("setup: {}", e.message))
    })?;
    if let Some(line) = time_past_limit(&steps) {
        return Err(LessonError::new(
            file,
            first + line - 1,
            0,
            format!("setup: {}", too_long("the setup")),
        ));
    }
    let started = session.cluster.now();
    for step in steps {
        let out = script::execute(&mut session, &step, files);
        let line = first + step.line - 1;
        if session.cluster.now().since(started) > MAX_BLOCK_TIME {
            return Err(LessonError::new(
                file,
                line,
                0,
                format!("setup: {}", too_long("the setup")),
            ));
        }
        if let Err(e) = within_budget(&session.cluster) {
            return Err(LessonError::new(
                file,
                line,
                0,
                format!("setup: after `{}`, {e}", step.command),
            ));
        }
        if out.code != 0 || matches!(step.action, Action::Invalid(_)) {
            return Err(LessonError::new(
                file,
                line,
                0,
                format!(
                    "setup: `{}` failed: {}",
                    step.command,
                    crate::check::short(&out.combined())
                ),
            ));
        }
    }
    Ok(session)
}

/// `1m30s`-style text for a duration.
pub fn fmt_duration(d: SimDuration) -> String {
    let ms = d.as_millis();
    if !ms.is_multiple_of(1000) {
        return format!("{ms}ms");
    }
    let s = ms / 1000;
    let (h, m, sec) = (s / 3600, (s / 60) % 60, s % 60);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if sec > 0 || out.is_empty() {
        out.push_str(&format!("{sec}s"));
    }
    out
}
