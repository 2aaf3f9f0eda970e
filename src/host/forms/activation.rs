//! Activation behaviour: what a `click` does to the element it activates once it has been
//! dispatched (a checkbox toggles, a radio button is checked, a submit or reset button
//! submits or resets its form, a label clicks its control), and the legacy steps that run
//! before listeners and undo a canceled click.
//!
//! <https://dom.spec.whatwg.org/#eventtarget-activation-behavior>,
//! <https://html.spec.whatwg.org/multipage/input.html#the-input-element:activation-behaviour>

use super::super::dom::dispatch::{Dispatch, EventInit};
use super::super::keys::{EventKey, NodeKey};
use super::super::Host;
use super::input::{Controls, InputType};
use super::reset::Resetting;
use super::submission::Submission;
use super::Control;

/// What the legacy-pre-activation behaviour saved, for the legacy-canceled-activation
/// behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SavedActivation {
    None,
    Checkbox {
        checked: bool,
        indeterminate: bool,
    },
    Radio {
        checked: bool,
        previous: Option<NodeKey>,
    },
}

/// Activation behaviour.
pub trait Activation: Host {
    /// Whether the element has activation behaviour: an `input` of type checkbox, radio,
    /// submit, image or reset, a `button`, a `label`.
    fn has_activation_behavior(&self, node: NodeKey) -> bool {
        match self.html_name(node) {
            Some("input") => matches!(
                self.input_type(node),
                Some(
                    InputType::Checkbox
                        | InputType::Radio
                        | InputType::Submit
                        | InputType::Image
                        | InputType::Reset
                )
            ),
            Some("button" | "label") => true,
            _ => false,
        }
    }

    /// <https://html.spec.whatwg.org/multipage/input.html#the-input-element:legacy-pre-activation-behavior>:
    /// a checkbox toggles (and stops being indeterminate); a radio button is checked.
    fn legacy_pre_activation_behavior(&mut self, node: NodeKey) -> SavedActivation {
        match self.input_type(node) {
            Some(InputType::Checkbox) => {
                let (checked, indeterminate) = self
                    .input_state(node)
                    .map(|s| (s.checkedness, s.indeterminate))
                    .unwrap_or_default();
                self.set_checkedness(node, !checked, true);
                self.set_indeterminate(node, false);
                SavedActivation::Checkbox {
                    checked,
                    indeterminate,
                }
            }
            Some(InputType::Radio) => {
                let checked = self.checkedness(node);
                let previous = self
                    .radio_group(node)
                    .into_iter()
                    .find(|r| *r != node && self.checkedness(*r));
                self.set_checkedness(node, true, true);
                SavedActivation::Radio { checked, previous }
            }
            _ => SavedActivation::None,
        }
    }

    /// <https://html.spec.whatwg.org/multipage/input.html#the-input-element:legacy-canceled-activation-behavior>:
    /// a canceled click puts the checkedness back.
    fn legacy_canceled_activation_behavior(&mut self, node: NodeKey, saved: SavedActivation) {
        match saved {
            SavedActivation::Checkbox {
                checked,
                indeterminate,
            } => {
                if let Some(Control::Input(s)) = self.control_mut(node) {
                    s.checkedness = checked;
                    s.indeterminate = indeterminate;
                }
            }
            SavedActivation::Radio { checked, previous } => {
                if let Some(p) = previous.filter(|p| self.radio_group(node).contains(p)) {
                    self.set_checkedness(p, true, true);
                } else if let Some(Control::Input(s)) = self.control_mut(node) {
                    s.checkedness = checked;
                }
            }
            SavedActivation::None => {}
        }
    }

    /// The activation behaviour itself, after an uncanceled click.
    fn activation_behavior(&mut self, node: NodeKey, event: EventKey) {
        match self.html_name(node) {
            Some("input") => match self.input_type(node) {
                // A checkbox or radio button: `input` then `change`, if it is connected.
                Some(InputType::Checkbox | InputType::Radio) => {
                    if !self.is_connected(node) {
                        return;
                    }
                    if let Some(a) = self.association_mut(node) {
                        a.user_validity = true;
                    }
                    self.fire_event(node, EventInit::new("input").bubbles().composed());
                    self.fire_event(node, EventInit::new("change").bubbles());
                }
                Some(InputType::Submit | InputType::Image) => self.submit_from_button(node),
                Some(InputType::Reset) => self.reset_from_button(node),
                _ => {}
            },
            Some("button") => {
                if self.is_disabled(node) {
                    return;
                }
                match self.button_type(node) {
                    "submit" => self.submit_from_button(node),
                    "reset" => self.reset_from_button(node),
                    _ => {}
                }
            }
            // A label clicks its labeled control, unless the click came from the control
            // (or something inside it).
            Some("label") => {
                let Some(control) = self.labeled_control(node) else {
                    return;
                };
                let from_control = match self.event_record(event).and_then(|e| e.target) {
                    Some(super::super::dom::dispatch::PathTarget::Node(t)) => {
                        self.is_inclusive_ancestor(control, t)
                    }
                    _ => false,
                };
                if !from_control {
                    let trusted = self.event_record(event).is_some_and(|e| e.is_trusted);
                    self.click(control, trusted);
                }
            }
            _ => {}
        }
    }

    /// A submit button's activation: with a form owner and a fully active document, the
    /// owner is submitted from the button.
    fn submit_from_button(&mut self, node: NodeKey) {
        let Some(form) = self.form_owner(node) else {
            return;
        };
        if !self.is_fully_active(self.node_document(node)) {
            return;
        }
        self.submit_form(form, node, false);
    }

    /// A reset button's activation: with a form owner and a fully active document, the
    /// owner is reset.
    fn reset_from_button(&mut self, node: NodeKey) {
        let Some(form) = self.form_owner(node) else {
            return;
        };
        if !self.is_fully_active(self.node_document(node)) {
            return;
        }
        self.reset(form);
    }
}

impl<H: Host> Activation for H {}
