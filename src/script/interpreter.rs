//! Runs the page's script: statements in a realm, `await` as a promise reaction, callbacks the
//! host calls back, and calls into the platform's objects through [`super::bindings`].

use std::sync::Arc;

use super::ast::{Block, Branch, CallbackBody, Expr, Frame, Function, LogPart, Stmt, StmtKind};
use super::bindings::{self, type_error};
use super::code::Code;
use super::heap;
use super::instance;
use super::syntax::ParseError;
use super::{ScriptHost, UncaughtError};
use crate::host::budget::Stopped;
use crate::host::callback::Callback;
use crate::host::event_loop::{EventLoops, TaskAction, TaskSource};
use crate::host::events::{EventTargetRef, Events};
use crate::host::keys::{DocumentKey, PromiseKey};
use crate::host::navigable::Navigables;
use crate::host::parallel::ParallelStepKind;
use crate::host::promise::Handler;
use crate::host::timers::TimerKind;
use crate::host::value::{ErrorRealm, ErrorValue, Value};
use crate::host::webidl::to_boolean;
use crate::host::Completion;
use crate::webmcp::steps::Steps;

/// How deep scripts may run inside scripts (a listener that dispatches an event whose
/// listener dispatches another...).
pub const MAX_SCRIPT_DEPTH: u32 = 256;

/// How a statement ended.
pub enum Flow {
    Next,
    /// An `await` suspended the block; a reaction resumes it.
    Suspend,
    Return(Value),
    Throw(Value),
    /// The frame went into another block (an `if`'s branch): go on from its first statement.
    Enter,
}

/// The page script's interpreter.
pub trait Interpreter: ScriptHost {
    /// Queues a task on `doc`'s event loop that runs `block` in `doc`'s realm. With
    /// `completion`, the block is an async function whose promise that is.
    fn queue_task(&mut self, doc: DocumentKey, block: Arc<Block>, completion: Option<PromiseKey>) {
        self.harness_note(|w| format!("queue a task in {} (line {})", w.label(doc), block.line));
        let code = Code::Task {
            realm: doc,
            block,
            completion,
            locals: Vec::new(),
        };
        self.queue_global_task(
            doc,
            TaskSource::Harness,
            TaskAction::Script(code.callback()),
        );
    }

    /// Parses `source` as script statements and queues a task that runs them in `doc`;
    /// returns the task's completion promise.
    fn queue_script(&mut self, doc: DocumentKey, source: &str) -> Result<PromiseKey, ParseError> {
        let block = super::parser::parse_script(source)?;
        let completion = self.new_promise(doc);
        self.queue_task(doc, Arc::new(block), Some(completion));
        Ok(completion)
    }

    /// Calls one of the script's callbacks (the host's `call`).
    fn call_code(&mut self, callback: &Callback, args: Vec<Value>) -> Completion {
        let Some(code) = callback.code::<Code>().cloned() else {
            return Err(type_error(format!(
                "{} is not a callback of the page's script",
                callback.describe()
            )));
        };
        let first = args.first().cloned().unwrap_or(Value::Undefined);
        match code {
            Code::Task {
                realm,
                block,
                completion,
                locals,
            } => {
                let mut frame = Frame::new(block, realm);
                frame.completion = completion;
                frame.locals = locals;
                self.run_frame(frame);
                Ok(Value::Undefined)
            }
            Code::Function(function) => {
                // A tool's `execute(input, options)`: `signal` also names `options.signal`.
                let options = args.get(1).cloned().unwrap_or(Value::Undefined);
                let signal = options.get("signal").cloned().unwrap_or(Value::Undefined);
                self.invoke_callback(
                    &function,
                    vec![
                        ("input".into(), first),
                        ("options".into(), options),
                        ("signal".into(), signal),
                    ],
                )
            }
            Code::Reaction {
                realm,
                block,
                bind,
                locals,
            } => {
                let mut frame = Frame::new(block, realm);
                frame.locals = locals;
                frame
                    .locals
                    .push((bind.unwrap_or_else(|| "value".into()), first));
                self.run_frame(frame);
                Ok(Value::Undefined)
            }
            Code::Listener {
                realm,
                block,
                locals,
            } => {
                let mut frame = Frame::new(block, realm);
                frame.locals = locals;
                frame.locals.push(("event".into(), first));
                self.run_frame(frame);
                Ok(Value::Undefined)
            }
            Code::Resume {
                frame,
                bind,
                fulfilled,
            } => {
                self.resume_script(frame, bind, fulfilled, first);
                Ok(Value::Undefined)
            }
        }
    }

    /// Runs a block from its current statement until it ends or awaits.
    fn run_frame(&mut self, mut frame: Frame) {
        // Once a budget is spent, no script runs (see `host::budget`).
        if self.is_stopped() {
            return;
        }
        // A script that calls back into script (an event dispatched from a listener) nests
        // on the stack: past a bound it throws, as a JavaScript engine's stack overflow does.
        if self.script_depth >= MAX_SCRIPT_DEPTH {
            let line = frame.block.line;
            let error = Value::error_in(
                frame.realm,
                ErrorValue::named(
                    "RangeError",
                    format!(
                        "Maximum call stack size exceeded (scripts nested {MAX_SCRIPT_DEPTH} deep)"
                    ),
                ),
            );
            self.script_threw(&frame, line, error);
            return;
        }
        self.script_depth += 1;
        let mut line = frame.block.line;
        let mut block = frame.block.clone();
        let flow = loop {
            let Some(stmt) = block.stmts.get(frame.pc) else {
                // The end of an `if`'s branch: the block around it goes on.
                if let Some((around, pc)) = frame.outer.pop() {
                    frame.block = around;
                    frame.pc = pc;
                    block = frame.block.clone();
                    continue;
                }
                break Flow::Return(Value::Undefined);
            };
            frame.pc += 1;
            line = stmt.line;
            self.at_statement(line);
            if self.spend(1).is_err() {
                break Flow::Suspend;
            }
            match self.exec(&mut frame, stmt) {
                Flow::Next => continue,
                Flow::Enter => {
                    block = frame.block.clone();
                    continue;
                }
                other => break other,
            }
        };
        self.script_depth -= 1;
        if self.is_stopped() {
            return;
        }
        match flow {
            Flow::Next | Flow::Suspend | Flow::Enter => {}
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
                self.script_mut()
                    .uncaught
                    .push(UncaughtError { line, realm, error });
            }
        }
    }

    /// Continues a block after the promise it awaited settled.
    fn resume_script(
        &mut self,
        mut frame: Frame,
        bind: Option<String>,
        fulfilled: bool,
        value: Value,
    ) {
        if fulfilled {
            if let Some(name) = bind {
                self.assign(&mut frame, &name, value);
            }
            self.run_frame(frame);
        } else {
            let line = frame.current_line();
            self.script_threw(&frame, line, value);
        }
    }

    /// Invokes a callback the scenario wrote, with arguments bound to its parameter names;
    /// returns what it returned, or the exception it threw.
    ///
    /// <https://webidl.spec.whatwg.org/#invoke-a-callback-function>
    fn invoke_callback(&mut self, function: &Function, params: Vec<(String, Value)>) -> Completion {
        pay(self.spend(1))?;
        let mut locals = function.captured.clone();
        locals.extend(params);
        let frame = Frame {
            block: Arc::new(Block::new(0, Vec::new())),
            pc: 0,
            realm: function.realm,
            locals: locals.clone(),
            completion: None,
            outer: Vec::new(),
        };
        match &function.body {
            CallbackBody::Returns(e) => {
                let v = self.eval(&frame, e)?;
                self.leaving(&v)
            }
            CallbackBody::Throws(e) => {
                let v = self.eval(&frame, e)?;
                Err(self.leaving(&v)?)
            }
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
                    let resume = |fulfilled| {
                        Handler::Callback(
                            Code::Resume {
                                frame: frame.clone(),
                                bind: bind.clone(),
                                fulfilled,
                            }
                            .callback(),
                        )
                    };
                    self.perform_promise_then(p, resume(true), resume(false), None);
                    return Ok(Flow::Suspend);
                }
                if let Some(name) = bind {
                    self.assign(frame, name, v);
                }
                Ok(Flow::Next)
            }
            StmtKind::SetMember {
                target,
                member,
                value,
            } => {
                let target = self.eval(frame, target)?;
                let value = self.eval(frame, value)?;
                match self.version_of(&target) {
                    Value::Object(object) => self.set_object_member(&object, member, value)?,
                    target => bindings::set_member(self, &target, member, value)?,
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
                            let v = self.leaving(&v)?;
                            text.push_str(&self.display_value(&v));
                        }
                    }
                }
                let made = Value::String(crate::text::js_string::pair_up(text));
                pay(self.made(&made, made.size()))?;
                let Value::String(text) = made else {
                    return Ok(Flow::Next);
                };
                self.log_line(frame.realm, text);
                Ok(Flow::Next)
            }
            StmtKind::If {
                test,
                then,
                otherwise,
            } => {
                // https://tc39.es/ecma262/#sec-if-statement-runtime-semantics-evaluation: the
                // test's value, ToBoolean; the branch runs, then the statement after the `if`.
                let v = self.eval(frame, test)?;
                let branch = if to_boolean(&v) {
                    Some(then)
                } else {
                    otherwise.as_ref()
                };
                let Some(branch) = branch else {
                    return Ok(Flow::Next);
                };
                let around = std::mem::replace(&mut frame.block, branch.clone());
                frame.outer.push((around, frame.pc));
                frame.pc = 0;
                Ok(Flow::Enter)
            }
            // What leaves the script, as its objects' current versions (see `heap`).
            StmtKind::Return(e) => {
                let v = self.eval(frame, e)?;
                Ok(Flow::Return(self.leaving(&v)?))
            }
            StmtKind::Throw(e) => {
                let v = self.eval(frame, e)?;
                Ok(Flow::Throw(self.leaving(&v)?))
            }
            StmtKind::Resolve { target, value } | StmtKind::Reject { target, value } => {
                let reject = matches!(stmt.kind, StmtKind::Reject { .. });
                let target = self.eval(frame, target)?;
                let value = self.eval(frame, value)?;
                let value = self.leaving(&value)?;
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
                    Value::error_in(
                        frame.realm,
                        ErrorValue::dom("InvalidStateError", err.to_string()),
                    )
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
                let queue_label = format!("navigation of {}", self.label(from));
                self.in_parallel(
                    queue_label,
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
                let callback = Code::Task {
                    realm: frame.realm,
                    block: body.clone(),
                    completion: None,
                    locals: frame.locals.clone(),
                }
                .callback();
                self.add_timer(
                    *ms,
                    TimerKind::SetTimeout {
                        document: frame.realm,
                        callback,
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
                let callback = Code::Listener {
                    realm: frame.realm,
                    block: body.clone(),
                    locals: frame.locals.clone(),
                }
                .callback();
                self.add_event_listener(target, event, callback, *once);
                Ok(Flow::Next)
            }
            StmtKind::SetHandler {
                target,
                event,
                body,
            } => {
                let target = self.eval_event_target(frame, target)?;
                let callback = body.as_ref().map(|body| {
                    Code::Listener {
                        realm: frame.realm,
                        block: body.clone(),
                        locals: frame.locals.clone(),
                    }
                    .callback()
                });
                self.set_event_handler(target, event, callback);
                Ok(Flow::Next)
            }
            StmtKind::Then {
                promise,
                branch,
                bind,
                body,
            } => {
                // `P.then(...)`: a promise's own `then`, whatever its realm (the reaction's
                // job is the handler's realm's); any other value is first made a promise of
                // the running script's realm.
                let v = self.eval(frame, promise)?;
                let p = match v {
                    Value::Promise(p) => p,
                    other => self.promise_resolve(frame.realm, other),
                };
                let handler = Handler::Callback(
                    Code::Reaction {
                        realm: frame.realm,
                        block: body.clone(),
                        bind: bind.clone(),
                        locals: frame.locals.clone(),
                    }
                    .callback(),
                );
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

    /// The scenario's names are shared by every page, but HTML hands a script only the
    /// objects of its own agent (and WindowProxies of its browsing context group): a name
    /// whose object lies beyond is not there for this script, so reading it throws a
    /// ReferenceError that says which pages do not reach each other and how a scenario
    /// relates them (`page P URL opened by Q`).
    fn check_reach(&self, realm: DocumentKey, name: &str, value: &Value) -> Result<(), Value> {
        let (owner, window) = match value {
            Value::Promise(p) => (self.promise(*p).realm, false),
            Value::Thenable(t) => (self.thenable_realm(*t), false),
            Value::Controller(s) | Value::Signal(s) => (self.signal(*s).realm, false),
            Value::Function(f) => (f.realm(), false),
            Value::Node(n) => (self.node_document(*n), false),
            Value::Platform(o) => (o.realm(), false),
            Value::Window(d, _) => (*d, true),
            _ => return Ok(()),
        };
        if self.can_reach(realm, owner, window) {
            return Ok(());
        }
        let (from, of) = (self.label(realm), self.label(owner));
        Err(Value::error_in(
            realm,
            ErrorValue::named(
                "ReferenceError",
                if window {
                    format!(
                    "{name} is the window of {of}, which is in another browsing context group than {from}: a script of {from} cannot reach it (a page opened by another shares its group: `page P URL opened by Q`)"
                )
                } else {
                    format!(
                    "{name} is an object of {of}'s agent, which a script of {from} cannot reach: HTML shares objects only between documents of one agent (one browsing context group and site, so one event loop; a page opened by another joins its group: `page P URL opened by Q`)"
                )
                },
            ),
        ))
    }

    /// A value as it leaves the script (see `heap`): its objects as their current versions,
    /// which the value-size budget then counts as it counts a value the script makes.
    fn leaving(&mut self, v: &Value) -> Completion {
        let out = self.resolved(v)?;
        if !out.ptr_eq_top(v) {
            pay(self.made(&out, 0))?;
        }
        Ok(out)
    }

    /// ECMAScript's [[Set]] on an ordinary object: a new version of it, recorded in the heap
    /// (see `heap`). A member of one of the platform's objects the engine holds as members (an
    /// event) that is one of its interface's attributes has no setter: in a script that is not
    /// strict, setting it does nothing.
    fn set_object_member(
        &mut self,
        object: &crate::host::value::Members<(String, Value)>,
        member: &str,
        value: Value,
    ) -> Result<(), Value> {
        if object.class().is_some() && object.iter().any(|(k, _)| k == member) {
            return Ok(());
        }
        let version = heap::with_member(object, member, value);
        pay(self.made(&version, 1 + member.len() as u64))?;
        self.script_mut().heap.set(object.id(), version);
        Ok(())
    }

    /// The realm an error a method or attribute of `target` throws is made in: Web IDL throws
    /// in the current realm of the operation, the realm of its function object, which is the
    /// object's relevant realm (the frame's own, for a value that has none the engine keeps).
    fn thrower(&self, frame: &Frame, target: &Value) -> ErrorRealm {
        ErrorRealm::In(instance::realm_of(self, target).unwrap_or(frame.realm))
    }

    /// Evaluates an expression in a frame; `Err` is a thrown exception.
    fn eval(&mut self, frame: &Frame, expr: &Expr) -> Completion {
        match expr {
            Expr::Literal(v) => {
                pay(self.spend(copy_cost(v)))?;
                // Each evaluation of `{}` or `[]` makes a new object, in the frame's realm.
                Ok(v.fresh_in(frame.realm))
            }
            Expr::Name(name) => {
                if let Some((_, v)) = frame.locals.iter().rev().find(|(n, _)| n == name) {
                    let v = v.clone();
                    pay(self.spend(copy_cost(&v)))?;
                    return Ok(v);
                }
                let Some(value) = self.lookup(name).cloned() else {
                    return Err(Value::error_in(
                        frame.realm,
                        ErrorValue::named("ReferenceError", format!("{name} is not defined")),
                    ));
                };
                self.check_reach(frame.realm, name, &value)?;
                pay(self.spend(copy_cost(&value)))?;
                Ok(value)
            }
            Expr::Member(target, prop) => {
                let target = self.eval(frame, target)?;
                let target = self.version_of(&target);
                // The thrower's realm is looked up only for an error.
                bindings::script_get(self, frame.realm, &target, prop)
                    .map_err(|e| e.placed(self.thrower(frame, &target)))
            }
            Expr::Index(target, index) => {
                let target = self.eval(frame, target)?;
                let target = self.version_of(&target);
                let index = self.eval(frame, index)?;
                bindings::index(&target, &index).ok_or_else(|| {
                    type_error(format!(
                        "cannot index {} with {}",
                        self.describe_value(&target),
                        self.describe_value(&index)
                    ))
                })
            }
            Expr::Call {
                target,
                method,
                args,
            } => {
                pay(self.spend(1))?;
                let target = self.eval(frame, target)?;
                let mut values = Vec::with_capacity(args.len());
                for a in args {
                    let v = self.eval(frame, a)?;
                    values.push(self.leaving(&v)?);
                }
                let held = target.clone();
                bindings::call_method(self, frame.realm, target, method, values)
                    .map_err(|e| e.placed(self.thrower(frame, &held)))
            }
            Expr::Global { name, args } => {
                pay(self.spend(1))?;
                let mut values = Vec::with_capacity(args.len());
                for a in args {
                    let v = self.eval(frame, a)?;
                    values.push(self.leaving(&v)?);
                }
                // What a global makes or throws is made in the current realm.
                let realm = ErrorRealm::In(frame.realm);
                bindings::call_global(self, frame.realm, name, values)
                    .map(|v| v.placed(realm))
                    .map_err(|e| e.placed(realm))
            }
            Expr::Object(props) => {
                let mut out = Vec::with_capacity(props.len());
                let mut fuel = 1;
                for (k, e) in props {
                    fuel += 1 + k.len() as u64;
                    out.push((k.clone(), self.eval(frame, e)?));
                }
                let v = Value::object(out).made_in(frame.realm);
                pay(self.made(&v, fuel))?;
                Ok(v)
            }
            Expr::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for e in items {
                    out.push(self.eval(frame, e)?);
                }
                let v = Value::array(out).made_in(frame.realm);
                pay(self.made(&v, 1 + items.len() as u64))?;
                Ok(v)
            }
            Expr::Not(e) => Ok(Value::Bool(!to_boolean(&self.eval(frame, e)?))),
            Expr::StrictEquals {
                left,
                right,
                negated,
            } => {
                let l = self.eval(frame, left)?;
                let r = self.eval(frame, right)?;
                match self.is_strictly_equal(&l, &r) {
                    Some(same) => Ok(Value::Bool(same != *negated)),
                    None => Err(type_error(NO_IDENTITY.into())),
                }
            }
            Expr::InstanceOf {
                value,
                realm,
                interface,
            } => {
                let v = self.eval(frame, value)?;
                let realm = match realm {
                    None => frame.realm,
                    Some(e) => match self.eval(frame, e)? {
                        Value::Window(d, _) => {
                            // Reading `DOC.Interface` is a property read on its WindowProxy.
                            let window = self.window_proxy_window(d);
                            self.check_access(frame.realm, window)?;
                            window
                        }
                        other => {
                            return Err(type_error(format!(
                                "Right-hand side of 'instanceof' is not callable: {} has no interface objects (`{interface}` is a Window's)",
                                self.describe_value(&other)
                            )))
                        }
                    },
                };
                Ok(Value::Bool(instance::instance_of(
                    self,
                    &v,
                    frame.realm,
                    realm,
                    interface,
                )))
            }
            Expr::Template(parts) => {
                let mut text = String::new();
                let max = self.budgets.max_value_size;
                for part in parts {
                    match part {
                        LogPart::Text(t) => text.push_str(t),
                        LogPart::Expr(e) => {
                            let v = self.eval(frame, e)?;
                            let v = self.leaving(&v)?;
                            // ToString of a value too large to be a string is not written out.
                            if v.size() > max {
                                pay(self.made(&v, 0))?;
                            }
                            text.push_str(&v.to_js_string())
                        }
                    }
                    if text.len() as u64 >= max {
                        break;
                    }
                }
                // Concatenated code units: halves of a pair written apart make the pair.
                let v = Value::String(crate::text::js_string::pair_up(text));
                pay(self.made(&v, v.size()))?;
                Ok(v)
            }
            Expr::Callback(body) => Ok(Value::Function(
                Code::Function(Function {
                    realm: frame.realm,
                    body: body.clone(),
                    captured: frame.locals.clone(),
                })
                .callback(),
            )),
        }
    }

    /// A script may reach another document only if it is same origin with its own.
    fn check_access(&self, realm: DocumentKey, doc: DocumentKey) -> Result<(), Value> {
        let mine = &self.documents[realm].origin;
        if mine.same_origin(&self.documents[doc].origin) {
            Ok(())
        } else {
            Err(Value::error_in(
                realm,
                ErrorValue::dom(
                    "SecurityError",
                    format!(
                        "a script of {} ({}) cannot reach {} ({}): they are not same origin",
                        self.label(realm),
                        mine,
                        self.label(doc),
                        self.documents[doc].origin
                    ),
                ),
            ))
        }
    }

    fn eval_document(&mut self, frame: &Frame, e: &Expr) -> Result<DocumentKey, Value> {
        let value = self.eval(frame, e)?;
        match self.through_window_proxy(&value) {
            Value::Window(d, _) => {
                self.check_access(frame.realm, d)?;
                Ok(d)
            }
            other => Err(type_error(format!(
                "{} is not a document",
                self.describe_value(&other)
            ))),
        }
    }

    fn eval_event_target(
        &mut self,
        frame: &Frame,
        e: &Expr,
    ) -> Result<EventTargetRef<Steps>, Value> {
        // `x.window` names the Window; `x` and `x.modelContext` name the ModelContext.
        if let Expr::Member(inner, prop) = e {
            if prop == "window" {
                let d = self.eval_document(frame, inner)?;
                return Ok(EventTargetRef::Window(d));
            }
        }
        let value = self.eval(frame, e)?;
        match self.through_window_proxy(&value) {
            Value::Window(d, _) => {
                self.check_access(frame.realm, d)?;
                if !self.document(d).secure_context {
                    return Err(bindings::not_exposed(self, d, "addEventListener"));
                }
                Ok(EventTargetRef::Webmcp(self.context_of(d)))
            }
            Value::Signal(s) | Value::Controller(s) => Ok(EventTargetRef::Signal(s)),
            Value::Node(n) => Ok(EventTargetRef::Node(n)),
            other => Err(type_error(format!(
                "{} is not an event target",
                self.describe_value(&other)
            ))),
        }
    }

    /// `name = value`: a local of the frame if it has one, else a name of the scenario's.
    fn assign(&mut self, frame: &mut Frame, name: &str, value: Value) {
        if let Some(slot) = frame.locals.iter_mut().rev().find(|(n, _)| n == name) {
            slot.1 = value;
        } else {
            self.bind(name, value);
        }
    }
}

impl<W: ScriptHost> Interpreter for W {}

/// Why `===` cannot compare a value: the engine holds what `Cyclic()` and `ToJSONUndefined()`
/// make as kinds of value, without the identity each object has in JavaScript.
pub(crate) const NO_IDENTITY: &str = "`===` cannot compare an object made by Cyclic() or ToJSONUndefined(): the engine holds these as kinds of value without an identity, so it cannot tell one from another";

/// A spent budget, as the script sees it: an exception nothing handles, since no script runs
/// once a budget is spent (see `host::budget`).
fn pay(spent: Result<(), Stopped>) -> Result<(), Value> {
    spent.map_err(|Stopped| Value::Undefined)
}

/// The fuel a copy of a value costs: a string is copied byte by byte; an array or object is
/// shared, not copied.
fn copy_cost(v: &Value) -> u64 {
    match v {
        Value::String(s) => 1 + s.len() as u64,
        _ => 1,
    }
}
