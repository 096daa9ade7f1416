//! What a lesson file holds, once parsed.

use crate::markdown::Md;
use warehouse_sim::SimDuration;

/// One language's version of a lesson (`en.md` or `ru.md`).
#[derive(Clone, Debug, PartialEq)]
pub struct Lesson {
    /// The file it came from, as given to the parser (`lessons/01-desired-state/en.md`).
    pub file: String,
    pub meta: Meta,
    /// The prose before the first step.
    pub intro: Vec<Block>,
    pub steps: Vec<Step>,
}

/// The front matter.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    pub id: String,
    pub title: String,
    pub summary: String,
    pub level: Level,
    pub tags: Vec<String>,
    pub minutes: u32,
    pub seed: u64,
    /// Worker zones; `None` keeps the default three (zone-a, zone-b, zone-c).
    pub topology: Option<Vec<NodeDef>>,
    pub settings: Settings,
    /// Script lines run before the learner arrives, with their file lines.
    pub setup: Vec<(usize, String)>,
    /// Manifest files next to the lesson that its commands read (`kubectl apply -f web.yaml`).
    pub files: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Beginner,
    Intermediate,
    Advanced,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Intermediate => "intermediate",
            Level::Advanced => "advanced",
        }
    }
}

/// A worker zone of the lesson's cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeDef {
    pub name: String,
    /// As `sim node add` takes them: cores (`4`, `500m`), memory (`8Gi`), GPUs.
    pub cpu: Option<String>,
    pub memory: Option<String>,
    pub gpu: Option<u32>,
    pub labels: Vec<(String, String)>,
    /// `key=value:Effect`.
    pub taints: Vec<String>,
}

/// How the cluster starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Boot {
    /// Up for a few minutes, everything Running (the default).
    #[default]
    Settled,
    /// At second 0, for a lesson that watches the bootstrap.
    Cold,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    pub max_endpoints_per_slice: Option<usize>,
    pub etcd_members: Option<usize>,
    pub boot: Boot,
}

/// A `##` step.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub title: String,
    /// The file line of its heading.
    pub line: usize,
    /// Prose and click-to-run blocks, in the order written.
    pub blocks: Vec<Block>,
    pub check: Option<Check>,
    pub hints: Vec<Hint>,
    pub solution: Option<Solution>,
    /// ```` ```near-miss ```` blocks: plausible wrong answers the check must refuse.
    /// Author-facing: `lessons check` replays them; learners never see them.
    pub near_misses: Vec<Solution>,
    /// ```` ```alternative ```` blocks: other right answers the check must accept.
    pub alternatives: Vec<Solution>,
    /// How many ```` ```author-note ```` blocks the step has (their text is for
    /// authors only and is not kept).
    pub author_notes: usize,
    pub incidents: Vec<Incident>,
    /// A ```` ```frame ```` block: this step shows one moment of the simulation's own
    /// record (an interview walkthrough).
    pub frame: Option<FrameSpec>,
}

impl Step {
    pub fn quizzes(&self) -> impl Iterator<Item = &Quiz> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Quiz(q) => Some(q),
            _ => None,
        })
    }

    pub fn predicts(&self) -> impl Iterator<Item = &Predict> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Predict(p) => Some(p),
            _ => None,
        })
    }
}

/// What a step shows, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    Prose(Vec<Md>),
    /// ```` ```kubectl ```` or ```` ```sh ````: lines the terminal runs on click.
    Run(RunBlock),
    /// ```` ```yaml ````: a manifest that opens in the editor.
    Yaml {
        line: usize,
        text: String,
    },
    Quiz(Quiz),
    Predict(Predict),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunBlock {
    /// The line of the opening fence.
    pub line: usize,
    /// The block as written (heredocs included); what "run" sends to the terminal.
    pub text: String,
}

/// A ```` ```check ```` block: every condition must hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub line: usize,
    /// How much simulated time the step may take to pass after its solution.
    pub within: SimDuration,
    pub conditions: Vec<Condition>,
}

/// A command and what its output must be.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pub line: usize,
    /// A read-only command line (`kubectl get pods -l app=web --no-headers`).
    pub run: String,
    pub expect: Vec<Expect>,
}

/// One expectation on a command's answer ([`crate::check::answer`]: its stdout, or
/// everything it printed when it failed), trailing blank space removed.
#[derive(Clone, Debug)]
pub enum Expect {
    Equals(String),
    Contains(String),
    NotContains(String),
    Matches(String, regex_lite::Regex),
    AtLeast(f64),
    AtMost(f64),
    /// The number of non-empty lines.
    Lines(usize),
}

impl PartialEq for Expect {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Expect::Equals(a), Expect::Equals(b))
            | (Expect::Contains(a), Expect::Contains(b))
            | (Expect::NotContains(a), Expect::NotContains(b))
            | (Expect::Matches(a, _), Expect::Matches(b, _)) => a == b,
            (Expect::AtLeast(a), Expect::AtLeast(b)) | (Expect::AtMost(a), Expect::AtMost(b)) => {
                a == b
            }
            (Expect::Lines(a), Expect::Lines(b)) => a == b,
            _ => false,
        }
    }
}

/// A ```` ```hint ```` block, revealed one at a time.
#[derive(Clone, Debug, PartialEq)]
pub struct Hint {
    pub line: usize,
    pub body: Vec<Md>,
}

/// A ```` ```solution ```` block: a script that reaches the step's goal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    pub line: usize,
    /// The script text (the first line is the file line `line + 1`).
    pub text: String,
}

/// A ```` ```quiz ```` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quiz {
    pub line: usize,
    pub question: String,
    pub options: Vec<String>,
    /// 0-based indexes of the correct options (the file writes them 1-based).
    pub answers: Vec<usize>,
    pub explain: String,
}

/// A ```` ```predict ```` block: the learner commits to an answer, then the step
/// moves time forward and shows what really happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Predict {
    pub line: usize,
    pub question: String,
    pub options: Vec<String>,
    /// The correct option (0-based); its text must appear in what `show` prints.
    pub answer: usize,
    pub advance: SimDuration,
    /// A read-only command whose output shows what happened.
    pub show: String,
    pub explain: String,
}

/// A line of an ```` ```incident ```` block: a command run by itself when the step
/// has been open for `at` of simulated time (`sim node kill zone-b` at 30 s).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incident {
    pub line: usize,
    pub at: SimDuration,
    pub run: String,
}

/// A ```` ```frame ```` block: which recorded moment a walkthrough step shows. The
/// moment is the first one after the previous frame (or, for the first frame after
/// a step without one, after that step opened) that matches every key given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameSpec {
    pub line: usize,
    pub what: FrameWhat,
    /// Who acted, as the floor names components: `kubernetes-admin` (the learner),
    /// `deployment-controller`, `kube-scheduler`, `kubelet:zone-a`; `*` matches any
    /// run of characters.
    pub actor: Option<String>,
    /// Glob over the object's name (`web-*`); for a request, over its target
    /// (`deployments/web`). `same`: the object of the frame before.
    pub name: Option<String>,
    /// For a write: a dotted path whose value the write changed (`spec.nodeName`,
    /// `status.conditions`): the diff shows it first.
    pub field: Option<String>,
    /// With `field`: the value the write gave it (`true`, `Running`, `zone-b`).
    pub to: Option<String>,
    /// For a write: a component its watch was delivered to (`kube-proxy`).
    pub notified: Option<String>,
}

/// What kind of moment a frame shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameWhat {
    /// A request answered by the reception desk: its verb (`create`, `update`,
    /// `delete`; `None` for any).
    Request { verb: Option<String> },
    /// A write stored in the ledger vault: its kind (`ReplicaSet`) and change
    /// (`added`, `modified`, `deleted`; `None` for any).
    Write {
        kind: String,
        change: Option<String>,
    },
}
