//! Constraint validation: candidates (`willValidate`), each validity state, the validation
//! message, `checkValidity()` and `reportValidity()`.
//!
//! <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#constraints>

use webmcp_ref::host::forms::EventTiming;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;

use crate::dom_support::{id, listen, log_events, page};

#[test]
fn candidate_for_constraint_validation_barred_elements() {
    let (s, top) = page(r#"<form><input id=text><input id=disabled disabled><input id=ro readonly><input id=hidden type=hidden>
      <input id=reset type=reset><input id=button type=button><input id=submit type=submit><button id=b type=button></button>
      <button id=bs></button><datalist><input id=in_datalist></datalist><textarea id=ta readonly></textarea>
      <select id=sel></select><output id=out></output><input id=cb type=checkbox readonly></form>"#);
    for (name, will) in [
        ("text", true), ("disabled", false), ("ro", false), ("hidden", false), ("reset", false),
        ("button", false), ("submit", true), ("b", false), ("bs", true), ("in_datalist", false),
        ("ta", false), ("sel", true), ("out", false), ("cb", true),
    ] {
        assert_eq!(s.w.will_validate(id(&s, top, name)), will, "{name}");
    }
}

#[test]
fn suffering_from_being_missing_per_control() {
    let (mut s, top) = page(r#"<input id=t required><input id=c type=checkbox required><input type=radio name=r id=r1 required><input type=radio name=r id=r2>
      <select id=s required><option value="">Pick</option><option>A</option></select><textarea id=ta required></textarea><input id=f type=file required>"#);
    for name in ["t", "c", "r1", "r2", "s", "ta", "f"] {
        assert!(s.w.validity(id(&s, top, name)).value_missing, "{name}");
    }
    let r2 = id(&s, top, "r2");
    s.w.set_checked(r2, true);
    assert!(!s.w.validity(id(&s, top, "r1")).value_missing);
    let sel = id(&s, top, "s");
    s.w.set_select_value(sel, "A");
    assert!(!s.w.validity(sel).value_missing);
    assert_eq!(s.w.validation_message(id(&s, top, "t")), "Please fill out this field.");
}

#[test]
fn suffering_from_a_type_mismatch_url_and_email() {
    let (mut s, top) = page("<input id=u type=url><input id=e type=email><input id=m type=email multiple>");
    let (u, e, m) = (id(&s, top, "u"), id(&s, top, "e"), id(&s, top, "m"));
    s.w.set_value(u, "not a url").unwrap();
    s.w.set_value(e, "nobody").unwrap();
    s.w.set_value(m, "a@b.test,c").unwrap();
    assert!(s.w.validity(u).type_mismatch && s.w.validity(e).type_mismatch && s.w.validity(m).type_mismatch);
    s.w.set_value(u, "https://a.test/x").unwrap();
    s.w.set_value(m, "a@b.test, c@d.test").unwrap();
    assert!(!s.w.validity(u).type_mismatch && !s.w.validity(m).type_mismatch);
}

#[test]
fn suffering_from_a_pattern_mismatch_matches_the_whole_value_with_the_v_flag() {
    let (mut s, top) = page(r#"<input id=a pattern="[a-z]+"><input id=b pattern="a|b"><input id=bad pattern="[(]"><input id=set pattern="[\w--\d]+">"#);
    let (a, b, bad, set) = (id(&s, top, "a"), id(&s, top, "b"), id(&s, top, "bad"), id(&s, top, "set"));
    s.w.set_value(a, "abc1").unwrap();
    assert!(s.w.validity(a).pattern_mismatch);
    s.w.set_value(a, "abc").unwrap();
    assert!(!s.w.validity(a).pattern_mismatch);
    // Anchored around the whole pattern: "ab" matches neither alternative whole.
    s.w.set_value(b, "ab").unwrap();
    assert!(s.w.validity(b).pattern_mismatch);
    // Invalid under the v flag (an unescaped parenthesis in a class): no constraint.
    s.w.set_value(bad, "zzz").unwrap();
    assert!(!s.w.validity(bad).pattern_mismatch);
    // Set subtraction.
    s.w.set_value(set, "ab_").unwrap();
    assert!(!s.w.validity(set).pattern_mismatch);
    s.w.set_value(set, "a1").unwrap();
    assert!(s.w.validity(set).pattern_mismatch);
}

#[test]
fn suffering_from_underflow_overflow_and_step_mismatch() {
    let (mut s, top) = page("<input id=n type=number min=1 max=10 step=2><input id=d type=date min=2024-01-10><input id=t type=time min=22:00 max=06:00><input id=any type=number step=any>");
    let (n, d, t, any) = (id(&s, top, "n"), id(&s, top, "d"), id(&s, top, "t"), id(&s, top, "any"));
    s.w.set_value(n, "0").unwrap();
    assert!(s.w.validity(n).range_underflow);
    s.w.set_value(n, "11").unwrap();
    assert!(s.w.validity(n).range_overflow);
    s.w.set_value(n, "4").unwrap();
    assert!(s.w.validity(n).step_mismatch, "step base is min=1");
    s.w.set_value(n, "5").unwrap();
    assert!(s.w.validity(n).valid());
    s.w.set_value(d, "2024-01-09").unwrap();
    assert!(s.w.validity(d).range_underflow);
    // A time range that wraps past midnight.
    s.w.set_value(t, "23:00").unwrap();
    assert!(s.w.validity(t).valid());
    s.w.set_value(t, "12:00").unwrap();
    let v = s.w.validity(t);
    assert!(v.range_underflow && v.range_overflow);
    s.w.set_value(any, "0.123").unwrap();
    assert!(!s.w.validity(any).step_mismatch);
}

#[test]
fn too_long_and_too_short_only_after_a_user_edit() {
    let (mut s, top) = page("<input id=a minlength=3><textarea id=t maxlength=2></textarea>");
    let (a, t) = (id(&s, top, "a"), id(&s, top, "t"));
    s.w.set_value(a, "x").unwrap();
    assert!(!s.w.validity(a).too_short);
    s.w.user_edit_value(a, "x", false, EventTiming::Immediate).unwrap();
    assert!(s.w.validity(a).too_short);
    s.w.user_edit_value(t, "abc", false, EventTiming::Immediate).unwrap();
    assert!(s.w.validity(t).too_long);
}

#[test]
fn set_custom_validity_is_a_custom_error_and_its_message() {
    let (mut s, top) = page("<input id=i>");
    let i = id(&s, top, "i");
    s.w.set_custom_validity(i, "nope\r\nreally");
    assert!(s.w.validity(i).custom_error);
    assert_eq!(s.w.validation_message(i), "nope\nreally");
    s.w.set_custom_validity(i, "");
    assert!(s.w.validity(i).valid());
}

#[test]
fn check_validity_1_1_fires_a_cancelable_invalid_event_at_an_invalid_control() {
    let (mut s, top) = page("<form id=f><input id=a required><input id=b required></form>");
    let (f, a, b) = (id(&s, top, "f"), id(&s, top, "a"), id(&s, top, "b"));
    listen(&mut s, a, "invalid", "log \"invalid@a cancelable={event.cancelable} bubbles={event.bubbles}\"");
    log_events(&mut s, b, "invalid", "b");
    log_events(&mut s, f, "invalid", "form");
    assert!(!s.w.check_validity(a));
    assert!(!s.w.check_validity(f));
    assert_eq!(
        s.logged(),
        ["invalid@a cancelable=true bubbles=false", "invalid@a cancelable=true bubbles=false", "invalid@b"]
    );
    assert!(!s.w.report_validity(f));
}

#[test]
fn statically_validate_the_constraints_6_canceled_invalid_events_are_handled() {
    let (mut s, top) = page("<form id=f><input id=a required><input id=b required></form>");
    let (f, a, b) = (id(&s, top, "f"), id(&s, top, "a"), id(&s, top, "b"));
    listen(&mut s, a, "invalid", "event.preventDefault()");
    assert_eq!(s.w.statically_validate_the_constraints(f), Err(vec![b]));
}
