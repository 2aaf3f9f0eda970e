//! Form owners: resetting them when a form-associated element or its ancestors are inserted or
//! removed, when its `form` attribute or an ID in its tree changes, and the parser's
//! association of a new element with the form element pointer.
//!
//! <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#association-of-controls-and-forms>

use super::super::keys::NodeKey;
use super::super::spec::RESET_THE_FORM_OWNER;
use super::super::Host;
use super::input::Controls;
use crate::step;

/// Form owners.
pub trait FormOwners: Host {
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#reset-the-form-owner>
    fn reset_the_form_owner(&mut self, element: NodeKey) {
        if !self.is_form_associated(element) {
            return;
        }
        // 1. Unset the parser inserted flag.
        if let Some(a) = self.association_mut(element) {
            a.parser_inserted = false;
        }
        let old = self.form_owner(element);
        let listed_with_form_attribute =
            self.is_listed(element) && self.has_attribute(element, "form");
        let nearest_form = self.ancestor_named(element, "form");
        // 2. An owner that is still the nearest form ancestor of an element without a `form`
        //    attribute stays.
        if old.is_some() && !listed_with_form_attribute && nearest_form == old {
            return;
        }
        // 3. No owner, for now.
        let new;
        if listed_with_form_attribute && self.is_connected(element) {
            // 4.1. The first element of the tree whose ID is the `form` attribute's value, if
            //      it is a form.
            let id = self.attribute(element, "form").unwrap_or("").to_string();
            new = self
                .element_by_id(element, &id)
                .filter(|e| self.is_html(*e, "form"));
            if new != old {
                step!(
                    self,
                    RESET_THE_FORM_OWNER,
                    "4.1",
                    Some(self.node_document(element)),
                    |w| format!(
                        "{} form={id:?}: owner {}",
                        w.describe_node(element),
                        new.map(|f| w.describe_node(f))
                            .unwrap_or_else(|| "none".into())
                    )
                );
            }
        } else {
            // 5. Otherwise the nearest form ancestor, if any.
            new = nearest_form;
            if new != old {
                step!(
                    self,
                    RESET_THE_FORM_OWNER,
                    "5",
                    Some(self.node_document(element)),
                    |w| format!(
                        "{}: owner {}",
                        w.describe_node(element),
                        new.map(|f| w.describe_node(f))
                            .unwrap_or_else(|| "none".into())
                    )
                );
            }
        }
        self.set_form_owner(element, new);
    }

    /// Makes `form` (or no form) the element's owner: a change is handed to the
    /// specifications above, and a checked radio button checks its new group.
    fn set_form_owner(&mut self, element: NodeKey, new: Option<NodeKey>) {
        let old = self.form_owner(element);
        if old == new {
            return;
        }
        if let Some(a) = self.association_mut(element) {
            a.owner = new;
        }
        self.radio_group_rule(element);
        self.form_owner_changed(element, old, new);
    }

    /// The parser's association of a new element with its form element pointer: the owner
    /// set and the parser inserted flag with it (so that its insertion keeps the owner).
    ///
    /// <https://html.spec.whatwg.org/multipage/parsing.html#create-an-element-for-the-token>
    fn associate_by_parser(&mut self, element: NodeKey, form: NodeKey) {
        if !self.is_form_associated(element) {
            return;
        }
        self.set_form_owner(element, Some(form));
        if let Some(a) = self.association_mut(element) {
            a.parser_inserted = true;
        }
    }

    /// An ID in `node`'s tree came, went or changed: the listed elements with a `form`
    /// attribute in that tree reset their form owners.
    fn reset_owners_of_form_attribute_elements(&mut self, node: NodeKey) {
        let elements: Vec<NodeKey> = self
            .elements_of_tree(node)
            .into_iter()
            .filter(|e| self.is_listed(*e) && self.has_attribute(*e, "form"))
            .collect();
        for e in elements {
            self.reset_the_form_owner(e);
        }
    }
}

impl<H: Host> FormOwners for H {}
