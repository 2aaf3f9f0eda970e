//! `webmcp-ref explore`: every schedule the spec permits at the choice points, each checked
//! against every expectation and the invariants, within the budgets given.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use webmcp_ref::engine::profile::Profile;
use webmcp_ref::explore::{explore_all, machine_bytes, Counted, ExploreOptions, Mode, Progress};
use webmcp_ref::report;
use webmcp_ref::scenario::picked_subtests;

use super::{
    load_each, loaded_reporting_errors, warn, BadInput, BudgetArgs, CliError, Exit, Output,
    ProfileArgs,
};

/// `--format` of `explore`.
#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum ExploreFormat {
    /// Each subtest's outcomes, verdicts and counterexamples.
    Human,
    /// Every exploration.
    Json,
    /// One self-contained page: each outcome with its replay token.
    Html,
}

#[derive(clap::Args)]
#[command(after_help = super::exits::EXPLORE)]
pub struct Args {
    /// Scenario files (`.scn`) or folders to explore, every `.scn` file below a folder
    /// (default: the bundled wpt-mirror/).
    #[arg(value_name = "PATHS")]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    profiles: ProfileArgs,
    /// Only the subtest named this in each file, or, in a file where none is, the subtests
    /// whose name contains it.
    #[arg(long)]
    subtest: Option<String>,
    /// Stop after this many schedules have been run to their end.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    max_schedules: Option<u64>,
    /// Stop after this many seconds (a finite number above 0, at most 10^9).
    #[arg(long, allow_hyphen_values = true, value_parser = seconds)]
    max_seconds: Option<f64>,
    /// Stop, with the partial report, before the process's resident memory reaches this much
    /// (bytes, or with K, M, G; default: a quarter of the machine's memory). The search stops
    /// at three quarters of it, leaving the rest for the report.
    #[arg(long, value_parser = super::bytes)]
    max_memory: Option<u64>,
    /// Enumerate naively: do not merge states already explored, nor reduce by partial order.
    #[arg(long)]
    no_reduction: bool,
    /// Merge states already explored but do not reduce by partial order: every schedule is
    /// counted exactly.
    #[arg(long, conflicts_with = "no_reduction")]
    no_partial_order: bool,
    /// Run this many schedules drawn at random instead of every schedule (with --pct: drawn
    /// by PCT; default 1000 then).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    random: Option<u64>,
    /// Probabilistic concurrency testing for bugs of this depth (1 or more): sampled
    /// schedules, with priorities per queue and DEPTH - 1 priority changes.
    #[arg(long, value_name = "DEPTH", value_parser = clap::value_parser!(u32).range(1..))]
    pct: Option<u32>,
    /// The seed --random and --pct draw from (default 0); the report gives it back.
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads (default: the machine's cores); results do not depend on it.
    #[arg(long, value_parser = super::threads)]
    threads: Option<usize>,
    /// human: each subtest's outcomes and verdicts, and with several profiles a table of where
    /// they differ; json: every exploration; html: a page of the outcomes and their replay
    /// tokens.
    #[arg(long, value_enum, default_value = "human")]
    format: ExploreFormat,
    #[command(flatten)]
    budgets: BudgetArgs,
}

pub fn run(args: Args, out: &mut Output) -> Result<Exit, CliError> {
    let built: Vec<Profile> = args.profiles.build()?;
    // A file that cannot be read or parsed is said on stderr; the others go on.
    let (files, unloadable) = loaded_reporting_errors(load_each(args.paths)?);
    if let Some(name) = &args.subtest {
        let any = files
            .iter()
            .any(|f| !picked_subtests(f, Some(name)).is_empty());
        if !any {
            return Err(BadInput::NoSubtest(name.clone()).into());
        }
    }
    let seed = args.seed.unwrap_or(0);
    let mode = match (args.random, args.pct) {
        (_, Some(depth)) => Mode::Pct {
            runs: args.random.unwrap_or(1000),
            seed,
            depth,
        },
        (Some(runs), None) => Mode::Random { runs, seed },
        (None, None) => Mode::Exhaustive,
    };
    let max_memory = args.max_memory.or_else(|| machine_bytes().map(|m| m / 4));
    let options: Vec<ExploreOptions> = built
        .iter()
        .map(|p| ExploreOptions {
            profile: p.clone(),
            subtest: args.subtest.clone(),
            max_schedules: args.max_schedules,
            max_seconds: args.max_seconds,
            reduce: !args.no_reduction,
            partial_order: !args.no_partial_order,
            invariants: true,
            max_memory,
            mode: mode.clone(),
            budgets: args.budgets.budgets(),
        })
        .collect();
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let progress = Progress::default();
    let done = AtomicBool::new(false);
    let started = Instant::now();
    let results = std::thread::scope(|scope| {
        scope.spawn(|| {
            // Progress on stderr once the run has taken more than a second (the memory budget
            // is the explorer's own: ExploreOptions::max_memory).
            let mut last = Instant::now();
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
                if started.elapsed().as_secs_f64() > 1.0 && last.elapsed().as_secs_f64() >= 1.0 {
                    last = Instant::now();
                    warn(&format!(
                        "exploring: {} states, {} schedules run, {:.0} s",
                        progress.states.load(Ordering::Relaxed),
                        progress.schedules.load(Ordering::Relaxed),
                        started.elapsed().as_secs_f64()
                    ));
                }
            }
        });
        let r = explore_all(&files, &options, threads, &progress);
        done.store(true, Ordering::Relaxed);
        r
    });
    let elapsed = started.elapsed();
    match args.format {
        ExploreFormat::Human => {
            write!(
                out,
                "{}",
                report::explorations_human(&results, &args.profiles.sets)
            )?;
            if built.len() > 1 {
                writeln!(
                    out,
                    "\nWhere the outcomes differ ({}; each cell lists the values some schedule reaches):",
                    built.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(" | ")
                )?;
                write!(out, "{}", report::exploration_differences(&results))?;
            }
            let states: u64 = results.iter().map(|e| e.states).sum();
            let schedules: u128 = results.iter().map(|e| e.schedules).sum();
            let counted = results
                .first()
                .map(|e| e.counted)
                .unwrap_or(Counted::Schedules);
            let failed = results.iter().filter(|e| e.complete && !e.passed()).count();
            let incomplete = results.iter().filter(|e| !e.complete).count();
            let not_run = results.iter().filter(|e| e.not_run.is_some()).count();
            writeln!(
                out,
                "\n{} subtests explored: {} passed, {failed} failed, {incomplete} incomplete{}; {schedules} {}, {states} distinct states, {:.2} s{}",
                results.len() - not_run,
                results.len() - failed - incomplete - not_run,
                if not_run > 0 { format!(" ({not_run} not run: PRECONDITION_FAILED)") } else { String::new() },
                counted.noun(),
                elapsed.as_secs_f64(),
                match &mode {
                    Mode::Exhaustive => String::new(),
                    Mode::Random { seed, .. } | Mode::Pct { seed, .. } => format!(" (seed {seed})"),
                }
            )?;
            if let Some(why) = results.iter().find_map(|e| e.stopped_by.as_deref()) {
                writeln!(
                    out,
                    "stopped by {why}: the report above is what was explored"
                )?;
                // A subtest too large to exhaust can still be sampled, each outcome with the
                // token that replays it.
                if matches!(mode, Mode::Exhaustive) {
                    writeln!(
                        out,
                        "a subtest too large to exhaust can be sampled instead: --random N [--seed S], or --pct DEPTH [--random N]"
                    )?;
                }
            }
        }
        ExploreFormat::Json => out.json(&results)?,
        ExploreFormat::Html => {
            let command = format!(
                "webmcp-ref explore --profile {} --format html",
                args.profiles.profile.join(",")
            );
            write!(
                out,
                "{}",
                report::html::explore_page(&results, &args.profiles.sets, &command)
            )?;
        }
    }
    if unloadable {
        return Ok(Exit::BadInput);
    }
    if results.iter().any(|e| !e.complete || e.out_of_budget) {
        return Ok(Exit::Budget);
    }
    Ok(Exit::held_if(results.iter().all(|e| e.passed())))
}

/// `--max-seconds`: a finite number of seconds above 0 and at most 10^9.
fn seconds(text: &str) -> Result<f64, String> {
    let s: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !s.is_finite() || s <= 0.0 || s > 1e9 {
        return Err(format!(
            "`{text}` is out of range: a finite number of seconds above 0 and at most 1e9"
        ));
    }
    Ok(s)
}
