//! WebMCP's continuations: the steps it hands the host to keep (a task's steps, steps in
//! parallel, a reaction's steps, abort algorithms, a timeout), and the one place each kind is
//! run and described. The engine's world hands them back here through the host's seam.

use super::agent_api::AgentApi;
use super::observation::Observations;
use super::readiness::{Readiness, WaitCaller};
use super::registry::Registry;
use super::{ExecutionKey, Exposure, ModelContextKey, WaiterKey, WebMcpHost};
use crate::host::keys::{DocumentKey, ParallelQueueKey, PromiseKey, SignalKey};
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
    /// `executeTool()`: runs the tool in its document.
    RunTool { execution: ExecutionKey },
    /// `executeTool()`: the caller aborted; the tool's signal is aborted and `toolcancel` fires.
    CancelTool { execution: ExecutionKey },
    /// The coalesced readiness proposal's check of tools-ready against the last notified state.
    CoalescedReadinessCheck,
    /// webmcp#374's coalesced registry notification.
    RegistryNotification,
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
    /// registerTool() step 23.2: queue the task that resolves the registration's promise.
    QueueRegistrationResolve {
        tool_owner: DocumentKey,
        promise: PromiseKey,
    },
    /// <https://webmachinelearning.github.io/webmcp/#perform-an-observation>
    PerformAnObservation { observation: super::ObservationKey },
    /// `getTools()`'s in-parallel steps.
    GetTools {
        caller: DocumentKey,
        promise: PromiseKey,
        from_origins: Vec<Origin>,
    },
    /// `executeTool()`: find the tool's document and queue the task that runs it.
    ExecuteToolDispatch { execution: ExecutionKey },
    /// `executeTool()`: the caller aborted; tell the tool's document.
    ExecuteToolCancel { execution: ExecutionKey },
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
    /// `executeTool()`'s reaction to the promise the tool's callback returned.
    ExecuteResult { execution: ExecutionKey },
}

/// An abort algorithm WebMCP adds to an `AbortSignal`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AbortStep {
    /// registerTool step 18.2: unregister the tool, then reject the registration promise.
    UnregisterTool {
        context: ModelContextKey,
        tool_name: String,
        promise: PromiseKey,
    },
    /// executeTool(): the caller gave up on the execution.
    CancelExecution { execution: ExecutionKey },
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
        TaskStep::RunTool { execution } => w.run_tool(execution),
        TaskStep::CancelTool { execution } => w.cancel_tool(execution),
        TaskStep::CoalescedReadinessCheck => w.coalesced_readiness_check(document),
        TaskStep::RegistryNotification => w.registry_notification(document),
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
        ParallelStep::ExecuteToolDispatch { execution } => w.execute_tool_dispatch(execution),
        ParallelStep::ExecuteToolCancel { execution } => {
            w.execute_tool_cancel_in_parallel(execution)
        }
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
        ReactionStep::ExecuteResult { execution } => {
            w.execute_tool_result(execution, fulfilled, argument)
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
        AbortStep::CancelExecution { execution } => w.execute_tool_abort_steps(execution, signal),
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
            let doc = w.webmcp().model_contexts[*context].document;
            match ready {
                Some(r) => format!("fire toolchange (ready={r}) at {}", w.label(doc)),
                None => format!("fire toolchange at {}", w.label(doc)),
            }
        }
        TaskStep::RunTool { execution } => {
            format!("run tool {:?}", w.webmcp().executions[*execution].tool_name)
        }
        TaskStep::CancelTool { execution } => {
            format!(
                "cancel tool {:?}",
                w.webmcp().executions[*execution].tool_name
            )
        }
        TaskStep::CoalescedReadinessCheck => {
            "compare tools-ready with the last notified state".into()
        }
        TaskStep::RegistryNotification => "notify the task's registry changes".into(),
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
        ParallelStep::ExecuteToolDispatch { execution } => format!(
            "executeTool() dispatches {:?}",
            w.webmcp().executions[*execution].tool_name
        ),
        ParallelStep::ExecuteToolCancel { execution } => format!(
            "executeTool() passes on the cancellation of {:?}",
            w.webmcp().executions[*execution].tool_name
        ),
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
        ReactionStep::ExecuteResult { execution } => format!(
            "executeTool() takes the result of {:?}",
            w.webmcp().executions[*execution].tool_name
        ),
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
    &mut w.webmcp_mut().model_contexts[context].listeners
}

/// A `ModelContext`'s name, in the scenario's terms.
pub fn event_target_label<W: WebMcpHost>(w: &W, context: ModelContextKey) -> String {
    format!(
        "{}.modelContext",
        w.label(w.webmcp().model_contexts[context].document)
    )
}
