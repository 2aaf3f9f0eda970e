//! `executeTool(tool, inputObject, {signal})`: in the IDL and WPT, without algorithm text; the
//! engine's steps.
//!
//! executeTool: 1 the caller; 2 fully active; 3 allowed to use "tools"; 4 an omitted input is
//! `{}`; 5 the input must be an object; 6 serialize it; 7 an aborted signal rejects at once; 8
//! the promise; 9 abort steps (9.1 not once finished, 9.2 reject with the reason, 9.3 cancel a
//! running tool); 10 in parallel: 10.1-10.5 find the tool (its window, origin, name, and
//! visibility to the caller), 10.6 queue the task that runs it.
//!
//! Run a tool: 1 not if cancelled; 2 still registered; 3 parse the input; 4 a new signal; 5
//! invoke `execute`; 6 `toolactivated` at the Window, then the ModelContext (the order WPT's
//! executeTool-events observes); 7 its result: 7.1 a string as it is, anything else as JSON,
//! 7.2 a rejection as an UnknownError.
//!
//! Cancel a tool: 2 abort the tool's signal; 3 `toolcancel` at the Window, then the
//! ModelContext.

use crate::common;

use common::{tool, Sim};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::{CANCEL_A_TOOL, EXECUTE_TOOL, RUN_A_TOOL};
use webmcp_ref::{DocumentKey, Value};

/// The RegisteredTool dictionary for tool `name` of the document the script names `window`.
fn registered(name: &str, window: &str, origin: &str) -> String {
    format!("{{name: {name:?}, description: \"d\", window: {window}, origin: {origin:?}}}")
}

/// A page `top` at https://a.test/ with one tool `t` whose `execute` is `execute`.
fn page_with_tool(sim: &mut Sim, execute: &str) -> DocumentKey {
    let top = sim.page("top", "https://a.test/");
    sim.task(
        top,
        &format!("top.registerTool({{name: \"t\", description: \"d\", execute: {execute}}})"),
    );
    sim.run();
    top
}

/// Calls executeTool(t, `input`) from top and returns what its promise settled to: `Ok(the
/// string)` or `Err(the error's name)`.
fn execute(sim: &mut Sim, top: DocumentKey, input: &str) -> Result<String, String> {
    let args = if input.is_empty() {
        registered("t", "top", "https://a.test")
    } else {
        format!("{}, {input}", registered("t", "top", "https://a.test"))
    };
    sim.task(top, &format!("r = top.executeTool({args})"));
    sim.run();
    let r = sim.promise_named("r");
    match sim.state(r) {
        "fulfilled" => match sim.fulfilled_value(r) {
            Value::String(s) => Ok(s),
            other => panic!("executeTool() fulfilled with a non-string {other:?}"),
        },
        "rejected" => Err(sim.rejection(r)),
        _ => panic!("executeTool() is still pending"),
    }
}

#[test]
fn run_a_tool_step_7_1_a_string_result_is_given_as_it_is_anything_else_as_json() {
    for (returns, expected) in [
        ("\"success\"", "success"),
        (
            "{status: \"resolved\", n: 2}",
            r#"{"status":"resolved","n":2}"#,
        ),
        ("5", "5"),
        ("true", "true"),
        ("null", "null"),
        ("[1, \"a\"]", r#"[1,"a"]"#),
        ("undefined", ""),
        ("Promise.resolve(\"async\")", "async"),
    ] {
        let mut sim = Sim::new("spec");
        let top = page_with_tool(&mut sim, &format!("returns({returns})"));
        assert_eq!(
            execute(&mut sim, top, ""),
            Ok(expected.to_string()),
            "returns({returns})"
        );
        assert!(sim.reached(&RUN_A_TOOL, "7.1"));
    }
}

#[test]
fn run_a_tool_step_7_1_waits_for_a_promise_the_tool_returned() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "later");
    sim.task(
        top,
        "top.registerTool({name: \"t\", description: \"d\", execute: returns(later)})",
    );
    sim.task(
        top,
        &format!(
            "r = top.executeTool({})",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.state_of("r"), "pending");
    sim.task(top, "resolve later with \"done\"");
    sim.run();
    assert_eq!(
        sim.fulfilled_value(sim.promise_named("r")),
        Value::string("done")
    );
}

#[test]
fn run_a_tool_step_7_2_a_throw_or_rejection_is_an_unknown_error() {
    for execute_src in [
        "throws(TypeError(\"bad input\"))",
        "returns(Promise.reject(\"nope\"))",
        // A result JSON cannot serialize.
        "returns(Cyclic())",
    ] {
        let mut sim = Sim::new("spec");
        let top = page_with_tool(&mut sim, execute_src);
        assert_eq!(
            execute(&mut sim, top, ""),
            Err("UnknownError".into()),
            "{execute_src}"
        );
    }
}

#[test]
fn execute_tool_steps_4_to_6_the_input_is_an_object_serialized_for_the_tool() {
    // The tool echoes its input, so the result shows what it was given.
    for (input, expected) in [
        ("", Ok("{}")),
        ("{q: \"x\", n: 1}", Ok(r#"{"q":"x","n":1}"#)),
        ("[1, 2]", Ok("[1,2]")),
        ("42", Err("TypeError")),
        ("\"a string\"", Err("TypeError")),
        ("null", Err("TypeError")),
        ("Cyclic()", Err("TypeError")),
    ] {
        let mut sim = Sim::new("spec");
        let top = page_with_tool(&mut sim, "returns(input)");
        let expected = expected.map(String::from).map_err(String::from);
        assert_eq!(execute(&mut sim, top, input), expected, "input {input:?}");
    }
}

#[test]
fn execute_tool_step_10_an_unknown_or_mismatched_tool_is_an_unknown_error() {
    let mut sim = Sim::new("spec");
    let top = page_with_tool(&mut sim, "returns(\"ok\")");
    // Another page of the same origin: its window is not in the caller's tree.
    sim.page("elsewhere", "https://a.test/elsewhere");
    for (dict, step) in [
        (registered("nope", "top", "https://a.test"), "10.4"),
        (registered("t", "top", "https://b.test"), "10.3"),
        (registered("t", "elsewhere", "https://a.test"), "10.2"),
    ] {
        sim.task(top, &format!("r = top.executeTool({dict})"));
        sim.run();
        assert_eq!(sim.rejection_of("r"), "UnknownError", "{dict}");
        assert!(sim.reached(&EXECUTE_TOOL, step), "{dict}");
    }
}

#[test]
fn execute_tool_step_10_5_a_cross_origin_tool_runs_only_if_exposed_to_the_caller() {
    for (exposed, expected) in [("[\"https://a.test\"]", "fulfilled"), ("[]", "rejected")] {
        let mut sim = Sim::new("spec");
        let top = sim.page("top", "https://a.test/");
        let other = sim.frame_allow(top, "other", "https://b.test/", "tools");
        sim.task(
            other,
            &format!(
                "other.registerTool({}, {{exposedTo: {exposed}}})",
                tool("t", "")
            ),
        );
        sim.run();
        sim.task(
            top,
            &format!(
                "r = top.executeTool({})",
                registered("t", "other", "https://b.test")
            ),
        );
        sim.run();
        assert_eq!(sim.state_of("r"), expected, "exposedTo {exposed}");
        if expected == "rejected" {
            assert_eq!(sim.rejection_of("r"), "UnknownError");
        } else {
            assert_eq!(
                sim.fulfilled_value(sim.promise_named("r")),
                Value::string("ok")
            );
        }
    }
}

#[test]
fn execute_tool_webidl_conversion_rejects_a_registered_tool_without_origin() {
    let mut sim = Sim::new("spec");
    let top = page_with_tool(&mut sim, "returns(\"ok\")");
    sim.task(
        top,
        "r = top.executeTool({name: \"t\", description: \"d\", window: top})",
    );
    sim.run();
    assert_eq!(sim.rejection_of("r"), "TypeError");
}

#[test]
fn execute_tool_step_2_and_3_reject_a_caller_not_fully_active_or_not_allowed() {
    let mut sim = Sim::new("spec");
    let top = page_with_tool(&mut sim, "returns(\"ok\")");
    sim.frame(top, "child", "https://a.test/child.html");
    sim.task(
        top,
        &format!(
            "remove child\nr = child.executeTool({})",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.rejection_of("r"), "InvalidStateError");
    let denied = sim.frame(top, "denied", "https://c.test/");
    sim.task(
        denied,
        &format!(
            "r2 = denied.executeTool({})",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.rejection_of("r2"), "NotAllowedError");
}

#[test]
fn execute_tool_step_7_an_already_aborted_signal_rejects_synchronously() {
    let mut sim = Sim::new("spec");
    let top = page_with_tool(&mut sim, "returns(\"ok\")");
    sim.task(top, "on top toolactivated: log \"activated\"");
    sim.run();
    sim.task(
        top,
        &format!(
            "r = top.executeTool({}, {{}}, {{signal: AbortSignal.abort(\"early\")}})",
            registered("t", "top", "https://a.test")
        ),
    );
    assert!(sim.step(), "the task");
    assert_eq!(
        sim.rejection_of("r"),
        "early",
        "rejected before anything else ran"
    );
    sim.run();
    assert!(
        sim.logged().is_empty(),
        "the tool never ran: {:?}",
        sim.logged()
    );
}

#[test]
fn execute_tool_step_9_aborting_a_running_tool_rejects_the_caller_then_cancels_the_tool() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.function(
        top,
        "slow",
        "log \"tool started\"\non signal abort:\n  log \"tool saw {signal.reason.name}\"\nawait pending",
    );
    sim.task(
        top,
        "top.registerTool({name: \"t\", description: \"d\", execute: slow})",
    );
    sim.task(
        top,
        "on top toolactivated: log \"modelContext toolactivated {event.toolName}\"\n\
         on top.window toolactivated: log \"window toolactivated {event.toolName}\"\n\
         on top toolcancel: log \"modelContext toolcancel {event.toolName}\"\n\
         on top.window toolcancel: log \"window toolcancel {event.toolName}\"",
    );
    sim.task(
        top,
        &format!(
            "ac = AbortController()\nr = top.executeTool({}, {{}}, {{signal: ac.signal}})\non r rejected as e: log \"caller rejected with {{e}}\"",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    sim.task(top, "ac.abort(\"stop\")");
    sim.run();
    assert_eq!(
        sim.logged(),
        vec![
            "tool started",
            "window toolactivated t",
            "modelContext toolactivated t",
            "caller rejected with stop",
            "tool saw AbortError",
            "window toolcancel t",
            "modelContext toolcancel t",
        ]
    );
    assert!(sim.reached(&EXECUTE_TOOL, "9.3"));
    assert!(sim.reached(&CANCEL_A_TOOL, "3"));
}

#[test]
fn execute_tool_step_9_1_aborting_after_the_tool_finished_changes_nothing() {
    let mut sim = Sim::new("spec");
    let top = page_with_tool(&mut sim, "returns(\"ok\")");
    sim.task(top, "on top toolcancel: log \"toolcancel\"");
    sim.task(
        top,
        &format!(
            "ac = AbortController()\nr = top.executeTool({}, {{}}, {{signal: ac.signal}})",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.state_of("r"), "fulfilled");
    sim.task(top, "ac.abort()");
    sim.run();
    assert_eq!(sim.state_of("r"), "fulfilled");
    assert!(sim.logged().is_empty());
    assert!(sim.reached(&EXECUTE_TOOL, "9.1"));
}

#[test]
fn execute_tool_step_10_4_a_tool_unregistered_before_dispatch_is_an_unknown_error() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(
        top,
        &format!(
            "ac = AbortController()\ntop.registerTool({}, {{signal: ac.signal}})",
            tool("t", "")
        ),
    );
    sim.run();
    sim.task(
        top,
        &format!(
            "r = top.executeTool({})\nac.abort()",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.rejection_of("r"), "UnknownError");
}

#[test]
fn execute_tool_a_tool_whose_document_goes_away_while_running_is_an_unknown_error() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    sim.task(
        child,
        "child.registerTool({name: \"t\", description: \"d\", execute: pending})",
    );
    sim.run();
    sim.task(
        top,
        &format!(
            "r = top.executeTool({})",
            registered("t", "child", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.state_of("r"), "pending");
    sim.w.remove_iframe(child).unwrap();
    sim.run();
    assert_eq!(sim.rejection_of("r"), "UnknownError");
}

#[test]
fn run_a_tool_step_6_toolactivated_fires_after_the_callback_started_and_before_the_result() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.function(top, "body", "log \"callback\"\nreturn \"done\"");
    sim.task(
        top,
        "top.registerTool({name: \"t\", description: \"d\", execute: body})",
    );
    sim.task(
        top,
        "on top toolactivated: log \"{event.interface} {event.toolName}\"",
    );
    sim.task(
        top,
        &format!(
            "r = top.executeTool({})\non r fulfilled as v: log \"result {{v}}\"",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(
        sim.logged(),
        vec!["callback", "ToolActivatedEvent t", "result done"]
    );
}

#[test]
fn run_a_tool_step_4_concurrent_executions_have_independent_signals() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.function(
        top,
        "slow",
        "on signal abort:\n  log \"aborted {input.id}\"\nawait pending",
    );
    sim.task(
        top,
        "top.registerTool({name: \"t\", description: \"d\", execute: slow})",
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
    assert_eq!(sim.logged(), vec!["aborted 1"]);
    assert_eq!(sim.rejection_of("ra"), "AbortError");
    assert_eq!(sim.state_of("rb"), "pending");
}
