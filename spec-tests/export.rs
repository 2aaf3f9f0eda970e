//! `webmcp-ref export-wpt`: each scenario of spec-tests/golden/export/ (one construct each)
//! exports to the checked-in `.https.html` beside it, byte for byte. After a deliberate change
//! to the exporter, `UPDATE_GOLDEN=1 cargo test --test spec-tests -- export::` rewrites them; review the diff.

use std::path::{Path, PathBuf};

use webmcp_ref::export::{export_file, translate::LeftOut, ExportedFile, MARK};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::scenario::{parse_file, run_file, RunOptions};
use webmcp_ref::Profile;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("spec-tests/golden/export")
}

fn golden_scenarios() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("spec-tests/golden/export exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "scn"))
        .collect();
    out.sort();
    out
}

/// Exports a golden scenario under `spec`, naming it by its path in the checkout (so that the
/// output does not depend on where the checkout is).
fn export(path: &Path) -> ExportedFile {
    let name = format!(
        "spec-tests/golden/export/{}",
        path.file_name().unwrap().to_string_lossy()
    );
    let text = std::fs::read_to_string(path).unwrap();
    let file = parse_file(&name, &text).unwrap_or_else(|e| panic!("{e}"));
    export_file(&file, &Profile::spec())
}

#[test]
fn every_golden_scenario_holds_in_the_engine() {
    for path in golden_scenarios() {
        let name = path.display().to_string();
        let file = parse_file(&name, &std::fs::read_to_string(&path).unwrap()).unwrap();
        let result = run_file(&file, &RunOptions::default());
        for s in &result.subtests {
            assert!(
                result.passed(),
                "{name}: {:?} does not hold under spec: {:?} {:?}",
                s.name,
                s.expectations
                    .iter()
                    .filter(|e| !e.passed)
                    .collect::<Vec<_>>(),
                s.messages
            );
        }
    }
}

#[test]
fn each_construct_exports_to_its_golden_file() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    let scenarios = golden_scenarios();
    assert!(scenarios.len() >= 10, "one golden scenario per construct");
    for path in scenarios {
        let exported = export(&path);
        let golden = path.with_extension("https.html");
        if update {
            std::fs::write(&golden, &exported.html).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if expected != exported.html {
            let first = expected
                .lines()
                .zip(exported.html.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| expected.lines().count().min(exported.html.lines().count()));
            failures.push(format!(
                "{}: differs from {} at line {}:\n  golden:   {}\n  exported: {}",
                path.display(),
                golden.display(),
                first + 1,
                expected.lines().nth(first).unwrap_or("(end)"),
                exported.html.lines().nth(first).unwrap_or("(end)")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(UPDATE_GOLDEN=1 cargo test --test spec-tests -- export:: rewrites the golden files)",
        failures.join("\n")
    );
}

fn left_out_kinds(left_out: &[LeftOut]) -> Vec<&str> {
    left_out.iter().map(|l| l.kind).collect()
}

#[test]
fn a_left_out_line_marks_its_subtest_and_a_world_changing_one_cuts_the_rest() {
    let e = export(&golden_dir().join("left-out.scn"));
    let [observed, cut, popup, loading] = &e.subtests[..] else {
        panic!("four subtests")
    };
    // Observations and engine-only expectations go one by one; the rest stays, log included.
    assert_eq!(
        observed.exported_name.as_deref(),
        Some("an observation and engine-only expectations are left out one by one [exported without: observe, pending, time]")
    );
    assert_eq!(
        left_out_kinds(&observed.left_out),
        ["observe", "observe", "pending", "time"],
        "the finding is tagged [literal]: not under spec, so not a line of this export"
    );
    assert!(observed.log_comparable);
    assert_eq!(observed.checks, 1);
    // A bfcache navigation of the test page goes with every line after it; the log before it
    // is still checked, but the log is no longer compared with the engine's.
    assert_eq!(
        cut.exported_name.as_deref(),
        Some(
            format!("a line that changes the world cuts the rest{MARK}navigate the page]").as_str()
        )
    );
    assert_eq!(
        left_out_kinds(&cut.left_out),
        ["navigate the page", "after"]
    );
    assert!(!cut.log_comparable);
    // A second page leaves nothing a page can check: the subtest is not exported at all.
    assert_eq!(popup.exported_name, None);
    assert_eq!(left_out_kinds(&popup.left_out)[0], "a second page");
    assert_eq!(loading.exported_name, None);
    assert_eq!(left_out_kinds(&loading.left_out)[0], "loading");
    assert!(e
        .html
        .contains("subtest \"a second page: nothing is left to check\" is not exported"));
    assert!(e.html.contains(
        "// Left out, with every line after it: navigating the test page away from the test."
    ));
}

#[test]
fn drives_wait_for_the_virtual_time_the_engine_ran_and_stop_short_of_the_next_timer() {
    let e = export(&golden_dir().join("drives.scn"));
    // flush: no time passes, timers at 100 and 300 ms are pending.
    assert!(
        e.html
            .contains("await w.run({from: 0, until: 0, next_timer: 100, log: 0, bound: [\"top\"], settled: [], tasks: [0]});"),
        "{}",
        e.html
    );
    // run 150ms: the 100 ms timer ran, the 300 ms one is next.
    assert!(e
        .html
        .contains("await w.run({from: 0, until: 150, next_timer: 300, log: 1, bound: [\"top\"], settled: [], tasks: [0]});"));
    // run: until nothing is left; the page polls until its log has the engine's two lines.
    assert!(e
        .html
        .contains("await w.run({from: 150, until: 300, next_timer: null, log: 2, bound: [\"top\"], settled: [], tasks: [0]});"));
}

#[test]
fn an_at_block_is_a_timer_of_the_page_and_the_drive_before_it_stops_short_of_it() {
    let e = export(&golden_dir().join("at-block.scn"));
    assert!(e.html.contains("w.at(300, async () => {"), "{}", e.html);
    // The first drive ends at 100 ms; the block at 300 ms is the next thing due.
    assert!(e
        .html
        .contains("await w.run({from: 0, until: 100, next_timer: 300, log: 0, bound: [\"top\"], settled: [], tasks: []});"));
    // Tasks are numbered as they are exported, the block's own first; the drive that ends at
    // 500 ms waits for the block's task and the first getTools() task, which the engine's run
    // had finished by then.
    assert!(e.html.contains("}, {task: 0});"), "{}", e.html);
    assert!(e.html.contains("}, {task: 2});"));
    assert!(e.html.contains(
        "await w.run({from: 100, until: 500, next_timer: null, log: 0, bound: [\"early\", \"top\"], settled: [], tasks: [0, 1]});"
    ));
}

#[test]
fn registrations_on_the_test_page_without_a_signal_get_the_cleanup_signal() {
    let e = export(&golden_dir().join("tools.scn"));
    assert!(e.html.contains(
        "s.top.modelContext.registerTool({name: \"r\", description: \"returns\", execute: () => ({a: 1})}, {signal: w.cleanup_signal});"
    ));
    assert!(e.html.contains("{exposedTo: [], signal: w.cleanup_signal}"));
    // A registration with its own signal keeps it (callbacks.scn).
    let c = export(&golden_dir().join("callbacks.scn"));
    assert!(c.html.contains("{signal: s.reg.signal});"));
}

#[test]
fn every_bundled_scenario_exports_with_distinct_test_names() {
    let mirror = Path::new(env!("CARGO_MANIFEST_DIR")).join("wpt-mirror");
    let files = webmcp_ref::scenario::suite::discover(&[mirror]).unwrap();
    let mut exported = 0;
    for path in files {
        let file = webmcp_ref::scenario::suite::load(&path).unwrap();
        for profile in ["spec", "chromium-pr373"] {
            let e = export_file(&file, &Profile::named(profile).unwrap());
            let names: Vec<&String> = e
                .subtests
                .iter()
                .filter_map(|s| s.exported_name.as_ref())
                .collect();
            let mut unique = names.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(
                names.len(),
                unique.len(),
                "{}: duplicate test names",
                e.test_path
            );
            assert!(e.test_path.starts_with("webmcp/") && e.test_path.ends_with(".https.html"));
            // A subtest is exported with its own name exactly when nothing was left out.
            for s in &e.subtests {
                if let Some(n) = &s.exported_name {
                    assert_eq!(n == &s.name, s.left_out.is_empty(), "{}: {n}", e.test_path);
                    assert!(s.checks > 0);
                }
            }
            exported += names.len();
        }
    }
    assert!(exported > 150, "most of the suite exports ({exported})");
}

/// The inline scripts of the golden files, and the assets, parse as JavaScript (when Node.js
/// is on the machine to say so).
#[test]
fn generated_scripts_and_assets_parse_as_javascript() {
    let Ok(out) = std::process::Command::new("node").arg("--version").output() else {
        eprintln!("node is not installed: the JavaScript syntax check is skipped");
        return;
    };
    if !out.status.success() {
        eprintln!("node does not run: the JavaScript syntax check is skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("webmcp-ref-export-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut scripts: Vec<(String, String)> = vec![
        ("webmcp-ref.js".into(), webmcp_ref::export::HELPER_JS.into()),
        (
            "testharness.js".into(),
            webmcp_ref::export::TESTHARNESS_JS.into(),
        ),
        (
            "testharnessreport.js".into(),
            webmcp_ref::export::TESTHARNESSREPORT_JS.into(),
        ),
    ];
    for path in golden_scenarios() {
        let html = export(&path).html;
        let start = html.find("<body>\n<script>\n").unwrap() + "<body>\n<script>\n".len();
        let end = html.rfind("</script>").unwrap();
        scripts.push((
            format!("{}.js", path.file_stem().unwrap().to_string_lossy()),
            html[start..end].to_string(),
        ));
    }
    for (name, text) in scripts {
        let file = dir.join(&name);
        std::fs::write(&file, text).unwrap();
        let check = std::process::Command::new("node")
            .arg("--check")
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "{name} does not parse: {}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
