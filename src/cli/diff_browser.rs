//! `webmcp-ref diff-browser`: the scenarios exported and run in headless Chromium beside the
//! engine, compared subtest by subtest against the checked-in known differences.

use std::io::Write as _;
use std::path::PathBuf;

use webmcp_ref::browser::{self, DiffOptions, OutputFormat};

use super::{build_profile, load_all, BadInput, CliError, Exit, Format, Output};

#[derive(clap::Args)]
#[command(after_help = super::exits::DIFF_BROWSER)]
pub struct Args {
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
    #[arg(long, value_parser = super::seconds_up_to_an_hour)]
    timeout: Option<f64>,
    /// The margin each wait adds in real time, in milliseconds.
    #[arg(long, default_value_t = 100, value_parser = super::milliseconds_up_to_a_minute)]
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
}

pub fn run(args: Args, out: &mut Output) -> Result<Exit, CliError> {
    let options = DiffOptions {
        profile: build_profile(&args.profile, &args.sets)?,
        browser: args.browser,
        known: args
            .known
            .unwrap_or_else(browser::default_known_differences),
        timeout_seconds: args.timeout,
        margin_ms: args.margin_ms,
        keep: args.keep,
        progress: true,
        whole_suite: args.paths.is_empty(),
    };
    let files = load_all(args.paths)?;
    let run = browser::diff_browser(&files, &options).map_err(BadInput::from)?;
    let format = match args.format {
        Format::Human => OutputFormat::Human {
            verbose: args.verbose,
            suggest: args.suggest,
        },
        Format::Json => OutputFormat::Json,
        Format::Wptreport => OutputFormat::Wptreport,
    };
    write!(out, "{}", browser::report::render(&run, format))?;
    Ok(Exit::held_if(run.passed()))
}
