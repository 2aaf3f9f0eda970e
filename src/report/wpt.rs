//! What WPT's tools read: a scenario file's place in a WPT checkout (its test ID), and the
//! wptreport JSON that wptrunner writes and wpt.fyi's results processor reads.
//!
//! A test ID is the test's path below the root of a WPT checkout, with a leading `/`
//! (`/webmcp/readiness/child-frames.https.html`). The root of a scenario file is the nearest
//! folder above it that holds a `webmcp/` folder (`wpt-mirror/` for the bundled suite), or
//! the folder given as `--wpt-root`; a file with neither is named by its own file name. The
//! ID does not depend on the path given or on the working directory, so that the same file
//! has the same ID on every machine.

use std::path::{Component, Path, PathBuf};

use serde_json::json;

use super::metadata::{Expectation, Metadata};
use crate::scenario::{FileResult, Status, SubtestResult};

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

/// The test ID of a scenario file: the `.https.html` test it is in WPT, and the file
/// `export-wpt` writes for it (`/webmcp/readiness/child-frames.https.html`).
pub fn test_id_under(path: &str, wpt_root: Option<&Path>) -> String {
    let scenario = scenario_path(path, wpt_root);
    let stem = scenario.strip_suffix(".scn").unwrap_or(&scenario);
    if stem.ends_with(".https.html") {
        stem.to_string()
    } else {
        let stem = stem.strip_suffix(".html").unwrap_or(stem);
        format!("{stem}.https.html")
    }
}

/// [`test_id_under`] the nearest WPT root.
pub fn test_id(path: &str) -> String {
    test_id_under(path, None)
}

/// What a wptreport says about the run besides its results.
#[derive(Clone, Debug)]
pub struct WptRun<'a> {
    /// The profile run, and its switches that differ from `spec`'s.
    pub profile: &'a str,
    pub switches: &'a [String],
    /// When the run started and ended, in milliseconds since the Unix epoch (as wptrunner).
    pub time_start: u64,
    pub time_end: u64,
    /// How long each file took, in milliseconds, in the order of the results.
    pub durations: &'a [u64],
    /// `--wpt-root`: the folder test IDs are relative to.
    pub wpt_root: Option<&'a Path>,
    /// The expectations results are compared with (`run --metadata`); without it, every
    /// subtest is expected to pass, or to be PRECONDITION_FAILED where the profile lacks what
    /// its file `requires:`.
    pub metadata: Option<&'a Metadata>,
}

impl WptRun<'_> {
    /// A run with no times, durations, root or metadata, for tests and embedders.
    pub fn of_profile<'a>(profile: &'a str, switches: &'a [String]) -> WptRun<'a> {
        WptRun {
            profile,
            switches,
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

/// The status a subtest is expected to have when no metadata says otherwise.
pub fn default_subtest_expectation(sub: &SubtestResult) -> &'static str {
    if sub.status == Status::PreconditionFailed {
        "PRECONDITION_FAILED"
    } else {
        "PASS"
    }
}

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
/// `run_info` (with what wpt.fyi requires: `product`, `browser_version`, `os`, `revision`),
/// and a result per file with its subtests.
pub fn wptreport(results: &[FileResult], run: &WptRun) -> serde_json::Value {
    let tests: Vec<serde_json::Value> = results
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let id = test_id_under(&f.path, run.wpt_root);
            let subtests: Vec<serde_json::Value> = f
                .subtests
                .iter()
                .map(|s| {
                    let status = subtest_status(s.status);
                    let expected = run
                        .metadata
                        .and_then(|m| m.subtest(&id, &s.name, run.profile))
                        .unwrap_or_else(|| Expectation::single(default_subtest_expectation(s)));
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
                .and_then(|m| m.test(&id, run.profile))
                .unwrap_or_else(|| Expectation::single("OK"));
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
        "run_info": {
            "product": "webmcp-ref",
            "browser_version": env!("CARGO_PKG_VERSION"),
            "revision": crate::webmcp::TEXT_COMMIT,
            "profile": run.profile,
            "switches": run.switches,
            "os": std::env::consts::OS,
            "processor": std::env::consts::ARCH,
            "headless": true,
            "debug": cfg!(debug_assertions),
        },
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
        .map(|s| format!("subtest {:?}: {}", s.name, s.messages.join("; ")))
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
            test_id("wpt-mirror/webmcp/readiness/x.https.html.scn"),
            "/webmcp/readiness/x.https.html"
        );
        assert_eq!(
            test_id("/elsewhere/wpt/webmcp/x.tentative.https.html.scn"),
            "/webmcp/x.tentative.https.html"
        );
        assert_eq!(test_id("/tmp/no-such-place/foo.scn"), "/foo.https.html");
        assert_eq!(
            test_id("/tmp/no-such-place/foo.html.scn"),
            "/foo.https.html"
        );
        assert_eq!(
            test_id_under("/a/b/c/foo.scn", Some(Path::new("/a"))),
            "/b/c/foo.https.html"
        );
        assert_eq!(
            scenario_path("wpt-mirror/webmcp/./readiness/../x.https.html.scn", None),
            "/webmcp/x.https.html.scn"
        );
    }
}
