//! WebMCP's algorithms, each with its steps as its text numbers them.
//!
//! Four kinds of text, each its own table:
//! - the published WebMCP text the engine implements (webmachinelearning/webmcp `index.bs` at
//!   0023abda); `spec-check` compares these tables with a Bikeshed source;
//! - PR #373's final revision (the readiness model), on top of it: its own algorithms, and
//!   "perform an observation" as the PR changes it;
//! - PR #373's first revision and the proposals made in its review or deferred to follow-ups,
//!   numbered as each would write them (for the first revision, only the steps it changes);
//!   under a switch that selects one, the engine records that table's steps instead;
//! - the engine's own steps, where an implementation or a WPT test asks for behaviour no text
//!   has; each says what it chose.
//!
//! Ids continue the host's (see `crate::host::spec::ALGORITHMS`).

use crate::algorithm;
use crate::host::spec::{Algorithm, ALGORITHMS as HOST_ALGORITHMS};

/// The commit of webmachinelearning/webmcp whose `index.bs` the published text's tables follow
/// (the revision a wptreport names; spec-check's digest records the same).
pub const TEXT_COMMIT: &str = "0023abdadad292a5017093c325894d0146fc4566";

const BASE: usize = HOST_ALGORITHMS.len();

// The published text.

algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#cancel-a-pending-tool-execution>
    CANCEL_A_PENDING_TOOL_EXECUTION,
    BASE,
    WebMcp,
    "cancel-a-pending-tool-execution",
    "cancel a pending tool execution",
    ["1", "2", "3", "4", "5", "6", "6.1", "6.2", "6.3", "6.4", "6.5", "6.6"]
);
algorithm!(
    /// This specification's unloading document cleanup steps.
    UNLOADING_DOCUMENT_CLEANUP_STEPS,
    BASE + 1,
    WebMcp,
    "unloading-document-cleanup-steps",
    "unloading document cleanup steps",
    ["1", "2", "2.1", "2.2", "2.2.1", "2.3", "2.3.1", "2.3.2", "2.3.3", "2.3.4", "2.3.5"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#notify-documents-of-a-tool-change>
    NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
    BASE + 2,
    WebMcp,
    "notify-documents-of-a-tool-change",
    "notify documents of a tool change",
    ["1", "2", "3", "3.1", "3.2", "3.3"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#tool-is-exposed-to-an-origin>
    TOOL_IS_EXPOSED_TO_AN_ORIGIN,
    BASE + 3,
    WebMcp,
    "tool-is-exposed-to-an-origin",
    "tool is exposed to an origin",
    ["1", "2", "2.1", "3"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#tool-execute-steps>
    TOOL_EXECUTE_STEPS,
    BASE + 4,
    WebMcp,
    "tool-execute-steps",
    "tool execute steps",
    ["1", "2", "3", "4", "5"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#imperative-execute-steps>
    IMPERATIVE_EXECUTE_STEPS,
    BASE + 5,
    WebMcp,
    "imperative-execute-steps",
    "imperative execute steps",
    [
        "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "10.1", "10.1.1", "10.1.2", "10.1.3",
        "10.1.4", "10.1.5", "10.2", "10.2.1", "10.2.2", "10.2.3", "10.2.4", "10.2.5"
    ]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#model-context-unregister-a-tool>
    UNREGISTER_A_TOOL,
    BASE + 6,
    WebMcp,
    "model-context-unregister-a-tool",
    "unregister a tool",
    ["1", "2", "3", "4", "5", "6", "7"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#dom-document-modelcontext>
    DOCUMENT_MODEL_CONTEXT_GETTER,
    BASE + 7,
    WebMcp,
    "dom-document-modelcontext",
    "modelContext getter",
    ["1"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-registertool>
    REGISTER_TOOL,
    BASE + 8,
    WebMcp,
    "dom-modelcontext-registertool",
    "registerTool()",
    [
        "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "15.1",
        "15.1.1", "15.1.2", "15.1.3", "16", "17", "17.1", "17.2", "17.3", "17.3.1", "17.3.2",
        "18", "19", "20", "20.1", "20.2", "21"
    ]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-gettools>
    GET_TOOLS,
    BASE + 9,
    WebMcp,
    "dom-modelcontext-gettools",
    "getTools()",
    [
        "1", "2", "3", "4", "5", "6", "6.1", "6.1.1", "6.1.2", "6.1.3", "7", "8", "8.1", "8.2",
        "8.3", "8.3.1", "8.3.2", "8.3.3", "8.3.4", "8.3.5", "8.3.6", "8.3.7", "8.3.8",
        "8.3.8.1", "8.3.8.2", "8.3.8.3", "8.4", "8.5", "9"
    ]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-executetool>
    EXECUTE_TOOL,
    BASE + 10,
    WebMcp,
    "dom-modelcontext-executetool",
    "executeTool()",
    [
        "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "15.1",
        "15.2", "15.3", "15.4", "15.4.1", "15.4.2", "16", "16.1", "16.2", "16.3", "16.4",
        "16.5", "16.6", "16.7", "16.8", "16.9", "16.10", "16.10.1", "16.10.2", "16.10.3",
        "16.10.4", "16.11", "16.12", "16.13", "17"
    ]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#perform-an-observation>, as the text
    /// writes it (no readiness wait).
    PERFORM_AN_OBSERVATION,
    BASE + 11,
    WebMcp,
    "perform-an-observation",
    "perform an observation",
    ["1", "2", "3", "4", "5", "5.1", "5.2", "5.3", "5.4", "5.5", "6", "7"]
);
algorithm!(
    /// The task "notify documents of a tool change" queues (its step 3.3): fire `toolchange`
    /// at the document's `ModelContext`. The text writes it inline; the engine records the
    /// task's run as a step of its own so that a trace shows when the event fired.
    TOOLCHANGE_EVENT,
    BASE + 12,
    WebMcpEngineDefined,
    "fire-toolchange",
    "fire toolchange (the task notify queues)",
    ["1"]
);

// PR #373, final revision.

algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-waitfortoolsuntil>
    WAIT_FOR_TOOLS_UNTIL,
    BASE + 13,
    WebMcpPr373,
    "dom-modelcontext-waitfortoolsuntil",
    "waitForToolsUntil()",
    ["1", "2", "3", "4", "5", "5.1", "5.2", "6", "6.1", "6.2"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#update-the-tools-ready-state>
    UPDATE_THE_TOOLS_READY_STATE,
    BASE + 14,
    WebMcpPr373,
    "update-the-tools-ready-state",
    "update the tools-ready state",
    ["1", "2"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#wait-for-tools-to-be-ready>
    WAIT_FOR_TOOLS_TO_BE_READY,
    BASE + 15,
    WebMcpPr373,
    "wait-for-tools-to-be-ready",
    "wait for tools to be ready",
    ["1", "2", "2.1", "2.2", "3", "4", "5", "6"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-toolsready>
    TOOLS_READY_GETTER,
    BASE + 16,
    WebMcpPr373,
    "dom-modelcontext-toolsready",
    "toolsReady getter",
    ["1"]
);
algorithm!(
    /// "Perform an observation" as PR #373 changes it: after its two assertions, it waits for
    /// tools to be ready (step 3) and returns early on "navigated" (step 4); the text's steps
    /// 3-7 follow as 5-9.
    PERFORM_AN_OBSERVATION_PR373,
    BASE + 17,
    WebMcpPr373,
    "perform-an-observation",
    "perform an observation (PR #373)",
    ["1", "2", "3", "4", "5", "6", "7", "7.1", "7.2", "7.3", "7.4", "7.5", "8", "9"]
);

// PR #373's first revision (only the steps it changes), and the proposals.

algorithm!(
    /// PR #373's first revision of "update the tools-ready state": a change in a fully active
    /// document is notified in parallel with a `ToolChangeEvent`, as if exposed to every
    /// origin (readiness-toolchange=ready-events).
    UPDATE_THE_TOOLS_READY_STATE_R1,
    BASE + 18,
    WebMcpPr373,
    "update-the-tools-ready-state",
    "update the tools-ready state (PR #373 first revision)",
    ["1", "2", "3"]
);
algorithm!(
    /// PR #373's first revision of registerTool()'s last steps: tools-ready is read before
    /// going in parallel, and the change is notified only when it is true, with a
    /// `ToolChangeEvent` (readiness-toolchange=ready-events). Steps 1-19 are the text's.
    REGISTER_TOOL_R1,
    BASE + 19,
    WebMcpPr373,
    "dom-modelcontext-registertool",
    "registerTool() (PR #373 first revision)",
    ["20", "21", "21.1", "21.2", "22"]
);
algorithm!(
    /// PR #373's first revision of "unregister a tool"'s last step: it returns early while
    /// tools are not ready (readiness-toolchange=ready-events). Steps 1-6 are the text's.
    UNREGISTER_A_TOOL_R1,
    BASE + 20,
    WebMcpPr373,
    "model-context-unregister-a-tool",
    "unregister a tool (PR #373 first revision)",
    ["7", "8"]
);
algorithm!(
    /// PR #373's first revision of "notify documents of a tool change"'s last step: "*"
    /// exposes to every origin, and the event is a `ToolChangeEvent` carrying `ready`
    /// (readiness-toolchange=ready-events).
    NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE_R1,
    BASE + 21,
    WebMcpPr373,
    "notify-documents-of-a-tool-change",
    "notify documents of a tool change (PR #373 first revision)",
    ["3.3"]
);
algorithm!(
    /// A reviewer's proposal in PR #373: "update the tools-ready state" queues one task that
    /// compares tools-ready with the last state notified, and notifies only a difference
    /// (readiness-toolchange=coalesced).
    UPDATE_THE_TOOLS_READY_STATE_COALESCED,
    BASE + 22,
    WebMcpProposal,
    "update-the-tools-ready-state",
    "update the tools-ready state (coalesced-readiness proposal)",
    ["1", "2", "3", "3.1", "3.2", "3.3"]
);
algorithm!(
    /// webmcp#374: the registry changes one task makes are notified once, from a task
    /// (registry-toolchange=per-task).
    REGISTRY_NOTIFICATION,
    BASE + 23,
    WebMcpProposal,
    "coalesced-registry-notification",
    "notify a task's registry changes (registry-toolchange=per-task)",
    ["1", "2", "3"]
);
algorithm!(
    /// PR #373's open question: tools presumed not ready until a point of the document's
    /// loading (tools-ready-lifecycle).
    DOCUMENT_LIFECYCLE,
    BASE + 24,
    WebMcpProposal,
    "tools-ready-lifecycle",
    "a document reaches DOMContentLoaded or load (tools-ready-lifecycle)",
    ["1"]
);
algorithm!(
    /// The follow-up PR #373 defers: getTools()'s in-parallel steps first wait for tools to
    /// be ready (gettools-waits=yes); the text's steps 8.1-8.5 follow.
    GET_TOOLS_WAITS,
    BASE + 25,
    WebMcpProposal,
    "dom-modelcontext-gettools",
    "getTools() waits for tools to be ready (gettools-waits=yes)",
    ["8.0"]
);

// The engine's own steps.

algorithm!(
    /// Chromium's PendingWaitForTools as the PR #373 review describes it
    /// (destroyed-realm-promise=settled-on-destroy).
    SETTLE_ON_REALM_DESTRUCTION,
    BASE + 26,
    WebMcpEngineDefined,
    "settle-on-realm-destruction",
    "count a destroyed realm's promise as settled (destroyed-realm-promise=settled-on-destroy)",
    ["1", "2"]
);
algorithm!(
    /// WPT's `.tentative` schema checks (input-schema=tentative-subset).
    CHECK_INPUT_SCHEMA,
    BASE + 27,
    WebMcpEngineDefined,
    "input-schema-checks",
    "check a tool's input schema and input (input-schema=tentative-subset)",
    ["1", "2"]
);
algorithm!(
    /// <https://webidl.spec.whatwg.org/#es-dictionary>, for WebMCP's dictionaries: one "step"
    /// per dictionary type.
    CONVERT_DICTIONARY,
    BASE + 28,
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
    /// The browser agent gives up an observation it asked for (its agent stopped waiting for
    /// it): the text has the agent enqueue an observation but no way to take one back.
    /// 1: not begun, its steps leave the AI agent queue; 2: waiting for tools to be ready,
    /// the wait ends without a result and the queue goes on; 3: already done, nothing to undo.
    ABANDON_AN_OBSERVATION,
    BASE + 29,
    WebMcpEngineDefined,
    "abandon-an-observation",
    "abandon an observation (the browser agent stops waiting for it)",
    ["1", "2", "2.1", "2.2", "3"]
);

// Declarative WebMCP: the text's section is a TODO ("synthesize a declarative JSON Schema
// object" has one TODO step, "the declarative execute steps" one Issue box). These are the
// engine's steps for it, each choice stated at its step (see `declarative.rs`).

algorithm!(
    /// The declarative tool of a form: the tool definition a form stands for, or null.
    DECLARATIVE_TOOL_OF_A_FORM,
    BASE + 30,
    WebMcpEngineDefined,
    "declarative-tool-of-a-form",
    "the declarative tool of a form",
    ["1", "2", "3", "4", "5", "6", "7"]
);
algorithm!(
    /// Update a form's declarative tool: run when a form or one of its controls changes.
    UPDATE_A_FORMS_DECLARATIVE_TOOL,
    BASE + 31,
    WebMcpEngineDefined,
    "update-a-forms-declarative-tool",
    "update a form's declarative tool",
    ["1", "2", "3", "4", "4.1", "4.2", "4.3", "4.4", "5", "6", "7", "8"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#synthesize-a-declarative-json-schema-object-algorithm>,
    /// whose only step in the text is a TODO.
    SYNTHESIZE_A_DECLARATIVE_JSON_SCHEMA_OBJECT,
    BASE + 32,
    WebMcpEngineDefined,
    "synthesize-a-declarative-json-schema-object",
    "synthesize a declarative JSON Schema object",
    ["1", "2", "2.1", "3", "3.1", "3.2", "3.3", "3.4", "3.5", "4"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#declarative-execute-steps>, which the text
    /// leaves as an Issue box.
    DECLARATIVE_EXECUTE_STEPS,
    BASE + 33,
    WebMcpEngineDefined,
    "declarative-execute-steps",
    "the declarative execute steps",
    ["1", "2", "3", "4", "5", "5.1", "5.2", "6", "7", "8", "9", "10", "11", "12", "13"]
);
algorithm!(
    /// The declarative submission steps: what a tool form's submission means to the execution
    /// that is running it.
    DECLARATIVE_SUBMISSION_STEPS,
    BASE + 34,
    WebMcpEngineDefined,
    "declarative-submission-steps",
    "the declarative submission steps",
    ["1", "2", "3", "4", "5", "6", "6.1", "6.2", "7"]
);
algorithm!(
    /// Finish a declarative execution: the form stops being active and the completion steps
    /// run.
    FINISH_A_DECLARATIVE_EXECUTION,
    BASE + 35,
    WebMcpEngineDefined,
    "finish-a-declarative-execution",
    "finish a declarative execution",
    ["1", "2", "3", "4"]
);

/// WebMCP's algorithms, in id order.
pub const ALGORITHMS: &[&Algorithm] = &[
    &CANCEL_A_PENDING_TOOL_EXECUTION,
    &UNLOADING_DOCUMENT_CLEANUP_STEPS,
    &NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
    &TOOL_IS_EXPOSED_TO_AN_ORIGIN,
    &TOOL_EXECUTE_STEPS,
    &IMPERATIVE_EXECUTE_STEPS,
    &UNREGISTER_A_TOOL,
    &DOCUMENT_MODEL_CONTEXT_GETTER,
    &REGISTER_TOOL,
    &GET_TOOLS,
    &EXECUTE_TOOL,
    &PERFORM_AN_OBSERVATION,
    &TOOLCHANGE_EVENT,
    &WAIT_FOR_TOOLS_UNTIL,
    &UPDATE_THE_TOOLS_READY_STATE,
    &WAIT_FOR_TOOLS_TO_BE_READY,
    &TOOLS_READY_GETTER,
    &PERFORM_AN_OBSERVATION_PR373,
    &UPDATE_THE_TOOLS_READY_STATE_R1,
    &REGISTER_TOOL_R1,
    &UNREGISTER_A_TOOL_R1,
    &NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE_R1,
    &UPDATE_THE_TOOLS_READY_STATE_COALESCED,
    &REGISTRY_NOTIFICATION,
    &DOCUMENT_LIFECYCLE,
    &GET_TOOLS_WAITS,
    &SETTLE_ON_REALM_DESTRUCTION,
    &CHECK_INPUT_SCHEMA,
    &CONVERT_DICTIONARY,
    &ABANDON_AN_OBSERVATION,
    &DECLARATIVE_TOOL_OF_A_FORM,
    &UPDATE_A_FORMS_DECLARATIVE_TOOL,
    &SYNTHESIZE_A_DECLARATIVE_JSON_SCHEMA_OBJECT,
    &DECLARATIVE_EXECUTE_STEPS,
    &DECLARATIVE_SUBMISSION_STEPS,
    &FINISH_A_DECLARATIVE_EXECUTION,
];

/// The algorithms whose every step the bundled scenarios must reach: every algorithm of the
/// published text the engine runs, and PR #373's final revision.
pub const FULLY_COVERED: &[&Algorithm] = &[
    &CANCEL_A_PENDING_TOOL_EXECUTION,
    &UNLOADING_DOCUMENT_CLEANUP_STEPS,
    &NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
    &TOOL_IS_EXPOSED_TO_AN_ORIGIN,
    &TOOL_EXECUTE_STEPS,
    &IMPERATIVE_EXECUTE_STEPS,
    &UNREGISTER_A_TOOL,
    &DOCUMENT_MODEL_CONTEXT_GETTER,
    &REGISTER_TOOL,
    &GET_TOOLS,
    &EXECUTE_TOOL,
    &PERFORM_AN_OBSERVATION,
    &WAIT_FOR_TOOLS_UNTIL,
    &UPDATE_THE_TOOLS_READY_STATE,
    &WAIT_FOR_TOOLS_TO_BE_READY,
    &TOOLS_READY_GETTER,
    &PERFORM_AN_OBSERVATION_PR373,
];
