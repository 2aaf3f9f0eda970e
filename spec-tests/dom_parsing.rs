//! The HTML parser feeding the host's trees: whole documents, fragments, markup arriving in
//! chunks while a document loads (one networking task per chunk, then "the end"), and the
//! engine's bounds on hostile markup.
//!
//! <https://html.spec.whatwg.org/multipage/parsing.html>

use proptest::prelude::*;
use webmcp_ref::host::dom::{DomError, NodeData, MAX_MARKUP_BYTES, MAX_PARSED_NODES, MAX_TREE_DEPTH};
use webmcp_ref::host::events::{EventTargetRef, ListenerOptions};
use webmcp_ref::host::navigable::Lifecycle;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;

use crate::dom_support::{id, listen_with, loading_page, page};

#[test]
fn tree_construction_builds_html_head_and_body_around_a_bare_form() {
    let (s, top) = page("<form id=f><input name=q></form>");
    let html = s.w.document_element(top).unwrap();
    assert_eq!(s.w.html_name(html), Some("html"));
    let kids: Vec<_> = s.w.element_children(html).iter().map(|k| s.w.html_name(*k).unwrap().to_string()).collect();
    assert_eq!(kids, ["head", "body"]);
    let f = id(&s, top, "f");
    assert_eq!(s.w.parent(f), s.w.body(top));
}

#[test]
fn tree_construction_recovers_from_misnested_markup_as_browsers_do() {
    let (s, top) = page("<p id=p><b>1<i>2</b>3</i>4</p><table><tr><td>x</td></tr>stray<form id=f></form></table>");
    let p = id(&s, top, "p");
    assert_eq!(s.w.text_content(p).unwrap(), "1234");
    // The adoption agency algorithm: `3` ends up in an <i> that is not inside <b>.
    let is = s.w.elements_named(p, "i");
    assert_eq!(is.len(), 2);
    // Foster parenting: the stray text goes before the table.
    let body = s.w.body(top).unwrap();
    assert!(s.w.text_content(body).unwrap().contains("stray"));
}

#[test]
fn parse_html_document_refuses_a_document_that_already_has_a_tree() {
    let (mut s, top) = page("<p>x</p>");
    assert!(matches!(s.w.parse_html_document(top, "<p>y</p>"), Err(DomError::AlreadyParsed(_))));
}

#[test]
fn fragment_parsing_algorithm_in_the_context_of_an_element() {
    let (mut s, top) = page("<form id=f></form><table id=t></table>");
    let (f, t) = (id(&s, top, "f"), id(&s, top, "t"));
    s.w.set_inner_html(f, "<input id=a name=a><select id=s><option>x</select>").unwrap();
    let a = id(&s, top, "a");
    assert_eq!(s.w.form_owner(a), Some(f), "inserted controls find their form");
    // In a table context a <tr> parses as a row (in a tbody).
    s.w.set_inner_html(t, "<tr><td>1</td></tr>").unwrap();
    assert_eq!(s.w.elements_named(t, "td").len(), 1);
    s.w.insert_adjacent_html(f, "<input id=b>").unwrap();
    assert_eq!(s.w.form_controls(f).len(), 3);
}

#[test]
fn template_contents_are_a_fragment_whose_controls_have_no_form() {
    let (s, top) = page("<form id=f><template id=t><input id=inside></template></form>");
    let t = id(&s, top, "t");
    let contents = s.w.element(t).unwrap().template_contents.unwrap();
    assert!(matches!(s.w.node(contents).unwrap().data, NodeData::DocumentFragment { .. }));
    assert!(s.w.get_element_by_id(top, "inside").is_none());
    let inside = s.w.descendant_elements(contents)[0];
    assert_eq!(s.w.form_owner(inside), None);
}

#[test]
fn tree_construction_in_networking_tasks_then_the_end_queues_domcontentloaded_and_load() {
    let (mut s, top) = loading_page();
    listen_with(&mut s, top, EventTargetRef::Window(top), "DOMContentLoaded", "log \"DOMContentLoaded\"", ListenerOptions::default());
    listen_with(&mut s, top, EventTargetRef::Window(top), "load", "log \"load\"", ListenerOptions::default());
    s.w.deliver_markup(top, &["<form id=f><input name=a>", "<input name=b></form>"], false).unwrap();
    assert!(s.w.get_element_by_id(top, "f").is_none(), "nothing is parsed before its task");
    assert!(s.step());
    let f = id(&s, top, "f");
    assert_eq!(s.w.form_controls(f).len(), 1, "the first chunk only");
    assert!(s.step());
    assert_eq!(s.w.form_controls(f).len(), 2);
    assert!(!s.step(), "the input has not ended: the parser waits");
    assert_eq!(s.w.document(top).lifecycle, Lifecycle::Loading);
    s.w.deliver_markup(top, &["<p>tail"], true).unwrap();
    s.run();
    assert_eq!(s.logged(), ["DOMContentLoaded", "load"]);
    assert_eq!(s.w.document(top).lifecycle, Lifecycle::Complete);
    assert!(s.w.parser_finished(top));
    let units = s.units();
    assert_eq!(units.iter().filter(|u| u.starts_with("task (networking)")).count(), 4, "{units:#?}");
    assert!(s.w.deliver_markup(top, &["more"], true).is_err());
}

#[test]
fn deliver_markup_refuses_a_document_that_is_not_loading() {
    let (mut s, top) = page("");
    assert!(matches!(s.w.deliver_markup(top, &["<p>"], true), Err(DomError::NotLoading(_))));
}

#[test]
fn a_chunk_split_inside_a_tag_parses_as_the_whole_markup_does() {
    let markup = "<form id=f><input name=alpha value='one two'><textarea name=t>x\ny</textarea></form>";
    let (whole, top) = page(markup);
    let (mut parts, ptop) = loading_page();
    let chunks: Vec<&str> = vec![&markup[..17], &markup[17..40], &markup[40..]];
    parts.w.deliver_markup(ptop, &chunks, true).unwrap();
    parts.run();
    let f1 = id(&whole, top, "f");
    let f2 = id(&parts, ptop, "f");
    let values = |s: &crate::common::Sim, f| s.w.form_controls(f).iter().map(|c| s.w.value(*c)).collect::<Vec<_>>();
    assert_eq!(values(&whole, f1), values(&parts, f2));
    assert_eq!(values(&parts, f2), ["one two", "x\ny"]);
}

#[test]
fn bounds_refuse_deep_nesting_and_huge_markup_with_clear_errors() {
    let deep = "<div>".repeat(MAX_TREE_DEPTH + 10);
    let mut s = crate::common::Sim::new("spec");
    let top = s.page("top", "https://a.test/");
    match s.w.parse_html_document(top, &deep) {
        Err(DomError::TooDeep { max, line }) => {
            assert_eq!(max, MAX_TREE_DEPTH);
            assert_eq!(line, 1);
        }
        other => panic!("{other:?}"),
    }
    let huge = "x".repeat(MAX_MARKUP_BYTES + 1);
    assert!(matches!(s.w.parse_html_document(top, &huge), Err(DomError::MarkupTooLarge { .. })));
    let many = "<br>".repeat(MAX_PARSED_NODES + 1);
    assert!(matches!(s.w.parse_html_document(top, &many), Err(DomError::TooManyNodes { .. })));
    // Nothing was built by a refused parse.
    assert!(s.w.document_node(top).is_none_or(|root| s.w.children(root).is_empty()));
}

#[test]
fn hostile_markup_of_many_attributes_parses_within_bounds() {
    let mut tag = String::from("<input id=i");
    let mut n = 0;
    while tag.len() < MAX_MARKUP_BYTES - 64 {
        tag.push_str(&format!(" a{n}"));
        n += 1;
    }
    tag.push('>');
    let start = std::time::Instant::now();
    let (s, top) = page(&tag);
    let i = id(&s, top, "i");
    assert_eq!(s.w.element(i).unwrap().attributes.len(), n + 1);
    // Not a timing test: a bound that keeps a quadratic case from hanging the suite.
    assert!(start.elapsed().as_secs() < 60);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// Whatever the markup (tags opened and closed in any order, tables, forms, selects,
    /// templates, foreign content, stray text), parsing it whole or in chunks never panics,
    /// stays within the bounds, and gives the same tree.
    #[test]
    fn arbitrary_markup_parses_the_same_whole_and_in_chunks(
        pieces in proptest::collection::vec(prop_oneof![
            Just("<form>"), Just("</form>"), Just("<table>"), Just("<tr>"), Just("<td>"),
            Just("</table>"), Just("<select>"), Just("<option>"), Just("</select>"),
            Just("<input name=a>"), Just("<b>"), Just("</b>"), Just("<i>"), Just("</p>"),
            Just("<template>"), Just("</template>"), Just("<svg>"), Just("<math>"),
            Just("<textarea>"), Just("</textarea>"), Just("text"), Just("<!--c-->"),
            Just("<fieldset disabled>"), Just("<legend>"), Just("</div>"), Just("<div>"),
            Just("&amp;"), Just("<"), Just(">"), Just("<a href='x"), Just("\0"),
        ], 0..80),
        cut in 0usize..1000,
    ) {
        let markup: String = pieces.concat();
        let (whole, top) = page(&markup);
        let mut cut_at = cut % (markup.len() + 1);
        while !markup.is_char_boundary(cut_at) {
            cut_at -= 1;
        }
        let (mut parts, ptop) = loading_page();
        parts.w.deliver_markup(ptop, &[&markup[..cut_at], &markup[cut_at..]], true).unwrap();
        parts.run();
        let shape = |s: &crate::common::Sim, doc| {
            let root = s.w.document_node(doc).unwrap();
            s.w.inclusive_descendants(root)
                .into_iter()
                .map(|n| (s.w.depth(n), s.w.html_name(n).map(str::to_string), s.w.text_content(n)))
                .collect::<Vec<_>>()
        };
        prop_assert_eq!(shape(&whole, top), shape(&parts, ptop));
    }
}

#[test]
fn the_end_6_domcontentloaded_from_the_parser_is_what_lifecycle_domcontentloaded_waits_for() {
    let mut s = crate::common::Sim::with("spec", &[("tools-ready-lifecycle", "domcontentloaded")]);
    let top = s.page_with(
        "top",
        "https://a.test/",
        webmcp_ref::host::navigable::DocumentOptions { loading: true, ..Default::default() },
    );
    s.w.deliver_markup(top, &["<form id=f toolname=search>", "<input name=q></form>"], true).unwrap();
    assert!(!s.ready(top));
    assert!(s.step());
    assert!(s.w.get_element_by_id(top, "f").is_some(), "the form is there after the first chunk");
    assert!(!s.ready(top), "and the tools are presumed not ready until DOMContentLoaded");
    s.run();
    assert!(s.ready(top));
}

#[test]
fn a_worlds_copy_and_state_hash_include_its_trees() {
    use std::hash::Hasher;
    let (mut s, top) = page("<input id=i value=a>");
    let i = id(&s, top, "i");
    let hash = |w: &webmcp_ref::World| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        w.hash_state(&mut h);
        h.finish()
    };
    let before = hash(&s.w);
    let mut copy = s.w.clone();
    copy.set_value(i, "b").unwrap();
    assert_eq!(s.w.value(i), "a", "the copy's change stays in the copy");
    assert_eq!(copy.value(i), "b");
    assert_ne!(hash(&copy), before);
    assert_eq!(hash(&s.w), before);
    s.w.set_value(i, "b").unwrap();
    assert_eq!(hash(&s.w), hash(&copy));
}
