//! The platform's objects as the page script and the scenario's expectations see them: which
//! members each can read or call, written once. The interpreter reads them as a script does
//! (running the getter's steps, same-origin checks, exceptions), the scenario's expectations
//! as the harness does (no step runs, and a member nothing can read is an error), and the WPT
//! exporter writes each as real JavaScript.

use super::interpreter::Interpreter;
use super::ScriptHost;
use crate::host::abort::Abort;
use crate::host::dom::attributes::Attributes;
use crate::host::dom::parser::Parsing;
use crate::host::dom::tree::Tree;
use crate::host::dom::Dispatch;
use crate::host::forms::input::Controls;
use crate::host::forms::reset::Resetting;
use crate::host::forms::select::Selects;
use crate::host::forms::submission::Submission;
use crate::host::keys::{DocumentKey, NodeKey};
use crate::host::promise::ThenBehaviour;
use crate::host::value::{ErrorValue, Facet, PlatformObject, Unserializable, Value};
use crate::host::webidl::to_boolean;
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
    /// `window.originAgentCluster` (HTML): whether its agent cluster is origin-keyed.
    OriginAgentCluster,
    /// `document.body`.
    Body,
    /// `document.implementation`.
    Implementation,
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
        WindowMember::OriginAgentCluster,
        WindowMember::Body,
        WindowMember::Implementation,
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
            WindowMember::OriginAgentCluster => "originAgentCluster",
            WindowMember::Body => "body",
            WindowMember::Implementation => "implementation",
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
            | WindowMember::Origin
            | WindowMember::OriginAgentCluster
            | WindowMember::Body
            | WindowMember::Implementation => true,
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

    /// How many arguments the IDL declares required (not `optional`).
    pub fn required_arguments(self) -> usize {
        match self {
            ModelContextMethod::GetTools => 0,
            ModelContextMethod::WaitForToolsUntil
            | ModelContextMethod::RegisterTool
            | ModelContextMethod::ExecuteTool => 1,
        }
    }

    /// Whether the operation returns a promise (Web IDL then rejects it instead of throwing).
    pub fn returns_promise(self) -> bool {
        self != ModelContextMethod::WaitForToolsUntil
    }

    fn errors_method(self) -> crate::webmcp::errors::Method {
        use crate::webmcp::errors::Method;
        match self {
            ModelContextMethod::WaitForToolsUntil => Method::WaitForToolsUntil,
            ModelContextMethod::RegisterTool => Method::RegisterTool,
            ModelContextMethod::GetTools => Method::GetTools,
            ModelContextMethod::ExecuteTool => Method::ExecuteTool,
        }
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
    /// `new DOMParser()`.
    DomParser,
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
        Global::DomParser,
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
            Global::DomParser => "DOMParser",
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
            | Global::Thenable
            | Global::DomParser => Spelling::Call,
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
                        WindowMember::ToolsReady
                        | WindowMember::FullyActive
                        | WindowMember::OriginAgentCluster => Shape::Boolean,
                        WindowMember::Origin => Shape::String,
                        WindowMember::Tools => Shape::Names,
                        WindowMember::Pending => Shape::Number,
                        WindowMember::Body | WindowMember::Implementation => {
                            return (m.name(), None)
                        }
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
    let target = &w.through_window_proxy(target);
    if let Value::Window(d, _) = target {
        let Some(member) = WindowMember::parse(prop).filter(|m| m.in_script()) else {
            return Ok(Value::Undefined);
        };
        if member.same_origin_only() {
            w.check_access(realm, *d)?;
        }
        // `document.modelContext` is [SecureContext]: outside a secure context it does not
        // exist, and what a script reads through it throws.
        if !w.document(*d).secure_context {
            return match member {
                WindowMember::ModelContext => Ok(Value::Undefined),
                WindowMember::ToolsReady => Err(not_exposed(w, *d, prop)),
                _ => Ok(window_member(w, *d, member)),
            };
        }
        return Ok(match member {
            // Without PR #373 (readiness-api=none) there is no such attribute.
            WindowMember::ToolsReady if w.switches().readiness_api == ReadinessApi::None => {
                Value::Undefined
            }
            WindowMember::ToolsReady => Value::Bool(w.tools_ready_getter(*d)),
            WindowMember::ModelContext => {
                step!(w, DOCUMENT_MODEL_CONTEXT_GETTER, "1", Some(*d));
                Value::Window(*d, Facet::ModelContext)
            }
            other => window_member(w, *d, other),
        });
    }
    if let Value::Platform(PlatformObject::ComputedStyle(_, n)) = target {
        return computed_style_member(w, *n, prop, false);
    }
    if let Some(d) = frameless_model_context(w, target, prop) {
        if !w.document(d).secure_context {
            return Ok(Value::Undefined);
        }
        step!(w, DOCUMENT_MODEL_CONTEXT_GETTER, "1", Some(d));
        return Ok(Value::Window(d, Facet::ModelContext));
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

/// The document whose `modelContext` `target.prop` reads, when the target is the node of a
/// document without a browsing context (`createHTMLDocument()`, `DOMParser`): the partial
/// interface is on every Document, and such a document's methods find it not fully active.
fn frameless_model_context<W: ScriptHost>(
    w: &W,
    target: &Value,
    prop: &str,
) -> Option<DocumentKey> {
    match target {
        Value::Node(n) if prop == "modelContext" && w.is_document_node(*n) => {
            Some(w.node_document(*n))
        }
        _ => None,
    }
}

/// Reads `target.prop` for an expectation: no algorithm step runs, and a member nothing can
/// read is an error (so that a misspelt member is not silently `undefined`).
pub fn harness_get<W: ScriptHost>(
    w: &W,
    target: &Value,
    prop: &str,
) -> Result<Value, HarnessReadError> {
    let target = &w.through_window_proxy(target);
    if let Value::Window(d, _) = target {
        return match WindowMember::parse(prop) {
            Some(member) => Ok(window_member(w, *d, member)),
            None => Err(HarnessReadError::NoWindowMember {
                value: w.describe_value(target),
                prop: prop.into(),
            }),
        };
    }
    if let Some(d) = frameless_model_context(w, target, prop) {
        return Ok(match w.document(d).secure_context {
            true => Value::Window(d, Facet::ModelContext),
            false => Value::Undefined,
        });
    }
    value_member(w, target, prop, true).ok_or_else(|| HarnessReadError::NoMember {
        value: w.describe_value(target),
        prop: prop.into(),
    })
}

/// `style[prop]` or `style.getPropertyValue(prop)` of `getComputedStyle(element)`: the resolved
/// value of a property the engine models (`backgroundColor` or `background-color`); a
/// property CSS has that the engine does not compute is an error saying so; any other name is
/// `undefined` as a member and `""` through `getPropertyValue()`, as in a browser.
fn computed_style_member<W: ScriptHost>(
    w: &W,
    n: NodeKey,
    prop: &str,
    by_method: bool,
) -> Completion {
    // getPropertyValue() takes the dashed name, ASCII-lowercased (CSSOM); a member may be
    // camel-cased too.
    let name = if by_method {
        prop.to_ascii_lowercase()
    } else {
        crate::host::dom::style::property_name(prop)
    };
    match w.computed_value(n, &name) {
        Ok(v) => Ok(Value::String(v)),
        Err(e) if crate::host::dom::style::is_known_css_property(&name) => Err(Value::error(
            ErrorValue::dom("NotSupportedError", e.to_string()),
        )),
        Err(_) if by_method => Ok(Value::string("")),
        Err(_) => Ok(Value::Undefined),
    }
}

/// A member of a document's `Window`, read without running the getter's steps.
fn window_member<W: ScriptHost>(w: &W, d: DocumentKey, member: WindowMember) -> Value {
    match member {
        WindowMember::ModelContext => Value::Window(d, Facet::ModelContext),
        WindowMember::Window => Value::Window(d, Facet::Window),
        WindowMember::Document => Value::Window(d, Facet::Document),
        WindowMember::ToolsReady => Value::Bool(w.tools_ready(d)),
        WindowMember::Origin => Value::string(w.document(d).origin.serialize()),
        WindowMember::OriginAgentCluster => Value::Bool(w.is_origin_keyed(d)),
        WindowMember::Body => w.body(d).map(Value::Node).unwrap_or(Value::Null),
        WindowMember::Implementation => Value::Platform(PlatformObject::DomImplementation(d)),
        // In code unit order, as getTools() lists them (step 8.4): the tool map's own order is
        // not something a page can see, and an exported test reads the names from getTools().
        WindowMember::Tools => {
            let mut names = w.tool_names(d);
            names.sort_by(|a, b| crate::text::js_string::cmp_code_units(a, b));
            Value::Array(names.into_iter().map(Value::String).collect())
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
        (Value::String(s), "length") => Value::number(crate::text::js_string::length(s) as f64),
        (Value::Promise(p), "state") if harness => Value::string(w.promise_state(*p).name()),
        (Value::Event(e), _) => return w.event_member(*e, prop),
        // A document's node (one without a browsing context, as script holds it).
        (Value::Node(n), "body") if w.is_document_node(*n) => w
            .body(w.node_document(*n))
            .map(Value::Node)
            .unwrap_or(Value::Null),
        (Value::Node(n), _) if element_attribute(w, *n, prop).is_some() => {
            element_member(w, *n, prop)
        }
        // An element without that IDL attribute: no such property, `undefined`.
        (Value::Node(n), _) if w.element(*n).is_some() && ELEMENT_MEMBERS.contains(&prop) => {
            Value::Undefined
        }
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
    let target = w.through_window_proxy(&target);
    let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Undefined);
    match (&target, method) {
        (Value::Window(d, _), "querySelector") => {
            w.check_access(realm, *d)?;
            query_selector(w, *d, &arg(0))
        }
        (Value::Window(d, _), "getComputedStyle") => {
            w.check_access(realm, *d)?;
            match arg(0) {
                Value::Node(n) if w.element(n).is_some() => {
                    Ok(Value::Platform(PlatformObject::ComputedStyle(*d, n)))
                }
                _ => Err(type_error(
                    "Failed to execute 'getComputedStyle' on 'Window': parameter 1 is not of type 'Element'.".to_string(),
                )),
            }
        }
        (Value::Platform(PlatformObject::ComputedStyle(_, n)), "getPropertyValue") => {
            computed_style_member(w, *n, &arg(0).to_js_string(), true)
        }
        (Value::Window(d, _), "createElement") => {
            w.check_access(realm, *d)?;
            create_element(w, *d, &arg(0))
        }
        (Value::Window(d, _), "importNode" | "adoptNode") => {
            w.check_access(realm, *d)?;
            document_method(w, *d, method, &args)
        }
        (Value::Platform(PlatformObject::DomImplementation(d)), "createHTMLDocument") => {
            let title = match arg(0) {
                Value::Undefined => None,
                other => Some(other.to_js_string()),
            };
            w.create_html_document(*d, title.as_deref())
                .map(Value::Node)
                .map_err(dom_error)
        }
        (Value::Platform(PlatformObject::DomParser(d)), "parseFromString") => {
            if args.len() < 2 {
                return Err(type_error(format!(
                    "Failed to execute 'parseFromString' on 'DOMParser': 2 arguments required, but only {} present.",
                    args.len()
                )));
            }
            // The type is a DOMParserSupportedType: an enum value, or a TypeError. The engine
            // parses HTML only.
            match arg(1).to_js_string().as_str() {
                "text/html" => w
                    .parse_from_string(*d, &arg(0).to_js_string())
                    .map(Value::Node)
                    .map_err(dom_error),
                "text/xml" | "application/xml" | "application/xhtml+xml" | "image/svg+xml" => {
                    Err(Value::error(ErrorValue::dom(
                        "NotSupportedError",
                        "the engine parses text/html only, not XML".to_string(),
                    )))
                }
                other => Err(type_error(format!(
                    "Failed to execute 'parseFromString' on 'DOMParser': The provided value '{other}' is not a valid enum value of type DOMParserSupportedType."
                ))),
            }
        }
        (Value::Node(n), _) => {
            let n = *n;
            let doc = w.node_document(n);
            w.check_access(realm, doc)?;
            if w.is_document_node(n) {
                return match method {
                    "querySelector" => query_selector(w, doc, &arg(0)),
                    "createElement" => create_element(w, doc, &arg(0)),
                    _ => document_method(w, doc, method, &args),
                };
            }
            element_method(w, n, method, &args)
        }
        (Value::Window(d, _), _) => {
            let d = *d;
            w.check_access(realm, d)?;
            let exists = |m: &ModelContextMethod| {
                *m != ModelContextMethod::WaitForToolsUntil
                    || w.switches().readiness_api == ReadinessApi::Pr373
            };
            if !w.document(d).secure_context {
                return Err(not_exposed(w, d, method));
            }
            let Some(method) = ModelContextMethod::parse(method).filter(exists) else {
                return Err(type_error(format!(
                    "modelContext.{method} is not a function"
                )));
            };
            // Web IDL's operation steps: fewer arguments than the operation requires is a
            // TypeError, before any is converted; an operation that returns a promise rejects
            // with it instead of throwing.
            let required = method.required_arguments();
            if args.len() < required {
                let error = w.conversion_rejection(
                    method.errors_method(),
                    ErrorValue::type_error(format!(
                        "{required} argument required, but only {} present.",
                        args.len()
                    )),
                );
                if method.returns_promise() {
                    return Ok(Value::Promise(w.promise_rejected_with(d, error)));
                }
                return Err(Value::error(error));
            }
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

/// A method of an element a script can call (the few the declarative tests need).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementMethod {
    /// `setAttribute(name, value)`.
    SetAttribute,
    /// `removeAttribute(name)`.
    RemoveAttribute,
    /// `remove()`.
    Remove,
    /// `matches(selectors)`.
    Matches,
    /// `form.submit()`.
    Submit,
    /// `form.requestSubmit()`.
    RequestSubmit,
    /// `form.reset()`.
    Reset,
    /// `click()` (untrusted, as a script's).
    Click,
    /// `appendChild(node)`.
    AppendChild,
    /// `removeChild(child)`.
    RemoveChild,
}

impl ElementMethod {
    pub const ALL: &'static [ElementMethod] = &[
        ElementMethod::SetAttribute,
        ElementMethod::RemoveAttribute,
        ElementMethod::Remove,
        ElementMethod::Matches,
        ElementMethod::Submit,
        ElementMethod::RequestSubmit,
        ElementMethod::Reset,
        ElementMethod::Click,
        ElementMethod::AppendChild,
        ElementMethod::RemoveChild,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ElementMethod::SetAttribute => "setAttribute",
            ElementMethod::RemoveAttribute => "removeAttribute",
            ElementMethod::Remove => "remove",
            ElementMethod::Matches => "matches",
            ElementMethod::Submit => "submit",
            ElementMethod::RequestSubmit => "requestSubmit",
            ElementMethod::Reset => "reset",
            ElementMethod::Click => "click",
            ElementMethod::AppendChild => "appendChild",
            ElementMethod::RemoveChild => "removeChild",
        }
    }

    pub fn parse(name: &str) -> Option<ElementMethod> {
        ElementMethod::ALL
            .iter()
            .copied()
            .find(|m| m.name() == name)
    }

    /// The arguments the IDL declares required, by name (the parser checks the count).
    pub fn arguments(self) -> &'static [&'static str] {
        match self {
            ElementMethod::SetAttribute => &["name", "value"],
            ElementMethod::RemoveAttribute => &["name"],
            ElementMethod::Matches => &["selectors"],
            ElementMethod::AppendChild => &["node"],
            ElementMethod::RemoveChild => &["child"],
            ElementMethod::Remove
            | ElementMethod::Submit
            | ElementMethod::RequestSubmit
            | ElementMethod::Reset
            | ElementMethod::Click => &[],
        }
    }

    /// Whether only a `form` element has it.
    fn form_only(self) -> bool {
        matches!(
            self,
            ElementMethod::Submit | ElementMethod::RequestSubmit | ElementMethod::Reset
        )
    }
}

/// The members of an element a script or an expectation can read, and a script can set
/// (`E.value = "x"`): IDL attributes of HTML's elements, on the elements that have them.
pub const ELEMENT_MEMBERS: &[&str] = &[
    "value",
    "defaultValue",
    "checked",
    "defaultChecked",
    "indeterminate",
    "selected",
    "defaultSelected",
    "disabled",
    "required",
    "readOnly",
    "multiple",
    "id",
    "name",
    "textContent",
    "innerHTML",
];

/// What an element's IDL attribute is, for the elements that have it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ElementAttribute {
    /// `value` (its getter and setter are the control's).
    Value,
    /// `defaultValue`.
    DefaultValue,
    /// `checked`, `indeterminate`, `selected`: state of the control, not an attribute.
    Checked,
    Indeterminate,
    Selected,
    /// A boolean that reflects a content attribute (`disabled`, `readOnly` -> `readonly`,
    /// `defaultChecked` -> `checked`, `defaultSelected` -> `selected`...).
    ReflectBool(&'static str),
    /// A `DOMString` that reflects a content attribute (`id`, `name`).
    ReflectString(&'static str),
    /// `textContent` (Node).
    TextContent,
    /// `innerHTML` (Element): the fragment serialization, and setting it parses a fragment.
    InnerHtml,
}

/// The IDL attribute `prop` of `node`, when its interface has it.
///
/// <https://html.spec.whatwg.org/multipage/input.html#the-input-element> and the other
/// elements' IDL blocks; `id` (Element) and `textContent` (Node) are DOM's.
fn element_attribute<W: ScriptHost>(w: &W, node: NodeKey, prop: &str) -> Option<ElementAttribute> {
    use ElementAttribute::*;
    if prop == "textContent" {
        return Some(TextContent);
    }
    w.element(node)?;
    let name = w.html_name(node).unwrap_or("");
    let is = |names: &[&str]| names.contains(&name);
    Some(match prop {
        "id" => ReflectString("id"),
        "innerHTML" => InnerHtml,
        "value" if is(&["input", "textarea", "select", "option", "button", "output"]) => Value,
        "defaultValue" if is(&["input", "textarea", "output"]) => DefaultValue,
        "checked" if is(&["input"]) => Checked,
        "indeterminate" if is(&["input"]) => Indeterminate,
        "defaultChecked" if is(&["input"]) => ReflectBool("checked"),
        "selected" if is(&["option"]) => Selected,
        "defaultSelected" if is(&["option"]) => ReflectBool("selected"),
        "disabled"
            if is(&[
                "button", "fieldset", "input", "optgroup", "option", "select", "textarea",
            ]) =>
        {
            ReflectBool("disabled")
        }
        "required" if is(&["input", "select", "textarea"]) => ReflectBool("required"),
        "readOnly" if is(&["input", "textarea"]) => ReflectBool("readonly"),
        "multiple" if is(&["input", "select"]) => ReflectBool("multiple"),
        "name"
            if is(&[
                "button", "fieldset", "form", "iframe", "input", "output", "select", "textarea",
            ]) =>
        {
            ReflectString("name")
        }
        _ => return None,
    })
}

/// The getter of an element's IDL attribute (one [`element_attribute`] found).
fn element_member<W: ScriptHost>(w: &W, node: NodeKey, prop: &str) -> Value {
    use ElementAttribute as A;
    match element_attribute(w, node, prop) {
        Some(A::Value) => Value::string(w.value(node)),
        Some(A::DefaultValue) => Value::string(w.default_value(node)),
        Some(A::Checked) => Value::Bool(w.checkedness(node)),
        Some(A::Indeterminate) => Value::Bool(w.indeterminate(node)),
        Some(A::Selected) => Value::Bool(w.selectedness(node)),
        Some(A::ReflectBool(attr)) => Value::Bool(w.has_attribute(node, attr)),
        Some(A::ReflectString(attr)) => Value::string(w.attribute(node, attr).unwrap_or("")),
        // A document or a doctype's textContent is null.
        Some(A::TextContent) => w.text_content(node).map_or(Value::Null, Value::String),
        Some(A::InnerHtml) => Value::String(w.inner_html(node)),
        None => Value::Undefined,
    }
}

/// `target.member = value` as a script runs it: the setter of an element's IDL attribute
/// (the value converted as the attribute's type: ToString for a `DOMString`, with `null` as
/// `""` where the IDL says `[LegacyNullToEmptyString]` or the type is nullable, ToBoolean for a
/// `boolean`).
///
/// A member no setter covers is a TypeError that says so: the engine's plain objects and
/// arrays keep the members they were made with (an object shared by two names is one object,
/// and setting a member would have to change it for both, which the engine's values cannot), so
/// a member of one cannot be set; a platform object's other attributes are not modelled.
pub fn set_member<W: ScriptHost>(
    w: &mut W,
    target: &Value,
    member: &str,
    value: Value,
) -> Result<(), Value> {
    use ElementAttribute as A;
    let node = match target {
        Value::Node(n) => *n,
        // A plain object's members are set by the interpreter (see `heap`).
        Value::Object(_) | Value::Array(_) => {
            return Err(type_error(format!(
                "cannot set `{member}` of an array: the engine's arrays hold their elements only (a plain object's members can be set)"
            )))
        }
        Value::Undefined | Value::Null => {
            return Err(type_error(format!(
                "Cannot set properties of {} (setting '{member}')",
                w.describe_value(target)
            )))
        }
        // An event handler IDL attribute has a statement of its own.
        Value::Window(..) if member.starts_with("on") => {
            return Err(type_error(format!(
                "cannot set `{member}` of {} this way: an event handler attribute is set with `set DOC.{member}:` and a block, or `set DOC.{member} = null`",
                w.describe_value(target)
            )))
        }
        other => {
            return Err(type_error(format!(
                "cannot set `{member}` of {}: the engine models no setter for it",
                w.describe_value(other)
            )))
        }
    };
    let Some(attribute) = element_attribute(w, node, member) else {
        return Err(type_error(format!(
            "cannot set `{member}` of {}: the engine models no such IDL attribute of it (it sets {})",
            w.describe_value(target),
            ELEMENT_MEMBERS.join(", ")
        )));
    };
    let legacy_null_to_empty = matches!(w.html_name(node), Some("input") | Some("textarea"));
    let string = |v: &Value, null_is_empty: bool| match v {
        Value::Null if null_is_empty => String::new(),
        other => other.to_js_string(),
    };
    match attribute {
        A::Value => w
            .set_value(node, &string(&value, legacy_null_to_empty))
            .map_err(dom_error)?,
        A::DefaultValue => w
            .set_default_value(node, &string(&value, legacy_null_to_empty))
            .map_err(dom_error)?,
        A::Checked => w.set_checked(node, to_boolean(&value)),
        A::Indeterminate => w.set_indeterminate(node, to_boolean(&value)),
        A::Selected => w.set_selectedness(node, to_boolean(&value)),
        A::ReflectBool(attr) => {
            if to_boolean(&value) {
                w.set_attribute(node, attr, "").map_err(dom_error)?
            } else {
                w.remove_attribute(node, attr).map_err(dom_error)?
            }
        }
        A::ReflectString(attr) => w
            .set_attribute(node, attr, &string(&value, false))
            .map_err(dom_error)?,
        // `DOMString?`: null is the empty string.
        A::TextContent => w.set_text_content(node, &string(&value, true)),
        // `[LegacyNullToEmptyString]`; the markup parsed as a fragment in the element's
        // context replaces its children.
        A::InnerHtml => w
            .set_inner_html(node, &string(&value, true))
            .map_err(dom_error)?,
    }
    Ok(())
}

/// `document.querySelector(selectors)`: the first element of the document's tree, in tree
/// order, that matches; `null` when none does; a `SyntaxError` for selectors that do not
/// parse. Nothing runs, so an expectation can read it too.
pub fn query_selector<W: ScriptHost>(w: &W, d: DocumentKey, selectors: &Value) -> Completion {
    let selectors = selectors.to_js_string();
    let Some(root) = w.document_node(d) else {
        // A document without a tree yet: no element to match.
        return Ok(Value::Null);
    };
    match w.query_selector(root, &selectors) {
        Ok(found) => Ok(found.map(Value::Node).unwrap_or(Value::Null)),
        Err(e) => Err(Value::error(ErrorValue::dom(
            "SyntaxError",
            format!("'{}' is not a valid selector: {}", e.selector, e.reason),
        ))),
    }
}

/// `document.createElement(localName)`: a new HTML element of the document, in no tree; an
/// `InvalidCharacterError` for a name that is not a valid element name.
pub fn create_element<W: ScriptHost>(w: &mut W, d: DocumentKey, name: &Value) -> Completion {
    match w.create_element(d, &name.to_js_string()) {
        Ok(n) => Ok(Value::Node(n)),
        Err(e) => Err(Value::error(ErrorValue::dom(
            e.exception_name(),
            e.to_string(),
        ))),
    }
}

fn dom_error(e: crate::host::dom::DomError) -> Value {
    Value::error(ErrorValue::dom(e.exception_name(), e.to_string()))
}

/// The argument Web IDL converts to a `Node`, or the TypeError it throws.
fn node_argument(args: &[Value], method: &str, interface: &str) -> Result<NodeKey, Value> {
    match args.first() {
        Some(Value::Node(n)) => Ok(*n),
        _ => Err(type_error(format!(
            "Failed to execute '{method}' on '{interface}': parameter 1 is not of type 'Node'."
        ))),
    }
}

/// A method of a `Document` (other than `querySelector` and `createElement`) as a script
/// calls it: `importNode(node, subtree)` clones the node into the document, `adoptNode(node)`
/// moves it there.
///
/// <https://dom.spec.whatwg.org/#dom-document-importnode>,
/// <https://dom.spec.whatwg.org/#dom-document-adoptnode>
fn document_method<W: ScriptHost>(
    w: &mut W,
    d: DocumentKey,
    method: &str,
    args: &[Value],
) -> Completion {
    let import = match method {
        "importNode" => true,
        "adoptNode" => false,
        _ => return Err(type_error(format!("document.{method} is not a function"))),
    };
    let node = node_argument(args, method, "Document")?;
    // 1 (of both). A document (or a shadow root, which the engine has not) is neither
    // imported nor adopted.
    if w.is_document_node(node) {
        return Err(Value::error(ErrorValue::dom(
            "NotSupportedError",
            format!(
                "a document cannot be {}",
                if import { "imported" } else { "adopted" }
            ),
        )));
    }
    if import {
        // 2. A clone of the node, in this document.
        let subtree = args.get(1).is_some_and(crate::host::webidl::to_boolean);
        return w
            .clone_node(node, d, subtree)
            .map(Value::Node)
            .map_err(dom_error);
    }
    // 3. Adopt it; 4. return it.
    w.adopt(node, d);
    Ok(Value::Node(node))
}

/// Calls an element's method as a script does.
fn element_method<W: ScriptHost>(
    w: &mut W,
    n: crate::host::keys::NodeKey,
    method: &str,
    args: &[Value],
) -> Completion {
    let text = |i: usize| {
        args.get(i)
            .cloned()
            .unwrap_or(Value::Undefined)
            .to_js_string()
    };
    let not_a_function = |w: &W| {
        type_error(format!(
            "{}.{method} is not a function",
            w.describe_value(&Value::Node(n))
        ))
    };
    let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Undefined);
    match method {
        // <https://dom.spec.whatwg.org/#dom-parentnode-queryselector>: among the element's
        // descendants.
        "querySelector" => {
            return match w.query_selector(n, &arg(0).to_js_string()) {
                Ok(found) => Ok(found.map(Value::Node).unwrap_or(Value::Null)),
                Err(e) => Err(Value::error(ErrorValue::dom(
                    "SyntaxError",
                    format!("'{}' is not a valid selector: {}", e.selector, e.reason),
                ))),
            }
        }
        // <https://dom.spec.whatwg.org/#dom-node-clonenode>
        "cloneNode" => {
            let subtree = crate::host::webidl::to_boolean(&arg(0));
            let doc = w.node_document(n);
            return w
                .clone_node(n, doc, subtree)
                .map(Value::Node)
                .map_err(dom_error);
        }
        // <https://dom.spec.whatwg.org/#dom-parentnode-append>: nodes, or strings as text.
        "append" => {
            let doc = w.node_document(n);
            for a in args {
                let node = match a {
                    Value::Node(node) => *node,
                    other => w.create_text(doc, &other.to_js_string()),
                };
                w.append_child(n, node).map_err(dom_error)?;
            }
            return Ok(Value::Undefined);
        }
        _ => {}
    }
    let Some(m) = ElementMethod::parse(method) else {
        return Err(not_a_function(w));
    };
    if m.form_only() && w.html_name(n) != Some("form") {
        return Err(not_a_function(w));
    }
    let required = m.arguments().len();
    if args.len() < required {
        return Err(type_error(format!(
            "Failed to execute '{method}': {required} argument(s) required, but only {} present.",
            args.len()
        )));
    }
    let dom = |e: crate::host::dom::DomError| {
        Value::error(ErrorValue::dom(e.exception_name(), e.to_string()))
    };
    Ok(match m {
        ElementMethod::SetAttribute => {
            w.set_attribute(n, &text(0), &text(1)).map_err(dom)?;
            Value::Undefined
        }
        ElementMethod::RemoveAttribute => {
            w.remove_attribute(n, &text(0)).map_err(dom)?;
            Value::Undefined
        }
        ElementMethod::Remove => {
            w.remove_node(n);
            Value::Undefined
        }
        ElementMethod::Matches => match w.matches(n, &text(0)) {
            Ok(b) => Value::Bool(b),
            Err(e) => {
                return Err(Value::error(ErrorValue::dom(
                    "SyntaxError",
                    format!("'{}' is not a valid selector: {}", e.selector, e.reason),
                )))
            }
        },
        ElementMethod::Submit => {
            w.submit(n);
            Value::Undefined
        }
        ElementMethod::RequestSubmit => {
            w.request_submit(n, None).map_err(dom)?;
            Value::Undefined
        }
        ElementMethod::Reset => {
            w.reset(n);
            Value::Undefined
        }
        ElementMethod::Click => {
            w.click(n, false);
            Value::Undefined
        }
        // Web IDL converts the argument to a `Node` first: anything else is a TypeError.
        ElementMethod::AppendChild | ElementMethod::RemoveChild => {
            let Some(Value::Node(child)) = args.first() else {
                return Err(type_error(format!(
                    "Failed to execute '{method}' on 'Node': parameter 1 is not of type 'Node'."
                )));
            };
            let child = *child;
            if m == ElementMethod::AppendChild {
                w.append_child(n, child).map_err(dom)?;
            } else {
                w.remove_child(n, child).map_err(dom)?;
            }
            Value::Node(child)
        }
    })
}

/// `target[index]`, as JavaScript reads it: the index is a property key (ToPropertyKey), so
/// an array's element is read by an array index, a whole number from 0 written as a number or
/// as its canonical string (`a[1]`, `a["1"]`), and any other number names no element (`a[-1]`
/// and `a[1.5]` are `undefined`); an object's property by its key (`o[1]` is `o["1"]`). Beyond
/// JavaScript, an array indexed by any other string finds the element with that `name`
/// (`tools["search"]`). `None` when the value cannot be indexed so (the page script does not
/// model indexing strings or platform objects).
pub fn index(target: &Value, index: &Value) -> Option<Value> {
    Some(match (target, index) {
        (Value::Array(items), Value::Number(n)) => array_index(n.0)
            .and_then(|i| items.get(i).cloned())
            .unwrap_or(Value::Undefined),
        (Value::Array(items), Value::String(s)) => match canonical_array_index(s) {
            Some(i) => items.get(i).cloned().unwrap_or(Value::Undefined),
            // An array indexed by a string finds the element with that `name`.
            None => items
                .iter()
                .find(|i| matches!(i.get("name"), Some(Value::String(n)) if n == s))
                .cloned()
                .unwrap_or(Value::Undefined),
        },
        (Value::Object(_), Value::String(s)) => target.get(s).cloned().unwrap_or(Value::Undefined),
        (Value::Object(_), Value::Number(n)) => target
            .get(&crate::host::value::number_to_js_string(n.0))
            .cloned()
            .unwrap_or(Value::Undefined),
        _ => return None,
    })
}

/// ECMAScript's array index: a whole number from 0 to 2^32 - 2.
fn array_index(n: f64) -> Option<usize> {
    (n >= 0.0 && n.fract() == 0.0 && n < 4_294_967_295.0).then_some(n as usize)
}

/// A string that is an array index's canonical form (`"0"`, `"12"`; not `"012"`, `"1.0"`).
fn canonical_array_index(s: &str) -> Option<usize> {
    let canonical = s == "0" || (!s.starts_with('0') && s.bytes().all(|b| b.is_ascii_digit()));
    if !canonical || s.is_empty() || s.len() > 10 {
        return None;
    }
    array_index(s.parse::<f64>().ok()?)
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
            | Global::DomParser
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
        Global::DomParser => Value::Platform(PlatformObject::DomParser(realm)),
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

/// What reading `prop` of a document's `modelContext` throws where it is not exposed: the
/// attribute is `[SecureContext]`, so `document.modelContext` is undefined.
///
/// <https://webidl.spec.whatwg.org/#SecureContext>
pub(crate) fn not_exposed<W: ScriptHost>(w: &W, d: DocumentKey, prop: &str) -> Value {
    type_error(format!(
        "Cannot read properties of undefined (reading '{prop}'): {} is not a secure context, so document.modelContext ([SecureContext]) does not exist",
        w.label(d)
    ))
}

pub(crate) fn type_error(message: String) -> Value {
    Value::error(ErrorValue::type_error(message))
}
