//! Parsing HTML into the host's trees: whole documents, fragments (`innerHTML`), and markup
//! that arrives in chunks while a document is loading.
//!
//! <https://html.spec.whatwg.org/multipage/parsing.html>
//!
//! # Why html5ever, and how it is wired
//!
//! The tokenizer and tree builder are html5ever's (Servo's parser: the HTML standard's
//! algorithms, pure Rust, no C and no I/O, so it builds for `wasm32-unknown-unknown` too).
//! Its tree builder talks to a `TreeSink`; the sink here does not touch the world: it records
//! the tree builder's operations (create an element, append, insert before, foster-parent,
//! reparent, associate with a form, ...) on handles of its own, and the world then applies
//! them to its arenas in a task, running DOM's insertion steps, HTML's form association and the
//! hooks of the specifications above as each node is inserted. The few questions the tree
//! builder asks its sink (an element's name, a template's contents) are answered from the
//! recording; the one that depends on the live tree (does a table have a parent, for foster
//! parenting) is recorded as it is asked and decided when applied, against the tree as it is
//! then.
//!
//! This is what makes incremental parsing fit the simulation: html5ever's parser is not
//! `Clone`, and a world must be (the explorer copies worlds). The operations are a pure
//! function of the markup received so far, so a loading document keeps the markup and how far
//! its tasks have applied the operations; whenever more markup arrives, the recording is made
//! again from all of it (the operations already applied come out the same, as the parser is
//! deterministic), and each networking task applies the next chunk's operations.
//!
//! # Bounds
//!
//! A parse error is not an error: HTML recovers from each one (the count is kept). What is an
//! error is markup beyond the engine's bounds: more than [`MAX_MARKUP_BYTES`], a tree deeper
//! than [`MAX_TREE_DEPTH`], more than [`MAX_PARSED_NODES`] nodes. The input is fed to the
//! tokenizer in slices and the bounds are checked between them, so hostile markup stops early
//! (with the line it reached) instead of growing without bound.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};
use std::rc::Rc;

use html5ever::driver::{parse_document, parse_fragment_for_element, ParseOpts, Parser};
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, LocalName, QualName};

use super::super::event_loop::{EventLoops, TaskAction, TaskSource};
use super::super::forms::form_owner::FormOwners;
use super::super::keys::{DocumentKey, NodeKey};
use super::super::navigable::{Lifecycle, Navigables};
use super::super::spec::{THE_END, TREE_CONSTRUCTION};
use super::super::Host;
use super::attributes::Attributes;
use super::node::{Attr, Namespace, Node, NodeData};
use super::tree::Tree;
use super::{
    DomError, DomTask, MAX_MARKUP_BYTES, MAX_MARKUP_CHUNKS, MAX_PARSED_NODES, MAX_TREE_DEPTH,
};
use crate::step;

/// How many bytes the tokenizer is fed between two checks of the bounds.
const SLICE: usize = 1024;

/// A node or text the tree builder inserts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Child {
    Node(usize),
    Text(String),
}

/// One operation of the tree builder, on the recording's handles.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TreeOp {
    CreateElement {
        handle: usize,
        namespace: Namespace,
        name: String,
        attrs: Vec<Attr>,
        /// A template's contents, as a handle of their own.
        contents: Option<usize>,
    },
    CreateComment {
        handle: usize,
        text: String,
    },
    Append {
        parent: usize,
        child: Child,
    },
    /// Foster parenting: before `element` if it has a parent, else into `prev_element`.
    AppendBasedOnParent {
        element: usize,
        prev_element: usize,
        child: Child,
    },
    AppendBeforeSibling {
        sibling: usize,
        child: Child,
    },
    AppendDoctype {
        name: String,
        public_id: String,
        system_id: String,
    },
    AddAttrsIfMissing {
        target: usize,
        attrs: Vec<Attr>,
    },
    /// Associate `target` with `form` if the intended parent (`element`'s parent when it
    /// has one, else `element`, or `prev_element` when foster parenting and `element` has no
    /// parent) is in the form's tree.
    AssociateWithForm {
        target: usize,
        form: usize,
        element: usize,
        prev_element: Option<usize>,
    },
    RemoveFromParent {
        target: usize,
    },
    ReparentChildren {
        node: usize,
        new_parent: usize,
    },
}

/// What the recording sink keeps.
struct Recorder {
    ops: RefCell<Vec<TreeOp>>,
    /// Each handle's element name (an empty name for other nodes).
    names: RefCell<Vec<QualName>>,
    template_contents: RefCell<Vec<Option<usize>>>,
    mathml_integration: RefCell<Vec<bool>>,
    /// The tree as the parser alone builds it, to measure depth.
    parents: RefCell<Vec<Option<usize>>>,
    nodes: Cell<usize>,
    line: Cell<u64>,
    errors: Cell<u32>,
    quirks: Cell<bool>,
    limit: RefCell<Option<DomError>>,
}

impl Recorder {
    fn new(prebound: Vec<QualName>) -> Recorder {
        let n = prebound.len();
        Recorder {
            ops: RefCell::new(Vec::new()),
            names: RefCell::new(prebound),
            template_contents: RefCell::new(vec![None; n]),
            mathml_integration: RefCell::new(vec![false; n]),
            parents: RefCell::new(vec![None; n]),
            nodes: Cell::new(0),
            line: Cell::new(1),
            errors: Cell::new(0),
            quirks: Cell::new(false),
            limit: RefCell::new(None),
        }
    }

    fn new_handle(&self, name: QualName) -> usize {
        let mut names = self.names.borrow_mut();
        names.push(name);
        self.template_contents.borrow_mut().push(None);
        self.mathml_integration.borrow_mut().push(false);
        self.parents.borrow_mut().push(None);
        names.len() - 1
    }

    fn count_node(&self) {
        self.nodes.set(self.nodes.get() + 1);
        if self.nodes.get() > MAX_PARSED_NODES {
            self.fail(DomError::TooManyNodes {
                max: MAX_PARSED_NODES,
                line: self.line.get(),
            });
        }
    }

    fn fail(&self, e: DomError) {
        let mut limit = self.limit.borrow_mut();
        if limit.is_none() {
            *limit = Some(e);
        }
    }

    fn depth(&self, handle: usize) -> usize {
        let parents = self.parents.borrow();
        let mut d = 0;
        let mut at = handle;
        while let Some(Some(p)) = parents.get(at) {
            d += 1;
            at = *p;
            if d > MAX_TREE_DEPTH {
                break;
            }
        }
        d
    }

    /// Notes that `child` now hangs under `parent`, and checks the depth.
    fn place(&self, child: &Child, parent: Option<usize>) {
        match child {
            Child::Node(c) => {
                if let Some(slot) = self.parents.borrow_mut().get_mut(*c) {
                    *slot = parent;
                }
                if let Some(p) = parent {
                    if self.depth(p) + 1 > MAX_TREE_DEPTH {
                        self.fail(DomError::TooDeep {
                            max: MAX_TREE_DEPTH,
                            line: self.line.get(),
                        });
                    }
                }
            }
            Child::Text(_) => self.count_node(),
        }
    }

    fn record(&self, op: TreeOp) {
        if self.limit.borrow().is_none() {
            self.ops.borrow_mut().push(op);
        }
    }
}

fn child_of(node: NodeOrText<usize>) -> Child {
    match node {
        NodeOrText::AppendNode(h) => Child::Node(h),
        NodeOrText::AppendText(t) => Child::Text(t.to_string()),
    }
}

fn attrs_of(attrs: Vec<Attribute>) -> Vec<Attr> {
    attrs
        .into_iter()
        .map(|a| Attr {
            name: match &a.name.prefix {
                Some(p) => format!("{}:{}", p, a.name.local),
                None => a.name.local.to_string(),
            },
            value: a.value.to_string(),
        })
        .collect()
}

/// The sink html5ever's tree builder drives: it records.
struct Sink(Rc<Recorder>);

impl TreeSink for Sink {
    type Handle = usize;
    type Output = ();
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) {}

    fn parse_error(&self, _msg: Cow<'static, str>) {
        self.0.errors.set(self.0.errors.get().saturating_add(1));
    }

    fn get_document(&self) -> usize {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a usize) -> Ref<'a, QualName> {
        Ref::map(self.0.names.borrow(), |names| {
            // The tree builder asks only about elements, which all have handles; the first
            // name stands in for a handle that cannot exist.
            names.get(*target).unwrap_or(&names[0])
        })
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> usize {
        let r = &self.0;
        r.count_node();
        let handle = r.new_handle(name.clone());
        let contents = flags.template.then(|| {
            r.count_node();
            r.new_handle(QualName::new(None, html5ever::ns!(), LocalName::from("")))
        });
        r.template_contents.borrow_mut()[handle] = contents;
        r.mathml_integration.borrow_mut()[handle] = flags.mathml_annotation_xml_integration_point;
        r.record(TreeOp::CreateElement {
            handle,
            namespace: Namespace::from_url(&name.ns),
            name: name.local.to_string(),
            attrs: attrs_of(attrs),
            contents,
        });
        handle
    }

    fn create_comment(&self, text: StrTendril) -> usize {
        let r = &self.0;
        r.count_node();
        let handle = r.new_handle(QualName::new(None, html5ever::ns!(), LocalName::from("")));
        r.record(TreeOp::CreateComment {
            handle,
            text: text.to_string(),
        });
        handle
    }

    fn create_pi(&self, _target: StrTendril, data: StrTendril) -> usize {
        // The HTML parser never makes processing instructions (its tokenizer reads `<?...>`
        // as a bogus comment); a comment stands in should one ever come.
        self.create_comment(data)
    }

    fn append(&self, parent: &usize, child: NodeOrText<usize>) {
        let child = child_of(child);
        self.0.place(&child, Some(*parent));
        self.0.record(TreeOp::Append {
            parent: *parent,
            child,
        });
    }

    fn append_based_on_parent_node(
        &self,
        element: &usize,
        prev_element: &usize,
        child: NodeOrText<usize>,
    ) {
        let child = child_of(child);
        let parent = self.0.parents.borrow().get(*element).copied().flatten();
        self.0.place(&child, parent.or(Some(*prev_element)));
        self.0.record(TreeOp::AppendBasedOnParent {
            element: *element,
            prev_element: *prev_element,
            child,
        });
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.0.count_node();
        self.0.record(TreeOp::AppendDoctype {
            name: name.to_string(),
            public_id: public_id.to_string(),
            system_id: system_id.to_string(),
        });
    }

    fn get_template_contents(&self, target: &usize) -> usize {
        self.0
            .template_contents
            .borrow()
            .get(*target)
            .copied()
            .flatten()
            .unwrap_or(*target)
    }

    fn same_node(&self, x: &usize, y: &usize) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.0.quirks.set(mode == QuirksMode::Quirks);
    }

    fn append_before_sibling(&self, sibling: &usize, new_node: NodeOrText<usize>) {
        let child = child_of(new_node);
        let parent = self.0.parents.borrow().get(*sibling).copied().flatten();
        self.0.place(&child, parent);
        self.0.record(TreeOp::AppendBeforeSibling {
            sibling: *sibling,
            child,
        });
    }

    fn add_attrs_if_missing(&self, target: &usize, attrs: Vec<Attribute>) {
        self.0.record(TreeOp::AddAttrsIfMissing {
            target: *target,
            attrs: attrs_of(attrs),
        });
    }

    fn associate_with_form(&self, target: &usize, form: &usize, nodes: (&usize, Option<&usize>)) {
        self.0.record(TreeOp::AssociateWithForm {
            target: *target,
            form: *form,
            element: *nodes.0,
            prev_element: nodes.1.copied(),
        });
    }

    fn remove_from_parent(&self, target: &usize) {
        if let Some(slot) = self.0.parents.borrow_mut().get_mut(*target) {
            *slot = None;
        }
        self.0.record(TreeOp::RemoveFromParent { target: *target });
    }

    fn reparent_children(&self, node: &usize, new_parent: &usize) {
        {
            let mut parents = self.0.parents.borrow_mut();
            for p in parents.iter_mut() {
                if *p == Some(*node) {
                    *p = Some(*new_parent);
                }
            }
        }
        self.0.record(TreeOp::ReparentChildren {
            node: *node,
            new_parent: *new_parent,
        });
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &usize) -> bool {
        self.0
            .mathml_integration
            .borrow()
            .get(*handle)
            .copied()
            .unwrap_or(false)
    }

    fn set_current_line(&self, line: u64) {
        self.0.line.set(line);
    }

    fn allow_declarative_shadow_roots(&self, _intended_parent: &usize) -> bool {
        // No shadow trees here: a declarative shadow root's template stays a template.
        false
    }
}

/// The tree builder's operations for some markup, and where each chunk's end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Recording {
    pub ops: Vec<TreeOp>,
    /// The number of operations made once each chunk was parsed.
    pub chunk_ends: Vec<usize>,
    pub parse_errors: u32,
    pub quirks: bool,
}

/// What a fragment is parsed in the context of.
struct FragmentContext {
    namespace: Namespace,
    name: String,
    /// The context's nearest `form` ancestor (inclusive), for the form element pointer.
    form: bool,
}

fn qual(namespace: &Namespace, name: &str) -> QualName {
    let ns = match namespace {
        Namespace::Html => html5ever::ns!(html),
        Namespace::Svg => html5ever::ns!(svg),
        Namespace::MathMl => html5ever::ns!(mathml),
        Namespace::Other(url) => html5ever::Namespace::from(url.as_str()),
    };
    QualName::new(None, ns, LocalName::from(name))
}

/// Runs html5ever over `chunks` (and to the end of input when `end`), recording. `scripting`
/// is the parser's scripting flag: set when scripting is enabled for the document the markup
/// is parsed into (HTML, "scripting flag"), so that a `noscript` element's contents are raw
/// text there and markup in a document without a browsing context, or one sandboxed without
/// `allow-scripts`.
fn record(
    chunks: &[String],
    end: bool,
    fragment: Option<&FragmentContext>,
    scripting: bool,
) -> Result<Recording, DomError> {
    let size: usize = chunks.iter().map(String::len).sum();
    if size > MAX_MARKUP_BYTES {
        return Err(DomError::MarkupTooLarge {
            size,
            max: MAX_MARKUP_BYTES,
        });
    }
    if chunks.len() > MAX_MARKUP_CHUNKS {
        return Err(DomError::TooManyChunks {
            max: MAX_MARKUP_CHUNKS,
        });
    }
    let empty = QualName::new(None, html5ever::ns!(), LocalName::from(""));
    let mut prebound = vec![empty];
    if let Some(f) = fragment {
        prebound.push(qual(&f.namespace, &f.name));
        if f.form {
            prebound.push(qual(&Namespace::Html, "form"));
        }
    }
    let recorder = Rc::new(Recorder::new(prebound));
    let mut opts = ParseOpts::default();
    opts.tree_builder.scripting_enabled = scripting;
    let parser: Parser<Sink> = match fragment {
        None => parse_document(Sink(Rc::clone(&recorder)), opts),
        Some(f) => parse_fragment_for_element(
            Sink(Rc::clone(&recorder)),
            opts,
            1,
            true,
            f.form.then_some(2),
        ),
    };
    let mut parser = parser;
    let mut chunk_ends = Vec::new();
    for chunk in chunks {
        let mut start = 0;
        while start < chunk.len() {
            let mut end_at = (start + SLICE).min(chunk.len());
            while !chunk.is_char_boundary(end_at) {
                end_at += 1;
            }
            parser.process(StrTendril::from_slice(&chunk[start..end_at]));
            start = end_at;
            if let Some(e) = recorder.limit.borrow().clone() {
                return Err(e);
            }
        }
        chunk_ends.push(recorder.ops.borrow().len());
    }
    if end {
        parser.finish();
        if let Some(e) = recorder.limit.borrow().clone() {
            return Err(e);
        }
    }
    let ops = recorder.ops.borrow().clone();
    Ok(Recording {
        ops,
        chunk_ends,
        parse_errors: recorder.errors.get(),
        quirks: recorder.quirks.get(),
    })
}

/// The parser of a document whose markup arrives in chunks.
#[derive(Clone, Debug)]
pub(crate) struct ParserState {
    /// The markup received so far, chunk by chunk.
    chunks: Vec<String>,
    /// Whether the end of the input has been received.
    ended: bool,
    /// The operations for `chunks` (to their end when `ended`), shared between copies of
    /// the world: made anew whenever markup arrives, never changed.
    recording: Rc<Recording>,
    /// How many chunks the networking tasks have handed the parser.
    parsed_chunks: usize,
    /// How many operations have been applied.
    applied: usize,
    /// The world's node for each handle of the recording.
    handles: Vec<Option<NodeKey>>,
    /// Whether "the end" has run.
    finished: bool,
}

impl PartialEq for ParserState {
    fn eq(&self, other: &Self) -> bool {
        self.chunks == other.chunks
            && self.ended == other.ended
            && self.parsed_chunks == other.parsed_chunks
            && self.applied == other.applied
            && self.handles == other.handles
            && self.finished == other.finished
    }
}

impl Eq for ParserState {}

// The recording is a function of the chunks: it is not hashed.
impl std::hash::Hash for ParserState {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (
            &self.chunks,
            self.ended,
            self.parsed_chunks,
            self.applied,
            &self.handles,
            self.finished,
        )
            .hash(h);
    }
}

/// Parsing markup into documents and elements.
pub trait Parsing: Host {
    /// Parses a whole document's markup into its tree now, as if the document had been
    /// loaded with it before anything else ran: no task runs and no lifecycle event fires.
    /// The document's tree must be empty.
    fn parse_html_document(&mut self, doc: DocumentKey, markup: &str) -> Result<(), DomError> {
        if let Some(root) = self.document_node(doc) {
            if !self.children(root).is_empty() || self.dom.parsers.contains_key(doc) {
                return Err(DomError::AlreadyParsed(self.label(doc)));
            }
        }
        let scripting = !self.scripting_is_disabled(doc);
        let recording = record(&[markup.to_string()], true, None, scripting)?;
        let root = self.ensure_document_node(doc);
        let mut handles = vec![Some(root)];
        self.apply_tree_ops(doc, &mut handles, &recording.ops);
        Ok(())
    }

    /// DOM's `createHTMLDocument(title)`, called by a script of `creator`: a new document
    /// without a browsing context (its origin the creator's), holding a doctype, `html`,
    /// `head` (with a `title` holding `title`, when given) and `body`. Returns its node.
    ///
    /// <https://dom.spec.whatwg.org/#dom-domimplementation-createhtmldocument>
    fn create_html_document(
        &mut self,
        creator: DocumentKey,
        title: Option<&str>,
    ) -> Result<NodeKey, DomError> {
        let doc = self.create_a_document_without_a_browsing_context(creator);
        // 2-5 and 7: the doctype, html, head and body, as the parser makes them of a bare
        // doctype.
        self.parse_html_document(doc, "<!DOCTYPE html>")?;
        // 6: the title element, with its text.
        if let Some(title) = title {
            let head = self.document_element(doc).and_then(|html| {
                self.element_children(html)
                    .into_iter()
                    .find(|c| self.is_html(*c, "head"))
            });
            if let Some(head) = head {
                let element = self.create_element(doc, "title")?;
                let text = self.create_text(doc, title);
                self.append_child(element, text)?;
                self.append_child(head, element)?;
            }
        }
        Ok(self.ensure_document_node(doc))
    }

    /// `DOMParser`'s `parseFromString(markup, "text/html")`, called by a script of `creator`:
    /// a new document without a browsing context, its tree parsed from the markup with
    /// scripting disabled (a `noscript` element's contents are elements). Returns its node.
    ///
    /// <https://html.spec.whatwg.org/multipage/dynamic-markup-insertion.html#dom-domparser-parsefromstring>
    fn parse_from_string(
        &mut self,
        creator: DocumentKey,
        markup: &str,
    ) -> Result<NodeKey, DomError> {
        let doc = self.create_a_document_without_a_browsing_context(creator);
        self.parse_html_document(doc, markup)?;
        Ok(self.ensure_document_node(doc))
    }

    /// Markup a document is given after it has loaded (a scenario's `html in DOC:`): checked
    /// against the engine's bounds now, then parsed whole into the document's empty tree by a
    /// networking task of the document, as the rest of the page's tasks are scheduled. A
    /// document that is still loading gets it as its parser's next chunk instead
    /// ([`Parsing::deliver_markup`], the input left open), so that DOMContentLoaded and load
    /// come when the scenario says.
    fn queue_document_markup(&mut self, doc: DocumentKey, markup: &str) -> Result<(), DomError> {
        if self.documents[doc].lifecycle == Lifecycle::Loading {
            return self.deliver_markup(doc, &[markup], false);
        }
        if let Some(root) = self.document_node(doc) {
            if !self.children(root).is_empty() || self.dom.parsers.contains_key(doc) {
                return Err(DomError::AlreadyParsed(self.label(doc)));
            }
        }
        record(
            &[markup.to_string()],
            true,
            None,
            !self.scripting_is_disabled(doc),
        )?;
        self.queue_global_task(
            doc,
            TaskSource::Networking,
            TaskAction::Dom(DomTask::ParseDocument(markup.into())),
        );
        Ok(())
    }

    /// The networking task [`Parsing::queue_document_markup`] queued. Its tree may have been
    /// given content since (a second `html in DOC:` queued before this one ran): then nothing
    /// is parsed, and the trace says why.
    fn parse_document_task(&mut self, doc: DocumentKey, markup: &str) {
        let before = self.node_count();
        match self.parse_html_document(doc, markup) {
            Ok(()) => {
                let made = self.node_count() - before;
                step!(self, TREE_CONSTRUCTION, "1", Some(doc), |_w| format!(
                    "the document's markup: {made} node(s) made"
                ));
            }
            Err(e) => {
                step!(self, TREE_CONSTRUCTION, "1", Some(doc), |_w| format!(
                    "the document's markup is not parsed: {e}"
                ));
            }
        }
    }

    /// Hands a loading document's parser more markup, as the network delivers it: each chunk
    /// is parsed in a task of its own on the networking task source; with `end`, one more task
    /// ends the input and runs "the end" (which queues `DOMContentLoaded` and `load`).
    ///
    /// Refused (with nothing changed) for a document that is not loading, once the end was
    /// delivered, and for markup beyond the engine's bounds.
    fn deliver_markup(
        &mut self,
        doc: DocumentKey,
        chunks: &[&str],
        end: bool,
    ) -> Result<(), DomError> {
        if self.documents[doc].lifecycle != Lifecycle::Loading {
            return Err(DomError::NotLoading(self.label(doc)));
        }
        let existing = self.dom.parsers.get(doc).cloned();
        if existing.as_ref().is_some_and(|p| p.ended) {
            return Err(DomError::ParserFinished(self.label(doc)));
        }
        if existing.is_none() {
            if let Some(root) = self.document_node(doc) {
                if !self.children(root).is_empty() {
                    return Err(DomError::AlreadyParsed(self.label(doc)));
                }
            }
        }
        let mut all: Vec<String> = existing
            .as_ref()
            .map(|p| p.chunks.clone())
            .unwrap_or_default();
        all.extend(chunks.iter().map(|c| c.to_string()));
        let scripting = !self.scripting_is_disabled(doc);
        let recording = Rc::new(record(&all, end, None, scripting)?);
        let root = self.ensure_document_node(doc);
        let state = match existing {
            Some(mut p) => {
                p.chunks = all;
                p.ended = end;
                p.recording = recording;
                p
            }
            None => ParserState {
                chunks: all,
                ended: end,
                recording,
                parsed_chunks: 0,
                applied: 0,
                handles: vec![Some(root)],
                finished: false,
            },
        };
        self.dom.parsers.insert(doc, state);
        let tasks = chunks.len() + usize::from(end);
        for _ in 0..tasks {
            self.queue_global_task(
                doc,
                TaskSource::Networking,
                TaskAction::Dom(DomTask::ParseChunk),
            );
        }
        Ok(())
    }

    /// A networking task: the parser takes its next chunk (applying the tree builder's
    /// operations for it), or, past the last chunk with the input ended, finishes.
    fn parse_next_chunk(&mut self, doc: DocumentKey) {
        let Some(mut state) = self.dom.parsers.get(doc).cloned() else {
            return;
        };
        if state.finished {
            return;
        }
        let recording = Rc::clone(&state.recording);
        let (until, finishing) = if state.parsed_chunks < state.chunks.len() {
            let until = recording.chunk_ends[state.parsed_chunks];
            state.parsed_chunks += 1;
            (until, false)
        } else if state.ended {
            (recording.ops.len(), true)
        } else {
            return;
        };
        let before = self.node_count();
        let ops = &recording.ops[state.applied.min(until)..until];
        self.apply_tree_ops(doc, &mut state.handles, ops);
        state.applied = until;
        let made = self.node_count() - before;
        let (n, total) = (state.parsed_chunks, state.chunks.len());
        step!(self, TREE_CONSTRUCTION, "1", Some(doc), |_w| if finishing {
            format!("end of input: {made} node(s) made")
        } else {
            format!("chunk {n} of {total}: {made} node(s) made")
        });
        state.finished = finishing;
        self.dom.parsers.insert(doc, state);
        if finishing {
            self.the_end(doc);
        }
    }

    /// <https://html.spec.whatwg.org/multipage/parsing.html#the-end>: the parser stops;
    /// `DOMContentLoaded` and then `load` are queued on the DOM manipulation task source.
    fn the_end(&mut self, doc: DocumentKey) {
        step!(self, THE_END, "1", Some(doc), "the parser stops");
        step!(self, THE_END, "6", Some(doc), "DOMContentLoaded queued");
        self.queue_lifecycle(doc, Lifecycle::Interactive);
        step!(self, THE_END, "7", Some(doc), "load queued");
        self.queue_lifecycle(doc, Lifecycle::Complete);
    }

    /// Whether `doc`'s parser has received all its markup and parsed it.
    fn parser_finished(&self, doc: DocumentKey) -> bool {
        self.dom.parsers.get(doc).is_none_or(|p| p.finished)
    }

    /// <https://html.spec.whatwg.org/multipage/parsing.html#html-fragment-parsing-algorithm>:
    /// the nodes `markup` parses to in the context of `context`, in a new document fragment
    /// of the context's node document.
    fn parse_fragment(&mut self, context: NodeKey, markup: &str) -> Result<NodeKey, DomError> {
        let ctx = self.element(context).ok_or(DomError::NoSuchNode)?;
        let form = std::iter::once(context)
            .chain(self.ancestors(context))
            .find(|n| self.is_html(*n, "form"));
        let fragment_context = FragmentContext {
            namespace: ctx.namespace.clone(),
            name: ctx.local_name.clone(),
            form: form.is_some(),
        };
        let doc = self.node_document(context);
        let scripting = !self.scripting_is_disabled(doc);
        let recording = record(
            &[markup.to_string()],
            true,
            Some(&fragment_context),
            scripting,
        )?;
        // The new document the algorithm parses into: a fragment stands in for it.
        let temporary = self.create_document_fragment(doc);
        let mut handles = vec![Some(temporary), Some(context)];
        if let Some(f) = form {
            handles.push(Some(f));
        }
        self.apply_tree_ops(doc, &mut handles, &recording.ops);
        // The root `html` element's children, moved into a new fragment.
        let fragment = self.create_document_fragment(doc);
        if let Some(root) = self.element_children(temporary).first().copied() {
            for child in self.children(root).to_vec() {
                self.insert(child, fragment, None);
            }
        }
        Ok(fragment)
    }

    /// Setting `innerHTML`: the element's children become the markup's nodes.
    ///
    /// <https://html.spec.whatwg.org/multipage/dynamic-markup-insertion.html#dom-element-innerhtml>
    fn set_inner_html(&mut self, element: NodeKey, markup: &str) -> Result<(), DomError> {
        let fragment = self.parse_fragment(element, markup)?;
        self.ensure_depth(fragment, element)?;
        // A template's contents take the nodes instead of the template itself.
        let target = self
            .element(element)
            .and_then(|e| e.template_contents)
            .unwrap_or(element);
        self.replace_all(Some(fragment), target);
        Ok(())
    }

    /// `insertAdjacentHTML("beforeend", markup)`: the markup's nodes appended to the element.
    ///
    /// <https://html.spec.whatwg.org/multipage/dynamic-markup-insertion.html#dom-element-insertadjacenthtml>
    fn insert_adjacent_html(&mut self, element: NodeKey, markup: &str) -> Result<(), DomError> {
        let fragment = self.parse_fragment(element, markup)?;
        self.ensure_depth(fragment, element)?;
        self.insert(fragment, element, None);
        Ok(())
    }

    /// Applies recorded operations to the world's tree; `handles` maps the recording's
    /// handles to nodes and grows as nodes are made.
    fn apply_tree_ops(
        &mut self,
        doc: DocumentKey,
        handles: &mut Vec<Option<NodeKey>>,
        ops: &[TreeOp],
    ) {
        let node = |handles: &Vec<Option<NodeKey>>, h: usize| handles.get(h).copied().flatten();
        for op in ops {
            match op {
                TreeOp::CreateElement {
                    handle,
                    namespace,
                    name,
                    attrs,
                    contents,
                } => {
                    let n = self.create_element_with(doc, namespace.clone(), name, attrs.clone());
                    set_handle(handles, *handle, n);
                    if let (Some(c), Some(tc)) =
                        (contents, self.element(n).and_then(|e| e.template_contents))
                    {
                        set_handle(handles, *c, tc);
                    }
                }
                TreeOp::CreateComment { handle, text } => {
                    let n = self.create_comment(doc, text);
                    set_handle(handles, *handle, n);
                }
                TreeOp::Append { parent, child } => {
                    if let Some(p) = node(handles, *parent) {
                        self.parser_insert(doc, p, None, child, handles);
                    }
                }
                TreeOp::AppendBasedOnParent {
                    element,
                    prev_element,
                    child,
                } => {
                    let Some(e) = node(handles, *element) else {
                        continue;
                    };
                    match self.parent(e) {
                        Some(p) => self.parser_insert(doc, p, Some(e), child, handles),
                        None => {
                            if let Some(prev) = node(handles, *prev_element) {
                                self.parser_insert(doc, prev, None, child, handles);
                            }
                        }
                    }
                }
                TreeOp::AppendBeforeSibling { sibling, child } => {
                    let Some(s) = node(handles, *sibling) else {
                        continue;
                    };
                    if let Some(p) = self.parent(s) {
                        self.parser_insert(doc, p, Some(s), child, handles);
                    }
                }
                TreeOp::AppendDoctype {
                    name,
                    public_id,
                    system_id,
                } => {
                    let n = self.dom.nodes.insert(Node::new(
                        doc,
                        NodeData::DocumentType {
                            name: name.clone(),
                            public_id: public_id.clone(),
                            system_id: system_id.clone(),
                        },
                    ));
                    if let Some(root) = node(handles, 0) {
                        self.insert(n, root, None);
                    }
                }
                TreeOp::AddAttrsIfMissing { target, attrs } => {
                    if let Some(t) = node(handles, *target) {
                        for a in attrs {
                            if !self.has_attribute(t, &a.name) {
                                self.append_attribute(t, a.clone());
                            }
                        }
                    }
                }
                TreeOp::AssociateWithForm {
                    target,
                    form,
                    element,
                    prev_element,
                } => {
                    let (Some(t), Some(f), Some(e)) = (
                        node(handles, *target),
                        node(handles, *form),
                        node(handles, *element),
                    ) else {
                        continue;
                    };
                    // The intended parent: for foster parenting, the table's parent if it has
                    // one, else the element before it on the stack.
                    let intended = match prev_element {
                        Some(prev) => match self.parent(e) {
                            Some(p) => Some(p),
                            None => node(handles, *prev),
                        },
                        None => Some(e),
                    };
                    if intended.is_some_and(|p| self.root(p) == self.root(f)) {
                        self.associate_by_parser(t, f);
                    }
                }
                TreeOp::RemoveFromParent { target } => {
                    if let Some(t) = node(handles, *target) {
                        self.remove(t);
                    }
                }
                TreeOp::ReparentChildren {
                    node: from,
                    new_parent,
                } => {
                    if let (Some(f), Some(to)) = (node(handles, *from), node(handles, *new_parent))
                    {
                        for c in self.children(f).to_vec() {
                            self.insert(c, to, None);
                        }
                    }
                }
            }
        }
    }

    /// Inserts a node or text the way the parser does: text next to a text node joins it.
    fn parser_insert(
        &mut self,
        doc: DocumentKey,
        parent: NodeKey,
        before: Option<NodeKey>,
        child: &Child,
        handles: &[Option<NodeKey>],
    ) {
        match child {
            Child::Node(h) => {
                if let Some(c) = handles.get(*h).copied().flatten() {
                    self.insert(c, parent, before);
                }
            }
            Child::Text(text) => {
                let siblings = self.children(parent);
                let previous = match before {
                    Some(b) => siblings
                        .iter()
                        .position(|c| *c == b)
                        .and_then(|i| i.checked_sub(1))
                        .map(|i| siblings[i]),
                    None => siblings.last().copied(),
                };
                if let Some(p) = previous {
                    if let NodeData::Text(t) = &self.dom.nodes[p].data {
                        let joined = format!("{t}{text}");
                        self.set_text_content(p, &joined);
                        return;
                    }
                }
                let t = self.create_text(doc, text);
                self.insert(t, parent, before);
            }
        }
    }
}

impl<H: Host> Parsing for H {}

fn set_handle(handles: &mut Vec<Option<NodeKey>>, handle: usize, node: NodeKey) {
    if handles.len() <= handle {
        handles.resize(handle + 1, None);
    }
    handles[handle] = Some(node);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_ends_split_the_same_operations_as_one_piece() {
        let whole = record(
            &["<form><input name=a><input name=b></form>".into()],
            true,
            None,
            true,
        )
        .unwrap();
        let parts = record(
            &[
                "<form><input name=a>".into(),
                "<input name=b></form>".into(),
            ],
            true,
            None,
            true,
        )
        .unwrap();
        assert_eq!(whole.ops, parts.ops);
        assert_eq!(parts.chunk_ends.len(), 2);
        assert!(parts.chunk_ends[0] < parts.chunk_ends[1]);
    }
}
