//! `warehouse bench SCENARIO`: the scenarios of `warehouse_sim::scenarios`, timed on
//! the wall clock, with the process's peak memory, one line each:
//!
//! ```text
//! bench converge wall_ms=... sim_s=... speedup=... peak_rss_mb=... writes=... ...
//! ```
//!
//! `scaling` also writes `scaling.md` (a table) and `scaling.svg` (a chart) to its
//! output folder.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;
use warehouse_sim::scenarios::{self, Outcome, Size};
use warehouse_sim::{Cluster, ProxyMode, SimDuration};

/// The scenarios, in the order `all` runs them.
pub const SCENARIOS: [&str; 8] = [
    "converge",
    "steady",
    "node-death",
    "fanout",
    "compare",
    "envelope",
    "scaling",
    "rewind",
];

/// The warehouses `rewind` goes back in: 1,000 robots on 10 zones, 10,000 on 96.
pub const REWIND_SIZES: [Size; 2] = [
    Size {
        nodes: 10,
        pods: 1_000,
    },
    Size {
        nodes: 96,
        pods: 10_000,
    },
];

/// The Deployment sizes of `compare` (3 nodes, as the peer's fixed cluster).
pub const COMPARE_REPLICAS: [usize; 4] = [3, 30, 300, 3000];

/// Simulated time of the `steady` runs.
pub const STEADY: SimDuration = SimDuration::secs(600);

/// How a run is sized.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub seed: u64,
    /// Small sizes for CI: every scenario runs, nothing is large.
    pub smoke: bool,
    /// `scaling` leaves out the cells with more workload pods than this.
    pub max_pods: Option<usize>,
}

/// One measured line.
#[derive(Clone, Debug)]
pub struct Line {
    pub scenario: String,
    pub wall_ms: f64,
    pub peak_rss_mb: Option<f64>,
    pub out: Outcome,
    /// Workload pods in the scenario (for memory per pod).
    pub pods: usize,
    pub nodes: usize,
}

impl Line {
    /// Reads a line [`Line::text`] printed.
    pub fn parse(text: &str) -> Result<Line, String> {
        let mut words = text.split_whitespace();
        if words.next() != Some("bench") {
            return Err(format!("not a bench line: {text:?}"));
        }
        let scenario = words.next().unwrap_or("").to_string();
        let mut line = Line {
            scenario,
            wall_ms: 0.0,
            peak_rss_mb: None,
            out: Outcome::default(),
            pods: 0,
            nodes: 0,
        };
        for w in words {
            let Some((k, v)) = w.split_once('=') else {
                continue;
            };
            let int = || v.parse::<u64>().unwrap_or(0);
            match k {
                "wall_ms" => line.wall_ms = v.parse().unwrap_or(0.0),
                "sim_s" => line.out.sim = SimDuration::secs(int()),
                "peak_rss_mb" => line.peak_rss_mb = v.parse().ok(),
                "writes" => line.out.writes = int(),
                "event_writes" => line.out.event_writes = int(),
                "timers" => line.out.timers = int(),
                "nodes" => line.nodes = int() as usize,
                "pods" => line.pods = int() as usize,
                "speedup" => {}
                _ => line.out.facts.push((k.to_string(), v.to_string())),
            }
        }
        Ok(line)
    }

    pub fn speedup(&self) -> f64 {
        self.out.sim.as_millis() as f64 / self.wall_ms.max(0.001)
    }

    pub fn text(&self) -> String {
        let mut s = format!(
            "bench {} wall_ms={:.0} sim_s={} speedup={:.0} peak_rss_mb={} writes={} nodes={} pods={} event_writes={} timers={}",
            self.scenario,
            self.wall_ms,
            self.out.sim.as_secs(),
            self.speedup(),
            self.peak_rss_mb
                .map_or_else(|| "n/a".to_string(), |m| format!("{m:.0}")),
            self.out.writes,
            self.nodes,
            self.pods,
            self.out.event_writes,
            self.out.timers,
        );
        for (k, v) in &self.out.facts {
            let _ = write!(s, " {k}={v}");
        }
        s
    }
}

/// Peak resident memory of this process since the last [`reset_peak_rss`], in MB
/// (Linux `VmHWM`); `None` elsewhere.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Resets the peak to the current resident memory (Linux `clear_refs` 5).
pub fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let v = f();
    (v, start.elapsed().as_secs_f64() * 1000.0)
}

fn line(scenario: &str, size: Size, wall_ms: f64, out: Outcome) -> Line {
    Line {
        scenario: scenario.to_string(),
        wall_ms,
        peak_rss_mb: peak_rss_mb(),
        out,
        pods: size.pods,
        nodes: size.nodes,
    }
}

/// Converges `size` and returns the cluster with its measured line.
fn converge_line(name: &str, size: Size, seed: u64) -> Result<(Cluster, Line), String> {
    reset_peak_rss();
    // The cluster boots outside the measurement: it starts at the apply.
    let mut c = scenarios::cluster(seed, size.nodes);
    let (r, wall) = timed(|| scenarios::apply_and_converge(&mut c, size.pods));
    let mut out = r?;
    let peak = peak_rss_mb();
    if let Some(mb) = peak {
        out.facts.push((
            "kb_per_pod".into(),
            format!("{:.1}", mb * 1024.0 / size.pods.max(1) as f64),
        ));
    }
    Ok((c, line(name, size, wall, out)))
}

fn steady_line(name: &str, size: Size, c: &mut Cluster, by: SimDuration) -> Line {
    let (out, wall) = timed(|| scenarios::steady(c, by));
    line(name, size, wall, out)
}

/// Runs one scenario (or `all`), printing each line as it is measured through
/// `emit`. `out_dir` is where `scaling` writes its table and chart.
pub fn run(
    scenario: &str,
    opts: Options,
    out_dir: &Path,
    emit: &mut dyn FnMut(&Line),
) -> Result<(), String> {
    let large = if opts.smoke { Size::SMOKE } else { Size::LARGE };
    let envelope = if opts.smoke {
        Size {
            nodes: 20,
            pods: 1000,
        }
    } else {
        Size::ENVELOPE
    };
    let seed = opts.seed;
    match scenario {
        "all" => {
            for s in SCENARIOS {
                run(s, opts, out_dir, emit)?;
            }
        }
        "converge" => emit(&converge_line("converge", large, seed)?.1),
        "steady" => {
            let (mut c, _) = converge_line("converge", large, seed)?;
            emit(&steady_line("steady", large, &mut c, STEADY));
        }
        "node-death" => {
            let (mut c, _) = converge_line("converge", large, seed)?;
            let (r, wall) = timed(|| scenarios::node_death(&mut c, large.pods, 10));
            emit(&line("node-death", large, wall, r?));
        }
        "fanout" => {
            let (mut c, _) = converge_line("converge", large, seed)?;
            for mode in [ProxyMode::Endpoints, ProxyMode::EndpointSlices] {
                let (r, wall) = timed(|| scenarios::fanout(&mut c, mode));
                emit(&line("fanout", large, wall, r?));
            }
        }
        "compare" => {
            let sizes: &[usize] = if opts.smoke {
                &COMPARE_REPLICAS[..2]
            } else {
                &COMPARE_REPLICAS
            };
            for &n in sizes {
                reset_peak_rss();
                let mut c = scenarios::cluster(seed, 3);
                let (r, wall) = timed(|| scenarios::compare(&mut c, n));
                let size = Size { nodes: 3, pods: n };
                emit(&line(&format!("compare-{n}"), size, wall, r?));
            }
        }
        "envelope" => {
            let (mut c, l) = converge_line("envelope-converge", envelope, seed)?;
            emit(&l);
            emit(&steady_line("envelope-steady", envelope, &mut c, STEADY));
        }
        "rewind" => {
            let sizes = if opts.smoke {
                vec![Size { nodes: 4, pods: 50 }]
            } else {
                REWIND_SIZES.to_vec()
            };
            for size in sizes {
                for l in rewind(size, seed)? {
                    emit(&l);
                }
            }
        }
        "scaling" => {
            let rows = scaling(opts, emit)?;
            write_scaling(out_dir, &rows, opts)?;
        }
        cell if cell.starts_with("scaling-cell:") => {
            // One cell of `scaling`, run in its own process for its own peak memory.
            let size = parse_cell(cell)?;
            let (mut c, conv) = converge_line("scaling-converge", size, seed)?;
            emit(&conv);
            emit(&steady_line("scaling-steady", size, &mut c, SCALING_STEADY));
        }
        other => {
            return Err(format!(
                "unknown scenario {other:?}: one of {}, all",
                SCENARIOS.join(", ")
            ))
        }
    }
    Ok(())
}

/// A session's history as a learner makes one (a Deployment of `size.pods`, the
/// clock played in 1.5 s steps, a scale, a zone killed, six simulated minutes in
/// all), then `sim rewind 90s` (`rewind-N`) and the clock played back to the end,
/// replaying the rest (`replay-N`).
fn rewind(size: Size, seed: u64) -> Result<Vec<Line>, String> {
    use warehouse_kubectl::{NoFiles, Session};
    reset_peak_rss();
    let mut s = Session::new(scenarios::cluster(seed, size.nodes));
    let run = |s: &mut Session, line: &str| -> Result<(), String> {
        let out = s.run_shell(line, None, &NoFiles);
        if out.code != 0 {
            return Err(format!("{line}: {}", out.stderr));
        }
        Ok(())
    };
    let play = |s: &mut Session, secs: u64| {
        for _ in 0..secs * 2 / 3 {
            s.advance(SimDuration::millis(1_500));
        }
    };
    run(
        &mut s,
        &format!(
            "kubectl create deployment web --image=nginx --replicas={}",
            size.pods
        ),
    )?;
    play(&mut s, 120);
    run(
        &mut s,
        &format!("kubectl scale deployment web --replicas={}", size.pods + 50),
    )?;
    play(&mut s, 120);
    run(&mut s, "sim node kill zone-1")?;
    play(&mut s, 120);
    let end = s.cluster.now();
    let back = SimDuration::secs(90);
    let (r, wall) = timed(|| s.rewind(back));
    r?;
    let measured = |name: &str, wall: f64| {
        let out = Outcome {
            sim: back,
            ..Outcome::default()
        };
        line(&format!("{name}-{}", size.pods), size, wall, out)
    };
    let rewound = measured("rewind", wall);
    let (_, wall) = timed(|| {
        while s.cluster.now() < end {
            s.advance(SimDuration::millis(1_500).min(end.since(s.cluster.now())));
        }
    });
    Ok(vec![rewound, measured("replay", wall)])
}

/// One cell of the scaling grid.
#[derive(Clone, Debug)]
pub struct Row {
    pub size: Size,
    pub converge: Line,
    pub steady: Line,
}

/// Simulated time of each `scaling` cell's steady run.
pub const SCALING_STEADY: SimDuration = SimDuration::secs(60);

fn scaling(opts: Options, emit: &mut dyn FnMut(&Line)) -> Result<Vec<Row>, String> {
    let (nodes, pods): (&[usize], &[usize]) = if opts.smoke {
        (&[10, 20], &[100, 1000])
    } else {
        (&[10, 100, 1000, 5000], &[100, 1000, 10_000, 100_000])
    };
    let mut rows = Vec::new();
    for &n in nodes {
        for &p in pods {
            let size = Size { nodes: n, pods: p };
            if !size.fits() || opts.max_pods.is_some_and(|m| p > m) {
                continue;
            }
            let lines = run_cell(size, opts.seed)?;
            let [conv, st] = <[Line; 2]>::try_from(lines)
                .map_err(|l| format!("a scaling cell printed {} lines, not 2", l.len()))?;
            emit(&conv);
            emit(&st);
            rows.push(Row {
                size,
                converge: conv,
                steady: st,
            });
        }
    }
    Ok(rows)
}

/// `scaling-cell:NODESxPODS`.
fn parse_cell(name: &str) -> Result<Size, String> {
    let spec = name.trim_start_matches("scaling-cell:");
    let (n, p) = spec
        .split_once('x')
        .ok_or_else(|| format!("bad cell {spec:?}: NODESxPODS"))?;
    let num = |v: &str| {
        v.parse::<usize>()
            .map_err(|_| format!("bad cell {spec:?}: {v:?} is not a count"))
    };
    let size = Size {
        nodes: num(n)?,
        pods: num(p)?,
    };
    if size.nodes == 0 || size.nodes > warehouse_sim::kubelet::MAX_NODES || !size.fits() {
        return Err(format!(
            "bad cell {spec:?}: the pods do not fit on the nodes"
        ));
    }
    Ok(size)
}

/// Runs one scaling cell in a child process (this binary, `bench
/// scaling-cell:NODESxPODS`) and reads its two lines back.
fn run_cell(size: Size, seed: u64) -> Result<Vec<Line>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("finding this program: {e}"))?;
    let out = std::process::Command::new(exe)
        .args([
            "bench",
            &format!("scaling-cell:{}x{}", size.nodes, size.pods),
            "--seed",
            &seed.to_string(),
        ])
        .output()
        .map_err(|e| format!("running a scaling cell: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "the scaling cell {}x{} failed: {}",
            size.nodes,
            size.pods,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(Line::parse)
        .collect()
}

fn write_scaling(dir: &Path, rows: &[Row], opts: Options) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let md = scaling_table(rows, opts);
    let svg = scaling_svg(rows);
    for (name, text) in [("scaling.md", md), ("scaling.svg", svg)] {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}

/// The scaling grid as a Markdown table.
pub fn scaling_table(rows: &[Row], opts: Options) -> String {
    let mut s = String::from("# Scaling\n\n");
    s.push_str(
        "Written by `warehouse bench scaling` (native release build). Each row applies \
         Deployments (10,000 replicas at most each) and a Service to a fresh settled \
         cluster (kube-system and every node's kube-proxy Running) and runs until every \
         pod is Ready and the Service's EndpointSlices list all of them (converge), then \
         runs one simulated minute with nothing changing (steady). Each row runs in its \
         own process; peak memory is that process's resident peak, so it holds the \
         nodes' own cost as well as the pods' (KB per pod divides all of it by the \
         pods).\n\n",
    );
    if opts.smoke {
        s.push_str("(A smoke run: small sizes, the numbers mean nothing.)\n\n");
    }
    if let Some(m) = opts.max_pods {
        let _ = writeln!(
            s,
            "Cells with more than {m} workload pods were left out (`--max-pods {m}`).\n"
        );
    }
    s.push_str("![converge wall time by pods](scaling.svg)\n\n");
    s.push_str(
        "| nodes | pods | converge wall | simulated | writes | events | peak memory | KB per pod | steady (1 min) wall | steady speedup |\n",
    );
    s.push_str("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in rows {
        let c = &r.converge;
        let peak = c
            .peak_rss_mb
            .map_or_else(|| "n/a".into(), |m| format!("{m:.0} MB"));
        let per_pod = c.peak_rss_mb.map_or_else(
            || "n/a".into(),
            |m| format!("{:.1}", m * 1024.0 / r.size.pods as f64),
        );
        let _ = writeln!(
            s,
            "| {} | {} | {:.0} ms | {} s | {} | {} | {} | {} | {:.0} ms | {:.0}× |",
            r.size.nodes,
            r.size.pods,
            c.wall_ms,
            c.out.sim.as_secs(),
            c.out.writes,
            c.out.event_writes,
            peak,
            per_pod,
            r.steady.wall_ms,
            r.steady.speedup()
        );
    }
    s
}

/// A log–log chart of converge wall time against pods, one line per node count.
pub fn scaling_svg(rows: &[Row]) -> String {
    let (w, h, left, bottom, top, right) = (640.0, 400.0, 70.0, 50.0, 20.0, 130.0);
    let pods: Vec<f64> = rows.iter().map(|r| r.size.pods as f64).collect();
    let walls: Vec<f64> = rows.iter().map(|r| r.converge.wall_ms.max(1.0)).collect();
    let lg = |v: f64| v.max(1.0).log10();
    let (x0, x1) = (
        lg(pods.iter().cloned().fold(f64::MAX, f64::min)).floor(),
        lg(pods.iter().cloned().fold(1.0, f64::max)).ceil().max(1.0),
    );
    let (y0, y1) = (
        lg(walls.iter().cloned().fold(f64::MAX, f64::min)).floor(),
        lg(walls.iter().cloned().fold(1.0, f64::max))
            .ceil()
            .max(1.0),
    );
    let span = |a: f64, b: f64| if b > a { b - a } else { 1.0 };
    let px = |p: f64| left + (lg(p) - x0) / span(x0, x1) * (w - left - right);
    let py = |ms: f64| h - bottom - (lg(ms) - y0) / span(y0, y1) * (h - bottom - top);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    // Axes and decade grid lines.
    let mut e = x0;
    while e <= x1 {
        let x = px(10f64.powf(e));
        let _ = writeln!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            h - bottom,
            h - bottom + 16.0,
            10u64.pow(e as u32)
        );
        e += 1.0;
    }
    let mut e = y0;
    while e <= y1 {
        let y = py(10f64.powf(e));
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{} ms</text>",
            w - right,
            left - 6.0,
            y + 4.0,
            10u64.pow(e as u32)
        );
        e += 1.0;
    }
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">workload pods (log)</text><text x=\"14\" y=\"{:.1}\" transform=\"rotate(-90 14 {:.1})\" text-anchor=\"middle\">converge wall time (log)</text>",
        left + (w - left - right) / 2.0,
        h - 12.0,
        top + (h - top - bottom) / 2.0,
        top + (h - top - bottom) / 2.0
    );
    let colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"];
    let mut nodes: Vec<usize> = rows.iter().map(|r| r.size.nodes).collect();
    nodes.dedup();
    for (i, n) in nodes.iter().enumerate() {
        let colour = colours[i % colours.len()];
        let points: Vec<String> = rows
            .iter()
            .filter(|r| r.size.nodes == *n)
            .map(|r| {
                format!(
                    "{:.1},{:.1}",
                    px(r.size.pods as f64),
                    py(r.converge.wall_ms.max(1.0))
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"/>",
            points.join(" ")
        );
        for p in &points {
            let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
            let _ = writeln!(
                s,
                "<circle cx=\"{x}\" cy=\"{y}\" r=\"3\" fill=\"{colour}\"/>"
            );
        }
        let ly = top + 16.0 * (i as f64 + 1.0);
        let _ = writeln!(
            s,
            "<line x1=\"{:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\" stroke=\"{colour}\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\">{n} nodes</text>",
            w - right + 10.0,
            w - right + 30.0,
            w - right + 36.0,
            ly + 4.0
        );
    }
    s.push_str("</svg>\n");
    s
}
