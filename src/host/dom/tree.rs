//! Creating nodes and changing trees: DOM's "create an element", "pre-insert", "insert",
//! "remove", "adopt" and "replace all", each running HTML's insertion, removing and adopting
//! steps and then the ones other specifications define (the [`Host`] hooks).
//!
//! <https://dom.spec.whatwg.org/#mutation-algorithms>
//!
//! What HTML hangs on these steps (for forms): a form-associated element resets its form owner
//! when it or an ancestor is inserted or removed; an element with an ID coming or going resets
//! the owners of the listed elements whose `form` attribute may name it; a checked radio button
//! that becomes connected unchecks the rest of its group; an option coming or going runs its
//! `select`'s selectedness setting algorithm; a `textarea` whose child text changes takes it as
//! its raw value while it is not dirty.

use super::super::forms::form_owner::FormOwners;
use super::super::forms::input::Controls;
use super::super::forms::select::Selects;
use super::super::forms::textarea::TextAreas;
use super::super::forms::{initial_state, Control};
use super::super::iframe::IframeElements;
use super::super::keys::{DocumentKey, NodeKey};
use super::super::Host;
use super::attributes::Attributes;
use super::node::{Attr, Element, Namespace, Node, NodeData};
use super::{DomError, MAX_PARSED_NODES, MAX_TREE_DEPTH};

/// Node creation and the tree's mutation algorithms.
pub trait Tree: Host {
    /// The document's node, made (with no children) the first time the document needs one.
    fn ensure_document_node(&mut self, doc: DocumentKey) -> NodeKey {
        if let Some(n) = self.dom.document_nodes.get(doc) {
            return *n;
        }
        let node = self.dom.nodes.insert(Node::new(doc, NodeData::Document));
        self.dom.document_nodes.insert(doc, node);
        node
    }

    /// <https://dom.spec.whatwg.org/#dom-document-createelement>: an HTML element named
    /// `local_name` (lowercased), with no attributes.
    fn create_element(&mut self, doc: DocumentKey, local_name: &str) -> Result<NodeKey, DomError> {
        // 1. The name must be a valid element local name.
        if !valid_element_local_name(local_name) {
            return Err(DomError::InvalidCharacter(format!(
                "`{local_name}` is not a valid element name"
            )));
        }
        // 2. In an HTML document, lowercase it.
        let name = local_name.to_ascii_lowercase();
        Ok(self.create_element_with(doc, Namespace::Html, &name, Vec::new()))
    }

    /// <https://dom.spec.whatwg.org/#concept-create-element> with the attributes then
    /// appended one by one ("append an attribute", each running the attribute change steps),
    /// as HTML's "create an element for a token" does.
    fn create_element_with(
        &mut self,
        doc: DocumentKey,
        namespace: Namespace,
        local_name: &str,
        attributes: Vec<Attr>,
    ) -> NodeKey {
        let (control, form) = if namespace == Namespace::Html {
            initial_state(local_name)
        } else {
            (Control::None, None)
        };
        let element = Element {
            namespace,
            local_name: local_name.to_string(),
            attributes: Vec::new(),
            template_contents: None,
            states: Vec::new(),
            form,
            control,
        };
        let node = self
            .dom
            .nodes
            .insert(Node::new(doc, NodeData::Element(Box::new(element))));
        if self.is_html(node, "template") {
            let contents = self.create_document_fragment(doc);
            if let NodeData::DocumentFragment { host } = &mut self.dom.nodes[contents].data {
                *host = Some(node);
            }
            if let Some(e) = self.dom.nodes[node].element_mut() {
                e.template_contents = Some(contents);
            }
        }
        for attr in attributes {
            // A token never repeats an attribute; the API's callers may: the first wins.
            if !self.has_attribute(node, &attr.name) {
                self.append_attribute(node, attr);
            }
        }
        node
    }

    /// <https://dom.spec.whatwg.org/#dom-document-createtextnode>
    fn create_text(&mut self, doc: DocumentKey, data: &str) -> NodeKey {
        self.dom
            .nodes
            .insert(Node::new(doc, NodeData::Text(data.into())))
    }

    /// <https://dom.spec.whatwg.org/#dom-document-createcomment>
    fn create_comment(&mut self, doc: DocumentKey, data: &str) -> NodeKey {
        self.dom
            .nodes
            .insert(Node::new(doc, NodeData::Comment(data.into())))
    }

    /// <https://dom.spec.whatwg.org/#dom-document-createdocumentfragment>
    fn create_document_fragment(&mut self, doc: DocumentKey) -> NodeKey {
        self.dom
            .nodes
            .insert(Node::new(doc, NodeData::DocumentFragment { host: None }))
    }

    /// <https://dom.spec.whatwg.org/#concept-node-ensure-pre-insertion-validity>
    fn ensure_pre_insertion_validity(
        &self,
        node: NodeKey,
        parent: NodeKey,
        child: Option<NodeKey>,
    ) -> Result<(), DomError> {
        let (Some(p), Some(n)) = (self.dom.nodes.get(parent), self.dom.nodes.get(node)) else {
            return Err(DomError::NoSuchNode);
        };
        // 1. The parent must be a Document, DocumentFragment or Element.
        if !matches!(
            p.data,
            NodeData::Document | NodeData::DocumentFragment { .. } | NodeData::Element(_)
        ) {
            return Err(DomError::HierarchyRequest(
                "the parent cannot have children".into(),
            ));
        }
        // 2. The node must not be an inclusive ancestor of the parent.
        if self.is_inclusive_ancestor(node, parent) {
            return Err(DomError::HierarchyRequest(
                "the node is an inclusive ancestor of the parent".into(),
            ));
        }
        // 3. The child, if any, must be the parent's child.
        if let Some(c) = child {
            if self.parent(c) != Some(parent) {
                return Err(DomError::NotFound(
                    "the reference child is not a child of the parent".into(),
                ));
            }
        }
        // 4. The node must be a DocumentFragment, DocumentType, Element or CharacterData.
        if matches!(n.data, NodeData::Document) {
            return Err(DomError::HierarchyRequest(
                "a document cannot be inserted".into(),
            ));
        }
        // 5. Text cannot go in a document; a doctype only in a document.
        let parent_is_document = matches!(p.data, NodeData::Document);
        if (matches!(n.data, NodeData::Text(_)) && parent_is_document)
            || (matches!(n.data, NodeData::DocumentType { .. }) && !parent_is_document)
        {
            return Err(DomError::HierarchyRequest(
                "text cannot be a document's child, nor a doctype anything else's".into(),
            ));
        }
        // 6. A document has at most one element child, and no text (fragments checked by
        //    their element children).
        if parent_is_document {
            let elements_in = |k: NodeKey| match &self.dom.nodes[k].data {
                NodeData::DocumentFragment { .. } => self.element_children(k).len(),
                NodeData::Element(_) => 1,
                _ => 0,
            };
            let has_element_child = self
                .children(parent)
                .iter()
                .any(|c| Some(*c) != child && self.dom.nodes[*c].is_element());
            let adding = elements_in(node);
            if adding > 1 || (adding == 1 && has_element_child) {
                return Err(DomError::HierarchyRequest(
                    "a document can have only one element child".into(),
                ));
            }
        }
        Ok(())
    }

    /// <https://dom.spec.whatwg.org/#concept-node-pre-insert>
    fn pre_insert(
        &mut self,
        node: NodeKey,
        parent: NodeKey,
        child: Option<NodeKey>,
    ) -> Result<NodeKey, DomError> {
        // 1. Ensure pre-insert validity.
        self.ensure_pre_insertion_validity(node, parent, child)?;
        self.ensure_depth(node, parent)?;
        // 2-3. The reference child; if it is the node itself, its next sibling.
        let mut reference = child;
        if reference == Some(node) {
            let siblings = self.children(parent);
            let i = self.index_of(node);
            reference = siblings.get(i + 1).copied();
        }
        // 4. Insert.
        self.insert(node, parent, reference);
        // 5. Return the node.
        Ok(node)
    }

    /// The engine's bound: no tree nests deeper than [`MAX_TREE_DEPTH`].
    fn ensure_depth(&self, node: NodeKey, parent: NodeKey) -> Result<(), DomError> {
        let mut height = 0;
        let mut stack = vec![(node, 0usize)];
        while let Some((n, d)) = stack.pop() {
            height = height.max(d);
            stack.extend(self.children(n).iter().map(|c| (*c, d + 1)));
        }
        if self.depth(parent) + 1 + height > MAX_TREE_DEPTH {
            return Err(DomError::TreeTooDeep {
                max: MAX_TREE_DEPTH,
            });
        }
        Ok(())
    }

    /// <https://dom.spec.whatwg.org/#concept-node-clone>: a copy of `node` whose node document
    /// is `document`, with its descendants when `subtree`; each element's attributes are
    /// appended one by one (their change steps run), and HTML's cloning steps copy an
    /// `input`'s value, checkedness and their dirty flags, a `textarea`'s raw value and dirty
    /// flag, and a `template`'s contents. The copy is in no tree; the copies of descendants
    /// are appended to it (running their insertion steps, disconnected).
    ///
    /// Departure: a `Document` node is not cloned (that makes another document without a
    /// browsing context, which nothing here needs): a `NotSupportedError`.
    fn clone_node(
        &mut self,
        node: NodeKey,
        document: DocumentKey,
        subtree: bool,
    ) -> Result<NodeKey, DomError> {
        if !self.dom.nodes.contains_key(node) {
            return Err(DomError::NoSuchNode);
        }
        let count = if subtree {
            self.inclusive_descendants(node).len()
        } else {
            1
        };
        if count > MAX_PARSED_NODES {
            return Err(DomError::TooManyNodes {
                max: MAX_PARSED_NODES,
                line: 0,
            });
        }
        self.clone_a_node(node, document, subtree, None)
    }

    /// The steps of "clone a node", `parent` the copy a copy is appended to.
    fn clone_a_node(
        &mut self,
        node: NodeKey,
        document: DocumentKey,
        subtree: bool,
        parent: Option<NodeKey>,
    ) -> Result<NodeKey, DomError> {
        // "Clone a single node".
        let copy = match self.dom.nodes[node].data.clone() {
            NodeData::Document => {
                return Err(DomError::NotSupported(
                    "cloning a document is not something the engine does".into(),
                ))
            }
            NodeData::Element(e) => {
                let copy = self.create_element_with(
                    document,
                    e.namespace.clone(),
                    &e.local_name,
                    e.attributes.clone(),
                );
                // HTML's cloning steps.
                let source = e.control.clone();
                if let Some(c) = self.dom.nodes[copy].element_mut() {
                    match (&mut c.control, source) {
                        (Control::Input(to), Control::Input(from)) => {
                            to.value = from.value;
                            to.dirty_value = from.dirty_value;
                            to.checkedness = from.checkedness;
                            to.dirty_checkedness = from.dirty_checkedness;
                        }
                        (Control::TextArea(to), Control::TextArea(from)) => {
                            to.raw_value = from.raw_value;
                            to.dirty_value = from.dirty_value;
                        }
                        _ => {}
                    }
                }
                if subtree {
                    if let (Some(from), Some(to)) = (
                        e.template_contents,
                        self.element(copy).and_then(|c| c.template_contents),
                    ) {
                        for child in self.children(from).to_vec() {
                            self.clone_a_node(child, document, true, Some(to))?;
                        }
                    }
                }
                copy
            }
            NodeData::Text(t) => self.create_text(document, &t),
            NodeData::Comment(t) => self.create_comment(document, &t),
            NodeData::DocumentFragment { .. } => self.create_document_fragment(document),
            data @ NodeData::DocumentType { .. } => {
                self.dom.nodes.insert(Node::new(document, data))
            }
        };
        // "If parent is non-null, append copy to parent."
        if let Some(parent) = parent {
            self.append_child(parent, copy)?;
        }
        // "If subtree, clone each child into copy."
        if subtree {
            for child in self.children(node).to_vec() {
                self.clone_a_node(child, document, true, Some(copy))?;
            }
        }
        Ok(copy)
    }

    /// <https://dom.spec.whatwg.org/#dom-node-appendchild>
    fn append_child(&mut self, parent: NodeKey, node: NodeKey) -> Result<NodeKey, DomError> {
        self.pre_insert(node, parent, None)
    }

    /// <https://dom.spec.whatwg.org/#dom-node-insertbefore>
    fn insert_before(
        &mut self,
        parent: NodeKey,
        node: NodeKey,
        child: Option<NodeKey>,
    ) -> Result<NodeKey, DomError> {
        self.pre_insert(node, parent, child)
    }

    /// <https://dom.spec.whatwg.org/#concept-node-insert> (the suppress observers flag does
    /// nothing here: there are no mutation observers).
    fn insert(&mut self, node: NodeKey, parent: NodeKey, child: Option<NodeKey>) {
        // 1. The nodes: a fragment's children, or the node.
        let is_fragment = matches!(self.dom.nodes[node].data, NodeData::DocumentFragment { .. });
        let nodes: Vec<NodeKey> = if is_fragment {
            self.children(node).to_vec()
        } else {
            vec![node]
        };
        // 3. Nothing to insert.
        if nodes.is_empty() {
            return;
        }
        // 4. A fragment's children leave it first.
        if is_fragment {
            for c in nodes.clone() {
                self.remove(c);
            }
        }
        let parent_document = self.dom.nodes[parent].document;
        // 7. Each node in turn:
        for n in nodes.clone() {
            // 7.1. Adopt it into the parent's node document (which removes it from its
            //      parent).
            self.adopt(n, parent_document);
            // 7.2. Append it, or insert it before the child.
            let index = child
                .and_then(|c| self.children(parent).iter().position(|k| *k == c))
                .unwrap_or(self.children(parent).len());
            self.dom.nodes[parent].children.insert(index, n);
            self.dom.nodes[n].parent = Some(parent);
            // 7.7. The insertion steps of each inclusive descendant, in tree order.
            for d in self.inclusive_descendants(n) {
                self.html_insertion_steps(d);
                self.insertion_steps(d);
            }
            // HTML: an element with an ID coming into a document resets the owners of the
            // listed elements whose `form` attribute may name it.
            if self.is_connected(n) && self.has_id_in(n) {
                self.reset_owners_of_form_attribute_elements(n);
            }
        }
        // 9. The children changed steps of the parent.
        self.children_changed_steps(parent);
        // 11. The post-connection steps of each connected inclusive descendant of each node,
        //     in tree order (HTML's: an `iframe` gets its content navigable).
        for n in nodes {
            for d in self.inclusive_descendants(n) {
                if self.dom.nodes.get(d).is_some() && self.is_connected(d) {
                    self.iframe_post_connection_steps(d);
                }
            }
        }
    }

    /// HTML's insertion steps for one node.
    fn html_insertion_steps(&mut self, node: NodeKey) {
        // A form-associated element (or one with an ancestor just inserted): unless the
        // parser associated it, reset its form owner.
        //
        // <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#association-of-controls-and-forms>
        if self.is_form_associated(node) {
            let parser_inserted = self
                .element(node)
                .and_then(|e| e.form.as_ref())
                .is_some_and(|f| f.parser_inserted);
            if !parser_inserted {
                self.reset_the_form_owner(node);
            }
        }
        // A checked radio button that becomes connected unchecks the rest of its group.
        if self.is_connected(node) {
            self.radio_group_rule(node);
        }
        // An option joining a select's list of options.
        if self.is_html(node, "option") || self.is_html(node, "optgroup") {
            if let Some(select) = self.owning_select(node) {
                self.selectedness_setting_algorithm(select);
            }
        }
    }

    /// Whether `node` or a descendant has an ID.
    fn has_id_in(&self, node: NodeKey) -> bool {
        self.inclusive_descendants(node)
            .into_iter()
            .any(|d| self.element(d).and_then(Element::id).is_some())
    }

    /// <https://dom.spec.whatwg.org/#concept-node-children-changed-ext>: HTML's, for a
    /// `textarea` (its child text content is its default value) and a `select` or `optgroup`
    /// (its list of options may have changed).
    fn children_changed_steps(&mut self, parent: NodeKey) {
        if self.is_html(parent, "textarea") {
            self.textarea_child_text_changed(parent);
        }
    }

    /// <https://dom.spec.whatwg.org/#concept-node-remove> (no live ranges, node iterators,
    /// slots or observers here).
    fn remove(&mut self, node: NodeKey) {
        // 1-2. The parent; without one there is nothing to do.
        let Some(parent) = self.parent(node) else {
            return;
        };
        // What the removal changes beyond the node: the select whose options it was among.
        let old_select = if self.is_html(node, "option") || self.is_html(node, "optgroup") {
            self.owning_select(node)
        } else {
            None
        };
        let had_id = self.is_connected(node) && self.has_id_in(node);
        let old_root = self.root(parent);
        // 7. Remove it from its parent's children.
        self.dom.nodes[parent].children.retain(|c| *c != node);
        self.dom.nodes[node].parent = None;
        // 11. The removing steps with the node and its old parent...
        self.html_removing_steps(node, Some(parent), old_root);
        self.removing_steps(node, Some(parent));
        // 14. ...then with each of its descendants, in tree order.
        for d in self.descendants(node) {
            self.html_removing_steps(d, None, old_root);
            self.removing_steps(d, None);
        }
        if let Some(select) = old_select {
            self.selectedness_setting_algorithm(select);
        }
        if had_id {
            self.reset_owners_of_form_attribute_elements(old_root);
        }
        // 17. The children changed steps of the parent.
        self.children_changed_steps(parent);
    }

    /// HTML's removing steps for one node; `old_root` is the root of the tree it left.
    fn html_removing_steps(
        &mut self,
        node: NodeKey,
        _old_parent: Option<NodeKey>,
        old_root: NodeKey,
    ) {
        // An `iframe` loses its content navigable.
        if self.is_html(node, "iframe") {
            self.iframe_removing_steps(node);
        }
        // A form-associated element no longer in its owner's tree resets its form owner.
        if let Some(owner) = self.form_owner(node) {
            if self.root(node) != self.root(owner) {
                self.reset_the_form_owner(node);
            }
        }
        // A form that leaves a tree takes its owner away from the elements it leaves behind
        // in that tree (the parser may have associated elements outside the form). HTML says
        // this in the controls' own removing steps, which do not run for them: the engine
        // follows Chromium, which resets them when the form is removed.
        if self.is_html(node, "form") {
            let left_behind: Vec<NodeKey> = self
                .inclusive_descendants(old_root)
                .into_iter()
                .filter(|e| self.form_owner(*e) == Some(node))
                .collect();
            for e in left_behind {
                self.reset_the_form_owner(e);
            }
        }
    }

    /// <https://dom.spec.whatwg.org/#dom-node-removechild> (pre-remove).
    fn remove_child(&mut self, parent: NodeKey, child: NodeKey) -> Result<NodeKey, DomError> {
        // 1. The child must be the parent's child.
        if self.parent(child) != Some(parent) {
            return Err(DomError::NotFound(
                "the node to remove is not a child of this node".into(),
            ));
        }
        // 2. Remove it.
        self.remove(child);
        Ok(child)
    }

    /// Removes a node from its parent (`node.remove()`).
    ///
    /// <https://dom.spec.whatwg.org/#dom-childnode-remove>
    fn remove_node(&mut self, node: NodeKey) {
        self.remove(node);
    }

    /// <https://dom.spec.whatwg.org/#concept-node-adopt>
    fn adopt(&mut self, node: NodeKey, document: DocumentKey) {
        // 1. The old document.
        let old = self.dom.nodes[node].document;
        // 2. Remove the node from its parent.
        if self.parent(node).is_some() {
            self.remove(node);
        }
        // 3. Moving to another document:
        if old != document {
            let all = self.inclusive_descendants(node);
            // 3.1. Set each inclusive descendant's node document (a template's contents move
            //      with it).
            for d in &all {
                self.dom.nodes[*d].document = document;
                if let Some(contents) = self.element(*d).and_then(|e| e.template_contents) {
                    for c in self.inclusive_descendants(contents) {
                        self.dom.nodes[c].document = document;
                    }
                }
            }
            // 3.3. The adopting steps of each, in tree order.
            for d in all {
                self.adopting_steps(d, old);
            }
        }
    }

    /// <https://dom.spec.whatwg.org/#concept-node-replace-all>
    fn replace_all(&mut self, node: Option<NodeKey>, parent: NodeKey) {
        // 1-3. Remove every child, then insert the node (if any).
        for c in self.children(parent).to_vec() {
            self.remove(c);
        }
        if let Some(n) = node {
            self.insert(n, parent, None);
        }
    }

    /// <https://dom.spec.whatwg.org/#dom-node-textcontent> (setting): for an element or a
    /// fragment, "string replace all"; for text and comments, the data.
    fn set_text_content(&mut self, node: NodeKey, text: &str) {
        let doc = self.dom.nodes[node].document;
        match &self.dom.nodes[node].data {
            NodeData::Element(_) | NodeData::DocumentFragment { .. } => {
                let t = (!text.is_empty()).then(|| self.create_text(doc, text));
                self.replace_all(t, node);
            }
            NodeData::Text(_) | NodeData::Comment(_) => {
                match &mut self.dom.nodes[node].data {
                    NodeData::Text(d) | NodeData::Comment(d) => *d = text.into(),
                    _ => {}
                }
                // A text node's data is its parent's child text content.
                if let Some(p) = self.parent(node) {
                    self.children_changed_steps(p);
                }
            }
            _ => {}
        }
    }
}

impl<H: Host> Tree for H {}

/// <https://dom.spec.whatwg.org/#valid-element-local-name>
pub fn valid_element_local_name(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    if first.is_ascii_alphabetic() {
        // The rest may be anything but ASCII whitespace, NULL, `/` and `>`.
        name.chars()
            .all(|c| !matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ' | '\0' | '/' | '>'))
    } else if first == ':' || first == '_' || (first as u32) >= 0x80 {
        name.chars().skip(1).all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | ':' | '_') || (c as u32) >= 0x80
        })
    } else {
        false
    }
}
