//! DOM's tree algorithms (pre-insert, insert, remove, adopt, attributes) with HTML's steps
//! on them, event dispatch along a node's path, and selectors.
//!
//! <https://dom.spec.whatwg.org/#mutation-algorithms>, <https://dom.spec.whatwg.org/#concept-event-dispatch>

use webmcp_ref::host::events::{EventTargetRef, ListenerOptions};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;

use crate::dom_support::{id, listen, listen_with, log_events, page};

#[test]
fn ensure_pre_insertion_validity_2_and_6_reject_cycles_and_a_second_document_element() {
    let (mut s, top) = page("<div id=a><div id=b></div></div>");
    let (a, b) = (id(&s, top, "a"), id(&s, top, "b"));
    assert_eq!(s.w.append_child(b, a).unwrap_err().exception_name(), "HierarchyRequestError");
    let root = s.w.document_node(top).unwrap();
    let extra = s.w.create_element(top, "p").unwrap();
    assert_eq!(s.w.append_child(root, extra).unwrap_err().exception_name(), "HierarchyRequestError");
    let text = s.w.create_text(top, "x");
    assert_eq!(s.w.append_child(root, text).unwrap_err().exception_name(), "HierarchyRequestError");
    assert_eq!(s.w.insert_before(a, extra, Some(a)).unwrap_err().exception_name(), "NotFoundError");
}

#[test]
fn insert_7_1_adopts_the_node_into_the_parents_document_and_moves_it() {
    let mut s = crate::common::Sim::new("spec");
    let one = s.page("one", "https://a.test/1");
    let two = s.page("two", "https://b.test/2");
    s.w.parse_html_document(one, "<p id=p>x</p>").unwrap();
    s.w.parse_html_document(two, "<div id=target></div>").unwrap();
    let p = id(&s, one, "p");
    let target = id(&s, two, "target");
    s.w.append_child(target, p).unwrap();
    assert_eq!(s.w.node_document(p), two);
    assert!(s.w.get_element_by_id(one, "p").is_none());
    assert_eq!(s.w.parent(p), Some(target));
}

#[test]
fn create_element_1_rejects_an_invalid_name_and_lowercases_html_names() {
    let (mut s, top) = page("");
    assert_eq!(s.w.create_element(top, "1x").unwrap_err().exception_name(), "InvalidCharacterError");
    let e = s.w.create_element(top, "DIV").unwrap();
    assert_eq!(s.w.html_name(e), Some("div"));
}

#[test]
fn set_attribute_2_lowercases_and_toggle_attribute_4_adds_or_removes() {
    let (mut s, top) = page("<div id=d></div>");
    let d = id(&s, top, "d");
    s.w.set_attribute(d, "DATA-X", "1").unwrap();
    assert_eq!(s.w.attribute(d, "data-x"), Some("1"));
    assert!(s.w.toggle_attribute(d, "hidden", None).unwrap());
    assert!(!s.w.toggle_attribute(d, "hidden", None).unwrap());
    assert!(s.w.toggle_attribute(d, "hidden", Some(true)).unwrap());
    assert!(s.w.toggle_attribute(d, "hidden", Some(true)).unwrap());
    s.w.remove_attribute(d, "HIDDEN").unwrap();
    assert!(!s.w.has_attribute(d, "hidden"));
    let names: Vec<String> = s.w.element(d).unwrap().attributes.iter().map(|a| a.name.clone()).collect();
    assert_eq!(names, ["id", "data-x"]);
    assert_eq!(s.w.set_attribute(d, "a b", "1").unwrap_err().exception_name(), "InvalidCharacterError");
}

#[test]
fn dispatch_5_13_and_5_14_capture_then_target_then_bubble_up_to_the_window() {
    let (mut s, top) = page("<div id=outer><p id=inner><span id=t>x</span></p></div>");
    let (outer, inner, t) = (id(&s, top, "outer"), id(&s, top, "inner"), id(&s, top, "t"));
    let capture = ListenerOptions { capture: true, ..ListenerOptions::default() };
    listen_with(&mut s, top, EventTargetRef::Window(top), "ping", "log \"window capture {event.eventPhase}\"", capture);
    listen_with(&mut s, top, EventTargetRef::Node(outer), "ping", "log \"outer capture {event.eventPhase}\"", capture);
    listen(&mut s, t, "ping", "log \"target {event.eventPhase} current={event.currentTarget}\"");
    listen_with(&mut s, top, EventTargetRef::Node(t), "ping", "log \"target capture {event.eventPhase}\"", capture);
    listen(&mut s, inner, "ping", "log \"inner bubble {event.eventPhase} target={event.target}\"");
    listen_with(&mut s, top, EventTargetRef::Window(top), "ping", "log \"window bubble\"", ListenerOptions::default());
    let fired = s.w.fire_event(t, webmcp_ref::host::dom::EventInit::new("ping").bubbles());
    assert!(fired);
    assert_eq!(
        s.logged(),
        [
            "window capture 1",
            "outer capture 1",
            "target capture 2",
            "target 2 current=span#t",
            "inner bubble 3 target=span#t",
            "window bubble",
        ]
    );
}

#[test]
fn dispatch_5_14_an_event_that_does_not_bubble_stops_at_its_target() {
    let (mut s, top) = page("<div id=outer><input id=t></div>");
    let (outer, t) = (id(&s, top, "outer"), id(&s, top, "t"));
    log_events(&mut s, outer, "invalid", "outer");
    log_events(&mut s, t, "invalid", "t");
    s.w.fire_event(t, webmcp_ref::host::dom::EventInit::new("invalid").cancelable());
    assert_eq!(s.logged(), ["invalid@t"]);
}

#[test]
fn stop_propagation_ends_the_path_and_stop_immediate_propagation_the_list() {
    let (mut s, top) = page("<div id=outer><p id=t></p></div>");
    let (outer, t) = (id(&s, top, "outer"), id(&s, top, "t"));
    listen(&mut s, t, "x", "log \"first\"\nevent.stopImmediatePropagation()");
    listen(&mut s, t, "x", "log \"second\"");
    log_events(&mut s, outer, "x", "outer");
    s.w.fire_event(t, webmcp_ref::host::dom::EventInit::new("x").bubbles());
    assert_eq!(s.logged(), ["first"]);
}

#[test]
fn prevent_default_cancels_only_a_cancelable_event_outside_a_passive_listener() {
    let (mut s, top) = page("<p id=t></p>");
    let t = id(&s, top, "t");
    listen(&mut s, t, "a", "event.preventDefault()");
    let passive = ListenerOptions { passive: true, ..ListenerOptions::default() };
    listen_with(&mut s, top, EventTargetRef::Node(t), "b", "event.preventDefault()", passive);
    use webmcp_ref::host::dom::EventInit;
    assert!(!s.w.fire_event(t, EventInit::new("a").cancelable()));
    assert!(s.w.fire_event(t, EventInit::new("a")));
    assert!(s.w.fire_event(t, EventInit::new("b").cancelable()));
}

#[test]
fn add_an_event_listener_4_an_equal_listener_is_added_once_and_once_listeners_run_once() {
    let (mut s, top) = page("<p id=t></p>");
    let t = id(&s, top, "t");
    let once = ListenerOptions { once: true, ..ListenerOptions::default() };
    listen_with(&mut s, top, EventTargetRef::Node(t), "x", "log \"once\"", once);
    use webmcp_ref::host::dom::EventInit;
    s.w.fire_event(t, EventInit::new("x"));
    s.w.fire_event(t, EventInit::new("x"));
    assert_eq!(s.logged(), ["once"]);
}

#[test]
fn dispatch_11_checkbox_activation_toggles_fires_input_and_change_and_a_canceled_click_restores() {
    let (mut s, top) = page("<input type=checkbox id=c>");
    let c = id(&s, top, "c");
    listen(&mut s, c, "click", "log \"click\"");
    log_events(&mut s, c, "input", "c");
    log_events(&mut s, c, "change", "c");
    s.w.user_click(c);
    assert!(s.w.checkedness(c));
    assert_eq!(s.logged(), ["click", "input@c", "change@c"]);

    let (mut s, top) = page("<input type=checkbox id=c>");
    let c = id(&s, top, "c");
    listen(&mut s, c, "click", "event.preventDefault()");
    log_events(&mut s, c, "change", "c");
    s.w.user_click(c);
    assert!(!s.w.checkedness(c));
    assert!(s.logged().is_empty());
}

#[test]
fn click_1_a_disabled_control_ignores_click() {
    let (mut s, top) = page("<input type=checkbox id=c disabled>");
    let c = id(&s, top, "c");
    log_events(&mut s, c, "click", "c");
    s.w.click(c, false);
    assert!(s.logged().is_empty());
    assert!(!s.w.checkedness(c));
}

#[test]
fn label_activation_clicks_its_labeled_control() {
    let (mut s, top) = page("<label id=l>Agree <input type=checkbox id=c></label><label for=c id=l2>again</label>");
    let (l, c, l2) = (id(&s, top, "l"), id(&s, top, "c"), id(&s, top, "l2"));
    assert_eq!(s.w.labeled_control(l), Some(c));
    assert_eq!(s.w.labels(c), vec![l, l2]);
    s.w.user_click(l);
    assert!(s.w.checkedness(c));
    s.w.user_click(l2);
    assert!(!s.w.checkedness(c));
}

#[test]
fn matches_reads_type_id_class_attribute_and_form_pseudo_classes() {
    let (mut s, top) = page(r#"<form id=f class="a b"><input id=i required><input type=checkbox id=c checked><fieldset disabled><input id=d></fieldset></form>"#);
    let (f, i, c, d) = (id(&s, top, "f"), id(&s, top, "i"), id(&s, top, "c"), id(&s, top, "d"));
    assert!(s.w.matches(f, "form#f.a.b").unwrap());
    assert!(s.w.matches(i, "form > input[required]:invalid:required").unwrap());
    assert!(s.w.matches(c, "[type=checkbox]:checked:valid:optional").unwrap());
    assert!(s.w.matches(d, "fieldset input:disabled").unwrap());
    assert!(s.w.matches(f, ":invalid").unwrap());
    assert!(!s.w.matches(i, ":not(input)").unwrap());
    assert!(s.w.matches(c, "input ~ input").unwrap());
    assert_eq!(s.w.query_selector_all(f, "input:enabled").unwrap(), vec![i, c]);
    assert!(s.w.matches(f, ":tool-form-active").is_err());
    s.w.define_pseudo_class("tool-form-active");
    assert!(!s.w.matches(f, ":tool-form-active").unwrap());
    s.w.set_pseudo_class_state(f, "tool-form-active", true);
    assert!(s.w.matches(f, "form:tool-form-active").unwrap());
    assert!(s.w.matches(i, "input[").is_err());
    assert!(s.w.matches(i, "::before").is_err());
}

#[test]
fn remove_11_runs_html_removing_steps_and_children_changed_updates_a_clean_textarea() {
    let (mut s, top) = page("<textarea id=t>one</textarea>");
    let t = id(&s, top, "t");
    s.w.set_text_content(t, "two");
    assert_eq!(s.w.value(t), "two");
    s.w.set_value(t, "dirty").unwrap();
    s.w.set_text_content(t, "three");
    assert_eq!(s.w.value(t), "dirty");
    assert_eq!(s.w.default_value(t), "three");
}
