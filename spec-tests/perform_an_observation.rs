//! Perform an observation: the browser agent's view of a page's tools, after PR #373's wait.
//!
//! <https://webmachinelearning.github.io/webmcp/#perform-an-observation>
//!
//! Steps as the engine numbers them: 1 assert: on the AI agent queue; 2 assert: the active
//! document is fully active (the snapshot's text says "not"; checked word for word under
//! assertions=as-written); 3 wait for tools to be ready; 4 "navigated": return with no
//! observation; 5 a new observation; 6 the inclusive descendant navigables; 7 for each: 7.1 its
//! active document, 7.2 its unique ID, 7.3 its tool map's values; 8-9 implementation-defined
//! additions, and exposing the tool map to the browser agent.

use crate::common;

use common::{observed_tools, tool, Sim};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::PERFORM_AN_OBSERVATION;
use webmcp_ref::WaitOutcome;

fn names(list: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    list.iter()
        .map(|(d, tools)| (d.to_string(), tools.iter().map(|t| t.to_string()).collect()))
        .collect()
}

#[test]
fn perform_an_observation_step_3_waits_and_sees_tools_registered_during_the_wait() {
    // The common pattern of the PR's example: tools register asynchronously, then the promise
    // given to waitForToolsUntil resolves.
    for name in ["spec", "pr373-r1", "chromium"] {
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
    }
}

#[test]
fn perform_an_observation_step_3_without_the_wait_a_timed_out_observation_misses_late_tools() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    let result = sim.observe_now(top);
    assert_eq!(result.outcome, WaitOutcome::TimedOut);
    assert_eq!(observed_tools(&result), names(&[("top", &[])]));
    assert!(sim.reached(&PERFORM_AN_OBSERVATION, "9"));
}

#[test]
fn perform_an_observation_step_4_returns_early_with_no_observation_after_a_navigation() {
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
    assert!(sim.reached(&PERFORM_AN_OBSERVATION, "4"));
    assert!(!sim.reached(&PERFORM_AN_OBSERVATION, "5"));
}

#[test]
fn perform_an_observation_step_4_returns_early_with_no_observation_after_destruction() {
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
    assert!(!sim.reached(&PERFORM_AN_OBSERVATION, "5"));
}

#[test]
fn perform_an_observation_step_7_covers_every_inclusive_descendant_document_in_tree_order() {
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
    let result = sim.observe_now(top);
    assert_eq!(
        observed_tools(&result),
        names(&[
            ("top", &["t1", "t2"]),
            ("child", &[]),
            ("grandchild", &["g"]),
            ("other", &["o"]),
        ])
    );
    // 7.2: every document has its own unique ID.
    let map = result.tool_map.unwrap();
    let mut ids: Vec<u64> = map.iter().map(|d| d.unique_id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4);
    // 7.4: the document's origin goes with its tools (the observed tool collection).
    assert_eq!(map[3].origin, "https://b.test");
    assert_eq!(map[0].origin, "https://a.test");
}

#[test]
fn perform_an_observation_step_7_3_an_observed_tool_carries_its_definition() {
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
    let result = sim.observe_now(top);
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
fn perform_an_observation_step_7_a_removed_iframe_is_not_observed() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    sim.task(child, &format!("child.registerTool({})", tool("c", "")));
    sim.run();
    sim.w.remove_iframe(child).unwrap();
    let result = sim.observe_now(top);
    assert_eq!(observed_tools(&result), names(&[("top", &[])]));
}

#[test]
fn perform_an_observation_step_2_the_literal_text_asserts_the_document_is_not_fully_active() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.observe_now(top);
    assert!(sim.findings().is_empty(), "{:?}", sim.findings());
    let mut sim = Sim::new("literal");
    let top = sim.page("top", "https://a.test/");
    let result = sim.observe_now(top);
    assert_eq!(
        result.outcome,
        WaitOutcome::Ready,
        "a finding is reported, not a crash"
    );
    assert_eq!(
        sim.findings_at(),
        vec![("perform-an-observation".to_string(), "2".to_string())]
    );
}

#[test]
fn perform_an_observation_step_1_observations_run_one_at_a_time_on_the_ai_agent_queue() {
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
