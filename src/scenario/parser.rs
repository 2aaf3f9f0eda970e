//! The scenario language's parser. Errors name the file, line and column, what was found and
//! what was expected; an unknown name lists the names that exist.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use super::ast::*;
use super::lexer::{lex, Tok, Token};
use crate::platform::script::{Block, Branch, CallbackBody, Expr, LogPart, Stmt, StmtKind};
use crate::platform::value::{ErrorValue, Value};
use crate::profile::{Profile, NAMED_PROFILES};
use crate::webmcp::readiness::WaitOutcome;

/// A problem in a scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path, self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ParseError {}

/// A logical line: physical lines joined while brackets are open, with where each character
/// came from, and the lines indented under it.
#[derive(Clone, Debug)]
struct Line {
    indent: usize,
    text: String,
    positions: Vec<(u32, u32)>,
    line: u32,
    column: u32,
    children: Vec<Line>,
}

const HEADERS: &[&str] = &["title", "mirrors", "spec"];

/// Names that exist without a declaration: a callback's parameters and the log.
const IMPLICIT_NAMES: &[&str] = &["input", "options", "signal", "event", "value", "log"];

/// Functions and constructors a script may call without declaring them.
const GLOBALS: &[&str] = &[
    "AbortController",
    "DOMException",
    "Cyclic",
    "ToJSONUndefined",
    "Thenable",
];

/// Parses a whole scenario file.
pub fn parse_file(path: &str, source: &str) -> Result<ScenarioFile, ParseError> {
    let err = |line: u32, column: u32, message: String| ParseError {
        path: path.into(),
        line,
        column,
        message,
    };
    let mut title = None;
    let mut mirrors = Vec::new();
    let mut spec = Vec::new();
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
        let mut p = Parser::new(path, &toks, node);
        p.keyword("subtest")?;
        let name = p.string("the subtest's name in quotes")?;
        p.optional_punct(":");
        p.end()?;
        if !names_seen.insert(name.clone()) {
            return Err(err(
                node.line,
                node.column,
                format!("a second subtest named {name:?}: subtest names must differ"),
            ));
        }
        if node.children.is_empty() {
            return Err(err(
                node.line,
                node.column,
                format!("subtest {name:?} has no lines: indent its actions under it"),
            ));
        }
        let actions = parse_subtest(path, &node.children)?;
        subtests.push(Subtest {
            name,
            line: node.line,
            actions,
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
        subtests,
    })
}

/// Parses a block of script statements (as inside `task in DOC:`), for the library API: any
/// name is accepted, and an unknown one is a ReferenceError when it runs.
pub fn parse_script(source: &str) -> Result<Block, ParseError> {
    let lines: Vec<String> = source.lines().map(str::to_owned).collect();
    let lines = logical_lines("<script>", &lines)?;
    let tree = build_tree("<script>", lines)?;
    let ctx = Context {
        path: "<script>".into(),
        names: None,
        scripts: BTreeMap::new(),
    };
    ctx.block(&tree, 1)
}

fn logical_lines(path: &str, lines: &[String]) -> Result<Vec<Line>, ParseError> {
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
                    '"' | '\'' => quote = Some(c),
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' => depth -= 1,
                    _ => {}
                },
            }
            kept.push(c);
            positions.push((n, (indent + j) as u32 + 1));
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

/// How deep brackets, and blocks indented in blocks, may nest.
const MAX_NESTING: u32 = 128;

fn build_tree(path: &str, lines: Vec<Line>) -> Result<Vec<Line>, ParseError> {
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

fn lex_line(path: &str, line: &Line) -> Result<Vec<Token>, ParseError> {
    lex(&line.text, &line.positions).map_err(|e| ParseError {
        path: path.into(),
        line: e.line,
        column: e.column,
        message: e.message,
    })
}

/// What the parser knows about a subtest while parsing its lines.
struct Context {
    path: String,
    /// Every name the subtest declares; `None` accepts any name.
    names: Option<BTreeSet<String>>,
    /// `script NAME:` blocks.
    scripts: BTreeMap<String, Arc<Block>>,
}

fn parse_subtest(path: &str, lines: &[Line]) -> Result<Vec<Action>, ParseError> {
    // First pass: every name the subtest declares, and its script blocks.
    let mut names = BTreeSet::new();
    collect_names(path, lines, &mut names)?;
    let mut ctx = Context {
        path: path.into(),
        names: Some(names),
        scripts: BTreeMap::new(),
    };
    for line in lines {
        let toks = lex_line(path, line)?;
        if matches!(toks.first(), Some(Token { tok: Tok::Ident(k), .. }) if k == "script") {
            let mut p = Parser::new(path, &toks, line);
            p.keyword("script")?;
            let name = p.ident("the script's name")?;
            p.punct(":")?;
            p.end()?;
            if line.children.is_empty() {
                return Err(p.error_here(format!(
                    "script {name} has no body: indent its statements under it"
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
    Ok(actions)
}

/// Collects declared names: documents, promises, thenables, controllers, observations, task
/// completions, scripts, and every `name =` assignment.
fn collect_names(
    path: &str,
    lines: &[Line],
    names: &mut BTreeSet<String>,
) -> Result<(), ParseError> {
    for line in lines {
        let toks = lex_line(path, line)?;
        let word = |i: usize| match toks.get(i) {
            Some(Token {
                tok: Tok::Ident(s), ..
            }) => Some(s.as_str()),
            _ => None,
        };
        // A one-line `at 2s: promise p in top` declares after its colon.
        let start = match word(0) {
            Some("at" | "when") => toks
                .iter()
                .position(|t| matches!(t.tok, Tok::Punct(":")))
                .map_or(0, |i| i + 1),
            _ => 0,
        };
        if let (Some(kw), Some(name)) = (word(start), word(start + 1)) {
            if matches!(
                kw,
                "page" | "frame" | "promise" | "thenable" | "controller" | "script"
            ) {
                names.insert(name.to_string());
            }
        }
        for (i, t) in toks.iter().enumerate() {
            match &t.tok {
                Tok::Ident(w) if w == "as" => {
                    if let Some(n) = word(i + 1) {
                        names.insert(n.to_string());
                    }
                }
                // `name = ...` at the start of a statement: of the line, or after a block's `:`.
                Tok::Punct("=") if i >= 1 => {
                    let starts_statement = i == 1 || matches!(toks[i - 2].tok, Tok::Punct(":"));
                    if let (true, Some(n)) = (starts_statement, word(i - 1)) {
                        names.insert(n.to_string());
                    }
                }
                _ => {}
            }
        }
        collect_names(path, &line.children, names)?;
    }
    Ok(())
}

impl Context {
    fn error(&self, line: u32, column: u32, message: String) -> ParseError {
        ParseError {
            path: self.path.clone(),
            line,
            column,
            message,
        }
    }

    fn block(&self, lines: &[Line], line: u32) -> Result<Block, ParseError> {
        let mut stmts = Vec::new();
        for l in lines {
            let toks = lex_line(&self.path, l)?;
            let mut p = Parser::new(&self.path, &toks, l);
            stmts.push(self.statement(&mut p, l)?);
        }
        Ok(Block { line, stmts })
    }

    /// A block opened by a line ending in `:`: its indented lines, or the rest of the line.
    fn block_after_colon(&self, p: &mut Parser, line: &Line) -> Result<Arc<Block>, ParseError> {
        p.punct(":")?;
        if p.at_end() {
            if line.children.is_empty() {
                return Err(p.error_here(
                    "expected statements after `:`, on the same line or indented below".into(),
                ));
            }
            return Ok(Arc::new(self.block(&line.children, line.line)?));
        }
        if !line.children.is_empty() {
            return Err(p.error_here(
                "a block is either on the line after `:` or indented below it, not both".into(),
            ));
        }
        let stmt = self.statement(p, line)?;
        Ok(Arc::new(Block {
            line: line.line,
            stmts: vec![stmt],
        }))
    }

    fn no_children(&self, line: &Line, what: &str) -> Result<(), ParseError> {
        match line.children.first() {
            Some(c) => Err(self.error(
                c.line,
                c.column,
                format!("unexpected indented line: `{what}` takes no block"),
            )),
            None => Ok(()),
        }
    }

    fn action(&self, line: &Line, toks: &[Token]) -> Result<ActionKind, ParseError> {
        let mut p = Parser::new(&self.path, toks, line);
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
                p.next();
                let name = p.ident("the page's name")?;
                let url = p.url()?;
                let origin = self.check_url(&p, &url)?;
                let (loading, policy, _, site_keyed) =
                    self.document_options(&mut p, false, &origin)?;
                ActionKind::Page {
                    name,
                    url,
                    loading,
                    policy,
                    site_keyed,
                }
            }
            "frame" => {
                p.next();
                let name = p.ident("the frame's name")?;
                p.keyword("in")?;
                let parent = self.document_name(&mut p)?;
                let url = p.url()?;
                let origin = self.check_url(&p, &url)?;
                let (loading, policy, allow, _) = self.document_options(&mut p, true, &origin)?;
                ActionKind::Frame {
                    name,
                    parent,
                    url,
                    allow,
                    loading,
                    policy,
                }
            }
            "promise" => {
                p.next();
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
                p.next();
                let name = p.ident("the thenable's name")?;
                p.keyword("in")?;
                let realm = self.document_name(&mut p)?;
                let kind = if p.eat_keyword("resolves") {
                    ThenableKind::Resolves(self.expr(&mut p)?)
                } else if p.eat_keyword("rejects") {
                    ThenableKind::Rejects(self.expr(&mut p)?)
                } else if p.eat_keyword("throws") {
                    ThenableKind::Throws(self.expr(&mut p)?)
                } else {
                    ThenableKind::Keep
                };
                ActionKind::Thenable { name, realm, kind }
            }
            "controller" => {
                p.next();
                let name = p.ident("the controller's name")?;
                p.keyword("in")?;
                let realm = self.document_name(&mut p)?;
                ActionKind::Controller { name, realm }
            }
            "task" => {
                p.next();
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
            "run" => {
                p.next();
                match p.peek().map(|t| t.tok.clone()) {
                    Some(Tok::Duration(ms)) => {
                        p.next();
                        ActionKind::Run(RunKind::For(ms))
                    }
                    _ => ActionKind::Run(RunKind::Idle),
                }
            }
            "flush" => {
                p.next();
                ActionKind::Run(RunKind::Flush)
            }
            "step" => {
                p.next();
                let n = match p.peek().map(|t| t.tok.clone()) {
                    Some(Tok::Number(n)) if n >= 1.0 && n.fract() == 0.0 => {
                        p.next();
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
                p.next();
                ActionKind::Remove(self.document_name(&mut p)?)
            }
            "navigate" => {
                p.next();
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
                p.next();
                ActionKind::Back(self.document_name(&mut p)?)
            }
            "close" => {
                p.next();
                ActionKind::Close(self.document_name(&mut p)?)
            }
            "domcontentloaded" | "load" => {
                p.next();
                ActionKind::Lifecycle {
                    doc: self.document_name(&mut p)?,
                    load: kw == "load",
                }
            }
            "observe" => {
                p.next();
                let doc = self.document_name(&mut p)?;
                if p.eat_punct("=>") {
                    p.in_expectation = true;
                    let outcome = self.outcome(&mut p)?;
                    let tags = self.tags(&mut p)?;
                    p.end()?;
                    self.no_children(line, "observe")?;
                    return Ok(ActionKind::Observe {
                        doc,
                        name: format!("observation at line {}", line.line),
                        expect: Some((outcome, tags)),
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
                p.next();
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
                    block: Arc::new(Block {
                        line: line.line,
                        stmts: vec![Stmt {
                            line: sline,
                            column: scolumn,
                            kind,
                        }],
                    }),
                });
            }
            "expect" => {
                p.next();
                p.in_expectation = true;
                let e = self.expectation(&mut p)?;
                p.end()?;
                self.no_children(line, "expect")?;
                return Ok(ActionKind::Expect(e));
            }
            "serve" => {
                p.next();
                ActionKind::Serve
            }
            "at" | "when" => {
                p.next();
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
                    "`{kw}` is a script statement: put it inside `task in DOC:`"
                )))
            }
            _ => {
                let known = self.names.as_ref().is_some_and(|n| n.contains(&kw));
                return Err(p.error_here(if known {
                    format!("`{kw}...` is a script statement: put it inside `task in DOC:`")
                } else {
                    format!("expected an action (page, frame, promise, thenable, controller, script, task, run, flush, step, remove, navigate, back, close, domcontentloaded, load, observe, resolve, reject, expect, at, when, serve), found `{kw}`")
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
        p: &mut Parser,
        line: &Line,
        toks: &[Token],
        kw: &str,
    ) -> Result<Vec<Action>, ParseError> {
        p.punct(":")?;
        let mut actions = Vec::new();
        if p.at_end() {
            if line.children.is_empty() {
                return Err(p.error_here(format!(
                    "expected actions after `{kw} ...:`, on the same line or indented below"
                )));
            }
            for child in &line.children {
                let child_toks = lex_line(&self.path, child)?;
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

    /// `loading`, `policy="tools=()"`, `allow="tools *"`, `site-keyed`, in any order.
    #[allow(clippy::type_complexity)]
    fn document_options(
        &self,
        p: &mut Parser,
        frame: bool,
        origin: &crate::platform::origin::Origin,
    ) -> Result<(bool, Option<Policy>, Option<String>, bool), ParseError> {
        let (mut loading, mut policy, mut allow, mut site_keyed) = (false, None, None, false);
        while !p.at_end() {
            let word = p.ident(if frame {
                "`loading`, `allow=\"...\"` or `policy=\"...\"`"
            } else {
                "`loading`, `site-keyed` or `policy=\"...\"`"
            })?;
            match word.as_str() {
                "loading" => loading = true,
                "site-keyed" if !frame => site_keyed = true,
                "allow" if frame => {
                    p.punct("=")?;
                    allow = Some(p.string("the allow attribute's value in quotes")?);
                }
                "policy" => {
                    p.punct("=")?;
                    let value = p.string("a Permissions-Policy value such as \"tools=()\"")?;
                    let allowlist =
                        crate::platform::permissions::parse_policy_header(&value, origin)
                            .map_err(|e| p.error_prev(format!("bad policy: {e}")))?;
                    policy = Some(Policy {
                        header: value,
                        allowlist,
                    });
                }
                other => {
                    return Err(p.error_prev(format!(
                        "unknown option `{other}`; expected {}",
                        if frame {
                            "`loading`, `allow=\"...\"` or `policy=\"...\"`"
                        } else {
                            "`loading`, `site-keyed` or `policy=\"...\"`"
                        }
                    )))
                }
            }
        }
        Ok((loading, policy, allow, site_keyed))
    }

    /// A URL must parse; returns its origin.
    fn check_url(
        &self,
        p: &Parser,
        url: &str,
    ) -> Result<crate::platform::origin::Origin, ParseError> {
        let parsed =
            url::Url::parse(url).map_err(|e| p.error_prev(format!("`{url}` is not a URL: {e}")))?;
        let mut n = 0;
        Ok(crate::platform::origin::Origin::of_url(&parsed, &mut n))
    }

    fn check_name(&self, p: &Parser, name: &str) -> Result<(), ParseError> {
        let Some(names) = &self.names else {
            return Ok(());
        };
        if names.contains(name) || IMPLICIT_NAMES.contains(&name) || self.scripts.contains_key(name)
        {
            return Ok(());
        }
        let list: Vec<&str> = names.iter().map(String::as_str).collect();
        Err(p.error_prev(format!(
            "unknown name `{name}`; the names in this subtest are: {}",
            if list.is_empty() {
                "(none)".to_string()
            } else {
                list.join(", ")
            }
        )))
    }

    fn document_name(&self, p: &mut Parser) -> Result<String, ParseError> {
        let name = p.ident("a document's name")?;
        self.check_name(p, &name)?;
        Ok(name)
    }

    fn outcome(&self, p: &mut Parser) -> Result<WaitOutcome, ParseError> {
        let word = p.ident("an outcome: ready, timed-out, navigated or destroyed")?;
        WaitOutcome::parse(&word).ok_or_else(|| {
            p.error_prev(format!(
                "unknown outcome `{word}`; expected ready, timed-out, navigated or destroyed"
            ))
        })
    }

    /// A trailing `[spec, chromium]` or `[settle-updates-tools-ready=if-fully-active]`.
    fn tags(&self, p: &mut Parser) -> Result<Vec<Tag>, ParseError> {
        let mut tags = Vec::new();
        if !p.eat_punct("[") {
            return Ok(tags);
        }
        loop {
            let mut all = vec![self.tag(p)?];
            while p.eat_punct("&") {
                all.push(self.tag(p)?);
            }
            tags.push(if all.len() == 1 {
                all.remove(0)
            } else {
                Tag::All(all)
            });
            if p.eat_punct("]") {
                break;
            }
            p.punct(",")?;
        }
        Ok(tags)
    }

    /// One tag: a profile name or `switch=value`.
    fn tag(&self, p: &mut Parser) -> Result<Tag, ParseError> {
        {
            let name = p.ident("a profile name or `switch=value`")?;
            if p.eat_punct("=") {
                let value = match p.next().map(|t| t.tok.clone()) {
                    Some(Tok::Ident(v)) => v,
                    Some(Tok::Number(n)) => crate::platform::value::number_to_js_string(n),
                    Some(Tok::Duration(ms)) => ms.to_string(),
                    _ => return Err(p.error_prev("expected the switch's value".into())),
                };
                Profile::spec()
                    .set(&name, &value)
                    .map_err(|e| p.error_prev(e.to_string()))?;
                Ok(Tag::Switch(name, value))
            } else {
                if !NAMED_PROFILES.iter().any(|n| n.name == name) {
                    return Err(p.error_prev(format!(
                        "unknown profile `{name}` in the tag list; the profiles are: {}",
                        NAMED_PROFILES
                            .iter()
                            .map(|n| n.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
                Ok(Tag::Profile(name))
            }
        }
    }

    /// Whether the tokens from here to the end are an expectation's tag list: `[name, ...]`
    /// or `[switch=value, ...]`. Only expectations have tags.
    fn tags_follow(&self, p: &Parser) -> bool {
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

    fn expectation(&self, p: &mut Parser) -> Result<Expectation, ParseError> {
        let sometimes = p.eat_keyword("sometimes");
        let kind = self.expect_kind(p)?;
        let tags = self.tags(p)?;
        Ok(Expectation {
            tags,
            sometimes,
            kind,
        })
    }

    /// `["a", "b"]`: a list of logged lines.
    fn string_list(&self, p: &mut Parser) -> Result<Vec<String>, ParseError> {
        p.punct("[")?;
        let mut lines = Vec::new();
        if !p.eat_punct("]") {
            loop {
                lines.push(p.string("a logged line in quotes")?);
                if p.eat_punct("]") {
                    break;
                }
                p.punct(",")?;
                if p.eat_punct("]") {
                    break;
                }
            }
        }
        Ok(lines)
    }

    fn expect_kind(&self, p: &mut Parser) -> Result<ExpectKind, ParseError> {
        let first = p.peek().cloned();
        if let Some(Token {
            tok: Tok::Ident(w), ..
        }) = &first
        {
            match w.as_str() {
                "no" => {
                    p.next();
                    p.keyword("findings")?;
                    return Ok(ExpectKind::NoFindings);
                }
                "finding" => {
                    p.next();
                    let anchor =
                        p.ident("the algorithm's anchor, such as perform-an-observation")?;
                    if !crate::webmcp::ALGORITHMS.iter().any(|a| a.anchor == anchor) {
                        return Err(p.error_prev(format!(
                            "unknown algorithm `{anchor}`; the anchors are: {}",
                            crate::webmcp::ALGORITHMS
                                .iter()
                                .map(|a| a.anchor)
                                .collect::<Vec<_>>()
                                .join(", ")
                        )));
                    }
                    let step = match p.next().map(|t| t.tok.clone()) {
                        Some(Tok::Number(n)) => crate::platform::value::number_to_js_string(n),
                        Some(Tok::Ident(s)) | Some(Tok::Str(s)) => s,
                        _ => return Err(p.error_prev("expected the step number".into())),
                    };
                    return Ok(ExpectKind::Finding { anchor, step });
                }
                "uncaught" => {
                    p.next();
                    let name = p.ident("the error's name, such as TypeError")?;
                    return Ok(ExpectKind::Uncaught(name));
                }
                "time" => {
                    p.next();
                    p.punct("==")?;
                    let ms = p.duration()?;
                    return Ok(ExpectKind::Time(ms));
                }
                "log" => {
                    p.next();
                    if p.eat_keyword("contains") {
                        return Ok(ExpectKind::Log(LogExpect::Contains(
                            p.string("the text in quotes")?,
                        )));
                    }
                    if p.eat_keyword("lacks") {
                        return Ok(ExpectKind::Log(LogExpect::Lacks(
                            p.string("the text in quotes")?,
                        )));
                    }
                    if p.eat_keyword("in") {
                        p.punct("[")?;
                        let mut orders = Vec::new();
                        loop {
                            orders.push(self.string_list(p)?);
                            if p.eat_punct("]") {
                                break;
                            }
                            p.punct(",")?;
                            if p.eat_punct("]") {
                                break;
                            }
                        }
                        return Ok(ExpectKind::Log(LogExpect::OneOf(orders)));
                    }
                    if !p.peek_punct("==") {
                        return Err(p.error_expected("`==`, `in`, `contains` or `lacks`"));
                    }
                    p.punct("==")?;
                    return Ok(ExpectKind::Log(LogExpect::Exactly(self.string_list(p)?)));
                }
                _ => {}
            }
            // An observation: `o => outcome` or `o.tools == {...}`.
            if matches!(
                p.toks.get(p.pos + 1),
                Some(Token {
                    tok: Tok::Punct("=>"),
                    ..
                })
            ) {
                let name = p.ident("an observation's name")?;
                self.check_name(p, &name)?;
                p.punct("=>")?;
                let outcome = self.outcome(p)?;
                let after = if p.eat_keyword("after") {
                    Some(p.duration()?)
                } else {
                    None
                };
                return Ok(ExpectKind::Observation {
                    name: name.clone(),
                    outcome,
                    after,
                });
            }
            let is_tools = matches!(
                p.toks.get(p.pos + 1),
                Some(Token {
                    tok: Tok::Punct("."),
                    ..
                })
            ) && matches!(p.toks.get(p.pos + 2), Some(Token { tok: Tok::Ident(t), .. }) if t == "tools")
                && matches!(
                    p.toks.get(p.pos + 3),
                    Some(Token {
                        tok: Tok::Punct("=="),
                        ..
                    })
                )
                && matches!(
                    p.toks.get(p.pos + 4),
                    Some(Token {
                        tok: Tok::Punct("{"),
                        ..
                    })
                );
            if is_tools {
                let name = p.ident("an observation's name")?;
                self.check_name(p, &name)?;
                p.punct(".")?;
                p.keyword("tools")?;
                p.punct("==")?;
                p.punct("{")?;
                let mut tools = Vec::new();
                if !p.eat_punct("}") {
                    loop {
                        let doc = self.document_name(p)?;
                        p.punct(":")?;
                        p.punct("[")?;
                        let mut names = Vec::new();
                        if !p.eat_punct("]") {
                            loop {
                                names.push(p.string("a tool name in quotes")?);
                                if p.eat_punct("]") {
                                    break;
                                }
                                p.punct(",")?;
                            }
                        }
                        tools.push((doc, names));
                        if p.eat_punct("}") {
                            break;
                        }
                        p.punct(",")?;
                    }
                }
                return Ok(ExpectKind::ObservationTools { name, tools });
            }
        }
        let actual = self.postfix(p)?;
        if p.eat_keyword("fulfilled") {
            let value = if p.eat_keyword("with") {
                Some(self.expr(p)?)
            } else {
                None
            };
            return Ok(ExpectKind::Promise {
                promise: actual,
                state: PromiseExpect::Fulfilled(value),
            });
        }
        if p.eat_keyword("rejected") {
            let name = if !p.at_end() && !self.tags_follow(p) {
                p.eat_keyword("with");
                Some(match p.peek().map(|t| t.tok.clone()) {
                    Some(Tok::Str(s)) => {
                        p.next();
                        s
                    }
                    _ => p.ident("the rejection's error name (such as AbortError) or a string")?,
                })
            } else {
                None
            };
            return Ok(ExpectKind::Promise {
                promise: actual,
                state: PromiseExpect::Rejected(name),
            });
        }
        if p.eat_keyword("pending") {
            return Ok(ExpectKind::Promise {
                promise: actual,
                state: PromiseExpect::Pending,
            });
        }
        let equal = if p.eat_punct("==") {
            true
        } else if p.eat_punct("!=") {
            false
        } else {
            return Err(p.error_expected("`==`, `!=`, `fulfilled`, `rejected` or `pending`"));
        };
        let expected = self.expr(p)?;
        Ok(ExpectKind::Value {
            actual,
            expected,
            equal,
        })
    }

    /// A script statement.
    fn statement(&self, p: &mut Parser, line: &Line) -> Result<Stmt, ParseError> {
        let (sline, scolumn) = p.position();
        let kind = self.statement_kind(p, line)?;
        if !matches!(
            kind,
            StmtKind::After { .. }
                | StmtKind::On { .. }
                | StmtKind::Then { .. }
                | StmtKind::SetHandler { body: Some(_), .. }
        ) {
            p.end()?;
            self.no_children(line, "this statement")?;
        }
        Ok(Stmt {
            line: sline,
            column: scolumn,
            kind,
        })
    }

    fn statement_kind(&self, p: &mut Parser, line: &Line) -> Result<StmtKind, ParseError> {
        let kw = match p.peek() {
            Some(Token {
                tok: Tok::Ident(k), ..
            }) => k.clone(),
            _ => String::new(),
        };
        match kw.as_str() {
            "log" => {
                p.next();
                let parts = match p.peek().map(|t| t.tok.clone()) {
                    Some(Tok::Str(s)) => {
                        let tok = p.next().cloned();
                        self.template(&s, tok.as_ref())?
                    }
                    _ => vec![LogPart::Expr(self.expr(p)?)],
                };
                Ok(StmtKind::Log(parts))
            }
            "return" => {
                p.next();
                let e = if p.at_end() {
                    Expr::Literal(Value::Undefined)
                } else {
                    self.expr(p)?
                };
                Ok(StmtKind::Return(e))
            }
            "throw" => {
                p.next();
                Ok(StmtKind::Throw(self.expr(p)?))
            }
            "resolve" | "reject" => {
                p.next();
                let target = self.postfix(p)?;
                let value = if p.eat_keyword("with") {
                    self.expr(p)?
                } else {
                    Expr::Literal(Value::Undefined)
                };
                Ok(if kw == "resolve" {
                    StmtKind::Resolve { target, value }
                } else {
                    StmtKind::Reject { target, value }
                })
            }
            "remove" => {
                p.next();
                Ok(StmtKind::Remove(self.postfix(p)?))
            }
            "navigate" => {
                p.next();
                let from = self.postfix(p)?;
                p.keyword("to")?;
                let url = p.url()?;
                p.keyword("as")?;
                let label = p.ident("a name for the new document")?;
                let keep_in_bfcache = p.eat_keyword("bfcache");
                Ok(StmtKind::Navigate {
                    from,
                    url,
                    label,
                    keep_in_bfcache,
                })
            }
            "after" => {
                p.next();
                let ms = p.duration()?;
                let body = self.block_after_colon(p, line)?;
                Ok(StmtKind::After { ms, body })
            }
            "on" => {
                p.next();
                let target = self.postfix(p)?;
                let event = p.ident("an event name (toolchange, toolactivated, toolcancel, abort) or fulfilled, rejected, settled")?;
                let branch = match event.as_str() {
                    "fulfilled" => Some(Branch::Fulfilled),
                    "rejected" => Some(Branch::Rejected),
                    "settled" => Some(Branch::Settled),
                    _ => None,
                };
                if let Some(branch) = branch {
                    let bind = if p.eat_keyword("as") {
                        Some(p.ident("a name for the settled value")?)
                    } else {
                        None
                    };
                    let body = self.block_after_colon(p, line)?;
                    return Ok(StmtKind::Then {
                        promise: target,
                        branch,
                        bind,
                        body,
                    });
                }
                let once = p.eat_keyword("once");
                let body = self.block_after_colon(p, line)?;
                Ok(StmtKind::On {
                    target,
                    event,
                    once,
                    body,
                })
            }
            "set" => {
                p.next();
                let target = self.primary(p)?;
                p.punct(".")?;
                let attr = p.ident("an event handler attribute such as ontoolchange")?;
                let Some(event) = attr.strip_prefix("on").filter(|e| !e.is_empty()) else {
                    return Err(p.error_prev(format!("`{attr}` is not an event handler attribute (ontoolchange, ontoolactivated, ontoolcancel)")));
                };
                let event = event.to_string();
                if p.eat_punct("=") {
                    p.keyword("null")?;
                    return Ok(StmtKind::SetHandler {
                        target,
                        event,
                        body: None,
                    });
                }
                let body = self.block_after_colon(p, line)?;
                Ok(StmtKind::SetHandler {
                    target,
                    event,
                    body: Some(body),
                })
            }
            _ => {
                let bind = if matches!(
                    p.toks.get(p.pos + 1),
                    Some(Token {
                        tok: Tok::Punct("="),
                        ..
                    })
                ) {
                    let name = p.ident("a name")?;
                    p.punct("=")?;
                    Some(name)
                } else {
                    None
                };
                let awaited = p.eat_keyword("await");
                if p.at_end() {
                    return Err(p.error_expected("an expression"));
                }
                let expr = self.expr(p)?;
                Ok(StmtKind::Eval {
                    bind,
                    awaited,
                    expr,
                })
            }
        }
    }

    /// `"text {expr} text"`: the braces hold a name or member path.
    fn template(&self, s: &str, tok: Option<&Token>) -> Result<Vec<LogPart>, ParseError> {
        let (line, column) = tok.map(|t| (t.line, t.column)).unwrap_or((0, 0));
        let mut parts = Vec::new();
        let mut rest = s;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(LogPart::Text(rest[..open].to_string()));
            }
            let Some(close) = rest[open..].find('}') else {
                return Err(self.error(
                    line,
                    column,
                    "a `{` in the log text is not closed with `}`".into(),
                ));
            };
            let inner = &rest[open + 1..open + close];
            let positions: Vec<(u32, u32)> =
                (0..inner.chars().count()).map(|_| (line, column)).collect();
            let toks = lex(inner, &positions).map_err(|e| self.error(line, column, e.message))?;
            let fake = Line {
                indent: 0,
                text: inner.into(),
                positions,
                line,
                column,
                children: Vec::new(),
            };
            let mut p = Parser::new(&self.path, &toks, &fake);
            let e = self.postfix(&mut p)?;
            p.end()?;
            parts.push(LogPart::Expr(e));
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            parts.push(LogPart::Text(rest.to_string()));
        }
        Ok(parts)
    }

    fn expr(&self, p: &mut Parser) -> Result<Expr, ParseError> {
        self.postfix(p)
    }

    fn postfix(&self, p: &mut Parser) -> Result<Expr, ParseError> {
        let mut e = self.primary(p)?;
        loop {
            if p.eat_punct(".") {
                let name = p.ident("a property or method name")?;
                if p.eat_punct("(") {
                    let args = self.args(p)?;
                    e = Expr::Call {
                        target: Box::new(e),
                        method: name,
                        args,
                    };
                } else {
                    e = Expr::Member(Box::new(e), name);
                }
            } else if p.peek_punct("[") && !self.tags_follow(p) {
                p.next();
                let index = self.expr(p)?;
                p.punct("]")?;
                e = Expr::Index(Box::new(e), Box::new(index));
            } else {
                return Ok(e);
            }
        }
    }

    fn args(&self, p: &mut Parser) -> Result<Vec<Expr>, ParseError> {
        let mut args = Vec::new();
        if p.eat_punct(")") {
            return Ok(args);
        }
        loop {
            args.push(self.expr(p)?);
            if p.eat_punct(")") {
                return Ok(args);
            }
            p.punct(",")?;
        }
    }

    fn primary(&self, p: &mut Parser) -> Result<Expr, ParseError> {
        // Brackets nest by recursion: a limit keeps a hostile file from exhausting the stack.
        p.depth += 1;
        if p.depth > MAX_NESTING {
            return Err(p.error_here(format!("brackets nest more than {MAX_NESTING} deep")));
        }
        let e = self.primary_inner(p);
        p.depth -= 1;
        e
    }

    fn primary_inner(&self, p: &mut Parser) -> Result<Expr, ParseError> {
        let Some(tok) = p.next().cloned() else {
            return Err(p.error_expected("a value"));
        };
        Ok(match tok.tok {
            Tok::Number(n) => Expr::Literal(Value::number(n)),
            Tok::Str(s) => Expr::Literal(Value::String(s)),
            Tok::Url(u) => Expr::Literal(Value::String(u)),
            Tok::Duration(ms) => Expr::Literal(Value::number(ms as f64)),
            Tok::Punct("(") => {
                let e = self.expr(p)?;
                p.punct(")")?;
                e
            }
            Tok::Punct("[") => {
                let mut items = Vec::new();
                if !p.eat_punct("]") {
                    loop {
                        items.push(self.expr(p)?);
                        if p.eat_punct("]") {
                            break;
                        }
                        p.punct(",")?;
                        if p.eat_punct("]") {
                            break;
                        }
                    }
                }
                literal_or(Expr::Array(items))
            }
            Tok::Punct("{") => {
                let mut props = Vec::new();
                if !p.eat_punct("}") {
                    loop {
                        let key = match p.next().map(|t| t.tok.clone()) {
                            Some(Tok::Ident(k)) | Some(Tok::Str(k)) => k,
                            _ => return Err(p.error_prev("expected a property name".into())),
                        };
                        p.punct(":")?;
                        // A tool's `execute` takes the callback forms.
                        let value = if key == "execute" {
                            self.callback(p)?
                        } else {
                            self.expr(p)?
                        };
                        props.push((key, value));
                        if p.eat_punct("}") {
                            break;
                        }
                        p.punct(",")?;
                        if p.eat_punct("}") {
                            break;
                        }
                    }
                }
                literal_or(Expr::Object(props))
            }
            Tok::Ident(word) => self.word(p, word)?,
            other => return Err(p.error_prev(format!("expected a value, found {other}"))),
        })
    }

    fn word(&self, p: &mut Parser, word: String) -> Result<Expr, ParseError> {
        Ok(match word.as_str() {
            "true" => Expr::Literal(Value::Bool(true)),
            "false" => Expr::Literal(Value::Bool(false)),
            "null" => Expr::Literal(Value::Null),
            "undefined" => Expr::Literal(Value::Undefined),
            // Outside `execute:`, `pending` is a promise that never settles.
            "pending" => Expr::Global {
                name: "Pending".into(),
                args: Vec::new(),
            },
            "returns" | "throws" => {
                p.punct("(")?;
                let e = self.expr(p)?;
                p.punct(")")?;
                Expr::Callback(if word == "returns" {
                    CallbackBody::Returns(Box::new(e))
                } else {
                    CallbackBody::Throws(Box::new(e))
                })
            }
            "Promise" | "AbortSignal" if p.peek_punct(".") && !self.declared(&word) => {
                p.punct(".")?;
                let method = p.ident("a method name")?;
                let full = format!("{word}.{method}");
                if !matches!(
                    full.as_str(),
                    "Promise.resolve" | "Promise.reject" | "AbortSignal.abort"
                ) {
                    return Err(p.error_prev(format!("unknown function `{full}`; expected Promise.resolve, Promise.reject or AbortSignal.abort")));
                }
                p.punct("(")?;
                Expr::Global {
                    name: full,
                    args: self.args(p)?,
                }
            }
            _ if p.peek_punct("(")
                && (GLOBALS.contains(&word.as_str()) || is_error_name(&word)) =>
            {
                p.punct("(")?;
                Expr::Global {
                    name: word,
                    args: self.args(p)?,
                }
            }
            _ => {
                if let Some(block) = self.scripts.get(&word) {
                    return Ok(Expr::Callback(CallbackBody::Script(block.clone())));
                }
                if is_error_name(&word) && !self.declared(&word) {
                    return Ok(Expr::Literal(Value::error(ErrorValue::named(&word, ""))));
                }
                self.check_name(p, &word)?;
                Expr::Name(word)
            }
        })
    }

    /// A callback: `returns(v)`, `throws(v)`, `pending`, or a script's name (or any expression
    /// whose value is a function).
    fn callback(&self, p: &mut Parser) -> Result<Expr, ParseError> {
        if p.eat_keyword("pending") {
            return Ok(Expr::Callback(CallbackBody::Pending));
        }
        self.expr(p)
    }

    fn declared(&self, name: &str) -> bool {
        self.names.as_ref().is_some_and(|n| n.contains(name))
    }
}

/// An array or object whose members are all literals is itself a literal.
fn literal_or(e: Expr) -> Expr {
    match &e {
        Expr::Array(items) => {
            let lits: Option<Vec<Value>> = items
                .iter()
                .map(|i| match i {
                    Expr::Literal(v) => Some(v.clone()),
                    _ => None,
                })
                .collect();
            lits.map(|v| Expr::Literal(Value::Array(v))).unwrap_or(e)
        }
        Expr::Object(props) => {
            let lits: Option<Vec<(String, Value)>> = props
                .iter()
                .map(|(k, i)| match i {
                    Expr::Literal(v) => Some((k.clone(), v.clone())),
                    _ => None,
                })
                .collect();
            lits.map(|v| Expr::Literal(Value::Object(v))).unwrap_or(e)
        }
        _ => e,
    }
}

fn is_error_name(word: &str) -> bool {
    word.ends_with("Error") && word.chars().next().is_some_and(|c| c.is_ascii_uppercase())
}

/// A cursor over one logical line's tokens.
struct Parser<'a> {
    path: &'a str,
    toks: &'a [Token],
    pos: usize,
    /// Where the line ends, for "found end of line".
    end_at: (u32, u32),
    /// Parsing an expectation, which may end in a tag list.
    in_expectation: bool,
    /// How deep brackets nest at this point.
    depth: u32,
}

impl<'a> Parser<'a> {
    fn new(path: &'a str, toks: &'a [Token], line: &Line) -> Parser<'a> {
        let end_at = line
            .positions
            .last()
            .map(|(l, c)| (*l, c + 1))
            .unwrap_or((line.line, line.column));
        Parser {
            path,
            toks,
            pos: 0,
            end_at,
            in_expectation: false,
            depth: 0,
        }
    }

    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }

    fn next(&mut self) -> Option<&Token> {
        let t = self.toks.get(self.pos);
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn position(&self) -> (u32, u32) {
        self.peek()
            .map(|t| (t.line, t.column))
            .unwrap_or(self.end_at)
    }

    fn error_here(&self, message: String) -> ParseError {
        let (line, column) = self.position();
        ParseError {
            path: self.path.into(),
            line,
            column,
            message,
        }
    }

    fn error_prev(&self, message: String) -> ParseError {
        let t = self.toks.get(self.pos.saturating_sub(1));
        let (line, column) = t.map(|t| (t.line, t.column)).unwrap_or(self.end_at);
        ParseError {
            path: self.path.into(),
            line,
            column,
            message,
        }
    }

    fn found(&self) -> String {
        match self.peek() {
            Some(t) => t.tok.to_string(),
            None => "the end of the line".into(),
        }
    }

    fn error_expected(&self, what: &str) -> ParseError {
        self.error_here(format!("expected {what}, found {}", self.found()))
    }

    fn keyword(&mut self, kw: &str) -> Result<(), ParseError> {
        if self.eat_keyword(kw) {
            Ok(())
        } else {
            Err(self.error_expected(&format!("`{kw}`")))
        }
    }

    fn eat_keyword(&mut self, kw: &str) -> bool {
        if matches!(self.peek(), Some(Token { tok: Tok::Ident(w), .. }) if w == kw) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn peek_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Punct(q), .. }) if *q == p)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.peek_punct(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn optional_punct(&mut self, p: &str) {
        self.eat_punct(p);
    }

    fn punct(&mut self, p: &str) -> Result<(), ParseError> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            Err(self.error_expected(&format!("`{p}`")))
        }
    }

    fn ident(&mut self, what: &str) -> Result<String, ParseError> {
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

    fn string(&mut self, what: &str) -> Result<String, ParseError> {
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

    fn url(&mut self) -> Result<String, ParseError> {
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

    fn duration(&mut self) -> Result<u64, ParseError> {
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

    fn end(&self) -> Result<(), ParseError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error_here(format!(
                "expected the end of the line, found {}",
                self.found()
            )))
        }
    }
}
