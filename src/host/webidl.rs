//! Web IDL's conversions of JavaScript values, as the engine's methods take their arguments.
//!
//! <https://webidl.spec.whatwg.org/#js-type-mapping>

use super::keys::SignalKey;
use super::value::{number_to_js_string, ErrorValue, Value};

/// Web IDL's conversion of a value to `DOMString` (ToString).
pub fn to_idl_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => number_to_js_string(n.0),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        Value::Undefined => "undefined".into(),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::Undefined | Value::Null => String::new(),
                other => to_idl_string(other),
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Error(e) if e.message.is_empty() => e.name.clone(),
        Value::Error(e) => format!("{}: {}", e.name, e.message),
        Value::Promise(_) => "[object Promise]".into(),
        Value::Window(..) => v.to_js_string(),
        Value::Object(m) if m.class().is_some() => v.to_js_string(),
        _ => "[object Object]".into(),
    }
}

/// Web IDL's conversion of a value to `USVString`: ToString, then each lone surrogate replaced
/// by U+FFFD.
pub fn to_usv_string(v: &Value) -> String {
    let s = to_idl_string(v);
    match crate::text::js_string::to_scalar_values(&s) {
        std::borrow::Cow::Borrowed(_) => s,
        std::borrow::Cow::Owned(fixed) => fixed,
    }
}

/// A dictionary member: absent and `undefined` are the same.
pub fn member<'a>(dict: &'a Value, key: &str) -> Option<&'a Value> {
    dict.get(key).filter(|v| **v != Value::Undefined)
}

/// Checks that a value can be converted to a dictionary at all.
pub fn dictionary_value<'a>(
    v: &'a Value,
    type_name: &str,
) -> Result<Option<&'a Value>, ErrorValue> {
    match v {
        Value::Undefined | Value::Null => Ok(None),
        Value::Object(_) => Ok(Some(v)),
        other if other.is_object() => Ok(Some(v)),
        _ => Err(ErrorValue::type_error(format!(
            "the value given for {type_name} is not an object"
        ))),
    }
}

pub fn required_string(
    dict: Option<&Value>,
    key: &str,
    type_name: &str,
) -> Result<String, ErrorValue> {
    dict.and_then(|d| member(d, key))
        .map(to_idl_string)
        .ok_or_else(|| {
            ErrorValue::type_error(format!(
                "Failed to read the '{key}' property from '{type_name}': Required member is undefined."
            ))
        })
}

/// ECMAScript's ToBoolean.
pub fn to_boolean(v: &Value) -> bool {
    match v {
        Value::Undefined | Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => !(n.0 == 0.0 || n.0.is_nan()),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

/// A dictionary's `signal` member, converted to an `AbortSignal`.
pub fn convert_signal(
    dict: Option<&Value>,
    type_name: &str,
) -> Result<Option<SignalKey>, ErrorValue> {
    match dict.and_then(|d| member(d, "signal")) {
        None => Ok(None),
        Some(Value::Signal(s)) => Ok(Some(*s)),
        Some(_) => Err(ErrorValue::type_error(format!(
            "Failed to read the 'signal' property from '{type_name}': Failed to convert value to 'AbortSignal'."
        ))),
    }
}
