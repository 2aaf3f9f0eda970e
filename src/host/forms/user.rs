//! What the user does to a control: type into it, click it, check it, pick an option, press
//! Enter in it. The agent that fills a form on a page's behalf uses the same operations.
//!
//! <https://html.spec.whatwg.org/multipage/input.html#common-input-element-events>,
//! <https://html.spec.whatwg.org/multipage/form-elements.html#send-select-update-notifications>,
//! <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#implicit-submission>

use super::super::dom::dispatch::{Dispatch, EventInit};
use super::super::dom::{DomError, DomTask};
use super::super::event_loop::{EventLoops, TaskAction, TaskSource};
use super::super::keys::NodeKey;
use super::super::Host;
use super::input::{InputType, ValueMode};
use super::sanitization::sanitized;
use super::select::Selects;
use super::submission::Submission;
use super::Control;

/// When the events of a user's change fire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EventTiming {
    /// As HTML says: in a task queued on the user interaction task source.
    #[default]
    Queued,
    /// At once, in the middle of the caller's steps.
    Immediate,
}

/// A user's interactions with controls.
pub trait UserActions: Host {
    /// Fires `events` at `target` (after setting its user validity to true, when asked), in
    /// a user interaction task or at once.
    fn fire_user_events(
        &mut self,
        target: NodeKey,
        events: Vec<EventInit>,
        user_validity: bool,
        timing: EventTiming,
    ) {
        match timing {
            EventTiming::Queued => {
                let doc = self.node_document(target);
                self.queue_global_task(
                    doc,
                    TaskSource::UserInteraction,
                    TaskAction::Dom(DomTask::FireEvents {
                        target,
                        events,
                        user_validity,
                    }),
                );
            }
            EventTiming::Immediate => {
                if user_validity {
                    if let Some(a) = self.association_mut(target) {
                        a.user_validity = true;
                    }
                }
                for e in events {
                    self.fire_event(target, e);
                }
            }
        }
    }

    /// The user replaces a text control's value with `text`, as if typed (an `input` in the
    /// value mode, or a `textarea`): the value as the type's sanitization leaves it, dirty
    /// and last changed by a user edit; text that is not a value of the type (letters in a
    /// number field) leaves the value empty and the control suffering from bad input. Then
    /// `input` fires and, when `commit`, `change` (the user committed the edit, which also
    /// sets the control's user validity).
    fn user_edit_value(
        &mut self,
        control: NodeKey,
        text: &str,
        commit: bool,
        timing: EventTiming,
    ) -> Result<(), DomError> {
        if !self.is_mutable(control) {
            return Err(DomError::InvalidState(format!(
                "{} is disabled or read-only: the user cannot edit it",
                self.describe_node(control)
            )));
        }
        match self.html_name(control) {
            Some("input") => {
                let t = self.input_type(control).unwrap_or_default();
                if t.value_mode() != ValueMode::Value
                    || t == InputType::Range
                    || t == InputType::Color
                {
                    return Err(DomError::InvalidState(format!(
                        "type={} is not edited by typing",
                        t.keyword()
                    )));
                }
                let multiple = self.has_attribute(control, "multiple");
                let value = sanitized(t, text, multiple, String::new);
                let bad_input = !text.is_empty() && value.is_empty();
                if let Some(Control::Input(s)) = self.control_mut(control) {
                    s.value = value;
                    s.dirty_value = true;
                    s.edited_by_user = true;
                    s.bad_input = bad_input;
                }
            }
            Some("textarea") => {
                if let Some(Control::TextArea(s)) = self.control_mut(control) {
                    s.raw_value = text.into();
                    s.dirty_value = true;
                    s.edited_by_user = true;
                }
            }
            _ => {
                return Err(DomError::InvalidState(format!(
                    "{} is not a text control",
                    self.describe_node(control)
                )))
            }
        }
        let mut events = vec![EventInit::new("input")
            .bubbles()
            .composed()
            .interface("InputEvent")];
        if commit {
            events.push(EventInit::new("change").bubbles());
        }
        self.fire_user_events(control, events, commit, timing);
        Ok(())
    }

    /// The user's click: a trusted `click`, with the element's activation behaviour
    /// (a checkbox toggles, a submit button submits, ...). A disabled control ignores it.
    fn user_click(&mut self, element: NodeKey) {
        self.click(element, true);
    }

    /// The user makes a checkbox or radio button checked or unchecked: a click when its
    /// checkedness differs.
    fn user_set_checkedness(&mut self, input: NodeKey, checked: bool) -> Result<(), DomError> {
        if !matches!(
            self.input_type(input),
            Some(InputType::Checkbox | InputType::Radio)
        ) {
            return Err(DomError::InvalidState(format!(
                "{} is not a checkbox or a radio button",
                self.describe_node(input)
            )));
        }
        if self.is_disabled(input) {
            return Err(DomError::InvalidState(format!(
                "{} is disabled",
                self.describe_node(input)
            )));
        }
        if self.checkedness(input) != checked {
            self.user_click(input);
        }
        Ok(())
    }

    /// The user picks an option of a `select` (or, with `multiple`, turns one on or off):
    /// its selectedness (dirty), the others unselected without `multiple`, then the select
    /// update notifications (user validity, `input`, `change`).
    fn user_select_option(
        &mut self,
        select: NodeKey,
        option: NodeKey,
        selected: bool,
        timing: EventTiming,
    ) -> Result<(), DomError> {
        if self.is_disabled(select) || self.is_disabled(option) {
            return Err(DomError::InvalidState(format!(
                "{} or {} is disabled",
                self.describe_node(select),
                self.describe_node(option)
            )));
        }
        if !self.list_of_options(select).contains(&option) {
            return Err(DomError::NotFound(format!(
                "{} is not an option of {}",
                self.describe_node(option),
                self.describe_node(select)
            )));
        }
        if self.selectedness(option) == selected {
            return Ok(());
        }
        if !selected && !self.has_attribute(select, "multiple") {
            return Err(DomError::InvalidState(
                "a select without `multiple` cannot be left with its option unselected by the user"
                    .into(),
            ));
        }
        if let Some(Control::Option(s)) = self.control_mut(option) {
            s.selectedness = selected;
            s.dirtiness = true;
        }
        if selected {
            self.unselect_others(option);
        }
        let events = vec![
            EventInit::new("input").bubbles().composed(),
            EventInit::new("change").bubbles(),
        ];
        self.fire_user_events(select, events, true, timing);
        Ok(())
    }

    /// <https://html.spec.whatwg.org/multipage/form-control-infrastructure.html#implicit-submission>:
    /// the user presses Enter in `field`. The form's default button, if it is not disabled,
    /// is clicked; with no submit button, a form with at most one field that blocks implicit
    /// submission is submitted from itself.
    fn user_implicit_submission(&mut self, field: NodeKey) {
        let Some(form) = self.form_owner(field) else {
            return;
        };
        if let Some(button) = self.default_button(form) {
            if !self.is_disabled(button) {
                self.user_click(button);
            }
            return;
        }
        let blocking = self
            .form_controls(form)
            .into_iter()
            .filter(|c| {
                self.input_type(*c)
                    .is_some_and(|t| t.blocks_implicit_submission())
            })
            .count();
        if blocking > 1 {
            return;
        }
        self.submit_form(form, form, false);
    }
}

impl<H: Host> UserActions for H {}
