//! JavaScript strings held in Rust strings.
//!
//! A JavaScript string is a sequence of UTF-16 code units, and may hold a surrogate that is not
//! half of a pair (a *lone surrogate*: `"\uD800"`). A Rust `String` holds Unicode scalar values
//! only. The engine keeps its values in Rust strings, so that every layer reads and compares
//! them as text, and stands each lone surrogate in for a character that no input may hold: the
//! last 2048 code points of plane 16's private use area, U+10F800 to U+10FFFF, one for each of
//! the 2048 surrogates U+D800 to U+DFFF, in order. A string without lone surrogates is written
//! as it is; one with them differs from JavaScript's only inside the engine:
//!
//! - reading a scenario refuses those 2048 code points written as themselves (they would be
//!   read as lone surrogates), and the MCP gateway refuses them from a client;
//! - everything that counts or orders code units goes through [`code_units`];
//! - a concatenation joins a lone high surrogate and a lone low one after it into the pair they
//!   make ([`pair_up`]), as JavaScript's strings do by being code units;
//! - Web IDL's conversion to `USVString` and HTML's conversion to a scalar value string turn each
//!   lone surrogate into U+FFFD ([`to_scalar_values`]);
//! - what the engine writes out spells a lone surrogate as the escape JavaScript and JSON read
//!   (`\uD800`), and what leaves the browser as UTF-8 (to an AI agent) holds U+FFFD for it.
//!
//! A `Vec<u16>` for every string would be the literal model; it would make every comparison,
//! key and message in the engine a conversion, for a case that WPT meets in two subtests.

use std::borrow::Cow;
use std::cmp::Ordering;

/// The character that stands for the surrogate U+D800.
const FIRST: u32 = 0x10F800;

/// The character that stands for a lone surrogate (`unit` in U+D800 to U+DFFF).
pub fn lone_surrogate(unit: u16) -> Option<char> {
    (0xD800..=0xDFFF)
        .contains(&unit)
        .then(|| char::from_u32(FIRST + u32::from(unit - 0xD800)))
        .flatten()
}

/// The surrogate a character stands for, when it stands for one.
pub fn as_lone_surrogate(c: char) -> Option<u16> {
    let c = c as u32;
    (FIRST..=0x10FFFF)
        .contains(&c)
        .then(|| (0xD800 + (c - FIRST)) as u16)
}

/// Whether a string holds a lone surrogate.
pub fn has_lone_surrogate(s: &str) -> bool {
    s.chars().any(|c| as_lone_surrogate(c).is_some())
}

/// The string's UTF-16 code units, as JavaScript sees them.
pub fn code_units(s: &str) -> impl Iterator<Item = u16> + '_ {
    s.chars().flat_map(|c| {
        let mut buf = [0u16; 2];
        let units: &[u16] = match as_lone_surrogate(c) {
            Some(unit) => {
                buf[0] = unit;
                &buf[..1]
            }
            None => c.encode_utf16(&mut buf),
        };
        let (a, b) = (units[0], units.get(1).copied());
        std::iter::once(a).chain(b)
    })
}

/// The string's length in code units (JavaScript's `length`).
pub fn length(s: &str) -> usize {
    code_units(s).count()
}

/// The order of two strings by their code units (JavaScript's `<` on strings, and "code unit
/// less than" in Infra).
pub fn cmp_code_units(a: &str, b: &str) -> Ordering {
    code_units(a).cmp(code_units(b))
}

/// A string made of these code units: pairs as their characters, lone surrogates as the
/// characters that stand for them.
pub fn from_code_units(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied())
        .map(|r| match r {
            Ok(c) => c,
            Err(e) => lone_surrogate(e.unpaired_surrogate()).expect("a surrogate"),
        })
        .collect()
}

/// The string after a concatenation: a lone high surrogate followed by a lone low one are one
/// character, as the code units they are would be in JavaScript.
pub fn pair_up(s: String) -> String {
    let mut chars = s.chars().filter_map(as_lone_surrogate);
    let mut previous_high = false;
    let joins = chars.any(|unit| {
        let low = (0xDC00..=0xDFFF).contains(&unit);
        let join = previous_high && low;
        previous_high = !low;
        join
    });
    if !joins {
        return s;
    }
    from_code_units(&code_units(&s).collect::<Vec<_>>())
}

/// Web IDL's conversion to `USVString` (and Infra's "convert to a scalar value string"): each
/// lone surrogate becomes U+FFFD REPLACEMENT CHARACTER.
pub fn to_scalar_values(s: &str) -> Cow<'_, str> {
    if !has_lone_surrogate(s) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| match as_lone_surrogate(c) {
                Some(_) => '\u{FFFD}',
                None => c,
            })
            .collect(),
    )
}

/// The first character of a text that a scenario or a client may not write as itself (it
/// stands for a lone surrogate), with its line and column (1-based, in characters).
pub fn first_reserved(text: &str) -> Option<(usize, usize, char)> {
    let mut line = 1;
    let mut column = 1;
    for c in text.chars() {
        if as_lone_surrogate(c).is_some() {
            return Some((line, column, c));
        }
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    None
}

/// Why a reserved character found in an input is refused.
pub fn reserved_message(c: char) -> String {
    format!(
        "U+{:04X} cannot be written as itself: the engine keeps U+10F800 to U+10FFFF for lone surrogates (write a lone surrogate as the escape \\u{:04X})",
        c as u32,
        as_lone_surrogate(c).unwrap_or(0)
    )
}

/// Text written out (JSON, JavaScript) with each lone surrogate as the escape `\uXXXX`, in
/// lower case as `JSON.stringify` writes it. Every place such a character can occur in JSON or
/// JavaScript text is inside a string literal, where the escape means the code unit.
pub fn escape_lone_surrogates(text: &str) -> Cow<'_, str> {
    if !has_lone_surrogate(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match as_lone_surrogate(c) {
            Some(unit) => out.push_str(&format!("\\u{unit:04x}")),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The string in double quotes for a message, as Rust's `{:?}` writes it, but a lone surrogate
/// as the escape a scenario writes (`\uD800`).
pub fn quoted(s: &str) -> String {
    if !has_lone_surrogate(s) {
        return format!("{s:?}");
    }
    let mut out = String::with_capacity(s.len() + 8);
    out.push('"');
    // The runs between lone surrogates, each followed by the surrogate that ended it.
    let mut lone = s.chars().filter_map(as_lone_surrogate);
    for run in s.split(|c| as_lone_surrogate(c).is_some()) {
        let debug = format!("{run:?}");
        out.push_str(&debug[1..debug.len() - 1]);
        if let Some(unit) = lone.next() {
            out.push_str(&format!("\\u{unit:04X}"));
        }
    }
    out.push('"');
    out
}

/// A name typed on a command line, where a lone surrogate can only be written as the escape
/// `\uXXXX` (either case) the engine's messages show: each such escape of a lone surrogate
/// read as the character that stands for it; the rest as it is.
pub fn unescape_typed(text: &str) -> Cow<'_, str> {
    if !text.contains("\\u") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\\u") {
        out.push_str(&rest[..at]);
        let unit = rest
            .get(at + 2..at + 6)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u16::from_str_radix(h, 16).ok())
            .and_then(lone_surrogate);
        match unit {
            Some(c) => {
                out.push(c);
                rest = &rest[at + 6..];
            }
            None => {
                out.push_str("\\u");
                rest = &rest[at + 2..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(pair_up(out))
}

/// JSON text in which a `\uXXXX` escape of a lone surrogate (which JSON's grammar allows and
/// `JSON.parse` reads as that code unit, but which `serde_json` refuses) is replaced by the
/// character that stands for it, so that `serde_json` reads the rest.
pub fn unescape_lone_surrogates_in_json(text: &str) -> Cow<'_, str> {
    if !text.contains("\\u") && !text.contains("\\U") {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let hex = |at: usize| -> Option<u16> {
        let digits = text.get(at..at + 4)?;
        digits
            .bytes()
            .all(|b| b.is_ascii_hexdigit())
            .then(|| u16::from_str_radix(digits, 16).ok())
            .flatten()
    };
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                if bytes.get(i + 1) == Some(&b'u') {
                    if let Some(unit) = hex(i + 2) {
                        let high = (0xD800..=0xDBFF).contains(&unit);
                        let low = (0xDC00..=0xDFFF).contains(&unit);
                        let paired = high
                            && bytes.get(i + 6) == Some(&b'\\')
                            && bytes.get(i + 7) == Some(&b'u')
                            && hex(i + 8).is_some_and(|l| (0xDC00..=0xDFFF).contains(&l));
                        if paired {
                            i += 12;
                            continue;
                        }
                        if high || low {
                            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
                            out.push_str(&text[copied..i]);
                            out.push(lone_surrogate(unit).expect("a surrogate"));
                            i += 6;
                            copied = i;
                            continue;
                        }
                    }
                }
                // Any other escape: skip the escaped byte (`\"` does not end the string).
                i += 2;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lone(unit: u16) -> String {
        lone_surrogate(unit).unwrap().to_string()
    }

    #[test]
    fn each_surrogate_has_its_own_character_and_back() {
        for unit in 0xD800..=0xDFFF_u16 {
            let c = lone_surrogate(unit).unwrap();
            assert_eq!(as_lone_surrogate(c), Some(unit));
        }
        assert_eq!(lone_surrogate(0xD7FF), None);
        assert_eq!(lone_surrogate(0xE000), None);
        assert_eq!(as_lone_surrogate('\u{10F7FF}'), None);
        assert_eq!(as_lone_surrogate('a'), None);
    }

    #[test]
    fn code_units_count_and_order_as_javascript_does() {
        let s = format!("a{}😀", lone(0xD800));
        assert_eq!(
            code_units(&s).collect::<Vec<_>>(),
            [0x61, 0xD800, 0xD83D, 0xDE00]
        );
        assert_eq!(length(&s), 4);
        // In code units a lone U+DC00 sorts before U+FFFF; as characters it would sort after.
        assert_eq!(cmp_code_units(&lone(0xDC00), "\u{FFFF}"), Ordering::Less);
        assert_eq!(cmp_code_units("😀", "\u{FFFF}"), Ordering::Less);
        assert_eq!(from_code_units(&[0x61, 0xD800, 0xD83D, 0xDE00]), s);
    }

    #[test]
    fn concatenating_two_halves_makes_the_pair() {
        let joined = pair_up(format!("x{}{}y", lone(0xD83D), lone(0xDE00)));
        assert_eq!(joined, "x😀y");
        // A low one before a high one stays two lone surrogates.
        let apart = format!("{}{}", lone(0xDE00), lone(0xD83D));
        assert_eq!(pair_up(apart.clone()), apart);
    }

    #[test]
    fn usvstring_replaces_each_lone_surrogate() {
        let s = format!("Title with {} unpaired", lone(0xD800));
        assert_eq!(to_scalar_values(&s), "Title with \u{FFFD} unpaired");
        assert!(matches!(to_scalar_values("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_escapes_round_trip_through_serde() {
        let s = format!("{}\"{}", lone(0xD800), lone(0xDFFF));
        let json = escape_lone_surrogates(&serde_json::to_string(&s).unwrap()).into_owned();
        assert_eq!(json, r#""\ud800\"\udfff""#);
        let back: String = serde_json::from_str(&unescape_lone_surrogates_in_json(&json)).unwrap();
        assert_eq!(back, s);
        // A pair stays a pair; an escaped backslash before `u` is no escape.
        let text = r#"{"a": "\ud83d\ude00", "b": "\\ud800"}"#;
        assert_eq!(unescape_lone_surrogates_in_json(text), text);
    }

    #[test]
    fn a_reserved_character_is_found_with_its_line_and_column() {
        let text = format!("title: x\n  ab{}", lone(0xD800));
        assert_eq!(first_reserved(&text), Some((2, 5, '\u{10F800}')));
        assert!(reserved_message('\u{10F800}').contains("\\uD800"));
        assert_eq!(quoted(&format!("a\"{}", lone(0xDBFF))), r#""a\"\uDBFF""#);
        assert_eq!(
            quoted(&format!("{}'{}", lone(0xD800), lone(0xDC01))),
            r#""\uD800'\uDC01""#
        );
        assert_eq!(quoted("it's \n"), format!("{:?}", "it's \n"));
        assert_eq!(
            unescape_typed(r"x \uD800 \ud800\u0041\u"),
            format!("x {0} {0}\\u0041\\u", lone(0xD800))
        );
    }
}
