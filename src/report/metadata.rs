//! WPT expectation metadata: the `.ini` files wptrunner reads (`--metadata DIR`), one per test
//! file, as Servo and Gecko keep theirs.
//!
//! ```text
//! [child-frames.https.html]
//!   expected: ERROR
//!   [a cross-origin iframe not allowed to use tools still holds up the wait]
//!     expected: FAIL
//!   [two iframes: ready when the last one is]
//!     expected:
//!       if profile == "chromium-156": [FAIL, PASS]
//!       PASS
//! ```
//!
//! A file's path is its test ID with `.ini` added (`DIR/webmcp/readiness/child-frames.https.html.ini`).
//! A value is a status or a list of them: the first is the expected one, the rest are known
//! intermittent. A key may have conditions on the run's `profile` (wptrunner's conditional
//! values: `if profile == "NAME": VALUE`, joined with `or`; the first that holds wins, a line
//! with no `if` is the default); other conditions are not understood. Keys other than
//! `expected` are read and left alone.
//!
//! A subtest with no entry is expected to pass, or to be PRECONDITION_FAILED where the profile
//! lacks what its file `requires:`; a file with no entry is expected to be OK. Only what
//! differs from that is written.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::wpt::{default_subtest_expectation, subtest_status, test_id_under, test_status};
use crate::scenario::FileResult;

/// The statuses a wptreport result may have.
const STATUSES: &[&str] = &[
    "PASS",
    "FAIL",
    "OK",
    "ERROR",
    "TIMEOUT",
    "CRASH",
    "NOTRUN",
    "PRECONDITION_FAILED",
    "SKIP",
];

/// A metadata file that cannot be read.
#[derive(Debug, Error)]
pub enum MetadataError {
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    /// An `.ini` file that is not a regular file, too large, or not UTF-8.
    #[error(transparent)]
    Read(#[from] crate::text::file::ReadError),
    #[error("{path}:{line}: {message}")]
    Syntax {
        path: String,
        line: u32,
        message: String,
    },
}

/// The statuses expected of a result: the first is the expected one, the rest known
/// intermittent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation(pub Vec<String>);

impl Expectation {
    pub fn single(status: &str) -> Expectation {
        Expectation(vec![status.to_string()])
    }

    pub fn first(&self) -> &str {
        self.0.first().map(String::as_str).unwrap_or("PASS")
    }

    pub fn intermittent(&self) -> &[String] {
        self.0.get(1..).unwrap_or(&[])
    }

    pub fn allows(&self, status: &str) -> bool {
        self.0.iter().any(|s| s == status)
    }

    fn write(&self) -> String {
        match self.0.as_slice() {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        }
    }
}

/// A value with its conditions, in the order written: `(profiles, expectation)`, where no
/// profiles is the default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conditional {
    pub cases: Vec<(Vec<String>, Expectation)>,
    /// The line of the key, for messages.
    pub line: u32,
}

impl Conditional {
    /// The expectation under a profile: the first case that holds.
    pub fn under(&self, profile: &str) -> Option<&Expectation> {
        self.cases
            .iter()
            .find(|(profiles, _)| profiles.is_empty() || profiles.iter().any(|p| p == profile))
            .map(|(_, e)| e)
    }
}

/// The metadata of one test file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestMetadata {
    /// The `.ini` file it was read from.
    pub path: String,
    pub expected: Option<Conditional>,
    /// Each subtest's `expected`, in the order written.
    pub subtests: Vec<(String, Conditional)>,
}

/// Every test file's metadata, by test ID.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    pub tests: BTreeMap<String, TestMetadata>,
}

impl Metadata {
    /// What is expected of a file under a profile, when the metadata says.
    pub fn test(&self, id: &str, profile: &str) -> Option<Expectation> {
        self.tests
            .get(id)?
            .expected
            .as_ref()?
            .under(profile)
            .cloned()
    }

    /// What is expected of a subtest under a profile, when the metadata says.
    pub fn subtest(&self, id: &str, name: &str, profile: &str) -> Option<Expectation> {
        self.tests
            .get(id)?
            .subtests
            .iter()
            .find(|(n, _)| n == name)?
            .1
            .under(profile)
            .cloned()
    }

    /// Reads every `.ini` file under `dir` (`__dir__.ini`, wptrunner's per-folder defaults,
    /// says nothing about a test and is skipped).
    pub fn read_dir(dir: &Path) -> Result<Metadata, MetadataError> {
        let mut files = Vec::new();
        collect_ini(dir, &mut files).map_err(|error| MetadataError::Io {
            path: dir.display().to_string(),
            error,
        })?;
        files.sort();
        let mut out = Metadata::default();
        for f in files {
            let rel = f.strip_prefix(dir).unwrap_or(&f);
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let joined = parts.join("/");
            let Some(id) = joined.strip_suffix(".ini") else {
                continue;
            };
            let text = crate::text::file::read_text(&f, MAX_INI_BYTES, "an .ini file")?;
            let id = format!("/{id}");
            let test = parse(&f.display().to_string(), &id, &text)?;
            out.tests.insert(id, test);
        }
        Ok(out)
    }
}

/// The most bytes one `.ini` file may hold (wptrunner's are a few hundred).
pub const MAX_INI_BYTES: u64 = 1 << 20;

/// The `.ini` files under `dir`, each folder walked once however many links reach it (a link
/// to a folder above it does not loop). What is named `.ini` and is not a regular file is
/// listed, for the reader to refuse with its kind.
fn collect_ini(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    fn walk(
        dir: &Path,
        out: &mut Vec<PathBuf>,
        walked: &mut std::collections::BTreeSet<PathBuf>,
    ) -> std::io::Result<()> {
        if !walked.insert(std::fs::canonicalize(dir)?) {
            return Ok(());
        }
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out, walked)?;
            } else if path.extension().is_some_and(|e| e == "ini")
                && path.file_name().is_some_and(|n| n != "__dir__.ini")
            {
                out.push(path);
            }
        }
        Ok(())
    }
    walk(dir, out, &mut std::collections::BTreeSet::new())
}

/// A section heading's name: `\]` and `\\` are escapes.
fn unescape_heading(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn escape_heading(s: &str) -> String {
    s.replace('\\', "\\\\").replace(']', "\\]")
}

/// Where a heading's closing `]` is (the first one not escaped).
fn heading_end(s: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            ']' if !escaped => return Some(i),
            _ => escaped = false,
        }
    }
    None
}

/// Reads one `.ini` file: the metadata of the test `id`.
pub fn parse(path: &str, id: &str, text: &str) -> Result<TestMetadata, MetadataError> {
    let err = |line: usize, message: String| MetadataError::Syntax {
        path: path.to_string(),
        line: line as u32 + 1,
        message,
    };
    let file_name = id.rsplit('/').next().unwrap_or(id);
    let mut test = TestMetadata {
        path: path.to_string(),
        ..TestMetadata::default()
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut in_test = false;
    // The subtest whose keys follow, by index into test.subtests.
    let mut subtest: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        let indent = raw.len() - raw.trim_start_matches(' ').len();
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            i += 1;
            continue;
        }
        if raw.starts_with('\t') {
            return Err(err(i, "indent with spaces, not tabs".into()));
        }
        if let Some(rest) = line.strip_prefix('[') {
            let end = heading_end(rest).ok_or_else(|| err(i, "a heading ends with `]`".into()))?;
            if !rest[end + 1..].trim().is_empty() {
                return Err(err(i, "nothing may follow a heading's `]`".into()));
            }
            let name = unescape_heading(&rest[..end]);
            if indent == 0 {
                if in_test {
                    return Err(err(i, "one test per file".into()));
                }
                if name != file_name {
                    return Err(err(
                        i,
                        format!("the file is the metadata of {file_name}, not of {name}"),
                    ));
                }
                in_test = true;
                subtest = None;
            } else {
                if !in_test {
                    return Err(err(i, "a subtest's heading comes under its test's".into()));
                }
                if test.subtests.iter().any(|(n, _)| *n == name) {
                    return Err(err(i, format!("subtest {name:?} is named twice")));
                }
                test.subtests.push((name, Conditional::default()));
                subtest = Some(test.subtests.len() - 1);
            }
            i += 1;
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(err(
                i,
                format!("expected `[heading]` or `key: value`, found {line:?}"),
            ));
        };
        if !in_test {
            return Err(err(i, "keys come under the test's heading".into()));
        }
        let key = key.trim();
        let value = value.trim();
        let start = i;
        // A key with no value has its conditions on the lines below, indented further.
        let mut cases = Vec::new();
        if value.is_empty() {
            i += 1;
            while i < lines.len() {
                let raw = lines[i];
                let deeper = raw.len() - raw.trim_start_matches(' ').len() > indent;
                let l = raw.trim();
                if l.is_empty() || l.starts_with('#') {
                    i += 1;
                    continue;
                }
                if !deeper {
                    break;
                }
                cases.push(case(l).map_err(|m| err(i, m))?);
                i += 1;
            }
            if cases.is_empty() {
                return Err(err(start, format!("`{key}:` has no value")));
            }
        } else {
            cases.push((Vec::new(), value.to_string()));
            i += 1;
        }
        if key != "expected" {
            continue;
        }
        let cases = cases
            .into_iter()
            .map(|(profiles, v)| Ok((profiles, expectation(&v)?)))
            .collect::<Result<Vec<_>, String>>()
            .map_err(|m| err(start, m))?;
        let conditional = Conditional {
            cases,
            line: start as u32 + 1,
        };
        match subtest {
            Some(s) => test.subtests[s].1 = conditional,
            None => test.expected = Some(conditional),
        }
    }
    if !in_test {
        return Err(MetadataError::Syntax {
            path: path.to_string(),
            line: 1,
            message: format!("no [{file_name}] heading"),
        });
    }
    Ok(test)
}

/// One line of a conditional value: `if profile == "a" or profile == "b": VALUE`, or `VALUE`.
fn case(line: &str) -> Result<(Vec<String>, String), String> {
    let Some(cond) = line.strip_prefix("if ") else {
        return Ok((Vec::new(), line.to_string()));
    };
    // The condition ends at the colon after its last quoted name.
    let close = cond
        .rfind(['"', '\''])
        .ok_or("a condition names a profile: `if profile == \"NAME\": VALUE`")?;
    let (expr, rest) = cond.split_at(close + 1);
    let value = rest
        .trim_start()
        .strip_prefix(':')
        .ok_or("a condition is followed by `: VALUE`")?
        .trim();
    let mut profiles = Vec::new();
    for part in expr.split(" or ") {
        let part = part.trim();
        let name = part
            .strip_prefix("profile")
            .map(str::trim_start)
            .and_then(|p| p.strip_prefix("=="))
            .map(str::trim)
            .and_then(|p| {
                p.strip_prefix('"')
                    .and_then(|p| p.strip_suffix('"'))
                    .or_else(|| p.strip_prefix('\'').and_then(|p| p.strip_suffix('\'')))
            })
            .ok_or_else(|| {
                format!("only conditions on the profile are understood (`profile == \"NAME\"`), not {part:?}")
            })?;
        profiles.push(name.to_string());
    }
    Ok((profiles, value.to_string()))
}

fn expectation(value: &str) -> Result<Expectation, String> {
    let items: Vec<&str> = match value.strip_prefix('[') {
        Some(list) => list
            .strip_suffix(']')
            .ok_or("a list ends with `]`")?
            .split(',')
            .map(str::trim)
            .collect(),
        None => vec![value],
    };
    let mut out = Vec::new();
    for s in items {
        if !STATUSES.contains(&s) {
            return Err(format!(
                "unknown status {s:?} (one of {})",
                STATUSES.join(", ")
            ));
        }
        if out.iter().any(|o: &String| o == s) {
            return Err(format!("{s} is listed twice"));
        }
        out.push(s.to_string());
    }
    Ok(Expectation(out))
}

/// The text of a conditional value, under a key at `indent` spaces.
fn write_value(out: &mut String, indent: usize, c: &Conditional) {
    let pad = " ".repeat(indent);
    match c.cases.as_slice() {
        [(profiles, e)] if profiles.is_empty() => {
            let _ = writeln!(out, "{pad}expected: {}", e.write());
        }
        cases => {
            let _ = writeln!(out, "{pad}expected:");
            for (profiles, e) in cases {
                if profiles.is_empty() {
                    let _ = writeln!(out, "{pad}  {}", e.write());
                } else {
                    let cond: Vec<String> = profiles
                        .iter()
                        .map(|p| format!("profile == {p:?}"))
                        .collect();
                    let _ = writeln!(out, "{pad}  if {}: {}", cond.join(" or "), e.write());
                }
            }
        }
    }
}

/// The `.ini` text of one test's metadata.
pub fn write(id: &str, test: &TestMetadata) -> String {
    let mut out = String::new();
    let name = id.rsplit('/').next().unwrap_or(id);
    let _ = writeln!(out, "[{}]", escape_heading(name));
    if let Some(e) = &test.expected {
        write_value(&mut out, 2, e);
    }
    for (name, e) in &test.subtests {
        let _ = writeln!(out, "  [{}]", escape_heading(name));
        write_value(&mut out, 4, e);
    }
    out
}

/// One value per profile, folded into conditions: a profile whose expectation is the default
/// gets none; when every profile run has the same one, it is written without a condition.
fn fold(per_profile: &[(String, Option<Expectation>)]) -> Option<Conditional> {
    let non_default: Vec<&(String, Option<Expectation>)> =
        per_profile.iter().filter(|(_, e)| e.is_some()).collect();
    if non_default.is_empty() {
        return None;
    }
    if non_default.len() == per_profile.len() && non_default.windows(2).all(|w| w[0].1 == w[1].1) {
        let e = non_default[0].1.clone()?;
        return Some(Conditional {
            cases: vec![(Vec::new(), e)],
            line: 0,
        });
    }
    // One case per distinct expectation, naming its profiles, in the order first met.
    let mut cases: Vec<(Vec<String>, Expectation)> = Vec::new();
    for (p, e) in non_default {
        let Some(e) = e else { continue };
        match cases.iter_mut().find(|(_, x)| x == e) {
            Some((ps, _)) => ps.push(p.clone()),
            None => cases.push((vec![p.clone()], e.clone())),
        }
    }
    Some(Conditional { cases, line: 0 })
}

/// The expectation to write for a result: `None` when it is the default. The metadata read
/// before (`previous`) is kept when it already expects the result, intermittent statuses
/// included; otherwise the result is what is expected now.
fn to_write(status: &str, default: &str, previous: Option<Expectation>) -> Option<Expectation> {
    let e = match previous {
        Some(p) if p.allows(status) => p,
        _ => Expectation::single(status),
    };
    (e != Expectation::single(default)).then_some(e)
}

/// The metadata that expects exactly what the runs gave (one run per profile, over the same
/// files), keeping the intermittent statuses `previous` lists for results it expected: a
/// `(relative path, text)` per file, `None` for a file with nothing to expect (whose `.ini`,
/// if any, is then removed).
pub fn from_runs(
    runs: &[(String, Vec<FileResult>)],
    previous: Option<&Metadata>,
    wpt_root: Option<&Path>,
) -> Vec<(String, Option<String>)> {
    let Some((_, first)) = runs.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (fi, file) in first.iter().enumerate() {
        let id = test_id_under(&file.path, wpt_root);
        let mut test = TestMetadata::default();
        let per_profile: Vec<(String, Option<Expectation>)> = runs
            .iter()
            .map(|(profile, files)| {
                let prev = previous.and_then(|m| m.test(&id, profile));
                (
                    profile.clone(),
                    to_write(test_status(&files[fi]), "OK", prev),
                )
            })
            .collect();
        test.expected = fold(&per_profile);
        for (si, sub) in file.subtests.iter().enumerate() {
            let per_profile: Vec<(String, Option<Expectation>)> = runs
                .iter()
                .map(|(profile, files)| {
                    let s = &files[fi].subtests[si];
                    let prev = previous.and_then(|m| m.subtest(&id, &s.name, profile));
                    (
                        profile.clone(),
                        to_write(
                            subtest_status(s.status),
                            default_subtest_expectation(s),
                            prev,
                        ),
                    )
                })
                .collect();
            if let Some(c) = fold(&per_profile) {
                test.subtests.push((sub.name.clone(), c));
            }
        }
        let path = format!("{}.ini", id.trim_start_matches('/'));
        let text =
            (test.expected.is_some() || !test.subtests.is_empty()).then(|| write(&id, &test));
        out.push((path, text));
    }
    out
}

/// What a run came to against the metadata.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Check {
    /// `(test ID, subtest or None for the file, profile, status, expected statuses)`.
    pub unexpected: Vec<Unexpected>,
    /// Entries that name no test or subtest that was run, or expect only the default.
    pub stale: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unexpected {
    pub test: String,
    pub subtest: Option<String>,
    pub profile: String,
    pub status: String,
    pub expected: Expectation,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.unexpected.is_empty() && self.stale.is_empty()
    }

    /// The check, for people: each unexpected result and each stale entry.
    pub fn human(&self, dir: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\nAgainst the expectations in {dir}: {} unexpected result(s), {} stale entr{}",
            self.unexpected.len(),
            self.stale.len(),
            if self.stale.len() == 1 { "y" } else { "ies" }
        );
        for u in &self.unexpected {
            let what = match &u.subtest {
                Some(s) => format!("{} :: {s:?}", u.test),
                None => u.test.clone(),
            };
            let _ = writeln!(
                out,
                "    UNEXPECTED {} (expected {}) [{}]  {what}",
                u.status,
                u.expected.write(),
                u.profile
            );
        }
        for s in &self.stale {
            let _ = writeln!(out, "    STALE      {s}");
        }
        out
    }
}

/// Compares runs (one per profile) with the metadata. `whole_suite`: the files run are all
/// the metadata is about, so an entry for a file not run is stale too.
pub fn check(
    runs: &[(String, Vec<FileResult>)],
    metadata: &Metadata,
    wpt_root: Option<&Path>,
    whole_suite: bool,
) -> Check {
    let mut out = Check::default();
    let mut seen_tests = Vec::new();
    let Some((_, first)) = runs.first() else {
        return out;
    };
    for (fi, file) in first.iter().enumerate() {
        let id = test_id_under(&file.path, wpt_root);
        seen_tests.push(id.clone());
        for (profile, files) in runs {
            let f = &files[fi];
            let status = test_status(f);
            let expected = metadata
                .test(&id, profile)
                .unwrap_or_else(|| Expectation::single("OK"));
            if !expected.allows(status) {
                out.unexpected.push(Unexpected {
                    test: id.clone(),
                    subtest: None,
                    profile: profile.clone(),
                    status: status.into(),
                    expected,
                });
            }
            for s in &f.subtests {
                let status = subtest_status(s.status);
                let expected = metadata
                    .subtest(&id, &s.name, profile)
                    .unwrap_or_else(|| Expectation::single(default_subtest_expectation(s)));
                if !expected.allows(status) {
                    out.unexpected.push(Unexpected {
                        test: id.clone(),
                        subtest: Some(s.name.clone()),
                        profile: profile.clone(),
                        status: status.into(),
                        expected,
                    });
                }
            }
        }
        let Some(test) = metadata.tests.get(&id) else {
            continue;
        };
        // A subtest filter runs some subtests only: an entry for another says nothing.
        let all_run = file.subtests.len();
        for (name, c) in &test.subtests {
            let Some(si) = file.subtests.iter().position(|s| s.name == *name) else {
                if all_run > 0 {
                    out.stale.push(format!(
                        "{}:{}: [{name}]: {id} has no such subtest",
                        test.path, c.line
                    ));
                }
                continue;
            };
            let says_something = runs.iter().any(|(profile, files)| {
                let s = &files[fi].subtests[si];
                c.under(profile)
                    .is_some_and(|e| *e != Expectation::single(default_subtest_expectation(s)))
            });
            if !says_something {
                out.stale.push(format!(
                    "{}:{}: [{name}]: expects only what is expected without it under {}",
                    test.path,
                    c.line,
                    runs.iter()
                        .map(|r| r.0.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }
    if whole_suite {
        for (id, test) in &metadata.tests {
            if !seen_tests.contains(id) {
                out.stale
                    .push(format!("{}: no test {id} was run", test.path));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_back_as_written() {
        let test = TestMetadata {
            path: String::new(),
            expected: Some(Conditional {
                cases: vec![(Vec::new(), Expectation::single("ERROR"))],
                line: 0,
            }),
            subtests: vec![
                (
                    "a ] and a \\ in a name".into(),
                    Conditional {
                        cases: vec![(Vec::new(), Expectation::single("FAIL"))],
                        line: 0,
                    },
                ),
                (
                    "intermittent under two profiles".into(),
                    Conditional {
                        cases: vec![
                            (
                                vec!["chromium-156".into(), "text".into()],
                                Expectation(vec!["FAIL".into(), "PASS".into()]),
                            ),
                            (Vec::new(), Expectation::single("PASS")),
                        ],
                        line: 0,
                    },
                ),
            ],
        };
        let text = write("/webmcp/x.https.html", &test);
        assert_eq!(
            text,
            "[x.https.html]\n  expected: ERROR\n  [a \\] and a \\\\ in a name]\n    expected: FAIL\n  [intermittent under two profiles]\n    expected:\n      if profile == \"chromium-156\" or profile == \"text\": [FAIL, PASS]\n      PASS\n"
        );
        let back = parse("x.ini", "/webmcp/x.https.html", &text).unwrap();
        assert_eq!(
            back.expected.as_ref().unwrap().cases,
            test.expected.unwrap().cases
        );
        assert_eq!(back.subtests.len(), 2);
        for ((n1, c1), (n2, c2)) in back.subtests.iter().zip(&test.subtests) {
            assert_eq!(n1, n2);
            assert_eq!(c1.cases, c2.cases);
        }
        let c = &back.subtests[1].1;
        assert_eq!(c.under("text").unwrap().intermittent(), ["PASS"]);
        assert_eq!(c.under("spec").unwrap().first(), "PASS");
    }

    #[test]
    fn a_malformed_file_says_where() {
        let e = parse(
            "x.ini",
            "/x.https.html",
            "[x.https.html]\n  [s]\n    expected: MAYBE\n",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("x.ini:3: unknown status \"MAYBE\""),
            "{e}"
        );
        let e = parse("x.ini", "/x.https.html", "[y.https.html]\n").unwrap_err();
        assert!(e.to_string().contains("not of y.https.html"), "{e}");
        let e = parse(
            "x.ini",
            "/x.https.html",
            "[x.https.html]\n  [s]\n    expected:\n      if os == \"linux\": FAIL\n",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("x.ini:4: only conditions on the profile"),
            "{e}"
        );
    }
}
