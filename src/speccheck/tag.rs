//! A small HTML tag reader shared by the document scanner and the text
//! normalizer. It reads one start or end tag at a `<`; it does not build trees.

/// One attribute; `value` is `None` for a bare attribute such as `algorithm`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Attr {
    pub name: String,
    pub value: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct Tag {
    /// Lowercased element name.
    pub name: String,
    pub closing: bool,
    pub self_closing: bool,
    pub attrs: Vec<Attr>,
    /// Index just past the closing `>`.
    pub end: usize,
}

/// Elements that never have content or an end tag.
pub(crate) const VOID_ELEMENTS: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

/// Reads a tag starting at `chars[i] == '<'`. Returns `None` when the text there
/// is not a tag (`a < b`, Bikeshed's `<{element}>` shorthand, a `<` with no `>`).
/// A `<` met outside quotes before the `>` also means "not a tag", so stray
/// less-than signs in prose cannot swallow the text after them.
pub(crate) fn read_tag(chars: &[char], i: usize) -> Option<Tag> {
    if chars.get(i) != Some(&'<') {
        return None;
    }
    let mut j = i + 1;
    let closing = chars.get(j) == Some(&'/');
    if closing {
        j += 1;
    }
    if !chars.get(j).is_some_and(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let name_start = j;
    while chars.get(j).is_some_and(|&c| is_name_char(c)) {
        j += 1;
    }
    let name: String = chars[name_start..j]
        .iter()
        .collect::<String>()
        .to_ascii_lowercase();
    let mut attrs = Vec::new();
    loop {
        while chars.get(j).is_some_and(|c| c.is_whitespace()) {
            j += 1;
        }
        match chars.get(j) {
            None | Some('<') => return None,
            Some('>') => {
                return Some(Tag {
                    name,
                    closing,
                    self_closing: false,
                    attrs,
                    end: j + 1,
                });
            }
            Some('/') if chars.get(j + 1) == Some(&'>') => {
                return Some(Tag {
                    name,
                    closing,
                    self_closing: true,
                    attrs,
                    end: j + 2,
                });
            }
            Some('/') => {
                j += 1;
                continue;
            }
            Some(_) => {}
        }
        let attr_start = j;
        while chars
            .get(j)
            .is_some_and(|&c| !c.is_whitespace() && !matches!(c, '=' | '>' | '<' | '/'))
        {
            j += 1;
        }
        let attr_name: String = chars[attr_start..j]
            .iter()
            .collect::<String>()
            .to_ascii_lowercase();
        let mut k = j;
        while chars.get(k).is_some_and(|c| c.is_whitespace()) {
            k += 1;
        }
        let mut value = None;
        if chars.get(k) == Some(&'=') {
            k += 1;
            while chars.get(k).is_some_and(|c| c.is_whitespace()) {
                k += 1;
            }
            match chars.get(k) {
                Some(&quote @ ('"' | '\'')) => {
                    let value_start = k + 1;
                    let mut m = value_start;
                    while chars.get(m).is_some_and(|&c| c != quote) {
                        m += 1;
                    }
                    if m >= chars.len() {
                        return None;
                    }
                    value = Some(chars[value_start..m].iter().collect());
                    j = m + 1;
                }
                Some(_) => {
                    let value_start = k;
                    let mut m = k;
                    while chars
                        .get(m)
                        .is_some_and(|&c| !c.is_whitespace() && c != '>' && c != '<')
                    {
                        m += 1;
                    }
                    value = Some(chars[value_start..m].iter().collect());
                    j = m;
                }
                None => return None,
            }
        }
        if attr_name.is_empty() {
            // Something like a lone `=`; skip it rather than loop forever.
            j = j.max(attr_start + 1);
            continue;
        }
        attrs.push(Attr {
            name: attr_name,
            value,
        });
    }
}

/// The value of attribute `name` (`Some(None)` when present without a value).
pub(crate) fn attr<'a>(attrs: &'a [Attr], name: &str) -> Option<Option<&'a str>> {
    attrs
        .iter()
        .find(|a| a.name == name)
        .map(|a| a.value.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn reads_attributes() {
        let c = chars("<dfn method for=ModelContext id='x y' noexport>");
        let tag = read_tag(&c, 0).unwrap();
        assert_eq!(tag.name, "dfn");
        assert_eq!(attr(&tag.attrs, "method"), Some(None));
        assert_eq!(attr(&tag.attrs, "for"), Some(Some("ModelContext")));
        assert_eq!(attr(&tag.attrs, "id"), Some(Some("x y")));
        assert_eq!(tag.end, c.len());
    }

    #[test]
    fn multi_line_and_closing() {
        let c = chars("<a lt=\"a long\n term\">x</a>");
        let tag = read_tag(&c, 0).unwrap();
        assert_eq!(attr(&tag.attrs, "lt"), Some(Some("a long\n term")));
        let close = read_tag(&c, tag.end + 1).unwrap();
        assert!(close.closing);
        assert_eq!(close.name, "a");
    }

    #[test]
    fn not_tags() {
        for s in ["a < b", "<{form}>", "<<foo>>", "<div", "<p <b>"] {
            let c = chars(s);
            let at = s.find('<').unwrap();
            let at = s[..at].chars().count();
            assert!(read_tag(&c, at).is_none(), "{s}");
        }
    }
}
