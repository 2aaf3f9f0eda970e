//! Running a tool in its document: the tool execute steps and the imperative execute steps.
//!
//! <https://webmachinelearning.github.io/webmcp/#tool-execute-steps>,
//! <https://webmachinelearning.github.io/webmcp/#imperative-execute-steps>

use super::declarative::Declarative;
use super::errors::Rejection;
use super::pending::PendingExecutions;
use super::steps::{ReactionStep, TaskStep};
use super::switches::{ToolResult, ToolactivatedTiming};
use super::{
    ExecuteSteps, ExecutionKey, LocalPendingToolExecution, ToolDefinition, Uuid, WebMcpHost,
    IMPERATIVE_EXECUTE_STEPS, TOOL_EXECUTE_STEPS,
};
use crate::host::callback::Callback;
use crate::host::event_loop::{EventLoops, TaskAction, TaskSource};
use crate::host::events::{Event, EventTargetRef, Events};
use crate::host::keys::DocumentKey;
use crate::host::promise::{Handler, Promises};
use crate::host::value::{ErrorValue, Members, Value};
use crate::host::Running;
use crate::step;

/// The steps that run a tool in its document.
pub trait ToolExecuteSteps: WebMcpHost {
    /// executeTool() step 16.13: queue a webmcp task on the target's Window to run the tool
    /// execute steps.
    fn queue_tool_execute_steps(&mut self, target: DocumentKey, execution: ExecutionKey) {
        self.queue_global_task(
            target,
            TaskSource::Webmcp,
            TaskAction::Webmcp(TaskStep::ToolExecuteSteps { execution }),
        );
    }

    /// <https://webmachinelearning.github.io/webmcp/#tool-execute-steps>
    fn tool_execute_steps(&mut self, execution: ExecutionKey) {
        let e = self.webmcp().executions[execution].clone();
        let target = e.target;
        // 1. Assert: running on the target's event loop.
        let on_its_loop = self.running == Running::EventLoop(self.documents[target].event_loop);
        self.assert_step(
            &TOOL_EXECUTE_STEPS,
            "1",
            Some(target),
            on_its_loop,
            "running on targetDocument's relevant agent's event loop",
        );
        step!(
            self,
            TOOL_EXECUTE_STEPS,
            "1",
            Some(target),
            "{:?}",
            e.tool_name
        );
        // 2. The target's tool map.
        step!(self, TOOL_EXECUTE_STEPS, "2", Some(target));
        // 3. Unregistered since it was found: the execution fails (an Issue box asks for a
        //    NotFoundError in the caller instead).
        let Some(definition) = self
            .model_context(target)
            .tool_map
            .get(&e.tool_name)
            .cloned()
        else {
            step!(
                self,
                TOOL_EXECUTE_STEPS,
                "3",
                Some(target),
                "{:?} is no longer registered: the execution fails",
                e.tool_name
            );
            return self.completion_steps(
                target,
                e.uuid,
                None,
                Some(Rejection::ToolGone(e.tool_name.clone())),
            );
        };
        step!(self, TOOL_EXECUTE_STEPS, "3", Some(target));
        // 4-5. Run the tool's execute steps: the imperative or the declarative ones.
        step!(self, TOOL_EXECUTE_STEPS, "4", Some(target));
        step!(self, TOOL_EXECUTE_STEPS, "5", Some(target));
        match definition.execute.clone() {
            ExecuteSteps::Imperative(callback) => self.imperative_execute_steps(
                &definition,
                &callback,
                target,
                &e.input_arguments,
                e.uuid,
            ),
            ExecuteSteps::Declarative { form, autosubmit } => self.declarative_execute_steps(
                &definition,
                form,
                autosubmit,
                target,
                &e.input_arguments,
                e.uuid,
            ),
        }
    }

    /// <https://webmachinelearning.github.io/webmcp/#imperative-execute-steps>
    fn imperative_execute_steps(
        &mut self,
        tool: &ToolDefinition,
        execute: &Callback,
        target: DocumentKey,
        input_arguments: &str,
        uuid: Uuid,
    ) {
        // 1. Assert: running on the target's event loop.
        let on_its_loop = self.running == Running::EventLoop(self.documents[target].event_loop);
        self.assert_step(
            &IMPERATIVE_EXECUTE_STEPS,
            "1",
            Some(target),
            on_its_loop,
            "running on targetDocument's relevant agent's event loop",
        );
        step!(self, IMPERATIVE_EXECUTE_STEPS, "1", Some(target));
        // 2. Parse the input in the target's realm; an exception fails the execution (an Issue
        //    box asks for a DataError instead). executeTool() serialized it, so it parses.
        let input = match Value::from_json_str(input_arguments) {
            // Its objects and arrays are made in the target's realm.
            Ok(v) => v.fresh_in(target),
            Err(e) => {
                step!(
                    self,
                    IMPERATIVE_EXECUTE_STEPS,
                    "2",
                    Some(target),
                    "{}: the execution fails",
                    e.message
                );
                return self.completion_steps(target, uuid, None, Some(Rejection::BadInput));
            }
        };
        step!(self, IMPERATIVE_EXECUTE_STEPS, "2", Some(target));
        // 3. It must be an object.
        if !input.is_object() {
            step!(
                self,
                IMPERATIVE_EXECUTE_STEPS,
                "3",
                Some(target),
                "the input is not an object: the execution fails"
            );
            return self.completion_steps(target, uuid, None, Some(Rejection::BadInput));
        }
        step!(self, IMPERATIVE_EXECUTE_STEPS, "3", Some(target));
        // 4. Fire toolactivated at the target's ModelContext, a ToolActivatedEvent naming the
        //    tool. (toolactivated-timing=after-execute-starts: after step 9 instead, as WPT's
        //    executeTool-abort expects.)
        let context = self.context_of(target);
        let activated = Event {
            event_type: "toolactivated".into(),
            interface: "ToolActivatedEvent",
            attributes: vec![("toolName", Value::string(&tool.name))],
        };
        let before = self.switches().toolactivated_timing == ToolactivatedTiming::BeforeExecute;
        if before {
            step!(self, IMPERATIVE_EXECUTE_STEPS, "4", Some(target));
            self.dispatch_event(EventTargetRef::Webmcp(context), activated.clone());
        } else {
            step!(
                self,
                IMPERATIVE_EXECUTE_STEPS,
                "4",
                Some(target),
                "toolactivated waits until execute has been invoked (toolactivated-timing=after-execute-starts)"
            );
        }
        // 5. A new AbortController in the target's realm.
        let controller = self.new_abort_controller(target, &format!("execution of {}", tool.name));
        step!(self, IMPERATIVE_EXECUTE_STEPS, "5", Some(target));
        // 6-7. Record the local pending tool execution before the callback runs, so that a
        //      cancellation it causes itself finds it.
        step!(self, IMPERATIVE_EXECUTE_STEPS, "6", Some(target));
        self.webmcp_mut().model_contexts[context]
            .local_pending_tool_executions
            .insert(
                uuid,
                LocalPendingToolExecution {
                    abort_controller: controller,
                },
            );
        step!(
            self,
            IMPERATIVE_EXECUTE_STEPS,
            "7",
            Some(target),
            "{uuid:?}"
        );
        // 8. options: { signal }.
        let options = Value::Object(Members::in_realm(
            vec![("signal".into(), Value::Signal(controller))],
            target,
        ));
        step!(self, IMPERATIVE_EXECUTE_STEPS, "8", Some(target));
        // 9. Invoke execute with the input and options. What it throws becomes a rejected
        //    promise, what it returns is converted to Promise<any> in the target's realm
        //    (switch idl-promise-conversion).
        let returned = self.call(execute, vec![input, options]);
        let tool_promise = match returned {
            Ok(v) => self.convert_to_idl_promise(target, v),
            Err(thrown) => {
                let p = self.new_promise(target);
                self.reject_promise(p, thrown);
                p
            }
        };
        // The callback was called from outside any script, so the microtasks it queued run
        // now ("clean up after running script"), before the steps below.
        if self.script_depth == 0 {
            self.clean_up_after_running_script();
        }
        step!(self, IMPERATIVE_EXECUTE_STEPS, "9", Some(target));
        if !before {
            self.dispatch_event(EventTargetRef::Webmcp(context), activated);
        }
        // 10. React to toolPromise, in the target's realm (see `imperative_execute_result`).
        let react = Handler::Webmcp {
            realm: target,
            step: ReactionStep::ImperativeResult { target, uuid },
        };
        self.perform_promise_then(tool_promise, react.clone(), react, None);
        step!(self, IMPERATIVE_EXECUTE_STEPS, "10", Some(target));
    }

    /// The imperative execute steps' step 10: toolPromise settled.
    fn imperative_execute_result(
        &mut self,
        target: DocumentKey,
        uuid: Uuid,
        fulfilled: bool,
        value: Value,
    ) {
        let context = self.context_of(target);
        let local = |w: &Self| {
            w.webmcp().model_contexts[context]
                .local_pending_tool_executions
                .contains_key(&uuid)
        };
        if fulfilled {
            step!(self, IMPERATIVE_EXECUTE_STEPS, "10.1", Some(target));
            // 10.1.1-10.1.2. A cancelled execution has no local entry any more: nothing to do.
            step!(self, IMPERATIVE_EXECUTE_STEPS, "10.1.1", Some(target));
            if !local(self) {
                step!(
                    self,
                    IMPERATIVE_EXECUTE_STEPS,
                    "10.1.2",
                    Some(target),
                    "{uuid:?} was cancelled: return"
                );
                return;
            }
            step!(self, IMPERATIVE_EXECUTE_STEPS, "10.1.2", Some(target));
            // 10.1.3. Remove the local entry.
            self.webmcp_mut().model_contexts[context]
                .local_pending_tool_executions
                .remove(&uuid);
            step!(self, IMPERATIVE_EXECUTE_STEPS, "10.1.3", Some(target));
            // 10.1.4. Serialize the value to JSON; an exception (or no JSON form) fails the
            //         execution. (tool-result=strings-as-is: a string comes back as it is, as
            //         WPT's tests expect.)
            let serialized = match self.switches().tool_result {
                ToolResult::Json => value.to_json_string(),
                ToolResult::StringsAsIs => match &value {
                    Value::String(s) => Ok(s.clone()),
                    v => v.to_json_string(),
                },
                ToolResult::Chromium156 => chromium_156_result(&value),
            };
            let serialized = match serialized {
                Ok(s) => s,
                Err(e) => {
                    step!(
                        self,
                        IMPERATIVE_EXECUTE_STEPS,
                        "10.1.4",
                        Some(target),
                        "{}: the execution fails",
                        e.message
                    );
                    return self.completion_steps(target, uuid, None, Some(Rejection::ToolFailed));
                }
            };
            step!(
                self,
                IMPERATIVE_EXECUTE_STEPS,
                "10.1.4",
                Some(target),
                "{serialized:?}"
            );
            // 10.1.5. Complete with it.
            step!(self, IMPERATIVE_EXECUTE_STEPS, "10.1.5", Some(target));
            self.completion_steps(target, uuid, Some(serialized), None);
        } else {
            step!(self, IMPERATIVE_EXECUTE_STEPS, "10.2", Some(target));
            // 10.2.1. (Optionally report a warning: the trace shows the reason.)
            step!(
                self,
                IMPERATIVE_EXECUTE_STEPS,
                "10.2.1",
                Some(target),
                |w| format!("rejected with {}", w.display_value(&value))
            );
            // 10.2.2-10.2.3. A cancelled execution has no local entry any more.
            step!(self, IMPERATIVE_EXECUTE_STEPS, "10.2.2", Some(target));
            if !local(self) {
                step!(
                    self,
                    IMPERATIVE_EXECUTE_STEPS,
                    "10.2.3",
                    Some(target),
                    "{uuid:?} was cancelled: return"
                );
                return;
            }
            step!(self, IMPERATIVE_EXECUTE_STEPS, "10.2.3", Some(target));
            // 10.2.4. Remove the local entry.
            self.webmcp_mut().model_contexts[context]
                .local_pending_tool_executions
                .remove(&uuid);
            step!(self, IMPERATIVE_EXECUTE_STEPS, "10.2.4", Some(target));
            // 10.2.5. The execution fails.
            step!(self, IMPERATIVE_EXECUTE_STEPS, "10.2.5", Some(target));
            self.completion_steps(target, uuid, None, Some(Rejection::ToolFailed));
        }
    }
}

impl<W: WebMcpHost> ToolExecuteSteps for W {}

/// A tool's result as Chromium 156 was measured giving it to the caller (tool-result=
/// chromium-156): a string as it is, except that the empty string becomes "Operation
/// succeeded"; any other primitive as its ToString (`NaN` gives "NaN", where JSON would give
/// "null"); a value JSON.stringify gives nothing for (undefined, a function, an object whose
/// toJSON() returns undefined) as "undefined"; an object as its JSON, which fails as JSON does.
/// (Not modelled: a lone surrogate, which Chromium turns into null, and a Symbol, which crashes
/// its renderer: the scenario language has neither.)
fn chromium_156_result(value: &Value) -> Result<String, ErrorValue> {
    use crate::host::value::Unserializable;
    match value {
        Value::String(s) if s.is_empty() => Ok("Operation succeeded".into()),
        Value::String(s) => Ok(s.clone()),
        Value::Undefined
        | Value::Function(_)
        | Value::Unserializable(Unserializable::ToJsonUndefined) => Ok("undefined".into()),
        Value::Null | Value::Bool(_) | Value::Number(_) => Ok(value.to_js_string()),
        other => other.to_json_string(),
    }
}
