//! Reading what an observation gave the agent in expectations: an observation's name is a
//! value there (`o.tools.top["search"].description`), so a scenario can check each observed
//! tool's whole definition (title, description, input schema, annotations), not only its
//! name; the export leaves such expectations out, as it does the other observation checks.

#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::{parse_file, run_file, RunOptions};
use webmcp_ref::Profile;

const SCENARIO: &str = r##"title: observation values
subtest "read the definitions"
  page top https://a.test/
  frame child in top https://b.test/ allow="tools *"
  html in top:
    <form toolname=search tooldescription="Search it"><input name=q required toolparamdescription="the query"></form>
  run
  task in top:
    top.registerTool({name: "alpha", title: "Alpha", description: "first", inputSchema: {type: "object", properties: {n: {type: "number"}}}, annotations: {readOnlyHint: true}, execute: returns(1)})
  task in child:
    child.registerTool({name: "beta", description: "second", execute: returns(1)})
  run
  observe top as o
  expect o.finished == false
  run
  expect o.finished == true
  expect o.outcome == "ready"
  expect o.tools.top["alpha"].title == "Alpha"
  expect o.tools.top["alpha"].inputSchema == {type: "object", properties: {n: {type: "number"}}}
  expect o.tools.top["alpha"].annotations.readOnlyHint == true
  expect o.tools.top["search"].description == "Search it"
  expect o.tools.top["search"].inputSchema.properties.q.description == "the query"
  expect o.tools.child[0].title == null
  expect o.tools.child[0].inputSchema == undefined
  expect o.origins.child == "https://b.test"
"##;

fn run_under(text: &str, profile: &str) -> webmcp_ref::scenario::FileResult {
    let file = parse_file("obs.scn", text).unwrap();
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
fn an_observed_tools_definition_reads_as_the_agent_was_given_it() {
    for profile in ["spec", "chromium-156", "text"] {
        let r = run_under(SCENARIO, profile);
        assert!(r.passed(), "{profile}: {:?}", r.subtests[0].messages);
    }
}

#[test]
fn a_wrong_definition_fails_with_both_values() {
    let text = SCENARIO.replace(
        r#"expect o.tools.top["alpha"].title == "Alpha""#,
        r#"expect o.tools.top["alpha"].title == "Beta""#,
    );
    let r = run_under(&text, "spec");
    assert!(!r.passed());
    let failed: Vec<_> = r.subtests[0].expectations.iter().filter(|e| !e.passed).collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].line, 18);
    assert_eq!((failed[0].expected.as_str(), failed[0].actual.as_str()), ("\"Beta\"", "\"Alpha\""));
}

#[test]
fn an_observation_that_returned_early_has_no_tools() {
    let text = r#"title: t
subtest "navigated"
  page top https://a.test/
  promise p in top
  task in top:
    top.waitForToolsUntil(p)
  run
  observe top as o
  run 1000ms
  navigate top to https://a.test/next.html as next
  run
  expect o.outcome == "navigated"
  expect o.waited == 1000
  expect o.tools == null
  expect o.origins == null
"#;
    let r = run_under(text, "spec");
    assert!(r.passed(), "{:?}", r.subtests[0].messages);
}

#[test]
fn the_export_leaves_observation_reads_out() {
    let file = parse_file("webmcp/x/obs.https.html.scn", SCENARIO).unwrap();
    let e = export_file(&file, &Profile::named("spec").unwrap());
    // Every line of the subtest reads the observation: nothing is left for a page to check,
    // and each line is listed as left out, with why.
    assert_eq!(e.exported().count(), 0);
    assert!(e.html.contains(r#"18: expect o.tools.top["alpha"].title == "Alpha" (the browser agent's observation has no page API)"#), "{}", e.html);
}
