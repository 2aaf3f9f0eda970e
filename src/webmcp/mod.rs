//! The WebMCP algorithms, one file per section of the spec, over the simulated platform.
//!
//! - [`registry`]: `registerTool()`, unregister a tool, notify documents of a tool change, tool
//!   is visible to an origin, the `toolchange` event.
//! - [`readiness`]: PR #373's `waitForToolsUntil()`, `toolsReady`, update the tools-ready
//!   state, wait for tools to be ready.
//! - [`observation`]: perform an observation.
//! - [`agent_api`]: `getTools()`, `executeTool()`, `toolactivated`, `toolcancel`: in the IDL
//!   and WPT but without algorithm text; each step says what the engine chose.

pub mod agent_api;
pub mod input_schema;
pub mod observation;
pub mod readiness;
pub mod registry;

use std::sync::Arc;

use indexmap::IndexMap;
use serde::Serialize;

use crate::platform::keys::{DocumentKey, ListenerKey, ModelContextKey, PromiseKey};
use crate::platform::origin::Origin;
use crate::platform::script::Function;
use crate::platform::value::ErrorValue;
use crate::trace::{Algorithm, Spec};
use crate::world::World;

/// `ToolAnnotations`, with the members of the current IDL.
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
    pub title: Option<String>,
    pub description: String,
    /// The stringified input schema; empty when none was given.
    pub input_schema: String,
    /// The execute steps: invoke the tool's `execute` callback.
    pub execute: Arc<Function>,
    pub read_only_hint: bool,
    pub untrusted_content_hint: bool,
    /// The annotations as given, for `getTools()` to hand back (the IDL has more members than
    /// the tool definition keeps).
    pub annotations: Option<ToolAnnotations>,
    pub exposed_origins: Vec<Origin>,
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
    /// PR #373's pending tool readiness promises: an ordered set.
    pub pending_tool_readiness_promises: PendingSet,
    pub listeners: Vec<ListenerKey>,
    /// The coalesced-readiness proposal's last notified readiness (initially true).
    pub last_notified_ready: bool,
    pub readiness_check_queued: bool,
    /// webmcp#374: the exposure of the changes this task made, not yet notified.
    pub registry_change: Option<Exposure>,
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
        self.pending_tool_readiness_promises.hash(state);
        self.listeners.hash(state);
        self.last_notified_ready.hash(state);
        self.readiness_check_queued.hash(state);
        self.registry_change.hash(state);
    }
}

/// What registerTool(), getTools() and executeTool() reject with when their document is not
/// fully active.
pub(crate) fn not_fully_active_error() -> ErrorValue {
    ErrorValue::dom("InvalidStateError", "the document is not fully active")
}

/// ... and when it is not allowed to use the "tools" feature.
pub(crate) fn not_allowed_to_use_tools_error() -> ErrorValue {
    ErrorValue::dom(
        "NotAllowedError",
        "the document is not allowed to use the \"tools\" feature",
    )
}

impl World {
    pub(crate) fn create_model_context(&mut self, document: DocumentKey) -> ModelContextKey {
        self.model_contexts
            .insert(crate::platform::shared::Shared::new(ModelContext {
                document,
                tool_map: IndexMap::new(),
                pending_tool_readiness_promises: PendingSet::default(),
                listeners: Vec::new(),
                last_notified_ready: true,
                readiness_check_queued: false,
                registry_change: None,
                toolchanges_fired: ToolchangeCount::default(),
            }))
    }

    pub fn model_context(&self, doc: DocumentKey) -> &ModelContext {
        &self.model_contexts[self.documents[doc].model_context]
    }

    /// The names of the tools in a document's tool map, in registration order.
    pub fn tool_names(&self, doc: DocumentKey) -> Vec<String> {
        self.model_context(doc).tool_map.keys().cloned().collect()
    }
}

macro_rules! algorithm {
    ($name:ident, $id:expr, $spec:ident, $anchor:literal, $title:literal, [$($step:literal),+ $(,)?]) => {
        pub const $name: Algorithm = Algorithm {
            id: $id,
            spec: Spec::$spec,
            anchor: $anchor,
            name: $title,
            steps: &[$($step),+],
        };
    };
}

algorithm!(
    REGISTER_TOOL,
    0,
    WebMcp,
    "dom-modelcontext-registertool",
    "registerTool()",
    [
        "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16",
        "17", "18", "18.1", "18.2", "18.2.1", "18.2.2", "19", "20", "20.1", "20.1.1", "20.1.2",
        "20.1.3", "21", "22", "23", "23.1", "23.2", "24"
    ]
);
algorithm!(
    UNREGISTER_A_TOOL,
    1,
    WebMcp,
    "model-context-unregister-a-tool",
    "unregister a tool",
    ["1", "2", "3", "4", "5", "6", "6.1"]
);
algorithm!(
    NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
    2,
    WebMcp,
    "notify-documents-of-a-tool-change",
    "notify documents of a tool change",
    ["1", "2", "3", "3.1", "3.2", "3.3"]
);
algorithm!(
    TOOL_IS_VISIBLE_TO_AN_ORIGIN,
    3,
    WebMcp,
    "tool-is-visible-to-an-origin",
    "tool is visible to an origin",
    ["1", "2", "2.1", "3"]
);
algorithm!(
    WAIT_FOR_TOOLS_UNTIL,
    4,
    WebMcp,
    "dom-modelcontext-waitfortoolsuntil",
    "waitForToolsUntil()",
    ["1", "2", "3", "4", "5", "5.1", "5.2", "6", "6.1", "6.2"]
);
algorithm!(
    UPDATE_THE_TOOLS_READY_STATE,
    5,
    WebMcp,
    "update-the-tools-ready-state",
    "update the tools-ready state",
    ["1", "2", "3", "4", "4.1", "4.2", "4.3"]
);
algorithm!(
    WAIT_FOR_TOOLS_TO_BE_READY,
    6,
    WebMcp,
    "wait-for-tools-to-be-ready",
    "wait for tools to be ready",
    ["1", "2", "2.1", "2.2", "3", "4", "5", "6"]
);
algorithm!(
    PERFORM_AN_OBSERVATION,
    7,
    WebMcp,
    "perform-an-observation",
    "perform an observation",
    ["1", "2", "3", "4", "5", "6", "7", "7.1", "7.2", "7.3", "8", "9"]
);
algorithm!(
    TOOLS_READY_GETTER,
    8,
    WebMcp,
    "dom-modelcontext-toolsready",
    "toolsReady getter",
    ["1"]
);
algorithm!(
    TOOLCHANGE_EVENT,
    9,
    WebMcp,
    "dom-modelcontext-ontoolchange",
    "fire toolchange (the task notify queues)",
    ["1"]
);
algorithm!(
    GET_TOOLS,
    10,
    WebMcpEngineDefined,
    "dom-modelcontext-gettools",
    "getTools()",
    ["1", "2", "3", "4", "5", "6", "7", "7.1", "7.2", "7.3", "8"]
);
algorithm!(
    EXECUTE_TOOL,
    11,
    WebMcpEngineDefined,
    "dom-modelcontext-executetool",
    "executeTool()",
    [
        "1", "2", "3", "4", "5", "6", "7", "8", "9", "9.1", "9.2", "9.3", "10", "10.1", "10.2",
        "10.3", "10.4", "10.5", "10.6", "11"
    ]
);
algorithm!(
    RUN_A_TOOL,
    12,
    WebMcpEngineDefined,
    "run-a-tool",
    "run a tool (executeTool's task)",
    ["1", "2", "3", "4", "5", "6", "7", "7.1", "7.2"]
);
algorithm!(
    CANCEL_A_TOOL,
    13,
    WebMcpEngineDefined,
    "cancel-a-tool",
    "cancel a tool (executeTool's abort)",
    ["1", "2", "3"]
);
algorithm!(
    SETTLE_ON_REALM_DESTRUCTION,
    14,
    WebMcpEngineDefined,
    "settle-on-realm-destruction",
    "count a destroyed realm's promise as settled (destroyed-realm-promise=settled-on-destroy)",
    ["1", "2"]
);
algorithm!(
    REGISTRY_NOTIFICATION,
    15,
    WebMcpEngineDefined,
    "coalesced-registry-notification",
    "notify a task's registry changes (registry-toolchange=per-task)",
    ["1", "2", "3"]
);
algorithm!(
    HOST_ENQUEUE_PROMISE_JOB,
    16,
    Html,
    "hostenqueuepromisejob",
    "HostEnqueuePromiseJob",
    ["2.1"]
);
algorithm!(
    PROMISE_RESOLVE_THENABLE_JOB,
    17,
    Ecma262,
    "sec-newpromiseresolvethenablejob",
    "PromiseResolveThenableJob",
    ["1"]
);
algorithm!(
    SIGNAL_ABORT,
    18,
    Dom,
    "abortsignal-signal-abort",
    "signal abort",
    ["1", "2", "5", "6"]
);
algorithm!(
    CALL_A_USER_OBJECTS_OPERATION,
    19,
    WebIdl,
    "call-a-user-objects-operation",
    "call a user object's operation",
    ["1"]
);
algorithm!(
    CLEAN_UP_AFTER_RUNNING_SCRIPT,
    20,
    Html,
    "clean-up-after-running-script",
    "clean up after running script",
    ["3"]
);
algorithm!(
    CONVERT_DICTIONARY,
    21,
    WebIdl,
    "es-dictionary",
    "convert to an IDL dictionary",
    [
        "ModelContextTool",
        "ModelContextRegisterToolOptions",
        "ModelContextGetToolOptions",
        "RegisteredTool",
        "ModelContextExecuteToolOptions"
    ]
);
algorithm!(
    DOCUMENT_LIFECYCLE,
    22,
    WebMcpEngineDefined,
    "tools-ready-lifecycle",
    "a document reaches DOMContentLoaded or load (tools-ready-lifecycle)",
    ["1"]
);
algorithm!(
    CHECK_INPUT_SCHEMA,
    23,
    WebMcpEngineDefined,
    "input-schema-checks",
    "check a tool's input schema and input (input-schema=tentative-subset)",
    ["1", "2"]
);

/// Every algorithm, indexed by id.
pub const ALGORITHMS: &[&Algorithm] = &[
    &REGISTER_TOOL,
    &UNREGISTER_A_TOOL,
    &NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
    &TOOL_IS_VISIBLE_TO_AN_ORIGIN,
    &WAIT_FOR_TOOLS_UNTIL,
    &UPDATE_THE_TOOLS_READY_STATE,
    &WAIT_FOR_TOOLS_TO_BE_READY,
    &PERFORM_AN_OBSERVATION,
    &TOOLS_READY_GETTER,
    &TOOLCHANGE_EVENT,
    &GET_TOOLS,
    &EXECUTE_TOOL,
    &RUN_A_TOOL,
    &CANCEL_A_TOOL,
    &SETTLE_ON_REALM_DESTRUCTION,
    &REGISTRY_NOTIFICATION,
    &HOST_ENQUEUE_PROMISE_JOB,
    &PROMISE_RESOLVE_THENABLE_JOB,
    &SIGNAL_ABORT,
    &CALL_A_USER_OBJECTS_OPERATION,
    &CLEAN_UP_AFTER_RUNNING_SCRIPT,
    &CONVERT_DICTIONARY,
    &DOCUMENT_LIFECYCLE,
    &CHECK_INPUT_SCHEMA,
];

/// The algorithms whose every step the bundled scenarios must reach.
pub const FULLY_COVERED: &[&Algorithm] = &[
    &REGISTER_TOOL,
    &UNREGISTER_A_TOOL,
    &WAIT_FOR_TOOLS_UNTIL,
    &UPDATE_THE_TOOLS_READY_STATE,
    &WAIT_FOR_TOOLS_TO_BE_READY,
    &PERFORM_AN_OBSERVATION,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_ids_are_their_positions_and_fit_the_coverage_bits() {
        for (i, a) in ALGORITHMS.iter().enumerate() {
            assert_eq!(a.id, i, "{}", a.name);
            assert!(a.steps.len() <= 64, "{}", a.name);
        }
    }
}
