//! The explorer: the reduction loses no outcome, results do not depend on the number of
//! threads, budgets make a report incomplete, and a counterexample token replays the failure.

use std::collections::BTreeMap;

use webmcp_ref::engine::profile::Profile;
use webmcp_ref::explore::{explore_all, explore_subtest, Exploration, ExploreOptions, Progress};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::scenario::{parse_file, run_file, RunOptions, ScenarioFile, Status};
use webmcp_ref::Schedule;

const SMALL: &str = r#"title: small scenarios with real interleavings
subtest "the spec's notify-task-ordering example"
  page top https://a.test/
  frame child in top https://a.test/c.html
  task in top:
    set top.ontoolchange: log "Parent toolchange"
    set child.ontoolchange: log "Child toolchange"
    reg = top.registerTool({name: "t", description: "d", execute: returns(1)})
    on reg fulfilled: log "Register promise resolved"
    after 0ms: log "Post-register task"
  run

subtest "an observation racing a cross-origin child's wait and settle"
  page top https://a.test/
  frame child in top https://b.test/ allow="tools *"
  promise p in child
  task in child:
    child.waitForToolsUntil(p)
    child.registerTool({name: "w", description: "d", execute: returns(1)})
    after 0ms: resolve p
  observe top as o
  run

subtest "a navigation racing the end of the wait"
  page top https://a.test/
  frame child in top https://b.test/ allow="tools *"
  promise p in child
  task in child:
    child.waitForToolsUntil(p)
    after 100ms: resolve p
  task in top:
    after 100ms: navigate top to https://a.test/next as next
  flush
  observe top as o
  run

subtest "a registration and an unregistration in two tasks"
  page top https://a.test/
  controller ac in top
  task in top:
    on top toolchange: log "heard"
    top.registerTool({name: "a", description: "d", execute: returns(1)}, {signal: ac.signal})
  task in top: ac.abort()
  run
"#;

fn file() -> ScenarioFile {
    parse_file("small.scn", SMALL).expect("parses")
}

fn options(profile: &str, reduce: bool) -> ExploreOptions {
    ExploreOptions {
        profile: Profile::named(profile).unwrap(),
        reduce,
        ..ExploreOptions::default()
    }
}

/// Outcome -> number of schedules reaching it.
fn outcomes(e: &Exploration) -> BTreeMap<String, u128> {
    e.outcomes
        .iter()
        .map(|o| {
            (
                format!("{} {:?} {:?}", o.status, o.values, o.messages),
                o.schedules,
            )
        })
        .collect()
}

#[test]
fn the_reduction_finds_the_same_outcomes_with_the_same_counts_as_the_naive_enumeration() {
    let file = file();
    let progress = Progress::default();
    for profile in ["spec", "chromium-pr373", "coalesced-registry", "literal"] {
        for subtest in &file.subtests {
            let reduced = explore_subtest(&file, subtest, &options(profile, true), &progress);
            let naive = explore_subtest(&file, subtest, &options(profile, false), &progress);
            assert!(reduced.complete && naive.complete);
            assert_eq!(
                outcomes(&reduced),
                outcomes(&naive),
                "{} under {profile}",
                subtest.name
            );
            assert_eq!(reduced.schedules, naive.schedules, "{}", subtest.name);
            assert!(
                reduced.states <= naive.states,
                "{}: the reduction explored more states",
                subtest.name
            );
        }
    }
}

#[test]
fn the_reduction_merges_states_when_interleavings_meet_again() {
    let file = file();
    let subtest = &file.subtests[0];
    let progress = Progress::default();
    let reduced = explore_subtest(&file, subtest, &options("spec", true), &progress);
    let naive = explore_subtest(&file, subtest, &options("spec", false), &progress);
    assert!(reduced.merged > 0);
    assert!(
        reduced.states < naive.states,
        "{} vs {}",
        reduced.states,
        naive.states
    );
}

#[test]
fn the_spec_example_permits_exactly_its_four_orders() {
    let file = file();
    let e = explore_subtest(
        &file,
        &file.subtests[0],
        &options("spec", true),
        &Progress::default(),
    );
    let logs: Vec<&str> = e
        .outcomes
        .iter()
        .map(|o| {
            o.values
                .iter()
                .find(|(k, _)| k == "log")
                .map(|(_, v)| v.as_str())
                .unwrap()
        })
        .collect();
    assert_eq!(logs.len(), 4, "{logs:#?}");
    for log in &logs {
        let parent = log.find("Parent toolchange").unwrap();
        let child = log.find("Child toolchange").unwrap();
        let resolved = log.find("Register promise resolved").unwrap();
        assert!(parent < child && child < resolved, "{log}");
    }
}

#[test]
fn results_do_not_depend_on_the_number_of_threads() {
    let files = vec![file()];
    let opts = vec![options("spec", true), options("chromium-pr373", true)];
    let one = explore_all(&files, &opts, 1, &Progress::default());
    let two = explore_all(&files, &opts, 2, &Progress::default());
    let json = |r: &[Exploration]| serde_json::to_string(r).unwrap();
    assert_eq!(json(&one), json(&two));
    assert_eq!(one.len(), 8);
}

#[test]
fn a_budget_makes_the_report_incomplete() {
    let file = file();
    let mut o = options("spec", true);
    o.max_schedules = Some(2);
    let e = explore_subtest(&file, &file.subtests[0], &o, &Progress::default());
    assert!(!e.complete);
    assert!(!e.passed());
    assert!(e.leaves_run <= 3);
}

#[test]
fn a_schedule_budget_that_runs_every_schedule_leaves_the_report_complete() {
    let file = file();
    let all = explore_subtest(
        &file,
        &file.subtests[0],
        &options("spec", true),
        &Progress::default(),
    );
    assert!(all.complete);
    let mut o = options("spec", true);
    o.max_schedules = Some(all.leaves_run);
    let e = explore_subtest(&file, &file.subtests[0], &o, &Progress::default());
    assert!(e.complete, "{} of {} schedules", e.leaves_run, all.leaves_run);
    let one = webmcp_ref::scenario::parse_file(
        "one.scn",
        "title: t\nsubtest \"s\"\n  page top https://a.test/\n  observe top => ready\n",
    )
    .unwrap();
    o.max_schedules = Some(1);
    let e = explore_subtest(&one, &one.subtests[0], &o, &Progress::default());
    assert!(e.complete && e.passed(), "{e:?}");
}

#[test]
fn a_counterexample_token_replays_the_failure() {
    // Passes on the default schedule; the observation can also run before the child's task.
    let text = r#"title: t
subtest "racy"
  page top https://a.test/
  frame child in top https://b.test/ allow="tools *"
  promise p in child
  task in child: child.waitForToolsUntil(p)
  observe top as o
  run
  expect o => timed-out
"#;
    let file = parse_file("racy.scn", text).unwrap();
    let e = explore_subtest(
        &file,
        &file.subtests[0],
        &options("spec", true),
        &Progress::default(),
    );
    let verdict = e.expectations.iter().find(|v| v.line == 9).unwrap();
    assert!(!verdict.holds);
    let token = verdict.counterexample.clone().expect("a counterexample");
    assert_ne!(token, "default");

    let default = run_file(&file, &RunOptions::default());
    assert_eq!(default.subtests[0].status, Status::Pass);
    let replayed = run_file(
        &file,
        &RunOptions {
            schedule: Some(token.parse::<Schedule>().unwrap()),
            ..RunOptions::default()
        },
    );
    let sub = &replayed.subtests[0];
    assert_eq!(sub.status, Status::Fail, "{:?}", sub.messages);
    assert_eq!(sub.schedule, token, "the replay follows the token exactly");
    let failed: Vec<u32> = sub
        .expectations
        .iter()
        .filter(|e| !e.passed)
        .map(|e| e.line)
        .collect();
    assert_eq!(failed, vec![9]);
}

#[test]
fn sometimes_and_log_in_are_judged_over_all_schedules() {
    let text = r#"title: t
subtest "two loops"
  page top https://a.test/
  frame child in top https://b.test/ allow="tools *"
  task in top: log "top"
  task in child: log "child"
  run
  expect sometimes log == ["child", "top"]
  expect log in [["top", "child"], ["child", "top"]]
  expect log in [["top", "child"], ["child", "top"], ["neither"]]
"#;
    let file = parse_file("t.scn", text).unwrap();
    let e = explore_subtest(
        &file,
        &file.subtests[0],
        &options("spec", true),
        &Progress::default(),
    );
    let by_line: BTreeMap<u32, bool> = e.expectations.iter().map(|v| (v.line, v.holds)).collect();
    assert!(by_line[&8], "one schedule runs the child's task first");
    assert!(by_line[&9]);
    assert!(!by_line[&10], "no schedule reaches [\"neither\"]");
    let v = e.expectations.iter().find(|v| v.line == 10).unwrap();
    assert_eq!(v.unreached, vec![r#"["neither"]"#.to_string()]);
}
