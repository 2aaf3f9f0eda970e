//! JavaScript text: literals, identifiers, property access, template strings, comments, all
//! safe to put inside an HTML `<script>` element (an exported test is one).

use crate::host::value::number_to_js_string;

/// Words that cannot name a variable or parameter in JavaScript.
const RESERVED: &[&str] = &[
    "arguments",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "eval",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "with",
    "yield",
    // The two names every generated block takes as parameters.
    "s",
    "w",
];

/// Whether `name` is a JavaScript IdentifierName (a property name that needs no brackets).
pub fn is_identifier_name(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' || c == '$' => {}
        _ => return false,
    }
    chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// A scenario name used as a local variable (a callback's parameter): renamed when it is not a
/// usable JavaScript binding.
pub fn local(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| if c == '-' { '_' } else { c })
        .collect();
    if RESERVED.contains(&out.as_str()) || !is_identifier_name(&out) {
        out.push('_');
    }
    out
}

/// `target.name`, or `target["name"]` when `name` is not an IdentifierName.
pub fn member(target: &str, name: &str) -> String {
    if is_identifier_name(name) {
        format!("{target}.{name}")
    } else {
        format!("{target}[{}]", string(name))
    }
}

/// An object literal's key.
pub fn key(name: &str) -> String {
    if is_identifier_name(name) {
        name.to_string()
    } else {
        string(name)
    }
}

/// A string literal; `</` is written `<\/` so that it cannot close the script element, and
/// U+2028 and U+2029 as escapes (line terminators to an engine older than ES2019).
pub fn string(s: &str) -> String {
    let quoted = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    // A lone surrogate as its escape (text::js_string).
    crate::text::js_string::escape_lone_surrogates(&quoted)
        .replace("</", "<\\/")
        .replace("<!--", "<\\!--")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// A number literal.
pub fn number(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n == 0.0 && n.is_sign_negative() {
        return "-0".into();
    }
    number_to_js_string(n)
}

/// Text of a template literal (between backquotes).
pub fn template_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '`' => out.push_str("\\`"),
            '$' if chars.peek() == Some(&'{') => out.push_str("\\$"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            '<' if chars.peek() == Some(&'/') => out.push_str("<\\"),
            c => match crate::text::js_string::as_lone_surrogate(c) {
                Some(unit) => out.push_str(&format!("\\u{unit:04x}")),
                None => out.push(c),
            },
        }
    }
    out
}

/// A line comment's text: one line (every JavaScript line terminator, U+2028 and U+2029
/// among them, written as an escape), unable to close the script element.
pub fn comment(s: &str) -> String {
    crate::text::escape::js_comment(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_javascript_reserves_are_renamed() {
        assert_eq!(local("value"), "value");
        assert_eq!(local("default"), "default_");
        assert_eq!(local("test-tool"), "test_tool");
        assert_eq!(local("s"), "s_");
        assert_eq!(member("s", "test-tool"), "s[\"test-tool\"]");
        assert_eq!(member("s", "class"), "s.class");
    }

    #[test]
    fn strings_cannot_close_the_script_element() {
        assert_eq!(string("a</script>"), "\"a<\\/script>\"");
        assert_eq!(template_text("x ${y} `z` </p>"), "x \\${y} \\`z\\` <\\/p>");
    }

    #[test]
    fn nothing_ends_a_comment_or_a_string_early() {
        let hostile = "a\u{2028}alert(1)\u{2029}//\n</script>";
        for text in [comment(hostile), string(hostile), template_text(hostile)] {
            assert!(
                !text.contains(['\n', '\r', '\u{2028}', '\u{2029}']),
                "{text}"
            );
            assert!(!text.contains("</"), "{text}");
        }
    }

    #[test]
    fn numbers_read_as_javascript_writes_them() {
        assert_eq!(number(1.0), "1");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(f64::INFINITY), "Infinity");
        assert_eq!(number(-0.0), "-0");
    }
}
