//! WebMCP's continuations: the steps it hands the host to keep (a task's steps, steps in
//! parallel, a reaction's steps, abort algorithms, a timeout), and the one place each kind is
//! run and described. The engine's world hands them back here through the host's seam.

use super::declarative::Declarative;
use super::errors::Rejection;
use super::execute_tool::ExecuteTool;
use super::execution::ToolExecuteSteps;
use super::get_tools::GetTools;
use super::observation::Observations;
use super::pending::PendingExecutions;
use super::readiness::{Readiness, WaitCaller};
use super::registry::Registry;
use super::{ExecutionKey, Exposure, ModelContextKey, Uuid, WaiterKey, WebMcpHost};
use crate::host::keys::{
    DocumentKey, NavigableKey, NodeKey, ParallelQueueKey, PromiseKey, SignalKey,
};
use crate::host::origin::Origin;
use crate::host::seam::Upper;
use crate::host::value::Value;
use crate::host::Completion;

/// The marker naming WebMCP's continuation types for the host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Steps;

impl Upper for Steps {
    type Task = TaskStep;
    type Parallel = ParallelStep;
    type Reaction = ReactionStep;
    type Abort = AbortStep;
    type Timer = TimerStep;
    type EventTarget = ModelContextKey;
}

/// The steps of a task WebMCP queues.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TaskStep {
    /// Fires `toolchange` at a `ModelContext` (a `ToolChangeEvent` when `ready` is given).
    FireToolchange {
        context: ModelContextKey,
        ready: Option<bool>,
    },
    /// executeTool() step 16.13: the tool execute steps, in the tool's document.
    ToolExecuteSteps { execution: ExecutionKey },
    /// Cancel a pending tool execution step 6: the local execution is cancelled.
    CancelLocalExecution { uuid: Uuid, tool_name: String },
    /// The coalesced readiness proposal's check of tools-ready against the last notified state.
    CoalescedReadinessCheck,
    /// webmcp#374's coalesced registry notification.
    RegistryNotification,
    /// Update a form's declarative tool, queued (declarative-registration-timing=chromium-156).
    UpdateDeclarativeTool { form: NodeKey },
}

/// One step WebMCP runs in parallel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ParallelStep {
    /// <https://webmachinelearning.github.io/webmcp/#notify-documents-of-a-tool-change>
    NotifyDocumentsOfAToolChange {
        tool_owner: DocumentKey,
        exposed: Exposure,
        ready: Option<bool>,
    },
    /// registerTool() step 20.2: queue the task that resolves the registration's promise.
    QueueRegistrationResolve {
        tool_owner: DocumentKey,
        promise: PromiseKey,
    },
    /// <https://webmachinelearning.github.io/webmcp/#perform-an-observation>
    PerformAnObservation { observation: super::ObservationKey },
    /// getTools() step 8: collect the tools, then resolve.
    GetTools {
        caller: DocumentKey,
        promise: PromiseKey,
        from_origins: Vec<Origin>,
    },
    /// getTools() step 8.5 alone, the tools collected at the call (gettools-snapshot=at-call).
    GetToolsResolve {
        caller: DocumentKey,
        promise: PromiseKey,
        tools: Vec<Value>,
    },
    /// executeTool() step 16.
    ExecuteToolInParallel { execution: ExecutionKey },
    /// executeTool() step 15.4.2: cancel a pending tool execution.
    CancelPendingToolExecution {
        traversable: NavigableKey,
        uuid: Uuid,
    },
    /// executeTool() step 16.10: an execution's completion steps.
    CompletionSteps {
        target: DocumentKey,
        uuid: Uuid,
        result: Option<String>,
        /// `None` for success (see `PendingExecutions::completion_steps`).
        failure: Option<Rejection>,
    },
    /// The unloading document cleanup steps' step 2.
    UnloadingCleanup {
        document: DocumentKey,
        traversable: NavigableKey,
    },
    /// What a caller of "wait for tools to be ready" does once its wait has ended.
    AfterWait {
        caller: WaitCaller,
        waiter: WaiterKey,
    },
}

/// The steps of a reaction WebMCP made ("react to a promise").
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReactionStep {
    /// The settle steps of `waitForToolsUntil()`.
    WaitForToolsSettle {
        context: ModelContextKey,
        promise: PromiseKey,
    },
    /// The imperative execute steps' step 10: the tool's promise settled.
    ImperativeResult { target: DocumentKey, uuid: Uuid },
    /// The declarative submission steps' step 6: the respondWith() promise settled.
    DeclarativeResult { form: NodeKey, uuid: Uuid },
}

/// An abort algorithm WebMCP adds to an `AbortSignal`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AbortStep {
    /// registerTool() step 17.3: unregister the tool, then reject the registration promise.
    UnregisterTool {
        context: ModelContextKey,
        tool_name: String,
        promise: PromiseKey,
    },
    /// executeTool() step 15.4: reject the call's promise, then cancel the execution.
    CancelExecution {
        execution: ExecutionKey,
        traversable: NavigableKey,
    },
    /// A declarative execution's controller was aborted: its run ends.
    DeclarativeRunAborted { form: NodeKey, uuid: Uuid },
}

/// What a timer WebMCP sets does when it expires.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TimerStep {
    /// The implementation-defined timeout of one caller of "wait for tools to be ready".
    WaitDeadline { waiter: WaiterKey },
}

pub fn run_task<W: WebMcpHost>(w: &mut W, step: TaskStep, document: DocumentKey) {
    match step {
        TaskStep::FireToolchange { context, ready } => w.fire_toolchange(context, ready),
        TaskStep::ToolExecuteSteps { execution } => w.tool_execute_steps(execution),
        TaskStep::CancelLocalExecution { uuid, tool_name } => {
            w.cancel_local_execution(document, uuid, &tool_name)
        }
        TaskStep::CoalescedReadinessCheck => w.coalesced_readiness_check(document),
        TaskStep::RegistryNotification => w.registry_notification(document),
        TaskStep::UpdateDeclarativeTool { form } => w.queued_declarative_update(form),
    }
}

pub fn run_parallel<W: WebMcpHost>(w: &mut W, step: ParallelStep, queue: ParallelQueueKey) {
    match step {
        ParallelStep::NotifyDocumentsOfAToolChange {
            tool_owner,
            exposed,
            ready,
        } => w.notify_documents_of_a_tool_change(tool_owner, &exposed, ready),
        ParallelStep::QueueRegistrationResolve {
            tool_owner,
            promise,
        } => w.register_tool_queue_resolve(tool_owner, promise),
        ParallelStep::PerformAnObservation { observation } => {
            w.perform_an_observation(queue, observation)
        }
        ParallelStep::GetTools {
            caller,
            promise,
            from_origins,
        } => w.get_tools_in_parallel(queue, caller, promise, from_origins),
        ParallelStep::GetToolsResolve {
            caller,
            promise,
            tools,
        } => w.get_tools_resolve(caller, promise, tools),
        ParallelStep::ExecuteToolInParallel { execution } => w.execute_tool_in_parallel(execution),
        ParallelStep::CancelPendingToolExecution { traversable, uuid } => {
            w.cancel_a_pending_tool_execution(traversable, uuid)
        }
        ParallelStep::CompletionSteps {
            target,
            uuid,
            result,
            failure,
        } => w.completion_steps_in_parallel(target, uuid, result, failure),
        ParallelStep::UnloadingCleanup {
            document,
            traversable,
        } => w.unloading_cleanup_in_parallel(document, traversable),
        ParallelStep::AfterWait { caller, waiter } => w.finish_wait_and_continue(caller, waiter),
    }
}

pub fn run_reaction<W: WebMcpHost>(
    w: &mut W,
    step: ReactionStep,
    argument: Value,
    fulfilled: bool,
) -> Completion {
    match step {
        ReactionStep::WaitForToolsSettle { context, promise } => {
            w.wait_for_tools_until_settle_steps(context, promise, fulfilled)
        }
        ReactionStep::ImperativeResult { target, uuid } => {
            w.imperative_execute_result(target, uuid, fulfilled, argument)
        }
        ReactionStep::DeclarativeResult { form, uuid } => {
            w.declarative_result(form, uuid, fulfilled, argument)
        }
    }
    Ok(Value::Undefined)
}

pub fn run_abort<W: WebMcpHost>(w: &mut W, step: AbortStep, signal: SignalKey) {
    match step {
        AbortStep::UnregisterTool {
            context,
            tool_name,
            promise,
        } => w.register_tool_abort_steps(context, &tool_name, promise, signal),
        AbortStep::CancelExecution {
            execution,
            traversable,
        } => w.execute_tool_abort_steps(execution, traversable, signal),
        AbortStep::DeclarativeRunAborted { form, uuid } => w.declarative_abort_steps(form, uuid),
    }
}

pub fn run_timer<W: WebMcpHost>(w: &mut W, step: TimerStep) {
    match step {
        TimerStep::WaitDeadline { waiter } => w.wait_timed_out(waiter),
    }
}

pub fn describe_task<W: WebMcpHost>(w: &W, step: &TaskStep) -> String {
    match step {
        TaskStep::FireToolchange { context, ready } => {
            let doc = w.document_of(*context);
            match ready {
                Some(r) => format!("fire toolchange (ready={r}) at {}", w.label(doc)),
                None => format!("fire toolchange at {}", w.label(doc)),
            }
        }
        TaskStep::ToolExecuteSteps { execution } => format!(
            "the tool execute steps of {:?}",
            w.webmcp().executions[*execution].tool_name
        ),
        TaskStep::CancelLocalExecution { tool_name, .. } => {
            format!("cancel the local execution of {tool_name:?}")
        }
        TaskStep::CoalescedReadinessCheck => {
            "compare tools-ready with the last notified state".into()
        }
        TaskStep::RegistryNotification => "notify the task's registry changes".into(),
        TaskStep::UpdateDeclarativeTool { form } => {
            format!("update the declarative tool of {}", w.describe_node(*form))
        }
    }
}

pub fn describe_parallel<W: WebMcpHost>(w: &W, step: &ParallelStep) -> String {
    match step {
        ParallelStep::NotifyDocumentsOfAToolChange { tool_owner, .. } => {
            format!(
                "notify documents of a tool change (owner {})",
                w.label(*tool_owner)
            )
        }
        ParallelStep::QueueRegistrationResolve {
            tool_owner,
            promise,
        } => format!(
            "registerTool() step 23.2: queue a webmcp task on {} to resolve {}",
            w.label(*tool_owner),
            w.promise_label(*promise)
        ),
        ParallelStep::PerformAnObservation { observation } => {
            format!(
                "perform observation {}",
                w.webmcp().observations[*observation].label
            )
        }
        ParallelStep::GetTools { caller, .. } => {
            format!("getTools() of {} collects tools", w.label(*caller))
        }
        ParallelStep::GetToolsResolve { caller, .. } => {
            format!("getTools() of {} queues its answer", w.label(*caller))
        }
        ParallelStep::ExecuteToolInParallel { execution } => format!(
            "executeTool() finds {:?}",
            w.webmcp().executions[*execution].tool_name
        ),
        ParallelStep::CancelPendingToolExecution { uuid, .. } => {
            format!("cancel the pending tool execution {uuid:?}")
        }
        ParallelStep::CompletionSteps { uuid, failure, .. } => format!(
            "the completion steps of {uuid:?} ({})",
            if failure.is_none() {
                "success"
            } else {
                "failure"
            }
        ),
        ParallelStep::UnloadingCleanup { document, .. } => {
            format!(
                "the unloading document cleanup steps of {}",
                w.label(*document)
            )
        }
        ParallelStep::AfterWait { caller, .. } => match caller {
            WaitCaller::Observation(o) => format!(
                "observation {} goes on after its wait for tools to be ready",
                w.webmcp().observations[*o].label
            ),
            WaitCaller::GetTools { caller, .. } => format!(
                "getTools() of {} goes on after its wait for tools to be ready",
                w.label(*caller)
            ),
        },
    }
}

pub fn describe_reaction<W: WebMcpHost>(w: &W, step: &ReactionStep) -> String {
    match step {
        ReactionStep::WaitForToolsSettle { promise, .. } => format!(
            "waitForToolsUntil settle steps for {}",
            w.promise_label(*promise)
        ),
        ReactionStep::ImperativeResult { uuid, .. } => {
            format!("the imperative execute steps take the result of {uuid:?}")
        }
        ReactionStep::DeclarativeResult { uuid, .. } => {
            format!("the declarative submission steps take the respondWith() value of {uuid:?}")
        }
    }
}

pub fn describe_timer<W: WebMcpHost>(_w: &W, step: &TimerStep) -> String {
    match step {
        TimerStep::WaitDeadline { .. } => {
            "the timeout of a wait for tools to be ready elapses".into()
        }
    }
}

/// The listener list of a `ModelContext`.
pub fn event_listeners<W: WebMcpHost>(
    w: &mut W,
    context: ModelContextKey,
) -> &mut Vec<crate::host::keys::ListenerKey> {
    &mut w.webmcp_mut().listeners[context]
}

/// The listener list of a `ModelContext`, to read.
pub fn read_event_listeners<W: WebMcpHost>(
    w: &W,
    context: ModelContextKey,
) -> &Vec<crate::host::keys::ListenerKey> {
    &w.webmcp().listeners[context]
}

/// A `ModelContext`'s name, in the scenario's terms.
pub fn event_target_label<W: WebMcpHost>(w: &W, context: ModelContextKey) -> String {
    format!("{}.modelContext", w.label(w.document_of(context)))
}
