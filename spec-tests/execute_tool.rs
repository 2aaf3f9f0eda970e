//! `executeTool(tool, inputObject, options)`: an in-page agent runs a tool it was given.
//!
//! <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-executetool>
//!
//! Steps as the text numbers them: 1 the caller document; 2 fully active; 3 allowed to use
//! "tools"; 4-7 the tool's origin parses to a URL whose origin is not opaque (else
//! NotSupportedError); 8 an omitted input is `{}`; 9 assert: an object; 10 serialize it to JSON
//! (an exception rejects); 11 the promise; 12-13 the target Window and Document; 14 a unique
//! internal value; 15 the signal: 15.2 already aborted rejects at once, 15.3 the target's
//! traversable, 15.4 abort steps (15.4.1 reject with the reason, 15.4.2 in parallel, cancel a
//! pending tool execution); 16 in parallel: 16.1 the target in the caller's traversable, 16.2-
//! 16.4 the target's origin is the tool's, 16.5-16.8 the tool in the target's tool map, 16.9
//! exposed to the caller (each failure an UnknownError from a webmcp task), 16.10 the
//! completion steps (16.10.1 no longer pending: return, 16.10.2 remove, 16.10.3 resolve with
//! the result, 16.10.4 reject with an UnknownError), 16.11-16.12 the pending tool execution in
//! the traversable's map, 16.13 a webmcp task on the target runs the tool execute steps; 17
//! return.

use crate::common;

use common::{registered, tool, Sim};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::{
    CANCEL_A_PENDING_TOOL_EXECUTION, EXECUTE_TOOL, IMPERATIVE_EXECUTE_STEPS, TOOL_EXECUTE_STEPS,
    UNLOADING_DOCUMENT_CLEANUP_STEPS,
};
use webmcp_ref::host::navigable::DocumentOptions;
use webmcp_ref::DocumentKey;

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

/// Calls `executeTool(t of top, args...)` from top, binding the promise to `r`, and runs.
fn execute(sim: &mut Sim, top: DocumentKey, args: &str) -> Result<String, String> {
    let dict = registered("t", "top", "https://a.test");
    let all = if args.is_empty() {
        dict
    } else {
        format!("{dict}, {args}")
    };
    sim.task(top, &format!("r = top.executeTool({all})"));
    sim.run();
    sim.outcome_of("r")
}

/// A tool `t` on `top` that logs when it starts, logs its signal's abort, and never settles;
/// with toolactivated and toolcancel listeners on top.
fn page_with_slow_tool(sim: &mut Sim) -> DocumentKey {
    let top = sim.page("top", "https://a.test/");
    sim.function(
        top,
        "slow",
        "log \"tool started\"\non signal abort:\n  log \"tool saw {signal.reason.name}\"\nawait pending",
    );
    sim.task(
        top,
        "top.registerTool({name: \"t\", description: \"d\", execute: slow})\n\
         on top toolactivated: log \"toolactivated {event.toolName}\"\n\
         on top toolcancel: log \"toolcancel {event.toolName}\"",
    );
    sim.run();
    top
}

#[test]
fn execute_tool_webidl_conversion_rejects_a_bad_registered_tool_or_a_primitive_input() {
    let mut sim = Sim::new("spec");
    let top = page_with_tool(&mut sim, "returns(\"ok\")");
    sim.task(
        top,
        "r1 = top.executeTool({name: \"t\", description: \"d\", window: top})",
    );
    for (i, input) in ["42", "\"a string\"", "null", "true"].iter().enumerate() {
        sim.task(
            top,
            &format!(
                "r{} = top.executeTool({}, {input})",
                i + 2,
                registered("t", "top", "https://a.test")
            ),
        );
    }
    sim.run();
    for r in ["r1", "r2", "r3", "r4", "r5"] {
        assert_eq!(sim.rejection_of(r), "TypeError", "{r}");
    }
    assert!(
        !sim.reached(&EXECUTE_TOOL, "1"),
        "the method steps never began"
    );
}

#[test]
fn execute_tool_step_2_rejects_a_caller_that_is_not_fully_active() {
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
    assert!(!sim.reached(&EXECUTE_TOOL, "3"));
}

#[test]
fn execute_tool_step_3_rejects_a_caller_not_allowed_to_use_tools() {
    let mut sim = Sim::new("spec");
    let top = page_with_tool(&mut sim, "returns(\"ok\")");
    let denied = sim.frame(top, "denied", "https://c.test/");
    sim.task(
        denied,
        &format!(
            "r = denied.executeTool({})",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.rejection_of("r"), "NotAllowedError");
    assert!(!sim.reached(&EXECUTE_TOOL, "4"));
}

#[test]
fn execute_tool_steps_4_5_an_origin_that_is_no_url_or_is_opaque_is_not_supported() {
    for (origin, expected) in [
        ("not a url", Err("NotSupportedError")),
        ("data:text/plain,x", Err("NotSupportedError")),
        ("https://a.test/any/path", Ok("\"ok\"")),
    ] {
        let mut sim = Sim::new("spec");
        let top = page_with_tool(&mut sim, "returns(\"ok\")");
        sim.task(
            top,
            &format!("r = top.executeTool({})", registered("t", "top", origin)),
        );
        sim.run();
        let expected = expected.map(String::from).map_err(String::from);
        assert_eq!(sim.outcome_of("r"), expected, "{origin:?}");
        assert_eq!(
            sim.reached(&EXECUTE_TOOL, "6"),
            expected.is_ok(),
            "{origin:?}"
        );
    }
}

#[test]
fn execute_tool_steps_8_to_10_the_input_is_an_object_serialized_for_the_tool() {
    // The tool echoes its input, so the result shows what it was given.
    for (input, expected) in [
        ("", Ok("{}")),
        (
            "{q: \"x\", n: 1, skip: undefined}",
            Ok(r#"{"q":"x","n":1}"#),
        ),
        ("[1, 2]", Ok("[1,2]")),
        ("Cyclic()", Err("TypeError")),
        ("ToJSONUndefined()", Err("TypeError")),
    ] {
        let mut sim = Sim::new("spec");
        let top = page_with_tool(&mut sim, "returns(input)");
        let expected = expected.map(String::from).map_err(String::from);
        assert_eq!(execute(&mut sim, top, input), expected, "input {input:?}");
        // A serialization exception rejects at step 10, before any promise of the method's.
        assert_eq!(
            sim.reached(&EXECUTE_TOOL, "11"),
            expected.is_ok(),
            "input {input:?}"
        );
    }
}

#[test]
fn execute_tool_step_15_2_an_already_aborted_signal_rejects_synchronously() {
    let mut sim = Sim::new("spec");
    let top = page_with_slow_tool(&mut sim);
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
    assert!(!sim.reached(&EXECUTE_TOOL, "15.3"));
    assert!(!sim.reached(&EXECUTE_TOOL, "16"));
}

#[test]
fn execute_tool_step_15_4_aborting_a_running_tool_rejects_the_caller_then_cancels_the_tool() {
    let mut sim = Sim::new("spec");
    let top = page_with_slow_tool(&mut sim);
    sim.task(
        top,
        &format!(
            "ac = AbortController()\nr = top.executeTool({}, {{}}, {{signal: ac.signal}})\non r rejected as e: log \"caller rejected with {{e}}\"",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.logged(), vec!["toolactivated t", "tool started"]);
    sim.task(top, "ac.abort(\"stop\")");
    sim.run();
    assert_eq!(
        sim.logged(),
        vec![
            "toolactivated t",
            "tool started",
            "caller rejected with stop",
            "tool saw AbortError",
            "toolcancel t",
        ]
    );
    for step in ["15.1", "15.2", "15.3", "15.4", "15.4.1", "15.4.2"] {
        assert!(sim.reached(&EXECUTE_TOOL, step), "step {step}");
    }
    assert!(sim.reached(&CANCEL_A_PENDING_TOOL_EXECUTION, "6.6"));
}

#[test]
fn execute_tool_step_15_4_2_aborting_in_the_calling_task_still_starts_the_tool_then_cancels_it() {
    // The abort steps reject at once, but the cancellation is in parallel and queued after
    // step 16: the pending execution is recorded and its task queued, the cancellation
    // removes it from the traversable's map, and its task on the target finds the local
    // execution the tool execute steps have recorded by then.
    let mut sim = Sim::new("spec");
    let top = page_with_slow_tool(&mut sim);
    sim.task(
        top,
        &format!(
            "ac = AbortController()\nr = top.executeTool({}, {{}}, {{signal: ac.signal}})\nac.abort(\"stop\")",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.rejection_of("r"), "stop");
    assert_eq!(
        sim.logged(),
        vec![
            "toolactivated t",
            "tool started",
            "tool saw AbortError",
            "toolcancel t"
        ]
    );
}

#[test]
fn execute_tool_step_15_4_aborting_after_the_result_changes_nothing() {
    let mut sim = Sim::new("spec");
    let top = page_with_tool(&mut sim, "returns(\"ok\")");
    sim.task(top, "on top toolcancel: log \"toolcancel\"");
    sim.task(top, "ac = AbortController()");
    assert_eq!(
        execute(&mut sim, top, "{}, {signal: ac.signal}"),
        Ok("\"ok\"".into())
    );
    sim.task(top, "ac.abort()");
    sim.run();
    assert_eq!(
        sim.outcome_of("r"),
        Ok("\"ok\"".into()),
        "rejecting a settled promise does nothing"
    );
    assert!(sim.logged().is_empty());
    // The cancellation finds nothing pending (cancel a pending tool execution step 2).
    assert!(sim.trace_text().contains("is not pending: return"));
}

#[test]
fn execute_tool_step_16_1_a_tool_of_another_traversable_is_an_unknown_error() {
    // Another page of the same origin, one `top` opened (so its script can reach the
    // window): its window is not in the caller's tree (Issue #227).
    let mut sim = Sim::new("spec");
    let top = page_with_tool(&mut sim, "returns(\"ok\")");
    let elsewhere = sim
        .w
        .open_page_in_group(
            "elsewhere",
            "https://a.test/elsewhere",
            Some(top),
            DocumentOptions::default(),
        )
        .unwrap();
    sim.task(
        elsewhere,
        &format!("elsewhere.registerTool({})", tool("t", "")),
    );
    sim.run();
    sim.task(
        top,
        &format!(
            "r = top.executeTool({})",
            registered("t", "elsewhere", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.rejection_of("r"), "UnknownError");
    assert!(sim.reached(&EXECUTE_TOOL, "16.1"));
    assert!(!sim.reached(&EXECUTE_TOOL, "16.2"));
    assert!(!sim.reached(&TOOL_EXECUTE_STEPS, "1"), "the tool never ran");
}

#[test]
fn execute_tool_step_16_4_an_origin_that_is_not_the_windows_is_an_unknown_error() {
    let mut sim = Sim::new("spec");
    let top = page_with_tool(&mut sim, "returns(\"ok\")");
    sim.task(
        top,
        &format!(
            "r = top.executeTool({})",
            registered("t", "top", "https://b.test")
        ),
    );
    sim.run();
    assert_eq!(sim.rejection_of("r"), "UnknownError");
    assert!(sim.reached(&EXECUTE_TOOL, "16.4"));
    assert!(!sim.reached(&EXECUTE_TOOL, "16.5"));
}

#[test]
fn execute_tool_step_16_7_a_tool_not_in_the_map_is_an_unknown_error() {
    // No such tool; and a tool unregistered in the calling task, before the in-parallel steps
    // look for it.
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
            "r1 = top.executeTool({})\nr2 = top.executeTool({})\nac.abort()",
            registered("nope", "top", "https://a.test"),
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.rejection_of("r1"), "UnknownError");
    assert_eq!(sim.rejection_of("r2"), "UnknownError");
    assert!(sim.reached(&EXECUTE_TOOL, "16.7"));
    assert!(!sim.reached(&EXECUTE_TOOL, "16.8"));
}

#[test]
fn execute_tool_step_16_9_a_cross_origin_tool_runs_only_if_exposed_to_the_caller() {
    for (exposed, expected) in [
        ("[\"https://a.test\"]", Ok("\"ok\"")),
        ("[]", Err("UnknownError")),
    ] {
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
        let expected = expected.map(String::from).map_err(String::from);
        assert_eq!(sim.outcome_of("r"), expected, "exposedTo {exposed}");
        assert_eq!(
            sim.reached(&EXECUTE_TOOL, "16.10"),
            expected.is_ok(),
            "exposedTo {exposed}"
        );
    }
}

#[test]
fn execute_tool_step_16_10_3_resolves_the_caller_from_a_task_once_the_tool_settles() {
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
    sim.task(top, "resolve later with {done: true}");
    sim.run();
    assert_eq!(sim.outcome_of("r"), Ok(r#"{"done":true}"#.into()));
    for step in ["16.10.1", "16.10.2", "16.10.3", "16.11", "16.12", "16.13"] {
        assert!(sim.reached(&EXECUTE_TOOL, step), "step {step}");
    }
}

#[test]
fn execute_tool_step_16_10_4_a_failed_execution_is_an_unknown_error() {
    for execute_src in [
        "throws(TypeError(\"bad input\"))",
        "returns(Promise.reject(\"nope\"))",
    ] {
        let mut sim = Sim::new("spec");
        let top = page_with_tool(&mut sim, execute_src);
        assert_eq!(
            execute(&mut sim, top, ""),
            Err("UnknownError".into()),
            "{execute_src}"
        );
        assert!(sim.reached(&EXECUTE_TOOL, "16.10.4"), "{execute_src}");
    }
}

#[test]
fn execute_tool_step_16_10_1_a_result_racing_the_cancellation_is_ignored() {
    // The note on the race: the caller aborts, and in the same task the tool's promise is
    // resolved. The cancellation, queued first, removes the pending execution; the completion
    // steps then find nothing and return, and the cancellation's task on the target finds no
    // local execution: the caller keeps the abort reason, and no toolcancel fires.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "later");
    sim.task(
        top,
        "top.registerTool({name: \"t\", description: \"d\", execute: returns(later)})\non top toolcancel: log \"toolcancel\"",
    );
    sim.task(
        top,
        &format!(
            "ac = AbortController()\nr = top.executeTool({}, {{}}, {{signal: ac.signal}})",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    sim.task(top, "ac.abort(\"stop\")\nresolve later with \"late\"");
    sim.run();
    assert_eq!(sim.outcome_of("r"), Err("stop".into()));
    assert!(sim.logged().is_empty(), "{:?}", sim.logged());
    assert!(sim.trace_text().contains("is no longer pending: return"));
    assert!(sim.reached(&CANCEL_A_PENDING_TOOL_EXECUTION, "6.2"));
    assert!(!sim.reached(&CANCEL_A_PENDING_TOOL_EXECUTION, "6.3"));
}

/// top (a.test) with an iframe whose first document `child` has tool `t` (returning "ran")
/// and logs toolactivated; `child` then goes into the bfcache, `next` replacing it, and top
/// calls executeTool() on `t` (binding `r`). Returns `next`.
fn call_a_tool_in_the_bfcache(sim: &mut Sim) -> DocumentKey {
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    sim.task(
        child,
        "child.registerTool({name: \"t\", description: \"d\", execute: returns(\"ran\")})\non child toolactivated: log \"toolactivated\"",
    );
    sim.run();
    let next = sim
        .w
        .navigate(child, "https://a.test/next.html", "next", true)
        .unwrap();
    sim.task(
        top,
        &format!(
            "r = top.executeTool({})",
            registered("t", "child", "https://a.test")
        ),
    );
    sim.run();
    next
}

#[test]
fn execute_tool_step_16_13_a_target_in_the_bfcache_runs_the_tool_once_it_is_restored() {
    // The note under step 16.13: the target's tasks wait until it is fully active again. The
    // iframe's document went into the bfcache before executeTool() was called, so its
    // unloading cleanup had nothing to clean up, and the execution is recorded afterwards;
    // the navigable the target was last in stands for its node navigable at step 16.1. (Only
    // a tool pinned to its document can name one in the bfcache: a WindowProxy reaches the
    // iframe's new document.)
    let mut sim = Sim::with("spec", &[("registered-tool-window", "document")]);
    let next = call_a_tool_in_the_bfcache(&mut sim);
    assert_eq!(sim.state_of("r"), "pending");
    assert!(sim.logged().is_empty(), "the tool waits");
    sim.w.go_back(next).unwrap();
    sim.run();
    assert_eq!(sim.outcome_of("r"), Ok("\"ran\"".into()));
    assert_eq!(sim.logged(), vec!["toolactivated"]);
    assert!(sim.findings().is_empty(), "{:?}", sim.findings());
}

#[test]
fn execute_tool_step_16_1_a_target_in_the_bfcache_is_a_finding_as_written() {
    // As written, step 16.1 asks for the node navigable a target in the bfcache does not
    // have: a finding, the in-parallel steps stop, and the caller never hears back, even once
    // the target is restored (a tool pinned to its document, as above).
    let mut sim = Sim::with("literal", &[("registered-tool-window", "document")]);
    let next = call_a_tool_in_the_bfcache(&mut sim);
    assert_eq!(
        sim.findings_at(),
        vec![(
            "dom-modelcontext-executetool".to_string(),
            "16.1".to_string()
        )]
    );
    sim.w.go_back(next).unwrap();
    sim.run();
    assert_eq!(sim.state_of("r"), "pending");
    assert!(sim.logged().is_empty(), "the tool never ran");
    assert!(!sim.reached(&EXECUTE_TOOL, "16.2"));
}

#[test]
fn execute_tool_step_16_10_1_a_target_gone_before_its_completion_steps_is_a_finding_as_written() {
    // The tool navigates its own document and returns. The navigation commits before the
    // completion steps run in parallel, so the target has no node navigable by then. As
    // intended, the traversable it was last in stands for it: the execution is still
    // pending there, and the caller gets the result. As written, 16.10.1 cannot be carried
    // out: the execution stays pending, the unloading cleanup's own completion steps fail the
    // same way, and its assertion that the execution is gone then fails.
    for (name, as_written) in [("spec", false), ("literal", true)] {
        let mut sim = Sim::new(name);
        let top = sim.page("top", "https://a.test/");
        let child = sim.frame(top, "child", "https://a.test/child.html");
        sim.function(
            child,
            "leaves",
            "navigate child to https://a.test/next.html as next\nreturn \"done\"",
        );
        sim.task(
            child,
            "child.registerTool({name: \"t\", description: \"d\", execute: leaves})",
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
        assert!(sim.reached(&IMPERATIVE_EXECUTE_STEPS, "10.1.5"), "{name}");
        if as_written {
            assert_eq!(sim.state_of("r"), "pending", "{name}");
            let findings = sim.findings_at();
            for (anchor, step) in [
                ("dom-modelcontext-executetool", "16.10.1"),
                ("unloading-document-cleanup-steps", "2.3.5"),
            ] {
                assert!(
                    findings.contains(&(anchor.to_string(), step.to_string())),
                    "{name}: {findings:?}"
                );
            }
        } else {
            assert_eq!(sim.outcome_of("r"), Ok("\"done\"".into()), "{name}");
            assert!(sim.findings().is_empty(), "{name}: {:?}", sim.findings());
            assert!(
                sim.reached(&UNLOADING_DOCUMENT_CLEANUP_STEPS, "2.2.1"),
                "{name}"
            );
            assert!(
                !sim.reached(&UNLOADING_DOCUMENT_CLEANUP_STEPS, "2.3"),
                "{name}: nothing left to clean up"
            );
        }
    }
}
