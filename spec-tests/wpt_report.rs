//! What WPT's tools read: wptreport JSON as wptrunner writes it (checked against the
//! `wptreport` crate's types and the fields wpt.fyi's results processor requires), test IDs
//! that are WPT paths whatever path or working directory is given, the same paths in exported
//! tests, and WPT expectation metadata written and read back.

use std::path::{Path, PathBuf};

#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use wptreport::wpt_report::{SubtestStatus, TestStatus, WptReport};
use crate::common::{webmcp_ref, webmcp_ref_in};

/// A scratch folder of this file's, emptied.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "webmcp-ref-wpt-report-{}/{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: &str) -> String {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    path.display().to_string()
}

/// One subtest that passes, one that fails under pr373-r1 only (tools-ready right after
/// `waitForToolsUntil(42)`), and one whose line cannot be carried out (a traversable closed twice).
const THREE: &str = "title: t\n\nsubtest \"passes\"\n  page top https://a.test/\n  expect top.toolsReady == true\n\nsubtest \"fails under pr373-r1\"\n  page top https://a.test/\n  task in top: top.waitForToolsUntil(42)\n  step\n  expect top.toolsReady == true\n\nsubtest \"cannot be carried out\"\n  page top https://a.test/\n  close top\n  close top\n";

/// Where THREE's metadata is, below the metadata folder.
const THREE_INI: &str = "webmcp/webmcp-ref/three.https.html.ini";

fn report(out: &str) -> (WptReport, serde_json::Value) {
    // A subtest's name may hold a lone surrogate, which the report writes as JSON's escape of
    // it (as wptrunner's Python `json` does); serde_json refuses that escape, which JSON's
    // grammar allows, so the reader here takes it as the engine's reader of JSON does.
    let out = &*webmcp_ref::text::js_string::unescape_lone_surrogates_in_json(out);
    let typed: WptReport = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}\n{out}"));
    let raw: serde_json::Value = serde_json::from_str(out).unwrap();
    (typed, raw)
}

/// What wpt.fyi's results processor reads from a report, and refuses it without: `results`;
/// `run_info.product`, `browser_version`, `os` and `revision` (the revision names the run's
/// folder, its first ten characters the run); `time_start` and `time_end` in milliseconds
/// since the epoch; every result a `test` that starts with `/`, once, a `status`, and a
/// `subtests` list whose items have a `status`.
fn assert_wpt_fyi_accepts(raw: &serde_json::Value) {
    let info = &raw["run_info"];
    for key in ["product", "browser_version", "os", "revision"] {
        assert!(
            info[key].as_str().is_some_and(|v| !v.is_empty()),
            "run_info.{key} missing: {info}"
        );
    }
    let revision = info["revision"].as_str().unwrap();
    assert!(
        revision.len() == 40 && revision.chars().all(|c| c.is_ascii_hexdigit()),
        "{revision}"
    );
    let start = raw["time_start"].as_u64().expect("time_start");
    let end = raw["time_end"].as_u64().expect("time_end");
    // After 2020, in milliseconds.
    assert!(start > 1_577_836_800_000 && start <= end, "{start} {end}");
    let results = raw["results"].as_array().expect("results");
    assert!(!results.is_empty());
    let mut ids = std::collections::BTreeSet::new();
    for r in results {
        let id = r["test"].as_str().expect("test");
        assert!(id.starts_with('/'), "{id}");
        assert!(ids.insert(id), "{id} twice");
        assert!(r["status"].is_string(), "{r}");
        for s in r["subtests"].as_array().expect("subtests") {
            assert!(s["status"].is_string(), "{s}");
        }
    }
}

#[test]
fn the_bundled_suites_wptreport_reads_as_the_wptreport_crates_types_and_as_wpt_fyi_needs() {
    let (code, out, err) = webmcp_ref(&["run", "--format", "wptreport"]);
    assert_eq!(code, 0, "{err}");
    let (typed, raw) = report(&out);
    assert_eq!(typed.run_info.product(), Some("webmcp-ref"));
    assert_eq!(
        typed.run_info.browser_version(),
        Some(env!("CARGO_PKG_VERSION"))
    );
    // `revision` is what wpt.fyi means by it, the commit of the test tree (this checkout, for
    // the bundled suite); the WebMCP text's commit has a key of its own.
    let checkout = webmcp_ref::report::git::head(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert_eq!(typed.run_info.revision().map(str::to_string), checkout);
    assert_eq!(
        raw["run_info"]["spec_revision"],
        webmcp_ref::webmcp::TEXT_COMMIT
    );
    assert_eq!(raw["run_info"]["profile"], "spec");
    // Every run_info value is hashable, as wptrunner's updater (RunInfo.__hash__) needs: a
    // string or a boolean, never a list; each switch is a property of its own.
    let info = raw["run_info"].as_object().unwrap();
    assert!(
        info.values().all(|v| v.is_string() || v.is_boolean()),
        "{info:?}"
    );
    assert_eq!(info["readiness_api"], "pr373");
    assert_eq!(info["switches"], "");
    assert!(typed.time_start <= typed.time_end);
    assert!(typed
        .results
        .iter()
        .any(|r| r.test == "/webmcp/webmcp-ref/readiness/child-frames.tentative.https.html"));
    for r in &typed.results {
        assert!(r.test.starts_with("/webmcp/webmcp-ref/") && r.test.ends_with(".https.html"));
        assert_eq!(r.status, TestStatus::Ok, "{}", r.test);
    }
    assert_wpt_fyi_accepts(&raw);
    // Every result is expected: no `expected` anywhere.
    assert!(!out.contains("\"expected\""), "{out}");
    // Under the published text alone, the readiness files are PRECONDITION_FAILED, as their
    // `requires:` says; with no metadata, wptrunner expects PASS of them, and so does the
    // report (the run itself holds: exit 0).
    let (code, out, _) = webmcp_ref(&["run", "--format", "wptreport", "--profile", "text"]);
    assert_eq!(code, 0);
    let (typed, raw) = report(&out);
    let child = typed
        .results
        .iter()
        .find(|r| r.test == "/webmcp/webmcp-ref/readiness/child-frames.tentative.https.html")
        .unwrap();
    assert!(child
        .subtests
        .iter()
        .all(|s| s.status == SubtestStatus::PreconditionFailed));
    let child = raw["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["test"] == "/webmcp/webmcp-ref/readiness/child-frames.tentative.https.html")
        .unwrap();
    assert!(child["subtests"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["expected"] == "PASS"));
    assert_eq!(raw["run_info"]["readiness_api"], "none");
    assert_eq!(raw["run_info"]["switches"], "readiness-api=none");
}

#[test]
fn expected_is_written_only_for_unexpected_results_and_every_error_has_a_message() {
    let dir = scratch("three");
    let path = write(&dir.join("three.scn"), THREE);
    let (code, out, _) = webmcp_ref(&["run", &path, "--format", "wptreport", "--profile", "pr373-r1"]);
    assert_eq!(code, 1);
    let (typed, raw) = report(&out);
    assert_wpt_fyi_accepts(&raw);
    let test = &raw["results"][0];
    assert_eq!(test["test"], "/webmcp/webmcp-ref/three.https.html");
    assert_eq!(test["status"], "ERROR");
    assert_eq!(test["expected"], "OK");
    let message = test["message"].as_str().expect("an ERROR has a message");
    assert!(
        message.contains("\"cannot be carried out\"") && message.contains("top was already removed or closed"),
        "{message}"
    );
    let subtests = test["subtests"].as_array().unwrap();
    assert_eq!(subtests[0]["status"], "PASS");
    assert!(subtests[0].get("expected").is_none(), "{}", subtests[0]);
    assert_eq!(subtests[1]["status"], "FAIL");
    assert_eq!(subtests[1]["expected"], "PASS");
    assert!(subtests[1]["message"]
        .as_str()
        .unwrap()
        .contains("expect top.toolsReady == true (expected true, got false)"));
    assert_eq!(subtests[2]["status"], "FAIL");
    assert!(!subtests[2]["message"].is_null());
    assert_eq!(typed.results[0].status, TestStatus::Error);
}

#[test]
fn a_test_id_is_the_wpt_path_whatever_path_or_working_directory_is_given() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let id_of = |dir: &Path, file: &str, extra: &[&str]| {
        let mut args = vec!["run", file, "--format", "wptreport"];
        args.extend_from_slice(extra);
        let (code, out, err) = webmcp_ref_in(dir, &args);
        assert_eq!(code, 0, "{err}");
        report(&out).0.results[0].test.clone()
    };
    let child = "/webmcp/webmcp-ref/readiness/child-frames.tentative.https.html";
    assert_eq!(id_of(root, "wpt-mirror/webmcp/readiness/child-frames.https.html.scn", &[]), child);
    assert_eq!(
        id_of(&root.join("wpt-mirror/webmcp"), "readiness/child-frames.https.html.scn", &[]),
        child
    );
    let absolute = root.join("wpt-mirror/webmcp/readiness/child-frames.https.html.scn");
    assert_eq!(
        id_of(&std::env::temp_dir(), &absolute.display().to_string(), &[]),
        child
    );
    assert_eq!(
        id_of(
            &root.join("wpt-mirror/webmcp/readiness"),
            "../readiness/./child-frames.https.html.scn",
            &[]
        ),
        child
    );

    // Outside wpt-mirror: below the nearest folder holding webmcp/, or below --wpt-root, or the
    // file's own name; export-wpt writes the same path, into the test it generates too.
    let dir = scratch("outside");
    let passing = "title: t\nsubtest \"s\"\n  page top https://a.test/\n  expect top.toolsReady == true\n";
    let nested = write(&dir.join("checkout/webmcp/extra/late.scn"), passing);
    let loose = write(&dir.join("loose/alone.html.scn"), passing);
    let late = "/webmcp/webmcp-ref/extra/late.https.html";
    assert_eq!(id_of(&dir, &nested, &[]), late);
    assert_eq!(id_of(&dir.join("checkout"), "webmcp/extra/late.scn", &[]), late);
    assert_eq!(id_of(&dir, &loose, &[]), "/webmcp/webmcp-ref/alone.https.html");
    let wpt_root = dir.display().to_string();
    // Outside any git checkout, a wptreport needs its revision given.
    let revision = ["--wpt-revision", "0123456789abcdef0123456789abcdef01234567"];
    assert_eq!(
        id_of(&dir, &loose, &["--wpt-root", &wpt_root, revision[0], revision[1]]),
        "/webmcp/webmcp-ref/loose/alone.https.html"
    );

    let out = dir.join("exported");
    let out_s = out.display().to_string();
    for (given, cwd) in [(nested.as_str(), dir.clone()), ("webmcp/extra/late.scn", dir.join("checkout"))] {
        let (code, _, err) = webmcp_ref_in(&cwd, &["export-wpt", given, "--out", &out_s]);
        assert_eq!(code, 0, "{err}");
        let html = std::fs::read_to_string(out.join(&late[1..])).unwrap();
        assert!(
            html.contains("from /webmcp/extra/late.scn (profile spec)")
                && html.contains("webmcpRef.file({scenario: \"/webmcp/extra/late.scn\""),
            "{html}"
        );
        assert!(!html.contains(&wpt_root), "no path of this machine: {html}");
    }
    let (code, _, err) = webmcp_ref_in(&dir, &["export-wpt", &loose, "--out", &out_s, "--wpt-root", &wpt_root]);
    assert_eq!(code, 0, "{err}");
    assert!(out.join("webmcp/webmcp-ref/loose/alone.https.html").is_file());
}

#[test]
fn metadata_written_for_a_run_reads_back_and_expects_exactly_that_run() {
    let dir = scratch("metadata");
    let file = write(&dir.join("wpt/webmcp/three.https.html.scn"), THREE);
    let meta = dir.join("meta");
    let meta_s = meta.display().to_string();
    let (code, _, err) = webmcp_ref(&["run", &file, "--profile", "spec,pr373-r1", "--metadata-out", &meta_s]);
    assert_eq!(code, 1, "the run itself fails: {err}");
    let ini = std::fs::read_to_string(meta.join(THREE_INI)).unwrap();
    assert_eq!(
        ini,
        "[three.https.html]\n  expected: ERROR\n  [fails under pr373-r1]\n    expected:\n      if profile == \"pr373-r1\": FAIL\n  [cannot be carried out]\n    expected: FAIL\n"
    );

    // Read back: every result is expected, nothing is stale.
    let (code, out, err) = webmcp_ref(&["run", &file, "--profile", "spec,pr373-r1", "--metadata", &meta_s]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("0 unexpected result(s), 0 stale entries"), "{out}");
    let (code, out, _) = webmcp_ref(&["run", &file, "--profile", "pr373-r1", "--metadata", &meta_s, "--format", "wptreport"]);
    assert_eq!(code, 0);
    assert!(!out.contains("\"expected\""), "{out}");

    // Written again from the read metadata: the same files.
    let again = dir.join("again");
    let again_s = again.display().to_string();
    webmcp_ref(&["run", &file, "--profile", "spec,pr373-r1", "--metadata", &meta_s, "--metadata-out", &again_s]);
    assert_eq!(std::fs::read_to_string(again.join(THREE_INI)).unwrap(), ini);

    // An intermittent status listed by hand is kept, and reported as known.
    let flaky = ini.replace("if profile == \"pr373-r1\": FAIL", "if profile == \"pr373-r1\": [FAIL, PASS]");
    std::fs::write(meta.join(THREE_INI), &flaky).unwrap();
    let (code, out, _) = webmcp_ref(&["run", &file, "--profile", "pr373-r1", "--metadata", &meta_s, "--format", "wptreport"]);
    assert_eq!(code, 0);
    let (_, raw) = report(&out);
    assert_eq!(raw["results"][0]["subtests"][1]["known_intermittent"], serde_json::json!(["PASS"]));
    webmcp_ref(&["run", &file, "--profile", "spec,pr373-r1", "--metadata", &meta_s, "--metadata-out", &again_s]);
    assert_eq!(std::fs::read_to_string(again.join(THREE_INI)).unwrap(), flaky);

    // A result the metadata does not expect, and entries that name nothing or say nothing.
    let fixed = THREE.replace("  close top\n  close top\n", "  close top\n");
    write(&dir.join("wpt/webmcp/three.https.html.scn"), &fixed);
    let stale = format!("{ini}  [no such subtest]\n    expected: FAIL\n  [passes]\n    expected: PASS\n");
    std::fs::write(meta.join(THREE_INI), stale).unwrap();
    let (code, out, _) = webmcp_ref(&["run", &file, "--profile", "spec,pr373-r1", "--metadata", &meta_s]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("4 unexpected result(s), 2 stale entries"), "{out}");
    assert!(out.contains("UNEXPECTED OK (expected ERROR) [spec]  /webmcp/webmcp-ref/three.https.html\n"), "{out}");
    assert!(out.contains("UNEXPECTED PASS (expected FAIL) [spec]  /webmcp/webmcp-ref/three.https.html :: \"cannot be carried out\""), "{out}");
    assert!(out.contains("[no such subtest]: /webmcp/webmcp-ref/three.https.html has no such subtest"), "{out}");
    assert!(out.contains("[passes]: expects only what is expected without it"), "{out}");

    // A malformed file says where.
    std::fs::write(meta.join(THREE_INI), "[three.https.html]\n  [s]\n    expected: SOMETIMES\n").unwrap();
    let (code, _, err) = webmcp_ref(&["run", &file, "--metadata", &meta_s]);
    assert_eq!(code, 2);
    assert!(err.contains("three.https.html.ini:3: unknown status \"SOMETIMES\""), "{err}");
}

/// A scenario of PR #373's readiness API, and one with a subtest that fails, in a WPT root of
/// their own.
const NEEDS_PR373: &str = "title: needs PR #373\nrequires: readiness-api=pr373\n\nsubtest \"ready at first\"\n  page top https://a.test/\n  expect top.toolsReady == true\n\nsubtest \"not ready while a promise is pending\"\n  page top https://a.test/\n  promise p in top\n  task in top: top.waitForToolsUntil(p)\n  run\n  expect top.toolsReady == false\n";
const ONE_FAILS: &str = "title: one fails\n\nsubtest \"passes\"\n  page top https://a.test/\n  expect log == []\n\nsubtest \"fails\"\n  page top https://a.test/\n  expect log == [\"x\"]\n";

#[test]
fn metadata_round_trips_with_wptrunners_precondition_failed_entries() {
    let dir = scratch("round-trip");
    let root = dir.join("wpt");
    write(&root.join("webmcp/a/needs.scn"), NEEDS_PR373);
    write(&root.join("webmcp/a/fails.scn"), ONE_FAILS);
    let tests = root.join("webmcp").display().to_string();
    let root_s = root.display().to_string();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", &tests, "--wpt-root", &root_s];
        args.extend_from_slice(extra);
        webmcp_ref(&args)
    };

    // Without metadata, wptrunner expects PASS of a PRECONDITION_FAILED subtest: the report
    // says so, and webmcp-ref writes the entry wptrunner's updater would.
    let (_, out, _) = run(&["--profile", "text", "--format", "wptreport"]);
    let (_, raw) = report(&out);
    let needs = raw["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["test"] == "/webmcp/webmcp-ref/a/needs.tentative.https.html")
        .expect("a file that needs PR #373 is tentative");
    assert_eq!(needs["subtests"][0]["status"], "PRECONDITION_FAILED");
    assert_eq!(needs["subtests"][0]["expected"], "PASS");
    let ours = dir.join("ours");
    let ours_s = ours.display().to_string();
    let (code, _, err) = run(&["--profile", "spec,text,chromium-156", "--metadata-out", &ours_s]);
    assert_eq!(code, 1, "a subtest fails: {err}");
    let needs_ini = "webmcp/webmcp-ref/a/needs.tentative.https.html.ini";
    assert_eq!(
        std::fs::read_to_string(ours.join(needs_ini)).unwrap(),
        "[needs.tentative.https.html]\n  [ready at first]\n    expected:\n      if profile == \"text\" or profile == \"chromium-156\": PRECONDITION_FAILED\n  [not ready while a promise is pending]\n    expected:\n      if profile == \"text\" or profile == \"chromium-156\": PRECONDITION_FAILED\n"
    );
    // Read back: every result expected, no entry stale, and the wptreport under the metadata
    // expects what happened.
    let check = |meta: &str| {
        let (code, out, err) = run(&["--profile", "spec,text,chromium-156", "--metadata", meta]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("0 unexpected result(s), 0 stale entries"), "{out}");
        let (code, out, _) = run(&["--profile", "chromium-156", "--metadata", meta, "--format", "wptreport"]);
        assert_eq!(code, 0);
        assert!(!out.contains("\"expected\""), "{out}");
    };
    check(&ours_s);

    // The same expectations as wptrunner's updater writes them: conditions on other
    // properties of run_info (`readiness_api`, `product`, `os`), parentheses, `not`, lists,
    // quoted values, comments, and a file-level key wptrunner keeps (`bug`).
    let theirs = dir.join("theirs");
    write(
        &theirs.join(needs_ini),
        "[needs.tentative.https.html]\n  bug: https://github.com/webmachinelearning/webmcp/pull/373\n  [ready at first]\n    expected:\n      if (product == \"webmcp-ref\") and (readiness_api == \"none\"): PRECONDITION_FAILED\n  [not ready while a promise is pending]\n    # The published text has no readiness API.\n    expected:\n      if not (readiness_api != \"none\") and os != \"no-such-os\": [\"PRECONDITION_FAILED\"]\n      if readiness_api == \"pr373\": PASS\n",
    );
    write(
        &theirs.join("webmcp/webmcp-ref/a/fails.https.html.ini"),
        "[fails.https.html]\n  [fails]\n    expected: FAIL  # the log stays empty\n",
    );
    check(&theirs.display().to_string());
    // Written again from wptrunner's file: webmcp-ref's own form, which reads the same.
    let again = dir.join("again");
    let again_s = again.display().to_string();
    run(&["--profile", "spec,text,chromium-156", "--metadata", &theirs.display().to_string(), "--metadata-out", &again_s]);
    assert_eq!(
        std::fs::read_to_string(again.join(needs_ini)).unwrap(),
        std::fs::read_to_string(ours.join(needs_ini)).unwrap()
    );
    check(&again_s);

    // A PRECONDITION_FAILED the metadata does not list is unexpected, as in wptrunner.
    std::fs::remove_file(theirs.join(needs_ini)).unwrap();
    let (code, out, _) = run(&["--profile", "text", "--metadata", &theirs.display().to_string()]);
    assert_eq!(code, 1);
    assert!(
        out.contains("UNEXPECTED PRECONDITION_FAILED (expected PASS) [text]  /webmcp/webmcp-ref/a/needs.tentative.https.html :: \"ready at first\""),
        "{out}"
    );
}
