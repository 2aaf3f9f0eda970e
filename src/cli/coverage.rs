//! `webmcp-ref coverage`: which (algorithm, step) pairs the scenarios reach under the profiles,
//! and which they never do.

use std::io::Write as _;
use std::path::PathBuf;

use webmcp_ref::engine::profile::{Profile, NAMED_PROFILES};
use webmcp_ref::engine::trace::Coverage;
use webmcp_ref::report;
use webmcp_ref::scenario::{run_file, RunOptions};

use super::{
    build_profile, load_each, loaded_reporting_errors, warn, CliError, Exit, Output, SimpleFormat,
};

#[derive(clap::Args)]
#[command(after_help = super::exits::COVERAGE)]
pub struct Args {
    /// Scenario files (`.scn`) or folders whose coverage to take, every `.scn` file below a
    /// folder (default: the bundled wpt-mirror/).
    #[arg(value_name = "PATHS")]
    paths: Vec<PathBuf>,
    /// Profiles to run, comma-separated (default: every named profile).
    #[arg(long, value_delimiter = ',')]
    profile: Vec<String>,
    /// Override one switch of every profile run: `--set gettools-waits=yes`. Repeatable.
    #[arg(long = "set", value_name = "SWITCH=VALUE")]
    sets: Vec<String>,
    /// human: each algorithm's steps reached and never reached; json: the same, per step.
    #[arg(long, value_enum, default_value = "human")]
    format: SimpleFormat,
    /// Exit 1 unless every step of the readiness algorithms, registerTool and unregister
    /// is reached.
    #[arg(long)]
    require_full: bool,
}

pub fn run(args: Args, out: &mut Output) -> Result<Exit, CliError> {
    let names: Vec<String> = if args.profile.is_empty() {
        NAMED_PROFILES.iter().map(|p| p.name.to_string()).collect()
    } else {
        args.profile
    };
    let built: Vec<Profile> = names
        .iter()
        .map(|p| build_profile(p, &args.sets))
        .collect::<Result<_, _>>()?;
    // A file that cannot be read or parsed is said on stderr; the others go on.
    let (files, unloadable) = loaded_reporting_errors(load_each(args.paths)?);
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
    match args.format {
        SimpleFormat::Human => {
            writeln!(
                out,
                "coverage of {} scenario files under {}:\n",
                files.len(),
                names.join(", ")
            )?;
            write!(out, "{}", report::coverage_human(&coverage))?;
        }
        SimpleFormat::Json => out.json(&report::coverage_json(&coverage))?,
    }
    if unloadable {
        return Ok(Exit::BadInput);
    }
    let missing = report::missing_required(&coverage);
    if args.require_full && !missing.is_empty() {
        warn(&format!(
            "required steps never reached: {}",
            missing.join(", ")
        ));
        return Ok(Exit::Failed);
    }
    Ok(Exit::Held)
}
