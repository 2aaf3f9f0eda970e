//! Tokens of the scenario language, each with its line and column.

use std::fmt;

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
    Punct(&'static str),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Number(n) => write!(f, "number {n}"),
            Tok::Duration(ms) => write!(f, "duration {ms}ms"),
            Tok::Str(s) => write!(f, "string {s:?}"),
            Tok::Url(u) => write!(f, "URL {u}"),
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

const PUNCTS: &[&str] = &[
    "==", "=>", "!=", "(", ")", "[", "]", "{", "}", ",", ":", ".", "=", "&",
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
                        'u' => {
                            let hex: String = chars.iter().skip(i).take(4).collect();
                            let code = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                            let Some(ch) = code.filter(|_| hex.len() == 4) else {
                                let (l, c) = pos(i);
                                return Err(LexError {
                                    line: l,
                                    column: c,
                                    message: format!(
                                        "expected four hex digits after \\u, found {hex:?}"
                                    ),
                                });
                            };
                            i += 4;
                            ch
                        }
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
                tok: Tok::Str(s),
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
                message: format!("`{digits}` is not a number"),
            })?;
            let tok = match unit.as_str() {
                "" => Tok::Number(n),
                "ms" | "s" if n >= 0.0 && n.fract() == 0.0 => Tok::Duration(if unit == "s" {
                    n as u64 * 1000
                } else {
                    n as u64
                }),
                _ => {
                    return Err(LexError {
                        line,
                        column,
                        message: format!(
                        "`{digits}{unit}`: expected a number, or a whole duration in `ms` or `s`"
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
        let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let pos: Vec<(u32, u32)> = (0..s.chars().count()).map(|i| (1, i as u32 + 1)).collect();
        lex(s, &pos).unwrap().into_iter().map(|t| t.tok).collect()
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
}
