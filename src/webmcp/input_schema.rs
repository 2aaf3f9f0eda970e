//! Input schemas: `registerTool()`'s check that a tool's `inputSchema` stays inside the subset
//! of JSON Schema the engine supports, and `executeTool()`'s validation of an input against it.
//!
//! The spec does not define either yet. WPT's two `.tentative` tests describe what Chromium
//! does: `webmcp/imperative/register_tool_invalid_subset_schema.tentative.https.html` (a schema
//! outside the subset rejects `registerTool()` with a `TypeError`) and
//! `webmcp/imperative/executeTool-input-validation.tentative.https.html` (an input that fails
//! the schema rejects `executeTool()` with a `DataError` whose message is the JSON
//! `{"path", "reason", "schemaPath"}`, and the tool's `execute` is not called). Everything those
//! tests leave open is the engine's choice, and is written down here.
//!
//! # The supported subset (the engine's choice)
//!
//! A schema is a JSON object or a boolean (`true` accepts everything, `false` nothing), as in
//! JSON Schema 2020-12. Every keyword of an object schema is in one of four groups.
//!
//! **Assertions and applicators the engine implements**, with the value each must have:
//!
//! | keyword | value |
//! |---|---|
//! | `type` | a type name, or a non-empty array of distinct type names; the names are `object`, `array`, `string`, `number`, `integer`, `boolean`, `null` |
//! | `enum` | an array |
//! | `const` | any value |
//! | `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` | a number |
//! | `multipleOf` | a number greater than 0 |
//! | `minLength`, `maxLength`, `minItems`, `maxItems`, `minProperties`, `maxProperties` | a non-negative integer (`5.0` counts) |
//! | `pattern` | a string that is a valid regular expression (see [Regular expressions](#regular-expressions)) |
//! | `uniqueItems` | a boolean |
//! | `required` | an array of distinct strings |
//! | `properties` | an object whose values are schemas |
//! | `prefixItems` | a non-empty array of schemas |
//! | `items` | a schema (the array form of earlier drafts is rejected: it is `prefixItems` now) |
//! | `additionalProperties` | exactly `false` (the members `properties` does not name are rejected) |
//!
//! **Annotations**, accepted and ignored by validation: `title`, `description`, `$comment` and
//! `$schema` (strings), `default` (any value), `examples` (an array), `deprecated`, `readOnly`
//! and `writeOnly` (booleans). `$schema` is not checked against a dialect URI.
//!
//! **Excluded JSON Schema keywords**: a schema that uses one anywhere is rejected, because
//! ignoring it would accept inputs its author meant to reject (or, for the references,
//! identifiers and definitions, because the engine resolves no references).
//!
//! - references and identifiers: `$ref`, `$dynamicRef`, `$defs`, `$id`, `$anchor`,
//!   `$dynamicAnchor`, `$vocabulary`;
//! - combinators and conditionals: `allOf`, `anyOf`, `oneOf`, `not`, `if`, `then`, `else`;
//! - other applicators: `patternProperties`, `propertyNames`, `dependentSchemas`, `contains`,
//!   `unevaluatedProperties`, `unevaluatedItems`;
//! - other assertions: `dependentRequired`, `minContains`, `maxContains`, `format`;
//! - content: `contentEncoding`, `contentMediaType`, `contentSchema`;
//! - keywords of earlier drafts whose meaning would otherwise be silently lost:
//!   `definitions`, `dependencies`, `additionalItems`, `$recursiveRef`, `$recursiveAnchor`.
//!
//! `additionalProperties` with any value but `false` (`true`, or a schema) is rejected too.
//!
//! **Any other key** (one no JSON Schema draft defines, such as `x-widget`) is an unknown
//! keyword: 2020-12 treats those as annotations, and so does the engine. It is accepted, its
//! value is not looked at, and nothing inside it is treated as a schema.
//!
//! [`check_supported_subset`] checks every schema of the document: the root, the values of
//! `properties`, the elements of `prefixItems` and the value of `items`, depth-first, each
//! object's keywords in their order in the document. It reports the first keyword that is out
//! of the subset or has a value of the wrong shape.
//!
//! # Validation
//!
//! [`validate`] is the 2020-12 meaning of the keywords above. The choices it makes:
//!
//! - `integer` is a number with no fractional part: `5` and `5.0` are integers, `5.5` is not.
//! - Numbers are compared as IEEE doubles (what a JS number is). `multipleOf` is exact when the
//!   number and the divisor are both integers; otherwise the quotient must be a finite whole
//!   double, so `0.3` is not a multiple of `0.1` (as in JS, `0.3 / 0.1` is `2.9999999999999996`).
//! - `minLength` and `maxLength` count Unicode code points, as JSON Schema says (not the UTF-16
//!   code units of a JS string's `length`).
//! - `enum`, `const` and `uniqueItems` compare with JSON Schema's equality: numbers by value
//!   (`1` equals `1.0`), objects whatever the order of their members.
//!
//! Only the first violation is reported, found in this order: depth-first, and within one
//! schema its keywords in this fixed order (not the order of the document):
//!
//! 1. `false` (a boolean schema that rejects everything);
//! 2. `type`, `const`, `enum`;
//! 3. for a number: `minimum`, `exclusiveMinimum`, `maximum`, `exclusiveMaximum`, `multipleOf`;
//! 4. for a string: `minLength`, `maxLength`, `pattern`;
//! 5. for an array: `minItems`, `maxItems`, `uniqueItems`, then the elements in index order,
//!    each against its `prefixItems` schema or, past those, the `items` schema;
//! 6. for an object: `minProperties`, `maxProperties`, `required` (in the order of its array),
//!    `properties` (the members present, in the order `properties` lists them), then
//!    `additionalProperties` (the members it rejects, in the input's member order).
//!
//! An [`InputViolation`]'s `path` is the JSON pointer (RFC 6901) of the value that failed:
//! the input itself is `""`; a missing required member, a member `additionalProperties`
//! rejects and the later of two equal array elements (`uniqueItems`) are pointed at
//! themselves (`"/field"`, `"/tags/1"`). Its `reason` is the keyword that failed, and its
//! `schema_path` is `"/"` followed by that keyword, relative to the schema that holds it (as
//! the WPT test expects: `"/enum"`, not `"/properties/color/enum"`). When the failing schema is
//! a boolean `false`, the keyword is the one that applied it (`properties`, `prefixItems` or
//! `items`); a root schema of `false` reports the reason `"false"` and the schema path `""`.
//!
//! # Regular expressions
//!
//! `pattern` is an ECMA-262 regular expression, searched for anywhere in the string (not
//! anchored); the host reads and compiles it ([`crate::host::regexp`], which says how).

use serde_json::{Map, Number, Value};

use crate::host::regexp::compile_pattern;
use thiserror::Error;

/// Why a schema is outside the supported subset: `registerTool()` rejects with a `TypeError`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("inputSchema{path}: {message}")]
pub struct SubsetError {
    /// The JSON pointer (RFC 6901) into the schema of the offending keyword (`""` when the
    /// schema itself is not a schema).
    pub path: String,
    pub message: String,
}

/// The first way an input fails its tool's schema: `executeTool()` rejects with a `DataError`
/// whose message is [`InputViolation::to_message`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Error)]
#[error("{}", self.to_message())]
pub struct InputViolation {
    /// The JSON pointer into the input of the value that failed (`""` for the input itself).
    pub path: String,
    /// The keyword that failed: `required`, `type`, `enum`, `pattern`, `minimum`, ...
    pub reason: String,
    /// `"/"` followed by the keyword, relative to the schema that holds it.
    pub schema_path: String,
}

impl InputViolation {
    /// The `DataError`'s message: `{"path":...,"reason":...,"schemaPath":...}`.
    pub fn to_message(&self) -> String {
        serde_json::json!({
            "path": self.path,
            "reason": self.reason,
            "schemaPath": self.schema_path,
        })
        .to_string()
    }
}

/// The JSON Schema keywords (of 2020-12 or an earlier draft) the engine does not implement.
pub const EXCLUDED: &[&str] = &[
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$defs",
    "definitions",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$vocabulary",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "propertyNames",
    "dependentSchemas",
    "dependencies",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "dependentRequired",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// The names `type` accepts.
const TYPE_NAMES: &[&str] = &[
    "object", "array", "string", "number", "integer", "boolean", "null",
];

/// `registerTool()`'s meta-validation: whether `schema` is inside the supported subset (see the
/// [module documentation](self)).
///
/// # Errors
///
/// The first offending keyword, depth-first in document order: one outside the subset, one
/// whose value has the wrong shape, or a value that is not a schema where a schema belongs.
/// `registerTool()` rejects with a `TypeError`.
pub fn check_supported_subset(schema: &Value) -> Result<(), SubsetError> {
    check_schema(schema, "")
}

fn subset_error(path: &str, message: impl Into<String>) -> SubsetError {
    SubsetError {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// RFC 6901: one reference token.
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn check_schema(schema: &Value, at: &str) -> Result<(), SubsetError> {
    let object = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(object) => object,
        _ => return Err(subset_error(at, "a schema must be an object or a boolean")),
    };
    for (keyword, value) in object {
        let path = format!("{at}/{}", escape_token(keyword));
        check_keyword(keyword, value, &path)?;
    }
    Ok(())
}

fn check_keyword(keyword: &str, value: &Value, at: &str) -> Result<(), SubsetError> {
    let shape = |ok: bool, what: &str| {
        if ok {
            Ok(())
        } else {
            Err(subset_error(at, format!("`{keyword}` must be {what}")))
        }
    };
    match keyword {
        "type" => match value {
            Value::String(name) => check_type_name(name, at),
            Value::Array(names) if !names.is_empty() => {
                for (i, name) in names.iter().enumerate() {
                    let path = format!("{at}/{i}");
                    let Value::String(name) = name else {
                        return Err(subset_error(&path, "a type name must be a string"));
                    };
                    check_type_name(name, &path)?;
                    if names[..i].iter().any(|earlier| earlier.as_str() == Some(name)) {
                        return Err(subset_error(&path, format!("type `{name}` is listed twice")));
                    }
                }
                Ok(())
            }
            _ => shape(false, "a type name or a non-empty array of type names"),
        },
        "enum" | "examples" => shape(value.is_array(), "an array"),
        "const" | "default" => Ok(()),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
            shape(value.is_number(), "a number")
        }
        "multipleOf" => shape(
            value.as_f64().is_some_and(|m| m > 0.0),
            "a number greater than 0",
        ),
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" => {
            shape(non_negative_integer(value).is_some(), "a non-negative integer")
        }
        "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => {
            shape(value.is_boolean(), "a boolean")
        }
        "title" | "description" | "$comment" | "$schema" => shape(value.is_string(), "a string"),
        "pattern" => match value {
            Value::String(pattern) => compile_pattern(pattern).map(|_| ()).map_err(|why| {
                subset_error(at, format!("`pattern` is not a valid regular expression: {why}"))
            }),
            _ => shape(false, "a string"),
        },
        "required" => {
            let Value::Array(names) = value else {
                return shape(false, "an array of strings");
            };
            for (i, name) in names.iter().enumerate() {
                let path = format!("{at}/{i}");
                let Value::String(name) = name else {
                    return Err(subset_error(&path, "a required member's name must be a string"));
                };
                if names[..i].iter().any(|earlier| earlier.as_str() == Some(name)) {
                    return Err(subset_error(&path, format!("`{name}` is required twice")));
                }
            }
            Ok(())
        }
        "properties" => {
            let Value::Object(properties) = value else {
                return shape(false, "an object whose values are schemas");
            };
            for (name, subschema) in properties {
                check_schema(subschema, &format!("{at}/{}", escape_token(name)))?;
            }
            Ok(())
        }
        "prefixItems" => match value {
            Value::Array(schemas) if !schemas.is_empty() => {
                for (i, subschema) in schemas.iter().enumerate() {
                    check_schema(subschema, &format!("{at}/{i}"))?;
                }
                Ok(())
            }
            _ => shape(false, "a non-empty array of schemas"),
        },
        "items" => match value {
            Value::Array(_) => Err(subset_error(
                at,
                "`items` must be a schema (an array of schemas is `prefixItems` in JSON Schema 2020-12)",
            )),
            _ => check_schema(value, at),
        },
        "additionalProperties" => shape(
            *value == Value::Bool(false),
            "false (the only value in the supported subset)",
        ),
        _ if EXCLUDED.contains(&keyword) => Err(subset_error(
            at,
            format!("`{keyword}` is not in the supported subset of JSON Schema"),
        )),
        // An unknown keyword: an annotation.
        _ => Ok(()),
    }
}

fn check_type_name(name: &str, at: &str) -> Result<(), SubsetError> {
    if TYPE_NAMES.contains(&name) {
        Ok(())
    } else {
        Err(subset_error(at, format!("`{name}` is not a type name")))
    }
}

/// A non-negative integer, `5.0` included (JSON Schema's integers are mathematical).
fn non_negative_integer(value: &Value) -> Option<u64> {
    let Value::Number(n) = value else { return None };
    if let Some(u) = n.as_u64() {
        return Some(u);
    }
    let f = n.as_f64()?;
    // `as` saturates: a count past u64::MAX is as good as u64::MAX.
    (f.is_finite() && f >= 0.0 && f.fract() == 0.0).then_some(f as u64)
}

/// `executeTool()`'s validation of `input` against `schema`, which [`check_supported_subset`]
/// accepted.
///
/// # Errors
///
/// The first violation, in the order the [module documentation](self) gives; `executeTool()`
/// rejects with a `DataError` whose message is [`InputViolation::to_message`], and does not
/// run the tool.
///
/// On a schema the check did not accept, keywords outside the subset and keywords with values
/// of the wrong shape are ignored, and a `pattern` that does not compile fails every string.
pub fn validate(schema: &Value, input: &Value) -> Result<(), InputViolation> {
    if *schema == Value::Bool(false) {
        return Err(InputViolation {
            path: String::new(),
            reason: "false".into(),
            schema_path: String::new(),
        });
    }
    validate_at(schema, input, "", "")
}

fn violation(path: &str, keyword: &str) -> InputViolation {
    InputViolation {
        path: path.to_owned(),
        reason: keyword.to_owned(),
        schema_path: format!("/{keyword}"),
    }
}

/// `via` is the keyword of the parent schema that applied this one (for a `false` schema).
fn validate_at(
    schema: &Value,
    instance: &Value,
    path: &str,
    via: &str,
) -> Result<(), InputViolation> {
    let schema = match schema {
        Value::Object(schema) => schema,
        Value::Bool(false) => return Err(violation(path, via)),
        _ => return Ok(()),
    };
    let fail = |keyword: &str| Err(violation(path, keyword));

    match schema.get("type") {
        Some(Value::String(name)) if !has_type(instance, name) => return fail("type"),
        Some(Value::Array(names))
            if !names
                .iter()
                .any(|n| n.as_str().is_some_and(|n| has_type(instance, n))) =>
        {
            return fail("type")
        }
        _ => {}
    }
    if let Some(constant) = schema.get("const") {
        if !json_equal(constant, instance) {
            return fail("const");
        }
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        if !values.iter().any(|v| json_equal(v, instance)) {
            return fail("enum");
        }
    }

    match instance {
        Value::Number(n) => validate_number(schema, n, path),
        Value::String(s) => validate_string(schema, s, path),
        Value::Array(items) => validate_array(schema, items, path),
        Value::Object(members) => validate_object(schema, members, path),
        Value::Null | Value::Bool(_) => Ok(()),
    }
}

fn has_type(instance: &Value, name: &str) -> bool {
    match name {
        "object" => instance.is_object(),
        "array" => instance.is_array(),
        "string" => instance.is_string(),
        "number" => instance.is_number(),
        "integer" => matches!(instance, Value::Number(n) if is_integer(n)),
        "boolean" => instance.is_boolean(),
        "null" => instance.is_null(),
        _ => false,
    }
}

fn is_integer(n: &Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// The number as an exact integer, when serde_json holds it as one.
fn exact_integer(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

fn validate_number(
    schema: &Map<String, Value>,
    n: &Number,
    path: &str,
) -> Result<(), InputViolation> {
    let x = n.as_f64().unwrap_or(f64::NAN);
    for keyword in ["minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"] {
        let Some(m) = schema.get(keyword).and_then(Value::as_f64) else {
            continue;
        };
        let holds = match keyword {
            "minimum" => x >= m,
            "exclusiveMinimum" => x > m,
            "maximum" => x <= m,
            _ => x < m,
        };
        if !holds {
            return Err(violation(path, keyword));
        }
    }
    if let Some(Value::Number(divisor)) = schema.get("multipleOf") {
        let multiple = match (exact_integer(n), exact_integer(divisor)) {
            (Some(a), Some(b)) if b != 0 => a % b == 0,
            _ => {
                let q = x / divisor.as_f64().unwrap_or(f64::NAN);
                q.is_finite() && q.fract() == 0.0
            }
        };
        if !multiple {
            return Err(violation(path, "multipleOf"));
        }
    }
    Ok(())
}

fn validate_string(schema: &Map<String, Value>, s: &str, path: &str) -> Result<(), InputViolation> {
    let length = s.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(non_negative_integer) {
        if length < min {
            return Err(violation(path, "minLength"));
        }
    }
    if let Some(max) = schema.get("maxLength").and_then(non_negative_integer) {
        if length > max {
            return Err(violation(path, "maxLength"));
        }
    }
    if let Some(Value::String(pattern)) = schema.get("pattern") {
        if !compile_pattern(pattern).is_ok_and(|re| re.is_match(s)) {
            return Err(violation(path, "pattern"));
        }
    }
    Ok(())
}

fn validate_array(
    schema: &Map<String, Value>,
    items: &[Value],
    path: &str,
) -> Result<(), InputViolation> {
    let count = items.len() as u64;
    if let Some(min) = schema.get("minItems").and_then(non_negative_integer) {
        if count < min {
            return Err(violation(path, "minItems"));
        }
    }
    if let Some(max) = schema.get("maxItems").and_then(non_negative_integer) {
        if count > max {
            return Err(violation(path, "maxItems"));
        }
    }
    if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
        for (j, later) in items.iter().enumerate() {
            if items[..j].iter().any(|earlier| json_equal(earlier, later)) {
                return Err(violation(&format!("{path}/{j}"), "uniqueItems"));
            }
        }
    }
    let prefix: &[Value] = match schema.get("prefixItems") {
        Some(Value::Array(prefix)) => prefix,
        _ => &[],
    };
    let rest = schema.get("items");
    for (i, item) in items.iter().enumerate() {
        let item_path = format!("{path}/{i}");
        if let Some(subschema) = prefix.get(i) {
            validate_at(subschema, item, &item_path, "prefixItems")?;
        } else if let Some(subschema) = rest {
            validate_at(subschema, item, &item_path, "items")?;
        } else {
            break;
        }
    }
    Ok(())
}

fn validate_object(
    schema: &Map<String, Value>,
    members: &Map<String, Value>,
    path: &str,
) -> Result<(), InputViolation> {
    let member_path = |name: &str| format!("{path}/{}", escape_token(name));
    let count = members.len() as u64;
    if let Some(min) = schema.get("minProperties").and_then(non_negative_integer) {
        if count < min {
            return Err(violation(path, "minProperties"));
        }
    }
    if let Some(max) = schema.get("maxProperties").and_then(non_negative_integer) {
        if count > max {
            return Err(violation(path, "maxProperties"));
        }
    }
    if let Some(Value::Array(required)) = schema.get("required") {
        for name in required.iter().filter_map(Value::as_str) {
            if !members.contains_key(name) {
                return Err(violation(&member_path(name), "required"));
            }
        }
    }
    let properties = match schema.get("properties") {
        Some(Value::Object(properties)) => Some(properties),
        _ => None,
    };
    for (name, subschema) in properties.into_iter().flatten() {
        if let Some(member) = members.get(name) {
            validate_at(subschema, member, &member_path(name), "properties")?;
        }
    }
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        for name in members.keys() {
            if !properties.is_some_and(|p| p.contains_key(name)) {
                return Err(violation(&member_path(name), "additionalProperties"));
            }
        }
    }
    Ok(())
}

/// JSON Schema's equality: numbers by mathematical value, objects regardless of member order.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (exact_integer(x), exact_integer(y)) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}
