//! WebMCP's behaviour switches: each place where the published text, PR #373's revisions, the
//! proposals, WPT and the implementations disagree about a WebMCP step. A step that a switch
//! changes names the switch in a comment at that step.

crate::switches! {
    /// WebMCP's switches.
    pub struct Switches;

    choices {
        /// Whether PR #373's readiness API exists at all.
        readiness_api: ReadinessApi = "readiness-api",
        from "PR #373 (waitForToolsUntil(), toolsReady, the wait in \"perform an observation\") vs the published text, which has none" {
            Pr373 = "pr373": "PR #373's readiness API and the observation's wait for tools to be ready",
            None = "none": "no readiness API: waitForToolsUntil() is not a function, toolsReady is undefined, and an observation does not wait (the published text; Chromium 156)" ["text", "chromium-156"],
        }

        /// What `waitForToolsUntil()` does with a promise that has already settled.
        settled_promise_check: SettledPromiseCheck = "settled-promise-check",
        from "PR #373 final revision (ignore) vs first revision (always add; Web IDL wraps `42` in a new promise)" {
            IgnoreSettled = "ignore-settled": "an already-settled promise changes nothing (final revision, Chromium)",
            AlwaysAdd = "always-add": "every promise is added to the pending set, even a settled one (first revision)" ["pr373-r1"],
        }

        /// Whether the settle steps of `waitForToolsUntil()` update tools-ready of a document
        /// that is not fully active.
        settle_updates_tools_ready: SettleUpdatesToolsReady = "settle-updates-tools-ready",
        from "PR #373 final revision (always) vs first revision (only if fully active; a bfcache restore left tools-ready false)" {
            Always = "always": "settling always updates the tools-ready state (final revision)",
            IfFullyActive = "if-fully-active": "settling updates it only while the document is fully active (first revision)" ["pr373-r1"],
        }

        /// Whether a readiness change dispatches `toolchange`.
        readiness_toolchange: ReadinessToolchange = "readiness-toolchange",
        from "PR #373 final revision (none) / first revision (ready events) / a reviewer's proposal (coalesced)" {
            None = "none": "readiness changes fire no event (final revision defers it)",
            ReadyEvents = "ready-events": "ToolChangeEvent{ready:false} when tools become not ready, other toolchange events suppressed until ready, then ToolChangeEvent{ready:true}, to every document of the tree allowed to use \"tools\" (first revision)" ["pr373-r1"],
            Coalesced = "coalesced": "a queued task compares tools-ready with the last state notified and notifies only a difference (reviewer's proposal)" ["coalesced-readiness"],
        }

        /// What happens to a pending promise whose realm's document is destroyed.
        destroyed_realm_promise: DestroyedRealmPromise = "destroyed-realm-promise",
        from "the spec (never settles) vs Chromium's PendingWaitForTools as the PR #373 review describes it" {
            NeverSettles = "never-settles": "its jobs never run, so it stays pending and tools-ready stays false (spec)",
            SettledOnDestroy = "settled-on-destroy": "it counts as settled when the document of the realm it came from is destroyed (Chromium's PendingWaitForTools, as the review describes it)" ["chromium-pr373"],
        }

        /// When `getTools()` collects the tools.
        gettools_snapshot: GetToolsSnapshot = "gettools-snapshot",
        from "the text collects them in parallel (getTools() step 8), after the calling task; Chromium 156 snapshots them when getTools() is called (a tool unregistered later in the same task is still listed)" {
            InParallel = "in-parallel": "the tools are collected in parallel, after the calling task (the text)",
            AtCall = "at-call": "the tools are collected when getTools() is called; only the answer comes in parallel (Chromium 156)" ["chromium-156", "chromium-pr373"],
        }

        /// Whether `getTools()` waits for tools to be ready before it answers.
        gettools_waits: GetToolsWaits = "gettools-waits",
        from "the follow-up that PR #373 defers" {
            No = "no": "getTools() answers at once (final revision)",
            Yes = "yes": "getTools() waits for tools to be ready first (deferred follow-up)" ["gettools-waits"],
        }

        /// How `registerTool()` and unregistration notify `toolchange`.
        registry_toolchange: RegistryToolchange = "registry-toolchange",
        from "today's text (one per call) vs the follow-up tracked in webmcp#374 (coalesced per task)" {
            PerCall = "per-call": "every registerTool()/unregister notifies on its own (current text)",
            PerTask = "per-task": "a change queues a task that notifies once for every change made until it runs (webmcp#374)" ["coalesced-registry"],
        }

        /// Until which point of a document's life its tools are presumed not ready.
        tools_ready_lifecycle: ToolsReadyLifecycle = "tools-ready-lifecycle",
        from "PR #373's open question" {
            None = "none": "tools-ready depends only on pending promises (final revision)",
            DomContentLoaded = "domcontentloaded": "tools are not ready before DOMContentLoaded" ["lifecycle-domcontentloaded"],
            Load = "load": "tools are not ready before the load event" ["lifecycle-load"],
        }

        /// How the text is read where its words cannot be carried out as they stand.
        text_reading: TextReading = "text-reading",
        from "the published text: steps that name a document's node navigable after the document stopped being active (unloading document cleanup steps 1, executeTool() 15.3, 16.1 and 16.10.1, getTools() 8.2), and completion steps started \"in parallel\" from steps already in parallel whose removal the cleanup steps then assert (2.3.2, 2.3.5)" {
            AsIntended = "as-intended": "as evidently intended: the navigable a document was last in stands for its node navigable, and steps already in parallel run completion steps at once",
            AsWritten = "as-written": "word for word (literal mode): a missing node navigable is a finding and the step stops; completion steps get a parallel queue of their own, and an assertion that then fails is a finding" ["literal"],
        }

        /// What a tool's result becomes.
        tool_result: ToolResult = "tool-result",
        from "the imperative execute steps (10.1.4) serialize every result to JSON, so a tool returning \"success\" gives \"\\\"success\\\"\" and one returning undefined fails; WPT's tests (executeTool-abort, unregister-during-executeTool, executeTool-unregister-resolution-race) expect a string to come back as it is" {
            Json = "json": "every result is serialized to a JSON string; a result with no JSON form (undefined, a function) fails with UnknownError (the text)",
            StringsAsIs = "strings-as-is": "a string comes back as it is, anything else as its JSON (what WPT's tests expect)",
            Chromium156 = "chromium-156": "as Chromium 156 measured: a string as it is, except \"\" which becomes \"Operation succeeded\"; another primitive (and undefined, a function, an object whose toJSON() gives undefined) as its ToString; an object as its JSON; a result JSON cannot serialize fails" ["chromium-156", "chromium-pr373"],
        }

        /// When `toolactivated` fires.
        toolactivated_timing: ToolactivatedTiming = "toolactivated-timing",
        from "the imperative execute steps fire toolactivated (step 4) before they invoke the tool's execute (step 9); WPT's executeTool-abort expects the tool to have started first ('tool started' is logged before 'toolactivated')" {
            BeforeExecute = "before-execute": "toolactivated fires, then execute is invoked (the text)",
            AfterExecuteStarts = "after-execute-starts": "execute is invoked, and toolactivated fires once it has returned or thrown and the microtasks it queued have run (what WPT's executeTool-abort expects; Chromium 156)" ["chromium-156", "chromium-pr373"],
        }

        /// Whether tool input schemas are checked (WPT's `.tentative` tests; no text yet).
        input_schema: InputSchema = "input-schema",
        from "WPT webmcp/imperative/*.tentative.https.html (Chromium) vs the spec, which has no text for it" {
            Unchecked = "unchecked": "registerTool() only serializes the schema; executeTool() does not validate input (spec)",
            TentativeSubset = "tentative-subset": "registerTool() rejects schemas outside a supported JSON Schema subset with a TypeError; executeTool() rejects input that fails the schema with a DataError (WPT's .tentative tests; no browser measured makes these checks: Chromium 156 does not)",
        }

        /// How the errors WebMCP's methods reject with are worded.
        error_messages: ErrorMessages = "error-messages",
        from "the text names each error and never its message; Chromium 156 gives fixed messages (\"Duplicate tool name\", \"The document is not active.\", ...)" {
            Engine = "engine": "the engine's own messages, each saying which check failed",
            Chromium156 = "chromium-156": "Chromium 156's messages, word for word, and its \"Failed to execute 'registerTool' on 'ModelContext': \" prefix on conversion errors" ["chromium-156", "chromium-pr373"],
        }

        /// Whether the methods refuse a document whose agent cluster is not origin-keyed (one
        /// that may set `document.domain`).
        agent_cluster_check: AgentClusterCheck = "agent-cluster-check",
        from "0023abda has no agent-cluster step; the older text (webmcp-index.bs, registerTool() 4) rejected with a SecurityError when the surrounding agent's cluster is not origin-keyed and the origin's scheme is not \"file\"; Chromium 156 does so in registerTool(), getTools() and executeTool(), right after the fully-active check (webmcp/probes/agent-cluster)" {
            None = "none": "no such check: a page served with `Origin-Agent-Cluster: ?0` uses WebMCP like any other (0023abda)",
            OriginKeyed = "origin-keyed": "registerTool(), getTools() and executeTool() reject with a SecurityError when the agent cluster is not origin-keyed, before the permissions policy is looked at (the older text's step, in all three methods as Chromium 156 measured)" ["chromium-156", "chromium-pr373"],
        }

        /// What executeTool() answers for a tool whose document is no longer in a page.
        executetool_removed_target: ExecuteToolRemovedTarget = "executetool-removed-target",
        from "executeTool() step 16.1 (the target is not in the caller's traversable: UnknownError) vs Chromium 156, which tells a removed iframe apart" {
            UnknownError = "unknown-error": "an UnknownError, as for any target outside the caller's traversable (the text)",
            InvalidStateError = "invalid-state-error": "an InvalidStateError (\"Target frame is detached.\") when the tool's document has been destroyed (Chromium 156)" ["chromium-156", "chromium-pr373"],
        }

        /// Where executeTool() refuses an input that is not an object.
        executetool_input_check: ExecuteToolInputCheck = "executetool-input-check",
        from "the text's `optional object inputObject` (Web IDL converts it before step 1, and step 9 only asserts) vs Chromium 156, which takes any value and refuses one that is not an object after the fully-active, agent-cluster, permissions-policy and origin checks (webmcp/probes/executeTool-input-order)" {
            WebIdl = "webidl": "Web IDL's conversion: a string, number, boolean or null input is a TypeError before step 1, ahead of every check of the steps (the text)",
            AtStep9 = "at-step-9": "the input is refused with a TypeError where step 9 asserts that it is an object, after steps 2-5 (Chromium 156, measured)" ["chromium-156", "chromium-pr373"],
        }

        /// Which document executeTool() reaches through a RegisteredTool's `window` once the
        /// tool's navigable has navigated to another document.
        registered_tool_window: RegisteredToolWindow = "registered-tool-window",
        from "the text never says whether a RegisteredTool names a document or a navigable; its `window` member is a Window, which script only ever holds through its navigable's WindowProxy (HTML), so executeTool()'s conversion of it (step 1, used at 12-13) gives the navigable's active Window; Chromium 156 runs the new document's tool (webmcp/probes/registered-tool-window)" {
            WindowProxy = "window-proxy": "the active document of the tool's navigable at the call: after a navigation to the same origin, the new document's tool of that name runs (HTML's WindowProxy; Chromium 156, as measured)",
            Document = "document": "the document whose getTools() listed the tool: once it is not its navigable's active document, executeTool() rejects at 16.1 as for a document outside the page",
        }

        /// What registerTool(), getTools() and executeTool() do on a document its navigable
        /// has navigated away from.
        navigated_document_calls: NavigatedDocumentCalls = "navigated-document-calls",
        from "the methods' fully-active check (registerTool() 3, getTools() 3, executeTool() 2: InvalidStateError) vs Chromium 156 right after the navigation: calls made as the new document's load event fires never answer; 100 ms and more later they reject as the text says (webmcp/probes/navigated-document)" {
            Reject = "reject": "rejected with an InvalidStateError, as on any document that is not fully active (the text; Chromium 156 once the old document is detached)",
            NeverSettle = "never-settle": "the promise never settles, and nothing is registered, listed or run (Chromium 156, right after the navigation); a removed iframe's document still rejects",
        }

        /// When a form's declarative tool is registered, updated and unregistered.
        declarative_registration_timing: DeclarativeRegistrationTiming = "declarative-registration-timing",
        from "the declarative explainer (a form becomes a tool when it is inserted, removed or its attributes change; no timing) vs Chromium 156, which registers and updates in a posted task and unregisters at once (webmcp/probes/declarative p10)" {
            Sync = "sync": "every change runs \"update a form's declarative tool\" in the mutation's own steps (the engine's reading of the explainer)",
            Chromium156 = "chromium-156": "a change that leaves the form a tool queues a DOM manipulation task that updates it (one per form until it runs); a change that ends the tool unregisters it at once (Chromium 156)" ["chromium-156", "chromium-pr373"],
        }

        /// How many `toolchange` events an update of a registered declarative tool gives.
        declarative_update_toolchange: DeclarativeUpdateToolchange = "declarative-update-toolchange",
        from "the text notifies once per change of the tool map; Chromium 156 unregisters and registers again, so every update is heard twice (webmcp/probes/declarative p10)" {
            Once = "once": "the tool map's entry is replaced and documents are notified once",
            UnregisterRegister = "unregister-register": "the old tool is unregistered (one notification) and the new one registered (another) (Chromium 156)" ["chromium-156", "chromium-pr373"],
        }

        /// Whether a form with an empty `tooldescription` is a tool.
        declarative_empty_description: DeclarativeEmptyDescription = "declarative-empty-description",
        from "registerTool() rejects an empty description (its step 10); Chromium 156 registers a form whose tooldescription is empty" {
            Reject = "reject": "not a tool, as registerTool() would refuse it (the engine's reading)",
            Allow = "allow": "a tool whose description is the empty string (Chromium 156)" ["chromium-156", "chromium-pr373"],
        }

        /// Which JSON Schema keywords "synthesize a declarative JSON Schema object" writes.
        declarative_schema: DeclarativeSchema = "declarative-schema",
        from "the text's TODO; Chromium 156 is the only implementation, and puts regular expressions in `format` (time, datetime-local, month, week, color), appends a sentence to a date's description and copies `pattern` onto number inputs, where HTML ignores it" {
            JsonSchema = "json-schema": "Chromium 156's mapping, with each keyword JSON Schema means: expressions in `pattern`, `format: date` without the appended sentence, no `pattern` where HTML does not apply it (the engine's)",
            Chromium156 = "chromium-156": "exactly the keywords Chromium 156 was measured writing" ["chromium-156", "chromium-pr373"],
        }

        /// How a number in an agent's input is written into a control.
        declarative_number_format: DeclarativeNumberFormat = "declarative-number-format",
        from "ECMAScript's Number::toString is the obvious reading; Chromium 156 writes every number outside the 32-bit integers with six significant digits (3.14159265 gives 3.14159), a plain bug" {
            Shortest = "shortest": "the shortest string that reads back as the same number (Number::toString)",
            BugSixSignificantDigits = "bug-six-significant-digits": "six significant digits, exponent form from 1e6 and below 1e-6 with its zeros kept (Chromium 156's bug)" ["chromium-156", "chromium-pr373"],
        }

        /// What a declarative execution whose form's document may not submit forms (a sandbox
        /// without `allow-forms`) answers.
        declarative_sandboxed_submission: DeclarativeSandboxedSubmission = "declarative-sandboxed-submission",
        from "the text's TODO; HTML's form submission algorithm returns at its step 4 without a trace, so nothing tells the execution; Chromium 156 leaves the executeTool() promise pending for ever (webmcp/probes/declarative-sandbox)" {
            Fail = "fail": "the execution fails with an UnknownError saying why, when the submission is refused (the engine's draft: a caller is always answered)",
            BugPending = "bug-pending": "nothing answers: the promise stays pending until the caller aborts (Chromium 156's bug)" ["chromium-156", "chromium-pr373"],
        }

        /// When a declarative execution fires `toolactivated`.
        declarative_toolactivated: DeclarativeToolactivated = "declarative-toolactivated",
        from "the explainer fires toolactivated once the form is filled and before it is submitted; Chromium 156 fires it after the submit event (toolautosubmit) or after pausing, and also for executions that failed" {
            AfterFill = "after-fill": "once the controls are filled, before the form is submitted or the user is waited for; a failed execution fires none (the explainer)",
            Chromium156 = "chromium-156": "after the submit event when the form submits itself, after pausing otherwise, and once for a failed execution too (Chromium 156)" ["chromium-156", "chromium-pr373"],
        }
    }

    numbers {
        /// The implementation-defined timeout of "wait for tools to be ready".
        tools_ready_timeout_ms = "tools-ready-timeout",
        from "the implementation-defined timeout of \"wait for tools to be ready\"",
        default 5000, unit "ms", range 0..=86400000,
        "<milliseconds>": "a whole number of milliseconds, at most a day (default 5000)";
    }
}
