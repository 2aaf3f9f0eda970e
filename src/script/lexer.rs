//! Tokens of the scenario language, each with its line and column.

use std::fmt;

use crate::text::js_string::{lone_surrogate, pair_up};

/// A token's kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A name or keyword: letters, digits, `_`, `$`, and `-` after the first character.
    Ident(String),
    Number(f64),
    /// A number of milliseconds: `100ms`, `5s`.
    Duration(u64),
    Str(String),
    /// A URL written without quotes: `https://a.test/x`.
    Url(String),
    /// A template literal: `` `text ${expr} text` ``, its text cooked and each substitution
    /// lexed.
    Template(Vec<TemplatePiece>),
    Punct(&'static str),
}

/// A piece of a template literal.
#[derive(Clone, Debug, PartialEq)]
pub enum TemplatePiece {
    Text(String),
    /// The tokens of a `${...}` substitution.
    Substitution(Vec<Token>),
}

/// How many characters of a file's text a message quotes.
pub const QUOTED_CHARS: usize = 60;

/// Names for a message that lists them: at most 40, each as [`shown`], and how many more there
/// are; `(none)` for none.
pub fn listed<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    const LISTED: usize = 40;
    let mut out: Vec<String> = Vec::new();
    let mut more = 0;
    for name in names {
        if out.len() < LISTED {
            out.push(shown(name).into_owned());
        } else {
            more += 1;
        }
    }
    if out.is_empty() {
        return "(none)".into();
    }
    let mut text = out.join(", ");
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

/// Text of the file as a message quotes it: at most [`QUOTED_CHARS`] characters, and, when cut,
/// how many more there were.
pub fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(QUOTED_CHARS) {
        None => text.into(),
        Some((end, _)) => format!(
            "{}... ({} more characters)",
            &text[..end],
            text[end..].chars().count()
        )
        .into(),
    }
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{}`", shown(s)),
            Tok::Number(n) => write!(f, "number {n}"),
            Tok::Duration(ms) => write!(f, "duration {ms}ms"),
            Tok::Str(s) => write!(f, "string {:?}", shown(s)),
            Tok::Url(u) => write!(f, "URL {}", shown(u)),
            Tok::Template(_) => write!(f, "a template literal"),
            Tok::Punct(p) => write!(f, "`{p}`"),
        }
    }
}

/// A token and where it starts (1-based).
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub line: u32,
    pub column: u32,
}

/// A lexing error: where, and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct LexError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// The longest duration a file may write. The virtual clock counts milliseconds in 64 bits: the
/// lines of a file within the size limit cannot add up enough of these to reach the end of its
/// range (where the clock would stop, its additions saturating).
pub const MAX_DURATION_MS: u64 = 1_000_000_000_000;

const PUNCTS: &[&str] = &[
    "===", "!==", "==", "=>", "!=", "(", ")", "[", "]", "{", "}", ",", ":", ".", "=", "&", "!",
];

/// Splits one logical line (already joined across open brackets) into tokens. `line` and
/// `columns` map each character back to its place in the file. A `#` outside a string starts a
/// comment.
pub fn lex(text: &str, positions: &[(u32, u32)]) -> Result<Vec<Token>, LexError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let pos = |i: usize| {
        positions
            .get(i)
            .copied()
            .unwrap_or_else(|| positions.last().copied().unwrap_or((1, 1)))
    };
    while i < chars.len() {
        let c = chars[i];
        let (line, column) = pos(i);
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '#' {
            break;
        }
        if c == '`' {
            let (pieces, next) = template(&chars, i + 1, positions, (line, column), 0)?;
            out.push(Token {
                tok: Tok::Template(pieces),
                line,
                column,
            });
            i = next;
            continue;
        }
        if c == '"' || c == '\'' {
            let quote = c;
            let mut s = String::new();
            i += 1;
            loop {
                let Some(&ch) = chars.get(i) else {
                    return Err(LexError {
                        line,
                        column,
                        message: format!("string started here is not closed with {quote}"),
                    });
                };
                i += 1;
                if ch == quote {
                    break;
                }
                if ch == '\\' {
                    let Some(&esc) = chars.get(i) else {
                        return Err(LexError {
                            line,
                            column,
                            message: "string ends in the middle of an escape".into(),
                        });
                    };
                    i += 1;
                    s.push(match esc {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        '0' => '\0',
                        '\\' | '"' | '\'' => esc,
                        'u' => match unicode_escape(&chars, i) {
                            Ok((ch, next)) => {
                                i = next;
                                ch
                            }
                            Err((at, message)) => {
                                let (l, c) = pos(at);
                                return Err(LexError {
                                    line: l,
                                    column: c,
                                    message,
                                });
                            }
                        },
                        other => {
                            let (l, c) = pos(i - 1);
                            return Err(LexError {
                                line: l,
                                column: c,
                                message: format!("unknown escape \\{other}"),
                            });
                        }
                    });
                } else {
                    s.push(ch);
                }
            }
            out.push(Token {
                tok: Tok::Str(pair_up(s)),
                line,
                column,
            });
            continue;
        }
        let starts_number = c.is_ascii_digit()
            || (c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()));
        if starts_number {
            let start = i;
            i += 1;
            while i < chars.len()
                && (chars[i].is_ascii_digit() || chars[i] == '.' || chars[i] == '_')
            {
                i += 1;
            }
            if i < chars.len()
                && (chars[i] == 'e' || chars[i] == 'E')
                && chars
                    .get(i + 1)
                    .is_some_and(|d| d.is_ascii_digit() || *d == '-' || *d == '+')
            {
                i += 2;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            let digits: String = chars[start..i].iter().filter(|c| **c != '_').collect();
            // A step number such as 18.2.1 is a word, not a number.
            if digits.matches('.').count() > 1 {
                out.push(Token {
                    tok: Tok::Ident(digits),
                    line,
                    column,
                });
                continue;
            }
            let unit_start = i;
            while i < chars.len() && chars[i].is_ascii_alphabetic() {
                i += 1;
            }
            let unit: String = chars[unit_start..i].iter().collect();
            let n: f64 = digits.parse().map_err(|_| LexError {
                line,
                column,
                message: format!("`{}` is not a number", shown(&digits)),
            })?;
            let tok = match unit.as_str() {
                "" => Tok::Number(n),
                "ms" | "s" if n >= 0.0 && n.fract() == 0.0 => {
                    let ms = if unit == "s" { n * 1000.0 } else { n };
                    if ms > MAX_DURATION_MS as f64 {
                        return Err(LexError {
                            line,
                            column,
                            message: format!(
                                "`{}{unit}`: a duration is at most {MAX_DURATION_MS}ms (about 31 years of virtual time)",
                                shown(&digits)
                            ),
                        });
                    }
                    Tok::Duration(ms as u64)
                }
                _ => {
                    return Err(LexError {
                        line,
                        column,
                        message: format!(
                            "`{}{}`: expected a number, or a whole duration in `ms` or `s`",
                            shown(&digits),
                            shown(&unit)
                        ),
                    })
                }
            };
            out.push(Token { tok, line, column });
            continue;
        }
        if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric()
                    || chars[i] == '_'
                    || chars[i] == '$'
                    || chars[i] == '-')
            {
                i += 1;
            }
            // `scheme://...` is a URL up to the next space.
            if chars.get(i) == Some(&':')
                && chars.get(i + 1) == Some(&'/')
                && chars.get(i + 2) == Some(&'/')
            {
                while i < chars.len() && !chars[i].is_whitespace() {
                    i += 1;
                }
                let url: String = chars[start..i].iter().collect();
                out.push(Token {
                    tok: Tok::Url(url),
                    line,
                    column,
                });
                continue;
            }
            let word: String = chars[start..i].iter().collect();
            out.push(Token {
                tok: Tok::Ident(word),
                line,
                column,
            });
            continue;
        }
        let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
        if let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) {
            i += p.chars().count();
            out.push(Token {
                tok: Tok::Punct(p),
                line,
                column,
            });
            continue;
        }
        return Err(LexError {
            line,
            column,
            message: format!("unexpected character {c:?}"),
        });
    }
    Ok(out)
}

/// Template literals nest (a substitution may hold a template): a limit keeps a hostile file
/// from exhausting the stack.
const MAX_TEMPLATE_NESTING: usize = 16;

/// Lexes a template literal whose text starts at `start` (just after its opening backtick):
/// its pieces, and the index just after its closing backtick. Escapes are cooked as in a
/// string; a substitution runs to its matching `}` (braces and strings inside it counted) and
/// is lexed on its own.
fn template(
    chars: &[char],
    start: usize,
    positions: &[(u32, u32)],
    (line, column): (u32, u32),
    depth: usize,
) -> Result<(Vec<TemplatePiece>, usize), LexError> {
    let pos = |i: usize| {
        positions
            .get(i)
            .copied()
            .unwrap_or_else(|| positions.last().copied().unwrap_or((1, 1)))
    };
    if depth > MAX_TEMPLATE_NESTING {
        return Err(LexError {
            line,
            column,
            message: format!("template literals nested more than {MAX_TEMPLATE_NESTING} deep"),
        });
    }
    let unclosed = || LexError {
        line,
        column,
        message: "template literal started here is not closed with `".into(),
    };
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut i = start;
    loop {
        let Some(&ch) = chars.get(i) else {
            return Err(unclosed());
        };
        match ch {
            '`' => {
                if !text.is_empty() {
                    pieces.push(TemplatePiece::Text(pair_up(text)));
                }
                return Ok((pieces, i + 1));
            }
            '\\' => {
                let Some(&esc) = chars.get(i + 1) else {
                    return Err(unclosed());
                };
                if esc == 'u' {
                    match unicode_escape(chars, i + 2) {
                        Ok((ch, next)) => {
                            text.push(ch);
                            i = next;
                            continue;
                        }
                        Err((at, message)) => {
                            let (l, c) = pos(at);
                            return Err(LexError {
                                line: l,
                                column: c,
                                message,
                            });
                        }
                    }
                }
                text.push(match esc {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    '0' => '\0',
                    '\\' | '`' | '$' | '"' | '\'' | '{' | '}' => esc,
                    other => {
                        let (l, c) = pos(i + 1);
                        return Err(LexError {
                            line: l,
                            column: c,
                            message: format!("unknown escape \\{other} in a template literal"),
                        });
                    }
                });
                i += 2;
            }
            '$' if chars.get(i + 1) == Some(&'{') => {
                if !text.is_empty() {
                    pieces.push(TemplatePiece::Text(pair_up(std::mem::take(&mut text))));
                }
                let (sub_line, sub_column) = pos(i);
                let inner_start = i + 2;
                let mut k = inner_start;
                let mut braces = 0usize;
                loop {
                    let Some(&c) = chars.get(k) else {
                        return Err(LexError {
                            line: sub_line,
                            column: sub_column,
                            message: "`${` in a template literal is not closed with `}`".into(),
                        });
                    };
                    match c {
                        '{' => braces += 1,
                        '}' if braces == 0 => break,
                        '}' => braces -= 1,
                        '"' | '\'' => {
                            k += 1;
                            while chars.get(k).is_some_and(|&d| d != c) {
                                k += if chars[k] == '\\' { 2 } else { 1 };
                            }
                        }
                        '`' => {
                            let (_, next) = template(chars, k + 1, positions, pos(k), depth + 1)?;
                            k = next;
                            continue;
                        }
                        _ => {}
                    }
                    k += 1;
                }
                let inner: String = chars[inner_start..k].iter().collect();
                let inner_positions: Vec<(u32, u32)> = (inner_start..k).map(pos).collect();
                let tokens = lex(&inner, &inner_positions)?;
                if tokens.is_empty() {
                    return Err(LexError {
                        line: sub_line,
                        column: sub_column,
                        message: "`${}` in a template literal holds no expression".into(),
                    });
                }
                pieces.push(TemplatePiece::Substitution(tokens));
                i = k + 1;
            }
            other => {
                text.push(other);
                i += 1;
            }
        }
    }
}

/// Four hex digits at `at`, as a UTF-16 code unit.
fn code_unit(chars: &[char], at: usize) -> Option<u32> {
    let hex: String = chars.iter().skip(at).take(4).collect();
    if hex.len() != 4 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(&hex, 16).ok()
}

/// The escape after `\u` (at `at`, just past the `u`): `XXXX`, a surrogate pair
/// `\uD83D\uDE00`, or `{X...}`. Returns the character and where the string goes on, or where
/// the escape is wrong and why. A surrogate that is not half of a pair here is a lone surrogate,
/// as in JavaScript (see `text::js_string`); the string it ends up in pairs a high one with a low
/// one that a later escape writes (`"\uD83D\u{DE00}"`).
fn unicode_escape(chars: &[char], at: usize) -> Result<(char, usize), (usize, String)> {
    let lone = |unit: u32| lone_surrogate(unit as u16).expect("a surrogate");
    if chars.get(at) == Some(&'{') {
        let digits: String = chars[at + 1..]
            .iter()
            .take_while(|c| c.is_ascii_hexdigit())
            .collect();
        let end = at + 1 + digits.len();
        let code = (!digits.is_empty() && digits.len() <= 6 && chars.get(end) == Some(&'}'))
            .then(|| u32::from_str_radix(&digits, 16).ok())
            .flatten();
        return match code {
            Some(c) if (0xD800..=0xDFFF).contains(&c) => Ok((lone(c), end + 1)),
            Some(c) => match char::from_u32(c) {
                Some(ch) => Ok((ch, end + 1)),
                None => Err((
                    at,
                    format!("\\u{{{digits}}} is past U+10FFFF, the last code point"),
                )),
            },
            None => Err((
                at,
                "expected \\u{X...}: one to six hex digits between braces".into(),
            )),
        };
    }
    let found = || chars.iter().skip(at).take(4).collect::<String>();
    let Some(unit) = code_unit(chars, at) else {
        return Err((
            at,
            format!(
                "expected four hex digits (or {{X...}}) after \\u, found {:?}",
                found()
            ),
        ));
    };
    match unit {
        0xD800..=0xDBFF => {
            let low = (chars.get(at + 4) == Some(&'\\') && chars.get(at + 5) == Some(&'u'))
                .then(|| code_unit(chars, at + 6))
                .flatten()
                .filter(|l| (0xDC00..=0xDFFF).contains(l));
            match low {
                Some(low) => {
                    let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    Ok((
                        char::from_u32(c).expect("a surrogate pair is a code point"),
                        at + 10,
                    ))
                }
                None => Ok((lone(unit), at + 4)),
            }
        }
        0xDC00..=0xDFFF => Ok((lone(unit), at + 4)),
        _ => Ok((char::from_u32(unit).expect("not a surrogate"), at + 4)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let pos: Vec<(u32, u32)> = (0..s.chars().count()).map(|i| (1, i as u32 + 1)).collect();
        lex(s, &pos).unwrap().into_iter().map(|t| t.tok).collect()
    }

    fn lex_err(s: &str) -> LexError {
        let pos: Vec<(u32, u32)> = (0..s.chars().count()).map(|i| (1, i as u32 + 1)).collect();
        lex(s, &pos).unwrap_err()
    }

    #[test]
    fn lexes_a_template_literal_with_substitutions() {
        let [Tok::Template(pieces)] = &toks("`a ${x.y} \\` b ${`in ${z}`}# not a comment`")[..]
        else {
            panic!("one template");
        };
        assert_eq!(pieces.len(), 5);
        assert_eq!(pieces[0], TemplatePiece::Text("a ".into()));
        let TemplatePiece::Substitution(first) = &pieces[1] else {
            panic!("a substitution");
        };
        assert_eq!(
            first.iter().map(|t| t.tok.clone()).collect::<Vec<_>>(),
            [
                Tok::Ident("x".into()),
                Tok::Punct("."),
                Tok::Ident("y".into())
            ]
        );
        // Positions are the file's: `x` is the 6th character.
        assert_eq!((first[0].line, first[0].column), (1, 6));
        assert_eq!(pieces[2], TemplatePiece::Text(" ` b ".into()));
        let TemplatePiece::Substitution(nested) = &pieces[3] else {
            panic!("a substitution");
        };
        assert!(matches!(
            nested[..],
            [Token {
                tok: Tok::Template(_),
                ..
            }]
        ));
        assert_eq!(pieces[4], TemplatePiece::Text("# not a comment".into()));
        assert_eq!(
            toks("`# kept`"),
            [Tok::Template(vec![TemplatePiece::Text("# kept".into())])]
        );
    }

    #[test]
    fn a_broken_template_literal_says_where() {
        let e = lex_err("x = `open ${a");
        assert_eq!((e.line, e.column), (1, 11), "{e}");
        assert!(e.message.contains("not closed with `}`"), "{e}");
        let e = lex_err("x = `never closed");
        assert_eq!((e.line, e.column), (1, 5), "{e}");
        let e = lex_err("`${}`");
        assert!(e.message.contains("holds no expression"), "{e}");
        let e = lex_err("`\\q`");
        assert!(e.message.contains("unknown escape"), "{e}");
        let deep = format!("{}x{}", "`${".repeat(40), "}`".repeat(40));
        assert!(lex_err(&deep).message.contains("nested more than"));
    }

    #[test]
    fn lexes_the_pieces_of_a_scenario_line() {
        assert_eq!(
            toks("frame child in top https://a.test/c.html allow=\"tools *\" # note"),
            vec![
                Tok::Ident("frame".into()),
                Tok::Ident("child".into()),
                Tok::Ident("in".into()),
                Tok::Ident("top".into()),
                Tok::Url("https://a.test/c.html".into()),
                Tok::Ident("allow".into()),
                Tok::Punct("="),
                Tok::Str("tools *".into()),
            ]
        );
        assert_eq!(
            toks("run 5s"),
            vec![Tok::Ident("run".into()), Tok::Duration(5000)]
        );
        assert_eq!(
            toks("expect o => timed-out [spec, pr373-r1]")[2..4],
            [Tok::Punct("=>"), Tok::Ident("timed-out".into())]
        );
        assert_eq!(
            toks("x == -1.5"),
            vec![Tok::Ident("x".into()), Tok::Punct("=="), Tok::Number(-1.5)]
        );
    }

    #[test]
    fn reports_where_a_string_is_left_open() {
        let pos: Vec<(u32, u32)> = (0..10).map(|i| (7, i + 1)).collect();
        let e = lex("log \"oops", &pos).unwrap_err();
        assert_eq!((e.line, e.column), (7, 5));
    }

    #[test]
    fn unicode_escapes_read_surrogate_pairs_and_braces_and_keep_a_lone_half() {
        let text = |src: &str| match lex(src, &[]).map(|t| t[0].tok.clone()) {
            Ok(Tok::Str(s)) => Ok(s),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.message),
        };
        assert_eq!(text(r#""\ud83d\ude00""#).unwrap(), "\u{1F600}");
        assert_eq!(text(r#""\u{1F600}\u0041""#).unwrap(), "\u{1F600}A");
        let high = lone_surrogate(0xD83D).unwrap();
        let low = lone_surrogate(0xDE00).unwrap();
        assert_eq!(text(r#""\ud83d!""#).unwrap(), format!("{high}!"));
        assert_eq!(text(r#""\ude00\ud83d""#).unwrap(), format!("{low}{high}"));
        // Halves written by two escapes of different forms are still one pair.
        assert_eq!(text(r#""\ud83d\u{de00}""#).unwrap(), "\u{1F600}");
        assert_eq!(
            text(r#""\u{D800}""#).unwrap(),
            lone_surrogate(0xD800).unwrap().to_string()
        );
        let bad = text(r#""\u12""#).unwrap_err();
        assert!(bad.contains("expected four hex digits"), "{bad}");
    }
}
