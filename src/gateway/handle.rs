//! The handle requests go through: [`Gateway`] starts the driver thread with the subtest's
//! world built up to its serve point, and each of its methods checks the agent's arguments,
//! sends one request to the driver and awaits the answer.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Instant;

use serde_json::{Map, Value as Json};
use thiserror::Error;
use tokio::sync::{oneshot, watch};

use super::answers::{Answer, Reply};
use super::arguments::{call_args, observe_args, wait_args, ObserveArgs, PageRef, WaitArgs};
use super::conditions::{Support, DEFAULT_CALL_TIMEOUT_MS};
use super::driver::{Clock, Driver};
use super::keeper::{Keeper, Slot};
use super::tools::{PageTool, CALL, OBSERVE, WAIT_FOR};
use crate::engine::profile::Profile;
use crate::engine::world::World;
use crate::scenario::runner::{NotServable, RunOptions, SubtestRun};
use crate::scenario::ScenarioFile;

/// What to serve, and how.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub profile: Profile,
    /// The subtest whose name is this, or contains it (needed when the file has several).
    pub subtest: Option<String>,
    pub clock: Clock,
    /// What a unit, the page until it is next idle, and a value may spend (see
    /// `host::budget`): a page that spends one is stopped, and every request says so.
    pub budgets: crate::host::budget::Budgets,
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
    /// The profile does not run the file (its `requires:`).
    #[error("{0}")]
    NotRun(String),
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
pub(super) enum ToolRef {
    /// An MCP tool name `pageP.toolN`, called directly as an MCP tool.
    Mcp(String),
    /// `webmcp_call`'s `tool`: an MCP name of the page, else a WebMCP name.
    Named(String),
}

/// A wait's answer, with the moment its condition was seen to hold (for latency figures).
pub(super) struct WaitReply {
    pub(super) reply: Reply,
    pub(super) held_at: Option<Instant>,
}

/// What a handle asks of the driver; each request carries where its answer goes.
pub(super) enum Request {
    Observe {
        id: u64,
        args: ObserveArgs,
        reply: Slot<Reply>,
    },
    CancelObservation {
        id: u64,
        ack: oneshot::Sender<()>,
    },
    Call {
        id: u64,
        page: PageRef,
        tool: ToolRef,
        input: Json,
        timeout_ms: u64,
        reply: Slot<Reply>,
    },
    CancelCall {
        id: u64,
        ack: oneshot::Sender<()>,
    },
    WaitFor {
        id: u64,
        args: WaitArgs,
        reply: Slot<WaitReply>,
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
    /// Answers a request whose deadline passes while the page is inside one long unit.
    keeper: Arc<Keeper>,
}

fn bad_arguments(tool: &str, problem: &str) -> Reply {
    let mut a = Answer::error();
    let t = a.quote(tool);
    a.line(format!("**Bad arguments for {t}:** {problem}."));
    a.field("outcome", "bad-arguments");
    a.field("problem", problem);
    a.finish()
}

fn driver_gone() -> Reply {
    let mut a = Answer::error();
    a.line("The served world is no longer running (the gateway's driver stopped).");
    a.field("outcome", "stopped");
    a.finish()
}

fn cancelled_reply(what: &str) -> Reply {
    let mut a = Answer::error();
    a.line(what);
    a.field("outcome", "cancelled");
    a.finish()
}

impl Gateway {
    /// Builds the subtest's world up to its serve point, and starts the driver thread.
    pub fn start(file: ScenarioFile, options: ServeOptions) -> Result<Gateway, ServeError> {
        let index = pick_subtest(&file, options.subtest.as_deref())?;
        if let Some(why) = crate::scenario::runner::unmet_requirement(&file, &options.profile) {
            return Err(ServeError::NotRun(why));
        }
        let (requests, inbox) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::channel();
        let (tool_set_tx, tool_set) = watch::channel(0u64);
        let matches = Arc::new(Mutex::new(Vec::new()));
        let driver_matches = matches.clone();
        let keeper = Arc::new(Keeper::start());
        let driver_keeper = keeper.clone();
        std::thread::Builder::new()
            .name("webmcp-ref driver".into())
            .spawn(move || {
                let subtest = &file.subtests[index];
                let run_options = RunOptions {
                    profile: options.profile.clone(),
                    budgets: options.budgets,
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
                let mut driver = Driver::new(
                    run,
                    options.clock,
                    tool_set_tx,
                    driver_matches,
                    driver_keeper,
                );
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
            keeper,
        })
    }

    /// A slot for request `id`'s answer, registered with the keeper: if `timeout_ms` passes
    /// and the driver has not answered (the page inside one long unit), `busy` is the answer.
    fn slot<T: Send + 'static>(
        &self,
        id: u64,
        timeout_ms: u64,
        busy: T,
    ) -> (Slot<T>, oneshot::Receiver<T>) {
        let (sender, answer) = oneshot::channel();
        let slot = Slot::new(sender);
        let theirs = slot.clone();
        let due = Instant::now() + std::time::Duration::from_millis(timeout_ms);
        self.keeper.add(
            id,
            due,
            Box::new(move || {
                theirs.send(busy);
            }),
        );
        (slot, answer)
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

    /// `webmcp_observe`. `cancelled` completing makes the browser agent abandon the
    /// observation.
    pub async fn observe(
        &self,
        args: &Map<String, Json>,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Reply {
        let args = match observe_args(args) {
            Ok(a) => a,
            Err(e) => return bad_arguments(OBSERVE, &e.to_string()),
        };
        let id = self.id();
        let busy = super::observe::busy_answer(args.timeout_ms);
        let (reply, answer) = self.slot(id, args.timeout_ms, busy);
        if !self.send(Request::Observe { id, args, reply }) {
            self.keeper.remove(id);
            return driver_gone();
        }
        tokio::select! {
            r = answer => r.unwrap_or_else(|_| driver_gone()),
            _ = cancelled => {
                self.keeper.remove(id);
                let (ack, acked) = oneshot::channel();
                if self.send(Request::CancelObservation { id, ack }) {
                    let _ = acked.await;
                }
                cancelled_reply("The observation was cancelled: the browser agent abandoned it.")
            }
        }
    }

    /// `webmcp_call`: `tool`, `input`, `page` / `pageId`. `cancelled` completing aborts the
    /// call's signal.
    pub async fn call(
        &self,
        args: &Map<String, Json>,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Reply {
        let call = match call_args(args) {
            Ok(c) => c,
            Err(e) => return bad_arguments(CALL, &e.to_string()),
        };
        self.call_tool(
            call.page,
            ToolRef::Named(call.tool),
            call.input,
            call.timeout_ms,
            cancelled,
        )
        .await
    }

    /// A page tool called by its MCP name, with `input` as its arguments.
    pub async fn call_page_tool(
        &self,
        mcp_name: &str,
        input: Map<String, Json>,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Reply {
        // The arguments must match the inputSchema the tool was listed with, as an MCP server
        // checks its tools' arguments; the page's own checks (`input-schema`) are the
        // engine's, reached through webmcp_call, which passes any input on as it is.
        let listed = self.page_tools().await;
        if let Some(tool) = listed.iter().find(|t| t.mcp_name == mcp_name) {
            let schema = Json::Object(tool.mcp_input_schema());
            if let Err(v) =
                crate::webmcp::input_schema::validate(&schema, &Json::Object(input.clone()))
            {
                let at = if v.path.is_empty() {
                    "the arguments fail".to_string()
                } else {
                    format!("the argument at `{}` fails", v.path)
                };
                return bad_arguments(
                    mcp_name,
                    &format!(
                        "{at} the tool's inputSchema (its `{}` keyword, at schema path `{}`); list the tools to see the schema",
                        v.reason, v.schema_path
                    ),
                );
            }
        }
        self.call_tool(
            PageRef::default(),
            ToolRef::Mcp(mcp_name.to_string()),
            Json::Object(input),
            DEFAULT_CALL_TIMEOUT_MS,
            cancelled,
        )
        .await
    }

    async fn call_tool(
        &self,
        page: PageRef,
        tool: ToolRef,
        input: Json,
        timeout_ms: u64,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Reply {
        let id = self.id();
        let name = match &tool {
            ToolRef::Mcp(n) | ToolRef::Named(n) => n.clone(),
        };
        let (reply, answer) =
            self.slot(id, timeout_ms, super::call::busy_answer(&name, timeout_ms));
        if !self.send(Request::Call {
            id,
            page,
            tool,
            input,
            timeout_ms,
            reply,
        }) {
            self.keeper.remove(id);
            return driver_gone();
        }
        tokio::select! {
            r = answer => r.unwrap_or_else(|_| driver_gone()),
            _ = cancelled => {
                self.keeper.remove(id);
                let (ack, acked) = oneshot::channel();
                if self.send(Request::CancelCall { id, ack }) {
                    let _ = acked.await;
                }
                cancelled_reply("The call was cancelled: its signal was aborted.")
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
            Err(e) => return (bad_arguments(WAIT_FOR, &e.to_string()), None),
        };
        let id = self.id();
        let busy = WaitReply {
            reply: super::wait_for::busy_answer(&args.condition, args.timeout_ms),
            held_at: None,
        };
        let (reply, answer) = self.slot(id, args.timeout_ms, busy);
        if !self.send(Request::WaitFor { id, args, reply }) {
            self.keeper.remove(id);
            return (driver_gone(), None);
        }
        tokio::select! {
            r = answer => match r {
                Ok(w) => (w.reply, w.held_at),
                Err(_) => (driver_gone(), None),
            },
            _ = cancelled => {
                self.keeper.remove(id);
                let (ack, acked) = oneshot::channel();
                if self.send(Request::CancelWait { id, ack }) {
                    let _ = acked.await;
                }
                (cancelled_reply("The wait was cancelled."), None)
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
    let matching: Vec<usize> = crate::scenario::picked_subtests(file, Some(wanted))
        .into_iter()
        .filter_map(|p| file.subtests.iter().position(|s| std::ptr::eq(s, p)))
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
