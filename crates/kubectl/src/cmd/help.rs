//! `kubectl COMMAND --help` (and `-h`): kubectl's own help for the command, as its
//! templater prints it (pkg/util/templates/templater.go): the long description (or
//! the short one), the aliases, the examples, then the usage line with `[options]`
//! and the hint about `kubectl options`.
//!
//! The texts are kubectl's, extracted by `xtask/scripts/gen_help.py` from its
//! command sources into `help.data`. Simplified: the `Options:` list of each
//! command's flags is left out (its place is marked `\x01` in the data).

// The help texts. Native builds compile them in; the browser build fetches
// `help.data` (copied next to the app) after the first render and hands it over
// with [`provide_data`], keeping 90 KB of text out of the download.
crate::fetched::fetched_text!(DATA, include_str!("../help.data"));

fn data() -> Option<&'static str> {
    DATA.get()
}

/// Hands over the text of `help.data` (the browser build fetches it); native builds
/// carry it already and ignore this. Only the first call counts.
pub fn provide_data(text: String) {
    DATA.provide(text);
}

/// The entry of `path` (`create deployment`) in the data.
fn entry(data: &'static str, path: &str) -> Option<&'static str> {
    let header = format!("@{path}\n");
    let start = if data.starts_with(&header) {
        header.len()
    } else {
        data.find(&format!("\n{header}"))? + header.len() + 1
    };
    let rest = &data[start..];
    let end = rest.find("\n@").map_or(rest.len(), |i| i + 1);
    Some(&rest[..end])
}

const GLOBAL_OPTIONS: &str =
    "Use \"kubectl options\" for a list of global command-line options (applies to all commands).\n";

/// Whether the arguments ask for help: `-h` or `--help` before any `--`.
pub(crate) fn asked(args: &[String]) -> bool {
    args.iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "-h" || a == "--help")
}

/// Commands whose own parser prints their help, with the options this kubectl takes.
const OWN_HELP: [&str; 3] = ["describe", "autoscale", "create job"];

/// What `kubectl ARGS --help` prints, for the longest command path the arguments'
/// words name (`create deployment web --help` → `create deployment`). `None` when
/// the texts are not loaded yet or name no command.
pub(crate) fn text(args: &[String]) -> Option<String> {
    let data = data()?;
    let words: Vec<&str> = args
        .iter()
        .take_while(|a| *a != "--")
        .filter(|a| !a.starts_with('-'))
        .map(String::as_str)
        .take(3)
        .collect();
    let (path, body) = (1..=words.len()).rev().find_map(|n| {
        let path = words[..n].join(" ");
        entry(data, &path).map(|body| (path, body))
    })?;
    (!OWN_HELP.contains(&path.as_str()))
        .then(|| format!("{}{GLOBAL_OPTIONS}", body.replace('\u{1}', "")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn help(line: &str) -> String {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        text(&args).unwrap_or_default()
    }

    #[test]
    fn help_is_kubectls_for_the_deepest_command_named() {
        let run = help("run --help");
        assert!(run.starts_with("Create and run a particular image in a pod.\n\nExamples:\n  # Start a nginx pod\n  kubectl run nginx --image=nginx\n"), "{run}");
        assert!(run.ends_with("Usage:\n  kubectl run NAME --image=image [--env=\"key=value\"] [--port=port] [--dry-run=server|client] [--overrides=inline-json] [--command] -- [COMMAND] [args...] [options]\n\nUse \"kubectl options\" for a list of global command-line options (applies to all commands).\n"), "{run}");
        let deploy = help("create deployment web --image=nginx -h");
        assert!(deploy.starts_with("Create a deployment with the specified name.\n\nAliases:\ndeployment, deploy\n\nExamples:\n"), "{deploy}");
        assert!(help("rollout undo --help")
            .contains("kubectl rollout undo (TYPE NAME | TYPE/NAME) [flags] [options]"));
        assert!(
            help("create secret generic x --help").contains("kubectl create secret generic NAME")
        );
        // Later paragraphs keep the space kubectl's markdown renderer puts before them.
        assert!(help("scale --help").contains("\n\n Scale also allows users"));
        assert_eq!(help("no-such-command --help"), "");
        // describe prints its own help, with its options.
        assert_eq!(help("describe pods --help"), "");
        assert!(!asked(&[
            "exec".into(),
            "web".into(),
            "--".into(),
            "ls".into(),
            "--help".into()
        ]));
    }
}
