//! The lesson-file entry point for fuzzing, shared by the cargo-fuzz target in
//! `fuzz/` and `tests/fuzz_props.rs` (see `warehouse_sim::fuzzing`). Hidden from the
//! documentation.

use crate::{parse_lesson, session, verify, Runner};
use warehouse_kubectl::fuzzing::split_files;
use warehouse_sim::fuzzing::{observe, text};
use warehouse_sim::SimDuration;

/// How far [`lesson_file`] got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reached {
    /// The file did not parse.
    Refused,
    /// It parsed, but its setup failed.
    SetupFailed,
    /// Its first step opened and ran.
    Ran,
}

/// A lesson file as the browser opens one: parsed, and if it parses, its cluster
/// started with the files after it (`%%% file NAME` sections, see
/// `warehouse_kubectl::fuzzing::split_files`), its first step opened, checked,
/// run for a little simulated time (incidents fire) and checked again.
pub fn lesson_file(data: &[u8]) -> Reached {
    let input = text(data);
    let (text, given) = split_files(&input);
    let file = "lessons/fuzz/en.md";
    let Ok(lesson) = parse_lesson(file, text) else {
        return Reached::Refused;
    };
    let files = verify::lesson_files(&lesson.meta, &given);
    let Ok(mut session) = session::start(file, &lesson.meta, &files) else {
        return Reached::SetupFailed;
    };
    let mut runner = Runner::default();
    runner.open(&session, 0);
    let _ = runner.check(&lesson, &mut session, &files);
    let before = session.cluster.now();
    let _ = runner.advance(&lesson, &mut session, SimDuration::secs(30), &files);
    assert!(session.cluster.now() >= before, "the clock went back");
    let _ = runner.check(&lesson, &mut session, &files);
    observe(&session.cluster);
    Reached::Ran
}
