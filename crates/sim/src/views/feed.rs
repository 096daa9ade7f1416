//! The change feed: what happened, in order, for drawing it. The web app reads what
//! is new since it last looked (`Cluster::feed_since`) and animates it: envelopes
//! crossing the reception desk, watch notifications flying to the components that
//! react, orders travelling the conveyors. It never drives the simulation.
//!
//! The feed is a bounded ring: a viewer that falls behind (a tab in the background,
//! a fast-forward of an hour) is told how many events it missed and carries on.
//! It is a view, not state: snapshots leave it out, and a restored cluster starts
//! with an empty feed.

use crate::apiserver::RequestRecord;
use crate::cluster::{Cluster, Component};
use crate::object::Object;
use crate::store::{EventType, WatchEvent};
use std::collections::VecDeque;

/// How many events the feed keeps.
pub const FEED_CAPACITY: usize = 4096;

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeedEvent {
    /// A request crossed the reception desk (the apiserver), refused or not.
    Request {
        at_ms: u64,
        user: String,
        verb: &'static str,
        /// `deployments/web`, or the resource alone for a create refused before it
        /// had a name.
        target: String,
        namespace: String,
        code: u16,
        /// The stage that refused it (`authentication`, `authorization`,
        /// `admission`, `validation`, ...), or `None` when it was stored.
        refused_at: Option<&'static str>,
        /// Every stage it went through, in order, with its verdict and modelled
        /// microseconds (the last is the one that refused it, if any).
        stages: Vec<(&'static str, bool, u32)>,
        /// Made by a person (kubectl, the UI, a script), not by a component.
        by_learner: bool,
    },
    /// A write reached the ledger vault (etcd), and the watchers it was sent to.
    Write {
        at_ms: u64,
        revision: u64,
        /// Who wrote it (`replicaset-controller`, `system:node:zone-a`, `kubernetes-admin`).
        actor: String,
        kind: &'static str,
        namespace: String,
        name: String,
        change: Change,
        /// The components whose watches delivered it and that will look at it:
        /// controllers, the scheduler, kubelets (`kubelet:zone-a`), and the
        /// data plane's watchers (`kube-proxy`, one per zone; `coredns`;
        /// `ingress-nginx`).
        notified: Vec<String>,
        /// What the write says beyond its name, for the kinds a reader wants to
        /// see into: an EndpointSlice's endpoints before and after, an Event's
        /// reason and message.
        detail: Option<Box<WriteDetail>>,
    },
    /// An order (a request of the traffic generator) through the data plane.
    Order {
        at_ms: u64,
        /// The traffic source's name.
        source: String,
        /// What it went through (`kube-proxy on zone-a`, `ingress-nginx`, ...).
        via: Vec<String>,
        /// The robot that answered, `namespace/name`.
        pod: Option<String>,
        /// The failure's reason (`timeout`, `connection-refused`, `http-503`, ...).
        failure: Option<String>,
    },
}

/// What a write carries that a timeline shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteDetail {
    /// An EndpointSlice's endpoints that the write added, removed or changed: as
    /// they stood before it (none for a create) and after it (none for a delete).
    /// Endpoints it left as they were are in neither, so a write to a slice of a
    /// hundred robots that makes one ready carries two lines.
    Endpoints {
        before: Vec<EndpointLine>,
        after: Vec<EndpointLine>,
    },
    /// A Kubernetes Event: what it reports and about which object.
    Event {
        reason: String,
        message: String,
        /// `type: Warning` (else Normal).
        warning: bool,
        /// The object it is about (`involvedObject`): kind, namespace, name.
        regarding: (String, String, String),
        count: i32,
    },
}

/// One endpoint of an EndpointSlice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointLine {
    /// Its first address (an endpoint has one in every slice the cluster writes).
    pub address: String,
    /// `conditions.ready`; unset counts as ready, as upstream reads it.
    pub ready: bool,
    pub terminating: bool,
    /// The pod behind it (`targetRef`), if any.
    pub pod: Option<String>,
}

/// The endpoints of an EndpointSlice object, in its order.
pub fn endpoint_lines(object: &Object) -> Vec<EndpointLine> {
    let Object::EndpointSlice(slice) = object else {
        return Vec::new();
    };
    slice
        .endpoints
        .iter()
        .flatten()
        .map(|e| {
            let conditions = e.conditions.as_ref();
            EndpointLine {
                address: e.addresses.first().cloned().unwrap_or_default(),
                ready: conditions.and_then(|c| c.ready).unwrap_or(true),
                terminating: conditions.and_then(|c| c.terminating).unwrap_or(false),
                pod: e.target_ref.as_ref().and_then(|t| t.name.clone()),
            }
        })
        .collect()
}

/// `before` and `after` without the endpoints that are the same in both.
fn changed_only(
    before: Vec<EndpointLine>,
    after: Vec<EndpointLine>,
) -> (Vec<EndpointLine>, Vec<EndpointLine>) {
    use std::collections::BTreeMap;
    let unchanged: Vec<bool> = {
        let old: BTreeMap<&str, &EndpointLine> =
            before.iter().map(|e| (e.address.as_str(), e)).collect();
        after
            .iter()
            .map(|e| old.get(e.address.as_str()) == Some(&e))
            .collect()
    };
    let kept: std::collections::BTreeSet<&str> = after
        .iter()
        .zip(&unchanged)
        .filter(|(_, same)| **same)
        .map(|(e, _)| e.address.as_str())
        .collect();
    let before: Vec<EndpointLine> = before
        .iter()
        .filter(|e| !kept.contains(e.address.as_str()))
        .cloned()
        .collect();
    let after = after
        .into_iter()
        .zip(unchanged)
        .filter(|(_, same)| !same)
        .map(|(e, _)| e)
        .collect();
    (before, after)
}

/// What a timeline shows of a write beyond its name (see [`WriteDetail`]).
fn write_detail(ev: &WatchEvent) -> Option<Box<WriteDetail>> {
    match &*ev.object {
        Object::EndpointSlice(_) => {
            let (before, after) = match ev.event_type {
                EventType::Added => (Vec::new(), endpoint_lines(&ev.object)),
                EventType::Deleted => (endpoint_lines(&ev.object), Vec::new()),
                EventType::Modified => (
                    endpoint_lines(ev.old.as_deref()?),
                    endpoint_lines(&ev.object),
                ),
            };
            let (before, after) = changed_only(before, after);
            Some(Box::new(WriteDetail::Endpoints { before, after }))
        }
        Object::Event(e) => {
            let o = &e.involved_object;
            Some(Box::new(WriteDetail::Event {
                reason: e.reason.clone().unwrap_or_default(),
                message: e.message.clone().unwrap_or_default(),
                warning: e.type_.as_deref() == Some("Warning"),
                regarding: (
                    o.kind.clone().unwrap_or_default(),
                    o.namespace.clone().unwrap_or_default(),
                    o.name.clone().unwrap_or_default(),
                ),
                count: e.count.unwrap_or(1),
            }))
        }
        _ => None,
    }
}

/// A write's kind of change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Added,
    Modified,
    Deleted,
}

impl FeedEvent {
    pub fn at_ms(&self) -> u64 {
        match self {
            FeedEvent::Request { at_ms, .. }
            | FeedEvent::Write { at_ms, .. }
            | FeedEvent::Order { at_ms, .. } => *at_ms,
        }
    }
}

/// The ring of recent events and the sequence number of the oldest.
#[derive(Clone, Debug, Default)]
pub struct Feed {
    events: VecDeque<FeedEvent>,
    /// The sequence number of `events[0]`.
    first: u64,
    /// Components notified by the writes being dispatched (a write made while
    /// another is dispatched nests).
    collecting: Vec<Vec<String>>,
}

impl PartialEq for Feed {
    /// The feed is a view: two clusters are equal whatever their feeds hold.
    fn eq(&self, _: &Feed) -> bool {
        true
    }
}

impl Eq for Feed {}

impl Feed {
    fn push(&mut self, event: FeedEvent) {
        if self.events.len() == FEED_CAPACITY {
            self.events.pop_front();
            self.first += 1;
        }
        self.events.push_back(event);
    }

    /// Puts `event` at sequence number `seq` (before what came after it), or last
    /// when `seq` has left the ring or is not reached yet.
    fn insert(&mut self, seq: u64, event: FeedEvent) {
        match seq.checked_sub(self.first) {
            Some(i) if (i as usize) < self.events.len() => {
                if self.events.len() == FEED_CAPACITY {
                    self.events.pop_front();
                    self.first += 1;
                    self.events.insert((i as usize).saturating_sub(1), event);
                } else {
                    self.events.insert(i as usize, event);
                }
            }
            _ => self.push(event),
        }
    }

    /// The sequence number the next event will get.
    pub fn next_seq(&self) -> u64 {
        self.first + self.events.len() as u64
    }
}

/// The events since a sequence number.
pub struct FeedSince<'a> {
    /// Events that fell out of the ring before they were read.
    pub missed: u64,
    /// What to ask for next time.
    pub next: u64,
    pub events: std::collections::vec_deque::Iter<'a, FeedEvent>,
}

impl Cluster {
    /// What happened since `seq` (0 for everything still kept).
    pub fn feed_since(&self, seq: u64) -> FeedSince<'_> {
        let feed = &self.feed;
        let start = seq.max(feed.first);
        let skip = (start - feed.first).min(feed.events.len() as u64) as usize;
        FeedSince {
            missed: feed.first.saturating_sub(seq),
            next: feed.next_seq(),
            events: feed.events.range(skip..),
        }
    }

    /// Called by the apiserver for every request it answers: listed where it
    /// arrived (`arrived`, the feed's position then), before the writes it made.
    pub(crate) fn feed_request(&mut self, r: &RequestRecord, arrived: u64) {
        let refused_at = r.stages.iter().find(|(_, ok)| !ok).map(|(s, _)| s.as_str());
        self.feed.insert(
            arrived,
            FeedEvent::Request {
                at_ms: r.at.0,
                user: r.user.clone(),
                verb: r.verb,
                target: r.target(),
                namespace: r.namespace.clone(),
                code: r.code,
                refused_at,
                stages: r
                    .stages
                    .iter()
                    .enumerate()
                    .map(|(i, (s, ok))| (s.as_str(), *ok, r.micros.get(i).copied().unwrap_or(0)))
                    .collect(),
                by_learner: r.by_learner(),
            },
        );
    }

    /// Starts collecting who a write is sent to (from `dispatch`).
    pub(crate) fn feed_dispatch_begin(&mut self) {
        self.feed.collecting.push(Vec::new());
    }

    /// A component's work queue got a key from the write being dispatched.
    pub(crate) fn feed_notified(&mut self, component: &Component) {
        if let Some(list) = self.feed.collecting.last_mut() {
            let name = component_name(component);
            if !list.contains(&name) {
                list.push(name);
            }
        }
    }

    /// Records the write that was dispatched, with its data-plane watchers.
    pub(crate) fn feed_dispatch_end(&mut self, ev: &WatchEvent, actor: &str) {
        let Some(mut notified) = self.feed.collecting.pop() else {
            return;
        };
        let proxy_kind = match self.proxy.mode {
            crate::network::proxy::ProxyMode::EndpointSlices => {
                matches!(*ev.object, Object::EndpointSlice(_))
            }
            crate::network::proxy::ProxyMode::Endpoints => {
                matches!(*ev.object, Object::Endpoints(_))
            }
        };
        let service = matches!(*ev.object, Object::Service(_));
        if proxy_kind || service {
            notified.push("kube-proxy".into());
        }
        // CoreDNS watches EndpointSlices whatever kube-proxy reads.
        if service || matches!(*ev.object, Object::EndpointSlice(_)) {
            notified.push("coredns".into());
        }
        if self.ingress.installed && crate::network::ingress::IngressState::watches(&ev.object) {
            notified.push("ingress-nginx".into());
        }
        let key = ev.object.key();
        let detail = write_detail(ev);
        self.feed.push(FeedEvent::Write {
            at_ms: self.now.0,
            revision: ev.revision,
            actor: actor.to_string(),
            kind: key.kind.info().kind,
            namespace: key.namespace,
            name: key.name,
            change: match ev.event_type {
                EventType::Added => Change::Added,
                EventType::Modified => Change::Modified,
                EventType::Deleted => Change::Deleted,
            },
            notified,
            detail,
        });
    }

    /// One order of the traffic generator.
    pub(crate) fn feed_order(
        &mut self,
        source: &str,
        outcome: Option<&crate::network::http::HttpOutcome>,
        failure: Option<String>,
    ) {
        let (via, pod) = match outcome {
            Some(o) => (
                o.via.clone(),
                o.result
                    .as_ref()
                    .ok()
                    .and_then(|r| r.pod.as_ref())
                    .map(|k| format!("{}/{}", k.namespace, k.name)),
            ),
            None => (Vec::new(), None),
        };
        self.feed.push(FeedEvent::Order {
            at_ms: self.now.0,
            source: source.to_string(),
            via,
            pod,
            failure,
        });
    }
}

/// A component as the feed names it.
pub fn component_name(component: &Component) -> String {
    match component {
        Component::Kubelet(node) => format!("kubelet:{node}"),
        Component::Scheduler => "kube-scheduler".to_string(),
        Component::Controller(id) => id.name().to_string(),
    }
}
