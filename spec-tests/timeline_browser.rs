//! The HTML timeline (`trace --format html`) in real headless Chromium (Debian's `chromium`):
//! each page is loaded from a file, with no network; its own script reports, through the DOM,
//! what it shows (lanes, boxes, bands, outcome labels, expectations) and whether every box lies
//! inside its lane with no two boxes of a lane overlapping; and a screenshot is taken. These
//! need the browser, so they are ignored by default (`.ci/run` runs them with the other
//! browser tests):
//!
//! ```sh
//! cargo test --test spec-tests -- --ignored timeline_browser::
//! ```
//!
//! The screenshots go to target/timeline-screenshots/; with UPDATE_SCREENSHOTS=1 also to
//! docs/, where the README shows them. WEBMCP_REF_BROWSER names another browser binary.

use crate::common::browser_path;
use std::path::{Path, PathBuf};
use std::process::Command;

#[allow(unused_imports)]
use webmcp_ref::prelude::*;


fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webmcp-ref-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Headless Chromium on a page, with a profile of its own (two browsers cannot share one),
/// nothing fetched from the network.
fn chromium(dir: &Path, args: &[String]) -> String {
    static RUNS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = Command::new(browser_path())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
        ])
        .arg(format!("--user-data-dir={}", dir.join(format!("profile-{n}")).display()))
        .args(args)
        .output()
        .expect("chromium runs (apt-get install chromium)");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The page's account of itself, as the DOM Chromium built holds it.
fn layout_check(dir: &Path, page: &Path) -> serde_json::Value {
    let dom = chromium(
        dir,
        &[
            "--dump-dom".into(),
            format!("file://{}#check", page.display()),
        ],
    );
    let start = dom
        .find("<pre id=\"layout-check\">")
        .unwrap_or_else(|| panic!("the page ran its check:\n{dom}"))
        + "<pre id=\"layout-check\">".len();
    let end = start + dom[start..].find("</pre>").unwrap();
    serde_json::from_str(&unescape(&dom[start..end])).unwrap()
}

fn timeline(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let out = Command::new(env!("CARGO_BIN_EXE_webmcp-ref"))
        .args(args)
        .args(["--format", "html"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = String::from_utf8(out.stdout).unwrap();
    // Self-contained: nothing is loaded from anywhere.
    for needle in ["src=", "href=\"http", "<link", "@import", "url(http"] {
        assert!(!html.contains(needle), "{name}: {needle}");
    }
    let path = dir.join(format!("{name}.html"));
    std::fs::write(&path, html).unwrap();
    path
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// What every timeline page holds at 1400 px: it fits the window; nothing covers a lane; no
/// word doubled ("observation observation"); each box's steps, where the box has the room,
/// shown whole.
fn fits_1400_px(check: &serde_json::Value, html: &Path) {
    assert!(check["width"].as_u64().unwrap() <= 1400, "{check}");
    let text = std::fs::read_to_string(html).unwrap();
    assert!(!text.contains("observation observation"), "a doubled word");
    let labels = check["labels"].as_array().unwrap();
    let whole = labels.iter().filter(|l| l["cut"] == false).count();
    assert!(whole * 3 >= labels.len() * 2, "{labels:?}");
}

fn screenshot(dir: &Path, page: &Path, check: &serde_json::Value, name: &str) {
    let width = 1400;
    let height = check["height"].as_u64().unwrap().max(400) + 10;
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/timeline-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let png = shots.join(format!("{name}.png"));
    chromium(
        dir,
        &[
            format!("--window-size={width},{height}"),
            format!("--screenshot={}", png.display()),
            format!("file://{}", page.display()),
        ],
    );
    let bytes = std::fs::read(&png).expect("a screenshot");
    assert!(bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000, "{name}");
    if std::env::var_os("UPDATE_SCREENSHOTS").is_some() {
        std::fs::copy(
            &png,
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/{name}.png")),
        )
        .unwrap();
    }
}

#[test]
#[ignore = "needs Chromium: cargo test --test spec-tests -- --ignored timeline_browser::"]
fn a_readiness_race_across_two_event_loops_lays_out_in_chromium() {
    let dir = scratch();
    let page = timeline(
        &dir,
        "timeline-two-iframes",
        &[
            "trace",
            "wpt-mirror/webmcp/readiness/child-frames.https.html.scn",
            "--subtest",
            "two iframes: ready when the last one is",
        ],
    );
    let check = layout_check(&dir, &page);
    assert_eq!(strings(&check["problems"]), Vec::<String>::new());
    assert_eq!(strings(&check["sections"]), ["spec"]);
    assert_eq!(
        strings(&check["lanes"]),
        [
            "harness",
            "event loop top https://a.test",
            "event loop top https://b.test",
            "parallel queue: AI agent queue",
            "timers"
        ]
    );
    // The ten units of the trace, and the harness's boxes.
    assert!(check["units"].as_u64().unwrap() >= 10, "{check}");
    for kind in ["task (harness)", "task (timer)", "microtask", "in parallel", "timer"] {
        assert!(strings(&check["kinds"]).contains(&kind.to_string()), "{kind}: {check}");
    }
    // Each iframe's tools-ready goes false, then true again; the top's stays true.
    let bands = strings(&check["bands"]);
    for d in ["left", "right"] {
        let mine: Vec<&str> = bands
            .iter()
            .filter_map(|b| b.strip_prefix(&format!("{d}:")))
            .collect();
        assert_eq!(mine, ["ready", "not-ready", "ready"], "{d}: {bands:?}");
    }
    assert_eq!(
        strings(&check["outcomes"]),
        ["ready after 300 ms", "ready after 300 ms"]
    );
    assert_eq!(
        strings(&check["expectations"]),
        ["94:pass", "95:pass", "97:pass"]
    );
    assert!(check["causes"].as_u64().unwrap() > 0);
    fits_1400_px(&check, &page);
    screenshot(&dir, &page, &check, "timeline-two-iframes");
}

#[test]
#[ignore = "needs Chromium: cargo test --test spec-tests -- --ignored timeline_browser::"]
fn an_observation_timing_out_lays_out_in_chromium() {
    let dir = scratch();
    let page = timeline(
        &dir,
        "timeline-observation-timeout",
        &[
            "trace",
            "wpt-mirror/webmcp/readiness/observation-wait-outcomes.https.html.scn",
            "--subtest",
            "the timeout: the observation is made anyway",
        ],
    );
    let check = layout_check(&dir, &page);
    assert_eq!(strings(&check["problems"]), Vec::<String>::new());
    let lanes = strings(&check["lanes"]);
    assert!(lanes.contains(&"parallel queue: AI agent queue".to_string()));
    assert!(lanes.contains(&"timers".to_string()));
    assert_eq!(
        strings(&check["outcomes"]),
        ["timed-out after 5000 ms", "timed-out after 5000 ms"]
    );
    assert_eq!(strings(&check["bands"]), ["top:ready", "top:not-ready"]);
    assert_eq!(
        strings(&check["expectations"]),
        ["53:pass", "54:pass", "56:pass", "57:pass"]
    );
    fits_1400_px(&check, &page);
    screenshot(&dir, &page, &check, "timeline-observation-timeout");
}

#[test]
#[ignore = "needs Chromium: cargo test --test spec-tests -- --ignored timeline_browser::"]
fn two_profiles_one_above_the_other_with_their_differences_outlined() {
    let dir = scratch();
    let page = timeline(
        &dir,
        "timeline-two-profiles",
        &[
            "trace",
            "wpt-mirror/webmcp/readiness/promise-from-removed-iframe.https.html.scn",
            "--subtest",
            "an observation waiting when the iframe is removed",
            "--profile",
            "spec,chromium-pr373",
        ],
    );
    let check = layout_check(&dir, &page);
    assert_eq!(strings(&check["problems"]), Vec::<String>::new());
    assert_eq!(strings(&check["sections"]), ["spec", "chromium-pr373"]);
    let outcomes = strings(&check["outcomes"]);
    assert!(outcomes.contains(&"timed-out after 5000 ms".to_string()), "{outcomes:?}");
    assert!(outcomes.contains(&"ready after 100 ms".to_string()), "{outcomes:?}");
    // The units only one profile ran, and the outcome rows that differ.
    assert!(check["differs"].as_u64().unwrap() > 0, "{check}");
    fits_1400_px(&check, &page);
    screenshot(&dir, &page, &check, "timeline-two-profiles");
}

#[test]
#[ignore = "needs Chromium: cargo test --test spec-tests -- --ignored timeline_browser::"]
fn an_expectation_written_once_per_profile_is_one_row_side_by_side() {
    let dir = scratch();
    let page = timeline(
        &dir,
        "timeline-one-row-per-expectation",
        &[
            "trace",
            "wpt-mirror/webmcp/readiness/promise-from-removed-iframe.https.html.scn",
            "--subtest",
            "iframe removed in the same task",
            "--profile",
            "spec,chromium-pr373",
        ],
    );
    let check = layout_check(&dir, &page);
    assert_eq!(strings(&check["problems"]), Vec::<String>::new());
    fits_1400_px(&check, &page);
    let html = std::fs::read_to_string(&page).unwrap();
    // `observe top => timed-out [never-settles]` (line 34) and `=> ready [settled-on-destroy]`
    // (line 35): one row, each profile's value with its line.
    assert!(html.contains("observation at lines 34 / 35"), "{html}");
    assert!(html.contains("timed-out after 5000ms: {top: []} (line 34)"));
    assert!(html.contains("ready after 0ms: {top: []} (line 35)"));
    // Not also a row of its own in the table (each profile's section still has its lane).
    assert!(!html.contains("<td class=\"mono\">observation at line 34</td>"));
}
