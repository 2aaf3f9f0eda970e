//! CSS for `getComputedStyle()`: the style sheets of a document's `<style>` elements, each
//! element's `style` attribute, the cascade, inheritance, and the resolved values of the
//! properties the engine models.
//!
//! <https://drafts.csswg.org/css-cascade-5/#cascading>,
//! <https://drafts.csswg.org/cssom/#dom-window-getcomputedstyle>
//!
//! The syntax is `cssparser`'s (the CSS Syntax tokenizer, style sheet and declaration list
//! parsers), colors are `cssparser-color`'s (CSS Color 4, serialized as CSSOM serializes a
//! computed color); selectors are matched, with their specificity, by the host's own selector
//! engine (`selectors.rs`, which says why it is its own).
//!
//! The properties modelled are `color`, `background-color`, `display` and `visibility`: enough
//! for a page to see its rules for `:tool-form-active` and `:tool-submit-active` apply (WPT
//! webmcp/declarative/executeTool-pseudo-classes) and whether a control is shown. Any other
//! property is an error that says so, rather than a value the engine did not compute. The
//! defaults are a user-agent style sheet written as CSS below, whose values are those Chromium
//! 156 was measured computing (form controls, disabled ones included, links, hidden inputs,
//! and the display types of HTML's rendering section). At-rules (`@media`, `@layer`, ...) are
//! skipped (so `revert-layer` acts as `revert`), and custom properties, shadow trees and
//! pseudo-elements are not modelled.

use cssparser::{
    AtRuleParser, CowRcStr, DeclarationParser, Delimiter, ParseError, Parser, ParserState,
    QualifiedRuleParser, RuleBodyItemParser, RuleBodyParser, StyleSheetParser, ToCss,
};
use cssparser_color::Color;

use super::super::keys::NodeKey;
use super::super::seam::Upper;
use super::super::HostState;
use super::selectors::Specificity;

/// One declaration of a rule or a `style` attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    /// The property's name, ASCII-lowercased.
    pub property: String,
    /// The value as written, without `!important`.
    pub value: String,
    pub important: bool,
}

/// A style rule: its selector list as written, and its declarations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StyleRule {
    pub selectors: String,
    pub declarations: Vec<Declaration>,
}

/// What `getComputedStyle()` cannot answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StyleError {
    /// A property that exists in CSS but that the engine does not compute.
    NotModelled(String),
}

impl std::fmt::Display for StyleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StyleError::NotModelled(p) => write!(
                f,
                "the engine does not compute the CSS property `{p}`: it models {}",
                PROPERTIES
                    .iter()
                    .map(|p| format!("`{}`", p.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Color,
    Keyword(&'static [&'static str]),
}

/// A property the engine models.
#[derive(Clone, Copy, Debug)]
struct Property {
    name: &'static str,
    inherited: bool,
    initial: &'static str,
    kind: Kind,
}

const DISPLAY_KEYWORDS: &[&str] = &[
    "none",
    "block",
    "inline",
    "inline-block",
    "flex",
    "inline-flex",
    "grid",
    "inline-grid",
    "flow-root",
    "list-item",
    "contents",
    "table",
    "inline-table",
    "table-row-group",
    "table-header-group",
    "table-footer-group",
    "table-row",
    "table-cell",
    "table-column-group",
    "table-column",
    "table-caption",
];

const PROPERTIES: &[Property] = &[
    Property {
        name: "color",
        inherited: true,
        // CanvasText, in Chromium 156's light color scheme.
        initial: "rgb(0, 0, 0)",
        kind: Kind::Color,
    },
    Property {
        name: "background-color",
        inherited: false,
        initial: "transparent",
        kind: Kind::Color,
    },
    Property {
        name: "display",
        inherited: false,
        initial: "inline",
        kind: Kind::Keyword(DISPLAY_KEYWORDS),
    },
    Property {
        name: "visibility",
        inherited: true,
        initial: "visible",
        kind: Kind::Keyword(&["visible", "hidden", "collapse"]),
    },
];

/// The `color` property, which `currentcolor` names.
const COLOR: &Property = &PROPERTIES[0];

/// The user-agent style sheet: HTML's rendering section for `display`, and the colors
/// Chromium 156 was measured computing for form controls and links in its light color scheme.
const USER_AGENT_SHEET: &str = r#"
html, body, address, blockquote, center, dialog, div, figure, figcaption, footer, form,
header, hr, legend, listing, main, p, plaintext, pre, search, xmp, article, aside, h1, h2,
h3, h4, h5, h6, hgroup, nav, section, dir, dd, dl, dt, menu, ol, ul, fieldset, details,
summary, optgroup { display: block }
area, base, basefont, datalist, head, link, meta, noembed, noframes, param, rp, script,
style, template, title, [hidden], input[type=hidden i] { display: none }
li { display: list-item }
table { display: table }
caption { display: table-caption }
colgroup { display: table-column-group }
col { display: table-column }
thead { display: table-header-group }
tbody { display: table-row-group }
tfoot { display: table-footer-group }
tr { display: table-row }
td, th { display: table-cell }
input, button, select, textarea, meter, progress { display: inline-block }
input, button, select, textarea { color: rgb(0, 0, 0) }
input, textarea { background-color: rgb(255, 255, 255) }
button, select, input[type=submit i], input[type=reset i], input[type=button i],
input[type=color i], input[type=file i] { background-color: rgb(239, 239, 239) }
input[type=checkbox i], input[type=radio i], input[type=image i] { background-color: transparent }
input[type=range i] { color: rgb(157, 150, 142) }
input:disabled, textarea:disabled { color: rgb(84, 84, 84); background-color: rgba(239, 239, 239, 0.3) }
button:disabled, input[type=submit i]:disabled, input[type=reset i]:disabled,
input[type=button i]:disabled { color: rgba(16, 16, 16, 0.3); background-color: rgba(239, 239, 239, 0.3) }
select:disabled { color: rgb(128, 128, 128) }
a[href] { color: rgb(0, 0, 238) }
"#;

/// Colors CSS names by the system's palette (CSS Color 4's system colors), as Chromium 156's
/// light color scheme gives them; `cssparser-color` leaves them to its user.
const SYSTEM_COLORS: &[(&str, &str)] = &[
    ("canvas", "rgb(255, 255, 255)"),
    ("canvastext", "rgb(0, 0, 0)"),
    ("linktext", "rgb(0, 0, 238)"),
    ("visitedtext", "rgb(85, 26, 139)"),
    ("activetext", "rgb(255, 0, 0)"),
    ("buttonface", "rgb(239, 239, 239)"),
    ("buttontext", "rgb(0, 0, 0)"),
    ("buttonborder", "rgb(118, 118, 118)"),
    ("field", "rgb(255, 255, 255)"),
    ("fieldtext", "rgb(0, 0, 0)"),
    ("graytext", "rgb(128, 128, 128)"),
    ("highlight", "rgb(181, 213, 255)"),
    ("highlighttext", "rgb(0, 0, 0)"),
    ("mark", "rgb(255, 255, 0)"),
    ("marktext", "rgb(0, 0, 0)"),
];

/// Parses a style sheet's text into its style rules, skipping at-rules and invalid rules (as
/// CSS Syntax's error recovery does).
pub fn parse_style_sheet(text: &str) -> Vec<StyleRule> {
    let mut parser = Parser::new(text);
    let mut rules = SheetRules;
    StyleSheetParser::new(&mut parser, &mut rules)
        .filter_map(Result::ok)
        .flatten()
        .collect()
}

/// Parses a declaration list (a `style` attribute's value, or a rule's block), skipping
/// invalid declarations.
pub fn parse_declarations(text: &str) -> Vec<Declaration> {
    let mut parser = Parser::new(text);
    declarations_of(&mut parser)
}

fn declarations_of(parser: &mut Parser<'_>) -> Vec<Declaration> {
    let mut decls = Declarations;
    RuleBodyParser::new(parser, &mut decls)
        .filter_map(Result::ok)
        .flatten()
        .collect()
}

struct SheetRules;

impl<'i> QualifiedRuleParser<'i> for SheetRules {
    type Prelude = String;
    type QualifiedRule = Option<StyleRule>;
    type Error = ();

    fn parse_prelude(&mut self, input: &mut Parser<'i>) -> Result<String, ParseError<()>> {
        let start = input.position();
        while input.next().is_ok() {}
        Ok(input.slice_from(start).trim().to_string())
    }

    fn parse_block(
        &mut self,
        selectors: String,
        _start: &ParserState,
        input: &mut Parser<'i>,
    ) -> Result<Option<StyleRule>, ParseError<()>> {
        Ok(Some(StyleRule {
            selectors,
            declarations: declarations_of(input),
        }))
    }
}

impl<'i> AtRuleParser<'i> for SheetRules {
    type Prelude = ();
    type AtRule = Option<StyleRule>;
    type Error = ();
}

struct Declarations;

impl<'i> DeclarationParser<'i> for Declarations {
    type Declaration = Option<Declaration>;
    type Error = ();

    fn parse_value(
        &mut self,
        name: CowRcStr<'i>,
        input: &mut Parser<'i>,
        _start: &ParserState,
    ) -> Result<Option<Declaration>, ParseError<()>> {
        // The value runs to a top-level `!` (CSS Syntax's "consume a declaration": a trailing
        // `!important` is taken off); anything after `!important` makes it invalid.
        let start = input.position();
        input.parse_until_before(Delimiter::Bang, |i| {
            while i.next().is_ok() {}
            Ok::<(), ParseError<()>>(())
        })?;
        let end = input.position();
        let important = input.try_parse(cssparser::parse_important).is_ok();
        input.expect_exhausted()?;
        let value = input.slice(start..end).trim().to_string();
        Ok(Some(Declaration {
            property: name.to_ascii_lowercase(),
            value,
            important,
        }))
    }
}

impl<'i> AtRuleParser<'i> for Declarations {
    type Prelude = ();
    type AtRule = Option<Declaration>;
    type Error = ();
}

impl<'i> QualifiedRuleParser<'i> for Declarations {
    type Prelude = ();
    type QualifiedRule = Option<Declaration>;
    type Error = ();
}

impl<'i> RuleBodyItemParser<'i, Option<Declaration>, ()> for Declarations {
    fn parse_declarations(&self) -> bool {
        true
    }
    fn parse_qualified(&self) -> bool {
        false
    }
}

/// `getComputedStyle()`'s name for a property: `backgroundColor` and `background-color` both
/// name background-color (CSSOM's camel-cased and dashed attributes).
pub fn property_name(name: &str) -> String {
    if name.contains('-') {
        return name.to_ascii_lowercase();
    }
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `name` (dashed) is a CSS property a browser knows, for the error that separates
/// "not modelled" from "no such property" (which a browser reads as `undefined`).
pub fn is_known_css_property(name: &str) -> bool {
    PROPERTIES.iter().any(|p| p.name == name) || KNOWN_UNMODELLED.contains(&name)
}

/// Common properties the engine does not compute: reading one is an error, not `undefined`.
const KNOWN_UNMODELLED: &[&str] = &[
    "opacity",
    "width",
    "height",
    "margin",
    "padding",
    "border",
    "border-color",
    "border-top-color",
    "border-right-color",
    "border-bottom-color",
    "border-left-color",
    "outline",
    "outline-color",
    "font",
    "font-size",
    "font-weight",
    "font-family",
    "position",
    "top",
    "left",
    "right",
    "bottom",
    "z-index",
    "cursor",
    "pointer-events",
    "text-decoration",
    "transform",
];

/// Where a declaration comes from, lowest precedence first (CSS Cascade's origin and
/// importance, and the style attribute's place among author rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Precedence {
    UserAgent,
    Author,
    StyleAttribute,
    ImportantAuthor,
    ImportantStyleAttribute,
    ImportantUserAgent,
}

impl<U: Upper> HostState<U> {
    /// The style rules of `element`'s document: the user agent's, then (with `authors`) each
    /// connected `style` element's in tree order. Each is `(author, rule)`.
    fn style_rules_for(&self, element: NodeKey, authors: bool) -> Vec<(bool, StyleRule)> {
        static USER_AGENT_RULES: std::sync::OnceLock<Vec<StyleRule>> = std::sync::OnceLock::new();
        let mut rules: Vec<(bool, StyleRule)> = USER_AGENT_RULES
            .get_or_init(|| parse_style_sheet(USER_AGENT_SHEET))
            .iter()
            .map(|r| (false, r.clone()))
            .collect();
        let doc = self.node_document(element);
        if let Some(root) = self.document_node(doc).filter(|_| authors) {
            for style in self.descendant_elements(root) {
                if self.is_html(style, "style") {
                    let text = self.text_content(style).unwrap_or_default();
                    rules.extend(parse_style_sheet(&text).into_iter().map(|r| (true, r)));
                }
            }
        }
        rules
    }

    /// The cascaded value of `property` for `element`: the declaration that wins the
    /// cascade, by origin and importance, then specificity, then order of appearance.
    /// Declarations whose value is not valid for the property were dropped when parsed, so they
    /// take no part. Without `authors`, only the user agent's origin cascades (what `revert`
    /// in an author's declaration rolls back to).
    fn cascaded_value(&self, element: NodeKey, p: &Property, authors: bool) -> Option<String> {
        let property = p.name;
        let mut best: Option<((Precedence, Specificity, usize), String)> = None;
        let mut order = 0usize;
        let mut consider = |key: (Precedence, Specificity, usize), value: &str| {
            if best.as_ref().is_none_or(|(k, _)| key >= *k) {
                best = Some((key, value.to_string()));
            }
        };
        for (author, rule) in self.style_rules_for(element, authors) {
            let Ok(Some(specificity)) = self.matching_specificity(element, &rule.selectors) else {
                continue;
            };
            for d in rule
                .declarations
                .iter()
                .filter(|d| d.property == property && valid_for(p, &d.value))
            {
                order += 1;
                let precedence = match (author, d.important) {
                    (false, false) => Precedence::UserAgent,
                    (true, false) => Precedence::Author,
                    (true, true) => Precedence::ImportantAuthor,
                    (false, true) => Precedence::ImportantUserAgent,
                };
                consider((precedence, specificity, order), &d.value);
            }
        }
        if let Some(style) = self.attribute(element, "style").filter(|_| authors) {
            for d in parse_declarations(style)
                .into_iter()
                .filter(|d| d.property == property && valid_for(p, &d.value))
            {
                order += 1;
                let precedence = if d.important {
                    Precedence::ImportantStyleAttribute
                } else {
                    Precedence::StyleAttribute
                };
                consider((precedence, Specificity::default(), order), &d.value);
            }
        }
        best.map(|(_, v)| v)
    }

    /// `getComputedStyle(element)[property]`: the resolved value of `property` (a dashed
    /// name) for `element`, or an error for a property the engine does not compute.
    ///
    /// <https://drafts.csswg.org/cssom/#resolved-values>: for the properties modelled, the
    /// computed value.
    pub fn computed_value(&self, element: NodeKey, property: &str) -> Result<String, StyleError> {
        let Some(p) = PROPERTIES.iter().find(|p| p.name == property) else {
            return Err(StyleError::NotModelled(property.to_string()));
        };
        Ok(self.computed(element, p, 0))
    }

    fn computed(&self, element: NodeKey, p: &Property, depth: usize) -> String {
        let inherit = |w: &Self| match w.parent_element(element) {
            Some(parent) if depth < 1024 => w.computed(parent, p, depth + 1),
            _ => w.compute(element, p, p.initial, depth),
        };
        let lower = |v: &Option<String>| v.as_deref().map(str::to_ascii_lowercase);
        let mut cascaded = self.cascaded_value(element, p, true);
        // `revert` (and `revert-layer`, there being no layers) rolls the cascade back to the
        // user agent's origin, the only one before the author's; the user agent's sheet never
        // says `revert` itself.
        if matches!(lower(&cascaded).as_deref(), Some("revert" | "revert-layer")) {
            cascaded = self.cascaded_value(element, p, false);
        }
        match lower(&cascaded).as_deref() {
            None | Some("unset") if p.inherited => inherit(self),
            None | Some("unset") | Some("initial") => self.compute(element, p, p.initial, depth),
            Some("inherit") => inherit(self),
            Some(_) => self.compute(element, p, cascaded.as_deref().unwrap_or(p.initial), depth),
        }
    }

    /// A specified value's computed value.
    fn compute(&self, element: NodeKey, p: &Property, value: &str, depth: usize) -> String {
        match p.kind {
            Kind::Keyword(_) => value.to_ascii_lowercase(),
            Kind::Color => match parse_color(value) {
                Some(ParsedColor::Current) if p.name == "color" => {
                    // `color: currentcolor` is `inherit`.
                    match self.parent_element(element) {
                        Some(parent) if depth < 1024 => self.computed(parent, p, depth + 1),
                        _ => COLOR.initial.to_string(),
                    }
                }
                Some(ParsedColor::Current) => self.computed(element, COLOR, depth),
                Some(ParsedColor::Value(v)) => v,
                None => p.initial.to_string(),
            },
        }
    }
}

enum ParsedColor {
    Current,
    Value(String),
}

fn parse_color(value: &str) -> Option<ParsedColor> {
    let lower = value.trim().to_ascii_lowercase();
    if let Some((_, v)) = SYSTEM_COLORS.iter().find(|(n, _)| *n == lower) {
        return Some(ParsedColor::Value(v.to_string()));
    }
    let mut parser = Parser::new(value);
    let color = parser.parse_entirely(Color::parse).ok()?;
    Some(match color {
        Color::CurrentColor => ParsedColor::Current,
        other => ParsedColor::Value(other.to_css_string()),
    })
}

/// Whether `value` is a valid value of `p` (an invalid declaration is dropped at parse time).
fn valid_for(p: &Property, value: &str) -> bool {
    let lower = value.trim().to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "initial" | "inherit" | "unset" | "revert" | "revert-layer"
    ) {
        return true;
    }
    match p.kind {
        Kind::Keyword(words) => words.contains(&lower.as_str()),
        Kind::Color => parse_color(value).is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_keep_their_importance_and_skip_what_does_not_parse() {
        let d = parse_declarations("color: red !important; ; background-color : rgb(1, 2, 3); }");
        assert_eq!(
            d,
            vec![
                Declaration {
                    property: "color".into(),
                    value: "red".into(),
                    important: true
                },
                Declaration {
                    property: "background-color".into(),
                    value: "rgb(1, 2, 3)".into(),
                    important: false
                },
            ]
        );
    }

    #[test]
    fn a_sheet_skips_at_rules_and_keeps_each_rule_selectors_as_written() {
        let rules = parse_style_sheet(
            "@media print { p { color: red } } form:tool-form-active, #x { color: blue }",
        );
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0].selectors, "form:tool-form-active, #x");
        assert_eq!(rules[0].declarations[0].value, "blue");
    }

    #[test]
    fn colors_compute_as_cssom_serializes_them() {
        let v = |s: &str| match parse_color(s) {
            Some(ParsedColor::Value(v)) => v,
            Some(ParsedColor::Current) => "currentcolor".into(),
            None => "invalid".into(),
        };
        assert_eq!(v("hsl(120, 100%, 50%)"), "rgb(0, 255, 0)");
        assert_eq!(v("#0f08"), "rgba(0, 255, 0, 0.533)");
        assert_eq!(v("rgb(0 255 0 / 50%)"), "rgba(0, 255, 0, 0.5)");
        assert_eq!(v("transparent"), "rgba(0, 0, 0, 0)");
        assert_eq!(v("ButtonFace"), "rgb(239, 239, 239)");
        assert_eq!(v("currentColor"), "currentcolor");
        assert_eq!(v("nocolor"), "invalid");
    }

    #[test]
    fn currentcolor_names_the_color_property() {
        assert_eq!(COLOR.name, "color");
    }

    #[test]
    fn camel_cased_names_are_dashed() {
        assert_eq!(property_name("backgroundColor"), "background-color");
        assert_eq!(property_name("background-color"), "background-color");
        assert_eq!(property_name("color"), "color");
    }
}
