//! kubectl's discovery: the kinds the apiserver serves, read once per command (as
//! kubectl's discovery client reads `/apis` before it resolves a resource type). The
//! built-in kinds are a table; the kinds CustomResourceDefinitions add are read
//! from the cluster when a command starts ([`refresh`]).

use std::cell::RefCell;
use std::sync::Arc;
use warehouse_sim::object::crd::{self, PrinterColumn};
use warehouse_sim::{Cluster, Kind, Object};

/// A served custom kind and the printer columns of its preferred version.
struct Served {
    kind: Kind,
    columns: Vec<PrinterColumn>,
    definition: Option<Arc<Object>>,
}

thread_local! {
    static CUSTOM: RefCell<Vec<Served>> = const { RefCell::new(Vec::new()) };
}

/// Reads the cluster's served custom kinds for the command about to run.
pub(crate) fn refresh(cluster: &Cluster) {
    let served = cluster
        .custom_kinds()
        .into_iter()
        .map(|kind| {
            let definition = cluster.definition_of(kind);
            let columns = match definition.as_deref() {
                Some(Object::Other(d)) => crd::printer_columns(&d.fields, kind.info().versions[0]),
                _ => Vec::new(),
            };
            Served {
                kind,
                columns,
                definition,
            }
        })
        .collect();
    CUSTOM.with(|c| *c.borrow_mut() = served);
}

/// The custom kinds the last [`refresh`] found, in [`Kind`] order.
pub(crate) fn custom_kinds() -> Vec<Kind> {
    CUSTOM.with(|c| c.borrow().iter().map(|s| s.kind).collect())
}

/// A custom kind's `additionalPrinterColumns`, or `None` if it has none: then its
/// table is NAME and AGE (apiextensions-apiserver's default `Age` column).
pub(crate) fn printer_columns(kind: Kind) -> Vec<PrinterColumn> {
    let columns = CUSTOM.with(|c| {
        c.borrow()
            .iter()
            .find(|s| s.kind == kind)
            .map(|s| s.columns.clone())
            .unwrap_or_default()
    });
    if columns.is_empty() {
        vec![PrinterColumn {
            name: "Age".into(),
            type_: "date".into(),
            json_path: ".metadata.creationTimestamp".into(),
            priority: 0,
        }]
    } else {
        columns
    }
}

/// What a user types for a resource type: a built-in kind, else a served custom
/// kind by plural, singular, short name or kind, optionally qualified by group or
/// by version and group (`backups.example.com`, `backups.v1.example.com`).
pub(crate) fn lookup(name: &str) -> Option<Kind> {
    Kind::lookup(name).or_else(|| Kind::lookup_among(name, &custom_kinds()))
}

/// The served definition of a custom kind.
pub(crate) fn definition(kind: Kind) -> Option<Arc<Object>> {
    CUSTOM.with(|c| {
        c.borrow()
            .iter()
            .find(|s| s.kind == kind)
            .and_then(|s| s.definition.clone())
    })
}

/// What kubectl finds wrong with a custom object before it is written: a kind
/// discovery does not list, or (strict field validation, the apiserver's answer)
/// fields its schema does not declare.
pub(crate) fn check_custom(obj: &Object) -> Result<(), CustomProblem> {
    let kind = obj.kind();
    if !kind.is_custom() {
        return Ok(());
    }
    // Matched by group, version and kind, as a manifest names it.
    let api_version = obj.api_version();
    let served = custom_kinds()
        .into_iter()
        .find(|k| k.answers_as(kind, &api_version));
    let Some(def) = served.and_then(definition) else {
        return Err(CustomProblem::NoMatch);
    };
    let Object::Other(d) = &*def else {
        return Err(CustomProblem::NoMatch);
    };
    let unknown = crd::unknown_fields(&d.fields, obj);
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(CustomProblem::UnknownFields(unknown))
    }
}

/// Why [`check_custom`] refuses an object.
pub(crate) enum CustomProblem {
    NoMatch,
    UnknownFields(Vec<String>),
}
