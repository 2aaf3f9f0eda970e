//! Documents without a browsing context (DOM's `createHTMLDocument()`, `DOMParser`), and the
//! node operations that move or copy nodes between documents (`adoptNode`, `importNode`,
//! `cloneNode`, `append`): what a page's script sees, and what WebMCP makes of a form in such a
//! document and of one moved or copied out of it.
//!
//! <https://dom.spec.whatwg.org/#dom-domimplementation-createhtmldocument>,
//! <https://html.spec.whatwg.org/multipage/dynamic-markup-insertion.html#dom-domparser-parsefromstring>,
//! <https://dom.spec.whatwg.org/#concept-node-clone>, <https://dom.spec.whatwg.org/#concept-node-adopt>

#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::engine::profile::Profile;
use webmcp_ref::scenario::{parse_file, run_file, FileResult, RunOptions, Status};

fn run(profile: &str, subtests: &str) -> FileResult {
    let text = format!("title: t\n{subtests}");
    let f = parse_file("frameless.scn", &text).unwrap_or_else(|e| panic!("{e}"));
    let options = RunOptions {
        profile: Profile::named(profile).unwrap(),
        ..Default::default()
    };
    run_file(&f, &options)
}

fn assert_passes(profiles: &[&str], subtests: &str) {
    for profile in profiles {
        let r = run(profile, subtests);
        for s in &r.subtests {
            assert_eq!(s.status, Status::Pass, "{profile}: {}: {:?}", s.name, s.messages);
        }
    }
}

/// createHTMLDocument() steps 1-7: the new document has the caller's origin, a doctype,
/// `html`, `head` with the given title, and `body`; it is never fully active. A form in it,
/// with every attribute a tool needs, is no tool ("declarative tool of a form", step 2), and
/// the page lists nothing.
#[test]
fn create_html_document_makes_a_document_without_a_browsing_context_whose_forms_are_no_tools() {
    assert_passes(
        &["spec", "chromium-156"],
        r##"subtest "frameless"
  page top https://a.test/
  task in top:
    doc = top.implementation.createHTMLDocument("A title")
    title = doc.querySelector("head > title")
    log "{title}"
    form = doc.createElement("form")
    form.setAttribute("toolname", "t")
    form.setAttribute("tooldescription", "d")
    doc.body.append(form)
    placed = doc.querySelector("body > form")
    log "{placed}"
    tools = await top.getTools()
  run
  expect tools.length == 0
  expect top.tools == []
  expect log == ["title", "form"]
"##,
    );
}

/// parseFromString(): an HTML document parsed from the markup, without a browsing context;
/// an XML type is refused (the engine parses HTML only), and a type outside the enum is a
/// TypeError, as Web IDL converts it.
#[test]
fn dom_parser_parses_html_and_refuses_other_types() {
    assert_passes(
        &["spec"],
        r##"subtest "parsed"
  page top https://a.test/
  task in top:
    doc = DOMParser().parseFromString("<form toolname=t tooldescription=d><input name=q value=v></form>", "text/html")
    input = doc.querySelector("input")
    log "{input.value}"
    tools = await top.getTools()
  run
  expect tools.length == 0
  expect log == ["v"]

subtest "types"
  page top https://a.test/
  task in top as xml:
    DOMParser().parseFromString("<a/>", "text/xml")
  task in top as bad:
    DOMParser().parseFromString("<a/>", "text/plain")
  run
  expect xml rejected NotSupportedError
  expect bad rejected TypeError
"##,
    );
}

/// Moved into the page (adoptNode, then append) or copied into it (importNode, cloneNode then
/// append), the form is a tool of the page, under the draft's synchronous update and under
/// Chromium 156's posted one (whose update for the frameless document, which runs no task, is
/// made at once instead of waiting for a task that never comes).
#[test]
fn a_form_moved_or_copied_out_of_a_frameless_document_becomes_a_tool_of_the_page() {
    for (how, make) in [
        ("adopt", "top.adoptNode(source)"),
        ("import", "top.importNode(source, true)"),
        ("clone", "source.cloneNode(true)"),
        ("append", "source"),
    ] {
        assert_passes(
            &["spec", "chromium-156"],
            &format!(
                r##"subtest "{how}"
  page top https://a.test/
  html in top: <p>page</p>
  run
  task in top:
    doc = DOMParser().parseFromString("<form toolname=moved tooldescription=d><input name=q></form>", "text/html")
    source = doc.querySelector("form")
    form = {make}
    top.body.append(form)
  run
  expect top.tools == ["moved"]
"##
            ),
        );
    }
}

/// HTML's cloning steps: an input's value and checkedness come with the copy (with their dirty
/// flags), a textarea's value too; a shallow copy has no children.
#[test]
fn cloning_copies_what_the_cloning_steps_say() {
    assert_passes(
        &["spec"],
        r##"subtest "clone"
  page top https://a.test/
  html in top:
    <form id=f><input id=t name=t><input id=c type=checkbox name=c><textarea id=a name=a></textarea></form>
  run
  task in top:
    text = top.querySelector("#t")
    box = top.querySelector("#c")
    area = top.querySelector("#a")
    text.click()
    box.click()
    deep = top.querySelector("#f").cloneNode(true)
    shallow = top.querySelector("#f").cloneNode(false)
    copied = deep.querySelector("#c")
    none = shallow.querySelector("#c")
    log "{copied.checked} {none}"
  run
  expect log == ["true null"]
"##,
    );
}

/// adoptNode() and importNode() refuse a document's node (NotSupportedError) and a value that
/// is not a node (TypeError, Web IDL's conversion).
#[test]
fn importing_or_adopting_a_document_or_a_non_node_throws() {
    assert_passes(
        &["spec"],
        r##"subtest "errors"
  page top https://a.test/
  task in top as adopted:
    top.adoptNode(top.implementation.createHTMLDocument())
  task in top as imported:
    top.importNode(1)
  run
  expect adopted rejected NotSupportedError
  expect imported rejected TypeError
"##,
    );
}

/// The parser's scripting flag follows the document the markup goes into: in the page
/// (scripting enabled) a `noscript` element's contents in the body are text, so its form is no
/// tool; in a `DOMParser` document (no browsing context, scripting disabled) they are elements.
#[test]
fn noscript_contents_are_markup_only_where_scripting_is_disabled() {
    assert_passes(
        &["spec"],
        r##"subtest "noscript"
  page top https://a.test/
  html in top: <body><noscript><form toolname=t tooldescription=d></form></noscript>
  run
  task in top:
    in_page = top.querySelector("noscript > form")
    doc = DOMParser().parseFromString("<body><noscript><form toolname=t tooldescription=d></form></noscript>", "text/html")
    parsed = doc.querySelector("noscript > form")
    log "{in_page} {parsed}"
  run
  expect log == ["null form"]
  expect top.tools == []
"##,
    );
}

#[test]
fn a_frameless_document_has_a_model_context_whose_methods_reject() {
    // The partial interface is on every Document: a created document's `modelContext` is its
    // own ([SameObject], not its creator's), and registerTool() and getTools() (step 3) and
    // executeTool() (step 2) find it not fully active. Its methods' promises are made in the
    // caller's realm, which is the creator's.
    assert_passes(
        &["spec", "chromium-156"],
        r#"subtest "s"
  page top https://a.test/
  task in top:
    doc = top.implementation.createHTMLDocument()
    parsed = DOMParser().parseFromString("<p>x</p>", "text/html")
    context = doc.modelContext
    log `${context} ${doc.modelContext === context} ${context !== top.modelContext} ${parsed.modelContext !== context}`
    await top.registerTool({name: "t", description: "d", execute: returns(1)})
    tools = await top.getTools()
    got = context.getTools()
    registered = context.registerTool({name: "x", description: "d", execute: returns(1)})
    executed = context.executeTool(tools[0], {})
  run
  expect log == ["[object ModelContext] true true true"]
  expect got rejected InvalidStateError
  expect registered rejected InvalidStateError
  expect executed rejected InvalidStateError
  expect doc.modelContext === context
  expect top.tools == ["t"]
"#,
    );
}

#[test]
fn a_frameless_document_made_by_an_insecure_page_has_no_model_context() {
    // `modelContext` is [SecureContext]: a document an http: page creates is in that page's
    // realm, which is no secure context.
    assert_passes(
        &["spec"],
        r#"subtest "s"
  page top http://a.test/
  task in top:
    doc = top.implementation.createHTMLDocument()
    log `${doc.modelContext}`
  run
  expect log == ["undefined"]
"#,
    );
}
