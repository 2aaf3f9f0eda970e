//! The scenario parser: errors say file:line:column, what was found and what was expected;
//! no input, however broken, makes it (or the runner) panic.

use proptest::prelude::*;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::scenario::{parse_file, run_file, RunOptions};

const GOOD: &str = r#"title: a small file
mirrors: nothing upstream
spec: #dom-modelcontext-waitfortoolsuntil

subtest "one"
  page top https://a.test/
  frame child in top https://b.test/ allow="tools *"
  promise p in top
  controller ac in top
  script body:
    log "ran {input.x}"
    return {ok: true}
  task in top as t:
    top.waitForToolsUntil(p)
    reg = top.registerTool({name: "t", description: "d", execute: body}, {signal: ac.signal})
    on reg fulfilled: log "registered"
  resolve p with 1
  run
  observe top => ready
  expect top.toolsReady == true
  expect t fulfilled
  expect log == ["registered"]
"#;

fn parse(text: &str) -> Result<(), String> {
    parse_file("x.scn", text)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn a_well_formed_file_parses_and_runs() {
    let file = parse_file("x.scn", GOOD).expect("parses");
    let result = run_file(&file, &RunOptions::default());
    assert!(result.passed(), "{:#?}", result.subtests[0].expectations);
}

#[test]
fn a_missing_title_is_reported_at_the_top() {
    let e = parse("subtest \"a\"\n  page top https://a.test/\n").unwrap_err();
    assert_eq!(
        e,
        "x.scn:1:1: expected a `title:` line before the first subtest"
    );
}

#[test]
fn an_unknown_name_lists_the_names_that_exist() {
    let text = "title: t\nsubtest \"a\"\n  page top https://a.test/\n  promise p in top\n  task in top: top.waitForToolsUntil(q)\n";
    let e = parse(text).unwrap_err();
    assert!(e.starts_with("x.scn:5:38: unknown name `q`"), "{e}");
    assert!(e.contains("p, top"), "{e}");
}

#[test]
fn an_unknown_profile_in_a_tag_lists_the_profiles() {
    let text = "title: t\nsubtest \"a\"\n  page top https://a.test/\n  expect top.toolsReady == true [chrome]\n";
    let e = parse(text).unwrap_err();
    assert!(e.starts_with("x.scn:4:34: unknown profile `chrome`"), "{e}");
    assert!(e.contains("chromium-pr373"), "{e}");
}

#[test]
fn an_unknown_switch_value_in_a_tag_lists_the_values() {
    let text = "title: t\nsubtest \"a\"\n  page top https://a.test/\n  expect top.toolsReady == true [inactive-realm-jobs=maybe]\n";
    let e = parse(text).unwrap_err();
    assert!(e.contains("dropped, run"), "{e}");
}

#[test]
fn script_outside_a_task_says_where_it_belongs() {
    let text = "title: t\nsubtest \"a\"\n  page top https://a.test/\n  top.waitForToolsUntil(42)\n";
    let e = parse(text).unwrap_err();
    assert_eq!(
        e,
        "x.scn:4:3: `top...` is a script statement: put it inside `task in DOC:`"
    );
}

#[test]
fn expected_and_found_are_both_named() {
    let text = "title: t\nsubtest \"a\"\n  page top not-a-url\n";
    let e = parse(text).unwrap_err();
    assert_eq!(
        e,
        "x.scn:3:12: expected a URL such as https://a.test/, found `not-a-url`"
    );
    let text = "title: t\nsubtest \"a\"\n  page top https://a.test/\n  run soon\n";
    let e = parse(text).unwrap_err();
    assert_eq!(e, "x.scn:4:7: expected the end of the line, found `soon`");
}

#[test]
fn an_unclosed_bracket_and_a_tab_are_located() {
    let text = "title: t\nsubtest \"a\"\n  page top https://a.test/\n  task in top: top.waitForToolsUntil([1, 2\n";
    assert_eq!(
        parse(text).unwrap_err(),
        "x.scn:4:3: a bracket opened on this line is never closed"
    );
    let text = "title: t\nsubtest \"a\"\n\tpage top https://a.test/\n";
    assert_eq!(
        parse(text).unwrap_err(),
        "x.scn:3:1: a tab in the indentation: indent with spaces"
    );
}

/// Pieces of the language, to make garbage that is close to real input.
const PIECES: &[&str] = &[
    "title: t\n",
    "subtest \"s\"\n",
    "  ",
    "page top https://a.test/\n",
    "frame c in top https://b.test/ allow=\"tools *\"\n",
    "promise p in top\n",
    "task in top:\n",
    "    top.waitForToolsUntil(p)\n",
    "    remove c\n",
    "run\n",
    "flush\n",
    "step 3\n",
    "observe top => ready\n",
    "expect top.toolsReady == true [spec]\n",
    "expect log == [\"a\"]\n",
    "navigate top to https://a.test/n as n bfcache\n",
    "back n\n",
    "close top\n",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ":",
    "\"",
    "'",
    "#",
    "=>",
    "==",
    ".",
    ",",
    "\t",
    "\n",
    "42",
    "-1.5e3",
    "100ms",
    "await ",
    "log \"x {p}\"\n",
    "controller ac in top\n",
    "    ac.abort()\n",
    "resolve p with 1\n",
    "thenable t in top resolves 1\n",
    "    top.registerTool({name: \"x\", description: \"d\", execute: returns(1)})\n",
    "expect finding perform-an-observation 2\n",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_file("g.scn", &text);
    }

    #[test]
    fn near_miss_files_never_panic_and_run_if_they_parse(picks in proptest::collection::vec(0..PIECES.len(), 0..40)) {
        let text: String = picks.iter().map(|i| PIECES[*i]).collect();
        if let Ok(file) = parse_file("n.scn", &text) {
            let _ = run_file(&file, &RunOptions::default());
        }
    }

    #[test]
    fn every_truncation_of_a_good_file_is_handled(cut in 0..GOOD.len()) {
        let cut = GOOD.floor_char_boundary(cut);
        if let Ok(file) = parse_file("t.scn", &GOOD[..cut]) {
            let _ = run_file(&file, &RunOptions::default());
        }
    }
}

#[test]
fn hostile_nesting_is_an_error_not_a_crash() {
    let deep = format!(
        "title: t\nsubtest \"a\"\n  page top https://a.test/\n  task in top: x = {}1{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let e = parse(&deep).unwrap_err();
    assert!(e.contains("an expression nests more than 128 deep"), "{e}");
    let mut blocks =
        String::from("title: t\nsubtest \"a\"\n  page top https://a.test/\n  task in top:\n");
    for depth in 0..2000 {
        blocks.push_str(&" ".repeat(4 + depth));
        blocks.push_str("on top toolchange:\n");
    }
    let e = parse(&blocks).unwrap_err();
    assert!(e.contains("blocks nest more than 128 deep"), "{e}");
}

const NEEDS_READINESS: &str = r#"title: needs PR #373
requires: readiness-api=pr373

subtest "waits"
  page top https://a.test/
  promise p in top
  task in top: top.waitForToolsUntil(p)
  run
  expect top.toolsReady == false
"#;

#[test]
fn a_requirement_the_profile_does_not_meet_is_precondition_failed() {
    use webmcp_ref::scenario::Status;
    let file = parse_file("needs.scn", NEEDS_READINESS).unwrap();
    let under = |name: &str| {
        run_file(
            &file,
            &RunOptions {
                profile: webmcp_ref::Profile::named(name).unwrap(),
                ..RunOptions::default()
            },
        )
    };
    assert_eq!(under("spec").subtests[0].status, Status::Pass);
    let text = under("text");
    let sub = &text.subtests[0];
    assert_eq!(sub.status, Status::PreconditionFailed);
    assert_eq!(
        sub.messages,
        ["not run: needs.scn requires readiness-api=pr373; profile text has readiness-api=none"]
    );
    // It does not count as a failure, and wptreport names it as testharness.js does.
    assert!(text.passed());
    let info = webmcp_ref::report::wpt::run_info(
        &webmcp_ref::Profile::named("text").unwrap(),
        &"0".repeat(40),
    );
    let report = webmcp_ref::report::wptreport(&[text], &webmcp_ref::report::WptRun::of(&info));
    assert_eq!(
        report["results"][0]["subtests"][0]["status"],
        "PRECONDITION_FAILED"
    );
    // wptrunner expects PASS of a subtest its metadata does not name.
    assert_eq!(report["results"][0]["subtests"][0]["expected"], "PASS");
}

#[test]
fn a_bad_requirement_says_where() {
    let e = parse("title: t\nrequires: readiness-api=maybe\n\nsubtest \"s\"\n  page top https://a.test/\n")
        .unwrap_err();
    assert!(e.starts_with("x.scn:2:"), "{e}");
    assert!(e.contains("maybe"), "{e}");
    let e = parse("title: t\nrequires: nosuchprofile\n\nsubtest \"s\"\n  page top https://a.test/\n")
        .unwrap_err();
    assert!(e.starts_with("x.scn:2:11:"), "{e}");
    assert!(e.contains("unknown profile `nosuchprofile`"), "{e}");
    let e = parse("title: t\nrequires: spec text\n\nsubtest \"s\"\n  page top https://a.test/\n")
        .unwrap_err();
    assert!(e.starts_with("x.scn:2:16:"), "{e}");
}

#[test]
fn template_literals_build_strings_and_say_where_they_break() {
    let file = parse_file(
        "t.scn",
        "title: t\n\nsubtest \"s\"\n  page top https://a.test/\n  task in top:\n    n = 7\n    s = `n=${n} a=${[1, null, \"x\"]} o=${ {a: 1} } nested=${`(${n})`}`\n  run\n  expect s == \"n=7 a=1,,x o=[object Object] nested=(7)\"\n",
    )
    .unwrap();
    let r = run_file(&file, &RunOptions::default());
    assert!(r.passed(), "{:?}", r.subtests[0].expectations);
    let e = parse("title: t\n\nsubtest \"s\"\n  page top https://a.test/\n  task in top:\n    s = `x ${n\n").unwrap_err();
    assert!(e.starts_with("x.scn:6:12:"), "{e}");
}

#[test]
fn a_name_is_declared_once_in_a_subtest() {
    for (lines, at, first) in [
        ("  page top https://a.test/\n", "x.scn:4:8:", "a page, declared at line 3"),
        ("  promise top in top\n", "x.scn:4:11:", "a page, declared at line 3"),
        ("  promise p in top\n  promise p in top\n", "x.scn:5:11:", "a promise, declared at line 4"),
        ("  observe top as o\n  observe top as o\n", "x.scn:5:18:", "an observation, declared at line 4"),
        ("  task in top as t: log \"a\"\n  at 1ms: promise t in top\n", "x.scn:5:19:", "a task's completion, declared at line 4"),
    ] {
        let e = parse(&format!("title: t\nsubtest \"a\"\n  page top https://a.test/\n{lines}")).unwrap_err();
        assert!(e.starts_with(at), "{e}");
        assert!(e.contains(&format!("is declared again: it is {first}")), "{e}");
    }
    // A navigation's new document may take a name again, as the bundled files do.
    parse("title: t\nsubtest \"a\"\n  page top https://a.test/\n  navigate top to https://a.test/2 as next\n  navigate next to https://a.test/3 as top\n").unwrap();
}

#[test]
fn a_member_an_expectation_cannot_read_is_an_error_where_it_is_written() {
    let e = parse("title: t\nsubtest \"a\"\n  page top https://a.test/\n  expect top.toolsready == true\n").unwrap_err();
    assert!(e.starts_with("x.scn:4:14: a document has no property `toolsready`"), "{e}");
    assert!(e.contains("(it has modelContext, window, document, toolsReady"), "{e}");
    let e = parse("title: t\nsubtest \"a\"\n  page top https://a.test/\n  promise p in top\n  expect p.status == \"pending\"\n").unwrap_err();
    assert!(e.starts_with("x.scn:5:12: a promise has no property `status`"), "{e}");
    let e = parse("title: t\nsubtest \"a\"\n  page top https://a.test/\n  expect 1 == top.modelContext.tools.size\n").unwrap_err();
    assert!(e.starts_with("x.scn:4:38: an array of names has no property `size`"), "{e}");
    // A name the script assigns holds what the run gives it: no check.
    parse("title: t\nsubtest \"a\"\n  page top https://a.test/\n  promise p in top\n  task in top: p = {status: 1}\n  expect p.status == 1\n").unwrap();
}
