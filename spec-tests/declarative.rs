//! Declarative WebMCP: the engine's steps for the text's TODO section, as a page and an agent
//! see them: a form becoming a tool (the declarative tool of a form, update a form's
//! declarative tool), its synthesized input schema, and the declarative execute and submission
//! steps (filling, events, `agentInvoked`, `respondWith()`, results, cancellation).

use webmcp_ref::host::events::EventTargetRef;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::{
    DECLARATIVE_EXECUTE_STEPS, DECLARATIVE_SUBMISSION_STEPS, DECLARATIVE_TOOL_OF_A_FORM,
    UPDATE_A_FORMS_DECLARATIVE_TOOL,
};
use webmcp_ref::host::promise::PromiseState;
use webmcp_ref::host::value::Value;
use webmcp_ref::DocumentKey;

use crate::common::Sim;
use crate::dom_support::{id, listen, log_events};

/// A world under `profile` with one page `top` whose document was loaded with `markup`, its
/// toolchange events logged.
fn page_under(profile: &str, markup: &str) -> (Sim, DocumentKey) {
    let mut s = Sim::new(profile);
    let top = s.page("top", "https://a.test/page.html");
    s.task(top, "on top toolchange: log \"toolchange\"");
    s.run();
    s.w.parse_html_document(top, markup).expect("the markup parses");
    (s, top)
}

/// How the promise a script bound to `name` settled, with the error's message.
fn outcome(s: &Sim, name: &str) -> Result<String, String> {
    let p = s.promise_named(name);
    match s.w.promise_state(p) {
        PromiseState::Rejected(Value::Error(e)) => Err(format!("{}: {}", e.name, e.message)),
        _ => s.outcome_of(name),
    }
}

fn toolchanges(s: &Sim) -> usize {
    s.logged().iter().filter(|l| *l == "toolchange").count()
}

/// The input schema of `name` in top's tool map, as JSON text.
fn schema(s: &Sim, top: DocumentKey, name: &str) -> String {
    s.w.model_context(top).tool_map[name].input_schema.clone()
}

/// Runs `executeTool(tool named name, input)` from top, as `r`.
fn execute(s: &mut Sim, top: DocumentKey, name: &str, input: &str) {
    s.task(
        top,
        &format!("r = top.executeTool({{name: {name:?}, description: \"d\", window: top, origin: \"https://a.test\"}}, {input})"),
    );
}

#[test]
fn update_a_forms_declarative_tool_7_a_parsed_form_with_both_attributes_is_a_tool() {
    let (mut s, top) = page_under(
        "spec",
        r#"<form toolname="search" tooldescription="Find things"><input name=q></form>"#,
    );
    assert_eq!(s.tools(top), vec!["search"]);
    assert!(s.reached(&UPDATE_A_FORMS_DECLARATIVE_TOOL, "7"));
    s.task(top, "g = top.getTools()");
    s.run();
    // Registered at the start tag, updated when the input was inserted (declarative-
    // registration-timing=sync: each insertion's steps update the tool).
    assert_eq!(toolchanges(&s), 2);
    let Value::Array(tools) = s.fulfilled_value(s.promise_named("g")) else {
        panic!("getTools() gives an array")
    };
    assert_eq!(tools.len(), 1);
    assert!(
        matches!(tools[0].get("inputSchema"), Some(Value::Object(_))),
        "{:?}",
        tools[0]
    );
    assert_eq!(
        tools[0].get("description"),
        Some(&Value::string("Find things"))
    );
}

#[test]
fn declarative_tool_of_a_form_3_4_5_missing_attributes_invalid_names_and_empty_descriptions() {
    let markup = r#"<form toolname="only"></form>
<form tooldescription="only"></form>
<form toolname="has space" tooldescription="d"></form>
<form toolname="empty" tooldescription=""></form>"#;
    let (s, top) = page_under("spec", markup);
    assert!(s.tools(top).is_empty());
    assert!(s.reached(&DECLARATIVE_TOOL_OF_A_FORM, "4"));
    let (s, top) = page_under("chromium-156", markup);
    let mut s = s;
    s.run();
    assert_eq!(s.tools(top), vec!["empty"]);
}

#[test]
fn update_a_forms_declarative_tool_registration_timing_chromium_registers_in_a_task_and_unregisters_at_once() {
    let (mut s, top) = page_under(
        "chromium-156",
        r#"<form id=f toolname="t" tooldescription="d"><input name=q></form>"#,
    );
    assert!(s.tools(top).is_empty(), "registered in a posted task");
    s.run();
    assert_eq!(s.tools(top), vec!["t"]);
    let f = id(&s, top, "f");
    s.w.remove_node(f);
    assert!(s.tools(top).is_empty(), "unregistered in the removal's steps");
    s.run();
    assert_eq!(toolchanges(&s), 2);
}

#[test]
fn update_a_forms_declarative_tool_4_3_an_update_notifies_once_or_twice_by_switch() {
    for (profile, expected) in [("spec", 1), ("chromium-156", 2)] {
        let (mut s, top) = page_under(
            profile,
            r#"<form id=f toolname="t" tooldescription="d"><input name=q></form>"#,
        );
        s.run();
        let before = toolchanges(&s);
        let f = id(&s, top, "f");
        s.w.set_attribute(f, "tooldescription", "d2").unwrap();
        s.run();
        let expected = before + expected;
        assert_eq!(toolchanges(&s), expected, "{profile}");
        assert_eq!(s.w.model_context(top).tool_map["t"].description, "d2");
        // The same value again changes nothing.
        s.w.set_attribute(f, "tooldescription", "d2").unwrap();
        s.run();
        assert_eq!(toolchanges(&s), expected, "{profile}");
    }
}

#[test]
fn update_a_forms_declarative_tool_6_a_taken_name_stays_with_the_first_form() {
    let (mut s, top) = page_under(
        "spec",
        r#"<form id=a toolname="dup" tooldescription="first"></form><form id=b toolname="dup" tooldescription="second"></form>"#,
    );
    s.run();
    assert_eq!(s.w.model_context(top).tool_map["dup"].description, "first");
    assert_eq!(toolchanges(&s), 1);
    let a = id(&s, top, "a");
    s.w.remove_node(a);
    s.run();
    assert!(s.tools(top).is_empty(), "the second form is not registered in its place");
    let b = id(&s, top, "b");
    s.w.set_attribute(b, "tooldescription", "second again").unwrap();
    assert_eq!(s.tools(top), vec!["dup"]);
}

#[test]
fn synthesize_a_declarative_json_schema_object_text_number_select_checkbox_radio() {
    let markup = r#"<form toolname="t" tooldescription="d">
<label for=q>Query</label><input id=q name=q required pattern="[a-z]+">
<input type=number name=n min=1 max=10>
<input type=range name=r>
<select name=s><option value=x>Ex</option><option>Why</option></select>
<input type=checkbox name=c>
<input type=checkbox name=g value=r><input type=checkbox name=g value=b>
<fieldset toolparamdescription="Size"><input type=radio name=z value=s><input type=radio name=z value=l required></fieldset>
<input type=hidden name=h>
<input name=dis disabled><textarea name=ro readonly></textarea>
<button name=b>Go</button>
</form>"#;
    let (s, top) = page_under("spec", markup);
    assert_eq!(
        schema(&s, top, "t"),
        r#"{"type":"object","properties":{"q":{"type":"string","pattern":"[a-z]+","description":"Query"},"n":{"type":"number","minimum":1,"maximum":10,"multipleOf":1},"r":{"type":"number","minimum":0,"maximum":100,"multipleOf":1},"s":{"type":"string","anyOf":[{"type":"string","const":"x","title":"Ex"},{"type":"string","const":"Why","title":"Why"}],"enum":["x","Why"]},"c":{"type":"boolean"},"g":{"type":"array","items":{"type":"string","anyOf":[{"type":"string","const":"r"},{"type":"string","const":"b"}],"enum":["r","b"]},"uniqueItems":true},"z":{"type":"string","anyOf":[{"type":"string","const":"s"},{"type":"string","const":"l"}],"enum":["s","l"],"description":"Size"}},"required":["q","z"]}"#
    );
}

#[test]
fn synthesize_a_declarative_json_schema_object_temporal_keywords_by_switch() {
    let markup = r#"<form toolname="t" tooldescription="d"><input type=date name=d><input type=time name=t step=1><input type=color name=c><input type=number name=n pattern="[0-9]+"></form>"#;
    let (s, top) = page_under("spec", markup);
    assert_eq!(
        schema(&s, top, "t"),
        r#"{"type":"object","properties":{"d":{"type":"string","format":"date"},"t":{"type":"string","pattern":"^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$"},"c":{"type":"string","pattern":"^#[0-9a-zA-Z]{6}$"},"n":{"type":"number","multipleOf":1}},"required":[]}"#
    );
    let (mut s, top) = page_under("chromium-156", markup);
    s.run();
    assert_eq!(
        schema(&s, top, "t"),
        r#"{"type":"object","properties":{"d":{"type":"string","format":"date","description":"Dates MUST be provided in 'YYYY-MM-DD' format."},"t":{"type":"string","format":"^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$"},"c":{"type":"string","format":"^#[0-9a-zA-Z]{6}$"},"n":{"type":"number","multipleOf":1,"pattern":"[0-9]+"}},"required":[]}"#
    );
}

#[test]
fn synthesize_a_declarative_json_schema_object_2_1_two_text_controls_of_one_name_disappear() {
    let (s, top) = page_under(
        "spec",
        r#"<form toolname="t" tooldescription="d"><input name=a><textarea name=a></textarea><input name=b></form>"#,
    );
    assert_eq!(
        schema(&s, top, "t"),
        r#"{"type":"object","properties":{"b":{"type":"string"}},"required":[]}"#
    );
}

const AUTOSUBMIT: &str = r#"<form id=f toolname="t" tooldescription="d" toolautosubmit action="/next">
<input id=q name=q><input id=n type=number name=n><input id=c type=checkbox name=c>
<select id=s name=s><option>a</option><option>b</option></select>
<button id=go>Go</button></form>"#;

#[test]
fn declarative_execute_steps_7_fill_in_member_order_with_input_and_change_then_submit() {
    let (mut s, top) = page_under("spec", AUTOSUBMIT);
    let f = id(&s, top, "f");
    for (node, label) in [("q", "q"), ("n", "n"), ("c", "c"), ("s", "s")] {
        let n = id(&s, top, node);
        log_events(&mut s, n, "input", label);
        log_events(&mut s, n, "change", label);
    }
    listen(
        &mut s,
        f,
        "submit",
        r#"log "submit agentInvoked={event.agentInvoked} submitter={event.submitter}"
event.preventDefault()
event.respondWith("done")"#,
    );
    execute(&mut s, top, "t", r#"{n: 42, q: "hello", c: true, s: "a"}"#);
    s.run();
    let log: Vec<String> = s.logged().into_iter().filter(|l| l != "toolchange").collect();
    assert_eq!(
        log,
        vec![
            "input@n",
            "change@n",
            "input@q",
            "change@q",
            "input@c",
            "change@c",
            "submit agentInvoked=true submitter=button#go"
        ]
    );
    // The text serializes every result to JSON (tool-result=json).
    assert_eq!(outcome(&s, "r"), Ok("\"done\"".into()));
    assert_eq!(s.w.value(id(&s, top, "n")), "42");
    assert!(s.reached(&DECLARATIVE_SUBMISSION_STEPS, "6.1"));
}

#[test]
fn declarative_execute_steps_5_a_bad_member_fails_before_anything_changes() {
    let (mut s, top) = page_under("spec", AUTOSUBMIT);
    execute(&mut s, top, "t", r#"{q: "x", n: "abc"}"#);
    s.run();
    assert!(outcome(&s, "r").unwrap_err().contains("UnknownError"));
    assert_eq!(s.w.value(id(&s, top, "q")), "");
    execute(&mut s, top, "t", r#"{nope: 1}"#);
    s.run();
    assert!(s.reached(&DECLARATIVE_EXECUTE_STEPS, "5.1"));
    let (mut s, top) = page_under("chromium-156", AUTOSUBMIT);
    s.run();
    execute(&mut s, top, "t", r#"{s: "z"}"#);
    s.run();
    assert_eq!(
        outcome(&s, "r"),
        Err("UnknownError: Invalid value \"z\" for parameter s".into())
    );
}

#[test]
fn declarative_submission_steps_5_a_navigating_submission_resolves_null() {
    let (mut s, top) = page_under("spec", AUTOSUBMIT);
    execute(&mut s, top, "t", r#"{q: "x"}"#);
    s.run();
    assert_eq!(outcome(&s, "r"), Ok("null".into()));
}

#[test]
fn declarative_submission_steps_4_prevent_default_without_respond_with_fails() {
    let (mut s, top) = page_under("chromium-156", AUTOSUBMIT);
    s.run();
    let f = id(&s, top, "f");
    listen(&mut s, f, "submit", "event.preventDefault()");
    execute(&mut s, top, "t", "{}");
    s.run();
    assert_eq!(
        outcome(&s, "r"),
        Err("UnknownError: The site has a programming error: it called preventDefault() on the 'submit' event, without also calling respondWith() with the tool result".into())
    );
}

#[test]
fn declarative_execute_steps_10_without_autosubmit_waits_for_the_user_and_pseudo_classes_match() {
    let (mut s, top) = page_under(
        "spec",
        r#"<form id=f toolname="t" tooldescription="d"><input name=q><button id=go>Go</button></form>"#,
    );
    let f = id(&s, top, "f");
    listen(
        &mut s,
        f,
        "submit",
        "event.preventDefault()\nevent.respondWith(\"by hand\")",
    );
    execute(&mut s, top, "t", r#"{q: "x"}"#);
    s.run();
    assert_eq!(s.state_of("r"), "pending");
    let go = id(&s, top, "go");
    assert!(s.w.matches(f, ":tool-form-active").unwrap());
    assert!(s.w.matches(go, ":tool-submit-active").unwrap());
    s.w.click(go, true);
    s.run();
    assert_eq!(outcome(&s, "r"), Ok("\"by hand\"".into()));
    assert!(!s.w.matches(f, ":tool-form-active").unwrap());
}

#[test]
fn declarative_execute_steps_4_no_submit_button_and_no_autosubmit_fails() {
    let (mut s, top) = page_under(
        "spec",
        r#"<form toolname="t" tooldescription="d"><input name=q></form>"#,
    );
    execute(&mut s, top, "t", r#"{q: "x"}"#);
    s.run();
    assert!(outcome(&s, "r").is_err());
    assert!(s.reached(&DECLARATIVE_EXECUTE_STEPS, "4"));
}

#[test]
fn finish_a_declarative_execution_a_reset_or_a_removal_cancels_a_waiting_execution() {
    let markup = r#"<form id=f toolname="t" tooldescription="d"><input name=q><button>Go</button></form>"#;
    let (mut s, top) = page_under("chromium-156", markup);
    s.run();
    execute(&mut s, top, "t", r#"{q: "x"}"#);
    s.run();
    let f = id(&s, top, "f");
    s.w.reset(f);
    s.run();
    assert_eq!(
        outcome(&s, "r"),
        Err("UnknownError: Tool execution cancelled by a form reset".into())
    );
    execute(&mut s, top, "t", r#"{q: "x"}"#);
    s.run();
    s.w.remove_node(f);
    s.run();
    assert_eq!(
        outcome(&s, "r"),
        Err("UnknownError: Tool execution cancelled, since tool definition was updated".into())
    );
    assert!(!s.w.matches(f, ":tool-form-active").unwrap());
}

#[test]
fn declarative_execute_steps_toolactivated_fires_at_the_model_context() {
    let (mut s, top) = page_under("spec", AUTOSUBMIT);
    s.task(top, "on top toolactivated: log \"toolactivated {event.toolName}\"");
    let f = id(&s, top, "f");
    log_events(&mut s, f, "submit", "form");
    execute(&mut s, top, "t", "{}");
    s.run();
    let log: Vec<String> = s.logged().into_iter().filter(|l| l != "toolchange").collect();
    assert_eq!(log, vec!["toolactivated t", "submit@form"]);
    let _ = EventTargetRef::<webmcp_ref::webmcp::steps::Steps>::Node(f);
}

#[test]
fn respond_with_checks_agent_invoked_then_prevent_default() {
    let (mut s, top) = page_under(
        "chromium-156",
        r#"<form id=f action="/x"><button id=go>Go</button></form>"#,
    );
    let f = id(&s, top, "f");
    listen(
        &mut s,
        f,
        "submit",
        "event.preventDefault()\nevent.respondWith(\"x\")",
    );
    let go = id(&s, top, "go");
    s.w.click(go, true);
    s.w.run_until_idle().unwrap();
    let uncaught = format!("{:?}", s.w.uncaught_errors());
    assert!(
        uncaught.contains("InvalidStateError") && uncaught.contains("agentInvoked == true"),
        "{uncaught}"
    );
}

#[test]
fn six_significant_digits_matches_chromium_156s_number_bug() {
    use webmcp_ref::webmcp::declarative::six_significant_digits as g;
    assert_eq!(g(1.23456789), "1.23457");
    assert_eq!(g(2147483648.0), "2.14748e+9");
    assert_eq!(g(1e21), "1.00000e+21");
    assert_eq!(g(1e-7), "1.00000e-7");
    assert_eq!(g(0.000001), "0.000001");
    assert_eq!(g(100.5), "100.5");
    assert_eq!(g(-2147483648.0), "-2147483648");
    assert_eq!(g(1234567.1), "1.23457e+6");
    assert_eq!(g(5e-324), "4.94066e-324");
}

// The scenario language's `html in DOC:` and the element statements a scenario drives
// declarative tools with.

fn scenario(body: &str) -> String {
    format!("title: t\nsubtest \"a\"\n  page top https://a.test/\n{body}")
}

fn scenario_error(body: &str) -> String {
    webmcp_ref::scenario::parse_file("x.scn", &scenario(body))
        .map(|_| ())
        .expect_err("a parse error")
        .to_string()
}

fn run_scenario(profile: &str, body: &str) -> webmcp_ref::scenario::FileResult {
    let file = webmcp_ref::scenario::parse_file("x.scn", &scenario(body)).expect("parses");
    let options = webmcp_ref::scenario::RunOptions {
        profile: webmcp_ref::engine::profile::Profile::named(profile).unwrap(),
        ..Default::default()
    };
    webmcp_ref::scenario::run_file(&file, &options)
}

#[test]
fn scenario_html_block_errors_name_line_and_column() {
    assert_eq!(
        scenario_error("  html in top:\n  run\n"),
        "x.scn:4:14: `html in top:` has no markup: indent the document's markup under it (or write it after the colon)"
    );
    let e = scenario_error("  html in nope:\n    <p>\n");
    assert!(e.starts_with("x.scn:4:11: unknown name `nope`"), "{e}");
    assert_eq!(
        scenario_error("  html in top:\n      <form>\n    </form>\n"),
        "x.scn:6:5: this markup line is indented 4 spaces, less than the 6 of the block's first line (line 5): indent every line of the block at least as much as its first"
    );
    let e = scenario_error("  html in top:\n    <p>\n\t<p>\n");
    assert!(e.starts_with("x.scn:6:"), "{e}");
    assert_eq!(
        scenario_error("  task in top:\n    top.querySelector(\"#f\").setAttribute(\"x\")\n"),
        "x.scn:5:29: `setAttribute` takes 2 argument(s) (name, value), found 1"
    );
    let e = scenario_error("  task in top:\n    f = top.querySelector(1)\n");
    assert!(e.contains("`querySelector` takes the selectors"), "{e}");
}

#[test]
fn scenario_html_markup_is_kept_as_written_and_a_form_in_it_is_listed_by_get_tools() {
    // `#` and an apostrophe are markup, not a comment and a string.
    let body = r##"  html in top:
    <form id=f toolname="search" tooldescription="Find what's # here" toolautosubmit>
      <input name=q required>
    </form>
  task in top:
    on top.querySelector("#f") submit:
      log "submit {event.agentInvoked}"
      event.preventDefault()
      event.respondWith("found")
  run
  task in top:
    tools = await top.getTools()
    r = await top.executeTool(tools[0], {q: "cats"})
  run
  expect tools.length == 1
  expect tools[0].name == "search"
  expect tools[0].description == "Find what's # here"
  expect top.querySelector("[name=q]").value == "cats"
  expect top.querySelector("#f").checked == undefined
  expect r == "found"                   [chromium-156]
  expect r == '"found"'                 [spec]
  expect log == ["submit true"]
  task in top: top.querySelector("#f").remove()
  run
  expect top.tools == []
  expect top.querySelector("#f") == null
"##;
    for profile in ["spec", "chromium-156"] {
        let result = run_scenario(profile, body);
        assert!(result.passed(), "{profile}: {:#?}", result.subtests[0]);
    }
}

#[test]
fn scenario_html_a_second_block_for_one_document_fails_at_its_line() {
    let result = run_scenario("spec", "  html in top: <p>\n  html in top: <p>\n  run\n");
    let text = format!("{:?}", result.subtests[0]);
    assert!(
        text.contains("top was given its markup at line 4; a document's markup is given once"),
        "{text}"
    );
}

#[test]
fn scenario_html_in_a_loading_document_is_its_parsers_next_chunk() {
    let body = r#"  page late https://a.test/late.html loading
  html in late:
    <form toolname="t" tooldescription="d"></form>
  run
  expect late.tools == ["t"]
  domcontentloaded late
  load late
  run
  expect late.fullyActive == true
"#;
    let result = run_scenario("spec", body);
    assert!(result.passed(), "{:#?}", result.subtests[0]);
}
