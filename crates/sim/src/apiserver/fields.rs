//! Field ownership (`metadata.managedFields`) and server-side apply.
//!
//! Every write the apiserver serves names a field manager: the `fieldManager` of the
//! request (kubectl sends one per command: `kubectl-create`, `kubectl-edit`,
//! `kubectl-client-side-apply`, ...), else the first word of the client's user agent
//! (`kubectl` for `kubectl scale`, `kube-controller-manager`, `kube-scheduler`,
//! `kubelet`) — `managerOrUserAgent` in
//! staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go. The fields a write
//! sets or changes become that manager's, and leave every other manager's set
//! (`Updater.Update`, sigs.k8s.io/structured-merge-diff merge/update.go); an entry
//! whose set becomes empty is dropped. A server-side apply (`Updater.Apply`) merges
//! the applied configuration into the live object, makes the applier own exactly
//! the fields of its configuration, removes the fields it owned before and no longer
//! lists unless another manager owns them (`prune`), and refuses to change a field
//! another manager owns (409, `NewConflictError` in
//! staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/conflict.go)
//! unless forced, which takes the field over.
//!
//! Field sets print as FieldsV1 (structured-merge-diff fieldpath/serialize.go):
//! `f:NAME` for a field, `k:{"name":"web"}` for an item of a list keyed by some of
//! its fields, `v:VALUE` for an item of a set, and `.` for a node that is itself in
//! the set and has children.
//!
//! Simplified: the schema's list types come from a short table of list names (keyed
//! lists such as containers, env, ports, volumes, conditions; finalizers as a set;
//! every other list atomic), and maps are atomic only for selectors and
//! `nodeSelector`. Pods, Events and Leases keep no managedFields (they are the
//! cluster's most frequent writes). Clients cannot write `managedFields` themselves.

use crate::error::{ApiError, StatusReason};
use crate::object::Kind;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One element of a field path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathElement {
    /// `f:NAME`: a field of an object.
    Field(String),
    /// `k:{...}`: an item of a keyed list, by its key fields (a JSON object, keys
    /// sorted).
    Key(String),
    /// `v:VALUE`: an item of a set (a JSON value).
    Value(String),
}

impl PathElement {
    fn fields_v1_key(&self) -> String {
        match self {
            PathElement::Field(f) => format!("f:{f}"),
            PathElement::Key(k) => format!("k:{k}"),
            PathElement::Value(v) => format!("v:{v}"),
        }
    }

    fn from_fields_v1_key(s: &str) -> Option<PathElement> {
        let (kind, rest) = s.split_at_checked(2)?;
        match kind {
            "f:" => Some(PathElement::Field(rest.to_string())),
            "k:" => Some(PathElement::Key(rest.to_string())),
            "v:" => Some(PathElement::Value(rest.to_string())),
            _ => None,
        }
    }

    /// As structured-merge-diff's `Path.String` writes it: `.name`,
    /// `[name="web"]`, `[=value]`.
    fn path_string(&self) -> String {
        match self {
            PathElement::Field(f) => format!(".{f}"),
            PathElement::Key(k) => {
                let fields: Map<String, Value> = serde_json::from_str(k).unwrap_or_default();
                let parts: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("[{}]", parts.join(","))
            }
            PathElement::Value(v) => format!("[={v}]"),
        }
    }
}

/// A set of field paths, as a tree: a node is in the set when `member` is set.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FieldSet {
    member: bool,
    children: BTreeMap<PathElement, FieldSet>,
}

impl FieldSet {
    pub fn is_empty(&self) -> bool {
        !self.member && self.children.is_empty()
    }

    fn insert(&mut self, path: &[PathElement]) {
        match path.split_first() {
            None => self.member = true,
            Some((first, rest)) => self.children.entry(first.clone()).or_default().insert(rest),
        }
    }

    pub fn union(&self, other: &FieldSet) -> FieldSet {
        let mut out = self.clone();
        out.member |= other.member;
        for (k, v) in &other.children {
            let merged = match out.children.get(k) {
                Some(mine) => mine.union(v),
                None => v.clone(),
            };
            out.children.insert(k.clone(), merged);
        }
        out
    }

    pub fn difference(&self, other: &FieldSet) -> FieldSet {
        let mut out = FieldSet {
            member: self.member && !other.member,
            children: BTreeMap::new(),
        };
        for (k, v) in &self.children {
            let rest = match other.children.get(k) {
                Some(o) => v.difference(o),
                None => v.clone(),
            };
            if !rest.is_empty() {
                out.children.insert(k.clone(), rest);
            }
        }
        out
    }

    pub fn intersection(&self, other: &FieldSet) -> FieldSet {
        let mut out = FieldSet {
            member: self.member && other.member,
            children: BTreeMap::new(),
        };
        for (k, v) in &self.children {
            if let Some(o) = other.children.get(k) {
                let both = v.intersection(o);
                if !both.is_empty() {
                    out.children.insert(k.clone(), both);
                }
            }
        }
        out
    }

    /// Whether the two sets have a path in common.
    pub fn intersects(&self, other: &FieldSet) -> bool {
        (self.member && other.member)
            || self
                .children
                .iter()
                .any(|(k, v)| other.children.get(k).is_some_and(|o| v.intersects(o)))
    }

    /// Whether the path is in the set.
    fn has(&self, path: &[PathElement]) -> bool {
        match path.split_first() {
            None => self.member,
            Some((first, rest)) => self.children.get(first).is_some_and(|c| c.has(rest)),
        }
    }

    /// Every path in the set, in path order.
    pub fn paths(&self) -> Vec<Vec<PathElement>> {
        let mut out = Vec::new();
        self.walk(&mut Vec::new(), &mut out);
        out
    }

    fn walk(&self, prefix: &mut Vec<PathElement>, out: &mut Vec<Vec<PathElement>>) {
        if self.member {
            out.push(prefix.clone());
        }
        for (k, v) in &self.children {
            prefix.push(k.clone());
            v.walk(prefix, out);
            prefix.pop();
        }
    }

    /// The set as FieldsV1 JSON.
    pub fn to_fields_v1(&self) -> Value {
        let mut map = Map::new();
        if self.member && !self.children.is_empty() {
            map.insert(".".into(), Value::Object(Map::new()));
        }
        for (k, v) in &self.children {
            map.insert(k.fields_v1_key(), v.to_fields_v1());
        }
        Value::Object(map)
    }

    /// A set from FieldsV1 JSON (the inverse of [`FieldSet::to_fields_v1`]).
    pub fn from_fields_v1(v: &Value) -> Result<FieldSet, String> {
        fn node(v: &Value, top: bool) -> Result<FieldSet, String> {
            let Some(map) = v.as_object() else {
                return Err("FieldsV1 must be an object".into());
            };
            let mut set = FieldSet {
                member: !top && map.is_empty(),
                children: BTreeMap::new(),
            };
            for (k, child) in map {
                if k == "." {
                    set.member = true;
                    continue;
                }
                let pe = PathElement::from_fields_v1_key(k)
                    .ok_or_else(|| format!("unknown FieldsV1 key {k:?}"))?;
                set.children.insert(pe, node(child, false)?);
            }
            Ok(set)
        }
        node(v, true)
    }
}

/// A path as conflict messages print it (`.spec.replicas`).
pub fn path_string(path: &[PathElement]) -> String {
    path.iter().map(PathElement::path_string).collect()
}

/// `Apply` or `Update`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Operation {
    Apply,
    Update,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Apply => "Apply",
            Operation::Update => "Update",
        }
    }
}

/// One `metadata.managedFields` entry. The set is shared: an entry a write leaves
/// as it was keeps pointing at the same set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManagedEntry {
    pub manager: String,
    pub operation: Operation,
    pub api_version: String,
    /// When the manager last wrote through this entry (RFC 3339, seconds).
    pub time: String,
    /// `status`, `scale`, or empty for the main resource.
    pub subresource: String,
    pub fields: Arc<FieldSet>,
}

impl ManagedEntry {
    /// Whether `self` and `other` are the same manager (structured-merge-diff's
    /// manager identifier: the name, the operation, the subresource and, for an
    /// update, the apiVersion).
    fn same_manager(&self, manager: &str, operation: Operation, subresource: &str) -> bool {
        self.manager == manager && self.operation == operation && self.subresource == subresource
    }

    /// The entry as the API serves it.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("apiVersion".into(), self.api_version.clone().into());
        map.insert("fieldsType".into(), "FieldsV1".into());
        map.insert("fieldsV1".into(), self.fields.to_fields_v1());
        map.insert("manager".into(), self.manager.clone().into());
        map.insert("operation".into(), self.operation.as_str().into());
        if !self.subresource.is_empty() {
            map.insert("subresource".into(), self.subresource.clone().into());
        }
        map.insert("time".into(), self.time.clone().into());
        Value::Object(map)
    }

    /// An entry from its JSON form (a snapshot's).
    pub fn from_json(v: &Value) -> Result<ManagedEntry, String> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let operation = match s("operation").as_str() {
            "Apply" => Operation::Apply,
            "Update" => Operation::Update,
            other => return Err(format!("unknown operation {other:?}")),
        };
        Ok(ManagedEntry {
            manager: s("manager"),
            operation,
            api_version: s("apiVersion"),
            time: s("time"),
            subresource: s("subresource"),
            fields: Arc::new(FieldSet::from_fields_v1(
                v.get("fieldsV1").unwrap_or(&Value::Null),
            )?),
        })
    }

    /// How a conflict message names this manager (`printManager`): an update's
    /// manager with its subresource and apiVersion, an applier by name.
    fn describe(&self) -> String {
        let mut s = format!("{:?}", self.manager);
        if !self.subresource.is_empty() {
            s = format!("{s} with subresource {:?}", self.subresource);
        }
        match self.operation {
            Operation::Update => format!("{s} using {}", self.api_version),
            Operation::Apply => s,
        }
    }
}

/// The managedFields of one object, in upstream's order
/// (`sortEncodedManagedFields`: appliers first, then by time, manager, apiVersion
/// and subresource).
pub type ManagedFields = Vec<ManagedEntry>;

fn sort_entries(entries: &mut ManagedFields) {
    entries.sort_by(|p, q| {
        (
            p.operation,
            &p.time,
            &p.manager,
            &p.api_version,
            &p.subresource,
        )
            .cmp(&(
                q.operation,
                &q.time,
                &q.manager,
                &q.api_version,
                &q.subresource,
            ))
    });
}

/// Whether objects of `kind` keep managedFields here.
pub fn tracked(kind: Kind) -> bool {
    !matches!(kind, Kind::Pod | Kind::Event | Kind::Lease)
}

/// What one write names as its manager and subresource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Writer {
    pub manager: String,
    /// The subresource a user's request named (`scale`); a component's status
    /// writes are told apart by their paths.
    pub subresource: String,
    /// A component writes status through the `status` subresource.
    pub component: bool,
}

/// The most characters a field manager's name has (`FieldManagerMaxLength`).
pub const FIELD_MANAGER_MAX_LENGTH: usize = 128;

/// `ValidateFieldManager` (and, for an apply, the required manager) of
/// staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go, for
/// the options kind of the request (`PatchOptions`, `CreateOptions`,
/// `UpdateOptions`).
pub fn validate_field_manager(manager: &str, apply: bool, options: &str) -> Result<(), ApiError> {
    let mut errors = Vec::new();
    if apply && manager.is_empty() {
        errors.push("fieldManager: Required value: is required for apply patch".to_string());
    }
    if manager.len() > FIELD_MANAGER_MAX_LENGTH {
        errors.push(format!(
            "fieldManager: Too long: may not be more than {FIELD_MANAGER_MAX_LENGTH} bytes"
        ));
    }
    for (i, c) in manager.char_indices() {
        if c.is_control() {
            errors.push(format!(
                "fieldManager: Invalid value: {manager:?}: invalid character U+{:04X} (at position {i})",
                c as u32
            ));
        }
    }
    if errors.is_empty() {
        return Ok(());
    }
    let message = if errors.len() == 1 {
        errors.remove(0)
    } else {
        format!("[{}]", errors.join(", "))
    };
    Err(ApiError::new(
        StatusReason::Invalid,
        format!("{options}.meta.k8s.io \"\" is invalid: {message}"),
    ))
}

// ---------------------------------------------------------------------------
// The schema's list and map types.

/// The key fields of the keyed lists (`+listType=map`, `+listMapKey`), by list name.
fn list_keys(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "env"
        | "volumes"
        | "imagePullSecrets"
        | "resourceClaims"
        | "containerStatuses" => &["name"],
        "volumeMounts" | "volumeDevices" => &["mountPath"],
        "ports" => &["containerPort", "port", "protocol"],
        "conditions" | "addresses" => &["type"],
        "ownerReferences" => &["uid"],
        "hostAliases" => &["ip"],
        "podIPs" | "hostIPs" => &["ip"],
        "topologySpreadConstraints" => &["topologyKey", "whenUnsatisfiable"],
        _ => return None,
    })
}

/// Lists of scalars that are sets (`+listType=set`).
fn is_set_list(name: &str) -> bool {
    matches!(name, "finalizers")
}

/// Maps and structs that are atomic (`+mapType=atomic`, `+structType=atomic`).
fn is_atomic_map(name: &str) -> bool {
    matches!(name, "selector" | "nodeSelector")
}

/// The path element of a list item, or `None` for an atomic list.
fn item_element(list: &str, item: &Value) -> Option<PathElement> {
    if is_set_list(list) {
        return Some(PathElement::Value(item.to_string()));
    }
    let keys = list_keys(list)?;
    let obj = item.as_object()?;
    let mut key = Map::new();
    for k in keys {
        if let Some(v) = obj.get(*k) {
            key.insert((*k).to_string(), v.clone());
        }
    }
    (!key.is_empty()).then(|| PathElement::Key(Value::Object(key).to_string()))
}

/// The items of a list by their path element (`None`: an atomic list, or one whose
/// items do not all have distinct keys).
fn keyed_items<'a>(list: &str, items: &'a [Value]) -> Option<BTreeMap<PathElement, &'a Value>> {
    let mut out = BTreeMap::new();
    for item in items {
        let pe = item_element(list, item)?;
        if out.insert(pe, item).is_some() {
            return None;
        }
    }
    Some(out)
}

/// The fields no manager owns (`stripmeta`): identity, and what the apiserver
/// itself sets.
fn ignored(path: &[PathElement]) -> bool {
    let name = |i: usize| match path.get(i) {
        Some(PathElement::Field(f)) => Some(f.as_str()),
        _ => None,
    };
    matches!(
        (path.len(), name(0), name(1)),
        (1, Some("apiVersion" | "kind"), _)
            | (
                2,
                Some("metadata"),
                Some(
                    "name"
                        | "namespace"
                        | "creationTimestamp"
                        | "selfLink"
                        | "uid"
                        | "generation"
                        | "managedFields"
                        | "resourceVersion"
                        | "deletionTimestamp"
                        | "deletionGracePeriodSeconds",
                ),
            )
    )
}

/// The fields of a configuration (`ToFieldSet`): every leaf and every list item.
pub fn config_set(config: &Value) -> FieldSet {
    let mut set = FieldSet::default();
    fn walk(v: &Value, name: &str, path: &mut Vec<PathElement>, set: &mut FieldSet) {
        if ignored(path) {
            return;
        }
        match v {
            Value::Object(map) if !map.is_empty() && !is_atomic_map(name) => {
                for (k, child) in map {
                    path.push(PathElement::Field(k.clone()));
                    walk(child, k, path, set);
                    path.pop();
                }
            }
            Value::Array(items) if !items.is_empty() => match keyed_items(name, items) {
                Some(items) => {
                    for (pe, item) in items {
                        path.push(pe);
                        set.insert(path);
                        if item.is_object() {
                            walk(item, "", path, set);
                        }
                        path.pop();
                    }
                }
                None => set.insert(path),
            },
            _ => {
                if !path.is_empty() {
                    set.insert(path)
                }
            }
        }
    }
    walk(config, "", &mut Vec::new(), &mut set);
    set
}

/// What changed from `old` to `new` (`TypedValue.Compare`): the leaves whose value
/// changed, the paths (leaves, maps and list items) only `new` has, and the paths
/// only `old` has.
#[derive(Default, Debug)]
pub struct Comparison {
    pub modified: FieldSet,
    pub added: FieldSet,
    pub removed: FieldSet,
}

impl Comparison {
    pub fn changed(&self) -> FieldSet {
        self.modified.union(&self.added)
    }
}

pub fn compare(old: &Value, new: &Value) -> Comparison {
    let mut c = Comparison::default();
    compare_at(Some(old), Some(new), "", &mut Vec::new(), &mut c);
    c
}

fn compare_at(
    old: Option<&Value>,
    new: Option<&Value>,
    name: &str,
    path: &mut Vec<PathElement>,
    c: &mut Comparison,
) {
    if ignored(path) {
        return;
    }
    // A keyed list or a set is not itself a member (a Go slice without
    // `omitempty` is always there); its items are.
    let granular_list = |v: &Value| {
        v.as_array()
            .is_some_and(|items| keyed_items(name, items).is_some())
    };
    // The top-level structs are always there (a Go struct's zero value).
    let owned_itself = match path.as_slice() {
        [] => false,
        [PathElement::Field(f)] => !matches!(f.as_str(), "metadata" | "spec" | "status"),
        _ => true,
    };
    match (old, new) {
        (None, Some(v)) if owned_itself && !granular_list(v) => c.added.insert(path),
        (Some(v), None) if owned_itself && !granular_list(v) => c.removed.insert(path),
        _ => {}
    }
    let atomic_map = is_atomic_map(name);
    match (old, new) {
        (Some(Value::Object(a)), Some(Value::Object(b))) if !atomic_map => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                path.push(PathElement::Field(k.clone()));
                compare_at(a.get(k), b.get(k), k, path, c);
                path.pop();
            }
        }
        (None, Some(Value::Object(b))) if !atomic_map => {
            for (k, v) in b {
                path.push(PathElement::Field(k.clone()));
                compare_at(None, Some(v), k, path, c);
                path.pop();
            }
        }
        (Some(Value::Object(a)), None) if !atomic_map => {
            for (k, v) in a {
                path.push(PathElement::Field(k.clone()));
                compare_at(Some(v), None, k, path, c);
                path.pop();
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) => {
            match (keyed_items(name, a), keyed_items(name, b)) {
                (Some(a), Some(b)) => {
                    let keys: std::collections::BTreeSet<&PathElement> =
                        a.keys().chain(b.keys()).collect();
                    for k in keys {
                        path.push(k.clone());
                        compare_item(a.get(k).copied(), b.get(k).copied(), path, c);
                        path.pop();
                    }
                }
                _ if a != b => c.modified.insert(path),
                _ => {}
            }
        }
        (None, Some(Value::Array(b))) => {
            if let Some(b) = keyed_items(name, b) {
                for (k, v) in b {
                    path.push(k);
                    compare_item(None, Some(v), path, c);
                    path.pop();
                }
            }
        }
        (Some(Value::Array(a)), None) => {
            if let Some(a) = keyed_items(name, a) {
                for (k, v) in a {
                    path.push(k);
                    compare_item(Some(v), None, path, c);
                    path.pop();
                }
            }
        }
        (Some(a), Some(b)) if a != b => c.modified.insert(path),
        _ => {}
    }
}

/// A list item: a member in its own right, compared field by field.
fn compare_item(
    old: Option<&Value>,
    new: Option<&Value>,
    path: &mut Vec<PathElement>,
    c: &mut Comparison,
) {
    match (old, new) {
        (Some(a), Some(b)) if a.is_object() && b.is_object() => {
            compare_at(Some(a), Some(b), "", path, c)
        }
        (Some(a), Some(b)) if a != b => c.modified.insert(path),
        (Some(_), Some(_)) => {}
        (None, Some(b)) => {
            c.added.insert(path);
            if b.is_object() {
                compare_at(None, Some(b), "", path, c);
                // The walk above also marks the item itself.
            }
        }
        (Some(a), None) => {
            c.removed.insert(path);
            if a.is_object() {
                compare_at(Some(a), None, "", path, c);
            }
        }
        (None, None) => {}
    }
}

/// What a created object is compared with: an empty object of its kind, which
/// (being a Go struct) already holds its top-level structs and a workload's pod
/// template (so they are not themselves owned).
pub fn empty_like(new: &Value) -> Value {
    let mut empty = Map::new();
    for top in ["metadata", "spec", "status"] {
        if new.get(top).is_some_and(Value::is_object) {
            empty.insert(top.into(), Value::Object(Map::new()));
        }
    }
    let spec = new.get("spec");
    if let Some(Value::Object(s)) = empty.get_mut("spec") {
        if spec
            .and_then(|s| s.get("template"))
            .is_some_and(Value::is_object)
        {
            s.insert(
                "template".into(),
                serde_json::json!({"metadata": {}, "spec": {}}),
            );
        }
        if spec
            .and_then(|s| s.get("strategy"))
            .is_some_and(Value::is_object)
        {
            s.insert("strategy".into(), Value::Object(Map::new()));
        }
    }
    Value::Object(empty)
}

/// The subset of `set` under `status` (`status == true`) or outside it.
fn split_status(set: &FieldSet, status: bool) -> FieldSet {
    let key = PathElement::Field("status".into());
    let mut out = set.clone();
    if status {
        out.member = false;
        out.children.retain(|k, _| *k == key);
    } else {
        out.children.remove(&key);
    }
    out
}

/// The managedFields after an update (`Updater.Update`) by `writer`: its entry
/// takes the changed fields, every other entry loses them and the removed ones.
pub fn after_update(
    entries: &[ManagedEntry],
    c: &Comparison,
    writer: &Writer,
    api_version: &str,
    time: &str,
) -> ManagedFields {
    if writer.component {
        // A component's status goes through the status subresource, the rest
        // through the main resource: two writes, two entries.
        let parts = [(false, ""), (true, "status")];
        let mut entries = entries.to_vec();
        for (status, subresource) in parts {
            let part = Comparison {
                modified: split_status(&c.modified, status),
                added: split_status(&c.added, status),
                removed: split_status(&c.removed, status),
            };
            if part.changed().is_empty() && part.removed.is_empty() {
                continue;
            }
            let w = Writer {
                subresource: subresource.into(),
                component: false,
                ..writer.clone()
            };
            entries = after_update(&entries, &part, &w, api_version, time);
        }
        return entries;
    }
    let changed = c.changed();
    let is_mine =
        |e: &ManagedEntry| e.same_manager(&writer.manager, Operation::Update, &writer.subresource);
    let mine = entries
        .iter()
        .find(|e| is_mine(e))
        .map(|e| e.fields.difference(&c.removed))
        .unwrap_or_default()
        .union(&changed);
    let mut out = disown(entries, is_mine, &changed, &c.removed);
    if !mine.is_empty() {
        out.push(ManagedEntry {
            manager: writer.manager.clone(),
            operation: Operation::Update,
            api_version: api_version.to_string(),
            time: time.to_string(),
            subresource: writer.subresource.clone(),
            fields: Arc::new(mine),
        });
    }
    sort_entries(&mut out);
    out
}

/// The entries but the writer's (`is_writer`), each without the fields the write
/// changed or removed; an entry left empty is dropped. An entry the write does not
/// touch keeps its shared set.
fn disown(
    entries: &[ManagedEntry],
    is_writer: impl Fn(&ManagedEntry) -> bool,
    changed: &FieldSet,
    removed: &FieldSet,
) -> ManagedFields {
    let mut out = Vec::with_capacity(entries.len() + 1);
    for e in entries.iter().filter(|e| !is_writer(e)) {
        if !e.fields.intersects(changed) && !e.fields.intersects(removed) {
            out.push(e.clone());
            continue;
        }
        let kept = e.fields.difference(changed).difference(removed);
        if kept.is_empty() {
            continue;
        }
        out.push(if kept == *e.fields {
            e.clone()
        } else {
            ManagedEntry {
                fields: Arc::new(kept),
                ..e.clone()
            }
        });
    }
    out
}

// ---------------------------------------------------------------------------
// Server-side apply.

/// One field another manager owns with a different value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub manager: String,
    pub path: Vec<PathElement>,
}

/// `NewConflictError`: 409 with upstream's message.
pub fn conflict_error(conflicts: &[Conflict]) -> ApiError {
    let message = if let [one] = conflicts {
        format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            one.manager,
            path_string(&one.path)
        )
    } else {
        let mut lines = Vec::new();
        let mut last: Option<&str> = None;
        for c in conflicts {
            if last != Some(c.manager.as_str()) {
                lines.push(format!("conflicts with {}:", c.manager));
                last = Some(&c.manager);
            }
            lines.push(format!("- {}", path_string(&c.path)));
        }
        format!(
            "Apply failed with {} conflicts: {}",
            conflicts.len(),
            lines.join("\n")
        )
    };
    ApiError::new(StatusReason::Conflict, message)
}

/// The outcome of an apply: the object to write and its managedFields.
#[derive(Debug)]
pub struct Applied {
    pub object: Value,
    pub managed: ManagedFields,
}

/// `Updater.Apply`: merges `config` (the applied configuration, as JSON) into
/// `live` for `manager`, prunes what the manager no longer lists, and checks for
/// conflicts (`force` takes the fields over).
pub fn apply(
    live: &Value,
    entries: &[ManagedEntry],
    config: &Value,
    manager: &str,
    force: bool,
    api_version: &str,
    time: &str,
) -> Result<Applied, ApiError> {
    let mine = config_set(config);
    let last = entries
        .iter()
        .find(|e| e.same_manager(manager, Operation::Apply, ""))
        .map(|e| (*e.fields).clone())
        .unwrap_or_default();
    let mut merged = live.clone();
    merge_into(&mut merged, config, "");
    // Prune: what the manager owned before and no longer lists goes, unless
    // another manager owns it.
    let others = entries
        .iter()
        .filter(|e| !e.same_manager(manager, Operation::Apply, ""))
        .fold(FieldSet::default(), |acc, e| acc.union(&e.fields));
    let dropped = last.difference(&mine).difference(&others);
    for path in dropped.paths().iter().rev() {
        remove_path(&mut merged, path);
    }
    let c = compare(live, &merged);
    let changed = c.changed();
    let mut conflicts = Vec::new();
    for e in entries {
        if e.same_manager(manager, Operation::Apply, "") {
            continue;
        }
        for path in e.fields.intersection(&changed).paths() {
            conflicts.push(Conflict {
                manager: e.describe(),
                path,
            });
        }
    }
    if !conflicts.is_empty() && !force {
        conflicts.sort_by(|a, b| (&a.manager, &a.path).cmp(&(&b.manager, &b.path)));
        return Err(conflict_error(&conflicts));
    }
    let mut out = disown(
        entries,
        |e| e.same_manager(manager, Operation::Apply, ""),
        &changed,
        &c.removed,
    );
    if !mine.is_empty() {
        let previous = entries
            .iter()
            .find(|e| e.same_manager(manager, Operation::Apply, ""));
        // An apply that changes nothing keeps the entry's time.
        let unchanged = previous.filter(|p| *p.fields == mine && changed.is_empty());
        out.push(match unchanged {
            Some(p) => p.clone(),
            None => ManagedEntry {
                manager: manager.to_string(),
                operation: Operation::Apply,
                api_version: api_version.to_string(),
                time: time.to_string(),
                subresource: String::new(),
                fields: Arc::new(mine),
            },
        });
    }
    sort_entries(&mut out);
    Ok(Applied {
        object: merged,
        managed: out,
    })
}

/// Merges `config` into `target`: objects field by field (atomic maps replaced),
/// keyed lists item by item (the live order kept, new items appended), anything
/// else replaced.
fn merge_into(target: &mut Value, config: &Value, name: &str) {
    match (target, config) {
        (Value::Object(t), Value::Object(c)) if !is_atomic_map(name) => {
            for (k, v) in c {
                match t.get_mut(k) {
                    Some(existing) => merge_into(existing, v, k),
                    None => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (Value::Array(t), Value::Array(c)) => {
            let keyed = keyed_items(name, t).is_some() && keyed_items(name, c).is_some();
            if !keyed || is_set_list(name) {
                if is_set_list(name) {
                    for item in c {
                        if !t.contains(item) {
                            t.push(item.clone());
                        }
                    }
                } else {
                    *t = c.clone();
                }
                return;
            }
            for item in c {
                let pe = item_element(name, item);
                match t.iter_mut().find(|x| item_element(name, x) == pe) {
                    Some(existing) => merge_into(existing, item, ""),
                    None => t.push(item.clone()),
                }
            }
        }
        (t, c) => *t = c.clone(),
    }
}

/// Removes the node at `path` (a field, or a list item) from `v`.
fn remove_path(v: &mut Value, path: &[PathElement]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut node = v;
    let mut name = String::new();
    for pe in parents {
        let next = match (node, pe) {
            (Value::Object(m), PathElement::Field(f)) => {
                name = f.clone();
                m.get_mut(f)
            }
            (Value::Array(items), pe) => {
                let list = name.clone();
                items
                    .iter_mut()
                    .find(|x| item_element(&list, x).as_ref() == Some(pe))
            }
            _ => None,
        };
        match next {
            Some(n) => node = n,
            None => return,
        }
    }
    match (node, last) {
        (Value::Object(m), PathElement::Field(f)) => {
            m.remove(f);
        }
        (Value::Array(items), pe) => items.retain(|x| item_element(&name, x).as_ref() != Some(pe)),
        _ => {}
    }
}

/// Whether `set` holds `path` (for tests and callers that ask about one field).
pub fn owns(set: &FieldSet, path: &[&str]) -> bool {
    let path: Vec<PathElement> = path
        .iter()
        .map(|p| PathElement::Field((*p).to_string()))
        .collect();
    set.has(&path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_v1_marks_owned_nodes_with_children_by_a_dot() {
        let old = empty_like(&json!({"metadata": {}, "spec": {}}));
        let new = json!({
            "metadata": {"labels": {"app": "web"}},
            "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "web", "image": "nginx"}]}}}
        });
        let c = compare(&old, &new);
        let v1 = c.changed().to_fields_v1();
        assert_eq!(
            v1,
            json!({
                "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                "f:spec": {"f:replicas": {}, "f:template": {".": {}, "f:spec": {".": {}, "f:containers": {
                    "k:{\"name\":\"web\"}": {".": {}, "f:image": {}, "f:name": {}}}}}}
            })
        );
        assert_eq!(FieldSet::from_fields_v1(&v1).unwrap(), c.changed());
    }

    #[test]
    fn apply_conflicts_with_another_managers_field_unless_forced() {
        let live = json!({"spec": {"replicas": 5, "paused": false}});
        let scale = ManagedEntry {
            manager: "kubectl".into(),
            operation: Operation::Update,
            api_version: "apps/v1".into(),
            time: "t".into(),
            subresource: "scale".into(),
            fields: Arc::new(config_set(&json!({"spec": {"replicas": 5}}))),
        };
        let config = json!({"spec": {"replicas": 2}});
        let err = apply(
            &live,
            std::slice::from_ref(&scale),
            &config,
            "mine",
            false,
            "apps/v1",
            "t2",
        )
        .unwrap_err();
        assert_eq!(
            err.message,
            "Apply failed with 1 conflict: conflict with \"kubectl\" with subresource \"scale\" using apps/v1: .spec.replicas"
        );
        let ok = apply(&live, &[scale], &config, "mine", true, "apps/v1", "t2").unwrap();
        assert_eq!(ok.object["spec"]["replicas"], 2);
        assert_eq!(ok.managed.len(), 1);
        assert_eq!(ok.managed[0].manager, "mine");
    }

    #[test]
    fn apply_removes_fields_its_manager_no_longer_lists() {
        let live = json!({"metadata": {"labels": {"a": "1", "b": "2"}}});
        let first = apply(
            &json!({"metadata": {}}),
            &[],
            &json!({"metadata": {"labels": {"a": "1", "b": "2"}}}),
            "m",
            false,
            "v1",
            "t",
        )
        .unwrap();
        let second = apply(
            &live,
            &first.managed,
            &json!({"metadata": {"labels": {"a": "1"}}}),
            "m",
            false,
            "v1",
            "t",
        )
        .unwrap();
        assert_eq!(second.object, json!({"metadata": {"labels": {"a": "1"}}}));
    }
}
