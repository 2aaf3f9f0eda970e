//! The page script's `document.createElement()`, `appendChild()` and `removeChild()`: DOM's
//! "create an element" (a valid name, lowercased in an HTML document), "pre-insert" (adopting
//! the node into the parent's document, the insertion steps of HTML and WebMCP) and
//! "pre-remove" (the child must be the parent's); Web IDL's conversion of the argument to a
//! `Node`; parse errors for missing arguments; and the export, which writes the same calls.

#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::{parse_file, run_file, RunOptions};
use webmcp_ref::Profile;

const SCENARIO: &str = r##"title: createElement, appendChild and removeChild

subtest "an element made, appended, and removed"
  page top https://a.test/
  html in top:
    <form id=f toolname=t tooldescription=d></form>
  run
  task in top:
    i = top.createElement("INPUT")
    log "{i.value}"
    i.setAttribute("name", "q")
    i.setAttribute("value", "made")
    same = top.querySelector("#f").appendChild(i)
    found = top.querySelector("form input[name=q]")
    log "{found.value} {same.value}"
  run
  task in top:
    tools = await top.getTools()
    log "{tools[0].inputSchema.properties.q.type}"
    gone = top.querySelector("#f").removeChild(i)
    log "{gone.value}"
    rest = top.querySelector("form input")
  run
  task in top:
    tools = await top.getTools()
    log "{rest} {tools[0].inputSchema.properties.q}"
  run
  expect log == ["", "made made", "string", "made", "null undefined"]

subtest "an iframe made and appended gets a navigable and fires load"
  page top https://a.test/
  html in top:
    <div id=d></div>
  run
  task in top:
    ifr = top.createElement("iframe")
    ifr.setAttribute("srcdoc", "<form toolname=inner tooldescription=d></form>")
    on ifr load:
      log "load"
    top.querySelector("#d").appendChild(ifr)
  run
  task in top:
    tools = await top.getTools()
    log "{tools[0].name}"
  run
  expect log == ["load", "inner"]

subtest "bad names and bad arguments"
  page top https://a.test/
  html in top:
    <div id=d><p id=p></p></div>
  run
  task in top:
    top.createElement("not valid")
  task in top:
    top.querySelector("#d").appendChild("text")
  task in top:
    top.querySelector("#p").removeChild(top.querySelector("#d"))
  task in top:
    top.querySelector("#p").appendChild(top.querySelector("#d"))
  run
  expect uncaught InvalidCharacterError
  expect uncaught TypeError
  expect uncaught NotFoundError
  expect uncaught HierarchyRequestError
"##;

fn run_under(profile: &str) -> webmcp_ref::scenario::FileResult {
    let file = parse_file("dom.scn", SCENARIO).unwrap();
    run_file(
        &file,
        &RunOptions {
            profile: Profile::named(profile).unwrap(),
            schedule: None,
            trace: false,
            subtest: None,
            budgets: Default::default(),
        },
    )
}

#[test]
fn create_element_append_child_and_remove_child_run_the_dom_steps() {
    for profile in ["spec", "chromium-156"] {
        let r = run_under(profile);
        assert_eq!(r.subtests.len(), 3);
        for s in &r.subtests {
            assert!(s.status.held(), "{profile} {:?}: {:?}", s.name, s.messages);
        }
    }
}

#[test]
fn a_missing_argument_is_a_parse_error_at_the_method() {
    let bad = |line: &str| {
        let text = format!("title: t\nsubtest \"s\"\n  page top https://a.test/\n  task in top:\n    {line}\n");
        parse_file("x.scn", &text).unwrap_err().to_string()
    };
    let e = bad("x = top.createElement()");
    assert!(e.starts_with("x.scn:5:13: `createElement` takes the element's name"), "{e}");
    let e = bad("top.querySelector(\"#d\").appendChild()");
    assert!(e.starts_with("x.scn:5:29: `appendChild` takes 1 argument(s) (node)"), "{e}");
    let e = bad("top.querySelector(\"#d\").removeChild()");
    assert!(e.contains("`removeChild` takes 1 argument(s) (child)"), "{e}");
}

#[test]
fn the_export_writes_the_documents_create_element() {
    let file = parse_file("webmcp/x/dom.https.html.scn", SCENARIO).unwrap();
    let e = export_file(&file, &Profile::named("chromium-156").unwrap());
    assert!(e.html.contains(".document.createElement(\"INPUT\")"), "{}", e.html);
    assert!(e.html.contains(".appendChild("));
    assert!(e.html.contains(".removeChild("));
}

#[test]
fn a_logged_value_without_a_json_form_shows_its_class_as_the_export_does() {
    // getTools() gives RegisteredTool dictionaries whose `window` is a WindowProxy: JSON has
    // no form for them, so the log shows the class, as the exported runtime's `show` does.
    let text = r#"title: t
subtest "s"
  page top https://a.test/
  html in top:
    <form toolname=t tooldescription=d></form>
  run
  task in top:
    tools = await top.getTools()
    log "{tools} {tools[0]} {tools[0].inputSchema}"
  run
  expect log == ['Array Object {"type":"object","properties":{},"required":[]}']
"#;
    let file = parse_file("show.scn", text).unwrap();
    let r = run_file(&file, &RunOptions::default());
    assert!(r.passed(), "{:?}", r.subtests[0].messages);
}
