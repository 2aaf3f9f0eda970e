//! The DOM: node trees per document, their mutation algorithms with the steps HTML and other
//! specifications hang on them, events dispatched along a node's path, selectors, and the
//! HTML parser that builds trees from markup.
//!
//! <https://dom.spec.whatwg.org/>, <https://html.spec.whatwg.org/multipage/parsing.html>
//!
//! # How to use it (a map for the layers above)
//!
//! Every operation is a method of the world (anything that implements [`Host`]); bring them in
//! with `use crate::host::prelude::*`.
//!
//! **Markup into a document.**
//! - A document created complete (a page whose loading is over before the scenario starts):
//!   [`Parsing::parse_html_document`] parses the whole markup into its (empty) tree at once.
//! - A document created loading (`DocumentOptions { loading: true, .. }`):
//!   [`Parsing::deliver_markup`] hands the parser chunks of markup as the network would; each
//!   chunk is parsed in its own task on the networking task source, so elements appear over
//!   several tasks; when the stream ends, the parser runs "the end", which queues
//!   `DOMContentLoaded` and `load` (the document's [`Lifecycle`](super::navigable::Lifecycle)).
//! - A fragment: [`Parsing::parse_fragment`] parses markup in the context of an element, and
//!   [`Parsing::set_inner_html`] / [`Parsing::insert_adjacent_html`] insert it.
//! - Bounds: [`MAX_MARKUP_BYTES`], [`MAX_PARSED_NODES`], [`MAX_TREE_DEPTH`]; markup beyond them
//!   is refused with a [`DomError`] that says where (parse errors themselves are not errors:
//!   HTML recovers from every one).
//!
//! **Reading the tree** (methods of `HostState`, see `node.rs`): [`HostState::document_node`],
//! `document_element`, `body`, `children`, `parent`, `inclusive_descendants` (tree order),
//! `element`, `attribute`, `get_element_by_id`, `elements_named`, `text_content`; and
//! [`HostState::query_selector`] / [`HostState::matches`] (see `selectors.rs`).
//!
//! **Changing the tree** ([`Tree`], [`Attributes`]): `create_element`, `create_text`,
//! `append_child`, `insert_before`, `remove_node`, `adopt`, `set_attribute`,
//! `remove_attribute`, `toggle_attribute`, `set_text_content`. Each runs DOM's algorithm with
//! HTML's insertion, removing and attribute change steps (form owners, radio groups, option
//! selectedness, `input` type changes), then calls the [`Host`] hooks that other
//! specifications define ([`Host::insertion_steps`], [`Host::removing_steps`],
//! [`Host::attribute_change_steps`], [`Host::adopting_steps`]).
//!
//! **Events** ([`Dispatch`]): `add_event_listener` with [`EventTargetRef::Node`]
//! (`events.rs`) and [`Dispatch::fire_event`] / [`Dispatch::dispatch`], which build the event
//! path (the node, its ancestors, the document, the `Window`) and run capture, target and
//! bubble; listeners of the page's script receive a `Value::Event` whose
//! `preventDefault()`/`stopPropagation()` the script's bindings forward to
//! [`Dispatch::prevent_default`] and friends. `click()` runs activation behaviour (checkboxes,
//! radio buttons, submit and reset buttons, labels).
//!
//! **Forms** (`crate::host::forms`): form owners, controls, values, validation, submission,
//! reset, and what the user does to a control. Its module documentation has the map.
//!
//! **Hooks for the specifications above** (all on [`Host`], implemented by the engine's world):
//! `insertion_steps` (each inclusive descendant of an inserted node, in tree order, after
//! HTML's own insertion steps), `removing_steps` (the removed node with its old parent, then
//! each of its descendants with none), `attribute_change_steps` (every set, change or removal,
//! with old and new value), `adopting_steps`, `form_owner_changed` (a form-associated
//! element's owner changed: by insertion, removal, a `form` or `id` attribute change, or the
//! parser), and `form_reset` (a form was reset and the `reset` event was not canceled). An
//! upper layer that defines a pseudo-class calls [`HostState::define_pseudo_class`] once and
//! [`HostState::set_pseudo_class_state`] on elements.
//!
//! # What it leaves out
//!
//! No shadow trees, slots, custom elements, mutation observers, live ranges or CSS layout:
//! nothing a form or its tool needs. Attributes keep no namespace (see [`node::Attr`]).
//! `<script>` elements are parsed as elements but never run (the page's script is the
//! scenario language, not JavaScript), and neither are `on*` content attributes.
//!
//! # Where the nodes live
//!
//! In the host's arenas ([`DomState`]), so that the explorer's footprints record every node a
//! unit reads or writes, and the world's state hash and clone include every tree. A document
//! gets its node only when something is parsed or inserted into it: a document without
//! markup touches no DOM state at all, so everything that ran before the DOM existed runs
//! exactly as it did.

pub mod attributes;
pub mod dispatch;
pub mod node;
pub mod parser;
pub mod selectors;
pub mod serialize;
pub mod style;
pub mod tasks;
pub mod tree;

use std::collections::BTreeMap;

use thiserror::Error;

use super::keys::{DocumentKey, EventKey, NavigableKey, NodeKey};
use super::shared::{Arena, SecondaryArena, Shared};

pub use attributes::Attributes;
pub use dispatch::{Dispatch, EventInit, EventRecord};
pub use node::{Attr, Element, Namespace, Node, NodeData};
pub use parser::Parsing;
pub use selectors::SelectorError;
pub use tree::Tree;

#[allow(unused_imports)]
use super::events::EventTargetRef;
#[allow(unused_imports)]
use super::HostState;

/// The most markup one document (or one fragment) may be given, in bytes. html5ever checks
/// a tag's attributes for duplicates pairwise, so one tag holding every attribute the markup
/// can spell costs the square of their number: at this size that worst case parses in about
/// a second (spec-tests/dom_parsing.rs measures it), at four times the size in sixteen.
pub const MAX_MARKUP_BYTES: usize = 128 * 1024;
/// The most nodes one parse may create (the tree builder's reconstruction of formatting
/// elements can make many nodes of little markup).
pub const MAX_PARSED_NODES: usize = 20_000;
/// The deepest a tree may nest (a root is at depth 0): the parser refuses markup that nests
/// deeper, and insertion refuses to build a deeper tree. Chromium's parser stops nesting at
/// 512 too (deeper elements become siblings); here it is an error, so a test sees it.
pub const MAX_TREE_DEPTH: usize = 512;
/// The most chunks one document's markup may arrive in.
pub const MAX_MARKUP_CHUNKS: usize = 1024;

/// Errors of DOM operations: the exceptions DOM's algorithms throw, and the engine's bounds.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum DomError {
    /// <https://webidl.spec.whatwg.org/#hierarchyrequesterror>
    #[error("HierarchyRequestError: {0}")]
    HierarchyRequest(String),
    /// <https://webidl.spec.whatwg.org/#notfounderror>
    #[error("NotFoundError: {0}")]
    NotFound(String),
    /// <https://webidl.spec.whatwg.org/#invalidcharactererror>
    #[error("InvalidCharacterError: {0}")]
    InvalidCharacter(String),
    /// <https://webidl.spec.whatwg.org/#invalidstateerror>
    #[error("InvalidStateError: {0}")]
    InvalidState(String),
    /// <https://webidl.spec.whatwg.org/#notsupportederror>
    #[error("NotSupportedError: {0}")]
    NotSupported(String),
    /// <https://webidl.spec.whatwg.org/#syntaxerror>
    #[error("SyntaxError: {0}")]
    Syntax(String),
    /// <https://webidl.spec.whatwg.org/#exceptiondef-typeerror>
    #[error("TypeError: {0}")]
    Type(String),
    #[error("the node no longer exists")]
    NoSuchNode,
    #[error("markup of {size} bytes is more than the {max} bytes a document may be given")]
    MarkupTooLarge { size: usize, max: usize },
    #[error("markup in more than {max} chunks")]
    TooManyChunks { max: usize },
    #[error("the markup creates more than {max} nodes (line {line} of the markup)")]
    TooManyNodes { max: usize, line: u64 },
    #[error("the markup nests elements more than {max} deep (line {line} of the markup)")]
    TooDeep { max: usize, line: u64 },
    #[error("the insertion would nest the tree more than {max} deep")]
    TreeTooDeep { max: usize },
    #[error(
        "{0} is not loading, so it takes no more markup (parse it whole, or parse a fragment)"
    )]
    NotLoading(String),
    #[error("{0}'s parser has already reached the end of its input")]
    ParserFinished(String),
    #[error("{0} already has a tree; parse a fragment into one of its elements instead")]
    AlreadyParsed(String),
}

impl DomError {
    /// The `DOMException` (or `TypeError`) name a script sees for it.
    pub fn exception_name(&self) -> &'static str {
        match self {
            DomError::HierarchyRequest(_) | DomError::TreeTooDeep { .. } => "HierarchyRequestError",
            DomError::NotFound(_) | DomError::NoSuchNode => "NotFoundError",
            DomError::InvalidCharacter(_) => "InvalidCharacterError",
            DomError::Syntax(_) => "SyntaxError",
            DomError::Type(_) => "TypeError",
            DomError::NotSupported(_) => "NotSupportedError",
            _ => "InvalidStateError",
        }
    }
}

/// The host's DOM state: every node of every document, the events script may still hold,
/// the parsers of loading documents, and the requests that made documents.
#[derive(Clone, Debug, Default)]
pub struct DomState {
    pub(crate) nodes: Arena<NodeKey, Node>,
    /// Each document's node, made when the document first gets a tree.
    pub(crate) document_nodes: SecondaryArena<DocumentKey, NodeKey>,
    pub(crate) events: Arena<EventKey, EventRecord>,
    /// The parser of each document whose markup is arriving in chunks.
    pub(crate) parsers: SecondaryArena<DocumentKey, parser::ParserState>,
    /// The request a form submission's navigation made each document with.
    pub(crate) requests: SecondaryArena<DocumentKey, NavigationRequest>,
    /// Requests of navigations planned and not yet committed, by the label their document
    /// will have (see `forms::submission`).
    pub(crate) pending_requests: Shared<BTreeMap<String, NavigationRequest>>,
    /// The `srcdoc` markup of navigations to `about:srcdoc` not yet committed, by the label
    /// their document will have (see `iframe`).
    pub(crate) pending_srcdoc: Shared<BTreeMap<String, String>>,
    /// Pseudo-classes a specification above the host defines (see `selectors`).
    pub(crate) pseudo_classes: Shared<Vec<String>>,
    /// The elements whose `click()` is running (HTML's "click in progress flag"; empty
    /// between units, so it is neither hashed nor noted).
    pub(crate) click_in_progress: Vec<NodeKey>,
}

/// A request a form submission navigates with.
///
/// <https://html.spec.whatwg.org/multipage/browsing-the-web.html#navigate> (its
/// `documentResource` and `formDataEntryList`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct NavigationRequest {
    /// `GET` or `POST`.
    pub method: String,
    /// The URL navigated to (for GET, with the form's query).
    pub url: String,
    /// A POST resource's request body.
    pub body: Option<String>,
    /// A POST resource's request content-type.
    pub content_type: Option<String>,
    /// `auto` or `replace`.
    pub history_handling: String,
    /// The form's entry list, as name-value pairs (a file's value is its name).
    pub entries: Vec<(String, String)>,
}

/// What a DOM or HTML task does when it runs (`TaskAction::Dom`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DomTask {
    /// The networking task that hands the task's document's parser its next chunk.
    ParseChunk,
    /// A networking task that parses a whole document's markup into the task's document,
    /// whose tree is empty (a scenario's `html in DOC:` for a document that has loaded).
    ParseDocument(std::sync::Arc<str>),
    /// A form's planned navigation: navigate `target` to the request's URL.
    ///
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#plan-to-navigate>
    PlannedNavigation {
        form: NodeKey,
        target: NavigableKey,
        request: Box<NavigationRequest>,
        /// The label the new document gets.
        label: String,
    },
    /// The element task of "completely finish loading": the iframe load event steps for
    /// `element`, if `navigable` is still its content navigable.
    ///
    /// <https://html.spec.whatwg.org/multipage/iframe-embed-object.html#iframe-load-event-steps>
    IframeLoad {
        element: NodeKey,
        navigable: NavigableKey,
    },
    /// An element task that fires events at an element, in order (a control's `input` and
    /// `change` from a user's edit, a dialog's `close`).
    FireEvents {
        target: NodeKey,
        events: Vec<EventInit>,
        /// Set the element's user validity to true first (HTML's "send select update
        /// notifications").
        user_validity: bool,
    },
}

impl<U: super::seam::Upper> HostState<U> {
    /// Defines a pseudo-class that elements may be put in by the specification above (a
    /// selector that names an undefined pseudo-class is a syntax error).
    pub fn define_pseudo_class(&mut self, name: &str) {
        let name = name.to_ascii_lowercase();
        if !self.dom.pseudo_classes.contains(&name) {
            self.dom.pseudo_classes.push(name);
        }
    }

    /// Puts `element` in (or takes it out of) the state a defined pseudo-class matches.
    pub fn set_pseudo_class_state(&mut self, element: NodeKey, name: &str, on: bool) {
        let name = name.to_ascii_lowercase();
        let Some(e) = self.dom.nodes.get(element).and_then(Node::element) else {
            return;
        };
        if e.states.contains(&name) == on {
            return;
        }
        let Some(e) = self.dom.nodes.get_mut(element).and_then(Node::element_mut) else {
            return;
        };
        if on {
            e.states.push(name);
        } else {
            e.states.retain(|s| *s != name);
        }
    }

    /// A navigation committed as `doc`: if a form submission planned it, the request it was
    /// made with becomes the document's (a navigation no form planned reads nothing a
    /// footprint would note).
    pub(crate) fn take_pending_request(&mut self, label: &str, doc: DocumentKey) {
        let planned =
            super::shared::footprint::untracked(|| self.dom.pending_requests.contains_key(label));
        if planned {
            if let Some(request) = self.dom.pending_requests.remove(label) {
                self.dom.requests.insert(doc, request);
            }
        }
    }

    /// The `srcdoc` markup a navigation to `about:srcdoc` that makes the document `label`
    /// carries, if one does.
    pub(crate) fn take_pending_srcdoc(&mut self, label: &str) -> Option<String> {
        let planned =
            super::shared::footprint::untracked(|| self.dom.pending_srcdoc.contains_key(label));
        if planned {
            self.dom.pending_srcdoc.remove(label)
        } else {
            None
        }
    }

    /// The request a form submission's navigation made `doc` with, if one did.
    pub fn navigation_request(&self, doc: DocumentKey) -> Option<&NavigationRequest> {
        self.dom.requests.get(doc)
    }

    /// A description of a node for traces: `form#id`, `input[name=q]`, `#text`.
    pub fn describe_node(&self, node: NodeKey) -> String {
        super::shared::footprint::untracked(|| {
            let Some(n) = self.dom.nodes.get(node) else {
                return "(gone)".into();
            };
            match &n.data {
                NodeData::Document => format!("document of {}", self.label(n.document)),
                NodeData::DocumentFragment { .. } => "#document-fragment".into(),
                NodeData::DocumentType { .. } => "#doctype".into(),
                NodeData::Text(_) => "#text".into(),
                NodeData::Comment(_) => "#comment".into(),
                NodeData::Element(e) => {
                    let mut s = e.local_name.clone();
                    if let Some(id) = e.id() {
                        s.push('#');
                        s.push_str(id);
                    } else if let Some(name) = e.attr("name") {
                        s.push_str(&format!("[name={name}]"));
                    }
                    s
                }
            }
        })
    }
}

/// Every DOM algorithm trait, for the host's prelude.
pub mod prelude {
    pub use super::attributes::Attributes;
    pub use super::dispatch::Dispatch;
    pub use super::parser::Parsing;
    pub use super::tasks::DomTasks;
    pub use super::tree::Tree;
}
