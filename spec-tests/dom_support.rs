//! What the DOM and forms spec-tests share: a page whose document is parsed from markup,
//! elements found by ID, listeners of the page's script on nodes, and what a page would read
//! back (values, events in the order they fired, the URL a navigation went to).

use std::sync::Arc;

use webmcp_ref::host::events::{EventTargetRef, ListenerOptions};
use webmcp_ref::host::keys::NodeKey;
use webmcp_ref::host::navigable::DocumentOptions;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::script::code::Code;
use webmcp_ref::DocumentKey;

use crate::common::Sim;

/// A world under `spec` with one page, `top` at https://a.test/page.html, whose document was
/// loaded with `markup`.
pub fn page(markup: &str) -> (Sim, DocumentKey) {
    let mut s = Sim::new("spec");
    let top = s.page("top", "https://a.test/page.html");
    s.w.parse_html_document(top, markup).expect("the markup parses");
    (s, top)
}

/// A page that is still loading (its markup comes later, in chunks).
pub fn loading_page() -> (Sim, DocumentKey) {
    let mut s = Sim::new("spec");
    let top = s.page_with(
        "top",
        "https://a.test/page.html",
        DocumentOptions {
            loading: true,
            ..DocumentOptions::default()
        },
    );
    (s, top)
}

/// The element of `doc` whose ID is `id`.
pub fn id(s: &Sim, doc: DocumentKey, id: &str) -> NodeKey {
    s.w.get_element_by_id(doc, id)
        .unwrap_or_else(|| panic!("no element #{id}"))
}

/// The page script's listener for `event_type` at `target`, whose body is `source` (the event
/// is `event`).
pub fn listen_with(s: &mut Sim, realm: DocumentKey, target: EventTargetRef<webmcp_ref::webmcp::steps::Steps>, event_type: &str, source: &str, options: ListenerOptions) {
    let block = webmcp_ref::script::parser::parse_script(source)
        .unwrap_or_else(|e| panic!("script does not parse: {e}\n{source}"));
    let callback = Code::Listener {
        realm,
        block: Arc::new(block),
        locals: Vec::new(),
    }
    .callback();
    s.w.add_event_listener_with(target, event_type, callback, options);
}

/// A bubbling-phase listener at a node.
pub fn listen(s: &mut Sim, node: NodeKey, event_type: &str, source: &str) {
    let realm = s.w.node_document(node);
    listen_with(s, realm, EventTargetRef::Node(node), event_type, source, ListenerOptions::default());
}

/// A listener that logs `TYPE@WHERE` (and the phase) for each event of `event_type`.
pub fn log_events(s: &mut Sim, node: NodeKey, event_type: &str, label: &str) {
    listen(s, node, event_type, &format!("log \"{{event.type}}@{label}\""));
}

/// The URL of the active document of `doc`'s navigable (where a navigation went).
pub fn active_url(s: &Sim, doc: DocumentKey) -> String {
    let nav = s.w.document(doc).navigable.expect("a navigable");
    let active = s.w.navigable(nav).active_document.expect("an active document");
    s.w.document(active).url.to_string()
}

/// The active document of `doc`'s navigable.
pub fn active_document(s: &Sim, doc: DocumentKey) -> DocumentKey {
    let nav = s.w.document(doc).navigable.expect("a navigable");
    s.w.navigable(nav).active_document.expect("an active document")
}
