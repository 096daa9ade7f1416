//! Broken lessons fail with the file, the line and the problem; the valid one passes.

use std::collections::BTreeMap;
use std::path::Path;
use warehouse_lessons::{verify, LessonSource};

fn source(dir: &str) -> LessonSource {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    let read = |name: &str| std::fs::read_to_string(path.join(name)).ok();
    LessonSource {
        dir: dir.to_string(),
        en: read("en.md"),
        ru: read("ru.md"),
        files: BTreeMap::new(),
    }
}

/// The verifier's messages for a folder, one a line.
fn errors(dir: &str) -> String {
    messages(&source(dir))
}

/// The verifier's messages for a lesson that must fail, one a line.
fn messages(source: &LessonSource) -> String {
    match verify(source) {
        Ok(v) => panic!("{} should fail, but verified: {v:?}", source.dir),
        Err(e) => e.iter().map(|e| format!("{e}\n")).collect(),
    }
}

#[test]
fn the_valid_lesson_verifies() {
    let v = verify(&source("valid/tiny")).expect("valid/tiny verifies");
    assert_eq!((v.steps, v.conditions), (2, 2));
    // A namespace typo and a robot in the wrong department are refused; a
    // manifest instead of `create`, a Deployment instead of `run` are accepted.
    assert_eq!((v.near_misses, v.alternatives), (2, 2));
}

#[test]
fn a_near_miss_that_passes_the_check_is_an_error_at_its_line() {
    let e = errors("broken/near-miss-passes");
    assert!(
        e.starts_with("broken/near-miss-passes/en.md:27: step 1 (Run a robot in shop): this near-miss passes the check"),
        "{e}"
    );
}

#[test]
fn an_alternative_the_check_refuses_is_an_error_with_what_the_cluster_shows() {
    let e = errors("broken/alternative-fails");
    assert!(
        e.starts_with("broken/alternative-fails/en.md:32: step 1 (Run a robot in shop): this alternative does not pass the check within 1m"),
        "{e}"
    );
    assert!(
        e.contains("kubectl get pods -n shop -l run=one --no-headers"),
        "{e}"
    );
}

#[test]
fn answers_must_be_the_same_in_both_languages() {
    let mut s = source("valid/tiny");
    s.ru = s.ru.map(|t| {
        t.replace(
            "kubectl create namespace shops",
            "kubectl create namespace shopz",
        )
    });
    let e = messages(&s);
    assert!(
        e.contains("ru.md:26: step 1's near-misses, block 1 (here line 27: \"kubectl create namespace shopz\"; in English line 27: \"kubectl create namespace shops\"): it must be the same as in"),
        "{e}"
    );
}

#[test]
fn bad_front_matter_names_the_key_line_and_column() {
    let e = errors("broken/bad-front-matter");
    assert!(
        e.contains("broken/bad-front-matter/en.md:5:8: front matter: level: unknown variant `expert`, expected one of `beginner`, `intermediate`, `advanced`"),
        "{e}"
    );
}

#[test]
fn an_unknown_command_in_a_solution_is_found_before_anything_runs() {
    let e = errors("broken/unknown-command");
    assert!(
        e.starts_with("broken/unknown-command/en.md:36: bash: kubctl: command not found"),
        "{e}"
    );
}

#[test]
fn a_check_that_never_passes_shows_expected_and_actual() {
    let e = errors("broken/never-passes");
    assert!(e.starts_with("broken/never-passes/en.md:28: step 2 (Run a robot): the check does not pass within 1m after the solution"), "{e}");
    assert!(
        e.contains("expected 2 line(s); the cluster shows: one   1/1   Running"),
        "{e}"
    );
}

#[test]
fn a_check_that_passes_before_its_step_is_refused() {
    let e = errors("broken/passes-before");
    assert!(e.starts_with("broken/passes-before/en.md:17: step 1 (Make a namespace): the check already passes before its solution runs"), "{e}");
}

#[test]
fn a_step_missing_from_ru_md_is_named() {
    let e = errors("broken/step-missing-from-ru");
    assert!(e.contains("broken/step-missing-from-ru/ru.md:"), "{e}");
    assert!(
        e.contains("the number of steps (1 here, 2 in English"),
        "{e}"
    );
}

#[test]
fn a_quiz_without_a_correct_answer_is_refused_in_both_files() {
    let e = errors("broken/quiz-without-answer");
    assert!(
        e.contains("broken/quiz-without-answer/en.md:41: a ```quiz block needs `answer:`"),
        "{e}"
    );
    assert!(e.contains("broken/quiz-without-answer/ru.md:41:"), "{e}");
}

#[test]
fn a_yaml_block_that_drifted_from_its_file_is_named() {
    let mut s = source("valid/tiny");
    let block = "```yaml\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {team: a}\n```\n";
    for text in [s.en.as_mut().unwrap(), s.ru.as_mut().unwrap()] {
        *text = text
            .replacen("minutes: 5\n", "minutes: 5\nfiles: [shop.yaml]\n", 1)
            .replacen("Intro.\n", &format!("Intro.\n\n{block}"), 1);
    }
    s.files.insert(
        "shop.yaml".into(),
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n".into(),
    );
    let e: String = verify(&s)
        .unwrap_err()
        .iter()
        .map(|e| format!("{e}\n"))
        .collect();
    assert!(
        e.contains("valid/tiny/en.md:12: this YAML block shows the objects of shop.yaml but differs from it"),
        "{e}"
    );
}

#[test]
fn a_solution_that_differs_between_languages_shows_the_first_line_that_differs() {
    let mut s = source("valid/tiny");
    s.ru =
        s.ru.map(|t| t.replace("sim advance 10s\n```", "sim advance 20s\n```"));
    let e = messages(&s);
    assert!(
        e.contains(
            "ru.md:48: step 2's solution (here line 50: \"sim advance 20s\"; in English line "
        ),
        "{e}"
    );
}
