//! The `input` element: its types, value modes, value and checkedness, radio button groups,
//! the type change steps, what its attributes change, and the `value`/`checked` setters
//! script uses (with the other controls' setters).
//!
//! <https://html.spec.whatwg.org/multipage/input.html>

use super::super::dom::attributes::Attributes;
use super::super::dom::tree::Tree;
use super::super::dom::DomError;
use super::super::keys::NodeKey;
use super::super::seam::Upper;
use super::super::{Host, HostState};
use super::microsyntax::{
    best_representation, format_date, format_local_date_time, format_month, format_time,
    format_week, normalize_newlines, parse_date, parse_floating_point_number,
    parse_local_date_time, parse_month, parse_time, parse_week,
};
use super::sanitization::Sanitization;
use super::select::Selects;
use super::textarea::TextAreas;
use super::Control;

/// The states of the `type` attribute.
///
/// <https://html.spec.whatwg.org/multipage/input.html#attr-input-type>
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum InputType {
    Hidden,
    #[default]
    Text,
    Search,
    Tel,
    Url,
    Email,
    Password,
    Date,
    Month,
    Week,
    Time,
    DatetimeLocal,
    Number,
    Range,
    Color,
    Checkbox,
    Radio,
    File,
    Submit,
    Image,
    Reset,
    Button,
}

/// <https://html.spec.whatwg.org/multipage/input.html#dom-input-value>'s modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueMode {
    Value,
    Default,
    DefaultOn,
    Filename,
}

impl InputType {
    pub const ALL: [InputType; 22] = [
        InputType::Hidden,
        InputType::Text,
        InputType::Search,
        InputType::Tel,
        InputType::Url,
        InputType::Email,
        InputType::Password,
        InputType::Date,
        InputType::Month,
        InputType::Week,
        InputType::Time,
        InputType::DatetimeLocal,
        InputType::Number,
        InputType::Range,
        InputType::Color,
        InputType::Checkbox,
        InputType::Radio,
        InputType::File,
        InputType::Submit,
        InputType::Image,
        InputType::Reset,
        InputType::Button,
    ];

    /// The keyword of the state.
    pub fn keyword(self) -> &'static str {
        match self {
            InputType::Hidden => "hidden",
            InputType::Text => "text",
            InputType::Search => "search",
            InputType::Tel => "tel",
            InputType::Url => "url",
            InputType::Email => "email",
            InputType::Password => "password",
            InputType::Date => "date",
            InputType::Month => "month",
            InputType::Week => "week",
            InputType::Time => "time",
            InputType::DatetimeLocal => "datetime-local",
            InputType::Number => "number",
            InputType::Range => "range",
            InputType::Color => "color",
            InputType::Checkbox => "checkbox",
            InputType::Radio => "radio",
            InputType::File => "file",
            InputType::Submit => "submit",
            InputType::Image => "image",
            InputType::Reset => "reset",
            InputType::Button => "button",
        }
    }

    /// The state of a `type` attribute's value: an ASCII case-insensitive keyword; a missing
    /// or invalid value is the Text state.
    pub fn parse(attr: Option<&str>) -> InputType {
        attr.and_then(|v| {
            InputType::ALL
                .into_iter()
                .find(|t| t.keyword().eq_ignore_ascii_case(v))
        })
        .unwrap_or(InputType::Text)
    }

    pub fn value_mode(self) -> ValueMode {
        match self {
            InputType::Hidden
            | InputType::Submit
            | InputType::Image
            | InputType::Reset
            | InputType::Button => ValueMode::Default,
            InputType::Checkbox | InputType::Radio => ValueMode::DefaultOn,
            InputType::File => ValueMode::Filename,
            _ => ValueMode::Value,
        }
    }

    /// Whether the type is one of the text-like types (the text field states).
    pub fn is_textual(self) -> bool {
        matches!(
            self,
            InputType::Text
                | InputType::Search
                | InputType::Tel
                | InputType::Url
                | InputType::Email
                | InputType::Password
        )
    }

    /// Whether the type is one of the date and time types.
    pub fn is_date_time(self) -> bool {
        matches!(
            self,
            InputType::Date
                | InputType::Month
                | InputType::Week
                | InputType::Time
                | InputType::DatetimeLocal
        )
    }

    /// <https://html.spec.whatwg.org/multipage/input.html#attr-input-required> applies.
    pub fn required_applies(self) -> bool {
        self.readonly_applies()
            || matches!(
                self,
                InputType::Checkbox | InputType::Radio | InputType::File
            )
    }

    /// <https://html.spec.whatwg.org/multipage/input.html#attr-input-readonly> applies.
    pub fn readonly_applies(self) -> bool {
        self.is_textual() || self.is_date_time() || self == InputType::Number
    }

    /// `pattern`, `maxlength` and `minlength` apply.
    pub fn pattern_applies(self) -> bool {
        self.is_textual()
    }

    /// <https://html.spec.whatwg.org/multipage/input.html#attr-input-placeholder> applies.
    pub fn placeholder_applies(self) -> bool {
        self.is_textual() || self == InputType::Number
    }

    /// `min`, `max` and `step` apply.
    pub fn has_range(self) -> bool {
        self.is_date_time() || matches!(self, InputType::Number | InputType::Range)
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#field-that-blocks-implicit-submission>
    pub fn blocks_implicit_submission(self) -> bool {
        self.is_textual() || self.is_date_time() || self == InputType::Number
    }

    /// The step scale factor.
    pub fn step_scale(self) -> f64 {
        match self {
            InputType::Date => 86_400_000.0,
            InputType::Week => 604_800_000.0,
            InputType::Time | InputType::DatetimeLocal => 1000.0,
            _ => 1.0,
        }
    }

    /// The default step.
    pub fn default_step(self) -> f64 {
        match self {
            InputType::Time | InputType::DatetimeLocal => 60.0,
            _ => 1.0,
        }
    }

    /// The default step base.
    pub fn default_step_base(self) -> f64 {
        match self {
            InputType::Week => -259_200_000.0,
            _ => 0.0,
        }
    }

    /// The type's "convert a string to a number": days and weeks as milliseconds, months as
    /// months, times as milliseconds, numbers as themselves.
    pub fn string_to_number(self, s: &str) -> Option<f64> {
        match self {
            InputType::Number | InputType::Range => parse_floating_point_number(s),
            InputType::Date => parse_date(s).map(|d| d as f64 * 86_400_000.0),
            InputType::Month => parse_month(s).map(|m| m as f64),
            InputType::Week => parse_week(s).map(|d| d as f64 * 86_400_000.0),
            InputType::Time => parse_time(s),
            InputType::DatetimeLocal => parse_local_date_time(s),
            _ => None,
        }
    }

    /// The type's "convert a number to a string".
    pub fn number_to_string(self, n: f64) -> Option<String> {
        if !n.is_finite() {
            return None;
        }
        match self {
            InputType::Number | InputType::Range => Some(best_representation(n)),
            InputType::Date => format_date((n / 86_400_000.0).floor() as i64),
            InputType::Month => format_month(n.floor() as i64),
            InputType::Week => format_week((n / 86_400_000.0).floor() as i64),
            InputType::Time => Some(format_time(n)),
            InputType::DatetimeLocal => format_local_date_time(n),
            _ => None,
        }
    }
}

/// Reading controls.
impl<U: Upper> HostState<U> {
    /// An `input` element's type state (`None` for any other node).
    pub fn input_type(&self, node: NodeKey) -> Option<InputType> {
        if !self.is_html(node, "input") {
            return None;
        }
        Some(InputType::parse(self.attribute(node, "type")))
    }

    /// The `value` IDL attribute of a control: an `input` by its value mode, a `textarea`'s
    /// API value, a `select`'s first selected option's value, an `option`'s value, a
    /// `button`'s `value` attribute, an `output`'s text; the empty string otherwise.
    pub fn value(&self, node: NodeKey) -> String {
        match self.html_name(node) {
            Some("input") => {
                let t = self.input_type(node).unwrap_or_default();
                match t.value_mode() {
                    ValueMode::Value => self
                        .input_state(node)
                        .map(|s| s.value.clone())
                        .unwrap_or_default(),
                    ValueMode::Default => self.attribute(node, "value").unwrap_or("").into(),
                    ValueMode::DefaultOn => self.attribute(node, "value").unwrap_or("on").into(),
                    // No file is ever selected (see the module documentation).
                    ValueMode::Filename => String::new(),
                }
            }
            Some("textarea") => self.textarea_api_value(node),
            Some("select") => self
                .selected_options(node)
                .first()
                .map(|o| self.option_value(*o))
                .unwrap_or_default(),
            Some("option") => self.option_value(node),
            Some("button") => self.attribute(node, "value").unwrap_or("").into(),
            Some("output") => self.descendant_text_content(node),
            _ => String::new(),
        }
    }

    /// A control's default value: an `input`'s `value` attribute, a `textarea`'s child text
    /// content, an `output`'s default value.
    pub fn default_value(&self, node: NodeKey) -> String {
        match self.html_name(node) {
            Some("input") => self.attribute(node, "value").unwrap_or("").into(),
            Some("textarea") => self.child_text_content(node),
            Some("output") => self.output_default_value(node),
            _ => String::new(),
        }
    }

    /// An `input`'s checkedness.
    pub fn checkedness(&self, node: NodeKey) -> bool {
        self.input_state(node).is_some_and(|s| s.checkedness)
    }

    /// An `input`'s `indeterminate` IDL attribute.
    pub fn indeterminate(&self, node: NodeKey) -> bool {
        self.input_state(node).is_some_and(|s| s.indeterminate)
    }

    /// Whether the control's value is dirty (changed by the user or by script since its
    /// last reset).
    pub fn dirty_value(&self, node: NodeKey) -> bool {
        match &self.element(node).map(|e| &e.control) {
            Some(Control::Input(s)) => s.dirty_value,
            Some(Control::TextArea(s)) => s.dirty_value,
            _ => false,
        }
    }

    /// <https://html.spec.whatwg.org/multipage/input.html#radio-button-group>: the radio
    /// buttons in `node`'s group (itself included), in tree order.
    pub fn radio_group(&self, node: NodeKey) -> Vec<NodeKey> {
        if self.input_type(node) != Some(InputType::Radio) {
            return Vec::new();
        }
        let Some(name) = self.attribute(node, "name").filter(|n| !n.is_empty()) else {
            return vec![node];
        };
        let owner = self.form_owner(node);
        self.elements_of_tree(node)
            .into_iter()
            .filter(|e| {
                *e == node
                    || (self.input_type(*e) == Some(InputType::Radio)
                        && self.form_owner(*e) == owner
                        && self.attribute(*e, "name") == Some(name))
            })
            .collect()
    }

    /// `valueAsNumber`: the value converted by the type's algorithm (NaN where none applies
    /// or the value does not convert).
    pub fn value_as_number(&self, node: NodeKey) -> f64 {
        let Some(t) = self.input_type(node) else {
            return f64::NAN;
        };
        t.string_to_number(&self.value(node)).unwrap_or(f64::NAN)
    }
}

/// Changing controls as script does, and the `input` element's own steps.
pub trait Controls: Host {
    /// Sets a control's `value` IDL attribute, as script does.
    ///
    /// <https://html.spec.whatwg.org/multipage/input.html#dom-input-value>, and the
    /// `textarea`, `select`, `option`, `button` and `output` setters.
    fn set_value(&mut self, node: NodeKey, value: &str) -> Result<(), DomError> {
        match self.html_name(node) {
            Some("input") => {
                let t = self.input_type(node).unwrap_or_default();
                match t.value_mode() {
                    // value: 1-4. The old value; the new one, dirty, sanitized.
                    ValueMode::Value => {
                        if let Some(Control::Input(s)) = self.control_mut(node) {
                            s.value = value.into();
                            s.dirty_value = true;
                            s.edited_by_user = false;
                            s.bad_input = false;
                        }
                        self.sanitize_value(node);
                    }
                    // default, default/on: the `value` content attribute.
                    ValueMode::Default | ValueMode::DefaultOn => {
                        self.set_attribute(node, "value", value)?;
                    }
                    // filename: only the empty string (it empties the selected files).
                    ValueMode::Filename => {
                        if !value.is_empty() {
                            return Err(DomError::InvalidState(
                                "a file input's value can only be set to the empty string".into(),
                            ));
                        }
                    }
                }
            }
            Some("textarea") => self.set_textarea_value(node, value),
            Some("select") => self.set_select_value(node, value),
            Some("option") | Some("button") => self.set_attribute(node, "value", value)?,
            Some("output") => self.set_output_value(node, value),
            _ => {}
        }
        Ok(())
    }

    /// `defaultValue = value`: the `value` attribute, a `textarea`'s or `output`'s text.
    fn set_default_value(&mut self, node: NodeKey, value: &str) -> Result<(), DomError> {
        match self.html_name(node) {
            Some("textarea") => self.set_text_content(node, value),
            Some("output") => self.set_output_default_value(node, value),
            _ => self.set_attribute(node, "value", value)?,
        }
        Ok(())
    }

    /// `checked = value`: the checkedness, made dirty.
    ///
    /// <https://html.spec.whatwg.org/multipage/input.html#dom-input-checked>
    fn set_checked(&mut self, node: NodeKey, checked: bool) {
        self.set_checkedness(node, checked, true);
    }

    /// Sets an `input`'s checkedness (and, when `dirty`, its dirty checkedness flag); a
    /// radio button checked unchecks the rest of its group.
    fn set_checkedness(&mut self, node: NodeKey, checked: bool, dirty: bool) {
        if let Some(Control::Input(s)) = self.control_mut(node) {
            s.checkedness = checked;
            if dirty {
                s.dirty_checkedness = true;
            }
        }
        if checked {
            self.radio_group_rule(node);
        }
    }

    /// `indeterminate = value`.
    fn set_indeterminate(&mut self, node: NodeKey, on: bool) {
        if let Some(Control::Input(s)) = self.control_mut(node) {
            s.indeterminate = on;
        }
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#dom-cva-setcustomvalidity>
    fn set_custom_validity(&mut self, node: NodeKey, message: &str) {
        // 1-2. Newlines normalized, the message kept.
        let message = normalize_newlines(message);
        if let Some(a) = self.association_mut(node) {
            a.custom_validity = message;
        }
    }

    /// The rule of <https://html.spec.whatwg.org/multipage/input.html#radio-button-state-(type=radio)>:
    /// whenever a radio button is checked (its checkedness set to true, its name or form
    /// owner changed, its type changed, or it became connected), the other radio buttons of
    /// its group are unchecked.
    fn radio_group_rule(&mut self, node: NodeKey) {
        if self.input_type(node) != Some(InputType::Radio) || !self.checkedness(node) {
            return;
        }
        for other in self.radio_group(node) {
            if other != node && self.checkedness(other) {
                if let Some(Control::Input(s)) = self.control_mut(other) {
                    s.checkedness = false;
                }
            }
        }
    }

    /// What an `input`'s attributes change.
    fn input_attribute_changed(
        &mut self,
        node: NodeKey,
        name: &str,
        old: Option<&str>,
        value: Option<&str>,
    ) {
        match name {
            "type" => self.type_change_steps(node),
            // The value content attribute sets a clean control's value.
            "value" => {
                let t = self.input_type(node).unwrap_or_default();
                if t.value_mode() == ValueMode::Value && !self.dirty_value(node) {
                    let v = value.unwrap_or("").to_string();
                    if let Some(Control::Input(s)) = self.control_mut(node) {
                        s.value = v;
                    }
                    self.sanitize_value(node);
                }
            }
            // The checked content attribute added or removed sets a clean control's
            // checkedness.
            "checked" => {
                let dirty = self.input_state(node).is_some_and(|s| s.dirty_checkedness);
                if !dirty && old.is_none() != value.is_none() {
                    self.set_checkedness(node, value.is_some(), false);
                }
            }
            "name" => self.radio_group_rule(node),
            "multiple" => self.sanitize_value(node),
            // Chromium and Gecko derive a clean control's value from its `value` attribute
            // whenever the attributes it is sanitized by change (so `<input type=range
            // value=150 max=200>` is 150 whatever the attributes' order); HTML's text reads as
            // if sanitization ran only when the value was set. The engine follows the
            // browsers.
            "min" | "max" | "step" => {
                let t = self.input_type(node).unwrap_or_default();
                if t.value_mode() == ValueMode::Value && !self.dirty_value(node) {
                    let v = self.attribute(node, "value").unwrap_or("").to_string();
                    if let Some(Control::Input(s)) = self.control_mut(node) {
                        s.value = v;
                    }
                }
                self.sanitize_value(node);
            }
            _ => {}
        }
    }

    /// <https://html.spec.whatwg.org/multipage/input.html#input-type-change>
    fn type_change_steps(&mut self, node: NodeKey) {
        let new = self.input_type(node).unwrap_or_default();
        let Some(previous) = self.input_state(node).map(|s| s.input_type) else {
            return;
        };
        if previous == new {
            return;
        }
        if let Some(Control::Input(s)) = self.control_mut(node) {
            s.input_type = new;
        }
        let (old_mode, new_mode) = (previous.value_mode(), new.value_mode());
        let value = self
            .input_state(node)
            .map(|s| s.value.clone())
            .unwrap_or_default();
        if old_mode == ValueMode::Value
            && !value.is_empty()
            && matches!(new_mode, ValueMode::Default | ValueMode::DefaultOn)
        {
            // 1. A value carried into a mode that shows the attribute becomes the attribute.
            let _ = self.set_attribute(node, "value", &value);
        } else if old_mode != ValueMode::Value && new_mode == ValueMode::Value {
            // 2. Into the value mode: the value from the attribute, clean.
            let v = self.attribute(node, "value").unwrap_or("").to_string();
            if let Some(Control::Input(s)) = self.control_mut(node) {
                s.value = v;
                s.dirty_value = false;
            }
        } else if old_mode != ValueMode::Filename && new_mode == ValueMode::Filename {
            // 3. Into the filename mode: no value.
            if let Some(Control::Input(s)) = self.control_mut(node) {
                s.value = String::new();
            }
        }
        // 5. Signal a type change (a radio button's group).
        self.radio_group_rule(node);
        // 6. The new type's value sanitization algorithm.
        self.sanitize_value(node);
    }

    /// <https://html.spec.whatwg.org/multipage/input.html#dom-input-valueasnumber> (setting).
    fn set_value_as_number(&mut self, node: NodeKey, n: f64) -> Result<(), DomError> {
        let Some(t) = self.input_type(node) else {
            return Ok(());
        };
        // 1. Not finite: a TypeError.
        if !n.is_finite() {
            return Err(DomError::Type("the number is not finite".into()));
        }
        // 2. A type without numbers: an InvalidStateError.
        if !t.has_range() {
            return Err(DomError::InvalidState(format!(
                "valueAsNumber does not apply to type={}",
                t.keyword()
            )));
        }
        // 3. Otherwise the value is the number converted.
        let s = t.number_to_string(n).unwrap_or_default();
        self.set_value(node, &s)
    }
}

impl<H: Host> Controls for H {}
