//! Event loops, task queues, microtasks, parallel queues, the virtual clock, and the units of
//! work they hand to the scheduler.
//!
//! <https://html.spec.whatwg.org/multipage/webappapis.html#event-loops>
//!
//! A unit of work is one task, one microtask, one step of a parallel queue, or one timer
//! expiring. Units run whole: nothing else runs in the middle of one. Whenever more than one
//! unit may run next, the schedule chooses (see [`crate::schedule`]). The HTML rules that
//! matter for WebMCP live here and nowhere else: a task whose document is not fully active is
//! not runnable (and is discarded when its document is destroyed); a microtask checkpoint
//! drains an event loop's microtasks before it runs another task.

use std::collections::VecDeque;
use std::sync::Arc;

use serde::Serialize;

use super::keys::{
    DocumentKey, EventLoopKey, ExecutionKey, ModelContextKey, ObservationKey, ParallelQueueKey,
    PromiseKey, TimerKey, WaiterKey,
};
use super::navigable::Lifecycle;
use super::promise::Job;
use super::script::Block;
use super::value::Value;
use crate::schedule::Scheduler;
use crate::trace::{ChoiceNote, TraceEntry};
use crate::webmcp::readiness::{WaitCaller, WaitOutcome};
use crate::webmcp::Exposure;
use crate::world::{Running, World};
use crate::RunError;

/// Task sources. Tasks of one source on one event loop run in the order they were queued;
/// the event loop may pick any source next.
///
/// <https://html.spec.whatwg.org/multipage/webappapis.html#task-source>
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskSource {
    /// <https://webmachinelearning.github.io/webmcp/#webmcp-task-source>
    Webmcp,
    /// <https://html.spec.whatwg.org/multipage/timers-and-user-prompts.html#timer-task-source>
    Timer,
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#dom-manipulation-task-source>
    DomManipulation,
    /// The scenario's own tasks: they stand for the test's script and the messages the test
    /// harness posts (HTML's networking and posted message task sources).
    Harness,
    /// <https://html.spec.whatwg.org/#navigation-and-traversal-task-source>
    NavigationAndTraversal,
}

pub const TASK_SOURCES: [TaskSource; 5] = [
    TaskSource::Webmcp,
    TaskSource::Timer,
    TaskSource::DomManipulation,
    TaskSource::Harness,
    TaskSource::NavigationAndTraversal,
];

impl TaskSource {
    fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            TaskSource::Webmcp => "webmcp",
            TaskSource::Timer => "timer",
            TaskSource::DomManipulation => "DOM manipulation",
            TaskSource::Harness => "harness",
            TaskSource::NavigationAndTraversal => "navigation and traversal",
        }
    }
}

/// What a task does when it runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TaskAction {
    /// Runs a block of the scenario's script in a realm; `completion` is the promise of the
    /// block seen as an async function, when the scenario named it.
    RunScript {
        realm: DocumentKey,
        block: Arc<Block>,
        completion: Option<PromiseKey>,
        /// Parameters of an enclosing block the script can still name (a timer's callback).
        locals: Vec<(String, Value)>,
    },
    /// Fires `toolchange` at a `ModelContext` (a `ToolChangeEvent` when `ready` is given).
    FireToolchange {
        context: ModelContextKey,
        ready: Option<bool>,
    },
    /// Resolves or rejects a promise: the end of an algorithm's in-parallel steps.
    SettlePromise {
        promise: PromiseKey,
        outcome: Result<Value, Value>,
        why: &'static str,
    },
    /// `executeTool()`: runs the tool in its document.
    RunTool { execution: ExecutionKey },
    /// `executeTool()`: the caller aborted; the tool's signal is aborted and `toolcancel` fires.
    CancelTool { execution: ExecutionKey },
    /// The coalesced readiness proposal's check of tools-ready against the last notified state.
    CoalescedReadinessCheck,
    /// webmcp#374's coalesced registry notification.
    RegistryNotification,
    /// `DOMContentLoaded` or `load`.
    Lifecycle { stage: Lifecycle },
    /// A navigation started by script commits: the task's document is replaced.
    CommitNavigation {
        url: String,
        label: String,
        keep_in_bfcache: bool,
    },
}

/// A task waiting in a task queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    pub seq: u64,
    pub source: TaskSource,
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#concept-task-document>
    pub document: DocumentKey,
    pub action: TaskAction,
}

/// A microtask: a promise job, with the realm HTML's HostEnqueuePromiseJob gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Microtask {
    pub seq: u64,
    pub realm: Option<DocumentKey>,
    pub job: Job,
}

/// An event loop: its task queues (one per task source) and its microtask queue.
#[derive(Clone, Debug, Default, Hash)]
pub struct EventLoop {
    pub label: String,
    pub queues: [VecDeque<Task>; 5],
    pub microtasks: VecDeque<Microtask>,
}

impl EventLoop {
    fn is_empty(&self) -> bool {
        self.microtasks.is_empty() && self.queues.iter().all(VecDeque::is_empty)
    }
}

/// One step run "in parallel".
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ParallelStepKind {
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
    /// Queues a global task: the last step of many in-parallel blocks.
    QueueGlobalTask {
        document: DocumentKey,
        source: TaskSource,
        action: TaskAction,
    },
    /// <https://webmachinelearning.github.io/webmcp/#perform-an-observation>
    PerformAnObservation { observation: ObservationKey },
    /// `getTools()`'s in-parallel steps.
    GetTools {
        caller: DocumentKey,
        promise: PromiseKey,
        from_origins: Vec<super::origin::Origin>,
    },
    /// `executeTool()`: find the tool's document and queue the task that runs it.
    ExecuteToolDispatch { execution: ExecutionKey },
    /// `executeTool()`: the caller aborted; tell the tool's document.
    ExecuteToolCancel { execution: ExecutionKey },
    /// What a caller of "wait for tools to be ready" does once the wait has ended.
    AfterWait { caller: WaitCaller },
    /// A navigation started by script has its response: queue the task that commits it.
    NavigationResponse {
        from: DocumentKey,
        url: String,
        label: String,
        keep_in_bfcache: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParallelStep {
    pub seq: u64,
    pub kind: ParallelStepKind,
}

/// A parallel queue: the AI agent queue, or the steps of one "in parallel" block.
///
/// <https://html.spec.whatwg.org/multipage/infrastructure.html#parallel-queue>
#[derive(Clone, Debug, Hash)]
pub struct ParallelQueue {
    pub label: String,
    pub steps: VecDeque<ParallelStep>,
    /// A "wait until" the queue is blocked in.
    pub waiting_on: Option<WaiterKey>,
    /// The AI agent queue lives as long as the user agent; other queues end when empty.
    pub persistent: bool,
}

/// What a timer does when it expires.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TimerKind {
    /// `setTimeout()`: queues a task on the timer task source.
    SetTimeout {
        document: DocumentKey,
        block: Arc<Block>,
        locals: Vec<(String, Value)>,
    },
    /// The implementation-defined timeout of one caller of "wait for tools to be ready".
    WaitDeadline { waiter: WaiterKey },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timer {
    /// Virtual time, in milliseconds, at which it expires.
    pub due: u64,
    pub seq: u64,
    pub kind: TimerKind,
}

// Sequence numbers only order units; a state's hash takes their order from
// `World::hash_state`, so the numbers themselves are left out of these hashes.
impl std::hash::Hash for Task {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.source, self.document, &self.action).hash(h);
    }
}

impl std::hash::Hash for Microtask {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.realm, &self.job).hash(h);
    }
}

impl std::hash::Hash for ParallelStep {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.kind.hash(h);
    }
}

impl std::hash::Hash for Timer {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.due, &self.kind).hash(h);
    }
}

/// A unit of work that may run next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnitRef {
    Microtask(EventLoopKey),
    Task {
        event_loop: EventLoopKey,
        source: TaskSource,
        position: usize,
    },
    Parallel(ParallelQueueKey),
    Timer(TimerKey),
}

/// A runnable unit and the sequence number that orders it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Candidate {
    pub seq: u64,
    pub unit: UnitRef,
}

/// How many units `run` may take before it gives up on reaching quiescence.
pub const UNIT_BUDGET: u64 = 1_000_000;

impl World {
    pub(crate) fn new_event_loop(&mut self, label: String) -> EventLoopKey {
        self.event_loops
            .insert(crate::platform::shared::Shared::new(EventLoop {
                label,
                ..EventLoop::default()
            }))
    }

    pub(crate) fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#queue-a-global-task>
    pub(crate) fn queue_global_task(
        &mut self,
        document: DocumentKey,
        source: TaskSource,
        action: TaskAction,
    ) {
        if self.documents[document].destroyed {
            self.harness_note(|w| {
                format!(
                    "task ({}) for destroyed {} dropped",
                    source.name(),
                    w.label(document)
                )
            });
            return;
        }
        let seq = self.next_seq();
        let event_loop = self.documents[document].event_loop;
        self.event_loops[event_loop].queues[source.index()].push_back(Task {
            seq,
            source,
            document,
            action,
        });
        self.busy_loops.insert(event_loop);
    }

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#queue-a-microtask>, on the
    /// event loop that is running (a job queued outside any event loop goes to its realm's).
    pub(crate) fn queue_microtask(&mut self, realm: Option<DocumentKey>, job: Job) {
        let event_loop = match self.running {
            Running::EventLoop(l) => l,
            _ => match realm {
                Some(r) => self.documents[r].event_loop,
                None => return,
            },
        };
        let seq = self.next_seq();
        self.event_loops[event_loop]
            .microtasks
            .push_back(Microtask { seq, realm, job });
        self.busy_loops.insert(event_loop);
    }

    /// Starts a new parallel queue for the steps of one "in parallel" block.
    ///
    /// <https://html.spec.whatwg.org/multipage/infrastructure.html#in-parallel>
    pub(crate) fn in_parallel(
        &mut self,
        label: String,
        steps: Vec<ParallelStepKind>,
    ) -> ParallelQueueKey {
        let queue = self
            .parallel_queues
            .insert(crate::platform::shared::Shared::new(ParallelQueue {
                label,
                steps: VecDeque::new(),
                waiting_on: None,
                persistent: false,
            }));
        for kind in steps {
            self.enqueue_parallel_step(queue, kind);
        }
        queue
    }

    /// <https://html.spec.whatwg.org/multipage/infrastructure.html#enqueue-the-following-steps>
    pub(crate) fn enqueue_parallel_step(
        &mut self,
        queue: ParallelQueueKey,
        kind: ParallelStepKind,
    ) {
        let seq = self.next_seq();
        self.parallel_queues[queue]
            .steps
            .push_back(ParallelStep { seq, kind });
    }

    /// Adds a timer that expires `delay` milliseconds from now.
    pub(crate) fn add_timer(&mut self, delay: u64, kind: TimerKind) -> TimerKey {
        let seq = self.next_seq();
        let due = self.now.saturating_add(delay);
        let key = self.timers.insert(Timer { due, seq, kind });
        self.timer_index.insert((due, seq, key));
        key
    }

    pub(crate) fn remove_timer(&mut self, key: TimerKey) {
        if let Some(t) = self.timers.remove(key) {
            self.timer_index.remove(&(t.due, t.seq, key));
        }
    }

    /// A destroyed document's queued tasks can never run: they are discarded.
    pub(crate) fn discard_tasks_of(&mut self, doc: DocumentKey) {
        let event_loop = self.documents[doc].event_loop;
        let mut discarded = 0;
        for q in self.event_loops[event_loop].queues.iter_mut() {
            let before = q.len();
            q.retain(|t| t.document != doc);
            discarded += before - q.len();
        }
        if discarded > 0 {
            self.harness_note(|w| {
                format!("{discarded} queued task(s) of {} discarded", w.label(doc))
            });
        }
    }

    /// HTML clears a destroyed document's timers.
    pub(crate) fn cancel_timers_of(&mut self, doc: DocumentKey) {
        let gone: Vec<TimerKey> = self
            .timers
            .iter()
            .filter(|(_, t)| matches!(&t.kind, TimerKind::SetTimeout { document, .. } if *document == doc))
            .map(|(k, _)| k)
            .collect();
        for t in gone {
            self.remove_timer(t);
        }
    }

    /// Whether a task may run now: its document must be fully active.
    ///
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#concept-task-runnable>
    fn task_is_runnable(&self, task: &Task) -> bool {
        self.is_fully_active(task.document)
    }

    /// Every unit that may run now, oldest first.
    pub fn candidates(&self) -> Vec<Candidate> {
        let mut out = Vec::new();
        for &l in &self.busy_loops {
            let el = &self.event_loops[l];
            // An event loop with microtasks runs them before any other task.
            if let Some(m) = el.microtasks.front() {
                out.push(Candidate {
                    seq: m.seq,
                    unit: UnitRef::Microtask(l),
                });
                continue;
            }
            for source in TASK_SOURCES {
                let queue = &el.queues[source.index()];
                if let Some((position, task)) = queue
                    .iter()
                    .enumerate()
                    .find(|(_, t)| self.task_is_runnable(t))
                {
                    out.push(Candidate {
                        seq: task.seq,
                        unit: UnitRef::Task {
                            event_loop: l,
                            source,
                            position,
                        },
                    });
                }
            }
        }
        for (key, q) in &self.parallel_queues {
            match q.waiting_on {
                Some(w) => {
                    if let Some(seq) = self.waiters[w].woken_seq() {
                        out.push(Candidate {
                            seq,
                            unit: UnitRef::Parallel(key),
                        });
                    }
                }
                None => {
                    if let Some(step) = q.steps.front() {
                        out.push(Candidate {
                            seq: step.seq,
                            unit: UnitRef::Parallel(key),
                        });
                    }
                }
            }
        }
        for &(due, seq, key) in &self.timer_index {
            if due > self.now {
                break;
            }
            out.push(Candidate {
                seq,
                unit: UnitRef::Timer(key),
            });
        }
        out.sort_by_key(|c| c.seq);
        out
    }

    /// A one-line description of a unit, for traces and for the explorer.
    pub fn describe_unit(&self, unit: UnitRef) -> String {
        match unit {
            UnitRef::Microtask(l) => match self.event_loops[l].microtasks.front() {
                Some(m) => format!(
                    "microtask in {}: {}",
                    m.realm
                        .map(|r| self.label(r))
                        .unwrap_or_else(|| "(no realm)".into()),
                    self.describe_job(&m.job)
                ),
                None => "microtask".into(),
            },
            UnitRef::Task {
                event_loop,
                source,
                position,
            } => {
                let task = &self.event_loops[event_loop].queues[source.index()][position];
                format!(
                    "task ({}) in {}: {}",
                    source.name(),
                    self.label(task.document),
                    self.describe_task_action(&task.action)
                )
            }
            UnitRef::Parallel(q) => {
                let queue = &self.parallel_queues[q];
                match queue.steps.front() {
                    Some(step) => format!(
                        "in parallel ({}): {}",
                        queue.label,
                        self.describe_parallel(&step.kind)
                    ),
                    None => format!("in parallel ({})", queue.label),
                }
            }
            UnitRef::Timer(t) => match &self.timers[t].kind {
                TimerKind::SetTimeout { document, .. } => {
                    format!("timer of {} expires", self.label(*document))
                }
                TimerKind::WaitDeadline { .. } => {
                    "the timeout of a wait for tools to be ready elapses".into()
                }
            },
        }
    }

    fn describe_task_action(&self, action: &TaskAction) -> String {
        match action {
            TaskAction::RunScript { block, .. } => format!("script (line {})", block.line),
            TaskAction::FireToolchange { context, ready } => {
                let doc = self.model_contexts[*context].document;
                match ready {
                    Some(r) => format!("fire toolchange (ready={r}) at {}", self.label(doc)),
                    None => format!("fire toolchange at {}", self.label(doc)),
                }
            }
            TaskAction::SettlePromise {
                promise,
                outcome,
                why,
            } => format!(
                "{} {} ({why})",
                if outcome.is_ok() { "resolve" } else { "reject" },
                self.promise_label(*promise)
            ),
            TaskAction::RunTool { execution } => {
                format!("run tool {:?}", self.executions[*execution].tool_name)
            }
            TaskAction::CancelTool { execution } => {
                format!("cancel tool {:?}", self.executions[*execution].tool_name)
            }
            TaskAction::CoalescedReadinessCheck => {
                "compare tools-ready with the last notified state".into()
            }
            TaskAction::RegistryNotification => "notify the task's registry changes".into(),
            TaskAction::Lifecycle { stage } => match stage {
                Lifecycle::Interactive => "DOMContentLoaded".into(),
                _ => "load".into(),
            },
            TaskAction::CommitNavigation { url, .. } => format!("the navigation to {url} commits"),
        }
    }

    fn describe_parallel(&self, kind: &ParallelStepKind) -> String {
        match kind {
            ParallelStepKind::NotifyDocumentsOfAToolChange { tool_owner, .. } => {
                format!(
                    "notify documents of a tool change (owner {})",
                    self.label(*tool_owner)
                )
            }
            ParallelStepKind::QueueRegistrationResolve {
                tool_owner,
                promise,
            } => format!(
                "registerTool() step 23.2: queue a webmcp task on {} to resolve {}",
                self.label(*tool_owner),
                self.promise_label(*promise)
            ),
            ParallelStepKind::QueueGlobalTask {
                document,
                source,
                action,
            } => format!(
                "queue a {} task on {}: {}",
                source.name(),
                self.label(*document),
                self.describe_task_action(action)
            ),
            ParallelStepKind::PerformAnObservation { observation } => {
                format!(
                    "perform observation {}",
                    self.observations[*observation].label
                )
            }
            ParallelStepKind::GetTools { caller, .. } => {
                format!("getTools() of {} collects tools", self.label(*caller))
            }
            ParallelStepKind::ExecuteToolDispatch { execution } => format!(
                "executeTool() dispatches {:?}",
                self.executions[*execution].tool_name
            ),
            ParallelStepKind::ExecuteToolCancel { execution } => format!(
                "executeTool() passes on the cancellation of {:?}",
                self.executions[*execution].tool_name
            ),
            ParallelStepKind::AfterWait { caller } => match caller {
                WaitCaller::Observation(o) => format!(
                    "observation {} goes on after its wait for tools to be ready",
                    self.observations[*o].label
                ),
                WaitCaller::GetTools { caller, .. } => format!(
                    "getTools() of {} goes on after its wait for tools to be ready",
                    self.label(*caller)
                ),
            },
            ParallelStepKind::NavigationResponse { from, url, .. } => {
                format!(
                    "the navigation of {} to {url} has its response",
                    self.label(*from)
                )
            }
        }
    }

    /// Runs one unit of work (chosen by the schedule when there is a choice); when nothing can
    /// run, the virtual clock first jumps to the next timer. Returns false when nothing ran.
    pub fn step(&mut self) -> Result<bool, RunError> {
        self.step_within(Some(u64::MAX))
    }

    /// The units that may run next. When none can run now, the clock jumps to the next timer
    /// if it is due no later than `limit` (`None`: the clock may not move).
    pub fn next_candidates(&mut self, limit: Option<u64>) -> Vec<Candidate> {
        let candidates = self.candidates();
        if !candidates.is_empty() {
            return candidates;
        }
        match (limit, self.timer_index.first()) {
            (Some(limit), Some(&(due, _, _))) if due <= limit => {
                self.now = self.now.max(due);
                self.candidates()
            }
            _ => candidates,
        }
    }

    /// A choice point among `width` runnable units: the schedule chooses, unless the caller
    /// (the explorer) forces a choice, which is then recorded as the schedule's.
    pub fn choose(&mut self, width: usize, forced: Option<usize>) -> Result<ChoiceNote, RunError> {
        let point = self.choice_points;
        self.choice_points += 1;
        let taken = match forced {
            Some(i) => self.schedule.force(point, width, i),
            None => self.schedule.choose(point, width)?,
        };
        Ok(ChoiceNote {
            point,
            candidates: width,
            taken,
        })
    }

    /// As [`World::step`], letting the clock jump no further than `limit` (`None`: not at all).
    fn step_within(&mut self, limit: Option<u64>) -> Result<bool, RunError> {
        let candidates = self.next_candidates(limit);
        let (index, choice) = match candidates.len() {
            0 => return Ok(false),
            1 => (0, None),
            n => {
                let note = self.choose(n, None)?;
                (note.taken, Some(note))
            }
        };
        self.run_unit(candidates[index].unit, choice);
        Ok(true)
    }

    /// Runs one given unit: the explorer's entry point, and the end of every `step`.
    pub fn run_unit(&mut self, unit: UnitRef, choice: Option<ChoiceNote>) {
        self.unit += 1;
        if self.trace.enabled {
            let what = self.describe_unit(unit);
            self.trace.entries.push(TraceEntry::Unit {
                unit: self.unit,
                time: self.now,
                what,
                choice,
            });
        }
        match unit {
            UnitRef::Microtask(l) => {
                if let Some(m) = self.event_loops[l].microtasks.pop_front() {
                    self.running = Running::EventLoop(l);
                    self.run_job(m.realm, m.job);
                }
            }
            UnitRef::Task {
                event_loop,
                source,
                position,
            } => {
                if let Some(task) =
                    self.event_loops[event_loop].queues[source.index()].remove(position)
                {
                    self.running = Running::EventLoop(event_loop);
                    self.run_task(task);
                }
            }
            UnitRef::Parallel(q) => {
                self.running = Running::Parallel(q);
                self.run_parallel_step(q);
            }
            UnitRef::Timer(t) => {
                self.running = Running::Timer;
                self.expire_timer(t);
            }
        }
        self.running = Running::Harness;
        // Only a loop that ran dry leaves the busy set (and only then is the set written).
        if self
            .busy_loops
            .iter()
            .any(|l| self.event_loops[*l].is_empty())
        {
            let event_loops = &self.event_loops;
            self.busy_loops.retain(|l| !event_loops[*l].is_empty());
        }
        self.check_waiters();
    }

    fn run_task(&mut self, task: Task) {
        let doc = task.document;
        match task.action {
            TaskAction::RunScript {
                realm,
                block,
                completion,
                locals,
            } => self.run_script_task(realm, block, completion, locals),
            TaskAction::FireToolchange { context, ready } => self.fire_toolchange(context, ready),
            TaskAction::SettlePromise {
                promise, outcome, ..
            } => match outcome {
                Ok(v) => self.resolve_promise(promise, v),
                Err(e) => self.reject_promise(promise, e),
            },
            TaskAction::RunTool { execution } => self.run_tool(execution),
            TaskAction::CancelTool { execution } => self.cancel_tool(execution),
            TaskAction::CoalescedReadinessCheck => self.coalesced_readiness_check(doc),
            TaskAction::RegistryNotification => self.registry_notification(doc),
            TaskAction::Lifecycle { stage } => self.reach_lifecycle(doc, stage),
            TaskAction::CommitNavigation {
                url,
                label,
                keep_in_bfcache,
            } => {
                if let Err(e) = self.navigate(doc, &url, &label, keep_in_bfcache) {
                    self.harness_note(|_| format!("navigation did not commit: {e}"));
                }
            }
        }
    }

    fn run_parallel_step(&mut self, q: ParallelQueueKey) {
        if let Some(waiter) = self.parallel_queues[q].waiting_on.take() {
            // The wait this queue was blocked in has ended: its caller goes on.
            let outcome = self.finish_wait(waiter);
            if let Some(ParallelStep {
                kind: ParallelStepKind::AfterWait { caller },
                ..
            }) = self.parallel_queues[q].steps.pop_front()
            {
                self.continue_after_wait(q, caller, outcome);
            }
        } else if let Some(step) = self.parallel_queues[q].steps.pop_front() {
            match step.kind {
                ParallelStepKind::NotifyDocumentsOfAToolChange {
                    tool_owner,
                    exposed,
                    ready,
                } => self.notify_documents_of_a_tool_change(tool_owner, &exposed, ready),
                ParallelStepKind::QueueRegistrationResolve {
                    tool_owner,
                    promise,
                } => self.register_tool_queue_resolve(tool_owner, promise),
                ParallelStepKind::QueueGlobalTask {
                    document,
                    source,
                    action,
                } => self.queue_global_task(document, source, action),
                ParallelStepKind::PerformAnObservation { observation } => {
                    self.perform_an_observation(q, observation)
                }
                ParallelStepKind::GetTools {
                    caller,
                    promise,
                    from_origins,
                } => self.get_tools_in_parallel(q, caller, promise, from_origins),
                ParallelStepKind::ExecuteToolDispatch { execution } => {
                    self.execute_tool_dispatch(execution)
                }
                ParallelStepKind::ExecuteToolCancel { execution } => {
                    self.execute_tool_cancel_in_parallel(execution)
                }
                ParallelStepKind::AfterWait { caller } => {
                    // Only reached when a wait returned at once.
                    self.continue_after_wait(q, caller, WaitOutcome::Ready)
                }
                // The new document replaces the old one in a task of the old one's event loop,
                // so the navigation never lands between a task and its microtasks.
                ParallelStepKind::NavigationResponse {
                    from,
                    url,
                    label,
                    keep_in_bfcache,
                } => self.queue_global_task(
                    from,
                    TaskSource::NavigationAndTraversal,
                    TaskAction::CommitNavigation {
                        url,
                        label,
                        keep_in_bfcache,
                    },
                ),
            }
        }
        let queue = &self.parallel_queues[q];
        if !queue.persistent && queue.steps.is_empty() && queue.waiting_on.is_none() {
            self.parallel_queues.remove(q);
        }
    }

    fn expire_timer(&mut self, key: TimerKey) {
        let Some(timer) = self.timers.get(key).cloned() else {
            return;
        };
        self.remove_timer(key);
        match timer.kind {
            TimerKind::SetTimeout {
                document,
                block,
                locals,
            } => self.queue_global_task(
                document,
                TaskSource::Timer,
                TaskAction::RunScript {
                    realm: document,
                    block,
                    completion: None,
                    locals,
                },
            ),
            TimerKind::WaitDeadline { waiter } => self.wait_timed_out(waiter),
        }
    }

    /// Runs every unit that can run without the clock moving.
    pub fn flush(&mut self) -> Result<(), RunError> {
        self.run_bounded(None)
    }

    /// Runs until nothing is left to run, moving the clock to each timer as needed.
    pub fn run_until_idle(&mut self) -> Result<(), RunError> {
        self.run_bounded(Some(u64::MAX))
    }

    /// Runs for `ms` milliseconds of virtual time: everything due by then runs, and the clock
    /// ends at now + `ms`.
    pub fn run_for(&mut self, ms: u64) -> Result<(), RunError> {
        let until = self.now.saturating_add(ms);
        self.run_bounded(Some(until))?;
        self.now = self.now.max(until);
        self.check_waiters();
        Ok(())
    }

    fn run_bounded(&mut self, limit: Option<u64>) -> Result<(), RunError> {
        let start = self.unit;
        while self.step_within(limit)? {
            if self.unit - start >= UNIT_BUDGET {
                return Err(RunError::Budget {
                    units: UNIT_BUDGET,
                    time: self.now,
                });
            }
        }
        Ok(())
    }

    /// Moves the clock forward to `time` (never back), as the end of `run 100ms` does.
    pub fn advance_clock_to(&mut self, time: u64) {
        self.now = self.now.max(time);
        self.check_waiters();
    }

    /// Whether any unit is queued or any timer pending.
    pub fn is_quiescent(&self) -> bool {
        self.busy_loops.is_empty()
            && self.timers.is_empty()
            && self
                .parallel_queues
                .values()
                .all(|q| q.steps.is_empty() && q.waiting_on.is_none())
    }

    /// When the next timer expires, in virtual milliseconds.
    pub fn next_timer_due(&self) -> Option<u64> {
        self.timer_index.first().map(|&(due, _, _)| due)
    }

    /// The virtual clock, in milliseconds.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// How many units have run.
    pub fn units_run(&self) -> u64 {
        self.unit
    }
}
