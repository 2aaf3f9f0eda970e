//! The `textarea` element's raw value, API value and dirty flag, and the `output` element's
//! value and default value.
//!
//! <https://html.spec.whatwg.org/multipage/form-elements.html#the-textarea-element>,
//! <https://html.spec.whatwg.org/multipage/form-elements.html#the-output-element>

use super::super::dom::tree::Tree;
use super::super::keys::NodeKey;
use super::super::seam::Upper;
use super::super::{Host, HostState};
use super::microsyntax::normalize_newlines;
use super::Control;

impl<U: Upper> HostState<U> {
    /// <https://html.spec.whatwg.org/multipage/form-elements.html#concept-textarea-api-value>:
    /// the raw value with newlines normalized. (`wrap=hard` line breaking is not done: see
    /// the module documentation.)
    pub fn textarea_api_value(&self, node: NodeKey) -> String {
        match self.element(node).map(|e| &e.control) {
            Some(Control::TextArea(s)) => normalize_newlines(&s.raw_value),
            _ => String::new(),
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-elements.html#concept-output-defaultvalue>
    pub fn output_default_value(&self, node: NodeKey) -> String {
        match self.element(node).map(|e| &e.control) {
            Some(Control::Output(Some(v))) => v.clone(),
            _ => self.descendant_text_content(node),
        }
    }
}

/// Changing text areas and outputs.
pub trait TextAreas: Host {
    /// A clean `textarea` whose child text content changed takes it as its raw value.
    fn textarea_child_text_changed(&mut self, node: NodeKey) {
        let text = self.child_text_content(node);
        if let Some(Control::TextArea(s)) = self.control_mut(node) {
            if !s.dirty_value {
                s.raw_value = text;
            }
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-elements.html#dom-textarea-value>
    /// (setting): the raw value, dirty.
    fn set_textarea_value(&mut self, node: NodeKey, value: &str) {
        if let Some(Control::TextArea(s)) = self.control_mut(node) {
            s.raw_value = value.into();
            s.dirty_value = true;
            s.edited_by_user = false;
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-elements.html#dom-output-value>
    /// (setting): the default value override keeps the old default, then the text is
    /// replaced.
    fn set_output_value(&mut self, node: NodeKey, value: &str) {
        let default = self.descendant_text_content(node);
        if let Some(Control::Output(o)) = self.control_mut(node) {
            *o = Some(default);
        }
        self.set_text_content(node, value);
    }

    /// <https://html.spec.whatwg.org/multipage/form-elements.html#dom-output-defaultvalue>
    /// (setting).
    fn set_output_default_value(&mut self, node: NodeKey, value: &str) {
        let overridden = matches!(
            self.element(node).map(|e| &e.control),
            Some(Control::Output(Some(_)))
        );
        if !overridden {
            self.set_text_content(node, value);
            return;
        }
        if let Some(Control::Output(o)) = self.control_mut(node) {
            *o = Some(value.into());
        }
    }
}

impl<H: Host> TextAreas for H {}
