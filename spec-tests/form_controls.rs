//! Controls' values: the value sanitization algorithm of every `input` type, the value modes,
//! the type change steps, select/option selectedness, textarea and output values, and what
//! the user does to a control.
//!
//! <https://html.spec.whatwg.org/multipage/input.html#value-sanitization-algorithm>

use webmcp_ref::host::forms::EventTiming;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;

use crate::dom_support::{id, log_events, page};

/// The value an input of `type` takes when script sets `value` to `v`.
fn sanitized(t: &str, extra: &str, v: &str) -> String {
    let (mut s, top) = page(&format!("<input id=i type={t} {extra}>"));
    let i = id(&s, top, "i");
    s.w.set_value(i, v).unwrap();
    s.w.value(i)
}

#[test]
fn value_sanitization_algorithm_of_each_type() {
    let cases: &[(&str, &str, &str, &str)] = &[
        ("text", "", "a\r\nb\nc", "abc"),
        ("search", "", "x\ny", "xy"),
        ("tel", "", " +1 555\n", " +1 555"),
        ("password", "", "p\rw", "pw"),
        ("url", "", "  https://a.test/\n ", "https://a.test/"),
        ("email", "", " a@b.test \n", "a@b.test"),
        ("email", "multiple", " a@b.test , c@d.test ,", "a@b.test,c@d.test,"),
        ("number", "", "1.5e3", "1.5e3"),
        ("number", "", "+1", ""),
        ("number", "", "1.", ""),
        ("number", "", "abc", ""),
        ("range", "", "abc", "50"),
        ("range", "min=0 max=10", "abc", "5"),
        ("range", "min=10 max=0", "abc", "10"),
        ("range", "", "150", "100"),
        ("range", "", "-5", "0"),
        ("range", "step=10", "14", "10"),
        ("range", "step=10", "15", "20"),
        ("range", "min=0 max=1 step=0.1", "0.33", "0.3"),
        ("date", "", "2024-02-29", "2024-02-29"),
        ("date", "", "2023-02-29", ""),
        ("date", "", "2024-2-1", ""),
        ("month", "", "2024-12", "2024-12"),
        ("month", "", "2024-13", ""),
        ("week", "", "2020-W53", "2020-W53"),
        ("week", "", "2021-W53", ""),
        ("time", "", "23:59:59.999", "23:59:59.999"),
        ("time", "", "24:00", ""),
        ("datetime-local", "", "2020-01-02 03:04:00", "2020-01-02T03:04"),
        ("datetime-local", "", "2020-01-02T03:04:05.100", "2020-01-02T03:04:05.1"),
        ("datetime-local", "", "2020-01-02", ""),
        ("color", "", "#AABBCC", "#aabbcc"),
        ("color", "", "red", "#000000"),
        ("hidden", "", "a\nb", "a\nb"),
    ];
    for (t, extra, input, expected) in cases {
        assert_eq!(sanitized(t, extra, input), *expected, "type={t} {extra} value={input:?}");
    }
}

#[test]
fn range_default_value_and_clamping_follow_min_max_and_step_whatever_the_attribute_order() {
    let (s, top) = page("<input id=a type=range value=150 max=200><input id=b type=range max=200 value=150><input id=c type=range>");
    assert_eq!(s.w.value(id(&s, top, "a")), "150");
    assert_eq!(s.w.value(id(&s, top, "b")), "150");
    assert_eq!(s.w.value(id(&s, top, "c")), "50");
}

#[test]
fn value_modes_default_default_on_and_filename() {
    let (mut s, top) = page("<input id=h type=hidden value=v><input id=c type=checkbox><input id=f type=file><input id=sb type=submit>");
    let (h, c, f, sb) = (id(&s, top, "h"), id(&s, top, "c"), id(&s, top, "f"), id(&s, top, "sb"));
    assert_eq!(s.w.value(h), "v");
    s.w.set_value(h, "w").unwrap();
    assert_eq!(s.w.attribute(h, "value"), Some("w"));
    assert_eq!(s.w.value(c), "on");
    s.w.set_value(c, "yes").unwrap();
    assert_eq!(s.w.attribute(c, "value"), Some("yes"));
    assert_eq!(s.w.value(sb), "");
    assert_eq!(s.w.value(f), "");
    assert!(s.w.set_value(f, "").is_ok());
    assert_eq!(s.w.set_value(f, "C:\\x").unwrap_err().exception_name(), "InvalidStateError");
}

#[test]
fn input_value_attribute_sets_a_clean_value_and_the_dirty_value_flag_stops_it() {
    let (mut s, top) = page("<input id=i value=a>");
    let i = id(&s, top, "i");
    s.w.set_attribute(i, "value", "b").unwrap();
    assert_eq!(s.w.value(i), "b");
    s.w.set_value(i, "typed").unwrap();
    assert!(s.w.dirty_value(i));
    s.w.set_attribute(i, "value", "c").unwrap();
    assert_eq!(s.w.value(i), "typed");
    assert_eq!(s.w.default_value(i), "c");
}

#[test]
fn input_type_change_1_carries_the_value_into_the_value_attribute_and_2_back() {
    let (mut s, top) = page("<input id=i>");
    let i = id(&s, top, "i");
    s.w.set_value(i, "kept").unwrap();
    s.w.set_attribute(i, "type", "checkbox").unwrap();
    assert_eq!(s.w.attribute(i, "value"), Some("kept"));
    assert_eq!(s.w.value(i), "kept");
    s.w.set_attribute(i, "value", "again").unwrap();
    s.w.set_attribute(i, "type", "text").unwrap();
    assert_eq!(s.w.value(i), "again");
    assert!(!s.w.dirty_value(i));
    // 6. The new type's sanitization.
    s.w.set_value(i, "12abc").unwrap();
    s.w.set_attribute(i, "type", "number").unwrap();
    assert_eq!(s.w.value(i), "");
}

#[test]
fn input_checked_attribute_sets_clean_checkedness_only() {
    let (mut s, top) = page("<input type=checkbox id=c>");
    let c = id(&s, top, "c");
    s.w.set_attribute(c, "checked", "").unwrap();
    assert!(s.w.checkedness(c));
    s.w.set_checked(c, false);
    s.w.remove_attribute(c, "checked").unwrap();
    s.w.set_attribute(c, "checked", "").unwrap();
    assert!(!s.w.checkedness(c), "dirty checkedness ignores the attribute");
}

#[test]
fn selectedness_setting_algorithm_single_and_multiple() {
    let (mut s, top) = page("<select id=s><option id=a disabled>A<option id=b>B<option id=c>C</select><select id=m multiple><option id=x>X<option id=y selected>Y<option id=z selected>Z</select><select id=two><option selected id=p>P<option selected id=q>Q</select>");
    let (sel, b, c) = (id(&s, top, "s"), id(&s, top, "b"), id(&s, top, "c"));
    // 1. Nothing selected: the first option that is not disabled.
    assert_eq!(s.w.selected_options(sel), vec![b]);
    // 2. Two selected without multiple: the last wins.
    assert_eq!(s.w.value(id(&s, top, "two")), "Q");
    s.w.set_selectedness(c, true);
    assert_eq!(s.w.selected_options(sel), vec![c]);
    assert_eq!(s.w.selected_index(sel), 2);
    let m = id(&s, top, "m");
    assert_eq!(s.w.selected_options(m), vec![id(&s, top, "y"), id(&s, top, "z")]);
    s.w.set_select_value(sel, "nothing");
    assert_eq!(s.w.selected_index(sel), -1);
    assert_eq!(s.w.value(sel), "");
    // Removing the selected option selects the first again.
    s.w.set_selectedness(c, true);
    s.w.remove_node(c);
    assert_eq!(s.w.selected_options(sel), vec![b]);
}

#[test]
fn option_value_and_text_strip_and_collapse_whitespace() {
    let (s, top) = page("<select id=s><option id=o>  Big   cat </option><option id=v value=''>x</option></select>");
    assert_eq!(s.w.option_value(id(&s, top, "o")), "Big cat");
    assert_eq!(s.w.option_value(id(&s, top, "v")), "");
}

#[test]
fn textarea_api_value_normalizes_newlines_and_output_value_keeps_its_default() {
    let (mut s, top) = page("<textarea id=t></textarea><output id=o>def</output>");
    let (t, o) = (id(&s, top, "t"), id(&s, top, "o"));
    s.w.set_value(t, "a\r\nb\rc").unwrap();
    assert_eq!(s.w.value(t), "a\nb\nc");
    s.w.set_value(o, "now").unwrap();
    assert_eq!(s.w.value(o), "now");
    assert_eq!(s.w.default_value(o), "def");
}

#[test]
fn user_edit_value_sanitizes_sets_bad_input_and_queues_input_then_change() {
    let (mut s, top) = page("<input id=n type=number><input id=t maxlength=3>");
    let (n, t) = (id(&s, top, "n"), id(&s, top, "t"));
    log_events(&mut s, n, "input", "n");
    log_events(&mut s, n, "change", "n");
    s.w.user_edit_value(n, "12x", true, EventTiming::Queued).unwrap();
    assert!(s.logged().is_empty(), "queued on the user interaction task source");
    assert_eq!(s.w.value(n), "");
    assert!(s.w.validity(n).bad_input);
    s.run();
    assert_eq!(s.logged(), ["input@n", "change@n"]);
    assert!(s.units().iter().any(|u| u.starts_with("task (user interaction)")));
    s.w.user_edit_value(t, "abcd", false, EventTiming::Immediate).unwrap();
    assert!(s.w.validity(t).too_long);
    s.w.set_value(t, "abcd").unwrap();
    assert!(!s.w.validity(t).too_long, "only a user's edit is too long");
}

#[test]
fn user_edit_value_refuses_a_disabled_or_read_only_control() {
    let (mut s, top) = page("<input id=d disabled><input id=r readonly><input id=c type=checkbox>");
    for name in ["d", "r", "c"] {
        let e = id(&s, top, name);
        assert!(s.w.user_edit_value(e, "x", true, EventTiming::Immediate).is_err(), "{name}");
    }
}

#[test]
fn user_select_option_sends_select_update_notifications() {
    let (mut s, top) = page("<select id=s><option>a<option id=b>b</select>");
    let (sel, b) = (id(&s, top, "s"), id(&s, top, "b"));
    log_events(&mut s, sel, "input", "s");
    log_events(&mut s, sel, "change", "s");
    s.w.user_select_option(sel, b, true, EventTiming::Immediate).unwrap();
    assert_eq!(s.w.value(sel), "b");
    assert_eq!(s.logged(), ["input@s", "change@s"]);
    assert!(s.w.matches(sel, ":user-valid").unwrap());
}

#[test]
fn user_set_checkedness_of_a_radio_button_unchecks_its_group() {
    let (mut s, top) = page("<input type=radio name=r id=a checked><input type=radio name=r id=b>");
    let (a, b) = (id(&s, top, "a"), id(&s, top, "b"));
    log_events(&mut s, b, "change", "b");
    s.w.user_set_checkedness(b, true).unwrap();
    assert!(s.w.checkedness(b) && !s.w.checkedness(a));
    assert_eq!(s.logged(), ["change@b"]);
}
