//! Web IDL's handling of the arguments of WebMCP's methods, before their steps run: the number
//! of arguments an operation requires, the whole dictionary an argument converts to, and
//! `JSON.stringify`'s order of an object's keys, which the imperative execute steps use.
//!
//! <https://webidl.spec.whatwg.org/#es-operations>, <https://webidl.spec.whatwg.org/#es-dictionary>,
//! <https://tc39.es/ecma262/#sec-ordinaryownpropertykeys>

use crate::common;

use common::Sim;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::{EXECUTE_TOOL, REGISTER_TOOL, WAIT_FOR_TOOLS_UNTIL};

/// Registers tool `t` in `top`, whose execute returns `result`, and binds its RegisteredTool
/// to `t`.
fn with_tool(sim: &mut Sim, result: &str) -> webmcp_ref::DocumentKey {
    let top = sim.page("top", "https://a.test/");
    sim.task(
        top,
        &format!(
            "await top.registerTool({{name: \"t\", description: \"d\", execute: returns({result})}})\ntools = await top.getTools()\nt = tools[0]"
        ),
    );
    sim.run();
    top
}

#[test]
fn operation_with_fewer_arguments_than_required_rejects_a_promise_returning_call_with_a_type_error(
) {
    // The operation's steps check the argument count first: registerTool() and executeTool()
    // return promises, so they reject; getTools() requires nothing.
    for profile in ["spec", "chromium-156"] {
        let mut sim = Sim::new(profile);
        let top = sim.page("top", "https://a.test/");
        sim.task(
            top,
            "r = top.registerTool()\ne = top.executeTool()\ng = top.getTools()",
        );
        sim.run();
        assert_eq!(sim.rejection_of("r"), "TypeError", "{profile}");
        assert_eq!(sim.rejection_of("e"), "TypeError", "{profile}");
        assert_eq!(sim.state_of("g"), "fulfilled", "{profile}");
        // No step of either method ran.
        assert!(!sim.reached(&REGISTER_TOOL, "1"), "{profile}");
        assert!(!sim.reached(&EXECUTE_TOOL, "1"), "{profile}");
    }
    let mut sim = Sim::new("chromium-156");
    let top = sim.page("top", "https://a.test/");
    sim.task(top, "r = top.registerTool()");
    sim.run();
    let p = sim.promise_named("r");
    let webmcp_ref::host::promise::PromiseState::Rejected(webmcp_ref::Value::Error(e)) =
        sim.promise_state(p).clone()
    else {
        panic!("rejected with an error");
    };
    assert_eq!(
        e.message,
        "Failed to execute 'registerTool' on 'ModelContext': 1 argument required, but only 0 present."
    );
}

#[test]
fn operation_with_fewer_arguments_than_required_throws_when_it_returns_no_promise() {
    // waitForToolsUntil() returns undefined: the TypeError is thrown, before step 1.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let c = sim.w.queue_script(top, "top.waitForToolsUntil()").unwrap();
    sim.w.run_until_idle().unwrap();
    assert_eq!(sim.rejection(c), "TypeError");
    assert!(!sim.reached(&WAIT_FOR_TOOLS_UNTIL, "1"));
    assert!(sim.ready(top));
    // `undefined` given is an argument: converted (a promise fulfilled with undefined).
    sim.task(top, "top.waitForToolsUntil(undefined)");
    sim.run();
    assert!(sim.reached(&WAIT_FOR_TOOLS_UNTIL, "1"));
}

#[test]
fn dictionary_conversion_converts_every_registered_tool_member_even_those_the_steps_never_read() {
    // RegisteredTool's inputSchema is `object` and its annotations a ToolAnnotations
    // dictionary: executeTool()'s steps read neither, but the conversion of its argument does.
    for (member, ok) in [
        ("inputSchema: 5", false),
        ("inputSchema: \"{}\"", false),
        ("inputSchema: {}", true),
        ("annotations: 5", false),
        ("annotations: \"x\"", false),
        ("annotations: {readOnlyHint: true}", true),
        ("annotations: null", true),
        ("title: 5", true),
    ] {
        let mut sim = Sim::new("spec");
        let top = with_tool(&mut sim, "\"ran\"");
        sim.task(
            top,
            &format!("r = top.executeTool({{name: t.name, description: t.description, window: t.window, origin: t.origin, {member}}}, {{}})"),
        );
        sim.run();
        match ok {
            true => assert_eq!(sim.state_of("r"), "fulfilled", "{member}"),
            false => {
                assert_eq!(sim.rejection_of("r"), "TypeError", "{member}");
                assert!(!sim.reached(&EXECUTE_TOOL, "1"), "{member}: before step 1");
            }
        }
    }
}

#[test]
fn json_stringify_orders_an_objects_integer_keys_first_in_the_imperative_execute_steps_10_1_4() {
    let mut sim = Sim::new("spec");
    let top = with_tool(&mut sim, "{b: 1, \"2\": 2, a: 3, \"1\": 4}");
    sim.task(top, "result = await top.executeTool(t, {})");
    sim.run();
    assert_eq!(
        sim.value("result"),
        webmcp_ref::Value::string(r#"{"1":4,"2":2,"b":1,"a":3}"#)
    );
    // The order is the object's own: a log of it reads the same.
    sim.task(top, "o = {z: 1, \"0\": 2}\nlog \"{o}\"");
    sim.run();
    assert_eq!(sim.logged(), vec![r#"{"0":2,"z":1}"#.to_string()]);
}

#[test]
fn json_stringify_serializes_nan_and_infinity_as_null() {
    let mut sim = Sim::new("spec");
    let top = with_tool(&mut sim, "{n: NaN, i: Infinity}");
    sim.task(top, "result = await top.executeTool(t, {})");
    sim.run();
    assert_eq!(
        sim.value("result"),
        webmcp_ref::Value::string(r#"{"n":null,"i":null}"#)
    );
}
