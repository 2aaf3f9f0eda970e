//! The simulated world: the host's, WebMCP's and the page script's state composed, the
//! profile they run under, the schedule that decides their order, and what a run records
//! (trace, coverage, findings).
//!
//! The world implements the three layers' traits ([`Host`], [`WebMcpHost`], [`ScriptHost`]),
//! and this file is where the host's seam is dispatched: every continuation the host kept is
//! handed to the layer that made it.

use std::ops::{Deref, DerefMut};

use super::marks::Watched;
use super::profile::Profile;
use super::schedule::{Replay, Schedule, ScheduleError, Scheduler};
use super::trace::{ChoiceNote, Coverage, Finding, Lane, Place, Trace, TraceEntry, UnitKind};
use super::RunError;
use crate::host::callback::Callback;
use crate::host::event_loop::{task_queue, Candidate, EventLoops, UnitRef, MICROTASK_QUEUE};
use crate::host::forms::SubmissionPoint;
use crate::host::keys::{
    DocumentKey, EventKey, ListenerKey, NavigableKey, NodeKey, ParallelQueueKey, SignalKey,
};
use crate::host::navigable::Lifecycle;
use crate::host::shared::{Access, Shared};
use crate::host::spec::Algorithm;
use crate::host::value::ErrorValue;
use crate::host::value::{Facet, Value};
use crate::host::{switches, Completion, Host, HostState};
use crate::script::interpreter::Interpreter;
use crate::script::{LogEntry, ScriptHost, ScriptState, UncaughtError};
use crate::webmcp::prelude::*;
use crate::webmcp::steps::{
    self, AbortStep, ParallelStep, ReactionStep, Steps, TaskStep, TimerStep,
};
use crate::webmcp::{ModelContextKey, WebmcpState};

/// How many units `run` may take before it gives up on reaching quiescence, by default
/// (`--max-units`).
pub const UNIT_BUDGET: u64 = crate::host::budget::Budgets::DEFAULT.max_units;

/// The simulated world.
#[derive(Clone)]
pub struct World {
    pub(crate) host: HostState<Steps>,
    pub(crate) webmcp: WebmcpState,
    pub(crate) script: ScriptState,
    /// Shared between copies of the world: cloning a world for the explorer copies no text.
    pub profile: Shared<Profile>,
    pub(crate) schedule: Replay,
    pub(crate) choice_points: u64,
    pub trace: Trace,
    pub(crate) coverage: Coverage,
    pub(crate) findings: Shared<Vec<Finding>>,
    /// What the trace's marks last saw (see `marks.rs`).
    pub(crate) watched: Watched,
}

impl Deref for World {
    type Target = HostState<Steps>;
    fn deref(&self) -> &HostState<Steps> {
        &self.host
    }
}

impl DerefMut for World {
    fn deref_mut(&mut self) -> &mut HostState<Steps> {
        &mut self.host
    }
}

impl World {
    /// An empty world under a profile.
    pub fn new(profile: Profile) -> World {
        let mut host = HostState::default();
        let ai_agent_queue = host.start_a_new_parallel_queue("AI agent queue");
        // WebMCP's declarative half defines two pseudo-classes.
        host.define_pseudo_class(crate::webmcp::declarative::TOOL_FORM_ACTIVE);
        host.define_pseudo_class(crate::webmcp::declarative::TOOL_SUBMIT_ACTIVE);
        World {
            host,
            webmcp: WebmcpState::new(ai_agent_queue),
            script: ScriptState::default(),
            profile: Shared::new(profile),
            schedule: Replay::default(),
            choice_points: 0,
            trace: Trace::default(),
            coverage: Coverage::default(),
            findings: Shared::default(),
            watched: Watched::default(),
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
    pub fn check_schedule_used(&self) -> Result<(), ScheduleError> {
        self.schedule.check_all_used()
    }

    /// How many choice points the run met so far.
    pub fn choice_points(&self) -> u64 {
        self.choice_points
    }

    /// Turns the step trace on or off (coverage and findings are always recorded).
    pub fn set_tracing(&mut self, on: bool) {
        self.trace.enabled = on;
        // What the trace compares from now on is what the journals say changed; at first,
        // everything.
        self.host.journal = crate::host::Journal {
            enabled: on,
            everything: on,
            ..Default::default()
        };
        self.webmcp.journal = crate::webmcp::Journal {
            enabled: on,
            ..Default::default()
        };
        if on {
            self.webmcp.journal.waiters = self.webmcp.waiters.keys().collect();
            self.webmcp.journal.observations = self.webmcp.observations.keys().collect();
            self.host.journal.promises = self.host.promises.keys().collect();
        }
    }

    pub fn coverage(&self) -> &Coverage {
        &self.coverage
    }

    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    pub fn log(&self) -> &[LogEntry] {
        &self.script.log
    }

    pub fn uncaught_errors(&self) -> &[UncaughtError] {
        &self.script.uncaught
    }

    /// Every name the page's script can use.
    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.script.env.keys()
    }

    /// The names bound to a document, in the order of their bindings, from the `from`-th on
    /// (a name bound twice is there twice).
    pub fn documents_bound_since(&self, from: usize) -> &[String] {
        self.script.documents_bound.get(from..).unwrap_or(&[])
    }

    /// A choice point among `width` runnable units: the scheduler given chooses (the
    /// explorer's), or else the world's own schedule; the choice is recorded either way.
    pub fn choose(
        &mut self,
        width: usize,
        scheduler: Option<&mut dyn Scheduler>,
    ) -> Result<ChoiceNote, RunError> {
        let point = self.choice_points;
        self.choice_points += 1;
        let taken = match scheduler {
            Some(s) => {
                let taken = s.choose(point, width)?;
                self.schedule.record(point, taken);
                taken
            }
            None => self.schedule.choose(point, width)?,
        };
        Ok(ChoiceNote {
            point,
            candidates: width,
            taken,
        })
    }

    /// Runs one unit of work (chosen by the schedule when there is a choice); when nothing can
    /// run, the virtual clock first jumps to the next timer. Returns false when nothing ran.
    /// Once a budget is spent (see `host::budget`), every step is that error.
    pub fn step(&mut self) -> Result<bool, RunError> {
        self.step_within(Some(u64::MAX))
    }

    /// The error of a spent budget, if one is.
    pub fn budget_error(&self) -> Result<(), RunError> {
        match self.host.budget_stop() {
            Some(stop) => Err(RunError::Budget(stop.clone())),
            None => Ok(()),
        }
    }

    /// Stops the run: `units` units ran and the world is still not idle.
    pub fn stop_for_units(&mut self, units: u64) -> RunError {
        use crate::host::budget::{Budget, BudgetStop};
        let time = self.host.now;
        self.host.at_statement(0);
        self.host.stop(Budget::Units { units, time });
        RunError::Budget(self.host.budget_stop().cloned().unwrap_or(BudgetStop {
            budget: Budget::Units { units, time },
            line: None,
        }))
    }

    /// As [`World::step`], letting the clock jump no further than `limit` (`None`: not at all).
    fn step_within(&mut self, limit: Option<u64>) -> Result<bool, RunError> {
        self.budget_error()?;
        let Some((first, width)) = self.next_candidate(limit) else {
            return Ok(false);
        };
        let (unit, choice) = match width {
            1 => (first, None),
            n => {
                let note = self.choose(n, None)?;
                let unit = match note.taken {
                    0 => first,
                    i => self.candidates().get(i).copied().unwrap_or(first),
                };
                (unit, Some(note))
            }
        };
        self.run_unit(unit, choice);
        self.budget_error()?;
        Ok(true)
    }

    /// Runs one given unit: the end of every `step`, and the explorer's way in.
    pub fn run_unit(&mut self, candidate: Candidate, choice: Option<ChoiceNote>) {
        let unit: UnitRef = candidate.unit;
        if self.trace.enabled {
            self.note_changes();
        }
        self.host.unit += 1;
        self.host.begin_unit();
        if self.trace.enabled {
            let what = self.describe_unit(unit);
            let place = self.place_of(candidate);
            self.trace.entries.push(TraceEntry::Unit {
                unit: self.host.unit,
                time: self.host.now,
                what,
                choice,
                place,
            });
        }
        EventLoops::run_unit(self, unit);
        self.note_changes();
        self.check_trace_budget();
    }

    /// A trace past its budget stops the run (see `host::budget`).
    fn check_trace_budget(&mut self) {
        if self.trace.enabled
            && self.trace.entries.len() as u64 > self.host.budgets.max_trace_entries
        {
            self.host.at_statement(0);
            let max = self.host.budgets.max_trace_entries;
            self.host.stop(crate::host::budget::Budget::Trace(max));
        }
    }

    /// Where a unit runs, for the trace.
    fn place_of(&self, candidate: Candidate) -> Place {
        let (lane, kind) = match candidate.unit {
            UnitRef::Microtask(l) => (
                Lane::EventLoop(self.host.event_loops[l].label.clone()),
                UnitKind::Microtask,
            ),
            UnitRef::Task {
                event_loop, source, ..
            } => (
                Lane::EventLoop(self.host.event_loops[event_loop].label.clone()),
                UnitKind::Task(source.name()),
            ),
            UnitRef::Parallel(q) => (
                Lane::ParallelQueue(self.host.parallel_queues[q].label.clone()),
                UnitKind::Parallel,
            ),
            UnitRef::Timer(_) => (Lane::Timers, UnitKind::Timer),
        };
        Place {
            lane,
            kind,
            queued: candidate.seq,
            seq: self.host.seq,
        }
    }

    /// Reads what makes a unit runnable, so that its footprint holds it: a task's document
    /// being fully active, the documents of the tasks before it on its task source, which
    /// are not, and its event loop's microtask queue being empty. (The tasks before it were
    /// there before anything appended to the queue while it could run: taking it is what
    /// its footprint notes of the queue. A microtask, a parallel step and a timer read their
    /// own queue, step or timer when they run.)
    pub fn note_runnable(&self, unit: UnitRef) {
        if let UnitRef::Task {
            event_loop,
            source,
            position,
        } = unit
        {
            let loops = &self.host.event_loops;
            let _ = loops.part(event_loop, MICROTASK_QUEUE, Access::Read);
            let queue = &loops
                .part(event_loop, task_queue(source), Access::Take)
                .queues[source.index()];
            for t in queue.iter().take(position + 1) {
                self.host.is_fully_active(t.document);
            }
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
        let until = self.host.now.saturating_add(ms);
        self.run_bounded(Some(until))?;
        self.host.now = self.host.now.max(until);
        self.check_waiters();
        Ok(())
    }

    fn run_bounded(&mut self, limit: Option<u64>) -> Result<(), RunError> {
        let start = self.host.unit;
        self.host.begin_line();
        let done = self.run_bounded_line(start, limit);
        self.host.end_line();
        done
    }

    fn run_bounded_line(&mut self, start: u64, limit: Option<u64>) -> Result<(), RunError> {
        while self.step_within(limit)? {
            let units = self.host.unit - start;
            if units >= self.host.budgets.max_units {
                return Err(self.stop_for_units(units));
            }
        }
        Ok(())
    }

    /// Moves the clock forward to `time` (never back), as the end of `run 100ms` does.
    pub fn advance_clock_to(&mut self, time: u64) {
        self.host.now = self.host.now.max(time);
        self.check_waiters();
    }
}

impl Host for World {
    type Upper = Steps;

    fn record_step(
        &mut self,
        alg: &'static Algorithm,
        step: usize,
        doc: Option<DocumentKey>,
        detail: impl FnOnce(&Self) -> String,
    ) {
        self.coverage.mark(alg.id, step);
        if self.trace.enabled {
            let detail = detail(self);
            let document = doc.map(|d| self.label(d));
            self.trace.entries.push(TraceEntry::Step {
                unit: self.host.unit,
                time: self.host.now,
                algorithm: alg.name,
                anchor: alg.anchor,
                step: alg.steps[step],
                document,
                detail,
            });
        }
    }

    fn finding(
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
            time: self.host.now,
            unit: self.host.unit,
        };
        if self.trace.enabled {
            self.trace.entries.push(TraceEntry::Finding {
                unit: self.host.unit,
                finding: finding.clone(),
            });
        }
        self.findings.push(finding);
    }

    fn harness_note(&mut self, what: impl FnOnce(&Self) -> String) {
        if self.trace.enabled {
            let what = what(self);
            self.trace.entries.push(TraceEntry::Harness {
                unit: self.host.unit,
                time: self.host.now,
                what,
                seq: self.host.seq,
                within: !matches!(self.host.running, crate::host::Running::Harness),
            });
            // What the action did before it was noted (an observation asked for) is the
            // action's; what it does after is noted at the next entry.
            self.note_changes();
        }
    }

    fn host_switches(&self) -> &switches::Switches {
        &self.profile.host
    }

    // The seam: each continuation goes back to WebMCP, which made it.

    fn run_task_step(&mut self, step: TaskStep, document: DocumentKey) {
        steps::run_task(self, step, document)
    }

    fn run_parallel_step(&mut self, step: ParallelStep, queue: ParallelQueueKey) {
        steps::run_parallel(self, step, queue)
    }

    fn run_reaction(&mut self, step: ReactionStep, argument: Value, fulfilled: bool) -> Completion {
        steps::run_reaction(self, step, argument, fulfilled)
    }

    fn run_abort_steps(&mut self, step: AbortStep, signal: SignalKey) {
        steps::run_abort(self, step, signal)
    }

    fn run_timer_step(&mut self, step: TimerStep) {
        steps::run_timer(self, step)
    }

    fn describe_task_step(&self, step: &TaskStep) -> String {
        steps::describe_task(self, step)
    }

    fn describe_parallel_step(&self, step: &ParallelStep) -> String {
        steps::describe_parallel(self, step)
    }

    fn describe_reaction(&self, step: &ReactionStep) -> String {
        steps::describe_reaction(self, step)
    }

    fn describe_timer_step(&self, step: &TimerStep) -> String {
        steps::describe_timer(self, step)
    }

    fn event_listeners(&mut self, target: ModelContextKey) -> &mut Vec<ListenerKey> {
        steps::event_listeners(self, target)
    }

    fn read_event_listeners(&self, target: ModelContextKey) -> &Vec<ListenerKey> {
        steps::read_event_listeners(self, target)
    }

    fn event_target_label(&self, target: ModelContextKey) -> String {
        steps::event_target_label(self, target)
    }

    fn event_target_document(&self, target: ModelContextKey) -> DocumentKey {
        self.document_of(target)
    }

    fn document_created(&mut self, doc: DocumentKey) {
        self.create_model_context(doc);
        // The page's script names a document (and its window) by its label.
        let label = self.host.documents[doc].label.clone();
        self.bind(&label, Value::Window(doc, Facet::Name));
    }

    fn unloading_document_cleanup_steps(&mut self, doc: DocumentKey) {
        self.unloading_document_cleanup_steps_of_webmcp(doc);
    }

    fn document_destroyed(&mut self, doc: DocumentKey) {
        self.host.journal.document(doc);
        self.settle_promises_of_destroyed_realm(doc);
    }

    fn lifecycle_reached(&mut self, doc: DocumentKey, stage: Lifecycle) {
        self.lifecycle_reached_steps(doc, stage);
    }

    fn tree_changed(&mut self, traversable: NavigableKey) {
        // Which documents are fully active may have changed anywhere (a document in the
        // back/forward cache is in no tree): the trace looks at every one.
        if self.host.journal.enabled {
            self.host.journal.everything = true;
            self.host.journal.documents.clear();
        }
        self.recount_not_ready(traversable);
    }

    fn document_added(&mut self, traversable: NavigableKey, doc: DocumentKey) {
        self.host.journal.document(doc);
        self.count_added_document(traversable, doc);
    }

    fn wake_waits(&mut self) {
        self.check_waiters();
    }

    // DOM and HTML hooks: WebMCP's declarative tools watch forms, their controls and labels.

    fn insertion_steps(&mut self, node: NodeKey) {
        self.declarative_node_changed(node);
    }

    fn removing_steps(&mut self, node: NodeKey, old_parent: Option<NodeKey>) {
        self.declarative_node_removed(node, old_parent);
    }

    fn attribute_change_steps(
        &mut self,
        element: NodeKey,
        _name: &str,
        old: Option<&str>,
        value: Option<&str>,
    ) {
        if old != value {
            self.declarative_node_changed(element);
        }
    }

    // Adoption removes the node first and inserts it after: those steps already move its tool.
    fn adopting_steps(&mut self, _node: NodeKey, _old_document: DocumentKey) {}

    fn form_owner_changed(
        &mut self,
        _element: NodeKey,
        old: Option<NodeKey>,
        new: Option<NodeKey>,
    ) {
        self.declarative_form_owner_changed(old, new);
    }

    fn form_reset(&mut self, form: NodeKey) {
        self.declarative_form_reset(form);
    }

    fn submit_event_agent_invoked(&mut self, form: NodeKey) -> bool {
        self.declarative_agent_invoked(form)
    }

    fn form_submission_reached(&mut self, form: NodeKey, point: SubmissionPoint) {
        self.declarative_submission_steps(form, point);
    }

    fn submit_event_respond_with(
        &mut self,
        event: EventKey,
        value: Value,
    ) -> Result<(), ErrorValue> {
        self.submit_event_respond_with_steps(event, value)
    }

    fn call(&mut self, callback: &Callback, args: Vec<Value>) -> Completion {
        self.call_code(callback, args)
    }
}

impl WebMcpHost for World {
    fn webmcp(&self) -> &WebmcpState {
        &self.webmcp
    }

    fn webmcp_mut(&mut self) -> &mut WebmcpState {
        &mut self.webmcp
    }

    fn switches(&self) -> &crate::webmcp::Switches {
        &self.profile.webmcp
    }
}

impl ScriptHost for World {
    fn script(&self) -> &ScriptState {
        &self.script
    }

    fn script_mut(&mut self) -> &mut ScriptState {
        &mut self.script
    }

    fn trace_log(&mut self, text: &str) {
        if self.trace.enabled {
            self.trace.entries.push(TraceEntry::Log {
                unit: self.host.unit,
                time: self.host.now,
                text: text.into(),
            });
        }
    }
}
