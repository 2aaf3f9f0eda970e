//! Text written where its reader interprets it, escaped so that what a scenario file says
//! (a subtest's name, a title, a value, a file name) cannot change what the output means:
//!
//! - [`js_comment`] and [`js_string`]: in an exported test, inside a `<script>`: a line
//!   terminator (LF, CR, U+2028, U+2029) ends a `//` comment, `*/` a block comment, and
//!   `</script` the whole script, wherever they stand;
//! - [`shell`]: a word of a command printed for the user to paste into a shell;
//! - [`terminal`]: text printed to a terminal: control characters (escape sequences) and
//!   bidirectional overrides are shown, not obeyed;
//! - [`markdown_inline`] and [`markdown_code`]: text in a Markdown heading, table cell or
//!   code span;
//! - [`cut`]: a value too long to read, shortened to a readable length.

/// Whether a character changes how a terminal shows what follows it: a control character
/// (C0 but tab, DEL, C1), or a bidirectional embedding, override, isolate or mark.
fn unsafe_for_terminal(c: char) -> bool {
    (c.is_control() && c != '\t')
        || super::js_string::as_lone_surrogate(c).is_some()
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// Whether a character ends a JavaScript `//` comment (ECMAScript's LineTerminator).
fn js_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// `c` written as a `\u` escape (`\u{...}` beyond the Basic Multilingual Plane).
fn unicode_escape(c: char, out: &mut String) {
    use std::fmt::Write as _;
    // A lone surrogate (js_string) as the escape of its code unit.
    let c_or_unit = super::js_string::as_lone_surrogate(c).map_or(c as u32, u32::from);
    let _ = if c_or_unit < 0x10000 {
        write!(out, "\\u{c_or_unit:04x}")
    } else {
        write!(out, "\\u{{{c_or_unit:x}}}")
    };
}

/// Text to put after `//` in an exported script: each line terminator is written as its
/// escape (the comment stays one line), and so are `*/` and `</script` (and `<!--`, which
/// HTML reads inside a script too), so that nothing in it can end the comment or the script.
pub fn js_comment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if js_line_terminator(c) || unsafe_for_terminal(c) {
            unicode_escape(c, &mut out);
        } else {
            out.push(c);
        }
    }
    html_script_safe(&out.replace("*/", "*\\/"))
}

/// `</script`, `<script` and `<!--` written so that HTML's script parsing does not see them
/// (in a string, `<\/` is `</`; in a comment it reads the same to a person).
fn html_script_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let lower = after.get(..6).map(str::to_ascii_lowercase);
        if after.starts_with('/') || after.starts_with("!--") || lower.as_deref() == Some("script")
        {
            out.push_str("<\\");
        } else {
            out.push('<');
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// A JavaScript string literal (double-quoted) holding `text`, safe inside an HTML
/// `<script>`: JSON's escapes, and besides U+2028, U+2029 (line terminators to older
/// engines) and `<` as `\u003c` (so that no `</script` or `<!--` appears).
pub fn js_string(text: &str) -> String {
    let json = serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into());
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '\u{2028}' | '\u{2029}' | '<' => unicode_escape(c, &mut out),
            c => match super::js_string::as_lone_surrogate(c) {
                Some(unit) => out.push_str(&format!("\\u{unit:04x}")),
                None => out.push(c),
            },
        }
    }
    out
}

/// A word of a command a user may paste into a POSIX shell: as it is when it holds only
/// characters no shell reads specially, else single-quoted (a `'` as `'\''`), and with any
/// control or bidirectional character written as a `$'\u...'` escape (bash and zsh read it;
/// it is never run as what it spells).
pub fn shell(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:=,@%+".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    if !word.chars().any(unsafe_for_terminal) {
        return format!("'{}'", word.replace('\'', "'\\''"));
    }
    let mut out = String::from("$'");
    for c in word.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if unsafe_for_terminal(c) => unicode_escape(c, &mut out),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A word of a pasted command, always quoted: in double quotes when nothing in it is special
/// there (`$`, `` ` ``, `\`, `"`, `!`, control and bidirectional characters), which reads as
/// the name it is; else as [`shell`] quotes it.
pub fn shell_quoted(word: &str) -> String {
    let special = |c: char| "$`\\\"!".contains(c) || unsafe_for_terminal(c);
    if word.chars().any(special) {
        // None of these is plain to `shell`: it quotes the word.
        return shell(word);
    }
    format!("\"{word}\"")
}

/// Text for a terminal: control characters (but tab) and bidirectional controls are written
/// as `\u` escapes, so that an escape sequence in a name shows as text and an override does
/// not turn the rest of the line around. `keep_newlines` leaves line ends as they are (text
/// of several lines the tool wrote itself).
pub fn terminal(text: &str, keep_newlines: bool) -> String {
    if !text.chars().any(unsafe_for_terminal) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_for_terminal(c) && !(keep_newlines && c == '\n') {
            unicode_escape(c, &mut out);
        } else {
            out.push(c);
        }
    }
    out
}

/// Text inside a Markdown heading, paragraph or table cell, read as that text: what Markdown
/// would read as markup (emphasis, code, links, HTML, entities, table cells, a heading's `#`)
/// is backslash-escaped, a line end becomes a space (it would end the heading or the table
/// row), and control and bidirectional characters are written as escapes.
pub fn markdown_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.chars().enumerate() {
        match c {
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&' => {
                out.push('\\');
                out.push(c);
            }
            '#' if i == 0 => out.push_str("\\#"),
            c if unsafe_for_terminal(c) => unicode_escape(c, &mut out),
            c => out.push(c),
        }
    }
    out
}

/// A Markdown code span holding `text` on one line: delimited by more backticks than any run
/// inside it (and padded where it starts or ends with one), its line ends as spaces.
pub fn markdown_code(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| match c {
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => ' ',
            c => c,
        })
        .collect();
    let one_line = terminal(&one_line, false);
    let longest = one_line
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if one_line.starts_with('`') || one_line.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{one_line}{pad}{fence}")
}

/// A fenced Markdown code block holding `text`: fenced with more backticks than any run of
/// them that starts a line inside it, so that nothing in it closes the block early.
pub fn markdown_fence(info: &str, text: &str) -> String {
    let longest = text
        .lines()
        .map(|l| l.trim_start().chars().take_while(|c| *c == '`').count())
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let text = terminal(text, true);
    let end = if text.ends_with('\n') { "" } else { "\n" };
    format!("{fence}{info}\n{text}{end}{fence}")
}

/// A Markdown table cell holding `text` as code: a code span, with `|` escaped (a table
/// splits its cells at every `|` not escaped, inside code spans too).
pub fn markdown_cell_code(text: &str) -> String {
    markdown_code(text).replace('|', "\\|")
}

/// Text for HTML: `&`, `<`, `>` and `"` as references.
pub fn html(text: &str) -> String {
    // A lone surrogate (js_string) shows as its escape.
    super::js_string::escape_lone_surrogates(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// How long a value shown in a message may be, in characters, before it is cut.
pub const READABLE_CHARS: usize = 400;

/// `text` cut to at most `max` characters, with how much was left out: `"xxx… (9600 more
/// characters)"`. The whole is in the JSON output.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((at, _)) => {
            let rest = text[at..].chars().count();
            format!("{}… ({rest} more characters)", &text[..at])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_a_name_holds_ends_a_comment_or_the_script() {
        let hostile = "a\u{2028}alert(1)\u{2029}b\nc\rd */ </script><!-- <SCRIPT";
        let c = js_comment(hostile);
        assert!(!c.contains(['\n', '\r', '\u{2028}', '\u{2029}']), "{c}");
        assert!(
            !c.contains("*/") && !c.to_lowercase().contains("</script"),
            "{c}"
        );
        assert!(
            !c.contains("<!--") && !c.to_lowercase().contains("<script"),
            "{c}"
        );
        assert!(c.contains("\\u2028alert(1)\\u2029"), "{c}");
        let s = js_string(hostile);
        assert!(
            !s.contains(['\n', '\r', '\u{2028}', '\u{2029}', '<']),
            "{s}"
        );
        assert_eq!(js_string("é\"x"), "\"é\\\"x\"");
    }

    #[test]
    fn a_pasted_command_runs_nothing_a_name_spells() {
        assert_eq!(shell("wpt-mirror/a.scn"), "wpt-mirror/a.scn");
        assert_eq!(shell("x $(touch F)"), "'x $(touch F)'");
        assert_eq!(shell("it's"), "'it'\\''s'");
        assert_eq!(shell(""), "''");
        assert_eq!(shell("a\nb"), "$'a\\u000ab'");
        assert_eq!(shell("\u{1b}[2J'"), "$'\\u001b[2J\\''");
        assert_eq!(shell_quoted("iframe removed"), "\"iframe removed\"");
        assert_eq!(shell_quoted("s"), "\"s\"");
        assert_eq!(shell_quoted("x $(touch F)"), "'x $(touch F)'");
        assert_eq!(shell_quoted("a!"), "'a!'");
    }

    #[test]
    fn terminals_see_escapes_and_overrides_as_text() {
        assert_eq!(
            terminal("a\u{1b}[31mb\u{202e}c", false),
            "a\\u001b[31mb\\u202ec"
        );
        assert_eq!(terminal("one\ntwo", true), "one\ntwo");
        assert_eq!(terminal("one\ntwo", false), "one\\u000atwo");
    }

    #[test]
    fn a_fence_outlasts_what_it_holds() {
        assert_eq!(
            markdown_fence("text", "a\n```\nb"),
            "````text\na\n```\nb\n````"
        );
        assert_eq!(markdown_fence("sh", "x"), "```sh\nx\n```");
        assert_eq!(markdown_cell_code("a|b"), "`a\\|b`");
    }

    #[test]
    fn markdown_structure_holds() {
        assert_eq!(markdown_inline("a|b\nc `d` *e*"), "a\\|b c \\`d\\` \\*e\\*");
        assert_eq!(markdown_code("a`b"), "``a`b``");
        assert_eq!(markdown_code("`x"), "`` `x ``");
        assert_eq!(markdown_code("a\nb"), "`a b`");
    }

    #[test]
    fn long_values_are_cut_with_what_was_left_out() {
        assert_eq!(cut("abc", 5), "abc");
        assert_eq!(cut("abcdef", 3), "abc… (3 more characters)");
    }
}
