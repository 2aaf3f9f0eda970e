//! `registerTool(tool, options)`: every check it makes, and what it does once they pass.
//!
//! <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-registertool>
//!
//! Steps as the text numbers them: 3 fully active; 4 allowed to use "tools"; 8 a name already
//! in the tool map; 9 the name's length and code points; 10 an empty description (the name is
//! checked first); 12 input schema serialization; 13 an already-aborted signal (before any
//! `exposedTo` check); 15 exposedTo (15.1.1 URL parser, 15.1.2 potentially trustworthy origin,
//! 15.1.3 append); 16 the promise; 17 the signal (17.2 aborted, 17.3 abort steps, added only
//! once every check has passed: 17.3.1 unregister, 17.3.2 reject); 18 the tool definition; 19
//! the tool map; 20 in parallel: notify (20.1) and resolve (20.2); 21 return.

use crate::common;

use common::{tool, Sim};
use webmcp_ref::host::navigable::DocumentOptions;
use webmcp_ref::host::permissions::Allowlist;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::{REGISTER_TOOL, UNREGISTER_A_TOOL};
use webmcp_ref::{DocumentKey, Value};

/// Queues a task of `doc` that calls `registerTool(tool, options)` on `target`'s ModelContext
/// and binds the promise to `var`; runs until idle.
fn register(sim: &mut Sim, doc: DocumentKey, target: &str, var: &str, tool: &str, options: &str) {
    let args = if options.is_empty() {
        tool.to_string()
    } else {
        format!("{tool}, {options}")
    };
    sim.task(doc, &format!("{var} = {target}.registerTool({args})"));
    sim.run();
}

#[test]
fn register_tool_step_19_adds_the_tool_at_once_and_step_20_2_resolves_from_a_later_task() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(
        top,
        &format!("r = top.registerTool({})", tool("search", "")),
    );
    assert!(sim.step(), "the task");
    assert_eq!(sim.tools(top), vec!["search"]);
    assert_eq!(sim.state_of("r"), "pending");
    sim.run();
    assert_eq!(
        sim.fulfilled_value(sim.promise_named("r")),
        Value::Undefined
    );
    for step in [
        "3", "4", "8", "9", "10", "12", "13", "14", "16", "18", "19", "20", "20.1", "20.2", "21",
    ] {
        assert!(sim.reached(&REGISTER_TOOL, step), "step {step}");
    }
    assert!(!sim.reached(&REGISTER_TOOL, "15"), "no exposedTo");
    assert!(!sim.reached(&REGISTER_TOOL, "17"), "no signal");
}

#[test]
fn register_tool_step_3_rejects_a_document_that_is_not_fully_active() {
    // A removed iframe's document...
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    sim.task(
        top,
        &format!("remove child\nr = child.registerTool({})", tool("t", "")),
    );
    sim.run();
    assert_eq!(sim.rejection_of("r"), "InvalidStateError");
    assert!(sim.tools(child).is_empty());
    // ...and a document in the bfcache, reached from its successor's script.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let next = sim
        .w
        .navigate(top, "https://a.test/next", "next", true)
        .unwrap();
    register(&mut sim, next, "top", "r", &tool("t", ""), "");
    assert_eq!(sim.rejection_of("r"), "InvalidStateError");
    assert!(sim.tools(top).is_empty());
}

#[test]
fn register_tool_steps_3_4_a_site_keyed_agent_cluster_registers_like_any_other() {
    // The text checks full activity (3) and the "tools" feature (4); whether the agent
    // cluster is origin-keyed is not one of its checks.
    let mut sim = Sim::new("spec");
    let options = DocumentOptions {
        origin_keyed: Some(false),
        ..DocumentOptions::default()
    };
    let top = sim.page_with("top", "https://a.test/", options);
    register(&mut sim, top, "top", "r", &tool("t", ""), "");
    assert_eq!(sim.state_of("r"), "fulfilled");
    assert_eq!(sim.tools(top), vec!["t"]);
}

#[test]
fn register_tool_step_4_a_cross_origin_iframe_needs_the_allow_attribute() {
    // (allow attribute, registration allowed)
    for (allow, allowed) in [
        (None, false),
        (Some("tools"), true),
        (Some("tools *"), true),
        (Some("tools 'self'"), false),
        (Some("tools https://b.test"), true),
        (Some("camera"), false),
    ] {
        let mut sim = Sim::new("spec");
        let top = sim.page("top", "https://a.test/");
        let child = match allow {
            None => sim.frame(top, "child", "https://b.test/"),
            Some(a) => sim.frame_allow(top, "child", "https://b.test/", a),
        };
        register(&mut sim, child, "child", "r", &tool("t", ""), "");
        if allowed {
            assert_eq!(sim.state_of("r"), "fulfilled", "{allow:?}");
            assert_eq!(sim.tools(child), vec!["t"], "{allow:?}");
        } else {
            assert_eq!(sim.rejection_of("r"), "NotAllowedError", "{allow:?}");
            assert!(sim.tools(child).is_empty(), "{allow:?}");
        }
    }
}

#[test]
fn register_tool_step_4_a_same_origin_iframe_is_allowed_by_the_default_allowlist() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    register(&mut sim, child, "child", "r", &tool("t", ""), "");
    assert_eq!(sim.state_of("r"), "fulfilled");
}

#[test]
fn register_tool_step_4_a_permissions_policy_header_can_disable_tools_for_the_page_and_its_frames()
{
    let mut sim = Sim::new("spec");
    let options = DocumentOptions {
        tools_policy: Some(Allowlist::Origins(vec![])),
        ..DocumentOptions::default()
    };
    let top = sim.page_with("top", "https://a.test/", options);
    let child = sim.frame(top, "child", "https://a.test/child.html");
    register(&mut sim, top, "top", "r1", &tool("t", ""), "");
    register(&mut sim, child, "child", "r2", &tool("t", ""), "");
    assert_eq!(sim.rejection_of("r1"), "NotAllowedError");
    assert_eq!(sim.rejection_of("r2"), "NotAllowedError");
}

#[test]
fn register_tool_step_4_a_nested_frame_inherits_the_policy_of_its_container() {
    // b.test is allowed in a.test; a grandchild of c.test inside b.test has no allow attribute,
    // so the default allowlist 'self' (b.test) leaves it out; one of b.test is in.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame_allow(top, "child", "https://b.test/", "tools");
    let same = sim.frame(child, "same", "https://b.test/inner.html");
    let other = sim.frame(child, "other", "https://c.test/");
    register(&mut sim, same, "same", "r1", &tool("t", ""), "");
    register(&mut sim, other, "other", "r2", &tool("t", ""), "");
    assert_eq!(sim.state_of("r1"), "fulfilled");
    assert_eq!(sim.rejection_of("r2"), "NotAllowedError");
}

#[test]
fn register_tool_step_8_rejects_a_duplicate_name_and_keeps_the_first_tool() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    register(
        &mut sim,
        top,
        "top",
        "r1",
        &tool("t", "title: \"first\""),
        "",
    );
    register(
        &mut sim,
        top,
        "top",
        "r2",
        &tool("t", "title: \"second\""),
        "",
    );
    assert_eq!(sim.state_of("r1"), "fulfilled");
    assert_eq!(sim.rejection_of("r2"), "InvalidStateError");
    assert_eq!(sim.tools(top), vec!["t"]);
    let observed = sim.observe_now(top);
    assert_eq!(
        observed.tool_map.unwrap()[0].tools[0].title.as_deref(),
        Some("first")
    );
}

#[test]
fn register_tool_step_8_a_name_is_free_again_once_unregistered() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(top, "ac = AbortController()");
    register(
        &mut sim,
        top,
        "top",
        "r1",
        &tool("t", ""),
        "{signal: ac.signal}",
    );
    sim.task(top, "ac.abort()");
    sim.run();
    register(&mut sim, top, "top", "r2", &tool("t", ""), "");
    assert_eq!(sim.state_of("r2"), "fulfilled");
    assert_eq!(sim.tools(top), vec!["t"]);
}

#[test]
fn register_tool_step_9_rejects_an_empty_name_and_step_10_an_empty_description() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    register(&mut sim, top, "top", "r1", &tool("", ""), "");
    assert_eq!(sim.rejection_of("r1"), "InvalidStateError");
    assert!(sim.reached(&REGISTER_TOOL, "9"));
    assert!(
        !sim.reached(&REGISTER_TOOL, "10"),
        "the name stops it at step 9"
    );
    register(
        &mut sim,
        top,
        "top",
        "r2",
        "{name: \"t\", description: \"\", execute: returns(1)}",
        "",
    );
    assert_eq!(sim.rejection_of("r2"), "InvalidStateError");
    assert!(sim.reached(&REGISTER_TOOL, "10"));
    assert!(!sim.reached(&REGISTER_TOOL, "11"));
    assert!(sim.tools(top).is_empty());
}

#[test]
fn register_tool_step_9_checks_the_name_before_step_10_checks_the_description() {
    // Both are wrong: the message names the name.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(
        top,
        "r = top.registerTool({name: \"a b\", description: \"\", execute: returns(1)})\non r rejected as e: log \"{e.name}: {e.message}\"",
    );
    sim.run();
    let logged = sim.logged();
    assert_eq!(logged.len(), 1);
    assert!(
        logged[0].starts_with("InvalidStateError: the tool's name"),
        "{logged:?}"
    );
    assert!(!sim.reached(&REGISTER_TOOL, "10"));
}

#[test]
fn register_tool_step_8_checks_for_a_duplicate_before_the_description() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    register(&mut sim, top, "top", "r1", &tool("t", ""), "");
    sim.task(
        top,
        "r2 = top.registerTool({name: \"t\", description: \"\", execute: returns(1)})\non r2 rejected as e: log \"{e.name}: {e.message}\"",
    );
    sim.run();
    assert_eq!(
        sim.logged(),
        vec!["InvalidStateError: a tool named \"t\" is already registered"]
    );
    assert_eq!(sim.tools(top), vec!["t"]);
}

#[test]
fn register_tool_webidl_conversion_rejects_a_missing_required_member_with_a_type_error() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    register(
        &mut sim,
        top,
        "top",
        "r1",
        "{name: \"t\", execute: returns(1)}",
        "",
    );
    register(
        &mut sim,
        top,
        "top",
        "r2",
        "{name: \"t\", description: \"d\"}",
        "",
    );
    register(
        &mut sim,
        top,
        "top",
        "r3",
        "{description: \"d\", execute: returns(1)}",
        "",
    );
    register(&mut sim, top, "top", "r4", "42", "");
    for r in ["r1", "r2", "r3", "r4"] {
        assert_eq!(sim.rejection_of(r), "TypeError", "{r}");
    }
    assert!(
        !sim.reached(&REGISTER_TOOL, "1"),
        "the method steps never began"
    );
}

#[test]
fn register_tool_step_9_checks_the_names_length_and_code_points() {
    let at_limit = "a".repeat(128);
    let over_limit = "a".repeat(129);
    for (name, accepted) in [
        ("A-z_0.9", true),
        (at_limit.as_str(), true),
        (over_limit.as_str(), false),
        ("has space", false),
        ("slash/name", false),
        ("naïve", false),
        ("emoji😀", false),
        ("colon:name", false),
    ] {
        let mut sim = Sim::new("spec");
        let top = sim.page("top", "https://a.test/");
        register(&mut sim, top, "top", "r", &tool(name, ""), "");
        if accepted {
            assert_eq!(sim.state_of("r"), "fulfilled", "{name:?}");
        } else {
            assert_eq!(sim.rejection_of("r"), "InvalidStateError", "{name:?}");
            assert!(sim.tools(top).is_empty(), "{name:?}");
        }
    }
}

#[test]
fn register_tool_step_12_rejects_an_input_schema_json_cannot_serialize() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    register(
        &mut sim,
        top,
        "top",
        "r1",
        &tool("t1", "inputSchema: Cyclic()"),
        "",
    );
    register(
        &mut sim,
        top,
        "top",
        "r2",
        &tool("t2", "inputSchema: ToJSONUndefined()"),
        "",
    );
    // Not an object at all: Web IDL's conversion rejects it before the method steps.
    register(
        &mut sim,
        top,
        "top",
        "r3",
        &tool("t3", "inputSchema: \"x\""),
        "",
    );
    assert_eq!(sim.rejection_of("r1"), "TypeError");
    assert_eq!(sim.rejection_of("r2"), "TypeError");
    assert_eq!(sim.rejection_of("r3"), "TypeError");
    assert!(sim.tools(top).is_empty());
}

#[test]
fn register_tool_step_12_stringifies_the_input_schema() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    register(
        &mut sim,
        top,
        "top",
        "r",
        &tool(
            "t",
            "inputSchema: {type: \"object\", properties: {q: {type: \"string\"}}, skip: undefined}",
        ),
        "",
    );
    register(&mut sim, top, "top", "r2", &tool("none", ""), "");
    let observed = sim.observe_now(top);
    let tools = &observed.tool_map.unwrap()[0].tools;
    assert_eq!(
        tools[0].input_schema,
        r#"{"type":"object","properties":{"q":{"type":"string"}}}"#
    );
    assert_eq!(tools[1].input_schema, "", "no schema: the empty string");
}

#[test]
fn register_tool_step_18_takes_the_hints_from_the_annotations() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    register(&mut sim, top, "top", "r1", &tool("plain", ""), "");
    register(
        &mut sim,
        top,
        "top",
        "r2",
        &tool("ro", "annotations: {readOnlyHint: true}"),
        "",
    );
    register(
        &mut sim,
        top,
        "top",
        "r3",
        &tool(
            "untrusted",
            "annotations: {untrustedContentHint: 1, readOnlyHint: 0}",
        ),
        "",
    );
    let observed = sim.observe_now(top);
    let hints: Vec<(String, bool, bool)> = observed.tool_map.unwrap()[0]
        .tools
        .iter()
        .map(|t| {
            let a = t.annotations.unwrap_or_default();
            (t.name.clone(), a.read_only_hint, a.untrusted_content_hint)
        })
        .collect();
    assert_eq!(
        hints,
        vec![
            ("plain".to_string(), false, false),
            ("ro".to_string(), true, false),
            ("untrusted".to_string(), false, true),
        ]
    );
}

#[test]
fn register_tool_step_13_rejects_with_the_reason_of_an_already_aborted_signal() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    register(
        &mut sim,
        top,
        "top",
        "r1",
        &tool("t1", ""),
        "{signal: AbortSignal.abort(\"why\")}",
    );
    register(
        &mut sim,
        top,
        "top",
        "r2",
        &tool("t2", ""),
        "{signal: AbortSignal.abort()}",
    );
    assert_eq!(sim.rejection_of("r1"), "why");
    assert_eq!(sim.rejection_of("r2"), "AbortError");
    assert!(sim.tools(top).is_empty());
    assert!(sim.reached(&REGISTER_TOOL, "13"));
    assert!(!sim.reached(&REGISTER_TOOL, "16"), "no promise of its own");
    assert!(!sim.reached(&REGISTER_TOOL, "17"));
}

#[test]
fn register_tool_step_13_an_aborted_signal_is_reported_before_step_15_checks_exposed_to() {
    // Both the signal and an exposedTo entry would reject: the abort reason wins.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    register(
        &mut sim,
        top,
        "top",
        "r",
        &tool("t", ""),
        "{signal: AbortSignal.abort(\"why\"), exposedTo: [\"http://insecure.test\"]}",
    );
    assert_eq!(sim.rejection_of("r"), "why");
    assert!(!sim.reached(&REGISTER_TOOL, "15"));
}

#[test]
fn register_tool_step_12_an_unserializable_schema_is_reported_before_step_13_checks_the_signal() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    register(
        &mut sim,
        top,
        "top",
        "r",
        &tool("t", "inputSchema: Cyclic()"),
        "{signal: AbortSignal.abort(\"why\")}",
    );
    assert_eq!(sim.rejection_of("r"), "TypeError");
    assert!(!sim.reached(&REGISTER_TOOL, "13"));
}

#[test]
fn register_tool_step_17_3_aborting_in_the_same_task_unregisters_and_rejects() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(
        top,
        &format!(
            "ac = AbortController()\nr = top.registerTool({}, {{signal: ac.signal}})\nac.abort(\"stop\")",
            tool("t", "")
        ),
    );
    sim.run();
    assert_eq!(sim.rejection_of("r"), "stop");
    assert!(sim.tools(top).is_empty());
    for step in ["17", "17.1", "17.2", "17.3", "17.3.1", "17.3.2"] {
        assert!(sim.reached(&REGISTER_TOOL, step), "step {step}");
    }
    assert!(sim.reached(&UNREGISTER_A_TOOL, "5"));
}

#[test]
fn register_tool_step_17_3_aborting_later_unregisters_but_the_promise_stays_fulfilled() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(top, "ac = AbortController()");
    register(
        &mut sim,
        top,
        "top",
        "r",
        &tool("t", ""),
        "{signal: ac.signal}",
    );
    assert_eq!(sim.state_of("r"), "fulfilled");
    sim.task(top, "ac.abort()");
    sim.run();
    assert!(sim.tools(top).is_empty());
    assert_eq!(
        sim.state_of("r"),
        "fulfilled",
        "rejecting a resolved promise does nothing"
    );
}

#[test]
fn register_tool_step_17_3_a_registration_rejected_at_step_15_leaves_nothing_on_its_signal() {
    // The abort steps are added only after every check that can reject (the exposedTo checks
    // of step 15 included): aborting the signal of a rejected registration later leaves alone
    // the tool registered under the same name since. Every profile follows the text here.
    for name in ["spec", "literal", "chromium-pr373"] {
        let mut sim = Sim::new(name);
        let top = sim.page("top", "https://a.test/");
        sim.task(top, "ac = AbortController()");
        register(
            &mut sim,
            top,
            "top",
            "r1",
            &tool("t", ""),
            "{signal: ac.signal, exposedTo: [\"http://insecure.test\"]}",
        );
        assert_eq!(sim.rejection_of("r1"), "SecurityError", "{name}");
        assert!(!sim.reached(&REGISTER_TOOL, "17"), "{name}");
        register(&mut sim, top, "top", "r2", &tool("t", ""), "");
        sim.task(top, "ac.abort()");
        sim.run();
        assert_eq!(sim.tools(top), vec!["t"], "{name}");
        assert!(!sim.reached(&UNREGISTER_A_TOOL, "1"), "{name}");
        // A successful registration does get its abort steps.
        sim.task(top, "ac2 = AbortController()");
        register(
            &mut sim,
            top,
            "top",
            "r3",
            &tool("u", ""),
            "{signal: ac2.signal}",
        );
        sim.task(top, "ac2.abort()");
        sim.run();
        assert_eq!(
            sim.tools(top),
            vec!["t"],
            "{name}: u was unregistered by its abort steps"
        );
    }
}

#[test]
fn register_tool_step_15_1_2_exposed_to_entries_must_parse_to_potentially_trustworthy_origins() {
    for (entry, accepted) in [
        ("https://b.test", true),
        ("https://b.test/some/path?q=1", true),
        ("wss://b.test", true),
        ("http://localhost:8080", true),
        ("http://app.localhost", true),
        ("http://127.0.0.1", true),
        ("http://[::1]:3000", true),
        ("http://b.test", false),
        ("not a url", false),
        ("b.test", false),
        ("data:text/plain,x", false),
        ("", false),
    ] {
        let mut sim = Sim::new("spec");
        let top = sim.page("top", "https://a.test/");
        register(
            &mut sim,
            top,
            "top",
            "r",
            &tool("t", ""),
            &format!("{{exposedTo: [\"https://ok.test\", {entry:?}]}}"),
        );
        if accepted {
            assert_eq!(sim.state_of("r"), "fulfilled", "{entry:?}");
        } else {
            assert_eq!(sim.rejection_of("r"), "SecurityError", "{entry:?}");
            assert!(sim.tools(top).is_empty(), "{entry:?}");
        }
    }
}

#[test]
fn register_tool_webidl_conversion_exposed_to_must_be_a_sequence() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    register(
        &mut sim,
        top,
        "top",
        "r",
        &tool("t", ""),
        "{exposedTo: \"https://b.test\"}",
    );
    assert_eq!(sim.rejection_of("r"), "TypeError");
}

#[test]
fn register_tool_step_15_1_3_exposes_the_tool_to_the_origin_of_each_entry() {
    // A path or query in the entry does not matter: its origin does.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame_allow(top, "child", "https://b.test/", "tools");
    register(
        &mut sim,
        top,
        "top",
        "r1",
        &tool("shared", ""),
        "{exposedTo: [\"https://b.test/any/path\"]}",
    );
    register(&mut sim, top, "top", "r2", &tool("private", ""), "");
    sim.task(
        child,
        "tools = await child.getTools({fromOrigins: [\"https://a.test\"]})\nlog \"{tools.length} {tools[0].name}\"",
    );
    sim.run();
    assert_eq!(sim.logged(), vec!["1 shared"]);
    for step in ["15", "15.1", "15.1.1", "15.1.2", "15.1.3"] {
        assert!(sim.reached(&REGISTER_TOOL, step), "step {step}");
    }
}

#[test]
fn register_tool_step_20_1_notifies_toolchange_once_per_call_or_once_per_task() {
    for (name, events) in [("spec", 2), ("coalesced-registry", 1)] {
        let mut sim = Sim::new(name);
        let top = sim.page("top", "https://a.test/");
        sim.task(top, "on top toolchange: log \"toolchange\"");
        sim.task(
            top,
            &format!(
                "top.registerTool({})\ntop.registerTool({})",
                tool("a", ""),
                tool("b", "")
            ),
        );
        sim.run();
        assert_eq!(sim.logged().len(), events, "{name}: {:?}", sim.logged());
        assert_eq!(sim.tools(top), vec!["a", "b"], "{name}");
    }
}
