//! `getComputedStyle()`: style sheets of `<style>` elements and `style` attributes, the cascade
//! (origin and importance, then specificity, then order), inheritance, the CSS-wide keywords,
//! and the user agent's defaults, for the four properties the engine computes.
//!
//! <https://drafts.csswg.org/css-cascade-5/#cascade-sort>,
//! <https://drafts.csswg.org/cssom/#dom-window-getcomputedstyle>

#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::engine::profile::Profile;
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::{parse_file, run_file, FileResult, RunOptions, Status};

fn run(text: &str) -> FileResult {
    let f = parse_file("computed-style.scn", &format!("title: t\n{text}"))
        .unwrap_or_else(|e| panic!("{e}"));
    run_file(&f, &RunOptions::default())
}

/// Runs `markup` in a page, then logs `getComputedStyle(#id)[prop]` for each `(id, prop)`, and
/// returns the log.
fn computed(markup: &str, reads: &[(&str, &str)]) -> Vec<String> {
    let mut text = String::from("subtest \"s\"\n  page top https://a.test/\n  html in top:\n");
    for line in markup.lines() {
        text.push_str(&format!("    {line}\n"));
    }
    text.push_str("  run\n  task in top:\n");
    for (k, (id, prop)) in reads.iter().enumerate() {
        text.push_str(&format!(
            "    v{k} = top.getComputedStyle(top.querySelector(\"#{id}\")).{prop}\n    log \"{{v{k}}}\"\n"
        ));
    }
    text.push_str("  run\n  expect log == []\n");
    let r = run(&text);
    let actual = &r.subtests[0].expectations[0].actual;
    serde_json::from_str(actual).unwrap_or_else(|e| panic!("{e}: {actual}"))
}

#[test]
fn importance_then_specificity_then_order_decide_the_cascade() {
    let log = computed(
        r#"<style>
  #i { color: rgb(1, 0, 0) !important } #i { color: rgb(2, 0, 0) }
  div#s.c { color: rgb(3, 0, 0) } #s { color: rgb(4, 0, 0) } div { color: rgb(5, 0, 0) }
  .o { color: rgb(6, 0, 0) } .o { color: rgb(7, 0, 0) }
  #a { color: rgb(8, 0, 0) }
  #b { color: rgb(9, 0, 0) !important }
  :where(#w) { color: rgb(10, 0, 0) } div.w { color: rgb(11, 0, 0) }
</style>
<div id=i></div><div id=s class=c></div><div id=o class=o></div>
<div id=a style="color: rgb(12, 0, 0)"></div><div id=b style="color: rgb(13, 0, 0)"></div>
<div id=bb style="color: rgb(14, 0, 0) !important"></div><div id=w class=w></div>"#,
        &[
            ("i", "color"),
            ("s", "color"),
            ("o", "color"),
            ("a", "color"),
            ("b", "color"),
            ("bb", "color"),
            ("w", "color"),
        ],
    );
    assert_eq!(
        log,
        [
            "rgb(1, 0, 0)",  // !important over a later rule
            "rgb(3, 0, 0)",  // (1,1,1) over (1,0,0) and (0,0,1)
            "rgb(7, 0, 0)",  // equal specificity: the later rule
            "rgb(12, 0, 0)", // the style attribute over an id rule
            "rgb(9, 0, 0)",  // an !important rule over the style attribute
            "rgb(14, 0, 0)", // an !important style attribute over everything
            "rgb(11, 0, 0)", // :where() counts nothing
        ]
    );
}

#[test]
fn color_inherits_background_does_not_and_the_css_wide_keywords_choose() {
    let log = computed(
        r#"<style>
  #p { color: rgb(0, 0, 255); background-color: rgb(0, 255, 0); visibility: hidden }
  #x { background-color: inherit } #y { color: initial } #z { visibility: unset }
  #cc { background-color: currentcolor } #bad { color: rgb(1, 1, 1); color: not-a-color }
  #p button { color: revert; background-color: revert } #rv { color: revert }
</style>
<div id=p><span id=k></span><span id=x></span><span id=y></span><span id=z></span><span id=cc></span><span id=bad></span><button id=b>b</button><span id=rv></span></div>"#,
        &[
            ("k", "color"),
            ("k", "backgroundColor"),
            ("k", "visibility"),
            ("x", "backgroundColor"),
            ("y", "color"),
            ("z", "visibility"),
            ("cc", "backgroundColor"),
            ("bad", "color"),
            ("b", "color"),
            ("b", "backgroundColor"),
            ("rv", "color"),
        ],
    );
    assert_eq!(
        log,
        [
            "rgb(0, 0, 255)",
            "rgba(0, 0, 0, 0)",
            "hidden",
            "rgb(0, 255, 0)",
            "rgb(0, 0, 0)",
            "hidden",
            "rgb(0, 0, 255)",
            // An invalid declaration is dropped; the valid one before it stands.
            "rgb(1, 1, 1)",
            // `revert` rolls back to the user agent's declarations, and where it has none,
            // acts as `unset` (color inherits).
            "rgb(0, 0, 0)",
            "rgb(239, 239, 239)",
            "rgb(0, 0, 255)",
        ]
    );
}

#[test]
fn the_user_agent_gives_form_controls_their_display_and_colors() {
    let log = computed(
        r#"<form id=f><input id=i><input id=h type=hidden><input id=cb type=checkbox><button id=b>b</button>
<button id=bd disabled>b</button><textarea id=t disabled></textarea><select id=s></select></form><a id=a href=x>x</a><li id=li></li>"#,
        &[
            ("f", "display"),
            ("i", "display"),
            ("i", "backgroundColor"),
            ("h", "display"),
            ("cb", "backgroundColor"),
            ("b", "backgroundColor"),
            ("bd", "color"),
            ("t", "color"),
            ("s", "backgroundColor"),
            ("a", "color"),
            ("li", "display"),
        ],
    );
    assert_eq!(
        log,
        [
            "block",
            "inline-block",
            "rgb(255, 255, 255)",
            "none",
            "rgba(0, 0, 0, 0)",
            "rgb(239, 239, 239)",
            "rgba(16, 16, 16, 0.3)",
            "rgb(84, 84, 84)",
            "rgb(239, 239, 239)",
            "rgb(0, 0, 238)",
            "list-item",
        ]
    );
}

#[test]
fn at_rules_are_skipped_and_a_bad_rule_does_not_spoil_the_next() {
    let log = computed(
        r#"<style>
  @media print { #m { color: rgb(1, 2, 3) } }
  #m { color: rgb(4, 5, 6) }
  #m % { color: rgb(7, 8, 9) }
  #n { color: rgb(10, 11, 12) }
  #m:no-such-pseudo { color: rgb(13, 14, 15) }
</style>
<div id=m></div><div id=n></div>"#,
        &[("m", "color"), ("n", "color")],
    );
    assert_eq!(log, ["rgb(4, 5, 6)", "rgb(10, 11, 12)"]);
}

/// What a page reads for a name that is no property, a property the engine does not compute,
/// and a call without an element.
#[test]
fn names_outside_the_model_say_so_and_a_non_element_is_a_type_error() {
    let r = run(r##"subtest "s"
  page top https://a.test/
  html in top:
    <div id=d></div>
  run
  task in top:
    style = top.getComputedStyle(top.querySelector("#d"))
    unknown = style.getPropertyValue("foo-bar")
    log "{style.fooBar} [{unknown}]"
  task in top as width:
    w = top.getComputedStyle(top.querySelector("#d")).width
  task in top as bad:
    top.getComputedStyle(top.window)
  run
  expect log == ["undefined []"]
  expect width rejected NotSupportedError
  expect bad rejected TypeError
"##);
    let s = &r.subtests[0];
    assert_eq!(s.status, Status::Pass, "{:?}", s.expectations);
}

/// The export writes the window's method: `s.top.window.getComputedStyle(...)`.
#[test]
fn the_export_calls_the_windows_get_computed_style() {
    let text = r##"title: t
subtest "export"
  page top https://a.test/
  html in top:
    <div id=d style="color: rgb(1, 2, 3)"></div>
  run
  task in top:
    c = top.getComputedStyle(top.querySelector("#d")).color
  run
  expect c == "rgb(1, 2, 3)"
"##;
    let f = parse_file("export.https.html.scn", text).unwrap();
    let exported = export_file(&f, &Profile::spec());
    assert_eq!(exported.exported().count(), 1);
    assert!(
        exported.html.contains(r##"s.top.window.getComputedStyle(s.top.document.querySelector("#d")).color"##),
        "{}",
        exported.html
    );
}
