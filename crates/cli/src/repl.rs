//! `warehouse repl`: an interactive prompt against a simulated cluster, with history
//! (↑/↓) and Tab completion from `warehouse_kubectl::shell::complete`.
//!
//! Each input runs as a script line does (`kubectl ...`, `sim ...`, shell variables,
//! `echo`, `curl`); a line ending in a heredoc (`kubectl apply -f - <<EOF`) keeps
//! reading until its delimiter. Simulated time passes only with `sim advance` (or
//! commands that wait, such as `kubectl wait`), never with the wall clock.

use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use warehouse_kubectl::shell::script;
use warehouse_kubectl::{FileSource, Session};

struct Complete {
    session: Rc<RefCell<Session>>,
}

impl Completer for Complete {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let head = &line[..pos];
        let done = warehouse_kubectl::shell::complete::complete(&self.session.borrow(), head);
        let candidates = match done.candidates.as_slice() {
            [only] if !only.ends_with('=') && !only.ends_with('/') => vec![format!("{only} ")],
            _ => done.candidates,
        };
        Ok((done.start, candidates))
    }
}

impl Hinter for Complete {
    type Hint = String;
}
impl Highlighter for Complete {}
impl Validator for Complete {}
impl Helper for Complete {}

/// What one input (a line, or a line with its heredoc) prints.
pub fn run_input(session: &mut Session, text: &str, files: &dyn FileSource) -> String {
    match script::parse(text) {
        Ok(steps) => steps
            .iter()
            .map(|step| script::execute(session, step, files).combined())
            .collect(),
        Err(e) => format!("{e}\n"),
    }
}

/// A lesson step the prompt was opened at (`--lesson DIR --step N`): `check` runs
/// its check.
pub struct AtStep<'a> {
    pub lesson: &'a warehouse_lessons::Lesson,
    pub step: usize,
    pub banner: String,
}

/// Runs the prompt until end of input (Ctrl-D) or `exit`.
pub fn run(session: Session, files: &dyn FileSource, at: Option<AtStep<'_>>) -> anyhow::Result<()> {
    let session = Rc::new(RefCell::new(session));
    let mut editor: Editor<Complete, DefaultHistory> = Editor::new()?;
    editor.set_helper(Some(Complete {
        session: session.clone(),
    }));
    println!(
        "Kube Warehouse: a simulated cluster. Type kubectl and sim commands (Tab completes), `sim advance 30s` to let time pass, Ctrl-D or `exit` to leave."
    );
    if let Some(at) = &at {
        println!("{}", at.banner);
    }
    loop {
        let line = match editor.readline("$ ") {
            Ok(l) => l,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e.into()),
        };
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if trimmed == "exit" || trimmed == "quit" {
            break;
        }
        let _ = editor.add_history_entry(trimmed);
        if let (Some(at), "check") = (&at, trimmed) {
            let out =
                crate::lessons::step_check(at.lesson, at.step, &mut session.borrow_mut(), files);
            print!("{out}");
            continue;
        }
        let mut text = format!("{line}\n");
        while script::needs_more(&text) {
            match editor.readline("> ") {
                Ok(more) => {
                    text.push_str(&more);
                    text.push('\n');
                }
                Err(_) => break,
            }
        }
        let out = run_input(&mut session.borrow_mut(), &text, files);
        print!("{out}");
        std::io::stdout().flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use warehouse_sim::{Cluster, Topology};

    struct NoFiles;
    impl FileSource for NoFiles {
        fn read(&self, path: &str) -> Result<String, String> {
            Err(format!("the path \"{path}\" does not exist"))
        }
    }

    #[test]
    fn inputs_run_like_script_lines_and_keep_shell_variables() {
        let mut s = Session::new(Cluster::new(1, Topology::default()));
        assert_eq!(run_input(&mut s, "X=zone-b\n", &NoFiles), "");
        let out = run_input(&mut s, "kubectl get node $X\n", &NoFiles);
        assert!(out.starts_with("NAME "), "{out}");
        assert!(out.contains("zone-b"), "{out}");
        let heredoc = "kubectl apply -f - <<EOF\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nEOF\n";
        assert!(!script::needs_more(heredoc));
        assert!(script::needs_more(
            "kubectl apply -f - <<EOF\napiVersion: v1\n"
        ));
        assert!(script::needs_more("kubectl delete deployment web \\\n"));
        assert!(!script::needs_more(
            "kubectl delete deployment web \\\n  -n shop\n"
        ));
        assert_eq!(
            run_input(&mut s, heredoc, &NoFiles),
            "configmap/c created\n"
        );
    }
}
