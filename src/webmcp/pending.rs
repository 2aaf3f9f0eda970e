//! Pending tool executions: an execution's completion steps, cancel a pending tool execution,
//! and this specification's unloading document cleanup steps.
//!
//! <https://webmachinelearning.github.io/webmcp/#pending-tool-executions>
//!
//! A traversable's pending tool executions map is only changed by steps running in parallel;
//! each model context's local map only on its event loop. Both are keyed by the execution's
//! unique internal value.

use super::errors::Rejection;
use super::execute_tool::ExecuteTool;
use super::registry::Registry;
use super::steps::{ParallelStep, TaskStep};
use super::switches::TextReading;
use super::{
    Uuid, WebMcpHost, CANCEL_A_PENDING_TOOL_EXECUTION, EXECUTE_TOOL,
    UNLOADING_DOCUMENT_CLEANUP_STEPS,
};
use crate::host::abort::Abort;
use crate::host::event_loop::{EventLoops, TaskAction, TaskSource};
use crate::host::events::{Event, EventTargetRef, Events};
use crate::host::keys::{DocumentKey, NavigableKey, PromiseKey};
use crate::host::parallel::ParallelStepKind;
use crate::host::value::Value;
use crate::host::Running;
use crate::step;

/// Pending tool executions' algorithms.
pub trait PendingExecutions: WebMcpHost {
    /// Queues a webmcp task on `document`'s global to settle `promise` (the last step of many
    /// in-parallel blocks).
    fn queue_settle(
        &mut self,
        document: DocumentKey,
        promise: PromiseKey,
        outcome: Result<Value, Value>,
    ) {
        self.queue_global_task(
            document,
            TaskSource::Webmcp,
            TaskAction::SettlePromise {
                promise,
                outcome,
                why: "executeTool()",
            },
        );
    }

    /// Runs an execution's completion steps (executeTool() step 16.10) given `result` and
    /// success: `failure` is `None` for the text's true, and otherwise says why the execution
    /// failed (the engine's, for the error's message; the text passes only the boolean). They
    /// run in parallel: on a parallel queue of their own when called from an
    /// event loop; when called from steps already in parallel (the unloading document cleanup
    /// steps), at once under text-reading=as-intended, which their step 2.3.5 needs, or on a
    /// new queue as written.
    fn completion_steps(
        &mut self,
        target: DocumentKey,
        uuid: Uuid,
        result: Option<String>,
        failure: Option<Rejection>,
    ) {
        let nested = matches!(self.running, Running::Parallel(_));
        if nested && self.switches().text_reading == TextReading::AsIntended {
            return self.completion_steps_in_parallel(target, uuid, result, failure);
        }
        self.in_parallel(
            format!("completion of {uuid:?}"),
            vec![ParallelStepKind::Webmcp(ParallelStep::CompletionSteps {
                target,
                uuid,
                result,
                failure,
            })],
        );
    }

    /// executeTool() steps 16.10.1-16.10.4, in parallel.
    fn completion_steps_in_parallel(
        &mut self,
        target: DocumentKey,
        uuid: Uuid,
        result: Option<String>,
        failure: Option<Rejection>,
    ) {
        // 16.10.1. The execution must still be pending in the target's traversable's map: a
        //          cancellation may have removed it first (the text's note on the race).
        let Some(traversable) =
            self.traversable_of_active_or_last(&EXECUTE_TOOL, "16.10.1", target)
        else {
            return;
        };
        let Some(execution) = self
            .webmcp()
            .pending_tool_executions
            .get(traversable)
            .and_then(|m| m.get(&uuid))
            .cloned()
        else {
            step!(
                self,
                EXECUTE_TOOL,
                "16.10.1",
                Some(target),
                "{uuid:?} is no longer pending: return"
            );
            return;
        };
        step!(self, EXECUTE_TOOL, "16.10.1", Some(target));
        // 16.10.2. Remove it.
        self.remove_pending(traversable, uuid);
        step!(self, EXECUTE_TOOL, "16.10.2", Some(target));
        let key = self.execution_of(uuid);
        let Some(failure) = failure else {
            // 16.10.3. Resolve the caller's promise with the result, from a webmcp task.
            step!(
                self,
                EXECUTE_TOOL,
                "16.10.3",
                Some(execution.caller_document),
                "{result:?}"
            );
            if let Some(k) = key {
                self.webmcp_mut().executions[k].outcome = Some(Ok(result.clone()));
            }
            let value = result.map(Value::String).unwrap_or(Value::Null);
            self.queue_settle(execution.caller_document, execution.promise, Ok(value));
            return;
        };
        {
            // 16.10.4. Otherwise reject it with an UnknownError.
            step!(
                self,
                EXECUTE_TOOL,
                "16.10.4",
                Some(execution.caller_document)
            );
            let error = self.rejection(failure);
            match key {
                Some(k) => self.reject_execution(k, error),
                None => self.queue_settle(
                    execution.caller_document,
                    execution.promise,
                    Err(Value::error(error)),
                ),
            }
        }
    }

    /// The `executeTool()` call an execution's unique internal value names.
    fn execution_of(&self, uuid: Uuid) -> Option<super::ExecutionKey> {
        // Which executions there are is read, as a walk of them would read it.
        let _ = self.webmcp().executions.len();
        self.webmcp().execution_index.get(&uuid).copied()
    }

    fn remove_pending(&mut self, traversable: NavigableKey, uuid: Uuid) {
        if let Some(map) = self
            .webmcp_mut()
            .pending_tool_executions
            .get_mut(traversable)
        {
            map.remove(&uuid);
        }
    }

    /// <https://webmachinelearning.github.io/webmcp/#cancel-a-pending-tool-execution>
    fn cancel_a_pending_tool_execution(&mut self, traversable: NavigableKey, uuid: Uuid) {
        // 1. Assert: running in parallel.
        let in_parallel = matches!(self.running, Running::Parallel(_));
        self.assert_step(
            &CANCEL_A_PENDING_TOOL_EXECUTION,
            "1",
            None,
            in_parallel,
            "these steps are running in parallel",
        );
        step!(self, CANCEL_A_PENDING_TOOL_EXECUTION, "1", None, "{uuid:?}");
        // 2. Not pending any more (it completed first): nothing to cancel.
        let Some(execution) = self
            .webmcp()
            .pending_tool_executions
            .get(traversable)
            .and_then(|m| m.get(&uuid))
            .cloned()
        else {
            step!(
                self,
                CANCEL_A_PENDING_TOOL_EXECUTION,
                "2",
                None,
                "{uuid:?} is not pending: return"
            );
            return;
        };
        step!(self, CANCEL_A_PENDING_TOOL_EXECUTION, "2", None);
        // 3-4. Take it out of the map.
        step!(self, CANCEL_A_PENDING_TOOL_EXECUTION, "3", None);
        self.remove_pending(traversable, uuid);
        step!(self, CANCEL_A_PENDING_TOOL_EXECUTION, "4", None);
        // 5. Its target document, which is still there: had it been unloaded, the cleanup steps
        //    would have removed the execution.
        let target = execution.target_document;
        step!(self, CANCEL_A_PENDING_TOOL_EXECUTION, "5", Some(target));
        // 6. Queue a webmcp task on the target to cancel the local execution.
        step!(self, CANCEL_A_PENDING_TOOL_EXECUTION, "6", Some(target));
        self.queue_global_task(
            target,
            TaskSource::Webmcp,
            TaskAction::Webmcp(TaskStep::CancelLocalExecution {
                uuid,
                tool_name: execution.tool_name,
            }),
        );
    }

    /// Step 6's task, in the target document.
    fn cancel_local_execution(&mut self, target: DocumentKey, uuid: Uuid, tool_name: &str) {
        let context = self.context_of(target);
        // 6.1. The local pending tool executions map.
        step!(self, CANCEL_A_PENDING_TOOL_EXECUTION, "6.1", Some(target));
        // 6.2. Not there (the tool has not started, or has already settled): return.
        let Some(local) = self.webmcp().model_contexts[context]
            .local_pending_tool_executions
            .get(&uuid)
            .copied()
        else {
            step!(
                self,
                CANCEL_A_PENDING_TOOL_EXECUTION,
                "6.2",
                Some(target),
                "no local execution {uuid:?}: return"
            );
            return;
        };
        step!(self, CANCEL_A_PENDING_TOOL_EXECUTION, "6.2", Some(target));
        // 6.3-6.4. Take it out.
        step!(self, CANCEL_A_PENDING_TOOL_EXECUTION, "6.3", Some(target));
        self.webmcp_mut().model_contexts[context]
            .local_pending_tool_executions
            .remove(&uuid);
        step!(self, CANCEL_A_PENDING_TOOL_EXECUTION, "6.4", Some(target));
        // 6.5. Signal abort on its controller (the tool's options.signal): an AbortError.
        step!(self, CANCEL_A_PENDING_TOOL_EXECUTION, "6.5", Some(target));
        self.signal_abort(local.abort_controller, None);
        // 6.6. Fire toolcancel at the ModelContext, a ToolCancelEvent naming the tool.
        step!(self, CANCEL_A_PENDING_TOOL_EXECUTION, "6.6", Some(target));
        let event = Event {
            event_type: "toolcancel".into(),
            interface: "ToolCancelEvent",
            attributes: vec![("toolName", Value::string(tool_name))],
        };
        self.dispatch_event(EventTargetRef::Webmcp(context), event);
    }

    /// This specification's unloading document cleanup steps.
    fn unloading_document_cleanup_steps(&mut self, document: DocumentKey) {
        // 1. Let traversable be document's node navigable's traversable navigable.
        let Some(traversable) =
            self.traversable_of_active_or_last(&UNLOADING_DOCUMENT_CLEANUP_STEPS, "1", document)
        else {
            return;
        };
        step!(self, UNLOADING_DOCUMENT_CLEANUP_STEPS, "1", Some(document));
        // 2. The rest runs in parallel.
        step!(self, UNLOADING_DOCUMENT_CLEANUP_STEPS, "2", Some(document));
        let label = format!("unloading cleanup of {}", self.label(document));
        self.in_parallel(
            label,
            vec![ParallelStepKind::Webmcp(ParallelStep::UnloadingCleanup {
                document,
                traversable,
            })],
        );
    }

    /// The unloading document cleanup steps' step 2, in parallel.
    fn unloading_cleanup_in_parallel(&mut self, document: DocumentKey, traversable: NavigableKey) {
        // 2.1-2.2. Every execution the document calls or runs.
        step!(
            self,
            UNLOADING_DOCUMENT_CLEANUP_STEPS,
            "2.1",
            Some(document)
        );
        let to_remove: Vec<Uuid> = self
            .webmcp()
            .pending_tool_executions
            .get(traversable)
            .map(|m| {
                m.iter()
                    .filter(|(_, e)| e.target_document == document || e.caller_document == document)
                    .map(|(uuid, _)| *uuid)
                    .collect()
            })
            .unwrap_or_default();
        step!(
            self,
            UNLOADING_DOCUMENT_CLEANUP_STEPS,
            "2.2",
            Some(document)
        );
        step!(
            self,
            UNLOADING_DOCUMENT_CLEANUP_STEPS,
            "2.2.1",
            Some(document),
            "{} execution(s)",
            to_remove.len()
        );
        // 2.3. For each of them:
        for uuid in to_remove {
            step!(
                self,
                UNLOADING_DOCUMENT_CLEANUP_STEPS,
                "2.3",
                Some(document),
                "{uuid:?}"
            );
            let Some(execution) = self
                .webmcp()
                .pending_tool_executions
                .get(traversable)
                .and_then(|m| m.get(&uuid))
                .cloned()
            else {
                continue;
            };
            step!(
                self,
                UNLOADING_DOCUMENT_CLEANUP_STEPS,
                "2.3.1",
                Some(document)
            );
            let is_target = execution.target_document == document;
            let is_caller = execution.caller_document == document;
            if is_target && !is_caller {
                // 2.3.2. The tool's document went away: its completion steps fail it.
                step!(
                    self,
                    UNLOADING_DOCUMENT_CLEANUP_STEPS,
                    "2.3.2",
                    Some(document),
                    "the tool's document is unloaded: the execution fails"
                );
                self.completion_steps(
                    execution.target_document,
                    uuid,
                    None,
                    Some(Rejection::TargetUnloaded),
                );
            } else if is_caller && !is_target {
                // 2.3.3. The caller went away: the execution is cancelled.
                step!(
                    self,
                    UNLOADING_DOCUMENT_CLEANUP_STEPS,
                    "2.3.3",
                    Some(document),
                    "the caller is unloaded: the execution is cancelled"
                );
                self.cancel_a_pending_tool_execution(traversable, uuid);
            } else {
                // 2.3.4. Both: it is dropped.
                step!(
                    self,
                    UNLOADING_DOCUMENT_CLEANUP_STEPS,
                    "2.3.4",
                    Some(document)
                );
                self.remove_pending(traversable, uuid);
            }
            // 2.3.5. Assert: it is no longer pending.
            let gone = self
                .webmcp()
                .pending_tool_executions
                .get(traversable)
                .is_none_or(|m| !m.contains_key(&uuid));
            self.assert_step(
                &UNLOADING_DOCUMENT_CLEANUP_STEPS,
                "2.3.5",
                Some(document),
                gone,
                "the execution is no longer in the traversable's pending tool executions map",
            );
            step!(
                self,
                UNLOADING_DOCUMENT_CLEANUP_STEPS,
                "2.3.5",
                Some(document)
            );
        }
    }
}

impl<W: WebMcpHost> PendingExecutions for W {}
