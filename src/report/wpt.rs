//! What WPT's tools read: a scenario file's place in a WPT checkout (its test ID), and the
//! wptreport JSON that wptrunner writes and wpt.fyi's results processor reads.
//!
//! A test ID is the test's path below the root of a WPT checkout, with a leading `/`
//! (`/webmcp/webmcp-ref/readiness/child-frames.tentative.https.html`). The root of a scenario
//! file is the nearest folder above it that holds a `webmcp/` folder (`wpt-mirror/` for the
//! bundled suite), or the folder given as `--wpt-root`; a file with neither is named by its own
//! file name. The ID does not depend on the path given or on the working directory, so that the
//! same file has the same ID on every machine.
//!
//! Every ID is below [`TEST_FOLDER`], a folder upstream WPT does not have, so that a test
//! `export-wpt` writes never takes the place of one of upstream's (the bundled suite mirrors
//! upstream's files under their own names), and the engine's results in a wptreport are never
//! read as results of upstream's tests. A file that asserts what the published text does not
//! say (see [`crate::scenario::runner::asserts_beyond_the_text`]) is `.tentative`, as WPT names
//! a test of a proposal. The name is the file's, whatever the profile, so that one test has one
//! ID in every profile's report and metadata.

use std::path::{Component, Path, PathBuf};

use serde_json::json;

use super::metadata::{Expectation, Metadata, RunInfo};
use crate::engine::profile::Profile;
use crate::scenario::{FileResult, Status, SubtestResult};
use crate::text::js_string::quoted;

/// Where a path is, absolute: the file itself when it exists, else the path made absolute
/// against the working directory, `.` and `..` resolved by their names.
fn absolute(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The root of the WPT checkout a file is in: the nearest folder above it that holds a
/// `webmcp/` folder (on disk, or named on the file's own path).
pub fn nearest_wpt_root(file: &Path) -> Option<PathBuf> {
    let file = absolute(file);
    let mut below: Option<&std::ffi::OsStr> = file.file_name();
    for folder in file.ancestors().skip(1) {
        if below == Some(std::ffi::OsStr::new("webmcp")) || folder.join("webmcp").is_dir() {
            return Some(folder.to_path_buf());
        }
        below = folder.file_name();
    }
    None
}

/// A scenario file's path below the WPT root, with a leading `/`
/// (`/webmcp/readiness/child-frames.https.html.scn`): below `wpt_root` when given, else below
/// [`nearest_wpt_root`]; the file's own name when it is below neither.
pub fn scenario_path(path: &str, wpt_root: Option<&Path>) -> String {
    let file = absolute(Path::new(path));
    let root = match wpt_root {
        Some(r) => Some(absolute(r)),
        None => nearest_wpt_root(&file),
    };
    let below = root
        .as_deref()
        .and_then(|r| file.strip_prefix(r).ok())
        .filter(|b| !b.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .or_else(|| file.file_name().map(PathBuf::from))
        .unwrap_or_default();
    let parts: Vec<String> = below
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    format!("/{}", parts.join("/"))
}

/// The folder, below a WPT checkout's root, of every test webmcp-ref names and exports.
pub const TEST_FOLDER: &str = "webmcp/webmcp-ref";

/// Type flags WPT reads from the last `-` part of a file's name (`foo-visual.html`) that
/// would make a test something other than a testharness.js or crash test.
const OTHER_TYPE_FLAGS: &[&str] = &["manual", "visual", "print", "ref", "notref"];

/// The test ID of a scenario file: the `.https.html` test it is in WPT, and the file
/// `export-wpt` writes for it. The path below the root keeps its folders below `webmcp/`, in
/// [`TEST_FOLDER`] (`/webmcp/webmcp-ref/readiness/child-frames.https.html`); `.tentative` is
/// added to the name of a file that asserts what the text does not say; a name whose last
/// `-` part WPT would read as a manual, visual, print or reference file gets `-test` added.
pub fn test_id_under(path: &str, wpt_root: Option<&Path>, tentative: bool) -> String {
    let scenario = scenario_path(path, wpt_root);
    let stem = scenario.strip_suffix(".scn").unwrap_or(&scenario);
    let stem = stem
        .strip_suffix(".https.html")
        .or_else(|| stem.strip_suffix(".html"))
        .unwrap_or(stem);
    let below = stem
        .strip_prefix("/webmcp/")
        .unwrap_or(stem.trim_start_matches('/'));
    let (folder, name) = match below.rsplit_once('/') {
        Some((folder, name)) => (format!("/{folder}"), name),
        None => (String::new(), below),
    };
    // WPT's flags are the name's dot-separated parts after the first.
    let (base, flags) = name.split_once('.').unwrap_or((name, ""));
    let mut base = base.to_string();
    let type_flag = base.rsplit_once('-').map(|(_, flag)| flag);
    let reference = base.split(['-', '_']).any(|part| {
        part.strip_prefix("not")
            .unwrap_or(part)
            .strip_prefix("ref")
            .is_some_and(|digits| digits.chars().all(|c| c.is_ascii_digit()))
    });
    if reference || type_flag.is_some_and(|f| OTHER_TYPE_FLAGS.contains(&f)) {
        base.push_str("-test");
    }
    let mut flags: Vec<&str> = flags
        .split('.')
        .filter(|f| !f.is_empty() && *f != "https")
        .collect();
    if tentative && !flags.contains(&"tentative") {
        flags.push("tentative");
    }
    flags.push("https");
    format!("/{TEST_FOLDER}{folder}/{base}.{}.html", flags.join("."))
}

/// [`test_id_under`] the nearest WPT root.
pub fn test_id(path: &str, tentative: bool) -> String {
    test_id_under(path, None, tentative)
}

/// The test ID of a file's results.
pub fn result_test_id(file: &FileResult, wpt_root: Option<&Path>) -> String {
    test_id_under(&file.path, wpt_root, file.tentative)
}

/// The commit this binary was built from, when it was built from a git checkout or a
/// published package (build.rs).
pub const BUILT_FROM: Option<&str> = option_env!("WEBMCP_REF_COMMIT");

/// What a wptreport's `revision` is, as wpt.fyi reads it: the commit of the test tree the
/// tests come from. Given (`--wpt-revision`), else the commit of the git checkout holding the
/// WPT root (`--wpt-root`, or the root of the first file: for the bundled suite, this
/// checkout), else the commit this binary was built from (the built-in suite). `None` when
/// none is known.
pub fn wpt_revision(
    given: Option<&str>,
    wpt_root: Option<&Path>,
    first_file: Option<&str>,
) -> Option<String> {
    if let Some(g) = given {
        return Some(g.to_lowercase());
    }
    let root = wpt_root
        .map(absolute)
        .or_else(|| first_file.and_then(|f| nearest_wpt_root(Path::new(f))));
    root.and_then(|r| super::git::head(&r))
        .or_else(|| BUILT_FROM.map(str::to_string))
}

/// Whether a revision is what wpt.fyi takes: a full commit hash.
pub fn is_revision(s: &str) -> bool {
    s.len() == 40 && s.chars().all(|c| c.is_ascii_hexdigit())
}

/// The `run_info` of a run under a profile, as wptrunner writes it and as metadata conditions
/// read it: every value a string or a boolean (hashable, as wptrunner's updater needs).
/// `revision` is the test tree's commit ([`wpt_revision`]); the commit of the WebMCP text the
/// engine implements is `spec_revision`. Each switch of the profile is a property of its own,
/// `-` written `_` (`readiness_api: "pr373"`), so that metadata can be conditional on it;
/// `switches` lists those that differ from `spec`'s, as one string.
pub fn run_info(profile: &Profile, revision: &str) -> RunInfo {
    let mut info = RunInfo::new();
    let mut put = |k: &str, v: serde_json::Value| {
        info.insert(k.to_string(), v);
    };
    put("product", json!("webmcp-ref"));
    put("browser_version", json!(env!("CARGO_PKG_VERSION")));
    put("revision", json!(revision));
    put("spec_revision", json!(crate::webmcp::TEXT_COMMIT));
    put("os", json!(std::env::consts::OS));
    put("processor", json!(std::env::consts::ARCH));
    put("headless", json!(true));
    put("debug", json!(cfg!(debug_assertions)));
    put("profile", json!(profile.name));
    put(
        "switches",
        json!(profile.differences_from_spec().join(", ")),
    );
    for (name, value) in profile.values() {
        put(&name.replace('-', "_"), json!(value));
    }
    info
}

/// What a wptreport says about the run besides its results.
#[derive(Clone, Debug)]
pub struct WptRun<'a> {
    /// The run's properties ([`run_info`]).
    pub info: &'a RunInfo,
    /// When the run started and ended, in milliseconds since the Unix epoch (as wptrunner).
    pub time_start: u64,
    pub time_end: u64,
    /// How long each file took, in milliseconds, in the order of the results.
    pub durations: &'a [u64],
    /// `--wpt-root`: the folder test IDs are relative to.
    pub wpt_root: Option<&'a Path>,
    /// The expectations results are compared with (`run --metadata`); without it, as in
    /// wptrunner, every subtest is expected to PASS and every file to be OK.
    pub metadata: Option<&'a Metadata>,
}

impl WptRun<'_> {
    /// A run with no times, durations, root or metadata, for tests and embedders.
    pub fn of<'a>(info: &'a RunInfo) -> WptRun<'a> {
        WptRun {
            info,
            time_start: 0,
            time_end: 0,
            durations: &[],
            wpt_root: None,
            metadata: None,
        }
    }
}

/// testharness.js's status of a subtest, as a wptreport names it.
pub fn subtest_status(status: Status) -> &'static str {
    match status {
        Status::Pass => "PASS",
        Status::PreconditionFailed => "PRECONDITION_FAILED",
        // A line that could not be carried out fails its subtest, and makes the file ERROR.
        Status::Fail | Status::Error => "FAIL",
    }
}

/// The harness status of a file: ERROR when it could not be read or parsed, or a subtest
/// could not be carried out.
pub fn test_status(file: &FileResult) -> &'static str {
    if file.error.is_some() || file.subtests.iter().any(|s| s.status == Status::Error) {
        "ERROR"
    } else {
        "OK"
    }
}

/// What wptrunner expects of a subtest that no metadata names: a PRECONDITION_FAILED subtest
/// (its profile lacks what the file `requires:`) needs an entry, as wptrunner's updater writes.
pub const SUBTEST_DEFAULT: &str = "PASS";
/// What wptrunner expects of a file that no metadata names.
pub const TEST_DEFAULT: &str = "OK";

/// The `expected` and `known_intermittent` fields of a result: `expected` only when the status
/// is not among the expected ones, `known_intermittent` when the metadata lists any.
fn expectation_fields(
    entry: &mut serde_json::Map<String, serde_json::Value>,
    status: &str,
    expected: &Expectation,
) {
    if !expected.allows(status) {
        entry.insert("expected".into(), json!(expected.first()));
    }
    let intermittent = expected.intermittent();
    if !intermittent.is_empty() {
        entry.insert("known_intermittent".into(), json!(intermittent));
    }
}

/// The wptreport JSON of one profile's run, as wptrunner writes it: `time_start`, `time_end`,
/// `run_info` ([`run_info`], with what wpt.fyi requires: `product`, `browser_version`, `os`,
/// `revision`), and a result per file with its subtests.
pub fn wptreport(results: &[FileResult], run: &WptRun) -> serde_json::Value {
    let tests: Vec<serde_json::Value> = results
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let id = result_test_id(f, run.wpt_root);
            let subtests: Vec<serde_json::Value> = f
                .subtests
                .iter()
                .map(|s| {
                    let status = subtest_status(s.status);
                    let expected = run
                        .metadata
                        .and_then(|m| m.subtest(&id, &s.name, run.info))
                        .unwrap_or_else(|| Expectation::single(SUBTEST_DEFAULT));
                    let mut entry = serde_json::Map::new();
                    entry.insert("name".into(), json!(s.name));
                    entry.insert("status".into(), json!(status));
                    expectation_fields(&mut entry, status, &expected);
                    entry.insert("message".into(), failure_message(f, s));
                    serde_json::Value::Object(entry)
                })
                .collect();
            let status = test_status(f);
            let expected = run
                .metadata
                .and_then(|m| m.test(&id, run.info))
                .unwrap_or_else(|| Expectation::single(TEST_DEFAULT));
            let mut entry = serde_json::Map::new();
            entry.insert("test".into(), json!(id));
            entry.insert("subsuite".into(), json!(""));
            entry.insert("status".into(), json!(status));
            expectation_fields(&mut entry, status, &expected);
            entry.insert("message".into(), error_message(f));
            entry.insert(
                "duration".into(),
                json!(run.durations.get(i).copied().unwrap_or(0)),
            );
            entry.insert("subtests".into(), json!(subtests));
            serde_json::Value::Object(entry)
        })
        .collect();
    json!({
        "time_start": run.time_start,
        "time_end": run.time_end,
        "run_info": run.info,
        "results": tests,
    })
}

/// Why a file is ERROR: why it could not be read or parsed, or each subtest that could not be
/// carried out, and why.
fn error_message(f: &FileResult) -> serde_json::Value {
    if let Some(error) = &f.error {
        return json!(error);
    }
    let errors: Vec<String> = f
        .subtests
        .iter()
        .filter(|s| s.status == Status::Error)
        .map(|s| format!("subtest {}: {}", quoted(&s.name), s.messages.join("; ")))
        .collect();
    if errors.is_empty() {
        serde_json::Value::Null
    } else {
        json!(errors.join("\n"))
    }
}

fn failure_message(f: &FileResult, s: &SubtestResult) -> serde_json::Value {
    if s.status == Status::Pass {
        return serde_json::Value::Null;
    }
    let mut parts: Vec<String> = s
        .expectations
        .iter()
        .filter(|e| !e.passed && !e.sometimes)
        .map(|e| {
            format!(
                "{}:{}: {} (expected {}, got {})",
                f.path, e.line, e.text, e.expected, e.actual
            )
        })
        .collect();
    parts.extend(s.messages.iter().cloned());
    json!(parts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_below_the_folder_holding_webmcp() {
        assert_eq!(
            test_id("wpt-mirror/webmcp/readiness/x.https.html.scn", false),
            "/webmcp/webmcp-ref/readiness/x.https.html"
        );
        assert_eq!(
            test_id("wpt-mirror/webmcp/readiness/x.https.html.scn", true),
            "/webmcp/webmcp-ref/readiness/x.tentative.https.html"
        );
        assert_eq!(
            test_id("/elsewhere/wpt/webmcp/x.tentative.https.html.scn", true),
            "/webmcp/webmcp-ref/x.tentative.https.html"
        );
        assert_eq!(
            test_id("/tmp/no-such-place/foo.scn", false),
            "/webmcp/webmcp-ref/foo.https.html"
        );
        assert_eq!(
            test_id("/tmp/no-such-place/foo.html.scn", false),
            "/webmcp/webmcp-ref/foo.https.html"
        );
        assert_eq!(
            test_id_under("/a/b/c/foo.scn", Some(Path::new("/a")), false),
            "/webmcp/webmcp-ref/b/c/foo.https.html"
        );
        // A crash test stays one; a name WPT would read as another type of test does not.
        assert_eq!(
            test_id("/tmp/no-such-place/a-crash.scn", false),
            "/webmcp/webmcp-ref/a-crash.https.html"
        );
        assert_eq!(
            test_id("/tmp/no-such-place/a-visual.scn", false),
            "/webmcp/webmcp-ref/a-visual-test.https.html"
        );
        assert_eq!(
            test_id("/tmp/no-such-place/a-ref2.sub.scn", true),
            "/webmcp/webmcp-ref/a-ref2-test.sub.tentative.https.html"
        );
        assert_eq!(
            scenario_path("wpt-mirror/webmcp/./readiness/../x.https.html.scn", None),
            "/webmcp/x.https.html.scn"
        );
    }
}
