//! The command line: one module per command, each with its arguments and what it does; here
//! what they share (profiles and formats, loading scenario files, the exit statuses, bad input,
//! and the standard output they write to).

pub mod coverage;
pub mod diff_browser;
pub mod explore;
pub mod export_wpt;
pub mod findings;
pub mod playground;
pub mod profiles;
pub mod run;
pub mod serve;
pub mod spec_check;
pub mod trace;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use thiserror::Error;

use webmcp_ref::browser::DiffError;
use webmcp_ref::engine::profile::{Profile, ProfileError};
use webmcp_ref::engine::schedule::ScheduleError;
use webmcp_ref::gateway::server::TransportError;
use webmcp_ref::gateway::ServeError;
use webmcp_ref::host::budget::Budgets;
use webmcp_ref::scenario::suite::{bundled_mirror, discover_all, load, LoadError};
use webmcp_ref::scenario::ScenarioFile;

#[derive(Parser)]
#[command(
    name = "webmcp-ref",
    version,
    about = "An executable reference engine for the W3C WebMCP specification: runs WPT-style scenarios and says what happened and why.",
    after_help = "Exit status: 0 everything held, 1 an expectation failed, 2 bad input, 3 a budget stopped it (each command's --help says which it uses and when)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run scenario files or folders (default: the bundled wpt-mirror/), and report what held:
    /// as text, JSON, wptreport, or HTML pages with each subtest's timeline; write or check
    /// WPT expectation metadata (.ini).
    Run(run::Args),
    /// Print the step trace of a scenario's subtests, with the schedule that produced it; or
    /// one subtest's timeline (HTML) or a report of it for a spec issue (Markdown).
    Trace(trace::Args),
    /// Which (algorithm, step) pairs the scenarios reach, and which they never do.
    Coverage(coverage::Args),
    /// Run every schedule the spec permits at the choice points, and check every expectation
    /// (and the invariants) on each; each distinct outcome with the token that replays it.
    Explore(explore::Args),
    /// Serve a subtest's simulated pages to agents over MCP (stdin/stdout, or streamable HTTP
    /// with --http; protocol versions 2025-11-25 and 2026-07-28): the tools webmcp_observe,
    /// webmcp_call and webmcp_wait_for, and every page tool as pageP.toolN (page P's Nth
    /// tool), its arguments checked against the inputSchema it is listed with.
    Serve(serve::Args),
    /// The named profiles and every switch, with its values and where it comes from.
    Profiles(profiles::Args),
    /// Compare a Bikeshed source of the WebMCP text (its index.bs) with the engine's
    /// algorithm tables and with the digest of the text the engine last matched, and name the
    /// subtests that reach each step that changed. Exit 0 when there is nothing to say, 1 with
    /// findings, 2 on bad input.
    SpecCheck(spec_check::Args),
    /// Write scenario files as WPT testharness.js tests (.https.html, one promise_test per
    /// subtest), laid out as in WPT, each folder with the resources/ its tests load.
    ExportWpt(export_wpt::Args),
    /// Export the scenarios, run each in headless Chromium (WebMCP enabled, real time) and
    /// compare every subtest's result and log with the engine's under a profile. Exit 0 only
    /// when every disagreement is a listed known difference and no listed one is stale.
    DiffBrowser(diff_browser::Args),
    /// Write the Markdown report of each finding listed in docs/findings/findings.txt (the
    /// README's "What running the text shows") beside the list, or check that they are
    /// current (--check).
    Findings(findings::Args),
    /// Write the playground (the engine built for WebAssembly, in a page that edits, runs,
    /// explores and draws scenarios, with links that carry them) into a folder, and serve it on
    /// loopback with --serve. Built from a checkout: it needs the wasm32-unknown-unknown
    /// target and the wasm-bindgen CLI.
    Playground(playground::Args),
}

/// Parses the command line, runs the command, and says how it went.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let mut out = Output::stdout();
    let done = match cli.command {
        Command::Run(args) => run::run(args, &mut out),
        Command::Trace(args) => trace::run(args, &mut out),
        Command::Coverage(args) => coverage::run(args, &mut out),
        Command::Explore(args) => explore::run(args, &mut out),
        // stdout is the MCP transport.
        Command::Serve(args) => serve::run(args),
        Command::Profiles(args) => profiles::run(args, &mut out),
        Command::SpecCheck(args) => spec_check::run(args, &mut out),
        Command::ExportWpt(args) => export_wpt::run(args, &mut out),
        Command::DiffBrowser(args) => diff_browser::run(args, &mut out),
        Command::Findings(args) => findings::run(args, &mut out),
        Command::Playground(args) => playground::run(args, &mut out),
    };
    match done.and_then(|exit| out.flush().map(|()| exit).map_err(CliError::Output)) {
        Ok(exit) => ExitCode::from(exit.code()),
        // An output that could not be written, or a server that stopped, ends with the status
        // of bad input: what the run came to reached no one.
        Err(e) => {
            warn(&format!("webmcp-ref: {e}"));
            ExitCode::from(Exit::BadInput.code())
        }
    }
}

/// Each command's exit statuses, as its `--help` lists them (and the README).
pub mod exits {
    pub const RUN: &str = "Exit status:
  0  every expectation held (a subtest its profile does not run, PRECONDITION_FAILED, holds)
  1  an expectation failed, or a subtest could not be carried out (ERROR)
  2  bad input: a flag, a profile or switch, a schedule token, a --subtest that matches no
     subtest, a file that cannot be read or does not parse (that file is reported as an
     ERROR and the other files run)
  3  a line ran out of its budget of units (1000000) before the world was idle";

    pub const TRACE: &str = "Exit status:
  0  every expectation of the traced subtests held
  1  an expectation failed, or a subtest could not be carried out (ERROR)
  2  bad input: a flag, a profile or switch, a schedule token, a --subtest that matches no
     subtest of the file, a file that cannot be read or does not parse
  3  a line ran out of its budget of units (1000000) before the world was idle";

    pub const EXPLORE: &str = "Exit status:
  0  every expectation held on every schedule (each `expect sometimes` on some)
  1  an expectation or an invariant failed on some schedule
  2  bad input: a flag, a profile or switch, a --subtest that matches no subtest, a file that
     cannot be read or does not parse (said on stderr; the other files are explored)
  3  a budget (--max-schedules, --max-seconds, --max-memory) stopped it before every
     schedule was run (what was explored so far is reported)";

    pub const COVERAGE: &str = "Exit status:
  0  the coverage was reported (with --require-full: every required step is reached)
  1  with --require-full, a required step is never reached
  2  bad input: a flag, a profile or switch, a file that cannot be read or does not parse
     (said on stderr; the other files are run)";

    pub const EXPORT_WPT: &str = "Exit status:
  0  every file was written
  2  bad input: a flag, a profile or switch, an output folder that cannot be written, a file
     that cannot be read or does not parse (said on stderr; the other files are written)";

    pub const SERVE: &str = "Exit status:
  0  the agent closed the connection (stdin ended), whether or not it had sent a request
  2  bad input: a flag, a profile or switch, a file that cannot be read or does not parse, a
     --subtest that names no subtest (or none when the file has several), lines up to the
     serve point that do not hold, an --http address off loopback or already taken; or the
     MCP transport failed (a first message that is not MCP)
With --http it runs until it is stopped. Requests whose Origin header is not a loopback
origin (http or https on localhost, 127.0.0.1 or [::1]) are refused with 403.";

    pub const PLAYGROUND: &str = "Exit status:
  0  the page was written (without --serve)
  2  bad input: a flag, no checkout to build from, a missing target or wasm-bindgen CLI (the
     message says how to install it), a build that failed, a folder that cannot be written,
     a port already taken
With --serve it runs until it is stopped.";

    pub const PROFILES: &str = "Exit status:
  0  the profiles were listed
  2  bad input: a flag";

    pub const SPEC_CHECK: &str = "Exit status:
  0  the text and the engine's tables agree: nothing to say
  1  findings: steps of the text with no code, code steps the text does not have, steps
     whose text changed
  2  bad input: a flag, a source or digest that cannot be read or is malformed
     (file:line:column)";

    pub const DIFF_BROWSER: &str = "Exit status:
  0  every disagreement with the browser is a listed known difference, and none listed is
     stale
  1  a disagreement that is not listed, or a listed one that no longer happens
  2  bad input: a flag, a profile or switch, a file that cannot be read or does not parse, a
     browser that cannot be started, a known-differences file that is malformed";
}

/// What a run came to, as its exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Every expectation held (0).
    Held,
    /// An expectation failed (1).
    Failed,
    /// Bad input: a file, a flag, a switch (2).
    BadInput,
    /// A budget stopped the run before it was complete (3).
    Budget,
}

impl Exit {
    /// The process's exit status.
    pub fn code(self) -> u8 {
        match self {
            Exit::Held => 0,
            Exit::Failed => 1,
            Exit::BadInput => 2,
            Exit::Budget => 3,
        }
    }

    /// [`Exit::Held`] when everything passed, else [`Exit::Failed`].
    pub fn held_if(passed: bool) -> Exit {
        if passed {
            Exit::Held
        } else {
            Exit::Failed
        }
    }
}

/// Input the command cannot run on.
#[derive(Debug, Error)]
pub enum BadInput {
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error("--set {assignment}: {error}")]
    Set {
        assignment: String,
        error: ProfileError,
    },
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    /// Scenario files that could not be found or read, or do not parse: every one.
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
    Scenarios(Vec<LoadError>),
    #[error("no subtest of {file} matches {wanted:?}; its subtests are: {names}")]
    NoSubtestOfFile {
        file: String,
        wanted: String,
        names: String,
    },
    #[error("no subtest matches {0:?}")]
    NoSubtest(String),
    #[error("playground: give --out DIR (where to write the page), --serve, or both")]
    PlaygroundWhere,
    #[error("a timeline or report shows one subtest: several of {file} match ({names}); pick one with --subtest")]
    SeveralSubtests { file: String, names: String },
    #[error("--format wptreport takes one profile: a wptreport file describes one run")]
    WptreportOfSeveralProfiles,
    #[error("a wptreport names the commit of the WPT tree its tests belong to (its `revision`), and none is known: the tests are in no git checkout and webmcp-ref was built from none; give it with --wpt-revision SHA")]
    NoWptRevision,
    #[error("--format html writes a folder of pages: give it with --out DIR")]
    HtmlWithoutOut,
    #[error("{path}:{line}: {message}")]
    FindingsList {
        path: String,
        line: usize,
        message: String,
    },
    /// WPT expectation metadata that cannot be read.
    #[error(transparent)]
    Metadata(#[from] webmcp_ref::report::metadata::MetadataError),
    #[error("--metadata-out writes every subtest's expectation of each file: it cannot be given with --subtest")]
    MetadataOfSomeSubtests,
    #[error("{out}: {error}")]
    ExportFolder { out: String, error: io::Error },
    #[error(transparent)]
    Serve(#[from] ServeError),
    #[error(transparent)]
    Diff(#[from] DiffError),
    #[error("{path}: {error}")]
    File { path: String, error: io::Error },
    /// A text file that is not a regular file, too large, or not UTF-8.
    #[error(transparent)]
    Text(#[from] webmcp_ref::text::file::ReadError),
    /// A Bikeshed source spec-check cannot read: `FILE:LINE:COLUMN: what`.
    #[error("{path}:{}:{}: {}", .error.line, .error.column, .error.message)]
    Bikeshed {
        path: String,
        error: webmcp_ref::speccheck::ParseError,
    },
    /// A malformed digest: `FILE:LINE:1: what`.
    #[error("{path}:{}:1: {}", .error.line, .error.message)]
    Digest {
        path: String,
        error: webmcp_ref::speccheck::DigestError,
    },
}

/// Why a command stopped early.
#[derive(Debug, Error)]
pub enum CliError {
    #[error(transparent)]
    BadInput(#[from] BadInput),
    /// The output could not be written (a reader that went away is no error: see [`Output`]).
    #[error("writing the output: {0}")]
    Output(#[from] io::Error),
    /// The MCP server of `serve` stopped.
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// The playground could not be built or served.
    #[error(transparent)]
    Playground(#[from] playground::PlaygroundError),
}

/// The standard output. When its reader goes away (`webmcp-ref run | head`), the rest of the
/// output is dropped and the command ends as it would have, with its own exit status.
/// Written in blocks, not line by line: a trace of a million lines is a few writes. What is
/// written passes through `text::escape::terminal`: a control character or a bidirectional
/// override that a scenario put in a name, a value or a file name shows as an escape, never
/// acts on the terminal (in JSON, the escape is JSON's own for the same character).
pub struct Output {
    stdout: io::BufWriter<io::Stdout>,
    closed: bool,
    /// The start of a character split between two writes.
    carry: Vec<u8>,
}

impl Output {
    fn stdout() -> Output {
        Output {
            stdout: io::BufWriter::with_capacity(1 << 16, io::stdout()),
            closed: false,
            carry: Vec::new(),
        }
    }

    /// `buf` as it is written: what a terminal would act on, escaped.
    fn escaped<'b>(&mut self, buf: &'b [u8]) -> std::borrow::Cow<'b, [u8]> {
        let plain = |b: &u8| (0x20..0x7f).contains(b) || *b == b'\n' || *b == b'\t';
        if self.carry.is_empty() && buf.iter().all(plain) {
            return std::borrow::Cow::Borrowed(buf);
        }
        let mut bytes = std::mem::take(&mut self.carry);
        bytes.extend_from_slice(buf);
        let good = match std::str::from_utf8(&bytes) {
            Ok(_) => bytes.len(),
            // A character cut at the end of the write is kept for the next one.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            // Not UTF-8 at all: written as it is.
            Err(_) => return std::borrow::Cow::Owned(bytes),
        };
        self.carry = bytes.split_off(good);
        let text = String::from_utf8_lossy(&bytes);
        std::borrow::Cow::Owned(webmcp_ref::text::escape::terminal(&text, true).into_bytes())
    }

    /// `value` as pretty JSON, on a line of its own.
    pub fn json(&mut self, value: &impl serde::Serialize) -> Result<(), CliError> {
        let text = serde_json::to_string_pretty(value).map_err(io::Error::from)?;
        // A lone surrogate (text::js_string) as JSON's escape of it.
        let text = webmcp_ref::text::js_string::escape_lone_surrogates(&text);
        writeln!(self, "{text}")?;
        Ok(())
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        let escaped = self.escaped(buf);
        match self.stdout.write_all(&escaped) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            Err(e) => Err(e),
            Ok(()) => Ok(buf.len()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.stdout.flush() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }
}

/// `--format` of the commands that report results.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Wptreport,
}

/// `--format` of the commands that have no wptreport.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum SimpleFormat {
    Human,
    Json,
}

/// `--profile a,b` and `--set SWITCH=VALUE`, for the commands that run under several profiles.
#[derive(clap::Args)]
pub struct ProfileArgs {
    /// Profile(s) to run under, comma-separated (see `webmcp-ref profiles`).
    #[arg(long, default_value = "spec", value_delimiter = ',')]
    pub profile: Vec<String>,
    /// Override one switch: `--set settle-updates-tools-ready=if-fully-active`. Repeatable.
    #[arg(long = "set", value_name = "SWITCH=VALUE")]
    pub sets: Vec<String>,
}

impl ProfileArgs {
    /// Every profile asked for, each once (in the order first named), with the switches set.
    pub fn build(&self) -> Result<Vec<Profile>, BadInput> {
        let mut seen = std::collections::BTreeSet::new();
        self.profile
            .iter()
            .filter(|p| seen.insert(p.as_str()))
            .map(|p| build_profile(p, &self.sets))
            .collect()
    }
}

/// The budgets of a run (see the README's "Budgets"): each stops the run with status 3 and a
/// message that names it.
#[derive(clap::Args, Clone, Copy)]
pub struct BudgetArgs {
    /// Units of work one line may run (`run`, `step N`, `observe ... =>`) before the world is
    /// idle; serving, what a page may run before it is next idle.
    #[arg(long, value_name = "N", default_value_t = Budgets::DEFAULT.max_units, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_units: u64,
    /// Fuel the units of work of one line may spend together: a statement or a call of the
    /// page's script costs 1, a value it makes (or a string it copies) its size.
    #[arg(long, value_name = "N", default_value_t = Budgets::DEFAULT.max_fuel, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_fuel: u64,
    /// Fuel one unit of work may spend.
    #[arg(long, value_name = "N", default_value_t = Budgets::DEFAULT.max_unit_fuel, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_unit_fuel: u64,
    /// The size one value of the page's script may reach: a byte of a string, and every value
    /// an array or object holds (counted each time it is held), count one each.
    #[arg(long, value_name = "N", default_value_t = Budgets::DEFAULT.max_value_size, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_value_size: u64,
    /// Entries the step trace of one run may hold (`trace`, and the timelines of
    /// `run --format html`).
    #[arg(long, value_name = "N", default_value_t = Budgets::DEFAULT.max_trace_entries, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_trace_entries: u64,
}

impl BudgetArgs {
    pub fn budgets(&self) -> Budgets {
        Budgets {
            max_units: self.max_units,
            max_fuel: self.max_fuel,
            max_unit_fuel: self.max_unit_fuel,
            max_value_size: self.max_value_size,
            max_trace_entries: self.max_trace_entries,
        }
    }
}

/// A named profile with switches set by `--set SWITCH=VALUE`.
pub fn build_profile(name: &str, sets: &[String]) -> Result<Profile, BadInput> {
    let mut p = Profile::named(name)?;
    for s in sets {
        p.apply_assignment(s).map_err(|error| BadInput::Set {
            assignment: s.clone(),
            error,
        })?;
    }
    Ok(p)
}

/// Every scenario file under `paths` (the bundled wpt-mirror/ when none is given), or every
/// file that could not be read.
pub fn load_all(paths: Vec<PathBuf>) -> Result<Vec<ScenarioFile>, BadInput> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for f in load_each(paths)? {
        match f {
            Ok(s) => out.push(s),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(BadInput::Scenarios(errors));
    }
    Ok(out)
}

/// Every scenario file under `paths` (the bundled wpt-mirror/ when none is given), each
/// loaded or with why it could not be, in order; what was passed over is said on stderr.
pub fn load_each(paths: Vec<PathBuf>) -> Result<Vec<Result<ScenarioFile, LoadError>>, BadInput> {
    let paths = if paths.is_empty() {
        vec![bundled_mirror().map_err(|e| BadInput::Scenarios(vec![e]))?]
    } else {
        paths
    };
    let found = discover_all(&paths).map_err(|e| BadInput::Scenarios(vec![e]))?;
    for s in &found.skipped {
        warn(s);
    }
    Ok(found.files.iter().map(|f| load(f)).collect())
}

/// The files that loaded, each error said on stderr; `true` with them when there was one.
pub fn loaded_reporting_errors(
    files: Vec<Result<ScenarioFile, LoadError>>,
) -> (Vec<ScenarioFile>, bool) {
    let mut out = Vec::new();
    let mut bad = false;
    for f in files {
        match f {
            Ok(s) => out.push(s),
            Err(e) => {
                warn(&format!("webmcp-ref: {e}"));
                bad = true;
            }
        }
    }
    (out, bad)
}

/// The most worker threads `--threads` asks for: each has a large stack of its own.
pub const MAX_THREADS: usize = 256;

/// `--threads N`: a whole number from 1 to [`MAX_THREADS`].
pub fn threads(value: &str) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a whole number of threads from 1 to {MAX_THREADS}"
        )),
    }
}

/// A commit of the WPT tree (`--wpt-revision`): 40 hexadecimal digits, as wpt.fyi takes it.
pub fn revision(value: &str) -> Result<String, String> {
    if webmcp_ref::report::wpt::is_revision(value) {
        Ok(value.to_lowercase())
    } else {
        Err("expected a commit: 40 hexadecimal digits".into())
    }
}

/// A number of seconds, more than 0 and at most an hour (`--timeout` of diff-browser).
pub fn seconds_up_to_an_hour(value: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 3600.0 => Ok(s),
        _ => Err("expected a number of seconds more than 0 and at most 3600".into()),
    }
}

/// A duration of `serve`'s HTTP bounds: a number of seconds, or one with `ms`, `s`, `m` or `h`,
/// above 0 and at most a day (`--session-idle 10m`, `--header-timeout 500ms`).
pub fn duration_up_to_a_day(text: &str) -> Result<std::time::Duration, String> {
    let t = text.trim();
    let expected = || {
        format!("`{text}`: expected a duration above 0 and at most a day, in seconds or with ms, s, m or h (`30s`, `500ms`, `10m`)")
    };
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale = match unit {
        "ms" => 0.001,
        "" | "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => return Err(expected()),
    };
    let n: f64 = number.trim().parse().map_err(|_| expected())?;
    let seconds = n * scale;
    if !(seconds > 0.0 && seconds <= 86_400.0) {
        return Err(expected());
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

/// A whole number of milliseconds, at most a minute (`--margin-ms` of diff-browser).
pub fn milliseconds_up_to_a_minute(value: &str) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(ms) if ms <= 60_000 => Ok(ms),
        _ => Err("expected a whole number of milliseconds from 0 to 60000".into()),
    }
}

/// `--max-memory`, `--max-output`: bytes, or a number with K, M or G (powers of 1024), above 0.
pub fn bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (number, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&t[..i], t[i..].to_ascii_uppercase()),
        None => (t, String::new()),
    };
    let scale: u64 = match unit.trim_end_matches(['B', 'I']) {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => {
            return Err(format!(
                "`{text}`: expected bytes, or a number with K, M or G"
            ))
        }
    };
    let n: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{text}`: expected bytes, or a number with K, M or G"))?;
    let total = n * scale as f64;
    if !total.is_finite() || total < 1.0 || total >= u64::MAX as f64 {
        return Err(format!("`{text}` is out of range"));
    }
    Ok(total as u64)
}

/// A line on stderr, escaped for a terminal as the output is; a reader that went away is no
/// error.
pub fn warn(line: &str) {
    let _ = writeln!(
        io::stderr(),
        "{}",
        webmcp_ref::text::escape::terminal(line, true)
    );
}

/// A scenario file given on the command line.
pub fn load_one(path: &std::path::Path) -> Result<ScenarioFile, BadInput> {
    load(path).map_err(|e| BadInput::Scenarios(vec![e]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// `--help` describes every argument of every subcommand.
    #[test]
    fn every_argument_of_every_subcommand_is_described() {
        let mut missing = Vec::new();
        for sub in Cli::command().get_subcommands() {
            if sub.get_about().is_none() {
                missing.push(sub.get_name().to_string());
            }
            for arg in sub.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{} {id}", sub.get_name()));
                }
            }
        }
        assert!(missing.is_empty(), "undescribed: {missing:?}");
    }
}
