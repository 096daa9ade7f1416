//! Errors in a lesson file, each with the file, the line and the column.

use std::fmt;

/// One problem in a lesson, located in its file (1-based line and column; column 0
/// when only the line is known).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LessonError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl LessonError {
    pub fn new(file: &str, line: usize, column: usize, message: impl Into<String>) -> Self {
        LessonError {
            file: file.to_string(),
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for LessonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.column > 0 {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            )
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

impl std::error::Error for LessonError {}

/// A serde_yaml error moved to the file: `first_line` is the file line of the YAML
/// text's first line, `indent` the columns the YAML text is indented by in the file.
pub(crate) fn yaml_error(
    file: &str,
    first_line: usize,
    indent: usize,
    what: &str,
    err: &serde_yaml::Error,
) -> LessonError {
    let message = strip_location(&err.to_string());
    match err.location() {
        Some(loc) => LessonError::new(
            file,
            first_line + loc.line() - 1,
            loc.column() + indent,
            format!("{what}: {message}"),
        ),
        None => LessonError::new(file, first_line, 0, format!("{what}: {message}")),
    }
}

/// The YAML text's nesting and expansion held to the manifests' bounds
/// (`warehouse_sim::object::manifest::check_bounds`) before serde_yaml builds anything from
/// it, the error moved to the file as [`yaml_error`] moves one.
pub(crate) fn yaml_bounds(
    file: &str,
    first_line: usize,
    indent: usize,
    what: &str,
    text: &str,
) -> Result<(), LessonError> {
    warehouse_sim::object::manifest::check_bounds(text).map_err(|e| {
        let message = e
            .message
            .strip_prefix("error converting YAML to JSON: yaml: ")
            .unwrap_or(&e.message);
        match (e.line, e.column) {
            (Some(line), Some(column)) => LessonError::new(
                file,
                first_line + line - 1,
                column + indent,
                format!("{what}: {message}"),
            ),
            _ => LessonError::new(file, first_line, 0, format!("{what}: {message}")),
        }
    })
}

/// serde_yaml writes " at line L column C" into its messages; the error carries the
/// location, moved to the file, so the text drops it.
fn strip_location(message: &str) -> String {
    let re = regex_lite::Regex::new(r" at line \d+ column \d+").expect("a valid pattern");
    re.replace_all(message, "").into_owned()
}
