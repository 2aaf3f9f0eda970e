//! Runs the scenario's script: statements in a realm, `await` as a promise reaction, calls
//! into the WebMCP methods.

use std::sync::Arc;

use super::events::EventTargetRef;
use super::keys::DocumentKey;
use super::script::{Block, Branch, CallbackBody, Expr, Frame, Function, LogPart, Stmt, StmtKind};
use super::value::{number_to_js_string, ErrorValue, Unserializable, Value};
use crate::platform::event_loop::{ParallelStepKind, TimerKind};
use crate::platform::promise::{Handler, ThenBehaviour};
use crate::world::{UncaughtError, World};

/// How a statement ended.
enum Flow {
    Next,
    /// An `await` suspended the block; a reaction resumes it.
    Suspend,
    Return(Value),
    Throw(Value),
}

type Completion = Result<Value, Value>;

impl World {
    /// Queues a task on `doc`'s event loop that runs `block` in `doc`'s realm. With
    /// `completion`, the block is an async function whose promise that is.
    pub fn queue_task(
        &mut self,
        doc: DocumentKey,
        block: Arc<Block>,
        completion: Option<crate::PromiseKey>,
    ) {
        self.harness_note(|w| format!("queue a task in {} (line {})", w.label(doc), block.line));
        self.queue_global_task(
            doc,
            crate::platform::event_loop::TaskSource::Harness,
            crate::platform::event_loop::TaskAction::RunScript {
                realm: doc,
                block,
                completion,
                locals: Vec::new(),
            },
        );
    }

    /// Parses `source` as script statements and queues a task that runs them in `doc`;
    /// returns the task's completion promise.
    pub fn queue_script(
        &mut self,
        doc: DocumentKey,
        source: &str,
    ) -> Result<crate::PromiseKey, crate::scenario::ParseError> {
        let block = crate::scenario::parse_script(source)?;
        let completion = self.new_promise(doc);
        self.queue_task(doc, Arc::new(block), Some(completion));
        Ok(completion)
    }

    /// Runs a scenario task's block.
    pub(crate) fn run_script_task(
        &mut self,
        realm: DocumentKey,
        block: Arc<Block>,
        completion: Option<crate::PromiseKey>,
        locals: Vec<(String, Value)>,
    ) {
        let mut frame = Frame::new(block, realm);
        frame.completion = completion;
        frame.locals = locals;
        self.run_frame(frame);
    }

    /// Runs a block from its current statement until it ends or awaits.
    pub(crate) fn run_frame(&mut self, mut frame: Frame) {
        self.script_depth += 1;
        let mut line = frame.block.line;
        let flow = loop {
            let Some(stmt) = frame.block.stmts.get(frame.pc).cloned() else {
                break Flow::Return(Value::Undefined);
            };
            frame.pc += 1;
            line = stmt.line;
            match self.exec(&mut frame, &stmt) {
                Flow::Next => continue,
                other => break other,
            }
        };
        self.script_depth -= 1;
        match flow {
            Flow::Next | Flow::Suspend => {}
            Flow::Return(v) => {
                if let Some(c) = frame.completion {
                    self.resolve_promise(c, v);
                }
            }
            Flow::Throw(e) => self.script_threw(&frame, line, e),
        }
    }

    fn script_threw(&mut self, frame: &Frame, line: u32, error: Value) {
        match frame.completion {
            Some(c) => self.reject_promise(c, error),
            None => {
                let error = self.display_value(&error);
                let realm = self.label(frame.realm);
                self.uncaught.push(UncaughtError { line, realm, error });
            }
        }
    }

    /// Continues a block after the promise it awaited settled.
    pub(crate) fn resume_script(
        &mut self,
        mut frame: Frame,
        bind: Option<String>,
        fulfilled: bool,
        value: Value,
    ) {
        if fulfilled {
            if let Some(name) = bind {
                assign(self, &mut frame, &name, value);
            }
            self.run_frame(frame);
        } else {
            let line = frame.current_line();
            self.script_threw(&frame, line, value);
        }
    }

    /// Runs an `on p fulfilled:` block with the settled value.
    pub(crate) fn run_reaction_block(
        &mut self,
        realm: DocumentKey,
        block: Arc<Block>,
        bind: Option<String>,
        locals: Vec<(String, Value)>,
        value: Value,
    ) {
        let mut frame = Frame::new(block, realm);
        frame.locals = locals;
        frame
            .locals
            .push((bind.unwrap_or_else(|| "value".into()), value));
        self.run_frame(frame);
    }

    /// Invokes a callback the scenario wrote, with arguments bound to its parameter names;
    /// returns what it returned, or the exception it threw.
    ///
    /// <https://webidl.spec.whatwg.org/#invoke-a-callback-function>
    pub(crate) fn invoke_callback(
        &mut self,
        function: &Function,
        params: Vec<(String, Value)>,
    ) -> Completion {
        let mut locals = function.captured.clone();
        locals.extend(params);
        let frame = Frame {
            block: Arc::new(Block {
                line: 0,
                stmts: Vec::new(),
            }),
            pc: 0,
            realm: function.realm,
            locals: locals.clone(),
            completion: None,
        };
        match &function.body {
            CallbackBody::Returns(e) => self.eval(&frame, e),
            CallbackBody::Throws(e) => Err(self.eval(&frame, e)?),
            CallbackBody::Pending => Ok(Value::Promise(self.new_promise(function.realm))),
            CallbackBody::Script(block) => {
                // The body runs as an async function: its result is its completion promise.
                let completion = self.new_promise(function.realm);
                let mut frame = Frame::new(block.clone(), function.realm);
                frame.locals = locals;
                frame.completion = Some(completion);
                self.run_frame(frame);
                Ok(Value::Promise(completion))
            }
        }
    }

    fn exec(&mut self, frame: &mut Frame, stmt: &Stmt) -> Flow {
        match self.exec_inner(frame, stmt) {
            Ok(flow) => flow,
            Err(e) => Flow::Throw(e),
        }
    }

    fn exec_inner(&mut self, frame: &mut Frame, stmt: &Stmt) -> Result<Flow, Value> {
        match &stmt.kind {
            StmtKind::Eval {
                bind,
                awaited,
                expr,
            } => {
                let v = self.eval(frame, expr)?;
                if *awaited {
                    // `await v`: PerformPromiseThen(PromiseResolve(%Promise%, v), resume, throw).
                    let p = self.promise_resolve(frame.realm, v);
                    let resume = Handler::Resume(Box::new(crate::platform::promise::Resumption {
                        frame: frame.clone(),
                        bind: bind.clone(),
                    }));
                    self.perform_promise_then(p, resume.clone(), resume, None);
                    return Ok(Flow::Suspend);
                }
                if let Some(name) = bind {
                    assign(self, frame, name, v);
                }
                Ok(Flow::Next)
            }
            StmtKind::Log(parts) => {
                let mut text = String::new();
                for part in parts {
                    match part {
                        LogPart::Text(t) => text.push_str(t),
                        LogPart::Expr(e) => {
                            let v = self.eval(frame, e)?;
                            text.push_str(&self.display_value(&v));
                        }
                    }
                }
                self.log_line(frame.realm, text);
                Ok(Flow::Next)
            }
            StmtKind::Return(e) => Ok(Flow::Return(self.eval(frame, e)?)),
            StmtKind::Throw(e) => Ok(Flow::Throw(self.eval(frame, e)?)),
            StmtKind::Resolve { target, value } | StmtKind::Reject { target, value } => {
                let reject = matches!(stmt.kind, StmtKind::Reject { .. });
                let target = self.eval(frame, target)?;
                let value = self.eval(frame, value)?;
                match target {
                    Value::Promise(p) => {
                        if reject {
                            self.reject_promise(p, value)
                        } else {
                            self.resolve_promise(p, value)
                        }
                    }
                    Value::Thenable(t) => self.settle_thenable(t, reject, value),
                    other => {
                        return Err(type_error(format!(
                            "{} has no resolving functions to call",
                            self.describe_value(&other)
                        )))
                    }
                }
                Ok(Flow::Next)
            }
            StmtKind::Remove(e) => {
                let doc = self.eval_document(frame, e)?;
                self.remove_iframe(doc).map_err(|err| {
                    Value::error(ErrorValue::dom("InvalidStateError", err.to_string()))
                })?;
                Ok(Flow::Next)
            }
            StmtKind::Navigate {
                from,
                url,
                label,
                keep_in_bfcache,
            } => {
                let from = self.eval_document(frame, from)?;
                self.in_parallel(
                    format!("navigation of {}", self.label(from)),
                    vec![ParallelStepKind::NavigationResponse {
                        from,
                        url: url.clone(),
                        label: label.clone(),
                        keep_in_bfcache: *keep_in_bfcache,
                    }],
                );
                Ok(Flow::Next)
            }
            StmtKind::After { ms, body } => {
                self.add_timer(
                    *ms,
                    TimerKind::SetTimeout {
                        document: frame.realm,
                        block: body.clone(),
                        locals: frame.locals.clone(),
                    },
                );
                Ok(Flow::Next)
            }
            StmtKind::On {
                target,
                event,
                once,
                body,
            } => {
                let target = self.eval_event_target(frame, target)?;
                self.add_event_listener(
                    target,
                    event,
                    frame.realm,
                    body.clone(),
                    frame.locals.clone(),
                    *once,
                );
                Ok(Flow::Next)
            }
            StmtKind::SetHandler {
                target,
                event,
                body,
            } => {
                let target = self.eval_event_target(frame, target)?;
                self.set_event_handler(
                    target,
                    event,
                    frame.realm,
                    body.clone(),
                    frame.locals.clone(),
                );
                Ok(Flow::Next)
            }
            StmtKind::Then {
                promise,
                branch,
                bind,
                body,
            } => {
                let v = self.eval(frame, promise)?;
                let p = self.promise_resolve(frame.realm, v);
                let handler = Handler::Block(Box::new(crate::platform::promise::ReactionBlock {
                    realm: frame.realm,
                    block: body.clone(),
                    bind: bind.clone(),
                    locals: frame.locals.clone(),
                }));
                let (on_f, on_r) = match branch {
                    Branch::Fulfilled => (handler, Handler::Empty),
                    Branch::Rejected => (Handler::Empty, handler),
                    Branch::Settled => (handler.clone(), handler),
                };
                self.perform_promise_then(p, on_f, on_r, None);
                Ok(Flow::Next)
            }
        }
    }

    /// Evaluates an expression in a frame; `Err` is a thrown exception.
    pub(crate) fn eval(&mut self, frame: &Frame, expr: &Expr) -> Completion {
        match expr {
            Expr::Literal(v) => Ok(v.clone()),
            Expr::Name(name) => frame
                .locals
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
                .or_else(|| self.env.get(name).cloned())
                .ok_or_else(|| {
                    Value::error(ErrorValue::named(
                        "ReferenceError",
                        format!("{name} is not defined"),
                    ))
                }),
            Expr::Member(target, prop) => {
                let target = self.eval(frame, target)?;
                self.get_property(frame, &target, prop)
            }
            Expr::Index(target, index) => {
                let target = self.eval(frame, target)?;
                let index = self.eval(frame, index)?;
                Ok(match (&target, &index) {
                    (Value::Array(items), Value::Number(n)) => {
                        items.get(n.0 as usize).cloned().unwrap_or(Value::Undefined)
                    }
                    // An array indexed by a string finds the element with that `name`.
                    (Value::Array(items), Value::String(s)) => items
                        .iter()
                        .find(|i| i.get("name") == Some(&Value::String(s.clone())))
                        .cloned()
                        .unwrap_or(Value::Undefined),
                    (Value::Object(_), Value::String(s)) => {
                        target.get(s).cloned().unwrap_or(Value::Undefined)
                    }
                    _ => {
                        return Err(type_error(format!(
                            "cannot index {} with {}",
                            self.describe_value(&target),
                            self.describe_value(&index)
                        )))
                    }
                })
            }
            Expr::Call {
                target,
                method,
                args,
            } => {
                let target = self.eval(frame, target)?;
                let mut values = Vec::with_capacity(args.len());
                for a in args {
                    values.push(self.eval(frame, a)?);
                }
                self.call_method(frame, target, method, values)
            }
            Expr::Global { name, args } => {
                let mut values = Vec::with_capacity(args.len());
                for a in args {
                    values.push(self.eval(frame, a)?);
                }
                self.call_global(frame, name, values)
            }
            Expr::Object(props) => {
                let mut out = Vec::with_capacity(props.len());
                for (k, e) in props {
                    out.push((k.clone(), self.eval(frame, e)?));
                }
                Ok(Value::Object(out))
            }
            Expr::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for e in items {
                    out.push(self.eval(frame, e)?);
                }
                Ok(Value::Array(out))
            }
            Expr::Callback(body) => Ok(Value::Function(Arc::new(Function {
                realm: frame.realm,
                body: body.clone(),
                captured: frame.locals.clone(),
            }))),
        }
    }

    /// A script may reach another document only if it is same origin with its own.
    fn check_access(&self, frame: &Frame, doc: DocumentKey) -> Result<(), Value> {
        let mine = &self.documents[frame.realm].origin;
        if mine.same_origin(&self.documents[doc].origin) {
            Ok(())
        } else {
            Err(Value::error(ErrorValue::dom(
                "SecurityError",
                format!(
                    "a script of {} ({}) cannot reach {} ({}): they are not same origin",
                    self.label(frame.realm),
                    mine,
                    self.label(doc),
                    self.documents[doc].origin
                ),
            )))
        }
    }

    fn eval_document(&mut self, frame: &Frame, e: &Expr) -> Result<DocumentKey, Value> {
        match self.eval(frame, e)? {
            Value::Window(d) => {
                self.check_access(frame, d)?;
                Ok(d)
            }
            other => Err(type_error(format!(
                "{} is not a document",
                self.describe_value(&other)
            ))),
        }
    }

    fn eval_event_target(&mut self, frame: &Frame, e: &Expr) -> Result<EventTargetRef, Value> {
        // `x.window` names the Window; `x` and `x.modelContext` name the ModelContext.
        if let Expr::Member(inner, prop) = e {
            if prop == "window" {
                let d = self.eval_document(frame, inner)?;
                return Ok(EventTargetRef::Window(d));
            }
        }
        match self.eval(frame, e)? {
            Value::Window(d) => {
                self.check_access(frame, d)?;
                Ok(EventTargetRef::ModelContext(
                    self.documents[d].model_context,
                ))
            }
            Value::Signal(s) | Value::Controller(s) => Ok(EventTargetRef::Signal(s)),
            other => Err(type_error(format!(
                "{} is not an event target",
                self.describe_value(&other)
            ))),
        }
    }

    fn get_property(&mut self, frame: &Frame, target: &Value, prop: &str) -> Completion {
        Ok(match (target, prop) {
            (Value::Window(d), "modelContext" | "window" | "document") => {
                self.check_access(frame, *d)?;
                target.clone()
            }
            (Value::Window(d), "toolsReady") => {
                self.check_access(frame, *d)?;
                Value::Bool(self.tools_ready_getter(*d))
            }
            (Value::Window(d), "origin") => Value::string(self.documents[*d].origin.serialize()),
            (Value::Controller(s), "signal") => Value::Signal(*s),
            (Value::Signal(s), "aborted") => Value::Bool(self.signals[*s].aborted),
            (Value::Signal(s), "reason") => self.signals[*s].reason.clone(),
            (Value::Error(e), "name") => Value::string(&e.name),
            (Value::Error(e), "message") => Value::string(&e.message),
            (Value::Array(items), "length") => Value::number(items.len() as f64),
            (Value::String(s), "length") => Value::number(s.encode_utf16().count() as f64),
            (Value::Object(_), _) => target.get(prop).cloned().unwrap_or(Value::Undefined),
            (Value::Undefined | Value::Null, _) => {
                return Err(type_error(format!(
                    "cannot read property {prop:?} of {}",
                    self.display_value(target)
                )))
            }
            _ => Value::Undefined,
        })
    }

    fn call_method(
        &mut self,
        frame: &Frame,
        target: Value,
        method: &str,
        args: Vec<Value>,
    ) -> Completion {
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Undefined);
        match (&target, method) {
            (Value::Window(d), _) => {
                let d = *d;
                self.check_access(frame, d)?;
                match method {
                    "waitForToolsUntil" => {
                        self.wait_for_tools_until(d, arg(0));
                        Ok(Value::Undefined)
                    }
                    "registerTool" => Ok(Value::Promise(self.register_tool(d, arg(0), arg(1)))),
                    "getTools" => Ok(Value::Promise(self.get_tools(d, arg(0)))),
                    "executeTool" => {
                        Ok(Value::Promise(self.execute_tool(d, arg(0), arg(1), arg(2))))
                    }
                    _ => Err(type_error(format!(
                        "modelContext.{method} is not a function"
                    ))),
                }
            }
            (Value::Controller(s), "abort") => {
                self.signal_abort(*s, Some(arg(0)));
                Ok(Value::Undefined)
            }
            _ => Err(type_error(format!(
                "{}.{method} is not a function",
                self.describe_value(&target)
            ))),
        }
    }

    fn call_global(&mut self, frame: &Frame, name: &str, args: Vec<Value>) -> Completion {
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Undefined);
        let text = |v: Value| match v {
            Value::Undefined => String::new(),
            Value::String(s) => s,
            other => self.display_value(&other),
        };
        match name {
            "AbortController" => Ok(Value::Controller(
                self.new_abort_controller(frame.realm, "controller"),
            )),
            "AbortSignal.abort" => {
                let s = self.new_abort_controller(frame.realm, "AbortSignal.abort()");
                self.signal_abort(s, Some(arg(0)));
                Ok(Value::Signal(s))
            }
            "Promise.resolve" => Ok(Value::Promise(self.promise_resolve(frame.realm, arg(0)))),
            "Promise.reject" => {
                let p = self.new_promise(frame.realm);
                self.reject_promise(p, arg(0));
                Ok(Value::Promise(p))
            }
            "DOMException" => {
                let message = text(arg(0));
                let name = match arg(1) {
                    Value::Undefined => "Error".to_string(),
                    other => text(other),
                };
                Ok(Value::error(ErrorValue::dom(&name, message)))
            }
            "Pending" => Ok(Value::Promise(self.new_promise(frame.realm))),
            "Cyclic" => Ok(Value::Unserializable(Unserializable::Circular)),
            "ToJSONUndefined" => Ok(Value::Unserializable(Unserializable::ToJsonUndefined)),
            "Thenable" => {
                let t = self.new_thenable(frame.realm, "thenable", ThenBehaviour::Keep);
                Ok(Value::Thenable(t))
            }
            ecma if ecma.ends_with("Error") => {
                Ok(Value::error(ErrorValue::named(ecma, text(arg(0)))))
            }
            _ => Err(type_error(format!("{name} is not defined"))),
        }
    }

    /// How a value reads in a log line or a message.
    pub fn display_value(&self, v: &Value) -> String {
        match v {
            Value::String(s) => s.clone(),
            Value::Undefined => "undefined".into(),
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => number_to_js_string(n.0),
            Value::Error(e) if e.message.is_empty() => e.name.clone(),
            Value::Error(e) => format!("{}: {}", e.name, e.message),
            other => self.describe_value(other),
        }
    }
}

fn assign(world: &mut World, frame: &mut Frame, name: &str, value: Value) {
    if let Some(slot) = frame.locals.iter_mut().rev().find(|(n, _)| n == name) {
        slot.1 = value;
    } else {
        world.env.insert(name.into(), value);
    }
}

fn type_error(message: String) -> Value {
    Value::error(ErrorValue::type_error(message))
}
