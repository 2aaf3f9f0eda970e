//! `===` and `!==`: ECMAScript's IsStrictlyEqual, primitives by value and objects by identity.
//! Which objects a page holds twice is what it can now tell, so the platform's methods must
//! give back the very object their steps name (an abort reason) and a new one where Web IDL
//! converts afresh (getTools()'s list), and the explorer must not merge two states that differ
//! only in which names share an object.
//!
//! <https://tc39.es/ecma262/#sec-isstrictlyequal>,
//! <https://webidl.spec.whatwg.org/#js-dictionary>,
//! <https://html.spec.whatwg.org/multipage/nav-history-apis.html#the-windowproxy-exotic-object>


#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::engine::profile::Profile;
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::{parse_file, FileResult, Status};

fn run(text: &str) -> FileResult {
    crate::common::run_text("strict-equality.scn", text)
}

fn assert_passes(r: &FileResult) {
    crate::common::assert_all_pass(r)
}

/// Two event loops each bind `last` to one of two objects alike in everything but identity:
/// the two orders end in states whose values are equal and whose sharing differs, and only
/// `===` tells them apart. A second race follows, so that the explorer meets both states at a
/// choice point, where it merges states it takes for equal. It reaches both answers, with and
/// without its reductions.
#[test]
fn the_explorer_tells_apart_states_that_share_objects_differently() {
    let text = r#"title: t
subtest "which object is last"
  page top https://a.test/
  page other https://b.test/
  task in top:
    a = {x: 1}
    b = {x: 1}
  run
  task in top: last = a
  task in other: last = b
  run
  task in top: log "one"
  task in other: log "two"
  run
  task in top:
    same = last === a
  run
  expect sometimes same == true
  expect sometimes same == false
"#;
    let file = parse_file("t.scn", text).unwrap();
    assert!(file.subtests[0].compares_identity);
    for (how, by_line) in crate::common::explored_three_ways(&file) {
        assert!(by_line[&18], "{how}: a schedule where `last` is `a`");
        assert!(by_line[&19], "{how}: a schedule where `last` is `b`");
    }
}

/// A file without `===` cannot tell which names share an object: its states are compared by
/// their values alone, as before.
#[test]
fn a_file_without_strict_equality_does_not_compare_identity() {
    let text = "title: t\nsubtest \"s\"\n  page top https://a.test/\n  task in top:\n    a = {}\n  run\n  expect a == {}\n";
    let file = parse_file("t.scn", text).unwrap();
    assert!(!file.subtests[0].compares_identity);
}

#[test]
fn primitives_compare_by_value_and_objects_by_identity() {
    let r = run(r#"subtest "s"
  page top https://a.test/
  task in top:
    a = {x: [1]}
    b = a
    c = {x: [1]}
    log `${NaN === NaN} ${0 === -0} ${"1" === 1} ${null === undefined} ${undefined === undefined}`
    log `${a === b} ${a === c} ${a.x === b.x} ${a.x === c.x} ${[] === []} ${!(a !== b)}`
    e = DOMException("m", "AbortError")
    log `${e === e} ${e === DOMException("m", "AbortError")} ${AbortError === AbortError}`
  run
  expect log == ["false true false false true", "true false true false false true", "true false false"]
  expect a == c
  expect a === b
  expect a !== c
"#);
    assert_passes(&r);
}

#[test]
fn a_failing_identity_expectation_says_what_it_compared() {
    let r = run(r#"subtest "s"
  page top https://a.test/
  task in top:
    a = {}
    c = {}
  run
  expect a === c
"#);
    let s = &r.subtests[0];
    assert_eq!(s.status, Status::Fail);
    let failed = s.expectations.iter().find(|e| !e.passed).unwrap();
    assert_eq!(failed.line, 8);
    assert_eq!(failed.actual, "false");
}

#[test]
fn objects_made_by_cyclic_cannot_be_compared() {
    // The engine holds `Cyclic()` as a kind of value with no identity: comparing one is a
    // TypeError that says so, never an answer that could be wrong.
    let r = run(r#"subtest "s"
  page top https://a.test/
  task in top:
    c = Cyclic()
    same = c === c
  run
"#);
    let s = &r.subtests[0];
    assert_eq!(s.status, Status::Fail);
    let text = format!("{:?}", s.messages);
    assert!(text.contains("Cyclic() or ToJSONUndefined()"), "{text}");
}

#[test]
fn each_get_tools_call_gives_a_new_list_of_new_registered_tools() {
    // getTools() step 8.5 resolves with a sequence<RegisteredTool>: Web IDL converts it to a
    // new Array of new objects at every call, while their `window` is one WindowProxy.
    let r = run(r#"subtest "s"
  page top https://a.test/
  task in top:
    await top.registerTool({name: "t", description: "d", inputSchema: {type: "object"}, execute: returns(1)})
    one = await top.getTools()
    two = await top.getTools()
    log `${one === two} ${one[0] === two[0]} ${one[0].inputSchema === two[0].inputSchema} ${one[0].window === two[0].window} ${one[0].window === top.window}`
  run
  expect log == ["false false false true true"]
  expect one == two
"#);
    assert_passes(&r);
}

#[test]
fn an_abort_reason_is_the_very_object_given_and_rejects_the_registration() {
    // registerTool() step 17.3's abort steps reject with the signal's abort reason, which
    // abort(reason) stores as given.
    let r = run(r#"subtest "s"
  page top https://a.test/
  controller reg in top
  task in top:
    error = TypeError("stop")
    p = top.registerTool({name: "t", description: "d", execute: returns(1)}, {signal: reg.signal})
    reg.abort(error)
    on p rejected as reason:
      log `${reason === error} ${reason === TypeError("stop")} ${reg.signal.reason === reason}`
  run
  expect log == ["true false true"]
"#);
    assert_passes(&r);
}

#[test]
fn a_documents_window_document_and_model_context_are_three_objects() {
    let r = run(r#"subtest "s"
  page top https://a.test/
  frame child in top https://a.test/c.html
  task in top:
    log `${top.modelContext === top.modelContext} ${top.window === top.window} ${top.document === top.document}`
    log `${top.modelContext === top.window} ${top.modelContext === top.document} ${top.window === top.document}`
    log `${top.window === child.window} ${top.modelContext === child.modelContext}`
  run
  expect log == ["true true true", "false false false", "false false"]
  expect top.modelContext === top.modelContext
  expect top.window !== top.document
"#);
    assert_passes(&r);
}

#[test]
fn a_window_proxy_stays_one_object_across_its_navigables_documents() {
    // HTML's WindowProxy belongs to the browsing context: the Window read before a navigation
    // is `===` to the one read after, while the two Documents differ.
    let r = run(r#"subtest "s"
  page top https://a.test/
  frame child in top https://a.test/c.html
  task in top:
    before = child.window
    before_document = child.document
  run
  navigate child to https://a.test/next.html as next
  run
  task in top:
    log `${before === next.window} ${before_document === next.document} ${before === top.window}`
  run
  expect log == ["true false false"]
"#);
    assert_passes(&r);
}

#[test]
fn execute_tool_takes_a_window_not_a_document_or_model_context() {
    // Web IDL converts RegisteredTool's `window` member to a Window: a Document or a
    // ModelContext is a TypeError before executeTool()'s steps run.
    let r = run(r#"subtest "s"
  page top https://a.test/
  task in top:
    await top.registerTool({name: "t", description: "d", execute: returns(1)})
    by_window = top.executeTool({name: "t", description: "d", origin: "https://a.test", window: top.window}, {})
    by_document = top.executeTool({name: "t", description: "d", origin: "https://a.test", window: top.document}, {})
    by_context = top.executeTool({name: "t", description: "d", origin: "https://a.test", window: top.modelContext}, {})
  run
  expect by_window fulfilled
  expect by_document rejected TypeError
  expect by_context rejected TypeError
"#);
    assert_passes(&r);
}

#[test]
fn strict_equality_parses_with_its_operands_and_nests_within_bounds() {
    let bad = parse_file(
        "t.scn",
        "title: t\nsubtest \"s\"\n  page top https://a.test/\n  task in top:\n    x = 1 ===\n",
    )
    .unwrap_err();
    assert_eq!((bad.line, bad.path.as_str()), (5, "t.scn"), "{bad}");
    // A chain of a thousand comparisons is a nesting error at its place, not a deep stack.
    let long = format!(
        "title: t\nsubtest \"s\"\n  page top https://a.test/\n  task in top:\n    x = 1{}\n",
        " === 1".repeat(1000)
    );
    let err = parse_file("t.scn", &long).unwrap_err();
    assert_eq!(err.line, 5);
    assert!(err.message.contains("nests more than"), "{err}");
    // `expect` takes either spelling, and says which it wanted.
    let err = parse_file(
        "t.scn",
        "title: t\nsubtest \"s\"\n  page top https://a.test/\n  expect top.toolsReady = true\n",
    )
    .unwrap_err();
    assert!(err.message.contains("`===`"), "{err}");
}

#[test]
fn the_export_writes_the_comparison() {
    let f = parse_file(
        "strict-equality.scn",
        r#"title: t
subtest "s"
  page top https://a.test/
  task in top:
    a = {}
    same = a !== {}
  run
  expect same == true
  expect top.modelContext === top.modelContext
"#,
    )
    .unwrap();
    let exported = export_file(&f, &Profile::spec());
    assert_eq!(exported.exported().count(), 1);
    assert!(exported.html.contains("((s.a) !== ({}))"), "{}", exported.html);
    assert!(exported.html.contains(".modelContext) === ("), "{}", exported.html);
}

/// HTML's WindowProxy forwards every use to its browsing context's active Window: a `window`
/// kept across its iframe's navigation reads the new document, its ModelContext and its tools,
/// not the old one's (only the Window facet follows; a kept Document stays the old document).
#[test]
fn a_kept_window_proxy_reads_the_document_its_iframe_navigated_to() {
    let r = run(r#"
subtest "s"
  page top https://a.test/
  frame child in top https://a.test/child.html
  task in top:
    win = child.window
    old_doc = win.document
  run
  navigate child to https://a.test/next.html as next
  run
  task in top:
    moved = win.document !== old_doc
    reached = win.document === next.document
    await win.document.modelContext.registerTool({name: "after", description: "d", execute: returns(1)})
    old_listing = old_doc.modelContext.getTools()
  run
  expect moved == true
  expect reached == true
  expect next.tools == ["after"]
  expect win.modelContext === next.modelContext
  expect old_listing rejected InvalidStateError
"#);
    assert_passes(&r);
}
