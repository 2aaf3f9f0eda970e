//! What WebMCP's methods reject with, in one place.
//!
//! The text names each error (`InvalidStateError`, `SecurityError`, an UnknownError where its
//! Issue boxes ask for something more granular) and never its message. The engine words its
//! own messages, saying which check failed; `error-messages=chromium-156` gives the messages
//! Chromium 156.0.8078 was measured giving instead, word for word, so that a scenario can check
//! what a page running in that browser reads.

use super::switches::ErrorMessages;
use crate::host::value::ErrorValue;

/// A method a rejection comes from, as Blink names it in its TypeError prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    WaitForToolsUntil,
    RegisterTool,
    GetTools,
    ExecuteTool,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::WaitForToolsUntil => "waitForToolsUntil",
            Method::RegisterTool => "registerTool",
            Method::GetTools => "getTools",
            Method::ExecuteTool => "executeTool",
        }
    }
}

/// Why a method rejects.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rejection {
    /// registerTool() 3, getTools() 3, executeTool() 2.
    NotFullyActive,
    /// registerTool() 4, getTools() 4, executeTool() 3.
    NotAllowedToUseTools,
    /// Under agent-cluster-check=origin-keyed, right after the fully-active check: the
    /// agent cluster is not origin-keyed.
    NotOriginKeyed,
    /// registerTool() 8.
    DuplicateName(String),
    /// registerTool() 9: the name, and what is wrong with it.
    InvalidName { name: String, why: String },
    /// registerTool() 10.
    EmptyDescription,
    /// registerTool() 15.1.2.
    BadExposedTo(String),
    /// getTools() 6.1.2.
    BadFromOrigins(String),
    /// executeTool() 5: the tool's origin is not a URL.
    InvalidOrigin(String),
    /// executeTool() 5: the tool's origin is opaque.
    OpaqueOrigin(String),
    /// executeTool() 9 under executetool-input-check=at-step-9: the input is not an object.
    InputNotAnObject,
    /// executeTool() 16.1: the tool's window is not in the caller's traversable.
    NotInPage,
    /// executeTool() 16.1 as Chromium 156 answers it for a tool whose iframe was removed
    /// (executetool-removed-target=invalid-state-error).
    TargetDetached,
    /// executeTool() 16.4: the tool's origin is not its window's.
    OriginMismatch,
    /// executeTool() 16.7 and 16.9: no such tool, or not exposed to the caller.
    NoSuchTool(String),
    /// The tool execute steps' step 3: unregistered after executeTool() found it.
    ToolGone(String),
    /// The completion steps given failure (16.10.4): the tool threw, rejected, or its result
    /// could not be serialized.
    ToolFailed,
    /// The completion steps given failure because the tool's document was unloaded while it
    /// ran (the unloading document cleanup steps, 2.3.2).
    TargetUnloaded,
    /// The completion steps given failure because the input did not parse to an object in
    /// the tool's realm (the imperative execute steps 2-3).
    BadInput,
    /// A Web IDL conversion of the method's arguments failed: the conversion's own message.
    Conversion { method: Method, message: String },
    /// A declarative execution failed (an UnknownError, as every failure of the completion
    /// steps is).
    Declarative(DeclarativeFailure),
}

/// Why a declarative execution failed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DeclarativeFailure {
    /// The input is not a JSON object.
    NotAnObject,
    /// The input names a parameter the form does not have.
    UnknownParameter(String),
    /// A value the parameter cannot take; the value as text when it is a string, number or
    /// boolean.
    InvalidValue { name: String, value: Option<String> },
    /// No submit button, and no `toolautosubmit`: the user could not submit.
    NoSubmitButton,
    /// Constraint validation failed: each invalid control as `name: message. `.
    ValidationFailed(String),
    /// The submit event was canceled without `respondWith()`.
    PreventedWithoutRespond,
    /// The `respondWith()` promise was rejected.
    RespondRejected,
    /// The `respondWith()` promise's value has no JSON form.
    RespondUnserializable,
    /// The form was reset while the execution ran.
    Reset,
    /// The form stopped being this tool, or its definition changed, while the execution ran.
    DefinitionUpdated,
    /// Another execution of the same form began.
    Superseded,
    /// The form's document is sandboxed without `allow-forms`: its submission did nothing.
    SubmissionSandboxed,
}

/// The engine's conversion messages follow Blink's; where Blink words the same failure
/// otherwise, or names a dictionary otherwise (`ExecuteToolOptions` for the text's
/// `ModelContextExecuteToolOptions`), this gives Blink's words.
fn blink_wording(message: &str) -> String {
    const WORDING: &[(&str, &str)] = &[
        (
            "The provided value is not a function.",
            "The given value is not a function.",
        ),
        (
            "from 'ModelContextTool': The provided value is not of type 'object'.",
            "from 'ModelContextTool': Failed to convert value to 'object'.",
        ),
        (
            "from 'RegisteredTool': The provided value is not of type 'object'.",
            "from 'RegisteredTool': Failed to convert value to 'object'.",
        ),
        (
            "parameter 2 is not of type 'object'.",
            "invalid input object: value is not an object",
        ),
        ("'ModelContextExecuteToolOptions'", "'ExecuteToolOptions'"),
    ];
    WORDING
        .iter()
        .fold(message.to_string(), |m, (engine, blink)| {
            m.replace(engine, blink)
        })
}

/// Chromium's DOMException message for an UnknownError it gives no message of its own.
const CHROMIUM_UNKNOWN: &str =
    "The operation failed for an unknown transient reason (e.g. out of memory).";

impl Rejection {
    /// The error, worded as `messages` says.
    pub fn error(&self, messages: ErrorMessages) -> ErrorValue {
        let chromium = messages == ErrorMessages::Chromium156;
        let pick = |engine: String, measured: &str| {
            if chromium {
                measured.to_string()
            } else {
                engine
            }
        };
        match self {
            Rejection::NotFullyActive => ErrorValue::dom(
                "InvalidStateError",
                pick(
                    "the document is not fully active".into(),
                    "The document is not active.",
                ),
            ),
            Rejection::NotOriginKeyed => ErrorValue::dom(
                "SecurityError",
                pick(
                    "the document's agent cluster is not origin-keyed (document.domain may be set)".into(),
                    "document.modelContext cannot be used when document.domain is enabled.",
                ),
            ),
            Rejection::NotAllowedToUseTools => ErrorValue::dom(
                "NotAllowedError",
                pick(
                    "the document is not allowed to use the \"tools\" feature".into(),
                    "Access to the feature \"tools\" is disallowed by permissions policy.",
                ),
            ),
            Rejection::DuplicateName(name) => ErrorValue::dom(
                "InvalidStateError",
                pick(
                    format!("a tool named {name:?} is already registered"),
                    "Duplicate tool name",
                ),
            ),
            Rejection::InvalidName { why, .. } => ErrorValue::dom(
                "InvalidStateError",
                pick(format!("the tool's name {why}"), "Invalid tool name"),
            ),
            Rejection::EmptyDescription => ErrorValue::dom(
                "InvalidStateError",
                pick(
                    "the tool's description is empty".into(),
                    "Description is required",
                ),
            ),
            Rejection::BadExposedTo(entry) => ErrorValue::dom(
                "SecurityError",
                pick(
                    format!("exposedTo entry {entry:?} is not a URL with a potentially trustworthy origin"),
                    "Only secure origins are allowed in the exposedTo list.",
                ),
            ),
            Rejection::BadFromOrigins(entry) => ErrorValue::dom(
                "SecurityError",
                pick(
                    format!("fromOrigins entry {entry:?} is not a URL with a potentially trustworthy origin"),
                    "Only secure origins are allowed in the fromOrigins list.",
                ),
            ),
            Rejection::InvalidOrigin(origin) => ErrorValue::dom(
                "NotSupportedError",
                pick(
                    format!("the tool's origin {origin:?} is not a URL"),
                    "The provided origin is invalid.",
                ),
            ),
            Rejection::OpaqueOrigin(origin) => ErrorValue::dom(
                "NotSupportedError",
                pick(
                    format!("the tool's origin {origin:?} is opaque"),
                    "Cannot execute tools that live in a document with an opaque origin.",
                ),
            ),
            Rejection::NotInPage => ErrorValue::dom(
                "UnknownError",
                pick(
                    "the tool's window is not in this page".into(),
                    CHROMIUM_UNKNOWN,
                ),
            ),
            Rejection::TargetDetached => ErrorValue::dom(
                "InvalidStateError",
                pick(
                    "the tool's document is no longer in a page".into(),
                    "Target frame is detached.",
                ),
            ),
            Rejection::OriginMismatch => ErrorValue::dom(
                "UnknownError",
                pick(
                    "the tool's origin does not match its window".into(),
                    CHROMIUM_UNKNOWN,
                ),
            ),
            Rejection::NoSuchTool(name) => ErrorValue::dom(
                "UnknownError",
                pick(format!("no tool named {name:?}"), CHROMIUM_UNKNOWN),
            ),
            Rejection::ToolGone(name) => ErrorValue::dom(
                "UnknownError",
                if chromium {
                    format!("Tool not found: {name}")
                } else {
                    format!("the tool {name:?} was unregistered before it could run")
                },
            ),
            Rejection::ToolFailed => ErrorValue::dom(
                "UnknownError",
                pick(
                    "the tool's execution failed".into(),
                    "Tool was executed but the invocation failed. For example, the script function threw an error",
                ),
            ),
            Rejection::BadInput => ErrorValue::dom(
                "UnknownError",
                pick(
                    "the tool's input does not parse to an object".into(),
                    "Failed to parse input arguments",
                ),
            ),
            Rejection::TargetUnloaded => ErrorValue::dom(
                "UnknownError",
                pick(
                    "the tool's document was unloaded while it ran".into(),
                    CHROMIUM_UNKNOWN,
                ),
            ),
            Rejection::InputNotAnObject => ErrorValue::type_error(pick(
                "the input is not an object (executeTool() step 9)".into(),
                "Failed to execute 'executeTool' on 'ModelContext': invalid input object: value is not an object",
            )),
            Rejection::Declarative(why) => ErrorValue::dom("UnknownError", why.message(chromium)),
            Rejection::Conversion { method, message } => ErrorValue::type_error(if chromium {
                format!(
                    "Failed to execute '{}' on 'ModelContext': {}",
                    method.name(),
                    blink_wording(message)
                )
            } else {
                message.clone()
            }),
        }
    }
}

impl DeclarativeFailure {
    /// The message: the engine's, or Chromium 156's word for word.
    fn message(&self, chromium: bool) -> String {
        use DeclarativeFailure::*;
        let (engine, measured): (String, String) = match self {
            NotAnObject => (
                "the tool's input is not a JSON object".into(),
                "JSON input arguments must be an object".into(),
            ),
            UnknownParameter(name) => (
                format!("the form has no parameter {name:?}"),
                format!("Input contains a parameter \"{name}\" but there is no such parameter for the tool"),
            ),
            InvalidValue { name, value } => (
                match value {
                    Some(v) => format!("{v:?} is not a value of the parameter {name:?}"),
                    None => format!("the parameter {name:?} cannot take that value"),
                },
                match value {
                    Some(v) => format!("Invalid value \"{v}\" for parameter {name}"),
                    None => format!("Invalid value for parameter {name}"),
                },
            ),
            NoSubmitButton => (
                "the form has no submit button and no toolautosubmit: it cannot be submitted".into(),
                "No submit button was found, but for a form without `toolautosubmit`, there must be a submit button".into(),
            ),
            ValidationFailed(list) => (
                format!("the form's constraint validation failed: {list}"),
                format!("Form validation failed: {list}"),
            ),
            PreventedWithoutRespond => (
                "the submit event was canceled without respondWith()".into(),
                "The site has a programming error: it called preventDefault() on the 'submit' event, without also calling respondWith() with the tool result".into(),
            ),
            RespondRejected => (
                "the respondWith() promise was rejected".into(),
                "respondWith promise was rejected".into(),
            ),
            RespondUnserializable => (
                "the respondWith() value has no JSON form".into(),
                "respondWith promise resolved with an object that could not be serialized to JSON".into(),
            ),
            Reset => (
                "the form was reset while the tool ran".into(),
                "Tool execution cancelled by a form reset".into(),
            ),
            DefinitionUpdated => (
                "the form's tool changed or went away while it ran".into(),
                "Tool execution cancelled, since tool definition was updated".into(),
            ),
            Superseded => (
                "another execution of the same form began".into(),
                CHROMIUM_UNKNOWN.into(),
            ),
            // Chromium 156 never gets here (its execution stays pending).
            SubmissionSandboxed => (
                "the form's document is sandboxed without allow-forms: it cannot be submitted".into(),
                CHROMIUM_UNKNOWN.into(),
            ),
        };
        if chromium {
            measured
        } else {
            engine
        }
    }
}
