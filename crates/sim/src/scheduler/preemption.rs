//! DefaultPreemption, the default profile's PostFilter
//! (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go and
//! framework/preemption/preemption.go): when no node fits a pod, the nodes whose
//! filters failed in a way that removing pods could resolve (`Unschedulable`, not
//! `UnschedulableAndUnresolvable`) are searched for lower-priority victims.
//!
//! - `PodEligibleToPreemptOthers`: a pod with `preemptionPolicy: Never` preempts
//!   nothing (`not eligible due to preemptionPolicy=Never.`); nor does a pod whose
//!   nominated node still holds a lower-priority pod terminating by preemption (`not
//!   eligible due to a terminating pod on the nominated node.`).
//! - `SelectVictimsOnNode`: every pod of lower priority is taken off the node; if the
//!   pod still does not fit, the node is no candidate (its filter reasons are counted
//!   in the message; a node without lower-priority pods counts `No preemption victims
//!   found for incoming pod`). Then the victims are reprieved one by one, most
//!   important first (higher priority, then earlier start), those whose eviction
//!   would violate a PodDisruptionBudget before the others: a pod stays if the
//!   preemptor still fits with it back.
//! - Candidates: nodes are tried from a random offset until at least
//!   max(10% of the nodes, 100) candidates are found (and one without a budget
//!   violation). `pickOneNodeForPreemption`: fewest budget violations, then the lowest
//!   highest-victim priority, the smallest sum of priorities, the fewest victims, the
//!   latest start among the highest-priority victims, the first.
//! - `prepareCandidate`: each victim gets the `DisruptionTarget` condition (reason
//!   `PreemptionByScheduler`, `default-scheduler: preempting to accommodate a higher
//!   priority pod`), is deleted gracefully, and gets the event `Preempted` (`Preempted
//!   by pod <uid> on node <node>`); lower-priority pods nominated to that node lose
//!   their nomination; the preemptor's `status.nominatedNodeName` names the node, and
//!   the scheduling queue counts it there (`RunFilterPluginsWithNominatedPods`:
//!   pods of equal or higher priority nominated to a node take its room for others).
//!
//! Simplifications: victims are searched on nodes rejected by NodeResourcesFit or
//! NodePorts; a node rejected by inter-pod affinity or topology spreading counts as
//! having no victims; the search re-runs the node's own filters (not the spreading,
//! affinity and volume ones) with the victims removed.

use super::plugins::{self, PodFacts};
use super::{Accounted, NodeInfo, PodEntry};
use crate::apiserver::Actor;
use crate::cluster::Cluster;
use crate::controllers::disruption::{BudgetSpec, BudgetStatus};
use crate::controllers::set_pod_condition;
use crate::object::{Kind, Object, ObjectKey};
use crate::sort::StableSort;
use k8s_openapi::api::core::v1::{Pod, PodCondition};
use std::collections::BTreeMap;

pub const NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
pub const NO_VICTIMS: &str = "No preemption victims found for incoming pod";
pub const NEVER: &str = "not eligible due to preemptionPolicy=Never.";
pub const TERMINATING: &str = "not eligible due to a terminating pod on the nominated node.";
/// `v1.PodReasonPreemptionByScheduler`.
pub const PREEMPTION_BY_SCHEDULER: &str = "PreemptionByScheduler";
/// `minCandidateNodesPercentage` and `minCandidateNodesAbsolute`.
pub const MIN_CANDIDATE_NODES_PERCENTAGE: usize = 10;
pub const MIN_CANDIDATE_NODES_ABSOLUTE: usize = 100;

/// What a failed attempt does to the pod's `status.nominatedNodeName`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Nomination {
    /// Left as it is.
    #[default]
    Keep,
    /// Cleared: preemption found no candidate.
    Clear,
    /// The node where victims were chosen.
    Set(String),
}

/// A node the filters rejected: its name, the plugin, and whether removing pods
/// could resolve it.
pub(crate) struct Rejected {
    pub node: String,
    pub plugin: &'static str,
    pub resolvable: bool,
}

/// What DefaultPreemption concluded.
pub(crate) struct PostFilter {
    pub nomination: Nomination,
    /// The text after `preemption: ` in the FailedScheduling message (none when
    /// victims were chosen).
    pub message: Option<String>,
    pub victims: Vec<ObjectKey>,
}

/// A pod that may be evicted, with what orders victims.
struct Victim {
    key: ObjectKey,
    priority: i32,
    /// `status.startTime` (else the creation time), in milliseconds.
    start: i64,
}

struct Candidate {
    node: String,
    /// Most important first.
    victims: Vec<Victim>,
    pdb_violations: usize,
}

/// A PodDisruptionBudget as preemption reads it.
struct Budget {
    namespace: String,
    spec: BudgetSpec,
    allowed: i64,
    disrupted: Vec<String>,
}

/// `calculateNumCandidates`.
fn num_candidates(nodes: usize) -> usize {
    (nodes * MIN_CANDIDATE_NODES_PERCENTAGE / 100)
        .max(MIN_CANDIDATE_NODES_ABSOLUTE)
        .min(nodes)
}

/// Adds the requests of the pods nominated to a node with at least `priority` (not
/// the pod itself) to a copy of the node; `None` when there are none.
pub(crate) fn with_nominated(
    queue: &super::queue::SchedulingQueue,
    pod: &ObjectKey,
    priority: i32,
    name: &str,
    n: &NodeInfo,
) -> Option<NodeInfo> {
    let mut copy: Option<NodeInfo> = None;
    for (key, p) in queue.nominated_to(name) {
        if key != pod && p.priority >= priority {
            let c = copy.get_or_insert_with(|| n.clone());
            c.requested.add(&p.requests);
            c.pod_count += 1;
        }
    }
    copy
}

fn pod_priority(pod: &Pod) -> i32 {
    pod.spec.as_ref().and_then(|s| s.priority).unwrap_or(0)
}

/// Whether a pod is going because the scheduler preempted it
/// (`podTerminatingByPreemption`).
fn terminating_by_preemption(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some()
        && crate::controllers::pod_condition(pod, "DisruptionTarget")
            .is_some_and(|c| c.reason.as_deref() == Some(PREEMPTION_BY_SCHEDULER))
}

impl Cluster {
    /// DefaultPreemption's PostFilter for a pod no node fits.
    pub(crate) fn post_filter(
        &mut self,
        key: &ObjectKey,
        pod: &Pod,
        facts: &PodFacts,
        rejected: &[Rejected],
    ) -> PostFilter {
        let refused = |message: &str, nomination| PostFilter {
            nomination,
            message: Some(message.to_string()),
            victims: Vec::new(),
        };
        let policy = pod
            .spec
            .as_ref()
            .and_then(|s| s.preemption_policy.as_deref());
        if policy == Some("Never") {
            return refused(NEVER, Nomination::Keep);
        }
        let priority = pod_priority(pod);
        let nominated = pod
            .status
            .as_ref()
            .and_then(|s| s.nominated_node_name.clone())
            .filter(|n| !n.is_empty());
        if let Some(n) = &nominated {
            let unresolvable = rejected.iter().any(|r| &r.node == n && !r.resolvable);
            if !unresolvable && self.preempted_pods_terminating(n, priority) {
                return refused(TERMINATING, Nomination::Keep);
            }
        }
        let potential: Vec<&Rejected> = rejected.iter().filter(|r| r.resolvable).collect();
        let mut histogram: BTreeMap<String, usize> = BTreeMap::new();
        *histogram.entry(NOT_HELPFUL.to_string()).or_default() += rejected.len() - potential.len();
        let has_lower = |r: &&Rejected| {
            self.scheduler
                .nodes
                .get(&r.node)
                .is_some_and(|n| n.pods.values().any(|p| p.priority < priority))
        };
        // The random offset is drawn only when some node has victims to offer, so
        // that pods of equal priority leave the cluster's random stream alone.
        let offset = if potential.iter().any(has_lower) {
            self.rng.below(potential.len() as u64) as usize
        } else {
            0
        };
        let budgets = self.preemption_budgets();
        let wanted = num_candidates(potential.len());
        let mut candidates: Vec<Candidate> = Vec::new();
        for r in potential.iter().cycle().skip(offset).take(potential.len()) {
            match self.select_victims(key, facts, priority, r, &budgets) {
                Ok(c) => candidates.push(c),
                Err(reasons) => {
                    for reason in reasons {
                        *histogram.entry(reason).or_default() += 1;
                    }
                }
            }
            let clean = candidates.iter().filter(|c| c.pdb_violations == 0).count();
            if clean > 0 && candidates.len() >= wanted {
                break;
            }
        }
        histogram.retain(|_, c| *c > 0);
        let Some(best) = pick_one_node(candidates) else {
            let all = self.scheduler.nodes.len();
            let mut parts: Vec<String> =
                histogram.iter().map(|(r, c)| format!("{c} {r}")).collect();
            parts.stable_sort();
            return refused(
                &format!("0/{all} nodes are available: {}.", parts.join(", ")),
                Nomination::Clear,
            );
        };
        PostFilter {
            nomination: Nomination::Set(best.node),
            message: None,
            victims: best.victims.into_iter().map(|v| v.key).collect(),
        }
    }

    /// Whether a node holds a pod of lower priority that is terminating because
    /// the scheduler preempted it.
    fn preempted_pods_terminating(&self, node: &str, priority: i32) -> bool {
        let Some(n) = self.scheduler.nodes.get(node) else {
            return false;
        };
        n.pods
            .iter()
            .filter(|(_, p)| p.terminating && p.priority < priority)
            .any(|(k, _)| {
                self.store
                    .get(k)
                    .and_then(Object::as_pod)
                    .is_some_and(terminating_by_preemption)
            })
    }

    /// Every PodDisruptionBudget with its allowed disruptions
    /// (`getPodDisruptionBudgets`).
    fn preemption_budgets(&self) -> Vec<Budget> {
        self.store
            .list(Kind::PodDisruptionBudget, None)
            .filter_map(|o| match o {
                Object::Other(b) => {
                    let status = BudgetStatus::of(b);
                    Some(Budget {
                        namespace: o.namespace().to_string(),
                        spec: BudgetSpec::of(b),
                        allowed: status.disruptions_allowed,
                        disrupted: status.disrupted_pods.into_keys().collect(),
                    })
                }
                _ => None,
            })
            .collect()
    }

    /// `SelectVictimsOnNode`: the victims on one node, or the reasons it is no
    /// candidate.
    fn select_victims(
        &self,
        key: &ObjectKey,
        facts: &PodFacts,
        priority: i32,
        rejected: &Rejected,
        budgets: &[Budget],
    ) -> Result<Candidate, Vec<String>> {
        let name = rejected.node.as_str();
        let Some(node) = self.scheduler.nodes.get(name) else {
            return Err(vec![NO_VICTIMS.to_string()]);
        };
        let lower: Vec<(&ObjectKey, &PodEntry)> = node
            .pods
            .iter()
            .filter(|(_, p)| p.priority < priority)
            .collect();
        if lower.is_empty() || !matches!(rejected.plugin, "NodeResourcesFit" | "NodePorts") {
            return Err(vec![NO_VICTIMS.to_string()]);
        }
        let mut work = with_nominated(&self.scheduler.queue, key, priority, name, node)
            .unwrap_or_else(|| node.clone());
        let mut taken: Vec<(Victim, Accounted, PodEntry)> = Vec::new();
        for (k, _) in &lower {
            let Some(a) = self.scheduler.accounted.get(*k) else {
                continue;
            };
            if let Some(entry) = work.take(k, a) {
                let start = self
                    .store
                    .get(k)
                    .and_then(Object::as_pod)
                    .map(|p| {
                        p.status
                            .as_ref()
                            .and_then(|s| s.start_time.as_ref())
                            .map(|t| t.0.as_millisecond())
                            .unwrap_or_else(|| crate::object::created_millis(&p.metadata))
                    })
                    .unwrap_or(0);
                let victim = Victim {
                    key: (*k).clone(),
                    priority: entry.priority,
                    start,
                };
                taken.push((victim, a.clone(), entry));
            }
        }
        if let Err(f) = plugins::filter(facts, name, &work) {
            return Err(f.reasons);
        }
        // Most important first: higher priority, then the earlier start.
        taken.stable_sort_by(|a, b| {
            b.0.priority
                .cmp(&a.0.priority)
                .then(a.0.start.cmp(&b.0.start))
        });
        // `filterPodsWithPDBViolation`.
        let mut allowed: Vec<i64> = budgets.iter().map(|b| b.allowed).collect();
        let (mut violating, mut clean) = (Vec::new(), Vec::new());
        for t in taken {
            let labels: BTreeMap<String, String> =
                t.2.labels
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
            let mut violates = false;
            for (i, b) in budgets.iter().enumerate() {
                if b.namespace != t.0.key.namespace
                    || !b.spec.eviction_selects(&labels)
                    || b.disrupted.contains(&t.0.key.name)
                {
                    continue;
                }
                allowed[i] -= 1;
                violates |= allowed[i] < 0;
            }
            if violates {
                violating.push(t);
            } else {
                clean.push(t);
            }
        }
        let both = !violating.is_empty() && !clean.is_empty();
        let mut victims = Vec::new();
        let mut pdb_violations = 0;
        for (is_violating, list) in [(true, violating), (false, clean)] {
            for (victim, a, entry) in list {
                work.put(&victim.key, &a, entry);
                if plugins::filter(facts, name, &work).is_err() {
                    work.take(&victim.key, &a);
                    pdb_violations += usize::from(is_violating);
                    victims.push(victim);
                }
            }
        }
        if victims.is_empty() {
            return Err(vec![NO_VICTIMS.to_string()]);
        }
        if both {
            victims.stable_sort_by(|a, b| b.priority.cmp(&a.priority).then(a.start.cmp(&b.start)));
        }
        Ok(Candidate {
            node: name.to_string(),
            victims,
            pdb_violations,
        })
    }

    /// `prepareCandidate`: the victims are marked and deleted, lower-priority pods
    /// nominated to the node lose their nomination.
    pub(crate) fn preempt(&mut self, preemptor: &Pod, node: &str, victims: &[ObjectKey]) {
        let uid = preemptor.metadata.uid.clone().unwrap_or_default();
        let scheduler_name = preemptor
            .spec
            .as_ref()
            .and_then(|s| s.scheduler_name.clone())
            .unwrap_or_else(|| "default-scheduler".into());
        for key in victims {
            let Some(Object::Pod(mut victim)) = self.store.get(key).cloned() else {
                continue;
            };
            set_pod_condition(
                &mut victim,
                PodCondition {
                    type_: "DisruptionTarget".into(),
                    status: "True".into(),
                    reason: Some(PREEMPTION_BY_SCHEDULER.into()),
                    message: Some(format!(
                        "{scheduler_name}: preempting to accommodate a higher priority pod"
                    )),
                    last_transition_time: Some(self.now.to_k8s()),
                    ..Default::default()
                },
            );
            let Ok(marked) = self.update_as(Actor::Scheduler, Object::Pod(victim)) else {
                continue;
            };
            if marked.meta().deletion_timestamp.is_none() {
                let _ = self.delete_as(Actor::Scheduler, key, None);
            }
            self.record_event(
                &marked,
                "default-scheduler",
                None,
                "Normal",
                "Preempted",
                format!("Preempted by pod {uid} on node {node}"),
            );
        }
        let priority = pod_priority(preemptor);
        let lower: Vec<ObjectKey> = self
            .scheduler
            .queue
            .nominated_to(node)
            .filter(|(_, p)| p.priority < priority)
            .map(|(k, _)| k.clone())
            .collect();
        for key in lower {
            self.scheduler.queue.nominate(&key, None);
            if let Some(Object::Pod(mut p)) = self.store.get(&key).cloned() {
                if let Some(status) = p.status.as_mut() {
                    status.nominated_node_name = None;
                }
                let _ = self.update_as(Actor::Scheduler, Object::Pod(p));
            }
        }
    }
}

/// `pickOneNodeForPreemption`.
fn pick_one_node(candidates: Vec<Candidate>) -> Option<Candidate> {
    let keep_min = |cs: Vec<Candidate>, f: &dyn Fn(&Candidate) -> i64| -> Vec<Candidate> {
        let best = cs.iter().map(f).min().unwrap_or(0);
        cs.into_iter().filter(|c| f(c) == best).collect()
    };
    let mut cs = candidates;
    cs = keep_min(cs, &|c| c.pdb_violations as i64);
    cs = keep_min(cs, &|c| {
        c.victims.first().map_or(0, |v| i64::from(v.priority))
    });
    cs = keep_min(cs, &|c| {
        c.victims
            .iter()
            .map(|v| i64::from(v.priority) + i64::from(i32::MAX) + 1)
            .sum()
    });
    cs = keep_min(cs, &|c| c.victims.len() as i64);
    // The latest start among the highest-priority victims wins.
    cs = keep_min(cs, &|c| {
        let top = c.victims.first().map_or(0, |v| v.priority);
        let earliest = c
            .victims
            .iter()
            .filter(|v| v.priority == top)
            .map(|v| v.start)
            .min()
            .unwrap_or(0);
        -earliest
    });
    cs.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_ten_percent_at_least_a_hundred() {
        assert_eq!(num_candidates(5), 5);
        assert_eq!(num_candidates(500), 100);
        assert_eq!(num_candidates(5000), 500);
    }
}
