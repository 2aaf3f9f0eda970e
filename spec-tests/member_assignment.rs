//! `E.MEMBER = EXPR`: a script runs the setter of an element's IDL attribute, with the value
//! converted as Web IDL converts the attribute's type, and HTML's setter steps (an input's value
//! made dirty, a radio group, a select's options, reflected content attributes). A member no
//! modelled setter covers is a TypeError that names why. (A plain object's members:
//! object_members.rs.)
//!
//! <https://html.spec.whatwg.org/multipage/input.html#dom-input-value>,
//! <https://html.spec.whatwg.org/multipage/common-dom-interfaces.html#reflecting-content-attributes-in-idl-attributes>

#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::engine::profile::Profile;
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::{parse_file, run_file, FileResult, RunOptions, Status};

fn run(text: &str) -> FileResult {
    let f = parse_file("member-assignment.scn", &format!("title: t\n{text}"))
        .unwrap_or_else(|e| panic!("{e}"));
    run_file(&f, &RunOptions::default())
}

#[test]
fn a_set_attribute_changes_the_form_tool_and_fires_toolchange() {
    // Setting `disabled` adds the content attribute, so the control leaves the form tool's
    // schema, and the tool's change is announced as any attribute mutation's is.
    let r = run(r##"subtest "s"
  page top https://a.test/
  html in top:
    <form toolname="f" tooldescription="d"><input name="a"><input name="b"></form>
  run
  task in top:
    on top toolchange:
      log "toolchange"
    top.querySelector("[name=b]").disabled = true
  run
  task in top:
    tools = await top.getTools()
  run
  expect log == ["toolchange"]
  expect tools[0].inputSchema == {type: "object", properties: {a: {type: "string"}}, required: []}
  expect top.querySelector("[name=b]").disabled == true
"##);
    assert_eq!(r.subtests[0].status, Status::Pass, "{:?}", r.subtests[0]);
}

#[test]
fn a_member_no_setter_covers_is_a_type_error_that_says_why() {
    for (target, member, says) in [
        ("[1]", "x", "arrays hold their elements only"),
        ("AbortController()", "signal", "models no setter"),
        ("top.querySelector(\"div\")", "checked", "no such IDL attribute"),
        ("top.querySelector(\"div\")", "colour", "no such IDL attribute"),
        ("null", "x", "Cannot set properties of null"),
        ("top", "ontoolchange", "set DOC.ontoolchange"),
    ] {
        let r = run(&format!(
            r##"subtest "s"
  page top https://a.test/
  html in top:
    <div></div>
  run
  task in top:
    o = {target}
    o.{member} = 2
    log "after"
  run
  expect uncaught TypeError
  expect log == []
"##
        ));
        let s = &r.subtests[0];
        assert_eq!(s.status, Status::Pass, "{target}.{member}: {:?}", s);
        let text = format!("{s:?}");
        assert!(text.contains(says), "{target}.{member}: {text}");
    }
}

#[test]
fn the_left_side_must_be_a_member_and_the_right_cannot_await() {
    for (line, says) in [
        ("    top.getTools() = 2", "the left side of `=`"),
        ("    top.querySelector(\"a\") = 2", "the left side of `=`"),
        (
            "    top.querySelector(\"a\").value = await top.getTools()",
            "bind the awaited value to a name first",
        ),
    ] {
        let text = format!("title: t\nsubtest \"s\"\n  page top https://a.test/\n  task in top:\n{line}\n");
        let e = parse_file("bad.scn", &text).unwrap_err();
        assert_eq!(e.line, 5, "{line}: {e}");
        assert!(e.message.contains(says), "{line}: {e}");
    }
    // `==` is a comparison, not an assignment: the statement is an expression.
    let ok = "title: t\nsubtest \"s\"\n  page top https://a.test/\n  task in top:\n    x = 1\n";
    parse_file("ok.scn", ok).unwrap();
}

#[test]
fn the_export_writes_the_assignment() {
    let text = r##"title: t
subtest "s"
  page top https://a.test/
  html in top:
    <input id="i">
  run
  task in top:
    i = top.querySelector("#i")
    i.value = "cats"
  run
  expect top.querySelector("#i").value == "cats"
"##;
    let f = parse_file("assign.https.html.scn", text).unwrap();
    let exported = export_file(&f, &Profile::spec());
    assert_eq!(exported.exported().count(), 1);
    assert!(exported.html.contains(r##".value = "cats";"##), "{}", exported.html);
}

#[test]
fn inner_html_serializes_noscript_by_the_documents_scripting_flag() {
    // A page's parser reads a noscript's contents as raw text (scripting enabled), and the
    // serialization writes them back as they are; a document without a browsing context
    // (scripting disabled) parses them as elements, whose text is escaped.
    let r = run(r##"subtest "s"
  page top https://a.test/
  html in top:
    <div id="d"></div>
  run
  task in top:
    d = top.querySelector("#d")
    d.innerHTML = "<noscript><p>a&b</p></noscript><img alt='&quot;'>"
    log "{d.innerHTML}"
    doc = top.implementation.createHTMLDocument()
    doc.body.innerHTML = "<noscript><p>a&b</p></noscript>"
    log "{doc.body.innerHTML}"
  run
  expect log == ["<noscript><p>a&b</p></noscript><img alt=\"&quot;\">", "<noscript><p>a&amp;b</p></noscript>"]
"##);
    assert_eq!(r.subtests[0].status, Status::Pass, "{:?}", r.subtests[0]);
}
