//! `kubectl get --raw URI`: a GET of a path, its body printed as the server sent it.
//! The simulated apiserver serves the health endpoints (`/healthz`, `/livez`,
//! `/readyz`, with `?verbose`, `?exclude=` and single checks).

use crate::args::GetArgs;
use crate::context::CommandOutput;
use crate::errors;
use warehouse_sim::{ApiError, Cluster, StatusReason};

/// client-go's `maxUnstructuredResponseTextBytes`: the most of a non-Status error
/// body an error message quotes.
const MAX_ERROR_BODY: usize = 2048;

pub(crate) fn run(cluster: &Cluster, args: &GetArgs, uri: &str) -> CommandOutput {
    // `GetOptions.Validate` and `Complete`.
    if !args.args.is_empty() {
        return CommandOutput::error("error: arguments may not be passed when --raw is specified");
    }
    if args.watch || args.selector.is_some() {
        return CommandOutput::error(
            "error: --raw may not be specified with other flags that filter the server request or alter the output",
        );
    }
    if args.output.as_deref().is_some_and(|o| !o.is_empty()) {
        return CommandOutput::error("error: --raw and --output are mutually exclusive");
    }
    if !uri.starts_with('/') {
        return CommandOutput::error(format!(
            "error: --raw must be a valid URL path: parse \"{uri}\": invalid URI for request"
        ));
    }
    let Some(response) = cluster.get_raw(uri) else {
        let path = uri.split('?').next().unwrap_or(uri);
        if path == "/api" || path.starts_with("/api/") || path.starts_with("/apis") {
            return CommandOutput::error(format!(
                "error: --raw {path} is not available in this simulated cluster yet; it serves /healthz, /livez and /readyz (use kubectl get for resources)"
            ));
        }
        return CommandOutput::error(not_found());
    };
    match response.code {
        200 => {
            let mut out = CommandOutput::new();
            out.out_line(&response.body);
            out
        }
        404 => CommandOutput::error(not_found()),
        _ => {
            // `newUnstructuredResponseError` then `NewGenericServerResponse`: the
            // text body, trimmed and Go-quoted.
            let mut body = response.body.as_str();
            if body.len() > MAX_ERROR_BODY {
                let mut cut = MAX_ERROR_BODY;
                while !body.is_char_boundary(cut) {
                    cut -= 1;
                }
                body = &body[..cut];
            }
            let e = ApiError::new(
                StatusReason::InternalError,
                format!(
                    "an error on the server ({}) has prevented the request from succeeding",
                    go_quote(body.trim())
                ),
            );
            CommandOutput::error(errors::render(&e, None))
        }
    }
}

fn not_found() -> String {
    errors::render(
        &ApiError::new(
            StatusReason::NotFound,
            "the server could not find the requested resource",
        ),
        None,
    )
}

/// Go's `%q` for a string of printable text: quotes, backslashes and control
/// characters escaped.
fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::go_quote;

    #[test]
    fn quotes_like_go() {
        assert_eq!(go_quote("a\nb \"c\""), "\"a\\nb \\\"c\\\"\"");
    }
}
