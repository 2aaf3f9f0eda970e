//! The page script's parser: statements and expressions, over the shared lexical layer
//! ([`super::syntax`]). A scenario's parser uses it for the script inside its tasks and
//! callbacks, with the names the subtest declares; [`parse_script`] accepts any name.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::ast::{Block, Branch, CallbackBody, Expr, LogPart, Stmt, StmtKind};
use super::bindings::{is_error_name, ElementMethod, Global, Shape, Spelling};
use super::lexer::{lex, listed, shown, TemplatePiece, Tok, Token};
use super::syntax::{build_tree, lex_line, logical_lines, Cursor, Line, ParseError, MAX_NESTING};
use crate::host::value::{ErrorValue, Value};

/// Names that exist without a declaration: a callback's parameters and the log.
pub const IMPLICIT_NAMES: &[&str] = &["input", "options", "signal", "event", "value", "log"];

/// What the parser knows while parsing a script: where it is, the names it may use, and the
/// named script blocks.
pub struct ScriptParser {
    pub path: String,
    /// Every name the subtest declares; `None` accepts any name.
    pub names: Option<BTreeSet<String>>,
    /// `script NAME:` blocks.
    pub scripts: BTreeMap<String, Arc<Block>>,
    /// What the file says each name holds, where it says it for sure (a `page`, a `promise`
    /// the script never assigns): an expectation's members are checked against it.
    pub shapes: BTreeMap<String, Shape>,
    /// How deep the block being parsed is in blocks (indented, or after a `:` on its line).
    depth: Cell<u32>,
    /// Whether an expression parsed so far compares by identity (`===`, `!==`).
    pub compares_identity: Cell<bool>,
}

/// Parses a block of script statements (as inside `task in DOC:`), for the library API: any
/// name is accepted, and an unknown one is a ReferenceError when it runs.
pub fn parse_script(source: &str) -> Result<Block, ParseError> {
    let lines: Vec<String> = source.lines().map(str::to_owned).collect();
    let lines = logical_lines("<script>", &lines)?;
    let tree = build_tree("<script>", lines)?;
    ScriptParser::new("<script>", None).block(&tree, 1)
}

impl ScriptParser {
    /// A parser for the scripts of the file at `path`, that accepts the `names` given (`None`:
    /// any name).
    pub fn new(path: &str, names: Option<BTreeSet<String>>) -> ScriptParser {
        ScriptParser {
            path: path.into(),
            names,
            scripts: BTreeMap::new(),
            shapes: BTreeMap::new(),
            compares_identity: Cell::new(false),
            depth: Cell::new(0),
        }
    }

    pub(crate) fn error(&self, line: u32, column: u32, message: String) -> ParseError {
        ParseError {
            path: self.path.clone(),
            line,
            column,
            message,
        }
    }

    pub(crate) fn block(&self, lines: &[Line], line: u32) -> Result<Block, ParseError> {
        let mut stmts: Vec<Stmt> = Vec::new();
        for l in lines {
            let toks = lex_line(&self.path, l)?;
            let mut p = Cursor::new(&self.path, &toks, l);
            if p.eat_keyword("else") {
                // `else:` or `else if ...:` belongs to the `if` just above (and to the last
                // `else if` of its chain).
                let open = stmts.last_mut().and_then(|s| open_else(&mut s.kind));
                let Some(slot) = open else {
                    return Err(p.error_prev(
                        "`else` without an `if` just above it (at the same indentation)".into(),
                    ));
                };
                let body = if matches!(p.peek(), Some(Token { tok: Tok::Ident(k), .. }) if k == "if")
                {
                    let (sline, scolumn) = p.position();
                    let kind = self.if_statement(&mut p, l)?;
                    Arc::new(Block::new(
                        l.line,
                        vec![Stmt {
                            line: sline,
                            column: scolumn,
                            kind,
                        }],
                    ))
                } else {
                    self.block_after_colon(&mut p, l)?
                };
                *slot = Some(body);
                continue;
            }
            stmts.push(self.statement(&mut p, l)?);
        }
        Ok(Block::new(line, stmts))
    }

    /// `if EXPR:` and its block (its `else` is read by [`Parser::block`], from the next line).
    fn if_statement(&self, p: &mut Cursor, line: &Line) -> Result<StmtKind, ParseError> {
        p.keyword("if")?;
        let test = self.expr(p)?;
        let then = self.block_after_colon(p, line)?;
        Ok(StmtKind::If {
            test,
            then,
            otherwise: None,
        })
    }

    /// A block opened by a line ending in `:`: its indented lines, or the rest of the line.
    pub(crate) fn block_after_colon(
        &self,
        p: &mut Cursor,
        line: &Line,
    ) -> Result<Arc<Block>, ParseError> {
        p.punct(":")?;
        // Blocks nest by recursion, whether indented or written one after another's `:`
        // (`after 1ms: after 1ms: ...`): a limit keeps a hostile file from exhausting the stack.
        let depth = self.depth.get() + 1;
        if depth > MAX_NESTING {
            return Err(p.error_prev(format!(
                "blocks nest more than {MAX_NESTING} deep (indented, or one after another's `:` on a line)"
            )));
        }
        self.depth.set(depth);
        let block = self.block_after_colon_at(p, line);
        self.depth.set(depth - 1);
        block
    }

    fn block_after_colon_at(&self, p: &mut Cursor, line: &Line) -> Result<Arc<Block>, ParseError> {
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
        Ok(Arc::new(Block::new(line.line, vec![stmt])))
    }

    pub(crate) fn no_children(&self, line: &Line, what: &str) -> Result<(), ParseError> {
        match line.children.first() {
            Some(c) => Err(self.error(
                c.line,
                c.column,
                format!("unexpected indented line: `{what}` takes no block"),
            )),
            None => Ok(()),
        }
    }

    pub(crate) fn check_name(&self, p: &Cursor, name: &str) -> Result<(), ParseError> {
        let Some(names) = &self.names else {
            return Ok(());
        };
        if names.contains(name) || IMPLICIT_NAMES.contains(&name) || self.scripts.contains_key(name)
        {
            return Ok(());
        }
        Err(p.error_prev(format!(
            "unknown name `{}`; the names in this subtest are: {}",
            shown(name),
            listed(names.iter().map(String::as_str))
        )))
    }

    /// A script statement.
    pub(crate) fn statement(&self, p: &mut Cursor, line: &Line) -> Result<Stmt, ParseError> {
        let (sline, scolumn) = p.position();
        let kind = self.statement_kind(p, line)?;
        if !matches!(
            kind,
            StmtKind::After { .. }
                | StmtKind::On { .. }
                | StmtKind::Then { .. }
                | StmtKind::If { .. }
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

    /// A statement, by its first word. Each kind has a function of its own: blocks nest
    /// through `after`, `on` and `set`, and a small frame here keeps the stack each level costs
    /// small.
    pub(crate) fn statement_kind(
        &self,
        p: &mut Cursor,
        line: &Line,
    ) -> Result<StmtKind, ParseError> {
        let kw = match p.peek() {
            Some(Token {
                tok: Tok::Ident(k), ..
            }) => k.as_str(),
            _ => "",
        };
        match kw {
            "log" => self.log_statement(p),
            "return" | "throw" => self.completion_statement(p),
            "resolve" | "reject" => self.settle_statement(p),
            "remove" => {
                p.next_token();
                Ok(StmtKind::Remove(self.postfix(p)?))
            }
            "navigate" => self.navigate_statement(p),
            "after" => {
                p.next_token();
                let ms = p.duration()?;
                let body = self.block_after_colon(p, line)?;
                Ok(StmtKind::After { ms, body })
            }
            "on" => self.on_statement(p, line),
            "set" => self.set_statement(p, line),
            "if" => self.if_statement(p, line),
            "else" => Err(p.error_here(
                "`else` without an `if` just above it (at the same indentation)".into(),
            )),
            _ => self.eval_statement(p),
        }
    }

    /// `log "text {name}"` or `log EXPR`.
    fn log_statement(&self, p: &mut Cursor) -> Result<StmtKind, ParseError> {
        p.next_token();
        let parts = match p.peek().map(|t| t.tok.clone()) {
            Some(Tok::Str(s)) => {
                let tok = p.next_token().cloned();
                self.template(&s, tok.as_ref())?
            }
            _ => vec![LogPart::Expr(self.expr(p)?)],
        };
        Ok(StmtKind::Log(parts))
    }

    /// `return [EXPR]` or `throw EXPR`.
    fn completion_statement(&self, p: &mut Cursor) -> Result<StmtKind, ParseError> {
        if p.eat_keyword("throw") {
            return Ok(StmtKind::Throw(self.expr(p)?));
        }
        p.keyword("return")?;
        let e = if p.at_end() {
            Expr::Literal(Value::Undefined)
        } else {
            self.expr(p)?
        };
        Ok(StmtKind::Return(e))
    }

    /// `resolve P [with VALUE]` or `reject P [with VALUE]`.
    fn settle_statement(&self, p: &mut Cursor) -> Result<StmtKind, ParseError> {
        let resolve = p.eat_keyword("resolve");
        if !resolve {
            p.keyword("reject")?;
        }
        let target = self.postfix(p)?;
        let value = if p.eat_keyword("with") {
            self.expr(p)?
        } else {
            Expr::Literal(Value::Undefined)
        };
        Ok(if resolve {
            StmtKind::Resolve { target, value }
        } else {
            StmtKind::Reject { target, value }
        })
    }

    /// `navigate DOC to URL as NAME [bfcache]`.
    fn navigate_statement(&self, p: &mut Cursor) -> Result<StmtKind, ParseError> {
        p.next_token();
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

    /// `on TARGET EVENT [once]:` or `on P fulfilled|rejected|settled [as NAME]:`, and a block.
    fn on_statement(&self, p: &mut Cursor, line: &Line) -> Result<StmtKind, ParseError> {
        p.next_token();
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

    /// `set DOC.onEVENT:` and a block, or `set DOC.onEVENT = null`.
    fn set_statement(&self, p: &mut Cursor, line: &Line) -> Result<StmtKind, ParseError> {
        p.next_token();
        let target = self.primary(p)?;
        p.punct(".")?;
        let attr = p.ident("an event handler attribute such as ontoolchange")?;
        let Some(event) = attr.strip_prefix("on").filter(|e| !e.is_empty()) else {
            return Err(p.error_prev(format!("`{}` is not an event handler attribute (ontoolchange, ontoolactivated, ontoolcancel)", shown(&attr))));
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

    /// `[NAME =] [await] EXPR`.
    fn eval_statement(&self, p: &mut Cursor) -> Result<StmtKind, ParseError> {
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
        if bind.is_none() {
            if let Some(assignment) = self.member_assignment(p)? {
                return Ok(assignment);
            }
        }
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

    /// `TARGET.MEMBER = EXPR`, when the statement is one (a `=` after a member
    /// expression); `None`, with the cursor where it was, when it is not.
    fn member_assignment(&self, p: &mut Cursor) -> Result<Option<StmtKind>, ParseError> {
        let has_equals = p.toks[p.pos..]
            .iter()
            .any(|t| matches!(t.tok, Tok::Punct("=")));
        let awaits = matches!(p.peek(), Some(Token { tok: Tok::Ident(w), .. }) if w == "await");
        if !has_equals || awaits {
            return Ok(None);
        }
        let start = p.pos;
        let Ok(left) = self.postfix(p) else {
            p.pos = start;
            return Ok(None);
        };
        if !p.eat_punct("=") {
            p.pos = start;
            return Ok(None);
        }
        let Expr::Member(target, member) = left else {
            p.pos = start;
            return Err(p.error_here(
                "the left side of `=` is a name (`x = ...`) or a member (`E.value = ...`)".into(),
            ));
        };
        if matches!(p.peek(), Some(Token { tok: Tok::Ident(w), .. }) if w == "await") {
            return Err(p.error_here(
                "`await` on the right of a member assignment: bind the awaited value to a name first (`v = await p`, then `E.value = v`)".into(),
            ));
        }
        if p.at_end() {
            return Err(p.error_expected("an expression"));
        }
        let value = self.expr(p)?;
        Ok(Some(StmtKind::SetMember {
            target: *target,
            member,
            value,
        }))
    }

    /// `` `text ${expr} text` ``: each substitution is a whole expression, parsed from its own
    /// tokens.
    fn template_literal(&self, p: &Cursor, pieces: Vec<TemplatePiece>) -> Result<Expr, ParseError> {
        let mut parts = Vec::with_capacity(pieces.len());
        for piece in pieces {
            match piece {
                TemplatePiece::Text(t) => parts.push(LogPart::Text(t)),
                TemplatePiece::Substitution(tokens) => {
                    let mut inner = p.sub(&tokens);
                    let e = self.expr(&mut inner)?;
                    inner.end()?;
                    parts.push(LogPart::Expr(e));
                }
            }
        }
        Ok(Expr::Template(parts))
    }

    /// `"text {expr} text"`: the braces hold a name or member path.
    pub(crate) fn template(
        &self,
        s: &str,
        tok: Option<&Token>,
    ) -> Result<Vec<LogPart>, ParseError> {
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
            let mut p = Cursor::new(&self.path, &toks, &fake);
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

    /// An expression: operands joined by `===` and `!==`, from the left (`a === b === c` is
    /// `(a === b) === c`). Each link is a level of the expression's nesting.
    pub(crate) fn expr(&self, p: &mut Cursor) -> Result<Expr, ParseError> {
        let outer = p.depth;
        let mut e = self.relational(p)?;
        loop {
            let negated = if p.eat_punct("===") {
                false
            } else if p.eat_punct("!==") {
                true
            } else {
                break;
            };
            p.nest()?;
            self.compares_identity.set(true);
            let right = self.relational(p)?;
            e = Expr::StrictEquals {
                left: Box::new(e),
                right: Box::new(right),
                negated,
            };
        }
        p.depth = outer;
        Ok(e)
    }

    /// An operand of `===`: an operand of `instanceof`, then any number of `instanceof X`
    /// (from the left, each a level of the nesting; relational operators bind tighter than
    /// equality ones, and `!` tighter still).
    pub(crate) fn relational(&self, p: &mut Cursor) -> Result<Expr, ParseError> {
        let value = self.unary(p)?;
        self.instance_of(p, value)
    }

    /// `value` followed by any number of `instanceof X`.
    pub(crate) fn instance_of(&self, p: &mut Cursor, value: Expr) -> Result<Expr, ParseError> {
        let outer = p.depth;
        let mut e = value;
        while p.eat_keyword("instanceof") {
            p.nest()?;
            let (realm, interface) = self.constructor(p)?;
            e = Expr::InstanceOf {
                value: Box::new(e),
                realm: realm.map(Box::new),
                interface,
            };
        }
        p.depth = outer;
        Ok(e)
    }

    /// The right operand of `instanceof`: an interface's name, after the names of the
    /// document whose realm's interface object it is (`child.DOMException`,
    /// `child.window.DOMException`).
    fn constructor(&self, p: &mut Cursor) -> Result<(Option<Expr>, String), ParseError> {
        const EXPECTED: &str = "an interface after `instanceof` (such as `TypeError`, `DOMException`, `ModelContext` or `HTMLFormElement`), or a document's: `DOC.DOMException`";
        let mut path = vec![p.ident(EXPECTED)?];
        while p.eat_punct(".") {
            p.nest()?;
            path.push(p.ident(EXPECTED)?);
        }
        let interface = path.pop().unwrap_or_default();
        if !super::instance::is_interface(&interface) {
            return Err(p.error_prev(format!(
                "`{}` is not an interface the engine knows: expected {EXPECTED}",
                shown(&interface)
            )));
        }
        let realm = path.into_iter().fold(None, |target: Option<Expr>, name| {
            Some(match target {
                None => Expr::Name(name),
                Some(t) => Expr::Member(Box::new(t), name),
            })
        });
        Ok((realm, interface))
    }

    /// An operand: a value and its chain, after any number of `!`.
    fn unary(&self, p: &mut Cursor) -> Result<Expr, ParseError> {
        // `!` before a value: counted rather than recursed into (a line of a million `!` costs
        // no stack), and kept as at most two (`!!x` is x's ToBoolean).
        let mut nots = 0u32;
        while p.eat_punct("!") {
            nots = if nots == 2 { 1 } else { nots + 1 };
        }
        let mut e = self.postfix(p)?;
        for _ in 0..nots {
            e = Expr::Not(Box::new(e));
        }
        Ok(e)
    }

    /// A value and the chain of members, calls and indexes after it. Each bracket, and each
    /// link of the chain, is a level of the expression's nesting (the syntax tree nests a level
    /// per link, and whatever walks it recurses as deep).
    pub(crate) fn postfix(&self, p: &mut Cursor) -> Result<Expr, ParseError> {
        let outer = p.depth;
        let e = self.chain(p);
        p.depth = outer;
        e
    }

    fn chain(&self, p: &mut Cursor) -> Result<Expr, ParseError> {
        p.nest()?;
        let mut e = self.primary(p)?;
        // In an expectation, what the file says of the value so far, to check each member.
        let mut shape = match &e {
            Expr::Name(n) if p.in_expectation => self.shapes.get(n).copied(),
            _ => None,
        };
        loop {
            if p.peek_punct(".") {
                p.nest()?;
                p.next_token();
                let call = matches!(
                    p.toks.get(p.pos + 1),
                    Some(Token {
                        tok: Tok::Punct("("),
                        ..
                    })
                );
                if let (
                    Some(s),
                    Some(Token {
                        tok: Tok::Ident(prop),
                        ..
                    }),
                    false,
                ) = (shape, p.peek(), call)
                {
                    shape = s.member(prop).map_err(|why| {
                        p.error_here(format!(
                            "{} has no property `{}` an expectation can read ({why})",
                            s.name(),
                            shown(prop)
                        ))
                    })?;
                }
                e = self.member_link(p, e)?;
                if call {
                    shape = None;
                }
            } else if p.peek_punct("[") && !p.tags_follow() {
                p.nest()?;
                p.next_token();
                e = self.index_link(p, e)?;
                shape = shape.and_then(Shape::element);
            } else {
                return Ok(e);
            }
        }
    }

    /// `[index]` after `target`, after its `[`.
    fn index_link(&self, p: &mut Cursor, target: Expr) -> Result<Expr, ParseError> {
        let index = self.expr(p)?;
        p.punct("]")?;
        Ok(Expr::Index(Box::new(target), Box::new(index)))
    }

    /// `.name` or `.name(args)` after `target`, after its `.`.
    fn member_link(&self, p: &mut Cursor, target: Expr) -> Result<Expr, ParseError> {
        let at = p.position();
        let name = p.ident("a property or method name")?;
        if p.eat_punct("(") {
            let args = self.args(p)?;
            self.check_dom_call(at, &name, &args)?;
            return Ok(Expr::Call {
                target: Box::new(target),
                method: name,
                args,
            });
        }
        Ok(Expr::Member(Box::new(target), name))
    }

    /// A call of one of the DOM's methods (`DOC.querySelector(...)`, an element's
    /// `setAttribute(...)`...) with fewer arguments than it requires, or `querySelector` given
    /// a literal that is not a string: an error at the method's name, before anything runs.
    fn check_dom_call(&self, at: (u32, u32), name: &str, args: &[Expr]) -> Result<(), ParseError> {
        let (line, column) = at;
        if name == "createElement" && args.is_empty() {
            return Err(self.error(
                line,
                column,
                "`createElement` takes the element's name, as a string".into(),
            ));
        }
        if name == "querySelector" {
            return match args.first() {
                None => Err(self.error(
                    line,
                    column,
                    "`querySelector` takes the selectors to match, as a string".into(),
                )),
                Some(Expr::Literal(v)) if !matches!(v, Value::String(_)) => Err(self.error(
                    line,
                    column,
                    "`querySelector` takes the selectors to match as a string, such as \"#f\" or \"form[toolname=search]\"".into(),
                )),
                Some(_) => Ok(()),
            };
        }
        if let Some(m) = ElementMethod::parse(name) {
            let required = m.arguments();
            if args.len() < required.len() {
                return Err(self.error(
                    line,
                    column,
                    format!(
                        "`{name}` takes {} argument(s) ({}), found {}",
                        required.len(),
                        required.join(", "),
                        args.len()
                    ),
                ));
            }
        }
        Ok(())
    }

    pub(crate) fn args(&self, p: &mut Cursor) -> Result<Vec<Expr>, ParseError> {
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

    /// One value: a literal, a name, a bracketed expression, an array or object, a call of a
    /// global. (Its nesting is counted by [`Self::postfix`], through which every expression in
    /// it is parsed.)
    pub(crate) fn primary(&self, p: &mut Cursor) -> Result<Expr, ParseError> {
        // Expressions nest through here: each kind that holds expressions has a function of
        // its own, which keeps this frame (on the stack once per level) small.
        let Some(tok) = p.next_token() else {
            return Err(p.error_expected("a value"));
        };
        Ok(match &tok.tok {
            Tok::Number(n) => Expr::Literal(Value::number(*n)),
            Tok::Str(s) => Expr::Literal(Value::String(s.clone())),
            Tok::Url(u) => Expr::Literal(Value::String(u.clone())),
            Tok::Template(pieces) => {
                let pieces = pieces.clone();
                self.template_literal(p, pieces)?
            }
            Tok::Duration(ms) => Expr::Literal(Value::number(*ms as f64)),
            Tok::Punct("(") => {
                let e = self.expr(p)?;
                p.punct(")")?;
                e
            }
            Tok::Punct("[") => self.array_literal(p)?,
            Tok::Punct("{") => self.object_literal(p)?,
            Tok::Ident(word) => {
                let word = word.clone();
                self.word(p, word)?
            }
            other => {
                let found = other.to_string();
                return Err(p.error_prev(format!("expected a value, found {found}")));
            }
        })
    }

    /// `[a, b]`, after its `[`.
    fn array_literal(&self, p: &mut Cursor) -> Result<Expr, ParseError> {
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
        Ok(literal_or(Expr::Array(items)))
    }

    /// `{name: value, "key": value}`, after its `{`.
    fn object_literal(&self, p: &mut Cursor) -> Result<Expr, ParseError> {
        let mut props = Vec::new();
        if !p.eat_punct("}") {
            loop {
                let key = match p.next_token().map(|t| t.tok.clone()) {
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
        Ok(literal_or(Expr::Object(props)))
    }

    pub(crate) fn word(&self, p: &mut Cursor, word: String) -> Result<Expr, ParseError> {
        Ok(match word.as_str() {
            "true" => Expr::Literal(Value::Bool(true)),
            "false" => Expr::Literal(Value::Bool(false)),
            "null" => Expr::Literal(Value::Null),
            "undefined" => Expr::Literal(Value::Undefined),
            // The global object's value properties NaN and Infinity (not redefinable).
            "NaN" => Expr::Literal(Value::number(f64::NAN)),
            "Infinity" => Expr::Literal(Value::number(f64::INFINITY)),
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
                let dotted = || {
                    Global::ALL
                        .iter()
                        .filter(|g| g.spelling() == Spelling::Dotted)
                        .map(|g| g.name())
                };
                if !dotted().any(|name| name == full) {
                    return Err(p.error_prev(format!(
                        "unknown function `{}`; expected {}",
                        shown(&full),
                        dotted().collect::<Vec<_>>().join(", ")
                    )));
                }
                p.punct("(")?;
                Expr::Global {
                    name: full,
                    args: self.args(p)?,
                }
            }
            _ if p.peek_punct("(")
                && (Global::parse(&word).is_some_and(|g| g.spelling() == Spelling::Call)
                    || is_error_name(&word)) =>
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
    pub(crate) fn callback(&self, p: &mut Cursor) -> Result<Expr, ParseError> {
        if p.eat_keyword("pending") {
            return Ok(Expr::Callback(CallbackBody::Pending));
        }
        self.expr(p)
    }

    pub(crate) fn declared(&self, name: &str) -> bool {
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
            lits.map(|v| Expr::Literal(Value::array(v))).unwrap_or(e)
        }
        Expr::Object(props) => {
            let lits: Option<Vec<(String, Value)>> = props
                .iter()
                .map(|(k, i)| match i {
                    Expr::Literal(v) => Some((k.clone(), v.clone())),
                    _ => None,
                })
                .collect();
            lits.map(|v| Expr::Literal(Value::object(v))).unwrap_or(e)
        }
        _ => e,
    }
}

/// Where an `else` after this statement goes: the `if`'s empty else, or the last `else if`'s,
/// down its chain; `None` when the statement is no `if`, or its chain already ends in `else`.
fn open_else(kind: &mut StmtKind) -> Option<&mut Option<Arc<Block>>> {
    let StmtKind::If { otherwise, .. } = kind else {
        return None;
    };
    if otherwise.is_none() {
        return Some(otherwise);
    }
    // An `else if` is an `if` alone in its else block, written on the else line.
    let block = Arc::get_mut(otherwise.as_mut()?)?;
    match block.stmts.as_mut_slice() {
        [only] if only.line == block.line => open_else(&mut only.kind),
        _ => None,
    }
}
