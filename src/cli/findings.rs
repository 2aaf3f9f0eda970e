//! `webmcp-ref findings`: the Markdown report of each finding in docs/findings/findings.txt
//! (the README's "What running the text shows"), written beside it, or checked to be current.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use webmcp_ref::scenario::parse_file;
use webmcp_ref::text::js_string::quoted;
use webmcp_ref::Schedule;

use super::trace::traced_runs;
use super::{BadInput, CliError, Exit, Output, ProfileArgs};
use webmcp_ref::export::issue_report::{markdown_report, Asked};
use webmcp_ref::text::file::{read_text, MAX_TEXT_BYTES};

#[derive(clap::Args)]
pub struct Args {
    /// The list of findings: a `finding NAME` line each, then its `file:`, `subtest:`,
    /// `profiles:`, optional `set:` and `schedule:`, and `says:` (the files are named from the
    /// folder two above the list's, the repository's root for docs/findings/findings.txt).
    #[arg(
        long,
        value_name = "FILE",
        default_value = "docs/findings/findings.txt"
    )]
    list: PathBuf,
    /// Write nothing: exit 1 when a report is missing, differs from what would be written, or
    /// names no finding of the list (what CI runs).
    #[arg(long)]
    check: bool,
}

/// One finding of the list.
struct Finding {
    name: String,
    line: usize,
    file: String,
    subtest: String,
    profiles: Vec<String>,
    sets: Vec<String>,
    schedule: Option<String>,
    says: String,
}

fn parse_list(path: &Path, text: &str) -> Result<Vec<Finding>, BadInput> {
    let err = |line: usize, message: String| BadInput::FindingsList {
        path: path.display().to_string(),
        line: line + 1,
        message,
    };
    let mut out: Vec<Finding> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if let Some(name) = raw.strip_prefix("finding ") {
            let name = name.trim();
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                return Err(err(
                    i,
                    format!("a finding's name is letters, digits and -: {name:?}"),
                ));
            }
            if out.iter().any(|f| f.name == name) {
                return Err(err(i, format!("finding {name} is listed twice")));
            }
            out.push(Finding {
                name: name.into(),
                line: i,
                file: String::new(),
                subtest: String::new(),
                profiles: Vec::new(),
                sets: Vec::new(),
                schedule: None,
                says: String::new(),
            });
            continue;
        }
        let Some(f) = out.last_mut() else {
            return Err(err(i, "the list starts with a `finding NAME` line".into()));
        };
        let Some((key, value)) = l.split_once(':') else {
            return Err(err(i, format!("expected `key: value`, found {l:?}")));
        };
        let value = value.trim().to_string();
        match key {
            "file" => f.file = value,
            "subtest" => f.subtest = value,
            "profiles" => f.profiles = value.split(',').map(|p| p.trim().to_string()).collect(),
            "set" => f.sets.push(value),
            "schedule" => f.schedule = Some(value),
            "says" => f.says = value,
            other => return Err(err(i, format!("unknown key `{other}`"))),
        }
    }
    for f in &out {
        for (what, empty) in [
            ("file", f.file.is_empty()),
            ("subtest", f.subtest.is_empty()),
            ("profiles", f.profiles.is_empty()),
            ("says", f.says.is_empty()),
        ] {
            if empty {
                return Err(err(f.line, format!("finding {} has no `{what}:`", f.name)));
            }
        }
    }
    Ok(out)
}

/// Each finding's report, and the index, as (file name, text).
fn reports(list: &Path) -> Result<Vec<(String, String)>, CliError> {
    let text = read_text(list, MAX_TEXT_BYTES, "a findings list").map_err(BadInput::from)?;
    let findings = parse_list(list, &text)?;
    let root = list
        .parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .unwrap_or(Path::new(""));
    let mut out = Vec::new();
    let mut index = String::from(
        "# What running the text shows\n\nOne report per finding of the README's \"What running the text shows\": the subtest that shows it, its outcome under each profile, a sequence diagram of the run, the command that replays it, and the exported WPT test. Written by `webmcp-ref findings` from [findings.txt](findings.txt); `.ci/run` checks that they are current (`webmcp-ref findings --check`).\n\n",
    );
    for f in &findings {
        let path = root.join(&f.file);
        let source = read_text(&path, MAX_TEXT_BYTES, "a scenario file").map_err(BadInput::from)?;
        // Named as the list names it, so that the report does not depend on where it is run.
        let scenario = parse_file(&f.file, &source).map_err(|e| {
            BadInput::Scenarios(vec![webmcp_ref::scenario::suite::LoadError::from(e)])
        })?;
        let matching: Vec<&str> = scenario
            .subtests
            .iter()
            .filter(|s| s.name == f.subtest)
            .map(|s| s.name.as_str())
            .collect();
        if matching.len() != 1 {
            return Err(BadInput::NoSubtestOfFile {
                file: f.file.clone(),
                wanted: f.subtest.clone(),
                names: scenario
                    .subtests
                    .iter()
                    .map(|s| quoted(&s.name))
                    .collect::<Vec<_>>()
                    .join(", "),
            }
            .into());
        }
        let profiles = ProfileArgs {
            profile: f.profiles.clone(),
            sets: f.sets.clone(),
        };
        let built = profiles.build()?;
        let schedule = f
            .schedule
            .as_ref()
            .map(|s| s.parse::<Schedule>())
            .transpose()
            .map_err(BadInput::from)?;
        // The exact name: a subtest whose name another's contains is not picked by accident.
        let mut runs = traced_runs(
            &scenario,
            &built,
            schedule,
            Some(f.subtest.clone()),
            Default::default(),
        );
        for (_, r) in &mut runs {
            r.subtests.retain(|s| s.name == f.subtest);
        }
        let intro = format!("**What running the text shows:** {}", f.says);
        let asked = Asked {
            profiles: &profiles.profile,
            sets: &profiles.sets,
            playground: Some(webmcp_ref::report::link::DEFAULT_BASE),
            intro: Some(&intro),
        };
        let md = markdown_report(&scenario, &source, &built, &runs, &asked);
        let file = format!("{}.md", f.name);
        let _ = std::fmt::Write::write_fmt(
            &mut index,
            format_args!("- [{}]({file}): {}\n", f.name, f.says),
        );
        out.push((file, md));
    }
    out.push(("README.md".into(), index));
    Ok(out)
}

pub fn run(args: Args, out: &mut Output) -> Result<Exit, CliError> {
    let dir = args
        .list
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let written = reports(&args.list)?;
    if !args.check {
        for (name, text) in &written {
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(|error| BadInput::File {
                path: path.display().to_string(),
                error,
            })?;
        }
        writeln!(
            out,
            "wrote {} reports and the index in {}",
            written.len() - 1,
            dir.display()
        )?;
        return Ok(Exit::Held);
    }
    let mut stale = Vec::new();
    for (name, text) in &written {
        let path = dir.join(name);
        match std::fs::read_to_string(&path) {
            Ok(t) if t == *text => {}
            Ok(_) => stale.push(format!(
                "{} differs from what `webmcp-ref findings` writes",
                path.display()
            )),
            Err(_) => stale.push(format!("{} is missing", path.display())),
        }
    }
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") && !written.iter().any(|(n, _)| *n == name) {
                stale.push(format!(
                    "{} names no finding of {}",
                    e.path().display(),
                    args.list.display()
                ));
            }
        }
    }
    if stale.is_empty() {
        writeln!(
            out,
            "{} reports in {} are current",
            written.len() - 1,
            dir.display()
        )?;
        return Ok(Exit::Held);
    }
    for s in &stale {
        writeln!(out, "{s}")?;
    }
    writeln!(out, "(`webmcp-ref findings` writes them anew)")?;
    Ok(Exit::Failed)
}
