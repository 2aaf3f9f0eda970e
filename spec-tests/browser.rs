//! The real-browser check against Debian's Chromium (`apt-get install chromium`): a small
//! exported file runs in headless Chromium with WebMCP enabled, and its results come back
//! beside the engine's. These need the browser, so they are ignored by default:
//!
//! ```sh
//! cargo test --test spec-tests -- --ignored browser::
//! ```
//!
//! WEBMCP_REF_BROWSER names another browser binary (default /usr/bin/chromium).

use crate::common::browser_path;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use webmcp_ref::browser::{self, chromium, known::Right, DiffOptions, Verdict};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::scenario::parse_file;
use webmcp_ref::Profile;


fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "webmcp-ref-browser-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const SCENARIO: &str = r#"title: a small exported file, run in Chromium
mirrors: spec-tests/browser.rs

subtest "register, list and run a tool; toolchange is heard"
  page top https://a.test/
  controller reg in top
  task in top:
    on top toolchange: log "toolchange"
    await top.registerTool({name: "echo", description: "echoes", execute: returns("hi")}, {signal: reg.signal})
    tools = await top.getTools()
    result = await top.executeTool(tools["echo"], {})
    log "result {result}"
  run
  expect log == ["toolchange", "result hi"]
  expect tools.length == 1
  expect tools[0].origin == "https://a.test"
  expect top.tools == ["echo"]

subtest "a same-origin iframe's promise and a cross-origin iframe's tool"
  page top https://a.test/
  frame same in top https://a.test/same.html
  frame other in top https://b.test/other.html allow="tools *"
  promise p in same
  controller other_reg in other
  task in same:
    on p fulfilled as v: log "same saw {v}"
    after 50ms: resolve p with "done"
  task in other:
    await other.registerTool({name: "remote", description: "from b.test", execute: returns("far")}, {exposedTo: ["https://a.test"], signal: other_reg.signal})
    log "registered in other"
  run
  task in top:
    remote_tools = await top.getTools({fromOrigins: ["https://b.test"]})
    far = await top.executeTool(remote_tools["remote"])
  run
  expect p fulfilled with "done"
  expect log contains "same saw done"
  expect log contains "registered in other"
  expect remote_tools[0].origin == "https://b.test"
  expect far == "far"
  expect other.tools == ["remote"]

subtest "waitForToolsUntil, which Chromium 156 does not have"
  page top https://a.test/
  promise p in top
  task in top: top.waitForToolsUntil(p)
  run
  expect top.toolsReady == false
"#;

/// The WPT commit the runs report as their `revision`.
const REVISION: &str = "0123456789abcdef0123456789abcdef01234567";

const KNOWN: &str =
    "[webmcp/webmcp-ref/small-browser-check.https.html :: waitForToolsUntil, which Chromium 156 does not have]
right: engine
why: Chromium 156 does not implement PR #373.
message: waitForToolsUntil is not a function
";

#[test]
#[ignore = "needs Debian's chromium (apt-get install chromium)"]
fn a_small_exported_file_runs_in_chromium_beside_the_engine() {
    let dir = scratch("diff");
    let known = dir.join("known.txt");
    std::fs::write(&known, KNOWN).unwrap();
    let file = parse_file("small-browser-check.scn", SCENARIO).unwrap();
    let options = DiffOptions {
        profile: Profile::named("chromium-156").unwrap(),
        browser: browser_path(),
        known: known.clone().into(),
        timeout_seconds: Some(40.0),
        margin_ms: 100,
        keep: Some(dir.join("tests")),
        progress: false,
        whole_suite: true,
        repeat: 1,
        confirm: 2,
        revision: REVISION.into(),
    };
    let run = browser::diff_browser(&[file], &options).unwrap();
    assert!(run.browser.starts_with("Chromium"), "{}", run.browser);
    let f = &run.files[0];
    assert_eq!(f.harness, "OK", "{:?}", f.message);
    let [tools, frames, readiness] = &f.subtests[..] else {
        panic!("three subtests")
    };
    for s in [tools, frames] {
        let b = s.browser.as_ref().unwrap();
        assert_eq!(
            b.status, "PASS",
            "{}: {:?} {:?}",
            s.name, b.message, b.checks
        );
        assert_eq!(s.verdict, Verdict::Agree, "{}: {:?}", s.name, s.difference);
    }
    // Chromium's log, in its order, as the page logged it.
    let log = &tools.browser.as_ref().unwrap().log;
    assert_eq!(log, &["toolchange", "result hi"]);
    let frames_log = &frames.browser.as_ref().unwrap().log;
    assert!(
        frames_log.contains(&"same saw done".to_string()),
        "{frames_log:?}"
    );
    assert!(
        frames_log.contains(&"registered in other".to_string()),
        "{frames_log:?}"
    );
    // Every expectation was checked in the page, line by line.
    assert_eq!(tools.browser.as_ref().unwrap().checks.len(), 4);
    assert!(tools
        .browser
        .as_ref()
        .unwrap()
        .checks
        .iter()
        .all(|c| c.passed));
    // The difference is there, listed, and explained.
    let b = readiness.browser.as_ref().unwrap();
    assert_eq!(b.status, "FAIL");
    assert_eq!(readiness.verdict, Verdict::Differ);
    assert!(
        b.uncaught
            .iter()
            .any(|u| u.text.contains("waitForToolsUntil is not a function")),
        "{:?}",
        b.uncaught
    );
    assert_eq!(
        readiness.known.as_ref().map(|k| k.right),
        Some(Right::Engine)
    );
    assert!(
        run.passed(),
        "every disagreement is known and nothing is stale"
    );
    assert!(run.stale.is_empty());
    // The exported test is on disk as WPT would have it.
    assert!(dir
        .join("tests/webmcp/webmcp-ref/small-browser-check.https.html")
        .is_file());
    assert!(dir
        .join("tests/webmcp/webmcp-ref/resources/webmcp-ref.js")
        .is_file());
    // The browser's side as a wptreport that wpt.fyi's processor takes: its times, and
    // run_info's product, browser_version, os and revision, every value hashable.
    let report: serde_json::Value = serde_json::from_str(&browser::report::render(
        &run,
        browser::OutputFormat::Wptreport,
    ))
    .unwrap();
    assert!(report["time_start"].as_u64().unwrap() > 1_577_836_800_000);
    assert!(report["time_end"].as_u64() >= report["time_start"].as_u64());
    let info = report["run_info"].as_object().unwrap();
    assert_eq!(info["revision"], REVISION);
    assert_eq!(info["product"], "chromium");
    assert!(info["browser_version"].as_str().unwrap().starts_with("156."));
    assert!(info.values().all(|v| v.is_string() || v.is_boolean()), "{info:?}");
    let typed: wptreport::wpt_report::WptReport =
        serde_json::from_value(report.clone()).unwrap();
    assert_eq!(typed.results[0].test, "/webmcp/webmcp-ref/small-browser-check.https.html");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "needs Debian's chromium (apt-get install chromium)"]
fn a_stale_or_missing_known_difference_fails_the_run() {
    let dir = scratch("stale");
    let known = dir.join("known.txt");
    // The readiness subtest's difference is not listed; a subtest that agrees is.
    std::fs::write(
        &known,
        "[webmcp/webmcp-ref/small-browser-check.https.html :: register, list and run a tool; toolchange is heard]\nright: chromium\nwhy: listed on purpose, though it agrees\n",
    )
    .unwrap();
    let file = parse_file("small-browser-check.scn", SCENARIO).unwrap();
    let options = DiffOptions {
        profile: Profile::named("chromium-156").unwrap(),
        browser: browser_path(),
        known: known.clone().into(),
        timeout_seconds: Some(40.0),
        margin_ms: 100,
        keep: None,
        progress: false,
        whole_suite: true,
        repeat: 1,
        confirm: 1,
        revision: REVISION.into(),
    };
    let run = browser::diff_browser(&[file], &options).unwrap();
    assert!(!run.passed());
    assert_eq!(run.stale.len(), 1, "the agreeing subtest's entry is stale");
    let unexplained: Vec<_> = run
        .subtests()
        .filter(|(_, s)| s.verdict == Verdict::Differ && s.known.is_none())
        .collect();
    assert_eq!(unexplained.len(), 1);
    // Its file ran once more, and the difference showed again: it fails the run.
    let (_, readiness) = unexplained[0];
    assert_eq!(
        readiness.confirmation,
        Some(browser::Confirmation {
            reruns: 1,
            differed: 1
        })
    );
    assert!(readiness.unexplained() && !readiness.did_not_reproduce());
    // A listed subtest that agreed was not rerun.
    assert!(run.subtests().all(|(_, s)| s.verdict == Verdict::Differ || s.confirmation.is_none()));
    let human = browser::report::render(
        &run,
        browser::OutputFormat::Human {
            verbose: false,
            suggest: true,
        },
    );
    assert!(human.contains("UNEXPLAINED"), "{human}");
    assert!(human.contains("Stale known differences"), "{human}");
    // The summary at the end names the unexplained subtest again.
    let tail = &human[human.find("Unexplained disagreements (").expect("a summary")..];
    assert!(tail.contains("small-browser-check.https.html :: \"waitForToolsUntil, which Chromium 156 does not have\""), "{tail}");
    assert!(human.contains("again in 1 of 1 reruns"), "{human}");
    assert!(human.contains("[webmcp/webmcp-ref/small-browser-check.https.html :: waitForToolsUntil, which Chromium 156 does not have]"), "{human}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A page that never reports fails its file when its time is up, and the browser's whole
/// process group is gone afterwards.
#[test]
#[ignore = "needs Debian's chromium (apt-get install chromium)"]
fn a_page_that_never_reports_is_killed_after_its_time() {
    let dir = scratch("hang");
    std::fs::write(
        dir.join("hang.html"),
        "<!DOCTYPE html><title>never reports</title><p>waiting",
    )
    .unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    let server = browser::server::Server::start(dir.clone(), sender).unwrap();
    let started = Instant::now();
    let outcome = chromium::run_page(
        &browser_path(),
        &format!("{}/hang.html", server.origin()),
        &dir,
        Duration::from_secs(3),
        &receiver,
    );
    assert!(
        matches!(outcome, chromium::PageOutcome::TimedOut),
        "{outcome:?}"
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(3) && took < Duration::from_secs(15),
        "{took:?}"
    );
    // No process of this test's browser (run with this scratch folder) is left running.
    std::thread::sleep(Duration::from_millis(300));
    let marker = dir.join("profile").display().to_string();
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&marker))
        .collect();
    assert!(left.is_empty(), "browser processes left: {left:?}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
