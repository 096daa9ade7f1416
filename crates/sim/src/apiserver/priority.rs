//! PriorityClasses (scheduling.k8s.io/v1) and the Priority admission plugin.
//!
//! - The two system classes are created at boot, as kube-apiserver's post-start hook
//!   `scheduling/bootstrap-system-priority-classes` does (pkg/apis/scheduling
//!   helpers.go `systemPriorityClasses`), and cannot be deleted
//!   (pkg/registry/scheduling/priorityclass/storage).
//! - Defaulting: `preemptionPolicy: PreemptLowerPriority` (pkg/apis/scheduling/v1
//!   defaults.go).
//! - Validation (pkg/apis/scheduling/validation): a `system-` name must be one of the
//!   system classes with its value; any other class at most 1,000,000,000
//!   (`HighestUserDefinablePriority`); `value` and `preemptionPolicy` immutable.
//! - The Priority plugin (plugin/pkg/admission/priority/admission.go): only one
//!   `globalDefault` class; a new pod's `priorityClassName` resolved to
//!   `spec.priority` and `spec.preemptionPolicy`, the global default class's when it
//!   names none, else 0 and `PreemptLowerPriority`; an unknown class, or a priority or
//!   policy set by hand to another value, refused. Since Kubernetes 1.17 the system
//!   classes may be used in any namespace (upstream limits them with a
//!   ResourceQuota's `scopeSelector` instead, which this plugin leaves to quotas).

use crate::apiserver::admission::forbidden;
use crate::apiserver::{Actor, FieldError};
use crate::cluster::Cluster;
use crate::error::{ApiError, StatusReason};
use crate::object::{Kind, Object, ObjectKey, OtherObject};
use serde_json::json;

/// The priority of `system-node-critical` (static pods, kube-proxy).
pub const SYSTEM_NODE_CRITICAL: i32 = 2_000_001_000;
/// The priority of `system-cluster-critical` (CoreDNS).
pub const SYSTEM_CLUSTER_CRITICAL: i32 = 2_000_000_000;
/// `HighestUserDefinablePriority`.
pub const HIGHEST_USER_DEFINABLE_PRIORITY: i64 = 1_000_000_000;
/// `SystemPriorityClassPrefix`.
pub const SYSTEM_PREFIX: &str = "system-";

/// The system classes: name, value, description.
pub const SYSTEM_CLASSES: [(&str, i32, &str); 2] = [
    (
        "system-node-critical",
        SYSTEM_NODE_CRITICAL,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    (
        "system-cluster-critical",
        SYSTEM_CLUSTER_CRITICAL,
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    ),
];

/// What a PriorityClass says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassSpec {
    pub value: i64,
    pub global_default: bool,
    pub preemption_policy: Option<String>,
}

impl ClassSpec {
    pub fn of(o: &OtherObject) -> ClassSpec {
        ClassSpec {
            value: o.fields.get("value").and_then(|v| v.as_i64()).unwrap_or(0),
            global_default: o
                .fields
                .get("globalDefault")
                .and_then(|v| v.as_bool())
                .unwrap_or(false),
            preemption_policy: o
                .fields
                .get("preemptionPolicy")
                .and_then(|v| v.as_str())
                .map(str::to_string),
        }
    }
}

/// `SetDefaults_PriorityClass`.
pub(crate) fn default_priority_class(o: &mut OtherObject) {
    o.fields
        .entry("preemptionPolicy")
        .or_insert_with(|| json!("PreemptLowerPriority"));
}

/// `ValidatePriorityClass`.
pub(crate) fn validate_priority_class(o: &OtherObject, errors: &mut Vec<FieldError>) {
    let name = o.metadata.name.as_deref().unwrap_or("");
    let spec = ClassSpec::of(o);
    if let Some(v) = o.fields.get("value") {
        if !v.is_i64() || v.as_i64().is_some_and(|v| i32::try_from(v).is_err()) {
            errors.push(FieldError(format!(
                "value: Invalid value: {v}: must be a 32-bit integer"
            )));
        }
    }
    if name.starts_with(SYSTEM_PREFIX) {
        let known = SYSTEM_CLASSES.iter().find(|(n, _, _)| *n == name);
        let err = match known {
            None => Some(format!("{name} is not a known system priority class")),
            Some((n, v, _)) if i64::from(*v) != spec.value => {
                Some(format!("value of {n} PriorityClass must be {v}"))
            }
            Some((n, _, _)) if spec.global_default => {
                Some(format!("globalDefault of {n} PriorityClass must be false"))
            }
            Some(_) => None,
        };
        if let Some(err) = err {
            errors.push(FieldError(format!(
                "metadata.name: Forbidden: priority class names with '{SYSTEM_PREFIX}' prefix are reserved for system use only. error: {err}"
            )));
        }
    } else if spec.value > HIGHEST_USER_DEFINABLE_PRIORITY {
        errors.push(FieldError(format!(
            "value: Forbidden: maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
        )));
    }
    if let Some(p) = &spec.preemption_policy {
        if p != "Never" && p != "PreemptLowerPriority" {
            errors.push(FieldError(format!(
                "preemptionPolicy: Unsupported value: \"{p}\": supported values: \"Never\", \"PreemptLowerPriority\""
            )));
        }
    }
}

/// `ValidatePriorityClassUpdate`: value and preemptionPolicy are fixed.
pub(crate) fn check_priority_class_update(
    old: &OtherObject,
    new: &OtherObject,
    errors: &mut Vec<FieldError>,
) {
    let (o, n) = (ClassSpec::of(old), ClassSpec::of(new));
    if o.value != n.value {
        errors.push(FieldError(
            "value: Forbidden: may not be changed in an update.".into(),
        ));
    }
    if o.preemption_policy != n.preemption_policy {
        errors.push(FieldError(format!(
            "preemptionPolicy: Invalid value: \"{}\": field is immutable",
            n.preemption_policy.unwrap_or_default()
        )));
    }
}

impl Cluster {
    /// The system PriorityClasses, created at boot. Their uids come from their names,
    /// so that the cluster's random stream (pod names) does not depend on them.
    pub(crate) fn bootstrap_priority_classes(&mut self) {
        for (name, value, description) in SYSTEM_CLASSES {
            let mut obj = crate::decode_manifests(
                &json!({
                    "apiVersion": "scheduling.k8s.io/v1",
                    "kind": "PriorityClass",
                    "metadata": {"name": name},
                    "value": value,
                    "description": description,
                })
                .to_string(),
            )
            .expect("the system PriorityClasses parse")
            .remove(0);
            obj.meta_mut().uid = Some(
                crate::names::SimRng::new(u64::from(crate::names::fnv32a(name.as_bytes()))).uid(),
            );
            let _ = self.create_as(Actor::System, obj);
        }
    }

    /// The global default class (the lowest value if several claim it, as
    /// `getDefaultPriorityClass`): name, value and preemption policy.
    fn default_priority_class(&self) -> Option<(String, ClassSpec)> {
        self.store
            .list(Kind::PriorityClass, None)
            .filter_map(|o| match o {
                Object::Other(pc) => Some((o.name().to_string(), ClassSpec::of(pc))),
                _ => None,
            })
            .filter(|(_, s)| s.global_default)
            .min_by_key(|(n, s)| (s.value, n.clone()))
    }

    /// The Priority plugin's validation of a PriorityClass create or update: only
    /// one global default.
    pub(crate) fn admit_priority_class(
        &self,
        obj: &Object,
        old: Option<&Object>,
    ) -> Result<(), ApiError> {
        let Object::Other(pc) = obj else {
            return Ok(());
        };
        if pc.kind != Kind::PriorityClass || !ClassSpec::of(pc).global_default {
            return Ok(());
        }
        match self.default_priority_class() {
            Some((name, _)) if old.is_none() || name != obj.name() => Err(forbidden(
                obj,
                format!(
                    "PriorityClass {name} is already marked as default. Only one default can exist"
                ),
            )),
            _ => Ok(()),
        }
    }

    /// A system class cannot be deleted.
    pub(crate) fn admit_priority_class_delete(&self, key: &ObjectKey) -> Result<(), ApiError> {
        if key.kind == Kind::PriorityClass && SYSTEM_CLASSES.iter().any(|(n, _, _)| *n == key.name)
        {
            return Err(ApiError::new(
                StatusReason::Forbidden,
                format!(
                    "priorityclasses.scheduling.k8s.io \"{}\" is forbidden: this is a system priority class and cannot be deleted",
                    key.name
                ),
            ));
        }
        Ok(())
    }

    /// The Priority admission plugin on a pod's create: the class named (or the
    /// global default) gives `spec.priority` and `spec.preemptionPolicy`.
    pub(crate) fn admit_priority(&mut self, obj: &mut Object) -> Result<(), ApiError> {
        let Object::Pod(pod) = &*obj else {
            return Ok(());
        };
        let spec = pod.spec.clone().unwrap_or_default();
        let named = spec.priority_class_name.clone().filter(|c| !c.is_empty());
        let (class, value, policy) = match &named {
            None => match self.default_priority_class() {
                Some((name, s)) => (Some(name), s.value, s.preemption_policy),
                None => (None, 0, Some("PreemptLowerPriority".to_string())),
            },
            Some(name) => match self
                .store
                .get(&ObjectKey::new(Kind::PriorityClass, "", name))
            {
                Some(Object::Other(pc)) => {
                    let s = ClassSpec::of(pc);
                    (Some(name.clone()), s.value, s.preemption_policy)
                }
                _ => {
                    return Err(forbidden(
                        obj,
                        format!("no PriorityClass with name {name} was found"),
                    ))
                }
            },
        };
        let value = value as i32;
        if let Some(p) = spec.priority.filter(|p| *p != value) {
            return Err(forbidden(
                obj,
                format!("the integer value of priority ({p}) must not be provided in pod spec; priority admission controller computed {value} from the given PriorityClass name"),
            ));
        }
        if let (Some(want), Some(have)) = (&policy, &spec.preemption_policy) {
            if want != have {
                return Err(forbidden(
                    obj,
                    format!("the string value of PreemptionPolicy ({have}) must not be provided in pod spec; priority admission controller computed {want} from the given PriorityClass name"),
                ));
            }
        }
        let Object::Pod(pod) = obj else {
            return Ok(());
        };
        let spec = pod.spec.get_or_insert_with(Default::default);
        spec.priority_class_name = class;
        spec.priority = Some(value);
        if policy.is_some() {
            spec.preemption_policy = policy;
        }
        Ok(())
    }
}
