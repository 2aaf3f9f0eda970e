//! Form owners, the `form` attribute, `fieldset`/`legend` disabling, radio button groups.
//!
//! <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#reset-the-form-owner>

#[allow(unused_imports)]
use webmcp_ref::prelude::*;

use crate::dom_support::{id, page};

#[test]
fn reset_the_form_owner_5_the_nearest_form_ancestor() {
    let (s, top) = page("<form id=f><div><input id=i></div></form><input id=out>");
    let (f, i, out) = (id(&s, top, "f"), id(&s, top, "i"), id(&s, top, "out"));
    assert_eq!(s.w.form_owner(i), Some(f));
    assert_eq!(s.w.form_owner(out), None);
    assert_eq!(s.w.form_controls(f), vec![i]);
}

#[test]
fn reset_the_form_owner_4_1_the_form_attribute_names_a_form_by_id() {
    let (mut s, top) = page("<form id=a></form><form id=b><input id=i form=a><input id=j form=nothing></form>");
    let (a, b, i, j) = (id(&s, top, "a"), id(&s, top, "b"), id(&s, top, "i"), id(&s, top, "j"));
    assert_eq!(s.w.form_owner(i), Some(a));
    // A `form` attribute that names no form gives no owner, even inside a form.
    assert_eq!(s.w.form_owner(j), None);
    // Changing the attribute resets the owner.
    s.w.set_attribute(i, "form", "b").unwrap();
    assert_eq!(s.w.form_owner(i), Some(b));
    s.w.remove_attribute(i, "form").unwrap();
    assert_eq!(s.w.form_owner(i), Some(b));
    // An ID that comes into the tree resets the owners of elements whose form names it.
    s.w.set_attribute(a, "id", "nothing").unwrap();
    assert_eq!(s.w.form_owner(j), Some(a));
    // ...and one that goes.
    s.w.remove_node(a);
    assert_eq!(s.w.form_owner(j), None);
}

#[test]
fn insertion_steps_reset_the_owner_of_an_inserted_control_and_removal_of_a_moved_one() {
    let (mut s, top) = page("<form id=f></form><div id=d></div>");
    let (f, d) = (id(&s, top, "f"), id(&s, top, "d"));
    let input = s.w.create_element(top, "input").unwrap();
    s.w.append_child(f, input).unwrap();
    assert_eq!(s.w.form_owner(input), Some(f));
    s.w.append_child(d, input).unwrap();
    assert_eq!(s.w.form_owner(input), None);
    // An ancestor inserted carries its descendants' owners with it.
    let wrapper = s.w.create_element(top, "div").unwrap();
    s.w.append_child(wrapper, input).unwrap();
    s.w.append_child(f, wrapper).unwrap();
    assert_eq!(s.w.form_owner(input), Some(f));
}

#[test]
fn parser_association_keeps_a_foster_parented_control_with_its_form() {
    // The input is foster-parented out of the table, before it, yet the parser's form
    // element pointer makes the form its owner.
    let (s, top) = page("<form id=f><table><tr><td></td></tr><input id=i name=i></table></form>");
    let (f, i) = (id(&s, top, "f"), id(&s, top, "i"));
    assert_eq!(s.w.form_owner(i), Some(f));
    // Misnested: a form closed early by </div> still owns a later control, outside it.
    let (mut s, top) = page("<div><form id=g></div><input id=j>");
    let (g, j) = (id(&s, top, "g"), id(&s, top, "j"));
    assert_eq!(s.w.form_owner(j), Some(g));
    assert!(!s.w.is_inclusive_ancestor(g, j));
    // Removing the form resets the owner of the control it leaves behind.
    s.w.remove_node(g);
    assert_eq!(s.w.form_owner(j), None);
}

#[test]
fn fieldset_disabled_except_in_its_first_legend() {
    let (mut s, top) = page("<fieldset id=fs disabled><legend><input id=in_legend></legend><legend><input id=second_legend></legend><input id=plain><fieldset id=inner><input id=nested></fieldset></fieldset>");
    for (name, disabled) in [("in_legend", false), ("second_legend", true), ("plain", true), ("nested", true), ("inner", true)] {
        assert_eq!(s.w.is_disabled(id(&s, top, name)), disabled, "{name}");
    }
    let fs = id(&s, top, "fs");
    s.w.remove_attribute(fs, "disabled").unwrap();
    assert!(!s.w.is_disabled(id(&s, top, "plain")));
}

#[test]
fn radio_button_group_one_checked_per_group_and_form_owner() {
    let (mut s, top) = page("<form id=f><input type=radio name=r id=a checked><input type=radio name=r id=b></form><input type=radio name=r id=c checked><input type=radio name=r id=d checked>");
    let (a, b, c, d) = (id(&s, top, "a"), id(&s, top, "b"), id(&s, top, "c"), id(&s, top, "d"));
    // Outside the form, c and d share a group: d, inserted later and checked, wins.
    assert!(!s.w.checkedness(c));
    assert!(s.w.checkedness(d));
    assert!(s.w.checkedness(a));
    s.w.set_checked(b, true);
    assert!(!s.w.checkedness(a));
    assert!(s.w.checkedness(d), "another group is untouched");
    assert_eq!(s.w.radio_group(a), vec![a, b]);
    // A form owner change joins another group: the checked button unchecks the one there.
    s.w.set_attribute(b, "form", "nothing").unwrap();
    assert_eq!(s.w.form_owner(b), None);
    assert!(s.w.checkedness(b) && !s.w.checkedness(d));
    s.w.set_attribute(c, "name", "other").unwrap();
    assert_eq!(s.w.radio_group(b), vec![b, d]);
}
