//! A document's `Content-Security-Policy` header and its `sandbox` directive (a `page` or
//! `frame` line's `csp="..."`): the flags it forces join the document's active sandboxing flag
//! set, so an `https:` page gets a new opaque origin and stays a secure context; what WebMCP
//! then does with such a document's tools; the export's `.headers` file.
//!
//! <https://w3c.github.io/webappsec-csp/#directive-sandbox>,
//! <https://html.spec.whatwg.org/multipage/browsers.html#determining-the-origin>

#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::engine::profile::Profile;
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::{parse_file, run_file, FileResult, RunOptions, Status};

fn file(subtests: &str) -> String {
    format!("title: t\n{subtests}")
}

fn run(profile: &str, text: &str) -> FileResult {
    let f = parse_file("csp.scn", &file(text)).unwrap_or_else(|e| panic!("{e}"));
    let options = RunOptions {
        profile: Profile::named(profile).unwrap(),
        ..Default::default()
    };
    run_file(&f, &options)
}

fn assert_passes(profile: &str, text: &str) {
    let r = run(profile, text);
    for s in &r.subtests {
        assert_eq!(s.status, Status::Pass, "{profile}: {}: {:?}", s.name, s.messages);
    }
}

/// HTML "determine the origin" step 1 with the response's forced sandboxing flags: the page's
/// origin is opaque (serialized "null"); registerTool() has no origin check, getTools() lists
/// the tool with the origin "null", and executeTool() cannot parse that (steps 4-5). Under both
/// readings of "secure context" (the top-level creation URL, and Chromium's own origin and
/// ancestors, judged for a sandboxed document by the origin it would have had) the page has a
/// modelContext.
#[test]
fn a_page_sandboxed_by_its_header_has_an_opaque_origin_and_its_tools_cannot_be_executed() {
    let text = r#"subtest "opaque"
  page top https://a.test/ csp="sandbox allow-scripts"
  task in top:
    log "origin {top.origin}"
    await top.registerTool({name: "t", description: "d", execute: returns("x")})
    tools = await top.getTools()
    log "tool origin {tools[0].origin}"
    ran = top.executeTool(tools[0])
  run
  expect log == ["origin null", "tool origin null"]
  expect ran rejected NotSupportedError
"#;
    for profile in ["spec", "chromium-156", "literal"] {
        assert_passes(profile, text);
    }
    // With allow-same-origin, the origin is the URL's, and the tool runs.
    let same = r#"subtest "tuple"
  page top https://a.test/ csp="sandbox allow-scripts allow-same-origin"
  task in top:
    await top.registerTool({name: "t", description: "d", execute: returns("x")})
    tools = await top.getTools()
    ran = top.executeTool(tools[0])
  run
  expect tools[0].origin == "https://a.test"
  expect ran fulfilled
"#;
    assert_passes("spec", same);
}

/// Each sandboxed document gets an origin of its own: an iframe of a sandboxed page is another
/// origin than its parent (the parent's flags are its creation flags too), so its document
/// cannot be scripted by the page.
#[test]
fn a_sandboxed_pages_iframe_inherits_the_flags_and_has_another_opaque_origin() {
    let text = r#"subtest "nested"
  page top https://a.test/ csp="sandbox allow-scripts"
  frame child in top https://a.test/child.html allow="tools *"
  task in top:
    log "child {child.origin}"
  run
  expect log == ["child null"]
  expect child.fullyActive == true
"#;
    assert_passes("spec", text);
    let reach = r#"subtest "reach"
  page top https://a.test/ csp="sandbox allow-scripts"
  frame child in top https://a.test/child.html
  task in top:
    child.registerTool({name: "t", description: "d", execute: returns("x")})
  run
  expect uncaught SecurityError
"#;
    let r = run("spec", reach);
    assert_eq!(r.subtests[0].status, Status::Pass, "{:?}", r.subtests[0].messages);
}

/// A header that sandboxes scripts leaves the document without script: a task of it is an
/// error at the line, not a script that runs anyway.
#[test]
fn a_task_in_a_document_sandboxed_without_allow_scripts_is_an_error_at_its_line() {
    let r = run(
        "spec",
        "subtest \"no scripts\"\n  page top https://a.test/ csp=\"sandbox\"\n  task in top:\n    log \"ran\"\n  run\n",
    );
    let s = &r.subtests[0];
    assert_eq!(s.status, Status::Error);
    assert!(
        s.messages
            .iter()
            .any(|m| m.contains("csp.scn:4") && m.contains("scripting is disabled in top")),
        "{:?}",
        s.messages
    );
}

/// The header is parsed as CSP parses a serialized policy (names case-insensitive, the first
/// `sandbox` counts); a directive the engine does not run is refused with file:line:column.
#[test]
fn a_header_with_another_directive_is_refused_where_it_stands() {
    let e = parse_file(
        "csp.scn",
        &file("subtest \"a\"\n  page top https://a.test/ csp=\"sandbox allow-scripts; script-src 'none'\"\n  run\n"),
    )
    .map(|_| ())
    .expect_err("refused")
    .to_string();
    assert!(e.starts_with("csp.scn:3:"), "{e}");
    assert!(e.contains("bad csp: the `script-src` directive"), "{e}");
    let e = parse_file(
        "csp.scn",
        &file("subtest \"a\"\n  page top https://a.test/ csp=sandbox\n  run\n"),
    )
    .map(|_| ())
    .expect_err("refused")
    .to_string();
    assert!(e.contains("Content-Security-Policy value"), "{e}");
    assert_passes(
        "spec",
        "subtest \"case\"\n  page top https://a.test/ csp=\"SANDBOX ALLOW-SCRIPTS; sandbox\"\n  task in top:\n    log \"{top.origin}\"\n  run\n  expect log == [\"null\"]\n",
    );
}

/// The export writes the test page's header to a `.headers` file (the page is sandboxed as the
/// scenario's is); a subtest whose page has other headers than the file's first is left out,
/// and an iframe's header, which the export's frame page cannot carry, leaves its line out.
#[test]
fn the_export_writes_the_page_header_beside_the_test_and_leaves_out_what_differs() {
    let text = file(
        r#"subtest "sandboxed"
  page top https://a.test/ csp="sandbox allow-scripts"
  task in top:
    log "{top.origin}"
  run
  expect log == ["null"]

subtest "not sandboxed"
  page top https://a.test/
  task in top:
    log "{top.origin}"
  run
  expect log == ["https://a.test"]

subtest "a sandboxed iframe"
  page top https://a.test/ csp="sandbox allow-scripts"
  frame child in top https://b.test/ csp="sandbox allow-scripts"
  run
  expect child.fullyActive == true
"#,
    );
    let f = parse_file("webmcp/csp.https.html.scn", &text).unwrap();
    let e = export_file(&f, &Profile::spec());
    assert_eq!(
        e.headers,
        [(
            "Content-Security-Policy".to_string(),
            "sandbox allow-scripts".to_string()
        )]
    );
    assert_eq!(e.subtests[0].exported_name.as_deref(), Some("sandboxed"));
    assert_eq!(e.subtests[1].exported_name, None);
    assert_eq!(e.subtests[1].left_out[0].kind, "headers");
    assert!(e.subtests[1].left_out[0].why.contains("(none)"), "{:?}", e.subtests[1].left_out);
    assert!(e.subtests[2].left_out.iter().any(|l| l.kind == "csp"));
    let dir = std::env::temp_dir().join(format!("webmcp-ref-csp-export-{}", std::process::id()));
    let written = webmcp_ref::export::write_tree(std::slice::from_ref(&e), &dir).unwrap();
    let headers = written
        .iter()
        .find(|p| p.to_string_lossy().ends_with(".html.headers"))
        .expect("a .headers file");
    assert_eq!(
        std::fs::read_to_string(headers).unwrap(),
        "Content-Security-Policy: sandbox allow-scripts\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `DOC.tools` reads the names in code unit order, as getTools() gives them to a page (the tool
/// map's registration order is not something a page can see).
#[test]
fn the_harness_reads_tool_names_in_code_unit_order() {
    assert_passes(
        "spec",
        r#"subtest "order"
  page top https://a.test/
  task in top:
    await top.registerTool({name: "b", description: "d", execute: returns(1)})
    await top.registerTool({name: "a", description: "d", execute: returns(1)})
    await top.registerTool({name: "B", description: "d", execute: returns(1)})
  run
  expect top.tools == ["B", "a", "b"]
"#,
    );
}
