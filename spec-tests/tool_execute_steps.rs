//! The tool execute steps: executeTool()'s task in the tool's document finds the tool again and
//! runs it.
//!
//! <https://webmachinelearning.github.io/webmcp/#tool-execute-steps>
//!
//! Steps: 1 assert: on the target document's event loop; 2 its tool map; 3 the tool no longer
//! in it (unregistered since executeTool() step 16.7 found it): the completion steps given null
//! and false; 4 the tool; 5 run its execute steps (the imperative execute steps, for a tool
//! registered by script).

use crate::common;

use common::{registered, tool, Sim};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::{EXECUTE_TOOL, IMPERATIVE_EXECUTE_STEPS, TOOL_EXECUTE_STEPS};
use webmcp_ref::DocumentKey;

/// A page whose tool `t` (registered with the signal of `ac`) returns "old"; top calls
/// executeTool() on it, binding `r`, and the in-parallel steps find it (step 16.7). Then the
/// task `between` runs before the tool execute steps do.
fn execute_then(sim: &mut Sim, between: &str) -> DocumentKey {
    let top = sim.page("top", "https://a.test/");
    sim.task(
        top,
        "ac = AbortController()\ntop.registerTool({name: \"t\", description: \"d\", execute: returns(\"old\")}, {signal: ac.signal})",
    );
    sim.run();
    sim.task(
        top,
        &format!(
            "r = top.executeTool({})",
            registered("t", "top", "https://a.test")
        ),
    );
    assert!(sim.step(), "the calling task");
    // Queued now, it runs after the in-parallel steps (runnable first) and before the task
    // they queue.
    sim.task(top, between);
    sim.run();
    assert!(sim.reached(&EXECUTE_TOOL, "16.8"), "the tool was found");
    top
}

#[test]
fn tool_execute_steps_step_3_a_tool_unregistered_after_it_was_found_fails_the_execution() {
    let mut sim = Sim::new("spec");
    let top = execute_then(&mut sim, "ac.abort()");
    assert!(sim.tools(top).is_empty());
    assert_eq!(sim.outcome_of("r"), Err("UnknownError".into()));
    assert!(sim.trace_text().contains("is no longer registered"));
    assert!(!sim.reached(&TOOL_EXECUTE_STEPS, "4"));
    assert!(!sim.reached(&IMPERATIVE_EXECUTE_STEPS, "1"));
}

#[test]
fn tool_execute_steps_step_4_a_tool_registered_again_under_the_name_is_the_one_that_runs() {
    // The text's example of the unregistration/execution race: only the tool's existence is
    // checked again, so a quick re-registration under the same name runs the new tool.
    let mut sim = Sim::new("spec");
    execute_then(
        &mut sim,
        "ac.abort()\ntop.registerTool({name: \"t\", description: \"d\", execute: returns(\"new\")})",
    );
    assert_eq!(sim.outcome_of("r"), Ok("\"new\"".into()));
    assert!(sim.reached(&TOOL_EXECUTE_STEPS, "5"));
}

#[test]
fn tool_execute_steps_step_1_run_on_the_event_loop_of_the_tools_document() {
    // A cross-origin iframe has an event loop of its own: the tool runs there, the assertion
    // holds, and toolactivated fires at the iframe's ModelContext only.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let other = sim.frame_allow(top, "other", "https://b.test/", "tools");
    sim.task(
        other,
        &format!(
            "other.registerTool({}, {{exposedTo: [\"https://a.test\"]}})\non other toolactivated: log \"other heard {{event.toolName}}\"",
            tool("t", "")
        ),
    );
    sim.task(top, "on top toolactivated: log \"top heard it\"");
    sim.run();
    assert_ne!(sim.document(top).event_loop, sim.document(other).event_loop);
    sim.task(
        top,
        &format!(
            "r = top.executeTool({})",
            registered("t", "other", "https://b.test")
        ),
    );
    sim.run();
    assert_eq!(sim.outcome_of("r"), Ok("\"ok\"".into()));
    assert_eq!(sim.logged(), vec!["other heard t"]);
    for step in ["1", "2", "3", "4", "5"] {
        assert!(sim.reached(&TOOL_EXECUTE_STEPS, step), "step {step}");
    }
    assert!(sim.findings().is_empty(), "{:?}", sim.findings());
}
