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
//! A wait registers one listener (checked after every unit of work: every change in the
//! simulation is a unit) and two timers (its deadline, and a periodic re-read); all three
//! are removed before it answers, whatever ends it.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value as Json};
use thiserror::Error;
use tokio::sync::{oneshot, watch};

use super::answers::{Answer, Reply};
use super::conditions::{
    page_ref, wait_args, Condition, PageRef, PageState, Support, Verdict, WaitArgs, WaitStart,
    REREAD_MS,
};
use super::tools::{mcp_tool_name, PageTool, CALL, OBSERVE, WAIT_FOR};
use crate::engine::profile::Profile;
use crate::engine::world::World;
use crate::host::keys::{DocumentKey, NavigableKey, SignalKey};
use crate::host::promise::PromiseState;
use crate::host::value::Value;
use crate::prelude::*;
use crate::scenario::runner::{NotServable, RunOptions, SubtestRun};
use crate::scenario::ScenarioFile;
use crate::webmcp::readiness::WaitOutcome;
use crate::webmcp::{ExecutionKey, ObservationKey};

/// How the served world's virtual clock moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// Bound to real time: a timer due in 1500 ms of virtual time runs 1.5 s after serving
    /// started.
    RealTime,
    /// Still unless an agent waits; then it jumps to the next thing due (for tests).
    Virtual,
}

/// What to serve, and how.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub profile: Profile,
    /// The subtest whose name is this, or contains it (needed when the file has several).
    pub subtest: Option<String>,
    pub clock: Clock,
}

/// Why serving could not start.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ServeError {
    #[error("{path}: no subtest's name contains {wanted:?}; its subtests: {names}")]
    NoSuchSubtest {
        path: String,
        wanted: String,
        names: String,
    },
    #[error("{path}: {count} subtests match; pick one with --subtest NAME: {names}")]
    WhichSubtest {
        path: String,
        count: usize,
        names: String,
    },
    #[error("the lines before the serve point do not hold:\n{0}")]
    Setup(NotServable),
    #[error("the gateway's driver thread could not start: {0}")]
    Thread(String),
}

/// What is being served, fixed for the server's life.
#[derive(Clone, Debug)]
pub struct Served {
    pub path: String,
    pub title: String,
    pub subtest: String,
    pub profile: String,
    pub clock: Clock,
    pub support: Support,
}

/// What the gateway holds at a moment: its own timers and listeners (every one a wait
/// created), the requests under way, and the engine's own counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LiveCounts {
    pub timers: usize,
    pub listeners: usize,
    pub waits: usize,
    pub observations: usize,
    pub calls: usize,
    /// `World::live_waiters()`: waits for tools to be ready under way in the engine.
    pub engine_waiters: usize,
    /// `World::live_listeners()`: the page's event listeners.
    pub engine_listeners: usize,
    /// The virtual clock, in ms.
    pub now: u64,
}

/// A page tool, named as the agent named it.
#[derive(Clone, Debug)]
enum ToolRef {
    /// An MCP tool name `FRAME.TOOL`, called directly as an MCP tool.
    Mcp(String),
    /// `webmcp_call`'s `tool`: an MCP name of the page, else a WebMCP name.
    Named(String),
}

/// A wait's answer, with the moment its condition was seen to hold (for latency figures).
struct WaitReply {
    reply: Reply,
    held_at: Option<Instant>,
}

enum Request {
    Observe {
        page: PageRef,
        reply: oneshot::Sender<Reply>,
    },
    Call {
        id: u64,
        page: PageRef,
        tool: ToolRef,
        input: Json,
        reply: oneshot::Sender<Reply>,
    },
    CancelCall {
        id: u64,
        ack: oneshot::Sender<()>,
    },
    WaitFor {
        id: u64,
        args: WaitArgs,
        reply: oneshot::Sender<WaitReply>,
    },
    CancelWait {
        id: u64,
        ack: oneshot::Sender<()>,
    },
    PageTools {
        reply: oneshot::Sender<Vec<PageTool>>,
    },
    Counts {
        reply: oneshot::Sender<LiveCounts>,
    },
    Inspect {
        with: Box<dyn FnOnce(&World) + Send>,
    },
}

/// A handle on a served world: each method sends a request to the driver and awaits its
/// answer. Cheap to clone; the driver stops when the last handle is dropped.
#[derive(Clone)]
pub struct Gateway {
    requests: mpsc::Sender<Request>,
    next_id: Arc<AtomicU64>,
    served: Arc<Served>,
    tool_set: watch::Receiver<u64>,
    matches: Arc<Mutex<Vec<Instant>>>,
}

fn bad_arguments(tool: &str, problem: &str) -> Reply {
    let mut a = Answer::error();
    let t = a.quote(tool);
    a.line(format!("**Bad arguments for {t}:** {problem}."));
    a.finish()
}

fn driver_gone() -> Reply {
    let mut a = Answer::error();
    a.line("The served world is no longer running (the gateway's driver stopped).");
    a.finish()
}

impl Gateway {
    /// Builds the subtest's world up to its serve point, and starts the driver thread.
    pub fn start(file: ScenarioFile, options: ServeOptions) -> Result<Gateway, ServeError> {
        let index = pick_subtest(&file, options.subtest.as_deref())?;
        let (requests, inbox) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::channel();
        let (tool_set_tx, tool_set) = watch::channel(0u64);
        let matches = Arc::new(Mutex::new(Vec::new()));
        let driver_matches = matches.clone();
        std::thread::Builder::new()
            .name("webmcp-ref driver".into())
            .spawn(move || {
                let subtest = &file.subtests[index];
                let run_options = RunOptions {
                    profile: options.profile.clone(),
                    ..RunOptions::default()
                };
                let mut run = SubtestRun::new(&file, subtest, &run_options);
                if let Err(problems) = run.run_to_serve_point() {
                    let _ = ready_tx.send(Err(ServeError::Setup(problems)));
                    return;
                }
                let served = Served {
                    path: file.path.clone(),
                    title: file.title.clone(),
                    subtest: subtest.name.clone(),
                    profile: options.profile.name.clone(),
                    clock: options.clock,
                    support: Support::of(subtest, &options.profile),
                };
                let mut driver = Driver::new(run, options.clock, tool_set_tx, driver_matches);
                let _ = ready_tx.send(Ok(served));
                driver.serve(&inbox);
            })
            .map_err(|e| ServeError::Thread(e.to_string()))?;
        let served = ready_rx
            .recv()
            .map_err(|_| ServeError::Thread("it stopped while building the world".into()))??;
        Ok(Gateway {
            requests,
            next_id: Arc::new(AtomicU64::new(1)),
            served: Arc::new(served),
            tool_set,
            matches,
        })
    }

    pub fn served(&self) -> &Served {
        &self.served
    }

    /// A receiver whose value changes whenever the set of page tools changes.
    pub fn tool_set_changes(&self) -> watch::Receiver<u64> {
        self.tool_set.clone()
    }

    /// When each wait's condition was seen to hold, most recent last (the last 1000).
    pub fn match_instants(&self) -> Vec<Instant> {
        self.matches.lock().map(|m| m.clone()).unwrap_or_default()
    }

    fn send(&self, r: Request) -> bool {
        self.requests.send(r).is_ok()
    }

    fn id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// `webmcp_observe`.
    pub async fn observe(&self, args: &Map<String, Json>) -> Reply {
        if let Some(k) = args.keys().find(|k| *k != "page" && *k != "pageId") {
            return bad_arguments(
                OBSERVE,
                &format!("unknown argument `{k}`; the arguments are `page` and `pageId`"),
            );
        }
        let page = match page_ref(args) {
            Ok(p) => p,
            Err(e) => return bad_arguments(OBSERVE, &e),
        };
        let (reply, answer) = oneshot::channel();
        if !self.send(Request::Observe { page, reply }) {
            return driver_gone();
        }
        answer.await.unwrap_or_else(|_| driver_gone())
    }

    /// `webmcp_call`: `tool`, `input`, `page` / `pageId`. `cancelled` completing aborts the
    /// call's signal.
    pub async fn call(
        &self,
        args: &Map<String, Json>,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Reply {
        const KNOWN: [&str; 4] = ["tool", "input", "page", "pageId"];
        if let Some(k) = args.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return bad_arguments(CALL, &format!("unknown argument `{k}`; the arguments are `tool`, `input`, `page` and `pageId`"));
        }
        let tool = match args.get("tool") {
            Some(Json::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
            Some(Json::String(_)) => {
                return bad_arguments(CALL, "`tool` is blank: give the tool's name")
            }
            None | Some(Json::Null) => {
                return bad_arguments(CALL, "`tool` is missing: give the tool's name")
            }
            Some(other) => {
                return bad_arguments(CALL, &format!("`tool` must be a string, not {other}"))
            }
        };
        let input = match args.get("input") {
            None | Some(Json::Null) => Json::Object(Map::new()),
            Some(o @ Json::Object(_)) => o.clone(),
            Some(other) => {
                return bad_arguments(CALL, &format!("`input` must be an object, not {other}"))
            }
        };
        let page = match page_ref(args) {
            Ok(p) => p,
            Err(e) => return bad_arguments(CALL, &e),
        };
        self.call_tool(page, ToolRef::Named(tool), input, cancelled)
            .await
    }

    /// A page tool called by its MCP name, with `input` as its arguments.
    pub async fn call_page_tool(
        &self,
        mcp_name: &str,
        input: Map<String, Json>,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Reply {
        self.call_tool(
            PageRef::default(),
            ToolRef::Mcp(mcp_name.to_string()),
            Json::Object(input),
            cancelled,
        )
        .await
    }

    async fn call_tool(
        &self,
        page: PageRef,
        tool: ToolRef,
        input: Json,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Reply {
        let id = self.id();
        let (reply, answer) = oneshot::channel();
        if !self.send(Request::Call {
            id,
            page,
            tool,
            input,
            reply,
        }) {
            return driver_gone();
        }
        tokio::select! {
            r = answer => r.unwrap_or_else(|_| driver_gone()),
            _ = cancelled => {
                let (ack, acked) = oneshot::channel();
                if self.send(Request::CancelCall { id, ack }) {
                    let _ = acked.await;
                }
                let mut a = Answer::error();
                a.line("The call was cancelled: its signal was aborted.");
                a.finish()
            }
        }
    }

    /// `webmcp_wait_for`. `cancelled` completing ends the wait at once.
    pub async fn wait_for(
        &self,
        args: &Map<String, Json>,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Reply {
        self.wait_for_timed(args, cancelled).await.0
    }

    /// As [`Gateway::wait_for`], with the moment the driver saw the condition hold.
    pub async fn wait_for_timed(
        &self,
        args: &Map<String, Json>,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> (Reply, Option<Instant>) {
        let args = match wait_args(args, &self.served.support) {
            Ok(a) => a,
            Err(e) => return (bad_arguments(WAIT_FOR, &e), None),
        };
        let id = self.id();
        let (reply, answer) = oneshot::channel();
        if !self.send(Request::WaitFor { id, args, reply }) {
            return (driver_gone(), None);
        }
        tokio::select! {
            r = answer => match r {
                Ok(w) => (w.reply, w.held_at),
                Err(_) => (driver_gone(), None),
            },
            _ = cancelled => {
                let (ack, acked) = oneshot::channel();
                if self.send(Request::CancelWait { id, ack }) {
                    let _ = acked.await;
                }
                let mut a = Answer::new();
                a.line("The wait was cancelled.");
                (a.finish(), None)
            }
        }
    }

    /// Every tool of every open page, in page and tree order.
    pub async fn page_tools(&self) -> Vec<PageTool> {
        let (reply, answer) = oneshot::channel();
        if !self.send(Request::PageTools { reply }) {
            return Vec::new();
        }
        answer.await.unwrap_or_default()
    }

    /// The gateway's live timers and listeners, and the engine's counts.
    pub async fn counts(&self) -> LiveCounts {
        let (reply, answer) = oneshot::channel();
        if !self.send(Request::Counts { reply }) {
            return LiveCounts::default();
        }
        answer.await.unwrap_or_default()
    }

    /// Runs `f` on the world between units (for tests and tools that read the world).
    pub async fn inspect<T: Send + 'static>(
        &self,
        f: impl FnOnce(&World) -> T + Send + 'static,
    ) -> Option<T> {
        let (reply, answer) = oneshot::channel();
        let with = Box::new(move |w: &World| {
            let _ = reply.send(f(w));
        });
        if !self.send(Request::Inspect { with }) {
            return None;
        }
        answer.await.ok()
    }
}

fn pick_subtest(file: &ScenarioFile, wanted: Option<&str>) -> Result<usize, ServeError> {
    let names = || {
        file.subtests
            .iter()
            .map(|s| format!("{:?}", s.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some(wanted) = wanted else {
        if file.subtests.len() == 1 {
            return Ok(0);
        }
        return Err(ServeError::WhichSubtest {
            path: file.path.clone(),
            count: file.subtests.len(),
            names: names(),
        });
    };
    if let Some(i) = file.subtests.iter().position(|s| s.name == wanted) {
        return Ok(i);
    }
    let matching: Vec<usize> = (0..file.subtests.len())
        .filter(|&i| file.subtests[i].name.contains(wanted))
        .collect();
    match matching.as_slice() {
        [i] => Ok(*i),
        [] => Err(ServeError::NoSuchSubtest {
            path: file.path.clone(),
            wanted: wanted.into(),
            names: names(),
        }),
        many => Err(ServeError::WhichSubtest {
            path: file.path.clone(),
            count: many.len(),
            names: many
                .iter()
                .map(|&i| format!("{:?}", file.subtests[i].name))
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// What a gateway timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimerPurpose {
    Deadline(u64),
    Reread(u64),
}

struct Wait {
    args: WaitArgs,
    page: NavigableKey,
    page_id: usize,
    start: WaitStart,
    deadline: u64,
    reread: u64,
    reply: oneshot::Sender<WaitReply>,
}

struct PendingObservation {
    key: ObservationKey,
    page: NavigableKey,
    page_id: usize,
    reply: oneshot::Sender<Reply>,
}

struct PendingCall {
    execution: ExecutionKey,
    signal: SignalKey,
    tool: String,
    document: String,
    reply: oneshot::Sender<Reply>,
}

/// How many units the driver runs before it looks at its requests again.
const BATCH: usize = 10_000;

struct Driver<'a> {
    run: SubtestRun<'a>,
    clock: Clock,
    /// Real time and virtual time when serving started.
    epoch: Instant,
    epoch_virtual: u64,
    /// Top-level traversables, in the order they were opened (a page's id is its place + 1).
    pages: Vec<NavigableKey>,
    waits: BTreeMap<u64, Wait>,
    /// The waits listening for changes.
    listeners: BTreeSet<u64>,
    /// (due, timer id), and what each is for.
    timers: BTreeSet<(u64, u64)>,
    purposes: BTreeMap<u64, TimerPurpose>,
    next_timer: u64,
    observations: Vec<PendingObservation>,
    calls: BTreeMap<u64, PendingCall>,
    tool_set: watch::Sender<u64>,
    tool_signature: u64,
    matches: Arc<Mutex<Vec<Instant>>>,
    reported_uncaught: usize,
    reported_findings: usize,
}

impl<'a> Driver<'a> {
    fn new(
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

    fn world(&self) -> &World {
        &self.run.world
    }

    /// The driver's loop: what is due, then the requests, then sleep until the next thing
    /// due (or the next request).
    fn serve(&mut self, inbox: &mpsc::Receiver<Request>) {
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
    fn real_now(&self) -> u64 {
        self.epoch_virtual + self.epoch.elapsed().as_millis() as u64
    }

    fn agent_waits(&self) -> bool {
        !self.waits.is_empty() || !self.observations.is_empty() || !self.calls.is_empty()
    }

    fn next_wake(&self) -> Option<u64> {
        let mine = self.timers.first().map(|&(due, _)| due);
        match (self.run.next_due(), mine) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs everything due up to `target`, the page's units and the gateway's timers in time
    /// order. False when a batch ran out first.
    fn advance_to(&mut self, target: u64) -> bool {
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
    fn run_until(&mut self, limit: u64) -> bool {
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

    fn add_timer(&mut self, due: u64, purpose: TimerPurpose) -> u64 {
        self.next_timer += 1;
        let id = self.next_timer;
        self.timers.insert((due, id));
        self.purposes.insert(id, purpose);
        id
    }

    fn remove_timer(&mut self, id: u64, due: u64) {
        self.timers.remove(&(due, id));
        self.purposes.remove(&id);
    }

    fn fire_timers(&mut self) {
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

    /// The periodic re-read: check the wait, and re-arm the timer while it goes on.
    fn reread(&mut self, wait: u64, now: u64) {
        if self.check_wait(wait, Instant::now()) {
            return;
        }
        let timer = self.add_timer(now + REREAD_MS, TimerPurpose::Reread(wait));
        if let Some(w) = self.waits.get_mut(&wait) {
            w.reread = timer;
        }
    }

    fn handle(&mut self, request: Request) {
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

    // ----- pages -----

    fn refresh_pages(&mut self) {
        let known: BTreeSet<NavigableKey> = self.pages.iter().copied().collect();
        let new: Vec<NavigableKey> = self
            .world()
            .navigables
            .iter()
            .filter(|(k, n)| n.parent.is_none() && !known.contains(k))
            .map(|(k, _)| k)
            .collect();
        self.pages.extend(new);
    }

    fn page_is_open(&self, page: NavigableKey) -> bool {
        let n = &self.world().navigables[page];
        !n.destroyed && n.active_document.is_some()
    }

    fn top_of(&self, page: NavigableKey) -> Option<DocumentKey> {
        let n = &self.world().navigables[page];
        n.active_document.filter(|_| !n.destroyed)
    }

    /// The page a request names, with its id; an answer saying what is wrong otherwise.
    fn resolve_page(&mut self, wanted: &PageRef) -> Result<(NavigableKey, usize), Reply> {
        self.refresh_pages();
        let by_name = wanted.name.as_ref().map(|name| {
            self.pages.iter().position(|&p| {
                let n = &self.world().navigables[p];
                n.label == *name
                    || n.active_document
                        .is_some_and(|d| self.world().documents[d].label == *name)
            })
        });
        let index = match (by_name, wanted.id) {
            (None, None) => match self.pages.iter().position(|&p| self.page_is_open(p)) {
                Some(i) => i,
                None => return Err(self.page_problem("No page is open.")),
            },
            (Some(Some(i)), None) => i,
            (None, Some(id)) if (id as usize) <= self.pages.len() => id as usize - 1,
            (Some(Some(i)), Some(id)) if i + 1 == id as usize => i,
            (Some(Some(i)), Some(id)) => {
                let problem = format!(
                    "`page` and `pageId` name different pages (`{}` is page {}, not {id}).",
                    wanted.name.as_deref().unwrap_or(""),
                    i + 1
                );
                return Err(self.page_problem(&problem));
            }
            (Some(None), _) => {
                let problem = format!("Unknown page `{}`.", wanted.name.as_deref().unwrap_or(""));
                return Err(self.page_problem(&problem));
            }
            (None, Some(id)) => {
                return Err(self.page_problem(&format!("Unknown page id {id}.")));
            }
        };
        let page = self.pages[index];
        if !self.page_is_open(page) {
            let label = self.world().navigables[page].label.clone();
            return Err(
                self.page_problem(&format!("Page `{label}` (id {}) was closed.", index + 1))
            );
        }
        Ok((page, index + 1))
    }

    /// An answer for a page that cannot be used, listing the pages there are.
    fn page_problem(&self, problem: &str) -> Reply {
        let mut a = Answer::error();
        a.line(format!("**{problem}**"));
        a.blank();
        a.line("Pages (pick one with `page` or `pageId`):");
        for (i, &p) in self.pages.iter().enumerate() {
            let n = &self.world().navigables[p];
            let line = match self.top_of(p) {
                Some(top) => format!(
                    "- {}: {} at {}",
                    i + 1,
                    a.quote(&n.label),
                    a.page(self.world().documents[top].url.as_str())
                ),
                None => format!("- {}: {} (closed)", i + 1, a.quote(&n.label)),
            };
            a.line(line);
        }
        a.finish()
    }

    // ----- after every change -----

    fn after_change(&mut self) {
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
    fn report_problems(&mut self) {
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

    // ----- page tools -----

    fn for_each_page_tool(
        &self,
        mut f: impl FnMut(usize, NavigableKey, DocumentKey, &crate::webmcp::ToolDefinition),
    ) {
        for (i, &page) in self.pages.iter().enumerate() {
            let Some(top) = self.top_of(page) else {
                continue;
            };
            for nav in self.world().inclusive_descendant_navigables(top) {
                let Some(doc) = self.world().navigables[nav].active_document else {
                    continue;
                };
                for t in self.world().model_context(doc).tool_map.values() {
                    f(i + 1, nav, doc, t);
                }
            }
        }
    }

    fn tool_signature(&mut self) -> u64 {
        self.refresh_pages();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.for_each_page_tool(|page, nav, _doc, t| {
            (
                page,
                nav,
                &t.name,
                &t.title,
                &t.description,
                &t.input_schema,
            )
                .hash(&mut h);
            (t.read_only_hint, t.untrusted_content_hint).hash(&mut h);
        });
        h.finish()
    }

    fn page_tools(&mut self) -> Vec<PageTool> {
        self.refresh_pages();
        let mut out = Vec::new();
        let w = self.world();
        self.for_each_page_tool(|page_id, nav, doc, t| {
            let d = &w.documents[doc];
            out.push(PageTool {
                mcp_name: mcp_tool_name(&w.navigables[nav].label, &t.name),
                page: w.navigables[w.navigables[nav].traversable].label.clone(),
                page_id,
                document: d.label.clone(),
                name: t.name.clone(),
                title: t.title.clone(),
                description: t.description.clone(),
                input_schema: t.input_schema.clone(),
                read_only: t.read_only_hint,
                untrusted_content: t.untrusted_content_hint,
                origin: d.origin.serialize(),
                url: d.url.to_string(),
            });
        });
        out
    }

    // ----- observe -----

    fn start_observation(&mut self, page: PageRef, reply: oneshot::Sender<Reply>) {
        let (page, page_id) = match self.resolve_page(&page) {
            Ok(p) => p,
            Err(answer) => {
                let _ = reply.send(answer);
                return;
            }
        };
        let Some(top) = self.top_of(page) else {
            let _ = reply.send(self.page_problem("The page has no document."));
            return;
        };
        let label = format!("agent observation {}", self.observations.len() + 1);
        let key = self.run.world.observe(top, &label);
        self.observations.push(PendingObservation {
            key,
            page,
            page_id,
            reply,
        });
    }

    fn check_observations(&mut self) {
        let mut i = 0;
        while i < self.observations.len() {
            if self
                .world()
                .observation_result(self.observations[i].key)
                .is_some()
            {
                let o = self.observations.remove(i);
                let answer = self.observation_answer(&o);
                let _ = o.reply.send(answer);
            } else {
                i += 1;
            }
        }
    }

    fn observation_answer(&self, o: &PendingObservation) -> Reply {
        let w = self.world();
        let mut a = Answer::new();
        let Some(result) = w.observation_result(o.key) else {
            return a.finish();
        };
        let page = a.quote(&w.navigables[o.page].label);
        let waited = result.waited_ms;
        match result.outcome {
            WaitOutcome::Ready => a.line(format!(
                "Observation of page {page} (id {}): its tools were ready (the wait took {waited} ms).",
                o.page_id
            )),
            WaitOutcome::TimedOut => a.line(format!(
                "Observation of page {page} (id {}): its tools were still not ready after {waited} ms, the engine's timeout; the browser agent observes the page anyway, as the spec says.",
                o.page_id
            )),
            WaitOutcome::Navigated => {
                let now = self
                    .top_of(o.page)
                    .map(|d| a.page(w.documents[d].url.as_str()))
                    .unwrap_or_default();
                a.line(format!(
                    "No observation: page {page} (id {}) navigated while the browser agent waited for its tools to be ready (after {waited} ms). Its top document is now at {now}; observe again.",
                    o.page_id
                ));
            }
            WaitOutcome::Destroyed => a.line(format!(
                "No observation: page {page} (id {}) was destroyed while the browser agent waited for its tools to be ready (after {waited} ms).",
                o.page_id
            )),
        }
        let Some(map) = &result.tool_map else {
            return a.finish();
        };
        for doc in map {
            a.blank();
            let key = w.document_named(&doc.document);
            let url = key
                .map(|d| a.page(w.documents[d].url.as_str()))
                .unwrap_or_default();
            let frame = key
                .map(|d| w.navigables[w.documents[d].navigable].label.clone())
                .unwrap_or_default();
            a.line(format!(
                "### Document {} at {url} (unique ID {})",
                a.quote(&doc.document),
                doc.unique_id
            ));
            if doc.tools.is_empty() {
                a.line("- no tools");
            }
            for t in &doc.tools {
                let line = format!(
                    "- {} (MCP tool {})",
                    a.page(&t.name),
                    a.page(&mcp_tool_name(&frame, &t.name))
                );
                a.line(line);
                if let Some(title) = &t.title {
                    let line = format!("  - title: {}", a.page(title));
                    a.line(line);
                }
                let line = format!("  - description: {}", a.page(&t.description));
                a.line(line);
                let line = format!("  - origin: {}", a.page(&t.origin));
                a.line(line);
                a.line(format!(
                    "  - annotations: readOnlyHint={}, untrustedContentHint={}",
                    t.read_only_hint, t.untrusted_content_hint
                ));
                if t.input_schema.is_empty() {
                    a.line("  - input schema: none");
                } else {
                    a.line("  - input schema:");
                    let block = a.page_block("json", &t.input_schema);
                    for l in block.lines() {
                        a.line(format!("    {l}"));
                    }
                }
            }
        }
        a.finish()
    }

    // ----- call -----

    /// Finds a page tool: by MCP name, or (for `webmcp_call`) by WebMCP name in the page.
    fn find_tool(
        &mut self,
        page: &PageRef,
        tool: &ToolRef,
    ) -> Result<(DocumentKey, String), Reply> {
        let mut by_mcp = Vec::new();
        let mut by_name = Vec::new();
        let scope = match tool {
            ToolRef::Mcp(_) => None,
            ToolRef::Named(_) => Some(self.resolve_page(page)?),
        };
        self.for_each_page_tool(|page_id, nav, doc, t| {
            if scope.is_some_and(|(_, id)| id != page_id) {
                return;
            }
            let mcp = mcp_tool_name(&self.world().navigables[nav].label, &t.name);
            let wanted = match tool {
                ToolRef::Mcp(n) | ToolRef::Named(n) => n,
            };
            if mcp == *wanted {
                by_mcp.push((doc, t.name.clone()));
            }
            if matches!(tool, ToolRef::Named(_)) && t.name == *wanted {
                by_name.push((doc, t.name.clone(), mcp));
            }
        });
        if let Some(found) = by_mcp.into_iter().next() {
            return Ok(found);
        }
        match by_name.len() {
            1 => {
                let (doc, name, _) = by_name.remove(0);
                Ok((doc, name))
            }
            0 => {
                let mut a = Answer::error();
                let wanted = match tool {
                    ToolRef::Mcp(n) | ToolRef::Named(n) => n,
                };
                let line = format!("**No tool {} on the page now.**", a.page(wanted));
                a.line(line);
                let tools: Vec<String> = self
                    .page_tools()
                    .iter()
                    .map(|t| a.page(&t.mcp_name))
                    .collect();
                a.line(format!(
                    "Tools of the open pages (MCP names): {}.",
                    if tools.is_empty() {
                        "none".to_string()
                    } else {
                        tools.join(", ")
                    }
                ));
                Err(a.finish())
            }
            _ => {
                let mut a = Answer::error();
                let names: Vec<String> = by_name.iter().map(|(_, _, m)| a.page(m)).collect();
                a.line(format!(
                    "**Several documents have a tool of that name;** name one by its MCP name: {}.",
                    names.join(", ")
                ));
                Err(a.finish())
            }
        }
    }

    fn start_call(
        &mut self,
        id: u64,
        page: PageRef,
        tool: ToolRef,
        input: Json,
        reply: oneshot::Sender<Reply>,
    ) {
        let (doc, name) = match self.find_tool(&page, &tool) {
            Ok(found) => found,
            Err(answer) => {
                let _ = reply.send(answer);
                return;
            }
        };
        let w = &mut self.run.world;
        let Some(definition) = w.model_context(doc).tool_map.get(&name).cloned() else {
            let _ = reply.send(call_answer(
                &name,
                &w.label(doc),
                Err("it is no longer registered".into()),
            ));
            return;
        };
        // The browser agent's call runs executeTool() from the tool's own document: the spec
        // has no algorithm for the agent's invocation, and executeTool() is the nearest.
        let signal = w.new_abort_controller(doc, "the agent's call");
        let registered = Value::Object(vec![
            ("name".into(), Value::string(&definition.name)),
            ("description".into(), Value::string(&definition.description)),
            ("window".into(), Value::Window(doc)),
            (
                "origin".into(),
                Value::string(w.documents[doc].origin.serialize()),
            ),
        ]);
        let input = Value::from_json_str(&input.to_string()).unwrap_or(Value::Object(Vec::new()));
        let options = Value::Object(vec![("signal".into(), Value::Signal(signal))]);
        w.harness_note(|w| format!("the agent calls {name:?} in {}", w.label(doc)));
        let promise = w.execute_tool(doc, registered, input, options);
        let document = w.label(doc);
        let execution = w
            .webmcp()
            .executions
            .iter()
            .find(|(_, e)| e.promise == promise)
            .map(|(k, _)| k);
        match execution {
            Some(execution) => {
                self.calls.insert(
                    id,
                    PendingCall {
                        execution,
                        signal,
                        tool: name,
                        document,
                        reply,
                    },
                );
            }
            None => {
                // executeTool() rejected before anything ran in parallel.
                let why = match w.promise_state(promise) {
                    PromiseState::Rejected(v) => w.display_value(v),
                    _ => "it did not run".into(),
                };
                let _ = reply.send(call_answer(&name, &document, Err(why)));
            }
        }
    }

    fn check_calls(&mut self) {
        let done: Vec<u64> = self
            .calls
            .iter()
            .filter(|(_, c)| {
                self.world().webmcp().executions[c.execution]
                    .outcome
                    .is_some()
            })
            .map(|(&id, _)| id)
            .collect();
        for id in done {
            let Some(call) = self.calls.remove(&id) else {
                continue;
            };
            let outcome = match &self.world().webmcp().executions[call.execution].outcome {
                Some(Ok(result)) => Ok(result.clone()),
                Some(Err(e)) => Err(if e.message.is_empty() {
                    e.name.clone()
                } else {
                    format!("{}: {}", e.name, e.message)
                }),
                None => continue,
            };
            let _ = call
                .reply
                .send(call_answer(&call.tool, &call.document, outcome));
        }
    }

    // ----- wait-for -----

    fn start_wait(&mut self, id: u64, args: WaitArgs, reply: oneshot::Sender<WaitReply>) {
        let (page, page_id) = match self.resolve_page(&args.page) {
            Ok(p) => p,
            Err(answer) => {
                let _ = reply.send(WaitReply {
                    reply: answer,
                    held_at: None,
                });
                return;
            }
        };
        let start = WaitStart::now(self.world(), page);
        let now = start.at;
        let state = PageState::read(self.world(), page, page_id, &start);
        let verdict = state.verdict(&args.condition);
        if verdict != Verdict::NotYet {
            let _ = reply.send(WaitReply {
                reply: wait_answer(&args.condition, &state, verdict, 0),
                held_at: (verdict == Verdict::Holds).then(Instant::now),
            });
            return;
        }
        let deadline = self.add_timer(now + args.timeout_ms, TimerPurpose::Deadline(id));
        let reread = self.add_timer(now + REREAD_MS, TimerPurpose::Reread(id));
        self.listeners.insert(id);
        self.waits.insert(
            id,
            Wait {
                args,
                page,
                page_id,
                start,
                deadline,
                reread,
                reply,
            },
        );
    }

    /// Removes a wait with its listener and timers; returns it.
    fn end_wait(&mut self, id: u64) -> Option<Wait> {
        let w = self.waits.remove(&id)?;
        self.listeners.remove(&id);
        for timer in [w.deadline, w.reread] {
            let due = self
                .timers
                .iter()
                .find(|&&(_, t)| t == timer)
                .map(|&(due, _)| due);
            if let Some(due) = due {
                self.remove_timer(timer, due);
            }
        }
        Some(w)
    }

    /// Re-reads a wait's page; answers it when its condition holds (or never can). Returns
    /// whether it has answered.
    fn check_wait(&mut self, id: u64, seen_at: Instant) -> bool {
        let Some(w) = self.waits.get(&id) else {
            return true;
        };
        let state = PageState::read(self.world(), w.page, w.page_id, &w.start);
        let verdict = state.verdict(&w.args.condition);
        if verdict == Verdict::NotYet {
            return false;
        }
        let waited = self.world().now() - w.start.at;
        let Some(w) = self.end_wait(id) else {
            return true;
        };
        let held_at = (verdict == Verdict::Holds).then_some(seen_at);
        let reply = wait_answer(&w.args.condition, &state, verdict, waited);
        let _ = w.reply.send(WaitReply { reply, held_at });
        if let (Some(at), Ok(mut m)) = (held_at, self.matches.lock()) {
            if m.len() >= 1000 {
                m.remove(0);
            }
            m.push(at);
        }
        true
    }

    fn time_out(&mut self, id: u64) {
        let Some(w) = self.waits.get(&id) else {
            return;
        };
        let state = PageState::read(self.world(), w.page, w.page_id, &w.start);
        // A condition that holds at the deadline wins over the timeout.
        if state.verdict(&w.args.condition) == Verdict::Holds {
            self.check_wait(id, Instant::now());
            return;
        }
        let waited = self.world().now() - w.start.at;
        let Some(w) = self.end_wait(id) else {
            return;
        };
        let mut a = Answer::new();
        let what = w.args.condition.describe(&a);
        a.line(format!("Timed out after {waited} ms waiting for {what}."));
        a.blank();
        a.line("Last state:");
        state.write_state(&mut a);
        let _ = w.reply.send(WaitReply {
            reply: a.finish(),
            held_at: None,
        });
    }
}

/// The answer of a wait that ended: its condition held, or its page was closed.
fn wait_answer(condition: &Condition, state: &PageState, verdict: Verdict, waited: u64) -> Reply {
    match verdict {
        Verdict::PageClosed => {
            let mut a = Answer::error();
            let what = condition.describe(&a);
            a.line(format!(
                "**Page {} (id {}) was closed** while waiting for {what} (after {waited} ms): the condition can no longer hold.",
                a.quote(&state.name),
                state.id
            ));
            a.finish()
        }
        Verdict::Holds | Verdict::NotYet => {
            let mut a = Answer::new();
            let what = condition.describe(&a);
            a.line(format!("Condition {what} holds (after {waited} ms)."));
            state.write_match(condition, &mut a);
            a.blank();
            a.line("State:");
            state.write_state(&mut a);
            a.finish()
        }
    }
}

fn call_answer(tool: &str, document: &str, outcome: Result<String, String>) -> Reply {
    match outcome {
        Ok(result) => {
            let mut a = Answer::new();
            let line = format!(
                "Tool {} of document {} returned:",
                a.page(tool),
                a.quote(document)
            );
            a.line(line);
            let block = a.page_block("text", &result);
            a.line(block);
            a.finish()
        }
        Err(why) => {
            let mut a = Answer::error();
            let line = format!(
                "**Tool {} of document {} failed:** {}",
                a.page(tool),
                a.quote(document),
                a.page(&why)
            );
            a.line(line);
            a.finish()
        }
    }
}
