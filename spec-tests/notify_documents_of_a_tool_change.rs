//! Notify documents of a tool change (the `toolchange` fan-out), with tool is exposed to an
//! origin.
//!
//! <https://webmachinelearning.github.io/webmcp/#notify-documents-of-a-tool-change>,
//! <https://webmachinelearning.github.io/webmcp/#tool-is-exposed-to-an-origin>
//!
//! Notify: 1 assert: in parallel; 2 the inclusive descendant navigables of the active document
//! of the tool owner's node navigable's traversable (the top-level document included; a tool
//! owner that is no longer active has no node navigable: text-reading); 3 for each: 3.1 its
//! active document, 3.2 skip one not allowed to use "tools", 3.3 if the tool is exposed to its
//! origin, queue a webmcp task to fire `toolchange`. Exposed: 1 same origin; 2 (2.1) one of the
//! exposed origins; 3 otherwise not.

use crate::common;

use common::{tool, Sim};
use url::Url;
use webmcp_ref::host::origin::Origin;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::{NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE, TOOL_IS_EXPOSED_TO_AN_ORIGIN};
use webmcp_ref::DocumentKey;

/// A toolchange listener of `doc` that logs "LABEL toolchange".
fn listen(sim: &mut Sim, doc: DocumentKey) {
    let label = sim.label(doc);
    sim.task(
        doc,
        &format!("on {label} toolchange: log \"{label} toolchange\""),
    );
}

/// top (a.test) with a same-origin `same`, a cross-origin `allowed` (b.test, allow="tools") and
/// a cross-origin `denied` (c.test, no allow attribute), each listening for toolchange.
fn tree(sim: &mut Sim) -> [DocumentKey; 4] {
    let top = sim.page("top", "https://a.test/");
    let same = sim.frame(top, "same", "https://a.test/same.html");
    let allowed = sim.frame_allow(top, "allowed", "https://b.test/", "tools");
    let denied = sim.frame(top, "denied", "https://c.test/");
    for d in [top, same, allowed, denied] {
        listen(sim, d);
    }
    sim.run();
    [top, same, allowed, denied]
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn origin(s: &str) -> Origin {
    let mut n = 0;
    Origin::of_url(&Url::parse(s).unwrap(), &mut n)
}

#[test]
fn notify_documents_of_a_tool_change_step_3_3_same_origin_documents_are_notified() {
    let mut sim = Sim::new("spec");
    let [top, ..] = tree(&mut sim);
    sim.task(top, &format!("top.registerTool({})", tool("t", "")));
    sim.run();
    assert_eq!(
        sorted(sim.logged()),
        vec!["same toolchange", "top toolchange"]
    );
    assert!(
        sim.findings().is_empty(),
        "step 1's assertion holds: {:?}",
        sim.findings()
    );
}

#[test]
fn notify_documents_of_a_tool_change_step_3_3_an_allowed_cross_origin_document_hears_only_exposed_tools(
) {
    let mut sim = Sim::new("spec");
    let [top, ..] = tree(&mut sim);
    sim.task(
        top,
        &format!(
            "top.registerTool({}, {{exposedTo: [\"https://b.test\", \"https://c.test\"]}})",
            tool("t", "")
        ),
    );
    sim.run();
    // c.test is exposed to, but not allowed to use "tools" (step 3.2).
    assert_eq!(
        sorted(sim.logged()),
        vec!["allowed toolchange", "same toolchange", "top toolchange"]
    );
    assert!(sim.reached(&NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE, "3.2"));
    assert!(sim
        .trace_text()
        .contains("not allowed to use \"tools\": skipped"));
}

#[test]
fn notify_documents_of_a_tool_change_step_3_2_a_document_not_allowed_to_use_tools_is_skipped() {
    let mut sim = Sim::new("spec");
    let [top, ..] = tree(&mut sim);
    sim.task(
        top,
        &format!(
            "top.registerTool({}, {{exposedTo: [\"https://c.test\"]}})",
            tool("t", "")
        ),
    );
    sim.run();
    assert!(!sim.logged().contains(&"denied toolchange".to_string()));
}

#[test]
fn notify_documents_of_a_tool_change_step_3_3_a_cross_origin_childs_tool_reaches_the_parent_only_if_exposed(
) {
    for (exposed, parent_hears) in [("[\"https://a.test\"]", true), ("[]", false)] {
        let mut sim = Sim::new("spec");
        let [_, _, allowed, _] = tree(&mut sim);
        sim.task(
            allowed,
            &format!(
                "allowed.registerTool({}, {{exposedTo: {exposed}}})",
                tool("t", "")
            ),
        );
        sim.run();
        let mut expected = vec!["allowed toolchange"];
        if parent_hears {
            expected.extend(["same toolchange", "top toolchange"]);
        }
        assert_eq!(sorted(sim.logged()), expected, "exposedTo {exposed}");
    }
}

#[test]
fn notify_documents_of_a_tool_change_step_2_the_top_level_document_is_notified_as_written_too() {
    // "Inclusive" descendant navigables of the traversable's active document: the top-level
    // document is one of them, word for word as well.
    for name in ["spec", "literal"] {
        let mut sim = Sim::new(name);
        let [_, same, ..] = tree(&mut sim);
        sim.task(same, &format!("same.registerTool({})", tool("t", "")));
        sim.run();
        assert_eq!(
            sorted(sim.logged()),
            vec!["same toolchange", "top toolchange"],
            "{name}"
        );
        assert!(sim.findings().is_empty(), "{name}: {:?}", sim.findings());
    }
}

#[test]
fn notify_documents_of_a_tool_change_step_2_a_tool_owner_removed_before_it_runs_is_a_finding_as_written(
) {
    // The iframe registers a tool and is removed in the same task: when the in-parallel steps
    // run, the tool owner has no node navigable. As intended, the traversable it was last in
    // stands for it, and the rest of the page hears the change; as written, a finding, and no
    // one is notified.
    for (name, heard) in [("spec", true), ("literal", false)] {
        let mut sim = Sim::new(name);
        let [top, ..] = tree(&mut sim);
        sim.task(
            top,
            &format!("same.registerTool({})\nremove same", tool("t", "")),
        );
        sim.run();
        let expected: Vec<String> = if heard {
            vec!["top toolchange".into()]
        } else {
            vec![]
        };
        assert_eq!(sim.logged(), expected, "{name}");
        let finding = (
            "notify-documents-of-a-tool-change".to_string(),
            "2".to_string(),
        );
        assert_eq!(
            sim.findings_at(),
            if heard { vec![] } else { vec![finding] },
            "{name}"
        );
    }
}

#[test]
fn notify_documents_of_a_tool_change_step_3_3_fires_a_plain_event_or_a_ready_toolchange_event() {
    for (name, expected) in [
        ("spec", "Event undefined true"),
        ("pr373-r1", "ToolChangeEvent true true"),
    ] {
        let mut sim = Sim::new(name);
        let top = sim.page("top", "https://a.test/");
        sim.task(
            top,
            "on top toolchange: log \"{event.interface} {event.ready} {event.isTrusted}\"",
        );
        sim.task(top, &format!("top.registerTool({})", tool("t", "")));
        sim.run();
        assert_eq!(sim.logged(), vec![expected], "{name}");
    }
}

#[test]
fn notify_documents_of_a_tool_change_task_order_of_the_spec_example() {
    // The example under the algorithm: the parent's toolchange, then the child's, then the
    // registration promise; a timer task queued in the same task may land anywhere.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.frame(top, "child", "https://a.test/child.html");
    sim.task(
        top,
        &format!(
            "set top.ontoolchange:\n  log \"Parent toolchange\"\nset child.ontoolchange:\n  log \"Child toolchange\"\np = top.registerTool({})\non p fulfilled: log \"Register promise resolved\"\nafter 0ms: log \"Post-register task\"",
            tool("tool_name", "")
        ),
    );
    sim.run();
    let ordered: Vec<String> = sim
        .logged()
        .into_iter()
        .filter(|l| l != "Post-register task")
        .collect();
    assert_eq!(
        ordered,
        vec![
            "Parent toolchange",
            "Child toolchange",
            "Register promise resolved"
        ]
    );
    assert!(sim.logged().contains(&"Post-register task".to_string()));
}

#[test]
fn notify_documents_of_a_tool_change_step_3_1_a_removed_iframe_is_not_notified() {
    let mut sim = Sim::new("spec");
    let [top, same, ..] = tree(&mut sim);
    sim.w.remove_iframe(same).unwrap();
    sim.task(top, &format!("top.registerTool({})", tool("t", "")));
    sim.run();
    assert_eq!(sim.logged(), vec!["top toolchange"]);
}

#[test]
fn tool_is_exposed_to_an_origin_step_1_same_origin() {
    let mut sim = Sim::new("spec");
    let a = origin("https://a.test/");
    assert!(sim
        .w
        .tool_is_exposed_to_an_origin(&a, &[], &origin("https://a.test:443/x")));
    assert!(sim.reached(&TOOL_IS_EXPOSED_TO_AN_ORIGIN, "1"));
    assert!(!sim.reached(&TOOL_IS_EXPOSED_TO_AN_ORIGIN, "2"));
}

#[test]
fn tool_is_exposed_to_an_origin_step_2_1_exposed_origin() {
    let mut sim = Sim::new("spec");
    let a = origin("https://a.test/");
    let exposed = [origin("https://c.test/"), origin("https://b.test/")];
    assert!(sim
        .w
        .tool_is_exposed_to_an_origin(&a, &exposed, &origin("https://b.test/page")));
    assert!(sim.reached(&TOOL_IS_EXPOSED_TO_AN_ORIGIN, "2.1"));
}

#[test]
fn tool_is_exposed_to_an_origin_step_3_otherwise_not_visible() {
    let mut sim = Sim::new("spec");
    let a = origin("https://a.test/");
    let exposed = [origin("https://b.test/")];
    // Another scheme, another port, a subdomain: each a different origin.
    for target in [
        "http://b.test/",
        "https://b.test:8443/",
        "https://sub.b.test/",
        "https://sub.a.test/",
    ] {
        assert!(
            !sim.w
                .tool_is_exposed_to_an_origin(&a, &exposed, &origin(target)),
            "{target}"
        );
    }
    assert!(sim.reached(&TOOL_IS_EXPOSED_TO_AN_ORIGIN, "3"));
}
