//! `webmcp-ref diff-browser`: the scenarios exported and run in headless Chromium beside the
//! engine, compared subtest by subtest against the checked-in known differences.

use std::io::Write as _;
use std::path::PathBuf;

use webmcp_ref::browser::{self, DiffOptions, OutputFormat};

use super::{build_profile, load_all, BadInput, CliError, Exit, Output};

/// `--format` of diff-browser.
#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum DiffFormat {
    /// A table of every subtest, then each disagreement with both sides' reads and logs.
    Human,
    /// Every subtest's verdict, reads and logs, as one JSON document.
    Json,
    /// The browser's results, as wptrunner writes them.
    Wptreport,
    /// A table of the disagreements, each with the step of the text it concerns and why:
    /// under `--profile spec`, where the browser departs from the text (docs/).
    Markdown,
}

#[derive(clap::Args)]
#[command(after_help = super::exits::DIFF_BROWSER)]
pub struct Args {
    /// Scenario files (`.scn`) or folders to run in the browser, every `.scn` file below a
    /// folder (default: the bundled wpt-mirror/).
    #[arg(value_name = "PATHS")]
    paths: Vec<PathBuf>,
    /// The browser to run.
    #[arg(long, default_value = "/usr/bin/chromium")]
    browser: PathBuf,
    /// The engine's profile to compare with (and whose expectations the tests assert).
    #[arg(long, default_value = "chromium-156")]
    profile: String,
    /// Override one switch of the profile: `--set gettools-waits=yes`. Repeatable.
    #[arg(long = "set", value_name = "SWITCH=VALUE")]
    sets: Vec<String>,
    /// The known differences (default: browser-diff/PROFILE.txt in the current folder, else
    /// the profile's list built into the binary).
    #[arg(long)]
    known: Option<PathBuf>,
    /// How the report is written: for people, as JSON, as a wptreport, or as a Markdown table.
    #[arg(long, value_enum, default_value = "human")]
    format: DiffFormat,
    /// Run each file this many times in the browser: a difference that shows in some runs
    /// only is intermittent, and its rate is reported (for the list's `intermittent:`).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    repeat: u32,
    /// When a difference no entry of the list explains shows, run its file this many more
    /// times: one that shows in none of them did not reproduce and does not fail the check
    /// (it is reported, by name, as such); 0 fails on any unexplained difference at once.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=100))]
    confirm: u32,
    /// Seconds a file may run before its browser is killed and the file fails (default:
    /// the test's own harness timeout, plus 20 s).
    #[arg(long, value_parser = super::seconds_up_to_an_hour)]
    timeout: Option<f64>,
    /// How long, at most, each wait polls past its end for the page to be where the engine's
    /// run was (never past the next timer), in milliseconds.
    #[arg(long, default_value_t = 1000, value_parser = super::milliseconds_up_to_a_minute)]
    margin_ms: u64,
    /// The commit of the WPT tree the tests belong to, for `--format wptreport`'s `revision`
    /// (default: the commit of the git checkout holding the WPT root, else the commit
    /// webmcp-ref was built from).
    #[arg(long, value_name = "SHA", value_parser = super::revision)]
    wpt_revision: Option<String>,
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
    let profile = build_profile(&args.profile, &args.sets)?;
    let files = load_all(args.paths.clone())?;
    let revision = webmcp_ref::report::wpt::wpt_revision(
        args.wpt_revision.as_deref(),
        None,
        files.first().map(|f| f.path.as_str()),
    );
    if args.format == DiffFormat::Wptreport && revision.is_none() {
        return Err(BadInput::NoWptRevision.into());
    }
    let options = DiffOptions {
        revision: revision.unwrap_or_default(),
        known: args.known.map_or_else(
            || browser::default_known_differences(&profile.name),
            browser::KnownList::File,
        ),
        profile,
        browser: args.browser,
        repeat: args.repeat as usize,
        confirm: args.confirm as usize,
        timeout_seconds: args.timeout,
        margin_ms: args.margin_ms,
        keep: args.keep,
        progress: true,
        whole_suite: args.paths.is_empty(),
    };
    let run = browser::diff_browser(&files, &options).map_err(BadInput::from)?;
    let format = match args.format {
        DiffFormat::Human => OutputFormat::Human {
            verbose: args.verbose,
            suggest: args.suggest,
        },
        DiffFormat::Json => OutputFormat::Json,
        DiffFormat::Wptreport => OutputFormat::Wptreport,
        DiffFormat::Markdown => OutputFormat::Markdown,
    };
    write!(out, "{}", browser::report::render(&run, format))?;
    Ok(Exit::held_if(run.passed()))
}
