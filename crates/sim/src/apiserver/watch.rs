//! Watches as clients open them: a kind, optionally a namespace, label and field
//! selectors, and a resourceVersion to start after. Served from the store's bounded
//! watch logs (Events have their own); a start point older than the log answers 410
//! Gone, and the client must list again (as informers do).

use crate::cluster::Cluster;
use crate::error::ApiError;
use crate::object::{Kind, Object};
use crate::store::WatchEvent;
use std::collections::BTreeMap;

/// What a watch selects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WatchFilter {
    /// None watches every kind.
    pub kind: Option<Kind>,
    pub namespace: Option<String>,
    /// Equality label selector (`app=web`): every pair must match.
    pub labels: BTreeMap<String, String>,
    /// Field selector on `metadata.name`, `metadata.namespace`, `spec.nodeName` or
    /// `status.phase` (pods): every pair must match.
    pub fields: BTreeMap<String, String>,
}

impl WatchFilter {
    pub fn matches(&self, obj: &Object) -> bool {
        if self.kind.is_some_and(|k| k != obj.kind()) {
            return false;
        }
        if self
            .namespace
            .as_deref()
            .is_some_and(|ns| ns != obj.namespace())
        {
            return false;
        }
        let labels = obj.meta().labels.as_ref();
        if !self
            .labels
            .iter()
            .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v))
        {
            return false;
        }
        self.fields.iter().all(|(field, want)| {
            let pod = obj.as_pod();
            let have = match field.as_str() {
                "metadata.name" => Some(obj.name().to_string()),
                "metadata.namespace" => Some(obj.namespace().to_string()),
                "spec.nodeName" => pod.map(|p| {
                    p.spec
                        .as_ref()
                        .and_then(|s| s.node_name.clone())
                        .unwrap_or_default()
                }),
                "status.phase" => pod.map(|p| {
                    p.status
                        .as_ref()
                        .and_then(|s| s.phase.clone())
                        .unwrap_or_default()
                }),
                _ => None,
            };
            have.as_deref() == Some(want.as_str())
        })
    }
}

impl Cluster {
    /// The events after `resource_version` that `filter` selects, oldest first, or
    /// 410 Gone when the log has been compacted past that point.
    pub fn watch(
        &self,
        filter: &WatchFilter,
        resource_version: u64,
    ) -> Result<Vec<WatchEvent>, ApiError> {
        Ok(self
            .store
            .events_of(filter.kind, resource_version)?
            .filter(|e| filter.matches(&e.object))
            .cloned()
            .collect())
    }
}
