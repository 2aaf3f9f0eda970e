//! Events dispatched at nodes: the event object, its path (the node, its ancestors, the
//! document, the `Window`), capture, target and bubble, cancelation, and activation behaviour.
//!
//! <https://dom.spec.whatwg.org/#concept-event-dispatch>
//!
//! Listeners are the host's listeners (`events.rs`): a node is one more kind of event target
//! there. An event dispatched at a node is an object of its own ([`EventRecord`], in an arena),
//! so that a listener can cancel it or stop its propagation while it travels: the page's
//! script sees it as `Value::Event`, whose members and methods its bindings read through
//! [`Dispatch::event_member`] and [`Dispatch::event_method`].

use super::super::callback::Callback;
use super::super::events::{EventTargetRef, Events};
use super::super::forms::activation::Activation;
use super::super::forms::submission::Entry;
use super::super::keys::{DocumentKey, EventKey, ListenerKey, NodeKey};
use super::super::spec::{CALL_A_USER_OBJECTS_OPERATION, DISPATCH};
use super::super::value::{Facet, Value};
use super::super::Host;
use super::node::NodeData;
use crate::step;

/// What an event is created with: `type` and the `EventInit` members, and the interface.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EventInit {
    pub event_type: String,
    /// `Event`, `SubmitEvent`, `FormDataEvent`, `PointerEvent`, ...
    pub interface: &'static str,
    pub bubbles: bool,
    pub cancelable: bool,
    pub composed: bool,
}

impl EventInit {
    /// A plain `Event` that neither bubbles nor can be canceled.
    pub fn new(event_type: &str) -> EventInit {
        EventInit {
            event_type: event_type.into(),
            interface: "Event",
            bubbles: false,
            cancelable: false,
            composed: false,
        }
    }

    pub fn bubbles(mut self) -> EventInit {
        self.bubbles = true;
        self
    }

    pub fn cancelable(mut self) -> EventInit {
        self.cancelable = true;
        self
    }

    pub fn composed(mut self) -> EventInit {
        self.composed = true;
        self
    }

    pub fn interface(mut self, interface: &'static str) -> EventInit {
        self.interface = interface;
        self
    }
}

/// Where an event is while it travels: a node, or a document's `Window`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathTarget {
    Node(NodeKey),
    Window(DocumentKey),
}

/// An event and its flags.
///
/// <https://dom.spec.whatwg.org/#concept-event>
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EventRecord {
    pub init: EventInit,
    /// <https://dom.spec.whatwg.org/#dom-event-istrusted>
    pub is_trusted: bool,
    pub target: Option<PathTarget>,
    pub current_target: Option<PathTarget>,
    /// 0 none, 1 capturing, 2 at target, 3 bubbling.
    pub event_phase: u8,
    pub stop_propagation: bool,
    pub stop_immediate_propagation: bool,
    /// <https://dom.spec.whatwg.org/#canceled-flag>
    pub canceled: bool,
    pub in_passive_listener: bool,
    pub dispatching: bool,
    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#dom-submitevent-submitter>
    pub submitter: Option<NodeKey>,
    /// A `FormDataEvent`'s `formData`: the entry list being constructed, which listeners may
    /// add to.
    pub form_data: Option<Vec<Entry>>,
    /// A `SubmitEvent`'s `agentInvoked`, which another specification (WebMCP's declarative
    /// half) sets through [`Host::submit_event_agent_invoked`].
    pub agent_invoked: bool,
    /// The value the last `respondWith()` call on a `SubmitEvent` gave (the same
    /// specification's method; its checks are that specification's, see
    /// [`Host::submit_event_respond_with`]).
    pub responded_with: Option<Value>,
}

/// Dispatching events at nodes.
pub trait Dispatch: Host {
    /// <https://dom.spec.whatwg.org/#concept-event-create>: a new event object, trusted when
    /// the user agent fires it.
    fn create_event(&mut self, init: EventInit, trusted: bool) -> EventKey {
        self.dom.events.insert(EventRecord {
            init,
            is_trusted: trusted,
            target: None,
            current_target: None,
            event_phase: 0,
            stop_propagation: false,
            stop_immediate_propagation: false,
            canceled: false,
            in_passive_listener: false,
            dispatching: false,
            submitter: None,
            form_data: None,
            agent_invoked: false,
            responded_with: None,
        })
    }

    /// <https://dom.spec.whatwg.org/#concept-event-fire>: creates a trusted event and
    /// dispatches it at `target`; returns false when a listener canceled it.
    fn fire_event(&mut self, target: NodeKey, init: EventInit) -> bool {
        let event = self.create_event(init, true);
        self.dispatch(target, event)
    }

    /// <https://dom.spec.whatwg.org/#concept-event-dispatch> at a node (no shadow trees,
    /// related targets or touch targets here). Returns false when the event was canceled.
    fn dispatch(&mut self, target: NodeKey, event: EventKey) -> bool {
        // 1. Set the dispatch flag.
        self.dom.events[event].dispatching = true;
        // 5.2-5.9. The event path: the target, then each "get the parent" in turn (a node's
        //    parent; a document's Window, except for `load`). The activation target: the
        //    target, or the nearest node on the path, with activation behaviour, for a click.
        let event_type = self.dom.events[event].init.event_type.clone();
        let is_activation_event = event_type == "click";
        let mut path = vec![PathTarget::Node(target)];
        let mut activation_target =
            (is_activation_event && self.has_activation_behavior(target)).then_some(target);
        let mut at = target;
        while let Some(parent) = self.parent(at) {
            if is_activation_event
                && activation_target.is_none()
                && self.has_activation_behavior(parent)
            {
                activation_target = Some(parent);
            }
            path.push(PathTarget::Node(parent));
            at = parent;
        }
        if let Some(NodeData::Document) = self.dom.nodes.get(at).map(|n| &n.data) {
            let doc = self.dom.nodes[at].document;
            if event_type != "load" && !self.documents[doc].destroyed {
                path.push(PathTarget::Window(doc));
            }
        }
        self.dom.events[event].target = Some(PathTarget::Node(target));
        // 5.12. The legacy-pre-activation behaviour (a checkbox toggles before listeners run).
        let saved = activation_target.map(|t| (t, self.legacy_pre_activation_behavior(t)));
        // 5.13. Capturing, from the outermost inward: the target itself is at target.
        for item in path.iter().rev() {
            let phase = if *item == PathTarget::Node(target) {
                2
            } else {
                1
            };
            self.dom.events[event].event_phase = phase;
            self.invoke(*item, event, true);
        }
        // 5.14. Bubbling, from the target outward (past the target only if it bubbles).
        for item in &path {
            if *item == PathTarget::Node(target) {
                self.dom.events[event].event_phase = 2;
            } else if !self.dom.events[event].init.bubbles {
                continue;
            } else {
                self.dom.events[event].event_phase = 3;
            }
            self.invoke(*item, event, false);
        }
        // 6-9. The event is at rest again.
        {
            let e = &mut self.dom.events[event];
            e.event_phase = 0;
            e.current_target = None;
            e.dispatching = false;
            e.stop_propagation = false;
            e.stop_immediate_propagation = false;
        }
        let canceled = self.dom.events[event].canceled;
        step!(
            self,
            DISPATCH,
            "12",
            Some(self.dom.nodes[target].document),
            |w| format!(
                "{} at {}{}",
                event_type,
                w.describe_node(target),
                if canceled { ": canceled" } else { "" }
            )
        );
        // 11. Activation behaviour if the event was not canceled, else the legacy-canceled
        //     activation behaviour.
        if let Some((t, saved)) = saved {
            if !canceled {
                step!(
                    self,
                    DISPATCH,
                    "11.1",
                    Some(self.dom.nodes[t].document),
                    |w| format!("activation behaviour of {}", w.describe_node(t))
                );
                self.activation_behavior(t, event);
            } else {
                self.legacy_canceled_activation_behavior(t, saved);
            }
        }
        // 12. Whether it was not canceled.
        !canceled
    }

    /// Fires a trusted event at a document's `Window` (whose path is the `Window` alone);
    /// returns false when a listener canceled it.
    fn fire_event_at_window(&mut self, doc: DocumentKey, init: EventInit) -> bool {
        let event = self.create_event(init, true);
        let item = PathTarget::Window(doc);
        self.dom.events[event].dispatching = true;
        self.dom.events[event].target = Some(item);
        self.dom.events[event].event_phase = 2;
        self.invoke(item, event, true);
        self.invoke(item, event, false);
        let e = &mut self.dom.events[event];
        e.event_phase = 0;
        e.current_target = None;
        e.dispatching = false;
        !e.canceled
    }

    /// <https://dom.spec.whatwg.org/#concept-event-listener-invoke> for one item of the path,
    /// in the capturing or the bubbling pass.
    fn invoke(&mut self, item: PathTarget, event: EventKey, capturing: bool) {
        // 4. Stopped: nothing more.
        if self.dom.events[event].stop_propagation {
            return;
        }
        // 5. The current target.
        self.dom.events[event].current_target = Some(item);
        // 6. A clone of the listener list (listeners added now do not run).
        let target = match item {
            PathTarget::Node(n) => EventTargetRef::Node(n),
            PathTarget::Window(d) => EventTargetRef::Window(d),
        };
        let listeners: Vec<ListenerKey> = self.read_listener_list(target).clone();
        // 7. Inner invoke.
        self.inner_invoke(event, listeners, capturing);
    }

    /// <https://dom.spec.whatwg.org/#concept-event-listener-inner-invoke>
    fn inner_invoke(&mut self, event: EventKey, listeners: Vec<ListenerKey>, capturing: bool) {
        let event_type = self.dom.events[event].init.event_type.clone();
        for key in listeners {
            let Some(listener) = self.listeners.get(key).cloned() else {
                continue;
            };
            // 2.1. Not of this type, or removed.
            if listener.removed || listener.event_type != event_type {
                continue;
            }
            // 2.3. A capturing listener runs in the capturing pass only, and the rest in the
            //      bubbling pass.
            if listener.capture != capturing {
                continue;
            }
            // 2.4. A once listener is removed first.
            if listener.once {
                self.remove_event_listener(key);
            }
            // 2.8. A passive listener cannot cancel.
            if listener.passive {
                self.dom.events[event].in_passive_listener = true;
            }
            self.call_listener(&listener.callback, event);
            // 2.10. The passive flag is unset.
            self.dom.events[event].in_passive_listener = false;
            // 2.12. stopImmediatePropagation() ends the list.
            if self.dom.events[event].stop_immediate_propagation {
                return;
            }
        }
    }

    /// Calls a listener's callback with the event (Web IDL's "call a user object's
    /// operation": not in a realm whose document is not fully active; after a callback
    /// called from outside any script, its microtasks run).
    fn call_listener(&mut self, callback: &Callback, event: EventKey) {
        let realm = callback.realm();
        if !self.is_fully_active(realm) {
            let event_type = self.dom.events[event].init.event_type.clone();
            step!(
                self,
                CALL_A_USER_OBJECTS_OPERATION,
                "1",
                Some(realm),
                "{event_type} listener skipped: its realm's document is not fully active"
            );
            return;
        }
        let outermost = self.script_depth == 0;
        // A listener's exception is reported by the script that threw it; dispatch goes on.
        let _ = self.call(callback, vec![Value::Event(event)]);
        if outermost {
            self.clean_up_after_running_script();
        }
    }

    /// <https://dom.spec.whatwg.org/#dom-event-preventdefault>: sets the canceled flag of a
    /// cancelable event outside a passive listener.
    fn prevent_default(&mut self, event: EventKey) {
        let Some(e) = self.dom.events.get(event) else {
            return;
        };
        if e.init.cancelable && !e.in_passive_listener {
            self.dom.events[event].canceled = true;
        }
    }

    /// <https://dom.spec.whatwg.org/#dom-event-stoppropagation>
    fn stop_propagation(&mut self, event: EventKey) {
        if let Some(e) = self.dom.events.get_mut(event) {
            e.stop_propagation = true;
        }
    }

    /// <https://dom.spec.whatwg.org/#dom-event-stopimmediatepropagation>
    fn stop_immediate_propagation(&mut self, event: EventKey) {
        if let Some(e) = self.dom.events.get_mut(event) {
            e.stop_propagation = true;
            e.stop_immediate_propagation = true;
        }
    }

    /// The event object, to read.
    fn event_record(&self, event: EventKey) -> Option<&EventRecord> {
        self.dom.events.get(event)
    }

    /// An attribute of an event as script reads it (`type`, `bubbles`, `cancelable`,
    /// `composed`, `isTrusted`, `defaultPrevented`, `eventPhase`, `target`, `currentTarget`,
    /// `submitter`, `interface`); `None` for a member events do not have.
    fn event_member(&self, event: EventKey, name: &str) -> Option<Value> {
        let e = self.dom.events.get(event)?;
        let target = |t: Option<PathTarget>| match t {
            Some(PathTarget::Node(n)) => Value::Node(n),
            Some(PathTarget::Window(d)) => Value::Window(d, Facet::Window),
            None => Value::Null,
        };
        Some(match name {
            "type" => Value::string(&e.init.event_type),
            "interface" => Value::string(e.init.interface),
            "bubbles" => Value::Bool(e.init.bubbles),
            "cancelable" => Value::Bool(e.init.cancelable),
            "composed" => Value::Bool(e.init.composed),
            "isTrusted" => Value::Bool(e.is_trusted),
            "defaultPrevented" => Value::Bool(e.canceled),
            "eventPhase" => Value::number(f64::from(e.event_phase)),
            "target" | "srcElement" => target(e.target),
            "currentTarget" => target(e.current_target),
            "submitter" if e.init.interface == "SubmitEvent" => {
                e.submitter.map(Value::Node).unwrap_or(Value::Null)
            }
            "agentInvoked" if e.init.interface == "SubmitEvent" => Value::Bool(e.agent_invoked),
            _ => return None,
        })
    }

    /// Calls a method of an event (`preventDefault`, `stopPropagation`,
    /// `stopImmediatePropagation`); false for a method events do not have.
    fn event_method(&mut self, event: EventKey, name: &str) -> bool {
        match name {
            "preventDefault" => self.prevent_default(event),
            "stopPropagation" => self.stop_propagation(event),
            "stopImmediatePropagation" => self.stop_immediate_propagation(event),
            _ => return false,
        }
        true
    }

    /// <https://html.spec.whatwg.org/multipage/interaction.html#dom-click>: `element.click()`
    /// from script (an untrusted click), or the user's click (`trusted`).
    fn click(&mut self, element: NodeKey, trusted: bool) {
        // 1. A disabled form control ignores it.
        if self.is_form_control(element) && self.is_disabled(element) {
            return;
        }
        // 2-3. The click in progress flag stops a click from clicking itself again.
        if self.dom.click_in_progress.contains(&element) {
            return;
        }
        self.dom.click_in_progress.push(element);
        // 4. Fire a synthetic pointer event named click (bubbles, cancelable, composed).
        let init = EventInit::new("click")
            .bubbles()
            .cancelable()
            .composed()
            .interface("PointerEvent");
        let event = self.create_event(init, trusted);
        self.dispatch(element, event);
        // 5. Unset the flag.
        self.dom.click_in_progress.retain(|e| *e != element);
    }

    /// A form control in the sense of `click()`'s first step: `button`, `input`, `select`,
    /// `textarea`.
    fn is_form_control(&self, element: NodeKey) -> bool {
        matches!(
            self.html_name(element),
            Some("button" | "input" | "select" | "textarea")
        )
    }
}

impl<H: Host> Dispatch for H {}
