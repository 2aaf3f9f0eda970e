//! The command line: exit status 0 when every expectation holds, 1 when one fails, 2 for bad
//! input, and messages that say what was wrong.

use std::process::Command;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use crate::common::{webmcp_ref, webmcp_ref_in};

fn scratch(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("webmcp-ref-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// After the task and before its microtasks, `waitForToolsUntil(42)` has left tools-ready false
/// in PR #373's first revision only.
const PASSING: &str = "title: t\nsubtest \"s\"\n  page top https://a.test/\n  task in top: top.waitForToolsUntil(42)\n  step\n  expect top.toolsReady == true [spec]\n  expect top.toolsReady == false [pr373-r1]\n";

#[test]
fn the_bundled_suite_passes() {
    let (code, out, err) = webmcp_ref(&["run"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("profile spec:"), "{out}");
}

#[test]
fn a_failed_expectation_exits_1_with_its_place_and_a_replay_command() {
    let path = scratch(
        "fail.scn",
        "title: t\nsubtest \"s\"\n  page top https://a.test/\n  expect top.toolsReady == false\n",
    );
    let (code, out, _) = webmcp_ref(&["run", &path]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("{path}:4:3: expect top.toolsReady == false")),
        "{out}"
    );
    assert!(
        out.contains("expected: false") && out.contains("actual:   true"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "webmcp-ref trace {path} --subtest \"s\" --profile spec"
        )),
        "{out}"
    );
}

#[test]
fn several_profiles_show_where_outcomes_differ() {
    let path = scratch("two.scn", PASSING);
    let (code, out, err) = webmcp_ref(&["run", &path, "--profile", "spec,pr373-r1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("Where the outcomes differ (spec | pr373-r1)"),
        "{out}"
    );
    assert!(out.contains("top.toolsReady"), "{out}");
}

#[test]
fn bad_input_exits_2_and_names_the_problem() {
    let (code, _, err) = webmcp_ref(&["run", "--profile", "chrome"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown profile `chrome`") && err.contains("chromium-pr373"),
        "{err}"
    );
    let (code, _, err) = webmcp_ref(&["run", "--set", "settle=always"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown switch `settle`"), "{err}");
    let (code, _, err) = webmcp_ref(&["run", "--set", "gettools-waits"]);
    assert_eq!(code, 2);
    assert!(err.contains("not of the form name=value"), "{err}");
    let bad = scratch(
        "bad.scn",
        "title: t\nsubtest \"s\"\n  page top https://a.test/\n  expect top.toolsReady = true\n",
    );
    // A file that does not parse is that file's ERROR, in the report and (for JSON and
    // wptreport) on stderr.
    let (code, out, _) = webmcp_ref(&["run", &bad]);
    assert_eq!(code, 2);
    assert!(out.contains(&format!("ERROR {bad}")), "{out}");
    assert!(out.contains(&format!("{bad}:4:")), "{out}");
    let (code, _, err) = webmcp_ref(&["run", &bad, "--format", "json"]);
    assert_eq!(code, 2);
    assert!(err.contains(&format!("{bad}:4:")), "{err}");
    let (code, _, err) = webmcp_ref(&["run", "no/such/path.scn"]);
    assert_eq!(code, 2);
    assert!(err.contains("no/such/path.scn"), "{err}");
    let (code, _, err) = webmcp_ref(&["run", "--schedule", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("schedule token `x` is malformed"), "{err}");
    let (code, _, _) = webmcp_ref(&["frobnicate"]);
    assert_eq!(code, 2);
}

#[test]
fn wptreport_has_one_test_per_file_and_one_subtest_per_subtest() {
    let path = scratch("report.scn", PASSING);
    let (code, out, _) = webmcp_ref(&["run", &path, "--format", "wptreport"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["status"], "OK");
    assert_eq!(results[0]["subtests"][0]["name"], "s");
    assert_eq!(results[0]["subtests"][0]["status"], "PASS");
    assert_eq!(v["run_info"]["product"], "webmcp-ref");
}

#[test]
fn trace_prints_steps_and_the_schedule_and_replays_one() {
    let path = scratch("trace.scn", PASSING);
    let (code, out, _) = webmcp_ref(&["trace", &path]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("schedule: default"), "{out}");
    assert!(
        out.contains("waitForToolsUntil() step 2 [top]: promise#1 has already settled: return"),
        "{out}"
    );
    let (code, out, _) = webmcp_ref(&["trace", &path, "--format", "jsonl"]);
    assert_eq!(code, 0);
    for line in out.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("every line is JSON");
    }
    let (code, _, err) = webmcp_ref(&["trace", &path, "--schedule", "0:1"]);
    assert_eq!(code, 1, "a token for another run does not fit: {err}");
    let (code, _, err) = webmcp_ref(&["trace", &path, "--subtest", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("its subtests are: \"s\""), "{err}");
}

#[test]
fn profiles_lists_every_switch_and_profile() {
    let (code, out, _) = webmcp_ref(&["profiles"]);
    assert_eq!(code, 0);
    for name in [
        "spec",
        "pr373-r1",
        "chromium-pr373",
        "settled-promise-check",
        "inactive-realm-jobs",
        "tools-ready-timeout",
    ] {
        assert!(out.contains(name), "{name} missing from:\n{out}");
    }
}

/// A reader that goes away before the output is written (`webmcp-ref run | head -0`) ends the
/// output quietly: the exit status is still the run's, and nothing is said about the pipe.
#[test]
fn a_closed_stdout_ends_the_output_quietly_with_the_runs_exit_status() {
    let path = scratch(
        "closed.scn",
        "title: t\nsubtest \"s\"\n  page top https://a.test/\n  expect top.toolsReady == false\n",
    );
    for (args, status) in [
        (vec!["run", "-v", path.as_str()], 1),
        (vec!["trace", path.as_str()], 1),
        (vec!["profiles"], 0),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_webmcp-ref"))
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the binary runs");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("the binary ends");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?}");
    }
}

/// A child frame's task races the agent's observation: on one schedule the observation is made
/// at once, on the other it waits for the settle at 100 ms.
const RACE: &str = "title: t\nrequires: readiness-api=pr373\nsubtest \"s\"\n  page top https://a.test/\n  frame child in top https://b.test/w.html allow=\"tools *\"\n  promise p in child\n  task in child:\n    child.waitForToolsUntil(p)\n    after 100ms: resolve p\n  observe top as o\n  run\n  expect o => ready after 100ms\n  expect sometimes o => navigated\n  expect child.toolsReady == true\n";

#[test]
fn explore_says_on_how_many_schedules_each_expectation_held_and_where_profiles_differ() {
    let path = scratch("race.scn", RACE);
    let (code, out, _) = webmcp_ref(&["explore", &path, "--profile", "spec,text"]);
    assert_eq!(code, 1, "{out}");
    // An expectation that held on one schedule of two does not fail "on every schedule".
    assert!(
        out.contains(&format!(
            "FAILS on 1 of 2 schedules (held on 1): {path}:12: expect o => ready after 100ms"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "FAILS: held on no schedule (0 of 2): {path}:13: expect sometimes o => navigated"
        )),
        "{out}"
    );
    assert!(
        out.contains("holds on every schedule (2 of 2): line 14: expect child.toolsReady == true"),
        "{out}"
    );
    assert!(!out.contains("FAILS on every schedule"), "{out}");
    // The table across profiles, as `run` has.
    assert!(out.contains("Where the outcomes differ (spec | text"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.trim_start().starts_with("verdict") && l.contains("FAIL") && l.contains("not run")),
        "{out}"
    );
}

#[test]
fn explore_html_shows_each_outcome_with_its_replay_token() {
    let path = scratch("race-html.scn", RACE);
    let (_, out, _) = webmcp_ref(&["explore", &path, "--format", "html"]);
    assert!(out.starts_with("<!DOCTYPE html>"), "{out}");
    assert_eq!(out.matches("class=\"outcome-row\"").count(), 2, "{out}");
    assert!(out.contains("<td class=\"mono token\">0:1</td>"), "{out}");
    assert!(out.contains("--schedule 0:1 --format html"), "{out}");
    assert!(!out.contains("<script src") && !out.contains("<link"), "self-contained");
}

#[test]
fn trace_html_and_markdown_show_one_subtest_and_say_which_when_several_match() {
    let path = scratch(
        "two-subtests.scn",
        "title: t\nsubtest \"one\"\n  page top https://a.test/\n  expect top.toolsReady == true\nsubtest \"two\"\n  page top https://a.test/\n  expect top.toolsReady == true\n",
    );
    let (code, _, err) = webmcp_ref(&["trace", &path, "--format", "html"]);
    assert_eq!(code, 2);
    assert!(err.contains("several of") && err.contains("\"one\", \"two\""), "{err}");
    let (code, out, _) = webmcp_ref(&["trace", &path, "--subtest", "two", "--format", "html", "--profile", "spec,chromium-pr373"]);
    assert_eq!(code, 0);
    assert_eq!(out.matches("<section class=\"timeline\"").count(), 2);
    assert!(out.contains("data-lane=\"harness\""), "{out}");
    let (code, out, _) = webmcp_ref(&["trace", &path, "--subtest", "two", "--format", "markdown"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("# two\n"), "{out}");
    assert!(out.contains("```mermaid\nsequenceDiagram\n"), "{out}");
    // The human and JSON-lines traces print no timeline marks.
    let (_, human, _) = webmcp_ref(&["trace", &path, "--subtest", "two"]);
    assert!(!human.contains("tools-ready of") && !human.contains("line 7: expect"), "{human}");
    let (_, jsonl, _) = webmcp_ref(&["trace", &path, "--subtest", "two", "--format", "jsonl"]);
    assert!(!jsonl.contains("\"kind\":\"mark\""), "{jsonl}");
}

#[test]
fn run_html_writes_a_suite_page_linking_each_subtests_timeline() {
    let (code, _, err) = webmcp_ref(&["run", "--format", "html"]);
    assert_eq!(code, 2);
    assert!(err.contains("--out DIR"), "{err}");
    let dir = std::env::temp_dir().join(format!("webmcp-ref-cli-{}-html", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.display().to_string();
    let (code, out, err) = webmcp_ref(&[
        "run",
        "wpt-mirror/webmcp/readiness/child-frames.https.html.scn",
        "--profile",
        "spec,chromium-pr373",
        "--format",
        "html",
        "--out",
        &d,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("index.html"), "{out}");
    let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let links: Vec<&str> = index
        .split("<a href=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert_eq!(links.len(), 8, "one per subtest");
    for l in links {
        assert!(
            l.starts_with("webmcp/webmcp-ref/readiness/child-frames.tentative.https.html/"),
            "{l}"
        );
        let page = std::fs::read_to_string(dir.join(l)).unwrap();
        assert_eq!(page.matches("<section class=\"timeline\"").count(), 2, "{l}");
    }
}

#[test]
fn each_command_lists_its_exit_statuses_in_its_help() {
    for command in ["run", "trace", "explore", "coverage", "export-wpt", "serve", "spec-check", "diff-browser", "profiles"] {
        let (code, out, _) = webmcp_ref(&[command, "--help"]);
        assert_eq!(code, 0, "{command}");
        assert!(out.contains("Exit status:"), "{command}: {out}");
    }
}

#[test]
fn a_subtest_filter_that_matches_nothing_is_bad_input() {
    let path = scratch("filter.scn", PASSING);
    let (code, _, err) = webmcp_ref(&["run", &path, "--subtest", "no-such"]);
    assert_eq!(code, 2);
    assert!(err.contains("no subtest matches \"no-such\""), "{err}");
}

#[test]
fn a_malformed_file_in_a_folder_is_its_error_and_the_others_run() {
    let dir = std::env::temp_dir().join(format!("webmcp-ref-cli-folder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.scn"), PASSING).unwrap();
    std::fs::write(dir.join("b.scn"), "title: t\nsubtest \"s\"\n  pgae top https://a.test/\n").unwrap();
    std::os::unix::fs::symlink(&dir, dir.join("loop")).unwrap();
    let folder = dir.display().to_string();
    let (code, out, _) = webmcp_ref(&["run", &folder]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("PASS ") && out.contains("a.scn"), "{out}");
    assert!(out.contains("ERROR ") && out.contains("b.scn:3:3:"), "{out}");
    assert!(out.contains("2 files, 1 subtests: 1 passed"), "{out}");
    let (code, out, err) = webmcp_ref(&["run", &folder, "--format", "wptreport"]);
    assert_eq!(code, 2);
    assert!(err.contains("b.scn:3:3:"), "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[1]["status"], "ERROR");
    assert!(results[1]["message"].as_str().unwrap().contains("b.scn:3:3:"));
}

#[test]
fn numeric_flags_out_of_range_are_bad_input() {
    for args in [
        &["run", "--set", "tools-ready-timeout=18446744073709551615"][..],
        &["run", "--set", "tools-ready-timeout=-1"],
        &["explore", "--max-seconds", "inf"],
        &["explore", "--max-seconds", "1e19"],
        &["explore", "--max-seconds", "1e400"],
        &["explore", "--max-seconds", "NaN"],
        &["explore", "--max-seconds", "-1"],
        &["explore", "--max-seconds", "0"],
        &["explore", "--max-schedules", "0"],
        &["explore", "--max-memory", "0"],
        &["explore", "--max-memory", "lots"],
        &["explore", "--max-memory", "1e30G"],
        &["explore", "--threads", "0"],
        &["explore", "--threads", "100000"],
        &["diff-browser", "--timeout", "inf"],
        &["diff-browser", "--timeout", "NaN"],
        &["diff-browser", "--margin-ms", "99999999"],
    ] {
        let (code, _, err) = webmcp_ref(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(!err.is_empty(), "{args:?}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}


/// A child that waits for a promise nobody settles, and an observation of the page that may
/// run before or after the child's task: two outcomes.
const RACY: &str = "title: t\nsubtest \"racy\"\n  page top https://a.test/\n  frame child in top https://b.test/ allow=\"tools *\"\n  promise p in child\n  task in child: child.waitForToolsUntil(p)\n  observe top as o\n  run\n  expect o => timed-out\n";

/// Three frames each waiting for a promise settled from a timer, an observation and a
/// registration: a few thousand states.
const THREE_FRAMES: &str = "title: t\nsubtest \"three frames\"\n  page top https://a.test/\n  frame b in top https://b.test/ allow=\"tools *\"\n  frame c in top https://c.test/ allow=\"tools *\"\n  frame d in top https://d.test/ allow=\"tools *\"\n  promise pb in b\n  promise pc in c\n  promise pd in d\n  task in b:\n    b.waitForToolsUntil(pb)\n    after 0ms: resolve pb\n  task in c:\n    c.waitForToolsUntil(pc)\n    after 0ms: resolve pc\n  task in d:\n    d.waitForToolsUntil(pd)\n    after 0ms: resolve pd\n  observe top as o\n  task in top: top.registerTool({name: \"x\", description: \"d\", execute: returns(1)})\n  run\n";

#[test]
fn explore_rejects_a_time_budget_that_is_not_a_finite_positive_number_of_seconds() {
    let path = scratch("explore-seconds.scn", PASSING);
    for bad in ["inf", "1e19", "1e400", "NaN", "-1", "0", "soon"] {
        let (code, out, err) = webmcp_ref(&["explore", &path, "--max-seconds", bad]);
        assert_eq!(code, 2, "--max-seconds {bad}: {out}{err}");
        assert!(
            err.contains("--max-seconds") && err.contains(bad),
            "--max-seconds {bad}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    let (code, out, err) = webmcp_ref(&["explore", &path, "--max-seconds", "30"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn explore_rejects_zero_threads() {
    let path = scratch("explore-threads.scn", PASSING);
    let (code, _, err) = webmcp_ref(&["explore", &path, "--threads", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--threads"), "{err}");
}

#[test]
fn explore_stops_cleanly_at_its_memory_budget_with_a_partial_report() {
    let path = scratch("explore-memory.scn", THREE_FRAMES);
    let (code, out, err) = webmcp_ref(&["explore", &path, "--max-memory", "1K"]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("INCOMPLETE"), "{out}");
    assert!(out.contains("stopped by --max-memory"), "{out}");
    assert!(out.contains("distinct outcome(s)"), "{out}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn explore_with_a_budget_of_one_schedule_is_complete_on_a_subtest_of_one_schedule() {
    let one = scratch(
        "explore-one.scn",
        "title: t\nsubtest \"one\"\n  page top https://a.test/\n  task in top: log \"a\"\n  run\n  expect log == [\"a\"]\n",
    );
    let (code, out, err) = webmcp_ref(&["explore", &one, "--max-schedules", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PASS"), "{out}");
    // A subtest of two schedules is not.
    let racy = scratch("explore-one-racy.scn", RACY);
    let (code, out, _) = webmcp_ref(&["explore", &racy, "--max-schedules", "1"]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("stopped by --max-schedules"), "{out}");
    // It says how to sample what it could not exhaust.
    assert!(out.contains("--random N"), "{out}");
}

#[test]
fn explore_says_what_its_counts_count() {
    let racy = scratch("explore-counts.scn", RACY);
    let (_, reduced, _) = webmcp_ref(&["explore", &racy]);
    assert!(reduced.contains("traces explored"), "{reduced}");
    assert!(reduced.contains("2 distinct outcome(s)"), "{reduced}");
    let (_, merged, _) = webmcp_ref(&["explore", &racy, "--no-partial-order"]);
    assert!(merged.contains("schedules (every one, exactly)"), "{merged}");
    let (_, sampled, _) = webmcp_ref(&["explore", &racy, "--random", "5"]);
    assert!(sampled.contains("schedules sampled"), "{sampled}");
}

/// Each outcome of `explore --random` or `--pct` has a token that `run --schedule` replays to
/// the same verdict; the report gives the seed back, and the same seed draws the same runs.
#[test]
fn random_and_pct_report_every_outcome_with_a_replayable_token_and_the_seed() {
    let racy = scratch("explore-sampled.scn", RACY);
    for mode in [
        vec!["--random", "40", "--seed", "7"],
        vec!["--pct", "2", "--random", "40", "--seed", "3"],
    ] {
        let mut args = vec!["explore", racy.as_str(), "--format", "json"];
        args.extend(&mode);
        let (code, out, err) = webmcp_ref(&args);
        assert_eq!(code, 1, "{mode:?}: the failing order is found: {out}{err}");
        let again = webmcp_ref(&args).1;
        assert_eq!(out, again, "{mode:?}: the same seed draws the same runs");
        let report: serde_json::Value = serde_json::from_str(&out).unwrap();
        let e = &report[0];
        assert_eq!(e["counted"], "samples");
        let seed: u64 = mode[mode.len() - 1].parse().unwrap();
        assert_eq!(e["seed"], seed, "{mode:?}");
        let outcomes = e["outcomes"].as_array().unwrap();
        assert_eq!(outcomes.len(), 2, "{mode:?}: {out}");
        let total: u64 = outcomes.iter().map(|o| o["schedules"].as_u64().unwrap()).sum();
        assert_eq!(total, 40);
        for o in outcomes {
            let token = o["schedule"].as_str().unwrap();
            let (code, out, err) = webmcp_ref(&["run", &racy, "--schedule", token]);
            let expected = if o["status"] == "PASS" { 0 } else { 1 };
            assert_eq!(code, expected, "{mode:?}: --schedule {token}: {out}{err}");
        }
        let mut human = vec!["explore", racy.as_str()];
        human.extend(&mode);
        let (_, text, _) = webmcp_ref(&human);
        assert!(text.contains(&format!("(seed {seed})")), "{text}");
    }
}

/// `playground` says what it needs and exits 2: where to write, a checkout to build from, a
/// folder already built.
#[test]
fn the_playground_says_what_it_needs() {
    let (code, _, err) = webmcp_ref(&["playground"]);
    assert_eq!(code, 2);
    assert!(err.contains("give --out DIR"), "{err}");
    let empty = std::env::temp_dir().join(format!("webmcp-ref-cli-playground-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let empty = empty.display().to_string();
    let (code, _, err) = webmcp_ref(&["playground", "--out", &empty, "--source", &empty]);
    assert_eq!(code, 2);
    assert!(
        err.contains("built from a checkout of webmcp-ref") && err.contains("--source DIR"),
        "{err}"
    );
    let (code, _, err) = webmcp_ref(&["playground", "--out", &empty, "--serve", "--no-build"]);
    assert_eq!(code, 2);
    assert!(err.contains("holds no pkg/"), "{err}");
    let (code, _, err) = webmcp_ref(&["playground", "--out", &empty, "--no-build"]);
    assert_eq!(code, 2);
    assert!(err.contains("--serve"), "{err}");
    let (code, _, err) = webmcp_ref_in(
        std::path::Path::new(&empty),
        &["playground", "--serve"],
    );
    assert_eq!(code, 2);
    assert!(err.contains("none was found from"), "{err}");
}
