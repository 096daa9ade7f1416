//! `warehouse-lessons`: lesson files (Markdown with YAML front matter, English and
//! Russian), their checks, the runner the browser and the verifier share, and the
//! verifier behind `warehouse lessons check`. The format is documented for authors
//! in `lessons/README.md`.
//!
//! Everything here is pure: files come from the caller, time from the simulation.

pub mod catalogue;
pub mod check;
pub mod error;
pub mod frames;
#[doc(hidden)]
pub mod fuzzing;
pub mod glossary;
pub mod markdown;
pub mod model;
pub mod parse;
pub mod runner;
pub mod session;
pub mod verify;

pub use catalogue::{parse_catalogue, Catalogue};
pub use check::{CheckResult, ConditionResult};
pub use error::LessonError;
pub use frames::{Frame, Miss, Moment};
pub use glossary::{parse_glossary, Glossary};
pub use model::*;
pub use parse::{parse_lesson, valid_id, MAX_STEPS};
pub use runner::Runner;
pub use verify::{verify, LessonSource, Verified};
