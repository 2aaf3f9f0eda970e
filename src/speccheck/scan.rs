//! The whole-document pass: lines, comments, raw blocks and an element tree.
//!
//! Bikeshed strips comments before anything else, then its markdown tokenizer
//! treats `<pre>`, `<xmp>`, `<script>`, `<style>` and fenced code blocks that
//! start a line as raw text. Everything else is scanned for tags to build an
//! approximate element tree, good enough to find `<div algorithm>` blocks, the
//! notes and examples inside them, `<dfn>`s with their inherited `dfn-for`, and
//! HTML `<ol>` lists. Positions are byte offsets into the source.

use super::error::ParseError;
use super::tag::{self, read_tag, Attr, VOID_ELEMENTS};

/// How a line takes part in a raw block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RawState {
    None,
    /// The line that opens a raw block (its indentation still counts).
    Open,
    /// Inside a raw block, or the line that closes it.
    Inside,
}

#[derive(Clone, Debug)]
pub(crate) struct Line {
    /// 1-based line number.
    pub number: usize,
    /// Byte range of the line, without its line break.
    pub start: usize,
    pub end: usize,
    /// Bikeshed drops lines that were only a comment.
    pub deleted: bool,
    pub raw: RawState,
}

#[derive(Clone, Debug)]
pub(crate) struct Element {
    pub name: String,
    pub attrs: Vec<Attr>,
    /// Byte of the `<` of the start tag.
    pub start: usize,
    /// Byte just past the start tag.
    pub open_end: usize,
    /// Byte where the content ends (start of the end tag, or of whatever closed
    /// the element implicitly).
    pub close_start: usize,
    /// Byte just past the element.
    pub end: usize,
    /// Whether a matching end tag was found.
    pub explicit_close: bool,
    pub line: usize,
    pub parent: Option<usize>,
}

impl Element {
    pub fn attr(&self, name: &str) -> Option<Option<&str>> {
        tag::attr(&self.attrs, name)
    }

    pub fn has_class(&self, class: &str) -> bool {
        matches!(self.attr("class"), Some(Some(v)) if v.split_whitespace().any(|c| c == class))
    }

    /// Notes, examples, issue and advisement boxes, TODO boxes, non-normative
    /// introductions and test annotations: none of them are algorithm steps.
    pub fn is_aside(&self) -> bool {
        self.name == "wpt"
            || ["note", "example", "issue", "advisement", "XXX", "domintro"]
                .iter()
                .any(|c| self.has_class(c))
    }

    pub fn is_issue(&self) -> bool {
        self.has_class("issue")
    }

    pub fn is_algorithm(&self) -> bool {
        self.attr("algorithm").is_some()
    }
}

pub(crate) struct Document<'a> {
    pub text: &'a str,
    pub lines: Vec<Line>,
    /// Per byte: inside an HTML comment.
    pub comment: Vec<bool>,
    pub elements: Vec<Element>,
    pub children: Vec<Vec<usize>>,
    /// Spaces per indentation level (the metadata's `Indent:`; Bikeshed's default is 4).
    pub indent: usize,
}

impl<'a> Document<'a> {
    pub fn new(text: &'a str) -> Result<Document<'a>, ParseError> {
        let mut lines = split_lines(text);
        let comment = mark_comments(text, &lines)?;
        mark_deleted_lines(text, &comment, &mut lines);
        let mut doc = Document {
            text,
            lines,
            comment,
            elements: Vec::new(),
            children: Vec::new(),
            indent: 4,
        };
        doc.mark_raw_lines()?;
        doc.indent = doc.read_indent()?;
        doc.elements = doc.scan_elements()?;
        doc.children = vec![Vec::new(); doc.elements.len()];
        for (i, e) in doc.elements.iter().enumerate() {
            if let Some(p) = e.parent {
                doc.children[p].push(i);
            }
        }
        Ok(doc)
    }

    /// A line's text with comments removed, as Bikeshed's markdown sees it.
    pub fn stripped(&self, line: &Line) -> String {
        self.text[line.start..line.end]
            .char_indices()
            .filter(|(off, _)| !self.comment[line.start + off])
            .map(|(_, c)| c)
            .collect()
    }

    /// Index of the line holding byte `pos`.
    pub fn line_index_at(&self, pos: usize) -> usize {
        match self.lines.binary_search_by(|l| {
            if pos < l.start {
                std::cmp::Ordering::Greater
            } else if pos > l.end {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Equal
            }
        }) {
            Ok(i) => i,
            Err(i) => i.min(self.lines.len().saturating_sub(1)),
        }
    }

    pub fn line_number_at(&self, pos: usize) -> usize {
        self.lines
            .get(self.line_index_at(pos))
            .map_or(1, |l| l.number)
    }

    /// Whether byte `pos` sits in a raw line (code, IDL, metadata).
    pub fn in_raw_line(&self, pos: usize) -> bool {
        self.lines
            .get(self.line_index_at(pos))
            .is_some_and(|l| l.raw != RawState::None || l.deleted)
    }

    /// The nearest ancestor of element `e` (not `e` itself) that matches.
    pub fn ancestor(&self, e: usize, pred: impl Fn(&Element) -> bool) -> Option<usize> {
        let mut cur = self.elements[e].parent;
        while let Some(p) = cur {
            if pred(&self.elements[p]) {
                return Some(p);
            }
            cur = self.elements[p].parent;
        }
        None
    }

    /// The nearest enclosing algorithm block of element `e`.
    pub fn algorithm_of(&self, e: usize) -> Option<usize> {
        self.ancestor(e, Element::is_algorithm)
    }

    /// Bikeshed's raw-block rules (`tokenizeLines`): fences, and `<pre>`,
    /// `<xmp>`, `<script>`, `<style>` starting a line. `<pre>` may nest.
    fn mark_raw_lines(&mut self) -> Result<(), ParseError> {
        enum Raw {
            Fence { ch: char, len: usize },
            Element { close: String, nest: bool },
        }
        let mut stack: Vec<(Raw, usize)> = Vec::new();
        for i in 0..self.lines.len() {
            if self.lines[i].deleted {
                continue;
            }
            let text = self.stripped(&self.lines[i]);
            let number = self.lines[i].number;
            let mut state = RawState::None;
            let mut decided = false;
            if let Some((top, _)) = stack.last() {
                let ends = match top {
                    Raw::Fence { ch, len } => {
                        let t = text.trim();
                        t.chars().count() >= *len && t.chars().all(|c| c == *ch)
                    }
                    Raw::Element { close, .. } => text.contains(close.as_str()),
                };
                let nests = matches!(top, Raw::Element { nest: true, .. });
                if ends {
                    stack.pop();
                    state = RawState::Inside;
                    decided = true;
                } else if !nests {
                    state = RawState::Inside;
                    decided = true;
                }
            }
            if !decided {
                if let Some((ch, len)) = fence_start(&text) {
                    stack.push((Raw::Fence { ch, len }, number));
                    state = RawState::Open;
                } else if let Some(name) = raw_element_start(&text) {
                    let close = format!("</{name}>");
                    if !text.contains(close.as_str()) {
                        stack.push((
                            Raw::Element {
                                close,
                                nest: name == "pre",
                            },
                            number,
                        ));
                    }
                    state = if stack.len() > 1 {
                        RawState::Inside
                    } else {
                        RawState::Open
                    };
                } else if !stack.is_empty() {
                    state = RawState::Inside;
                }
            }
            self.lines[i].raw = state;
        }
        match stack.first() {
            Some((_, line)) => Err(ParseError::new(
                *line,
                "this code or raw block is never closed",
            )),
            None => Ok(()),
        }
    }

    /// `Indent: N` from the metadata block.
    fn read_indent(&self) -> Result<usize, ParseError> {
        for line in &self.lines {
            if line.raw == RawState::None || line.deleted {
                continue;
            }
            let text = self.stripped(line);
            if let Some(value) = text.trim().strip_prefix("Indent:") {
                return match value.trim().parse::<usize>() {
                    Ok(n) if n > 0 => Ok(n),
                    _ => Err(ParseError::new(
                        line.number,
                        "the Indent metadata is not a positive number",
                    )),
                };
            }
        }
        Ok(4)
    }

    /// Builds the element tree. HTML's optional end tags are approximated: a
    /// block start tag or a blank line closes an open `<p>`; `<li>`, `<dt>`,
    /// `<dd>`, `<tr>`, `<td>` close their open siblings; an end tag closes
    /// everything opened after its element.
    fn scan_elements(&self) -> Result<Vec<Element>, ParseError> {
        let mut chars = Vec::with_capacity(self.text.len());
        let mut pos = Vec::with_capacity(self.text.len());
        for line in &self.lines {
            if line.raw == RawState::None && !line.deleted {
                for (off, c) in self.text[line.start..line.end].char_indices() {
                    if !self.comment[line.start + off] {
                        chars.push(c);
                        pos.push(line.start + off);
                    }
                }
            }
            chars.push('\n');
            pos.push(line.end);
        }
        let mut elements: Vec<Element> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        // How many elements of each name are open: an end tag or an optional end tag looks
        // down the stack only when one of the names it closes is there (else 200,000 nested
        // `<div>`s would each look through all the others).
        let mut open: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let close = |elements: &mut Vec<Element>,
                     stack: &mut Vec<usize>,
                     open: &mut std::collections::HashMap<String, usize>,
                     down_to: usize,
                     at: usize| {
            while stack.len() > down_to {
                if let Some(e) = stack.pop() {
                    elements[e].close_start = at;
                    elements[e].end = at;
                    if let Some(n) = open.get_mut(&elements[e].name) {
                        *n = n.saturating_sub(1);
                    }
                }
            }
        };
        let find_open = |elements: &[Element],
                         stack: &[usize],
                         open: &std::collections::HashMap<String, usize>,
                         names: &[&str],
                         stop: &[&str]|
         -> Option<usize> {
            if names
                .iter()
                .all(|n| open.get(*n).copied().unwrap_or(0) == 0)
            {
                return None;
            }
            for (depth, &e) in stack.iter().enumerate().rev() {
                let name = elements[e].name.as_str();
                if names.contains(&name) {
                    return Some(depth);
                }
                if stop.contains(&name) {
                    return None;
                }
            }
            None
        };
        let mut no_end_tag: std::collections::HashSet<String> = std::collections::HashSet::new();
        let mut i = 0;
        let mut line_blank = true;
        while i < chars.len() {
            let c = chars[i];
            if c == '\n' {
                if let Some(depth) = line_blank
                    .then(|| find_open(&elements, &stack, &open, &["p"], &[]))
                    .flatten()
                    .filter(|depth| depth + 1 == stack.len())
                {
                    close(&mut elements, &mut stack, &mut open, depth, pos[i]);
                }
                line_blank = true;
                i += 1;
                continue;
            }
            if !c.is_whitespace() {
                line_blank = false;
            }
            if c == '`' {
                // Inline code: its content is text, not markup.
                if let Some(k) = (i + 1..chars.len())
                    .take_while(|&k| chars[k] != '\n')
                    .find(|&k| chars[k] == '`')
                {
                    i = k + 1;
                    continue;
                }
            }
            if c != '<' {
                i += 1;
                continue;
            }
            let Some(t) = read_tag(&chars, i) else {
                i += 1;
                continue;
            };
            let start = pos[i];
            let tag_end = pos[t.end - 1] + 1;
            if t.closing {
                if let Some(depth) = find_open(&elements, &stack, &open, &[t.name.as_str()], &[]) {
                    close(&mut elements, &mut stack, &mut open, depth + 1, start);
                    if let Some(e) = stack.pop() {
                        elements[e].close_start = start;
                        elements[e].end = tag_end;
                        elements[e].explicit_close = true;
                        if let Some(n) = open.get_mut(&elements[e].name) {
                            *n = n.saturating_sub(1);
                        }
                    }
                }
                i = t.end;
                continue;
            }
            let name = t.name.as_str();
            if let Some(depth) = BLOCK_ELEMENTS
                .contains(&name)
                .then(|| find_open(&elements, &stack, &open, &["p"], &[]))
                .flatten()
                .filter(|depth| depth + 1 == stack.len())
            {
                close(&mut elements, &mut stack, &mut open, depth, start);
            }
            let siblings: Option<(&[&str], &[&str])> = match name {
                "li" => Some((&["li"], &["ol", "ul", "menu"])),
                "dt" | "dd" => Some((&["dt", "dd"], &["dl"])),
                "td" | "th" => Some((&["td", "th"], &["tr", "table"])),
                "tr" => Some((&["tr", "td", "th"], &["table", "tbody", "thead", "tfoot"])),
                "tbody" | "thead" | "tfoot" => {
                    Some((&["tbody", "thead", "tfoot", "tr", "td", "th"], &["table"]))
                }
                _ => None,
            };
            if let Some(depth) =
                siblings.and_then(|(names, stop)| find_open(&elements, &stack, &open, names, stop))
            {
                close(&mut elements, &mut stack, &mut open, depth, start);
            }
            let line = self.line_number_at(start);
            let mut element = Element {
                name: t.name.clone(),
                attrs: t.attrs.clone(),
                start,
                open_end: tag_end,
                close_start: tag_end,
                end: tag_end,
                explicit_close: t.self_closing,
                line,
                parent: stack.last().copied(),
            };
            i = t.end;
            if VOID_ELEMENTS.contains(&name) || t.self_closing {
                elements.push(element);
                continue;
            }
            if matches!(name, "xmp" | "script" | "style" | "textarea") && !no_end_tag.contains(name)
            {
                // Raw text that did not start a line: skip to its end tag.
                let end_tag: Vec<char> = format!("</{name}").chars().collect();
                let found = (i..chars.len().saturating_sub(end_tag.len() - 1)).find(|&k| {
                    chars[k..k + end_tag.len()]
                        .iter()
                        .map(|c| c.to_ascii_lowercase())
                        .eq(end_tag.iter().copied())
                });
                if found.is_none() {
                    // None further on either: the next one need not look again.
                    no_end_tag.insert(name.to_string());
                }
                if let Some(k) = found {
                    let after = (k..chars.len())
                        .find(|&m| chars[m] == '>')
                        .map_or(chars.len(), |m| m + 1);
                    element.close_start = pos[k];
                    element.end = pos.get(after).copied().unwrap_or(self.text.len());
                    element.explicit_close = true;
                    elements.push(element);
                    i = after;
                    continue;
                }
            }
            if stack.len() >= MAX_ELEMENT_DEPTH {
                return Err(ParseError::new(
                    line,
                    format!("elements nest more than {MAX_ELEMENT_DEPTH} deep here"),
                ));
            }
            *open.entry(element.name.clone()).or_default() += 1;
            elements.push(element);
            stack.push(elements.len() - 1);
        }
        close(&mut elements, &mut stack, &mut open, 0, self.text.len());
        Ok(elements)
    }
}

/// How deep elements may nest in a source: walking up an element's ancestors is done for
/// every element, so the depth is bounded (a real specification nests a dozen deep).
pub const MAX_ELEMENT_DEPTH: usize = 512;

/// Start tags that close an open `<p>` in HTML.
const BLOCK_ELEMENTS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "details",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "ul",
    "xmp",
];

fn split_lines(text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut number = 1;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            let end = if i > start && text.as_bytes()[i - 1] == b'\r' {
                i - 1
            } else {
                i
            };
            lines.push(Line {
                number,
                start,
                end,
                deleted: false,
                raw: RawState::None,
            });
            start = i + 1;
            number += 1;
        }
    }
    if start < text.len() {
        lines.push(Line {
            number,
            start,
            end: text.len(),
            deleted: false,
            raw: RawState::None,
        });
    }
    lines
}

fn mark_comments(text: &str, lines: &[Line]) -> Result<Vec<bool>, ParseError> {
    let mut comment = vec![false; text.len()];
    let mut from = 0;
    while let Some(open) = text[from..].find("<!--").map(|o| o + from) {
        let Some(close) = text[open + 4..].find("-->").map(|c| c + open + 4) else {
            let line = lines.iter().find(|l| l.end >= open).map_or(1, |l| l.number);
            return Err(ParseError::new(line, "this comment is never closed"));
        };
        for flag in &mut comment[open..close + 3] {
            *flag = true;
        }
        from = close + 3;
    }
    Ok(comment)
}

/// Bikeshed removes a line that held only a comment, and a blank line inside a
/// comment, so they do not count as paragraph breaks.
fn mark_deleted_lines(text: &str, comment: &[bool], lines: &mut [Line]) {
    for line in lines.iter_mut() {
        let slice = &text[line.start..line.end];
        let had_comment = comment[line.start..line.end].iter().any(|&c| c);
        let kept_blank = slice
            .char_indices()
            .filter(|(off, _)| !comment[line.start + off])
            .all(|(_, c)| c.is_whitespace());
        let inside = line.start > 0 && comment[line.start - 1];
        line.deleted = (had_comment && kept_blank) || (slice.trim().is_empty() && inside);
    }
}

/// A fence opener (`` ``` `` or `~~~`, three or more) and its length.
fn fence_start(text: &str) -> Option<(char, usize)> {
    let t = text.trim_start();
    let ch = t.chars().next().filter(|&c| c == '`' || c == '~')?;
    let len = t.chars().take_while(|&c| c == ch).count();
    let rest: String = t.chars().skip(len).collect();
    (len >= 3 && !rest.contains('`')).then_some((ch, len))
}

fn raw_element_start(text: &str) -> Option<&'static str> {
    let t = text.trim_start().strip_prefix('<')?;
    ["pre", "xmp", "script", "style"].into_iter().find(|name| {
        t.strip_prefix(name)
            .is_some_and(|rest| rest.starts_with(' ') || rest.starts_with('>'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_blocks_and_comments() {
        let src = "a\n<!-- gone -->\n<xmp>\n<div algorithm>\n</xmp>\n```js\n<p>\n```\n<div algorithm>x</div>\n";
        let doc = Document::new(src).unwrap();
        assert!(doc.lines[1].deleted);
        assert_eq!(doc.lines[2].raw, RawState::Open);
        assert_eq!(doc.lines[3].raw, RawState::Inside);
        assert_eq!(doc.lines[5].raw, RawState::Open);
        let algos: Vec<_> = doc.elements.iter().filter(|e| e.is_algorithm()).collect();
        assert_eq!(algos.len(), 1);
        assert_eq!(algos[0].line, 9);
        assert!(algos[0].explicit_close);
    }

    #[test]
    fn unclosed_raw_block_is_an_error() {
        let err = Document::new("x\n\n<xmp>\nfoo\n").err().unwrap();
        assert_eq!(err.line, 3);
    }

    #[test]
    fn nesting_and_implicit_close() {
        let src = "<div algorithm>\n<p class=note>a\n\nb\n<div class=example>c</div>\n</div>\n";
        let doc = Document::new(src).unwrap();
        let p = doc.elements.iter().find(|e| e.name == "p").unwrap();
        assert!(!p.explicit_close);
        assert_eq!(doc.line_number_at(p.end), 3);
        let ex = doc
            .elements
            .iter()
            .position(|e| e.has_class("example"))
            .unwrap();
        assert_eq!(doc.algorithm_of(ex), Some(0));
    }
}
