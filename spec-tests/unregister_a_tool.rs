//! Unregister a tool: what aborting a registration's signal does.
//!
//! <https://webmachinelearning.github.io/webmcp/#model-context-unregister-a-tool>
//!
//! Steps: 1 assert: on the ModelContext's event loop; 2 the tool map; 3 a name not in it:
//! return; 4 the tool's exposed origins; 5 remove it; 6 the ModelContext's document; 7 in
//! parallel, notify documents of a tool change (which the registry-toolchange switch shapes;
//! PR #373's first revision returns first while tools are not ready, its steps 7-8).
//!
//! Step 3's early return is not reached from page script here: registerTool() adds its abort
//! steps only once the name is free and every check has passed (its step 17.3), so a name
//! has at most one set of abort steps until they run.

use crate::common;

use common::{tool, Sim};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::{UNREGISTER_A_TOOL, UNREGISTER_A_TOOL_R1};
use webmcp_ref::{DocumentKey, Value};

/// A page whose tool `t` was registered with the signal of `ac`.
fn page_with_abortable_tool(sim: &mut Sim) -> DocumentKey {
    let top = sim.page("top", "https://a.test/");
    sim.task(
        top,
        &format!(
            "ac = AbortController()\nr = top.registerTool({}, {{signal: ac.signal}})",
            tool("t", "")
        ),
    );
    sim.run();
    assert_eq!(sim.tools(top), vec!["t"]);
    top
}

#[test]
fn unregister_a_tool_step_5_removes_the_tool_from_the_map_and_from_observations() {
    let mut sim = Sim::new("spec");
    let top = page_with_abortable_tool(&mut sim);
    sim.task(top, "ac.abort()");
    sim.run();
    assert!(sim.tools(top).is_empty());
    let observed = sim.observe_now(top);
    assert!(observed.tool_map.unwrap()[0].tools.is_empty());
    sim.task(top, "tools = await top.getTools()\nlog \"{tools.length}\"");
    sim.run();
    assert_eq!(sim.logged(), vec!["0"]);
    for step in ["1", "2", "3", "4", "5", "6", "7"] {
        assert!(sim.reached(&UNREGISTER_A_TOOL, step), "step {step}");
    }
}

#[test]
fn unregister_a_tool_step_1_runs_on_the_model_contexts_event_loop() {
    // Aborting from the page's own script: the assertion holds, nothing is reported.
    let mut sim = Sim::new("spec");
    let top = page_with_abortable_tool(&mut sim);
    sim.task(top, "ac.abort()");
    sim.run();
    assert!(sim.findings().is_empty(), "{:?}", sim.findings());
}

#[test]
fn unregister_a_tool_one_signal_unregisters_every_tool_registered_with_it() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(
        top,
        &format!(
            "ac = AbortController()\ntop.registerTool({}, {{signal: ac.signal}})\ntop.registerTool({}, {{signal: ac.signal}})\ntop.registerTool({})",
            tool("a", ""),
            tool("b", ""),
            tool("keep", "")
        ),
    );
    sim.run();
    sim.task(top, "on top toolchange: log \"toolchange\"");
    sim.task(top, "ac.abort()");
    sim.run();
    assert_eq!(sim.tools(top), vec!["keep"]);
    assert_eq!(sim.logged(), vec!["toolchange", "toolchange"]);
}

#[test]
fn unregister_a_tool_step_7_notifies_the_documents_the_tool_was_exposed_to() {
    // (exposedTo, whether the cross-origin child hears the unregistration)
    for (exposed, heard) in [("[\"https://b.test\"]", true), ("[]", false)] {
        let mut sim = Sim::new("spec");
        let top = sim.page("top", "https://a.test/");
        let child = sim.frame_allow(top, "child", "https://b.test/", "tools");
        sim.task(
            top,
            &format!(
                "ac = AbortController()\ntop.registerTool({}, {{signal: ac.signal, exposedTo: {exposed}}})",
                tool("t", "")
            ),
        );
        sim.run();
        sim.task(child, "on child toolchange: log \"child heard it\"");
        sim.task(top, "on top toolchange: log \"top heard it\"");
        sim.task(top, "ac.abort()");
        sim.run();
        let mut expected = vec!["top heard it"];
        if heard {
            expected.insert(0, "child heard it");
        }
        let mut logged = sim.logged();
        logged.sort();
        assert_eq!(logged, expected, "exposedTo {exposed}");
    }
}

#[test]
fn unregister_a_tool_step_7_changes_of_one_task_are_notified_once_under_coalesced_registry() {
    // Two registrations and an unregistration in one task.
    for (name, events) in [("spec", 3), ("coalesced-registry", 1)] {
        let mut sim = Sim::new(name);
        let top = sim.page("top", "https://a.test/");
        sim.task(top, "on top toolchange: log \"toolchange\"");
        sim.task(
            top,
            &format!(
                "ac = AbortController()\ntop.registerTool({}, {{signal: ac.signal}})\ntop.registerTool({})\nac.abort()",
                tool("a", ""),
                tool("b", "")
            ),
        );
        sim.run();
        assert_eq!(sim.tools(top), vec!["b"], "{name}");
        assert_eq!(sim.logged().len(), events, "{name}: {:?}", sim.logged());
    }
}

#[test]
fn unregister_a_tool_r1_step_7_is_not_notified_while_tools_are_not_ready_under_ready_events() {
    let mut sim = Sim::new("pr373-r1");
    let top = page_with_abortable_tool(&mut sim);
    sim.promise_in(top, "p");
    sim.task(top, "top.waitForToolsUntil(p)");
    sim.run();
    sim.task(top, "on top toolchange: log \"{event.ready}\"");
    sim.task(top, "ac.abort()");
    sim.run();
    assert!(sim.tools(top).is_empty());
    assert!(sim.logged().is_empty(), "{:?}", sim.logged());
    assert!(sim.reached(&UNREGISTER_A_TOOL_R1, "7"));
    assert!(!sim.reached(&UNREGISTER_A_TOOL_R1, "8"));
    sim.task(top, "resolve p with 1");
    sim.run();
    assert_eq!(sim.logged(), vec!["true"]);
}

#[test]
fn unregister_a_tool_step_5_an_execution_whose_callback_unregisters_the_tool_goes_on() {
    // The note under step 5: unregistering does not cancel an execution that has already
    // invoked the tool's callback, even when the callback itself unregisters the tool.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.function(
        top,
        "unregisters_itself",
        "ac.abort()\nreturn {status: \"resolved\"}",
    );
    sim.task(top, "on top toolcancel: log \"toolcancel\"");
    sim.task(
        top,
        "ac = AbortController()\nawait top.registerTool({name: \"t\", description: \"d\", execute: unregisters_itself}, {signal: ac.signal})\ntools = await top.getTools()\nresult = await top.executeTool(tools[0])",
    );
    sim.run();
    assert!(sim.tools(top).is_empty());
    assert_eq!(
        sim.value("result"),
        Value::string(r#"{"status":"resolved"}"#)
    );
    assert!(
        sim.logged().is_empty(),
        "nothing was cancelled: {:?}",
        sim.logged()
    );
    assert!(sim.reached(&UNREGISTER_A_TOOL, "5"));
}
