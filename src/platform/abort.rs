//! `AbortController` and `AbortSignal`.
//!
//! <https://dom.spec.whatwg.org/#interface-abortcontroller>

use super::keys::{DocumentKey, ExecutionKey, ListenerKey, ModelContextKey, PromiseKey, SignalKey};
use super::value::{ErrorValue, Value};
use crate::step;
use crate::world::World;

/// An abort algorithm added to a signal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AbortAlgorithm {
    /// registerTool step 18.2: unregister the tool, then reject the registration promise.
    UnregisterTool {
        context: ModelContextKey,
        tool_name: String,
        promise: PromiseKey,
    },
    /// executeTool(): the caller gave up on the execution.
    CancelExecution { execution: ExecutionKey },
}

/// <https://dom.spec.whatwg.org/#abortsignal>
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AbortSignal {
    pub realm: DocumentKey,
    pub label: String,
    pub aborted: bool,
    /// <https://dom.spec.whatwg.org/#abortsignal-abort-reason>
    pub reason: Value,
    /// <https://dom.spec.whatwg.org/#abortsignal-abort-algorithms>
    pub algorithms: Vec<AbortAlgorithm>,
    pub listeners: Vec<ListenerKey>,
}

impl World {
    /// `new AbortController()` in `realm`: returns the key of its signal.
    pub fn new_abort_controller(&mut self, realm: DocumentKey, label: &str) -> SignalKey {
        self.signals.insert(AbortSignal {
            realm,
            label: label.into(),
            aborted: false,
            reason: Value::Undefined,
            algorithms: Vec::new(),
            listeners: Vec::new(),
        })
    }

    pub fn signal(&self, key: SignalKey) -> &AbortSignal {
        &self.signals[key]
    }

    /// <https://dom.spec.whatwg.org/#abortsignal-add>
    pub(crate) fn add_abort_algorithm(&mut self, signal: SignalKey, algorithm: AbortAlgorithm) {
        // 1. An aborted signal takes no more algorithms.
        if self.signals[signal].aborted {
            return;
        }
        // 2. Append.
        self.signals[signal].algorithms.push(algorithm);
    }

    /// <https://dom.spec.whatwg.org/#abortsignal-signal-abort>
    pub fn signal_abort(&mut self, signal: SignalKey, reason: Option<Value>) {
        let realm = self.signals[signal].realm;
        // 1. An aborted signal stays as it is.
        if self.signals[signal].aborted {
            step!(
                self,
                crate::webmcp::SIGNAL_ABORT,
                "1",
                Some(realm),
                "already aborted"
            );
            return;
        }
        // 2. The reason defaults to a new "AbortError" DOMException.
        let reason = reason
            .filter(|r| *r != Value::Undefined)
            .unwrap_or_else(|| {
                Value::error(ErrorValue::dom(
                    "AbortError",
                    "signal is aborted without reason",
                ))
            });
        step!(
            self,
            crate::webmcp::SIGNAL_ABORT,
            "2",
            Some(realm),
            |w| format!(
                "{} aborted with {}",
                w.signals[signal].label,
                w.describe_value(&reason)
            )
        );
        self.signals[signal].aborted = true;
        self.signals[signal].reason = reason;
        // 5. Run the abort algorithms, then empty the list.
        let algorithms = std::mem::take(&mut self.signals[signal].algorithms);
        for algorithm in algorithms {
            step!(self, crate::webmcp::SIGNAL_ABORT, "5", Some(realm));
            match algorithm {
                AbortAlgorithm::UnregisterTool {
                    context,
                    tool_name,
                    promise,
                } => self.register_tool_abort_steps(context, &tool_name, promise, signal),
                AbortAlgorithm::CancelExecution { execution } => {
                    self.execute_tool_abort_steps(execution, signal)
                }
            }
        }
        // 6. Fire an event named abort at the signal.
        step!(self, crate::webmcp::SIGNAL_ABORT, "6", Some(realm));
        self.dispatch_event(
            super::events::EventTargetRef::Signal(signal),
            super::events::Event::plain("abort"),
        );
    }
}
