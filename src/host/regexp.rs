//! ECMAScript regular expressions, read with the grammar of the `u` (Unicode) flag and run on
//! the `regex` crate.
//!
//! <https://tc39.es/ecma262/#sec-regexp-regular-expression-objects>
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

use regex::Regex;
use thiserror::Error;

/// A pattern that is not a valid ECMAScript regular expression (or that the crate cannot
/// express), and why.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{0}")]
pub struct PatternError(pub String);

impl From<&str> for PatternError {
    fn from(s: &str) -> Self {
        PatternError(s.into())
    }
}

impl From<String> for PatternError {
    fn from(s: String) -> Self {
        PatternError(s)
    }
}

/// What JS's `\s` matches (WhiteSpace and LineTerminator), as the inside of a class.
const JS_SPACE: &str = r"\t\n\x0B\x0C\r\x20\xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

/// An ECMA-262 pattern (read as with the `u` flag) compiled with the `regex` crate.
pub fn compile_pattern(pattern: &str) -> Result<Regex, PatternError> {
    let translated = translate_pattern(pattern)?;
    Regex::new(&translated).map_err(|e| {
        PatternError(match e {
            regex::Error::Syntax(text) => text
                .lines()
                .find_map(|line| line.strip_prefix("error: "))
                .unwrap_or("syntax error")
                .to_owned(),
            regex::Error::CompiledTooBig(_) => "the pattern is too large".to_owned(),
            other => other.to_string(),
        })
    })
}

/// Rewrites an ECMA-262 pattern (the `u` flag's grammar) in the `regex` crate's syntax, giving
/// the constructs whose meaning differs their JS meaning; rejects what the `u` grammar rejects
/// and what the crate cannot express (see the module documentation).
pub fn translate_pattern(pattern: &str) -> Result<String, PatternError> {
    translate(pattern, false)
}

/// HTML's `pattern` attribute: the pattern compiled with ECMA-262's `v` flag, matching the
/// whole value (`^(?:pattern)$`).
///
/// <https://html.spec.whatwg.org/multipage/input.html#compiled-pattern-regular-expression>
///
/// The `v` grammar differs from the `u` one inside classes: classes nest, `&&` and `--` are
/// intersection and subtraction (the `regex` crate's own operators), and the characters
/// `( ) [ ] { } / - \ |` must be escaped, as must the reserved doubled punctuators (`!!`,
/// `##`, ...). String disjunctions (`\q{...}`) are rejected: the crate's classes hold code
/// points only. A pattern that does not compile has no constraint (the caller's to know).
pub fn compile_html_pattern(pattern: &str) -> Result<Regex, PatternError> {
    let translated = translate(pattern, true)?;
    Regex::new(&format!("^(?:{translated})$"))
        .map_err(|_| PatternError("the pattern does not compile".into()))
}

fn translate(pattern: &str, v: bool) -> Result<String, PatternError> {
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
            '[' if v => {
                i = translate_class_v(&chars, i, &mut out, 0)?;
                last = Last::Atom;
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
            '}' | ']' => return Err(PatternError(format!("lone `{c}`"))),
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
) -> Result<usize, PatternError> {
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
                return Err(PatternError(format!(r"invalid property escape `\{c}`")));
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
        _ => return Err(PatternError(format!("invalid escape `\\{c}`"))),
    }
    Ok(i)
}

/// The reserved doubled punctuators of the `v` grammar (`&&` is an operator).
const RESERVED_DOUBLES: &str = "!#$%*+,.:;<=>?@^`~";
/// What a `v` class may escape besides what every class may: its reserved punctuators.
const V_ESCAPABLE: &str = "&-!#%,:;<=>@`~";

/// Translates a `v`-flag class whose `[` is just before `chars[i]`, nested classes and set
/// operations included; returns the index after its `]`.
fn translate_class_v(
    chars: &[char],
    mut i: usize,
    out: &mut String,
    depth: usize,
) -> Result<usize, PatternError> {
    if depth > 32 {
        return Err("classes nest too deeply".into());
    }
    let negated = chars.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    // An empty class matches nothing; negated, any code point.
    if chars.get(i) == Some(&']') {
        out.push_str(if negated {
            r"[\x{0}-\x{10FFFF}]"
        } else {
            r"[^\x{0}-\x{10FFFF}]"
        });
        return Ok(i + 1);
    }
    out.push_str(if negated { "[^" } else { "[" });
    // The operator of this level (`&&` or `--`), if any, and whether a range or a union
    // of several operands was seen (which an operator may not be mixed with).
    let mut operator: Option<char> = None;
    let mut operands_in_a_row = 0;
    let mut saw_range = false;
    loop {
        let Some(&c) = chars.get(i) else {
            return Err("unterminated character class".into());
        };
        i += 1;
        match c {
            ']' => break,
            '[' => {
                i = translate_class_v(chars, i, out, depth + 1)?;
                operands_in_a_row += 1;
            }
            '&' | '-' if chars.get(i) == Some(&c) => {
                if c == '&' && chars.get(i + 1) == Some(&'&') {
                    return Err("`&&&` in a class".into());
                }
                if operator.is_some_and(|o| o != c) || saw_range || operands_in_a_row != 1 {
                    return Err("set operations are mixed with each other or with a union".into());
                }
                operator = Some(c);
                operands_in_a_row = 0;
                out.push(c);
                out.push(c);
                i += 1;
            }
            '-' => {
                // A range between two single characters.
                if operands_in_a_row == 0 || operator.is_some() {
                    return Err("`-` must be escaped in a class".into());
                }
                let Some(&next) = chars.get(i) else {
                    return Err("unterminated character class".into());
                };
                if matches!(next, '[' | ']') {
                    return Err("`-` must be escaped in a class".into());
                }
                out.push('-');
                saw_range = true;
                if next == '\\' {
                    i = translate_escape_v(chars, i + 1, out)?;
                } else {
                    push_code_point(out, u32::from(next));
                    i += 1;
                }
            }
            '\\' => {
                i = translate_escape_v(chars, i, out)?;
                operands_in_a_row += 1;
            }
            '(' | ')' | '{' | '}' | '/' | '|' => {
                return Err(PatternError(format!("`{c}` must be escaped in a class")));
            }
            _ if RESERVED_DOUBLES.contains(c) && chars.get(i) == Some(&c) => {
                return Err(PatternError(format!("`{c}{c}` is reserved in a class")));
            }
            _ => {
                push_code_point(out, u32::from(c));
                operands_in_a_row += 1;
            }
        }
        if operator.is_some() && operands_in_a_row > 1 {
            return Err("set operations are mixed with a union".into());
        }
    }
    if operator.is_some() && operands_in_a_row != 1 {
        return Err("a set operation lacks an operand".into());
    }
    out.push(']');
    Ok(i)
}

/// An escape in a `v` class, whose `\` is just before `chars[i]`.
fn translate_escape_v(chars: &[char], i: usize, out: &mut String) -> Result<usize, PatternError> {
    match chars.get(i) {
        Some('q') => Err(r"string disjunctions (`\q{...}`) are not supported".into()),
        Some(&c) if V_ESCAPABLE.contains(c) => {
            push_code_point(out, u32::from(c));
            Ok(i + 1)
        }
        _ => translate_escape(chars, i, true, out),
    }
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
fn unicode_escape(chars: &[char], i: usize) -> Result<(u32, usize), PatternError> {
    let invalid = || PatternError::from(r"invalid escape `\u`");
    let lone = || PatternError::from("escapes of lone surrogates are not supported");
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
