//! The block structure of Bikeshed markdown, ported from Bikeshed's
//! `markdown.py` (`tokenizeLines` and `parseTokens`) so that list nesting is
//! decided exactly as Bikeshed decides it:
//!
//! * indentation is counted in whole units of the metadata's `Indent` (a tab is
//!   one unit), not in spaces;
//! * a list item runs until the next marker of its list at the same indentation,
//!   a line indented less than its marker, or a blank line followed by a
//!   non-marker line that is not indented more than the marker;
//! * the item's lines are then parsed again as blocks, which is where nested
//!   lists, `Note:` and `Issue:` paragraphs inside a step come from;
//! * a paragraph (and so a note or an issue) only starts after a blank line.
//!
//! Tokens keep two texts: `text` (the markup, used to classify the line) and
//! `visible` (the same characters with asides such as notes blanked), used for
//! step text.

pub(crate) const INFINITE: usize = usize::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Blank,
    EqualsLine,
    DashLine,
    Heading,
    Rule,
    Numbered(i64),
    Bulleted,
    Dt,
    Dd,
    Blockquote,
    HtmlBlock,
    Text,
    Raw,
}

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub line: usize,
    pub kind: Kind,
    /// Indentation in units; `INFINITE` for blank lines and raw content.
    pub prefix: usize,
    /// The line's markup after any list marker, trimmed.
    pub text: String,
    /// `text` with the characters of asides blanked; same length as `text`.
    pub visible: String,
    /// Nothing visible: the line belongs to an aside or raw block.
    pub excluded: bool,
    /// Indices into the caller's attachment list (issue boxes, HTML lists)
    /// that start on this line.
    pub attachments: Vec<usize>,
}

/// Inline elements that may start an ordinary text line (Bikeshed's list).
const INLINE_ELEMENTS: &[&str] = &[
    "a", "em", "strong", "small", "s", "cite", "q", "dfn", "abbr", "data", "time", "code", "var",
    "samp", "kbd", "sub", "sup", "i", "b", "u", "mark", "ruby", "bdi", "bdo", "span", "br", "wbr",
    "img", "meter", "progress", "css", "l",
];

fn starts_inline(text: &str) -> bool {
    let rest = text
        .trim_start()
        .trim_start_matches('<')
        .trim_start_matches('/');
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    if name.is_empty() {
        return true;
    }
    INLINE_ELEMENTS.contains(&name.as_str()) || name.contains('-')
}

/// Classifies a trimmed line; also returns how many characters its marker
/// (and the whitespace after it) takes.
pub(crate) fn classify(trimmed: &str) -> (Kind, usize) {
    let chars: Vec<char> = trimmed.chars().collect();
    if chars.is_empty() {
        return (Kind::Blank, 0);
    }
    let all_then_ws = |ch: char| {
        let run = chars.iter().take_while(|&&c| c == ch).count();
        run >= 3 && chars[run..].iter().all(|c| c.is_whitespace())
    };
    if all_then_ws('=') {
        return (Kind::EqualsLine, 0);
    }
    if all_then_ws('-') {
        return (Kind::DashLine, 0);
    }
    let hashes = chars.iter().take_while(|&&c| c == '#').count();
    if (1..=5).contains(&hashes)
        && chars.get(hashes).is_some_and(|c| c.is_whitespace())
        && chars.len() > hashes + 1
    {
        return (Kind::Heading, 0);
    }
    for ch in ['*', '-', '_'] {
        let non_ws: Vec<&char> = chars.iter().filter(|c| !c.is_whitespace()).collect();
        if non_ws.len() >= 3 && non_ws.iter().all(|&&c| c == ch) {
            return (Kind::Rule, 0);
        }
    }
    let skip_ws = |from: usize| {
        from + chars[from..]
            .iter()
            .take_while(|c| c.is_whitespace())
            .count()
    };
    // Numbered: -?\d+\.(\s|$)
    let sign = usize::from(chars[0] == '-');
    let digits = chars[sign..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits > 0 && chars.get(sign + digits) == Some(&'.') {
        let after = sign + digits + 1;
        if after == chars.len() || chars[after].is_whitespace() {
            let number: String = chars[..sign + digits].iter().collect();
            if let Ok(n) = number.parse::<i64>() {
                return (Kind::Numbered(n), skip_ws(after));
            }
        }
    }
    if matches!(chars[0], '*' | '+' | '-') && (chars.len() == 1 || chars[1].is_whitespace()) {
        return (Kind::Bulleted, skip_ws(1));
    }
    let colons = chars.iter().take_while(|&&c| c == ':').count();
    if (1..=2).contains(&colons) && (chars.len() == colons || chars[colons].is_whitespace()) {
        let kind = if colons == 1 { Kind::Dt } else { Kind::Dd };
        return (kind, skip_ws(colons));
    }
    if chars[0] == '>' {
        let skip = if chars.get(1).is_some_and(|c| c.is_whitespace()) {
            2
        } else {
            1
        };
        return (Kind::Blockquote, skip);
    }
    if chars[0] == '<' {
        let shorthand = matches!(chars.get(1), Some('<') | Some('{'));
        return (
            if shorthand || starts_inline(trimmed) {
                Kind::Text
            } else {
                Kind::HtmlBlock
            },
            0,
        );
    }
    (Kind::Text, 0)
}

/// Bikeshed's `prefixCount`: whole indentation units.
pub(crate) fn prefix_count(text: &str, indent: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut units = 0;
    while i < bytes.len() {
        if bytes[i] == b'\t' {
            i += 1;
        } else if indent > 0
            && bytes.len() >= i + indent
            && bytes[i..i + indent].iter().all(|&b| b == b' ')
        {
            i += indent;
        } else {
            break;
        }
        units += 1;
    }
    units
}

/// Builds a token from a line's markup and its visible twin (the same
/// characters, asides blanked). `prefix` overrides the indentation (used for
/// the synthetic first line of a list item).
pub(crate) fn make_token(
    line: usize,
    text: &str,
    visible: &str,
    prefix: Option<usize>,
    indent: usize,
) -> Token {
    let lead = text.chars().take_while(|c| c.is_whitespace()).count();
    let trimmed = text.trim();
    let trimmed_len = trimmed.chars().count();
    let (kind, marker) = classify(trimmed);
    let content: String = trimmed.chars().skip(marker).collect();
    // `visible` has the same characters as `text`, so the same slice of it is
    // the visible part of `content`, aligned character for character.
    let visible_content: String = visible
        .chars()
        .skip(lead + marker)
        .take(trimmed_len - marker)
        .collect();
    let excluded = !matches!(kind, Kind::Blank) && visible.trim().is_empty();
    // A list marker inside an aside must not make steps.
    let kind = match kind {
        Kind::Numbered(_) | Kind::Bulleted | Kind::Dt | Kind::Dd if excluded => Kind::HtmlBlock,
        k => k,
    };
    let prefix = match kind {
        Kind::Blank => INFINITE,
        _ => prefix.unwrap_or_else(|| prefix_count(text, indent)),
    };
    Token {
        line,
        kind,
        prefix,
        text: content,
        visible: visible_content,
        excluded,
        attachments: Vec::new(),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ParaKind {
    Normal,
    Note,
    Advisement,
    /// `Issue:` or `Issue(id):`.
    Issue(Option<String>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ListKind {
    /// The number the first item was written with.
    Numbered(i64),
    Bulleted,
    Dl,
}

#[derive(Clone, Debug)]
pub(crate) struct Item {
    pub line: usize,
    pub blocks: Vec<Block>,
}

#[derive(Clone, Debug)]
pub(crate) enum Block {
    /// Lines outside any paragraph: HTML lines, raw lines, text continuing a
    /// previous line.
    Lines(Vec<usize>),
    Paragraph(ParaKind, Vec<usize>),
    List(ListKind, Vec<Item>),
}

pub(crate) fn para_kind(text: &str) -> ParaKind {
    let lower = text.to_lowercase();
    if lower.starts_with("note:") || lower.starts_with("note,") {
        ParaKind::Note
    } else if lower.starts_with("advisement:") {
        ParaKind::Advisement
    } else if lower.starts_with("issue:") {
        ParaKind::Issue(None)
    } else if let Some((rest, close)) = lower
        .strip_prefix("issue(")
        .and_then(|rest| rest.find(')').map(|close| (rest, close)))
        .filter(|(rest, close)| *close > 0 && rest[close + 1..].starts_with(':'))
    {
        // Slice the original text, not the lowercased copy, for the id.
        let id: String = text
            .chars()
            .skip("issue(".len())
            .take(rest[..close].chars().count())
            .collect();
        ParaKind::Issue(Some(id))
    } else {
        ParaKind::Normal
    }
}

/// Tokens plus the synthetic ones made for list items' first lines.
pub(crate) struct Arena {
    pub tokens: Vec<Token>,
    pub indent: usize,
}

impl Arena {
    fn kind_at(&self, toks: &[usize], i: usize) -> Kind {
        toks.get(i).map_or(Kind::Blank, |&t| self.tokens[t].kind)
    }

    /// Kind and indentation of the token after `i`, or end-of-input (indent 0).
    fn next_of(&self, toks: &[usize], i: usize) -> (Option<Kind>, usize) {
        match toks.get(i + 1) {
            Some(&t) => (Some(self.tokens[t].kind), self.tokens[t].prefix),
            None => (None, 0),
        }
    }

    /// Port of `parseTokens` over the token indices `toks`.
    pub fn parse(&mut self, toks: &[usize]) -> Vec<Block> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let token = &self.tokens[toks[i]];
            let prev_blank = i == 0 || matches!(self.kind_at(toks, i - 1), Kind::Blank);
            match token.kind {
                Kind::Raw | Kind::HtmlBlock | Kind::Heading => {
                    out.push(Block::Lines(vec![toks[i]]));
                    i += 1;
                }
                Kind::Text
                    if matches!(
                        self.next_of(toks, i).0,
                        Some(Kind::EqualsLine | Kind::DashLine)
                    ) =>
                {
                    out.push(Block::Lines(vec![toks[i]]));
                    i += 2;
                }
                Kind::Text if prev_blank => {
                    let initial = token.prefix;
                    let kind = para_kind(&token.text);
                    let mut lines = vec![toks[i]];
                    i += 1;
                    while i < toks.len()
                        && self.tokens[toks[i]].kind == Kind::Text
                        && self.tokens[toks[i]].prefix >= initial
                    {
                        lines.push(toks[i]);
                        i += 1;
                    }
                    out.push(Block::Paragraph(kind, lines));
                }
                Kind::Blockquote => {
                    let p = token.prefix;
                    let mut lines = vec![toks[i]];
                    i += 1;
                    while i < toks.len()
                        && matches!(self.tokens[toks[i]].kind, Kind::Blockquote | Kind::Text)
                        && self.tokens[toks[i]].prefix >= p
                    {
                        lines.push(toks[i]);
                        i += 1;
                    }
                    out.push(Block::Paragraph(ParaKind::Normal, lines));
                }
                Kind::Numbered(n) => {
                    let (items, next) = self.parse_list(toks, i, ListKind::Numbered(n));
                    out.push(Block::List(ListKind::Numbered(n), items));
                    i = next;
                }
                Kind::Bulleted => {
                    let (items, next) = self.parse_list(toks, i, ListKind::Bulleted);
                    out.push(Block::List(ListKind::Bulleted, items));
                    i = next;
                }
                Kind::Dt | Kind::Dd => {
                    let (items, next) = self.parse_list(toks, i, ListKind::Dl);
                    out.push(Block::List(ListKind::Dl, items));
                    i = next;
                }
                Kind::Rule | Kind::DashLine | Kind::EqualsLine | Kind::Blank => i += 1,
                Kind::Text => {
                    out.push(Block::Lines(vec![toks[i]]));
                    i += 1;
                }
            }
        }
        out
    }

    fn is_marker(kind: Option<Kind>, list: ListKind) -> bool {
        matches!(
            (kind, list),
            (Some(Kind::Numbered(_)), ListKind::Numbered(_))
                | (Some(Kind::Bulleted), ListKind::Bulleted)
                | (Some(Kind::Dt | Kind::Dd), ListKind::Dl)
        )
    }

    /// Port of `parseNumbered` / `parseBulleted` / `parseDl`.
    fn parse_list(&mut self, toks: &[usize], mut i: usize, list: ListKind) -> (Vec<Item>, usize) {
        let p = self.tokens[toks[i]].prefix;
        let mut items = Vec::new();
        loop {
            if i >= toks.len() {
                break;
            }
            let cur = &self.tokens[toks[i]];
            let (next_kind, next_prefix) = self.next_of(toks, i);
            if cur.kind == Kind::Blank && !Self::is_marker(next_kind, list) && next_prefix <= p {
                break;
            }
            if cur.prefix < p {
                break;
            }
            if cur.kind == Kind::Blank {
                i += 1;
                if i >= toks.len() {
                    break;
                }
            }
            let marker = toks[i];
            let mut j = i + 1;
            while j < toks.len() {
                let c = &self.tokens[toks[j]];
                if Self::is_marker(Some(c.kind), list) && c.prefix == p {
                    break;
                }
                if c.prefix < p {
                    break;
                }
                let (nk, np) = self.next_of(toks, j);
                if c.kind == Kind::Blank && !Self::is_marker(nk, list) && np <= p {
                    break;
                }
                j += 1;
            }
            let first = self.first_line_token(marker, p);
            let mut sub = vec![first];
            sub.extend_from_slice(&toks[i + 1..j]);
            let line = self.tokens[marker].line;
            let blocks = self.parse(&sub);
            items.push(Item { line, blocks });
            i = j;
        }
        (items, i)
    }

    /// The text after an item's marker becomes the first line of the item's
    /// own block parse, as in Bikeshed.
    fn first_line_token(&mut self, marker: usize, p: usize) -> usize {
        let m = &self.tokens[marker];
        let mut token = make_token(m.line, &m.text, &m.visible, Some(p + 1), self.indent);
        token.attachments = m.attachments.clone();
        self.tokens.push(token);
        self.tokens.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arena(src: &str) -> (Arena, Vec<usize>) {
        let tokens: Vec<Token> = src
            .lines()
            .enumerate()
            .map(|(i, l)| make_token(i + 1, l, l, None, 2))
            .collect();
        let n = tokens.len();
        (Arena { tokens, indent: 2 }, (0..n).collect())
    }

    fn shape(arena: &Arena, blocks: &[Block], out: &mut Vec<String>, depth: usize) {
        for b in blocks {
            match b {
                Block::List(kind, items) => {
                    for item in items {
                        out.push(format!("{}{:?}@{}", " ".repeat(depth), kind, item.line));
                        shape(arena, &item.blocks, out, depth + 1);
                    }
                }
                Block::Paragraph(ParaKind::Normal, _) | Block::Lines(_) => {}
                Block::Paragraph(kind, toks) => {
                    out.push(format!(
                        "{}{:?}@{}",
                        " ".repeat(depth),
                        kind,
                        arena.tokens[toks[0]].line
                    ));
                }
            }
        }
    }

    #[test]
    fn nesting_follows_indent_units() {
        let src = "1. a\n\n  1. b\n     more b\n\n1. c\n   continued\n\n   Note: n\n\n     1. d\n\nAfter.\n";
        let (mut a, toks) = arena(src);
        let blocks = a.parse(&toks);
        let mut out = Vec::new();
        shape(&a, &blocks, &mut out, 0);
        assert_eq!(
            out,
            [
                "Numbered(1)@1",
                " Numbered(1)@3",
                "Numbered(1)@6",
                " Note@9",
                " Numbered(1)@11"
            ]
        );
    }

    #[test]
    fn issue_ids() {
        assert_eq!(
            para_kind("Issue(#224): Consider"),
            ParaKind::Issue(Some("#224".into()))
        );
        assert_eq!(para_kind("issue: x"), ParaKind::Issue(None));
        assert_eq!(para_kind("Note, this"), ParaKind::Note);
        assert_eq!(para_kind("Notes are"), ParaKind::Normal);
    }

    #[test]
    fn classify_lines() {
        assert_eq!(classify("1. foo").0, Kind::Numbered(1));
        assert_eq!(classify("12.").0, Kind::Numbered(12));
        assert_eq!(classify("1.5 s").0, Kind::Text);
        assert_eq!(classify(":: x"), (Kind::Dd, 3));
        assert_eq!(classify("<p id=x>If").0, Kind::HtmlBlock);
        assert_eq!(classify("<var>x</var> y").0, Kind::Text);
        assert_eq!(classify("<{form}> y").0, Kind::Text);
        assert_eq!(classify("---").0, Kind::DashLine);
        assert_eq!(classify("- x").0, Kind::Bulleted);
    }
}
