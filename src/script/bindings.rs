//! The platform's objects as the page script and the scenario's expectations see them: which
//! members each can read or call, written once. The interpreter reads them as a script does
//! (running the getter's steps, same-origin checks, exceptions), the scenario's expectations
//! as the harness does (no step runs, and a member nothing can read is an error), and the WPT
//! exporter writes each as real JavaScript.

use super::interpreter::Interpreter;
use super::ScriptHost;
use crate::host::abort::Abort;
use crate::host::dom::Dispatch;
use crate::host::keys::DocumentKey;
use crate::host::promise::ThenBehaviour;
use crate::host::value::{ErrorValue, Unserializable, Value};
use crate::host::Completion;
use crate::step;
use crate::webmcp::prelude::*;
use crate::webmcp::switches::ReadinessApi;
use crate::webmcp::DOCUMENT_MODEL_CONTEXT_GETTER;

/// A member of a `Window`. Scenarios name a document, its `Window` and its `ModelContext` by
/// the document's name, so the `ModelContext`'s attributes are here too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WindowMember {
    /// `window.document.modelContext`.
    ModelContext,
    /// `window.window`.
    Window,
    /// `window.document`.
    Document,
    /// `modelContext.toolsReady` (PR #373).
    ToolsReady,
    /// `window.origin`, serialized.
    Origin,
    /// The names in the document's tool map (the harness's view).
    Tools,
    /// How many pending tool readiness promises the model context holds (the harness's).
    Pending,
    /// Whether the document is fully active (the harness's).
    FullyActive,
}

impl WindowMember {
    pub const ALL: &'static [WindowMember] = &[
        WindowMember::ModelContext,
        WindowMember::Window,
        WindowMember::Document,
        WindowMember::ToolsReady,
        WindowMember::Origin,
        WindowMember::Tools,
        WindowMember::Pending,
        WindowMember::FullyActive,
    ];

    pub fn name(self) -> &'static str {
        match self {
            WindowMember::ModelContext => "modelContext",
            WindowMember::Window => "window",
            WindowMember::Document => "document",
            WindowMember::ToolsReady => "toolsReady",
            WindowMember::Origin => "origin",
            WindowMember::Tools => "tools",
            WindowMember::Pending => "pending",
            WindowMember::FullyActive => "fullyActive",
        }
    }

    pub fn parse(name: &str) -> Option<WindowMember> {
        WindowMember::ALL.iter().copied().find(|m| m.name() == name)
    }

    /// Whether a page's script can read it; the others only the harness can.
    pub fn in_script(self) -> bool {
        match self {
            WindowMember::ModelContext
            | WindowMember::Window
            | WindowMember::Document
            | WindowMember::ToolsReady
            | WindowMember::Origin => true,
            WindowMember::Tools | WindowMember::Pending | WindowMember::FullyActive => false,
        }
    }

    /// Whether a script reading it must be same origin with the document (a cross-origin
    /// `Window` exposes its `origin`... only through `postMessage` in real browsers; the engine
    /// lets scripts read the serialized origin).
    pub fn same_origin_only(self) -> bool {
        self != WindowMember::Origin
    }
}

/// A method of `ModelContext` a script can call (on a document, as scenarios name it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelContextMethod {
    /// `waitForToolsUntil(promise)` (PR #373).
    WaitForToolsUntil,
    /// `registerTool(tool, options)`.
    RegisterTool,
    /// `getTools(options)`.
    GetTools,
    /// `executeTool(tool, input, options)`.
    ExecuteTool,
}

impl ModelContextMethod {
    pub const ALL: &'static [ModelContextMethod] = &[
        ModelContextMethod::WaitForToolsUntil,
        ModelContextMethod::RegisterTool,
        ModelContextMethod::GetTools,
        ModelContextMethod::ExecuteTool,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ModelContextMethod::WaitForToolsUntil => "waitForToolsUntil",
            ModelContextMethod::RegisterTool => "registerTool",
            ModelContextMethod::GetTools => "getTools",
            ModelContextMethod::ExecuteTool => "executeTool",
        }
    }

    pub fn parse(name: &str) -> Option<ModelContextMethod> {
        ModelContextMethod::ALL
            .iter()
            .copied()
            .find(|m| m.name() == name)
    }
}

/// A function or constructor a script may call without declaring it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Global {
    /// `new AbortController()`.
    AbortController,
    /// `AbortSignal.abort(reason)`.
    AbortSignalAbort,
    /// `Promise.resolve(v)`.
    PromiseResolve,
    /// `Promise.reject(e)`.
    PromiseReject,
    /// `new DOMException(message, name)`.
    DomException,
    /// A promise that never settles.
    Pending,
    /// An object that refers to itself (`JSON.stringify` throws).
    Cyclic,
    /// An object whose `toJSON()` returns `undefined`.
    ToJsonUndefined,
    /// An object with a `then` method, whose resolving functions the scenario calls later.
    Thenable,
}

impl Global {
    pub const ALL: &'static [Global] = &[
        Global::AbortController,
        Global::AbortSignalAbort,
        Global::PromiseResolve,
        Global::PromiseReject,
        Global::DomException,
        Global::Pending,
        Global::Cyclic,
        Global::ToJsonUndefined,
        Global::Thenable,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Global::AbortController => "AbortController",
            Global::AbortSignalAbort => "AbortSignal.abort",
            Global::PromiseResolve => "Promise.resolve",
            Global::PromiseReject => "Promise.reject",
            Global::DomException => "DOMException",
            Global::Pending => "Pending",
            Global::Cyclic => "Cyclic",
            Global::ToJsonUndefined => "ToJSONUndefined",
            Global::Thenable => "Thenable",
        }
    }

    pub fn parse(name: &str) -> Option<Global> {
        Global::ALL.iter().copied().find(|g| g.name() == name)
    }

    /// How a script writes it: `Name(args)`, `Object.method(args)`, or a keyword (`pending`).
    pub fn spelling(self) -> Spelling {
        match self {
            Global::AbortSignalAbort | Global::PromiseResolve | Global::PromiseReject => {
                Spelling::Dotted
            }
            Global::Pending => Spelling::Keyword,
            Global::AbortController
            | Global::DomException
            | Global::Cyclic
            | Global::ToJsonUndefined
            | Global::Thenable => Spelling::Call,
        }
    }
}

/// How a script writes a global.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// `AbortController()`.
    Call,
    /// `Promise.resolve(v)`.
    Dotted,
    /// `pending`.
    Keyword,
}

/// Whether `word` names an ECMAScript error constructor or a `DOMException` name, which a
/// script may call as a constructor (`TypeError("x")`, `AbortError()`).
pub fn is_error_name(word: &str) -> bool {
    word.ends_with("Error") && word.chars().next().is_some_and(|c| c.is_ascii_uppercase())
}

/// What an expectation cannot read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HarnessReadError {
    /// A document (its `Window`) has no such member.
    #[error(
        "{value} has no property `{prop}` an expectation can read (a document has {})",
        window_member_names()
    )]
    NoWindowMember { value: String, prop: String },
    /// Any other value has no such member.
    #[error("{value} has no property `{prop}` an expectation can read")]
    NoMember { value: String, prop: String },
}

/// Every member of a document, for messages.
fn window_member_names() -> String {
    WindowMember::ALL
        .iter()
        .map(|m| m.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What kind of value a name of the scenario's holds, as far as its file says before the run:
/// enough to check, when an expectation is parsed, that each member it reads is one the
/// harness can read (as [`harness_get`] would find at run time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A document (its `Window` and `ModelContext`).
    Document,
    /// An `AbortController`.
    Controller,
    /// An `AbortSignal`.
    Signal,
    /// A promise.
    Promise,
    /// An object with a `then` method.
    Thenable,
    Boolean,
    Number,
    String,
    /// An array of names (a document's `tools`).
    Names,
}

impl Shape {
    /// The shape in a message: `a document`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Document => "a document",
            Shape::Controller => "an AbortController",
            Shape::Signal => "an AbortSignal",
            Shape::Promise => "a promise",
            Shape::Thenable => "a thenable",
            Shape::Boolean => "a boolean",
            Shape::Number => "a number",
            Shape::String => "a string",
            Shape::Names => "an array of names",
        }
    }

    /// The members an expectation can read, and the shape of each (`None`: not known before
    /// the run).
    fn members(self) -> Vec<(&'static str, Option<Shape>)> {
        match self {
            Shape::Document => WindowMember::ALL
                .iter()
                .map(|m| {
                    let shape = match m {
                        WindowMember::ModelContext
                        | WindowMember::Window
                        | WindowMember::Document => Shape::Document,
                        WindowMember::ToolsReady | WindowMember::FullyActive => Shape::Boolean,
                        WindowMember::Origin => Shape::String,
                        WindowMember::Tools => Shape::Names,
                        WindowMember::Pending => Shape::Number,
                    };
                    (m.name(), Some(shape))
                })
                .collect(),
            Shape::Controller => vec![("signal", Some(Shape::Signal))],
            Shape::Signal => vec![("aborted", Some(Shape::Boolean)), ("reason", None)],
            Shape::Promise => vec![("state", Some(Shape::String))],
            Shape::String | Shape::Names => vec![("length", Some(Shape::Number))],
            Shape::Thenable | Shape::Boolean | Shape::Number => Vec::new(),
        }
    }

    /// The shape of `prop` of a value of this shape as an expectation reads it (`Ok(None)`:
    /// not known before the run), or why the harness cannot read it.
    pub fn member(self, prop: &str) -> Result<Option<Shape>, String> {
        let members = self.members();
        if let Some((_, shape)) = members.iter().find(|(name, _)| *name == prop) {
            return Ok(*shape);
        }
        let names: Vec<&str> = members.iter().map(|(name, _)| *name).collect();
        Err(if names.is_empty() {
            "it has no property an expectation can read".to_string()
        } else {
            format!("it has {}", names.join(", "))
        })
    }

    /// The shape of an element of a value of this shape (`None`: not known before the run).
    pub fn element(self) -> Option<Shape> {
        match self {
            Shape::Names => Some(Shape::String),
            _ => None,
        }
    }
}

/// Reads `target.prop` as a script in `realm` does: getters run their steps, a cross-origin
/// document cannot be reached, and reading a member of `undefined` or `null` throws.
pub fn script_get<W: ScriptHost>(
    w: &mut W,
    realm: DocumentKey,
    target: &Value,
    prop: &str,
) -> Completion {
    if let Value::Window(d) = target {
        let Some(member) = WindowMember::parse(prop).filter(|m| m.in_script()) else {
            return Ok(Value::Undefined);
        };
        if member.same_origin_only() {
            w.check_access(realm, *d)?;
        }
        return Ok(match member {
            // Without PR #373 (readiness-api=none) there is no such attribute.
            WindowMember::ToolsReady if w.switches().readiness_api == ReadinessApi::None => {
                Value::Undefined
            }
            WindowMember::ToolsReady => Value::Bool(w.tools_ready_getter(*d)),
            WindowMember::ModelContext => {
                step!(w, DOCUMENT_MODEL_CONTEXT_GETTER, "1", Some(*d));
                Value::Window(*d)
            }
            other => window_member(w, *d, other),
        });
    }
    match value_member(w, target, prop, false) {
        Some(v) => Ok(v),
        None => match target {
            Value::Undefined | Value::Null => Err(Value::error(ErrorValue::type_error(format!(
                "cannot read property {prop:?} of {}",
                w.display_value(target)
            )))),
            _ => Ok(Value::Undefined),
        },
    }
}

/// Reads `target.prop` for an expectation: no algorithm step runs, and a member nothing can
/// read is an error (so that a misspelt member is not silently `undefined`).
pub fn harness_get<W: ScriptHost>(
    w: &W,
    target: &Value,
    prop: &str,
) -> Result<Value, HarnessReadError> {
    if let Value::Window(d) = target {
        return match WindowMember::parse(prop) {
            Some(member) => Ok(window_member(w, *d, member)),
            None => Err(HarnessReadError::NoWindowMember {
                value: w.describe_value(target),
                prop: prop.into(),
            }),
        };
    }
    value_member(w, target, prop, true).ok_or_else(|| HarnessReadError::NoMember {
        value: w.describe_value(target),
        prop: prop.into(),
    })
}

/// A member of a document's `Window`, read without running the getter's steps.
fn window_member<W: ScriptHost>(w: &W, d: DocumentKey, member: WindowMember) -> Value {
    match member {
        WindowMember::ModelContext | WindowMember::Window | WindowMember::Document => {
            Value::Window(d)
        }
        WindowMember::ToolsReady => Value::Bool(w.tools_ready(d)),
        WindowMember::Origin => Value::string(w.document(d).origin.serialize()),
        WindowMember::Tools => {
            Value::Array(w.tool_names(d).into_iter().map(Value::String).collect())
        }
        WindowMember::Pending => Value::number(w.pending_tool_readiness_promises(d) as f64),
        WindowMember::FullyActive => Value::Bool(w.is_fully_active(d)),
    }
}

/// A member of a value that is not a `Window`; `harness` adds what only the harness can read
/// (a promise's state).
fn value_member<W: ScriptHost>(w: &W, target: &Value, prop: &str, harness: bool) -> Option<Value> {
    Some(match (target, prop) {
        (Value::Controller(s), "signal") => Value::Signal(*s),
        (Value::Signal(s), "aborted") => Value::Bool(w.signal(*s).aborted),
        (Value::Signal(s), "reason") => w.signal(*s).reason.clone(),
        (Value::Error(e), "name") => Value::string(&e.name),
        (Value::Error(e), "message") => Value::string(&e.message),
        (Value::Array(items), "length") => Value::number(items.len() as f64),
        (Value::String(s), "length") => Value::number(s.encode_utf16().count() as f64),
        (Value::Promise(p), "state") if harness => Value::string(w.promise_state(*p).name()),
        (Value::Event(e), _) => return w.event_member(*e, prop),
        (Value::Object(_), _) => target.get(prop).cloned().unwrap_or(Value::Undefined),
        _ => return None,
    })
}

/// Calls `target.method(args)` as a script in `realm` does.
pub fn call_method<W: ScriptHost>(
    w: &mut W,
    realm: DocumentKey,
    target: Value,
    method: &str,
    args: Vec<Value>,
) -> Completion {
    let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Undefined);
    match (&target, method) {
        (Value::Window(d), _) => {
            let d = *d;
            w.check_access(realm, d)?;
            let exists = |m: &ModelContextMethod| {
                *m != ModelContextMethod::WaitForToolsUntil
                    || w.switches().readiness_api == ReadinessApi::Pr373
            };
            let Some(method) = ModelContextMethod::parse(method).filter(exists) else {
                return Err(type_error(format!(
                    "modelContext.{method} is not a function"
                )));
            };
            Ok(match method {
                ModelContextMethod::WaitForToolsUntil => {
                    w.wait_for_tools_until(d, arg(0));
                    Value::Undefined
                }
                ModelContextMethod::RegisterTool => {
                    Value::Promise(w.register_tool(d, arg(0), arg(1)))
                }
                ModelContextMethod::GetTools => Value::Promise(w.get_tools(d, arg(0))),
                ModelContextMethod::ExecuteTool => {
                    Value::Promise(w.execute_tool(d, arg(0), arg(1), arg(2)))
                }
            })
        }
        (Value::Event(e), "respondWith") if w.event_member(*e, "agentInvoked").is_some() => w
            .submit_event_respond_with(*e, arg(0))
            .map(|()| Value::Undefined)
            .map_err(Value::error),
        (Value::Event(e), _) if w.event_method(*e, method) => Ok(Value::Undefined),
        (Value::Controller(s), "abort") => {
            w.signal_abort(*s, Some(arg(0)));
            Ok(Value::Undefined)
        }
        _ => Err(type_error(format!(
            "{}.{method} is not a function",
            w.describe_value(&target)
        ))),
    }
}

/// `target[index]`: an array's element, an array's element with that `name`, an object's
/// property; `None` when the value cannot be indexed so.
pub fn index(target: &Value, index: &Value) -> Option<Value> {
    Some(match (target, index) {
        (Value::Array(items), Value::Number(n)) => {
            items.get(n.0 as usize).cloned().unwrap_or(Value::Undefined)
        }
        // An array indexed by a string finds the element with that `name`.
        (Value::Array(items), Value::String(s)) => items
            .iter()
            .find(|i| i.get("name") == Some(&Value::String(s.clone())))
            .cloned()
            .unwrap_or(Value::Undefined),
        (Value::Object(_), Value::String(s)) => target.get(s).cloned().unwrap_or(Value::Undefined),
        _ => return None,
    })
}

/// What a global builds when it only builds a value, with no effect on the world (an error,
/// an object `JSON.stringify` cannot serialize); `None` for a global that acts on the world.
fn pure_value<W: ScriptHost>(
    w: &W,
    global: Option<Global>,
    name: &str,
    args: &[Value],
) -> Option<Value> {
    let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Undefined);
    let text = |v: Value| match v {
        Value::Undefined => String::new(),
        Value::String(s) => s,
        other => w.display_value(&other),
    };
    match global {
        Some(Global::DomException) => {
            let message = text(arg(0));
            let name = match arg(1) {
                Value::Undefined => "Error".to_string(),
                other => text(other),
            };
            Some(Value::error(ErrorValue::dom(&name, message)))
        }
        Some(Global::Cyclic) => Some(Value::Unserializable(Unserializable::Circular)),
        Some(Global::ToJsonUndefined) => {
            Some(Value::Unserializable(Unserializable::ToJsonUndefined))
        }
        Some(
            Global::AbortController
            | Global::AbortSignalAbort
            | Global::PromiseResolve
            | Global::PromiseReject
            | Global::Pending
            | Global::Thenable,
        ) => None,
        None if is_error_name(name) => Some(Value::error(ErrorValue::named(name, text(arg(0))))),
        None => None,
    }
}

/// The globals an expectation may call: those that only build a value. `None` for any other.
pub fn build_value<W: ScriptHost>(w: &W, name: &str, args: &[Value]) -> Option<Value> {
    pure_value(w, Global::parse(name), name, args)
}

/// Calls a global function or constructor as a script in `realm` does.
pub fn call_global<W: ScriptHost>(
    w: &mut W,
    realm: DocumentKey,
    name: &str,
    args: Vec<Value>,
) -> Completion {
    let global = Global::parse(name);
    if let Some(value) = pure_value(w, global, name, &args) {
        return Ok(value);
    }
    let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Undefined);
    let Some(global) = global else {
        return Err(type_error(format!("{name} is not defined")));
    };
    Ok(match global {
        Global::AbortController => Value::Controller(w.new_abort_controller(realm, "controller")),
        Global::AbortSignalAbort => {
            let s = w.new_abort_controller(realm, "AbortSignal.abort()");
            w.signal_abort(s, Some(arg(0)));
            Value::Signal(s)
        }
        Global::PromiseResolve => Value::Promise(w.promise_resolve(realm, arg(0))),
        Global::PromiseReject => {
            let p = w.new_promise(realm);
            w.reject_promise(p, arg(0));
            Value::Promise(p)
        }
        // `pure_value` built these.
        Global::DomException | Global::Cyclic | Global::ToJsonUndefined => {
            return Err(type_error(format!("{name} could not be built")))
        }
        Global::Pending => Value::Promise(w.new_promise(realm)),
        Global::Thenable => Value::Thenable(w.new_thenable(realm, "thenable", ThenBehaviour::Keep)),
    })
}

pub(crate) fn type_error(message: String) -> Value {
    Value::error(ErrorValue::type_error(message))
}
