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
