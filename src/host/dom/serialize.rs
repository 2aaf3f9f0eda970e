//! HTML's fragment serialization algorithm: what `innerHTML` reads.
//!
//! <https://html.spec.whatwg.org/multipage/parsing.html#serialising-html-fragments>
//!
//! The host's trees are its own (html5ever parses into them through a recording), so html5ever's
//! serializer, which walks its own DOM types, cannot read them; the steps are written here. Like
//! every walk of a tree in the host, it keeps its own stack: a hostile page can nest deeply.

use super::super::keys::NodeKey;
use super::super::seam::Upper;
use super::super::HostState;
use super::node::{Namespace, NodeData};

/// Elements serialized without children or an end tag.
const VOID: &[&str] = &[
    "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img", "input",
    "keygen", "link", "meta", "param", "source", "track", "wbr",
];

/// Elements whose text children are written as they are.
const RAW_TEXT_PARENTS: &[&str] = &[
    "style",
    "script",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
];

/// What is left to write: a node to open, or an element's end tag.
enum Work {
    Node(NodeKey),
    End(String),
}

impl<U: Upper> HostState<U> {
    /// The HTML serialization of `node`'s children (of a template's contents, for a
    /// template): `innerHTML`'s getter.
    pub fn inner_html(&self, node: NodeKey) -> String {
        let scripting = !self.scripting_is_disabled(self.node_document(node));
        let mut out = String::new();
        let mut work: Vec<Work> = self
            .serialized_children(node)
            .iter()
            .rev()
            .map(|c| Work::Node(*c))
            .collect();
        while let Some(item) = work.pop() {
            let child = match item {
                Work::End(tag) => {
                    out.push_str("</");
                    out.push_str(&tag);
                    out.push('>');
                    continue;
                }
                Work::Node(child) => child,
            };
            let Some(n) = self.node(child) else { continue };
            match &n.data {
                NodeData::Element(e) => {
                    // The tag name: the local name (the host keeps no prefix for an element of
                    // another namespace, whose qualified name the algorithm would write).
                    let tag = e.local_name.clone();
                    out.push('<');
                    out.push_str(&tag);
                    for a in &e.attributes {
                        out.push(' ');
                        out.push_str(&a.name);
                        out.push_str("=\"");
                        escape(&a.value, true, &mut out);
                        out.push('"');
                    }
                    out.push('>');
                    if e.namespace == Namespace::Html && VOID.contains(&e.local_name.as_str()) {
                        continue;
                    }
                    work.push(Work::End(tag));
                    for c in self.serialized_children(child).iter().rev() {
                        work.push(Work::Node(*c));
                    }
                }
                NodeData::Text(t) => {
                    let raw = n.parent.and_then(|p| self.html_name(p)).is_some_and(|p| {
                        RAW_TEXT_PARENTS.contains(&p) || (p == "noscript" && scripting)
                    });
                    if raw {
                        out.push_str(t);
                    } else {
                        escape(t, false, &mut out);
                    }
                }
                NodeData::Comment(t) => {
                    out.push_str("<!--");
                    out.push_str(t);
                    out.push_str("-->");
                }
                NodeData::DocumentType { name, .. } => {
                    out.push_str("<!DOCTYPE ");
                    out.push_str(name);
                    out.push('>');
                }
                NodeData::Document | NodeData::DocumentFragment { .. } => {}
            }
        }
        out
    }

    /// The children the serialization walks: a template's contents' for a template.
    fn serialized_children(&self, node: NodeKey) -> &[NodeKey] {
        match self.element(node).and_then(|e| e.template_contents) {
            Some(contents) => self.children(contents),
            None => self.children(node),
        }
    }
}

/// "Escaping a string": `&`, U+00A0, `<` and `>` always; `"` in attribute mode.
fn escape(text: &str, attribute: bool, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '\u{A0}' => out.push_str("&nbsp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}
