//! The driver: one thread owns the served subtest's world and runs it, binding its virtual
//! clock to real time; requests reach it through a channel and answers go back through
//! oneshot channels.
//!
//! The world stays single-threaded and deterministic: the driver only runs units the
//! engine's scheduler offers (through [`SubtestRun::serve_step`]), and agent requests act on
//! the world between units. It runs the page in slices of at most [`SLICE_UNITS`] units or
//! [`SLICE_TIME`] of real time, and between two slices it answers requests and the deadlines
//! that have passed, so that nothing a page does (a `toolchange` listener that registers and
//! aborts a tool forever) can keep an answer waiting.
//!
//! Clocks. With [`Clock::RealTime`], the page's virtual clock follows real time, even while
//! the page never idles (its timers come due as a browser's would, each at its own time). With [`Clock::Virtual`],
//! time moves only while an agent waits for something (a wait-for, an observation, a call),
//! and only when the page is idle: then it jumps straight to the next thing due. Every
//! request with a timeout has a real-time deadline besides, which holds in both modes.
//!
//! After every unit and every request the driver reads, for each page some wait is about,
//! what the conditions depend on ([`PageView`]), and wakes only the waits that the change
//! can concern (see `wait_for`): the cost follows what changed, not how many waits there are.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::call::PendingCall;
use super::handle::{LiveCounts, Request};
use super::keeper::Keeper;
use super::observe::PendingObservation;
use super::tools::ToolNames;
use super::wait_for::{PageWaits, Wait};
use crate::engine::world::World;
use crate::host::keys::NavigableKey;
use crate::prelude::*;
use crate::scenario::runner::SubtestRun;
use crate::text::escape::terminal;

/// How the served world's virtual clock moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// Bound to real time: a timer due in 1500 ms of virtual time runs 1.5 s after serving
    /// started.
    RealTime,
    /// Still unless an agent waits; then it jumps to the next thing due (for tests).
    Virtual,
}

/// What a deadline ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Deadline {
    Wait(u64),
    Observation(u64),
    Call(u64),
}

/// The most units the driver runs before it looks at its requests and deadlines again.
pub const SLICE_UNITS: usize = 512;
/// The most real time a slice of units takes before the driver looks again.
pub const SLICE_TIME: Duration = Duration::from_millis(2);
/// The most real time the driver lets a page that never idles run before it takes the
/// requests waiting (deadlines are answered between slices all the same).
pub const SETTLE_TIME: Duration = Duration::from_millis(10);

/// A deadline: on the virtual clock (with [`Clock::Virtual`] only), and in real time.
struct DeadlineRecord {
    what: Deadline,
    virtual_due: Option<u64>,
    real_due: Instant,
}

/// The driver's state: the subtest's run, the requests under way, their deadlines, and the
/// index of the waits by page.
pub(super) struct Driver<'a> {
    pub(super) run: SubtestRun<'a>,
    pub(super) clock: Clock,
    /// Real time and virtual time when serving started.
    epoch: Instant,
    epoch_virtual: u64,
    /// Top-level traversables, in the order they were opened (a page's id is its place + 1).
    pub(super) pages: Vec<NavigableKey>,
    pub(super) waits: BTreeMap<u64, Wait>,
    /// The waits of each page, indexed by what can end them.
    pub(super) page_waits: BTreeMap<NavigableKey, PageWaits>,
    deadlines: BTreeMap<u64, DeadlineRecord>,
    virtual_deadlines: BTreeSet<(u64, u64)>,
    real_deadlines: BTreeSet<(Instant, u64)>,
    next_deadline: u64,
    pub(super) observations: BTreeMap<u64, PendingObservation>,
    pub(super) calls: BTreeMap<u64, PendingCall>,
    pub(super) names: ToolNames,
    tool_set: watch::Sender<u64>,
    tool_signature: u64,
    pub(super) matches: Arc<Mutex<Vec<Instant>>>,
    reported_uncaught: usize,
    reported_findings: usize,
    /// Answers the deadlines the driver cannot while the page is inside a long unit.
    keeper: Arc<Keeper>,
    /// Why a budget stopped the page (see `host::budget`): it runs no more, and every
    /// request is answered with this.
    pub(super) stopped: Option<String>,
}

impl<'a> Driver<'a> {
    pub(super) fn new(
        run: SubtestRun<'a>,
        clock: Clock,
        tool_set: watch::Sender<u64>,
        matches: Arc<Mutex<Vec<Instant>>>,
        keeper: Arc<Keeper>,
    ) -> Driver<'a> {
        let epoch_virtual = run.world.now();
        let mut d = Driver {
            run,
            clock,
            epoch: Instant::now(),
            epoch_virtual,
            pages: Vec::new(),
            waits: BTreeMap::new(),
            page_waits: BTreeMap::new(),
            deadlines: BTreeMap::new(),
            virtual_deadlines: BTreeSet::new(),
            real_deadlines: BTreeSet::new(),
            next_deadline: 0,
            observations: BTreeMap::new(),
            calls: BTreeMap::new(),
            names: ToolNames::default(),
            tool_set,
            tool_signature: 0,
            matches,
            reported_uncaught: 0,
            reported_findings: 0,
            keeper,
            stopped: None,
        };
        d.refresh_pages();
        d.tool_signature = d.tool_signature();
        d.report_problems();
        d
    }

    pub(super) fn world(&self) -> &World {
        &self.run.world
    }

    /// The driver's loop: requests, deadlines passed, a slice of the page's units; then, once
    /// the page is idle, sleep until the next thing due (or the next request).
    pub(super) fn serve(&mut self, inbox: &mpsc::Receiver<Request>) {
        // A request that woke the driver, handled once the clock has caught up.
        let mut woken_by: Option<Request> = None;
        loop {
            // What is due first, so that a deadline or a request acts on the page as it is
            // now (unless the page never idles: then after SETTLE_TIME).
            let target = match self.clock {
                Clock::RealTime => self.real_now(),
                Clock::Virtual => self.world().now(),
            };
            let more = self.settle(target);
            if self.clock == Clock::RealTime {
                // Real time passes even while the page never idles: the clock moves on, to
                // one due moment at a time, so that timers still run in their order.
                let to = if more {
                    self.run.next_due().map_or(target, |due| due.min(target))
                } else {
                    target
                };
                if to > self.world().now() {
                    self.run.world.advance_clock_to(to);
                    self.after_unit();
                }
            }
            let fired = self.fire_real_deadlines();
            self.after_slice();
            let mut handled = false;
            if let Some(r) = woken_by.take() {
                self.handle(r);
                handled = true;
            }
            loop {
                match inbox.try_recv() {
                    Ok(r) => {
                        self.handle(r);
                        handled = true;
                    }
                    Err(mpsc::TryRecvError::Empty) => break,
                    Err(mpsc::TryRecvError::Disconnected) => return,
                }
            }
            if more || handled || fired {
                continue; // the rest of the page's work, or what requests and deadlines started
            }
            if self.clock == Clock::Virtual && self.agent_waits() {
                if let Some(t) = self.next_virtual_wake() {
                    self.jump_to(t);
                    continue;
                }
            }
            let wake = self.next_real_wake();
            let received = match wake {
                None => inbox.recv().map_err(|_| true),
                Some(at) => inbox
                    .recv_timeout(at.saturating_duration_since(Instant::now()))
                    .map_err(|e| e == mpsc::RecvTimeoutError::Disconnected),
            };
            match received {
                Ok(r) => woken_by = Some(r),
                Err(true) => return,
                Err(false) => {}
            }
        }
    }

    /// Runs slices up to virtual time `limit` until the page is idle or [`SETTLE_TIME`] has
    /// passed, answering deadlines between slices. True when work is left.
    fn settle(&mut self, limit: u64) -> bool {
        let started = Instant::now();
        loop {
            if !self.run_slice(limit) {
                return false;
            }
            self.fire_real_deadlines(); // the work they start runs in the next slice
            if started.elapsed() >= SETTLE_TIME {
                return true;
            }
        }
    }

    /// Virtual time now, in real-time mode: the virtual time serving started at, plus the
    /// real time since.
    pub(super) fn real_now(&self) -> u64 {
        self.epoch_virtual + self.epoch.elapsed().as_millis() as u64
    }

    pub(super) fn agent_waits(&self) -> bool {
        !self.waits.is_empty() || !self.observations.is_empty() || !self.calls.is_empty()
    }

    /// Virtual mode: the next moment something is due, the page's or a deadline's.
    fn next_virtual_wake(&self) -> Option<u64> {
        let mine = self.virtual_deadlines.first().map(|&(due, _)| due);
        match (self.run.next_due(), mine) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// When the driver must look again though no request comes: the next real deadline, and
    /// in real-time mode the page's next timer.
    fn next_real_wake(&self) -> Option<Instant> {
        let mine = self.real_deadlines.first().map(|&(at, _)| at);
        let page = match self.clock {
            Clock::RealTime => self
                .run
                .next_due()
                .map(|t| self.epoch + Duration::from_millis(t.saturating_sub(self.epoch_virtual))),
            Clock::Virtual => None,
        };
        match (page, mine) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Virtual mode, the page idle: moves the clock to `t`, running the page's units due
    /// before it, then ends the deadlines due.
    fn jump_to(&mut self, t: u64) {
        if self.run_slice(t) {
            return; // the page had work up to t: the loop goes on with it
        }
        if t > self.world().now() {
            self.run.world.advance_clock_to(t);
            self.after_unit();
        }
        let now = self.world().now();
        while let Some(&(due, seq)) = self.virtual_deadlines.first() {
            if due > now {
                break;
            }
            self.fire_deadline(seq);
        }
    }

    /// Runs the page's units (and due `at`/`when` blocks) up to virtual time `limit`, for one
    /// slice. True when the slice ended with work left.
    pub(super) fn run_slice(&mut self, limit: u64) -> bool {
        let started = Instant::now();
        for _ in 0..SLICE_UNITS {
            if self.stopped.is_some() {
                return false;
            }
            self.keeper.in_unit(true);
            let stepped = self.run.serve_step(Some(limit));
            self.keeper.in_unit(false);
            match stepped {
                Ok(true) => self.after_unit(),
                Ok(false) => return false,
                Err(message) => {
                    eprintln!(
                        "webmcp-ref serve: {}",
                        terminal(&message.to_string(), false)
                    );
                    self.after_unit();
                }
            }
            if let Some(stop) = self.run.budget_stop().cloned() {
                self.stop_page(&stop);
                return false;
            }
            if started.elapsed() >= SLICE_TIME {
                return true;
            }
        }
        true
    }

    /// A budget stopped the page (a unit that never ended, a page that never idles, a value
    /// too large): it runs no more. Every request under way is answered with why, and so is
    /// every request to come; the page's tools can still be listed.
    fn stop_page(&mut self, stop: &crate::host::budget::BudgetStop) {
        let at = match stop.line {
            Some(line) => format!("{}:{line}: ", self.run.file().path),
            None => String::new(),
        };
        let message = format!("{at}{stop}");
        eprintln!(
            "webmcp-ref serve: the page was stopped: {}",
            terminal(&message, false)
        );
        self.stopped = Some(message);
        for id in self.waits.keys().copied().collect::<Vec<_>>() {
            if let Some(w) = self.end_wait(id) {
                let answer = self.stopped_answer();
                w.reply.send(super::handle::WaitReply {
                    reply: answer,
                    held_at: None,
                });
            }
        }
        for (_, o) in std::mem::take(&mut self.observations) {
            self.remove_deadline(o.deadline);
            o.reply.send(self.stopped_answer());
        }
        for (_, c) in std::mem::take(&mut self.calls) {
            self.remove_deadline(c.deadline);
            c.reply.send(self.stopped_answer());
        }
    }

    /// The answer to any request once the page is stopped.
    pub(super) fn stopped_answer(&self) -> super::answers::Reply {
        let mut a = super::answers::Answer::error();
        let why = self.stopped.clone().unwrap_or_default();
        a.line(format!(
            "**The served page was stopped by a budget, and runs no more:** {}. Its tools can still be listed; serve it again (with the budget raised, if the page needs it) to go on.",
            crate::text::escape::markdown_inline(&why)
        ));
        a.field("outcome", "stopped");
        a.field("why", why);
        a.finish()
    }

    /// A deadline for a request: `timeout_ms` from now in real time, and on the virtual clock
    /// too when it is [`Clock::Virtual`].
    /// (The request's handle registered it with the keeper too, as it arrived.)
    pub(super) fn add_deadline(&mut self, what: Deadline, timeout_ms: u64) -> u64 {
        self.next_deadline += 1;
        let seq = self.next_deadline;
        let real_due = Instant::now() + Duration::from_millis(timeout_ms);
        let virtual_due = (self.clock == Clock::Virtual).then(|| self.world().now() + timeout_ms);
        if let Some(due) = virtual_due {
            self.virtual_deadlines.insert((due, seq));
        }
        self.real_deadlines.insert((real_due, seq));
        self.deadlines.insert(
            seq,
            DeadlineRecord {
                what,
                virtual_due,
                real_due,
            },
        );
        seq
    }

    pub(super) fn remove_deadline(&mut self, seq: u64) {
        if let Some(d) = self.deadlines.remove(&seq) {
            let (Deadline::Wait(id) | Deadline::Observation(id) | Deadline::Call(id)) = d.what;
            self.keeper.remove(id);
            if let Some(due) = d.virtual_due {
                self.virtual_deadlines.remove(&(due, seq));
            }
            self.real_deadlines.remove(&(d.real_due, seq));
        }
    }

    /// Ends the requests whose real-time deadline has passed; whether there were any.
    fn fire_real_deadlines(&mut self) -> bool {
        let now = Instant::now();
        let mut fired = false;
        while let Some(&(at, seq)) = self.real_deadlines.first() {
            if at > now {
                break;
            }
            self.fire_deadline(seq);
            fired = true;
        }
        fired
    }

    fn fire_deadline(&mut self, seq: u64) {
        let Some(d) = self.deadlines.get(&seq) else {
            return;
        };
        let what = d.what;
        self.remove_deadline(seq);
        match what {
            Deadline::Wait(id) => self.time_out(id),
            Deadline::Observation(id) => self.observation_timed_out(id),
            Deadline::Call(id) => self.call_timed_out(id),
        }
    }

    pub(super) fn handle(&mut self, request: Request) {
        if self.stopped.is_some() {
            match request {
                Request::Observe { reply, .. } | Request::Call { reply, .. } => {
                    let _ = reply.send(self.stopped_answer());
                    return;
                }
                Request::WaitFor { reply, .. } => {
                    let _ = reply.send(super::handle::WaitReply {
                        reply: self.stopped_answer(),
                        held_at: None,
                    });
                    return;
                }
                other => return self.handle_live(other),
            }
        }
        self.handle_live(request)
    }

    fn handle_live(&mut self, request: Request) {
        match request {
            Request::Observe { id, args, reply } => self.start_observation(id, args, reply),
            Request::CancelObservation { id, ack } => {
                self.cancel_observation(id);
                let _ = ack.send(());
            }
            Request::Call {
                id,
                page,
                tool,
                input,
                timeout_ms,
                reply,
            } => self.start_call(id, page, tool, input, timeout_ms, reply),
            Request::CancelCall { id, ack } => {
                self.cancel_call(id, "the agent cancelled the call");
                let _ = ack.send(());
            }
            Request::WaitFor { id, args, reply } => self.start_wait(id, args, reply),
            Request::CancelWait { id, ack } => {
                self.end_wait(id);
                let _ = ack.send(());
            }
            Request::PageTools { reply } => {
                let _ = reply.send(self.page_tools());
            }
            Request::Counts { reply } => {
                let w = self.world();
                let _ = reply.send(LiveCounts {
                    timers: self.deadlines.len(),
                    listeners: self.page_waits.values().map(PageWaits::len).sum(),
                    waits: self.waits.len(),
                    observations: self.observations.len(),
                    calls: self.calls.len(),
                    engine_waiters: w.live_waiters(),
                    engine_listeners: w.live_listeners(),
                    now: w.now(),
                });
            }
            Request::Inspect { with } => with(self.world()),
        }
        self.after_unit();
        self.after_slice();
    }

    /// After every unit and every request: answers the waits, observations and calls that
    /// can now be answered.
    pub(super) fn after_unit(&mut self) {
        if !self.page_waits.is_empty() {
            self.check_waits(Instant::now());
        }
        self.check_observations();
        self.check_calls();
        self.report_problems();
    }

    /// After every slice: tells the server when the set of page tools changed.
    fn after_slice(&mut self) {
        let signature = self.tool_signature();
        if signature != self.tool_signature {
            self.tool_signature = signature;
            self.tool_set.send_modify(|v| *v += 1);
        }
    }

    /// New uncaught exceptions and findings go to stderr: the page's own errors.
    pub(super) fn report_problems(&mut self) {
        let w = &self.run.world;
        if w.uncaught_errors().len() == self.reported_uncaught
            && w.findings().len() == self.reported_findings
        {
            return;
        }
        for u in &w.uncaught_errors()[self.reported_uncaught..] {
            eprintln!(
                "webmcp-ref serve: uncaught {} in a script of {} (line {})",
                terminal(&u.error, false),
                terminal(&u.realm, false),
                u.line
            );
        }
        for f in &w.findings()[self.reported_findings..] {
            eprintln!(
                "webmcp-ref serve: finding: {}",
                terminal(&f.to_string(), false)
            );
        }
        self.reported_uncaught = w.uncaught_errors().len();
        self.reported_findings = w.findings().len();
    }
}
