//! This specification's unloading document cleanup steps: what happens to a pending tool
//! execution when its tool's document or its caller goes away.
//!
//! <https://webmachinelearning.github.io/webmcp/#unloading-document-cleanup-steps>
//!
//! Steps: 1 the document's node navigable's traversable; 2 in parallel: 2.1-2.2 every pending
//! execution the document is the target or the caller of (2.2.1); 2.3 for each: 2.3.1 the
//! execution, 2.3.2 its target unloaded (and not its caller): its completion steps given null
//! and false, so the caller's promise is rejected with an UnknownError; 2.3.3 its caller
//! unloaded (and not its target): cancel a pending tool execution, so the tool's signal aborts
//! and `toolcancel` fires at the target's ModelContext; 2.3.4 both: it is dropped; 2.3.5
//! assert: it is no longer pending. A document entering the bfcache is unloaded too.

use crate::common;

use common::{registered, Sim};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::{CANCEL_A_PENDING_TOOL_EXECUTION, UNLOADING_DOCUMENT_CLEANUP_STEPS};
use webmcp_ref::DocumentKey;

/// How a document goes away.
#[derive(Clone, Copy, Debug)]
enum Away {
    /// Its iframe is removed.
    Removed,
    /// Its navigable navigates, and it is destroyed.
    Navigated,
    /// Its navigable navigates, and it is kept in the bfcache.
    IntoBfcache,
}

const AWAYS: [Away; 3] = [Away::Removed, Away::Navigated, Away::IntoBfcache];

fn go_away(sim: &mut Sim, doc: DocumentKey, how: Away) {
    match how {
        Away::Removed => sim.w.remove_iframe(doc).unwrap(),
        Away::Navigated | Away::IntoBfcache => {
            let keep = matches!(how, Away::IntoBfcache);
            sim.w
                .navigate(doc, "https://a.test/next.html", "next", keep)
                .unwrap();
        }
    }
}

/// Registers on `owner` a tool `t` that logs its start and its signal's abort and never
/// settles, and has `owner` log the toolcancel events it hears.
fn slow_tool(sim: &mut Sim, owner: DocumentKey) {
    let label = sim.label(owner);
    sim.function(
        owner,
        "slow",
        "log \"tool started\"\non signal abort:\n  log \"tool saw {signal.reason.name}\"\nawait pending",
    );
    sim.task(
        owner,
        &format!(
            "{label}.registerTool({{name: \"t\", description: \"d\", execute: slow}})\non {label} toolcancel: log \"toolcancel {{event.toolName}}\""
        ),
    );
    sim.run();
}

/// `caller` calls executeTool() on tool `t` of `target`, binding `r`, and runs.
fn execute(sim: &mut Sim, caller: DocumentKey, target: DocumentKey) {
    let (c, t) = (sim.label(caller), sim.label(target));
    sim.task(
        caller,
        &format!(
            "r = {c}.executeTool({})",
            registered("t", &t, "https://a.test")
        ),
    );
    sim.run();
    assert_eq!(sim.logged(), vec!["tool started"]);
}

#[test]
fn unloading_document_cleanup_steps_step_2_3_2_the_tools_document_unloaded_fails_the_execution() {
    for how in AWAYS {
        let mut sim = Sim::new("spec");
        let top = sim.page("top", "https://a.test/");
        let child = sim.frame(top, "child", "https://a.test/child.html");
        slow_tool(&mut sim, child);
        execute(&mut sim, top, child);
        go_away(&mut sim, child, how);
        sim.run();
        assert_eq!(sim.outcome_of("r"), Err("UnknownError".into()), "{how:?}");
        assert_eq!(
            sim.logged(),
            vec!["tool started"],
            "{how:?}: nothing is cancelled"
        );
        assert!(
            sim.reached(&UNLOADING_DOCUMENT_CLEANUP_STEPS, "2.3.2"),
            "{how:?}"
        );
        assert!(sim.findings().is_empty(), "{how:?}: {:?}", sim.findings());
    }
}

#[test]
fn unloading_document_cleanup_steps_step_2_3_3_the_caller_unloaded_cancels_the_execution() {
    for how in AWAYS {
        let mut sim = Sim::new("spec");
        let top = sim.page("top", "https://a.test/");
        let child = sim.frame(top, "child", "https://a.test/child.html");
        slow_tool(&mut sim, top);
        execute(&mut sim, child, top);
        go_away(&mut sim, child, how);
        sim.run();
        assert_eq!(
            sim.logged(),
            vec!["tool started", "tool saw AbortError", "toolcancel t"],
            "{how:?}"
        );
        assert_eq!(
            sim.state_of("r"),
            "pending",
            "{how:?}: nothing settles the caller's promise"
        );
        assert!(
            sim.reached(&UNLOADING_DOCUMENT_CLEANUP_STEPS, "2.3.3"),
            "{how:?}"
        );
        assert!(
            sim.reached(&CANCEL_A_PENDING_TOOL_EXECUTION, "6.6"),
            "{how:?}"
        );
        assert!(sim.findings().is_empty(), "{how:?}: {:?}", sim.findings());
    }
}

#[test]
fn unloading_document_cleanup_steps_step_2_3_4_a_document_calling_its_own_tool_drops_the_execution()
{
    // The page runs its own tool and goes into the bfcache: the execution is dropped, not
    // failed or cancelled. Once the page is restored the tool's result comes, and nothing
    // takes it: the caller's promise never settles.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    sim.promise_in(top, "later");
    sim.task(
        top,
        "top.registerTool({name: \"t\", description: \"d\", execute: returns(later)})\non top toolcancel: log \"toolcancel\"",
    );
    sim.run();
    sim.task(
        top,
        &format!(
            "r = top.executeTool({})",
            registered("t", "top", "https://a.test")
        ),
    );
    sim.run();
    let next = sim
        .w
        .navigate(top, "https://a.test/next.html", "next", true)
        .unwrap();
    sim.run();
    assert!(sim.reached(&UNLOADING_DOCUMENT_CLEANUP_STEPS, "2.3.4"));
    sim.w.go_back(next).unwrap();
    sim.task(top, "resolve later with \"late\"");
    sim.run();
    assert_eq!(sim.state_of("r"), "pending");
    assert!(sim.logged().is_empty(), "{:?}", sim.logged());
    assert!(sim.trace_text().contains("is no longer pending: return"));
}

#[test]
fn unloading_document_cleanup_steps_a_page_entering_the_bfcache_unloads_its_frames_first() {
    // The page calls a tool of its iframe and goes into the bfcache: the iframe's document is
    // unloaded first (the tool's document: the execution fails), then the page's own finds
    // nothing left. The task that rejects the caller's promise waits for the page: the caller
    // hears the UnknownError once it is restored.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    slow_tool(&mut sim, child);
    execute(&mut sim, top, child);
    sim.task(
        top,
        "on r rejected as e: log \"caller rejected with {e.name}\"",
    );
    sim.run();
    let next = sim
        .w
        .navigate(top, "https://a.test/next.html", "next", true)
        .unwrap();
    sim.run();
    assert_eq!(sim.state_of("r"), "pending", "top is in the bfcache");
    assert_eq!(sim.logged(), vec!["tool started"]);
    assert!(sim.reached(&UNLOADING_DOCUMENT_CLEANUP_STEPS, "2.3.2"));
    assert!(!sim.reached(&UNLOADING_DOCUMENT_CLEANUP_STEPS, "2.3.3"));
    sim.w.go_back(next).unwrap();
    sim.run();
    assert_eq!(
        sim.logged(),
        vec!["tool started", "caller rejected with UnknownError"]
    );
}

#[test]
fn unloading_document_cleanup_steps_step_2_2_1_a_finished_execution_leaves_nothing_to_clean_up() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "https://a.test/child.html");
    sim.task(
        child,
        "child.registerTool({name: \"t\", description: \"d\", execute: returns(1)})",
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
    assert_eq!(sim.outcome_of("r"), Ok("1".into()));
    sim.w.remove_iframe(child).unwrap();
    sim.run();
    assert!(sim.reached(&UNLOADING_DOCUMENT_CLEANUP_STEPS, "2.2.1"));
    assert!(!sim.reached(&UNLOADING_DOCUMENT_CLEANUP_STEPS, "2.3"));
    assert_eq!(sim.outcome_of("r"), Ok("1".into()));
}

#[test]
fn unloading_document_cleanup_steps_step_2_3_5_as_written_the_completion_steps_come_too_late() {
    // Step 2.3.2 runs the completion steps, which executeTool() defines as steps run "in
    // parallel": as written they get a parallel queue of their own, so the execution is still
    // pending when step 2.3.5 asserts it is not (a finding); when they do run, the tool's
    // document has no node navigable (16.10.1, a finding), and the caller never hears back.
    // As intended, they run at once and the caller gets its UnknownError.
    for (name, as_written) in [("spec", false), ("literal", true)] {
        let mut sim = Sim::new(name);
        let top = sim.page("top", "https://a.test/");
        let child = sim.frame(top, "child", "https://a.test/child.html");
        slow_tool(&mut sim, child);
        execute(&mut sim, top, child);
        sim.w.remove_iframe(child).unwrap();
        sim.run();
        if as_written {
            assert_eq!(sim.state_of("r"), "pending", "{name}");
            let findings = sim.findings_at();
            for (anchor, step) in [
                ("unloading-document-cleanup-steps", "2.3.5"),
                ("dom-modelcontext-executetool", "16.10.1"),
            ] {
                assert!(
                    findings.contains(&(anchor.to_string(), step.to_string())),
                    "{name}: {findings:?}"
                );
            }
        } else {
            assert_eq!(sim.outcome_of("r"), Err("UnknownError".into()), "{name}");
            assert!(sim.findings().is_empty(), "{name}: {:?}", sim.findings());
        }
    }
}

#[test]
fn unloading_document_cleanup_steps_step_1_holds_for_every_document_unloaded_while_active() {
    // A document is unloaded while it is still its navigable's active document (a removed
    // iframe, a navigation, the bfcache, a closed page): step 1 finds its node navigable, as
    // written too.
    for how in AWAYS {
        let mut sim = Sim::new("literal");
        let top = sim.page("top", "https://a.test/");
        let child = sim.frame(top, "child", "https://a.test/child.html");
        go_away(&mut sim, child, how);
        sim.run();
        assert!(
            sim.reached(&UNLOADING_DOCUMENT_CLEANUP_STEPS, "1"),
            "{how:?}"
        );
        assert!(sim.findings().is_empty(), "{how:?}: {:?}", sim.findings());
    }
    let mut sim = Sim::new("literal");
    let top = sim.page("top", "https://a.test/");
    sim.frame(top, "child", "https://a.test/child.html");
    sim.w.close(top).unwrap();
    sim.run();
    assert!(sim.reached(&UNLOADING_DOCUMENT_CLEANUP_STEPS, "1"));
    assert!(sim.findings().is_empty(), "{:?}", sim.findings());
}

#[test]
fn unloading_document_cleanup_steps_step_1_a_document_destroyed_in_the_bfcache_has_no_node_navigable_as_written(
) {
    // HTML's "destroy a document" runs the unloading document cleanup steps too, and closing
    // a page destroys the document of every session history entry, one in the bfcache
    // included. That one has no node navigable: as written, step 1 is a finding.
    let mut sim = Sim::new("literal");
    let top = sim.page("top", "https://a.test/");
    let next = sim
        .w
        .navigate(top, "https://a.test/next.html", "next", true)
        .unwrap();
    sim.run();
    assert!(sim.findings().is_empty(), "{:?}", sim.findings());
    sim.w.close(next).unwrap();
    sim.run();
    assert_eq!(
        sim.findings_at(),
        vec![(
            "unloading-document-cleanup-steps".to_string(),
            "1".to_string()
        )]
    );
}
