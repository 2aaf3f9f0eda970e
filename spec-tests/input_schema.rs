//! The JSON Schema subset of WPT's `.tentative` tests (`webmcp::input_schema`): which schemas
//! `registerTool()` accepts under `input-schema=tentative-subset`, what `executeTool()`'s
//! validation reports, and how ECMAScript patterns are read (`host::regexp`).

use serde_json::json;
use serde_json::{Map, Value};
use webmcp_ref::host::regexp::compile_pattern;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::input_schema::*;

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
    let e =
        rejected(json!({"type": "object", "properties": {"x": {"type": "string", "$defs": {}}}}));
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
    let e =
        rejected(json!({"properties": {"a": {"format": "date"}, "b": {"$ref": "#"}}, "anyOf": []}));
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
