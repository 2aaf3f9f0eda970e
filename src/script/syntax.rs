//! The lexical layer the page script and the scenario language share: logical lines (physical
//! lines joined while brackets are open, with where each character came from), their
//! indentation tree, tokens, and a cursor over one line's tokens. Errors name the file, line
//! and column, what was found and what was expected.

use super::lexer::{lex, Tok, Token};

/// A problem in a scenario file or a page script: where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}:{line}:{column}: {message}")]
pub struct ParseError {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// A logical line: physical lines joined while brackets are open, with where each character
/// came from, and the lines indented under it.
#[derive(Clone, Debug)]
pub struct Line {
    pub indent: usize,
    pub text: String,
    pub positions: Vec<(u32, u32)>,
    pub line: u32,
    pub column: u32,
    pub children: Vec<Line>,
}

pub fn logical_lines(path: &str, lines: &[String]) -> Result<Vec<Line>, ParseError> {
    let mut out: Vec<Line> = Vec::new();
    let mut open: Option<Line> = None;
    let mut depth: i32 = 0;
    for (i, raw) in lines.iter().enumerate() {
        let n = i as u32 + 1;
        if let Some(col) = raw.find('\t').filter(|c| raw[..*c].trim().is_empty()) {
            return Err(ParseError {
                path: path.into(),
                line: n,
                column: col as u32 + 1,
                message: "a tab in the indentation: indent with spaces".into(),
            });
        }
        let indent = raw.len() - raw.trim_start().len();
        let content = &raw[indent..];
        let mut quote: Option<char> = None;
        // Where the string still open is started, in characters of `content`.
        let mut quote_at = 0;
        let mut escaped = false;
        let mut kept = String::new();
        let mut positions = Vec::new();
        for (j, c) in content.chars().enumerate() {
            if quote.is_none() && c == '#' {
                break;
            }
            match quote {
                Some(q) => {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == q {
                        quote = None;
                    }
                }
                None => match c {
                    '"' | '\'' | '`' => {
                        quote = Some(c);
                        quote_at = j;
                    }
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' => depth -= 1,
                    _ => {}
                },
            }
            kept.push(c);
            positions.push((n, (indent + j) as u32 + 1));
        }
        // A string does not go on to the next line: with a bracket open, the line would
        // continue, and the string's end be looked for in the lines that follow.
        if let Some(q) = quote.filter(|_| depth > 0) {
            return Err(ParseError {
                path: path.into(),
                line: n,
                column: (indent + quote_at) as u32 + 1,
                message: format!(
                    "a string started here is not closed with {q} on its line (a string does not continue onto the next line)"
                ),
            });
        }
        let kept_trimmed = kept.trim_end().to_string();
        positions.truncate(kept_trimmed.chars().count());
        match open.as_mut() {
            Some(line) => {
                line.text.push(' ');
                line.positions.push((n, indent as u32));
                line.text.push_str(&kept_trimmed);
                line.positions.extend(positions);
            }
            None => {
                if kept_trimmed.is_empty() {
                    continue;
                }
                open = Some(Line {
                    indent,
                    text: kept_trimmed,
                    positions,
                    line: n,
                    column: indent as u32 + 1,
                    children: Vec::new(),
                });
            }
        }
        if depth <= 0 {
            depth = 0;
            if let Some(line) = open.take() {
                out.push(line);
            }
        }
    }
    if let Some(line) = open {
        return Err(ParseError {
            path: path.into(),
            line: line.line,
            column: line.column,
            message: "a bracket opened on this line is never closed".into(),
        });
    }
    Ok(out)
}

/// How deep blocks may nest (indented, or one after another's `:` on a line), and how deep an
/// expression may (brackets, calls, and the links of a member or index chain, `a.b[0].c`):
/// the parser, the interpreter and the JavaScript emitter recurse on both, so each is bounded.
pub const MAX_NESTING: u32 = 128;

pub fn build_tree(path: &str, lines: Vec<Line>) -> Result<Vec<Line>, ParseError> {
    fn take(
        lines: &[Line],
        i: &mut usize,
        indent: usize,
        path: &str,
        depth: u32,
    ) -> Result<Vec<Line>, ParseError> {
        if depth > MAX_NESTING {
            let line = &lines[*i];
            return Err(ParseError {
                path: path.into(),
                line: line.line,
                column: line.column,
                message: format!("blocks nest more than {MAX_NESTING} deep"),
            });
        }
        let mut out: Vec<Line> = Vec::new();
        while *i < lines.len() {
            let line = &lines[*i];
            if line.indent < indent {
                break;
            }
            if line.indent > indent {
                let Some(parent) = out.last_mut() else {
                    return Err(ParseError {
                        path: path.into(),
                        line: line.line,
                        column: line.column,
                        message: "this line is indented more than the line it follows belongs to"
                            .into(),
                    });
                };
                let child_indent = line.indent;
                parent.children = take(lines, i, child_indent, path, depth + 1)?;
                continue;
            }
            out.push(line.clone());
            *i += 1;
        }
        Ok(out)
    }
    let mut i = 0;
    let base = lines.first().map(|l| l.indent).unwrap_or(0);
    let tree = take(&lines, &mut i, base, path, 0)?;
    if let Some(line) = lines.get(i) {
        return Err(ParseError {
            path: path.into(),
            line: line.line,
            column: line.column,
            message: format!(
                "this line is indented less than the first line ({} spaces)",
                base
            ),
        });
    }
    Ok(tree)
}

pub fn lex_line(path: &str, line: &Line) -> Result<Vec<Token>, ParseError> {
    lex(&line.text, &line.positions).map_err(|e| ParseError {
        path: path.into(),
        line: e.line,
        column: e.column,
        message: e.message,
    })
}

/// A cursor over one logical line's tokens.
pub struct Cursor<'a> {
    pub(crate) path: &'a str,
    pub(crate) toks: &'a [Token],
    pub(crate) pos: usize,
    /// Where the line ends, for "found end of line".
    pub(crate) end_at: (u32, u32),
    /// Parsing an expectation, which may end in a tag list.
    pub(crate) in_expectation: bool,
    /// How deep brackets nest at this point.
    pub(crate) depth: u32,
}

impl<'a> Cursor<'a> {
    /// A cursor over tokens nested in the current one's (a template literal's substitution):
    /// same file, the same nesting depth carried on, its end where its last token is.
    pub fn sub<'b>(&self, toks: &'b [Token]) -> Cursor<'b>
    where
        'a: 'b,
    {
        let end_at = toks.last().map_or(self.end_at, |t| (t.line, t.column + 1));
        Cursor {
            path: self.path,
            toks,
            pos: 0,
            end_at,
            in_expectation: false,
            depth: self.depth,
        }
    }

    pub fn new(path: &'a str, toks: &'a [Token], line: &Line) -> Cursor<'a> {
        let end_at = line
            .positions
            .last()
            .map(|(l, c)| (*l, c + 1))
            .unwrap_or((line.line, line.column));
        Cursor {
            path,
            toks,
            pos: 0,
            end_at,
            in_expectation: false,
            depth: 0,
        }
    }

    /// One level deeper in an expression: past [`MAX_NESTING`] that is an error here. Each
    /// bracket, argument list, and link of a member or index chain (`a.b[0].c()`) is a level.
    /// The caller restores `depth` when the level ends.
    pub fn nest(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.error_here(format!(
                "an expression nests more than {MAX_NESTING} deep here (each bracket, argument list, and link of a member or index chain is a level)"
            )));
        }
        Ok(())
    }

    pub fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }

    pub fn next_token(&mut self) -> Option<&Token> {
        let t = self.toks.get(self.pos);
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    pub fn position(&self) -> (u32, u32) {
        self.peek()
            .map(|t| (t.line, t.column))
            .unwrap_or(self.end_at)
    }

    pub fn error_here(&self, message: String) -> ParseError {
        let (line, column) = self.position();
        ParseError {
            path: self.path.into(),
            line,
            column,
            message,
        }
    }

    pub fn error_prev(&self, message: String) -> ParseError {
        let t = self.toks.get(self.pos.saturating_sub(1));
        let (line, column) = t.map(|t| (t.line, t.column)).unwrap_or(self.end_at);
        ParseError {
            path: self.path.into(),
            line,
            column,
            message,
        }
    }

    pub fn found(&self) -> String {
        match self.peek() {
            Some(t) => t.tok.to_string(),
            None => "the end of the line".into(),
        }
    }

    pub fn error_expected(&self, what: &str) -> ParseError {
        self.error_here(format!("expected {what}, found {}", self.found()))
    }

    pub fn keyword(&mut self, kw: &str) -> Result<(), ParseError> {
        if self.eat_keyword(kw) {
            Ok(())
        } else {
            Err(self.error_expected(&format!("`{kw}`")))
        }
    }

    pub fn peek_keyword(&self, kw: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Ident(w), .. }) if w == kw)
    }

    pub fn eat_keyword(&mut self, kw: &str) -> bool {
        if matches!(self.peek(), Some(Token { tok: Tok::Ident(w), .. }) if w == kw) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub fn peek_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Punct(q), .. }) if *q == p)
    }

    pub fn eat_punct(&mut self, p: &str) -> bool {
        if self.peek_punct(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub fn optional_punct(&mut self, p: &str) {
        self.eat_punct(p);
    }

    pub fn punct(&mut self, p: &str) -> Result<(), ParseError> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            Err(self.error_expected(&format!("`{p}`")))
        }
    }

    pub fn ident(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Token {
                tok: Tok::Ident(w), ..
            }) => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.error_expected(what)),
        }
    }

    pub fn string(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Token {
                tok: Tok::Str(s), ..
            }) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.error_expected(what)),
        }
    }

    pub fn url(&mut self) -> Result<String, ParseError> {
        match self.peek() {
            Some(Token {
                tok: Tok::Url(u), ..
            })
            | Some(Token {
                tok: Tok::Str(u), ..
            }) => {
                let u = u.clone();
                self.pos += 1;
                Ok(u)
            }
            _ => Err(self.error_expected("a URL such as https://a.test/")),
        }
    }

    pub fn duration(&mut self) -> Result<u64, ParseError> {
        match self.peek() {
            Some(Token {
                tok: Tok::Duration(ms),
                ..
            }) => {
                let ms = *ms;
                self.pos += 1;
                Ok(ms)
            }
            _ => Err(self.error_expected("a duration such as 100ms or 5s")),
        }
    }

    pub fn end(&self) -> Result<(), ParseError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error_here(format!(
                "expected the end of the line, found {}",
                self.found()
            )))
        }
    }

    /// Whether the tokens from here to the end are an expectation's tag list: `[name, ...]`
    /// or `[switch=value, ...]`. Only expectations have tags.
    /// Whether the rest of the line is an expectation's tag list (`[spec, chromium]`).
    pub fn tags_follow(&self) -> bool {
        let p = self;
        if !p.in_expectation {
            return false;
        }
        let rest = &p.toks[p.pos..];
        if rest.len() < 3
            || !matches!(rest[0].tok, Tok::Punct("["))
            || !matches!(rest[rest.len() - 1].tok, Tok::Punct("]"))
        {
            return false;
        }
        rest[1..rest.len() - 1]
            .split(|t| t.tok == Tok::Punct(",") || t.tok == Tok::Punct("&"))
            .all(|tag| {
                matches!(
                    tag,
                    [Token {
                        tok: Tok::Ident(_),
                        ..
                    }] | [
                        Token {
                            tok: Tok::Ident(_),
                            ..
                        },
                        Token {
                            tok: Tok::Punct("="),
                            ..
                        },
                        Token {
                            tok: Tok::Ident(_) | Tok::Number(_) | Tok::Duration(_),
                            ..
                        }
                    ]
                )
            })
    }
}
