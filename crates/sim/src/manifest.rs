//! Decoding manifests (YAML or JSON, one or many documents) into typed objects.
//! Every mistake comes back as data with its document and, where the YAML parser
//! knows it, line and column.

// Manifest errors are rare, cold and carry what a learner needs to see; their size
// does not matter next to the parse that produced them.
#![allow(clippy::result_large_err)]

use crate::object::{Kind, Object};
use serde::Deserialize;
use std::fmt;

/// The largest manifest text accepted at once (bytes). Bigger input is refused whole.
pub const MAX_MANIFEST_BYTES: usize = 1024 * 1024;
/// The most documents one manifest may hold.
pub const MAX_DOCUMENTS: usize = 500;

/// A manifest document that could not be turned into an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestError {
    /// 1-based index of the YAML document.
    pub document: usize,
    /// 1-based line and column, when known.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub kind: ManifestErrorKind,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ManifestErrorKind {
    /// The text is not valid YAML/JSON.
    Syntax,
    /// `apiVersion`/`kind` missing.
    MissingTypeMeta,
    /// A kind this simulator's apiserver does not serve.
    NoMatch {
        api_version: String,
        kind: String,
        name: String,
        namespace: String,
    },
    /// A field has the wrong type.
    Decode,
    /// Fields the kind does not have (strict field validation); each as a path such
    /// as `spec.template.spec.containers[0].imagee`.
    UnknownFields(Vec<String>),
    /// Size or count limits.
    TooLarge,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

/// Splits `text` into YAML documents and decodes each into a typed object. Empty
/// documents (a lone `---`, comments only) are skipped, as kubectl skips them.
pub fn decode_manifests(text: &str) -> Result<Vec<Object>, ManifestError> {
    if text.len() > MAX_MANIFEST_BYTES {
        return Err(ManifestError {
            document: 0,
            line: None,
            column: None,
            kind: ManifestErrorKind::TooLarge,
            message: format!(
                "the manifest is {} bytes; the limit is {} bytes",
                text.len(),
                MAX_MANIFEST_BYTES
            ),
        });
    }
    let mut objects = Vec::new();
    for (index, doc) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let document = index + 1;
        if document > MAX_DOCUMENTS {
            return Err(ManifestError {
                document,
                line: None,
                column: None,
                kind: ManifestErrorKind::TooLarge,
                message: format!("a manifest may hold at most {MAX_DOCUMENTS} documents"),
            });
        }
        let value = serde_yaml::Value::deserialize(doc).map_err(|e| {
            let loc = e.location();
            ManifestError {
                document,
                line: loc.as_ref().map(|l| l.line()),
                column: loc.as_ref().map(|l| l.column()),
                kind: ManifestErrorKind::Syntax,
                message: format!("error converting YAML to JSON: yaml: {e}"),
            }
        })?;
        if value.is_null() {
            continue;
        }
        // Round-trip through JSON so numbers and keys take JSON's shape, as the
        // apiserver sees them after kubectl converts YAML to JSON.
        let json: serde_json::Value = serde_json::to_value(&value).map_err(|e| ManifestError {
            document,
            line: None,
            column: None,
            kind: ManifestErrorKind::Syntax,
            message: format!("error converting YAML to JSON: {e}"),
        })?;
        objects.push(decode_object(document, json)?);
    }
    Ok(objects)
}

fn decode_object(document: usize, json: serde_json::Value) -> Result<Object, ManifestError> {
    let err = |kind, message: String| ManifestError {
        document,
        line: None,
        column: None,
        kind,
        message,
    };
    let Some(map) = json.as_object() else {
        return Err(err(
            ManifestErrorKind::Decode,
            "error unmarshaling JSON: the document is not an object".into(),
        ));
    };
    let api_version = map.get("apiVersion").and_then(|v| v.as_str()).unwrap_or("");
    let kind = map.get("kind").and_then(|v| v.as_str()).unwrap_or("");
    if kind.is_empty() {
        return Err(err(
            ManifestErrorKind::MissingTypeMeta,
            "error validating data: invalid object to validate: Object 'Kind' is missing".into(),
        ));
    }
    if api_version.is_empty() {
        return Err(err(
            ManifestErrorKind::MissingTypeMeta,
            "error validating data: invalid object to validate: apiVersion not set".into(),
        ));
    }
    let api_version = api_version.to_string();
    let kind = kind.to_string();
    let meta = map.get("metadata");
    let field = |f: &str| {
        meta.and_then(|m| m.get(f))
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string()
    };
    let (name, namespace) = (field("name"), field("namespace"));
    let Some(k) = Kind::from_type_meta(&api_version, &kind) else {
        return Err(err(
            ManifestErrorKind::NoMatch {
                api_version: api_version.clone(),
                kind: kind.clone(),
                name,
                namespace,
            },
            format!("no matches for kind \"{kind}\" in version \"{api_version}\""),
        ));
    };
    let known = Object::known_fields(k, &api_version, json.clone()).map_err(|m| {
        err(
            ManifestErrorKind::Decode,
            format!("error decoding {kind}: {m}"),
        )
    })?;
    let mut unknown = Vec::new();
    unknown_fields(&json, &known, &mut String::new(), &mut unknown);
    if !unknown.is_empty() {
        let listed: Vec<String> = unknown
            .iter()
            .map(|f| format!("unknown field \"{f}\""))
            .collect();
        return Err(err(
            ManifestErrorKind::UnknownFields(unknown),
            format!(
                "error decoding {kind}: strict decoding error: {}",
                listed.join(", ")
            ),
        ));
    }
    Object::from_json_at(k, &api_version, json).map_err(|m| {
        err(
            ManifestErrorKind::Decode,
            format!("error decoding {kind}: {m}"),
        )
    })
}

/// Strict field validation: every field of `input` that the typed decoder dropped
/// (so is absent from `known`) is unknown. Nulls are skipped: `field: null` means
/// "unset", not "unknown".
fn unknown_fields(
    input: &serde_json::Value,
    known: &serde_json::Value,
    path: &mut String,
    out: &mut Vec<String>,
) {
    use serde_json::Value;
    match (input, known) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                match b.get(k) {
                    Some(kv) => unknown_fields(v, kv, path, out),
                    None if v.is_null() => {}
                    None => out.push(path.clone()),
                }
                path.truncate(len);
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (v, kv)) in a.iter().zip(b).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                unknown_fields(v, kv, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_multi_document_yaml_and_skips_empty_documents() {
        let text = "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\n# only a comment\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: nginx, image: nginx}]\n";
        let objs = decode_manifests(text).unwrap();
        assert_eq!(objs.len(), 2);
        assert_eq!(objs[0].kind(), Kind::Namespace);
        assert_eq!(objs[1].name(), "web");
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let e = decode_manifests("apiVersion: v1\nkind: Pod\nmetadata:\n  name: [x\n").unwrap_err();
        assert_eq!(e.kind, ManifestErrorKind::Syntax);
        assert!(e.line.is_some(), "{e:?}");
    }

    #[test]
    fn unknown_kinds_are_no_match_errors() {
        let e = decode_manifests("apiVersion: example.com/v1\nkind: Foo\nmetadata: {name: x}\n")
            .unwrap_err();
        assert_eq!(
            e.message,
            "no matches for kind \"Foo\" in version \"example.com/v1\""
        );
    }

    #[test]
    fn strict_decoding_lists_every_unknown_field() {
        let e = decode_manifests(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replica: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: a, imagee: nginx}]\n",
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "error decoding Deployment: strict decoding error: unknown field \"spec.replica\", unknown field \"spec.template.spec.containers[0].imagee\""
        );
    }

    #[test]
    fn stored_only_kinds_decode_at_each_served_version() {
        let v2 = decode_manifests("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: a}\nspec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3}\n").unwrap();
        assert_eq!(v2[0].kind(), Kind::HorizontalPodAutoscaler);
        let v1 = decode_manifests("apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: a}\nspec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3, targetCPUUtilizationPercentage: 50}\n").unwrap();
        assert_eq!(v1[0].api_version(), "autoscaling/v1");
        assert_eq!(
            v1[0].to_json()["spec"]["targetCPUUtilizationPercentage"],
            50
        );
        let e = decode_manifests("apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: a}\n")
            .unwrap_err();
        assert_eq!(
            e.message,
            "no matches for kind \"CronJob\" in version \"batch/v1beta1\""
        );
    }

    #[test]
    fn wrong_field_types_name_the_field() {
        let e = decode_manifests(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: many}\n",
        )
        .unwrap_err();
        assert_eq!(e.kind, ManifestErrorKind::Decode);
        assert!(e.message.contains("spec.replicas"), "{}", e.message);
    }
}
