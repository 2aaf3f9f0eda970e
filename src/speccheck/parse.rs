//! Finding the algorithms of a Bikeshed source and their numbered steps.
//!
//! An algorithm is an element with an `algorithm` attribute (normally `<div
//! algorithm>`, possibly nested in another), or a paragraph outside such blocks
//! that holds a `<dfn>` and ends in "method steps are:" (or getter, setter,
//! constructor steps) followed by a numbered list.
//!
//! Inside an algorithm:
//!
//! * Steps are the items of numbered lists (markdown `1.` or HTML `<ol>/<li>`),
//!   numbered as rendered: a list written `1. 1. 1.` shows 1, 2, 3, and one
//!   whose first item is written `3.` starts at 3.
//! * A step's text is its own lines without its sub-steps. Definition lists
//!   (`: dt` / `:: dd`) in a step are part of its text. A bullet list (`- `) in a
//!   step is part of its text too, *unless* one of its items holds numbered
//!   steps: then each bullet becomes a step of its own, numbered by position
//!   (the first bullet of step 11 is `11.1`, and its first numbered sub-step
//!   `11.1.1`), because code implements each bullet as a branch. Bullets at the
//!   top of an algorithm are always steps.
//! * Not steps: `Note:`/`Note,` and `Advisement:` paragraphs, elements with
//!   class `note`, `example`, `issue`, `advisement`, `XXX` or `domintro`,
//!   `<wpt>` blocks, code and IDL blocks, and nested algorithms (which are
//!   algorithms of their own).
//! * `Issue:` / `Issue(id):` paragraphs and `class=issue` elements are recorded
//!   as [`IssueBox`]es with the step that contains them (or, at the top level,
//!   the last step before them).
//! * The text before the first step (the sentence holding the `<dfn>` and the
//!   parameters) is the algorithm's *header*, digested as step `0`.

use std::collections::HashMap;

use super::anchor::{is_dfn_type, simplify_text, DfnInfo};
use super::error::ParseError;
use super::hash::TextHash;
use super::markdown::{
    classify, make_token, prefix_count, Arena, Block, Kind, ListKind, ParaKind, Token, INFINITE,
};
use super::normalize::{extract_ids, normalize};
use super::scan::{Document, RawState};
use super::step::StepNumber;

/// Everything spec-check needs from one `.bs` file.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The algorithms in document order.
    pub algorithms: Vec<Algorithm>,
}

impl Spec {
    pub fn algorithm(&self, anchor: &str) -> Option<&Algorithm> {
        self.algorithms.iter().find(|a| a.anchor == anchor)
    }

    /// All issue boxes of all algorithms, with the anchor they belong to.
    pub fn issues(&self) -> impl Iterator<Item = (&str, &IssueBox)> {
        self.algorithms
            .iter()
            .flat_map(|a| a.issues.iter().map(move |i| (a.anchor.as_str(), i)))
    }
}

#[derive(Clone, Debug)]
pub struct Algorithm {
    /// The anchor of the `<dfn>` the algorithm defines (see [`DfnInfo::anchor`]),
    /// or its slugified `algorithm=` name when it defines none.
    pub anchor: String,
    /// The `algorithm=` value, or the dfn's text for a bare `<div algorithm>`.
    pub name: String,
    /// Line of the algorithm's opening tag (or paragraph).
    pub line: usize,
    /// The anchor of the algorithm this one is nested in.
    pub parent: Option<String>,
    /// False for a "method steps are:" paragraph outside any `<div algorithm>`.
    pub wrapped: bool,
    /// Normalized text of the header paragraph.
    pub header: String,
    pub header_hash: TextHash,
    /// The steps in document order (a step precedes its sub-steps).
    pub steps: Vec<Step>,
    pub issues: Vec<IssueBox>,
}

impl Algorithm {
    pub fn step(&self, number: &StepNumber) -> Option<&Step> {
        self.steps.iter().find(|s| &s.number == number)
    }
}

/// How a step is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// An item of a numbered list (`1.` or `<li>` of an `<ol>`).
    Numbered,
    /// A bullet that holds numbered sub-steps (see the module docs).
    Bullet,
}

#[derive(Clone, Debug)]
pub struct Step {
    pub number: StepNumber,
    pub kind: StepKind,
    /// Line of the step's marker.
    pub line: usize,
    /// Normalized text without sub-steps (see [`super::normalize`]).
    pub text: String,
    pub hash: TextHash,
    /// `id`s of elements in the step's own text: anchors other text links to.
    pub ids: Vec<String>,
}

/// An `Issue:` box inside an algorithm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssueBox {
    pub line: usize,
    /// The step containing the box; `None` before the first step.
    pub after_step: Option<StepNumber>,
    /// The id of `Issue(id):`, such as `#224`.
    pub remote_id: Option<String>,
    /// Normalized text of the box.
    pub text: String,
}

/// Parses a Bikeshed source into its algorithms.
pub fn parse_bs(source: &str) -> Result<Spec, ParseError> {
    parse_source(source).map_err(|e| e.placed(source))
}

fn parse_source(source: &str) -> Result<Spec, ParseError> {
    let doc = Document::new(source)?;
    let regions = find_regions(&doc)?;
    let mut algorithms = Vec::with_capacity(regions.len());
    for region in &regions {
        algorithms.push(parse_region(&doc, region)?);
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for a in &algorithms {
        if let Some(first) = seen.insert(&a.anchor, a.line) {
            return Err(ParseError::new(
                a.line,
                format!(
                    "a second algorithm has the anchor {} (the first is at line {first})",
                    a.anchor
                ),
            ));
        }
    }
    let anchor_of: HashMap<usize, String> = regions
        .iter()
        .zip(&algorithms)
        .filter_map(|(r, a)| r.element.map(|e| (e, a.anchor.clone())))
        .collect();
    for (region, algorithm) in regions.iter().zip(algorithms.iter_mut()) {
        algorithm.parent = region
            .element
            .and_then(|e| doc.algorithm_of(e))
            .and_then(|p| anchor_of.get(&p).cloned());
    }
    Ok(Spec { algorithms })
}

/// Where an algorithm's content is.
struct Region {
    /// The element with the `algorithm` attribute; `None` for a paragraph.
    element: Option<usize>,
    body_start: usize,
    body_end: usize,
    line: usize,
    /// A non-empty `algorithm=` value.
    name: Option<String>,
    /// For a paragraph, the dfn it defines.
    dfn: Option<usize>,
}

fn find_regions(doc: &Document) -> Result<Vec<Region>, ParseError> {
    let mut regions = Vec::new();
    for (i, e) in doc.elements.iter().enumerate() {
        if !e.is_algorithm() {
            continue;
        }
        if !e.explicit_close {
            return Err(ParseError::new(
                e.line,
                format!("this <{}> algorithm block is never closed", e.name),
            ));
        }
        let name = e
            .attr("algorithm")
            .flatten()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from);
        regions.push(Region {
            element: Some(i),
            body_start: e.open_end,
            body_end: e.close_start,
            line: e.line,
            name,
            dfn: None,
        });
    }
    let mut paragraphs = std::collections::HashSet::new();
    for (i, e) in doc.elements.iter().enumerate() {
        let body = (e.name == "dfn" && doc.algorithm_of(i).is_none())
            .then(|| unwrapped_body(doc, i))
            .flatten()
            .filter(|(start, _)| !paragraphs.contains(start));
        if let Some((start, end)) = body {
            paragraphs.insert(start);
            regions.push(Region {
                element: None,
                body_start: start,
                body_end: end,
                line: doc.line_number_at(start),
                name: None,
                dfn: Some(i),
            });
        }
    }
    regions.sort_by_key(|r| r.body_start);
    Ok(regions)
}

/// For a dfn outside algorithm blocks: if its paragraph ends in "method steps
/// are:" (getter, setter, constructor) and a numbered list follows, the byte
/// range of paragraph and list.
fn unwrapped_body(doc: &Document, dfn: usize) -> Option<(usize, usize)> {
    let lines = &doc.lines;
    let blank =
        |k: usize| lines[k].raw == RawState::None && doc.stripped(&lines[k]).trim().is_empty();
    let boundary = |k: usize| lines[k].raw != RawState::None || blank(k);
    let at = doc.line_index_at(doc.elements[dfn].start);
    let (mut first, mut last) = (at, at);
    let mut k = at;
    while k > 0 {
        k -= 1;
        if lines[k].deleted {
            continue;
        }
        if boundary(k) {
            break;
        }
        first = k;
    }
    k = at;
    while k + 1 < lines.len() {
        k += 1;
        if lines[k].deleted {
            continue;
        }
        if boundary(k) {
            break;
        }
        last = k;
    }
    let markup: Vec<String> = (first..=last)
        .filter(|&k| !lines[k].deleted)
        .map(|k| doc.stripped(&lines[k]))
        .collect();
    let text = normalize(&markup.join("\n"));
    let ends = [
        "method steps are:",
        "getter steps are:",
        "setter steps are:",
        "constructor steps are:",
    ];
    if !ends.iter().any(|e| text.ends_with(e)) {
        return None;
    }
    let live: Vec<usize> = (last + 1..lines.len())
        .filter(|&k| !lines[k].deleted)
        .collect();
    let kind_prefix = |k: usize| -> (Kind, usize) {
        let text = doc.stripped(&lines[k]);
        match lines[k].raw {
            RawState::Inside => (Kind::Raw, INFINITE),
            RawState::Open => (Kind::Raw, prefix_count(&text, doc.indent)),
            RawState::None => match classify(text.trim()).0 {
                Kind::Blank => (Kind::Blank, INFINITE),
                kind => (kind, prefix_count(&text, doc.indent)),
            },
        }
    };
    let start = live.iter().position(|&k| !blank(k))?;
    let (kind, p) = kind_prefix(live[start]);
    if !matches!(kind, Kind::Numbered(_)) {
        return None;
    }
    let mut end_line = live[start];
    for (n, &k) in live.iter().enumerate().skip(start + 1) {
        let (kind, prefix) = kind_prefix(k);
        if prefix < p {
            break;
        }
        if kind == Kind::Blank {
            let (next_kind, next_prefix) = live
                .get(n + 1)
                .map_or((Kind::Blank, 0), |&m| kind_prefix(m));
            if !matches!(next_kind, Kind::Numbered(_)) && next_prefix <= p {
                break;
            }
            continue;
        }
        end_line = k;
    }
    Some((lines[first].start, lines[end_line].end))
}

/// What Bikeshed would know about the dfn element `d`.
fn dfn_info(doc: &Document, d: usize) -> DfnInfo {
    let e = &doc.elements[d];
    let value = |e: &super::scan::Element, names: &[&str]| -> Option<String> {
        names
            .iter()
            .find_map(|n| e.attr(n).flatten())
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(String::from)
    };
    let own_type = value(e, &["data-dfn-type", "dfn-type"]).or_else(|| {
        e.attrs
            .iter()
            .find(|a| a.value.is_none() && a.name != "dfn" && is_dfn_type(&a.name))
            .map(|a| a.name.clone())
    });
    let dfn_type = own_type
        .or_else(|| {
            doc.ancestor(d, |a| value(a, &["data-dfn-type", "dfn-type"]).is_some())
                .and_then(|a| value(&doc.elements[a], &["data-dfn-type", "dfn-type"]))
        })
        .unwrap_or_else(|| "dfn".to_string());
    let dfn_for = value(e, &["for", "data-dfn-for", "dfn-for"]).or_else(|| {
        doc.ancestor(d, |a| value(a, &["data-dfn-for", "dfn-for"]).is_some())
            .and_then(|a| value(&doc.elements[a], &["data-dfn-for", "dfn-for"]))
    });
    DfnInfo {
        id: value(e, &["id"]),
        dfn_type,
        dfn_for,
        lt: value(e, &["lt", "data-lt"]),
        text: normalize(&visible_text(doc, e.open_end, e.close_start, |_| false)),
    }
}

/// The markup between two bytes, comments removed and excluded bytes (and
/// raw lines) blanked.
fn visible_text(
    doc: &Document,
    start: usize,
    end: usize,
    excluded: impl Fn(usize) -> bool,
) -> String {
    let end = end.min(doc.text.len());
    if start >= end {
        return String::new();
    }
    doc.text[start..end]
        .char_indices()
        .filter(|(off, _)| !doc.comment[start + off])
        .map(|(off, c)| {
            let b = start + off;
            if c == '\n' || !(excluded(b) || doc.in_raw_line(b)) {
                c
            } else {
                ' '
            }
        })
        .collect()
}

#[derive(Clone, Debug)]
struct RawIssue {
    line: usize,
    remote_id: Option<String>,
    text: String,
}

#[derive(Clone, Debug)]
struct HtmlList {
    start: i64,
    items: Vec<HtmlItem>,
}

#[derive(Clone, Debug)]
struct HtmlItem {
    line: usize,
    markup: String,
    issues: Vec<RawIssue>,
    children: Vec<HtmlList>,
}

/// Things that start on a line but are not markdown: issue boxes and HTML lists.
#[derive(Clone, Debug)]
enum Attachment {
    Issue(RawIssue),
    List(HtmlList),
}

/// The byte ranges an algorithm's steps must not take text from.
struct Exclusions {
    body_start: usize,
    body_end: usize,
    nested: Vec<(usize, usize)>,
    asides: Vec<(usize, usize)>,
    lists: Vec<(usize, usize)>,
}

impl Exclusions {
    /// Sorts each set of ranges and merges those that overlap, so that a byte is looked up
    /// by a binary search (an algorithm with many notes costs what it holds).
    fn merge(&mut self) {
        for ranges in [&mut self.nested, &mut self.asides, &mut self.lists] {
            ranges.sort_unstable();
            let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
            for &(s, e) in ranges.iter() {
                match merged.last_mut() {
                    Some(last) if s <= last.1 => last.1 = last.1.max(e),
                    _ => merged.push((s, e)),
                }
            }
            *ranges = merged;
        }
    }

    fn in_ranges(ranges: &[(usize, usize)], b: usize) -> bool {
        let i = ranges.partition_point(|&(s, _)| s <= b);
        i > 0 && b < ranges[i - 1].1
    }

    fn in_nested(&self, b: usize) -> bool {
        Self::in_ranges(&self.nested, b)
    }

    fn excluded(&self, b: usize) -> bool {
        b < self.body_start
            || b >= self.body_end
            || [&self.nested, &self.asides, &self.lists]
                .iter()
                .any(|v| Self::in_ranges(v, b))
    }
}

/// The `<li>` of an `<ol>` that contains element `e`, if it is inside the region.
fn owning_list_item(doc: &Document, e: usize, region: &Region) -> Option<usize> {
    let mut cur = doc.elements[e].parent;
    while let Some(p) = cur {
        if Some(p) == region.element || doc.elements[p].start < region.body_start {
            return None;
        }
        let parent_is_ol = doc.elements[p]
            .parent
            .is_some_and(|pp| doc.elements[pp].name == "ol");
        if doc.elements[p].name == "li" && parent_is_ol {
            return Some(p);
        }
        cur = doc.elements[p].parent;
    }
    None
}

fn raw_issue(doc: &Document, e: usize) -> RawIssue {
    let el = &doc.elements[e];
    RawIssue {
        line: el.line,
        remote_id: el.attr("data-remote-issue-id").flatten().map(String::from),
        text: normalize(&visible_text(doc, el.open_end, el.close_start, |_| false)),
    }
}

fn html_list(doc: &Document, ol: usize, ex: &Exclusions) -> Result<HtmlList, ParseError> {
    let el = &doc.elements[ol];
    let start = match el.attr("start").flatten() {
        Some(v) => v
            .trim()
            .parse::<i64>()
            .map_err(|_| ParseError::new(el.line, "the start= of this <ol> is not a number"))?,
        None => 1,
    };
    let mut items = Vec::new();
    for &li in doc.children[ol]
        .iter()
        .filter(|&&c| doc.elements[c].name == "li")
    {
        // Lists and issues that belong to this item rather than to a deeper one.
        let mut owned_lists = Vec::new();
        let mut issues = Vec::new();
        let mut asides = Vec::new();
        let mut stack: Vec<usize> = doc.children[li].clone();
        while let Some(c) = stack.pop() {
            let child = &doc.elements[c];
            if child.name == "ol" {
                owned_lists.push(c);
                continue;
            }
            if child.is_issue() {
                issues.push(raw_issue(doc, c));
            }
            if child.is_aside() {
                asides.push((child.start, child.end));
                continue;
            }
            stack.extend(doc.children[c].iter().copied());
        }
        owned_lists.sort_unstable();
        let ranges: Vec<(usize, usize)> = owned_lists
            .iter()
            .map(|&o| (doc.elements[o].start, doc.elements[o].end))
            .chain(asides)
            .collect();
        let item = &doc.elements[li];
        let markup = visible_text(doc, item.open_end, item.close_start, |b| {
            ex.in_nested(b) || ranges.iter().any(|&(s, e)| s <= b && b < e)
        });
        let mut children = Vec::new();
        for o in owned_lists {
            children.push(html_list(doc, o, ex)?);
        }
        issues.sort_by_key(|i| i.line);
        items.push(HtmlItem {
            line: item.line,
            markup,
            issues,
            children,
        });
    }
    Ok(HtmlList { start, items })
}

fn parse_region(doc: &Document, region: &Region) -> Result<Algorithm, ParseError> {
    let in_body = |b: usize| region.body_start <= b && b < region.body_end;
    // The elements that start in the body, found by their starts (the elements are in
    // document order): a source of many algorithms costs what each holds, not their
    // number times the whole source.
    let first = doc
        .elements
        .partition_point(|e| e.start < region.body_start);
    let last = doc.elements.partition_point(|e| e.start < region.body_end);
    let body = first..last.max(first);
    let mut ex = Exclusions {
        body_start: region.body_start,
        body_end: region.body_end,
        nested: Vec::new(),
        asides: Vec::new(),
        lists: Vec::new(),
    };
    for i in body.clone() {
        let e = &doc.elements[i];
        if e.is_algorithm() && Some(i) != region.element {
            ex.nested.push((e.start, e.end));
        }
    }
    for e in &doc.elements[body.clone()] {
        // Asides that start inside the body; one around the whole algorithm
        // (an algorithm inside an example) does not hide its steps.
        if e.is_aside() {
            ex.asides.push((e.start, e.end));
        }
    }
    ex.merge();

    // Name and anchor.
    let dfns: Vec<usize> = match region.dfn {
        Some(d) => vec![d],
        None => body
            .clone()
            .filter(|&i| doc.elements[i].name == "dfn" && !ex.in_nested(doc.elements[i].start))
            .collect(),
    };
    if region.name.is_none() && dfns.len() != 1 {
        let why = if dfns.is_empty() {
            "defines no <dfn> to name it"
        } else {
            "defines several <dfn>s, so its name is ambiguous"
        };
        return Err(ParseError::new(
            region.line,
            format!("this unnamed algorithm {why}; give it algorithm=NAME"),
        ));
    }
    let (anchor, dfn_name) = match dfns.first() {
        Some(&d) => {
            let info = dfn_info(doc, d);
            let anchor = info
                .anchor()
                .map_err(|m| ParseError::new(doc.elements[d].line, m))?;
            (anchor, Some(info.primary_text()))
        }
        None => {
            let name = region.name.clone().unwrap_or_default();
            let anchor = simplify_text(&name);
            if anchor.is_empty() {
                return Err(ParseError::new(
                    region.line,
                    format!("the algorithm name {name:?} gives an empty anchor"),
                ));
            }
            (anchor, None)
        }
    };
    let name = region.name.clone().or(dfn_name).unwrap_or_default();

    // HTML lists and issue boxes, attached to the line they start on.
    let mut attachments: Vec<(usize, Attachment)> = Vec::new();
    let mut top_lists = Vec::new();
    for i in body.clone() {
        let e = &doc.elements[i];
        if ex.in_nested(e.start) || owning_list_item(doc, i, region).is_some() {
            continue;
        }
        if e.name == "ol" {
            let in_aside = doc
                .ancestor(i, |a| a.is_aside())
                .is_some_and(|a| in_body(doc.elements[a].start));
            if !e.is_aside() && !in_aside {
                top_lists.push(i);
            }
        } else if e.is_issue() {
            attachments.push((e.start, Attachment::Issue(raw_issue(doc, i))));
        }
    }
    // Only outermost lists: an <ol> inside another's <li> belongs to that item.
    for &ol in &top_lists {
        ex.lists
            .push((doc.elements[ol].start, doc.elements[ol].end));
    }
    ex.merge();
    for &ol in &top_lists {
        attachments.push((
            doc.elements[ol].start,
            Attachment::List(html_list(doc, ol, &ex)?),
        ));
    }

    // Tokens of the body lines.
    let mut tokens: Vec<Token> = Vec::new();
    let mut token_line_index: Vec<usize> = Vec::new();
    // The body's lines, and the one it starts in.
    let from = doc
        .lines
        .partition_point(|l| l.start < region.body_start)
        .saturating_sub(1);
    let to = doc.lines.partition_point(|l| l.start < region.body_end);
    for (li, line) in doc.lines.iter().enumerate().take(to).skip(from) {
        let starts_inside = line.start >= region.body_start && line.start < region.body_end;
        let straddles = line.start < region.body_start && line.end > region.body_start;
        if line.deleted || !(starts_inside || straddles) {
            continue;
        }
        let mut text = String::new();
        let mut visible = String::new();
        for (off, c) in doc.text[line.start..line.end].char_indices() {
            let b = line.start + off;
            if doc.comment[b] {
                continue;
            }
            text.push(c);
            visible.push(if line.raw != RawState::None || ex.excluded(b) {
                ' '
            } else {
                c
            });
        }
        let token = match line.raw {
            RawState::None => make_token(line.number, &text, &visible, None, doc.indent),
            raw => {
                let mut t = make_token(line.number, &text, &visible, None, doc.indent);
                t.kind = Kind::Raw;
                t.excluded = true;
                if raw == RawState::Inside || t.text.is_empty() {
                    t.prefix = INFINITE;
                }
                t
            }
        };
        tokens.push(token);
        token_line_index.push(li);
    }
    let mut owned = Vec::with_capacity(attachments.len());
    for (pos, attachment) in attachments {
        let li = doc.line_index_at(pos);
        let at = token_line_index
            .iter()
            .position(|&t| t >= li)
            .unwrap_or(token_line_index.len().saturating_sub(1));
        if let Some(t) = tokens.get_mut(at) {
            t.attachments.push(owned.len());
            owned.push(attachment);
        }
    }

    let count = tokens.len();
    let mut arena = Arena {
        tokens,
        indent: doc.indent,
    };
    let all: Vec<usize> = (0..count).collect();
    let blocks = arena.parse(&all);
    let walker = Walker {
        arena: &arena,
        attachments: &owned,
    };
    let (header_parts, root, root_issues) = walker.top_level(&blocks);

    let mut steps = Vec::new();
    let mut issues = Vec::new();
    flatten(&root, &StepNumber::header(), &mut steps, &mut issues)?;
    for (after, issue) in root_issues {
        let after_step = match after {
            Some(n) => Some(step_number(&StepNumber::header(), n, issue.line)?),
            None => None,
        };
        issues.push(IssueBox {
            line: issue.line,
            after_step,
            remote_id: issue.remote_id,
            text: issue.text,
        });
    }
    issues.sort_by_key(|i| i.line);
    let header = normalize(&header_parts.join("\n"));
    Ok(Algorithm {
        anchor,
        name,
        line: region.line,
        parent: None,
        wrapped: region.element.is_some(),
        header_hash: TextHash::of(&header),
        header,
        steps,
        issues,
    })
}

/// An algorithm body: header text, the tree of steps, and the issues outside
/// any step with the number of the top-level step before them.
type TopLevel = (Vec<String>, Node, Vec<(Option<i64>, RawIssue)>);

/// A step while the tree is being walked.
struct Node {
    num: i64,
    kind: StepKind,
    line: usize,
    parts: Vec<String>,
    issues: Vec<RawIssue>,
    children: Vec<Node>,
}

impl Node {
    fn new(num: i64, kind: StepKind, line: usize) -> Node {
        Node {
            num,
            kind,
            line,
            parts: Vec::new(),
            issues: Vec::new(),
            children: Vec::new(),
        }
    }
}

struct Walker<'a> {
    arena: &'a Arena,
    attachments: &'a [Attachment],
}

impl Walker<'_> {
    fn html_nodes(list: &HtmlList) -> Vec<Node> {
        list.items
            .iter()
            .zip(0i64..)
            .map(|(item, k)| {
                let mut node = Node::new(list.start + k, StepKind::Numbered, item.line);
                node.parts.push(item.markup.clone());
                node.issues.extend(item.issues.iter().cloned());
                for child in &item.children {
                    node.children.extend(Self::html_nodes(child));
                }
                node
            })
            .collect()
    }

    fn attach(&self, token: &Token, node: &mut Node) {
        for &a in &token.attachments {
            match &self.attachments[a] {
                Attachment::Issue(issue) => node.issues.push(issue.clone()),
                Attachment::List(list) => node.children.extend(Self::html_nodes(list)),
            }
        }
    }

    fn take_lines(&self, toks: &[usize], node: &mut Node, with_text: bool) {
        for &t in toks {
            let token = &self.arena.tokens[t];
            let visible = token.visible.trim();
            if with_text && !token.excluded && !visible.is_empty() {
                node.parts.push(visible.to_string());
            }
            self.attach(token, node);
        }
    }

    /// Whether blocks hold numbered steps (which makes a bullet a step).
    fn has_steps(&self, blocks: &[Block]) -> bool {
        blocks.iter().any(|b| match b {
            Block::List(ListKind::Numbered(_), _) => true,
            Block::List(_, items) => items.iter().any(|i| self.has_steps(&i.blocks)),
            Block::Lines(toks) | Block::Paragraph(_, toks) => toks.iter().any(|&t| {
                self.arena.tokens[t]
                    .attachments
                    .iter()
                    .any(|&a| matches!(self.attachments[a], Attachment::List(_)))
            }),
        })
    }

    fn items_as_steps(
        &self,
        items: &[super::markdown::Item],
        start: i64,
        kind: StepKind,
        into: &mut Vec<Node>,
    ) {
        for (item, k) in items.iter().zip(0i64..) {
            let mut child = Node::new(start + k, kind, item.line);
            self.walk(&item.blocks, &mut child);
            into.push(child);
        }
    }

    fn walk(&self, blocks: &[Block], node: &mut Node) {
        for block in blocks {
            match block {
                Block::Lines(toks) | Block::Paragraph(ParaKind::Normal, toks) => {
                    self.take_lines(toks, node, true)
                }
                Block::Paragraph(ParaKind::Note | ParaKind::Advisement, toks) => {
                    self.take_lines(toks, node, false)
                }
                Block::Paragraph(ParaKind::Issue(remote_id), toks) => {
                    if let Some(&first) = toks.first().filter(|&&t| !self.arena.tokens[t].excluded)
                    {
                        let text: Vec<&str> = toks
                            .iter()
                            .map(|&t| self.arena.tokens[t].visible.trim())
                            .collect();
                        let joined = text.join("\n");
                        let body = joined
                            .split_once(':')
                            .map_or(joined.as_str(), |(_, rest)| rest);
                        node.issues.push(RawIssue {
                            line: self.arena.tokens[first].line,
                            remote_id: remote_id.clone(),
                            text: normalize(body),
                        });
                    }
                    self.take_lines(toks, node, false);
                }
                Block::List(ListKind::Numbered(start), items) => {
                    let mut children = Vec::new();
                    self.items_as_steps(items, *start, StepKind::Numbered, &mut children);
                    node.children.extend(children);
                }
                Block::List(ListKind::Bulleted, items)
                    if items.iter().any(|i| self.has_steps(&i.blocks)) =>
                {
                    let mut children = Vec::new();
                    self.items_as_steps(items, 1, StepKind::Bullet, &mut children);
                    node.children.extend(children);
                }
                Block::List(_, items) => {
                    for item in items {
                        self.walk(&item.blocks, node);
                    }
                }
            }
        }
    }

    /// The algorithm body: header text, the tree of steps, and issues outside
    /// any step with the number of the top-level step they follow.
    fn top_level(&self, blocks: &[Block]) -> TopLevel {
        let mut header = Vec::new();
        let mut root = Node::new(0, StepKind::Numbered, 0);
        let mut issues = Vec::new();
        for block in blocks {
            let seen_steps = !root.children.is_empty();
            let last = root.children.last().map(|c| c.num);
            match block {
                Block::List(ListKind::Numbered(start), items) => {
                    self.items_as_steps(items, *start, StepKind::Numbered, &mut root.children);
                }
                Block::List(ListKind::Bulleted, items) => {
                    self.items_as_steps(items, 1, StepKind::Bullet, &mut root.children);
                }
                _ => {
                    let mut tmp = Node::new(0, StepKind::Numbered, 0);
                    self.walk(std::slice::from_ref(block), &mut tmp);
                    if !seen_steps {
                        header.append(&mut tmp.parts);
                    }
                    issues.extend(tmp.issues.drain(..).map(|i| (last, i)));
                    root.children.append(&mut tmp.children);
                }
            }
        }
        (header, root, issues)
    }
}

fn step_number(parent: &StepNumber, num: i64, line: usize) -> Result<StepNumber, ParseError> {
    match u32::try_from(num) {
        Ok(n) if n >= 1 => Ok(parent.child(n)),
        _ => Err(ParseError::new(
            line,
            format!("step number {num} is not supported (steps are numbered from 1)"),
        )),
    }
}

fn flatten(
    node: &Node,
    prefix: &StepNumber,
    steps: &mut Vec<Step>,
    issues: &mut Vec<IssueBox>,
) -> Result<(), ParseError> {
    let mut seen: HashMap<i64, usize> = HashMap::new();
    for child in &node.children {
        if let Some(first) = seen.insert(child.num, child.line) {
            return Err(ParseError::new(
                child.line,
                format!(
                    "this algorithm has two steps numbered {} here (the other at line {first}); \
                     a second list in one step restarts its numbering",
                    step_number(prefix, child.num, child.line)?
                ),
            ));
        }
        let number = step_number(prefix, child.num, child.line)?;
        let markup = child.parts.join("\n");
        let text = normalize(&markup);
        steps.push(Step {
            number: number.clone(),
            kind: child.kind,
            line: child.line,
            hash: TextHash::of(&text),
            text,
            ids: extract_ids(&markup),
        });
        for issue in &child.issues {
            issues.push(IssueBox {
                line: issue.line,
                after_step: Some(number.clone()),
                remote_id: issue.remote_id.clone(),
                text: issue.text.clone(),
            });
        }
        flatten(child, &number, steps, issues)?;
    }
    Ok(())
}
