//! `EventTarget`, listeners, event handlers and dispatch.
//!
//! <https://dom.spec.whatwg.org/#interface-eventtarget>

use super::callback::Callback;
use super::event_loop::MICROTASK_QUEUE;
use super::keys::{DocumentKey, ListenerKey, NodeKey, SignalKey};
use super::promise::Promises;
use super::seam::Upper;
use super::shared::Access;
use super::spec::{CALL_A_USER_OBJECTS_OPERATION, CLEAN_UP_AFTER_RUNNING_SCRIPT};
use super::value::{Members, Value};
use super::{Host, Running};
use crate::step;

/// The event targets the page's script can listen at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventTargetRef<U: Upper> {
    Window(DocumentKey),
    Signal(SignalKey),
    /// A DOM node (events dispatched at it travel its path: see `dom::dispatch`).
    Node(NodeKey),
    /// An event target of the specification above (WebMCP's `ModelContext`): the seam.
    Webmcp(U::EventTarget),
}

/// An event listener: its callback is a function of the page's script.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Listener<U: Upper> {
    pub target: EventTargetRef<U>,
    pub event_type: String,
    pub callback: Callback,
    pub once: bool,
    pub removed: bool,
    /// Set for the listener an event handler IDL attribute (`ontoolchange`) installs.
    pub event_handler: bool,
    /// <https://dom.spec.whatwg.org/#event-listener-capture>
    pub capture: bool,
    /// <https://dom.spec.whatwg.org/#event-listener-passive>
    pub passive: bool,
}

/// The options `addEventListener` takes.
///
/// <https://dom.spec.whatwg.org/#dictdef-addeventlisteneroptions>
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListenerOptions {
    pub capture: bool,
    pub once: bool,
    pub passive: bool,
}

/// An event: its type, its interface, and the attributes that interface adds to `Event`'s.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    pub event_type: String,
    /// `Event`, or the interface of a subclass (`ToolChangeEvent`, ...).
    pub interface: &'static str,
    /// The subclass's own attributes, in the order its IDL lists them.
    pub attributes: Vec<(&'static str, Value)>,
}

impl Event {
    pub fn plain(event_type: &str) -> Event {
        Event {
            event_type: event_type.into(),
            interface: "Event",
            attributes: Vec::new(),
        }
    }

    /// The event as the script sees it: an object of its interface, made in its target's
    /// relevant realm (DOM's "fire an event" creates it there).
    fn to_value(&self, target: &str, realm: DocumentKey) -> Value {
        let mut props = vec![
            ("type".to_string(), Value::string(&self.event_type)),
            ("interface".to_string(), Value::string(self.interface)),
            ("target".to_string(), Value::string(target)),
            ("bubbles".to_string(), Value::Bool(false)),
            ("cancelable".to_string(), Value::Bool(false)),
            ("composed".to_string(), Value::Bool(false)),
            ("isTrusted".to_string(), Value::Bool(true)),
        ];
        for (name, value) in &self.attributes {
            props.push((name.to_string(), value.clone()));
        }
        Value::Object(Members::platform(props, realm, self.interface))
    }
}

/// Event listeners and dispatch.
pub trait Events: Host {
    fn listener_list(&mut self, target: EventTargetRef<Self::Upper>) -> &mut Vec<ListenerKey> {
        match target {
            EventTargetRef::Window(d) => &mut self.documents[d].window_listeners,
            EventTargetRef::Signal(s) => &mut self.signals[s].listeners,
            EventTargetRef::Node(n) => &mut self.dom.nodes[n].listeners,
            EventTargetRef::Webmcp(t) => self.event_listeners(t),
        }
    }

    /// The listener list of an event target, to read.
    fn read_listener_list(&self, target: EventTargetRef<Self::Upper>) -> &Vec<ListenerKey> {
        match target {
            EventTargetRef::Window(d) => &self.documents[d].window_listeners,
            EventTargetRef::Signal(s) => &self.signals[s].listeners,
            EventTargetRef::Node(n) => &self.dom.nodes[n].listeners,
            EventTargetRef::Webmcp(t) => self.read_event_listeners(t),
        }
    }

    /// A name for an event target, in the scenario's terms (names do not change: reading one
    /// is not noted).
    fn target_label(&self, target: EventTargetRef<Self::Upper>) -> String {
        super::shared::footprint::untracked(|| match target {
            EventTargetRef::Window(d) => format!("{}.window", self.label(d)),
            EventTargetRef::Signal(s) => format!("{}.signal", self.signals[s].label),
            EventTargetRef::Node(n) => self.describe_node(n),
            EventTargetRef::Webmcp(t) => self.event_target_label(t),
        })
    }

    /// <https://dom.spec.whatwg.org/#dom-eventtarget-addeventlistener>
    fn add_event_listener(
        &mut self,
        target: EventTargetRef<Self::Upper>,
        event_type: &str,
        callback: Callback,
        once: bool,
    ) -> ListenerKey {
        let options = ListenerOptions {
            once,
            ..ListenerOptions::default()
        };
        self.add_event_listener_with(target, event_type, callback, options)
    }

    /// <https://dom.spec.whatwg.org/#add-an-event-listener>, with every option. A listener
    /// equal to one already in the list (same type, callback and capture) is not added again:
    /// the one in the list is returned.
    fn add_event_listener_with(
        &mut self,
        target: EventTargetRef<Self::Upper>,
        event_type: &str,
        callback: Callback,
        options: ListenerOptions,
    ) -> ListenerKey {
        // 4. The duplicate check (made for nodes only, so that the other targets' listener
        //    lists, and every run recorded before nodes had listeners, stay as they were).
        if matches!(target, EventTargetRef::Node(_)) {
            let duplicate = self.read_listener_list(target).iter().copied().find(|k| {
                let l = &self.listeners[*k];
                l.event_type == event_type && l.callback == callback && l.capture == options.capture
            });
            if let Some(existing) = duplicate {
                return existing;
            }
        }
        let key = self.listeners.insert(Listener {
            target,
            event_type: event_type.into(),
            callback,
            once: options.once,
            removed: false,
            event_handler: false,
            capture: options.capture,
            passive: options.passive,
        });
        self.listener_list(target).push(key);
        key
    }

    /// <https://dom.spec.whatwg.org/#remove-an-event-listener>
    fn remove_event_listener(&mut self, key: ListenerKey) {
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
    fn set_event_handler(
        &mut self,
        target: EventTargetRef<Self::Upper>,
        event_type: &str,
        callback: Option<Callback>,
    ) {
        let existing = self.listener_list(target).clone().into_iter().find(|k| {
            self.listeners[*k].event_handler && self.listeners[*k].event_type == event_type
        });
        match (existing, callback) {
            (Some(k), Some(callback)) => self.listeners[k].callback = callback,
            (Some(k), None) => self.remove_event_listener(k),
            (None, Some(callback)) => {
                let k = self.add_event_listener(target, event_type, callback, false);
                self.listeners[k].event_handler = true;
            }
            (None, None) => {}
        }
    }

    /// How many listeners are registered, across all targets.
    fn live_listeners(&self) -> usize {
        self.listeners.len()
    }

    /// <https://dom.spec.whatwg.org/#concept-event-dispatch>, for targets that are not nodes
    /// (no propagation path). Each callback runs in its own realm when that realm's document
    /// is fully active; after a callback called from outside any script, the microtasks it
    /// queued run before the next listener ("clean up after running script").
    fn dispatch_event(&mut self, target: EventTargetRef<Self::Upper>, event: Event) {
        let listeners: Vec<ListenerKey> = self.read_listener_list(target).clone();
        // One event object, which every listener gets.
        let target_realm = match target {
            EventTargetRef::Window(d) => d,
            EventTargetRef::Signal(s) => self.signals[s].realm,
            EventTargetRef::Node(n) => self.node_document(n),
            EventTargetRef::Webmcp(t) => self.event_target_document(t),
        };
        let value = event.to_value(&self.target_label(target), target_realm);
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
            let realm = listener.callback.realm();
            if !self.is_fully_active(realm) {
                step!(
                    self,
                    CALL_A_USER_OBJECTS_OPERATION,
                    "1",
                    Some(realm),
                    "{} listener skipped: its realm's document is not fully active",
                    event.event_type
                );
                continue;
            }
            let outermost = self.script_depth == 0;
            // A listener's exception is reported by the script that threw it; dispatch goes on.
            let _ = self.call(&listener.callback, vec![value.clone()]);
            if outermost {
                self.clean_up_after_running_script();
            }
        }
    }

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#clean-up-after-running-script>:
    /// with no script on the stack, perform a microtask checkpoint.
    fn clean_up_after_running_script(&mut self) {
        let Running::EventLoop(event_loop) = self.running else {
            return;
        };
        if self
            .event_loops
            .part(event_loop, MICROTASK_QUEUE, Access::Read)
            .microtasks
            .is_empty()
        {
            return;
        }
        step!(
            self,
            CLEAN_UP_AFTER_RUNNING_SCRIPT,
            "3",
            None,
            "microtask checkpoint between callbacks"
        );
        while let Some(m) = self
            .event_loops
            .part_mut(event_loop, MICROTASK_QUEUE, Access::Take)
            .microtasks
            .pop_front()
        {
            self.run_job(m.realm, m.job);
        }
    }
}

impl<H: Host> Events for H {}
