//! Constraint validation: which elements are candidates, the `ValidityState` flags of each
//! control, the validation message, `checkValidity()`, `reportValidity()`, and statically and
//! interactively validating a form's constraints.
//!
//! <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#constraints>

use serde::Serialize;

use super::super::dom::dispatch::{Dispatch, EventInit};
use super::super::keys::NodeKey;
use super::super::regexp::compile_html_pattern;
use super::super::seam::Upper;
use super::super::spec::STATICALLY_VALIDATE_THE_CONSTRAINTS;
use super::super::{Host, HostState};
use super::input::{InputType, ValueMode};
use super::microsyntax::{is_valid_email, js_length, parse_non_negative_integer};
use super::Control;
use crate::step;

/// The flags of a `ValidityState`.
///
/// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#validitystate>
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Validity {
    pub value_missing: bool,
    pub type_mismatch: bool,
    pub pattern_mismatch: bool,
    pub too_long: bool,
    pub too_short: bool,
    pub range_underflow: bool,
    pub range_overflow: bool,
    pub step_mismatch: bool,
    pub bad_input: bool,
    pub custom_error: bool,
}

impl Validity {
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#dom-validitystate-valid>
    pub fn valid(&self) -> bool {
        *self == Validity::default()
    }

    /// The flags that are set, by their IDL names.
    pub fn flags(&self) -> Vec<&'static str> {
        [
            (self.value_missing, "valueMissing"),
            (self.type_mismatch, "typeMismatch"),
            (self.pattern_mismatch, "patternMismatch"),
            (self.too_long, "tooLong"),
            (self.too_short, "tooShort"),
            (self.range_underflow, "rangeUnderflow"),
            (self.range_overflow, "rangeOverflow"),
            (self.step_mismatch, "stepMismatch"),
            (self.bad_input, "badInput"),
            (self.custom_error, "customError"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect()
    }
}

impl<U: Upper> HostState<U> {
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#candidate-for-constraint-validation>
    /// (`willValidate`): a submittable element not barred from constraint validation (by
    /// being disabled, having a `datalist` ancestor, being a `readonly` input or textarea, an
    /// input of type hidden, reset or button, or a `button` that is not a submit button).
    pub fn will_validate(&self, node: NodeKey) -> bool {
        if !self.is_submittable(node) || self.is_disabled(node) {
            return false;
        }
        if self.ancestor_named(node, "datalist").is_some() {
            return false;
        }
        match self.html_name(node) {
            Some("input") => {
                let t = self.input_type(node).unwrap_or_default();
                if matches!(t, InputType::Hidden | InputType::Reset | InputType::Button) {
                    return false;
                }
                !(t.readonly_applies() && self.has_attribute(node, "readonly"))
            }
            Some("textarea") => !self.has_attribute(node, "readonly"),
            Some("button") => self.is_submit_button(node),
            _ => true,
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#concept-fv-valid>
    pub fn satisfies_constraints(&self, node: NodeKey) -> bool {
        self.validity(node).valid()
    }

    /// Every `ValidityState` flag of a control.
    pub fn validity(&self, node: NodeKey) -> Validity {
        let custom_error = self
            .element(node)
            .and_then(|e| e.form.as_ref())
            .is_some_and(|f| !f.custom_validity.is_empty());
        let mut v = Validity {
            custom_error,
            ..Validity::default()
        };
        match self.html_name(node) {
            Some("input") => self.input_validity(node, &mut v),
            Some("textarea") => {
                let value = self.textarea_api_value(node);
                v.value_missing = self.has_attribute(node, "required")
                    && self.is_mutable(node)
                    && value.is_empty();
                let edited = matches!(
                    self.element(node).map(|e| &e.control),
                    Some(Control::TextArea(s)) if s.edited_by_user && s.dirty_value
                );
                self.length_validity(node, &value, edited, &mut v);
            }
            Some("select") => {
                let selected = self.selected_options(node);
                let placeholder = self.placeholder_label_option(node);
                v.value_missing = self.has_attribute(node, "required")
                    && (selected.is_empty()
                        || (selected.len() == 1 && Some(selected[0]) == placeholder));
            }
            _ => {}
        }
        v
    }

    fn input_validity(&self, node: NodeKey, v: &mut Validity) {
        let t = self.input_type(node).unwrap_or_default();
        let state = self.input_state(node).cloned().unwrap_or_default();
        let value = self.value(node);
        let required = t.required_applies() && self.has_attribute(node, "required");
        // Suffering from being missing.
        v.value_missing = match t {
            InputType::Checkbox => required && !state.checkedness,
            InputType::Radio => {
                let group = self.radio_group(node);
                group.iter().any(|r| self.has_attribute(*r, "required"))
                    && group.iter().all(|r| !self.checkedness(*r))
            }
            // No file is ever selected.
            InputType::File => required,
            _ if t.value_mode() == ValueMode::Value => {
                required && self.is_mutable(node) && value.is_empty()
            }
            _ => false,
        };
        v.bad_input = state.bad_input;
        if value.is_empty() || t.value_mode() != ValueMode::Value {
            return;
        }
        let multiple = self.has_attribute(node, "multiple");
        // Suffering from a type mismatch.
        v.type_mismatch = match t {
            InputType::Url => url::Url::parse(&value).is_err(),
            InputType::Email if multiple => !value.split(',').all(is_valid_email),
            InputType::Email => !is_valid_email(&value),
            _ => false,
        };
        // Suffering from a pattern mismatch: the `v` flag's grammar, the whole value.
        if t.pattern_applies() {
            if let Some(regex) = self
                .attribute(node, "pattern")
                .and_then(|p| compile_html_pattern(p).ok())
            {
                v.pattern_mismatch = if t == InputType::Email && multiple {
                    !value.split(',').all(|each| regex.is_match(each))
                } else {
                    !regex.is_match(&value)
                };
            }
            self.length_validity(node, &value, state.edited_by_user && state.dirty_value, v);
        }
        // Underflow, overflow and step mismatch.
        if t.has_range() {
            if let Some(n) = t.string_to_number(&value) {
                let (min, max) = (self.minimum(node), self.maximum(node));
                let reversed =
                    t == InputType::Time && matches!((min, max), (Some(lo), Some(hi)) if hi < lo);
                if reversed {
                    // A time range that wraps past midnight: out of it only between the two.
                    let out = matches!((min, max), (Some(lo), Some(hi)) if n > hi && n < lo);
                    v.range_underflow = out;
                    v.range_overflow = out;
                } else {
                    v.range_underflow = min.is_some_and(|m| n < m);
                    v.range_overflow = max.is_some_and(|m| n > m);
                }
                v.step_mismatch = self.off_step(node, n);
            }
        }
    }

    /// Too long and too short: only for a value the user last edited.
    fn length_validity(&self, node: NodeKey, value: &str, edited: bool, v: &mut Validity) {
        if !edited || value.is_empty() {
            return;
        }
        let len = js_length(value) as u64;
        let limit = |name: &str| {
            self.attribute(node, name)
                .and_then(parse_non_negative_integer)
        };
        v.too_long = limit("maxlength").is_some_and(|max| len > max);
        v.too_short = limit("minlength").is_some_and(|min| len < min);
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#dom-cva-validationmessage>:
    /// the empty string for an element that is not a candidate or is valid; the custom
    /// message for a custom error; otherwise a message in the words Chromium uses (English).
    pub fn validation_message(&self, node: NodeKey) -> String {
        if !self.will_validate(node) {
            return String::new();
        }
        let v = self.validity(node);
        if v.custom_error {
            return self
                .element(node)
                .and_then(|e| e.form.as_ref())
                .map(|f| f.custom_validity.clone())
                .unwrap_or_default();
        }
        let t = self.input_type(node);
        let text = if v.value_missing {
            match (self.html_name(node), t) {
                (Some("select"), _) => "Please select an item in the list.",
                (_, Some(InputType::Checkbox)) => "Please check this box if you want to proceed.",
                (_, Some(InputType::Radio)) => "Please select one of these options.",
                (_, Some(InputType::File)) => "Please select a file.",
                _ => "Please fill out this field.",
            }
        } else if v.type_mismatch {
            match t {
                Some(InputType::Email) => "Please enter an email address.",
                _ => "Please enter a URL.",
            }
        } else if v.pattern_mismatch {
            "Please match the requested format."
        } else if v.too_long {
            "Please shorten this text."
        } else if v.too_short {
            "Please lengthen this text."
        } else if v.range_underflow {
            "Value must be greater than or equal to the minimum."
        } else if v.range_overflow {
            "Value must be less than or equal to the maximum."
        } else if v.step_mismatch || v.bad_input {
            "Please enter a valid value."
        } else {
            ""
        };
        text.into()
    }
}

/// Validating controls and forms, with their `invalid` events.
pub trait Validation: Host {
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#check-validity-steps>
    /// for a control, <https://html.spec.whatwg.org/multipage/forms.html#dom-form-checkvalidity>
    /// for a form: an invalid candidate fires `invalid` (cancelable) and gives false.
    fn check_validity(&mut self, node: NodeKey) -> bool {
        if self.is_html(node, "form") {
            return self.statically_validate_the_constraints(node).is_ok();
        }
        // 1. A candidate that does not satisfy its constraints:
        if self.will_validate(node) && !self.satisfies_constraints(node) {
            // 1.1. Fire invalid (cancelable). 1.2. Return false.
            self.fire_event(node, EventInit::new("invalid").cancelable());
            return false;
        }
        // 2. Return true.
        true
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#report-validity-steps>
    /// for a control (the report to the user is not simulated), and
    /// <https://html.spec.whatwg.org/multipage/forms.html#dom-form-reportvalidity> for a form.
    fn report_validity(&mut self, node: NodeKey) -> bool {
        if self.is_html(node, "form") {
            return self.interactively_validate_the_constraints(node);
        }
        self.check_validity(node)
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#statically-validate-the-constraints>:
    /// `Ok` (positive), or `Err` with the unhandled invalid controls (those whose `invalid`
    /// event was not canceled).
    fn statically_validate_the_constraints(&mut self, form: NodeKey) -> Result<(), Vec<NodeKey>> {
        // 1. The submittable elements whose owner is the form, in tree order.
        let controls = self.submittable_elements(form);
        // 2-3. The candidates that do not satisfy their constraints.
        let invalid: Vec<NodeKey> = controls
            .into_iter()
            .filter(|c| self.will_validate(*c) && !self.satisfies_constraints(*c))
            .collect();
        let doc = Some(self.node_document(form));
        // 4. None: positive.
        if invalid.is_empty() {
            step!(
                self,
                STATICALLY_VALIDATE_THE_CONSTRAINTS,
                "4",
                doc,
                |w| format!(
                    "{}: every control satisfies its constraints",
                    w.describe_node(form)
                )
            );
            return Ok(());
        }
        // 5-6. Each invalid control fires `invalid` (cancelable); those not canceled are
        //      unhandled.
        let mut unhandled = Vec::new();
        for field in invalid {
            step!(
                self,
                STATICALLY_VALIDATE_THE_CONSTRAINTS,
                "6.1",
                doc,
                |w| format!(
                    "{} is invalid ({})",
                    w.describe_node(field),
                    w.validity(field).flags().join(", ")
                )
            );
            if self.fire_event(field, EventInit::new("invalid").cancelable()) {
                unhandled.push(field);
            }
        }
        // 7. Negative, with the unhandled invalid controls.
        step!(
            self,
            STATICALLY_VALIDATE_THE_CONSTRAINTS,
            "7",
            doc,
            |_w| format!("negative: {} unhandled invalid control(s)", unhandled.len())
        );
        Err(unhandled)
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#interactively-validate-the-constraints>:
    /// statically validate; on a negative result the problems would be reported to the user
    /// (not simulated), and the result is negative.
    fn interactively_validate_the_constraints(&mut self, form: NodeKey) -> bool {
        self.statically_validate_the_constraints(form).is_ok()
    }
}

impl<H: Host> Validation for H {}
