//! `instanceof`: ECMAScript's InstanceofOperator against the interface objects of a realm. Each
//! realm has its own constructors and prototypes, so the answer says both what a value is and
//! where it was made: a script's literals and errors in its current realm, what a method throws
//! or rejects with in the realm of the method's object, getTools()'s list in its promise's
//! realm, a signal's default reason in the signal's, a created document in its creator's.
//!
//! <https://tc39.es/ecma262/#sec-instanceofoperator>,
//! <https://webidl.spec.whatwg.org/#es-exceptions>,
//! <https://webidl.spec.whatwg.org/#idl-DOMException>,
//! <https://html.spec.whatwg.org/multipage/webappapis.html#concept-relevant-realm>

#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::{parse_file, FileResult};
use webmcp_ref::Profile;

fn run(text: &str) -> FileResult {
    crate::common::run_text("instanceof.scn", text)
}

fn assert_passes(r: &FileResult) {
    crate::common::assert_all_pass(r)
}

fn parse_error(text: &str) -> String {
    match parse_file("bad.scn", &format!("title: t\n{text}")) {
        Ok(_) => panic!("parsed: {text}"),
        Err(e) => e.to_string(),
    }
}

/// ECMAScript, OrdinaryHasInstance: the prototype of the realm's constructor must be on the
/// value's chain; an error's chain is its realm's, and a DOMException's prototype inherits from
/// Error's (Web IDL).
#[test]
fn an_error_is_an_instance_of_its_own_realms_constructors() {
    assert_passes(&run(r##"
subtest "s"
  page top https://a.test/
  frame child in top https://a.test/c.html
  task in top:
    e = TypeError("x")
    own = e instanceof TypeError
    base = e instanceof Error
    object = e instanceof Object
    other = e instanceof child.TypeError
    sibling = e instanceof RangeError
    dom = e instanceof DOMException
  task in child:
    d = DOMException("m", "DataError")
    d_dom = d instanceof DOMException
    d_error = d instanceof Error
    d_type = d instanceof TypeError
    d_top = d instanceof top.DOMException
  run
  expect own == true
  expect base == true
  expect object == true
  expect other == false
  expect sibling == false
  expect dom == false
  expect d_dom == true
  expect d_error == true
  expect d_type == false
  expect d_top == false
"##));
}

/// Web IDL: an operation throws (and a promise-returning one rejects) in the realm of its
/// function object, which is the relevant realm of the object it is called on: a script of
/// the top calling the child's registerTool() with a bad argument gets the child's TypeError.
#[test]
fn a_method_throws_in_the_realm_of_its_object() {
    assert_passes(&run(r##"
subtest "s"
  page top https://a.test/
  frame child in top https://a.test/c.html
  task in top:
    p = child.registerTool({name: "t", description: "d", execute: returns(1)}, {signal: 5})
    on p rejected as reason:
      in_top = reason instanceof TypeError
      in_child = reason instanceof child.TypeError
    q = top.registerTool({name: "t", description: "d", execute: returns(1)}, {signal: 5})
    on q rejected as reason:
      q_top = reason instanceof TypeError
  run
  expect p rejected TypeError
  expect in_top == false
  expect in_child == true
  expect q_top == true
"##));
}

/// DOM, "signal abort" step 2: the default reason is a new AbortError DOMException, made in the
/// signal's realm; a reason the script gives keeps its own realm, and the very object.
#[test]
fn a_signals_default_reason_is_made_in_the_signals_realm() {
    assert_passes(&run(r##"
subtest "s"
  page top https://a.test/
  frame child in top https://a.test/c.html
  controller ac in child
  controller given in child
  task in top:
    ac.abort()
    mine = TypeError("mine")
    given.abort(mine)
    kept = given.signal.reason === mine
    kept_realm = given.signal.reason instanceof TypeError
  run
  expect ac.signal.reason instanceof child.DOMException
  expect ac.signal.reason instanceof DOMException == false
  expect kept == true
  expect kept_realm == true
"##));
}

/// A created document has no browsing context: it and its ModelContext live in the realm of
/// the script that created it, so their methods reject with that realm's DOMException.
#[test]
fn a_created_document_lives_in_its_creators_realm() {
    assert_passes(&run(r##"
subtest "s"
  page top https://a.test/
  frame child in top https://a.test/c.html
  task in top:
    created = child.implementation.createHTMLDocument()
    doc_child = created instanceof child.Document
    doc_top = created instanceof Document
    mc_child = created.modelContext instanceof child.ModelContext
    p = created.modelContext.getTools()
    on p rejected as reason:
      reason_child = reason instanceof child.DOMException
      reason_top = reason instanceof DOMException
  run
  expect p rejected InvalidStateError
  expect doc_child == true
  expect doc_top == false
  expect mc_child == true
  expect reason_child == true
  expect reason_top == false
"##));
}

/// Web IDL converts getTools()'s sequence into the realm of its promise (the ModelContext's),
/// and a script's literals are its current realm's, nested ones too.
#[test]
fn arrays_and_objects_are_made_in_a_realm() {
    assert_passes(&run(r##"
subtest "s"
  page top https://a.test/
  frame child in top https://a.test/c.html
  task in child:
    await child.registerTool({name: "t", description: "d", execute: returns(1)})
    literal = {a: [1]}
  run
  task in top:
    tools = await child.getTools()
    list_top = tools instanceof Array
    list_child = tools instanceof child.Array
    tool_child = tools[0] instanceof child.Object
    literal_top = literal instanceof Object
    inner_child = literal.a instanceof child.Array
    mine = [] instanceof Array
    not_array = {} instanceof Array
  run
  expect list_top == false
  expect list_child == true
  expect tool_child == true
  expect literal_top == false
  expect inner_child == true
  expect mine == true
  expect not_array == false
"##));
}

/// HTML gives each element kind its interface; one HTML does not define is an
/// HTMLUnknownElement, a valid custom element name an HTMLElement.
#[test]
fn elements_are_instances_of_their_html_interfaces() {
    assert_passes(&run(r##"
subtest "s"
  page top https://a.test/
  html in top:
    <form id=f><input id=i><textarea id=t></textarea></form><x-y id=c></x-y><blink id=u></blink><section id=s></section>
  run
  task in top:
    form = top.querySelector("#f")
    f1 = form instanceof HTMLFormElement
    f2 = form instanceof HTMLElement
    f3 = form instanceof Node
    f4 = form instanceof EventTarget
    f5 = form instanceof HTMLInputElement
    i1 = top.querySelector("#i") instanceof HTMLInputElement
    t1 = top.querySelector("#t") instanceof HTMLTextAreaElement
    c1 = top.querySelector("#c") instanceof HTMLElement
    c2 = top.querySelector("#c") instanceof HTMLUnknownElement
    u1 = top.querySelector("#u") instanceof HTMLUnknownElement
    s1 = top.querySelector("#s") instanceof HTMLUnknownElement
    s2 = top.querySelector("#s") instanceof HTMLElement
  run
  expect f1 == true
  expect f2 == true
  expect f3 == true
  expect f4 == true
  expect f5 == false
  expect i1 == true
  expect t1 == true
  expect c1 == true
  expect c2 == false
  expect u1 == true
  expect s1 == false
  expect s2 == true
"##));
}

/// Primitives have no prototype chain; `!` binds tighter than `instanceof`, which binds
/// tighter than `===`.
#[test]
fn primitives_are_instances_of_nothing_and_precedence_is_javascripts() {
    assert_passes(&run(r##"
subtest "s"
  page top https://a.test/
  task in top:
    n = 5 instanceof Object
    s = "x" instanceof Object
    u = undefined instanceof Object
    e = TypeError("x")
    not_first = !e instanceof Error
    compared = e instanceof Error === true
  run
  expect n == false
  expect s == false
  expect u == false
  expect not_first == false
  expect compared == true
"##));
}

/// Reading a cross-origin window's interface object is a SecurityError, thrown in the script.
#[test]
fn a_cross_origin_documents_interfaces_cannot_be_read() {
    let r = run(r##"
subtest "s"
  page top https://a.test/
  frame other in top https://b.test/c.html
  task in top:
    log "before"
    x = 1 instanceof other.DOMException
    log "after"
  run
  expect log == ["before"]
  expect uncaught SecurityError
"##);
    assert_passes(&r);
}

/// The harness runs in the test page (the first page's realm), as the export does: an error
/// an expectation makes is that realm's.
#[test]
fn the_harness_is_in_the_first_pages_realm() {
    assert_passes(&run(r##"
subtest "s"
  page top https://a.test/
  frame child in top https://a.test/c.html
  run
  expect TypeError("x") instanceof TypeError
  expect TypeError("x") instanceof child.TypeError == false
  expect top.modelContext instanceof ModelContext
  expect child.modelContext instanceof child.ModelContext
  expect child.modelContext instanceof ModelContext == false
"##));
}

/// An interface the engine does not know, a missing operand, and a realm that is no document
/// are errors at their place.
#[test]
fn bad_right_operands_are_errors_at_their_place() {
    let e = parse_error("subtest \"s\"\n  page top https://a.test/\n  task in top:\n    x = 1 instanceof Map\n");
    assert!(e.contains("bad.scn:5:"), "{e}");
    assert!(e.contains("`Map` is not an interface the engine knows"), "{e}");
    let e = parse_error("subtest \"s\"\n  page top https://a.test/\n  task in top:\n    x = 1 instanceof\n");
    assert!(e.contains("expected an interface after `instanceof`"), "{e}");
    let e = parse_error(
        "subtest \"s\"\n  page top https://a.test/\n  run\n  expect 1 instanceof Object pending\n",
    );
    assert!(e.contains("expected `==` or `!=` after `instanceof X`"), "{e}");
    let r = run(r##"
subtest "s"
  page top https://a.test/
  task in top:
    n = 5
    x = 1 instanceof n.Object
  run
  expect uncaught TypeError
"##);
    assert_passes(&r);
}

/// The export writes JavaScript's own operator, against the other document's Window.
#[test]
fn the_export_writes_instanceof() {
    let text = r#"title: t
subtest "s"
  page top https://a.test/
  frame child in top https://a.test/c.html
  task in top:
    e = TypeError("x")
    a = e instanceof child.TypeError
    b = !e instanceof Error
  run
  expect a == false
  expect e instanceof TypeError
"#;
    let file = parse_file("webmcp/x/instanceof.https.html.scn", text).unwrap();
    let e = export_file(&file, &Profile::named("chromium-156").unwrap());
    assert!(
        e.html
            .contains("((s.e) instanceof s.child.window.TypeError)"),
        "{}",
        e.html
    );
    assert!(e.html.contains("(((!s.e)) instanceof Error)"), "{}", e.html);
    assert!(e.html.contains("instanceof TypeError)"), "{}", e.html);
    assert_eq!(e.exported().count(), 1);
}
