//! The value sanitization algorithm of each `input` type, and the range and step limits the
//! numeric and date types read (`min`, `max`, `step`, the step base).
//!
//! <https://html.spec.whatwg.org/multipage/input.html#value-sanitization-algorithm>,
//! <https://html.spec.whatwg.org/multipage/input.html#attr-input-min>,
//! <https://html.spec.whatwg.org/multipage/input.html#attr-input-step>

use super::super::keys::NodeKey;
use super::super::seam::Upper;
use super::super::{Host, HostState};
use super::input::InputType;
use super::microsyntax::{
    best_representation, format_local_date_time, is_valid_floating_point_number,
    is_valid_simple_color, parse_date, parse_floating_point_number, parse_local_date_time,
    parse_month, parse_time, parse_week, strip_ascii_whitespace, strip_newlines,
};
use super::Control;

/// The value a type's sanitization algorithm gives `value` (before a range's clamping).
pub fn sanitized(
    t: InputType,
    value: &str,
    multiple: bool,
    range_default: impl Fn() -> String,
) -> String {
    match t {
        // Text, Search, Telephone, Password: newlines stripped.
        InputType::Text | InputType::Search | InputType::Tel | InputType::Password => {
            strip_newlines(value)
        }
        // URL: newlines and surrounding whitespace stripped.
        InputType::Url => strip_ascii_whitespace(&strip_newlines(value)).to_string(),
        // E-mail: one address, newlines and surrounding whitespace stripped; with
        // `multiple`, each comma-separated address stripped of surrounding whitespace.
        InputType::Email if multiple => value
            .split(',')
            .map(strip_ascii_whitespace)
            .collect::<Vec<_>>()
            .join(","),
        InputType::Email => strip_ascii_whitespace(&strip_newlines(value)).to_string(),
        // Number: a valid floating-point number, else the empty string.
        InputType::Number => {
            if is_valid_floating_point_number(value) {
                value.into()
            } else {
                String::new()
            }
        }
        // Range: a valid floating-point number, else the default value.
        InputType::Range => {
            if is_valid_floating_point_number(value) {
                value.into()
            } else {
                range_default()
            }
        }
        // Date, Month, Week, Time: a valid string of the type, else the empty string.
        InputType::Date if parse_date(value).is_some() => value.into(),
        InputType::Month if parse_month(value).is_some() => value.into(),
        InputType::Week if parse_week(value).is_some() => value.into(),
        InputType::Time if parse_time(value).is_some() => value.into(),
        InputType::Date | InputType::Month | InputType::Week | InputType::Time => String::new(),
        // Local date and time: normalized, else the empty string.
        InputType::DatetimeLocal => parse_local_date_time(value)
            .and_then(format_local_date_time)
            .unwrap_or_default(),
        // Color: a valid simple color, lowercased, else black. (HTML now also reads CSS
        // colors with the `alpha` and `colorspace` attributes; Chromium 156 reads simple
        // colors only, and so does the engine.)
        InputType::Color => {
            if is_valid_simple_color(value) {
                value.to_ascii_lowercase()
            } else {
                "#000000".into()
            }
        }
        _ => value.into(),
    }
}

/// Range and step limits.
impl<U: Upper> HostState<U> {
    /// <https://html.spec.whatwg.org/multipage/input.html#concept-input-min>: the `min`
    /// attribute converted by the type (a range's default is 0).
    pub fn minimum(&self, node: NodeKey) -> Option<f64> {
        let t = self.input_type(node)?;
        if !t.has_range() {
            return None;
        }
        let parsed = self
            .attribute(node, "min")
            .and_then(|v| self.limit_of(t, v));
        match t {
            InputType::Range => Some(parsed.unwrap_or(0.0)),
            _ => parsed,
        }
    }

    /// <https://html.spec.whatwg.org/multipage/input.html#concept-input-max>: the `max`
    /// attribute converted by the type (a range's default is 100).
    pub fn maximum(&self, node: NodeKey) -> Option<f64> {
        let t = self.input_type(node)?;
        if !t.has_range() {
            return None;
        }
        let parsed = self
            .attribute(node, "max")
            .and_then(|v| self.limit_of(t, v));
        match t {
            InputType::Range => Some(parsed.unwrap_or(100.0)),
            _ => parsed,
        }
    }

    fn limit_of(&self, t: InputType, v: &str) -> Option<f64> {
        match t {
            InputType::Number | InputType::Range => parse_floating_point_number(v),
            _ => t.string_to_number(v),
        }
    }

    /// <https://html.spec.whatwg.org/multipage/input.html#concept-input-step>: `None` when
    /// `step="any"` (or the type has no step).
    pub fn allowed_value_step(&self, node: NodeKey) -> Option<f64> {
        let t = self.input_type(node)?;
        if !t.has_range() {
            return None;
        }
        let default = t.default_step() * t.step_scale();
        let Some(attr) = self.attribute(node, "step") else {
            return Some(default);
        };
        if attr.eq_ignore_ascii_case("any") {
            return None;
        }
        match parse_floating_point_number(attr) {
            Some(step) if step > 0.0 => {
                // Chromium rounds the step of the date, month and week types to a whole
                // number of days, months or weeks (at least one); HTML's text does not say.
                let step = if matches!(t, InputType::Date | InputType::Month | InputType::Week) {
                    step.round().max(1.0)
                } else {
                    step
                };
                Some(step * t.step_scale())
            }
            _ => Some(default),
        }
    }

    /// <https://html.spec.whatwg.org/multipage/input.html#concept-input-min-zero>: the
    /// minimum, else the `value` attribute converted, else the type's default step base.
    pub fn step_base(&self, node: NodeKey) -> f64 {
        let Some(t) = self.input_type(node) else {
            return 0.0;
        };
        if let Some(min) = self
            .attribute(node, "min")
            .and_then(|v| self.limit_of(t, v))
        {
            return min;
        }
        if let Some(v) = self
            .attribute(node, "value")
            .and_then(|v| self.limit_of(t, v))
        {
            return v;
        }
        t.default_step_base()
    }

    /// <https://html.spec.whatwg.org/multipage/input.html#range-state-(type=range)>'s default
    /// value.
    fn range_default_value(&self, node: NodeKey) -> f64 {
        let (min, max) = (
            self.minimum(node).unwrap_or(0.0),
            self.maximum(node).unwrap_or(100.0),
        );
        if max < min {
            min
        } else {
            min + (max - min) / 2.0
        }
    }

    /// Whether `value` is off the step (`(value - base) / step` not an integer, within the
    /// rounding a double allows).
    pub fn off_step(&self, node: NodeKey, value: f64) -> bool {
        let Some(step) = self.allowed_value_step(node) else {
            return false;
        };
        let q = (value - self.step_base(node)) / step;
        (q - q.round()).abs() > 1e-9 * q.abs().max(1.0)
    }
}

/// Running the sanitization algorithm on a control.
pub trait Sanitization: Host {
    /// Runs the value sanitization algorithm of the `input`'s type on its value; a range's
    /// value is then clamped to its minimum and maximum and rounded to its step.
    fn sanitize_value(&mut self, node: NodeKey) {
        let Some(t) = self.input_type(node) else {
            return;
        };
        if t.value_mode() != super::input::ValueMode::Value {
            return;
        }
        let Some(current) = self.input_state(node).map(|s| s.value.clone()) else {
            return;
        };
        let multiple = self.has_attribute(node, "multiple");
        let mut value = sanitized(t, &current, multiple, || {
            best_representation(self.range_default_value(node))
        });
        if t == InputType::Range {
            value = self.clamp_range(node, &value);
        }
        if value != current {
            if let Some(Control::Input(s)) = self.control_mut(node) {
                s.value = value;
            }
        }
    }

    /// <https://html.spec.whatwg.org/multipage/input.html#range-state-(type=range)>: an
    /// underflow becomes the minimum, an overflow the maximum (unless the maximum is below
    /// the minimum), a step mismatch the nearest value on the step within them (the one
    /// nearer positive infinity on a tie).
    fn clamp_range(&self, node: NodeKey, value: &str) -> String {
        let Some(mut v) = parse_floating_point_number(value) else {
            return value.into();
        };
        let original = v;
        let (min, max) = (
            self.minimum(node).unwrap_or(0.0),
            self.maximum(node).unwrap_or(100.0),
        );
        if v < min {
            v = min;
        }
        if v > max && max >= min {
            v = max;
        }
        if let Some(step) = self.allowed_value_step(node) {
            let base = self.step_base(node);
            if self.off_step(node, v) {
                let q = (v - base) / step;
                let mut candidate = tidy(base + (q + 0.5).floor() * step);
                if candidate > max && max >= min {
                    candidate = tidy(base + q.floor() * step);
                }
                if candidate < min {
                    candidate = tidy(base + q.ceil() * step);
                }
                if candidate >= min && (max < min || candidate <= max) {
                    v = candidate;
                }
            }
        }
        // A value that needed no change keeps its spelling (`5e1` stays `5e1`).
        if v == original {
            value.into()
        } else {
            best_representation(v)
        }
    }
}

/// A step computation rounded to 15 significant digits, so that `0.1 * 3` reads `0.3`.
fn tidy(x: f64) -> f64 {
    format!("{x:.14e}").parse().unwrap_or(x)
}

impl<H: Host> Sanitization for H {}
