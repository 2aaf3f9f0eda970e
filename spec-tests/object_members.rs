//! `obj.x = v` on a plain object: ECMAScript's [[Set]], seen through every name and value that
//! holds the object (a new version with the same identity, which the script's heap records);
//! what leaves the script for the platform is the object as it is then; the harness reads it
//! as it is now; and the explorer tells apart states that differ only in which object changed.
//!
//! <https://tc39.es/ecma262/#sec-putvalue>, <https://tc39.es/ecma262/#sec-ordinaryset>


#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::engine::profile::Profile;
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::{parse_file, FileResult, Status};

fn run(text: &str) -> FileResult {
    crate::common::run_text("object-members.scn", text)
}

fn assert_passes(r: &FileResult) {
    crate::common::assert_all_pass(r)
}

/// Every name and every value holding the object sees the change; it stays the same object.
#[test]
fn a_set_member_is_seen_through_every_name_that_holds_the_object() {
    assert_passes(&run(r##"
subtest "s"
  page top https://a.test/
  task in top:
    o = {a: 1}
    alias = o
    holder = {inner: o, list: [o]}
    o.a = 2
    o.b = "new"
    alias.c = true
    seen = alias.a
    nested = holder.inner.b
    listed = holder.list[0].c
    same = alias === o
    log "{o.a} {holder.inner.a} {alias.b}"
    text = `${holder.inner.b}`
  run
  expect seen == 2
  expect nested == "new"
  expect listed == true
  expect same == true
  expect o == {a: 2, b: "new", c: true}
  expect holder.inner == {a: 2, b: "new", c: true}
  expect log == ["2 2 new"]
  expect text == "new"
"##));
}

/// registerTool() converts the dictionary as it is when called: a change made before is seen,
/// one made after is not. A RegisteredTool getTools() gave is an ordinary object: renaming it
/// makes executeTool() look for another tool.
#[test]
fn the_platform_reads_an_object_as_it_is_when_the_value_reaches_it() {
    assert_passes(&run(r##"
subtest "s"
  page top https://a.test/
  task in top:
    tool = {name: "first", description: "d", execute: returns("ok")}
    tool.name = "renamed"
    await top.registerTool(tool)
    tool.name = "after"
    tools = await top.getTools()
    listed = tools[0].name
    tools[0].name = "changed"
    r = top.executeTool(tools[0], {})
  run
  expect listed == "renamed"
  expect top.tools == ["renamed"]
  expect r rejected UnknownError
"##));
}

/// A promise holds the object, not a copy: a change made after it settled is what a reaction
/// and the harness read.
#[test]
fn a_settled_promise_holds_the_object_not_a_copy() {
    assert_passes(&run(r##"
subtest "s"
  page top https://a.test/
  promise p in top
  task in top:
    o = {x: 1}
    resolve p with o
    o.x = 2
    v = await p
    got = v.x
    same = v === o
  run
  expect p fulfilled with {x: 2}
  expect got == 2
  expect same == true
"##));
}

/// An object that holds itself stays one object to the script; the platform's JSON.stringify
/// rejects it as cyclic. A member of an event (an attribute with no setter) keeps its value.
#[test]
fn a_cycle_is_kept_and_an_events_attribute_has_no_setter() {
    assert_passes(&run(r##"
subtest "s"
  page top https://a.test/
  promise activated in top
  task in top:
    o = {}
    o.self = o
    back = o.self.self === o
    r = top.registerTool({name: "c", description: "d", inputSchema: o, execute: returns(1)})
    on top toolactivated:
      event.toolName = "other"
      event.extra = 1
      name = event.toolName
      extra = event.extra
      resolve activated
    await top.registerTool({name: "t", description: "d", execute: returns(1)})
    tools = await top.getTools()
    await top.executeTool(tools[0], {})
    await activated
  run
  expect back == true
  expect r rejected TypeError
  expect name == "t"
  expect extra == 1
"##));
}

/// Arrays hold elements only: a named member is a TypeError that says so.
#[test]
fn an_arrays_named_member_is_a_type_error() {
    let r = run(r##"
subtest "s"
  page top https://a.test/
  task in top:
    a = [1]
    a.x = 2
    log "after"
  run
  expect uncaught TypeError
  expect log == []
"##);
    assert_passes(&r);
    assert!(format!("{:?}", r.subtests[0]).contains("arrays hold their elements only"));
}

/// Two event loops race to name one of two objects alike in everything; the winner is
/// changed, then the name is dropped. The two states differ only in which object changed, so
/// the explorer must not merge them: it reaches both answers, with and without its reductions.
#[test]
fn the_explorer_tells_apart_states_that_changed_different_objects() {
    let text = r#"title: t
subtest "which object changed"
  page top https://a.test/
  page other https://b.test/
  task in top:
    a = {x: 1}
    b = {x: 1}
  run
  task in top: last = a
  task in other: last = b
  run
  task in top:
    last.x = 2
    last = undefined
  run
  task in top: log "one"
  task in other: log "two"
  run
  task in top:
    changed = a.x
  run
  expect sometimes changed == 2
  expect sometimes changed == 1
"#;
    let file = parse_file("t.scn", text).unwrap();
    assert!(!file.subtests[0].compares_identity);
    for (how, by_line) in crate::common::explored_three_ways(&file) {
        assert!(by_line[&22], "{how}: a schedule where `a` changed");
        assert!(by_line[&23], "{how}: a schedule where `b` changed");
    }
}

/// The export writes the assignment as JavaScript's own.
#[test]
fn the_export_writes_the_assignment() {
    let text = r#"title: t
subtest "s"
  page top https://a.test/
  task in top:
    o = {a: 1}
    o.a = 2
  run
  expect o.a == 2
"#;
    let file = parse_file("webmcp/x/object-members.https.html.scn", text).unwrap();
    let e = export_file(&file, &Profile::named("chromium-156").unwrap());
    assert!(e.html.contains("s.o.a = 2;"), "{}", e.html);
    assert_eq!(e.exported().count(), 1);
}

/// Objects that hold each other twice over, each changed after the last was made: no version
/// is large, but the value a method is given (its objects as they are then) would be 2^60
/// objects written out. It is held to the value-size budget, as a literal is, at once.
#[test]
fn a_value_made_huge_by_changes_is_held_to_the_value_budget() {
    let mut text = String::from("subtest \"s\"\n  page top https://a.test/\n  task in top:\n    a0 = {}\n");
    for i in 1..=60 {
        text.push_str(&format!("    a{i} = {{}}\n    a{i}.x = [a{}, a{}]\n", i - 1, i - 1));
    }
    text.push_str("    log \"built\"\n    r = top.registerTool({name: \"t\", description: \"d\", inputSchema: a60, execute: returns(1)})\n  run\n  expect log == [\"built\"]\n");
    let r = run(&text);
    let s = &r.subtests[0];
    assert_eq!(s.status, Status::Error, "{s:?}");
    assert!(format!("{s:?}").contains("past the budget"), "{s:?}");
}
