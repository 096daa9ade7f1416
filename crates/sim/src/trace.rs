//! The trace: every write remembers why it happened — a user's request, a watch event
//! a component reacted to, a timer (and what set it), or a fault — so any object can
//! answer "why?" as a chain back to the action that started it (`sim why`).

use crate::cluster::{Cluster, Component};
use crate::object::ObjectKey;
use crate::store::{EventType, WatchEvent};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How many writes the trace remembers; older ones are forgotten first.
pub const TRACE_CAPACITY: usize = 100_000;

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
    /// A timer went off; `origin` is why it was set.
    Timer {
        what: &'static str,
        origin: Box<Cause>,
    },
}

/// How a [`Cause`] is written in a snapshot: its chain of timers (outermost first)
/// flattened, then where the chain began. Flat, so that a long chain of timers is no
/// deep nesting for a reader.
#[derive(Serialize)]
struct FlatCauseRef<'a> {
    timers: Vec<&'static str>,
    base: BaseRef<'a>,
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
        let mut timers = Vec::new();
        let mut cause = self;
        while let Cause::Timer { what, origin } = cause {
            timers.push(*what);
            cause = origin;
        }
        let base = match cause {
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
            Cause::Timer { .. } => unreachable!("the loop above unwraps every timer"),
        };
        FlatCauseRef { timers, base }.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Cause {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let flat = FlatCause::deserialize(deserializer)?;
        let mut cause = match flat.base {
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
        for what in flat.timers.iter().rev() {
            let what = crate::cluster::Timer::intern_description(what).ok_or_else(|| {
                serde::de::Error::custom(format!("unknown timer {what:?} in a cause"))
            })?;
            cause = Cause::Timer {
                what,
                origin: Box::new(cause),
            };
        }
        Ok(cause)
    }
}

/// One remembered write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteRecord {
    pub revision: u64,
    pub event_type: EventType,
    pub key: ObjectKey,
    /// The username that made the request.
    pub actor: String,
    pub cause: Cause,
}

#[derive(Default, Serialize, Deserialize)]
pub struct Trace {
    #[serde(with = "crate::snapshot::pairs")]
    writes: BTreeMap<u64, WriteRecord>,
    #[serde(with = "crate::snapshot::pairs")]
    last_write: BTreeMap<ObjectKey, u64>,
}

impl Trace {
    pub(crate) fn record(&mut self, ev: &WatchEvent, actor: &str, cause: &Cause) {
        if self.writes.len() == TRACE_CAPACITY {
            if let Some((_, old)) = self.writes.pop_first() {
                if self.last_write.get(&old.key) == Some(&old.revision) {
                    self.last_write.remove(&old.key);
                }
            }
        }
        let key = ev.object.key();
        self.last_write.insert(key.clone(), ev.revision);
        self.writes.insert(
            ev.revision,
            WriteRecord {
                revision: ev.revision,
                event_type: ev.event_type,
                key,
                actor: actor.to_string(),
                cause: cause.clone(),
            },
        );
    }

    pub fn write(&self, revision: u64) -> Option<&WriteRecord> {
        self.writes.get(&revision)
    }

    /// The latest remembered write of an object.
    pub fn last_write(&self, key: &ObjectKey) -> Option<&WriteRecord> {
        self.last_write.get(key).and_then(|r| self.writes.get(r))
    }
}

/// One step of an explanation: a write and how it came about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhyStep {
    pub write: WriteRecord,
    /// Timers between this write and the event that set them, innermost first.
    pub timers: Vec<&'static str>,
}

/// The most steps an explanation follows (a guard; real chains are short).
pub const MAX_WHY_STEPS: usize = 64;

impl Cluster {
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
        let mut next = current.or_else(|| self.trace.last_write(key)).cloned();
        while let Some(write) = next.take() {
            if steps.len() == MAX_WHY_STEPS {
                break;
            }
            let mut timers = Vec::new();
            let mut cause = &write.cause;
            while let Cause::Timer { what, origin } = cause {
                timers.push(*what);
                cause = origin;
            }
            if let Cause::Watch { revision, .. } = cause {
                next = self.trace.write(*revision).cloned();
            }
            steps.push(WhyStep { write, timers });
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
                Cause::Timer { .. } => {
                    let mut inner = &w.cause;
                    while let Cause::Timer { origin, .. } = inner {
                        inner = origin;
                    }
                    let origin = match inner {
                        Cause::Watch { revision, .. } => {
                            format!("set when reacting to revision {revision}")
                        }
                        Cause::User => "set on request".into(),
                        Cause::Fault(f) => format!("set after fault: {f}"),
                        Cause::Bootstrap => "set at bootstrap".into(),
                        Cause::Timer { .. } => String::new(),
                    };
                    format!(
                        "when timer \"{}\" fired ({origin})",
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
        out
    }
}
