//! Wait for tools to be ready, as its callers see it: an observation (always) and `getTools()`
//! (under gettools-waits=yes, each call with its own parallel queue).
//!
//! <https://webmachinelearning.github.io/webmcp/#wait-for-tools-to-be-ready>
//!
//! Steps as the engine numbers them: 1 capture the traversable's active document; 2 areAllReady:
//! every document of its inclusive descendant navigables has tools-ready true (2.1 one is not,
//! 2.2 all are); 3 ready now: return "ready"; 4 wait until ready, the implementation-defined
//! timeout, a navigation, or destruction; 5 navigated or destroyed: return "navigated"; 6
//! return "ready" (after readiness or the timeout).

use crate::common;

use common::Sim;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::WAIT_FOR_TOOLS_TO_BE_READY;
use webmcp_ref::{DocumentKey, WaitOutcome};

/// A page `top` whose own promise `p` keeps its tools not ready.
fn not_ready_page(sim: &mut Sim) -> DocumentKey {
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    assert!(!sim.ready(top));
    top
}

#[test]
fn wait_for_tools_to_be_ready_step_3_returns_ready_at_once_when_every_document_is_ready() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.frame(top, "child", "https://a.test/child.html");
    let result = sim.observe_now(top);
    assert_eq!(result.outcome, WaitOutcome::Ready);
    assert_eq!(result.waited_ms, 0);
    assert_eq!(sim.now(), 0);
    assert!(sim.reached(&WAIT_FOR_TOOLS_TO_BE_READY, "2.2"));
    assert!(sim.reached(&WAIT_FOR_TOOLS_TO_BE_READY, "3"));
    assert!(
        !sim.reached(&WAIT_FOR_TOOLS_TO_BE_READY, "4"),
        "no wait, no timer"
    );
}

#[test]
fn wait_for_tools_to_be_ready_step_4_ends_when_the_last_promise_settles() {
    let mut sim = Sim::new("spec");
    let top = not_ready_page(&mut sim);
    let o = sim.w.observe(top, "o");
    sim.run_for(1200);
    assert!(sim.observation_result(o).is_none());
    assert_eq!(sim.live_waiters(), 1);
    sim.task(top, "resolve p with 1");
    sim.run();
    let result = sim.observation_result(o).unwrap();
    assert_eq!(result.outcome, WaitOutcome::Ready);
    assert_eq!(result.waited_ms, 1200);
    assert_eq!(sim.live_waiters(), 0);
    assert!(sim.reached(&WAIT_FOR_TOOLS_TO_BE_READY, "6"));
}

#[test]
fn wait_for_tools_to_be_ready_step_2_1_a_not_ready_same_origin_child_blocks_the_top_level_wait() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    sim.promise_in(child, "pc");
    sim.task(child, "child.waitForToolsUntil(pc)");
    sim.run();
    assert!(sim.ready(top) && !sim.ready(child));
    let result = sim.observe_now(top);
    assert_eq!(result.outcome, WaitOutcome::TimedOut);
    assert_eq!(result.waited_ms, 5000);
    assert!(sim.reached(&WAIT_FOR_TOOLS_TO_BE_READY, "2.1"));
}

#[test]
fn wait_for_tools_to_be_ready_step_2_1_a_not_ready_cross_origin_child_blocks_the_top_level_wait() {
    // The child is cross-origin and not even allowed to use "tools"; waitForToolsUntil has no
    // policy check, and areAllReady looks at every document of the tree.
    for allow in [None, Some("tools")] {
        let mut sim = Sim::new("spec");
        let top = sim.page("top", "https://a.test/");
        let child = match allow {
            None => sim.frame(top, "child", "https://b.test/"),
            Some(a) => sim.frame_allow(top, "child", "https://b.test/", a),
        };
        sim.promise_in(child, "pc");
        sim.task(child, "child.waitForToolsUntil(pc)");
        sim.run();
        let o = sim.w.observe(top, "o");
        sim.run_for(700);
        assert!(sim.observation_result(o).is_none(), "{allow:?}: blocked");
        sim.task(child, "resolve pc with 1");
        sim.run();
        let result = sim.observation_result(o).unwrap();
        assert_eq!(result.outcome, WaitOutcome::Ready, "{allow:?}");
        assert_eq!(result.waited_ms, 700, "{allow:?}");
    }
}

#[test]
fn wait_for_tools_to_be_ready_step_2_a_not_ready_grandchild_blocks_the_top_level_wait() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    let grandchild = sim.frame(child, "grandchild", "https://a.test/grandchild.html");
    sim.promise_in(grandchild, "pg");
    sim.task(grandchild, "grandchild.waitForToolsUntil(pg)");
    sim.run();
    assert_eq!(sim.observe_now(top).outcome, WaitOutcome::TimedOut);
}

#[test]
fn wait_for_tools_to_be_ready_step_2_removing_a_not_ready_child_ends_the_wait_as_ready() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    sim.promise_in(child, "pc");
    sim.task(child, "child.waitForToolsUntil(pc)");
    sim.run();
    let o = sim.w.observe(top, "o");
    sim.run_for(250);
    sim.w.remove_iframe(child).unwrap();
    sim.run();
    let result = sim.observation_result(o).unwrap();
    assert_eq!(result.outcome, WaitOutcome::Ready);
    assert_eq!(result.waited_ms, 250);
}

#[test]
fn wait_for_tools_to_be_ready_step_2_navigating_a_not_ready_child_ends_the_wait_as_ready() {
    // The top-level traversable's active document is still the captured one: only the child's
    // navigable changed document, and its new document is ready.
    for bfcache in [false, true] {
        let mut sim = Sim::new("spec");
        let top = sim.page("top", "https://a.test/");
        let child = sim.frame(top, "child", "https://a.test/child.html");
        sim.promise_in(child, "pc");
        sim.task(child, "child.waitForToolsUntil(pc)");
        sim.run();
        let o = sim.w.observe(top, "o");
        sim.run_for(40);
        sim.w
            .navigate(child, "https://a.test/other.html", "child2", bfcache)
            .unwrap();
        sim.run();
        let result = sim.observation_result(o).unwrap();
        assert_eq!(result.outcome, WaitOutcome::Ready, "bfcache={bfcache}");
        assert_eq!(result.waited_ms, 40, "bfcache={bfcache}");
    }
}

#[test]
fn wait_for_tools_to_be_ready_step_4_times_out_after_the_implementation_defined_timeout() {
    for (timeout, sim) in [
        (5000, Sim::new("spec")),
        (1000, Sim::with("spec", &[("tools-ready-timeout", "1000")])),
    ] {
        let mut sim = sim;
        let top = not_ready_page(&mut sim);
        let result = sim.observe_now(top);
        assert_eq!(result.outcome, WaitOutcome::TimedOut);
        assert_eq!(result.waited_ms, timeout);
        // The spec's result after a timeout is "ready": the observation goes on.
        assert_eq!(result.outcome.spec_value(), "ready");
        assert!(result.tool_map.is_some());
        assert!(sim
            .trace_text()
            .contains(&format!("waiting, timeout {timeout} ms")));
    }
}

#[test]
fn wait_for_tools_to_be_ready_step_4_a_timeout_clears_no_pending_promise() {
    let mut sim = Sim::new("spec");
    let top = not_ready_page(&mut sim);
    assert_eq!(sim.observe_now(top).outcome, WaitOutcome::TimedOut);
    assert_eq!(sim.pending(top), 1);
    assert!(!sim.ready(top));
    // The next caller waits its whole timeout again.
    let again = sim.observe_now(top);
    assert_eq!(again.outcome, WaitOutcome::TimedOut);
    assert_eq!(again.waited_ms, 5000);
    assert_eq!(sim.now(), 10_000);
}

#[test]
fn wait_for_tools_to_be_ready_step_4_every_caller_has_its_own_timeout() {
    // Under gettools-waits, each getTools() call waits on its own parallel queue, with its own
    // timer; the browser agent's observation waits on the AI agent queue.
    let mut sim = Sim::new("gettools-waits");
    let top = not_ready_page(&mut sim);
    sim.task(top, "a = top.getTools()\non a fulfilled: log \"a\"");
    sim.run_for(1000);
    let o = sim.w.observe(top, "o");
    sim.run_for(1000);
    sim.task(top, "b = top.getTools()\non b fulfilled: log \"b\"");
    sim.run_for(500);
    assert_eq!(sim.live_waiters(), 3);
    sim.run();
    assert_eq!(
        sim.logged_at(),
        vec![("a".to_string(), 5000), ("b".to_string(), 7000)]
    );
    let result = sim.observation_result(o).unwrap();
    assert_eq!(result.outcome, WaitOutcome::TimedOut);
    assert_eq!(result.waited_ms, 5000);
    assert_eq!(sim.observation(o).started_at, Some(1000));
    assert_eq!(sim.pending(top), 1, "no timeout cleared the promise");
}

#[test]
fn wait_for_tools_to_be_ready_step_4_every_waiter_wakes_when_tools_become_ready() {
    let mut sim = Sim::new("gettools-waits");
    let top = not_ready_page(&mut sim);
    sim.task(top, "a = top.getTools()\non a fulfilled: log \"a\"");
    sim.run_for(1000);
    let o = sim.w.observe(top, "o");
    sim.task(top, "b = top.getTools()\non b fulfilled: log \"b\"");
    sim.run_for(2000);
    sim.task(top, "resolve p with 1");
    sim.run();
    assert_eq!(
        sim.logged_at(),
        vec![("a".to_string(), 3000), ("b".to_string(), 3000)]
    );
    let result = sim.observation_result(o).unwrap();
    assert_eq!(result.outcome, WaitOutcome::Ready);
    assert_eq!(result.waited_ms, 2000);
    assert_eq!(sim.now(), 3000, "no timer was left to run");
}

#[test]
fn wait_for_tools_to_be_ready_step_5_navigation_during_the_wait_returns_navigated() {
    // The new document is ready, but the wait compares against the document captured in step
    // 1: it ends "navigated", with or without the bfcache.
    for bfcache in [false, true] {
        for name in ["spec", "pr373-r1", "chromium-pr373"] {
            let mut sim = Sim::new(name);
            let top = not_ready_page(&mut sim);
            let o = sim.w.observe(top, "o");
            sim.run_for(100);
            let next = sim
                .w
                .navigate(top, "https://a.test/next", "next", bfcache)
                .unwrap();
            assert!(sim.ready(next));
            sim.run();
            let result = sim.observation_result(o).unwrap();
            assert_eq!(
                result.outcome,
                WaitOutcome::Navigated,
                "{name} bfcache={bfcache}"
            );
            assert_eq!(result.outcome.spec_value(), "navigated");
            assert_eq!(result.waited_ms, 100, "{name} bfcache={bfcache}");
            assert!(sim.reached(&WAIT_FOR_TOOLS_TO_BE_READY, "5"));
            assert!(!sim.reached(&WAIT_FOR_TOOLS_TO_BE_READY, "6"), "{name}");
        }
    }
}

#[test]
fn wait_for_tools_to_be_ready_step_5_a_navigation_started_by_script_ends_the_wait() {
    let mut sim = Sim::new("spec");
    let top = not_ready_page(&mut sim);
    let o = sim.w.observe(top, "o");
    sim.run_for(10);
    sim.task(top, "navigate top to https://a.test/next as next");
    sim.run();
    let result = sim.observation_result(o).unwrap();
    assert_eq!(result.outcome, WaitOutcome::Navigated);
    assert_eq!(result.waited_ms, 10);
}

#[test]
fn wait_for_tools_to_be_ready_step_5_destroying_the_traversable_returns_navigated() {
    let mut sim = Sim::new("spec");
    let top = not_ready_page(&mut sim);
    let o = sim.w.observe(top, "o");
    sim.run_for(300);
    sim.w.close(top).unwrap();
    sim.run();
    let result = sim.observation_result(o).unwrap();
    assert_eq!(result.outcome, WaitOutcome::Destroyed);
    assert_eq!(result.outcome.spec_value(), "navigated");
    assert_eq!(result.waited_ms, 300);
    assert_eq!(sim.live_waiters(), 0);
    assert!(sim.is_quiescent(), "the deadline timer went with the wait");
}

#[test]
fn wait_for_tools_to_be_ready_step_1_a_traversable_closed_before_the_wait_begins() {
    // The observation was asked for, then the traversable was destroyed before the AI agent
    // queue ran it: there is no active document to capture. The engine reports it and ends
    // the wait as destroyed.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let o = sim.w.observe(top, "o");
    sim.w.close(top).unwrap();
    sim.run();
    let result = sim.observation_result(o).unwrap();
    assert_eq!(result.outcome, WaitOutcome::Destroyed);
    assert!(result.tool_map.is_none());
    assert!(sim
        .findings_at()
        .contains(&("wait-for-tools-to-be-ready".to_string(), "1".to_string())));
}
