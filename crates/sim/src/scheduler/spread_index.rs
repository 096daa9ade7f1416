//! What PodTopologySpread reads, as small integers: each node's position in name
//! order, each node's domain for a topology key as an id, and per spreading selector
//! how many pods it counts on each node. Scoring a pod then adds numbers in vectors
//! instead of looking strings up in maps for every node.
//!
//! Not written in a snapshot: built again from the node cache on first use, and
//! dropped whenever the set of nodes changes (positions move) or a node's labels
//! change (domains move).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::{NodeInfo, PodEntry};

/// A node lacking the topology key.
pub const NO_DOMAIN: u32 = u32::MAX;

/// How many selectors are kept between scheduling cycles.
const SELECTORS_KEPT: usize = 8;

/// One topology key's domains.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Domains {
    key: String,
    /// Per node position: its domain id, or [`NO_DOMAIN`].
    pub of_node: Vec<u32>,
    /// How many distinct values the key has.
    pub count: usize,
    /// The id of the value `""`, if a node carries the key with an empty value.
    pub empty: Option<u32>,
}

/// A selector's kept counts: (namespace, selector, per node position, last use).
#[derive(Clone)]
struct Kept {
    namespace: String,
    selector: LabelSelector,
    per_node: Vec<i64>,
    used: u64,
}

#[derive(Clone, Default)]
pub struct SpreadIndex {
    /// Whether `names` lists the node cache's nodes.
    listed: bool,
    /// Node names in name order (the order of the node cache).
    names: Vec<String>,
    domains: Vec<Domains>,
    kept: Vec<Kept>,
    uses: u64,
}

impl SpreadIndex {
    /// A node came or went: every position may have moved.
    pub fn nodes_changed(&mut self) {
        *self = SpreadIndex {
            uses: self.uses,
            ..SpreadIndex::default()
        };
    }

    /// A node's labels changed: domains are read again.
    pub fn labels_changed(&mut self) {
        self.domains.clear();
    }

    fn list(&mut self, nodes: &BTreeMap<String, NodeInfo>) {
        if !self.listed {
            self.names = nodes.keys().cloned().collect();
            self.listed = true;
        }
    }

    /// Starts a scheduling cycle: selectors ensured from now on are not dropped to
    /// make room for others of the same cycle. Returns the cycle's first stamp.
    pub fn begin(&mut self) -> u64 {
        self.uses += 1;
        self.uses
    }

    /// Counts `selector`'s pods per node, unless kept already.
    pub fn ensure_selector(
        &mut self,
        cycle: u64,
        namespace: &str,
        selector: &LabelSelector,
        nodes: &BTreeMap<String, NodeInfo>,
    ) {
        self.list(nodes);
        self.uses += 1;
        let uses = self.uses;
        if let Some(k) = self
            .kept
            .iter_mut()
            .find(|k| k.namespace == namespace && &k.selector == selector)
        {
            k.used = uses;
            return;
        }
        let per_node = nodes
            .values()
            .map(|n| {
                n.pods
                    .values()
                    .filter(|p| counted_by(p, namespace, selector))
                    .count() as i64
            })
            .collect();
        if self.kept.len() >= SELECTORS_KEPT {
            let oldest = (0..self.kept.len())
                .filter(|&i| self.kept[i].used < cycle)
                .min_by_key(|&i| self.kept[i].used);
            if let Some(i) = oldest {
                self.kept.remove(i);
            }
        }
        self.kept.push(Kept {
            namespace: namespace.to_string(),
            selector: selector.clone(),
            per_node,
            used: uses,
        });
    }

    /// Reads the nodes' domains for `key`, unless read already.
    pub fn ensure_key(&mut self, key: &str, nodes: &BTreeMap<String, NodeInfo>) {
        self.list(nodes);
        if self.domains.iter().any(|d| d.key == key) {
            return;
        }
        let mut ids: BTreeMap<&str, u32> = BTreeMap::new();
        let of_node = nodes
            .values()
            .map(|n| match n.labels.get(key) {
                Some(v) => {
                    let next = ids.len() as u32;
                    *ids.entry(v.as_str()).or_insert(next)
                }
                None => NO_DOMAIN,
            })
            .collect();
        self.domains.push(Domains {
            key: key.to_string(),
            of_node,
            count: ids.len(),
            empty: ids.get("").copied(),
        });
    }

    /// The kept per-node counts of `selector` in `namespace` (ensured first).
    pub fn counts(&self, namespace: &str, selector: &LabelSelector) -> Option<&[i64]> {
        self.kept
            .iter()
            .find(|k| k.namespace == namespace && &k.selector == selector)
            .map(|k| k.per_node.as_slice())
    }

    /// The domains of `key` (ensured first).
    pub fn domains(&self, key: &str) -> Option<&Domains> {
        self.domains.iter().find(|d| d.key == key)
    }

    /// A pod entered (`delta` 1) or left (-1) a node the cache knows.
    pub fn adjust(&mut self, node: &str, p: &PodEntry, delta: i64) {
        if self.kept.is_empty() {
            return;
        }
        let Ok(pos) = self.names.binary_search_by(|n| n.as_str().cmp(node)) else {
            // Not a listed node: positions are stale.
            self.nodes_changed();
            return;
        };
        for k in &mut self.kept {
            if counted_by(p, &k.namespace, &k.selector) {
                k.per_node[pos] += delta;
            }
        }
    }

    #[cfg(test)]
    pub fn kept(&self) -> impl Iterator<Item = (&str, &LabelSelector, &[i64])> {
        self.kept
            .iter()
            .map(|k| (k.namespace.as_str(), &k.selector, k.per_node.as_slice()))
    }
}

/// Whether a spreading selector counts the pod (PodTopologySpread's
/// `countPodsMatchSelector`: same namespace, not terminating, labels match).
pub fn counted_by(p: &PodEntry, namespace: &str, selector: &LabelSelector) -> bool {
    !p.terminating
        && p.namespace == namespace
        && crate::controllers::selector_matches_with(selector, |k| p.labels.get(k))
}
