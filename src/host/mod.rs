//! The host: the parts of HTML, DOM, ECMAScript and Web IDL that WebMCP's algorithms run on.
//!
//! Origins; navigables and documents (slotmap arenas) and "fully active"; event loops, task
//! sources, tasks and microtasks; parallel queues; timers on a virtual clock; promises with
//! realms and their jobs; callbacks of the page's script; `AbortSignal`; events; permissions
//! policy; Web IDL conversions; ECMAScript patterns; and the constants naming those specs'
//! algorithms ([`spec`]).
//!
//! How the layer is built, and how it stays below WebMCP:
//! - The host's state is [`HostState`], generic over [`seam::Upper`], the types of the steps the
//!   specification above hands it to keep. Its own methods (`impl HostState`, in each file) read
//!   and change that state and nothing else.
//! - The host's algorithms, the ones that record steps or call up, are provided methods of
//!   traits over [`Host`] (one trait per file: [`event_loop::EventLoops`],
//!   [`promise::Promises`], ...), implemented for every `Host`. The world that composes the
//!   layers (the engine's `World`) implements `Host`: it gives the host its state, keeps the
//!   record of a run, and runs what the host hands back.
//! - The host names WebMCP only through [`seam`]: one variant per continuation type carries an
//!   opaque WebMCP step, handed back through the `run_*` methods of `Host`. Nothing in this
//!   folder imports a layer above it; a test in `spec-tests/layers.rs` checks it.

pub mod abort;
pub mod budget;
pub mod callback;
pub mod csp;
pub mod dom;
pub mod event_loop;
pub mod events;
pub mod forms;
pub mod iframe;
pub mod keys;
pub mod navigable;
pub mod origin;
pub mod parallel;
pub mod permissions;
pub mod promise;
pub mod regexp;
pub mod seam;
pub mod shared;
pub mod spec;
pub mod switches;
pub mod timers;
pub mod value;
pub mod webidl;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::DerefMut;

use thiserror::Error;

use abort::AbortSignal;
use budget::{BudgetStop, Budgets, Interrupt, Spent};
use callback::Callback;
use event_loop::EventLoop;
use events::Listener;
use keys::*;
use navigable::{Document, Lifecycle, Navigable};
use origin::Origin;
use parallel::ParallelQueue;
use promise::{Promise, Resolver, Thenable};
use seam::{AbortStep, EventTargetOf, ParallelStep, ReactionStep, TaskStep, TimerStep, Upper};
use shared::{Arena, Shared};
use spec::Algorithm;
use timers::Timer;
use value::Value;

/// What a call of script gives back: its value, or the exception it threw.
pub type Completion = Result<Value, Value>;

/// Errors of the host's harness-level actions (what a scenario does to the world between
/// units: opening pages, inserting and removing iframes, navigating, the back/forward cache).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum HostError {
    #[error("`{url}` is not a URL: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("{0} is not fully active, so it cannot hold a new iframe")]
    NotFullyActive(String),
    #[error("{0} is not in an iframe")]
    NotAnIframe(String),
    #[error("{0} was already removed or closed")]
    AlreadyRemoved(String),
    #[error("{0} is not the active document of its navigable")]
    NotActive(String),
    #[error("{0}'s navigable has no earlier session history entry")]
    NoHistory(String),
    #[error("{0} is not in the back/forward cache, so it cannot be restored")]
    NotInBfcache(String),
    #[error("{0} is not a top-level document")]
    NotTopLevel(String),
    #[error("{0} is in iframes nested {MAX_IFRAME_DEPTH} deep, so it cannot hold another")]
    NestedTooDeep(String),
}

/// How deep iframes may nest in a page: walking a page's tree of navigables recurses, so its
/// depth is bounded.
pub const MAX_IFRAME_DEPTH: usize = 64;

/// Settings of the host that are not behaviour switches.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct HostSettings {
    /// Whether the agent clusters of new pages are origin-keyed.
    pub origin_keyed_agent_clusters: bool,
}

impl Default for HostSettings {
    fn default() -> Self {
        HostSettings {
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

/// The host's state: every arena of HTML, DOM and ECMAScript objects, the virtual clock, and
/// the counters that order units of work.
#[derive(Clone)]
pub struct HostState<U: Upper> {
    pub settings: HostSettings,
    pub(crate) navigables: Arena<NavigableKey, Navigable>,
    pub(crate) documents: Arena<DocumentKey, Document>,
    pub(crate) event_loops: Arena<EventLoopKey, EventLoop<U>>,
    pub(crate) agent_event_loops: Shared<BTreeMap<(NavigableKey, Origin), EventLoopKey>>,
    /// Event loops with a queued task or microtask (an index of the event loops, for the
    /// scheduler: footprints do not note it).
    pub(crate) busy_loops: Shared<BTreeSet<EventLoopKey>>,
    pub(crate) parallel_queues: Arena<ParallelQueueKey, ParallelQueue<U>>,
    /// The parallel queues whose next step may run, by its sequence number: an index of the
    /// queues, for the scheduler (footprints do not note it).
    pub(crate) ready_parallel: Shared<BTreeSet<(u64, ParallelQueueKey)>>,
    pub(crate) promises: Arena<PromiseKey, Promise<U>>,
    pub(crate) promise_labels: Shared<BTreeMap<PromiseKey, String>>,
    /// How many promises were made (it numbers them: a unit that makes one reads and writes it).
    pub(crate) promise_count: Shared<u32>,
    pub(crate) resolvers: Arena<ResolverKey, Resolver>,
    pub(crate) thenables: Arena<ThenableKey, Thenable>,
    pub(crate) signals: Arena<SignalKey, AbortSignal<U>>,
    pub(crate) listeners: Arena<ListenerKey, Listener<U>>,
    pub(crate) timers: Arena<TimerKey, Timer<U>>,
    /// Timers ordered by (due time, sequence number): an index of the timers, for the
    /// scheduler (footprints do not note it).
    pub(crate) timer_index: Shared<BTreeSet<(u64, u64, TimerKey)>>,
    /// The timers of `timer_index` due by `due_until`, by sequence number: the scheduler's
    /// index of the timers that may expire (footprints do not note it).
    pub(crate) due_timers: Shared<BTreeSet<(u64, TimerKey)>>,
    pub(crate) due_until: u64,
    /// The virtual clock, in milliseconds.
    pub(crate) now: u64,
    /// The last sequence number given to a unit of work (it orders them).
    pub(crate) seq: u64,
    /// How many units of work have run.
    pub(crate) unit: u64,
    pub(crate) running: Running,
    /// How deep script calls are nested: the JavaScript execution context stack (a microtask
    /// checkpoint after a callback waits for the outermost).
    pub(crate) script_depth: u32,
    /// How many opaque origins were made (it numbers them).
    pub(crate) next_opaque: Shared<u32>,
    /// Every document's tree, the events dispatched at nodes, the parsers of loading
    /// documents (see [`dom`]).
    pub(crate) dom: dom::DomState,
    /// The run's budgets (see [`budget`]): not part of the state, and never read by an
    /// algorithm.
    pub budgets: Budgets,
    pub(crate) spent: Spent,
    /// Why the run stopped, once a budget is spent.
    pub(crate) stopped: Option<BudgetStop>,
    pub(crate) interrupt: Option<Interrupt>,
    /// What changed that a trace's marks show, while a trace is on.
    pub(crate) journal: Journal,
}

/// What changed since a trace last looked (see `engine::marks`): kept only while a trace is
/// on, so that what the trace compares after each unit is what the unit changed, not the
/// whole world.
#[derive(Clone, Debug, Default)]
pub struct Journal {
    pub enabled: bool,
    /// Every document may have changed (a tree changed, or the trace was just turned on).
    pub everything: bool,
    /// Documents made, or whose tools-ready changed.
    pub documents: Vec<DocumentKey>,
    /// Promises settled.
    pub promises: Vec<PromiseKey>,
}

impl Journal {
    /// Notes a document that changed.
    pub fn document(&mut self, doc: DocumentKey) {
        if self.enabled && !self.everything {
            self.documents.push(doc);
        }
    }
}

impl<U: Upper> Default for HostState<U> {
    fn default() -> Self {
        HostState {
            settings: HostSettings::default(),
            navigables: Arena::new(),
            documents: Arena::new(),
            event_loops: Arena::new(),
            agent_event_loops: Shared::default(),
            busy_loops: Shared::untracked(BTreeSet::new()),
            parallel_queues: Arena::new(),
            ready_parallel: Shared::untracked(BTreeSet::new()),
            promises: Arena::new(),
            promise_labels: Shared::default(),
            promise_count: Shared::new(0),
            resolvers: Arena::new(),
            thenables: Arena::new(),
            signals: Arena::new(),
            listeners: Arena::new(),
            timers: Arena::new(),
            timer_index: Shared::untracked(BTreeSet::new()),
            due_timers: Shared::untracked(BTreeSet::new()),
            due_until: 0,
            now: 0,
            seq: 0,
            unit: 0,
            running: Running::Harness,
            script_depth: 0,
            next_opaque: Shared::new(0),
            dom: dom::DomState::default(),
            budgets: Budgets::default(),
            spent: Spent::default(),
            stopped: None,
            interrupt: None,
            journal: Journal::default(),
        }
    }
}

impl<U: Upper> HostState<U> {
    /// The next sequence number: units of work are ordered by when they became runnable.
    pub(crate) fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// The origin of a URL; an opaque origin takes the next number (only then is the count
    /// written).
    pub fn origin_of_url(&mut self, url: &url::Url) -> Origin {
        let mut n = *self.next_opaque;
        let origin = Origin::of_url(url, &mut n);
        if n != *self.next_opaque {
            *self.next_opaque = n;
        }
        origin
    }

    /// A new opaque origin, distinct from every other.
    pub fn new_opaque_origin(&mut self) -> Origin {
        let n = *self.next_opaque + 1;
        *self.next_opaque = n;
        Origin::Opaque(n)
    }

    /// The virtual clock, in milliseconds.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// How many units have run.
    pub fn units_run(&self) -> u64 {
        self.unit
    }

    /// What is running now.
    pub fn running(&self) -> Running {
        self.running
    }
}

/// What the host needs of the world it is part of. The engine's world implements it; every
/// algorithm of the host is a provided method of a trait over it.
pub trait Host: DerefMut<Target = HostState<Self::Upper>> + Sized {
    /// The steps the specification above the host gives it to keep (see [`seam`]).
    type Upper: Upper;

    // What a run records.

    /// Records that a step ran; `detail` is only called when the trace is on.
    fn record_step(
        &mut self,
        alg: &'static Algorithm,
        step: usize,
        doc: Option<DocumentKey>,
        detail: impl FnOnce(&Self) -> String,
    );
    /// Reports a failed assertion, or a step the text cannot carry out.
    fn finding(
        &mut self,
        alg: &'static Algorithm,
        step: &'static str,
        doc: Option<DocumentKey>,
        message: String,
    );
    /// Notes a harness action in the trace; the text is only made when the trace is on.
    fn harness_note(&mut self, what: impl FnOnce(&Self) -> String);
    /// The host's behaviour switches.
    fn host_switches(&self) -> &switches::Switches;

    // The seam: running and describing what the specification above handed the host.

    fn run_task_step(&mut self, step: TaskStep<Self>, document: DocumentKey);
    fn run_parallel_step(&mut self, step: ParallelStep<Self>, queue: ParallelQueueKey);
    /// A reaction's steps, called with the settled value; `Err` is a thrown exception.
    fn run_reaction(
        &mut self,
        step: ReactionStep<Self>,
        argument: Value,
        fulfilled: bool,
    ) -> Completion;
    fn run_abort_steps(&mut self, step: AbortStep<Self>, signal: SignalKey);
    fn run_timer_step(&mut self, step: TimerStep<Self>);
    fn describe_task_step(&self, step: &TaskStep<Self>) -> String;
    fn describe_parallel_step(&self, step: &ParallelStep<Self>) -> String;
    fn describe_reaction(&self, step: &ReactionStep<Self>) -> String;
    fn describe_timer_step(&self, step: &TimerStep<Self>) -> String;
    /// The listener list of an event target the specification above defines.
    fn event_listeners(&mut self, target: EventTargetOf<Self>) -> &mut Vec<ListenerKey>;
    /// The same list, to read.
    fn read_event_listeners(&self, target: EventTargetOf<Self>) -> &Vec<ListenerKey>;
    fn event_target_label(&self, target: EventTargetOf<Self>) -> String;
    /// The document whose ModelContext (or other object the specification above defines) the
    /// target is: its relevant realm is that document's.
    fn event_target_document(&self, target: EventTargetOf<Self>) -> DocumentKey;

    // Hooks other specifications define on HTML's objects.

    /// A document was created (WebMCP: its `ModelContext`).
    fn document_created(&mut self, doc: DocumentKey);
    /// HTML's unloading document cleanup steps, which other specifications define: run when
    /// a fully active document is unloaded (it enters the back/forward cache, or is about to
    /// be destroyed).
    fn unloading_document_cleanup_steps(&mut self, doc: DocumentKey);
    /// A document was destroyed.
    fn document_destroyed(&mut self, doc: DocumentKey);
    /// A document reached `DOMContentLoaded` or `load`.
    fn lifecycle_reached(&mut self, doc: DocumentKey, stage: Lifecycle);
    /// Which documents of `traversable`'s tree are fully active changed.
    fn tree_changed(&mut self, traversable: NavigableKey);
    /// A fully active document was added to `traversable`'s tree, and no other document's
    /// activity changed.
    fn document_added(&mut self, traversable: NavigableKey, doc: DocumentKey);
    /// Something changed that a parallel queue's "wait until" may be waiting for: the
    /// conditions are the specification's, so it re-checks them.
    fn wake_waits(&mut self);

    // Hooks other specifications define on DOM's and HTML's algorithms (see `dom`). Each
    // runs after HTML's own steps for the same change.

    /// DOM's insertion steps, for each inclusive descendant of an inserted node, in tree
    /// order.
    fn insertion_steps(&mut self, node: NodeKey);
    /// DOM's removing steps: the removed node with its old parent, then each of its
    /// descendants with none.
    fn removing_steps(&mut self, node: NodeKey, old_parent: Option<NodeKey>);
    /// DOM's attribute change steps: an attribute of `element` was added (`old` is `None`),
    /// changed, or removed (`value` is `None`).
    fn attribute_change_steps(
        &mut self,
        element: NodeKey,
        name: &str,
        old: Option<&str>,
        value: Option<&str>,
    );
    /// DOM's adopting steps: `node` moved to another document.
    fn adopting_steps(&mut self, node: NodeKey, old_document: DocumentKey);
    /// A form-associated element's form owner changed.
    fn form_owner_changed(&mut self, element: NodeKey, old: Option<NodeKey>, new: Option<NodeKey>);
    /// A form was reset (its `reset` event was not canceled, and its controls' reset
    /// algorithms have run).
    fn form_reset(&mut self, form: NodeKey);
    /// Whether the `submit` event about to be fired at `form` is agent-invoked (a
    /// `SubmitEvent` member another specification defines).
    fn submit_event_agent_invoked(&mut self, form: NodeKey) -> bool;
    /// The form submission algorithm reached a point another specification watches.
    fn form_submission_reached(&mut self, form: NodeKey, point: forms::SubmissionPoint);
    /// `respondWith(value)` called on a `SubmitEvent`: `Err` is the exception it throws.
    fn submit_event_respond_with(
        &mut self,
        event: EventKey,
        value: Value,
    ) -> Result<(), value::ErrorValue>;

    // The page's script.

    /// Calls a callback with arguments; what it returns, or the exception it threw.
    fn call(&mut self, callback: &Callback, args: Vec<Value>) -> Completion;
}

/// Every host algorithm trait, for `use crate::host::prelude::*`.
pub mod prelude {
    pub use super::abort::Abort;
    pub use super::dom::prelude::*;
    pub use super::event_loop::EventLoops;
    pub use super::events::Events;
    pub use super::forms::prelude::*;
    pub use super::iframe::IframeElements;
    pub use super::navigable::Navigables;
    pub use super::parallel::ParallelQueues;
    pub use super::promise::Promises;
    pub use super::timers::Timers;
    pub use super::Host;
}
