//! Declarative WebMCP: a `<form toolname tooldescription>` is a tool of its document.
//!
//! <https://webmachinelearning.github.io/webmcp/#declarative-api>
//!
//! The text's section is a TODO: "synthesize a declarative JSON Schema object" has one TODO
//! step and "the declarative execute steps" one Issue box, and the declarative explainer
//! (`declarative-api-explainer.md` at 0b676d27) describes the behaviour in prose. The
//! algorithms here are the engine's, written as the text would write them, each choice stated
//! at its step; where the explainer and Chromium 156 (the one browser that ships the feature,
//! measured by the probe pages in wpt-mirror/webmcp/probes/) part, a switch chooses.
//!
//! - [`Declarative::declarative_tool_of_a_form`]: the tool definition a form stands for.
//! - [`Declarative::update_a_forms_declarative_tool`]: run when a form, one of its controls or
//!   a label changes (the DOM's insertion, removing and attribute change steps and HTML's form
//!   owner changes reach it through the world's host hooks).
//! - [`synthesize_a_declarative_json_schema_object`]: the input schema, from the form's
//!   controls.
//! - [`Declarative::declarative_execute_steps`], the declarative submission steps and
//!   [`Declarative::finish_a_declarative_execution`]: filling the form, submitting it (or
//!   waiting for the user), `SubmitEvent.agentInvoked` and `respondWith()`, and the result.
//!
//! The pseudo-classes `:tool-form-active` (the form) and `:tool-submit-active` (its default
//! button) match while an execution runs, from the end of the fill until it finishes.
//!
//! Not modelled (there is nothing in the simulation they could act on): focusing the submit
//! button when the execution waits for the user, the sandboxing flags other than origin,
//! scripts and forms, custom elements as parameters.

use indexmap::IndexMap;
use serde_json::{Map, Number, Value as Json};

use super::errors::{DeclarativeFailure, Rejection};
use super::pending::PendingExecutions;
use super::readiness::Readiness;
use super::registry::{check_tool_name, Registry};
use super::steps::{AbortStep, ReactionStep, TaskStep};
use super::switches::{
    DeclarativeEmptyDescription, DeclarativeNumberFormat, DeclarativeRegistrationTiming,
    DeclarativeSandboxedSubmission, DeclarativeSchema, DeclarativeToolactivated,
    DeclarativeUpdateToolchange, ErrorMessages, ReadinessToolchange, ToolResult,
};
use super::{
    ExecuteSteps, LocalPendingToolExecution, ToolDefinition, Uuid, WebMcpHost,
    DECLARATIVE_EXECUTE_STEPS, DECLARATIVE_SUBMISSION_STEPS, DECLARATIVE_TOOL_OF_A_FORM,
    FINISH_A_DECLARATIVE_EXECUTION, SYNTHESIZE_A_DECLARATIVE_JSON_SCHEMA_OBJECT,
    UPDATE_A_FORMS_DECLARATIVE_TOOL,
};
use crate::host::dom::{Dispatch, EventInit, NodeData};
use crate::host::event_loop::{EventLoops, TaskAction, TaskSource};
use crate::host::events::{Event, EventTargetRef, Events};
use crate::host::forms::prelude::Selects;
use crate::host::forms::{Controls, InputType, Submission, SubmissionPoint};
use crate::host::keys::{DocumentKey, EventKey, NodeKey, SignalKey};
use crate::host::promise::Handler;
use crate::host::value::{ErrorValue, Value};
use crate::host::{HostState, Running};
use crate::step;

/// The pseudo-class an executing tool's form matches.
pub const TOOL_FORM_ACTIVE: &str = "tool-form-active";
/// The pseudo-class an executing tool's default button matches.
pub const TOOL_SUBMIT_ACTIVE: &str = "tool-submit-active";

/// What WebMCP keeps about a form: the tool it holds and the execution running it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FormTool {
    /// The document whose tool map holds the form's tool, and the tool's name there.
    pub registered: Option<(DocumentKey, String)>,
    /// An update is queued (declarative-registration-timing=chromium-156).
    pub update_queued: bool,
    /// The execution running the form, if one is.
    pub run: Option<DeclarativeRun>,
}

/// A running declarative execution.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeclarativeRun {
    pub uuid: Uuid,
    pub target: DocumentKey,
    pub tool_name: String,
    pub phase: RunPhase,
    /// The element that matches `:tool-submit-active`.
    pub submit_button: Option<NodeKey>,
    /// The local pending tool execution's controller.
    pub controller: SignalKey,
}

/// Where a running declarative execution is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RunPhase {
    /// Filled; waiting for the user to submit (no `toolautosubmit`).
    WaitingForUser,
    /// The form's submission is under way (its `submit` event is being fired).
    Submitting,
    /// The page called `respondWith()`: waiting for its promise.
    Responding,
    /// The submission was refused (a sandbox without `allow-forms`) and nothing will answer
    /// (declarative-sandboxed-submission=bug-pending); a reset, a removal, a change of the
    /// tool or the caller's abort still end it.
    Stalled,
}

/// What kind of parameter a group of controls of one name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A text-like `input` (every type whose value is free text, and `hidden`), or a
    /// `textarea`.
    Text,
    /// `input type=number` or `range`.
    Number,
    /// `date`, `time`, `datetime-local`, `month`, `week`.
    Temporal(InputType),
    Color,
    /// One checkbox: a boolean.
    Checkbox,
    /// Several checkboxes of one name: an array of their values.
    CheckboxGroup,
    /// Radio buttons of one name: one of their values.
    Radio,
    Select,
    SelectMultiple,
}

/// A parameter of a form's tool: a name and the controls that stand for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub controls: Vec<NodeKey>,
    pub kind: ParamKind,
}

/// Declarative WebMCP's algorithms.
pub trait Declarative: WebMcpHost {
    // Hooks: what the world's DOM and HTML hooks call.

    /// DOM's insertion steps, and the attribute change steps: the forms whose tool the change
    /// may affect are updated.
    fn declarative_node_changed(&mut self, node: NodeKey) {
        for form in affected_forms(self, node) {
            self.form_tool_may_have_changed(form);
        }
    }

    /// DOM's removing steps: the removed node and the form it was in (through its old
    /// parent).
    fn declarative_node_removed(&mut self, node: NodeKey, old_parent: Option<NodeKey>) {
        let mut forms = affected_forms(self, node);
        if let Some(parent) = old_parent {
            for f in affected_forms(self, parent) {
                if !forms.contains(&f) {
                    forms.push(f);
                }
            }
        }
        for form in forms {
            self.form_tool_may_have_changed(form);
        }
    }

    /// A control's form owner changed: both forms' schemas may have.
    fn declarative_form_owner_changed(&mut self, old: Option<NodeKey>, new: Option<NodeKey>) {
        for form in [old, new].into_iter().flatten() {
            self.form_tool_may_have_changed(form);
        }
    }

    /// A form was reset: an execution running it is cancelled (the explainer: "running" ends
    /// on reset; Chromium 156 rejects it with an UnknownError and fires no `toolcancel`).
    fn declarative_form_reset(&mut self, form: NodeKey) {
        if self.run_of(form).is_some() {
            self.finish_a_declarative_execution(form, Err(DeclarativeFailure::Reset));
        }
    }

    /// Something a form's tool is made of changed: update it now, or in a task
    /// (declarative-registration-timing).
    fn form_tool_may_have_changed(&mut self, form: NodeKey) {
        let tracked = self.webmcp().declarative_forms.contains_key(form);
        if !tracked && !self.has_attribute(form, "toolname") {
            return;
        }
        match self.switches().declarative_registration_timing {
            DeclarativeRegistrationTiming::Sync => self.update_a_forms_declarative_tool(form),
            // Chromium 156: a change that ends the tool unregisters it at once; any other
            // change is applied in a task, one per form however many changes come first.
            DeclarativeRegistrationTiming::Chromium156 => {
                let registered = self.form_tool(form).and_then(|t| t.registered.clone());
                if registered.is_some() && !self.would_be_a_tool(form) {
                    return self.update_a_forms_declarative_tool(form);
                }
                if self.form_tool(form).is_some_and(|t| t.update_queued) {
                    return;
                }
                let doc = self.node_document(form);
                // A document without a browsing context runs no task: its form is updated at
                // once (to no tool), so that moved into a page later it is not left waiting
                // for a task that never comes.
                if self.documents[doc].navigable.is_none() {
                    return self.update_a_forms_declarative_tool(form);
                }
                self.form_tool_mut(form).update_queued = true;
                self.queue_global_task(
                    doc,
                    TaskSource::DomManipulation,
                    TaskAction::Webmcp(TaskStep::UpdateDeclarativeTool { form }),
                );
            }
        }
    }

    /// The queued update (declarative-registration-timing=chromium-156).
    fn queued_declarative_update(&mut self, form: NodeKey) {
        if let Some(t) = self.webmcp_mut().declarative_forms.get_mut(form) {
            t.update_queued = false;
        }
        self.update_a_forms_declarative_tool(form);
    }

    /// Whether the form has the attributes and place of a tool (its schema aside).
    fn would_be_a_tool(&self, form: NodeKey) -> bool {
        let doc = self.node_document(form);
        self.is_connected(form)
            && !self.documents[doc].destroyed
            && self
                .attribute(form, "toolname")
                .is_some_and(|n| check_tool_name(n).is_ok())
            && self.attribute(form, "tooldescription").is_some_and(|d| {
                !d.is_empty()
                    || self.switches().declarative_empty_description
                        == DeclarativeEmptyDescription::Allow
            })
    }

    /// The declarative tool of a form: the tool definition `form` stands for, or `None`.
    fn declarative_tool_of_a_form(&mut self, form: NodeKey) -> Option<ToolDefinition> {
        let doc = self.node_document(form);
        // 1. A form that is not connected is no tool (Chromium 156: a form in a disconnected
        //    subtree is not registered).
        if !self.is_connected(form) {
            step!(
                self,
                DECLARATIVE_TOOL_OF_A_FORM,
                "1",
                Some(doc),
                "not connected: null"
            );
            return None;
        }
        step!(self, DECLARATIVE_TOOL_OF_A_FORM, "1", Some(doc));
        // 2. Nor is one for which scripting is disabled: its document has no browsing context
        //    (made by `createHTMLDocument()` or `DOMParser`, or destroyed: a removed iframe's
        //    document; Chromium 156 registers neither, declarative/no-frame-documents), or is
        //    sandboxed without `allow-scripts` (Chromium 156 registers none of these either:
        //    webmcp/probes/declarative-sandbox; the fork's declarative/sandboxed-iframe expects
        //    the same), and the explainer says nothing: a tool whose page cannot run script
        //    could not answer through `respondWith()`.
        //    Under agent-cluster-check=origin-keyed, nor is a form of a document whose agent
        //    cluster is not origin-keyed, which registerTool() and getTools() refuse too:
        //    Chromium 156 fires no toolchange for it (declarative/document-domain-enabled-*).
        if self.scripting_is_disabled(doc) {
            step!(
                self,
                DECLARATIVE_TOOL_OF_A_FORM,
                "2",
                Some(doc),
                |w| if w.documents[doc].destroyed || w.documents[doc].navigable.is_none() {
                    "no browsing context: null".to_string()
                } else {
                    "sandboxed without allow-scripts: null".to_string()
                }
            );
            return None;
        }
        if self.refused_by_agent_cluster_check(doc) {
            step!(
                self,
                DECLARATIVE_TOOL_OF_A_FORM,
                "2",
                Some(doc),
                "its agent cluster is not origin-keyed (agent-cluster-check=origin-keyed): null"
            );
            return None;
        }
        step!(self, DECLARATIVE_TOOL_OF_A_FORM, "2", Some(doc));
        // 3. Both toolname and tooldescription must be present.
        let (Some(name), Some(description)) = (
            self.attribute(form, "toolname").map(str::to_string),
            self.attribute(form, "tooldescription").map(str::to_string),
        ) else {
            step!(
                self,
                DECLARATIVE_TOOL_OF_A_FORM,
                "3",
                Some(doc),
                "toolname or tooldescription missing: null"
            );
            return None;
        };
        step!(self, DECLARATIVE_TOOL_OF_A_FORM, "3", Some(doc), "{name:?}");
        // 4. The name must be a valid tool name (registerTool()'s step 9 rule). Nothing tells
        //    the page: there is no promise to reject, and Chromium 156 is silent too.
        if let Err(why) = check_tool_name(&name) {
            step!(
                self,
                DECLARATIVE_TOOL_OF_A_FORM,
                "4",
                Some(doc),
                "the name {why}: null (no error reaches the page)"
            );
            return None;
        }
        step!(self, DECLARATIVE_TOOL_OF_A_FORM, "4", Some(doc));
        // 5. An empty description: declarative-empty-description.
        if description.is_empty()
            && self.switches().declarative_empty_description == DeclarativeEmptyDescription::Reject
        {
            step!(
                self,
                DECLARATIVE_TOOL_OF_A_FORM,
                "5",
                Some(doc),
                "empty description: null (declarative-empty-description=reject)"
            );
            return None;
        }
        step!(self, DECLARATIVE_TOOL_OF_A_FORM, "5", Some(doc));
        // 6. The input schema, stringified.
        let schema = synthesize_a_declarative_json_schema_object(self, form);
        let input_schema = serde_json::to_string(&schema).unwrap_or_default();
        step!(
            self,
            DECLARATIVE_TOOL_OF_A_FORM,
            "6",
            Some(doc),
            "{input_schema}"
        );
        // 7. The definition: the title from `tooltitle` (null without it), no annotations (the
        //    explainer defines none for forms), exposed to no other origin (a declarative
        //    tool has no exposedTo: same-origin documents of the tree see it, as in Chromium
        //    156), and the declarative execute steps given the form.
        step!(self, DECLARATIVE_TOOL_OF_A_FORM, "7", Some(doc));
        let mut definition = ToolDefinition {
            name,
            title: self.attribute(form, "tooltitle").map(str::to_string),
            description,
            input_schema,
            execute: ExecuteSteps::Declarative {
                form,
                autosubmit: self.has_attribute(form, "toolautosubmit"),
            },
            annotations: None,
            exposed_origins: Vec::new(),
            registered: Value::Undefined,
        };
        let origin = self.documents[doc].origin.clone();
        definition.registered = super::get_tools::registered_tool(&definition, doc, &origin);
        Some(definition)
    }

    /// Update a form's declarative tool.
    fn update_a_forms_declarative_tool(&mut self, form: NodeKey) {
        // 1. Let document be the form's node document.
        let document = self.node_document(form);
        step!(self, UPDATE_A_FORMS_DECLARATIVE_TOOL, "1", Some(document));
        // 2. Let definition be the declarative tool of the form.
        let definition = self.declarative_tool_of_a_form(form);
        step!(self, UPDATE_A_FORMS_DECLARATIVE_TOOL, "2", Some(document));
        // 3. Let old be the document and name the form's tool is registered under, if any.
        let old = self.form_tool(form).and_then(|t| t.registered.clone());
        step!(self, UPDATE_A_FORMS_DECLARATIVE_TOOL, "3", Some(document));
        // 4. If there is one:
        if let Some((old_doc, old_name)) = old {
            step!(self, UPDATE_A_FORMS_DECLARATIVE_TOOL, "4", Some(document));
            // 4.1. Nothing changed: return (no toolchange; Chromium 156 fires none either).
            let current = self.model_context(old_doc).tool_map.get(&old_name).cloned();
            if old_doc == document && definition.is_some() && current == definition {
                step!(
                    self,
                    UPDATE_A_FORMS_DECLARATIVE_TOOL,
                    "4.1",
                    Some(document),
                    "{old_name:?} is unchanged"
                );
                return;
            }
            step!(self, UPDATE_A_FORMS_DECLARATIVE_TOOL, "4.1", Some(document));
            // 4.2. An execution running the form ends: the tool it was started for is gone
            //      (the explainer; Chromium 156's "definition was updated"). One inside the
            //      form's own submit event survives, as in Chromium 156 and WPT's
            //      form_removal_submit_crash.
            if self
                .run_of(form)
                .is_some_and(|r| r.phase != RunPhase::Submitting)
            {
                step!(
                    self,
                    UPDATE_A_FORMS_DECLARATIVE_TOOL,
                    "4.2",
                    Some(document),
                    "the running execution is cancelled"
                );
                self.finish_a_declarative_execution(
                    form,
                    Err(DeclarativeFailure::DefinitionUpdated),
                );
            } else {
                step!(self, UPDATE_A_FORMS_DECLARATIVE_TOOL, "4.2", Some(document));
            }
            // 4.3. Same document and name (declarative-update-toolchange=once): replace the
            //      entry and notify once.
            if let Some(d) = definition.as_ref().filter(|d| {
                old_doc == document
                    && d.name == old_name
                    && self.switches().declarative_update_toolchange
                        == DeclarativeUpdateToolchange::Once
            }) {
                let context = self.context_of(document);
                self.webmcp_mut().model_contexts[context]
                    .tool_map
                    .insert(old_name.clone(), d.clone());
                step!(
                    self,
                    UPDATE_A_FORMS_DECLARATIVE_TOOL,
                    "4.3",
                    Some(document),
                    "{old_name:?} replaced (declarative-update-toolchange=once)"
                );
                return self.notify_declarative_change(document, &old_name);
            }
            step!(self, UPDATE_A_FORMS_DECLARATIVE_TOOL, "4.3", Some(document));
            // 4.4. Otherwise unregister it (which notifies).
            step!(
                self,
                UPDATE_A_FORMS_DECLARATIVE_TOOL,
                "4.4",
                Some(document),
                "unregister {old_name:?}"
            );
            let context = self.context_of(old_doc);
            self.unregister_a_tool(context, &old_name);
            self.form_tool_mut(form).registered = None;
        }
        // 5. No definition: return.
        let Some(definition) = definition else {
            step!(
                self,
                UPDATE_A_FORMS_DECLARATIVE_TOOL,
                "5",
                Some(document),
                "no tool"
            );
            self.forget_form_if_idle(form);
            return;
        };
        step!(self, UPDATE_A_FORMS_DECLARATIVE_TOOL, "5", Some(document));
        // 6. A name the tool map already holds stays with the tool that holds it (the first
        //    form, or a tool registerTool() registered): this form is no tool until it is
        //    updated again (Chromium 156: not even when the other tool goes).
        let name = definition.name.clone();
        if self.model_context(document).tool_map.contains_key(&name) {
            step!(
                self,
                UPDATE_A_FORMS_DECLARATIVE_TOOL,
                "6",
                Some(document),
                "{name:?} is taken: the form is not a tool"
            );
            self.forget_form_if_idle(form);
            return;
        }
        step!(self, UPDATE_A_FORMS_DECLARATIVE_TOOL, "6", Some(document));
        // 7. Set the tool map's entry, and remember it.
        let context = self.context_of(document);
        self.webmcp_mut().model_contexts[context]
            .tool_map
            .insert(name.clone(), definition);
        self.form_tool_mut(form).registered = Some((document, name.clone()));
        step!(
            self,
            UPDATE_A_FORMS_DECLARATIVE_TOOL,
            "7",
            Some(document),
            "{name:?} registered"
        );
        // 8. Notify documents of a tool change, in parallel (as registerTool() step 20.1).
        self.notify_declarative_change(document, &name);
    }

    /// update a form's declarative tool step 8 (and 4.3): notify, as registerTool() does.
    fn notify_declarative_change(&mut self, document: DocumentKey, name: &str) {
        step!(self, UPDATE_A_FORMS_DECLARATIVE_TOOL, "8", Some(document));
        let ready = if self.switches().readiness_toolchange == ReadinessToolchange::ReadyEvents {
            if !self.tools_ready(document) {
                return;
            }
            Some(true)
        } else {
            None
        };
        if let Some(notify) = self.registry_change(document, Vec::new(), ready) {
            let label = format!("declarative tool {name:?} of {}", self.label(document));
            self.in_parallel(label, vec![notify]);
        }
    }

    // The declarative execute steps.

    /// <https://webmachinelearning.github.io/webmcp/#declarative-execute-steps> (an Issue box in
    /// the text): the engine's steps.
    fn declarative_execute_steps(
        &mut self,
        tool: &ToolDefinition,
        form: NodeKey,
        autosubmit: bool,
        target: DocumentKey,
        input_arguments: &str,
        uuid: Uuid,
    ) {
        let chromium_activation =
            self.switches().declarative_toolactivated == DeclarativeToolactivated::Chromium156;
        // 1. Assert: running on the target's event loop.
        let on_its_loop = self.running == Running::EventLoop(self.documents[target].event_loop);
        self.assert_step(
            &DECLARATIVE_EXECUTE_STEPS,
            "1",
            Some(target),
            on_its_loop,
            "running on targetDocument's relevant agent's event loop",
        );
        step!(
            self,
            DECLARATIVE_EXECUTE_STEPS,
            "1",
            Some(target),
            "{:?}",
            tool.name
        );
        // 2. Parse the input; it must be an object (executeTool() serialized an object, but
        //    an array is one too: Chromium 156 rejects it here).
        let input = match Value::from_json_str(input_arguments) {
            Ok(Value::Object(members)) => members,
            _ => {
                step!(
                    self,
                    DECLARATIVE_EXECUTE_STEPS,
                    "2",
                    Some(target),
                    "the input is not an object: the execution fails"
                );
                return self.fail_before_running(
                    tool,
                    target,
                    uuid,
                    DeclarativeFailure::NotAnObject,
                );
            }
        };
        step!(self, DECLARATIVE_EXECUTE_STEPS, "2", Some(target));
        // 3. An execution already running this form ends first. (Chromium 156 lets the second
        //    take over the first's completion, so that their answers cross: a bug, not
        //    modelled; the engine fails the first.)
        if self.run_of(form).is_some() {
            step!(
                self,
                DECLARATIVE_EXECUTE_STEPS,
                "3",
                Some(target),
                "the form's running execution is superseded"
            );
            self.finish_a_declarative_execution(form, Err(DeclarativeFailure::Superseded));
        } else {
            step!(self, DECLARATIVE_EXECUTE_STEPS, "3", Some(target));
        }
        // 4. Without toolautosubmit the user submits: a form with no submit button cannot be
        //    (Chromium 156 fails before filling anything).
        let submit_button = self.default_button(form).filter(|b| !self.is_disabled(*b));
        if !autosubmit && submit_button.is_none() {
            step!(
                self,
                DECLARATIVE_EXECUTE_STEPS,
                "4",
                Some(target),
                "no submit button and no toolautosubmit: the execution fails"
            );
            return self.fail_before_running(
                tool,
                target,
                uuid,
                DeclarativeFailure::NoSubmitButton,
            );
        }
        step!(self, DECLARATIVE_EXECUTE_STEPS, "4", Some(target));
        // 5. Check every member before changing anything (a bad member fails the execution
        //    and leaves the form as it was, as in Chromium 156).
        step!(self, DECLARATIVE_EXECUTE_STEPS, "5", Some(target));
        let params = parameters(self, form);
        let mut fills = Vec::new();
        for (name, value) in &input {
            // 5.1. The member must name a parameter (a disabled or read-only control, or one
            //      the schema leaves out, is none).
            let Some(param) = params.iter().find(|p| &p.name == name) else {
                step!(
                    self,
                    DECLARATIVE_EXECUTE_STEPS,
                    "5.1",
                    Some(target),
                    "{name:?} is not a parameter: the execution fails"
                );
                let why = DeclarativeFailure::UnknownParameter(name.clone());
                return self.fail_before_running(tool, target, uuid, why);
            };
            step!(
                self,
                DECLARATIVE_EXECUTE_STEPS,
                "5.1",
                Some(target),
                "{name:?}"
            );
            // 5.2. Its value must be one the parameter can take (see `coerce`).
            match coerce(self, param, value) {
                Ok(fill) => fills.push((param.clone(), fill)),
                Err(shown) => {
                    step!(
                        self,
                        DECLARATIVE_EXECUTE_STEPS,
                        "5.2",
                        Some(target),
                        "{name:?} cannot take that value: the execution fails"
                    );
                    let why = DeclarativeFailure::InvalidValue {
                        name: name.clone(),
                        value: shown,
                    };
                    return self.fail_before_running(tool, target, uuid, why);
                }
            }
            step!(self, DECLARATIVE_EXECUTE_STEPS, "5.2", Some(target));
        }
        // 6. Record the local pending tool execution, whose controller the cancellation of
        //    the execution aborts (which ends the run: see `declarative_abort_steps`).
        let context = self.context_of(target);
        let controller = self.new_abort_controller(target, &format!("execution of {}", tool.name));
        self.add_abort_algorithm(controller, AbortStep::DeclarativeRunAborted { form, uuid });
        self.webmcp_mut().model_contexts[context]
            .local_pending_tool_executions
            .insert(
                uuid,
                LocalPendingToolExecution {
                    abort_controller: controller,
                },
            );
        self.form_tool_mut(form).run = Some(DeclarativeRun {
            uuid,
            target,
            tool_name: tool.name.clone(),
            phase: RunPhase::WaitingForUser,
            submit_button,
            controller,
        });
        step!(
            self,
            DECLARATIVE_EXECUTE_STEPS,
            "6",
            Some(target),
            "{uuid:?}"
        );
        // 7. Fill each parameter in the input's member order, firing `input` and `change` as
        //    Chromium 156 does (see `fill`): a listener may change the form meanwhile.
        for (param, value) in fills {
            fill(self, &param, value);
        }
        step!(self, DECLARATIVE_EXECUTE_STEPS, "7", Some(target));
        // A listener may have ended the run (a reset, a removal).
        if self.run_of(form).map(|r| r.uuid) != Some(uuid) {
            return;
        }
        // 8. The form and its default button match the pseudo-classes.
        self.set_pseudo_class_state(form, TOOL_FORM_ACTIVE, true);
        if let Some(b) = submit_button {
            self.set_pseudo_class_state(b, TOOL_SUBMIT_ACTIVE, true);
        }
        step!(self, DECLARATIVE_EXECUTE_STEPS, "8", Some(target));
        // 9. toolactivated, once filled and before submission (the explainer); under
        //    declarative-toolactivated=chromium-156 at step 13 instead.
        if chromium_activation {
            step!(
                self,
                DECLARATIVE_EXECUTE_STEPS,
                "9",
                Some(target),
                "toolactivated waits (declarative-toolactivated=chromium-156)"
            );
        } else {
            step!(self, DECLARATIVE_EXECUTE_STEPS, "9", Some(target));
            self.fire_toolactivated(target, &tool.name);
        }
        // 10. Without toolautosubmit: wait for the user to submit (the declarative submission
        //     steps go on from there).
        if !autosubmit {
            step!(
                self,
                DECLARATIVE_EXECUTE_STEPS,
                "10",
                Some(target),
                "waiting for the user to submit"
            );
            if chromium_activation {
                step!(self, DECLARATIVE_EXECUTE_STEPS, "13", Some(target));
                self.fire_toolactivated(target, &tool.name);
            }
            return;
        }
        step!(self, DECLARATIVE_EXECUTE_STEPS, "10", Some(target));
        // 11. The submission is the agent's: its submit event says so (agentInvoked).
        if let Some(r) = self.run_mut(form) {
            r.phase = RunPhase::Submitting;
        }
        step!(self, DECLARATIVE_EXECUTE_STEPS, "11", Some(target));
        // 12. Submit the form from its default button, as requestSubmit() does (validation,
        //     `invalid` and `submit` events); the declarative submission steps follow its
        //     outcome.
        step!(self, DECLARATIVE_EXECUTE_STEPS, "12", Some(target));
        let submitter = submit_button.unwrap_or(form);
        self.submit_form(form, submitter, false);
        // A submission that stopped before its event (the form cannot navigate, or it is
        // already firing its submission events) ends the run with no result: nothing will
        // answer it. (Chromium 156 never settles such a submission: a bug, modelled for the
        // sandbox that refuses forms, declarative-sandboxed-submission=bug-pending, where it
        // was measured.)
        if self
            .run_of(form)
            .is_some_and(|r| r.uuid == uuid && r.phase == RunPhase::Submitting)
        {
            self.finish_a_declarative_execution(form, Ok(None));
        }
        // 13. toolactivated (declarative-toolactivated=chromium-156: after the submit event).
        if chromium_activation {
            step!(self, DECLARATIVE_EXECUTE_STEPS, "13", Some(target));
            self.fire_toolactivated(target, &tool.name);
        }
    }

    /// A failure found before anything changed: the completion steps given failure, and
    /// (declarative-toolactivated=chromium-156) toolactivated all the same.
    fn fail_before_running(
        &mut self,
        tool: &ToolDefinition,
        target: DocumentKey,
        uuid: Uuid,
        why: DeclarativeFailure,
    ) {
        self.completion_steps(target, uuid, None, Some(Rejection::Declarative(why)));
        if self.switches().declarative_toolactivated == DeclarativeToolactivated::Chromium156 {
            step!(self, DECLARATIVE_EXECUTE_STEPS, "13", Some(target));
            self.fire_toolactivated(target, &tool.name);
        }
    }

    /// Fires `toolactivated` at the target's `ModelContext` (a `ToolActivatedEvent`).
    fn fire_toolactivated(&mut self, target: DocumentKey, tool_name: &str) {
        let context = self.context_of(target);
        let event = Event {
            event_type: "toolactivated".into(),
            interface: "ToolActivatedEvent",
            attributes: vec![("toolName", Value::string(tool_name))],
        };
        self.dispatch_event(EventTargetRef::Webmcp(context), event);
    }

    /// Whether the `submit` event about to fire at `form` is the agent's: an execution runs
    /// the form and is not already answering.
    fn declarative_agent_invoked(&mut self, form: NodeKey) -> bool {
        let Some(run) = self.run_mut(form) else {
            return false;
        };
        if run.phase == RunPhase::Responding {
            return false;
        }
        // The user's submission of a waiting form is the agent's too (Chromium 156).
        run.phase = RunPhase::Submitting;
        true
    }

    /// The declarative submission steps: the form's submission reached `point`.
    fn declarative_submission_steps(&mut self, form: NodeKey, point: SubmissionPoint) {
        // 1. No execution runs the form, or it is already answering: nothing to do.
        let Some(run) = self.run_of(form).cloned() else {
            return;
        };
        if run.phase == RunPhase::Responding {
            return;
        }
        let target = run.target;
        step!(self, DECLARATIVE_SUBMISSION_STEPS, "1", Some(target));
        match point {
            // 2. Validation failed: the execution fails, naming each invalid control.
            SubmissionPoint::Invalid => {
                let list = self.invalid_controls_list(form);
                step!(
                    self,
                    DECLARATIVE_SUBMISSION_STEPS,
                    "2",
                    Some(target),
                    "validation failed: {list}"
                );
                self.finish_a_declarative_execution(
                    form,
                    Err(DeclarativeFailure::ValidationFailed(list)),
                );
            }
            SubmissionPoint::SubmitEvent(event) => {
                let (responded, canceled) = self
                    .event_record(event)
                    .map(|e| (e.responded_with.clone(), e.canceled))
                    .unwrap_or((None, false));
                // 3. respondWith() was called: wait for its promise (6).
                if let Some(value) = responded {
                    step!(
                        self,
                        DECLARATIVE_SUBMISSION_STEPS,
                        "3",
                        Some(target),
                        "respondWith() was called: its promise answers"
                    );
                    if let Some(r) = self.run_mut(form) {
                        r.phase = RunPhase::Responding;
                    }
                    let promise = self.promise_resolve(target, value);
                    let react = Handler::Webmcp {
                        realm: target,
                        step: ReactionStep::DeclarativeResult {
                            form,
                            uuid: run.uuid,
                        },
                    };
                    self.perform_promise_then(promise, react.clone(), react, None);
                    return;
                }
                // 4. Canceled without respondWith(): the page gave no answer; it fails.
                if canceled {
                    step!(
                        self,
                        DECLARATIVE_SUBMISSION_STEPS,
                        "4",
                        Some(target),
                        "the submit event was canceled without respondWith(): the execution fails"
                    );
                    return self.finish_a_declarative_execution(
                        form,
                        Err(DeclarativeFailure::PreventedWithoutRespond),
                    );
                }
                // 5. Otherwise the form was submitted (a navigation, a dialog, a
                //    `javascript:` URL): the result is null, at once (Chromium 156; what the
                //    agent could learn from the new document is "perform an observation"'s
                //    business).
                step!(
                    self,
                    DECLARATIVE_SUBMISSION_STEPS,
                    "5",
                    Some(target),
                    "the form was submitted: null"
                );
                self.finish_a_declarative_execution(form, Ok(None));
            }
            // 7. The form's document may not submit forms (sandboxed without allow-forms):
            //    HTML's submission returned without submitting anything.
            SubmissionPoint::Sandboxed => match self.switches().declarative_sandboxed_submission {
                DeclarativeSandboxedSubmission::Fail => {
                    step!(
                        self,
                        DECLARATIVE_SUBMISSION_STEPS,
                        "7",
                        Some(target),
                        "the form's document is sandboxed without allow-forms: the execution fails"
                    );
                    self.finish_a_declarative_execution(
                        form,
                        Err(DeclarativeFailure::SubmissionSandboxed),
                    );
                }
                DeclarativeSandboxedSubmission::BugPending => {
                    step!(
                        self,
                        DECLARATIVE_SUBMISSION_STEPS,
                        "7",
                        Some(target),
                        "the form's document is sandboxed without allow-forms: nothing answers (declarative-sandboxed-submission=bug-pending)"
                    );
                    if let Some(r) = self.run_mut(form) {
                        r.phase = RunPhase::Stalled;
                    }
                }
            },
            // 5. `form.submit()`: submitted without an event; null as well.
            SubmissionPoint::WithoutEvent => {
                step!(
                    self,
                    DECLARATIVE_SUBMISSION_STEPS,
                    "5",
                    Some(target),
                    "submit() submitted the form: null"
                );
                self.finish_a_declarative_execution(form, Ok(None));
            }
        }
    }

    /// The declarative submission steps' step 6: the respondWith() promise settled.
    fn declarative_result(&mut self, form: NodeKey, uuid: Uuid, fulfilled: bool, value: Value) {
        let Some(run) = self.run_of(form).filter(|r| r.uuid == uuid).cloned() else {
            // Cancelled meanwhile: the value is ignored.
            return;
        };
        step!(self, DECLARATIVE_SUBMISSION_STEPS, "6", Some(run.target));
        if !fulfilled {
            // 6.2. Rejected: the execution fails.
            step!(
                self,
                DECLARATIVE_SUBMISSION_STEPS,
                "6.2",
                Some(run.target),
                |w| format!("rejected with {}", w.display_value(&value))
            );
            return self
                .finish_a_declarative_execution(form, Err(DeclarativeFailure::RespondRejected));
        }
        // 6.1. Fulfilled: the value as a string, as the tool-result switch says (its
        //      chromium-156 value: a string as it is, the empty one too; another primitive as
        //      its ToString; an object as its JSON).
        let serialized = match self.switches().tool_result {
            ToolResult::Json => value.to_json_string(),
            ToolResult::StringsAsIs => match &value {
                Value::String(s) => Ok(s.clone()),
                v => v.to_json_string(),
            },
            ToolResult::Chromium156 => chromium_156_declarative_result(&value),
        };
        match serialized {
            Ok(s) => {
                step!(
                    self,
                    DECLARATIVE_SUBMISSION_STEPS,
                    "6.1",
                    Some(run.target),
                    "{s:?}"
                );
                self.finish_a_declarative_execution(form, Ok(Some(s)));
            }
            Err(_) => {
                step!(
                    self,
                    DECLARATIVE_SUBMISSION_STEPS,
                    "6.1",
                    Some(run.target),
                    "the value has no JSON form: the execution fails"
                );
                self.finish_a_declarative_execution(
                    form,
                    Err(DeclarativeFailure::RespondUnserializable),
                );
            }
        }
    }

    /// Finish a declarative execution, with its result or why it failed.
    fn finish_a_declarative_execution(
        &mut self,
        form: NodeKey,
        outcome: Result<Option<String>, DeclarativeFailure>,
    ) {
        // 1. Take the run from the form.
        let Some(run) = self
            .webmcp_mut()
            .declarative_forms
            .get_mut(form)
            .and_then(|t| t.run.take())
        else {
            return;
        };
        let target = run.target;
        step!(
            self,
            FINISH_A_DECLARATIVE_EXECUTION,
            "1",
            Some(target),
            "{:?}",
            run.uuid
        );
        // 2. The pseudo-classes no longer match.
        self.clear_pseudo_classes(form, run.submit_button);
        step!(self, FINISH_A_DECLARATIVE_EXECUTION, "2", Some(target));
        // 3. Remove the local pending tool execution; one already gone was cancelled (the
        //    cancellation answered the caller).
        let context = self.context_of(target);
        let was_local = self.webmcp_mut().model_contexts[context]
            .local_pending_tool_executions
            .remove(&run.uuid)
            .is_some();
        if !was_local {
            step!(
                self,
                FINISH_A_DECLARATIVE_EXECUTION,
                "3",
                Some(target),
                "{:?} was cancelled: return",
                run.uuid
            );
            self.forget_form_if_idle(form);
            return;
        }
        step!(self, FINISH_A_DECLARATIVE_EXECUTION, "3", Some(target));
        // 4. Run the completion steps (in parallel, as the imperative steps do).
        step!(self, FINISH_A_DECLARATIVE_EXECUTION, "4", Some(target));
        self.forget_form_if_idle(form);
        match outcome {
            Ok(result) => self.completion_steps(target, run.uuid, result, None),
            Err(why) => {
                self.completion_steps(target, run.uuid, None, Some(Rejection::Declarative(why)))
            }
        }
    }

    /// The abort steps of a run's controller: cancel a pending tool execution aborted it.
    /// The run ends and the pseudo-classes stop matching (before `toolcancel` fires, as in
    /// Chromium 156); the filled values stay.
    fn declarative_abort_steps(&mut self, form: NodeKey, uuid: Uuid) {
        let matches = self.run_of(form).is_some_and(|r| r.uuid == uuid);
        if !matches {
            return;
        }
        if let Some(run) = self
            .webmcp_mut()
            .declarative_forms
            .get_mut(form)
            .and_then(|t| t.run.take())
        {
            self.clear_pseudo_classes(form, run.submit_button);
        }
        self.forget_form_if_idle(form);
    }

    /// `respondWith(value)` on a `SubmitEvent`: the checks, in Chromium 156's order.
    fn submit_event_respond_with_steps(
        &mut self,
        event: EventKey,
        value: Value,
    ) -> Result<(), ErrorValue> {
        let Some(e) = self.event_record(event) else {
            return Err(ErrorValue::dom("InvalidStateError", "no such event"));
        };
        let chromium = self.switches().error_messages == ErrorMessages::Chromium156;
        let error = |engine: &str, measured: &str| {
            let message = if chromium {
                format!("Failed to execute 'respondWith' on 'SubmitEvent': {measured}")
            } else {
                engine.to_string()
            };
            ErrorValue::dom("InvalidStateError", message)
        };
        if !e.agent_invoked {
            return Err(error(
                "respondWith() needs a submit event whose agentInvoked is true",
                "You can only call respondWith on an submit event that has agentInvoked == true.",
            ));
        }
        if !e.canceled {
            return Err(error(
                "respondWith() needs preventDefault() first",
                "To call respondWith, you must first call preventDefault.",
            ));
        }
        if !e.dispatching {
            return Err(error(
                "respondWith() needs the event to be being dispatched",
                "To call respondWith, the event must be currently being dispatched.",
            ));
        }
        // A second call replaces the first (Chromium 156: the last one wins).
        self.dom.events[event].responded_with = Some(value);
        Ok(())
    }

    // Bookkeeping.

    /// The controls that fail validation, as `name: message. ` each (Chromium 156's list).
    fn invalid_controls_list(&self, form: NodeKey) -> String {
        self.submittable_elements(form)
            .into_iter()
            .filter(|c| self.will_validate(*c) && !self.satisfies_constraints(*c))
            .map(|c| {
                format!(
                    "{}: {}. ",
                    self.attribute(c, "name").unwrap_or(""),
                    self.validation_message(c)
                )
            })
            .collect()
    }

    fn clear_pseudo_classes(&mut self, form: NodeKey, button: Option<NodeKey>) {
        self.set_pseudo_class_state(form, TOOL_FORM_ACTIVE, false);
        if let Some(b) = button {
            self.set_pseudo_class_state(b, TOOL_SUBMIT_ACTIVE, false);
        }
    }

    fn form_tool(&self, form: NodeKey) -> Option<&FormTool> {
        self.webmcp().declarative_forms.get(form)
    }

    fn form_tool_mut(&mut self, form: NodeKey) -> &mut FormTool {
        if !self.webmcp().declarative_forms.contains_key(form) {
            self.webmcp_mut()
                .declarative_forms
                .insert(form, FormTool::default());
        }
        self.webmcp_mut()
            .declarative_forms
            .get_mut(form)
            .expect("inserted above")
    }

    fn run_of(&self, form: NodeKey) -> Option<&DeclarativeRun> {
        self.form_tool(form).and_then(|t| t.run.as_ref())
    }

    fn run_mut(&mut self, form: NodeKey) -> Option<&mut DeclarativeRun> {
        self.webmcp_mut()
            .declarative_forms
            .get_mut(form)
            .and_then(|t| t.run.as_mut())
    }

    /// A form with no tool, no queued update and no run is not kept.
    fn forget_form_if_idle(&mut self, form: NodeKey) {
        if self
            .form_tool(form)
            .is_some_and(|t| t.registered.is_none() && !t.update_queued && t.run.is_none())
        {
            self.webmcp_mut().declarative_forms.remove(form);
        }
    }
}

impl<W: WebMcpHost> Declarative for W {}

/// The forms whose tool a change of `node` may affect: the node itself if it is a form, the
/// form it is in, the form owner of a control, and the owner of a label's control.
fn affected_forms<U: crate::host::seam::Upper>(w: &HostState<U>, node: NodeKey) -> Vec<NodeKey> {
    let mut forms = Vec::new();
    let add = |f: NodeKey, forms: &mut Vec<NodeKey>| {
        if !forms.contains(&f) {
            forms.push(f);
        }
    };
    if w.is_html(node, "form") {
        add(node, &mut forms);
    }
    if let Some(f) = w.ancestors(node).find(|a| w.is_html(*a, "form")) {
        add(f, &mut forms);
    }
    if let Some(f) = w.form_owner(node) {
        add(f, &mut forms);
    }
    if w.is_html(node, "label") {
        if let Some(f) = w.labeled_control(node).and_then(|c| w.form_owner(c)) {
            add(f, &mut forms);
        }
    }
    if let Some(select) = w.owning_select(node) {
        if let Some(f) = w.form_owner(select) {
            add(f, &mut forms);
        }
    }
    forms
}

/// The parameters of a form's tool, in the order of `form.elements`: its listed controls that
/// an agent can fill, grouped by name.
///
/// Left out (Chromium 156's choices, which the engine follows: a reviewer could include some
/// of them, but none has a value an agent could usefully give): buttons of every kind, file
/// inputs (no file can be chosen), `output`, `object` and `fieldset`; disabled controls (a
/// control in a disabled fieldset, except in its first legend); read-only text controls; a
/// hidden input without a non-empty `toolparamdescription` (the page's own state, unless it
/// asks for it).
pub fn parameters<U: crate::host::seam::Upper>(w: &HostState<U>, form: NodeKey) -> Vec<Param> {
    let mut groups: IndexMap<String, Vec<NodeKey>> = IndexMap::new();
    for control in w.form_controls(form) {
        let t = w.input_type(control);
        let is_text_control = w.is_html(control, "textarea")
            || t.is_some_and(|t| {
                !matches!(
                    t,
                    InputType::Checkbox
                        | InputType::Radio
                        | InputType::Color
                        | InputType::Range
                        | InputType::Hidden
                )
            });
        let keep = (w.is_html(control, "input")
            || w.is_html(control, "select")
            || w.is_html(control, "textarea"))
            && !matches!(
                t,
                Some(
                    InputType::File
                        | InputType::Submit
                        | InputType::Image
                        | InputType::Reset
                        | InputType::Button
                )
            )
            && !w.is_disabled(control)
            && !(is_text_control && w.has_attribute(control, "readonly"))
            && (t != Some(InputType::Hidden)
                || w.attribute(control, "toolparamdescription")
                    .is_some_and(|d| !d.is_empty()));
        if keep {
            let name = w.attribute(control, "name").unwrap_or("").to_string();
            groups.entry(name).or_default().push(control);
        }
    }
    groups
        .into_iter()
        .filter_map(|(name, controls)| {
            let kind = param_kind(w, &controls)?;
            Some(Param {
                name,
                controls,
                kind,
            })
        })
        .collect()
}

/// What a group of same-named controls is; `None` when they cannot be one parameter (two
/// controls of one name that are not all checkboxes or all radio buttons: Chromium 156 drops
/// the name, and so does the engine, since no one value could fill them).
fn param_kind<U: crate::host::seam::Upper>(
    w: &HostState<U>,
    controls: &[NodeKey],
) -> Option<ParamKind> {
    let types: Vec<Option<InputType>> = controls.iter().map(|c| w.input_type(*c)).collect();
    if types.iter().all(|t| *t == Some(InputType::Checkbox)) {
        return Some(if controls.len() == 1 {
            ParamKind::Checkbox
        } else {
            ParamKind::CheckboxGroup
        });
    }
    if types.iter().all(|t| *t == Some(InputType::Radio)) {
        return Some(ParamKind::Radio);
    }
    if controls.len() != 1 {
        return None;
    }
    let c = controls[0];
    Some(if w.is_html(c, "select") {
        if w.has_attribute(c, "multiple") {
            ParamKind::SelectMultiple
        } else {
            ParamKind::Select
        }
    } else {
        match types[0] {
            Some(InputType::Number | InputType::Range) => ParamKind::Number,
            Some(
                t @ (InputType::Date
                | InputType::Time
                | InputType::DatetimeLocal
                | InputType::Month
                | InputType::Week),
            ) => ParamKind::Temporal(t),
            Some(InputType::Color) => ParamKind::Color,
            _ => ParamKind::Text,
        }
    })
}

/// The sentence Chromium 156 appends to a date parameter's description.
const DATE_NOTE: &str = "Dates MUST be provided in 'YYYY-MM-DD' format.";

/// <https://webmachinelearning.github.io/webmcp/#synthesize-a-declarative-json-schema-object-algorithm>:
/// the input schema of a form's tool.
pub fn synthesize_a_declarative_json_schema_object<W: WebMcpHost>(
    w: &mut W,
    form: NodeKey,
) -> Json {
    let doc = w.node_document(form);
    let chromium = w.switches().declarative_schema == DeclarativeSchema::Chromium156;
    // 1. Let properties be an empty ordered map and required an empty list.
    step!(
        w,
        SYNTHESIZE_A_DECLARATIVE_JSON_SCHEMA_OBJECT,
        "1",
        Some(doc)
    );
    let mut properties = Map::new();
    let mut required = Vec::new();
    // 2. The parameters: the form's controls an agent can fill, grouped by name.
    let params = parameters(w, form);
    step!(
        w,
        SYNTHESIZE_A_DECLARATIVE_JSON_SCHEMA_OBJECT,
        "2",
        Some(doc)
    );
    // 2.1. (Same-named controls that are not one checkbox group or one radio group are
    //      dropped: see `param_kind`.)
    step!(
        w,
        SYNTHESIZE_A_DECLARATIVE_JSON_SCHEMA_OBJECT,
        "2.1",
        Some(doc)
    );
    // 3. For each parameter:
    for p in &params {
        step!(
            w,
            SYNTHESIZE_A_DECLARATIVE_JSON_SCHEMA_OBJECT,
            "3",
            Some(doc),
            "{:?}",
            p.name
        );
        // 3.1-3.2. Its schema, by kind.
        step!(
            w,
            SYNTHESIZE_A_DECLARATIVE_JSON_SCHEMA_OBJECT,
            "3.1",
            Some(doc)
        );
        let mut schema = param_schema(w, p, chromium);
        step!(
            w,
            SYNTHESIZE_A_DECLARATIVE_JSON_SCHEMA_OBJECT,
            "3.2",
            Some(doc)
        );
        // 3.3. Its description.
        let description = param_description(w, p);
        let description = match (p.kind, chromium) {
            (ParamKind::Temporal(InputType::Date), true) => Some(match description {
                Some(d) => format!("{d} ({DATE_NOTE})"),
                None => DATE_NOTE.to_string(),
            }),
            _ => description,
        };
        if let Some(d) = description {
            schema.insert("description".into(), Json::String(d));
        }
        step!(
            w,
            SYNTHESIZE_A_DECLARATIVE_JSON_SCHEMA_OBJECT,
            "3.3",
            Some(doc)
        );
        // 3.4. Required when any of its controls is.
        if p.controls.iter().any(|c| w.has_attribute(*c, "required")) {
            required.push(Json::String(p.name.clone()));
        }
        step!(
            w,
            SYNTHESIZE_A_DECLARATIVE_JSON_SCHEMA_OBJECT,
            "3.4",
            Some(doc)
        );
        // 3.5. properties[name] = schema.
        properties.insert(p.name.clone(), Json::Object(schema));
        step!(
            w,
            SYNTHESIZE_A_DECLARATIVE_JSON_SCHEMA_OBJECT,
            "3.5",
            Some(doc)
        );
    }
    // 4. Return {type: "object", properties, required}.
    step!(
        w,
        SYNTHESIZE_A_DECLARATIVE_JSON_SCHEMA_OBJECT,
        "4",
        Some(doc)
    );
    let mut schema = Map::new();
    schema.insert("type".into(), Json::String("object".into()));
    schema.insert("properties".into(), Json::Object(properties));
    schema.insert("required".into(), Json::Array(required));
    Json::Object(schema)
}

/// A number as JSON writes it: an integer without a fraction.
fn json_number(n: f64) -> Json {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        Json::Number(Number::from(n as i64))
    } else {
        Number::from_f64(n).map(Json::Number).unwrap_or(Json::Null)
    }
}

/// The schema of one parameter, without its description.
fn param_schema<U: crate::host::seam::Upper>(
    w: &HostState<U>,
    p: &Param,
    chromium: bool,
) -> Map<String, Json> {
    let mut s = Map::new();
    let c = p.controls[0];
    let string = |s: &mut Map<String, Json>| {
        s.insert("type".into(), Json::String("string".into()));
    };
    // An `input`'s `pattern`, when it compiles as HTML compiles it.
    let pattern = |c: NodeKey| {
        w.attribute(c, "pattern")
            .filter(|p| crate::host::regexp::compile_html_pattern(p).is_ok())
            .map(str::to_string)
    };
    match p.kind {
        ParamKind::Text => {
            string(&mut s);
            if w.is_html(c, "input") {
                if let Some(pat) = pattern(c) {
                    s.insert("pattern".into(), Json::String(pat));
                }
            }
        }
        ParamKind::Number => {
            let range = w.input_type(c) == Some(InputType::Range);
            let parse = |name: &str| {
                w.attribute(c, name)
                    .and_then(crate::host::forms::microsyntax::parse_floating_point_number)
            };
            s.insert("type".into(), Json::String("number".into()));
            let (min, max) = if range {
                let min = parse("min").unwrap_or(0.0);
                let max = parse("max").unwrap_or(100.0);
                (Some(min), Some(if max < min { min } else { max }))
            } else {
                (parse("min"), parse("max"))
            };
            if let Some(m) = min {
                s.insert("minimum".into(), json_number(m));
            }
            if let Some(m) = max {
                s.insert("maximum".into(), json_number(m));
            }
            // multipleOf: the step, when the step base (min, else the value attribute, else
            // 0) is a multiple of it; `step=any` has none (a range's counts as 1, as in
            // Chromium 156).
            let step_attr = w.attribute(c, "step");
            let step = match step_attr {
                Some(a) if a.eq_ignore_ascii_case("any") => range.then_some(1.0),
                Some(a) => Some(
                    crate::host::forms::microsyntax::parse_floating_point_number(a)
                        .filter(|s| *s > 0.0)
                        .unwrap_or(1.0),
                ),
                None => Some(1.0),
            };
            if let Some(step) = step {
                let base = min.or_else(|| parse("value")).unwrap_or(0.0);
                let q = base / step;
                if (q - q.round()).abs() < 1e-7 {
                    s.insert("multipleOf".into(), json_number(step));
                }
            }
            // Chromium 156 copies `pattern`, which HTML does not apply to numbers.
            if chromium && !range {
                if let Some(pat) = pattern(c) {
                    s.insert("pattern".into(), Json::String(pat));
                }
            }
        }
        ParamKind::Temporal(t) => {
            string(&mut s);
            if t == InputType::Date {
                s.insert("format".into(), Json::String("date".into()));
            } else {
                let expression = temporal_expression(w, c, t);
                // Chromium 156 writes the expression in `format`; JSON Schema's keyword for
                // one is `pattern`.
                let key = if chromium { "format" } else { "pattern" };
                s.insert(key.into(), Json::String(expression));
            }
        }
        ParamKind::Color => {
            string(&mut s);
            let key = if chromium { "format" } else { "pattern" };
            s.insert(key.into(), Json::String("^#[0-9a-zA-Z]{6}$".into()));
        }
        ParamKind::Checkbox => {
            s.insert("type".into(), Json::String("boolean".into()));
        }
        ParamKind::CheckboxGroup => {
            s.insert("type".into(), Json::String("array".into()));
            s.insert("items".into(), Json::Object(choices(w, p)));
            s.insert("uniqueItems".into(), Json::Bool(true));
        }
        ParamKind::Radio | ParamKind::Select => {
            s = choices(w, p);
        }
        ParamKind::SelectMultiple => {
            s.insert("type".into(), Json::String("array".into()));
            s.insert("items".into(), Json::Object(choices(w, p)));
            s.insert("uniqueItems".into(), Json::Bool(true));
        }
    }
    s
}

/// `{type: "string", anyOf: [{type, const, title?}...], enum: [...]}` for a select's options
/// (titled by their text, untrimmed) or a group's members (titled by their labels).
fn choices<U: crate::host::seam::Upper>(w: &HostState<U>, p: &Param) -> Map<String, Json> {
    let mut any_of = Vec::new();
    let mut values = Vec::new();
    let mut push = |value: String, title: Option<String>| {
        let mut o = Map::new();
        o.insert("type".into(), Json::String("string".into()));
        o.insert("const".into(), Json::String(value.clone()));
        if let Some(t) = title {
            o.insert("title".into(), Json::String(t));
        }
        any_of.push(Json::Object(o));
        values.push(Json::String(value));
    };
    if matches!(p.kind, ParamKind::Select | ParamKind::SelectMultiple) {
        for o in w.list_of_options(p.controls[0]) {
            push(w.option_value(o), Some(w.descendant_text_content(o)));
        }
    } else {
        for c in &p.controls {
            let title = label_text(w, *c);
            push(w.value(*c), title);
        }
    }
    let mut s = Map::new();
    s.insert("type".into(), Json::String("string".into()));
    s.insert("anyOf".into(), Json::Array(any_of));
    s.insert("enum".into(), Json::Array(values));
    s
}

/// The regular expression a time, datetime-local, month or week value must match (the step
/// decides whether seconds and fractions may be given).
fn temporal_expression<U: crate::host::seam::Upper>(
    w: &HostState<U>,
    c: NodeKey,
    t: InputType,
) -> String {
    let step = w
        .attribute(c, "step")
        .and_then(crate::host::forms::microsyntax::parse_floating_point_number)
        .filter(|s| *s > 0.0);
    let seconds = match step {
        None => "",
        Some(s) if s % 60.0 == 0.0 => "",
        Some(s) if s.fract() == 0.0 => "(:[0-5][0-9])?",
        Some(_) => "(:[0-5][0-9](\\.[0-9]{1,3})?)?",
    };
    let time = format!("([01][0-9]|2[0-3]):[0-5][0-9]{seconds}");
    match t {
        InputType::Time => format!("^{time}$"),
        InputType::DatetimeLocal => format!("^[0-9]{{4}}-(0[1-9]|1[0-2])-[0-9]{{2}}T{time}$"),
        InputType::Month => "^[0-9]{4}-(0[1-9]|1[0-2])$".into(),
        _ => "^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$".into(),
    }
}

/// A parameter's description. One control: a non-empty `toolparamdescription`, else its
/// labels' text, else `aria-description`. A checkbox or radio group: the
/// `toolparamdescription` of the nearest `fieldset` holding every member (a member's own is
/// not the group's), else a lone radio's labels. (Chromium 156's sources, which the engine
/// follows; `toolparamtitle` is not used: Chromium 156 ignores it, and the explainer does not
/// say what it would be.)
fn param_description<U: crate::host::seam::Upper>(w: &HostState<U>, p: &Param) -> Option<String> {
    let non_empty = |s: Option<&str>| s.filter(|s| !s.is_empty()).map(str::to_string);
    if matches!(p.kind, ParamKind::CheckboxGroup | ParamKind::Radio) {
        let first = p.controls[0];
        let fieldset = w.ancestors(first).find(|a| {
            w.is_html(*a, "fieldset") && p.controls.iter().all(|c| w.is_inclusive_ancestor(*a, *c))
        });
        if let Some(f) = fieldset {
            return non_empty(w.attribute(f, "toolparamdescription"));
        }
        // A radio button alone in its group is described as any other control is: by its own
        // toolparamdescription, then its labels (Chromium 156, measured by
        // declarative/toolchange-on-name-change).
        if p.controls.len() == 1 {
            return non_empty(w.attribute(first, "toolparamdescription"))
                .or_else(|| label_text(w, first));
        }
        return None;
    }
    let c = p.controls[0];
    non_empty(w.attribute(c, "toolparamdescription"))
        .or_else(|| label_text(w, c))
        .or_else(|| non_empty(w.attribute(c, "aria-description")))
}

/// A control's labels' text: each label's text without that of labelable elements inside it,
/// trimmed at its ends, the non-empty ones joined with "; ".
fn label_text<U: crate::host::seam::Upper>(w: &HostState<U>, control: NodeKey) -> Option<String> {
    let texts: Vec<String> = w
        .labels(control)
        .into_iter()
        .map(|label| {
            let mut text = String::new();
            collect_label_text(w, label, &mut text);
            text.trim_matches(|c: char| c.is_ascii_whitespace())
                .to_string()
        })
        .filter(|t| !t.is_empty())
        .collect();
    (!texts.is_empty()).then(|| texts.join("; "))
}

fn collect_label_text<U: crate::host::seam::Upper>(
    w: &HostState<U>,
    node: NodeKey,
    out: &mut String,
) {
    for child in w.children(node).to_vec() {
        match w.node(child).map(|n| &n.data) {
            Some(NodeData::Text(t)) => out.push_str(t),
            Some(NodeData::Element(_)) if !w.is_labelable(child) => {
                collect_label_text(w, child, out)
            }
            _ => {}
        }
    }
}

/// What filling one parameter means.
#[derive(Clone, Debug, PartialEq)]
pub enum Fill {
    /// A control's new value (text, number, date, colour, textarea, select).
    Value(String),
    Checked(bool),
    /// The values of the group members to check (or options to select).
    Values(Vec<String>),
}

/// A number written into a control, as declarative-number-format says.
pub fn number_text<W: WebMcpHost>(w: &W, n: f64) -> String {
    match w.switches().declarative_number_format {
        DeclarativeNumberFormat::Shortest => Value::number(n).to_js_string(),
        DeclarativeNumberFormat::BugSixSignificantDigits => six_significant_digits(n),
    }
}

/// Chromium 156's rendering: integers of 32 bits as they are; anything else with six
/// significant digits, in exponent form (its zeros kept) below 1e-6 and from 1e6, else plain
/// with trailing zeros dropped.
pub fn six_significant_digits(n: f64) -> String {
    if n == 0.0 {
        return "0".into();
    }
    if n.fract() == 0.0 && n >= f64::from(i32::MIN) && n <= f64::from(i32::MAX) {
        return format!("{}", n as i64);
    }
    if !n.is_finite() {
        return Value::number(n).to_js_string();
    }
    let e = format!("{n:.5e}");
    let (mantissa, exponent) = e.split_once('e').unwrap_or((&e, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-6..6).contains(&exponent) {
        let sign = if exponent < 0 { "-" } else { "+" };
        return format!("{mantissa}e{sign}{}", exponent.abs());
    }
    let decimals = (5 - exponent).max(0) as usize;
    let fixed = format!("{n:.decimals$}");
    if fixed.contains('.') {
        fixed
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        fixed
    }
}

/// Checks a member's value against its parameter (declarative execute steps 5.2): `Ok` with
/// what to fill, or `Err` with the value as text when it is a string, number or boolean (for
/// the message). The coercions are Chromium 156's: numbers and booleans become text for text
/// controls; a numeric string fills a number; a checkbox takes a boolean, a number (non-zero
/// checks it) or "true"/"false"/"1"/"0" in any case; a radio or select takes its value's text.
fn coerce<W: WebMcpHost>(w: &W, p: &Param, value: &Value) -> Result<Fill, Option<String>> {
    let shown = match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(number_text(w, n.0)),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    let scalar_text = || -> Option<String> { shown.clone() };
    let c = p.controls[0];
    match p.kind {
        ParamKind::Text | ParamKind::Color => scalar_text().map(Fill::Value).ok_or(None),
        ParamKind::Temporal(t) => {
            let text = match value {
                Value::String(s) => s.clone(),
                _ => return Err(shown),
            };
            if t.string_to_number(&text).is_some() {
                Ok(Fill::Value(text))
            } else {
                Err(Some(text))
            }
        }
        ParamKind::Number => match value {
            Value::Number(n) => Ok(Fill::Value(number_text(w, n.0))),
            Value::String(s)
                if crate::host::forms::microsyntax::parse_floating_point_number(s).is_some() =>
            {
                Ok(Fill::Value(s.clone()))
            }
            _ => Err(shown),
        },
        ParamKind::Checkbox => match value {
            Value::Bool(b) => Ok(Fill::Checked(*b)),
            Value::Number(n) => Ok(Fill::Checked(n.0 != 0.0)),
            Value::String(s) if s.eq_ignore_ascii_case("true") || s == "1" => {
                Ok(Fill::Checked(true))
            }
            Value::String(s) if s.eq_ignore_ascii_case("false") || s == "0" => {
                Ok(Fill::Checked(false))
            }
            _ => Err(shown),
        },
        ParamKind::Radio | ParamKind::Select => {
            let Some(text) = (match value {
                Value::String(_) | Value::Number(_) => shown.clone(),
                _ => None,
            }) else {
                return Err(shown);
            };
            let known = if p.kind == ParamKind::Radio {
                p.controls.iter().any(|r| w.value(*r) == text)
            } else {
                w.list_of_options(c)
                    .iter()
                    .any(|o| w.option_value(*o) == text)
            };
            if known {
                Ok(Fill::Value(text))
            } else {
                Err(Some(text))
            }
        }
        ParamKind::CheckboxGroup | ParamKind::SelectMultiple => {
            let Value::Array(items) = value else {
                return Err(shown);
            };
            let allowed: Vec<String> = if p.kind == ParamKind::CheckboxGroup {
                p.controls.iter().map(|m| w.value(*m)).collect()
            } else {
                w.list_of_options(c)
                    .iter()
                    .map(|o| w.option_value(*o))
                    .collect()
            };
            let mut chosen: Vec<String> = Vec::new();
            for item in items {
                let Value::String(s) = item else {
                    return Err(None);
                };
                if !allowed.contains(s) || chosen.contains(s) {
                    return Err(None);
                }
                chosen.push(s.clone());
            }
            Ok(Fill::Values(chosen))
        }
    }
}

/// Fires the `input` event a fill fires (an `Event`, bubbling and composed, as in Chromium
/// 156) and then `change` (bubbling).
fn fire_input_and_change<W: WebMcpHost>(w: &mut W, control: NodeKey, input: bool) {
    if input {
        w.fire_event(control, EventInit::new("input").bubbles().composed());
    }
    w.fire_event(control, EventInit::new("change").bubbles());
}

/// Fills one parameter (declarative execute steps 7), with HTML's setters (and so its value
/// sanitization), firing what Chromium 156 fires: `input` and `change` at a control whose
/// value changed, nothing at an unchanged text control or select, `change` alone at an
/// unchanged checkbox, at every unchanged member of a checkbox group and at an unchanged chosen
/// radio button.
fn fill<W: WebMcpHost>(w: &mut W, p: &Param, fill: Fill) {
    let c = p.controls[0];
    match (p.kind, fill) {
        (ParamKind::Select, Fill::Value(v)) => {
            let before: Vec<bool> = w
                .list_of_options(c)
                .iter()
                .map(|o| w.selectedness(*o))
                .collect();
            w.set_select_value(c, &v);
            let after: Vec<bool> = w
                .list_of_options(c)
                .iter()
                .map(|o| w.selectedness(*o))
                .collect();
            if before != after {
                fire_input_and_change(w, c, true);
            }
        }
        (ParamKind::Radio, Fill::Value(v)) => {
            if let Some(r) = p.controls.iter().copied().find(|r| w.value(*r) == v) {
                let was = w.checkedness(r);
                w.set_checked(r, true);
                fire_input_and_change(w, r, !was);
            }
        }
        (_, Fill::Value(v)) => {
            let before = w.value(c);
            let _ = w.set_value(c, &v);
            if w.value(c) != before {
                fire_input_and_change(w, c, true);
            }
        }
        (_, Fill::Checked(on)) => {
            let was = w.checkedness(c);
            w.set_checked(c, on);
            fire_input_and_change(w, c, was != on);
        }
        (ParamKind::SelectMultiple, Fill::Values(values)) => {
            let options = w.list_of_options(c);
            let before: Vec<bool> = options.iter().map(|o| w.selectedness(*o)).collect();
            for o in &options {
                let on = values.contains(&w.option_value(*o));
                w.set_selectedness(*o, on);
            }
            let after: Vec<bool> = options.iter().map(|o| w.selectedness(*o)).collect();
            if before != after {
                fire_input_and_change(w, c, true);
            }
        }
        (_, Fill::Values(values)) => {
            for m in p.controls.clone() {
                let on = values.contains(&w.value(m));
                let was = w.checkedness(m);
                w.set_checked(m, on);
                fire_input_and_change(w, m, was != on);
            }
        }
    }
}

/// A `respondWith()` value as Chromium 156 gives it to the caller (tool-result=chromium-156):
/// a string as it is (the empty one too, unlike an imperative tool's result); undefined, a
/// function and an object whose toJSON() gives undefined as "undefined"; another primitive as
/// its ToString; an object as its JSON, which fails as JSON does.
fn chromium_156_declarative_result(value: &Value) -> Result<String, ErrorValue> {
    use crate::host::value::Unserializable;
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Undefined
        | Value::Function(_)
        | Value::Unserializable(Unserializable::ToJsonUndefined) => Ok("undefined".into()),
        Value::Null | Value::Bool(_) | Value::Number(_) => Ok(value.to_js_string()),
        other => other.to_json_string(),
    }
}
