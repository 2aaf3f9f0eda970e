//! What the scenario language gained for served pages: `at TIME:` and `when DOC exists:`
//! blocks (actions that happen later, between units of work), and the `serve` line (where
//! `webmcp-ref serve` hands the world to agents). Under `run` they keep their meaning, so a
//! served page's timeline can be checked like any subtest.

#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::scenario::ast::ActionKind;
use webmcp_ref::scenario::runner::{unmet_requirement, SubtestRun};
use webmcp_ref::scenario::{parse_file, run_file, RunOptions, Status};

fn run(source: &str) -> webmcp_ref::scenario::FileResult {
    let file = parse_file("t.scn", source).expect("parses");
    run_file(&file, &RunOptions::default())
}

fn assert_passes(source: &str) {
    let r = run(source);
    for s in &r.subtests {
        assert_eq!(
            s.status,
            Status::Pass,
            "{}: {:?}\n{:#?}",
            s.name,
            s.messages,
            s.expectations
                .iter()
                .filter(|e| !e.passed)
                .collect::<Vec<_>>()
        );
    }
}

fn parse_error(source: &str) -> String {
    parse_file("t.scn", source)
        .expect_err("a parse error")
        .to_string()
}

#[test]
fn an_at_block_runs_when_the_clock_reaches_its_time() {
    assert_passes(
        r#"title: t
subtest "s"
  page top https://a.test/
  at 1500ms:
    task in top:
      top.registerTool({name: "late", description: "d", execute: returns(1)})
  run 1499ms
  expect top.tools == []
  run 1ms
  expect top.tools == ["late"]
  expect time == 1500ms
"#,
    );
}

#[test]
fn an_at_block_runs_before_the_pages_timers_due_at_the_same_moment() {
    assert_passes(
        r#"title: t
subtest "s"
  page top https://a.test/
  task in top:
    after 1s: log "page timer"
  at 1s: task in top: log "at block's task"
  run
  expect log == ["at block's task", "page timer"]
"#,
    );
}

#[test]
fn run_goes_on_until_every_at_block_has_run() {
    assert_passes(
        r#"title: t
subtest "s"
  page top https://a.test/
  at 10s:
    close top
  run
  expect time == 10000ms
  expect top.fullyActive == false
"#,
    );
}

#[test]
fn a_when_block_runs_once_its_document_exists() {
    assert_passes(
        r#"title: t
subtest "s"
  page top https://a.test/
  script go:
    navigate top to https://a.test/next as next
    return "going"
  task in top:
    top.registerTool({name: "go", description: "d", execute: go})
  when next exists:
    task in next:
      next.registerTool({name: "arrived", description: "d", execute: returns(1)})
      log "next's script ran"
  run
  task in top:
    tools = await top.getTools()
    r = await top.executeTool(tools[0], {})
  run
  expect next.tools == ["arrived"]
  expect log == ["next's script ran"]
"#,
    );
}

#[test]
fn a_one_line_block_holds_one_action() {
    assert_passes(
        r#"title: t
subtest "s"
  page top https://a.test/
  promise p in top
  task in top: top.waitForToolsUntil(p)
  at 2s: resolve p
  run 1s
  expect top.toolsReady == false
  run
  expect top.toolsReady == true
  expect time == 2000ms
"#,
    );
}

#[test]
fn a_block_may_declare_what_later_lines_use() {
    assert_passes(
        r#"title: t
subtest "s"
  page top https://a.test/
  at 1s: frame ad in top https://a.test/ad.html
  at 2s:
    promise p in ad
  run
  expect ad.fullyActive == true
  expect p.state == "pending"
"#,
    );
}

#[test]
fn serve_does_nothing_under_run() {
    assert_passes(
        r#"title: t
subtest "s"
  page top https://a.test/
  serve
  run
  expect top.tools == []
"#,
    );
}

#[test]
fn the_serve_point_is_the_serve_line_or_the_first_drive_or_expectation() {
    let file = parse_file(
        "t.scn",
        r#"title: t
subtest "with serve"
  page top https://a.test/
  run
  serve
  expect top.tools == []

subtest "without"
  page top https://a.test/
  task in top: log "x"
  observe top => ready
  run

subtest "setup only"
  page top https://a.test/
"#,
    )
    .unwrap();
    assert_eq!(SubtestRun::serve_point(&file.subtests[0]), 2);
    assert_eq!(SubtestRun::serve_point(&file.subtests[1]), 2);
    assert_eq!(SubtestRun::serve_point(&file.subtests[2]), 1);
}

#[test]
fn lines_before_the_serve_point_that_do_not_hold_stop_serving() {
    let file = parse_file(
        "t.scn",
        r#"title: t
subtest "s"
  page top https://a.test/
  run
  expect top.tools == ["missing"]
  serve
"#,
    )
    .unwrap();
    let mut run = SubtestRun::new(&file, &file.subtests[0], &RunOptions::default());
    let problems = run.run_to_serve_point().unwrap_err().problems;
    assert!(
        problems[0].starts_with("t.scn:5:3: expect top.tools"),
        "{problems:?}"
    );
}

#[test]
fn blocks_are_parsed_with_their_lines() {
    let file = parse_file(
        "t.scn",
        r#"title: t
subtest "s"
  page top https://a.test/
  at 2s:
    task in top: log "a"
    close top
  when top exists: task in top: log "b"
"#,
    )
    .unwrap();
    let ActionKind::Trigger { actions, .. } = &file.subtests[0].actions[1].kind else {
        panic!("an at block");
    };
    assert_eq!(actions.iter().map(|a| a.line).collect::<Vec<_>>(), [5, 6]);
    let ActionKind::Trigger { actions, .. } = &file.subtests[0].actions[2].kind else {
        panic!("a when block");
    };
    assert_eq!((actions[0].line, actions[0].column), (7, 20));
    assert_eq!(actions[0].text, "task in top: log \"b\"");
}

#[test]
fn errors_say_where_and_what() {
    let e = parse_error(
        "title: t\nsubtest \"s\"\n  page top https://a.test/\n  at soon:\n    close top\n",
    );
    assert_eq!(
        e,
        "t.scn:4:6: expected a duration such as 100ms or 5s, found `soon`"
    );
    let e = parse_error("title: t\nsubtest \"s\"\n  page top https://a.test/\n  at 1s:\n    run\n");
    assert!(
        e.starts_with("t.scn:5:5: not in an `at`/`when` block: `run`"),
        "{e}"
    );
    let e = parse_error("title: t\nsubtest \"s\"\n  page top https://a.test/\n  at 1s: expect top.toolsReady == true\n");
    assert!(
        e.starts_with("t.scn:4:10: not in an `at`/`when` block: `expect`"),
        "{e}"
    );
    let e = parse_error(
        "title: t\nsubtest \"s\"\n  page top https://a.test/\n  at 1s:\n    at 2s: close top\n",
    );
    assert!(e.contains("trigger blocks do not nest"), "{e}");
    let e = parse_error("title: t\nsubtest \"s\"\n  page top https://a.test/\n  when nowhere exists:\n    close top\n");
    assert!(e.starts_with("t.scn:4:8:"), "{e}");
    assert!(e.contains("nowhere"), "{e}");
    let e = parse_error(
        "title: t\nsubtest \"s\"\n  page top https://a.test/\n  when top loaded:\n    close top\n",
    );
    assert!(e.starts_with("t.scn:4:12:"), "{e}");
    assert!(e.contains("`exists`"), "{e}");
    let e = parse_error("title: t\nsubtest \"s\"\n  page top https://a.test/\n  at 1s:\n");
    assert!(e.contains("expected actions after `at ...:`"), "{e}");
    let e = parse_error("title: t\nsubtest \"s\"\n  page top https://a.test/\n  serve now\n");
    assert!(
        e.starts_with("t.scn:4:9: expected the end of the line"),
        "{e}"
    );
}

#[test]
fn a_failing_block_action_names_its_own_line() {
    let r = run(r#"title: t
subtest "s"
  page top https://a.test/
  at 1s:
    close top
    close top
  run
"#);
    let s = &r.subtests[0];
    assert_eq!(s.status, Status::Error);
    assert!(s.messages[0].starts_with("t.scn:6: "), "{:?}", s.messages);
}

#[test]
fn the_served_scenarios_hold_under_every_profile() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/served");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("scn") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        let file = parse_file(&path.display().to_string(), &source).unwrap();
        for p in webmcp_ref::engine::profile::NAMED_PROFILES {
            let options = RunOptions {
                profile: webmcp_ref::Profile::named(p.name).unwrap(),
                ..RunOptions::default()
            };
            let r = run_file(&file, &options);
            for s in &r.subtests {
                // A profile without what the file requires does not run it.
                let expected = if unmet_requirement(&file, &options.profile).is_some() {
                    Status::PreconditionFailed
                } else {
                    Status::Pass
                };
                assert_eq!(
                    s.status,
                    expected,
                    "{} {:?} [{}]: {:?}",
                    r.path,
                    s.name,
                    p.name,
                    s.messages
                );
            }
        }
    }
}
