//! The playground (`webmcp-ref playground`) in real headless Chromium: the page is built (the
//! engine for WebAssembly, wasm-bindgen's glue), served on loopback, and opened in a frame of
//! a checking page through a link that carries a bundled scenario; what the page then shows is
//! compared with `webmcp-ref run --format json` on the same file and profiles, subtest by
//! subtest. The checking page also types a parse error (it must be shown at its line), starts
//! an exploration too large to finish and cancels it (the editor stays live meanwhile, and
//! the engine answers again afterwards), and times the bundled suite in the page.
//!
//! These need the browser, the wasm32-unknown-unknown target and the wasm-bindgen CLI, so
//! they are ignored by default:
//!
//! ```sh
//! cargo test --release --test spec-tests -- --ignored playground_browser::
//! ```

use crate::common::browser_path;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;
use webmcp_ref::browser::{chromium, server::Server};
use webmcp_ref::report::link::Link;


fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "webmcp-ref-playground-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn binary() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_webmcp-ref"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// The page, built once per test.
fn build_page(dir: &Path) -> PathBuf {
    let page = dir.join("page");
    let out = binary()
        .args(["playground", "--out"])
        .arg(&page)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "playground --out: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for f in ["index.html", "playground.js", "worker.js", "pkg/webmcp_ref_playground_bg.wasm"] {
        assert!(page.join(f).is_file(), "{f} was written");
    }
    page
}

/// What the checking page does, in the playground's frame; it POSTs what it saw.
const CHECK: &str = r##"<!DOCTYPE html>
<meta charset="utf-8">
<title>playground check</title>
<iframe id="pg" width="1400" height="1000"></iframe>
<script>
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(what, cond, ms = 240000) {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`gave up waiting for ${what}`);
    await sleep(25);
  }
}
const report = {};
async function main() {
  const frame = document.getElementById("pg");
  const loaded = new Promise((r) => (frame.onload = r));
  frame.src = "index.html#" + FRAGMENT;
  await loaded;
  const win = frame.contentWindow, doc = frame.contentDocument, $ = (id) => doc.getElementById(id);
  await until("the page", () => doc.body.dataset.ready === "true");
  // The link says do=run: the page runs it on opening.
  await until("the run", () => doc.body.dataset.last === "run" && doc.body.dataset.busy === "false");
  report.opened = { path: $("path").value, profiles: [...doc.querySelectorAll("#profiles input:checked")].map((i) => i.value) };
  report.rows = [...doc.querySelectorAll("#results tbody tr")].map((tr) => ({
    subtest: tr.dataset.subtest,
    cells: [...tr.querySelectorAll("td")].map((td) => ({ profile: td.dataset.profile, status: td.textContent })),
  }));
  report.refusal = doc.querySelector(".refusal")?.textContent ?? null;
  // What the page shows now, as static markup (the editor's text kept), for a screenshot.
  $("text").textContent = $("text").value;
  for (const i of doc.querySelectorAll("input")) {
    if (i.type === "checkbox") i.toggleAttribute("checked", i.checked);
    else i.setAttribute("value", i.value);
  }
  for (const o of doc.querySelectorAll("option")) o.toggleAttribute("selected", o.selected);
  for (const s of doc.querySelectorAll("script")) s.remove();
  report.snapshot = "<!DOCTYPE html>\n" + doc.documentElement.outerHTML;

  // A parse error, typed: shown at its line.
  const good = $("text").value;
  $("text").value = good + "\nsubtest \"broken\"\n  frobnicate the page\n";
  $("text").dispatchEvent(new Event("input"));
  await until("the parse error", () => $("parse").className === "bad");
  report.parse = { message: $("parse").textContent, gutter: doc.querySelector("#gutter .bad")?.textContent ?? null };
  $("text").value = good;
  $("text").dispatchEvent(new Event("input"));
  await until("the parse error to go", () => $("parse").className === "good");

  // An exploration too large to finish: the editor stays live, Cancel stops it.
  $("text").value = BIG;
  $("text").dispatchEvent(new Event("input"));
  await until("the big scenario to parse", () => $("parse").className === "good");
  $("max-schedules").value = "1000000000";
  $("max-seconds").value = "600";
  $("explore").click();
  let ticks = 0, gap = 0, last = performance.now();
  const timer = win.setInterval(() => { const now = performance.now(); gap = Math.max(gap, now - last); last = now; ticks++; }, 20);
  await sleep(1500);
  report.exploring = { busy: doc.body.dataset.busy, cancelEnabled: !$("cancel").disabled };
  $("text").value = BIG + "\n  frobnicate\n";
  $("text").dispatchEvent(new Event("input"));
  await until("the parse error while exploring", () => $("parse").className === "bad", 20000);
  report.parsedWhileExploring = $("parse").textContent;
  $("cancel").click();
  await until("the cancellation", () => doc.body.dataset.busy === "false");
  win.clearInterval(timer);
  report.cancelled = { status: $("status").textContent, ticks, maxGapMs: Math.round(gap) };
  // The engine answers again, in a new worker.
  $("text").value = good;
  $("text").dispatchEvent(new Event("input"));
  await until("the scenario to parse", () => $("parse").className === "good");
  $("run").click();
  await until("the run after the cancel", () => doc.body.dataset.last === "run" && doc.body.dataset.busy === "false");
  report.rowsAfterCancel = doc.querySelectorAll("#results tbody tr").length;

  // The timeline of one subtest, drawn by the same renderer as trace --format html.
  $("subtest").value = SUBTEST;
  $("timeline").click();
  await until("the timeline", () => doc.body.dataset.last === "timeline" && doc.body.dataset.busy === "false");
  const tl = doc.querySelector("iframe.timeline");
  report.timeline = tl ? tl.srcdoc.length : 0;
  await until("the address to follow", () => win.location.hash.includes("do=timeline"), 10000);
  report.hash = win.location.hash;

  // The bundled suite under every profile, timed in the page.
  for (const box of doc.querySelectorAll("#profiles input")) box.checked = true;
  report.suite = { ms: [] };
  for (let i = 0; i < RUNS; i++) {
    doc.body.dataset.last = "";
    const started = performance.now();
    $("suite").click();
    await until("the suite", () => doc.body.dataset.last === "suite" && doc.body.dataset.busy === "false", 1800000);
    report.suite.ms.push(performance.now() - started);
    report.suite.text = $("suite-result")?.textContent ?? $("status").textContent;
  }
}
main().catch((e) => { report.error = String(e.stack || e); }).finally(() => {
  fetch("/webmcp-ref/results", { method: "POST", body: JSON.stringify(report) });
});
</script>
"##;

/// A subtest whose exploration does not end in minutes: seven cross-origin frames, each
/// waiting on its own promise, observed while a tool is registered.
fn big_scenario() -> String {
    let names: Vec<String> = (0..7).map(|i| format!("f{i}")).collect();
    let mut text = "title: seven frames\n\nsubtest \"seven frames\"\n  page top https://a.test/\n".to_string();
    for f in &names {
        text += &format!("  frame {f} in top https://{f}.test/ allow=\"tools *\"\n");
    }
    for f in &names {
        text += &format!("  promise p{f} in {f}\n");
    }
    for f in &names {
        text += &format!("  task in {f}:\n    {f}.waitForToolsUntil(p{f})\n    after 0ms: resolve p{f}\n");
    }
    text += "  observe top as o\n  task in top: top.registerTool({name: \"x\", description: \"d\", execute: returns(1)})\n  run\n";
    text
}

/// How many times the bundled suite is run in the page, and natively, for their medians.
const SUITE_RUNS: usize = 5;

fn js_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

#[test]
#[ignore = "needs Debian's chromium, the wasm32-unknown-unknown target and the wasm-bindgen CLI"]
fn a_link_opens_the_page_whose_results_match_the_cli() {
    let dir = scratch("link");
    let page = build_page(&dir);
    let file = "wpt-mirror/webmcp/readiness/promise-from-removed-iframe.https.html.scn";
    let profiles = ["spec", "chromium-156"];
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    let link = Link {
        path: file.into(),
        text: text.clone(),
        profiles: profiles.iter().map(|p| p.to_string()).collect(),
        sets: Vec::new(),
        subtest: None,
        view: Some("run".into()),
    };
    let subtest = "iframe removed in the same task";
    // The fragment last: its base64 could hold the other placeholders' letters.
    let check = CHECK
        .replace("RUNS", &SUITE_RUNS.to_string())
        .replace("BIG", &js_string(&big_scenario()))
        .replace("SUBTEST", &js_string(subtest))
        .replace("FRAGMENT", &js_string(&link.fragment()));
    std::fs::write(page.join("check.html"), check).unwrap();

    let (tx, rx) = std::sync::mpsc::channel();
    let server = Server::start(page.clone(), tx).unwrap();
    let url = format!("{}/check.html", server.origin());
    let outcome = chromium::run_page(
        &browser_path(),
        &url,
        &dir,
        Duration::from_secs(1800),
        &rx,
    );
    let chromium::PageOutcome::Reported(body) = outcome else {
        panic!("the checking page did not report: {outcome:?}");
    };
    let seen: Value = serde_json::from_str(&body).unwrap();
    assert!(seen["error"].is_null(), "{}", seen["error"]);

    // The state the link carried.
    assert_eq!(seen["opened"]["path"], file);
    assert_eq!(seen["opened"]["profiles"], serde_json::json!(profiles));
    assert!(seen["refusal"].is_null(), "{}", seen["refusal"]);

    // What the page shows, subtest by subtest, against the CLI's JSON.
    let out = binary()
        .args(["run", file, "--profile", "spec,chromium-156", "--format", "json"])
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = seen["rows"].as_array().unwrap();
    let mut compared = 0;
    for run in cli.as_array().unwrap() {
        let profile = run["profile"].as_str().unwrap();
        for s in run["files"][0]["subtests"].as_array().unwrap() {
            let name = s["name"].as_str().unwrap();
            let row = rows
                .iter()
                .find(|r| r["subtest"] == name)
                .unwrap_or_else(|| panic!("the page shows {name:?}: {rows:?}"));
            let cell = row["cells"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["profile"] == profile)
                .unwrap();
            assert_eq!(cell["status"], s["status"], "{name:?} under {profile}");
            compared += 1;
        }
    }
    assert!(compared >= 4, "{compared} subtests compared");
    assert_eq!(rows.len() * profiles.len(), compared, "no row the CLI lacks");

    // The parse error at its line: the CLI names the same line.
    let broken_line = text.lines().count() + 3;
    let message = seen["parse"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("line {broken_line}, column ")),
        "{message}"
    );
    assert_eq!(seen["parse"]["gutter"], broken_line.to_string());

    // The exploration was under way, the editor answered meanwhile, Cancel stopped it, and
    // the engine answered again.
    assert_eq!(seen["exploring"]["busy"], "true", "{}", seen["exploring"]);
    assert_eq!(seen["exploring"]["cancelEnabled"], true);
    assert!(seen["parsedWhileExploring"]
        .as_str()
        .unwrap()
        .starts_with("line "));
    assert!(
        seen["cancelled"]["status"]
            .as_str()
            .unwrap()
            .starts_with("Cancelled"),
        "{}",
        seen["cancelled"]
    );
    // The page's own timers kept firing while the worker explored.
    assert!(seen["cancelled"]["ticks"].as_u64().unwrap() > 10);
    assert!(
        seen["cancelled"]["maxGapMs"].as_u64().unwrap() < 1000,
        "{}",
        seen["cancelled"]
    );
    assert_eq!(seen["rowsAfterCancel"].as_u64().unwrap() as usize, rows.len());
    assert!(seen["timeline"].as_u64().unwrap() > 10_000, "{}", seen["timeline"]);
    let hash = seen["hash"].as_str().unwrap();
    let state = Link::parse(hash, 1 << 24).expect("the page's address is a link");
    assert_eq!(state.subtest.as_deref(), Some(subtest));
    assert_eq!(state.view.as_deref(), Some("timeline"));

    // The suite in the page beside the native run, under every profile.
    let suite = seen["suite"]["text"].as_str().unwrap();
    assert!(suite.contains(" 0 failed"), "{suite}");
    // Measured, not asserted (a speed target is a bench's, not a test's): the median of
    // SUITE_RUNS runs in the page (from the click to the shown result) beside the median of as
    // many native `run`s (the whole process).
    let every = webmcp_ref::engine::profile::NAMED_PROFILES
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(",");
    let mut native_ms: Vec<f64> = (0..SUITE_RUNS)
        .map(|_| {
            let started = Instant::now();
            let native = binary().args(["run", "--profile", &every]).output().unwrap();
            assert!(native.status.success());
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    let mut page_ms: Vec<f64> = seen["suite"]["ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_f64().unwrap())
        .collect();
    assert_eq!(page_ms.len(), SUITE_RUNS);
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (in_page, native) = (median(&mut page_ms), median(&mut native_ms));
    eprintln!(
        "the bundled suite under every profile: {suite}; median of {SUITE_RUNS}: page {in_page:.0} ms, native run {native:.0} ms; page/native {:.2}; while exploring, the page's 20 ms timer: {}",
        in_page / native,
        seen["cancelled"]
    );
    drop(server);

    // A screenshot of the page as it showed the link's run.
    let snapshot = page.join("snapshot.html");
    std::fs::write(&snapshot, seen["snapshot"].as_str().unwrap()).unwrap();
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/playground-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let png = shots.join("playground.png");
    let _ = Command::new(browser_path())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--window-size=1400,900",
        ])
        .arg(format!("--user-data-dir={}", dir.join("shot-profile").display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", snapshot.display()))
        .output()
        .expect("chromium runs");
    let bytes = std::fs::read(&png).expect("a screenshot");
    assert!(bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000);
    if std::env::var_os("UPDATE_SCREENSHOTS").is_some() {
        std::fs::copy(&png, Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/playground.png"))
            .unwrap();
    }
}
