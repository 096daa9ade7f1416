//! How kubectl prints errors from the server (k8s.io/kubectl/pkg/cmd/util
//! `checkErr` and `StandardErrorMessage`).

use warehouse_sim::{ApiError, StatusReason};

/// The kinds of field error apimachinery's `field.Error` renders, used to find where
/// one cause ends and the next begins in an aggregated message.
const FIELD_ERROR_TYPES: &[&str] = &[
    "Invalid value",
    "Required value",
    "Duplicate value",
    "Forbidden",
    "Unsupported value",
    "Too long",
    "Too many",
    "Not found",
    "Internal error",
    "Invalid",
];

/// kubectl's text for a failed request. `source` (`STDIN`, a file name) and `verb`
/// (`creating`, `deleting`) are added the way `cmdutil.AddSourceToErr` adds them.
pub fn render(err: &ApiError, context: Option<(&str, &str)>) -> String {
    if err.reason == StatusReason::Invalid {
        if let Some(text) = render_invalid(&err.message) {
            return text;
        }
    }
    let message = match context {
        Some((verb, source)) => format!("error when {verb} \"{source}\": {}", err.message),
        None => err.message.clone(),
    };
    match err.reason {
        StatusReason::Unauthorized => {
            format!("error: You must be logged in to the server ({message})")
        }
        // A Status without a reason (an error the apiserver could not classify).
        StatusReason::Unknown => format!("Error from server: {message}"),
        reason => format!("Error from server ({}): {message}", reason.as_str()),
    }
}

/// kubectl's text for a failed request that a `kubectl create` generator wrapped
/// with `fmt.Errorf("failed to create deployment: %v", err)` (create_deployment.go and
/// most of its siblings). The wrapping hides the API status from `checkErr`, so the
/// server's message follows on one line after `error: `, without `Error from server`.
/// `prefix` is the generator's own text, `failed to create deployment:`.
pub fn wrapped(err: &ApiError, prefix: &str) -> String {
    format!("error: {prefix} {}", err.message)
}

/// `The Deployment "web" is invalid: <cause>`, or with several causes one per line
/// after a `* `, as kubectl's `MultilineError` prints them. The server message is
/// `Deployment.apps "web" is invalid: <cause>` or `... is invalid: [<c1>, <c2>]`.
fn render_invalid(message: &str) -> Option<String> {
    let (head, detail) = message.split_once(" is invalid: ")?;
    let (qualified, name) = head.split_once(' ')?;
    let kind = qualified.split('.').next().unwrap_or(qualified);
    let prefix = format!("The {kind} {name} is invalid: ");
    let causes = split_causes(detail);
    if causes.len() <= 1 {
        return Some(format!("{prefix}{detail}"));
    }
    let mut out = prefix;
    out.push('\n');
    for c in causes {
        out.push_str("* ");
        out.push_str(&c);
        out.push('\n');
    }
    // The caller adds the final newline.
    out.pop();
    Some(out)
}

fn split_causes(detail: &str) -> Vec<String> {
    let Some(inner) = detail.strip_prefix('[').and_then(|d| d.strip_suffix(']')) else {
        return vec![detail.to_string()];
    };
    let mut causes = Vec::new();
    let mut start = 0;
    let mut search = 0;
    while let Some(pos) = inner[search..].find(", ") {
        let at = search + pos;
        let rest = &inner[at + 2..];
        if starts_with_field_error(rest) {
            causes.push(inner[start..at].to_string());
            start = at + 2;
        }
        search = at + 2;
    }
    causes.push(inner[start..].to_string());
    causes
}

/// `spec.replicas: Invalid value: ...` and the like.
fn starts_with_field_error(s: &str) -> bool {
    let Some((path, rest)) = s.split_once(": ") else {
        return false;
    };
    let path_ok = !path.is_empty()
        && path.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && path.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '.' | '[' | ']' | '-' | '_' | '/' | '*')
        });
    path_ok && FIELD_ERROR_TYPES.iter().any(|t| rest.starts_with(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_reads_like_kubectl() {
        let e = ApiError::not_found("pods", "x");
        assert_eq!(
            render(&e, None),
            "Error from server (NotFound): pods \"x\" not found"
        );
        assert_eq!(
            render(&e, Some(("deleting", "STDIN"))),
            "Error from server (NotFound): error when deleting \"STDIN\": pods \"x\" not found"
        );
    }

    #[test]
    fn invalid_uses_the_kind_without_group() {
        let e = ApiError::new(
            StatusReason::Invalid,
            "Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0",
        );
        assert_eq!(
            render(&e, Some(("creating", "STDIN"))),
            "The Deployment \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
        );
    }

    #[test]
    fn several_causes_print_one_per_line() {
        let e = ApiError::new(
            StatusReason::Invalid,
            "Deployment.apps \"Web\" is invalid: [metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and so on, spec.replicas: Invalid value: -1: must be greater than or equal to 0]",
        );
        assert_eq!(
            render(&e, None),
            "The Deployment \"Web\" is invalid: \n* metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and so on\n* spec.replicas: Invalid value: -1: must be greater than or equal to 0"
        );
    }
}
