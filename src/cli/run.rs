//! `webmcp-ref run`: scenario files under one or more profiles, one schedule each (the default
//! order, or a replayed token), with a report of what held; WPT expectation metadata out and
//! in.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use webmcp_ref::engine::profile::Profile;
use webmcp_ref::report::{self, metadata, metadata::Metadata, WptRun};
use webmcp_ref::scenario::{picked_subtests, run_file, FileResult, RunOptions};
use webmcp_ref::Schedule;

use super::{load_each, warn, BadInput, BudgetArgs, CliError, Exit, Output, ProfileArgs};

/// `--format` of `run`.
#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum RunFormat {
    /// A line per file, details for each failure.
    Human,
    /// Every result.
    Json,
    /// What wptrunner writes and wpt.fyi reads (one profile).
    Wptreport,
    /// A folder of self-contained pages (--out): the suite, and each subtest's timeline.
    Html,
}

#[derive(clap::Args)]
#[command(after_help = super::exits::RUN)]
pub struct Args {
    /// Scenario files (`.scn`) or folders to run, every `.scn` file below a folder (default:
    /// the bundled wpt-mirror/).
    #[arg(value_name = "PATHS")]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    profiles: ProfileArgs,
    #[command(flatten)]
    budgets: BudgetArgs,
    /// human: a line per file, details for each failure, a table of where several profiles'
    /// outcomes differ; json: every result; wptreport: what wptrunner writes (one profile);
    /// html: a suite page and each subtest's timeline under every profile, written to --out.
    #[arg(long, value_enum, default_value = "human")]
    format: RunFormat,
    /// The folder --format html writes into (created if missing): index.html, and a
    /// timeline page per subtest below each file's WPT path.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The most --format html writes in all (bytes, or with K, M, G): past it, the pages
    /// left are not written, the suite page says so, and the exit status is 3.
    #[arg(long, value_name = "BYTES", value_parser = super::bytes, default_value = "1G")]
    max_output: u64,
    /// Only the subtest named this in each file, or, in a file where none is, the subtests
    /// whose name contains it.
    #[arg(long)]
    subtest: Option<String>,
    /// Replay a recorded schedule: the token a failure, `explore` or `trace` printed.
    #[arg(long, value_name = "TOKEN")]
    schedule: Option<String>,
    /// List passing subtests too.
    #[arg(long, short)]
    verbose: bool,
    /// The folder test IDs (wptreport, metadata) are relative to: a WPT checkout's root
    /// (default: the nearest folder above each file that holds a webmcp/ folder).
    #[arg(long, value_name = "DIR")]
    wpt_root: Option<PathBuf>,
    /// The commit of the WPT tree the tests belong to, for the wptreport's `revision` (what
    /// wpt.fyi files the run under). Default: the commit of the git checkout holding the WPT
    /// root (for the bundled suite, this checkout), else the commit webmcp-ref was built from.
    #[arg(long, value_name = "SHA", value_parser = super::revision)]
    wpt_revision: Option<String>,
    /// Compare the results with WPT expectation metadata: the `.ini` files under DIR, as
    /// wptrunner reads them. Lists every unexpected result and every stale entry; exit 0 when
    /// there is neither, whatever the expectations say fails.
    #[arg(long, value_name = "DIR")]
    metadata: Option<PathBuf>,
    /// Write WPT expectation metadata for these results under DIR: an `.ini` file per test
    /// file that does not simply pass, `expected:` conditional on the profile when profiles
    /// differ; with --metadata, the intermittent statuses it lists for results it expected
    /// are kept.
    #[arg(long, value_name = "DIR")]
    metadata_out: Option<PathBuf>,
}

fn epoch_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

pub fn run(args: Args, out: &mut Output) -> Result<Exit, CliError> {
    let schedule = args
        .schedule
        .map(|s| s.parse::<Schedule>())
        .transpose()
        .map_err(BadInput::from)?;
    let built: Vec<Profile> = args.profiles.build()?;
    if args.format == RunFormat::Wptreport && built.len() > 1 {
        return Err(BadInput::WptreportOfSeveralProfiles.into());
    }
    if args.metadata_out.is_some() && args.subtest.is_some() {
        return Err(BadInput::MetadataOfSomeSubtests.into());
    }
    let expectations = match &args.metadata {
        Some(dir) => Some(Metadata::read_dir(dir).map_err(BadInput::from)?),
        None => None,
    };
    let html_out = match (args.format, &args.out) {
        (RunFormat::Html, Some(dir)) => Some(dir.clone()),
        (RunFormat::Html, None) => return Err(BadInput::HtmlWithoutOut.into()),
        _ => None,
    };
    let whole_suite = args.paths.is_empty() && args.subtest.is_none();
    let files = load_each(args.paths)?;
    let unloadable = files.iter().any(Result::is_err);
    // Human output shows each on standard output; JSON and wptreport also say it on stderr.
    if args.format != RunFormat::Human {
        for e in files.iter().filter_map(|f| f.as_ref().err()) {
            warn(&format!("webmcp-ref: {e}"));
        }
    }
    if let Some(name) = &args.subtest {
        let any = files
            .iter()
            .flatten()
            .any(|f| !picked_subtests(f, Some(name)).is_empty());
        if !any {
            return Err(BadInput::NoSubtest(name.clone()).into());
        }
    }
    let time_start = epoch_ms(SystemTime::now());
    let started = Instant::now();
    let mut durations = Vec::new();
    let runs: Vec<(String, Vec<FileResult>)> = built
        .iter()
        .map(|p| {
            let options = RunOptions {
                profile: p.clone(),
                schedule: schedule.clone(),
                // The timelines are drawn from the trace.
                trace: html_out.is_some(),
                subtest: args.subtest.clone(),
                budgets: args.budgets.budgets(),
            };
            // A file that cannot be run is that file's ERROR; the others run.
            let results = files
                .iter()
                .map(|f| match f {
                    Ok(f) => {
                        let t = Instant::now();
                        let r = run_file(f, &options);
                        durations.push(t.elapsed().as_millis() as u64);
                        r
                    }
                    Err(e) => {
                        durations.push(0);
                        FileResult::unloadable(e.path(), &p.name, e.to_string())
                    }
                })
                .collect();
            (p.name.clone(), results)
        })
        .collect();
    let elapsed = started.elapsed();
    let time_end = epoch_ms(SystemTime::now());
    let wpt_root = args.wpt_root.as_deref();
    let first_file = files.iter().flatten().next().map(|f| f.path.as_str());
    let revision = report::wpt::wpt_revision(args.wpt_revision.as_deref(), wpt_root, first_file);
    if args.format == RunFormat::Wptreport && revision.is_none() {
        return Err(BadInput::NoWptRevision.into());
    }
    // Each profile's run_info, which metadata conditions read.
    let infos: Vec<report::metadata::RunInfo> = built
        .iter()
        .map(|p| report::wpt::run_info(p, revision.as_deref().unwrap_or("")))
        .collect();
    let by_info: Vec<(&report::metadata::RunInfo, &[FileResult])> = infos
        .iter()
        .zip(&runs)
        .map(|(info, (_, results))| (info, results.as_slice()))
        .collect();
    let checked = expectations
        .as_ref()
        .map(|m| metadata::check(&by_info, m, wpt_root, whole_suite));
    if let Some(dir) = &args.metadata_out {
        write_metadata(dir, &by_info, expectations.as_ref(), wpt_root)?;
    }
    let all_pass = match &checked {
        Some(c) => c.passed(),
        None => runs.iter().all(|(_, r)| r.iter().all(FileResult::passed)),
    };
    let mut output_spent = false;
    match args.format {
        RunFormat::Human => {
            for (_, results) in &runs {
                write!(
                    out,
                    "{}",
                    report::human(results, &args.profiles.sets, args.verbose)
                )?;
            }
            for (name, results) in &runs {
                let summary = report::summary(results);
                let switches = built
                    .iter()
                    .find(|p| &p.name == name)
                    .map(|p| p.differences_from_spec())
                    .unwrap_or_default();
                writeln!(
                    out,
                    "\nprofile {name}{}: {summary}",
                    if switches.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", switches.join(", "))
                    }
                )?;
            }
            if runs.len() > 1 {
                writeln!(
                    out,
                    "\nWhere the outcomes differ ({}):",
                    runs.iter()
                        .map(|r| r.0.as_str())
                        .collect::<Vec<_>>()
                        .join(" | ")
                )?;
                write!(out, "{}", report::differences(&runs))?;
            }
            if let (Some(c), Some(dir)) = (&checked, &args.metadata) {
                write!(out, "{}", c.human(&dir.display().to_string()))?;
            }
            writeln!(out, "({:.0} ms)", elapsed.as_secs_f64() * 1000.0)?;
        }
        RunFormat::Json => {
            let v: Vec<serde_json::Value> = runs
                .iter()
                .map(|(name, results)| serde_json::json!({"profile": name, "files": results}))
                .collect();
            out.json(&v)?;
        }
        RunFormat::Html => {
            if let Some(dir) = &html_out {
                let (written, left) =
                    write_html(dir, &runs, wpt_root, &args.profiles, args.max_output)?;
                writeln!(
                    out,
                    "wrote {} ({} pages)",
                    dir.join("index.html").display(),
                    written
                )?;
                if left > 0 {
                    warn(&format!(
                        "webmcp-ref: {left} timeline pages were not written: the pages reached --max-output ({} bytes); raise it with --max-output BYTES",
                        args.max_output
                    ));
                    output_spent = true;
                }
            }
        }
        RunFormat::Wptreport => {
            let ([(info, results)], [_]) = (by_info.as_slice(), runs.as_slice()) else {
                return Err(BadInput::WptreportOfSeveralProfiles.into());
            };
            let run = WptRun {
                info,
                time_start,
                time_end,
                durations: &durations,
                wpt_root,
                metadata: expectations.as_ref(),
            };
            out.json(&report::wptreport(results, &run))?;
        }
    }
    // A file that could not be run is bad input, whatever the others came to.
    if unloadable {
        return Ok(Exit::BadInput);
    }
    if output_spent
        || runs
            .iter()
            .any(|(_, r)| r.iter().any(FileResult::out_of_budget))
    {
        return Ok(Exit::Budget);
    }
    Ok(Exit::held_if(all_pass))
}

/// Writes the suite page and each subtest's timeline under `dir`, no more than `max_bytes` in
/// all; returns how many pages were written, and how many were not.
fn write_html(
    dir: &Path,
    runs: &[(String, Vec<FileResult>)],
    wpt_root: Option<&Path>,
    profiles: &ProfileArgs,
    max_bytes: u64,
) -> Result<(usize, usize), CliError> {
    let failed = |path: &Path, error: std::io::Error| BadInput::File {
        path: path.display().to_string(),
        error,
    };
    let Some((_, first)) = runs.first() else {
        return Ok((0, 0));
    };
    let ids: Vec<String> = first
        .iter()
        .map(|f| report::wpt::result_test_id(f, wpt_root))
        .collect();
    let mut pages = 0;
    let mut left = 0;
    let mut written: u64 = 0;
    for (fi, file) in first.iter().enumerate() {
        for (si, sub) in file.subtests.iter().enumerate() {
            if written >= max_bytes {
                left += 1;
                continue;
            }
            let subs: Vec<(String, &webmcp_ref::scenario::SubtestResult)> = runs
                .iter()
                .map(|(p, files)| (p.clone(), &files[fi].subtests[si]))
                .collect();
            let mut replay = report::replay_command(
                &file.path,
                &sub.name,
                &profiles.profile.join(","),
                &profiles.sets,
                &sub.schedule,
            );
            replay.push_str(" --format html");
            let page = report::html::timeline_page(&file.path, &subs, &replay);
            written = written.saturating_add(page.len() as u64);
            if written > max_bytes {
                left += 1;
                continue;
            }
            let path = dir.join(report::html::timeline_file(&ids[fi], si));
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| failed(parent, e))?;
            }
            std::fs::write(&path, page).map_err(|e| failed(&path, e))?;
            pages += 1;
        }
    }
    let command = format!(
        "webmcp-ref run --profile {} --format html",
        profiles.profile.join(",")
    );
    let index = report::html::suite_page(
        runs,
        &|fi, si| report::html::timeline_file(&ids[fi], si),
        &command,
    );
    std::fs::create_dir_all(dir).map_err(|e| failed(dir, e))?;
    let path = dir.join("index.html");
    std::fs::write(&path, index).map_err(|e| failed(&path, e))?;
    Ok((pages + 1, left))
}

/// Writes (or removes) each file's `.ini` under `dir`.
fn write_metadata(
    dir: &Path,
    runs: &[(&report::metadata::RunInfo, &[FileResult])],
    previous: Option<&Metadata>,
    wpt_root: Option<&Path>,
) -> Result<(), CliError> {
    let failed = |path: &Path, error: std::io::Error| BadInput::File {
        path: path.display().to_string(),
        error,
    };
    for (rel, text) in metadata::from_runs(runs, previous, wpt_root) {
        let path = dir.join(&rel);
        match text {
            Some(text) => {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| failed(parent, e))?;
                }
                std::fs::write(&path, text).map_err(|e| failed(&path, e))?;
            }
            None if path.exists() => std::fs::remove_file(&path).map_err(|e| failed(&path, e))?,
            None => {}
        }
    }
    Ok(())
}
