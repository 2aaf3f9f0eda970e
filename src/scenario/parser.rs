//! The scenario language's parser: a file's headers and subtests, and each subtest's actions
//! (its expectations are in [`super::expectations`], its page script in
//! [`crate::script::parser`]). Errors name the file, line and column, what was found and what
//! was expected; an unknown name lists the names that exist.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::ast::*;
use crate::engine::world::UNIT_BUDGET;
use crate::host::value::Value;
use crate::script::ast::{Block, Expr, Stmt, StmtKind};
use crate::script::bindings::Shape;
use crate::script::lexer::{shown, Tok, Token};
use crate::script::parser::ScriptParser;
use crate::script::syntax::{build_tree, lex_line, logical_lines, Cursor, Line, ParseError};
use crate::webmcp::readiness::WaitOutcome;

/// The options a `page` or `frame` line may end with.
#[derive(Default)]
struct LineOptions {
    loading: bool,
    policy: Option<Policy>,
    csp: Option<Csp>,
    allow: Option<String>,
    site_keyed: bool,
    opener: Option<String>,
}

pub use crate::script::parser::parse_script;

const HEADERS: &[&str] = &["title", "mirrors", "spec", "requires"];

/// Parses a whole scenario file.
pub fn parse_file(path: &str, source: &str) -> Result<ScenarioFile, ParseError> {
    let err = |line: u32, column: u32, message: String| ParseError {
        path: path.into(),
        line,
        column,
        message,
    };
    // A lone surrogate is written as an escape (`"\uD800"`); the characters that stand for
    // lone surrogates inside the engine may not be written as themselves (text::js_string).
    if let Some((line, column, c)) = crate::text::js_string::first_reserved(source) {
        return Err(err(
            line as u32,
            column as u32,
            crate::text::js_string::reserved_message(c),
        ));
    }
    let mut title = None;
    let mut mirrors = Vec::new();
    let mut spec = Vec::new();
    let mut requires = Vec::new();
    let mut body_lines = Vec::new();
    let mut in_header = true;
    for (i, raw) in source.lines().enumerate() {
        let n = i as u32 + 1;
        if in_header {
            let trimmed = raw.trim_start();
            if let Some((key, value)) = trimmed.split_once(':') {
                if raw.len() == trimmed.len() && HEADERS.contains(&key) {
                    let value = value.trim().to_string();
                    match key {
                        "title" => {
                            if title.is_some() {
                                return Err(err(
                                    n,
                                    1,
                                    "a second `title:`: a file has one title".into(),
                                ));
                            }
                            title = Some(value)
                        }
                        "mirrors" => mirrors.push(value),
                        "requires" => {
                            let column = raw.find(':').map_or(1, |c| c as u32 + 2);
                            requires.extend(requirement(path, n, column, &raw[key.len() + 1..])?);
                        }
                        _ => spec.extend(value.split_whitespace().map(str::to_owned)),
                    }
                    body_lines.push(String::new());
                    continue;
                }
            }
            if trimmed.starts_with("subtest") {
                in_header = false;
            }
        }
        body_lines.push(raw.to_string());
    }
    let markup = take_markup(path, &mut body_lines)?;
    let lines = logical_lines(path, &body_lines)?;
    let tree = build_tree(path, lines)?;
    let Some(title) = title else {
        return Err(err(
            1,
            1,
            "expected a `title:` line before the first subtest".into(),
        ));
    };
    let mut subtests = Vec::new();
    let mut names_seen = BTreeSet::new();
    for node in &tree {
        let toks = lex_line(path, node)?;
        let mut p = Cursor::new(path, &toks, node);
        p.keyword("subtest")?;
        let name = p.string("the subtest's name in quotes")?;
        p.optional_punct(":");
        p.end()?;
        if !names_seen.insert(name.clone()) {
            return Err(err(
                node.line,
                node.column,
                format!(
                    "a second subtest named {:?}: subtest names must differ",
                    shown(&name)
                ),
            ));
        }
        if node.children.is_empty() {
            return Err(err(
                node.line,
                node.column,
                format!(
                    "subtest {:?} has no lines: indent its actions under it",
                    shown(&name)
                ),
            ));
        }
        let (actions, compares_identity) = parse_subtest(path, &node.children, &markup)?;
        subtests.push(Subtest {
            name,
            line: node.line,
            actions,
            compares_identity,
        });
    }
    if subtests.is_empty() {
        return Err(err(
            1,
            1,
            "expected at least one `subtest \"name\"` with indented actions".into(),
        ));
    }
    Ok(ScenarioFile {
        path: path.into(),
        title,
        mirrors,
        spec,
        requires,
        subtests,
    })
}

/// `requires: readiness-api=pr373, spec`: the tags a profile must match (any of them, as an
/// expectation's tags) for the file's subtests to run under it.
fn requirement(path: &str, line: u32, column: u32, text: &str) -> Result<Vec<Tag>, ParseError> {
    let positions: Vec<(u32, u32)> = (0..text.chars().count())
        .map(|i| (line, column + i as u32))
        .collect();
    let node = Line {
        indent: 0,
        text: text.to_string(),
        positions,
        line,
        column,
        children: Vec::new(),
    };
    let toks = lex_line(path, &node)?;
    let parser = SubtestParser {
        script: ScriptParser::new(path, Some(BTreeSet::new())),
        markup: MarkupBlocks::new(),
    };
    let mut p = Cursor::new(path, &toks, &node);
    let mut tags = Vec::new();
    loop {
        let mut all = vec![parser.tag(&mut p)?];
        while p.eat_punct("&") {
            all.push(parser.tag(&mut p)?);
        }
        tags.push(if all.len() == 1 {
            all.remove(0)
        } else {
            Tag::All(all)
        });
        if !p.eat_punct(",") {
            break;
        }
    }
    p.end()?;
    Ok(tags)
}

/// The markup of each `html in DOC:` line, by the line's number.
type MarkupBlocks = BTreeMap<u32, String>;

/// Takes the markup of every `html in DOC:` line out of the file's lines, before they are
/// lexed: markup is not script (`#` starts no comment in it, an apostrophe opens no string),
/// so its lines are kept as written, less the block's indentation, and left blank for the
/// lexer. The block is the lines under the `html` line indented more than it (blank lines
/// inside it are kept); markup after the colon on the line itself is a one-line block. Each
/// markup line keeps the indentation of the block's first line or more; a line indented less
/// (but more than the `html` line) is an error at its first character.
fn take_markup(path: &str, lines: &mut [String]) -> Result<MarkupBlocks, ParseError> {
    let mut blocks = BTreeMap::new();
    let mut i = 0;
    while i < lines.len() {
        let Some((indent, head, rest)) = html_head(&lines[i]) else {
            i += 1;
            continue;
        };
        let line = i as u32 + 1;
        if !rest.trim().is_empty() {
            blocks.insert(line, rest.trim().to_string());
            lines[i] = head;
            i += 1;
            continue;
        }
        lines[i] = head;
        let mut block: Vec<String> = Vec::new();
        let mut block_indent = None;
        let mut j = i + 1;
        while j < lines.len() {
            let raw = &lines[j];
            if raw.trim().is_empty() {
                block.push(String::new());
                j += 1;
                continue;
            }
            let lead = raw.len() - raw.trim_start().len();
            if let Some(tab) = raw[..lead].find('\t') {
                return Err(ParseError {
                    path: path.into(),
                    line: j as u32 + 1,
                    column: tab as u32 + 1,
                    message: "a tab in the indentation of markup: indent with spaces".into(),
                });
            }
            if lead <= indent {
                break;
            }
            let first = *block_indent.get_or_insert(lead);
            if lead < first {
                return Err(ParseError {
                    path: path.into(),
                    line: j as u32 + 1,
                    column: lead as u32 + 1,
                    message: format!(
                        "this markup line is indented {lead} spaces, less than the {first} of the block's first line (line {}): indent every line of the block at least as much as its first",
                        line + 1
                    ),
                });
            }
            block.push(raw[first..].to_string());
            lines[j] = String::new();
            j += 1;
        }
        while block.last().is_some_and(String::is_empty) {
            block.pop();
        }
        if !block.is_empty() {
            blocks.insert(line, block.join("\n"));
        }
        i = j;
    }
    Ok(blocks)
}

/// `html in DOC:` and what follows its colon: the line's indentation, the line without what
/// follows the colon, and that.
fn html_head(raw: &str) -> Option<(usize, String, &str)> {
    let trimmed = raw.trim_start();
    let indent = raw.len() - trimmed.len();
    let after = trimmed.strip_prefix("html")?;
    if !after.starts_with([' ', '\t']) {
        return None;
    }
    let after = after.trim_start().strip_prefix("in")?;
    if !after.starts_with([' ', '\t']) {
        return None;
    }
    let after = after.trim_start();
    let name_len = after
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(after.len());
    if name_len == 0 {
        return None;
    }
    let rest = after[name_len..].trim_start().strip_prefix(':')?;
    let head_len = raw.len() - rest.len();
    Some((indent, raw[..head_len].to_string(), rest))
}

fn parse_subtest(
    path: &str,
    lines: &[Line],
    markup: &MarkupBlocks,
) -> Result<(Vec<Action>, bool), ParseError> {
    // First pass: every name the subtest declares (each once), what each holds where the
    // file says for sure, and its script blocks.
    check_declared_once(path, lines, &mut BTreeMap::new())?;
    let mut names = BTreeSet::new();
    let mut shapes = BTreeMap::new();
    collect_names(path, lines, &mut names, &mut shapes)?;
    let mut ctx = SubtestParser {
        script: ScriptParser::new(path, Some(names)),
        markup: markup.clone(),
    };
    ctx.shapes = shapes
        .into_iter()
        .filter_map(|(name, shape)| Some((name, shape?)))
        .collect();
    for line in lines {
        let toks = lex_line(path, line)?;
        if matches!(toks.first(), Some(Token { tok: Tok::Ident(k), .. }) if k == "script") {
            let mut p = Cursor::new(path, &toks, line);
            p.keyword("script")?;
            let name = p.ident("the script's name")?;
            p.punct(":")?;
            p.end()?;
            if line.children.is_empty() {
                return Err(p.error_here(format!(
                    "script {} has no body: indent its statements under it",
                    shown(&name)
                )));
            }
            let block = ctx.block(&line.children, line.line)?;
            ctx.scripts.insert(name, Arc::new(block));
        }
    }
    let mut actions = Vec::new();
    for line in lines {
        let toks = lex_line(path, line)?;
        if matches!(toks.first(), Some(Token { tok: Tok::Ident(k), .. }) if k == "script") {
            continue;
        }
        let kind = ctx.action(line, &toks)?;
        actions.push(Action {
            line: line.line,
            column: line.column,
            text: line.text.clone(),
            kind,
        });
    }
    Ok((actions, ctx.compares_identity.get()))
}

/// The words that declare a name, and what each declares, for messages.
const DECLARATIONS: &[(&str, &str)] = &[
    ("page", "a page"),
    ("frame", "a frame"),
    ("promise", "a promise"),
    ("thenable", "a thenable"),
    ("controller", "a controller"),
    ("script", "a script"),
    ("task", "a task's completion"),
    ("observe", "an observation"),
];

/// The `i`th token of a line, if it is a word.
fn word_at(toks: &[Token], i: usize) -> Option<&str> {
    match toks.get(i) {
        Some(Token {
            tok: Tok::Ident(s), ..
        }) => Some(s.as_str()),
        _ => None,
    }
}

/// Each name is declared once in a subtest (`page`, `frame`, `promise`, `thenable`,
/// `controller`, `script`, `task ... as NAME`, `observe DOC as NAME`, in its lines or its
/// `at`/`when` blocks): a second declaration would silently shadow the first.
fn check_declared_once(
    path: &str,
    lines: &[Line],
    declared: &mut BTreeMap<String, (&'static str, u32)>,
) -> Result<(), ParseError> {
    for line in lines {
        let toks = lex_line(path, line)?;
        let word = |i: usize| word_at(&toks, i);
        let trigger = matches!(word(0), Some("at" | "when"));
        let start = if trigger {
            match toks.iter().position(|t| matches!(t.tok, Tok::Punct(":"))) {
                Some(i) => i + 1,
                None => continue,
            }
        } else {
            0
        };
        if trigger {
            check_declared_once(path, &line.children, declared)?;
        }
        let Some(&(kw, what)) = word(start).and_then(|w| DECLARATIONS.iter().find(|d| d.0 == w))
        else {
            continue;
        };
        // The declared name: after the word, or after `as` (before the block's `:`).
        let at = match kw {
            "task" | "observe" => toks[start..]
                .iter()
                .take_while(|t| !matches!(t.tok, Tok::Punct(":" | "=>")))
                .position(|t| matches!(&t.tok, Tok::Ident(w) if w == "as"))
                .map(|i| start + i + 1),
            _ => Some(start + 1),
        };
        let Some((name, token)) = at.and_then(|i| Some((word(i)?, &toks[i]))) else {
            continue;
        };
        if let Some((first, first_line)) = declared.get(name) {
            return Err(ParseError {
                path: path.into(),
                line: token.line,
                column: token.column,
                message: format!(
                    "`{}` is declared again: it is {first}, declared at line {first_line}; a name is declared once in a subtest",
                    shown(name)
                ),
            });
        }
        declared.insert(name.to_string(), (what, token.line));
    }
    Ok(())
}

/// Collects declared names: documents, promises, thenables, controllers, observations, task
/// completions, scripts, and every `name =` assignment; and, for each, what it holds where
/// every line that names it agrees (`None` where they do not, or the file cannot say).
fn collect_names(
    path: &str,
    lines: &[Line],
    names: &mut BTreeSet<String>,
    shapes: &mut BTreeMap<String, Option<Shape>>,
) -> Result<(), ParseError> {
    for line in lines {
        let toks = lex_line(path, line)?;
        let word = |i: usize| word_at(&toks, i);
        // A one-line `at 2s: promise p in top` declares after its colon.
        let start = match word(0) {
            Some("at" | "when") => toks
                .iter()
                .position(|t| matches!(t.tok, Tok::Punct(":")))
                .map_or(0, |i| i + 1),
            _ => 0,
        };
        if let (Some(kw), Some(name)) = (word(start), word(start + 1)) {
            let shape = match kw {
                "page" | "frame" => Some(Some(Shape::Document)),
                "promise" => Some(Some(Shape::Promise)),
                "thenable" => Some(Some(Shape::Thenable)),
                "controller" => Some(Some(Shape::Controller)),
                "script" => Some(None),
                _ => None,
            };
            if let Some(shape) = shape {
                names.insert(name.to_string());
                holds(shapes, name, shape);
            }
        }
        for (i, t) in toks.iter().enumerate() {
            match &t.tok {
                Tok::Ident(w) if w == "as" => {
                    if let Some(n) = word(i + 1) {
                        names.insert(n.to_string());
                        // `navigate DOC to URL as NAME`, `task in DOC as NAME`; any other
                        // `as` names a value the file cannot say.
                        let shape = match (i.checked_sub(1).map(|b| &toks[b].tok), word(start)) {
                            (Some(Tok::Url(_) | Tok::Str(_)), _) => Some(Shape::Document),
                            (Some(Tok::Ident(_)), Some("task")) => Some(Shape::Promise),
                            _ => None,
                        };
                        holds(shapes, n, shape);
                    }
                }
                // `name = ...` at the start of a statement: of the line, or after a block's `:`.
                Tok::Punct("=") if i >= 1 => {
                    let starts_statement = i == 1 || matches!(toks[i - 2].tok, Tok::Punct(":"));
                    if let (true, Some(n)) = (starts_statement, word(i - 1)) {
                        names.insert(n.to_string());
                        holds(shapes, n, None);
                    }
                }
                _ => {}
            }
        }
        collect_names(path, &line.children, names, shapes)?;
    }
    Ok(())
}

/// Notes what `name` holds; where two lines disagree, the file cannot say.
fn holds(shapes: &mut BTreeMap<String, Option<Shape>>, name: &str, shape: Option<Shape>) {
    shapes
        .entry(name.to_string())
        .and_modify(|s| {
            if *s != shape {
                *s = None;
            }
        })
        .or_insert(shape);
}

/// A subtest's parser: the page script's parser, with the names the subtest declares, and the
/// scenario language's actions on top (its expectations are in `expectations.rs`).
pub(crate) struct SubtestParser {
    pub(crate) script: ScriptParser,
    /// The markup of the file's `html in DOC:` lines, by line.
    markup: MarkupBlocks,
}

impl std::ops::Deref for SubtestParser {
    type Target = ScriptParser;
    fn deref(&self) -> &ScriptParser {
        &self.script
    }
}

impl std::ops::DerefMut for SubtestParser {
    fn deref_mut(&mut self) -> &mut ScriptParser {
        &mut self.script
    }
}

impl SubtestParser {
    fn action(&self, line: &Line, toks: &[Token]) -> Result<ActionKind, ParseError> {
        let mut p = Cursor::new(&self.path, toks, line);
        let Some(Token {
            tok: Tok::Ident(kw),
            ..
        }) = p.peek().cloned()
        else {
            return Err(p.error_expected(
                "an action such as `page`, `frame`, `task in DOC:`, `run` or `expect`",
            ));
        };
        let kind = match kw.as_str() {
            "page" => {
                p.next_token();
                let name = p.ident("the page's name")?;
                let url = p.url()?;
                let origin = self.check_url(&p, &url)?;
                let LineOptions {
                    loading,
                    policy,
                    csp,
                    site_keyed,
                    opener,
                    ..
                } = self.document_options(&mut p, false, &origin)?;
                ActionKind::Page {
                    name,
                    url,
                    loading,
                    policy,
                    csp,
                    site_keyed,
                    opener,
                }
            }
            "frame" => {
                p.next_token();
                let name = p.ident("the frame's name")?;
                p.keyword("in")?;
                let parent = self.document_name(&mut p)?;
                let url = p.url()?;
                let origin = self.check_url(&p, &url)?;
                let LineOptions {
                    loading,
                    policy,
                    csp,
                    allow,
                    site_keyed,
                    ..
                } = self.document_options(&mut p, true, &origin)?;
                ActionKind::Frame {
                    name,
                    parent,
                    url,
                    allow,
                    loading,
                    policy,
                    csp,
                    site_keyed,
                }
            }
            "promise" => {
                p.next_token();
                let name = p.ident("the promise's name")?;
                p.keyword("in")?;
                let realm = self.document_name(&mut p)?;
                let settled = if p.eat_keyword("resolved") {
                    Some((true, self.expr(&mut p)?))
                } else if p.eat_keyword("rejected") {
                    Some((false, self.expr(&mut p)?))
                } else {
                    None
                };
                ActionKind::Promise {
                    name,
                    realm,
                    settled,
                }
            }
            "thenable" => {
                p.next_token();
                let name = p.ident("the thenable's name")?;
                p.keyword("in")?;
                let realm = self.document_name(&mut p)?;
                let kind = if p.eat_keyword("resolves") {
                    let value = self.expr(&mut p)?;
                    ThenableKind::Resolves(value, self.then_delay(&mut p)?)
                } else if p.eat_keyword("rejects") {
                    let value = self.expr(&mut p)?;
                    ThenableKind::Rejects(value, self.then_delay(&mut p)?)
                } else if p.eat_keyword("throws") {
                    ThenableKind::Throws(self.expr(&mut p)?)
                } else {
                    ThenableKind::Keep
                };
                ActionKind::Thenable { name, realm, kind }
            }
            "controller" => {
                p.next_token();
                let name = p.ident("the controller's name")?;
                p.keyword("in")?;
                let realm = self.document_name(&mut p)?;
                ActionKind::Controller { name, realm }
            }
            "task" => {
                p.next_token();
                p.keyword("in")?;
                let realm = self.document_name(&mut p)?;
                let completion = if p.eat_keyword("as") {
                    Some(p.ident("a name for the task's completion promise")?)
                } else {
                    None
                };
                let block = self.block_after_colon(&mut p, line)?;
                return Ok(ActionKind::Task {
                    realm,
                    completion,
                    block,
                });
            }
            "html" => {
                p.next_token();
                p.keyword("in")?;
                let doc = self.document_name(&mut p)?;
                p.punct(":")?;
                let Some(markup) = self.markup.get(&line.line) else {
                    return Err(p.error_prev(format!(
                        "`html in {}:` has no markup: indent the document's markup under it (or write it after the colon)",
                        shown(&doc)
                    )));
                };
                if !line.children.is_empty() {
                    return Err(p.error_prev(
                        "the markup is either on the line after `:` or indented below it, not both"
                            .into(),
                    ));
                }
                p.end()?;
                return Ok(ActionKind::Html {
                    doc,
                    markup: markup.clone(),
                });
            }
            "run" => {
                p.next_token();
                match p.peek().map(|t| t.tok.clone()) {
                    Some(Tok::Duration(ms)) => {
                        p.next_token();
                        ActionKind::Run(RunKind::For(ms))
                    }
                    _ => ActionKind::Run(RunKind::Idle),
                }
            }
            "flush" => {
                p.next_token();
                ActionKind::Run(RunKind::Flush)
            }
            "step" => {
                p.next_token();
                let n = match p.peek().map(|t| t.tok.clone()) {
                    Some(Tok::Number(n)) if n >= 1.0 && n.fract() == 0.0 => {
                        if n > UNIT_BUDGET as f64 {
                            return Err(p.error_here(format!(
                                "`step` runs at most {UNIT_BUDGET} units (the budget of one line), not {}",
                                crate::host::value::number_to_js_string(n)
                            )));
                        }
                        p.next_token();
                        n as u64
                    }
                    Some(_) => {
                        return Err(
                            p.error_expected("a whole number of units to run, or nothing for one")
                        )
                    }
                    None => 1,
                };
                ActionKind::Run(RunKind::Steps(n))
            }
            "remove" => {
                p.next_token();
                ActionKind::Remove(self.document_name(&mut p)?)
            }
            "navigate" => {
                p.next_token();
                let from = self.document_name(&mut p)?;
                p.keyword("to")?;
                let url = p.url()?;
                self.check_url(&p, &url)?;
                p.keyword("as")?;
                let label = p.ident("a name for the new document")?;
                let keep_in_bfcache = p.eat_keyword("bfcache");
                ActionKind::Navigate {
                    from,
                    url,
                    label,
                    keep_in_bfcache,
                }
            }
            "back" => {
                p.next_token();
                ActionKind::Back(self.document_name(&mut p)?)
            }
            "close" => {
                p.next_token();
                ActionKind::Close(self.document_name(&mut p)?)
            }
            "domcontentloaded" | "load" => {
                p.next_token();
                ActionKind::Lifecycle {
                    doc: self.document_name(&mut p)?,
                    load: kw == "load",
                }
            }
            "observe" => {
                p.next_token();
                let doc = self.document_name(&mut p)?;
                if p.eat_punct("=>") {
                    p.in_expectation = true;
                    let outcome = self.outcome(&mut p)?;
                    let after = if p.eat_keyword("after") {
                        Some(p.duration()?)
                    } else {
                        None
                    };
                    let tags = self.tags(&mut p)?;
                    p.end()?;
                    self.no_children(line, "observe")?;
                    return Ok(ActionKind::Observe {
                        doc,
                        // Named by its line; every report says "observation NAME", so the
                        // name does not repeat the word.
                        name: format!("at line {}", line.line),
                        expect: Some(ObserveExpect {
                            outcome,
                            after,
                            tags,
                        }),
                    });
                }
                p.keyword("as")?;
                let name = p.ident("a name for the observation")?;
                ActionKind::Observe {
                    doc,
                    name,
                    expect: None,
                }
            }
            "resolve" | "reject" => {
                // `resolve p [with v] [in DOC]`: a task of DOC (by default, the realm of p)
                // calls the resolving function.
                let (sline, scolumn) = p.position();
                p.next_token();
                let target = self.postfix(&mut p)?;
                let value = if p.eat_keyword("with") {
                    self.expr(&mut p)?
                } else {
                    Expr::Literal(Value::Undefined)
                };
                let realm = if p.eat_keyword("in") {
                    self.document_name(&mut p)?
                } else {
                    String::new()
                };
                p.end()?;
                self.no_children(line, &kw)?;
                let kind = if kw == "resolve" {
                    StmtKind::Resolve { target, value }
                } else {
                    StmtKind::Reject { target, value }
                };
                return Ok(ActionKind::Task {
                    realm,
                    completion: None,
                    block: Arc::new(Block::new(
                        line.line,
                        vec![Stmt {
                            line: sline,
                            column: scolumn,
                            kind,
                        }],
                    )),
                });
            }
            "expect" => {
                p.next_token();
                p.in_expectation = true;
                let e = self.expectation(&mut p)?;
                p.end()?;
                self.no_children(line, "expect")?;
                return Ok(ActionKind::Expect(e));
            }
            "serve" => {
                p.next_token();
                ActionKind::Serve
            }
            "at" | "when" => {
                p.next_token();
                let when = if kw == "at" {
                    Trigger::At(p.duration()?)
                } else {
                    let doc = self.document_name(&mut p)?;
                    p.keyword("exists")?;
                    Trigger::Exists(doc)
                };
                let actions = self.trigger_block(&mut p, line, toks, &kw)?;
                return Ok(ActionKind::Trigger { when, actions });
            }
            "log" | "return" | "throw" | "after" | "on" | "set" => {
                return Err(p.error_here(format!(
                    "`{}` is a script statement: put it inside `task in DOC:`",
                    shown(&kw)
                )))
            }
            _ => {
                let known = self.names.as_ref().is_some_and(|n| n.contains(&kw));
                return Err(p.error_here(if known {
                    format!(
                        "`{}...` is a script statement: put it inside `task in DOC:`",
                        shown(&kw)
                    )
                } else {
                    format!("expected an action (page, frame, promise, thenable, controller, script, task, html, run, flush, step, remove, navigate, back, close, domcontentloaded, load, observe, resolve, reject, expect, at, when, serve), found `{}`", shown(&kw))
                }));
            }
        };
        p.end()?;
        self.no_children(line, &kw)?;
        Ok(kind)
    }

    /// The actions of an `at`/`when` block: indented below, or one on the same line after `:`.
    /// They act on the world; they do not drive it or expect anything.
    fn trigger_block(
        &self,
        p: &mut Cursor,
        line: &Line,
        toks: &[Token],
        kw: &str,
    ) -> Result<Vec<Action>, ParseError> {
        p.punct(":")?;
        // Blocks do not nest: said before the inner block is parsed, so that a chain of them
        // (`at 1ms: at 1ms: ...`) is not parsed to its end first.
        let nested = |toks: &[Token]| {
            let (l, c) = toks
                .first()
                .map_or((line.line, line.column), |t| (t.line, t.column));
            match toks.first() {
                Some(Token {
                    tok: Tok::Ident(k), ..
                }) if k == "at" || k == "when" => Err(self.error(
                    l,
                    c,
                    format!("not in an `at`/`when` block: trigger blocks do not nest (`{k}` in the block of `{kw}`)"),
                )),
                _ => Ok(()),
            }
        };
        let mut actions = Vec::new();
        if p.at_end() {
            if line.children.is_empty() {
                return Err(p.error_here(format!(
                    "expected actions after `{kw} ...:`, on the same line or indented below"
                )));
            }
            for child in &line.children {
                let child_toks = lex_line(&self.path, child)?;
                nested(&child_toks)?;
                let kind = self.action(child, &child_toks)?;
                actions.push(self.trigger_action(child.line, child.column, &child.text, kind)?);
            }
        } else {
            if !line.children.is_empty() {
                return Err(p.error_here(
                    "a block is either on the line after `:` or indented below it, not both".into(),
                ));
            }
            let (l, c) = p.position();
            nested(&toks[p.pos..])?;
            let kind = self.action(line, &toks[p.pos..])?;
            let text: String = line
                .positions
                .iter()
                .position(|pos| *pos == (l, c))
                .map(|i| line.text.chars().skip(i).collect())
                .unwrap_or_else(|| line.text.clone());
            actions.push(self.trigger_action(l, c, &text, kind)?);
        }
        Ok(actions)
    }

    /// Checks that an action may stand in an `at`/`when` block.
    fn trigger_action(
        &self,
        line: u32,
        column: u32,
        text: &str,
        kind: ActionKind,
    ) -> Result<Action, ParseError> {
        let refused = match &kind {
            ActionKind::Run(_) => Some("`run`, `flush` and `step` drive the simulation"),
            ActionKind::Expect(_) => Some("`expect` checks the subtest's lines"),
            ActionKind::Observe {
                expect: Some(_), ..
            } => Some("`observe ... =>` runs the simulation (use `observe DOC as NAME`)"),
            ActionKind::Serve => Some("`serve` marks a point in the subtest's lines"),
            ActionKind::Trigger { .. } => Some("trigger blocks do not nest"),
            _ => None,
        };
        if let Some(why) = refused {
            return Err(self.error(
                line,
                column,
                format!("not in an `at`/`when` block: {why}; a block holds actions that act on the world (task, resolve, reject, navigate, back, close, remove, frame, promise, load, observe ... as NAME)"),
            ));
        }
        Ok(Action {
            line,
            column,
            text: text.to_string(),
            kind,
        })
    }

    /// `loading`, `policy="tools=()"`, `csp="sandbox allow-scripts"`, `allow="tools *"`,
    /// `site-keyed`, `opened by DOC`, in any order.
    fn document_options(
        &self,
        p: &mut Cursor,
        frame: bool,
        origin: &crate::host::origin::Origin,
    ) -> Result<LineOptions, ParseError> {
        let mut o = LineOptions::default();
        let expected = if frame {
            "`loading`, `site-keyed`, `allow=\"...\"`, `policy=\"...\"` or `csp=\"...\"`"
        } else {
            "`loading`, `site-keyed`, `opened by DOC`, `policy=\"...\"` or `csp=\"...\"`"
        };
        while !p.at_end() {
            let word = p.ident(expected)?;
            match word.as_str() {
                "loading" => o.loading = true,
                "site-keyed" => o.site_keyed = true,
                "opened" if !frame => {
                    p.keyword("by")?;
                    o.opener = Some(self.document_name(p)?);
                }
                "allow" if frame => {
                    p.punct("=")?;
                    o.allow = Some(p.string("the allow attribute's value in quotes")?);
                }
                "policy" => {
                    p.punct("=")?;
                    let value = p.string("a Permissions-Policy value such as \"tools=()\"")?;
                    let allowlist = crate::host::permissions::parse_policy_header(&value, origin)
                        .map_err(|e| p.error_prev(format!("bad policy: {e}")))?;
                    o.policy = Some(Policy {
                        header: value,
                        allowlist,
                    });
                }
                "csp" => {
                    p.punct("=")?;
                    let value = p.string(
                        "a Content-Security-Policy value such as \"sandbox allow-scripts\"",
                    )?;
                    let policy = crate::host::csp::parse_a_serialized_csp(&value)
                        .map_err(|e| p.error_prev(format!("bad csp: {e}")))?;
                    o.csp = Some(Csp {
                        header: value,
                        policy,
                    });
                }
                other => {
                    return Err(p.error_prev(format!(
                        "unknown option `{}`; expected {expected}",
                        shown(other),
                    )))
                }
            }
        }
        Ok(o)
    }

    /// A URL must parse; returns its origin.
    fn check_url(&self, p: &Cursor, url: &str) -> Result<crate::host::origin::Origin, ParseError> {
        let parsed = url::Url::parse(url)
            .map_err(|e| p.error_prev(format!("`{}` is not a URL: {e}", shown(url))))?;
        let mut n = 0;
        Ok(crate::host::origin::Origin::of_url(&parsed, &mut n))
    }

    /// A thenable's `after 100ms`: its `then` sets a timer that settles it.
    fn then_delay(&self, p: &mut Cursor) -> Result<Option<u64>, ParseError> {
        if p.eat_keyword("after") {
            Ok(Some(p.duration()?))
        } else {
            Ok(None)
        }
    }

    pub(crate) fn document_name(&self, p: &mut Cursor) -> Result<String, ParseError> {
        let name = p.ident("a document's name")?;
        self.check_name(p, &name)?;
        Ok(name)
    }

    pub(crate) fn outcome(&self, p: &mut Cursor) -> Result<WaitOutcome, ParseError> {
        let word = p.ident("an outcome: ready, timed-out, navigated or destroyed")?;
        WaitOutcome::parse(&word).ok_or_else(|| {
            p.error_prev(format!(
                "unknown outcome `{}`; expected ready, timed-out, navigated or destroyed",
                shown(&word)
            ))
        })
    }
}
