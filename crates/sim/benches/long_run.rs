//! Long runs: memory and CPU per simulated hour over 30 simulated days, for four
//! steady clusters (a crash loop, a flapping readiness probe, a Job made and deleted
//! every few minutes, an idle cluster). A learner may leave a tab at 600x overnight:
//! every line must be flat.
//!
//! `cargo bench -p warehouse-sim --bench long_run` runs 30 days (`-- --days N`: N).
//! Run any other way (`cargo test -p warehouse-sim --bench long_run`) it is the short
//! mode: 12 simulated hours to fill the trace, then two periods of 3 hours. Either way
//! it fails if the last period does more work per hour (allocations) or holds more
//! memory than the first.
//!
//! Time advances by 10 s at a time, as a browser frame at 600x does. Per period it
//! prints the CPU time per simulated hour (this thread's, from
//! /proc/thread-self/schedstat; wall-clock where that is missing), the work per
//! simulated hour (allocations, timers fired, keys queued, writes: deterministic), the
//! bytes held at the end of the period (a counting allocator: deterministic), the
//! snapshot's size and the peak resident set (VmHWM, reset per scenario).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use warehouse_sim::{decode_manifests, Cluster, Kind, SimDuration, Topology, Work};

/// Counts the bytes held and the allocations made.
struct Counting;

static HELD: AtomicU64 = AtomicU64::new(0);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the counters are
// only statistics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        HELD.fetch_add(layout.size() as u64, Ordering::Relaxed);
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        HELD.fetch_add(layout.size() as u64, Ordering::Relaxed);
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size() as u64, Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        HELD.fetch_add(new_size as u64, Ordering::Relaxed);
        HELD.fetch_sub(layout.size() as u64, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const HOUR: u64 = 3600;
/// What a browser frame at 600x moves the clock by.
const FRAME: SimDuration = SimDuration::secs(10);

/// A container that exits 1 at once, for ever: CrashLoopBackOff, a restart every 5
/// minutes once the back-off is at its longest.
const CRASH_LOOP: &str = "apiVersion: v1
kind: Pod
metadata: {name: crash}
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'echo starting; exit 1']
";

/// A readiness probe every 2 s on a file the container makes and removes every 5 s.
const FLAPPING_PROBE: &str = "apiVersion: v1
kind: Pod
metadata: {name: flap, labels: {app: flap}}
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, 'while true; do touch /tmp/ready; sleep 5; rm -f /tmp/ready; sleep 5; done']
    readinessProbe:
      exec: {command: [cat, /tmp/ready]}
      periodSeconds: 2
      failureThreshold: 1
---
apiVersion: v1
kind: Service
metadata: {name: flap}
spec:
  selector: {app: flap}
  ports: [{port: 80}]
";

/// A Job like a CronJob's, made every `JOB_EVERY` (CronJob itself is stored, not
/// simulated); the one before last is deleted, as a history limit of 1 does.
fn job(n: u64) -> String {
    format!(
        "apiVersion: batch/v1
kind: Job
metadata: {{name: churn-{n}}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox:1.36
        command: [sh, -c, 'echo working; sleep 20; echo done']
"
    )
}

const JOB_EVERY: u64 = 300;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scenario {
    CrashLoop,
    FlappingProbe,
    JobChurn,
    Idle,
}

impl Scenario {
    const ALL: [Scenario; 4] = [
        Scenario::CrashLoop,
        Scenario::FlappingProbe,
        Scenario::JobChurn,
        Scenario::Idle,
    ];

    fn name(self) -> &'static str {
        match self {
            Scenario::CrashLoop => "crash loop",
            Scenario::FlappingProbe => "flapping readiness probe",
            Scenario::JobChurn => "job churn (every 5 min)",
            Scenario::Idle => "idle cluster",
        }
    }
}

/// A scenario's cluster, and what it does on its own schedule.
struct Run {
    scenario: Scenario,
    cluster: Cluster,
    jobs: u64,
}

impl Run {
    fn new(scenario: Scenario) -> Run {
        let mut cluster = Cluster::settled(1, Topology::default());
        let manifest = match scenario {
            Scenario::CrashLoop => CRASH_LOOP,
            Scenario::FlappingProbe => FLAPPING_PROBE,
            Scenario::JobChurn | Scenario::Idle => "",
        };
        for obj in decode_manifests(manifest).expect("the scenario's manifests decode") {
            cluster
                .create(obj)
                .expect("the scenario's objects are valid");
        }
        Run {
            scenario,
            cluster,
            jobs: 0,
        }
    }

    /// One simulated hour, a frame at a time.
    fn hour(&mut self) {
        let mut elapsed = 0;
        while elapsed < HOUR {
            if self.scenario == Scenario::JobChurn && elapsed % JOB_EVERY == 0 {
                self.jobs += 1;
                let obj = decode_manifests(&job(self.jobs)).expect("the Job decodes");
                for o in obj {
                    self.cluster.create(o).expect("the Job is valid");
                }
                if self.jobs > 2 {
                    let old = format!("churn-{}", self.jobs - 2);
                    self.cluster
                        .delete(Kind::Job, "default", &old)
                        .expect("the Job before last exists");
                }
            }
            self.cluster.advance(FRAME);
            elapsed += FRAME.as_secs();
        }
    }
}

/// This thread's CPU time in ns, or the wall clock's when the kernel does not say.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| {
            static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
            START
                .get_or_init(std::time::Instant::now)
                .elapsed()
                .as_nanos() as u64
        })
}

/// The peak resident set in bytes since the last [`reset_peak_rss`], if known.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn reset_peak_rss() {
    // Linux: writing 5 to clear_refs resets VmHWM to the current resident set.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// How long to run, and how to cut the run into measured periods.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// Simulated hours run before the first period (not measured).
    warm_up: u64,
    periods: u64,
    hours_per_period: u64,
}

/// What one period cost.
#[derive(Clone, Copy, Debug)]
struct Period {
    cpu_ms_per_hour: f64,
    allocations_per_hour: u64,
    work_per_hour: Work,
    held_bytes: u64,
    snapshot_bytes: usize,
    peak_rss: Option<u64>,
}

fn per_hour(before: Work, after: Work, hours: u64) -> Work {
    Work {
        timers_fired: (after.timers_fired - before.timers_fired) / hours,
        keys_enqueued: (after.keys_enqueued - before.keys_enqueued) / hours,
        writes: (after.writes - before.writes) / hours,
    }
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn run(scenario: Scenario, plan: Plan) -> Vec<Period> {
    let baseline = HELD.load(Ordering::Relaxed);
    reset_peak_rss();
    let mut r = Run::new(scenario);
    for _ in 0..plan.warm_up {
        r.hour();
    }
    println!("\n{}:", scenario.name());
    println!(
        "{:>6} {:>12} {:>12} {:>9} {:>9} {:>9} {:>11} {:>12} {:>9}",
        if plan.hours_per_period == 24 {
            "day"
        } else {
            "period"
        },
        "cpu ms/h",
        "allocs/h",
        "timers/h",
        "keys/h",
        "writes/h",
        "held MB",
        "snapshot KB",
        "peak MB"
    );
    let mut out = Vec::new();
    let hours = plan.hours_per_period.max(1);
    for period in 1..=plan.periods {
        let work = r.cluster.work();
        let allocations = ALLOCATIONS.load(Ordering::Relaxed);
        let cpu = cpu_ns();
        for _ in 0..hours {
            r.hour();
        }
        let cpu_ms_per_hour = (cpu_ns() - cpu) as f64 / 1e6 / hours as f64;
        let allocations_per_hour = (ALLOCATIONS.load(Ordering::Relaxed) - allocations) / hours;
        let held_bytes = HELD.load(Ordering::Relaxed).saturating_sub(baseline);
        let snapshot_bytes = r.cluster.snapshot().len();
        let d = Period {
            cpu_ms_per_hour,
            allocations_per_hour,
            work_per_hour: per_hour(work, r.cluster.work(), hours),
            held_bytes,
            snapshot_bytes,
            peak_rss: peak_rss(),
        };
        println!(
            "{period:>6} {:>12.1} {:>12} {:>9} {:>9} {:>9} {:>11.2} {:>12} {:>9}",
            d.cpu_ms_per_hour,
            d.allocations_per_hour,
            d.work_per_hour.timers_fired,
            d.work_per_hour.keys_enqueued,
            d.work_per_hour.writes,
            mb(d.held_bytes),
            d.snapshot_bytes / 1024,
            d.peak_rss
                .map_or_else(|| "n/a".to_string(), |b| format!("{:.1}", mb(b)))
        );
        out.push(d);
    }
    out
}

/// How a scenario's process hands its figures to the one that started it.
const SUMMARY: &str = "summary:";

/// The first and last period of a scenario, and its peak resident set.
struct Summary {
    cpu_ms_per_hour: (f64, f64),
    allocations_per_hour: (u64, u64),
    held_bytes: (u64, u64),
    peak_rss: Option<u64>,
}

impl Summary {
    fn of(periods: &[Period]) -> Summary {
        let (first, last) = (periods[0], periods[periods.len() - 1]);
        Summary {
            cpu_ms_per_hour: (first.cpu_ms_per_hour, last.cpu_ms_per_hour),
            allocations_per_hour: (first.allocations_per_hour, last.allocations_per_hour),
            held_bytes: (first.held_bytes, last.held_bytes),
            peak_rss: periods.iter().filter_map(|p| p.peak_rss).max(),
        }
    }

    fn line(&self) -> String {
        format!(
            "{SUMMARY} {} {} {} {} {} {} {}",
            self.cpu_ms_per_hour.0,
            self.cpu_ms_per_hour.1,
            self.allocations_per_hour.0,
            self.allocations_per_hour.1,
            self.held_bytes.0,
            self.held_bytes.1,
            self.peak_rss.unwrap_or(0)
        )
    }

    fn parse(line: &str) -> Option<Summary> {
        let f: Vec<&str> = line.strip_prefix(SUMMARY)?.split_whitespace().collect();
        let peak: u64 = f.get(6)?.parse().ok()?;
        Some(Summary {
            cpu_ms_per_hour: (f.first()?.parse().ok()?, f.get(1)?.parse().ok()?),
            allocations_per_hour: (f.get(2)?.parse().ok()?, f.get(3)?.parse().ok()?),
            held_bytes: (f.get(4)?.parse().ok()?, f.get(5)?.parse().ok()?),
            peak_rss: (peak > 0).then_some(peak),
        })
    }

    /// Flat: the last period does no more work and holds no more memory than the first
    /// (within 2%: the Job names' digits grow).
    fn flat(&self) -> bool {
        let within = |first: u64, last: u64| last as f64 <= first as f64 * 1.02;
        within(self.allocations_per_hour.0, self.allocations_per_hour.1)
            && within(self.held_bytes.0, self.held_bytes.1)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<u64>().ok())
    };
    if let (Some(i), Some(warm_up), Some(periods), Some(hours_per_period)) = (
        value("--scenario"),
        value("--warm-up"),
        value("--periods"),
        value("--hours"),
    ) {
        // One scenario in a process of its own, so that the peak resident set is its.
        let Some(scenario) = Scenario::ALL.get(i as usize) else {
            eprintln!("no scenario {i}");
            std::process::exit(2);
        };
        let plan = Plan {
            warm_up,
            periods: periods.max(1),
            hours_per_period: hours_per_period.max(1),
        };
        println!("{}", Summary::of(&run(*scenario, plan)).line());
        return;
    }
    let plan = match value("--days") {
        Some(days) => Plan {
            warm_up: 0,
            periods: days.max(1),
            hours_per_period: 24,
        },
        None if args.iter().any(|a| a == "--bench") => Plan {
            warm_up: 0,
            periods: 30,
            hours_per_period: 24,
        },
        None => Plan {
            warm_up: 12,
            periods: 2,
            hours_per_period: 3,
        },
    };
    println!(
        "long runs: {} simulated hours, then {} periods of {} hours; 10 s frames (600x at 60 frames a second)",
        plan.warm_up, plan.periods, plan.hours_per_period
    );
    let exe = std::env::current_exe().expect("the bench knows its own path");
    let mut summaries = Vec::new();
    for (i, scenario) in Scenario::ALL.iter().enumerate() {
        let out = std::process::Command::new(&exe)
            .args(["--scenario", &i.to_string()])
            .args(["--warm-up", &plan.warm_up.to_string()])
            .args(["--periods", &plan.periods.to_string()])
            .args(["--hours", &plan.hours_per_period.to_string()])
            .stderr(std::process::Stdio::inherit())
            .output()
            .expect("the bench runs itself for a scenario");
        let text = String::from_utf8_lossy(&out.stdout);
        let mut summary = None;
        for line in text.lines() {
            match Summary::parse(line) {
                Some(s) => summary = Some(s),
                None => println!("{line}"),
            }
        }
        match summary {
            Some(s) if out.status.success() => summaries.push((*scenario, s)),
            _ => {
                eprintln!("{}: the run failed ({})", scenario.name(), out.status);
                std::process::exit(1);
            }
        }
    }
    println!("\nsummary (first and last period):");
    println!(
        "{:<26} {:>9} {:>9} {:>10} {:>10} {:>8} {:>8} {:>8}",
        "scenario", "cpu ms/h", "", "allocs/h", "", "held MB", "", "peak MB"
    );
    let mut growing = Vec::new();
    for (scenario, s) in &summaries {
        println!(
            "{:<26} {:>9.1} {:>9.1} {:>10} {:>10} {:>8.2} {:>8.2} {:>8}",
            scenario.name(),
            s.cpu_ms_per_hour.0,
            s.cpu_ms_per_hour.1,
            s.allocations_per_hour.0,
            s.allocations_per_hour.1,
            mb(s.held_bytes.0),
            mb(s.held_bytes.1),
            s.peak_rss
                .map_or_else(|| "n/a".to_string(), |b| format!("{:.1}", mb(b)))
        );
        if !s.flat() {
            growing.push(scenario.name());
        }
    }
    if !growing.is_empty() {
        eprintln!("not flat: {}", growing.join(", "));
        std::process::exit(1);
    }
}
