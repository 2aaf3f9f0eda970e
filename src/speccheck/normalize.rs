//! Reduces a step's Bikeshed markup to the words a reader of the rendered spec
//! sees, so that its hash changes when a word changes and only then.
//!
//! Whitespace is collapsed *first*: re-wrapping lines or re-indenting a step only
//! changes whitespace, so every later stage sees the same input whatever the
//! wrapping was (this also lets shorthands broken over two lines be recognised).
//! Then Bikeshed's inline shorthands are replaced by their rendered text, tags are
//! dropped, character references decoded and whitespace collapsed again.
//!
//! | markup | rendered |
//! | --- | --- |
//! | `[=for/term=]`, `[=term\|shown=]` | `term`, `shown` |
//! | `[$op$]`, `[$op\|shown$]` | `op`, `shown` |
//! | `{{Interface/member}}`, `{{X/m(a)/arg}}`, `{{x\|shown}}` | `member`, `arg`, `shown` |
//! | `<{element}>` | `element` |
//! | `[[!BIBLIO]]` | `[BIBLIO]` |
//! | `\|var\|`, `<var>x</var>` | `var`, `x` |
//! | `[text](url)`, `` `code` ``, `*em*` | `text`, `code`, `em` |
//! | `&rarr;` | `→` |

use super::tag::{self, read_tag};

/// Normalized text of a piece of Bikeshed markup (see the module docs).
pub fn normalize(markup: &str) -> String {
    let collapsed = collapse_whitespace(markup);
    let expanded = expand_shorthands(&collapsed);
    let untagged = strip_tags(&expanded);
    let decoded = decode_entities(&untagged);
    collapse_whitespace(&decoded)
}

/// The `id` attributes of the tags in `markup`, in order (step anchors such as
/// `<p id=target-destroyed-cleanup>` that the text links to).
pub fn extract_ids(markup: &str) -> Vec<String> {
    let chars: Vec<char> = markup.chars().collect();
    let mut ids = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if let Some(t) = (chars[i] == '<').then(|| read_tag(&chars, i)).flatten() {
            if let Some(id) = (!t.closing)
                .then(|| tag::attr(&t.attrs, "id"))
                .flatten()
                .flatten()
                .filter(|id| !id.is_empty())
            {
                ids.push(id.to_string());
            }
            i = t.end;
            continue;
        }
        i += 1;
    }
    ids
}

pub(crate) fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn find_from(chars: &[char], from: usize, needle: &str) -> Option<usize> {
    let needle: Vec<char> = needle.chars().collect();
    if needle.is_empty() || chars.len() < needle.len() {
        return None;
    }
    (from..=chars.len() - needle.len()).find(|&k| chars[k..k + needle.len()] == needle[..])
}

fn starts_with_at(chars: &[char], i: usize, prefix: &str) -> bool {
    prefix
        .chars()
        .enumerate()
        .all(|(k, c)| chars.get(i + k) == Some(&c))
}

/// Text after the last `/` that is not inside parentheses: the term of a
/// `for/term` reference (`ModelContext/executeTool(tool)/inputObject` →
/// `inputObject`, while `registerTool(tool, options)` keeps its argument list).
fn after_last_slash(text: &str) -> &str {
    let mut depth = 0i32;
    let mut cut = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '/' if depth <= 0 => cut = i + 1,
            _ => {}
        }
    }
    &text[cut..]
}

/// The shown part of `target|shown`, else the term of `target`.
fn link_text(inner: &str) -> String {
    match inner.split_once('|') {
        Some((_, shown)) => shown.trim().to_string(),
        None => after_last_slash(inner).trim().to_string(),
    }
}

/// Bikeshed's variable shorthand `|name|`: a word character, then word
/// characters, spaces or hyphens, ending with a word character.
fn match_var(chars: &[char], i: usize) -> Option<(String, usize)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    if chars.get(i) != Some(&'|') || !chars.get(i + 1).is_some_and(|&c| is_word(c)) {
        return None;
    }
    let mut k = i + 1;
    while chars
        .get(k)
        .is_some_and(|&c| is_word(c) || c == '-' || c.is_whitespace())
    {
        k += 1;
    }
    if chars.get(k) != Some(&'|') || !is_word(chars[k - 1]) {
        return None;
    }
    Some((chars[i + 1..k].iter().collect(), k + 1))
}

fn expand_shorthands(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && chars.get(i + 1).is_some_and(|c| c.is_ascii_punctuation()) {
            out.push(chars[i + 1]);
            i += 2;
            continue;
        }
        let pairs: [(&str, &str); 5] = [
            ("[=", "=]"),
            ("[$", "$]"),
            ("[[", "]]"),
            ("{{", "}}"),
            ("<{", "}>"),
        ];
        let mut replaced = false;
        for (open, close) in pairs {
            if let Some(end) = starts_with_at(&chars, i, open)
                .then(|| find_from(&chars, i + 2, close))
                .flatten()
            {
                let inner: String = chars[i + 2..end].iter().collect();
                let shown = match open {
                    "[[" => {
                        let name = inner.trim_start_matches('!');
                        if name.starts_with('#') {
                            name.to_string()
                        } else {
                            format!("[{name}]")
                        }
                    }
                    "<{" => after_last_slash(&inner).to_string(),
                    _ => link_text(&inner),
                };
                out.push_str(&strip_tags(&shown));
                i = end + 2;
                replaced = true;
                break;
            }
        }
        if replaced {
            continue;
        }
        let link = (c == '[')
            .then(|| (i + 1..chars.len()).find(|&k| chars[k] == ']' || chars[k] == '['))
            .flatten()
            .filter(|&close| chars[close] == ']' && chars.get(close + 1) == Some(&'('))
            .and_then(|close| find_from(&chars, close + 2, ")").map(|paren| (close, paren)));
        if let Some((close, paren)) = link {
            // Markdown link: keep its text, drop the URL.
            let label: String = chars[i + 1..close].iter().collect();
            out.push_str(&expand_shorthands(&label));
            i = paren + 1;
            continue;
        }
        if let Some((name, next)) = (c == '|').then(|| match_var(&chars, i)).flatten() {
            out.push_str(&name);
            i = next;
            continue;
        }
        if c == '`' {
            i += 1;
            continue;
        }
        if c == '*' {
            // Emphasis markers: drop a `*` that touches a word on either side;
            // keep one standing alone between spaces (a multiplication sign).
            let before = i.checked_sub(1).map(|k| chars[k]);
            let after = chars.get(i + 1).copied();
            let touches = |x: Option<char>| x.is_some_and(|x| !x.is_whitespace());
            if touches(before) || touches(after) {
                i += 1;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Tags that separate words when rendered; others (`<code>`, `<var>`, `<a>`)
/// are removed without leaving a space.
const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "li",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
    "xmp",
];

fn strip_tags(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '<' {
            if let Some(end) = starts_with_at(&chars, i, "<!--")
                .then(|| find_from(&chars, i + 4, "-->"))
                .flatten()
            {
                i = end + 3;
                continue;
            }
            if let Some(t) = read_tag(&chars, i) {
                if BLOCK_TAGS.contains(&t.name.as_str()) {
                    out.push(' ');
                }
                i = t.end;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let decoded = after.find(';').filter(|&semi| semi <= 10).and_then(|semi| {
            let name = &after[..semi];
            let c = if let Some(num) = name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
                u32::from_str_radix(num, 16).ok().and_then(char::from_u32)
            } else if let Some(num) = name.strip_prefix('#') {
                num.parse::<u32>().ok().and_then(char::from_u32)
            } else {
                named_entity(name)
            };
            c.map(|c| (c, semi))
        });
        match decoded {
            Some((c, semi)) => {
                out.push(c);
                rest = &after[semi + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn named_entity(name: &str) -> Option<char> {
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "rarr" => '→',
        "larr" => '←',
        "harr" => '↔',
        "mdash" => '—',
        "ndash" => '–',
        "hellip" => '…',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        "times" => '×',
        "le" => '≤',
        "ge" => '≥',
        "ne" => '≠',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorthands_render_as_words() {
        let cases = [
            (
                "[=set/For each=] |key| &rarr; |value|",
                "For each key → value",
            ),
            (
                "[=Widget/owner doc|owning\n <code>Widget</code>=]",
                "owning Widget",
            ),
            (
                "{{Widget/spinchange}} {{Widget/spin(speed)/speed}}",
                "spinchange speed",
            ),
            ("{{Widget/spin(speed, angle)}}", "spin(speed, angle)"),
            (
                "[$is it\n shiny?|shiny$] [$Frobnicate$]",
                "shiny Frobnicate",
            ),
            (
                "<var ignore>x</var> <{form}> [[!RFC1234]]",
                "x form [RFC1234]",
            ),
            ("table=][|key|]", "table=][key]"),
            (
                "[text](https://example.com/) Foo*Bar* `a` 2 * 3",
                "text FooBar a 2 * 3",
            ),
            ("<a lt=\"a long\n   term\">the term</a>", "the term"),
            ("a.</p><p>b", "a. b"),
            ("\\[=not a link=]", "[=not a link=]"),
        ];
        for (markup, rendered) in cases {
            assert_eq!(normalize(markup), rendered, "{markup:?}");
        }
    }

    #[test]
    fn wrapping_does_not_matter() {
        let a = "If |the box|[|a key|] is [=list/empty=], then\n   stop.";
        let b = "If |the\n box|[|a key|]   is\t[=list/empty=],\n then stop.";
        assert_eq!(normalize(a), normalize(b));
        assert_ne!(
            normalize(a),
            normalize("If |the box|[|a key|] is [=list/empty=], then go.")
        );
    }

    #[test]
    fn ids() {
        assert_eq!(
            extract_ids("1. <p id=target-destroyed-cleanup>If x</p> <a href=#y>"),
            ["target-destroyed-cleanup"]
        );
    }
}
