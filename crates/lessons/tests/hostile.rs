//! Lessons written to break the verifier or the tab — prose nested thousands of
//! levels deep, a setup that would fill memory or run for simulated months — are
//! refused with the file, the line and what the limit is, in linear time and on a
//! browser-sized stack (1 MiB).

use warehouse_lessons::markdown::{self, Md, MAX_DEPTH};
use warehouse_lessons::parse_lesson;

const FRONT: &str = "---\nid: hostile\ntitle: \"Hostile\"\nsummary: \"x\"\nlevel: beginner\nminutes: 5\n---\n\nIntro.\n\n## Step one\n\n";

/// Runs `f` on a thread with a 1 MiB stack, as a browser tab's.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no stack overflow")
}

fn depth(nodes: &[Md]) -> usize {
    nodes
        .iter()
        .map(|n| match n {
            Md::Text(_) => 0,
            Md::Element(_, c) => 1 + depth(c),
        })
        .max()
        .unwrap_or(0)
}

fn lesson_errors(body: String) -> Vec<String> {
    on_small_stack(
        move || match parse_lesson("hostile/en.md", &format!("{FRONT}{body}")) {
            Ok(_) => Vec::new(),
            Err(e) => e.iter().map(|e| e.to_string()).collect(),
        },
    )
}

#[test]
fn deeply_nested_quotes_are_an_error_at_their_line() {
    // 131,000 `>` on one line: the prose starts on line 13.
    let errors = lesson_errors(format!("{} deep\n", ">".repeat(131_000)));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("hostile/en.md:13: the text here nests more than 32 levels"),
        "{errors:?}"
    );
}

#[test]
fn deeply_nested_lists_are_an_error_at_their_line() {
    // `- - - …`: each dash opens a list inside the item before it.
    let mut body = format!("{}item\n", "- ".repeat(8_300));
    // And lists indented under one another, a level a line, from line 15.
    body.push('\n');
    for i in 0..40 {
        body.push_str(&"  ".repeat(i));
        body.push_str("- item\n");
    }
    let errors = lesson_errors(body);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].starts_with("hostile/en.md:13: the text here nests more than 32 levels"),
        "{errors:?}"
    );
    // A list and an item a level: the 17th list (line 31) is level 33.
    assert!(
        errors[1].starts_with("hostile/en.md:31: the text here nests more than 32 levels"),
        "{errors:?}"
    );
}

#[test]
fn a_deep_hint_is_an_error_at_its_line() {
    let body = format!(
        "```kubectl\nkubectl get pods\n```\n\n```hint\nfine\n{}x\n```\n",
        "> ".repeat(40)
    );
    let errors = lesson_errors(body);
    assert_eq!(errors.len(), 1, "{errors:?}");
    // The hint fence is on line 17; its second line is 19.
    assert!(
        errors[0].starts_with("hostile/en.md:19: the hint nests more than 32 levels"),
        "{errors:?}"
    );
}

#[test]
fn a_shallow_lesson_is_not_refused_for_depth() {
    let body = format!(
        "{} fine\n\n```kubectl\nkubectl get pods\n```\n",
        ">".repeat(10)
    );
    assert!(lesson_errors(body).is_empty());
}

#[test]
fn rendered_text_keeps_its_words_but_not_markup_past_the_limit() {
    let text = format!("{}deep *words*", "> ".repeat(100_000));
    let (d, plain) = on_small_stack(move || {
        let tree = markdown::render(&text);
        (depth(&tree), markdown::plain_text(&tree))
    });
    assert!(d <= MAX_DEPTH + 1, "depth {d}");
    assert!(plain.contains("deep words"), "{plain:?}");
    assert_eq!(markdown::too_deep("> > a"), None);
    assert!(markdown::too_deep(&"> ".repeat(MAX_DEPTH + 1)).is_some());
}

fn lesson_with(setup: &str, body: &str) -> String {
    let setup: String = setup.lines().map(|l| format!("  {l}\n")).collect();
    format!(
        "---\nid: hostile\ntitle: \"Hostile\"\nsummary: \"x\"\nlevel: beginner\nminutes: 5\nsetup: |\n{setup}---\n\nIntro.\n\n## Step one\n\n{body}"
    )
}

/// What opening the lesson says (the browser and `lessons check` both start the
/// lesson's cluster with `session::start`).
fn opening(text: &str) -> Result<(), String> {
    let lesson = parse_lesson("hostile/en.md", text).map_err(|e| format!("{e:?}"))?;
    warehouse_lessons::session::start(
        "hostile/en.md",
        &lesson.meta,
        &warehouse_kubectl::MemoryFiles::default(),
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}

const BODY: &str = "```kubectl\nkubectl get pods\n```\n";

#[test]
fn a_setup_that_would_fill_memory_stops_at_the_lessons_pod_limit() {
    // Five Deployments of 20,000 robots each: the simulation's own limits allow
    // 100,000 pods; a lesson's cluster stops at 2,000 and the setup is refused.
    let mut setup = String::new();
    for i in 0..5 {
        setup.push_str(&format!(
            "kubectl create deployment big{i} --image=nginx --replicas=20000\n"
        ));
    }
    setup.push_str("sim advance 2m\n");
    let e = opening(&lesson_with(&setup, BODY)).unwrap_err();
    // The advance is the setup's sixth line, the front matter's 13th.
    assert!(
        e.starts_with("hostile/en.md:13: setup: after `sim advance 2m`, the cluster holds 2000 pods, the most a lesson's cluster may hold (2000)"),
        "{e}"
    );
}

#[test]
fn a_setup_may_let_an_hour_pass_and_no_more_refused_before_it_runs() {
    let e = opening(&lesson_with("sim advance 50m\nsim advance 720h\n", BODY)).unwrap_err();
    assert!(
        e.starts_with("hostile/en.md:9: setup: the setup lets more than 1h of simulated time pass"),
        "{e}"
    );
    assert_eq!(
        opening(&lesson_with("sim advance 50m\nsim advance 10m\n", BODY)),
        Ok(())
    );
}

#[test]
fn a_solution_that_would_fill_memory_is_refused_at_its_line() {
    let body = "```kubectl\nkubectl get pods\n```\n\n```check\n- run: kubectl get deployment big -o name\n  equals: deployment.apps/big\n```\n\n```solution\nkubectl create deployment big --image=nginx --replicas=20000\nsim advance 2m\n```\n";
    let text = lesson_with("sim advance 1s\n", body);
    let source = warehouse_lessons::LessonSource {
        dir: "hostile".to_string(),
        en: Some(text.clone()),
        ru: Some(text),
        files: Default::default(),
    };
    let errors: Vec<String> = match warehouse_lessons::verify(&source) {
        Ok(v) => panic!("verified: {v:?}"),
        Err(e) => e.iter().map(|e| e.to_string()).collect(),
    };
    assert!(
        errors.iter().any(|e| e
            .contains("step 1's solution: after `sim advance 2m`, the cluster holds 2000 pods")),
        "{errors:?}"
    );
}

#[test]
fn an_alias_bomb_in_the_front_matter_is_refused_at_its_line() {
    // One 256 KiB anchor aliased 3,000 times in a list the front matter has (the
    // file stays under the 512 KiB a lesson file may have).
    let mut text = format!(
        "---\nid: hostile\ntitle: &t \"{}\"\nsummary: \"x\"\nlevel: beginner\nminutes: 5\ntags:\n",
        "x".repeat(256 * 1024)
    );
    for _ in 0..3_000 {
        text.push_str("  - *t\n");
    }
    text.push_str("---\n\nIntro.\n\n## Step one\n\nText.\n");
    let errors = on_small_stack(move || match parse_lesson("hostile/en.md", &text) {
        Ok(_) => Vec::new(),
        Err(e) => e.iter().map(|e| e.to_string()).collect(),
    });
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("hostile/en.md:")
            && errors[0].contains("front matter: the YAML expands to more than"),
        "{errors:?}"
    );
}
