//! Event loops, task sources, tasks, microtasks, and the units of work they hand to the
//! scheduler.
//!
//! <https://html.spec.whatwg.org/multipage/webappapis.html#event-loops>
//!
//! A unit of work is one task, one microtask, one step of a parallel queue, or one timer
//! expiring. Units run whole: nothing else runs in the middle of one. Whenever more than one
//! unit may run next, the engine's schedule chooses among [`EventLoops::candidates`]. The HTML
//! rules that matter for WebMCP live here and nowhere else: a task whose document is not fully
//! active is not runnable (and is discarded when its document is destroyed); a microtask
//! checkpoint drains an event loop's microtasks before it runs another task.

use std::collections::{BTreeSet, VecDeque};

use serde::Serialize;

use super::callback::Callback;
use super::dom::tasks::DomTasks;
use super::dom::DomTask;
use super::keys::{DocumentKey, EventLoopKey, ParallelQueueKey, PromiseKey, ResolverKey, TimerKey};
use super::navigable::{Lifecycle, Navigables};
use super::parallel::{ParallelQueues, QueueState};
use super::promise::{Job, Promises};
use super::seam::Upper;
use super::shared::{value_hash, Access};
use super::timers::Timers;
use super::value::Value;
use super::{Host, HostState, Running};

/// Task sources. Tasks of one source on one event loop run in the order they were queued;
/// the event loop may pick any source next.
///
/// <https://html.spec.whatwg.org/multipage/webappapis.html#task-source>
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskSource {
    /// <https://webmachinelearning.github.io/webmcp/#webmcp-task-source>, defined by the
    /// specification above; the host only keeps its queue.
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
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#networking-task-source>: a
    /// loading document's parser gets its markup in these tasks.
    Networking,
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#user-interaction-task-source>:
    /// the events of what the user does to a control.
    UserInteraction,
}

/// An event loop's queues are the parts of it that units touch, each an object of its own in
/// footprints (see `Arena::part`): a task source's queue is its index, the microtask queue
/// this. Appending to a queue and taking from it commute (`Access::Append`, `Access::Take`).
pub const MICROTASK_QUEUE: u64 = TASK_SOURCES.len() as u64;

/// The part of an event loop that is a task source's queue.
pub fn task_queue(source: TaskSource) -> u64 {
    source.index() as u64
}

pub const TASK_SOURCES: [TaskSource; 7] = [
    TaskSource::Webmcp,
    TaskSource::Timer,
    TaskSource::DomManipulation,
    TaskSource::Harness,
    TaskSource::NavigationAndTraversal,
    TaskSource::Networking,
    TaskSource::UserInteraction,
];

impl TaskSource {
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            TaskSource::Webmcp => "webmcp",
            TaskSource::Timer => "timer",
            TaskSource::DomManipulation => "DOM manipulation",
            TaskSource::Harness => "harness",
            TaskSource::NavigationAndTraversal => "navigation and traversal",
            TaskSource::Networking => "networking",
            TaskSource::UserInteraction => "user interaction",
        }
    }
}

/// What a task does when it runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TaskAction<U: Upper> {
    /// Runs a callback of the page's script (the scenario's script, a timer's callback).
    Script(Callback),
    /// Resolves or rejects a promise: the end of an algorithm's in-parallel steps.
    SettlePromise {
        promise: PromiseKey,
        outcome: Result<Value, Value>,
        why: &'static str,
    },
    /// `DOMContentLoaded` or `load`.
    Lifecycle { stage: Lifecycle },
    /// A navigation started by script commits: the task's document is replaced.
    CommitNavigation {
        url: String,
        label: String,
        keep_in_bfcache: bool,
    },
    /// A timer's callback calls one of a pair of resolving functions (a scenario's thenable
    /// that settles later).
    CallResolver {
        resolver: ResolverKey,
        reject: bool,
        value: Value,
    },
    /// A task of the DOM or of HTML's forms and parser (see `dom::DomTask`).
    Dom(DomTask),
    /// A task the specification above queued (the seam).
    Webmcp(U::Task),
}

/// A task waiting in a task queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task<U: Upper> {
    pub seq: u64,
    pub source: TaskSource,
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#concept-task-document>
    pub document: DocumentKey,
    pub action: TaskAction<U>,
}

/// A microtask: a promise job, with the realm HTML's HostEnqueuePromiseJob gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Microtask<U: Upper> {
    pub seq: u64,
    pub realm: Option<DocumentKey>,
    pub job: Job<U>,
}

/// An event loop: its task queues (one per task source) and its microtask queue.
#[derive(Clone, Debug, Default, Hash)]
pub struct EventLoop<U: Upper> {
    pub label: String,
    pub queues: [VecDeque<Task<U>>; TASK_SOURCES.len()],
    pub microtasks: VecDeque<Microtask<U>>,
}

impl<U: Upper> EventLoop<U> {
    pub(crate) fn is_empty(&self) -> bool {
        self.microtasks.is_empty() && self.queues.iter().all(VecDeque::is_empty)
    }
}

// Sequence numbers only order units; a state's hash takes their order from the engine's
// state hashing, so the numbers themselves are left out of these hashes.
impl<U: Upper> std::hash::Hash for Task<U> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.source, self.document, &self.action).hash(h);
    }
}

impl<U: Upper> std::hash::Hash for Microtask<U> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.realm, &self.job).hash(h);
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

impl<U: Upper> HostState<U> {
    pub(crate) fn new_event_loop(&mut self, label: String) -> EventLoopKey {
        self.event_loops.insert(EventLoop {
            label,
            ..EventLoop::default()
        })
    }

    /// <https://html.spec.whatwg.org/multipage/webappapis.html#queue-a-microtask>, on the
    /// event loop that is running (a job queued outside any event loop goes to its realm's).
    pub(crate) fn queue_microtask(&mut self, realm: Option<DocumentKey>, job: Job<U>) {
        let event_loop = match self.running {
            Running::EventLoop(l) => l,
            _ => match realm {
                Some(r) => self.documents[r].event_loop,
                None => return,
            },
        };
        let seq = self.next_seq();
        let microtask = Microtask { seq, realm, job };
        let append = Access::Append(value_hash(&microtask));
        self.event_loops
            .part_mut(event_loop, MICROTASK_QUEUE, append)
            .microtasks
            .push_back(microtask);
        self.busy_loops.insert(event_loop);
    }

    /// Whether a task may run now: its document must be fully active.
    ///
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#concept-task-runnable>
    fn task_is_runnable(&self, task: &Task<U>) -> bool {
        self.is_fully_active(task.document)
    }

    /// The units of the event loops that may run now: an event loop's first microtask, or else
    /// the first runnable task of each of its task sources.
    fn loop_candidates(&self, out: &mut Vec<Candidate>) {
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
    }

    /// Every unit that may run now, oldest first.
    pub fn candidates(&self) -> Vec<Candidate> {
        let mut out = Vec::new();
        self.loop_candidates(&mut out);
        out.extend(self.ready_parallel.iter().map(|&(seq, key)| Candidate {
            seq,
            unit: UnitRef::Parallel(key),
        }));
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

    /// What [`HostState::next_candidates`] gives, as its first candidate (the oldest) and how
    /// many there are, without listing them: the cost of a step in the default order does
    /// not grow with the number of units that could run (ten thousand registrations' parallel
    /// steps, timers all due at once).
    pub fn next_candidate(&mut self, limit: Option<u64>) -> Option<(Candidate, usize)> {
        if let Some(first) = self.first_candidate() {
            return Some(first);
        }
        match (limit, self.timer_index.first()) {
            (Some(limit), Some(&(due, _, _))) if due <= limit => {
                self.now = self.now.max(due);
                self.first_candidate()
            }
            _ => None,
        }
    }

    fn first_candidate(&mut self) -> Option<(Candidate, usize)> {
        self.catch_up_due_timers();
        let mut loops = Vec::new();
        self.loop_candidates(&mut loops);
        let parallel = self.ready_parallel.first().map(|&(seq, key)| Candidate {
            seq,
            unit: UnitRef::Parallel(key),
        });
        let timer = self.due_timers.first().map(|&(seq, key)| Candidate {
            seq,
            unit: UnitRef::Timer(key),
        });
        let width = loops.len() + self.ready_parallel.len() + self.due_timers.len();
        let first = loops
            .into_iter()
            .chain(parallel)
            .chain(timer)
            .min_by_key(|c| c.seq)?;
        Some((first, width))
    }

    /// Where the scheduler's indexes disagree with the queues and timers they index (an
    /// invariant the explorer checks after every unit).
    pub fn scheduler_index_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let ready: BTreeSet<(u64, ParallelQueueKey)> = self
            .parallel_queues
            .iter()
            .filter_map(|(k, q)| Some((q.next_unit()?, k)))
            .collect();
        if ready != *self.ready_parallel {
            problems.push(format!(
                "the index of runnable parallel queues holds {:?}, the queues say {:?}",
                self.ready_parallel.iter().collect::<Vec<_>>(),
                ready
            ));
        }
        let due: BTreeSet<(u64, TimerKey)> = self
            .timer_index
            .iter()
            .filter(|(due, _, _)| *due <= self.due_until)
            .map(|&(_, seq, key)| (seq, key))
            .collect();
        if due != *self.due_timers {
            problems.push(format!(
                "the index of timers due by {} ms holds {} timers, the timers say {}",
                self.due_until,
                self.due_timers.len(),
                due.len()
            ));
        }
        problems
    }

    /// Whether any unit is queued or any timer pending.
    pub fn is_quiescent(&self) -> bool {
        self.busy_loops.is_empty()
            && self.timers.is_empty()
            && self
                .parallel_queues
                .values()
                .all(|q| q.steps.is_empty() && q.state == QueueState::Ready)
    }
}

/// The event loop's algorithms.
pub trait EventLoops: Host {
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#queue-a-global-task>
    fn queue_global_task(
        &mut self,
        document: DocumentKey,
        source: TaskSource,
        action: TaskAction<Self::Upper>,
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
        // What decides whether the task can run as soon as it is queued: its event loop has
        // no microtask pending and its document is fully active. The unit that queues it
        // reads both, so that it is ordered with a unit that would keep the task from
        // running (one that queues a microtask on that loop, or takes the document out of
        // being fully active): in one order the task is runnable at once, in the other it
        // waits, and a search that only ever saw it wait would never run it earlier.
        let _ = self
            .event_loops
            .part(event_loop, MICROTASK_QUEUE, Access::Read);
        self.is_fully_active(document);
        let task = Task {
            seq,
            source,
            document,
            action,
        };
        let append = Access::Append(value_hash(&task));
        self.event_loops
            .part_mut(event_loop, task_queue(source), append)
            .queues[source.index()]
        .push_back(task);
        self.busy_loops.insert(event_loop);
    }

    /// A destroyed document's queued tasks can never run: they are discarded.
    fn discard_tasks_of(&mut self, doc: DocumentKey) {
        let event_loop = self.documents[doc].event_loop;
        let mut discarded = 0;
        for source in TASK_SOURCES {
            let q = &mut self
                .event_loops
                .part_mut(event_loop, task_queue(source), Access::Write)
                .queues[source.index()];
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

    /// A one-line description of a unit, for traces and for the explorer.
    fn describe_unit(&self, unit: UnitRef) -> String {
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
            UnitRef::Timer(t) => self.describe_timer(&self.timers[t].kind),
        }
    }

    fn describe_task_action(&self, action: &TaskAction<Self::Upper>) -> String {
        match action {
            TaskAction::Script(callback) => callback.describe(),
            TaskAction::SettlePromise {
                promise,
                outcome,
                why,
            } => format!(
                "{} {} ({why})",
                if outcome.is_ok() { "resolve" } else { "reject" },
                self.promise_label(*promise)
            ),
            TaskAction::Lifecycle { stage } => match stage {
                Lifecycle::Interactive => "DOMContentLoaded".into(),
                _ => "load".into(),
            },
            TaskAction::CommitNavigation { url, .. } => format!("the navigation to {url} commits"),
            TaskAction::CallResolver { reject, value, .. } => format!(
                "the thenable's timer calls {}({})",
                if *reject { "reject" } else { "resolve" },
                self.describe_value(value)
            ),
            TaskAction::Dom(task) => self.describe_dom_task(task),
            TaskAction::Webmcp(step) => self.describe_task_step(step),
        }
    }

    /// Runs one given unit (the engine has counted and traced it).
    fn run_unit(&mut self, unit: UnitRef) {
        match unit {
            UnitRef::Microtask(l) => {
                let queue = self.event_loops.part_mut(l, MICROTASK_QUEUE, Access::Take);
                if let Some(m) = queue.microtasks.pop_front() {
                    self.running = Running::EventLoop(l);
                    self.run_job(m.realm, m.job);
                }
            }
            UnitRef::Task {
                event_loop,
                source,
                position,
            } => {
                if let Some(task) = self
                    .event_loops
                    .part_mut(event_loop, task_queue(source), Access::Take)
                    .queues[source.index()]
                .remove(position)
                {
                    self.running = Running::EventLoop(event_loop);
                    self.run_task(task);
                }
            }
            UnitRef::Parallel(q) => {
                self.running = Running::Parallel(q);
                self.run_parallel_queue(q);
            }
            UnitRef::Timer(t) => {
                self.running = Running::Timer;
                self.expire_timer(t);
            }
        }
        self.running = Running::Harness;
        // Only a loop that ran dry leaves the busy set (and only then is the set written). The
        // set is the scheduler's index of the loops: the unit wrote the loop it emptied.
        super::shared::footprint::untracked(|| {
            if self
                .busy_loops
                .iter()
                .any(|l| self.event_loops[*l].is_empty())
            {
                let state = &mut **self;
                let event_loops = &state.event_loops;
                state.busy_loops.retain(|l| !event_loops[*l].is_empty());
            }
        });
        self.wake_waits();
    }

    fn run_task(&mut self, task: Task<Self::Upper>) {
        let doc = task.document;
        match task.action {
            TaskAction::Script(callback) => {
                // A task's script is not called from other script: its exception, if any, is
                // the script's own to report.
                let _ = self.call(&callback, Vec::new());
            }
            TaskAction::SettlePromise {
                promise, outcome, ..
            } => match outcome {
                Ok(v) => self.resolve_promise(promise, v),
                Err(e) => self.reject_promise(promise, e),
            },
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
            TaskAction::CallResolver {
                resolver,
                reject,
                value,
            } => self.call_resolver(resolver, reject, value),
            TaskAction::Dom(task) => self.run_dom_task(task, doc),
            TaskAction::Webmcp(step) => self.run_task_step(step, doc),
        }
    }
}

impl<H: Host> EventLoops for H {}
