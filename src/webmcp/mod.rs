//! WebMCP: its algorithms, one file per section of the text, over the host.
//!
//! - [`registry`]: `registerTool()`, unregister a tool, notify documents of a tool change, tool
//!   is visible to an origin, the `toolchange` event.
//! - [`readiness`]: PR #373's `waitForToolsUntil()`, `toolsReady`, update the tools-ready
//!   state, wait for tools to be ready.
//! - [`observation`]: perform an observation.
//! - [`get_tools`], [`execute_tool`]: `getTools()`, `executeTool()`.
//! - [`pending`]: pending tool executions: their completion, cancel a pending tool execution,
//!   the unloading document cleanup steps.
//! - [`execution`]: the tool execute steps and the imperative execute steps (`toolactivated`).
//! - [`input_schema`]: the JSON Schema subset of WPT's `.tentative` tests.
//! - [`declarative`]: declarative tools (`<form toolname tooldescription>`): the engine's steps
//!   for the text's TODO section.
//! - [`algorithms`]: every algorithm's steps as its text numbers them: the published text,
//!   PR #373's final and first revisions, the proposals, and the engine's own.
//! - [`switches`]: the behaviour switches whose steps are here.
//! - [`steps`]: WebMCP's continuations (what it hands the host to keep) and their dispatch.
//!
//! How the layer is built: WebMCP's state is [`WebmcpState`]; its algorithms are provided
//! methods of traits over [`WebMcpHost`] (one trait per file: [`registry::Registry`],
//! [`readiness::Readiness`], ...), which is a [`Host`] whose continuations are
//! [`steps::Steps`] and which also holds WebMCP's state and switches. The engine's world
//! implements it. Nothing here names the layers above (the page script, the engine, the
//! scenario language or the tools built on them).

pub mod algorithms;
pub mod declarative;
pub mod errors;
pub mod execute_tool;
pub mod execution;
pub mod get_tools;
pub mod input_schema;
pub mod observation;
pub mod pending;
pub mod readiness;
pub mod registry;
pub mod steps;
pub mod switches;

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::Serialize;
use slotmap::new_key_type;

use crate::host::callback::Callback;
use crate::host::keys::{
    DocumentKey, ListenerKey, NavigableKey, NodeKey, ParallelQueueKey, PromiseKey,
};
use crate::host::origin::Origin;
use crate::host::shared::{Arena, Counts, SecondaryArena, Shared};
use crate::host::spec::Algorithm;
use crate::host::value::ErrorValue;
use crate::host::Host;

pub use algorithms::*;

/// A step that rejects: records the step with the error as its detail, and returns a promise of
/// the document's realm rejected with the error (`return_rejected!(w, ALG, "3", doc, error)`).
#[macro_export]
macro_rules! return_rejected {
    ($w:expr, $alg:expr, $step:literal, $doc:expr, $error:expr) => {{
        let error: $crate::host::value::ErrorValue = $error;
        $crate::step!(
            $w,
            $alg,
            $step,
            Some($doc),
            "{}: {}",
            error.name,
            error.message
        );
        return $w.promise_rejected_with($doc, error);
    }};
}
pub use switches::Switches;

new_key_type! {
    /// A `ModelContext` object.
    pub struct ModelContextKey;
    /// A caller of "wait for tools to be ready" that is waiting.
    pub struct WaiterKey;
    /// An observation the browser agent was asked to perform.
    pub struct ObservationKey;
    /// One call of `executeTool()`.
    pub struct ExecutionKey;
}

/// <https://webmachinelearning.github.io/webmcp/#annotations>: a tool definition's annotations
/// (and the `ToolAnnotations` dictionary they come from and go back as).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    pub read_only_hint: bool,
    pub untrusted_content_hint: bool,
    pub consequential_hint: bool,
    pub debugging: bool,
}

/// <https://webmachinelearning.github.io/webmcp/#tool-definition>
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ToolDefinition {
    pub name: String,
    /// Null when the tool gave none.
    pub title: Option<String>,
    pub description: String,
    /// The stringified input schema; empty when none was given.
    pub input_schema: String,
    /// The execute steps: the imperative ones given the tool's `execute` callback, or the
    /// declarative ones given its form.
    pub execute: ExecuteSteps,
    pub annotations: Option<ToolAnnotations>,
    pub exposed_origins: Vec<Origin>,
    /// The `RegisteredTool` getTools() gives for it (step 8.3.8.2), made once when it is
    /// registered: every getTools() result holds the same object instead of a copy, so that
    /// asking again and again costs what the list holds, not what its tools hold.
    pub registered: crate::host::value::Value,
}

/// <https://webmachinelearning.github.io/webmcp/#tool-definition-execute-steps>: which steps
/// run a tool.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExecuteSteps {
    /// The imperative execute steps given the tool's `execute` callback.
    Imperative(Callback),
    /// The declarative execute steps given the tool's form; `autosubmit` is whether it had
    /// `toolautosubmit` when the tool was declared (a change of it changes the definition).
    Declarative { form: NodeKey, autosubmit: bool },
}

/// A unique internal value naming one execution of a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Uuid(pub u64);

/// <https://webmachinelearning.github.io/webmcp/#local-pending-tool-execution>
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LocalPendingToolExecution {
    /// The `AbortController` whose signal the tool's `execute` was given (named by its
    /// signal).
    pub abort_controller: crate::host::keys::SignalKey,
}

/// <https://webmachinelearning.github.io/webmcp/#pending-tool-execution>. Its completion steps
/// are `executeTool()`'s for `promise`, in `caller_document`'s realm (see
/// [`pending::PendingExecutions::completion_steps`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PendingToolExecution {
    pub caller_document: DocumentKey,
    pub target_document: DocumentKey,
    pub tool_name: String,
    /// The promise `executeTool()` returned, which the completion steps settle.
    pub promise: PromiseKey,
    /// The traversable whose pending tool executions map holds it (the engine keeps it, so
    /// that the completion steps can find the map after the target document is gone).
    pub traversable: NavigableKey,
}

/// The exposed origins a notification is for: a list, or "*" (readiness changes in PR #373's
/// first revision are notified as if exposed to every origin).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Exposure {
    Origins(Vec<Origin>),
    All,
}

impl Exposure {
    /// Both exposures at once: what a coalesced notification covers.
    pub fn union(self, other: Exposure) -> Exposure {
        match (self, other) {
            (Exposure::All, _) | (_, Exposure::All) => Exposure::All,
            (Exposure::Origins(mut a), Exposure::Origins(b)) => {
                for o in b {
                    if !a.contains(&o) {
                        a.push(o);
                    }
                }
                Exposure::Origins(a)
            }
        }
    }
}

/// An entry of a model context's pending tool readiness promises.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PendingPromise {
    pub promise: PromiseKey,
    /// The realm the value given to `waitForToolsUntil()` came from (for a thenable, the realm
    /// of its `then`), which Chromium watches for destruction.
    pub from_realm: Option<DocumentKey>,
}

/// PR #373's pending tool readiness promises: a set of promises, with O(1) insertion, lookup
/// and removal. Nothing in the algorithms reads its order, so a removal may move the last
/// entry into the removed one's place.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PendingSet {
    entries: IndexMap<PromiseKey, PendingPromise>,
}

impl PendingSet {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn contains(&self, promise: PromiseKey) -> bool {
        self.entries.contains_key(&promise)
    }

    /// Appends, unless the promise is already in the set.
    pub fn insert(&mut self, entry: PendingPromise) {
        self.entries.entry(entry.promise).or_insert(entry);
    }

    pub fn remove(&mut self, promise: PromiseKey) {
        self.entries.swap_remove(&promise);
    }

    pub fn iter(&self) -> impl Iterator<Item = &PendingPromise> {
        self.entries.values()
    }
}

impl std::ops::Index<usize> for PendingSet {
    type Output = PendingPromise;
    fn index(&self, i: usize) -> &PendingPromise {
        &self.entries[i]
    }
}

impl<'a> IntoIterator for &'a PendingSet {
    type Item = &'a PendingPromise;
    type IntoIter = indexmap::map::Values<'a, PromiseKey, PendingPromise>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.values()
    }
}

impl std::hash::Hash for PendingSet {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.entries.len().hash(state);
        for e in self.entries.values() {
            e.hash(state);
        }
    }
}

/// A `ModelContext` object and its internal context.
///
/// <https://webmachinelearning.github.io/webmcp/#modelcontext>
#[derive(Clone, Debug)]
pub struct ModelContext {
    pub document: DocumentKey,
    /// <https://webmachinelearning.github.io/webmcp/#model-context-tool-map>
    pub tool_map: IndexMap<String, ToolDefinition>,
    /// The coalesced-readiness proposal's last notified readiness (initially true).
    pub last_notified_ready: bool,
    pub readiness_check_queued: bool,
    /// webmcp#374: the exposure of the changes this task made, not yet notified.
    pub registry_change: Option<Exposure>,
    /// <https://webmachinelearning.github.io/webmcp/#model-context-local-pending-tool-executions-map>
    pub local_pending_tool_executions: BTreeMap<Uuid, LocalPendingToolExecution>,
    /// How many `toolchange` events have been fired at it: in all, and with `ready` false /
    /// true. For embedders watching the page (the agent gateway's `toolchange` condition);
    /// not part of the state the explorer compares.
    pub toolchanges_fired: ToolchangeCount,
}

/// A count of `toolchange` events fired at one `ModelContext`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolchangeCount {
    pub all: u64,
    /// Indexed by the event's `ready` (false, true).
    pub with_ready: [u64; 2],
}

impl std::hash::Hash for ModelContext {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.document.hash(state);
        self.tool_map.len().hash(state);
        for (name, tool) in &self.tool_map {
            name.hash(state);
            tool.hash(state);
        }
        self.last_notified_ready.hash(state);
        self.readiness_check_queued.hash(state);
        self.registry_change.hash(state);
        self.local_pending_tool_executions.hash(state);
    }
}

/// What WebMCP (with PR #373) adds to a `Document`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DocumentState {
    /// <https://webmachinelearning.github.io/webmcp/#document-associated-modelcontext>
    pub model_context: ModelContextKey,
    /// <https://webmachinelearning.github.io/webmcp/#document-unique-id>
    pub unique_id: u64,
}

/// WebMCP's state: its objects, and what it keeps about the host's.
#[derive(Clone, Default)]
pub struct WebmcpState {
    pub(crate) model_contexts: Arena<ModelContextKey, ModelContext>,
    pub(crate) documents: SecondaryArena<DocumentKey, DocumentState>,
    /// PR #373's tools-ready of each document, initially true. Kept apart from the rest of
    /// what WebMCP adds to a document (and the pending set apart from the rest of its
    /// `ModelContext`), so that a footprint names what a unit touched: a promise settling in
    /// one frame writes these, and an observation reading that frame's unique ID and tool map
    /// after the wait does not depend on it.
    pub(crate) tools_ready: SecondaryArena<DocumentKey, bool>,
    /// PR #373's pending tool readiness promises of each `ModelContext`: an ordered set.
    pub(crate) pending_tool_readiness_promises: SecondaryArena<ModelContextKey, PendingSet>,
    /// The event listeners of each `ModelContext`, apart from the rest of it: firing a
    /// `toolchange` reads them, and a registration in the same document does not.
    pub(crate) listeners: SecondaryArena<ModelContextKey, Vec<ListenerKey>>,
    /// For each top-level traversable: how many fully active documents of its tree have
    /// tools-ready false. An index kept beside the text's loop in
    /// [`readiness::Readiness::are_all_ready`]; see `recount_not_ready`.
    pub(crate) not_ready: Counts<NavigableKey>,
    pub(crate) waiters: Arena<WaiterKey, readiness::Waiter>,
    pub(crate) observations: Arena<ObservationKey, observation::Observation>,
    /// <https://webmachinelearning.github.io/webmcp/#traversable-navigable-pending-tool-executions-map>,
    /// for each traversable that has one.
    pub(crate) pending_tool_executions:
        SecondaryArena<NavigableKey, BTreeMap<Uuid, PendingToolExecution>>,
    /// Every `executeTool()` call, for embedders that act as the browser agent and want its
    /// outcome without going through the caller's task (the agent gateway).
    pub(crate) executions: Arena<ExecutionKey, execute_tool::Execution>,
    /// Each execution by its unique internal value: an index of `executions` (footprints do
    /// not note it; a look-up notes the arena's keys, as a walk of it would).
    pub(crate) execution_index: Shared<BTreeMap<Uuid, ExecutionKey>>,
    /// Each execution by the promise its caller holds: another index of `executions`.
    pub(crate) execution_of_promise: Shared<BTreeMap<PromiseKey, ExecutionKey>>,
    /// Each form that holds a declarative tool or has an update queued, and each running
    /// declarative execution (see `declarative.rs`).
    pub(crate) declarative_forms: SecondaryArena<NodeKey, declarative::FormTool>,
    /// The last unique internal value given (a unit that takes one reads and writes it).
    pub(crate) next_uuid: Shared<u64>,
    /// <https://webmachinelearning.github.io/webmcp/#ai-agent-queue>
    pub(crate) ai_agent_queue: ParallelQueueKey,
    pub(crate) next_unique_id: Shared<u64>,
    /// The waits and observations that changed since a trace last looked (see
    /// `engine::marks`), while a trace is on.
    pub(crate) journal: Journal,
}

/// What changed in WebMCP's state that a trace's marks show: kept only while a trace is on.
#[derive(Clone, Debug, Default)]
pub struct Journal {
    pub enabled: bool,
    pub waiters: Vec<WaiterKey>,
    pub observations: Vec<ObservationKey>,
}

impl WebmcpState {
    /// The execution an `executeTool()` call made, by the promise it returned.
    pub fn execution_of_promise(&self, promise: PromiseKey) -> Option<ExecutionKey> {
        // Which executions there are is read, as a walk of them would read it.
        let _ = self.executions.len();
        self.execution_of_promise.get(&promise).copied()
    }

    /// Notes a wait that began, ended or went.
    pub(crate) fn journal_waiter(&mut self, waiter: WaiterKey) {
        if self.journal.enabled {
            self.journal.waiters.push(waiter);
        }
    }

    /// Notes an observation asked for, begun or ended.
    pub(crate) fn journal_observation(&mut self, observation: ObservationKey) {
        if self.journal.enabled {
            self.journal.observations.push(observation);
        }
    }
}

impl WebmcpState {
    /// WebMCP's state for a new world: the browser agent's AI agent queue is started on the
    /// host's.
    pub fn new(ai_agent_queue: ParallelQueueKey) -> WebmcpState {
        WebmcpState {
            ai_agent_queue,
            execution_index: Shared::untracked(BTreeMap::new()),
            execution_of_promise: Shared::untracked(BTreeMap::new()),
            ..WebmcpState::default()
        }
    }
}

/// What WebMCP needs of the world it runs in: a host whose continuations are WebMCP's, WebMCP's
/// state, its switches, and a way to report what the text asserts.
pub trait WebMcpHost: Host<Upper = steps::Steps> {
    fn webmcp(&self) -> &WebmcpState;
    fn webmcp_mut(&mut self) -> &mut WebmcpState;
    fn switches(&self) -> &Switches;

    /// Checks an assertion of the text; a failure becomes a finding, never a panic.
    fn assert_step(
        &mut self,
        alg: &'static Algorithm,
        step: &'static str,
        doc: Option<DocumentKey>,
        holds: bool,
        what: &str,
    ) {
        if !holds {
            self.finding(alg, step, doc, format!("assertion failed: {what}"));
        }
    }

    /// A rejection's error, worded as the error-messages switch says.
    fn rejection(&self, why: errors::Rejection) -> ErrorValue {
        why.error(self.switches().error_messages)
    }

    /// A failed Web IDL conversion of `method`'s arguments, worded as the error-messages
    /// switch says (a thrown non-TypeError, such as a getter's own exception, goes as it is).
    fn conversion_rejection(&self, method: errors::Method, error: ErrorValue) -> ErrorValue {
        if error.name != "TypeError" {
            return error;
        }
        self.rejection(errors::Rejection::Conversion {
            method,
            message: error.message,
        })
    }

    /// Whether agent-cluster-check=origin-keyed refuses `doc`: its agent cluster is not
    /// origin-keyed (it may set document.domain) and its origin's scheme is not "file". Always
    /// false under agent-cluster-check=none (0023abda has no such step).
    fn refused_by_agent_cluster_check(&self, doc: DocumentKey) -> bool {
        self.switches().agent_cluster_check == switches::AgentClusterCheck::OriginKeyed
            && !self.is_origin_keyed(doc)
            && self.documents[doc].origin.scheme() != Some("file")
    }

    /// The fully-active check of registerTool() (3), getTools() (3) and executeTool() (2):
    /// `Ok` to go on, or what to answer. Under agent-cluster-check=origin-keyed, a fully
    /// active document whose agent cluster is not origin-keyed is refused here too. Under navigated-document-calls=never-settle (Chromium
    /// 156), a document its navigable has navigated away from gets a promise that never
    /// settles; a removed iframe's document, whose navigable is gone, is rejected as the text
    /// says.
    ///
    /// `step` is the step's index in `alg` (`step_index(&ALG, "3")`, a constant).
    fn fully_active_check(
        &mut self,
        alg: &'static Algorithm,
        step: usize,
        doc: DocumentKey,
    ) -> Result<(), PromiseKey> {
        if self.is_fully_active(doc) {
            // agent-cluster-check=origin-keyed: not a step of 0023abda. The older text's
            // registerTool() step 4, which Chromium 156 takes in all three methods at this
            // point: a document whose agent cluster is not origin-keyed (it may set
            // document.domain) is refused, unless its origin's scheme is "file".
            if self.refused_by_agent_cluster_check(doc) {
                let error = self.rejection(errors::Rejection::NotOriginKeyed);
                let note = format!(
                    "{} is fully active, but its agent cluster is not origin-keyed (agent-cluster-check=origin-keyed): {}: {}",
                    self.label(doc),
                    error.name,
                    error.message
                );
                self.record_step(alg, step, Some(doc), |_| note);
                return Err(self.promise_rejected_with(doc, error));
            }
            self.record_step(alg, step, Some(doc), |_| String::new());
            return Ok(());
        }
        // Navigated away from: destroyed, while its navigable lives on with another document.
        // (A document in the back/forward cache is not destroyed, and was not measured.)
        let navigated_away = self.documents[doc].navigable.is_some_and(|navigable| {
            self.documents[doc].destroyed
                && !self.navigables[navigable].destroyed
                && self.navigables[navigable].active_document != Some(doc)
        });
        if navigated_away
            && self.switches().navigated_document_calls
                == switches::NavigatedDocumentCalls::NeverSettle
        {
            self.record_step(alg, step, Some(doc), |w| {
                format!(
                    "{} has been navigated away from: the promise never settles (navigated-document-calls=never-settle)",
                    w.label(doc)
                )
            });
            return Err(self.new_promise(doc));
        }
        let error = self.rejection(errors::Rejection::NotFullyActive);
        let note = format!("{}: {}", error.name, error.message);
        self.record_step(alg, step, Some(doc), |_| note);
        Err(self.promise_rejected_with(doc, error))
    }

    /// The document a `ModelContext` belongs to. It never changes, so reading it is not
    /// noted: knowing whose context it is does not depend on what changes the context.
    fn document_of(&self, context: ModelContextKey) -> DocumentKey {
        crate::host::shared::footprint::untracked(|| self.webmcp().model_contexts[context].document)
    }

    /// A document's associated `ModelContext`.
    fn context_of(&self, doc: DocumentKey) -> ModelContextKey {
        self.webmcp().documents[doc].model_context
    }

    fn model_context(&self, doc: DocumentKey) -> &ModelContext {
        &self.webmcp().model_contexts[self.context_of(doc)]
    }

    /// PR #373's pending tool readiness promises of a document's `ModelContext`.
    fn pending_set(&self, doc: DocumentKey) -> &PendingSet {
        &self.webmcp().pending_tool_readiness_promises[self.context_of(doc)]
    }

    /// The names of the tools in a document's tool map, in registration order.
    fn tool_names(&self, doc: DocumentKey) -> Vec<String> {
        self.model_context(doc).tool_map.keys().cloned().collect()
    }

    /// "Upon creation of the Document object, its associated ModelContext must be set to a new
    /// ModelContext object created in the Document's relevant realm": and its unique ID, and
    /// PR #373's tools-ready (presumed false by the tools-ready-lifecycle switch while a
    /// document loads).
    fn create_model_context(&mut self, document: DocumentKey) {
        let context = self.webmcp_mut().model_contexts.insert(ModelContext {
            document,
            tool_map: IndexMap::new(),
            last_notified_ready: true,
            readiness_check_queued: false,
            registry_change: None,
            local_pending_tool_executions: BTreeMap::new(),
            toolchanges_fired: ToolchangeCount::default(),
        });
        let w = self.webmcp_mut();
        w.listeners.insert(context, Vec::new());
        *w.next_unique_id += 1;
        let unique_id = *w.next_unique_id;
        w.documents.insert(
            document,
            DocumentState {
                model_context: context,
                unique_id,
            },
        );
        w.pending_tool_readiness_promises
            .insert(context, PendingSet::default());
        let ready = readiness::Readiness::lifecycle_allows_ready(self, document);
        self.webmcp_mut().tools_ready.insert(document, ready);
        self.journal.document(document);
    }

    /// This specification's unloading document cleanup steps, which the host runs when it
    /// unloads a document.
    fn unloading_document_cleanup_steps_of_webmcp(&mut self, document: DocumentKey) {
        pending::PendingExecutions::unloading_document_cleanup_steps(self, document);
    }

    /// A new unique internal value.
    fn new_uuid(&mut self) -> Uuid {
        let w = self.webmcp_mut();
        *w.next_uuid += 1;
        Uuid(*w.next_uuid)
    }
}

/// Every WebMCP algorithm trait, for `use crate::webmcp::prelude::*`.
pub mod prelude {
    pub use super::declarative::Declarative;
    pub use super::execute_tool::ExecuteTool;
    pub use super::execution::ToolExecuteSteps;
    pub use super::get_tools::GetTools;
    pub use super::observation::Observations;
    pub use super::pending::PendingExecutions;
    pub use super::readiness::Readiness;
    pub use super::registry::Registry;
    pub use super::WebMcpHost;
}
