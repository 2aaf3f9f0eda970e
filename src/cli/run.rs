//! `webmcp-ref run`: scenario files under one or more profiles, one schedule each (the default
//! order, or a replayed token), with a report of what held.

use std::io::Write as _;
use std::path::PathBuf;

use webmcp_ref::engine::profile::Profile;
use webmcp_ref::report;
use webmcp_ref::scenario::{run_file, FileResult, RunOptions};
use webmcp_ref::Schedule;

use super::{load_each, warn, BadInput, CliError, Exit, Format, Output, ProfileArgs};

#[derive(clap::Args)]
#[command(after_help = super::exits::RUN)]
pub struct Args {
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
}

pub fn run(args: Args, out: &mut Output) -> Result<Exit, CliError> {
    let schedule = args
        .schedule
        .map(|s| s.parse::<Schedule>())
        .transpose()
        .map_err(BadInput::from)?;
    let built: Vec<Profile> = args.profiles.build()?;
    let files = load_each(args.paths)?;
    let unloadable = files.iter().any(Result::is_err);
    // Human output shows each on standard output; JSON and wptreport also say it on stderr.
    if args.format != Format::Human {
        for e in files.iter().filter_map(|f| f.as_ref().err()) {
            warn(&format!("webmcp-ref: {e}"));
        }
    }
    if let Some(name) = &args.subtest {
        let any = files
            .iter()
            .flatten()
            .flat_map(|f| &f.subtests)
            .any(|s| s.name.contains(name.as_str()));
        if !any {
            return Err(BadInput::NoSubtest(name.clone()).into());
        }
    }
    let started = std::time::Instant::now();
    let runs: Vec<(String, Vec<FileResult>)> = built
        .iter()
        .map(|p| {
            let options = RunOptions {
                profile: p.clone(),
                schedule: schedule.clone(),
                trace: false,
                subtest: args.subtest.clone(),
            };
            // A file that cannot be run is that file's ERROR; the others run.
            let results = files
                .iter()
                .map(|f| match f {
                    Ok(f) => run_file(f, &options),
                    Err(e) => FileResult::unloadable(e.path(), &p.name, e.to_string()),
                })
                .collect();
            (p.name.clone(), results)
        })
        .collect();
    let elapsed = started.elapsed();
    let all_pass = runs.iter().all(|(_, r)| r.iter().all(FileResult::passed));
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
            let diffs = built
                .first()
                .map(|p| p.differences_from_spec())
                .unwrap_or_default();
            out.json(&report::wptreport(results, name, &diffs))?;
        }
    }
    // A file that could not be run is bad input, whatever the others came to.
    if unloadable {
        return Ok(Exit::BadInput);
    }
    if runs
        .iter()
        .any(|(_, r)| r.iter().any(FileResult::out_of_budget))
    {
        return Ok(Exit::Budget);
    }
    Ok(Exit::held_if(all_pass))
}
