//! `AbortController` and `AbortSignal`.
//!
//! <https://dom.spec.whatwg.org/#interface-abortcontroller>

use super::events::{Event, EventTargetRef, Events};
use super::keys::{DocumentKey, ListenerKey, SignalKey};
use super::seam::Upper;
use super::spec::SIGNAL_ABORT;
use super::value::{ErrorRealm, ErrorValue, Value};
use super::{Host, HostState};
use crate::step;

/// <https://dom.spec.whatwg.org/#abortsignal>
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AbortSignal<U: Upper> {
    pub realm: DocumentKey,
    pub label: String,
    pub aborted: bool,
    /// <https://dom.spec.whatwg.org/#abortsignal-abort-reason>
    pub reason: Value,
    /// <https://dom.spec.whatwg.org/#abortsignal-abort-algorithms>: every one is a step of the
    /// specification above (the seam).
    pub algorithms: Vec<U::Abort>,
    pub listeners: Vec<ListenerKey>,
}

impl<U: Upper> HostState<U> {
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

    pub fn signal(&self, key: SignalKey) -> &AbortSignal<U> {
        &self.signals[key]
    }

    /// <https://dom.spec.whatwg.org/#abortsignal-add>
    pub(crate) fn add_abort_algorithm(&mut self, signal: SignalKey, algorithm: U::Abort) {
        // 1. An aborted signal takes no more algorithms.
        if self.signals[signal].aborted {
            return;
        }
        // 2. Append.
        self.signals[signal].algorithms.push(algorithm);
    }
}

/// Aborting a signal.
pub trait Abort: Host {
    /// <https://dom.spec.whatwg.org/#abortsignal-signal-abort>
    fn signal_abort(&mut self, signal: SignalKey, reason: Option<Value>) {
        let realm = self.signals[signal].realm;
        // 1. An aborted signal stays as it is.
        if self.signals[signal].aborted {
            step!(self, SIGNAL_ABORT, "1", Some(realm), "already aborted");
            return;
        }
        // 2. The reason defaults to a new "AbortError" DOMException, created in the signal's
        // realm (as is a reason the engine made for the abort, such as an agent's).
        let reason = reason
            .filter(|r| *r != Value::Undefined)
            .unwrap_or_else(|| {
                Value::error(ErrorValue::dom(
                    "AbortError",
                    "signal is aborted without reason",
                ))
            })
            .placed(ErrorRealm::In(realm));
        step!(self, SIGNAL_ABORT, "2", Some(realm), |w| format!(
            "{} aborted with {}",
            w.signals[signal].label,
            w.describe_value(&reason)
        ));
        self.signals[signal].aborted = true;
        self.signals[signal].reason = reason;
        // 5. Run the abort algorithms, then empty the list.
        let algorithms = std::mem::take(&mut self.signals[signal].algorithms);
        for algorithm in algorithms {
            step!(self, SIGNAL_ABORT, "5", Some(realm));
            self.run_abort_steps(algorithm, signal);
        }
        // 6. Fire an event named abort at the signal.
        step!(self, SIGNAL_ABORT, "6", Some(realm));
        self.dispatch_event(EventTargetRef::Signal(signal), Event::plain("abort"));
    }
}

impl<H: Host> Abort for H {}
