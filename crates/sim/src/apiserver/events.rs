//! Event correlation, as client-go's `EventCorrelator` does it for every component's
//! event recorder (staging/src/k8s.io/client-go/tools/record/events_cache.go):
//!
//! - the aggregator (`EventAggregate`): once 10 events about one object with the same
//!   source, type and reason but different messages arrive within 10 minutes, the
//!   next ones become one event with the message
//!   `(combined from similar events): <latest message>`;
//! - the logger (`eventObserve`): an event identical to one already recorded (same
//!   source, involved object, type, reason and message) updates that event's `count`,
//!   `lastTimestamp` and `message` instead of creating a new one.
//!
//! The spam filter (a token bucket per object and source) is not simulated.

use crate::object::ObjectKey;
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::Event;
use std::collections::{BTreeMap, BTreeSet};

/// Upstream `defaultAggregateMaxEvents`: distinct similar messages before combining.
pub const MAX_SIMILAR_EVENTS: usize = 10;
/// Upstream `defaultAggregateIntervalInSeconds`: how long similar events are remembered.
pub const SIMILAR_EVENTS_INTERVAL: SimDuration = SimDuration::secs(600);
/// The prefix of a combined event's message (`EventAggregatorByReasonMessageFunc`).
pub const COMBINED_PREFIX: &str = "(combined from similar events): ";
/// Upstream `maxLruCacheEntries`: a bound on the similar-event records kept.
const MAX_SIMILAR_RECORDS: usize = 4096;

/// What the correlator decided for a new event.
pub(crate) struct Correlation {
    /// The message to record (combined, or as given).
    pub message: String,
    /// The logger's key: events with equal keys are one event with a count.
    pub key: String,
}

/// The similar events seen recently for one aggregate key.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct SimilarEvents {
    messages: BTreeSet<String>,
    last: SimTime,
    /// Position in the least-recently-used order.
    used: u64,
}

#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct EventCorrelator {
    /// The Event object each logger key was recorded as. Looking an event up is
    /// O(log n); entries go when their event expires or is deleted.
    by_key: BTreeMap<String, ObjectKey>,
    /// The logger key of each recorded Event object (the reverse of `by_key`).
    #[serde(with = "crate::snapshot::pairs")]
    key_of: BTreeMap<ObjectKey, String>,
    /// Similar events by aggregate key.
    similar: BTreeMap<String, SimilarEvents>,
    /// Aggregate keys by last use, oldest first: the LRU cache's order, so evicting at
    /// capacity costs O(log n).
    lru: BTreeMap<u64, String>,
    next_use: u64,
}

/// Fields joined with a separator no field contains, so keys cannot collide.
fn join(fields: &[&str]) -> String {
    fields.join("\u{1f}")
}

/// Upstream `EventAggregatorByReasonFunc`: everything but the message.
fn aggregate_key(e: &Event) -> String {
    let source = e.source.as_ref();
    let o = &e.involved_object;
    join(&[
        source.and_then(|s| s.component.as_deref()).unwrap_or(""),
        source.and_then(|s| s.host.as_deref()).unwrap_or(""),
        o.kind.as_deref().unwrap_or(""),
        o.namespace.as_deref().unwrap_or(""),
        o.name.as_deref().unwrap_or(""),
        o.uid.as_deref().unwrap_or(""),
        o.api_version.as_deref().unwrap_or(""),
        e.type_.as_deref().unwrap_or(""),
        e.reason.as_deref().unwrap_or(""),
        e.reporting_component.as_deref().unwrap_or(""),
        e.reporting_instance.as_deref().unwrap_or(""),
    ])
}

/// Upstream `getEventKey`: source, involved object, type, reason and message.
fn event_key(e: &Event) -> String {
    let source = e.source.as_ref();
    let o = &e.involved_object;
    join(&[
        source.and_then(|s| s.component.as_deref()).unwrap_or(""),
        source.and_then(|s| s.host.as_deref()).unwrap_or(""),
        o.kind.as_deref().unwrap_or(""),
        o.namespace.as_deref().unwrap_or(""),
        o.name.as_deref().unwrap_or(""),
        o.field_path.as_deref().unwrap_or(""),
        o.uid.as_deref().unwrap_or(""),
        o.api_version.as_deref().unwrap_or(""),
        e.type_.as_deref().unwrap_or(""),
        e.reason.as_deref().unwrap_or(""),
        e.message.as_deref().unwrap_or(""),
    ])
}

impl EventCorrelator {
    /// Runs the aggregator over a new event (`EventAggregate`).
    pub(crate) fn correlate(&mut self, e: &Event, now: SimTime) -> Correlation {
        let message = e.message.clone().unwrap_or_default();
        let agg = aggregate_key(e);
        if self.similar.len() >= MAX_SIMILAR_RECORDS && !self.similar.contains_key(&agg) {
            // Upstream's cache is an LRU: the least recently used record goes.
            if let Some((_, oldest)) = self.lru.pop_first() {
                self.similar.remove(&oldest);
            }
        }
        self.next_use += 1;
        let used = self.next_use;
        let record = self
            .similar
            .entry(agg.clone())
            .or_insert_with(|| SimilarEvents {
                messages: BTreeSet::new(),
                last: now,
                used,
            });
        self.lru.remove(&record.used);
        record.used = used;
        self.lru.insert(used, agg.clone());
        if now.since(record.last) > SIMILAR_EVENTS_INTERVAL {
            record.messages.clear();
        }
        record.messages.insert(message.clone());
        record.last = now;
        if record.messages.len() < MAX_SIMILAR_EVENTS {
            return Correlation {
                message,
                key: event_key(e),
            };
        }
        // Upstream pops an arbitrary message; the first keeps the simulation
        // deterministic.
        record.messages.pop_first();
        debug_assert!(record.messages.len() < MAX_SIMILAR_EVENTS);
        Correlation {
            message: format!("{COMBINED_PREFIX}{message}"),
            key: agg,
        }
    }

    /// The Event object last recorded under a logger key.
    pub(crate) fn recorded(&self, key: &str) -> Option<&ObjectKey> {
        self.by_key.get(key)
    }

    /// Remembers that `key` was recorded as the Event object `event`.
    pub(crate) fn remember(&mut self, key: String, event: ObjectKey) {
        if let Some(old) = self.by_key.insert(key.clone(), event.clone()) {
            if old != event {
                self.key_of.remove(&old);
            }
        }
        if let Some(old_key) = self.key_of.insert(event, key.clone()) {
            if old_key != key {
                self.by_key.remove(&old_key);
            }
        }
        debug_assert_eq!(self.by_key.len(), self.key_of.len());
    }

    /// An event could not be written: forget a similar-events record that only it
    /// started, so nothing is left behind that no expiry will clean up.
    pub(crate) fn abandon(&mut self, e: &Event) {
        let agg = aggregate_key(e);
        if self
            .similar
            .get(&agg)
            .is_some_and(|r| r.messages.len() <= 1)
        {
            if let Some(r) = self.similar.remove(&agg) {
                self.lru.remove(&r.used);
            }
        }
    }

    /// The Event object `event` is gone (expired or deleted): drop its entries. The
    /// similar-events record of its object goes too once it is older than the
    /// aggregation interval.
    pub(crate) fn forget(&mut self, event: &ObjectKey, e: Option<&Event>, now: SimTime) {
        if let Some(key) = self.key_of.remove(event) {
            if self.by_key.get(&key) == Some(event) {
                self.by_key.remove(&key);
            }
        }
        if let Some(e) = e {
            let agg = aggregate_key(e);
            if self
                .similar
                .get(&agg)
                .is_some_and(|r| now.since(r.last) > SIMILAR_EVENTS_INTERVAL)
            {
                if let Some(r) = self.similar.remove(&agg) {
                    self.lru.remove(&r.used);
                }
            }
        }
        debug_assert_eq!(self.by_key.len(), self.key_of.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::EVENT_TTL;
    use crate::cluster::{Cluster, Topology};
    use crate::object::{Kind, Object};

    fn events(c: &Cluster) -> Vec<Event> {
        c.list(Kind::Event, Some("default"))
            .into_iter()
            .filter_map(|o| match o {
                Object::Event(e) if e.reason.as_deref() == Some("Tested") => Some(*e),
                _ => None,
            })
            .collect()
    }

    fn record(c: &mut Cluster, message: &str) {
        let node = c.get(Kind::Node, "", "zone-a").unwrap();
        c.record_event(&node, "tester", None, "Normal", "Tested", message.into());
    }

    #[test]
    fn identical_events_become_one_with_a_count_until_it_expires() {
        let mut c = Cluster::new(1, Topology::default());
        record(&mut c, "same");
        c.advance(SimDuration::secs(10));
        record(&mut c, "same");
        record(&mut c, "other");
        let e = events(&c);
        assert_eq!(e.len(), 2);
        let same = e
            .iter()
            .find(|e| e.message.as_deref() == Some("same"))
            .unwrap();
        assert_eq!(same.count, Some(2));
        assert_eq!(same.first_timestamp, Some(SimTime(0).to_k8s()));
        assert_eq!(same.last_timestamp, Some(SimTime(10_000).to_k8s()));
        // Each occurrence renews the time to live.
        c.advance(SimDuration::secs(EVENT_TTL.as_secs() - 5));
        assert_eq!(events(&c).len(), 2);
        c.advance(SimDuration::secs(10));
        assert!(events(&c).is_empty());
        assert!(c.event_correlator.by_key.is_empty());
        assert!(c.event_correlator.key_of.is_empty());
        assert!(c.event_correlator.similar.is_empty());
        // Recorded again after it expired: a new event, counting from one.
        record(&mut c, "same");
        let e = events(&c);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].count, Some(1));
    }

    #[test]
    fn similar_events_are_combined_after_ten_distinct_messages() {
        let mut c = Cluster::new(1, Topology::default());
        for i in 0..12 {
            record(&mut c, &format!("message {i:02}"));
        }
        let e = events(&c);
        // Nine distinct events, then one combined event counting the rest.
        assert_eq!(e.len(), 10);
        let combined: Vec<&Event> = e
            .iter()
            .filter(|e| {
                e.message
                    .as_deref()
                    .is_some_and(|m| m.starts_with(COMBINED_PREFIX))
            })
            .collect();
        assert_eq!(combined.len(), 1);
        assert_eq!(combined[0].count, Some(3));
        assert_eq!(
            combined[0].message.as_deref(),
            Some("(combined from similar events): message 11")
        );
        // After the aggregation interval the record starts afresh.
        c.advance(SimDuration::secs(SIMILAR_EVENTS_INTERVAL.as_secs() + 1));
        record(&mut c, "message 99");
        assert!(events(&c)
            .iter()
            .any(|e| e.message.as_deref() == Some("message 99")));
    }

    #[test]
    fn the_similar_events_cache_evicts_the_least_recently_used() {
        let mut c = EventCorrelator::default();
        let event = |i: usize| Event {
            involved_object: k8s_openapi::api::core::v1::ObjectReference {
                name: Some(format!("pod-{i}")),
                ..Default::default()
            },
            reason: Some("Started".into()),
            message: Some("m".into()),
            ..Default::default()
        };
        for i in 0..MAX_SIMILAR_RECORDS + 100 {
            c.correlate(&event(i), SimTime(0));
        }
        assert_eq!(c.similar.len(), MAX_SIMILAR_RECORDS);
        assert_eq!(c.lru.len(), c.similar.len());
        // The first ones went; the newest stay.
        assert!(!c.similar.contains_key(&aggregate_key(&event(0))));
        assert!(c
            .similar
            .contains_key(&aggregate_key(&event(MAX_SIMILAR_RECORDS + 99))));
    }
}
