//! The `iframe` element of a document's markup: its content navigable (made by the
//! post-connection steps, destroyed by the removing steps), the processing of its `src` and
//! `srcdoc`, its `load` event, its `name` as the target name a form's `target` finds, and what
//! WebMCP then sees in it.
//!
//! <https://html.spec.whatwg.org/multipage/iframe-embed-object.html#the-iframe-element>

#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::host::keys::{DocumentKey, NavigableKey, NodeKey};
use webmcp_ref::host::spec::FORM_SUBMISSION_ALGORITHM;
use webmcp_ref::webmcp::DECLARATIVE_SUBMISSION_STEPS;
use webmcp_ref::host::events::{EventTargetRef, ListenerOptions};

use crate::common::Sim;
use crate::dom_support::{active_url, id, listen, listen_with, page};

fn content(s: &Sim, iframe: NodeKey) -> NavigableKey {
    s.w.content_navigable(iframe).expect("the iframe has a content navigable")
}

fn content_document(s: &Sim, iframe: NodeKey) -> DocumentKey {
    s.w.navigable(content(s, iframe))
        .active_document
        .expect("its navigable has an active document")
}

fn content_url(s: &Sim, iframe: NodeKey) -> String {
    let doc = content_document(s, iframe);
    s.w.document(doc).url.to_string()
}

/// A capturing listener at the document's body that logs each `load` with its target: `load`
/// does not bubble, and an iframe's first one fires while it is being inserted, before a
/// listener could be added to it.
fn body(s: &Sim, doc: DocumentKey) -> NodeKey {
    let root = s.w.document_node(doc).expect("a tree");
    s.w.query_selector(root, "body").unwrap().expect("a body")
}

fn log_loads(s: &mut Sim, doc: DocumentKey) {
    let body = body(s, doc);
    listen_with(
        s,
        doc,
        EventTargetRef::Node(body),
        "load",
        r#"log "load at {event.target}""#,
        ListenerOptions {
            capture: true,
            ..ListenerOptions::default()
        },
    );
}

#[test]
fn post_connection_1_an_iframe_of_markup_gets_an_about_blank_document_of_its_container_origin() {
    let (s, top) = page(r#"<iframe id=f name=frame1></iframe>"#);
    let f = id(&s, top, "f");
    let doc = content_document(&s, f);
    assert_eq!(content_url(&s, f), "about:blank");
    assert_eq!(s.w.document(doc).origin, s.w.document(top).origin);
    assert!(s.w.is_fully_active(doc));
    assert_eq!(s.w.target_name(content(&s, f)), "frame1");
    assert_eq!(s.w.container_element(doc), Some(f));
    assert_eq!(s.w.document(top).child_navigables, vec![content(&s, f)]);
}

#[test]
fn process_the_iframe_attributes_2_3_the_first_about_blank_fires_load_during_insertion() {
    let (mut s, top) = page("<body><p id=p></p></body>");
    log_loads(&mut s, top);
    let p = id(&s, top, "p");
    s.w.insert_adjacent_html(p, "<iframe id=f></iframe>").unwrap();
    // Synchronously, inside the insertion: no task has run.
    assert_eq!(s.logged(), ["load at iframe#f"]);
    s.run();
    assert_eq!(s.logged(), ["load at iframe#f"], "no second load");
}

#[test]
fn process_the_iframe_attributes_2_7_a_src_is_navigated_to_and_load_follows_the_commit() {
    let (mut s, top) = page("<body><p id=p></p></body>");
    log_loads(&mut s, top);
    let p = id(&s, top, "p");
    s.w.insert_adjacent_html(p, "<iframe id=f src='/child.html?x#y'></iframe>")
        .unwrap();
    let f = id(&s, top, "f");
    // The first document is about:blank until the navigation commits, and no load fired yet.
    assert_eq!(content_url(&s, f), "about:blank");
    assert!(s.logged().is_empty(), "{:?}", s.logged());
    s.run();
    assert_eq!(content_url(&s, f), "https://a.test/child.html?x#y");
    assert_eq!(s.logged(), ["load at iframe#f"]);
    // Setting src again navigates again; so does removing it (to about:blank, not initial).
    s.w.set_attribute(f, "src", "other.html").unwrap();
    s.run();
    assert_eq!(content_url(&s, f), "https://a.test/other.html");
    s.w.remove_attribute(f, "src").unwrap();
    s.run();
    assert_eq!(content_url(&s, f), "about:blank");
    assert_eq!(s.logged().len(), 3, "{:?}", s.logged());
}

#[test]
fn shared_attribute_processing_3_an_iframe_does_not_load_a_url_an_ancestor_shows() {
    // The page's own URL (fragments aside) is not loaded again inside it.
    let (mut s, top) = page("<iframe id=f src='page.html#again'></iframe>");
    let f = id(&s, top, "f");
    s.run();
    assert_eq!(content_url(&s, f), "about:blank");
}

#[test]
fn srcdoc_1_the_markup_is_the_about_srcdoc_documents_and_wins_over_src() {
    let (mut s, top) = page(r#"<iframe id=f src="/ignored.html" srcdoc="<p id=inner>hi</p>"></iframe>"#);
    let f = id(&s, top, "f");
    s.run();
    assert_eq!(content_url(&s, f), "about:srcdoc");
    let doc = content_document(&s, f);
    assert_eq!(s.w.document(doc).origin, s.w.document(top).origin);
    assert!(s.w.get_element_by_id(doc, "inner").is_some());
    // With srcdoc present, a change of src is not processed.
    s.w.set_attribute(f, "src", "/still-ignored.html").unwrap();
    s.run();
    assert_eq!(content_url(&s, f), "about:srcdoc");
}

#[test]
fn removing_steps_destroy_the_child_navigable_with_its_documents() {
    let (mut s, top) = page(r#"<div id=d><iframe id=f srcdoc="<iframe id=g></iframe>"></iframe></div>"#);
    s.run();
    let f = id(&s, top, "f");
    let nav = content(&s, f);
    let doc = content_document(&s, f);
    let g = id(&s, doc, "g");
    let inner = content_document(&s, g);
    let d = id(&s, top, "d");
    s.w.remove_node(d);
    assert!(s.w.content_navigable(f).is_none());
    assert!(s.w.navigable(nav).destroyed);
    assert!(!s.w.is_fully_active(doc));
    assert!(!s.w.is_fully_active(inner));
    assert!(s.w.document(top).child_navigables.is_empty());
    // Inserted again, it gets a new navigable.
    let body = body(&s, top);
    s.w.append_child(body, d).unwrap();
    assert_ne!(content(&s, f), nav);
}

#[test]
fn a_removed_iframes_pending_load_does_not_fire() {
    let (mut s, top) = page("<body><p id=p></p></body>");
    log_loads(&mut s, top);
    let p = id(&s, top, "p");
    s.w.insert_adjacent_html(p, "<iframe id=f src=/x.html></iframe>").unwrap();
    let f = id(&s, top, "f");
    // Run until the navigation has committed, and the load task is queued.
    while content_url(&s, f) == "about:blank" {
        assert!(s.step(), "the navigation commits");
    }
    s.w.remove_node(f);
    s.run();
    assert!(s.logged().is_empty(), "{:?}", s.logged());
}

#[test]
fn post_connection_an_iframe_in_a_document_without_a_browsing_context_gets_none() {
    let (mut s, top) = page("<iframe id=f></iframe>");
    let f = id(&s, top, "f");
    let doc = content_document(&s, f);
    let d = s.w.ensure_document_node(doc);
    s.w.remove_node(f);
    // `doc` is destroyed with its navigable: markup inserted into it makes no navigable.
    let html = s.w.create_element(doc, "div").unwrap();
    s.w.append_child(d, html).unwrap();
    s.w.insert_adjacent_html(html, "<iframe id=g></iframe>").unwrap();
    let g = id(&s, doc, "g");
    assert!(s.w.content_navigable(g).is_none());
}

#[test]
fn a_forms_target_names_the_iframe_and_its_navigation_stays_inside_it() {
    let (mut s, top) = page(
        r#"<form id=form action="/search" target=results><input name=q value=cats></form>
<iframe id=f name=results></iframe>"#,
    );
    let form = id(&s, top, "form");
    let f = id(&s, top, "f");
    listen(&mut s, f, "load", r#"log "results loaded""#);
    s.w.submit(form);
    s.run();
    assert_eq!(active_url(&s, top), "https://a.test/page.html", "the page stays");
    assert_eq!(content_url(&s, f), "https://a.test/search?q=cats");
    assert_eq!(s.logged(), ["results loaded"]);
    // A renamed iframe is found by its new name only.
    s.w.set_attribute(f, "name", "other").unwrap();
    s.w.submit(form);
    s.run();
    assert_eq!(content_url(&s, f), "https://a.test/search?q=cats");
    // No navigable is named "results" now: the submission opens a new page, which the
    // navigation then takes to the form's URL.
    assert_eq!(active_url(&s, top), "https://a.test/page.html");
    let opened = s.w.document_named("results_3").expect("a new page named after the target");
    let nav = s.w.document(opened).navigable.expect("a navigable");
    assert_eq!(s.w.navigable(nav).parent, None);
    assert_eq!(active_url(&s, opened), "https://a.test/search?q=cats");
}

#[test]
fn a_declarative_tool_in_an_iframe_of_markup_is_listed_by_its_page() {
    let (mut s, top) = page(
        r#"<iframe id=f srcdoc="<form toolname=inner tooldescription='In the frame'><input name=q></form>"></iframe>"#,
    );
    s.run();
    let p = s.task(top, "tools = await top.getTools()\nlog \"{tools[0].name} {tools[0].description}\"");
    s.run();
    assert_eq!(s.state(p), "fulfilled");
    assert_eq!(s.logged(), ["inner In the frame"]);
    // Removing the iframe takes its tool away.
    let f = id(&s, top, "f");
    s.w.remove_node(f);
    s.run();
    let p = s.task(top, "tools = await top.getTools()\nlog \"{tools.length}\"");
    s.run();
    assert_eq!(s.state(p), "fulfilled");
    assert_eq!(s.logged(), ["inner In the frame", "0"]);
}

#[test]
fn sandbox_without_allow_same_origin_gives_a_new_opaque_origin() {
    let (mut s, top) = page(
        r#"<iframe id=a sandbox></iframe><iframe id=b sandbox></iframe>
<iframe id=c sandbox="ALLOW-SAME-ORIGIN allow-scripts"></iframe>"#,
    );
    s.run();
    let (a, b, c) = (id(&s, top, "a"), id(&s, top, "b"), id(&s, top, "c"));
    let origin = |s: &Sim, f| s.w.document(content_document(s, f)).origin.clone();
    assert_eq!(origin(&s, a).serialize(), "null");
    assert_ne!(origin(&s, a), origin(&s, b), "each sandboxed document's origin is its own");
    assert_eq!(origin(&s, c), s.w.document(top).origin, "tokens are case-insensitive");
    let flags = s.w.document(content_document(&s, a)).sandbox;
    assert!(flags.origin && flags.scripts && flags.forms);
    assert!(s.w.scripting_is_disabled(content_document(&s, a)));
    assert!(!s.w.scripting_is_disabled(content_document(&s, c)));
}

#[test]
fn a_sandbox_attribute_change_takes_effect_at_the_next_navigation_and_nested_documents_inherit() {
    let (mut s, top) = page(r#"<iframe id=f srcdoc="<iframe id=inner></iframe>"></iframe>"#);
    s.run();
    let f = id(&s, top, "f");
    let first = content_document(&s, f);
    s.w.set_attribute(f, "sandbox", "allow-scripts").unwrap();
    assert!(!s.w.document(first).sandbox.origin, "the current document keeps its flags");
    // Navigated again (a change of srcdoc), the new document is sandboxed, and so is the
    // document of the iframe inside it, which has no sandbox attribute of its own.
    s.w.set_attribute(f, "srcdoc", "<iframe id=inner></iframe>").unwrap();
    s.run();
    let second = content_document(&s, f);
    assert_ne!(first, second);
    assert!(s.w.document(second).sandbox.origin);
    assert!(!s.w.document(second).sandbox.scripts);
    let inner = id(&s, second, "inner");
    let nested = content_document(&s, inner);
    assert!(s.w.document(nested).sandbox.origin && s.w.document(nested).sandbox.forms);
    assert_eq!(s.w.document(nested).origin.serialize(), "null");
}

#[test]
fn form_submission_4_a_document_sandboxed_without_allow_forms_submits_nothing() {
    let (mut s, top) = page(
        r#"<iframe id=f sandbox="allow-same-origin allow-scripts" srcdoc="<form id=form action=/sent><input name=q value=x></form>"></iframe>"#,
    );
    s.run();
    let f = id(&s, top, "f");
    let doc = content_document(&s, f);
    let form = id(&s, doc, "form");
    listen(&mut s, form, "submit", r#"log "submit""#);
    s.w.request_submit(form, None).unwrap();
    s.w.submit(form);
    s.run();
    assert!(s.logged().is_empty(), "{:?}", s.logged());
    assert_eq!(content_url(&s, f), "about:srcdoc");
    assert!(s.reached(&FORM_SUBMISSION_ALGORITHM, "4"));
}

#[test]
fn declarative_tool_of_a_form_2_no_tool_where_scripting_is_disabled() {
    let (mut s, top) = page(
        r#"<iframe sandbox="allow-same-origin" srcdoc="<form toolname=off tooldescription=d></form>"></iframe>
<iframe sandbox="allow-same-origin allow-scripts" srcdoc="<form toolname=on tooldescription=d></form>"></iframe>"#,
    );
    s.run();
    let p = s.task(top, "tools = await top.getTools()\nlog \"{tools.length} {tools[0].name}\"");
    s.run();
    assert_eq!(s.state(p), "fulfilled");
    assert_eq!(s.logged(), ["1 on"]);
}

fn sandboxed_submission(switch: &str) -> Sim {
    let mut s = Sim::with("spec", &[("declarative-sandboxed-submission", switch)]);
    let top = s.page("top", "https://a.test/page.html");
    s.w.parse_html_document(
        top,
        r#"<iframe sandbox="allow-same-origin allow-scripts" srcdoc="<form toolname=t tooldescription=d toolautosubmit action=/x><input name=q></form>"></iframe>"#,
    )
    .unwrap();
    s.run();
    s.task(top, "tools = await top.getTools()\nr = top.executeTool(tools[0], {q: \"v\"})");
    s.run();
    s
}

#[test]
fn declarative_submission_steps_7_a_refused_submission_fails_or_hangs_by_the_switch() {
    let s = sandboxed_submission("fail");
    assert_eq!(s.state_of("r"), "rejected");
    assert_eq!(s.rejection_of("r"), "UnknownError");
    let s = sandboxed_submission("bug-pending");
    assert_eq!(s.state_of("r"), "pending");
    assert!(s.reached(&DECLARATIVE_SUBMISSION_STEPS, "7"));
}
