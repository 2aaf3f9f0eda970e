//! `getTools({fromOrigins})`: in the IDL and WPT, without algorithm text; the engine's steps.
//!
//! Steps as the engine numbers them: 1 the caller; 2 fully active; 3 allowed to use "tools";
//! 4 fromOrigins (default: the caller's own origin; an entry that is not a URL is a TypeError);
//! 5 the promise; 7 in parallel: 7.1 (gettools-waits=yes) wait for tools to be ready, 7.2
//! collect every tool of the caller's tree whose owner is allowed to use "tools", is of one of
//! fromOrigins, and which is visible to the caller, 7.3 resolve from a webmcp task.

use crate::common;

use common::{tool, Sim};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::GET_TOOLS;
use webmcp_ref::{DocumentKey, Value};

/// Calls `getTools(options)` from a task of `doc` and returns the names of the tools it gave.
fn get_tools(sim: &mut Sim, doc: DocumentKey, options: &str) -> Vec<String> {
    let label = sim.label(doc);
    sim.task(doc, &format!("tools = await {label}.getTools({options})"));
    sim.run();
    match sim.value("tools") {
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
fn get_tools_step_4_by_default_lists_the_tools_of_the_callers_own_origin_in_tree_order() {
    let mut sim = Sim::new("spec");
    let [top, same, other] = tree(&mut sim);
    assert_eq!(get_tools(&mut sim, top, ""), vec!["top_tool", "same_tool"]);
    assert_eq!(
        get_tools(&mut sim, same, "{}"),
        vec!["top_tool", "same_tool"]
    );
    assert_eq!(get_tools(&mut sim, other, ""), vec!["exposed", "hidden"]);
}

#[test]
fn get_tools_step_7_2_from_origins_names_other_origins_whose_tools_are_visible() {
    let mut sim = Sim::new("spec");
    let [top, _, other] = tree(&mut sim);
    assert_eq!(
        get_tools(&mut sim, top, "{fromOrigins: [\"https://b.test\"]}"),
        vec!["exposed"],
        "hidden is not exposed to a.test"
    );
    assert_eq!(
        get_tools(
            &mut sim,
            top,
            "{fromOrigins: [\"https://a.test\", \"https://b.test/x\"]}"
        ),
        vec!["top_tool", "same_tool", "exposed"]
    );
    // b.test asking for a.test's tools: none of them is exposed to it.
    assert!(get_tools(&mut sim, other, "{fromOrigins: [\"https://a.test\"]}").is_empty());
    assert!(get_tools(&mut sim, top, "{fromOrigins: []}").is_empty());
    assert!(sim.reached(&GET_TOOLS, "7.2"));
    assert!(sim.reached(&GET_TOOLS, "7.3"));
}

#[test]
fn get_tools_step_4_rejects_a_from_origins_entry_that_is_not_a_url() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(
        top,
        "r = top.getTools({fromOrigins: [\"https://a.test\", \"not a url\"]})",
    );
    sim.task(top, "r2 = top.getTools({fromOrigins: \"https://a.test\"})");
    sim.task(top, "r3 = top.getTools(42)");
    sim.run();
    assert_eq!(sim.rejection_of("r"), "TypeError");
    assert_eq!(sim.rejection_of("r2"), "TypeError");
    assert_eq!(sim.rejection_of("r3"), "TypeError");
}

#[test]
fn get_tools_step_7_2_a_registered_tool_carries_its_definition_window_and_origin() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let other = sim.frame_allow(top, "other", "https://b.test/", "tools");
    sim.task(
        other,
        &format!(
            "other.registerTool({}, {{exposedTo: [\"https://a.test\"]}})",
            tool(
                "t",
                "title: \"T\", inputSchema: {type: \"object\"}, annotations: {readOnlyHint: true}"
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
    assert_eq!(
        t.get("inputSchema"),
        Some(&Value::string(r#"{"type":"object"}"#))
    );
    assert_eq!(t.get("window"), Some(&Value::Window(other)));
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
fn get_tools_step_7_2_a_tool_without_schema_or_annotations_omits_them() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.task(top, &format!("top.registerTool({})", tool("t", "")));
    sim.run();
    get_tools(&mut sim, top, "");
    let Value::Array(items) = sim.value("tools") else {
        panic!("not an array")
    };
    assert_eq!(items[0].get("inputSchema"), None);
    assert_eq!(items[0].get("annotations"), None);
    assert_eq!(items[0].get("title"), None);
}

#[test]
fn get_tools_step_2_rejects_a_caller_that_is_not_fully_active() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.frame(top, "child", "https://a.test/child.html");
    sim.task(top, "remove child\nr = child.getTools()");
    sim.run();
    assert_eq!(sim.rejection_of("r"), "InvalidStateError");
}

#[test]
fn get_tools_step_3_rejects_a_caller_not_allowed_to_use_tools() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://b.test/");
    sim.task(child, "r = child.getTools()");
    sim.run();
    assert_eq!(sim.rejection_of("r"), "NotAllowedError");
}

#[test]
fn get_tools_step_7_1_waits_for_tools_to_be_ready_only_under_gettools_waits() {
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
            sim.reached(&GET_TOOLS, "7.1"),
            name == "gettools-waits",
            "{name}"
        );
    }
}
