//! `webmcp-ref explore`: every schedule the spec permits at the choice points, each checked
//! against every expectation and the invariants, within the budgets given.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use webmcp_ref::engine::profile::Profile;
use webmcp_ref::explore::{explore_all, ExploreOptions, Progress};
use webmcp_ref::report;

use super::{
    load_each, loaded_reporting_errors, warn, BadInput, CliError, Exit, Output, ProfileArgs,
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
    /// Only subtests whose name contains this.
    #[arg(long)]
    subtest: Option<String>,
    /// Stop after this many schedules have been run to their end (at least 1).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    max_schedules: Option<u64>,
    /// Stop after this many seconds (more than 0, at most a year).
    #[arg(long, value_parser = super::seconds_budget, allow_negative_numbers = true)]
    max_seconds: Option<f64>,
    /// Stop when the process holds this much memory, such as 512M or 4G (default: a quarter
    /// of the machine's memory).
    #[arg(long, value_parser = super::memory_size)]
    max_memory: Option<u64>,
    /// Enumerate naively: do not merge states already explored.
    #[arg(long)]
    no_reduction: bool,
    /// Worker threads (default: the machine's cores); results do not depend on it.
    #[arg(long, value_parser = super::threads)]
    threads: Option<usize>,
    /// human: each subtest's outcomes and verdicts, and with several profiles a table of where
    /// they differ; json: every exploration; html: a page of the outcomes and their replay
    /// tokens.
    #[arg(long, value_enum, default_value = "human")]
    format: ExploreFormat,
}

pub fn run(args: Args, out: &mut Output) -> Result<Exit, CliError> {
    let built: Vec<Profile> = args.profiles.build()?;
    // A file that cannot be read or parsed is said on stderr; the others go on.
    let (files, unloadable) = loaded_reporting_errors(load_each(args.paths)?);
    if let Some(name) = &args.subtest {
        let any = files
            .iter()
            .flat_map(|f| &f.subtests)
            .any(|s| s.name.contains(name.as_str()));
        if !any {
            return Err(BadInput::NoSubtest(name.clone()).into());
        }
    }
    let options: Vec<ExploreOptions> = built
        .iter()
        .map(|p| ExploreOptions {
            profile: p.clone(),
            subtest: args.subtest.clone(),
            max_schedules: args.max_schedules,
            max_seconds: args.max_seconds,
            reduce: !args.no_reduction,
            invariants: true,
        })
        .collect();
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let max_memory = args.max_memory.or_else(|| memory::machine().map(|m| m / 4));
    let progress = Progress::default();
    let done = AtomicBool::new(false);
    let out_of_memory = AtomicBool::new(false);
    let started = Instant::now();
    let results = std::thread::scope(|scope| {
        scope.spawn(|| {
            // Progress on stderr once the run has taken more than a second; the memory
            // budget is watched here, and coming within an eighth of it stops every worker
            // (the rest is room for the workers to stop and for the report).
            let stop_at = max_memory.map(|m| m - m / 8);
            let mut last = Instant::now();
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
                if let (Some(at), Some(held)) = (stop_at, memory::resident()) {
                    if held >= at && !out_of_memory.swap(true, Ordering::Relaxed) {
                        progress.stop.store(true, Ordering::Relaxed);
                        warn(&format!(
                            "webmcp-ref: the exploration holds {} MiB, near its memory budget (--max-memory {} MiB): it stops here, and what it explored is reported",
                            held >> 20,
                            max_memory.unwrap_or(0) >> 20
                        ));
                    }
                }
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
            let failed = results.iter().filter(|e| e.complete && !e.passed()).count();
            let incomplete = results.iter().filter(|e| !e.complete).count();
            let not_run = results.iter().filter(|e| e.not_run.is_some()).count();
            writeln!(
                out,
                "\n{} subtests explored: {} passed, {failed} failed, {incomplete} incomplete{}; {schedules} schedules, {states} distinct states, {:.2} s",
                results.len() - not_run,
                results.len() - failed - incomplete - not_run,
                if not_run > 0 { format!(" ({not_run} not run: PRECONDITION_FAILED)") } else { String::new() },
                elapsed.as_secs_f64()
            )?;
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
    if results.iter().any(|e| !e.complete) {
        return Ok(Exit::Budget);
    }
    Ok(Exit::held_if(results.iter().all(|e| e.passed())))
}

/// The memory the process holds and the machine has, as Linux reports them (elsewhere
/// unknown, and the explorer has no memory budget unless one is given and can be read).
mod memory {
    /// The process's resident memory, in bytes.
    pub fn resident() -> Option<u64> {
        let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
        let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
        // SAFETY: sysconf only reads a configuration value.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        pages.checked_mul(u64::try_from(page).ok()?)
    }

    /// The machine's memory, in bytes.
    pub fn machine() -> Option<u64> {
        let info = std::fs::read_to_string("/proc/meminfo").ok()?;
        let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        kib.checked_mul(1024)
    }
}
