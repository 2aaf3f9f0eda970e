//! Export of scenario files as WPT `testharness.js` tests (`webmcp-ref export-wpt`).
//!
//! Each scenario file becomes one `.https.html` test with one `promise_test` per subtest. The
//! test runs in one page: the scenario's first page is the test page (origin `https://a.test`),
//! its iframes are helper pages (`resources/webmcp-ref-frame.html`) on the origin each one
//! names, mapped at run time: `https://a.test` to the test's own origin, `https://b.test` to
//! WPT's `HTTPS_REMOTE_ORIGIN`, `https://c.test` to `HTTPS_OTHER_NOTSAMESITE_ORIGIN` (from
//! `/common/get-host-info.sub.js`, which `webmcp-ref diff-browser` serves too). A
//! same-origin iframe's script runs in that iframe's realm (the block's source is evaluated
//! there); a cross-origin iframe gets it by `postMessage` and posts back its log lines and the
//! values it binds. The simulation's drives (`run`, `flush`) become waits in real time: the
//! engine's own run of the exported lines says how much virtual time each covers, and the
//! test waits that long plus a margin that never reaches the next timer (see
//! resources/webmcp-ref.js, `run`). What a page cannot do by itself is left out, with a
//! comment naming the line, and the subtest's name says so (see [`translate`]).
//!
//! - [`translate`]: a subtest's lines, as the statements of its `promise_test`;
//! - `expectations`: an expectation as a check;
//! - `drives`: the timing of each `run` and `flush`;
//! - `scene`: what the test page holds at a line, for the page script's emission
//!   (`crate::script::emit`), which writes the scripts;
//! - [`origins`]: the scenario's origins, and how the test maps them.

mod drives;
mod expectations;
pub mod issue_report;
pub mod origins;
mod scene;
pub mod translate;

use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::engine::profile::Profile;
use crate::scenario::ast::{ScenarioFile, Tag};
use crate::scenario::runner::{asserts_beyond_the_text, unmet_requirement};
use crate::script::js;
pub use translate::LeftOut;

/// The test's helper: the world of the exported subtests (frames, tasks, names, the log, the
/// waits, the checks), loaded by the test page and by every helper frame.
pub const HELPER_JS: &str = include_str!("assets/webmcp-ref.js");
/// The page every scenario iframe loads.
pub const FRAME_HTML: &str = include_str!("assets/webmcp-ref-frame.html");
/// A `testharness.js`-compatible runtime, for running exported tests without a WPT checkout.
pub const TESTHARNESS_JS: &str = include_str!("assets/testharness.js");
/// The report of results that `webmcp-ref diff-browser` collects (POSTs them to its server).
pub const TESTHARNESSREPORT_JS: &str = include_str!("assets/testharnessreport.js");

/// The folder, below the root of the exported tree (a WPT checkout's root), of the helpers
/// every exported test loads: one copy, shared by all of them.
pub const RESOURCE_FOLDER: &str = "webmcp/webmcp-ref/resources";

/// The helpers, by their file names in [`RESOURCE_FOLDER`].
pub const RESOURCES: [(&str, &str); 2] = [
    ("webmcp-ref.js", HELPER_JS),
    ("webmcp-ref-frame.html", FRAME_HTML),
];

/// Appended to the name of a subtest exported without some of its lines.
pub const MARK: &str = " [exported without: ";

/// One exported file.
#[derive(Clone, Debug, Serialize)]
pub struct ExportedFile {
    /// The scenario file it came from.
    pub source: String,
    /// Its path in a WPT checkout: `webmcp/readiness/child-frames.https.html`.
    pub test_path: String,
    pub title: String,
    pub profile: String,
    #[serde(skip)]
    pub html: String,
    pub subtests: Vec<ExportedSubtest>,
    /// How long the test is expected to take in a browser, in seconds (an estimate).
    pub expected_seconds: f64,
    /// A crash test (its name ends in `-crash`, as WPT reads names): it runs the subtests'
    /// lines and asserts nothing.
    pub crash_test: bool,
    /// The test page's response headers, written to a `.headers` file beside it (WPT's
    /// convention, which wptserve and `diff-browser` read): the ones its subtests' `page`
    /// lines ask for.
    pub headers: Vec<(String, String)>,
}

/// One subtest of an exported file.
#[derive(Clone, Debug, Serialize)]
pub struct ExportedSubtest {
    /// The scenario's name for it.
    pub name: String,
    pub line: u32,
    /// The `promise_test`'s name, or `None` when nothing of it could be exported (it has no
    /// expectation a page can check).
    pub exported_name: Option<String>,
    pub left_out: Vec<LeftOut>,
    /// Every line that changes the world was exported, so the browser's log can be compared
    /// with the engine's.
    pub log_comparable: bool,
    pub checks: usize,
}

impl ExportedFile {
    /// The subtests exported as testharness.js subtests.
    pub fn exported(&self) -> impl Iterator<Item = &ExportedSubtest> {
        self.subtests.iter().filter(|s| s.exported_name.is_some())
    }

    /// Whether the file is a test at all: a crash test, or a testharness.js test with at least
    /// one subtest (testharness.js never completes a file that defines none). A file without
    /// one is not written.
    pub fn has_test(&self) -> bool {
        self.crash_test || self.exported().next().is_some()
    }
}

/// Whether WPT reads a test path as a crash test's: the last `-` part of its name (before the
/// first `.`) is `crash`, or it is in a `crashtests` folder.
pub fn is_crash_test(test_path: &str) -> bool {
    let (folders, name) = test_path.rsplit_once('/').unwrap_or(("", test_path));
    let stem = name.split('.').next().unwrap_or(name);
    stem.rsplit_once('-')
        .is_some_and(|(_, flag)| flag == "crash")
        || folders.split('/').any(|f| f == "crashtests")
}

/// A scenario file's place in a WPT checkout, as its test ID without the leading `/` (see
/// [`crate::report::wpt`]): below [`crate::report::wpt::TEST_FOLDER`], at its path below the
/// nearest folder holding `webmcp/` (`wpt-mirror/`), or its own name; `.tentative` when it
/// asserts what the text does not say; always ending in `.https.html`.
pub fn test_path(file: &ScenarioFile) -> String {
    test_path_under(file, None)
}

/// [`test_path`] below a given WPT root (`--wpt-root`).
pub fn test_path_under(file: &ScenarioFile, wpt_root: Option<&Path>) -> String {
    crate::report::wpt::test_id_under(&file.path, wpt_root, asserts_beyond_the_text(file))
        .trim_start_matches('/')
        .to_string()
}

/// Exports one scenario file under a profile (whose expectations it asserts).
/// The page-side check of one `requires:` tag: a JavaScript condition true where the browser
/// has what the tag names. Only features a page can detect have one.
fn feature_check(tag: &Tag) -> Option<&'static str> {
    match tag {
        Tag::Switch(name, value) if name == "readiness-api" => Some(match value.as_str() {
            "pr373" => "\"waitForToolsUntil\" in document.modelContext",
            _ => "!(\"waitForToolsUntil\" in document.modelContext)",
        }),
        _ => None,
    }
}

/// The `assert_implements_optional` line a file's `requires:` becomes, so that a browser
/// without the feature reports PRECONDITION_FAILED as the engine does; `None` when a tag has no
/// page-side check.
fn requirement_check(file: &ScenarioFile) -> Option<Option<String>> {
    if file.requires.is_empty() {
        return Some(None);
    }
    let checks: Option<Vec<&str>> = file.requires.iter().map(feature_check).collect();
    let wanted: Vec<String> = file.requires.iter().map(ToString::to_string).collect();
    checks.map(|c| {
        Some(format!(
            "assert_implements_optional({}, {});",
            c.join(" || "),
            js::string(&format!("the scenario requires {}", wanted.join(" or ")))
        ))
    })
}

pub fn export_file(file: &ScenarioFile, profile: &Profile) -> ExportedFile {
    export_file_under(file, profile, None)
}

/// [`export_file`], the file's WPT path taken below `wpt_root` (`--wpt-root`). The generated
/// test names its scenario by that path, never by the path it was read from, so that the same
/// scenario exports to the same test on every machine.
pub fn export_file_under(
    file: &ScenarioFile,
    profile: &Profile,
    wpt_root: Option<&Path>,
) -> ExportedFile {
    let test_path = test_path_under(file, wpt_root);
    let crash_test = is_crash_test(&test_path);
    let mut body = String::new();
    let mut subtests = Vec::new();
    let mut seconds = 0.5;
    let requirement = requirement_check(file);
    let unmet = unmet_requirement(file, profile).is_some();
    // The file's headers are those of its first subtest that exports anything; one page
    // serves every subtest, so a subtest whose page asks for other headers is left out.
    let mut headers: Option<Vec<(String, String)>> = None;
    for sub in &file.subtests {
        let mut t = translate::translate(file, sub, profile, crash_test);
        if t.checks > 0 || crash_test {
            match &headers {
                None => headers = Some(t.page_headers.clone()),
                Some(h) if *h != t.page_headers => {
                    t.checks = 0;
                    t.left_out.push(LeftOut {
                        line: sub.line,
                        kind: "headers",
                        text: format!("subtest {:?}", sub.name),
                        why: format!(
                            "its page's headers ({}) are not the test page's ({}), which one file's subtests share",
                            shown_headers(&t.page_headers),
                            shown_headers(h)
                        ),
                    });
                }
                Some(_) => {}
            }
        }
        // A crash test of a profile that lacks what the scenario requires: the engine does not
        // run the subtest, and a crash test has no way to say PRECONDITION_FAILED.
        if crash_test && unmet {
            body.push_str(&format!(
                "\n// Scenario line {}: subtest {} is not run: the profile lacks what the scenario requires.\n",
                sub.line,
                js::comment(&js::string(&sub.name))
            ));
            subtests.push(ExportedSubtest {
                name: sub.name.clone(),
                line: sub.line,
                exported_name: None,
                left_out: vec![requirement_left_out(file)],
                log_comparable: false,
                checks: 0,
            });
            continue;
        }
        // A requirement a page can check, unmet by the profile: the engine does not run the
        // subtest, so the test is that check alone (a browser without the feature reports
        // PRECONDITION_FAILED, as the engine does; one with it, a failure: the profile is
        // wrong about it).
        if unmet && matches!(requirement, Some(Some(_))) {
            t.body = vec![
                "// The profile the test was exported under lacks what the scenario requires:"
                    .into(),
                "// the engine does not run it, and neither should a browser without it.".into(),
                "assert_unreached(\"the browser has what the profile lacks\");".into(),
            ];
            t.left_out.clear();
            t.checks = 1;
            t.cut = true;
            t.virtual_ms = 0;
            t.drives = 0;
        }
        // A requirement no page can check, unmet by the profile: the engine does not run the
        // subtest, and the browser cannot tell it apart.
        if requirement.is_none() && unmet {
            t.checks = 0;
            t.left_out.push(requirement_left_out(file));
        }
        let mut kinds: Vec<&str> = Vec::new();
        for l in &t.left_out {
            if l.kind != "after" && !kinds.contains(&l.kind) {
                kinds.push(l.kind);
            }
        }
        let exported_name = if t.checks == 0 {
            None
        } else if kinds.is_empty() {
            Some(sub.name.clone())
        } else {
            Some(format!("{}{MARK}{}]", sub.name, kinds.join(", ")))
        };
        body.push('\n');
        let runs = crash_test || exported_name.is_some();
        if runs {
            body.push_str(&format!(
                "// Scenario line {}: subtest {}\n{}(async t => {{\n  const {{s, w}} = webmcpRef.subtest(t, {});\n",
                sub.line,
                js::comment(&js::string(&sub.name)),
                if crash_test { "webmcpRef.crash_test" } else { "promise_test" },
                js::string(&sub.name)
            ));
            if let (false, Some(Some(check))) = (crash_test, &requirement) {
                body.push_str(&format!("  {check}\n"));
            }
            for l in &t.body {
                body.push_str("  ");
                body.push_str(l);
                body.push('\n');
            }
            let name = exported_name.as_deref().unwrap_or(&sub.name);
            body.push_str(&format!("  await w.end();\n}}, {});\n", js::string(name)));
            seconds +=
                0.3 + t.virtual_ms as f64 / 1000.0 + 1.1 * t.drives as f64 + 0.3 * t.frames as f64;
        } else {
            body.push_str(&format!(
                "// Scenario line {}: subtest {} is not exported: no expectation of it is\n// something a page can check.\n",
                sub.line,
                js::comment(&js::string(&sub.name))
            ));
            for l in &t.left_out {
                body.push_str(&format!(
                    "//   {}: {} ({})\n",
                    l.line,
                    js::comment(&l.text),
                    js::comment(&l.why)
                ));
            }
        }
        subtests.push(ExportedSubtest {
            name: sub.name.clone(),
            line: sub.line,
            exported_name,
            log_comparable: !t.cut,
            left_out: t.left_out,
            checks: t.checks,
        });
    }
    let scenario = crate::report::wpt::scenario_path(&file.path, wpt_root);
    let html = page(file, &scenario, profile, &body, seconds, crash_test);
    ExportedFile {
        source: file.path.clone(),
        test_path,
        title: file.title.clone(),
        profile: profile.name.clone(),
        html,
        subtests,
        expected_seconds: seconds,
        crash_test,
        headers: headers.unwrap_or_default(),
    }
}

fn shown_headers(headers: &[(String, String)]) -> String {
    if headers.is_empty() {
        return "none".into();
    }
    headers
        .iter()
        .map(|(n, v)| format!("{n}: {v}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// What a subtest leaves out when the profile does not meet the file's `requires:`.
fn requirement_left_out(file: &ScenarioFile) -> LeftOut {
    LeftOut {
        line: 1,
        kind: "requires",
        text: format!(
            "requires: {}",
            file.requires
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        why: "the profile does not meet it, and a page cannot check it".into(),
    }
}

fn page(
    file: &ScenarioFile,
    scenario: &str,
    profile: &Profile,
    body: &str,
    seconds: f64,
    crash_test: bool,
) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n");
    if crash_test {
        // A crash test ends when its root element loses this class.
        out.push_str("<html class=\"test-wait\">\n");
    }
    out.push_str(&format!(
        "<!-- Generated by `webmcp-ref export-wpt` from {} (profile {}).\n     {}\n     /{RESOURCE_FOLDER}/webmcp-ref.js says how each line is carried out in a page. -->\n",
        html_text(scenario),
        html_text(&profile.name),
        if crash_test {
            "A crash test: each subtest of the scenario runs in turn, and nothing is asserted;\n     its comments give the scenario's lines."
        } else {
            "Each promise_test is a subtest of the scenario; its comments give the scenario's lines."
        }
    ));
    out.push_str("<meta charset=\"utf-8\">\n");
    out.push_str(&format!("<title>{}</title>\n", html_text(&file.title)));
    if seconds > 8.0 {
        out.push_str("<meta name=\"timeout\" content=\"long\">\n");
    }
    for anchor in &file.spec {
        for a in anchor.split_whitespace() {
            if let Some(fragment) = a.strip_prefix('#') {
                out.push_str(&format!(
                    "<link rel=\"help\" href=\"https://webmachinelearning.github.io/webmcp/#{}\">\n",
                    html_text(fragment)
                ));
            }
        }
    }
    if !crash_test {
        out.push_str("<script src=\"/resources/testharness.js\"></script>\n");
        out.push_str("<script src=\"/resources/testharnessreport.js\"></script>\n");
    }
    out.push_str("<script src=\"/common/get-host-info.sub.js\"></script>\n");
    out.push_str(&format!(
        "<script src=\"/{RESOURCE_FOLDER}/webmcp-ref.js\"></script>\n"
    ));
    out.push_str("<body>\n<script>\n");
    for m in &file.mirrors {
        out.push_str(&format!("// mirrors: {}\n", js::comment(m)));
    }
    if !crash_test {
        // Exceptions a scenario's script throws are the subtest's to check (`expect
        // uncaught`), not the harness's.
        out.push_str("setup({allow_uncaught_exception: true});\n");
    }
    out.push_str(&format!(
        "webmcpRef.file({{scenario: {}, profile: {}}});\n",
        js::string(scenario),
        js::string(&profile.name)
    ));
    out.push_str(body);
    out.push_str("</script>\n");
    out
}

fn html_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Writes exported files under `out` (each at its test path), and the helpers once, in
/// [`RESOURCE_FOLDER`]. A file with no test ([`ExportedFile::has_test`]) is not written.
/// Returns the paths written.
pub fn write_tree(files: &[ExportedFile], out: &Path) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for f in files.iter().filter(|f| f.has_test()) {
        let path = out.join(&f.test_path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&path, &f.html)?;
        written.push(path.clone());
        if !f.headers.is_empty() {
            let mut headers_path = path.into_os_string();
            headers_path.push(".headers");
            let text: String = f
                .headers
                .iter()
                .map(|(n, v)| format!("{n}: {v}\n"))
                .collect();
            std::fs::write(&headers_path, text)?;
            written.push(headers_path.into());
        }
    }
    let resources = out.join(RESOURCE_FOLDER);
    std::fs::create_dir_all(&resources)?;
    for (name, text) in RESOURCES {
        let path = resources.join(name);
        std::fs::write(&path, text)?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_tests_are_named_as_wpt_reads_names() {
        assert!(is_crash_test("webmcp/webmcp-ref/a/x-crash.https.html"));
        assert!(is_crash_test("webmcp/crashtests/x.html"));
        assert!(!is_crash_test("webmcp/webmcp-ref/a/x-crashes.https.html"));
        assert!(!is_crash_test("webmcp/webmcp-ref/a-crash/x.https.html"));
    }
}
