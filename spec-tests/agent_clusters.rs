//! Agent clusters keyed by origin or by site (a `page` or `frame` line's `site-keyed`, the
//! response's `Origin-Agent-Cluster: ?0`), as HTML decides them through a browsing context
//! group's historical agent cluster key map, and the `agent-cluster-check` switch that refuses
//! WebMCP's methods in a cluster that is not origin-keyed (the older text's registerTool() step,
//! and Chromium 156 in all three methods).
//!
//! <https://html.spec.whatwg.org/multipage/webappapis.html#obtain-similar-origin-window-agent>,
//! <https://html.spec.whatwg.org/multipage/document-sequences.html#historical-agent-cluster-key-map>

#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::engine::profile::Profile;
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::{parse_file, run_file, FileResult, RunOptions, Status};

fn run(profile: Profile, text: &str) -> FileResult {
    let f = parse_file("agent-clusters.scn", &format!("title: t\n{text}"))
        .unwrap_or_else(|e| panic!("{e}"));
    run_file(
        &f,
        &RunOptions {
            profile,
            ..Default::default()
        },
    )
}

fn assert_passes(profile: Profile, text: &str) {
    let name = profile.name.clone();
    for s in &run(profile, text).subtests {
        assert_eq!(s.status, Status::Pass, "{name}: {}: {:?}", s.name, s.messages);
    }
}

fn spec_with_check() -> Profile {
    let mut p = Profile::spec();
    p.set("agent-cluster-check", "origin-keyed").unwrap();
    p
}

/// The first document of an origin in a browsing context group decides how that origin is keyed
/// for the group's life: a same-origin iframe and a same-origin page opened later stay site-keyed
/// whatever they ask; an origin new to the group is keyed as its own response asks.
#[test]
fn the_first_document_of_an_origin_decides_its_keying_for_the_group() {
    // Each document, and whether it is site-keyed (so refused under the check).
    let documents = [
        ("top", true),
        ("same", true),
        ("other", false),
        ("asked", true),
        ("later", true),
        ("fresh", true),
        ("apart", false),
    ];
    let scenario = |checked: bool| {
        let mut text = String::from(
            r#"subtest "keys"
  page top https://a.test/ site-keyed
  frame same in top https://a.test/same.html
  frame other in top https://b.test/other.html allow="tools *"
  frame asked in top https://c.test/asked.html allow="tools *" site-keyed
  page later https://a.test/later.html opened by top
  page fresh https://d.test/ opened by top site-keyed
  page apart https://a.test/
"#,
        );
        for (d, _) in documents {
            text.push_str(&format!(
                "  task in {d}:\n    r_{d} = {d}.registerTool({{name: \"t\", description: \"d\", execute: returns(1)}})\n"
            ));
        }
        text.push_str("  run\n");
        for (d, site_keyed) in documents {
            let outcome = if checked && site_keyed {
                "rejected SecurityError"
            } else {
                "fulfilled"
            };
            let tools = if checked && site_keyed { "[]" } else { "[\"t\"]" };
            text.push_str(&format!("  expect r_{d} {outcome}\n  expect {d}.tools == {tools}\n"));
        }
        text
    };
    assert_passes(spec_with_check(), &scenario(true));
    assert_passes(Profile::named("chromium-156").unwrap(), &scenario(true));
    // Under the text, nobody is refused.
    assert_passes(Profile::spec(), &scenario(false));
}

/// The check comes right after the fully-active one, before the permissions policy, in
/// registerTool(), getTools() and executeTool(); its message is the engine's own unless the
/// profile words errors as Chromium 156 does.
#[test]
fn the_check_refuses_all_three_methods_before_the_policy_with_a_message_per_profile() {
    let text = r#"subtest "methods"
  page top https://a.test/ site-keyed
  frame child in top https://a.test/child.html policy="tools=()"
  task in child:
    registering = child.registerTool({name: "t", description: "d", execute: returns(1)})
    listing = child.getTools()
    running = child.executeTool({name: "t", description: "d", window: top.window, origin: top.origin}, {})
  run
  expect registering rejected SecurityError
  expect listing rejected SecurityError
  expect running rejected SecurityError
  expect child.tools == []
"#;
    assert_passes(spec_with_check(), text);
    assert_passes(Profile::named("chromium-156").unwrap(), text);
    let messages = |profile: Profile| {
        let r = run(
            profile,
            r#"subtest "message"
  page top https://a.test/ site-keyed
  task in top:
    registering = top.registerTool({name: "t", description: "d", execute: returns(1)})
  run
  expect registering fulfilled
"#,
        );
        r.subtests[0].expectations[0].actual.clone()
    };
    let engine = messages(spec_with_check());
    assert!(engine.contains("agent cluster is not origin-keyed"), "{engine}");
    let chromium = messages(Profile::named("chromium-156").unwrap());
    assert!(
        chromium.contains("document.modelContext cannot be used when document.domain is enabled."),
        "{chromium}"
    );
    // Without the check, the policy answers.
    assert_passes(
        Profile::spec(),
        &text
            .replace("expect registering rejected SecurityError", "expect registering rejected NotAllowedError")
            .replace("expect listing rejected SecurityError", "expect listing rejected NotAllowedError")
            .replace("expect running rejected SecurityError", "expect running rejected NotAllowedError"),
    );
}

/// The export serves a site-keyed test page with `Origin-Agent-Cluster: ?0` in its `.headers`
/// file, and a site-keyed iframe's document through wptserve's `pipe=header(...)`.
#[test]
fn the_export_serves_site_keyed_documents_with_origin_agent_cluster_off() {
    let text = r#"title: t
subtest "page"
  page top https://a.test/ site-keyed
  frame child in top https://b.test/child.html site-keyed allow="tools *"
  task in child:
    r = child.registerTool({name: "t", description: "d", execute: returns(1)})
  run
  expect r rejected SecurityError
"#;
    let f = parse_file("agent-clusters.https.html.scn", text).unwrap();
    let exported = export_file(&f, &Profile::named("chromium-156").unwrap());
    assert_eq!(
        exported.headers,
        vec![("Origin-Agent-Cluster".to_string(), "?0".to_string())]
    );
    assert!(exported.html.contains("site_keyed: true"), "{}", exported.html);
    assert_eq!(exported.exported().count(), 1);
}

/// A form of a site-keyed document is no tool under the check (the engine's "declarative tool
/// of a form", step 2; Chromium 156 fires no toolchange for it), and a tool under the text; a
/// form of an origin-keyed document of the same page is a tool either way.
#[test]
fn a_form_of_a_site_keyed_document_is_no_tool_under_the_check() {
    let scenario = |checked: bool| {
        // Under the text the parser inserts the form, then its input: two toolchanges
        // (declarative-registration-timing=sync).
        let (site_tools, log) = if checked {
            (r#"[]"#, r#"[]"#)
        } else {
            (r#"["site_form"]"#, r#"["toolchange in site", "toolchange in site"]"#)
        };
        format!(
            r#"subtest "forms"
  page top https://a.test/
  frame site in top https://b.test/site.html site-keyed allow="tools *"
  frame keyed in top https://c.test/keyed.html allow="tools *"
  task in site:
    on site toolchange: log "toolchange in site"
  html in site:
    <form toolname="site_form" tooldescription="d"><input name="q"></form>
  html in keyed:
    <form toolname="keyed_form" tooldescription="d"><input name="q"></form>
  run
  expect site.tools == {site_tools}
  expect keyed.tools == ["keyed_form"]
  expect log == {log}
"#
        )
    };
    assert_passes(spec_with_check(), &scenario(true));
    assert_passes(Profile::named("chromium-156").unwrap(), &scenario(true));
    assert_passes(Profile::spec(), &scenario(false));
}

/// executetool-input-check: under the text's `optional object inputObject`, Web IDL refuses a
/// string input before any step, so a site-keyed caller, a caller that may not use "tools" and a
/// tool whose origin does not parse all get the TypeError; Chromium 156 refuses it at step 9,
/// after those checks have answered.
#[test]
fn an_input_that_is_not_an_object_is_refused_before_the_steps_or_at_step_9() {
    let text = |at_step_9: bool| {
        let [keyed, policy, origin, unknown] = if at_step_9 {
            ["SecurityError", "NotAllowedError", "NotSupportedError", "TypeError"]
        } else {
            ["TypeError"; 4]
        };
        format!(
            r#"subtest "inputs"
  page top https://a.test/
  frame keyed in top https://b.test/keyed.html site-keyed allow="tools *"
  frame barred in top https://a.test/barred.html policy="tools=()"
  task in keyed:
    r_keyed = keyed.executeTool({{name: "t", description: "d", window: keyed.window, origin: keyed.origin}}, "")
  task in barred:
    r_policy = barred.executeTool({{name: "t", description: "d", window: barred.window, origin: barred.origin}}, "")
  task in top:
    r_origin = top.executeTool({{name: "t", description: "d", window: top.window, origin: "null"}}, 5)
    r_unknown = top.executeTool({{name: "t", description: "d", window: top.window, origin: top.origin}}, null)
  run
  expect r_keyed rejected {keyed}
  expect r_policy rejected {policy}
  expect r_origin rejected {origin}
  expect r_unknown rejected {unknown}
"#
        )
    };
    let mut text_order = spec_with_check();
    text_order.set("executetool-input-check", "webidl").unwrap();
    assert_passes(text_order, &text(false));
    let mut step_9 = spec_with_check();
    step_9.set("executetool-input-check", "at-step-9").unwrap();
    assert_passes(step_9, &text(true));
    assert_passes(Profile::named("chromium-156").unwrap(), &text(true));
    // The message each profile gives at step 9.
    let r = run(
        Profile::named("chromium-156").unwrap(),
        &text(true).replace("expect r_unknown rejected TypeError", "expect r_unknown fulfilled"),
    );
    let actual = &r.subtests[0].expectations[3].actual;
    assert!(
        actual.contains("Failed to execute 'executeTool' on 'ModelContext': invalid input object: value is not an object"),
        "{actual}"
    );
}

/// Markup for a cross-origin iframe is exported: the test page sends it to the frame's helper
/// page, in order with the frame's tasks, and the subtest is not cut there.
#[test]
fn markup_for_a_cross_origin_iframe_is_exported_as_a_message_to_its_frame() {
    let text = r#"title: t
subtest "markup"
  page top https://a.test/
  frame child in top https://b.test/child.html site-keyed
  html in child:
    <form toolname="f" tooldescription="d"><input name="q"></form>
  task in child:
    listing = child.getTools()
  run
  expect listing rejected SecurityError
"#;
    let f = parse_file("markup.https.html.scn", text).unwrap();
    let exported = export_file(&f, &Profile::named("chromium-156").unwrap());
    assert_eq!(exported.exported().count(), 1);
    assert!(
        exported.html.contains(r#"w.html("child", "<form toolname=\"f\" tooldescription=\"d\"><input name=\"q\"><\/form>")"#),
        "{}",
        exported.html
    );
    let script = include_str!("../src/export/assets/webmcp-ref.js");
    assert!(script.contains(r#"this.post(d, { op: "html", markup });"#));
    assert!(script.contains(r#"case "html":"#));
}
