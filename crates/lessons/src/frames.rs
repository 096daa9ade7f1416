//! Interview walkthroughs: a ```` ```frame ```` step shows one moment of the
//! simulation's own record of a real run — a request the reception desk answered, or
//! a write stored in the ledger vault with who made it, what it reacted to and what it
//! changed. Nothing here is drawn from a script: the moments come from the change feed
//! (`Cluster::feed_since`), the trace (`Cluster::trace`) and etcd's watch history
//! (`Cluster::logged_write`), so a walkthrough shows what the simulation did.

use crate::model::{FrameSpec, FrameWhat};
use serde_json::Value;
use warehouse_sim::trace::Cause;
use warehouse_sim::views::feed::{component_name, Change, FeedEvent};
use warehouse_sim::{Cluster, CollectMap, CollectSet, StableSort};

/// The most diff lines a frame keeps; the rest are counted.
pub const MAX_DIFF_LINES: usize = 24;

/// The longest value a diff line shows; longer ones end in `…`.
pub const MAX_VALUE_CHARS: usize = 120;

/// Where a walkthrough's frames start: the simulated time and the change feed's
/// sequence number when the step before them opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    pub at_ms: u64,
    pub seq: u64,
}

/// One recorded moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Simulated milliseconds after the origin.
    pub after_ms: u64,
    /// The component that acted, as the floor names it (`replicaset-controller`,
    /// `kube-scheduler`, `kubelet:zone-a`); a learner's request is `kubernetes-admin`.
    pub actor: String,
    pub moment: Moment,
    /// Where the next frame starts looking (the feed's sequence number after this one).
    pub(crate) next_seq: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Moment {
    /// A request through the reception desk.
    Request {
        verb: String,
        /// `deployments/web`.
        target: String,
        namespace: String,
        code: u16,
        /// Each stage, its verdict and its modelled microseconds.
        stages: Vec<(String, bool, u32)>,
    },
    /// A write stored in etcd.
    Write {
        revision: u64,
        kind: String,
        namespace: String,
        name: String,
        change: Change,
        /// The components its watch was delivered to.
        notified: Vec<String>,
        /// Why it was made.
        cause: Why,
        /// What it changed, the frame's `field` first.
        diff: Vec<DiffLine>,
        /// Diff lines left out past [`MAX_DIFF_LINES`].
        more: usize,
        /// False when etcd's history no longer holds the object before the write.
        before_known: bool,
    },
}

/// Why a write was made, from the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// A request from a person (kubectl, the UI).
    Request,
    /// The cluster setting itself up.
    Bootstrap,
    /// A fault injected from outside (`sim node kill zone-b`).
    Fault(String),
    /// A component reacted to the watch event of an earlier write.
    Watch { component: String, read: Read },
    /// Timers fired (newest first), set when the chain began.
    Timer {
        timers: Vec<String>,
        origin: Box<Why>,
    },
    /// The trace no longer remembers it.
    Forgotten,
}

/// The write a component reacted to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Read {
    pub revision: u64,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// Who wrote it, as the floor names components.
    pub actor: String,
}

/// One changed field: `path` as dots and `[i]`, the old and new values as JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    pub path: String,
    pub old: Option<String>,
    pub new: Option<String>,
    /// Under the frame's `field`.
    pub focus: bool,
}

/// Why no moment matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Miss {
    /// Nothing matching has happened since the origin (or the previous frame).
    NotYet,
    /// The change feed dropped events since the origin: run the walkthrough again.
    Dropped,
    /// An earlier frame of the chain did not match.
    Earlier,
}

impl Moment {
    /// The object a write is about, as `Kind namespace/name` (`Kind name` when
    /// cluster-scoped); a request's target.
    pub fn object(&self) -> String {
        match self {
            Moment::Request { target, .. } => target.clone(),
            Moment::Write {
                kind,
                namespace,
                name,
                ..
            } if namespace.is_empty() => format!("{kind} {name}"),
            Moment::Write {
                kind,
                namespace,
                name,
                ..
            } => format!("{kind} {namespace}/{name}"),
        }
    }
}

impl Frame {
    /// The moment in plain English lines, as `warehouse lessons check --frames`
    /// prints it for authors.
    pub fn describe(&self) -> String {
        let mut out = format!("+{} ms  {}", self.after_ms, self.actor);
        match &self.moment {
            Moment::Request {
                verb,
                target,
                namespace,
                code,
                stages,
            } => {
                out.push_str(&format!(
                    "  request {verb} {target} in {namespace:?} → {code}\n"
                ));
                for (s, ok, us) in stages {
                    out.push_str(&format!(
                        "    {} {s} ({us} µs)\n",
                        if *ok { "ok" } else { "REFUSED" }
                    ));
                }
            }
            Moment::Write {
                revision,
                change,
                notified,
                cause,
                diff,
                more,
                before_known,
                ..
            } => {
                let object = self.moment.object();
                out.push_str(&format!(
                    "  write {} {object} at revision {revision}\n    why: {}\n    notified: {}\n",
                    change_name(*change),
                    cause.describe(),
                    notified.join(", ")
                ));
                if !before_known {
                    out.push_str("    (the object before it has left etcd's history)\n");
                }
                for d in diff {
                    out.push_str(&format!(
                        "    {}{}: {} → {}\n",
                        if d.focus { "* " } else { "" },
                        d.path,
                        d.old.as_deref().unwrap_or("∅"),
                        d.new.as_deref().unwrap_or("∅")
                    ));
                }
                if *more > 0 {
                    out.push_str(&format!("    … {more} more\n"));
                }
            }
        }
        out
    }
}

impl Why {
    pub fn describe(&self) -> String {
        match self {
            Why::Request => "a person's request".into(),
            Why::Bootstrap => "the cluster's bootstrap".into(),
            Why::Fault(f) => format!("the fault `{f}`"),
            Why::Watch { component, read } => format!(
                "{component} reacted to {} {}/{} (revision {}, written by {})",
                read.kind, read.namespace, read.name, read.revision, read.actor
            ),
            Why::Timer { timers, origin } => {
                format!(
                    "timer \"{}\" fired, set by {}",
                    timers.join("\" after \""),
                    origin.describe()
                )
            }
            Why::Forgotten => "forgotten by the trace".into(),
        }
    }
}

impl Frame {
    #[doc(hidden)]
    pub fn new_for_tests(after_ms: u64, actor: &str, moment: Moment) -> Frame {
        Frame {
            after_ms,
            actor: actor.to_string(),
            moment,
            next_seq: 0,
        }
    }
}

/// A user name as the floor names components.
pub fn station(user: &str) -> String {
    if let Some(c) = user.strip_prefix("system:serviceaccount:kube-system:") {
        return c.to_string();
    }
    if let Some(node) = user.strip_prefix("system:node:") {
        return format!("kubelet:{node}");
    }
    match user {
        "system:kube-scheduler" => "kube-scheduler".into(),
        "system:kube-controller-manager" => "kube-controller-manager".into(),
        other => other.to_string(),
    }
}

/// `*` matches any run of characters; everything else itself.
pub fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    if !text.ends_with(last) {
        return false;
    }
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

fn change_name(c: Change) -> &'static str {
    match c {
        Change::Added => "added",
        Change::Modified => "modified",
        Change::Deleted => "deleted",
    }
}

/// Resolves a chain of frames in order from `origin`: each is the first matching
/// moment after the one before it.
pub fn resolve(
    cluster: &Cluster,
    origin: Origin,
    specs: &[&FrameSpec],
) -> Vec<Result<Frame, Miss>> {
    let since = cluster.feed_since(origin.seq);
    let dropped = since.missed > 0;
    let first_seq = since.next - since.events.len() as u64;
    let events: Vec<&FeedEvent> = since.events.collect();
    let mut out = Vec::with_capacity(specs.len());
    let mut cursor = origin.seq.max(first_seq);
    let mut previous: Option<String> = None;
    let mut missed = false;
    for spec in specs {
        if missed {
            out.push(Err(Miss::Earlier));
            continue;
        }
        let start = (cursor - first_seq) as usize;
        let found = events
            .iter()
            .enumerate()
            .skip(start)
            .filter(|(_, e)| e.at_ms() >= origin.at_ms)
            .find_map(|(i, e)| {
                frame_of(cluster, spec, e, previous.as_deref()).map(|(actor, moment)| Frame {
                    after_ms: e.at_ms() - origin.at_ms,
                    actor,
                    moment,
                    next_seq: first_seq + i as u64 + 1,
                })
            });
        match found {
            Some(f) => {
                cursor = f.next_seq;
                previous = Some(match &f.moment {
                    Moment::Request { target, .. } => {
                        target.rsplit('/').next().unwrap_or_default().to_string()
                    }
                    Moment::Write { name, .. } => name.clone(),
                });
                out.push(Ok(f));
            }
            None => {
                missed = true;
                out.push(Err(if dropped { Miss::Dropped } else { Miss::NotYet }));
            }
        }
    }
    out
}

/// The recorded moments from `seq` on (at or after `at_ms`), one line each as a
/// frame would select them: what `lessons check` lists when a frame matches nothing.
pub fn listing(cluster: &Cluster, origin: Origin, limit: usize) -> Vec<String> {
    cluster
        .feed_since(origin.seq)
        .events
        .filter(|e| e.at_ms() >= origin.at_ms)
        .filter_map(|e| match e {
            FeedEvent::Request {
                user,
                verb,
                target,
                code,
                ..
            } => Some(format!(
                "+{}ms request: {verb}  name: {target}  actor: {}  ({code})",
                e.at_ms() - origin.at_ms,
                station(user)
            )),
            FeedEvent::Write {
                actor,
                kind,
                name,
                change,
                notified,
                ..
            } => Some(format!(
                "+{}ms write: {}  kind: {kind}  name: {name}  actor: {}  notified: [{}]",
                e.at_ms() - origin.at_ms,
                change_name(*change),
                station(actor),
                notified.join(", ")
            )),
            FeedEvent::Order { .. } => None,
        })
        .take(limit)
        .collect()
}

/// The moment `event` shows, if it matches `spec`.
fn frame_of(
    cluster: &Cluster,
    spec: &FrameSpec,
    event: &FeedEvent,
    previous: Option<&str>,
) -> Option<(String, Moment)> {
    let actor_ok = |actor: &str| spec.actor.as_deref().is_none_or(|p| glob(p, actor));
    // `name` is the object's name, or a request's target (`pods/web`): `same`
    // compares the object's name with the frame before's, a glob the whole text.
    let name_ok = |text: &str| match spec.name.as_deref() {
        None => true,
        Some("same") => previous == text.rsplit('/').next(),
        Some(p) => glob(p, text),
    };
    match (&spec.what, event) {
        (
            FrameWhat::Request { verb },
            FeedEvent::Request {
                user,
                verb: v,
                target,
                namespace,
                code,
                stages,
                ..
            },
        ) => {
            let actor = station(user);
            let ok = verb.as_deref().is_none_or(|x| x == *v) && actor_ok(&actor) && name_ok(target);
            ok.then(|| {
                (
                    actor,
                    Moment::Request {
                        verb: v.to_string(),
                        target: target.clone(),
                        namespace: namespace.clone(),
                        code: *code,
                        stages: stages
                            .iter()
                            .map(|(s, ok, us)| (s.to_string(), *ok, *us))
                            .collect(),
                    },
                )
            })
        }
        (
            FrameWhat::Write { kind, change },
            FeedEvent::Write {
                revision,
                actor,
                kind: k,
                namespace,
                name,
                change: c,
                notified,
                ..
            },
        ) => {
            let actor = station(actor);
            if *k != kind.as_str()
                || change.as_deref().is_some_and(|x| x != change_name(*c))
                || !actor_ok(&actor)
                || !name_ok(name)
                || spec
                    .notified
                    .as_deref()
                    .is_some_and(|n| !notified.iter().any(|x| glob(n, x)))
            {
                return None;
            }
            let (diff, before_known) = diff_of(cluster, *revision, *c);
            let focus = |path: &str| {
                spec.field.as_deref().is_some_and(|f| {
                    path == f
                        || path
                            .strip_prefix(f)
                            .is_some_and(|r| r.starts_with('.') || r.starts_with('['))
                })
            };
            let to_ok = |d: &DiffLine| {
                spec.to.as_deref().is_none_or(|want| {
                    d.new.as_deref().is_some_and(|v| {
                        v == want
                            || v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) == Some(want)
                    })
                })
            };
            if spec.field.is_some()
                && before_known
                && !diff.iter().any(|d| focus(&d.path) && to_ok(d))
            {
                return None;
            }
            let mut diff: Vec<DiffLine> = diff
                .into_iter()
                .map(|mut d| {
                    d.focus = focus(&d.path);
                    d
                })
                .collect();
            // The field the frame is about first, the rest in the object's order.
            diff.stable_sort_by_key(|d| !d.focus);
            let more = diff.len().saturating_sub(MAX_DIFF_LINES);
            diff.truncate(MAX_DIFF_LINES);
            Some((
                actor,
                Moment::Write {
                    revision: *revision,
                    kind: k.to_string(),
                    namespace: namespace.clone(),
                    name: name.clone(),
                    change: *c,
                    notified: notified.clone(),
                    cause: why(cluster, *revision),
                    diff,
                    more,
                    before_known,
                },
            ))
        }
        _ => None,
    }
}

/// Why the write at `revision` was made, from the trace.
fn why(cluster: &Cluster, revision: u64) -> Why {
    let Some(w) = cluster.trace().write(revision) else {
        return Why::Forgotten;
    };
    cause_why(cluster, &w.cause)
}

fn cause_why(cluster: &Cluster, cause: &Cause) -> Why {
    match cause {
        Cause::Bootstrap => Why::Bootstrap,
        Cause::User => Why::Request,
        Cause::Fault(f) => Why::Fault(f.clone()),
        Cause::Watch {
            component,
            revision,
        } => match cluster.trace().write(*revision) {
            Some(r) => Why::Watch {
                component: component_name(component),
                read: Read {
                    revision: *revision,
                    kind: r.key.kind.info().kind.to_string(),
                    namespace: r.key.namespace.clone(),
                    name: r.key.name.clone(),
                    actor: station(&r.actor),
                },
            },
            None => Why::Forgotten,
        },
        Cause::Timer(t) => Why::Timer {
            timers: t.recent().iter().map(|s| s.to_string()).collect(),
            origin: Box::new(cause_why(cluster, t.origin())),
        },
    }
}

/// The fields the write at `revision` changed, and whether the object before it was
/// still in etcd's history.
fn diff_of(cluster: &Cluster, revision: u64, change: Change) -> (Vec<DiffLine>, bool) {
    let Some((before, after)) = cluster.logged_write(revision) else {
        return (Vec::new(), false);
    };
    let mut old = Vec::new();
    let mut new = Vec::new();
    let before_known = match (change, before) {
        (Change::Added, _) => true,
        (_, Some(b)) => {
            flatten("", &b.object.to_json(), &mut old);
            true
        }
        (_, None) => false,
    };
    if change == Change::Deleted {
        // The card says what was deleted; every field leaving would only be noise.
        return (Vec::new(), true);
    }
    flatten("", &after.object.to_json(), &mut new);
    if !before_known {
        return (Vec::new(), false);
    }
    let old_map: std::collections::BTreeMap<&str, &str> = old
        .iter()
        .map(|(p, v)| (p.as_str(), v.as_str()))
        .collect_map();
    let new_map: std::collections::BTreeMap<&str, &str> = new
        .iter()
        .map(|(p, v)| (p.as_str(), v.as_str()))
        .collect_map();
    let mut lines = Vec::new();
    for (p, v) in &new {
        match old_map.get(p.as_str()) {
            Some(o) if o == v => {}
            o => lines.push(DiffLine {
                path: p.clone(),
                old: o.map(|s| s.to_string()),
                new: Some(v.clone()),
                focus: false,
            }),
        }
    }
    for (p, v) in &old {
        if !new_map.contains_key(p.as_str()) {
            lines.push(DiffLine {
                path: p.clone(),
                old: Some(v.clone()),
                new: None,
                focus: false,
            });
        }
    }
    (lines, true)
}

/// Fields that change on every write and say nothing.
fn noise(path: &str) -> bool {
    matches!(
        path,
        "metadata.resourceVersion"
            | "metadata.managedFields"
            | "metadata.uid"
            | "metadata.annotations.kubectl.kubernetes.io/last-applied-configuration"
    ) || path.starts_with("metadata.managedFields")
}

/// What names each entry of a list of objects: its `name`, `type`, `ip`, first
/// address or `targetRef.name`, when every entry has one and no two share it.
fn element_keys(items: &[Value]) -> Option<Vec<String>> {
    let key = |v: &Value| -> Option<String> {
        let o = v.as_object()?;
        for k in ["name", "type", "ip"] {
            if let Some(Value::String(s)) = o.get(k) {
                return Some(s.clone());
            }
        }
        if let Some(Value::String(s)) = o.get("addresses").and_then(|a| a.get(0)) {
            return Some(s.clone());
        }
        match o.get("targetRef").and_then(|t| t.get("name")) {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        }
    };
    let keys: Vec<String> = items.iter().map(key).collect::<Option<_>>()?;
    let unique: std::collections::BTreeSet<&String> = keys.iter().collect_set();
    (unique.len() == keys.len() && keys.iter().all(|k| !k.contains(['[', ']']))).then_some(keys)
}

/// The object's leaves in order, as (path, JSON text).
fn flatten(path: &str, v: &Value, out: &mut Vec<(String, String)>) {
    if noise(path) {
        return;
    }
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, x) in m {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                flatten(&p, x, out);
            }
        }
        Value::Array(a) if !a.is_empty() => match element_keys(a) {
            // Entries named by what identifies them (`conditions[Ready]`,
            // `containerStatuses[web]`, `endpoints[10.244.1.5]`), so that one entry
            // added or removed does not show every later one as changed.
            Some(keys) => {
                for (k, x) in keys.iter().zip(a) {
                    flatten(&format!("{path}[{k}]"), x, out);
                }
            }
            None => {
                for (i, x) in a.iter().enumerate() {
                    flatten(&format!("{path}[{i}]"), x, out);
                }
            }
        },
        other => {
            let mut text = other.to_string();
            if text.chars().count() > MAX_VALUE_CHARS {
                text = text.chars().take(MAX_VALUE_CHARS).collect::<String>() + "…";
            }
            out.push((path.to_string(), text))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_runs_of_characters() {
        assert!(glob("web-*", "web-7d9f-abcde"));
        assert!(glob("kubelet:*", "kubelet:zone-a"));
        assert!(glob("*-controller", "replicaset-controller"));
        assert!(glob("a*b*c", "a-x-b-y-c"));
        assert!(!glob("a*b*c", "a-x-c-y-b"));
        assert!(!glob("web-*", "api-1"));
        assert!(glob("web", "web"));
        assert!(!glob("ab*ba", "aba"));
    }

    #[test]
    fn users_are_named_as_the_floor_names_components() {
        assert_eq!(
            station("system:serviceaccount:kube-system:replicaset-controller"),
            "replicaset-controller"
        );
        assert_eq!(station("system:node:zone-a"), "kubelet:zone-a");
        assert_eq!(station("system:kube-scheduler"), "kube-scheduler");
        assert_eq!(station("kubernetes-admin"), "kubernetes-admin");
    }
}
