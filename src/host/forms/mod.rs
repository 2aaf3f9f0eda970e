//! HTML forms: the `form` element and the form-associated elements, their form owners, each
//! control's value, checkedness and selectedness, value sanitization, constraint validation,
//! form submission and reset, and what the user does to a control.
//!
//! <https://html.spec.whatwg.org/multipage/forms.html>
//!
//! # How to use it (a map for the layers above)
//!
//! All of it is methods of the world (`use crate::host::prelude::*`).
//!
//! **Finding a form's controls.** [`HostState::form_owner`] of a control;
//! [`HostState::form_controls`] (`form.elements`: the listed elements whose owner is the form,
//! in tree order, image buttons left out); [`HostState::submittable_elements`];
//! [`HostState::radio_group`]; [`HostState::list_of_options`] of a `select`;
//! [`HostState::labeled_control`] of a `label` and [`HostState::labels`] of a control;
//! [`HostState::input_type`]; [`HostState::is_disabled`]; [`HostState::is_submit_button`];
//! [`HostState::default_button`].
//!
//! **Reading a control.** [`HostState::value`] (each control's `value` IDL attribute),
//! [`HostState::default_value`], [`HostState::checkedness`], [`HostState::selectedness`],
//! [`HostState::selected_options`], [`HostState::validity`] (every `ValidityState` flag),
//! [`HostState::will_validate`], [`HostState::validation_message`],
//! [`HostState::value_as_number`].
//!
//! **Script's setters** ([`Controls`]): `set_value` (the `value` IDL setter of each control,
//! which sanitizes and sets the dirty flags), `set_checked`, `set_selectedness`,
//! `set_select_value`, `set_default_value`, `set_custom_validity`, `step_up`.
//!
//! **Filling a control as the user would** ([`UserActions`]): `user_edit_value` (the value as
//! if typed: sanitized, the dirty and user-edited flags set, `badInput` when the text is not
//! a value of the type, then `input` and, when committed, `change`), `user_click` (a trusted
//! `click` with its activation behaviour: toggles a checkbox, checks a radio button, submits
//! or resets the form), `user_set_checkedness`, `user_select_option`, and
//! `user_implicit_submission` (Enter in a field). Each takes an [`EventTiming`]: HTML queues
//! the `input`/`change` events of a user's edit as tasks on the user interaction task source
//! (`Queued`); a caller that fills a control in the middle of its own steps may fire them at
//! once (`Immediate`).
//!
//! **Submitting and resetting** ([`Submission`], [`Resetting`]): `submit` (`form.submit()`:
//! no validation, no `submit` event), `request_submit` (`form.requestSubmit(submitter)`:
//! validation, `invalid` events, a cancelable `SubmitEvent` whose `submitter` is set),
//! `submit_form` (the form submission algorithm itself, from a submitter), `reset`
//! (`form.reset()`), `check_validity`, `report_validity` (on a form or a control). A
//! submission that navigates plans a navigation (a DOM manipulation task, replaced by a later
//! submission of the same form); when it runs, the target navigable navigates through the
//! host's navigation (`navigable.rs`) and the new document's request is
//! [`HostState::navigation_request`] (method, URL with the query for GET, body and
//! content-type for POST, the entry list). A `javascript:` action runs no script here (there
//! is no JavaScript engine) and leaves the document in place, as a `javascript:` URL whose
//! result is not a string does; `method=dialog` closes the form's nearest `dialog` ancestor
//! (its `open` attribute removed, `returnValue` set, `close` fired in a task), and does
//! nothing in a form without one.
//!
//! **Hooks.** The form owner changing and a form being reset call `Host::form_owner_changed`
//! and `Host::form_reset`; insertion, removal and attribute changes call the DOM's hooks (see
//! `dom`).
//!
//! # What it leaves out
//!
//! - `input type=file`: the simulation has no files a user could choose, so a file input's
//!   selected files are always none (its value is the empty string, and submission sends the
//!   empty file HTML sends for it).
//! - Selection APIs, focus, `autocomplete`, `dirname` (directionality is always ltr),
//!   `datalist` suggestions, `wrap=hard` line breaking, image buttons' coordinates (always
//!   0,0), `accept-charset` (every form submits UTF-8), sandboxing's "sandboxed forms" flag.
//! - Form-associated custom elements (there are no custom elements).

pub mod activation;
pub mod form_owner;
pub mod input;
pub mod label;
pub mod microsyntax;
pub mod reset;
pub mod sanitization;
pub mod select;
pub mod submission;
pub mod textarea;
pub mod user;
pub mod validation;

use super::keys::NodeKey;
use super::seam::Upper;
use super::HostState;

pub use input::{Controls, InputType, ValueMode};
pub use reset::Resetting;
pub use submission::Submission;
pub use user::{EventTiming, UserActions};
pub use validation::{Validation, Validity};

/// Every forms algorithm trait, for the host's prelude.
pub mod prelude {
    pub use super::activation::Activation;
    pub use super::form_owner::FormOwners;
    pub use super::input::Controls;
    pub use super::reset::Resetting;
    pub use super::sanitization::Sanitization;
    pub use super::select::Selects;
    pub use super::submission::Submission;
    pub use super::textarea::TextAreas;
    pub use super::user::UserActions;
    pub use super::validation::Validation;
}

/// What every form-associated element has.
///
/// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#form-owner>
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FormAssociation {
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#form-owner>
    pub owner: Option<NodeKey>,
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#parser-inserted-flag>
    pub parser_inserted: bool,
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#custom-validity-error-message>
    pub custom_validity: String,
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#user-validity>
    pub user_validity: bool,
}

/// An `input` element's state.
///
/// <https://html.spec.whatwg.org/multipage/input.html#the-input-element>
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct InputState {
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#concept-fe-value>
    pub value: String,
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#concept-fe-dirty>
    pub dirty_value: bool,
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#concept-fe-checked>
    pub checkedness: bool,
    /// <https://html.spec.whatwg.org/multipage/input.html#concept-input-checked-dirty-flag>
    pub dirty_checkedness: bool,
    /// <https://html.spec.whatwg.org/multipage/input.html#dom-input-indeterminate>
    pub indeterminate: bool,
    /// Whether the value was last changed by a user edit (tooLong and tooShort apply only
    /// then).
    pub edited_by_user: bool,
    /// The user agent's "suffering from bad input": the user's text could not be made a
    /// value of the type.
    pub bad_input: bool,
    /// The type the element was last in (the type change steps need the previous one).
    pub input_type: InputType,
}

/// A `textarea` element's state.
///
/// <https://html.spec.whatwg.org/multipage/form-elements.html#the-textarea-element>
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TextAreaState {
    /// <https://html.spec.whatwg.org/multipage/form-elements.html#concept-textarea-raw-value>
    pub raw_value: String,
    pub dirty_value: bool,
    pub edited_by_user: bool,
}

/// An `option` element's state.
///
/// <https://html.spec.whatwg.org/multipage/form-elements.html#the-option-element>
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct OptionState {
    /// <https://html.spec.whatwg.org/multipage/form-elements.html#concept-option-selectedness>
    pub selectedness: bool,
    /// <https://html.spec.whatwg.org/multipage/form-elements.html#concept-option-dirtiness>
    pub dirtiness: bool,
}

/// A `form` element's flags.
///
/// <https://html.spec.whatwg.org/multipage/forms.html#the-form-element>
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FormFlags {
    /// <https://html.spec.whatwg.org/multipage/forms.html#locked-for-reset>
    pub locked_for_reset: bool,
    /// <https://html.spec.whatwg.org/multipage/forms.html#firing-submission-events>
    pub firing_submission_events: bool,
    /// <https://html.spec.whatwg.org/multipage/forms.html#constructing-entry-list>
    pub constructing_entry_list: bool,
    /// <https://html.spec.whatwg.org/multipage/forms.html#planned-navigation>: the sequence
    /// number of the queued task.
    pub planned_navigation: Option<u64>,
}

/// The state HTML gives an element of a given kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Control {
    #[default]
    None,
    Form(FormFlags),
    Input(Box<InputState>),
    TextArea(TextAreaState),
    Option(OptionState),
    /// An `output` element's default value override.
    ///
    /// <https://html.spec.whatwg.org/multipage/form-elements.html#concept-output-default-value-override>
    Output(Option<String>),
    /// A `dialog` element's return value.
    ///
    /// <https://html.spec.whatwg.org/multipage/interactive-elements.html#dom-dialog-returnvalue>
    Dialog(String),
}

/// The form-associated elements.
///
/// <https://html.spec.whatwg.org/multipage/forms.html#form-associated-element>
pub const FORM_ASSOCIATED: &[&str] = &[
    "button", "fieldset", "input", "object", "output", "select", "textarea", "img",
];

/// <https://html.spec.whatwg.org/multipage/forms.html#category-listed>
pub const LISTED: &[&str] = &[
    "button", "fieldset", "input", "object", "output", "select", "textarea",
];

/// <https://html.spec.whatwg.org/multipage/forms.html#category-submit>
pub const SUBMITTABLE: &[&str] = &["button", "input", "select", "textarea"];

/// <https://html.spec.whatwg.org/multipage/forms.html#category-reset>
pub const RESETTABLE: &[&str] = &["input", "output", "select", "textarea"];

/// The state a newly created HTML element of `local_name` starts with, and whether it is
/// form-associated.
pub(crate) fn initial_state(local_name: &str) -> (Control, Option<FormAssociation>) {
    let control = match local_name {
        "form" => Control::Form(FormFlags::default()),
        "input" => Control::Input(Box::default()),
        "textarea" => Control::TextArea(TextAreaState::default()),
        "option" => Control::Option(OptionState::default()),
        "output" => Control::Output(None),
        "dialog" => Control::Dialog(String::new()),
        _ => Control::None,
    };
    let form = FORM_ASSOCIATED
        .contains(&local_name)
        .then(FormAssociation::default);
    (control, form)
}

/// Categories and states of form elements, read from the tree.
impl<U: Upper> HostState<U> {
    fn html_in(&self, node: NodeKey, names: &[&str]) -> bool {
        self.html_name(node).is_some_and(|n| names.contains(&n))
    }

    /// <https://html.spec.whatwg.org/multipage/forms.html#form-associated-element>
    pub fn is_form_associated(&self, node: NodeKey) -> bool {
        self.html_in(node, FORM_ASSOCIATED)
    }

    /// <https://html.spec.whatwg.org/multipage/forms.html#category-listed>
    pub fn is_listed(&self, node: NodeKey) -> bool {
        self.html_in(node, LISTED)
    }

    /// <https://html.spec.whatwg.org/multipage/forms.html#category-submit>
    pub fn is_submittable(&self, node: NodeKey) -> bool {
        self.html_in(node, SUBMITTABLE)
    }

    /// <https://html.spec.whatwg.org/multipage/forms.html#category-reset>
    pub fn is_resettable(&self, node: NodeKey) -> bool {
        self.html_in(node, RESETTABLE)
    }

    /// <https://html.spec.whatwg.org/multipage/forms.html#category-label>
    pub fn is_labelable(&self, node: NodeKey) -> bool {
        match self.html_name(node) {
            Some("input") => self.input_type(node) != Some(InputType::Hidden),
            Some(n) => [
                "button", "meter", "output", "progress", "select", "textarea",
            ]
            .contains(&n),
            None => false,
        }
    }

    /// The element's form owner.
    ///
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#form-owner>
    pub fn form_owner(&self, node: NodeKey) -> Option<NodeKey> {
        self.element(node)?.form.as_ref()?.owner
    }

    /// <https://html.spec.whatwg.org/multipage/forms.html#concept-button>: a `button`
    /// element, or an `input` in the Submit Button, Image Button, Reset Button or Button
    /// state.
    pub fn is_button(&self, node: NodeKey) -> bool {
        match self.html_name(node) {
            Some("button") => true,
            Some("input") => matches!(
                self.input_type(node),
                Some(InputType::Submit | InputType::Image | InputType::Reset | InputType::Button)
            ),
            _ => false,
        }
    }

    /// A `button` element's type state: `submit`, `reset` or `button` (an invalid or
    /// missing `type` is the Submit Button state).
    ///
    /// <https://html.spec.whatwg.org/multipage/form-elements.html#attr-button-type>
    pub fn button_type(&self, node: NodeKey) -> &'static str {
        match self
            .attribute(node, "type")
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("reset") => "reset",
            Some("button") => "button",
            _ => "submit",
        }
    }

    /// <https://html.spec.whatwg.org/multipage/forms.html#concept-submit-button>
    pub fn is_submit_button(&self, node: NodeKey) -> bool {
        match self.html_name(node) {
            Some("button") => self.button_type(node) == "submit",
            Some("input") => matches!(
                self.input_type(node),
                Some(InputType::Submit | InputType::Image)
            ),
            _ => false,
        }
    }

    /// Whether a `fieldset` is disabled: its `disabled` attribute, or an ancestor fieldset's
    /// when it is not in that fieldset's first `legend` child.
    ///
    /// <https://html.spec.whatwg.org/multipage/form-elements.html#concept-fieldset-disabled>
    pub fn is_fieldset_disabled(&self, fieldset: NodeKey) -> bool {
        self.has_attribute(fieldset, "disabled") || self.disabled_by_ancestor_fieldset(fieldset)
    }

    /// Whether some ancestor `fieldset` with a `disabled` attribute disables `node`: `node`
    /// is not a descendant of that fieldset's first `legend` child.
    fn disabled_by_ancestor_fieldset(&self, node: NodeKey) -> bool {
        let ancestors: Vec<NodeKey> = self.ancestors(node).collect();
        ancestors.iter().enumerate().any(|(i, &f)| {
            if !self.is_html(f, "fieldset") || !self.has_attribute(f, "disabled") {
                return false;
            }
            let first_legend = self
                .element_children(f)
                .into_iter()
                .find(|c| self.is_html(*c, "legend"));
            // The child of the fieldset on the path to `node`.
            let child_on_path = if i == 0 { node } else { ancestors[i - 1] };
            first_legend != Some(child_on_path)
        })
    }

    /// Whether a form control is disabled.
    ///
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#concept-fe-disabled>:
    /// a `button`, `input`, `select` or `textarea` with a `disabled` attribute, or a
    /// descendant of a disabled `fieldset` outside its first `legend`; a `fieldset` as
    /// [`HostState::is_fieldset_disabled`] says; an `option` with a `disabled` attribute or
    /// in a disabled `optgroup`; an `optgroup` with a `disabled` attribute.
    pub fn is_disabled(&self, node: NodeKey) -> bool {
        match self.html_name(node) {
            Some("button" | "input" | "select" | "textarea") => {
                self.has_attribute(node, "disabled") || self.disabled_by_ancestor_fieldset(node)
            }
            Some("fieldset") => self.is_fieldset_disabled(node),
            Some("option") => {
                self.has_attribute(node, "disabled")
                    || self.parent(node).is_some_and(|p| {
                        self.is_html(p, "optgroup") && self.has_attribute(p, "disabled")
                    })
            }
            Some("optgroup") => self.has_attribute(node, "disabled"),
            _ => false,
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#concept-fe-mutable>:
    /// not disabled and not read-only (for the controls `readonly` applies to).
    pub fn is_mutable(&self, node: NodeKey) -> bool {
        if self.is_disabled(node) {
            return false;
        }
        match self.html_name(node) {
            Some("textarea") => !self.has_attribute(node, "readonly"),
            Some("input") => {
                !(self.input_type(node).is_some_and(|t| t.readonly_applies())
                    && self.has_attribute(node, "readonly"))
            }
            _ => true,
        }
    }

    /// The listed elements whose form owner is `form`, in tree order, without image buttons
    /// (`form.elements`).
    ///
    /// <https://html.spec.whatwg.org/multipage/forms.html#dom-form-elements>
    pub fn form_controls(&self, form: NodeKey) -> Vec<NodeKey> {
        self.elements_of_tree(form)
            .into_iter()
            .filter(|e| {
                self.is_listed(*e)
                    && self.form_owner(*e) == Some(form)
                    && self.input_type(*e) != Some(InputType::Image)
            })
            .collect()
    }

    /// The submittable elements whose form owner is `form`, in tree order.
    pub fn submittable_elements(&self, form: NodeKey) -> Vec<NodeKey> {
        self.elements_of_tree(form)
            .into_iter()
            .filter(|e| self.is_submittable(*e) && self.form_owner(*e) == Some(form))
            .collect()
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#default-button>:
    /// the first submit button in tree order whose form owner is `form`.
    pub fn default_button(&self, form: NodeKey) -> Option<NodeKey> {
        self.elements_of_tree(form)
            .into_iter()
            .find(|e| self.form_owner(*e) == Some(form) && self.is_submit_button(*e))
    }

    /// The forms of a document, in tree order.
    pub fn forms(&self, doc: super::keys::DocumentKey) -> Vec<NodeKey> {
        match self.document_node(doc) {
            Some(root) => self.elements_named(root, "form"),
            None => Vec::new(),
        }
    }

    pub(crate) fn input_state(&self, node: NodeKey) -> Option<&InputState> {
        match &self.element(node)?.control {
            Control::Input(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn form_flags(&self, node: NodeKey) -> Option<&FormFlags> {
        match &self.element(node)?.control {
            Control::Form(f) => Some(f),
            _ => None,
        }
    }

    pub(crate) fn form_flags_mut(&mut self, node: NodeKey) -> Option<&mut FormFlags> {
        match &mut self.dom.nodes.get_mut(node)?.element_mut()?.control {
            Control::Form(f) => Some(f),
            _ => None,
        }
    }

    pub(crate) fn association_mut(&mut self, node: NodeKey) -> Option<&mut FormAssociation> {
        self.dom.nodes.get_mut(node)?.element_mut()?.form.as_mut()
    }

    pub(crate) fn control_mut(&mut self, node: NodeKey) -> Option<&mut Control> {
        Some(&mut self.dom.nodes.get_mut(node)?.element_mut()?.control)
    }
}
