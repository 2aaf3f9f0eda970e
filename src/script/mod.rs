//! The page script: the small, JavaScript-shaped language that simulated pages run.
//!
//! - [`lexer`], [`syntax`]: tokens, logical lines and their indentation tree, and a cursor over
//!   a line's tokens (the scenario language is written on the same lexical layer).
//! - [`parser`]: statements and expressions.
//! - [`ast`]: its syntax tree.
//! - [`interpreter`]: running it in a realm, `await` as a promise reaction.
//! - [`code`]: what the host calls back: the script's callbacks, tasks, reactions, listeners.
//! - [`bindings`]: the members a script (or a scenario's expectation) can read or call on the
//!   platform's objects, written once: the Window and its `modelContext`, `AbortController`,
//!   `AbortSignal`, errors, arrays, promises.
//! - [`emit`]: the script written as JavaScript, for the WPT export; [`js`]: JavaScript text.
//!
//! How the layer is built: the interpreter's algorithms are provided methods of
//! [`interpreter::Interpreter`], over [`ScriptHost`]: a WebMCP host that also keeps the names
//! the scenario bound and what the script logged. The engine's world implements it. Nothing
//! here names the layers above (the engine, the scenario language, the tools).

pub mod ast;
pub mod bindings;
pub mod code;
pub mod emit;
pub mod heap;
pub mod instance;
pub mod interpreter;
pub mod js;
pub mod lexer;
pub mod parser;
pub mod syntax;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::host::keys::DocumentKey;
use crate::host::shared::Shared;
use crate::host::value::Value;
use crate::webmcp::WebMcpHost;

/// A line the page's script logged.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct LogEntry {
    pub text: String,
    pub time: u64,
    pub realm: String,
}

/// An exception no script caught.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct UncaughtError {
    pub line: u32,
    pub realm: String,
    pub error: String,
}

/// The script's own state: the names it can use, and what it logged and left uncaught.
#[derive(Clone, Default)]
pub struct ScriptState {
    /// The scenario's names for values (documents by their labels, promises, controllers...).
    pub(crate) env: Shared<BTreeMap<String, Value>>,
    pub(crate) log: Shared<Vec<LogEntry>>,
    pub(crate) uncaught: Shared<Vec<UncaughtError>>,
    /// Every name bound to a document, in the order of the bindings: what a harness waiting
    /// for a document to exist reads from where it last looked, instead of every name each
    /// time. Not part of the state (the names' values are).
    pub(crate) documents_bound: Shared<Vec<String>>,
    /// The current version of every object a script changed (see [`heap`]).
    pub(crate) heap: heap::Heap,
}

/// What the page script needs of the world it runs in.
pub trait ScriptHost: WebMcpHost {
    fn script(&self) -> &ScriptState;
    fn script_mut(&mut self) -> &mut ScriptState;
    /// Records a logged line in the trace, when the trace is on.
    fn trace_log(&mut self, text: &str);

    /// Appends to the script's log.
    fn log_line(&mut self, realm: DocumentKey, text: String) {
        self.trace_log(&text);
        let realm = self.label(realm);
        let time = self.now;
        self.script_mut().log.push(LogEntry { text, time, realm });
    }

    /// A value the scenario named.
    fn lookup(&self, name: &str) -> Option<&Value> {
        self.script().env.get(name)
    }

    /// The current version of an array or object (see [`heap`]).
    fn version_of(&self, v: &Value) -> Value {
        self.script().heap.version_of(v)
    }

    /// The value as it leaves the script, its arrays and objects as their current versions
    /// (see [`heap`]); a `RangeError` when that nests deeper than values may.
    fn resolved(&self, v: &Value) -> Result<Value, Value> {
        self.script().heap.resolved(v).ok_or_else(|| {
            Value::error(crate::host::value::ErrorValue::named(
                "RangeError",
                format!(
                    "the value nests deeper than {} arrays and objects",
                    crate::host::value::MAX_VALUE_DEPTH
                ),
            ))
        })
    }

    /// Names a value for the page's script.
    fn bind(&mut self, name: &str, value: Value) {
        if matches!(value, Value::Window(..)) {
            self.script_mut().documents_bound.push(name.into());
        }
        self.script_mut().env.insert(name.into(), value);
    }
}

/// Every page-script trait, for `use crate::script::prelude::*`.
pub mod prelude {
    pub use super::interpreter::Interpreter;
    pub use super::ScriptHost;
}
