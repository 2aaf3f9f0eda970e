//! `webmcp-ref trace`: a scenario's subtests run with the step trace on, printed with the
//! schedule that produced it (see `report::trace`), or one subtest as a timeline page
//! (`report::html`) or a Markdown report for a spec issue (`report::markdown`).

use std::io::Write as _;
use std::path::PathBuf;

use clap::ValueEnum;
use webmcp_ref::engine::profile::Profile;
use webmcp_ref::export::issue_report::{markdown_report, Asked};
use webmcp_ref::host::budget::Budgets;
use webmcp_ref::report::{self, html};
use webmcp_ref::scenario::{
    picked_subtests, run_file, FileResult, RunOptions, ScenarioFile, SubtestResult,
};
use webmcp_ref::text::js_string::quoted;
use webmcp_ref::Schedule;

use super::{load_one, BadInput, BudgetArgs, CliError, Exit, Output, ProfileArgs};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum TraceFormat {
    /// The trace as a log.
    Human,
    /// One JSON object a line: a header, each entry, the result.
    Jsonl,
    /// One self-contained HTML page: the subtest's timeline under each profile.
    Html,
    /// A Markdown report to paste into a spec issue, with a mermaid sequence diagram.
    Markdown,
}

#[derive(clap::Args)]
#[command(after_help = super::exits::TRACE)]
pub struct Args {
    /// The scenario file (`.scn`) to trace.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The subtest named this, or, when none is, the subtests whose name contains it; html and
    /// markdown need it to pick one subtest when the file has several.
    #[arg(long)]
    subtest: Option<String>,
    #[command(flatten)]
    profiles: ProfileArgs,
    /// Replay a recorded schedule: the token a failure, `run` or `explore` printed (default:
    /// the default order).
    #[arg(long, value_name = "TOKEN")]
    schedule: Option<String>,
    /// human: the trace as a log; jsonl: one JSON object a line; html: a timeline page (with
    /// several profiles one above the other); markdown: a report for a spec issue.
    #[arg(long, value_enum, default_value = "human")]
    format: TraceFormat,
    #[command(flatten)]
    budgets: BudgetArgs,
    /// The playground's address, for the link a Markdown report carries (the scenario, the
    /// profiles and the subtest, in the link's fragment).
    #[arg(long, value_name = "URL", default_value = webmcp_ref::report::link::DEFAULT_BASE)]
    playground: String,
}

/// Runs `scenario` with the trace on under each profile.
pub fn traced_runs(
    scenario: &ScenarioFile,
    profiles: &[Profile],
    schedule: Option<Schedule>,
    subtest: Option<String>,
    budgets: Budgets,
) -> Vec<(String, FileResult)> {
    profiles
        .iter()
        .map(|p| {
            let options = RunOptions {
                profile: p.clone(),
                schedule: schedule.clone(),
                trace: true,
                subtest: subtest.clone(),
                budgets,
            };
            (p.name.clone(), run_file(scenario, &options))
        })
        .collect()
}

/// The command that prints this trace again, in another format.
fn command(args_file: &str, subtest: &str, profiles: &ProfileArgs, schedule: &str) -> String {
    report::replay_command(
        args_file,
        subtest,
        &profiles.profile.join(","),
        &profiles.sets,
        schedule,
    )
}

pub fn run(args: Args, out: &mut Output) -> Result<Exit, CliError> {
    let built = args.profiles.build()?;
    let schedule = args
        .schedule
        .clone()
        .map(|s| s.parse::<Schedule>())
        .transpose()
        .map_err(BadInput::from)?;
    let scenario = load_one(&args.file)?;
    let names: Vec<String> = scenario.subtests.iter().map(|s| quoted(&s.name)).collect();
    let picked: Vec<&str> = picked_subtests(&scenario, args.subtest.as_deref())
        .into_iter()
        .map(|s| s.name.as_str())
        .collect();
    if picked.is_empty() {
        return Err(BadInput::NoSubtestOfFile {
            file: args.file.display().to_string(),
            wanted: args.subtest.clone().unwrap_or_default(),
            names: names.join(", "),
        }
        .into());
    }
    let one_page = matches!(args.format, TraceFormat::Html | TraceFormat::Markdown);
    if one_page && picked.len() > 1 {
        return Err(BadInput::SeveralSubtests {
            file: args.file.display().to_string(),
            names: picked
                .iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", "),
        }
        .into());
    }
    let runs = traced_runs(
        &scenario,
        &built,
        schedule,
        args.subtest.clone(),
        args.budgets.budgets(),
    );
    let passed = runs.iter().all(|(_, r)| r.passed());
    match args.format {
        TraceFormat::Human | TraceFormat::Jsonl => {
            for (profile, result) in &runs {
                for sub in &result.subtests {
                    if args.format == TraceFormat::Human {
                        report::trace::write_human(out, &scenario.path, sub, profile)?;
                    } else {
                        report::trace::write_jsonl(out, &scenario.path, sub, profile)
                            .map_err(std::io::Error::from)?;
                    }
                }
            }
        }
        TraceFormat::Html => {
            let subs: Vec<(String, &SubtestResult)> = runs
                .iter()
                .filter_map(|(p, r)| r.subtests.first().map(|s| (p.clone(), s)))
                .collect();
            let schedule = subs
                .first()
                .map(|(_, s)| s.schedule.clone())
                .unwrap_or_default();
            let cmd = format!(
                "{} --format html",
                command(&scenario.path, picked[0], &args.profiles, &schedule)
            );
            write!(out, "{}", html::timeline_page(&scenario.path, &subs, &cmd))?;
        }
        TraceFormat::Markdown => {
            let text = webmcp_ref::text::file::read_text(
                &args.file,
                webmcp_ref::scenario::suite::MAX_FILE_BYTES,
                "a scenario file",
            )
            .map_err(BadInput::from)?;
            let asked = Asked {
                profiles: &args.profiles.profile,
                sets: &args.profiles.sets,
                playground: Some(&args.playground),
                intro: None,
            };
            let md = markdown_report(&scenario, &text, &built, &runs, &asked);
            write!(out, "{md}")?;
        }
    }
    if runs.iter().any(|(_, r)| r.out_of_budget()) {
        return Ok(Exit::Budget);
    }
    Ok(Exit::held_if(passed))
}
