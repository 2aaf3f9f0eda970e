//! The `label` element: its labeled control, and a control's labels.
//!
//! <https://html.spec.whatwg.org/multipage/forms.html#the-label-element>

use super::super::keys::NodeKey;
use super::super::seam::Upper;
use super::super::HostState;

impl<U: Upper> HostState<U> {
    /// <https://html.spec.whatwg.org/multipage/forms.html#labeled-control>: with a `for`
    /// attribute, the first element of the label's tree with that ID if it is labelable;
    /// without one, the label's first labelable descendant.
    pub fn labeled_control(&self, label: NodeKey) -> Option<NodeKey> {
        if !self.is_html(label, "label") {
            return None;
        }
        match self.attribute(label, "for") {
            Some(id) => self
                .element_by_id(label, id)
                .filter(|e| self.is_labelable(*e)),
            None => self
                .descendant_elements(label)
                .into_iter()
                .find(|e| self.is_labelable(*e)),
        }
    }

    /// <https://html.spec.whatwg.org/multipage/forms.html#dom-lfe-labels>: the `label`
    /// elements of the control's tree whose labeled control it is, in tree order.
    pub fn labels(&self, control: NodeKey) -> Vec<NodeKey> {
        if !self.is_labelable(control) {
            return Vec::new();
        }
        self.elements_of_tree(control)
            .into_iter()
            .filter(|l| self.is_html(*l, "label") && self.labeled_control(*l) == Some(control))
            .collect()
    }
}
