//! Admission plugins beyond defaulting: LimitRanger (mutating) and ResourceQuota
//! (validating). Called by the apiserver pipeline in `apiserver.rs`, in upstream order:
//! mutating plugins before validation, validating plugins after it.

use crate::cluster::Cluster;
use crate::error::ApiError;
use crate::object::Object;

impl Cluster {
    /// Mutating admission for a create: LimitRanger fills in default requests and
    /// limits from the namespace's LimitRanges.
    pub(crate) fn admission_mutate(&mut self, _obj: &mut Object) -> Result<(), ApiError> {
        Ok(())
    }

    /// Validating admission for a create (`old` None) or an update: ResourceQuota.
    pub(crate) fn admission_validate(&mut self, _obj: &Object, _old: Option<&Object>) -> Result<(), ApiError> {
        Ok(())
    }
}
