//! `Node` and its kinds: the document's node, document fragments, doctypes, elements with their
//! attributes, text and comments; and the tree's read-only algorithms (tree order, roots,
//! ancestors, descendants, "connected", child text content).
//!
//! <https://dom.spec.whatwg.org/#interface-node>
//!
//! Every node lives in the host's node arena (`DomState::nodes`) and is named by a
//! [`NodeKey`]; a node names its parent and children by key. Walking a tree never recurses (a
//! hostile page can nest deeply): every traversal here keeps its own stack.

use super::super::forms::{Control, FormAssociation};
use super::super::keys::{DocumentKey, ListenerKey, NodeKey};
use super::super::seam::Upper;
use super::super::HostState;

/// An element's namespace.
///
/// <https://infra.spec.whatwg.org/#namespaces>
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Namespace {
    Html,
    Svg,
    MathMl,
    /// Any other namespace, by its URL (the HTML parser makes none; the API may).
    Other(String),
}

impl Namespace {
    pub fn from_url(url: &str) -> Namespace {
        match url {
            "http://www.w3.org/1999/xhtml" => Namespace::Html,
            "http://www.w3.org/2000/svg" => Namespace::Svg,
            "http://www.w3.org/1998/Math/MathML" => Namespace::MathMl,
            other => Namespace::Other(other.into()),
        }
    }
}

/// An attribute: its qualified name as the parser or the API gave it, and its value.
///
/// <https://dom.spec.whatwg.org/#concept-attribute>. Departure: attributes keep no namespace of
/// their own (only foreign content's `xlink:`/`xml:` attributes have one, and nothing here reads
/// them); an attribute is named by its qualified name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Attr {
    pub name: String,
    pub value: String,
}

/// An element.
///
/// <https://dom.spec.whatwg.org/#concept-element>
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Element {
    pub namespace: Namespace,
    /// <https://dom.spec.whatwg.org/#concept-element-local-name> (lowercase for HTML
    /// elements the parser made).
    pub local_name: String,
    /// <https://dom.spec.whatwg.org/#concept-element-attribute>, in order.
    pub attributes: Vec<Attr>,
    /// A `template` element's template contents (a document fragment).
    ///
    /// <https://html.spec.whatwg.org/multipage/scripting.html#template-contents>
    pub template_contents: Option<NodeKey>,
    /// Pseudo-class states that a specification above the host sets on the element, by the
    /// pseudo-class's name (see `selectors`).
    pub states: Vec<String>,
    /// For a form-associated element: its form owner and the flags HTML gives every such
    /// element.
    pub form: Option<FormAssociation>,
    /// The state HTML gives this kind of element (a control's value, an option's
    /// selectedness, a form's flags).
    pub control: Control,
}

impl Element {
    /// The value of the first attribute named `name`, if any.
    ///
    /// <https://dom.spec.whatwg.org/#concept-element-attributes-get-by-name>
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.value.as_str())
    }

    pub fn has_attr(&self, name: &str) -> bool {
        self.attributes.iter().any(|a| a.name == name)
    }

    /// Whether it is the HTML element `local_name`.
    pub fn is_html(&self, local_name: &str) -> bool {
        self.namespace == Namespace::Html && self.local_name == local_name
    }

    /// <https://dom.spec.whatwg.org/#concept-id>
    pub fn id(&self) -> Option<&str> {
        self.attr("id").filter(|v| !v.is_empty())
    }
}

/// What kind of node it is, with what that kind holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NodeData {
    /// A `Document`'s node (the document itself is in the navigables' arena).
    Document,
    /// A `DocumentFragment`; a template's contents name their template as host.
    DocumentFragment {
        host: Option<NodeKey>,
    },
    DocumentType {
        name: String,
        public_id: String,
        system_id: String,
    },
    Element(Box<Element>),
    Text(String),
    Comment(String),
}

/// A node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    /// <https://dom.spec.whatwg.org/#concept-node-document>
    pub document: DocumentKey,
    pub parent: Option<NodeKey>,
    pub children: Vec<NodeKey>,
    pub data: NodeData,
    /// Its event listeners (see `events`).
    pub listeners: Vec<ListenerKey>,
}

impl Node {
    pub fn new(document: DocumentKey, data: NodeData) -> Node {
        Node {
            document,
            parent: None,
            children: Vec::new(),
            data,
            listeners: Vec::new(),
        }
    }

    pub fn element(&self) -> Option<&Element> {
        match &self.data {
            NodeData::Element(e) => Some(e),
            _ => None,
        }
    }

    pub fn element_mut(&mut self) -> Option<&mut Element> {
        match &mut self.data {
            NodeData::Element(e) => Some(e),
            _ => None,
        }
    }

    pub fn is_element(&self) -> bool {
        matches!(self.data, NodeData::Element(_))
    }
}

/// The tree's read-only algorithms.
impl<U: Upper> HostState<U> {
    /// The node, if it still exists.
    pub fn node(&self, node: NodeKey) -> Option<&Node> {
        self.dom.nodes.get(node)
    }

    /// The element, if `node` is one.
    pub fn element(&self, node: NodeKey) -> Option<&Element> {
        self.dom.nodes.get(node).and_then(Node::element)
    }

    /// The local name of an HTML element (`None` for any other node).
    pub fn html_name(&self, node: NodeKey) -> Option<&str> {
        self.element(node)
            .filter(|e| e.namespace == Namespace::Html)
            .map(|e| e.local_name.as_str())
    }

    /// Whether `node` is the HTML element `name`.
    pub fn is_html(&self, node: NodeKey, name: &str) -> bool {
        self.html_name(node) == Some(name)
    }

    /// An attribute's value (`None` for a node that is not an element, or has no such
    /// attribute).
    pub fn attribute(&self, node: NodeKey, name: &str) -> Option<&str> {
        self.element(node).and_then(|e| e.attr(name))
    }

    pub fn has_attribute(&self, node: NodeKey, name: &str) -> bool {
        self.element(node).is_some_and(|e| e.has_attr(name))
    }

    pub fn parent(&self, node: NodeKey) -> Option<NodeKey> {
        self.dom.nodes.get(node).and_then(|n| n.parent)
    }

    /// The parent, if it is an element.
    ///
    /// <https://dom.spec.whatwg.org/#parent-element>
    pub fn parent_element(&self, node: NodeKey) -> Option<NodeKey> {
        self.parent(node)
            .filter(|p| self.dom.nodes.get(*p).is_some_and(Node::is_element))
    }

    pub fn children(&self, node: NodeKey) -> &[NodeKey] {
        self.dom
            .nodes
            .get(node)
            .map(|n| n.children.as_slice())
            .unwrap_or(&[])
    }

    /// The element children, in order.
    pub fn element_children(&self, node: NodeKey) -> Vec<NodeKey> {
        self.children(node)
            .iter()
            .copied()
            .filter(|c| self.dom.nodes[*c].is_element())
            .collect()
    }

    /// <https://dom.spec.whatwg.org/#concept-tree-index>
    pub fn index_of(&self, node: NodeKey) -> usize {
        self.parent(node)
            .and_then(|p| self.children(p).iter().position(|c| *c == node))
            .unwrap_or(0)
    }

    /// <https://dom.spec.whatwg.org/#concept-tree-root>
    pub fn root(&self, node: NodeKey) -> NodeKey {
        let mut n = node;
        while let Some(p) = self.parent(n) {
            n = p;
        }
        n
    }

    /// The ancestors, nearest first.
    pub fn ancestors(&self, node: NodeKey) -> impl Iterator<Item = NodeKey> + '_ {
        std::iter::successors(self.parent(node), move |n| self.parent(*n))
    }

    /// <https://dom.spec.whatwg.org/#concept-tree-inclusive-ancestor>
    pub fn is_inclusive_ancestor(&self, ancestor: NodeKey, node: NodeKey) -> bool {
        ancestor == node || self.ancestors(node).any(|a| a == ancestor)
    }

    /// The nearest ancestor that is the HTML element `name`.
    pub fn ancestor_named(&self, node: NodeKey, name: &str) -> Option<NodeKey> {
        self.ancestors(node).find(|a| self.is_html(*a, name))
    }

    /// The inclusive descendants of `root`, in tree order.
    ///
    /// <https://dom.spec.whatwg.org/#concept-tree-order>
    pub fn inclusive_descendants(&self, root: NodeKey) -> Vec<NodeKey> {
        let mut out = Vec::new();
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            out.push(n);
            stack.extend(self.children(n).iter().rev().copied());
        }
        out
    }

    /// The descendants of `root` (without it), in tree order.
    pub fn descendants(&self, root: NodeKey) -> Vec<NodeKey> {
        let mut all = self.inclusive_descendants(root);
        all.remove(0);
        all
    }

    /// The elements among the inclusive descendants of `root`, in tree order.
    pub fn descendant_elements(&self, root: NodeKey) -> Vec<NodeKey> {
        self.inclusive_descendants(root)
            .into_iter()
            .filter(|n| *n != root && self.dom.nodes[*n].is_element())
            .collect()
    }

    /// The elements of `node`'s tree (the inclusive descendants of its root), in tree order.
    pub fn elements_of_tree(&self, node: NodeKey) -> Vec<NodeKey> {
        let root = self.root(node);
        self.inclusive_descendants(root)
            .into_iter()
            .filter(|n| self.dom.nodes[*n].is_element())
            .collect()
    }

    /// Whether `a` precedes `b` in tree order (both in one tree).
    ///
    /// <https://dom.spec.whatwg.org/#concept-tree-preceding>
    pub fn precedes(&self, a: NodeKey, b: NodeKey) -> bool {
        if a == b {
            return false;
        }
        let path = |n: NodeKey| {
            let mut p: Vec<NodeKey> = self.ancestors(n).collect();
            p.reverse();
            p.push(n);
            p
        };
        let (pa, pb) = (path(a), path(b));
        let common = pa.iter().zip(&pb).take_while(|(x, y)| x == y).count();
        match (pa.get(common), pb.get(common)) {
            // `a` is an ancestor of `b`.
            (None, _) => true,
            (_, None) => false,
            (Some(x), Some(y)) => self.index_of(*x) < self.index_of(*y),
        }
    }

    /// Sorts nodes of one tree into tree order.
    pub fn sort_in_tree_order(&self, nodes: &mut [NodeKey]) {
        nodes.sort_by(|a, b| {
            if a == b {
                std::cmp::Ordering::Equal
            } else if self.precedes(*a, *b) {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            }
        });
    }

    /// The document's node, if the document has had a tree made for it (a document into
    /// which no markup was parsed and no node inserted has none: see `DomState`).
    pub fn document_node(&self, doc: DocumentKey) -> Option<NodeKey> {
        self.dom.document_nodes.get(doc).copied()
    }

    /// <https://dom.spec.whatwg.org/#connected>: its root is a document's node.
    pub fn is_connected(&self, node: NodeKey) -> bool {
        let root = self.root(node);
        matches!(
            self.dom.nodes.get(root).map(|n| &n.data),
            Some(NodeData::Document)
        )
    }

    /// The node document.
    pub fn node_document(&self, node: NodeKey) -> DocumentKey {
        self.dom.nodes[node].document
    }

    /// <https://dom.spec.whatwg.org/#document-element>
    pub fn document_element(&self, doc: DocumentKey) -> Option<NodeKey> {
        let root = self.document_node(doc)?;
        self.element_children(root).first().copied()
    }

    /// Whether the node is a `Document`'s node.
    pub fn is_document_node(&self, node: NodeKey) -> bool {
        matches!(
            self.dom.nodes.get(node).map(|n| &n.data),
            Some(NodeData::Document)
        )
    }

    /// <https://html.spec.whatwg.org/multipage/dom.html#the-body-element-2>: the first `body`
    /// child of the `html` document element.
    pub fn body(&self, doc: DocumentKey) -> Option<NodeKey> {
        let html = self
            .document_element(doc)
            .filter(|h| self.is_html(*h, "html"))?;
        self.element_children(html)
            .into_iter()
            .find(|c| self.is_html(*c, "body"))
    }

    /// <https://dom.spec.whatwg.org/#concept-child-text-content>
    pub fn child_text_content(&self, node: NodeKey) -> String {
        // Concatenated code units: halves of a pair in two text nodes make the pair.
        crate::text::js_string::pair_up(
            self.children(node)
                .iter()
                .filter_map(|c| match &self.dom.nodes[*c].data {
                    NodeData::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect(),
        )
    }

    /// <https://dom.spec.whatwg.org/#concept-descendant-text-content>
    pub fn descendant_text_content(&self, node: NodeKey) -> String {
        // Concatenated code units: halves of a pair in two text nodes make the pair.
        crate::text::js_string::pair_up(
            self.inclusive_descendants(node)
                .into_iter()
                .filter_map(|c| match &self.dom.nodes[c].data {
                    NodeData::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect(),
        )
    }

    /// <https://dom.spec.whatwg.org/#dom-node-textcontent> (getting).
    pub fn text_content(&self, node: NodeKey) -> Option<String> {
        match &self.dom.nodes.get(node)?.data {
            NodeData::Document | NodeData::DocumentType { .. } => None,
            NodeData::Text(t) | NodeData::Comment(t) => Some(t.clone()),
            _ => Some(self.descendant_text_content(node)),
        }
    }

    /// The first element of `node`'s tree, in tree order, whose ID is `id`.
    ///
    /// <https://dom.spec.whatwg.org/#dom-nonelementparentnode-getelementbyid>
    pub fn element_by_id(&self, node: NodeKey, id: &str) -> Option<NodeKey> {
        if id.is_empty() {
            return None;
        }
        self.elements_of_tree(node)
            .into_iter()
            .find(|e| self.element(*e).and_then(Element::id) == Some(id))
    }

    /// The first element with ID `id` in a document's tree.
    pub fn get_element_by_id(&self, doc: DocumentKey, id: &str) -> Option<NodeKey> {
        self.element_by_id(self.document_node(doc)?, id)
    }

    /// The HTML elements named `name` among the inclusive descendants of `root`, in tree
    /// order.
    pub fn elements_named(&self, root: NodeKey, name: &str) -> Vec<NodeKey> {
        self.inclusive_descendants(root)
            .into_iter()
            .filter(|n| self.is_html(*n, name))
            .collect()
    }

    /// How many nodes exist (for tests of bounds).
    pub fn node_count(&self) -> usize {
        self.dom.nodes.count()
    }

    /// How deep `node` is in its tree (a root is at depth 0).
    pub fn depth(&self, node: NodeKey) -> usize {
        self.ancestors(node).count()
    }
}
