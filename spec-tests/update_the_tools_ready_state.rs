//! Update the tools-ready state, the `toolsReady` getter, and the switches that change what a
//! readiness change does: readiness-toolchange (none / ready-events / coalesced) and
//! tools-ready-lifecycle.
//!
//! <https://webmachinelearning.github.io/webmcp/#update-the-tools-ready-state>
//!
//! Steps as the engine numbers them: 1 the document's ModelContext; 2 tools-ready becomes "the
//! pending set is empty" (and, under tools-ready-lifecycle, the document has reached the stage
//! it names); 3 (ready-events, the first revision) a change in a fully active document is
//! notified as a ToolChangeEvent to every document of the tree allowed to use "tools"; 4
//! (coalesced, the reviewer's proposal) a queued task compares the state with the last one
//! notified: 4.1 nothing when equal, 4.2 remember it, 4.3 notify.

use crate::common;

use common::Sim;
use webmcp_ref::host::navigable::{DocumentOptions, Lifecycle};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::{
    TOOLS_READY_GETTER, UPDATE_THE_TOOLS_READY_STATE, UPDATE_THE_TOOLS_READY_STATE_COALESCED,
    UPDATE_THE_TOOLS_READY_STATE_R1,
};
use webmcp_ref::{DocumentKey, WaitOutcome};

/// A toolchange listener on `doc`'s ModelContext that logs "LABEL INTERFACE READY" (READY is
/// `undefined` for a plain Event), added by a task of `doc`.
fn log_toolchange(sim: &mut Sim, doc: DocumentKey, label: &str) {
    sim.task(
        doc,
        &format!("on {label} toolchange:\n  log \"{label} {{event.interface}} {{event.ready}}\""),
    );
}

/// A task of `doc` registers a tool (its toolchange shows that a listener works).
fn register_a_tool(sim: &mut Sim, doc: DocumentKey) {
    let label = sim.label(doc);
    sim.task(
        doc,
        &format!("{label}.registerTool({})", common::tool("probe", "")),
    );
    sim.run();
}

#[test]
fn update_the_tools_ready_state_step_2_tools_ready_is_whether_the_pending_set_is_empty() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    assert!(sim.ready(top), "tools-ready is initially true");
    sim.promise_in(top, "p");
    sim.task(
        top,
        "log \"{top.toolsReady}\"\ntop.waitForToolsUntil(p)\nlog \"{top.toolsReady}\"",
    );
    sim.run();
    sim.task(top, "resolve p with 1");
    sim.run();
    sim.task(top, "log \"{top.toolsReady}\"");
    sim.run();
    assert_eq!(sim.logged(), vec!["true", "false", "true"]);
    assert!(sim.reached(&TOOLS_READY_GETTER, "1"));
    assert!(sim.reached(&UPDATE_THE_TOOLS_READY_STATE, "2"));
}

#[test]
fn update_the_tools_ready_state_step_2_the_final_revision_dispatches_no_event() {
    for name in ["spec", "chromium-pr373"] {
        let mut sim = Sim::new(name);
        let top = sim.page("top", "https://a.test/");
        log_toolchange(&mut sim, top, "top");
        sim.promise_in(top, "p");
        sim.task(top, "top.waitForToolsUntil(p)");
        sim.run();
        sim.task(top, "resolve p with 1");
        sim.run();
        assert!(sim.logged().is_empty(), "{name}: {:?}", sim.logged());
        assert!(
            !sim.reached(&UPDATE_THE_TOOLS_READY_STATE_R1, "3"),
            "{name}"
        );
        assert!(
            !sim.reached(&UPDATE_THE_TOOLS_READY_STATE_COALESCED, "3"),
            "{name}"
        );
        // The listener works: a registration is notified, as a plain Event.
        register_a_tool(&mut sim, top);
        assert_eq!(sim.logged(), vec!["top Event undefined"], "{name}");
    }
}

#[test]
fn update_the_tools_ready_state_first_revision_step_3_ready_events_fire_false_then_true_at_the_tree(
) {
    let mut sim = Sim::new("pr373-r1");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    log_toolchange(&mut sim, top, "top");
    log_toolchange(&mut sim, child, "child");
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    assert_eq!(
        sim.logged(),
        vec!["top ToolChangeEvent false", "child ToolChangeEvent false"]
    );
    sim.task(top, "resolve p with 1");
    sim.run();
    assert_eq!(
        sim.logged()[2..],
        ["top ToolChangeEvent true", "child ToolChangeEvent true"]
    );
}

#[test]
fn update_the_tools_ready_state_first_revision_step_3_ready_events_go_to_documents_allowed_to_use_tools_whatever_their_origin(
) {
    let mut sim = Sim::new("pr373-r1");
    let top = sim.page("top", "https://a.test/");
    let allowed = sim.frame_allow(top, "allowed", "https://b.test/", "tools");
    let denied = sim.frame(top, "denied", "https://c.test/");
    log_toolchange(&mut sim, top, "top");
    log_toolchange(&mut sim, allowed, "allowed");
    log_toolchange(&mut sim, denied, "denied");
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    let mut logged = sim.logged();
    logged.sort();
    assert_eq!(
        logged,
        vec!["allowed ToolChangeEvent false", "top ToolChangeEvent false"]
    );
}

#[test]
fn update_the_tools_ready_state_first_revision_step_3_an_already_settled_value_fires_false_then_true_under_the_first_revision(
) {
    // The review's complaint: waitForToolsUntil(42) fires ToolChangeEvent{ready:false}, then
    // {ready:true} a microtask later; the final revision fires nothing.
    for (name, expected) in [
        (
            "pr373-r1",
            vec!["top ToolChangeEvent false", "top ToolChangeEvent true"],
        ),
        ("spec", vec![]),
        ("chromium-pr373", vec![]),
    ] {
        let mut sim = Sim::new(name);
        let top = sim.page("top", "https://a.test/");
        log_toolchange(&mut sim, top, "top");
        sim.task(top, "top.waitForToolsUntil(42)");
        sim.run();
        assert_eq!(sim.logged(), expected, "{name}");
    }
}

#[test]
fn update_the_tools_ready_state_first_revision_step_3_no_event_when_the_state_does_not_change() {
    let mut sim = Sim::new("pr373-r1");
    let top = sim.page("top", "https://a.test/");
    log_toolchange(&mut sim, top, "top");
    sim.promise_in(top, "p1");
    sim.promise_in(top, "p2");
    sim.task(top, "top.waitForToolsUntil(p1)\ntop.waitForToolsUntil(p2)");
    sim.run();
    sim.task(top, "resolve p1 with 1");
    sim.run();
    assert_eq!(sim.logged(), vec!["top ToolChangeEvent false"]);
    sim.task(top, "resolve p2 with 1");
    sim.run();
    assert_eq!(
        sim.logged(),
        vec!["top ToolChangeEvent false", "top ToolChangeEvent true"]
    );
}

#[test]
fn update_the_tools_ready_state_first_revision_step_3_ready_events_suppress_registry_toolchange_while_not_ready(
) {
    let mut sim = Sim::new("pr373-r1");
    let top = sim.page("top", "https://a.test/");
    log_toolchange(&mut sim, top, "top");
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    sim.task(
        top,
        &format!("top.registerTool({})", common::tool("late", "")),
    );
    sim.run();
    assert_eq!(sim.tools(top), vec!["late"]);
    assert_eq!(
        sim.logged(),
        vec!["top ToolChangeEvent false"],
        "the registration is not notified"
    );
    sim.task(top, "resolve p with 1");
    sim.run();
    assert_eq!(
        sim.logged(),
        vec!["top ToolChangeEvent false", "top ToolChangeEvent true"]
    );
    // Once ready, a registration is notified again, as a ToolChangeEvent with ready true.
    sim.task(
        top,
        &format!("top.registerTool({})", common::tool("later", "")),
    );
    sim.run();
    assert_eq!(sim.logged().len(), 3);
    assert_eq!(sim.logged()[2], "top ToolChangeEvent true");
}

#[test]
fn update_the_tools_ready_state_first_revision_step_3_a_change_while_not_fully_active_is_not_notified(
) {
    let mut sim = Sim::with(
        "spec",
        &[
            ("readiness-toolchange", "ready-events"),
            ("inactive-realm-jobs", "run"),
        ],
    );
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    let next = sim
        .w
        .navigate(top, "https://a.test/next", "next", true)
        .unwrap();
    log_toolchange(&mut sim, next, "next");
    sim.task(next, "resolve p with 1");
    sim.run();
    assert!(sim.ready(top));
    assert!(sim.trace_text().contains("not fully active: not notified"));
    assert!(sim.logged().is_empty(), "{:?}", sim.logged());
    register_a_tool(&mut sim, next);
    assert_eq!(
        sim.logged(),
        vec!["next ToolChangeEvent true"],
        "the listener works"
    );
}

#[test]
fn update_the_tools_ready_state_coalesced_proposal_step_3_fires_nothing_for_an_already_settled_value(
) {
    // Even with the first revision's always-add, the comparison task sees the state it last
    // notified (true): nothing fires.
    for sim in [
        Sim::new("coalesced-readiness"),
        Sim::with(
            "coalesced-readiness",
            &[("settled-promise-check", "always-add")],
        ),
    ] {
        let mut sim = sim;
        let top = sim.page("top", "https://a.test/");
        log_toolchange(&mut sim, top, "top");
        sim.task(top, "top.waitForToolsUntil(42)");
        sim.run();
        assert!(sim.logged().is_empty(), "{:?}", sim.logged());
        register_a_tool(&mut sim, top);
        assert_eq!(
            sim.logged(),
            vec!["top Event undefined"],
            "the listener works"
        );
    }
    let mut sim = Sim::with(
        "coalesced-readiness",
        &[("settled-promise-check", "always-add")],
    );
    let top = sim.page("top", "https://a.test/");
    sim.task(top, "top.waitForToolsUntil(42)");
    sim.run();
    assert!(sim.reached(&UPDATE_THE_TOOLS_READY_STATE_COALESCED, "3"));
    assert!(sim.reached(&UPDATE_THE_TOOLS_READY_STATE_COALESCED, "3.1"));
    assert!(!sim.reached(&UPDATE_THE_TOOLS_READY_STATE_COALESCED, "3.3"));
}

#[test]
fn update_the_tools_ready_state_coalesced_proposal_step_3_fires_nothing_for_a_flip_within_one_task()
{
    let mut sim = Sim::new("coalesced-readiness");
    let top = sim.page("top", "https://a.test/");
    log_toolchange(&mut sim, top, "top");
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)\nresolve p with 1");
    sim.run();
    assert!(sim.ready(top));
    assert!(sim.logged().is_empty(), "{:?}", sim.logged());
    register_a_tool(&mut sim, top);
    assert_eq!(
        sim.logged(),
        vec!["top Event undefined"],
        "the listener works"
    );
}

#[test]
fn update_the_tools_ready_state_coalesced_proposal_step_3_3_notifies_each_lasting_change_once() {
    let mut sim = Sim::new("coalesced-readiness");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    log_toolchange(&mut sim, top, "top");
    log_toolchange(&mut sim, child, "child");
    sim.promise_in(top, "p1");
    sim.promise_in(top, "p2");
    sim.task(top, "top.waitForToolsUntil(p1)\ntop.waitForToolsUntil(p2)");
    sim.run();
    sim.task(top, "resolve p1 with 1");
    sim.run();
    sim.task(top, "resolve p2 with 1");
    sim.run();
    assert_eq!(
        sim.logged(),
        vec![
            "top ToolChangeEvent false",
            "child ToolChangeEvent false",
            "top ToolChangeEvent true",
            "child ToolChangeEvent true",
        ]
    );
    assert!(sim.reached(&UPDATE_THE_TOOLS_READY_STATE_COALESCED, "3.2"));
    assert!(sim.reached(&UPDATE_THE_TOOLS_READY_STATE_COALESCED, "3.3"));
}

#[test]
fn update_the_tools_ready_state_step_2_lifecycle_switch_presumes_a_loading_document_not_ready() {
    let loading = DocumentOptions {
        loading: true,
        ..DocumentOptions::default()
    };
    // (profile, ready while loading, ready after DOMContentLoaded, ready after load)
    for (name, states) in [
        ("spec", [true, true, true]),
        ("lifecycle-domcontentloaded", [false, true, true]),
        ("lifecycle-load", [false, false, true]),
    ] {
        let mut sim = Sim::new(name);
        let top = sim.page_with("top", "https://a.test/", loading.clone());
        assert_eq!(sim.ready(top), states[0], "{name}: loading");
        sim.w.queue_lifecycle(top, Lifecycle::Interactive);
        sim.run();
        assert_eq!(sim.ready(top), states[1], "{name}: after DOMContentLoaded");
        sim.w.queue_lifecycle(top, Lifecycle::Complete);
        sim.run();
        assert_eq!(sim.ready(top), states[2], "{name}: after load");
    }
}

#[test]
fn update_the_tools_ready_state_step_2_lifecycle_and_pending_promises_must_both_allow_ready() {
    let loading = DocumentOptions {
        loading: true,
        ..DocumentOptions::default()
    };
    let mut sim = Sim::new("lifecycle-load");
    let top = sim.page_with("top", "https://a.test/", loading);
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    sim.w.queue_lifecycle(top, Lifecycle::Complete);
    sim.run();
    assert!(!sim.ready(top), "loaded, but p is pending");
    sim.task(top, "resolve p with 1");
    sim.run();
    assert!(sim.ready(top));
}

#[test]
fn update_the_tools_ready_state_step_2_lifecycle_switch_makes_an_observation_wait_for_load() {
    let loading = DocumentOptions {
        loading: true,
        ..DocumentOptions::default()
    };
    let mut sim = Sim::new("lifecycle-load");
    let top = sim.page_with("top", "https://a.test/", loading);
    let o = sim.w.observe(top, "o");
    sim.run_for(300);
    assert!(sim.observation_result(o).is_none(), "still waiting");
    sim.w.queue_lifecycle(top, Lifecycle::Complete);
    sim.run();
    let result = sim.observation_result(o).unwrap();
    assert_eq!(result.outcome, WaitOutcome::Ready);
    assert_eq!(result.waited_ms, 300);
}
