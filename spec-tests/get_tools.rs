//! `getTools(options)`: which tools an in-page agent is given, and in what form.
//!
//! <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-gettools>
//!
//! Steps as the text numbers them: 1-2 the tool requestor; 3 fully active; 4 allowed to use
//! "tools"; 5-6 from origins (6.1.1 URL parser, 6.1.2 failure or an origin that is not
//! potentially trustworthy: SecurityError, 6.1.3 append); 7 the promise; 8 in parallel: 8.1 the
//! list, 8.2 the inclusive descendant navigables of the requestor's traversable's active
//! document, 8.3 for each: 8.3.1 its active document, 8.3.2 skip one not allowed to use
//! "tools", 8.3.3-8.3.4 the two origins, 8.3.5-8.3.6 skip an owner that is neither same origin
//! with the requestor nor one of from origins, 8.3.7 its tool map, 8.3.8 for each tool: 8.3.8.1
//! skip one not exposed to the requestor, 8.3.8.2 the RegisteredTool, 8.3.8.3 append; 8.4 sort
//! by name in code unit order; 8.5 resolve from a webmcp task; 9 return. The follow-up PR #373
//! defers (gettools-waits=yes) waits for tools to be ready first (its step 8.0).

use crate::common;

use common::{tool, Sim};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::{GET_TOOLS, GET_TOOLS_WAITS};
use webmcp_ref::{DocumentKey, Facet, Value};

/// Calls `getTools(options)` from a task of `doc` and returns the names of the tools it gave.
fn get_tools(sim: &mut Sim, doc: DocumentKey, options: &str) -> Vec<String> {
    let label = sim.label(doc);
    sim.task(doc, &format!("tools = await {label}.getTools({options})"));
    sim.run();
    names(&sim.value("tools"))
}

/// The names of a list of RegisteredTools.
fn names(tools: &Value) -> Vec<String> {
    match tools {
        Value::Array(items) => items
            .iter()
            .map(|t| match t.get("name") {
                Some(Value::String(s)) => s.clone(),
                other => panic!("a RegisteredTool without a name: {other:?}"),
            })
            .collect(),
        other => panic!("getTools() gave {other:?}"),
    }
}

/// top (a.test) with tool `top_tool`; `same` (a.test) with `same_tool`; `other` (b.test,
/// allow="tools") with `exposed` (exposed to a.test) and `hidden` (not exposed).
fn tree(sim: &mut Sim) -> [DocumentKey; 3] {
    let top = sim.page("top", "https://a.test/");
    let same = sim.frame(top, "same", "https://a.test/same.html");
    let other = sim.frame_allow(top, "other", "https://b.test/", "tools");
    sim.task(top, &format!("top.registerTool({})", tool("top_tool", "")));
    sim.task(
        same,
        &format!("same.registerTool({})", tool("same_tool", "")),
    );
    sim.task(
        other,
        &format!(
            "other.registerTool({}, {{exposedTo: [\"https://a.test\"]}})\nother.registerTool({})",
            tool("exposed", ""),
            tool("hidden", "")
        ),
    );
    sim.run();
    [top, same, other]
}

#[test]
fn get_tools_step_3_rejects_a_caller_that_is_not_fully_active() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.frame(top, "child", "https://a.test/child.html");
    sim.task(top, "remove child\nr = child.getTools()");
    sim.run();
    assert_eq!(sim.rejection_of("r"), "InvalidStateError");
    assert!(!sim.reached(&GET_TOOLS, "4"));
}

#[test]
fn get_tools_step_4_rejects_a_caller_not_allowed_to_use_tools() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://b.test/");
    sim.task(child, "r = child.getTools()");
    sim.run();
    assert_eq!(sim.rejection_of("r"), "NotAllowedError");
    assert!(!sim.reached(&GET_TOOLS, "5"));
}

#[test]
fn get_tools_webidl_conversion_from_origins_must_be_a_sequence() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(top, "r1 = top.getTools({fromOrigins: \"https://a.test\"})");
    sim.task(top, "r2 = top.getTools(42)");
    sim.run();
    assert_eq!(sim.rejection_of("r1"), "TypeError");
    assert_eq!(sim.rejection_of("r2"), "TypeError");
    assert!(
        !sim.reached(&GET_TOOLS, "1"),
        "the method steps never began"
    );
}

#[test]
fn get_tools_step_6_1_2_from_origins_entries_must_parse_to_potentially_trustworthy_origins() {
    for (entry, accepted) in [
        ("https://b.test", true),
        ("https://b.test/some/path?q=1", true),
        ("wss://b.test", true),
        ("http://localhost:8080", true),
        ("http://127.0.0.1", true),
        ("http://b.test", false),
        ("not a url", false),
        ("b.test", false),
        ("data:text/plain,x", false),
        ("", false),
    ] {
        let mut sim = Sim::new("spec");
        let top = sim.page("top", "https://a.test/");
        sim.task(
            top,
            &format!("r = top.getTools({{fromOrigins: [\"https://ok.test\", {entry:?}]}})"),
        );
        sim.run();
        if accepted {
            assert_eq!(sim.state_of("r"), "fulfilled", "{entry:?}");
            assert!(sim.reached(&GET_TOOLS, "6.1.3"), "{entry:?}");
        } else {
            assert_eq!(sim.rejection_of("r"), "SecurityError", "{entry:?}");
            assert!(!sim.reached(&GET_TOOLS, "7"), "{entry:?}");
        }
    }
}

#[test]
fn get_tools_step_8_3_5_the_callers_own_origin_is_always_asked_for() {
    let mut sim = Sim::new("spec");
    let [top, same, other] = tree(&mut sim);
    assert_eq!(get_tools(&mut sim, top, ""), vec!["same_tool", "top_tool"]);
    assert_eq!(
        get_tools(&mut sim, same, "{}"),
        vec!["same_tool", "top_tool"]
    );
    assert_eq!(
        get_tools(&mut sim, top, "{fromOrigins: []}"),
        vec!["same_tool", "top_tool"]
    );
    // b.test's own tools, exposed or not; a.test's are not exposed to it.
    assert_eq!(
        get_tools(&mut sim, other, "{fromOrigins: [\"https://a.test\"]}"),
        vec!["exposed", "hidden"]
    );
    assert!(sim.reached(&GET_TOOLS, "8.3.6"));
}

#[test]
fn get_tools_step_8_3_8_1_from_origins_adds_the_tools_other_origins_expose_to_the_caller() {
    let mut sim = Sim::new("spec");
    let [top, ..] = tree(&mut sim);
    assert_eq!(
        get_tools(&mut sim, top, "{fromOrigins: [\"https://b.test/x\"]}"),
        vec!["exposed", "same_tool", "top_tool"],
        "hidden is not exposed to a.test"
    );
    assert_eq!(
        get_tools(
            &mut sim,
            top,
            "{fromOrigins: [\"https://a.test\", \"https://b.test\"]}"
        ),
        vec!["exposed", "same_tool", "top_tool"]
    );
    assert!(sim.reached(&GET_TOOLS, "8.3.8.1"));
}

#[test]
fn get_tools_step_8_3_8_2_a_registered_tool_carries_its_definition_window_and_origin() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let other = sim.frame_allow(top, "other", "https://b.test/", "tools");
    sim.task(
        other,
        &format!(
            "other.registerTool({}, {{exposedTo: [\"https://a.test\"]}})",
            tool(
                "t",
                "title: \"T\", inputSchema: {type: \"object\", properties: {q: {type: \"string\"}}}, annotations: {readOnlyHint: true}"
            )
        ),
    );
    sim.run();
    get_tools(&mut sim, top, "{fromOrigins: [\"https://b.test\"]}");
    let Value::Array(items) = sim.value("tools") else {
        panic!("not an array")
    };
    let t = &items[0];
    assert_eq!(t.get("name"), Some(&Value::string("t")));
    assert_eq!(t.get("title"), Some(&Value::string("T")));
    assert_eq!(t.get("description"), Some(&Value::string("d")));
    // The stored string is parsed back: the caller gets an object, not JSON text.
    let schema = t.get("inputSchema").expect("an input schema");
    assert!(matches!(schema, Value::Object(_)), "{schema:?}");
    assert_eq!(schema.get("type"), Some(&Value::string("object")));
    assert_eq!(
        schema
            .get("properties")
            .and_then(|p| p.get("q"))
            .and_then(|q| q.get("type")),
        Some(&Value::string("string"))
    );
    assert_eq!(t.get("window"), Some(&Value::Window(other, Facet::Window)));
    assert_eq!(t.get("origin"), Some(&Value::string("https://b.test")));
    let annotations = t.get("annotations").unwrap();
    assert_eq!(annotations.get("readOnlyHint"), Some(&Value::Bool(true)));
    assert_eq!(
        annotations.get("untrustedContentHint"),
        Some(&Value::Bool(false))
    );
    assert_eq!(
        annotations.get("consequentialHint"),
        Some(&Value::Bool(false))
    );
    assert_eq!(annotations.get("debugging"), Some(&Value::Bool(false)));
}

#[test]
fn get_tools_step_8_3_8_2_no_title_is_the_empty_string_and_no_schema_or_annotations_are_left_out() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(top, &format!("top.registerTool({})", tool("t", "")));
    sim.run();
    sim.task(
        top,
        "tools = await top.getTools()\nlog \"[{tools[0].title}] {tools[0].inputSchema} {tools[0].annotations}\"",
    );
    sim.run();
    assert_eq!(sim.logged(), vec!["[] undefined undefined"]);
    let Value::Array(items) = sim.value("tools") else {
        panic!("not an array")
    };
    assert_eq!(items[0].get("title"), Some(&Value::string("")));
    assert_eq!(items[0].get("inputSchema"), None);
    assert_eq!(items[0].get("annotations"), None);
}

#[test]
fn get_tools_step_8_4_sorts_by_name_in_code_unit_order_across_documents() {
    // Tool names are ASCII only (registerTool() step 9), so code unit order and code point
    // order cannot differ for them (no name can hold U+FF5E or a character beyond U+FFFF):
    // this is plain ASCII order, digits before upper case before "_" before lower case, and
    // the documents' tree order does not matter.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    sim.task(
        top,
        &format!(
            "top.registerTool({})\ntop.registerTool({})\ntop.registerTool({})\ntop.registerTool({})",
            tool("b", ""),
            tool("a_b", ""),
            tool("Z9", ""),
            tool("a.b", "")
        ),
    );
    sim.task(
        child,
        &format!(
            "child.registerTool({})\nchild.registerTool({})\nchild.registerTool({})\nchild.registerTool({})",
            tool("ab", ""),
            tool("9z", ""),
            tool("a-b", ""),
            tool("B", "")
        ),
    );
    sim.run();
    assert_eq!(
        get_tools(&mut sim, top, ""),
        vec!["9z", "B", "Z9", "a-b", "a.b", "a_b", "ab", "b"]
    );
    assert!(sim.reached(&GET_TOOLS, "8.4"));
}

#[test]
fn get_tools_step_8_collects_the_tools_after_the_calling_task_and_at_call_when_called() {
    // In one task: getTools(), then a tool registered and another unregistered. The text
    // collects in parallel, after the task; Chromium 156 (gettools-snapshot=at-call) when
    // getTools() is called.
    for (switch, expected) in [
        ("in-parallel", vec!["kept", "late"]),
        ("at-call", vec!["gone", "kept"]),
    ] {
        let mut sim = Sim::with("spec", &[("gettools-snapshot", switch)]);
        let top = sim.page("top", "https://a.test/");
        sim.task(
            top,
            &format!(
                "ac = AbortController()\ntop.registerTool({}, {{signal: ac.signal}})\ntop.registerTool({})",
                tool("gone", ""),
                tool("kept", "")
            ),
        );
        sim.run();
        sim.task(
            top,
            &format!(
                "r = top.getTools()\ntop.registerTool({})\nac.abort()",
                tool("late", "")
            ),
        );
        assert!(sim.step(), "the task");
        assert_eq!(
            sim.state_of("r"),
            "pending",
            "{switch}: answered from a task"
        );
        sim.run();
        assert_eq!(
            names(&sim.fulfilled_value(sim.promise_named("r"))),
            expected,
            "{switch}"
        );
        assert!(sim.reached(&GET_TOOLS, "8.5"), "{switch}");
    }
}

#[test]
fn get_tools_step_8_0_waits_for_tools_to_be_ready_only_under_gettools_waits() {
    for (name, answers_at) in [("spec", 0), ("gettools-waits", 800)] {
        let mut sim = Sim::new(name);
        let top = sim.page("top", "https://a.test/");
        sim.promise_in(top, "p");
        sim.task(
            top,
            "top.waitForToolsUntil(p)\nr = top.getTools()\non r fulfilled as tools: log \"{tools.length}\"",
        );
        sim.run_for(800);
        sim.task(
            top,
            &format!(
                "await top.registerTool({})\nresolve p with 1",
                tool("late", "")
            ),
        );
        sim.run();
        let logged = sim.logged_at();
        assert_eq!(logged.len(), 1, "{name}");
        assert_eq!(logged[0].1, answers_at, "{name}");
        // Answering at once, getTools() misses the tool that was about to be registered.
        let expected = if name == "spec" { "0" } else { "1" };
        assert_eq!(logged[0].0, expected, "{name}");
        assert_eq!(
            sim.reached(&GET_TOOLS_WAITS, "8.0"),
            name == "gettools-waits",
            "{name}"
        );
    }
}

#[test]
fn get_tools_step_8_2_a_requestor_that_left_its_navigable_is_a_finding_as_written() {
    // getTools() is called, and before its in-parallel steps run the page navigates, its
    // document kept in the bfcache, then comes back. As written, step 8.2's "node navigable"
    // of the requestor does not exist when it runs: a finding. As intended, the navigable it
    // was last in stands for it, and the tools of that traversable's active document are
    // collected: the page navigated to, which has none (`old` is not listed). Either way the
    // answer comes once the page is restored; as written the collection has no navigables.
    for (name, finding) in [("spec", false), ("literal", true)] {
        let mut sim = Sim::new(name);
        let top = sim.page("top", "https://a.test/");
        sim.task(top, &format!("top.registerTool({})", tool("old", "")));
        sim.run();
        sim.task(top, "r = top.getTools()");
        assert!(sim.step(), "the task");
        let next = sim
            .w
            .navigate(top, "https://a.test/next", "next", true)
            .unwrap();
        sim.run();
        assert_eq!(
            sim.findings_at()
                .contains(&("dom-modelcontext-gettools".to_string(), "8.2".to_string())),
            finding,
            "{name}: {:?}",
            sim.findings_at()
        );
        assert_eq!(
            sim.state_of("r"),
            "pending",
            "{name}: top is in the bfcache"
        );
        sim.w.go_back(next).unwrap();
        sim.run();
        let r = sim.promise_named("r");
        assert_eq!(sim.state(r), "fulfilled", "{name}");
        assert!(names(&sim.fulfilled_value(r)).is_empty(), "{name}");
    }
}
