//! `EventTarget`, listeners, event handlers and dispatch.
//!
//! <https://dom.spec.whatwg.org/#interface-eventtarget>

use std::sync::Arc;

use super::keys::{DocumentKey, ListenerKey, ModelContextKey, SignalKey};
use super::script::{Block, Frame};
use super::value::Value;
use crate::step;
use crate::world::{Running, World};

/// The event targets a scenario can listen at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventTargetRef {
    ModelContext(ModelContextKey),
    Window(DocumentKey),
    Signal(SignalKey),
}

/// An event listener whose callback is a block of the scenario's script.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Listener {
    pub target: EventTargetRef,
    pub event_type: String,
    /// The realm of the callback function.
    pub realm: DocumentKey,
    pub block: Arc<Block>,
    /// The parameters of the block that added the listener, which its body can still name.
    pub locals: Vec<(String, Value)>,
    pub once: bool,
    pub removed: bool,
    /// Set for the listener an event handler IDL attribute (`ontoolchange`) installs.
    pub event_handler: bool,
}

/// An event, with the attributes of the interfaces WebMCP dispatches.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    pub event_type: String,
    /// `Event`, `ToolChangeEvent`, `ToolActivatedEvent`, `ToolCancelEvent`.
    pub interface: &'static str,
    /// `ToolChangeEvent.ready`.
    pub ready: Option<bool>,
    /// `ToolActivatedEvent.toolName`, `ToolCancelEvent.toolName`.
    pub tool_name: Option<String>,
}

impl Event {
    pub fn plain(event_type: &str) -> Event {
        Event {
            event_type: event_type.into(),
            interface: "Event",
            ready: None,
            tool_name: None,
        }
    }

    /// The event as the script sees it.
    fn to_value(&self, target: &str) -> Value {
        let mut props = vec![
            ("type".to_string(), Value::string(&self.event_type)),
            ("interface".to_string(), Value::string(self.interface)),
            ("target".to_string(), Value::string(target)),
            ("bubbles".to_string(), Value::Bool(false)),
            ("cancelable".to_string(), Value::Bool(false)),
            ("composed".to_string(), Value::Bool(false)),
            ("isTrusted".to_string(), Value::Bool(true)),
        ];
        if let Some(r) = self.ready {
            props.push(("ready".into(), Value::Bool(r)));
        }
        if let Some(n) = &self.tool_name {
            props.push(("toolName".into(), Value::string(n)));
        }
        Value::Object(props)
    }
}

impl World {
    fn listener_list(&mut self, target: EventTargetRef) -> &mut Vec<ListenerKey> {
        match target {
            EventTargetRef::ModelContext(c) => &mut self.model_contexts[c].listeners,
            EventTargetRef::Window(d) => &mut self.documents[d].window_listeners,
            EventTargetRef::Signal(s) => &mut self.signals[s].listeners,
        }
    }

    /// A name for an event target, in the scenario's terms.
    pub fn target_label(&self, target: EventTargetRef) -> String {
        match target {
            EventTargetRef::ModelContext(c) => {
                format!(
                    "{}.modelContext",
                    self.label(self.model_contexts[c].document)
                )
            }
            EventTargetRef::Window(d) => format!("{}.window", self.label(d)),
            EventTargetRef::Signal(s) => format!("{}.signal", self.signals[s].label),
        }
    }

    /// <https://dom.spec.whatwg.org/#dom-eventtarget-addeventlistener>
    pub fn add_event_listener(
        &mut self,
        target: EventTargetRef,
        event_type: &str,
        realm: DocumentKey,
        block: Arc<Block>,
        locals: Vec<(String, Value)>,
        once: bool,
    ) -> ListenerKey {
        let key = self.listeners.insert(Listener {
            target,
            event_type: event_type.into(),
            realm,
            block,
            locals,
            once,
            removed: false,
            event_handler: false,
        });
        self.listener_list(target).push(key);
        key
    }

    /// <https://dom.spec.whatwg.org/#remove-an-event-listener>
    pub fn remove_event_listener(&mut self, key: ListenerKey) {
        let Some(l) = self.listeners.get_mut(key) else {
            return;
        };
        l.removed = true;
        let target = l.target;
        self.listener_list(target).retain(|k| *k != key);
        self.listeners.remove(key);
    }

    /// Sets an event handler IDL attribute (`ontoolchange = ...`), or clears it with `None`.
    /// The handler keeps the place in the listener list where it was first set.
    ///
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#event-handler-attributes>
    pub fn set_event_handler(
        &mut self,
        target: EventTargetRef,
        event_type: &str,
        realm: DocumentKey,
        block: Option<Arc<Block>>,
        locals: Vec<(String, Value)>,
    ) {
        let existing = self.listener_list(target).clone().into_iter().find(|k| {
            self.listeners[*k].event_handler && self.listeners[*k].event_type == event_type
        });
        match (existing, block) {
            (Some(k), Some(block)) => {
                self.listeners[k].block = block;
                self.listeners[k].realm = realm;
                self.listeners[k].locals = locals;
            }
            (Some(k), None) => self.remove_event_listener(k),
            (None, Some(block)) => {
                let k = self.add_event_listener(target, event_type, realm, block, locals, false);
                self.listeners[k].event_handler = true;
            }
            (None, None) => {}
        }
    }

    /// How many listeners are registered, across all targets.
    pub fn live_listeners(&self) -> usize {
        self.listeners.len()
    }

    /// <https://dom.spec.whatwg.org/#concept-event-dispatch>, for targets that are not nodes
    /// (no propagation path). Each callback runs in its own realm when that realm's document
    /// is fully active; after a callback called from outside any script, the microtasks it
    /// queued run before the next listener ("clean up after running script").
    pub fn dispatch_event(&mut self, target: EventTargetRef, event: Event) {
        let listeners: Vec<ListenerKey> = self.listener_list(target).clone();
        let target_name = self.target_label(target);
        for key in listeners {
            let Some(listener) = self.listeners.get(key).cloned() else {
                continue;
            };
            if listener.removed || listener.event_type != event.event_type {
                continue;
            }
            if listener.once {
                self.remove_event_listener(key);
            }
            // "Call a user object's operation" prepares to run script: not in a realm whose
            // document is not fully active.
            if !self.is_fully_active(listener.realm) {
                step!(
                    self,
                    crate::webmcp::CALL_A_USER_OBJECTS_OPERATION,
                    "1",
                    Some(listener.realm),
                    "{} listener skipped: its realm's document is not fully active",
                    event.event_type
                );
                continue;
            }
            let mut frame = Frame::new(listener.block.clone(), listener.realm);
            frame.locals = listener.locals.clone();
            frame
                .locals
                .push(("event".into(), event.to_value(&target_name)));
            let outermost = self.script_depth == 0;
            self.run_frame(frame);
            if outermost {
                self.clean_up_after_running_script();
            }
        }
    }

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#clean-up-after-running-script>:
    /// with no script on the stack, perform a microtask checkpoint.
    pub(crate) fn clean_up_after_running_script(&mut self) {
        let Running::EventLoop(event_loop) = self.running else {
            return;
        };
        if self.event_loops[event_loop].microtasks.is_empty() {
            return;
        }
        step!(
            self,
            crate::webmcp::CLEAN_UP_AFTER_RUNNING_SCRIPT,
            "3",
            None,
            "microtask checkpoint between callbacks"
        );
        while let Some(m) = self.event_loops[event_loop].microtasks.pop_front() {
            self.run_job(m.realm, m.job);
        }
    }
}
