//! `instanceof`: ECMAScript's InstanceofOperator, whose OrdinaryHasInstance looks for the
//! constructor's `prototype` on the value's prototype chain.
//!
//! The language has no constructor values: the right operand names an interface, in the current
//! realm (`x instanceof TypeError`) or in a document's (`x instanceof child.DOMException`, that
//! document's Window's property). Each realm has its own interface objects and prototypes
//! (Web IDL, "interface object" and "interface prototype object"), so the answer is true when
//! the interface is on the value's chain *and* the value was made in that realm: a platform
//! object in its relevant realm, an error in the realm that created it, a promise in its realm,
//! a function in the realm of its function object.
//!
//! Choices where the engine keeps less than a JavaScript engine does, said at the step:
//! - An array or a plain object keeps its realm when a script's literal, a Web IDL conversion
//!   into a promise's realm, or a tool's execution (its `input` and `options`) made it; one
//!   an algorithm made otherwise keeps none, and is answered by its kind alone (true in every
//!   realm).
//! - The events WebMCP's algorithms fire are held as their members with their interface's
//!   name and their target's realm (`Members::platform`), so `instanceof ToolActivatedEvent`
//!   and `instanceof Event` see them as the browser's do.
//! - A document's name stands for its Window, Document and ModelContext alike; as a value it
//!   is read as its ModelContext, which is what the export writes it as.
//!
//! <https://tc39.es/ecma262/#sec-instanceofoperator>,
//! <https://tc39.es/ecma262/#sec-ordinaryhasinstance>

use super::ScriptHost;
use crate::host::dom::dispatch::PathTarget;
use crate::host::dom::node::NodeData;
use crate::host::keys::DocumentKey;
use crate::host::value::{ErrorKind, ErrorRealm, Facet, Value, ECMA_ERRORS};

/// The interfaces and constructors the right operand may name, besides ECMAScript's error
/// constructors and HTML's element interfaces.
pub const INTERFACES: &[&str] = &[
    // ECMAScript
    "Object",
    "Array",
    "Function",
    "Promise",
    // (and ECMAScript's error constructors: `ECMA_ERRORS`)
    // Web IDL, DOM, HTML
    "DOMException",
    "EventTarget",
    "Window",
    "Document",
    "HTMLDocument",
    "DOMImplementation",
    "DOMParser",
    "CSSStyleDeclaration",
    "Node",
    "CharacterData",
    "Text",
    "Comment",
    "DocumentType",
    "DocumentFragment",
    "Element",
    "HTMLElement",
    "HTMLUnknownElement",
    "AbortController",
    "AbortSignal",
    "Event",
    "UIEvent",
    "MouseEvent",
    "PointerEvent",
    "InputEvent",
    "SubmitEvent",
    "FormDataEvent",
    // WebMCP
    "ModelContext",
    "ToolActivatedEvent",
    "ToolCancelEvent",
    "ToolChangeEvent",
];

/// HTML's element interfaces, by local name (HTML, "Elements": each element's DOM interface).
/// An element not listed is an `HTMLElement` if HTML defines it with that interface, and an
/// `HTMLUnknownElement` if HTML does not define it at all.
const HTML_ELEMENTS: &[(&str, &str)] = &[
    ("a", "HTMLAnchorElement"),
    ("area", "HTMLAreaElement"),
    ("audio", "HTMLAudioElement"),
    ("base", "HTMLBaseElement"),
    ("blockquote", "HTMLQuoteElement"),
    ("body", "HTMLBodyElement"),
    ("br", "HTMLBRElement"),
    ("button", "HTMLButtonElement"),
    ("canvas", "HTMLCanvasElement"),
    ("caption", "HTMLTableCaptionElement"),
    ("col", "HTMLTableColElement"),
    ("colgroup", "HTMLTableColElement"),
    ("data", "HTMLDataElement"),
    ("datalist", "HTMLDataListElement"),
    ("del", "HTMLModElement"),
    ("details", "HTMLDetailsElement"),
    ("dialog", "HTMLDialogElement"),
    ("div", "HTMLDivElement"),
    ("dl", "HTMLDListElement"),
    ("embed", "HTMLEmbedElement"),
    ("fieldset", "HTMLFieldSetElement"),
    ("form", "HTMLFormElement"),
    ("h1", "HTMLHeadingElement"),
    ("h2", "HTMLHeadingElement"),
    ("h3", "HTMLHeadingElement"),
    ("h4", "HTMLHeadingElement"),
    ("h5", "HTMLHeadingElement"),
    ("h6", "HTMLHeadingElement"),
    ("head", "HTMLHeadElement"),
    ("hr", "HTMLHRElement"),
    ("html", "HTMLHtmlElement"),
    ("iframe", "HTMLIFrameElement"),
    ("img", "HTMLImageElement"),
    ("input", "HTMLInputElement"),
    ("ins", "HTMLModElement"),
    ("label", "HTMLLabelElement"),
    ("legend", "HTMLLegendElement"),
    ("li", "HTMLLIElement"),
    ("link", "HTMLLinkElement"),
    ("map", "HTMLMapElement"),
    ("menu", "HTMLMenuElement"),
    ("meta", "HTMLMetaElement"),
    ("meter", "HTMLMeterElement"),
    ("object", "HTMLObjectElement"),
    ("ol", "HTMLOListElement"),
    ("optgroup", "HTMLOptGroupElement"),
    ("option", "HTMLOptionElement"),
    ("output", "HTMLOutputElement"),
    ("p", "HTMLParagraphElement"),
    ("picture", "HTMLPictureElement"),
    ("pre", "HTMLPreElement"),
    ("progress", "HTMLProgressElement"),
    ("q", "HTMLQuoteElement"),
    ("script", "HTMLScriptElement"),
    ("select", "HTMLSelectElement"),
    ("slot", "HTMLSlotElement"),
    ("source", "HTMLSourceElement"),
    ("span", "HTMLSpanElement"),
    ("style", "HTMLStyleElement"),
    ("table", "HTMLTableElement"),
    ("tbody", "HTMLTableSectionElement"),
    ("td", "HTMLTableCellElement"),
    ("template", "HTMLTemplateElement"),
    ("textarea", "HTMLTextAreaElement"),
    ("tfoot", "HTMLTableSectionElement"),
    ("th", "HTMLTableCellElement"),
    ("thead", "HTMLTableSectionElement"),
    ("time", "HTMLTimeElement"),
    ("title", "HTMLTitleElement"),
    ("tr", "HTMLTableRowElement"),
    ("track", "HTMLTrackElement"),
    ("ul", "HTMLUListElement"),
    ("video", "HTMLVideoElement"),
];

/// Elements HTML defines whose interface is `HTMLElement` itself.
const PLAIN_HTML_ELEMENTS: &[&str] = &[
    "abbr",
    "address",
    "article",
    "aside",
    "b",
    "bdi",
    "bdo",
    "cite",
    "code",
    "dd",
    "dfn",
    "dt",
    "em",
    "figcaption",
    "figure",
    "footer",
    "header",
    "hgroup",
    "i",
    "kbd",
    "main",
    "mark",
    "nav",
    "noscript",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "search",
    "section",
    "small",
    "strong",
    "sub",
    "summary",
    "sup",
    "u",
    "var",
    "wbr",
];

/// Whether the right operand may name `name` (an interface in [`INTERFACES`], an ECMAScript
/// error constructor, or one of HTML's element interfaces).
pub fn is_interface(name: &str) -> bool {
    INTERFACES.contains(&name)
        || ECMA_ERRORS.contains(&name)
        || HTML_ELEMENTS.iter().any(|(_, i)| *i == name)
}

/// The realm a script's objects live in: a document with a browsing context is its own Window's
/// realm; one without (`createHTMLDocument()`, `DOMParser`) lives in its creator's.
pub fn relevant_realm<W: ScriptHost>(w: &W, doc: DocumentKey) -> DocumentKey {
    let mut d = doc;
    loop {
        match w.documents.get(d) {
            Some(document) if document.navigable.is_none() => match document.created_by {
                Some(creator) => d = creator,
                None => return d,
            },
            _ => return d,
        }
    }
}

/// The realm of the scenario's harness (see [`ErrorRealm::Harness`]): the first page's.
pub fn harness_realm<W: ScriptHost>(w: &W) -> Option<DocumentKey> {
    w.documents.keys().next()
}

/// A value's prototype chain, as the interfaces on it (most derived first), and the realm
/// those interfaces belong to (`None`: the engine keeps none for it, see the module's notes).
/// `None` for a primitive, which has no chain `instanceof` looks at.
fn chain<W: ScriptHost>(w: &W, value: &Value) -> Option<(Option<DocumentKey>, Vec<&'static str>)> {
    const OBJECT: &str = "Object";
    const TARGET: [&str; 2] = ["EventTarget", OBJECT];
    let with = |first: &[&'static str], rest: &[&'static str]| {
        first.iter().chain(rest).copied().collect::<Vec<_>>()
    };
    let document = |d: DocumentKey| {
        (
            Some(relevant_realm(w, d)),
            with(&["HTMLDocument", "Document", "Node"], &TARGET),
        )
    };
    Some(match value {
        Value::Undefined | Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            return None
        }
        // Where no realm is kept, the kind alone (the module's first note).
        Value::Array(m) => (m.realm(), vec!["Array", OBJECT]),
        // The events WebMCP's algorithms fire: objects of their interface, an Event.
        Value::Object(m) => match m.class() {
            Some(class) => (m.realm(), event_chain(class)),
            None => (m.realm(), vec![OBJECT]),
        },
        Value::Unserializable(_) => (None, vec![OBJECT]),
        Value::Thenable(t) => (Some(w.thenables[*t].realm), vec![OBJECT]),
        Value::Promise(p) => (Some(w.promises[*p].realm), vec!["Promise", OBJECT]),
        Value::Function(f) => (Some(f.realm()), vec!["Function", OBJECT]),
        Value::Error(e) => {
            let realm = match e.realm() {
                ErrorRealm::In(d) => Some(d),
                ErrorRealm::Harness | ErrorRealm::Unplaced => harness_realm(w),
            };
            // Web IDL: DOMException's prototype inherits from %Error.prototype%.
            let own = match e.kind {
                ErrorKind::DomException => "DOMException",
                ErrorKind::Ecma => ECMA_ERRORS
                    .iter()
                    .copied()
                    .find(|n| *n == e.name)
                    .unwrap_or("Error"),
            };
            let mut chain = vec![own];
            if own != "Error" {
                chain.push("Error");
            }
            chain.push(OBJECT);
            (realm.map(|d| relevant_realm(w, d)), chain)
        }
        // A WindowProxy's prototype chain is its current Window's.
        Value::Window(d, Facet::Window) => {
            (Some(w.window_proxy_window(*d)), with(&["Window"], &TARGET))
        }
        Value::Window(d, Facet::Document) => document(*d),
        // The module's third note: a document's name is read as its ModelContext.
        Value::Window(d, Facet::ModelContext | Facet::Name) => (
            Some(relevant_realm(w, *d)),
            with(&["ModelContext"], &TARGET),
        ),
        Value::Controller(s) => (Some(w.signals[*s].realm), vec!["AbortController", OBJECT]),
        Value::Signal(s) => (Some(w.signals[*s].realm), with(&["AbortSignal"], &TARGET)),
        Value::Node(n) => {
            let realm = Some(relevant_realm(w, w.node_document(*n)));
            let node = ["Node", "EventTarget", OBJECT];
            let own: Vec<&'static str> = match w.dom.nodes.get(*n).map(|n| &n.data) {
                Some(NodeData::Document) => return Some(document(w.node_document(*n))),
                Some(NodeData::DocumentFragment { .. }) => vec!["DocumentFragment"],
                Some(NodeData::DocumentType { .. }) => vec!["DocumentType"],
                Some(NodeData::Text(_)) => vec!["Text", "CharacterData"],
                Some(NodeData::Comment(_)) => vec!["Comment", "CharacterData"],
                Some(NodeData::Element(_)) => match w.html_name(*n) {
                    Some(local) => {
                        let own = html_interface(local);
                        if own == "HTMLElement" {
                            vec!["HTMLElement", "Element"]
                        } else {
                            vec![own, "HTMLElement", "Element"]
                        }
                    }
                    None => vec!["Element"],
                },
                None => vec![],
            };
            (realm, with(&own, &node))
        }
        Value::Event(e) => {
            // An event the DOM fires is created in its target's relevant realm; one never
            // dispatched keeps no realm here.
            let record = w.dom.events.get(*e)?;
            let realm = match record.target {
                Some(PathTarget::Node(n)) => Some(w.node_document(n)),
                Some(PathTarget::Window(d)) => Some(d),
                None => None,
            };
            (
                realm.map(|d| relevant_realm(w, d)),
                event_chain(record.init.interface),
            )
        }
        Value::Platform(o) => (
            Some(relevant_realm(w, o.realm())),
            vec![o.interface(), OBJECT],
        ),
    })
}

/// The realm of an object's methods and attributes (its relevant realm), where the engine keeps
/// one; `None` for a primitive.
pub fn realm_of<W: ScriptHost>(w: &W, value: &Value) -> Option<DocumentKey> {
    if let Value::Window(d, Facet::Window) = value {
        return Some(w.window_proxy_window(*d));
    }
    chain(w, value).and_then(|(realm, _)| realm)
}

/// An event interface's chain (UI Events' subclasses of `UIEvent`, the rest `Event`'s).
fn event_chain(interface: &'static str) -> Vec<&'static str> {
    let own: &[&'static str] = match interface {
        "PointerEvent" => &["PointerEvent", "MouseEvent", "UIEvent"],
        "MouseEvent" => &["MouseEvent", "UIEvent"],
        "InputEvent" => &["InputEvent", "UIEvent"],
        "UIEvent" => &["UIEvent"],
        "Event" => &[],
        _ => return vec![interface, "Event", "Object"],
    };
    own.iter().copied().chain(["Event", "Object"]).collect()
}

/// HTML's interface for the HTML element `local`.
fn html_interface(local: &str) -> &'static str {
    if let Some((_, i)) = HTML_ELEMENTS.iter().find(|(n, _)| *n == local) {
        return i;
    }
    if PLAIN_HTML_ELEMENTS.contains(&local) || local.contains('-') {
        // A valid custom element name that nothing defined is an HTMLElement.
        "HTMLElement"
    } else {
        "HTMLUnknownElement"
    }
}

/// `value instanceof realm.interface`, evaluated by a script whose current realm is `current`
/// (`realm` is `current` when the operand names no document).
pub fn instance_of<W: ScriptHost>(
    w: &W,
    value: &Value,
    current: DocumentKey,
    realm: DocumentKey,
    interface: &str,
) -> bool {
    // A cross-origin WindowProxy's [[GetPrototypeOf]] is null (HTML's
    // CrossOriginGetPrototypeOf), so no prototype is on its chain.
    if let Value::Window(d, Facet::Window) = value {
        let window = w.window_proxy_window(*d);
        if !w.documents[relevant_realm(w, current)]
            .origin
            .same_origin(&w.documents[window].origin)
        {
            return false;
        }
    }
    let Some((made_in, chain)) = chain(w, value) else {
        return false;
    };
    chain.contains(&interface)
        && made_in.is_none_or(|d| relevant_realm(w, d) == relevant_realm(w, realm))
}
