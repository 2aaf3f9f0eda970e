//! `webmcp-ref`: run WPT-style scenarios against the WebMCP reference engine.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use webmcp_ref::engine::profile::{self, Profile, NAMED_PROFILES};
use webmcp_ref::engine::trace::Coverage;
use webmcp_ref::report;
use webmcp_ref::scenario::suite::{bundled_mirror, discover, load};
use webmcp_ref::scenario::{run_file, FileResult, RunOptions, ScenarioFile};
use webmcp_ref::Schedule;

#[derive(Parser)]
#[command(
    name = "webmcp-ref",
    version,
    about = "An executable reference engine for the W3C WebMCP specification: runs WPT-style scenarios and says what happened and why."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    Human,
    Json,
    Wptreport,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum TraceFormat {
    Human,
    Jsonl,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum SimpleFormat {
    Human,
    Json,
}

#[derive(clap::Args)]
struct ProfileArgs {
    /// Profile(s) to run under, comma-separated (see `webmcp-ref profiles`).
    #[arg(long, default_value = "spec", value_delimiter = ',')]
    profile: Vec<String>,
    /// Override one switch: `--set settle-updates-tools-ready=if-fully-active`. Repeatable.
    #[arg(long = "set", value_name = "SWITCH=VALUE")]
    sets: Vec<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Run scenario files or folders (default: the bundled wpt-mirror/).
    Run {
        paths: Vec<PathBuf>,
        #[command(flatten)]
        profiles: ProfileArgs,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Only subtests whose name contains this.
        #[arg(long)]
        subtest: Option<String>,
        /// Replay a recorded schedule.
        #[arg(long)]
        schedule: Option<String>,
        /// List passing subtests too.
        #[arg(long, short)]
        verbose: bool,
    },
    /// Print the step trace of a scenario's subtests, with the schedule that produced it.
    Trace {
        file: PathBuf,
        #[arg(long)]
        subtest: Option<String>,
        /// The profile to trace under (one).
        #[arg(long, default_value = "spec")]
        profile: String,
        #[arg(long = "set", value_name = "SWITCH=VALUE")]
        sets: Vec<String>,
        #[arg(long)]
        schedule: Option<String>,
        #[arg(long, value_enum, default_value = "human")]
        format: TraceFormat,
    },
    /// Which (algorithm, step) pairs the scenarios reach, and which they never do.
    Coverage {
        paths: Vec<PathBuf>,
        /// Profiles to run (default: every named profile).
        #[arg(long, value_delimiter = ',')]
        profile: Vec<String>,
        #[arg(long = "set", value_name = "SWITCH=VALUE")]
        sets: Vec<String>,
        #[arg(long, value_enum, default_value = "human")]
        format: SimpleFormat,
        /// Exit 1 unless every step of the readiness algorithms, registerTool and unregister
        /// is reached.
        #[arg(long)]
        require_full: bool,
    },
    /// Run every schedule the spec permits at the choice points, and check every expectation
    /// (and the invariants) on each.
    Explore {
        paths: Vec<PathBuf>,
        #[command(flatten)]
        profiles: ProfileArgs,
        #[arg(long)]
        subtest: Option<String>,
        /// Stop after this many schedules have been run to their end.
        #[arg(long)]
        max_schedules: Option<u64>,
        /// Stop after this many seconds.
        #[arg(long)]
        max_seconds: Option<f64>,
        /// Enumerate naively: do not merge states already explored.
        #[arg(long)]
        no_reduction: bool,
        /// Worker threads (default: the machine's cores); results do not depend on it.
        #[arg(long)]
        threads: Option<usize>,
        #[arg(long, value_enum, default_value = "human")]
        format: SimpleFormat,
    },
    /// Serve a subtest's simulated pages to agents over MCP on stdin/stdout: the tools
    /// webmcp_observe, webmcp_call and webmcp_wait_for, and every page tool as FRAME.TOOL.
    Serve {
        file: PathBuf,
        /// The subtest to serve (its name, or part of it); needed when the file has several.
        #[arg(long)]
        subtest: Option<String>,
        /// The profile the world runs under (one).
        #[arg(long, default_value = "spec")]
        profile: String,
        #[arg(long = "set", value_name = "SWITCH=VALUE")]
        sets: Vec<String>,
        /// Virtual time: the clock stands still unless an agent waits, then jumps to the next
        /// thing due (deterministic, for tests). By default it follows real time.
        #[arg(long = "virtual")]
        virtual_clock: bool,
    },
    /// Compare a Bikeshed source of the WebMCP text (its index.bs) with the engine's
    /// algorithm tables and with the digest of the text the engine last matched, and name the
    /// subtests that reach each step that changed. Exit 0 when there is nothing to say, 1 with
    /// findings, 2 on bad input.
    SpecCheck {
        file: PathBuf,
        /// Compare with this digest instead of the engine's own.
        #[arg(long)]
        digest: Option<PathBuf>,
        /// Write FILE's digest here instead of comparing (once the engine follows FILE).
        #[arg(long, value_name = "PATH")]
        write_digest: Option<PathBuf>,
        /// The source the written digest names (a commit id; default: FILE's name).
        #[arg(long, requires = "write_digest")]
        source: Option<String>,
        /// Scenario files or folders searched for subtests reaching a changed step (default:
        /// the bundled wpt-mirror/), each under every named profile.
        #[arg(long = "scenarios", value_name = "PATH")]
        scenarios: Vec<PathBuf>,
        #[arg(long, value_enum, default_value = "human")]
        format: SimpleFormat,
    },
    /// The named profiles and every switch, with its values and where it comes from.
    Profiles {
        #[arg(long, value_enum, default_value = "human")]
        format: SimpleFormat,
    },
    /// Write scenario files as WPT testharness.js tests (.https.html, one promise_test per
    /// subtest), laid out as in WPT, each folder with the resources/ its tests load.
    ExportWpt {
        paths: Vec<PathBuf>,
        /// The folder to write into (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// The profile whose expectations the tests assert.
        #[arg(long, default_value = "spec")]
        profile: String,
        #[arg(long = "set", value_name = "SWITCH=VALUE")]
        sets: Vec<String>,
        #[arg(long, value_enum, default_value = "human")]
        format: SimpleFormat,
    },
    /// Export the scenarios, run each in headless Chromium (WebMCP enabled, real time) and
    /// compare every subtest's result and log with the engine's under a profile. Exit 0 only
    /// when every disagreement is a listed known difference and no listed one is stale.
    DiffBrowser {
        paths: Vec<PathBuf>,
        /// The browser to run.
        #[arg(long, default_value = "/usr/bin/chromium")]
        browser: PathBuf,
        /// The engine's profile to compare with (and whose expectations the tests assert).
        #[arg(long, default_value = "chromium")]
        profile: String,
        #[arg(long = "set", value_name = "SWITCH=VALUE")]
        sets: Vec<String>,
        /// The checked-in known differences (default: browser-diff/known-differences.txt).
        #[arg(long)]
        known: Option<PathBuf>,
        /// human, json, or wptreport (the browser's results, as wptrunner writes them).
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Seconds a file may run before its browser is killed and the file fails (default:
        /// the test's own harness timeout, plus 20 s).
        #[arg(long)]
        timeout: Option<f64>,
        /// The margin each wait adds in real time, in milliseconds.
        #[arg(long, default_value_t = 100)]
        margin_ms: u64,
        /// Keep the exported tests in this folder (default: a temporary one, removed after).
        #[arg(long)]
        keep: Option<PathBuf>,
        /// Print, for each unexplained disagreement, an entry to start the known-differences
        /// file from.
        #[arg(long)]
        suggest: bool,
        /// Show agreeing subtests' logs too.
        #[arg(long, short)]
        verbose: bool,
    },
}

/// Bad input: exit status 2.
struct BadInput(String);

impl<E: std::fmt::Display> From<E> for BadInput {
    fn from(e: E) -> Self {
        BadInput(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match execute(cli) {
        Ok(code) => ExitCode::from(code),
        Err(BadInput(message)) => {
            eprintln!("webmcp-ref: {message}");
            ExitCode::from(2)
        }
    }
}

fn build_profile(name: &str, sets: &[String]) -> Result<Profile, BadInput> {
    let mut p = Profile::named(name)?;
    for s in sets {
        p.apply_assignment(s)
            .map_err(|e| BadInput(format!("--set {s}: {e}")))?;
    }
    Ok(p)
}

fn load_all(paths: Vec<PathBuf>) -> Result<Vec<ScenarioFile>, BadInput> {
    let paths = if paths.is_empty() {
        vec![bundled_mirror()]
    } else {
        paths
    };
    let files = discover(&paths)?;
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for f in files {
        match load(&f) {
            Ok(s) => out.push(s),
            Err(e) => errors.push(e.to_string()),
        }
    }
    if !errors.is_empty() {
        return Err(BadInput(errors.join("\n")));
    }
    Ok(out)
}

fn execute(cli: Cli) -> Result<u8, BadInput> {
    let mut stdout = std::io::stdout().lock();
    match cli.command {
        Command::Run {
            paths,
            profiles,
            format,
            subtest,
            schedule,
            verbose,
        } => {
            let schedule = schedule.map(|s| s.parse::<Schedule>()).transpose()?;
            let built: Vec<Profile> = profiles
                .profile
                .iter()
                .map(|p| build_profile(p, &profiles.sets))
                .collect::<Result<_, _>>()?;
            let files = load_all(paths)?;
            let started = std::time::Instant::now();
            let runs: Vec<(String, Vec<FileResult>)> = built
                .iter()
                .map(|p| {
                    let options = RunOptions {
                        profile: p.clone(),
                        schedule: schedule.clone(),
                        trace: false,
                        subtest: subtest.clone(),
                    };
                    (
                        p.name.clone(),
                        files.iter().map(|f| run_file(f, &options)).collect(),
                    )
                })
                .collect();
            let elapsed = started.elapsed();
            let all_pass = runs.iter().all(|(_, r)| r.iter().all(FileResult::passed));
            match format {
                Format::Human => {
                    for (_, results) in &runs {
                        write!(
                            stdout,
                            "{}",
                            report::human(results, &profiles.sets, verbose)
                        )?;
                    }
                    for (name, results) in &runs {
                        let (files, subtests, pass, fail, error) = report::summary(results);
                        let switches = built
                            .iter()
                            .find(|p| &p.name == name)
                            .map(|p| p.differences_from_spec())
                            .unwrap_or_default();
                        writeln!(
                            stdout,
                            "\nprofile {name}{}: {files} files, {subtests} subtests: {pass} passed, {fail} failed, {error} errors",
                            if switches.is_empty() { String::new() } else { format!(" ({})", switches.join(", ")) }
                        )?;
                    }
                    if runs.len() > 1 {
                        writeln!(
                            stdout,
                            "\nWhere the outcomes differ ({}):",
                            runs.iter()
                                .map(|r| r.0.as_str())
                                .collect::<Vec<_>>()
                                .join(" | ")
                        )?;
                        write!(stdout, "{}", report::differences(&runs))?;
                    }
                    writeln!(stdout, "({:.0} ms)", elapsed.as_secs_f64() * 1000.0)?;
                }
                Format::Json => {
                    let v: Vec<serde_json::Value> = runs
                        .iter()
                        .map(|(name, results)| serde_json::json!({"profile": name, "files": results}))
                        .collect();
                    writeln!(stdout, "{}", serde_json::to_string_pretty(&v)?)?;
                }
                Format::Wptreport => {
                    if runs.len() != 1 {
                        return Err(BadInput("--format wptreport takes one profile: a wptreport file describes one run".into()));
                    }
                    let (name, results) = &runs[0];
                    let diffs = built[0].differences_from_spec();
                    writeln!(
                        stdout,
                        "{}",
                        serde_json::to_string_pretty(&report::wptreport(results, name, &diffs))?
                    )?;
                }
            }
            Ok(if all_pass { 0 } else { 1 })
        }
        Command::Trace {
            file,
            subtest,
            profile,
            sets,
            schedule,
            format,
        } => {
            let profile = build_profile(&profile, &sets)?;
            let schedule = schedule.map(|s| s.parse::<Schedule>()).transpose()?;
            let scenario = load(&file)?;
            if let Some(name) = &subtest {
                if !scenario
                    .subtests
                    .iter()
                    .any(|s| s.name.contains(name.as_str()))
                {
                    let names: Vec<String> = scenario
                        .subtests
                        .iter()
                        .map(|s| format!("{:?}", s.name))
                        .collect();
                    return Err(BadInput(format!(
                        "no subtest of {} matches {name:?}; its subtests are: {}",
                        file.display(),
                        names.join(", ")
                    )));
                }
            }
            let options = RunOptions {
                profile: profile.clone(),
                schedule,
                trace: true,
                subtest,
            };
            let result = run_file(&scenario, &options);
            for sub in &result.subtests {
                match format {
                    TraceFormat::Human => {
                        writeln!(
                            stdout,
                            "== {} :: {:?} [{}] ==",
                            scenario.path, sub.name, profile.name
                        )?;
                        writeln!(
                            stdout,
                            "schedule: {}  ({} choice points, {} units, {} ms virtual)",
                            sub.schedule, sub.choice_points, sub.units, sub.time
                        )?;
                        for e in &sub.trace {
                            writeln!(stdout, "{e}")?;
                        }
                        writeln!(stdout, "result: {:?}", sub.status)?;
                        for e in sub.expectations.iter().filter(|e| !e.passed) {
                            writeln!(
                                stdout,
                                "  {}:{}: {}\n    expected: {}\n    actual:   {}",
                                scenario.path, e.line, e.text, e.expected, e.actual
                            )?;
                        }
                        for m in &sub.messages {
                            writeln!(stdout, "  {m}")?;
                        }
                        writeln!(stdout)?;
                    }
                    TraceFormat::Jsonl => {
                        let header = serde_json::json!({"kind": "subtest", "file": scenario.path, "subtest": sub.name, "profile": profile.name, "schedule": sub.schedule});
                        writeln!(stdout, "{header}")?;
                        for e in &sub.trace {
                            writeln!(stdout, "{}", serde_json::to_string(e)?)?;
                        }
                        let footer = serde_json::json!({"kind": "result", "status": sub.status, "messages": sub.messages, "expectations": sub.expectations});
                        writeln!(stdout, "{footer}")?;
                    }
                }
            }
            Ok(if result.passed() { 0 } else { 1 })
        }
        Command::Coverage {
            paths,
            profile,
            sets,
            format,
            require_full,
        } => {
            let names: Vec<String> = if profile.is_empty() {
                NAMED_PROFILES.iter().map(|p| p.name.to_string()).collect()
            } else {
                profile
            };
            let built: Vec<Profile> = names
                .iter()
                .map(|p| build_profile(p, &sets))
                .collect::<Result<_, _>>()?;
            let files = load_all(paths)?;
            let mut coverage = Coverage::default();
            for p in &built {
                let options = RunOptions {
                    profile: p.clone(),
                    ..RunOptions::default()
                };
                for f in &files {
                    for s in run_file(f, &options).subtests {
                        coverage.merge(&s.coverage);
                    }
                }
            }
            match format {
                SimpleFormat::Human => {
                    writeln!(
                        stdout,
                        "coverage of {} scenario files under {}:\n",
                        files.len(),
                        names.join(", ")
                    )?;
                    write!(stdout, "{}", report::coverage_human(&coverage))?;
                }
                SimpleFormat::Json => writeln!(
                    stdout,
                    "{}",
                    serde_json::to_string_pretty(&report::coverage_json(&coverage))?
                )?,
            }
            let missing = report::missing_required(&coverage);
            if require_full && !missing.is_empty() {
                eprintln!("required steps never reached: {}", missing.join(", "));
                return Ok(1);
            }
            Ok(0)
        }
        Command::Explore {
            paths,
            profiles,
            subtest,
            max_schedules,
            max_seconds,
            no_reduction,
            threads,
            format,
        } => {
            use webmcp_ref::explore::{explore_all, ExploreOptions, Progress};
            let built: Vec<Profile> = profiles
                .profile
                .iter()
                .map(|p| build_profile(p, &profiles.sets))
                .collect::<Result<_, _>>()?;
            let files = load_all(paths)?;
            if let Some(name) = &subtest {
                let any = files
                    .iter()
                    .flat_map(|f| &f.subtests)
                    .any(|s| s.name.contains(name.as_str()));
                if !any {
                    return Err(BadInput(format!("no subtest matches {name:?}")));
                }
            }
            let options: Vec<ExploreOptions> = built
                .iter()
                .map(|p| ExploreOptions {
                    profile: p.clone(),
                    subtest: subtest.clone(),
                    max_schedules,
                    max_seconds,
                    reduce: !no_reduction,
                    invariants: true,
                })
                .collect();
            let threads = threads.unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1)
            });
            let progress = Progress::default();
            let done = std::sync::atomic::AtomicBool::new(false);
            let started = std::time::Instant::now();
            let results = std::thread::scope(|scope| {
                scope.spawn(|| {
                    // Progress on stderr once the run has taken more than a second.
                    let mut last = std::time::Instant::now();
                    while !done.load(std::sync::atomic::Ordering::Relaxed) {
                        std::thread::sleep(std::time::Duration::from_millis(50));
                        if started.elapsed().as_secs_f64() > 1.0
                            && last.elapsed().as_secs_f64() >= 1.0
                        {
                            last = std::time::Instant::now();
                            eprintln!(
                                "exploring: {} states, {} schedules run, {:.0} s",
                                progress.states.load(std::sync::atomic::Ordering::Relaxed),
                                progress
                                    .schedules
                                    .load(std::sync::atomic::Ordering::Relaxed),
                                started.elapsed().as_secs_f64()
                            );
                        }
                    }
                });
                let r = explore_all(&files, &options, threads, &progress);
                done.store(true, std::sync::atomic::Ordering::Relaxed);
                r
            });
            let elapsed = started.elapsed();
            match format {
                SimpleFormat::Human => {
                    write!(
                        stdout,
                        "{}",
                        report::explorations_human(&results, &profiles.sets)
                    )?;
                    let states: u64 = results.iter().map(|e| e.states).sum();
                    let schedules: u128 = results.iter().map(|e| e.schedules).sum();
                    let failed = results.iter().filter(|e| e.complete && !e.passed()).count();
                    let incomplete = results.iter().filter(|e| !e.complete).count();
                    writeln!(
                        stdout,
                        "\n{} subtests explored: {} passed, {failed} failed, {incomplete} incomplete; {schedules} schedules, {states} distinct states, {:.2} s",
                        results.len(),
                        results.len() - failed - incomplete,
                        elapsed.as_secs_f64()
                    )?;
                }
                SimpleFormat::Json => {
                    writeln!(stdout, "{}", serde_json::to_string_pretty(&results)?)?
                }
            }
            if results.iter().any(|e| !e.complete) {
                return Ok(3);
            }
            Ok(if results.iter().all(|e| e.passed()) {
                0
            } else {
                1
            })
        }
        Command::Serve {
            file,
            subtest,
            profile,
            sets,
            virtual_clock,
        } => {
            // stdout is the MCP transport from here on.
            drop(stdout);
            use webmcp_ref::gateway::{server::serve_stdio, Clock, Gateway, ServeOptions};
            let options = ServeOptions {
                profile: build_profile(&profile, &sets)?,
                subtest,
                clock: if virtual_clock {
                    Clock::Virtual
                } else {
                    Clock::RealTime
                },
            };
            let gateway = Gateway::start(load(&file)?, options)?;
            let s = gateway.served();
            eprintln!(
                "webmcp-ref serve: subtest {:?} of {} ({} profile, {} clock): MCP on stdin/stdout",
                s.subtest,
                s.path,
                s.profile,
                if virtual_clock {
                    "virtual"
                } else {
                    "real-time"
                }
            );
            serve_stdio(gateway)?;
            Ok(0)
        }
        Command::ExportWpt {
            paths,
            out,
            profile,
            sets,
            format,
        } => {
            let profile = build_profile(&profile, &sets)?;
            let files = load_all(paths)?;
            let exported: Vec<webmcp_ref::export::ExportedFile> = files
                .iter()
                .map(|f| webmcp_ref::export::export_file(f, &profile))
                .collect();
            webmcp_ref::export::write_tree(&exported, &out)
                .map_err(|e| BadInput(format!("{}: {e}", out.display())))?;
            match format {
                SimpleFormat::Human => write!(
                    stdout,
                    "{}",
                    webmcp_ref::browser::report::export_summary(&exported, &out)
                )?,
                SimpleFormat::Json => {
                    writeln!(stdout, "{}", serde_json::to_string_pretty(&exported)?)?
                }
            }
            Ok(0)
        }
        Command::DiffBrowser {
            paths,
            browser,
            profile,
            sets,
            known,
            format,
            timeout,
            margin_ms,
            keep,
            suggest,
            verbose,
        } => {
            use webmcp_ref::browser::{self, DiffOptions, OutputFormat};
            let options = DiffOptions {
                profile: build_profile(&profile, &sets)?,
                browser,
                known: known.unwrap_or_else(browser::default_known_differences),
                timeout_seconds: timeout,
                margin_ms,
                keep,
                progress: true,
                whole_suite: paths.is_empty(),
            };
            let files = load_all(paths)?;
            let run = browser::diff_browser(&files, &options)?;
            let output = match format {
                Format::Human => OutputFormat::Human { verbose, suggest },
                Format::Json => OutputFormat::Json,
                Format::Wptreport => OutputFormat::Wptreport,
            };
            write!(stdout, "{}", browser::report::render(&run, output))?;
            Ok(if run.passed() { 0 } else { 1 })
        }
        Command::SpecCheck {
            file,
            digest,
            write_digest,
            source,
            scenarios,
            format,
        } => {
            use webmcp_ref::speccheck;
            let read = |path: &PathBuf| {
                std::fs::read_to_string(path)
                    .map_err(|e| BadInput(format!("{}: {e}", path.display())))
            };
            let text = read(&file)?;
            let at_file = |e: speccheck::ParseError| {
                BadInput(format!(
                    "{}:{}:{}: {}",
                    file.display(),
                    e.line,
                    e.column,
                    e.message
                ))
            };
            if let Some(out) = write_digest {
                let spec = speccheck::parse_bs(&text).map_err(at_file)?;
                let name = source.unwrap_or_else(|| {
                    file.file_name()
                        .map_or("unknown".into(), |n| n.to_string_lossy().into_owned())
                });
                std::fs::write(&out, speccheck::Digest::from_spec(&spec, &name).to_string())
                    .map_err(|e| BadInput(format!("{}: {e}", out.display())))?;
                writeln!(
                    stdout,
                    "wrote the digest of {} ({} algorithms) to {}",
                    file.display(),
                    spec.algorithms.len(),
                    out.display()
                )?;
                return Ok(0);
            }
            let digest = match digest {
                Some(path) => speccheck::Digest::parse(&read(&path)?).map_err(|e| {
                    BadInput(format!("{}:{}:1: {}", path.display(), e.line, e.message))
                })?,
                None => speccheck::digest()?,
            };
            let report = match speccheck::check_against(&text, &digest) {
                Ok(r) => r,
                Err(speccheck::CheckError::Source(e)) => return Err(at_file(e)),
                Err(e) => return Err(BadInput(e.to_string())),
            };
            let mut changes = speccheck::changed_steps(&report);
            let profiles: Vec<Profile> = NAMED_PROFILES
                .iter()
                .map(|p| Profile::named(p.name))
                .collect::<Result<_, _>>()?;
            if !changes.is_empty() {
                let files = load_all(scenarios)?;
                speccheck::find_reaching(&mut changes, &files, &profiles);
            }
            match format {
                SimpleFormat::Human => write!(
                    stdout,
                    "{report}{}",
                    speccheck::changes_human(&changes, profiles.len())
                )?,
                SimpleFormat::Json => writeln!(
                    stdout,
                    "{}",
                    serde_json::to_string_pretty(&speccheck::report_json(&report, &changes))?
                )?,
            }
            Ok(if report.is_clean() { 0 } else { 1 })
        }
        Command::Profiles { format } => {
            match format {
                SimpleFormat::Human => {
                    writeln!(
                        stdout,
                        "Named profiles (each is `spec` with the switches shown):\n"
                    )?;
                    for p in NAMED_PROFILES {
                        let sw = Profile::named(p.name)
                            .map(|p| p.differences_from_spec())
                            .unwrap_or_default();
                        writeln!(stdout, "  {:<27} {}", p.name, p.about)?;
                        if !sw.is_empty() {
                            writeln!(stdout, "  {:<27}   {}", "", sw.join(", "))?;
                        }
                    }
                    writeln!(
                        stdout,
                        "\nSwitches (set any with --set name=value; the first value is spec's):\n"
                    )?;
                    for s in profile::switches() {
                        writeln!(stdout, "  {}\n      from: {}", s.name, s.source)?;
                        for v in s.values {
                            writeln!(stdout, "      {:<22} {}", v.name, v.meaning)?;
                        }
                    }
                }
                SimpleFormat::Json => {
                    let profiles: Vec<serde_json::Value> = NAMED_PROFILES
                        .iter()
                        .map(|p| serde_json::json!({"name": p.name, "about": p.about, "switches": Profile::named(p.name).map(|p| p.differences_from_spec()).unwrap_or_default().iter().filter_map(|kv| kv.split_once('=')).map(|(k, v)| serde_json::json!({k.to_string(): v})).collect::<Vec<_>>()}))
                        .collect();
                    let switches: Vec<serde_json::Value> = profile::switches()
                        .map(|s| serde_json::json!({"name": s.name, "source": s.source, "values": s.values.iter().map(|v| serde_json::json!({"value": v.name, "means": v.meaning})).collect::<Vec<_>>()}))
                        .collect();
                    writeln!(
                        stdout,
                        "{}",
                        serde_json::to_string_pretty(
                            &serde_json::json!({"profiles": profiles, "switches": switches})
                        )?
                    )?;
                }
            }
            Ok(0)
        }
    }
}
