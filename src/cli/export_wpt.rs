//! `webmcp-ref export-wpt`: scenario files written as WPT testharness.js tests, laid out as in
//! WPT, with the resources their tests load.

use std::io::Write as _;
use std::path::PathBuf;

use webmcp_ref::browser::report::export_summary;
use webmcp_ref::export::{export_file_under, write_tree, ExportedFile};

use super::{
    build_profile, load_each, loaded_reporting_errors, BadInput, CliError, Exit, Output,
    SimpleFormat,
};

#[derive(clap::Args)]
#[command(after_help = super::exits::EXPORT_WPT)]
pub struct Args {
    /// Scenario files (`.scn`) or folders to export (default: the bundled wpt-mirror/).
    #[arg(value_name = "PATHS")]
    paths: Vec<PathBuf>,
    /// The folder to write into (created if missing): each test at its WPT path below it.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The profile whose expectations the tests assert.
    #[arg(long, default_value = "spec")]
    profile: String,
    /// Override one switch of the profile: `--set gettools-waits=yes`. Repeatable.
    #[arg(long = "set", value_name = "SWITCH=VALUE")]
    sets: Vec<String>,
    /// The folder WPT paths are relative to: a WPT checkout's root (default: the nearest
    /// folder above each file that holds a webmcp/ folder).
    #[arg(long, value_name = "DIR")]
    wpt_root: Option<PathBuf>,
    /// human: what was written and left out; json: the same, per file and subtest.
    #[arg(long, value_enum, default_value = "human")]
    format: SimpleFormat,
}

pub fn run(args: Args, out: &mut Output) -> Result<Exit, CliError> {
    let profile = build_profile(&args.profile, &args.sets)?;
    // A file that cannot be read or parsed is said on stderr; the others go on.
    let (files, unloadable) = loaded_reporting_errors(load_each(args.paths)?);
    let exported: Vec<ExportedFile> = files
        .iter()
        .map(|f| export_file_under(f, &profile, args.wpt_root.as_deref()))
        .collect();
    write_tree(&exported, &args.out).map_err(|error| BadInput::ExportFolder {
        out: args.out.display().to_string(),
        error,
    })?;
    match args.format {
        SimpleFormat::Human => write!(out, "{}", export_summary(&exported, &args.out))?,
        SimpleFormat::Json => out.json(&exported)?,
    }
    if unloadable {
        return Ok(Exit::BadInput);
    }
    Ok(Exit::Held)
}
