//! What the host does as HTML and Permissions Policy define it, as a page sees it: the policy
//! an iframe inherits, which documents are secure contexts (`document.modelContext` is
//! `[SecureContext]`), the origin of an iframe's about:blank document, the Window a
//! WindowProxy reaches after a navigation, and which pages' scripts reach each other's objects
//! (agents and browsing context groups).
//!
//! <https://w3c.github.io/webappsec-permissions-policy/#algo-define-inherited-policy-in-container>,
//! <https://html.spec.whatwg.org/multipage/webappapis.html#secure-context>,
//! <https://html.spec.whatwg.org/multipage/document-sequences.html#determining-the-origin>,
//! <https://html.spec.whatwg.org/multipage/nav-history-apis.html#windowproxy>,
//! <https://html.spec.whatwg.org/multipage/webappapis.html#integration-with-the-javascript-agent-formalism>

use crate::common;

use common::Sim;
use webmcp_ref::host::navigable::DocumentOptions;
use webmcp_ref::host::permissions::parse_policy_header;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::host::promise::PromiseState;
use webmcp_ref::webmcp::{EXECUTE_TOOL, REGISTER_TOOL, UNREGISTER_A_TOOL};

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

/// `top` with an iframe `child` (https://a.test) whose first document registers `t`, listed by
/// `top` as `tools`; the iframe then navigates to `next_url`, whose document registers its own
/// `t`, and `top` calls executeTool() with the listed tool (binding `r`).
fn call_a_listed_tool_after_its_iframe_navigated(sim: &mut Sim, next_url: &str) {
    let top = sim.page("top", "https://a.test/");
    let child = sim.frame_allow(top, "child", "https://a.test/child.html", "tools *");
    sim.task(
        child,
        "await child.registerTool({name: \"t\", description: \"d\", execute: returns(\"old\")})",
    );
    sim.run();
    sim.task(top, "tools = await top.getTools()");
    sim.run();
    let next = sim.w.navigate(child, next_url, "next", false).unwrap();
    sim.task(
        next,
        "await next.registerTool({name: \"t\", description: \"d\", execute: returns(\"new\")})",
    );
    sim.run();
    sim.task(top, "r = top.executeTool(tools[0], {})");
    sim.run();
}

#[test]
fn windowproxy_a_registered_tools_window_reaches_the_document_its_iframe_shows_now() {
    // HTML: script holds a Window only through its navigable's WindowProxy, and Web IDL's
    // conversion to `Window` (executeTool() 1, used at 12-13) takes the Window the proxy wraps
    // at the call. After a same-origin navigation, the new document's `t` runs (Chromium 156
    // agrees: webmcp/probes/registered-tool-window).
    let mut sim = Sim::new("spec");
    call_a_listed_tool_after_its_iframe_navigated(&mut sim, "https://a.test/next.html");
    assert_eq!(sim.outcome_of("r"), Ok("\"new\"".into()));
    // After a cross-origin navigation, the proxy reaches a document of another origin than the
    // tool's: 16.4's check rejects.
    let mut sim = Sim::new("spec");
    call_a_listed_tool_after_its_iframe_navigated(&mut sim, "https://b.test/next.html");
    assert_eq!(sim.outcome_of("r"), Err("UnknownError".into()));
    assert!(sim.reached(&EXECUTE_TOOL, "16.4"));
    // The other reading pins the tool to the document that listed it: 16.1 finds it gone.
    let mut sim = Sim::with("spec", &[("registered-tool-window", "document")]);
    call_a_listed_tool_after_its_iframe_navigated(&mut sim, "https://a.test/next.html");
    assert_eq!(sim.outcome_of("r"), Err("UnknownError".into()));
    assert!(!sim.reached(&EXECUTE_TOOL, "16.2"));
}

#[test]
fn agents_a_page_opened_by_another_shares_its_agent_and_event_loop() {
    // HTML: a page opened by another (an auxiliary browsing context) is in its opener's
    // browsing context group, and same-site documents of one group are one agent with one
    // event loop. Aborting, from the popup, the controller of a tool registered by `top` runs
    // "unregister a tool" on `top`'s own event loop: step 1's Assert holds.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let popup = sim
        .w
        .open_page_in_group(
            "popup",
            "https://a.test/popup.html",
            Some(top),
            DocumentOptions::default(),
        )
        .unwrap();
    assert_eq!(
        sim.document(top).event_loop,
        sim.document(popup).event_loop
    );
    sim.task(
        top,
        "ac = AbortController()\nr = top.registerTool({name: \"t\", description: \"d\", execute: returns(1)}, {signal: ac.signal})",
    );
    sim.run();
    sim.task(popup, "ac.abort()");
    sim.run();
    assert!(sim.tools(top).is_empty());
    assert!(sim.reached(&UNREGISTER_A_TOOL, "1"));
    assert!(sim.findings().is_empty(), "{:?}", sim.findings());
}

#[test]
fn agents_pages_of_two_browsing_context_groups_cannot_reach_each_others_objects() {
    // Two pages opened independently are two browsing context groups, two agents, two event
    // loops: the popup's script has no way to the controller `top` made, nor to `top` itself.
    let mut sim = Sim::new("spec");
    let top = sim.page("top", "https://a.test/");
    let other = sim.page("other", "https://a.test/other.html");
    assert_ne!(
        sim.document(top).event_loop,
        sim.document(other).event_loop
    );
    sim.task(top, "ac = AbortController()");
    sim.run();
    let aborting = sim.w.queue_script(other, "ac.abort()").unwrap();
    let reaching = sim.w.queue_script(other, "x = top.modelContext").unwrap();
    sim.w.run_until_idle().unwrap();
    for (p, name) in [(aborting, "ac"), (reaching, "top")] {
        let PromiseState::Rejected(e) = sim.w.promise_state(p) else {
            panic!("{name}: the script ran");
        };
        let shown = sim.w.display_value(e);
        assert!(shown.contains("ReferenceError"), "{shown}");
        assert!(shown.contains(&format!("{name} is")), "{shown}");
        assert!(shown.contains("opened by"), "{shown}");
    }
    sim.w
        .queue_script(top, "log \"{ac.signal.aborted}\"")
        .unwrap();
    sim.w.run_until_idle().unwrap();
    assert_eq!(sim.logged(), vec!["false"]);
}
