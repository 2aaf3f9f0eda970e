//! Attributes: setting, changing, appending and removing them, each running the attribute
//! change steps HTML defines and then those of the specifications above.
//!
//! <https://dom.spec.whatwg.org/#concept-element-attributes-change>
//!
//! HTML's attribute change steps that matter for forms: an `id` changing resets the owners of
//! the listed elements whose `form` attribute may name it; a listed element's `form`
//! attribute resets its form owner; an `input`'s `type`, `value`, `checked`, `name`,
//! `multiple`, `min`, `max` and `step` (see `forms::input`); an `option`'s `selected`; a
//! `select`'s `multiple` and `size`.

use super::super::forms::form_owner::FormOwners;
use super::super::forms::input::Controls;
use super::super::forms::select::Selects;
use super::super::iframe::IframeElements;
use super::super::keys::NodeKey;
use super::super::Host;
use super::node::{Attr, Namespace};
use super::DomError;

/// Attribute changes.
pub trait Attributes: Host {
    /// <https://dom.spec.whatwg.org/#dom-element-setattribute>
    fn set_attribute(&mut self, element: NodeKey, name: &str, value: &str) -> Result<(), DomError> {
        // 1. The name must be a valid attribute local name.
        if !valid_attribute_local_name(name) {
            return Err(DomError::InvalidCharacter(format!(
                "`{name}` is not a valid attribute name"
            )));
        }
        // 2. An HTML element's attribute names are lowercase.
        let name = self.normalized_attribute_name(element, name)?;
        // 3-5. Append it if there is none, else change it.
        if self.has_attribute(element, &name) {
            self.change_attribute(element, &name, value);
        } else {
            self.append_attribute(
                element,
                Attr {
                    name,
                    value: value.into(),
                },
            );
        }
        Ok(())
    }

    /// The name `setAttribute` and friends look for: lowercased on an HTML element.
    fn normalized_attribute_name(&self, element: NodeKey, name: &str) -> Result<String, DomError> {
        let e = self.element(element).ok_or(DomError::NoSuchNode)?;
        Ok(if e.namespace == Namespace::Html {
            name.to_ascii_lowercase()
        } else {
            name.to_string()
        })
    }

    /// <https://dom.spec.whatwg.org/#dom-element-removeattribute>
    fn remove_attribute(&mut self, element: NodeKey, name: &str) -> Result<(), DomError> {
        let name = self.normalized_attribute_name(element, name)?;
        self.remove_attribute_by_name(element, &name);
        Ok(())
    }

    /// <https://dom.spec.whatwg.org/#dom-element-toggleattribute>: returns whether the
    /// attribute is now present.
    fn toggle_attribute(
        &mut self,
        element: NodeKey,
        name: &str,
        force: Option<bool>,
    ) -> Result<bool, DomError> {
        // 1. The name must be valid.
        if !valid_attribute_local_name(name) {
            return Err(DomError::InvalidCharacter(format!(
                "`{name}` is not a valid attribute name"
            )));
        }
        // 2. Lowercase on an HTML element.
        let name = self.normalized_attribute_name(element, name)?;
        // 4-5. Absent: add it (empty) unless force is false; present: remove it unless force
        //      is true.
        if !self.has_attribute(element, &name) {
            if force != Some(false) {
                self.append_attribute(
                    element,
                    Attr {
                        name,
                        value: String::new(),
                    },
                );
                return Ok(true);
            }
            return Ok(false);
        }
        if force != Some(true) {
            self.remove_attribute_by_name(element, &name);
            return Ok(false);
        }
        Ok(true)
    }

    /// <https://dom.spec.whatwg.org/#concept-element-attributes-append>
    fn append_attribute(&mut self, element: NodeKey, attr: Attr) {
        let (name, value) = (attr.name.clone(), attr.value.clone());
        // 2. Append the attribute to the element's attribute list.
        if let Some(e) = self
            .dom
            .nodes
            .get_mut(element)
            .and_then(|n| n.element_mut())
        {
            e.attributes.push(attr);
        }
        // 1. Handle attribute changes (with no old value).
        self.handle_attribute_changes(element, &name, None, Some(&value));
    }

    /// <https://dom.spec.whatwg.org/#concept-element-attributes-change>
    fn change_attribute(&mut self, element: NodeKey, name: &str, value: &str) {
        let old = self.attribute(element, name).map(str::to_string);
        // 1. Set the attribute's value.
        if let Some(e) = self
            .dom
            .nodes
            .get_mut(element)
            .and_then(|n| n.element_mut())
        {
            if let Some(a) = e.attributes.iter_mut().find(|a| a.name == name) {
                a.value = value.into();
            }
        }
        // 2. Handle attribute changes.
        self.handle_attribute_changes(element, name, old.as_deref(), Some(value));
    }

    /// <https://dom.spec.whatwg.org/#concept-element-attributes-remove-by-name>
    fn remove_attribute_by_name(&mut self, element: NodeKey, name: &str) {
        let Some(old) = self.attribute(element, name).map(str::to_string) else {
            return;
        };
        if let Some(e) = self
            .dom
            .nodes
            .get_mut(element)
            .and_then(|n| n.element_mut())
        {
            if let Some(i) = e.attributes.iter().position(|a| a.name == name) {
                e.attributes.remove(i);
            }
        }
        self.handle_attribute_changes(element, name, Some(&old), None);
    }

    /// <https://dom.spec.whatwg.org/#handle-attribute-changes>: the attribute change steps,
    /// HTML's and then the specifications' above (no mutation records or custom element
    /// reactions here).
    fn handle_attribute_changes(
        &mut self,
        element: NodeKey,
        name: &str,
        old: Option<&str>,
        value: Option<&str>,
    ) {
        self.html_attribute_change_steps(element, name, old, value);
        self.attribute_change_steps(element, name, old, value);
    }

    /// HTML's attribute change steps for the elements forms are made of.
    fn html_attribute_change_steps(
        &mut self,
        element: NodeKey,
        name: &str,
        old: Option<&str>,
        value: Option<&str>,
    ) {
        let Some(local) = self.html_name(element).map(str::to_string) else {
            return;
        };
        // An ID in a tree changed: the listed elements whose `form` attribute may name it.
        if name == "id" && self.is_connected(element) {
            self.reset_owners_of_form_attribute_elements(element);
        }
        // A listed element's `form` attribute was set, changed or removed.
        if name == "form" && self.is_listed(element) {
            self.reset_the_form_owner(element);
        }
        match local.as_str() {
            "input" => self.input_attribute_changed(element, name, old, value),
            "option" if name == "selected" => self.option_selected_attribute_changed(element),
            "select" if name == "multiple" || name == "size" => {
                self.selectedness_setting_algorithm(element)
            }
            "iframe" => self.iframe_attribute_changed(element, name),
            _ => {}
        }
    }
}

impl<H: Host> Attributes for H {}

/// <https://dom.spec.whatwg.org/#valid-attribute-local-name>: not empty, and no ASCII
/// whitespace, NULL, `/`, `=` or `>`.
pub fn valid_attribute_local_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| {
            !matches!(
                c,
                '\t' | '\n' | '\x0c' | '\r' | ' ' | '\0' | '/' | '=' | '>'
            )
        })
}
