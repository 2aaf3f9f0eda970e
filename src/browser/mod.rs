//! The real-browser check (`webmcp-ref diff-browser`): export the scenarios as WPT tests, serve
//! them on loopback, run each file in headless Chromium with WebMCP enabled, and put each
//! subtest's result and log beside the engine's own for the same file under a profile.
//!
//! A subtest agrees when the browser's status is the engine's (the engine checks every
//! expectation of the scenario; the browser the ones a page can check) and, where the export
//! kept every line that changes the world, when the browser's log is one the engine permits:
//! one of the logs `explore` reaches on some schedule of the scenario (every schedule the spec
//! permits), so that an order the spec leaves open is not a disagreement. Every disagreement
//! must be listed, with its reason, in the known differences (see [`known`]); an entry that no
//! longer disagrees is stale and fails the run too.

pub mod chromium;
pub mod known;
pub mod report;
pub mod server;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::engine::profile::Profile;
use crate::explore::{explore_file, ExploreOptions, Progress};
use crate::export::{export_file, write_tree, ExportedFile, LeftOut};
use crate::scenario::runner::ExpectationResult;
use crate::scenario::{run_file, RunOptions, ScenarioFile};
use known::KnownDifference;

/// How to run the check.
#[derive(Clone, Debug)]
pub struct DiffOptions {
    /// The engine's profile, and the one whose expectations the exported tests assert.
    pub profile: Profile,
    pub browser: PathBuf,
    /// The known differences the run is checked against.
    pub known: KnownList,
    /// Seconds per file before its browser is killed (default: its harness timeout + 20 s).
    pub timeout_seconds: Option<f64>,
    /// The longest each real-time wait polls past its end, in milliseconds.
    pub margin_ms: u64,
    /// Keep the exported tests here instead of a temporary folder.
    pub keep: Option<PathBuf>,
    /// A line on stderr per file.
    pub progress: bool,
    /// The run covers the whole suite the list is about: an entry naming a file that is not in
    /// the run is stale. Otherwise entries of other files are not looked at.
    pub whole_suite: bool,
    /// How many times the browser runs each file: a subtest that differs in some runs only is
    /// intermittent, and the report gives its rate.
    pub repeat: usize,
    /// How many more times the browser runs a file in which a difference no list entry
    /// explains showed: a difference that shows in none of these runs did not reproduce, and
    /// is reported as such without failing the run (a load-dependent race in the browser, as
    /// wptrunner's reruns find unstable results); one that shows again fails it.
    pub confirm: usize,
    /// The commit of the WPT tree the tests belong to: the wptreport's `revision`.
    pub revision: String,
}

/// Where the known differences are read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KnownList {
    /// A file (`--known FILE`, or browser-diff/PROFILE.txt in the current folder).
    File(PathBuf),
    /// The list of this profile built into the binary (browser-diff/PROFILE.txt as built).
    BuiltIn(String),
}

impl From<PathBuf> for KnownList {
    fn from(path: PathBuf) -> Self {
        KnownList::File(path)
    }
}

impl KnownList {
    /// How reports name the list.
    pub fn name(&self) -> String {
        match self {
            KnownList::File(path) => path.display().to_string(),
            KnownList::BuiltIn(profile) => format!("browser-diff/{profile}.txt (built in)"),
        }
    }

    /// The list's text.
    pub fn read(&self) -> Result<String, DiffError> {
        match self {
            KnownList::File(path) => crate::text::file::read_text(
                path,
                crate::text::file::MAX_TEXT_BYTES,
                "a known-differences list",
            )
            .map_err(|e| DiffError::Io {
                path: path.display().to_string(),
                reason: e.reason(),
            }),
            KnownList::BuiltIn(profile) => crate::scenario::bundled::known_list(profile)
                .map(str::to_string)
                .ok_or_else(|| DiffError::NoKnownList {
                    profile: profile.clone(),
                    built_in: crate::scenario::bundled::known_list_profiles().join(", "),
                }),
        }
    }
}

/// The known-differences list of a profile: browser-diff/PROFILE.txt in the current folder
/// when there is one (a checkout, where the list is edited), else the one built in.
pub fn default_known_differences(profile: &str) -> KnownList {
    let here = PathBuf::from(format!("browser-diff/{profile}.txt"));
    if here.is_file() {
        return KnownList::File(here);
    }
    KnownList::BuiltIn(profile.to_string())
}

/// Why the check could not run.
#[derive(Debug, Error)]
pub enum DiffError {
    #[error("{0}")]
    Known(#[from] known::KnownError),
    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
    #[error("the browser: {0}")]
    Browser(#[from] chromium::VersionError),
    #[error("no known-differences list is built in for the `{profile}` profile (built in: {built_in}): give one with --known FILE")]
    NoKnownList { profile: String, built_in: String },
}

/// How output is rendered.
#[derive(Clone, Copy, Debug)]
pub enum OutputFormat {
    Human {
        verbose: bool,
        suggest: bool,
    },
    Json,
    Wptreport,
    /// The disagreements as a Markdown table, with each one's step and reason.
    Markdown,
}

/// The whole run.
#[derive(Debug, Serialize)]
pub struct DiffRun {
    /// The browser's version line.
    pub browser: String,
    pub profile: String,
    pub known_differences: String,
    pub margin_ms: u64,
    /// How many times the browser ran each file.
    pub repeat: usize,
    pub files: Vec<FileDiff>,
    /// Listed differences that no longer disagree (or name no subtest).
    pub stale: Vec<KnownDifference>,
    /// Wall time of the whole run, in seconds.
    pub seconds: f64,
    /// When the run started and ended, in milliseconds since the Unix epoch.
    pub time_start: u64,
    pub time_end: u64,
    /// The commit of the WPT tree the tests belong to.
    pub revision: String,
}

/// One file: the browser's run of its exported test, and each subtest compared.
#[derive(Debug, Serialize)]
pub struct FileDiff {
    pub source: String,
    pub test_path: String,
    /// The harness's status (OK, ERROR, TIMEOUT), or what happened to the browser (`KILLED`
    /// after the file's time, `CRASH`), or `NOT RUN` when nothing of the file was exported.
    pub harness: String,
    pub message: Option<String>,
    pub seconds: f64,
    pub subtests: Vec<SubtestDiff>,
}

/// One subtest, both sides.
#[derive(Debug, Serialize)]
pub struct SubtestDiff {
    pub name: String,
    pub line: u32,
    pub exported_name: Option<String>,
    pub left_out: Vec<LeftOut>,
    pub log_comparable: bool,
    pub engine: EngineSide,
    pub browser: Option<BrowserSide>,
    pub verdict: Verdict,
    /// What differs, in a line.
    pub difference: Option<String>,
    /// The listed known difference that explains it.
    pub known: Option<KnownDifference>,
    /// In how many of the browser's runs it differed (the run shown is the first that did).
    pub differed_runs: usize,
    /// An unexplained difference's confirmation: how many more runs the file had, and in how
    /// many of them the subtest differed again (`None` when it was not rerun).
    pub confirmation: Option<Confirmation>,
}

/// The reruns of a file that had an unexplained difference, for one subtest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Confirmation {
    pub reruns: usize,
    pub differed: usize,
}

impl SubtestDiff {
    /// An unexplained difference that showed again when its file was run again (or was not
    /// rerun): what fails the run.
    pub fn unexplained(&self) -> bool {
        self.verdict == Verdict::Differ
            && self.known.is_none()
            && self.confirmation.is_none_or(|c| c.differed > 0)
    }

    /// An unexplained difference that none of its file's reruns showed again.
    pub fn did_not_reproduce(&self) -> bool {
        self.verdict == Verdict::Differ
            && self.known.is_none()
            && self.confirmation.is_some_and(|c| c.differed == 0)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct EngineSide {
    pub status: String,
    pub log: Vec<String>,
    pub messages: Vec<String>,
    /// How many distinct logs the engine's schedules reach (the browser's must be one).
    pub permitted_logs: usize,
    /// The subtest's expectations under the profile, each with what it read.
    pub expectations: Vec<ExpectationResult>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BrowserSide {
    pub status: String,
    pub message: Option<String>,
    pub log: Vec<String>,
    pub checks: Vec<BrowserCheck>,
    pub uncaught: Vec<BrowserUncaught>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Agree,
    Differ,
    NotExported,
}

impl DiffRun {
    pub fn subtests(&self) -> impl Iterator<Item = (&FileDiff, &SubtestDiff)> {
        self.files
            .iter()
            .flat_map(|f| f.subtests.iter().map(move |s| (f, s)))
    }

    /// Every disagreement is listed or did not reproduce, and no listed one is stale.
    pub fn passed(&self) -> bool {
        self.stale.is_empty() && self.subtests().all(|(_, s)| !s.unexplained())
    }
}

// ---- what the page POSTs ------------------------------------------------------------------

#[derive(Debug, Deserialize)]
struct PageReport {
    status: String,
    message: Option<String>,
    tests: Vec<PageTest>,
    webmcp_ref: Option<HelperReport>,
}

#[derive(Debug, Deserialize)]
struct PageTest {
    name: String,
    status: String,
    message: Option<String>,
}

#[derive(Debug, Deserialize)]
struct HelperReport {
    subtests: Vec<HelperSubtest>,
}

#[derive(Debug, Deserialize)]
struct HelperSubtest {
    name: String,
    log: Vec<String>,
    checks: Vec<BrowserCheck>,
    uncaught: Vec<BrowserUncaught>,
}

/// One expectation as the browser checked it.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct BrowserCheck {
    pub line: u32,
    pub text: String,
    pub passed: bool,
    pub message: String,
    /// What the check read, as the engine words the same observation (`null` when the check
    /// failed before it could read anything).
    #[serde(default)]
    pub observed: Option<String>,
    #[serde(default)]
    pub sometimes: bool,
}

/// An exception a scenario script threw in the browser and nothing caught.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct BrowserUncaught {
    pub name: String,
    pub text: String,
    #[serde(default)]
    pub realm: String,
}

// ---- the run ------------------------------------------------------------------------------

/// A folder of our own under the system's temporary folder.
/// Now, in milliseconds since the Unix epoch (as a wptreport's times).
fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn scratch_dir() -> std::io::Result<PathBuf> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!(
        "webmcp-ref-diff-browser-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Runs the check on `files`.
pub fn diff_browser(files: &[ScenarioFile], options: &DiffOptions) -> Result<DiffRun, DiffError> {
    let started = Instant::now();
    let time_start = epoch_ms();
    let known_text = options.known.read()?;
    let known = known::parse(&options.known.name(), &known_text)?;
    let version = chromium::version(&options.browser)?;

    let exported: Vec<ExportedFile> = files
        .iter()
        .map(|f| export_file(f, &options.profile))
        .collect();
    let scratch = scratch_dir().map_err(|e| DiffError::Io {
        path: std::env::temp_dir().display().to_string(),
        reason: e.to_string(),
    })?;
    let root = options
        .keep
        .clone()
        .unwrap_or_else(|| scratch.join("tests"));
    write_tree(&exported, &root).map_err(|e| DiffError::Io {
        path: root.display().to_string(),
        reason: e.to_string(),
    })?;
    let (sender, receiver) = std::sync::mpsc::channel();
    let server = server::Server::start(root.clone(), sender).map_err(|e| DiffError::Io {
        path: "127.0.0.1 and 127.0.0.2".into(),
        reason: format!("cannot listen: {e}"),
    })?;

    let repeat = options.repeat.max(1);
    let mut diffs = Vec::new();
    for (i, (file, export)) in files.iter().zip(&exported).enumerate() {
        let engine = engine_side(file, &options.profile);
        let mut runs = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            let file_started = Instant::now();
            let (harness, message, page) =
                run_in_browser(export, options, &server, &scratch, &receiver);
            let seconds = file_started.elapsed().as_secs_f64();
            runs.push(compare_file(
                export, &engine, harness, message, page, seconds,
            ));
        }
        let mut diff = merge_runs(runs);
        // A difference no entry explains: the file runs again to see whether it reproduces.
        let unexplained = |d: &FileDiff| -> Vec<usize> {
            d.subtests
                .iter()
                .enumerate()
                .filter(|(_, s)| {
                    s.verdict == Verdict::Differ
                        && !known
                            .iter()
                            .any(|k| k.file == d.test_path && explains(k, s))
                })
                .map(|(i, _)| i)
                .collect()
        };
        let to_confirm = unexplained(&diff);
        if !to_confirm.is_empty() && options.confirm > 0 {
            let mut differed = vec![0usize; diff.subtests.len()];
            for _ in 0..options.confirm {
                let file_started = Instant::now();
                let (harness, message, page) =
                    run_in_browser(export, options, &server, &scratch, &receiver);
                let seconds = file_started.elapsed().as_secs_f64();
                let rerun = compare_file(export, &engine, harness, message, page, seconds);
                for &i in &to_confirm {
                    if rerun.subtests.get(i).map(|s| s.verdict) == Some(Verdict::Differ) {
                        differed[i] += 1;
                    }
                }
            }
            for &i in &to_confirm {
                diff.subtests[i].confirmation = Some(Confirmation {
                    reruns: options.confirm,
                    differed: differed[i],
                });
            }
        }
        if options.progress {
            let ran = diff.subtests.iter().filter(|s| s.browser.is_some()).count();
            let agree = diff
                .subtests
                .iter()
                .filter(|s| s.verdict == Verdict::Agree)
                .count();
            eprintln!(
                "[{}/{}] {}: {} ({ran} subtests ran, {agree} agree{}) {:.1} s",
                i + 1,
                files.len(),
                diff.test_path,
                diff.harness,
                if repeat > 1 {
                    format!(" in every one of {repeat} runs")
                } else {
                    String::new()
                },
                diff.seconds
            );
        }
        diffs.push(diff);
    }
    drop(server);
    // The browser profiles, and the exported tests unless they were to be kept elsewhere.
    let _ = std::fs::remove_dir_all(&scratch);

    let stale = match_known(&mut diffs, &known, options.whole_suite);
    Ok(DiffRun {
        browser: version,
        profile: options.profile.name.clone(),
        known_differences: options.known.name(),
        margin_ms: options.margin_ms,
        repeat,
        files: diffs,
        stale,
        seconds: started.elapsed().as_secs_f64(),
        time_start,
        time_end: epoch_ms(),
        revision: options.revision.clone(),
    })
}

/// The engine's run of a file, and every log each subtest reaches on some schedule.
/// One run of an exported file in the browser: the harness's status, its message, and the
/// page's report.
fn run_in_browser(
    export: &ExportedFile,
    options: &DiffOptions,
    server: &server::Server,
    scratch: &Path,
    receiver: &std::sync::mpsc::Receiver<server::Posted>,
) -> (String, Option<String>, Option<PageReport>) {
    if export.exported().next().is_none() {
        return (
            "NOT RUN".to_string(),
            Some("nothing of it is exported".into()),
            None,
        );
    }
    let url = format!(
        "{}/{}?webmcp-ref-margin={}",
        server.origin(),
        export.test_path,
        options.margin_ms.max(1)
    );
    let harness_timeout = if export.html.contains("content=\"long\"") {
        60.0
    } else {
        10.0
    };
    let timeout =
        Duration::from_secs_f64(options.timeout_seconds.unwrap_or(harness_timeout + 20.0));
    match chromium::run_page(&options.browser, &url, scratch, timeout, receiver) {
        // A subtest's name or message may hold a lone surrogate, which the page's
        // JSON.stringify writes as an escape that serde_json refuses (text::js_string).
        chromium::PageOutcome::Reported(body) => match serde_json::from_str::<PageReport>(
            &crate::text::js_string::unescape_lone_surrogates_in_json(&body),
        ) {
            Ok(r) => (r.status.clone(), r.message.clone(), Some(r)),
            Err(e) => (
                "ERROR".to_string(),
                Some(format!("the page's report does not parse: {e}")),
                None,
            ),
        },
        chromium::PageOutcome::TimedOut => (
            "KILLED".to_string(),
            Some(format!(
                "no result within {:.0} s: the browser was killed",
                timeout.as_secs_f64()
            )),
            None,
        ),
        chromium::PageOutcome::Failed(why) => ("CRASH".to_string(), Some(why), None),
    }
}

/// One file's repeated runs as one: each subtest as its first differing run shows it (or its
/// first run, when it never differed), with the number of runs it differed in.
fn merge_runs(mut runs: Vec<FileDiff>) -> FileDiff {
    let mut first = runs.remove(0);
    for s in first.subtests.iter_mut() {
        s.differed_runs = usize::from(s.verdict == Verdict::Differ);
    }
    for run in runs {
        first.seconds += run.seconds;
        for (mine, other) in first.subtests.iter_mut().zip(run.subtests) {
            if other.verdict != Verdict::Differ {
                continue;
            }
            let differed = mine.differed_runs + 1;
            if mine.verdict != Verdict::Differ {
                *mine = other;
            }
            mine.differed_runs = differed;
        }
    }
    first
}

fn engine_side(file: &ScenarioFile, profile: &Profile) -> EngineSides {
    let results = run_file(
        file,
        &RunOptions {
            profile: profile.clone(),
            ..RunOptions::default()
        },
    );
    let explorations = explore_file(
        file,
        &ExploreOptions {
            profile: profile.clone(),
            subtest: None,
            max_schedules: Some(100_000),
            max_seconds: Some(20.0),
            reduce: true,
            invariants: false,
            ..ExploreOptions::default()
        },
        &Progress::default(),
    );
    let mut out = BTreeMap::new();
    for sub in results.subtests {
        let log: Vec<String> = sub.log.iter().map(|l| l.text.clone()).collect();
        let mut permitted: BTreeSet<String> = explorations
            .iter()
            .filter(|e| e.subtest == sub.name && e.line == sub.line)
            .flat_map(|e| e.outcomes.iter())
            .filter_map(|o| {
                o.values
                    .iter()
                    .find(|(k, _)| k == "log")
                    .map(|(_, v)| v.clone())
            })
            .collect();
        permitted.insert(format!("{log:?}"));
        let mut messages: Vec<String> = sub
            .expectations
            .iter()
            .filter(|e| !e.passed && !e.sometimes)
            .map(|e| {
                format!(
                    "line {}: {}: expected {}, got {}",
                    e.line, e.text, e.expected, e.actual
                )
            })
            .collect();
        messages.extend(sub.messages.iter().cloned());
        let status = sub.status.name();
        out.insert(
            (sub.name.clone(), sub.line),
            (
                EngineSide {
                    status: status.into(),
                    log,
                    messages,
                    permitted_logs: permitted.len(),
                    expectations: sub.expectations.clone(),
                },
                permitted,
            ),
        );
    }
    out
}

/// The engine's side of each subtest of a file, by name and line, with the logs its schedules
/// reach.
type EngineSides = BTreeMap<(String, u32), (EngineSide, BTreeSet<String>)>;

fn compare_file(
    export: &ExportedFile,
    engine: &EngineSides,
    harness: String,
    message: Option<String>,
    page: Option<PageReport>,
    seconds: f64,
) -> FileDiff {
    let mut subtests = Vec::new();
    for sub in &export.subtests {
        let (engine_side, permitted) = engine
            .get(&(sub.name.clone(), sub.line))
            .cloned()
            .unwrap_or((
                EngineSide {
                    status: "ERROR".into(),
                    log: Vec::new(),
                    messages: vec!["the engine has no result for this subtest".into()],
                    permitted_logs: 0,
                    expectations: Vec::new(),
                },
                BTreeSet::new(),
            ));
        let browser = sub.exported_name.as_ref().map(|name| {
            let test = page
                .as_ref()
                .and_then(|p| p.tests.iter().find(|t| &t.name == name));
            let helper = page
                .as_ref()
                .and_then(|p| p.webmcp_ref.as_ref())
                .and_then(|h| h.subtests.iter().find(|s| s.name == sub.name));
            BrowserSide {
                status: test
                    .map(|t| t.status.clone())
                    .unwrap_or_else(|| "MISSING".into()),
                message: test.and_then(|t| t.message.clone()).or_else(|| {
                    test.is_none().then(|| {
                        format!(
                            "no result: the file's run ended {}",
                            match &message {
                                Some(m) => format!("with {harness} ({m})"),
                                None => format!("with {harness}"),
                            }
                        )
                    })
                }),
                log: helper.map(|h| h.log.clone()).unwrap_or_default(),
                checks: helper.map(|h| h.checks.clone()).unwrap_or_default(),
                uncaught: helper.map(|h| h.uncaught.clone()).unwrap_or_default(),
            }
        });
        let (verdict, difference) = match &browser {
            None => (Verdict::NotExported, None),
            Some(b) => {
                let left_out: BTreeSet<u32> = sub.left_out.iter().map(|l| l.line).collect();
                let found = differences(&engine_side, b, &permitted, sub.log_comparable, &left_out);
                if found.is_empty() {
                    (Verdict::Agree, None)
                } else {
                    (Verdict::Differ, Some(found.join("\n")))
                }
            }
        };
        subtests.push(SubtestDiff {
            name: sub.name.clone(),
            line: sub.line,
            exported_name: sub.exported_name.clone(),
            left_out: sub.left_out.clone(),
            log_comparable: sub.log_comparable,
            engine: engine_side,
            browser,
            verdict,
            difference,
            known: None,
            differed_runs: 0,
            confirmation: None,
        });
    }
    FileDiff {
        source: export.source.clone(),
        test_path: export.test_path.clone(),
        harness,
        message,
        seconds,
        subtests,
    }
}

/// What differs between the engine's run of a subtest and the browser's, a line each; none
/// when they agree. A subtest agrees only when both sides ended the same way and every
/// expectation read the same thing on both (so two failures for different reasons differ).
/// A log that differs from the engine's default schedule agrees when another schedule the
/// text permits reaches it; an `expect sometimes` is about what some schedule does, and is
/// not compared; an expectation the export left out (`left_out`: its lines) is not either.
fn differences(
    engine: &EngineSide,
    browser: &BrowserSide,
    permitted: &BTreeSet<String>,
    log_comparable: bool,
    left_out: &BTreeSet<u32>,
) -> Vec<String> {
    let mut out = Vec::new();
    let not_run = |status: &str| status == "PRECONDITION_FAILED";
    if not_run(&engine.status) || not_run(&browser.status) {
        if engine.status != browser.status {
            out.push(format!(
                "status: engine {}, chromium {}",
                engine.status, browser.status
            ));
        }
        return out;
    }
    let browser_log_permitted = permitted.contains(&format!("{:?}", browser.log));
    for e in engine
        .expectations
        .iter()
        .filter(|e| !e.sometimes && e.observed.is_some() && !left_out.contains(&e.line))
    {
        let engine_saw = e.observed.as_deref().unwrap_or_default();
        // The log's expectations read the whole log: another permitted schedule's log agrees.
        let about_the_log = {
            let t = e.text.trim_start();
            t.starts_with("expect log ==") || t.starts_with("expect log in")
        };
        match browser.checks.iter().find(|c| c.line == e.line) {
            None => out.push(format!(
                "line {}: {}: not checked in Chromium (engine read {engine_saw})",
                e.line,
                e.text.trim()
            )),
            Some(c) if c.observed.as_deref() == Some(engine_saw) => {}
            Some(_) if about_the_log && browser_log_permitted => {}
            Some(c) => out.push(format!(
                "line {}: {}: engine read {engine_saw}, chromium read {}",
                e.line,
                e.text.trim(),
                match &c.observed {
                    Some(o) => o.clone(),
                    None => format!("nothing ({})", c.message),
                }
            )),
        }
    }
    // An uncaught exception, a harness error, a time-out: the way the subtest ended.
    let engine_passed = engine.status == "PASS";
    let browser_passed = browser.status == "PASS";
    if out.is_empty() && engine_passed != browser_passed {
        out.push(format!(
            "status: engine {}, chromium {}",
            engine.status, browser.status
        ));
    }
    if log_comparable && !browser_log_permitted {
        out.push(format!(
            "log: chromium's log is not one the engine reaches on any schedule ({} permitted)",
            permitted.len()
        ));
    }
    out
}

/// The text a known difference's `message:` must be found in: the browser's messages, its
/// failed checks, its uncaught exceptions, its log, and the engine's messages.
fn evidence(s: &SubtestDiff) -> String {
    let mut text = String::new();
    if let Some(b) = &s.browser {
        if let Some(m) = &b.message {
            text.push_str(m);
            text.push('\n');
        }
        for c in &b.checks {
            if !c.passed {
                text.push_str(&format!("line {}: {}: {}\n", c.line, c.text, c.message));
            }
        }
        for u in &b.uncaught {
            text.push_str(&u.text);
            text.push('\n');
        }
        for l in &b.log {
            text.push_str(l);
            text.push('\n');
        }
    }
    if let Some(d) = &s.difference {
        text.push_str(d);
        text.push('\n');
    }
    for m in &s.engine.messages {
        text.push_str(m);
        text.push('\n');
    }
    text
}

/// Whether a listed difference (already matched by file and subtest name) explains this
/// disagreement: its `message:`, if it has one, is in the evidence.
fn explains(k: &KnownDifference, s: &SubtestDiff) -> bool {
    k.subtest == s.name
        && k.message
            .as_ref()
            .is_none_or(|m| evidence(s).contains(m.as_str()))
}

/// Attaches each listed difference to the disagreement it explains; returns the stale ones.
fn match_known(
    diffs: &mut [FileDiff],
    known: &[KnownDifference],
    whole_suite: bool,
) -> Vec<KnownDifference> {
    let mut stale = Vec::new();
    for k in known {
        if !whole_suite && !diffs.iter().any(|f| f.test_path == k.file) {
            continue;
        }
        let found = diffs
            .iter_mut()
            .filter(|f| f.test_path == k.file)
            .flat_map(|f| f.subtests.iter_mut())
            .find(|s| s.name == k.subtest);
        match found {
            Some(s) if s.verdict == Verdict::Differ && explains(k, s) => {
                s.known = Some(k.clone());
            }
            // An intermittent difference that did not show this time.
            Some(s) if k.intermittent.is_some() && s.verdict == Verdict::Agree => {}
            _ => stale.push(k.clone()),
        }
    }
    stale
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subtest(name: &str, verdict: Verdict, confirmation: Option<Confirmation>) -> SubtestDiff {
        SubtestDiff {
            name: name.into(),
            line: 3,
            exported_name: Some(name.into()),
            left_out: Vec::new(),
            log_comparable: true,
            engine: EngineSide {
                status: "PASS".into(),
                log: Vec::new(),
                messages: Vec::new(),
                permitted_logs: 1,
                expectations: Vec::new(),
            },
            browser: Some(BrowserSide {
                status: "FAIL".into(),
                message: None,
                log: Vec::new(),
                checks: Vec::new(),
                uncaught: Vec::new(),
            }),
            verdict,
            difference: Some("status: engine PASS, chromium FAIL".into()),
            known: None,
            differed_runs: 1,
            confirmation,
        }
    }

    fn run(subtests: Vec<SubtestDiff>) -> DiffRun {
        DiffRun {
            browser: "Chromium 156".into(),
            profile: "chromium-156".into(),
            known_differences: "k.txt".into(),
            margin_ms: 100,
            repeat: 1,
            files: vec![FileDiff {
                source: "a.scn".into(),
                test_path: "webmcp/a.html".into(),
                harness: "OK".into(),
                message: None,
                seconds: 1.0,
                subtests,
            }],
            stale: Vec::new(),
            seconds: 1.0,
            time_start: 0,
            time_end: 0,
            revision: String::new(),
        }
    }

    #[test]
    fn an_unexplained_difference_that_does_not_show_again_is_reported_but_does_not_fail() {
        let gone = Confirmation {
            reruns: 2,
            differed: 0,
        };
        let r = run(vec![subtest("racy", Verdict::Differ, Some(gone))]);
        assert!(r.passed());
        let human = report::render(
            &r,
            OutputFormat::Human {
                verbose: false,
                suggest: false,
            },
        );
        assert!(human.contains("did not reproduce in 2 reruns"), "{human}");
        assert!(
            human.contains("did not show again when their file was rerun:\n    webmcp/a.html :: \"racy\" (line 3)"),
            "{human}"
        );
        assert!(
            human.contains("0 unexplained, 1 did not reproduce"),
            "{human}"
        );
        assert!(human.contains("Every disagreement that reproduced is a known difference."));
    }

    #[test]
    fn an_unexplained_difference_fails_when_it_shows_again_or_was_not_rerun() {
        let again = Confirmation {
            reruns: 2,
            differed: 1,
        };
        for confirmation in [Some(again), None] {
            let r = run(vec![
                subtest("steady", Verdict::Differ, confirmation),
                subtest("fine", Verdict::Agree, None),
            ]);
            assert!(!r.passed());
            let human = report::render(
                &r,
                OutputFormat::Human {
                    verbose: false,
                    suggest: false,
                },
            );
            assert!(
                human.contains("Unexplained disagreements (add them to the known differences, or fix the engine):\n    webmcp/a.html :: \"steady\" (line 3): status: engine PASS, chromium FAIL"),
                "{human}"
            );
            assert!(human.contains("1 unexplained"), "{human}");
            assert!(human.ends_with(
                "FAILED: a disagreement is unexplained or a known difference is stale.\n"
            ));
        }
    }

    #[test]
    fn a_listed_difference_is_not_unexplained_whatever_its_reruns() {
        let mut s = subtest("listed", Verdict::Differ, None);
        s.known = Some(KnownDifference {
            file: "webmcp/a.html".into(),
            subtest: "listed".into(),
            right: known::Right::Engine,
            why: "w".into(),
            message: None,
            intermittent: None,
            step: None,
            line: 1,
        });
        assert!(!s.unexplained() && !s.did_not_reproduce());
        assert!(run(vec![s]).passed());
    }
}
