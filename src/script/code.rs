//! What the host calls back: every callback the page's script hands the platform, as one enum.

use std::sync::Arc;

use super::ast::{Block, Frame, Function};
use crate::host::callback::{Callback, ScriptCode};
use crate::host::keys::{DocumentKey, PromiseKey};
use crate::host::value::Value;

/// A callback of the page's script.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    /// A block run as a task (the scenario's `task in DOC:`, a timer's callback); with
    /// `completion`, the block is an async function whose promise that is.
    Task {
        realm: DocumentKey,
        block: Arc<Block>,
        completion: Option<PromiseKey>,
        /// Parameters of an enclosing block the script can still name.
        locals: Vec<(String, Value)>,
    },
    /// A function value written in place (a tool's `execute`).
    Function(Function),
    /// An `on p fulfilled:` block: a reaction's handler, given the settled value.
    Reaction {
        realm: DocumentKey,
        block: Arc<Block>,
        /// The name the settled value goes by (`value` when none is given).
        bind: Option<String>,
        locals: Vec<(String, Value)>,
    },
    /// An `on target event:` block or an `ontoolchange = { ... }` handler, given the event.
    Listener {
        realm: DocumentKey,
        block: Arc<Block>,
        locals: Vec<(String, Value)>,
    },
    /// The rest of an async script after an `await`, for one branch: on fulfilment it goes on
    /// (the value bound to `bind`), on rejection it throws where it stopped.
    Resume {
        frame: Frame,
        bind: Option<String>,
        fulfilled: bool,
    },
}

impl ScriptCode for Code {
    fn realm(&self) -> DocumentKey {
        match self {
            Code::Task { realm, .. }
            | Code::Reaction { realm, .. }
            | Code::Listener { realm, .. } => *realm,
            Code::Function(f) => f.realm,
            Code::Resume { frame, .. } => frame.realm,
        }
    }

    fn describe(&self) -> String {
        match self {
            Code::Task { block, .. } => format!("script (line {})", block.line),
            Code::Function(_) => "function".into(),
            Code::Reaction { block, .. } => format!("reaction script (line {})", block.line),
            Code::Listener { block, .. } => format!("listener (line {})", block.line),
            Code::Resume { frame, .. } => {
                format!("script resumes after await (line {})", frame.current_line())
            }
        }
    }
}

impl Code {
    pub fn callback(self) -> Callback {
        Callback::new(self)
    }
}
