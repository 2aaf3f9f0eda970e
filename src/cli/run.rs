//! `webmcp-ref run`: scenario files under one or more profiles, one schedule each (the default
//! order, or a replayed token), with a report of what held; WPT expectation metadata out and
//! in.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use webmcp_ref::engine::profile::Profile;
use webmcp_ref::report::{self, metadata, metadata::Metadata, WptRun};
use webmcp_ref::scenario::{run_file, FileResult, RunOptions};
use webmcp_ref::Schedule;

use super::{load_all, BadInput, CliError, Exit, Format, Output, ProfileArgs};

#[derive(clap::Args)]
pub struct Args {
    /// Scenario files (`.scn`) or folders to run, every `.scn` file below a folder (default:
    /// the bundled wpt-mirror/).
    #[arg(value_name = "PATHS")]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    profiles: ProfileArgs,
    /// human: a line per file, details for each failure, a table of where several profiles'
    /// outcomes differ; json: every result; wptreport: what wptrunner writes (one profile).
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Only subtests whose name contains this.
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
    if args.format == Format::Wptreport && built.len() > 1 {
        return Err(BadInput::WptreportOfSeveralProfiles.into());
    }
    if args.metadata_out.is_some() && args.subtest.is_some() {
        return Err(BadInput::MetadataOfSomeSubtests.into());
    }
    let expectations = match &args.metadata {
        Some(dir) => Some(Metadata::read_dir(dir).map_err(BadInput::from)?),
        None => None,
    };
    let whole_suite = args.paths.is_empty() && args.subtest.is_none();
    let files = load_all(args.paths)?;
    let time_start = epoch_ms(SystemTime::now());
    let started = Instant::now();
    let mut durations = Vec::new();
    let runs: Vec<(String, Vec<FileResult>)> = built
        .iter()
        .map(|p| {
            let options = RunOptions {
                profile: p.clone(),
                schedule: schedule.clone(),
                trace: false,
                subtest: args.subtest.clone(),
            };
            let results = files
                .iter()
                .map(|f| {
                    let t = Instant::now();
                    let r = run_file(f, &options);
                    durations.push(t.elapsed().as_millis() as u64);
                    r
                })
                .collect();
            (p.name.clone(), results)
        })
        .collect();
    let elapsed = started.elapsed();
    let time_end = epoch_ms(SystemTime::now());
    let wpt_root = args.wpt_root.as_deref();
    let checked = expectations
        .as_ref()
        .map(|m| metadata::check(&runs, m, wpt_root, whole_suite));
    if let Some(dir) = &args.metadata_out {
        write_metadata(dir, &runs, expectations.as_ref(), wpt_root)?;
    }
    let all_pass = match &checked {
        Some(c) => c.passed(),
        None => runs.iter().all(|(_, r)| r.iter().all(FileResult::passed)),
    };
    match args.format {
        Format::Human => {
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
        Format::Json => {
            let v: Vec<serde_json::Value> = runs
                .iter()
                .map(|(name, results)| serde_json::json!({"profile": name, "files": results}))
                .collect();
            out.json(&v)?;
        }
        Format::Wptreport => {
            let [(name, results)] = runs.as_slice() else {
                return Err(BadInput::WptreportOfSeveralProfiles.into());
            };
            let switches = built
                .first()
                .map(|p| p.differences_from_spec())
                .unwrap_or_default();
            let run = WptRun {
                profile: name,
                switches: &switches,
                time_start,
                time_end,
                durations: &durations,
                wpt_root,
                metadata: expectations.as_ref(),
            };
            out.json(&report::wptreport(results, &run))?;
        }
    }
    Ok(Exit::held_if(all_pass))
}

/// Writes (or removes) each file's `.ini` under `dir`.
fn write_metadata(
    dir: &Path,
    runs: &[(String, Vec<FileResult>)],
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
