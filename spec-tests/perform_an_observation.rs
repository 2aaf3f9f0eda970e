//! Perform an observation: the browser agent's view of a page's tools, as the text writes it
//! and after PR #373's wait.
//!
//! <https://webmachinelearning.github.io/webmcp/#perform-an-observation>
//!
//! The text (readiness-api=none): 1 assert: on the AI agent queue; 2 assert: the traversable's
//! active document is fully active; 3 a new observation; 4 the inclusive descendant navigables
//! of the active document; 5 for each: 5.1 its active document, 5.2 its unique ID, 5.3 its tool
//! map's values, 5.4 an observed tool collection of the document's origin and those tools, 5.5
//! the observation's tool map[unique ID]; 6-7 implementation-defined additions, and exposing
//! the tool map to the browser agent. PR #373 (readiness-api=pr373, every named profile) waits
//! for tools to be ready after the assertions (its step 3) and returns early on "navigated"
//! (4); the text's steps 3-7 follow as 5-9.

use crate::common;

use futures::executor::block_on;

use common::{observed_tools, tool, Sim};
use webmcp_ref::host::navigable::DocumentOptions;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::{PERFORM_AN_OBSERVATION, PERFORM_AN_OBSERVATION_PR373};
use webmcp_ref::WaitOutcome;

fn names(list: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    list.iter()
        .map(|(d, tools)| (d.to_string(), tools.iter().map(|t| t.to_string()).collect()))
        .collect()
}

#[test]
fn perform_an_observation_pr373_step_3_waits_and_sees_tools_registered_during_the_wait() {
    // The common pattern of the PR's example: tools register asynchronously, then the promise
    // given to waitForToolsUntil resolves.
    for name in ["spec", "pr373-r1", "chromium-pr373"] {
        let mut sim = Sim::new(name);
        let top = sim.page("top", "https://a.test/");
        sim.promise_in(top, "p");
        sim.task(top, "top.waitForToolsUntil(p)");
        sim.run();
        let o = sim.w.observe(top, "o");
        sim.run_for(200);
        sim.task(
            top,
            &format!(
                "await top.registerTool({})\nresolve p with 1",
                tool("search", "")
            ),
        );
        sim.run_for(100);
        sim.run();
        let result = sim.observation_result(o).unwrap().clone();
        assert_eq!(result.outcome, WaitOutcome::Ready, "{name}");
        assert_eq!(result.waited_ms, 200, "{name}");
        assert_eq!(
            observed_tools(&result),
            names(&[("top", &["search"])]),
            "{name}"
        );
        assert!(sim.reached(&PERFORM_AN_OBSERVATION_PR373, "3"), "{name}");
    }
}

#[test]
fn perform_an_observation_pr373_step_3_a_timed_out_wait_still_observes_and_misses_late_tools() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    let result = block_on(sim.w.observed(top)).unwrap();
    assert_eq!(result.outcome, WaitOutcome::TimedOut);
    assert_eq!(result.waited_ms, 5000);
    assert_eq!(observed_tools(&result), names(&[("top", &[])]));
    assert!(sim.reached(&PERFORM_AN_OBSERVATION_PR373, "9"));
}

#[test]
fn perform_an_observation_pr373_step_4_returns_early_with_no_observation_after_a_navigation() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(top, &format!("top.registerTool({})", tool("t", "")));
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    let o = sim.w.observe(top, "o");
    sim.run_for(50);
    sim.w
        .navigate(top, "https://a.test/next", "next", false)
        .unwrap();
    sim.run();
    let result = sim.observation_result(o).unwrap();
    assert_eq!(result.outcome, WaitOutcome::Navigated);
    assert!(result.tool_map.is_none());
    assert_eq!(result.waited_ms, 50);
    assert!(sim.reached(&PERFORM_AN_OBSERVATION_PR373, "4"));
    assert!(!sim.reached(&PERFORM_AN_OBSERVATION_PR373, "5"));
}

#[test]
fn perform_an_observation_pr373_step_4_returns_early_with_no_observation_after_destruction() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    let o = sim.w.observe(top, "o");
    sim.run_for(50);
    sim.w.close(top).unwrap();
    sim.run();
    let result = sim.observation_result(o).unwrap();
    assert_eq!(result.outcome, WaitOutcome::Destroyed);
    assert!(result.tool_map.is_none());
    assert!(!sim.reached(&PERFORM_AN_OBSERVATION_PR373, "5"));
}

#[test]
fn perform_an_observation_without_the_readiness_api_does_not_wait() {
    // readiness-api=none: the text has no wait. Even a page whose tools the lifecycle switch
    // presumes not ready (still loading) is observed at once, with the text's step numbers.
    for (api, waited, outcome) in [
        ("pr373", 5000, WaitOutcome::TimedOut),
        ("none", 0, WaitOutcome::Ready),
    ] {
        let mut sim = Sim::with(
            "spec",
            &[("readiness-api", api), ("tools-ready-lifecycle", "load")],
        );
        let options = DocumentOptions {
            loading: true,
            ..DocumentOptions::default()
        };
        let top = sim.page_with("top", "https://a.test/", options);
        sim.task(top, &format!("top.registerTool({})", tool("t", "")));
        sim.run();
        let result = block_on(sim.w.observed(top)).unwrap();
        assert_eq!(result.outcome, outcome, "{api}");
        assert_eq!(result.waited_ms, waited, "{api}");
        assert_eq!(observed_tools(&result), names(&[("top", &["t"])]), "{api}");
        let text = api == "none";
        assert_eq!(sim.reached(&PERFORM_AN_OBSERVATION, "7"), text, "{api}");
        assert_eq!(
            sim.reached(&PERFORM_AN_OBSERVATION_PR373, "3"),
            !text,
            "{api}"
        );
    }
}

#[test]
fn perform_an_observation_step_5_4_each_observed_tool_collection_holds_its_documents_origin() {
    // The text's numbering (readiness-api=none): the tool map is keyed by each document's
    // unique ID, and each entry holds the document's origin with its tools.
    let mut sim = Sim::with("spec", &[("readiness-api", "none")]);
    let top = sim.page("top", "https://a.test/");
    let other = sim.frame_allow(top, "other", "https://b.test:8443/", "tools");
    // Not allowed to use "tools": still observed, with its origin and no tools.
    sim.frame(top, "denied", "https://c.test/");
    sim.task(top, &format!("top.registerTool({})", tool("t", "")));
    sim.task(other, &format!("other.registerTool({})", tool("o", "")));
    sim.run();
    let result = block_on(sim.w.observed(top)).unwrap();
    let map = result.tool_map.unwrap();
    let seen: Vec<(&str, &str, usize)> = map
        .iter()
        .map(|d| (d.document.as_str(), d.origin.as_str(), d.tools.len()))
        .collect();
    assert_eq!(
        seen,
        vec![
            ("top", "https://a.test", 1),
            ("other", "https://b.test:8443", 1),
            ("denied", "https://c.test", 0),
        ]
    );
    let mut ids: Vec<u64> = map.iter().map(|d| d.unique_id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 3, "one unique ID per document");
    for step in ["3", "4", "5", "5.1", "5.2", "5.3", "5.4", "5.5", "6", "7"] {
        assert!(sim.reached(&PERFORM_AN_OBSERVATION, step), "step {step}");
    }
}

#[test]
fn perform_an_observation_pr373_step_7_covers_every_inclusive_descendant_document_in_tree_order() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    let grandchild = sim.frame(child, "grandchild", "https://a.test/grandchild.html");
    let other = sim.frame_allow(top, "other", "https://b.test/", "tools");
    sim.task(
        top,
        &format!(
            "top.registerTool({})\ntop.registerTool({})",
            tool("t1", ""),
            tool("t2", "")
        ),
    );
    sim.task(
        grandchild,
        &format!("grandchild.registerTool({})", tool("g", "")),
    );
    sim.task(other, &format!("other.registerTool({})", tool("o", "")));
    sim.run();
    let result = block_on(sim.w.observed(top)).unwrap();
    assert_eq!(
        observed_tools(&result),
        names(&[
            ("top", &["t1", "t2"]),
            ("child", &[]),
            ("grandchild", &["g"]),
            ("other", &["o"]),
        ])
    );
    // 7.4: the document's origin goes with its tools (the observed tool collection).
    let map = result.tool_map.unwrap();
    assert_eq!(map[3].origin, "https://b.test");
    assert_eq!(map[0].origin, "https://a.test");
    assert!(sim.reached(&PERFORM_AN_OBSERVATION_PR373, "7.4"));
}

#[test]
fn perform_an_observation_pr373_step_7_3_an_observed_tool_carries_its_definition() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(
        top,
        &format!(
            "top.registerTool({})",
            tool(
                "lookup",
                "title: \"Look up\", inputSchema: {type: \"object\"}, annotations: {readOnlyHint: true}"
            )
        ),
    );
    sim.run();
    let result = block_on(sim.w.observed(top)).unwrap();
    let t = &result.tool_map.unwrap()[0].tools[0];
    assert_eq!(t.name, "lookup");
    assert_eq!(t.title.as_deref(), Some("Look up"));
    assert_eq!(t.description, "d");
    assert_eq!(t.input_schema, r#"{"type":"object"}"#);
    let a = t.annotations.expect("annotations were given");
    assert!(a.read_only_hint);
    assert!(!a.untrusted_content_hint);
}

#[test]
fn perform_an_observation_pr373_step_7_a_removed_iframe_is_not_observed() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    sim.task(child, &format!("child.registerTool({})", tool("c", "")));
    sim.run();
    sim.w.remove_iframe(child).unwrap();
    let result = block_on(sim.w.observed(top)).unwrap();
    assert_eq!(observed_tools(&result), names(&[("top", &[])]));
}

#[test]
fn perform_an_observation_step_2_holds_for_every_page_that_can_be_observed_as_written_too() {
    // The text asserts the active document is fully active, which an observable page's is.
    for name in ["spec", "literal", "chromium-pr373"] {
        let mut sim = Sim::new(name);
        let top = sim.page("top", "https://a.test/");
        let result = block_on(sim.w.observed(top)).unwrap();
        assert_eq!(result.outcome, WaitOutcome::Ready, "{name}");
        assert!(sim.findings().is_empty(), "{name}: {:?}", sim.findings());
    }
}

#[test]
fn perform_an_observation_pr373_step_1_observations_run_one_at_a_time_on_the_ai_agent_queue() {
    // The AI agent queue is one parallel queue: a second observation starts when the first
    // has finished waiting, and then waits its own whole timeout.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    let first = sim.w.observe(top, "first");
    sim.run_for(2000);
    let second = sim.w.observe(top, "second");
    sim.run();
    assert_eq!(sim.observation(first).started_at, Some(0));
    assert_eq!(sim.observation_result(first).unwrap().waited_ms, 5000);
    assert_eq!(sim.observation(second).requested_at, 2000);
    assert_eq!(sim.observation(second).started_at, Some(5000));
    assert_eq!(sim.observation_result(second).unwrap().waited_ms, 5000);
    assert_eq!(sim.now(), 10_000);
    assert!(sim.findings().is_empty());
}
