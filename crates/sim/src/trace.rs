//! The trace: every write remembers why it happened — a user's request, a watch event
//! a component reacted to, a timer (and what set it), or a fault — so any object can
//! answer "why?" as a chain back to the action that started it (`sim why`).
//!
//! Its size does not grow with time. A cause is flat: a timer that fires after other
//! timers (a crash loop's exits and back-offs, one after the other for days) keeps the
//! latest [`MAX_TIMER_CHAIN`] of them and a count of the earlier ones, then where the
//! chain began. A cause refers to the write it reacted to by revision. The trace keeps
//! the latest [`TRACE_CAPACITY`] writes, and beyond them only what still explains an
//! object: each object's latest write and the writes its explanation goes back
//! through (reference counted, at most [`MAX_WHY_STEPS`] deep). Older writes are
//! forgotten, and `sim why` says so where a chain reaches one.

use crate::cluster::{Cluster, Component};
use crate::object::ObjectKey;
use crate::store::{EventType, WatchEvent};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

/// How many of the latest writes the trace remembers whatever they were; older ones
/// stay only while they explain an object's latest write.
pub const TRACE_CAPACITY: usize = 10_000;

/// How many timers in a row a cause names; earlier ones are counted.
pub const MAX_TIMER_CHAIN: usize = 5;

/// Why a write happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The cluster setting itself up.
    Bootstrap,
    /// A request made through the public API (kubectl, the UI, a script).
    User,
    /// A fault injected from outside (`sim node kill`, ...).
    Fault(String),
    /// `component` reacted to the watch event of the write at `revision`.
    Watch { component: Component, revision: u64 },
    /// A timer went off, after the timers before it, all set for what began the chain.
    Timer(Box<Timers>),
}

/// A chain of timers, each set when the one before it fired, and what set the first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timers {
    /// The latest timers, newest first: one to [`MAX_TIMER_CHAIN`].
    recent: Vec<&'static str>,
    /// How many fired before the oldest of `recent`.
    earlier: u64,
    /// What set the first timer: never a timer itself.
    origin: Cause,
}

impl Timers {
    /// The latest timers of the chain, newest first.
    pub fn recent(&self) -> &[&'static str] {
        &self.recent
    }

    /// How many timers fired before the oldest of [`Timers::recent`].
    pub fn earlier(&self) -> u64 {
        self.earlier
    }

    /// What set the first timer of the chain.
    pub fn origin(&self) -> &Cause {
        &self.origin
    }
}

impl Cause {
    /// The cause of what timer `what` does when it fires, set for `self`. A periodic
    /// timer that re-arms itself stays one entry; a chain keeps its latest
    /// [`MAX_TIMER_CHAIN`] timers and counts the rest.
    pub fn after_timer(self, what: &'static str) -> Cause {
        match self {
            Cause::Timer(mut t) => {
                if t.recent.first() != Some(&what) {
                    if t.recent.len() >= MAX_TIMER_CHAIN {
                        t.recent.truncate(MAX_TIMER_CHAIN - 1);
                        t.earlier = t.earlier.saturating_add(1);
                    }
                    t.recent.insert(0, what);
                }
                Cause::Timer(t)
            }
            origin => Cause::Timer(Box::new(Timers {
                recent: vec![what],
                earlier: 0,
                origin,
            })),
        }
    }

    /// Where a chain of timers began: the cause itself when it is not a timer.
    pub fn origin(&self) -> &Cause {
        match self {
            Cause::Timer(t) => &t.origin,
            other => other,
        }
    }

    /// The revision of the write whose watch event this cause goes back to.
    pub fn reacted_to(&self) -> Option<u64> {
        match self.origin() {
            Cause::Watch { revision, .. } => Some(*revision),
            _ => None,
        }
    }
}

/// How a [`Cause`] is written in a snapshot: its timers (newest first), how many
/// earlier ones were counted, then where the chain began.
#[derive(Serialize)]
struct FlatCauseRef<'a> {
    timers: &'a [&'static str],
    #[serde(skip_serializing_if = "is_zero")]
    earlier: u64,
    base: BaseRef<'a>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Serialize)]
enum BaseRef<'a> {
    Bootstrap,
    User,
    Fault(&'a str),
    Watch {
        component: &'a Component,
        revision: u64,
    },
}

#[derive(Deserialize)]
struct FlatCause {
    timers: Vec<String>,
    #[serde(default)]
    earlier: u64,
    base: Base,
}

#[derive(Deserialize)]
enum Base {
    Bootstrap,
    User,
    Fault(String),
    Watch { component: Component, revision: u64 },
}

impl Serialize for Cause {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (timers, earlier): (&[&'static str], u64) = match self {
            Cause::Timer(t) => (&t.recent, t.earlier),
            _ => (&[], 0),
        };
        let base = match self.origin() {
            Cause::Bootstrap => BaseRef::Bootstrap,
            Cause::User => BaseRef::User,
            Cause::Fault(f) => BaseRef::Fault(f),
            Cause::Watch {
                component,
                revision,
            } => BaseRef::Watch {
                component,
                revision: *revision,
            },
            Cause::Timer(_) => {
                return Err(serde::ser::Error::custom(
                    "a chain of timers begins with a timer",
                ))
            }
        };
        FlatCauseRef {
            timers,
            earlier,
            base,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Cause {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let flat = FlatCause::deserialize(deserializer)?;
        let origin = match flat.base {
            Base::Bootstrap => Cause::Bootstrap,
            Base::User => Cause::User,
            Base::Fault(f) => Cause::Fault(f),
            Base::Watch {
                component,
                revision,
            } => Cause::Watch {
                component,
                revision,
            },
        };
        if flat.timers.is_empty() {
            return Ok(origin);
        }
        let mut recent = Vec::with_capacity(flat.timers.len().min(MAX_TIMER_CHAIN));
        for what in flat.timers.iter().take(MAX_TIMER_CHAIN) {
            recent.push(
                crate::cluster::Timer::intern_description(what).ok_or_else(|| {
                    serde::de::Error::custom(format!("unknown timer {what:?} in a cause"))
                })?,
            );
        }
        // A longer chain (written before chains were bounded) keeps its latest timers.
        let beyond = (flat.timers.len() - recent.len()) as u64;
        Ok(Cause::Timer(Box::new(Timers {
            recent,
            earlier: flat.earlier.saturating_add(beyond),
            origin,
        })))
    }
}

/// One remembered write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteRecord {
    pub revision: u64,
    pub event_type: EventType,
    pub key: ObjectKey,
    /// The username that made the request (one shared copy of each name).
    pub actor: Arc<str>,
    pub cause: Cause,
}

/// A remembered write and what keeps it remembered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    write: WriteRecord,
    /// Writes in this write's explanation, itself included (1 for a chain's start).
    depth: u32,
    /// Whether this write keeps the write it reacted to (its explanation's next step).
    holds_reacted_to: bool,
    /// Whether this is the latest write of an object that exists.
    latest: bool,
    /// Whether it is one of the latest [`TRACE_CAPACITY`] writes.
    recent: bool,
    /// How many reasons keep it: remembered writes that hold it, and `latest`.
    #[serde(skip)]
    holders: u32,
}

impl Entry {
    fn kept(&self) -> bool {
        self.recent || self.holders > 0
    }
}

#[derive(Default, Serialize, Deserialize)]
#[serde(try_from = "TraceData")]
pub struct Trace {
    /// Boxed: most entries stay long (an object's latest write and its explanation),
    /// spread across the tree's nodes, and a node keeps room for eleven.
    #[serde(with = "crate::snapshot::pairs")]
    writes: BTreeMap<u64, Box<Entry>>,
    /// The latest writes' revisions, oldest first.
    recent: VecDeque<u64>,
    #[serde(with = "crate::snapshot::pairs")]
    last_write: BTreeMap<ObjectKey, u64>,
    /// How many writes the trace has forgotten.
    forgotten: u64,
    /// The usernames writes were made by, each kept once. Not in a snapshot: a
    /// restored trace starts sharing again with its next writes.
    #[serde(skip)]
    actors: BTreeSet<Arc<str>>,
}

/// [`Trace`] as a snapshot holds it; the holder counts are rebuilt and every
/// reference checked.
#[derive(Deserialize)]
struct TraceData {
    #[serde(with = "crate::snapshot::pairs")]
    writes: BTreeMap<u64, Box<Entry>>,
    recent: VecDeque<u64>,
    #[serde(with = "crate::snapshot::pairs")]
    last_write: BTreeMap<ObjectKey, u64>,
    forgotten: u64,
}

impl TryFrom<TraceData> for Trace {
    type Error = String;

    fn try_from(d: TraceData) -> Result<Trace, String> {
        let mut writes = d.writes;
        if d.recent.len() > TRACE_CAPACITY {
            return Err(format!("the trace lists {} latest writes", d.recent.len()));
        }
        for (rev, e) in &writes {
            if *rev != e.write.revision {
                return Err(format!(
                    "trace entry {rev} holds revision {}",
                    e.write.revision
                ));
            }
        }
        let mut recent = 0;
        for rev in &d.recent {
            match writes.get(rev) {
                Some(e) if e.recent => recent += 1,
                _ => return Err(format!("latest write {rev} is not remembered as one")),
            }
        }
        if recent != writes.values().filter(|e| e.recent).count() {
            return Err("the trace's latest writes do not match its entries".into());
        }
        for (key, rev) in &d.last_write {
            if writes.get(rev).is_none_or(|e| &e.write.key != key) {
                return Err(format!(
                    "the latest write of {key} ({rev}) is not remembered"
                ));
            }
        }
        let mut holders: BTreeMap<u64, u32> = BTreeMap::new();
        for e in writes.values() {
            if e.latest {
                if d.last_write.get(&e.write.key) != Some(&e.write.revision) {
                    return Err(format!(
                        "write {} is marked as the latest of {}",
                        e.write.revision, e.write.key
                    ));
                }
                *holders.entry(e.write.revision).or_default() += 1;
            }
            if e.holds_reacted_to {
                let Some(parent) = e
                    .write
                    .cause
                    .reacted_to()
                    .filter(|r| writes.contains_key(r))
                else {
                    return Err(format!(
                        "write {} holds a write that is not remembered",
                        e.write.revision
                    ));
                };
                *holders.entry(parent).or_default() += 1;
            }
        }
        for (rev, e) in writes.iter_mut() {
            e.holders = holders.get(rev).copied().unwrap_or(0);
            if !e.kept() {
                return Err(format!("write {rev} is remembered for no reason"));
            }
        }
        Ok(Trace {
            writes,
            recent: d.recent,
            last_write: d.last_write,
            forgotten: d.forgotten,
            actors: BTreeSet::new(),
        })
    }
}

impl Trace {
    /// As a snapshot restores it: the usernames are shared again from the next write.
    pub(crate) fn copy_as_restored(&self) -> Trace {
        Trace {
            writes: self.writes.clone(),
            recent: self.recent.clone(),
            last_write: self.last_write.clone(),
            forgotten: self.forgotten,
            actors: BTreeSet::new(),
        }
    }

    /// The shared copy of a username.
    fn actor(&mut self, name: &str) -> Arc<str> {
        if let Some(a) = self.actors.get(name) {
            return Arc::clone(a);
        }
        let a: Arc<str> = Arc::from(name);
        self.actors.insert(Arc::clone(&a));
        a
    }

    pub(crate) fn record(&mut self, ev: &WatchEvent, actor: &str, cause: &Cause) {
        if self.writes.contains_key(&ev.revision) {
            // A revision is written once; a second record of it would be a bug.
            debug_assert!(false, "revision {} recorded twice", ev.revision);
            return;
        }
        let key = ev.object.key();
        // The write it reacted to stays while this one does (up to a depth).
        let mut depth = 1;
        let mut holds_reacted_to = false;
        if let Some(parent) = cause.reacted_to().and_then(|r| self.writes.get_mut(&r)) {
            if (parent.depth as usize) < MAX_WHY_STEPS {
                parent.holders += 1;
                depth = parent.depth + 1;
                holds_reacted_to = true;
            }
        }
        let latest = ev.event_type != EventType::Deleted;
        let previous = match self.last_write.get_mut(&key) {
            Some(rev) => Some(std::mem::replace(rev, ev.revision)),
            None => self.last_write.insert(key.clone(), ev.revision),
        };
        if let Some(previous) = previous {
            if let Some(p) = self.writes.get_mut(&previous) {
                if p.latest {
                    p.latest = false;
                    p.holders -= 1;
                    self.release(previous);
                }
            }
        }
        let actor = self.actor(actor);
        self.writes.insert(
            ev.revision,
            Box::new(Entry {
                write: WriteRecord {
                    revision: ev.revision,
                    event_type: ev.event_type,
                    key,
                    actor,
                    cause: cause.clone(),
                },
                depth,
                holds_reacted_to,
                latest,
                recent: true,
                holders: u32::from(latest),
            }),
        );
        self.recent.push_back(ev.revision);
        if self.recent.len() > TRACE_CAPACITY {
            if let Some(old) = self.recent.pop_front() {
                if let Some(e) = self.writes.get_mut(&old) {
                    e.recent = false;
                }
                self.release(old);
            }
        }
    }

    /// The store was replaced (an etcd restore): the latest writes of objects that no
    /// longer exist stop being kept for them.
    pub(crate) fn objects_replaced(&mut self, exists: impl Fn(&ObjectKey) -> bool) {
        let gone: Vec<u64> = self
            .last_write
            .iter()
            .filter(|(key, _)| !exists(key))
            .map(|(_, rev)| *rev)
            .collect();
        for rev in gone {
            if let Some(e) = self.writes.get_mut(&rev) {
                if e.latest {
                    e.latest = false;
                    e.holders -= 1;
                    self.release(rev);
                }
            }
        }
    }

    /// Forgets `revision` if nothing keeps it any more, then what only it kept.
    fn release(&mut self, revision: u64) {
        let mut next = Some(revision);
        while let Some(rev) = next.take() {
            if self.writes.get(&rev).is_none_or(|e| e.kept()) {
                return;
            }
            let Some(e) = self.writes.remove(&rev) else {
                return;
            };
            self.forgotten += 1;
            if self.last_write.get(&e.write.key) == Some(&rev) {
                self.last_write.remove(&e.write.key);
            }
            if e.holds_reacted_to {
                if let Some(parent) = e.write.cause.reacted_to() {
                    if let Some(p) = self.writes.get_mut(&parent) {
                        p.holders -= 1;
                        next = Some(parent);
                    }
                }
            }
        }
    }

    pub fn write(&self, revision: u64) -> Option<&WriteRecord> {
        self.writes.get(&revision).map(|e| &e.write)
    }

    /// The latest remembered write of an object.
    pub fn last_write(&self, key: &ObjectKey) -> Option<&WriteRecord> {
        self.last_write.get(key).and_then(|r| self.write(*r))
    }

    /// How many writes the trace remembers.
    pub fn len(&self) -> usize {
        self.writes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }

    /// How many writes the trace has forgotten.
    pub fn forgotten(&self) -> u64 {
        self.forgotten
    }
}

/// One step of an explanation: a write and how it came about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhyStep {
    pub write: WriteRecord,
    /// The latest timers between this write and the event that set them, newest
    /// first (at most [`MAX_TIMER_CHAIN`]).
    pub timers: Vec<&'static str>,
    /// How many timers fired before the oldest of `timers`.
    pub earlier_timers: u64,
}

/// The most steps an explanation follows (a guard; real chains are short).
pub const MAX_WHY_STEPS: usize = 64;

impl Cluster {
    /// The trace of writes (what `sim why` reads).
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// The chain of writes that led to the latest write of `key`, newest first, back to
    /// a user request, a fault or the cluster's bootstrap.
    pub fn why(&self, key: &ObjectKey) -> Vec<WhyStep> {
        let mut steps = Vec::new();
        // The write that made the object as it stands (after an etcd restore, an older
        // one than the last write the trace saw), else the last write of a deleted one.
        let current = self
            .store
            .get(key)
            .and_then(|o| o.meta().resource_version.as_deref()?.parse::<u64>().ok())
            .and_then(|rv| self.trace.write(rv))
            .filter(|w| &w.key == key);
        let mut next = current.or_else(|| self.trace.last_write(key));
        while let Some(write) = next.take() {
            if steps.len() == MAX_WHY_STEPS {
                break;
            }
            let (timers, earlier_timers) = match &write.cause {
                Cause::Timer(t) => (t.recent.clone(), t.earlier),
                _ => (Vec::new(), 0),
            };
            next = write.cause.reacted_to().and_then(|r| self.trace.write(r));
            steps.push(WhyStep {
                write: write.clone(),
                timers,
                earlier_timers,
            });
        }
        steps
    }

    /// [`Cluster::why`] as the lines `sim why` prints.
    pub fn why_text(&self, key: &ObjectKey) -> String {
        let steps = self.why(key);
        if steps.is_empty() {
            return format!("no recorded write of {key}\n");
        }
        let mut out = String::new();
        for s in &steps {
            let w = &s.write;
            let how = match &w.cause {
                Cause::Bootstrap => "at bootstrap".to_string(),
                Cause::User => "on request".to_string(),
                Cause::Fault(f) => format!("after fault: {f}"),
                Cause::Watch { revision, .. } => format!("reacting to revision {revision}"),
                Cause::Timer(t) => {
                    let origin = match &t.origin {
                        Cause::Watch { revision, .. } => {
                            format!("set when reacting to revision {revision}")
                        }
                        Cause::User => "set on request".into(),
                        Cause::Fault(f) => format!("set after fault: {f}"),
                        Cause::Bootstrap => "set at bootstrap".into(),
                        Cause::Timer(_) => String::new(),
                    };
                    let earlier = match s.earlier_timers {
                        0 => String::new(),
                        1 => " after 1 earlier timer".into(),
                        n => format!(" after {n} earlier timers"),
                    };
                    format!(
                        "when timer \"{}\"{earlier} fired ({origin})",
                        s.timers.join("\" after \"")
                    )
                }
            };
            out.push_str(&format!(
                "revision {}: {} {} by {} {}\n",
                w.revision,
                w.event_type.as_str(),
                w.key,
                w.actor,
                how
            ));
        }
        // Where the chain goes on beyond what the trace remembers, say so.
        let last = &steps[steps.len() - 1].write;
        if let Some(r) = last.cause.reacted_to() {
            if steps.len() == MAX_WHY_STEPS && self.trace.write(r).is_some() {
                out.push_str(&format!(
                    "... and earlier writes from revision {r} on (an explanation shows at most {MAX_WHY_STEPS})\n"
                ));
            } else if self.trace.write(r).is_none() {
                out.push_str(&format!(
                    "revision {r}: forgotten (the trace keeps the latest {TRACE_CAPACITY} writes and what led to each object's latest write)\n"
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::Topology;
    use crate::object::Object;

    fn config_map(name: &str) -> Object {
        crate::decode_manifests(&format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: default}}\n"
        ))
        .unwrap()
        .remove(0)
    }

    fn event(revision: u64, event_type: EventType, name: &str) -> WatchEvent {
        WatchEvent {
            revision,
            event_type,
            object: config_map(name).into(),
            old: None,
        }
    }

    fn reacting_to(revision: u64) -> Cause {
        Cause::Watch {
            component: crate::controllers::garbage_collector::ID.component(),
            revision,
        }
    }

    /// Holder counts and flags as a snapshot would rebuild them.
    fn consistent(t: &Trace) -> bool {
        let json = serde_json::to_string(t).unwrap();
        let back: Trace = serde_json::from_str(&json).unwrap();
        back.writes == t.writes && back.recent == t.recent && back.last_write == t.last_write
    }

    #[test]
    fn the_trace_keeps_the_latest_writes_and_what_explains_each_object() {
        let mut t = Trace::default();
        // An object made by a request, then one made in reaction to it.
        t.record(&event(1, EventType::Added, "origin"), "admin", &Cause::User);
        t.record(&event(2, EventType::Added, "made"), "gc", &reacting_to(1));
        // A deleted object, and a flood of writes to one other object.
        t.record(&event(3, EventType::Added, "gone"), "admin", &Cause::User);
        t.record(&event(4, EventType::Deleted, "gone"), "admin", &Cause::User);
        for rev in 5..5 + 3 * TRACE_CAPACITY as u64 {
            t.record(
                &event(rev, EventType::Modified, "busy"),
                "kubelet",
                &Cause::Bootstrap.after_timer("lease renewal"),
            );
        }
        // The latest writes, plus the latest of each object and its explanation.
        assert_eq!(t.len(), TRACE_CAPACITY + 2);
        assert!(t.write(2).is_some() && t.write(1).is_some());
        assert!(t.write(3).is_none() && t.write(4).is_none());
        let gone = config_map("gone").key();
        assert!(t.last_write(&gone).is_none());
        assert_eq!(t.forgotten(), 2 * TRACE_CAPACITY as u64 + 2);
        assert!(consistent(&t));
        // A new write of the object made in reaction lets its old one, and what only
        // that one explained, go.
        let rev = 5 + 3 * TRACE_CAPACITY as u64;
        t.record(
            &event(rev, EventType::Modified, "made"),
            "admin",
            &Cause::User,
        );
        assert!(t.write(2).is_none());
        assert!(t.write(1).is_some(), "still the latest write of its object");
        t.record(
            &event(rev + 1, EventType::Deleted, "origin"),
            "admin",
            &Cause::User,
        );
        assert!(t.write(1).is_none());
        assert!(consistent(&t));
    }

    #[test]
    fn objects_an_etcd_restore_removed_are_no_longer_kept() {
        let mut t = Trace::default();
        t.record(&event(1, EventType::Added, "stays"), "admin", &Cause::User);
        t.record(
            &event(2, EventType::Added, "vanished"),
            "admin",
            &Cause::User,
        );
        let stays = config_map("stays").key();
        t.objects_replaced(|k| k == &stays);
        // Still among the latest writes: still remembered.
        assert!(t.write(2).is_some());
        assert!(consistent(&t));
        for rev in 3..3 + TRACE_CAPACITY as u64 {
            t.record(
                &event(rev, EventType::Modified, "busy"),
                "kubelet",
                &Cause::Bootstrap,
            );
        }
        assert!(t.write(1).is_some());
        assert!(t.write(2).is_none());
        assert!(t.last_write(&config_map("vanished").key()).is_none());
    }

    #[test]
    fn an_explanation_is_kept_only_so_deep_and_says_where_it_stops() {
        let mut c = Cluster::new(1, Topology::default());
        let mut t = Trace::default();
        // Each write of "loop" reacts to the one before: a chain as long as history.
        t.record(&event(1, EventType::Added, "loop"), "admin", &Cause::User);
        let last = 2 * MAX_WHY_STEPS as u64;
        for rev in 2..=last {
            t.record(
                &event(rev, EventType::Modified, "loop"),
                "gc",
                &reacting_to(rev - 1),
            );
        }
        for rev in last + 1..last + 1 + TRACE_CAPACITY as u64 {
            t.record(
                &event(rev, EventType::Modified, "busy"),
                "kubelet",
                &Cause::Bootstrap,
            );
        }
        assert_eq!(t.len(), TRACE_CAPACITY + MAX_WHY_STEPS);
        assert!(consistent(&t));
        c.trace = t;
        let key = config_map("loop").key();
        assert_eq!(c.why(&key).len(), MAX_WHY_STEPS);
        let text = c.why_text(&key);
        let forgotten = last - MAX_WHY_STEPS as u64;
        assert!(
            text.ends_with(&format!(
                "reacting to revision {forgotten}\nrevision {forgotten}: forgotten (the trace keeps the latest {TRACE_CAPACITY} writes and what led to each object's latest write)\n"
            )),
            "{text}"
        );
        assert!(c
            .why_text(&config_map("nothing").key())
            .starts_with("no recorded write"));
    }

    #[test]
    fn a_snapshot_whose_trace_does_not_add_up_is_refused() {
        let mut t = Trace::default();
        t.record(&event(1, EventType::Added, "a"), "admin", &Cause::User);
        t.record(&event(2, EventType::Added, "b"), "gc", &reacting_to(1));
        t.record(&event(3, EventType::Modified, "a"), "admin", &Cause::User);
        let json = serde_json::to_string(&t).unwrap();
        assert!(serde_json::from_str::<Trace>(&json).is_ok());
        for (from, to) in [
            ("\"name\":\"b\"},2]", "\"name\":\"b\"},3]"),
            (
                "\"revision\":2,\"event_type\"",
                "\"revision\":1,\"event_type\"",
            ),
            ("\"latest\":false", "\"latest\":true"),
            ("\"recent\":[1,2,3]", "\"recent\":[2,3]"),
        ] {
            assert!(json.contains(from), "{json}");
            let broken = json.replacen(from, to, 1);
            assert!(serde_json::from_str::<Trace>(&broken).is_err(), "{broken}");
        }
    }

    #[test]
    fn a_chain_of_timers_keeps_its_latest_and_counts_the_rest() {
        let mut cause = Cause::Watch {
            component: Component::Scheduler,
            revision: 7,
        };
        // A crash loop for a long time: exit, back-off, exit, ...
        for _ in 0..100_000 {
            cause = cause
                .after_timer("container exited")
                .after_timer("container back-off ended");
        }
        let copy = cause.clone();
        let Cause::Timer(t) = &copy else {
            panic!("a timer cause")
        };
        assert_eq!(
            t.recent(),
            [
                "container back-off ended",
                "container exited",
                "container back-off ended",
                "container exited",
                "container back-off ended"
            ]
        );
        assert_eq!(t.earlier(), 200_000 - MAX_TIMER_CHAIN as u64);
        assert_eq!(cause.reacted_to(), Some(7));
        // A periodic timer that re-arms itself stays one entry.
        let mut lease = Cause::Bootstrap;
        for _ in 0..1000 {
            lease = lease.after_timer("lease renewal");
        }
        let Cause::Timer(t) = &lease else {
            panic!("a timer cause")
        };
        assert_eq!((t.recent(), t.earlier()), (&["lease renewal"][..], 0));
        assert_eq!(lease.origin(), &Cause::Bootstrap);
    }

    #[test]
    fn a_cause_is_written_and_read_back_the_same() {
        let mut cause = Cause::Fault("node zone-a killed".into());
        for what in ["container exited", "container back-off ended"].repeat(10) {
            cause = cause.after_timer(what);
        }
        let json = serde_json::to_string(&cause).unwrap();
        assert_eq!(serde_json::from_str::<Cause>(&json).unwrap(), cause);
        // An unbounded chain (as once written) is read bounded.
        let old = format!(
            r#"{{"timers":{:?},"base":"User"}}"#,
            ["container exited"; 40]
        );
        let Cause::Timer(t) = serde_json::from_str::<Cause>(&old).unwrap() else {
            panic!("a timer cause")
        };
        assert_eq!((t.recent().len(), t.earlier()), (MAX_TIMER_CHAIN, 35));
    }
}
