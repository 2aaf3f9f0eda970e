//! `webmcp-ref trace`: a scenario's subtests run with the step trace on, printed with the
//! schedule that produced it (see `report::trace` for what is printed).

use std::io::Write as _;
use std::path::PathBuf;

use clap::ValueEnum;
use webmcp_ref::report;
use webmcp_ref::scenario::{run_file, RunOptions};
use webmcp_ref::Schedule;

use super::{build_profile, load_one, BadInput, CliError, Exit, Output};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum TraceFormat {
    Human,
    Jsonl,
}

#[derive(clap::Args)]
#[command(after_help = super::exits::TRACE)]
pub struct Args {
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
}

pub fn run(args: Args, out: &mut Output) -> Result<Exit, CliError> {
    let profile = build_profile(&args.profile, &args.sets)?;
    let schedule = args
        .schedule
        .map(|s| s.parse::<Schedule>())
        .transpose()
        .map_err(BadInput::from)?;
    let scenario = load_one(&args.file)?;
    if let Some(name) = &args.subtest {
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
            return Err(BadInput::NoSubtestOfFile {
                file: args.file.display().to_string(),
                wanted: name.clone(),
                names: names.join(", "),
            }
            .into());
        }
    }
    let options = RunOptions {
        profile: profile.clone(),
        schedule,
        trace: true,
        subtest: args.subtest,
    };
    let result = run_file(&scenario, &options);
    for sub in &result.subtests {
        match args.format {
            TraceFormat::Human => {
                write!(
                    out,
                    "{}",
                    report::trace::human(&scenario.path, sub, &profile.name)
                )?;
            }
            TraceFormat::Jsonl => {
                let lines = report::trace::jsonl(&scenario.path, sub, &profile.name)
                    .map_err(std::io::Error::from)?;
                write!(out, "{lines}")?;
            }
        }
    }
    if result.out_of_budget() {
        return Ok(Exit::Budget);
    }
    Ok(Exit::held_if(result.passed()))
}
