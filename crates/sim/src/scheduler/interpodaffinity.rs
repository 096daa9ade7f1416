//! The InterPodAffinity plugin (pkg/scheduler/framework/plugins/interpodaffinity:
//! filter.go, scoring.go; the terms as framework.AffinityTerm in
//! pkg/scheduler/framework/types.go).
//!
//! Filter: every required affinity term of the incoming pod must find a matching
//! pod in the node's domain (unless no pod in the cluster matches and the pod
//! matches its own terms: the first pod of a group may schedule), no required
//! anti-affinity term may find one, and no existing pod's required anti-affinity may
//! match the incoming pod in the node's domain. Score: the weights of preferred terms
//! both ways, plus existing pods' required affinity terms matching the incoming pod
//! at `hardPodAffinityWeight` 1, summed per topology domain and normalised between
//! the lowest and highest node.
//!
//! Existing pods with affinity terms are indexed (upstream's `PodsWithAffinity` and
//! `PodsWithRequiredAntiAffinity`), so a pod without terms of its own looks at those
//! pods only.

use super::NodeInfo;
use crate::controllers::{selector_matches, selector_matches_with};
use k8s_openapi::api::core::v1::{Pod, PodAffinityTerm};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};
use std::collections::BTreeMap;

pub const ERR_AFFINITY_RULES: &str = "node(s) didn't match pod affinity rules";
pub const ERR_ANTI_AFFINITY_RULES: &str = "node(s) didn't match pod anti-affinity rules";
pub const ERR_EXISTING_ANTI_AFFINITY: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";
/// `InterPodAffinityArgs.hardPodAffinityWeight`'s default.
pub const HARD_POD_AFFINITY_WEIGHT: i64 = 1;

/// One pod (anti-)affinity term as the scheduler reads it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AffinityTerm {
    /// The namespaces named, or the pod's own when neither these nor a namespace
    /// selector are given.
    pub namespaces: Vec<String>,
    /// `None` selects no namespace; `{}` selects every one.
    pub namespace_selector: Option<LabelSelector>,
    /// `None` matches no pod.
    pub selector: Option<LabelSelector>,
    pub topology_key: String,
    /// A preferred term's weight (0 for a required term).
    pub weight: i64,
}

impl AffinityTerm {
    /// Reads a term of a pod in `namespace` with `labels`; `matchLabelKeys` and
    /// `mismatchLabelKeys` are merged into the selector as the apiserver does when
    /// the pod is created (pkg/registry/core/pod/strategy.go).
    fn of(
        t: &PodAffinityTerm,
        weight: i32,
        namespace: &str,
        labels: &BTreeMap<String, String>,
    ) -> AffinityTerm {
        let mut namespaces = t.namespaces.clone().unwrap_or_default();
        if namespaces.is_empty() && t.namespace_selector.is_none() {
            namespaces.push(namespace.to_string());
        }
        let mut selector = t.label_selector.clone();
        if let Some(s) = selector.as_mut() {
            let keys = |list: &Option<Vec<String>>, op: &str| -> Vec<LabelSelectorRequirement> {
                list.iter()
                    .flatten()
                    .filter_map(|k| {
                        labels.get(k).map(|v| LabelSelectorRequirement {
                            key: k.clone(),
                            operator: op.into(),
                            values: Some(vec![v.clone()]),
                        })
                    })
                    .collect()
            };
            let mut extra = keys(&t.match_label_keys, "In");
            extra.extend(keys(&t.mismatch_label_keys, "NotIn"));
            if !extra.is_empty() {
                s.match_expressions
                    .get_or_insert_with(Default::default)
                    .extend(extra);
            }
        }
        AffinityTerm {
            namespaces,
            namespace_selector: t.namespace_selector.clone(),
            selector,
            topology_key: t.topology_key.clone(),
            weight: i64::from(weight),
        }
    }

    /// Upstream `AffinityTerm.Matches`: the pod is in one of the term's namespaces
    /// (or its namespace's labels match the namespace selector) and its labels match.
    pub fn matches<'a>(
        &self,
        namespace: &str,
        labels: impl Fn(&str) -> Option<&'a String>,
        ns_labels: &BTreeMap<String, String>,
    ) -> bool {
        let in_namespace = self.namespaces.iter().any(|n| n == namespace)
            || self
                .namespace_selector
                .as_ref()
                .is_some_and(|s| selector_matches(s, ns_labels));
        in_namespace
            && self
                .selector
                .as_ref()
                .is_some_and(|s| selector_matches_with(s, labels))
    }

    /// Turns a non-empty namespace selector into the namespaces it selects now
    /// (upstream `mergeAffinityTermNamespacesIfNotEmpty`, for the incoming pod's
    /// terms).
    fn resolve(&mut self, namespaces: &[(String, BTreeMap<String, String>)]) {
        let Some(s) = &self.namespace_selector else {
            return;
        };
        let empty = s.match_labels.as_ref().is_none_or(|m| m.is_empty())
            && s.match_expressions.as_ref().is_none_or(|e| e.is_empty());
        if empty {
            return;
        }
        for (name, labels) in namespaces {
            if selector_matches(s, labels) && !self.namespaces.contains(name) {
                self.namespaces.push(name.clone());
            }
        }
        self.namespace_selector = None;
    }
}

/// A pod's inter-pod affinity terms (upstream `PodInfo`'s four lists).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AffinityTerms {
    pub required: Vec<AffinityTerm>,
    pub required_anti: Vec<AffinityTerm>,
    pub preferred: Vec<AffinityTerm>,
    pub preferred_anti: Vec<AffinityTerm>,
}

impl AffinityTerms {
    /// The pod's terms; `None` if it has none.
    pub fn of(pod: &Pod, namespace: &str) -> Option<AffinityTerms> {
        let affinity = pod.spec.as_ref()?.affinity.as_ref()?;
        let empty = BTreeMap::new();
        let labels = pod.metadata.labels.as_ref().unwrap_or(&empty);
        let read = |terms: Option<&Vec<PodAffinityTerm>>| -> Vec<AffinityTerm> {
            terms
                .into_iter()
                .flatten()
                .map(|t| AffinityTerm::of(t, 0, namespace, labels))
                .collect()
        };
        let weighted =
            |terms: Option<&Vec<k8s_openapi::api::core::v1::WeightedPodAffinityTerm>>| {
                terms
                    .into_iter()
                    .flatten()
                    .map(|w| AffinityTerm::of(&w.pod_affinity_term, w.weight, namespace, labels))
                    .collect::<Vec<_>>()
            };
        let a = affinity.pod_affinity.as_ref();
        let anti = affinity.pod_anti_affinity.as_ref();
        let terms = AffinityTerms {
            required: read(a.and_then(|a| {
                a.required_during_scheduling_ignored_during_execution
                    .as_ref()
            })),
            required_anti: read(anti.and_then(|a| {
                a.required_during_scheduling_ignored_during_execution
                    .as_ref()
            })),
            preferred: weighted(a.and_then(|a| {
                a.preferred_during_scheduling_ignored_during_execution
                    .as_ref()
            })),
            preferred_anti: weighted(anti.and_then(|a| {
                a.preferred_during_scheduling_ignored_during_execution
                    .as_ref()
            })),
        };
        (!terms.is_empty()).then_some(terms)
    }

    pub fn is_empty(&self) -> bool {
        self.required.is_empty()
            && self.required_anti.is_empty()
            && self.preferred.is_empty()
            && self.preferred_anti.is_empty()
    }

    pub fn has_preferred(&self) -> bool {
        !self.preferred.is_empty() || !self.preferred_anti.is_empty()
    }

    /// Whether any namespace selector needs the namespaces' labels.
    pub fn selects_namespaces(&self) -> bool {
        self.all().any(|t| t.namespace_selector.is_some())
    }

    fn all(&self) -> impl Iterator<Item = &AffinityTerm> {
        self.required
            .iter()
            .chain(&self.required_anti)
            .chain(&self.preferred)
            .chain(&self.preferred_anti)
    }

    /// Resolves the namespace selectors of the incoming pod's terms.
    pub fn resolve(&mut self, namespaces: &[(String, BTreeMap<String, String>)]) {
        for t in self
            .required
            .iter_mut()
            .chain(&mut self.required_anti)
            .chain(&mut self.preferred)
            .chain(&mut self.preferred_anti)
        {
            t.resolve(namespaces);
        }
    }
}

/// The pod being scheduled, as the plugin reads it.
pub struct Incoming<'a> {
    pub namespace: &'a str,
    pub labels: &'a BTreeMap<String, String>,
    /// Its namespace's labels, for existing pods' namespace selectors.
    pub ns_labels: &'a BTreeMap<String, String>,
    /// Its own terms, namespace selectors resolved.
    pub terms: Option<&'a AffinityTerms>,
}

impl Incoming<'_> {
    fn matched_by(&self, t: &AffinityTerm) -> bool {
        t.matches(self.namespace, |k| self.labels.get(k), self.ns_labels)
    }
}

/// A pod on a node: its namespace, labels and terms.
pub struct Existing<'a> {
    pub node: &'a NodeInfo,
    pub entry: &'a super::PodEntry,
}

/// (topology key, value) → matching count.
pub type TopologyCounts = BTreeMap<(String, String), i64>;

/// The PreFilter state (upstream `preFilterState`).
#[derive(Default)]
pub struct AffinityState {
    /// Whether the plugin has nothing to check (PreFilter's Skip).
    pub skip: bool,
    pub affinity_counts: TopologyCounts,
    pub anti_affinity_counts: TopologyCounts,
    pub existing_anti_affinity_counts: TopologyCounts,
}

fn add(counts: &mut TopologyCounts, n: &NodeInfo, key: &str) {
    if let Some(v) = n.labels.get(key) {
        *counts.entry((key.to_string(), v.clone())).or_default() += 1;
    }
}

fn existing_matches(t: &AffinityTerm, p: &super::PodEntry) -> bool {
    // The incoming pod's terms have their namespace selectors resolved.
    t.matches(&p.namespace, |k| p.labels.get(k), &BTreeMap::new())
}

/// PreFilter: `all` is every pod on every node (read only if the incoming pod has
/// required terms), `with_required_anti` the pods with required anti-affinity.
pub fn prefilter<'a>(
    incoming: &Incoming,
    all: impl Iterator<Item = Existing<'a>>,
    with_required_anti: impl Iterator<Item = Existing<'a>>,
) -> AffinityState {
    let mut state = AffinityState::default();
    for e in with_required_anti {
        for t in e.entry.affinity.iter().flat_map(|a| &a.required_anti) {
            if incoming.matched_by(t) {
                add(
                    &mut state.existing_anti_affinity_counts,
                    e.node,
                    &t.topology_key,
                );
            }
        }
    }
    let terms = incoming.terms;
    let required = terms.is_some_and(|t| !t.required.is_empty() || !t.required_anti.is_empty());
    if required {
        let terms = terms.expect("checked");
        for e in all {
            if terms.required.iter().all(|t| existing_matches(t, e.entry)) {
                for t in &terms.required {
                    add(&mut state.affinity_counts, e.node, &t.topology_key);
                }
            }
            for t in &terms.required_anti {
                if existing_matches(t, e.entry) {
                    add(&mut state.anti_affinity_counts, e.node, &t.topology_key);
                }
            }
        }
    }
    state.skip = !required && state.existing_anti_affinity_counts.is_empty();
    state
}

fn count(counts: &TopologyCounts, key: &str, value: &str) -> i64 {
    counts
        .get(&(key.to_string(), value.to_string()))
        .copied()
        .unwrap_or(0)
}

/// Filter: `Err((reason, resolvable))` when the node fails.
pub fn filter(
    incoming: &Incoming,
    state: &AffinityState,
    n: &NodeInfo,
) -> Result<(), (&'static str, bool)> {
    if state.skip {
        return Ok(());
    }
    let none = AffinityTerms::default();
    let terms = incoming.terms.unwrap_or(&none);
    // satisfyPodAffinity
    let mut pods_exist = true;
    for t in &terms.required {
        match n.labels.get(&t.topology_key) {
            Some(v) => {
                if count(&state.affinity_counts, &t.topology_key, v) <= 0 {
                    pods_exist = false;
                }
            }
            None => return Err((ERR_AFFINITY_RULES, false)),
        }
    }
    if !pods_exist {
        // The first pod of a group that has affinity to itself.
        let first = state.affinity_counts.is_empty()
            && terms.required.iter().all(|t| incoming.matched_by(t));
        if !first {
            return Err((ERR_AFFINITY_RULES, false));
        }
    }
    // satisfyPodAntiAffinity
    if !state.anti_affinity_counts.is_empty() {
        for t in &terms.required_anti {
            if let Some(v) = n.labels.get(&t.topology_key) {
                if count(&state.anti_affinity_counts, &t.topology_key, v) > 0 {
                    return Err((ERR_ANTI_AFFINITY_RULES, true));
                }
            }
        }
    }
    // satisfyExistingPodsAntiAffinity
    if !state.existing_anti_affinity_counts.is_empty()
        && n.labels
            .iter()
            .any(|(k, v)| count(&state.existing_anti_affinity_counts, k, v) > 0)
    {
        return Err((ERR_EXISTING_ANTI_AFFINITY, true));
    }
    Ok(())
}

/// topology key → value → score (upstream `preScoreState.topologyScore`).
pub type TopologyScore = BTreeMap<String, BTreeMap<String, i64>>;

fn score_term(
    score: &mut TopologyScore,
    t: &AffinityTerm,
    weight: i64,
    matched: bool,
    n: &NodeInfo,
) {
    if !matched {
        return;
    }
    if let Some(v) = n.labels.get(&t.topology_key) {
        *score
            .entry(t.topology_key.clone())
            .or_default()
            .entry(v.clone())
            .or_default() += weight;
    }
}

/// PreScore: `pods` is every pod if the incoming pod has preferred terms, else the
/// pods with affinity terms. `None` when nothing scores (the plugin is skipped).
pub fn prescore<'a>(
    incoming: &Incoming,
    pods: impl Iterator<Item = Existing<'a>>,
) -> Option<TopologyScore> {
    let mut score = TopologyScore::new();
    let none = AffinityTerms::default();
    let own = incoming.terms.unwrap_or(&none);
    for e in pods {
        if e.node.labels.is_empty() {
            continue;
        }
        for t in &own.preferred {
            score_term(
                &mut score,
                t,
                t.weight,
                existing_matches(t, e.entry),
                e.node,
            );
        }
        for t in &own.preferred_anti {
            score_term(
                &mut score,
                t,
                -t.weight,
                existing_matches(t, e.entry),
                e.node,
            );
        }
        let Some(theirs) = e.entry.affinity.as_deref() else {
            continue;
        };
        for t in &theirs.required {
            let m = incoming.matched_by(t);
            score_term(&mut score, t, HARD_POD_AFFINITY_WEIGHT, m, e.node);
        }
        for t in &theirs.preferred {
            score_term(&mut score, t, t.weight, incoming.matched_by(t), e.node);
        }
        for t in &theirs.preferred_anti {
            score_term(&mut score, t, -t.weight, incoming.matched_by(t), e.node);
        }
    }
    (!score.is_empty()).then_some(score)
}

/// Score: the sum over the node's topology values.
pub fn score(s: &TopologyScore, n: &NodeInfo) -> i64 {
    s.iter()
        .filter_map(|(k, values)| n.labels.get(k).and_then(|v| values.get(v)))
        .sum()
}

/// NormalizeScore: scaled between the lowest (0) and the highest (100) node.
pub fn normalize(raw: &[i64]) -> Vec<i64> {
    let (min, max) = (
        raw.iter().copied().min().unwrap_or(0),
        raw.iter().copied().max().unwrap_or(0),
    );
    let diff = max - min;
    raw.iter()
        .map(|&s| {
            if diff > 0 {
                (super::plugins::MAX_NODE_SCORE as f64 * ((s - min) as f64 / diff as f64)) as i64
            } else {
                0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_spans_lowest_to_highest() {
        assert_eq!(normalize(&[-2, 0, 2]), vec![0, 50, 100]);
        assert_eq!(normalize(&[3, 3]), vec![0, 0]);
        assert_eq!(normalize(&[0, 1, 3]), vec![0, 33, 100]);
    }
}
