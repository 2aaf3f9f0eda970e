//! WebMCP's algorithms, each with its steps as its text numbers them.
//!
//! Four kinds of text, each its own table:
//! - the published WebMCP text the engine implements;
//! - PR #373's final revision (the readiness model), on top of it;
//! - PR #373's first revision, and the proposals made in its review or deferred to follow-ups,
//!   numbered as each proposal would write them; under a switch that selects one, the engine
//!   records that table's steps instead of the final revision's;
//! - the engine's own steps, where an implementation or a WPT test asks for behaviour no text
//!   has yet; each says what it chose.
//!
//! Ids continue the host's (see `crate::host::spec::ALGORITHMS`).

use crate::algorithm;
use crate::host::spec::{Algorithm, ALGORITHMS as HOST_ALGORITHMS};

const BASE: usize = HOST_ALGORITHMS.len();

// The published text.

algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-registertool>
    REGISTER_TOOL,
    BASE,
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
    /// <https://webmachinelearning.github.io/webmcp/#model-context-unregister-a-tool>
    UNREGISTER_A_TOOL,
    BASE + 1,
    WebMcp,
    "model-context-unregister-a-tool",
    "unregister a tool",
    ["1", "2", "3", "4", "5", "6", "6.1"]
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
    /// <https://webmachinelearning.github.io/webmcp/#tool-is-visible-to-an-origin>
    TOOL_IS_VISIBLE_TO_AN_ORIGIN,
    BASE + 3,
    WebMcp,
    "tool-is-visible-to-an-origin",
    "tool is visible to an origin",
    ["1", "2", "2.1", "3"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#perform-an-observation>, with PR #373's
    /// wait at step 3 and early return at step 4.
    PERFORM_AN_OBSERVATION,
    BASE + 4,
    WebMcp,
    "perform-an-observation",
    "perform an observation",
    ["1", "2", "3", "4", "5", "6", "7", "7.1", "7.2", "7.3", "8", "9"]
);
algorithm!(
    /// The task "notify documents of a tool change" queues: fire `toolchange`.
    TOOLCHANGE_EVENT,
    BASE + 5,
    WebMcp,
    "dom-modelcontext-ontoolchange",
    "fire toolchange (the task notify queues)",
    ["1"]
);

// PR #373, final revision.

algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-waitfortoolsuntil>
    WAIT_FOR_TOOLS_UNTIL,
    BASE + 6,
    WebMcpPr373,
    "dom-modelcontext-waitfortoolsuntil",
    "waitForToolsUntil()",
    ["1", "2", "3", "4", "5", "5.1", "5.2", "6", "6.1", "6.2"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#update-the-tools-ready-state>
    UPDATE_THE_TOOLS_READY_STATE,
    BASE + 7,
    WebMcpPr373,
    "update-the-tools-ready-state",
    "update the tools-ready state",
    ["1", "2"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#wait-for-tools-to-be-ready>
    WAIT_FOR_TOOLS_TO_BE_READY,
    BASE + 8,
    WebMcpPr373,
    "wait-for-tools-to-be-ready",
    "wait for tools to be ready",
    ["1", "2", "2.1", "2.2", "3", "4", "5", "6"]
);
algorithm!(
    /// <https://webmachinelearning.github.io/webmcp/#dom-modelcontext-toolsready>
    TOOLS_READY_GETTER,
    BASE + 9,
    WebMcpPr373,
    "dom-modelcontext-toolsready",
    "toolsReady getter",
    ["1"]
);

// PR #373's first revision, and the proposals.

algorithm!(
    /// PR #373's first revision of "update the tools-ready state": a change in a fully active
    /// document is notified in parallel with a `ToolChangeEvent`, as if exposed to every
    /// origin (readiness-toolchange=ready-events).
    UPDATE_THE_TOOLS_READY_STATE_R1,
    BASE + 10,
    WebMcpPr373,
    "update-the-tools-ready-state",
    "update the tools-ready state (PR #373 first revision)",
    ["1", "2", "3"]
);
algorithm!(
    /// A reviewer's proposal in PR #373: "update the tools-ready state" queues one task that
    /// compares tools-ready with the last state notified, and notifies only a difference
    /// (readiness-toolchange=coalesced).
    UPDATE_THE_TOOLS_READY_STATE_COALESCED,
    BASE + 11,
    WebMcpProposal,
    "update-the-tools-ready-state",
    "update the tools-ready state (coalesced-readiness proposal)",
    ["1", "2", "3", "3.1", "3.2", "3.3"]
);
algorithm!(
    /// webmcp#374: the registry changes one task makes are notified once, from a task
    /// (registry-toolchange=per-task).
    REGISTRY_NOTIFICATION,
    BASE + 12,
    WebMcpProposal,
    "coalesced-registry-notification",
    "notify a task's registry changes (registry-toolchange=per-task)",
    ["1", "2", "3"]
);
algorithm!(
    /// PR #373's open question: tools presumed not ready until a point of the document's
    /// loading (tools-ready-lifecycle).
    DOCUMENT_LIFECYCLE,
    BASE + 13,
    WebMcpProposal,
    "tools-ready-lifecycle",
    "a document reaches DOMContentLoaded or load (tools-ready-lifecycle)",
    ["1"]
);

// The engine's own steps.

algorithm!(
    /// `getTools()`: in the IDL and WPT; the steps are the engine's.
    GET_TOOLS,
    BASE + 14,
    WebMcpEngineDefined,
    "dom-modelcontext-gettools",
    "getTools()",
    ["1", "2", "3", "4", "5", "6", "7", "7.1", "7.2", "7.3", "8"]
);
algorithm!(
    /// `executeTool()`: in the IDL and WPT; the steps are the engine's.
    EXECUTE_TOOL,
    BASE + 15,
    WebMcpEngineDefined,
    "dom-modelcontext-executetool",
    "executeTool()",
    [
        "1", "2", "3", "4", "5", "6", "7", "8", "9", "9.1", "9.2", "9.3", "10", "10.1", "10.2",
        "10.3", "10.4", "10.5", "10.6", "11"
    ]
);
algorithm!(
    /// The task `executeTool()` queues in the tool's document.
    RUN_A_TOOL,
    BASE + 16,
    WebMcpEngineDefined,
    "run-a-tool",
    "run a tool (executeTool's task)",
    ["1", "2", "3", "4", "5", "6", "7", "7.1", "7.2"]
);
algorithm!(
    /// What the caller's abort does in the tool's document.
    CANCEL_A_TOOL,
    BASE + 17,
    WebMcpEngineDefined,
    "cancel-a-tool",
    "cancel a tool (executeTool's abort)",
    ["1", "2", "3"]
);
algorithm!(
    /// Chromium's PendingWaitForTools as the PR #373 review describes it
    /// (destroyed-realm-promise=settled-on-destroy).
    SETTLE_ON_REALM_DESTRUCTION,
    BASE + 18,
    WebMcpEngineDefined,
    "settle-on-realm-destruction",
    "count a destroyed realm's promise as settled (destroyed-realm-promise=settled-on-destroy)",
    ["1", "2"]
);
algorithm!(
    /// WPT's `.tentative` schema checks (input-schema=tentative-subset).
    CHECK_INPUT_SCHEMA,
    BASE + 19,
    WebMcpEngineDefined,
    "input-schema-checks",
    "check a tool's input schema and input (input-schema=tentative-subset)",
    ["1", "2"]
);
algorithm!(
    /// <https://webidl.spec.whatwg.org/#es-dictionary>, for WebMCP's dictionaries: one "step"
    /// per dictionary type.
    CONVERT_DICTIONARY,
    BASE + 20,
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

/// WebMCP's algorithms, in id order.
pub const ALGORITHMS: &[&Algorithm] = &[
    &REGISTER_TOOL,
    &UNREGISTER_A_TOOL,
    &NOTIFY_DOCUMENTS_OF_A_TOOL_CHANGE,
    &TOOL_IS_VISIBLE_TO_AN_ORIGIN,
    &PERFORM_AN_OBSERVATION,
    &TOOLCHANGE_EVENT,
    &WAIT_FOR_TOOLS_UNTIL,
    &UPDATE_THE_TOOLS_READY_STATE,
    &WAIT_FOR_TOOLS_TO_BE_READY,
    &TOOLS_READY_GETTER,
    &UPDATE_THE_TOOLS_READY_STATE_R1,
    &UPDATE_THE_TOOLS_READY_STATE_COALESCED,
    &REGISTRY_NOTIFICATION,
    &DOCUMENT_LIFECYCLE,
    &GET_TOOLS,
    &EXECUTE_TOOL,
    &RUN_A_TOOL,
    &CANCEL_A_TOOL,
    &SETTLE_ON_REALM_DESTRUCTION,
    &CHECK_INPUT_SCHEMA,
    &CONVERT_DICTIONARY,
];

/// The algorithms whose every step the bundled scenarios must reach: the published text's and
/// PR #373's final revision's that the readiness model touches.
pub const FULLY_COVERED: &[&Algorithm] = &[
    &REGISTER_TOOL,
    &UNREGISTER_A_TOOL,
    &WAIT_FOR_TOOLS_UNTIL,
    &UPDATE_THE_TOOLS_READY_STATE,
    &WAIT_FOR_TOOLS_TO_BE_READY,
    &PERFORM_AN_OBSERVATION,
];
