//! The page script written as JavaScript: its statements, expressions, callbacks and values,
//! as the statements of a WPT `testharness.js` test (`webmcp-ref export-wpt`).
//!
//! The JavaScript runs with two names in scope: `s`, the names the scenario bound (documents
//! by their labels, promises, controllers...), and `w`, the exported test's world
//! (export/assets/webmcp-ref.js), which does what one JavaScript expression cannot: guard a
//! callback so that its exceptions are the subtest's, log, settle a promise or a thenable,
//! remove or navigate an iframe, read a document another origin holds. What only the scenario
//! knows (its documents and where they are, the test page, the observations, how origins are
//! mapped) comes from a [`Scene`] the exporter provides.
//!
//! Something with no JavaScript a page can run is an [`Omit`], saying why; the exporter then
//! leaves the line out. A document's members are [`WindowMember`]s and its methods
//! [`ModelContextMethod`]s, matched exhaustively, so that a member added to the bindings does
//! not compile until it is written here too.

use super::ast::{Block, Branch, CallbackBody, Expr, LogPart, StmtKind};
use super::bindings::{Global, ModelContextMethod, WindowMember};
use super::js;
use crate::host::value::{ErrorKind, Value, ECMA_ERRORS};

/// Why a piece of the scenario has no JavaScript a page can run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{why}")]
pub struct Omit {
    /// A short word for the subtest's name: `observe`, `findings`, `bfcache`...
    pub kind: &'static str,
    /// Why a page cannot do it.
    pub why: String,
}

/// An [`Omit`] of a kind, saying why.
pub fn omit(kind: &'static str, why: impl Into<String>) -> Omit {
    Omit {
        kind,
        why: why.into(),
    }
}

/// Where an expression is: in a script block, the value an expectation reads, or the value it
/// expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Script,
    Actual,
    Expected,
}

/// The JavaScript statements written so far, with their indentation.
#[derive(Clone, Debug, Default)]
pub struct JsCode {
    pub lines: Vec<String>,
    pub depth: usize,
}

impl JsCode {
    /// No statements yet, indented `depth` levels (a function's body one more than its head).
    pub fn at_depth(depth: usize) -> JsCode {
        JsCode {
            lines: Vec::new(),
            depth,
        }
    }

    /// Adds a statement; a text of several lines (a function written in an expression) keeps
    /// its own indentation under this one.
    pub fn line(&mut self, text: impl AsRef<str>) {
        let indent = "  ".repeat(self.depth);
        for l in text.as_ref().split('\n') {
            self.lines.push(format!("{indent}{l}"));
        }
    }
}

/// A document of the scenario, as the exported test's page sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SceneDocument {
    /// On the test page's origin: its script reaches the document directly.
    pub same_origin: bool,
    /// Removed (or navigated away from): no longer fully active.
    pub removed: bool,
}

/// What only the scenario knows about the names a page script uses.
pub trait Scene: Clone {
    /// A document the scenario named, if the exported test has it.
    fn document(&self, name: &str) -> Option<SceneDocument>;
    /// Whether `name` is the test page itself (the document the test's own script runs in).
    fn is_test_page(&self, name: &str) -> bool;
    /// Whether `name` is an observation of the browser agent, which no page can read.
    fn is_observation(&self, name: &str) -> bool;
    /// A string literal; the exporter maps the scenario's origins to the test's.
    fn string(&self, s: &str) -> String;
    /// Whether a navigation of the document `from` to `url` can be exported.
    fn check_navigation(&self, from: &str, url: &str, keep_in_bfcache: bool) -> Result<(), Omit>;
    /// Records the document a navigation a script starts will create.
    fn navigated_by_script(&mut self, from: &str, url: &str, label: &str);
    /// How the test reads an attribute of a document on another origin, which its script
    /// cannot reach (`document` is the JavaScript naming it).
    fn read_across_origins(&self, document: &str, attribute: &str) -> String;
}

/// What a callback statement writes around its function.
pub struct CallbackShape<'b> {
    head: String,
    params: Vec<String>,
    body: &'b Block,
    tail: String,
    /// `on P settled`: the function is a constant in a block of its own, and this line hands
    /// it to `then`.
    settled: Option<String>,
}

/// The page script's emission, over any [`Scene`].
pub trait Emit: Scene {
    /// Writes a block's statements (the caller has opened the function).
    fn block(&mut self, code: &mut JsCode, block: &Block, locals: &[String]) -> Result<(), Omit> {
        for stmt in &block.stmts {
            self.statement(code, &stmt.kind, locals)?;
        }
        Ok(())
    }

    /// Writes a function whose body is `block`: `head` is `w.guard(event => {` or the like,
    /// `tail` what closes it.
    fn function(
        &mut self,
        code: &mut JsCode,
        head: String,
        params: &[&str],
        block: &Block,
        locals: &[String],
        tail: &str,
    ) -> Result<(), Omit> {
        let mut inner = locals.to_vec();
        inner.extend(params.iter().map(|p| p.to_string()));
        code.line(head);
        code.depth += 1;
        let r = self.block(code, block, &inner);
        code.depth -= 1;
        r?;
        code.line(tail);
        Ok(())
    }

    fn statement(
        &mut self,
        code: &mut JsCode,
        stmt: &StmtKind,
        locals: &[String],
    ) -> Result<(), Omit> {
        match stmt {
            StmtKind::After { .. }
            | StmtKind::On { .. }
            | StmtKind::SetHandler { .. }
            | StmtKind::Then { .. } => self.callback_statement(code, stmt, locals),
            _ => self.plain_statement(code, stmt, locals),
        }
    }

    /// A statement without a block of its own.
    fn plain_statement(
        &mut self,
        code: &mut JsCode,
        stmt: &StmtKind,
        locals: &[String],
    ) -> Result<(), Omit> {
        match stmt {
            StmtKind::Eval {
                bind,
                awaited,
                expr,
            } => {
                let value = self.expr(expr, locals, Mode::Script)?;
                let value = if *awaited {
                    format!("await {value}")
                } else {
                    value
                };
                match bind {
                    Some(name) => {
                        let target = name_ref(name, locals);
                        code.line(format!("{target} = {value};"));
                    }
                    None => code.line(format!("{value};")),
                }
            }
            StmtKind::SetMember {
                target,
                member,
                value,
            } => {
                let target = self.expr(target, locals, Mode::Script)?;
                let value = self.expr(value, locals, Mode::Script)?;
                code.line(format!("{} = {value};", js::member(&target, member)));
            }
            StmtKind::Log(parts) => {
                let mut text = String::new();
                for part in parts {
                    match part {
                        LogPart::Text(t) => text.push_str(&js::template_text(t)),
                        LogPart::Expr(e) => {
                            text.push_str(&format!(
                                "${{w.show({})}}",
                                self.expr(e, locals, Mode::Script)?
                            ));
                        }
                    }
                }
                code.line(format!("w.log(`{text}`);"));
            }
            StmtKind::If {
                test,
                then,
                otherwise,
            } => {
                let test = self.expr(test, locals, Mode::Script)?;
                code.line(format!("if ({test}) {{"));
                code.depth += 1;
                let r = self.block(code, then, locals);
                code.depth -= 1;
                r?;
                if let Some(otherwise) = otherwise {
                    code.line("} else {");
                    code.depth += 1;
                    let r = self.block(code, otherwise, locals);
                    code.depth -= 1;
                    r?;
                }
                code.line("}");
            }
            StmtKind::Return(e) => {
                let v = self.expr(e, locals, Mode::Script)?;
                code.line(format!("return {v};"));
            }
            StmtKind::Throw(e) => {
                let v = self.expr(e, locals, Mode::Script)?;
                code.line(format!("throw {v};"));
            }
            StmtKind::Resolve { target, value } => {
                self.settle(code, "resolve", target, value, locals)?
            }
            StmtKind::Reject { target, value } => {
                self.settle(code, "reject", target, value, locals)?
            }
            StmtKind::Remove(e) => {
                if let Expr::Name(n) = e {
                    if self.is_test_page(n) {
                        return Err(omit("remove", "the test page is not in an iframe"));
                    }
                }
                let d = self.expr(e, locals, Mode::Script)?;
                code.line(format!("w.remove({d});"));
            }
            StmtKind::Navigate {
                from,
                url,
                label,
                keep_in_bfcache,
            } => {
                let Expr::Name(n) = from else {
                    return Err(omit("unsupported", "a navigation of a computed document"));
                };
                self.check_navigation(n, url, *keep_in_bfcache)?;
                let d = self.expr(from, locals, Mode::Script)?;
                code.line(format!(
                    "w.navigate({d}, {}, {});",
                    js::string(url),
                    js::string(label)
                ));
                self.navigated_by_script(n, url, label);
            }
            StmtKind::After { .. }
            | StmtKind::On { .. }
            | StmtKind::SetHandler { .. }
            | StmtKind::Then { .. } => self.callback_statement(code, stmt, locals)?,
        }
        Ok(())
    }

    /// A statement whose block is a callback (`after`, `on`, `set ...:`, `on P fulfilled`).
    /// Blocks nest through here: what it writes around the function is worked out in a frame
    /// of its own ([`Emit::callback_shape`]), so that each level of nesting costs the stack
    /// little.
    fn callback_statement(
        &mut self,
        code: &mut JsCode,
        stmt: &StmtKind,
        locals: &[String],
    ) -> Result<(), Omit> {
        let Some(shape) = self.callback_shape(code, stmt, locals)? else {
            return Ok(());
        };
        let params: Vec<&str> = shape.params.iter().map(String::as_str).collect();
        if shape.settled.is_some() {
            code.line("{");
            code.depth += 1;
        }
        self.function(code, shape.head, &params, shape.body, locals, &shape.tail)?;
        if let Some(last) = shape.settled {
            code.line(last);
            code.depth -= 1;
            code.line("}");
        }
        Ok(())
    }

    /// What [`Emit::callback_statement`] writes around a callback's function: `None` when the
    /// statement needs no function (`set DOC.onEVENT = null`, written here).
    fn callback_shape<'b>(
        &mut self,
        code: &mut JsCode,
        stmt: &'b StmtKind,
        locals: &[String],
    ) -> Result<Option<CallbackShape<'b>>, Omit> {
        let event = || vec!["event".to_string()];
        Ok(Some(match stmt {
            StmtKind::After { ms, body } => CallbackShape {
                head: format!("w.timeout(w.guard({}", arrow(&[], body)),
                params: Vec::new(),
                body,
                tail: format!("}}), {ms});"),
                settled: None,
            },
            StmtKind::On {
                target,
                event: name,
                once,
                body,
            } => {
                let t = self.event_target(target, locals)?;
                CallbackShape {
                    head: format!(
                        "{t}.addEventListener({}, w.guard({}",
                        js::string(name),
                        arrow(&event(), body)
                    ),
                    params: event(),
                    body,
                    tail: if *once { "}), {once: true});" } else { "}));" }.into(),
                    settled: None,
                }
            }
            StmtKind::SetHandler {
                target,
                event: name,
                body,
            } => {
                let t = self.event_target(target, locals)?;
                let attribute = js::member(&t, &format!("on{name}"));
                let Some(body) = body else {
                    code.line(format!("{attribute} = null;"));
                    return Ok(None);
                };
                CallbackShape {
                    head: format!("{attribute} = w.guard({}", arrow(&event(), body)),
                    params: event(),
                    body,
                    tail: "});".into(),
                    settled: None,
                }
            }
            StmtKind::Then {
                promise,
                branch,
                bind,
                body,
            } => {
                let p = self.expr(promise, locals, Mode::Script)?;
                let param = bind.clone().unwrap_or_else(|| "value".into());
                let arrow = arrow(&[js::local(&param)], body);
                let (head, settled) = match branch {
                    Branch::Fulfilled => {
                        (format!("Promise.resolve({p}).then(w.guard({arrow}"), None)
                    }
                    Branch::Rejected => (
                        format!("Promise.resolve({p}).then(undefined, w.guard({arrow}"),
                        None,
                    ),
                    Branch::Settled => (
                        format!("const settled = w.guard({arrow}"),
                        Some(format!("Promise.resolve({p}).then(settled, settled);")),
                    ),
                };
                CallbackShape {
                    head,
                    params: vec![param],
                    body,
                    tail: if settled.is_some() { "});" } else { "}));" }.into(),
                    settled,
                }
            }
            _ => return Ok(None),
        }))
    }

    /// `resolve p [with v]` / `reject p [with e]`: `which` is the world's method.
    fn settle(
        &self,
        code: &mut JsCode,
        which: &str,
        target: &Expr,
        value: &Expr,
        locals: &[String],
    ) -> Result<(), Omit> {
        let t = self.expr(target, locals, Mode::Script)?;
        match value {
            Expr::Literal(Value::Undefined) => code.line(format!("w.{which}({t});")),
            v => {
                let v = self.expr(v, locals, Mode::Script)?;
                code.line(format!("w.{which}({t}, {v});"));
            }
        }
        Ok(())
    }

    /// An event target: a document names its ModelContext, `DOC.window` its Window.
    fn event_target(&self, target: &Expr, locals: &[String]) -> Result<String, Omit> {
        let is_doc = |n: &String| self.document(n).is_some() && !locals.contains(n);
        match target {
            Expr::Name(n) if is_doc(n) => Ok(format!("{}.modelContext", js::member("s", n))),
            Expr::Member(inner, prop) => match (inner.as_ref(), prop.as_str()) {
                (Expr::Name(n), "window") if is_doc(n) => {
                    Ok(format!("{}.window", js::member("s", n)))
                }
                (Expr::Name(n), "modelContext") if is_doc(n) => {
                    Ok(format!("{}.modelContext", js::member("s", n)))
                }
                _ => self.expr(target, locals, Mode::Script),
            },
            _ => self.expr(target, locals, Mode::Script),
        }
    }

    /// A document name, unless a local of that name hides it.
    fn document_name<'e>(&self, e: &'e Expr, locals: &[String]) -> Option<&'e str> {
        let is_doc = |n: &String| self.document(n).is_some() && !locals.contains(n);
        match e {
            Expr::Name(n) if is_doc(n) => Some(n),
            // `top.modelContext` and `top.window` name the same document.
            Expr::Member(inner, p) if p == "modelContext" || p == "window" => {
                match inner.as_ref() {
                    Expr::Name(n) if is_doc(n) => Some(n),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn expr(&self, e: &Expr, locals: &[String], mode: Mode) -> Result<String, Omit> {
        Ok(match e {
            Expr::Literal(v) => self.value(v, mode)?,
            Expr::Name(n) => {
                if locals.contains(n) {
                    js::local(n)
                } else if self.is_observation(n) {
                    return Err(omit("observe", format!("it reads the observation `{n}`")));
                } else {
                    js::member("s", n)
                }
            }
            Expr::Member(target, prop) => {
                if let Some(doc) = self.document_name(target, locals) {
                    return self.document_member(doc, prop, mode);
                }
                let t = self.expr(target, locals, mode)?;
                // What the world reads of a value that JavaScript has no one property for.
                match prop.as_str() {
                    "state" if mode != Mode::Script => format!("w.state({t})"),
                    "interface" => format!("w.interface_of({t})"),
                    "target" => format!("w.target_label({t})"),
                    _ => js::member(&t, prop),
                }
            }
            Expr::Index(target, index) => {
                let t = self.expr(target, locals, mode)?;
                match index.as_ref() {
                    Expr::Literal(Value::Number(n)) if n.0 >= 0.0 && n.0.fract() == 0.0 => {
                        format!("{t}[{}]", js::number(n.0))
                    }
                    other => format!("w.index({t}, {})", self.expr(other, locals, mode)?),
                }
            }
            Expr::Call {
                target,
                method,
                args,
            } if (method == "querySelector"
                || (matches!(
                    method.as_str(),
                    "createElement" | "importNode" | "adoptNode" | "getComputedStyle"
                ) && mode == Mode::Script))
                && self.document_name(target, locals).is_some() =>
            {
                // `DOC.querySelector(selectors)` is the document's, not its ModelContext's; it
                // runs no step, so an expectation may read it too. `getComputedStyle()` is the
                // window's (CSSOM).
                let doc = self.document_name(target, locals).unwrap_or_default();
                let holder = if method == "getComputedStyle" {
                    "window"
                } else {
                    "document"
                };
                let mut values = Vec::new();
                for a in args {
                    values.push(self.expr(a, locals, mode)?);
                }
                format!(
                    "{}.{holder}.{method}({})",
                    js::member("s", doc),
                    values.join(", ")
                )
            }
            Expr::Call {
                target,
                method,
                args,
            } => {
                if mode != Mode::Script {
                    return Err(omit("unsupported", "an expectation that calls a method"));
                }
                let mut values = Vec::new();
                for a in args {
                    values.push(self.expr(a, locals, mode)?);
                }
                if let Some(doc) = self.document_name(target, locals) {
                    let registers =
                        ModelContextMethod::parse(method) == Some(ModelContextMethod::RegisterTool);
                    if registers && self.is_test_page(doc) {
                        values = self.with_cleanup_signal(args, values, locals)?;
                    }
                    format!(
                        "{}.modelContext.{}({})",
                        js::member("s", doc),
                        method,
                        values.join(", ")
                    )
                } else {
                    let t = self.expr(target, locals, mode)?;
                    format!("{}({})", js::member(&t, method), values.join(", "))
                }
            }
            Expr::Global { name, args } => self.global(name, args, locals, mode)?,
            Expr::Object(props) => {
                let mut parts = Vec::new();
                for (k, v) in props {
                    parts.push(format!("{}: {}", js::key(k), self.expr(v, locals, mode)?));
                }
                format!("{{{}}}", parts.join(", "))
            }
            Expr::Array(items) => {
                let mut parts = Vec::new();
                for i in items {
                    parts.push(self.expr(i, locals, mode)?);
                }
                format!("[{}]", parts.join(", "))
            }
            Expr::Not(e) => format!("(!{})", self.expr(e, locals, mode)?),
            Expr::StrictEquals {
                left,
                right,
                negated,
            } => format!(
                // Each operand in brackets: an arrow function (a callback written in place)
                // cannot stand bare before an operator.
                "(({}) {} ({}))",
                self.expr(left, locals, mode)?,
                if *negated { "!==" } else { "===" },
                self.expr(right, locals, mode)?
            ),
            Expr::InstanceOf {
                value,
                realm,
                interface,
            } => {
                let constructor = match realm.as_deref() {
                    None => interface.clone(),
                    Some(r) => {
                        let window = match self.document_name(r, locals) {
                            Some(doc) => format!("{}.window", js::member("s", doc)),
                            None => self.expr(r, locals, mode)?,
                        };
                        js::member(&window, interface)
                    }
                };
                format!(
                    "(({}) instanceof {constructor})",
                    self.expr(value, locals, mode)?
                )
            }
            Expr::Template(parts) => {
                let mut text = String::from("`");
                for part in parts {
                    match part {
                        LogPart::Text(t) => text.push_str(&js::template_text(t)),
                        LogPart::Expr(e) => {
                            text.push_str(&format!("${{{}}}", self.expr(e, locals, mode)?))
                        }
                    }
                }
                text.push('`');
                text
            }
            Expr::Callback(body) => {
                if mode != Mode::Script {
                    return Err(omit("unsupported", "a callback outside a script"));
                }
                self.callback(body, locals)?
            }
        })
    }

    /// A registration on the test page without a signal gets the subtest's cleanup signal, so
    /// that the next subtest starts with no tool (each scenario subtest has a fresh world;
    /// the exported subtests share one page). It is never aborted while the subtest runs.
    fn with_cleanup_signal(
        &self,
        args: &[Expr],
        mut values: Vec<String>,
        locals: &[String],
    ) -> Result<Vec<String>, Omit> {
        let has_signal = |props: &[(String, bool)]| props.iter().any(|(k, _)| k == "signal");
        match args.get(1) {
            None => {
                if values.is_empty() {
                    values.push("undefined".into());
                }
                values.push("{signal: w.cleanup_signal}".into());
            }
            Some(Expr::Object(props)) => {
                let keys: Vec<(String, bool)> =
                    props.iter().map(|(k, _)| (k.clone(), true)).collect();
                if !has_signal(&keys) {
                    let mut parts = Vec::new();
                    for (k, v) in props {
                        parts.push(format!(
                            "{}: {}",
                            js::key(k),
                            self.expr(v, locals, Mode::Script)?
                        ));
                    }
                    parts.push("signal: w.cleanup_signal".into());
                    values[1] = format!("{{{}}}", parts.join(", "));
                }
            }
            Some(Expr::Literal(Value::Object(props))) => {
                if !props.iter().any(|(k, _)| k == "signal") {
                    let mut parts = Vec::new();
                    for (k, v) in props {
                        parts.push(format!("{}: {}", js::key(k), self.value(v, Mode::Script)?));
                    }
                    parts.push("signal: w.cleanup_signal".into());
                    values[1] = format!("{{{}}}", parts.join(", "));
                }
            }
            Some(Expr::Literal(Value::Undefined)) => {
                values[1] = "{signal: w.cleanup_signal}".into();
            }
            Some(_) => {
                values[1] = format!("w.with_cleanup_signal({})", values[1]);
            }
        }
        Ok(values)
    }

    /// What a script, or an expectation, reads of a document: a script reads what a page's
    /// script can; an expectation also what the test's world reads for it (the tool map, the
    /// document being fully active, a cross-origin document's `toolsReady`).
    fn document_member(&self, doc: &str, prop: &str, mode: Mode) -> Result<String, Omit> {
        let info = self.document(doc).ok_or_else(|| {
            omit(
                "unsupported",
                format!("`{doc}` is not a document of the exported test"),
            )
        })?;
        let d = js::member("s", doc);
        let member = WindowMember::parse(prop);
        if mode == Mode::Script {
            let in_script = || omit("unsupported", format!("`{doc}.{prop}` in a script"));
            return Ok(match member.ok_or_else(in_script)? {
                WindowMember::ToolsReady => format!("{d}.modelContext.toolsReady"),
                WindowMember::ModelContext => format!("{d}.modelContext"),
                WindowMember::Window => format!("{d}.window"),
                WindowMember::Document => format!("{d}.document"),
                WindowMember::Origin => format!("{d}.window.origin"),
                WindowMember::OriginAgentCluster => format!("{d}.window.originAgentCluster"),
                WindowMember::Body => format!("{d}.document.body"),
                WindowMember::Implementation => format!("{d}.document.implementation"),
                WindowMember::Tools | WindowMember::Pending | WindowMember::FullyActive => {
                    return Err(in_script())
                }
            });
        }
        let unreadable = || {
            omit(
                "unsupported",
                format!("`{doc}.{prop}` is not something a page can read"),
            )
        };
        Ok(match member.ok_or_else(unreadable)? {
            WindowMember::ToolsReady if info.same_origin => format!("{d}.modelContext.toolsReady"),
            WindowMember::ToolsReady if info.removed => {
                return Err(omit(
                    "removed",
                    format!("`{doc}` is a removed cross-origin document, which nothing can ask"),
                ))
            }
            WindowMember::ToolsReady => self.read_across_origins(&d, "toolsReady"),
            WindowMember::Tools if info.removed => {
                return Err(omit(
                    "removed",
                    format!("the tool map of `{doc}`, a document no longer fully active, is not visible to a page"),
                ))
            }
            WindowMember::Tools => format!("(await w.tool_names({d}))"),
            WindowMember::Pending => {
                return Err(omit(
                    "pending",
                    "a document's pending tool readiness promises are not visible to a page",
                ))
            }
            WindowMember::Origin => format!("w.doc_origin({d})"),
            WindowMember::OriginAgentCluster if info.same_origin => {
                format!("{d}.window.originAgentCluster")
            }
            WindowMember::OriginAgentCluster if info.removed => {
                return Err(omit(
                    "removed",
                    format!("`{doc}` is a removed cross-origin document, which nothing can ask"),
                ))
            }
            WindowMember::OriginAgentCluster => {
                self.read_across_origins(&d, "originAgentCluster")
            }
            WindowMember::FullyActive => format!("w.fully_active({d})"),
            WindowMember::ModelContext => format!("{d}.modelContext"),
            WindowMember::Window => format!("{d}.window"),
            WindowMember::Body if info.same_origin => format!("{d}.document.body"),
            WindowMember::Document | WindowMember::Body | WindowMember::Implementation => {
                return Err(unreadable())
            }
        })
    }

    fn global(
        &self,
        name: &str,
        args: &[Expr],
        locals: &[String],
        mode: Mode,
    ) -> Result<String, Omit> {
        let mut values = Vec::new();
        for a in args {
            values.push(self.expr(a, locals, mode)?);
        }
        let arg = |i: usize| values.get(i).cloned().unwrap_or_else(|| "undefined".into());
        let is_error = name == "DOMException" || name.ends_with("Error");
        if mode == Mode::Expected {
            if !is_error {
                return Err(omit("unsupported", format!("`{name}()` in an expectation")));
            }
            // A pattern: an error of that name (and that message, when one is given).
            let (error_name, message) = if name == "DOMException" {
                (
                    values
                        .get(1)
                        .cloned()
                        .unwrap_or_else(|| js::string("Error")),
                    arg(0),
                )
            } else {
                (js::string(name), arg(0))
            };
            return Ok(if values.is_empty() {
                format!("webmcpRef.error({error_name})")
            } else {
                format!("webmcpRef.error({error_name}, {message})")
            });
        }
        if mode == Mode::Actual {
            return Err(omit(
                "unsupported",
                format!("`{name}()` read by an expectation"),
            ));
        }
        Ok(match Global::parse(name) {
            Some(Global::AbortController) => "new AbortController()".into(),
            Some(Global::AbortSignalAbort | Global::PromiseResolve | Global::PromiseReject) => {
                format!("{name}({})", values.join(", "))
            }
            Some(Global::DomException) => format!("new DOMException({})", values.join(", ")),
            Some(Global::Pending) => "new Promise(() => {})".into(),
            Some(Global::Cyclic) => {
                "(() => { const cyclic = {}; cyclic.self = cyclic; return cyclic; })()".into()
            }
            Some(Global::ToJsonUndefined) => "({toJSON() { return undefined; }})".into(),
            Some(Global::Thenable) => "w.kept_thenable()".into(),
            Some(Global::DomParser) => "new DOMParser()".into(),
            None if name.ends_with("Error") => {
                if ECMA_ERRORS.contains(&name) {
                    format!("new {name}({})", values.join(", "))
                } else {
                    // An error name that is no ECMAScript constructor is a DOMException.
                    format!("new DOMException({}, {})", arg(0), js::string(name))
                }
            }
            None => {
                return Err(omit(
                    "unsupported",
                    format!("`{name}()` has no JavaScript equivalent in the export"),
                ))
            }
        })
    }

    fn callback(&self, body: &CallbackBody, locals: &[String]) -> Result<String, Omit> {
        const PARAMS: [&str; 3] = ["input", "options", "signal"];
        let mut inner = locals.to_vec();
        inner.extend(PARAMS.iter().map(|p| p.to_string()));
        Ok(match body {
            CallbackBody::Returns(e) => {
                if mentions(e, &PARAMS) {
                    format!(
                        "(input, options) => {{ const signal = options.signal; return {}; }}",
                        self.expr(e, &inner, Mode::Script)?
                    )
                } else {
                    format!("() => {}", wrap_object(self.expr(e, locals, Mode::Script)?))
                }
            }
            CallbackBody::Throws(e) => {
                if mentions(e, &PARAMS) {
                    format!(
                        "(input, options) => {{ const signal = options.signal; throw {}; }}",
                        self.expr(e, &inner, Mode::Script)?
                    )
                } else {
                    format!("() => {{ throw {}; }}", self.expr(e, locals, Mode::Script)?)
                }
            }
            CallbackBody::Pending => "() => new Promise(() => {})".into(),
            CallbackBody::Script(block) => {
                // A named script runs as an async function of (input, options), with
                // `signal` = options.signal; written on one level so it reads as a function.
                // What it does to the scene stays inside it: it runs when the tool is called.
                let mut scene = self.clone();
                let mut code = JsCode::at_depth(1);
                scene.block(&mut code, block, &inner)?;
                let mut text = String::from("async (input, options) => {\n");
                text.push_str("  const signal = options.signal;\n");
                for l in code.lines {
                    text.push_str(&l);
                    text.push('\n');
                }
                text.push('}');
                text
            }
        })
    }

    fn value(&self, v: &Value, mode: Mode) -> Result<String, Omit> {
        Ok(match v {
            Value::Undefined => "undefined".into(),
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => js::number(n.0),
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                let mut parts = Vec::new();
                for i in items {
                    parts.push(self.value(i, mode)?);
                }
                format!("[{}]", parts.join(", "))
            }
            Value::Object(props) => {
                let mut parts = Vec::new();
                for (k, v) in props {
                    parts.push(format!("{}: {}", js::key(k), self.value(v, mode)?));
                }
                format!("{{{}}}", parts.join(", "))
            }
            Value::Error(e) => match mode {
                Mode::Expected | Mode::Actual => {
                    if e.message.is_empty() {
                        format!("webmcpRef.error({})", js::string(&e.name))
                    } else {
                        format!(
                            "webmcpRef.error({}, {})",
                            js::string(&e.name),
                            js::string(&e.message)
                        )
                    }
                }
                Mode::Script => match e.kind {
                    ErrorKind::DomException => format!(
                        "new DOMException({}, {})",
                        js::string(&e.message),
                        js::string(&e.name)
                    ),
                    ErrorKind::Ecma => {
                        if e.message.is_empty() {
                            format!("new {}()", e.name)
                        } else {
                            format!("new {}({})", e.name, js::string(&e.message))
                        }
                    }
                },
            },
            // Objects of the simulation, made by running script, never written as literals.
            Value::Promise(_)
            | Value::Thenable(_)
            | Value::Window(..)
            | Value::Controller(_)
            | Value::Signal(_)
            | Value::Unserializable(_)
            | Value::Node(_)
            | Value::Event(_)
            | Value::Platform(_)
            | Value::Function(_) => {
                return Err(omit("unsupported", "a value that has no literal form"))
            }
        })
    }
}

impl<S: Scene> Emit for S {}

/// Whether a block (not its nested callbacks) awaits.
pub fn awaits(block: &Block) -> bool {
    block
        .stmts
        .iter()
        .any(|s| matches!(s.kind, StmtKind::Eval { awaited: true, .. }))
}

/// Whether an expression names any of `names` (a callback's body is its own scope).
fn mentions(e: &Expr, names: &[&str]) -> bool {
    match e {
        Expr::Name(n) => names.contains(&n.as_str()),
        Expr::Member(t, _) => mentions(t, names),
        Expr::Index(t, i) => mentions(t, names) || mentions(i, names),
        Expr::Call { target, args, .. } => {
            mentions(target, names) || args.iter().any(|a| mentions(a, names))
        }
        Expr::Global { args, .. } => args.iter().any(|a| mentions(a, names)),
        Expr::Object(props) => props.iter().any(|(_, v)| mentions(v, names)),
        Expr::Array(items) => items.iter().any(|i| mentions(i, names)),
        Expr::Template(parts) => parts.iter().any(|part| match part {
            LogPart::Expr(e) => mentions(e, names),
            LogPart::Text(_) => false,
        }),
        Expr::Not(e) => mentions(e, names),
        Expr::StrictEquals { left, right, .. } => mentions(left, names) || mentions(right, names),
        Expr::InstanceOf { value, realm, .. } => {
            mentions(value, names) || realm.as_deref().is_some_and(|r| mentions(r, names))
        }
        Expr::Callback(CallbackBody::Returns(e) | CallbackBody::Throws(e)) => mentions(e, names),
        Expr::Callback(CallbackBody::Pending | CallbackBody::Script(_)) | Expr::Literal(_) => false,
    }
}

/// The head of an arrow function taking `params` whose body is `block`.
fn arrow(params: &[String], block: &Block) -> String {
    let list = match params.len() {
        1 => params[0].clone(),
        _ => format!("({})", params.join(", ")),
    };
    format!("{}{list} => {{", if awaits(block) { "async " } else { "" })
}

/// A name a script uses: a parameter of an enclosing function, else one the scenario bound.
fn name_ref(name: &str, locals: &[String]) -> String {
    if locals.iter().any(|l| l == name) {
        js::local(name)
    } else {
        js::member("s", name)
    }
}

/// An arrow function's concise body cannot start with `{`.
fn wrap_object(e: String) -> String {
    if e.starts_with('{') {
        format!("({e})")
    } else {
        e
    }
}
