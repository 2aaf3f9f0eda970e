//! Cancel a pending tool execution: what a cancelled tool and its document see.
//!
//! <https://webmachinelearning.github.io/webmcp/#cancel-a-pending-tool-execution>
//!
//! Steps: 1 assert: in parallel; 2 an execution no longer in the traversable's pending tool
//! executions map (it completed first): return; 3-4 take it out of the map; 5 its target
//! document; 6 a webmcp task on the target: 6.1 the local pending tool executions map, 6.2 no
//! local execution (the tool's promise settled first): return, 6.3-6.4 take it out, 6.5 signal
//! abort on its controller (the tool's `options.signal`), 6.6 fire `toolcancel` at the target's
//! ModelContext, a ToolCancelEvent naming the tool. It is reached from executeTool()'s abort
//! steps (15.4.2) and from the unloading document cleanup steps (2.3.3).

use crate::common;

use common::{registered, Sim};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::CANCEL_A_PENDING_TOOL_EXECUTION;
use webmcp_ref::DocumentKey;

/// top (a.test) and a same-origin iframe `child` whose tool `t` logs its start and its
/// signal's abort and never settles; both documents log the toolcancel events they hear.
/// Returns top.
fn page_with_slow_tool_in_a_frame(sim: &mut Sim) -> DocumentKey {
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    sim.function(
        child,
        "slow",
        "log \"tool started\"\non signal abort:\n  log \"tool saw {signal.reason.name}, aborted {signal.aborted}\"\nawait pending",
    );
    sim.task(
        child,
        "child.registerTool({name: \"t\", description: \"d\", execute: slow})\n\
         on child toolcancel: log \"child heard {event.interface} {event.toolName}\"",
    );
    sim.task(top, "on top toolcancel: log \"top heard toolcancel\"");
    sim.run();
    top
}

/// top calls executeTool() on child's tool with the signal of `ac`, binding `r`, and runs.
fn execute_with_signal(sim: &mut Sim, top: DocumentKey) {
    sim.task(
        top,
        &format!(
            "ac = AbortController()\nr = top.executeTool({}, {{}}, {{signal: ac.signal}})",
            registered("t", "child", "https://a.test")
        ),
    );
    sim.run();
}

#[test]
fn cancel_a_pending_tool_execution_steps_6_5_6_6_abort_the_tools_signal_then_fire_toolcancel_at_the_target(
) {
    let mut sim = Sim::new("spec");
    let top = page_with_slow_tool_in_a_frame(&mut sim);
    execute_with_signal(&mut sim, top);
    sim.task(top, "ac.abort(\"stop\")");
    sim.run();
    // The caller's promise was rejected by executeTool()'s own abort steps; the tool's signal
    // gets an AbortError of the target's realm, not the caller's reason.
    assert_eq!(sim.outcome_of("r"), Err("stop".into()));
    assert_eq!(
        sim.logged(),
        vec![
            "tool started",
            "tool saw AbortError, aborted true",
            "child heard ToolCancelEvent t",
        ]
    );
    for step in [
        "1", "2", "3", "4", "5", "6", "6.1", "6.2", "6.3", "6.4", "6.5", "6.6",
    ] {
        assert!(
            sim.reached(&CANCEL_A_PENDING_TOOL_EXECUTION, step),
            "step {step}"
        );
    }
    assert!(
        sim.findings().is_empty(),
        "step 1's assertion holds: {:?}",
        sim.findings()
    );
}

#[test]
fn cancel_a_pending_tool_execution_step_6_cancels_only_the_execution_its_caller_aborted() {
    // Two executions of the same tool, each with its own signal: aborting one cancels that
    // one (its own local execution, found by its unique internal value).
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.function(
        top,
        "slow",
        "on signal abort:\n  log \"aborted {input.id}\"\nawait pending",
    );
    sim.task(
        top,
        "top.registerTool({name: \"t\", description: \"d\", execute: slow})\non top toolcancel: log \"toolcancel\"",
    );
    sim.task(
        top,
        &format!(
            "a = AbortController()\nb = AbortController()\nra = top.executeTool({t}, {{id: 1}}, {{signal: a.signal}})\nrb = top.executeTool({t}, {{id: 2}}, {{signal: b.signal}})",
            t = registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    sim.task(top, "a.abort()");
    sim.run();
    assert_eq!(sim.logged(), vec!["aborted 1", "toolcancel"]);
    assert_eq!(sim.rejection_of("ra"), "AbortError");
    assert_eq!(sim.state_of("rb"), "pending");
}

#[test]
fn cancel_a_pending_tool_execution_step_2_an_execution_that_completed_is_not_cancelled() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(
        top,
        "top.registerTool({name: \"t\", description: \"d\", execute: returns(\"ok\")})\non top toolcancel: log \"toolcancel\"",
    );
    sim.run();
    sim.task(
        top,
        &format!(
            "ac = AbortController()\nr = top.executeTool({}, {{}}, {{signal: ac.signal}})",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.outcome_of("r"), Ok("\"ok\"".into()));
    sim.task(top, "ac.abort()");
    sim.run();
    assert_eq!(sim.outcome_of("r"), Ok("\"ok\"".into()));
    assert!(sim.logged().is_empty(), "{:?}", sim.logged());
    assert!(sim.reached(&CANCEL_A_PENDING_TOOL_EXECUTION, "2"));
    assert!(!sim.reached(&CANCEL_A_PENDING_TOOL_EXECUTION, "3"));
}

#[test]
fn cancel_a_pending_tool_execution_step_6_2_a_tool_that_settled_first_is_not_aborted() {
    // The tool's promise settles in the same task as the abort: the cancellation removes the
    // pending execution first, then the tool's reaction takes its local execution out (the
    // completion steps find nothing pending), so the cancellation's task finds no local
    // execution: the tool's signal stays unaborted and no toolcancel fires.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "later");
    sim.function(
        top,
        "waits",
        "on signal abort:\n  log \"tool aborted\"\nreturn later",
    );
    sim.task(
        top,
        "top.registerTool({name: \"t\", description: \"d\", execute: waits})\non top toolcancel: log \"toolcancel\"",
    );
    sim.run();
    execute_with_signal_on_top(&mut sim, top);
    sim.task(top, "ac.abort(\"stop\")\nresolve later with 1");
    sim.run();
    assert_eq!(sim.outcome_of("r"), Err("stop".into()));
    assert!(sim.logged().is_empty(), "{:?}", sim.logged());
    assert!(sim.reached(&CANCEL_A_PENDING_TOOL_EXECUTION, "6.2"));
    assert!(!sim.reached(&CANCEL_A_PENDING_TOOL_EXECUTION, "6.3"));
}

/// top calls executeTool() on its own tool `t` with the signal of `ac`, binding `r`.
fn execute_with_signal_on_top(sim: &mut Sim, top: DocumentKey) {
    sim.task(
        top,
        &format!(
            "ac = AbortController()\nr = top.executeTool({}, {{}}, {{signal: ac.signal}})",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
}

#[test]
fn cancel_a_pending_tool_execution_step_6_a_cancelled_tools_own_result_is_ignored() {
    // The tool goes on after its signal aborts and returns: its local execution is gone, so
    // the imperative execute steps return before the completion steps.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "later");
    sim.task(
        top,
        "top.registerTool({name: \"t\", description: \"d\", execute: returns(later)})",
    );
    sim.run();
    execute_with_signal_on_top(&mut sim, top);
    sim.task(top, "ac.abort(\"stop\")");
    sim.run();
    sim.task(top, "resolve later with \"too late\"");
    sim.run();
    assert_eq!(sim.outcome_of("r"), Err("stop".into()));
    assert!(sim.reached(&CANCEL_A_PENDING_TOOL_EXECUTION, "6.6"));
    assert!(sim.trace_text().contains("was cancelled: return"));
}
