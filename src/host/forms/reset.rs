//! Resetting forms and controls: `form.reset()`, resetting a form, and each resettable
//! element's reset algorithm.
//!
//! <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#resetting-a-form>

use super::super::dom::dispatch::{Dispatch, EventInit};
use super::super::dom::tree::Tree;
use super::super::keys::NodeKey;
use super::super::spec::RESET_A_FORM;
use super::super::Host;
use super::input::Controls;
use super::sanitization::Sanitization;
use super::select::Selects;
use super::Control;
use crate::step;

/// Resetting.
pub trait Resetting: Host {
    /// <https://html.spec.whatwg.org/multipage/forms.html#dom-form-reset>
    fn reset(&mut self, form: NodeKey) {
        // 1. A form locked for reset does nothing.
        if self.form_flags(form).is_none_or(|f| f.locked_for_reset) {
            return;
        }
        // 2. Lock it.
        if let Some(f) = self.form_flags_mut(form) {
            f.locked_for_reset = true;
        }
        // 3. Reset it.
        self.reset_a_form(form);
        // 4. Unlock it.
        if let Some(f) = self.form_flags_mut(form) {
            f.locked_for_reset = false;
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#concept-form-reset>
    fn reset_a_form(&mut self, form: NodeKey) {
        // 1. Fire `reset` (bubbles, cancelable).
        let reset = self.fire_event(form, EventInit::new("reset").bubbles().cancelable());
        let doc = Some(self.node_document(form));
        if !reset {
            step!(self, RESET_A_FORM, "1", doc, |w| format!(
                "reset of {} canceled",
                w.describe_node(form)
            ));
            return;
        }
        // 2. Not canceled: each resettable element whose owner is the form is reset.
        let elements: Vec<NodeKey> = self
            .elements_of_tree(form)
            .into_iter()
            .filter(|e| self.is_resettable(*e) && self.form_owner(*e) == Some(form))
            .collect();
        step!(self, RESET_A_FORM, "2", doc, |w| format!(
            "{}: {} control(s) reset",
            w.describe_node(form),
            elements.len()
        ));
        for e in elements {
            self.reset_algorithm(e);
        }
        self.form_reset(form);
    }

    /// A resettable element's reset algorithm.
    fn reset_algorithm(&mut self, element: NodeKey) {
        if let Some(a) = self.association_mut(element) {
            a.user_validity = false;
        }
        match self.html_name(element) {
            // <https://html.spec.whatwg.org/multipage/input.html#the-input-element:concept-form-reset-control>
            Some("input") => {
                let value = self.attribute(element, "value").unwrap_or("").to_string();
                let checked = self.has_attribute(element, "checked");
                if let Some(Control::Input(s)) = self.control_mut(element) {
                    s.dirty_value = false;
                    s.dirty_checkedness = false;
                    s.edited_by_user = false;
                    s.bad_input = false;
                    s.value = value;
                    s.checkedness = checked;
                }
                if checked {
                    self.radio_group_rule(element);
                }
                self.sanitize_value(element);
            }
            // <https://html.spec.whatwg.org/multipage/form-elements.html#the-textarea-element:concept-form-reset-control>
            Some("textarea") => {
                let text = self.child_text_content(element);
                if let Some(Control::TextArea(s)) = self.control_mut(element) {
                    s.dirty_value = false;
                    s.edited_by_user = false;
                    s.raw_value = text;
                }
            }
            // <https://html.spec.whatwg.org/multipage/form-elements.html#the-select-element:concept-form-reset-control>
            Some("select") => {
                for o in self.list_of_options(element) {
                    let selected = self.has_attribute(o, "selected");
                    if let Some(Control::Option(s)) = self.control_mut(o) {
                        s.selectedness = selected;
                        s.dirtiness = false;
                    }
                }
                self.selectedness_setting_algorithm(element);
            }
            // <https://html.spec.whatwg.org/multipage/form-elements.html#the-output-element:concept-form-reset-control>
            Some("output") => {
                let default = self.output_default_value(element);
                self.set_text_content(element, &default);
                if let Some(Control::Output(o)) = self.control_mut(element) {
                    *o = None;
                }
            }
            _ => {}
        }
    }
}

impl<H: Host> Resetting for H {}
