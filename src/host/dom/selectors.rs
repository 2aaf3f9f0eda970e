//! Selectors: `Element.matches()`, `closest()`, `querySelector()` and `querySelectorAll()`
//! for the selectors forms and their tests use.
//!
//! <https://dom.spec.whatwg.org/#scope-match-a-selectors-string>,
//! <https://drafts.csswg.org/selectors-4/>
//!
//! Hand-written rather than a CSS crate's (`selectors`, `cssparser`): those need a DOM type
//! implementing their element trait with borrowed references into the tree, and the host's
//! nodes are arena entries read through the footprint-recording arena; matching here is a
//! few dozen lines. What it reads: type and universal selectors, `#id`, `.class`, attribute
//! selectors (`[a]`, `[a=v]`, `~=`, `|=`, `^=`, `$=`, `*=`, with `i` or `s`), the
//! combinators (descendant, `>`, `+`, `~`), selector lists, `:not()`, `:is()`, `:where()`,
//! the tree pseudo-classes (`:root`, `:empty`, `:first-child`, `:last-child`,
//! `:only-child`), the form pseudo-classes (`:checked`, `:disabled`, `:enabled`, `:valid`,
//! `:invalid`, `:user-valid`, `:user-invalid`, `:required`, `:optional`, `:read-only`,
//! `:read-write`, `:default`, `:indeterminate`, `:placeholder-shown`, `:in-range`,
//! `:out-of-range`), and the pseudo-classes a specification above the host defines
//! ([`HostState::define_pseudo_class`]). Anything else is a `SyntaxError`, as an unknown
//! selector is in a browser.

use thiserror::Error;

use super::super::forms::InputType;
use super::super::keys::NodeKey;
use super::super::seam::Upper;
use super::super::HostState;
use super::node::{Namespace, NodeData};

/// A selector that does not parse.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("SyntaxError: `{selector}` is not a valid selector: {reason}")]
pub struct SelectorError {
    pub selector: String,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq)]
enum AttrOp {
    Exists,
    Equals,
    Includes,
    DashMatch,
    Prefix,
    Suffix,
    Substring,
}

#[derive(Clone, Debug, PartialEq)]
enum Simple {
    Type(String),
    Universal,
    Id(String),
    Class(String),
    Attr {
        name: String,
        op: AttrOp,
        value: String,
        case_insensitive: bool,
    },
    Pseudo(String),
    Not(Vec<Complex>),
    Is(Vec<Complex>),
    /// `:where()`: matches as `:is()` does, with no specificity.
    Where(Vec<Complex>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Combinator {
    Descendant,
    Child,
    NextSibling,
    SubsequentSibling,
}

/// A complex selector, right to left: the subject's compound first, then each combinator and
/// the compound it leads to.
#[derive(Clone, Debug, PartialEq)]
struct Complex {
    subject: Vec<Simple>,
    rest: Vec<(Combinator, Vec<Simple>)>,
}

/// The form and tree pseudo-classes the host knows.
const BUILT_IN: &[&str] = &[
    "root",
    "empty",
    "first-child",
    "last-child",
    "only-child",
    "checked",
    "disabled",
    "enabled",
    "valid",
    "invalid",
    "user-valid",
    "user-invalid",
    "required",
    "optional",
    "read-only",
    "read-write",
    "default",
    "indeterminate",
    "placeholder-shown",
    "in-range",
    "out-of-range",
];

/// How deeply `:not()`/`:is()` may nest in one selector.
const MAX_NESTING: usize = 32;

struct Parser<'a> {
    text: &'a str,
    chars: Vec<char>,
    pos: usize,
    defined: &'a [String],
}

impl Parser<'_> {
    fn error(&self, reason: impl Into<String>) -> SelectorError {
        SelectorError {
            selector: self.text.into(),
            reason: reason.into(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn skip_space(&mut self) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
        self.pos > start
    }

    fn ident(&mut self) -> Result<String, SelectorError> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_alphanumeric() || c == '-' || c == '_' || (c as u32) >= 0x80 {
                self.pos += 1;
            } else if c == '\\' && self.pos + 1 < self.chars.len() {
                self.pos += 2;
            } else {
                break;
            }
        }
        if self.pos == start {
            return Err(self.error(match self.peek() {
                Some(c) => format!("expected a name at `{c}`"),
                None => "expected a name at the end".into(),
            }));
        }
        Ok(self.chars[start..self.pos]
            .iter()
            .collect::<String>()
            .replace('\\', ""))
    }

    fn list(&mut self, depth: usize) -> Result<Vec<Complex>, SelectorError> {
        if depth > MAX_NESTING {
            return Err(self.error("selectors nest too deeply"));
        }
        let mut out = Vec::new();
        loop {
            self.skip_space();
            out.push(self.complex(depth)?);
            self.skip_space();
            match self.peek() {
                Some(',') => self.pos += 1,
                _ => return Ok(out),
            }
        }
    }

    fn complex(&mut self, depth: usize) -> Result<Complex, SelectorError> {
        let mut compounds = vec![self.compound(depth)?];
        let mut combinators = Vec::new();
        loop {
            let had_space = self.skip_space();
            let combinator = match self.peek() {
                Some('>') => Combinator::Child,
                Some('+') => Combinator::NextSibling,
                Some('~') => Combinator::SubsequentSibling,
                Some(',') | Some(')') | None => break,
                Some(_) if had_space => Combinator::Descendant,
                Some(c) => return Err(self.error(format!("unexpected `{c}`"))),
            };
            if combinator != Combinator::Descendant {
                self.pos += 1;
                self.skip_space();
            }
            combinators.push(combinator);
            compounds.push(self.compound(depth)?);
        }
        let subject = compounds.pop().unwrap_or_default();
        let mut rest = Vec::new();
        while let Some(c) = compounds.pop() {
            let combinator = combinators.pop().unwrap_or(Combinator::Descendant);
            rest.push((combinator, c));
        }
        Ok(Complex { subject, rest })
    }

    fn compound(&mut self, depth: usize) -> Result<Vec<Simple>, SelectorError> {
        let mut out = Vec::new();
        match self.peek() {
            Some('*') => {
                self.pos += 1;
                out.push(Simple::Universal);
            }
            Some(c) if c.is_alphabetic() || c == '_' || c == '-' || c == '\\' => {
                out.push(Simple::Type(self.ident()?.to_ascii_lowercase()));
            }
            _ => {}
        }
        loop {
            match self.peek() {
                Some('#') => {
                    self.pos += 1;
                    out.push(Simple::Id(self.ident()?));
                }
                Some('.') => {
                    self.pos += 1;
                    out.push(Simple::Class(self.ident()?));
                }
                Some('[') => {
                    self.pos += 1;
                    out.push(self.attribute()?);
                }
                Some(':') => {
                    self.pos += 1;
                    if self.peek() == Some(':') {
                        return Err(self.error("pseudo-elements never match an element"));
                    }
                    let name = self.ident()?.to_ascii_lowercase();
                    if self.peek() == Some('(') {
                        self.pos += 1;
                        let inner = self.list(depth + 1)?;
                        if self.peek() != Some(')') {
                            return Err(self.error(format!("`:{name}(` is not closed")));
                        }
                        self.pos += 1;
                        out.push(match name.as_str() {
                            "not" => Simple::Not(inner),
                            "is" | "matches" => Simple::Is(inner),
                            "where" => Simple::Where(inner),
                            other => {
                                return Err(self.error(format!("unknown pseudo-class `:{other}()`")))
                            }
                        });
                    } else if BUILT_IN.contains(&name.as_str()) || self.defined.contains(&name) {
                        out.push(Simple::Pseudo(name));
                    } else {
                        return Err(self.error(format!("unknown pseudo-class `:{name}`")));
                    }
                }
                _ => break,
            }
        }
        if out.is_empty() {
            return Err(self.error(match self.peek() {
                Some(c) => format!("expected a selector at `{c}`"),
                None => "expected a selector at the end".into(),
            }));
        }
        Ok(out)
    }

    fn attribute(&mut self) -> Result<Simple, SelectorError> {
        self.skip_space();
        let name = self.ident()?.to_ascii_lowercase();
        self.skip_space();
        let op = match self.peek() {
            Some(']') => {
                self.pos += 1;
                return Ok(Simple::Attr {
                    name,
                    op: AttrOp::Exists,
                    value: String::new(),
                    case_insensitive: false,
                });
            }
            Some('=') => AttrOp::Equals,
            Some('~') => AttrOp::Includes,
            Some('|') => AttrOp::DashMatch,
            Some('^') => AttrOp::Prefix,
            Some('$') => AttrOp::Suffix,
            Some('*') => AttrOp::Substring,
            _ => return Err(self.error("expected `]` or an attribute operator")),
        };
        self.pos += if op == AttrOp::Equals { 1 } else { 2 };
        if op != AttrOp::Equals && self.chars.get(self.pos - 1) != Some(&'=') {
            return Err(self.error("expected `=` in the attribute operator"));
        }
        self.skip_space();
        let value = match self.peek() {
            Some(q @ ('"' | '\'')) => {
                self.pos += 1;
                let start = self.pos;
                while self.peek().is_some_and(|c| c != q) {
                    self.pos += 1;
                }
                if self.peek() != Some(q) {
                    return Err(self.error("an attribute value's quote is not closed"));
                }
                let v: String = self.chars[start..self.pos].iter().collect();
                self.pos += 1;
                v
            }
            _ => self.ident()?,
        };
        self.skip_space();
        let mut case_insensitive = false;
        if let Some(c @ ('i' | 'I' | 's' | 'S')) = self.peek() {
            case_insensitive = c.eq_ignore_ascii_case(&'i');
            self.pos += 1;
            self.skip_space();
        }
        if self.peek() != Some(']') {
            return Err(self.error("expected `]`"));
        }
        self.pos += 1;
        Ok(Simple::Attr {
            name,
            op,
            value,
            case_insensitive,
        })
    }
}

fn parse(text: &str, defined: &[String]) -> Result<Vec<Complex>, SelectorError> {
    let mut p = Parser {
        text,
        chars: text.chars().collect(),
        pos: 0,
        defined,
    };
    let list = p.list(0)?;
    p.skip_space();
    if let Some(c) = p.peek() {
        return Err(p.error(format!("unexpected `{c}`")));
    }
    Ok(list)
}

/// A selector's specificity: (ids, classes / attributes / pseudo-classes, types), compared
/// in that order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Specificity(pub u32, pub u32, pub u32);

impl Specificity {
    fn plus(self, o: Specificity) -> Specificity {
        Specificity(self.0 + o.0, self.1 + o.1, self.2 + o.2)
    }
}

/// <https://drafts.csswg.org/selectors-4/#specificity-rules>: the sum over every simple
/// selector of every compound.
fn complex_specificity(complex: &Complex) -> Specificity {
    std::iter::once(&complex.subject)
        .chain(complex.rest.iter().map(|(_, c)| c))
        .flatten()
        .fold(Specificity::default(), |t, s| t.plus(simple_specificity(s)))
}

/// `:is()` and `:not()` count their most specific argument (Selectors 4 says, for `:is()`,
/// the most specific one that matches: the two differ only for an argument list whose more
/// specific selectors do not match, which the engine's scenarios do not write; the choice is
/// stated here), `:where()` nothing.
fn simple_specificity(simple: &Simple) -> Specificity {
    let list_max = |list: &[Complex]| {
        list.iter()
            .map(complex_specificity)
            .max()
            .unwrap_or_default()
    };
    match simple {
        Simple::Id(_) => Specificity(1, 0, 0),
        Simple::Class(_) | Simple::Attr { .. } | Simple::Pseudo(_) => Specificity(0, 1, 0),
        Simple::Type(_) => Specificity(0, 0, 1),
        Simple::Universal | Simple::Where(_) => Specificity::default(),
        Simple::Not(list) | Simple::Is(list) => list_max(list),
    }
}

impl<U: Upper> HostState<U> {
    fn parse_selector(&self, selector: &str) -> Result<Vec<Complex>, SelectorError> {
        parse(selector, &self.dom.pseudo_classes)
    }

    /// <https://dom.spec.whatwg.org/#dom-element-matches>
    pub fn matches(&self, element: NodeKey, selector: &str) -> Result<bool, SelectorError> {
        let list = self.parse_selector(selector)?;
        Ok(self.element(element).is_some() && self.matches_list(element, &list))
    }

    /// <https://dom.spec.whatwg.org/#dom-element-closest>
    pub fn closest(
        &self,
        element: NodeKey,
        selector: &str,
    ) -> Result<Option<NodeKey>, SelectorError> {
        let list = self.parse_selector(selector)?;
        Ok(std::iter::once(element)
            .chain(self.ancestors(element))
            .find(|e| self.element(*e).is_some() && self.matches_list(*e, &list)))
    }

    /// <https://dom.spec.whatwg.org/#dom-parentnode-queryselectorall>: the matching
    /// descendants of `root`, in tree order.
    pub fn query_selector_all(
        &self,
        root: NodeKey,
        selector: &str,
    ) -> Result<Vec<NodeKey>, SelectorError> {
        let list = self.parse_selector(selector)?;
        Ok(self
            .descendant_elements(root)
            .into_iter()
            .filter(|e| self.matches_list(*e, &list))
            .collect())
    }

    /// <https://dom.spec.whatwg.org/#dom-parentnode-queryselector>
    pub fn query_selector(
        &self,
        root: NodeKey,
        selector: &str,
    ) -> Result<Option<NodeKey>, SelectorError> {
        let list = self.parse_selector(selector)?;
        Ok(self
            .descendant_elements(root)
            .into_iter()
            .find(|e| self.matches_list(*e, &list)))
    }

    /// The specificity with which `element` matches the selector list `selector`: the
    /// greatest of the matching complex selectors' (Selectors 4, "calculate a selector's
    /// specificity"), or `None` when none matches. The cascade orders style rules by it.
    pub fn matching_specificity(
        &self,
        element: NodeKey,
        selector: &str,
    ) -> Result<Option<Specificity>, SelectorError> {
        let list = self.parse_selector(selector)?;
        if self.element(element).is_none() {
            return Ok(None);
        }
        Ok(list
            .iter()
            .filter(|c| self.matches_complex(element, c))
            .map(complex_specificity)
            .max())
    }

    fn matches_list(&self, element: NodeKey, list: &[Complex]) -> bool {
        list.iter().any(|c| self.matches_complex(element, c))
    }

    fn matches_complex(&self, element: NodeKey, complex: &Complex) -> bool {
        if !self.matches_compound(element, &complex.subject) {
            return false;
        }
        self.matches_rest(element, &complex.rest)
    }

    /// Matches the combinators and compounds left of a matched element, backtracking over
    /// the candidates a descendant or sibling combinator allows.
    fn matches_rest(&self, element: NodeKey, rest: &[(Combinator, Vec<Simple>)]) -> bool {
        let Some(((combinator, compound), more)) = rest.split_first() else {
            return true;
        };
        let candidates: Vec<NodeKey> = match combinator {
            Combinator::Child => self.parent_element(element).into_iter().collect(),
            Combinator::Descendant => self
                .ancestors(element)
                .filter(|a| self.element(*a).is_some())
                .collect(),
            Combinator::NextSibling => self.previous_element_sibling(element).into_iter().collect(),
            Combinator::SubsequentSibling => {
                let mut out = Vec::new();
                let mut at = element;
                while let Some(p) = self.previous_element_sibling(at) {
                    out.push(p);
                    at = p;
                }
                out
            }
        };
        candidates
            .into_iter()
            .any(|c| self.matches_compound(c, compound) && self.matches_rest(c, more))
    }

    fn previous_element_sibling(&self, node: NodeKey) -> Option<NodeKey> {
        let parent = self.parent(node)?;
        let siblings = self.children(parent);
        let i = siblings.iter().position(|c| *c == node)?;
        siblings[..i]
            .iter()
            .rev()
            .copied()
            .find(|s| self.element(*s).is_some())
    }

    fn matches_compound(&self, element: NodeKey, compound: &[Simple]) -> bool {
        compound.iter().all(|s| self.matches_simple(element, s))
    }

    fn matches_simple(&self, element: NodeKey, simple: &Simple) -> bool {
        let Some(e) = self.element(element) else {
            return false;
        };
        match simple {
            Simple::Universal => true,
            Simple::Type(name) => {
                if e.namespace == Namespace::Html {
                    e.local_name.eq_ignore_ascii_case(name)
                } else {
                    e.local_name == *name
                }
            }
            Simple::Id(id) => e.id() == Some(id.as_str()),
            Simple::Class(class) => e
                .attr("class")
                .is_some_and(|c| c.split_ascii_whitespace().any(|t| t == class)),
            Simple::Attr {
                name,
                op,
                value,
                case_insensitive,
            } => {
                let Some(actual) = e.attr(name) else {
                    return false;
                };
                let (actual, value) = if *case_insensitive {
                    (actual.to_ascii_lowercase(), value.to_ascii_lowercase())
                } else {
                    (actual.to_string(), value.clone())
                };
                match op {
                    AttrOp::Exists => true,
                    AttrOp::Equals => actual == value,
                    AttrOp::Includes => actual.split_ascii_whitespace().any(|t| t == value),
                    AttrOp::DashMatch => {
                        actual == value || actual.starts_with(&format!("{value}-"))
                    }
                    AttrOp::Prefix => !value.is_empty() && actual.starts_with(&value),
                    AttrOp::Suffix => !value.is_empty() && actual.ends_with(&value),
                    AttrOp::Substring => !value.is_empty() && actual.contains(&value),
                }
            }
            Simple::Not(list) => !self.matches_list(element, list),
            Simple::Is(list) | Simple::Where(list) => self.matches_list(element, list),
            Simple::Pseudo(name) => self.matches_pseudo_class(element, name),
        }
    }

    /// A pseudo-class, by its name.
    fn matches_pseudo_class(&self, element: NodeKey, name: &str) -> bool {
        let html = self.html_name(element);
        let siblings = |el: NodeKey| -> (bool, bool) {
            match self.parent(el) {
                Some(p) => {
                    let kids = self.element_children(p);
                    (kids.first() == Some(&el), kids.last() == Some(&el))
                }
                None => (false, false),
            }
        };
        match name {
            "root" => self
                .parent(element)
                .is_some_and(|p| matches!(self.dom.nodes[p].data, NodeData::Document)),
            "empty" => self
                .children(element)
                .iter()
                .all(|c| match &self.dom.nodes[*c].data {
                    NodeData::Text(t) => t.is_empty(),
                    NodeData::Comment(_) => true,
                    _ => false,
                }),
            "first-child" => siblings(element).0,
            "last-child" => siblings(element).1,
            "only-child" => siblings(element) == (true, true),
            "checked" => match html {
                Some("input") => {
                    matches!(
                        self.input_type(element),
                        Some(InputType::Checkbox | InputType::Radio)
                    ) && self.checkedness(element)
                }
                Some("option") => self.selectedness(element),
                _ => false,
            },
            "disabled" | "enabled" => {
                let can_be_disabled = matches!(
                    html,
                    Some(
                        "button"
                            | "input"
                            | "select"
                            | "textarea"
                            | "optgroup"
                            | "option"
                            | "fieldset"
                    )
                );
                can_be_disabled && (self.is_disabled(element) == (name == "disabled"))
            }
            "valid" | "invalid" => match self.validity_for_selectors(element) {
                Some(valid) => valid == (name == "valid"),
                None => false,
            },
            "user-valid" | "user-invalid" => {
                let user_validity = self
                    .element(element)
                    .and_then(|e| e.form.as_ref())
                    .is_some_and(|f| f.user_validity);
                user_validity
                    && self.will_validate(element)
                    && self.satisfies_constraints(element) == (name == "user-valid")
            }
            "required" | "optional" => {
                let applies = match html {
                    Some("select" | "textarea") => true,
                    Some("input") => self
                        .input_type(element)
                        .is_some_and(|t| t.required_applies()),
                    _ => false,
                };
                applies && (self.has_attribute(element, "required") == (name == "required"))
            }
            "read-write" | "read-only" => {
                let read_write = match html {
                    Some("textarea") => {
                        !self.has_attribute(element, "readonly") && !self.is_disabled(element)
                    }
                    Some("input") => {
                        self.input_type(element)
                            .is_some_and(|t| t.readonly_applies())
                            && !self.has_attribute(element, "readonly")
                            && !self.is_disabled(element)
                    }
                    _ => false,
                };
                read_write == (name == "read-write")
            }
            "default" => match html {
                Some("button" | "input") if self.is_submit_button(element) => self
                    .form_owner(element)
                    .is_some_and(|f| self.default_button(f) == Some(element)),
                Some("input") => {
                    matches!(
                        self.input_type(element),
                        Some(InputType::Checkbox | InputType::Radio)
                    ) && self.has_attribute(element, "checked")
                }
                Some("option") => self.has_attribute(element, "selected"),
                _ => false,
            },
            "indeterminate" => match html {
                Some("input") => match self.input_type(element) {
                    Some(InputType::Checkbox) => {
                        self.input_state(element).is_some_and(|s| s.indeterminate)
                    }
                    Some(InputType::Radio) => !self
                        .radio_group(element)
                        .iter()
                        .any(|r| self.checkedness(*r)),
                    _ => false,
                },
                _ => false,
            },
            "placeholder-shown" => {
                let shows = match html {
                    Some("input") => self
                        .input_type(element)
                        .is_some_and(|t| t.placeholder_applies()),
                    Some("textarea") => true,
                    _ => false,
                };
                shows
                    && self.has_attribute(element, "placeholder")
                    && self.value(element).is_empty()
            }
            "in-range" | "out-of-range" => {
                if !self.input_type(element).is_some_and(|t| t.has_range())
                    || !self.will_validate(element)
                {
                    return false;
                }
                let v = self.validity(element);
                let out = v.range_underflow || v.range_overflow;
                out == (name == "out-of-range")
            }
            defined => self
                .element(element)
                .is_some_and(|e| e.states.iter().any(|s| s == defined)),
        }
    }

    /// Whether `:valid` (`Some(true)`) or `:invalid` (`Some(false)`) matches: a candidate for
    /// constraint validation by its constraints, a `form` or `fieldset` by its controls.
    fn validity_for_selectors(&self, element: NodeKey) -> Option<bool> {
        match self.html_name(element) {
            Some("form") => Some(
                self.submittable_elements(element)
                    .iter()
                    .all(|c| !self.will_validate(*c) || self.satisfies_constraints(*c)),
            ),
            Some("fieldset") => Some(
                self.descendant_elements(element)
                    .iter()
                    .filter(|c| self.is_submittable(**c))
                    .all(|c| !self.will_validate(*c) || self.satisfies_constraints(*c)),
            ),
            _ if self.will_validate(element) => Some(self.satisfies_constraints(element)),
            _ => None,
        }
    }
}
