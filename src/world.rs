//! The simulated world: every arena of the simulation, the virtual clock, the schedule, and
//! what a run records (trace, coverage, findings, the scenario's log).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use slotmap::SlotMap;

use crate::platform::abort::AbortSignal;
use crate::platform::event_loop::{EventLoop, ParallelQueue, Timer};
use crate::platform::events::Listener;
use crate::platform::keys::*;
use crate::platform::navigable::{Document, Navigable};
use crate::platform::origin::Origin;
use crate::platform::promise::{Promise, Resolver, Thenable};
use crate::platform::shared::Shared;
use crate::platform::value::Value;
use crate::profile::{Assertions, Profile};
use crate::schedule::{Replay, Schedule};
use crate::trace::{Algorithm, Coverage, Finding, Trace, TraceEntry};
use crate::webmcp::agent_api::Execution;
use crate::webmcp::observation::Observation;
use crate::webmcp::readiness::Waiter;
use crate::webmcp::ModelContext;

/// Settings of a world that are not behaviour switches.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct WorldSettings {
    /// Whether the agent clusters of new pages are origin-keyed (registerTool step 4 requires
    /// it outside `file:`).
    pub origin_keyed_agent_clusters: bool,
}

impl Default for WorldSettings {
    fn default() -> Self {
        WorldSettings {
            origin_keyed_agent_clusters: true,
        }
    }
}

/// What is running: the harness between units, an event loop, or a parallel queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Running {
    Harness,
    EventLoop(EventLoopKey),
    Parallel(ParallelQueueKey),
    Timer,
}

/// A line the scenario's script logged.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct LogEntry {
    pub text: String,
    pub time: u64,
    pub realm: String,
}

/// An exception no script caught.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct UncaughtError {
    pub line: u32,
    pub realm: String,
    pub error: String,
}

/// The simulated world.
#[derive(Clone)]
pub struct World {
    /// Shared between copies of the world: cloning a world for the explorer copies no text.
    pub profile: Shared<Profile>,
    pub settings: WorldSettings,
    pub(crate) navigables: Shared<SlotMap<NavigableKey, Navigable>>,
    pub(crate) documents: Shared<SlotMap<DocumentKey, Shared<Document>>>,
    pub(crate) model_contexts: Shared<SlotMap<ModelContextKey, Shared<ModelContext>>>,
    pub(crate) event_loops: Shared<SlotMap<EventLoopKey, Shared<EventLoop>>>,
    pub(crate) agent_event_loops: Shared<BTreeMap<(NavigableKey, Origin), EventLoopKey>>,
    /// Event loops with a queued task or microtask.
    pub(crate) busy_loops: Shared<BTreeSet<EventLoopKey>>,
    pub(crate) parallel_queues: Shared<SlotMap<ParallelQueueKey, Shared<ParallelQueue>>>,
    /// <https://webmachinelearning.github.io/webmcp/#ai-agent-queue>
    pub(crate) ai_agent_queue: ParallelQueueKey,
    pub(crate) promises: Shared<SlotMap<PromiseKey, Shared<Promise>>>,
    pub(crate) promise_labels: Shared<BTreeMap<PromiseKey, String>>,
    pub(crate) promise_count: u32,
    pub(crate) resolvers: Shared<SlotMap<ResolverKey, Resolver>>,
    pub(crate) thenables: Shared<SlotMap<ThenableKey, Thenable>>,
    pub(crate) signals: Shared<SlotMap<SignalKey, AbortSignal>>,
    pub(crate) listeners: Shared<SlotMap<ListenerKey, Listener>>,
    pub(crate) timers: Shared<SlotMap<TimerKey, Timer>>,
    /// Timers ordered by (due time, sequence number).
    pub(crate) timer_index: Shared<BTreeSet<(u64, u64, TimerKey)>>,
    pub(crate) waiters: Shared<SlotMap<WaiterKey, Waiter>>,
    pub(crate) observations: Shared<SlotMap<ObservationKey, Observation>>,
    pub(crate) executions: Shared<SlotMap<ExecutionKey, Execution>>,
    /// The scenario's names for values.
    pub(crate) env: Shared<BTreeMap<String, Value>>,
    pub(crate) now: u64,
    pub(crate) seq: u64,
    pub(crate) unit: u64,
    pub(crate) choice_points: u64,
    pub(crate) running: Running,
    /// How deep script calls are nested (a microtask checkpoint waits for the outermost).
    pub(crate) script_depth: u32,
    pub(crate) next_unique_id: u64,
    pub(crate) next_opaque: u32,
    pub(crate) schedule: Replay,
    pub trace: Trace,
    pub(crate) coverage: Coverage,
    pub(crate) findings: Shared<Vec<Finding>>,
    pub(crate) log: Shared<Vec<LogEntry>>,
    pub(crate) uncaught: Shared<Vec<UncaughtError>>,
}

impl World {
    /// An empty world under a profile.
    pub fn new(profile: Profile) -> World {
        let mut parallel_queues = SlotMap::with_key();
        let ai_agent_queue = parallel_queues.insert(Shared::new(ParallelQueue {
            label: "AI agent queue".into(),
            steps: Default::default(),
            waiting_on: None,
            persistent: true,
        }));
        World {
            profile: Shared::new(profile),
            settings: WorldSettings::default(),
            navigables: Shared::new(SlotMap::with_key()),
            documents: Shared::new(SlotMap::with_key()),
            model_contexts: Shared::new(SlotMap::with_key()),
            event_loops: Shared::new(SlotMap::with_key()),
            agent_event_loops: Shared::default(),
            busy_loops: Shared::default(),
            parallel_queues: Shared::new(parallel_queues),
            ai_agent_queue,
            promises: Shared::new(SlotMap::with_key()),
            promise_labels: Shared::default(),
            promise_count: 0,
            resolvers: Shared::new(SlotMap::with_key()),
            thenables: Shared::new(SlotMap::with_key()),
            signals: Shared::new(SlotMap::with_key()),
            listeners: Shared::new(SlotMap::with_key()),
            timers: Shared::new(SlotMap::with_key()),
            timer_index: Shared::default(),
            waiters: Shared::new(SlotMap::with_key()),
            observations: Shared::new(SlotMap::with_key()),
            executions: Shared::new(SlotMap::with_key()),
            env: Shared::default(),
            now: 0,
            seq: 0,
            unit: 0,
            choice_points: 0,
            running: Running::Harness,
            script_depth: 0,
            next_unique_id: 0,
            next_opaque: 0,
            schedule: Replay::default(),
            trace: Trace::default(),
            coverage: Coverage::default(),
            findings: Shared::default(),
            log: Shared::default(),
            uncaught: Shared::default(),
        }
    }

    /// Replays `schedule` at the world's choice points (the default order elsewhere).
    pub fn set_schedule(&mut self, schedule: Schedule) {
        self.schedule = Replay::new(schedule);
    }

    /// The choices this run made that differ from the default order.
    pub fn recorded_schedule(&self) -> &Schedule {
        &self.schedule.recorded
    }

    /// After a replayed run: an error if the token named choice points never reached.
    pub fn check_schedule_used(&self) -> Result<(), crate::schedule::ScheduleError> {
        self.schedule.check_all_used()
    }

    /// How many choice points the run met so far.
    pub fn choice_points(&self) -> u64 {
        self.choice_points
    }

    /// Turns the step trace on or off (coverage and findings are always recorded).
    pub fn set_tracing(&mut self, on: bool) {
        self.trace.enabled = on;
    }

    /// Records that a step ran; the detail is only computed when tracing.
    pub fn record_step(
        &mut self,
        alg: &'static Algorithm,
        step: usize,
        doc: Option<DocumentKey>,
        detail: impl FnOnce(&World) -> String,
    ) {
        self.coverage.mark(alg.id, step);
        if self.trace.enabled {
            let detail = detail(self);
            let document = doc.map(|d| self.label(d));
            self.trace.entries.push(TraceEntry::Step {
                unit: self.unit,
                time: self.now,
                algorithm: alg.name,
                anchor: alg.anchor,
                step: alg.steps[step],
                document,
                detail,
            });
        }
    }

    /// Reports a failed assertion or a step the spec cannot carry out.
    pub(crate) fn finding(
        &mut self,
        alg: &'static Algorithm,
        step: &'static str,
        doc: Option<DocumentKey>,
        message: String,
    ) {
        let finding = Finding {
            algorithm: alg.name,
            anchor: alg.anchor,
            step,
            document: doc.map(|d| self.label(d)),
            message,
            time: self.now,
            unit: self.unit,
        };
        if self.trace.enabled {
            self.trace.entries.push(TraceEntry::Finding {
                unit: self.unit,
                finding: finding.clone(),
            });
        }
        self.findings.push(finding);
    }

    /// Checks a spec assertion; a failure becomes a finding. Under `assertions=as-written`
    /// the assertion is checked as the text states it (`as_written`), otherwise as intended.
    pub(crate) fn assert_step(
        &mut self,
        alg: &'static Algorithm,
        step: &'static str,
        doc: Option<DocumentKey>,
        as_intended: bool,
        as_written: bool,
        what: &str,
    ) {
        let holds = match self.profile.assertions {
            Assertions::AsIntended => as_intended,
            Assertions::AsWritten => as_written,
        };
        if !holds {
            self.finding(alg, step, doc, format!("assertion failed: {what}"));
        }
    }

    /// Notes a harness action in the trace; the text is only made when tracing.
    pub(crate) fn harness_note(&mut self, what: impl FnOnce(&World) -> String) {
        if self.trace.enabled {
            let what = what(self);
            self.trace.entries.push(TraceEntry::Harness {
                unit: self.unit,
                time: self.now,
                what,
            });
        }
    }

    /// Appends to the scenario's log.
    pub(crate) fn log_line(&mut self, realm: DocumentKey, text: String) {
        if self.trace.enabled {
            self.trace.entries.push(TraceEntry::Log {
                unit: self.unit,
                time: self.now,
                text: text.clone(),
            });
        }
        let realm = self.label(realm);
        self.log.push(LogEntry {
            text,
            time: self.now,
            realm,
        });
    }

    pub fn coverage(&self) -> &Coverage {
        &self.coverage
    }

    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    pub fn uncaught_errors(&self) -> &[UncaughtError] {
        &self.uncaught
    }

    /// A value the scenario named.
    pub fn lookup(&self, name: &str) -> Option<&Value> {
        self.env.get(name)
    }

    /// Names a value for the scenario's script.
    pub fn bind(&mut self, name: &str, value: Value) {
        self.env.insert(name.into(), value);
    }

    /// Every name the scenario's script can use.
    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.env.keys()
    }

    /// A short description of a value, for traces and messages.
    pub fn describe_value(&self, v: &Value) -> String {
        match v {
            Value::Promise(p) => self.promise_label(*p),
            Value::Thenable(t) => format!("thenable {}", self.thenables[*t].label),
            Value::Window(d) => format!("window of {}", self.label(*d)),
            Value::Controller(s) => format!("controller {}", self.signals[*s].label),
            Value::Signal(s) => format!("signal of {}", self.signals[*s].label),
            Value::Error(e) => format!("{}({:?})", e.name, e.message),
            Value::String(s) => format!("{s:?}"),
            Value::Function(_) => "function".into(),
            other => other
                .to_json_string()
                .unwrap_or_else(|_| format!("{other:?}")),
        }
    }
}
