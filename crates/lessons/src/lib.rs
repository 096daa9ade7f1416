//! `warehouse-lessons`: lesson files (Markdown with YAML front matter, English and
//! Russian), their checks and their replayed solutions.
//!
//! The lesson format is not implemented yet: this crate only reserves its place in
//! the workspace, and `warehouse` has no `lessons` subcommand until it is.
