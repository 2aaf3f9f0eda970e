//! `if` and `!` in the page script: ECMAScript's if statement (its test converted with
//! ToBoolean, the branch run, then the statement after the `if`; an `await` or `return` inside a
//! branch suspends or ends the whole function) and logical NOT; `else` and `else if` on the
//! lines after; a stray `else` is a parse error at its place; the export writes them as
//! JavaScript's own `if`.

#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::{parse_file, run_file, RunOptions};
use webmcp_ref::Profile;

const SCENARIO: &str = r##"title: if statements

subtest "if and else"
  page top https://a.test/
  controller ac in top
  task in top:
    if ac.signal.aborted:
      y = "aborted"
    else:
      y = "not aborted"
    ac.abort()
    if !ac.signal.aborted:
      z = "not aborted"
    else if ac.signal.reason:
      z = "aborted with a reason"
    else:
      z = "other"
    if false: w = 1
    log "after {y}, {z}"
  run
  expect y == "not aborted"
  expect z == "aborted with a reason"
  expect log == ["after not aborted, aborted with a reason"]

subtest "await inside a branch, and return from one"
  page top https://a.test/
  promise p in top
  script picks:
    if input.wait:
      v = await p
      return v
    return "did not wait"
  task in top:
    await top.registerTool({name: "t", description: "d", execute: picks})
    tools = await top.getTools()
    a = await top.executeTool(tools[0], {wait: false})
    b = await top.executeTool(tools[0], {wait: true})
  task in top:
    resolve p with "waited"
  run
  expect a == '"did not wait"'    [tool-result=json]
  expect b == '"waited"'          [tool-result=json]
  expect a == "did not wait"      [tool-result=strings-as-is, tool-result=chromium-156]
  expect b == "waited"            [tool-result=strings-as-is, tool-result=chromium-156]
"##;

fn run_under(profile: &str) -> webmcp_ref::scenario::FileResult {
    let file = parse_file("if.scn", SCENARIO).unwrap();
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
fn a_branch_runs_by_its_tests_truth_and_the_block_goes_on_after_it() {
    for profile in ["spec", "chromium-156", "literal"] {
        let r = run_under(profile);
        for s in &r.subtests {
            assert!(s.status.held(), "{profile} {:?}: {:?}", s.name, s.messages);
        }
        assert_eq!(r.subtests.len(), 2);
    }
}

#[test]
fn else_belongs_to_the_if_just_above_it() {
    let bad = |body: &str| {
        let text = format!("title: t\nsubtest \"s\"\n  page top https://a.test/\n  task in top:\n{body}");
        parse_file("x.scn", &text).unwrap_err().to_string()
    };
    // No `if` above.
    let e = bad("    x = 1\n    else:\n      y = 1\n");
    assert!(e.starts_with("x.scn:6:5: `else` without an `if` just above it"), "{e}");
    // The chain already ended in `else`.
    let e = bad("    if true:\n      x = 1\n    else:\n      x = 2\n    else:\n      x = 3\n");
    assert!(e.starts_with("x.scn:9:5: `else` without an `if`"), "{e}");
    // At another indentation: not the `if`'s.
    let e = bad("    if true:\n      x = 1\n      else:\n        x = 2\n");
    assert!(e.starts_with("x.scn:7:7: `else` without an `if`"), "{e}");
    // On a line of its own after a `:`.
    let e = bad("    after 1ms: else: x = 1\n");
    assert!(e.contains("`else` without an `if`"), "{e}");
    // An `if` needs its test and its block.
    let e = bad("    if:\n      x = 1\n");
    assert!(e.starts_with("x.scn:5:7: "), "{e}");
    let e = bad("    if true\n");
    assert!(e.contains("expected `:`"), "{e}");
}

#[test]
fn a_million_nots_parse_without_a_deep_stack() {
    let nots = "!".repeat(1_000_001);
    let text = format!("title: t\nsubtest \"s\"\n  page top https://a.test/\n  task in top:\n    x = {nots}true\n  run\n  expect x == false\n");
    let file = parse_file("x.scn", &text).unwrap();
    let r = run_file(&file, &RunOptions::default());
    assert!(r.passed(), "{:?}", r.subtests[0].messages);
}

#[test]
fn the_export_writes_javascripts_if() {
    let file = parse_file("webmcp/x/if.https.html.scn", SCENARIO).unwrap();
    let e = export_file(&file, &Profile::named("chromium-156").unwrap());
    assert!(e.html.contains("if ((!"), "{}", e.html);
    assert!(e.html.contains("} else {"));
    assert_eq!(e.exported().count(), 2);
}
