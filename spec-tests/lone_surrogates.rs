//! Strings as JavaScript has them: sequences of UTF-16 code units, a lone surrogate among them
//! (`"\uD800"`). Web IDL's `USVString` (a tool's `title`, `exposedTo`, `fromOrigins`, a
//! RegisteredTool's `origin`) replaces each lone surrogate with U+FFFD; `DOMString` (`name`,
//! `description`) keeps it. `JSON.stringify` writes it as an escape and `JSON.parse` reads it
//! back; a concatenation of two halves is the pair; `length` counts code units.
//!
//! <https://webidl.spec.whatwg.org/#js-USVString>,
//! <https://tc39.es/ecma262/#sec-quotejsonstring>,
//! <https://infra.spec.whatwg.org/#javascript-string-convert>

#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::engine::profile::Profile;
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::{parse_file, run_file, FileResult, RunOptions, Status};

fn run(text: &str) -> FileResult {
    run_under(Profile::spec(), text)
}

fn run_under(profile: Profile, text: &str) -> FileResult {
    let f = parse_file("lone-surrogates.scn", &format!("title: t\n{text}"))
        .unwrap_or_else(|e| panic!("{e}"));
    run_file(
        &f,
        &RunOptions {
            profile,
            ..Default::default()
        },
    )
}

fn assert_passes(text: &str) {
    for s in &run(text).subtests {
        assert_eq!(s.status, Status::Pass, "{}: {:?}", s.name, s.messages);
    }
}

/// The log of the file's one subtest, which ends `expect log == []`.
fn log_of(text: &str) -> Vec<String> {
    let r = run(text);
    let actual = &r.subtests[0].expectations.last().unwrap().actual;
    serde_json::from_str(actual).unwrap_or_else(|e| panic!("{e}: {actual}"))
}

#[test]
fn usvstring_members_replace_a_lone_surrogate_and_domstring_members_keep_it() {
    // registerTool()'s conversion of ModelContextTool: title is a USVString, description a
    // DOMString; getTools() lists both as registered (step 8.3.8).
    assert_passes(
        r#"subtest "s"
  page top https://a.test/
  task in top:
    await top.registerTool({name: "t", title: "a\uD800b", description: "c\uDC00d", execute: returns(1)})
    tools = await top.getTools()
  run
  expect tools[0].title == "a\uFFFDb"
  expect tools[0].description == "c\uDC00d"
  expect tools[0].description != "c\uFFFDd"
  expect tools[0].description.length == 3
"#,
    );
}

#[test]
fn an_exposed_to_origin_with_a_lone_surrogate_is_not_a_url_after_conversion() {
    // exposedTo is sequence<USVString>: "https://\uD800.com" becomes "https://\uFFFD.com",
    // which the URL parser refuses (registerTool() step 15.1.2: SecurityError), exactly as the
    // same string written with U+FFFD is.
    assert_passes(
        r#"subtest "s"
  page top https://a.test/
  task in top:
    lone = top.registerTool({name: "a", description: "d", execute: returns(1)}, {exposedTo: ["https://\ud800.com"]})
    fixed = top.registerTool({name: "b", description: "d", execute: returns(1)}, {exposedTo: ["https://\ufffd.com"]})
  run
  expect lone rejected SecurityError
  expect fixed rejected SecurityError
  expect top.tools == []
"#,
    );
}

#[test]
fn stringify_escapes_it_and_the_tool_reads_it_back() {
    // executeTool() serializes the input with JSON.stringify (step 10), which writes a lone
    // surrogate as `\ud800`; the tool's steps parse it back into the same code unit, and the
    // result's serialization escapes it again.
    assert_passes(
        r#"subtest "s"
  page top https://a.test/
  script echo:
    log "length {input.q.length}"
    return {v: input.q}
  task in top:
    await top.registerTool({name: "t", description: "d", execute: echo})
    tools = await top.getTools()
    r = await top.executeTool(tools[0], {q: "x\uDBFF"})
  run
  expect log == ["length 2"]
  expect r == '{"v":"x\\udbff"}'
"#,
    );
}

#[test]
fn two_halves_concatenated_are_the_pair_and_length_counts_code_units() {
    let log = log_of(
        r#"subtest "s"
  page top https://a.test/
  task in top:
    high = "\uD83D"
    low = "\u{DE00}"
    joined = `${high}${low}`
    reversed = `${low}${high}`
    log "{joined}|{joined.length}|{reversed.length}|{high.length}"
    log `a\uD83D\uDE00b`
  run
  expect log == []
"#,
    );
    assert_eq!(log, ["😀|2|2|1", "a😀b"]);
}

#[test]
fn a_scenario_may_not_write_the_characters_that_stand_for_lone_surrogates() {
    let text = "title: t\nsubtest \"s\"\n  page top https://a.test/\n  task in top:\n    x = \"a\u{10F800}\"\n";
    let e = parse_file("reserved.scn", text).unwrap_err();
    assert_eq!((e.line, e.column), (5, 11), "{e}");
    assert!(e.message.contains("U+10F800") && e.message.contains("\\uD800"), "{e}");
}

#[test]
fn a_failure_shows_the_lone_surrogate_as_its_escape() {
    let r = run(r#"subtest "s"
  page top https://a.test/
  task in top:
    x = "a\uD800"
  run
  expect x == "b\uDFFF"
"#);
    let e = &r.subtests[0].expectations[0];
    assert_eq!(r.subtests[0].status, Status::Fail);
    assert_eq!(e.expected, r#""b\uDFFF""#);
    assert_eq!(e.actual, r#""a\uD800""#);
}

#[test]
fn the_export_writes_the_escape_javascript_reads() {
    let text = r#"title: t
subtest "like https://\ud800.com"
  page top https://a.test/
  task in top:
    await top.registerTool({name: "t", title: "a\uD800", description: "d", execute: returns(1)})
    tools = await top.getTools()
  run
  expect tools[0].title == "a\uFFFD"
"#;
    let f = parse_file("lone.https.html.scn", text).unwrap();
    let exported = export_file(&f, &Profile::spec());
    assert_eq!(exported.exported().count(), 1);
    assert!(exported.html.contains(r#"title: "a\ud800""#), "{}", exported.html);
    assert!(exported.html.contains(r#""like https://\ud800.com""#), "{}", exported.html);
    assert!(!exported.html.contains('\u{10F800}'), "{}", exported.html);
}

#[test]
fn a_schema_and_an_input_holding_a_lone_surrogate_are_read_as_json() {
    // Under input-schema=tentative-subset the stringified schema is read back to check its
    // subset (registerTool()) and the input is validated against it (executeTool()): JSON's
    // escape of a lone surrogate is read, not refused.
    let mut profile = Profile::spec();
    profile.set("input-schema", "tentative-subset").unwrap();
    let r = run_under(
        profile,
        r#"subtest "s"
  page top https://a.test/
  task in top:
    schema = {type: "object", properties: {q: {type: "string", description: "q\uD800"}}}
    await top.registerTool({name: "t", description: "d", inputSchema: schema, execute: returns("ok")})
    tools = await top.getTools()
    good = top.executeTool(tools[0], {q: "\uDC00"})
    bad = top.executeTool(tools[0], {q: 5})
  run
  expect good fulfilled
  expect bad rejected DataError
"#,
    );
    assert_eq!(r.subtests[0].status, Status::Pass, "{:?}", r.subtests[0]);
}

#[test]
fn halves_in_two_text_nodes_make_the_pair_in_text_content() {
    // DOM's descendant text content concatenates the text nodes' data (code units).
    let log = log_of(
        r##"subtest "s"
  page top https://a.test/
  html in top:
    <p id="p"></p>
  run
  task in top:
    p = top.querySelector("#p")
    p.append("\uD83D", "\uDE00")
    log "{p.textContent} {p.textContent.length}"
  run
  expect log == []
"##,
    );
    assert_eq!(log, ["😀 2"]);
}
