//! The form submission algorithm, `submit()`, `requestSubmit()`, constructing the entry list,
//! the encodings, plan to navigate, and resetting a form: what a page sees (events in order,
//! the URL and body the navigation carried).
//!
//! <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#form-submission-algorithm>

use webmcp_ref::host::forms::EventTiming;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;

use crate::dom_support::{active_document, active_url, id, listen, log_events, page};

const SEARCH: &str = r#"<form id=f action="/search">
  <input name=q value="cats and dogs">
  <input type=checkbox name=safe checked>
  <input type=checkbox name=off>
  <select name=lang><option>en<option selected value=fr>French</select>
  <textarea name=t>a
b</textarea>
  <input name=dis disabled value=x>
  <button id=go name=b value=clicked>Go</button>
  <button id=other formaction="/other" formmethod=post name=b2 value=2>Other</button>
</form>"#;

#[test]
fn form_submission_algorithm_26_get_mutates_the_action_url_with_the_entry_list() {
    let (mut s, top) = page(SEARCH);
    let f = id(&s, top, "f");
    s.w.submit(f);
    s.run();
    assert_eq!(
        active_url(&s, top),
        "https://a.test/search?q=cats+and+dogs&safe=on&lang=fr&t=a%0D%0Ab"
    );
    let new = active_document(&s, top);
    assert_eq!(s.w.label(new), "top_2");
    let request = s.w.navigation_request(new).expect("the request is kept");
    assert_eq!(request.method, "GET");
    assert!(request.body.is_none());
}

#[test]
fn form_submission_algorithm_5_submit_method_fires_no_submit_event_and_skips_validation() {
    let (mut s, top) = page(r#"<form id=f action="/x"><input id=q name=q required></form>"#);
    let f = id(&s, top, "f");
    log_events(&mut s, f, "submit", "form");
    let q = id(&s, top, "q");
    log_events(&mut s, q, "invalid", "q");
    s.w.submit(f);
    s.run();
    assert!(s.logged().is_empty(), "{:?}", s.logged());
    assert_eq!(active_url(&s, top), "https://a.test/x?q=");
}

#[test]
fn request_submit_3_submits_with_validation_and_a_submit_event_whose_submitter_is_set() {
    let (mut s, top) = page(SEARCH);
    let f = id(&s, top, "f");
    let go = id(&s, top, "go");
    listen(&mut s, f, "submit", r#"log "submit {event.interface} submitter={event.submitter} cancelable={event.cancelable} bubbles={event.bubbles}""#);
    s.w.request_submit(f, Some(go)).unwrap();
    s.run();
    assert_eq!(
        s.logged(),
        ["submit SubmitEvent submitter=button#go cancelable=true bubbles=true"]
    );
    assert!(active_url(&s, top).ends_with("&b=clicked"), "{}", active_url(&s, top));
}

#[test]
fn request_submit_1_rejects_a_submitter_that_is_not_a_submit_button_of_the_form() {
    let (mut s, top) = page(r#"<form id=f><input id=t name=t><button id=b type=button></button></form><form id=g><button id=other></button></form>"#);
    let (f, t, b, other) = (id(&s, top, "f"), id(&s, top, "t"), id(&s, top, "b"), id(&s, top, "other"));
    assert_eq!(s.w.request_submit(f, Some(t)).unwrap_err().exception_name(), "TypeError");
    assert_eq!(s.w.request_submit(f, Some(b)).unwrap_err().exception_name(), "TypeError");
    assert_eq!(s.w.request_submit(f, Some(other)).unwrap_err().exception_name(), "NotFoundError");
}

#[test]
fn form_submission_algorithm_5_4_invalid_controls_fire_invalid_and_stop_the_submission() {
    let (mut s, top) = page(r#"<form id=f action="/x"><input id=a name=a required><input id=b name=b required value=ok></form>"#);
    let (f, a, b) = (id(&s, top, "f"), id(&s, top, "a"), id(&s, top, "b"));
    log_events(&mut s, a, "invalid", "a");
    log_events(&mut s, b, "invalid", "b");
    log_events(&mut s, f, "submit", "form");
    s.w.request_submit(f, None).unwrap();
    s.run();
    assert_eq!(s.logged(), ["invalid@a"]);
    assert_eq!(active_url(&s, top), "https://a.test/page.html");
    // The controls' user validity became true (step 5.3).
    assert!(s.w.matches(a, ":user-invalid").unwrap());
}

#[test]
fn form_submission_algorithm_5_4_novalidate_and_formnovalidate_skip_validation() {
    let (mut s, top) = page(r#"<form id=f action="/x"><input name=a required><button id=nv formnovalidate>s</button></form>"#);
    let (f, nv) = (id(&s, top, "f"), id(&s, top, "nv"));
    s.w.request_submit(f, Some(nv)).unwrap();
    s.run();
    assert_eq!(active_url(&s, top), "https://a.test/x?a=");
}

#[test]
fn form_submission_algorithm_5_8_a_canceled_submit_event_stops_the_submission() {
    let (mut s, top) = page(SEARCH);
    let f = id(&s, top, "f");
    listen(&mut s, f, "submit", "event.preventDefault()\nlog \"prevented {event.defaultPrevented}\"");
    s.w.request_submit(f, None).unwrap();
    s.run();
    assert_eq!(s.logged(), ["prevented true"]);
    assert_eq!(active_url(&s, top), "https://a.test/page.html");
}

#[test]
fn form_submission_algorithm_26_post_submits_as_entity_body_with_the_submitters_overrides() {
    let (mut s, top) = page(SEARCH);
    let (f, other) = (id(&s, top, "f"), id(&s, top, "other"));
    s.w.request_submit(f, Some(other)).unwrap();
    s.run();
    assert_eq!(active_url(&s, top), "https://a.test/other");
    let request = s.w.navigation_request(active_document(&s, top)).unwrap().clone();
    assert_eq!(request.method, "POST");
    assert_eq!(request.content_type.as_deref(), Some("application/x-www-form-urlencoded"));
    assert_eq!(
        request.body.as_deref(),
        Some("q=cats+and+dogs&safe=on&lang=fr&t=a%0D%0Ab&b2=2")
    );
}

#[test]
fn form_submission_algorithm_26_text_plain_and_multipart_bodies() {
    let (mut s, top) = page(r#"<form id=f method=post enctype=text/plain action="/p"><input name=a value="1 2"><input name=b value=x></form>"#);
    let f = id(&s, top, "f");
    s.w.submit(f);
    s.run();
    let r = s.w.navigation_request(active_document(&s, top)).unwrap().clone();
    assert_eq!(r.body.as_deref(), Some("a=1 2\r\nb=x\r\n"));
    assert_eq!(r.content_type.as_deref(), Some("text/plain"));

    let (mut s, top) = page(r#"<form id=f method=post enctype="multipart/form-data" action="/p"><input name=a value=v><input type=file name=up></form>"#);
    let f = id(&s, top, "f");
    s.w.submit(f);
    s.run();
    let r = s.w.navigation_request(active_document(&s, top)).unwrap().clone();
    let ct = r.content_type.unwrap();
    let boundary = ct.strip_prefix("multipart/form-data; boundary=").unwrap();
    let body = r.body.unwrap();
    assert!(body.starts_with(&format!("--{boundary}\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n")), "{body}");
    assert!(body.contains("name=\"up\"; filename=\"\"\r\nContent-Type: application/octet-stream"), "{body}");
    assert!(body.ends_with(&format!("--{boundary}--\r\n")));
}

#[test]
fn constructing_the_entry_list_7_fires_formdata_after_the_submit_event() {
    let (mut s, top) = page(r#"<form id=f action="/x"><input name=a value=1></form>"#);
    let f = id(&s, top, "f");
    log_events(&mut s, f, "submit", "form");
    listen(&mut s, f, "formdata", r#"log "formdata {event.interface} bubbles={event.bubbles}""#);
    s.w.request_submit(f, None).unwrap();
    s.run();
    assert_eq!(s.logged(), ["submit@form", "formdata FormDataEvent bubbles=true"]);
}

#[test]
fn constructing_the_entry_list_5_skips_disabled_nameless_unchecked_and_other_buttons() {
    let (mut s, top) = page(r#"<form id=f>
      <!-- The first legend child need not be the first child: its controls stay enabled. -->
      <fieldset disabled><input name=in_disabled_fieldset value=1><legend><input name=in_legend value=2></legend></fieldset>
      <fieldset disabled><legend><input name=in_first_legend value=3></legend><legend><input name=in_second_legend value=4></legend></fieldset>
      <input value=nameless>
      <input type=radio name=r value=a><input type=radio name=r value=b checked>
      <input type=hidden name=_charset_>
      <input type=image name=img>
      <button name=btn value=v>b</button>
      <select name=m multiple><option selected>x<option selected disabled>y<option>z</select>
    </form>"#);
    let f = id(&s, top, "f");
    let entries = s.w.construct_entry_list(f, None).unwrap();
    let pairs: Vec<(String, String)> = entries.iter().map(|e| e.pair()).collect();
    let expected: Vec<(String, String)> = [("in_legend", "2"), ("in_first_legend", "3"), ("r", "b"), ("_charset_", "UTF-8"), ("m", "x")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(pairs, expected);
}

#[test]
fn plan_to_navigate_3_a_second_submission_replaces_the_planned_navigation() {
    let (mut s, top) = page(r#"<form id=f action="/first"><input name=a value=1></form>"#);
    let f = id(&s, top, "f");
    s.w.submit(f);
    s.w.set_attribute(f, "action", "/second").unwrap();
    s.w.submit(f);
    s.run();
    assert_eq!(active_url(&s, top), "https://a.test/second?a=1");
    // Only one navigation happened: the page has two documents, not three.
    let nav = s.w.document(top).navigable.expect("a navigable");
    assert_eq!(s.w.navigable(nav).history.len(), 2);
}

#[test]
fn form_submission_algorithm_1_a_removed_form_cannot_navigate() {
    let (mut s, top) = page(r#"<form id=f action="/x"></form>"#);
    let f = id(&s, top, "f");
    s.w.remove_node(f);
    s.w.submit(f);
    s.run();
    assert_eq!(active_url(&s, top), "https://a.test/page.html");
}

#[test]
fn plan_to_navigate_4_2_a_javascript_action_runs_no_script_and_leaves_the_document() {
    let (mut s, top) = page(r#"<form id=f action="javascript:alert(1)"><input name=a></form>"#);
    let f = id(&s, top, "f");
    log_events(&mut s, f, "submit", "form");
    s.w.request_submit(f, None).unwrap();
    s.run();
    assert_eq!(s.logged(), ["submit@form"]);
    assert_eq!(active_document(&s, top), top);
    assert!(s.trace_text().contains("is not evaluated (no JavaScript engine)"));
}

#[test]
fn form_submission_algorithm_11_dialog_method_closes_the_dialog_with_the_submitters_value() {
    let (mut s, top) = page(r#"<dialog id=d open><form id=f method=dialog><button id=ok value=yes>OK</button></form></dialog>"#);
    let (d, f, ok) = (id(&s, top, "d"), id(&s, top, "f"), id(&s, top, "ok"));
    log_events(&mut s, d, "close", "dialog");
    s.w.request_submit(f, Some(ok)).unwrap();
    assert!(!s.w.has_attribute(d, "open"));
    s.run();
    assert_eq!(s.logged(), ["close@dialog"]);
    assert_eq!(active_document(&s, top), top);

    // Without a dialog ancestor nothing happens.
    let (mut s, top) = page(r#"<form id=f method=dialog><button id=ok>OK</button></form>"#);
    let f = id(&s, top, "f");
    s.w.submit(f);
    s.run();
    assert_eq!(active_document(&s, top), top);
}

#[test]
fn form_submission_algorithm_22_target_parent_navigates_the_parent() {
    let mut s = crate::common::Sim::new("spec");
    let top = s.page("top", "https://a.test/");
    let child = s.frame(top, "child", "https://a.test/child.html");
    s.w.parse_html_document(child, r#"<form id=f action="/next" target=_parent></form>"#).unwrap();
    let f = id(&s, child, "f");
    s.w.submit(f);
    s.run();
    // An empty entry list still sets the query: the URL ends with `?`, as in Chromium.
    assert_eq!(active_url(&s, top), "https://a.test/next?");
}

#[test]
fn implicit_submission_clicks_the_default_button_or_submits_a_lone_field() {
    let (mut s, top) = page(r#"<form id=f action="/x"><input id=q name=q value=v><button id=b name=b value=1 formaction="/y">go</button></form>"#);
    let (b, q) = (id(&s, top, "b"), id(&s, top, "q"));
    log_events(&mut s, b, "click", "button");
    s.w.user_implicit_submission(q);
    s.run();
    assert_eq!(s.logged(), ["click@button"]);
    assert_eq!(active_url(&s, top), "https://a.test/y?q=v&b=1");

    let (mut s, top) = page(r#"<form id=f action="/x"><input id=q name=q value=v></form>"#);
    let q = id(&s, top, "q");
    s.w.user_implicit_submission(q);
    s.run();
    assert_eq!(active_url(&s, top), "https://a.test/x?q=v");

    let (mut s, top) = page(r#"<form id=f action="/x"><input id=q name=q><input name=r></form>"#);
    let q = id(&s, top, "q");
    s.w.user_implicit_submission(q);
    s.run();
    assert_eq!(active_url(&s, top), "https://a.test/page.html");
}

#[test]
fn activation_behavior_of_a_submit_button_submits_its_form_owner() {
    let (mut s, top) = page(r#"<form id=f action="/x"></form><input form=f name=outside value=o><input type=submit id=s form=f name=s value=S>"#);
    let sb = id(&s, top, "s");
    s.w.user_click(sb);
    s.run();
    assert_eq!(active_url(&s, top), "https://a.test/x?outside=o&s=S");
}

#[test]
fn reset_2_restores_each_control_and_a_canceled_reset_changes_nothing() {
    let (mut s, top) = page(r#"<form id=f><input id=t value=def><input type=checkbox id=c checked><select id=s><option>a<option selected>b</select><textarea id=ta>orig</textarea><output id=o>out</output></form>"#);
    let (f, t, c, sel, ta, o) = (id(&s, top, "f"), id(&s, top, "t"), id(&s, top, "c"), id(&s, top, "s"), id(&s, top, "ta"), id(&s, top, "o"));
    s.w.user_edit_value(t, "typed", true, EventTiming::Immediate).unwrap();
    s.w.set_checked(c, false);
    s.w.set_select_value(sel, "a");
    s.w.set_value(ta, "changed").unwrap();
    s.w.set_value(o, "computed").unwrap();
    listen(&mut s, f, "reset", "log \"reset cancelable={event.cancelable}\"\nevent.preventDefault()");
    s.w.reset(f);
    assert_eq!(s.w.value(t), "typed");
    assert_eq!(s.logged(), ["reset cancelable=true"]);

    let (mut s2, top2) = page(r#"<form id=f><input id=t value=def><input type=checkbox id=c checked><select id=s><option>a<option selected>b</select><textarea id=ta>orig</textarea><output id=o>out</output></form>"#);
    let (f, t, c, sel, ta, o) = (id(&s2, top2, "f"), id(&s2, top2, "t"), id(&s2, top2, "c"), id(&s2, top2, "s"), id(&s2, top2, "ta"), id(&s2, top2, "o"));
    s2.w.user_edit_value(t, "typed", true, EventTiming::Immediate).unwrap();
    s2.w.set_checked(c, false);
    s2.w.set_select_value(sel, "a");
    s2.w.set_value(ta, "changed").unwrap();
    s2.w.set_value(o, "computed").unwrap();
    s2.w.reset(f);
    assert_eq!(s2.w.value(t), "def");
    assert!(!s2.w.dirty_value(t));
    assert!(s2.w.checkedness(c));
    assert_eq!(s2.w.value(sel), "b");
    assert_eq!(s2.w.value(ta), "orig");
    assert_eq!(s2.w.value(o), "out");
    drop(s);
}

#[test]
fn form_submission_algorithm_22_target_blank_opens_a_new_page_and_navigates_it() {
    let (mut s, top) = page(r#"<form id=f action="/new" target=_blank><input name=a value=1></form>"#);
    let f = id(&s, top, "f");
    s.w.submit(f);
    s.run();
    assert_eq!(active_url(&s, top), "https://a.test/page.html");
    let blank = s.w.document_named("blank").expect("a new page");
    assert_eq!(active_url(&s, blank), "https://a.test/new?a=1");
}
