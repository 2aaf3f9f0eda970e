//! Unregister a tool: what aborting a registration's signal does.
//!
//! <https://webmachinelearning.github.io/webmcp/#model-context-unregister-a-tool>
//!
//! Steps: 1 assert: on the ModelContext's event loop; 2 the tool map; 3 a name not in it:
//! return; 4 the tool's exposed origins; 5 remove it; 6 in parallel, notify documents of a tool
//! change (6.1, which the registry-toolchange and readiness-toolchange switches shape).

use crate::common;

use common::{tool, Sim};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::UNREGISTER_A_TOOL;
use webmcp_ref::DocumentKey;

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
    for step in ["1", "2", "3", "4", "5", "6", "6.1"] {
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
fn unregister_a_tool_step_3_a_name_no_longer_in_the_map_changes_nothing() {
    // The abort steps of a registration that step 20 rejected find no tool of that name.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(top, "on top toolchange: log \"toolchange\"");
    sim.task(
        top,
        &format!(
            "ac = AbortController()\nr = top.registerTool({}, {{signal: ac.signal, exposedTo: [\"ftp://x.test\"]}})",
            tool("t", "")
        ),
    );
    sim.run();
    assert_eq!(sim.rejection_of("r"), "SecurityError");
    sim.task(top, "ac.abort()");
    sim.run();
    assert!(sim.reached(&UNREGISTER_A_TOOL, "3"));
    assert!(!sim.reached(&UNREGISTER_A_TOOL, "5"));
    assert!(
        sim.logged().is_empty(),
        "no notification: {:?}",
        sim.logged()
    );
    assert!(sim.trace_text().contains("\"t\" is not registered"));
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
fn unregister_a_tool_step_6_notifies_the_documents_the_tool_was_exposed_to() {
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
fn unregister_a_tool_step_6_1_changes_of_one_task_are_notified_once_under_coalesced_registry() {
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
fn unregister_a_tool_step_6_1_is_not_notified_while_tools_are_not_ready_under_ready_events() {
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
    assert!(sim.trace_text().contains("notification suppressed"));
    sim.task(top, "resolve p with 1");
    sim.run();
    assert_eq!(sim.logged(), vec!["true"]);
}
