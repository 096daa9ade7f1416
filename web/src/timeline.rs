//! The timeline: a strip of what happened along simulated time — the requests the
//! reception desk (apiserver) answered, the writes in the ledger vault (etcd) and the
//! Kubernetes Events — oldest at the left, newest at the right.
//!
//! [`Model`] is a bounded ring ([`TIMELINE_CAPACITY`] entries) read from the change
//! feed (`Cluster::feed_since`) as the office reads it: each look costs what happened
//! since the last one. When the screen's warehouse is replaced (`AppState::epoch`: a
//! rewind, a lesson, a reload) the new cluster's feed is laid over the ring where the
//! two agree ([`Model::rebase`]): a rewind's replay repeats the same events, so what
//! came after the moment shown disappears and what came before stays.
//!
//! Zone heartbeats (Lease renewals, several a second) are counted, not listed: they
//! would push everything else out of the ring.

use crate::i18n::{Lang, Names, Tr};
use crate::kubectl::Session;
use crate::target::Target;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use warehouse_sim::views::feed::{Change, EndpointLine, FeedEvent, WriteDetail};
use warehouse_sim::Kind;
use yew::prelude::*;

/// The most entries the timeline keeps.
pub const TIMELINE_CAPACITY: usize = 2_000;
/// The most entries the strip draws at once (the newest that match the filters).
pub const SHOWN: usize = 300;

/// What kind of entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Sort {
    /// A request at the reception desk.
    Request,
    /// A write in the ledger vault.
    Write,
    /// A Kubernetes Event (itself a write, told by what it says).
    Event,
}

impl Sort {
    fn tag(self) -> &'static str {
        match self {
            Sort::Request => "request",
            Sort::Write => "write",
            Sort::Event => "event",
        }
    }

    fn from_tag(tag: &str) -> Option<Sort> {
        [Sort::Request, Sort::Write, Sort::Event]
            .into_iter()
            .find(|s| s.tag() == tag)
    }
}

/// One entry of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// Unique in this timeline (selection and keys).
    pub id: u64,
    pub at_ms: u64,
    pub sort: Sort,
    /// A request's verb (`create`, `get`, ...), or a write's change (`ADDED`,
    /// `MODIFIED`, `DELETED`).
    pub verb: &'static str,
    /// Who sent or wrote it (`system:node:zone-a`, `kubernetes-admin`, ...).
    pub actor: String,
    /// The object's kind (`Pod`), or for an Event the kind of the object it is about;
    /// a request for a resource the table does not know keeps the resource's name.
    pub kind: String,
    pub namespace: String,
    /// Empty for a create refused before it had a name.
    pub name: String,
    /// A request's subresource (`binding`, `status`, `eviction`).
    pub subresource: Option<String>,
    /// A request's HTTP status and the check that refused it.
    pub code: Option<u16>,
    pub refused_at: Option<&'static str>,
    /// A write's store revision.
    pub revision: Option<u64>,
    /// An EndpointSlice's endpoints before and after, an Event's reason and message.
    pub detail: Option<Rc<WriteDetail>>,
}

impl Item {
    /// The same entry, whatever id it was given (a replay repeats entries).
    fn same(&self, other: &Item) -> bool {
        Item {
            id: other.id,
            ..self.clone()
        } == *other
    }

    /// `deployment/web`, `pod/web-1 (binding)`.
    pub fn object(&self) -> String {
        let mut s = self.kind.to_ascii_lowercase();
        if !self.name.is_empty() {
            s.push('/');
            s.push_str(&self.name);
        }
        if let Some(sub) = &self.subresource {
            s.push_str(&format!(" ({sub})"));
        }
        s
    }

    /// The inspector's target for the object, when it opens on that kind.
    pub fn target(&self) -> Option<Target> {
        let (namespace, name) = (self.namespace.clone(), self.name.clone());
        if name.is_empty() {
            return None;
        }
        Some(match self.kind.as_str() {
            "Pod" => Target::Robot { namespace, name },
            "Node" => Target::Zone(name),
            "Service" => Target::Desk { namespace, name },
            "EndpointSlice" => Target::Sheet { namespace, name },
            "PodDisruptionBudget" => Target::Budget { namespace, name },
            "CronJob" => Target::Schedule { namespace, name },
            "HorizontalPodAutoscaler" => Target::Gauge { namespace, name },
            "NetworkPolicy" => Target::Fence { namespace, name },
            "Gateway" => Target::Gate { namespace, name },
            "PersistentVolume" => Target::Locker(name),
            _ => return None,
        })
    }

    /// `kubectl describe` for the object, for kinds the inspector does not open.
    pub fn describe_line(&self) -> Option<String> {
        if self.name.is_empty() || Kind::lookup(&self.kind).is_none() {
            return None;
        }
        let mut line = format!(
            "kubectl describe {}/{}",
            self.kind.to_ascii_lowercase(),
            self.name
        );
        if !self.namespace.is_empty() {
            line.push_str(&format!(" -n {}", self.namespace));
        }
        Some(line)
    }
}

/// A feed event as a timeline entry (id 0); `None` for what the timeline leaves out:
/// orders through the data plane, and Leases (counted by the caller).
pub fn item_of(event: &FeedEvent) -> Option<Item> {
    match event {
        FeedEvent::Request {
            at_ms,
            user,
            verb,
            target,
            namespace,
            code,
            refused_at,
            ..
        } => {
            let mut parts = target.splitn(3, '/');
            let resource = parts.next().unwrap_or_default();
            let name = parts.next().unwrap_or_default().to_string();
            let subresource = parts.next().map(str::to_string);
            let kind = Kind::lookup(resource)
                .map_or_else(|| resource.to_string(), |k| k.info().kind.to_string());
            Some(Item {
                id: 0,
                at_ms: *at_ms,
                sort: Sort::Request,
                verb,
                actor: user.clone(),
                kind,
                namespace: namespace.clone(),
                name,
                subresource,
                code: Some(*code),
                refused_at: *refused_at,
                revision: None,
                detail: None,
            })
        }
        FeedEvent::Write {
            at_ms,
            revision,
            actor,
            kind,
            namespace,
            name,
            change,
            detail,
            ..
        } => {
            let verb = match change {
                Change::Added => "ADDED",
                Change::Modified => "MODIFIED",
                Change::Deleted => "DELETED",
            };
            let mut item = Item {
                id: 0,
                at_ms: *at_ms,
                sort: Sort::Write,
                verb,
                actor: actor.clone(),
                kind: kind.to_string(),
                namespace: namespace.clone(),
                name: name.clone(),
                subresource: None,
                code: None,
                refused_at: None,
                revision: Some(*revision),
                detail: detail.as_deref().cloned().map(Rc::new),
            };
            if let Some(WriteDetail::Event { regarding, .. }) = item.detail.as_deref() {
                item.sort = Sort::Event;
                item.kind = regarding.0.clone();
                item.namespace = regarding.1.clone();
                item.name = regarding.2.clone();
            }
            Some(item)
        }
        FeedEvent::Order { .. } => None,
    }
}

/// A zone's (or a component's) heartbeat: a Lease renewal or its request.
fn is_heartbeat(item: &Item) -> bool {
    item.kind == "Lease" && item.sort != Sort::Event
}

/// The timeline's ring and what it counts, read incrementally from the feed.
#[derive(Debug)]
pub struct Model {
    items: VecDeque<Rc<Item>>,
    next_id: u64,
    /// The feed position read up to.
    seq: u64,
    /// The warehouse read from (`AppState::epoch`); `None` before the first look.
    epoch: Option<u64>,
    /// Bumped whenever the entries change.
    pub generation: u64,
    /// Entries the feed dropped before they were read (a long fast-forward).
    pub missed: u64,
    /// Heartbeats (Lease renewals) seen and left out.
    pub heartbeats: u64,
    /// How many entries each actor and each kind has, for the filters' choices.
    actors: BTreeMap<String, usize>,
    kinds: BTreeMap<String, usize>,
    capacity: usize,
}

impl Default for Model {
    fn default() -> Self {
        Model::with_capacity(TIMELINE_CAPACITY)
    }
}

impl Model {
    pub fn with_capacity(capacity: usize) -> Model {
        Model {
            items: VecDeque::new(),
            next_id: 1,
            seq: 0,
            epoch: None,
            generation: 0,
            missed: 0,
            heartbeats: 0,
            actors: BTreeMap::new(),
            kinds: BTreeMap::new(),
            capacity: capacity.max(1),
        }
    }

    pub fn items(&self) -> &VecDeque<Rc<Item>> {
        &self.items
    }

    /// The actors and kinds present, with their counts.
    pub fn actors(&self) -> &BTreeMap<String, usize> {
        &self.actors
    }

    pub fn kinds(&self) -> &BTreeMap<String, usize> {
        &self.kinds
    }

    fn count(map: &mut BTreeMap<String, usize>, key: &str, up: bool) {
        if up {
            *map.entry(key.to_string()).or_default() += 1;
        } else if let Some(n) = map.get_mut(key) {
            *n -= 1;
            if *n == 0 {
                map.remove(key);
            }
        }
    }

    fn counted(&mut self, item: &Item, up: bool) {
        Model::count(&mut self.actors, &item.actor, up);
        Model::count(&mut self.kinds, &item.kind, up);
    }

    /// Adds an entry at the right, dropping the oldest at capacity.
    fn push(&mut self, mut item: Item) {
        if is_heartbeat(&item) {
            self.heartbeats += 1;
            return;
        }
        if self.items.len() == self.capacity {
            if let Some(old) = self.items.pop_front() {
                self.counted(&old, false);
            }
        }
        item.id = self.next_id;
        self.next_id += 1;
        self.counted(&item, true);
        self.items.push_back(Rc::new(item));
        self.generation += 1;
    }

    /// Drops the entries from index `at` on.
    fn truncate(&mut self, at: usize) {
        while self.items.len() > at {
            if let Some(old) = self.items.pop_back() {
                self.counted(&old, false);
                self.generation += 1;
            }
        }
    }

    /// What the feed says happened since the last look.
    pub fn ingest<'a>(
        &mut self,
        missed: u64,
        next: u64,
        events: impl Iterator<Item = &'a FeedEvent>,
    ) {
        if missed > 0 {
            self.missed += missed;
            self.generation += 1;
        }
        for event in events {
            if let Some(item) = item_of(event) {
                self.push(item);
            }
        }
        self.seq = next;
    }

    /// The screen's warehouse was replaced: `fresh` is all the new cluster's feed
    /// still holds, `now_ms` its clock and `revision` its store's. Where the two
    /// records agree (a rewind replays the same events), the ring keeps what came
    /// before and takes the new record from there on; a record that shares nothing
    /// replaces the ring.
    pub fn rebase(&mut self, fresh: Vec<Item>, now_ms: u64, revision: u64) {
        let fresh: Vec<Item> = fresh
            .into_iter()
            .filter(|item| {
                let beat = is_heartbeat(item);
                if beat {
                    self.heartbeats += 1;
                }
                !beat
            })
            .collect();
        self.generation += 1;
        let Some(first) = fresh.first() else {
            // Nothing new was recorded since the copy the cluster was restored from:
            // the ring stands up to the store's revision and the clock. A learner's
            // command at the very moment shown is still ahead (its request goes
            // with the writes it made).
            let mut keep = self
                .items
                .iter()
                .position(|i| i.at_ms > now_ms || i.revision.is_some_and(|r| r > revision))
                .unwrap_or(self.items.len());
            while keep > 0
                && self.items[keep - 1].sort == Sort::Request
                && self.items[keep - 1].at_ms == now_ms
            {
                keep -= 1;
            }
            self.truncate(keep);
            return;
        };
        let agrees = |ring: &VecDeque<Rc<Item>>, at: usize, from: usize| {
            ring.iter()
                .skip(at)
                .zip(fresh.iter().skip(from))
                .all(|(a, b)| a.same(b))
        };
        // The new record starts inside the ring: keep what came before it.
        let cut =
            (0..self.items.len()).find(|&c| self.items[c].same(first) && agrees(&self.items, c, 0));
        // Where the new record repeats entries the ring holds, they stay as they
        // are (with their ids, so a selection survives).
        let (keep, skip) = match cut {
            Some(c) => {
                let overlap = (self.items.len() - c).min(fresh.len());
                (c + overlap, overlap)
            }
            None => {
                let ring_starts_inside = self.items.front().is_some_and(|oldest| {
                    (0..fresh.len()).any(|j| fresh[j].same(oldest) && agrees(&self.items, 0, j))
                });
                let after_the_ring = self
                    .items
                    .back()
                    .is_some_and(|newest| first.at_ms > newest.at_ms && first.at_ms <= now_ms);
                if after_the_ring && !ring_starts_inside {
                    (self.items.len(), 0)
                } else {
                    (0, 0)
                }
            }
        };
        self.truncate(keep);
        for item in fresh.into_iter().skip(skip) {
            self.push(item);
        }
    }

    /// Brings the ring up to date with the session's cluster; `epoch` is the
    /// screen's warehouse (a new one rebases). Returns whether anything changed.
    pub fn pump(&mut self, cluster: &warehouse_sim::Cluster, epoch: u64) -> bool {
        let before = self.generation;
        let since = cluster.feed_since(self.seq);
        if self.epoch != Some(epoch) || since.next < self.seq {
            self.epoch = Some(epoch);
            let all = cluster.feed_since(0);
            let next = all.next;
            let fresh = all.events.filter_map(item_of).collect();
            self.rebase(fresh, cluster.now().0, cluster.revision());
            self.seq = next;
        } else {
            self.ingest(since.missed, since.next, since.events);
        }
        self.generation != before
    }
}

/// Which entries the strip shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    pub sort: Option<Sort>,
    /// Who sent or wrote it (the feed's actor, exactly).
    pub actor: Option<String>,
    /// The object's kind, exactly (`EndpointSlice`).
    pub kind: Option<String>,
    /// Part of the object's name (or `namespace/name`), any case.
    pub name: String,
}

impl Filter {
    pub fn matches(&self, item: &Item) -> bool {
        if self.sort.is_some_and(|s| s != item.sort) {
            return false;
        }
        if self.actor.as_ref().is_some_and(|a| *a != item.actor) {
            return false;
        }
        if self.kind.as_ref().is_some_and(|k| *k != item.kind) {
            return false;
        }
        let needle = self.name.trim().to_lowercase();
        needle.is_empty()
            || format!("{}/{}", item.namespace, item.name)
                .to_lowercase()
                .contains(&needle)
    }

    /// The newest `limit` matching entries, oldest first, and how many match in all.
    pub fn newest<'a>(
        &self,
        items: &'a VecDeque<Rc<Item>>,
        limit: usize,
    ) -> (Vec<&'a Rc<Item>>, usize) {
        let mut total = 0;
        let mut shown = Vec::new();
        for item in items.iter().rev() {
            if self.matches(item) {
                total += 1;
                if shown.len() < limit {
                    shown.push(item);
                }
            }
        }
        shown.reverse();
        (shown, total)
    }
}

/// What one write did to an EndpointSlice's endpoints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndpointChange {
    Added(EndpointLine),
    Removed(EndpointLine),
    /// The same address, now ready or not, or terminating.
    Changed {
        before: EndpointLine,
        after: EndpointLine,
    },
}

/// The endpoints a write added, removed or changed the readiness of (by address):
/// additions and changes in the slice's new order, then removals in its old one.
pub fn endpoint_changes(before: &[EndpointLine], after: &[EndpointLine]) -> Vec<EndpointChange> {
    let old: BTreeMap<&str, &EndpointLine> =
        before.iter().map(|e| (e.address.as_str(), e)).collect();
    let new: BTreeMap<&str, &EndpointLine> =
        after.iter().map(|e| (e.address.as_str(), e)).collect();
    let mut out = Vec::new();
    for e in after {
        match old.get(e.address.as_str()) {
            None => out.push(EndpointChange::Added(e.clone())),
            Some(b) if b.ready != e.ready || b.terminating != e.terminating => {
                out.push(EndpointChange::Changed {
                    before: (*b).clone(),
                    after: e.clone(),
                })
            }
            Some(_) => {}
        }
    }
    for e in before {
        if !new.contains_key(e.address.as_str()) {
            out.push(EndpointChange::Removed(e.clone()));
        }
    }
    out
}

/// One endpoint's state in words.
fn endpoint_state(tr: Tr, e: &EndpointLine) -> &'static str {
    if e.terminating {
        t(tr, T::Terminating)
    } else if e.ready {
        t(tr, T::Ready)
    } else {
        t(tr, T::NotReady)
    }
}

/// A change as a line: `+ 10.244.1.5 (ready) web-1`, `− 10.244.2.3 web-2`,
/// `~ 10.244.1.5: ready → not ready web-1`.
pub fn endpoint_line(tr: Tr, change: &EndpointChange) -> String {
    let pod = |e: &EndpointLine| {
        e.pod
            .as_ref()
            .map_or_else(String::new, |p| format!(" — {p}"))
    };
    match change {
        EndpointChange::Added(e) => {
            format!("+ {} ({}){}", e.address, endpoint_state(tr, e), pod(e))
        }
        EndpointChange::Removed(e) => format!("− {}{}", e.address, pod(e)),
        EndpointChange::Changed { before, after } => format!(
            "~ {}: {} → {}{}",
            after.address,
            endpoint_state(tr, before),
            endpoint_state(tr, after),
            pod(after)
        ),
    }
}

/// The timeline's labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum T {
    Heading,
    Hint,
    Show,
    Everything,
    Requests,
    Writes,
    Events,
    OneRequest,
    OneWrite,
    OneEvent,
    Who,
    Everyone,
    Kind,
    AllKinds,
    Name,
    NamePlaceholder,
    Strip,
    Nothing,
    Time,
    What,
    Object,
    Result,
    Stored,
    Refused,
    Revision,
    Reason,
    Message,
    Warning,
    Normal,
    SheetChanges,
    NoEndpointChange,
    Inspect,
    Describe,
    Close,
    Ready,
    NotReady,
    Terminating,
    Created,
    Changed,
    Deleted,
    Details,
}

use crate::inspector_i18n::{both, pick};

pub fn t(tr: Tr, key: T) -> &'static str {
    match key {
        T::Heading => both(tr, "Timeline", "Хронология"),
        T::Hint => pick(
            tr,
            [
                "What the reception desk received, what was written in the ledger vault, \
                 and the Events, along simulated time: oldest at the left, newest at the \
                 right. Pick one to see what it touched. The zones' heartbeats (Leases) \
                 are left out.",
                "Requests to kube-apiserver, writes to etcd and Events along simulated \
                 time: oldest at the left, newest at the right. Pick one to see what it \
                 touched. Lease renewals (heartbeats) are left out.",
                "Что получила стойка регистрации, что записано в хранилище журнала и \
                 какие были события (Events) — по времени симуляции: старое слева, новое \
                 справа. Выберите запись, чтобы увидеть, что она затронула. Пульс зон \
                 (Lease) не показан.",
                "Запросы к kube-apiserver, записи в etcd и события (Events) по времени \
                 симуляции: старое слева, новое справа. Выберите запись, чтобы увидеть, \
                 что она затронула. Продления Lease (heartbeat) не показаны.",
            ],
        ),
        T::Show => both(tr, "Show", "Показать"),
        T::Everything => both(tr, "Everything", "Всё"),
        T::Requests => pick(
            tr,
            [
                "Requests at the reception desk",
                "API requests",
                "Запросы к стойке регистрации",
                "Запросы к API",
            ],
        ),
        T::Writes => pick(
            tr,
            [
                "Writes in the ledger",
                "etcd writes",
                "Записи в хранилище журнала",
                "Записи в etcd",
            ],
        ),
        T::Events => both(tr, "Events", "События (Events)"),
        T::OneRequest => pick(
            tr,
            [
                "Request at the reception desk",
                "API request",
                "Запрос к стойке регистрации",
                "Запрос к API",
            ],
        ),
        T::OneWrite => pick(
            tr,
            [
                "Write in the ledger",
                "etcd write",
                "Запись в хранилище журнала",
                "Запись в etcd",
            ],
        ),
        T::OneEvent => both(tr, "Event", "Событие (Event)"),
        T::Who => both(tr, "Who", "Кто"),
        T::Everyone => both(tr, "Everyone", "Все"),
        T::Kind => both(tr, "Kind of object", "Тип объекта"),
        T::AllKinds => both(tr, "All kinds", "Все типы"),
        T::Name => both(tr, "Name contains", "Имя содержит"),
        T::NamePlaceholder => both(tr, "e.g. web", "например, web"),
        T::Strip => both(
            tr,
            "Timeline entries, oldest first",
            "Записи хронологии, сначала старые",
        ),
        T::Nothing => both(
            tr,
            "Nothing here matches these filters.",
            "Под эти фильтры ничего не подходит.",
        ),
        T::Time => both(tr, "Time", "Время"),
        T::What => both(tr, "What", "Что"),
        T::Object => both(tr, "Object", "Объект"),
        T::Result => both(tr, "Result", "Итог"),
        T::Stored => pick(tr, ["accepted", "accepted", "принят", "принят"]),
        T::Refused => both(tr, "refused at", "отказ на шаге"),
        T::Revision => pick(
            tr,
            [
                "written in the ledger vault, revision",
                "written to etcd, revision",
                "записано в хранилище журнала, ревизия",
                "записано в etcd, ревизия",
            ],
        ),
        T::Reason => both(tr, "Reason", "Причина"),
        T::Message => both(tr, "Message", "Сообщение"),
        T::Warning => both(tr, "Warning", "Предупреждение"),
        T::Normal => both(tr, "Normal", "Обычное"),
        T::SheetChanges => pick(
            tr,
            [
                "What changed on the sheet",
                "Endpoints changed",
                "Что изменилось в листе",
                "Изменения endpoints",
            ],
        ),
        T::NoEndpointChange => pick(
            tr,
            [
                "No robot was added to or taken off the sheet, and none changed readiness.",
                "No endpoint was added or removed, and none changed readiness.",
                "Ни один робот не добавлен в лист и не убран из него, готовность не менялась.",
                "Ни один endpoint не добавлен и не удалён, готовность не менялась.",
            ],
        ),
        T::Inspect => both(tr, "Inspect", "Подробнее"),
        T::Describe => both(tr, "Describe in the terminal", "Описать в терминале"),
        T::Close => both(tr, "Close", "Закрыть"),
        T::Ready => both(tr, "ready", "готов"),
        T::NotReady => both(tr, "not ready", "не готов"),
        T::Terminating => both(tr, "terminating", "завершается"),
        T::Created => both(tr, "created", "создание"),
        T::Changed => both(tr, "changed", "изменение"),
        T::Deleted => both(tr, "deleted", "удаление"),
        T::Details => both(tr, "Selected entry", "Выбранная запись"),
    }
}

/// A kind with its warehouse word, for the kind filter (`EndpointSlice (sheet)`).
fn kind_label(tr: Tr, kind: &str) -> String {
    if tr.names == Names::Kubernetes {
        return kind.to_string();
    }
    let word = match (kind, tr.lang) {
        ("Pod", Lang::En) => "robot",
        ("Pod", Lang::Ru) => "робот",
        ("Node", Lang::En) => "zone",
        ("Node", Lang::Ru) => "зона",
        ("Service", Lang::En) => "order desk",
        ("Service", Lang::Ru) => "стойка приёма заказов",
        ("EndpointSlice", Lang::En) => "sheet",
        ("EndpointSlice", Lang::Ru) => "лист",
        ("Endpoints", Lang::En) => "master scroll",
        ("Endpoints", Lang::Ru) => "главный свиток",
        ("CronJob", Lang::En) => "task schedule",
        ("CronJob", Lang::Ru) => "расписание заданий",
        ("HorizontalPodAutoscaler", Lang::En) => "load gauge",
        ("HorizontalPodAutoscaler", Lang::Ru) => "датчик загрузки",
        ("PodDisruptionBudget", Lang::En) => "staffing minimum",
        ("PodDisruptionBudget", Lang::Ru) => "минимум смены",
        ("NetworkPolicy", Lang::En) => "fence",
        ("NetworkPolicy", Lang::Ru) => "ограждение",
        ("PersistentVolume", Lang::En) => "locker",
        ("PersistentVolume", Lang::Ru) => "шкафчик",
        _ => return kind.to_string(),
    };
    format!("{kind} ({word})")
}

/// A write's change in words.
fn change_word(tr: Tr, verb: &str) -> &'static str {
    match verb {
        "ADDED" => t(tr, T::Created),
        "DELETED" => t(tr, T::Deleted),
        _ => t(tr, T::Changed),
    }
}

/// The short name a card gives its sender (`kubelet:zone-a`, `replicaset-controller`).
fn short_actor(tr: Tr, actor: &str) -> String {
    if actor == "kubernetes-admin" {
        return both(tr, "you", "вы").to_string();
    }
    crate::office::station_label(tr, &warehouse_station(actor))
}

/// The station id the office gives a user (see `frames::station`).
fn warehouse_station(user: &str) -> String {
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

/// A card's kind line: `EndpointSlice`, `Pod (binding)`.
fn card_kind(item: &Item) -> String {
    match &item.subresource {
        Some(sub) => format!("{} ({sub})", item.kind),
        None => item.kind.clone(),
    }
}

/// What a card says on its second line: `create`, `created`, `Scheduled`.
fn headline(tr: Tr, item: &Item) -> String {
    match (item.sort, item.detail.as_deref()) {
        (Sort::Event, Some(WriteDetail::Event { reason, .. })) => reason.clone(),
        (Sort::Write, _) => change_word(tr, item.verb).to_string(),
        _ => item.verb.to_string(),
    }
}

/// What a screen reader hears first on a card: what sort of entry it is (the rest
/// of its name is the card's visible text).
fn sort_word(tr: Tr, sort: Sort) -> &'static str {
    match sort {
        Sort::Request => t(tr, T::OneRequest),
        Sort::Write => t(tr, T::OneWrite),
        Sort::Event => t(tr, T::OneEvent),
    }
}

#[derive(Properties)]
pub struct TimelineProps {
    pub session: Rc<RefCell<Session>>,
    /// The screen's warehouse (`AppState::epoch`).
    pub epoch: u64,
    /// The simulated time shown (re-reads the feed when it moves).
    pub now_ms: u64,
    /// The feed's next sequence number: something new to read (a request at the same
    /// simulated time, a `kubectl get` while paused).
    pub feed: u64,
    pub tr: Tr,
    pub on_inspect: Callback<Target>,
    pub on_run: Callback<String>,
}

impl PartialEq for TimelineProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.session, &other.session)
            && self.epoch == other.epoch
            && self.now_ms == other.now_ms
            && self.feed == other.feed
            && self.tr == other.tr
    }
}

fn value_of(e: &Event) -> String {
    e.target_dyn_into::<web_sys::HtmlInputElement>()
        .map(|i| i.value())
        .or_else(|| {
            e.target_dyn_into::<web_sys::HtmlSelectElement>()
                .map(|s| s.value())
        })
        .unwrap_or_default()
}

/// Reads what is new in the feed whenever the clock, the store or the warehouse
/// moves, and hands the ring to [`TimelineBody`], which draws only when the ring
/// changed (a tick that wrote nothing draws nothing).
#[function_component]
pub fn Timeline(props: &TimelineProps) -> Html {
    let model = use_mut_ref(Model::default);
    if let Ok(session) = props.session.try_borrow() {
        model.borrow_mut().pump(&session.cluster, props.epoch);
    }
    let generation = model.borrow().generation;
    html! {
        <TimelineBody model={model.clone()} {generation} tr={props.tr}
                      on_inspect={props.on_inspect.clone()} on_run={props.on_run.clone()} />
    }
}

#[derive(Properties)]
struct BodyProps {
    model: Rc<RefCell<Model>>,
    /// The ring's generation: the body draws again only when it changes.
    generation: u64,
    tr: Tr,
    on_inspect: Callback<Target>,
    on_run: Callback<String>,
}

impl PartialEq for BodyProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.model, &other.model)
            && self.generation == other.generation
            && self.tr == other.tr
    }
}

#[function_component]
fn TimelineBody(props: &BodyProps) -> Html {
    let filter = use_state(Filter::default);
    let selected = use_state(|| None::<u64>);
    let strip = use_node_ref();
    // Follow the newest entry unless the learner scrolled back.
    let follow = use_mut_ref(|| true);
    let tr = props.tr;
    let m = props.model.borrow();
    let generation = props.generation;
    {
        let strip = strip.clone();
        let follow = follow.clone();
        use_effect_with((generation, (*filter).clone()), move |_| {
            if *follow.borrow() {
                if let Some(el) = strip.cast::<web_sys::Element>() {
                    el.set_scroll_left(el.scroll_width());
                }
            }
        });
    }
    let onscroll = {
        let strip = strip.clone();
        let follow = follow.clone();
        Callback::from(move |_: Event| {
            if let Some(el) = strip.cast::<web_sys::Element>() {
                *follow.borrow_mut() =
                    el.scroll_left() + el.client_width() >= el.scroll_width() - 8;
            }
        })
    };

    let on_sort = {
        let filter = filter.clone();
        Callback::from(move |e: Event| {
            let mut f = (*filter).clone();
            f.sort = Sort::from_tag(&value_of(&e));
            filter.set(f);
        })
    };
    let on_actor = {
        let filter = filter.clone();
        Callback::from(move |e: Event| {
            let mut f = (*filter).clone();
            let v = value_of(&e);
            f.actor = (!v.is_empty()).then_some(v);
            filter.set(f);
        })
    };
    let on_kind = {
        let filter = filter.clone();
        Callback::from(move |e: Event| {
            let mut f = (*filter).clone();
            let v = value_of(&e);
            f.kind = (!v.is_empty()).then_some(v);
            filter.set(f);
        })
    };
    let on_name = {
        let filter = filter.clone();
        Callback::from(move |e: InputEvent| {
            let mut f = (*filter).clone();
            f.name = value_of(&e);
            filter.set(f);
        })
    };

    let sort_options = [
        (None, t(tr, T::Everything)),
        (Some(Sort::Request), t(tr, T::Requests)),
        (Some(Sort::Write), t(tr, T::Writes)),
        (Some(Sort::Event), t(tr, T::Events)),
    ]
    .into_iter()
    .map(|(s, label)| {
        let value = s.map_or("", Sort::tag);
        html! { <option value={value} selected={filter.sort == s}>{ label }</option> }
    });
    // The chosen actor or kind stays offered while it has no entries left.
    let mut actors: Vec<(String, usize)> =
        m.actors().iter().map(|(a, n)| (a.clone(), *n)).collect();
    if let Some(a) = &filter.actor {
        if !m.actors().contains_key(a) {
            actors.push((a.clone(), 0));
        }
    }
    let mut actor_rows: Vec<(String, String, usize)> = actors
        .into_iter()
        .map(|(a, n)| (crate::inspector_i18n::actor(tr, &a), a, n))
        .collect();
    actor_rows.sort();
    let actor_options = actor_rows.into_iter().map(|(label, a, n)| {
        let selected = filter.actor.as_deref() == Some(a.as_str());
        html! { <option value={a.clone()} {selected}>{ format!("{label} · {n}") }</option> }
    });
    let mut kinds: Vec<(String, usize)> = m.kinds().iter().map(|(k, n)| (k.clone(), *n)).collect();
    if let Some(k) = &filter.kind {
        if !m.kinds().contains_key(k) {
            kinds.push((k.clone(), 0));
            kinds.sort();
        }
    }
    let kind_options = kinds.into_iter().map(|(k, n)| {
        let selected = filter.kind.as_deref() == Some(k.as_str());
        html! { <option value={k.clone()} {selected}>{ format!("{} · {n}", kind_label(tr, &k)) }</option> }
    });

    let (shown, total) = filter.newest(m.items(), SHOWN);
    let cards = shown.iter().map(|item| {
        let id = item.id;
        let is_selected = *selected == Some(id);
        let onclick = {
            let selected = selected.clone();
            Callback::from(move |_: MouseEvent| {
                selected.set(if is_selected { None } else { Some(id) })
            })
        };
        let refused = item.code.is_some_and(|c| c >= 400);
        let warning = matches!(item.detail.as_deref(), Some(WriteDetail::Event { warning: true, .. }));
        let class = classes!(
            "timeline-entry",
            item.sort.tag(),
            refused.then_some("refused"),
            warning.then_some("warning"),
        );
        html! {
            <li key={id} class={class}>
                <button type="button" id={format!("timeline-entry-{id}")}
                        aria-pressed={is_selected.to_string()}
                        data-sort={item.sort.tag()} data-kind={item.kind.clone()}
                        data-name={item.name.clone()} data-namespace={item.namespace.clone()}
                        data-verb={item.verb} data-actor={item.actor.clone()}
                        data-at={item.at_ms.to_string()}
                        data-revision={item.revision.map(|r| r.to_string())}
                        data-code={item.code.map(|c| c.to_string())}
                        {onclick}>
                    <span class="visually-hidden">{ sort_word(tr, item.sort) }{ ": " }</span>
                    <span class="timeline-time">{ crate::i18n::clock(item.at_ms) }</span>
                    <span class="timeline-verb">{ headline(tr, item) }
                        if let Some(code) = item.code { <span class="timeline-code">{ format!(" {code}") }</span> }
                    </span>
                    <span class="timeline-kind">{ card_kind(item) }</span>
                    <span class="timeline-object" title={item.object()}>{ item.name.clone() }</span>
                    <span class="timeline-actor">{ short_actor(tr, &item.actor) }</span>
                </button>
            </li>
        }
    });
    let empty =
        (total == 0).then(|| html! { <li class="muted timeline-empty">{ t(tr, T::Nothing) }</li> });
    let count = count_line(tr, shown.len(), total, m.missed);
    let details = selected
        .and_then(|id| m.items().iter().find(|i| i.id == id).cloned())
        .map(|item| {
            let close = {
                let selected = selected.clone();
                Callback::from(move |_: MouseEvent| selected.set(None))
            };
            details(tr, &item, &props.on_inspect, &props.on_run, close)
        });

    html! {
        <section class="timeline panel" aria-labelledby="timeline-heading">
            <h2 id="timeline-heading">{ t(tr, T::Heading) }</h2>
            <p class="hint">{ t(tr, T::Hint) }</p>
            <div class="timeline-filters">
                <span class="timeline-filter">
                    <label for="timeline-sort">{ t(tr, T::Show) }</label>
                    <select id="timeline-sort" onchange={on_sort}>{ for sort_options }</select>
                </span>
                <span class="timeline-filter">
                    <label for="timeline-actor">{ t(tr, T::Who) }</label>
                    <select id="timeline-actor" onchange={on_actor}>
                        <option value="" selected={filter.actor.is_none()}>{ t(tr, T::Everyone) }</option>
                        { for actor_options }
                    </select>
                </span>
                <span class="timeline-filter">
                    <label for="timeline-kind">{ t(tr, T::Kind) }</label>
                    <select id="timeline-kind" onchange={on_kind}>
                        <option value="" selected={filter.kind.is_none()}>{ t(tr, T::AllKinds) }</option>
                        { for kind_options }
                    </select>
                </span>
                <span class="timeline-filter">
                    <label for="timeline-name">{ t(tr, T::Name) }</label>
                    <input id="timeline-name" type="search" value={filter.name.clone()}
                           placeholder={t(tr, T::NamePlaceholder)} oninput={on_name} />
                </span>
            </div>
            <p id="timeline-count" class="timeline-count muted" aria-live="polite">{ count }</p>
            <ol id="timeline-strip" class="timeline-strip" ref={strip} aria-label={t(tr, T::Strip)}
                {onscroll} tabindex="-1">
                { for cards }{ for empty }
            </ol>
            { for details }
        </section>
    }
}

/// `Showing 300 of 1,874 entries.`, with what went by unlisted.
fn count_line(tr: Tr, shown: usize, total: usize, missed: u64) -> String {
    let n = |x: u64| crate::numbers::int(tr.lang, x);
    let mut s = match tr.lang {
        Lang::En if shown < total => format!(
            "Showing the newest {} of {} entries.",
            n(shown as u64),
            n(total as u64)
        ),
        Lang::En => format!(
            "{} {}.",
            n(total as u64),
            if total == 1 { "entry" } else { "entries" }
        ),
        Lang::Ru if shown < total => format!(
            "Показаны последние {} из {}.",
            n(shown as u64),
            crate::numbers::ru_count(total as u64, "записи", "записей", "записей")
        ),
        Lang::Ru => format!(
            "{}.",
            crate::numbers::ru_count(total as u64, "запись", "записи", "записей")
        ),
    };
    if missed > 0 {
        s.push(' ');
        s.push_str(&match tr.lang {
            Lang::En => format!("{} went by too fast to be listed.", n(missed)),
            Lang::Ru => format!(
                "Ещё {} промелькнули слишком быстро и не попали в список.",
                crate::numbers::ru_count(missed, "запись", "записи", "записей")
            ),
        });
    }
    s
}

/// The selected entry: what, who, when, its result, and what it touched.
fn details(
    tr: Tr,
    item: &Item,
    on_inspect: &Callback<Target>,
    on_run: &Callback<String>,
    close: Callback<MouseEvent>,
) -> Html {
    let what = match item.sort {
        Sort::Request => format!("{}: {}", t(tr, T::OneRequest), item.verb),
        Sort::Write => format!("{}: {}", t(tr, T::OneWrite), change_word(tr, item.verb)),
        Sort::Event => t(tr, T::OneEvent).to_string(),
    };
    let object = if item.namespace.is_empty() {
        item.object()
    } else {
        format!("{} -n {}", item.object(), item.namespace)
    };
    let result = match (item.code, item.refused_at, item.revision) {
        (Some(code), Some(stage), _) => {
            format!("{code} — {} {}", t(tr, T::Refused), tr.stage(stage))
        }
        (Some(code), None, _) => format!("{code} — {}", t(tr, T::Stored)),
        (None, _, Some(rev)) => format!("{} {rev}", t(tr, T::Revision)),
        _ => String::new(),
    };
    let extra = match item.detail.as_deref() {
        Some(WriteDetail::Endpoints { before, after }) => {
            let changes = endpoint_changes(before, after);
            let lines = changes.iter().map(|c| {
                let class = match c {
                    EndpointChange::Added(_) => "added",
                    EndpointChange::Removed(_) => "removed",
                    EndpointChange::Changed { .. } => "changed",
                };
                html! { <li class={class}>{ endpoint_line(tr, c) }</li> }
            });
            html! {
                <>
                    <h4>{ t(tr, T::SheetChanges) }</h4>
                    if changes.is_empty() {
                        <p class="muted">{ t(tr, T::NoEndpointChange) }</p>
                    } else {
                        <ul id="timeline-endpoints" class="timeline-endpoints">{ for lines }</ul>
                    }
                </>
            }
        }
        Some(WriteDetail::Event {
            reason,
            message,
            warning,
            count,
            ..
        }) => {
            let sort = if *warning {
                t(tr, T::Warning)
            } else {
                t(tr, T::Normal)
            };
            let reason = if *count > 1 {
                format!("{reason} ({sort}, ×{count})")
            } else {
                format!("{reason} ({sort})")
            };
            html! {
                <>
                    <dt>{ t(tr, T::Reason) }</dt><dd>{ reason }</dd>
                    <dt>{ t(tr, T::Message) }</dt><dd>{ message.clone() }</dd>
                </>
            }
        }
        None => Html::default(),
    };
    let is_event = item.sort == Sort::Event;
    let action = match (item.target(), item.describe_line()) {
        (Some(target), _) => {
            let on_inspect = on_inspect.clone();
            let label = format!("{} {}", t(tr, T::Inspect), item.object());
            html! {
                <button type="button" id="timeline-inspect"
                        onclick={Callback::from(move |_: MouseEvent| on_inspect.emit(target.clone()))}>
                    { label }
                </button>
            }
        }
        (None, Some(line)) => {
            let on_run = on_run.clone();
            html! {
                <button type="button" id="timeline-describe" title={line.clone()}
                        onclick={Callback::from(move |_: MouseEvent| on_run.emit(line.clone()))}>
                    { t(tr, T::Describe) }
                </button>
            }
        }
        _ => Html::default(),
    };
    let (event_extra, endpoints_extra) = if is_event {
        (extra, Html::default())
    } else {
        (Html::default(), extra)
    };
    html! {
        <div id="timeline-details" class="timeline-details" role="region"
             aria-label={t(tr, T::Details)} data-id={item.id.to_string()}>
            <dl>
                <dt>{ t(tr, T::Time) }</dt><dd>{ crate::i18n::clock(item.at_ms) }</dd>
                <dt>{ t(tr, T::What) }</dt><dd id="timeline-what">{ what }</dd>
                <dt>{ t(tr, T::Object) }</dt><dd id="timeline-object">{ object }</dd>
                <dt>{ t(tr, T::Who) }</dt>
                <dd id="timeline-who">{ format!("{} ({})", crate::inspector_i18n::actor(tr, &item.actor), item.actor) }</dd>
                if !result.is_empty() {
                    <dt>{ t(tr, T::Result) }</dt><dd id="timeline-result">{ result }</dd>
                }
                { event_extra }
            </dl>
            { endpoints_extra }
            <div class="timeline-actions">
                { action }
                <button type="button" class="link" onclick={close}>{ t(tr, T::Close) }</button>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warehouse_sim::{Cluster, SimDuration, Topology};

    fn line(address: &str, ready: bool, pod: &str) -> EndpointLine {
        EndpointLine {
            address: address.into(),
            ready,
            terminating: false,
            pod: Some(pod.into()),
        }
    }

    fn write(at_ms: u64, revision: u64, kind: &'static str, name: &str) -> FeedEvent {
        FeedEvent::Write {
            at_ms,
            revision,
            actor: "system:kube-scheduler".into(),
            kind,
            namespace: "default".into(),
            name: name.into(),
            change: Change::Modified,
            notified: vec![],
            detail: None,
        }
    }

    fn items(events: &[FeedEvent]) -> Vec<Item> {
        events.iter().filter_map(item_of).collect()
    }

    #[test]
    fn the_ring_keeps_the_newest_and_counts_what_it_holds() {
        let mut m = Model::with_capacity(3);
        let events: Vec<FeedEvent> = (0..5)
            .map(|i| write(i * 10, i, "Pod", &format!("web-{i}")))
            .collect();
        m.ingest(0, 5, events.iter());
        let names: Vec<&str> = m.items().iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["web-2", "web-3", "web-4"]);
        assert_eq!(m.kinds().get("Pod"), Some(&3));
        assert_eq!(m.actors().get("system:kube-scheduler"), Some(&3));
        // Heartbeats are counted, not kept.
        m.ingest(2, 7, [write(60, 6, "Lease", "zone-a")].iter());
        assert_eq!(m.items().len(), 3);
        assert_eq!((m.heartbeats, m.missed), (1, 2));
        assert!(!m.kinds().contains_key("Lease"));
    }

    #[test]
    fn a_rewind_keeps_what_came_before_and_drops_what_came_after() {
        let all: Vec<FeedEvent> = (0..10)
            .map(|i| write(i * 1000, 100 + i, "Pod", &format!("web-{i}")))
            .collect();
        let mut m = Model::default();
        m.ingest(0, 10, all.iter());
        let kept_id = m.items()[2].id;
        // Restored from a copy taken after the fourth write, replayed to 5.5 s.
        m.rebase(items(&all[4..6]), 5_500, 105);
        let names: Vec<&str> = m.items().iter().map(|i| i.name.as_str()).collect();
        assert_eq!(
            names,
            ["web-0", "web-1", "web-2", "web-3", "web-4", "web-5"]
        );
        assert_eq!(m.items()[2].id, kept_id, "what stays keeps its id");
        assert_eq!(m.kinds().get("Pod"), Some(&6));
        // Nothing replayed: the ring stands up to the clock and the store's revision.
        m.rebase(Vec::new(), 3_000, 200);
        assert_eq!(m.items().len(), 4);
        m.rebase(Vec::new(), 3_000, 102);
        assert_eq!(m.items().len(), 3);
        // A record that shares nothing (another warehouse) replaces the ring.
        m.rebase(items(&[write(500, 7, "Pod", "other")]), 1_000, 7);
        let names: Vec<&str> = m.items().iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["other"]);
        // A replay that reaches back before the ring's oldest entry replaces it.
        let mut m = Model::with_capacity(4);
        m.ingest(0, 10, all.iter());
        m.rebase(items(&all[3..8]), 7_500, 107);
        let names: Vec<&str> = m.items().iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["web-4", "web-5", "web-6", "web-7"]);
    }

    #[test]
    fn filters_pick_by_sort_actor_kind_and_name() {
        let mut m = Model::default();
        let mut events = vec![
            write(0, 1, "Pod", "web-1"),
            write(1, 2, "EndpointSlice", "web-abc"),
            write(2, 3, "Pod", "db-1"),
        ];
        events.push(FeedEvent::Request {
            at_ms: 3,
            user: "kubernetes-admin".into(),
            verb: "create",
            target: "deployments/web".into(),
            namespace: "default".into(),
            code: 201,
            refused_at: None,
            stages: vec![],
            by_learner: true,
        });
        m.ingest(0, 4, events.iter());
        let names = |f: &Filter| -> Vec<String> {
            f.newest(m.items(), 10)
                .0
                .iter()
                .map(|i| i.object())
                .collect()
        };
        let kind = Filter {
            kind: Some("EndpointSlice".into()),
            ..Filter::default()
        };
        assert_eq!(names(&kind), ["endpointslice/web-abc"]);
        let name = Filter {
            name: " WEB".into(),
            ..Filter::default()
        };
        assert_eq!(
            names(&name),
            ["pod/web-1", "endpointslice/web-abc", "deployment/web"]
        );
        let who = Filter {
            actor: Some("kubernetes-admin".into()),
            ..Filter::default()
        };
        assert_eq!(names(&who), ["deployment/web"]);
        let sort = Filter {
            sort: Some(Sort::Write),
            name: "1".into(),
            ..Filter::default()
        };
        assert_eq!(names(&sort), ["pod/web-1", "pod/db-1"]);
        // The newest first when the limit cuts.
        let (shown, total) = Filter::default().newest(m.items(), 2);
        assert_eq!(total, 4);
        assert_eq!(shown[1].object(), "deployment/web");
    }

    #[test]
    fn endpoint_changes_name_what_was_added_removed_and_made_ready() {
        let before = [
            line("10.244.1.5", false, "web-1"),
            line("10.244.2.3", true, "web-2"),
        ];
        let after = [
            line("10.244.1.5", true, "web-1"),
            line("10.244.3.7", true, "web-3"),
        ];
        let changes = endpoint_changes(&before, &after);
        let en = Tr::new(Lang::En, Names::Warehouse);
        let text: Vec<String> = changes.iter().map(|c| endpoint_line(en, c)).collect();
        assert_eq!(
            text,
            [
                "~ 10.244.1.5: not ready → ready — web-1",
                "+ 10.244.3.7 (ready) — web-3",
                "− 10.244.2.3 — web-2",
            ]
        );
        let ru = Tr::new(Lang::Ru, Names::Warehouse);
        assert_eq!(
            endpoint_line(ru, &changes[1]),
            "+ 10.244.3.7 (готов) — web-3"
        );
        assert!(endpoint_changes(&after, &after).is_empty());
    }

    #[test]
    fn a_deployment_shows_its_request_its_writes_and_its_events_and_a_rewind_drops_the_later_ones()
    {
        let mut s = Session::new(Cluster::settled(1, Topology::default()));
        let start = s.cluster.now();
        let mut m = Model::default();
        m.pump(&s.cluster, 0);
        let out = s.run(
            "create deployment web --image=nginx --replicas=2",
            None,
            &crate::kubectl::NoFiles,
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        let out = s.run(
            "expose deployment web --port=80",
            None,
            &crate::kubectl::NoFiles,
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        s.advance(SimDuration::secs(30));
        assert!(m.pump(&s.cluster, 0));
        let has = |m: &Model, sort: Sort, kind: &str, verb: &str| {
            m.items()
                .iter()
                .any(|i| i.sort == sort && i.kind == kind && (verb.is_empty() || i.verb == verb))
        };
        assert!(has(&m, Sort::Request, "Deployment", "create"));
        assert!(has(&m, Sort::Write, "Pod", "ADDED"));
        assert!(has(&m, Sort::Event, "Pod", ""));
        let slice = m
            .items()
            .iter()
            .rev()
            .find_map(|i| match i.detail.as_deref() {
                Some(WriteDetail::Endpoints { before, after }) if i.name.starts_with("web-") => {
                    Some(endpoint_changes(before, after))
                }
                _ => None,
            })
            .expect("a write of the web sheet");
        assert!(!slice.is_empty());
        let end = s.cluster.now().0;
        let count = m.items().len();
        let old: Vec<Item> = m.items().iter().map(|i| (**i).clone()).collect();
        s.rewind_to(warehouse_sim::SimTime(end - 29_000)).unwrap();
        let now = s.cluster.now().0;
        m.pump(&s.cluster, 1);
        assert!(m.items().iter().all(|i| i.at_ms <= now));
        assert!(m.items().len() < count);
        // What stays is what the ring held up to then, with the same ids.
        let kept: Vec<&Item> = old.iter().take(m.items().len()).collect();
        assert!(m.items().iter().zip(&kept).all(|(a, b)| **a == **b));
        assert!(has(&m, Sort::Request, "Deployment", "create"));
        // Going on from there adds the replayed future once, not twice.
        s.advance(SimDuration::secs(29));
        m.pump(&s.cluster, 1);
        let mut revisions: Vec<u64> = m.items().iter().filter_map(|i| i.revision).collect();
        let all = revisions.len();
        revisions.sort_unstable();
        revisions.dedup();
        assert_eq!(revisions.len(), all, "a write listed twice");
        // Back to the very moment of the first command: it is still ahead, and so
        // is everything it started.
        s.rewind_to(start).unwrap();
        m.pump(&s.cluster, 2);
        let out = s.run("get deployments -o name", None, &crate::kubectl::NoFiles);
        assert_eq!(out.stdout, "", "{}", out.stderr);
        assert!(!m
            .items()
            .iter()
            .any(|i| i.name == "web" || i.name.starts_with("web-")));
        assert!(m
            .items()
            .iter()
            .all(|i| i.revision.is_none_or(|r| r <= s.cluster.revision())));
    }
}
