//! What the host does as HTML and Permissions Policy define it, as a page sees it: the policy
//! an iframe inherits, which documents are secure contexts (`document.modelContext` is
//! `[SecureContext]`), and the origin of an iframe's about:blank document.
//!
//! <https://w3c.github.io/webappsec-permissions-policy/#algo-define-inherited-policy-in-container>,
//! <https://html.spec.whatwg.org/multipage/webappapis.html#secure-context>,
//! <https://html.spec.whatwg.org/multipage/document-sequences.html#determining-the-origin>

use crate::common;

use common::Sim;
use webmcp_ref::host::navigable::DocumentOptions;
use webmcp_ref::host::permissions::parse_policy_header;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::REGISTER_TOOL;

/// `top` (https://a.test) holding `mid` (same origin, with `policy` as its header), holding a
/// frame of `url` with `allow="tools *"`; what registerTool() in that frame gives.
fn registration_under(policy: &str, url: &str) -> String {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let origin = sim.document(top).origin.clone();
    let options = DocumentOptions {
        tools_policy: Some(parse_policy_header(policy, &origin).unwrap()),
        ..DocumentOptions::default()
    };
    let mid = sim
        .w
        .add_iframe(top, "mid", "https://a.test/mid.html", None, options)
        .unwrap();
    let child = sim.frame_allow(mid, "child", url, "tools *");
    sim.task(
        child,
        "r = child.registerTool({name: \"t\", description: \"d\", execute: returns(1)})",
    );
    sim.run();
    match sim.state_of("r") {
        "fulfilled" => "fulfilled".into(),
        _ => sim.rejection_of("r"),
    }
}

#[test]
fn define_an_inherited_policy_step_3_the_embedders_declared_policy_withholds_the_feature_before_allow(
) {
    // tools=(self): b.test is not in mid's declared policy, so allow="tools *" gives nothing.
    assert_eq!(
        registration_under("tools=(self)", "https://b.test/c.html"),
        "NotAllowedError"
    );
    // tools=(self "https://b.test"): b.test may, c.test may not.
    let header = "tools=(self \"https://b.test\")";
    assert_eq!(
        registration_under(header, "https://b.test/c.html"),
        "fulfilled"
    );
    assert_eq!(
        registration_under(header, "https://c.test/c.html"),
        "NotAllowedError"
    );
    // tools=*: the allow attribute decides.
    assert_eq!(
        registration_under("tools=*", "https://c.test/c.html"),
        "fulfilled"
    );
}

#[test]
fn define_an_inherited_policy_steps_6_to_8_without_allow_only_the_embedders_origin() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let same = sim.frame(top, "same", "https://a.test/s.html");
    let other = sim.frame(top, "other", "https://b.test/o.html");
    assert!(sim.is_allowed_to_use_tools(same));
    assert!(!sim.is_allowed_to_use_tools(other));
}

#[test]
fn secure_context_is_decided_by_the_top_level_creation_url() {
    // HTML: an http: page, and an https iframe inside it, are not secure contexts, so
    // document.modelContext is undefined and calling through it throws.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "http://a.test/");
    let child = sim.frame(top, "child", "https://a.test/c.html");
    let c = sim.w.queue_script(top, "x = top.modelContext").unwrap();
    let d = sim
        .w
        .queue_script(child, "child.registerTool({name: \"t\", description: \"d\", execute: returns(1)})")
        .unwrap();
    sim.w.run_until_idle().unwrap();
    assert_eq!(sim.state(c), "fulfilled");
    assert_eq!(sim.value("x"), webmcp_ref::Value::Undefined);
    assert_eq!(sim.rejection(d), "TypeError");
    assert!(!sim.reached(&REGISTER_TOOL, "1"));
    // An http: iframe in an https page: secure by HTML (top-level creation URL)...
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "http://b.test/c.html");
    assert!(sim.document(child).secure_context);
    // ...not under secure-context=every-ancestor (Chromium 156, probes/secure-context).
    let mut sim = Sim::new("chromium-156");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "http://b.test/c.html");
    assert!(!sim.document(child).secure_context);
    assert!(sim.document(top).secure_context);
}

#[test]
fn determining_the_origin_an_iframes_about_blank_document_has_its_containers_origin() {
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame(top, "child", "about:blank");
    assert_eq!(sim.document(child).origin.serialize(), "https://a.test");
    // Same origin: the same event loop, and allowed to use "tools" by the default 'self'.
    assert_eq!(sim.document(child).event_loop, sim.document(top).event_loop);
    sim.task(
        child,
        "await child.registerTool({name: \"t\", description: \"d\", execute: returns(1)})",
    );
    sim.task(top, "tools = await top.getTools()");
    sim.run();
    assert_eq!(sim.tools(child), vec!["t".to_string()]);
    // A top-level about:blank has no creator here: an opaque origin.
    let blank = sim.page("blank", "about:blank");
    assert_eq!(sim.document(blank).origin.serialize(), "null");
}
