//! WebMCP's behaviour switches: each place where the published text, PR #373's revisions, the
//! proposals, WPT and the implementations disagree about a WebMCP step. A step that a switch
//! changes names the switch in a comment at that step.

crate::switches! {
    /// WebMCP's switches.
    pub struct Switches;

    choices {
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
            SettledOnDestroy = "settled-on-destroy": "it counts as settled when the document of the realm it came from is destroyed (Chromium)" ["chromium"],
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

        /// How the text's assertions are checked.
        assertions: Assertions = "assertions",
        from "the spec snapshot's text: \"perform an observation\" step 2 asserts the active document is *not* fully active" {
            AsIntended = "as-intended": "assertions are checked as evidently intended (step 2: the active document is fully active)",
            AsWritten = "as-written": "assertions are checked word for word (literal mode)" ["literal"],
        }

        /// Which navigables "notify documents of a tool change" visits.
        notify_targets: NotifyTargets = "notify-targets",
        from "the spec snapshot says the traversable's \"descendant navigables\", which leaves out the top-level document; WPT expects it notified" {
            Inclusive = "inclusive": "the top-level traversable and all its descendants (what WPT tests expect)",
            Descendants = "descendants": "the descendant navigables only, as written" ["literal"],
        }

        /// Whether tool input schemas are checked (WPT's `.tentative` tests; no text yet).
        input_schema: InputSchema = "input-schema",
        from "WPT webmcp/imperative/*.tentative.https.html (Chromium) vs the spec, which has no text for it" {
            Unchecked = "unchecked": "registerTool() only serializes the schema; executeTool() does not validate input (spec)",
            TentativeSubset = "tentative-subset": "registerTool() rejects schemas outside a supported JSON Schema subset with a TypeError; executeTool() rejects input that fails the schema with a DataError (WPT .tentative, Chromium)" ["chromium"],
        }

        /// When `registerTool()` adds the abort steps of its signal.
        register_abort_steps: RegisterAbortSteps = "register-abort-steps",
        from "the spec text (step 18.2, before step 20's exposedTo checks can reject) vs Chromium 156, which leaves no abort steps behind a rejected registration" {
            AsWritten = "as-written": "added at step 18.2, and left on the signal when step 20 rejects: aborting it later unregisters a later tool of the same name (spec text)",
            OnSuccess = "on-success": "added only once the registration can no longer be rejected (Chromium 156)" ["chromium"],
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
