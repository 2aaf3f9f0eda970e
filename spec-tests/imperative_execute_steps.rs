//! The imperative execute steps: a tool registered by script runs, and its result goes back.
//!
//! <https://webmachinelearning.github.io/webmcp/#imperative-execute-steps>
//!
//! Steps: 1 assert: on the target's event loop; 2 parse the input in the target's realm and 3
//! it must be an object (executeTool() serialized an object, so neither fails from page
//! script here: a `toJSON` that returns a primitive is not something the script language
//! has); 4 fire `toolactivated` at the target's ModelContext (toolactivated-timing moves it
//! after step 9); 5 a new AbortController; 6-7 the local pending tool execution, recorded
//! before the tool runs; 8 options {signal}; 9 invoke `execute` with the input and options; 10
//! react to its promise: 10.1 fulfilled (10.1.1-10.1.2 a cancelled execution has no local
//! entry: return; 10.1.3 remove it; 10.1.4 serialize the value to JSON, an exception fails
//! the execution, tool-result=strings-as-is gives a string as it is; 10.1.5 complete with it),
//! 10.2 rejected (10.2.1 a warning; 10.2.2-10.2.3 cancelled: return; 10.2.4 remove; 10.2.5 the
//! execution fails).

use crate::common;

use common::{registered, Sim};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::{CANCEL_A_PENDING_TOOL_EXECUTION, IMPERATIVE_EXECUTE_STEPS};
use webmcp_ref::DocumentKey;

/// A page `top` whose tool `t` has `execute` as its execute callback.
fn page_with_tool(sim: &mut Sim, execute: &str) -> DocumentKey {
    let top = sim.page("top", "https://a.test/");
    sim.task(
        top,
        &format!("top.registerTool({{name: \"t\", description: \"d\", execute: {execute}}})"),
    );
    sim.run();
    top
}

/// Calls executeTool() on top's tool `t` from top (with `args` after the tool), binding `r`,
/// and runs until idle.
fn execute(sim: &mut Sim, top: DocumentKey, args: &str) {
    let dict = registered("t", "top", "https://a.test");
    let all = if args.is_empty() {
        dict
    } else {
        format!("{dict}, {args}")
    };
    sim.task(top, &format!("r = top.executeTool({all})"));
    sim.run();
}

#[test]
fn imperative_execute_steps_step_4_toolactivated_fires_before_execute_is_invoked_or_after() {
    // The text fires it at step 4, before step 9 invokes the callback; WPT's executeTool-abort
    // expects the tool to have started first, and Chromium 156 fires it then
    // (toolactivated-timing=after-execute-starts, the chromium profiles).
    for (timing, expected) in [
        (
            "before-execute",
            ["ToolActivatedEvent t", "callback", "result \"done\""],
        ),
        (
            "after-execute-starts",
            ["callback", "ToolActivatedEvent t", "result \"done\""],
        ),
    ] {
        let mut sim = Sim::with("spec", &[("toolactivated-timing", timing)]);
        let top = sim.page("top", "https://a.test/");
        sim.function(top, "body", "log \"callback\"\nreturn \"done\"");
        sim.task(
            top,
            "top.registerTool({name: \"t\", description: \"d\", execute: body})\non top toolactivated: log \"{event.interface} {event.toolName}\"",
        );
        sim.task(
            top,
            &format!(
                "r = top.executeTool({})\non r fulfilled as v: log \"result {{v}}\"",
                registered("t", "top", "https://a.test")
            ),
        );
        sim.run();
        assert_eq!(sim.logged(), expected, "{timing}");
        assert!(sim.reached(&IMPERATIVE_EXECUTE_STEPS, "4"), "{timing}");
    }
}

#[test]
fn imperative_execute_steps_step_4_toolactivated_fires_at_the_tools_document_only() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    sim.task(
        child,
        "child.registerTool({name: \"t\", description: \"d\", execute: returns(1)})\non child toolactivated: log \"child {event.toolName}\"",
    );
    sim.task(top, "on top toolactivated: log \"top\"");
    sim.run();
    sim.task(
        top,
        &format!(
            "r = top.executeTool({})",
            registered("t", "child", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.logged(), vec!["child t"]);
}

#[test]
fn imperative_execute_steps_steps_8_9_execute_gets_the_input_and_a_signal_of_its_own() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.function(
        top,
        "body",
        "log \"{input.q} {input.n} aborted {signal.aborted} {options.signal.aborted}\"\nreturn input",
    );
    sim.task(
        top,
        "top.registerTool({name: \"t\", description: \"d\", execute: body})",
    );
    sim.run();
    // The caller's own signal is not the tool's: the tool gets a new one (step 5).
    sim.task(top, "ac = AbortController()");
    execute(&mut sim, top, "{q: \"x\", n: 2}, {signal: ac.signal}");
    assert_eq!(sim.logged(), vec!["x 2 aborted false false"]);
    assert_eq!(sim.outcome_of("r"), Ok(r#"{"q":"x","n":2}"#.into()));
    for step in ["2", "3", "5", "6", "7", "8", "9", "10"] {
        assert!(sim.reached(&IMPERATIVE_EXECUTE_STEPS, step), "step {step}");
    }
}

#[test]
fn imperative_execute_steps_step_7_a_tool_that_cancels_itself_finds_its_local_execution() {
    // The local pending tool execution is recorded (step 7) before execute is invoked (step
    // 9): a tool whose callback aborts its own execution's signal is cancelled like any other,
    // its signal aborts and toolcancel fires.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.function(
        top,
        "self_cancelling",
        "on signal abort:\n  log \"tool saw {signal.reason.name}\"\nac.abort(\"from the tool\")\nawait pending",
    );
    sim.task(
        top,
        "top.registerTool({name: \"t\", description: \"d\", execute: self_cancelling})\non top toolcancel: log \"toolcancel {event.toolName}\"",
    );
    sim.run();
    sim.task(top, "ac = AbortController()");
    execute(&mut sim, top, "{}, {signal: ac.signal}");
    assert_eq!(sim.outcome_of("r"), Err("from the tool".into()));
    assert_eq!(sim.logged(), vec!["tool saw AbortError", "toolcancel t"]);
    assert!(sim.reached(&CANCEL_A_PENDING_TOOL_EXECUTION, "6.5"));
}

#[test]
fn imperative_execute_steps_step_10_1_4_every_result_is_serialized_to_json_or_strings_as_is() {
    // tool-result=json (the text) and tool-result=strings-as-is (what WPT's tests expect):
    // only a string differs. (tool-result=chromium-156: the next test.)
    for (returns, json, as_is) in [
        ("\"success\"", Ok("\"success\""), Ok("success")),
        ("\"\"", Ok("\"\""), Ok("")),
        (
            "{status: \"resolved\", n: 2}",
            Ok(r#"{"status":"resolved","n":2}"#),
            Ok(r#"{"status":"resolved","n":2}"#),
        ),
        ("5", Ok("5"), Ok("5")),
        ("true", Ok("true"), Ok("true")),
        ("null", Ok("null"), Ok("null")),
        ("[1, \"a\"]", Ok(r#"[1,"a"]"#), Ok(r#"[1,"a"]"#)),
        ("Promise.resolve(\"async\")", Ok("\"async\""), Ok("async")),
        ("undefined", Err("UnknownError"), Err("UnknownError")),
        ("Cyclic()", Err("UnknownError"), Err("UnknownError")),
        (
            "ToJSONUndefined()",
            Err("UnknownError"),
            Err("UnknownError"),
        ),
    ] {
        for (switch, expected) in [("json", json), ("strings-as-is", as_is)] {
            let mut sim = Sim::with("spec", &[("tool-result", switch)]);
            let top = page_with_tool(&mut sim, &format!("returns({returns})"));
            execute(&mut sim, top, "");
            let expected = expected.map(String::from).map_err(String::from);
            assert_eq!(
                sim.outcome_of("r"),
                expected,
                "returns({returns}) [{switch}]"
            );
            assert!(
                sim.reached(&IMPERATIVE_EXECUTE_STEPS, "10.1.4"),
                "returns({returns}) [{switch}]"
            );
            assert_eq!(
                sim.reached(&IMPERATIVE_EXECUTE_STEPS, "10.1.5"),
                expected.is_ok(),
                "returns({returns}) [{switch}]"
            );
        }
    }
}

#[test]
fn imperative_execute_steps_step_10_1_4_under_chromium_156_strings_pass_and_primitives_are_strings() {
    // tool-result=chromium-156, as measured: "" becomes "Operation succeeded", other strings
    // pass as they are, other primitives and values JSON has nothing for become their
    // ToString, objects their JSON; a value JSON cannot serialize still fails.
    for (returns, expected) in [
        ("\"success\"", Ok("success")),
        ("\"\"", Ok("Operation succeeded")),
        ("\" \"", Ok(" ")),
        ("{status: \"resolved\", n: 2}", Ok(r#"{"status":"resolved","n":2}"#)),
        ("5", Ok("5")),
        ("true", Ok("true")),
        ("null", Ok("null")),
        ("[1, \"a\"]", Ok(r#"[1,"a"]"#)),
        ("Promise.resolve(\"async\")", Ok("async")),
        ("undefined", Ok("undefined")),
        ("ToJSONUndefined()", Ok("undefined")),
        ("Cyclic()", Err("UnknownError")),
    ] {
        let mut sim = Sim::with("spec", &[("tool-result", "chromium-156")]);
        let top = page_with_tool(&mut sim, &format!("returns({returns})"));
        execute(&mut sim, top, "");
        let expected = expected.map(String::from).map_err(String::from);
        assert_eq!(sim.outcome_of("r"), expected, "returns({returns})");
    }
}

#[test]
fn imperative_execute_steps_step_10_2_a_throw_or_a_rejection_fails_the_execution() {
    // What the tool threw does not reach the caller: the execution fails with an UnknownError.
    for execute_src in [
        "throws(TypeError(\"bad input\"))",
        "returns(Promise.reject(\"nope\"))",
        "throws(\"a string\")",
    ] {
        let mut sim = Sim::new("spec");
        let top = page_with_tool(&mut sim, execute_src);
        sim.task(
            top,
            &format!(
                "r = top.executeTool({})\non r rejected as e: log \"{{e.name}}: {{e.message}}\"",
                registered("t", "top", "https://a.test")
            ),
        );
        sim.run();
        assert_eq!(sim.rejection_of("r"), "UnknownError", "{execute_src}");
        let logged = sim.logged();
        assert!(
            !logged[0].contains("bad input") && !logged[0].contains("nope"),
            "{execute_src}: {logged:?}"
        );
        for step in ["10.2", "10.2.1", "10.2.2", "10.2.3", "10.2.4", "10.2.5"] {
            assert!(
                sim.reached(&IMPERATIVE_EXECUTE_STEPS, step),
                "{execute_src}: step {step}"
            );
        }
    }
}

#[test]
fn imperative_execute_steps_steps_10_1_2_and_10_2_3_a_cancelled_executions_late_result_is_ignored()
{
    // The caller aborts; the tool settles afterwards, fulfilled or rejected. Its local
    // execution was taken out by the cancellation, so the reaction returns, and the caller
    // keeps the abort reason.
    for (settle, step) in [
        ("resolve later with \"too late\"", "10.1.2"),
        ("reject later with \"too late\"", "10.2.3"),
    ] {
        let mut sim = Sim::new("spec");
        let top = sim.page("top", "https://a.test/");
        sim.promise_in(top, "later");
        sim.task(
            top,
            "top.registerTool({name: \"t\", description: \"d\", execute: returns(later)})",
        );
        sim.run();
        sim.task(top, "ac = AbortController()");
        execute(&mut sim, top, "{}, {signal: ac.signal}");
        sim.task(top, "ac.abort(\"stop\")");
        sim.run();
        assert!(
            sim.reached(&CANCEL_A_PENDING_TOOL_EXECUTION, "6.4"),
            "{settle}"
        );
        sim.task(top, settle);
        sim.run();
        assert_eq!(sim.outcome_of("r"), Err("stop".into()), "{settle}");
        assert!(sim.reached(&IMPERATIVE_EXECUTE_STEPS, step), "{settle}");
        assert!(
            sim.trace_text().contains("was cancelled: return"),
            "{settle}"
        );
        assert!(
            !sim.reached(&IMPERATIVE_EXECUTE_STEPS, "10.1.3")
                && !sim.reached(&IMPERATIVE_EXECUTE_STEPS, "10.2.4"),
            "{settle}"
        );
    }
}
