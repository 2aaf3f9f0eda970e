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
//! `pattern` is, as JSON Schema says, an ECMA-262 regular expression, searched for anywhere in the
//! string (not anchored). WPT only says a pattern must compile as a `RegExp`, not with which flags;
//! the engine's choice is to read it with the grammar of ECMA-262's `u` (Unicode) flag, the one
//! JSON Schema validators commonly use. It translates the pattern to the syntax of the Rust `regex`
//! crate and compiles it there; a pattern that fails either step is not a valid regular expression.
//! The translation gives the constructs whose meaning differs between the two their JS meaning:
//! `\d`, `\w` and `\b` are ASCII-only, `\s` is JS's white space and line terminators, `.` excludes
//! `\r`, U+2028 and U+2029 as well as `\n`, `[]` matches nothing and `[^]` anything, `[`, `&`,
//! `&&`, `~~` and `--` in a class are literal, `\cX`, `\xHH`, `\uHHHH` (surrogate pairs included)
//! and `\u{...}` are code points. `^` and `$` already agree (no multiline flag: start and end of
//! the string only).
//!
//! The differences the engine accepts:
//!
//! - Rejected although JS accepts them: lookahead and lookbehind (`(?=`, `(?!`, `(?<=`, `(?<!`),
//!   backreferences (`\1`, `\k<name>`) and escapes of lone surrogates, which the `regex` crate
//!   cannot express; and repetitions large enough to exceed the crate's default size limit.
//! - The grammar is the `u` flag's, so what only the Annex B grammar of a pattern without
//!   flags allows is rejected: identity escapes such as `\-` or `\a` outside a class, lone
//!   `{`, `}` or `]`, octal escapes.
//! - Accepted although JS rejects them: a few class ranges with a class escape as an end
//!   (`[\d-z]`), and `\p{...}` names JS does not know (the crate matches property names
//!   loosely, e.g. `\p{greek}`).

use std::fmt;

use regex::Regex;
use serde_json::{Map, Number, Value};
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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

impl fmt::Display for InputViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_message())
    }
}

impl std::error::Error for InputViolation {}

/// The JSON Schema keywords (of 2020-12 or an earlier draft) the engine does not implement.
const EXCLUDED: &[&str] = &[
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
fn escape_token(token: &str) -> String {
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
fn json_equal(a: &Value, b: &Value) -> bool {
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

/// What JS's `\s` matches (WhiteSpace and LineTerminator), as the inside of a class.
const JS_SPACE: &str = r"\t\n\x0B\x0C\r\x20\xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

/// An ECMA-262 pattern (read as with the `u` flag) compiled with the `regex` crate.
fn compile_pattern(pattern: &str) -> Result<Regex, String> {
    let translated = translate_pattern(pattern)?;
    Regex::new(&translated).map_err(|e| match e {
        regex::Error::Syntax(text) => text
            .lines()
            .find_map(|line| line.strip_prefix("error: "))
            .unwrap_or("syntax error")
            .to_owned(),
        regex::Error::CompiledTooBig(_) => "the pattern is too large".to_owned(),
        other => other.to_string(),
    })
}

/// Rewrites an ECMA-262 pattern (the `u` flag's grammar) in the `regex` crate's syntax, giving
/// the constructs whose meaning differs their JS meaning; rejects what the `u` grammar rejects
/// and what the crate cannot express (see the module documentation).
fn translate_pattern(pattern: &str) -> Result<String, String> {
    /// What precedes, outside a class, for a quantifier that comes next.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Last {
        /// An atom: a quantifier may follow.
        Atom,
        /// A quantifier: a `?` may follow (making it lazy).
        Quantifier,
        /// The start, `(`, `|`, an assertion or a lazy quantifier: nothing to repeat.
        Nothing,
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut i = 0;
    let mut in_class = false;
    // Inside a class: whether the previous character was an unescaped `-`.
    let mut after_dash = false;
    let mut last = Last::Nothing;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if in_class {
            match c {
                ']' => {
                    in_class = false;
                    last = Last::Atom;
                    out.push(']');
                }
                '\\' => i = translate_escape(&chars, i, true, &mut out)?,
                // Nested classes and set operations in the crate; literal in JS.
                '[' | '&' | '~' => {
                    out.push('\\');
                    out.push(c);
                }
                '-' if after_dash => out.push_str(r"\-"),
                _ => out.push(c),
            }
            after_dash = c == '-' && !after_dash;
            continue;
        }
        match c {
            '\\' => {
                let assertion = matches!(chars.get(i), Some('b' | 'B'));
                i = translate_escape(&chars, i, false, &mut out)?;
                last = if assertion { Last::Nothing } else { Last::Atom };
            }
            '[' => {
                let negated = chars.get(i) == Some(&'^');
                let first = if negated { i + 1 } else { i };
                if chars.get(first) == Some(&']') {
                    // `[^]` matches any code point, `[]` none.
                    out.push_str(if negated {
                        r"(?s:.)"
                    } else {
                        r"[^\x{0}-\x{10FFFF}]"
                    });
                    i = first + 1;
                    last = Last::Atom;
                } else {
                    out.push_str(if negated { "[^" } else { "[" });
                    i = first;
                    in_class = true;
                    after_dash = false;
                }
            }
            '.' => {
                out.push_str(r"[^\n\r\x{2028}\x{2029}]");
                last = Last::Atom;
            }
            '(' => {
                if chars.get(i) == Some(&'?') {
                    match (chars.get(i + 1), chars.get(i + 2)) {
                        (Some(':'), _) => {
                            out.push_str("(?:");
                            i += 2;
                        }
                        (Some('=' | '!'), _) => {
                            return Err("lookahead assertions are not supported".into())
                        }
                        (Some('<'), Some('=' | '!')) => {
                            return Err("lookbehind assertions are not supported".into())
                        }
                        (Some('<'), _) => {
                            out.push_str("(?P<");
                            i += 2;
                        }
                        _ => return Err("invalid group".into()),
                    }
                } else {
                    out.push('(');
                }
                last = Last::Nothing;
            }
            '|' | '^' | '$' => {
                out.push(c);
                last = Last::Nothing;
            }
            '*' | '+' | '?' => {
                last = match (last, c) {
                    (Last::Atom, _) => Last::Quantifier,
                    (Last::Quantifier, '?') => Last::Nothing,
                    _ => return Err("nothing to repeat".into()),
                };
                out.push(c);
            }
            '{' => {
                // The `u` grammar has no literal `{`: it is a quantifier, copied through its `}`.
                if last != Last::Atom {
                    return Err("nothing to repeat".into());
                }
                let end = chars[i..]
                    .iter()
                    .position(|&d| d == '}')
                    .ok_or("incomplete quantifier")?;
                let body: String = chars[i..i + end].iter().collect();
                let (low, high) = body.split_once(',').unwrap_or((body.as_str(), "0"));
                let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
                if !digits(low) || !(high.is_empty() || digits(high)) {
                    return Err("incomplete quantifier".into());
                }
                out.push('{');
                out.push_str(&body);
                out.push('}');
                i += end + 1;
                last = Last::Quantifier;
            }
            '}' | ']' => return Err(format!("lone `{c}`")),
            _ => {
                out.push(c);
                last = Last::Atom;
            }
        }
    }
    if in_class {
        return Err("unterminated character class".into());
    }
    Ok(out)
}

/// Translates the escape whose `\` is just before `chars[i]`; returns the index after it.
fn translate_escape(
    chars: &[char],
    mut i: usize,
    in_class: bool,
    out: &mut String,
) -> Result<usize, String> {
    let Some(&c) = chars.get(i) else {
        return Err(r"`\` at the end of the pattern".into());
    };
    i += 1;
    let class = |body: &str| {
        if in_class {
            body.to_owned()
        } else {
            format!("[{body}]")
        }
    };
    match c {
        'd' => out.push_str(&class("0-9")),
        'D' => out.push_str("[^0-9]"),
        'w' => out.push_str(&class("0-9A-Za-z_")),
        'W' => out.push_str("[^0-9A-Za-z_]"),
        's' => out.push_str(&class(JS_SPACE)),
        'S' => out.push_str(&format!("[^{JS_SPACE}]")),
        'b' => out.push_str(if in_class { r"\x08" } else { r"(?-u:\b)" }),
        'B' if !in_class => out.push_str(r"(?-u:\B)"),
        'f' | 'n' | 'r' | 't' | 'v' => {
            out.push('\\');
            out.push(c);
        }
        '0' if !chars.get(i).is_some_and(char::is_ascii_digit) => out.push_str(r"\x00"),
        '1'..='9' => return Err("backreferences are not supported".into()),
        'k' if chars.get(i) == Some(&'<') => return Err("backreferences are not supported".into()),
        'c' => match chars.get(i) {
            Some(&letter) if letter.is_ascii_alphabetic() => {
                push_code_point(out, u32::from(letter) % 32);
                i += 1;
            }
            _ => return Err(r"invalid escape `\c`".into()),
        },
        'x' => {
            let value = hex_digits(chars, i, 2).ok_or(r"invalid escape `\x`")?;
            push_code_point(out, value);
            i += 2;
        }
        'u' => {
            let (value, next) = unicode_escape(chars, i)?;
            push_code_point(out, value);
            i = next;
        }
        'p' | 'P' => {
            if chars.get(i) != Some(&'{') {
                return Err(format!(r"invalid property escape `\{c}`"));
            }
            let end = chars[i..]
                .iter()
                .position(|&d| d == '}')
                .ok_or(r"invalid property escape")?;
            out.push('\\');
            out.push(c);
            out.extend(&chars[i..=i + end]);
            i += end + 1;
        }
        '-' if in_class => out.push_str(r"\-"),
        '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' => {
            out.push('\\');
            out.push(c);
        }
        '/' => out.push('/'),
        _ => return Err(format!("invalid escape `\\{c}`")),
    }
    Ok(i)
}

fn push_code_point(out: &mut String, value: u32) {
    out.push_str(&format!(r"\x{{{value:X}}}"));
}

/// `count` hex digits at `chars[i..]`.
fn hex_digits(chars: &[char], i: usize, count: usize) -> Option<u32> {
    let digits = chars.get(i..i + count)?;
    digits
        .iter()
        .try_fold(0, |acc, d| Some(acc * 16 + d.to_digit(16)?))
}

/// The code point of a `\u` escape whose `u` is just before `chars[i]`, and the index after it.
fn unicode_escape(chars: &[char], i: usize) -> Result<(u32, usize), String> {
    let invalid = || r"invalid escape `\u`".to_owned();
    let lone = || "escapes of lone surrogates are not supported".to_owned();
    if chars.get(i) == Some(&'{') {
        let end = chars[i..]
            .iter()
            .position(|&d| d == '}')
            .ok_or_else(invalid)?;
        let digits = &chars[i + 1..i + end];
        if digits.is_empty() {
            return Err(invalid());
        }
        let value = digits
            .iter()
            .try_fold(0u32, |acc, d| {
                acc.checked_mul(16)?.checked_add(d.to_digit(16)?)
            })
            .filter(|&v| v <= 0x10FFFF)
            .ok_or_else(invalid)?;
        if (0xD800..=0xDFFF).contains(&value) {
            return Err(lone());
        }
        return Ok((value, i + end + 1));
    }
    let value = hex_digits(chars, i, 4).ok_or_else(invalid)?;
    match value {
        0xD800..=0xDBFF => {
            let low = (chars.get(i + 4..i + 6) == Some(&['\\', 'u'][..]))
                .then(|| hex_digits(chars, i + 6, 4))
                .flatten()
                .filter(|low| (0xDC00..=0xDFFF).contains(low))
                .ok_or_else(lone)?;
            Ok((0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00), i + 10))
        }
        0xDC00..=0xDFFF => Err(lone()),
        _ => Ok((value, i + 4)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rejected(schema: Value) -> SubsetError {
        check_supported_subset(&schema).expect_err("the schema should be outside the subset")
    }

    fn accepted(schema: &Value) {
        if let Err(e) = check_supported_subset(schema) {
            panic!("the schema should be inside the subset: {e}");
        }
    }

    /// Checks the schema, then validates; returns the violation's (path, reason, schemaPath).
    fn violation_of(schema: Value, input: Value) -> (String, String, String) {
        accepted(&schema);
        let v = validate(&schema, &input).expect_err("the input should fail");
        (v.path, v.reason, v.schema_path)
    }

    fn passes(schema: Value, input: Value) {
        accepted(&schema);
        if let Err(v) = validate(&schema, &input) {
            panic!("the input should pass: {}", v.to_message());
        }
    }

    fn triple(path: &str, reason: &str, schema_path: &str) -> (String, String, String) {
        (path.into(), reason.into(), schema_path.into())
    }

    fn matches(pattern: &str, s: &str) -> bool {
        compile_pattern(pattern)
            .unwrap_or_else(|e| panic!("{pattern}: {e}"))
            .is_match(s)
    }

    // --- registerTool: the WPT cases of register_tool_invalid_subset_schema ---

    #[test]
    fn wpt_rejects_ref() {
        let e = rejected(json!({"type": "object", "properties": {"x": {"$ref": "#/foo"}}}));
        assert_eq!(e.path, "/properties/x/$ref");
    }

    #[test]
    fn wpt_rejects_format() {
        let e = rejected(
            json!({"type": "object", "properties": {"x": {"type": "string", "format": "email"}}}),
        );
        assert_eq!(e.path, "/properties/x/format");
    }

    #[test]
    fn wpt_rejects_additional_properties_true() {
        let e = rejected(
            json!({"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": true}),
        );
        assert_eq!(e.path, "/additionalProperties");
    }

    #[test]
    fn wpt_rejects_additional_properties_schema() {
        let e = rejected(json!({
            "type": "object",
            "properties": {"x": {"type": "string"}},
            "additionalProperties": {"type": "string"}
        }));
        assert_eq!(e.path, "/additionalProperties");
    }

    #[test]
    fn wpt_rejects_unevaluated_properties() {
        let e = rejected(
            json!({"type": "object", "properties": {"x": {"type": "string"}}, "unevaluatedProperties": false}),
        );
        assert_eq!(e.path, "/unevaluatedProperties");
    }

    #[test]
    fn wpt_rejects_dependent_required() {
        let e = rejected(
            json!({"type": "object", "properties": {"x": {"type": "string"}}, "dependentRequired": {"x": ["y"]}}),
        );
        assert_eq!(e.path, "/dependentRequired");
    }

    #[test]
    fn wpt_rejects_invalid_pattern() {
        let e = rejected(json!({"type": "string", "pattern": "["}));
        assert_eq!(e.path, "/pattern");
        assert!(
            e.message.contains("not a valid regular expression"),
            "{}",
            e.message
        );
    }

    #[test]
    fn wpt_rejects_defs() {
        let e = rejected(
            json!({"type": "object", "properties": {"x": {"type": "string", "$defs": {}}}}),
        );
        assert_eq!(e.path, "/properties/x/$defs");
    }

    #[test]
    fn wpt_rejects_content_encoding() {
        let e = rejected(
            json!({"type": "object", "properties": {"x": {"type": "string", "contentEncoding": "base64"}}}),
        );
        assert_eq!(e.path, "/properties/x/contentEncoding");
    }

    // --- registerTool: the rest of the subset ---

    #[test]
    fn every_excluded_keyword_is_rejected_at_the_root_and_nested() {
        for keyword in EXCLUDED {
            let one = |value: Value| Value::Object(Map::from_iter([(keyword.to_string(), value)]));
            let e = rejected(one(json!({})));
            assert_eq!(e.path, format!("/{}", escape_token(keyword)));
            assert!(e.message.contains(keyword), "{}", e.message);
            let e = rejected(json!({"type": "array", "prefixItems": [true, one(json!(true))]}));
            assert_eq!(e.path, format!("/prefixItems/1/{}", escape_token(keyword)));
            let e = rejected(json!({"items": {"properties": {"a": one(json!(1))}}}));
            assert_eq!(
                e.path,
                format!("/items/properties/a/{}", escape_token(keyword))
            );
        }
    }

    #[test]
    fn combinators_and_conditionals_are_rejected() {
        let e = rejected(json!({"anyOf": [{"type": "string"}, {"type": "number"}]}));
        assert_eq!(e.path, "/anyOf");
        let e = rejected(json!({"properties": {"a": {"oneOf": [{"type": "string"}]}}}));
        assert_eq!(e.path, "/properties/a/oneOf");
        assert_eq!(rejected(json!({"allOf": [true]})).path, "/allOf");
        assert_eq!(rejected(json!({"not": {"type": "null"}})).path, "/not");
        assert_eq!(
            rejected(json!({"if": true, "then": true, "else": false})).path,
            "/if"
        );
        assert_eq!(
            rejected(json!({"patternProperties": {"^a": true}})).path,
            "/patternProperties"
        );
        assert_eq!(
            rejected(json!({"contains": {"type": "string"}})).path,
            "/contains"
        );
    }

    #[test]
    fn a_complex_schema_inside_the_subset_is_accepted() {
        accepted(&json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$comment": "a tool",
            "title": "Order",
            "description": "Places an order",
            "type": "object",
            "properties": {
                "count": {"type": "integer", "minimum": 1, "maximum": 10, "multipleOf": 1, "default": 1},
                "price": {"type": ["number", "null"], "exclusiveMinimum": 0, "exclusiveMaximum": 1e6},
                "name": {"type": "string", "minLength": 1, "maxLength": 20.0, "pattern": "^\\w+$", "examples": ["bob"]},
                "tags": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "string"},
                         "minItems": 0, "maxItems": 5, "uniqueItems": true},
                "mode": {"enum": ["a", "b", null, 1]},
                "kind": {"const": {"x": [1]}, "deprecated": false, "readOnly": false, "writeOnly": false},
                "nested": {"type": "object", "properties": {"deep": false}, "minProperties": 1, "maxProperties": 3,
                           "required": [], "additionalProperties": false},
                "anything": true
            },
            "required": ["count", "name", "tags"],
            "additionalProperties": false
        }));
        accepted(&json!(true));
        accepted(&json!(false));
        accepted(&json!({}));
    }

    #[test]
    fn unknown_keywords_are_ignored_as_annotations() {
        // Their values are not schemas, so nothing inside them is checked.
        let schema = json!({
            "type": "object",
            "x-widget": {"$ref": "#/nowhere", "format": "email"},
            "properties": {"a": {"type": "string", "ui:order": 3, "unknownKeyword": [1, 2]}}
        });
        accepted(&schema);
        passes(schema, json!({"a": "text"}));
    }

    #[test]
    fn non_schemas_are_rejected() {
        assert_eq!(rejected(json!(5)).path, "");
        assert_eq!(rejected(json!("object")).path, "");
        assert_eq!(
            rejected(json!({"properties": {"a": null}})).path,
            "/properties/a"
        );
        assert_eq!(rejected(json!({"properties": []})).path, "/properties");
        assert_eq!(rejected(json!({"items": 3})).path, "/items");
        assert_eq!(
            rejected(json!({"prefixItems": [{}, "x"]})).path,
            "/prefixItems/1"
        );
    }

    #[test]
    fn keyword_values_of_the_wrong_shape_are_rejected() {
        let cases = [
            (json!({"type": "text"}), "/type"),
            (json!({"type": []}), "/type"),
            (json!({"type": ["string", 3]}), "/type/1"),
            (json!({"type": ["string", "string"]}), "/type/1"),
            (json!({"type": ["string", "float"]}), "/type/1"),
            (json!({"enum": "red"}), "/enum"),
            (json!({"minimum": "1"}), "/minimum"),
            (json!({"exclusiveMinimum": true}), "/exclusiveMinimum"),
            (json!({"multipleOf": 0}), "/multipleOf"),
            (json!({"multipleOf": -2}), "/multipleOf"),
            (json!({"minLength": -1}), "/minLength"),
            (json!({"maxItems": 1.5}), "/maxItems"),
            (json!({"maxProperties": "2"}), "/maxProperties"),
            (json!({"uniqueItems": 1}), "/uniqueItems"),
            (json!({"pattern": 5}), "/pattern"),
            (json!({"required": "a"}), "/required"),
            (json!({"required": ["a", 1]}), "/required/1"),
            (json!({"required": ["a", "a"]}), "/required/1"),
            (json!({"prefixItems": []}), "/prefixItems"),
            (json!({"prefixItems": {}}), "/prefixItems"),
            (json!({"items": [{"type": "string"}]}), "/items"),
            (json!({"additionalProperties": {}}), "/additionalProperties"),
            (json!({"title": 1}), "/title"),
            (json!({"description": null}), "/description"),
            (json!({"examples": "x"}), "/examples"),
            (json!({"readOnly": "yes"}), "/readOnly"),
        ];
        for (schema, path) in cases {
            let e = check_supported_subset(&schema).expect_err(&schema.to_string());
            assert_eq!(e.path, path, "{schema}");
        }
    }

    #[test]
    fn the_first_offending_keyword_in_document_order_is_reported() {
        let e = rejected(
            json!({"properties": {"a": {"format": "date"}, "b": {"$ref": "#"}}, "anyOf": []}),
        );
        assert_eq!(e.path, "/properties/a/format");
        let e = rejected(json!({"anyOf": [], "properties": {"a": {"format": "date"}}}));
        assert_eq!(e.path, "/anyOf");
    }

    #[test]
    fn subset_error_paths_escape_json_pointer_tokens() {
        let e = rejected(json!({"properties": {"a/b~c": {"format": "uri"}}}));
        assert_eq!(e.path, "/properties/a~1b~0c/format");
        assert_eq!(e.to_string(), "inputSchema/properties/a~1b~0c/format: `format` is not in the supported subset of JSON Schema");
    }

    #[test]
    fn properties_named_like_keywords_are_names_not_keywords() {
        passes(
            json!({"type": "object", "properties": {"$ref": {"type": "string"}, "format": {"type": "number"}}}),
            json!({"$ref": "x", "format": 1}),
        );
    }

    // --- executeTool: the WPT cases of executeTool-input-validation ---

    #[test]
    fn wpt_missing_required_field() {
        let schema = json!({"type": "object", "properties": {"field": {"type": "string"}}, "required": ["field"]});
        assert_eq!(
            violation_of(schema, json!({})),
            triple("/field", "required", "/required")
        );
    }

    #[test]
    fn wpt_enum_mismatch_and_valid_enum() {
        let schema = json!({
            "type": "object",
            "properties": {"color": {"type": "string", "enum": ["red", "green"]}},
            "required": ["color"]
        });
        assert_eq!(
            violation_of(schema, json!({"color": "blue"})),
            triple("/color", "enum", "/enum")
        );
        let schema = json!({"type": "object", "properties": {"color": {"type": "string", "enum": ["red", "green"]}}});
        passes(schema, json!({"color": "red"}));
    }

    #[test]
    fn wpt_pattern_mismatch() {
        let schema = json!({
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": "^[a-z]+$"}},
            "required": ["code"]
        });
        assert_eq!(
            violation_of(schema.clone(), json!({"code": "ABC123"})),
            triple("/code", "pattern", "/pattern")
        );
        passes(schema, json!({"code": "abc"}));
    }

    fn wpt_complex_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "minimum": 1, "maximum": 10},
                "name": {"type": "string", "minLength": 1, "maxLength": 20},
                "tags": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "string"}},
                "mode": {"type": "string", "enum": ["a", "b"]}
            },
            "required": ["count", "name", "tags"],
            "additionalProperties": false
        })
    }

    #[test]
    fn wpt_valid_complex_schema() {
        passes(
            wpt_complex_schema(),
            json!({"count": 5, "name": "hello", "tags": ["x", "y"], "mode": "a"}),
        );
        passes(
            wpt_complex_schema(),
            json!({"count": 5.0, "name": "h", "tags": []}),
        );
    }

    #[test]
    fn the_complex_schema_rejects_each_kind_of_bad_input() {
        let ok = json!({"count": 5, "name": "hello", "tags": ["x", "y"], "mode": "a"});
        let with = |key: &str, value: Value| {
            let mut input = ok.clone();
            input[key] = value;
            input
        };
        let cases = [
            (
                with("count", json!(0)),
                triple("/count", "minimum", "/minimum"),
            ),
            (
                with("count", json!(11)),
                triple("/count", "maximum", "/maximum"),
            ),
            (with("count", json!(2.5)), triple("/count", "type", "/type")),
            (
                with("name", json!("")),
                triple("/name", "minLength", "/minLength"),
            ),
            (
                with("name", json!("x".repeat(21))),
                triple("/name", "maxLength", "/maxLength"),
            ),
            (with("tags", json!([1])), triple("/tags/0", "type", "/type")),
            (
                with("tags", json!(["x", 2])),
                triple("/tags/1", "type", "/type"),
            ),
            (with("tags", json!("x")), triple("/tags", "type", "/type")),
            (with("mode", json!("c")), triple("/mode", "enum", "/enum")),
            (
                with("extra", json!(true)),
                triple("/extra", "additionalProperties", "/additionalProperties"),
            ),
            (
                json!({"name": "n", "tags": []}),
                triple("/count", "required", "/required"),
            ),
            (json!([]), triple("", "type", "/type")),
        ];
        for (input, expected) in cases {
            assert_eq!(
                violation_of(wpt_complex_schema(), input.clone()),
                expected,
                "{input}"
            );
        }
    }

    #[test]
    fn wpt_retry_after_a_violation() {
        let schema = json!({
            "type": "object",
            "properties": {"age": {"type": "integer", "minimum": 0, "maximum": 120}},
            "required": ["age"]
        });
        let v = validate(&schema, &json!({"age": "old"})).unwrap_err();
        assert_eq!((v.path.as_str(), v.reason.as_str()), ("/age", "type"));
        assert_eq!(validate(&schema, &json!({"age": 30})), Ok(()));
    }

    #[test]
    fn the_message_is_the_json_the_wpt_test_parses() {
        let v = InputViolation {
            path: "/field".into(),
            reason: "required".into(),
            schema_path: "/required".into(),
        };
        assert_eq!(
            v.to_message(),
            r#"{"path":"/field","reason":"required","schemaPath":"/required"}"#
        );
        assert_eq!(v.to_string(), v.to_message());
        let parsed: Value = serde_json::from_str(&v.to_message()).unwrap();
        assert_eq!(
            parsed,
            json!({"path": "/field", "reason": "required", "schemaPath": "/required"})
        );
        // Quotes and other characters are escaped as JSON.
        let v = InputViolation {
            path: "/a\"b".into(),
            reason: "type".into(),
            schema_path: "/type".into(),
        };
        let parsed: Value = serde_json::from_str(&v.to_message()).unwrap();
        assert_eq!(parsed["path"], "/a\"b");
    }

    // --- executeTool: the keywords one by one ---

    #[test]
    fn types_and_type_arrays() {
        let all = [
            json!({}),
            json!([]),
            json!("s"),
            json!(1.5),
            json!(2),
            json!(true),
            json!(null),
        ];
        let accepts = |name: &str| -> Vec<bool> {
            all.iter()
                .map(|v| validate(&json!({"type": name}), v).is_ok())
                .collect()
        };
        assert_eq!(
            accepts("object"),
            [true, false, false, false, false, false, false]
        );
        assert_eq!(
            accepts("array"),
            [false, true, false, false, false, false, false]
        );
        assert_eq!(
            accepts("string"),
            [false, false, true, false, false, false, false]
        );
        assert_eq!(
            accepts("number"),
            [false, false, false, true, true, false, false]
        );
        assert_eq!(
            accepts("integer"),
            [false, false, false, false, true, false, false]
        );
        assert_eq!(
            accepts("boolean"),
            [false, false, false, false, false, true, false]
        );
        assert_eq!(
            accepts("null"),
            [false, false, false, false, false, false, true]
        );

        let schema = json!({"type": ["string", "null"]});
        passes(schema.clone(), json!("x"));
        passes(schema.clone(), json!(null));
        assert_eq!(violation_of(schema, json!(1)), triple("", "type", "/type"));
        let schema = json!({"type": ["integer", "boolean"]});
        passes(schema.clone(), json!(false));
        passes(schema.clone(), json!(3));
        assert_eq!(
            violation_of(schema, json!(3.1)),
            triple("", "type", "/type")
        );
    }

    #[test]
    fn integers_include_numbers_without_a_fraction() {
        let schema = json!({"type": "integer"});
        passes(schema.clone(), json!(5.0));
        passes(schema.clone(), json!(-7));
        passes(schema.clone(), json!(u64::MAX));
        passes(schema.clone(), json!(1e300));
        assert_eq!(
            violation_of(schema, json!(0.5)),
            triple("", "type", "/type")
        );
    }

    #[test]
    fn numeric_limits() {
        let schema =
            json!({"minimum": 1, "exclusiveMinimum": 0.5, "maximum": 10, "exclusiveMaximum": 10.5});
        passes(schema.clone(), json!(1));
        passes(schema.clone(), json!(10.0));
        assert_eq!(
            violation_of(schema.clone(), json!(0.9)),
            triple("", "minimum", "/minimum")
        );
        assert_eq!(
            violation_of(schema, json!(10.1)),
            triple("", "maximum", "/maximum")
        );
        let schema = json!({"exclusiveMinimum": 0, "exclusiveMaximum": 1});
        passes(schema.clone(), json!(0.5));
        assert_eq!(
            violation_of(schema.clone(), json!(0)),
            triple("", "exclusiveMinimum", "/exclusiveMinimum")
        );
        assert_eq!(
            violation_of(schema, json!(1)),
            triple("", "exclusiveMaximum", "/exclusiveMaximum")
        );
        // Limits do not apply to other types.
        passes(json!({"minimum": 5, "maxLength": 1}), json!("a"));
    }

    #[test]
    fn multiple_of() {
        let schema = json!({"multipleOf": 3});
        passes(schema.clone(), json!(9));
        passes(schema.clone(), json!(-6.0));
        passes(schema.clone(), json!(0));
        assert_eq!(
            violation_of(schema, json!(10)),
            triple("", "multipleOf", "/multipleOf")
        );
        let schema = json!({"multipleOf": 0.5});
        passes(schema.clone(), json!(2.5));
        assert_eq!(
            violation_of(schema, json!(2.2)),
            triple("", "multipleOf", "/multipleOf")
        );
        // The double quotient, as documented.
        assert!(validate(&json!({"multipleOf": 0.1}), &json!(0.3)).is_err());
        assert!(validate(&json!({"multipleOf": 0.123456789}), &json!(1e308)).is_err());
        // Exact for integers beyond the doubles' precision.
        assert!(validate(&json!({"multipleOf": 2}), &json!(9007199254740993u64)).is_err());
    }

    #[test]
    fn string_lengths_count_code_points() {
        let schema = json!({"minLength": 2, "maxLength": 3});
        passes(schema.clone(), json!("😀😀😀"));
        passes(schema.clone(), json!("éé"));
        assert_eq!(
            violation_of(schema.clone(), json!("😀")),
            triple("", "minLength", "/minLength")
        );
        assert_eq!(
            violation_of(schema, json!("abcd")),
            triple("", "maxLength", "/maxLength")
        );
    }

    #[test]
    fn const_and_enum_use_json_schema_equality() {
        passes(json!({"const": 1}), json!(1.0));
        passes(
            json!({"const": {"a": 1, "b": [true, null]}}),
            json!({"b": [true, null], "a": 1.0}),
        );
        assert_eq!(
            violation_of(json!({"const": {"a": 1}}), json!({"a": 1, "b": 2})),
            triple("", "const", "/const")
        );
        assert_eq!(
            violation_of(json!({"const": [1, 2]}), json!([2, 1])),
            triple("", "const", "/const")
        );
        assert_eq!(
            violation_of(json!({"const": 0}), json!(false)),
            triple("", "const", "/const")
        );
        assert_eq!(
            violation_of(json!({"const": null}), json!(0)),
            triple("", "const", "/const")
        );
        passes(json!({"enum": [1, "1", [1]]}), json!([1.0]));
        assert_eq!(
            violation_of(json!({"enum": []}), json!(1)),
            triple("", "enum", "/enum")
        );
        assert_eq!(
            violation_of(json!({"enum": ["1"]}), json!(1)),
            triple("", "enum", "/enum")
        );
    }

    #[test]
    fn nested_paths_in_objects_and_arrays() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string", "minLength": 2}},
                "owner": {
                    "type": "object",
                    "properties": {
                        "address": {"type": "object", "properties": {"zip": {"type": "string", "pattern": "^\\d{5}$"}},
                                    "required": ["zip"]},
                        "phones": {"type": "array", "items": {"type": "object",
                                   "properties": {"n": {"type": "integer"}}, "additionalProperties": false}}
                    }
                }
            }
        });
        let check = |input: Value, expected: (String, String, String)| {
            assert_eq!(
                violation_of(schema.clone(), input.clone()),
                expected,
                "{input}"
            );
        };
        check(
            json!({"tags": ["ab", "c"]}),
            triple("/tags/1", "minLength", "/minLength"),
        );
        check(
            json!({"owner": {"address": {}}}),
            triple("/owner/address/zip", "required", "/required"),
        );
        check(
            json!({"owner": {"address": {"zip": "1234a"}}}),
            triple("/owner/address/zip", "pattern", "/pattern"),
        );
        check(
            json!({"owner": {"phones": [{"n": 1}, {"n": "2"}]}}),
            triple("/owner/phones/1/n", "type", "/type"),
        );
        check(
            json!({"owner": {"phones": [{"n": 1}, {"n": 2, "x": 0}]}}),
            triple(
                "/owner/phones/1/x",
                "additionalProperties",
                "/additionalProperties",
            ),
        );
        passes(
            schema,
            json!({"tags": ["ab"], "owner": {"address": {"zip": "12345"}, "phones": [{"n": 5}]}}),
        );
    }

    #[test]
    fn input_paths_escape_json_pointer_tokens() {
        let schema = json!({"properties": {"a/b": {"type": "string"}, "c~d": {"type": "string"}}, "required": ["e/f"]});
        assert_eq!(
            violation_of(schema.clone(), json!({"a/b": 1, "e/f": 0})),
            triple("/a~1b", "type", "/type")
        );
        assert_eq!(
            violation_of(schema.clone(), json!({"c~d": 1, "e/f": 0})),
            triple("/c~0d", "type", "/type")
        );
        assert_eq!(
            violation_of(schema, json!({})),
            triple("/e~1f", "required", "/required")
        );
    }

    #[test]
    fn prefix_items_then_items() {
        let schema = json!({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": {"type": "boolean"}});
        passes(schema.clone(), json!([]));
        passes(schema.clone(), json!([1]));
        passes(schema.clone(), json!([1, "a", true, false]));
        assert_eq!(
            violation_of(schema.clone(), json!(["a"])),
            triple("/0", "type", "/type")
        );
        assert_eq!(
            violation_of(schema.clone(), json!([1, 2])),
            triple("/1", "type", "/type")
        );
        assert_eq!(
            violation_of(schema, json!([1, "a", true, "no"])),
            triple("/3", "type", "/type")
        );
        // Without items, elements past prefixItems are unconstrained.
        passes(
            json!({"prefixItems": [{"type": "integer"}]}),
            json!([1, "x", null]),
        );
    }

    #[test]
    fn false_subschemas_report_the_keyword_that_applied_them() {
        let schema = json!({"prefixItems": [true], "items": false});
        passes(schema.clone(), json!([1]));
        assert_eq!(
            violation_of(schema, json!([1, 2])),
            triple("/1", "items", "/items")
        );
        assert_eq!(
            violation_of(json!({"prefixItems": [false]}), json!([1])),
            triple("/0", "prefixItems", "/prefixItems")
        );
        let schema = json!({"properties": {"gone": false}});
        passes(schema.clone(), json!({}));
        assert_eq!(
            violation_of(schema, json!({"gone": 1})),
            triple("/gone", "properties", "/properties")
        );
        assert_eq!(
            violation_of(json!(false), json!({})),
            triple("", "false", "")
        );
        passes(json!(true), json!({"anything": [1]}));
    }

    #[test]
    fn array_counts_and_unique_items() {
        let schema = json!({"minItems": 1, "maxItems": 3, "uniqueItems": true});
        passes(schema.clone(), json!([1, "1", [1]]));
        assert_eq!(
            violation_of(schema.clone(), json!([])),
            triple("", "minItems", "/minItems")
        );
        assert_eq!(
            violation_of(schema.clone(), json!([1, 2, 3, 4])),
            triple("", "maxItems", "/maxItems")
        );
        assert_eq!(
            violation_of(schema.clone(), json!([1, 2, 1.0])),
            triple("/2", "uniqueItems", "/uniqueItems")
        );
        assert_eq!(
            violation_of(schema, json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}])),
            triple("/1", "uniqueItems", "/uniqueItems"),
        );
        passes(json!({"uniqueItems": false}), json!([1, 1]));
    }

    #[test]
    fn object_counts_required_and_additional_properties() {
        let schema = json!({"minProperties": 1, "maxProperties": 2});
        assert_eq!(
            violation_of(schema.clone(), json!({})),
            triple("", "minProperties", "/minProperties")
        );
        assert_eq!(
            violation_of(schema, json!({"a": 1, "b": 2, "c": 3})),
            triple("", "maxProperties", "/maxProperties")
        );
        // additionalProperties:false without properties allows no member at all.
        assert_eq!(
            violation_of(json!({"additionalProperties": false}), json!({"z": 1})),
            triple("/z", "additionalProperties", "/additionalProperties"),
        );
        passes(json!({"additionalProperties": false}), json!({}));
        // Members not named by properties are free without additionalProperties:false.
        passes(
            json!({"properties": {"a": {"type": "string"}}}),
            json!({"b": 1}),
        );
        // required without properties; null values are present.
        passes(json!({"required": ["a"]}), json!({"a": null}));
    }

    #[test]
    fn the_order_of_violations_is_the_documented_one() {
        // type before const/enum, and nothing else once type fails.
        let schema = json!({"type": "string", "enum": [1], "const": 1});
        assert_eq!(violation_of(schema, json!(1)).1, "type");
        // const before enum.
        assert_eq!(
            violation_of(json!({"enum": ["a"], "const": "b"}), json!("c")).1,
            "const"
        );
        // enum before the type-specific keywords.
        assert_eq!(
            violation_of(json!({"maxLength": 0, "enum": ["a"]}), json!("bb")).1,
            "enum"
        );
        // Numbers: minimum, exclusiveMinimum, maximum, exclusiveMaximum, multipleOf.
        let schema = json!({"multipleOf": 7, "exclusiveMaximum": 0, "maximum": 0, "exclusiveMinimum": 5, "minimum": 5});
        assert_eq!(violation_of(schema.clone(), json!(1)).1, "minimum");
        assert_eq!(violation_of(schema.clone(), json!(5)).1, "exclusiveMinimum");
        assert_eq!(violation_of(schema, json!(6)).1, "maximum");
        // Strings: minLength, maxLength, pattern.
        assert_eq!(
            violation_of(json!({"pattern": "x", "minLength": 3}), json!("ab")).1,
            "minLength"
        );
        // Arrays: counts, uniqueItems, then the elements.
        let schema = json!({"items": {"type": "string"}, "uniqueItems": true, "maxItems": 2});
        assert_eq!(violation_of(schema.clone(), json!([1, 1, 1])).1, "maxItems");
        assert_eq!(
            violation_of(schema, json!([1, 1])),
            triple("/1", "uniqueItems", "/uniqueItems")
        );
        // Objects: required (in its order), properties (in their order), additionalProperties.
        let schema = json!({
            "additionalProperties": false,
            "properties": {"b": {"type": "string"}, "a": {"type": "string"}},
            "required": ["b", "a"]
        });
        assert_eq!(violation_of(schema.clone(), json!({"x": 1})).0, "/b");
        assert_eq!(
            violation_of(schema.clone(), json!({"a": 1, "x": 1, "b": 1})),
            triple("/b", "type", "/type")
        );
        assert_eq!(
            violation_of(schema.clone(), json!({"a": 1, "b": "s", "x": 1})),
            triple("/a", "type", "/type")
        );
        assert_eq!(
            violation_of(schema, json!({"y": 1, "a": "s", "b": "s", "x": 1})).0,
            "/y"
        );
        // Depth-first: the first property's nested violation wins over a later sibling's.
        let schema = json!({"properties": {"p": {"properties": {"q": {"type": "string"}}}, "r": {"type": "string"}}});
        assert_eq!(
            violation_of(schema, json!({"r": 1, "p": {"q": 1}})).0,
            "/p/q"
        );
    }

    #[test]
    fn validation_ignores_what_the_check_would_reject() {
        // Documented behaviour on a schema check_supported_subset did not accept.
        assert_eq!(
            validate(&json!({"anyOf": [false], "format": "email"}), &json!("x")),
            Ok(())
        );
        assert_eq!(validate(&json!({"minimum": "3"}), &json!(1)), Ok(()));
        assert_eq!(
            validate(&json!({"properties": {"a": 5}}), &json!({"a": 1})),
            Ok(())
        );
        let v = validate(&json!({"pattern": "["}), &json!("[")).unwrap_err();
        assert_eq!(v.reason, "pattern");
    }

    // --- Regular expressions ---

    #[test]
    fn patterns_are_unanchored_searches() {
        assert!(matches("b", "abc"));
        assert!(!matches("^b", "abc"));
        assert!(matches("^a.c$", "abc"));
        // `$` does not match before a final newline (ECMA-262, unlike Python).
        assert!(!matches("^abc$", "abc\n"));
        passes(json!({"pattern": "[0-9]"}), json!("abc1"));
    }

    #[test]
    fn class_escapes_have_their_js_meaning() {
        // \d and \w are ASCII only.
        assert!(matches(r"^\d+$", "0123456789"));
        assert!(!matches(r"^\d$", "٣"));
        assert!(matches(r"^\D$", "٣"));
        assert!(matches(r"^\w+$", "a_Z9"));
        assert!(!matches(r"^\w$", "é"));
        assert!(matches(r"^\W$", "é"));
        assert!(matches(r"^[\w-]+$", "a-b_c"));
        assert!(!matches(r"^[\d]$", "٣"));
        assert!(matches(r"^[^\d]$", "x"));
        assert!(matches(r"^[\D]$", "x"));
        assert!(!matches(r"^[\D]$", "5"));
        // \b is the ASCII word boundary; [\b] is backspace.
        assert!(matches(r"\bcat\b", "a cat!"));
        assert!(!matches(r"\bcat\b", "concat"));
        assert!(matches(r"\Bcat", "concat"));
        assert!(matches(r"^[\b]$", "\u{8}"));
        // \s is JS's white space: U+FEFF yes, U+0085 no.
        assert!(matches(r"^\s$", "\u{FEFF}"));
        assert!(matches(r"^\s$", "\u{3000}"));
        assert!(!matches(r"^\s$", "\u{85}"));
        assert!(matches(r"^\S$", "\u{85}"));
        assert!(matches(r"^[\s]$", "\t"));
    }

    #[test]
    fn dot_and_empty_classes_have_their_js_meaning() {
        assert!(matches("^.$", "😀"));
        for terminator in ["\n", "\r", "\u{2028}", "\u{2029}"] {
            assert!(!matches("^.$", terminator), "{terminator:?}");
        }
        assert!(matches("^[^]$", "\n"));
        assert!(!matches("[]", "anything"));
        assert!(matches("^a[]?b$", "ab"));
    }

    #[test]
    fn class_characters_that_are_special_only_in_rust_are_literal() {
        assert!(matches(r"^[[]$", "["));
        assert!(matches(r"^[a&&b]+$", "a&b"));
        assert!(matches(r"^[a~~b]+$", "~"));
        assert!(matches(r"^[+--]+$", "+,-"));
        assert!(matches(r"^[[:a]+$", "[:a"));
    }

    #[test]
    fn escapes_of_code_points() {
        assert!(matches(r"^\x41\u0042\u{43}\cJ$", "ABC\n"));
        assert!(matches(r"^\uD83D\uDE00$", "😀"));
        assert!(matches(r"^\u{1F600}$", "😀"));
        assert!(matches(r"^[\u0041-\u005A]+$", "XYZ"));
        assert!(matches(r"^\0$", "\0"));
        assert!(matches(r"^\t\n\r\f\v$", "\t\n\r\u{c}\u{b}"));
        assert!(matches(
            r"^\.\*\+\?\(\)\[\]\{\}\|\^\$\\\/$",
            r".*+?()[]{}|^$\/"
        ));
        assert!(matches(r"^[\-\]]+$", "-]"));
        assert!(matches(r"^\p{L}+$", "héllo"));
        assert!(matches(r"^\P{L}+$", "123"));
        assert!(matches(r"^\p{Script=Greek}$", "λ"));
    }

    #[test]
    fn groups_and_quantifiers() {
        assert!(matches(r"^(?:ab)+$", "abab"));
        assert!(matches(r"^(?<year>\d{4})-(\d{2})$", "2024-05"));
        assert!(matches(r"^a{2,}b{1,3}c{0}$", "aaab"));
        assert!(matches(r"^a+?b*?$", "aab"));
        assert!(matches("^(a|b)$", "b"));
        assert!(matches(r"^a??b{1,2}?(c)+$", "abcc"));
        assert!(matches(r"^[*+?{]+$", "*+?{"));
        assert!(matches(r"^(?:\d)*\.?$", "12."));
    }

    #[test]
    fn patterns_outside_what_the_engine_compiles_are_invalid() {
        for pattern in [
            "[",
            "(",
            "a)",
            "*a",
            "a{2",
            "a{,3}",
            "a{x}",
            "}",
            "]",
            "a{3,1}",
            "\\",
            "[a",
            "(?i)a",
            "(?=a)",
            "(?!a)",
            "(?<=a)",
            "(?<!a)",
            r"(a)\1",
            r"(?<n>a)\k<n>",
            r"\-",
            r"\a",
            r"\z",
            r"\A",
            r"\e",
            r"\cj0\c",
            r"\x4",
            r"\u12",
            r"\u{110000}",
            r"\u{}",
            r"\uD83D",
            r"\uDE00",
            r"\u{D800}",
            r"\01",
            r"\pL",
            "[[:alpha:]]",
            r"\p{L",
            r"[\B]",
            "a{99999999}",
            "a**",
            "a+*",
            "a??+",
            "a{2}{3}",
            "^*",
            "$+",
            "(*a)",
            "(?:|+)",
            r"\b+",
            "{2}",
        ] {
            let schema = json!({"type": "string", "pattern": pattern});
            let e = check_supported_subset(&schema).expect_err(pattern);
            assert_eq!(e.path, "/pattern", "{pattern}");
            assert!(
                e.message
                    .starts_with("`pattern` is not a valid regular expression: "),
                "{}",
                e.message
            );
        }
        let e = rejected(json!({"pattern": "(?=a)"}));
        assert!(
            e.message
                .ends_with("lookahead assertions are not supported"),
            "{}",
            e.message
        );
        let e = rejected(json!({"pattern": "(a)\\1"}));
        assert!(
            e.message.ends_with("backreferences are not supported"),
            "{}",
            e.message
        );
    }

    #[test]
    fn json_equal_compares_numbers_by_value() {
        assert!(json_equal(&json!(1), &json!(1.0)));
        assert!(json_equal(&json!(-3), &json!(-3.0)));
        assert!(!json_equal(&json!(u64::MAX), &json!(u64::MAX - 1)));
        assert!(!json_equal(&json!(1), &json!("1")));
        assert!(json_equal(
            &json!({"a": [1, {"b": 2.0}]}),
            &json!({"a": [1.0, {"b": 2}]})
        ));
        assert!(!json_equal(&json!({"a": 1}), &json!({"a": 1, "b": null})));
    }
}
