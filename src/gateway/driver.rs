//! The driver: one thread owns the served subtest's world and runs it, binding its virtual
//! clock to real time; requests reach it through a channel and answers go back through
//! oneshot channels.
//!
//! The world stays single-threaded and deterministic: the driver only runs units the
//! engine's scheduler offers (through [`SubtestRun::serve_step`]), and agent requests act on
//! the world between units. In real time, the driver sleeps until the next timer of the page
//! (or of a wait) is due, and wakes early when a request arrives. With [`Clock::Virtual`],
//! time moves only while an agent waits for something (a wait-for, an observation, a call):
//! then it jumps straight to the next thing due.
//!
//! After every unit and every request the driver looks again at what agents wait for (the
//! waits' conditions, observations, calls) and at the set of page tools (see
//! `after_change`): every change in the simulation is a unit.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::call::PendingCall;
use super::handle::{LiveCounts, Request};
use super::observe::PendingObservation;
use super::wait_for::Wait;
use crate::engine::world::World;
use crate::host::keys::NavigableKey;
use crate::host::value::Value;
use crate::prelude::*;
use crate::scenario::runner::SubtestRun;

/// How the served world's virtual clock moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// Bound to real time: a timer due in 1500 ms of virtual time runs 1.5 s after serving
    /// started.
    RealTime,
    /// Still unless an agent waits; then it jumps to the next thing due (for tests).
    Virtual,
}

/// What a gateway timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TimerPurpose {
    Deadline(u64),
    Reread(u64),
}

/// How many units the driver runs before it looks at its requests again.
const BATCH: usize = 10_000;

/// The driver's state: the subtest's run, the gateway's own timers and listeners (every one a
/// wait's), and the requests under way.
pub(super) struct Driver<'a> {
    pub(super) run: SubtestRun<'a>,
    clock: Clock,
    /// Real time and virtual time when serving started.
    epoch: Instant,
    epoch_virtual: u64,
    /// Top-level traversables, in the order they were opened (a page's id is its place + 1).
    pub(super) pages: Vec<NavigableKey>,
    pub(super) waits: BTreeMap<u64, Wait>,
    /// The waits listening for changes.
    pub(super) listeners: BTreeSet<u64>,
    /// (due, timer id), and what each is for.
    pub(super) timers: BTreeSet<(u64, u64)>,
    purposes: BTreeMap<u64, TimerPurpose>,
    next_timer: u64,
    pub(super) observations: Vec<PendingObservation>,
    pub(super) calls: BTreeMap<u64, PendingCall>,
    tool_set: watch::Sender<u64>,
    tool_signature: u64,
    pub(super) matches: Arc<Mutex<Vec<Instant>>>,
    reported_uncaught: usize,
    reported_findings: usize,
}

impl<'a> Driver<'a> {
    pub(super) fn new(
        run: SubtestRun<'a>,
        clock: Clock,
        tool_set: watch::Sender<u64>,
        matches: Arc<Mutex<Vec<Instant>>>,
    ) -> Driver<'a> {
        let epoch_virtual = run.world.now();
        let mut d = Driver {
            run,
            clock,
            epoch: Instant::now(),
            epoch_virtual,
            pages: Vec::new(),
            waits: BTreeMap::new(),
            listeners: BTreeSet::new(),
            timers: BTreeSet::new(),
            purposes: BTreeMap::new(),
            next_timer: 0,
            observations: Vec::new(),
            calls: BTreeMap::new(),
            tool_set,
            tool_signature: 0,
            matches,
            reported_uncaught: 0,
            reported_findings: 0,
        };
        d.refresh_pages();
        d.tool_signature = d.tool_signature();
        d.report_problems();
        d
    }

    pub(super) fn world(&self) -> &World {
        &self.run.world
    }

    /// The driver's loop: what is due, then the requests, then sleep until the next thing
    /// due (or the next request).
    pub(super) fn serve(&mut self, inbox: &mpsc::Receiver<Request>) {
        loop {
            // What is due first, so that a request acts on the page as it is now.
            let target = match self.clock {
                Clock::RealTime => self.real_now(),
                Clock::Virtual => self.world().now(),
            };
            let caught_up = self.advance_to(target);
            let mut handled = false;
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
            if handled || !caught_up {
                continue; // run what the requests started (or the rest of a long batch)
            }
            let next = self.next_wake();
            let received = match (self.clock, next) {
                (Clock::Virtual, Some(t)) if self.agent_waits() => {
                    self.advance_to(t);
                    continue;
                }
                (Clock::Virtual, _) | (Clock::RealTime, None) => inbox.recv().map_err(|_| true),
                (Clock::RealTime, Some(t)) => {
                    let at =
                        self.epoch + Duration::from_millis(t.saturating_sub(self.epoch_virtual));
                    inbox
                        .recv_timeout(at.saturating_duration_since(Instant::now()))
                        .map_err(|e| e == mpsc::RecvTimeoutError::Disconnected)
                }
            };
            match received {
                Ok(r) => self.handle(r),
                Err(true) => return,
                Err(false) => {}
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

    pub(super) fn next_wake(&self) -> Option<u64> {
        let mine = self.timers.first().map(|&(due, _)| due);
        match (self.run.next_due(), mine) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs everything due up to `target`, the page's units and the gateway's timers in time
    /// order. False when a batch ran out first.
    pub(super) fn advance_to(&mut self, target: u64) -> bool {
        loop {
            let stop = self
                .timers
                .first()
                .map_or(target, |&(due, _)| due.min(target));
            let stop = stop.max(self.world().now());
            if !self.run_until(stop) {
                return false;
            }
            self.run.world.advance_clock_to(stop);
            self.fire_timers();
            if stop >= target {
                return true;
            }
        }
    }

    /// Runs the page's units (and due `at`/`when` blocks) up to `limit`, checking after each.
    pub(super) fn run_until(&mut self, limit: u64) -> bool {
        for _ in 0..BATCH {
            match self.run.serve_step(Some(limit)) {
                Ok(true) => self.after_change(),
                Ok(false) => return true,
                Err(message) => {
                    eprintln!("webmcp-ref serve: {message}");
                    self.after_change();
                }
            }
        }
        false
    }

    pub(super) fn add_timer(&mut self, due: u64, purpose: TimerPurpose) -> u64 {
        self.next_timer += 1;
        let id = self.next_timer;
        self.timers.insert((due, id));
        self.purposes.insert(id, purpose);
        id
    }

    pub(super) fn remove_timer(&mut self, id: u64, due: u64) {
        self.timers.remove(&(due, id));
        self.purposes.remove(&id);
    }

    pub(super) fn fire_timers(&mut self) {
        let now = self.world().now();
        while let Some(&(due, id)) = self.timers.first() {
            if due > now {
                break;
            }
            let purpose = self.purposes.get(&id).copied();
            self.remove_timer(id, due);
            match purpose {
                Some(TimerPurpose::Deadline(wait)) => self.time_out(wait),
                Some(TimerPurpose::Reread(wait)) => self.reread(wait, now),
                None => {}
            }
        }
    }

    pub(super) fn handle(&mut self, request: Request) {
        match request {
            Request::Observe { page, reply } => self.start_observation(page, reply),
            Request::Call {
                id,
                page,
                tool,
                input,
                reply,
            } => self.start_call(id, page, tool, input, reply),
            Request::CancelCall { id, ack } => {
                if let Some(call) = self.calls.remove(&id) {
                    let reason = Value::error(crate::ErrorValue::dom(
                        "AbortError",
                        "the agent cancelled the call",
                    ));
                    self.run.world.signal_abort(call.signal, Some(reason));
                }
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
                    timers: self.timers.len(),
                    listeners: self.listeners.len(),
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
        self.after_change();
    }

    /// After every unit and every request: answers the waits, observations and calls that
    /// can now be answered, and tells the server when the set of page tools changed.
    pub(super) fn after_change(&mut self) {
        let now = Instant::now();
        let listening: Vec<u64> = self.listeners.iter().copied().collect();
        for id in listening {
            self.check_wait(id, now);
        }
        self.check_observations();
        self.check_calls();
        let signature = self.tool_signature();
        if signature != self.tool_signature {
            self.tool_signature = signature;
            self.tool_set.send_modify(|v| *v += 1);
        }
        self.report_problems();
    }

    /// New uncaught exceptions and findings go to stderr: the page's own errors.
    pub(super) fn report_problems(&mut self) {
        let w = &self.run.world;
        for u in &w.uncaught_errors()[self.reported_uncaught..] {
            eprintln!(
                "webmcp-ref serve: uncaught {} in a script of {} (line {})",
                u.error, u.realm, u.line
            );
        }
        for f in &w.findings()[self.reported_findings..] {
            eprintln!("webmcp-ref serve: finding: {f}");
        }
        self.reported_uncaught = w.uncaught_errors().len();
        self.reported_findings = w.findings().len();
    }
}
